/* bench/mrc_bench.c - the performance record of the core (make bench; bench/README.md says what each figure means).
 *
 * Two endpoints in one process, driven straight from memory: the sender's poll_tx output goes into the receiver's
 * mrc_endpoint_recv and back, through two FIFOs with a constant one-way delay and a sender paced at 800 Gb/s, in
 * virtual time the program advances (no I/O, no simulator, no sleep). The harness never copies a payload: a data
 * packet is handed to the receiver in place, its headers written into the 64 bytes before the payload in the
 * sender's buffer (saved and restored around the call), so the only payload copy is the core's placement.
 *
 *   mrc_bench list [timed|reconcile]    the streams this build runs (the large build runs the L_* ones); timed:
 *                                       the ones the wall-clock table has; reconcile: the ones the targets name,
 *                                       which bench.sh also counts without the wrappers (the reconciliation)
 *   mrc_bench cg STREAM COUNTS          one transfer for callgrind: the transfer runs twice with the same seeds;
 *                                       the first records what every poll_tx returns, the second replays it with each
 *                                       call through the wrapper for its outcome (bench_tx_data, bench_tx_sack,
 *                                       bench_poll_idle_rx, ...), checked against the record; COUNTS gets the
 *                                       packets and calls of every wrapper
 *   mrc_bench report DIR [JSON]         instruction tables from DIR/STREAM.counts + DIR/STREAM.ir (bench/bench.sh
 *                                       folds each callgrind.out into .ir), the reconciliation (DIR/STREAM.api.*),
 *                                       the targets; JSON lines appended to JSON; exit 1 when the reconciliation
 *                                       fails
 *   mrc_bench time [JSON] [REPS]        wall-clock: median ns per data packet over REPS (7) transfers per stream,
 *                                       with a 4 KiB memcpy timed in the same run as the yardstick
 *   mrc_bench run STREAM                one plain transfer as the wall-clock runs it, checked; bench.sh counts its
 *                                       instructions (callgrind --toggle-collect=transfer): harness + core
 *   mrc_bench features                  the build (default or large) and whether it carries callgrind requests
 *
 * The core is not in this unit: bench/core.c compiles it apart (no LTO) and the Makefile links it, so the phase
 * wrappers below can only call the core's API functions, and a wrapper's self cost is the harness's alone.
 *
 * Every transfer is checked: every write completes with MRC_OK in order, every immediate arrives in order, the
 * receiver placed exactly the bytes written and its buffer equals the source byte for byte. Anything else exits 1.
 */
#define _POSIX_C_SOURCE 199309L
#include "mrc.h" /* the implementation is bench/core.c, a unit of its own: see the phase wrappers */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Built with -DBENCH_CALLGRIND (the Makefile does when valgrind's headers are installed), the callgrind run is
 * instrumented only around the replayed transfer (bench.sh then passes --instr-atstart=no): setup and the recording
 * run go at valgrind's uninstrumented speed. The counts are the same either way (only bench_* are collected). */
#ifdef BENCH_CALLGRIND
#include <valgrind/callgrind.h>
#define BENCH_CG_START() CALLGRIND_START_INSTRUMENTATION
#define BENCH_CG_STOP() CALLGRIND_STOP_INSTRUMENTATION
#define BENCH_CG_REQUESTS 1
#else
#define BENCH_CG_START() ((void)0)
#define BENCH_CG_STOP() ((void)0)
#define BENCH_CG_REQUESTS 0
#endif

#if MRC_MAX_CONNS >= 1024 && MRC_MAX_SQ >= 1024 && MRC_MAX_RQ >= 1024 && MRC_MAX_INFLIGHT >= 4096
#define BENCH_LARGE 1
#define BENCH_BUILD "large"
#else
#define BENCH_LARGE 0
#define BENCH_BUILD "default"
#endif

/* The phase wrappers must stay separate functions, each its own code, so callgrind can name them. The core they call
 * is another translation unit (bench/core.c), so none of its code is inlined into them. */
#if defined(__clang__)
#define BENCH_NOINLINE __attribute__((noinline))
#elif defined(__GNUC__) && __GNUC__ >= 8
#define BENCH_NOINLINE __attribute__((noipa))
#elif defined(__GNUC__)
#define BENCH_NOINLINE __attribute__((noinline, noclone))
#else
#define BENCH_NOINLINE
#endif

#define LINK_GBPS 800u          /* the sender's pace: 8 planes x 100 Gb/s, one packet after the other */
#define REGION (16u << 20)      /* source and destination buffers; messages wrap around in them */
#define HEADROOM ((size_t)MRC_HDR_MAX + 4u) /* room before the source buffer for its first packet's headers */
#define IOVA 0x100000000ull
#define QCAP 16384u             /* packets in flight per direction */

/* ---- streams ---------------------------------------------------------------------------------------------------- */
typedef struct sdef {
    const char *name, *label;
    int large;              /* runs in the large-capacity build only (and the others in the default build only) */
    unsigned nqp;           /* QPs, messages spread round-robin */
    uint32_t msg_bytes;     /* bytes per write (multiple of 4 KiB) */
    uint32_t cg_msgs;       /* writes in the callgrind transfer */
    uint32_t time_msgs;     /* writes in each wall-clock transfer (0: not timed) */
    uint32_t per_qp;        /* writes kept posted per QP */
    unsigned imm_every;     /* every Nth write is a Write-with-Immediate (0: none) */
    uint16_t evs_per_port;  /* AUTO EV profile: EVs per port (8 ports) */
    uint16_t sack_every;
    uint8_t mpr;            /* requester and responder window in 128-PSN units (0: mrc_conn_attr_default) */
    int cc_algo;            /* -1: the default (NSCC) */
    uint32_t delay_ns;      /* one-way delay */
    unsigned trim_every;    /* every Nth data packet reaches the receiver trimmed (0: none) */
    unsigned holes;         /* the receiver never gets the first transmission of an odd PSN */
} sdef;

#define MIB (1u << 20)
#define KIB (1u << 10)
#define LONG_DELAY 100000u /* 200 us RTT: the window, not the link, limits the sender */
static const sdef streams[] = {
    /* name, label, large, nqp, msg_bytes, cg_msgs, time_msgs, per_qp, imm_every, evs_per_port, sack_every, mpr,
     * cc_algo, delay_ns, trim_every, holes */
    {"clean", "clean", 0, 1, MIB, 16, 256, 32, 4, 16, 1, 0, -1, 2000, 0, 0},
    {"trim1", "1% trimmed", 0, 1, MIB, 16, 256, 32, 4, 16, 1, 0, -1, 2000, 100, 0},
    {"evs256", "256 EVs", 0, 1, MIB, 16, 256, 32, 4, 32, 1, 0, -1, 2000, 0, 0},
    {"sack8", "SACK per 8", 0, 1, MIB, 16, 256, 32, 4, 16, 8, 0, -1, 2000, 0, 0},
    {"sack16", "SACK per 16", 0, 1, MIB, 16, 256, 32, 4, 16, 16, 0, -1, 2000, 0, 0},
    {"evs8", "8 EVs", 0, 1, MIB, 16, 0, 32, 4, 1, 1, 0, -1, 2000, 0, 0},
    {"win_empty", "window full, no holes", 0, 1, MIB, 16, 0, 32, 4, 16, 1, 0, MRC_CC_ALGO_NONE, LONG_DELAY, 0, 0},
    {"win_holes", "window full of holes", 0, 1, MIB, 16, 0, 32, 4, 16, 1, 0, MRC_CC_ALGO_NONE, LONG_DELAY, 0, 1},
    {"L_clean", "clean, large build", 1, 1, MIB, 16, 0, 32, 4, 16, 1, 0, -1, 2000, 0, 0},
    {"L_mpr1", "MPR 1 unit", 1, 1, MIB, 64, 0, 32, 4, 16, 1, 1, MRC_CC_ALGO_NONE, LONG_DELAY, 0, 0},
    {"L_mpr32", "MPR 32 units", 1, 1, MIB, 64, 0, 32, 4, 16, 1, 32, MRC_CC_ALGO_NONE, LONG_DELAY, 0, 0},
    {"L_qp1", "1 QP, 16 EVs", 1, 1, 128 * KIB, 1024, 0, 32, 0, 2, 1, 0, -1, 2000, 0, 0},
    {"L_qp1024", "1,024 QPs, 16 EVs each", 1, 1024, 128 * KIB, 1024, 0, 1, 0, 2, 1, 0, -1, 2000, 0, 0},
    {"L_msg1", "1 message outstanding", 1, 1, 4 * KIB, 4096, 0, 1, 0, 16, 1, 0, -1, 2000, 0, 0},
    {"L_msg1000", "1,000 messages outstanding", 1, 1, 4 * KIB, 4096, 0, 1000, 0, 16, 1, 0, -1, 2000, 0, 0},
};
#define NSTREAMS (sizeof streams / sizeof streams[0])
static const char *const main_streams[] = {"clean", "trim1", "evs256", "sack8", "sack16"};
#define NMAIN (sizeof main_streams / sizeof main_streams[0])
/* the project's targets (issue 36), reported beside the figures and never asserted: ALL-IN per 4 KiB data packet of
 * a stream, and the scaling table flat within TARGET_FLAT */
typedef struct target { const char *stream, *what; double max; } target;
static const target targets[] = {
    {"clean", "ALL-IN, a SACK per data packet (clean)", 800.0},
    {"sack8", "ALL-IN, a SACK per 8 data packets (sack8)", 400.0},
};
#define NTARGETS (sizeof targets / sizeof targets[0])
#define TARGET_FLAT 1.2
/* the reconciliation (bench.sh): the API calls counted without the wrappers must give ALL-IN within RECON_MAX_PCT */
#define RECON_MAX_PCT 2.0
typedef struct scale_row { const char *dim, *small, *large, *s_small, *s_large; } scale_row;
static const scale_row scale_rows[] = {
    {"EVs per QP", "8", "256", "evs8", "evs256"},
    {"MPR window (128-PSN units)", "1", "32", "L_mpr1", "L_mpr32"},
    {"QPs", "1", "1,024", "L_qp1", "L_qp1024"},
    {"messages outstanding", "1", "1,000", "L_msg1", "L_msg1000"},
    {"window", "full, no holes", "full of holes", "win_empty", "win_holes"},
    {"capacities (1 QP, clean)", "default", "large build", "clean", "L_clean"},
};
#define NROWS (sizeof scale_rows / sizeof scale_rows[0])

static int is_main(const char *name) {
    size_t i;
    for (i = 0; i < sizeof main_streams / sizeof main_streams[0]; i++)
        if (!strcmp(main_streams[i], name)) return 1;
    return 0;
}

static const sdef *stream_find(const char *name) {
    size_t i;
    for (i = 0; i < NSTREAMS; i++)
        if (!strcmp(streams[i].name, name)) return &streams[i];
    return NULL;
}

/* ---- phase wrappers (what callgrind counts) --------------------------------------------------------------------- */
enum {
    W_TX_DATA, W_RX_DATA, W_TX_SACK, W_RX_SACK, W_IDLE_TX, W_IDLE_RX, W_RX_TRIM, W_TX_NACK, W_RX_NACK, W_TX_OTHER,
    W_RX_OTHER, W_TIMERS, W_EVENTS, W_POST, W_POST_RECV, W_COUNT
};
static const char *const wname[W_COUNT] = {
    "bench_tx_data", "bench_rx_data", "bench_tx_sack", "bench_rx_sack", "bench_poll_idle_tx", "bench_poll_idle_rx",
    "bench_rx_trim", "bench_tx_nack", "bench_rx_nack", "bench_tx_other", "bench_rx_other", "bench_timers",
    "bench_events", "bench_post", "bench_post_recv"};
/* the all-in figure: every packet in and out and every poll_tx; timers, events and posts are reported apart */
static const int w_allin[W_COUNT] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
static unsigned long long wcalls[W_COUNT];

#define POLL_WRAPPER(fn, id)                                                                                          \
    static BENCH_NOINLINE int fn(mrc_endpoint *ep, uint8_t *hdr, mrc_txinfo *ti, mrc_time now) {                     \
        wcalls[id]++;                                                                                                 \
        return mrc_endpoint_poll_tx(ep, hdr, MRC_HDR_MAX, 0, ti, now);                                                \
    }
#define RECV_WRAPPER(fn, id)                                                                                          \
    static BENCH_NOINLINE int fn(mrc_endpoint *ep, const uint8_t *p, size_t len, const mrc_rxinfo *ri,               \
                                 mrc_time now) {                                                                      \
        wcalls[id]++;                                                                                                 \
        return mrc_endpoint_recv(ep, p, len, ri, now);                                                                \
    }
POLL_WRAPPER(bench_tx_data, W_TX_DATA)
POLL_WRAPPER(bench_tx_sack, W_TX_SACK)
POLL_WRAPPER(bench_poll_idle_tx, W_IDLE_TX)
POLL_WRAPPER(bench_poll_idle_rx, W_IDLE_RX)
POLL_WRAPPER(bench_tx_nack, W_TX_NACK)
POLL_WRAPPER(bench_tx_other, W_TX_OTHER)
RECV_WRAPPER(bench_rx_data, W_RX_DATA)
RECV_WRAPPER(bench_rx_sack, W_RX_SACK)
RECV_WRAPPER(bench_rx_trim, W_RX_TRIM)
RECV_WRAPPER(bench_rx_nack, W_RX_NACK)
RECV_WRAPPER(bench_rx_other, W_RX_OTHER)
static BENCH_NOINLINE int bench_timers(mrc_endpoint *ep, mrc_time now) {
    wcalls[W_TIMERS]++;
    return mrc_endpoint_on_timeout(ep, now);
}
static BENCH_NOINLINE int bench_events(mrc_endpoint *ep, mrc_event *ev) {
    wcalls[W_EVENTS]++;
    return mrc_endpoint_poll_event(ep, ev);
}
static BENCH_NOINLINE int bench_post(mrc_conn *c, const mrc_write *w, mrc_time now) {
    wcalls[W_POST]++;
    return mrc_conn_post_write(c, w, now);
}
static BENCH_NOINLINE int bench_post_recv(mrc_conn *c, uint64_t wr_id, mrc_time now) {
    wcalls[W_POST_RECV]++;
    return mrc_conn_post_recv(c, wr_id, now);
}

/* ---- the in-memory wire ----------------------------------------------------------------------------------------- */
enum { K_NONE = 0, K_DATA, K_SACK, K_NACK, K_OTHER }; /* what a poll_tx returned / what a packet is */
typedef struct wpkt {
    mrc_time at;
    const uint8_t *payload; /* in the sender's buffer */
    uint32_t plen;
    uint16_t hlen;
    uint8_t pad, kind;
    mrc_rxinfo ri;
    uint8_t hdr[MRC_HDR_MAX + 4];
} wpkt;
typedef struct fifo { wpkt *v; uint32_t head, tail; } fifo;

enum { MODE_PLAIN, MODE_RECORD, MODE_REPLAY };

typedef struct counts {
    uint64_t tx_data, tx_first, rx_data, rx_trim, dropped, sacks, nacks, other_a, other_b, rx_sack, rx_nack,
        rx_other, idle_tx, idle_rx, timers, events, posts, core_drops;
    uint64_t placed, rtx, occ_n;
    double occ_sum;
    mrc_time vtime;
} counts;

typedef struct run {
    const sdef *d;
    int mode;
    uint32_t nmsgs;
    mrc_config cfg;
    mrc_conn *ca, *cb;
    uint32_t rkey;
    fifo ab, ba;
    mrc_time now, a_free;
    int a_kick, a_ev, b_ev;
    uint32_t *q_next, *q_out, *q_done, *q_total, *q_imm_next;
    uint64_t done, imm_seen, imm_total;
    uint64_t b_data_seen;
    /* the record of poll outcomes (MODE_RECORD writes it, MODE_REPLAY follows it) */
    uint8_t *log;
    size_t log_len, log_cap, log_pos;
    /* window occupancy (MODE_RECORD): newest PSN sent and cumulative ack per QP */
    uint32_t *hi_psn, *cack, *qpn_sorted, *qpn_idx;
    int64_t outstanding;
    counts n;
} run;

static mrc_endpoint g_ep[2]; /* large and must not move: static */
static uint8_t *g_src, *g_dst, *g_src_alloc;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("mrc_bench: FAIL: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz);
    if (!p) die("out of memory (%zu x %zu bytes)", n, sz);
    return p;
}

static int pkt_kind(unsigned opcode) {
    if (opcode >= MRC_OP_WRITE_FIRST && opcode <= MRC_OP_WRITE_ONLY_IMM) return K_DATA;
    if (opcode == MRC_OP_SACK) return K_SACK;
    if (opcode == MRC_OP_NACK) return K_NACK;
    return K_OTHER;
}

static int qp_of_qpn(const run *r, uint32_t qpn) { /* local QPN of the sender -> QP index, -1 if none */
    unsigned lo = 0, hi = r->d->nqp;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2u;
        if (r->qpn_sorted[mid] < qpn) lo = mid + 1u;
        else hi = mid;
    }
    return lo < r->d->nqp && r->qpn_sorted[lo] == qpn ? (int)r->qpn_idx[lo] : -1;
}

static void log_push(run *r, uint8_t k) {
    if (r->log_len == r->log_cap) {
        r->log_cap = r->log_cap ? r->log_cap * 2u : 65536u;
        r->log = (uint8_t *)realloc(r->log, r->log_cap);
        if (!r->log) die("out of memory (poll record)");
    }
    r->log[r->log_len++] = k;
}

/* One poll_tx on side (0 sender, 1 receiver) into hdr; returns the kind of packet (K_NONE: nothing). */
static int do_poll(run *r, int side, uint8_t *hdr, mrc_txinfo *ti) {
    mrc_endpoint *ep = &g_ep[side];
    int n, kind;
    uint8_t want = 0;
    if (r->mode == MODE_REPLAY) {
        if (r->log_pos >= r->log_len) die("%s: the replay polls more often than the recorded run", r->d->name);
        want = r->log[r->log_pos++];
        switch (want) {
        case K_NONE:
            n = side ? bench_poll_idle_rx(ep, hdr, ti, r->now) : bench_poll_idle_tx(ep, hdr, ti, r->now);
            break;
        case K_DATA: n = bench_tx_data(ep, hdr, ti, r->now); break;
        case K_SACK: n = bench_tx_sack(ep, hdr, ti, r->now); break;
        case K_NACK: n = bench_tx_nack(ep, hdr, ti, r->now); break;
        default: n = bench_tx_other(ep, hdr, ti, r->now); break;
        }
    } else {
        n = mrc_endpoint_poll_tx(ep, hdr, MRC_HDR_MAX, 0, ti, r->now);
    }
    if (n < 0) die("%s: poll_tx returned %d (%s)", r->d->name, n, mrc_strerror(n));
    kind = n == 0 ? K_NONE : pkt_kind(ti->opcode);
    if (r->mode == MODE_RECORD) log_push(r, (uint8_t)kind);
    if (r->mode == MODE_REPLAY && kind != want)
        die("%s: the replay is not the recorded run (poll %zu: %d, recorded %d): the core is not deterministic",
            r->d->name, r->log_pos - 1u, kind, want);
    return kind;
}

static void do_recv(run *r, int side, int w, const uint8_t *p, size_t len, const mrc_rxinfo *ri) {
    mrc_endpoint *ep = &g_ep[side];
    int rc;
    if (r->mode == MODE_REPLAY) {
        switch (w) {
        case W_RX_DATA: rc = bench_rx_data(ep, p, len, ri, r->now); break;
        case W_RX_TRIM: rc = bench_rx_trim(ep, p, len, ri, r->now); break;
        case W_RX_SACK: rc = bench_rx_sack(ep, p, len, ri, r->now); break;
        case W_RX_NACK: rc = bench_rx_nack(ep, p, len, ri, r->now); break;
        default: rc = bench_rx_other(ep, p, len, ri, r->now); break;
        }
    } else {
        rc = mrc_endpoint_recv(ep, p, len, ri, r->now);
    }
    if (rc == MRC_ERR_DROP) { if (w != W_RX_TRIM) r->n.core_drops++; }
    else if (rc < 0) die("%s: mrc_endpoint_recv returned %d (%s)", r->d->name, rc, mrc_strerror(rc));
}

static wpkt *fifo_slot(run *r, fifo *f) {
    if (f->tail - f->head >= QCAP) die("%s: more than %u packets in flight one way", r->d->name, QCAP);
    return &f->v[f->tail & (QCAP - 1u)];
}

static void fill(wpkt *p, int n, const mrc_txinfo *ti, int kind, mrc_time at) {
    p->at = at;
    p->hlen = (uint16_t)n;
    p->payload = ti->payload;
    p->plen = ti->payload_len;
    p->pad = ti->pad;
    p->kind = (uint8_t)kind;
    memset(&p->ri, 0, sizeof p->ri);
    p->ri.port = ti->port; /* plane p of one end is wired to plane p of the other */
    p->ri.ev = ti->ev;
    p->ri.dscp = ti->dscp;
    p->ri.peer = 1;
}

static uint32_t psn_of(const run *r, const uint8_t *hdr, size_t len) {
    mrc_bth b;
    if (mrc_bth_decode(hdr, len, &r->cfg.wire, &b) < 0) die("%s: cannot decode a BTH the core built", r->d->name);
    return b.psn;
}

/* Hand a packet to an endpoint in one piece: a data packet in place (its headers written just before the payload
 * in the source buffer, those bytes put back after the call), any other from its header buffer. */
static void deliver(run *r, int side, int w, wpkt *p, uint8_t flags) {
    mrc_rxinfo ri = p->ri;
    size_t len = (size_t)p->hlen + p->plen + p->pad;
    ri.flags = flags;
    if (flags & MRC_RX_TRIMMED) {
        do_recv(r, side, w, p->hdr, p->hlen, &ri); /* header only: the switch cut the payload */
    } else if (p->plen == 0) {
        memset(p->hdr + p->hlen, 0, p->pad);
        do_recv(r, side, w, p->hdr, p->hlen + (size_t)p->pad, &ri);
    } else {
        uintptr_t a = (uintptr_t)p->payload, lo = (uintptr_t)g_src, hi = lo + REGION;
        uint8_t save[MRC_HDR_MAX + 4], *start;
        if (a < lo || a + p->plen > hi) die("%s: a payload outside the source buffer", r->d->name);
        start = g_src + (a - lo) - p->hlen;
        memcpy(save, start, p->hlen);
        memcpy(save + p->hlen, start + p->hlen + p->plen, p->pad);
        memcpy(start, p->hdr, p->hlen);
        memset(start + p->hlen + p->plen, 0, p->pad);
        do_recv(r, side, w, start, len, &ri);
        memcpy(start, save, p->hlen);
        memcpy(start + p->hlen + p->plen, save + p->hlen, p->pad);
    }
}

/* Every control packet the receiver has, out at once (a real adapter polls until 0). */
static void drain_b(run *r) {
    for (;;) {
        wpkt *p = fifo_slot(r, &r->ba);
        mrc_txinfo ti;
        int kind = do_poll(r, 1, p->hdr, &ti);
        if (kind == K_NONE) { r->n.idle_rx++; return; }
        if (kind == K_SACK) r->n.sacks++;
        else if (kind == K_NACK) r->n.nacks++;
        else if (kind == K_DATA) die("%s: the receiver sent data", r->d->name);
        else r->n.other_b++;
        fill(p, (int)ti.hdr_len, &ti, kind, r->now + r->d->delay_ns);
        r->ba.tail++;
    }
}

static void note_sack(run *r, const wpkt *p) { /* MODE_RECORD: the cumulative ack, for the window occupancy */
    mrc_pkt k;
    int q;
    if (mrc_pkt_decode(p->hdr, p->hlen, &r->cfg.wire, &k) != MRC_OK || !(k.hdrs & MRC_HDR_SETH)) return;
    q = qp_of_qpn(r, k.bth.dest_qp);
    if (q < 0) return;
    if (mrc_psn_diff(k.seth.cack_psn, r->cack[q]) > 0 && mrc_psn_diff(k.seth.cack_psn, r->hi_psn[q]) <= 0) {
        r->outstanding -= mrc_psn_diff(k.seth.cack_psn, r->cack[q]);
        r->cack[q] = k.seth.cack_psn;
    }
}

static void post_qp(run *r, unsigned q) {
    const sdef *d = r->d;
    while (r->q_out[q] < d->per_qp && r->q_next[q] < r->q_total[q]) {
        uint32_t i = r->q_next[q] * d->nqp + q; /* message index */
        uint64_t off = (uint64_t)i * d->msg_bytes % REGION;
        mrc_write w;
        int rc;
        memset(&w, 0, sizeof w);
        w.wr_id = i;
        w.opcode = d->imm_every && i % d->imm_every == d->imm_every - 1u ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        w.buf = g_src + off;
        w.len = d->msg_bytes;
        w.remote_va = IOVA + off;
        w.rkey = r->rkey;
        w.imm = 0xA0000000u ^ i;
        if (w.opcode == MRC_WR_WRITE_IMM) {
            rc = r->mode == MODE_REPLAY ? bench_post_recv(&r->cb[q], i, r->now)
                                        : mrc_conn_post_recv(&r->cb[q], i, r->now);
            if (rc != MRC_OK) die("%s: post_recv: %s", d->name, mrc_strerror(rc));
            r->n.posts++;
        }
        rc = r->mode == MODE_REPLAY ? bench_post(&r->ca[q], &w, r->now) : mrc_conn_post_write(&r->ca[q], &w, r->now);
        if (rc != MRC_OK) die("%s: post_write: %s", d->name, mrc_strerror(rc));
        r->n.posts++;
        r->q_next[q]++;
        r->q_out[q]++;
        r->a_kick = 1;
    }
}

static int next_event(run *r, mrc_event *ev, int side) {
    int n = r->mode == MODE_REPLAY ? bench_events(&g_ep[side], ev) : mrc_endpoint_poll_event(&g_ep[side], ev);
    r->n.events++;
    if (n < 0) die("%s: poll_event returned %d", r->d->name, n);
    return n;
}

static void events_a(run *r) {
    const sdef *d = r->d;
    mrc_event ev;
    while (next_event(r, &ev, 0) > 0) {
        size_t q;
        uint32_t want;
        if (ev.type != MRC_EVT_SEND_DONE) {
            if (ev.status == MRC_OK && ev.type == MRC_EVT_EV_STATE) continue; /* path news: not an error */
            die("%s: sender: %s status %d (%s)", d->name, mrc_event_name(ev.type), ev.status, mrc_strerror(ev.status));
        }
        if (!ev.conn || ev.conn < r->ca || ev.conn >= r->ca + d->nqp) die("%s: SEND_DONE of an unknown QP", d->name);
        q = (size_t)(ev.conn - r->ca);
        want = r->q_done[q] * d->nqp + (uint32_t)q;
        if (ev.status != MRC_OK || ev.wr_id != want || ev.byte_len != d->msg_bytes)
            die("%s: SEND_DONE wr_id %llu status %d (%s) bytes %u; expected wr_id %u, MRC_OK, %u bytes", d->name,
                (unsigned long long)ev.wr_id, ev.status, mrc_strerror(ev.status), ev.byte_len, want, d->msg_bytes);
        r->q_done[q]++;
        r->q_out[q]--;
        r->done++;
        post_qp(r, (unsigned)q);
    }
}

static void events_b(run *r) {
    const sdef *d = r->d;
    mrc_event ev;
    while (next_event(r, &ev, 1) > 0) {
        size_t q;
        uint32_t want;
        if (ev.type == MRC_EVT_EV_STATE && ev.status == MRC_OK) continue; /* path news: not an error */
        if (ev.type != MRC_EVT_RECV_IMM)
            die("%s: receiver: %s status %d (%s)", d->name, mrc_event_name(ev.type), ev.status,
                mrc_strerror(ev.status));
        if (!ev.conn || ev.conn < r->cb || ev.conn >= r->cb + d->nqp) die("%s: RECV_IMM of an unknown QP", d->name);
        q = (size_t)(ev.conn - r->cb);
        /* the next Write-IMM of this QP: message index k * nqp + q with index % imm_every == imm_every - 1 */
        for (want = r->q_imm_next[q]; want % d->imm_every != d->imm_every - 1u; want += d->nqp) {}
        if (ev.status != MRC_OK || ev.wr_id != want || ev.imm != (0xA0000000u ^ want) || ev.byte_len != d->msg_bytes)
            die("%s: RECV_IMM wr_id %llu imm 0x%08X status %d bytes %u; expected wr_id %u imm 0x%08X", d->name,
                (unsigned long long)ev.wr_id, ev.imm, ev.status, ev.byte_len, want, 0xA0000000u ^ want);
        r->q_imm_next[q] = want + d->nqp;
        r->imm_seen++;
    }
}

static void conn_up(run *r, mrc_conn *c, uint32_t dest_qpn, uint32_t my_psn, uint32_t peer_psn) {
    mrc_conn_attr a;
    mrc_detail dt;
    char why[256];
    mrc_conn_attr_default(&a);
    a.dest_qpn = dest_qpn;
    a.sq_psn = my_psn;
    a.rq_psn = peer_psn;
    a.peer = 1;
    if (r->d->mpr) a.mpr = a.mpr_dest = r->d->mpr;
    if (mrc_conn_connect(c, &a, 0) != MRC_OK) {
        mrc_endpoint_last_error(c->ep, &dt);
        mrc_detail_format(&dt, why, sizeof why);
        die("%s: connect: %s", r->d->name, why);
    }
}

static void setup(run *r, const sdef *d, int mode, uint32_t nmsgs) {
    unsigned s, q, i;
    memset(r, 0, sizeof *r);
    r->d = d;
    r->mode = mode;
    r->nmsgs = nmsgs;
    if (d->large != BENCH_LARGE) die("stream %s needs the %s build", d->name, d->large ? "large" : "default");
    if (d->nqp > MRC_MAX_CONNS) die("stream %s: %u QPs, MRC_MAX_CONNS is %u", d->name, d->nqp, MRC_MAX_CONNS);
    for (s = 0; s < 2; s++) {
        mrc_config cfg;
        mrc_config_default(&cfg);
        cfg.seed = 42u + s; /* every random choice of the core derives from the seed: two runs, the same calls */
        cfg.auto_ev.per_port = d->evs_per_port;
        cfg.ack.sack_every = d->sack_every;
        if (d->cc_algo >= 0) cfg.cc.algo = (uint8_t)d->cc_algo;
        cfg.guard.hardened = getenv("MRC_BENCH_HARDENED") != NULL; /* P38 hardened mode's cost: the same tables */
        if (2u * d->delay_ns > cfg.recovery.rtt_init_ns) cfg.recovery.rtt_init_ns = 2u * d->delay_ns + 2000u;
        if (mrc_endpoint_init(&g_ep[s], &cfg, 0) != MRC_OK) die("%s: mrc_endpoint_init", d->name);
        if (s == 0) r->cfg = cfg;
    }
    r->ca = (mrc_conn *)xcalloc(d->nqp, sizeof(mrc_conn));
    r->cb = (mrc_conn *)xcalloc(d->nqp, sizeof(mrc_conn));
    for (q = 0; q < d->nqp; q++)
        if (mrc_conn_init(&g_ep[0], &r->ca[q], 0) != MRC_OK || mrc_conn_init(&g_ep[1], &r->cb[q], 0) != MRC_OK)
            die("%s: mrc_conn_init", d->name);
    if (mrc_endpoint_reg_mr(&g_ep[1], g_dst, IOVA, REGION, MRC_ACCESS_REMOTE_WRITE, NULL, &r->rkey) != MRC_OK)
        die("%s: mrc_endpoint_reg_mr", d->name);
    r->hi_psn = (uint32_t *)xcalloc(d->nqp, sizeof(uint32_t));
    r->cack = (uint32_t *)xcalloc(d->nqp, sizeof(uint32_t));
    r->qpn_sorted = (uint32_t *)xcalloc(d->nqp, sizeof(uint32_t));
    r->qpn_idx = (uint32_t *)xcalloc(d->nqp, sizeof(uint32_t));
    for (q = 0; q < d->nqp; q++) {
        uint32_t pa = (0x1000u + q * 0x3000u) & MRC_PSN_MASK, pb = (0x800000u + q * 0x3000u) & MRC_PSN_MASK;
        conn_up(r, &r->ca[q], mrc_conn_qpn(&r->cb[q]), pa, pb);
        conn_up(r, &r->cb[q], mrc_conn_qpn(&r->ca[q]), pb, pa);
        r->hi_psn[q] = r->cack[q] = mrc_psn_add(pa, -1);
        /* insertion into the sorted QPN table (setup only) */
        for (i = q; i > 0 && r->qpn_sorted[i - 1u] > mrc_conn_qpn(&r->ca[q]); i--) {
            r->qpn_sorted[i] = r->qpn_sorted[i - 1u];
            r->qpn_idx[i] = r->qpn_idx[i - 1u];
        }
        r->qpn_sorted[i] = mrc_conn_qpn(&r->ca[q]);
        r->qpn_idx[i] = q;
    }
    r->ab.v = (wpkt *)xcalloc(QCAP, sizeof(wpkt));
    r->ba.v = (wpkt *)xcalloc(QCAP, sizeof(wpkt));
    r->q_next = (uint32_t *)xcalloc(d->nqp, sizeof(uint32_t));
    r->q_out = (uint32_t *)xcalloc(d->nqp, sizeof(uint32_t));
    r->q_done = (uint32_t *)xcalloc(d->nqp, sizeof(uint32_t));
    r->q_total = (uint32_t *)xcalloc(d->nqp, sizeof(uint32_t));
    r->q_imm_next = (uint32_t *)xcalloc(d->nqp, sizeof(uint32_t));
    for (q = 0; q < d->nqp; q++) {
        r->q_total[q] = nmsgs > q ? (nmsgs - q + d->nqp - 1u) / d->nqp : 0u;
        r->q_imm_next[q] = q;
    }
    for (i = 0; i < nmsgs; i++)
        if (d->imm_every && i % d->imm_every == d->imm_every - 1u) r->imm_total++;
    memset(g_dst, 0, REGION);
}

static void teardown(run *r) {
    free(r->ca); free(r->cb); free(r->hi_psn); free(r->cack); free(r->qpn_sorted); free(r->qpn_idx);
    free(r->ab.v); free(r->ba.v); free(r->q_next); free(r->q_out); free(r->q_done); free(r->q_total);
    free(r->q_imm_next);
    r->ca = r->cb = NULL;
}

static void timers(run *r, int side) {
    int rc = r->mode == MODE_REPLAY ? bench_timers(&g_ep[side], r->now) : mrc_endpoint_on_timeout(&g_ep[side], r->now);
    if (rc != MRC_OK) die("%s: on_timeout: %d", r->d->name, rc);
    r->n.timers++;
}

/* The transfer: event by event in virtual time until every write and every immediate completed. A function of its
 * own: bench.sh counts everything in it (--toggle-collect=transfer) for the harness's share of the wall-clock. */
static BENCH_NOINLINE void transfer(run *r) {
    const sdef *d = r->d;
    unsigned q;
    uint64_t iter, max_iter = 64ull * r->nmsgs * (d->msg_bytes / 4096u) + 10000000ull;
    for (q = 0; q < d->nqp; q++) post_qp(r, q);
    for (iter = 0;; iter++) {
        mrc_time next = MRC_TIME_NEVER, t;
        int busy = 0;
        if (iter > max_iter) die("%s: no end after %llu steps", d->name, (unsigned long long)iter);
        /* data (and probes) reaching the receiver, each answered at once */
        while (r->ab.head != r->ab.tail && r->ab.v[r->ab.head & (QCAP - 1u)].at <= r->now) {
            wpkt *p = &r->ab.v[r->ab.head++ & (QCAP - 1u)];
            busy = 1;
            if (p->kind == K_DATA) {
                r->b_data_seen++;
                if (d->trim_every && r->b_data_seen % d->trim_every == 0) {
                    r->n.rx_trim++;
                    deliver(r, 1, W_RX_TRIM, p, MRC_RX_TRIMMED);
                } else {
                    r->n.rx_data++;
                    deliver(r, 1, W_RX_DATA, p, 0);
                }
            } else {
                r->n.rx_other++;
                deliver(r, 1, W_RX_OTHER, p, 0);
            }
            r->b_ev = 1;
            drain_b(r);
        }
        /* control packets reaching the sender */
        while (r->ba.head != r->ba.tail && r->ba.v[r->ba.head & (QCAP - 1u)].at <= r->now) {
            wpkt *p = &r->ba.v[r->ba.head++ & (QCAP - 1u)];
            busy = 1;
            if (r->mode == MODE_RECORD && p->kind == K_SACK) note_sack(r, p);
            if (p->kind == K_SACK) r->n.rx_sack++;
            else if (p->kind == K_NACK) r->n.rx_nack++;
            else r->n.rx_other++;
            deliver(r, 0, p->kind == K_SACK ? W_RX_SACK : p->kind == K_NACK ? W_RX_NACK : W_RX_OTHER, p, 0);
            r->a_kick = r->a_ev = 1;
        }
        if (mrc_endpoint_next_deadline(&g_ep[1]) <= r->now) {
            timers(r, 1);
            busy = r->b_ev = 1;
            drain_b(r);
        }
        if (mrc_endpoint_next_deadline(&g_ep[0]) <= r->now) {
            timers(r, 0);
            busy = r->a_kick = r->a_ev = 1;
        }
        if (r->b_ev) { r->b_ev = 0; events_b(r); }
        if (r->a_ev) { r->a_ev = 0; events_a(r); }
        if (r->done == r->nmsgs && r->imm_seen == r->imm_total) break;
        /* the sender: one packet per slot of its link while it has something */
        if (r->a_kick && r->now >= r->a_free) {
            wpkt *p = fifo_slot(r, &r->ab);
            mrc_txinfo ti;
            int kind = do_poll(r, 0, p->hdr, &ti);
            busy = 1;
            if (kind == K_NONE) {
                r->n.idle_tx++;
                r->a_kick = 0;
            } else {
                uint64_t bits = ((uint64_t)ti.hdr_len + ti.payload_len + ti.pad + MRC_NOMINAL_HDR) * 8u;
                mrc_time ser = (bits + LINK_GBPS - 1u) / LINK_GBPS;
                int drop = 0;
                r->a_free = r->now + ser;
                if (kind == K_DATA) {
                    r->n.tx_data++;
                    if (d->holes || r->mode == MODE_RECORD) {
                        int qi = qp_of_qpn(r, ti.qpn);
                        uint32_t psn = psn_of(r, p->hdr, ti.hdr_len);
                        if (qi < 0) die("%s: data from an unknown QPN", d->name);
                        if (mrc_psn_diff(psn, r->hi_psn[qi]) > 0) { /* a first transmission */
                            r->outstanding += mrc_psn_diff(psn, r->hi_psn[qi]);
                            r->hi_psn[qi] = psn;
                            r->n.tx_first++;
                            drop = d->holes && (psn & 1u);
                        }
                        r->n.occ_sum += (double)r->outstanding;
                        r->n.occ_n++;
                    }
                } else {
                    r->n.other_a++;
                }
                if (kind == K_SACK || kind == K_NACK) die("%s: the sender sent a SACK or NACK", d->name);
                if (drop) {
                    r->n.dropped++;
                } else {
                    fill(p, (int)ti.hdr_len, &ti, kind, r->now + ser + d->delay_ns);
                    r->ab.tail++;
                }
            }
        }
        /* the next instant something happens */
        if (r->ab.head != r->ab.tail) next = r->ab.v[r->ab.head & (QCAP - 1u)].at;
        if (r->ba.head != r->ba.tail && r->ba.v[r->ba.head & (QCAP - 1u)].at < next)
            next = r->ba.v[r->ba.head & (QCAP - 1u)].at;
        if ((t = mrc_endpoint_next_deadline(&g_ep[0])) < next) next = t;
        if ((t = mrc_endpoint_next_deadline(&g_ep[1])) < next) next = t;
        if (r->a_kick && (t = r->a_free > r->now ? r->a_free : r->now) < next) next = t;
        if (next == MRC_TIME_NEVER)
            die("%s: stalled: %llu of %u writes done, nothing in flight, no timer", d->name,
                (unsigned long long)r->done, r->nmsgs);
        if (next > r->now) r->now = next;
        else if (!busy) r->now++; /* a deadline the timers left in the past: never spin */
        if (r->now > 60000000000ull) die("%s: not done after 60 s of virtual time", d->name);
    }
    r->n.vtime = r->now;
}

/* After a transfer: every byte placed once and equal to the source; the QPs healthy. */
static void verify(run *r) {
    const sdef *d = r->d;
    uint64_t total = (uint64_t)r->nmsgs * d->msg_bytes, placed = 0, rtx = 0;
    size_t cover = total < REGION ? (size_t)total : REGION, i;
    unsigned q;
    for (q = 0; q < d->nqp; q++) {
        mrc_conn_stats sa, sb;
        mrc_conn_stats_get(&r->ca[q], &sa);
        mrc_conn_stats_get(&r->cb[q], &sb);
        placed += sb.rx_bytes_placed;
        rtx += sa.tx_rtx;
        if (mrc_conn_state(&r->ca[q]) != MRC_QPS_RTS || mrc_conn_state(&r->cb[q]) != MRC_QPS_RTS)
            die("%s: QP %u left RTS", d->name, q);
        if (r->q_done[q] != r->q_total[q])
            die("%s: QP %u completed %u of %u writes", d->name, q, r->q_done[q], r->q_total[q]);
    }
    if (r->done != r->nmsgs || r->imm_seen != r->imm_total)
        die("%s: %llu of %u writes, %llu of %llu immediates", d->name, (unsigned long long)r->done, r->nmsgs,
            (unsigned long long)r->imm_seen, (unsigned long long)r->imm_total);
    if (placed != total)
        die("%s: the receiver placed %llu bytes, %llu were written", d->name, (unsigned long long)placed,
            (unsigned long long)total);
    if (memcmp(g_src, g_dst, cover) != 0) {
        for (i = 0; i < cover && g_src[i] == g_dst[i]; i++) {}
        die("%s: the receiver's buffer differs from the source at byte %zu", d->name, i);
    }
    if (r->n.tx_data != r->n.tx_first + rtx && (d->holes || r->mode == MODE_RECORD))
        die("%s: %llu data packets sent, %llu first transmissions + %llu retransmissions", d->name,
            (unsigned long long)r->n.tx_data, (unsigned long long)r->n.tx_first, (unsigned long long)rtx);
    r->n.placed = placed;
    r->n.rtx = rtx;
}

static void buffers(void) {
    size_t i;
    g_src_alloc = (uint8_t *)xcalloc(REGION + 2u * HEADROOM, 1);
    g_src = g_src_alloc + HEADROOM;
    g_dst = (uint8_t *)xcalloc(REGION, 1);
    for (i = 0; i < REGION; i++) g_src[i] = (uint8_t)(((i * 2654435761u) >> 13) % 255u + 1u); /* never 0 */
}

/* ---- cg: the callgrind transfer --------------------------------------------------------------------------------- */
static int cmd_cg(const char *name, const char *out) {
    const sdef *d = stream_find(name);
    run rec, rep;
    FILE *f;
    int w;
    if (!d) die("unknown stream '%s'", name);
    buffers();
    setup(&rec, d, MODE_RECORD, d->cg_msgs);
    transfer(&rec);
    verify(&rec);
    teardown(&rec);
    setup(&rep, d, MODE_REPLAY, d->cg_msgs);
    rep.log = rec.log;
    rep.log_len = rec.log_len;
    memset(wcalls, 0, sizeof wcalls);
    BENCH_CG_START();
    transfer(&rep);
    BENCH_CG_STOP();
    verify(&rep);
    if (rep.log_pos != rec.log_len) die("%s: the replay polled less often than the recorded run", name);
    if (rep.n.tx_data != rec.n.tx_data || rep.n.sacks != rec.n.sacks || rep.now != rec.now)
        die("%s: the replay is not the recorded run", name);
    if (wcalls[W_TX_DATA] != rep.n.tx_data || wcalls[W_RX_DATA] != rep.n.rx_data || wcalls[W_TX_SACK] != rep.n.sacks)
        die("%s: wrapper calls do not match the packets", name);
    f = fopen(out, "w");
    if (!f) die("%s: %s", out, strerror(errno));
    fprintf(f, "build %s\nnqp %u\nmsgs %u\nmsg_bytes %u\n", BENCH_BUILD, d->nqp, rep.nmsgs, d->msg_bytes);
    fprintf(f, "data_pkts %llu\nfirst_pkts %llu\nrtx_pkts %llu\nrx_data %llu\nrx_trim %llu\ndropped %llu\n"
               "sacks %llu\nnacks %llu\nother_pkts %llu\ncore_drops %llu\nbytes_placed %llu\nvtime_ns %llu\n"
               "mean_outstanding %.1f\n",
            (unsigned long long)rep.n.tx_data, (unsigned long long)rec.n.tx_first, (unsigned long long)rep.n.rtx,
            (unsigned long long)rep.n.rx_data, (unsigned long long)rep.n.rx_trim, (unsigned long long)rep.n.dropped,
            (unsigned long long)rep.n.sacks, (unsigned long long)rep.n.nacks,
            (unsigned long long)(rep.n.other_a + rep.n.other_b), (unsigned long long)rep.n.core_drops,
            (unsigned long long)rep.n.placed, (unsigned long long)rep.n.vtime,
            rec.n.occ_n ? rec.n.occ_sum / (double)rec.n.occ_n : 0.0);
    for (w = 0; w < W_COUNT; w++) fprintf(f, "calls_%s %llu\n", wname[w], wcalls[w]);
    fclose(f);
    teardown(&rep);
    free(rec.log);
    return 0;
}

/* ---- report: the instruction tables ----------------------------------------------------------------------------- */
#define MAXKV 4096
typedef struct kv { char key[96]; double v; } kv;
typedef struct res {
    const char *name;
    int ok;
    kv *c;  /* counts */
    size_t nc;
    kv *f;  /* F: inclusive Ir per function (base name), S: self */
    double *fself;
    size_t nf;
    double w[W_COUNT], m[W_COUNT], ws[W_COUNT], calls[W_COUNT], mem_other;
    double transfer_ir, transfer_pkts; /* the plain transfer (mrc_bench run) whole, from STREAM.plain.ir */
    /* the reconciliation run (mrc_bench run under --toggle-collect=mrc_endpoint_recv/_poll_tx), from STREAM.api.*:
     * every Ir collected, the libc copy among them, the data packets of that run; api_pkts 0 when there is none */
    double api_total, api_mem, api_pkts;
} res;

static double kv_get(const kv *a, size_t n, const char *key, double dflt) {
    size_t i;
    for (i = 0; i < n; i++)
        if (!strcmp(a[i].key, key)) return a[i].v;
    return dflt;
}

/* The data packets of a plain run from its log ("STREAM: N data packets ..."); 0 when there is none. */
static double log_pkts(const char *dir, const char *name, const char *kind) {
    char path[4096], line[4096], key[4096];
    unsigned long long n;
    double v = 0;
    FILE *f;
    snprintf(path, sizeof path, "%s/%s.%s.log", dir, name, kind);
    if (!(f = fopen(path, "r"))) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%4095s %llu data packets", key, &n) == 2) v = (double)n;
    fclose(f);
    return v;
}

static int load(res *r, const char *dir, const char *name) {
    char path[4096], line[4096], tag[8], key[4096];
    double v1, v2;
    FILE *f;
    int w;
    memset(r, 0, sizeof *r);
    r->name = name;
    r->c = (kv *)xcalloc(MAXKV, sizeof(kv));
    r->f = (kv *)xcalloc(MAXKV, sizeof(kv));
    r->fself = (double *)xcalloc(MAXKV, sizeof(double));
    snprintf(path, sizeof path, "%s/%s.counts", dir, name);
    if (!(f = fopen(path, "r"))) return 0;
    while (fgets(line, sizeof line, f) && r->nc < MAXKV)
        if (sscanf(line, "%95s %lf", r->c[r->nc].key, &r->c[r->nc].v) == 2) r->nc++;
    fclose(f);
    snprintf(path, sizeof path, "%s/%s.ir", dir, name);
    if (!(f = fopen(path, "r"))) return 0;
    while (fgets(line, sizeof line, f)) {
        int n = sscanf(line, "%7s %4095s %lf %lf", tag, key, &v1, &v2);
        if (n < 3) continue;
        if (!strcmp(tag, "F") && n == 4 && r->nf < MAXKV) {
            snprintf(r->f[r->nf].key, sizeof r->f[r->nf].key, "%.95s", key);
            r->f[r->nf].v = v1;
            r->fself[r->nf++] = v2;
        } else if (!strcmp(tag, "C") && r->nc < MAXKV) { /* calls into a function, from callgrind's call arcs */
            snprintf(r->c[r->nc].key, sizeof r->c[r->nc].key, "ncalls_%.80s", key);
            r->c[r->nc++].v = v1;
        } else if (!strcmp(tag, "W") || !strcmp(tag, "M")) {
            for (w = 0; w < W_COUNT && strcmp(wname[w], key); w++) {}
            if (w == W_COUNT) { if (!strcmp(tag, "M")) r->mem_other += v1; continue; }
            if (!strcmp(tag, "W")) r->w[w] += v1;
            else r->m[w] += v1;
        }
    }
    fclose(f);
    for (w = 0; w < W_COUNT; w++) {
        char k[128];
        size_t i;
        snprintf(k, sizeof k, "calls_%s", wname[w]);
        r->calls[w] = kv_get(r->c, r->nc, k, 0);
        for (i = 0; i < r->nf; i++) /* the wrapper's own call and counter: the harness's, not the core's */
            if (!strcmp(r->f[i].key, wname[w])) r->ws[w] = r->fself[i];
    }
    r->ok = kv_get(r->c, r->nc, "data_pkts", 0) > 0;
    snprintf(path, sizeof path, "%s/%s.plain.ir", dir, name);
    if ((f = fopen(path, "r"))) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "%7s %4095s %lf %lf", tag, key, &v1, &v2) == 4 && !strcmp(tag, "F") &&
                !strcmp(key, "transfer"))
                r->transfer_ir = v1;
        fclose(f);
    }
    r->transfer_pkts = log_pkts(dir, name, "plain");
    snprintf(path, sizeof path, "%s/%s.api.ir", dir, name);
    if ((f = fopen(path, "r"))) {
        while (fgets(line, sizeof line, f)) {
            int n = sscanf(line, "%7s %4095s %lf", tag, key, &v1);
            if (n == 2 && !strcmp(tag, "T")) r->api_total = strtod(key, NULL);
            else if (n == 3 && !strcmp(tag, "M")) r->api_mem += v1;
        }
        fclose(f);
        r->api_pkts = log_pkts(dir, name, "api");
    }
    return r->ok;
}

static double cnt(const res *r, const char *k) { return kv_get(r->c, r->nc, k, 0); }
/* Ir inside the core during one phase: the wrapper's inclusive cost minus its own instructions and the payload copy */
static double core(const res *r, int w) { return r->w[w] - r->ws[w] - r->m[w]; }
static double fn_incl(const res *r, const char *k) { return kv_get(r->f, r->nf, k, -1); }
static double pkts(const res *r) { return cnt(r, "data_pkts"); }
static double allin(const res *r) { /* every packet in and out and every poll, minus the payload copy */
    double s = 0;
    int w;
    for (w = 0; w < W_COUNT; w++)
        if (w_allin[w]) s += core(r, w);
    return s;
}
static double everything(const res *r) {
    double s = 0;
    int w;
    for (w = 0; w < W_COUNT; w++) s += core(r, w);
    return s;
}
/* b's cost per call of every all-in phase, at a's mix of calls per data packet: the per-packet figure without the
 * change of mix (a window with holes delivers fewer packets than it sends, one message outstanding polls more) */
static double allin_at_mix(const res *b, const res *a) {
    double s = 0;
    int w;
    for (w = 0; w < W_COUNT; w++)
        if (w_allin[w] && b->calls[w] > 0) s += core(b, w) / b->calls[w] * a->calls[w];
    return s / pkts(a);
}
static double memcpy_ir(const res *r) {
    double s = 0;
    int w;
    for (w = 0; w < W_COUNT; w++) s += r->m[w];
    return s;
}

static void row(const char *label, res *rs, size_t n, double (*f)(const res *), int decimals) {
    size_t i;
    printf("  %-44s", label);
    for (i = 0; i < n; i++) {
        double v = rs[i].ok ? f(&rs[i]) : -1;
        if (v < 0) printf(" %12s", "-");
        else printf(" %12.*f", decimals, v);
    }
    printf("\n");
}
/* per data packet */
static double p_tx(const res *r) { return core(r, W_TX_DATA) / pkts(r); }
static double p_rx(const res *r) { return core(r, W_RX_DATA) / pkts(r); }
static double p_sb(const res *r) { return core(r, W_TX_SACK) / pkts(r); }
static double p_sp(const res *r) { return core(r, W_RX_SACK) / pkts(r); }
static double p_idle(const res *r) { return (core(r, W_IDLE_TX) + core(r, W_IDLE_RX)) / pkts(r); }
static double p_nack(const res *r) { return (core(r, W_RX_TRIM) + core(r, W_TX_NACK) + core(r, W_RX_NACK)) / pkts(r); }
static double p_other(const res *r) { return (core(r, W_TX_OTHER) + core(r, W_RX_OTHER)) / pkts(r); }
static double p_mem(const res *r) { return memcpy_ir(r) / pkts(r); }
static double p_allin(const res *r) { return allin(r) / pkts(r); }
static double p_every(const res *r) { return everything(r) / pkts(r); }
static double p_timers(const res *r) { return core(r, W_TIMERS) / pkts(r); }
static double p_events(const res *r) { return core(r, W_EVENTS) / pkts(r); }
static double p_posts(const res *r) { return (core(r, W_POST) + core(r, W_POST_RECV)) / pkts(r); }
static double fnp(const res *r, const char *fn) { double v = fn_incl(r, fn); return v < 0 ? -1 : v / pkts(r); }
static double p_evpick(const res *r) { return fnp(r, "mrc__ev_pick"); }
static double p_transfer(const res *r) {
    return r->transfer_ir > 0 && r->transfer_pkts > 0 ? r->transfer_ir / r->transfer_pkts : -1;
}
static double p_coreshare(const res *r) {
    double t = p_transfer(r);
    return t > 0 ? 100.0 * (p_every(r) + p_mem(r)) / t : -1;
}
static double p_ccack(const res *r) { return fnp(r, "mrc__cc_on_ack"); }
static double p_nscc(const res *r) { return fnp(r, "mrc__nscc_on_ack"); }
static double p_recvpoll(const res *r) {
    double a = fn_incl(r, "mrc_endpoint_recv"), b = fn_incl(r, "mrc_endpoint_poll_tx");
    return a < 0 || b < 0 ? -1 : (a + b) / pkts(r);
}
static double n_pkts(const res *r) { return pkts(r); }
static double n_rtx(const res *r) { return cnt(r, "rtx_pkts"); }
static double n_sacks(const res *r) { return cnt(r, "sacks") / pkts(r); }
static double n_polls(const res *r) {
    return (r->calls[W_TX_DATA] + r->calls[W_TX_SACK] + r->calls[W_IDLE_TX] + r->calls[W_IDLE_RX] +
            r->calls[W_TX_NACK] + r->calls[W_TX_OTHER]) / pkts(r);
}
static double n_occ(const res *r) { return cnt(r, "mean_outstanding"); }
static double per(const res *r, int w) { return r->calls[w] > 0 ? core(r, w) / r->calls[w] : -1; }
static double c_tx(const res *r) { return per(r, W_TX_DATA); }
static double c_rx(const res *r) { return per(r, W_RX_DATA); }
static double c_sb(const res *r) { return per(r, W_TX_SACK); }
static double c_sp(const res *r) { return per(r, W_RX_SACK); }
static double c_idle(const res *r) {
    double n = r->calls[W_IDLE_TX] + r->calls[W_IDLE_RX];
    return n > 0 ? (core(r, W_IDLE_TX) + core(r, W_IDLE_RX)) / n : -1;
}
static double c_nack_built(const res *r) {
    return r->calls[W_TX_NACK] > 0 ? (core(r, W_RX_TRIM) + core(r, W_TX_NACK)) / r->calls[W_TX_NACK] : -1;
}
static double c_nack_proc(const res *r) { return per(r, W_RX_NACK); }

static void json_num(FILE *j, const char *key, double v) {
    if (v < 0) fprintf(j, ",\"%s\":null", key);
    else fprintf(j, ",\"%s\":%.1f", key, v);
}

static void json_instr(FILE *j, const res *r, const char *label) {
    int w;
    fprintf(j, "{\"bench\":\"instr\",\"stream\":\"%s\",\"label\":\"%s\",\"build\":\"%s\","
               "\"unit\":\"Ir per data packet\"",
            r->name, label, stream_find(r->name) && stream_find(r->name)->large ? "large" : "default");
    fprintf(j, ",\"data_pkts\":%.0f,\"rtx_pkts\":%.0f,\"sacks\":%.0f,\"nacks\":%.0f,\"mean_outstanding_psns\":%.1f,"
               "\"core_drops\":%.0f",
            pkts(r), cnt(r, "rtx_pkts"), cnt(r, "sacks"), cnt(r, "nacks"), n_occ(r), cnt(r, "core_drops"));
    json_num(j, "all_in", p_allin(r));
    json_num(j, "all_in_with_timers_events_posts", p_every(r));
    json_num(j, "payload_copy", p_mem(r));
    json_num(j, "tx_data", p_tx(r));
    json_num(j, "rx_data", p_rx(r));
    json_num(j, "sack_built", p_sb(r));
    json_num(j, "sack_processed", p_sp(r));
    json_num(j, "idle_polls", p_idle(r));
    json_num(j, "trim_nack", p_nack(r));
    json_num(j, "other_pkts", p_other(r));
    json_num(j, "timers", p_timers(r));
    json_num(j, "events", p_events(r));
    json_num(j, "posts", p_posts(r));
    json_num(j, "ev_pick", p_evpick(r));
    json_num(j, "cc_on_ack", p_ccack(r));
    json_num(j, "nscc_on_ack", p_nscc(r));
    json_num(j, "recv_plus_poll_tx_incl_copy", p_recvpoll(r));
    json_num(j, "whole_transfer_as_timed", p_transfer(r));
    json_num(j, "per_sack_built", c_sb(r));
    json_num(j, "per_sack_processed", c_sp(r));
    json_num(j, "per_nack_built", c_nack_built(r));
    json_num(j, "per_nack_processed", c_nack_proc(r));
    for (w = 0; w < W_COUNT; w++)
        fprintf(j, ",\"calls_%s\":%.0f,\"core_ir_%s\":%.0f", wname[w] + 6, r->calls[w], wname[w] + 6, core(r, w));
    fprintf(j, "}\n");
}

/* The two functions whose own cost per data packet grew most from a to b ("f +n, g +m"; "-" when none grew by 5). */
static void growth(const res *a, const res *b, char *out, size_t cap, char *top, size_t tcap, double *top_by) {
    size_t i, k, t;
    double by[2] = {5.0, 5.0}; /* less than 5 Ir per data packet is not worth naming */
    const char *nm[2] = {NULL, NULL};
    for (i = 0; i < b->nf; i++) {
        double sa = 0, dlt;
        if (!strncmp(b->f[i].key, "bench_", 6) || strstr(b->f[i].key, "memcpy") || strstr(b->f[i].key, "memmove"))
            continue;
        for (k = 0; k < a->nf; k++)
            if (!strcmp(a->f[k].key, b->f[i].key)) { sa = a->fself[k] / pkts(a); break; }
        dlt = b->fself[i] / pkts(b) - sa;
        for (t = 0; t < 2; t++)
            if (dlt > by[t]) {
                if (t == 0) { by[1] = by[0]; nm[1] = nm[0]; }
                by[t] = dlt;
                nm[t] = b->f[i].key;
                break;
            }
    }
    if (!nm[0]) snprintf(out, cap, "-");
    else if (!nm[1]) snprintf(out, cap, "%s +%.0f", nm[0], by[0]);
    else snprintf(out, cap, "%s +%.0f, %s +%.0f", nm[0], by[0], nm[1], by[1]);
    snprintf(top, tcap, "%s", nm[0] ? nm[0] : "");
    *top_by = nm[0] ? by[0] : 0;
}

/* The reconciliation of one stream: what callgrind collects inside mrc_endpoint_recv and mrc_endpoint_poll_tx over a
 * plain run of it (no wrappers, no fold: callgrind's own total), per data packet, against the table's ALL-IN and
 * ALL-IN + copy. Returns 0 when they agree within RECON_MAX_PCT, 1 (and a FAIL line) otherwise. */
static int reconcile(const res *r, FILE *j) {
    double tot, mem, excl, all, d1, d2;
    int bad;
    if (!r->ok || r->api_pkts <= 0 || r->api_total <= 0) {
        printf("    FAIL: %s: no reconciliation run (%s.api.ir / %s.api.log missing)\n", r->name, r->name, r->name);
        return 1;
    }
    tot = r->api_total / r->api_pkts;
    mem = r->api_mem / r->api_pkts;
    excl = tot - mem;
    all = p_allin(r);
    d1 = 100.0 * (excl - all) / all;
    d2 = 100.0 * (tot - (all + p_mem(r))) / (all + p_mem(r));
    bad = r->api_pkts != pkts(r) || d1 > RECON_MAX_PCT || d1 < -RECON_MAX_PCT || d2 > RECON_MAX_PCT ||
          d2 < -RECON_MAX_PCT;
    printf("    %-7s %.0f data packets: recv + poll_tx %.0f Ir per data packet, of which copy %.0f -> %.0f; the table: "
           "ALL-IN + copy %.0f, ALL-IN %.0f; difference %+.2f%% (%+.2f%% with the copy): %s\n",
           r->name, r->api_pkts, tot, mem, excl, all + p_mem(r), all, d1, d2, bad ? "FAIL" : "ok");
    if (bad)
        printf("    FAIL: %s: the table's ALL-IN (%.0f) is not what callgrind counts inside the two API calls (%.0f, "
               "%.0f vs %.0f data packets): more than %.0f%% apart\n",
               r->name, all, excl, pkts(r), r->api_pkts, RECON_MAX_PCT);
    if (j)
        fprintf(j, "{\"bench\":\"reconcile\",\"stream\":\"%s\",\"data_pkts\":%.0f,\"recv_plus_poll_tx\":%.1f,"
                   "\"payload_copy\":%.1f,\"excl_copy\":%.1f,\"all_in\":%.1f,\"diff_pct\":%.3f,"
                   "\"diff_pct_with_copy\":%.3f,\"ok\":%s}\n",
                r->name, r->api_pkts, tot, mem, excl, all, d1, d2, bad ? "false" : "true");
    return bad;
}

static const res *find_res(const res *rs, size_t n, const char *name) {
    size_t i;
    for (i = 0; i < n; i++)
        if (rs[i].ok && !strcmp(rs[i].name, name)) return &rs[i];
    return NULL;
}

static int cmd_report(const char *dir, const char *jpath) {
    res mr[NMAIN], demo;
    size_t i, nm = NMAIN;
    FILE *j = jpath ? fopen(jpath, "a") : NULL;
    const char *labels[NMAIN], *worst_dim = NULL, *worst_mix_dim = NULL;
    double worst = 0, worst_mix = 0;
    int fail = 0, scaled = 0;
    if (jpath && !j) die("%s: %s", jpath, strerror(errno));
    for (i = 0; i < nm; i++) {
        load(&mr[i], dir, main_streams[i]);
        labels[i] = stream_find(main_streams[i])->label;
    }
    printf("\n== Instructions per 4 KiB data packet (callgrind Ir; -O2 -g, default macros; one SACK per data packet "
           "unless noted) ==\n");
    printf("  %-44s", "stream");
    for (i = 0; i < nm; i++) printf(" %12s", labels[i]);
    printf("\n");
    row("data packets sent (callgrind run)", mr, nm, n_pkts, 0);
    row("  of which retransmissions", mr, nm, n_rtx, 0);
    row("SACKs per data packet", mr, nm, n_sacks, 3);
    row("poll_tx calls per data packet", mr, nm, n_polls, 2);
    row("tx data: sender poll_tx -> data packet", mr, nm, p_tx, 0);
    row("rx data: receiver recv of it (excl. copy)", mr, nm, p_rx, 0);
    row("SACK built: receiver poll_tx -> SACK", mr, nm, p_sb, 0);
    row("SACK processed: sender recv of it", mr, nm, p_sp, 0);
    row("polls that found nothing (both sides)", mr, nm, p_idle, 0);
    row("trims: trimmed rx + NACK built + processed", mr, nm, p_nack, 0);
    row("other packets (probes, ACKs)", mr, nm, p_other, 0);
    row("ALL-IN (all of the above), excl. the copy", mr, nm, p_allin, 0);
    row("payload copy (libc memcpy/memmove), apart", mr, nm, p_mem, 0);
    row("timers (on_timeout), apart", mr, nm, p_timers, 0);
    row("events (poll_event), apart", mr, nm, p_events, 0);
    row("posts (post_write, post_recv), apart", mr, nm, p_posts, 0);
    row("all-in + timers + events + posts", mr, nm, p_every, 0);
    row("whole transfer as timed (harness+core+copy)", mr, nm, p_transfer, 0);
    row("  the core's share of it (core + copy), %", mr, nm, p_coreshare, 1);
    row("inside: mrc__ev_pick (EV choice)", mr, nm, p_evpick, 0);
    row("inside: mrc__cc_on_ack (CC per acked PSN)", mr, nm, p_ccack, 0);
    row("inside: mrc__nscc_on_ack (NSCC per SACK)", mr, nm, p_nscc, 0);
    printf("  %-44s\n", "per call:");
    row("  sender poll_tx -> data packet", mr, nm, c_tx, 0);
    row("  receiver recv of a data packet (excl. copy)", mr, nm, c_rx, 0);
    row("  SACK built (receiver poll_tx)", mr, nm, c_sb, 0);
    row("  SACK processed (sender recv)", mr, nm, c_sp, 0);
    row("  poll_tx that found nothing", mr, nm, c_idle, 0);
    row("  NACK built (trimmed rx + poll_tx), per NACK", mr, nm, c_nack_built, 0);
    row("  NACK processed (sender recv), per NACK", mr, nm, c_nack_proc, 0);
    for (i = 0; i < nm; i++)
        if (mr[i].ok && j) json_instr(j, &mr[i], labels[i]);
        else if (!mr[i].ok) printf("  (no callgrind result for %s in %s)\n", main_streams[i], dir);

    if (load(&demo, dir, "demo")) {
        double d_all = (fn_incl(&demo, "mrc_endpoint_recv") + fn_incl(&demo, "mrc_endpoint_poll_tx")) / pkts(&demo);
        double d_mem = demo.mem_other / pkts(&demo), ours = mr[0].ok ? p_recvpoll(&mr[0]) : -1;
        double d_polls = cnt(&demo, "ncalls_mrc_endpoint_poll_tx") / pkts(&demo);
        double d_recvs = cnt(&demo, "ncalls_mrc_endpoint_recv") / pkts(&demo);
        printf("\n  reconciliation with build/demo -m 16 -l 0 -t 0 -j 0 -q (callgrind "
               "--toggle-collect=mrc_endpoint_recv --toggle-collect=mrc_endpoint_poll_tx):\n");
        printf("    demo: %.0f data packets, recv + poll_tx %.0f Ir per data packet, of which payload copy %.0f -> "
               "%.0f excluding it (%.2f poll_tx and %.2f recv calls per data packet)\n",
               pkts(&demo), d_all, d_mem, d_all - d_mem, d_polls, d_recvs);
        if (ours >= 0)
            printf("    bench clean: the same sum (recv + poll_tx, inclusive, copy included) %.0f -> %.0f excluding "
                   "the copy (%.2f poll_tx calls per data packet) = its ALL-IN %.0f\n",
                   ours, ours - p_mem(&mr[0]), n_polls(&mr[0]), p_allin(&mr[0]));
        if (j)
            fprintf(j, "{\"bench\":\"demo_reference\",\"cmd\":\"build/demo -m 16 -l 0 -t 0 -j 0 -q\","
                       "\"data_pkts\":%.0f,"
                       "\"recv_plus_poll_tx\":%.1f,\"payload_copy\":%.1f,\"excl_copy\":%.1f,\"poll_tx_per_pkt\":%.2f,"
                       "\"bench_clean_recv_plus_poll_tx\":%.1f}\n",
                    pkts(&demo), d_all, d_mem, d_all - d_mem, d_polls, ours);
    }
    printf("\n  reconciliation, checked every run (FAIL past %.0f%%): callgrind --toggle-collect=mrc_endpoint_recv "
           "--toggle-collect=mrc_endpoint_poll_tx over build/mrc_bench run STREAM (the same transfer, the API called "
           "straight, no wrapper), callgrind's total:\n", RECON_MAX_PCT);
    for (i = 0; i < NTARGETS; i++) {
        const res *r = find_res(mr, nm, targets[i].stream);
        if (!r) {
            printf("    FAIL: %s: no callgrind result\n", targets[i].stream);
            fail = 1;
        } else {
            fail |= reconcile(r, j);
        }
    }

    printf("\n== Scaling: ALL-IN instructions per data packet (excl. payload copy); goal flat, <= 1.2x from smallest "
           "to largest ==\n");
    printf("  (at mix: the large run's Ir per call of each phase at the small run's calls per data packet; grew most: "
           "own Ir per data packet)\n");
    printf("  %-27s %-15s %-14s %9s %9s %7s %7s  %s\n", "dimension", "small", "large", "Ir small", "Ir large", "ratio",
           "at mix", "grew most");
    for (i = 0; i < NROWS; i++) {
        res a, b;
        const scale_row *s = &scale_rows[i];
        char gname[256], top[96];
        double by, ia, ib, im;
        if (!load(&a, dir, s->s_small) || !load(&b, dir, s->s_large)) {
            printf("  %-27s (no callgrind result for %s / %s)\n", s->dim, s->s_small, s->s_large);
            continue;
        }
        ia = p_allin(&a);
        ib = p_allin(&b);
        im = allin_at_mix(&b, &a);
        growth(&a, &b, gname, sizeof gname, top, sizeof top, &by);
        scaled++;
        if (ib / ia > worst) { worst = ib / ia; worst_dim = s->dim; }
        if (im / ia > worst_mix) { worst_mix = im / ia; worst_mix_dim = s->dim; }
        printf("  %-27s %-15s %-14s %9.0f %9.0f %6.2fx %6.2fx  %s%s\n", s->dim, s->small, s->large, ia, ib, ib / ia,
               im / ia, gname, ib / ia > TARGET_FLAT || im / ia > TARGET_FLAT ? "  [grows]" : "");
        printf("  %-27s %-15s %-14s %9s %9s %7s %7s  (data packets %.0f / %.0f, retransmitted %.0f / %.0f, mean PSNs "
               "outstanding %.0f / %.0f)\n", "", "", "", "", "", "", "", pkts(&a), pkts(&b), cnt(&a, "rtx_pkts"),
               cnt(&b, "rtx_pkts"), n_occ(&a), n_occ(&b));
        if (j) {
            fprintf(j, "{\"bench\":\"scale\",\"dim\":\"%s\",\"small\":\"%s\",\"large\":\"%s\",\"small_stream\":\"%s\","
                       "\"large_stream\":\"%s\",\"ir_small\":%.1f,\"ir_large\":%.1f,\"ratio\":%.3f,"
                       "\"ir_large_at_small_mix\":%.1f,\"ratio_at_mix\":%.3f,\"grew_most\":\"%s\",\"grew_by\":%.1f}\n",
                    s->dim, s->small, s->large, s->s_small, s->s_large, ia, ib, ib / ia, im, im / ia, top, by);
            if (!is_main(s->s_small)) json_instr(j, &a, stream_find(s->s_small)->label);
            if (!is_main(s->s_large)) json_instr(j, &b, stream_find(s->s_large)->label);
        }
    }

    printf("\n== Targets (issue 36): reported beside the figures, never asserted ==\n");
    printf("  %-46s %12s %12s  %s\n", "", "measured", "target", "");
    for (i = 0; i < NTARGETS; i++) {
        const res *r = find_res(mr, nm, targets[i].stream);
        double v = r ? p_allin(r) : -1;
        if (!r) {
            printf("  %-46s %12s %12s  (no callgrind result)\n", targets[i].what, "-", "");
            continue;
        }
        printf("  %-46s %12.0f %9s%3.0f  %s (%.2fx the target)\n", targets[i].what, v, "<= ", targets[i].max,
               v <= targets[i].max ? "met" : "not met", v / targets[i].max);
        if (j)
            fprintf(j, "{\"bench\":\"target\",\"stream\":\"%s\",\"what\":\"all_in\",\"unit\":\"Ir per data "
                       "packet\",\"measured\":%.1f,\"target\":%.0f,\"met\":%s}\n",
                    targets[i].stream, v, targets[i].max, v <= targets[i].max ? "true" : "false");
    }
    if (scaled) {
        int met = worst <= TARGET_FLAT && worst_mix <= TARGET_FLAT;
        char m1[48], m2[48];
        /* four decimals: a ratio a hair over the target must not print as the target itself */
        snprintf(m1, sizeof m1, "%.4fx", worst);
        snprintf(m2, sizeof m2, "%.4fx", worst_mix);
        printf("  %-46s %12s %12s  %s (largest ratio: %s; largest at mix: %s)\n", "scaling table flat, largest ratio",
               m1, "<= 1.20x", met ? "met" : "not met", worst_dim, worst_mix_dim);
        printf("  %-46s %12s %12s\n", "  the same at mix", m2, "<= 1.20x");
        if (j)
            fprintf(j, "{\"bench\":\"target\",\"stream\":\"scaling\",\"what\":\"flat\",\"unit\":\"ratio\","
                       "\"measured\":%.4f,\"measured_at_mix\":%.4f,\"target\":%.1f,\"met\":%s,\"dim\":\"%s\","
                       "\"dim_at_mix\":\"%s\"}\n",
                    worst, worst_mix, TARGET_FLAT, met ? "true" : "false", worst_dim, worst_mix_dim);
    }
    if (j) fclose(j);
    if (fail) printf("\nmrc_bench: FAIL: the reconciliation (above)\n");
    return fail;
}

/* ---- time: wall-clock ----------------------------------------------------------------------------------------- */
static double mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}
static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, unsigned n) {
    qsort(v, n, sizeof *v, cmp_dbl);
    return n % 2u ? v[n / 2u] : (v[n / 2u - 1u] + v[n / 2u]) / 2.0;
}

/* Round k runs every timed stream once, in turn, each followed by its memcpy yardstick: a load that comes and goes
 * touches every stream alike, and each transfer is set against the copies timed right after it. */
static int cmd_time(const char *jpath, unsigned reps) {
    static double ns[NSTREAMS][101], mc[NSTREAMS][101], ratio[NSTREAMS][101];
    uint64_t np[NSTREAMS];
    FILE *j = jpath ? fopen(jpath, "a") : NULL;
    size_t i;
    unsigned k;
    if (jpath && !j) die("%s: %s", jpath, strerror(errno));
    if (reps < 1 || reps > 101) die("reps must be 1..101");
    buffers();
    for (k = 0; k < reps; k++)
        for (i = 0; i < NSTREAMS; i++) {
            const sdef *d = &streams[i];
            run r;
            double t0, t1;
            size_t off, pass;
            if (!d->time_msgs || d->large != BENCH_LARGE) continue;
            setup(&r, d, MODE_PLAIN, d->time_msgs);
            t0 = mono_ns();
            transfer(&r);
            t1 = mono_ns();
            verify(&r);
            ns[i][k] = (t1 - t0) / (double)r.n.tx_data;
            np[i] = r.n.tx_data;
            teardown(&r);
            /* the yardstick: 4 KiB copies over the same buffers, in the same order as the placement */
            t0 = mono_ns();
            for (pass = 0; pass < 4u; pass++)
                for (off = 0; off < REGION; off += 4096u) memcpy(g_dst + off, g_src + off, 4096u);
            t1 = mono_ns();
            mc[i][k] = (t1 - t0) / (4.0 * (double)(REGION / 4096u));
            if (memcmp(g_dst, g_src, REGION)) die("memcpy yardstick: buffers differ");
            ratio[i][k] = ns[i][k] / mc[i][k];
        }
    printf("\n== Wall-clock: ns per data packet, median of %u transfers (CLOCK_MONOTONIC around each whole transfer; "
           "harness included) ==\n", reps);
    printf("  %-14s %9s %10s %10s %10s %14s %12s\n", "stream", "data pkts", "ns/pkt", "min", "max", "ns/4KiB memcpy",
           "pkt/memcpy");
    for (i = 0; i < NSTREAMS; i++) {
        const sdef *d = &streams[i];
        double med, mmed, rmed;
        if (!d->time_msgs || d->large != BENCH_LARGE) continue;
        med = median(ns[i], reps);
        mmed = median(mc[i], reps);
        rmed = median(ratio[i], reps); /* each transfer against the copies timed right after it */
        printf("  %-14s %9llu %10.1f %10.1f %10.1f %14.1f %12.2f\n", d->label, (unsigned long long)np[i], med,
               ns[i][0], ns[i][reps - 1u], mmed, rmed);
        if (j)
            fprintf(j, "{\"bench\":\"ns\",\"stream\":\"%s\",\"label\":\"%s\",\"reps\":%u,\"data_pkts\":%llu,"
                       "\"ns_per_pkt\":%.1f,\"ns_min\":%.1f,\"ns_max\":%.1f,\"memcpy_4k_ns\":%.1f,"
                       "\"pkt_in_memcpys\":%.2f}\n",
                    d->name, d->label, reps, (unsigned long long)np[i], med, ns[i][0], ns[i][reps - 1u], mmed, rmed);
    }
    if (j) fclose(j);
    return 0;
}

static int cmd_run(const char *name) {
    const sdef *d = stream_find(name);
    run r;
    if (!d) die("unknown stream '%s'", name);
    buffers();
    setup(&r, d, MODE_PLAIN, d->cg_msgs);
    transfer(&r);
    verify(&r);
    printf("%s: %llu data packets (%llu retransmitted, %llu trimmed, %llu dropped), %llu SACKs, %llu NACKs, "
           "%.1f us virtual, bit-exact\n", name, (unsigned long long)r.n.tx_data, (unsigned long long)r.n.rtx,
           (unsigned long long)r.n.rx_trim, (unsigned long long)r.n.dropped, (unsigned long long)r.n.sacks,
           (unsigned long long)r.n.nacks, (double)r.n.vtime / 1e3);
    teardown(&r);
    return 0;
}

int main(int argc, char **argv) {
    size_t i;
    if (argc == 3 && !strcmp(argv[1], "list") && !strcmp(argv[2], "reconcile")) { /* the targets' streams */
        for (i = 0; i < NTARGETS; i++)
            if (stream_find(targets[i].stream)->large == BENCH_LARGE) printf("%s\n", targets[i].stream);
        return 0;
    }
    if ((argc == 2 || argc == 3) && !strcmp(argv[1], "list")) { /* list timed: the ones the wall-clock runs */
        for (i = 0; i < NSTREAMS; i++)
            if (streams[i].large == BENCH_LARGE && (argc == 2 || streams[i].time_msgs)) printf("%s\n", streams[i].name);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "features")) {
        printf("build %s callgrind_requests %d\n", BENCH_BUILD, BENCH_CG_REQUESTS);
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "cg")) return cmd_cg(argv[2], argv[3]);
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "report")) return cmd_report(argv[2], argc == 4 ? argv[3] : NULL);
    if (argc >= 2 && argc <= 4 && !strcmp(argv[1], "time"))
        return cmd_time(argc >= 3 ? argv[2] : NULL, argc == 4 ? (unsigned)strtoul(argv[3], NULL, 10) : 7u);
    if (argc == 3 && !strcmp(argv[1], "run")) return cmd_run(argv[2]);
    fprintf(stderr, "usage: mrc_bench list | features | cg STREAM COUNTS | report DIR [JSON] | time [JSON [REPS]] | "
                    "run STREAM\n");
    return 2;
}
