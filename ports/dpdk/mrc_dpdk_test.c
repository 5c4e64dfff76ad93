/* mrc_dpdk_test.c - the DPDK port adapter (ports/dpdk) in one process over net_ring: deterministic in outcome.
 *
 *   mrc_dpdk_test [--eal "EAL ARGS"] [--bench MIB]            (make dpdk-ring-test)
 *
 * Two endpoints A and B, each with its own mrc_dpdk over 8 ethdevs made with rte_eth_from_rings: plane p of A and
 * plane p of B share two rte_rings (A->B and B->A), so a frame A transmits on plane p is what B receives there.
 * The test harness sits on those rings between the two adapters' turns: it can drop every frame of a plane (a black
 * hole), hold frames back (to keep external-buffer mbufs alive), look at every frame on the wire and inject frames of
 * its own. Time is real (DPDK's); every wait is bounded by a generous timeout and nothing sleeps: the outcome does
 * not depend on timing. Checks, in copy and in zero-copy mode:
 *   - a transfer of 8 MiB (128 RDMA Writes of 64 KiB) arrives bit-exact;
 *   - with every frame of plane 3 dropped for 200 ms mid-transfer it still completes bit-exact;
 *   - malformed frames, frames for another endpoint and a wrong ICRC injected into B's rings are each counted under
 *     the right reason and nothing breaks (a transfer with a storm of random garbage stays bit-exact);
 *   - zero copy: no SEND_DONE reaches the application while a frame referencing its buffer still exists (frames held
 *     on the wire delay the completions until they are freed), and every external buffer is released.
 * Prints "ok - name" / "FAIL - name: details" per check and ends with "N passed, N failed"; exit status 1 on any
 * failure. When the EAL cannot start it prints "SKIP: <reason>" and "0 passed, 0 failed" (exit 0): skipped, not passed.
 * --bench MIB times MIB-MiB transfers in copy and zero-copy mode (3 runs each) instead.
 */
#define _GNU_SOURCE
#define MRC_IMPLEMENTATION
#include "../../mrc.h"
#define MRC_FRAME_STATIC
#include "mrc_dpdk.h"
#define MRC_FRAME_IMPLEMENTATION
#include "../common/mrc_frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#define NP 8u
#define MSG (64u << 10)
#define NMSG 128u
#define REGION ((size_t)NMSG * MSG)
#define DEPTH 16u
#define IOVA 0x10000000ull
#define EV_FMT 0x55ull
#define EV_PROF 0x4D52432D44504B00ull /* "MRC-DPK" */
#define HOLD_MAX 4096u

static unsigned passed, failed;
static struct rte_ring *ab[NP], *ba[NP];   /* A -> B and B -> A wire of each plane */
static uint16_t port_a[NP], port_b[NP];
static struct rte_mempool *inj_pool;
static uint8_t *src, *dst;
static mrc_frame tfr;                      /* the test's own frame codec (injected frames) */

static void ok(const char *name) {
    printf("ok - %s\n", name);
    passed++;
}
static void bad(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(const char *name, const char *fmt, ...) {
    va_list ap;
    printf("FAIL - %s: ", name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    failed++;
}
static void check(int cond, const char *name, const char *why) {
    if (cond) ok(name);
    else bad(name, "%s", why);
}

/* ---- the two sides ------------------------------------------------------------------------------------------- */
typedef struct side {
    mrc_dpdk *d;
    mrc_endpoint ep;
    mrc_conn qp;
    uint32_t rkey;
} side;
static side A, B;

/* ---- the wire: what the harness does between the adapters' turns ----------------------------------------------- */
static int blackhole_plane;                /* 1-based; 0 none */
static unsigned hold_plane, hold_left;     /* hold the next hold_left frames of A -> B on hold_plane */
static struct rte_mbuf *held[HOLD_MAX];
static unsigned nheld;
static uint64_t bh_dropped;

static void wire_hooks(void) {
    void *objs[1024];
    unsigned n, i;
    if (blackhole_plane) {
        unsigned p = (unsigned)blackhole_plane - 1u;
        while ((n = rte_ring_dequeue_burst(ab[p], objs, 1024, NULL)) > 0) {
            rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
            bh_dropped += n;
        }
        while ((n = rte_ring_dequeue_burst(ba[p], objs, 1024, NULL)) > 0) {
            rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
            bh_dropped += n;
        }
    }
    if (hold_left && hold_plane) {
        n = rte_ring_dequeue_burst(ab[hold_plane - 1u], objs, hold_left < 1024u ? hold_left : 1024u, NULL);
        for (i = 0; i < n; i++) {
            if (nheld < HOLD_MAX) held[nheld++] = (struct rte_mbuf *)objs[i];
            else rte_pktmbuf_free((struct rte_mbuf *)objs[i]);
        }
        hold_left -= n;
    }
}

static void release_held(void) {
    if (nheld) rte_pktmbuf_free_bulk(held, nheld);
    nheld = 0;
}

/* empty every ring (before an adapter closes: its mbufs must not outlive its pools) */
static void wire_drain(void) {
    void *objs[1024];
    unsigned p, n;
    for (p = 0; p < NP; p++) {
        while ((n = rte_ring_dequeue_burst(ab[p], objs, 1024, NULL)) > 0)
            rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
        while ((n = rte_ring_dequeue_burst(ba[p], objs, 1024, NULL)) > 0)
            rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
    }
    release_held();
}

/* does any frame that still exists (held by the harness or on an A -> B ring) reference [lo, hi)? */
static int mbuf_refs(const struct rte_mbuf *m, uintptr_t lo, uintptr_t hi) {
    for (; m; m = m->next)
        if (RTE_MBUF_HAS_EXTBUF(m)) {
            uintptr_t a = (uintptr_t)m->buf_addr;
            if (a < hi && a + m->buf_len > lo) return 1;
        }
    return 0;
}
static unsigned wire_refs(uintptr_t lo, uintptr_t hi) {
    void *objs[1024];
    unsigned p, n, i, hits = 0;
    for (i = 0; i < nheld; i++) hits += (unsigned)mbuf_refs(held[i], lo, hi);
    for (p = 0; p < NP; p++) { /* look at the ring's frames and put them back in the same order */
        n = rte_ring_dequeue_burst(ab[p], objs, 1024, NULL);
        for (i = 0; i < n; i++) hits += (unsigned)mbuf_refs((const struct rte_mbuf *)objs[i], lo, hi);
        if (n && rte_ring_enqueue_burst(ab[p], objs, n, NULL) != n) abort();
    }
    return hits;
}

/* ---- setup --------------------------------------------------------------------------------------------------- */
static int make_ports(char *err, size_t n) {
    unsigned p;
    for (p = 0; p < NP; p++) {
        char name[32];
        int pa, pb;
        snprintf(name, sizeof name, "mrct_ab%u", p);
        ab[p] = rte_ring_create(name, 1024, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
        snprintf(name, sizeof name, "mrct_ba%u", p);
        ba[p] = rte_ring_create(name, 1024, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
        if (!ab[p] || !ba[p]) {
            snprintf(err, n, "rte_ring_create: %s", rte_strerror(rte_errno));
            return -1;
        }
        snprintf(name, sizeof name, "net_ring_a%u", p);
        pa = rte_eth_from_rings(name, &ba[p], 1, &ab[p], 1, rte_socket_id());
        snprintf(name, sizeof name, "net_ring_b%u", p);
        pb = rte_eth_from_rings(name, &ab[p], 1, &ba[p], 1, rte_socket_id());
        if (pa < 0 || pb < 0) {
            snprintf(err, n, "rte_eth_from_rings: %s", rte_strerror(rte_errno));
            return -1;
        }
        port_a[p] = (uint16_t)pa;
        port_b[p] = (uint16_t)pb;
    }
    inj_pool = rte_pktmbuf_pool_create("mrct_inj", 2047, 0, 0, (uint16_t)(RTE_PKTMBUF_HEADROOM + 4400u),
                                       (int)rte_socket_id());
    if (!inj_pool) {
        snprintf(err, n, "injection pool: %s", rte_strerror(rte_errno));
        return -1;
    }
    return 0;
}

static int use_v6;                         /* IPv6 frames (open_side) */

static int open_side(side *s, int is_b, int zc, char *err, size_t n) {
    mrc_dpdk_config c;
    mrc_config ec;
    unsigned p;
    mrc_dpdk_config_default(&c);
    c.planes = NP;
    c.evs_per_plane = 16;
    c.ev_port = (uint16_t)(is_b ? 20000 : 20256);
    c.mbufs = 4095;
    c.zero_copy = (uint8_t)zc;
    c.frame.ipv6 = (uint8_t)use_v6;
    for (p = 0; p < NP; p++) {
        char ip[48];
        c.port_id[p] = is_b ? port_b[p] : port_a[p];
        if (use_v6) snprintf(ip, sizeof ip, "fd00:78:%u::%u", p + 1u, is_b ? 2u : 1u);
        else snprintf(ip, sizeof ip, "10.78.%u.%u", p + 1u, is_b ? 2u : 1u);
        if (mrc_dpdk_config_set_local(&c, p + 1u, ip)) {
            snprintf(err, n, "config_set_local %s", ip);
            return -1;
        }
    }
    if (mrc_dpdk_open(&s->d, &c, err, n)) return -1;
    mrc_config_default(&ec);
    ec.num_ports = NP;
    ec.seed = is_b ? 2u : 1u;
    ec.cc.base_rtt_ns = 50000;
    ec.cc.line_rate_mbps = 25000;
    if (mrc_endpoint_init(&s->ep, &ec, mrc_dpdk_now(s->d)) ||
        mrc_dpdk_ev_profile(s->d, &s->ep, EV_FMT, EV_PROF, 16, mrc_dpdk_now(s->d)) ||
        mrc_conn_init(&s->ep, &s->qp, mrc_dpdk_now(s->d))) {
        snprintf(err, n, "core setup failed");
        return -1;
    }
    return 0;
}

static int open_pair(int zc, char *err, size_t n) {
    mrc_frame_addr la[NP], lb[NP];
    mrc_conn_attr a;
    unsigned p;
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    if (open_side(&A, 0, zc, err, n) || open_side(&B, 1, zc, err, n)) return -1;
    for (p = 0; p < NP; p++) {
        (void)mrc_dpdk_local_addr(A.d, p + 1u, &la[p]);
        (void)mrc_dpdk_local_addr(B.d, p + 1u, &lb[p]);
    }
    if (mrc_dpdk_set_peer(A.d, lb, NP, err, n) || mrc_dpdk_set_peer(B.d, la, NP, err, n)) return -1;
    if (mrc_endpoint_reg_mr(&B.ep, dst, IOVA, REGION, MRC_ACCESS_REMOTE_WRITE, NULL, &B.rkey)) {
        snprintf(err, n, "reg_mr failed");
        return -1;
    }
    mrc_conn_attr_default(&a);
    a.ev_profile_id = EV_PROF;
    a.peer = 1;
    a.dest_qpn = mrc_conn_qpn(&B.qp);
    a.sq_psn = 100;
    a.rq_psn = 200;
    if (mrc_conn_connect(&A.qp, &a, mrc_dpdk_now(A.d))) {
        snprintf(err, n, "connect A failed");
        return -1;
    }
    a.dest_qpn = mrc_conn_qpn(&A.qp);
    a.sq_psn = 200;
    a.rq_psn = 100;
    if (mrc_conn_connect(&B.qp, &a, mrc_dpdk_now(B.d))) {
        snprintf(err, n, "connect B failed");
        return -1;
    }
    return 0;
}

static void close_side(side *s) {
    mrc_conn_attr a;
    if (!s->d) return;
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_ERR;
    (void)mrc_conn_modify(&s->qp, &a, MRC_ATTR_STATE, mrc_dpdk_now(s->d));
    (void)mrc_conn_destroy(&s->qp);
    mrc_dpdk_close(s->d);
    s->d = NULL;
}
static void close_pair(void) {
    wire_drain();
    close_side(&A);
    close_side(&B);
}

/* ---- one transfer -------------------------------------------------------------------------------------------- */
typedef struct xfer {
    unsigned nmsg, posted, done, round;
    uint64_t t_start;
    int bh_at;              /* messages completed when the black hole opens (-1 never) */
    uint64_t bh_ns, bh_open;
    int hold_at;            /* messages completed when frames start being held (-1 never) */
    unsigned hold_frames;
    uint64_t hold_ns;       /* how long the frames stay held once some completion is held back */
    uint64_t hold_since;
    unsigned early;         /* SEND_DONEs delivered while a frame still referenced their buffer */
    unsigned held_seen;     /* most completions held back at once */
    unsigned ev_bad_plane[NP + 1];
    void (*every)(struct xfer *x);
    char err[256];
} xfer;

static void post(xfer *x, mrc_time now) {
    while (x->posted < x->nmsg && x->posted - x->done < DEPTH) {
        mrc_write w;
        unsigned i = x->posted % NMSG;
        memset(&w, 0, sizeof w);
        w.wr_id = x->posted;
        w.opcode = MRC_WR_WRITE;
        w.buf = src + (size_t)i * MSG;
        w.len = MSG;
        w.remote_va = IOVA + (uint64_t)i * MSG;
        w.rkey = B.rkey;
        if (mrc_conn_post_write(&A.qp, &w, now) != MRC_OK) break;
        x->posted++;
    }
}

/* Runs until every posted write completed or timeout_s passed. 0 or -1 (x->err says why). */
static int run(xfer *x, double timeout_s) {
    uint64_t t0 = mrc_dpdk_now(A.d), lim = (uint64_t)(timeout_s * 1e9);
    mrc_event ev;
    x->t_start = t0;
    post(x, t0);
    while (x->done < x->nmsg) {
        mrc_time now = mrc_dpdk_now(A.d);
        if (now - t0 > lim) {
            snprintf(x->err, sizeof x->err, "timeout after %.0f s: %u of %u writes done (%u posted)", timeout_s,
                     x->done, x->nmsg, x->posted);
            return -1;
        }
        if (x->bh_at >= 0 && !x->bh_open && x->done >= (unsigned)x->bh_at) {
            blackhole_plane = 3;
            x->bh_open = now;
        }
        if (x->bh_open && blackhole_plane && now - x->bh_open >= x->bh_ns) blackhole_plane = 0;
        if (x->hold_at >= 0 && !hold_plane && x->done >= (unsigned)x->hold_at) {
            hold_plane = 2;
            hold_left = x->hold_frames;
        }
        if (hold_plane && nheld && !x->hold_since && mrc_dpdk_events_held(A.d) > 0) x->hold_since = now;
        if (x->hold_since && now - x->hold_since >= x->hold_ns && nheld) {
            release_held();
            hold_left = 0;
        }
        wire_hooks();
        (void)mrc_dpdk_step(A.d, &A.ep, 0, NULL);
        if (mrc_dpdk_events_held(A.d) > x->held_seen) x->held_seen = mrc_dpdk_events_held(A.d);
        while (mrc_dpdk_poll_event(A.d, &A.ep, &ev) > 0) {
            if (ev.type == MRC_EVT_SEND_DONE) {
                unsigned i = (unsigned)(ev.wr_id % NMSG);
                if (ev.status != MRC_OK) {
                    snprintf(x->err, sizeof x->err, "write %llu failed: %s", (unsigned long long)ev.wr_id,
                             mrc_strerror(ev.status));
                    return -1;
                }
                if (mrc_dpdk_zero_copy(A.d) &&
                    wire_refs((uintptr_t)(src + (size_t)i * MSG), (uintptr_t)(src + (size_t)(i + 1u) * MSG)))
                    x->early++;
                x->done++;
            } else if (ev.type == MRC_EVT_CONN_ERROR) {
                snprintf(x->err, sizeof x->err, "A's QP entered ERR: %s", mrc_strerror(ev.status));
                return -1;
            } else if (ev.type == MRC_EVT_EV_STATE && ev.state == MRC_EVS_ASSUMED_BAD && ev.port <= NP) {
                x->ev_bad_plane[ev.port]++;
            }
        }
        if (x->every) x->every(x);
        post(x, mrc_dpdk_now(A.d));
        wire_hooks();
        (void)mrc_dpdk_step(B.d, &B.ep, 0, NULL);
        while (mrc_dpdk_poll_event(B.d, &B.ep, &ev) > 0)
            if (ev.type == MRC_EVT_CONN_ERROR) {
                snprintf(x->err, sizeof x->err, "B's QP entered ERR: %s", mrc_strerror(ev.status));
                return -1;
            }
        x->round++;
    }
    blackhole_plane = 0;
    hold_plane = 0;
    hold_left = 0;
    release_held();
    return 0;
}

/* every byte B holds is A's */
static int verify(unsigned nmsg) {
    size_t n = (size_t)(nmsg < NMSG ? nmsg : NMSG) * MSG;
    return memcmp(src, dst, n) == 0;
}

static void fill(unsigned seed) {
    size_t i;
    uint64_t x = 0x9E3779B97F4A7C15ull * (seed + 1u);
    for (i = 0; i < REGION; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy(src + i, &x, 8);
    }
    memset(dst, 0, REGION);
}

static void xfer_init(xfer *x, unsigned nmsg) {
    memset(x, 0, sizeof *x);
    x->nmsg = nmsg;
    x->bh_at = -1;
    x->hold_at = -1;
}

/* ---- injected frames ----------------------------------------------------------------------------------------- */
/* one frame into B's receive ring of plane p (two chained mbufs with segs 2); 1 queued, 0 the ring was full */
static int inject(unsigned plane, const uint8_t *f, size_t len, int segs) {
    struct rte_mbuf *m = rte_pktmbuf_alloc(inj_pool), *m2 = NULL;
    size_t a = segs > 1 && len > 1 ? len / 2 : len;
    if (!m) abort();
    memcpy(rte_pktmbuf_mtod(m, uint8_t *), f, a);
    m->data_len = (uint16_t)a;
    m->pkt_len = (uint32_t)len;
    if (a < len) {
        m2 = rte_pktmbuf_alloc(inj_pool);
        if (!m2) abort();
        memcpy(rte_pktmbuf_mtod(m2, uint8_t *), f + a, len - a);
        m2->data_len = (uint16_t)(len - a);
        m->next = m2;
        m->nb_segs = 2;
    }
    if (rte_ring_enqueue(ab[plane - 1u], m) == 0) return 1;
    rte_pktmbuf_free(m);
    return 0;
}

static void ip4_csum(uint8_t *ip) {
    uint32_t s = 0, i;
    ip[10] = ip[11] = 0;
    for (i = 0; i < 20; i += 2) s += (uint32_t)ip[i] << 8 | ip[i + 1];
    while (s >> 16) s = (s & 0xFFFFu) + (s >> 16);
    ip[10] = (uint8_t)(~s >> 8);
    ip[11] = (uint8_t)~s;
}

/* A well-framed MRC frame from A's plane p to B's (ICRC right), carrying a BTH for a QP B does not have. */
static size_t template_frame(unsigned p, uint8_t *out, size_t cap, const uint8_t *src_ip) {
    mrc_frame_addr s, d;
    mrc_txinfo ti;
    mrc_ev_hdrs evh;
    uint8_t hdr[12 + 64];
    int n;
    (void)mrc_dpdk_local_addr(A.d, p, &s);
    (void)mrc_dpdk_local_addr(B.d, p, &d);
    if (src_ip) memcpy(s.ip, src_ip, 4);
    memset(&ti, 0, sizeof ti);
    memset(&evh, 0, sizeof evh);
    memset(hdr, 0x5A, sizeof hdr);
    hdr[0] = MRC_OP_WRITE_FIRST;
    hdr[5] = 0xAB; /* destination QP 0xABCDEF: none */
    hdr[6] = 0xCD;
    hdr[7] = 0xEF;
    ti.port = (uint8_t)p;
    ti.dscp = 10;
    ti.opcode = MRC_OP_WRITE_FIRST;
    ti.hdr_len = sizeof hdr;
    evh.udp_sport = 20256;
    n = mrc_frame_encode(&tfr, &s, &d, &ti, &evh, hdr, out, cap);
    return n > 0 ? (size_t)n : 0;
}

static uint64_t drops(const mrc_dpdk_stats *s, unsigned plane, int reason) { return s->plane[plane - 1u].rx_drop[reason]; }

/* Inject one frame into B's plane p, let B take it, and compare B's counters: the frame's reason (or, for
 * MRC_FRAME_OK, that it reached the core and was rejected there; -1: counted as foreign). */
static void inject_check(const char *name, unsigned p, const uint8_t *f, size_t len, int segs, int reason) {
    mrc_dpdk_stats b0, b1;
    uint64_t t0;
    int i;
    mrc_dpdk_stats_get(B.d, &b0);
    if (!inject(p, f, len, segs)) {
        bad(name, "B's ring was full");
        return;
    }
    t0 = mrc_dpdk_now(B.d);
    do {
        (void)mrc_dpdk_step(B.d, &B.ep, 0, NULL);
        mrc_dpdk_stats_get(B.d, &b1);
    } while (b1.plane[p - 1u].rx_pkts == b0.plane[p - 1u].rx_pkts && mrc_dpdk_now(B.d) - t0 < 2000000000u);
    if (b1.plane[p - 1u].rx_pkts != b0.plane[p - 1u].rx_pkts + 1u) {
        bad(name, "B did not receive the injected frame");
        return;
    }
    for (i = 1; i < (int)MRC_FRAME_DROP_NDROP; i++) {
        uint64_t dd = drops(&b1, p, i) - drops(&b0, p, i), want = i == reason ? 1u : 0u;
        if (dd != want) {
            bad(name, "drop counter '%s' moved by %llu, expected %llu", mrc_frame_drop_name(i), (unsigned long long)dd,
                (unsigned long long)want);
            return;
        }
    }
    if ((b1.plane[p - 1u].rx_foreign - b0.plane[p - 1u].rx_foreign) != (reason == -1 ? 1u : 0u)) {
        bad(name, "rx_foreign moved by %llu", (unsigned long long)(b1.plane[p - 1u].rx_foreign - b0.plane[p - 1u].rx_foreign));
        return;
    }
    if ((b1.core_rx_rejected - b0.core_rx_rejected) != (reason == MRC_FRAME_OK ? 1u : 0u)) {
        bad(name, "core rejections moved by %llu", (unsigned long long)(b1.core_rx_rejected - b0.core_rx_rejected));
        return;
    }
    if (segs > 1 && b1.plane[p - 1u].rx_linearised != b0.plane[p - 1u].rx_linearised + 1u) {
        bad(name, "the two-segment frame was not linearised");
        return;
    }
    printf("ok - %s (%s)\n", name, reason == MRC_FRAME_OK ? "reached the core, rejected there" : reason == -1 ? "rx_foreign" : mrc_frame_drop_name(reason));
    passed++;
}

static void malformed_frames(void) {
    uint8_t t[512], f[512];
    size_t n = template_frame(2, t, sizeof t, NULL), i;
    const uint8_t foreign_ip[4] = {10, 99, 99, 99};
    if (!n) {
        bad("template frame", "mrc_frame_encode failed");
        return;
    }
#define MUT(name, reason, body)                                                                                       \
    do {                                                                                                              \
        size_t len = n;                                                                                               \
        memcpy(f, t, n);                                                                                              \
        body;                                                                                                         \
        inject_check(name, 2, f, len, 1, reason);                                                                     \
    } while (0)
    MUT("inject: well-framed MRC frame for an unknown QP", MRC_FRAME_OK, (void)0);
    MUT("inject: wrong ethertype", MRC_FRAME_DROP_ETHERTYPE, (f[12] = 0x88, f[13] = 0xB5));
    MUT("inject: truncated inside the IP header", MRC_FRAME_DROP_SHORT, len = 30);
    MUT("inject: empty frame", MRC_FRAME_DROP_SHORT, len = 0);
    MUT("inject: truncated inside the MRC packet", MRC_FRAME_DROP_IP_LEN, len = n - 10);
    MUT("inject: IPv4 options (IHL 6)", MRC_FRAME_DROP_IP_OPTIONS, (f[14] = 0x46, ip4_csum(f + 14)));
    MUT("inject: IPv4 fragment (MF)", MRC_FRAME_DROP_IP_FRAGMENT, (f[20] |= 0x20, ip4_csum(f + 14)));
    MUT("inject: IPv4 fragment (offset)", MRC_FRAME_DROP_IP_FRAGMENT, (f[21] = 0x10, ip4_csum(f + 14)));
    MUT("inject: wrong IPv4 header checksum", MRC_FRAME_DROP_IP_CSUM, f[24] ^= 0x01);
    MUT("inject: IPv6 ethertype on an IPv4 header", MRC_FRAME_DROP_IP_VERSION, (f[12] = 0x86, f[13] = 0xDD));
    MUT("inject: not UDP (TCP)", MRC_FRAME_DROP_NOT_UDP, (f[23] = 6, ip4_csum(f + 14)));
    MUT("inject: wrong UDP destination port", MRC_FRAME_DROP_UDP_PORT, (f[36] = 0x12, f[37] = 0x34));
    MUT("inject: UDP length disagrees with IP", MRC_FRAME_DROP_UDP_LEN, f[39] = (uint8_t)(f[39] - 4));
    MUT("inject: bad ICRC (one payload bit flipped)", MRC_FRAME_DROP_ICRC, f[60] ^= 0x10);
    MUT("inject: bad ICRC (ICRC bytes)", MRC_FRAME_DROP_ICRC, f[n - 1] ^= 0xFF);
    MUT("inject: for another MAC", MRC_FRAME_DROP_NOT_LOCAL, f[5] ^= 0x01);
    MUT("inject: for another IP", MRC_FRAME_DROP_NOT_LOCAL, (f[33] ^= 0x01, ip4_csum(f + 14)));
    n = template_frame(2, t, sizeof t, foreign_ip);
    MUT("inject: from an address that is not the peer's", -1, (void)0);
    n = template_frame(2, t, sizeof t, NULL);
    memcpy(f, t, n);
    inject_check("inject: well-framed frame in two segments (linearised)", 2, f, n, 2, MRC_FRAME_OK);
    memcpy(f, t, n);
    f[60] ^= 0x10;
    inject_check("inject: bad ICRC in two segments", 2, f, n, 2, MRC_FRAME_DROP_ICRC);
    for (i = 0; i < n; i++) f[i] = (uint8_t)(i * 37u + 11u);
    inject_check("inject: garbage", 2, f, n, 1, MRC_FRAME_DROP_ETHERTYPE);
#undef MUT
}

/* random garbage on every plane of B while a transfer runs */
static uint64_t storm_rng = 12345, storm_sent;
static void storm(xfer *x) {
    uint8_t f[2048];
    unsigned k;
    (void)x;
    for (k = 0; k < 4; k++) {
        uint64_t r;
        size_t len, i;
        storm_rng ^= storm_rng << 13;
        storm_rng ^= storm_rng >> 7;
        storm_rng ^= storm_rng << 17;
        r = storm_rng;
        len = (size_t)(r % 1500u);
        for (i = 0; i < len; i++) {
            storm_rng = storm_rng * 6364136223846793005ull + 1442695040888963407ull;
            f[i] = (uint8_t)(storm_rng >> 56);
        }
        if (len > 14 && (r & 0x100)) { /* half of them look like IPv4 to B's MAC, to reach deeper checks */
            mrc_frame_addr b;
            (void)mrc_dpdk_local_addr(B.d, (unsigned)(r >> 20) % NP + 1u, &b);
            memcpy(f, b.mac, 6);
            f[12] = 0x08;
            f[13] = 0x00;
            if (len > 15) f[14] = 0x45;
        }
        if (inject((unsigned)(r >> 20) % NP + 1u, f, len, (r >> 40) & 1u ? 2 : 1)) storm_sent++;
    }
}

static uint64_t drop_sum(const mrc_dpdk_stats *s) {
    uint64_t t = 0;
    unsigned p;
    int i;
    for (p = 0; p < NP; p++) {
        for (i = 1; i < (int)MRC_FRAME_DROP_NDROP; i++) t += s->plane[p].rx_drop[i];
        t += s->plane[p].rx_foreign + s->plane[p].rx_too_long;
    }
    return t;
}

/* ---- the checks ---------------------------------------------------------------------------------------------- */
static void suite(int zc) {
    const char *mode = zc ? "zero-copy" : "copy";
    char err[512], name[160];
    xfer x;
    mrc_dpdk_stats sa, sb;
    mrc_conn_stats cs;
    fill(zc ? 7u : 3u);
    if (open_pair(zc, err, sizeof err)) {
        snprintf(name, sizeof name, "%s: open two adapters over 2 x 8 net_ring ethdevs and connect", mode);
        bad(name, "%s", err);
        close_pair();
        return;
    }
    snprintf(name, sizeof name, "%s: open two adapters over 2 x 8 net_ring ethdevs and connect", mode);
    ok(name);

    /* 1. a clean transfer */
    xfer_init(&x, NMSG);
    snprintf(name, sizeof name, "%s: 8 MiB in 128 writes of 64 KiB, bit-exact", mode);
    if (run(&x, 30)) bad(name, "%s", x.err);
    else if (!verify(NMSG)) bad(name, "B's memory differs from A's buffers");
    else ok(name);
    mrc_dpdk_stats_get(A.d, &sa);
    {
        unsigned p, used = 0;
        for (p = 0; p < NP; p++) used += sa.plane[p].tx_pkts > 100u;
        snprintf(name, sizeof name, "%s: every plane carried data", mode);
        if (used == NP) ok(name);
        else bad(name, "only %u of %u planes carried over 100 frames", used, NP);
    }
    snprintf(name, sizeof name, "%s: payloads sent %s", mode, zc ? "as external buffers" : "copied");
    if (zc ? (sa.tx_zc > 1000u && sa.tx_copy == 0) : (sa.tx_copy > 1000u && sa.tx_zc == 0)) ok(name);
    else bad(name, "tx_copy %llu tx_zc %llu fallback %llu", (unsigned long long)sa.tx_copy,
             (unsigned long long)sa.tx_zc, (unsigned long long)sa.zc_fallback);

    /* 2. plane 3 black-holed for 200 ms mid-transfer */
    fill(zc ? 8u : 4u);
    xfer_init(&x, NMSG);
    x.bh_at = NMSG / 4;
    x.bh_ns = 200000000u;
    bh_dropped = 0;
    mrc_conn_stats_get(&A.qp, &cs);
    {
        uint64_t rtx0 = cs.tx_rtx;
        snprintf(name, sizeof name, "%s: plane 3 black-holed for 200 ms mid-transfer: completes bit-exact", mode);
        if (run(&x, 30)) bad(name, "%s", x.err);
        else if (!verify(NMSG)) bad(name, "B's memory differs from A's buffers");
        else if (!bh_dropped) bad(name, "the harness dropped nothing (transfer ended before the black hole?)");
        else {
            mrc_conn_stats_get(&A.qp, &cs);
            printf("ok - %s (%llu frames dropped, %llu retransmissions, %u EVs of plane 3 marked bad)\n", name,
                   (unsigned long long)bh_dropped, (unsigned long long)(cs.tx_rtx - rtx0), x.ev_bad_plane[3]);
            passed++;
        }
    }
    snprintf(name, sizeof name, "%s: the black-holed plane's EVs were marked bad", mode);
    check(x.ev_bad_plane[3] > 0, name, "no EV_STATE ASSUMED_BAD event for plane 3");

    /* 3. malformed frames, one at a time, while idle; then garbage during a transfer */
    if (!zc) malformed_frames();
    fill(zc ? 9u : 5u);
    xfer_init(&x, NMSG);
    x.every = storm;
    mrc_dpdk_stats_get(B.d, &sb);
    {
        uint64_t d0 = drop_sum(&sb), s0 = storm_sent, dd;
        snprintf(name, sizeof name, "%s: random garbage on every plane during a transfer: bit-exact, all counted", mode);
        if (run(&x, 30)) bad(name, "%s", x.err);
        else {
            /* let B take what is still queued */
            uint64_t t0 = mrc_dpdk_now(B.d);
            while (mrc_dpdk_now(B.d) - t0 < 50000000u) (void)mrc_dpdk_step(B.d, &B.ep, 0, NULL);
            mrc_dpdk_stats_get(B.d, &sb);
            dd = drop_sum(&sb) - d0;
            if (!verify(NMSG)) bad(name, "B's memory differs from A's buffers");
            else if (dd != storm_sent - s0)
                bad(name, "%llu garbage frames injected, %llu counted as dropped", (unsigned long long)(storm_sent - s0),
                    (unsigned long long)dd);
            else {
                printf("ok - %s (%llu frames)\n", name, (unsigned long long)dd);
                passed++;
            }
        }
    }

    /* 4. zero copy: the ownership rule */
    if (zc) {
        fill(10u);
        xfer_init(&x, NMSG);
        x.hold_at = NMSG / 4;
        x.hold_frames = 24;
        x.hold_ns = 30000000u;
        nheld = 0;
        snprintf(name, sizeof name, "zero-copy: 24 frames held on the wire 30 ms: transfer still bit-exact");
        if (run(&x, 30)) bad(name, "%s", x.err);
        else if (!verify(NMSG)) bad(name, "B's memory differs from A's buffers");
        else ok(name);
        snprintf(name, sizeof name, "zero-copy: completions were held back while frames referenced a buffer");
        mrc_dpdk_stats_get(A.d, &sa);
        if (x.held_seen > 0 && sa.ev_hold_max_ns >= 20000000u) {
            printf("ok - %s (up to %u SEND_DONEs held, longest %.1f ms)\n", name, x.held_seen,
                   (double)sa.ev_hold_max_ns / 1e6);
            passed++;
        } else {
            bad(name, "held at most %u, longest hold %.3f ms", x.held_seen, (double)sa.ev_hold_max_ns / 1e6);
        }
        snprintf(name, sizeof name,
                 "zero-copy: no SEND_DONE delivered while a frame still referenced its buffer (all transfers)");
        check(x.early == 0, name, "a completion was delivered while a frame referencing its buffer existed");
        wire_drain();
        {
            uint64_t t0 = mrc_dpdk_now(A.d);
            while (mrc_dpdk_ext_outstanding(A.d) && mrc_dpdk_now(A.d) - t0 < 1000000000u)
                (void)mrc_dpdk_step(A.d, &A.ep, 0, NULL);
        }
        mrc_dpdk_stats_get(A.d, &sa);
        snprintf(name, sizeof name, "zero-copy: every external buffer released (%llu attached)",
                 (unsigned long long)sa.ext_attached);
        check(sa.ext_attached > 0 && sa.ext_attached == sa.ext_released, name, "some external-buffer mbufs never freed");
    }
    close_pair();
}

static void error_paths(void) {
    mrc_dpdk_config c;
    mrc_dpdk *d = NULL;
    char err[512];
    mrc_dpdk_config_default(&c);
    c.planes = 2;
    c.port_id[0] = port_a[0];
    c.port_id[1] = 200;
    err[0] = 0;
    if (mrc_dpdk_open(&d, &c, err, sizeof err) == 0 || !strstr(err, "does not exist")) {
        bad("open with an ethdev that does not exist fails with one line", "rc ok or '%s'", err);
        mrc_dpdk_close(d);
    } else {
        printf("ok - open with an ethdev that does not exist fails with one line ('%s')\n", err);
        passed++;
    }
    c.port_id[1] = port_a[0];
    err[0] = 0;
    d = NULL;
    if (mrc_dpdk_open(&d, &c, err, sizeof err) == 0 || !strstr(err, "same ethdev")) {
        bad("open with one ethdev for two planes fails", "'%s'", err);
        mrc_dpdk_close(d);
    } else {
        ok("open with one ethdev for two planes fails");
    }
    c.port_id[1] = port_a[1];
    c.mbuf_data_room = 2048;
    d = NULL;
    if (mrc_dpdk_open(&d, &c, err, sizeof err) == 0 || !strstr(err, "too small")) {
        bad("open with mbufs too small for a 4 KiB frame fails", "'%s'", err);
        mrc_dpdk_close(d);
    } else {
        ok("open with mbufs too small for a 4 KiB frame fails");
    }
    if (mrc_dpdk_config_set_local(&c, 1, "10.1.2") == 0) bad("a bad plane IP is refused", "accepted");
    else ok("a bad plane IP is refused");
}

/* One reading of the adapter's clock bracketed by CLOCK_MONOTONIC: retried until the bracket is under 20 us, so a
 * preemption between the reads (a busy host) makes a retry, not a wrong answer. 0, or -1 if never tight. */
static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static int clock_sample(mrc_dpdk *d, uint64_t *t, uint64_t *mid, uint64_t *width) {
    unsigned tries;
    for (tries = 0; tries < 100000u; tries++) {
        uint64_t m0 = mono_ns(), a = mrc_dpdk_now(d), m1 = mono_ns();
        if (m1 - m0 < 20000u) {
            *t = a;
            *mid = m0 + (m1 - m0) / 2u;
            *width = m1 - m0;
            return 0;
        }
    }
    return -1;
}
static void clock_check(void) {
    mrc_dpdk_config c;
    mrc_dpdk *d = NULL;
    char err[512];
    uint64_t a, b, ma, mb, wa, wb, prev, i, end;
    int mono = 1;
    mrc_dpdk_config_default(&c);
    c.planes = 1;
    c.port_id[0] = port_a[0];
    c.mbufs = 255;
    if (mrc_dpdk_open(&d, &c, err, sizeof err)) {
        bad("clock", "%s", err);
        return;
    }
    if (clock_sample(d, &a, &ma, &wa)) {
        bad("clock", "no CLOCK_MONOTONIC bracket under 20 us in 100000 tries");
        mrc_dpdk_close(d);
        return;
    }
    /* a 200 ms window (a measurement span, not a synchronisation): the clock never goes back within it */
    prev = a;
    for (i = 0, end = ma + 200000000u; mono_ns() < end; i++) {
        uint64_t t = mrc_dpdk_now(d);
        if (t < prev) mono = 0;
        prev = t;
    }
    if (clock_sample(d, &b, &mb, &wb)) {
        bad("clock", "no CLOCK_MONOTONIC bracket under 20 us in 100000 tries");
        mrc_dpdk_close(d);
        return;
    }
    {   /* offset within 1 ms of CLOCK_MONOTONIC; rate within 0.1% (bracket error at most 40 us of 200 ms: 0.02%) */
        double da = (double)(a > ma ? a - ma : ma - a) - (double)wa / 2, rate = (double)(b - a) / (double)(mb - ma);
        if (mono && da < 1e6 && rate > 0.999 && rate < 1.001)
            printf("ok - clock: TSC ns monotonic over %llu reads, CLOCK_MONOTONIC's epoch (%.0f ns apart) and rate "
                   "(%.5f)\n", (unsigned long long)i, da < 0 ? 0.0 : da, rate),
                passed++;
        else
            bad("clock", "monotonic %d, %.0f ns from CLOCK_MONOTONIC, rate %.5f", mono, da, rate);
    }
    mrc_dpdk_close(d);
}

/* raw frames: what raw_send queues on A arrives intact at B's raw_recv */
static uint64_t raw_got, raw_bad;
static void raw_fn(void *ud, unsigned plane, const uint8_t *pkt, size_t len, mrc_time now) {
    uint64_t seq;
    (void)ud;
    (void)now;
    if (len != 36u + 1024u) {
        raw_bad++;
        return;
    }
    memcpy(&seq, pkt, 8);
    if ((seq % NP) + 1u != plane || memcmp(pkt + 36, src + seq * 64u, 1024)) raw_bad++;
    raw_got++;
}
static void raw_check(void) {
    char err[512];
    uint8_t hdr[36];
    uint64_t s, t0;
    fill(11u);
    if (open_pair(0, err, sizeof err)) {
        bad("raw frames", "%s", err);
        close_pair();
        return;
    }
    raw_got = raw_bad = 0;
    memset(hdr, 0, sizeof hdr);
    for (s = 0; s < 4000u; s++) {
        memcpy(hdr, &s, 8);
        if (mrc_dpdk_raw_send(A.d, (unsigned)(s % NP) + 1u, (unsigned)(s / NP) % 16u, hdr, sizeof hdr,
                              src + s * 64u, 1024)) {
            bad("raw frames", "raw_send failed at %llu", (unsigned long long)s);
            close_pair();
            return;
        }
        if (s % 64u == 63u) {
            (void)mrc_dpdk_raw_flush(A.d);
            (void)mrc_dpdk_raw_recv(B.d, 0, raw_fn, NULL, NULL);
        }
    }
    (void)mrc_dpdk_raw_flush(A.d);
    t0 = mrc_dpdk_now(B.d);
    while (raw_got + raw_bad < 4000u && mrc_dpdk_now(B.d) - t0 < 2000000000u)
        (void)mrc_dpdk_raw_recv(B.d, 1000000u, raw_fn, NULL, NULL);
    if (raw_got == 4000u && !raw_bad) ok("raw frames: 4000 sent on 8 planes, all received intact on their plane");
    else bad("raw frames", "received %llu good, %llu bad of 4000", (unsigned long long)raw_got, (unsigned long long)raw_bad);
    close_pair();
}

/* IPv6 frames: the same transfer, and the frames on the wire really are IPv6 */
static unsigned v6_seen, v4_seen;
static void peek_ethertype(xfer *x) {
    void *objs[1024];
    unsigned n, i;
    (void)x;
    n = rte_ring_dequeue_burst(ab[0], objs, 1024, NULL);
    for (i = 0; i < n; i++) {
        const uint8_t *f = rte_pktmbuf_mtod((struct rte_mbuf *)objs[i], const uint8_t *);
        if (f[12] == 0x86 && f[13] == 0xDD) v6_seen++;
        else v4_seen++;
    }
    if (n && rte_ring_enqueue_burst(ab[0], objs, n, NULL) != n) abort();
}
static void ipv6_check(void) {
    char err[512];
    xfer x;
    use_v6 = 1;
    fill(12u);
    if (open_pair(0, err, sizeof err)) {
        bad("IPv6 frames: open and connect", "%s", err);
        close_pair();
        use_v6 = 0;
        return;
    }
    xfer_init(&x, NMSG);
    x.every = peek_ethertype;
    v6_seen = v4_seen = 0;
    if (run(&x, 30)) bad("IPv6 frames: 8 MiB bit-exact", "%s", x.err);
    else if (!verify(NMSG)) bad("IPv6 frames: 8 MiB bit-exact", "B's memory differs from A's buffers");
    else if (!v6_seen || v4_seen) bad("IPv6 frames: 8 MiB bit-exact", "%u IPv6 and %u other frames seen on the wire", v6_seen, v4_seen);
    else printf("ok - IPv6 frames: 8 MiB bit-exact (%u frames looked at, all IPv6)\n", v6_seen), passed++;
    close_pair();
    use_v6 = 0;
}

static void bench(unsigned mib) {
    int zc, r;
    char err[512];
    for (zc = 0; zc < 2; zc++)
        for (r = 0; r < 3; r++) {
            xfer x;
            mrc_dpdk_stats sa;
            unsigned n = mib * 16u;
            uint64_t t;
            if (open_pair(zc, err, sizeof err)) {
                printf("bench: %s\n", err);
                close_pair();
                return;
            }
            fill((unsigned)r);
            xfer_init(&x, n);
            if (run(&x, 120)) {
                printf("bench: %s\n", x.err);
                close_pair();
                return;
            }
            t = mrc_dpdk_now(A.d) - x.t_start;
            mrc_dpdk_stats_get(A.d, &sa);
            printf("bench: %-9s %u MiB in %.3f s: %.2f Gb/s (verified %s; tx copy %llu zc %llu)\n",
                   zc ? "zero-copy" : "copy", mib, (double)t / 1e9, (double)n * MSG * 8.0 / (double)t,
                   verify(n) ? "bit-exact" : "FAILED", (unsigned long long)sa.tx_copy, (unsigned long long)sa.tx_zc);
            close_pair();
        }
}

int main(int argc, char **argv) {
    const char *eal = "--no-huge --no-pci -m 256";
    char err[512];
    unsigned bench_mib = 0;
    int i, n;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--eal") && i + 1 < argc) eal = argv[++i];
        else if (!strcmp(argv[i], "--bench") && i + 1 < argc) bench_mib = (unsigned)atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: mrc_dpdk_test [--eal \"EAL ARGS\"] [--bench MIB]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    n = mrc_dpdk_eal_init(eal, err, sizeof err);
    if (n < 0) {
        printf("SKIP: the DPDK EAL cannot start here: %s\n", err);
        printf("0 passed, 0 failed\n");
        return 0;
    }
    src = (uint8_t *)malloc(REGION);
    dst = (uint8_t *)malloc(REGION);
    if (!src || !dst || mrc_frame_init(&tfr, NULL)) return 1;
    if (make_ports(err, sizeof err)) {
        printf("SKIP: cannot create net_ring ethdevs: %s\n", err);
        printf("0 passed, 0 failed\n");
        return 0;
    }
    ok("EAL up (--no-huge --no-pci), 16 net_ring ethdevs from 16 rte_rings");
    if (bench_mib) {
        bench(bench_mib);
        mrc_dpdk_eal_cleanup();
        return 0;
    }
    {
        char e2[512];
        int r = mrc_dpdk_eal_init("--bogus", e2, sizeof e2);
        check(r == n + 16, "a second EAL init only returns the port count", "it did something else");
    }
    clock_check();
    error_paths();
    suite(0);
    suite(1);
    raw_check();
    ipv6_check();
    free(src);
    free(dst);
    mrc_dpdk_eal_cleanup();
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
