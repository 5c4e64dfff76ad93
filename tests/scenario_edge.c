/* tests/scenario_edge.c - more scenarios on the pair harness (tests/harness.c): windows that differ (Q10), MSN wrap,
 * receives posted late (P6), every port down, undetected corruption, a responder left in RTR, access errors, bursts
 * into the control queue, random configurations, the reorder slack and timer (Q5), tail-loss probe copies (P32), the
 * reply port (P33), a black-holed EV, RTO progress (Q25), RTS -> RTS.
 */
#include "test.h"

/* ---- 9b. requester and responder windows that differ (Q10) --------------------------------------------------- */
static int sc_mpr_mismatch_body(sc_pair *p) {
    unsigned pass;
    for (pass = 0; pass < 3; pass++) {
        mrc_wire_link l;
        mrc_conn_stats a, b;
        unsigned i;
        sc_defaults(p, g_seed + 920 + pass);
        p->region = 2u << 20;
        p->attr[0].path_mtu = p->attr[1].path_mtu = 1024;
        p->attr[1].mpr_dest = 1; /* responder window 127 PSNs (128 when inclusive) */
        p->attr[0].mpr = pass == 0 ? 8 : 1;
        p->cfg[1].rx.nack_oor = pass == 1;
        p->cfg[1].rx.window_inclusive = pass == 2;
        mrc_wire_link_default(&l);
        l.jitter_ns = 1000;
        l.loss_ppm = 10000;
        sc_set_links(p, MRC_WIRE_A, &l);
        SC_CHECK(p, sc_start(p) == 0);
        for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, i & 1u, i) == 0);
        SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        a = sc_cstats(p, 0, 0);
        b = sc_cstats(p, 1, 0);
        if (pass == 0) { /* requester window 1024 > 127: beyond-window PSNs dropped silently, repaired */
            SC_CHECK(p, b.rx_oor > 0 && b.tx_nack == 0 && sc_estats(p, 1).drop[MRC_DROP_PSN_OOR] == b.rx_oor);
        } else if (pass == 1) { /* equal windows, exclusive edge: the documented one-PSN disagreement, NACKed */
            SC_CHECK(p, b.rx_oor > 0 && b.tx_nack == b.rx_oor);
            SC_CHECK(p, a.rx_nack_reason[MRC_NACK_PSN_OOR_WINDOW] > 0 && a.rtx_nack > 0);
        } else { /* inclusive edge: the requester never overruns */
            SC_CHECK(p, b.rx_oor == 0);
        }
        note("mpr %u vs mpr_dest 1%s: %llu out-of-window arrivals, %llu retransmissions", p->attr[0].mpr,
             pass == 1 ? " (nack_oor)" : pass == 2 ? " (inclusive)" : "", (unsigned long long)b.rx_oor,
             (unsigned long long)a.tx_rtx);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_mpr_mismatch, sc_mpr_mismatch_body)

/* ---- MSN and rqmsn wrap: more than 65536 messages on one connection ---------------------------------------- */
static int sc_msn_wrap_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    unsigned i;
    sc_defaults(p, g_seed + 1500);
    p->region = 1u << 20;
    p->cfg[1].ack.tack_every = 7; /* positive transport ACKs too: their 24-bit AETH msn wraps the 16-bit MSN */
    p->attr[0].path_mtu = p->attr[1].path_mtu = 256;
    mrc_wire_link_default(&l);
    l.delay_ns = 500;
    l.jitter_ns = 300;
    l.loss_ppm = 1000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    SC_CHECK(p, sc_start(p) == 0);
    r.s = g_seed ^ 0x1515;
    for (i = 0; i < 70000u; i++) {
        uint32_t len = trand_below(&r, 600);
        SC_CHECK(p, sc_add(p, 0, 0, trand_below(&r, (1u << 20) - 600u), len,
                           trand_below(&r, 2) ? MRC_WR_WRITE_IMM : MRC_WR_WRITE, (uint32_t)trand(&r)) == 0);
    }
    SC_CHECK(p, p->q[0][0].nimm > 32768u + 1000u);
    SC_CHECK(p, sc_run_until(p, 10 * SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, sc_cstats(p, 0, 0).msgs_done == 70000u && sc_cstats(p, 1, 0).imm_delivered == p->q[0][0].nimm);
    {   /* one positive ACK per 7 completed messages at most (several can complete at once) */
        uint64_t tt = sc_cstats(p, 1, 0).tx_tack, rt = sc_cstats(p, 0, 0).rx_tack;
        SC_CHECKF(p, tt <= 10000u && tt > 5000u && rt <= tt && rt + tt / 100u >= tt, "tx_tack %llu rx_tack %llu",
                  (unsigned long long)tt, (unsigned long long)rt);
    }
    SC_CHECK(p, sc_estats(p, 0).drop[MRC_DROP_ACK_BOGUS] == 0 && sc_estats(p, 1).drop[MRC_DROP_MSN_OOR] == 0);
    note("70000 messages (%u Write-IMMs) across the 16-bit MSN and rqmsn wrap in %.2f ms virtual", p->q[0][0].nimm,
         (double)sc_now(p) / 1e6);
    return 0;
}
SC_TEST(t_sc_msn_wrap, sc_msn_wrap_body)

/* ---- P6: immediates wait for receives posted late; they count against max_wimm_dest ------------------------ */
static int sc_late_recv_body(sc_pair *p) {
    unsigned i;
    sc_q *a, *b;
    sc_defaults(p, g_seed + 1600);
    p->attr[0].max_wimm = 8;
    p->attr[1].max_wimm_dest = 8;
    p->no_recv[1] = 1;
    SC_CHECK(p, sc_start(p) == 0);
    a = &p->q[0][0];
    b = &p->q[1][0];
    /* 8 multi-packet Write-IMMs with no receive posted: all placed and acknowledged, none delivered */
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i * 20000u, 10000u + i, MRC_WR_WRITE_IMM, 0xA0u + i) == 0);
    p->stop = sc_stop_never;
    SC_CHECK(p, sc_run_until(p, 5 * SC_MS) == 0);
    SC_CHECK(p, !p->fail && a->done == 8 && b->imm_ok == 0 && sc_cstats(p, 1, 0).imm_delivered == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, a->msg[i].status == MRC_OK);
    /* posting 5 receives delivers the first 5 immediates at once, in order (checked by the pump) */
    for (i = 0; i < 5; i++) SC_CHECK(p, mrc_conn_post_recv(b->c, b->recv_posted++, sc_now(p)) == MRC_OK);
    sc_pump(p);
    SC_CHECK(p, !p->fail && b->imm_ok == 5 && b->recv_pulled == 5);
    /* then the rest, and a second round that never waits */
    p->no_recv[1] = 0;
    p->stop = NULL;
    for (i = 8; i < 24; i++) SC_CHECK(p, sc_add(p, 0, 0, i * 20000u, 5000u + i, MRC_WR_WRITE_IMM, 0xA0u + i) == 0);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, b->imm_ok == 24 && sc_estats(p, 1).drop[MRC_DROP_WIMM] == 0);
    return 0;
}
SC_TEST(t_sc_late_recv, sc_late_recv_body)

/* ---- every port of the requester down for a while, then back ------------------------------------------------- */
typedef struct sc_alldown {
    int down;
    uint64_t a_tx_down;
} sc_alldown;
static void sc_alldown_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                           mrc_time now) {
    sc_alldown *o = (sc_alldown *)p->ud;
    (void)pkt;
    (void)len;
    (void)ti;
    (void)now;
    if (from == 0 && o->down) o->a_tx_down++;
}
static int sc_all_ports_down_body(sc_pair *p) {
    sc_alldown o;
    unsigned i, port;
    mrc_conn_stats cs;
    sc_defaults(p, g_seed + 1700);
    p->region = 4u << 20;
    p->attr[0].timeout = 14; /* the outage is shorter than the RTO */
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_alldown_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, i & 1u, i) == 0);
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 1, 0, i << 19, 1u << 19, MRC_WR_WRITE_IMM, i) == 0);
    SC_CHECK(p, sc_run_until(p, 15 * SC_US) == 0);
    for (port = 1; port <= 8; port++) SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], port, false, sc_now(p)) == MRC_OK);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_BOTH, 0, false) == MRC_OK);
    o.down = 1;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + 500 * SC_US) == 0);
    SC_CHECK(p, o.a_tx_down == 0);
    cs = sc_cstats(p, 0, 0);
    SC_CHECK(p, cs.tlp_fired >= 1); /* the tail-loss timer fired, but nothing could be sent */
    o.down = 0;
    for (port = 1; port <= 8; port++) SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], port, true, sc_now(p)) == MRC_OK);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_BOTH, 0, true) == MRC_OK);
    mrc_wire_kick(&p->w);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    cs = sc_cstats(p, 0, 0);
    SC_CHECK(p, cs.rto_fired == 0 && cs.tx_probes >= 1);
    note("500 us outage of every port: resumed by %llu probe(s), %llu retransmissions",
         (unsigned long long)cs.tx_probes, (unsigned long long)cs.tx_rtx);
    return 0;
}
SC_TEST(t_sc_all_ports_down, sc_all_ports_down_body)

/* ---- hostile input: corruption the adapter does not detect ---------------------------------------------------- */
/* Bit flips delivered without MRC_RX_ICRC_BAD reach every decoder and check. The data may then be wrong and a
 * connection may fail or stall (a forged SACK can acknowledge what never arrived): what must hold is that nothing
 * crashes or asserts, nothing is written outside the registered regions, and completions stay in order, one per
 * work request. */
static int sc_hostile_body(sc_pair *p) {
    unsigned i;
    for (i = 0; i < 12; i++) {
        trng r;
        mrc_wire_link l;
        int s;
        unsigned q, j;
        sc_defaults(p, g_seed + 1800 + i);
        p->nq = 2;
        p->region = 2u << 20;
        p->strict = 0;
        p->lax = 1;
        p->attr[0].path_mtu = p->attr[1].path_mtu = 256; /* mostly headers: more flips land in them */
        p->attr[0].timeout = p->attr[1].timeout = 8;
        p->attr[0].retry_exp = p->attr[1].retry_exp = 3;
        p->wc.corrupt_undetected = true;
        mrc_wire_link_default(&l);
        l.jitter_ns = 1000;
        l.loss_ppm = 2000;
        l.dup_ppm = 2000;
        l.trim_ppm = 2000;
        sc_set_links(p, MRC_WIRE_BOTH, &l);
        /* even runs: both directions at 3%, 0.75%, 0.19%, ...; odd runs: only B->A (A's acknowledgements, B's
         * data) */
        l.corrupt_ppm = 30000u >> (2u * ((i / 2u) % 3u));
        sc_set_links(p, (i & 1u) ? MRC_WIRE_B : MRC_WIRE_BOTH, &l);
        SC_CHECK(p, sc_start(p) == 0);
        r.s = g_seed ^ 0x1818 ^ i;
        for (s = 0; s < 2; s++)
            for (q = 0; q < 2; q++) SC_CHECK(p, sc_plan_random(p, s, q, 30, 1u << 18, 50, &r) == 0);
        SC_CHECK(p, sc_run_until(p, 50 * SC_MS) >= 0);
        SC_CHECKF(p, !p->fail, "%s", p->failmsg);
        for (s = 0; s < 2; s++) {
            /* guards intact (the coverage part is meaningless here, so only the guards are checked) */
            for (j = 0; j < SC_GUARD; j++)
                SC_CHECK(p, p->mem[s][j] == SC_GUARD_BYTE && p->mem[s][SC_GUARD + p->region + j] == SC_GUARD_BYTE);
            for (q = 0; q < 2; q++) {
                const sc_q *x = &p->q[s][q];
                int st = mrc_conn_state(x->c);
                SC_CHECK(p, st == MRC_QPS_RTS || st == MRC_QPS_ERR);
                if (st == MRC_QPS_ERR) SC_CHECK(p, x->n_conn_err == 1 && x->done == x->posted);
            }
        }
        note("seed %llu: A drops %llu (malformed %llu, bogus acks %llu), B drops %llu; states %s/%s %s/%s",
             (unsigned long long)p->seed, (unsigned long long)sc_estats(p, 0).rx_drops,
             (unsigned long long)sc_estats(p, 0).drop[MRC_DROP_MALFORMED],
             (unsigned long long)sc_estats(p, 0).drop[MRC_DROP_ACK_BOGUS],
             (unsigned long long)sc_estats(p, 1).rx_drops, mrc_state_name((unsigned)mrc_conn_state(p->q[0][0].c)),
             mrc_state_name((unsigned)mrc_conn_state(p->q[1][0].c)),
             mrc_state_name((unsigned)mrc_conn_state(p->q[0][1].c)),
             mrc_state_name((unsigned)mrc_conn_state(p->q[1][1].c)));
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_hostile_corruption, sc_hostile_body)

/* ---- a responder that never leaves RTR still takes writes and acknowledges them ------------------------------ */
static int sc_rtr_only_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    sc_defaults(p, g_seed + 1900);
    p->rtr_only[1] = 1;
    mrc_wire_link_default(&l);
    l.loss_ppm = 10000;
    l.jitter_ns = 1000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_conn_state(p->q[1][0].c) == MRC_QPS_RTR);
    r.s = g_seed ^ 0x1919;
    SC_CHECK(p, sc_plan_random(p, 0, 0, 30, 1u << 19, 50, &r) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, !p->fail, "%s", p->failmsg);
    SC_CHECK(p, mrc_conn_state(p->q[1][0].c) == MRC_QPS_RTR && p->q[1][0].imm_ok == p->q[0][0].nimm);
    {
        char why[200];
        SC_CHECKF(p, sc_mem_check(p, 1, why, sizeof why), "%s", why);
    }
    return 0;
}
SC_TEST(t_sc_rtr_responder, sc_rtr_only_body)

/* ---- access errors: rkey gone mid-transfer, and a write past the end of the region --------------------------- */
typedef struct sc_nak62 {
    uint32_t naks, syndrome, msn;
} sc_nak62;
static void sc_nak62_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_nak62 *o = (sc_nak62 *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from == 1 && sc_decode(p, pkt, len, &k) && k.bth.opcode == MRC_OP_ACK) {
        o->naks++;
        o->syndrome = k.aeth.syndrome;
        o->msn = k.aeth.msn;
    }
}
static int sc_access_err_stop(sc_pair *p) {
    int s;
    for (s = 0; s < 2; s++) {
        const sc_q *x = &p->q[s][0];
        if (!x->n_conn_err || x->done != x->posted || x->recv_pulled != x->recv_posted) return 0;
    }
    return 1;
}
static int sc_access_err_body(sc_pair *p) {
    unsigned pass;
    for (pass = 0; pass < 3; pass++) {
        sc_nak62 o;
        const sc_q *a;
        uint32_t i, bad = 0, before = 0;
        int found = 0;
        sc_defaults(p, g_seed + 2000 + pass);
        p->region = 4u << 20;
        p->strict = 0;
        p->stop = sc_access_err_stop;
        memset(&o, 0, sizeof o);
        p->ud = &o;
        p->tap = sc_nak62_tap;
        SC_CHECK(p, sc_start(p) == 0);
        a = &p->q[0][0];
        if (pass != 1) { /* B deregisters its region, or revokes the QP's remote-write right, while A writes */
            for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, i & 1u, i) == 0);
            SC_CHECK(p, sc_run_until(p, 25 * SC_US) == 0);
            SC_CHECK(p, a->done > 0 && a->done < 8);
            if (pass == 0) {
                SC_CHECK(p, mrc_endpoint_dereg_mr(p->ep[1], p->rkey[1]) == MRC_OK);
            } else {
                mrc_conn_attr ca;
                memset(&ca, 0, sizeof ca);
                ca.access = 0;
                SC_CHECK(p, mrc_conn_modify(p->q[1][0].c, &ca, MRC_ATTR_ACCESS, sc_now(p)) == MRC_OK);
            }
            SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
        } else { /* the third write ends one byte past the region */
            SC_CHECK(p, sc_add(p, 0, 0, 0, 100000, MRC_WR_WRITE, 0) == 0);
            SC_CHECK(p, sc_add(p, 0, 0, 200000, 100000, MRC_WR_WRITE_IMM, 5) == 0);
            SC_CHECK(p, sc_add(p, 0, 0, (4u << 20) - 9000u, 9000, MRC_WR_WRITE, 0) == 0);
            p->q[0][0].msg[2].va_adj = 1; /* aimed one byte further: its last byte lies past the region */
            SC_CHECK(p, sc_add(p, 0, 0, 300000, 100000, MRC_WR_WRITE, 0) == 0);
            SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        }
        SC_CHECK(p, p->q[1][0].conn_err_status == MRC_ERR_LOCAL_ACCESS && p->q[1][0].n_conn_err == 1);
        SC_CHECK(p, a->conn_err_status == MRC_ERR_REMOTE_ACCESS && a->n_conn_err == 1);
        SC_CHECKF(p, o.naks == 1 && o.syndrome == MRC_AETH_NAK_REM_ACCESS, "naks %u syndrome %#x", o.naks,
                  o.syndrome);
        SC_CHECK(p, sc_estats(p, 1).drop[MRC_DROP_ACCESS] == 1 && sc_cstats(p, 1, 0).tx_nak == 1);
        /* Q22: a prefix completed OK; exactly the WR the NAK names (MSN = index + 1) carries REMOTE_ACCESS; every
         * other outstanding WR, earlier ones included (placement is out of order), is flushed */
        for (i = 0; i < a->posted; i++) {
            int st = a->msg[i].status;
            if (st == MRC_OK) {
                SC_CHECKF(p, before == i, "wr %u OK after a failed one", i);
                before++;
            } else if (st == MRC_ERR_REMOTE_ACCESS) {
                SC_CHECK(p, !found);
                found = 1;
                bad = i;
            } else {
                SC_CHECKF(p, st == MRC_ERR_FLUSH, "wr %u status %d", i, st);
            }
        }
        SC_CHECK(p, found && o.msn == bad + 1u);
        if (pass == 1) SC_CHECK(p, bad == 2 && before >= 1);
        /* nothing of the offending packet was written: the byte past the region (the guard) is intact */
        for (i = 0; i < SC_GUARD; i++) SC_CHECK(p, p->mem[1][SC_GUARD + p->region + i] == SC_GUARD_BYTE);
        note("%s: NAK 0x62 names wr %u; %u WRs completed OK before",
             pass == 0 ? "dereg mid-transfer" : pass == 1 ? "write past the end" : "remote write revoked", bad, before);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_access_error, sc_access_err_body)

/* ---- bursts: infinite link rate, every packet of a window arrives at the same instant ------------------------- */
static int sc_burst_body(sc_pair *p) {
    mrc_wire_link l;
    mrc_endpoint_stats eb;
    sc_defaults(p, g_seed + 2100);
    p->cfg[0].cc.algo = p->cfg[1].cc.algo = MRC_CC_ALGO_NONE; /* whole windows at once, to overflow the queue */
    p->region = 4u << 20;
    sc_set_ports(p, 1);
    mrc_wire_link_default(&l);
    l.rate_bps = 0;   /* no serialization: whole windows land in one step */
    l.delay_ns = 1000;
    l.trim_ppm = 20000; /* NACKs and CE echoes are never merged: they overflow the 16-entry control queue */
    l.ce_ppm = 50000;
    l.loss_ppm = 5000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    p->wc.pool_pkts = 65536;
    SC_CHECK(p, sc_start(p) == 0);
    {
        int s;
        unsigned i;
        for (s = 0; s < 2; s++)
            for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, s, 0, i << 20, 1u << 20, (i + 1u) & 1u, i) == 0);
    }
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    eb = sc_estats(p, 1);
    SC_CHECK(p, eb.ctlq_overflow > 0 || sc_estats(p, 0).ctlq_overflow > 0);
    note("bursts: control queue overflows A %llu B %llu, all repaired; A rtx %llu rto %llu tlp %llu",
         (unsigned long long)sc_estats(p, 0).ctlq_overflow, (unsigned long long)eb.ctlq_overflow,
         (unsigned long long)sc_cstats(p, 0, 0).tx_rtx, (unsigned long long)sc_cstats(p, 0, 0).rto_fired,
         (unsigned long long)sc_cstats(p, 0, 0).tlp_fired);
    return 0;
}
SC_TEST(t_sc_burst_ctlq, sc_burst_body)

/* ---- random configurations: every knob both ends may set, drawn from the seed -------------------------------- */
static int sc_random_config_body(sc_pair *p) {
    unsigned run;
    for (run = 0; run < 30; run++) {
        trng r;
        mrc_wire_link l;
        uint64_t seed = g_seed * 1000u + 2200u + run;
        unsigned q, nports, mtu_shift, nmsg;
        int s;
        r.s = seed ^ 0x7A7A7A7A7A7A7A7Aull;
        sc_defaults(p, seed);
        p->nq = trand_below(&r, 4) ? 1u + trand_below(&r, 3) : 1u + trand_below(&r, SC_MAXQ);
        p->region = (size_t)(1u + trand_below(&r, 4)) << 20;
        p->unsig_pct = trand_below(&r, 3) * 10u;
        nports = 1u + trand_below(&r, MRC_MAX_PORTS);
        sc_set_ports(p, nports);
        mtu_shift = 8u + trand_below(&r, 5);
        for (s = 0; s < 2; s++) {
            mrc_config *c = &p->cfg[s];
            mrc_conn_attr *a = &p->attr[s];
            c->auto_ev.per_port = (uint16_t)(1u + trand_below(&r, 32));
            c->ack.sack_every = (uint16_t)(1u + (trand_below(&r, 2) ? trand_below(&r, 16) : 0u));
            c->ack.sack_delay_ns = 500u + trand_below(&r, 10000);
            c->rx.nack_oor = trand_below(&r, 2) != 0;
            c->rx.window_inclusive = trand_below(&r, 2) != 0;
            c->ack.tack_every = (uint16_t)(trand_below(&r, 3) ? 0u : 1u + trand_below(&r, 8));
            c->recovery.reorder_slack_ns = trand_below(&r, 2) ? 0u : 500u + trand_below(&r, 8000);
            c->recovery.reorder_slack_min_ns = 500u + trand_below(&r, 4000);
            c->recovery.rtt_init_ns = 2000u + trand_below(&r, 40000);
            c->recovery.tlp_min_ns = 1000u + trand_below(&r, 20000);
            c->ack.request_every = (uint16_t)(trand_below(&r, 2) ? 0u : 1u + trand_below(&r, 32));
            c->cc.fixed_cwnd_bytes = trand_below(&r, 3) ? 0u : 1000u + trand_below(&r, 200000);
            c->trimmable = trand_below(&r, 4) != 0;
            c->tseth = trand_below(&r, 4) != 0;
            a->path_mtu = 1u << mtu_shift;
            a->mpr_dest = (uint8_t)(1u << trand_below(&r, 6)); /* 1..32 */
            a->mpr = (uint8_t)(1u + trand_below(&r, 12));
            a->max_wimm = (uint16_t)(1u + trand_below(&r, 32));
            a->sq_psn = trand_below(&r, 2) ? (uint32_t)trand(&r) & MRC_PSN_MASK : MRC_PSN_MASK - trand_below(&r, 3000);
            a->retry_linear = 7;
            a->retry_exp = 25;
            a->timeout = (uint8_t)(8u + trand_below(&r, 5));
        }
        /* wire layout choices: both ends must agree */
        p->cfg[1].wire.bth_m_bit = p->cfg[0].wire.bth_m_bit = (uint8_t)(6u + trand_below(&r, 2));
        p->cfg[1].wire.sack_msb_first = p->cfg[0].wire.sack_msb_first = (uint8_t)trand_below(&r, 2);
        p->cfg[1].wire.ts_shift = p->cfg[0].wire.ts_shift = (uint8_t)(3u + trand_below(&r, 8));
        for (s = 0; s < 2; s++) {
            unsigned w = p->attr[1 - s].max_wimm; /* the peer never exceeds what this side accepts */
            p->attr[s].max_wimm_dest = (uint16_t)(w + trand_below(&r, 2u * w + 1u));
            if (p->attr[s].max_wimm_dest > MRC_MAX_WIMM) p->attr[s].max_wimm_dest = MRC_MAX_WIMM;
        }
        for (s = 0; s < 2; s++) {
            mrc_wire_link_default(&l);
            l.rate_bps = trand_below(&r, 8) ? (uint64_t)(10u + trand_below(&r, 400)) * 1000000000u : 0u;
            l.delay_ns = 200u + trand_below(&r, 10000);
            l.jitter_ns = trand_below(&r, 2) ? trand_below(&r, 20000) : 0u;
            l.loss_ppm = trand_below(&r, 50000);
            l.dup_ppm = trand_below(&r, 20000);
            l.corrupt_ppm = trand_below(&r, 20000);
            l.trim_ppm = trand_below(&r, 2) ? trand_below(&r, 50000) : 0u;
            l.ce_ppm = trand_below(&r, 50000);
            l.trim_bytes = trand_below(&r, 3) ? 0u : trand_below(&r, 200);
            l.queue_bytes = 256u << 10;
            sc_set_links(p, s, &l);
        }
        p->wc.trim_sets_flag = trand_below(&r, 2) != 0;
        p->wc.tx_copy = trand_below(&r, 2) != 0;
        p->pump_in_taps = trand_below(&r, 4) == 0;
        SC_CHECK(p, sc_start(p) == 0);
        nmsg = p->nq > 4 ? 2u + trand_below(&r, 6) : 5u + trand_below(&r, 20);
        for (s = 0; s < 2; s++)
            for (q = 0; q < p->nq; q++)
                SC_CHECK(p, sc_plan_random(p, s, q, nmsg, (uint32_t)sc_slice(p), trand_below(&r, 101), &r) == 0);
        SC_CHECKF(p, sc_run_until(p, 20 * SC_SEC) == 1, "run %u did not complete: %s", run, p->failmsg);
        if (sc_check_clean(p)) {
            printf("    (random configuration run %u, seed %llu)\n", run, (unsigned long long)seed);
            return 1;
        }
        note("run %u: %u QPs, %u ports, mtu %u, %.3f ms virtual, A rtx %llu rto %llu tlp %llu", run, p->nq, nports,
             1u << mtu_shift, (double)sc_now(p) / 1e6, (unsigned long long)sc_cstats(p, 0, 0).tx_rtx,
             (unsigned long long)sc_cstats(p, 0, 0).rto_fired, (unsigned long long)sc_cstats(p, 0, 0).tlp_fired);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_random_config, sc_random_config_body)

/* ---- Q5: a hole is declared lost exactly when a transmission sent at least slack later is acknowledged -------- */
#define SC_SLACK_PKTS 64
typedef struct sc_slack {
    uint32_t base, drop_psn, dropped, nsacks, rtx;
    mrc_time sent[SC_SLACK_PKTS], t_rtx;
    mrc_time sack_t[256];
    uint32_t sack_named[256];
} sc_slack;
static int sc_slack_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                           mrc_time now) {
    sc_slack *o = (sc_slack *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from != 0 || o->dropped || !sc_decode(p, pkt, len, &k) || k.bth.psn != o->drop_psn) return 0;
    o->dropped = 1;
    return 1;
}
static void sc_slack_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_slack *o = (sc_slack *)p->ud;
    mrc_pkt k;
    uint32_t i;
    (void)ti;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
    if (i >= SC_SLACK_PKTS) return;
    if (!k.bth.rtx) o->sent[i] = now;
    else if (k.bth.psn == o->drop_psn && !o->rtx++) o->t_rtx = now;
}
static void sc_slack_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_slack *o = (sc_slack *)p->ud;
    mrc_pkt k;
    (void)ri;
    if (to != 0 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK || o->nsacks >= 256) return;
    o->sack_t[o->nsacks] = now;
    o->sack_named[o->nsacks++] = mrc_psn_add(k.seth.cack_psn, k.seth.ack_psn_offset);
}
/* SC_SLACK_PKTS packets on one port with a fixed slack and no timestamp echo (the acknowledged send time is the
 * requester's own record), packet x lost once; research.reorder_timer q (P32) unless q < 0 (the default) */
static int sc_slack_run(sc_pair *p, sc_slack *o, uint64_t seed, mrc_time slack, uint32_t x, int q) {
    sc_defaults(p, seed);
    sc_set_ports(p, 1);
    p->cfg[0].recovery.reorder_slack_ns = (uint32_t)slack;
#ifdef MRC_RESEARCH
    if (q >= 0) p->cfg[0].research.reorder_timer = (uint8_t)q;
#else
    (void)q; /* the default reorder timer (MRC_RESEARCH sets others) */
#endif
    p->cfg[0].tseth = false;
    memset(o, 0, sizeof *o);
    o->base = p->attr[0].sq_psn;
    o->drop_psn = mrc_psn_add(o->base, (int32_t)x);
    p->ud = o;
    p->filter = sc_slack_filter;
    p->tap = sc_slack_tap;
    p->rx = sc_slack_rx;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, SC_SLACK_PKTS * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    return sc_check_clean(p);
}
static int sc_loss_slack_body(sc_pair *p) {
    static sc_slack o;
    const mrc_time slack = 5000, ser = 331; /* one 4 KiB packet at 100 Gb/s */
    mrc_time t_exp = 0;
    uint32_t i, x = 10;
    if (sc_slack_run(p, &o, g_seed + 2300, slack, x, -1)) return 1;
    SC_CHECK(p, o.dropped && o.rtx == 1 && sc_cstats(p, 0, 0).rtx_sack_hole == 1 && sc_cstats(p, 0, 0).tx_rtx == 1);
    for (i = 0; i < o.nsacks; i++) { /* the first SACK naming a packet sent >= slack after the hole */
        uint32_t j = (uint32_t)mrc_psn_diff(o.sack_named[i], o.base);
        if (j < SC_SLACK_PKTS && j != x && o.sent[j] >= o.sent[x] + slack) {
            t_exp = o.sack_t[i];
            break;
        }
    }
    SC_CHECK(p, t_exp != 0);
    SC_CHECKF(p, o.t_rtx >= t_exp && o.t_rtx <= t_exp + ser, "hole sent at %llu, retransmitted at %llu, expected "
              "at the SACK arriving at %llu", (unsigned long long)o.sent[x], (unsigned long long)o.t_rtx,
              (unsigned long long)t_exp);
    note("slack 5 us: hole sent at %.3f us, declared lost by the SACK at %.3f us, retransmitted at %.3f us",
         (double)o.sent[x] / 1e3, (double)t_exp / 1e3, (double)o.t_rtx / 1e3);
    return 0;
}
SC_TEST(t_sc_loss_slack, sc_loss_slack_body)

#ifdef MRC_RESEARCH /* P32 reorder timer values: research.reorder_timer */
/* ---- P32: a hole among the last packets sent - no later transmission sent slack after it - is declared lost by the
 * reorder timer at its send time + the RTT of the latest acknowledged transmission + 1.5 x slack, not by the
 * tail-loss probe; with reorder_timer 0 the probe finds it. -------------------------------------------------------- */
static int sc_reo_run(sc_pair *p, sc_slack *o, uint8_t q, mrc_time *t_rtx_after) {
    const mrc_time slack = 5000, ser = 331; /* one 4 KiB packet at 100 Gb/s */
    const uint32_t x = SC_SLACK_PKTS - 2u, last = SC_SLACK_PKTS - 1u;
    mrc_conn_stats cs;
    mrc_time t_exp = 0, rtt_last = 0;
    uint32_t i;
    sc_free(p);
    if (sc_slack_run(p, o, g_seed + 2310, slack, x, q)) return 1;
    cs = sc_cstats(p, 0, 0);
    /* the time rule cannot declare it: the only later packet left within the slack */
    SC_CHECKF(p, o->dropped && o->rtx == 1 && cs.tx_rtx == 1 && cs.rto_fired == 0 && o->sent[last] < o->sent[x] + slack,
              "reorder_timer %u: dropped %u, retransmitted %u (%llu), RTOs %llu", q, o->dropped, o->rtx,
              (unsigned long long)cs.tx_rtx, (unsigned long long)cs.rto_fired);
    for (i = 0; i < o->nsacks; i++)
        if (o->sack_named[i] == mrc_psn_add(o->base, (int32_t)last)) {
            rtt_last = o->sack_t[i] - o->sent[last];
            break;
        }
    SC_CHECK(p, rtt_last != 0);
    t_exp = o->sent[x] + rtt_last + ((slack * q) >> 2);
    *t_rtx_after = o->t_rtx - o->sent[x];
    if (q) {
        SC_CHECKF(p, cs.rtx_reo_timer == 1 && cs.rtx_sack_hole == 1 && cs.tlp_fired == 0 && o->t_rtx >= t_exp &&
                      o->t_rtx <= t_exp + ser,
                  "reorder_timer %u: hole sent at %llu, retransmitted at %llu, expected at %llu (RTT %llu); timer %llu, "
                  "TLPs %llu", q, (unsigned long long)o->sent[x], (unsigned long long)o->t_rtx,
                  (unsigned long long)t_exp, (unsigned long long)rtt_last, (unsigned long long)cs.rtx_reo_timer,
                  (unsigned long long)cs.tlp_fired);
    } else {
        SC_CHECKF(p, cs.rtx_reo_timer == 0 && cs.tlp_fired >= 1 && cs.rtx_probe_loss == 1 && o->t_rtx > t_exp,
                  "reorder_timer 0: retransmitted at %llu, timer %llu, TLPs %llu, probe losses %llu",
                  (unsigned long long)o->t_rtx, (unsigned long long)cs.rtx_reo_timer,
                  (unsigned long long)cs.tlp_fired, (unsigned long long)cs.rtx_probe_loss);
    }
    return 0;
}
static int sc_reo_timer_body(sc_pair *p) {
    static sc_slack o;
    mrc_time t6 = 0, t2 = 0, t0 = 0;
    if (sc_reo_run(p, &o, 6, &t6) || sc_reo_run(p, &o, 2, &t2) || sc_reo_run(p, &o, 0, &t0)) return 1;
    note("second-to-last packet lost, slack 5 us: retransmitted %.3f us after it by the reorder timer (default, 1.5 x "
         "slack), %.3f us (0.5 x slack), %.3f us by the tail-loss probe (timer off)", (double)t6 / 1e3,
         (double)t2 / 1e3, (double)t0 / 1e3);
    return 0;
}
SC_TEST(t_sc_reo_timer, sc_reo_timer_body)
#endif

#ifdef MRC_RESEARCH /* P33 one copy: research.tlp_copies */
/* ---- P33: the tail-loss probe goes out twice, on two EVs: the last packet is lost and so is the first probe (its
 * path dies with the tail); the copy's answer reveals the hole one round trip later. With tlp_copies 1 the next
 * probe waits twice as long. --------------------------------------------------------------------------------------- */
typedef struct sc_tlpc {
    uint32_t tail_psn, probes, drop_nth, dropped_probe, tail_dropped, rtx;
    mrc_time t_tail, t_probe, t_rtx;
} sc_tlpc;
static int sc_tlpc_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                          mrc_time now) {
    sc_tlpc *o = (sc_tlpc *)p->ud;
    mrc_pkt k;
    (void)ti;
    if (from != 0 || !sc_decode(p, pkt, len, &k)) return 0;
    if (sc_is_data(k.bth.opcode) && k.bth.psn == o->tail_psn) {
        if (!k.bth.rtx && !o->tail_dropped) {
            o->tail_dropped = 1;
            o->t_tail = now;
            return 1;
        }
        if (k.bth.rtx && !o->rtx++) o->t_rtx = now;
    }
    if (k.bth.opcode == MRC_OP_PROBE_REQ && ++o->probes == o->drop_nth) {
        o->dropped_probe = 1;
        o->t_probe = now;
        return 1;
    }
    return 0;
}
static int sc_tlpc_run(sc_pair *p, sc_tlpc *o, uint8_t copies, uint32_t drop_nth) {
    mrc_conn_stats cs;
    sc_free(p);
    sc_defaults(p, g_seed + 2320);
    p->cfg[0].research.tlp_copies = copies;
    memset(o, 0, sizeof *o);
    o->drop_nth = drop_nth; /* the first copy, or the second: either answer counts */
    o->tail_psn = mrc_psn_add(p->attr[0].sq_psn, 15); /* 16 packets of 4 KiB */
    p->ud = o;
    p->filter = sc_tlpc_filter;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 16u * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    cs = sc_cstats(p, 0, 0);
    SC_CHECKF(p, o->tail_dropped && o->dropped_probe && o->rtx == 1 && cs.rto_fired == 0 && o->t_rtx > o->t_probe,
              "tlp_copies %u, probe %u lost: tail dropped %u, probe dropped %u, retransmitted %u, RTOs %llu", copies,
              drop_nth,
              o->tail_dropped, o->dropped_probe, o->rtx, (unsigned long long)cs.rto_fired);
    if (copies == 2) { /* one expiry; its copy answered within a round trip (the wire's is a few us) */
        SC_CHECKF(p, cs.tlp_fired == 1 && cs.tx_probes == 2 && cs.rtx_probe_loss == 1 &&
                      o->t_rtx - o->t_probe < 20u * SC_US,
                  "copies, probe %u lost: %llu TLPs, %llu probes, retransmitted %.3f us after the lost probe",
                  drop_nth, (unsigned long long)cs.tlp_fired, (unsigned long long)cs.tx_probes,
                  (double)(o->t_rtx - o->t_probe) / 1e3);
    } else { /* the second expiry, twice the first's wait, found it */
        SC_CHECKF(p, cs.tlp_fired == 2 && cs.tx_probes == 2 && o->t_rtx - o->t_probe >= 2u * p->cfg[0].recovery.tlp_min_ns,
                  "one copy: %llu TLPs, %llu probes, retransmitted %.3f us after the first probe",
                  (unsigned long long)cs.tlp_fired, (unsigned long long)cs.tx_probes,
                  (double)(o->t_rtx - o->t_probe) / 1e3);
    }
    return 0;
}
static int sc_tlp_copies_body(sc_pair *p) {
    static sc_tlpc o;
    mrc_time d2, d1;
    if (sc_tlpc_run(p, &o, 2, 2)) return 1;
    if (sc_tlpc_run(p, &o, 2, 1)) return 1;
    d2 = o.t_rtx - o.t_tail;
    if (sc_tlpc_run(p, &o, 1, 1)) return 1;
    d1 = o.t_rtx - o.t_tail;
    note("last packet and the first tail-loss probe lost: retransmitted %.3f us after the tail with the copy, "
         "%.3f us with one probe per expiry", (double)d2 / 1e3, (double)d1 / 1e3);
    return 0;
}
SC_TEST(t_sc_tlp_copies, sc_tlp_copies_body)
#endif

/* ---- Q19/P9: where replies go. Echo mode: they echo the arrival EV and leave on the arrival port, or the lowest
 * port up. Default: on the QP's own EV of the arrival plane, or of another plane when that one is down; the SETH
 * or NETH entropy always names the arrival EV. ------------------------------------------------------------------- */
#define SC_REPLY_PKTS 8192
typedef struct sc_reply {
    int echo;
    uint32_t base, checked, moved, bad, on_down;
    uint32_t ev[SC_REPLY_PKTS];
    uint8_t port[SC_REPLY_PKTS];
} sc_reply;
static void sc_reply_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_reply *o = (sc_reply *)p->ud;
    mrc_pkt k;
    uint32_t i;
    (void)now;
    if (to != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
    if (i >= SC_REPLY_PKTS) return;
    o->ev[i] = ri->ev;
    o->port[i] = ri->port;
}
static void sc_reply_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_reply *o = (sc_reply *)p->ud;
    mrc_pkt k;
    uint32_t i, ev;
    (void)now;
    if (from != 0 || !sc_decode(p, pkt, len, &k)) return;
    if (ti->port == 2) o->on_down++;
    if (k.bth.opcode == MRC_OP_SACK && !k.seth.pr) {
        i = (uint32_t)mrc_psn_diff(mrc_psn_add(k.seth.cack_psn, k.seth.ack_psn_offset), o->base);
        ev = k.seth.entropy;
    } else if (k.bth.opcode == MRC_OP_NACK) {
        i = (uint32_t)mrc_psn_diff(k.neth.nack_psn, o->base);
        ev = k.neth.entropy;
    } else {
        return;
    }
    if (i >= SC_REPLY_PKTS || !o->port[i]) return;
    o->checked++;
    if (o->port[i] == 2) o->moved++;
    if (o->echo) {
        if (ev != o->ev[i] || ev != ti->ev || ti->port != (o->port[i] == 2 ? 1 : o->port[i])) o->bad++;
    } else {
        unsigned j, n = mrc_conn_ev_count(p->q[0][0].c), own = 0;
        for (j = 0; j < n; j++) {
            uint32_t e2 = 0;
            uint8_t port = 0;
            (void)mrc_conn_ev_get(p->q[0][0].c, j, &e2, &port, NULL);
            own |= e2 == ti->ev && port == ti->port;
        }
        if (ev != o->ev[i] || !own || (o->port[i] != 2 && ti->port != o->port[i])) o->bad++;
    }
}
static int sc_no_epop(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    (void)p, (void)from, (void)pkt, (void)len, (void)now;
    return ti->qpn == MRC_EPOP_QPN;
}
static int sc_reply_port_body(sc_pair *p) {
    static sc_reply o;
    mrc_wire_link l;
    unsigned i;
    int echo;
    for (echo = 1; echo >= 0; echo--) {
    sc_defaults(p, g_seed + 2400);
    p->cfg[0].ev.reply = echo ? MRC_EV_REPLY_ECHO : MRC_EV_REPLY_MIRROR;
    p->region = 8u << 20;
    mrc_wire_link_default(&l);
    sc_set_links(p, MRC_WIRE_A, &l);
    l.trim_ppm = 20000; /* NACKs too */
    sc_set_links(p, MRC_WIRE_B, &l);
    memset(&o, 0, sizeof o);
    o.echo = echo;
    o.base = p->attr[1].sq_psn;
    p->ud = &o;
    p->filter = sc_no_epop; /* B is not told about A's port 2 (PORT_STATUS_UPDATE lost): it keeps sending there */
    p->rx = sc_reply_rx;
    p->tap = sc_reply_tap;
    SC_CHECK(p, sc_start(p) == 0);
    /* A's port 2 is down at A only: B still sends on it and the wire still carries it */
    SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], 2, false, 0) == MRC_OK);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 1, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, sc_cstats(p, 0, 0).tx_nack > 0);
    SC_CHECKF(p, o.bad == 0 && o.on_down == 0 && o.checked > 1000 && o.moved > 100,
              "%s: %u replies checked, %u wrong, %u moved off port 2, %u on port 2", echo ? "echo" : "reverse EV",
              o.checked, o.bad, o.moved, o.on_down);
    sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_reply_port, sc_reply_port_body)

/* ================================================================================================================
 * Multipath: EV path health, spraying, planes (issue #3)
 * ============================================================================================================== */
/* ---- a black-holed EV: detected from SACK evidence, demoted, avoided; the transfer finishes bit-exact --------- */
typedef struct sc_bh {
    uint32_t ev;             /* A->B packets on this EV vanish */
    uint8_t port;
    uint32_t drops, drops_data, after;
    mrc_time t_first, t_last;
} sc_bh;
static int sc_bh_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_bh *o = (sc_bh *)p->ud;
    (void)pkt, (void)len;
    if (from != 0 || ti->ev != o->ev || ti->port != o->port) return 0;
    o->drops++;
    if (ti->qpn != MRC_EPOP_QPN && ti->payload_len) {
        if (!o->drops_data) o->t_first = now;
        o->t_last = now;
        o->drops_data++;
        if (p->q[0][0].n_ev_bad) o->after++;
    }
    return 1;
}
static int sc_blackhole_ev_body(sc_pair *p) {
    static sc_bh o;
    unsigned i;
    uint32_t st = 0;
    mrc_time rtt;
    sc_defaults(p, g_seed + 3500);
    p->region = 8u << 20;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->filter = sc_bh_filter;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_conn_ev_get(p->q[0][0].c, 5, &o.ev, &o.port, NULL) == MRC_OK);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, mrc_conn_ev_get(p->q[0][0].c, 5, NULL, NULL, &st) == MRC_OK);
    SC_CHECKF(p, st == MRC_EVS_ASSUMED_BAD, "the black-holed EV is in state %u", st);
    SC_CHECKF(p, p->q[0][0].n_ev_bad == 1, "%u EVs went ASSUMED_BAD, expected just the black-holed one",
              p->q[0][0].n_ev_bad);
    SC_CHECKF(p, o.after == 0, "%u data packets went into the black hole after it was detected", o.after);
    rtt = 2u * (p->wc.link[0][0].delay_ns + 1000u); /* propagation there and back plus serialization */
    SC_CHECKF(p, p->q[0][0].t_first_ev_bad - o.t_first <= 3u * rtt, "detected %llu ns after the first loss (RTT %llu)",
              (unsigned long long)(p->q[0][0].t_first_ev_bad - o.t_first), (unsigned long long)rtt);
    note("black-holed EV: %u data packets lost, detected %.2f RTTs after the first loss", o.drops_data,
         (double)(p->q[0][0].t_first_ev_bad - o.t_first) / (double)rtt);
    return 0;
}
SC_TEST(t_sc_blackhole_ev, sc_blackhole_ev_body)

/* ---- Q25: selective progress alone resets the retry count --------------------------------------------------- */
/* The first packet of a long message never arrives (every transmission of it is dropped), so cack never moves; the
 * others are acknowledged selectively, one every 3.3 us, for about 700 us. With T = 32.8 us and L = E = 1 the
 * connection fails only 4T after the last selective progress, and no expiry happens before it. */
typedef struct sc_prog {
    uint32_t base, npkts, dropped;
    uint8_t acked[256];
    mrc_time t_progress;
} sc_prog;
static int sc_prog_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_prog *o = (sc_prog *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode) || k.bth.psn != o->base) return 0;
    o->dropped++;
    return 1;
}
static void sc_prog_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_prog *o = (sc_prog *)p->ud;
    mrc_pkt k;
    uint32_t i;
    (void)ri;
    if (to != 0 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK) return;
    for (i = 0; i < 64; i++) {
        uint32_t j = (uint32_t)mrc_psn_diff(mrc_psn_add(k.seth.cack_psn, k.seth.sack_offset + (int32_t)i), o->base);
        if (((k.seth.sack_bitmap >> i) & 1u) && j < o->npkts && !o->acked[j]) {
            o->acked[j] = 1;
            o->t_progress = now;
        }
    }
}
static int sc_rto_progress_body(sc_pair *p) {
    sc_prog o;
    mrc_wire_link l;
    const mrc_time T = (mrc_time)1024u << 5;
    uint32_t i, nacked = 0;
    sc_defaults(p, g_seed + 2500);
    sc_set_ports(p, 1);
    p->attr[0].timeout = 5;
    p->attr[0].retry_linear = 1;
    p->attr[0].retry_exp = 1;
    p->strict = 0;
    /* retry semantics, not congestion control: a PSN dropped every time can fill a window collapsed to one MTU */
    p->cfg[0].cc.algo = p->cfg[1].cc.algo = MRC_CC_ALGO_NONE;
    mrc_wire_link_default(&l);
    l.rate_bps = 10000000000u; /* 10 Gb/s: a 4 KiB packet every 3.3 us */
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    memset(&o, 0, sizeof o);
    o.base = p->attr[0].sq_psn;
    o.npkts = 200;
    p->ud = &o;
    p->filter = sc_prog_filter;
    p->rx = sc_prog_rx;
    p->stop = sc_exhaust_stop;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 200u * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    for (i = 1; i < o.npkts; i++) nacked += o.acked[i];
    SC_CHECK(p, nacked == o.npkts - 1 && !o.acked[0] && o.t_progress > 600 * SC_US);
    SC_CHECK(p, p->q[0][0].conn_err_status == MRC_ERR_RETRY_EXC && sc_cstats(p, 0, 0).rto_fired == 3);
    SC_CHECKF(p, p->q[0][0].t_conn_err == o.t_progress + 4u * T, "error at %llu, last progress %llu",
              (unsigned long long)p->q[0][0].t_conn_err, (unsigned long long)o.t_progress);
    note("selective progress until %.1f us kept the retry count at 0; RETRY_EXC 4T later", (double)o.t_progress / 1e3);
    return 0;
}
SC_TEST(t_sc_rto_progress, sc_rto_progress_body)

/* ---- RTS -> RTS: a new timeout applies to the timer already running (P5) ------------------------------------- */
/* Link dead from the start with timeout 0 (no RTO: only probes). At 1 ms the application sets timeout 5 (32.8 us)
 * and no retries: the timer that has been running since the first transmission is long expired, so the connection
 * fails at once, not whenever the next probe happens to re-arm it. */
static int sc_modify_timeout_body(sc_pair *p) {
    mrc_conn_attr a;
    mrc_time t_mod;
    sc_defaults(p, g_seed + 2600);
    p->attr[0].timeout = 0;
    p->strict = 0;
    p->stop = sc_exhaust_stop;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, false) == MRC_OK);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 65536, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_MS) == 0);
    SC_CHECK(p, sc_cstats(p, 0, 0).rto_fired == 0 && sc_cstats(p, 0, 0).tlp_fired >= 3);
    memset(&a, 0, sizeof a);
    a.timeout = 5;
    a.retry_linear = 0;
    a.retry_exp = 0;
    t_mod = sc_now(p);
    SC_CHECK(p, mrc_conn_modify(p->q[0][0].c, &a, MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT, t_mod) == MRC_OK);
    mrc_wire_kick(&p->w);
    SC_CHECK(p, sc_run_until(p, t_mod + SC_SEC) == 1);
    SC_CHECK(p, p->q[0][0].conn_err_status == MRC_ERR_RETRY_EXC && sc_cstats(p, 0, 0).rto_fired == 1);
    SC_CHECKF(p, p->q[0][0].t_conn_err == t_mod, "timeout set at %llu ns, RETRY_EXC at %llu ns",
              (unsigned long long)t_mod, (unsigned long long)p->q[0][0].t_conn_err);
    sc_free(p);

    /* the converse: lengthened during an outage, the pending expiry moves out to T(new) after the timer's start */
    {
        static sc_txlog o;
        uint32_t i;
        mrc_time t0, t_rtx = 0;
        sc_defaults(p, g_seed + 2601);
        p->attr[0].timeout = 6; /* 65.5 us */
        memset(&o, 0, sizeof o);
        p->ud = &o;
        p->tap = sc_txlog_tap;
        p->stop = sc_stop_never;
        SC_CHECK(p, sc_start(p) == 0);
        SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, false) == MRC_OK);
        SC_CHECK(p, sc_add(p, 0, 0, 0, 65536, MRC_WR_WRITE, 0) == 0);
        SC_CHECK(p, sc_run_until(p, 30 * SC_US) == 0);
        t0 = o.t[0];
        a.timeout = 10; /* 1.048576 ms */
        a.retry_linear = 7;
        a.retry_exp = 7;
        SC_CHECK(p, mrc_conn_modify(p->q[0][0].c, &a, MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT, sc_now(p)) == MRC_OK);
        SC_CHECK(p, sc_run_until(p, 3 * SC_MS) == 0);
        for (i = 0; i < o.n; i++)
            if (o.kind[i] == 1) {
                t_rtx = o.t[i];
                break;
            }
        SC_CHECKF(p, t_rtx == t0 + ((mrc_time)1024u << 10), "first transmission %llu, first RTO retransmission %llu",
                  (unsigned long long)t0, (unsigned long long)t_rtx);
    }
    return 0;
}
SC_TEST(t_sc_modify_timeout, sc_modify_timeout_body)

const test_entry test_scenario_edge[] = {
    {"sc_mpr_mismatch", t_sc_mpr_mismatch},
    {"sc_msn_wrap", t_sc_msn_wrap},
    {"sc_late_recv", t_sc_late_recv},
    {"sc_all_ports_down", t_sc_all_ports_down},
    {"sc_hostile_corruption", t_sc_hostile_corruption},
    {"sc_rtr_responder", t_sc_rtr_responder},
    {"sc_access_error", t_sc_access_error},
    {"sc_burst_ctlq", t_sc_burst_ctlq},
    {"sc_random_config", t_sc_random_config},
    {"sc_loss_slack", t_sc_loss_slack},
#ifdef MRC_RESEARCH
    {"sc_reo_timer", t_sc_reo_timer},
#endif
#ifdef MRC_RESEARCH
    {"sc_tlp_copies", t_sc_tlp_copies},
#endif
    {"sc_reply_port", t_sc_reply_port},
    {"ev_blackhole_one_ev", t_sc_blackhole_ev},
    {"sc_rto_progress", t_sc_rto_progress},
    {"sc_modify_timeout", t_sc_modify_timeout},
    {NULL, NULL},
};
