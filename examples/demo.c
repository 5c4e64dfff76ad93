/* demo.c - two MRC endpoints in one process, joined by a lossy simulated 8-plane wire (tests/fixtures/mrc_wire.h).
 *
 * Endpoint A writes a buffer into endpoint B's registered memory as a stream of RDMA Writes, every fourth one a
 * Write-with-Immediate. The wire loses, reorders, trims and duplicates packets; the core sprays them over the EVs of
 * 8 planes, SACKs/NACKs them and retransmits. The demo prints a progress line per interval of virtual time, then a
 * summary, and checks that B's memory equals A's buffer byte for byte and that the immediates arrived in order.
 *
 *   demo [-s SEED] [-m MIB] [-l LOSS_PPM] [-t TRIM_PPM] [-j JITTER_NS] [-i INTERVAL_US] [-q]
 *
 * Exit status 0 when every message completed and the data is bit-exact, 1 otherwise, 2 for a usage error.
 */
#define MRC_IMPLEMENTATION
#include "../mrc.h"
#define MRC_WIRE_IMPLEMENTATION
#include "../tests/fixtures/mrc_wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG_BYTES (1u << 20) /* one Write per MiB */
#define MAX_POSTED 32u       /* writes kept posted at once */

typedef struct demo {
    mrc_endpoint a, b;
    mrc_conn ca, cb;
    mrc_wire w;
    uint8_t *src, *dst;
    uint64_t total;
    uint32_t rkey, nmsgs, posted, done, imm_expected, imm_seen;
    int failed; /* a completion with an error status, or an immediate out of order */
} demo;

static void usage(FILE *f) {
    fprintf(f, "usage: demo [-s SEED] [-m MIB] [-l LOSS_PPM] [-t TRIM_PPM] [-j JITTER_NS] [-i INTERVAL_US] [-q]\n"
               "  -s SEED        seed of the endpoints and the wire (default 1)\n"
               "  -m MIB         MiB to transfer, 1..1024 (default 64)\n"
               "  -l LOSS_PPM    random loss per link, parts per million (default 2000 = 0.2%%)\n"
               "  -t TRIM_PPM    random trimming per link, ppm (default 5000)\n"
               "  -j JITTER_NS   uniform extra delay per packet, ns (default 1000): reordering\n"
               "  -i INTERVAL_US progress interval in virtual microseconds (default 100)\n"
               "  -q             no progress lines\n");
}

/* Parse an unsigned decimal in [lo, hi]; prints a clear message and returns -1 when it is not one. */
static int parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
    char *end;
    unsigned long long v;
    errno = 0;
    if (!s || !*s || *s == '-') goto bad;
    v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi) goto bad;
    *out = v;
    return 0;
bad:
    fprintf(stderr, "demo: %s needs an integer in %llu..%llu, got '%s'\n", opt, (unsigned long long)lo,
            (unsigned long long)hi, s ? s : "");
    return -1;
}

static int conn_up(mrc_conn *c, uint32_t dest_qpn, uint32_t my_psn, uint32_t peer_psn) {
    mrc_conn_attr a;
    mrc_conn_attr_default(&a); /* EV profile 0 and CC profile 0: the built-in defaults; retries, timeout 16.8 ms */
    a.dest_qpn = dest_qpn;
    a.rq_psn = peer_psn;
    a.sq_psn = my_psn;
    a.mpr_dest = 8; /* 1024 PSNs */
    a.max_wimm_dest = 64;
    a.mpr = 8;
    a.max_wimm = 32;
    return mrc_conn_connect(c, &a, 0); /* RESET -> INIT -> RTR -> RTS */
}

/* Keep up to MAX_POSTED writes posted; message i covers bytes [i MiB, (i+1) MiB) and every fourth is a Write-IMM. */
static void post_more(demo *d) {
    uint32_t before = d->posted;
    while (d->posted < d->nmsgs && d->posted - d->done < MAX_POSTED) {
        uint64_t off = (uint64_t)d->posted * MSG_BYTES;
        mrc_write wr;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = d->posted;
        wr.opcode = (d->posted % 4u == 3u) ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        wr.buf = d->src + off;
        wr.len = (uint32_t)(d->total - off < MSG_BYTES ? d->total - off : MSG_BYTES);
        wr.remote_va = 0x100000000ull + off;
        wr.rkey = d->rkey;
        wr.imm = 0xD0000000u | d->posted;
        if (wr.opcode == MRC_WR_WRITE_IMM && mrc_conn_post_recv(&d->cb, d->posted, mrc_wire_now(&d->w)) != MRC_OK)
            break;
        if (mrc_conn_post_write(&d->ca, &wr, mrc_wire_now(&d->w)) != MRC_OK) break;
        d->posted++;
    }
    if (d->posted != before) mrc_wire_kick(&d->w); /* only then: a kick makes the wire poll again at this instant */
}

/* Pull every event; called by the wire after each step. */
static int pump(void *ud) {
    demo *d = (demo *)ud;
    mrc_event ev;
    while (mrc_endpoint_poll_event(&d->a, &ev) > 0) {
        if (ev.type == MRC_EVT_SEND_DONE && ev.status == MRC_OK) d->done++;
        else if (ev.status != MRC_OK) {
            fprintf(stderr, "demo: A: %s status %d (%s)\n", mrc_event_name(ev.type), ev.status,
                    mrc_strerror(ev.status));
            d->failed = 1;
        }
    }
    while (mrc_endpoint_poll_event(&d->b, &ev) > 0) {
        if (ev.type == MRC_EVT_RECV_IMM && ev.status == MRC_OK) {
            uint32_t want = d->imm_expected * 4u + 3u;
            if (ev.imm != (0xD0000000u | want) || ev.wr_id != want) {
                fprintf(stderr, "demo: B: immediate 0x%08x out of order (expected 0x%08x)\n", ev.imm,
                        0xD0000000u | want);
                d->failed = 1;
            }
            d->imm_expected++;
            d->imm_seen++;
        } else {
            fprintf(stderr, "demo: B: %s status %d (%s)\n", mrc_event_name(ev.type), ev.status,
                    mrc_strerror(ev.status));
            d->failed = 1;
        }
    }
    post_more(d);
    return d->failed || d->done == d->nmsgs;
}

int main(int argc, char **argv) {
    uint64_t seed = 1, mib = 64, loss = 2000, trim = 5000, jitter = 1000, interval_us = 100;
    int quiet = 0, i, rc, exact;
    demo *d;
    mrc_config cfg;
    mrc_wire_config wc;
    mrc_wire_link l;
    mrc_wire_stats ws;
    mrc_conn_stats cs, rs;
    mrc_endpoint_stats es;
    mrc_time next, t_end;
    uint64_t last_bytes = 0, j;

    for (i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t *dst = NULL, lo = 0, hi = 0;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(o, "-q")) {
            quiet = 1;
            continue;
        } else if (!strcmp(o, "-s")) dst = &seed, lo = 0, hi = UINT64_MAX;
        else if (!strcmp(o, "-m")) dst = &mib, lo = 1, hi = 1024;
        else if (!strcmp(o, "-l")) dst = &loss, lo = 0, hi = 500000;
        else if (!strcmp(o, "-t")) dst = &trim, lo = 0, hi = 500000;
        else if (!strcmp(o, "-j")) dst = &jitter, lo = 0, hi = 1000000;
        else if (!strcmp(o, "-i")) dst = &interval_us, lo = 1, hi = 1000000;
        else {
            fprintf(stderr, "demo: unknown option '%s'\n", o);
            usage(stderr);
            return 2;
        }
        if (!v) {
            fprintf(stderr, "demo: option %s needs a value\n", o);
            return 2;
        }
        if (parse_u64(o, v, lo, hi, dst)) return 2;
        i++;
    }

    d = (demo *)calloc(1, sizeof *d);
    if (!d) {
        fprintf(stderr, "demo: out of memory\n");
        return 1;
    }
    d->total = mib << 20;
    d->nmsgs = (uint32_t)((d->total + MSG_BYTES - 1u) / MSG_BYTES);
    d->src = (uint8_t *)malloc(d->total);
    d->dst = (uint8_t *)calloc(1, d->total);
    if (!d->src || !d->dst) {
        fprintf(stderr, "demo: out of memory for %llu MiB\n", (unsigned long long)mib);
        return 1;
    }
    for (j = 0; j < d->total; j++) d->src[j] = (uint8_t)((j * 2654435761u) >> 13 ^ seed);

    mrc_config_default(&cfg);
    cfg.seed = seed;
    rc = mrc_endpoint_init(&d->a, &cfg, 0);
    cfg.seed = seed ^ 0x5EEDB0B0u;
    if (!rc) rc = mrc_endpoint_init(&d->b, &cfg, 0);
    if (!rc) rc = mrc_conn_init(&d->a, &d->ca, 0);
    if (!rc) rc = mrc_conn_init(&d->b, &d->cb, 0);
    if (!rc) rc = conn_up(&d->ca, mrc_conn_qpn(&d->cb), 0x000100, 0x000200);
    if (!rc) rc = conn_up(&d->cb, mrc_conn_qpn(&d->ca), 0x000200, 0x000100);
    if (!rc) rc = mrc_endpoint_reg_mr(&d->b, d->dst, 0x100000000ull, d->total, MRC_ACCESS_REMOTE_WRITE, NULL, &d->rkey);
    if (rc) {
        fprintf(stderr, "demo: setup failed: %s\n", mrc_strerror(rc));
        return 1;
    }

    mrc_wire_config_default(&wc);
    wc.seed = seed;
    mrc_wire_link_default(&l); /* 100 Gb/s, 2 us per plane */
    l.loss_ppm = (uint32_t)loss;
    l.trim_ppm = (uint32_t)trim;
    l.jitter_ns = jitter;
    l.dup_ppm = (uint32_t)(loss / 4u);
    mrc_wire_config_set_link(&wc, MRC_WIRE_BOTH, 0, &l);
    if (mrc_wire_init(&d->w, &wc, &d->a, &d->b, 0) != MRC_OK) {
        fprintf(stderr, "demo: cannot create the simulated wire\n");
        return 1;
    }

    printf("MRC demo: %llu MiB A -> B as %u writes (every 4th with immediate), 8 planes x 100 Gb/s, 2 us links\n"
           "wire: loss %.3f%%, trim %.3f%%, dup %.3f%%, jitter %llu ns, seed %llu (virtual time)\n",
           (unsigned long long)mib, d->nmsgs, (double)loss / 1e4, (double)trim / 1e4, (double)(loss / 4u) / 1e4,
           (unsigned long long)jitter, (unsigned long long)seed);
    if (!quiet) printf("%10s %10s %9s %8s %8s %8s %8s\n", "time(us)", "MiB done", "Gb/s", "pkts", "rtx", "trims",
                       "nacks");
    post_more(d);
    next = interval_us * 1000u;
    for (;;) {
        rc = mrc_wire_run(&d->w, next, pump, d);
        if (rc < 0) {
            fprintf(stderr, "demo: wire error %d (%s)\n", rc, mrc_strerror(rc));
            return 1;
        }
        mrc_conn_stats_get(&d->ca, &cs);
        mrc_conn_stats_get(&d->cb, &rs);
        if (!quiet) {
            uint64_t bytes = rs.rx_bytes_placed;
            printf("%10.0f %10.2f %9.1f %8llu %8llu %8llu %8llu\n", (double)mrc_wire_now(&d->w) / 1e3,
                   (double)bytes / 1048576.0, (double)(bytes - last_bytes) * 8.0 / (double)(interval_us * 1000u),
                   (unsigned long long)cs.tx_data, (unsigned long long)cs.tx_rtx, (unsigned long long)rs.rx_trimmed,
                   (unsigned long long)cs.rx_nack);
            last_bytes = bytes;
        }
        if (rc == 1) break;
        if (mrc_wire_now(&d->w) > 10000000000ull) {
            fprintf(stderr, "demo: not finished after 10 s of virtual time\n");
            return 1;
        }
        next = mrc_wire_now(&d->w) + interval_us * 1000u;
    }
    t_end = mrc_wire_now(&d->w);
    exact = memcmp(d->src, d->dst, d->total) == 0;
    mrc_conn_stats_get(&d->ca, &cs);
    mrc_conn_stats_get(&d->cb, &rs);
    mrc_endpoint_stats_get(&d->b, &es);
    mrc_wire_stats_total(&d->w, MRC_WIRE_A, &ws);

    printf("\n%-34s %llu B in %.1f us = %.1f Gb/s goodput (line rate 800)\n", "transfer",
           (unsigned long long)d->total, (double)t_end / 1e3, (double)d->total * 8.0 / (double)t_end);
    printf("%-34s %u of %u, immediates %u in order\n", "writes completed", d->done, d->nmsgs, d->imm_seen);
    printf("%-34s %llu sent, %llu retransmitted (%.2f%%)\n", "data packets", (unsigned long long)cs.tx_data,
           (unsigned long long)cs.tx_rtx, cs.tx_data ? 100.0 * (double)cs.tx_rtx / (double)cs.tx_data : 0.0);
    printf("%-34s sack hole %llu, nack %llu, rto %llu, probe %llu\n", "retransmissions by cause",
           (unsigned long long)cs.rtx_sack_hole, (unsigned long long)cs.rtx_nack, (unsigned long long)cs.rtx_rto,
           (unsigned long long)cs.rtx_probe_loss);
    printf("%-34s lost %llu, trimmed %llu, duplicated %llu\n", "wire A->B did", (unsigned long long)ws.drop_loss,
           (unsigned long long)ws.trim, (unsigned long long)ws.dup);
    printf("%-34s SACKs %llu, NACKs %llu, duplicates dropped %llu\n", "responder B", (unsigned long long)rs.tx_sack,
           (unsigned long long)rs.tx_nack, (unsigned long long)es.drop[MRC_DROP_DUP]);
    printf("%-34s %s\n", "data at B", exact ? "bit-exact" : "MISMATCH");
    free(d->src);
    free(d->dst);
    mrc_wire_free(&d->w);
    rc = exact && !d->failed && d->done == d->nmsgs ? 0 : 1;
    free(d);
    return rc;
}
