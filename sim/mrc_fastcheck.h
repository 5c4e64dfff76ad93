/* sim/mrc_fastcheck.h - the per-call differential check of the core's fast paths (make fast-check)
 *
 * The core's common-case fast paths (MRC_FAST_PATH, docs/PROTOCOL.md P22) must give exactly what the general code
 * gives. Defining MRC_FASTCHECK and including this header right after mrc.h's implementation redirects
 * mrc_endpoint_recv and mrc_endpoint_poll_tx in the rest of the unit. Each call then runs twice from the same state:
 *
 *   1. snapshot the endpoint, every connection it holds and the transmit buffer; fill the caller's mrc_txinfo with a
 *      pattern (a member one run writes and the other leaves then differs);
 *   2. run with cfg.fast_path_off set (general code only) and keep the resulting bytes of all of them, the return
 *      value and the placements and trace calls it made (the caller's place and trace hooks are called here, once);
 *   3. restore the snapshot and run as configured (the fast paths where they apply): the place and trace hooks are
 *      replayed against step 2's record instead of being called again;
 *   4. every byte of the endpoint and of every connection, the return value, the transmit buffer and the mrc_txinfo
 *      must equal step 2's. The first difference aborts with the call number and the byte offset (and the member,
 *      for the members listed below).
 *
 * The endpoint's in-flight pool is copied and compared only up to its high-water mark pool_hw plus MRC_FC__POOL_SLACK
 * blocks (the core never touches blocks beyond pool_hw; a call that raises pool_hw by more aborts as a checker limit):
 * the full pool of a 1,024-QP simulator endpoint is 20 MB and copying it four times per call made the check 1,000x
 * slower than the run it checks.
 *
 * Build with -ftrivial-auto-var-init=zero so that struct padding copied from the stack is deterministic. A host
 * tool: it mallocs and uses stdio. Payload placed by memcpy into a registered region is written twice with the same
 * bytes (the scenarios verify the data end to end). */
#ifndef MRC_FASTCHECK_H
#define MRC_FASTCHECK_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mrc_fc__plc {
    uint32_t rkey, len, crc;
    uint64_t off;
    void *region_user;
    int rc;
} mrc_fc__plc;
typedef struct mrc_fc__trc {
    unsigned id;
    uint64_t a, b;
} mrc_fc__trc;

static struct {
    mrc_endpoint *snap, *gen;
    mrc_conn *csnap, *cgen; /* MRC_MAX_CONNS each */
    uint8_t *buf;
    size_t buf_cap;
    mrc_fc__plc plc[64];
    mrc_fc__trc trc[256];
    unsigned nplc, ntrc, iplc, itrc;
    mrc_place_fn place;
    void *place_ud;
    mrc_trace_fn trace;
    void *trace_ud;
    unsigned long long calls;
    const char *what;
    size_t eplen; /* bytes of the endpoint snapshotted and compared: mrc_fc__eplen at step 1 */
} mrc_fc__s;

#define MRC_FC__POOL_SLACK 8u
#if defined(__GNUC__)
#define MRC_FC__MAYBE_UNUSED __attribute__((unused)) /* a unit may call only one of the two */
#else
#define MRC_FC__MAYBE_UNUSED
#endif
static size_t mrc_fc__eplen(const mrc_endpoint *ep) {
    uint32_t hw = ep->pool_hw + MRC_FC__POOL_SLACK;
    if (hw > ep->pool_cap) hw = ep->pool_cap;
    return offsetof(mrc_endpoint, pool) + (size_t)hw * sizeof(ep->pool[0]);
}

static void mrc_fc__die(const char *fmt, unsigned long long a, unsigned long long b, unsigned long long c) {
    fprintf(stderr, "fast-check: call %llu (%s): ", mrc_fc__s.calls, mrc_fc__s.what);
    fprintf(stderr, fmt, a, b, c);
    fprintf(stderr, "\n");
    abort();
}

/* the member holding byte off of a struct, for the members the fast paths touch most */
#define MRC_FC__M(T, m) {#m, offsetof(T, m), sizeof(((T *)0)->m)}
typedef struct { const char *name; size_t off, size; } mrc_fc__member;
static const mrc_fc__member mrc_fc__conn_m[] = {
    MRC_FC__M(mrc_conn, state), MRC_FC__M(mrc_conn, deadline), MRC_FC__M(mrc_conn, heap_idx), MRC_FC__M(mrc_conn, sq),
    MRC_FC__M(mrc_conn, sq_done), MRC_FC__M(mrc_conn, sq_send), MRC_FC__M(mrc_conn, sq_sent),
    MRC_FC__M(mrc_conn, win_base), MRC_FC__M(mrc_conn, snd_una), MRC_FC__M(mrc_conn, snd_nxt), MRC_FC__M(mrc_conn, btab),
    MRC_FC__M(mrc_conn, txl), MRC_FC__M(mrc_conn, tx_count), MRC_FC__M(mrc_conn, rtxq),
    MRC_FC__M(mrc_conn, lat_acked_sent), MRC_FC__M(mrc_conn, rtt_min), MRC_FC__M(mrc_conn, srtt),
    MRC_FC__M(mrc_conn, rto_start), MRC_FC__M(mrc_conn, rto_deadline), MRC_FC__M(mrc_conn, tlp_base),
    MRC_FC__M(mrc_conn, tlp_deadline), MRC_FC__M(mrc_conn, cc_inflight), MRC_FC__M(mrc_conn, last_rcvd),
    MRC_FC__M(mrc_conn, tx_nominal), MRC_FC__M(mrc_conn, rcvd_credit), MRC_FC__M(mrc_conn, pkts_since_areq),
    MRC_FC__M(mrc_conn, port_ok), MRC_FC__M(mrc_conn, plane_rr), MRC_FC__M(mrc_conn, ring), MRC_FC__M(mrc_conn, evs),
    MRC_FC__M(mrc_conn, cack), MRC_FC__M(mrc_conn, rbits), MRC_FC__M(mrc_conn, rlast), MRC_FC__M(mrc_conn, ooo),
    MRC_FC__M(mrc_conn, msn_done), MRC_FC__M(mrc_conn, rcvd_bytes), MRC_FC__M(mrc_conn, rx_epoch),
    MRC_FC__M(mrc_conn, sack_pending), MRC_FC__M(mrc_conn, sack_deadline), MRC_FC__M(mrc_conn, pend_psn),
    MRC_FC__M(mrc_conn, ctlq), MRC_FC__M(mrc_conn, ctlq_tail), MRC_FC__M(mrc_conn, st),
};
static const mrc_fc__member mrc_fc__ep_m[] = {
    MRC_FC__M(mrc_endpoint, cfg), MRC_FC__M(mrc_endpoint, rng), MRC_FC__M(mrc_endpoint, now),
    MRC_FC__M(mrc_endpoint, heap), MRC_FC__M(mrc_endpoint, ctq), MRC_FC__M(mrc_endpoint, txq),
    MRC_FC__M(mrc_endpoint, ctq_head), MRC_FC__M(mrc_endpoint, evq), MRC_FC__M(mrc_endpoint, txq_head),
    MRC_FC__M(mrc_endpoint, ccx), MRC_FC__M(mrc_endpoint, epoch), MRC_FC__M(mrc_endpoint, st),
    MRC_FC__M(mrc_endpoint, pool_cap), MRC_FC__M(mrc_endpoint, free_head), MRC_FC__M(mrc_endpoint, pool),
};
static const char *mrc_fc__member_of(const mrc_fc__member *t, size_t n, size_t off) {
    size_t i;
    for (i = 0; i < n; i++)
        if (off >= t[i].off && off < t[i].off + t[i].size) return t[i].name;
    return "(a member not listed in sim/mrc_fastcheck.h)";
}
static void mrc_fc__cmp(const void *want, const void *got, size_t n, const char *obj, unsigned long long idx,
                        const mrc_fc__member *t, size_t nt) {
    const uint8_t *a = (const uint8_t *)want, *b = (const uint8_t *)got;
    size_t i;
    if (!memcmp(a, b, n)) return;
    for (i = 0; a[i] == b[i]; i++) {}
    fprintf(stderr, "fast-check: %s %llu differs at byte %zu, member %s: general 0x%02x, fast 0x%02x\n", obj, idx, i,
            t ? mrc_fc__member_of(t, nt, i) : "-", a[i], b[i]);
    mrc_fc__die("the fast path left different state (byte %llu of %llu; %llu)", (unsigned long long)i,
                (unsigned long long)n, 0);
}

static uint32_t mrc_fc__crc(const uint8_t *p, uint32_t n) { return p ? mrc_crc32(0, p, n) : 0xFFFFFFFFu; }
static int mrc_fc__place_rec(void *ud, uint32_t rkey, void *ru, uint64_t off, const uint8_t *src, uint32_t len) {
    int rc = mrc_fc__s.place(mrc_fc__s.place_ud, rkey, ru, off, src, len);
    (void)ud;
    if (mrc_fc__s.nplc < sizeof mrc_fc__s.plc / sizeof mrc_fc__s.plc[0]) {
        mrc_fc__plc *p = &mrc_fc__s.plc[mrc_fc__s.nplc++];
        p->rkey = rkey; p->len = len; p->crc = mrc_fc__crc(src, len); p->off = off; p->region_user = ru; p->rc = rc;
    } else {
        mrc_fc__die("more than %llu placements in one call%llu%llu", 64, 0, 0);
    }
    return rc;
}
static int mrc_fc__place_replay(void *ud, uint32_t rkey, void *ru, uint64_t off, const uint8_t *src, uint32_t len) {
    const mrc_fc__plc *p = &mrc_fc__s.plc[mrc_fc__s.iplc];
    (void)ud;
    if (mrc_fc__s.iplc >= mrc_fc__s.nplc) mrc_fc__die("the fast path placed more than the general code (%llu)%llu%llu",
                                                       mrc_fc__s.nplc, 0, 0);
    if (p->rkey != rkey || p->region_user != ru || p->off != off || p->len != len || p->crc != mrc_fc__crc(src, len))
        mrc_fc__die("placement %llu differs (offset %llu, length %llu)", mrc_fc__s.iplc, off, len);
    mrc_fc__s.iplc++;
    return p->rc;
}
static void mrc_fc__trace_rec(void *ud, unsigned id, uint64_t a, uint64_t b) {
    (void)ud;
    if (mrc_fc__s.ntrc < sizeof mrc_fc__s.trc / sizeof mrc_fc__s.trc[0]) {
        mrc_fc__trc *t = &mrc_fc__s.trc[mrc_fc__s.ntrc++];
        t->id = id; t->a = a; t->b = b;
    }
    if (mrc_fc__s.trace) mrc_fc__s.trace(mrc_fc__s.trace_ud, id, a, b);
}
static void mrc_fc__trace_replay(void *ud, unsigned id, uint64_t a, uint64_t b) {
    const mrc_fc__trc *t = &mrc_fc__s.trc[mrc_fc__s.itrc];
    (void)ud;
    if (mrc_fc__s.itrc >= sizeof mrc_fc__s.trc / sizeof mrc_fc__s.trc[0]) return; /* beyond the record: unchecked */
    if (mrc_fc__s.itrc >= mrc_fc__s.ntrc || t->id != id || t->a != a || t->b != b)
        mrc_fc__die("trace call %llu differs (id %llu, a %llu)", mrc_fc__s.itrc, id, a);
    mrc_fc__s.itrc++;
}

/* step 1, and the hooks of step 2 */
static void mrc_fc__begin(mrc_endpoint *ep, const char *what) {
    unsigned i;
    if (!mrc_fc__s.snap) {
        mrc_fc__s.snap = (mrc_endpoint *)malloc(sizeof(mrc_endpoint));
        mrc_fc__s.gen = (mrc_endpoint *)malloc(sizeof(mrc_endpoint));
        mrc_fc__s.csnap = (mrc_conn *)malloc(sizeof(mrc_conn) * MRC_MAX_CONNS);
        mrc_fc__s.cgen = (mrc_conn *)malloc(sizeof(mrc_conn) * MRC_MAX_CONNS);
        if (!mrc_fc__s.snap || !mrc_fc__s.gen || !mrc_fc__s.csnap || !mrc_fc__s.cgen) {
            fprintf(stderr, "fast-check: out of memory\n");
            abort();
        }
    }
    mrc_fc__s.calls++;
    mrc_fc__s.what = what;
    mrc_fc__s.eplen = mrc_fc__eplen(ep);
    memcpy(mrc_fc__s.snap, ep, mrc_fc__s.eplen);
    for (i = 0; i < MRC_MAX_CONNS; i++)
        if (ep->conns[i]) memcpy(&mrc_fc__s.csnap[i], ep->conns[i], sizeof(mrc_conn));
    mrc_fc__s.place = ep->cfg.place;
    mrc_fc__s.place_ud = ep->cfg.place_ud;
    mrc_fc__s.trace = ep->cfg.trace;
    mrc_fc__s.trace_ud = ep->cfg.trace_ud;
    mrc_fc__s.nplc = mrc_fc__s.ntrc = mrc_fc__s.iplc = mrc_fc__s.itrc = 0;
    ep->cfg.fast_path_off = true;
    if (ep->cfg.place) ep->cfg.place = mrc_fc__place_rec;
    ep->cfg.trace = mrc_fc__trace_rec;
}
/* the end of step 2, step 3's restore and its hooks */
static void mrc_fc__middle(mrc_endpoint *ep) {
    unsigned i;
    ep->cfg.fast_path_off = mrc_fc__s.snap->cfg.fast_path_off;
    ep->cfg.place = mrc_fc__s.place;
    ep->cfg.trace = mrc_fc__s.trace;
    if (ep->pool_hw > mrc_fc__s.snap->pool_hw + MRC_FC__POOL_SLACK)
        mrc_fc__die("one call used %llu new pool blocks: raise MRC_FC__POOL_SLACK (%llu)%llu",
                    ep->pool_hw - mrc_fc__s.snap->pool_hw, MRC_FC__POOL_SLACK, 0);
    memcpy(mrc_fc__s.gen, ep, mrc_fc__s.eplen);
    for (i = 0; i < MRC_MAX_CONNS; i++)
        if (ep->conns[i]) {
            memcpy(&mrc_fc__s.cgen[i], ep->conns[i], sizeof(mrc_conn));
            memcpy(ep->conns[i], &mrc_fc__s.csnap[i], sizeof(mrc_conn));
        }
    memcpy(ep, mrc_fc__s.snap, mrc_fc__s.eplen);
    if (ep->cfg.place) ep->cfg.place = mrc_fc__place_replay;
    ep->cfg.trace = mrc_fc__trace_replay;
}
/* step 4 */
static void mrc_fc__end(mrc_endpoint *ep, int rc_gen, int rc) {
    unsigned i;
    ep->cfg.place = mrc_fc__s.place;
    ep->cfg.trace = mrc_fc__s.trace;
    if (rc != rc_gen) mrc_fc__die("returned %llu, the general code %llu%llu", (unsigned long long)(long long)rc,
                                  (unsigned long long)(long long)rc_gen, 0);
    if (mrc_fc__s.iplc != mrc_fc__s.nplc)
        mrc_fc__die("the fast path placed %llu times, the general code %llu%llu", mrc_fc__s.iplc, mrc_fc__s.nplc, 0);
    if (mrc_fc__s.itrc != mrc_fc__s.ntrc && mrc_fc__s.ntrc < sizeof mrc_fc__s.trc / sizeof mrc_fc__s.trc[0])
        mrc_fc__die("the fast path made %llu trace calls, the general code %llu%llu", mrc_fc__s.itrc, mrc_fc__s.ntrc, 0);
    if (ep->pool_hw > mrc_fc__s.snap->pool_hw + MRC_FC__POOL_SLACK)
        mrc_fc__die("one call used %llu new pool blocks: raise MRC_FC__POOL_SLACK (%llu)%llu",
                    ep->pool_hw - mrc_fc__s.snap->pool_hw, MRC_FC__POOL_SLACK, 0);
    mrc_fc__cmp(mrc_fc__s.gen, ep, mrc_fc__s.eplen, "endpoint", 0, mrc_fc__ep_m, sizeof mrc_fc__ep_m / sizeof mrc_fc__ep_m[0]);
    for (i = 0; i < MRC_MAX_CONNS; i++)
        if (ep->conns[i])
            mrc_fc__cmp(&mrc_fc__s.cgen[i], ep->conns[i], sizeof(mrc_conn), "conn slot", i, mrc_fc__conn_m,
                        sizeof mrc_fc__conn_m / sizeof mrc_fc__conn_m[0]);
}

MRC_FC__MAYBE_UNUSED static int mrc_fc_recv(mrc_endpoint *ep, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    int rc_gen, rc;
    if (!ep) return mrc_endpoint_recv(ep, pkt, len, ri, now);
    mrc_fc__begin(ep, "mrc_endpoint_recv");
    rc_gen = mrc_endpoint_recv(ep, pkt, len, ri, now);
    mrc_fc__middle(ep);
    rc = mrc_endpoint_recv(ep, pkt, len, ri, now);
    mrc_fc__end(ep, rc_gen, rc);
    return rc;
}

MRC_FC__MAYBE_UNUSED static int mrc_fc_poll_tx(mrc_endpoint *ep, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti,
                          mrc_time now) {
    mrc_txinfo ti_gen;
    int n_gen, n;
    if (!ep || !buf || !ti) return mrc_endpoint_poll_tx(ep, buf, cap, flags, ti, now);
    if (mrc_fc__s.buf_cap < 2 * cap) {
        free(mrc_fc__s.buf);
        mrc_fc__s.buf = (uint8_t *)malloc(2 * cap);
        mrc_fc__s.buf_cap = mrc_fc__s.buf ? 2 * cap : 0;
        if (!mrc_fc__s.buf) {
            fprintf(stderr, "fast-check: out of memory\n");
            abort();
        }
    }
    memcpy(mrc_fc__s.buf, buf, cap);
    memset(ti, 0xA5, sizeof *ti); /* both runs start from the same mrc_txinfo, a pattern: a member one run writes and
                                   * the other leaves differs (the caller's may be uninitialised) */
    mrc_fc__begin(ep, "mrc_endpoint_poll_tx");
    n_gen = mrc_endpoint_poll_tx(ep, buf, cap, flags, ti, now);
    mrc_fc__middle(ep);
    memcpy(mrc_fc__s.buf + cap, buf, cap);
    memcpy(buf, mrc_fc__s.buf, cap);
    ti_gen = *ti;
    memset(ti, 0xA5, sizeof *ti);
    n = mrc_endpoint_poll_tx(ep, buf, cap, flags, ti, now);
    mrc_fc__end(ep, n_gen, n);
    mrc_fc__cmp(mrc_fc__s.buf + cap, buf, cap, "transmit buffer", 0, (const mrc_fc__member *)0, 0);
    mrc_fc__cmp(&ti_gen, ti, sizeof *ti, "mrc_txinfo", 0, (const mrc_fc__member *)0, 0);
    return n;
}

#define mrc_endpoint_recv mrc_fc_recv
#define mrc_endpoint_poll_tx mrc_fc_poll_tx

#endif /* MRC_FASTCHECK_H */
