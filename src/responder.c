/* ================================================================================================================
 * RESPONDER - src/responder.c
 * Owns: the PSN bitmap over the MPR window past cack, duplicate and window checks, trim recognition, the access
 * checks that precede every placement (rkey, rights, bounds), direct placement in any arrival order, message
 * completion by cumulative PSN, Write-IMM completions in MSN order into pre-posted receives, the WIMM limit, and
 * the control packets it sends back: SACK (with CC_STATE), NACK, transport ACK/NAK (AETH). The queue of control
 * packets is per connection and coalesces plain SACKs.
 * The responder's fast path (an in-order data packet on a clean QP, and the SACK it causes) sits beside the general
 * receive path in src/endpoint.c and calls the functions below.
 * Calls: codec, state, sched, path, qp.
 * ============================================================================================================== */
#include "responder.h"
#include "codec.h"
#include "state.h"
#include "sched.h"
#include "path.h"
#include "qp.h"

/* ---- the control packets it sends back: queued per QP, plain SACKs coalesced -------------------------------- */
/* The 64-PSN slice a SACK reports (Q4 SACK bitmap order): cack + 1 .. cack + 64 while the highest PSN it stands for is
 * that close, else the 64 PSNs ending at that PSN. Returns the slice's offset from cack (the SETH sack_offset). */
MRC__PRIVATE int32_t mrc__sack_slice(const mrc_conn *c, uint32_t hi) {
    int32_t off = mrc_psn_diff(hi, c->cack);
    return off <= 64 ? 1 : off - 63;
}
MRC__PRIVATE void mrc__ctl_push(mrc_conn *c, const mrc__ctl *e) {
    uint32_t n = c->ctlq_tail - c->ctlq_head;
    if (e->kind == MRC__CTL_SACK && !e->pr && e->m == MRC_M_NONE && n > 0) {
        mrc__ctl *t = &c->ctlq[(c->ctlq_tail - 1u) & (MRC_CTLQ_LEN - 1u)];
        /* coalesce: the newer one names its packet, and the SACK reports the slice ending at the highest PSN named so
         * far - unless the named PSNs no longer fit one 64-PSN slice: an arrival would never be reported and the
         * requester would retransmit it. A full queue coalesces anyway (the newer state is worth more). */
        if (t->kind == MRC__CTL_SACK && !t->pr && t->m == MRC_M_NONE) {
            uint32_t lo = mrc_psn_diff(t->lo, e->psn) < 0 ? t->lo : e->psn;
            uint32_t hi = mrc_psn_diff(t->hi, e->psn) > 0 ? t->hi : e->psn;
            int32_t olo = mrc_psn_diff(lo, c->cack);
            bool keep = olo <= 0 || olo >= mrc__sack_slice(c, hi); /* cack only rises before it leaves: stays true */
            if (keep || n >= MRC_CTLQ_LEN) {
                *t = *e;
                if (keep) t->lo = lo, t->hi = hi;
                return;
            }
        }
    }
    if (n >= MRC_CTLQ_LEN) {
        MRC__LOSS_INC(c->ep->st.ctlq_overflow);
        return;
    }
    c->ctlq[c->ctlq_tail++ & (MRC_CTLQ_LEN - 1u)] = *e;
    mrc__sched_tx(c);
}
MRC__PRIVATE void mrc__rsp_sack(mrc_conn *c, uint32_t psn, uint32_t ev, uint8_t port, uint16_t ts, uint8_t m,
                                uint8_t pr) {
    mrc__ctl e;
    MRC_MEMSET(&e, 0, sizeof e);
    e.kind = MRC__CTL_SACK;
    e.psn = e.lo = e.hi = psn;
    e.ev = ev;
    e.port = port;
    e.ts = ts;
    e.m = m;
    e.pr = pr;
    mrc__ctl_push(c, &e);
    c->sack_pending = 0;
    c->sack_deadline = MRC_TIME_NEVER;
}
/* A NACK queued and counted (out of line: gcc -Os wrote its two calls out in full) */
MRC__PRIVATE MRC__NOINLINE void mrc__rsp_nack(mrc_conn *c, uint32_t psn, unsigned reason, const mrc_rxinfo *ri,
                                              uint16_t ts) {
    mrc__ctl e;
    MRC_MEMSET(&e, 0, sizeof e);
    e.kind = MRC__CTL_NACK;
    e.psn = psn;
    e.reason = (uint8_t)reason;
    e.ev = ri->ev;
    e.port = ri->port;
    e.ts = ts;
    mrc__ctl_push(c, &e);
    MRC__RARE_INC(c->st.tx_nack);
}
MRC__PRIVATE void mrc__rsp_aeth(mrc_conn *c, uint8_t syndrome, uint32_t msn, const mrc_rxinfo *ri) {
    mrc__ctl e;
    MRC_MEMSET(&e, 0, sizeof e);
    e.kind = MRC__CTL_AETH;
    e.reason = syndrome;
    e.psn = msn & MRC_PSN_MASK; /* an AETH names an MSN, no PSN */
    e.ev = ri ? ri->ev : 0;
    e.port = ri ? ri->port : 1;
    mrc__ctl_push(c, &e);
}
/* A semantic error the responder detected: NAK the requester, then this connection enters ERR too (as rxe does
 * for class C errors). conn_error empties the control queue first, so the NAK is the last packet it sends. */
MRC__PRIVATE void mrc__rsp_fatal(mrc_conn *c, uint8_t syndrome, uint16_t msn, int status, const mrc_rxinfo *ri,
                                 mrc_time now) {
    mrc__conn_error(c, status, 0, 0, now);
    mrc__rsp_aeth(c, syndrome, msn, ri);
    MRC__RARE_INC(c->st.tx_nak);
}

/* ---- receiving: the PSN bitmap, placement, completions ------------------------------------------------------ */
MRC__PRIVATE MRC__INLINE bool mrc__rsp_got(const mrc_conn *c, uint32_t psn) {
    return mrc__bit(c->rbits, MRC__RSP_BITS, psn);
}
/* Whether region mi holds the packet's plen bytes at its VA; *off their offset in it (out of line: two callers) */
MRC__PRIVATE MRC__NOINLINE bool mrc__rsp_in_mr(const mrc_endpoint *ep, int mi, const mrc_pkt *k, uint32_t plen,
                                               uint64_t *off) {
    if (k->reth.va < ep->mrs[mi].iova) return false;
    *off = k->reth.va - ep->mrs[mi].iova;
    return *off <= ep->mrs[mi].len && plen <= ep->mrs[mi].len - *off;
}
/* P38 hardened mode: a duplicate whose payload, where a host region holds it, differs from the bytes there: one of
 * the two transmissions was forged (rx_conflict). O(payload), duplicates only. */
MRC__PRIVATE void mrc__rsp_conflict(mrc_conn *c, const mrc_pkt *k, const uint8_t *payload) {
    const mrc_endpoint *ep = c->ep;
    uint32_t plen = k->payload_len;
    int mi = plen ? mrc__mr_find(ep, k->reth.rkey) : -1;
    uint64_t off;
    if (mi < 0 || (ep->mrs[mi].access & MRC_ACCESS_EXTERNAL) || !mrc__rsp_in_mr(ep, mi, k, plen, &off)) return;
    if (MRC_MEMCMP(ep->mrs[mi].base + off, payload, (size_t)plen) != 0) MRC__RARE_INC(c->st.rx_conflict);
}
/* Write-IMM completions strictly in MSN (= rqmsn) order, once cack covers the message's last PSN, each into the
 * oldest posted receive. An immediate whose receive is not posted yet waits in the stash. */
MRC__PRIVATE void mrc__rsp_deliver_imms(mrc_conn *c) {
    bool any = false;
    for (;;) {
        mrc__imm *s = &c->imms[c->imm_next & (MRC_MAX_WIMM - 1u)];
        mrc__rqe *q;
        if (!(s->psn & MRC__IMM_VALID) || mrc_psn_diff(s->psn & MRC_PSN_MASK, c->cack) > 0 || c->rq_done == c->rq_tail)
            break;
        q = &c->rq[c->rq_done & (MRC_MAX_RQ - 1u)];
        q->imm = s->imm;
        q->len = s->len;
        c->rq_done++;
        s->psn = 0;
        c->imm_next++;
        MRC__CNT(c->st.imm_delivered++);
        any = true;
    }
    if (any) mrc__sched_ev(c);
}
/* The cumulative ack moves over every PSN received in order after it, clearing their bits and counting the
 * messages they end. A word of the bitmap at a time: the run of arrivals from cack + 1 is the trailing ones of the
 * word shifted down to it (a shift fills zeros: a run stops at the word's end at the latest, the next word goes on). */
MRC__PRIVATE MRC__INLINE void mrc__rsp_advance_cack(mrc_conn *c) {
    for (;;) {
        uint32_t i = MRC__PSN_INC(c->cack) & (MRC__RSP_BITS - 1u), sh = i & 63u, n;
        uint64_t *w = &c->rbits[i >> 6], t = *w >> sh, m, l;
        if (!(t & 1u)) return; /* cack + 1 has not arrived */
        m = (t & ~(t + 1u)) << sh; /* the run: t's trailing ones */
        n = t + 1u ? mrc__ctz64(t + 1u) : 64u; /* 64: the whole word (sh is 0) */
        *w &= ~m;
        if ((l = c->rlast[i >> 6] & m) != 0) { /* messages end in the run */
            c->rlast[i >> 6] &= ~m;
            do {
                c->msn_done = (c->msn_done + 1u) & MRC_PSN_MASK;
                c->tack_msgs++;
            } while ((l &= l - 1u) != 0);
        }
        c->cack = (c->cack + n) & MRC_PSN_MASK;
        c->ooo -= n;
        if (sh + n < 64u) return; /* the run ended inside the word */
    }
}
/* P41 late arrivals: psn, just placed (cack moved over what it completed), is remembered with its timestamp ts when it
 * arrived after a later PSN - cack passed it, or PSNs beyond it are in (beyond a hole: one of the 64 after it). Its own
 * SACK may have been coalesced away (P7, Q6), and the requester may have judged it lost and retransmitted it: that
 * retransmission arrives as a duplicate, and its SACK echoes ts, the copy that arrived first (7.4). O(1). */
/* Whether one of the 64 PSNs after psn has arrived (any 24-bit PSN: the index wraps) */
MRC__PRIVATE MRC__INLINE bool mrc__rsp_any_after(const mrc_conn *c, uint32_t psn) {
    return mrc__bits64(c->rbits, MRC__RSP_BITS, psn + 1u) != 0;
}
/* P41 late arrivals: psn remembered with its timestamp ts */
MRC__PRIVATE MRC__INLINE void mrc__rsp_late(mrc_conn *c, uint32_t psn, uint16_t ts) {
    c->late_psn[c->late_next & (MRC__LATE_N - 1u)] = MRC__LATE_VALID | psn;
    c->late_ts[c->late_next++ & (MRC__LATE_N - 1u)] = ts;
}
MRC__PRIVATE MRC__INLINE void mrc__rsp_note_late(mrc_conn *c, uint32_t psn, uint16_t ts) {
    int32_t d = mrc_psn_diff(c->cack, psn);
    bool late = d > 0 || (d == 0 ? c->ooo != 0 : mrc__rsp_any_after(c, psn));
    if (ts && late) mrc__rsp_late(c, psn, ts);
}
/* P41 late arrivals: the timestamp a duplicate retransmission of psn echoes - the late arrival's, if remembered, else
 * its own (ts). O(MRC__LATE_N), per duplicate retransmission only. */
MRC__PRIVATE uint16_t mrc__rsp_dup_ts(const mrc_conn *c, uint32_t psn, uint16_t ts) {
    unsigned i;
    for (i = 0; i < MRC__LATE_N; i++)
        if (c->late_psn[i] == (MRC__LATE_VALID | psn)) return c->late_ts[i];
    return ts;
}
/* Activity epochs of one base RTT: how many QPs receive at once (dynamic MPR, Q9). Counts c once per epoch. */
MRC__PRIVATE MRC__INLINE void mrc__rsp_epoch(mrc_endpoint *ep, mrc_conn *c, mrc_time now) {
    if (now >= ep->epoch_end) {
        ep->rx_prev = now - ep->epoch_end < ep->cfg.cc.base_rtt_ns ? ep->rx_cur : 0u;
        ep->rx_cur = 0;
        ep->epoch++;
        ep->epoch_end = MRC__DEADLINE_SZ(now, ep->cfg.cc.base_rtt_ns);
    }
    if (c->rx_epoch != ep->epoch) {
        c->rx_epoch = ep->epoch;
        ep->rx_cur++;
    }
}
MRC__PRIVATE int mrc__rsp_on_data(mrc_conn *c, const mrc_pkt *k, const uint8_t *payload, const mrc_rxinfo *ri,
                                  mrc_time now) {
    mrc_endpoint *ep = c->ep;
    const mrc_config *cf = &ep->cfg;
    uint32_t psn = k->bth.psn, plen = k->payload_len, dlen = k->reth.dma_len, mtu = 1u << c->mtu_shift;
    uint32_t implied, old_cack = c->cack;
    unsigned op = k->bth.opcode;
    bool last = op == MRC_OP_WRITE_LAST || op == MRC_OP_WRITE_LAST_IMM || op == MRC_OP_WRITE_ONLY ||
                op == MRC_OP_WRITE_ONLY_IMM;
    bool imm = op == MRC_OP_WRITE_LAST_IMM || op == MRC_OP_WRITE_ONLY_IMM;
    bool ce = (ri->ecn & 3u) == 3u, trimmed, only;
    uint16_t ts = (k->hdrs & MRC_HDR_TSETH) ? k->tseth.tx_timestamp : 0;
    uint8_t m = ce ? MRC_M_SKIP_ONCE : MRC_M_NONE; /* Q8/Q27: a CE mark asks the sender to skip that EV once */
    mrc__imm *slot = (mrc__imm *)0;
    int mi = -1;
    uint64_t off = 0;
    int32_t d;
    unsigned why;

    if (c->state != MRC_QPS_RTR && c->state != MRC_QPS_RTS) return mrc__drop(ep, c, MRC_DROP_STATE, op);
    d = mrc_psn_diff(psn, c->cack);
    if (d <= 0 || ((uint32_t)d <= c->rsp_win && mrc__rsp_got(c, psn))) {
        /* duplicate: never placed again, acknowledged again so a lost SACK is repaired; a retransmission of a late
         * arrival echoes the timestamp of the copy that arrived first (P41 late arrivals) */
        MRC__RARE_INC(c->st.rx_dup);
        if (cf->guard.hardened) mrc__rsp_conflict(c, k, payload);
        if (k->bth.rtx && ts) ts = mrc__rsp_dup_ts(c, psn, ts);
        mrc__rsp_sack(c, psn, ri->ev, ri->port, ts, m, 0);
        return mrc__drop(ep, c, MRC_DROP_DUP, op);
    }
    if ((uint32_t)d > c->rsp_win) { /* Q10 window edge: beyond the window */
        MRC__RARE_INC(c->st.rx_oor);
        if (cf->rx.nack_oor) {
            mrc__rsp_nack(c, psn, MRC_NACK_PSN_OOR_WINDOW, ri, ts);
        }
        return mrc__drop(ep, c, MRC_DROP_PSN_OOR, op);
    }
    /* payload length implied by the opcode and the message length: an only packet's message fits one MTU (and is its
     * payload), a first or last packet's does not, a middle packet's is more than two; a last packet carries the
     * rest */
    only = op == MRC_OP_WRITE_ONLY || op == MRC_OP_WRITE_ONLY_IMM;
    if (only ? dlen > mtu : dlen <= (op == MRC_OP_WRITE_MIDDLE ? 2u * mtu : mtu))
        return mrc__drop(ep, c, MRC_DROP_MALFORMED, op);
    implied = only ? dlen : (last && (dlen & (mtu - 1u))) ? dlen & (mtu - 1u) : mtu;
    /* the pad must be the one the implied payload length needs, whatever happened to the payload on the way */
    if (k->bth.pad != ((4u - (implied & 3u)) & 3u)) return mrc__drop(ep, c, MRC_DROP_MALFORMED, op);
    /* Q17 trim recognition: trimmed when the adapter or the DSCP says so, or when the payload is shorter than the
     * headers imply */
    trimmed = (ri->flags & MRC_RX_TRIMMED) || ri->dscp == cf->dscp[MRC_DSCP_TRIMMED] ||
              ri->dscp == cf->dscp[MRC_DSCP_TRIMMED_LASTHOP] || (k->flags & MRC_PKT_CUT) || plen < implied;
    if (trimmed) {
        MRC__RARE_INC(c->st.rx_trimmed);
        mrc__rsp_nack(c, psn,
                      ri->dscp == cf->dscp[MRC_DSCP_TRIMMED_LASTHOP] ? MRC_NACK_TRIMMED_LASTHOP : MRC_NACK_TRIMMED,
                      ri, ts);
        return mrc__drop(ep, c, MRC_DROP_TRIMMED, op);
    }
    if (plen > implied) return mrc__drop(ep, c, MRC_DROP_MALFORMED, op);
    /* Q26 responder check order: a message sequence outside the window is dropped */
    if ((uint32_t)(uint16_t)(k->meth.msn - (uint16_t)(c->msn_done + 1u)) >= MRC__MIN(c->rsp_win, 0x8000u))
        return mrc__drop(ep, c, MRC_DROP_MSN_OOR, op);
    if (imm) { /* Q23 WIMM overflow: more pending immediates than max_wimm_dest is an invalid request */
        if ((uint16_t)(k->meth.rqmsn - c->imm_next) >= c->attr.max_wimm_dest) {
            why = MRC_DROP_WIMM;
            goto fatal;
        }
        slot = &c->imms[k->meth.rqmsn & (MRC_MAX_WIMM - 1u)];
        if (slot->psn & MRC__IMM_VALID) return mrc__drop(ep, c, MRC_DROP_MALFORMED, op);
    }
    /* access checks, all before a single byte is written (Q26 responder check order). IBTA checks no rkey for a
     * zero-length write; here (P10 zero-length writes, guard.zero_len_rkey) it must name a region with remote-write access
     * and a VA inside it, or it is dropped: not recorded, so a forged one cannot take the PSN of a real packet, and not
     * NAKed (IBTA never NAKs one). */
    if (!(c->attr.access & MRC_ACCESS_REMOTE_WRITE)) goto access_error;
    if (dlen != 0 || plen != 0 || cf->guard.zero_len_rkey) {
        /* (dlen 0: plen is 0 too, past the checks above, so only the VA can fail) */
        mi = mrc__mr_find(ep, k->reth.rkey);
        if (mi < 0 || !(ep->mrs[mi].access & MRC_ACCESS_REMOTE_WRITE) || !mrc__rsp_in_mr(ep, mi, k, plen, &off)) {
            if (dlen == 0) return mrc__drop(ep, c, MRC_DROP_ACCESS, op);
            goto access_error;
        }
    }
    if (plen) {
        if (ep->mrs[mi].access & MRC_ACCESS_EXTERNAL) {
            if (cf->place(cf->place_ud, ep->mrs[mi].rkey, ep->mrs[mi].user, off, payload, plen) != 0)
                return mrc__drop(ep, c, MRC_DROP_PLACE, op);
        } else {
            MRC_MEMCPY(ep->mrs[mi].base + off, payload, (size_t)plen);
        }
    }
    /* record the arrival and move cack over every contiguous arrival */
    mrc__bit_set(c->rbits, MRC__RSP_BITS, psn);
    if (last) mrc__bit_set(c->rlast, MRC__RSP_BITS, psn);
    if (slot) {
        slot->psn = MRC__IMM_VALID | psn;
        slot->imm = k->imm;
        slot->len = dlen;
    }
    c->ooo++;
    MRC__CNT(c->st.rx_data++);
    if (ce) MRC__RARE_INC(c->st.rx_ce);
    mrc__rsp_epoch(ep, c, now);
    MRC__CNT(c->st.rx_bytes_placed += plen);
    c->rcvd_bytes += k->hdr_len + plen + k->bth.pad + 4u + MRC_NOMINAL_HDR; /* 32-bit: at most a header and 4 KiB */
    mrc__rsp_advance_cack(c);
    mrc__rsp_note_late(c, psn, ts);
    mrc__rsp_deliver_imms(c);
    /* Q6 SACK frequency: SACK every ack.sack_every packets, at once on a, CE, rtx, out-of-order arrival or a filled hole */
    c->sack_pending++;
    c->pend_psn = psn;
    c->pend_ev = ri->ev;
    c->pend_ts = ts;
    c->pend_port = ri->port;
    if (k->bth.a || ce || k->bth.rtx || psn != MRC__PSN_INC(old_cack) || mrc_psn_diff(c->cack, old_cack) > 1 ||
        c->sack_pending >= cf->ack.sack_every) {
        mrc__rsp_sack(c, psn, ri->ev, ri->port, ts, m, 0);
    } else if (c->sack_deadline == MRC_TIME_NEVER) {
        c->sack_deadline = mrc__deadline_ctl(now, cf->ack.sack_delay_ns);
    }
    if (cf->ack.tack_every && c->tack_msgs >= cf->ack.tack_every) { /* Q6 SACK frequency: positive transport ACK */
        mrc__rsp_aeth(c, MRC_AETH_ACK, c->msn_done, ri);
        c->tack_msgs = 0;
        MRC__RARE_INC(c->st.tx_tack);
    }
    return MRC_OK;

access_error:
    why = MRC_DROP_ACCESS;
fatal: /* the WIMM overflow's invalid request, or a remote access error (one call for both) */
    if (!cf->guard.hardened) {
        bool w = why == MRC_DROP_WIMM;
        mrc__rsp_fatal(c, w ? MRC_AETH_NAK_INV_REQ : MRC_AETH_NAK_REM_ACCESS, k->meth.msn,
                       w ? MRC_ERR_LOCAL_INVAL : MRC_ERR_LOCAL_ACCESS, ri, now);
    }
    return mrc__drop(ep, c, why, op);
}
/* PROBE_REQ: answered by a SACK with pr = 1 carrying the current cack and the lowest slice with a hole (Q4 SACK bitmap
 * order). */
MRC__PRIVATE int mrc__rsp_on_probe(mrc_conn *c, const mrc_pkt *k, const mrc_rxinfo *ri) {
    if (c->state != MRC_QPS_RTR && c->state != MRC_QPS_RTS) return mrc__drop(c->ep, c, MRC_DROP_STATE, k->bth.opcode);
    if (!mrc__bucket_take(&c->probe_tat, c->ep->now, c->ep->probe_T, c->ep->probe_tau)) /* P19 QP 0x2 and probe trust:
                                                                                           no reflector */
        return mrc__drop(c->ep, c, MRC_DROP_RATE, k->bth.opcode);
    mrc__rsp_sack(c, c->cack, ri->ev, ri->port, k->peth.tx_timestamp,
                  (ri->ecn & 3u) == 3u ? MRC_M_SKIP_ONCE : MRC_M_NONE, 1);
    return MRC_OK;
}
MRC__PRIVATE void mrc__rsp_on_sack_timer(mrc_conn *c) {
    c->sack_deadline = MRC_TIME_NEVER;
    if (c->sack_pending && (c->state == MRC_QPS_RTR || c->state == MRC_QPS_RTS))
        mrc__rsp_sack(c, c->pend_psn, c->pend_ev, c->pend_port, c->pend_ts, MRC_M_NONE, 0);
}

/* ---- posted receives ---------------------------------------------------------------------------------------- */
MRC_API int mrc_conn_post_recv(mrc_conn *c, uint64_t wr_id, mrc_time now) {
    mrc__rqe *q;
    if (!c || !c->ep) return MRC_ERR_INVAL;
    (void)mrc__clock(c->ep, now);
    if (c->state == MRC_QPS_RESET || c->state == MRC_QPS_ERR) return MRC_ERR_STATE;
    if (c->rq_tail - c->rq_head >= MRC_MAX_RQ) return MRC_ERR_FULL;
    q = &c->rq[c->rq_tail & (MRC_MAX_RQ - 1u)];
    q->wr_id = wr_id;
    q->imm = q->len = 0;
    c->rq_tail++;
    mrc__rsp_deliver_imms(c);
    return MRC_OK;
}

/* ---- building a control packet: receiver penalty (Q12), dynamic MPR (Q9), the headers ----------------------- */
/* Receiver penalty (Q12): the host's backpressure (mrc_endpoint_rx_pressure), or tracking pressure: out-of-order
 * PSNs past rx.pen_ooo_pct of the window, rising linearly to 127 when the window is full. Out of line: the SACK fast
 * path calls it only with PSNs out of order. */
MRC__PRIVATE MRC__NOINLINE uint8_t mrc__rsp_penalty(const mrc_conn *c) {
    const mrc_endpoint *ep = c->ep;
    uint32_t pen = ep->rx_pressure, thr;
    if (ep->cfg.rx.pen_ooo_pct) {
        thr = c->rsp_win * ep->cfg.rx.pen_ooo_pct / 100u; /* rsp_win <= 255 x 128 (RTR): no overflow */
        if (c->ooo > thr) pen = MRC__MAX(pen, (uint32_t)MRC__MIN(127u, 127u * (c->ooo - thr) / MRC__MAX(c->rsp_win - thr, 1u)));
    }
    return (uint8_t)pen;
}
/* Dynamic MPR (Q9): mpr_dest, or an equal share of rx.mpr_budget among the QPs receiving in this or the last
 * base-RTT epoch, whichever is smaller, at least 1. The responder keeps accepting its full mpr_dest window, so a
 * shrink never strands PSNs already sent. */
MRC__PRIVATE uint8_t mrc__rsp_mpr(const mrc_conn *c) {
    const mrc_endpoint *ep = c->ep;
    uint32_t n = MRC__MAX(MRC__MAX(ep->rx_cur, ep->rx_prev), 1u), share;
    if (!ep->cfg.rx.mpr_budget) return c->attr.mpr_dest;
    share = MRC__MAX((uint32_t)ep->cfg.rx.mpr_budget / n, 1u);
    return (uint8_t)MRC__MIN(share, (uint32_t)c->attr.mpr_dest);
}
/* Build the next queued control packet. Returns bytes written or 0 when no port is up. */
MRC__STATIC_ASSERT(MRC__FW(8, 4, MRC__NETH_SPDCID, 0xFFFFu) == MRC__FW(8, 4, MRC__SETH_SPDCID, 0xFFFFu) &&
                       MRC__FW(8, 4, MRC__NETH_DPDCID, 0xFFFFu) == MRC__FW(8, 4, MRC__SETH_DPDCID, 0xFFFFu),
                   neth_dcids);
MRC__PRIVATE int mrc__rsp_emit_ctl(mrc_conn *c, uint8_t *buf, mrc_txinfo *ti) {
    mrc_endpoint *ep = c->ep;
    const mrc__ctl *e = &c->ctlq[c->ctlq_head & (MRC_CTLQ_LEN - 1u)];
    uint8_t port = e->port;
    uint16_t rs = MRC__EV_NONE;
    uint32_t op, psn = c->cack; /* the BTH's: a SACK and an AETH carry cack, a NACK its PSN */
    uint8_t *h;
    int n = MRC_BTH_LEN;
    /* P28 mirror reverse path: a profile's QP on the arrival's mirror; else Q19 reverse-path EVs: on the QP's own EVs
     * of the arrival plane, in turn (or another plane's), else echoing the arrival EV on the arrival port, or the
     * lowest port that is up */
    if (ep->cfg.ev.reply != MRC_EV_REPLY_ECHO && (rs = mrc__ev_mirror(c, e->ev, port)) == MRC__EV_NONE)
        rs = mrc__ev_ctl(c, port);
    if (rs == MRC__EV_NONE && !mrc_endpoint_port_up(ep, port)) {
        if (!ep->ports_up) return 0;
        port = (uint8_t)(mrc__ctz64(ep->ports_up) + 1u);
    }
    /* the headers stored straight at their fixed offsets, as mrc_bth_encode and the SETH, CC_STATE, NETH and AETH
     * encoders would store them (buf holds MRC_HDR_MAX; every value fits its field): BTH word 0 from the QP's template,
     * BTH word 1 (DEST_QP) and SETH/NETH word 2 (SPDCID, DPDCID) from the SACK fast path's */
    h = buf + MRC_BTH_LEN;
    if (e->kind == MRC__CTL_SACK) {
        int32_t off = mrc_psn_diff(e->psn, c->cack);
        /* Q4 SACK bitmap order: the 64-PSN slice ending at the highest packet this (coalesced) SACK stands for, from
         * cack + 1 at the earliest; probes: cack + 1 */
        int32_t soff = e->pr ? 1 : mrc__sack_slice(c, e->hi);
        uint64_t bm = mrc__bits64(c->rbits, MRC__RSP_BITS, mrc_psn_add(c->cack, soff));
        uint8_t pen = mrc__rsp_penalty(c);
        op = MRC_OP_SACK;
        mrc__st4(h, MRC__FW(0, 4, MRC__SETH_M, e->m) | MRC__FW(0, 4, MRC__SETH_PR, e->pr) |
                        MRC__FW(0, 4, MRC__SETH_ACK_OFF, (uint16_t)((e->pr || off < -32768 || off > 32767) ? 0 : off)));
        mrc__st4(h + 4, MRC__FW(4, 4, MRC__SETH_ENTROPY, e->ev));
        MRC_MEMCPY(h + 8, &c->tx_sack[2], 4);
        mrc__st4(h + 12, MRC__FW(12, 4, MRC__SETH_CACK, c->cack));
        mrc__st4(h + 16, MRC__FW(16, 4, MRC__SETH_MPR, (c->attr.caps & MRC_CAP_DYNAMIC_MPR) ? mrc__rsp_mpr(c) : 0u) |
                             MRC__FW(16, 4, MRC__SETH_SACK_OFF, (uint16_t)soff)); /* MPR 0: ignore */
        mrc__st8(h + 20, ep->cfg.wire.sack_msb_first ? mrc__rev64(bm) : bm); /* (the option's order: reversed) */
        h += MRC_SETH_LEN;
        mrc__st4(h, MRC__FW(0, 4, MRC__CCS_TS, e->ts) | MRC__FW(0, 4, MRC__CCS_OOO, MRC__MIN(c->ooo, 0x7FFFu)));
        /* R_C: the penalty is over, restore (Q12 receiver penalty) */
        mrc__st4(h + 4, MRC__FW(4, 4, MRC__CCS_R_C, !pen && c->pen_last) | MRC__FW(4, 4, MRC__CCS_PEN, pen) |
                            MRC__FW(4, 4, MRC__CCS_RCVD, (c->rcvd_bytes >> 8) & 0xFFFFFFu));
        c->pen_last = pen;
        if (pen) MRC__RARE_INC(c->st.tx_pen);
        MRC__CNT(c->st.tx_sack++);
        n += MRC_SETH_LEN + MRC_CCSTATE_LEN;
    } else if (e->kind == MRC__CTL_NACK) {
        op = MRC_OP_NACK;
        psn = e->psn;
        mrc__st4(h, MRC__FW(0, 4, MRC__NETH_REASON, e->reason));
        mrc__st4(h + 4, MRC__FW(4, 4, MRC__NETH_ENTROPY, e->ev));
        MRC_MEMCPY(h + 8, &c->tx_sack[2], 4); /* SETH's SPDCID and DPDCID word */
        mrc__st4(h + 12, MRC__FW(12, 4, MRC__NETH_PSN, e->psn));
        mrc__st4(h + 16, MRC__FW(16, 4, MRC__NETH_TS, e->ts));
        n += MRC_NETH_LEN;
    } else {
        op = MRC_OP_ACK;
        mrc__st4(h, MRC__FW(0, 4, MRC__AETH_SYNDROME, e->reason) | MRC__FW(0, 4, MRC__AETH_MSN, e->psn)); /* its MSN */
        n += MRC_AETH_LEN;
    }
    mrc__st4(buf, MRC__FW(0, 4, MRC__BTH_OPCODE, op) | c->tx_bth0);
    MRC_MEMCPY(buf + 4, &c->tx_sack[1], 4);
    mrc__st4(buf + 8, MRC__FW(8, 4, MRC__BTH_PSN, psn));
    MRC_MEMSET(ti, 0, sizeof *ti);
    if (rs != MRC__EV_NONE) {
        mrc__ev_txinfo(c, rs, ti);
    } else {
        ti->port = port;
        ti->ev = e->ev;
        ti->ev_fmt = (uint8_t)(e->ev > 0xFFFFu ? MRC_EV_FMT_STEV : MRC_EV_FMT_UDP);
    }
    ti->dscp_class = MRC_DSCP_CONTROL;
    ti->dscp = ep->cfg.dscp[MRC_DSCP_CONTROL];
    ti->opcode = (uint8_t)op;
    ti->peer = c->attr.peer;
    ti->qpn = c->qpn;
    ti->hdr_len = (uint32_t)n;
    c->ctlq_head++;
    MRC__TRACE(ep, MRC_TRACE_TX, (op << 24) | psn, ti->ev);
    return n;
}
