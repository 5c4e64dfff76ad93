/* fuzz_common.h - shared by the fuzz harnesses: fuzzing capacities, the implementation unit of mrc.h, a byte
 * reader over the fuzzer input, a failure macro, and packet builders that use only the public encoders.
 *
 * Every harness is one C file that includes this header once and defines LLVMFuzzerTestOneInput. The same file
 * links with libFuzzer (-fsanitize=fuzzer), with AFL++'s driver (afl-clang-fast -fsanitize=fuzzer) and with
 * replay_main.c (plain main over files). Harnesses keep no state between inputs except caller-owned objects they
 * reset at the start of every input; all time is virtual and comes from the input. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

/* Small capacities (a firmware-sized build): rings wrap, queues fill and windows lap within a short input, and an
 * endpoint resets in microseconds. Override any of them with -D (fuzz.mk: FUZZ_CAPS). */
#ifndef MRC_MAX_PORTS
#define MRC_MAX_PORTS 4
#endif
#ifndef MRC_MAX_CONNS
#define MRC_MAX_CONNS 5
#endif
#ifndef MRC_MAX_EVS
#define MRC_MAX_EVS 16
#endif
#ifndef MRC_MAX_MRS
#define MRC_MAX_MRS 4
#endif
#ifndef MRC_MAX_MPR_UNITS
#define MRC_MAX_MPR_UNITS 2
#endif
#ifndef MRC_MAX_INFLIGHT
#define MRC_MAX_INFLIGHT 128
#endif
#ifndef MRC_MAX_WIMM
#define MRC_MAX_WIMM 8
#endif
#ifndef MRC_MAX_SQ
#define MRC_MAX_SQ 8
#endif
#ifndef MRC_MAX_RQ
#define MRC_MAX_RQ 8
#endif
#ifndef MRC_CTLQ_LEN
#define MRC_CTLQ_LEN 4
#endif

#ifndef FUZZ_NO_IMPLEMENTATION
#define MRC_IMPLEMENTATION
#endif
/* the harnesses explore every configuration the core takes, the research knobs (mrc_config.research) too: at their
 * defaults the core behaves exactly as without MRC_RESEARCH */
#ifndef MRC_RESEARCH
#define MRC_RESEARCH
#endif
#include "mrc.h" /* -I: the directory holding the core (fuzz.mk: FUZZ_CORE_DIR) */
#if defined(MRC_FASTCHECK) && !defined(FUZZ_NO_IMPLEMENTATION)
#include "../tests/fixtures/mrc_fastcheck.h" /* make fuzz-fast-check: general code vs fast paths, per call */
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Oracle code that loops over state (invariants, guard bytes, counters) is left out of the coverage
 * instrumentation: its comparisons are not input-dependent paths worth steering by, and instrumenting them (trace-cmp
 * on every compare) costs several times the harness's useful work. Sanitizers still apply. */
#if defined(__clang__) && __clang_major__ >= 13
#define FZ_NOCOV __attribute__((no_sanitize("coverage")))
#else
#define FZ_NOCOV
#endif

/* ---- failure: print where and why, then abort (a crash for every engine and for the replayer) ---------------- */
#define FZ_CHECK(cond, ...)                                                              \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: oracle violated: %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
            abort();                                                                     \
        }                                                                                \
    } while (0)

/* ---- byte reader: past the end every read yields zeros ------------------------------------------------------- */
typedef struct fz_in {
    const uint8_t *p;
    size_t n, i;
} fz_in;

/* EV policy scopes drawn from bits: none, a profile's EVs, every EV (x2); none, hashed EVs, every EV */
static const uint8_t fz_scope_npa[4] = {MRC_EV_SCOPE_NONE, MRC_EV_SCOPE_PROFILE, MRC_EV_SCOPE_ALL, MRC_EV_SCOPE_ALL};
static const uint8_t fz_scope_nha[3] = {MRC_EV_SCOPE_NONE, MRC_EV_SCOPE_HASHED, MRC_EV_SCOPE_ALL};

static inline void fz_init(fz_in *in, const uint8_t *p, size_t n) {
    in->p = p;
    in->n = n;
    in->i = 0;
}
static inline size_t fz_left(const fz_in *in) { return in->n - in->i; }
static inline uint8_t fz_u8(fz_in *in) { return in->i < in->n ? in->p[in->i++] : 0u; }
static inline uint16_t fz_u16(fz_in *in) {
    uint16_t v = fz_u8(in);
    return (uint16_t)((v << 8) | fz_u8(in));
}
static inline uint32_t fz_u24(fz_in *in) {
    uint32_t v = fz_u16(in);
    return (v << 8) | fz_u8(in);
}
static inline uint32_t fz_u32(fz_in *in) {
    uint32_t v = fz_u16(in);
    return (v << 16) | fz_u16(in);
}
static inline uint64_t fz_u64(fz_in *in) {
    uint64_t v = fz_u32(in);
    return (v << 32) | fz_u32(in);
}
/* up to *n bytes from the input (fewer at its end); *n is set to the count taken */
static inline const uint8_t *fz_bytes(fz_in *in, size_t *n) {
    const uint8_t *p = in->p + in->i;
    if (*n > fz_left(in)) *n = fz_left(in);
    in->i += *n;
    return p;
}

/* ---- naive 24-bit serial arithmetic (reference for the oracles, independent of mrc_psn_*) ------------------- */
static inline int32_t fz_psn_diff(uint32_t a, uint32_t b) {
    int32_t d = (int32_t)((a - b) & 0xFFFFFFu);
    return d >= 0x800000 ? d - 0x1000000 : d;
}
static inline uint32_t fz_psn_add(uint32_t a, int32_t n) { return (uint32_t)((int64_t)a + n) & 0xFFFFFFu; }

/* ---- packet builders (public encoders only) ------------------------------------------------------------------- */
typedef struct fz_data {
    uint8_t op, se, a, rtx, ts_on, tver;
    int pad;            /* -1: the pad the payload needs */
    uint16_t pkey, msn, rqmsn, ts;
    uint32_t qp, psn, rkey, dma_len, imm;
    uint64_t va;
    const uint8_t *pl;
    uint32_t plen;
} fz_data;

static inline int fz_op_is_data(unsigned op) { return op >= MRC_OP_WRITE_FIRST && op <= MRC_OP_WRITE_ONLY_IMM; }
static inline int fz_op_has_imm(unsigned op) { return op == MRC_OP_WRITE_LAST_IMM || op == MRC_OP_WRITE_ONLY_IMM; }

/* A data packet; returns its length, 0 when cap is too small. */
static inline size_t fz_build_data(uint8_t *buf, size_t cap, const mrc_wire_opts *o, const fz_data *d) {
    mrc_bth b;
    mrc_meth m;
    mrc_tseth t;
    mrc_reth re;
    unsigned pad = d->pad < 0 ? (4u - (d->plen & 3u)) & 3u : (unsigned)d->pad & 3u;
    size_t n = 0;
    int r;
    if (cap < (size_t)MRC_HDR_MAX + d->plen + pad) return 0;
    memset(&b, 0, sizeof b);
    b.opcode = d->op;
    b.se = d->se & 1u;
    b.pad = (uint8_t)pad;
    b.tver = d->tver & 15u;
    b.pkey = d->pkey;
    b.dest_qp = d->qp & 0xFFFFFFu;
    b.a = d->a & 1u;
    b.rtx = d->rtx & 1u;
    b.ts = d->ts_on & 1u;
    b.psn = d->psn & 0xFFFFFFu;
    m.rqmsn = d->rqmsn;
    m.msn = d->msn;
    t.tx_timestamp = d->ts;
    t.tsr = 0;
    t.ftype = 1;
    re.va = d->va;
    re.rkey = d->rkey;
    re.dma_len = d->dma_len;
    r = mrc_bth_encode(buf + n, cap - n, o, &b);
    if (r < 0) return 0;
    n += (size_t)r;
    n += (size_t)mrc_meth_encode(buf + n, cap - n, &m);
    if (b.ts) n += (size_t)mrc_tseth_encode(buf + n, cap - n, &t);
    n += (size_t)mrc_reth_encode(buf + n, cap - n, &re);
    if (fz_op_has_imm(d->op)) n += (size_t)mrc_immdt_encode(buf + n, cap - n, d->imm);
    if (d->plen) memcpy(buf + n, d->pl, d->plen);
    n += d->plen;
    memset(buf + n, 0, pad);
    return n + pad;
}

static inline size_t fz_build_bth(uint8_t *buf, const mrc_wire_opts *o, unsigned op, uint32_t qp, uint32_t psn,
                                  uint16_t pkey) {
    mrc_bth b;
    memset(&b, 0, sizeof b);
    b.opcode = (uint8_t)op;
    b.pkey = pkey;
    b.dest_qp = qp & 0xFFFFFFu;
    b.psn = psn & 0xFFFFFFu;
    return mrc_bth_encode(buf, MRC_HDR_MAX, o, &b) > 0 ? (size_t)MRC_BTH_LEN : 0u;
}

/* SACK with every field given (fields are masked to their widths so the encoder never refuses) */
static inline size_t fz_build_sack(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint16_t pkey, uint32_t bth_psn,
                                   const mrc_seth *s_in, const mrc_cc_state *cs_in) {
    mrc_seth s = *s_in;
    mrc_cc_state cs = *cs_in;
    size_t n = fz_build_bth(buf, o, MRC_OP_SACK, qp, bth_psn, pkey);
    s.type &= 15u;
    s.nxt &= 31u;
    s.m &= 3u;
    s.pr &= 1u;
    s.cack_psn &= 0xFFFFFFu;
    s.cc_type &= 15u;
    s.cc_fl &= 15u;
    cs.ooo_count &= 0x7FFFu;
    cs.r_c &= 1u;
    cs.rcv_cwnd_pen &= 0x7Fu;
    cs.rcvd_bytes &= 0xFFFFFFu;
    n += (size_t)mrc_seth_encode(buf + n, MRC_HDR_MAX, o, &s);
    n += (size_t)mrc_cc_state_encode(buf + n, MRC_HDR_MAX, &cs);
    return n;
}

static inline size_t fz_build_nack(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint16_t pkey, uint32_t bth_psn,
                                   uint32_t nack_psn, uint8_t reason, uint16_t ts) {
    mrc_neth nk;
    size_t n = fz_build_bth(buf, o, MRC_OP_NACK, qp, bth_psn, pkey);
    memset(&nk, 0, sizeof nk);
    nk.nack_reason = reason;
    nk.nack_psn = nack_psn & 0xFFFFFFu;
    nk.tx_timestamp = ts;
    n += (size_t)mrc_neth_encode(buf + n, MRC_HDR_MAX, &nk);
    return n;
}

static inline size_t fz_build_aeth(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint16_t pkey, uint32_t psn,
                                   uint8_t syndrome, uint32_t msn) {
    mrc_aeth a;
    size_t n = fz_build_bth(buf, o, MRC_OP_ACK, qp, psn, pkey);
    a.syndrome = syndrome;
    a.msn = msn & 0xFFFFFFu;
    n += (size_t)mrc_aeth_encode(buf + n, MRC_HDR_MAX, &a);
    return n;
}

static inline size_t fz_build_probe(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint16_t pkey, uint32_t psn,
                                    uint16_t id, uint16_t ts) {
    mrc_peth p;
    size_t n = fz_build_bth(buf, o, MRC_OP_PROBE_REQ, qp, psn, pkey);
    memset(&p, 0, sizeof p);
    p.probe_id = id;
    p.tx_timestamp = ts;
    p.ftype = 1;
    n += (size_t)mrc_peth_encode(buf + n, MRC_HDR_MAX, &p);
    return n;
}

/* ENDPOINT_REQUEST (ERTH) or ENDPOINT_RESPONSE (EETH) */
static inline size_t fz_build_epop(uint8_t *buf, const mrc_wire_opts *o, unsigned op, uint32_t qp, uint8_t epop,
                                   uint32_t mask) {
    size_t n = fz_build_bth(buf, o, op, qp, 0, 0xFFFF);
    if (op == MRC_OP_EP_REQ) {
        mrc_erth e;
        memset(&e, 0, sizeof e);
        e.op = epop & 3u;
        e.port_status_mask = mask;
        n += (size_t)mrc_erth_encode(buf + n, MRC_HDR_MAX, &e);
    } else {
        mrc_eeth e;
        memset(&e, 0, sizeof e);
        e.op = epop & 3u;
        memset(buf + n, 0, MRC_EETH_LEN);
        n += (size_t)mrc_eeth_encode(buf + n, MRC_HDR_MAX, o, &e);
    }
    return n;
}

/* ---- counters --------------------------------------------------------------------------------------------------- */
/* Endpoint counters never decrease; returns the drop reason that moved (-1: none, -2: more than one or by more
 * than one). */
FZ_NOCOV static inline int fz_stats_step(const mrc_endpoint_stats *a, const mrc_endpoint_stats *b) {
    unsigned r;
    int moved = -1;
    uint64_t sum_a = 0, sum_b = 0;
    FZ_CHECK(b->rx_pkts >= a->rx_pkts && b->tx_pkts >= a->tx_pkts && b->rx_bytes >= a->rx_bytes &&
                 b->tx_bytes >= a->tx_bytes && b->rx_drops >= a->rx_drops && b->ctlq_overflow >= a->ctlq_overflow,
             "an endpoint counter decreased");
    for (r = 0; r < MRC_DROP_REASONS; r++) {
        FZ_CHECK(b->drop[r] >= a->drop[r], "drop[%s] decreased", mrc_drop_name(r));
        sum_a += a->drop[r];
        sum_b += b->drop[r];
        if (b->drop[r] != a->drop[r]) moved = (moved == -1 && b->drop[r] - a->drop[r] == 1) ? (int)r : -2;
    }
    FZ_CHECK(sum_a == a->rx_drops && sum_b == b->rx_drops, "rx_drops %llu != sum of drop[] %llu",
             (unsigned long long)b->rx_drops, (unsigned long long)sum_b);
    return moved;
}

/* ---- a QP in INIT to RTS with fixed, valid attributes (the harnesses that do not fuzz them) ----------------------- */
static inline void fz_conn_rts(mrc_conn *c, uint32_t dest_qpn, uint32_t mtu, uint32_t peer, uint8_t timeout,
                               mrc_time now) {
    mrc_conn_attr a;
    int rc;
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_RTR;
    a.dest_qpn = dest_qpn;
    a.path_mtu = mtu;
    a.mpr_dest = 1;
    a.max_wimm_dest = 1;
    a.peer = peer;
    rc = mrc_conn_modify(c, &a,
                         MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU | MRC_ATTR_MPR_DEST |
                             MRC_ATTR_MAX_WIMM_DEST | MRC_ATTR_PEER,
                         now);
    FZ_CHECK(rc == MRC_OK, "RTR %d", rc);
    a.state = MRC_QPS_RTS;
    a.mpr = 1;
    a.max_wimm = 1;
    a.retry_linear = 7;
    a.retry_exp = 25;
    a.timeout = timeout;
    rc = mrc_conn_modify(c, &a,
                         MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY |
                             MRC_ATTR_TIMEOUT,
                         now);
    FZ_CHECK(rc == MRC_OK, "RTS %d", rc);
}

/* ---- known core bugs awaiting a fix (fuzz/regress-pending/) ------------------------------------------------------
 * A harness must not stop on a bug that is already reported, or a campaign finds nothing else. While a fix is
 * pending, a probe fz_bug_<name>() here detects the bug in the core at run time and excuses only the cases it
 * explains, so the full oracle returns by itself once the core is fixed; -DFZ_STRICT (all) or -DFZ_STRICT_<NAME> (one)
 * turns a workaround off (make fuzz-pending). None is pending now: the five found so far are fixed (fuzz/README.md). */

/* ---- congestion contexts: accounting, the READY list, the window's bounds ----------------------------------------- */
FZ_NOCOV static inline void fz_cc_invariants(const mrc_endpoint *ep) {
#ifndef FUZZ_NO_INTERNALS
    unsigned i, x;
    for (x = 0; x < MRC_MAX_CCX; x++) {
        const mrc__ccx *cx = &ep->ccx[x];
        unsigned refs = 0, nready = 0, walked = 0;
        uint64_t infl = 0;
        uint16_t s, last = MRC__EV_NONE;
        for (i = 0; i < MRC_MAX_CONNS; i++) {
            const mrc_conn *c = ep->conns[i];
            if (!c || c->ccx != x) continue;
            refs++;
            infl += c->cc_inflight;
            nready += c->in_ready;
        }
        if (!cx->used) {
            FZ_CHECK(refs == 0, "%u QPs on unused congestion context %u", refs, x);
            continue;
        }
        FZ_CHECK(cx->refs == refs && refs > 0, "context %u: refs %u, %u QPs on it", x, cx->refs, refs);
        FZ_CHECK(cx->inflight == infl, "context %u: inflight %llu, its QPs' sum %llu", x,
                 (unsigned long long)cx->inflight, (unsigned long long)infl);
        for (s = cx->ready_head; s != MRC__EV_NONE; s = ep->conns[s]->ready_next) {
            FZ_CHECK(s < MRC_MAX_CONNS && ep->conns[s] && ep->conns[s]->ccx == x && ep->conns[s]->in_ready,
                     "context %u: READY entry %u is not a READY QP of it", x, s);
            FZ_CHECK(++walked <= refs, "context %u: READY list longer than its QPs (a cycle)", x);
            last = s;
        }
        FZ_CHECK(walked == nready && last == cx->ready_tail, "context %u: READY list %u long (tail %u), %u QPs READY "
                                                              "(tail %u)",
                 x, walked, last, nready, cx->ready_tail);
        FZ_CHECK(cx->algo <= MRC_CC_ALGO_FIXED, "context %u: algorithm %u", x, cx->algo);
        if (cx->algo == MRC_CC_ALGO_NSCC) {
            FZ_CHECK(cx->p.min_cwnd > 0 && cx->p.min_cwnd <= cx->p.maxwnd, "context %u: min_cwnd %u maxwnd %llu", x,
                     cx->p.min_cwnd, (unsigned long long)cx->p.maxwnd);
            /* P24: the floor is one packet, or below it with sub-packet windows (then the context may pace) */
            FZ_CHECK(cx->p.floor > 0 && cx->p.floor <= cx->p.min_cwnd && (cx->p.subpkt || cx->p.floor == cx->p.min_cwnd) &&
                         (cx->p.subpkt || !cx->pace_next),
                     "context %u: floor %u, min_cwnd %u, subpkt %u, pace_next %llu", x, cx->p.floor, cx->p.min_cwnd,
                     cx->p.subpkt, (unsigned long long)cx->pace_next);
            FZ_CHECK(cx->cwnd >= cx->p.floor && cx->cwnd <= cx->p.maxwnd, "context %u: cwnd %llu outside [%u, %llu]",
                     x, (unsigned long long)cx->cwnd, cx->p.floor, (unsigned long long)cx->p.maxwnd);
        } else if (cx->algo == MRC_CC_ALGO_NONE) {
            FZ_CHECK(cx->cwnd == UINT64_MAX && cx->ready_head == MRC__EV_NONE, "context %u without CC: cwnd %llu", x,
                     (unsigned long long)cx->cwnd);
        }
    }
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        const mrc_conn *c = ep->conns[i];
        if (!c) continue;
        FZ_CHECK(!c->in_ready || c->ccx != MRC__EV_NONE, "QP %u READY without a context", i);
        FZ_CHECK(c->ccx == MRC__EV_NONE || c->state == MRC_QPS_RTS, "QP %u in state %u holds context %u", i, c->state,
                 c->ccx);
        FZ_CHECK(c->ccx != MRC__EV_NONE || c->cc_inflight == 0, "QP %u: %llu bytes in flight without a context", i,
                 (unsigned long long)c->cc_inflight);
    }
#else
    (void)ep;
#endif
}

/* ---- invariants (internal state; off with -DFUZZ_NO_INTERNALS) --------------------------------------------------- */
FZ_NOCOV static inline void fz_invariants(const mrc_endpoint *ep) {
#ifndef FUZZ_NO_INTERNALS
    unsigned i, ntx = 0, nev = 0;
    FZ_CHECK(ep->heap_len <= MRC_MAX_CONNS && ep->txq_len <= MRC_MAX_CONNS && ep->evq_len <= MRC_MAX_CONNS,
             "endpoint queue lengths");
    for (i = 0; i < ep->heap_len; i++) {
        const mrc_conn *c = ep->conns[ep->heap[i]];
        FZ_CHECK(c && c->heap_idx == i, "heap entry %u does not point back", i);
        FZ_CHECK(c->deadline != MRC_TIME_NEVER, "a conn with no deadline is in the heap");
        if (i) FZ_CHECK(ep->conns[ep->heap[(i - 1) / 2]]->deadline <= c->deadline, "heap order at %u", i);
    }
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        const mrc_conn *c = ep->conns[i];
        if (!c) continue;
        ntx += c->in_txq;
        nev += c->in_evq;
        FZ_CHECK(c->state <= MRC_QPS_ERR, "state %u", c->state);
        {
            int rc = mrc_conn_check(c);
            FZ_CHECK(rc == 0, "mrc_conn_check of QP slot %u (state %u): rule %d", i, c->state, rc);
        }
        FZ_CHECK(c->sq_tail - c->sq_head <= MRC_MAX_SQ && c->sq_done - c->sq_head <= c->sq_send - c->sq_head &&
                     c->sq_send - c->sq_head <= c->sq_tail - c->sq_head,
                 "send queue order head %u done %u send %u tail %u", c->sq_head, c->sq_done, c->sq_send, c->sq_tail);
        FZ_CHECK(c->rq_tail - c->rq_head <= MRC_MAX_RQ && c->rq_done - c->rq_head <= c->rq_tail - c->rq_head,
                 "receive queue order");
        FZ_CHECK(c->ctlq_tail - c->ctlq_head <= MRC_CTLQ_LEN, "control queue overfull");
        FZ_CHECK(c->rtxq.n <= MRC_MAX_INFLIGHT, "retransmit queue overfull");
        FZ_CHECK(c->rtxq.n + c->txl.n <= MRC_MAX_INFLIGHT, "record lists overfull");
        FZ_CHECK(c->deadline <= MRC__MIN(MRC__MIN(c->rto_deadline, c->tlp_deadline), c->sack_deadline),
                 "conn deadline is later than one of its timers"); /* <=: later cores add timers of their own */
        FZ_CHECK((c->deadline == MRC_TIME_NEVER) == (c->heap_idx == 0xFFFFu), "heap membership");
        if (c->state == MRC_QPS_RTS) {
            FZ_CHECK(mrc_psn_diff(c->snd_una, c->win_base) >= 0 && mrc_psn_diff(c->snd_nxt, c->snd_una) >= 0,
                     "requester order win_base %#x snd_una %#x snd_nxt %#x", c->win_base, c->snd_una, c->snd_nxt);
            FZ_CHECK((uint32_t)mrc_psn_diff(c->snd_nxt, c->win_base) <= c->win_psns, "send window overrun");
            FZ_CHECK(c->wimm_out <= c->attr.max_wimm, "wimm_out %u > max_wimm %u", c->wimm_out, c->attr.max_wimm);
        }
        if (c->state == MRC_QPS_RTR || c->state == MRC_QPS_RTS)
            FZ_CHECK(c->ooo <= c->rsp_win + 1u, "responder ooo %u beyond the window %u", c->ooo, c->rsp_win);
    }
    FZ_CHECK(ntx == ep->txq_len && nev == ep->evq_len, "in_txq/in_evq flags vs queue lengths");
    { /* the in-flight pool: the blocks the QPs hold (live or retained) are the ones not free, the FIFO of retained
       * blocks holds exactly the retained ones (free + live + retained = total), and the wait list is its flags */
        uint32_t held = 0, nret = 0, nfifo = 0, npq = 0, npq_rts = 0, t, b, prev = 0;
        for (i = 0; i < MRC_MAX_CONNS; i++) {
            const mrc_conn *c = ep->conns[i];
            if (!c) continue;
            npq += c->in_poolq;
            npq_rts += c->in_poolq && c->state == MRC_QPS_RTS;
            for (t = 0; t < MRC__BTAB_LEN; t++) {
                if (!c->btab[t]) continue;
                held++;
                nret += mrc__pool_ret(ep, c->btab[t] - 1u);
            }
        }
        for (b = ep->ret_head; b && nfifo <= ep->pool_cap; b = ep->pool[b - 1u].next, nfifo++) {
            FZ_CHECK(ep->pool[b - 1u].prev == prev, "retained FIFO links");
            FZ_CHECK(ep->conns[ep->pool[b - 1u].owner] &&
                         ep->conns[ep->pool[b - 1u].owner]->btab[MRC__PBLK_TAB(&ep->pool[b - 1u])] == b,
                     "a retained block is not mapped by its owner");
            prev = b;
        }
        FZ_CHECK(prev == ep->ret_tail, "retained FIFO tail");
        FZ_CHECK(ep->pool_nfree <= ep->pool_cap && held == ep->pool_cap - ep->pool_nfree,
                 "pool: %u blocks held by QPs, %u of %u free", held, ep->pool_nfree, ep->pool_cap);
        FZ_CHECK(nret == ep->pool_nret && nfifo == ep->pool_nret, "pool: %u retained in tables, %u in the FIFO, %u counted",
                 nret, nfifo, ep->pool_nret);
        FZ_CHECK(npq == ep->poolq_len, "in_poolq flags vs the pool wait list");
        FZ_CHECK(!npq_rts || !(ep->pool_nfree | ep->pool_nret), "QPs wait for a block while one is free or retained");
    }
    fz_cc_invariants(ep);
#else
    (void)ep;
#endif
}

#endif /* FUZZ_COMMON_H */
