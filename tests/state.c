/* tests/state.c - configuration and endpoint calls, the QP state machine (docs/PROTOCOL.md section 4), errors and names.
 * On the one-endpoint fixture of tests/util.c (ut_fix).
 */
#include "test.h"

/* ================================================================================================================
 * 6. configuration and endpoint
 * ============================================================================================================== */
static int t_cfg_defaults(void) {
    mrc_config c;
    memset(&c, 0xA5, sizeof c);
    mrc_config_default(&c);
    CHECK_EQ(c.num_ports, MRC_MAX_PORTS);
    CHECK_EQ(c.qpn_base, 0); /* P16: random QPNs */
    CHECK_EQ(c.wire.bth_m_bit, 7);
    CHECK_EQ(c.wire.eeth_op_shift, 2);
    CHECK_EQ(c.wire.sack_msb_first, 0);
    CHECK_EQ(c.wire.ts_shift, 7);
    CHECK_EQ(c.wire.tver, 0);
    CHECK_EQ(c.dscp[MRC_DSCP_TRIMMABLE], 10);
    CHECK_EQ(c.dscp[MRC_DSCP_NO_TRIM], 12);
    CHECK_EQ(c.dscp[MRC_DSCP_TRIMMABLE_RETX], 14);
    CHECK_EQ(c.dscp[MRC_DSCP_TRIMMED], 3);
    CHECK_EQ(c.dscp[MRC_DSCP_TRIMMED_LASTHOP], 4);
    CHECK_EQ(c.dscp[MRC_DSCP_CONTROL], 48);
    CHECK(c.trimmable);
    CHECK(c.tseth);
    CHECK_EQ(c.ack.sack_every, 1);
    CHECK_EQ(c.ack.sack_delay_ns, 4000);
    CHECK(!c.rx.nack_oor);
    CHECK(!c.rx.window_inclusive);
    CHECK_EQ(c.ack.tack_every, 0);
    CHECK_EQ(c.recovery.reorder_slack_ns, 0);
    CHECK_EQ(c.recovery.reorder_slack_min_ns, 2000);
    CHECK_EQ(c.recovery.rtt_init_ns, 20000);
    CHECK_EQ(c.recovery.tlp_min_ns, 10000);
    CHECK_EQ(c.ack.request_every, 0);
    CHECK_EQ(c.cc.fixed_cwnd_bytes, 0);
    CHECK_EQ(c.auto_ev.per_port, 16);
    CHECK_EQ(c.auto_ev.sport_min, 49152);
    CHECK_EQ(c.auto_ev.sport_max, 65535);
    CHECK(c.place == NULL);
    CHECK(c.place_ud == NULL);
    CHECK(c.trace == NULL);
    CHECK(c.trace_ud == NULL);
    /* the EV policy: the DEFAULT preset, every adopted rule */
    CHECK_EQ(c.ev.recycle, MRC_EV_SCOPE_AUTO);
    CHECK_EQ(c.ev.hold, MRC_EV_SCOPE_ALL);
    CHECK_EQ(c.ev.confirm_late, MRC_EV_SCOPE_ALL);
    CHECK_EQ(c.ev.sweep, MRC_EV_SCOPE_HASHED);
    CHECK_EQ(c.ev.group_retire, MRC_EV_RETIRE_SECOND);
    CHECK_EQ(c.ev.reply, MRC_EV_REPLY_MIRROR);
    CHECK(c.ev.confirm_loss);
    CHECK_EQ(c.ev.backup_pct, 25);
    CHECK_EQ(c.ev.revive_probes, 3);
    CHECK_EQ(c.ev.probe_interval_ns, 0);
#ifdef MRC_RESEARCH
    CHECK_EQ(c.research.tlp_copies, 2);
    CHECK_EQ(c.research.reorder_timer, 6);
    CHECK_EQ(c.research.cc_subpkt_shift, 4);
    CHECK_EQ(c.research.cc_lh_mark_rtts, 32);
    CHECK_EQ(c.research.hold_min_evs, 32);
#endif
    mrc_config_default((mrc_config *)0); /* harmless */
    /* the defaults and a NULL config both initialise */
    CHECK_EQ(mrc_endpoint_init(&ut_fx.ep, &c, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_init(&ut_fx.ep, (const mrc_config *)0, 0), MRC_OK);
    CHECK(mrc_endpoint_port_up(&ut_fx.ep, MRC_MAX_PORTS));
    CHECK_EQ(mrc_endpoint_init((mrc_endpoint *)0, &c, 0), MRC_ERR_INVAL);
    return 0;
}

/* The EV policy presets (mrc_ev_policy_preset): DEFAULT is what mrc_config_default gives; the others differ from it
 * in the rules their names promise and in nothing else. */
static int t_cfg_ev_presets(void) {
    mrc_config c;
    mrc_ev_policy d, p;
    int preset;
    mrc_config_default(&c);
    CHECK_EQ(mrc_ev_policy_preset((mrc_ev_policy *)0, MRC_EV_PRESET_DEFAULT), MRC_ERR_INVAL);
    CHECK_EQ(mrc_ev_policy_preset(&d, -1), MRC_ERR_INVAL);
    CHECK_EQ(mrc_ev_policy_preset(&d, MRC_EV_PRESET_PATHS + 1), MRC_ERR_INVAL);
    CHECK_EQ(mrc_ev_policy_preset(&d, MRC_EV_PRESET_DEFAULT), MRC_OK);
    CHECK(memcmp(&d, &c.ev, sizeof d) == 0);
    CHECK_EQ(mrc_ev_policy_preset(&p, MRC_EV_PRESET_ROTATION), MRC_OK);
    CHECK(p.recycle == MRC_EV_SCOPE_NONE && p.hold == MRC_EV_SCOPE_NONE && p.confirm_late == MRC_EV_SCOPE_NONE &&
          p.sweep == MRC_EV_SCOPE_NONE && p.group_retire == MRC_EV_RETIRE_ALONE && p.reply == MRC_EV_REPLY_ROTATE);
    p.recycle = d.recycle, p.hold = d.hold, p.confirm_late = d.confirm_late, p.sweep = d.sweep;
    p.group_retire = d.group_retire, p.reply = d.reply;
    CHECK(memcmp(&d, &p, sizeof d) == 0);
    CHECK_EQ(mrc_ev_policy_preset(&p, MRC_EV_PRESET_ECMP), MRC_OK);
    CHECK(p.recycle == MRC_EV_SCOPE_ALL && p.reply == MRC_EV_REPLY_ROTATE);
    p.recycle = d.recycle, p.reply = d.reply;
    CHECK(memcmp(&d, &p, sizeof d) == 0);
    CHECK_EQ(mrc_ev_policy_preset(&p, MRC_EV_PRESET_PATHS), MRC_OK);
    CHECK(p.backup_pct == 0 && p.sweep == MRC_EV_SCOPE_NONE);
    p.backup_pct = d.backup_pct, p.sweep = d.sweep;
    CHECK(memcmp(&d, &p, sizeof d) == 0);
    /* every preset is a valid configuration */
    for (preset = MRC_EV_PRESET_DEFAULT; preset <= MRC_EV_PRESET_PATHS; preset++) {
        CHECK_EQ(mrc_ev_policy_preset(&c.ev, preset), MRC_OK);
        CHECK_EQ(mrc_endpoint_init(&ut_fx.ep, &c, 0), MRC_OK);
    }
    return 0;
}

static int t_ep_init_rejects(void) {
    mrc_config c;
    mrc_endpoint *ep = &ut_fx.ep;
    unsigned i;
#define UT_CFG_RC(stmt, want)                                                                      \
    do {                                                                                           \
        int rc_;                                                                                   \
        mrc_config_default(&c);                                                                    \
        stmt;                                                                                      \
        rc_ = mrc_endpoint_init(ep, &c, 0);                                                        \
        CHECKF(rc_ == (want), "%s: mrc_endpoint_init returned %d, want %d", #stmt, rc_, (int)(want)); \
    } while (0)
    UT_CFG_RC(c.num_ports = 0, MRC_ERR_INVAL);
    UT_CFG_RC(c.num_ports = 1, MRC_OK);
    UT_CFG_RC(c.num_ports = MRC_MAX_PORTS, MRC_OK);
    UT_CFG_RC(c.num_ports = MRC_MAX_PORTS + 1, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.bth_m_bit = 5, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.bth_m_bit = 6, MRC_OK);
    UT_CFG_RC(c.wire.bth_m_bit = 8, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.bth_m_bit = 0, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.eeth_op_shift = 3, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.eeth_op_shift = 0, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.eeth_op_shift = 4, MRC_OK);
    UT_CFG_RC(c.wire.eeth_op_shift = 6, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.ts_shift = 20, MRC_OK);
    UT_CFG_RC(c.wire.ts_shift = 21, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.ts_shift = 0, MRC_OK);
    UT_CFG_RC(c.wire.tver = 15, MRC_OK);
    UT_CFG_RC(c.wire.tver = 16, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.sack_msb_first = 1, MRC_OK);
    UT_CFG_RC(c.wire.sack_msb_first = 2, MRC_ERR_INVAL);
    for (i = 0; i < MRC_DSCP_CLASSES; i++) {
        UT_CFG_RC(c.dscp[i] = 63, MRC_OK);
        UT_CFG_RC(c.dscp[i] = 64, MRC_ERR_INVAL);
    }
    UT_CFG_RC((c.auto_ev.sport_min = 1000, c.auto_ev.sport_max = 999), MRC_ERR_INVAL);
    UT_CFG_RC((c.auto_ev.sport_min = 1000, c.auto_ev.sport_max = 1000), MRC_OK);
    UT_CFG_RC(c.auto_ev.per_port = 0, MRC_ERR_INVAL);
    UT_CFG_RC(c.ack.sack_every = 0, MRC_ERR_INVAL);
    UT_CFG_RC(c.qpn_base = 2, MRC_ERR_INVAL);
    UT_CFG_RC(c.qpn_base = 3, MRC_OK);
    UT_CFG_RC(c.qpn_base = 0x1000000u, MRC_ERR_INVAL);
    UT_CFG_RC(c.qpn_base = 0xFFFFFFu - MRC_MAX_CONNS, MRC_OK); /* last QPN 0xFFFFFF - 1 */
    UT_CFG_RC(c.qpn_base = 0xFFFFFFu, MRC_ERR_INVAL);
    UT_CFG_RC(c.qpn_base = 0, MRC_OK); /* P16: random QPNs (the default) */
    /* the EV policy: scopes are ORs of the three kinds, reply and group_retire their enums */
    UT_CFG_RC(c.ev.sweep = MRC_EV_SCOPE_ALL, MRC_OK);
    UT_CFG_RC(c.ev.hold = MRC_EV_KIND_PATH | MRC_EV_KIND_AUTO, MRC_OK);
    UT_CFG_RC(c.ev.recycle = MRC_EV_SCOPE_ALL + 1u, MRC_ERR_INVAL);
    UT_CFG_RC(c.ev.hold = 0x80, MRC_ERR_INVAL);
    UT_CFG_RC(c.ev.confirm_late = 8, MRC_ERR_INVAL);
    UT_CFG_RC(c.ev.sweep = 0xFF, MRC_ERR_INVAL);
    UT_CFG_RC(c.ev.reply = MRC_EV_REPLY_ECHO, MRC_OK);
    UT_CFG_RC(c.ev.reply = MRC_EV_REPLY_ECHO + 1, MRC_ERR_INVAL);
    UT_CFG_RC(c.ev.group_retire = MRC_EV_RETIRE_SECOND + 1, MRC_ERR_INVAL);
    { /* ... and the refusal says why, in words (every detail code has its string) */
        mrc_detail d;
        char buf[256];
        UT_CFG_RC(c.ev.reply = 7, MRC_ERR_INVAL);
        CHECK_EQ(mrc_endpoint_last_error(ep, &d), MRC_OK);
        CHECK_EQ(d.code, MRC_DETAIL_CFG_EV_POLICY);
        CHECK(mrc_detail_format(&d, buf, sizeof buf) > 0 && strstr(buf, "EV policy") != NULL);
        for (i = 0; i < MRC_DETAIL_COUNT; i++) CHECKF(mrc_detail_name(i) != NULL, "detail %u has no name", i);
    }
#undef UT_CFG_RC
    return 0;
}

/* Every QPN must fit 24 bits: a qpn_base whose qpn_base + MRC_MAX_CONNS wraps 32 bits must be refused too. */
static int t_ep_init_qpn_base_range(void) {
    static const uint32_t bad[] = {0x1000000u, 0x80000000u, 0xFFFFFFF8u, 0xFFFFFFFFu};
    mrc_config c;
    unsigned i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc;
        mrc_config_default(&c);
        c.qpn_base = bad[i];
        rc = mrc_endpoint_init(&ut_fx.ep, &c, 0);
        CHECKF(rc == MRC_ERR_INVAL, "qpn_base 0x%08X: mrc_endpoint_init returned %d, want MRC_ERR_INVAL (its QPNs "
               "do not fit 24 bits)", (unsigned)bad[i], rc);
    }
    return 0;
}

static int t_ep_port_set(void) {
    mrc_config c;
    mrc_endpoint *ep = &ut_fx.ep;
    unsigned p;
    mrc_config_default(&c);
    c.num_ports = 3;
    CHECK_EQ(mrc_endpoint_init(ep, &c, 0), MRC_OK);
    for (p = 1; p <= 3; p++) CHECK(mrc_endpoint_port_up(ep, p)); /* all ports start up */
    CHECK(!mrc_endpoint_port_up(ep, 0));
    CHECK(!mrc_endpoint_port_up(ep, 4));
    CHECK(!mrc_endpoint_port_up((const mrc_endpoint *)0, 1));
    CHECK_EQ(mrc_endpoint_port_set(ep, 0, false, 0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_port_set(ep, 4, false, 0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_port_set((mrc_endpoint *)0, 1, false, 0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_port_set(ep, 3, false, 0), MRC_OK);
    CHECK(!mrc_endpoint_port_up(ep, 3));
    CHECK(mrc_endpoint_port_up(ep, 1) && mrc_endpoint_port_up(ep, 2));
    CHECK_EQ(mrc_endpoint_port_set(ep, 3, false, 0), MRC_OK); /* idempotent */
    CHECK_EQ(mrc_endpoint_port_set(ep, 1, false, 0), MRC_OK);
    CHECK(!mrc_endpoint_port_up(ep, 1));
    CHECK_EQ(mrc_endpoint_port_set(ep, 3, true, 0), MRC_OK);
    CHECK(mrc_endpoint_port_up(ep, 3));
    CHECK(!mrc_endpoint_port_up(ep, 1));
    return 0;
}

static int t_ep_mr_table(void) {
    mrc_config c;
    mrc_endpoint *ep = &ut_fx.ep;
    static uint8_t mem[MRC_MAX_MRS][16];
    uint32_t rk[MRC_MAX_MRS], k, extra;
    unsigned i, j;
    mrc_config_default(&c);
    CHECK_EQ(mrc_endpoint_init(ep, &c, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_reg_mr((mrc_endpoint *)0, mem[0], 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &k), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, (uint32_t *)0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], 0, 16, 1u << 2, NULL, &k), MRC_ERR_INVAL); /* unknown access bit */
    CHECK_EQ(mrc_endpoint_reg_mr(ep, NULL, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &k), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], 0, 16, MRC_ACCESS_EXTERNAL, NULL, &k), MRC_ERR_INVAL); /* no hook */
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], UINT64_MAX - 15u, 17, 0, NULL, &k), MRC_ERR_INVAL); /* wraps */
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], UINT64_MAX - 16u, 16, 0, NULL, &k), MRC_OK);        /* just fits */
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, k), MRC_OK);
    for (i = 0; i < MRC_MAX_MRS; i++) {
        CHECKF(mrc_endpoint_reg_mr(ep, mem[i], 0x1000u * i, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &rk[i]) == MRC_OK,
               "reg_mr #%u", i);
        for (j = 0; j < i; j++) CHECKF(rk[i] != rk[j], "rkeys %u and %u are both 0x%X", i, j, (unsigned)rk[i]);
    }
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &k), MRC_ERR_FULL);
    for (i = 1; i < MRC_MAX_MRS; i++) /* P16: 8 seeded random key bits, not a constant */
        if ((rk[i] & 0xFFu) != (rk[0] & 0xFFu)) break;
    CHECK(i < MRC_MAX_MRS);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, rk[3]), MRC_OK);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, rk[3]), MRC_ERR_NOENT); /* lookup after dereg */
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[3], 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &extra), MRC_OK);
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &k), MRC_ERR_FULL);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, 0), MRC_ERR_NOENT);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, 0xFFFFFFFFu), MRC_ERR_NOENT);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, rk[0] ^ 0x80u), MRC_ERR_NOENT); /* right slot, wrong key bits */
    CHECK_EQ(mrc_endpoint_dereg_mr((mrc_endpoint *)0, rk[0]), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, rk[0]), MRC_OK);
    return 0;
}

/* P16 caller-chosen rkeys: the argument rules, uniqueness against both kinds of key, and the hash table under churn
 * against a model (keys drawn so that many share a home entry, removed in random order: backward-shift deletion) */
static int t_ep_mr_keyed(void) {
    mrc_config c;
    mrc_endpoint *ep = &ut_fx.ep;
    static uint8_t mem[16];
    uint32_t model[MRC_MAX_MRS], nm = 0, k, core, i, round;
    uint64_t r = 0x5EED5EEDull;
    mrc_config_default(&c);
    CHECK_EQ(mrc_endpoint_init(ep, &c, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_reg_mr_key((mrc_endpoint *)0, mem, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, 7), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_reg_mr_key(ep, mem, 0, 16, 1u << 2, NULL, 7), MRC_ERR_INVAL); /* unknown access bit */
    CHECK_EQ(mrc_endpoint_reg_mr_key(ep, NULL, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, 7), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_reg_mr_key(ep, mem, UINT64_MAX - 15u, 17, 0, NULL, 7), MRC_ERR_INVAL); /* wraps */
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &core), MRC_OK);
    CHECK_EQ(mrc_endpoint_reg_mr_key(ep, mem, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, core), MRC_ERR_BUSY);
    CHECK_EQ(mrc_endpoint_reg_mr_key(ep, mem, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, 0), MRC_OK); /* any value */
    CHECK_EQ(mrc_endpoint_reg_mr_key(ep, mem, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, 0), MRC_ERR_BUSY);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, 0), MRC_ERR_NOENT);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, core), MRC_OK);
    /* a caller key shaped like a core key for slot 1 (0x2xx) while slot 1 is free (the caller's region takes slot
     * 0), then a core key, which takes slot 1: over all 256 key bits the core never hands out the key the caller holds */
    for (i = 0; i < 256u; i++) {
        CHECK_EQ(mrc_endpoint_reg_mr_key(ep, mem, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, 0x200u + i), MRC_OK);
        CHECK_EQ(mrc_endpoint_reg_mr(ep, mem, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &core), MRC_OK);
        CHECKF(core != 0x200u + i, "core rkey 0x%X equals the caller's", (unsigned)core);
        CHECK_EQ(mrc_endpoint_dereg_mr(ep, core), MRC_OK);
        CHECK_EQ(mrc_endpoint_dereg_mr(ep, 0x200u + i), MRC_OK);
    }
    for (round = 0; round < 4000u; round++) { /* churn against a model */
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        if (nm < MRC_MAX_MRS && (nm == 0 || (r >> 40) % 3u != 0)) {
            /* keys of a few high bits only: many land on the same home entries */
            k = (uint32_t)((r >> 33) & 0x7u) << 24 | (uint32_t)((r >> 50) & 0x3u);
            for (i = 0; i < nm && model[i] != k; i++) {
            }
            CHECK_EQ(mrc_endpoint_reg_mr_key(ep, mem, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, k),
                     i < nm ? MRC_ERR_BUSY : MRC_OK);
            if (i == nm) model[nm++] = k;
        } else if (nm) {
            i = (uint32_t)((r >> 20) % nm);
            CHECKF(mrc_endpoint_dereg_mr(ep, model[i]) == MRC_OK, "round %u: dereg 0x%X", round, (unsigned)model[i]);
            model[i] = model[--nm];
        }
        for (i = 0; i < nm; i++) /* every key still held is found (a second registration is refused) */
            CHECKF(mrc_endpoint_reg_mr_key(ep, mem, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, model[i]) == MRC_ERR_BUSY,
                   "round %u: rkey 0x%X lost", round, (unsigned)model[i]);
        if (nm < MRC_MAX_MRS) { /* and a key never used is not */
            CHECK_EQ(mrc_endpoint_reg_mr_key(ep, mem, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, 0x0F000000u), MRC_OK);
            CHECK_EQ(mrc_endpoint_dereg_mr(ep, 0x0F000000u), MRC_OK);
        }
    }
    CHECK(nm <= MRC_MAX_MRS);
    return 0;
}

/* recv / poll_tx / poll_event / on_timeout argument checks */
static int t_ep_api_args(void) {
    ut_fix *f = &ut_fx;
    uint8_t buf[128];
    mrc_txinfo ti;
    mrc_event ev;
    mrc_rxinfo ri = ut_ri(1, UT_EV);
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 200), MRC_OK);
    memset(buf, 0, sizeof buf);
    CHECK_EQ(mrc_endpoint_recv((mrc_endpoint *)0, buf, 40, &ri, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, (const uint8_t *)0, 40, &ri, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, buf, 40, (const mrc_rxinfo *)0, f->now), MRC_ERR_INVAL);
    ri.port = 0;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, buf, 40, &ri, f->now), MRC_ERR_INVAL);
    ri.port = 3; /* num_ports is 2 */
    CHECK_EQ(mrc_endpoint_recv(&f->ep, buf, 40, &ri, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_tx((mrc_endpoint *)0, buf, sizeof buf, 0, &ti, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, (uint8_t *)0, sizeof buf, 0, &ti, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, 0, (mrc_txinfo *)0, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, 1u << 5, &ti, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, MRC_HDR_MAX - 1, 0, &ti, f->now), MRC_ERR_NOBUF);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, MRC_HDR_MAX, 0, &ti, f->now), 0); /* nothing to send */
    CHECK_EQ(mrc_endpoint_poll_event((mrc_endpoint *)0, &ev), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_event(&f->ep, (mrc_event *)0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_event(&f->ep, &ev), 0);
    CHECK_EQ(mrc_endpoint_on_timeout((mrc_endpoint *)0, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
    CHECK(mrc_endpoint_next_deadline((const mrc_endpoint *)0) == MRC_TIME_NEVER);
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER); /* idle */
    return 0;
}

/* ================================================================================================================
 * 7. QP state machine (docs/PROTOCOL.md section 4)
 * ============================================================================================================== */
static const unsigned ut_states[5] = {MRC_QPS_RESET, MRC_QPS_INIT, MRC_QPS_RTR, MRC_QPS_RTS, MRC_QPS_ERR};

/* required mask (with STATE) of a legal pair; for illegal pairs the mask the target state normally takes */
static uint32_t ut_trans_mask(unsigned from, unsigned to) {
    switch (to) {
    case MRC_QPS_INIT: return from == MRC_QPS_INIT ? MRC_ATTR_STATE : UT_M_INIT;
    case MRC_QPS_RTR: return UT_M_RTR;
    case MRC_QPS_RTS: return from == MRC_QPS_RTS ? MRC_ATTR_STATE : UT_M_RTS;
    default: return MRC_ATTR_STATE;
    }
}
/* docs section 4 transition table */
static int ut_trans_legal(unsigned from, unsigned to) {
    if (to == MRC_QPS_RESET || to == MRC_QPS_ERR) return 1;
    if (from == MRC_QPS_RESET && to == MRC_QPS_INIT) return 1;
    if (from == MRC_QPS_INIT && (to == MRC_QPS_INIT || to == MRC_QPS_RTR)) return 1;
    if (from == MRC_QPS_RTR && to == MRC_QPS_RTS) return 1;
    if (from == MRC_QPS_RTS && to == MRC_QPS_RTS) return 1;
    return 0;
}

static int t_qp_transition_matrix(void) {
    ut_fix *f = &ut_fx;
    unsigned i, j, pass;
    for (i = 0; i < 5; i++) {
        for (j = 0; j < 5; j++) {
            for (pass = 0; pass < 2; pass++) {
                unsigned from = ut_states[i], to = ut_states[j];
                int legal = ut_trans_legal(from, to), want = legal ? MRC_OK : MRC_ERR_STATE, rc;
                uint32_t mask = pass == 0 ? ut_trans_mask(from, to) : MRC_ATTR_STATE;
                mrc_conn_attr a = f->attr, q;
                if (pass == 1 && legal) continue; /* STATE-only masks of legal pairs are covered by the mask test */
                CHECK_EQ(ut_setup(f, NULL, from, 100, 200), MRC_OK);
                CHECKF(mrc_conn_state(&f->c) == (int)from, "setup to %s", mrc_state_name(from));
                a = f->attr;
                a.state = (uint8_t)to;
                rc = mrc_conn_modify(&f->c, &a, mask, f->now);
                CHECKF(rc == want, "%s -> %s (mask 0x%X): rc %d (%s), want %d (%s)", mrc_state_name(from),
                       mrc_state_name(to), (unsigned)mask, rc, mrc_strerror(rc), want, mrc_strerror(want));
                CHECKF(mrc_conn_state(&f->c) == (int)(legal ? to : from), "%s -> %s: now in %s",
                       mrc_state_name(from), mrc_state_name(to), mrc_state_name((unsigned)mrc_conn_state(&f->c)));
                CHECK_EQ(mrc_conn_query(&f->c, &q), MRC_OK);
                CHECK_EQ(q.state, legal ? to : from);
            }
        }
    }
    /* a state value past ERR is invalid */
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 100, 200), MRC_OK);
    {
        mrc_conn_attr a = f->attr;
        a.state = 5;
        CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE, f->now), MRC_ERR_INVAL);
        /* RTR -> RTR (no STATE bit, an RTS-only attribute) is not a listed transition */
        CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTR, f->now), MRC_OK);
        CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_RETRY, f->now), MRC_ERR_STATE);
        CHECK_EQ(mrc_conn_modify(&f->c, &a, 0, f->now), MRC_ERR_STATE);
        CHECK_EQ(mrc_conn_modify((mrc_conn *)0, &a, MRC_ATTR_STATE, f->now), MRC_ERR_INVAL);
        CHECK_EQ(mrc_conn_modify(&f->c, (const mrc_conn_attr *)0, MRC_ATTR_STATE, f->now), MRC_ERR_INVAL);
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTR);
    }
    return 0;
}

static int t_qp_mask_bits(void) {
    static const struct {
        unsigned from, to;
        uint32_t req, opt;
    } tr[] = {
        {MRC_QPS_RESET, MRC_QPS_INIT, MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE,
         MRC_ATTR_PKEY | MRC_ATTR_ACCESS | MRC_ATTR_HINT},
        {MRC_QPS_INIT, MRC_QPS_INIT, 0, MRC_ATTR_PKEY | MRC_ATTR_ACCESS | MRC_ATTR_HINT},
        {MRC_QPS_INIT, MRC_QPS_RTR,
         MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU | MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST,
         MRC_ATTR_CAPS | MRC_ATTR_PEER | MRC_ATTR_PKEY | MRC_ATTR_ACCESS},
        {MRC_QPS_RTR, MRC_QPS_RTS,
         MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT, MRC_ATTR_ACCESS},
        {MRC_QPS_RTS, MRC_QPS_RTS, 0, MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT | MRC_ATTR_ACCESS},
        {MRC_QPS_RTS, MRC_QPS_ERR, 0, 0},
        {MRC_QPS_INIT, MRC_QPS_ERR, 0, 0},
        {MRC_QPS_RTR, MRC_QPS_RESET, 0, 0},
        {MRC_QPS_ERR, MRC_QPS_RESET, 0, 0},
        {MRC_QPS_RESET, MRC_QPS_RESET, 0, 0},
    };
    ut_fix *f = &ut_fx;
    unsigned t, b;
    for (t = 0; t < sizeof tr / sizeof tr[0]; t++) {
        for (b = 0; b <= 19; b++) { /* b 0: the required set alone; b 1..17: each attribute; 18, 19: unknown bits */
            uint32_t bit = b == 0 ? 0 : b == 19 ? 0x80000000u : (uint32_t)1 << b, mask = MRC_ATTR_STATE | tr[t].req;
            int want, rc;
            mrc_conn_attr a;
            if (bit & tr[t].req) {
                mask &= ~bit;
                want = MRC_ERR_INVAL;
            } else if (bit == 0 || (bit & tr[t].opt)) {
                mask |= bit;
                want = MRC_OK;
            } else {
                mask |= bit;
                want = MRC_ERR_INVAL;
            }
            CHECK_EQ(ut_setup(f, NULL, tr[t].from, 100, 200), MRC_OK);
            a = f->attr;
            a.state = (uint8_t)tr[t].to;
            rc = mrc_conn_modify(&f->c, &a, mask, f->now);
            CHECKF(rc == want, "%s -> %s mask 0x%X (bit 0x%X): rc %d (%s), want %d", mrc_state_name(tr[t].from),
                   mrc_state_name(tr[t].to), (unsigned)mask, (unsigned)bit, rc, mrc_strerror(rc), want);
            CHECKF(mrc_conn_state(&f->c) == (int)(want == MRC_OK ? tr[t].to : tr[t].from), "%s -> %s bit 0x%X: state",
                   mrc_state_name(tr[t].from), mrc_state_name(tr[t].to), (unsigned)bit);
        }
    }
    return 0;
}

enum { UT_F_PKEY, UT_F_ACCESS, UT_F_EV, UT_F_CC, UT_F_DEST, UT_F_RQ, UT_F_MTU, UT_F_MPRD, UT_F_WIMMD, UT_F_CAPS,
       UT_F_SQ, UT_F_MPR, UT_F_WIMM, UT_F_RLIN, UT_F_REXP, UT_F_TO };

static void ut_attr_set(mrc_conn_attr *a, unsigned fld, uint64_t v) {
    switch (fld) {
    case UT_F_PKEY: a->pkey = (uint16_t)v; break;
    case UT_F_ACCESS: a->access = (uint32_t)v; break;
    case UT_F_EV: a->ev_profile_id = v; break;
    case UT_F_CC: a->cc_profile_id = v; break;
    case UT_F_DEST: a->dest_qpn = (uint32_t)v; break;
    case UT_F_RQ: a->rq_psn = (uint32_t)v; break;
    case UT_F_MTU: a->path_mtu = (uint32_t)v; break;
    case UT_F_MPRD: a->mpr_dest = (uint8_t)v; break;
    case UT_F_WIMMD: a->max_wimm_dest = (uint16_t)v; break;
    case UT_F_CAPS: a->caps = (uint32_t)v; break;
    case UT_F_SQ: a->sq_psn = (uint32_t)v; break;
    case UT_F_MPR: a->mpr = (uint8_t)v; break;
    case UT_F_WIMM: a->max_wimm = (uint16_t)v; break;
    case UT_F_RLIN: a->retry_linear = (uint8_t)v; break;
    case UT_F_REXP: a->retry_exp = (uint8_t)v; break;
    default: a->timeout = (uint8_t)v; break;
    }
}
static uint64_t ut_attr_get(const mrc_conn_attr *a, unsigned fld) {
    switch (fld) {
    case UT_F_PKEY: return a->pkey;
    case UT_F_ACCESS: return a->access;
    case UT_F_EV: return a->ev_profile_id;
    case UT_F_CC: return a->cc_profile_id;
    case UT_F_DEST: return a->dest_qpn;
    case UT_F_RQ: return a->rq_psn;
    case UT_F_MTU: return a->path_mtu;
    case UT_F_MPRD: return a->mpr_dest;
    case UT_F_WIMMD: return a->max_wimm_dest;
    case UT_F_CAPS: return a->caps;
    case UT_F_SQ: return a->sq_psn;
    case UT_F_MPR: return a->mpr;
    case UT_F_WIMM: return a->max_wimm;
    case UT_F_RLIN: return a->retry_linear;
    case UT_F_REXP: return a->retry_exp;
    default: return a->timeout;
    }
}
static int ut_attr_same(const mrc_conn_attr *a, const mrc_conn_attr *b) {
    unsigned fld;
    for (fld = UT_F_PKEY; fld <= UT_F_TO; fld++)
        if (ut_attr_get(a, fld) != ut_attr_get(b, fld)) {
            printf("    attribute #%u: %llu vs %llu\n", fld, (unsigned long long)ut_attr_get(a, fld),
                   (unsigned long long)ut_attr_get(b, fld));
            return 0;
        }
    if (a->state != b->state || a->peer != b->peer) {
        printf("    state %u vs %u, peer %u vs %u\n", a->state, b->state, (unsigned)a->peer, (unsigned)b->peer);
        return 0;
    }
    return 1;
}

static int t_qp_attr_ranges(void) {
    static const struct {
        unsigned from, fld;
        uint32_t bit;
        uint64_t v;
        int want;
    } cs[] = {
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0x0000, MRC_ERR_INVAL},
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0x8000, MRC_ERR_INVAL}, /* low 15 bits 0 */
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0x0001, MRC_OK},
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0x8001, MRC_OK},
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0x7FFF, MRC_OK},
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0xFFFF, MRC_OK},
        {MRC_QPS_RESET, UT_F_ACCESS, MRC_ATTR_ACCESS, 0, MRC_OK},
        {MRC_QPS_RESET, UT_F_ACCESS, MRC_ATTR_ACCESS, MRC_ACCESS_REMOTE_WRITE, MRC_OK},
        {MRC_QPS_RESET, UT_F_ACCESS, MRC_ATTR_ACCESS, 1u << 7, MRC_ERR_INVAL},
        {MRC_QPS_RESET, UT_F_EV, MRC_ATTR_EV_PROFILE, 1, MRC_ERR_NOENT},
        {MRC_QPS_RESET, UT_F_EV, MRC_ATTR_EV_PROFILE, UINT64_MAX, MRC_ERR_NOENT},
        {MRC_QPS_RESET, UT_F_CC, MRC_ATTR_CC_PROFILE, 1, MRC_ERR_NOENT},
        {MRC_QPS_RESET, UT_F_CC, MRC_ATTR_CC_PROFILE, 0x8000000000000000ull, MRC_ERR_NOENT},
        {MRC_QPS_INIT, UT_F_DEST, MRC_ATTR_DEST_QPN, 0, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_DEST, MRC_ATTR_DEST_QPN, MRC_EPOP_QPN, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_DEST, MRC_ATTR_DEST_QPN, 3, MRC_OK},
        {MRC_QPS_INIT, UT_F_DEST, MRC_ATTR_DEST_QPN, 0xFFFFFF, MRC_OK},
        {MRC_QPS_INIT, UT_F_DEST, MRC_ATTR_DEST_QPN, 0x1000000, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_RQ, MRC_ATTR_RQ_PSN, 0, MRC_OK},
        {MRC_QPS_INIT, UT_F_RQ, MRC_ATTR_RQ_PSN, 0xFFFFFF, MRC_OK},
        {MRC_QPS_INIT, UT_F_RQ, MRC_ATTR_RQ_PSN, 0x1000000, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 0, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 128, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 255, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 256, MRC_OK},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 257, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 512, MRC_OK},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 1024, MRC_OK},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 1500, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 2048, MRC_OK},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 4096, MRC_OK},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 8192, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MPRD, MRC_ATTR_MPR_DEST, 0, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MPRD, MRC_ATTR_MPR_DEST, 1, MRC_OK},
        {MRC_QPS_INIT, UT_F_MPRD, MRC_ATTR_MPR_DEST, MRC_MAX_MPR_UNITS, MRC_OK},
        {MRC_QPS_INIT, UT_F_MPRD, MRC_ATTR_MPR_DEST, MRC_MAX_MPR_UNITS + 1, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_WIMMD, MRC_ATTR_MAX_WIMM_DEST, 0, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_WIMMD, MRC_ATTR_MAX_WIMM_DEST, 1, MRC_OK},
        {MRC_QPS_INIT, UT_F_WIMMD, MRC_ATTR_MAX_WIMM_DEST, MRC_MAX_WIMM, MRC_OK},
        {MRC_QPS_INIT, UT_F_WIMMD, MRC_ATTR_MAX_WIMM_DEST, MRC_MAX_WIMM + 1, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_CAPS, MRC_ATTR_CAPS, 0, MRC_OK},
        {MRC_QPS_INIT, UT_F_CAPS, MRC_ATTR_CAPS,
         MRC_CAP_TRIM_NACK_DEST_UNSUPPORTED | MRC_CAP_DYNAMIC_MPR | MRC_CAP_SVC_TIME_DEST_UNSUPPORTED, MRC_OK},
        {MRC_QPS_INIT, UT_F_CAPS, MRC_ATTR_CAPS, 1u << 3, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_CAPS, MRC_ATTR_CAPS, 0x80000000u, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_SQ, MRC_ATTR_SQ_PSN, 0xFFFFFF, MRC_OK},
        {MRC_QPS_RTR, UT_F_SQ, MRC_ATTR_SQ_PSN, 0x1000000, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_MPR, MRC_ATTR_MPR, 0, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_MPR, MRC_ATTR_MPR, 1, MRC_OK},
        {MRC_QPS_RTR, UT_F_MPR, MRC_ATTR_MPR, 255, MRC_OK},
        {MRC_QPS_RTR, UT_F_WIMM, MRC_ATTR_MAX_WIMM, 0, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_WIMM, MRC_ATTR_MAX_WIMM, 1, MRC_OK},
        {MRC_QPS_RTR, UT_F_WIMM, MRC_ATTR_MAX_WIMM, 0xFFFF, MRC_OK},
        {MRC_QPS_RTR, UT_F_RLIN, MRC_ATTR_RETRY, 7, MRC_OK},
        {MRC_QPS_RTR, UT_F_RLIN, MRC_ATTR_RETRY, 8, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_REXP, MRC_ATTR_RETRY, 25, MRC_OK},
        {MRC_QPS_RTR, UT_F_REXP, MRC_ATTR_RETRY, 26, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_TO, MRC_ATTR_TIMEOUT, 0, MRC_OK},
        {MRC_QPS_RTR, UT_F_TO, MRC_ATTR_TIMEOUT, 24, MRC_OK},
        {MRC_QPS_RTR, UT_F_TO, MRC_ATTR_TIMEOUT, 25, MRC_ERR_INVAL},
        /* the optional RTS -> RTS attributes */
        {MRC_QPS_RTS, UT_F_RLIN, MRC_ATTR_RETRY, 8, MRC_ERR_INVAL},
        {MRC_QPS_RTS, UT_F_REXP, MRC_ATTR_RETRY, 0, MRC_OK},
        {MRC_QPS_RTS, UT_F_TO, MRC_ATTR_TIMEOUT, 25, MRC_ERR_INVAL},
        {MRC_QPS_RTS, UT_F_TO, MRC_ATTR_TIMEOUT, 1, MRC_OK},
        {MRC_QPS_RTS, UT_F_ACCESS, MRC_ATTR_ACCESS, 0, MRC_OK},
        {MRC_QPS_INIT, UT_F_PKEY, MRC_ATTR_PKEY, 0x8000, MRC_ERR_INVAL}, /* INIT -> INIT */
    };
    ut_fix *f = &ut_fx;
    unsigned i;
    for (i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        unsigned from = cs[i].from, to;
        uint32_t mask;
        mrc_conn_attr a, q0, q1;
        int rc;
        if (from == MRC_QPS_RESET) to = MRC_QPS_INIT;
        else if (from == MRC_QPS_INIT)
            to = (cs[i].bit == MRC_ATTR_PKEY || cs[i].bit == MRC_ATTR_ACCESS) ? MRC_QPS_INIT : MRC_QPS_RTR;
        else if (from == MRC_QPS_RTR) to = MRC_QPS_RTS;
        else to = MRC_QPS_RTS;
        mask = ut_trans_mask(from, to) | cs[i].bit;
        CHECK_EQ(ut_setup(f, NULL, from, 100, 200), MRC_OK);
        CHECK_EQ(mrc_conn_query(&f->c, &q0), MRC_OK);
        a = f->attr;
        a.state = (uint8_t)to;
        ut_attr_set(&a, cs[i].fld, cs[i].v);
        rc = mrc_conn_modify(&f->c, &a, mask, f->now);
        CHECKF(rc == cs[i].want, "case %u: attribute #%u = %llu (%s -> %s): rc %d (%s), want %d (%s)", i, cs[i].fld,
               (unsigned long long)cs[i].v, mrc_state_name(from), mrc_state_name(to), rc, mrc_strerror(rc),
               cs[i].want, mrc_strerror(cs[i].want));
        CHECK_EQ(mrc_conn_query(&f->c, &q1), MRC_OK);
        if (rc == MRC_OK) {
            CHECKF(q1.state == to, "case %u: state %u", i, q1.state);
            CHECKF(ut_attr_get(&q1, cs[i].fld) == cs[i].v, "case %u: query reads %llu", i,
                   (unsigned long long)ut_attr_get(&q1, cs[i].fld));
        } else {
            CHECKF(ut_attr_same(&q1, &q0), "case %u: a failed modify changed the attributes", i);
        }
    }
    return 0;
}

/* every value is validated before anything changes: valid optional values in a failing call are not applied */
static int t_qp_modify_atomic(void) {
    ut_fix *f = &ut_fx;
    mrc_conn_attr a, q0, q1;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 100, 200), MRC_OK);
    CHECK_EQ(mrc_conn_query(&f->c, &q0), MRC_OK);
    CHECK_EQ(q0.pkey, 0xFFFF); /* defaults */
    CHECK_EQ(q0.access, MRC_ACCESS_REMOTE_WRITE);
    a = f->attr;
    a.state = MRC_QPS_INIT;
    a.pkey = 0x1234;
    a.access = 0;
    a.cc_profile_id = 9;
    CHECK_EQ(mrc_conn_modify(&f->c, &a, UT_M_INIT | MRC_ATTR_PKEY | MRC_ATTR_ACCESS, f->now), MRC_ERR_NOENT);
    CHECK_EQ(mrc_conn_query(&f->c, &q1), MRC_OK);
    CHECK(ut_attr_same(&q1, &q0));

    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_INIT, f->now), MRC_OK);
    CHECK_EQ(mrc_conn_query(&f->c, &q0), MRC_OK);
    a = f->attr;
    a.state = MRC_QPS_RTR;
    a.pkey = 0x1234;
    a.caps = MRC_CAP_DYNAMIC_MPR;
    a.peer = 999;
    a.dest_qpn = 0x555;
    a.max_wimm_dest = 0; /* the bad one, validated after the good ones */
    CHECK_EQ(mrc_conn_modify(&f->c, &a, UT_M_RTR | MRC_ATTR_PKEY | MRC_ATTR_CAPS | MRC_ATTR_PEER, f->now),
             MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_query(&f->c, &q1), MRC_OK);
    CHECK(ut_attr_same(&q1, &q0));

    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RESET, f->now), MRC_OK);
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 200), MRC_OK);
    CHECK_EQ(mrc_conn_query(&f->c, &q0), MRC_OK);
    a = f->attr;
    a.state = MRC_QPS_RTS;
    a.retry_linear = 1;
    a.access = 0;
    a.timeout = 25;
    CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE | MRC_ATTR_RETRY | MRC_ATTR_ACCESS | MRC_ATTR_TIMEOUT, f->now),
             MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_query(&f->c, &q1), MRC_OK);
    CHECK(ut_attr_same(&q1, &q0));
    return 0;
}

/* query reflects every attribute set on the way to RTS; RESET restores the defaults */
static int t_qp_query_roundtrip(void) {
    ut_fix *f = &ut_fx;
    mrc_conn_attr want, q;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 0xFFFFFF, 0x000001), MRC_OK);
    f->attr.pkey = 0x8123;
    f->attr.caps = MRC_CAP_DYNAMIC_MPR;
    f->attr.peer = 0xDEAD;
    f->attr.mpr_dest = 3;
    f->attr.mpr = 200;
    f->attr.path_mtu = 4096;
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
    want = f->attr;
    want.state = MRC_QPS_RTS;
    CHECK_EQ(mrc_conn_query(&f->c, &q), MRC_OK);
    CHECK(ut_attr_same(&q, &want));
    CHECK_EQ(q.caps, MRC_CAP_DYNAMIC_MPR);
    CHECK_EQ(mrc_conn_query((const mrc_conn *)0, &q), MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_query(&f->c, (mrc_conn_attr *)0), MRC_ERR_INVAL);
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_ERR, f->now), MRC_OK);
    want.state = MRC_QPS_RESET;
    {
        mrc_conn_attr a = f->attr;
        a.state = MRC_QPS_RESET;
        CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE, f->now), MRC_OK);
    }
    CHECK_EQ(mrc_conn_query(&f->c, &q), MRC_OK);
    CHECK_EQ(q.state, MRC_QPS_RESET);
    CHECK_EQ(q.pkey, 0xFFFF);
    CHECK_EQ(q.access, MRC_ACCESS_REMOTE_WRITE);
    return 0;
}

static int t_qp_conn_table(void) {
    mrc_config c;
    mrc_endpoint *ep = &ut_fx.ep;
    mrc_conn_attr a;
    unsigned i;
    int user = 5;
    uint8_t pkt[64];
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_endpoint_stats st;
    mrc_wire_opts o = ut_opts(7, 0, 2);
    size_t n;
    mrc_config_default(&c);
    /* P16: fixed QPNs on request (a nonzero qpn_base) */
    c.qpn_base = 0x300;
    CHECK_EQ(mrc_endpoint_init(ep, &c, 0), MRC_OK);
    memset(ut_conns, 0, sizeof ut_conns);
    CHECK_EQ(mrc_conn_init((mrc_endpoint *)0, &ut_conns[0], 0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_init(ep, (mrc_conn *)0, 0), MRC_ERR_INVAL);
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        CHECK_EQ(mrc_conn_init(ep, &ut_conns[i], 0), MRC_OK);
        CHECK_EQ(mrc_conn_qpn(&ut_conns[i]), 0x300 + i); /* P16: qpn_base + slot */
        CHECK_EQ(mrc_conn_state(&ut_conns[i]), MRC_QPS_RESET);
    }
    CHECK_EQ(mrc_conn_init(ep, &ut_conns[MRC_MAX_CONNS], 0), MRC_ERR_FULL);
    CHECK_EQ(mrc_conn_init(ep, &ut_conns[0], 0), MRC_ERR_INVAL); /* already attached */
    CHECK_EQ(mrc_conn_qpn((const mrc_conn *)0), 0);
    CHECK_EQ(mrc_conn_state((const mrc_conn *)0), MRC_ERR_INVAL);
    mrc_conn_set_user(&ut_conns[1], &user);
    CHECK(mrc_conn_user(&ut_conns[1]) == &user);
    ut_attr(&a, 1, 1);
    CHECK_EQ(ut_goto(&ut_conns[1], &a, MRC_QPS_RTS, 0), MRC_OK);
    a.state = MRC_QPS_RESET;
    CHECK_EQ(mrc_conn_modify(&ut_conns[1], &a, MRC_ATTR_STATE, 0), MRC_OK);
    CHECK(mrc_conn_user(&ut_conns[1]) == &user); /* RESET keeps the identity */
    CHECK_EQ(mrc_conn_qpn(&ut_conns[1]), 0x301);
    CHECK(mrc_conn_user((const mrc_conn *)0) == NULL);
    /* destroy only in RESET and ERR */
    ut_attr(&a, 1, 1);
    for (i = 0; i < 5; i++) {
        mrc_conn *cn = &ut_conns[2 + i];
        CHECK_EQ(ut_goto(cn, &a, ut_states[i], 0), MRC_OK);
        CHECKF(mrc_conn_destroy(cn) == ((i == 0 || i == 4) ? MRC_OK : MRC_ERR_STATE), "destroy in %s",
               mrc_state_name(ut_states[i]));
    }
    CHECK_EQ(mrc_conn_destroy(&ut_conns[2]), MRC_ERR_INVAL); /* already detached */
    CHECK_EQ(mrc_conn_destroy((mrc_conn *)0), MRC_ERR_INVAL);
    a.state = MRC_QPS_INIT;
    CHECK_EQ(mrc_conn_modify(&ut_conns[2], &a, UT_M_INIT, 0), MRC_ERR_INVAL); /* detached */
    /* a destroyed slot's QPN no longer exists */
    {
        mrc_bth b;
        memset(&b, 0, sizeof b);
        b.opcode = MRC_OP_PROBE_REQ;
        b.pkey = 0xFFFF;
        b.dest_qp = 0x300 + 6;
        n = (size_t)mrc_bth_encode(pkt, sizeof pkt, &o, &b);
        memset(pkt + n, 0, MRC_PETH_LEN);
        n += MRC_PETH_LEN;
        CHECK_EQ(mrc_endpoint_recv(ep, pkt, n, &ri, 0), MRC_ERR_DROP);
        mrc_endpoint_stats_get(ep, &st);
        CHECK_EQ(st.drop[MRC_DROP_QPN], 1);
    }
    /* a freed slot is reused, with its QPN */
    CHECK_EQ(mrc_conn_init(ep, &ut_conns[MRC_MAX_CONNS], 0), MRC_OK);
    CHECK_EQ(mrc_conn_qpn(&ut_conns[MRC_MAX_CONNS]), 0x300 + 2);
    CHECK(mrc_conn_user(&ut_conns[MRC_MAX_CONNS]) == NULL);
    return 0;
}

static int t_qp_post_write_rules(void) {
    ut_fix *f = &ut_fx;
    mrc_write w;
    unsigned i;
    uint32_t op;
    /* only in RTS */
    for (i = 0; i < 5; i++) {
        CHECK_EQ(ut_setup(f, NULL, ut_states[i], 100, 200), MRC_OK);
        w = ut_wr(1, MRC_WR_WRITE, ut_src, 16, 0x1000, 0);
        CHECKF(mrc_conn_post_write(&f->c, &w, f->now) == (ut_states[i] == MRC_QPS_RTS ? MRC_OK : MRC_ERR_STATE),
               "post_write in %s", mrc_state_name(ut_states[i]));
    }
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 200), MRC_OK);
    for (op = MRC_WR_SEND; op <= MRC_WR_ATOMIC_FADD; op++) {
        w = ut_wr(1, op, ut_src, 16, 0x1000, 0);
        CHECKF(mrc_conn_post_write(&f->c, &w, f->now) == MRC_ERR_NOTSUP, "opcode %u", (unsigned)op);
    }
    w = ut_wr(1, 7, ut_src, 16, 0x1000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    w = ut_wr(1, 0xFFFFFFFFu, ut_src, 16, 0x1000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    w = ut_wr(1, MRC_WR_WRITE, ut_src, 16, 0x1000, 1u << 2);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    w = ut_wr(1, MRC_WR_WRITE, ut_src, MRC_MAX_MSG_LEN + 1u, 0x1000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    w = ut_wr(1, MRC_WR_WRITE, NULL, 1, 0x1000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    w = ut_wr(1, MRC_WR_WRITE, ut_src, 16, UINT64_MAX - 15u, 0); /* last byte would be past 2^64 - 1 */
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_post_write((mrc_conn *)0, &w, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_post_write(&f->c, (const mrc_write *)0, f->now), MRC_ERR_INVAL);
    /* the last valid values */
    w = ut_wr(2, MRC_WR_WRITE, ut_src, 16, UINT64_MAX - 16u, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    w = ut_wr(3, MRC_WR_WRITE, NULL, 0, 0x1000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    w = ut_wr(4, MRC_WR_WRITE_IMM, ut_src, 16, 0x1000, MRC_WR_UNSIGNALED | MRC_WR_SOLICITED);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    w = ut_wr(5, MRC_WR_WRITE, ut_src, MRC_MAX_MSG_LEN, 0x1000, 0); /* accepted; never polled */
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    return 0;
}

/* MRC_ERR_FULL at MRC_MAX_SQ posted, and completions not yet pulled still hold their slot */
static int t_qp_send_queue_full(void) {
    ut_fix *f = &ut_fx;
    mrc_event ev;
    unsigned i;
    int n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 0x500), MRC_OK);
    for (i = 0; i < MRC_MAX_SQ; i++) CHECKF(ut_post(f, i, MRC_WR_WRITE, NULL, 0, 0) == MRC_OK, "post #%u", i);
    CHECK_EQ(ut_post(f, 999, MRC_WR_WRITE, NULL, 0, 0), MRC_ERR_FULL);
    n = ut_drain(f, ut_txs, 300);
    CHECK_EQ(n, MRC_MAX_SQ);
    CHECK_EQ(ut_feed_sack(f, 0x500 + MRC_MAX_SQ - 1, 0, 0, ut_txs[n - 1].ti.ev, 0), MRC_OK);
    CHECK_EQ(ut_post(f, 999, MRC_WR_WRITE, NULL, 0, 0), MRC_ERR_FULL); /* completions not pulled */
    CHECK_EQ(mrc_endpoint_poll_event(&f->ep, &ev), 1);
    CHECK_EQ(ev.type, MRC_EVT_SEND_DONE);
    CHECK_EQ(ev.wr_id, 0);
    CHECK_EQ(ut_post(f, 1000, MRC_WR_WRITE, NULL, 0, 0), MRC_OK);
    CHECK_EQ(ut_post(f, 1001, MRC_WR_WRITE, NULL, 0, 0), MRC_ERR_FULL);
    return 0;
}

static int t_qp_post_recv_rules(void) {
    ut_fix *f = &ut_fx;
    unsigned i;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 100, 200), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 1, f->now), MRC_ERR_STATE);
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_INIT, f->now), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 1, f->now), MRC_OK);
    {
        mrc_conn_attr a = f->attr;
        a.state = MRC_QPS_RTR;
        CHECK_EQ(mrc_conn_modify(&f->c, &a, UT_M_RTR, f->now), MRC_OK);
        CHECK_EQ(mrc_conn_post_recv(&f->c, 2, f->now), MRC_OK);
        a.state = MRC_QPS_RTS;
        CHECK_EQ(mrc_conn_modify(&f->c, &a, UT_M_RTS, f->now), MRC_OK);
        CHECK_EQ(mrc_conn_post_recv(&f->c, 3, f->now), MRC_OK);
    }
    for (i = 3; i < MRC_MAX_RQ; i++) CHECKF(mrc_conn_post_recv(&f->c, 4 + i, f->now) == MRC_OK, "recv #%u", i);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 99, f->now), MRC_ERR_FULL);
    CHECK_EQ(mrc_conn_post_recv((mrc_conn *)0, 99, f->now), MRC_ERR_INVAL);
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_ERR, f->now), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 99, f->now), MRC_ERR_STATE);
    return 0;
}

/* going to ERR: CONN_ERROR first, then every outstanding write (unsignaled too) and receive flushed */
static int t_qp_err_flushes(void) {
    ut_fix *f = &ut_fx;
    mrc_event ev;
    mrc_conn_attr a;
    uint8_t buf[128];
    mrc_txinfo ti;
    int n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 0x10), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, MRC_WR_UNSIGNALED), MRC_OK);
    CHECK_EQ(ut_post(f, 3, MRC_WR_WRITE_IMM, ut_src, 600, 0), MRC_OK); /* 3 packets */
    n = ut_drain(f, ut_txs, 3);                                    /* W1, W2, first packet of W3 */
    CHECK_EQ(n, 3);
    CHECK_EQ(ut_feed_sack(f, 0x10, 0, 0, ut_txs[0].ti.ev, 0), MRC_OK); /* completes W1; not pulled */
    CHECK_EQ(ut_post(f, 4, MRC_WR_WRITE, ut_src, 5, MRC_WR_UNSIGNALED), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 50, f->now), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 51, f->now), MRC_OK);
    a = f->attr;
    a.state = MRC_QPS_ERR;
    CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE, f->now), MRC_OK);
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_ERR);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, MRC_ERR_FLUSH, &ev, "first event"));
    CHECK(ev.conn == &f->c);
    CHECK_EQ(ev.qpn, mrc_conn_qpn(&f->c));
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W1"));
    CHECK_EQ(ev.wr_id, 1);
    CHECK_EQ(ev.byte_len, 10);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W2 (unsignaled)"));
    CHECK_EQ(ev.wr_id, 2);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W3"));
    CHECK_EQ(ev.wr_id, 3);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W4 (unsignaled, never sent)"));
    CHECK_EQ(ev.wr_id, 4);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_ERR_FLUSH, &ev, "recv 50"));
    CHECK_EQ(ev.wr_id, 50);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_ERR_FLUSH, &ev, "recv 51"));
    CHECK_EQ(ev.wr_id, 51);
    UT_TRY(ut_expect_no_event(&f->ep, "after the flush"));
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, 0, &ti, f->now), 0); /* nothing queued */
    CHECK_EQ(ut_post(f, 5, MRC_WR_WRITE, ut_src, 5, 0), MRC_ERR_STATE);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 52, f->now), MRC_ERR_STATE);
    /* ERR -> ERR changes nothing and reports nothing */
    CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE, f->now), MRC_OK);
    UT_TRY(ut_expect_no_event(&f->ep, "ERR -> ERR"));

    /* RESET discards events not pulled yet */
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 0x10), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 50, f->now), MRC_OK);
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_ERR, f->now), MRC_OK);
    a.state = MRC_QPS_RESET;
    CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE, f->now), MRC_OK);
    UT_TRY(ut_expect_no_event(&f->ep, "after RESET"));
    CHECK_EQ(mrc_conn_destroy(&f->c), MRC_OK);
    return 0;
}

/* ================================================================================================================
 * 10. errors and names
 * ============================================================================================================== */
static int t_names_and_errors(void) {
    static const int errs[] = {MRC_OK, MRC_ERR_INVAL, MRC_ERR_STATE, MRC_ERR_NOBUF, MRC_ERR_FULL, MRC_ERR_DROP,
                               MRC_ERR_NOTSUP, MRC_ERR_NOENT, MRC_ERR_TRUNC, MRC_ERR_MALFORMED, MRC_ERR_RETRY_EXC,
                               MRC_ERR_REMOTE_ACCESS, MRC_ERR_REMOTE_INVAL, MRC_ERR_REMOTE_OP, MRC_ERR_FLUSH,
                               MRC_ERR_LOCAL_ACCESS, MRC_ERR_LOCAL_INVAL};
    static const unsigned ops[] = {0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xCB, 0xD1, 0xD8, 0xD9, 0xDC, 0xDD, 0xDE};
    static const unsigned nacks[] = {0x01, 0x02, 0x06, 0x07, 0x0A, 0x0B, 0x19};
    const char *unk = mrc_strerror(-50), *unkfatal = mrc_strerror(-150);
    unsigned i, j, v;
    CHECK(unk && *unk);
    CHECK(unkfatal && *unkfatal);
    CHECK_EQ(strcmp(mrc_strerror(1), unk), 0);
    for (i = 0; i < sizeof errs / sizeof errs[0]; i++) {
        const char *s = mrc_strerror(errs[i]);
        CHECKF(s && *s && strcmp(s, unk) != 0 && strcmp(s, unkfatal) != 0, "mrc_strerror(%d) = \"%s\"", errs[i],
               s ? s : "(null)");
        for (j = 0; j < i; j++)
            CHECKF(strcmp(s, mrc_strerror(errs[j])) != 0, "errors %d and %d share \"%s\"", errs[i], errs[j], s);
        CHECKF(mrc_err_is_fatal(errs[i]) == (errs[i] <= MRC_ERR_FATAL), "mrc_err_is_fatal(%d)", errs[i]);
    }
    CHECK(!mrc_err_is_fatal(MRC_ERR_FATAL + 1));
    CHECK(mrc_err_is_fatal(MRC_ERR_FATAL));
    CHECK(!mrc_err_is_fatal(0));
    CHECK(!mrc_err_is_fatal(MRC_ERR_MALFORMED));
    CHECK(mrc_err_is_fatal(-1000));
    for (v = 0; v < 256; v++) {
        int known = 0;
        for (i = 0; i < sizeof ops / sizeof ops[0]; i++) known |= ops[i] == v;
        CHECKF(known ? strcmp(mrc_opcode_name(v), "?") != 0 && *mrc_opcode_name(v)
                     : strcmp(mrc_opcode_name(v), "?") == 0,
               "mrc_opcode_name(0x%02X) = \"%s\"", v, mrc_opcode_name(v));
        known = 0;
        for (i = 0; i < sizeof nacks / sizeof nacks[0]; i++) known |= nacks[i] == v;
        CHECKF(known ? strcmp(mrc_nack_name(v), "?") != 0 && *mrc_nack_name(v) : strcmp(mrc_nack_name(v), "?") == 0,
               "mrc_nack_name(0x%02X) = \"%s\"", v, mrc_nack_name(v));
        CHECKF(mrc_nack_is_retriable(v) == (known && v != MRC_NACK_UNEXP_EVENT), "mrc_nack_is_retriable(0x%02X)", v);
    }
    CHECK(!mrc_nack_is_retriable(0x101)); /* not masked to 8 bits */
    CHECK(!mrc_nack_is_retriable(0xFFFFFFFFu));
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
        for (j = 0; j < i; j++) CHECK(strcmp(mrc_opcode_name(ops[i]), mrc_opcode_name(ops[j])) != 0);
    for (i = 0; i < sizeof nacks / sizeof nacks[0]; i++)
        for (j = 0; j < i; j++) CHECK(strcmp(mrc_nack_name(nacks[i]), mrc_nack_name(nacks[j])) != 0);
    for (i = 0; i < MRC_DROP_REASONS; i++) {
        CHECKF(*mrc_drop_name(i) && strcmp(mrc_drop_name(i), "?") != 0, "mrc_drop_name(%u)", i);
        for (j = 0; j < i; j++) CHECK(strcmp(mrc_drop_name(i), mrc_drop_name(j)) != 0);
    }
    CHECK_EQ(strcmp(mrc_drop_name(MRC_DROP_REASONS), "?"), 0);
    CHECK_EQ(strcmp(mrc_drop_name(0xFFFFFFFFu), "?"), 0);
    for (i = 0; i <= MRC_QPS_ERR; i++) {
        CHECKF(*mrc_state_name(i) && strcmp(mrc_state_name(i), "?") != 0, "mrc_state_name(%u)", i);
        for (j = 0; j < i; j++) CHECK(strcmp(mrc_state_name(i), mrc_state_name(j)) != 0);
    }
    CHECK_EQ(strcmp(mrc_state_name(MRC_QPS_ERR + 1), "?"), 0);
    for (i = 0; i <= MRC_EVT_PEER_PORTS; i++) { /* every enum mrc_event_type value has its own name */
        CHECKF(*mrc_event_name(i) && strcmp(mrc_event_name(i), "?") != 0, "mrc_event_name(%u)", i);
        for (j = 0; j < i; j++) CHECK(strcmp(mrc_event_name(i), mrc_event_name(j)) != 0);
    }
    CHECK_EQ(strcmp(mrc_event_name(MRC_EVT_PEER_PORTS + 1), "?"), 0);
    CHECK_EQ(strcmp(mrc_event_name(MRC_EVT_EV_STATE), "EV_STATE"), 0);
    for (i = 0; i < MRC_DETAIL_COUNT; i++) { /* every error-detail rule has its own text */
        CHECKF(*mrc_detail_name(i) && strcmp(mrc_detail_name(i), "?") != 0, "mrc_detail_name(%u)", i);
        for (j = 0; j < i; j++) CHECKF(strcmp(mrc_detail_name(i), mrc_detail_name(j)) != 0, "detail %u vs %u", i, j);
    }
    CHECK_EQ(strcmp(mrc_detail_name(MRC_DETAIL_COUNT), "?"), 0);
    CHECK_EQ(strcmp(mrc_state_name(MRC_QPS_RTS), "RTS"), 0);
    CHECK_EQ(strcmp(mrc_opcode_name(MRC_OP_SACK), "SACK"), 0);
    return 0;
}

const test_entry test_state[] = {
    {"cfg_defaults", t_cfg_defaults},
    {"cfg_ev_presets", t_cfg_ev_presets},
    {"ep_init_rejects", t_ep_init_rejects},
    {"ep_init_qpn_base_range", t_ep_init_qpn_base_range},
    {"ep_port_set", t_ep_port_set},
    {"ep_mr_table", t_ep_mr_table},
    {"ep_mr_keyed", t_ep_mr_keyed},
    {"ep_api_args", t_ep_api_args},
    {"qp_transition_matrix", t_qp_transition_matrix},
    {"qp_mask_bits", t_qp_mask_bits},
    {"qp_attr_ranges", t_qp_attr_ranges},
    {"qp_modify_atomic", t_qp_modify_atomic},
    {"qp_query_roundtrip", t_qp_query_roundtrip},
    {"qp_conn_table", t_qp_conn_table},
    {"qp_post_write_rules", t_qp_post_write_rules},
    {"qp_send_queue_full", t_qp_send_queue_full},
    {"qp_post_recv_rules", t_qp_post_recv_rules},
    {"qp_err_flushes", t_qp_err_flushes},
    {"names_and_errors", t_names_and_errors},
    {NULL, NULL},
};
