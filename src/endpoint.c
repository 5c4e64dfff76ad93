/* ================================================================================================================
 * ENDPOINT LOOP - src/endpoint.c
 * Owns: the four calls of the caller's loop - recv (demultiplex by destination QPN, O(1)), poll_tx (round-robin
 * over connections with work: control packets, then retransmissions, then new data), on_timeout with the next
 * deadline (each expiry handed to its owner), and pulled events - plus statistics. Each fast path (docs/PROTOCOL.md
 * P22 fast paths) sits beside the general path it shortcuts: the SACK and the responder's data fast paths beside
 * mrc__recv, the requester's new-data fast path beside mrc__poll_tx; make fast-check compares the two per call.
 * The burst calls (docs/PROTOCOL.md P37) take and give many packets per call and do each QP's leftover work once.
 * Calls: every layer below (codec, state, timers, sched, cc, path, path_policy, qp, responder, requester, epop, check).
 * ============================================================================================================== */
#include "endpoint.h"
#include "codec.h"
#include "state.h"
#include "timers.h"
#include "sched.h"
#include "cc.h"
#include "path.h"
#include "path_policy.h"
#include "qp.h"
#include "responder.h"
#include "requester.h"
#include "epop.h"
#include "check.h"

/* P37 bursts, runs of one QP's in-order data packets (mrc__rsp_fast_run) and SACKs (mrc__req_sack_run): where speed is
 * asked for; gcc -Os leaves them out (about 1.6 KB on Cortex-M4 for the first: the firmware's size target) and takes
 * every packet of a burst alone */
#if MRC_FAST_PATH && !defined(__OPTIMIZE_SIZE__)
#define MRC__BURST_RUNS 1
#else
#define MRC__BURST_RUNS 0
#endif

/* ---- the end of a SACK's processing, as the SACK fast path runs it (and P37 bursts, once per QP) ------------- */
/* mrc__req_losses_scan of a SACK (the fast path's call keeps its two arguments: out of line under -Os) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__sack_losses_scan(mrc_endpoint *ep, mrc_conn *c) {
    mrc__req_losses_scan(ep, c, MRC__LOSS_SACK);
}
/* mrc__req_complete, only when the oldest message is all acknowledged */
MRC__PRIVATE MRC__INLINE void mrc__sack_complete(mrc_conn *c) {
    if (c->sq_done != c->sq_send) {
        const mrc__wr *wr = MRC__SQ(c, c->sq_done);
        if (mrc_psn_diff(c->snd_una, (wr->first_psn + mrc__wr_npkts(c, wr) - 1u) & MRC_PSN_MASK) > 0)
            mrc__req_complete(c);
    }
}

#if MRC_FAST_PATH
/* The SACK fast path's code that buys speed with size, where speed is asked for (not under gcc -Os): the in-order run
 * of the cumulative part (mrc__sack_run, +790 B on Cortex-M4: mrc__sack_cum's loop alone does the same) and the
 * one-PSN case's nominal size in line (+56 B: mrc__rec_nominal), snd_una's scan with the named PSN's block (+56 B) */
#if defined(__OPTIMIZE_SIZE__)
#define MRC__SACK_SPEED 0
#else
#define MRC__SACK_SPEED 1
#endif
/* mrc__blk(c, psn), bk the block of ack_psn's 64 PSNs: no lookup for a PSN among them (speed only: +56 B) */
MRC__PRIVATE MRC__ALWAYS_INLINE const mrc__pblk *mrc__sack_blk(const mrc_conn *c, uint32_t psn, uint32_t ack_psn,
                                                               const mrc__pblk *bk) {
#if MRC__SACK_SPEED
    return ((psn ^ ack_psn) & ~(MRC__BLK_PSNS - 1u)) ? mrc__blk(c, psn) : bk;
#else
    (void)ack_psn;
    (void)bk;
    return mrc__blk(c, psn);
#endif
}
/* mrc__req_detect_losses of a SACK, its test (mrc__req_losses_none) in line with the head's send time read from bk, the
 * block of ack_psn's 64 PSNs, when the head is among them (mrc__sack_blk) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__sack_losses(mrc_endpoint *ep, mrc_conn *c, uint32_t ack_psn,
                                                       const mrc__pblk *bk) {
    c->reo_deadline = MRC_TIME_NEVER;
    if (!mrc__req_slack_steady(ep, c) ||
        (c->txl.n && mrc__sack_blk(c, c->txl.head, ack_psn, bk)->sent[c->txl.head & (MRC__BLK_PSNS - 1u)] <=
                         c->lat_acked_sent))
        mrc__sack_losses_scan(ep, c);
}
#if MRC__SACK_SPEED
/* mrc__rec_nominal of PSN psn (record r): a full packet (MRC__PR_FULL) unless its message's last */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__sack_nominal(const mrc_conn *c, uint32_t psn, const mrc__psnrec *r) {
    const mrc__wr *wr;
    if (MRC__LIKELY(r->flags & MRC__PR_FULL)) return mrc__nominal_full(c);
    wr = &c->sq[r->wr];
    return mrc__nominal(c, wr, (psn - wr->first_psn) & MRC_PSN_MASK);
}
/* mrc__req_ack_one of a PSN not acknowledged yet from its block and record, which the caller holds: no look-up. A
 * window with holes: the SACK of a first transmission acknowledges only its PSN (by the bitmap, mrc__sack_ack_named),
 * and the SACK of a retransmission filling the window's first hole only its PSN too (the cumulative part: those after
 * it up to cack were acknowledged by earlier bitmaps, mrc__sack_acked_after) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__sack_ack1(mrc_conn *c, mrc__pblk *bk, mrc__psnrec *r, uint32_t psn) {
    bk->acked |= (uint64_t)1 << (psn & 63u);
    if (r->flags & MRC__PR_INFLIGHT) {
        mrc__cc_on_ack(c, mrc__sack_nominal(c, psn, r));
        mrc__plist_unlink_bk(c, &c->txl, psn, r, bk); /* its neighbours in bk reached there */
    }
    if (MRC__UNLIKELY(r->flags & MRC__PR_QUEUED)) mrc__rtxq_remove(c, psn, r); /* its test in line */
    r->flags &= (uint8_t)~(MRC__PR_INFLIGHT | MRC__PR_LOST);
}
/* the named PSN's, by the bitmap (out of line: in line, its registers cost the fast path's common case) */
MRC__PRIVATE MRC__NOINLINE void mrc__sack_ack_named(mrc_conn *c, mrc__pblk *bk, mrc__psnrec *r, uint32_t psn) {
    mrc__sack_ack1(c, bk, r, psn);
}
/* The PSNs after psn up to cack are all in psn's block (bk) and acknowledged already: mrc__sack_cum from psn would
 * acknowledge psn alone */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__sack_acked_after(const mrc__pblk *bk, uint32_t psn, uint32_t cack) {
    uint32_t i = psn & (MRC__BLK_PSNS - 1u), n = (cack - psn) & MRC_PSN_MASK;
    uint64_t m;
    if (n > MRC__BLK_PSNS - 1u - i) return false;
    m = (((uint64_t)1 << n) - 1u) << i << 1; /* bits i + 1 .. i + n (n = 0: none) */
    return (bk->acked & m) == m;
}
#endif
/* The SACK fast path's one-PSN case (the in-order stream's): the named PSN, not acknowledged yet, is in flight, not
 * queued for retransmission, and the head of a transmit list of more than one - mrc__req_ack_one's updates are then
 * the bit, mrc__cc_on_ack and the head's unlink */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__sack_one_head(const mrc_conn *c, uint32_t psn, const mrc__psnrec *r) {
    return (r->flags & (MRC__PR_INFLIGHT | MRC__PR_QUEUED)) == MRC__PR_INFLIGHT && c->txl.head == psn && c->txl.n > 1u;
}
/* mrc__cc_on_ack's subtractions of sum nominal bytes, without its wake-up (x: the QP's context, or none; out of line
 * under -Os: two callers in mrc__sack_cum) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__sack_cc_sub(mrc_conn *c, mrc__ccx *x, uint32_t sum) {
    MRC_ASSERT(c->cc_inflight >= sum);
    c->cc_inflight -= MRC__MIN(c->cc_inflight, (uint64_t)sum);
    if (x) x->inflight -= MRC__MIN(x->inflight, (uint64_t)sum);
}
/* The SACK fast path's cumulative part: mrc__req_ack_one of each PSN of [psn, cack] not acknowledged yet, O(1) each
 * as there (b: psn's block). Out of line: the one-PSN common case (above) is the fast path's own. mrc__cc_on_ack's
 * subtractions (saturating at 0, so summing them changes nothing) are summed and made once - before each wake-up of
 * the context's READY list, the only reader of the flight on the way, and at the end: the same values as one by one
 * (and as with mrc__sack_run's sum, of the PSNs before psn, taken off first). */
MRC__PRIVATE MRC__NOINLINE void mrc__sack_cum(mrc_endpoint *ep, mrc_conn *c, mrc__ccx *x, mrc__pblk *b, uint32_t psn,
                                              uint32_t cack) {
    const uint32_t full = mrc__nominal_full(c);
    uint32_t sum = 0; /* nominal bytes acknowledged, not yet taken off the flight (at most MRC_MAX_INFLIGHT packets) */
    for (;; psn = MRC__PSN_INC(psn)) {
        uint64_t bit = (uint64_t)1 << (psn & 63u);
        mrc__psnrec *q;
        if (!(psn & (MRC__BLK_PSNS - 1u))) b = mrc__blk(c, psn);
        q = &b->rec[psn & (MRC__BLK_PSNS - 1u)];
        if (!(b->acked & bit)) {
            b->acked |= bit;
            if (q->flags & MRC__PR_INFLIGHT) { /* mrc__cc_on_ack, then off the transmit list */
                sum += (q->flags & MRC__PR_FULL) ? full : mrc__rec_nominal(c, psn, q); /* mrc__rec_nominal */
                if (x && MRC__UNLIKELY(x->ready_head != MRC__EV_NONE)) {
                    mrc__sack_cc_sub(c, x, sum);
                    sum = 0;
                    mrc__cc_wake(ep, x);
                }
                mrc__plist_unlink(c, &c->txl, psn, q);
            }
            mrc__rtxq_remove(c, psn, q);
            q->flags &= (uint8_t)~(MRC__PR_INFLIGHT | MRC__PR_LOST);
        }
        if (psn == cack) break;
    }
    mrc__sack_cc_sub(c, x, sum);
}
#if MRC__SACK_SPEED
/* mrc__sack_cum from the window's first PSN (b: its block), for the fast path: a retransmission that filled the first
 * hole, with the PSNs after it up to cack acknowledged already, is acknowledged alone (mrc__sack_ack1) */
MRC__PRIVATE MRC__NOINLINE void mrc__sack_cum_base(mrc_endpoint *ep, mrc_conn *c, mrc__pblk *b, uint32_t psn,
                                                   uint32_t cack) {
    if (!((b->acked >> (psn & 63u)) & 1u) && mrc__sack_acked_after(b, psn, cack)) { /* a hole filled: psn alone */
        mrc__sack_ack1(c, b, &b->rec[psn & (MRC__BLK_PSNS - 1u)], psn);
        return;
    }
    mrc__sack_cum(ep, c, mrc__conn_ccx(c), b, psn, cack);
}
/* The SACK fast path's cumulative part in the in-order stream (the named PSN is cack, the transmit list starts at psn:
 * the caller's test), taken as a run: while each PSN of [psn, cack] is not acknowledged, in flight, not queued, and
 * (by its predecessor's next link) the transmit list's next record after the ones taken - the list's head each time
 * mrc__req_ack_one's unlink would run - it takes the PSN with no unlink of its own: the acknowledged bits a block at a
 * time, the list's head and length set once at the end as that many head unlinks leave them (the head of a list of
 * one is left in place), the nominal sizes as full packets but for the messages' last ones, one (saturating)
 * subtraction from the flight. Only with the congestion context's READY list empty (nothing here fills it: no
 * wake-up is due). The PSNs from the first it cannot take are mrc__sack_cum's (a tail call). */
MRC__PRIVATE MRC__NOINLINE void mrc__sack_run(mrc_endpoint *ep, mrc_conn *c, mrc__pblk *b, uint32_t psn,
                                              uint32_t cack) {
    mrc__ccx *x = mrc__conn_ccx(c);
    const uint32_t full = mrc__nominal_full(c);
    uint32_t i = psn & (MRC__BLK_PSNS - 1u), len = MRC__MIN(MRC__BLK_PSNS - i, ((cack - psn) & MRC_PSN_MASK) + 1u);
    uint32_t n = 0, last, wend, sum;
    uint64_t a = (b->acked >> i) & (len < 64u ? ((uint64_t)1 << len) - 1u : ~(uint64_t)0); /* acknowledged ones */
    mrc__psnrec first; /* a stand-in predecessor whose next link names the list's head */
    const mrc__psnrec *q = &first, *q0 = &b->rec[i];
    const mrc__wr *wr;
    if (x && x->ready_head != MRC__EV_NONE) {
        mrc__sack_cum(ep, c, x, b, psn, cack);
        return;
    }
    first.next = (mrc__recidx)(psn & (MRC_MAX_INFLIGHT - 1u));
    if (a) len = mrc__ctz64(a); /* the run ends before an acknowledged PSN */
    for (;;) { /* the run's part in b: at most len PSNs from psn (slot i), none acknowledged */
        uint32_t res = psn & (MRC_MAX_INFLIGHT - 1u), j; /* a block's PSNs: consecutive residues (no wrap) */
        mrc__psnrec *t = &b->rec[i];
        for (j = 0; j < len; j++, t++) {
            uint8_t f = t->flags;
            if ((f & (MRC__PR_INFLIGHT | MRC__PR_QUEUED)) != MRC__PR_INFLIGHT || q->next != (mrc__recidx)(res + j))
                break;
            t->flags = (uint8_t)(f & ~(MRC__PR_INFLIGHT | MRC__PR_LOST));
            q = t;
        }
        b->acked |= (j < 64u ? ((uint64_t)1 << j) - 1u : ~(uint64_t)0) << i;
        n += j;
        psn = (psn + j) & MRC_PSN_MASK;
        if (j < len || a || psn == MRC__PSN_INC(cack)) break;
        b = mrc__blk(c, psn); /* the run goes on in the next block */
        i = 0;
        len = MRC__MIN(MRC__BLK_PSNS, ((cack - psn) & MRC_PSN_MASK) + 1u);
        a = b->acked & (len < 64u ? ((uint64_t)1 << len) - 1u : ~(uint64_t)0);
        if (a) len = mrc__ctz64(a);
    }
    if (n) {
        last = (psn - 1u) & MRC_PSN_MASK;
        MRC_ASSERT(c->txl.n >= n);
        if (c->txl.n > n) c->txl.head = mrc__link_psn(c, q->next);
        else c->txl.head = last;
        c->txl.n -= n;
        sum = n * full;
        wr = &c->sq[q0->wr];
        /* each message's last packet in the run: none when packet k + 1 of the first one's (k: the run's last) starts
         * before its end, the in-order stream's common case */
        while (wr->len <= ((uint64_t)(((last - wr->first_psn) & MRC_PSN_MASK) + 1u) << c->mtu_shift)) {
            uint32_t np = mrc__wr_npkts(c, wr);
            wend = (wr->first_psn + np - 1u) & MRC_PSN_MASK;
            sum += mrc__nominal(c, wr, np - 1u) - full; /* wend is in the run: the test above */
            if (wend == last) break;
            wr = &c->sq[MRC__REC(c, MRC__PSN_INC(wend))->wr];
        }
        MRC_ASSERT(c->cc_inflight >= sum);
        c->cc_inflight -= MRC__MIN(c->cc_inflight, (uint64_t)sum);
        if (x) x->inflight -= MRC__MIN(x->inflight, (uint64_t)sum);
        if (last == cack) return;
    }
    mrc__sack_cum(ep, c, x, b, psn, cack); /* b: psn's block (the loop takes a block's first PSN's again) */
}
#endif
#endif

/* The requester half of mrc__sched_tx would do nothing: it is queued already, not in RTS, or has nothing to send
 * (no probe, no retransmission, nothing posted). Then only the control-queue half is left to do. Evaluated whole,
 * without branches: on a QP that only receives (the common case here) every term is read anyway. */
MRC__PRIVATE MRC__INLINE bool mrc__req_idle(const mrc_conn *c) {
    return !(!c->in_txq & (c->state == MRC_QPS_RTS) &
             ((c->sq_send != c->sq_tail) | ((c->probes_due | c->rtxq.n) != 0)));
}

/* ---- P37 bursts: per-QP work deferred to the end of mrc_endpoint_recv_burst ---------------------------------- */
/* The deferred work of one QP: NSCC's update from the burst's SACKs (bytes summed, the latest RTT sample, CE if any
 * was echoed), the RTO/TLP re-arm after them, then what mrc_endpoint_recv does after any packet of a QP (scheduling,
 * the timer key). */
MRC__PRIVATE void mrc__burst_conn(mrc_conn *c, mrc_time now) {
    unsigned f = c->bflags;
    c->bflags = 0;
    if ((f & MRC__BURST_SACK) && c->state == MRC_QPS_RTS) /* the SACKs' loss detection */
        mrc__req_detect_losses(c->ep, c, MRC__LOSS_SACK);
    if (f & MRC__BURST_CC) {
        mrc__ccx *x = mrc__conn_ccx(c);
        mrc__cc_sample cs;
        cs.newly = c->bs_newly;
        cs.rtt = c->bs_rtt;
        cs.ecn = c->bs_ecn;
        cs.pen = cs.r_c = 0;
        c->bs_newly = 0;
        c->bs_rtt = 0;
        c->bs_ecn = 0;
        if (x && x->algo == MRC_CC_ALGO_NSCC) {
            mrc__nscc_ack(c, x, &cs, now);
            if (x->ready_head != MRC__EV_NONE) mrc__cc_wake(c->ep, x);
        }
    }
    if (f & MRC__BURST_SACK) { /* as the SACK fast path's end (mrc__req_timers after progress) */
        mrc__sack_complete(c);
#if MRC_FAST_PATH
        if (!(f & MRC__BURST_PROGRESS) || c->state != MRC_QPS_RTS || c->snd_una == c->snd_nxt) mrc__req_timers(c);
        else mrc__req_timers_arm(c, 0, 0, now, now);
#else
        mrc__req_timers(c); /* only the fast paths defer */
#endif
    }
#if MRC__BURST_RUNS /* (under gcc -Os a third caller of mrc__req_idle made gcc call it out of line on every packet) */
    if (mrc__req_idle(c)) mrc__sched_ctl(c); /* mrc__sched_tx's requester half has nothing to do (a receiver's QP) */
    else
#endif
        mrc__sched_tx(c);
    mrc__timer_update(c);
}
/* Every queued QP's deferred work, in the order they were queued (a QP whose work the general code already did is
 * passed over) */
MRC__PRIVATE void mrc__burst_flush(mrc_endpoint *ep) {
    uint32_t i;
    for (i = 0; i < ep->burst_len; i++) {
        mrc_conn *d = ep->conns[ep->burst_q[i]];
        if (!d || !d->bflags) continue;
        /* mrc__burst_conn of a receiver's QP, in line where speed is asked for (MRC__BURST_RUNS) */
        if (MRC__BURST_RUNS && d->bflags == MRC__BURST_DIRTY && mrc__req_idle(d)) {
            d->bflags = 0;
            mrc__sched_ctl(d);
            mrc__timer_update(d);
        } else {
            mrc__burst_conn(d, ep->now);
        }
    }
    ep->burst_len = 0;
}
#if MRC_FAST_PATH
/* Queue a QP's deferred work (its bflags are set); a full list is worked off first. Only the fast paths defer (with
 * MRC_FAST_PATH 0 every packet of a burst does its QP's work at once, and this would be an unused function). */
MRC__PRIVATE void mrc__burst_defer(mrc_endpoint *ep, mrc_conn *c) {
    if (c->bflags & MRC__BURST_DIRTY) return;
    if (ep->burst_len == MRC__BURST_QPS) mrc__burst_flush(ep);
    c->bflags |= MRC__BURST_DIRTY;
    ep->burst_q[ep->burst_len++] = c->slot;
}
#endif

/* ---- receive: the general path (decode, then the endpoint operation or the QP's handler) -------------------- */
/* mrc_endpoint_recv past its argument checks, the clock, the receive counters, the ICRC flag and the fast paths:
 * the decode, then the endpoint operation or the QP's handler (out of line, with its mrc_pkt: the entry keeps no
 * frame, and the fast paths hand it what is not their case with a tail call) */
MRC__PRIVATE MRC__NOINLINE int mrc__recv(mrc_endpoint *ep, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri) {
    const mrc_time now = ep->now;
    mrc_pkt k;
    mrc_conn *c;
    int rc = MRC__PKT_DECODE(pkt, len, &ep->cfg.wire, &k, false); /* only the headers the opcode has are read */
    if (rc == MRC_ERR_TRUNC) return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_SHORT, len ? pkt[0] : 0u);
    if (rc < 0)
        return mrc__drop(ep, (mrc_conn *)0, mrc_opcode_hdrs(pkt[0]) ? MRC_DROP_MALFORMED : MRC_DROP_OPCODE, pkt[0]);
    MRC__TRACE(ep, MRC_TRACE_RX, ((uint32_t)k.bth.opcode << 24) | k.bth.psn, ri->port);
    if (k.bth.dest_qp == MRC_EPOP_QPN) return mrc__epop_recv(ep, &k, ri, now);
    c = mrc__conn_lookup(ep, k.bth.dest_qp);
    if (!c) return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_QPN, k.bth.opcode);
    if (c->bflags) mrc__burst_conn(c, now); /* P37 bursts: the general code sees the QP as after single calls */
    if ((k.bth.pkey & 0x7FFFu) != (c->attr.pkey & 0x7FFFu)) return mrc__drop(ep, c, MRC_DROP_PKEY, k.bth.opcode);
    switch (k.bth.opcode) {
    case MRC_OP_WRITE_FIRST: case MRC_OP_WRITE_MIDDLE: case MRC_OP_WRITE_LAST: case MRC_OP_WRITE_LAST_IMM:
    case MRC_OP_WRITE_ONLY: case MRC_OP_WRITE_ONLY_IMM:
        rc = mrc__rsp_on_data(c, &k, pkt + k.hdr_len, ri, now);
        break;
    case MRC_OP_PROBE_REQ: rc = mrc__rsp_on_probe(c, &k, ri); break;
    case MRC_OP_SACK: case MRC_OP_NACK: case MRC_OP_ACK: /* the requester's, only in RTS (their first check) */
        if (c->state != MRC_QPS_RTS) rc = mrc__drop(ep, c, MRC_DROP_ACK_STALE, k.bth.opcode);
        else if (k.bth.opcode == MRC_OP_SACK) rc = mrc__req_on_sack(c, &k, now);
        else if (k.bth.opcode == MRC_OP_NACK) rc = mrc__req_on_nack(c, &k, now);
        else rc = mrc__req_on_aeth(c, &k, now);
        break;
    default: return mrc__drop(ep, c, MRC_DROP_OPCODE, k.bth.opcode); /* endpoint ops not addressed to QP 0x2 */
    }
    mrc__sched_tx(c);
    mrc__timer_update(c);
    MRC__CHECK_ALL(ep);
    return rc;
}
#if MRC_FAST_PATH
/* A SACK naming a retransmitted PSN, fresh (b: its block): its verdict (7.4), as mrc__req_on_sack gives it, which may
 * demote an EV and arm its probe timer - the key lowered then, as mrc__recv's mrc__timer_update would (out of line:
 * the clean SACK keeps its registers). Returns now, as the send time the caller's RTT test then sees: a retransmitted
 * PSN gives no sample */
MRC__PRIVATE MRC__NOINLINE mrc_time mrc__sack_rtx(mrc_conn *c, mrc__pblk *b, uint32_t psn, mrc_time t, mrc_time now) {
    if (mrc__req_rtx_verdict(c, b, psn, t, true, now)) mrc__timer_update(c);
    return now;
}
/* mrc__req_sack_fast's rare branches (MRC__SIZE_COLD): P37 bursts' congestion sample (one update per QP per burst,
 * at its end) and their end (the re-arm and the scheduling, once per QP at the burst's end); the SETH's MPR, the
 * capped rcvd and the selective part are the general handler's helpers (src/requester.c) */
#if !MRC__SACK_SPEED
/* the cumulative part of more than the named PSN (out of line: gcc -Os only) */
MRC__PRIVATE MRC__NOINLINE void mrc__sack_fast_cum(mrc_endpoint *ep, mrc_conn *c, mrc__pblk *bk, uint32_t old_base,
                                                   uint32_t ack_psn, uint32_t cack) {
    mrc__pblk *b0 = (old_base ^ ack_psn) & ~(MRC__BLK_PSNS - 1u) ? mrc__blk(c, old_base) : bk;
    mrc__sack_cum(ep, c, mrc__conn_ccx(c), b0, old_base, cack);
}
#endif
MRC__PRIVATE MRC__SIZE_COLD void mrc__sack_fast_bcc(mrc_conn *c, const mrc__cc_sample *cs) {
    c->bs_newly = (uint32_t)MRC__MIN((uint64_t)c->bs_newly + cs->newly, (uint64_t)0xFFFFFFFFu);
    if (cs->rtt) c->bs_rtt = (uint32_t)MRC__MIN(cs->rtt, (mrc_time)0xFFFFFFFFu);
    c->bs_ecn |= cs->ecn;
    c->bflags |= MRC__BURST_CC;
}
MRC__PRIVATE MRC__SIZE_COLD int mrc__sack_fast_bend(mrc_endpoint *ep, mrc_conn *c, bool progress) {
    c->bflags |= MRC__BURST_SACK | (progress ? MRC__BURST_PROGRESS : 0u);
    mrc__burst_defer(ep, c);
    return MRC_OK;
}
/* mrc__req_sack_fast's bitmap (a window with holes; MRC__SIZE_COLD), read from the SETH at se (cack its CACK): its
 * first PSN (*base) and snd_nxt's distance from it (*hi, nxt: snd_nxt), and whether it names a PSN never sent; then
 * its selective part: the bits bm inside [win_base, snd_nxt) not known yet acknowledged as mrc__req_on_sack does;
 * true when there was one */
MRC__PRIVATE MRC__SIZE_COLD bool mrc__sack_fast_unsent(const uint8_t *se, uint32_t cack, uint32_t nxt, uint64_t bm,
                                                       uint32_t *base, int32_t *hi) {
    *base = mrc_psn_add(cack, mrc__s16((uint16_t)MRC__FX(se, MRC__SETH_SACK_OFF)));
    *hi = mrc_psn_diff(nxt, *base);
    return mrc__sack_bits_unsent(*hi, bm);
}
/* (its selective part: mrc__req_sack_sel, out of line under -Os; where speed is asked for, in line with the named PSN
 * acknowledged from the block and record the caller holds) */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__sack_fast_sel(mrc_conn *c, mrc__pblk *bk, mrc__psnrec *r, uint32_t ack_psn,
                                                        uint64_t bm, uint32_t base, int32_t hi) {
#if MRC__SACK_SPEED
    bool progress;
    bm = mrc__req_sack_bits(c, bm, base, hi);
    progress = bm != 0;
    while (bm) {
        uint32_t q = (base + mrc__ctz64(bm)) & MRC_PSN_MASK;
        if (q == ack_psn) mrc__sack_ack_named(c, bk, r, q);
        else mrc__req_ack_one(c, q);
        bm &= bm - 1u;
    }
    return progress;
#else
    (void)bk, (void)r, (void)ack_psn;
    return mrc__req_sack_sel(c, bm, base, hi);
#endif
}
/* The SACK fast path's per-SACK updates, shared with the SACK run (mrc__req_sack_run; always in line). The named
 * record's timing: the RTT sample when it was sent before now (returned, else 0) and the reorder timer's latest
 * acknowledged send time (P32) */
MRC__PRIVATE MRC__ALWAYS_INLINE mrc_time mrc__sack_fast_time(mrc_conn *c, mrc_time r_sent, mrc_time acked_sent,
                                                            mrc_time now) {
    mrc_time rtt = 0;
    if (now > r_sent) {
        rtt = now - r_sent;
        mrc__req_rtt_sample(c, rtt);
    }
    if (acked_sent > c->lat_acked_sent) {
        c->lat_acked_sent = acked_sent;
        c->lat_acked_rtt = now > acked_sent ? now - acked_sent : 0u; /* P32 reorder timer */
    }
    return rtt;
}
/* mrc__ev_on_ack with m 0 of the named EV slot ev (now = ep->now) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__sack_fast_ev0(mrc_conn *c, unsigned ev, mrc_time now) {
    c->port_ok[c->evs[ev].port - 1u] = now;
    c->ev_proven = (uint16_t)ev;
    mrc__ev_rc_push(c, ev);
}
/* The bytes newly received by the CC_STATE at cs_p's rcvd (capped at what was sent), credited and counted */
MRC__PRIVATE MRC__ALWAYS_INLINE uint64_t mrc__sack_fast_rcvd(mrc_conn *c, const uint8_t *cs_p) {
    uint32_t rcvd = MRC__FX(cs_p, MRC__CCS_RCVD), rd = (rcvd - c->last_rcvd) & 0xFFFFFFu;
    uint64_t avail = ((c->tx_nominal + 255u) >> 8) - c->rcvd_credit, newly;
    if (rd < 0x800000u && rd > avail) rcvd = mrc__sack_rcvd_cap(c, (uint32_t)avail); /* avail < rd < 2^23 */
    newly = mrc__rcvd_newly(&c->last_rcvd, rcvd);
    c->rcvd_credit += newly >> 8;
    MRC__CNT(c->st.cc_rcvd_bytes += newly);
    return newly;
}
/* ---- SACK fast path (header prediction; MRC_FAST_PATH) ----------------------------------------------------------
 * The common SACK - to a QP in RTS, its window (at most MRC_MAX_INFLIGHT PSNs) holding cack or cack just behind it
 * (not stale), naming a fresh PSN of the window not named before, no probe answer - is recognised straight from
 * the wire (the fixed offsets of mrc__pkt_decode_fast) by checks that change nothing; it then makes exactly the
 * updates mrc_endpoint_recv's decode, mrc__req_on_sack and what they call make in that case, in the same order
 * (stats, trace, list and pool operations, EV and CC updates, timers). Anything else is handed, before any change,
 * to the general code (mrc__recv, a tail call: mrc_endpoint_recv keeps no frame of its own). mrc_endpoint_recv
 * calls it for a SACK unless mrc_config.fast_path_off is set. */
MRC__PRIVATE MRC__NOINLINE int mrc__req_sack_fast(mrc_endpoint *ep, const uint8_t *p, size_t len,
                                                 const mrc_rxinfo *ri, mrc_time now) {
    const uint8_t *se = p + MRC_BTH_LEN, *cs_p = se + MRC_SETH_LEN;
    const size_t off = (size_t)MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN;
    mrc_conn *c;
    mrc__pblk *bk;
    mrc__psnrec *r;
    uint32_t cack, ack_psn, nxt, old_base, base = 0, mpr, w, m;
    int32_t hi = 0;
    uint64_t bm;
    unsigned ev;
    bool progress;
    mrc_time r_sent, acked_sent, rtt = 0;
    /* the packet: what mrc__pkt_decode_fast and mrc__pkt_finish accept as a SACK, m 0, no probe answer */
    if (len < off || ep->cfg.wire.sack_msb_first) return mrc__recv(ep, p, len, ri);
    if ((uint64_t)(len - off) - MRC__FX(p, MRC__BTH_PAD) > 0xFFFFFFFFu) /* pad > the rest, or a 33-bit payload */
        return mrc__recv(ep, p, len, ri);
    if (MRC__FX(se, MRC__SETH_PR)) return mrc__recv(ep, p, len, ri);
    /* the QP: in RTS; cack names the packet */
    c = MRC__FX(p, MRC__BTH_DEST_QP) == MRC_EPOP_QPN ? (mrc_conn *)0
                                                     : mrc__conn_lookup(ep, MRC__FX(p, MRC__BTH_DEST_QP));
    if (!c || ((MRC__FX(p, MRC__BTH_PKEY) ^ c->attr.pkey) & 0x7FFFu) || c->state != MRC_QPS_RTS)
        return mrc__recv(ep, p, len, ri);
    cack = MRC__FX(se, MRC__SETH_CACK);
    nxt = c->snd_nxt;
    old_base = c->win_base;
    /* a window [win_base, snd_nxt) of at most MRC_MAX_INFLIGHT PSNs holding cack (then it is not bogus, <= snd_nxt -
     * 1, and not stale) or cack = win_base - 1 (not stale, acknowledges nothing cumulatively); the named PSN in the
     * window (at most MRC_MAX_INFLIGHT behind snd_nxt) */
    w = (nxt - old_base) & MRC_PSN_MASK;
    ack_psn = mrc_psn_add(cack, mrc__s16((uint16_t)MRC__FX(se, MRC__SETH_ACK_OFF)));
    if (cack != MRC__FX(p, MRC__BTH_PSN) || w > MRC_MAX_INFLIGHT || ((ack_psn - old_base) & MRC_PSN_MASK) >= w ||
        (((cack - old_base) & MRC_PSN_MASK) >= w && cack != MRC__PSN_DEC(old_base)))
        return mrc__recv(ep, p, len, ri);
    /* the named PSN: a record (a live block: have_rec), not acknowledged yet (fresh); a first transmission not named
     * before (a retransmitted PSN is named once per copy that arrives: its verdict needs both) */
    bk = mrc__blk(c, ack_psn);
    if (!bk || (ack_psn & (MRC__BLK_PSNS - 1u)) < MRC__PBLK_LO(bk) || ((bk->acked >> (ack_psn & 63u)) & 1u))
        return mrc__recv(ep, p, len, ri);
    r = &bk->rec[ack_psn & (MRC__BLK_PSNS - 1u)];
    if (MRC__UNLIKELY(r->flags & (MRC__PR_RTX | MRC__PR_NAMED)) &&
        ((r->flags & (MRC__PR_RTX | MRC__PR_NAMED)) != MRC__PR_RTX || !ep->cfg.tseth)) /* P38 quiet SACKs there */
        return mrc__recv(ep, p, len, ri);
    /* P38 SACKs validated whole: a bitmap naming a PSN never sent is the general path's to drop */
    bm = MRC__FX(se, MRC__SETH_BITMAP);
    if (bm && mrc__sack_fast_unsent(se, cack, nxt, bm, &base, &hi)) return mrc__recv(ep, p, len, ri);

    /* the common case: mrc_endpoint_recv's trace, then mrc__req_on_sack's updates in its order */
    MRC__TRACE(ep, MRC_TRACE_RX, ((uint32_t)MRC_OP_SACK << 24) | cack, ri->port);
    (void)ri;
    MRC__CNT(c->st.rx_sack++);
    m = MRC__FX(se, MRC__SETH_M);
    if (m - MRC_M_SKIP_ONCE <= MRC_M_ALWAYS_SKIP - MRC_M_SKIP_ONCE) MRC__RARE_INC(c->st.ev_skip_req); /* either skip */
    progress = cack != MRC__PSN_DEC(old_base);
    if (progress) { /* the cumulative part: mrc__req_ack_one of each PSN, O(1) each as there */
        if (cack == old_base && ack_psn == cack && mrc__sack_one_head(c, cack, r)) { /* the one-PSN common case */
            bk->acked |= (uint64_t)1 << (cack & 63u);
#if MRC__SACK_SPEED
            mrc__cc_on_ack(c, mrc__sack_nominal(c, cack, r));
#else
            mrc__cc_on_ack(c, mrc__rec_nominal(c, cack, r));
#endif
            c->txl.head = mrc__link_psn(c, r->next); /* mrc__plist_unlink of the head of a longer list */
            c->txl.n--;
            r->flags &= (uint8_t)~(MRC__PR_INFLIGHT | MRC__PR_LOST);
        } else { /* the loop, or the in-order run; old_base's block is bk's when in the same 64 (both in the window) */
#if MRC__SACK_SPEED
            mrc__pblk *b0 = (old_base ^ ack_psn) & ~(MRC__BLK_PSNS - 1u) ? mrc__blk(c, old_base) : bk;
            /* (a run of one PSN - a QP with one packet in flight, as with many QPs - costs the run's setup for
             * nothing: the loop takes it) */
            if (ack_psn == cack && c->txl.head == old_base && old_base != cack)
                mrc__sack_run(ep, c, b0, old_base, cack);
            else
                mrc__sack_cum_base(ep, c, b0, old_base, cack);
#else
            mrc__sack_fast_cum(ep, c, bk, old_base, ack_psn, cack);
#endif
        }
        c->win_base = MRC__PSN_INC(cack);
    }
    /* the selective part, as there */
    if (bm && mrc__sack_fast_sel(c, bk, r, ack_psn, bm, base, hi)) progress = true;
    { /* snd_una's scan, in a local: its old value need not live across the parts above */
        uint32_t una = c->snd_una;
        if (mrc_psn_diff(una, c->win_base) < 0) una = c->win_base;
        /* mrc__req_acked */
        while (una != c->snd_nxt && (mrc__sack_blk(c, una, ack_psn, bk)->acked >> (una & 63u)) & 1u)
            una = MRC__PSN_INC(una);
        if (una != c->snd_una) {
            c->snd_una = una;
            progress = true;
        }
    }
    /* timing and path attribution: the named record (fresh). A retransmitted one (a window with holes: half the
     * SACKs) gets its verdict as in mrc__req_on_sack - which may demote an EV and arm its probe timer, so the key is
     * lowered then as mrc__recv's mrc__timer_update would - and gives no RTT sample */
    r_sent = bk->sent[ack_psn & (MRC__BLK_PSNS - 1u)];
    acked_sent = r_sent;
    ev = r->ev; /* the named packet's EV slot (read once: the byte stores below may alias it) */
    if (ep->cfg.tseth) {
        mrc_time t = mrc__ts_unwrap(ep, (uint16_t)MRC__FX(cs_p, MRC__CCS_TS), now);
        if (t < acked_sent) acked_sent = t;
        if (MRC__UNLIKELY(r->flags & MRC__PR_RTX)) r_sent = mrc__sack_rtx(c, bk, ack_psn, t, now); /* no sample */
        else r->flags |= MRC__PR_NAMED; /* P38 quiet SACKs: a first transmission */
    } else {
        r->flags |= MRC__PR_NAMED; /* a first transmission (without TSETH the checks took no other) */
    }
    if (now > r_sent) { /* mrc__sack_fast_time, written out: gcc then keeps the sample's block in line */
        rtt = now - r_sent;
        mrc__req_rtt_sample(c, rtt);
    }
    if (acked_sent > c->lat_acked_sent) {
        c->lat_acked_sent = acked_sent;
        c->lat_acked_rtt = now > acked_sent ? now - acked_sent : 0u; /* P32 reorder timer */
    }
    if (ev < c->ev_count && mrc__ev_value(c, ev) == MRC__FX(se, MRC__SETH_ENTROPY)) {
        mrc__ev_delivered(c, ev, acked_sent);
        if (m == MRC_M_NONE) {
            mrc__sack_fast_ev0(c, ev, now);
        } else {
            mrc__ev_on_ack(c, (int)ev, (unsigned)m);
        }
    }
    if (progress) mrc__req_progress(c, now);
    if (!ep->in_burst) mrc__sack_losses(ep, c, ack_psn, bk); /* P37 bursts: once per QP, at the burst's end */
    /* mrc__req_release (win_base moved) changes something only when win_base left old_base's block or caught up with
     * snd_nxt */
    if (c->win_base != old_base && (((old_base ^ c->win_base) & ~(MRC__BLK_PSNS - 1u)) || c->win_base == c->snd_nxt))
        mrc__req_release(c, old_base);
    { /* congestion control, as mrc__req_on_sack; NSCC's row of mrc__cc_table called directly */
        mrc__ccx *x = mrc__conn_ccx(c);
        mrc__cc_sample cs;
        cs.newly = mrc__sack_fast_rcvd(c, cs_p);
        cs.rtt = rtt;
        cs.ecn = m == MRC_M_SKIP_ONCE;
        cs.pen = (uint8_t)MRC__FX(cs_p, MRC__CCS_PEN);
        cs.r_c = (uint8_t)MRC__FX(cs_p, MRC__CCS_R_C);
        if (x && x->algo == MRC_CC_ALGO_NSCC) {
            if (cs.pen || cs.r_c) mrc__nscc_on_pen(c, x, &cs, now); /* else it changes nothing */
            if (ep->in_burst) { /* P37 bursts: one update per QP per burst, at its end */
                mrc__sack_fast_bcc(c, &cs);
            } else {
                mrc__nscc_ack(c, x, &cs, now);
                if (x->ready_head != MRC__EV_NONE) mrc__cc_wake(ep, x);
            }
        } else {
            mrc__cc_on_sack(c, &cs, now);
        }
    }
    mpr = MRC__FX(se, MRC__SETH_MPR);
    if ((c->attr.caps & MRC_CAP_DYNAMIC_MPR) && mpr) mrc__sack_mpr(c, mpr);
    if (ep->in_burst) return mrc__sack_fast_bend(ep, c, progress); /* P37 bursts: the re-arm and the scheduling
                                                                      below, once per QP at the burst's end */
    mrc__sack_complete(c);
    /* mrc__req_timers: after progress (retries and tlp_count 0, rto_start and tlp_base now) it arms unless the QP
     * left RTS or nothing is in flight */
    if (!progress || c->state != MRC_QPS_RTS || c->snd_una == c->snd_nxt) mrc__req_timers(c);
    else mrc__req_timers_arm(c, 0, 0, now, now); /* the reorder deadline is set above */
    /* and mrc_endpoint_recv's: mrc__sched_tx (its mrc__timer_update after it finds the deadlines as they are:
     * scheduling arms no timer) */
    if ((c->ctlq_head != c->ctlq_tail && !c->in_ctq) || (!c->in_txq && c->state == MRC_QPS_RTS)) mrc__sched_tx(c);
    MRC__CHECK_ALL(ep);
    return MRC_OK;
}
#endif
#if MRC__BURST_RUNS
/* ---- P37 bursts: a run of one QP's in-order SACKs ----------------------------------------------------------------
 * The SACKs of a receive burst that follow one another to one QP in RTS (NSCC, its READY list empty), each naming its
 * cumulative PSN (the ACK offset 0), in order, ahead of the one before and inside the window, fresh (not named
 * before, no retransmission), with no bitmap, no EV marking (m 0), no penalty and no probe answer: the updates the
 * SACK fast path makes for each of them in a burst, but the ones that only move forward, made once at the run's end
 * for its last cumulative PSN - the cumulative part (the transmit list, the acknowledged bits, the flight), win_base,
 * snd_una's scan, the progress, the release of the blocks passed, the deferred work queued. Each SACK's own updates
 * (the trace, its record's NAMED flag, the RTT sample, the reorder timer's latest, its EV's delivery and recycling,
 * the rcvd credit, the MPR) stay per SACK, in order (NSCC's burst sample summed and written at the end): none of them reads what the deferred
 * ones write, and these write nothing the per-SACK ones read (the named PSNs increase, so no earlier SACK's
 * cumulative part reaches a later one's record or bit; the context's READY list stays empty: nothing here wakes,
 * and the QP is queued or the queue has room, so the deferral flushes no other QP). So the state at the end is the
 * SACKs' one by one (make fast-check compares them byte for byte). Each test comes before the SACK's first change:
 * the run ends before the first SACK it cannot take (0: none taken, the caller's SACK fast path takes it). Under
 * MRC_ENABLE_TRACE the forward-only updates are made per SACK, before the next one's trace call: the hook sees the QP
 * as one by one. Where speed is asked for (MRC__BURST_RUNS). */
/* mrc__req_sack_run's forward-only updates for its SACKs from old_base up to cack (bk: cack's block), as the SACK fast
 * path makes them: the cumulative part (one PSN, the fast path's in-line case, is mrc__sack_cum's here: the same
 * updates, out of line), win_base, snd_una's scan, the progress, the release of the blocks passed, the deferred
 * work (always in line: one call at the run's end, another per SACK under MRC_ENABLE_TRACE) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__sack_run_fwd(mrc_endpoint *ep, mrc_conn *c, mrc__pblk *bk, uint32_t old_base,
                                                      uint32_t cack, mrc_time now) {
    mrc__pblk *b0 = (old_base ^ cack) & ~(MRC__BLK_PSNS - 1u) ? mrc__blk(c, old_base) : bk;
    uint32_t una = c->snd_una;
    if (c->txl.head == old_base && old_base != cack) mrc__sack_run(ep, c, b0, old_base, cack);
    else mrc__sack_cum_base(ep, c, b0, old_base, cack);
    c->win_base = MRC__PSN_INC(cack);
    if (mrc_psn_diff(una, c->win_base) < 0) una = c->win_base;
    while (una != c->snd_nxt && (mrc__sack_blk(c, una, cack, bk)->acked >> (una & 63u)) & 1u) una = MRC__PSN_INC(una);
    c->snd_una = una;
    mrc__req_progress(c, now);
    if (((old_base ^ c->win_base) & ~(MRC__BLK_PSNS - 1u)) || c->win_base == c->snd_nxt) mrc__req_release(c, old_base);
    c->bflags |= MRC__BURST_SACK | MRC__BURST_PROGRESS;
    mrc__burst_defer(ep, c);
}
/* ... and the SACKs' NSCC burst sample, as mrc__sack_fast_bcc's per SACK leave it: their newly received bytes summed
 * (saturating: one sum, then the cap, is each SACK's capped addition), their latest RTT sample (rtt, 0: none), no CE
 * (m 0) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__sack_run_bcc(mrc_conn *c, uint64_t newly, mrc_time rtt) {
    c->bs_newly = (uint32_t)MRC__MIN((uint64_t)c->bs_newly + newly, (uint64_t)0xFFFFFFFFu);
    if (rtt) c->bs_rtt = (uint32_t)MRC__MIN(rtt, (mrc_time)0xFFFFFFFFu);
    c->bflags |= MRC__BURST_CC;
}
MRC__PRIVATE MRC__NOINLINE unsigned mrc__req_sack_run(mrc_endpoint *ep, const mrc_rxpkt *k, unsigned n, int *rc) {
    const mrc_config *cf = &ep->cfg;
    const size_t off = (size_t)MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN;
    const mrc_time now = ep->now;
    const mrc_rxpkt *k0 = k, *end = k + n;
    mrc_conn *c;
    mrc__ccx *x;
    mrc__pblk *bk = (mrc__pblk *)0;
    uint32_t qpn, nxt, old_base, base, cack = 0;
    uint64_t bytes = 0, newly = 0; /* newly: the bytes the SACKs' rcvd say were received (NSCC's burst sample) */
    mrc_time bs_rtt = 0;           /* ... and its latest RTT sample (0: none) */
    if (cf->wire.sack_msb_first || MRC__FX(k->pkt, MRC__BTH_DEST_QP) == MRC_EPOP_QPN) return 0;
    c = mrc__conn_lookup(ep, MRC__FX(k->pkt, MRC__BTH_DEST_QP));
    if (!c || c->state != MRC_QPS_RTS || (!(c->bflags & MRC__BURST_DIRTY) && ep->burst_len == MRC__BURST_QPS))
        return 0;
    x = mrc__conn_ccx(c);
    if (!x || x->algo != MRC_CC_ALGO_NSCC || x->ready_head != MRC__EV_NONE) return 0;
    qpn = c->qpn;
    nxt = c->snd_nxt;
    old_base = base = c->win_base;
    if (((nxt - old_base) & MRC_PSN_MASK) > MRC_MAX_INFLIGHT) return 0;
    for (; k != end; k++) {
        const uint8_t *p = k->pkt, *se, *cs_p;
        size_t len = k->len;
        uint32_t q, mpr;
        unsigned ev;
        mrc_time r_sent, acked_sent, rtt;
        mrc__pblk *b;
        mrc__psnrec *t;
        /* mrc_endpoint_recv_burst's dispatch, then the SACK fast path's tests and the run's */
        if (!p || k->ri.port - 1u >= cf->num_ports || (k->ri.flags & (MRC_RX_ICRC_BAD | MRC_RX_TRIMMED)) ||
            len < (size_t)MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN || p[0] != MRC_OP_SACK || len < off)
            break;
        if ((uint64_t)(len - off) - MRC__FX(p, MRC__BTH_PAD) > 0xFFFFFFFFu) break;
        se = p + MRC_BTH_LEN;
        cs_p = se + MRC_SETH_LEN;
        if (MRC__FX(se, MRC__SETH_PR) || MRC__FX(p, MRC__BTH_DEST_QP) != qpn ||
            ((MRC__FX(p, MRC__BTH_PKEY) ^ c->attr.pkey) & 0x7FFFu))
            break;
        q = MRC__FX(se, MRC__SETH_CACK);
        if (q != MRC__FX(p, MRC__BTH_PSN) || MRC__FX(se, MRC__SETH_ACK_OFF) || MRC__FX(se, MRC__SETH_BITMAP) ||
            MRC__FX(se, MRC__SETH_M) != MRC_M_NONE || ((q - base) & MRC_PSN_MASK) >= ((nxt - base) & MRC_PSN_MASK) ||
            MRC__FX(cs_p, MRC__CCS_PEN) || MRC__FX(cs_p, MRC__CCS_R_C))
            break;
        b = bk && !((q ^ cack) & ~(MRC__BLK_PSNS - 1u)) ? bk : mrc__blk(c, q); /* the SACK before's block, if q's */
        if (!b || (q & (MRC__BLK_PSNS - 1u)) < MRC__PBLK_LO(b) || ((b->acked >> (q & 63u)) & 1u)) break;
        t = &b->rec[q & (MRC__BLK_PSNS - 1u)];
        if (t->flags & (MRC__PR_RTX | MRC__PR_NAMED)) break;
        /* taken: the SACK's own updates, in the fast path's order */
#ifdef MRC_ENABLE_TRACE
        if (k != k0) { /* the hook sees the QP as the SACKs before left it, one by one (the counters at the end) */
            mrc__sack_run_fwd(ep, c, bk, old_base, cack, now);
            mrc__sack_run_bcc(c, newly, bs_rtt);
            old_base = c->win_base;
            newly = 0;
            bs_rtt = 0;
        }
#endif
        MRC__TRACE(ep, MRC_TRACE_RX, ((uint32_t)MRC_OP_SACK << 24) | q, k->ri.port);
        bytes += len;
        cack = q;
        bk = b;
        base = MRC__PSN_INC(q);
        r_sent = acked_sent = b->sent[q & (MRC__BLK_PSNS - 1u)];
        ev = t->ev;
        if (cf->tseth) {
            mrc_time ts = mrc__ts_unwrap(ep, (uint16_t)MRC__FX(cs_p, MRC__CCS_TS), now);
            if (ts < acked_sent) acked_sent = ts;
        }
        t->flags |= MRC__PR_NAMED;
        rtt = mrc__sack_fast_time(c, r_sent, acked_sent, now);
        if (ev < c->ev_count && mrc__ev_value(c, ev) == MRC__FX(se, MRC__SETH_ENTROPY)) {
            mrc__ev_delivered(c, ev, acked_sent);
            mrc__sack_fast_ev0(c, ev, now);
        }
        newly += mrc__sack_fast_rcvd(c, cs_p); /* NSCC's burst sample (mrc__sack_fast_bcc's), at the end */
        if (rtt) bs_rtt = rtt;
        mpr = MRC__FX(se, MRC__SETH_MPR);
        if ((c->attr.caps & MRC_CAP_DYNAMIC_MPR) && mpr) mrc__sack_mpr(c, mpr);
    }
    if (k == k0) return 0;
    /* the run's end: the forward-only updates for its last cumulative PSN (under MRC_ENABLE_TRACE, those of its last
     * SACK) and the counters */
    n = (unsigned)(k - k0);
    mrc__sack_run_fwd(ep, c, bk, old_base, cack, now);
    mrc__sack_run_bcc(c, newly, bs_rtt);
    MRC__CNT(ep->st.rx_bytes += bytes);
    MRC__CNT(ep->st.rx_pkts += n);
    MRC__CNT(c->st.rx_sack += n);
    if (rc) {
        unsigned j;
        for (j = 0; j < n; j++) rc[j] = MRC_OK;
    }
    return n;
}
#endif
#if MRC_FAST_PATH
/* ---- P22 fast paths of the responder ---------------------------------------------------------------------------
 The common cases of a receiving QP - a data packet and the SACK it causes - recognised by a few compares, with
 * exactly the state changes and outputs the general code (mrc__rsp_on_data, mrc__rsp_emit_ctl and their callers)
 * makes in those cases; anything else is left, before a byte has changed, to the general code. make fast-check
 * compares the two per call. They lean on four invariants: ooo counts the bits set in rbits, and rlast only has bits
 * that are set in rbits too - so ooo == 0 means both bitmaps are empty; cack + 1 never has its bit set when a call
 * starts (cack moves over every arrival it reaches); and a QP's deadline (its heap key) is the minimum of its timers
 * whenever a call starts. */

/* mrc__mr_find_keyed for mrc__rsp_fast_data, out of line: a caller-chosen rkey is rare, and its probe loop in line
 * costs the common case registers (gcc then keeps the packet's values on the stack) */
MRC__PRIVATE MRC__NOINLINE int mrc__rsp_mr_keyed(const mrc_endpoint *ep, uint32_t rkey) {
    return mrc__mr_find_keyed(ep, rkey);
}
/* mrc__rsp_fast_data's rare branches (MRC__SIZE_COLD): a PSN past cack + 1 outside the window or already in (the
 * general code's), an external region's placement (nonzero: its refusal dropped the packet, mrc__recv's steps
 * after it done), an arrival beyond a hole recorded, the first hole filled (cack moves on; mrc__rsp_note_late's
 * test is true: cack passed psn, or stayed on it with ooo as it was, not 0), an arrival beyond a hole's late check,
 * a TACK due */
MRC__PRIVATE MRC__SIZE_COLD bool mrc__rsp_fast_old(const mrc_conn *c, uint32_t psn, uint32_t old_cack) {
    return ((psn - old_cack) & MRC_PSN_MASK) - 1u >= c->rsp_win || mrc__rsp_got(c, psn);
}
MRC__PRIVATE MRC__SIZE_COLD int mrc__rsp_fast_place(mrc_endpoint *ep, mrc_conn *c, uint32_t mi, uint64_t mro,
                                                    const uint8_t *src, uint32_t plen, unsigned op) {
    const mrc_config *cf = &ep->cfg;
    int rc;
    if (cf->place(cf->place_ud, ep->mrs[mi].rkey, ep->mrs[mi].user, mro, src, plen) == 0) return 0;
    rc = mrc__drop(ep, c, MRC_DROP_PLACE, op);
    mrc__sched_tx(c); /* what mrc_endpoint_recv does after any packet of a QP */
    mrc__timer_update(c);
    MRC__CHECK_ALL(ep);
    return rc;
}
/* mrc__rsp_sack of the packet just taken (the pend_ fields hold its PSN, EV, port and timestamp), into a queue that
 * holds something (MRC__SIZE_COLD: its seven arguments are set up here, not in the fast path) */
MRC__PRIVATE MRC__SIZE_COLD void mrc__rsp_fast_sackq(mrc_conn *c, bool ce) {
    mrc__rsp_sack(c, c->pend_psn, c->pend_ev, c->pend_port, c->pend_ts, ce ? MRC_M_SKIP_ONCE : MRC_M_NONE, 0);
}
/* the coalesced SACK's deadline, once per coalesced SACK (MRC__SIZE_COLD) */
MRC__PRIVATE MRC__SIZE_COLD mrc_time mrc__rsp_fast_sack_dl(mrc_time now, mrc_time dt) {
    return mrc__deadline_add(now, dt);
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__rsp_fast_hole(mrc_conn *c, uint32_t psn, bool last) {
    mrc__bit_set(c->rbits, MRC__RSP_BITS, psn);
    if (last) mrc__bit_set(c->rlast, MRC__RSP_BITS, psn);
    c->ooo++;
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__rsp_fast_filled(mrc_conn *c, uint32_t psn, uint16_t ts) {
    mrc__rsp_advance_cack(c);
    if (ts) mrc__rsp_late(c, psn, ts);
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__rsp_fast_late(mrc_conn *c, uint32_t psn, uint16_t ts) {
    if (ts && mrc__rsp_any_after(c, psn)) mrc__rsp_late(c, psn, ts); /* mrc__rsp_note_late, cack before psn: a PSN
                                                                         beyond it in */
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__rsp_fast_tack(mrc_conn *c, const mrc_rxinfo *ri, uint32_t every) {
    if (c->tack_msgs < every) return;
    mrc__rsp_aeth(c, MRC_AETH_ACK, c->msn_done, ri);
    c->tack_msgs = 0;
    MRC__CNT(c->st.tx_tack++);
}
/* mrc_endpoint_recv's fast path (after the clock, the receive counters, the ICRC and trimmed flags, the shortest
 * length and the opcode: a Write without an immediate): a Write data packet not trimmed, new and inside the window,
 * with every header there, the payload its opcode implies and an access check that passes; anything else it hands,
 * before any change, to the general code (mrc__recv, a tail call). The common case of all - the PSN after cack while
 * nothing is out of order - skips the bitmaps. Reads the headers in place (the codec's field loaders) instead of
 * filling an mrc_pkt. */
MRC__PRIVATE MRC__NOINLINE int mrc__rsp_fast_data(mrc_endpoint *ep, const uint8_t *pkt, size_t len,
                                                 const mrc_rxinfo *ri, mrc_time now) {
    const mrc_config *cf = &ep->cfg;
    unsigned op = MRC__FX(pkt, MRC__BTH_OPCODE);
    uint32_t tsb, pad, psn, old_cack, dlen, mtu, plen, rkey, mi;
    size_t off;
    const uint8_t *q;
    uint8_t *dst = (uint8_t *)0; /* the copy's destination in a host region (0: an external region, placed) */
    mrc_conn *c;
    uint64_t va, mro;
    mrc_time sack_dl0;
    uint16_t ts = 0;
    bool last, req_idle, next, ce = (ri->ecn & 3u) == 3u;
    int rc;
    /* its caller took a packet of at least BTH, METH, TSETH and RETH, not flagged trimmed */
    if (ri->dscp == cf->dscp[MRC_DSCP_TRIMMED] || ri->dscp == cf->dscp[MRC_DSCP_TRIMMED_LASTHOP])
        return mrc__recv(ep, pkt, len, ri);
    c = mrc__conn_lookup(ep, MRC__FX(pkt, MRC__BTH_DEST_QP));
    psn = MRC__FX(pkt, MRC__BTH_PSN);
    if (!c || ((MRC__FX(pkt, MRC__BTH_PKEY) ^ c->attr.pkey) & 0x7FFFu) ||
        (c->state != MRC_QPS_RTR && c->state != MRC_QPS_RTS) || !(c->attr.access & MRC_ACCESS_REMOTE_WRITE))
        return mrc__recv(ep, pkt, len, ri);
    /* the next PSN (new: cack + 1 never has its bit set between calls), or a new PSN in the window past it.
     * mrc_psn_diff(psn, old_cack) in 1..rsp_win: rsp_win is below 2^23 (at most 255 * 128, RTR), so the 24-bit
     * distance less one, unsigned, is below it (and 0 below it: rsp_win is at least 1 in RTR and RTS) */
    old_cack = c->cack;
    next = psn == MRC__PSN_INC(old_cack);
    if (!next && mrc__rsp_fast_old(c, psn, old_cack)) return mrc__recv(ep, pkt, len, ri);
    tsb = MRC__FX(pkt, MRC__BTH_TS);
    q = pkt + MRC_BTH_LEN + MRC_METH_LEN;
    if (tsb) {
        ts = (uint16_t)MRC__FX(q, MRC__TSETH_TS);
        q += MRC_TSETH_LEN;
    }
    off = (size_t)(q - pkt) + MRC_RETH_LEN;
    /* the payload length its opcode implies (0: a length the general code drops or a zero-length write), its pad,
     * and nothing else will do: no cut, no trim, no excess */
    dlen = MRC__FX(q, MRC__RETH_DMA_LEN);
    mtu = 1u << c->mtu_shift;
    last = op > MRC_OP_WRITE_MIDDLE; /* LAST or ONLY: its caller takes no other Write */
    pad = MRC__FX(pkt, MRC__BTH_PAD);
    if (!last) { /* FIRST of more than one MTU, MIDDLE of more than two: a full packet, no pad (mtu >= 256) */
        plen = mtu;
        if (dlen <= (mtu << (op == MRC_OP_WRITE_MIDDLE)) || pad || len - off != mtu)
            return mrc__recv(ep, pkt, len, ri);
    } else {
        if (op == MRC_OP_WRITE_ONLY) plen = dlen <= mtu ? dlen : 0u;
        else plen = dlen > mtu ? ((dlen - 1u) & (mtu - 1u)) + 1u : 0u; /* the rest after the full packets */
        if (!plen || pad != ((4u - (plen & 3u)) & 3u) || len - off != (size_t)plen + pad)
            return mrc__recv(ep, pkt, len, ri);
    }
    /* Q26 responder check order: the message window (mrc__rsp_on_data's bound min(rsp_win, 0x8000) is rsp_win in RTR
     * and RTS: at most 255 * 128 PSNs, set at RTR from mpr_dest, an 8-bit attribute RTR requires) */
    if ((uint32_t)(uint16_t)(MRC__FX(pkt + MRC_BTH_LEN, MRC__METH_MSN) - (uint16_t)(c->msn_done + 1u)) >= c->rsp_win)
        return mrc__recv(ep, pkt, len, ri);
    rkey = MRC__FX(q, MRC__RETH_RKEY);
    mi = (rkey >> 8) - 1u; /* mrc__mr_find: an rkey naming no region wraps past MRC_MAX_MRS */
    va = MRC__FX(q, MRC__RETH_VA);
    /* mrc__mr_find without the valid test: a free slot is all zero (init, dereg), and its rkey 0 matches no rkey of
     * this form (rkey >> 8 >= 1) */
    if (mi >= MRC_MAX_MRS || ep->mrs[mi].rkey != rkey) /* a caller-chosen rkey, or none */
        mi = (uint32_t)mrc__rsp_mr_keyed(ep, rkey);
    if (mi >= MRC_MAX_MRS || !(ep->mrs[mi].access & MRC_ACCESS_REMOTE_WRITE))
        return mrc__recv(ep, pkt, len, ri);
    /* va below iova wraps mro past len (iova + len fits 64 bits, mrc__mr_check), so one test is both bounds */
    mro = va - ep->mrs[mi].iova;
    if (mro > ep->mrs[mi].len || plen > ep->mrs[mi].len - mro) return mrc__recv(ep, pkt, len, ri);
    /* from here on it is the fast path's: the general code's steps in its order, but for the copy into a host
     * region, done last (nothing before it reads the region; no value is then kept live across the call) */
    MRC__TRACE(ep, MRC_TRACE_RX, ((uint32_t)op << 24) | psn, ri->port);
    if (ep->mrs[mi].access & MRC_ACCESS_EXTERNAL) {
        if ((rc = mrc__rsp_fast_place(ep, c, mi, mro, pkt + off, plen, op)) != 0) return rc;
    } else {
        dst = ep->mrs[mi].base + mro; /* never null: a host region has a base */
    }
    req_idle = mrc__req_idle(c);
    sack_dl0 = c->sack_deadline;
    /* an arrival beyond a hole recorded; cack stays where it is (cack + 1 never has its bit set between calls) */
    if (!next) mrc__rsp_fast_hole(c, psn, last);
    MRC__CNT(c->st.rx_data++);
    if (ce) MRC__RARE_INC(c->st.rx_ce);
    /* mrc__rsp_epoch, which has nothing to do inside the epoch this QP was already counted in (its test here: a
     * size-optimized build keeps the function out of line) */
    if (now >= ep->epoch_end || c->rx_epoch != ep->epoch) mrc__rsp_epoch(ep, c, now);
    MRC__CNT(c->st.rx_bytes_placed += plen);
    c->rcvd_bytes += (uint64_t)len + 4u + MRC_NOMINAL_HDR; /* len = headers + payload + pad */
    if (next) { /* cack moves to it (its bits would be set and cleared again as cack moves over it) */
        if (last) {
            c->msn_done = (c->msn_done + 1u) & MRC_PSN_MASK;
            c->tack_msgs++;
        }
        c->cack = psn;
        if (c->ooo) mrc__rsp_fast_filled(c, psn, ts); /* it filled the first hole (ooo as on entry here) */
    } else {
        mrc__rsp_fast_late(c, psn, ts);
    }
    if (c->imms[c->imm_next & (MRC_MAX_WIMM - 1u)].psn & MRC__IMM_VALID) mrc__rsp_deliver_imms(c);
    c->sack_pending++;
    c->pend_psn = psn;
    c->pend_ev = ri->ev;
    c->pend_ts = ts;
    c->pend_port = ri->port;
    if (MRC__FX(pkt, MRC__BTH_A) || ce || MRC__FX(pkt, MRC__BTH_RTX) || c->sack_pending >= cf->ack.sack_every ||
        !next || c->cack != psn) { /* out of order, or a filled hole (in order, cack is psn) */
        if (c->ctlq_head == c->ctlq_tail && req_idle) { /* mrc__rsp_sack into an empty queue: nothing to coalesce */
            /* written in place, member by member (no copy through the stack): the bytes of mrc__rsp_sack's zeroed
             * entry, the padding included - nothing ever sets it (the QP is zeroed when created, and every other
             * entry is a copy of a zeroed one) */
            mrc__ctl *e = &c->ctlq[c->ctlq_tail++ & (MRC_CTLQ_LEN - 1u)];
            e->psn = e->lo = e->hi = psn;
            e->ev = c->pend_ev;
            e->ts = ts;
            e->kind = MRC__CTL_SACK;
            e->m = ce ? MRC_M_SKIP_ONCE : MRC_M_NONE; /* Q8/Q27: a CE mark asks the sender to skip that EV once */
            e->reason = 0;
            e->port = c->pend_port;
            e->pr = 0;
            if (!c->in_ctq) { /* mrc__sched_tx (its requester half has nothing to do) */
                c->in_ctq = 1;
                mrc__ring_push_il(ep->ctq, &ep->ctq_head, &ep->ctq_len, c->slot);
            }
            c->sack_pending = 0;
            c->sack_deadline = MRC_TIME_NEVER;
        } else {
            mrc__rsp_fast_sackq(c, ce);
        }
    } else if (c->sack_deadline == MRC_TIME_NEVER) {
        c->sack_deadline = mrc__rsp_fast_sack_dl(now, cf->ack.sack_delay_ns);
    }
    if (cf->ack.tack_every) mrc__rsp_fast_tack(c, ri, cf->ack.tack_every);
    if (ep->in_burst) { /* P37 bursts: what follows, once per QP at the burst's end */
        mrc__burst_defer(ep, c);
    } else {
        /* what mrc_endpoint_recv does after any packet of a QP */
        if (!req_idle) {
            mrc__sched_tx(c);
        } else if (!c->in_ctq && c->ctlq_head != c->ctlq_tail) {
            mrc__sched_ctl(c); /* its push (its test again) */
        }
        /* mrc__timer_update: the QP's heap key is the minimum of its timers when a call starts; with the requester
         * half idle the only timer this can move is sack_deadline */
        if (!req_idle || c->sack_deadline != sack_dl0) mrc__timer_update(c);
        MRC__CHECK_ALL(ep);
    }
    if (dst) MRC_MEMCPY(dst, pkt + off, (size_t)plen);
    return MRC_OK;
}

#if MRC__BURST_RUNS
/* mrc__rsp_fast_run: the fields of the SACK the run's packet k (timestamp ts) named last, as mrc__ctl_push's copy of
 * mrc__rsp_sack's entry leaves them (lo and hi are kept as they go) */
MRC__PRIVATE MRC__INLINE void mrc__rsp_run_tail(mrc__ctl *t, const mrc_rxpkt *k, uint16_t ts) {
    t->psn = MRC__FX(k->pkt, MRC__BTH_PSN);
    t->ev = k->ri.ev;
    t->ts = ts;
    t->reason = 0;
    t->port = k->ri.port;
}
/* mrc_rxinfo's port, DSCP, ECN and flags (its first four bytes) as one word in memory order */
MRC__PRIVATE MRC__INLINE uint32_t mrc__ri_word(const mrc_rxinfo *ri) {
    uint32_t w;
    MRC_MEMCPY(&w, ri, 4);
    return w;
}
/* P37 bursts: the most packets one receive run takes (a burst of more is taken in runs of this many): the PSNs a run
 * merges into a SACK span less than a quarter of the PSN space */
#define MRC__RUN_MAX (1u << 22)
/* mrc__rsp_fast_run's merges of the PSNs mf .. ml (increasing, spanning less than MRC__RUN_MAX) into the tail, as
 * mrc__ctl_push's merges one by one leave lo and hi: lo moves to the first merged PSN at or before it, if any (then it
 * stays: the next ones are after it), and never later - exact while lo is less than MRC__RUN_MAX before the run's
 * first PSN (the difference cannot wrap; lazy); hi moves to each PSN at or after it, so to ml once one reached it */
#define MRC__RUN_TAIL()                                                                                                \
    do {                                                                                                               \
        if (merged) {                                                                                                  \
            int32_t d_ = mrc_psn_diff(tail->hi, mf);                                                                   \
            if (mrc_psn_diff(tail->lo, mf) >= 0) tail->lo = mf;                                                        \
            if (d_ <= 0 || ((ml - mf) & MRC_PSN_MASK) >= (uint32_t)d_) tail->hi = ml;                                  \
            merged = false;                                                                                            \
        }                                                                                                              \
    } while (0)
/* P37 bursts: a run of in-order data packets to one QP (a NIC's receive burst of one flow), from
 * mrc_endpoint_recv_burst for a Write without an immediate. Each packet is checked as mrc_endpoint_recv_burst,
 * mrc__recv_one and mrc__rsp_fast_data check it, and if it is the next PSN of a QP with nothing out of order, without
 * the A or RTX bit, into a host region, not CE-marked, and the SACK it may owe is written into an empty queue or merges
 * into the tail, it is taken as they take it in a burst; the first packet that is not this case ends the run, nothing
 * of it changed (the caller takes it as before). What the per-packet path finds anew each time is found once per run:
 * the QP (a packet with the QP's QPN is what the lookup would find it for), its state and rights, an empty reorder
 * state (an in-order arrival keeps it empty), the requester half idle or not (nothing here changes it), no transport
 * ACKs asked for. Returns the packets taken (0: none, the first not this case; their rc MRC_OK). */
MRC__PRIVATE MRC__NOINLINE unsigned mrc__rsp_fast_run(mrc_endpoint *ep, const mrc_rxpkt *k, unsigned n, int *rc,
                                                      mrc_time now) {
    const mrc_config *cf = &ep->cfg;
    mrc_conn *c = mrc__conn_lookup(ep, MRC__FX(k->pkt, MRC__BTH_DEST_QP));
    const mrc_rxpkt *k0 = k, *end = k + MRC__MIN(n, MRC__RUN_MAX), *kl = (const mrc_rxpkt *)0; /* kl: the last taken */
    mrc__ctl *tail; /* the control queue's tail, a plain SACK a SACK merges into (0: the queue is empty or it is not) */
    uint32_t mtu, qpn, rkey_ok = 0;
    const mrc__mr *mr_ok = (const mrc__mr *)0; /* the region rkey_ok names */
    uint64_t lens = 0, plens = 0; /* the packets' and the payloads' bytes, counted at the end */
    uint16_t ts = 0;              /* the last packet's timestamp */
    bool sack_ok, imm_wait, tail_new = false; /* tail_new: the last packet taken named the tail's SACK */
    bool epoch = true; /* mrc__rsp_epoch may still change something: not once it left the epoch current and
                          counted */
    bool like = false; /* kl a first or middle packet with no immediate stashed after it: one like it passes its
                          tests */
    size_t off_like = 0; /* kl's payload offset */
    uint32_t ri_mask, ri_like = 0; /* the receive flags' bytes but the port (the planes take turns), and kl's */
    /* the SACK merges into the tail (mrc__ctl_push's), made at the end: mf and ml the first and last PSNs merged since
     * (merged), lazy where that is exact (MRC__RUN_TAIL) */
    uint32_t mf = 0, ml = 0;
    bool merged = false, lazy;
    /* (a QP's first packet of the burst queues its deferred work: where that flushes the full queue, the flush may
     * wake this QP's requester half - mrc__rsp_fast_data then takes the packet, and the run waits for the next one) */
    if (!c || (!(c->bflags & MRC__BURST_DIRTY) && ep->burst_len == MRC__BURST_QPS) ||
        (c->state != MRC_QPS_RTR && c->state != MRC_QPS_RTS) || !(c->attr.access & MRC_ACCESS_REMOTE_WRITE) || c->ooo ||
        cf->ack.tack_every)
        return 0;
    {
        static const uint8_t mb[4] = {0u, 0xFFu, 0xFFu, 0xFFu}; /* mrc_rxinfo's first four bytes, port first */
        MRC_MEMCPY(&ri_mask, mb, 4);
    }
    mtu = 1u << c->mtu_shift;
    qpn = c->qpn;
    tail = &c->ctlq[(c->ctlq_tail - 1u) & (MRC_CTLQ_LEN - 1u)];
    if (c->ctlq_head == c->ctlq_tail || tail->kind != MRC__CTL_SACK || tail->pr || tail->m != MRC_M_NONE)
        tail = (mrc__ctl *)0;
    /* a SACK it owes can be merged into the tail, or written into the empty queue (with the requester half idle: it
     * stays so, nothing here changes it); else the packet path takes that packet */
    sack_ok = tail || (c->ctlq_head == c->ctlq_tail && mrc__req_idle(c));
    lazy = !tail || mrc_psn_diff(tail->lo, MRC__PSN_INC(c->cack)) > -(int32_t)MRC__RUN_MAX;
    /* an immediate waiting in the stash for cack to pass its message (none stashed here: only mrc__rsp_deliver_imms,
     * which the run calls, changes that) */
    imm_wait = (c->imms[c->imm_next & (MRC_MAX_WIMM - 1u)].psn & MRC__IMM_VALID) != 0;
    for (; k != end; k++) {
        const uint8_t *pkt = k->pkt, *q;
        size_t len = k->len, off;
        uint32_t psn, op, dlen, pad, plen, rkey, mi;
        const mrc__mr *mr;
        uint64_t mro;
        uint16_t pts = 0;
        bool last, sack;
        /* mrc_endpoint_recv_burst's and mrc__recv_one's tests, then mrc__rsp_fast_data's, then the in-order case (each
         * a test that ends the run, none with an effect: in any order) */
        if (!pkt || len < (size_t)MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN) break;
        /* the next PSN, with neither the A nor the RTX bit (either asks for a SACK at once: left to the packet path) */
        psn = MRC__PSN_INC(c->cack);
        if ((mrc__ld4(pkt + 8) & (0xA0000000u | MRC_PSN_MASK)) != psn) break;
        q = pkt + MRC_BTH_LEN + MRC_METH_LEN;
        if (MRC__LIKELY(MRC__FX(pkt, MRC__BTH_TS))) {
            pts = (uint16_t)MRC__FX(q, MRC__TSETH_TS);
            q += MRC_TSETH_LEN;
        }
        off = (size_t)(q - pkt) + MRC_RETH_LEN;
        /* a packet like the one before, a first or middle one (the same length, receive flags, BTH words 0 and 1, METH,
         * headers' length, RETH rkey and length; only the PSN, the timestamp and the VA differ): every test below
         * but the region's bounds has its answer (what they read of the QP, the MSN expected, moves only at a
         * message's last packet, and nothing else in the run changes it: immediates stashed excepted) */
        if (MRC__LIKELY(like && len == kl->len && off == off_like && (mrc__ri_word(&k->ri) & ri_mask) == ri_like &&
                        k->ri.port - 1u < cf->num_ports && !MRC_MEMCMP(pkt, kl->pkt, 8) &&
                        !MRC_MEMCMP(pkt + MRC_BTH_LEN, kl->pkt + MRC_BTH_LEN, MRC_METH_LEN) &&
                        !MRC_MEMCMP(q + 8, kl->pkt + off - 8, 8))) {
            op = pkt[0];
            last = false;
            plen = mtu;
            mr = mr_ok;
        } else {
            if (k->ri.port - 1u >= cf->num_ports || (k->ri.flags & (MRC_RX_ICRC_BAD | MRC_RX_TRIMMED))) break;
            op = pkt[0];
            if (op - MRC_OP_WRITE_FIRST > MRC_OP_WRITE_ONLY - MRC_OP_WRITE_FIRST || op == MRC_OP_WRITE_LAST_IMM ||
                k->ri.dscp == cf->dscp[MRC_DSCP_TRIMMED] || k->ri.dscp == cf->dscp[MRC_DSCP_TRIMMED_LASTHOP] ||
                (k->ri.ecn & 3u) == 3u || MRC__FX(pkt, MRC__BTH_DEST_QP) != qpn ||
                ((MRC__FX(pkt, MRC__BTH_PKEY) ^ c->attr.pkey) & 0x7FFFu))
                break;
            dlen = MRC__FX(q, MRC__RETH_DMA_LEN);
            last = op > MRC_OP_WRITE_MIDDLE;
            pad = MRC__FX(pkt, MRC__BTH_PAD);
            if (!last) {
                plen = mtu;
                if (dlen <= (mtu << (op == MRC_OP_WRITE_MIDDLE)) || pad || len - off != mtu) break;
            } else {
                if (op == MRC_OP_WRITE_ONLY) plen = dlen <= mtu ? dlen : 0u;
                else plen = dlen > mtu ? ((dlen - 1u) & (mtu - 1u)) + 1u : 0u;
                if (!plen || pad != ((4u - (plen & 3u)) & 3u) || len - off != (size_t)plen + pad) break;
            }
            if ((uint32_t)(uint16_t)(MRC__FX(pkt + MRC_BTH_LEN, MRC__METH_MSN) - (uint16_t)(c->msn_done + 1u)) >=
                c->rsp_win)
                break;
            /* the region: the rkey the packet before named is the slot it found, with its rights (nothing in the run
             * registers or deregisters a region); its bounds every time */
            rkey = MRC__FX(q, MRC__RETH_RKEY);
            if (rkey == rkey_ok && rkey_ok) {
                mr = mr_ok;
            } else {
                mi = (rkey >> 8) - 1u;
                if (mi >= MRC_MAX_MRS || ep->mrs[mi].rkey != rkey) mi = (uint32_t)mrc__rsp_mr_keyed(ep, rkey);
                if (mi >= MRC_MAX_MRS || (ep->mrs[mi].access & (MRC_ACCESS_REMOTE_WRITE | MRC_ACCESS_EXTERNAL)) !=
                                             MRC_ACCESS_REMOTE_WRITE)
                    break;
                mr = &ep->mrs[mi];
            }
            rkey_ok = rkey;
            off_like = off;
            like = !last;
            ri_like = mrc__ri_word(&k->ri) & ri_mask; /* (a packet like it has the same) */
        }
        mro = MRC__FX(q, MRC__RETH_VA) - mr->iova;
        if (mro > mr->len || plen > mr->len - mro) break;
        mr_ok = mr;
        /* the SACK it may owe: mrc__rsp_fast_data's choice; a merge into the tail always keeps (the PSNs it names end
         * at psn, which becomes cack) */
        sack = c->sack_pending + 1u >= cf->ack.sack_every;
        if (sack && !sack_ok) break;
        /* taken: mrc__recv_one's and mrc__rsp_fast_data's steps for this case, in their order - but for the counters
         * and the last packet's pend_* and SACK fields, written at the end (nothing here reads them), as are rc[] and
         * the QP's deferred work */
        if (tail_new && !sack) { /* a SACK the packet before named, which this one does not rename: its fields now */
            mrc__rsp_run_tail(tail, kl, ts);
            tail_new = false;
        }
        kl = k;
        ts = pts;
        lens += len;
        plens += plen;
#ifdef MRC_ENABLE_TRACE
        MRC__RUN_TAIL(); /* the hook sees the tail as the packets before left it */
#endif
        MRC__TRACE(ep, MRC_TRACE_RX, ((uint32_t)op << 24) | psn, k->ri.port);
        if (epoch) {
            mrc__rsp_epoch(ep, c, now);
            epoch = now >= ep->epoch_end; /* (now is the burst's: the same for the rest of the run) */
        }
        if (last) {
            c->msn_done = (c->msn_done + 1u) & MRC_PSN_MASK;
            c->tack_msgs++;
        }
        c->cack = psn;
        if (imm_wait) {
            if (c->imms[c->imm_next & (MRC_MAX_WIMM - 1u)].psn & MRC__IMM_VALID) mrc__rsp_deliver_imms(c);
            imm_wait = (c->imms[c->imm_next & (MRC_MAX_WIMM - 1u)].psn & MRC__IMM_VALID) != 0;
            if (imm_wait) like = false;
        }
        if (!sack) {
            c->sack_pending++;
            if (c->sack_deadline == MRC_TIME_NEVER) c->sack_deadline = mrc__deadline_add(now, cf->ack.sack_delay_ns);
        } else {
            if (tail) { /* mrc__ctl_push's merge */
                if (MRC__LIKELY(lazy)) {
                    if (!merged) mf = psn;
                    merged = true;
                    ml = psn;
                } else {
                    if (mrc_psn_diff(tail->lo, psn) >= 0) tail->lo = psn;
                    if (mrc_psn_diff(tail->hi, psn) <= 0) tail->hi = psn;
                }
            } else { /* into the empty queue, as mrc__rsp_fast_data */
                tail = &c->ctlq[c->ctlq_tail++ & (MRC_CTLQ_LEN - 1u)];
                tail->lo = tail->hi = psn;
                tail->kind = MRC__CTL_SACK;
                tail->m = MRC_M_NONE;
                tail->pr = 0;
                if (!c->in_ctq) {
                    c->in_ctq = 1;
                    mrc__ring_push(ep->ctq, &ep->ctq_head, &ep->ctq_len, c->slot);
                }
            }
            tail_new = true;
            c->sack_pending = 0;
            c->sack_deadline = MRC_TIME_NEVER;
        }
        MRC_MEMCPY(mr->base + mro, pkt + off, (size_t)plen);
    }
    if (kl) {
        uint32_t m = (uint32_t)(kl - k0) + 1u, j;
        MRC__RUN_TAIL();
        if (rc)
            for (j = 0; j < m; j++) rc[j] = MRC_OK;
        if (tail_new) mrc__rsp_run_tail(tail, kl, ts);
        c->pend_psn = c->cack;
        c->pend_ev = kl->ri.ev;
        c->pend_ts = ts;
        c->pend_port = kl->ri.port;
        MRC__CNT(ep->st.rx_bytes += lens);
        MRC__CNT(ep->st.rx_pkts += m);
        MRC__CNT(c->st.rx_data += m);
        MRC__CNT(c->st.rx_bytes_placed += plens);
        c->rcvd_bytes += lens + (uint64_t)m * (4u + MRC_NOMINAL_HDR);
        /* the QP's deferred work queued, as its first packet's would have been: no other QP was touched since, and
         * the queue is not full (no flush) */
        if (!(c->bflags & MRC__BURST_DIRTY)) mrc__burst_defer(ep, c);
    }
    return (unsigned)(k - k0);
}
#undef MRC__RUN_TAIL
#undef MRC__RUN_MAX
#endif

/* *ti zeroed, every byte (its padding too): a size-optimized GCC build calls memset for it (about 50 instructions
 * on Cortex-M4 for the 40 bytes), so there it is stores of whole words, which GCC merges (5 strd) */
MRC__PRIVATE MRC__INLINE void mrc__ti_zero(mrc_txinfo *ti) {
#if defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__) && defined(__OPTIMIZE_SIZE__)
    typedef uint32_t __attribute__((__may_alias__)) mrc__aw; /* stores that may alias every member */
    mrc__aw *z = (mrc__aw *)(void *)ti;
    unsigned i;
    _Pragma("GCC unroll 16") for (i = 0; i < sizeof *ti / sizeof *z; i++) z[i] = 0;
#else
    MRC_MEMSET(ti, 0, sizeof *ti);
#endif
}
/* mrc__rsp_fast_sack with something out of order (MRC__SIZE_COLD): the bitmap from PSN base, and *pen from
 * mrc__rsp_penalty, called only past its threshold: below it the penalty is the host's alone too. ooo >
 * floor(rsp_win * pct / 100) is 100 * ooo > rsp_win * pct (no division; both below 2^32: ooo at most MRC__RSP_BITS,
 * rsp_win at most 255 * 128) */
MRC__PRIVATE MRC__SIZE_COLD uint64_t mrc__rsp_fast_sack_ooo(mrc_conn *c, uint32_t base, uint8_t *pen) {
    const mrc_endpoint *ep = c->ep;
    if (ep->cfg.rx.pen_ooo_pct && 100u * c->ooo > c->rsp_win * ep->cfg.rx.pen_ooo_pct) *pen = mrc__rsp_penalty(c);
    return mrc__bits64(c->rbits, MRC__RSP_BITS, base);
}
/* mrc__rsp_fast_sack's P28 mirror reverse path with a profile (MRC__SIZE_COLD): MIRROR replies, the arrival's mirror */
MRC__PRIVATE MRC__SIZE_COLD uint16_t mrc__rsp_fast_mirror(mrc_conn *c, const mrc__ctl *e) {
    return c->ep->cfg.ev.reply != MRC_EV_REPLY_MIRROR ? (uint16_t)MRC__EV_NONE : mrc__ev_mirror(c, e->ev, e->port);
}
/* mrc_endpoint_poll_tx's fast path for a QP it took off the control round-robin with a packet queued: a plain SACK
 * (no probe answer; with nothing out of order the penalty is the host's alone and the bitmap 0), leaving on the
 * arrival's mirror (P28 mirror reverse path) or an EV of the arrival plane (mrc__ev_ctl's first choice; reply not ECHO
 * off), with the LSB-first SETH. It stores the 48 header bytes (BTH, SETH, CC_STATE) a word at a time, as the encoders
 * would with these values, and does the rest of poll_tx's work for the packet. 0 when it is not its case: nothing was
 * changed. */
MRC__PRIVATE MRC__INLINE int mrc__rsp_fast_sack(mrc_conn *c, uint8_t *buf, mrc_txinfo *ti) {
    mrc_endpoint *ep = c->ep;
    const mrc__ctl *e = &c->ctlq[c->ctlq_head & (MRC_CTLQ_LEN - 1u)];
    unsigned p = e->port - 1u, nev;
    uint32_t cack, ooo;
    int32_t ack, soff;
    uint16_t rs;
    uint8_t pen, mpr;
    uint64_t bitmap = 0;
    bool req_idle;
    if (e->kind != MRC__CTL_SACK || e->pr || ep->cfg.ev.reply == MRC_EV_REPLY_ECHO || !mrc__seth_fast_ok(&ep->cfg.wire))
        return 0;
    /* P28 mirror reverse path (only with a profile and MIRROR replies: its own first test, kept here so that the
     * common case makes no call), else mrc__ev_ctl's first plane's turn */
    if (!c->ev_prof || (rs = mrc__rsp_fast_mirror(c, e)) == MRC__EV_NONE) {
        nev = (unsigned)c->n_act[p] + c->n_skip[p];
        if (!nev) return 0;
        if (c->rev_pos[p] >= nev) c->rev_pos[p] = 0;
        rs = mrc__evr_at(c, p, c->rev_pos[p]++);
    }
    cack = c->cack;
    ack = mrc_psn_diff(e->psn, cack);
    soff = mrc__sack_slice(c, e->hi);
    pen = ep->rx_pressure;
    ooo = c->ooo;
    mpr = (c->attr.caps & MRC_CAP_DYNAMIC_MPR) ? mrc__rsp_mpr(c) : 0;
    if (ooo) bitmap = mrc__rsp_fast_sack_ooo(c, cack + (uint32_t)soff, &pen); /* else the penalty is the host's
                                                                                 alone and the bitmap 0 */
    MRC_MEMCPY(buf, c->tx_sack, 8); /* opcode, TVER, PKEY, DEST_QP */
    mrc__st4(buf + 8, MRC__FW(8, 4, MRC__BTH_PSN, cack));
    buf += MRC_BTH_LEN;
    mrc__st4(buf, MRC__FW(0, 4, MRC__SETH_M, e->m) |
                      MRC__FW(0, 4, MRC__SETH_ACK_OFF, (uint16_t)(ack < -32768 || ack > 32767 ? 0 : ack)));
    mrc__st4(buf + 4, MRC__FW(4, 4, MRC__SETH_ENTROPY, e->ev));
    MRC_MEMCPY(buf + 8, &c->tx_sack[2], 4); /* SPDCID, DPDCID */
    mrc__st4(buf + 12, MRC__FW(12, 4, MRC__SETH_CACK, cack));
    mrc__st4(buf + 16, MRC__FW(16, 4, MRC__SETH_MPR, mpr) |
                           MRC__FW(16, 4, MRC__SETH_SACK_OFF, (uint16_t)soff));
    mrc__st8(buf + 20, bitmap);
    buf += MRC_SETH_LEN;
    mrc__st4(buf, MRC__FW(0, 4, MRC__CCS_TS, e->ts) | MRC__FW(0, 4, MRC__CCS_OOO, MRC__MIN(ooo, 0x7FFFu)));
    mrc__st4(buf + 4, MRC__FW(4, 4, MRC__CCS_R_C, !pen && c->pen_last) | MRC__FW(4, 4, MRC__CCS_PEN, pen) |
                          MRC__FW(4, 4, MRC__CCS_RCVD, (c->rcvd_bytes >> 8) & 0xFFFFFFu));
    c->pen_last = pen;
    if (pen) MRC__RARE_INC(c->st.tx_pen);
    MRC__CNT(c->st.tx_sack++);
    mrc__ti_zero(ti);
    mrc__ev_txinfo(c, rs, ti);
    ti->dscp_class = MRC_DSCP_CONTROL;
    ti->dscp = ep->cfg.dscp[MRC_DSCP_CONTROL];
    ti->opcode = MRC_OP_SACK;
    ti->peer = c->attr.peer;
    ti->qpn = c->qpn;
    ti->hdr_len = MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN;
    c->ctlq_head++;
    req_idle = mrc__req_idle(c); /* (nothing above changes what it reads) */
    MRC__TRACE(ep, MRC_TRACE_TX, ((uint32_t)MRC_OP_SACK << 24) | cack, ti->ev);
    if (!req_idle) { /* mrc__sched_tx: round-robin, to the tail if it has more */
        mrc__sched_tx(c);
    } else if (c->ctlq_head != c->ctlq_tail) {
        mrc__sched_ctl(c); /* (in_ctq is 0: the pop cleared it) its push, its test again */
    }
    MRC__CNT(ep->st.tx_pkts++);
    MRC__CNT(ep->st.tx_bytes += MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN);
    return MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN;
}
#endif

/* ---- receive: the entry ------------------------------------------------------------------------------------- */
/* One packet, its arguments checked, at the endpoint's clock */
MRC__PRIVATE MRC__INLINE int mrc__recv_one(mrc_endpoint *ep, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri) {
    MRC__CNT(ep->st.rx_bytes += len);
#if MRC_FAST_PATH
    /* P22 fast paths: a Write without an immediate, or a SACK (each hands what is not its case on to mrc__recv).
     * Neither takes a trimmed packet or one shorter than the smallest data packet (BTH, METH, TSETH, RETH; a SACK is
     * longer): both are left to the general code here, with the ICRC flag in the same test. */
    if (!(ri->flags & (MRC_RX_ICRC_BAD | MRC_RX_TRIMMED)) &&
        len >= (size_t)MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN && !ep->cfg.fast_path_off) {
        unsigned op = pkt[0];
        MRC__CNT(ep->st.rx_pkts++); /* here and below: apart from rx_bytes, two adds (not one vector add, 5 more on
                                     * x86-64) */
        if (op - MRC_OP_WRITE_FIRST <= MRC_OP_WRITE_ONLY - MRC_OP_WRITE_FIRST && op != MRC_OP_WRITE_LAST_IMM)
            return mrc__rsp_fast_data(ep, pkt, len, ri, ep->now);
        if (op == MRC_OP_SACK) return mrc__req_sack_fast(ep, pkt, len, ri, ep->now);
        return mrc__recv(ep, pkt, len, ri);
    }
#endif
    MRC__CNT(ep->st.rx_pkts++);
    if (ri->flags & MRC_RX_ICRC_BAD) return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_ICRC, len ? pkt[0] : 0u);
    return mrc__recv(ep, pkt, len, ri);
}
MRC_API int mrc_endpoint_recv(mrc_endpoint *ep, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri,
                              mrc_time now) {
    if (!ep || !ri || ri->port - 1u >= ep->cfg.num_ports || !pkt) return MRC_ERR_INVAL; /* port 0 wraps */
    (void)mrc__clock(ep, now); /* ep->now from here on: the general path reads it (its callers' fallbacks are plain
                                 * tail calls) */
    return mrc__recv_one(ep, pkt, len, ri);
}
/* P37 bursts: the packets in order at one time; the per-QP work a packet leaves (NSCC's update, the RTO/TLP re-arm,
 * scheduling, the timer key) is done once per QP at the end, and the general code sees a QP as after single calls.
 * In-order data packets of one QP are taken as a run (mrc__rsp_fast_run, where MRC__BURST_RUNS), and so are its
 * in-order SACKs (mrc__req_sack_run), unless
 * ep->burst_no_runs (the fast-path check's reference, tests/fixtures/mrc_fastcheck.h: every packet alone, through
 * mrc__recv_one). */
MRC_API int mrc_endpoint_recv_burst(mrc_endpoint *ep, const mrc_rxpkt *pkts, unsigned n, int *rc, mrc_time now) {
    const mrc_rxpkt *k, *end;
    int ok = 0;
    if (!ep || (!pkts && n)) return MRC_ERR_INVAL;
    (void)mrc__clock(ep, now); /* ep->now from here on: a value fewer kept across the calls */
    ep->in_burst = 1;
    for (k = pkts, end = pkts + n; k != end; k++) {
        int r;
#if MRC__BURST_RUNS
        /* mrc__recv_one's fast-path dispatch, with a run of one QP's in-order SACKs or Writes first (ep->burst_no_runs:
         * the fast-path check's reference takes every packet through mrc__recv_one) */
        if (k->pkt && k->ri.port - 1u < ep->cfg.num_ports && !(k->ri.flags & (MRC_RX_ICRC_BAD | MRC_RX_TRIMMED)) &&
            k->len >= (size_t)MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN && !ep->cfg.fast_path_off &&
            !ep->burst_no_runs) {
            unsigned op = k->pkt[0], m;
            bool data = op - MRC_OP_WRITE_FIRST <= MRC_OP_WRITE_ONLY - MRC_OP_WRITE_FIRST && op != MRC_OP_WRITE_LAST_IMM;
            m = op == MRC_OP_SACK ? mrc__req_sack_run(ep, k, (unsigned)(end - k), rc)
                : data            ? mrc__rsp_fast_run(ep, k, (unsigned)(end - k), rc, ep->now)
                                  : 0u;
            if (m) { /* a run: m packets taken, their rc written */
                k += m - 1u;
                if (rc) rc += m;
                ok += (int)m;
                continue;
            }
            MRC__CNT(ep->st.rx_bytes += k->len);
            MRC__CNT(ep->st.rx_pkts++);
            r = op == MRC_OP_SACK ? mrc__req_sack_fast(ep, k->pkt, k->len, &k->ri, ep->now)
                : data            ? mrc__rsp_fast_data(ep, k->pkt, k->len, &k->ri, ep->now)
                                  : mrc__recv(ep, k->pkt, k->len, &k->ri);
        } else
#endif
        {
            r = !k->pkt || k->ri.port - 1u >= ep->cfg.num_ports ? MRC_ERR_INVAL
                                                                : mrc__recv_one(ep, k->pkt, k->len, &k->ri);
        }
        if (rc) *rc++ = r;
        ok += r == MRC_OK;
    }
    mrc__burst_flush(ep);
    ep->in_burst = 0;
    MRC__CHECK_ALL(ep);
    return ok;
}

/* ---- transmit: the fast path of new data, the general path, the entry --------------------------------------- */
#if MRC_FAST_PATH
/* the fast paths' EV without a recycled one: plane p's next in its rotation, a new round when it is through (as
 * mrc__ev_pick; MRC__SIZE_COLD: with EV recycling the common case takes a recycled EV) */
MRC__PRIVATE MRC__SIZE_COLD uint16_t mrc__fast_ev_next(mrc_conn *c, unsigned p) {
    if (c->act_pos[p] >= c->n_act[p]) mrc__ev_new_round(c, p);
    return mrc__evr_at(c, p, c->act_pos[p]++);
}
/* the fast paths' data packet's A bit with ack.request_every (every n-th packet; MRC__SIZE_COLD) */
MRC__PRIVATE MRC__SIZE_COLD uint32_t mrc__fast_areq(mrc_conn *c, uint32_t n) {
    if (++c->pkts_since_areq < n) return 0;
    c->pkts_since_areq = 0;
    return 1;
}
/* the fast paths' data packet's SE bit of a solicited immediate (byte 1, at its run-time bit; MRC__SIZE_COLD) */
MRC__PRIVATE MRC__SIZE_COLD uint32_t mrc__fast_se(const mrc_config *cf, const mrc__wr *wr) {
    return (wr->flags & MRC_WR_SOLICITED) ? 1u << (13u - mrc__m_bit(&cf->wire) + 16u) : 0u;
}
/* The fast paths' data packet (mrc__req_tx_fast, mrc__req_rtx_fast): the opcode of packet k of WR wr (index wr_idx),
 * returned; the A bit (ack.request_every); the headers at buf - BTH (rtx: its retransmission bit), METH, TSETH when on,
 * RETH, ImmDt when imm - stored as mrc__req_emit_data stores them */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__fast_data_hdrs(mrc_endpoint *ep, mrc_conn *c, uint8_t *buf,
                                                            const mrc__wr *wr, uint32_t wr_idx, uint32_t k,
                                                            uint32_t sh, uint32_t psn, uint32_t pad, bool last,
                                                            bool imm, uint32_t rtx, mrc_time now) {
    const mrc_config *cf = &ep->cfg;
#ifdef __OPTIMIZE_SIZE__
    /* FIRST, MIDDLE, LAST(_IMM), ONLY(_IMM): WRITE_FIRST plus 0, 1, 2(+imm), 4(+imm) - a nibble of 0x4201 picked by
     * last and k == 0, without branches (imm only when last; Cortex-M4 -Os: 80 B less than the branches below) */
    const uint32_t opcode = MRC_OP_WRITE_FIRST + (uint32_t)imm +
                            ((0x4201u >> (((last ? 2u : 0u) + (k == 0 ? 1u : 0u)) * 4u)) & 0xFu);
#else /* the branches: x86-64 -O2 keeps each opcode's constants */
    const uint32_t opcode = !last  ? (k == 0 ? MRC_OP_WRITE_FIRST : MRC_OP_WRITE_MIDDLE)
                            : k == 0 ? (imm ? MRC_OP_WRITE_ONLY_IMM : MRC_OP_WRITE_ONLY)
                                     : (imm ? MRC_OP_WRITE_LAST_IMM : MRC_OP_WRITE_LAST);
#endif
    const uint32_t a = cf->ack.request_every ? mrc__fast_areq(c, cf->ack.request_every) : (uint32_t)last;
    uint8_t *q;
    mrc__st4(buf, MRC__FW(0, 4, MRC__BTH_OPCODE, opcode) | (imm ? mrc__fast_se(cf, wr) : 0u) |
                      MRC__FW(0, 4, MRC__BTH_PAD, pad) | c->tx_bth0); /* se: byte 1, at its run-time bit; TVER and
                                                                        * PKEY from the QP's template */
    mrc__st4(buf + 4, MRC__FW(4, 4, MRC__BTH_RESV8, 0u) | MRC__FW(4, 4, MRC__BTH_DEST_QP, c->attr.dest_qpn));
    mrc__st4(buf + 8, MRC__FW(8, 4, MRC__BTH_A, a) | MRC__FW(8, 4, MRC__BTH_RTX, rtx) |
                          MRC__FW(8, 4, MRC__BTH_TS, cf->tseth ? 1u : 0u) | MRC__FW(8, 4, MRC__BTH_PSN, psn));
    mrc__st4(buf + MRC_BTH_LEN,
             MRC__FW(0, 4, MRC__METH_RQMSN, wr->rqmsn) | MRC__FW(0, 4, MRC__METH_MSN, mrc__wr_msn(wr_idx)));
    q = buf + MRC_BTH_LEN + MRC_METH_LEN;
    if (cf->tseth) {
        mrc__st4(q, MRC__FW(0, 4, MRC__TSETH_TS, mrc__ts(ep, now)) | MRC__FW(0, 4, MRC__TSETH_TSR, 0u) |
                        MRC__FW(0, 4, MRC__TSETH_FTYPE, 1u));
        q += MRC_TSETH_LEN;
    }
    MRC__FPUT(q, MRC__RETH_VA, wr->remote_va + (k << sh)); /* 32-bit: see mrc__req_tx_fast */
    MRC__FPUT(q, MRC__RETH_RKEY, wr->rkey);
    MRC__FPUT(q, MRC__RETH_DMA_LEN, wr->len);
    if (imm) MRC__FPUT(q + MRC_RETH_LEN, MRC__IMMDT_IMM, wr->imm);
    return opcode;
}
/* MRC_TX_COPY's copy of the payload (plen bytes at ti->payload, then pad zero bytes) to q, after the headers
 * (MRC__SIZE_COLD: a zero-copy transmit is the per-packet path's) */
MRC__PRIVATE MRC__SIZE_COLD void mrc__fast_data_copy(mrc_txinfo *ti, uint8_t *q, uint32_t plen, uint32_t pad) {
    if (plen) MRC_MEMCPY(q, ti->payload, (size_t)plen);
    if (pad) MRC_MEMSET(q + plen, 0, (size_t)pad);
    ti->payload = q;
}
/* ... and its mrc_txinfo (dscp class cls, EV slot), the payload copied after the headers with MRC_TX_COPY */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__fast_data_ti(const mrc_conn *c, mrc_txinfo *ti, uint8_t *buf,
                                                      const mrc__wr *wr, uint32_t k, uint32_t sh, uint16_t slot,
                                                      unsigned cls, uint32_t opcode, uint32_t pad, uint32_t hl,
                                                      uint32_t plen, unsigned flags) {
    mrc__ti_zero(ti);
    mrc__ev_txinfo(c, slot, ti);
    ti->dscp_class = (uint8_t)cls;
    ti->dscp = c->ep->cfg.dscp[cls];
    ti->pad = (uint8_t)pad;
    ti->opcode = (uint8_t)opcode;
    ti->peer = c->attr.peer;
    ti->qpn = c->qpn;
    ti->hdr_len = hl;
    ti->payload_len = plen;
    ti->payload = plen ? wr->buf + (k << sh) : (const uint8_t *)0;
    if (flags & MRC_TX_COPY) mrc__fast_data_copy(ti, buf + hl, plen, pad);
}
/* ... and what sending it counts: mrc__cc_on_send (the QP's and the congestion context's flight), the QP's data
 * counters, the TLP's base */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__fast_data_sent(mrc_conn *c, mrc__ccx *x, uint32_t nominal, uint32_t plen,
                                                        mrc_time now) {
    c->cc_inflight += nominal;
    if (x) x->inflight += nominal;
    MRC__CNT(c->st.tx_data++);
    MRC__CNT(c->st.tx_bytes += plen);
    c->tx_nominal += nominal;
    c->tlp_base = now;
}
#if MRC__TX_RUN
/* ---- the transmit template (docs/PROTOCOL.md P22 fast paths) ---------------------------------------------------------
 * What every middle packet of the message at send-queue index wr_idx shares, stored once per message in the QP for
 * mrc__req_tx_fast and mrc__req_tx_run: the header bytes (BTH words 0 and 1, METH, TSETH's fixed bits, RETH's rkey and
 * length), BTH word 2's TS bit and the mrc_txinfo but the EV's fields and the payload. A packet adds
 * its PSN word (A bit, PSN), TSETH's timestamp, RETH's VA, its EV and its payload. Its inputs stay fixed while the
 * message is sent: the WR, the QP's PKEY, DEST_QP, peer, QPN and MTU (changed outside RTS only, where
 * mrc__conn_tx_bth0 or mrc__conn_clear drops it), the configuration (fixed). tpl.wr is dropped where the message ends
 * (mrc__req_tx_fast, mrc__req_tx) and at a flush, so a slot that comes round again never finds it. */
/* its key: the message's send-queue slot plus one (never 0, "none"; a message's index plus one would be 0 at 2^32 - 1).
 * A slot comes round again every MRC_MAX_SQ messages: the template goes where its message ends, so it is never the
 * later message's (tests/burst.c bu_tx_template) */
#define MRC__TPL_KEY(wr_idx) (((wr_idx) & (MRC_MAX_SQ - 1u)) + 1u)
MRC__STATIC_ASSERT(sizeof(mrc_txinfo) >= 32, txinfo_32); /* mrc__tx_tpl_pkt's first copy */
MRC__PRIVATE MRC__NOINLINE void mrc__tx_tpl(mrc_conn *c, const mrc__wr *wr, uint32_t wr_idx) {
    const mrc_config *cf = &c->ep->cfg;
    const uint32_t hl = mrc__data_hdr_len(c, false), plen = 1u << c->mtu_shift; /* plen: pad 0 */
    uint8_t *th = c->tpl.hdr;
    mrc_txinfo *ti = &c->tpl.ti;
    MRC_MEMSET(th, 0, sizeof c->tpl.hdr);
    mrc__st4(th, MRC__FW(0, 4, MRC__BTH_OPCODE, MRC_OP_WRITE_MIDDLE) | c->tx_bth0);
    mrc__st4(th + 4, MRC__FW(4, 4, MRC__BTH_RESV8, 0u) | MRC__FW(4, 4, MRC__BTH_DEST_QP, c->attr.dest_qpn));
    mrc__st4(th + MRC_BTH_LEN,
             MRC__FW(0, 4, MRC__METH_RQMSN, wr->rqmsn) | MRC__FW(0, 4, MRC__METH_MSN, mrc__wr_msn(wr_idx)));
    mrc__st4(th + MRC_BTH_LEN + MRC_METH_LEN, MRC__FW(0, 4, MRC__TSETH_TSR, 0u) | MRC__FW(0, 4, MRC__TSETH_FTYPE, 1u));
    MRC__FPUT(th + sizeof c->tpl.hdr - MRC_RETH_LEN, MRC__RETH_RKEY, wr->rkey);
    MRC__FPUT(th + sizeof c->tpl.hdr - MRC_RETH_LEN, MRC__RETH_DMA_LEN, wr->len);
    c->tpl.w2 = MRC__FW(8, 4, MRC__BTH_TS, cf->tseth ? 1u : 0u);
    MRC_MEMSET(ti, 0, sizeof *ti);
    ti->dscp_class = (uint8_t)(cf->trimmable ? MRC_DSCP_TRIMMABLE : MRC_DSCP_NO_TRIM);
    ti->dscp = cf->dscp[ti->dscp_class];
    ti->opcode = (uint8_t)MRC_OP_WRITE_MIDDLE;
    ti->ev_fmt = (uint8_t)MRC_EV_FMT_UDP; /* mrc__ev_txinfo without a profile */
    ti->peer = c->attr.peer;
    ti->qpn = c->qpn;
    ti->hdr_len = hl;
    ti->payload_len = plen;
    c->tpl.wr = MRC__TPL_KEY(wr_idx);
}
/* A middle packet (packet k, PSN psn, EV slot, A bit a) from the template: its headers at buf (hl bytes), its
 * mrc_txinfo, its payload copied after the headers with MRC_TX_COPY - the bytes mrc__fast_data_hdrs and
 * mrc__fast_data_ti store for it. mrc__req_tx_run's loop stores the same from locals (the template's bytes with the
 * run's timestamp, the VA and payload advanced): through this helper its transmit cost 208.9 -> 225.5 per packet */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__tx_tpl_pkt(mrc_conn *c, uint8_t *buf, mrc_txinfo *ti, const mrc__wr *wr,
                                                    uint32_t k, uint32_t sh, uint32_t psn, uint32_t a, uint16_t slot,
                                                    uint32_t hl, unsigned flags, mrc_time now) {
    uint8_t *q = buf + (hl - MRC_RETH_LEN);
    MRC_MEMCPY(buf, c->tpl.hdr, MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN);
    mrc__st4(buf + 8, c->tpl.w2 | MRC__FW(8, 4, MRC__BTH_A, a) | MRC__FW(8, 4, MRC__BTH_PSN, psn));
    if (c->tpl.w2) /* TSETH (without it, RETH below overwrites those bytes) */
        mrc__st4(buf + MRC_BTH_LEN + MRC_METH_LEN, MRC__FW(0, 4, MRC__TSETH_TS, mrc__ts(c->ep, now)) |
                                                       MRC__FW(0, 4, MRC__TSETH_TSR, 0u) |
                                                       MRC__FW(0, 4, MRC__TSETH_FTYPE, 1u));
    MRC__FPUT(q, MRC__RETH_VA, wr->remote_va + ((uint64_t)k << sh));
    MRC_MEMCPY(q + 8, c->tpl.hdr + sizeof c->tpl.hdr - 8, 8); /* RETH's rkey and length */
    /* (two copies: gcc -O2 x86-64 makes one copy of all 56 bytes a rep movs, 14 iterations; 32-bit: 40 bytes) */
    MRC_MEMCPY(ti, &c->tpl.ti, 32);
    MRC_MEMCPY((uint8_t *)ti + 32, (const uint8_t *)&c->tpl.ti + 32, sizeof *ti - 32);
    if (MRC__UNLIKELY(c->ev_prof)) {
        mrc__ev_txinfo(c, slot, ti);
    } else {
        ti->port = c->evs[slot].port;
        ti->ev = c->evs[slot].sport;
    }
    ti->payload = wr->buf + ((uint64_t)k << sh);
    if (flags & MRC_TX_COPY) mrc__fast_data_copy(ti, buf + hl, 1u << sh, 0u);
}
#endif
/* ---- new data: the fast path (docs/PROTOCOL.md P22 fast paths) ------------------------------------------------------
 * The common case of mrc__req_tx: a QP in RTS with no probe due and nothing to retransmit sends its next new packet,
 * inside the MPR window and the congestion window, on the next EV of the current plane's rotation, with no record in
 * flight old enough for mrc__txl_reserve to judge lost. It does what mrc__req_tx, mrc__req_new and
 * mrc__req_emit_data do then, in the same order, with the headers stored straight at their fixed offsets from the
 * codec's tables (every value was checked against its field's width when it was configured, attached or posted).
 * Every check comes before any state changes: 0 = not this case (the general code runs), else the bytes written. */
MRC__PRIVATE int mrc__req_tx_fast(mrc_conn *c, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti,
                                  mrc_time now) {
    mrc_endpoint *ep = c->ep;
    const mrc_config *cf = &ep->cfg;
    uint32_t psn = c->snd_nxt, wr_idx = c->sq_send, k = c->sq_sent, sh = c->mtu_shift;
    uint32_t plen, pad, hl, nominal, opcode, nxt;
    unsigned p = c->plane_rr;
    mrc__ccx *x = mrc__conn_ccx(c);
    mrc__wr *wr;
    mrc__pblk *bk;
    mrc__psnrec *r;
    size_t need;
    bool last, imm, more;
    uint16_t slot;
    if (cf->fast_path_off || c->state != MRC_QPS_RTS || c->probes_due || c->rtxq.n || wr_idx == c->sq_tail)
        return 0;
    wr = MRC__SQ(c, wr_idx);
    if (k == 0 && wr->opcode == MRC_WR_WRITE_IMM && c->wimm_out >= c->attr.max_wimm) return 0;
    if ((uint32_t)mrc_psn_diff(psn, c->win_base) >= c->win_psns) return 0;
    bk = mrc__blk(c, psn);
    if (!bk && !(ep->pool_nfree | ep->pool_nret)) return 0;
    /* mrc__wr_npkts and mrc__pkt_len without the division: k is below the packet count, so packet k is the last
     * when the next one would start at or past len, and then holds the rest of len (0 for an empty message)
     * (32-bit: len <= MRC_MAX_MSG_LEN = 2^31 and k < mrc__wr_npkts, so (k + 2) << sh < 2^31 + 2 * 4096) */
    last = wr->len <= ((k + 1u) << sh);
    more = wr->len > ((k + 2u) << sh); /* k + 2 < mrc__wr_npkts: the next packet is a middle one too */
    imm = last && wr->opcode == MRC_WR_WRITE_IMM;
    plen = last ? wr->len - (k << sh) : 1u << sh;
    pad = (4u - (plen & 3u)) & 3u;
    hl = mrc__data_hdr_len(c, imm);
    nominal = hl + plen + pad + 4u + MRC_NOMINAL_HDR; /* mrc__nominal */
    need = (flags & MRC_TX_COPY) ? (size_t)hl + (size_t)plen + (size_t)pad : (size_t)hl;
    if (!mrc__cc_fits(x, nominal, now) || ((flags & MRC_TX_COPY) && cap < need)) return 0; /* cap >= MRC_HDR_MAX > hl */
    if (x && MRC__UNLIKELY(x->cwnd < nominal) && x->p.subpkt) return 0; /* P24 sub-packet windows: it sets the pacing
                                                                           clock */
    if (c->txl.n && !mrc__txl_room(c)) return 0; /* mrc__txl_reserve's test: not past it */
    if (!(c->n_act[p] | c->n_skip[p])) { /* a plane without EVs: mrc__ev_pick finds one if any plane has one */
        int rs = mrc__ev_pick(c, -1); /* -1: none, its planes' turn back where it was (a full round of plane_rr), and
                                         the general code arms the no-path timer */
        if (rs < 0) return 0;
        slot = (uint16_t)rs;
    } else { /* mrc__ev_pick(c, -1), which takes this plane's oldest recycled EV (P23 EV recycling) or its next EV */
        int rs;
        c->plane_rr = (uint8_t)(p + 1u == cf->num_ports ? 0u : p + 1u);
        if (c->rc_n[p] && (rs = mrc__ev_rc_pop(c, p, -1)) >= 0) {
            slot = (uint16_t)rs;
        } else {
            slot = mrc__fast_ev_next(c, p);
        }
    }

#if MRC__TX_RUN
    if (!last && k) { /* a middle packet: the transmit template's bytes (the A bit as mrc__fast_data_hdrs) */
        if (c->tpl.wr != MRC__TPL_KEY(wr_idx)) mrc__tx_tpl(c, wr, wr_idx);
        opcode = MRC_OP_WRITE_MIDDLE;
        mrc__tx_tpl_pkt(c, buf, ti, wr, k, sh, psn,
                        cf->ack.request_every ? mrc__fast_areq(c, cf->ack.request_every) : 0u, slot, hl, flags, now);
    } else
#endif
    {
        opcode = mrc__fast_data_hdrs(ep, c, buf, wr, wr_idx, k, sh, psn, pad, last, imm, 0u, now);
        mrc__fast_data_ti(c, ti, buf, wr, k, sh, slot, cf->trimmable ? MRC_DSCP_TRIMMABLE : MRC_DSCP_NO_TRIM, opcode,
                          pad, hl, plen, flags);
    }

    /* commit: mrc__req_emit_data's for a new PSN, then mrc__req_tx's */
    if (!bk || !(psn & (MRC__BLK_PSNS - 1u)) || c->nxt_ret) {
        mrc__pool_enter(c, psn);
        bk = mrc__blk(c, psn);
    }
    r = &bk->rec[psn & (MRC__BLK_PSNS - 1u)];
    r->wr = (mrc__sqslot)(wr_idx & (MRC_MAX_SQ - 1u));
    r->ev_lost = 0;
    bk->acked &= ~((uint64_t)1 << (psn & 63u));
    bk->sent[psn & (MRC__BLK_PSNS - 1u)] = now;
    r->ev = (mrc__evslot)slot;
    r->flags = MRC__PR_INFLIGHT | MRC__PR_FULL; /* the message's last one drops MRC__PR_FULL below */
    r->txseq = (mrc__txseq)c->tx_count++;
    if (c->txl.n && !((c->txl.tail ^ psn) >> 6)) { /* mrc__plist_push(c, &c->txl, psn, r, false): tail in bk */
        bk->rec[c->txl.tail & (MRC__BLK_PSNS - 1u)].next = (mrc__recidx)(psn & (MRC_MAX_INFLIGHT - 1u));
        r->prev = (mrc__recidx)(c->txl.tail & (MRC_MAX_INFLIGHT - 1u));
        c->txl.tail = psn;
        c->txl.n++;
    } else {
        mrc__plist_push(c, &c->txl, psn, r, false);
    }
    mrc__fast_data_sent(c, x, nominal, plen, now);
    MRC__TRACE(ep, MRC_TRACE_TX, (opcode << 24) | psn, ti->ev);
    if (k == 0) {
        wr->first_psn = psn;
        if (wr->opcode == MRC_WR_WRITE_IMM) c->wimm_out++;
    }
    if (last) {
        r->flags = MRC__PR_INFLIGHT;
        c->sq_send++;
        c->sq_sent = 0;
#if MRC__TX_RUN
        c->tpl.wr = 0; /* the transmit template's message is sent */
#endif
    } else {
        c->sq_sent = k + 1u;
    }
    c->snd_nxt = nxt = MRC__PSN_INC(psn);
    mrc__req_timers_tx(c, now); /* psn is in flight; rto_start if the RTO starts */
    /* mrc__sched_tx(c), next in mrc_endpoint_poll_tx: c has left the txq and is in RTS with no probe due and nothing
     * to retransmit, so mrc__req_new decides - and after a middle packet, the next is a middle packet too (the same
     * nominal size, no WIMM limit) and in the same block unless it starts one */
    mrc__sched_ctl(c);
    if (c->in_txq) return (int)need; /* queued again while it sent: once is enough (as mrc__sched_tx) */
    if (more && (nxt & (MRC__BLK_PSNS - 1u)))
        mrc__sched_txq(c, (uint32_t)mrc_psn_diff(nxt, c->win_base) >= c->win_psns ? MRC__NEW_NO
                          : mrc__cc_fits(x, nominal, now)                     ? MRC__NEW_OK
                                                                              : MRC__NEW_CWND);
    else
        mrc__sched_txq(c, mrc__req_new(c));
    return (int)need;
}
#endif
#if MRC__TX_RUN
/* ---- P37 bursts: a run of one QP's middle packets (docs/PROTOCOL.md P37 bursts, P22 fast paths) -------------------
 * When one QP is all that is queued (no endpoint operation, no control packet, the txq holds just it), a single call
 * sends its packet and, after a middle packet that leaves the next one sendable, queues it again at the tail of the
 * otherwise empty txq, so the next call takes it again. mrc__req_tx_run sends such a run of the current message's
 * middle packets into consecutive burst entries, as that many calls of mrc__req_tx_fast would (the same updates, the
 * same draws, the same bytes), with what cannot change within the run tested and built once: the QP in RTS with no
 * probe due and nothing to retransmit (only acknowledgements, timers and the API change them), the header words
 * every middle packet of the message shares (BTH words 0 and 1, METH, TSETH at one time, RETH's rkey and length: the
 * PSN and the VA advance), the mrc_txinfo of those packets (less the EV's fields and the payload), the sub-packet
 * window's test; the txq's pop and push of each packet become one store of its ring. Per packet: the entry's room,
 * the pool block, the transmit list's span, the plane's EVs, the EV, the acknowledgement request, the record, the
 * transmit list, the congestion window and the requeue decision. It stops before a packet the single call would not
 * send this way (the message's last, a window or the pool full, a plane without EVs, an entry without room) with the
 * QP queued as the single call left it, and after a packet that queued anything else or left it unqueued (as the
 * single call did): the entry that follows then takes mrc__poll_tx. Returns the packets sent; 0: no such run, and
 * nothing changed. Called with the txq holding only c and nothing else queued, the fast paths on. */
/* the counters of m packets of a run: mrc__req_tx_fast's (mrc__cc_on_send's), then mrc__poll_tx's */
MRC__PRIVATE MRC__INLINE void mrc__tx_run_count(mrc_conn *c, uint32_t m, uint32_t nominal, uint32_t plen,
                                                uint32_t bytes) {
    c->cc_inflight += (uint64_t)nominal * m;
    MRC__CNT(c->st.tx_data += m);
    MRC__CNT(c->st.tx_bytes += (uint64_t)plen * m);
    c->tx_nominal += (uint64_t)nominal * m;
    MRC__CNT(c->ep->st.tx_pkts += m);
    MRC__CNT(c->ep->st.tx_bytes += (uint64_t)bytes * m);
}
MRC__PRIVATE MRC__NOINLINE unsigned mrc__req_tx_run(mrc_endpoint *ep, mrc_txpkt *t, unsigned n, unsigned flags,
                                                   mrc_time now) {
    const mrc_config *cf = &ep->cfg;
    const uint16_t cs = ep->txq[ep->txq_head % MRC_MAX_CONNS];
    mrc_conn *c = ep->conns[cs];
    mrc__ccx *x = mrc__conn_ccx(c);
    const mrc__evprof *pf = mrc__conn_prof(c);
    const uint32_t wr_idx = c->sq_send, sh = c->mtu_shift, plen = 1u << sh, pad = (4u - (plen & 3u)) & 3u;
    const unsigned np = cf->num_ports;
    const uint32_t k = c->sq_sent, psn0 = c->snd_nxt; /* packet j of the run: packet k + j of the message, PSN
                                                         * psn0 + j */
    uint32_t psn = psn0, hl, nominal, areq, last, room_w, lim;
    const uint32_t h0 = ep->txq_head; /* the txq's head before the run: one pop per packet taken */
    uint32_t jw = 0; /* the txq's ring slots h0 + 1 .. h0 + jw hold cs (each packet's push): written so far */
    uint32_t tl = c->txl.tail, pa = c->pkts_since_areq; /* the transmit list's tail and pkts_since_areq, kept here */
    unsigned p = c->plane_rr, j, i;
    uint64_t infl, cwnd; /* x->inflight before the run (j packets on: plus j * nominal) and the window: the congestion
                          * window's test in locals, nothing else in the run changes them */
    uint8_t th[MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN]; /* the shared header bytes */
    uint64_t va; /* the packet's VA, advanced by plen a packet */
    const uint8_t *src; /* its payload, too */
    size_t need, room;
    mrc__wr *wr;
    mrc__pblk *bk = (mrc__pblk *)0;
    mrc_txinfo ti0;
    bool tm = true, sc = true, fresh = true; /* the timer re-arm and the queues' tests still to make; fresh: packet j
                                              * is the first, or in another block than the packet before's (past
                                              * the first, bk is that block) */
    int w;
    uint32_t txc, tln = 0; /* c->tx_count before the run, and packets appended to the transmit list in c->txl.n's
                            * block, kept here */
    mrc__sqslot wrs;      /* the record's send-queue slot */
    uint32_t w8;          /* the PSN's word but the PSN and the A bit */
/* what the loop keeps in locals, written back before anything it calls may read it (and at the end): tx_count,
 * x->inflight, sq_sent and snd_nxt (j packets on: j counts the packets whose record is written), tlp_base (now once a
 * packet is sent), the transmit list's length and tail, pkts_since_areq. The txq's head is h0 plus the pops made:
 * written where something may queue, or at the end */
#define MRC__TX_RUN_SYNC()                                                                                             \
    do {                                                                                                               \
        c->tx_count = txc + j;                                                                                         \
        c->txl.n += tln;                                                                                               \
        tln = 0;                                                                                                       \
        if (x) x->inflight = infl + (uint64_t)nominal * j;                                                             \
        if (j) c->tlp_base = now;                                                                                      \
        c->txl.tail = tl;                                                                                              \
        c->sq_sent = k + j;                                                                                            \
        c->snd_nxt = (psn0 + j) & MRC_PSN_MASK;                                                                        \
        c->pkts_since_areq = pa;                                                                                       \
    } while (0)
/* the txq's ring slots of the pushes of the run's packets 1 .. u (the slots past jw: a slot written again holds cs
 * again), before anything may queue behind them */
#define MRC__TX_RUN_RING(u)                                                                                            \
    do {                                                                                                               \
        uint32_t u_ = (u);                                                                                             \
        if (u_ > jw + MRC_MAX_CONNS) jw = u_ - MRC_MAX_CONNS;                                                          \
        while (jw < u_) ep->txq[(h0 + ++jw) % MRC_MAX_CONNS] = cs;                                                     \
    } while (0)
    if (c->state != MRC_QPS_RTS || c->probes_due || c->rtxq.n || wr_idx == c->sq_tail || k == 0) return 0;
    wr = MRC__SQ(c, wr_idx);
    if (wr->len <= ((uint64_t)(k + 1u) << sh)) return 0; /* packet k is the message's last */
    last = (wr->len - 1u) >> sh;                         /* the last packet's index: packets k .. last - 1 are middle */
    hl = mrc__data_hdr_len(c, false);
    nominal = hl + plen + pad + 4u + MRC_NOMINAL_HDR; /* mrc__nominal */
    need = (flags & MRC_TX_COPY) ? (size_t)hl + (size_t)plen + (size_t)pad : (size_t)hl;
    room = (flags & MRC_TX_COPY) ? need : (size_t)MRC_HDR_MAX; /* an entry's least cap (need < MRC_HDR_MAX without) */
    room_w = (uint32_t)mrc_psn_diff(psn, c->win_base);
    if (room_w >= c->win_psns || !mrc__cc_fits(x, nominal, now)) return 0;
    room_w = c->win_psns - room_w; /* PSNs the window takes from psn on */
    if (x && MRC__UNLIKELY(x->cwnd < nominal) && x->p.subpkt) return 0; /* P24: as mrc__req_tx_fast */
    /* every plane has EVs: mrc__ev_new_round keeps a plane's count, nothing else in the run changes it */
    for (i = 0; i < np; i++)
        if (!(c->n_act[i] | c->n_skip[i])) return 0;
    /* the transmit list's span: its head stays (the run only appends), the sequence advances one per packet; past
     * it, as past the last entry, the QP stays queued */
    lim = MRC__TXL_SPAN;
    if (c->txl.n) {
        uint32_t used = mrc__txl_span(c); /* (as each packet's test would find it: it renews txl_lo alike) */
        if (used >= MRC__TXL_SPAN) return 0;
        lim = MRC__TXL_SPAN - used;
    }
    lim = MRC__MIN(lim, n);
    room_w = MRC__MIN(MRC__MIN(room_w, last - k), lim); /* packets j below it: inside the window, middle, in lim */
    infl = x ? x->inflight : 0u;
    txc = c->tx_count;
    cwnd = x ? x->cwnd : ~(uint64_t)0 - nominal;
    /* the congestion window's test of packet j + 1 (infl then the flight plus j + 1 packets): j below what the room
     * left takes whole */
    room_w = MRC__MIN(room_w, cwnd >= infl ? (uint32_t)MRC__MIN((cwnd - infl) / nominal, (uint64_t)room_w) : 0u);
    /* the bytes every middle packet of the message shares (the transmit template, with this instant's timestamp); the
     * PSN and the VA are stored per packet */
    if (c->tpl.wr != MRC__TPL_KEY(wr_idx)) mrc__tx_tpl(c, wr, wr_idx);
    MRC_MEMCPY(th, c->tpl.hdr, sizeof th);
    mrc__st4(th + MRC_BTH_LEN + MRC_METH_LEN,
             MRC__FW(0, 4, MRC__TSETH_TS, mrc__ts(ep, now)) | MRC__FW(0, 4, MRC__TSETH_TSR, 0u) |
                 MRC__FW(0, 4, MRC__TSETH_FTYPE, 1u));
    va = wr->remote_va + ((uint64_t)k << sh);
    wrs = (mrc__sqslot)(wr_idx & (MRC_MAX_SQ - 1u));
    w8 = c->tpl.w2;
    src = wr->buf + ((uint64_t)k << sh);
    areq = cf->ack.request_every;
    MRC_MEMCPY(&ti0, &c->tpl.ti, sizeof ti0);
    for (j = 0;; t++) { /* t: entry j */
        mrc_txpkt *e = t;
        uint8_t *buf = e->buf, *q;
        mrc_txinfo *ti = &e->ti;
        uint32_t a = 0;
        uint16_t slot;
        mrc__psnrec *r;
        int rs;
        /* this entry (mrc_endpoint_poll_tx_burst's tests) and this packet (mrc__req_tx_fast's that can change) */
        if (!buf || e->cap < room) break;
        if (MRC__UNLIKELY(fresh)) { /* else the block of the packet before */
            bk = mrc__blk(c, psn);
            if (!bk && !(ep->pool_nfree | ep->pool_nret)) break;
        }
        if (!j) { /* the call's pop of the txq (one a packet: the head moves on, at the end) */
            ep->txq_len = 0;
            c->in_txq = 0;
        }
        /* mrc__ev_pick(c, -1) on a plane with EVs, as mrc__req_tx_fast (plane_rr stored at the end) */
        if (c->rc_n[p] && (rs = mrc__ev_rc_pop(c, p, -1)) >= 0) {
            slot = (uint16_t)rs;
        } else {
            slot = mrc__fast_ev_next(c, p);
        }
        p = p + 1u == np ? 0u : p + 1u;
        if (areq && ++pa >= areq) {
            a = 1;
            pa = 0;
        }
        /* BTH, METH and TSETH as shared (without a TSETH, RETH's VA below overwrites its bytes), the PSN's word */
        MRC_MEMCPY(buf, th, MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN);
        mrc__st4(buf + 8, w8 | MRC__FW(8, 4, MRC__BTH_A, a) | MRC__FW(8, 4, MRC__BTH_PSN, psn));
        q = buf + (hl - MRC_RETH_LEN);
        MRC__FPUT(q, MRC__RETH_VA, va);
        MRC_MEMCPY(q + 8, th + sizeof th - 8, 8); /* RETH's rkey and length */
        MRC_MEMCPY(ti, &ti0, sizeof *ti);
        if (MRC__UNLIKELY(pf)) {
            mrc__ev_txinfo(c, slot, ti);
        } else {
            ti->port = c->evs[slot].port;
            ti->ev = c->evs[slot].sport;
        }
        ti->payload = src;
        if (flags & MRC_TX_COPY) {
            MRC_MEMCPY(buf + hl, ti->payload, (size_t)plen);
            if (pad) MRC_MEMSET(buf + hl + plen, 0, (size_t)pad);
            ti->payload = buf + hl;
        }
        /* commit: as mrc__req_tx_fast's for a middle packet; nxt_ret, set only by acknowledgements, is 0 after the
         * first packet's mrc__pool_enter */
        if (MRC__UNLIKELY(fresh) && (!bk || !(psn & (MRC__BLK_PSNS - 1u)) || c->nxt_ret)) {
            MRC__TX_RUN_RING(j);
            ep->txq_head = (h0 + j + 1u) % MRC_MAX_CONNS; /* what mrc__pool_enter may queue goes behind the pop */
            c->plane_rr = (uint8_t)p;
            MRC__TX_RUN_SYNC();
            mrc__pool_enter(c, psn);
            bk = mrc__blk(c, psn);
            sc = true; /* a block handed to a waiting QP queues it */
        }
        r = &bk->rec[psn & (MRC__BLK_PSNS - 1u)];
        r->wr = wrs;
        r->ev_lost = 0;
        bk->acked &= ~((uint64_t)1 << (psn & 63u));
        bk->sent[psn & (MRC__BLK_PSNS - 1u)] = now;
        r->ev = (mrc__evslot)slot;
        r->flags = MRC__PR_INFLIGHT | MRC__PR_FULL; /* a middle packet */
        r->txseq = (mrc__txseq)(txc + j);
        if (MRC__LIKELY(!fresh)) { /* the tail is the packet before, in bk */
            r[-1].next = (mrc__recidx)(psn & (MRC_MAX_INFLIGHT - 1u));
            r->prev = (mrc__recidx)((psn - 1u) & (MRC_MAX_INFLIGHT - 1u));
            tl = psn;
            tln++;
        } else if ((c->txl.n + tln) && !((tl ^ psn) >> 6)) { /* mrc__plist_push(c, &c->txl, psn, r, false) */
            bk->rec[tl & (MRC__BLK_PSNS - 1u)].next = (mrc__recidx)(psn & (MRC_MAX_INFLIGHT - 1u));
            r->prev = (mrc__recidx)(tl & (MRC_MAX_INFLIGHT - 1u));
            tl = psn;
            c->txl.n++;
        } else {
            c->txl.n += tln;
            c->txl.tail = tl;
            tln = 0;
            mrc__plist_push(c, &c->txl, psn, r, false);
            tl = c->txl.tail;
        }
        /* mrc__cc_on_send (x->inflight) and the transmission count, sq_sent and snd_nxt: through j (c's flight and
         * counters at the end: nothing in the run reads them) */
        j++;
        psn = MRC__PSN_INC(psn);
#ifdef MRC_ENABLE_TRACE
        MRC__TX_RUN_SYNC();
        c->sq_sent = k + j - 1u; /* (as the single call's trace sees them) */
        c->snd_nxt = (psn - 1u) & MRC_PSN_MASK;
        mrc__tx_run_count(c, 1u, nominal, plen, hl + plen + pad); /* the hook may read them */
        MRC__TRACE(ep, MRC_TRACE_TX, ((uint32_t)MRC_OP_WRITE_MIDDLE << 24) | ((psn - 1u) & MRC_PSN_MASK), ti->ev);
        c->sq_sent = k + j;
        c->snd_nxt = psn;
#endif
        e->len = (int)need;
        if (MRC__UNLIKELY(tm | sc)) {
            if (tm) { /* after a re-arm that leaves the RTO and the TLP armed, the next ones keep them (P36) */
                MRC__TX_RUN_SYNC();
                mrc__req_timers_tx(c, now);
                tm = c->rto_deadline == MRC_TIME_NEVER || c->tlp_deadline == MRC_TIME_NEVER || c->tlp_ahead;
            }
            if (sc) { /* only the first packet, or a pool block handed over, can queue anything */
                c->plane_rr = (uint8_t)p;
                MRC__TX_RUN_SYNC();
                mrc__sched_ctl(c);
                if (c->in_txq) { /* queued again while it sent (as mrc__req_tx_fast) */
                    MRC__TX_RUN_RING(j - 1u);
                    ep->txq_head = (h0 + j) % MRC_MAX_CONNS;
                    goto done;
                }
            }
        }
        /* mrc__req_tx_fast's requeue: packet k + j (PSN psn) is next (mrc__cc_fits with something in flight); the run
         * goes on only where it is queued alone. Below room_w it is inside the window, a middle packet, an entry of
         * the run and inside the congestion window. */
        if (MRC__LIKELY(j < room_w && (psn & (MRC__BLK_PSNS - 1u)))) {
            w = MRC__NEW_OK;
            fresh = false;
        } else {
            if (k + j < last && (psn & (MRC__BLK_PSNS - 1u))) {
                w = (uint32_t)mrc_psn_diff(psn, c->win_base) >= c->win_psns ? MRC__NEW_NO
                    : infl + (uint64_t)nominal * (j + 1u) <= cwnd           ? MRC__NEW_OK
                                                                            : MRC__NEW_CWND;
            } else {
                c->plane_rr = (uint8_t)p;
                MRC__TX_RUN_SYNC();
                w = mrc__req_new(c);
            }
            if (w != MRC__NEW_OK || k + j >= last || j == lim) goto requeue;
            fresh = !(psn & (MRC__BLK_PSNS - 1u));
        }
        if (sc) {
            sc = false;
            if (ep->epq_len | ep->ctq_len | ep->txq_len) goto requeue;
        }
        /* mrc__sched_txq's push, which the next pop takes: ring slot h0 + j, written later (MRC__TX_RUN_RING) */
        va += plen;
        src += plen;
    }
    if (j) { /* stopped before entry j: queued as the last packet left it */
        MRC__TX_RUN_RING(j);
        ep->txq_len = 1;
        c->in_txq = 1;
    }
    ep->txq_head = (h0 + j) % MRC_MAX_CONNS;
    goto done;
requeue:
    MRC__TX_RUN_RING(j - 1u);
    ep->txq_head = (h0 + j) % MRC_MAX_CONNS;
    c->plane_rr = (uint8_t)p;
    MRC__TX_RUN_SYNC();
    mrc__sched_txq(c, w);
done:
    MRC__TX_RUN_SYNC();
#undef MRC__TX_RUN_RING
#undef MRC__TX_RUN_SYNC
    c->plane_rr = (uint8_t)p;
#ifndef MRC_ENABLE_TRACE
    mrc__tx_run_count(c, j, nominal, plen, hl + plen + pad);
#endif
    return j;
}
#endif
#if MRC__TX_RUN
/* ---- a retransmission: the fast path (docs/PROTOCOL.md P22 fast paths) ---------------------------------------------
 * mrc__poll_req's common case after mrc__req_tx_fast declined a QP for its retransmission queue: a QP in RTS with no
 * probe due sends the head of its retransmission queue, inside the congestion window (or forced), with no record in
 * flight old enough for mrc__txl_reserve to judge lost and an EV in some plane's rotation (so mrc__ev_pick finds one:
 * the retransmission's last EV too when it is all a plane has, and that plane the only one with EVs). It does what
 * mrc__poll_req, mrc__req_tx's retransmission, mrc__req_emit_data and mrc__sched_tx do then, in the same order, built
 * for speed (mrc__poll_req and what only it calls are built for size: MRC__COLD), with the record's message and
 * packet read once, the headers stored as mrc__req_emit_data stores them, the queue's head unlinked in line and the
 * timers as mrc__req_tx_fast leaves them (mrc__req_timers_tx: no deadline but the RTO and the TLP moved). Where speed
 * is asked for only (as the transmit runs): under gcc -Os every retransmission takes mrc__poll_req. Every check comes
 * before any state changes: 0 = not this case (the general code runs), else the bytes written. */
MRC__PRIVATE MRC__NOINLINE int mrc__req_rtx_fast(mrc_conn *c, uint8_t *buf, size_t cap, unsigned flags,
                                                 mrc_txinfo *ti, mrc_time now) {
    mrc_endpoint *ep = c->ep;
    const mrc_config *cf = &ep->cfg;
    uint32_t psn = c->rtxq.head, sh = c->mtu_shift, wr_idx, k, plen, pad, hl, nominal, opcode;
    unsigned p = c->plane_rr;
    mrc__ccx *x = mrc__conn_ccx(c);
    mrc__pblk *bk;
    mrc__psnrec *r;
    mrc__wr *wr;
    size_t need;
    bool last, imm;
    int slot, w;
    unsigned avoid, pos;
    if (cf->fast_path_off || c->state != MRC_QPS_RTS || c->probes_due) return 0;
    bk = mrc__blk(c, psn);
    r = &bk->rec[psn & (MRC__BLK_PSNS - 1u)];
    MRC_ASSERT((r->flags & (MRC__PR_LOST | MRC__PR_QUEUED)) == (MRC__PR_LOST | MRC__PR_QUEUED));
    wr = &c->sq[r->wr];
    wr_idx = mrc__wr_index(c, r->wr);
    k = (psn - wr->first_psn) & MRC_PSN_MASK;
    /* mrc__req_emit_data's packet k: the last when the next would start at or past len (32-bit: as mrc__req_tx_fast) */
    last = wr->len <= ((k + 1u) << sh);
    imm = last && wr->opcode == MRC_WR_WRITE_IMM;
    plen = last ? wr->len - (k << sh) : 1u << sh;
    pad = (4u - (plen & 3u)) & 3u;
    hl = mrc__data_hdr_len(c, imm);
    nominal = hl + plen + pad + 4u + MRC_NOMINAL_HDR; /* mrc__nominal */
    need = (flags & MRC_TX_COPY) ? (size_t)hl + (size_t)plen + (size_t)pad : (size_t)hl;
    if ((!c->rtx_force && !mrc__cc_fits(x, nominal, now)) || ((flags & MRC_TX_COPY) && cap < need)) return 0;
    if (x && MRC__UNLIKELY(x->cwnd < nominal) && x->p.subpkt) return 0; /* P24 sub-packet windows: the pacing clock */
    if (c->txl.n && !mrc__txl_room(c)) return 0; /* mrc__txl_reserve's test: not past it */
    avoid = r->ev; /* a retransmission avoids its last EV */
    pos = c->act_pos[p];
    if (pos < c->n_act[p] && (c->n_act[p] > 1u || mrc__evr_at(c, p, pos) != avoid)) {
        /* mrc__ev_pick(c, avoid) in line where its first plane serves it without a new round (an EV of the round
         * pending, and another active one if that is the EV to avoid): its oldest recycled EV, else the next of its
         * rotation (swapped with the one after it, or the first, when that is the EV to avoid); else the call */
        int rs;
        c->plane_rr = (uint8_t)(p + 1u == cf->num_ports ? 0u : p + 1u);
        if (c->rc_n[p] && (rs = mrc__ev_rc_pop(c, p, (int)avoid)) >= 0) {
            slot = rs;
        } else {
            if (mrc__evr_at(c, p, pos) == avoid) mrc__evr_swap(c, p, pos, pos + 1u < c->n_act[p] ? pos + 1u : 0u);
            slot = mrc__evr_at(c, p, pos);
            c->act_pos[p] = (uint16_t)(pos + 1u);
        }
    } else {
        if (!(c->n_act[p] | c->n_skip[p])) { /* mrc__ev_pick finds an EV if any plane has one */
            unsigned i;
            for (i = 0; i < cf->num_ports && !(c->n_act[i] | c->n_skip[i]); i++) {
            }
            if (i == cf->num_ports) return 0; /* none: the general code arms the no-path timer */
        }
        slot = mrc__ev_pick(c, (int)avoid);
        MRC_ASSERT(slot >= 0);
    }

    opcode = mrc__fast_data_hdrs(ep, c, buf, wr, wr_idx, k, sh, psn, pad, last, imm, 1u, now);

    mrc__fast_data_ti(c, ti, buf, wr, k, sh, (uint16_t)slot, cf->trimmable ? MRC_DSCP_TRIMMABLE_RETX : MRC_DSCP_NO_TRIM,
                      opcode, pad, hl, plen, flags);

    /* commit: mrc__req_emit_data's for a retransmission (mrc__rtxq_remove of the queue's head in line), then
     * mrc__req_tx's */
    if (c->rtxq.n > 1u) c->rtxq.head = mrc__link_psn(c, r->next);
    c->rtxq.n--;
    r->flags = (uint8_t)((r->flags & ~(MRC__PR_QUEUED | MRC__PR_LOST)) | MRC__PR_RTX | MRC__PR_INFLIGHT);
    MRC__CNT(c->st.tx_rtx++);
    bk->sent[psn & (MRC__BLK_PSNS - 1u)] = now;
    r->ev = (mrc__evslot)slot;
    r->txseq = (mrc__txseq)c->tx_count++;
    mrc__plist_push(c, &c->txl, psn, r, false); /* the newest transmission */
    mrc__fast_data_sent(c, x, nominal, plen, now);
    MRC__TRACE(ep, MRC_TRACE_TX, (opcode << 24) | psn, ti->ev);
    c->rtx_force = 0;
    mrc__req_timers_tx(c, now); /* rto_start if the RTO starts (mrc__req_emit_data's) */
    /* mrc__poll_req's mrc__sched_tx (c is in RTS with no probe due) */
    mrc__sched_ctl(c);
    if (!c->in_txq) {
        w = mrc__req_rtx(c);
        mrc__sched_txq(c, w == MRC__NEW_NO ? mrc__req_new(c) : w);
    }
    return (int)need;
}
#endif
/* mrc__poll_tx's cold parts, out of line so that the per-packet code stays small (gcc would inline each once-called
 * handler into mrc__poll_tx): the endpoint operations, a control packet the SACK fast path does not build (a NACK, a
 * SACK with a probe answer), a requester packet the transmit fast path does not send (a retransmission, a probe).
 * MRC__COLD: gcc builds them, and what only they call, for size - the lossy cases pay (x86-64 -O2: a NACK built 1,313
 * -> 1,451, a window with holes 1,703 -> 1,715 per data packet) and the common case gains (1,747.9 -> 1,745.0; inline
 * without the attribute, or out of line without it, 1,775 and 1,754: the calls cost the common case its registers) */
/* a packet of n bytes sent, counted (the three below; out of line under -Os) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__tx_counted(mrc_endpoint *ep, uint32_t n) {
    MRC__CNT(ep->st.tx_pkts++);
    MRC__CNT(ep->st.tx_bytes += n);
}
/* an endpoint operation (P19; few, urgent: before the QPs); 0: none it could send */
MRC__PRIVATE MRC__COLD int mrc__poll_epop(mrc_endpoint *ep, uint8_t *buf, size_t cap, mrc_txinfo *ti) {
    int n = mrc__ep_emit(ep, buf, cap, ti, ep->now); /* (mrc__poll_tx's now) */
    if (n > 0) mrc__tx_counted(ep, (uint32_t)n);
    return n;
}
/* QP c's control packet by the general code (c was taken off the control round-robin); 0: no port up (queued again
 * when a port comes up) */
MRC__PRIVATE MRC__COLD int mrc__poll_ctl(mrc_conn *c, uint8_t *buf, mrc_txinfo *ti) {
    int n = mrc__rsp_emit_ctl(c, buf, ti);
    if (n == 0) return 0;
    mrc__sched_tx(c); /* round-robin: to the tail if it has more */
    mrc__tx_counted(c->ep, ti->hdr_len);
    return n;
}
/* QP c's requester packet by the general code (c was taken off the transmit round-robin, from the head of the
 * queue); 0: nothing it can send now (queued again when that changes), < 0: nothing consumed, c back at the head */
MRC__PRIVATE MRC__COLD int mrc__poll_req(mrc_conn *c, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti) {
    mrc_endpoint *ep = c->ep;
    int n = c->state == MRC_QPS_RTS ? mrc__req_tx(c, buf, cap, flags, ti) : 0; /* (at mrc__poll_tx's now) */
    if (n == 0) {
        int w = c->state == MRC_QPS_RTS ? mrc__req_rtx(c) : MRC__NEW_NO;
        if (w != MRC__NEW_CWND && c->state == MRC_QPS_RTS) w = mrc__req_new(c);
        if (w == MRC__NEW_CWND) {
            mrc__cc_block(c);
        } else { /* it let its turn go (no EV, MPR or WIMM limit, no pool block): the next READY QP may take it */
            if (w == MRC__NEW_POOL) mrc__pool_wait(c);
            mrc__cc_pass(c);
        }
    }
    if (n < 0) { /* nothing consumed: put it back at the head */
        ep->txq_head = (ep->txq_head + MRC_MAX_CONNS - 1u) % MRC_MAX_CONNS;
        ep->txq[ep->txq_head] = c->slot;
        ep->txq_len++;
        c->in_txq = 1;
        return n;
    }
    if (n == 0) return 0;
    mrc__sched_tx(c); /* round-robin: to the tail if it has more */
    mrc__tx_counted(ep, ti->hdr_len + ti->payload_len + ti->pad); /* 32-bit: at most MRC_HDR_MAX + 4096 + 3 */
    return n;
}
/* mrc_endpoint_poll_tx past its argument checks and the clock, when something is queued (out of line: the call with
 * nothing to send stays a few instructions, without this one's register saves) */
MRC__PRIVATE MRC__NOINLINE int mrc__poll_tx(mrc_endpoint *ep, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti) {
    if (ep->epq_len) { /* endpoint operations first: they are few and urgent */
        int n = mrc__poll_epop(ep, buf, cap, ti);
        if (n > 0) return n;
    }
    while (ep->ctq_len) { /* control packets: SACKs, NACKs, transport ACKs */
        uint16_t slot = ep->ctq[ep->ctq_head % MRC_MAX_CONNS];
        mrc_conn *c = ep->conns[slot];
        int n;
        ep->ctq_head = (ep->ctq_head + 1u) % MRC_MAX_CONNS;
        ep->ctq_len--;
        c->in_ctq = 0;
        if (c->ctlq_head == c->ctlq_tail) continue; /* emptied since it was queued (the QP entered ERR) */
#if MRC_FAST_PATH
        if (!ep->cfg.fast_path_off && (n = mrc__rsp_fast_sack(c, buf, ti)) > 0) return n; /* P22 fast paths: did it all
                                                                                             */
#endif
        n = mrc__poll_ctl(c, buf, ti);
        if (n) return n;
    }
    while (ep->txq_len) {
        uint16_t slot = ep->txq[ep->txq_head % MRC_MAX_CONNS];
        mrc_conn *c = ep->conns[slot];
        int n;
        ep->txq_head = (ep->txq_head + 1u) % MRC_MAX_CONNS;
        ep->txq_len--;
        c->in_txq = 0;
#if MRC_FAST_PATH
        n = mrc__req_tx_fast(c, buf, cap, flags, ti, ep->now); /* (its callers' mrc__clock) 0: not its common case;
                                                                  else c is requeued too */
#if MRC__TX_RUN
        if (n == 0 && c->rtxq.n) n = mrc__req_rtx_fast(c, buf, cap, flags, ti, ep->now); /* a retransmission */
#endif
        if (n > 0) {
            MRC__CNT(ep->st.tx_pkts++);
            MRC__CNT(ep->st.tx_bytes += ti->hdr_len + ti->payload_len + ti->pad); /* 32-bit: as mrc__tx_counted's */
            return n;
        }
#endif
        n = mrc__poll_req(c, buf, cap, flags, ti);
        if (n) return n;
    }
    return 0;
}
MRC_API int mrc_endpoint_poll_tx(mrc_endpoint *ep, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti,
                                 mrc_time now) {
    if (!ep || !buf || !ti || (flags & ~(unsigned)MRC_TX_COPY)) return MRC_ERR_INVAL;
    if (cap < MRC_HDR_MAX) return MRC_ERR_NOBUF;
    now = mrc__clock(ep, now);
    if (!(ep->epq_len | ep->ctq_len | ep->txq_len)) return 0; /* nothing queued at all */
    return mrc__poll_tx(ep, buf, cap, flags, ti);
}

/* P37 bursts: up to n packets, each as mrc_endpoint_poll_tx would return it; stops at the first entry that gets none
 * (its len says why: 0 nothing to send, MRC_ERR_NOBUF) */
MRC_API int mrc_endpoint_poll_tx_burst(mrc_endpoint *ep, mrc_txpkt *pkts, unsigned n, unsigned flags, mrc_time now) {
    unsigned i;
    if (!ep || (!pkts && n) || (flags & ~(unsigned)MRC_TX_COPY)) return MRC_ERR_INVAL;
    now = mrc__clock(ep, now);
    for (i = 0; i < n; i++) {
        mrc_txpkt *t = &pkts[i];
#if MRC__TX_RUN
        if (ep->txq_len == 1u && !(ep->epq_len | ep->ctq_len) && !ep->cfg.fast_path_off) {
            unsigned m = mrc__req_tx_run(ep, t, n - i, flags, now); /* a run of one QP's middle packets */
            if (m) {
                i += m - 1u;
                continue;
            }
        }
#endif
        t->len = !t->buf                                            ? MRC_ERR_INVAL
                 : t->cap < MRC_HDR_MAX                             ? MRC_ERR_NOBUF
                 : !(ep->epq_len | ep->ctq_len | ep->txq_len) ? 0
                                                                : mrc__poll_tx(ep, t->buf, t->cap, flags, &t->ti);
        if (t->len <= 0) break;
    }
    return (int)i;
}

/* ---- time: the next deadline and the expiries --------------------------------------------------------------- */
MRC_API mrc_time mrc_endpoint_next_deadline(const mrc_endpoint *ep) {
    if (!ep) return MRC_TIME_NEVER;
    /* P36 lazy deadlines: the heap may hold idle QPs whose keys passed; with no timer armed there is nothing to do */
    return MRC__MIN(ep->armed && ep->heap_len ? ep->conns[ep->heap[0]]->deadline : MRC_TIME_NEVER, ep->ep_deadline);
}
MRC_API int mrc_endpoint_on_timeout(mrc_endpoint *ep, mrc_time now) {
    if (!ep) return MRC_ERR_INVAL;
    now = mrc__clock_ctl(ep, now); /* out of line: rarer than packets (-12 B Cortex-M4) */
    while (ep->heap_len && ep->conns[ep->heap[0]]->deadline <= now) {
        mrc_conn *c = ep->conns[ep->heap[0]];
        mrc__req_tlp_exact(c); /* P36 lazy deadlines: a transmission may have left it early */
        if (c->sack_deadline <= now) mrc__rsp_on_sack_timer(c);
        if (c->rto_deadline <= now) mrc__req_on_rto(c, now);
        if (c->tlp_deadline <= now) mrc__req_on_tlp(c, now);
        if (c->reo_deadline <= now) mrc__req_on_reo(c, now);
        if (c->evp_deadline <= now) mrc__ev_probe_round(c, now);
        if (c->ver_deadline <= now) mrc__ev_ver_expire(c, now);
        if (c->nopath_deadline <= now) mrc__nopath_expire(c, now);
        if (c->pace_deadline <= now) mrc__cc_pace_expire(c);
        mrc__timer_rekey(c); /* exact again (P36 lazy deadlines: the key may have been early, and nothing was due) */
        if (c->deadline <= now) { /* every handler re-arms in the future; never spin on a broken invariant */
            MRC_ASSERT(0);
            mrc__timers_never(c);
            mrc__timer_rekey(c);
        }
        mrc__sched_tx(c);
    }
    if (ep->ep_deadline <= now) mrc__ep_timeouts(ep, now);
    MRC__CHECK_ALL(ep);
    return MRC_OK;
}

/* ---- events and statistics ---------------------------------------------------------------------------------- */
/* mrc_endpoint_poll_event with something queued (out of line: the empty poll keeps no frame and saves no register) */
MRC__PRIVATE MRC__NOINLINE int mrc__poll_event(mrc_endpoint *ep, mrc_event *ev) {
    if (ep->notify_len) {
        *ev = ep->notify[ep->notify_head];
        ep->notify_head = (ep->notify_head + 1u) % MRC_NOTIFYQ_LEN;
        ep->notify_len--;
        return 1;
    }
    MRC_MEMSET(ev, 0, sizeof *ev); /* once: a QP with nothing to report writes nothing into it */
    while (ep->evq_len) {
        mrc_conn *c = ep->conns[ep->evq[ep->evq_head % MRC_MAX_CONNS]];
        if (c->err_pending) {
            c->err_pending = 0;
            ev->type = MRC_EVT_CONN_ERROR;
            ev->status = c->err_status;
        } else if (c->sq_head != c->sq_done) {
            const mrc__wr *wr = MRC__SQ(c, c->sq_head);
            c->sq_head++;
            if ((wr->flags & MRC_WR_UNSIGNALED) && wr->status == MRC_OK) continue;
            ev->type = MRC_EVT_SEND_DONE;
            ev->status = wr->status;
            ev->wr_id = wr->wr_id;
            ev->byte_len = wr->status == MRC_OK ? wr->len : 0;
        } else if (c->rq_head != c->rq_done) {
            const mrc__rqe *q = &c->rq[c->rq_head & (MRC_MAX_RQ - 1u)];
            c->rq_head++;
            ev->type = MRC_EVT_RECV_IMM;
            ev->status = q->len == MRC__RQE_FLUSHED ? MRC_ERR_FLUSH : MRC_OK;
            ev->wr_id = q->wr_id;
            ev->imm = q->imm;
            ev->byte_len = q->len == MRC__RQE_FLUSHED ? 0u : q->len;
        } else {
            c->in_evq = 0;
            ep->evq_head = (ep->evq_head + 1u) % MRC_MAX_CONNS;
            ep->evq_len--;
            continue;
        }
        ev->qpn = c->qpn;
        ev->conn = c;
        return 1;
    }
    return 0;
}
MRC_API int mrc_endpoint_poll_event(mrc_endpoint *ep, mrc_event *ev) {
    if (!ep || !ev) return MRC_ERR_INVAL;
    if (ep->notify_len | ep->evq_len) return mrc__poll_event(ep, ev);
    ev->type = MRC_EVT_NONE; /* nothing queued, the usual answer: one test, one store */
    return 0;
}
MRC_API int mrc_endpoint_event_pending(const mrc_endpoint *ep) { return ep && (ep->notify_len | ep->evq_len) != 0; }
MRC_API void mrc_endpoint_stats_get(const mrc_endpoint *ep, mrc_endpoint_stats *out) {
    if (!out) return;
    if (!ep) {
        MRC_MEMSET(out, 0, sizeof *out);
        return;
    }
    *out = ep->st;
    out->pool_blocks = ep->pool_cap;
    out->pool_in_use = ep->pool_cap - ep->pool_nfree - ep->pool_nret;
    out->pool_retained = ep->pool_nret;
}
MRC_API void mrc_conn_stats_get(const mrc_conn *c, mrc_conn_stats *out) {
    if (!out) return;
    if (c) *out = c->st;
    else MRC_MEMSET(out, 0, sizeof *out);
}
