/* tests/api.c - the embedding surface (issue 12): connection defaults and mrc_conn_connect, QP hints (P31: a known
 * incast starts NSCC's window at its fair share), the error detail of every control call, and EV formats as large as
 * the OCP examples (up to 224 bits, 12 fields) with the device's ev_max_width. Uses the EV helpers of
 * tests/harness.c.
 */
#include "test.h"

/* the detail of ep's last control call, formatted, compared with what the test expects */
static int api_detail_is(const mrc_endpoint *ep, int err, unsigned call, unsigned code, uint32_t attr, unsigned index,
                         const char *want_text) {
    mrc_detail d;
    char buf[512];
    CHECK_EQ(mrc_endpoint_last_error(ep, &d), MRC_OK);
    (void)mrc_detail_format(&d, buf, sizeof buf);
    note("detail: %s", buf);
    CHECKF(d.err == err && d.call == call && d.code == code && d.attr == attr && d.index == index,
           "detail err %d call %u code %u attr %#x index %u, want %d %u %u %#x %u (\"%s\")", d.err, d.call, d.code,
           d.attr, d.index, err, call, code, attr, index, buf);
    if (want_text) CHECKF(strcmp(buf, want_text) == 0, "formatted \"%s\"\n      want      \"%s\"", buf, want_text);
    return 0;
}

static int t_api_conn_defaults(void) {
    static mrc_endpoint ep;
    static mrc_conn c;
    mrc_config cfg;
    mrc_conn_attr a, q;
    mrc_write w;
    mrc_event ev;
    uint8_t hdr[MRC_HDR_MAX], src[512];
    mrc_txinfo ti;
    mrc_time now = 1000, t_err = 0;
    mrc_conn_stats st;
    unsigned steps = 0;
    int rc;

    mrc_conn_attr_default(&a);
    CHECK(a.pkey == 0xFFFF && a.access == MRC_ACCESS_REMOTE_WRITE && a.path_mtu == 4096);
    CHECK(a.ev_profile_id == 0 && a.cc_profile_id == 0 && a.dest_qpn == 0 && a.peer == 0);
    CHECK(a.mpr_dest >= 1 && a.mpr_dest <= MRC_MAX_MPR_UNITS && a.mpr >= 1);
    CHECK(a.max_wimm_dest == MRC_MAX_WIMM && a.max_wimm == MRC_MAX_WIMM);
    CHECK(a.retry_linear == 7 && a.retry_exp == 7 && a.timeout == 14); /* retransmits, gives up in finite time */
    mrc_conn_attr_default(NULL);                                        /* harmless */

    mrc_config_default(&cfg);
    cfg.seed = g_seed;
    CHECK_EQ(mrc_endpoint_init(&ep, &cfg, now), MRC_OK);
    CHECK_EQ(mrc_conn_init(&ep, &c, now), MRC_OK);
    /* dest_qpn left 0: RESET -> INIT works, RTR fails and says why; the conn stays in INIT */
    a.rq_psn = 100;
    a.sq_psn = 200;
    CHECK_EQ(mrc_conn_connect(&c, &a, now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_state(&c), MRC_QPS_INIT);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_CONN_MODIFY, MRC_DETAIL_DEST_QPN, MRC_ATTR_DEST_QPN, 0,
                      "mrc_conn_modify: MRC_ERR_INVAL: dest_qpn must be 3..0xFFFFFF (QP 0x2 is the endpoint-operation "
                      "QP): MRC_ATTR_DEST_QPN"))
        return 1;
    /* fixed, connect goes on from INIT; the attributes are all in place */
    a.dest_qpn = 0x123456;
    a.peer = 7;
    CHECK_EQ(mrc_conn_connect(&c, &a, now), MRC_OK);
    CHECK_EQ(mrc_conn_state(&c), MRC_QPS_RTS);
    if (api_detail_is(&ep, MRC_OK, MRC_CALL_CONN_MODIFY, MRC_DETAIL_NONE, 0, 0, "mrc_conn_modify: MRC_OK")) return 1;
    CHECK_EQ(mrc_conn_query(&c, &q), MRC_OK);
    CHECK(q.dest_qpn == 0x123456 && q.rq_psn == 100 && q.sq_psn == 200 && q.peer == 7 && q.path_mtu == 4096 &&
          q.timeout == 14 && q.retry_exp == 7 && q.pkey == 0xFFFF);
    CHECK_EQ(mrc_conn_connect(&c, &a, now), MRC_OK); /* already RTS: nothing to do */
    CHECK_EQ(mrc_conn_connect(&c, NULL, now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_connect(NULL, &a, now), MRC_ERR_INVAL);

    /* the defaults retransmit: a write into a dead peer is sent again and again, then reported in finite time */
    memset(&w, 0, sizeof w);
    memset(src, 0x5A, sizeof src);
    w.wr_id = 9;
    w.opcode = MRC_WR_WRITE;
    w.buf = src;
    w.len = sizeof src;
    w.remote_va = 0x1000;
    w.rkey = 0x100;
    CHECK_EQ(mrc_conn_post_write(&c, &w, now), MRC_OK);
    while (steps++ < 100000) {
        while ((rc = mrc_endpoint_poll_tx(&ep, hdr, sizeof hdr, 0, &ti, now)) > 0) {
        }
        CHECKF(rc == 0, "poll_tx %d", rc);
        while (mrc_endpoint_poll_event(&ep, &ev) > 0) {
            if (ev.type == MRC_EVT_CONN_ERROR) {
                CHECKF(ev.status == MRC_ERR_RETRY_EXC, "CONN_ERROR status %d", ev.status);
                t_err = now;
            }
        }
        if (t_err) break;
        CHECKF(mrc_endpoint_next_deadline(&ep) != MRC_TIME_NEVER, "a QP with a write in flight has no deadline at %llu",
               (unsigned long long)now);
        now = mrc_endpoint_next_deadline(&ep);
        CHECK_EQ(mrc_endpoint_on_timeout(&ep, now), MRC_OK);
    }
    mrc_conn_stats_get(&c, &st);
    CHECKF(t_err && st.tx_rtx >= 14, "retry exhaustion at %llu ns after %llu retransmissions", (unsigned long long)t_err,
           (unsigned long long)st.tx_rtx);
    note("defaults: dead peer reported (retry count exceeded) %.3f s after the first transmission, %llu retransmissions, "
         "%llu RTOs", (double)(t_err - 1000) / 1e9, (unsigned long long)st.tx_rtx, (unsigned long long)st.rto_fired);
    CHECK(t_err - 1000 < (mrc_time)10000000000ull); /* finite and bounded: under 10 s */
    return 0;
}

/* P31: the QP hint num_remote_recv_peers = n starts a new NSCC context at maxwnd / n, at least one nominal packet;
 * a context that exists keeps its window; no hint, or a drop-tail fabric, maxwnd. HINT is taken going to INIT only,
 * kept by query, cleared by RESET. */
static int t_api_qp_hint(void) {
    static mrc_endpoint ep;
    static mrc_conn c[4];
    static const uint32_t peer[4] = {1, 1, 2, 3}, n[4] = {4, 127, 100000, 0};
    mrc_config cfg;
    mrc_conn_attr a, q;
    mrc_cc_info ci[4];
    mrc_time now = 1000;
    unsigned i;
    mrc_config_default(&cfg);
    cfg.seed = g_seed;
    CHECK_EQ(mrc_endpoint_init(&ep, &cfg, now), MRC_OK);
    for (i = 0; i < 4; i++) {
        CHECK_EQ(mrc_conn_init(&ep, &c[i], now), MRC_OK);
        mrc_conn_attr_default(&a);
        a.state = MRC_QPS_INIT;
        a.hint.num_remote_recv_peers = 7u; /* replaced in INIT -> INIT below */
        CHECK_EQ(mrc_conn_modify(&c[i], &a, MRC_ATTR_STATE | MRC_ATTR_INIT_MASK | MRC_ATTR_HINT, now), MRC_OK);
        a.hint.num_qps_per_peer = 2u;
        a.hint.num_send_peers = 3u;
        a.hint.num_remote_recv_peers = n[i];
        CHECK_EQ(mrc_conn_modify(&c[i], &a, MRC_ATTR_HINT, now), MRC_OK);
        a.dest_qpn = 0x1000u + i;
        a.peer = peer[i];
        a.state = MRC_QPS_RTR;
        CHECK_EQ(mrc_conn_modify(&c[i], &a, MRC_ATTR_STATE | MRC_ATTR_RTR_MASK | MRC_ATTR_HINT, now), MRC_ERR_INVAL);
        if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_CONN_MODIFY, MRC_DETAIL_ATTR_UNEXPECTED, MRC_ATTR_HINT, 0,
                          "mrc_conn_modify: MRC_ERR_INVAL: the transition does not take these attributes: "
                          "MRC_ATTR_HINT"))
            return 1;
        CHECK_EQ(mrc_conn_connect(&c[i], &a, now), MRC_OK);
        CHECK_EQ(mrc_conn_cc_info(&c[i], &ci[i]), MRC_OK);
    }
    CHECK_EQ(mrc_conn_query(&c[1], &q), MRC_OK);
    CHECK(q.hint.num_qps_per_peer == 2u && q.hint.num_send_peers == 3u && q.hint.num_remote_recv_peers == 127u);
    /* 8 ports x 100 Gb/s x 12 us = 1.2 MB BDP: maxwnd 1.8 MB */
    CHECKF(ci[3].cwnd == ci[3].maxwnd && ci[3].maxwnd == 1800000u, "no hint: cwnd %llu, maxwnd %llu",
           (unsigned long long)ci[3].cwnd, (unsigned long long)ci[3].maxwnd);
    CHECKF(ci[0].cwnd == 1800000u / 4u, "hint 4: cwnd %llu", (unsigned long long)ci[0].cwnd);
    CHECKF(ci[1].cwnd == ci[0].cwnd && ci[1].ctx_qps == 2u, "a second QP (hint 127) moved its peer's window: %llu",
           (unsigned long long)ci[1].cwnd);
    CHECKF(ci[2].cwnd > 4096u && ci[2].cwnd < 4400u, "hint 100000: one nominal packet, got %llu",
           (unsigned long long)ci[2].cwnd);
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_RESET;
    CHECK_EQ(mrc_conn_modify(&c[1], &a, MRC_ATTR_STATE, now), MRC_OK);
    CHECK_EQ(mrc_conn_query(&c[1], &q), MRC_OK);
    CHECK(q.hint.num_qps_per_peer == 0u && q.hint.num_remote_recv_peers == 0u);
    /* a drop-tail fabric (trimmable false): the hint is kept but the window starts at maxwnd */
    for (i = 0; i < 4; i++) (void)mrc_conn_destroy(&c[i]);
    cfg.trimmable = false;
    CHECK_EQ(mrc_endpoint_init(&ep, &cfg, now), MRC_OK);
    CHECK_EQ(mrc_conn_init(&ep, &c[0], now), MRC_OK);
    mrc_conn_attr_default(&a);
    a.hint.num_remote_recv_peers = 4u;
    a.dest_qpn = 0x1000u;
    CHECK_EQ(mrc_conn_connect(&c[0], &a, now), MRC_OK);
    CHECK_EQ(mrc_conn_cc_info(&c[0], &ci[0]), MRC_OK);
    CHECKF(ci[0].cwnd == ci[0].maxwnd, "drop-tail fabric, hint 4: cwnd %llu, maxwnd %llu",
           (unsigned long long)ci[0].cwnd, (unsigned long long)ci[0].maxwnd);
    return 0;
}

static int t_api_error_detail(void) {
    static mrc_endpoint ep;
    static mrc_conn c, c2;
    mrc_config cfg;
    mrc_conn_attr a;
    mrc_ev_fmt_attr fmt;
    mrc_ev_profile_attr pa;
    mrc_cc_profile_attr cc;
    mrc_detail d;
    char small[8];
    static const uint8_t w16x2[2] = {16, 16};

    /* 1. a configuration the endpoint refuses: explained in the endpoint it was given */
    mrc_config_default(&cfg);
    cfg.num_ports = 0;
    CHECK_EQ(mrc_endpoint_init(&ep, &cfg, 0), MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_ENDPOINT_INIT, MRC_DETAIL_CFG_PORTS, 0, 0,
                      "mrc_endpoint_init: MRC_ERR_INVAL: num_ports must be 1..MRC_MAX_PORTS"))
        return 1;
    mrc_config_default(&cfg);
    cfg.dscp[MRC_DSCP_CONTROL] = 64;
    CHECK_EQ(mrc_endpoint_init(&ep, &cfg, 0), MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_ENDPOINT_INIT, MRC_DETAIL_CFG_DSCP, 0, MRC_DSCP_CONTROL, NULL))
        return 1;
    mrc_config_default(&cfg);
    cfg.seed = g_seed;
    CHECK_EQ(mrc_endpoint_init(&ep, &cfg, 0), MRC_OK);
    if (api_detail_is(&ep, MRC_OK, MRC_CALL_ENDPOINT_INIT, 0, 0, 0, NULL)) return 1;
    CHECK_EQ(mrc_conn_init(&ep, &c, 0), MRC_OK);

    /* 2. the new user's first mistake: MRC_ATTR_STATE left out of the mask */
    mrc_conn_attr_default(&a);
    a.state = MRC_QPS_INIT;
    CHECK_EQ(mrc_conn_modify(&c, &a, MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, 0), MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_CONN_MODIFY, MRC_DETAIL_STATE_MISSING,
                      MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, 0,
                      "mrc_conn_modify: MRC_ERR_INVAL: MRC_ATTR_STATE (the target state) is missing from the mask: "
                      "every transition names its state, and a call without it stays in the current state, which "
                      "takes none of these attributes: MRC_ATTR_EV_PROFILE|MRC_ATTR_CC_PROFILE"))
        return 1;
    CHECK_EQ(mrc_conn_modify(&c, &a, MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, 0), MRC_OK);
    /* 3. a transition without its required attributes */
    a.state = MRC_QPS_RTR;
    a.dest_qpn = 0x777;
    CHECK_EQ(mrc_conn_modify(&c, &a, MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_MPR_DEST, 0),
             MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_CONN_MODIFY, MRC_DETAIL_ATTR_MISSING,
                      MRC_ATTR_PATH_MTU | MRC_ATTR_MAX_WIMM_DEST, 0,
                      "mrc_conn_modify: MRC_ERR_INVAL: the transition requires attributes that are not in the mask: "
                      "MRC_ATTR_PATH_MTU|MRC_ATTR_MAX_WIMM_DEST"))
        return 1;
    /* 4. a value out of range, and an attribute the transition does not take */
    a.path_mtu = 1500;
    CHECK_EQ(mrc_conn_modify(&c, &a, MRC_ATTR_STATE | MRC_ATTR_RTR_MASK, 0), MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_CONN_MODIFY, MRC_DETAIL_PATH_MTU, MRC_ATTR_PATH_MTU, 0,
                      "mrc_conn_modify: MRC_ERR_INVAL: path_mtu must be 256, 512, 1024, 2048 or 4096: "
                      "MRC_ATTR_PATH_MTU"))
        return 1;
    a.path_mtu = 1024;
    CHECK_EQ(mrc_conn_modify(&c, &a, MRC_ATTR_STATE | MRC_ATTR_RTR_MASK | MRC_ATTR_TIMEOUT, 0), MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_CONN_MODIFY, MRC_DETAIL_ATTR_UNEXPECTED, MRC_ATTR_TIMEOUT, 0, NULL))
        return 1;
    a.state = MRC_QPS_RTS;
    CHECK_EQ(mrc_conn_modify(&c, &a, MRC_ATTR_STATE | MRC_ATTR_RTS_MASK, 0), MRC_ERR_STATE); /* INIT -> RTS */
    if (api_detail_is(&ep, MRC_ERR_STATE, MRC_CALL_CONN_MODIFY, MRC_DETAIL_TRANSITION, 0, 0, NULL)) return 1;
    a.state = 9;
    CHECK_EQ(mrc_conn_modify(&c, &a, MRC_ATTR_STATE, 0), MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_CONN_MODIFY, MRC_DETAIL_STATE_VALUE, MRC_ATTR_STATE, 0, NULL))
        return 1;
    CHECK_EQ(mrc_conn_init(&ep, &c, 0), MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_CONN_INIT, MRC_DETAIL_ALREADY_ATTACHED, 0, 0, NULL)) return 1;
    CHECK_EQ(mrc_conn_init(&ep, &c2, 0), MRC_OK);
    a.state = MRC_QPS_RTR;
    CHECK_EQ(mrc_conn_modify(&c2, &a, MRC_ATTR_STATE | MRC_ATTR_RTR_MASK, 0), MRC_ERR_STATE); /* RESET -> RTR */
    a.state = MRC_QPS_RTS;
    CHECK_EQ(mrc_conn_destroy(&c), MRC_ERR_STATE); /* in INIT */
    if (api_detail_is(&ep, MRC_ERR_STATE, MRC_CALL_CONN_DESTROY, MRC_DETAIL_DESTROY_STATE, 0, 0, NULL)) return 1;

    /* 5. EV formats and profiles: the rule and the field */
    ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 2, w16x2);
    fmt.state = MRC_PROFILE_OFFLINE;
    fmt.width[1] = 33;
    CHECK_EQ(mrc_ev_fmt_modify(&ep, 5, &fmt, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS),
             MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_EV_FMT_MODIFY, MRC_DETAIL_FIELD_WIDTH, MRC_EV_FMT_ATTR_FIELDS, 1,
                      "mrc_ev_fmt_modify: MRC_ERR_INVAL: a field's width must be 1..32 bits, and a profile field at "
                      "most its format field's: MRC_EV_FMT_ATTR_FIELDS (field 1)"))
        return 1;
    fmt.width[1] = 17; /* 33 bits: more than STEV's 32 */
    CHECK_EQ(mrc_ev_fmt_modify(&ep, 5, &fmt, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS),
             MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_EV_FMT_MODIFY, MRC_DETAIL_FMT_TOO_WIDE, MRC_EV_FMT_ATTR_FIELDS, 0,
                      NULL))
        return 1;
    CHECK_EQ(ev_fmt_online(&ep, 5, MRC_EV_FMT_STEV, 2, w16x2), MRC_OK);
    memset(&pa, 0, sizeof pa);
    pa.state = MRC_PROFILE_OFFLINE;
    pa.mode = MRC_EV_MODE_EXP;
    pa.fmt_id = 5;
    pa.ev_count = 4;
    pa.nfields = 2;
    ev_field(&pa.field[0], 16, 0x0100, 0, 0, 0x00FF);
    ev_field(&pa.field[1], 8, 0x1FF, 0, 0, 0x0F); /* init_val 0x1FF does not fit 8 bits */
    CHECK_EQ(mrc_ev_profile_modify(&ep, 6, &pa,
                                   MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_MODE | MRC_EV_PROF_ATTR_FMT_ID |
                                       MRC_EV_PROF_ATTR_COUNT | MRC_EV_PROF_ATTR_FIELDS,
                                   0),
             MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_EV_PROFILE_MODIFY, MRC_DETAIL_FIELD_INIT_VAL,
                      MRC_EV_PROF_ATTR_FIELDS, 1,
                      "mrc_ev_profile_modify: MRC_ERR_INVAL: a field's init_val does not fit its width: "
                      "MRC_EV_PROF_ATTR_FIELDS (field 1)"))
        return 1;
    CHECK_EQ(mrc_ev_profile_modify(&ep, 6, &pa, MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_MODE, 0), MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_EV_PROFILE_MODIFY, MRC_DETAIL_ATTR_MISSING,
                      MRC_EV_PROF_ATTR_FMT_ID | MRC_EV_PROF_ATTR_COUNT | MRC_EV_PROF_ATTR_FIELDS, 0, NULL))
        return 1;
    ev_field(&pa.field[1], 8, 0x10, 0, 0, 0x0F);
    CHECK_EQ(mrc_ev_profile_modify(&ep, 6, &pa,
                                   MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_MODE | MRC_EV_PROF_ATTR_FMT_ID |
                                       MRC_EV_PROF_ATTR_COUNT | MRC_EV_PROF_ATTR_FIELDS |
                                       MRC_EV_PROF_ATTR_MIN_ACTIVE | MRC_EV_PROF_ATTR_EVENT_MASK,
                                   0),
             MRC_OK);
    pa.state = MRC_PROFILE_ONLINE; /* EXP without its EVs */
    CHECK_EQ(mrc_ev_profile_modify(&ep, 6, &pa, MRC_EV_PROF_ATTR_STATE, 0), MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_EV_PROFILE_MODIFY, MRC_DETAIL_EV_UNPOPULATED, 0, 0,
                      "mrc_ev_profile_modify: MRC_ERR_INVAL: EXP: every EV must be populated (MRC_EV_OP_REPLACE) with "
                      "a port in 1..num_ports first (EV 0)"))
        return 1;

    { /* EV operations stop at the first bad entry and name it */
        mrc_ev_op_entry e[2];
        uint32_t n = 2;
        memset(e, 0, sizeof e); /* both name an unpopulated entry (value 0, port 0) */
        e[0].ev_new.port = 1;
        e[0].ev_new.val[0] = 0x12;
        e[0].state = MRC_EVS_GOOD;
        e[1].ev_new.port = 9; /* the endpoint has 8 ports */
        e[1].state = MRC_EVS_GOOD;
        CHECK_EQ(mrc_ev_op(&ep, 6, MRC_EV_OP_REPLACE, e, &n, 0), MRC_ERR_INVAL);
        CHECK_EQ(n, 1u);
        if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_EV_OP, MRC_DETAIL_EV_PORT, 0, 1,
                          "mrc_ev_op: MRC_ERR_INVAL: the entry's ev_new.port must be 1..num_ports (entry 1)"))
            return 1;
        n = 1;
        CHECK_EQ(mrc_ev_op(&ep, 99, MRC_EV_OP_QUERY_STATE, e, &n, 0), MRC_ERR_NOENT);
        if (api_detail_is(&ep, MRC_ERR_NOENT, MRC_CALL_EV_OP, MRC_DETAIL_PROFILE_UNKNOWN, 0, 0, NULL)) return 1;
    }

    /* 6. CC profiles */
    memset(&cc, 0, sizeof cc);
    cc.state = MRC_PROFILE_OFFLINE;
    cc.algorithm = "cubic";
    CHECK_EQ(mrc_cc_profile_modify(&ep, 3, &cc, MRC_CC_PROF_ATTR_STATE | MRC_CC_PROF_ATTR_ALGORITHM), MRC_ERR_NOTSUP);
    if (api_detail_is(&ep, MRC_ERR_NOTSUP, MRC_CALL_CC_PROFILE_MODIFY, MRC_DETAIL_CC_ALGORITHM,
                      MRC_CC_PROF_ATTR_ALGORITHM, 0, NULL))
        return 1;
    CHECK_EQ(mrc_cc_profile_modify(&ep, 0, &cc, MRC_CC_PROF_ATTR_STATE), MRC_ERR_INVAL);
    if (api_detail_is(&ep, MRC_ERR_INVAL, MRC_CALL_CC_PROFILE_MODIFY, MRC_DETAIL_PROFILE_ID, 0, 0, NULL)) return 1;

    /* the formatter: NUL-terminated within cap, NULL-safe */
    CHECK_EQ(mrc_endpoint_last_error(&ep, &d), MRC_OK);
    CHECK_EQ(mrc_detail_format(&d, small, sizeof small), (size_t)7);
    CHECK(strcmp(small, "mrc_cc_") == 0);
    CHECK_EQ(mrc_detail_format(&d, small, 1), (size_t)0);
    CHECK(small[0] == 0);
    CHECK_EQ(mrc_detail_format(NULL, small, sizeof small), (size_t)0);
    CHECK_EQ(mrc_detail_format(&d, NULL, 0), (size_t)0);
    CHECK_EQ(mrc_endpoint_last_error(NULL, &d), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_last_error(&ep, NULL), MRC_ERR_INVAL);
    return 0;
}

/* The OCP companion repository's EV expansion examples (examples/ev_expansion/ev_expansion.c: five STEV and five
 * SRv6 configurations, the largest an SRv6+SRH format of 10 fields, 192 bits) with abstract values of our own, and
 * the 224-bit variant (a 4-uSID SRH: 12 fields). Expected bytes computed by hand from the algorithm's text. */
static int t_api_ocp_ev_formats(void) {
    static const uint8_t w16x2[2] = {16, 16}, w32[1] = {32}, w_da5[5] = {32, 16, 16, 16, 16};
    static const uint8_t w_srh10[10] = {32, 16, 16, 16, 16, 16, 16, 32, 16, 16};
    static const uint8_t w_srh12[12] = {32, 16, 16, 16, 16, 16, 16, 32, 16, 16, 16, 16};
    static const uint8_t abs20[20] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A,
                                      0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14};
    static const uint8_t want224[28] = {0xCA, 0xFE, 0xCA, 0xFE, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
                                        0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0xDE, 0xCA, 0xFB, 0xAD,
                                        0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14};
    static mrc_endpoint ep, ep_small;
    static mrc_conn c;
    mrc_ev_fmt_attr fmt;
    mrc_ev_field f[MRC_MAX_EV_FIELDS];
    mrc_config cfg;
    unsigned i;

    CHECKF(MRC_MAX_EV_FIELDS >= 12, "MRC_MAX_EV_FIELDS %d: the OCP SRv6+SRH formats need 12", MRC_MAX_EV_FIELDS);
    memset(f, 0, sizeof f);
    { /* stev_exp: two full 16-bit fields */
        static const uint8_t abs[4] = {0x12, 0x34, 0x56, 0x78}, want[4] = {0x12, 0x34, 0x56, 0x78};
        ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 2, w16x2);
        ev_field(&f[0], 16, 0, 0, 0, 0xFFFF);
        ev_field(&f[1], 16, 0, 0, 0, 0xFFFF);
        if (ev_vec("ocp stev_exp", &fmt, f, 2, abs, sizeof abs, want, 32)) return 1;
    }
    { /* stev_gen_2: one full 32-bit field (the reference's (1 << 32) - 1 edge) */
        static const uint8_t abs[4] = {0xDE, 0xAD, 0xBE, 0xEF}, want[4] = {0xDE, 0xAD, 0xBE, 0xEF};
        ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 1, w32);
        ev_field(&f[0], 32, 0, 0, 0, 0xFFFFFFFFu);
        if (ev_vec("ocp stev_gen_2", &fmt, f, 1, abs, sizeof abs, want, 32)) return 1;
    }
    { /* stev_gen_with_fixed: init (i+1) << 8, 4 generated bits */
        static const uint8_t abs[1] = {0x3A}, want[4] = {0x01, 0x03, 0x02, 0x0A};
        ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 2, w16x2);
        ev_field(&f[0], 16, 0x0100, 1, 0xF, 0x000F);
        ev_field(&f[1], 16, 0x0200, 1, 0xF, 0x000F);
        if (ev_vec("ocp stev_gen_with_fixed", &fmt, f, 2, abs, sizeof abs, want, 32)) return 1;
    }
    { /* stev_gen_with_fixed_weird_mask: init (i+1) << 12, mask 0x0F0F */
        static const uint8_t abs[2] = {0xA5, 0x3C}, want[4] = {0x1A, 0x05, 0x23, 0x0C};
        ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 2, w16x2);
        ev_field(&f[0], 16, 0x1000, 1, 0xFF, 0x0F0F);
        ev_field(&f[1], 16, 0x2000, 1, 0xFF, 0x0F0F);
        if (ev_vec("ocp stev weird mask", &fmt, f, 2, abs, sizeof abs, want, 32)) return 1;
    }
    { /* srv6_exp: fixed locator + 4 full uSIDs */
        static const uint8_t abs[8] = {0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44};
        static const uint8_t want[12] = {0xCA, 0xFE, 0xCA, 0xFE, 0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44};
        ev_mkfmt(&fmt, MRC_EV_FMT_SRV6, 5, w_da5);
        ev_field(&f[0], 32, 0xCAFECAFEu, 0, 0, 0);
        for (i = 1; i < 5; i++) ev_field(&f[i], 16, 0, 0, 0, 0xFFFF);
        if (ev_vec("ocp srv6_exp", &fmt, f, 5, abs, sizeof abs, want, 96)) return 1;
    }
    { /* srv6_exp_subset: 3 profile fields over the 5-field format: the last two uSIDs stay zero */
        static const uint8_t abs[4] = {0xAB, 0xCD, 0xEF, 0x01};
        static const uint8_t want[12] = {0xDE, 0xAD, 0xDE, 0xAD, 0xAB, 0xCD, 0xEF, 0x01, 0, 0, 0, 0};
        ev_mkfmt(&fmt, MRC_EV_FMT_SRV6, 5, w_da5);
        ev_field(&f[0], 32, 0xDEADDEADu, 0, 0, 0);
        for (i = 1; i < 3; i++) ev_field(&f[i], 16, 0, 0, 0, 0xFFFF);
        if (ev_vec("ocp srv6_exp_subset", &fmt, f, 3, abs, sizeof abs, want, 96)) return 1;
    }
    { /* srv6_gen: 4-bit profile fields in 16-bit format fields (the high bits stay zero) */
        static const uint8_t abs[2] = {0x12, 0x34};
        static const uint8_t want[12] = {0x42, 0x42, 0x42, 0x42, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04};
        ev_mkfmt(&fmt, MRC_EV_FMT_SRV6, 5, w_da5);
        ev_field(&f[0], 32, 0x42424242u, 0, 0, 0);
        for (i = 1; i < 5; i++) ev_field(&f[i], 4, 0, 1, 0xF, 0xF);
        if (ev_vec("ocp srv6_gen", &fmt, f, 5, abs, sizeof abs, want, 96)) return 1;
    }
    { /* srv6_gen_with_fixed: uSID i = i << 8 | 4 generated bits */
        static const uint8_t abs[2] = {0x5A, 0x3C};
        static const uint8_t want[12] = {0x13, 0x13, 0x13, 0x13, 0x01, 0x05, 0x02, 0x0A, 0x03, 0x03, 0x04, 0x0C};
        ev_mkfmt(&fmt, MRC_EV_FMT_SRV6, 5, w_da5);
        ev_field(&f[0], 32, 0x13131313u, 0, 0, 0);
        for (i = 1; i < 5; i++) ev_field(&f[i], 16, i << 8, 1, 0xF, 0x000F);
        if (ev_vec("ocp srv6_gen_with_fixed", &fmt, f, 5, abs, sizeof abs, want, 96)) return 1;
    }
    /* srv6_srh_exp: DA = locator + 6 uSIDs, SRH = locator + 2 uSIDs: 10 fields, 192 bits */
    ev_mkfmt(&fmt, MRC_EV_FMT_SRV6, 10, w_srh10);
    ev_field(&f[0], 32, 0xCAFECAFEu, 0, 0, 0);
    for (i = 1; i < 7; i++) ev_field(&f[i], 16, 0, 0, 0, 0xFFFF);
    ev_field(&f[7], 32, 0xDECAFBADu, 0, 0, 0);
    for (i = 8; i < 10; i++) ev_field(&f[i], 16, 0, 0, 0, 0xFFFF);
    {
        static const uint8_t want192[24] = {0xCA, 0xFE, 0xCA, 0xFE, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                                            0x09, 0x0A, 0x0B, 0x0C, 0xDE, 0xCA, 0xFB, 0xAD, 0x0D, 0x0E, 0x0F, 0x10};
        if (ev_vec("ocp srv6_srh_exp (192 bits)", &fmt, f, 10, abs20, 16, want192, 192)) return 1;
    }
    /* the 224-bit variant: SRH = locator + 4 uSIDs, 12 fields */
    ev_mkfmt(&fmt, MRC_EV_FMT_SRV6, 12, w_srh12);
    for (i = 10; i < 12; i++) ev_field(&f[i], 16, 0, 0, 0, 0xFFFF);
    if (ev_vec("srv6+srh 224 bits", &fmt, f, 12, abs20, sizeof abs20, want224, 224)) return 1;
    {
        uint8_t out[MRC_EV_BYTES];
        char hex[2 * MRC_EV_BYTES + 1];
        int bits = mrc_ev_expand(&fmt, f, 12, abs20, sizeof abs20, out, sizeof out);
        for (i = 0; i < 28; i++) snprintf(hex + 2 * i, 3, "%02x", out[i]);
        note("SRv6+SRH, 12 fields: %d bits: DA %.32s, SRH %.24s", bits, hex, hex + 32);
    }

    /* through an endpoint: format and EXP profile ONLINE, a QP's packet carries the path (DA + SRH segment) */
    mrc_config_default(&cfg);
    cfg.seed = g_seed;
    cfg.num_ports = 2;
    CHECK_EQ(mrc_endpoint_init(&ep, &cfg, 0), MRC_OK);
    CHECK_EQ(ev_fmt_online(&ep, 1, MRC_EV_FMT_SRV6, 12, w_srh12), MRC_OK);
    {
        uint8_t vals[2][MRC_EV_BYTES];
        static const uint8_t ports[2] = {1, 2};
        uint8_t hdr[MRC_HDR_MAX], src[64];
        mrc_conn_attr a;
        mrc_write w;
        mrc_txinfo ti;
        mrc_ev_hdrs h;
        uint8_t want_path[32];
        memset(vals, 0, sizeof vals);
        memcpy(vals[0], abs20, sizeof abs20);
        for (i = 0; i < sizeof abs20; i++) vals[1][i] = (uint8_t)(0xF0u + i);
        CHECKF(ev_exp_online(&ep, 9, 1, f, 12, 2, (const uint8_t(*)[MRC_EV_BYTES])vals, ports) == MRC_OK,
               "224-bit EXP profile ONLINE: %d", ev_exp_online(&ep, 9, 1, f, 12, 2,
                                                               (const uint8_t(*)[MRC_EV_BYTES])vals, ports));
        CHECK_EQ(mrc_conn_init(&ep, &c, 0), MRC_OK);
        mrc_conn_attr_default(&a);
        a.ev_profile_id = 9;
        a.dest_qpn = 0x100;
        CHECK_EQ(mrc_conn_connect(&c, &a, 0), MRC_OK);
        memset(&w, 0, sizeof w);
        memset(src, 1, sizeof src);
        w.opcode = MRC_WR_WRITE;
        w.buf = src;
        w.len = sizeof src;
        w.rkey = 0x100;
        CHECK_EQ(mrc_conn_post_write(&c, &w, 0), MRC_OK);
        CHECK(mrc_endpoint_poll_tx(&ep, hdr, sizeof hdr, 0, &ti, 0) > 0);
        CHECKF(ti.ev_fmt == MRC_EV_FMT_SRV6 && ti.path_len == 32 && ti.ev <= 1, "fmt %u path_len %u ev %u", ti.ev_fmt,
               ti.path_len, ti.ev); /* 160 abstract bits: the entropy is the EV's index (Q18) */
        memset(want_path, 0, sizeof want_path);
        memcpy(want_path, want224, sizeof want224);
        if (ti.ev == 1) { /* EV 1: the uSIDs are F0 F1 ... */
            for (i = 0; i < 12; i++) want_path[4 + i] = (uint8_t)(0xF0u + i);
            for (i = 0; i < 8; i++) want_path[20 + i] = (uint8_t)(0xFCu + i);
        }
        CHECK(ut_bytes_eq("224-bit path on the wire", ti.path, want_path, 32));
        CHECK_EQ(mrc_endpoint_ev_headers(&ep, &ti, &h), MRC_OK);
        CHECK(h.has_srv6 && h.has_srh);
        CHECK(ut_bytes_eq("outer DA", h.srv6_da, want_path, 16));
        CHECK(ut_bytes_eq("SRH segment", h.srh_seg, want_path + 16, 16));
    }
    /* a device narrower than the format: ev_max_width 192 takes the 192-bit format and refuses the 224-bit one */
    mrc_config_default(&cfg);
    cfg.ev_max_width = 192;
    CHECK_EQ(mrc_endpoint_init(&ep_small, &cfg, 0), MRC_OK);
    CHECK_EQ(ev_fmt_online(&ep_small, 1, MRC_EV_FMT_SRV6, 10, w_srh10), MRC_OK);
    CHECK_EQ(ev_fmt_online(&ep_small, 2, MRC_EV_FMT_SRV6, 12, w_srh12), MRC_ERR_INVAL);
    if (api_detail_is(&ep_small, MRC_ERR_INVAL, MRC_CALL_EV_FMT_MODIFY, MRC_DETAIL_EV_MAX_WIDTH,
                      MRC_EV_FMT_ATTR_FIELDS, 0,
                      "mrc_ev_fmt_modify: MRC_ERR_INVAL: the format is wider than the device's ev_max_width "
                      "(mrc_config.ev_max_width): MRC_EV_FMT_ATTR_FIELDS"))
        return 1;
    cfg.ev_max_width = 8; /* below the 16 bits of the AUTO profile's UDP ports */
    CHECK_EQ(mrc_endpoint_init(&ep_small, &cfg, 0), MRC_ERR_INVAL);
    if (api_detail_is(&ep_small, MRC_ERR_INVAL, MRC_CALL_ENDPOINT_INIT, MRC_DETAIL_CFG_EV_MAX_WIDTH, 0, 0, NULL))
        return 1;
    return 0;
}

/* mrc_ev_profile_udp: the adapters' one-call EV set; a QP on it carries exactly those (port, source port) pairs */
static int t_api_ev_profile_udp(void) {
    static mrc_endpoint ep;
    static mrc_conn c;
    static const uint8_t ports[6] = {1, 2, 3, 1, 2, 3};
    static const uint16_t sports[6] = {20000, 20002, 20004, 20001, 20003, 20005};
    mrc_config cfg;
    mrc_conn_attr a;
    unsigned i, j, found = 0;
    mrc_config_default(&cfg);
    cfg.seed = g_seed;
    cfg.num_ports = 3;
    CHECK_EQ(mrc_endpoint_init(&ep, &cfg, 0), MRC_OK);
    CHECK_EQ(mrc_ev_profile_udp(&ep, 3, 0x77, ports, sports, 0, 1, 0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_ev_profile_udp(&ep, 3, 0x77, ports, sports, 6, 7, 0), MRC_ERR_INVAL); /* min_active > count */
    CHECK_EQ(mrc_ev_profile_udp(&ep, 4, 0x78, ports, sports, 6, 2, 0), MRC_OK);
    CHECK_EQ(mrc_conn_init(&ep, &c, 0), MRC_OK);
    mrc_conn_attr_default(&a);
    a.ev_profile_id = 0x78;
    a.dest_qpn = 0x100;
    CHECK_EQ(mrc_conn_connect(&c, &a, 0), MRC_OK);
    CHECK_EQ(mrc_conn_ev_count(&c), 6u);
    for (i = 0; i < 6; i++) {
        uint32_t ev, st;
        uint8_t port;
        CHECK_EQ(mrc_conn_ev_get(&c, i, &ev, &port, &st), MRC_OK);
        for (j = 0; j < 6; j++)
            if (ev == sports[j] && port == ports[j]) found++;
    }
    CHECKF(found == 6, "%u of 6 (port, source port) pairs found in the QP's EV set", found);
    return 0;
}

/* mrc_ev_profile_udp_planes: the adapters' plane layout generated in the core. Profile entry i is on port i % P + 1
 * with source port base + (port - 1) * K + i / P; the bounds are refused with MRC_ERR_INVAL */
static int t_api_ev_profile_udp_planes(void) {
    static mrc_endpoint ep;
    static mrc_conn c;
    mrc_config cfg;
    mrc_conn_attr a;
    mrc_ev_op_entry e[12];
    uint32_t n = 12, i, j, found = 0;
    mrc_config_default(&cfg);
    cfg.seed = g_seed;
    cfg.num_ports = 3;
    CHECK_EQ(mrc_endpoint_init(&ep, &cfg, 0), MRC_OK);
    CHECK_EQ(mrc_ev_profile_udp_planes(NULL, 3, 0x77, 3, 4, 30000, 1, 0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_ev_profile_udp_planes(&ep, 3, 0x77, 0, 4, 30000, 1, 0), MRC_ERR_INVAL);  /* no plane */
    CHECK_EQ(mrc_ev_profile_udp_planes(&ep, 3, 0x77, 4, 4, 30000, 1, 0), MRC_ERR_INVAL);  /* > num_ports */
    CHECK_EQ(mrc_ev_profile_udp_planes(&ep, 3, 0x77, 3, 0, 30000, 1, 0), MRC_ERR_INVAL);  /* no EV */
    CHECK_EQ(mrc_ev_profile_udp_planes(&ep, 3, 0x77, 3, MRC_MAX_EVS / 3u + 1u, 1000, 1, 0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_ev_profile_udp_planes(&ep, 3, 0x77, 3, 4, 65536u - 11u, 1, 0), MRC_ERR_INVAL); /* past 65535 */
    CHECK_EQ(mrc_ev_profile_udp_planes(&ep, 3, 0x77, 3, 4, 65536u - 12u, 13, 0), MRC_ERR_INVAL); /* min_active */
    CHECK_EQ(mrc_ev_profile_udp_planes(&ep, 5, 0x79, 3, 4, 65536u - 12u, 1, 0), MRC_OK); /* the last 12 ports */
    CHECK_EQ(mrc_ev_profile_udp_planes(&ep, 4, 0x78, 3, 4, 30000, 2, 0), MRC_OK);
    CHECK_EQ(mrc_ev_op(&ep, 0x78, MRC_EV_OP_QUERY_ARRAY, e, &n, 0), MRC_OK);
    CHECK_EQ(n, 12u);
    for (i = 0; i < 12; i++) {
        unsigned port = i % 3u + 1u, sport = 30000u + (port - 1u) * 4u + i / 3u;
        CHECKF(e[i].ev.port == port && e[i].ev.val[0] == (uint8_t)(sport >> 8) &&
                   e[i].ev.val[1] == (uint8_t)(sport & 0xFFu) && e[i].state == MRC_EVS_GOOD,
               "entry %u: port %u value %02x%02x state %u, want port %u source port %u GOOD", (unsigned)i,
               (unsigned)e[i].ev.port, e[i].ev.val[0], e[i].ev.val[1], (unsigned)e[i].state, port, sport);
    }
    CHECK_EQ(mrc_conn_init(&ep, &c, 0), MRC_OK);
    mrc_conn_attr_default(&a);
    a.ev_profile_id = 0x78;
    a.dest_qpn = 0x100;
    CHECK_EQ(mrc_conn_connect(&c, &a, 0), MRC_OK);
    CHECK_EQ(mrc_conn_ev_count(&c), 12u);
    for (i = 0; i < 12; i++) {
        uint32_t ev, st;
        uint8_t port;
        CHECK_EQ(mrc_conn_ev_get(&c, i, &ev, &port, &st), MRC_OK);
        for (j = 0; j < 12; j++)
            if (port == j % 3u + 1u && ev == 30000u + (port - 1u) * 4u + j / 3u) found++;
    }
    CHECKF(found == 12, "%u of 12 (port, source port) pairs found in the QP's EV set", (unsigned)found);
    return 0;
}

const test_entry test_api[] = {
    {"api_conn_defaults", t_api_conn_defaults},
    {"api_qp_hint", t_api_qp_hint},
    {"api_error_detail", t_api_error_detail},
    {"api_ev_profile_udp", t_api_ev_profile_udp},
    {"api_ev_profile_udp_planes", t_api_ev_profile_udp_planes},
    {"api_ocp_ev_formats", t_api_ocp_ev_formats},
    {NULL, NULL},
};
