/* ================================================================================================================
 * INVARIANTS - src/check.c
 * Owns: mrc_conn_check, every structural invariant of a QP (its EV lists and counts, its windows, records, queues
 * and timers) checked in O(size of the QP), and mrc__check_all behind MRC_CHECK_INVARIANTS, which asserts them for
 * every QP at the end of each call into the endpoint loop (tests, fuzzers and the sanitizer builds turn it on).
 * Calls: codec, state, timers, path, path_policy, requester (reads only).
 * ============================================================================================================== */
#include "check.h"
#include "codec.h"
#include "state.h"
#include "timers.h"
#include "path.h"
#include "path_policy.h"
#include "requester.h"

/* ---- invariants (mrc_conn_check; every call checks them with MRC_CHECK_INVARIANTS) ------------------------------ */
#ifdef MRC_NO_CHECK
/* compiled out (a firmware's production build: the checker is for tests and fuzzers) */
MRC_API int mrc_conn_check(const mrc_conn *c) { return c ? MRC_ERR_NOTSUP : MRC_ERR_INVAL; }
#else
/* mrc_conn_check's rules 17 to 23, in its order (out of line: the walks' registers are their own) */
MRC__PRIVATE MRC__NOINLINE int mrc__check_tail(const mrc_conn *c) {
    unsigned i, p;
    /* Rule 17 (P23 EV recycling): each port's recycle FIFO lies in its segment and holds EVs of that port; an EV's
     * valid entries (rc) are some of its entries, and only an ACTIVE EV has any. O(EVs). */
    {
        uint16_t occ[MRC_MAX_EVS];
        MRC_MEMSET(occ, 0, c->ev_count * sizeof occ[0]);
        if (c->seg[MRC_MAX_PORTS] != c->ev_count) return 17; /* the segments end at ev_count */
        for (p = 0; p < MRC_MAX_PORTS; p++) {
            unsigned cap = mrc__ev_seglen(c, p), k;
            if (c->rc_n[p] > cap || (cap ? c->rc_head[p] >= cap : c->rc_head[p] != 0)) return 17;
            for (k = 0; k < c->rc_n[p]; k++) {
                unsigned pos = (unsigned)c->rc_head[p] + k, sl;
                sl = c->rc_ring[c->seg[p] + (pos >= cap ? pos - cap : pos)];
                if (sl >= c->ev_count || c->evs[sl].port != p + 1u) return 17;
                occ[sl]++;
            }
        }
        for (i = 0; i < c->ev_count; i++)
            if (c->evs[i].rc > occ[i] || (c->evs[i].rc && MRC__EVST(&c->evs[i]) != MRC__EVS_ACTIVE)) return 17;
    }
    /* Rule 18 (P26 hop groups): the hop groups of the QP's profile stay inside its EV set: an EV's ring successor is
     * one of the QP's slots, of the same (non-zero) group; an EV without a successor has no group. Rule 20 (P28 mirror
     * reverse path): the profile's entropy index finds every populated EV of the QP, so a control packet can leave on
     * the arrival's mirror. O(n). */
    if (c->ep && c->ev_prof) {
        const mrc__evprof *pf = mrc__conn_prof(c);
        for (i = 0; i < c->ev_count; i++) {
            unsigned nx = pf->ev[i].grp_nx;
            if (nx ? nx > c->ev_count || !pf->ev[i].group || pf->ev[nx - 1u].group != pf->ev[i].group
                   : pf->ev[i].group != 0)
                return 18;
            if (pf->ev[i].port && mrc__prof_lookup(pf, pf->ev[i].entropy, pf->ev[i].port) < 0) return 20;
        }
    }
    /* Rule 19: the proven EV (P25 hashed-EV bypass knobs) is none or one of the QP's EVs (a retransmission may be sent
     * on it) */
    if (c->ev_proven != MRC__EV_NONE && c->ev_count && c->ev_proven >= c->ev_count) return 19;
    /* Rule 22 (P33 TLP copies): the other copy of the tail-loss probe is awaited only with the probe, on one of the
     * QP's EVs */
    if ((c->tlp2 & MRC__TLP2_OUT) && (c->probes[0].kind != MRC__PROBE_TLP || c->tlp2_slot >= c->ev_count)) return 22;
    /* Rule 23 (P35 sweeps): the verification queue and probes */
    if (c->ver_n > c->ev_count || (c->ev_count ? c->ver_head >= c->ev_count : c->ver_head != 0)) return 23;
    for (i = 0; i < c->ev_count; i++) { /* the queue's entries (ver_n <= ev_count, above), and each EV's probe */
        unsigned k;
        if (i < c->ver_n && c->ver_ring[mrc__ev_ver_pos(c, i)] >= c->ev_count) return 23;
        if (!(c->evs[i].st & MRC__EVF_VPROBE)) continue;
        if (!mrc__ev_is_ver(&c->evs[i])) return 23;
        for (k = 1; k < MRC_MAX_PROBES && !(c->probes[k].kind == MRC__PROBE_VER && c->probes[k].slot == i); k++) {
        }
        if (k == MRC_MAX_PROBES) return 23; /* named by none (an older probe of an earlier hold may name it too: either
                                               answer proves the path) */
    }
    for (i = 1; i < MRC_MAX_PROBES; i++) {
        if (c->probes[i].kind != MRC__PROBE_VER) continue;
        if (c->probes[i].slot >= c->ev_count) return 23;
        if (!((c->probes_due >> i) & 1u) && MRC__NEVER(c->ver_deadline)) return 23;
    }
    return 0;
}
/* Every EV slot is in exactly the place its state says, and the per-port counts match; then the rules below and
 * mrc__check_tail's. O(n). */
MRC_API int mrc_conn_check(const mrc_conn *c) {
    unsigned i, p, nb = 0, seen_bad = 0, bk;
    uint16_t s;
    if (!c) return MRC_ERR_INVAL;
    for (p = 0; p < MRC_MAX_PORTS; p++) {
        if ((unsigned)c->n_act[p] + c->n_skip[p] > c->ev_count || c->act_pos[p] > c->n_act[p]) return 1;
        for (i = 0; i < (unsigned)c->n_act[p] + c->n_skip[p]; i++) {
            const mrc__ev *e = &c->evs[c->ring[c->seg[p] + i]];
            if (e->port != p + 1u || e->at != i) return 2;
            if (MRC__EVST(e) != (i < c->n_act[p] ? MRC__EVS_ACTIVE : MRC__EVS_SKIP)) return 3;
        }
        for (bk = 0, s = c->bk_head[p]; s != MRC__EV_NONE; s = c->evs[s].at) {
            if (MRC__EVST(&c->evs[s]) != MRC__EVS_BACKUP || c->evs[s].port != p + 1u || ++bk > c->ev_count) return 4;
        }
        if (bk != c->bk_n[p]) return 5;
    }
    for (s = c->bad_head; s != MRC__EV_NONE; s = c->evs[s].at) {
        if (MRC__EVST(&c->evs[s]) != MRC__EVS_BAD || ++seen_bad > c->ev_count) return 6;
        if (c->evs[s].at == MRC__EV_NONE && s != c->bad_tail) return 7;
    }
    if (seen_bad != c->n_bad) return 8;
    for (i = 0; i < c->ev_count; i++) {
        unsigned st = MRC__EVST(&c->evs[i]);
        if (st == MRC__EVS_BAD) nb++;
        if (st > MRC__EVS_OFF) return 9;
        /* Rule 21 (P29 suspect hold): a hold is a skipped EV's, and bounded (it rejoins within MRC__SUS_ROUNDS rounds)
         * */
        if ((c->evs[i].hold > MRC__SUS_ROUNDS && c->evs[i].hold != MRC__HOLD_VER) ||
            (c->evs[i].hold && st != MRC__EVS_SKIP))
            return 21;
    }
    if (nb != c->n_bad) return 10;
    /* Liveness (docs/PROTOCOL.md 7.11): a QP in RTS with work (writes not complete, PSNs in flight) is never silent.
     * It has a packet ready (in the endpoint's transmit round-robin), or it waits on its context's READY list for
     * bytes in flight to be acknowledged, or for the context's pacing clock, whose deadline a QP on that list holds
     * (P24 sub-packet windows: mrc__cc_wake stops at the first QP the clock holds, and its deadline wakes the list), or
     * one of its timers is armed. The walk is O(QPs on the list), here only. */
    if (c->state == MRC_QPS_RTS && c->ep && mrc__req_has_work(c) && !c->in_txq && MRC__NEVER(c->deadline) &&
        !c->in_poolq) {
        const mrc__ccx *x = c->ccx == MRC__EV_NONE ? (const mrc__ccx *)0 : &c->ep->ccx[c->ccx];
        if (!c->in_ready || !x) return 11;
        if (!x->inflight) {
            unsigned k = x->ready_head, n;
            const mrc_conn *r = (const mrc_conn *)0;
            for (n = 0; k < MRC_MAX_CONNS && n < MRC_MAX_CONNS; k = r->ready_next, n++) {
                r = c->ep->conns[k];
                if (!r || !MRC__NEVER(r->pace_deadline)) break;
            }
            if (k >= MRC_MAX_CONNS || n == MRC_MAX_CONNS || !r) return 11;
        }
    }
    /* ... and one waiting for pool memory waits only while no block is free or retained: a block freed or retained
     * goes to a waiter */
    if (c->in_poolq && c->state == MRC_QPS_RTS && c->ep && (c->ep->pool_nfree || c->ep->pool_nret)) return 12;
    /* the requester's memory: every PSN of [win_base, snd_nxt) has its block (O(window / 64)); each listed record is
     * one of those, on one list */
    if (c->state == MRC_QPS_RTS && c->ep) {
        uint32_t w = (uint32_t)mrc_psn_diff(c->snd_nxt, c->win_base), k;
        for (k = 0; k < w; k = (k | (MRC__BLK_PSNS - 1u)) + 1u) {
            /* live: a retained block holds acknowledged PSNs only */
            mrc__blkidx b = c->btab[MRC__BTAB_IDX((c->win_base + k) & MRC_PSN_MASK)];
            if (!b || mrc__pool_ret(c->ep, b - 1u)) return 13;
        }
        if (c->rtxq.n + c->txl.n > w) return 14;
        /* Rule 25: txl_lo is at most the transmit list head's transmission count (the fast paths' span test) */
        if (c->txl.n && (uint32_t)(c->tx_count - c->txl_lo) <
                            (uint32_t)(mrc__txseq)(c->tx_count - MRC__REC(c, c->txl.head)->txseq))
            return 25;
        /* Rule 24: a PSN not acknowledged yet has MRC__PR_FULL exactly when it is not its message's last (the SACK
         * paths take its nominal size from the flag). O(window) */
        for (k = 0; k < w; k++) {
            const uint32_t psn = (c->win_base + k) & MRC_PSN_MASK;
            const mrc__pblk *pb = mrc__blk(c, psn);
            const mrc__psnrec *r = &pb->rec[psn & (MRC__BLK_PSNS - 1u)];
            const mrc__wr *wr = &c->sq[r->wr];
            if ((pb->acked >> (psn & 63u)) & 1u) continue;
            if (!(r->flags & MRC__PR_FULL) != !(((psn - wr->first_psn) & MRC_PSN_MASK) + 1u < mrc__wr_npkts(c, wr)))
                return 24;
        }
    }
    /* Rule 15: each block in the table is this QP's, at that entry; a retained one is linked in the endpoint's FIFO
     * of retained blocks (its neighbours point back at it). O(window / 64). */
    if (c->ep) {
        const mrc_endpoint *ep = c->ep;
        const mrc__pblk *pool = ep->pool; /* (its address in one register) */
        uint32_t t;
        for (t = 0; t < MRC__BTAB_LEN; t++) {
            const mrc__pblk *b;
            uint32_t i1 = c->btab[t];
            if (!i1) continue;
            if (i1 > ep->pool_hw) return 15;
            b = &pool[i1 - 1u];
            if (b->owner != c->slot || MRC__PBLK_TAB(b) != t) return 15;
            if (mrc__pool_ret(ep, i1 - 1u) && ((b->prev ? pool[b->prev - 1u].next : ep->ret_head) != i1 ||
                                (b->next ? pool[b->next - 1u].prev : ep->ret_tail) != i1))
                return 15;
        }
    }
    /* Rule 16: the QP's timer-heap key is at most the earliest of its timers (docs/PROTOCOL.md P36 lazy deadlines),
     * it is in the heap exactly when the key is finite, and in it whenever a timer is armed; t_armed says whether one
     * is (and is counted in ep->armed) */
    if (c->ep) {
        mrc_time d = mrc__timers_min(c);
        if (d < c->deadline || MRC__NEVER(c->deadline) != (c->heap_idx == MRC__NOHEAP)) return 16;
        if (!MRC__NEVER(d) != (c->t_armed != 0) || (c->t_armed && !c->ep->armed)) return 16;
        if (c->heap_idx != MRC__NOHEAP && (c->heap_idx >= c->ep->heap_len || c->ep->heap[c->heap_idx] != c->slot))
            return 16;
    }
    return mrc__check_tail(c);
}
#endif /* MRC_NO_CHECK */
#ifdef MRC_CHECK_INVARIANTS
MRC__PRIVATE void mrc__check_all(const mrc_endpoint *ep) {
    unsigned i;
    for (i = 0; i < MRC_MAX_CONNS; i++) MRC_ASSERT(!ep->conns[i] || mrc_conn_check(ep->conns[i]) == 0);
}
#endif
