/* ================================================================================================================
 * EV POLICIES - src/path_policy.c
 * Owns: the decisions about paths, over the mechanism of src/path.c: which EV carries the next packet (the plane's
 * rotation, good EVs recycled first: P23 EV recycling), what an acknowledgement, a trim or a loss does to the EV it
 * names (a skip, a hold awaiting the loss's verdict: P27 late-SACK verdict, P29 suspect hold; demotion to ASSUMED_BAD;
 * revival), the sweep of a plane after a confirmed silent loss and the verification of the EVs it holds (P35 sweeps),
 * and the rounds of probes that bring ASSUMED_BAD EVs back (Q8 EV health timers). The knobs these read are mrc_config's
 * EV policy fields.
 * Calls: state, path.
 * ============================================================================================================== */
#include "path_policy.h"
#include "state.h"
#include "path.h"

/* ---- recycling of good EVs (docs/PROTOCOL.md P23 EV recycling) ------------------------------------------------------
 * Owns each port's FIFO of clean returns: an ACTIVE EV whose packet a SACK named without CE (m = MRC_M_NONE, the
 * SACK's entropy being the EV's) is queued once per such SACK, and the port's next packet takes the oldest queued
 * EV before its rotation moves on (REPS-like: good paths are reused, the rotation explores). A recycled EV that had
 * not had its turn in the rotation's round has it now (it moves to the used part), so the rotation's next EVs are
 * ones that have carried nothing this round: exploration does not pile more packets on an EV that recycling
 * already reuses (measured: less concentration, fewer trims on a fully loaded 2-tier Clos). An EV's rc counts its
 * entries that are still valid; leaving the rotation (skip, demotion) zeroes it, so entries queued before are
 * stale and dropped when they reach the head - an EV is never recycled after a CE echo, a trim or a loss until a
 * new clean return. A FIFO holds at most its port's slot count; a return that finds it full is not queued.
 * Rebuilds and ERR empty every FIFO. Queueing O(1); taking amortised O(1) (each stale entry is dropped once). */
MRC__PRIVATE MRC__INLINE unsigned mrc__ev_seglen(const mrc_conn *c, unsigned p) {
    return (unsigned)c->seg[p + 1u] - c->seg[p];
}
MRC__PRIVATE MRC__INLINE void mrc__ev_rc_push(mrc_conn *c, unsigned slot) {
    mrc__ev *e = &c->evs[slot];
    unsigned p, cap, n, pos;
    if (MRC__EVST(e) != MRC__EVS_ACTIVE || e->rc == 0xFFu || !mrc__ev_in_scope(c, c->ep->cfg.ev.recycle)) return;
    p = e->port - 1u; /* the port's FIFO, if not full */
    cap = mrc__ev_seglen(c, p);
    n = c->rc_n[p];
    if (n >= cap) return;
    pos = (unsigned)c->rc_head[p] + n;
    c->rc_ring[c->seg[p] + (pos >= cap ? pos - cap : pos)] = (mrc__evslot)slot;
    c->rc_n[p] = (uint16_t)(n + 1u);
    e->rc++;
}
/* The oldest valid entry of port p's FIFO, taken (and its turn of the round, if still pending); -1 when none, or
 * when it is 'avoid' (it stays queued: the rotation serves this packet). */
MRC__PRIVATE MRC__INLINE int mrc__ev_rc_pop(mrc_conn *c, unsigned p, int avoid) {
    unsigned cap = mrc__ev_seglen(c, p);
    while (c->rc_n[p]) {
        unsigned s = c->rc_ring[c->seg[p] + c->rc_head[p]];
        if (c->evs[s].rc && (int)s == avoid) return -1;
        c->rc_head[p] = (uint16_t)(c->rc_head[p] + 1u == cap ? 0u : c->rc_head[p] + 1u);
        c->rc_n[p]--;
        if (c->evs[s].rc) {
            c->evs[s].rc--;
            if (c->evs[s].at >= c->act_pos[p]) { /* this is its turn of the round: the rotation explores the rest */
                mrc__evr_swap(c, p, c->evs[s].at, c->act_pos[p]);
                c->act_pos[p]++;
            }
            return (int)s;
        }
    }
    return -1;
}
/* The EV for the next packet. Planes take turns, so each usable plane carries an equal share whatever the number
 * of EVs it has left (docs/PROTOCOL.md 7.3: planes stay balanced); within a plane its oldest recycled EV (P23 EV
 * recycling), else the next EV of its rotation. Never 'avoid' (the EV a retransmitted PSN last went on) unless it is
 * the only one. -1 when no EV can carry data.
 * O(MRC_MAX_PORTS) worst case, O(1) in the window and the EV set; a round's reshuffle is O(1) amortised. */
MRC__PRIVATE int mrc__ev_pick(mrc_conn *c, int avoid) {
    unsigned tries, np = c->ep->cfg.num_ports;
    for (tries = 0; tries < np; tries++) {
        unsigned p = c->plane_rr;
        uint16_t s;
        int r;
        c->plane_rr = (uint8_t)(p + 1u == np ? 0u : p + 1u);
        if (!c->n_act[p] && !c->n_skip[p]) continue;
        if (c->rc_n[p] && (r = mrc__ev_rc_pop(c, p, avoid)) >= 0) return r;
        if (c->act_pos[p] >= c->n_act[p]) mrc__ev_new_round(c, p);
        s = mrc__evr_at(c, p, c->act_pos[p]);
        if ((int)s == avoid) {
            if (c->n_act[p] < 2) continue; /* another plane, then */
            mrc__evr_swap(c, p, c->act_pos[p], c->act_pos[p] + 1u < c->n_act[p] ? c->act_pos[p] + 1u : 0u);
            s = mrc__evr_at(c, p, c->act_pos[p]);
        }
        c->act_pos[p]++;
        return (int)s;
    }
    if (avoid >= 0 && avoid < (int)c->ev_count && MRC__EVST(&c->evs[avoid]) <= MRC__EVS_SKIP) return avoid;
    return -1;
}

/* ---- skips and holds: an EV that may have lost a packet sits out (P27 late-SACK verdict, P29 suspect hold) --- */
/* SKIP_ONCE echo or fabric trim: the EV misses its next turn. */
MRC__PRIVATE void mrc__ev_skip(mrc_conn *c, uint16_t slot) {
    mrc__ev *e = &c->evs[slot];
    unsigned p = e->port - 1u;
    bool used;
    if (MRC__EVST(e) != MRC__EVS_ACTIVE) return;
    used = e->at < c->act_pos[p];
    mrc__evr_del(c, slot);
    mrc__evr_put(c, p, (unsigned)c->n_act[p] + c->n_skip[p], slot);
    c->n_skip[p]++;
    e->st = (uint8_t)(MRC__EVS_SKIP | (used ? MRC__EVF_SKIP2 : 0u));
    e->hold = 0;
    MRC__EV_COUNT(c->st.ev_skipped);
}
/* P29 suspect hold: a silent loss on the EV awaits its verdict (7.4), so the EV is likely dead: it sits out of its
 * plane's rotation (SKIP, with a hold) until the verdict - a confirmed loss demotes it, a spurious one puts it straight
 * back - or, if no verdict comes, for MRC__SUS_ROUNDS (8) rounds of its plane. It keeps every other role of a good EV
 * (the floor counts it, a SACK may still name it); if every EV of the plane sits out, all rejoin (mrc__ev_new_round),
 * so a hold never starves a plane. O(1). */
MRC__PRIVATE void mrc__ev_hold(mrc_conn *c, unsigned slot) {
    mrc__ev *e = &c->evs[slot];
    unsigned p = e->port - 1u;
    if (e->hold == MRC__HOLD_VER) return; /* P35 sweeps holds it until verified */
    if (!mrc__ev_in_scope(c, c->ep->cfg.ev.hold) ||
        (unsigned)c->n_act[p] + c->n_skip[p] < MRC__KNOB(c->ep, hold_min_evs))
        return;
    if (MRC__EVST(e) == MRC__EVS_ACTIVE) {
        mrc__ev_skip(c, (uint16_t)slot);
        MRC__EV_COUNT(c->st.ev_suspect_held);
    }
    if (MRC__EVST(e) != MRC__EVS_SKIP) return;
    e->st = (uint8_t)(e->st & ~MRC__EVF_SKIP2); /* the hold counts the rounds */
    e->hold = (uint8_t)MRC__SUS_ROUNDS;
}
MRC__PRIVATE void mrc__ev_unhold(mrc_conn *c, unsigned slot) {
    mrc__ev *e = &c->evs[slot];
    if (MRC__EVST(e) != MRC__EVS_SKIP || !e->hold || e->hold == MRC__HOLD_VER) return;
    mrc__evr_del(c, (uint16_t)slot);
    mrc__evr_add(c, (uint16_t)slot); /* ACTIVE, its turn pending in this round; the hold cleared */
}

/* ---- sweeps: verify before use after a confirmed silent loss (docs/PROTOCOL.md P35 sweeps) --------------------------
 * Under a hash the sender cannot tell which of its EVs cross the cable that just lost a packet: the rotation would
 * find each dead one by losing a data packet on it, the last ones long after the first (recycling, P23 EV recycling,
 * makes the rotation's visits rare). So a confirmed silent loss on a hashed EV sweeps its plane: every EV of the
 * rotation that has not delivered a packet sent since the loss (its dlv stamp, set by every SACK that names it), but
 * the one that delivered last, sits out - SKIP with the hold MRC__HOLD_VER - keeping the floor (ev_floor), until there
 * is evidence that its path works: a SACK naming a packet it carried that was sent after sw_ref (one in flight at the
 * sweep), or the answer to a probe on it. The probes take the Q8 EV health timers probe slots before ASSUMED_BAD EVs
 * do, as slots free; a probe not answered within a quarter of a probe round is sent once more, and a second miss
 * demotes its EV as a silent loss (then Q8 probes it back). Once a QP has swept, a
 * backup promoted to replace a demoted EV is verified the same way before it carries data. One sweep per 2 smoothed
 * RTTs of a QP: a later loss within them only moves sw_ref on. Held EVs keep the liveness of skipped ones: if nothing
 * else of the plane can carry data, the other skipped EVs rejoin, and if there are none, the held ones
 * (mrc__ev_new_round). O(EVs of the plane) per sweep, O(1) per verification and per queued entry; per SACK, a 16-bit
 * store and a byte compared. */
MRC__PRIVATE MRC__INLINE bool mrc__ev_is_ver(const mrc__ev *e) {
    return MRC__EVST(e) == MRC__EVS_SKIP && e->hold == MRC__HOLD_VER;
}
/* Position i of the verification FIFO in ver_ring. */
MRC__PRIVATE MRC__INLINE unsigned mrc__ev_ver_pos(const mrc_conn *c, unsigned i) {
    unsigned pos = (unsigned)c->ver_head + i;
    return pos >= c->ev_count ? pos - c->ev_count : pos;
}
/* Queue a held EV (not probed) for a verification probe. Entries go stale when their EV is verified or moved before
 * a probe slot reaches them, and an EV held again meanwhile is queued again: when the FIFO is full of such entries
 * it is compacted first - stale entries and repeats dropped (the VPROBE flag marks the EVs kept during the pass) -
 * which leaves room, since what stays names distinct held EVs; the EV is not queued twice if it is among them. O(1),
 * O(EVs) when full. */
MRC__PRIVATE void mrc__ev_ver_queue(mrc_conn *c, uint16_t slot) {
    if (c->ver_n >= c->ev_count) {
        unsigned i, n = 0;
        bool have = false;
        for (i = 0; i < c->ver_n; i++) { /* in place: position n is never ahead of position i */
            mrc__evslot sl = c->ver_ring[mrc__ev_ver_pos(c, i)];
            mrc__ev *e = &c->evs[sl];
            if (!mrc__ev_is_ver(e) || (e->st & MRC__EVF_VPROBE)) continue;
            e->st = (uint8_t)(e->st | MRC__EVF_VPROBE);
            have = have || sl == slot;
            c->ver_ring[mrc__ev_ver_pos(c, n++)] = sl;
        }
        c->ver_n = (uint16_t)n;
        for (i = 0; i < n; i++) {
            mrc__ev *e = &c->evs[c->ver_ring[mrc__ev_ver_pos(c, i)]];
            e->st = (uint8_t)(e->st & ~MRC__EVF_VPROBE);
        }
        if (have) return;
        MRC_ASSERT(c->ver_n < c->ev_count);
    }
    c->ver_ring[mrc__ev_ver_pos(c, c->ver_n)] = (mrc__evslot)slot;
    c->ver_n++;
}
/* Hold a skipped EV for verification and queue it for a probe. */
MRC__PRIVATE void mrc__ev_ver_hold(mrc_conn *c, uint16_t slot) {
    mrc__ev *e = &c->evs[slot];
    e->st = (uint8_t)(e->st & ~(MRC__EVF_SKIP2 | MRC__EVF_VPROBE | MRC__EVF_VRETRY));
    e->hold = (uint8_t)MRC__HOLD_VER;
    MRC__EV_COUNT(c->st.ev_ver_held);
    mrc__ev_ver_queue(c, slot);
}
/* Free probe slot i takes the oldest EV awaiting verification, if any (stale entries dropped). */
MRC__PRIVATE bool mrc__ev_ver_take(mrc_conn *c, unsigned i) {
    while (c->ver_n && c->state == MRC_QPS_RTS) {
        uint16_t sl = c->ver_ring[c->ver_head];
        mrc__ev *e = &c->evs[sl];
        c->ver_head = (uint16_t)(c->ver_head + 1u >= c->ev_count ? 0u : c->ver_head + 1u);
        c->ver_n--;
        if (!mrc__ev_is_ver(e) || (e->st & MRC__EVF_VPROBE)) continue; /* verified, moved or probed already */
        e->st = (uint8_t)(e->st | MRC__EVF_VPROBE);
        c->probes[i].slot = (mrc__evslot)sl;
        c->probes[i].kind = MRC__PROBE_VER;
        c->probes_due |= 1u << i;
        return true;
    }
    return false;
}
/* Free EV probe slots take the EVs awaiting verification; the probe round decides the unanswered ones. */
MRC__PRIVATE void mrc__ev_ver_fill(mrc_conn *c) {
    unsigned i;
    for (i = 1; i < MRC_MAX_PROBES && c->ver_n; i++)
        if (c->probes[i].kind == MRC__PROBE_FREE) (void)mrc__ev_ver_take(c, i);
}
/* Evidence that its path works: back into the rotation, its turn pending in this round. */
MRC__PRIVATE void mrc__ev_verified(mrc_conn *c, unsigned slot) {
    if (!mrc__ev_is_ver(&c->evs[slot])) return;
    mrc__evr_del(c, (uint16_t)slot);
    mrc__evr_add(c, (uint16_t)slot);
    MRC__EV_COUNT(c->st.ev_verified);
}
/* P35 sweeps: a SACK named a packet on the EV sent at 'sent': its delivery stamp, and a held EV's path proven if the
 * packet went after the fault (sw_ref). O(1), per SACK. */
MRC__PRIVATE MRC__INLINE void mrc__ev_delivered(mrc_conn *c, unsigned slot, mrc_time sent) {
    c->evs[slot].dlv = (uint16_t)(sent >> 8);
    if (MRC__UNLIKELY(c->evs[slot].hold == MRC__HOLD_VER) && sent >= c->sw_ref) mrc__ev_verified(c, slot);
}
/* A loss without a trim, or ALWAYS_SKIP: ASSUMED_BAD at once, and a backup of the same port takes its place.
 * Withheld when it would leave the port fewer than ev_floor EVs carrying data (ev_min_active spread over the
 * ports), unless forced (the controller), so that loss everywhere cannot starve a plane or the QP - but not for a
 * plane gone silent: another plane that still carries data has had a packet named by a SACK more than 2 srtt after
 * this plane's last. Such a plane loses its floor EVs one loss each and leaves the rotation (probes bring them
 * back). When every plane is silent (the peer, not a plane) the floor holds, and the QP always keeps carrying EVs
 * on the plane that delivered last. O(ports), per demotion. */
MRC__PRIVATE bool mrc__ev_plane_silent(const mrc_conn *c, unsigned p) {
    const mrc_time lim = mrc__deadline_ctl(c->port_ok[p], 2u * c->srtt); /* (once, not per port) */
    unsigned q;
    for (q = 0; q < MRC_MAX_PORTS; q++)
        if (c->port_ok[q] > lim && q != p && c->n_act[q] + c->n_skip[q] > 0) return true; /* (the rare test first) */
    return false;
}
/* An ACTIVE or SKIP EV of the rotation held for verification. */
MRC__PRIVATE void mrc__ev_to_ver(mrc_conn *c, uint16_t slot) {
    mrc__ev *e = &c->evs[slot];
    if (MRC__EVST(e) == MRC__EVS_ACTIVE) {
        unsigned p = e->port - 1u;
        mrc__evr_del(c, slot);
        mrc__evr_put(c, p, (unsigned)c->n_act[p] + c->n_skip[p], slot);
        c->n_skip[p]++;
        e->st = (uint8_t)MRC__EVS_SKIP;
    }
    if (MRC__EVST(e) == MRC__EVS_SKIP) mrc__ev_ver_hold(c, slot);
}
/* Kept by a sweep: held already, the EV that delivered last, or one whose latest delivered packet (its dlv stamp) is
 * at most 'age' units of 256 ns old (modulo 2^16: a stamp a multiple of 16.8 ms old reads as new and keeps an EV that
 * has not delivered for that long - the loss rule still finds it). */
MRC__PRIVATE bool mrc__ev_sweep_keeps(const mrc_conn *c, uint16_t slot, uint32_t age) {
    const mrc__ev *e = &c->evs[slot];
    return mrc__ev_is_ver(e) || slot == c->ev_proven || (uint16_t)((uint16_t)(c->ep->now >> 8) - e->dlv) <= age;
}
MRC__PRIVATE unsigned mrc__ev_sweep_count(const mrc_conn *c, unsigned p, uint32_t age) {
    unsigned i, n = 0;
    for (i = 0; i < (unsigned)c->n_act[p] + c->n_skip[p]; i++) n += mrc__ev_sweep_keeps(c, mrc__evr_at(c, p, i), age);
    return n;
}
#define MRC__SW_BACKOFF 6u /* sweeps of a QP at most 2^6 x 2 smoothed RTTs apart while none finds a dead path */
/* the sweep itself, past mrc__ev_sweep's tests (out of line: at most one per 2 smoothed RTTs, and in line its
 * registers cost every loss) */
MRC__PRIVATE MRC__SPEED_COLD void mrc__ev_sweep_run(mrc_conn *c, unsigned lost, mrc_time ref) {
    mrc_endpoint *ep = c->ep;
    unsigned p, i, floor;
    uint32_t age;
    uint64_t held0;
    p = c->evs[lost].port - 1u;
    floor = MRC__MIN((unsigned)c->ev_floor, (unsigned)c->n_act[p] + c->n_skip[p]);
    age = (uint32_t)MRC__MIN((ep->now - MRC__MIN(ref, ep->now)) >> 8, (mrc_time)0xFFFFu);
    /* a sweep that found no dead path (losses everywhere, not a fault) makes the next wait twice as long */
    if (c->sw_at) c->sw_backoff = c->sw_found ? 0u : (uint8_t)MRC__MIN(c->sw_backoff + 1u, MRC__SW_BACKOFF);
    c->sw_found = 0;
    c->sw_at = ep->now;
    c->sw_ref = ref;
    MRC__EV_COUNT(c->st.ev_sweeps);
    held0 = c->st.ev_ver_held;
    if (mrc__ev_sweep_count(c, p, age) < floor) { /* the floor: the EVs that delivered last stay too (binary search) */
        uint32_t lo = age, hi = 0xFFFFu;
        while (lo + 1u < hi) {
            uint32_t mid = lo + (hi - lo) / 2u;
            if (mrc__ev_sweep_count(c, p, mid) >= floor) hi = mid;
            else lo = mid;
        }
        age = hi;
    }
    /* downwards: taking position i out moves only EVs of positions above it (mrc__evr_del, mrc__ev_to_ver), all seen */
    for (i = (unsigned)c->n_act[p] + c->n_skip[p]; i-- > 0;) {
        uint16_t sl = mrc__evr_at(c, p, i);
        if (!mrc__ev_sweep_keeps(c, sl, age)) mrc__ev_to_ver(c, sl);
    }
    MRC__TRACE(ep, MRC_TRACE_EV_SWEEP, ((uint64_t)c->qpn << 16) | (p + 1u), c->st.ev_ver_held - held0);
    (void)held0;
    mrc__ev_ver_fill(c);
}
MRC__PRIVATE MRC__INLINE void mrc__ev_sweep(mrc_conn *c, unsigned lost, mrc_time ref) {
    if (!mrc__ev_in_scope(c, c->ep->cfg.ev.sweep) || c->state != MRC_QPS_RTS) return;
    if (c->sw_at && c->ep->now < MRC__DEADLINE_SZ(c->sw_at, (2u * c->srtt) << c->sw_backoff)) {
        if (ref > c->sw_ref) c->sw_ref = ref; /* the same event (or sweeps backed off): later proofs only */
        return;
    }
    mrc__ev_sweep_run(c, lost, ref);
}

/* ---- verdicts: demotion and revival, and what an acknowledgement, a trim or a loss does to its EV ----------- */
MRC__PRIVATE void mrc__ev_demote(mrc_conn *c, uint16_t slot, bool forced) {
    mrc__ev *e = &c->evs[slot];
    unsigned st = MRC__EVST(e), p = e->port - 1u;
    if (st == MRC__EVS_BACKUP) { /* only the controller demotes a backup: unlink it (O(backups), rare) */
        uint16_t *pp = &c->bk_head[p];
        if (!forced) return;
        while (*pp != slot) pp = &c->evs[*pp].at;
        *pp = e->at;
        c->bk_n[p]--;
    } else if (st == MRC__EVS_ACTIVE || st == MRC__EVS_SKIP) {
        if (!forced && (uint32_t)c->n_act[p] + c->n_skip[p] - 1u + (c->bk_n[p] ? 1u : 0u) < c->ev_floor &&
            !mrc__ev_plane_silent(c, p)) {
            MRC__EV_COUNT(c->st.ev_withheld);
            return;
        }
        mrc__evr_del(c, slot);
        if (c->bk_n[p]) { /* the plane keeps its EVs: a backup of the same port steps in */
            uint16_t b = c->bk_head[p];
            c->bk_head[p] = c->evs[b].at;
            c->bk_n[p]--;
            mrc__evr_add(c, b);
            MRC__EV_COUNT(c->st.ev_promoted);
            if (c->sw_at) { /* P35 sweeps: a backup has carried nothing since the QP saw a fault: verified first */
                mrc__ev_to_ver(c, b);
                mrc__ev_ver_fill(c);
            }
        }
    } else {
        return;
    }
    mrc__ev_set(e, 0);
    mrc__bad_push(c, slot);
    mrc__ev_badref(c, slot, 1);
    MRC__EV_COUNT(c->st.ev_demoted);
    mrc__ev_event(c, slot, MRC_EVS_ASSUMED_BAD);
    mrc__evp_arm(c);
}
/* Its probe went unanswered: a silent loss on it (ASSUMED_BAD, unless the floor withholds it: then it rejoins). */
MRC__PRIVATE void mrc__ev_ver_failed(mrc_conn *c, unsigned slot) {
    mrc__ev *e = &c->evs[slot];
    if (!mrc__ev_is_ver(e)) return;
    e->hold = 0;
    e->st = (uint8_t)MRC__EVS_SKIP;
    MRC__EV_COUNT(c->st.ev_ver_failed);
    c->sw_found = 1;
    mrc__ev_demote(c, (uint16_t)slot, false);
}
/* ver_deadline: the verification probes out that have waited mrc__ev_ver_to fail (their EVs are demoted), freeing
 * their slots for the next; the deadline moves to the next expiry. O(MRC_MAX_PROBES). */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__ev_ver_expire(mrc_conn *c, mrc_time now) {
    mrc_time to = mrc__ev_ver_to(c);
    unsigned i;
    c->ver_deadline = MRC_TIME_NEVER;
    for (i = 1; i < MRC_MAX_PROBES; i++) {
        mrc__probe *p = &c->probes[i];
        mrc_time t;
        if (p->kind != MRC__PROBE_VER || ((c->probes_due >> i) & 1u)) continue;
        t = mrc__deadline_ctl(c->probe_sent[i], to);
        if (t > now) {
            if (t < c->ver_deadline) c->ver_deadline = t;
            continue;
        }
        p->kind = MRC__PROBE_FREE;
        if (!mrc__ev_is_ver(&c->evs[p->slot]) || !(c->evs[p->slot].st & MRC__EVF_VPROBE)) continue;
        if (c->evs[p->slot].st & MRC__EVF_VRETRY) { /* two unanswered: a dead path */
            mrc__ev_ver_failed(c, p->slot);
        } else { /* one probe lost on a lossy path proves little: queued for a second (it stays held) */
            c->evs[p->slot].st = (uint8_t)((c->evs[p->slot].st & ~MRC__EVF_VPROBE) | MRC__EVF_VRETRY);
            mrc__ev_ver_queue(c, p->slot);
        }
    }
    mrc__ev_ver_fill(c);
}
/* Enough probe answers: back to GOOD, into the rotation if its port is short of active EVs, else a backup. */
MRC__PRIVATE void mrc__ev_revive(mrc_conn *c, uint16_t slot, bool skip) {
    mrc__ev *e = &c->evs[slot];
    unsigned p = e->port - 1u;
    mrc__ev_badref(c, slot, -1);
    MRC__EV_COUNT(c->st.ev_revived);
    if ((unsigned)c->n_act[p] + c->n_skip[p] < c->act_target[p]) {
        mrc__evr_add(c, slot);
        c->nopath_deadline = MRC_TIME_NEVER; /* an EV carries data again (7.11) */
        if (skip) mrc__ev_skip(c, slot);
    } else {
        mrc__bk_push(c, slot);
    }
    mrc__ev_event(c, slot, MRC_EVS_GOOD);
}
/* P40 overtaken originals: a demotion shown wrong (the original of the retransmission that confirmed it arrived after
 * all). An EV still ASSUMED_BAD waiting in the probe FIFO leaves it and comes back as a probe answer would bring it
 * back; one being probed, revived, withheld or moved meanwhile is left to its probes. O(ASSUMED_BAD EVs), at most once
 * per confirmed loss. */
MRC__PRIVATE void mrc__ev_undemote(mrc_conn *c, uint16_t slot) {
    mrc__ev *e;
    uint16_t s, prev = MRC__EV_NONE;
    if (slot >= c->ev_count) return;
    e = &c->evs[slot];
    if (MRC__EVST(e) != MRC__EVS_BAD) return;
    for (s = c->bad_head; s != MRC__EV_NONE && s != slot; s = c->evs[s].at) prev = s;
    if (s != slot) return;
    if (prev == MRC__EV_NONE) c->bad_head = e->at;
    else c->evs[prev].at = e->at;
    if (c->bad_tail == slot) c->bad_tail = prev;
    c->n_bad--;
    e->st = (uint8_t)(e->st & MRC__EVF_OKC); /* out of the FIFO, as mrc__bad_pop leaves it */
    mrc__ev_revive(c, slot, false);
}
/* Path signals from the requester (SACK m, trims, losses); slots are the EV of the packet's last transmission. */
MRC__PRIVATE void mrc__ev_on_ack(mrc_conn *c, int slot, unsigned m) {
    c->port_ok[c->evs[slot].port - 1u] = c->ep->now; /* the plane delivers (it keeps its floor) */
    c->ev_proven = (uint16_t)slot;                     /* and this EV did, just now (P25 hashed-EV bypass knobs) */
    if (m == MRC_M_NONE) mrc__ev_rc_push(c, (unsigned)slot); /* a clean return (P23 EV recycling) */
    else if (m == MRC_M_SKIP_ONCE) mrc__ev_skip(c, (uint16_t)slot);
    else if (m == MRC_M_ALWAYS_SKIP) mrc__ev_demote(c, (uint16_t)slot, false);
}
MRC__PRIVATE void mrc__ev_on_trim(mrc_conn *c, int slot) {
    MRC__EV_COUNT(c->st.ev_trims);
    mrc__ev_skip(c, (uint16_t)slot);
}
/* P39 host losses: losses that hit every plane at once are the host's (its receive buffers overflowed, its CPU was
 * starved), not a path's. A run of consecutive transmissions (in transmission order, with nothing between them) all
 * judged lost without a trim that covers every port carrying EVs, at least 2, marks the host (hl_at: the send time of
 * its latest loss): a receiver that drops whatever arrives drops that, a path does not. A loss on an EV sent at 'sent'
 * (for a verdict, the latest time the original can have left) no later than max(2 srtt, MRC__HOST_WIN_NS) after the
 * mark is the host's: the EV leaves its hold (P29) and is neither demoted nor swept (ev_loss_host). A real fault on
 * every plane at once looks the same and is treated alike: the RTO, the retry budget and the no-path timer still end a
 * QP that cannot deliver. One port never applies. Per loss O(1), O(ports) when the run covers 2 ports or more. */
#define MRC__HOST_WIN_NS 4000u
MRC__PRIVATE uint32_t mrc__ev_ports_carrying(const mrc_conn *c) { /* the ports with EVs ACTIVE or SKIP */
    uint32_t all = 0;
    unsigned q;
    for (q = 0; q < MRC_MAX_PORTS; q++)
        if (c->n_act[q] + c->n_skip[q]) all |= 1u << q;
    return all;
}
MRC__PRIVATE void mrc__ev_lost_at(mrc_conn *c, unsigned slot, mrc__txseq seq, mrc_time sent) {
    uint32_t all, bit = 1u << (c->evs[slot].port - 1u);
    c->hl_mask = seq == c->hl_next ? c->hl_mask | bit : bit;
    c->hl_next = (mrc__txseq)(seq + 1u);
    if (!(c->hl_mask & (c->hl_mask - 1u))) return; /* a run on one port cannot cover the 2 or more ports the rule
                                                      needs: the ports are scanned only for a run over 2 or more */
    all = mrc__ev_ports_carrying(c);
    if ((all & (all - 1u)) && (c->hl_mask & all) == all) c->hl_at = sent;
}
/* P39 host losses, timeouts: the RTO is about to judge the transmission of snd_una lost. When no acknowledgement has
 * named any transmission sent since the oldest one still in flight (lat_acked_sent before it), and those in flight
 * cover every port carrying EVs (at least 2), every plane has been silent together for a whole RTO: the receiver or
 * this host stalled (a starved process, an overflowed buffer), not a path, and the timed-out transmission's send time
 * marks the host (hl_at), so its loss is the host's (mrc__ev_host_loss). A path that fails alone leaves the others'
 * acknowledgements coming (lat_acked_sent moves past the head); a lone tail in flight covers one port: both are judged
 * as before. O(in flight) per RTO at most (stops once every port is covered), nothing per packet. */
MRC__PRIVATE void mrc__ev_rto_silent(mrc_conn *c) {
    uint32_t all = mrc__ev_ports_carrying(c), m = 0, psn = c->txl.head;
    unsigned i;
    if (!c->txl.n || !(all & (all - 1u)) || c->lat_acked_sent >= MRC__REC_SENT(c, psn)) return;
    for (i = 0; i < c->txl.n && (m & all) != all; i++) {
        const mrc__psnrec *r = MRC__REC(c, psn);
        if (r->ev < c->ev_count) m |= 1u << (c->evs[r->ev].port - 1u);
        psn = mrc__link_psn(c, r->next);
    }
    if ((m & all) == all && (MRC__REC(c, c->snd_una)->flags & MRC__PR_INFLIGHT))
        c->hl_at = MRC__MAX(c->hl_at, MRC__REC_SENT(c, c->snd_una));
}
MRC__PRIVATE bool mrc__ev_host_loss(mrc_conn *c, unsigned slot, mrc_time sent) {
    mrc_time w = MRC__MAX(2u * c->srtt, (mrc_time)MRC__HOST_WIN_NS);
    if (!c->hl_at || mrc__deadline_ctl(c->hl_at, w) < sent) return false;
    mrc__ev_unhold(c, slot);
    MRC__EV_COUNT(c->st.ev_loss_host);
    return true;
}
/* P26 hop groups: a profile may say which of its EVs share a known hop (a T0 uplink, a T1); a confirmed silent loss
 * on one is evidence against the hop, so the QP's other EVs of the group go ASSUMED_BAD with it and each is probed
 * back on its own (Q8 EV health timers). Each demotion keeps the floor (ev_floor, plane-silent rule) like any other: a
 * group that is a whole plane cannot starve it. Unconfirmed losses (ev_confirm_loss off, timeouts) demote their EV
 * alone: one RTO marks every EV with a packet in flight. O(group size) per confirmed loss, never per packet. */
/* (the group's other EVs after a confirmed loss on slot: out of line, only a profile's hop groups have them) */
MRC__PRIVATE MRC__SPEED_COLD void mrc__ev_group_loss(mrc_conn *c, const mrc__evprof *pf, unsigned slot) {
    unsigned j;
    if (c->ep->cfg.ev.group_retire == MRC_EV_RETIRE_SECOND) { /* a second witness: another EV of the group bad already
                                                                 */
        for (j = pf->ev[slot].grp_nx - 1u; j != slot && !mrc__ev_is_bad(&c->evs[j]); j = pf->ev[j].grp_nx - 1u) {
        }
        if (j == slot) return;
    }
    for (j = pf->ev[slot].grp_nx - 1u; j != slot; j = pf->ev[j].grp_nx - 1u) {
        uint64_t before = c->st.ev_demoted;
        MRC_ASSERT(j < c->ev_count && pf->ev[j].grp_nx);
        mrc__ev_demote(c, (uint16_t)j, false);
        MRC__CNT(c->st.ev_group_retired += c->st.ev_demoted - before);
    }
}
MRC__PRIVATE void mrc__ev_on_loss(mrc_conn *c, int slot, bool confirmed, mrc_time ref) {
    const mrc__evprof *pf;
    if (mrc__ev_host_loss(c, (unsigned)slot, ref)) return; /* P39 host losses */
    if (MRC__EVST(&c->evs[slot]) <= MRC__EVS_SKIP) mrc__ev_demote(c, (uint16_t)slot, false); /* else it does nothing */
    if (!confirmed) return;
    mrc__ev_sweep(c, (unsigned)slot, ref); /* P35 sweeps */
    pf = mrc__conn_prof(c);
    if (pf && pf->ev[slot].grp_nx && c->ep->cfg.ev.group_retire != MRC_EV_RETIRE_ALONE)
        mrc__ev_group_loss(c, pf, (unsigned)slot);
}

/* ---- probes of ASSUMED_BAD EVs (Q8 EV health timers) -------------------------------------------------------- */
MRC__PRIVATE unsigned mrc__probes_of(const mrc_conn *c, unsigned kind) {
    unsigned i, n = 0;
    for (i = 1; i < MRC_MAX_PROBES; i++) n += c->probes[i].kind == kind;
    return n;
}
/* A probe of an ASSUMED_BAD EV failed: the EV waits for the next one (out of line: a round and an answer) */
MRC__PRIVATE MRC__NOINLINE void mrc__ev_probe_failed(mrc_conn *c, uint16_t slot) {
    c->evs[slot].st = 0;
    mrc__bad_push(c, slot);
    MRC__EV_COUNT(c->st.ev_probe_fail);
}
/* One round: a probe still unanswered from the last round failed; free probe slots take the next bad EVs. */
MRC__PRIVATE void mrc__ev_probe_round(mrc_conn *c, mrc_time now) {
    unsigned i;
    bool out = false, failed = false;
    c->evp_deadline = MRC_TIME_NEVER;
    for (i = 1; i < MRC_MAX_PROBES; i++) {
        mrc__probe *p = &c->probes[i];
        if (p->kind == MRC__PROBE_VER) continue; /* P35 sweeps's: ver_deadline decides */
        if (p->kind == MRC__PROBE_EV && !((c->probes_due >> i) & 1u)) {
            mrc__ev *e = &c->evs[p->slot];
            if (MRC__EVST(e) == MRC__EVS_PROBING) {
                mrc__ev_probe_failed(c, p->slot);
                failed = true;
                MRC__TRACE(c->ep, MRC_TRACE_EV_PROBE, ((uint64_t)c->qpn << 16) | p->slot, 0u);
            }
            p->kind = MRC__PROBE_FREE;
        }
        if (p->kind == MRC__PROBE_FREE && c->ver_n && mrc__ev_ver_take(c, i)) continue; /* P35 sweeps first */
        /* P35 sweeps: once the QP has swept, ASSUMED_BAD EVs' probes (a round each, stretched by the back-off) keep at
         * most half the slots, so that verifications are not starved by probes of dead paths */
        if (p->kind == MRC__PROBE_FREE && c->n_bad && c->state == MRC_QPS_RTS &&
            (!c->sw_at || mrc__probes_of(c, MRC__PROBE_EV) < MRC_MAX_PROBES / 2u)) {
            p->slot = (mrc__evslot)mrc__bad_pop(c);
            c->evs[p->slot].st = (uint8_t)((c->evs[p->slot].st & MRC__EVF_OKC) | MRC__EVS_PROBING);
            p->kind = MRC__PROBE_EV;
            c->probes_due |= 1u << i;
        }
        out |= p->kind == MRC__PROBE_EV;
    }
    if (c->evp_answered) c->evp_backoff = 0;
    else if (failed && c->evp_backoff < (c->nopath_deadline != MRC_TIME_NEVER ? MRC__EVP_NOPATH_BACKOFF : 10u))
        c->evp_backoff++;
    c->evp_answered = 0;
    if (out || c->n_bad) c->evp_deadline = mrc__deadline_ctl(now, mrc__evp_interval(c));
}
/* The SACK (pr = 1) answering probe i of an ASSUMED_BAD EV. */
MRC__PRIVATE void mrc__ev_probe_answer(mrc_conn *c, unsigned i, unsigned m) {
    mrc__probe *p = &c->probes[i];
    mrc__ev *e = &c->evs[p->slot];
    unsigned okc;
    if (p->kind == MRC__PROBE_VER) { /* P35 sweeps: a verification probe */
        p->kind = MRC__PROBE_FREE;
        if (mrc__ev_is_ver(e) && (e->st & MRC__EVF_VPROBE)) {
            c->evp_answered = 1;
            if (m == MRC_M_ALWAYS_SKIP) mrc__ev_ver_failed(c, p->slot);
            else mrc__ev_verified(c, p->slot);
        }
        mrc__ev_ver_fill(c);
        return;
    }
    p->kind = MRC__PROBE_FREE;
    if (MRC__EVST(e) != MRC__EVS_PROBING) return; /* moved by a rebuild or the controller meanwhile */
    MRC__TRACE(c->ep, MRC_TRACE_EV_PROBE, ((uint64_t)c->qpn << 16) | p->slot, 1u);
    c->evp_answered = 1;
    if (m == MRC_M_ALWAYS_SKIP) {
        mrc__ev_probe_failed(c, p->slot);
        return;
    }
    MRC__EV_COUNT(c->st.ev_probe_ok);
    okc = ((e->st & MRC__EVF_OKC) >> 4) + 1u;
    if (okc >= c->ep->cfg.ev.revive_probes) {
        mrc__ev_revive(c, p->slot, m == MRC_M_SKIP_ONCE);
    } else {
        e->st = (uint8_t)(okc << 4);
        mrc__bad_push(c, p->slot);
    }
}
