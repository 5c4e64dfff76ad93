/* ================================================================================================================
 * SCHEDULER - src/sched.c
 * Owns: which QP sends next. The endpoint queues (ctq then txq: QPs with control packets, then QPs with requester
 * work, each round-robin, so acknowledgements never wait behind data and backlogged QPs share data turns equally;
 * evq: QPs with events to pull), the send gate (a QP's next new or retransmitted packet fits its MPR window, WIMM
 * limit, the in-flight pool and its congestion context's window), the READY list of each congestion context (QPs
 * the window stops, woken oldest first as acknowledgements open it) and the QPs waiting for an in-flight pool block.
 * How the window changes is congestion control's (src/cc.c); this file only reads it.
 * Calls: codec, state, timers.
 * ============================================================================================================== */
#include "sched.h"
#include "codec.h"
#include "state.h"
#include "timers.h"

/* ---- the endpoint queues: ctq (control packets), txq (requester work), evq (events), each round-robin ------- */
/* inline: a store and a count, made on every packet (a call cost more than the push and its caller's spills); the
 * _il form in line even where a size-optimized build would call it (the responder's per-packet SACK queueing) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__ring_push_il(uint16_t *ring, uint32_t *head, uint32_t *len, uint16_t slot) {
    MRC_ASSERT(*len < MRC_MAX_CONNS);
    ring[(*head + *len) % MRC_MAX_CONNS] = slot;
    (*len)++;
}
MRC__PRIVATE MRC__INLINE void mrc__ring_push(uint16_t *ring, uint32_t *head, uint32_t *len, uint16_t slot) {
    mrc__ring_push_il(ring, head, len, slot);
}
MRC__PRIVATE void mrc__ring_remove(uint16_t *ring, uint32_t *head, uint32_t *len, uint16_t slot) {
    uint32_t i, j = 0, n = *len;
    for (i = 0; i < n; i++) { /* O(conns), only on destroy/reset */
        uint16_t s = ring[(*head + i) % MRC_MAX_CONNS];
        if (s != slot) ring[(*head + j++) % MRC_MAX_CONNS] = s;
    }
    *len = j;
}

/* ---- the send gate: may this QP send a packet now (docs/PROTOCOL.md 8.3) ------------------------------------ */
MRC__PRIVATE MRC__INLINE mrc__ccx *mrc__conn_ccx(const mrc_conn *c) {
    return c->ccxp;
}
/* mrc__cc_fits' pacing part, for a full window (out of line at -Os: two fast-path copies) */
MRC__PRIVATE MRC__SIZE_COLD bool mrc__cc_paced(const mrc__ccx *x, mrc_time now) {
    return x->inflight == 0 && now >= x->pace_next;
}
/* a packet of that nominal size fits context x's window (always, with none); with nothing in flight one packet
 * always goes, unless the window is below one packet and the pacing clock says not yet (P24 sub-packet windows;
 * pace_next stays 0 without sub-packet windows) */
MRC__PRIVATE MRC__INLINE bool mrc__cc_fits(const mrc__ccx *x, uint32_t nominal, mrc_time now) {
    return !x || x->inflight + nominal <= x->cwnd || mrc__cc_paced(x, now);
}
MRC__PRIVATE bool mrc__cc_can_send(const mrc_conn *c, uint32_t nominal) {
    return mrc__cc_fits(mrc__conn_ccx(c), nominal, c->ep->now);
}
/* May a new PSN go: MRC__NEW_OK; MRC__NEW_CWND when only the congestion window stops it (the QP is READY);
 * MRC__NEW_NO otherwise (nothing posted, MPR window or WIMM limit: this QP's own acknowledgements reopen them). */
MRC__PRIVATE int mrc__req_new(const mrc_conn *c) {
    const mrc__wr *wr;
    if (c->sq_send == c->sq_tail) return MRC__NEW_NO;
    wr = &c->sq[c->sq_send & (MRC_MAX_SQ - 1u)];
    if (c->sq_sent == 0 && wr->opcode == MRC_WR_WRITE_IMM && c->wimm_out >= c->attr.max_wimm) return MRC__NEW_NO;
    if ((uint32_t)mrc_psn_diff(c->snd_nxt, c->win_base) >= c->win_psns) return MRC__NEW_NO;
    if (!c->btab[MRC__BTAB_IDX(c->snd_nxt)] && !(c->ep->pool_nfree | c->ep->pool_nret)) /* no memory for it */
        return MRC__NEW_POOL;
    return mrc__cc_can_send(c, mrc__nominal(c, wr, c->sq_sent)) ? MRC__NEW_OK : MRC__NEW_CWND;
}
MRC__PRIVATE bool mrc__req_can_send_new(const mrc_conn *c) { return mrc__req_new(c) == MRC__NEW_OK; }
/* Retransmissions obey the congestion window like new data (docs/PROTOCOL.md 8.3: the scheduler gates every data
 * packet), or a trim storm feeds itself; the window check uses the queue head's size (a stale head is skipped when
 * sent). */
MRC__PRIVATE int mrc__req_rtx(const mrc_conn *c) {
    uint32_t psn;
    const mrc__psnrec *r;
    if (!c->rtxq.n) return MRC__NEW_NO;
    psn = c->rtxq.head;
    r = MRC__REC(c, psn);
    return c->rtx_force || mrc__cc_can_send(c, mrc__rec_nominal(c, psn, r)) ? MRC__NEW_OK : MRC__NEW_CWND;
}

/* ---- waiting: on its congestion context (READY) or for a pool block ----------------------------------------- */
/* The QP waits for its context's window; it is woken, oldest first, as acknowledgements open the window. */
MRC__PRIVATE void mrc__cc_block(mrc_conn *c) {
    mrc__ccx *x = mrc__conn_ccx(c);
    if (!x) return;
    /* P24 sub-packet windows: nothing of the context in flight, so no acknowledgement will wake it: the pacing clock
     * holds it, and its own deadline (mrc__cc_pace_expire) wakes the READY list then */
    if (MRC__UNLIKELY(!x->inflight) && x->pace_next > c->ep->now && c->pace_deadline != x->pace_next) {
        c->pace_deadline = x->pace_next;
        /* with nothing in flight its retransmission timers have nothing to time: they run from when it may send
         * (an RTO here would bypass the window, P24 sub-packet windows's point, and back off the QP's tail) */
        if (c->state == MRC_QPS_RTS && (c->rto_start < x->pace_next || c->tlp_base < x->pace_next)) {
            c->rto_start = MRC__MAX(c->rto_start, x->pace_next);
            c->tlp_base = MRC__MAX(c->tlp_base, x->pace_next);
            c->tlp_ahead = 1; /* the next transmission may move it back: the TLP is re-armed exactly then */
            mrc__req_timers(c);
        } else {
            mrc__timer_update(c);
        }
    }
    if (c->in_ready) return;
    c->in_ready = 1;
    c->ready_next = MRC__EV_NONE;
    if (x->ready_tail == MRC__EV_NONE) x->ready_head = c->slot;
    else c->ep->conns[x->ready_tail]->ready_next = c->slot;
    x->ready_tail = c->slot;
}
/* No block for the next new PSN and none free or retained: wait for one (once on the list, counted once). The QP is
 * never forgotten: a block freed or retained while it is listed is handed to it. */
MRC__PRIVATE void mrc__pool_wait(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    if (c->in_poolq) return;
    c->in_poolq = 1;
    mrc__ring_push(ep->poolq, &ep->poolq_head, &ep->poolq_len, c->slot);
    MRC__CNT(c->st.pool_waits++);
    MRC__CNT(ep->st.pool_waits++);
}

/* ---- scheduling: a QP with work joins the queues once ------------------------------------------------------- */
/* c (in RTS, not in the txq) can send now (MRC__NEW_OK): queued; MRC__NEW_CWND: READY on its context;
 * MRC__NEW_POOL: waiting for a pool block; MRC__NEW_NO: nothing */
MRC__PRIVATE MRC__INLINE void mrc__sched_txq(mrc_conn *c, int w) {
    if (w == MRC__NEW_OK) {
        c->in_txq = 1;
        mrc__ring_push(c->ep->txq, &c->ep->txq_head, &c->ep->txq_len, c->slot);
    } else if (w == MRC__NEW_CWND) {
        mrc__cc_block(c); /* READY: woken when its context's window opens */
    } else if (w == MRC__NEW_POOL) {
        mrc__pool_wait(c); /* woken with a block when another QP frees one */
    }
}
/* c's control packets, queued once */
MRC__PRIVATE MRC__INLINE void mrc__sched_ctl(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    if (c->ctlq_head != c->ctlq_tail && !c->in_ctq) { /* most often nothing is queued */
        c->in_ctq = 1;
        mrc__ring_push(ep->ctq, &ep->ctq_head, &ep->ctq_len, c->slot);
    }
}
MRC__PRIVATE void mrc__sched_tx(mrc_conn *c) {
    mrc__sched_ctl(c);
    if (!c->in_txq && c->state == MRC_QPS_RTS) { /* work it can send now: each check made once */
        int w = c->probes_due ? MRC__NEW_OK : mrc__req_rtx(c);
        mrc__sched_txq(c, w == MRC__NEW_NO ? mrc__req_new(c) : w);
    }
}
MRC__PRIVATE void mrc__sched_ev(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    if (c->in_evq) return;
    c->in_evq = 1;
    mrc__ring_push(ep->evq, &ep->evq_head, &ep->evq_len, c->slot);
}

/* ---- waking: a window opens, a pacing deadline passes, a pool block comes free ------------------------------ */
/* A few per event (O(1)) - but every one when nothing of the context is in flight: no acknowledgement will come to
 * wake the others (a woken QP may send nothing: no EV, its MPR window or WIMM limit), so none may stay (issue 13).
 * A QP woken with nothing in flight can send or has a reason of its own not to: it never goes back on the list -
 * unless the context's pacing clock holds it (P24 sub-packet windows): then it goes back with its pacing deadline
 * armed, which wakes the list again, and the others wait with it. */
MRC__PRIVATE void mrc__cc_wake(mrc_endpoint *ep, mrc__ccx *x) {
    unsigned n = 0;
    while (x->ready_head != MRC__EV_NONE && x->inflight < x->cwnd && (n++ < 4u || !x->inflight)) {
        mrc_conn *c = ep->conns[x->ready_head];
        x->ready_head = c->ready_next;
        if (x->ready_head == MRC__EV_NONE) x->ready_tail = MRC__EV_NONE;
        c->in_ready = 0;
        mrc__sched_tx(c);
        if (MRC__UNLIKELY(c->in_ready) && !x->inflight) break; /* P24 sub-packet windows: the pacing clock holds it (its
                                                                  deadline is
                                                                 * armed) and the context with it */
    }
}
/* A QP woken from the READY list (or in the round-robin) sent nothing, for a reason of its own (no EV, its MPR window
 * or WIMM limit): the wake-up it got would otherwise be lost. The READY list is served only on acknowledgements and
 * losses, a few QPs per event, on the assumption that the woken QPs put bytes in flight whose acknowledgements wake
 * the next ones; a woken QP that sends nothing breaks that chain, and when nothing else of the context is in flight
 * the QPs left on the list wait for ever with the window open (issue 13). So its turn passes on. */
MRC__PRIVATE void mrc__cc_pass(mrc_conn *c) {
    mrc__ccx *x = mrc__conn_ccx(c);
    if (x && x->ready_head != MRC__EV_NONE) mrc__cc_wake(c->ep, x);
}
/* P24 sub-packet windows: a QP's pacing deadline: its context's READY list is woken (every QP of it with nothing in
 * flight; the first to send puts the rest back to wait for its acknowledgement), as mrc__cc_pass wakes it.
 * mrc_endpoint_on_timeout then schedules the QP. */
MRC__PRIVATE void mrc__cc_pace_expire(mrc_conn *c) {
    c->pace_deadline = MRC_TIME_NEVER;
    mrc__cc_pass(c);
}
/* Free the block of c's table entry t (if any). The first waiting QP that still needs a block gets it, and is
 * scheduled. */
MRC__PRIVATE void mrc__pool_release(mrc_conn *c, uint32_t t) {
    mrc_endpoint *ep = c->ep;
    uint32_t i;
    if (!c->btab[t]) return;
    i = c->btab[t] - 1u;
    c->btab[t] = 0;
    if (mrc__pool_ret(ep, i)) mrc__pool_unretain(ep, i);
    while (ep->poolq_len) { /* O(1) amortised: each entry is looked at once */
        mrc_conn *w = ep->conns[ep->poolq[ep->poolq_head % MRC_MAX_CONNS]];
        ep->poolq_head = (ep->poolq_head + 1u) % MRC_MAX_CONNS;
        ep->poolq_len--;
        w->in_poolq = 0;
        if (w->state != MRC_QPS_RTS || w->btab[MRC__BTAB_IDX(w->snd_nxt)]) continue; /* needs none any more */
        mrc__pool_give(w, w->snd_nxt, i);
        MRC__CNT(ep->st.pool_handoffs++);
        mrc__sched_tx(w);
        return;
    }
    ep->pool[i].next = ep->free_head;
    ep->free_head = (mrc__blkidx)(i + 1u);
    ep->pool_nfree++;
}
/* The block holding psn (if any) now holds acknowledged PSNs only: retained at the FIFO's tail - or handed over at
 * once if a QP waits (one waits only while no block is free or retained). */
MRC__PRIVATE void mrc__pool_retain(mrc_conn *c, uint32_t psn) {
    mrc_endpoint *ep = c->ep;
    uint32_t t = MRC__BTAB_IDX(psn), i;
    mrc__pblk *b;
    if (!c->btab[t]) return;
    i = c->btab[t] - 1u;
    b = &ep->pool[i];
    if (mrc__pool_ret(ep, i)) return;
    if (ep->poolq_len) {
        mrc__pool_release(c, t);
        return;
    }
    b->next = 0;
    b->prev = ep->ret_tail;
    if (ep->ret_tail) ep->pool[ep->ret_tail - 1u].next = (mrc__blkidx)(i + 1u);
    else ep->ret_head = (mrc__blkidx)(i + 1u);
    ep->ret_tail = (mrc__blkidx)(i + 1u);
    ep->pool_nret++;
}
/* Every block of the QP (leaving RTS, reset, destroy): O(window / 64), never per packet. */
MRC__PRIVATE void mrc__pool_put_all(mrc_conn *c) {
    uint32_t t;
    for (t = 0; t < MRC__BTAB_LEN; t++)
        mrc__pool_release(c, t); /* nothing when the entry has no block */
}
