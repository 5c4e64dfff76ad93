/* perf_report.h - the figures of mrc_perf's report, as functions of numbers only, so that each is tested
 * (examples/perf_report_test.c, part of make test) apart from any network run. Included by examples/mrc_perf.c.
 *
 *   perf_peak_gbps       BW peak: the best piece of the run cut into equal pieces of at least one second (the unit
 *                        of the average's rate); never below the average, equal to it for a run under 2 s
 *   perf_fo_verdict      a failover's goodput verdict: OK, DEGRADED, or INCONCLUSIVE when the figures cannot tell
 *                        (goodput above what it was before, or far below the link model: the host's CPU was the limit)
 *   perf_timeline_add    a plane's "EVs marked bad" timeline: only the events at or after the fault
 *   perf_rtx_line        the retransmission line: packets sent and retransmitted, then PSNs declared lost by reason,
 *                        each figure one thing and the reasons adding up to their total
 *   perf_json_kv         a "k=v k=v" line (the peer's verdict) as a JSON object: numbers, true/false for the flags
 *   perf_bw_unit         perftest's units: MB/sec (2^20 bytes a second) by default, Gb/sec with --report_gbits
 */
#ifndef PERF_REPORT_H
#define PERF_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PERF_PEAK_WINDOW_NS 1000000000ull /* one second: the average is a per-second rate */

/* bins[i]: bytes completed in [i*bin_ns, (i+1)*bin_ns) of the run; total_bytes and run_ns: the run's whole (the
 * average is total_bytes / run_ns). The run [0, run_ns) is cut into k = max(1, run_ns / window) equal pieces, their
 * edges rounded to bins, the last ending exactly at run_ns and holding every byte the earlier pieces do not (so
 * bins lost past the series' end still count). The pieces' durations add up to run_ns and their bytes to
 * total_bytes, so the best piece's rate is at least the average. Gb/s. */
static double perf_peak_gbps(const uint64_t *bins, uint64_t nbins, uint64_t bin_ns, uint64_t total_bytes,
                             uint64_t run_ns, uint64_t window_ns) {
    uint64_t k, i, a = 0, acc = 0;
    double best, avg;
    if (!run_ns) return 0;
    avg = (double)total_bytes * 8 / (double)run_ns;
    k = window_ns ? run_ns / window_ns : 1u;
    if (k < 2u || !bins || !bin_ns) return avg;
    best = 0;
    for (i = 0; i + 1u < k; i++) {
        uint64_t b = (run_ns / k * (i + 1u) + bin_ns / 2u) / bin_ns, s = 0, j;
        for (j = a; j < b; j++) s += j < nbins ? bins[j] : 0u;
        if (b > a) {
            double g = (double)s * 8 / ((double)(b - a) * (double)bin_ns);
            if (g > best) best = g;
        }
        acc += s;
        a = b;
    }
    if (run_ns > a * bin_ns) { /* the last piece */
        double g = (double)(total_bytes > acc ? total_bytes - acc : 0u) * 8 / (double)(run_ns - a * bin_ns);
        if (g > best) best = g;
    }
    return best > avg ? best : avg; /* equal pieces: only rounding can put the best a hair below */
}

/* perftest's units: MB/sec = 2^20 bytes a second (the default); Gb/sec = 10^9 bits a second (--report_gbits) */
static double perf_bw_unit(double gbps, int gbits) { return gbits ? gbps : gbps * 1e9 / 8 / 1048576.0; }

enum { PERF_FO_OK = 0, PERF_FO_DEGRADED = 1, PERF_FO_INCONCLUSIVE = 2 };
static const char *perf_fo_name(int v) {
    return v == PERF_FO_OK ? "OK" : v == PERF_FO_DEGRADED ? "DEGRADED" : "INCONCLUSIVE";
}
/* before, after: goodput (Gb/s) before and after losing one of planes; link_gbps: the link model's capacity over
 * all planes (0: none). INCONCLUSIVE when after/before > 105% (the goodput before was not the network's limit) or
 * before < 80% of the link model (the links were not the bottleneck, so losing a plane's capacity cannot show; cpu,
 * the share of the time the busier of the two processes wanted a CPU, says whether the CPU was; -1: not measured);
 * else OK when after/before is within 5 points of (planes-1)/planes or above, DEGRADED below. why: one line. */
static int perf_fo_verdict_cpu(double before, double after, double link_gbps, unsigned planes, double cpu,
                               char *why, size_t n) {
    double r = before > 0 ? after / before : 0, expect = planes ? (double)(planes - 1u) / (double)planes : 0;
    if (before <= 0) {
        snprintf(why, n, "no goodput before the fault: nothing to compare");
        return PERF_FO_INCONCLUSIVE;
    }
    if (r > 1.05) {
        if (cpu >= 0)
            snprintf(why, n, "%.1f%% retained is above 100%%: the goodput before the fault was not the network's limit "
                             "(the busier mrc_perf process wanted a CPU %.0f%% of the time: %s)", 100 * r, 100 * cpu,
                     cpu >= 0.5 ? "CPU-bound" : "not its CPU either");
        else
            snprintf(why, n, "%.1f%% retained is above 100%%: the goodput before the fault was not the network's limit "
                             "(a CPU-bound host, or the transport's window)", 100 * r);
        return PERF_FO_INCONCLUSIVE;
    }
    if (link_gbps > 0 && before < 0.8 * link_gbps) {
        if (cpu >= 0 && cpu < 0.5)
            snprintf(why, n, "goodput before the fault %.2f Gb/s is far below the link model's %.2f Gb/s, and the busier "
                             "mrc_perf process wanted a CPU only %.0f%% of the time: neither the links nor the host's "
                             "CPU was the limit (the transport's window)", before, link_gbps, 100 * cpu);
        else if (cpu >= 0)
            snprintf(why, n, "goodput before the fault %.2f Gb/s is far below the link model's %.2f Gb/s, and the busier "
                             "mrc_perf process wanted a CPU %.0f%% of the time: the host's CPU, not the links, was the "
                             "limit (CPU-bound)", before, link_gbps, 100 * cpu);
        else
            snprintf(why, n, "goodput before the fault %.2f Gb/s is far below the link model's %.2f Gb/s: the links "
                             "were not the limit (a CPU-bound host, or the transport's window)", before, link_gbps);
        return PERF_FO_INCONCLUSIVE;
    }
    if (r >= expect - 0.05) {
        snprintf(why, n, "%.1f%% retained after losing 1 of %u planes (%u/%u = %.1f%%)", 100 * r, planes, planes - 1u,
                 planes, 100 * expect);
        return PERF_FO_OK;
    }
    snprintf(why, n, "only %.1f%% retained after losing 1 of %u planes (%u/%u = %.1f%%)", 100 * r, planes, planes - 1u,
             planes, 100 * expect);
    return PERF_FO_DEGRADED;
}
/* The same without a CPU measurement */
static inline int perf_fo_verdict(double before, double after, double link_gbps, unsigned planes, char *why, size_t n) {
    return perf_fo_verdict_cpu(before, after, link_gbps, planes, -1, why, n);
}

/* One plane's EV-state timeline around a fault: events before it are counted apart, never in first/last. */
typedef struct perf_timeline {
    uint64_t before, after;   /* bad events before the fault / at or after it */
    uint64_t first, last;     /* times of the first and last bad event at or after the fault (valid when after) */
} perf_timeline;
static void perf_timeline_add(perf_timeline *t, uint64_t when, uint64_t fault) {
    if (when < fault) {
        t->before++;
        return;
    }
    if (!t->after++) t->first = when;
    t->last = when;
}

/* The retransmission line. tx_data: data packets sent, retransmissions included; tx_rtx: of them, retransmissions;
 * lost_*: PSNs declared lost, by how (a PSN declared lost may still be acknowledged before its retransmission goes,
 * so the two totals differ); spurious: retransmissions an earlier copy's SACK showed unnecessary. */
static int perf_rtx_line(char *b, size_t n, uint64_t tx_data, uint64_t tx_rtx, uint64_t lost_sack,
                         uint64_t lost_nack, uint64_t lost_rto, uint64_t lost_probe, uint64_t spurious) {
    uint64_t lost = lost_sack + lost_nack + lost_rto + lost_probe;
    return snprintf(b, n,
                    " MRC: data packets sent %llu = new %llu + retransmitted %llu (%.3f%%); spurious retransmissions "
                    "%llu\n MRC: PSNs declared lost %llu = SACK hole %llu + NACK/trim %llu + RTO %llu + probe %llu\n",
                    (unsigned long long)tx_data, (unsigned long long)(tx_data - tx_rtx), (unsigned long long)tx_rtx,
                    tx_data ? 100.0 * (double)tx_rtx / (double)tx_data : 0.0, (unsigned long long)spurious,
                    (unsigned long long)lost, (unsigned long long)lost_sack, (unsigned long long)lost_nack,
                    (unsigned long long)lost_rto, (unsigned long long)lost_probe);
}

/* "ok=1 msgs=3 bytes=12 raw=1" -> {"ok":true,"msgs":3,"bytes":12,"raw":true}. Values that are not unsigned
 * integers become strings; the flags ok, raw and norx become true/false. An empty line gives null. */
static void perf_json_kv(FILE *f, const char *line) {
    const char *s = line;
    int first = 1;
    if (!line || !*line) {
        fputs("null", f);
        return;
    }
    fputc('{', f);
    while (*s) {
        const char *k, *eq, *v, *e;
        size_t kl, vl, i;
        int num = 1;
        while (*s == ' ') s++;
        if (!*s) break;
        k = s;
        e = strchr(s, ' ');
        if (!e) e = s + strlen(s);
        eq = memchr(k, '=', (size_t)(e - k));
        s = e;
        if (!eq || eq == k) continue;
        kl = (size_t)(eq - k);
        v = eq + 1;
        vl = (size_t)(e - v);
        for (i = 0; i < vl; i++)
            if (v[i] < '0' || v[i] > '9') num = 0;
        if (!vl) num = 0;
        fprintf(f, "%s\"%.*s\":", first ? "" : ",", (int)kl, k);
        first = 0;
        if (num && ((kl == 2 && !memcmp(k, "ok", 2)) || (kl == 3 && !memcmp(k, "raw", 3)) ||
                    (kl == 4 && !memcmp(k, "norx", 4))))
            fputs(vl == 1 && v[0] == '0' ? "false" : "true", f);
        else if (num) fprintf(f, "%.*s", (int)vl, v);
        else {
            fputc('"', f);
            for (i = 0; i < vl; i++) {
                if (v[i] == '"' || v[i] == '\\') fputc('\\', f);
                if ((unsigned char)v[i] >= 0x20) fputc(v[i], f);
            }
            fputc('"', f);
        }
    }
    fputc('}', f);
}

#endif /* PERF_REPORT_H */
