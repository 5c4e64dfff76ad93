/* ================================================================================================================
 * CONGESTION CONTROL - src/cc.c
 * Owns: CC profiles, congestion contexts (one per peer and profile, shared by its QPs: one window, one count of
 * nominal bytes in flight, docs/PROTOCOL.md 8.2) and how the window changes: NSCC ("uet-1.0-nscc", docs/PROTOCOL.md
 * 8.5, in integers), a fixed window and none. An algorithm is a row of the table mrc__cc_ops: adding one is adding
 * a row. Per SACK the work is O(1); divisions happen once per adjust period or per decrease, not per packet. The
 * send gate and the READY list of QPs waiting for window are the scheduler's (src/sched.c): this file wakes it.
 * Calls: state, sched.
 * ============================================================================================================== */
#include "cc.h"
#include "state.h"
#include "sched.h"

/* ---- helpers ------------------------------------------------------------------------------------------------ */
MRC__PRIVATE bool mrc__streq(const char *a, const char *b) {
    if (!a || !b) return a == b;
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}
MRC__PRIVATE void mrc__cc_clamp(mrc__ccx *x) {
    if (x->cwnd > x->p.maxwnd) x->cwnd = x->p.maxwnd;
    if (x->cwnd < x->p.floor) x->cwnd = x->p.floor;
}
MRC__PRIVATE uint32_t mrc__avg_delay(const mrc__ccx *x) { return x->avg_q4 >> 4; }
#ifndef MRC_NO_FLOAT
/* a positive float to uint32_t, saturating (a plain cast of >= 2^32 or infinity is undefined behaviour). The float
 * comparisons here are written in double: targets that evaluate float in double (FLT_EVAL_METHOD 1, s390x) would
 * otherwise promote implicitly (-Wdouble-promotion), and the values compare the same either way. */
MRC__PRIVATE uint32_t mrc__f2u32(float f) { return (double)f < 4294967040.0 ? (uint32_t)f : 0xFFFFFFFFu; }
#endif
/* a x b, saturating; out of line (the set-up's scaling and the rare wide operands of mrc__inc_add share it) */
MRC__PRIVATE MRC__NOINLINE uint64_t mrc__mul_sat(uint64_t a, uint64_t b) {
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
/* inc += a * b, saturating at INT64_MAX (inc never goes negative). Operands of 32 bits (the bytes a SACK newly
 * acknowledges always are; the increase per byte nearly always) cannot overflow: one 32 x 32 multiplication. */
MRC__PRIVATE void mrc__inc_add(int64_t *inc, uint64_t a, uint64_t b) {
    uint64_t d = (a | b) >> 32 ? mrc__mul_sat(a, b) : (uint64_t)(uint32_t)a * (uint32_t)b;
    d = MRC__MIN(d, (uint64_t)INT64_MAX);
    *inc = (uint64_t)*inc > (uint64_t)INT64_MAX - d ? INT64_MAX : *inc + (int64_t)d;
}

/* min(a x m / div >> sh, 2^32 - 1), the product saturating: out of line, it is the four scaled parameters' 64-bit
 * arithmetic once (a context is set up at RTR -> RTS, never per packet). m is 1 or k x mss with k <= 15: 32 bits (mss
 * is the path MTU, at most 4096: mrc_conn_modify's PATH_MTU range) */
MRC__PRIVATE MRC__NOINLINE uint32_t mrc__prm_scale(uint64_t a, uint32_t m, uint32_t div, unsigned sh) {
    return (uint32_t)MRC__MIN((mrc__mul_sat(a, m) / div) >> sh, (uint64_t)0xFFFFFFFFu);
}
/* ---- NSCC parameters: the configured values, else the defaults the line rate and base RTT give (docs/PROTOCOL.md 8.4:
 * reference 100 Gb/s and 12 us, ref_BDP 150000 B; a = BDP / ref_BDP) ---------------------------------------------- */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__nscc_prm_init(mrc__nscc_prm *p, const mrc_nscc_cfg *cf, uint32_t rate_mbps,
                                                   uint32_t base_def, bool trimming, uint32_t mss, uint32_t min_cwnd) {
    uint64_t a_q16;
    uint32_t base = cf->base_rtt ? cf->base_rtt : base_def;
    MRC_MEMSET(p, 0, sizeof *p);
    p->base_rtt = base ? base : 1u;
    p->bdp = (uint64_t)rate_mbps * p->base_rtt / 8000u;
    if (p->bdp < min_cwnd) p->bdp = min_cwnd;
    /* bdp << 16 may not fit; the remainder's part in 32 bits: (r << 16) / 150000 = (r << 12) / 9375, r < 150000 */
    a_q16 = ((p->bdp / 150000u) << 16) + ((uint32_t)(p->bdp % 150000u) << 12) / 9375u;
    if (!a_q16) a_q16 = 1;
    p->target = cf->target_delay ? cf->target_delay : (trimming ? p->base_rtt / 4u * 3u : p->base_rtt);
    if (!p->target) p->target = 1;
    p->maxwnd = cf->max_cwnd ? cf->max_cwnd : p->bdp / 2u * 3u;
    p->maxwnd_set = cf->max_cwnd != 0;
    p->min_cwnd = p->floor = min_cwnd;
    p->trimming = (uint8_t)trimming;
    if (p->maxwnd < min_cwnd) p->maxwnd = min_cwnd;
    p->fi = mrc__prm_scale(a_q16, 5u * mss, 1u, 16u);
    p->eta = mrc__prm_scale(a_q16, 15u * mss, 100u, 16u);
    p->fi_scale_q16 = mrc__prm_scale(a_q16, 1u, 4u, 0u);
    p->gamma_q16 = 52429u;            /* 0.8 */
    p->md_floor_q16 = 32768u;         /* a decrease keeps at least half */
    if (cf->fi_bytes) p->fi = cf->fi_bytes;
    if (cf->eta_bytes) p->eta = cf->eta_bytes;
    if (cf->fi_scale_q16) p->fi_scale_q16 = cf->fi_scale_q16;
    if (cf->gamma_q16) p->gamma_q16 = cf->gamma_q16;
    if (cf->max_md_jump_q16) p->md_floor_q16 = 65536u - MRC__MIN(cf->max_md_jump_q16, 65536u);
#ifndef MRC_NO_FLOAT
    if ((double)cf->fi > 0.0) p->fi = mrc__f2u32(cf->fi);
    if ((double)cf->eta > 0.0) p->eta = mrc__f2u32(cf->eta);
    if ((double)cf->fi_scale > 0.0) p->fi_scale_q16 = mrc__f2u32(cf->fi_scale * 65536.0f);
    if ((double)cf->gamma > 0.0) p->gamma_q16 = mrc__f2u32(cf->gamma * 65536.0f);
    if ((double)cf->max_md_jump > 0.0 && (double)cf->max_md_jump <= 1.0)
        p->md_floor_q16 = 65536u - (uint32_t)(cf->max_md_jump * 65536.0f);
#endif
    /* proportional gain 4 MSS a b / target with b = target / 12 us: target cancels (bytes per ns, Q16 STEV header
     * mapping) */
    p->alpha_q16 = mrc__prm_scale(a_q16, 4u * mss, 12000u, 0u);
    p->qa_gate = cf->qa_gate ? cf->qa_gate : 3u;
    p->disable_qa = cf->disable_qa;
    p->qa_threshold =
        cf->qa_threshold ? cf->qa_threshold : p->target > 0x3FFFFFFFu ? 0xFFFFFFFFu : 4u * p->target; /* saturating */
    p->adjust_bytes = cf->adjust_bytes_threshold ? cf->adjust_bytes_threshold : 8u * min_cwnd;
    p->adjust_period = cf->adjust_period_threshold ? cf->adjust_period_threshold : p->base_rtt;
}

/* ---- NSCC (docs/PROTOCOL.md 8.5; the UEC reference's update order) ----------------------------------------------- */
/* Quick adapt's window end (once per base RTT + target, out of line: MRC__COLD): after a loss or a delay over
 * qa_threshold, a context that achieved less than maxwnd >> qa_gate drops its window to what it achieved, then
 * ignores ECN for the bytes in flight; a new window starts. Returns true when it fired. */
MRC__PRIVATE MRC__COLD bool mrc__nscc_qa_end(mrc_conn *c, mrc__ccx *x, bool loss, uint32_t delay, mrc_time now) {
    bool done = false;
    if (x->qa_end && (x->qa_loss || loss || delay > x->p.qa_threshold) && x->achieved < (x->p.maxwnd >> x->p.qa_gate)) {
        /* P24 sub-packet windows: below one packet only after a trim (congestion); a silent loss may be a path fault */
        x->cwnd = MRC__MAX(x->achieved, (uint64_t)(x->qa_trim ? x->p.floor : x->p.min_cwnd));
        x->ign_bytes = x->inflight;
        x->ign_done = 0;
        MRC__CNT(c->st.cc_qa++);
        done = true;
    }
    x->qa_loss = x->qa_trim = 0; /* a loss arms only the window it happened in */
    x->achieved = 0;
    x->qa_end = mrc__deadline_ctl(now, (mrc_time)x->p.base_rtt + x->p.target);
    return done;
}
/* Quick adapt: an ACK while ECN is ignored, or the window's end (above). Returns true when it fired or the ACK is
 * ignored: the rest of the update is skipped. */
MRC__PRIVATE MRC__NSCC_ACK_INLINE bool mrc__nscc_qa(mrc_conn *c, mrc__ccx *x, bool loss, bool ecn, uint32_t delay,
                                                  mrc_time now) {
    bool done;
    if (x->p.disable_qa) return false;
    if (x->ign_done < x->ign_bytes && ecn) done = true;
    else if (now > x->qa_end) done = mrc__nscc_qa_end(c, x, loss, delay, now);
    else return false;
    if (done) {
        x->inc = 0;
        x->received = 0;
    }
    return done;
}
/* Average queueing delay, EWMA weight 1/80; delay over target without ECN counts as a quarter base RTT (it is the
 * last hop or noise, not the fabric). */
MRC__PRIVATE MRC__NSCC_ACK_INLINE void mrc__nscc_avg(mrc__ccx *x, uint32_t delay, bool ecn) { /* 32-bit: per SACK */
    uint32_t d = MRC__MIN(!ecn && delay > x->p.target ? x->p.base_rtt / 4u : delay, (uint32_t)1u << 26);
    int32_t s = (int32_t)(d << 4), a = (int32_t)x->avg_q4;
    x->avg_q4 = (uint32_t)(a + (s - a) / 80);
}
/* The rare parts of the NSCC update, each with a 64-bit division, kept off the per-packet path (see MRC__NOINLINE):
 * a new minimum RTT (the BDP and window bound follow), a multiplicative decrease (at most once per base RTT), and
 * the fulfilment of the increase credit (once per adjust period or adjust_bytes). */
MRC__PRIVATE MRC__NOINLINE void mrc__nscc_base_rtt_slow(mrc__ccx *x, mrc_time rtt) {
    x->p.bdp = MRC__MAX(x->p.bdp / x->p.base_rtt * rtt + x->p.bdp % x->p.base_rtt * rtt / x->p.base_rtt,
                        (uint64_t)x->p.min_cwnd); /* bdp * rtt may not fit; rtt < base_rtt < 2^32 */
    if (!x->p.maxwnd_set) x->p.maxwnd = MRC__MAX(x->p.bdp / 2u * 3u, (uint64_t)x->p.min_cwnd);
    x->p.base_rtt = (uint32_t)rtt;
    mrc__cc_clamp(x);
}
MRC__PRIVATE MRC__NOINLINE void mrc__nscc_md_slow(mrc__ccx *x, uint32_t avg, mrc_time now) {
    uint64_t cut = (uint64_t)x->p.gamma_q16 * (avg - x->p.target) / avg;
    uint64_t keep = cut >= 65536u ? 0u : 65536u - cut;
    if (keep < x->p.md_floor_q16) keep = x->p.md_floor_q16;
    x->cwnd = (x->cwnd * keep) >> 16;
    x->last_dec = now;
}
MRC__PRIVATE MRC__NOINLINE void mrc__nscc_fulfil_slow(mrc__ccx *x) {
    x->cwnd += (uint64_t)x->inc / (x->cwnd ? x->cwnd : 1u);
}
/* the fulfilment: every adjust_bytes (8 minimum windows: a SACK of 8 packets may take it every time) */
MRC__PRIVATE MRC__NSCC_ACK_INLINE void mrc__nscc_fulfil(mrc__ccx *x, mrc_time now) {
    if (x->inc > 0) mrc__nscc_fulfil_slow(x);
    if (now - x->last_adjust >= x->p.adjust_period) {
        x->cwnd += x->p.eta;
        x->last_adjust = now;
    }
    x->inc = 0;
    x->received = 0;
    mrc__cc_clamp(x);
}
/* mrc__nscc_ack's rare branches (MRC__SIZE_COLD): the decrease of an ECN-marked SACK over target, the increase
 * credit (fair or proportional increase: not while the window is at its bound or in fast increase), and the P24
 * sub-packet window's bound */
MRC__PRIVATE MRC__SIZE_COLD void mrc__nscc_md(mrc_conn *c, mrc__ccx *x, mrc_time now) {
    uint32_t avg = mrc__avg_delay(x);
    x->fast = 0;
    x->fi_count = 0;
    if (avg > x->p.target && now - x->last_dec > x->p.base_rtt) {
        mrc__nscc_md_slow(x, avg, now);
        MRC__CNT(c->st.cc_md++);
    }
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__nscc_inc(mrc__ccx *x, uint64_t per, uint64_t newly) {
    mrc__inc_add(&x->inc, per, newly);
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__nscc_subpkt_cap(mrc__ccx *x, uint64_t w0) {
    if (x->cwnd > 2u * w0 && x->p.subpkt) x->cwnd = 2u * w0;
}
/* The per-SACK update, inline (cc.h: MRC__NSCC_ACK_INLINE): mrc__cc_table's row calls it, and so does the SACK fast
 * path (mrc__req_sack_fast) */
MRC__PRIVATE MRC__NSCC_ACK_INLINE void mrc__nscc_ack(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now) {
    uint32_t delay;
    uint64_t newly = s->newly, w0 = x->cwnd, per = UINT64_MAX; /* inc per byte acked; MAX: none */
    bool ecn = s->ecn || MRC__UNLIKELY(s->rtt && now < x->lh_mark_end); /* P30 last-hop trim mark: marked, or soon after
                                                                           a last-hop trim */
    x->achieved += newly;
    x->received += newly;
    if (x->ign_done < x->ign_bytes) x->ign_done += newly;
    if (s->rtt) { /* base RTT = the minimum seen; a fall raises the window's bound with the BDP */
        MRC__CNT(c->st.cc_rtt_samples++);
        if (MRC__UNLIKELY(s->rtt < x->p.base_rtt)) mrc__nscc_base_rtt_slow(x, s->rtt);
        delay = (uint32_t)MRC__MIN(s->rtt - x->p.base_rtt, (mrc_time)0xFFFFFFFFu);
        mrc__nscc_avg(x, delay, s->ecn); /* the true echo: P30 last-hop trim mark leaves the average alone */
    } else {
        delay = mrc__avg_delay(x);
    }
    if (mrc__nscc_qa(c, x, false, ecn, delay, now)) return;
    if (!ecn && delay >= x->p.target) { /* fair increase */
        per = x->p.fi;
        x->fast = 0;
    } else if (!ecn) { /* proportional increase, or fast increase while the delay stays under 1 us */
        if (delay < 1000u) {
            x->fi_count += newly;
        } else {
            x->fi_count = 0;
            x->fast = 0;
        }
        if (delay < 1000u && (x->fi_count > x->cwnd || x->fast)) {
            x->cwnd += (newly * x->p.fi_scale_q16) >> 16;
            x->fast = 1;
            MRC__CNT(c->st.cc_fast++);
        } else {
            x->fast = 0;
            per = ((uint64_t)x->p.alpha_q16 * (x->p.target - delay)) >> 16;
        }
    } else if (delay >= x->p.target) { /* multiplicative decrease, at most once per base RTT */
        mrc__nscc_md(c, x, now);
    } /* ECN below target: the EV is avoided (SKIP), the window stays */
    if (per != UINT64_MAX) mrc__nscc_inc(x, per, newly); /* one copy of it for both increases */
    mrc__cc_clamp(x);
    if (x->received > x->p.adjust_bytes || now - x->last_adjust > x->p.adjust_period) mrc__nscc_fulfil(x, now);
    /* P24 sub-packet windows: below one packet an acknowledgement covers more than the window, and the increases,
     * scaled for a window acknowledged per RTT, would jump to maxwnd at once: the window at most doubles per
     * acknowledgement there */
    if (MRC__UNLIKELY(w0 < x->p.min_cwnd)) mrc__nscc_subpkt_cap(x, w0);
}
MRC__PRIVATE void mrc__nscc_on_ack(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now) {
    mrc__nscc_ack(c, x, s, now);
}
/* A window decrease by d bytes (a trim, a drop-tail loss, the receiver penalty), clamped. P24 sub-packet windows: to
 * one packet as it always could; below one packet at most once per base RTT and at most by half (a burst of trims is
 * one congestion event: without this bound the trims of one window in flight took it to the floor, 64 base RTTs per
 * packet, and the ramp back up - one SACK per pacing interval - left the link idle when the other flows finished). */
MRC__PRIVATE void mrc__nscc_dec(mrc__ccx *x, uint64_t d, mrc_time now) {
    uint64_t w = x->cwnd > d ? x->cwnd - d : 0u;
    if (MRC__UNLIKELY(w < x->p.min_cwnd) && x->p.subpkt) {
        uint64_t one = MRC__MIN(x->cwnd, (uint64_t)x->p.min_cwnd);
        if (now - x->last_sub > x->p.base_rtt || !x->last_sub) {
            w = MRC__MAX(w, one / 2u);
            x->last_sub = now;
        } else {
            w = one;
        }
    }
    x->cwnd = w;
    mrc__cc_clamp(x);
}
/* A trim NACK: a pessimistic, marked delay sample; quick adapt as for a loss; else the window loses the bytes. */
MRC__PRIVATE void mrc__nscc_on_trim(mrc_conn *c, mrc__ccx *x, uint32_t bytes, mrc_time now) {
    mrc__nscc_avg(x, x->p.base_rtt, true);
    x->qa_loss = x->qa_trim = 1;
    if (mrc__nscc_qa(c, x, true, false, x->p.base_rtt, now)) return;
    mrc__nscc_dec(x, bytes, now);
    MRC__CNT(c->st.cc_nack_dec++);
}
/* P30 last-hop trim mark: a TRIMMED_LASTHOP NACK says the receiver's link is full - the queue NSCC's delay-without-ECN
 * rule reads as "last hop, do not decrease" (8.5). For lh_mark_rtts base RTTs the context's SACKs with an RTT sample
 * count as ECN-marked in the quadrant and quick adapt (not in the average delay, mrc__nscc_ack), so a delay over target
 * decreases the window. O(1). */
MRC__PRIVATE void mrc__nscc_lh_mark(mrc__ccx *x, mrc_time now) {
    if (x->p.lh_mark_rtts) x->lh_mark_end = mrc__deadline_ctl(now, (mrc_time)x->p.base_rtt * x->p.lh_mark_rtts);
}
/* A packet judged lost without a trim (Q13 NSCC constants). Where the fabric trims, a silent loss is a path fault, not
 * a full queue: the EV manager demotes the path and the window only sees the loss through quick adapt (a blackholed
 * cable must not shrink the window of every QP that crossed it). Without trimming, drops are the congestion signal and
 * the window loses the packet's bytes as for a trim. */
MRC__PRIVATE void mrc__nscc_on_loss(mrc_conn *c, mrc__ccx *x, uint32_t bytes, mrc_time now) {
    (void)c;
    x->qa_loss = 1;
    if (x->p.trimming) return;
    mrc__nscc_dec(x, bytes, now);
}
/* Receiver penalty (Q12, UET form): the window loses newly x pen / 128; the first penalised window is saved and
 * restored when the responder says r_c. */
MRC__PRIVATE void mrc__nscc_on_pen(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now) {
    if (s->pen) {
        uint64_t d = (s->newly * s->pen) >> 7;
        if (!x->saved_cwnd) x->saved_cwnd = x->cwnd;
        mrc__nscc_dec(x, d, now);
        MRC__CNT(c->st.cc_pen_dec++);
    }
    if (s->r_c && x->saved_cwnd) {
        x->cwnd = MRC__MAX(x->cwnd, x->saved_cwnd);
        x->saved_cwnd = 0;
        mrc__cc_clamp(x);
        MRC__CNT(c->st.cc_restores++);
    }
}

/* ---- the algorithms --------------------------------------------------------------------------------------------- */
typedef struct mrc__cc_ops {
    void (*on_ack)(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now);
    void (*on_trim)(mrc_conn *c, mrc__ccx *x, uint32_t bytes, mrc_time now);
    void (*on_loss)(mrc_conn *c, mrc__ccx *x, uint32_t bytes, mrc_time now);
    void (*on_pen)(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now);
} mrc__cc_ops;
static const mrc__cc_ops mrc__cc_table[3] = {
    {0, 0, 0, 0},                                                              /* NONE: no window */
    {mrc__nscc_on_ack, mrc__nscc_on_trim, mrc__nscc_on_loss, mrc__nscc_on_pen}, /* NSCC */
    {0, 0, 0, 0}                                                               /* FIXED: the window never moves */
};

/* ---- contexts: one per peer and CC profile, shared by its QPs ----------------------------------------------- */
/* The context a QP joins at RTR -> RTS: its peer's on its profile, or a new one. Index, or -1 (table full). */
MRC__PRIVATE int mrc__ccx_slot(const mrc_endpoint *ep, uint32_t peer, uint64_t profile_id) {
    int i, fr = -1;
    for (i = 0; i < MRC_MAX_CCX; i++) {
        const mrc__ccx *x = &ep->ccx[i];
        if (x->used && x->peer == peer && x->profile_id == profile_id) return i;
        if (!x->used && fr < 0) fr = i;
    }
    return fr;
}
MRC__PRIVATE const mrc__ccprof *mrc__ccprof_find(const mrc_endpoint *ep, uint64_t id) {
    return (const mrc__ccprof *)mrc__tab_find(ep->ccprofs, MRC_MAX_CC_PROFILES, sizeof ep->ccprofs[0],
                                              offsetof(mrc__ccprof, used), id);
}
/* A new context for c's peer and CC profile (mrc__cc_init): out of line, the context's address in one register */
MRC__PRIVATE MRC__NOINLINE void mrc__ccx_create(mrc_conn *c, mrc__ccx *x) {
    mrc_endpoint *ep = c->ep;
    const mrc__ccprof *pf = c->attr.cc_profile_id ? mrc__ccprof_find(ep, c->attr.cc_profile_id) : 0;
    mrc_nscc_cfg dflt;
    uint32_t mss = c->attr.path_mtu, rate = ep->cfg.cc.line_rate_mbps;
    uint32_t nominal = mrc__data_hdr_len(c, false) + mss + 4u + MRC_NOMINAL_HDR;
    MRC_MEMSET(x, 0, sizeof *x);
    MRC_MEMSET(&dflt, 0, sizeof dflt);
    x->used = 1;
    x->peer = c->attr.peer;
    x->profile_id = c->attr.cc_profile_id;
    x->ready_head = x->ready_tail = MRC__EV_NONE;
    x->algo = pf ? pf->algo : ep->cfg.cc.algo;
    if (!rate) rate = 100000u * ep->cfg.num_ports;
    mrc__nscc_prm_init(&x->p, pf ? &pf->nscc : &dflt, rate, ep->cfg.cc.base_rtt_ns, ep->cfg.trimmable, mss, nominal);
    if (x->algo == MRC_CC_ALGO_NSCC) {
        x->cwnd = x->p.maxwnd; /* Q13 NSCC constants: start at maxwnd */
        if (c->attr.hint.num_remote_recv_peers > 1u && x->p.trimming) /* P31 QP hints: or a known incast's fair
                                                                         share */
            x->cwnd = MRC__MAX(x->p.maxwnd / c->attr.hint.num_remote_recv_peers, (uint64_t)x->p.min_cwnd);
        x->last_adjust = x->last_dec = ep->now;
        if (MRC__KNOB(ep, cc_subpkt_shift)) { /* P24 sub-packet windows: the window may fall below one packet; the
                                                 context then paces */
            x->p.subpkt = 1;
            x->p.floor = MRC__MAX(nominal >> MRC__MIN(MRC__KNOB(ep, cc_subpkt_shift), 12u), 1u);
        }
        x->p.lh_mark_rtts = MRC__KNOB(ep, cc_lh_mark_rtts);
    } else { /* FIXED, or no window (NONE; a fixed window of 0 too): the NSCC window above is never 0 */
        uint32_t w = 0;
        if (x->algo == MRC_CC_ALGO_FIXED) x->p.maxwnd = w = pf ? pf->fixed_cwnd : ep->cfg.cc.fixed_cwnd_bytes;
        x->cwnd = w ? w : UINT64_MAX;
    }
}
MRC__PRIVATE void mrc__cc_init(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    int i = mrc__ccx_slot(ep, c->attr.peer, c->attr.cc_profile_id);
    mrc__ccx *x;
    MRC_ASSERT(i >= 0); /* checked before the transition */
    x = &ep->ccx[i];
    c->ccx = (uint16_t)i;
    c->ccxp = x;
    c->last_rcvd = 0;
    c->tx_nominal = 0;
    c->rcvd_credit = 0;
    if (!x->used) mrc__ccx_create(c, x);
    x->refs++;
}
MRC__PRIVATE void mrc__cc_release(mrc_conn *c) {
    mrc__ccx *x = mrc__conn_ccx(c);
    if (!x) return;
    if (c->in_ready) { /* unlink (O(QPs of the context), at teardown only) */
        uint16_t *pp = &x->ready_head, prev = MRC__EV_NONE;
        while (*pp != c->slot) {
            prev = *pp;
            pp = &c->ep->conns[*pp]->ready_next;
        }
        *pp = c->ready_next;
        if (x->ready_tail == c->slot) x->ready_tail = prev;
        c->in_ready = 0;
    }
    x->inflight -= MRC__MIN(x->inflight, c->cc_inflight);
    c->cc_inflight = 0;
    if (x->refs && !--x->refs) x->used = 0;
    else mrc__cc_wake(c->ep, x);
    c->ccx = MRC__EV_NONE;
    c->ccxp = (mrc__ccx *)0;
}

/* ---- a QP's inputs: sent, acknowledged, lost, a SACK's congestion signals ----------------------------------- */
/* P24 sub-packet windows: a packet sent with the window below its size sets the pacing clock: the context's next packet
 * waits base RTT x nominal / cwnd, so it sends cwnd bytes per base RTT on average, as a window would over one RTT.
 * One division, only below one packet per RTT - at most once per base RTT, hence _slow (kept off the per-packet
 * path, tools/div_check.py); the fast path leaves these packets to the general code. */
MRC__PRIVATE MRC__NOINLINE void mrc__cc_pace_slow(mrc__ccx *x, uint32_t nominal, mrc_time now) {
    x->pace_next = mrc__deadline_ctl(now, (mrc_time)x->p.base_rtt * nominal / (x->cwnd ? x->cwnd : 1u));
}
MRC__PRIVATE void mrc__cc_on_send(mrc_conn *c, uint32_t nominal) {
    mrc__ccx *x = mrc__conn_ccx(c);
    c->cc_inflight += nominal;
    if (!x) return;
    x->inflight += nominal;
    if (MRC__UNLIKELY(x->cwnd < nominal) && x->p.subpkt) mrc__cc_pace_slow(x, nominal, c->ep->now);
}
/* A PSN left the flight: acknowledged, or judged lost (why: MRC__LOSS_*, 0 for an acknowledgement). */
MRC__PRIVATE MRC__INLINE void mrc__cc_on_ack(mrc_conn *c, uint32_t nominal) {
    mrc__ccx *x = mrc__conn_ccx(c);
    MRC_ASSERT(c->cc_inflight >= nominal);
    c->cc_inflight -= MRC__MIN(c->cc_inflight, (uint64_t)nominal);
    if (!x) return;
    x->inflight -= MRC__MIN(x->inflight, (uint64_t)nominal);
    if (x->ready_head != MRC__EV_NONE) mrc__cc_wake(c->ep, x);
}
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__cc_on_loss(mrc_conn *c, uint32_t nominal, int why, mrc_time now) {
    mrc__ccx *x = mrc__conn_ccx(c);
    const mrc__cc_ops *ops;
    mrc__cc_on_ack(c, nominal);
    if (!x) return;
    ops = &mrc__cc_table[x->algo];
    if (why == MRC__LOSS_TRIM_LH) mrc__nscc_lh_mark(x, now); /* lh_mark_rtts is 0 unless NSCC */
    if (why == MRC__LOSS_TRIM || why == MRC__LOSS_TRIM_LH) { /* trims are congestion; resource NACKs are not (Q14
                                                                non-trim NACKs) */
        if (ops->on_trim) ops->on_trim(c, x, nominal, now);
    } else if (why != MRC__LOSS_NACK) {
        if (ops->on_loss) ops->on_loss(c, x, nominal, now);
    }
}
MRC__PRIVATE void mrc__cc_on_sack(mrc_conn *c, const mrc__cc_sample *s, mrc_time now) {
    mrc__ccx *x = mrc__conn_ccx(c);
    const mrc__cc_ops *ops;
    if (!x) return;
    ops = &mrc__cc_table[x->algo];
    if (ops->on_pen) ops->on_pen(c, x, s, now);
    if (ops->on_ack) ops->on_ack(c, x, s, now);
    if (x->ready_head != MRC__EV_NONE) mrc__cc_wake(c->ep, x);
}

/* ---- CC profiles and queries -------------------------------------------------------------------------------- */
/* the algorithms' names, by MRC_CC_ALGO_* (NONE: none) */
static const char *const mrc__cc_names[3] = {(const char *)0, MRC_CC_NSCC, MRC_CC_FIXED};
MRC__STATIC_ASSERT(MRC_CC_ALGO_NONE == 0 && MRC_CC_ALGO_NSCC == 1 && MRC_CC_ALGO_FIXED == 2, cc_algos);
MRC_API int mrc_cc_profile_modify(mrc_endpoint *ep, uint64_t id, const mrc_cc_profile_attr *a, uint32_t mask) {
    const uint32_t all = MRC_CC_PROF_ATTR_STATE | MRC_CC_PROF_ATTR_ALGORITHM | MRC_CC_PROF_ATTR_CONFIG;
    mrc__ccprof *pf;
    unsigned cur, to, algo = 0;
    int rc;
    if ((rc = mrc__prof_begin(ep, MRC_CALL_CC_PROFILE_MODIFY, a, id, mask, all)) != MRC_OK) return rc;
    pf = (mrc__ccprof *)mrc__ccprof_find(ep, id);
    cur = pf ? pf->state : (unsigned)MRC_PROFILE_INIT;
    to = cur; /* a state past ONLINE only from the call */
    if ((mask & MRC_CC_PROF_ATTR_STATE) && (to = a->state) > MRC_PROFILE_ONLINE)
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_STATE_VALUE, MRC_CC_PROF_ATTR_STATE);
    if ((mask & MRC_CC_PROF_ATTR_ALGORITHM) && a->algorithm) { /* (NULL: NONE) NSCC, then FIXED */
        for (algo = MRC_CC_ALGO_NSCC; algo <= MRC_CC_ALGO_FIXED && !mrc__streq(a->algorithm, mrc__cc_names[algo]);
             algo++) {
        }
        if (algo > MRC_CC_ALGO_FIXED)
            return mrc__fail(ep, MRC_ERR_NOTSUP, MRC_DETAIL_CC_ALGORITHM, MRC_CC_PROF_ATTR_ALGORITHM);
    }
    rc = mrc__prof_step(ep, cur, to, mask, MRC_CC_PROF_ATTR_ALGORITHM, MRC_CC_PROF_ATTR_ALGORITHM, pf && pf->refs);
    if (rc) return rc < 0 ? rc : MRC_OK;
    if (!(mask & MRC_CC_PROF_ATTR_ALGORITHM) && pf) algo = pf->algo;
    if ((mask & MRC_CC_PROF_ATTR_CONFIG) && algo == MRC_CC_ALGO_FIXED && !a->fixed_cwnd)
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_CC_CONFIG, MRC_CC_PROF_ATTR_CONFIG);
    if ((mask & MRC_CC_PROF_ATTR_CONFIG) && algo == MRC_CC_ALGO_NSCC &&
        (a->nscc.qa_gate > 16 || a->nscc.max_md_jump_q16 > 65536u))
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_CC_CONFIG, MRC_CC_PROF_ATTR_CONFIG);
    if (to == MRC_PROFILE_ONLINE && algo != MRC_CC_ALGO_NONE && !(mask & MRC_CC_PROF_ATTR_CONFIG) &&
        !(pf && pf->have_cfg))
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_CC_CONFIG_MISSING, MRC_CC_PROF_ATTR_CONFIG);
    if (to == MRC_PROFILE_INIT) {
        MRC_MEMSET(pf, 0, sizeof *pf);
        return MRC_OK;
    }
    if (!pf && !(pf = (mrc__ccprof *)mrc__tab_claim(ep->ccprofs, MRC_MAX_CC_PROFILES, sizeof ep->ccprofs[0],
                                                    offsetof(mrc__ccprof, used), id)))
        return mrc__fail(ep, MRC_ERR_FULL, MRC_DETAIL_PROFILE_FULL, 0);
    pf->algo = (uint8_t)algo;
    if (mask & MRC_CC_PROF_ATTR_CONFIG) {
        pf->nscc = a->nscc;
        pf->fixed_cwnd = a->fixed_cwnd;
        pf->have_cfg = 1;
    }
    pf->state = (uint8_t)to;
    return MRC_OK;
}
MRC_API int mrc_cc_profile_query(const mrc_endpoint *ep, uint64_t id, mrc_cc_profile_attr *a) {
    const mrc__ccprof *pf;
    if (!ep || !a) return MRC_ERR_INVAL;
    MRC_MEMSET(a, 0, sizeof *a);
    if (id == 0) {
        a->state = MRC_PROFILE_ONLINE;
        a->algorithm = mrc__cc_names[ep->cfg.cc.algo <= MRC_CC_ALGO_FIXED ? ep->cfg.cc.algo : 0];
        a->fixed_cwnd = ep->cfg.cc.fixed_cwnd_bytes;
        a->nscc.base_rtt = ep->cfg.cc.base_rtt_ns;
        return MRC_OK;
    }
    pf = mrc__ccprof_find(ep, id);
    if (!pf) return MRC_ERR_NOENT;
    a->state = pf->state;
    a->algorithm = mrc__cc_names[pf->algo];
    a->nscc = pf->nscc;
    a->fixed_cwnd = pf->fixed_cwnd;
    return MRC_OK;
}
MRC_API int mrc_endpoint_rx_pressure(mrc_endpoint *ep, unsigned penalty) {
    if (!ep || penalty > 127) return MRC_ERR_INVAL;
    ep->rx_pressure = (uint8_t)penalty;
    return MRC_OK;
}
MRC_API int mrc_conn_cc_info(const mrc_conn *c, mrc_cc_info *out) {
    const mrc__ccx *x;
    if (!c || !out) return MRC_ERR_INVAL;
    MRC_MEMSET(out, 0, sizeof *out);
    x = c->ep ? mrc__conn_ccx(c) : (const mrc__ccx *)0;
    if (c->sq_send != c->sq_tail) out->sched = c->in_ready || !mrc__req_can_send_new(c) ? MRC_SCHED_READY
                                                                                         : MRC_SCHED_ACTIVE;
    else out->sched = c->snd_una != c->snd_nxt ? MRC_SCHED_PENDING : MRC_SCHED_IDLE;
    if (!x) return MRC_OK;
    out->algo = x->algo;
    out->ctx_qps = x->refs;
    out->cwnd = x->cwnd;
    out->inflight = x->inflight;
    out->base_rtt_ns = x->p.base_rtt;
    out->avg_delay_ns = mrc__avg_delay(x);
    out->target_ns = x->p.target;
    out->maxwnd = x->p.maxwnd;
    return MRC_OK;
}
