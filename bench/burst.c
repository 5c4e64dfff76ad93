/* bench/burst.c - the cost per data packet with the burst entry points (docs/PROTOCOL.md P37 bursts), beside single
 * calls (make bench runs it under callgrind; bench/README.md).
 *
 * Endpoint A writes 16 x 1 MiB into endpoint B's memory (4,096 data packets of 4 KiB, every 4th write with an
 * immediate, default configuration). No link model: a packet arrives 2 us after it was sent; at each instant each
 * side receives everything that has arrived (in bursts of up to `burst` packets, or one call per packet), runs its
 * timers and events, then sends until it has nothing (bursts of up to `burst`, or one call per packet). When B takes
 * single calls it polls transmit after every packet it receives, so it answers each data packet with its own SACK
 * (the clean stream's regime); when B takes bursts, the SACKs it owes for one burst coalesce (P37).
 *
 *   build/bench_burst STREAM      run one stream, check it (every byte, every completion), print its counts
 *   build/bench_burst list        the streams
 * Each side's calls go through its own wrappers (bench_b_a_rx, bench_b_a_tx, bench_b_b_rx, bench_b_b_tx,
 * bench_b_misc): callgrind's inclusive cost of each, minus the payload copy inside it, is the core's work of that
 * side and direction. The core is bench/core.c, a translation unit of its own: nothing of it is inlined here. */
#include "mrc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#define BB_NOINLINE __attribute__((noinline))
#elif defined(__GNUC__) && __GNUC__ >= 8
#define BB_NOINLINE __attribute__((noipa))
#else
#define BB_NOINLINE
#endif

#define MSG (1u << 20)
#define NMSG 16u
#define WIRE 16384u
#define DELAY 2000u
#define MAXB 64u

typedef struct {
    const char *name, *label;
    unsigned a_burst, b_burst; /* 0: one call per packet */
    uint16_t sack_every;
    uint8_t b_answers; /* B sends after each burst it receives (as a NIC's loop: a receive burst, then a transmit
                          burst), so a SACK per b_burst packets */
} bstream;
static const bstream streams[] = {
    {"single", "single calls, a SACK per packet", 0, 0, 1, 0},
    {"a32", "A in bursts of 32, a SACK per packet", 32, 0, 1, 0},
    {"a32_sack8", "A in bursts of 32, a SACK per 8", 32, 0, 8, 0},
    {"both32", "A and B in bursts of 32 (SACKs coalesce)", 32, 32, 1, 0},
    {"a32_b8", "A in bursts of 32, B in 8 answering each", 32, 8, 1, 1},
};
#define NSTREAMS (sizeof streams / sizeof streams[0])

typedef struct {
    mrc_time at;
    size_t len;
    mrc_rxinfo ri;
    int to;
    uint8_t bytes[MRC_HDR_MAX + 4096 + 4];
} packet;
static packet wire[WIRE];
static unsigned head, tail;
static mrc_endpoint ep[2]; /* large: static */
static mrc_conn qp[2];
static uint8_t *src, *dst;
static unsigned long data_pkts, sacks, imms;
static const bstream *S;

/* ---- the wrappers callgrind counts (each: one side, one direction) ---------------------------------------------- */
static int rx_calls(int s, mrc_rxpkt *k, unsigned n, int *rc, mrc_time now, unsigned b) {
    unsigned i;
    if (b) return mrc_endpoint_recv_burst(&ep[s], k, n, rc, now);
    for (i = 0; i < n; i++) rc[i] = mrc_endpoint_recv(&ep[s], k[i].pkt, k[i].len, &k[i].ri, now);
    return (int)n;
}
static int tx_calls(int s, mrc_txpkt *t, unsigned n, mrc_time now, unsigned b) {
    unsigned i;
    if (b) return mrc_endpoint_poll_tx_burst(&ep[s], t, n, 0, now);
    for (i = 0; i < n; i++) {
        t[i].len = mrc_endpoint_poll_tx(&ep[s], t[i].buf, t[i].cap, 0, &t[i].ti, now);
        if (t[i].len <= 0) break;
    }
    return (int)i;
}
static BB_NOINLINE int bench_b_a_rx(mrc_rxpkt *k, unsigned n, int *rc, mrc_time now) { return rx_calls(0, k, n, rc, now, S->a_burst); }
static BB_NOINLINE int bench_b_b_rx(mrc_rxpkt *k, unsigned n, int *rc, mrc_time now) { return rx_calls(1, k, n, rc, now, S->b_burst); }
static BB_NOINLINE int bench_b_a_tx(mrc_txpkt *t, unsigned n, mrc_time now) { return tx_calls(0, t, n, now, S->a_burst); }
static BB_NOINLINE int bench_b_b_tx(mrc_txpkt *t, unsigned n, mrc_time now) { return tx_calls(1, t, n, now, S->b_burst); }
static BB_NOINLINE int bench_b_misc(int s, mrc_time now, mrc_event *ev) {
    int n = 0;
    if (mrc_endpoint_next_deadline(&ep[s]) <= now) (void)mrc_endpoint_on_timeout(&ep[s], now);
    while (mrc_endpoint_poll_event(&ep[s], &ev[n < 63 ? n : 63]) > 0) n++;
    return n;
}

static void die(const char *what) {
    fprintf(stderr, "bench_burst: FAIL: %s: %s\n", S ? S->name : "-", what);
    exit(1);
}

/* send until the side has nothing */
static void transmit(int s, mrc_time now) {
    static uint8_t hb[MAXB][MRC_HDR_MAX];
    mrc_txpkt t[MAXB];
    unsigned i, lim = (s ? S->b_burst : S->a_burst) ? (s ? S->b_burst : S->a_burst) : MAXB;
    int n;
    do {
        for (i = 0; i < lim; i++) {
            t[i].buf = hb[i];
            t[i].cap = MRC_HDR_MAX;
        }
        n = s ? bench_b_b_tx(t, lim, now) : bench_b_a_tx(t, lim, now);
        if (n < 0) die("poll_tx");
        for (i = 0; i < (unsigned)n; i++) {
            packet *p = &wire[tail++ % WIRE];
            if (tail - head > WIRE) die("wire full");
            if (t[i].ti.opcode == MRC_OP_SACK) sacks++;
            if (t[i].ti.payload_len) data_pkts++;
            p->at = now + DELAY;
            p->to = 1 - s;
            memcpy(p->bytes, hb[i], (size_t)t[i].len);
            if (t[i].ti.payload_len) memcpy(p->bytes + t[i].len, t[i].ti.payload, t[i].ti.payload_len);
            memset(p->bytes + t[i].len + t[i].ti.payload_len, 0, t[i].ti.pad);
            p->len = (size_t)t[i].len + t[i].ti.payload_len + t[i].ti.pad;
            memset(&p->ri, 0, sizeof p->ri);
            p->ri.port = t[i].ti.port;
            p->ri.ev = t[i].ti.ev;
            p->ri.dscp = t[i].ti.dscp;
            p->ri.peer = 1;
        }
    } while (n == (int)lim);
}

static void events(int s, mrc_time now, unsigned *done) {
    mrc_event ev[64];
    int n = bench_b_misc(s, now, ev), i;
    for (i = 0; i < n && i < 64; i++) {
        if (ev[i].status != MRC_OK) die("an error event");
        if (ev[i].type == MRC_EVT_SEND_DONE) (*done)++;
        if (ev[i].type == MRC_EVT_RECV_IMM) {
            if (ev[i].imm != imms * 4u + 3u) die("an immediate out of order");
            imms++;
            (void)mrc_conn_post_recv(&qp[1], imms + 100u, now);
        }
    }
}

static int run(const bstream *d) {
    mrc_config cfg;
    mrc_write w;
    mrc_time now = 0;
    uint32_t rkey, i;
    unsigned done = 0;
    S = d;
    for (i = 0; i < 2; i++) {
        mrc_config_default(&cfg);
        cfg.seed = 7u + i;
        cfg.ack.sack_every = d->sack_every;
        if (mrc_endpoint_init(&ep[i], &cfg, 0) || mrc_conn_init(&ep[i], &qp[i], 0)) die("init");
    }
    for (i = 0; i < 2; i++) {
        mrc_conn_attr a;
        mrc_conn_attr_default(&a);
        a.dest_qpn = mrc_conn_qpn(&qp[1 - i]);
        a.sq_psn = 1000u * (i + 1u);
        a.rq_psn = 1000u * (2u - i);
        a.peer = 1;
        if (mrc_conn_connect(&qp[i], &a, 0)) die("connect");
    }
    if (mrc_endpoint_reg_mr(&ep[1], dst, 0x10000000u, (uint64_t)NMSG * MSG, MRC_ACCESS_REMOTE_WRITE, NULL, &rkey))
        die("reg_mr");
    for (i = 0; i < 8; i++) (void)mrc_conn_post_recv(&qp[1], 90u + i, 0);
    for (i = 0; i < NMSG; i++) {
        memset(&w, 0, sizeof w);
        w.wr_id = i;
        w.opcode = (i % 4u == 3u) ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        w.imm = i;
        w.buf = src + (size_t)i * MSG;
        w.len = MSG;
        w.remote_va = 0x10000000u + (uint64_t)i * MSG;
        w.rkey = rkey;
        if (mrc_conn_post_write(&qp[0], &w, 0)) die("post");
    }
    transmit(0, 0);
    for (;;) {
        mrc_time t = MRC_TIME_NEVER, dl;
        mrc_rxpkt k[2][MAXB];
        int rc[MAXB];
        unsigned n[2] = {0, 0}, lim[2];
        for (i = 0; i < 2; i++) {
            dl = mrc_endpoint_next_deadline(&ep[i]);
            if (dl < t) t = dl;
        }
        if (head != tail && wire[head % WIRE].at < t) t = wire[head % WIRE].at;
        if (t == MRC_TIME_NEVER) break;
        if (t > now) now = t;
        lim[0] = d->a_burst ? d->a_burst : 1u;
        lim[1] = d->b_burst ? d->b_burst : 1u;
        while (head != tail && wire[head % WIRE].at <= now) {
            packet *p = &wire[head++ % WIRE];
            int to = p->to;
            k[to][n[to]].pkt = p->bytes;
            k[to][n[to]].len = p->len;
            k[to][n[to]].ri = p->ri;
            if (++n[to] == lim[to]) {
                if (to) (void)bench_b_b_rx(k[1], n[1], rc, now);
                else (void)bench_b_a_rx(k[0], n[0], rc, now);
                n[to] = 0;
                if (to && (!d->b_burst || d->b_answers)) transmit(1, now); /* B answers each packet (single calls)
                                                                              or each burst at once */
            }
        }
        if (n[0]) (void)bench_b_a_rx(k[0], n[0], rc, now);
        if (n[1]) (void)bench_b_b_rx(k[1], n[1], rc, now);
        for (i = 0; i < 2; i++) events((int)i, now, &done);
        for (i = 0; i < 2; i++) transmit((int)i, now);
        if (done == NMSG && head == tail) break;
        if (now > 1000000000u) die("not done after 1 s of virtual time");
    }
    if (done != NMSG) die("not every write completed");
    if (imms != NMSG / 4u) die("not every immediate arrived");
    if (memcmp(src, dst, (size_t)NMSG * MSG) != 0) die("B's memory differs from A's buffer");
    printf("stream %s data_pkts %lu sacks %lu a_burst %u b_burst %u sack_every %u ok\n", d->name, data_pkts, sacks,
           d->a_burst, d->b_burst, d->sack_every);
    return 0;
}

int main(int argc, char **argv) {
    size_t i;
    if (argc == 2 && !strcmp(argv[1], "list")) {
        for (i = 0; i < NSTREAMS; i++) printf("%s\t%s\n", streams[i].name, streams[i].label);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: bench_burst STREAM | list\n");
        return 2;
    }
    src = (uint8_t *)malloc((size_t)NMSG * MSG);
    dst = (uint8_t *)calloc(1, (size_t)NMSG * MSG);
    if (!src || !dst) die("out of memory");
    for (i = 0; i < (size_t)NMSG * MSG; i++) src[i] = (uint8_t)(i * 7u + (i >> 12));
    for (i = 0; i < NSTREAMS; i++)
        if (!strcmp(argv[1], streams[i].name)) return run(&streams[i]);
    fprintf(stderr, "bench_burst: no stream %s (bench_burst list)\n", argv[1]);
    return 2;
}
