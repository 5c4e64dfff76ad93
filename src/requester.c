/* ================================================================================================================
 * REQUESTER - src/requester.c
 * Owns: the send queue and segmentation (every packet carries METH + RETH, VA advanced per packet), PSN
 * assignment inside the MPR window and the CC window, the per-PSN records of [win_base, snd_nxt), SACK/NACK/AETH
 * processing, loss detection, retransmission (always on another EV, BTH rtx set), the RTO with linear then
 * exponential back-off, the tail-loss probe, and in-order send completions.
 *
 * Loss detection (docs/PROTOCOL.md Q5 reordering slack) is time-ordered and O(1) amortised: every record in flight is
 * on the transmit list in the order of its latest transmission (appended when sent, unlinked when acknowledged or
 * judged lost); when a SACK shows that a transmission sent at time T arrived, every record still in flight sent before
 * T - reorder_slack is declared lost, popping from the head of the list. A trim NACK retransmits at once; the RTO
 * and the tail-loss probe are backstops.
 * The requester's fast paths (new data on a clean QP; the SACK that advances the cumulative acknowledgement) sit
 * beside the general transmit and receive paths in src/endpoint.c and call the functions below.
 * Calls: codec, state, timers, sched, cc, path, path_policy, qp.
 * ============================================================================================================== */
#include "requester.h"
#include "codec.h"
#include "state.h"
#include "timers.h"
#include "sched.h"
#include "cc.h"
#include "path.h"
#include "path_policy.h"
#include "qp.h"

/* ---- posting ------------------------------------------------------------------------------------------------ */
MRC_API int mrc_conn_post_write(mrc_conn *c, const mrc_write *w, mrc_time now) {
    mrc__wr *wr;
    if (!c || !c->ep || !w) return MRC_ERR_INVAL;
    (void)mrc__clock_ctl(c->ep, now); /* out of line: a post is rarer than packets */
    if (w->opcode >= MRC_WR_SEND && w->opcode <= MRC_WR_ATOMIC_FADD) return MRC_ERR_NOTSUP;
    if (w->opcode != MRC_WR_WRITE && w->opcode != MRC_WR_WRITE_IMM) return MRC_ERR_INVAL;
    if (w->flags & ~(uint32_t)(MRC_WR_UNSIGNALED | MRC_WR_SOLICITED)) return MRC_ERR_INVAL;
    if (w->len > MRC_MAX_MSG_LEN || (w->len && !w->buf)) return MRC_ERR_INVAL;
    if (w->remote_va > UINT64_MAX - w->len) return MRC_ERR_INVAL;
    if (c->state != MRC_QPS_RTS) return MRC_ERR_STATE;
    if (c->sq_tail - c->sq_head >= MRC_MAX_SQ) return MRC_ERR_FULL;
    wr = MRC__SQ(c, c->sq_tail);
    MRC_MEMSET(wr, 0, sizeof *wr);
    wr->wr_id = w->wr_id;
    wr->buf = (const uint8_t *)w->buf;
    wr->remote_va = w->remote_va;
    wr->len = w->len;
    wr->rkey = w->rkey;
    wr->imm = w->imm;
    wr->opcode = (uint8_t)w->opcode;
    wr->flags = (uint8_t)w->flags;
    /* rqmsn [inferred]: index of the receive WQE a Write-IMM consumes; plain writes carry the next one */
    wr->rqmsn = (w->opcode == MRC_WR_WRITE_IMM) ? c->next_rqmsn++ : c->next_rqmsn;
    c->sq_tail++;
    mrc__sched_tx(c);
    return MRC_OK;
}

/* ---- the send window: per-PSN records of [win_base, snd_nxt) in the in-flight pool -------------------------- */
/* acknowledged (a PSN in [win_base, snd_nxt), which surely has a record; out of line under -Os: two callers) */
MRC__PRIVATE MRC__SIZE_NOINLINE bool mrc__req_acked(const mrc_conn *c, uint32_t psn) {
    return (mrc__blk(c, psn)->acked >> (psn & 63u)) & 1u;
}
/* the acknowledged bits of PSNs base .. base + 63 (0 where no block: outside [win_base, snd_nxt), masked by the caller)
 * */
MRC__PRIVATE MRC__SIZE_NOINLINE uint64_t mrc__req_acked64(const mrc_conn *c, uint32_t base) {
    uint32_t sh = base & 63u;
    const mrc__pblk *b = mrc__blk(c, base);
    uint64_t w = b ? b->acked >> sh : 0;
    if (sh && (b = mrc__blk(c, (base + 64u) & MRC_PSN_MASK)) != (const mrc__pblk *)0) w |= b->acked << (64u - sh);
    return w;
}
/* The cumulative acknowledgement moved from old_base to win_base: the blocks it passed are retained, and the block of
 * win_base too when nothing is left in flight (a QP with nothing outstanding holds no live memory, so idle QPs cannot
 * pin the pool; a block handed to it for its next PSN is kept). Amortised O(1) per PSN acknowledged. */
MRC__PRIVATE MRC__INLINE void mrc__req_release(mrc_conn *c, uint32_t old_base) {
    uint32_t p = old_base & ~(MRC__BLK_PSNS - 1u);
    while (mrc_psn_diff((p + MRC__BLK_PSNS) & MRC_PSN_MASK, c->win_base) <= 0) {
        mrc__pool_retain(c, p);
        p = (p + MRC__BLK_PSNS) & MRC_PSN_MASK;
    }
    if (c->win_base == c->snd_nxt && (c->win_base & (MRC__BLK_PSNS - 1u))) {
        mrc__pool_retain(c, c->win_base);
        c->nxt_ret = 1;
    }
}
/* The block of new PSN psn, before it is sent. Entering a new block (slot 0), the block of PSN psn - MRC_MAX_INFLIGHT
 * - 1 leaves the span of MRC_MAX_INFLIGHT PSNs behind snd_nxt in which records are kept (where a QP with records of
 * its own overwrote them): it is reused for psn if psn needs one, else freed - so a QP holds at most
 * MRC_MAX_INFLIGHT / 64 + 1 blocks and a pool of that many per QP never reclaims. A retained block at psn's entry
 * is its own block resumed after an idle spell (or, entered at slot 0, a lap: fresh); a missing one is taken
 * (mrc__req_new saw one free or retained). O(1). The commit of mrc__req_emit_data calls it only for a PSN with no
 * block, at slot 0, or with nxt_ret set (the only way a block can be retained mid-way): else the block is live. */
MRC__PRIVATE MRC__NOINLINE void mrc__pool_enter(mrc_conn *c, uint32_t psn) {
    mrc_endpoint *ep = c->ep;
    uint32_t t = MRC__BTAB_IDX(psn), i;
    c->nxt_ret = 0;
    if (!(psn & (MRC__BLK_PSNS - 1u))) {
        uint32_t te = MRC__BTAB_IDX((psn - MRC_MAX_INFLIGHT - 1u) & MRC_PSN_MASK);
        if (te != t && c->btab[te]) {
            i = c->btab[te] - 1u;
            MRC_ASSERT(mrc__pool_ret(ep, i));
            if (c->btab[t]) {
                mrc__pool_release(c, te);
            } else {
                mrc__pool_unretain(ep, i);
                c->btab[te] = 0;
                mrc__pool_give(c, psn, i);
                mrc__pool_peak(ep);
                return;
            }
        }
    }
    if (!c->btab[t]) {
        mrc__pool_take(c, psn);
    } else if (mrc__pool_ret(ep, i = c->btab[t] - 1u)) {
        mrc__pool_unretain(ep, i);
        if (!(psn & (MRC__BLK_PSNS - 1u))) mrc__pool_give(c, psn, i);
        mrc__pool_peak(ep);
    }
}

/* ---- no usable path (docs/PROTOCOL.md 7.11) ------------------------------------------------------------------------
 * A QP in RTS whose work finds no EV to carry it (every EV ASSUMED_BAD, OFF or DENIED) is never silent: the failed
 * pick arms this timer (O(1)); ASSUMED_BAD EVs keep being probed meanwhile, and an EV back in a rotation (revival,
 * rebuild) disarms it. At expiry, still no EV and still work: MRC_ERR_NOPATH. The bound is recovery.nopath_timeout_ns, or by
 * default as long as the QP's RTO retries would last, so a QP without a path fails no later than one on a dead
 * path; with infinite retries (retry_exp 25, or timeout 0) the timer re-arms and the QP waits, still probing. */
MRC__PRIVATE MRC__INLINE bool mrc__req_has_work(const mrc_conn *c) {
    return c->sq_done != c->sq_tail || c->snd_una != c->snd_nxt;
}
MRC__PRIVATE bool mrc__retry_infinite(const mrc_conn *c) { return c->attr.retry_exp == 25 || c->attr.timeout == 0; }
MRC__PRIVATE mrc_time mrc__nopath_bound(const mrc_conn *c) {
    mrc_time t = 0;
    uint32_t n;
    if (c->ep->cfg.recovery.nopath_timeout_ns) return c->ep->cfg.recovery.nopath_timeout_ns;
    if (mrc__retry_infinite(c)) return (mrc_time)1024u << 24;
    for (n = 0; n <= (uint32_t)c->attr.retry_linear + c->attr.retry_exp; n++) t += mrc__rto_interval(c, n);
    return t;
}
MRC__PRIVATE void mrc__nopath_arm(mrc_conn *c) {
    if (c->nopath_deadline != MRC_TIME_NEVER) return;
    c->nopath_deadline = c->ep->now + mrc__nopath_bound(c);
    /* probes are now the only way back: the back-off a long outage built up (up to 1024 rounds) would outlast the
     * bound, so it is cut to MRC__EVP_NOPATH_BACKOFF while no EV carries data (7.5) */
    if (c->evp_backoff > MRC__EVP_NOPATH_BACKOFF) {
        c->evp_backoff = MRC__EVP_NOPATH_BACKOFF;
        if (c->evp_deadline != MRC_TIME_NEVER)
            c->evp_deadline = MRC__MIN(c->evp_deadline, c->ep->now + mrc__evp_interval(c));
    }
    mrc__timer_update(c);
}
MRC__PRIVATE void mrc__nopath_expire(mrc_conn *c, mrc_time now) {
    c->nopath_deadline = MRC_TIME_NEVER;
    if (c->state != MRC_QPS_RTS || !mrc__req_has_work(c) || mrc__ev_can_carry(c)) return;
    if (!c->ep->cfg.recovery.nopath_timeout_ns && mrc__retry_infinite(c)) {
        c->nopath_deadline = now + mrc__nopath_bound(c);
        return;
    }
    mrc__conn_error(c, MRC_ERR_NOPATH, 0, 0, now);
}

/* ---- loss bookkeeping --------------------------------------------------------------------------------------- */
/* The retransmission queue holds each lost record once (MRC__PR_QUEUED), in queue order: appended when judged lost
 * from SACK evidence, put at the front when a NACK, a trim or the RTO names it. A record leaves it when it is
 * retransmitted or acknowledged. */
/* (out of line under -Os: the RTO's handler and mrc__req_mark_lost each had a copy) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__rtxq_push(mrc_conn *c, uint32_t psn, mrc__psnrec *r, bool front) {
    r->flags |= MRC__PR_QUEUED;
    mrc__plist_push(c, &c->rtxq, psn, r, front);
}
MRC__PRIVATE void mrc__rtxq_remove(mrc_conn *c, uint32_t psn, mrc__psnrec *r) {
    if (!(r->flags & MRC__PR_QUEUED)) return;
    r->flags &= (uint8_t)~MRC__PR_QUEUED;
    mrc__plist_unlink(c, &c->rtxq, psn, r);
}
/* A transmission judged lost without a trim makes its EV suspect (docs/PROTOCOL.md 7.4). With ev_confirm_loss (Q5
 * reordering slack) a loss seen only as a SACK hole waits until the retransmission is SACKed with its own timestamp -
 * the original never arrived - and is forgotten if an earlier transmission is SACKed instead; a second loss of the same
 * PSN, or a timeout, demotes at once. (Demoting an ECMP-hashed EV at once instead was tried and not adopted:
 * docs/DESIGN.md P25 hashed-EV bypass knobs.) */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__req_suspect(mrc_conn *c, mrc__psnrec *r, int why, mrc_time sent) {
    bool defer = c->ep->cfg.ev.confirm_loss && c->ep->cfg.tseth && (why == MRC__LOSS_SACK || why == MRC__LOSS_PROBE);
    MRC__RARE_INC(c->st.ev_losses);
    mrc__ev_lost_at(c, r->ev, r->txseq, sent); /* P39 host losses */
    if (r->flags & MRC__PR_EVLOST) /* lost twice: no more doubt (P35 sweeps: the fault was there when it was last sent)
                                      */
        mrc__ev_on_loss(c, (int)r->ev_lost, true, sent);
    r->flags &= (uint8_t)~(MRC__PR_EVLOST | MRC__PR_EVCONF);
    if (defer) {
        r->ev_lost = r->ev;
        r->flags |= MRC__PR_EVLOST;
        mrc__ev_hold(c, r->ev); /* P29 suspect hold: out of the rotation until the verdict */
    } else {
        mrc__ev_on_loss(c, (int)r->ev, false, sent);
    }
}
#define MRC__RTX_AT(m, why) (offsetof(mrc_conn_stats, m) == offsetof(mrc_conn_stats, rtx_nack) + 8u * (why))
MRC__STATIC_ASSERT(MRC__RTX_AT(rtx_sack_hole, MRC__LOSS_SACK) && MRC__RTX_AT(rtx_rto, MRC__LOSS_RTO) &&
                       MRC__RTX_AT(rtx_probe_loss, MRC__LOSS_PROBE) && MRC__LOSS_NACK > MRC__LOSS_PROBE &&
                       MRC__LOSS_TRIM > MRC__LOSS_PROBE && MRC__LOSS_TRIM_LH > MRC__LOSS_PROBE,
                   rtx_counters);
MRC__PRIVATE void mrc__req_mark_lost(mrc_conn *c, uint32_t psn, int why) {
    mrc__psnrec *r = MRC__REC(c, psn);
    if (!(r->flags & MRC__PR_INFLIGHT)) return;
    mrc__plist_unlink(c, &c->txl, psn, r);
    r->flags = (uint8_t)((r->flags & ~MRC__PR_INFLIGHT) | MRC__PR_LOST);
    mrc__cc_on_loss(c, mrc__rec_nominal(c, psn, r), why, c->ep->now);
    if (why == MRC__LOSS_TRIM) mrc__ev_on_trim(c, (int)r->ev);          /* fabric congestion on that path */
    else if (why == MRC__LOSS_TRIM_LH) MRC__RARE_INC(c->st.ev_trims);   /* the receiver's link: not the path */
    else if (why != MRC__LOSS_NACK) mrc__req_suspect(c, r, why, MRC__REC_SENT(c, psn)); /* silent: the path is suspect
                                                                                           */
    /* rtx_sack_hole, rtx_rto, rtx_probe_loss by their index past rtx_nack (a NACK's, a trim's: rtx_nack) */
    MRC__RARE_INC(*(uint64_t *)(void *)((uint8_t *)&c->st + offsetof(mrc_conn_stats, rtx_nack) +
                                        8u * (unsigned)(why <= MRC__LOSS_PROBE ? why : 0)));
    if (!(r->flags & MRC__PR_QUEUED)) mrc__rtxq_push(c, psn, r, why >= MRC__LOSS_NACK || why == MRC__LOSS_RTO);
    MRC__TRACE(c->ep, MRC_TRACE_LOSS, psn, why);
}
/* The transmissions since the transmit list's head was sent (the list not empty), from its record; txl_lo renewed to
 * the head's count */
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__txl_used(mrc_conn *c) {
    uint32_t used = (mrc__txseq)(c->tx_count - MRC__REC(c, c->txl.head)->txseq);
    c->txl_lo = c->tx_count - used;
    return used;
}
/* ... or a bound of them below MRC__TXL_SPAN, from txl_lo without the record: the head only ever gets newer (the list
 * is in transmission order, appended at the tail, and every transmission appends). The record is read, and the bound
 * renewed, only when the bound does not prove the room; every path asks this way, so all leave txl_lo alike (and
 * tx_count - txl_lo stays within a span of the head's count: no wrap) */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__txl_span(mrc_conn *c) {
    uint32_t used = c->tx_count - c->txl_lo;
    return used < MRC__TXL_SPAN ? used : mrc__txl_used(c);
}
/* mrc__txl_span's test (the list not empty): room for one more transmission (written out: as mrc__txl_span(c) <
 * MRC__TXL_SPAN the transmit fast paths' code came out 7 instructions per packet longer with gcc 12 -O2, measured) */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__txl_room(mrc_conn *c) {
    return (uint32_t)(c->tx_count - c->txl_lo) < MRC__TXL_SPAN || mrc__txl_used(c) < MRC__TXL_SPAN;
}
/* Room for one more transmission: the oldest record in flight that has seen MRC__TXL_SPAN later transmissions go
 * by (2 windows) is treated as lost. Called before the EV of the new transmission is chosen, since declaring a loss
 * can demote an EV. Only the head can qualify: the list is in transmission order. */
MRC__PRIVATE void mrc__txl_reserve(mrc_conn *c) {
    if (c->txl.n && !mrc__txl_room(c)) mrc__req_mark_lost(c, c->txl.head, MRC__LOSS_SACK);
}
/* Declare lost every record in flight sent more than the reordering slack before the latest acked transmission, and
 * set P32's reorder deadline from the head left, as mrc__reo_deadline would (the slack computed once: a second
 * mrc__slack at the same instant finds nothing more to decay). The SACK handlers only (the general one and the SACK
 * fast path), before mrc__req_timers_x(c, MRC__TM_SACK) or mrc__req_timers_arm. The scan runs only with reordering or
 * loss: out of line under -Os. */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__req_losses_scan(mrc_endpoint *ep, mrc_conn *c, int why) {
    mrc_time slack;
    if (ep->cfg.recovery.reorder_slack_ns || c->reo_mult > 1) {
        slack = mrc__slack(c);
    } else { /* mrc__slack at multiplier 1 (or 0): the floor, max(min(s, srtt), s) = s */
        slack = mrc__slack_base(c);
    }
    while (c->txl.n) {
        mrc_time hs = MRC__REC_SENT(c, c->txl.head);
        if (hs + slack > c->lat_acked_sent) {
            if (hs < c->lat_acked_sent && MRC__KNOB(ep, reorder_timer) != 0u)
                c->reo_deadline = MRC__MAX(mrc__reo_at(c, hs, slack), ep->now + 1u);
            break;
        }
        mrc__req_mark_lost(c, c->txl.head, why); /* unlinks it */
    }
}
/* the slack's multiplier would not decay (mrc__slack) */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__req_slack_steady(const mrc_endpoint *ep, const mrc_conn *c) {
    return c->reo_mult <= 1 || ep->cfg.recovery.reorder_slack_ns;
}
/* A head sent after the latest acknowledged send time (the in-order case) is neither lost nor late whatever the slack:
 * unless the slack's multiplier would decay (a side effect of mrc__slack), nothing more to do (this test in line) */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__req_losses_none(const mrc_endpoint *ep, mrc_conn *c) {
    c->reo_deadline = MRC_TIME_NEVER;
    return mrc__req_slack_steady(ep, c) && (!c->txl.n || MRC__REC_SENT(c, c->txl.head) > c->lat_acked_sent);
}
/* both (out of line under -Os: the general SACK handler and P37 bursts; the SACK fast path keeps the test in line) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__req_detect_losses(mrc_endpoint *ep, mrc_conn *c, int why) {
    if (!mrc__req_losses_none(ep, c)) mrc__req_losses_scan(ep, c, why);
}

/* ---- transmit ----------------------------------------------------------------------------------------------- */
MRC__STATIC_ASSERT(MRC_OP_WRITE_MIDDLE == MRC_OP_WRITE_FIRST + 1 && MRC_OP_WRITE_LAST_IMM == MRC_OP_WRITE_LAST + 1 &&
                       MRC_OP_WRITE_ONLY == MRC_OP_WRITE_LAST + 2 && MRC_OP_WRITE_ONLY_IMM == MRC_OP_WRITE_LAST + 3,
                   write_opcodes);
/* A requester packet's mrc_txinfo: zeroed, EV slot, DSCP class cls, opcode, header length (the data packet and the
 * probe; out of line under -Os) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__req_ti(const mrc_conn *c, int slot, unsigned cls, uint32_t opcode, uint32_t hl,
                                                 mrc_txinfo *ti) {
    MRC_MEMSET(ti, 0, sizeof *ti);
    mrc__ev_txinfo(c, (uint16_t)slot, ti);
    ti->dscp_class = (uint8_t)cls;
    ti->dscp = c->ep->cfg.dscp[cls];
    ti->opcode = (uint8_t)opcode;
    ti->peer = c->attr.peer;
    ti->qpn = c->qpn;
    ti->hdr_len = hl;
}
/* Emit packet k of send-queue entry wr_idx (free-running index) as PSN psn: a retransmission when rbk is psn's block
 * (the caller's, which read the record), a new PSN when it is null. Checks everything that can fail before changing
 * any state. Returns bytes written, 0 when no EV is usable now or, for a retransmission not forced, when the
 * congestion window is closed (mrc__req_rtx's test; a new PSN's window is the caller's to check), MRC_ERR_NOBUF. */
MRC__PRIVATE MRC__NOINLINE int mrc__req_emit_data(mrc_conn *c, uint32_t psn, uint32_t wr_idx, uint32_t k, mrc__pblk *rbk,
                                    uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti) {
    mrc_endpoint *ep = c->ep;
    mrc__wr *wr = MRC__SQ(c, wr_idx);
    const bool rtx = rbk != (mrc__pblk *)0;
    mrc__pblk *bk;
    mrc__psnrec *r;
    /* every packet but the last: a full path MTU, no immediate, no pad. mrc__wr_npkts and mrc__pkt_len without the
     * division: k is below the packet count, so packet k is the last when the next one would start at or past len,
     * and then holds the rest of len (0 for an empty message). 32-bit: (k + 1) path MTUs, the packet count's at
     * most, are below len + the path MTU <= 2^31 + 2^12 */
    const uint32_t off = k << c->mtu_shift;
    bool last = wr->len <= off + (1u << c->mtu_shift), imm = last && wr->opcode == MRC_WR_WRITE_IMM;
    uint32_t plen = last ? wr->len - off : 1u << c->mtu_shift;
    uint32_t pad = (4u - (plen & 3u)) & 3u;
    uint32_t hl = mrc__data_hdr_len(c, imm), nominal = hl + plen + pad + 4u + MRC_NOMINAL_HDR; /* mrc__nominal */
    size_t need = (flags & MRC_TX_COPY) ? (size_t)hl + (size_t)plen + (size_t)pad : (size_t)hl;
    uint32_t opcode, a;
    uint8_t *q;
    int slot;
    uint8_t cls;
    /* mrc__cc_can_send: READY, the window opens on an ACK */
    if (rtx && !c->rtx_force && !mrc__cc_can_send(c, nominal)) return 0;
    if (cap < need) return MRC_ERR_NOBUF;
    mrc__txl_reserve(c);
    /* a retransmission avoids its last EV */
    slot = mrc__ev_pick(c, rtx ? (int)rbk->rec[psn & (MRC__BLK_PSNS - 1u)].ev : -1);
    if (slot < 0) { /* no EV can carry data: never silent (7.11) */
        mrc__nopath_arm(c);
        return 0;
    }

    /* FIRST, MIDDLE; LAST, its IMM; ONLY, its IMM: consecutive codes (build-checked). The fast paths' copy
     * (mrc__fast_data_hdrs) stays as choices: one helper in either form cost 60 B here or, as arithmetic, 2
     * instructions per packet there on x86-64 and 8-10 on Cortex-M4 */
    opcode = !last ? (uint32_t)MRC_OP_WRITE_FIRST + (uint32_t)(k != 0u)
                   : (uint32_t)MRC_OP_WRITE_LAST + (k == 0u ? 2u : 0u) + (uint32_t)imm;
    a = last;
    if (ep->cfg.ack.request_every) {
        a = 0;
        if (++c->pkts_since_areq >= ep->cfg.ack.request_every) {
            a = 1;
            c->pkts_since_areq = 0;
        }
    }
    /* the headers stored straight at their fixed offsets from the codec's tables, as the encoders would with these
     * values (each checked against its field's width when it was configured, attached or posted): BTH word 0's TVER
     * and P_Key from the QP's template, the solicited-event bit at its run-time position */
    mrc__st4(buf, MRC__FW(0, 4, MRC__BTH_OPCODE, opcode) |
                      (imm && (wr->flags & MRC_WR_SOLICITED) ? 1u << (13u - mrc__m_bit(&ep->cfg.wire) + 16u) : 0u) |
                      MRC__FW(0, 4, MRC__BTH_PAD, pad) | c->tx_bth0);
    mrc__st4(buf + 4, MRC__FW(4, 4, MRC__BTH_RESV8, 0u) | MRC__FW(4, 4, MRC__BTH_DEST_QP, c->attr.dest_qpn));
    mrc__st4(buf + 8, MRC__FW(8, 4, MRC__BTH_A, a) | MRC__FW(8, 4, MRC__BTH_RTX, rtx ? 1u : 0u) |
                          MRC__FW(8, 4, MRC__BTH_TS, ep->cfg.tseth ? 1u : 0u) | MRC__FW(8, 4, MRC__BTH_PSN, psn));
    mrc__st4(buf + MRC_BTH_LEN,
             MRC__FW(0, 4, MRC__METH_RQMSN, wr->rqmsn) | MRC__FW(0, 4, MRC__METH_MSN, mrc__wr_msn(wr_idx)));
    q = buf + MRC_BTH_LEN + MRC_METH_LEN;
    if (ep->cfg.tseth) {
        mrc__st4(q, MRC__FW(0, 4, MRC__TSETH_TS, mrc__ts_ctl(ep, ep->now)) | MRC__FW(0, 4, MRC__TSETH_TSR, 0u) |
                        MRC__FW(0, 4, MRC__TSETH_FTYPE, 1u));
        q += MRC_TSETH_LEN;
    }
    MRC__FPUT(q, MRC__RETH_VA, wr->remote_va + off);
    MRC__FPUT(q, MRC__RETH_RKEY, wr->rkey);
    MRC__FPUT(q, MRC__RETH_DMA_LEN, wr->len);
    if (imm) MRC__FPUT(q + MRC_RETH_LEN, MRC__IMMDT_IMM, wr->imm);
    MRC_ASSERT((uint32_t)(q - buf) + MRC_RETH_LEN + (imm ? (uint32_t)MRC_IMMDT_LEN : 0u) == hl);

    cls = !ep->cfg.trimmable ? MRC_DSCP_NO_TRIM : rtx ? MRC_DSCP_TRIMMABLE_RETX : MRC_DSCP_TRIMMABLE;
    mrc__req_ti(c, slot, cls, opcode, hl, ti);
    ti->pad = (uint8_t)pad;
    ti->payload_len = plen;
    ti->payload = plen ? wr->buf + off : (const uint8_t *)0;
    if (flags & MRC_TX_COPY) {
        if (plen) MRC_MEMCPY(buf + hl, ti->payload, (size_t)plen);
        if (pad) MRC_MEMSET(buf + hl + plen, 0, (size_t)pad);
        ti->payload = buf + hl;
    }

    /* commit */
    bk = rtx ? rbk : mrc__blk(c, psn);
    if (!rtx && (!bk || !(psn & (MRC__BLK_PSNS - 1u)) || c->nxt_ret)) { /* else: its live block, as before */
        mrc__pool_enter(c, psn);
        bk = mrc__blk(c, psn);
    }
    r = &bk->rec[psn & (MRC__BLK_PSNS - 1u)];
    if (!rtx) { /* a new PSN: fresh record */
        r->flags = last ? 0u : MRC__PR_FULL;
        r->wr = (mrc__sqslot)(wr_idx & (MRC_MAX_SQ - 1u));
        r->ev_lost = 0; /* none: flags clear */
        bk->acked &= ~((uint64_t)1 << (psn & 63u));
    } else {
        mrc__rtxq_remove(c, psn, r); /* the queue's head */
        r->flags = (uint8_t)((r->flags & ~MRC__PR_LOST) | MRC__PR_RTX);
        MRC__RARE_INC(c->st.tx_rtx);
    }
    if (c->rto_deadline == MRC_TIME_NEVER) c->rto_start = ep->now;
    bk->sent[psn & (MRC__BLK_PSNS - 1u)] = ep->now;
    r->ev = (mrc__evslot)slot;
    r->flags |= MRC__PR_INFLIGHT;
    r->txseq = (mrc__txseq)c->tx_count++;
    mrc__plist_push(c, &c->txl, psn, r, false); /* the newest transmission */
    mrc__cc_on_send(c, nominal);
    MRC__CNT(c->st.tx_data++);
    MRC__CNT(c->st.tx_bytes += plen);
    c->tx_nominal += nominal; /* as the responder counts rcvd_bytes */
    c->tlp_base = ep->now; /* (mrc__poll_tx's now: its caller's mrc__clock) */
    MRC__TRACE(ep, MRC_TRACE_TX, (opcode << 24) | psn, ti->ev);
    return (int)need;
}
/* Reliability probe i: the tail-loss probe (i = 0) goes on the next EV of the rotation; a probe of an ASSUMED_BAD
 * EV (i > 0) goes on that EV. Returns 0 when the tail-loss probe has no EV to go on. */
MRC__PRIVATE MRC__NOINLINE int mrc__req_emit_probe(mrc_conn *c, unsigned i, uint8_t *buf, mrc_txinfo *ti) {
    mrc_endpoint *ep = c->ep;
    mrc__probe *pr = &c->probes[i];
    int slot = i                               ? (int)pr->slot
               : (c->tlp2 & MRC__TLP2_OUT) ? mrc__ev_pick(c, (int)c->tlp2_slot) /* P33 TLP copies: the copy, elsewhere
                                                                                   */
                                           : mrc__ev_pick(c, -1);
    if (slot < 0) {
        mrc__nopath_arm(c);
        return 0;
    }
    /* the headers stored straight at their fixed offsets, as mrc_bth_encode and mrc_peth_encode would store them
     * (cap >= MRC_HDR_MAX; every value checked when it was configured or attached): BTH word 0 from the QP's
     * template, BTH word 1 (DEST_QP) and PETH word 2 (SPDCID, DPDCID: SETH's positions) from the SACK fast path's */
    mrc__st4(buf, MRC__FW(0, 4, MRC__BTH_OPCODE, MRC_OP_PROBE_REQ) | c->tx_bth0);
    MRC_MEMCPY(buf + 4, &c->tx_sack[1], 4);
    /* Q21 probes consume no PSN: a probe consumes no PSN; it carries the next one unchanged */
    mrc__st4(buf + 8, MRC__FW(8, 4, MRC__BTH_PSN, c->snd_nxt));
    buf += MRC_BTH_LEN;
    mrc__st4(buf, 0u); /* type, nxt, vendor_info */
    mrc__st4(buf + 4, MRC__FW(4, 4, MRC__PETH_PROBE_ID, ++c->probe_id));
    MRC_MEMCPY(buf + 8, &c->tx_sack[2], 4);
    mrc__st4(buf + 12, MRC__FW(12, 4, MRC__PETH_TS, mrc__ts_ctl(ep, ep->now)) | MRC__FW(12, 4, MRC__PETH_TSR, 0u) |
                           MRC__FW(12, 4, MRC__PETH_FTYPE, 1u));
    mrc__req_ti(c, slot, MRC_DSCP_CONTROL, MRC_OP_PROBE_REQ, MRC_BTH_LEN + MRC_PETH_LEN, ti);
    c->probes_due &= ~(1u << i);
    if (i == 0 && (c->tlp2 & MRC__TLP2_DUE)) { /* P33 TLP copies: this copy is the other one; the next goes at once */
        c->tlp2 = MRC__TLP2_OUT;
        c->tlp2_sent = ep->now;
        c->tlp2_slot = (mrc__evslot)slot;
        c->probes_due |= 1u;
    }
    c->probe_sent[i] = ep->now; /* (mrc__poll_tx's now, as mrc__req_emit_data's) */
    pr->slot = (mrc__evslot)slot;
    if (pr->kind == MRC__PROBE_VER) { /* P35 sweeps: unanswered after mrc__ev_ver_to, its EV is taken as dead */
        mrc_time t = mrc__deadline_ctl(ep->now, mrc__ev_ver_to(c));
        if (t < c->ver_deadline) c->ver_deadline = t;
    }
    if (i == 0) {
        pr->kind = MRC__PROBE_TLP;
        c->tlp_base = ep->now;
        MRC__RARE_INC(c->st.tx_probes);
    } else {
        MRC__RARE_INC(c->st.ev_probes);
    }
    return MRC_BTH_LEN + MRC_PETH_LEN;
}
/* Retransmissions first (oldest loss first), then new data. */
MRC__PRIVATE int mrc__req_tx(mrc_conn *c, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti) {
    int n;
    uint32_t psn, wr_idx, k;
    mrc__pblk *bk = (mrc__pblk *)0;
    if (c->probes_due) {
        /* only the tail-loss probe can find no EV; it stays due until one comes back, but must not hold back the
         * probes of ASSUMED_BAD EVs queued behind it, which are what brings an EV back */
        uint32_t due = c->probes_due;
        unsigned i;
        do {
            i = mrc__ctz64(due);
            n = mrc__req_emit_probe(c, i, buf, ti); /* (cap >= MRC_HDR_MAX) */
            due &= ~1u;
        } while (n == 0 && i == 0 && due);
        if (n > 0) mrc__req_timers_x(c, MRC__TM_TX);
        return n;
    }
    if (c->rtxq.n) { /* the queue's head; 0 also when the window is closed to it (unless forced): its nominal size is
                        the emit's */
        mrc__psnrec *r;
        const mrc__wr *wr;
        psn = c->rtxq.head;
        bk = mrc__blk(c, psn);
        r = &bk->rec[psn & (MRC__BLK_PSNS - 1u)];
        MRC_ASSERT((r->flags & (MRC__PR_LOST | MRC__PR_QUEUED)) == (MRC__PR_LOST | MRC__PR_QUEUED));
        wr = &c->sq[r->wr];
        wr_idx = mrc__wr_index(c, r->wr);
        k = (psn - wr->first_psn) & MRC_PSN_MASK;
    } else if (mrc__req_can_send_new(c)) {
        psn = c->snd_nxt;
        wr_idx = c->sq_send;
        k = c->sq_sent;
    } else {
        return 0;
    }
    n = mrc__req_emit_data(c, psn, wr_idx, k, bk, buf, cap, flags, ti);
    if (n <= 0) return n;
    if (bk) {
        c->rtx_force = 0; /* the record left the queue in the commit */
    } else {
        mrc__wr *wr = MRC__SQ(c, wr_idx);
        if (k == 0) {
            wr->first_psn = psn;
            if (wr->opcode == MRC_WR_WRITE_IMM) c->wimm_out++;
        }
        if (++c->sq_sent == mrc__wr_npkts(c, wr)) {
            c->sq_send++;
            c->sq_sent = 0;
#if MRC__TX_RUN
            c->tpl.wr = 0; /* the transmit template's message is sent */
#endif
        }
        c->snd_nxt = MRC__PSN_INC(c->snd_nxt);
    }
    mrc__req_timers_x(c, MRC__TM_TX);
    return n;
}

/* ---- acknowledgements --------------------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__req_ack_one(mrc_conn *c, uint32_t psn) {
    mrc__pblk *b = mrc__blk(c, psn);
    mrc__psnrec *r = &b->rec[psn & (MRC__BLK_PSNS - 1u)];
    uint64_t bit = (uint64_t)1 << (psn & 63u);
    if (b->acked & bit) return;
    b->acked |= bit;
    if (r->flags & MRC__PR_INFLIGHT) {
        mrc__cc_on_ack(c, mrc__rec_nominal(c, psn, r));
        mrc__plist_unlink(c, &c->txl, psn, r);
    }
    mrc__rtxq_remove(c, psn, r); /* a lost PSN acknowledged after all (an earlier transmission arrived late) */
    r->flags &= (uint8_t)~(MRC__PR_INFLIGHT | MRC__PR_LOST);
}
/* Send completions in work-request order once every PSN of the message is acknowledged. */
MRC__PRIVATE void mrc__req_complete(mrc_conn *c) {
    bool any = false;
    while (c->sq_done != c->sq_send) {
        mrc__wr *wr = MRC__SQ(c, c->sq_done);
        uint32_t last = (wr->first_psn + mrc__wr_npkts(c, wr) - 1u) & MRC_PSN_MASK;
        if (mrc_psn_diff(c->snd_una, last) <= 0) break;
        wr->status = MRC_OK;
        if (wr->opcode == MRC_WR_WRITE_IMM) c->wimm_out--;
        c->sq_done++;
        MRC__CNT(c->st.msgs_done++);
        any = true;
    }
    if (any) mrc__sched_ev(c);
}
MRC__PRIVATE void mrc__req_rtt_sample(mrc_conn *c, mrc_time rtt) {
    if (rtt < c->rtt_min) c->rtt_min = rtt;
    c->srtt = c->srtt - (c->srtt >> 3) + (rtt >> 3);
}
/* The cumulative acknowledgement moved: the retry budget, the RTO and the tail-loss probe start again from now. */
MRC__PRIVATE MRC__INLINE void mrc__req_progress(mrc_conn *c, mrc_time now) {
    c->retries = c->retry_spent = 0;
    c->rto_heard = 0;
    c->tlp_count = 0;
    c->rto_start = now;
    c->tlp_base = now;
}
/* A timestamp echo t (unwrapped) names a transmission before the one sent at sent (t is that transmission's time to
 * 2^ts_shift ns): the verdict below and the NACK's test (out of line under -Os) */
MRC__PRIVATE MRC__SIZE_NOINLINE bool mrc__req_echo_before(const mrc_conn *c, mrc_time t, mrc_time sent) {
    return mrc__deadline_add(t, (mrc_time)1 << c->ep->cfg.wire.ts_shift) <= sent;
}
/* The SACK that names a retransmitted PSN says, by its timestamp echo t, which transmission arrived (Q5 reordering
 * slack, 7.4): an earlier one - the loss was reordering, the tolerance widens - or the retransmission - the original
 * was lost, and its EV, remembered with the PSN (MRC__PR_EVLOST), is suspect. The first such SACK decides when the PSN
 * is fresh (not acknowledged yet); with ev.confirm_late (P27 late-SACK verdict) also when another SACK's bitmap or
 * cumulative point acknowledged it first, or the naming SACK is stale (SACKs reorder on the way back like data on the
 * way out), as long as the verdict is pending and the record lives. Returns whether it decided. In line where the
 * compiler finds it worth it (the SACK fast path's mrc__sack_rtx, fresh: a window with holes, half the SACKs). */
MRC__PRIVATE MRC__INLINE bool mrc__req_rtx_verdict(mrc_conn *c, mrc__pblk *b, uint32_t psn, mrc_time t, bool fresh,
                                                  mrc_time now) {
    mrc__psnrec *r = &b->rec[psn & (MRC__BLK_PSNS - 1u)];
    mrc_time sent = b->sent[psn & (MRC__BLK_PSNS - 1u)];
    bool earlier; /* the echo names a transmission before the latest: an earlier one arrived */
    if (!(r->flags & MRC__PR_RTX)) return false;
    earlier = mrc__req_echo_before(c, t, sent);
    if ((r->flags & MRC__PR_EVCONF) && earlier) {
        /* P40 overtaken originals: the loss this PSN's verdict confirmed was none - an earlier transmission arrived
         * after the retransmission (its duplicate's SACK echoes it): the retransmission overtook it on a faster path.
         * The tolerance widens, and the EV comes back. Once per confirmation. */
        r->flags &= (uint8_t)~MRC__PR_EVCONF;
        mrc__reo_widen(c, now);
        MRC__RARE_INC(c->st.ev_unconfirmed);
        mrc__ev_undemote(c, r->ev_lost);
        return true;
    }
    if (!fresh && (!(r->flags & MRC__PR_EVLOST) || !mrc__ev_in_scope(c, c->ep->cfg.ev.confirm_late)))
        return false;
    if (earlier) {
        mrc__reo_widen(c, now);
        if (r->flags & MRC__PR_EVLOST) mrc__ev_unhold(c, r->ev_lost); /* P29 suspect hold: not lost, back in the
                                                                         rotation */
    } else if (r->flags & MRC__PR_EVLOST) {
        /* P35 sweeps: the original's send time was at least a minimum RTT before the retransmission's (its loss was
         * seen by the SACK of a packet sent after it) */
        mrc__ev_on_loss(c, (int)r->ev_lost, true, sent > c->rtt_min ? sent - c->rtt_min : 0u);
        r->flags |= MRC__PR_EVCONF;
    }
    r->flags &= (uint8_t)~MRC__PR_EVLOST;
    return true;
}
/* Bytes newly received according to a SACK's 24-bit rcvd_bytes (256-byte units, wrapping every 4 GiB) against the
 * last one seen. A value behind the last (an older SACK overtaken by a newer one: a delta in the upper half of
 * the 24-bit space) moves nothing and is not remembered. */
MRC__PRIVATE uint64_t mrc__rcvd_newly(uint32_t *last, uint32_t rcvd) {
    uint32_t rd = (rcvd - *last) & 0xFFFFFFu;
    if (rd >= 0x800000u) return 0;
    *last = rcvd & 0xFFFFFFu;
    return (uint64_t)rd << 8;
}
/* P38 SACKs validated whole: whether a SACK bitmap bm, whose first bit stands hi PSNs before snd_nxt, names a PSN at
 * or past snd_nxt (never sent); the general path and the SACK fast path both ask it */
MRC__PRIVATE MRC__INLINE bool mrc__sack_bits_unsent(int32_t hi, uint64_t bm) {
    return bm && (hi <= 0 || (hi < 64 && (bm >> hi)));
}
/* A SACK's selective part: of the bits bm (bit i: PSN base + i, hi >= 1 PSNs before snd_nxt), those inside
 * [win_base, snd_nxt) not acknowledged yet - to be acknowledged in order (one's acknowledgement changes no other's
 * bit: the bits are read first). Both SACK handlers */
MRC__PRIVATE MRC__ALWAYS_INLINE uint64_t mrc__req_sack_bits(const mrc_conn *c, uint64_t bm, uint32_t base, int32_t hi) {
    int32_t lo = mrc_psn_diff(c->win_base, base);
    if (lo < 64) {
        uint64_t inr = ~(uint64_t)0;
        if (lo > 0) inr &= ~(uint64_t)0 << lo;
        if (hi < 64) inr &= ((uint64_t)1 << hi) - 1u;
        bm &= inr;
        if (bm) bm &= ~mrc__req_acked64(c, base);
        return bm;
    }
    return 0;
}
/* ... acknowledged; true when there was one. The general path and the SACK fast path (out of line under -Os: a window
 * with holes) */
MRC__PRIVATE MRC__SIZE_COLD bool mrc__req_sack_sel(mrc_conn *c, uint64_t bm, uint32_t base, int32_t hi) {
    bool progress;
    bm = mrc__req_sack_bits(c, bm, base, hi);
    progress = bm != 0;
    while (bm) {
        mrc__req_ack_one(c, (base + mrc__ctz64(bm)) & MRC_PSN_MASK);
        bm &= bm - 1u;
    }
    return progress;
}
/* the SACK's rcvd capped at what was sent (avail, below 2^23 there), counted (MRC__SIZE_COLD) */
MRC__PRIVATE MRC__SIZE_COLD uint32_t mrc__sack_rcvd_cap(mrc_conn *c, uint32_t avail) {
    MRC__RARE_INC(c->st.cc_rcvd_capped);
    return (c->last_rcvd + avail) & 0xFFFFFFu;
}
/* Q9 dynamic MPR: the responder's MPR (nonzero) with MRC_CAP_DYNAMIC_MPR (MRC__SIZE_COLD) */
MRC__PRIVATE MRC__SIZE_COLD void mrc__sack_mpr(mrc_conn *c, uint32_t mpr) {
    uint32_t wp = MRC__MIN(MRC__MIN(mpr, (uint32_t)c->attr.mpr) * 128u, (uint32_t)MRC_MAX_INFLIGHT);
    if (wp != c->win_psns) {
        c->win_psns = wp;
        MRC__CNT(c->st.cc_mpr_changes++);
    }
}
MRC__PRIVATE int mrc__req_on_sack(mrc_conn *c, const mrc_pkt *k, mrc_time now) {
    const mrc_seth *s = &k->seth;
    uint32_t cack = s->cack_psn, ack_psn, base, psn, old_una = c->snd_una, old_base = c->win_base;
    int32_t d, hi;
    uint64_t bm;
    bool progress = false, fresh = false, have_rec, stale, rec_live, quiet = false;
    int slot = -1, pi = -1;
    mrc_time acked_sent = 0, rtt = 0;
    mrc__pblk *bk = (mrc__pblk *)0; /* ack_psn's block: the records are read before mrc__req_release */
    if (cack != k->bth.psn) return mrc__drop(c->ep, c, MRC_DROP_MALFORMED, k->bth.opcode);
    /* P38 SACKs validated whole: one naming a PSN never sent - its cack, the PSN it answers, a bit of its bitmap - is
     * dropped before it changes anything (no acknowledgement, penalty, skip request, RTT sample or CC input) */
    ack_psn = mrc_psn_add(cack, s->ack_psn_offset);
    d = mrc_psn_diff(c->snd_nxt, ack_psn);
    base = mrc_psn_add(cack, s->sack_offset); /* the bitmap's first PSN, hi PSNs before snd_nxt */
    hi = mrc_psn_diff(c->snd_nxt, base);
    if (mrc_psn_diff(cack, MRC__PSN_DEC(c->snd_nxt)) > 0 || d < 1 || mrc__sack_bits_unsent(hi, s->sack_bitmap))
        return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    MRC__CNT(c->st.rx_sack++);
    /* P18 outstanding-only acknowledgements: a SACK whose cack is behind the acknowledged point (an old one overtaken,
     * or forged) only acknowledges: no timing, path, probe, CC or MPR input */
    stale = MRC__PSN_BEFORE(cack, MRC__PSN_DEC(old_base));

    /* the packet this SACK names: its record, if it still has one, before this SACK changes anything */
    /* a record lives as long as its block: any PSN up to MRC_MAX_INFLIGHT behind snd_nxt keeps its own (a live or
     * retained block; the table holds only blocks of that span, each at its own entry, mrc__pool_enter) unless its
     * block was reclaimed for want of memory: then it is stale (no timing or path input) */
    if (!s->pr && d >= 1 && d <= (int32_t)MRC_MAX_INFLIGHT) {
        bk = mrc__blk(c, ack_psn);
        rec_live = bk && (ack_psn & (MRC__BLK_PSNS - 1u)) >= MRC__PBLK_LO(bk);
    } else {
        rec_live = false;
    }
    /* P38 quiet SACKs: the answer to a probe this side did not send (or already answered), and a SACK naming a PSN a
     * SACK already named (a first transmission: a duplicate), likewise only acknowledge - no loss detection, path, CC
     * or MPR (a retransmitted PSN is named once per copy that arrives: its late-SACK verdict, 7.4, needs both) */
    if (!stale && s->pr) quiet = (pi = mrc__probe_match(c, s->entropy, k->cc.tx_timestamp)) < 0;
    else if (!stale && rec_live &&
             (bk->rec[ack_psn & (MRC__BLK_PSNS - 1u)].flags & (MRC__PR_NAMED | MRC__PR_RTX)) == MRC__PR_NAMED)
        quiet = true;
    have_rec = rec_live && !stale && !quiet;
    /* (ack_psn is before snd_nxt: d >= 1) */
    if (have_rec) fresh = !MRC__PSN_BEFORE(ack_psn, old_base) && !((bk->acked >> (ack_psn & 63u)) & 1u);

    /* cumulative part: every PSN <= cack (none when stale: an older SACK overtaken by newer ones) */
    if (!stale && cack != MRC__PSN_DEC(old_base)) {
        for (psn = old_base; psn != MRC__PSN_INC(cack); psn = MRC__PSN_INC(psn)) mrc__req_ack_one(c, psn);
        c->win_base = MRC__PSN_INC(cack);
        progress = true;
    }
    /* selective part: only bits inside [win_base, snd_nxt) that were not known yet */
    bm = s->sack_bitmap;
    if (bm && mrc__req_sack_sel(c, bm, base, hi)) progress = true;
    if (MRC__PSN_BEFORE(c->snd_una, c->win_base)) c->snd_una = c->win_base;
    while (c->snd_una != c->snd_nxt && mrc__req_acked(c, c->snd_una)) c->snd_una = MRC__PSN_INC(c->snd_una);
    if (c->snd_una != old_una) progress = true;

    /* timing and path attribution */
    if (stale) {
        /* acknowledgements only - and the verdict on a pending silent loss, which needs only the echo (7.4): below */
        MRC__RARE_INC(c->st.rx_sack_stale); /* (the counters here: gcc -Os copied them into each path it threaded) */
    } else if (quiet) {
        MRC__RARE_INC(c->st.rx_sack_quiet); /* acknowledgements only */
    } else {
        if (s->m == MRC_M_SKIP_ONCE || s->m == MRC_M_ALWAYS_SKIP) MRC__RARE_INC(c->st.ev_skip_req);
        if (s->pr) {
            if (pi == 0 || pi == MRC__TLP2_MATCH) { /* the tail-loss probe: the responder's state when it arrived */
                acked_sent = c->probe_sent[0];
                slot = (int)c->probes[0].slot;
                if (pi == MRC__TLP2_MATCH) { /* P33 TLP copies: the other copy answered */
                    acked_sent = c->tlp2_sent;
                    slot = (int)c->tlp2_slot;
                }
                c->probes[0].kind = MRC__PROBE_FREE;
                c->probes_due &= ~1u; /* P33 TLP copies: a copy not sent yet is not needed */
                c->tlp2 = 0;
            } else if (pi > 0) { /* a probe of an ASSUMED_BAD EV */
                mrc__ev_probe_answer(c, (unsigned)pi, s->m);
            }
        }
    }
    if (rec_live && !quiet) { /* a stale SACK's record (only the verdict), or have_rec */
        mrc__psnrec *r = &bk->rec[ack_psn & (MRC__BLK_PSNS - 1u)];
        mrc_time r_sent = bk->sent[ack_psn & (MRC__BLK_PSNS - 1u)], t = r_sent;
        if (c->ep->cfg.tseth) {
            t = mrc__ts_unwrap_ctl(c->ep, k->cc.tx_timestamp, now); /* the echo names the transmission that arrived */
            (void)mrc__req_rtx_verdict(c, bk, ack_psn, t, fresh, now); /* (fresh is false when stale) */
        }
        if (!stale) {
            acked_sent = MRC__MIN(t, r_sent);
            if (!(r->flags & MRC__PR_RTX)) r->flags |= MRC__PR_NAMED;
            if (r->ev < c->ev_count && mrc__ev_value(c, r->ev) == s->entropy) slot = (int)r->ev;
            if (fresh && !(r->flags & MRC__PR_RTX) && now > r_sent) { /* retransmitted packets give no sample */
                rtt = now - r_sent;
                mrc__req_rtt_sample(c, rtt);
            }
        }
    }
    if (acked_sent > c->lat_acked_sent) {
        c->lat_acked_sent = acked_sent;
        c->lat_acked_rtt = now > acked_sent ? now - acked_sent : 0u; /* P32 reorder timer */
    }
    if (slot >= 0) {
        mrc__ev_delivered(c, (unsigned)slot, acked_sent);
        mrc__ev_on_ack(c, slot, s->m);
    }
    if (progress) mrc__req_progress(c, now);
    if (!quiet) mrc__req_detect_losses(c->ep, c, s->pr ? MRC__LOSS_PROBE : MRC__LOSS_SACK);
    if (progress && mrc_psn_diff(c->win_base, old_base) > 0) mrc__req_release(c, old_base); /* records read above */
    if (!stale && !quiet) { /* congestion control: what the responder received since its last SACK, ECN, RTT, its penalty */
        mrc__cc_sample cs;
        uint32_t rcvd = k->cc.rcvd_bytes & 0xFFFFFFu, rd = (rcvd - c->last_rcvd) & 0xFFFFFFu;
        uint64_t avail = ((c->tx_nominal + 255u) >> 8) - c->rcvd_credit; /* P18 outstanding-only acknowledgements: sent
                                                                            and not yet credited */
        if (rd < 0x800000u && rd > avail) rcvd = mrc__sack_rcvd_cap(c, (uint32_t)avail); /* claims more than was ever
                                                                                          sent: credit only what was */
        cs.newly = mrc__rcvd_newly(&c->last_rcvd, rcvd);
        c->rcvd_credit += cs.newly >> 8;
        MRC__CNT(c->st.cc_rcvd_bytes += cs.newly);
        cs.rtt = rtt;
        cs.ecn = s->m == MRC_M_SKIP_ONCE;
        cs.pen = k->cc.rcv_cwnd_pen;
        cs.r_c = k->cc.r_c;
        mrc__cc_on_sack(c, &cs, now);
    }
    /* Q9 dynamic MPR: the responder's MPR (not a stale SACK's); sent PSNs are never recalled */
    if (!stale && !quiet && (c->attr.caps & MRC_CAP_DYNAMIC_MPR) && s->mpr) mrc__sack_mpr(c, s->mpr);
    mrc__req_complete(c);
    /* mrc__req_timers, the reorder deadline set above unless quiet. After progress (retries and tlp_count 0, rto_start
     * and tlp_base now) it arms unless the QP left RTS or nothing is in flight, as in the SACK fast path: the heap key
     * then moves only when one of the three is earlier (P36), and mrc__recv's mrc__timer_update after this handler
     * keys any other timer a loss armed */
#if MRC_FAST_PATH
    if (!quiet && progress && c->state == MRC_QPS_RTS && c->snd_una != c->snd_nxt) {
        mrc__req_timers_arm(c, 0, 0, now, now);
        return MRC_OK;
    }
#endif
    mrc__req_timers_x(c, quiet ? MRC__TM_ALL : MRC__TM_SACK); /* quiet: no loss detection set the reorder deadline */
    return MRC_OK;
}

/* ---- NACKs, transport ACK/NAKs, and the requester's timers expiring ----------------------------------------- */
MRC__PRIVATE int mrc__req_on_nack(mrc_conn *c, const mrc_pkt *k, mrc_time now) {
    const mrc_neth *n = &k->neth;
    uint32_t psn = n->nack_psn;
    mrc__psnrec *r;
    unsigned reason = n->nack_reason;
    if (psn != k->bth.psn) return mrc__drop(c->ep, c, MRC_DROP_MALFORMED, k->bth.opcode);
    MRC__RARE_INC(c->st.rx_nack);
    MRC__RARE_INC(c->st.rx_nack_reason[reason & 31u]);
    if (reason != MRC_NACK_UNEXP_EVENT && !mrc_nack_is_retriable(reason))
        return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    /* P18 outstanding-only acknowledgements: a NACK acts only on a PSN outstanding (sent, not yet acknowledged), the
     * fatal UNEXP_EVENT included */
    if (!MRC__PSN_BEFORE(psn, c->snd_nxt)) return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    if (MRC__PSN_BEFORE(psn, c->win_base) || mrc__req_acked(c, psn)) /* (in the window: psn is before snd_nxt) */
        return mrc__drop(c->ep, c, MRC_DROP_ACK_STALE, k->bth.opcode);
    if (reason == MRC_NACK_UNEXP_EVENT) {
        if (c->ep->cfg.guard.hardened) return mrc__drop(c->ep, c, MRC_DROP_NAK, k->bth.opcode); /* P38 hardened mode */
        mrc__conn_error(c, MRC_ERR_REMOTE_OP, 0, 0, now);
        return MRC_OK;
    }
    r = MRC__REC(c, psn);
    if (c->ep->cfg.tseth && (r->flags & MRC__PR_RTX)) {
        /* the echo tells which transmission was NACKed: ignore NACKs for one already superseded */
        mrc_time t = mrc__ts_unwrap_ctl(c->ep, n->tx_timestamp, now);
        if (mrc__req_echo_before(c, t, MRC__REC_SENT(c, psn)))
            return mrc__drop(c->ep, c, MRC_DROP_ACK_STALE, k->bth.opcode);
    }
    if (reason == MRC_NACK_TRIMMED || reason == MRC_NACK_TRIMMED_LASTHOP) c->rto_heard = 1;
    mrc__req_mark_lost(c, psn, reason == MRC_NACK_TRIMMED           ? MRC__LOSS_TRIM
                               : reason == MRC_NACK_TRIMMED_LASTHOP ? MRC__LOSS_TRIM_LH
                                                                    : MRC__LOSS_NACK);
    mrc__req_timers(c);
    return MRC_OK;
}
MRC__PRIVATE int mrc__req_on_aeth(mrc_conn *c, const mrc_pkt *k, mrc_time now) {
    unsigned syn = k->aeth.syndrome, type = syn >> 5, code = syn & 0x1Fu;
    uint16_t msn = (uint16_t)(k->aeth.msn & 0xFFFFu);
    uint32_t i;
    int status;
    if ((uint16_t)(mrc__wr_msn(c->sq_tail) - 1u - msn) >= 0x8000u) /* names a message never posted */
        return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    if (type == 0) { /* positive transport ACK: informational, completions follow PSN coverage (Q7 completion by
                        coverage) */
        MRC__RARE_INC(c->st.rx_tack);
        return MRC_OK;
    }
    if (type != 3) return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    switch (code) {
    case 1: status = MRC_ERR_REMOTE_INVAL; break;
    case 2: status = MRC_ERR_REMOTE_ACCESS; break;
    case 3: status = MRC_ERR_REMOTE_OP; break;
    default: return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    }
    /* a NAK is fatal, so it must name a message that has started and not completed (O(send queue), rare) */
    for (i = c->sq_done; i != c->sq_tail; i++) {
        if (!mrc__wr_started(c, i)) i = c->sq_tail - 1u; /* nothing after an unstarted message has started */
        else if (mrc__wr_msn(i) == msn) break;
    }
    if (i == c->sq_tail) return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    if (c->ep->cfg.guard.hardened) { /* P38 hardened mode: the message must have a PSN sent and not acknowledged (the
                                        one refused: O(1), by snd_una), and then the NAK is still not fatal */
        const mrc__wr *wr = MRC__SQ(c, i);
        uint32_t last = (wr->first_psn + mrc__wr_npkts(c, wr) - 1u) & MRC_PSN_MASK;
        if (i == c->sq_send) last = MRC__PSN_DEC(c->snd_nxt); /* partly sent */
        if (c->snd_una == c->snd_nxt || mrc_psn_diff(c->snd_una, last) > 0)
            return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
        return mrc__drop(c->ep, c, MRC_DROP_NAK, k->bth.opcode);
    }
    mrc__conn_error(c, status, 1, msn, now);
    return MRC_OK;
}
MRC__PRIVATE void mrc__req_on_rto(mrc_conn *c, mrc_time now) {
    c->rto_deadline = MRC_TIME_NEVER;
    if (c->state != MRC_QPS_RTS || c->win_base == c->snd_nxt) {
        mrc__req_timers(c);
        return;
    }
    /* The retry budget and the back-off are for a dead path or peer (Q25 retry budget). An expiry after which a trim
     * NACK came back - the fabric cut one of this QP's packets and the peer answered: congestion, not failure - spends
     * none of the budget (recovery.trim_keeps_alive) and does not back off (recovery.trim_holds_rto): a QP locked out of a congested
     * queue is neither failed for being slow nor left waiting milliseconds after the queue has room. */
    if (!c->rto_heard || !c->ep->cfg.recovery.trim_holds_rto) c->retries++;
    if (!c->rto_heard || !c->ep->cfg.recovery.trim_keeps_alive) c->retry_spent++;
    MRC__RARE_INC(c->st.rto_fired);
    c->ev_proven = MRC__EV_NONE; /* nothing heard for an RTO: no EV is proven (P25 hashed-EV bypass knobs) */
    c->rto_heard = 0;
    MRC__TRACE(c->ep, MRC_TRACE_RTO, c->retries, mrc__rto_interval(c, c->retries));
    if (c->attr.retry_exp != 25 && c->retry_spent > (uint32_t)c->attr.retry_linear + c->attr.retry_exp) {
        mrc__conn_error(c, MRC_ERR_RETRY_EXC, 0, 0, now);
        return;
    }
    if (c->snd_una == c->snd_nxt) { /* every PSN SACKed, the cumulative point behind: nothing to resend, ask */
        c->probes[0].kind = MRC__PROBE_TLP;
        c->probes_due |= 1u;
    } else {
        /* The timed-out PSN goes first and regardless of the window: transmissions lost without a trace (a dropped
         * trimmed header, a dead path) still count as in flight, and a window they fill would never reopen. Its
         * SACK then reveals the other holes to loss detection. */
        mrc__psnrec *r = MRC__REC(c, c->snd_una);
        mrc__ev_rto_silent(c); /* P39 host losses: every plane silent since the oldest in flight */
        mrc__req_mark_lost(c, c->snd_una, MRC__LOSS_RTO);
        if ((r->flags & MRC__PR_QUEUED) && c->rtxq.head != c->snd_una) { /* to the head of the queue */
            mrc__rtxq_remove(c, c->snd_una, r);
            mrc__rtxq_push(c, c->snd_una, r, true);
        }
        c->rtx_force = 1;
    }
    mrc__sched_tx(c);
    c->rto_start = now;
    mrc__req_timers(c);
}
MRC__PRIVATE void mrc__req_on_tlp(mrc_conn *c, mrc_time now) {
    c->tlp_deadline = MRC_TIME_NEVER;
    if (c->state == MRC_QPS_RTS && c->win_base != c->snd_nxt) {
        c->tlp_base = now;
        if (c->tlp_count < 16) c->tlp_count++;
        /* P25 hashed-EV bypass knobs: the last tail-loss probe is unanswered: if it went on the proven EV, that EV is
         * proven no more */
        if (c->probes[0].kind == MRC__PROBE_TLP &&
            (c->probes[0].slot == c->ev_proven || ((c->tlp2 & MRC__TLP2_OUT) && c->tlp2_slot == c->ev_proven)))
            c->ev_proven = MRC__EV_NONE;
        c->tlp2 = 0;
        if (!c->rtxq.n) { /* nothing better to send: ask the responder where it is */
            c->probes[0].kind = MRC__PROBE_TLP;
            c->probes_due |= 1u;
            if (MRC__KNOB(c->ep, tlp_copies) >= 2u) c->tlp2 = MRC__TLP2_DUE; /* P33 TLP copies */
            MRC__RARE_INC(c->st.tlp_fired);
        }
    }
    mrc__req_timers(c);
}
/* P32 reorder timer: the reorder timer expired: every record at the head of the transmit list whose deadline has passed
 * is lost (as a SACK hole: its EV is suspect, section 7.4); the next one's deadline is in the future. */
MRC__PRIVATE void mrc__req_on_reo(mrc_conn *c, mrc_time now) {
    c->reo_deadline = MRC_TIME_NEVER;
    if (c->state == MRC_QPS_RTS) {
        while (c->txl.n && mrc__reo_due(c) <= now) {
            MRC__RARE_INC(c->st.rtx_reo_timer);
            mrc__req_mark_lost(c, c->txl.head, MRC__LOSS_SACK); /* unlinks it */
        }
    }
    mrc__req_timers(c);
}
