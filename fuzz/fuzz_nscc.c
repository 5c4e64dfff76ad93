/* fuzz_nscc.c - the congestion-control arithmetic (NSCC, the fixed window, none), its congestion contexts and the
 * READY list, driven through the implementation's private functions (this file includes the implementation, so the
 * MRC__PRIVATE statics are callable) on real endpoints and QPs set up through the public API.
 *
 * Input: [config][NSCC profile][QPs][ops...]. The endpoint's line rate, base RTT, trimming and algorithm, and a CC
 * profile whose every mrc_nscc_cfg field (floats from raw bits included) comes from the input; 1..4 QPs, each to peer 0
 * or 1 on profile 0 or the fuzzed one, so some share a congestion context, with or without the QP hint
 * num_remote_recv_peers (P31: a new context starts at maxwnd / n, at least one packet). Then up to FZ_MAX_OPS records,
 * each an event the requester feeds its context: a packet sent (or the QP blocked READY when the window is shut, as the
 * scheduler does), a packet acknowledged, a packet judged lost (SACK hole, RTO, probe, resource NACK, trim, last-hop
 * trim), a SACK sample (rcvd_bytes delta, RTT or none, CE echo, receiver penalty, r_c: the values a peer can put on the
 * wire), time jumps, a QP leaving its context (ERR) and joining again, and profile reconfiguration. The sample domain
 * is what the public API can produce (newly < 2^31 in 256-byte units, penalty 0..127, packet sizes of the QP's MTU), so
 * every violation is reachable from outside. Oracles, after every call:
 *   - no undefined behaviour (UBSan: signed overflow, shifts, float-to-integer conversions of the float config);
 *   - a profile configuration is rejected with MRC_ERR_INVAL exactly when documented (qa_gate > 16, max_md_jump_q16
 *     > 65536, no fixed window) and then changes nothing;
 *   - the parameters a context derives (BDP, a, fi, eta, fi_scale, alpha, target, maxwnd, qa_threshold, adjust
 *     thresholds) equal the formulas of docs/PROTOCOL.md 8.4 computed exactly and saturated at their type, as the core
 *     intends: no silent wrap-around;
 *   - cwnd always in [floor, maxwnd] (NSCC; floor = min_cwnd, or below it with sub-packet windows, P24), constant for the fixed window and none; a send, an
 *     acknowledgement, a READY block and a resource NACK never move it; a SACK without CE and penalty never lowers it
 *     unless quick adapt fired, maxwnd fell or a last-hop trim's mark holds (P30: exactly cc_lh_mark_rtts base RTTs
 *     from the last TRIM_LH, set by nothing else); a multiplicative decrease happens at most once per base RTT (and
 *     keeps at least md_floor of the window);
 *   - bytes in flight: every QP's count equals the model's (what it sent minus what left), the context's equals the
 *     sum over its QPs (never negative, never wrapped);
 *   - READY: the list is the model's FIFO minus a prefix (oldest woken first), at most 4 woken per event, and after
 *     an acknowledgement or SACK a non-empty list with fewer than 4 woken means the window is still full;
 *   - mrc_cc_info agrees with the context; the endpoint invariants (fz_invariants) hold. */
#include "fuzz_common.h"

#define FZ_MAX_OPS 800
#define FZ_NQ 4
#define FZ_PKTS 256
#define FZ_PROF 9u

typedef struct fz_q {
    mrc_conn c;
    uint32_t mtu, peer, hint; /* hint: num_remote_recv_peers (P31) */
    uint64_t prof;
    uint32_t pkt[FZ_PKTS];    /* nominal sizes of the packets in flight (the model) */
    unsigned npkt;
    uint64_t inflight;
} fz_q;

static struct {
    mrc_config cfg;
    mrc_endpoint ep;
    fz_q q[FZ_NQ];
    unsigned nq;
    mrc_time now;
    mrc_cc_profile_attr prof;
    int have_prof;
    uint16_t ready[FZ_NQ * 2]; /* the READY FIFO the model expects, per context: slots */
    unsigned nready[MRC_MAX_CCX];
    uint16_t rq[MRC_MAX_CCX][FZ_NQ];
    mrc_time last_md[MRC_MAX_CCX];
    mrc_time lh_end[MRC_MAX_CCX]; /* P30: the last-hop mark the model expects, per context */
} g;

/* ---- set-up ---------------------------------------------------------------------------------------------------- */
static float fz_float(fz_in *in) {
    uint8_t sel = fz_u8(in);
    uint32_t bits;
    float f;
    switch (sel & 3u) {
    case 0: return 0.0f;
    case 1: return (float)(sel >> 2) / 8.0f; /* 0 .. 7.875 */
    case 2: return (float)fz_u32(in);        /* a whole number of bytes, any size */
    default:
        bits = fz_u32(in);
        memcpy(&f, &bits, sizeof f);
        return f;
    }
}
static uint32_t fz_cfg32(fz_in *in) {
    uint8_t sel = fz_u8(in);
    switch (sel & 3u) {
    case 0: return 0;                          /* the default */
    case 1: return (uint32_t)(sel >> 2) * 1000u; /* ns / bytes on a plausible scale */
    case 2: return fz_u16(in);
    default: return fz_u32(in);
    }
}

static void fz_gen_nscc(fz_in *in, mrc_nscc_cfg *n) {
    uint8_t sel = fz_u8(in);
    memset(n, 0, sizeof *n);
    if (!(sel & 1u)) return; /* every default */
    n->disable_qa = (sel >> 1) & 1u;
    n->qa_gate = (sel & 4u) ? fz_u8(in) : (uint8_t)((sel >> 3) & 7u);
    n->adjust_bytes_threshold = fz_cfg32(in);
    n->adjust_period_threshold = fz_cfg32(in);
    n->base_rtt = fz_cfg32(in);
    n->max_cwnd = fz_cfg32(in);
    n->qa_threshold = fz_cfg32(in);
    n->target_delay = fz_cfg32(in);
    if (sel & 0x40u) {
#ifndef MRC_NO_FLOAT
        n->eta = fz_float(in);
        n->fi = fz_float(in);
        n->fi_scale = fz_float(in);
        n->gamma = fz_float(in);
        n->max_md_jump = fz_float(in);
#endif
    }
    if (sel & 0x80u) {
        n->eta_bytes = fz_cfg32(in);
        n->fi_bytes = fz_cfg32(in);
        n->fi_scale_q16 = fz_cfg32(in);
        n->gamma_q16 = fz_cfg32(in);
        n->max_md_jump_q16 = (fz_u8(in) & 1u) ? fz_u32(in) : fz_u32(in) % 65537u;
    }
}

static void fz_profile(fz_in *in) {
    uint8_t sel = fz_u8(in);
    mrc_cc_profile_attr a;
    int rc, want;
    mrc_endpoint before;
    memset(&a, 0, sizeof a);
    a.algorithm = (sel & 3u) == 1u ? MRC_CC_FIXED : (sel & 3u) == 2u ? (const char *)0 : MRC_CC_NSCC;
    fz_gen_nscc(in, &a.nscc);
    a.fixed_cwnd = (sel & 4u) ? fz_cfg32(in) : 4096u * (1u + (sel >> 4));
    a.state = MRC_PROFILE_OFFLINE;
    before = g.ep;
    rc = mrc_cc_profile_modify(&g.ep, FZ_PROF, &a,
                               MRC_CC_PROF_ATTR_STATE | MRC_CC_PROF_ATTR_ALGORITHM | MRC_CC_PROF_ATTR_CONFIG);
    want = MRC_OK;
    if (a.algorithm && a.algorithm[0] == 'm' && !a.fixed_cwnd) want = MRC_ERR_INVAL;
    if (a.algorithm && a.algorithm[0] == 'u' && (a.nscc.qa_gate > 16 || a.nscc.max_md_jump_q16 > 65536u))
        want = MRC_ERR_INVAL;
    FZ_CHECK(rc == want, "cc_profile_modify returned %d, want %d", rc, want);
    if (rc != MRC_OK) {
        FZ_CHECK(g.ep.detail.err == rc && g.ep.detail.code == MRC_DETAIL_CC_CONFIG, "refused with detail %d/%u",
                 g.ep.detail.err, g.ep.detail.code);
        before.detail = g.ep.detail; /* what a failed call writes: its error detail */
        FZ_CHECK(memcmp(&before, &g.ep, sizeof before) == 0, "a refused CC profile changed the endpoint");
        return;
    }
    a.state = MRC_PROFILE_ONLINE;
    rc = mrc_cc_profile_modify(&g.ep, FZ_PROF, &a, MRC_CC_PROF_ATTR_STATE);
    FZ_CHECK(rc == MRC_OK, "OFFLINE -> ONLINE returned %d", rc);
    g.prof = a;
    g.have_prof = 1;
}

/* The parameters a new context derives, restated (docs/PROTOCOL.md 8.4) in exact arithmetic and saturated at their type. */
static uint64_t fz_sat(uint64_t v, uint64_t lim) { return v > lim ? lim : v; }
static void fz_check_params(const mrc__ccx *x, const fz_q *q) {
    const mrc_nscc_cfg *cf = q->prof ? &g.prof.nscc : (const mrc_nscc_cfg *)0;
    mrc_nscc_cfg zero;
    uint32_t rate = g.cfg.cc.line_rate_mbps ? g.cfg.cc.line_rate_mbps : 100000u * g.cfg.num_ports;
    uint32_t base, mss = q->mtu, min_cwnd, target;
    uint64_t bdp, a_q16, t;
    memset(&zero, 0, sizeof zero);
    if (!cf) cf = &zero;
    min_cwnd = mrc__data_hdr_len(&q->c, false) + mss + 4u + MRC_NOMINAL_HDR;
    base = cf->base_rtt ? cf->base_rtt : g.cfg.cc.base_rtt_ns;
    if (!base) base = 1;
    bdp = (uint64_t)rate * base / 8000u; /* < 2^64: both factors are 32-bit */
    if (bdp < min_cwnd) bdp = min_cwnd;
    FZ_CHECK(x->p.base_rtt == base && x->p.bdp == bdp && x->p.min_cwnd == min_cwnd,
             "base_rtt %u bdp %llu min_cwnd %u, want %u %llu %u", x->p.base_rtt, (unsigned long long)x->p.bdp,
             x->p.min_cwnd, base, (unsigned long long)bdp, min_cwnd);
    /* a_q16 = bdp * 65536 / 150000, exactly (bdp < 2^51: bdp << 16 may not fit 64 bits, the quotient does) */
    a_q16 = ((bdp / 150000u) << 16) + ((bdp % 150000u) << 16) / 150000u;
    if (!a_q16) a_q16 = 1;
    target = cf->target_delay ? cf->target_delay : (g.cfg.trimmable ? base / 4u * 3u : base);
    if (!target) target = 1;
    FZ_CHECK(x->p.target == target, "target %u, want %u", x->p.target, target);
    FZ_CHECK(x->p.maxwnd == (cf->max_cwnd ? MRC__MAX((uint64_t)cf->max_cwnd, (uint64_t)min_cwnd)
                                          : MRC__MAX(bdp / 2u * 3u, (uint64_t)min_cwnd)),
             "maxwnd %llu", (unsigned long long)x->p.maxwnd);
    /* the a-derived defaults, unless configured (floats excepted: their conversion is checked by UBSan) */
#ifndef MRC_NO_FLOAT
    if (!(cf->fi > 0.0f) && !cf->fi_bytes)
#else
    if (!cf->fi_bytes)
#endif
    {
        t = (uint64_t)5u * mss; /* 5 mss a, saturated */
        FZ_CHECK(x->p.fi == (a_q16 > UINT64_MAX / t ? 0xFFFFFFFFu : (uint32_t)fz_sat((t * a_q16) >> 16, 0xFFFFFFFFu)),
                 "fi %u wrapped (a_q16 %llu, mss %u)", x->p.fi, (unsigned long long)a_q16, mss);
    }
#ifndef MRC_NO_FLOAT
    if (!(cf->eta > 0.0f) && !cf->eta_bytes)
#else
    if (!cf->eta_bytes)
#endif
    {
        t = (uint64_t)15u * mss;
        FZ_CHECK(x->p.eta == (a_q16 > UINT64_MAX / t ? 0xFFFFFFFFu
                                                     : (uint32_t)fz_sat((t * a_q16 / 100u) >> 16, 0xFFFFFFFFu)),
                 "eta %u wrapped (a_q16 %llu)", x->p.eta, (unsigned long long)a_q16);
    }
    {
        t = (uint64_t)4u * mss;
        FZ_CHECK(x->p.alpha_q16 == (a_q16 > UINT64_MAX / t ? 0xFFFFFFFFu
                                                           : (uint32_t)fz_sat(t * a_q16 / 12000u, 0xFFFFFFFFu)),
                 "alpha_q16 %u wrapped (a_q16 %llu)", x->p.alpha_q16, (unsigned long long)a_q16);
    }
    FZ_CHECK(x->p.qa_threshold == (cf->qa_threshold ? cf->qa_threshold
                                                    : (uint32_t)fz_sat((uint64_t)4u * target, 0xFFFFFFFFu)),
             "qa_threshold %u wrapped (target %u)", x->p.qa_threshold, target);
    FZ_CHECK(x->p.adjust_bytes == (cf->adjust_bytes_threshold ? cf->adjust_bytes_threshold : 8u * min_cwnd),
             "adjust_bytes %u", x->p.adjust_bytes);
    FZ_CHECK(x->p.adjust_period == (cf->adjust_period_threshold ? cf->adjust_period_threshold : base),
             "adjust_period %u", x->p.adjust_period);
    FZ_CHECK(x->p.qa_gate == (cf->qa_gate ? cf->qa_gate : 3u) && x->p.qa_gate <= 16u, "qa_gate %u", x->p.qa_gate);
    FZ_CHECK(x->p.md_floor_q16 <= 65536u, "md_floor %u", x->p.md_floor_q16);
}

static int fz_join(fz_q *q) { /* RESET -> RTS; the QP joins (or opens) its peer's context on its profile */
    mrc_conn_attr a;
    int rc;
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_INIT;
    a.cc_profile_id = q->prof;
    a.hint.num_remote_recv_peers = q->hint;
    rc = mrc_conn_modify(&q->c, &a, MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE | MRC_ATTR_HINT, g.now);
    FZ_CHECK(rc == MRC_OK, "INIT %d", rc);
    fz_conn_rts(&q->c, 0x300u, q->mtu, q->peer, 0, g.now);
    FZ_CHECK(q->c.ccx != MRC__EV_NONE, "RTS without a context");
    {
        const mrc__ccx *x = &g.ep.ccx[q->c.ccx];
#ifdef FZ_DEBUG
        fprintf(stderr, "join: ctx %u algo %u rate %u base_cfg %u | base %u bdp %llu target %u maxwnd %llu min %u fi %u "
                        "eta %u alpha %u fi_scale %u gamma %u adj_bytes %u adj_period %u qa_thr %u\n",
                q->c.ccx, x->algo, g.cfg.cc.line_rate_mbps, g.cfg.cc.base_rtt_ns, x->p.base_rtt, (unsigned long long)x->p.bdp,
                x->p.target, (unsigned long long)x->p.maxwnd, x->p.min_cwnd, x->p.fi, x->p.eta, x->p.alpha_q16,
                x->p.fi_scale_q16, x->p.gamma_q16, x->p.adjust_bytes, x->p.adjust_period, x->p.qa_threshold);
#endif
        if (x->refs == 1) { /* a new context */
            g.last_md[q->c.ccx] = g.now;
            g.lh_end[q->c.ccx] = 0;
            g.nready[q->c.ccx] = 0;
            if (x->algo == MRC_CC_ALGO_NSCC) {
                fz_check_params(x, q);
                /* Q13: at maxwnd; P31: with the hint n > 1 on a trimming fabric at maxwnd / n, at least one packet */
                uint64_t want = q->hint > 1u && g.cfg.trimmable ? MRC__MAX(x->p.maxwnd / q->hint, (uint64_t)x->p.min_cwnd)
                                                                : x->p.maxwnd;
                FZ_CHECK(x->cwnd == want, "a new NSCC context starts at cwnd %llu, maxwnd %llu, hint %u (Q13, P31)",
                         (unsigned long long)x->cwnd, (unsigned long long)x->p.maxwnd, q->hint);
            }
        }
    }
    return 0;
}

static void fz_setup(fz_in *in) {
    uint8_t c0 = fz_u8(in), c1 = fz_u8(in);
    unsigned i;
    int rc;
    mrc_config_default(&g.cfg);
    g.cfg.seed = 0xCCu;
    g.cfg.num_ports = (uint8_t)(1u + (c0 & 3u));
    g.cfg.trimmable = !((c0 >> 2) & 1u);
    g.cfg.tseth = !((c0 >> 3) & 1u);
    switch ((c0 >> 4) & 3u) {
    case 0: g.cfg.cc.line_rate_mbps = 0; break;
    case 1: g.cfg.cc.line_rate_mbps = 25000u * (1u + (c1 & 31u)); break;
    default: g.cfg.cc.line_rate_mbps = fz_cfg32(in); break;
    }
    g.cfg.cc.base_rtt_ns = (c0 & 0x40u) ? fz_cfg32(in) : 12000u;
    g.cfg.cc.algo = (c1 >> 5) == 6 ? MRC_CC_ALGO_FIXED : (c1 >> 5) == 7 ? MRC_CC_ALGO_NONE : MRC_CC_ALGO_NSCC;
    g.cfg.cc.fixed_cwnd_bytes = (c0 & 0x80u) ? fz_cfg32(in) : 16384u;
    /* P30's mark: off, 1 or 32 base RTTs (c1 & 3 also picks a line rate) */
    g.cfg.research.cc_lh_mark_rtts = (uint8_t)((c1 & 3u) == 0u ? 0u : (c1 & 3u) == 1u ? 1u : 32u);
    g.now = 1000000;
    rc = mrc_endpoint_init(&g.ep, &g.cfg, g.now);
    FZ_CHECK(rc == MRC_OK, "endpoint_init %d", rc);
    fz_profile(in);
    g.nq = 1u + fz_u8(in) % FZ_NQ;
    for (i = 0; i < g.nq; i++) {
        uint8_t b = fz_u8(in);
        fz_q *q = &g.q[i];
        q->mtu = 256u << (b & 3u) % 5u;
        q->peer = (b >> 3) & 1u;
        q->hint = (b >> 4) & 3u ? 1u << (((b >> 4) & 3u) * 5u - 5u) : 0u; /* P31: none, 1, 32, 1024 */
        q->prof = g.have_prof && (b & 4u) ? FZ_PROF : 0u;
        rc = mrc_conn_init(&g.ep, &q->c, g.now);
        FZ_CHECK(rc == MRC_OK, "conn_init %d", rc);
        fz_join(q);
    }
}

/* ---- the READY model --------------------------------------------------------------------------------------------- */
static void fz_ready_remove(unsigned x, uint16_t slot) {
    unsigned i, j;
    for (i = j = 0; i < g.nready[x]; i++)
        if (g.rq[x][i] != slot) g.rq[x][j++] = g.rq[x][i];
    g.nready[x] = j;
}
/* the core's list must be the model's minus a prefix; returns how many were woken */
static unsigned fz_ready_sync(unsigned x) {
    const mrc__ccx *cx = &g.ep.ccx[x];
    uint16_t s, list[FZ_NQ + 1];
    unsigned n = 0, i, woken;
    if (!cx->used) {
        g.nready[x] = 0;
        return 0;
    }
    for (s = cx->ready_head; s != MRC__EV_NONE && n <= FZ_NQ; s = g.ep.conns[s]->ready_next) list[n++] = s;
    FZ_CHECK(n <= g.nready[x], "context %u: %u QPs READY, the model has %u", x, n, g.nready[x]);
    woken = g.nready[x] - n;
    for (i = 0; i < n; i++)
        FZ_CHECK(list[i] == g.rq[x][woken + i], "context %u: READY order differs at %u (woken out of FIFO order)", x, i);
    memmove(g.rq[x], g.rq[x] + woken, n * sizeof g.rq[x][0]);
    g.nready[x] = n;
    return woken;
}

/* ---- the checks after every record ------------------------------------------------------------------------------ */
typedef struct fz_snap {
    uint64_t cwnd[MRC_MAX_CCX], maxwnd[MRC_MAX_CCX];
    uint8_t used[MRC_MAX_CCX];
} fz_snap;
static void fz_take(fz_snap *s) {
    unsigned x;
    for (x = 0; x < MRC_MAX_CCX; x++) {
        s->used[x] = g.ep.ccx[x].used;
        s->cwnd[x] = g.ep.ccx[x].cwnd;
        s->maxwnd[x] = g.ep.ccx[x].p.maxwnd;
    }
}
static void fz_same_cwnd(const fz_snap *s, const char *what) {
    unsigned x;
    for (x = 0; x < MRC_MAX_CCX; x++)
        if (s->used[x] && g.ep.ccx[x].used)
            FZ_CHECK(g.ep.ccx[x].cwnd == s->cwnd[x], "%s moved context %u's cwnd %llu -> %llu", what, x,
                     (unsigned long long)s->cwnd[x], (unsigned long long)g.ep.ccx[x].cwnd);
}

FZ_NOCOV static void fz_check(int full) {
    unsigned i, x;
    if (full) fz_invariants(&g.ep); /* queues, timers, EV sets: nothing here moves them, so now and then */
    else fz_cc_invariants(&g.ep);
    for (i = 0; i < g.nq; i++) {
        const fz_q *q = &g.q[i];
        mrc_cc_info ci;
        FZ_CHECK(q->c.cc_inflight == q->inflight, "QP %u: cc_inflight %llu, the model %llu", i,
                 (unsigned long long)q->c.cc_inflight, (unsigned long long)q->inflight);
        FZ_CHECK(mrc_conn_cc_info(&q->c, &ci) == MRC_OK, "cc_info");
        if (q->c.ccx != MRC__EV_NONE) {
            const mrc__ccx *cx = &g.ep.ccx[q->c.ccx];
            FZ_CHECK(ci.cwnd == cx->cwnd && ci.inflight == cx->inflight && ci.algo == cx->algo &&
                         ci.ctx_qps == cx->refs && ci.maxwnd == cx->p.maxwnd,
                     "cc_info disagrees with the context");
        }
    }
    for (x = 0; x < MRC_MAX_CCX; x++) {
        const mrc__ccx *cx = &g.ep.ccx[x];
        if (!cx->used) continue;
        if (cx->algo == MRC_CC_ALGO_FIXED) {
            uint64_t w = g.have_prof && cx->profile_id == FZ_PROF ? g.prof.fixed_cwnd : g.cfg.cc.fixed_cwnd_bytes;
            FZ_CHECK(cx->cwnd == (w ? w : UINT64_MAX), "fixed window %llu, configured %llu",
                     (unsigned long long)cx->cwnd, (unsigned long long)w);
        }
    }
}

/* ---- records ----------------------------------------------------------------------------------------------------- */
static uint32_t fz_nominal(const fz_q *q, fz_in *in) {
    uint8_t b = fz_u8(in);
    uint32_t full = mrc__data_hdr_len(&q->c, false) + q->mtu + 4u + MRC_NOMINAL_HDR;
    if (b & 0x80u) return full;                                  /* a full packet */
    return mrc__data_hdr_len(&q->c, (b & 1u) != 0) + 4u + MRC_NOMINAL_HDR + (b & 0x7Fu) % q->mtu * 4u % (q->mtu + 1u);
}

static void fz_op_send(fz_q *q, fz_in *in) {
    uint32_t n = fz_nominal(q, in);
    const mrc__ccx *cx = mrc__conn_ccx(&q->c);
    bool can = mrc__cc_can_send(&q->c, n);
    fz_snap s;
    if (!cx) return;
    /* the send rule (8.3), with P24's pacing clock when nothing is in flight */
    FZ_CHECK(can == ((cx->inflight == 0 && q->c.ep->now >= cx->pace_next) || cx->inflight + n <= cx->cwnd),
             "can_send(%u) = %d with inflight %llu cwnd %llu pace_next %llu now %llu", n, can,
             (unsigned long long)cx->inflight, (unsigned long long)cx->cwnd, (unsigned long long)cx->pace_next,
             (unsigned long long)q->c.ep->now);
    fz_take(&s);
    if (can && q->npkt < FZ_PKTS) {
        mrc__cc_on_send(&q->c, n);
        q->pkt[q->npkt++] = n;
        q->inflight += n;
    } else if (!can && !q->c.in_ready) { /* the scheduler's response to MRC__NEW_CWND */
        mrc__cc_block(&q->c);
        g.rq[q->c.ccx][g.nready[q->c.ccx]++] = q->c.slot;
    }
    fz_same_cwnd(&s, "a send or a READY block");
}

static unsigned fz_take_pkt(fz_q *q, fz_in *in) { /* a packet of the flight leaves it (any order); its size */
    unsigned i = fz_u8(in) % q->npkt;
    uint32_t n = q->pkt[i];
    q->pkt[i] = q->pkt[--q->npkt];
    q->inflight -= n;
    return n;
}

/* after an acknowledgement or SACK of context x: at most 4 QPs woken, and fewer only when the window is full */
static void fz_check_woken(unsigned x, const char *after) {
    unsigned woken = fz_ready_sync(x);
    FZ_CHECK(woken <= 4u, "%u QPs woken by %s", woken, after);
    if (g.nready[x] && woken < 4u)
        FZ_CHECK(g.ep.ccx[x].inflight >= g.ep.ccx[x].cwnd,
                 "READY QPs left asleep after %s with the window open (inflight %llu < cwnd %llu)", after,
                 (unsigned long long)g.ep.ccx[x].inflight, (unsigned long long)g.ep.ccx[x].cwnd);
}

static void fz_op_ack(fz_q *q, fz_in *in) {
    unsigned x = q->c.ccx;
    uint32_t n;
    fz_snap s;
    if (!q->npkt || x == MRC__EV_NONE) return;
    n = fz_take_pkt(q, in);
    fz_take(&s);
    mrc__cc_on_ack(&q->c, n);
    fz_same_cwnd(&s, "an acknowledgement");
    fz_check_woken(x, "an acknowledgement");
}

static void fz_op_loss(fz_q *q, fz_in *in) {
    static const int whys[6] = {MRC__LOSS_SACK, MRC__LOSS_RTO,  MRC__LOSS_PROBE,
                                MRC__LOSS_NACK, MRC__LOSS_TRIM, MRC__LOSS_TRIM_LH};
    uint8_t b = fz_u8(in);
    int why = whys[b % 6u];
    unsigned x = q->c.ccx, woken;
    uint32_t n;
    fz_snap s;
    mrc_conn_stats c0, c1;
    if (!q->npkt || x == MRC__EV_NONE) return;
    n = fz_take_pkt(q, in);
    fz_take(&s);
    mrc_conn_stats_get(&q->c, &c0);
    mrc__cc_on_loss(&q->c, n, why, g.now);
    mrc_conn_stats_get(&q->c, &c1);
    woken = fz_ready_sync(x);
    FZ_CHECK(woken <= 4u, "%u QPs woken by one loss", woken);
    if (why == MRC__LOSS_NACK || g.ep.ccx[x].algo != MRC_CC_ALGO_NSCC) fz_same_cwnd(&s, "a resource NACK or a loss");
    else if (c1.cc_qa == c0.cc_qa && (why == MRC__LOSS_TRIM || why == MRC__LOSS_TRIM_LH || !g.cfg.trimmable))
        FZ_CHECK(g.ep.ccx[x].cwnd <= s.cwnd[x], "a loss raised cwnd %llu -> %llu without quick adapt",
                 (unsigned long long)s.cwnd[x], (unsigned long long)g.ep.ccx[x].cwnd);
    else if (c1.cc_qa == c0.cc_qa)
        fz_same_cwnd(&s, "a silent loss where the fabric trims (Q13)");
    if (g.ep.ccx[x].algo == MRC_CC_ALGO_NSCC) { /* P30: a last-hop trim (only) marks the next lh_mark_rtts base RTTs */
        const mrc__ccx *cx = &g.ep.ccx[x];
        mrc_time want = why == MRC__LOSS_TRIM_LH && g.cfg.research.cc_lh_mark_rtts
                            ? g.now + (mrc_time)cx->p.base_rtt * g.cfg.research.cc_lh_mark_rtts : g.lh_end[x];
        FZ_CHECK(cx->lh_mark_end == want, "last-hop mark until %llu after loss %d, want %llu",
                 (unsigned long long)cx->lh_mark_end, why, (unsigned long long)want);
        g.lh_end[x] = want;
    }
}

static void fz_op_sack(fz_q *q, fz_in *in) {
    uint8_t b = fz_u8(in), r = fz_u8(in);
    mrc__cc_sample sm;
    unsigned x = q->c.ccx;
    mrc_conn_stats c0, c1;
    fz_snap s;
    mrc__ccx before;
    bool marked;
    if (x == MRC__EV_NONE) return;
    memset(&sm, 0, sizeof sm);
    switch (b & 3u) { /* rcvd_bytes delta: packets' worth, 256-byte units, or anything below 2^23 units */
    case 0: sm.newly = 0; break;
    case 1: sm.newly = (uint64_t)((q->mtu + 64u) * (1u + (r & 15u)) + 255u) / 256u * 256u; break;
    case 2: sm.newly = (uint64_t)(fz_u16(in) & 0x7FFFu) << 8; break;
    default: sm.newly = (uint64_t)(fz_u24(in) & 0x7FFFFFu) << 8; break;
    }
    switch ((b >> 2) & 3u) { /* RTT: none, near the base, around the target, anything seen so far */
    case 0: sm.rtt = 0; break;
    case 1: sm.rtt = g.ep.ccx[x].p.base_rtt + (mrc_time)(r >> 4) * 100u; break;
    case 2: sm.rtt = (mrc_time)fz_u16(in) * ((r & 0x80u) ? 1000u : 4u) + 1u; break;
    default: sm.rtt = 1u + fz_u64(in) % (g.now - 999999u); break;
    }
    sm.ecn = (b >> 4) & 1u;
    sm.pen = (b & 0x20u) ? (uint8_t)(fz_u8(in) & 0x7Fu) : 0u;
    sm.r_c = (b >> 6) & 1u;
    fz_take(&s);
    before = g.ep.ccx[x];
    marked = sm.ecn || g.now < before.lh_mark_end; /* P30 */
    mrc_conn_stats_get(&q->c, &c0);
    mrc__cc_on_sack(&q->c, &sm, g.now);
    mrc_conn_stats_get(&q->c, &c1);
    fz_check_woken(x, "a SACK");
    if (before.algo != MRC_CC_ALGO_NSCC) {
        fz_same_cwnd(&s, "a SACK without NSCC");
        return;
    }
    FZ_CHECK(c1.cc_md <= c0.cc_md + 1u, "two decreases in one SACK");
    if (c1.cc_md != c0.cc_md) {
        const mrc__ccx *cx = &g.ep.ccx[x];
        FZ_CHECK(marked, "a multiplicative decrease without CE (or a last-hop trim's mark, P30)");
        FZ_CHECK(g.now - g.last_md[x] > cx->p.base_rtt, "two decreases %llu ns apart, base RTT %u",
                 (unsigned long long)(g.now - g.last_md[x]), cx->p.base_rtt);
        g.last_md[x] = g.now;
        if (!sm.pen && c1.cc_qa == c0.cc_qa && cx->p.maxwnd == before.p.maxwnd)
            FZ_CHECK(cx->cwnd >= MRC__MIN(cx->p.maxwnd, MRC__MAX((before.cwnd * before.p.md_floor_q16) >> 16,
                                                                 (uint64_t)cx->p.floor)),
                     "one decrease took cwnd %llu -> %llu, below the floor %u/65536", (unsigned long long)before.cwnd,
                     (unsigned long long)cx->cwnd, before.p.md_floor_q16);
    }
    if (g.ep.ccx[x].p.base_rtt < before.p.base_rtt) { /* the base RTT fell: BDP scales with it, exactly */
        const mrc__ccx *cx = &g.ep.ccx[x];
        uint64_t b0 = before.p.bdp, r0 = before.p.base_rtt, rt = cx->p.base_rtt;
        uint64_t want = b0 / r0 * rt + b0 % r0 * rt / r0; /* b0 * rt / r0 without overflow (rt < r0 < 2^32) */
        FZ_CHECK(rt == sm.rtt, "base RTT fell to %llu, the sample was %llu", (unsigned long long)rt,
                 (unsigned long long)sm.rtt);
        if (want < cx->p.min_cwnd) want = cx->p.min_cwnd;
        FZ_CHECK(cx->p.bdp == want, "BDP %llu after the base RTT fell %llu -> %llu, want %llu (overflow?)",
                 (unsigned long long)cx->p.bdp, (unsigned long long)r0, (unsigned long long)rt,
                 (unsigned long long)want);
        FZ_CHECK(cx->p.maxwnd <= before.p.maxwnd,
                 "maxwnd rose %llu -> %llu when the base RTT fell",
                 (unsigned long long)before.p.maxwnd, (unsigned long long)cx->p.maxwnd);
    }
    if (!marked && !sm.pen && c1.cc_qa == c0.cc_qa && g.ep.ccx[x].p.maxwnd >= before.p.maxwnd)
        FZ_CHECK(g.ep.ccx[x].cwnd >= before.cwnd, "a SACK without CE or penalty lowered cwnd %llu -> %llu",
                 (unsigned long long)before.cwnd, (unsigned long long)g.ep.ccx[x].cwnd);
}

static void fz_op_rejoin(fz_q *q) { /* ERR (the flight is forgotten), then RESET and back to RTS */
    mrc_conn_attr a;
    unsigned x = q->c.ccx, i;
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_ERR;
    FZ_CHECK(mrc_conn_modify(&q->c, &a, MRC_ATTR_STATE, g.now) == MRC_OK, "to ERR");
    FZ_CHECK(q->c.ccx == MRC__EV_NONE && q->c.cc_inflight == 0 && !q->c.in_ready, "ERR kept the context");
    q->npkt = 0;
    q->inflight = 0;
    if (x != MRC__EV_NONE) {
        fz_ready_remove(x, q->c.slot);
        if (g.ep.ccx[x].used) {
            unsigned woken = fz_ready_sync(x);
            FZ_CHECK(woken <= 4u, "%u woken by a release", woken);
        } else {
            g.nready[x] = 0;
        }
    }
    {
        mrc_event ev;
        while (mrc_endpoint_poll_event(&g.ep, &ev) == 1) {
        }
    }
    a.state = MRC_QPS_RESET;
    FZ_CHECK(mrc_conn_modify(&q->c, &a, MRC_ATTR_STATE, g.now) == MRC_OK, "to RESET");
    for (i = 0; i < MRC_MAX_CCX; i++) (void)fz_ready_sync(i);
    fz_join(q);
}

static void fz_op_reconfig(fz_in *in) { /* CONFIG of an ONLINE profile: the next context takes it */
    mrc_cc_profile_attr a;
    int rc, want = MRC_OK;
    if (!g.have_prof) return;
    a = g.prof;
    fz_gen_nscc(in, &a.nscc);
    if (g.prof.algorithm && g.prof.algorithm[0] == 'm' && !a.fixed_cwnd) want = MRC_ERR_INVAL;
    if (g.prof.algorithm && g.prof.algorithm[0] == 'u' && (a.nscc.qa_gate > 16 || a.nscc.max_md_jump_q16 > 65536u))
        want = MRC_ERR_INVAL;
    rc = mrc_cc_profile_modify(&g.ep, FZ_PROF, &a, MRC_CC_PROF_ATTR_CONFIG);
    FZ_CHECK(rc == want, "reconfiguring an ONLINE profile returned %d, want %d", rc, want);
    if (rc == MRC_OK) g.prof = a;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in;
    unsigned ops;
    memset(&g, 0, sizeof g);
    fz_init(&in, data, size);
    fz_setup(&in);
    fz_check(1);
    for (ops = 0; ops < FZ_MAX_OPS && fz_left(&in) > 0; ops++) {
        uint8_t op = fz_u8(&in);
        fz_q *q = &g.q[(op >> 4) % g.nq];
        switch (op & 15u) {
        case 0: case 1: case 2: case 3: fz_op_send(q, &in); break;
        case 4: case 5: case 6: fz_op_ack(q, &in); break;
        case 7: case 8: fz_op_sack(q, &in); break;
        case 9: case 10: fz_op_loss(q, &in); break;
        case 11: /* time: small steps around the base RTT, or jumps */
            g.now += (op & 0x80u) ? (mrc_time)fz_u16(&in) << (fz_u8(&in) % 24u) : (mrc_time)fz_u8(&in) * 250u;
            FZ_CHECK(mrc_endpoint_on_timeout(&g.ep, g.now) == MRC_OK, "on_timeout");
            { /* a pacing deadline (P24) wakes its context's READY list: the model follows */
                unsigned x;
                for (x = 0; x < MRC_MAX_CCX; x++) (void)fz_ready_sync(x);
            }
            break;
        case 12: fz_op_rejoin(q); break;
        case 13: fz_op_reconfig(&in); break;
        default: g.now += 100; break;
        }
        fz_check((ops & 63u) == 63u || (op & 15u) == 12u);
    }
    fz_check(1);
    return 0;
}
