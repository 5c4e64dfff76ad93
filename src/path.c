/* ================================================================================================================
 * EV / PATH MANAGER - src/path.c
 * Owns: the mechanism of paths - each QP's EV set, the state of every EV and how it changes (rotation, skips,
 * backups, the bad FIFO, rebuilds), the EV of every packet it sends, the EVs control packets leave on (Q19 reverse-path
 * EVs), the probe clock, controller events, and the EV expansion algorithm (docs/PROTOCOL.md 7.1). What to do on an
 * acknowledgement, a trim or a loss - which EV to use, when to hold one back, when to demote, sweep or verify - is
 * policy, in src/path_policy.c.
 *
 * A QP's EVs come from its profile: AUTO (ID 0) draws auto_ev.per_port distinct random UDP source ports per port; an
 * EXP or GEN profile lends its array. Packets go to the planes (ports) in turn, so every usable plane carries an
 * equal share; within a plane they walk that plane's EVs. Every slot is in exactly one place (docs/PROTOCOL.md 7):
 *   ACTIVE   its port's rotation [0, n_act): carries data. The rotation takes the next one and reshuffles at the end
 *            of a round, so each active EV of a plane carries one packet per round of that plane.
 *   SKIP     [n_act, n_act + n_skip) of its port: misses its next turn (SKIP_ONCE echo, fabric trim), back next round.
 *   BACKUP   bk_head[port]: good, waiting to replace a demoted EV of the same port.
 *   BAD      the bad FIFO (ASSUMED_BAD: a loss without a trim, or ALWAYS_SKIP); PROBING while its probe is out.
 *   DENIED   the controller said never.  OFF: its port, or the peer's, is down.
 * Picking, skipping, demoting, promoting a backup and reviving are O(1); a round's reshuffle is O(n) per n packets.
 * Control-plane changes (ports, peer ports, controller operations) rebuild the lists in O(n).
 * Calls: state.
 * ============================================================================================================== */
#include "path.h"
#include "state.h"

/* ---- EV slots, their states, the QP's profile, the ports ---------------------------------------------------- */
/* ECMP-hashed EVs: AUTO or a UDP or STEV profile's (the fabric's hash picks the path), not SRv6 (a named path) */
MRC__PRIVATE MRC__INLINE bool mrc__ev_hashed(const mrc_conn *c) {
    return !c->ev_prof || c->ep->profs[c->ev_prof - 1u].fmt_mode != MRC_EV_FMT_SRV6;
}
/* a rule of the EV policy whose scope (an OR of MRC_EV_KIND_*) holds the kind of the QP's EVs applies to it */
MRC__PRIVATE MRC__INLINE bool mrc__ev_in_scope(const mrc_conn *c, unsigned scope) {
    unsigned kind = !c->ev_prof ? MRC_EV_KIND_AUTO : mrc__ev_hashed(c) ? MRC_EV_KIND_HASHED : MRC_EV_KIND_PATH;
    return (scope & kind) != 0u;
}
MRC__PRIVATE MRC__INLINE mrc__evprof *mrc__conn_prof(const mrc_conn *c) {
    return c->ev_prof ? &c->ep->profs[c->ev_prof - 1u] : (mrc__evprof *)0;
}
MRC__PRIVATE mrc__evprof *mrc__prof_find(const mrc_endpoint *ep, uint64_t id) {
    return (mrc__evprof *)mrc__tab_find(ep->profs, MRC_MAX_EV_PROFILES, sizeof ep->profs[0],
                                        offsetof(mrc__evprof, used), id);
}
/* The entropy of EV slot 'slot' on the wire: its profile's (stored once per profile), or its AUTO source port. O(1). */
MRC__PRIVATE MRC__INLINE uint32_t mrc__ev_value(const mrc_conn *c, unsigned slot) {
    return c->ev_prof ? c->ep->profs[c->ev_prof - 1u].ev[slot].entropy : (uint32_t)c->evs[slot].sport;
}
MRC__PRIVATE MRC__INLINE void mrc__ev_set(mrc__ev *e, unsigned st) { /* clears flags and a P29 suspect hold hold too */
    e->st = (uint8_t)st;
    e->hold = 0;
}
MRC__PRIVATE MRC__INLINE bool mrc__ev_is_bad(const mrc__ev *e) {
    return MRC__EVST(e) == MRC__EVS_BAD || MRC__EVST(e) == MRC__EVS_PROBING;
}
MRC__PRIVATE MRC__INLINE bool mrc__port_ok(const mrc_conn *c, unsigned port) {
    return port >= 1 && port <= c->ep->cfg.num_ports && ((c->ep->ports_up & c->peer_ports) >> (port - 1u) & 1u);
}
/* the ASSUMED_BAD count a profile keeps per EV (QUERY_EV_STATE) */
MRC__PRIVATE void mrc__ev_badref(mrc_conn *c, unsigned slot, int delta) {
    mrc__evprof *pf = mrc__conn_prof(c);
    if (!pf) return;
    if (delta > 0) pf->ev[slot].bad_refs++;
    else if (pf->ev[slot].bad_refs) pf->ev[slot].bad_refs--;
}
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE bool mrc__ev_can_carry(const mrc_conn *c) { /* O(ports) */
    unsigned p;
    for (p = 0; p < MRC_MAX_PORTS; p++)
        if (c->n_act[p] + c->n_skip[p]) return true;
    return false;
}

/* A rare event counted (out of line: each 64-bit increment written out cost Cortex-M4 about six bytes more than a
 * call): EV policy verdicts, rebuilds, endpoint operations, and under gcc -Os the rare cases MRC__RARE_INC counts
 * (qp.h: a loss, a stale or marked packet) - never a data packet's common case */
MRC__PRIVATE MRC__NOINLINE void mrc__ev_count(uint64_t *n) { ++*n; }

/* ---- controller events -------------------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__notify(mrc_endpoint *ep, mrc_event *e) {
    if (ep->notify_len >= MRC_NOTIFYQ_LEN) { /* never silently: the next event delivered carries the count */
        ep->notify_lost++;
        ep->st.notify_dropped++; /* a loss: counted whatever MRC_NO_STATS */
        return;
    }
    e->drop_count = ep->notify_lost;
    ep->notify_lost = 0;
    ep->notify[(ep->notify_head + ep->notify_len) % MRC_NOTIFYQ_LEN] = *e;
    ep->notify_len++;
}
MRC__PRIVATE void mrc__ev_event(mrc_conn *c, uint16_t slot, uint32_t state) {
    const mrc__evprof *pf = mrc__conn_prof(c);
    mrc_event ev;
    MRC__TRACE(c->ep, MRC_TRACE_EV_STATE, ((uint64_t)c->qpn << 16) | slot, state);
    if (!((pf ? pf->event_mask : c->ep->cfg.auto_ev.event_mask) & state)) return;
    MRC_MEMSET(&ev, 0, sizeof ev);
    ev.type = MRC_EVT_EV_STATE;
    ev.qpn = c->qpn;
    ev.conn = c;
    ev.profile_id = pf ? pf->id : 0;
    ev.ev_index = slot;
    ev.ev = mrc__ev_value(c, slot);
    ev.port = c->evs[slot].port;
    ev.state = state;
    mrc__notify(c->ep, &ev);
}

/* ---- the rotation: planes round-robin, then each plane's own EV rotation ------------------------------------ */
MRC__PRIVATE MRC__INLINE void mrc__evr_put(mrc_conn *c, unsigned p, unsigned pos, uint16_t slot) {
    MRC_ASSERT((unsigned)c->seg[p] + pos < c->ev_count);
    c->ring[c->seg[p] + pos] = (mrc__evslot)slot;
    c->evs[slot].at = (uint16_t)pos;
}
MRC__PRIVATE MRC__INLINE uint16_t mrc__evr_at(const mrc_conn *c, unsigned p, unsigned pos) {
    return c->ring[c->seg[p] + pos];
}
MRC__PRIVATE MRC__INLINE void mrc__evr_swap(mrc_conn *c, unsigned p, unsigned a, unsigned b) {
    uint16_t t = mrc__evr_at(c, p, a);
    mrc__evr_put(c, p, a, mrc__evr_at(c, p, b));
    mrc__evr_put(c, p, b, t);
}
/* Take an ACTIVE or SKIP slot out of its port's rotation, keeping the used, pending and skipped regions contiguous. */
MRC__PRIVATE void mrc__evr_del(mrc_conn *c, uint16_t slot) {
    unsigned p = c->evs[slot].port - 1u, i = c->evs[slot].at, end = (unsigned)c->n_act[p] + c->n_skip[p] - 1u;
    c->evs[slot].rc = 0; /* skipped, demoted: its cached returns are stale (P23 EV recycling) */
    if (i >= c->n_act[p]) { /* skipped: the last skipped fills the hole */
        mrc__evr_put(c, p, i, mrc__evr_at(c, p, end));
        c->n_skip[p]--;
        return;
    }
    if (i < c->act_pos[p]) { /* used this round: the last used one fills the hole, which moves to the boundary */
        c->act_pos[p]--;
        mrc__evr_put(c, p, i, mrc__evr_at(c, p, c->act_pos[p]));
        i = c->act_pos[p];
    }
    if (i != c->n_act[p] - 1u) mrc__evr_put(c, p, i, mrc__evr_at(c, p, c->n_act[p] - 1u)); /* the last active one */
    c->n_act[p]--;
    if (c->n_skip[p]) mrc__evr_put(c, p, c->n_act[p], mrc__evr_at(c, p, end)); /* the last skipped moves down */
}
/* Make a slot ACTIVE, pending in its port's current round. */
MRC__PRIVATE void mrc__evr_add(mrc_conn *c, uint16_t slot) {
    unsigned p = c->evs[slot].port - 1u;
    if (c->n_skip[p]) mrc__evr_put(c, p, (unsigned)c->n_act[p] + c->n_skip[p], mrc__evr_at(c, p, c->n_act[p]));
    mrc__evr_put(c, p, c->n_act[p], slot);
    c->n_act[p]++;
    mrc__ev_set(&c->evs[slot], MRC__EVS_ACTIVE);
}
/* End of a port's round: skipped EVs rejoin (those that had their turn in the round they were skipped in sit this
 * one out, unless nothing else could carry data), then a seeded reshuffle. */
MRC__PRIVATE void mrc__ev_new_round(mrc_conn *c, unsigned p) {
    unsigned i, n = (unsigned)c->n_act[p] + c->n_skip[p], j = c->n_act[p];
    for (i = c->n_act[p]; i < n; i++) {
        mrc__ev *e = &c->evs[mrc__evr_at(c, p, i)];
        if (e->hold) { /* P29 suspect hold: awaiting a loss verdict; P35 sweeps: awaiting verification (no count) */
            if (e->hold != MRC__HOLD_VER) e->hold--;
            continue;
        }
        if (e->st & MRC__EVF_SKIP2) {
            e->st = (uint8_t)(e->st & ~MRC__EVF_SKIP2);
            continue;
        }
        mrc__ev_set(e, MRC__EVS_ACTIVE);
        mrc__evr_swap(c, p, i, j++);
    }
    if (j == 0 && n) { /* everything sat out: all but P35 sweeps's held EVs rejoin, and they too if they are all */
        for (i = c->n_act[p]; i < n; i++) {
            mrc__ev *e = &c->evs[mrc__evr_at(c, p, i)];
            if (e->hold == MRC__HOLD_VER) continue;
            mrc__ev_set(e, MRC__EVS_ACTIVE);
            mrc__evr_swap(c, p, i, j++);
        }
    }
    if (j == 0 && n) { /* everything sat out: everything rejoins */
        for (i = 0; i < n; i++) mrc__ev_set(&c->evs[mrc__evr_at(c, p, i)], MRC__EVS_ACTIVE); /* holds end too */
        j = n;
    }
    c->n_act[p] = (uint16_t)j;
    c->n_skip[p] = (uint16_t)(n - j);
    if (j) { /* shuffle the active ones (Fisher-Yates, the draws of mrc__evr_swap's loop); position i is final once its
              * step has drawn, so its slot's at is set there */
        mrc__evslot *ring = &c->ring[c->seg[p]];
#ifndef __OPTIMIZE_SIZE__ /* mrc__rand_below's draws on the generator's state in a local (24 bytes more under -Os) */
        uint64_t st = c->ep->rng;
#define MRC__SHUFFLE_BELOW(n) (unsigned)(((mrc__splitmix(&st) >> 32) * (uint64_t)(n)) >> 32)
#else
#define MRC__SHUFFLE_BELOW(n) (unsigned)mrc__rand_below(c->ep, n)
#endif
        MRC_ASSERT((unsigned)c->seg[p] + j <= c->ev_count);
        for (i = j - 1u; i; i--) {
            unsigned b = MRC__SHUFFLE_BELOW(i + 1u);
            mrc__evslot t = ring[b];
            ring[b] = ring[i];
            ring[i] = t;
            c->evs[t].at = (uint16_t)i;
        }
        c->evs[ring[0]].at = 0;
#undef MRC__SHUFFLE_BELOW
#ifndef __OPTIMIZE_SIZE__
        c->ep->rng = st;
#endif
    }
    c->act_pos[p] = 0;
}
/* Every FIFO empty (rebuild, ERR). O(ports + EVs). */
MRC__PRIVATE void mrc__ev_rc_clear(mrc_conn *c) {
    unsigned i;
    for (i = 0; i < MRC_MAX_PORTS; i++) c->rc_head[i] = c->rc_n[i] = 0;
    for (i = 0; i < c->ev_count; i++) c->evs[i].rc = 0;
}

/* ---- the backup stacks, the bad FIFO and the probe clock ---------------------------------------------------- */
MRC__PRIVATE void mrc__bad_push(mrc_conn *c, uint16_t slot) {
    mrc__ev *e = &c->evs[slot];
    e->st = (uint8_t)((e->st & MRC__EVF_OKC) | MRC__EVS_BAD);
    e->at = MRC__EV_NONE;
    if (c->bad_tail == MRC__EV_NONE) c->bad_head = slot;
    else c->evs[c->bad_tail].at = slot;
    c->bad_tail = slot;
    c->n_bad++;
}
MRC__PRIVATE uint16_t mrc__bad_pop(mrc_conn *c) {
    uint16_t s = c->bad_head;
    c->bad_head = c->evs[s].at;
    if (c->bad_head == MRC__EV_NONE) c->bad_tail = MRC__EV_NONE;
    c->n_bad--;
    return s;
}
MRC__PRIVATE void mrc__bk_push(mrc_conn *c, uint16_t slot) {
    mrc__ev *e = &c->evs[slot];
    unsigned p = e->port - 1u;
    mrc__ev_set(e, MRC__EVS_BACKUP);
    e->at = c->bk_head[p];
    c->bk_head[p] = slot;
    c->bk_n[p]++;
}
/* The probe round: ev.probe_interval_ns, or 8 smoothed RTTs (10 us..10 ms); doubled per round in which probes went
 * out and none came back, up to 1024 times, so dead paths cost little; back to 1 at the first answer. */
MRC__PRIVATE mrc_time mrc__evp_base(const mrc_conn *c) {
    mrc_time t = c->ep->cfg.ev.probe_interval_ns;
    return t ? t : MRC__MAX(MRC__MIN(MRC__MAX(8u * c->srtt, (mrc_time)10000u), (mrc_time)10000000u), 2u * c->srtt);
}
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE mrc_time mrc__evp_interval(const mrc_conn *c) { return mrc__evp_base(c) << c->evp_backoff; }
/* P35 sweeps: how long a verification probe waits for its answer: a quarter of a probe round (2 smoothed RTTs by
 * default), without the back-off of Q8 EV health timers's */
MRC__PRIVATE mrc_time mrc__ev_ver_to(const mrc_conn *c) { return MRC__MAX(mrc__evp_base(c) / 4u, 2u * c->srtt); }
MRC__PRIVATE void mrc__evp_arm(mrc_conn *c) {
    if (c->n_bad && c->evp_deadline == MRC_TIME_NEVER)
        c->evp_deadline = mrc__deadline_ctl(c->ep->now, mrc__evp_interval(c));
}
/* Which outstanding probe a probe SACK answers, by the EV and the PETH timestamp it echoes (P19 QP 0x2 and probe trust:
 * an answer to someone else's PROBE_REQ matches none); -1 for none. O(MRC_MAX_PROBES). */
MRC__PRIVATE MRC__SIZE_NOINLINE int mrc__probe_match(const mrc_conn *c, uint32_t entropy, uint16_t ts) {
    unsigned i;
    for (i = 0; i < MRC_MAX_PROBES; i++) {
        const mrc__probe *p = &c->probes[i];
        if (p->kind != MRC__PROBE_FREE && !((c->probes_due >> i) & 1u) && mrc__ev_value(c, p->slot) == entropy &&
            mrc__ts_ctl(c->ep, c->probe_sent[i]) == ts)
            return (int)i;
    }
    if (c->probes[0].kind == MRC__PROBE_TLP && (c->tlp2 & MRC__TLP2_OUT) && c->tlp2_slot < c->ev_count &&
        mrc__ev_value(c, c->tlp2_slot) == entropy && mrc__ts_ctl(c->ep, c->tlp2_sent) == ts)
        return MRC__TLP2_MATCH; /* P33 TLP copies: the other copy of the tail-loss probe */
    return -1;
}

/* ---- reverse EVs of control packets (Q19 reverse-path EVs) ----------------------------------------------------------
 * SACKs, NACKs and transport ACKs leave on the arrival plane, on its EVs that carry data, in turn: they spread over
 * the paths data takes, so one broken reverse path costs a share of (cumulative) acknowledgements, not all of
 * them. A plane with no such EV hands over to the next. MRC__EV_NONE when the QP has none at all. O(ports). */
MRC__PRIVATE uint16_t mrc__ev_ctl(mrc_conn *c, unsigned port) {
    unsigned i, np = c->ep->cfg.num_ports, p = port - 1u;
    for (i = 0; i < np; i++, p = p + 1u == np ? 0u : p + 1u) {
        unsigned n = (unsigned)c->n_act[p] + c->n_skip[p];
        if (!n) continue;
        if (c->rev_pos[p] >= n) c->rev_pos[p] = 0;
        return mrc__evr_at(c, p, c->rev_pos[p]++);
    }
    return MRC__EV_NONE;
}
/* P28 mirror reverse path: the EV of a profile whose entropy is 'ent' on 'port', from the profile's index (open
 * addressing, linear probing, at most half full). -1 when there is none. O(1) expected. */
MRC__PRIVATE MRC__INLINE uint32_t mrc__ent_hash(uint32_t ent) { return (uint32_t)(ent * 2654435761u) % MRC__EVH; }
/* (out of line under -Os: in line in its two callers it cost 24 B of Cortex-M4 code more) */
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__ent_next(uint32_t h) { return h + 1u == MRC__EVH ? 0u : h + 1u; }
MRC__PRIVATE int mrc__prof_lookup(const mrc__evprof *pf, uint32_t ent, unsigned port) {
    uint32_t h = mrc__ent_hash(ent), n;
    for (n = 0; n < MRC__EVH && pf->hix[h]; n++, h = mrc__ent_next(h)) {
        unsigned i = pf->hix[h] - 1u;
        if (pf->ev[i].entropy == ent && pf->ev[i].port == port) return (int)i;
    }
    return -1;
}
/* P28 mirror reverse path: a QP with an EV profile answers on the mirror of the arrival path: its own EV with the
 * arrival's entropy and port. A path-aware profile numbers the paths so that EV i from A to B and EV i from B to A
 * cross the same cables (the simulator's layouts do, on a two-tier Clos and a fat tree), and a packet that just arrived
 * on it shows that path works. Not while that EV is ASSUMED_BAD, PROBING, DENIED or OFF here: then Q19 reverse-path
 * EVs's rotation (MRC__EV_NONE). O(1). */
MRC__PRIVATE uint16_t mrc__ev_mirror(const mrc_conn *c, uint32_t ent, unsigned port) {
    const mrc__evprof *pf = mrc__conn_prof(c);
    int i;
    unsigned st;
    if (!pf || c->ep->cfg.ev.reply != MRC_EV_REPLY_MIRROR) return MRC__EV_NONE; /* (both callers left ECHO out) */
    i = mrc__prof_lookup(pf, ent, port);
    if (i < 0 || (unsigned)i >= c->ev_count) return MRC__EV_NONE;
    st = MRC__EVST(&c->evs[i]);
    if (st != MRC__EVS_ACTIVE && st != MRC__EVS_SKIP && st != MRC__EVS_BACKUP) return MRC__EV_NONE;
    return (uint16_t)i;
}

/* ---- building the set --------------------------------------------------------------------------------------- */
/* No ASSUMED_BAD FIFO, no backup stacks (MRC__EV_NONE: slot 0 is a real slot). */
MRC__STATIC_ASSERT(MRC__EV_NONE == 0xFFFFu, ev_none_bytes); /* all ones: a byte fill of 0xFF writes it */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__ev_lists_empty(mrc_conn *c) {
    c->bad_head = c->bad_tail = MRC__EV_NONE;
    MRC_MEMSET(c->bk_head, 0xFF, sizeof c->bk_head); /* MRC__EV_NONE in every entry */
}
/* Recompute every list from the slots' states, ports and the profile's DENIED flags: ASSUMED_BAD EVs stay bad;
 * good ones fill each port's active share (ev.backup_pct held back), the rest wait as backups. O(n).
 * The active share (act_target) and the floor are computed from the port's USABLE EVs (neither OFF nor DENIED),
 * good or ASSUMED_BAD, never from the health of the moment: they are later trusted by revivals and demotions, and a
 * share computed while a plane's EVs were all bad (0) parked every EV revived there as a backup for ever, which
 * left a QP whose only plane that was that one with nothing to send on (issue 13). */
MRC__PRIVATE void mrc__ev_rebuild(mrc_conn *c) {
    const mrc__evprof *pf = mrc__conn_prof(c);
    uint16_t usable[MRC_MAX_PORTS], slots[MRC_MAX_PORTS];
    unsigned i, p, planes = 0;
    c->n_bad = 0;
    mrc__ev_lists_empty(c);
    mrc__ev_rc_clear(c);
    for (p = 0; p < MRC_MAX_PORTS; p++) {
        c->bk_n[p] = c->n_act[p] = c->n_skip[p] = c->act_pos[p] = c->rev_pos[p] = 0;
        usable[p] = slots[p] = 0;
    }
    for (i = 0; i < c->ev_count; i++) { /* classify */
        mrc__ev *e = &c->evs[i];
        bool was_bad = mrc__ev_is_bad(e);
        unsigned ns = MRC__EVS_ACTIVE;
        if (pf && pf->ev[i].denied) ns = MRC__EVS_DENIED;
        else if (!mrc__port_ok(c, e->port)) ns = MRC__EVS_OFF;
        else if (was_bad) ns = MRC__EVS_BAD;
        if (ns == MRC__EVS_ACTIVE || ns == MRC__EVS_BAD) usable[e->port - 1u]++;
        if (was_bad && ns != MRC__EVS_BAD) mrc__ev_badref(c, i, -1);
        mrc__ev_set(e, ns);
        slots[e->port - 1u]++;
    }
    for (p = 0, i = 0; p < MRC_MAX_PORTS; p++) { /* segments, active shares, the per-port floor */
        uint32_t t = usable[p] - (uint32_t)usable[p] * c->ep->cfg.ev.backup_pct / 100u;
        c->act_target[p] = (uint16_t)(usable[p] && !t ? 1u : t);
        c->seg[p] = (uint16_t)i;
        i += slots[p];
        planes += usable[p] != 0;
    }
    c->seg[MRC_MAX_PORTS] = (uint16_t)i; /* ev_count: the last segment's end */
    c->ev_floor = (uint16_t)(planes ? (c->ev_min_active + planes - 1u) / planes : 0u);
    for (p = 0; p < MRC_MAX_PORTS; p++) c->port_ok[p] = c->ep->now;
    c->ev_proven = MRC__EV_NONE; /* proven again by the next SACK */
    for (i = 0; i < c->ev_count; i++) { /* place */
        mrc__ev *e = &c->evs[i];
        p = e->port - 1u;
        if (MRC__EVST(e) == MRC__EVS_BAD) {
            mrc__bad_push(c, (uint16_t)i);
        } else if (MRC__EVST(e) == MRC__EVS_ACTIVE) {
            if (c->n_act[p] < c->act_target[p]) mrc__evr_put(c, p, c->n_act[p]++, (uint16_t)i);
            else mrc__bk_push(c, (uint16_t)i);
        }
    }
    for (p = 0; p < MRC_MAX_PORTS; p++)
        for (i = c->n_act[p]; i-- > 1;) mrc__evr_swap(c, p, i, (unsigned)mrc__rand_below(c->ep, i + 1u));
    c->ver_n = c->ver_head = 0; /* P35 sweeps: every held EV was placed again above */
    c->ver_deadline = MRC_TIME_NEVER;
    for (i = 1; i < MRC_MAX_PROBES; i++) { /* EV probes in flight now answer nothing */
        if (c->probes[i].kind == MRC__PROBE_EV || c->probes[i].kind == MRC__PROBE_VER) c->probes[i].kind = MRC__PROBE_FREE;
        c->probes_due &= ~(1u << i);
    }
    if (c->probes[0].kind == MRC__PROBE_TLP && c->probes[0].slot >= c->ev_count) c->probes[0].kind = 0;
    if (c->probes[0].kind != MRC__PROBE_TLP || c->tlp2_slot >= c->ev_count) c->tlp2 = 0; /* P33 TLP copies: a stale copy
                                                                                            */
    c->evp_deadline = MRC_TIME_NEVER;
    mrc__evp_arm(c);
    if (mrc__ev_can_carry(c)) c->nopath_deadline = MRC_TIME_NEVER;
    MRC__EV_COUNT(c->st.ev_rebuilds);
}
/* The AUTO profile's EV count and its minimum active EVs (the configuration's, else an eighth, at least 1): the QPs'
 * sets (mrc__ev_setup) and mrc_ev_profile_query's answer for ID 0. Out of line: the two share it. */
MRC__PRIVATE MRC__NOINLINE uint32_t mrc__auto_evs(const mrc_endpoint *ep, uint32_t *min_active) {
    uint32_t n = MRC__MIN((uint32_t)ep->cfg.auto_ev.per_port * ep->cfg.num_ports, (uint32_t)MRC_MAX_EVS);
    *min_active = ep->cfg.auto_ev.min_active ? MRC__MIN((uint32_t)ep->cfg.auto_ev.min_active, n) : MRC__MAX(n / 8u, 1u);
    return n;
}
/* RESET -> INIT: the QP's EV set from its profile. AUTO values are distinct per QP (O(n^2) once, at set-up). */
MRC__PRIVATE void mrc__ev_setup(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    const mrc__evprof *pf = mrc__conn_prof(c);
    uint32_t n, i, j, range = (uint32_t)ep->cfg.auto_ev.sport_max - ep->cfg.auto_ev.sport_min + 1u;
    if (pf) {
        n = pf->ev_count;
        for (i = 0; i < n; i++) {
            c->evs[i].sport = 0; /* the value is the profile's */
            c->evs[i].port = pf->ev[i].port;
        }
        c->ev_min_active = (uint16_t)pf->ev_min_active;
    } else {
        uint32_t min_active;
        n = mrc__auto_evs(ep, &min_active);
        for (i = 0; i < n; i++) {
            uint32_t v, tries = 0;
            do { /* distinct values, as long as the range allows */
                v = ep->cfg.auto_ev.sport_min + mrc__rand_below(ep, range);
                for (j = 0; j < i && c->evs[j].sport != v; j++) {
                }
            } while (j < i && ++tries < 16u);
            c->evs[i].sport = (uint16_t)v; /* auto_ev.sport_min..sport_max: 16 bits */
            c->evs[i].port = (uint8_t)(i % ep->cfg.num_ports + 1u);
        }
        c->ev_min_active = (uint16_t)min_active;
    }
    for (i = 0; i < n; i++) mrc__ev_set(&c->evs[i], 0);
    c->ev_count = (uint16_t)n;
    c->peer_ports = mrc__all_ports(ep);
    mrc__ev_rebuild(c);
    c->st.ev_rebuilds = 0;
}
/* RESET or destroy: give back the profile reference and the ASSUMED_BAD counts. */
MRC__PRIVATE void mrc__ev_release(mrc_conn *c) {
    mrc__evprof *pf = mrc__conn_prof(c);
    unsigned i;
    if (!pf) return;
    for (i = 0; i < c->ev_count; i++)
        if (mrc__ev_is_bad(&c->evs[i])) mrc__ev_badref(c, i, -1);
    if (pf->refs) pf->refs--;
    c->ev_prof = 0;
}
/* The EV fields of a packet's txinfo. */
MRC__PRIVATE MRC__INLINE void mrc__ev_txinfo(const mrc_conn *c, uint16_t slot, mrc_txinfo *ti) {
    const mrc__evprof *pf = mrc__conn_prof(c);
    ti->port = c->evs[slot].port;
    ti->ev = pf ? pf->ev[slot].entropy : (uint32_t)c->evs[slot].sport;
    ti->ev_fmt = pf ? pf->fmt_mode : (uint8_t)MRC_EV_FMT_UDP;
    if (pf && pf->path_len) {
        ti->path = pf->ev[slot].path;
        ti->path_len = pf->path_len;
    }
}

/* ---- per-QP queries ----------------------------------------------------------------------------------------- */
MRC__STATIC_ASSERT(MRC_EVS_GOOD == 1u && MRC_EVS_ASSUMED_BAD == 2u && MRC_EVS_DENIED == 4u, ev_api_states);
MRC__PRIVATE uint32_t mrc__ev_api_state(const mrc__ev *e) { /* per state (ev_summary_at's order), 4 bits each */
    return (0x11422111u >> (4u * MRC__EVST(e))) & 0xFu; /* BAD, PROBING: ASSUMED_BAD; DENIED; else GOOD */
}
MRC_API unsigned mrc_conn_ev_count(const mrc_conn *c) { return c ? c->ev_count : 0u; }
MRC_API int mrc_conn_ev_get(const mrc_conn *c, unsigned index, uint32_t *ev, uint8_t *port, uint32_t *state) {
    if (!c) return MRC_ERR_INVAL;
    if (index >= c->ev_count) return MRC_ERR_NOENT;
    if (ev) *ev = mrc__ev_value(c, index);
    if (port) *port = c->evs[index].port;
    if (state) *state = mrc__ev_api_state(&c->evs[index]);
    return MRC_OK;
}
MRC__STATIC_ASSERT(MRC__EVS_ACTIVE == 0 && MRC__EVS_SKIP == 1 && MRC__EVS_BACKUP == 2 && MRC__EVS_BAD == 3 &&
                       MRC__EVS_PROBING == 4 && MRC__EVS_DENIED == 5 && MRC__EVS_OFF == 6,
                   ev_summary_at); /* the order of mrc_conn_ev_summary's table */
MRC__STATIC_ASSERT(sizeof(mrc_ev_port_summary) == 6u * sizeof(uint16_t), ev_summary_u16); /* its counts, by offset */
MRC_API int mrc_conn_ev_summary(const mrc_conn *c, mrc_ev_port_summary out[MRC_MAX_PORTS]) {
    unsigned i;
    if (!c || !out) return MRC_ERR_INVAL;
    MRC_MEMSET(out, 0, sizeof(mrc_ev_port_summary) * MRC_MAX_PORTS);
    for (i = 0; i < c->ev_count; i++) { /* each state's count, by its offset (a table, not a switch) */
        static const uint8_t at[8] = {
            offsetof(mrc_ev_port_summary, active), offsetof(mrc_ev_port_summary, skipped),
            offsetof(mrc_ev_port_summary, backup), offsetof(mrc_ev_port_summary, bad),
            offsetof(mrc_ev_port_summary, bad), offsetof(mrc_ev_port_summary, denied),
            offsetof(mrc_ev_port_summary, off), offsetof(mrc_ev_port_summary, off)};
        const mrc__ev *e = &c->evs[i];
        uint16_t *n = (uint16_t *)(void *)((uint8_t *)&out[e->port - 1u] + at[MRC__EVST(e)]);
        (*n)++;
    }
    return MRC_OK;
}

/* ---- EV expansion (docs/PROTOCOL.md 7.1; the OCP EV profile comment) ------------------------------------------------
 * Per field: start from init_val; overlay popcount(mask) bits read from the abstract EV (most significant first)
 * onto the mask's set bits, the highest set bit taking the first bit read; write the field right-aligned in its
 * format field's width. Format fields past the profile's fields stay zero; abstract bits past the last mask must
 * be zero. */
MRC__PRIVATE uint32_t mrc__bits_get(const uint8_t *p, uint32_t s, uint32_t k) { /* k <= 32 bits at bit s */
    uint32_t v = 0, i;
    for (i = 0; i < k; i++) v = (v << 1) | ((uint32_t)(p[(s + i) >> 3] >> (7u - ((s + i) & 7u))) & 1u);
    return v;
}
MRC__PRIVATE void mrc__bits_put(uint8_t *p, uint32_t d, uint32_t k, uint32_t v) { /* low k bits of v at bit d */
    uint32_t i;
    for (i = 0; i < k; i++) {
        uint32_t o = d + i;
        uint8_t m = (uint8_t)(1u << (7u - (o & 7u)));
        if ((v >> (k - 1u - i)) & 1u) p[o >> 3] = (uint8_t)(p[o >> 3] | m);
        else p[o >> 3] = (uint8_t)(p[o >> 3] & (uint8_t)~m);
    }
}
/* popcount32 and wmask out of line: cold code (profiles, expansion), smaller so on Cortex-M4 than in line in their
 * callers (gcc -Os inlined them) */
MRC__PRIVATE MRC__NOINLINE unsigned mrc__popcount32(uint32_t v) {
    unsigned n = 0;
    for (; v; v &= v - 1u) n++;
    return n;
}
MRC__PRIVATE uint32_t mrc__deposit(uint32_t x, uint32_t mask) { /* low bits of x onto mask's set bits, lowest first */
    uint32_t r = 0;
    for (; mask; mask &= mask - 1u, x >>= 1)
        if (x & 1u) r |= mask & (0u - mask);
    return r;
}
MRC__PRIVATE MRC__NOINLINE uint32_t mrc__wmask(uint32_t w) { return w >= 32u ? 0xFFFFFFFFu : ((1u << w) - 1u); }
MRC__PRIVATE unsigned mrc__fmt_max_bits(unsigned mode) {
    unsigned m = mode == MRC_EV_FMT_UDP ? 16u : mode == MRC_EV_FMT_STEV ? 32u : mode == MRC_EV_FMT_SRV6 ? 256u : 0u;
    return MRC__MIN(m, 8u * MRC_EV_BYTES);
}
/* total width in bits, or 0 when the format is invalid */
MRC__PRIVATE unsigned mrc__fmt_bits(const mrc_ev_fmt_attr *f) {
    unsigned i, w = 0;
    if (!f || f->nfields < 1 || f->nfields > MRC_MAX_EV_FIELDS) return 0;
    for (i = 0; i < f->nfields; i++) {
        if (f->width[i] < 1 || f->width[i] > 32) return 0;
        w += f->width[i];
    }
    return w <= mrc__fmt_max_bits(f->mode) ? w : 0u;
}
/* The profile rules (docs/PROTOCOL.md 7.1): the MRC_DETAIL_* rule broken, *idx its field (0 for the whole), or
 * MRC_DETAIL_NONE (0) */
MRC__PRIVATE unsigned mrc__prof_check(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nfields,
                                      unsigned *idx) {
    unsigned i, abits = 0;
    *idx = 0;
    if (!f || !fmt) return MRC_DETAIL_NULL_ARG;
    if (!mrc__fmt_bits(fmt)) return MRC_DETAIL_FMT_TOO_WIDE;
    if (nfields < 1 || nfields > fmt->nfields) return MRC_DETAIL_FIELD_COUNT;
    for (i = 0; i < nfields; i++) {
        uint32_t w = f[i].width, m = mrc__wmask(w), k = mrc__popcount32(f[i].mask);
        *idx = i;
        if (w < 1 || w > fmt->width[i]) return MRC_DETAIL_FIELD_WIDTH;
        if (f[i].init_val & ~m) return MRC_DETAIL_FIELD_INIT_VAL;
        if (f[i].mask & ~m) return MRC_DETAIL_FIELD_MASK;
        if (f[i].mask) {
            if (f[i].min_val > f[i].max_val || (k < 32u && (f[i].max_val >> k))) return MRC_DETAIL_FIELD_RANGE;
        } else if (f[i].min_val || f[i].max_val) {
            return MRC_DETAIL_FIELD_FIXED; /* a fixed field generates nothing */
        }
        abits += k;
    }
    *idx = 0;
    return abits > 8u * MRC_EV_BYTES ? MRC_DETAIL_ABSTRACT_WIDTH : MRC_DETAIL_NONE;
}
MRC_API int mrc_ev_profile_check(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nfields) {
    unsigned idx;
    return mrc__prof_check(fmt, f, nfields, &idx) ? MRC_ERR_INVAL : MRC_OK;
}
MRC_API int mrc_ev_expand(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nfields, const uint8_t *abs,
                          size_t abs_len, uint8_t *out, size_t out_len) {
    unsigned i, bits;
    uint32_t s = 0, d = 0, nabs;
    int rc = mrc_ev_profile_check(fmt, f, nfields);
    if (rc) return rc;
    if (!abs || !out || abs_len > MRC_EV_BYTES) return MRC_ERR_INVAL;
    bits = mrc__fmt_bits(fmt);
    if (out_len * 8u < bits) return MRC_ERR_NOBUF;
    nabs = (uint32_t)abs_len * 8u;
    MRC_MEMSET(out, 0, out_len);
    for (i = 0; i < fmt->nfields; i++) {
        uint32_t v = 0;
        if (i < nfields) {
            v = f[i].init_val;
            if (f[i].mask) {
                uint32_t k = mrc__popcount32(f[i].mask);
                if (s + k > nabs) return MRC_ERR_INVAL;
                v = (v & ~f[i].mask) | mrc__deposit(mrc__bits_get(abs, s, k), f[i].mask);
                s += k;
            }
        }
        mrc__bits_put(out, d, fmt->width[i], v);
        d += fmt->width[i];
    }
    for (; s < nabs; s++)
        if (mrc__bits_get(abs, s, 1)) return MRC_ERR_INVAL; /* bits no field consumes */
    return (int)bits;
}

/* ---- encapsulation fields for an adapter (Q16 STEV header mapping, Q18 SRv6 mode) --------------------------- */
MRC_API int mrc_endpoint_ev_headers(const mrc_endpoint *ep, const mrc_txinfo *ti, mrc_ev_hdrs *out) {
    uint32_t hi, lo;
    if (!ep || !ti || !out) return MRC_ERR_INVAL;
    MRC_MEMSET(out, 0, sizeof *out);
    hi = (ti->ev >> 16) & 0xFFFFu;
    lo = ti->ev & 0xFFFFu;
    if (ti->ev_fmt == MRC_EV_FMT_UDP) {
        out->udp_sport = (uint16_t)lo;
        return MRC_OK;
    }
    if (ti->ev_fmt == MRC_EV_FMT_SRV6) { /* the path in the outer header; the entropy as in STEV (Q18 SRv6 mode) */
        if ((ti->path_len != 16 && ti->path_len != 32) || !ti->path) return MRC_ERR_INVAL;
        out->has_srv6 = 1;
        mrc__copy(out->srv6_da, ti->path, 16);
        if (ti->path_len == 32) {
            out->has_srh = 1;
            mrc__copy(out->srh_seg, ti->path + 16, 16);
        }
    } else if (ti->ev_fmt != MRC_EV_FMT_STEV) {
        return MRC_ERR_INVAL;
    }
    out->udp_sport = (uint16_t)(ep->cfg.stev_sport_high ? hi : lo);
    out->flow_label = ep->cfg.stev_sport_high ? lo : hi;
    return MRC_OK;
}
