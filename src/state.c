/* ================================================================================================================
 * ENDPOINT AND QP STATE - src/state.c
 * Owns: the configuration defaults, the error detail of control calls, the endpoint PRNG and clock, ports, memory
 * regions (rkey -> region in O(1)), the conn table (QPN -> conn in O(1)), the in-flight pool (blocks of per-PSN
 * requester state shared by the endpoint's QPs), the layout of a QP's work requests, per-PSN records and bitmaps with
 * their accessors, and the drop counters. Data structures and their O(1) operations: no protocol decisions.
 * Calls: nothing but internal.h.
 * ============================================================================================================== */
#include "state.h"

/* ---- error detail: control calls record why they failed (mrc_endpoint_last_error) -------------------------- */
MRC__PRIVATE void mrc__detail_begin(mrc_endpoint *ep, unsigned call) {
    MRC_MEMSET(&ep->detail, 0, sizeof ep->detail);
    ep->detail.call = (uint8_t)call;
}
/* Out of line, and with four arguments for the common case (index 0), which the Arm and x86-64 ABIs pass in registers:
 * the control calls' hundred-odd failure returns are then a few moves and a tail call each (1.1 KB of Cortex-M4 code
 * less than with the stores in line) */
MRC__PRIVATE MRC__NOINLINE int mrc__fail_at(mrc_endpoint *ep, int err, unsigned code, uint32_t attr, uint32_t index) {
    ep->detail.err = (int16_t)err;
    ep->detail.code = (uint16_t)code;
    ep->detail.attr = attr;
    ep->detail.index = (uint16_t)index;
    return err;
}
MRC__PRIVATE MRC__NOINLINE int mrc__fail(mrc_endpoint *ep, int err, unsigned code, uint32_t attr) {
    return mrc__fail_at(ep, err, code, attr, 0);
}
/* The opening checks of a profile's modify call (CC profiles, EV Formats, EV profiles), in their order, the endpoint's
 * first (here, not in each caller: 32 B of Cortex-M4 code less) */
MRC__PRIVATE int mrc__prof_begin(mrc_endpoint *ep, unsigned call, const void *a, uint64_t id, uint32_t mask,
                                 uint32_t all) {
    if (!ep) return MRC_ERR_INVAL;
    mrc__detail_begin(ep, call);
    if (!a) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_NULL_ARG, 0);
    if (!id) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_PROFILE_ID, 0);
    if (mask & ~all) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_MASK, mask & ~all);
    return MRC_OK;
}
/* A profile's life, INIT -> OFFLINE <-> ONLINE, OFFLINE -> INIT, the same for the three kinds (mask bit 0 is the
 * state in each): MRC_OK to go on, 1 when the call is done (INIT -> INIT, the state alone), or the failure. need: the
 * mask bits INIT -> OFFLINE requires; fixed: those an ONLINE profile refuses; busy: ONLINE -> OFFLINE is refused
 * (QPs, or an ONLINE EV profile, use it). */
MRC__STATIC_ASSERT(MRC_CC_PROF_ATTR_STATE == 1u && MRC_EV_FMT_ATTR_STATE == 1u && MRC_EV_PROF_ATTR_STATE == 1u,
                   prof_state_bit);
MRC__PRIVATE int mrc__prof_step(mrc_endpoint *ep, unsigned cur, unsigned to, uint32_t mask, uint32_t need,
                                uint32_t fixed, bool busy) {
    if (cur == MRC_PROFILE_INIT) {
        if (to == MRC_PROFILE_INIT)
            return mask & ~1u ? mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_STATE_MISSING, mask & ~1u) : 1;
        if (to != MRC_PROFILE_OFFLINE) return mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_TRANSITION, 0);
        if ((mask & need) != need) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_ATTR_MISSING, need & ~mask);
    } else if (cur == MRC_PROFILE_ONLINE) {
        if (mask & fixed) return mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_PROFILE_ONLINE, mask & fixed);
        if (to == MRC_PROFILE_INIT) return mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_TRANSITION, 0);
        if (to == MRC_PROFILE_OFFLINE && busy) return mrc__fail(ep, MRC_ERR_BUSY, MRC_DETAIL_PROFILE_BUSY, 0);
    }
    return MRC_OK;
}
/* A copy through a call, for the control calls: gcc -Os copied a byte-aligned struct (an EV Format's attributes) or a
 * fixed-size array (an EV's value) in a loop of its own at every one */
MRC__PRIVATE MRC__NOINLINE void mrc__copy(void *d, const void *s, size_t n) { MRC_MEMCPY(d, s, n); }
/* The three profile tables (EV Formats, EV profiles, CC profiles) share their look-ups: out of line, one loop each
 * instead of a copy per table and per call. O(n), control calls only. */
/* one offset of the used flag: gcc passes it as a constant (72 B of Cortex-M4 code less than three offsets) */
MRC__STATIC_ASSERT(offsetof(mrc__evfmt, used) == 8 && offsetof(mrc__evprof, used) == 8 &&
                       offsetof(mrc__ccprof, used) == 8,
                   tab_used);
MRC__PRIVATE MRC__NOINLINE void *mrc__tab_find(const void *tab, unsigned n, size_t sz, size_t uo, uint64_t id) {
    const uint8_t *t = (const uint8_t *)tab;
    unsigned i;
    for (i = 0; i < n; i++, t += sz) {
        uint64_t v;
        MRC_MEMCPY(&v, t, sizeof v);
        if (t[uo] && v == id) return (void *)(uintptr_t)t;
    }
    return (void *)0;
}
MRC__PRIVATE MRC__NOINLINE void *mrc__tab_claim(void *tab, unsigned n, size_t sz, size_t uo, uint64_t id) {
    uint8_t *t = (uint8_t *)tab;
    unsigned i;
    for (i = 0; i < n; i++, t += sz) {
        if (t[uo]) continue;
        MRC_MEMSET(t, 0, sz);
        MRC_MEMCPY(t, &id, sizeof id);
        t[uo] = 1;
        return t;
    }
    return (void *)0;
}
MRC_API int mrc_endpoint_last_error(const mrc_endpoint *ep, mrc_detail *out) {
    if (!ep || !out) return MRC_ERR_INVAL;
    *out = ep->detail;
    return MRC_OK;
}
/* ---- configuration, PRNG, clock, ports ---------------------------------------------------------------------- */
MRC_API int mrc_ev_policy_preset(mrc_ev_policy *p, int preset) {
    if (!p || preset < MRC_EV_PRESET_DEFAULT || preset > MRC_EV_PRESET_PATHS) return MRC_ERR_INVAL;
    MRC_MEMSET(p, 0, sizeof *p);
    p->recycle = MRC_EV_SCOPE_AUTO;
    p->hold = MRC_EV_SCOPE_ALL;
    p->confirm_late = MRC_EV_SCOPE_ALL;
    p->sweep = MRC_EV_SCOPE_HASHED;
    p->group_retire = MRC_EV_RETIRE_SECOND;
    p->reply = MRC_EV_REPLY_MIRROR;
    p->confirm_loss = true;
    p->backup_pct = 25;
    p->revive_probes = 3;
    p->probe_interval_ns = 0;
    if (preset == MRC_EV_PRESET_ROTATION) {
        p->recycle = p->hold = p->confirm_late = p->sweep = MRC_EV_SCOPE_NONE;
        p->group_retire = MRC_EV_RETIRE_ALONE;
        p->reply = MRC_EV_REPLY_ROTATE;
    } else if (preset == MRC_EV_PRESET_ECMP) {
        p->recycle = MRC_EV_SCOPE_ALL;
        p->reply = MRC_EV_REPLY_ROTATE;
    } else if (preset == MRC_EV_PRESET_PATHS) {
        p->backup_pct = 0;
        p->sweep = MRC_EV_SCOPE_NONE;
    }
    return MRC_OK;
}
/* mrc_config_default's values that are not 0, each written into the zeroed configuration at its offset (the EV policy:
 * mrc_ev_policy_preset; the seed, 64 bits: in code) */
typedef struct mrc__cfg_def {
    uint32_t v;
    uint16_t off;
    uint8_t sz;
} mrc__cfg_def;
#define MRC__DEFAT(o, s, val) {(uint32_t)(val), (uint16_t)(o), (uint8_t)(s)}
#define MRC__DEF(m, val) MRC__DEFAT(offsetof(mrc_config, m), sizeof(((mrc_config *)0)->m), val)
#define MRC__DEF_DSCP(cl, val) MRC__DEFAT(offsetof(mrc_config, dscp) + (cl), 1, val)
static const mrc__cfg_def mrc__cfg_defs[] = {
    MRC__DEF(num_ports, MRC_MAX_PORTS), /* qpn_base 0: random QPNs */
    MRC__DEF(wire.bth_m_bit, 7), MRC__DEF(wire.eeth_op_shift, 2), MRC__DEF(wire.ts_shift, 7),
    /* DSCP codepoints: deployment-specific; these defaults are a project choice (docs/PROTOCOL.md) */
    MRC__DEF_DSCP(MRC_DSCP_TRIMMABLE, 10), MRC__DEF_DSCP(MRC_DSCP_NO_TRIM, 12),
    MRC__DEF_DSCP(MRC_DSCP_TRIMMABLE_RETX, 14), MRC__DEF_DSCP(MRC_DSCP_TRIMMED, 3),
    MRC__DEF_DSCP(MRC_DSCP_TRIMMED_LASTHOP, 4), MRC__DEF_DSCP(MRC_DSCP_CONTROL, 48),
    MRC__DEF(trimmable, 1), MRC__DEF(tseth, 1),
    MRC__DEF(ack.sack_every, 1), MRC__DEF(ack.sack_delay_ns, 4000),
    MRC__DEF(recovery.reorder_slack_min_ns, 2000), MRC__DEF(recovery.rtt_init_ns, 20000),
    MRC__DEF(recovery.tlp_min_ns, 10000), MRC__DEF(recovery.trim_keeps_alive, 1),
    MRC__DEF(recovery.trim_holds_rto, 1),
    MRC__DEF(rx.pen_ooo_pct, 50),
    MRC__DEF(cc.algo, MRC_CC_ALGO_NSCC), MRC__DEF(cc.base_rtt_ns, 12000),
    MRC__DEF(auto_ev.per_port, 16), MRC__DEF(auto_ev.sport_min, 49152), MRC__DEF(auto_ev.sport_max, 65535),
    MRC__DEF(auto_ev.event_mask, MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD),
    MRC__DEF(guard.zero_len_rkey, 1), MRC__DEF(guard.epop_peer_check, 1),
    MRC__DEF(guard.epop_rate_pps, 10000), MRC__DEF(guard.epop_burst, 32),
    MRC__DEF(guard.probe_rate_pps, 250000), MRC__DEF(guard.probe_burst, 64),
    MRC__DEF(guard.psu_hold_ns, 1000000000u),
    MRC__DEF(psu_retry_ns, 200000), MRC__DEF(psu_retries, 8), MRC__DEF(stev_sport_high, 1),
#ifdef MRC_RESEARCH
    MRC__DEF(research.tlp_copies, MRC__DEF_tlp_copies), MRC__DEF(research.reorder_timer, MRC__DEF_reorder_timer),
    MRC__DEF(research.cc_subpkt_shift, MRC__DEF_cc_subpkt_shift),
    MRC__DEF(research.cc_lh_mark_rtts, MRC__DEF_cc_lh_mark_rtts),
    MRC__DEF(research.hold_min_evs, MRC__DEF_hold_min_evs),
#endif
};
MRC_API void mrc_config_default(mrc_config *cfg) {
    unsigned i;
    if (!cfg) return;
    MRC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->seed = 0x6D72632D31303030ull; /* "mrc-1000" */
    for (i = 0; i < sizeof mrc__cfg_defs / sizeof mrc__cfg_defs[0]; i++) {
        const mrc__cfg_def *d = &mrc__cfg_defs[i];
        uint8_t *f = (uint8_t *)cfg + d->off;
        uint64_t w = d->v;
        uint16_t h = (uint16_t)d->v;
        uint8_t b = (uint8_t)d->v;
        if (d->sz == 1) MRC_MEMCPY(f, &b, 1); /* a bool: 1 is true */
        else if (d->sz == 2) MRC_MEMCPY(f, &h, 2);
        else if (d->sz == 4) MRC_MEMCPY(f, &d->v, 4);
        else MRC_MEMCPY(f, &w, 8);
    }
    (void)mrc_ev_policy_preset(&cfg->ev, MRC_EV_PRESET_DEFAULT);
}
/* splitmix64: the endpoint's only source of randomness (two streams from the seed: QPNs, everything else) */
MRC__PRIVATE uint64_t mrc__splitmix(uint64_t *st) {
    uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
MRC__PRIVATE uint64_t mrc__rand(mrc_endpoint *ep) { return mrc__splitmix(&ep->rng); }
/* uniform in [0, n) without 64-bit division (Lemire's multiply-shift on 32 bits) */
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__rand_below(mrc_endpoint *ep, uint32_t n) {
    return (uint32_t)(((mrc__rand(ep) >> 32) * (uint64_t)n) >> 32);
}
/* Every deadline is now + an interval, saturating: an interval that would pass the end of time means never (so no
 * deadline wraps to the past near 2^64 ns). */
MRC__PRIVATE MRC__INLINE mrc_time mrc__deadline_add(mrc_time t, mrc_time dt) {
    return dt >= MRC_TIME_NEVER - t ? MRC_TIME_NEVER : t + dt;
}
/* GCRA token bucket in virtual time (P19 QP 0x2 and probe trust): true when the event is within the rate (and it is
 * then counted). T is the interval per token, tau the burst tolerance; T = 0 means unlimited. O(1), no division. */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE bool mrc__bucket_take(mrc_time *tat, mrc_time now, mrc_time T, mrc_time tau) {
    if (T == 0) return true;
    if (*tat > now && *tat - now > tau) return false;
    *tat = MRC__DEADLINE_SZ(*tat > now ? *tat : now, T);
    return true;
}
MRC__PRIVATE MRC__NOINLINE void mrc__bucket_cfg(uint32_t pps, uint16_t burst, mrc_time *T, mrc_time *tau) {
    *T = pps ? MRC__MAX((mrc_time)1000000000u / pps, (mrc_time)1) : 0; /* once, at init */
    *tau = *T * (mrc_time)(burst ? burst - 1u : 0u);
}
/* Time never runs backwards inside the core: an earlier 'now' than one already seen is treated as that one. */
MRC__PRIVATE mrc_time mrc__clock(mrc_endpoint *ep, mrc_time now) {
    if (now < ep->now) now = ep->now;
    ep->now = now; /* stored either way: no branch on the common path */
    return now;
}
/* The same for the control calls: out of line (in line in six of them it cost 60 B of Cortex-M4 code; the packet and
 * timer calls keep it in line) */
MRC__PRIVATE MRC__NOINLINE mrc_time mrc__clock_ctl(mrc_endpoint *ep, mrc_time now) { return mrc__clock(ep, now); }
/* ... and mrc__deadline_add for rare timers - the endpoint operations', the probe clock's (mrc__evp_arm), a congestion
 * context's last-hop mark and sub-packet pacing: in line in those seven places it cost 76 B of Cortex-M4 code more;
 * the EV policy's, on losses and its own timers (sweeps, host losses, a silent plane, verification and probe rounds),
 * 64 B more (out of line everywhere, -564 B, it cost the per-packet paths 12.2 Cortex-M4 and 17 x86-64 instructions) */
MRC__PRIVATE MRC__NOINLINE mrc_time mrc__deadline_ctl(mrc_time t, mrc_time dt) { return mrc__deadline_add(t, dt); }
/* every port of the endpoint, as a 1-based mask (bit p - 1 for port p) */
MRC__PRIVATE uint32_t mrc__all_ports(const mrc_endpoint *ep) {
    return ep->cfg.num_ports >= 32 ? 0xFFFFFFFFu : ((1u << ep->cfg.num_ports) - 1u);
}
#define MRC__CFGR(m, z, l, h, c) MRC__RNG(mrc_config, m, z, l, h, 0, c)
/* mrc_endpoint_init's checks before the DSCP and source-port checks (in code), then those after them */
static const mrc__range mrc__cfg_ranges[] = {
    MRC__CFGR(num_ports, 0, 1, MRC_MAX_PORTS, MRC_DETAIL_CFG_PORTS),
    MRC__CFGR(qpn_base, 0x80, MRC_EPOP_QPN + 1u, MRC_PSN_MASK - (uint32_t)MRC_MAX_CONNS, MRC_DETAIL_CFG_QPN_BASE),
    MRC__CFGR(wire.bth_m_bit, 0, 6, 7, MRC_DETAIL_CFG_WIRE),
    MRC__RSET(mrc_config, wire.eeth_op_shift, 1u << 2 | 1u << 4, 0, MRC_DETAIL_CFG_WIRE),
    MRC__CFGR(wire.ts_shift, 0, 0, 20, MRC_DETAIL_CFG_WIRE),
    MRC__CFGR(wire.tver, 0, 0, 15, MRC_DETAIL_CFG_WIRE),
    MRC__CFGR(wire.sack_msb_first, 0, 0, 1, MRC_DETAIL_CFG_WIRE)};
static const mrc__range mrc__cfg_ranges2[] = {
    MRC__CFGR(auto_ev.per_port, 0, 1, 0xFFFFu, MRC_DETAIL_CFG_EVS_PER_PORT),
    MRC__CFGR(ev.backup_pct, 0, 0, 90, MRC_DETAIL_CFG_BACKUP_PCT),
    MRC__CFGR(ev.recycle, 0, 0, MRC_EV_SCOPE_ALL, MRC_DETAIL_CFG_EV_POLICY), /* their OR at most ALL (scope_all) */
    MRC__CFGR(ev.hold, 0, 0, MRC_EV_SCOPE_ALL, MRC_DETAIL_CFG_EV_POLICY),
    MRC__CFGR(ev.confirm_late, 0, 0, MRC_EV_SCOPE_ALL, MRC_DETAIL_CFG_EV_POLICY),
    MRC__CFGR(ev.sweep, 0, 0, MRC_EV_SCOPE_ALL, MRC_DETAIL_CFG_EV_POLICY),
    MRC__CFGR(ev.reply, 0, 0, MRC_EV_REPLY_ECHO, MRC_DETAIL_CFG_EV_POLICY),
    MRC__CFGR(ev.group_retire, 0, 0, MRC_EV_RETIRE_SECOND, MRC_DETAIL_CFG_EV_POLICY),
    MRC__CFGR(ev.revive_probes, 0, 1, 7, MRC_DETAIL_CFG_REVIVE),
    MRC__CFGR(auto_ev.event_mask, 0, 0, MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD, MRC_DETAIL_CFG_EVENT_MASK), /* (evs_bits) */
    MRC__CFGR(ack.sack_every, 0, 1, 0xFFFFu, MRC_DETAIL_CFG_SACK_EVERY),
    MRC__CFGR(ev_max_width, 0x80, 16, 8u * MRC_EV_BYTES, MRC_DETAIL_CFG_EV_MAX_WIDTH),
    MRC__CFGR(pool_blocks, 0, 0, MRC_POOL_BLOCKS, MRC_DETAIL_CFG_POOL_BLOCKS)};
MRC__STATIC_ASSERT((MRC_EV_SCOPE_ALL & (MRC_EV_SCOPE_ALL + 1)) == 0, scope_all); /* OR over it iff one over it */
MRC__STATIC_ASSERT(((MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD) & ((MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD) + 1)) == 0, evs_bits);
MRC__PRIVATE MRC__NOINLINE int mrc__ranges(mrc_endpoint *ep, const void *base, const mrc__range *r, unsigned n,
                                           uint32_t mask) {
    for (; n; n--, r++) {
        const uint8_t *f = (const uint8_t *)base + r->off;
        uint32_t v, bit = r->bit ? 1u << (r->bit - 1u) : 0u;
        uint16_t h;
        uint8_t b;
        if (bit && !(mask & bit)) continue;
        if ((r->sz & 7u) == 1u) {
            MRC_MEMCPY(&b, f, 1);
            v = b;
        } else if ((r->sz & 7u) == 2u) {
            MRC_MEMCPY(&h, f, 2);
            v = h;
        } else {
            MRC_MEMCPY(&v, f, 4);
        }
        if (r->sz & 0x40u ? v >= 32u || !((r->span >> v) & 1u) : (v || !(r->sz & 0x80u)) && v - r->lo > r->span)
            return mrc__fail(ep, MRC_ERR_INVAL, r->code, bit);
    }
    return MRC_OK;
}
MRC_API int mrc_endpoint_init(mrc_endpoint *ep, const mrc_config *cfg, mrc_time now) {
    mrc_config d;
    unsigned i;
    int rc;
    if (!ep) return MRC_ERR_INVAL;
    mrc__detail_begin(ep, MRC_CALL_ENDPOINT_INIT);
    if (!cfg) {
        mrc_config_default(&d);
        cfg = &d;
    }
    if ((rc = mrc__ranges(ep, cfg, mrc__cfg_ranges, MRC__NRANGES(mrc__cfg_ranges), 0)) != MRC_OK) return rc;
    for (i = 0; i < MRC_DSCP_CLASSES; i++)
        if (cfg->dscp[i] > 63) return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_CFG_DSCP, 0, i);
    if (cfg->auto_ev.sport_min > cfg->auto_ev.sport_max)
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_CFG_EV_SPORT, 0);
    if ((rc = mrc__ranges(ep, cfg, mrc__cfg_ranges2, MRC__NRANGES(mrc__cfg_ranges2), 0)) != MRC_OK) return rc;
    /* everything but the pool, which is touched block by block as it is first used */
    MRC_MEMSET(ep, 0, (size_t)((const uint8_t *)ep->pool - (const uint8_t *)ep));
    ep->pool_cap = cfg->pool_blocks ? cfg->pool_blocks : (uint32_t)MRC_POOL_BLOCKS;
    ep->pool_nfree = ep->pool_cap;
    ep->detail.call = MRC_CALL_ENDPOINT_INIT;
    ep->cfg = *cfg;
    if (!ep->cfg.ev_max_width) ep->cfg.ev_max_width = 8u * MRC_EV_BYTES;
    ep->rng = cfg->seed;
    ep->qpn_rng = cfg->seed ^ 0x51504E2D51504E2Dull; /* "QPN-QPN-" */
    mrc__bucket_cfg(cfg->guard.epop_rate_pps, cfg->guard.epop_burst, &ep->epop_T, &ep->epop_tau);
    mrc__bucket_cfg(cfg->guard.probe_rate_pps, cfg->guard.probe_burst, &ep->probe_T, &ep->probe_tau);
    ep->now = now;
    ep->ports_up = mrc__all_ports(ep);
    ep->ep_deadline = ep->psu_hold = ep->psu_refresh = MRC_TIME_NEVER;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) ep->epreq[i].deadline = ep->psureq[i].deadline = MRC_TIME_NEVER;
    ep->epoch = 1;
    return MRC_OK;
}
MRC_API bool mrc_endpoint_port_up(const mrc_endpoint *ep, unsigned port) {
    return ep && port >= 1 && port <= ep->cfg.num_ports && ((ep->ports_up >> (port - 1)) & 1u);
}

/* ---- memory regions ---------------------------------------------------------------------------------------------
 * An rkey the core chooses is (slot + 1) << 8 | 8 random key bits, so its lookup is one compare; an rkey the caller
 * chooses (mrc_endpoint_reg_mr_key: the one its verbs library handed out) is found through mr_hash, an open-addressed
 * table of twice MRC_MAX_MRS entries with linear probes and backward-shift deletion (no tombstones), so every lookup
 * is O(1) expected and bounded by the table. Every rkey is unique on the endpoint whoever chose it. */
MRC__PRIVATE MRC__INLINE uint32_t mrc__mr_hslot(uint32_t rkey) {
    return ((rkey * 2654435761u) >> 15) & (MRC__MR_HASH_N - 1u);
}
/* the slot of a caller-chosen rkey, or -1 */
MRC__PRIVATE int mrc__mr_find_keyed(const mrc_endpoint *ep, uint32_t rkey) {
    uint32_t h = mrc__mr_hslot(rkey), n;
    for (n = 0; n < MRC__MR_HASH_N && ep->mr_hash[h]; n++, h = (h + 1u) & (MRC__MR_HASH_N - 1u)) {
        uint32_t i = ep->mr_hash[h] - 1u;
        if (ep->mrs[i].rkey == rkey) return (int)i;
    }
    return -1;
}
MRC__PRIVATE int mrc__mr_find(const mrc_endpoint *ep, uint32_t rkey) {
    uint32_t i = (rkey >> 8) - 1u;
    if ((rkey >> 8) != 0 && i < MRC_MAX_MRS && ep->mrs[i].valid && ep->mrs[i].rkey == rkey) return (int)i;
    return mrc__mr_find_keyed(ep, rkey);
}
MRC__PRIVATE int mrc__mr_check(const mrc_endpoint *ep, void *base, uint64_t iova, uint64_t len, uint32_t access) {
    if (access & ~(uint32_t)(MRC_ACCESS_REMOTE_WRITE | MRC_ACCESS_EXTERNAL)) return MRC_ERR_INVAL;
    if (!base && !((access & MRC_ACCESS_EXTERNAL) && ep->cfg.place)) return MRC_ERR_INVAL;
    if ((access & MRC_ACCESS_EXTERNAL) && !ep->cfg.place) return MRC_ERR_INVAL;
    if (len > UINT64_MAX - iova) return MRC_ERR_INVAL;
    return MRC_OK;
}
/* Both registrations: the core chooses the rkey (out non-NULL: it is written there) or the caller does (out NULL: key,
 * which must be new on the endpoint, goes into mr_hash). One body: the checks and the fill are written once. */
MRC__PRIVATE MRC__NOINLINE int mrc__mr_reg(mrc_endpoint *ep, void *base, uint64_t iova, uint64_t len, uint32_t access,
                                           void *user, uint32_t *out, uint32_t key) {
    unsigned i;
    uint32_t h;
    int rc = mrc__mr_check(ep, base, iova, len, access);
    if (rc != MRC_OK) return rc;
    if (!out && mrc__mr_find(ep, key) >= 0) return MRC_ERR_BUSY;
    for (i = 0; i < MRC_MAX_MRS; i++) {
        uint32_t r, t;
        if (ep->mrs[i].valid) continue;
        if (out) {
            r = (uint32_t)(mrc__rand(ep) & 0xFFu);
            for (t = 0; t < 256u; t++) { /* never an rkey a caller chose: the next key bits then */
                key = ((uint32_t)(i + 1u) << 8) | ((r + t) & 0xFFu);
                if (mrc__mr_find_keyed(ep, key) < 0) break;
            }
            if (t == 256u) continue; /* callers hold all 256 keys of this slot (MRC_MAX_MRS > 256): the next free one */
            *out = key;
        } else {
            ep->mrs[i].keyed = 1;
            for (h = mrc__mr_hslot(key); ep->mr_hash[h]; h = (h + 1u) & (MRC__MR_HASH_N - 1u)) {
            } /* a free entry exists: at most MRC_MAX_MRS of twice as many are used */
            ep->mr_hash[h] = (uint16_t)(i + 1u);
        }
        ep->mrs[i].valid = 1;
        ep->mrs[i].base = (uint8_t *)base;
        ep->mrs[i].user = user;
        ep->mrs[i].iova = iova;
        ep->mrs[i].len = len;
        ep->mrs[i].access = access;
        ep->mrs[i].rkey = key;
        return MRC_OK;
    }
    return MRC_ERR_FULL;
}
MRC_API int mrc_endpoint_reg_mr(mrc_endpoint *ep, void *base, uint64_t iova, uint64_t len, uint32_t access,
                                void *user, uint32_t *rkey) {
    if (!ep || !rkey) return MRC_ERR_INVAL;
    return mrc__mr_reg(ep, base, iova, len, access, user, rkey, 0);
}
MRC_API int mrc_endpoint_reg_mr_key(mrc_endpoint *ep, void *base, uint64_t iova, uint64_t len, uint32_t access,
                                    void *user, uint32_t rkey) {
    if (!ep) return MRC_ERR_INVAL;
    return mrc__mr_reg(ep, base, iova, len, access, user, (uint32_t *)0, rkey);
}
/* take slot i's caller-chosen rkey out of mr_hash: backward-shift deletion keeps every other key's probe run intact */
MRC__PRIVATE void mrc__mr_unhash(mrc_endpoint *ep, unsigned i) {
    uint32_t h = mrc__mr_hslot(ep->mrs[i].rkey), j, home;
    while (ep->mr_hash[h] != i + 1u) h = (h + 1u) & (MRC__MR_HASH_N - 1u);
    for (j = h;;) {
        ep->mr_hash[h] = 0;
        for (;;) {
            j = (j + 1u) & (MRC__MR_HASH_N - 1u);
            if (!ep->mr_hash[j]) return;
            home = mrc__mr_hslot(ep->mrs[ep->mr_hash[j] - 1u].rkey);
            /* the entry at j may move to h unless its home lies cyclically in (h, j] */
            if (h <= j ? (home <= h || home > j) : (home <= h && home > j)) break;
        }
        ep->mr_hash[h] = ep->mr_hash[j];
        h = j;
    }
}
MRC_API int mrc_endpoint_dereg_mr(mrc_endpoint *ep, uint32_t rkey) {
    int i;
    if (!ep) return MRC_ERR_INVAL;
    i = mrc__mr_find(ep, rkey);
    if (i < 0) return MRC_ERR_NOENT;
    if (ep->mrs[i].keyed) mrc__mr_unhash(ep, (unsigned)i);
    MRC_MEMSET(&ep->mrs[i], 0, sizeof ep->mrs[i]);
    return MRC_OK;
}

/* ---- the in-flight pool (IN-FLIGHT MEMORY at the top) ----------------------------------------------------------
 * Blocks of 64 PSNs' requester state; a QP's block table maps PSN / 64 to the block holding it. A QP holds the live
 * blocks of [win_base, snd_nxt) - plus, handed to it while it waited, the one its next PSN enters - and retained
 * blocks: acknowledged PSNs kept readable for late SACKs as long as the records would have lived in a QP of its own
 * (MRC_MAX_INFLIGHT PSNs behind snd_nxt), on the endpoint's FIFO of retained blocks. A block is taken from the free
 * list, else the oldest retained block is reclaimed from its QP (which then has no record of those PSNs). Every
 * operation is O(1); a block released or retained goes to the first QP waiting for one, if any: a QP waits only
 * while no block is free or retained. */
MRC__PRIVATE MRC__INLINE mrc__pblk *mrc__blk(const mrc_conn *c, uint32_t psn) {
    mrc__blkidx b = c->btab[MRC__BTAB_IDX(psn)];
    return b ? &c->ep->pool[b - 1u] : (mrc__pblk *)0;
}
/* blocks live now: the peak is the most at once */
MRC__PRIVATE MRC__INLINE void mrc__pool_peak(mrc_endpoint *ep) {
#ifndef MRC_NO_STATS
    uint32_t live = ep->pool_cap - ep->pool_nfree - ep->pool_nret;
    if (live > ep->st.pool_peak) ep->st.pool_peak = live;
#else
    (void)ep;
#endif
}
/* block i (held) is retained: on the FIFO of retained blocks */
MRC__PRIVATE MRC__INLINE bool mrc__pool_ret(const mrc_endpoint *ep, uint32_t i) {
    return ep->pool[i].prev || ep->ret_head == i + 1u;
}
/* block i leaves the FIFO of retained blocks (from anywhere in it) */
MRC__PRIVATE void mrc__pool_unretain(mrc_endpoint *ep, uint32_t i) {
    mrc__pblk *b = &ep->pool[i];
    MRC_ASSERT(mrc__pool_ret(ep, i) && ep->pool_nret > 0);
    if (b->prev) ep->pool[b->prev - 1u].next = b->next;
    else ep->ret_head = b->next;
    if (b->next) ep->pool[b->next - 1u].prev = b->prev;
    else ep->ret_tail = b->prev;
    b->prev = b->next = 0;
    ep->pool_nret--;
}
/* block i becomes c's block for PSN psn (which has none, or has i itself): lo is that PSN's slot */
MRC__PRIVATE void mrc__pool_give(mrc_conn *c, uint32_t psn, uint32_t i) {
    mrc__pblk *b = &c->ep->pool[i];
    b->acked = 0;
    b->prev = 0;
    b->owner = c->slot;
    b->loc = (uint16_t)(MRC__BTAB_IDX(psn) << 6 | (psn & (MRC__BLK_PSNS - 1u)));
    c->btab[MRC__BTAB_IDX(psn)] = (mrc__blkidx)(i + 1u);
}
/* Take a block for psn; the caller has checked that one is free or retained (mrc__req_new). With none free, the
 * oldest retained block is reclaimed from its QP's table. */
MRC__PRIVATE void mrc__pool_take(mrc_conn *c, uint32_t psn) {
    mrc_endpoint *ep = c->ep;
    uint32_t i;
    MRC_ASSERT(ep->pool_nfree + ep->pool_nret > 0 && !c->btab[MRC__BTAB_IDX(psn)]);
    if (ep->free_head) {
        i = ep->free_head - 1u;
        ep->free_head = ep->pool[i].next;
        ep->pool_nfree--;
    } else if (ep->pool_hw < ep->pool_cap) { /* a block never used before */
        i = ep->pool_hw++;
        ep->pool_nfree--;
    } else { /* reclaim: the owner treats those PSNs as having no record */
        i = ep->ret_head - 1u;
        ep->conns[ep->pool[i].owner]->btab[MRC__PBLK_TAB(&ep->pool[i])] = 0;
        mrc__pool_unretain(ep, i);
        MRC__CNT(ep->st.pool_reclaims++);
    }
    mrc__pool_give(c, psn, i);
    mrc__pool_peak(ep);
}

/* ---- conn table --------------------------------------------------------------------------------------------- */
/* P16 rkeys and QPNs: random QPNs keep the slot in their low MRC__QPN_SLOT_BITS bits (O(1) lookup); the rest is random
 * */
#define MRC__QPN_SLOT_BITS                                                                                          \
    (MRC_MAX_CONNS <= 1 ? 0 : MRC_MAX_CONNS <= 2 ? 1 : MRC_MAX_CONNS <= 4 ? 2 : MRC_MAX_CONNS <= 8 ? 3             \
     : MRC_MAX_CONNS <= 16 ? 4 : MRC_MAX_CONNS <= 32 ? 5 : MRC_MAX_CONNS <= 64 ? 6 : MRC_MAX_CONNS <= 128 ? 7      \
     : MRC_MAX_CONNS <= 256 ? 8 : MRC_MAX_CONNS <= 512 ? 9 : MRC_MAX_CONNS <= 1024 ? 10                           \
     : MRC_MAX_CONNS <= 2048 ? 11 : MRC_MAX_CONNS <= 4096 ? 12 : MRC_MAX_CONNS <= 8192 ? 13                        \
     : MRC_MAX_CONNS <= 16384 ? 14 : MRC_MAX_CONNS <= 32768 ? 15 : 16)
MRC__PRIVATE uint32_t mrc__qpn_draw(mrc_endpoint *ep, unsigned slot) {
    uint32_t q;
    do { /* a slot's 2^(24 - bits) QPNs hold at most 4 forbidden ones: this ends after a few draws at worst */
        q = (((uint32_t)(mrc__splitmix(&ep->qpn_rng) >> 40) << MRC__QPN_SLOT_BITS) | slot) & MRC_PSN_MASK;
    } while (q <= MRC_EPOP_QPN || q == MRC_PSN_MASK || (ep->conns[slot] && ep->conns[slot]->qpn == q));
    return q;
}
MRC__PRIVATE mrc_conn *mrc__conn_lookup(const mrc_endpoint *ep, uint32_t qpn) {
    uint32_t slot = !ep->cfg.qpn_base ? qpn & ((1u << MRC__QPN_SLOT_BITS) - 1u) : qpn - ep->cfg.qpn_base;
    mrc_conn *c;
    if ((ep->cfg.qpn_base && qpn < ep->cfg.qpn_base) || slot >= MRC_MAX_CONNS) return (mrc_conn *)0;
    c = ep->conns[slot];
    return (c && c->qpn == qpn) ? c : (mrc_conn *)0;
}

/* ---- a QP's per-PSN records, work requests and bitmaps ------------------------------------------------------ */
/* The PSN a record link names: a listed record is unacknowledged, in [win_base, snd_nxt), so it is the PSN of
 * [snd_nxt - MRC_MAX_INFLIGHT, snd_nxt) with that residue. */
MRC__PRIVATE MRC__INLINE uint32_t mrc__link_psn(const mrc_conn *c, uint32_t idx) {
    uint32_t last = (c->snd_nxt - 1u) & MRC_PSN_MASK;
    return (last - ((last - idx) & (MRC_MAX_INFLIGHT - 1u))) & MRC_PSN_MASK;
}
/* O(1) list operations on records (mrc__plist; r is psn's record). Only the links between listed records are kept:
 * the head's prev and the tail's next are never read. */
MRC__PRIVATE MRC__INLINE void mrc__plist_push(mrc_conn *c, mrc__plist *l, uint32_t psn, mrc__psnrec *r, bool front) {
    mrc__recidx me = (mrc__recidx)(psn & (MRC_MAX_INFLIGHT - 1u));
    if (!l->n) {
        l->head = l->tail = psn;
    } else if (front) {
        MRC__REC(c, l->head)->prev = me;
        r->next = (mrc__recidx)(l->head & (MRC_MAX_INFLIGHT - 1u));
        l->head = psn;
    } else {
        MRC__REC(c, l->tail)->next = me;
        r->prev = (mrc__recidx)(l->tail & (MRC_MAX_INFLIGHT - 1u));
        l->tail = psn;
    }
    l->n++;
}
/* The record of PSN q, a list neighbour of psn: in bk, psn's block, when the caller holds it (not null) and q is in it -
 * no look-up (a window with holes: a PSN's neighbours on the transmit list are the PSNs beside it) */
MRC__PRIVATE MRC__ALWAYS_INLINE mrc__psnrec *mrc__plist_nb(mrc_conn *c, mrc__pblk *bk, uint32_t psn, uint32_t q) {
    return bk && !((q ^ psn) & ~(MRC__BLK_PSNS - 1u)) ? &bk->rec[q & (MRC__BLK_PSNS - 1u)] : MRC__REC(c, q);
}
/* mrc__plist_unlink with psn's block bk at hand, or null (then a constant: the test goes) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__plist_unlink_bk(mrc_conn *c, mrc__plist *l, uint32_t psn,
                                                         const mrc__psnrec *r, mrc__pblk *bk) {
    MRC_ASSERT(l->n > 0);
    if (l->n == 1) {
        MRC_ASSERT(l->head == psn && l->tail == psn);
    } else if (psn == l->head) {
        l->head = mrc__link_psn(c, r->next);
    } else if (psn == l->tail) {
        l->tail = mrc__link_psn(c, r->prev);
    } else {
        mrc__plist_nb(c, bk, psn, mrc__link_psn(c, r->prev))->next = r->next;
        mrc__plist_nb(c, bk, psn, mrc__link_psn(c, r->next))->prev = r->prev;
    }
    l->n--;
}
MRC__PRIVATE MRC__INLINE void mrc__plist_unlink(mrc_conn *c, mrc__plist *l, uint32_t psn, const mrc__psnrec *r) {
    mrc__plist_unlink_bk(c, l, psn, r, (mrc__pblk *)0);
}
/* circular bitmaps of nbits (a power of two) */
MRC__PRIVATE MRC__INLINE bool mrc__bit(const uint64_t *w, uint32_t nbits, uint32_t i) {
    i &= nbits - 1u;
    return (w[i >> 6] >> (i & 63u)) & 1u;
}
MRC__PRIVATE MRC__INLINE void mrc__bit_set(uint64_t *w, uint32_t nbits, uint32_t i) {
    i &= nbits - 1u;
    w[i >> 6] |= (uint64_t)1 << (i & 63u);
}
MRC__PRIVATE MRC__INLINE void mrc__bit_clr(uint64_t *w, uint32_t nbits, uint32_t i) {
    i &= nbits - 1u;
    w[i >> 6] &= ~((uint64_t)1 << (i & 63u));
}
/* the 64 bits starting at index start, bit 0 = start (the next word's share shifted in two steps that never reach
 * 64: no test of the position) */
MRC__PRIVATE uint64_t mrc__bits64(const uint64_t *w, uint32_t nbits, uint32_t start) {
    uint32_t i = start & (nbits - 1u), wi = i >> 6, sh = i & 63u, nw = nbits >> 6;
    return (w[wi] >> sh) | (w[(wi + 1u) & (nw - 1u)] << 1 << (63u - sh));
}
MRC__PRIVATE MRC__INLINE unsigned mrc__ctz64(uint64_t v) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(v);
#else
    unsigned n = 0;
    while (!(v & 1u)) { v >>= 1; n++; }
    return n;
#endif
}
MRC__PRIVATE MRC__INLINE uint16_t mrc__ts(const mrc_endpoint *ep, mrc_time t) {
    return (uint16_t)((t >> ep->cfg.wire.ts_shift) & 0xFFFFu);
}
/* The same for the probes' and endpoint operations' stamps, out of line under -Os (their three copies in line cost
 * 40 B of Cortex-M4 code more) */
MRC__PRIVATE MRC__SIZE_NOINLINE uint16_t mrc__ts_ctl(const mrc_endpoint *ep, mrc_time t) { return mrc__ts(ep, t); }
/* The full time of a 16-bit echoed timestamp: the latest time <= now with those low bits (wraps every
 * 2^(16 + ts_shift) ns, 8.4 ms by default). */
MRC__PRIVATE MRC__ALWAYS_INLINE mrc_time mrc__ts_unwrap(const mrc_endpoint *ep, uint16_t ts, mrc_time now) {
    unsigned sh = ep->cfg.wire.ts_shift;
    uint64_t nu = now >> sh, d = (nu - ts) & 0xFFFFu;
    return nu >= d ? (nu - d) << sh : 0;
}
/* The same for the general code's SACK and NACK paths, out of line under -Os (its three copies in line cost 136 B of
 * Cortex-M4 code more; the SACK fast path keeps its own copy in line: out of line it cost 16 per packet there) */
MRC__PRIVATE MRC__SIZE_NOINLINE mrc_time mrc__ts_unwrap_ctl(const mrc_endpoint *ep, uint16_t ts, mrc_time now) {
    return mrc__ts_unwrap(ep, ts, now);
}
MRC__PRIVATE MRC__INLINE uint32_t mrc__data_hdr_len(const mrc_conn *c, bool imm) {
    return (uint32_t)MRC_BTH_LEN + MRC_METH_LEN + (c->ep->cfg.tseth ? (uint32_t)MRC_TSETH_LEN : 0u) + MRC_RETH_LEN +
           (imm ? (uint32_t)MRC_IMMDT_LEN : 0u);
}
/* MSN of the send-queue entry of free-running index i: the first message of a QP is MSN 1 (sq_tail is 0 in RTS) */
MRC__PRIVATE MRC__INLINE uint16_t mrc__wr_msn(uint32_t i) { return (uint16_t)(i + 1u); }
/* free-running index of the send-queue entry in slot s (an entry in [sq_head, sq_tail)) */
MRC__PRIVATE MRC__INLINE uint32_t mrc__wr_index(const mrc_conn *c, uint32_t s) {
    return c->sq_head + ((s - c->sq_head) & (MRC_MAX_SQ - 1u));
}
/* whether the entry of free-running index i, in [sq_done, sq_tail), has sent a packet yet */
MRC__PRIVATE MRC__INLINE bool mrc__wr_started(const mrc_conn *c, uint32_t i) {
    return i - c->sq_done < c->sq_send - c->sq_done || (i == c->sq_send && c->sq_sent != 0);
}
/* packets in a message: its length in path-MTU packets, at least one (the path MTU is fixed from RTR on) */
MRC__PRIVATE MRC__INLINE uint32_t mrc__wr_npkts(const mrc_conn *c, const mrc__wr *wr) {
    return wr->len ? ((wr->len - 1u) >> c->mtu_shift) + 1u : 1u;
}
/* payload bytes of packet k of a message */
MRC__PRIVATE MRC__INLINE uint32_t mrc__pkt_len(const mrc_conn *c, const mrc__wr *wr, uint32_t k) {
    uint64_t off = (uint64_t)k << c->mtu_shift;
    uint32_t mtu = 1u << c->mtu_shift;
    if (wr->len <= off) return 0;
    return (uint32_t)MRC__MIN((uint64_t)mtu, wr->len - off);
}
MRC__PRIVATE MRC__INLINE bool mrc__pkt_has_imm(const mrc_conn *c, const mrc__wr *wr, uint32_t k) {
    return wr->opcode == MRC_WR_WRITE_IMM && k + 1u == mrc__wr_npkts(c, wr);
}
/* nominal_pktsize = UDP payload + 40 (spec 8.3.1): MRC headers + payload + pad + ICRC + 40. Every packet but a
 * message's last carries a full path MTU (a multiple of 4: no pad) and no immediate. */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__nominal_full(const mrc_conn *c) { /* a full packet's */
    return mrc__data_hdr_len(c, false) + (1u << c->mtu_shift) + 4u + MRC_NOMINAL_HDR;
}
MRC__PRIVATE MRC__INLINE uint32_t mrc__nominal(const mrc_conn *c, const mrc__wr *wr, uint32_t k) {
    uint32_t plen;
    if (k + 1u < mrc__wr_npkts(c, wr)) return mrc__nominal_full(c);
    plen = mrc__pkt_len(c, wr, k);
    return mrc__data_hdr_len(c, mrc__pkt_has_imm(c, wr, k)) + plen + ((4u - (plen & 3u)) & 3u) + 4u + MRC_NOMINAL_HDR;
}
/* nominal size of a PSN's packet (its message is still in the send queue while the PSN is in the window) */
MRC__PRIVATE uint32_t mrc__rec_nominal(const mrc_conn *c, uint32_t psn, const mrc__psnrec *r) {
    const mrc__wr *wr = &c->sq[r->wr];
    if (r->flags & MRC__PR_FULL) return mrc__nominal_full(c);
    return mrc__nominal(c, wr, (psn - wr->first_psn) & MRC_PSN_MASK);
}

/* ---- drops: a packet discarded is counted by reason, never fatal to the endpoint ---------------------------- */
/* Out of line: a drop is never the common case, and in line the 50-odd drop returns cost 136 B of Cortex-M4 code more
 * (most of them in the receive path's checks and the endpoint operations'); MRC__NOINLINE is on its declaration
 * (state.h) */
MRC__PRIVATE int mrc__drop(mrc_endpoint *ep, mrc_conn *c, unsigned reason, unsigned opcode) {
    MRC_ASSERT(reason < MRC_DROP_REASONS);
    ep->st.drop[reason]++;
    ep->st.rx_drops++;
    if (c) c->st.rx_drops++;
    MRC__TRACE(ep, MRC_TRACE_DROP, reason, opcode);
    (void)opcode;
    return MRC_ERR_DROP;
}
