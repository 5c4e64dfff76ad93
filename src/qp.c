/* ================================================================================================================
 * QUEUE PAIRS - src/qp.c
 * Owns: a QP's life: attaching a caller's mrc_conn to the endpoint (its QPN and table slot) and detaching it, its
 * attributes, the state machine RESET -> INIT -> RTR -> RTS and ERR (docs/PROTOCOL.md section 4) with what each
 * transition sets up or tears down (the EV set, the congestion context, the timers, the in-flight pool blocks),
 * and entering ERR - which flushes both halves of the QP, so the requester and the responder call it.
 * Calls: codec, state, timers, sched, cc, path.
 * ============================================================================================================== */
#include "qp.h"
#include "codec.h"
#include "state.h"
#include "timers.h"
#include "sched.h"
#include "cc.h"
#include "path.h"

/* ---- attach, detach, query ---------------------------------------------------------------------------------- */
/* The transmit fast paths' BTH word 0 template and the SACK fast path's header words, kept in step with their inputs:
 * PKEY and DEST_QP (mrc__conn_clear, mrc_conn_modify), TVER (the endpoint's configuration, fixed once attached) and
 * the QPN (mrc_conn_init); the transmit template (mrc__tx_tpl) dropped, to be built again from them */
MRC__PRIVATE void mrc__conn_tx_bth0(mrc_conn *c) {
    c->tx_bth0 = MRC__FW(0, 4, MRC__BTH_TVER, c->ep ? c->ep->cfg.wire.tver : 0u) |
                 MRC__FW(0, 4, MRC__BTH_PKEY, c->attr.pkey);
    mrc__st4((uint8_t *)&c->tx_sack[0], MRC__FW(0, 4, MRC__BTH_OPCODE, MRC_OP_SACK) | c->tx_bth0);
    mrc__st4((uint8_t *)&c->tx_sack[1], MRC__FW(4, 4, MRC__BTH_DEST_QP, c->attr.dest_qpn));
    mrc__st4((uint8_t *)&c->tx_sack[2], MRC__FW(8, 4, MRC__SETH_SPDCID, c->qpn & 0xFFFFu) |
                                            MRC__FW(8, 4, MRC__SETH_DPDCID, c->attr.dest_qpn & 0xFFFFu));
#if MRC__TX_RUN
    c->tpl.wr = 0; /* the transmit template holds PKEY and DEST_QP too */
#endif
}
/* Every timer of the QP disarmed (its heap key is the caller's to update) */
MRC__PRIVATE MRC__NOINLINE void mrc__timers_never(mrc_conn *c) {
    c->rto_deadline = c->tlp_deadline = c->sack_deadline = c->evp_deadline = MRC_TIME_NEVER;
    c->nopath_deadline = c->pace_deadline = c->reo_deadline = c->ver_deadline = MRC_TIME_NEVER;
}
/* Every per-connection protocol variable back to its RESET value; identity (ep, slot, qpn, user) is kept. */
MRC__PRIVATE void mrc__conn_clear(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    void *user = c->user;
    uint16_t slot = c->slot;
    uint32_t qpn = c->qpn;
    if (ep) {
        mrc__heap_remove(ep, c);
        if (c->t_armed) ep->armed--;
        if (c->in_ctq) mrc__ring_remove(ep->ctq, &ep->ctq_head, &ep->ctq_len, slot);
        if (c->in_txq) mrc__ring_remove(ep->txq, &ep->txq_head, &ep->txq_len, slot);
        if (c->in_evq) mrc__ring_remove(ep->evq, &ep->evq_head, &ep->evq_len, slot);
        if (c->in_poolq) mrc__ring_remove(ep->poolq, &ep->poolq_head, &ep->poolq_len, slot);
        c->in_poolq = 0;
        mrc__pool_put_all(c);
        mrc__ev_release(c);
        mrc__cc_release(c);
        if (c->ccprof_ref) {
            mrc__ccprof *pf = (mrc__ccprof *)mrc__ccprof_find(ep, c->attr.cc_profile_id);
            if (pf && pf->refs) pf->refs--;
        }
    }
    MRC_MEMSET(c, 0, sizeof *c);
    c->ccx = MRC__EV_NONE;
    c->ep = ep;
    c->user = user;
    c->slot = slot;
    c->qpn = qpn;
    c->heap_idx = MRC__NOHEAP;
    mrc__ev_lists_empty(c); /* 0 is a slot: the empty lists need their sentinel */
    c->deadline = MRC_TIME_NEVER;
    mrc__timers_never(c);
    c->state = MRC_QPS_RESET;
    c->attr.state = MRC_QPS_RESET;
    c->attr.pkey = 0xFFFF;
    c->attr.access = MRC_ACCESS_REMOTE_WRITE;
    mrc__conn_tx_bth0(c);
}
MRC_API int mrc_conn_init(mrc_endpoint *ep, mrc_conn *c, mrc_time now) {
    unsigned i;
    if (!ep) return MRC_ERR_INVAL;
    mrc__detail_begin(ep, MRC_CALL_CONN_INIT);
    if (!c) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_NULL_ARG, 0);
    (void)mrc__clock_ctl(ep, now);
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        if (ep->conns[i] == c) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_ALREADY_ATTACHED, 0);
    }
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        if (ep->conns[i]) continue;
        c->ep = (mrc_endpoint *)0;
        c->user = (void *)0;
        mrc__conn_clear(c);
        c->ep = ep;
        c->slot = (uint16_t)i;
        c->qpn = !ep->cfg.qpn_base ? mrc__qpn_draw(ep, i) : ep->cfg.qpn_base + i;
        mrc__conn_tx_bth0(c);
        ep->conns[i] = c;
        return MRC_OK;
    }
    return mrc__fail(ep, MRC_ERR_FULL, MRC_DETAIL_CONN_FULL, 0);
}
/* c is attached to its endpoint (mrc_conn_init, not destroyed since): the first check of destroy, modify and connect.
 * Out of line: one call in each instead of three copies of the test */
MRC__PRIVATE MRC__NOINLINE bool mrc__conn_attached(const mrc_conn *c) {
    return c && c->ep && c->ep->conns[c->slot] == c;
}
MRC_API int mrc_conn_destroy(mrc_conn *c) {
    mrc_endpoint *ep;
    if (!mrc__conn_attached(c)) return MRC_ERR_INVAL;
    ep = c->ep;
    mrc__detail_begin(ep, MRC_CALL_CONN_DESTROY);
    if (c->state != MRC_QPS_RESET && c->state != MRC_QPS_ERR)
        return mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_DESTROY_STATE, 0);
    mrc__conn_clear(c);
    ep->conns[c->slot] = (mrc_conn *)0;
    c->ep = (mrc_endpoint *)0;
    return MRC_OK;
}
MRC_API uint32_t mrc_conn_qpn(const mrc_conn *c) { return c ? c->qpn : 0; }
MRC_API int mrc_conn_state(const mrc_conn *c) { return c ? (int)c->state : MRC_ERR_INVAL; }
MRC_API void mrc_conn_set_user(mrc_conn *c, void *user) {
    if (c) c->user = user;
}
MRC_API void *mrc_conn_user(const mrc_conn *c) { return c ? c->user : (void *)0; }
MRC_API int mrc_conn_query(const mrc_conn *c, mrc_conn_attr *a) {
    if (!c || !a) return MRC_ERR_INVAL;
    *a = c->attr;
    a->state = c->state;
    return MRC_OK;
}

/* ---- the state machine: RESET -> INIT -> RTR -> RTS, and ERR from any state --------------------------------- */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__set_state(mrc_conn *c, uint8_t s) {
    c->state = s;
    c->attr.state = s;
    MRC__TRACE(c->ep, MRC_TRACE_STATE, c->qpn, s);
}
/* Requester window in PSNs: MPR (units of 128) capped by the per-PSN record ring. */
MRC__PRIVATE void mrc__set_req_window(mrc_conn *c, unsigned mpr_units) {
    uint32_t w = (uint32_t)mpr_units * 128u;
    c->win_psns = MRC__MIN(w, (uint32_t)MRC_MAX_INFLIGHT);
}

/* ---- entering ERR (it empties the requester and the responder: both call it) -------------------------------- */
/* Q22 error flush: ibverbs semantics. Every outstanding work request completes with MRC_ERR_FLUSH, except the one that
 * caused a requester-side error (RETRY_EXC: the oldest incomplete; REMOTE_*: the message the NAK names), which carries
 * that status. Posted receives flush; stashed immediates are discarded. A CONN_ERROR event comes first. */
MRC__PRIVATE void mrc__conn_error(mrc_conn *c, int status, int has_msn, uint16_t msn, mrc_time now) {
    uint32_t i;
    bool blame = status == MRC_ERR_RETRY_EXC || status == MRC_ERR_NOPATH || has_msn;
    (void)now;
    if (c->state == MRC_QPS_ERR) return;
    mrc__set_state(c, MRC_QPS_ERR);
    mrc__ev_rc_clear(c); /* P23 EV recycling: nothing is recycled across ERR */
    c->err_pending = 1;
    c->err_status = (int16_t)status;
    for (i = c->sq_done; i != c->sq_tail; i++) {
        mrc__wr *wr = MRC__SQ(c, i);
        if (blame && (!has_msn || mrc__wr_msn(i) == msn)) {
            wr->status = (int16_t)status;
            blame = false;
        } else {
            wr->status = MRC_ERR_FLUSH;
        }
    }
    c->sq_done = c->sq_send = c->sq_tail;
    c->sq_sent = 0;
#if MRC__TX_RUN
    c->tpl.wr = 0; /* the transmit template's message is gone */
#endif
    for (i = c->rq_done; i != c->rq_tail; i++) {
        mrc__rqe *q = &c->rq[i & (MRC_MAX_RQ - 1u)];
        q->imm = 0;
        q->len = MRC__RQE_FLUSHED;
    }
    c->rq_done = c->rq_tail;
    for (i = 0; i < MRC_MAX_WIMM; i++) c->imms[i].psn = 0;
    c->rtxq.n = c->txl.n = 0;
    mrc__pool_put_all(c); /* the records go (state is ERR first: a block freed is not handed back to this QP) */
    c->ctlq_head = c->ctlq_tail;
    MRC_MEMSET(c->probes, 0, sizeof c->probes);
    MRC_MEMSET(c->probe_sent, 0, sizeof c->probe_sent);
    c->probes_due = 0;
    c->ver_n = 0; /* P35 sweeps: no verification is awaited any more (the holds stay until a rebuild: ERR sends nothing)
                     */
    for (i = 0; i < c->ev_count; i++) c->evs[i].st = (uint8_t)(c->evs[i].st & ~MRC__EVF_VPROBE);
    c->tlp2 = 0;
    mrc__cc_release(c); /* its packets in flight no longer count against the peer's window */
    c->sack_pending = 0;
    mrc__timers_never(c);
    mrc__timer_update(c);
    mrc__sched_ev(c);
}

/* ---- modify and connect ------------------------------------------------------------------------------------- */
/* Where the attribute of mask bit i is in mrc_conn_attr: offset and size (bit 0, the state, is not copied from the
 * caller's; RETRY is two adjacent bytes, retry_linear and retry_exp) */
#define MRC__AT(m) {(uint8_t)offsetof(mrc_conn_attr, m), (uint8_t)sizeof(((mrc_conn_attr *)0)->m)}
static const uint8_t mrc__attr_at[18][2] = {
    {0, 0},          MRC__AT(pkey),     MRC__AT(access), MRC__AT(ev_profile_id), MRC__AT(cc_profile_id),
    MRC__AT(dest_qpn), MRC__AT(rq_psn), MRC__AT(path_mtu), MRC__AT(mpr_dest), MRC__AT(max_wimm_dest),
    MRC__AT(caps),   MRC__AT(peer),     MRC__AT(sq_psn), MRC__AT(mpr),     MRC__AT(max_wimm),
    {(uint8_t)offsetof(mrc_conn_attr, retry_linear), 2}, MRC__AT(timeout), MRC__AT(hint)};
MRC__STATIC_ASSERT(offsetof(mrc_conn_attr, retry_exp) == offsetof(mrc_conn_attr, retry_linear) + 1, attr_retry);
MRC__STATIC_ASSERT(MRC_ATTR_PATH_MTU == (uint32_t)1 << 7 && MRC_ATTR_HINT == (uint32_t)1 << 17, attr_bits);
MRC__STATIC_ASSERT(sizeof(mrc_conn_attr) <= 255u, attr_offsets); /* the table's offsets are bytes */
MRC__PRIVATE void mrc__attr_copy(mrc_conn_attr *to, const mrc_conn_attr *from, unsigned i) {
    uint8_t *d = (uint8_t *)to + mrc__attr_at[i][0];
    const uint8_t *s = (const uint8_t *)from + mrc__attr_at[i][0];
    unsigned k;
    for (k = 0; k < mrc__attr_at[i][1]; k++) d[k] = s[k]; /* byte by byte: from may be &to */
}
/* The range of each numeric attribute mrc_conn_modify checks, in the order it checks them (mrc__ranges; the mask bit
 * is bit - 1): those up to PATH_MTU (256..4096, then a power of two), then the rest */
#define MRC__ARNG(m, lo, hi, b, c) MRC__RNG(mrc_conn_attr, m, 0, lo, hi, (b) + 1, c)
static const mrc__range mrc__attr_ranges[] = {
    MRC__ARNG(dest_qpn, MRC_EPOP_QPN + 1u, MRC_PSN_MASK, 5, MRC_DETAIL_DEST_QPN),
    MRC__ARNG(rq_psn, 0, MRC_PSN_MASK, 6, MRC_DETAIL_PSN),
    MRC__ARNG(sq_psn, 0, MRC_PSN_MASK, 12, MRC_DETAIL_PSN),
    MRC__ARNG(path_mtu, 256, 4096, 7, MRC_DETAIL_PATH_MTU)};
static const mrc__range mrc__attr_ranges2[] = {
    MRC__ARNG(mpr_dest, 1, MRC_MAX_MPR_UNITS, 8, MRC_DETAIL_MPR_DEST),
    MRC__ARNG(max_wimm_dest, 1, MRC_MAX_WIMM, 9, MRC_DETAIL_MAX_WIMM_DEST),
    MRC__ARNG(caps, 0, MRC_CAP_TRIM_NACK_DEST_UNSUPPORTED | MRC_CAP_DYNAMIC_MPR | MRC_CAP_SVC_TIME_DEST_UNSUPPORTED,
              10, MRC_DETAIL_CAPS), /* those bits only */
    MRC__ARNG(mpr, 1, 0xFFu, 13, MRC_DETAIL_MPR),
    MRC__ARNG(max_wimm, 1, 0xFFFFu, 14, MRC_DETAIL_MAX_WIMM),
    MRC__ARNG(retry_linear, 0, 7, 15, MRC_DETAIL_RETRY),
    MRC__ARNG(retry_exp, 0, 25, 15, MRC_DETAIL_RETRY),
    MRC__ARNG(timeout, 0, 24, 16, MRC_DETAIL_TIMEOUT)};
/* The transitions between RESET, INIT, RTR and RTS mrc_conn_modify makes (to RESET and ERR: from any state, the state
 * alone): mrc__trans_of[cur][to] is the transition's index + 1 in the tables of the attributes each requires and
 * allows, or 0 for an illegal one */
enum { MRC__TR_INIT = 1, MRC__TR_INIT_INIT, MRC__TR_RTR, MRC__TR_RTS, MRC__TR_RTS_RTS, MRC__TR_ANY };
static const uint8_t mrc__trans_of[MRC_QPS_ERR + 1][MRC_QPS_ERR + 1] = {
    {MRC__TR_ANY, MRC__TR_INIT, 0, 0, MRC__TR_ANY},
    {MRC__TR_ANY, MRC__TR_INIT_INIT, MRC__TR_RTR, 0, MRC__TR_ANY},
    {MRC__TR_ANY, 0, 0, MRC__TR_RTS, MRC__TR_ANY},
    {MRC__TR_ANY, 0, 0, MRC__TR_RTS_RTS, MRC__TR_ANY},
    {MRC__TR_ANY, 0, 0, 0, MRC__TR_ANY}};
static const uint32_t mrc__trans_req[MRC__TR_ANY] = {
    MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, 0,
    MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU | MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST,
    MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT, 0, 0};
static const uint32_t mrc__trans_opt[MRC__TR_ANY] = {
    MRC_ATTR_PKEY | MRC_ATTR_ACCESS | MRC_ATTR_HINT, MRC_ATTR_PKEY | MRC_ATTR_ACCESS | MRC_ATTR_HINT,
    MRC_ATTR_CAPS | MRC_ATTR_PEER | MRC_ATTR_PKEY | MRC_ATTR_ACCESS, MRC_ATTR_ACCESS,
    MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT | MRC_ATTR_ACCESS, 0};
MRC_API int mrc_conn_modify(mrc_conn *c, const mrc_conn_attr *a, uint32_t mask, mrc_time now) {
    uint32_t req, bad;
    unsigned cur, to, tr, i;
    int rc;
    mrc_endpoint *ep;
    if (!mrc__conn_attached(c)) return MRC_ERR_INVAL;
    ep = c->ep;
    mrc__detail_begin(ep, MRC_CALL_CONN_MODIFY);
    if (!a) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_NULL_ARG, 0);
    now = mrc__clock_ctl(ep, now);
    cur = c->state;
    to = (mask & MRC_ATTR_STATE) ? a->state : cur;
    if (to > MRC_QPS_ERR) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_STATE_VALUE, MRC_ATTR_STATE);
    tr = mrc__trans_of[cur][to]; /* (without MRC_ATTR_STATE, to is cur: RESET and ERR stay, the state alone) */
    if (!tr) return mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_TRANSITION, 0);
    req = mrc__trans_req[tr - 1u];
    bad = mask & ~(req | mrc__trans_opt[tr - 1u] | (uint32_t)MRC_ATTR_STATE);
    if (bad)
        return mrc__fail(ep, MRC_ERR_INVAL,
                         (mask & MRC_ATTR_STATE) ? MRC_DETAIL_ATTR_UNEXPECTED : MRC_DETAIL_STATE_MISSING, bad);
    if ((mask & req) != req) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_ATTR_MISSING, req & ~mask);

    /* validate every value before changing anything */
    if ((mask & MRC_ATTR_PKEY) && (a->pkey & 0x7FFFu) == 0)
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_PKEY, MRC_ATTR_PKEY);
    if ((mask & MRC_ATTR_ACCESS) && (a->access & ~(uint32_t)MRC_ACCESS_REMOTE_WRITE))
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_ACCESS, MRC_ATTR_ACCESS);
    if ((mask & MRC_ATTR_EV_PROFILE) && a->ev_profile_id != 0) {
        const mrc__evprof *pf = mrc__prof_find(ep, a->ev_profile_id);
        if (!pf || pf->state != MRC_PROFILE_ONLINE)
            return mrc__fail(ep, MRC_ERR_NOENT, MRC_DETAIL_EV_PROFILE, MRC_ATTR_EV_PROFILE);
    }
    if ((mask & MRC_ATTR_CC_PROFILE) && a->cc_profile_id != 0) {
        const mrc__ccprof *pf = mrc__ccprof_find(ep, a->cc_profile_id);
        if (!pf || pf->state != MRC_PROFILE_ONLINE)
            return mrc__fail(ep, MRC_ERR_NOENT, MRC_DETAIL_CC_PROFILE, MRC_ATTR_CC_PROFILE);
    }
    if (tr == MRC__TR_RTS && mrc__ccx_slot(ep, c->attr.peer, c->attr.cc_profile_id) < 0)
        return mrc__fail(ep, MRC_ERR_FULL, MRC_DETAIL_CCX_FULL, 0); /* no congestion context left */
    if ((rc = mrc__ranges(ep, a, mrc__attr_ranges, MRC__NRANGES(mrc__attr_ranges), mask)) != MRC_OK) return rc;
    if ((mask & MRC_ATTR_PATH_MTU) && (a->path_mtu & (a->path_mtu - 1u))) /* in 256..4096 (above) */
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_PATH_MTU, MRC_ATTR_PATH_MTU);
    if ((rc = mrc__ranges(ep, a, mrc__attr_ranges2, MRC__NRANGES(mrc__attr_ranges2), mask)) != MRC_OK) return rc;

    if (to == MRC_QPS_ERR) {
        mrc__conn_error(c, MRC_ERR_FLUSH, 0, 0, now); /* nothing in ERR already */
        return MRC_OK;
    }
    if (to == MRC_QPS_RESET) {
        mrc__conn_clear(c);
        return MRC_OK;
    }
    for (i = 1; i <= 17u; i++) /* every attribute of the mask (mask <= MRC_ATTR_HINT: checked above) */
        if (mask & ((uint32_t)1 << i)) mrc__attr_copy(&c->attr, a, i);
    if (mask & (MRC_ATTR_PKEY | MRC_ATTR_DEST_QPN)) mrc__conn_tx_bth0(c);

    if (tr == MRC__TR_INIT) {
        if (c->attr.ev_profile_id) {
            mrc__evprof *pf = mrc__prof_find(c->ep, c->attr.ev_profile_id);
            c->ev_prof = (uint8_t)(pf - c->ep->profs + 1);
            pf->refs++;
        }
        if (c->attr.cc_profile_id) {
            ((mrc__ccprof *)mrc__ccprof_find(c->ep, c->attr.cc_profile_id))->refs++;
            c->ccprof_ref = 1;
        }
        mrc__ev_setup(c);
    } else if (tr == MRC__TR_RTR) {
        /* responder: cack = rq_psn - 1; window of mpr_dest * 128 PSNs (Q10 window edge: edge exclusive by default) */
        c->cack = MRC__PSN_DEC(c->attr.rq_psn);
        c->rsp_win = (uint32_t)c->attr.mpr_dest * 128u - (c->ep->cfg.rx.window_inclusive ? 0u : 1u);
        c->mtu_shift = mrc__ctz64(c->attr.path_mtu); /* a power of two in 256..4096 (checked above) */
        c->msn_done = 0;
        c->imm_next = 0;
    } else if (tr == MRC__TR_RTS) {
        c->win_base = c->snd_una = c->snd_nxt = c->attr.sq_psn;
        mrc__set_req_window(c, c->attr.mpr);
        /* the first message is MSN 1 (mrc__wr_msn; AETH msn 0 means "none yet", IBTA) */
        c->next_rqmsn = 0;
        c->srtt = c->ep->cfg.recovery.rtt_init_ns;
        c->rtt_min = MRC_TIME_NEVER;
        c->reo_mult = 1;
        c->reo_last = now;
        mrc__cc_init(c);
    }
    if (to != cur) mrc__set_state(c, (uint8_t)to);
    mrc__sched_tx(c);
    if (tr == MRC__TR_RTS_RTS && (mask & (MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT)))
        mrc__req_timers(c); /* the running timer takes the new values now (P5 RTO schedule), not at its next re-arm */
    else
        mrc__timer_update(c);
    return MRC_OK;
}
MRC_API void mrc_conn_attr_default(mrc_conn_attr *a) {
    unsigned w = MRC__MIN(8u, (unsigned)MRC_MAX_MPR_UNITS);
    if (!a) return;
    MRC_MEMSET(a, 0, sizeof *a);
    a->pkey = 0xFFFF;
    a->access = MRC_ACCESS_REMOTE_WRITE;
    a->path_mtu = 4096;
    a->mpr_dest = (uint8_t)w;
    a->mpr = (uint8_t)MRC__MIN(w, (unsigned)MRC_MAX_INFLIGHT / 128u);
    if (!a->mpr) a->mpr = 1;
    a->max_wimm_dest = (uint16_t)MRC_MAX_WIMM;
    a->max_wimm = (uint16_t)MRC_MAX_WIMM;
    a->retry_linear = 7;
    a->retry_exp = 7;
    a->timeout = 14;
}
MRC_API int mrc_conn_connect(mrc_conn *c, const mrc_conn_attr *a, mrc_time now) {
    static const uint8_t to[3] = {MRC_QPS_INIT, MRC_QPS_RTR, MRC_QPS_RTS};
    static const uint32_t mask[3] = {MRC_ATTR_INIT_MASK, MRC_ATTR_RTR_MASK, MRC_ATTR_RTS_MASK};
    mrc_conn_attr s;
    unsigned i;
    int rc;
    if (!mrc__conn_attached(c)) return MRC_ERR_INVAL;
    if (!a) {
        mrc__detail_begin(c->ep, MRC_CALL_CONN_MODIFY);
        return mrc__fail(c->ep, MRC_ERR_INVAL, MRC_DETAIL_NULL_ARG, 0);
    }
    if (c->state == MRC_QPS_ERR) {
        mrc__detail_begin(c->ep, MRC_CALL_CONN_MODIFY);
        return mrc__fail(c->ep, MRC_ERR_STATE, MRC_DETAIL_TRANSITION, 0);
    }
    s = *a;
    for (i = 0; i < 3; i++) {
        if (c->state >= to[i]) continue; /* a conn already past a step skips it */
        s.state = to[i];
        rc = mrc_conn_modify(c, &s, MRC_ATTR_STATE | mask[i], now);
        if (rc) return rc;
    }
    return MRC_OK;
}
