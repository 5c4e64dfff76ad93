/* perf_report_test.c - the figures of mrc_perf's report (examples/perf_report.h) on the cases that once printed
 * wrong numbers (issue 38): a peak below the average, a failover timeline starting before the fault, "189% retained"
 * called OK, a retransmission line mixing packets and PSNs, a peer verdict as a "k=v" string. make perf-report-test
 * (part of make test). Last line "N passed, N failed". */
#define _GNU_SOURCE
#include "perf_report.h"

#include <stdlib.h>

static unsigned pass, failed;
#define CHECK(cond, ...)                                                                                              \
    do {                                                                                                             \
        if (cond) pass++;                                                                                            \
        else {                                                                                                       \
            failed++;                                                                                                \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                              \
            printf(__VA_ARGS__);                                                                                     \
            printf("\n");                                                                                            \
        }                                                                                                            \
    } while (0)

#define MS 1000000ull

static uint64_t bins[8000];

static void t_peak(void) {
    double avg, pk;
    uint64_t i, total = 0;
    /* a 53 ms run (-s 8K -n 2000): no 100 ms window fits; the peak is the average, never 0 */
    memset(bins, 0, sizeof bins);
    for (i = 0; i < 53; i++) bins[i] = 300000, total += 300000;
    avg = (double)total * 8 / (53.0 * MS);
    pk = perf_peak_gbps(bins, 53, MS, total, 53 * MS, PERF_PEAK_WINDOW_NS);
    CHECK(pk >= avg && pk <= avg * 1.0000001, "short run: peak %.4f, average %.4f", pk, avg);
    /* 16 MiB messages completing in lumps (-s 16M -q 16 -n 2): 512 MiB in 3.7 s, 16 completions in two instants;
       a 100 ms window once gave 21.47 Gb/s beside 1.17. Pieces of >= 1 s give a peak near the average */
    memset(bins, 0, sizeof bins);
    total = 0;
    bins[1800] = 16ull * (16u << 20), bins[3699] = 16ull * (16u << 20), total = 32ull * (16u << 20);
    avg = (double)total * 8 / (3700.0 * MS);
    pk = perf_peak_gbps(bins, 3700, MS, total, 3700 * MS, PERF_PEAK_WINDOW_NS);
    CHECK(pk >= avg && pk < 3 * avg, "lumpy run: peak %.3f, average %.3f", pk, avg);
    /* a steady 5 s run with a faster second: the peak shows it and stays >= the average */
    memset(bins, 0, sizeof bins);
    total = 0;
    for (i = 0; i < 5000; i++) bins[i] = i >= 2000 && i < 3000 ? 200000 : 100000, total += bins[i];
    avg = (double)total * 8 / (5000.0 * MS);
    pk = perf_peak_gbps(bins, 5000, MS, total, 5000 * MS, PERF_PEAK_WINDOW_NS);
    CHECK(pk >= avg && pk > 1.5 && pk < 1.7, "steady run: peak %.3f (want 1.6), average %.3f", pk, avg);
    /* bytes past the series' end still count in the last piece */
    pk = perf_peak_gbps(bins, 10, MS, total, 5000 * MS, PERF_PEAK_WINDOW_NS);
    CHECK(pk >= avg, "truncated series: peak %.3f below the average %.3f", pk, avg);
    /* every length from 1 ms to 7.9 s, a random series: never below the average */
    srand(7);
    for (i = 0; i < 8000; i++) bins[i] = (uint64_t)(rand() % 1000) * ((i % 997) < 3 ? 1000u : 1u);
    {
        uint64_t len, bad = 0;
        for (len = 1; len < 8000; len += 37) {
            uint64_t j, tot = 0;
            for (j = 0; j < len; j++) tot += bins[j];
            avg = (double)tot * 8 / ((double)len * MS);
            pk = perf_peak_gbps(bins, len, MS, tot, len * MS, PERF_PEAK_WINDOW_NS);
            if (pk < avg) bad++;
        }
        CHECK(bad == 0, "%llu run lengths gave a peak below the average", (unsigned long long)bad);
    }
    CHECK(perf_peak_gbps(NULL, 0, MS, 1000, 0, PERF_PEAK_WINDOW_NS) == 0, "an empty run has no rate");
    /* perftest's units */
    CHECK(perf_bw_unit(8.388608, 0) > 999.99 && perf_bw_unit(8.388608, 0) < 1000.01, "8.388608 Gb/s = 1000 MB/sec");
    CHECK(perf_bw_unit(2.5, 1) == 2.5, "--report_gbits keeps Gb/sec");
}

static void t_verdict(void) {
    char why[256];
    /* make demo on a busy host: 0.30 Gb/s against a 0.8 Gb/s link model, 189.1% "retained" */
    CHECK(perf_fo_verdict(0.30, 0.567, 0.8, 8, why, sizeof why) == PERF_FO_INCONCLUSIVE && strstr(why, "CPU-bound"),
          "189%% retained: %s", why);
    CHECK(perf_fo_verdict(0.35, 0.33, 0.8, 8, why, sizeof why) == PERF_FO_INCONCLUSIVE && strstr(why, "CPU"),
          "far below the link model: %s", why);
    /* the cause measured (the share of the "before" window the process wanted a CPU): 25 Mb/s planes whose goodput
     * fell to a tenth of the links with the process mostly asleep were once called CPU-bound */
    CHECK(perf_fo_verdict_cpu(0.05, 0.05, 0.2, 8, 0.08, why, sizeof why) == PERF_FO_INCONCLUSIVE &&
              strstr(why, "neither the links nor the host's CPU") && !strstr(why, "CPU-bound"),
          "far below the links, CPU idle: %s", why);
    CHECK(perf_fo_verdict_cpu(0.35, 0.33, 0.8, 8, 0.97, why, sizeof why) == PERF_FO_INCONCLUSIVE &&
              strstr(why, "97%") && strstr(why, "CPU-bound"),
          "far below the links, CPU busy: %s", why);
    CHECK(perf_fo_verdict_cpu(0.30, 0.567, 0.8, 8, 0.2, why, sizeof why) == PERF_FO_INCONCLUSIVE &&
              strstr(why, "not its CPU either"),
          "above 100%%, CPU idle: %s", why);
    CHECK(perf_fo_verdict_cpu(0.78, 0.68, 0.8, 8, 0.3, why, sizeof why) == PERF_FO_OK, "link-bound: %s", why);
    CHECK(perf_fo_verdict(0.78, 1.02, 0, 8, why, sizeof why) == PERF_FO_INCONCLUSIVE, "130.8%% without a link model");
    CHECK(perf_fo_verdict(0.78, 0.68, 0.8, 8, why, sizeof why) == PERF_FO_OK, "87.2%% of a link-bound run: %s", why);
    CHECK(perf_fo_verdict(0.78, 0.50, 0.8, 8, why, sizeof why) == PERF_FO_DEGRADED, "64%% retained: %s", why);
    CHECK(perf_fo_verdict(0, 0.5, 0.8, 8, why, sizeof why) == PERF_FO_INCONCLUSIVE, "nothing before");
    CHECK(!strcmp(perf_fo_name(PERF_FO_INCONCLUSIVE), "INCONCLUSIVE"), "name");
}

static void t_timeline(void) {
    perf_timeline t;
    memset(&t, 0, sizeof t);
    /* EVs demoted by a busy host 1666 ms before the black hole, then the plane's EVs after it */
    perf_timeline_add(&t, 334 * MS, 2000 * MS);
    perf_timeline_add(&t, 2003 * MS, 2000 * MS);
    perf_timeline_add(&t, 2021 * MS, 2000 * MS);
    CHECK(t.before == 1 && t.after == 2 && t.first == 2003 * MS && t.last == 2021 * MS,
          "before %llu after %llu first %llu", (unsigned long long)t.before, (unsigned long long)t.after,
          (unsigned long long)t.first);
    CHECK(t.first >= 2000 * MS, "a timeline never starts before its fault");
}

static void t_rtx(void) {
    char b[512];
    unsigned long long sent, fresh, rtx, lost, s, nk, r, pr;
    double pct;
    /* "retransmitted 0 (0.000%): sack-hole 42": 42 PSNs declared lost, none retransmitted */
    perf_rtx_line(b, sizeof b, 1000, 0, 42, 0, 0, 0, 0);
    CHECK(sscanf(b, " MRC: data packets sent %llu = new %llu + retransmitted %llu (%lf%%)", &sent, &fresh, &rtx,
                 &pct) == 4 && sent == fresh + rtx && rtx == 0, "%s", b);
    CHECK(strstr(b, "PSNs declared lost 42 = SACK hole 42 + NACK/trim 0 + RTO 0 + probe 0") != NULL, "%s", b);
    perf_rtx_line(b, sizeof b, 5000, 120, 90, 20, 7, 3, 11);
    {
        const char *l2 = strstr(b, " MRC: PSNs");
        CHECK(sscanf(b, " MRC: data packets sent %llu = new %llu + retransmitted %llu", &sent, &fresh, &rtx) == 3 &&
                  sent == fresh + rtx, "%s", b);
        CHECK(l2 && sscanf(l2, " MRC: PSNs declared lost %llu = SACK hole %llu + NACK/trim %llu + RTO %llu + probe %llu",
                           &lost, &s, &nk, &r, &pr) == 5 && lost == s + nk + r + pr && lost == 120,
              "%s", b);
    }
}

static void t_json(void) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        CHECK(0, "open_memstream");
        return;
    }
    perf_json_kv(f, "ok=1 msgs=300 bytes=2400000 stall_max_ns=0 raw=0");
    fputc('|', f);
    perf_json_kv(f, "");
    fputc('|', f);
    perf_json_kv(f, "ok=0 why=a\"b");
    fclose(f);
    CHECK(!strcmp(buf, "{\"ok\":true,\"msgs\":300,\"bytes\":2400000,\"stall_max_ns\":0,\"raw\":false}|null|"
                       "{\"ok\":false,\"why\":\"a\\\"b\"}"),
          "got %s", buf);
    free(buf);
}

int main(void) {
    t_peak();
    t_verdict();
    t_timeline();
    t_rtx();
    t_json();
    printf("perf-report-test: %u passed, %u failed\n", pass, failed);
    return failed != 0;
}
