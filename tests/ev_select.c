/* tests/ev_select.c - multipath: which EV a packet takes. SACK m = SKIP_ONCE, P26 hop groups, the recycling of good EVs
 * (P23), the verification queue, retransmissions and tail-loss probes on the proven EV (P25).
 *
 * White-box (MRC_STATIC: its own copy of the core, tests/test.h): ev_recycle_good and ev_ver_queue_full drive the
 * EV manager's private functions (mrc__ev_*) directly.
 */
#define MRC_STATIC /* white-box: its own copy of the core */
#define MRC_IMPLEMENTATION
#include "test.h"

/* ================================================================================================================
 * 11. SACK m = SKIP_ONCE. Unit level (one plane, 4 EVs, no backups, so a round of the rotation is 4 consecutive
 * packets, a permutation of the EVs): an EV named by a SKIP_ONCE SACK before its turn in the current round is
 * skipped for the rest of that round only and is back in the next; a second echo in the same round changes nothing.
 * An EV named after its turn in the round misses its next turn, i.e. sits out the next round and is back in the one
 * after (mrc.h: "misses its next turn"; see the report: the notes' table literally says "the rest of the current
 * rotation", which for an EV that already had its turn would be no skip at all). A retransmission (retriable
 * NACK, no path signal) never goes on the EV of the transmission it repeats. Scenario level: the responder sets
 * SKIP_ONCE exactly on the SACKs of CE-marked arrivals, and under loss, trims and CE every retransmission leaves on
 * another EV than the transmission before it.
 * ============================================================================================================== */
static int ev_feed_sack_m(ut_fix *f, uint32_t cack, uint32_t psn, uint32_t entropy, unsigned m) {
    uint8_t b[64];
    mrc_bth bth;
    mrc_seth sh;
    mrc_cc_state cs;
    mrc_rxinfo ri = ut_ri(1, entropy);
    size_t n = 0;
    memset(&bth, 0, sizeof bth);
    memset(&sh, 0, sizeof sh);
    memset(&cs, 0, sizeof cs);
    bth.opcode = MRC_OP_SACK;
    bth.pkey = 0xFFFF;
    bth.dest_qp = mrc_conn_qpn(&f->c);
    bth.psn = cack;
    sh.m = (uint8_t)m;
    sh.ack_psn_offset = (int16_t)mrc_psn_diff(psn, cack);
    sh.entropy = entropy;
    sh.cack_psn = cack;
    sh.sack_offset = 1;
    n += (size_t)mrc_bth_encode(b + n, sizeof b - n, &f->cfg.wire, &bth);
    n += (size_t)mrc_seth_encode(b + n, sizeof b - n, &f->cfg.wire, &sh);
    n += (size_t)mrc_cc_state_encode(b + n, sizeof b - n, &cs);
    return mrc_endpoint_recv(&f->ep, b, n, &ri, f->now);
}
typedef struct ev_rot {
    uint32_t val[4];          /* the EVs' values */
    uint32_t psn_on[4];       /* the last PSN sent on each */
    unsigned n;
} ev_rot;
/* poll k packets; their EV indexes into got[]; -1 on failure */
static int ev_rot_poll(ut_fix *f, ev_rot *o, unsigned k, unsigned *got) {
    static uint8_t buf[4200];
    mrc_txinfo ti;
    mrc_pkt pk;
    unsigned i, j;
    for (i = 0; i < k; i++) {
        if (ut_poll(f, buf, sizeof buf, &ti, &pk) <= 0 || !sc_is_data(pk.bth.opcode)) return -1;
        for (j = 0; j < 4 && o->val[j] != ti.ev; j++) {
        }
        if (j == 4) return -1;
        got[i] = j;
        o->psn_on[j] = pk.bth.psn;
    }
    return 0;
}
/* the k EVs in got[] are distinct and are exactly the set 'want' (bit i: EV i) */
static int ev_rot_is(const unsigned *got, unsigned k, unsigned want) {
    unsigned i, seen = 0;
    for (i = 0; i < k; i++) {
        if (seen & (1u << got[i])) return 0;
        seen |= 1u << got[i];
    }
    return seen == want;
}
static int t_ev_skip_once_rotation(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    ev_rot o;
    mrc_conn_stats cs;
    unsigned got[8], i, x, y, z, round;
    const uint32_t sq = 0x700, cack = sq - 1u; /* nothing acknowledged: the SACKs only name packets */
    ut_src_init();
    ut_cfg(&cfg);
    cfg.num_ports = 1;
    cfg.auto_ev.per_port = 4;
    cfg.ev.backup_pct = 0;
    cfg.ev.recycle = MRC_EV_SCOPE_NONE; /* the rotation alone (section 12 tests P23 on top of it) */
    cfg.cc.algo = MRC_CC_ALGO_NONE;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK(mrc_conn_ev_count(&f->c) == 4);
    memset(&o, 0, sizeof o);
    for (i = 0; i < 4; i++) CHECK(mrc_conn_ev_get(&f->c, i, &o.val[i], NULL, NULL) == MRC_OK);
    for (i = 0; i < 4; i++) CHECK(o.val[i] != o.val[(i + 1u) % 4u] && o.val[i] != o.val[(i + 2u) % 4u]);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 100u * 256u, 0), MRC_OK);
    /* round 1: the four EVs */
    CHECK(ev_rot_poll(f, &o, 4, got) == 0);
    CHECKF(ev_rot_is(got, 4, 0xF), "round 1: %u %u %u %u", got[0], got[1], got[2], got[3]);
    /* round 2: after the first packet, an EV that has not had its turn is skipped: this round has 3 packets */
    CHECK(ev_rot_poll(f, &o, 1, got) == 0);
    x = (got[0] + 1u + (unsigned)(g_seed % 3u)) % 4u;
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[x], o.val[x], MRC_M_SKIP_ONCE), MRC_OK);
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[x], o.val[x], MRC_M_SKIP_ONCE), MRC_OK); /* again: a duplicate, quiet
                                                                                           (P38): no extra turn lost */
    CHECK(ev_rot_poll(f, &o, 2, got + 1) == 0);
    CHECKF(ev_rot_is(got, 3, 0xFu & ~(1u << x)), "round 2 with EV %u skipped: %u %u %u", x, got[0], got[1], got[2]);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK(cs.ev_skip_req == 1 && cs.ev_skipped == 1 && cs.rx_sack_quiet == 1);
    CHECK(ev_state(&f->c, x) == MRC_EVS_GOOD); /* SKIP is internal: reported GOOD */
    /* round 3: it is back */
    CHECK(ev_rot_poll(f, &o, 4, got) == 0);
    CHECKF(ev_rot_is(got, 4, 0xF), "round 3: %u %u %u %u (EV %u back?)", got[0], got[1], got[2], got[3], x);
    /* round 4: after two packets, the first of them is named: the round finishes without it (it already went),
     * round 5 goes without it, round 6 has all four */
    CHECK(ev_rot_poll(f, &o, 2, got) == 0);
    y = got[0];
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[y], o.val[y], MRC_M_SKIP_ONCE), MRC_OK);
    CHECK(ev_rot_poll(f, &o, 2, got + 2) == 0);
    CHECKF(ev_rot_is(got, 4, 0xF), "round 4: %u %u %u %u", got[0], got[1], got[2], got[3]);
    CHECK(ev_rot_poll(f, &o, 3, got) == 0);
    CHECKF(ev_rot_is(got, 3, 0xFu & ~(1u << y)), "round 5 without EV %u: %u %u %u", y, got[0], got[1], got[2]);
    CHECK(ev_rot_poll(f, &o, 4, got) == 0);
    CHECKF(ev_rot_is(got, 4, 0xF), "round 6: %u %u %u %u", got[0], got[1], got[2], got[3]);
    /* an echo with m = NONE changes nothing */
    z = got[3];
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[z], o.val[z], MRC_M_NONE), MRC_OK);
    CHECK(ev_rot_poll(f, &o, 4, got) == 0);
    CHECK(ev_rot_is(got, 4, 0xF));
    mrc_conn_stats_get(&f->c, &cs);
    CHECK(cs.ev_skip_req == 2 && cs.ev_skipped == 2 && cs.ev_demoted == 0);
    /* retransmissions: a retriable NACK (no path signal) for a PSN sent on EV e; the retransmission, polled right
     * away, goes on another EV, wherever the rotation stands (20 times: every position of e in the round) */
    for (round = 0; round < 20; round++) {
        uint32_t psn, e;
        static uint8_t buf[4200];
        mrc_txinfo ti;
        mrc_pkt pk;
        CHECK(ev_rot_poll(f, &o, 1 + round % 3u, got) == 0);
        e = got[0];
        psn = o.psn_on[e];
        CHECK_EQ(ut_feed_nack(f, psn, MRC_NACK_NO_RESOURCE, 0), MRC_OK);
        CHECK(ut_poll(f, buf, sizeof buf, &ti, &pk) > 0);
        CHECKF(sc_is_data(pk.bth.opcode) && pk.bth.rtx && pk.bth.psn == psn && ti.ev != o.val[e],
               "retransmission %u of PSN %#x: opcode %#x rtx %u psn %#x on EV %#x, lost on %#x", round, psn,
               pk.bth.opcode, pk.bth.rtx, pk.bth.psn, ti.ev, o.val[e]);
    }
    mrc_conn_stats_get(&f->c, &cs);
    CHECK(cs.tx_rtx == 20 && cs.ev_demoted == 0 && cs.ev_skipped == 2);
    return 0;
}

typedef struct ev_ce {
    uint32_t base;
    uint32_t last_ev[8192];
    uint8_t last_port[8192], ce[8192], got[8192];
    uint32_t rtx, rtx_same, checked, ce_sacks, m_bad, m_bad_psn;
} ev_ce;
static void ev_ce_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    ev_ce *o = (ev_ce *)p->ud;
    mrc_pkt k;
    uint32_t i;
    (void)now;
    if (!sc_decode(p, pkt, len, &k)) return;
    if (from == 0 && sc_is_data(k.bth.opcode)) {
        i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
        if (i >= 8192) return;
        if (k.bth.rtx) {
            o->rtx++;
            if (ti->ev == o->last_ev[i] && ti->port == o->last_port[i]) o->rtx_same++;
        }
        o->last_ev[i] = ti->ev;
        o->last_port[i] = ti->port;
    } else if (from == 1 && k.bth.opcode == MRC_OP_SACK && !k.seth.pr) {
        i = (uint32_t)mrc_psn_diff(mrc_psn_add(k.seth.cack_psn, k.seth.ack_psn_offset), o->base);
        if (i >= 8192 || !o->got[i] || o->last_ev[i] != k.seth.entropy) return;
        o->checked++;
        o->ce_sacks += k.seth.m == MRC_M_SKIP_ONCE;
        if (k.seth.m != (o->ce[i] ? MRC_M_SKIP_ONCE : MRC_M_NONE)) {
            if (!o->m_bad++) o->m_bad_psn = k.seth.cack_psn;
        }
    }
}
static void ev_ce_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    ev_ce *o = (ev_ce *)p->ud;
    mrc_pkt k;
    uint32_t i;
    (void)now;
    if (to != 1 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
    if (i >= 8192 || ri->ev != o->last_ev[i]) return; /* only the latest transmission's arrival */
    o->got[i] = 1;
    o->ce[i] = (ri->ecn & 3u) == 3u;
}
static int ev_ce_body(sc_pair *p) {
    static ev_ce o;
    mrc_wire_link l;
    mrc_conn_stats cs;
    unsigned i;
    ev_log_reset();
    sc_defaults(p, g_seed + 6100);
    p->region = 8u << 20;
    mrc_wire_link_default(&l);
    sc_set_links(p, MRC_WIRE_B, &l);
    l.jitter_ns = 500;
    l.loss_ppm = 20000;
    l.trim_ppm = 20000;
    l.ce_ppm = 30000;
    sc_set_links(p, MRC_WIRE_A, &l);
    memset(&o, 0, sizeof o);
    o.base = p->attr[0].sq_psn;
    p->ud = &o;
    p->tap = ev_ce_tap;
    p->rx = ev_ce_rx;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, ev_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    cs = sc_cstats(p, 0, 0);
    SC_CHECKF(p, o.m_bad == 0 && o.checked > 1000 && o.ce_sacks > 20,
              "%u of %u SACKs with m not matching their packet's CE mark (first at cack %#x); %u SKIP_ONCE", o.m_bad,
              o.checked, o.m_bad_psn, o.ce_sacks);
    SC_CHECKF(p, o.rtx_same == 0 && o.rtx > 50, "%u of %u retransmissions on the EV they repeat", o.rtx_same, o.rtx);
    SC_CHECK(p, cs.ev_skip_req >= o.ce_sacks && cs.ev_skipped > 0);
    note("CE 3%%, loss 2%%, trims 2%%: %u SACKs checked, %u SKIP_ONCE, %llu turns skipped; %u retransmissions, "
         "none on the EV they repeat", o.checked, o.ce_sacks, (unsigned long long)cs.ev_skipped, o.rtx);
    return 0;
}
SC_TEST(t_ev_skip_once_ce, ev_ce_body)

/* ================================================================================================================
 * 7. P26 hop groups. An EXP profile of 64 EVs (8 planes x 8, the layout of mrc_ev_profile_udp_planes) whose EVs
 * of a plane form two hop groups of 4 (as if each group crossed one T1): group of EV i = 1 + 2 (i mod 8) + (i/8)/4.
 * A dead hop swallows every packet A sends on its group's EVs (data and probes), from 6 us on (each plane's first
 * round out; no backups, so every EV carries data). With ev.group_retire the first confirmed loss retires the whole
 * group at once: its 4 ASSUMED_BAD events carry one timestamp and fewer data packets go into the hole than with
 * the groups ignored (each EV then needs its own loss). The hop heals: probes bring each EV back on its own. A group
 * spanning the whole QP (one shared hop, e.g. the peer's link) with one plane dead keeps every other plane at its
 * floor, the transfer completes, and probes revive every healthy EV.
 * ============================================================================================================== */
#define EV_HG_N 64
typedef struct ev_hg {
    uint16_t group[EV_HG_N];
    uint16_t dead;            /* the group the dead hop kills (0: none) */
    uint8_t dead_port;        /* or: every EV of this port (whole-group test) */
    int open;
    uint32_t lost, lost_retired, probes_lost; /* data packets into the hole; of those, once an EV of it was bad */
} ev_hg;
static int ev_hg_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    ev_hg *o = (ev_hg *)p->ud;
    int idx;
    (void)pkt, (void)len, (void)now;
    if (from != 0 || !o->open || ti->qpn == MRC_EPOP_QPN) return 0;
    idx = ev_find(p->q[0][0].c, ti->ev, ti->port);
    if (idx < 0 || (o->dead_port ? ti->port != o->dead_port : o->group[idx] != o->dead)) return 0;
    if (ti->opcode == MRC_OP_PROBE_REQ) {
        o->probes_lost++;
    } else if (ti->payload_len) {
        unsigned i;
        o->lost++;
        for (i = 0; i < EV_HG_N; i++)
            if (o->group[i] == o->dead && ev_state(p->q[0][0].c, i) == MRC_EVS_ASSUMED_BAD) break;
        if (i < EV_HG_N) o->lost_retired++;
    }
    return 1;
}
/* one run: 8 x 1 MiB, the hole opens at 6 us; then healed and 4 x 1 MiB more. 0 on success */
static int ev_hg_run(sc_pair *p, ev_hg *o, uint64_t seed, unsigned retire, int whole) {
    unsigned i;
    ev_log_reset();
    sc_defaults(p, seed);
    p->cfg[0].ev.backup_pct = 0;
    /* 7 probes a round: every 40 us keeps them under the peer's answer rate (P19, 250,000/s); faster rounds lose
     * answers to it and revivals, which need consecutive answers, can stall */
    p->cfg[0].ev.probe_interval_ns = 40000;
    p->cfg[0].ev.group_retire = (uint8_t)retire; /* MRC_EV_RETIRE_* */
    /* P26 alone: P29's hold keeps a suspect EV out until its verdict, which by itself saves most of the losses the
     * groups save here (13 and 13 on seed 1), and the comparison is of the groups */
    p->cfg[0].ev.hold = MRC_EV_SCOPE_NONE;
    p->cfg[0].ev.sweep = MRC_EV_SCOPE_NONE; /* ... and so would P35's sweeps (the profile's EVs are UDP: hashed) */
    p->region = 8u << 20;
    memset(o, 0, sizeof *o);
    for (i = 0; i < EV_HG_N; i++) o->group[i] = (uint16_t)(whole ? 1u : 1u + 2u * (i % 8u) + (i / 8u) / 4u);
    if (whole) o->dead_port = 2;
    else o->dead = 1u + 2u * 1u + 0u; /* plane 2, its first four EVs */
    p->ud = o;
    p->filter = ev_hg_filter;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_ev_profile_udp_planes(p->ep[0], 7, 1, 8, 8, 0xC000u, 8, 0) == MRC_OK);
    SC_CHECK(p, mrc_ev_profile_groups(p->ep[0], 1, o->group, EV_HG_N) == MRC_OK);
    SC_CHECK(p, ev_connect(p, 0, 1, 0) == 0);
    SC_CHECK(p, mrc_conn_ev_count(p->q[0][0].c) == EV_HG_N && mrc_conn_check(p->q[0][0].c) == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, ev_run_until(p, 6 * SC_US) == 0);
    o->open = 1;
    SC_CHECK(p, ev_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, mrc_conn_check(p->q[0][0].c) == 0);
    return 0;
}
static int ev_hg_all_good(sc_pair *p) {
    unsigned i;
    for (i = 0; i < EV_HG_N; i++)
        if (ev_state(p->q[0][0].c, i) != MRC_EVS_GOOD) return 0;
    return 1;
}
static int ev_hg_heal(sc_pair *p, ev_hg *o) {
    unsigned i;
    o->open = 0;
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    mrc_wire_kick(&p->w);
    SC_CHECK(p, ev_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    /* probe rounds back off while nothing answers: wait them out (bounded), then every EV must be GOOD again */
    p->stop = ev_hg_all_good;
    SC_CHECK(p, ev_run_until(p, sc_now(p) + 200 * SC_MS) >= 0);
    p->stop = NULL;
    for (i = 0; i < EV_HG_N; i++)
        SC_CHECKF(p, ev_state(p->q[0][0].c, i) == MRC_EVS_GOOD, "EV %u (group %u) in state %#x after the heal", i,
                  o->group[i], ev_state(p->q[0][0].c, i));
    return 0;
}
static int ev_hg_body(sc_pair *p) {
    static ev_hg o, off, two;
    sc_pair *q;
    mrc_conn_stats cs;
    mrc_time t0 = MRC_TIME_NEVER, t1 = 0;
    unsigned i, n = 0;
    int rc;
    /* the same run with the groups ignored, for the comparison */
    q = (sc_pair *)calloc(1, sizeof(sc_pair));
    if (!q) return 1;
    rc = ev_hg_run(q, &off, g_seed + 5900, MRC_EV_RETIRE_ALONE, 0);
    if (!rc) {
        cs = sc_cstats(q, 0, 0);
        if (cs.ev_group_retired != 0) {
            sc_failf(p, "groups off: %llu EVs retired by group", (unsigned long long)cs.ev_group_retired);
            rc = 1;
        }
    }
    sc_free(q);
    memset(q, 0, sizeof *q);
    if (!rc) { /* group_retire SECOND: the first confirmed loss demotes its EV alone, the second retires the rest */
        mrc_time t[4], tmin = MRC_TIME_NEVER;
        unsigned k = 0, first = 0, later = 0;
        rc = ev_hg_run(q, &two, g_seed + 5900, MRC_EV_RETIRE_SECOND, 0);
        for (i = 0; !rc && i < EV_HG_N; i++)
            if (two.group[i] == two.dead && k < 4) t[k++] = ev_log_first(0, i, MRC_EVS_ASSUMED_BAD, 0);
        for (i = 0; i < k; i++) tmin = t[i] < tmin ? t[i] : tmin;
        for (i = 0; i < k; i++) {
            first += t[i] == tmin;
            later += t[i] != tmin && t[i] != MRC_TIME_NEVER;
        }
        cs = sc_cstats(q, 0, 0);
        if (!rc && (k != 4 || first != 1 || later != 3 || cs.ev_group_retired < 1 || cs.ev_demoted != 4)) {
            sc_failf(p, "group_retire SECOND: %u demoted first, %u later; %llu by group, %llu demoted", first, later,
                     (unsigned long long)cs.ev_group_retired, (unsigned long long)cs.ev_demoted);
            rc = 1;
        }
        sc_free(q);
        memset(q, 0, sizeof *q);
    }
    if (rc) {
        free(q);
        return 1;
    }
    free(q);
    if (ev_hg_run(p, &o, g_seed + 5900, MRC_EV_RETIRE_AT_ONCE, 0)) return 1;
    cs = sc_cstats(p, 0, 0);
    for (i = 0; i < EV_HG_N; i++) {
        mrc_time t = ev_log_first(0, i, MRC_EVS_ASSUMED_BAD, 0);
        if (o.group[i] != o.dead) {
            SC_CHECKF(p, t == MRC_TIME_NEVER, "EV %u of healthy group %u demoted", i, o.group[i]);
            continue;
        }
        SC_CHECKF(p, t != MRC_TIME_NEVER && ev_state(p->q[0][0].c, i) == MRC_EVS_ASSUMED_BAD,
                  "EV %u of the dead group never demoted (state %#x)", i, ev_state(p->q[0][0].c, i));
        if (t < t0) t0 = t;
        if (t > t1) t1 = t;
        n++;
    }
    SC_CHECK(p, n == 4);
    SC_CHECKF(p, t0 == t1 && cs.ev_group_retired >= 1 && cs.ev_demoted == 4,
              "group retired over %llu ns; %llu by group, %llu demoted", (unsigned long long)(t1 - t0),
              (unsigned long long)cs.ev_group_retired, (unsigned long long)cs.ev_demoted);
    SC_CHECKF(p, o.lost_retired == 0, "%u data packets into the dead group after it was retired", o.lost_retired);
    SC_CHECKF(p, o.lost < off.lost, "%u data packets lost into the dead hop with groups, %u without", o.lost,
              off.lost);
    if (ev_hg_heal(p, &o)) return 1;
    cs = sc_cstats(p, 0, 0);
    SC_CHECKF(p, cs.ev_revived == 4, "%llu revived", (unsigned long long)cs.ev_revived);
    note("hop group of 4 EVs dead: retired together after %u data packets lost into it (%u with groups ignored, %u "
         "after the group was retired, %u retiring at the second witness); healed: probes revived each", o.lost,
         off.lost, o.lost_retired, two.lost);
    return 0;
}
SC_TEST(t_ev_hop_group_retire, ev_hg_body)

static int ev_hg_whole_body(sc_pair *p) {
    static ev_hg o;
    mrc_ev_port_summary sm[MRC_MAX_PORTS];
    mrc_conn_stats cs;
    unsigned i;
    if (ev_hg_run(p, &o, g_seed + 5910, MRC_EV_RETIRE_AT_ONCE, 1)) return 1;
    cs = sc_cstats(p, 0, 0);
    SC_CHECK(p, mrc_conn_ev_summary(p->q[0][0].c, sm) == MRC_OK);
    SC_CHECKF(p, cs.ev_group_retired >= 1 && cs.ev_withheld >= 1, "%llu retired by group, %llu withheld",
              (unsigned long long)cs.ev_group_retired, (unsigned long long)cs.ev_withheld);
    SC_CHECKF(p, sm[1].active + sm[1].skipped == 0, "dead plane 2 still has %u active, %u skipped EVs",
              sm[1].active, sm[1].skipped);
    if (ev_hg_heal(p, &o)) return 1;
    note("one hop group over all 64 EVs, plane 2 dead: %llu EVs retired by group, %llu demotions withheld by the "
         "floor, %u data packets lost; healed: every EV GOOD again", (unsigned long long)cs.ev_group_retired,
         (unsigned long long)cs.ev_withheld, o.lost);
    for (i = 0; i < MRC_MAX_PORTS; i++) (void)sm[i];
    return 0;
}
SC_TEST(t_ev_hop_group_whole, ev_hg_whole_body)

/* mrc_ev_profile_groups: argument checks, the rings it builds (rule 18), a new array forgets them */
static int t_ev_hop_group_api(void) {
    static mrc_endpoint ep;
    mrc_config cfg;
    uint16_t g[8] = {5, 0, 5, 7, 5, 7, 0, 0};
    mrc_ev_profile_attr a;
    mrc_config_default(&cfg);
    cfg.num_ports = 2;
    CHECK(mrc_endpoint_init(&ep, &cfg, 0) == MRC_OK);
    CHECK(mrc_ev_profile_groups(&ep, 1, g, 8) == MRC_ERR_NOENT);
    CHECK(mrc_ev_profile_udp_planes(&ep, 3, 1, 2, 4, 0xC000u, 2, 0) == MRC_OK);
    CHECK(mrc_ev_profile_groups(NULL, 1, g, 8) == MRC_ERR_INVAL);
    CHECK(mrc_ev_profile_groups(&ep, 0, g, 8) == MRC_ERR_INVAL);
    CHECK(mrc_ev_profile_groups(&ep, 1, NULL, 8) == MRC_ERR_INVAL);
    CHECK(mrc_ev_profile_groups(&ep, 1, g, 9) == MRC_ERR_INVAL);
    CHECK(mrc_ev_profile_groups(&ep, 1, g, 8) == MRC_OK);
    CHECK(mrc_ev_profile_groups(&ep, 1, NULL, 0) == MRC_OK); /* none */
    CHECK(mrc_ev_profile_groups(&ep, 1, g, 6) == MRC_OK);
    { /* the rings (1 + next index, round to the first): 0 -> 2 -> 4 -> 0 (group 5), 3 -> 5 -> 3 (group 7) */
        static const uint16_t nx[8] = {3, 0, 5, 6, 1, 4, 0, 0};
        unsigned i;
        for (i = 0; i < 8; i++) CHECK(ep.profs[0].ev[i].grp_nx == nx[i] && ep.profs[0].ev[i].group == g[i]);
    }
    CHECK(mrc_ev_profile_query(&ep, 1, &a) == MRC_OK && a.ev_count == 8);
    a.state = MRC_PROFILE_OFFLINE; /* a new array (4 EVs) forgets the groups */
    CHECK(mrc_ev_profile_modify(&ep, 1, &a, MRC_EV_PROF_ATTR_STATE, 0) == MRC_OK);
    CHECK(mrc_ev_profile_groups(&ep, 1, g, 8) == MRC_OK); /* OFFLINE too */
    CHECK(ep.profs[0].ev[4].grp_nx == 1);
    a.ev_count = 4;
    CHECK(mrc_ev_profile_modify(&ep, 1, &a, MRC_EV_PROF_ATTR_COUNT, 0) == MRC_OK);
    CHECK(ep.profs[0].ev[0].grp_nx == 0 && ep.profs[0].ev[0].group == 0 && ep.profs[0].ev[3].grp_nx == 0);
    CHECK(mrc_ev_profile_groups(&ep, 1, g, 5) == MRC_ERR_INVAL);
    return 0;
}

/* ================================================================================================================
 * 12. Recycling of good EVs (docs/PROTOCOL.md P23). Unit level, on section 11's fixture (one plane of 4 EVs, no
 * backups: a round of the rotation is 4 packets, a permutation). Each check polls 3 packets of a round, so the
 * rotation's next EV (m, the round's last) is known, then feeds a SACK and looks at the next packets:
 *   - a clean SACK (m = NONE, the EV's own entropy) puts its EV on the next packet, before m; two clean SACKs
 *     are served oldest first, one packet each; the rotation resumes where it stood; a recycled EV that was still
 *     due in the round has its turn then (the rotation gives the round's others, then a new round);
 *   - a CE echo (SKIP_ONCE), a SKIP_ONCE after a clean SACK, a trim after a clean SACK, a clean SACK with another
 *     EV's entropy (P9): the next packet is m - nothing is recycled, and a stale entry is never used later;
 *   - an EV demoted (ALWAYS_SKIP) after its clean SACK is never used again;
 *   - a retransmission never goes on the EV it repeats even when that EV is recycled; the entry waits for the next
 *     new packet;
 *   - liveness: every recycled EV skipped or demoted at once still leaves a packet for every poll;
 * and on two planes the planes still alternate, each recycling only its own EVs. mrc_conn_check (rule 17) after
 * every step.
 * ============================================================================================================== */
typedef struct ev_rc {
    uint32_t val[8];
    uint8_t port[8];
    uint32_t psn_on[8], psn_prev[8]; /* the latest first transmission on each EV, and the one before it */
    unsigned n;
} ev_rc;
/* poll k data packets; their EV indexes into got[] (ports into pt[] if given); -1 on failure */
static int ev_rc_poll(ut_fix *f, ev_rc *o, unsigned k, unsigned *got, unsigned *pt) {
    static uint8_t buf[4200];
    mrc_txinfo ti;
    mrc_pkt pk;
    unsigned i, j;
    for (i = 0; i < k; i++) {
        if (ut_poll(f, buf, sizeof buf, &ti, &pk) <= 0 || !sc_is_data(pk.bth.opcode)) return -1;
        for (j = 0; j < o->n && !(o->val[j] == ti.ev && o->port[j] == ti.port); j++) {
        }
        if (j == o->n) return -1;
        got[i] = j;
        if (pt) pt[i] = ti.port;
        if (!pk.bth.rtx) {
            o->psn_prev[j] = o->psn_on[j];
            o->psn_on[j] = pk.bth.psn;
        }
    }
    return mrc_conn_check(&f->c) == 0 ? 0 : -1;
}
/* the round's EV not in got[0..2] (4 EVs) */
static unsigned ev_rc_missing(const unsigned *got) {
    unsigned m = 0xFu & ~(1u << got[0]) & ~(1u << got[1]) & ~(1u << got[2]);
    return m == 1u ? 0u : m == 2u ? 1u : m == 4u ? 2u : m == 8u ? 3u : 99u;
}
static int ev_rc_setup(ut_fix *f, ev_rc *o, unsigned ports, uint32_t sq) {
    mrc_config cfg;
    unsigned i;
    ut_src_init();
    ut_cfg(&cfg);
    cfg.num_ports = (uint8_t)ports;
    cfg.auto_ev.per_port = 4;
    cfg.ev.backup_pct = 0;
    cfg.cc.algo = MRC_CC_ALGO_NONE;
    CHECK(cfg.ev.recycle == MRC_EV_SCOPE_AUTO); /* the default */
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 1, sq), MRC_OK);
    memset(o, 0, sizeof *o);
    o->n = mrc_conn_ev_count(&f->c);
    CHECK(o->n == 4u * ports);
    for (i = 0; i < o->n; i++) CHECK(mrc_conn_ev_get(&f->c, i, &o->val[i], &o->port[i], NULL) == MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 200u * 256u, 0), MRC_OK);
    return 0;
}
static int t_ev_recycle(void) {
    ut_fix *f = &ut_fx;
    ev_rc o;
    mrc_conn_stats cs;
    unsigned got[8], pt[8], i, m, a, b, round;
    const uint32_t sq = 0x900, cack = sq - 1u; /* nothing acknowledged: the SACKs only name packets */
    if (ev_rc_setup(f, &o, 1, sq)) return 1;
    CHECK(ev_rc_poll(f, &o, 4, got, NULL) == 0);
    CHECK(ev_rot_is(got, 4, 0xF));
    /* a clean EV goes again before the rotation moves on; two are served oldest first */
    CHECK(ev_rc_poll(f, &o, 3, got, NULL) == 0);
    m = ev_rc_missing(got);
    a = got[2];
    b = got[0];
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[a], o.val[a], MRC_M_NONE), MRC_OK);
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[b], o.val[b], MRC_M_NONE), MRC_OK);
    CHECK(ev_rc_poll(f, &o, 3, got + 3, NULL) == 0);
    CHECKF(got[3] == a && got[4] == b && got[5] == m, "recycled %u then %u, then the rotation's %u: got %u %u %u", a,
           b, m, got[3], got[4], got[5]);
    /* the same EV returned clean twice (two of its packets named) carries two packets; the same SACK twice counts
     * once (P38 quiet SACKs: the duplicate only acknowledges) */
    CHECK(ev_rc_poll(f, &o, 3, got, NULL) == 0);
    m = ev_rc_missing(got);
    a = got[1];
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[a], o.val[a], MRC_M_NONE), MRC_OK);
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[a], o.val[a], MRC_M_NONE), MRC_OK);
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_prev[a], o.val[a], MRC_M_NONE), MRC_OK);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rx_sack_quiet, 1);
    CHECK(ev_rc_poll(f, &o, 3, got + 3, NULL) == 0);
    CHECKF(got[3] == a && got[4] == a && got[5] == m, "twice %u then %u: got %u %u %u", a, m, got[3], got[4], got[5]);
    /* a recycled EV still due in the round has its turn now: the rotation gives the round's other two, then a new
     * round of all four */
    CHECK(ev_rc_poll(f, &o, 4, got, NULL) == 0);
    CHECK(ev_rot_is(got, 4, 0xF));
    CHECK(ev_rc_poll(f, &o, 1, got + 4, NULL) == 0);
    a = got[4] == got[0] ? got[1] : got[0]; /* due in this round; its packet of the last one returns clean */
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[a], o.val[a], MRC_M_NONE), MRC_OK);
    CHECK(ev_rc_poll(f, &o, 3, got + 5, NULL) == 0);
    CHECKF(got[5] == a && ev_rot_is(got + 6, 2, 0xFu & ~(1u << got[4]) & ~(1u << a)),
           "recycled %u (due in the round after %u): got %u, then %u %u", a, got[4], got[5], got[6], got[7]);
    CHECK(ev_rc_poll(f, &o, 4, got, NULL) == 0);
    CHECK(ev_rot_is(got, 4, 0xF));
    /* CE echo: not recycled */
    CHECK(ev_rc_poll(f, &o, 3, got, NULL) == 0);
    m = ev_rc_missing(got);
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[got[0]], o.val[got[0]], MRC_M_SKIP_ONCE), MRC_OK);
    CHECK(ev_rc_poll(f, &o, 1, got + 3, NULL) == 0);
    CHECKF(got[3] == m, "after a CE echo for %u: %u, want the rotation's %u", got[0], got[3], m);
    CHECK(ev_rc_poll(f, &o, 3, got + 4, NULL) == 0); /* it sits the next round out (it had its turn) */
    CHECK(ev_rot_is(got + 4, 3, 0xFu & ~(1u << got[0])));
    CHECK(ev_rc_poll(f, &o, 4, got, NULL) == 0);
    CHECK(ev_rot_is(got, 4, 0xF));
    /* clean, then CE for the same EV (another of its packets): its entry is stale, never used */
    CHECK(ev_rc_poll(f, &o, 3, got, NULL) == 0);
    m = ev_rc_missing(got);
    a = got[1];
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[a], o.val[a], MRC_M_NONE), MRC_OK);
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_prev[a], o.val[a], MRC_M_SKIP_ONCE), MRC_OK);
    CHECK(ev_rc_poll(f, &o, 4, got + 3, NULL) == 0);
    CHECKF(got[3] == m && ev_rot_is(got + 4, 3, 0xFu & ~(1u << a)), "clean then CE for %u: got %u, then %u %u %u", a,
           got[3], got[4], got[5], got[6]);
    CHECK(ev_rc_poll(f, &o, 4, got, NULL) == 0);
    CHECK(ev_rot_is(got, 4, 0xF));
    /* another EV's entropy (P9): no path signal, nothing recycled */
    CHECK(ev_rc_poll(f, &o, 3, got, NULL) == 0);
    m = ev_rc_missing(got);
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[got[0]], o.val[got[1]], MRC_M_NONE), MRC_OK);
    CHECK(ev_rc_poll(f, &o, 1, got + 3, NULL) == 0);
    CHECKF(got[3] == m, "a SACK with a foreign entropy recycled %u (want the rotation's %u)", got[3], m);
    /* clean, then trimmed: the retransmission goes on the rotation's m (never the EV it repeats), the EV sits out */
    CHECK(ev_rc_poll(f, &o, 3, got, NULL) == 0);
    m = ev_rc_missing(got);
    a = got[2];
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[a], o.val[a], MRC_M_NONE), MRC_OK);
    CHECK_EQ(ut_feed_nack(f, o.psn_on[a], MRC_NACK_TRIMMED, 0), MRC_OK);
    CHECK(ev_rc_poll(f, &o, 4, got + 3, NULL) == 0);
    CHECKF(got[3] == m && ev_rot_is(got + 4, 3, 0xFu & ~(1u << a)), "clean then trimmed %u: got %u, then %u %u %u",
           a, got[3], got[4], got[5], got[6]);
    CHECK(ev_rc_poll(f, &o, 4, got, NULL) == 0);
    CHECK(ev_rot_is(got, 4, 0xF));
    /* a retransmission avoids the EV it repeats, recycled or not; the entry serves the next new packet */
    for (round = 0; round < 6; round++) {
        CHECK(ev_rc_poll(f, &o, 3, got, NULL) == 0);
        m = ev_rc_missing(got);
        a = got[round % 3u];
        CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[a], o.val[a], MRC_M_NONE), MRC_OK);
        CHECK_EQ(ut_feed_nack(f, o.psn_on[a], MRC_NACK_NO_RESOURCE, 0), MRC_OK);
        CHECK(ev_rc_poll(f, &o, 2, got + 3, NULL) == 0);
        CHECKF(got[3] == m && got[4] == a, "rtx of a PSN of recycled %u: on %u (want %u), then %u (want %u)", a, got[3],
               m, got[4], a);
    }
    /* demoted after its clean SACK: never used again */
    CHECK(ev_rc_poll(f, &o, 3, got, NULL) == 0);
    m = ev_rc_missing(got);
    a = got[0];
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[a], o.val[a], MRC_M_NONE), MRC_OK);
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[a], o.val[a], MRC_M_NONE), MRC_OK); /* a duplicate: quiet (P38) */
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_prev[a], o.val[a], MRC_M_ALWAYS_SKIP), MRC_OK);
    CHECK(ev_state(&f->c, a) == MRC_EVS_ASSUMED_BAD);
    CHECK(ev_rc_poll(f, &o, 1, got + 3, NULL) == 0);
    CHECK(got[3] == m);
    for (round = 0; round < 5; round++) {
        CHECK(ev_rc_poll(f, &o, 3, got, NULL) == 0);
        CHECKF(ev_rot_is(got, 3, 0xFu & ~(1u << a)), "demoted %u: round %u carried %u %u %u", a, round, got[0], got[1],
               got[2]);
    }
    /* liveness: the three left each returned clean, then all skipped (CE) or demoted: every poll still sends */
    CHECK(ev_rc_poll(f, &o, 3, got, NULL) == 0);
    for (i = 0; i < 3; i++) CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[got[i]], o.val[got[i]], MRC_M_NONE), MRC_OK);
    for (i = 0; i < 3; i++) /* the last one's demotion is withheld (the plane's floor): it is skipped instead */
        CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_prev[got[i]], o.val[got[i]], MRC_M_ALWAYS_SKIP), MRC_OK);
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[got[2]], o.val[got[2]], MRC_M_SKIP_ONCE), MRC_OK);
    CHECK(mrc_conn_check(&f->c) == 0);
    for (round = 0; round < 8; round++) {
        CHECK(ev_rc_poll(f, &o, 1, got + 3, NULL) == 0);
        CHECK(got[3] == got[2]);
    }
    mrc_conn_stats_get(&f->c, &cs);
    CHECKF(cs.ev_demoted == 3 && cs.ev_withheld == 1 && cs.tx_rtx == 7, "demoted %llu withheld %llu rtx %llu",
           (unsigned long long)cs.ev_demoted, (unsigned long long)cs.ev_withheld, (unsigned long long)cs.tx_rtx);
    /* ERR empties every FIFO (rule 17 checks it is consistent; nothing is sent in ERR) */
    CHECK(ev_rc_poll(f, &o, 1, got, NULL) == 0);
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[got[0]], o.val[got[0]], MRC_M_NONE), MRC_OK);
    {
        mrc_conn_attr at;
        memset(&at, 0, sizeof at);
        at.state = MRC_QPS_ERR;
        CHECK_EQ(mrc_conn_modify(&f->c, &at, MRC_ATTR_STATE, f->now), MRC_OK);
        CHECK(mrc_conn_check(&f->c) == 0);
    }

    /* two planes: they still alternate; a plane's recycled EV goes on that plane's next turn */
    if (ev_rc_setup(f, &o, 2, sq)) return 1;
    CHECK(ev_rc_poll(f, &o, 8, got, pt) == 0);
    for (i = 1; i < 8; i++) CHECK(pt[i] != pt[i - 1]);
    /* the next packet goes to plane pt[0]; recycle an EV of the other plane (the one of packet 7) */
    a = got[7];
    CHECK_EQ(ev_feed_sack_m(f, cack, o.psn_on[a], o.val[a], MRC_M_NONE), MRC_OK);
    CHECK(ev_rc_poll(f, &o, 2, got, pt) == 0);
    CHECKF(pt[0] != o.port[a] && pt[1] == o.port[a] && got[1] == a,
           "planes: %u (port %u) recycled, got %u on port %u then %u on port %u", a, o.port[a], got[0], pt[0], got[1],
           pt[1]);

    /* the default recycle scope, AUTO EVs only; a profile's EVs (a controller's list of paths, which the rotation
     * spreads one packet each) are queued only with scope ALL. Checked on the FIFO itself. */
    if (ev_rc_setup(f, &o, 1, sq)) return 1;
    CHECK(ev_rc_poll(f, &o, 1, got, NULL) == 0);
    a = got[0];
    f->c.ev_prof = 1; /* as if the QP's EVs came from profile 1 (only the FIFO is looked at) */
    mrc__ev_rc_push(&f->c, a);
    CHECKF(f->c.rc_n[0] == 0 && f->c.evs[a].rc == 0, "a profile's EV queued with recycle scope AUTO (%u entries)",
           (unsigned)f->c.rc_n[0]);
    f->c.ep->cfg.ev.recycle = MRC_EV_SCOPE_ALL;
    mrc__ev_rc_push(&f->c, a);
    CHECKF(f->c.rc_n[0] == 1 && f->c.evs[a].rc == 1, "a profile's EV not queued with recycle scope ALL (%u entries)",
           (unsigned)f->c.rc_n[0]);
    f->c.ep->cfg.ev.recycle = MRC_EV_SCOPE_AUTO;
    f->c.ev_prof = 0;
    mrc__ev_rc_push(&f->c, a);
    CHECK(f->c.rc_n[0] == 2 && f->c.evs[a].rc == 2); /* an AUTO EV: queued */
    CHECK(mrc_conn_check(&f->c) == 0);
    return 0;
}

/* P35's verification FIFO when full. Entries go stale when their EV is verified before a probe slot reaches it, and
 * an EV held again meanwhile is queued again; a FIFO full of such entries is compacted, so an EV held then is still
 * queued (and probed) instead of sitting out for good. Driven on the FIFO itself (no probe slot takes entries until
 * mrc__ev_ver_fill). */
static int ver_q_count(const mrc_conn *c, unsigned slot) {
    unsigned i, n = 0;
    for (i = 0; i < c->ver_n; i++) n += c->ver_ring[mrc__ev_ver_pos(c, i)] == slot;
    return (int)n;
}
static int t_ev_ver_queue(void) {
    ut_fix *f = &ut_fx;
    mrc_conn *c = &f->c;
    ev_rc o;
    unsigned i, k, a = 0, b = 1;
    if (ev_rc_setup(f, &o, 1, 0x900)) return 1;
    CHECK(c->ev_count == 4u && c->ver_n == 0);
    /* four holds of EV a, each verified at once: four stale entries, the FIFO full */
    for (k = 0; k < 4; k++) {
        mrc__ev_to_ver(c, (uint16_t)a);
        CHECK(mrc__ev_is_ver(&c->evs[a]));
        mrc__ev_verified(c, a);
        CHECK(!mrc__ev_is_ver(&c->evs[a]));
    }
    CHECKF(c->ver_n == 4u && ver_q_count(c, a) == 4, "%u entries, %d of EV %u", (unsigned)c->ver_n,
           ver_q_count(c, a), a);
    CHECK(mrc_conn_check(c) == 0);
    /* EV b held now: compacted (every entry stale), then queued */
    mrc__ev_to_ver(c, (uint16_t)b);
    CHECKF(c->ver_n == 1u && ver_q_count(c, b) == 1, "after compaction: %u entries, %d of EV %u",
           (unsigned)c->ver_n, ver_q_count(c, b), b);
    CHECK(mrc_conn_check(c) == 0);
    mrc__ev_verified(c, b);
    /* repeats: EV a held, verified and held again until the FIFO is full of its entries, all valid */
    c->ver_n = 0;
    for (k = 0; k < 4; k++) {
        if (k) mrc__ev_verified(c, a);
        mrc__ev_to_ver(c, (uint16_t)a);
    }
    CHECK(c->ver_n == 4u && ver_q_count(c, a) == 4 && mrc__ev_is_ver(&c->evs[a]));
    mrc__ev_to_ver(c, (uint16_t)b); /* compacted to one entry of a, then b */
    CHECKF(c->ver_n == 2u && ver_q_count(c, a) == 1 && ver_q_count(c, b) == 1,
           "after compaction: %u entries, %d of EV %u, %d of EV %u", (unsigned)c->ver_n, ver_q_count(c, a), a,
           ver_q_count(c, b), b);
    for (i = 0; i < c->ev_count; i++) CHECK(!(c->evs[i].st & MRC__EVF_VPROBE)); /* the pass's marks cleared */
    mrc__ev_to_ver(c, (uint16_t)b); /* held again while queued: a second entry (room left) */
    CHECK(c->ver_n == 3u && ver_q_count(c, b) == 2);
    CHECK(mrc_conn_check(c) == 0);
    /* the probes: one each for a and b (the repeat is skipped), both held EVs marked as probed */
    mrc__ev_ver_fill(c);
    for (i = 1, k = 0; i < MRC_MAX_PROBES; i++) k += c->probes[i].kind == MRC__PROBE_VER;
    CHECKF(k == 2u && c->ver_n == 0, "%u verification probes, %u entries left", k, (unsigned)c->ver_n);
    CHECK((c->evs[a].st & MRC__EVF_VPROBE) && (c->evs[b].st & MRC__EVF_VPROBE));
    return 0;
}

const test_entry test_ev_select[] = {
    {"ev_skip_once_rotation", t_ev_skip_once_rotation},
    {"ev_skip_once_ce_rtx", t_ev_skip_once_ce},
    {"ev_hop_group_retire", t_ev_hop_group_retire},
    {"ev_hop_group_whole", t_ev_hop_group_whole},
    {"ev_hop_group_api", t_ev_hop_group_api},
    {"ev_recycle_good", t_ev_recycle},
    {"ev_ver_queue_full", t_ev_ver_queue},
    {NULL, NULL},
};
