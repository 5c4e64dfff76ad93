/* tests/cc.c - congestion control on live endpoints (issue #4):
 *
 *   cc_fixed_window  the fixed-window algorithm never has more than its window in flight
 *   cc_profiles      CC profile API: create, query, states, unknown algorithm, a QP on a profile
 *   cc_dyn_mpr       dynamic MPR shrinks and grows while data is in flight; nothing lost, nothing out of window
 *   cc_fair_share    4 flows into one 100G receiver on a fat tree (simulator, real endpoints): Jain index, queue
 *   cc_incast16      16 -> 1 incast with trimming: completes, retransmissions as a fraction of packets
 *   sim_oracle_bypass  a controller's oracle marks the EVs of a failed cable (simulator)
 *   sim_dyn_flows    flows created as others complete (on_done): a ring all-reduce built step by step is the same
 *                    run as the one declared up front with 'after'; more flows into one host than it has QPs wait
 *                    for free ones and all complete (simulator)
 *
 * The simulator (sim/mrc_sim.h) is compiled here: this module is its only user in the suite.
 */
#include "test.h"

#define MRC_SIM_IMPLEMENTATION
#include "../sim/mrc_sim.h"

/* ---- fixed window: never more than the window in flight ---------------------------------------------------------- */
typedef struct sc_ccw { uint64_t max_inflight, cwnd; uint32_t checks; } sc_ccw;
static void sc_ccw_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_ccw *o = (sc_ccw *)p->ud;
    mrc_cc_info ci;
    (void)pkt, (void)len, (void)now;
    if (from != 0 || !ti->payload_len || mrc_conn_cc_info(p->q[0][0].c, &ci) != MRC_OK) return;
    if (ci.inflight > o->max_inflight) o->max_inflight = ci.inflight;
    o->cwnd = ci.cwnd;
    o->checks++;
}
static int sc_cc_fixed_body(sc_pair *p) {
    static sc_ccw o;
    mrc_cc_info ci;
    unsigned i;
    sc_defaults(p, g_seed + 4500);
    p->region = 8u << 20;
    p->nq = 2; /* two QPs to one peer share one context and one window */
    p->cfg[0].cc.algo = MRC_CC_ALGO_FIXED;
    p->cfg[0].cc.fixed_cwnd_bytes = 5u * 4200u;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_ccw_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 4; i++) {
        SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
        SC_CHECK(p, sc_add(p, 0, 1, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    }
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, mrc_conn_cc_info(p->q[0][0].c, &ci) == MRC_OK);
    SC_CHECKF(p, ci.algo == MRC_CC_ALGO_FIXED && ci.ctx_qps == 2, "algo %u, %u QPs on the context", ci.algo,
              ci.ctx_qps);
    SC_CHECKF(p, o.checks > 1000 && o.max_inflight <= o.cwnd && o.cwnd == 21000u,
              "%u checks, max in flight %llu, window %llu", o.checks, (unsigned long long)o.max_inflight,
              (unsigned long long)o.cwnd);
    SC_CHECKF(p, o.max_inflight > o.cwnd - 4200u, "the window was never filled (max in flight %llu)",
              (unsigned long long)o.max_inflight);
    return 0;
}
SC_TEST(t_cc_fixed_window, sc_cc_fixed_body)

/* ---- CC profile API ------------------------------------------------------------------------------------------- */
static int sc_cc_prof_body(sc_pair *p) {
    mrc_cc_profile_attr a, q;
    mrc_cc_info ci;
    unsigned i;
    sc_defaults(p, g_seed + 4600);
    p->region = 4u << 20;
    p->attr[0].cc_profile_id = 7;
    SC_CHECK(p, sc_start(p) != 0); /* endpoints and wire built; the QP cannot join profile 7: it does not exist */
    memset(&a, 0, sizeof a);
    a.state = MRC_PROFILE_OFFLINE;
    a.algorithm = "tcp-cubic";
    SC_CHECK(p, mrc_cc_profile_modify(p->ep[0], 7, &a, MRC_CC_PROF_ATTR_STATE | MRC_CC_PROF_ATTR_ALGORITHM) ==
                    MRC_ERR_NOTSUP);
    SC_CHECK(p, mrc_cc_profile_query(p->ep[0], 7, &q) == MRC_ERR_NOENT);
    a.algorithm = MRC_CC_FIXED;
    a.fixed_cwnd = 0;
    SC_CHECK(p, mrc_cc_profile_modify(p->ep[0], 7, &a, MRC_CC_PROF_ATTR_STATE | MRC_CC_PROF_ATTR_ALGORITHM |
                                                           MRC_CC_PROF_ATTR_CONFIG) == MRC_ERR_INVAL);
    a.fixed_cwnd = 3u * 4200u;
    SC_CHECK(p, mrc_cc_profile_modify(p->ep[0], 7, &a, MRC_CC_PROF_ATTR_STATE | MRC_CC_PROF_ATTR_ALGORITHM |
                                                           MRC_CC_PROF_ATTR_CONFIG) == MRC_OK);
    SC_CHECK(p, mrc_cc_profile_query(p->ep[0], 7, &q) == MRC_OK);
    SC_CHECK(p, q.state == MRC_PROFILE_OFFLINE && q.fixed_cwnd == 3u * 4200u && q.algorithm &&
                    !strcmp(q.algorithm, MRC_CC_FIXED));
    /* an OFFLINE profile cannot carry a QP */
    SC_CHECK(p, sc_connect(p, 0) != 0);
    a.state = MRC_PROFILE_ONLINE;
    SC_CHECK(p, mrc_cc_profile_modify(p->ep[0], 7, &a, MRC_CC_PROF_ATTR_STATE) == MRC_OK);
    SC_CHECK(p, sc_connect(p, 0) == 0);
    SC_CHECK(p, mrc_conn_cc_info(p->q[0][0].c, &ci) == MRC_OK);
    SC_CHECKF(p, ci.algo == MRC_CC_ALGO_FIXED && ci.cwnd == 3u * 4200u, "algo %u cwnd %llu", ci.algo,
              (unsigned long long)ci.cwnd);
    /* the algorithm cannot change while a QP uses the profile */
    a.algorithm = MRC_CC_NSCC;
    SC_CHECK(p, mrc_cc_profile_modify(p->ep[0], 7, &a, MRC_CC_PROF_ATTR_ALGORITHM) == MRC_ERR_STATE);
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    return 0;
}
SC_TEST(t_cc_profiles, sc_cc_prof_body)

/* ---- dynamic MPR ------------------------------------------------------------------------------------------------ */
/* B's budget is 8 units of 128 PSNs shared by the QPs receiving at once: QP 0 alone gets all 8, four QPs get 2 each,
 * and QP 0 gets 8 back when the others finish. The requester's window follows; PSNs sent under a larger window stay
 * acceptable (the responder keeps its mpr_dest window), so nothing is refused or lost. */
typedef struct sc_dmpr { uint32_t min_win, max_win, changes_seen; uint32_t last; } sc_dmpr;
static void sc_dmpr_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_dmpr *o = (sc_dmpr *)p->ud;
    uint32_t w;
    (void)pkt, (void)len, (void)ti, (void)now;
    if (from != 0 || !p->q[0][0].c) return;
    w = p->q[0][0].c->win_psns;
    if (w < o->min_win) o->min_win = w;
    if (w > o->max_win) o->max_win = w;
    if (w != o->last) o->changes_seen++;
    o->last = w;
}
static int sc_cc_mpr_body(sc_pair *p) {
    static sc_dmpr o;
    unsigned s, q;
    uint64_t ch = 0;
    sc_defaults(p, g_seed + 4700);
    p->nq = 4;
    p->region = 32u << 20;
    for (s = 0; s < 2; s++) p->attr[s].caps |= MRC_CAP_DYNAMIC_MPR;
    p->cfg[1].rx.mpr_budget = 8;
    memset(&o, 0, sizeof o);
    o.min_win = 0xFFFFFFFFu;
    p->ud = &o;
    p->tap = sc_dmpr_tap;
    SC_CHECK(p, sc_start(p) == 0);
    /* QP 0 sends 8 MB; QPs 1-3 send 2 MB each from 20 us on, while QP 0 is still sending */
    for (q = 0; q < 8; q++) SC_CHECK(p, sc_add(p, 0, 0, q << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + 20000u) == 0);
    for (q = 1; q < 4; q++) {
        SC_CHECK(p, sc_add(p, 0, q, 0, 1u << 20, MRC_WR_WRITE, 0) == 0);
        SC_CHECK(p, sc_add(p, 0, q, 1u << 20, 1u << 20, MRC_WR_WRITE_IMM, 0x1000u + q) == 0);
    }
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    for (q = 0; q < 4; q++) ch += sc_cstats(p, 0, q).cc_mpr_changes;
    SC_CHECKF(p, o.max_win == 8u * 128u && o.min_win <= 2u * 128u + 1u && o.changes_seen >= 2u,
              "QP 0 window between %u and %u PSNs, %u changes", o.min_win, o.max_win, o.changes_seen);
    SC_CHECKF(p, o.last == 8u * 128u, "QP 0's window did not grow back (%u)", o.last);
    SC_CHECK(p, ch >= 4u);
    for (q = 0; q < 4; q++)
        SC_CHECKF(p, sc_cstats(p, 1, q).rx_oor == 0, "QP %u: %llu packets refused out of window", q,
                  (unsigned long long)sc_cstats(p, 1, q).rx_oor);
    return 0;
}
SC_TEST(t_cc_dyn_mpr, sc_cc_mpr_body)

/* ---- fabric scenarios (sim/mrc_sim.h: real endpoints, switches with queues, ECN and trimming) ----------------- */
static double cc_jain(const double *x, unsigned n) {
    double s = 0, s2 = 0;
    unsigned i;
    for (i = 0; i < n; i++) s += x[i], s2 += x[i] * x[i];
    return s2 > 0 ? s * s / ((double)n * s2) : 0;
}

/* Four long flows into host 0 of a k=4 fat tree, starting 100 us apart: the receiver's 100G link is the bottleneck,
 * and it marks ECN like the fabric links (NSCC's multiplicative decrease needs a marking bottleneck; with MRC's
 * default of no marking on the last hop, last-hop contention is the receiver penalty's job). Every 100 us after the
 * last start, the bytes each flow got placed; converged = the first window from which every later window has
 * Jain >= 0.95. Asserted: converged within 2 ms of the last start, mean Jain over the steady part >= 0.95, the
 * last-hop queue never full (no trims needed) once converged, no QP error, every byte placed right. */
static int t_cc_fair_share(void) {
    enum { N = 4, W = 40 };
    mrc_sim_config cfg;
    mrc_sim *s = NULL;
    mrc_sim_flow_spec f;
    mrc_sim_flow_result r;
    mrc_sim_totals tot;
    char err[160];
    double rate[W][N], jain[W], mean = 0;
    uint64_t prev[N], qmax_steady = 0;
    unsigned i, w, conv = W;
    const mrc_time t_last = 300000u, step = 100000u;
    mrc_sim_config_default(&cfg);
    cfg.topo = MRC_SIM_FATTREE;
    cfg.k = 4;
    cfg.seed = g_seed + 4800;
    cfg.evs_per_qp = 64;
    cfg.sample_ns = step;
    cfg.ecn_last_hop = true;
    if (mrc_sim_create(&s, &cfg, err, sizeof err) != 0) {
        printf("FAIL cc_fair_share: mrc_sim_create: %s (seed %llu)\n", err, (unsigned long long)cfg.seed);
        return 1;
    }
    for (i = 0; i < N; i++) {
        memset(&f, 0, sizeof f);
        f.src = 4u + 3u * i; /* other pods and edges too: paths differ, the last hop is shared */
        f.dst = 0;
        f.bytes = 64u << 20;
        f.start = (mrc_time)i * 100000u;
        f.after = MRC_SIM_NONE;
        CHECK(mrc_sim_add_flow(s, &f) == i);
        prev[i] = 0;
    }
    CHECK(mrc_sim_run(s, t_last) >= 0);
    for (i = 0; i < N; i++) {
        CHECK(mrc_sim_flow_get(s, i, &r) == 0);
        prev[i] = r.rx_data;
    }
    for (w = 0; w < W; w++) {
        CHECK(mrc_sim_run(s, t_last + (mrc_time)(w + 1) * step) >= 0);
        for (i = 0; i < N; i++) {
            CHECK(mrc_sim_flow_get(s, i, &r) == 0);
            CHECKF(r.status == MRC_OK, "flow %u status %d (seed %llu)", i, r.status, (unsigned long long)cfg.seed);
            rate[w][i] = (double)(r.rx_data - prev[i]);
            prev[i] = r.rx_data;
        }
        jain[w] = cc_jain(rate[w], N);
    }
    for (w = W; w-- > 0;) {
        if (jain[w] < 0.95) break;
        conv = w;
    }
    for (w = conv; w < W; w++) mean += jain[w];
    mean = conv < W ? mean / (double)(W - conv) : 0;
    for (i = 0; i < mrc_sim_samples(s); i++) {
        mrc_sim_sample sm;
        CHECK(mrc_sim_sample_get(s, i, &sm) == 0);
        if (sm.t > t_last + (mrc_time)conv * step && sm.q_lasthop_max > qmax_steady) qmax_steady = sm.q_lasthop_max;
    }
    mrc_sim_totals_get(s, &tot);
    note("fair share: %u flows, converged %u us after the last start, mean Jain %.3f, last-hop queue max %.1f KB of "
         "%.1f KB (steady), trims %llu, ECN marks %llu",
         (unsigned)N, conv * (unsigned)(step / 1000u), mean, (double)qmax_steady / 1e3,
         (double)mrc_sim_config_get(s)->queue_bytes / 1e3, (unsigned long long)tot.trims,
         (unsigned long long)tot.ecn_marks);
    CHECKF(conv * step <= 2000000u, "no convergence within 2 ms of the last start (seed %llu); Jain per 100 us: %.2f %.2f "
           "%.2f %.2f ... %.2f", (unsigned long long)cfg.seed, jain[0], jain[1], jain[2], jain[3], jain[W - 1]);
    CHECKF(mean >= 0.95, "mean Jain %.3f (seed %llu)", mean, (unsigned long long)cfg.seed);
    CHECKF(tot.conn_errors == 0 && tot.place_bad == 0, "%llu QP errors, %llu bad placements",
           (unsigned long long)tot.conn_errors, (unsigned long long)tot.place_bad);
    CHECKF(qmax_steady < mrc_sim_config_get(s)->queue_bytes, "steady last-hop queue %llu B reached the buffer",
           (unsigned long long)qmax_steady);
    mrc_sim_destroy(s);
    return 0;
}

/* 16 -> 1 incast, 1 MB each, trimming on, a 17-host 2-tier Clos: every flow completes bit-exact without a
 * retransmission storm, with MRC's default (no ECN on the last hop: trims and delay are the only signals there) -
 * the switch trimming with DSCP TRIMMED, or with TRIMMED_LASTHOP at the last hop (P30 then reads the SACKs after a
 * last-hop trim as marked) - and with ECN on the last hop. Asserted: no QP error, last completion <= 1.25 x ideal
 * (16 MB at 100G), retransmissions <= the bound given of the data packets (*rtx_pct out); the numbers are printed.
 * Most trims come from the first round trip: 16 windows of 1.5 BDP (Q13: contexts start at maxwnd) meet a 1-BDP
 * buffer. */
static int cc_incast16_run(int ecn_last_hop, int lh_dscp, int hint, double max_rtx, double *rtx_pct) {
    enum { N = 16 };
    mrc_sim_config cfg;
    mrc_sim *s = NULL;
    mrc_sim_flow_spec f;
    mrc_sim_flow_result r;
    mrc_sim_totals tot;
    char err[160];
    uint64_t tx = 0, rtx = 0, ideal;
    mrc_time last = 0;
    unsigned i;
    mrc_sim_config_default(&cfg);
    cfg.topo = MRC_SIM_MULTIPLANE;
    cfg.planes = 1;
    cfg.radix = 8;
    cfg.hosts = N + 1;
    cfg.ecn_last_hop = ecn_last_hop != 0;
    cfg.trim_lasthop_dscp = lh_dscp != 0;
    cfg.seed = g_seed + 4900;
    cfg.evs_per_qp = 64;
    if (mrc_sim_create(&s, &cfg, err, sizeof err) != 0) {
        printf("FAIL cc_incast16: mrc_sim_create: %s (seed %llu)\n", err, (unsigned long long)cfg.seed);
        return 1;
    }
    for (i = 0; i < N; i++) {
        memset(&f, 0, sizeof f);
        f.src = i + 1u;
        f.dst = 0;
        f.bytes = 1u << 20;
        f.after = MRC_SIM_NONE;
        f.incast = hint ? (uint32_t)N : 0u;
        CHECK(mrc_sim_add_flow(s, &f) == i);
    }
    CHECK(mrc_sim_run(s, 100000000u) == 1);
    for (i = 0; i < N; i++) {
        CHECK(mrc_sim_flow_get(s, i, &r) == 0);
        CHECKF(r.status == MRC_OK, "flow %u status %d (seed %llu)", i, r.status, (unsigned long long)cfg.seed);
        tx += r.tx_data;
        rtx += r.tx_rtx;
        if (r.rx_done > last) last = r.rx_done;
    }
    mrc_sim_totals_get(s, &tot);
    ideal = mrc_sim_wire_bytes(s, (uint64_t)N << 20) * 8u * 1000000000u / mrc_sim_host_rate(s);
    *rtx_pct = 100.0 * (double)rtx / (double)tx;
    note("incast 16->1 x 1 MB, last-hop ECN %s, last-hop trims %s, hint %s: last completion %.1f us = %.3f x ideal, "
         "retransmissions %.2f%% of %llu data packets, trims %llu, prio drops %llu",
         ecn_last_hop ? "on" : "off", lh_dscp ? "TRIMMED_LASTHOP" : "TRIMMED", hint ? "16" : "none",
         (double)last / 1e3, (double)last / (double)ideal,
         100.0 * (double)rtx / (double)tx, (unsigned long long)tx, (unsigned long long)tot.trims,
         (unsigned long long)tot.drop_prio);
    CHECKF(tot.conn_errors == 0 && tot.place_bad == 0 && tot.flows_done == N, "%llu QP errors, %llu bad placements",
           (unsigned long long)tot.conn_errors, (unsigned long long)tot.place_bad);
    CHECKF((double)last <= 1.25 * (double)ideal, "last completion %llu ns, ideal %llu ns (seed %llu)",
           (unsigned long long)last, (unsigned long long)ideal, (unsigned long long)cfg.seed);
    CHECKF((double)rtx <= max_rtx * (double)tx, "retransmissions %llu of %llu packets (seed %llu)",
           (unsigned long long)rtx, (unsigned long long)tx, (unsigned long long)cfg.seed);
    mrc_sim_destroy(s);
    return 0;
}
static int t_cc_incast16(void) {
    double plain, lh, hint, ecn;
    if (cc_incast16_run(0, 0, 0, 0.50, &plain) || cc_incast16_run(0, 1, 0, 0.20, &lh) ||
        cc_incast16_run(0, 1, 1, 0.10, &hint) || cc_incast16_run(1, 0, 0, 0.25, &ecn))
        return 1;
    /* P30: the last-hop trims' signal cuts the retransmissions (seed 1: 21.1% -> 17.2%; seeds 2-5: 20.7-24.1% ->
     * 16.9-17.9%); P31: the hint, a start at the fair share, cuts them again (seed 1: 6.8%; seeds 2-5: 6.0-7.3%) */
    CHECKF(lh < plain && hint < lh, "retransmissions %.2f%% with last-hop trims marked, %.2f%% without, %.2f%% with "
           "the hint too (seed %llu)", lh, plain, hint, (unsigned long long)(g_seed + 4900));
    return 0;
}

/* The simulator's oracle_bypass (a bound for docs/EVALUATION.md, not a core mechanism): a black-holed data packet
 * makes its sender mark that EV ASSUMED_BAD at once, through the control API a controller would use. One 4 MB
 * flow across a k=4 fat tree, with path-aware SRv6 EVs (hashed = 0) or ECMP-hashed EVs in a profile (hashed = 1,
 * the simulator's ev_hashed); one T1-T2 cable of the source pod black-holed at 20 us.
 * Asserted: mrc_sim_create refuses the oracle without a profile, and ev_hashed with SRv6 routing; with a profile
 * the EV is marked, the flow completes without a QP error, and it loses fewer packets into the hole over a shorter
 * bypass than the same run without the oracle (whose end-to-end detection takes a round trip and the reordering
 * slack). The stronger oracle_fault (oracle 2: every EV whose path crosses the cable marked at the fault instant)
 * loses no more than the per-drop oracle, and only packets already sent: none is dropped a base RTT after the fault. */
static mrc_time g_oracle_rtt; /* the base RTT of sim_oracle_run's fabric */
static int sim_oracle_run(int oracle, int hashed, int sweep, mrc_sim_flow_result *r, mrc_sim_totals *tot) {
    mrc_sim_config cfg;
    mrc_sim *s = NULL;
    mrc_sim_flow_spec f;
    mrc_sim_fault ft;
    mrc_sim_cable cb;
    char err[160];
    uint32_t i, t0, t1 = MRC_SIM_NONE, cable = MRC_SIM_NONE, H;
    mrc_sim_config_default(&cfg);
    cfg.topo = MRC_SIM_FATTREE;
    cfg.k = 4;
    cfg.seed = g_seed + 5400;
    cfg.routing = MRC_SIM_ROUTE_SRV6;
    cfg.oracle_bypass = oracle == 1 || oracle < 0;
    cfg.oracle_fault = oracle == 2;
    if (oracle < 0) { /* AUTO EVs: refused, with the reason; so is ev_hashed under SRv6 routing */
        CHECKF(mrc_sim_create(&s, &cfg, err, sizeof err) != 0 && strstr(err, "ev_paths or ev_hashed"),
               "oracle_bypass without an EV profile accepted (%s)", err);
        cfg.ev_hashed = true;
        CHECKF(mrc_sim_create(&s, &cfg, err, sizeof err) != 0 && strstr(err, "ECMP"),
               "ev_hashed under SRv6 routing accepted (%s)", err);
        return 0;
    }
    if (hashed) {
        cfg.routing = MRC_SIM_ROUTE_ECMP;
        cfg.ev_hashed = true;
        (void)mrc_ev_policy_preset(&cfg.core.ev, MRC_EV_PRESET_ECMP); /* the policy AUTO's EVs get */
        if (!sweep) /* the EV policy of the ECMP rows before P35: no sweeps, and P27 and P29 for a profile's EVs
                     * only, which these hashed EVs stood out of */
            cfg.core.ev.sweep = cfg.core.ev.hold = cfg.core.ev.confirm_late = MRC_EV_SCOPE_NONE;
    } else {
        cfg.ev_paths = true;
        (void)mrc_ev_policy_preset(&cfg.core.ev, MRC_EV_PRESET_PATHS); /* the path-aware scenarios' policy */
    }
    if (mrc_sim_create(&s, &cfg, err, sizeof err) != 0) {
        printf("FAIL sim_oracle_bypass: mrc_sim_create: %s (seed %llu)\n", err, (unsigned long long)cfg.seed);
        return 1;
    }
    H = mrc_sim_hosts(s);
    t0 = H + mrc_sim_host_t0(s, 0, 1);
    for (i = 0; i < mrc_sim_cables(s) && t1 == MRC_SIM_NONE; i++) /* a T1 above host 0's T0 */
        if (mrc_sim_cable_get(s, i, &cb) == 0 && cb.tier == 1 && cb.a == t0) t1 = cb.b;
    for (i = 0; i < mrc_sim_cables(s) && cable == MRC_SIM_NONE; i++) /* one of its cables up to a T2 */
        if (mrc_sim_cable_get(s, i, &cb) == 0 && cb.tier == 2 && cb.a == t1) cable = i;
    CHECKF(cable != MRC_SIM_NONE, "no T1-T2 cable above host 0 (T0 node %u, T1 node %u)", t0, t1);
    memset(&f, 0, sizeof f);
    f.src = 0;
    f.dst = H - 1u; /* another pod: its paths climb to the T2s */
    f.bytes = 4u << 20;
    f.after = MRC_SIM_NONE;
    CHECK(mrc_sim_add_flow(s, &f) == 0);
    memset(&ft, 0, sizeof ft);
    ft.kind = MRC_SIM_FAULT_BLACKHOLE;
    ft.at = 20000;
    ft.target = cable;
    CHECK(mrc_sim_add_fault(s, &ft) == 0);
    CHECK(mrc_sim_run(s, 100000000u) == 1);
    CHECK(mrc_sim_flow_get(s, 0, r) == 0);
    mrc_sim_totals_get(s, tot);
    g_oracle_rtt = mrc_sim_base_rtt(s);
    mrc_sim_destroy(s);
    CHECKF(r->status == MRC_OK && tot->conn_errors == 0 && r->bh_drops > 0,
           "oracle %d, hashed %d: status %d, %llu QP errors, %llu drops into the hole (seed %llu)", oracle, hashed,
           r->status, (unsigned long long)tot->conn_errors, (unsigned long long)r->bh_drops,
           (unsigned long long)cfg.seed);
    return 0;
}
static int t_sim_oracle_bypass(void) {
    int hashed;
    mrc_sim_flow_result off, on, at;
    mrc_sim_totals toff, ton, tat;
    mrc_sim_flow_result sw;
    mrc_sim_totals tsw;
    if (sim_oracle_run(-1, 0, 0, &off, &toff)) return 1;
    for (hashed = 0; hashed <= 1; hashed++) {
        /* the oracles against the same EV policy end to end: on ECMP the one before P35 (the per-drop oracle does not
         * model sweeps: a sweep keeps data off EVs not yet found dead; that oracle marks each at its first drop) */
        if (sim_oracle_run(0, hashed, 0, &off, &toff) || sim_oracle_run(1, hashed, 0, &on, &ton) ||
            sim_oracle_run(2, hashed, 0, &at, &tat))
            return 1;
        CHECKF(tat.oracle_marks >= 1 && at.bh_drops <= on.bh_drops && at.bh_last < 20000u + g_oracle_rtt,
               "%s: oracle_fault: %llu marks, %llu drops (per-drop oracle: %llu), the last at %llu ns (fault at "
               "20000, base RTT %llu)", hashed ? "ECMP" : "SRv6", (unsigned long long)tat.oracle_marks,
               (unsigned long long)at.bh_drops, (unsigned long long)on.bh_drops, (unsigned long long)at.bh_last,
               (unsigned long long)g_oracle_rtt);
        CHECKF(toff.oracle_marks == 0 && ton.oracle_marks >= 1, "%s: oracle marks %llu (off), %llu (on)",
               hashed ? "ECMP" : "SRv6", (unsigned long long)toff.oracle_marks, (unsigned long long)ton.oracle_marks);
        CHECKF(on.bh_drops < off.bh_drops && on.bh_last - on.bh_first < off.bh_last - off.bh_first,
               "%s: oracle: %llu drops over %llu ns; end to end: %llu over %llu ns", hashed ? "ECMP" : "SRv6",
               (unsigned long long)on.bh_drops, (unsigned long long)(on.bh_last - on.bh_first),
               (unsigned long long)off.bh_drops, (unsigned long long)(off.bh_last - off.bh_first));
        note("%s, one dead T1-T2 cable: %llu packets into it over %.1f us end to end, %llu over %.1f us with the "
             "oracle (%llu marks), %llu over %.1f us with oracle_fault (%llu marks)",
             hashed ? "ECMP-hashed EVs" : "path-aware SRv6", (unsigned long long)off.bh_drops,
             (double)(off.bh_last - off.bh_first) / 1e3, (unsigned long long)on.bh_drops,
             (double)(on.bh_last - on.bh_first) / 1e3, (unsigned long long)ton.oracle_marks,
             (unsigned long long)at.bh_drops, (double)(at.bh_last - at.bh_first) / 1e3,
             (unsigned long long)tat.oracle_marks);
    }
    /* ECMP with the defaults (P35's sweeps, P27 and P29 for every EV): fewer packets into the dead cable */
    if (sim_oracle_run(0, 1, 1, &sw, &tsw)) return 1;
    CHECKF(sw.bh_drops < off.bh_drops, "ECMP: %llu drops with sweeps, %llu without", (unsigned long long)sw.bh_drops,
           (unsigned long long)off.bh_drops);
    note("ECMP-hashed EVs end to end with the defaults (P35's sweeps): %llu packets into it over %.1f us",
         (unsigned long long)sw.bh_drops, (double)(sw.bh_last - sw.bh_first) / 1e3);
    return 0;
}

/* ---- flows created during the run (mrc_sim_config.on_done) --------------------------------------------------- */
typedef struct dyn_ring { uint32_t n, steps, stride, added, calls_rx, calls_tx; uint64_t bytes; } dyn_ring;
static void dyn_ring_done(void *ud, mrc_sim *s, uint32_t flow, int side) {
    dyn_ring *g = (dyn_ring *)ud;
    uint64_t u = mrc_sim_flow_user(s, flow);
    uint32_t i = (uint32_t)u, k = (uint32_t)(u >> 32);
    mrc_sim_flow_spec f;
    if (side == MRC_SIM_DONE_TX) {
        g->calls_tx++;
        return;
    }
    g->calls_rx++;
    if (k + 1u >= g->steps) return;
    memset(&f, 0, sizeof f); /* participant i + 1 has step k: it sends step k + 1 on */
    f.src = ((i + 1u) % g->n) * g->stride;
    f.dst = ((i + 2u) % g->n) * g->stride;
    f.bytes = g->bytes;
    f.after = MRC_SIM_NONE;
    f.user = ((uint64_t)(k + 1u) << 32) | ((i + 1u) % g->n);
    if (mrc_sim_add_flow(s, &f) != MRC_SIM_NONE) g->added++;
}
static int dyn_ring_run(int dynamic, uint64_t seed, mrc_sim_totals *tot, mrc_time *last, dyn_ring *g) {
    mrc_sim_config cfg;
    mrc_sim *s = NULL;
    mrc_sim_flow_spec f;
    mrc_sim_flow_result r;
    char err[160];
    uint32_t i, k, prev[8], cur[8];
    mrc_sim_config_default(&cfg);
    cfg.topo = MRC_SIM_MULTIPLANE;
    cfg.planes = 4;
    cfg.radix = 8;
    cfg.hosts = 32;
    cfg.seed = seed;
    cfg.linger_ns = 1000; /* finished steps' QPs freed soon: the endpoints hold MRC_MAX_CONNS */
    memset(g, 0, sizeof *g);
    g->n = 8;
    g->steps = 2u * (g->n - 1u);
    g->stride = 4;
    g->bytes = 256000;
    if (dynamic) {
        cfg.on_done = dyn_ring_done;
        cfg.on_done_ud = g;
    }
    if (mrc_sim_create(&s, &cfg, err, sizeof err) != 0) {
        printf("FAIL sim_dyn_flows: mrc_sim_create: %s (seed %llu)\n", err, (unsigned long long)seed);
        return 1;
    }
    for (k = 0; k < (dynamic ? 1u : g->steps); k++) { /* step k of i waits for step k-1 of i-1 */
        for (i = 0; i < g->n; i++) {
            memset(&f, 0, sizeof f);
            f.src = i * g->stride;
            f.dst = ((i + 1u) % g->n) * g->stride;
            f.bytes = g->bytes;
            f.after = k ? prev[(i + g->n - 1u) % g->n] : MRC_SIM_NONE;
            f.user = ((uint64_t)k << 32) | i;
            cur[i] = mrc_sim_add_flow(s, &f);
            CHECKF(cur[i] != MRC_SIM_NONE, "add_flow step %u participant %u (seed %llu)", k, i,
                   (unsigned long long)seed);
        }
        memcpy(prev, cur, sizeof prev);
    }
    CHECKF(mrc_sim_run(s, 100000000u) == 1, "%s ring did not complete (seed %llu)", dynamic ? "dynamic" : "static",
           (unsigned long long)seed);
    CHECK(mrc_sim_flows(s) == g->n * g->steps);
    *last = 0;
    for (i = 0; i < mrc_sim_flows(s); i++) {
        CHECK(mrc_sim_flow_get(s, i, &r) == 0);
        CHECKF(r.status == MRC_OK, "flow %u status %d (seed %llu)", i, r.status, (unsigned long long)seed);
        if (r.rx_done > *last) *last = r.rx_done;
    }
    mrc_sim_totals_get(s, tot);
    mrc_sim_destroy(s);
    return 0;
}
typedef struct dyn_fan { uint32_t n, left; uint64_t bytes; } dyn_fan;
static void dyn_fan_done(void *ud, mrc_sim *s, uint32_t flow, int side) { /* each completion: one more into host 0 */
    dyn_fan *g = (dyn_fan *)ud;
    mrc_sim_flow_spec f;
    (void)flow;
    if (side != MRC_SIM_DONE_RX || !g->left) return;
    g->left--;
    memset(&f, 0, sizeof f);
    f.src = 1u + g->left % (g->n - 1u);
    f.dst = 0;
    f.bytes = g->bytes;
    f.after = MRC_SIM_NONE;
    (void)mrc_sim_add_flow(s, &f);
}
static int t_sim_dyn_flows(void) {
    mrc_sim_totals ts, td;
    mrc_time ls, ld;
    dyn_ring gs, gd;
    dyn_fan fan;
    mrc_sim_config cfg;
    mrc_sim *s = NULL;
    mrc_sim_flow_spec f;
    mrc_sim_flow_result r;
    char err[160];
    uint32_t i, start = MRC_MAX_CONNS + 8u; /* more flows into host 0 at once than it has QP slots */
    if (dyn_ring_run(0, g_seed + 4900, &ts, &ls, &gs) || dyn_ring_run(1, g_seed + 4900, &td, &ld, &gd)) return 1;
    CHECKF(td.digest == ts.digest && ld == ls && td.events == ts.events,
           "ring step by step: digest %016llx, last %llu ns, %llu events; declared up front: %016llx, %llu ns, %llu "
           "events (seed %llu)", (unsigned long long)td.digest, (unsigned long long)ld,
           (unsigned long long)td.events, (unsigned long long)ts.digest, (unsigned long long)ls,
           (unsigned long long)ts.events, (unsigned long long)(g_seed + 4900));
    CHECKF(gd.added == gd.n * (gd.steps - 1u) && gd.calls_rx == gd.n * gd.steps && gd.calls_tx == gd.n * gd.steps,
           "on_done: %u flows added, %u receive and %u send completions (want %u, %u, %u)", gd.added, gd.calls_rx,
           gd.calls_tx, gd.n * (gd.steps - 1u), gd.n * gd.steps, gd.n * gd.steps);
    /* fan-in beyond the QP table: the starts wait for free QPs instead of failing */
    mrc_sim_config_default(&cfg);
    cfg.topo = MRC_SIM_FATTREE;
    cfg.k = 4;
    cfg.seed = g_seed + 4901;
    cfg.linger_ns = 1000;
    fan.n = 16;
    fan.left = 8;
    fan.bytes = 64000;
    cfg.on_done = dyn_fan_done;
    cfg.on_done_ud = &fan;
    cfg.flow_bytes_max = fan.bytes;
    if (mrc_sim_create(&s, &cfg, err, sizeof err) != 0) {
        printf("FAIL sim_dyn_flows: mrc_sim_create: %s (seed %llu)\n", err, (unsigned long long)cfg.seed);
        return 1;
    }
    for (i = 0; i < start; i++) {
        memset(&f, 0, sizeof f);
        f.src = 1u + i % 15u;
        f.dst = 0;
        f.bytes = fan.bytes;
        f.after = MRC_SIM_NONE;
        CHECK(mrc_sim_add_flow(s, &f) == i);
    }
    f.bytes = fan.bytes + 1u;
    CHECK(mrc_sim_run(s, 1000) >= 0);
    CHECKF(mrc_sim_add_flow(s, &f) == MRC_SIM_NONE, "a flow larger than flow_bytes_max was accepted during the run");
    CHECK(mrc_sim_run(s, 1000000000u) == 1);
    mrc_sim_totals_get(s, &td);
    CHECKF(mrc_sim_flows(s) == start + 8u && td.flows_done == start + 8u && td.flows_failed == 0 && td.qp_waits > 0,
           "fan-in of %u into %u QP slots: %u flows, %llu done, %llu failed, %llu waits (seed %llu)", start,
           (unsigned)MRC_MAX_CONNS, mrc_sim_flows(s), (unsigned long long)td.flows_done,
           (unsigned long long)td.flows_failed, (unsigned long long)td.qp_waits, (unsigned long long)cfg.seed);
    for (i = 0; i < mrc_sim_flows(s); i++) {
        CHECK(mrc_sim_flow_get(s, i, &r) == 0);
        CHECKF(r.status == MRC_OK && r.rx_done != MRC_TIME_NEVER, "flow %u status %d (seed %llu)", i, r.status,
               (unsigned long long)cfg.seed);
    }
    note("ring of 8 step by step = declared up front (digest %016llx, %u flows); fan-in of %u into %u QP slots: %llu "
         "starts waited, all done", (unsigned long long)ts.digest, gd.n * gd.steps, start + 8u,
         (unsigned)MRC_MAX_CONNS, (unsigned long long)td.qp_waits);
    mrc_sim_destroy(s);
    return 0;
}

const test_entry test_cc[] = {
    {"sim_oracle_bypass", t_sim_oracle_bypass},
    {"sim_dyn_flows", t_sim_dyn_flows},
    {"cc_fixed_window", t_cc_fixed_window},
    {"cc_profiles", t_cc_profiles},
    {"cc_dyn_mpr", t_cc_dyn_mpr},
    {"cc_fair_share", t_cc_fair_share},
    {"cc_incast16", t_cc_incast16},
    {NULL, NULL},
};
