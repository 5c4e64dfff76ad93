/* ================================================================================================================
 * TIMERS - src/timers.c
 * Owns: every deadline of a QP and the endpoint's heap of QPs keyed by a lower bound of their earliest one
 * (mrc_endpoint_next_deadline reads its top in O(1); a deadline that moves later costs nothing, one that moves earlier
 * a sift up, and on_timeout re-keys exactly: P36 lazy deadlines), and the requester's
 * retransmission timers: the RTO with linear then exponential back-off (Q25 retry budget), the tail-loss probe and the
 * reorder deadline (P32 reorder timer, the reorder tolerance). What a timer does when it fires belongs to its owner
 * (requester, responder, paths, congestion control, endpoint operations); src/endpoint.c dispatches the expiries.
 * Calls: state.
 * ============================================================================================================== */
#include "timers.h"
#include "state.h"

/* ---- the heap: QP slots ordered by conn->deadline; heap_idx is a QP's position, MRC__NOHEAP when absent ----- */
MRC__PRIVATE mrc_time mrc__hkey(const mrc_endpoint *ep, uint32_t i) { return ep->conns[ep->heap[i]]->deadline; }
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__hset(mrc_endpoint *ep, uint32_t i, uint16_t slot) {
    ep->heap[i] = slot;
    ep->conns[slot]->heap_idx = (uint16_t)i;
}
MRC__PRIVATE void mrc__heap_fix(mrc_endpoint *ep, uint32_t i) {
    uint16_t s = ep->heap[i];
    mrc_time k = ep->conns[s]->deadline;
    while (i > 0 && mrc__hkey(ep, (i - 1) / 2) > k) { /* sift up */
        mrc__hset(ep, i, ep->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) { /* sift down */
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        mrc_time mk = k;
        if (l < ep->heap_len && mrc__hkey(ep, l) < mk) { m = l; mk = mrc__hkey(ep, l); }
        if (r < ep->heap_len && mrc__hkey(ep, r) < mk) m = r;
        if (m == i) break;
        mrc__hset(ep, i, ep->heap[m]);
        i = m;
    }
    mrc__hset(ep, i, s);
}
MRC__PRIVATE void mrc__heap_remove(mrc_endpoint *ep, mrc_conn *c) {
    uint32_t i = c->heap_idx;
    if (i == MRC__NOHEAP) return;
    c->heap_idx = MRC__NOHEAP;
    ep->heap_len--;
    if (i != ep->heap_len) {
        mrc__hset(ep, i, ep->heap[ep->heap_len]);
        mrc__heap_fix(ep, i);
    }
}
/* The earliest of a conn's timers: its heap key (mrc_conn_check rule 16). */
MRC__PRIVATE MRC__SIZE_NOINLINE mrc_time mrc__timers_min(const mrc_conn *c) {
    mrc_time d = MRC__MIN(MRC__MIN(c->rto_deadline, c->tlp_deadline), MRC__MIN(c->sack_deadline, c->evp_deadline));
    return MRC__MIN(MRC__MIN(MRC__MIN(d, c->reo_deadline), MRC__MIN(c->nopath_deadline, c->pace_deadline)),
                    c->ver_deadline);
}
/* docs/PROTOCOL.md P36 lazy deadlines: a QP's heap key (conn->deadline) is a lower bound of its timers, not always
 * the earliest. A timer that moves later - the RTO and the tail-loss probe after every packet sent or acknowledged,
 * the common case - leaves the key where it is: O(1), no re-sift. A timer that moves earlier lowers the key (sift up;
 * a QP enters the heap when it gets its first finite timer). When the key is reached, mrc_endpoint_on_timeout finds
 * what is due (possibly nothing) and re-keys the QP exactly (mrc__timer_rekey), so a QP whose timers keep moving
 * later costs one early wake-up per timer interval instead of a re-sift per packet. A QP left with no timer at all
 * stays in the heap too (its key is reached once, then it leaves): ep->armed counts the QPs with a timer armed, and
 * with none mrc_endpoint_next_deadline is MRC_TIME_NEVER, as for an idle endpoint. */
/* whether the QP has a timer armed, counted in ep->armed */
MRC__PRIVATE MRC__INLINE void mrc__timer_armed(mrc_conn *c, mrc_time d) {
    uint8_t a = d != MRC_TIME_NEVER;
    if (a != c->t_armed) {
        c->t_armed = a;
        if (a) c->ep->armed++;
        else c->ep->armed--;
    }
}
/* Key the QP at d (finite): into the heap if it is not there, then to its place. O(log conns). Out of line: gcc -Os
 * wrote it into both its callers, and a key that moves earlier is the rare case of each (P36 lazy deadlines). */
MRC__PRIVATE MRC__NOINLINE void mrc__heap_key(mrc_endpoint *ep, mrc_conn *c, mrc_time d) {
    c->deadline = d;
    if (c->heap_idx == MRC__NOHEAP) {
        c->heap_idx = ep->heap_len;
        ep->heap[ep->heap_len++] = c->slot;
    }
    /* alone in the heap, mrc__heap_fix would move nothing and rewrite the position it has */
    if (ep->heap_len > 1u) mrc__heap_fix(ep, c->heap_idx);
}
MRC__PRIVATE void mrc__timer_update(mrc_conn *c) {
    mrc_time d = mrc__timers_min(c);
    mrc__timer_armed(c, d);
    if (d < c->deadline) mrc__heap_key(c->ep, c, d); /* later, the same, or none: the key stays (P36) */
}
/* The key made exact again: the earliest of the timers, out of the heap when none is armed. O(log conns). The armed
 * count and a key that must move earlier as mrc__timer_update does them (then the key is exact, and in the heap); the
 * earliest timer read again after it (it changes none), a second time on this cold path rather than a copy of it. */
MRC__PRIVATE void mrc__timer_rekey(mrc_conn *c) {
    mrc_time d;
    mrc__timer_update(c);
    d = mrc__timers_min(c);
    if (d == c->deadline && (d == MRC_TIME_NEVER) == (c->heap_idx == MRC__NOHEAP)) return;
    if (d == MRC_TIME_NEVER) {
        c->deadline = d;
        mrc__heap_remove(c->ep, c);
    } else {
        mrc__heap_key(c->ep, c, d);
    }
}

/* ---- the requester's timers: RTO, tail-loss probe, reorder deadline ----------------------------------------- */
/* ACK timeout (docs/PROTOCOL.md P5 RTO schedule): T = 1.024 us * 2^timeout. The wait before expiry n is T while
 * n <= retry_linear + 1 and doubles after each exponential retry, capped at 2^24 * 1.024 us. */
MRC__PRIVATE mrc_time mrc__rto_interval(const mrc_conn *c, uint32_t retries) {
    const mrc_time cap = (mrc_time)1024u << 24;
    mrc_time t;
    uint32_t e;
    if (c->attr.timeout == 0) return MRC_TIME_NEVER; /* IBTA: 0 = infinite */
    t = (mrc_time)1024u << c->attr.timeout;
    if (retries > c->attr.retry_linear)
        for (e = retries - c->attr.retry_linear; e && t < cap; e--) t <<= 1;
    return MRC__MIN(t, cap);
}
/* The TLP's deadline: its interval (backed off by tlp_count) after tlp_base. Out of line: the fast paths keep the TLP
 * (mrc__req_tlp_keeps) or compute it in line (mrc__req_timers_arm) */
MRC__PRIVATE MRC__NOINLINE mrc_time mrc__tlp_at(const mrc_conn *c) {
    mrc_time t = MRC__MAX((mrc_time)c->ep->cfg.recovery.tlp_min_ns, 2u * c->srtt);
    t = MRC__MAX(t, (mrc_time)1000u);
    return MRC__DEADLINE_SZ(c->tlp_base, t << MRC__MIN(c->tlp_count, 10u));
}
/* Reordering tolerance (Q5 reordering slack): a configured value, or the base s = max(floor, min RTT / 4) times a
 * multiplier that grows by one, at most once per smoothed RTT, each time an earlier transmission of a retransmitted
 * PSN is SACKed (the retransmission was spurious), while s times it is below the smoothed RTT (RACK's bound, RFC 8985
 * 6.2: a fabric whose planes' queues differ by more than 4 minimum RTTs reorders by more than a fixed 16 x s), and
 * shrinks by one after 16 smoothed RTTs without growing. At most the smoothed RTT. */
MRC__PRIVATE MRC__INLINE mrc_time mrc__slack_base(const mrc_conn *c) {
    const mrc_config *cf = &c->ep->cfg;
    mrc_time s = (c->rtt_min == MRC_TIME_NEVER ? (mrc_time)cf->recovery.rtt_init_ns : c->rtt_min) >> 2;
    return MRC__MAX(s, (mrc_time)cf->recovery.reorder_slack_min_ns);
}
MRC__PRIVATE mrc_time mrc__slack(mrc_conn *c) {
    const mrc_config *cf = &c->ep->cfg;
    mrc_time s;
    if (cf->recovery.reorder_slack_ns) return cf->recovery.reorder_slack_ns;
    if (c->reo_mult > 1 && c->ep->now - c->reo_last > 16u * c->srtt) {
        c->reo_mult--;
        c->reo_last = c->ep->now;
    }
    s = mrc__slack_base(c);
    return MRC__MAX(MRC__MIN(s * c->reo_mult, c->srtt), s);
}
MRC__PRIVATE void mrc__reo_widen(mrc_conn *c, mrc_time now) {
    MRC__CNT(c->st.rtx_spurious++);
    if (c->reo_mult < 255u && now - c->reo_last >= c->srtt && mrc__slack_base(c) * c->reo_mult < c->srtt) {
        c->reo_mult++;
        c->reo_last = now;
    }
}
/* P32 reorder timer, the reorder timer (RACK's, RFC 8985 6.2): the time rule above declares a record lost only when a
 * SACK shows that a transmission sent slack later arrived, so a hole among the last packets sent - nothing that late
 * left to arrive - waited for the tail-loss probe (2 srtt from the last progress) or the RTO. Once any later
 * transmission is known to have arrived, the oldest record in flight is lost at its send time + the RTT that
 * transmission took + the slack x the P32 reorder timer (research.reorder_timer) / 4. O(1): the head of the transmit list; re-armed with the RTO and TLP
 * except after a transmission (mrc__req_timers_x), which only appends to the list. */
MRC__PRIVATE MRC__SIZE_NOINLINE mrc_time mrc__reo_at(const mrc_conn *c, mrc_time sent, mrc_time slack) {
    return sent + c->lat_acked_rtt + ((slack * MRC__MIN(MRC__KNOB(c->ep, reorder_timer), 64u)) >> 2);
}
MRC__PRIVATE mrc_time mrc__reo_due(mrc_conn *c) {
    mrc_time sent;
    if (MRC__KNOB(c->ep, reorder_timer) == 0u || !c->txl.n) return MRC_TIME_NEVER;
    sent = MRC__REC_SENT(c, c->txl.head);
    if (sent >= c->lat_acked_sent) return MRC_TIME_NEVER; /* nothing later is known to have arrived: the TLP's case */
    return mrc__reo_at(c, sent, mrc__slack(c));
}
MRC__PRIVATE MRC__INLINE mrc_time mrc__reo_deadline(mrc_conn *c) { /* as a deadline: in the future */
    mrc_time d = mrc__reo_due(c);
    return d == MRC_TIME_NEVER ? d : MRC__MAX(d, c->ep->now + 1u);
}
/* P36 lazy deadlines, the TLP after a transmission: a transmission sets tlp_base to now and changes nothing else the
 * TLP deadline depends on (the smoothed RTT, tlp_count and the probe bit are each followed by an exact re-arm where
 * they change), so the deadline only moves later - and stays where it is, a lower bound of the real one: the QP's heap
 * key, at most the old deadline, still bounds it, and mrc_endpoint_on_timeout makes it exact (mrc__req_tlp_exact)
 * before it tests it, so the TLP fires when it would have. Not when the TLP is not armed, nor when tlp_base may be
 * ahead of the clock (tlp_ahead: then the transmission moves it back, and the deadline with it). The RTO armed stays
 * too: rto_start and the retries do not change with a transmission. */
MRC__PRIVATE MRC__INLINE bool mrc__req_tlp_keeps(const mrc_conn *c) {
    return c->rto_deadline != MRC_TIME_NEVER && c->tlp_deadline != MRC_TIME_NEVER && !(c->probes_due & 1u) &&
           !c->tlp_ahead;
}
/* The TLP deadline made exact (mrc_endpoint_on_timeout, before it tests the QP's timers): what the last re-arm would
 * have set had it not kept the old one (mrc__req_tlp_keeps) */
MRC__PRIVATE void mrc__req_tlp_exact(mrc_conn *c) {
    if (c->tlp_deadline != MRC_TIME_NEVER) c->tlp_deadline = mrc__tlp_at(c);
}
/* Re-arm the requester's timers, how: MRC__TM_ALL the RTO, the TLP and the reorder deadline; MRC__TM_SACK the RTO and
 * the TLP (a SACK's handler whose loss detection set the reorder deadline); MRC__TM_TX after a transmission, which
 * only appends to the transmit list (its head and the latest acknowledged send time stay, so the reorder deadline
 * does) and leaves the RTO and the TLP where they are when it may (mrc__req_tlp_keeps). */
MRC__PRIVATE void mrc__req_timers_x(mrc_conn *c, unsigned how) {
    /* armed while any PSN is not cumulatively acknowledged: a peer whose cumulative point lags PSNs its bitmaps
     * acknowledged pins the window (snd_una == snd_nxt, win_base behind), and that wait must not be silent (7.11) */
    if (c->state != MRC_QPS_RTS || c->win_base == c->snd_nxt) {
        c->rto_deadline = c->tlp_deadline = c->reo_deadline = MRC_TIME_NEVER;
        c->retries = c->retry_spent = 0;
        c->rto_heard = 0;
        c->tlp_count = 0;
        c->probes[0].kind = MRC__PROBE_FREE; /* no tail to probe */
        c->probes_due &= ~1u;
        c->tlp2 = 0;
    } else if (how != MRC__TM_TX || !mrc__req_tlp_keeps(c)) {
        mrc_time r = mrc__rto_interval(c, MRC__MIN(c->retries, (uint32_t)c->attr.retry_linear + c->attr.retry_exp));
        c->rto_deadline = MRC__DEADLINE_SZ(c->rto_start, r);
        c->tlp_deadline = (c->probes_due & 1u) ? MRC_TIME_NEVER : mrc__tlp_at(c);
        if (how == MRC__TM_ALL) c->reo_deadline = mrc__reo_deadline(c);
        else if (how == MRC__TM_TX && c->tlp_base <= c->ep->now) c->tlp_ahead = 0;
    }
    mrc__timer_update(c);
}
MRC__PRIVATE void mrc__req_timers(mrc_conn *c) { mrc__req_timers_x(c, MRC__TM_ALL); }
#if MRC_FAST_PATH
/* mrc__req_timers' arming branch (RTS, a PSN in flight), then mrc__timer_update, for the fast paths (P22): after a
 * transmission that may not leave the timers (mrc__req_timers_tx) and after progress (the SACK fast path and P37's
 * deferred re-arm: retries and tlp_count 0, rto_start and tlp_base now). The RTO after `retries` expiries from
 * rto_start and the TLP after `tlp_count` from tlp_base (mrc__rto_interval's linear part and mrc__tlp_at in
 * line). The reorder deadline is left as it is: after a transmission it stands (mrc__req_timers_x), and the SACK fast
 * path sets it in its loss loop. The key moves only when one of them is now earlier than it (P36 lazy deadlines). */
MRC__PRIVATE MRC__INLINE void mrc__req_timers_arm(mrc_conn *c, uint32_t retries, uint32_t tlp_count,
                                                  mrc_time rto_start, mrc_time tlp_base) {
    mrc_time rto, tlp, d;
    if (!retries && c->attr.timeout && c->attr.timeout <= 24u) /* mrc__rto_interval(c, 0), under its cap */
        rto = (mrc_time)1024u << c->attr.timeout;
    else
        rto = mrc__rto_interval(c, MRC__MIN(retries, (uint32_t)c->attr.retry_linear + c->attr.retry_exp));
    c->rto_deadline = mrc__deadline_add(rto_start, rto);
    tlp = MRC__MAX(MRC__MAX((mrc_time)c->ep->cfg.recovery.tlp_min_ns, 2u * c->srtt), (mrc_time)1000u);
    c->tlp_deadline =
        (c->probes_due & 1u) ? MRC_TIME_NEVER : mrc__deadline_add(tlp_base, tlp << MRC__MIN(tlp_count, 10u));
    /* P36 lazy deadlines: the other timers did not move (the SACK fast path sets the reorder deadline just before),
     * so a key at or below these three still bounds them all */
    d = MRC__MIN(MRC__MIN(c->rto_deadline, c->tlp_deadline), c->reo_deadline);
    if (d < c->deadline || !c->t_armed) mrc__timer_update(c);
}
/* mrc__req_timers_tx's arming branch (MRC__SIZE_COLD: a stream of packets keeps its RTO and TLP armed) */
MRC__PRIVATE MRC__SIZE_COLD void mrc__req_timers_tx_arm(mrc_conn *c, mrc_time now) {
    if (c->rto_deadline == MRC_TIME_NEVER) c->rto_start = now;
    mrc__req_timers_arm(c, c->retries, c->tlp_count, c->rto_start, now); /* that arming branch: no probe is due */
    c->tlp_ahead = 0; /* as there: tlp_base is now */
}
/* After the transmit fast path's new PSN (no probe due): mrc__req_timers_x(c, MRC__TM_TX) - nothing where the RTO
 * and the TLP armed stay (mrc__req_tlp_keeps: nothing moves, the key stays); else mrc__req_emit_data's start of the RTO
 * (rto_start is now unless the RTO is armed) and the arming branch in line (a QP with one packet in flight at a time
 * takes it on every packet: its window empties with each SACK) */
MRC__PRIVATE MRC__INLINE void mrc__req_timers_tx(mrc_conn *c, mrc_time now) {
    /* mrc__req_tlp_keeps less its probe test: no probe is due */
    if (c->rto_deadline != MRC_TIME_NEVER && c->tlp_deadline != MRC_TIME_NEVER && !c->tlp_ahead) return;
    mrc__req_timers_tx_arm(c, now);
}
#endif
