/* tests/responder.c - the responder: hand-built data packets into mrc_endpoint_recv (placement, bounds, duplicates, the PSN
 * window, trims, drops, Write-IMM order, probes), then SACK coalescing and timing (Q6, P7), transport ACKs, the reply
 * port (Q19) and the control queue. On the one-endpoint fixture of tests/util.c (ut_fix), no wire.
 */
#include "test.h"

/* ================================================================================================================
 * 8. responder: hand-built data packets into mrc_endpoint_recv
 * ============================================================================================================== */
static void ut_fill(uint8_t *p, size_t n, uint8_t seed) {
    size_t i;
    for (i = 0; i < n; i++) p[i] = (uint8_t)(seed + i * 13u);
}

/* poll exactly one SACK and check the fields every SACK shares */
static int ut_expect_sack(ut_fix *f, mrc_pkt *k, mrc_txinfo *ti, uint32_t cack, int ack_off, int sack_off,
                          uint64_t bitmap, uint32_t ev, unsigned port, const char *what) {
    uint8_t buf[256];
    int n = ut_poll(f, buf, sizeof buf, ti, k);
    CHECKF(n == MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN, "%s: poll_tx returned %d, want a 48-byte SACK", what,
           n);
    CHECKF(k->bth.opcode == MRC_OP_SACK, "%s: opcode 0x%02X", what, k->bth.opcode);
    CHECK_EQ(ti->opcode, MRC_OP_SACK);
    CHECK_EQ(k->bth.dest_qp, f->attr.dest_qpn);
    CHECK_EQ(k->bth.pkey, f->attr.pkey);
    CHECK_EQ(k->bth.a, 0);
    CHECK_EQ(k->bth.ts, 0);
    CHECKF(k->bth.psn == cack && k->seth.cack_psn == cack, "%s: bth.psn 0x%X cack_psn 0x%X, want 0x%X", what,
           (unsigned)k->bth.psn, (unsigned)k->seth.cack_psn, (unsigned)cack);
    CHECKF(k->seth.ack_psn_offset == ack_off, "%s: ack_psn_offset %d, want %d", what, k->seth.ack_psn_offset, ack_off);
    CHECKF(k->seth.sack_offset == sack_off, "%s: sack_offset %d, want %d", what, k->seth.sack_offset, sack_off);
    CHECKF(k->seth.sack_bitmap == bitmap, "%s: bitmap 0x%016llX, want 0x%016llX", what,
           (unsigned long long)k->seth.sack_bitmap, (unsigned long long)bitmap);
    CHECKF(k->seth.entropy == ev && ti->ev == ev, "%s: entropy 0x%X / ti.ev 0x%X, want 0x%X", what,
           (unsigned)k->seth.entropy, (unsigned)ti->ev, (unsigned)ev);
    CHECKF(ti->port == port, "%s: left on port %u, want %u", what, ti->port, port);
    CHECK_EQ(ti->dscp_class, MRC_DSCP_CONTROL);
    CHECK_EQ(ti->dscp, f->cfg.dscp[MRC_DSCP_CONTROL]);
    CHECK_EQ(ti->qpn, mrc_conn_qpn(&f->c));
    CHECK_EQ(ti->peer, f->attr.peer);
    CHECK_EQ(ti->payload_len, 0);
    CHECK_EQ(k->seth.spdcid, mrc_conn_qpn(&f->c) & 0xFFFFu);
    CHECK_EQ(k->seth.dpdcid, f->attr.dest_qpn & 0xFFFFu);
    CHECK_EQ(k->seth.type, 0);
    CHECK_EQ(k->seth.nxt, 0);
    CHECK_EQ(k->seth.cc_type, 0);
    CHECK_EQ(k->seth.cc_fl, 0);
    return 0;
}
static int t_rsp_write_placed_and_sacked(void) {
    ut_fix *f = &ut_fx;
    uint8_t p1[200], p2[60], p3[100], pkt[512];
    ut_data d;
    mrc_rxinfo ri;
    mrc_pkt k;
    mrc_txinfo ti;
    mrc_conn_stats cs;
    uint32_t rcvd = 0;
    const uint32_t rq = 0x100;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, rq, 0x9000), MRC_OK);
    ut_fill(p1, sizeof p1, 1);
    ut_fill(p2, sizeof p2, 2);
    ut_fill(p3, sizeof p3, 3);
    /* in order */
    ut_data_init(&d, f, rq, 1, p1, sizeof p1);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(2, UT_EV);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 0, p1, sizeof p1);
    CHECK(ut_mem_ok(f, "first write"));
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 0, 1, 0, UT_EV, 2, "first"));
    CHECK_EQ(k.seth.m, MRC_M_NONE);
    CHECK_EQ(k.seth.pr, 0);
    CHECK_EQ(k.seth.mpr, 0); /* no DYNAMIC_MPR cap */
    CHECK_EQ(k.cc.tx_timestamp, 0x1234);
    CHECK_EQ(k.cc.ooo_count, 0);
    rcvd += 36 + 200 + 0 + 4 + 40; /* nominal: headers + payload + pad + ICRC + 40 */
    CHECKF(k.cc.rcvd_bytes == (rcvd >> 8), "rcvd_bytes %u, want %u", (unsigned)k.cc.rcvd_bytes, rcvd >> 8);
    UT_TRY(ut_expect_nothing(f, "after the first SACK"));
    /* out of order: rq + 2 before rq + 1 */
    ut_data_init(&d, f, rq + 2, 3, p3, sizeof p3);
    d.va = UT_IOVA + 512;
    d.ts = 0x2222;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(1, 0xAAAA);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 512, p3, sizeof p3);
    CHECK(ut_mem_ok(f, "out-of-order write"));
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 2, 1, 0x2, 0xAAAA, 1, "hole at rq+1"));
    CHECK_EQ(k.cc.ooo_count, 1);
    CHECK_EQ(k.cc.tx_timestamp, 0x2222);
    rcvd += 36 + 100 + 0 + 44;
    CHECK_EQ(k.cc.rcvd_bytes, rcvd >> 8);
    /* the hole fills: cack jumps to rq + 2 */
    ut_data_init(&d, f, rq + 1, 2, p2, sizeof p2);
    d.va = UT_IOVA + 300;
    d.a = 0; /* filling a hole SACKs at once anyway */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(1, 0xBBBB);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 300, p2, sizeof p2);
    CHECK(ut_mem_ok(f, "hole filled"));
    UT_TRY(ut_expect_sack(f, &k, &ti, rq + 2, -1, 1, 0, 0xBBBB, 1, "hole filled"));
    CHECK_EQ(k.cc.ooo_count, 0);
    rcvd += 36 + 60 + 0 + 44;
    CHECK_EQ(k.cc.rcvd_bytes, rcvd >> 8);
    /* CE-marked arrival: SKIP_ONCE echo (Q27); 85 bytes + pad 3 bring the total to exactly 768 */
    ut_data_init(&d, f, rq + 3, 4, p1, 85);
    d.va = UT_IOVA + 1000;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(2, 0xCCCC);
    ri.ecn = 3;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 1000, p1, 85);
    UT_TRY(ut_expect_sack(f, &k, &ti, rq + 3, 0, 1, 0, 0xCCCC, 2, "CE"));
    CHECK_EQ(k.seth.m, MRC_M_SKIP_ONCE);
    rcvd += 36 + 85 + 3 + 44; /* pad 3 counts */
    CHECK_EQ(rcvd, 768);
    CHECKF(k.cc.rcvd_bytes == (rcvd >> 8), "rcvd_bytes %u, want %u", (unsigned)k.cc.rcvd_bytes, rcvd >> 8);
    /* a PSN more than 64 past cack: the slice is the 64 PSNs ending at it (Q4) */
    ut_data_init(&d, f, rq + 3 + 100, 50, p2, 4);
    d.va = UT_IOVA + 1100;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(1, 0xDDDD);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 1100, p2, 4);
    UT_TRY(ut_expect_sack(f, &k, &ti, rq + 3, 100, 100 - 63, (uint64_t)1 << 63, 0xDDDD, 1, "far slice"));
    CHECK(ut_mem_ok(f, "all writes"));
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rx_data, 5);
    CHECK_EQ(cs.rx_bytes_placed, 200 + 100 + 60 + 85 + 4);
    CHECK_EQ(cs.tx_sack, 5);

    /* RTR accepts data too */
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTR, 0xFFFFFF, 0), MRC_OK);
    ut_data_init(&d, f, 0xFFFFFF, 1, p1, 16);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(1, 5);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 0, p1, 16);
    CHECK(ut_mem_ok(f, "RTR write"));
    UT_TRY(ut_expect_sack(f, &k, &ti, 0xFFFFFF, 0, 1, 0, 5, 1, "RTR"));
    return 0;
}

/* writes that touch the region's first and last byte, zero-length writes, VA advanced per packet */
static int t_rsp_write_bounds_ok(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[512], pkt[1024];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 9);
    mrc_pkt k;
    mrc_txinfo ti;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 10, 0), MRC_OK);
    ut_fill(p, sizeof p, 0x40);
    ut_data_init(&d, f, 10, 1, p, 16);
    d.va = UT_IOVA + UT_REGION - 16; /* ends exactly at the region's end */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, UT_REGION - 16, p, 16);
    ut_data_init(&d, f, 11, 2, p + 16, 16);
    d.va = UT_IOVA;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 0, p + 16, 16);
    /* zero-length write (P10): with zero_len_rkey (default) it needs a valid rkey and a VA in the region; one
     * that fails is dropped, not NAKed; it may name the byte just past the end */
    ut_data_init(&d, f, 12, 3, NULL, 0);
    d.rkey = 0xBAD0BAD0u;
    d.va = 7;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_ERR_DROP);
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    d.rkey = f->rkey;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d), &ri, f->now),
             MRC_ERR_DROP);
    d.va = UT_IOVA + UT_REGION;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d), &ri, f->now), MRC_OK);
    /* a two-packet message: FIRST at va, LAST at va + MTU, dma_len 300 in both */
    ut_data_init(&d, f, 13, 4, p + 32, 256);
    d.op = MRC_OP_WRITE_FIRST;
    d.dma_len = 300;
    d.va = UT_IOVA + 1000;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_data_init(&d, f, 14, 4, p + 32 + 256, 44);
    d.op = MRC_OP_WRITE_LAST;
    d.dma_len = 300;
    d.va = UT_IOVA + 1256;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 1000, p + 32, 300);
    CHECK(ut_mem_ok(f, "in-bounds writes"));
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    while (ut_poll(f, pkt, sizeof pkt, &ti, &k) > 0) CHECK_EQ(k.bth.opcode, MRC_OP_SACK);
    CHECK_EQ(k.seth.cack_psn, 14);
    return 0;
}

static int t_rsp_oob_write_rejected(void) {
    static const char *const names[] = {"rkey key bits wrong", "rkey slot unknown", "rkey 0", "va below region",
                                        "va + len past the end", "va at the end", "va wraps 2^64",
                                        "region without remote write", "qp without remote write",
                                        "deregistered rkey", "zero-length on qp without remote write",
                                        "non-first packet past the end"};
    ut_fix *f = &ut_fx;
    unsigned i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        uint8_t p[256], pkt[512];
        ut_data d;
        mrc_rxinfo ri = ut_ri(2, 0x5151);
        mrc_pkt k;
        mrc_txinfo ti;
        mrc_conn_stats cs;
        mrc_event ev;
        const uint32_t rq = 0x800;
        size_t n;
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, rq, 0), MRC_OK);
        ut_fill(p, sizeof p, (uint8_t)i);
        ut_data_init(&d, f, rq, 1, p, 16);
        d.msn = 1;
        switch (i) {
        case 0: d.rkey = f->rkey ^ 0x01u; break;
        case 1: d.rkey = 0x7F00u | (f->rkey & 0xFFu); break;
        case 2: d.rkey = 0; break;
        case 3: d.va = UT_IOVA - 1; break;
        case 4: d.va = UT_IOVA + UT_REGION - 15; break;
        case 5: d.va = UT_IOVA + UT_REGION; d.plen = d.dma_len = 4; break;
        case 6: d.va = UINT64_MAX - 7u; break;
        case 7: {
            uint32_t rk2;
            CHECK_EQ(mrc_endpoint_reg_mr(&f->ep, f->mem + UT_GUARD, UT_IOVA, UT_REGION, 0, NULL, &rk2), MRC_OK);
            d.rkey = rk2;
            break;
        }
        case 8:
        case 10: {
            mrc_conn_attr a = f->attr;
            a.state = MRC_QPS_RTS;
            a.access = 0;
            CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE | MRC_ATTR_ACCESS, f->now), MRC_OK);
            if (i == 10) d.plen = d.dma_len = 0;
            break;
        }
        case 9: CHECK_EQ(mrc_endpoint_dereg_mr(&f->ep, f->rkey), MRC_OK); break;
        default:
            d.op = MRC_OP_WRITE_LAST;
            d.psn = rq + 1;
            d.dma_len = 512;
            d.plen = 256;
            d.va = UT_IOVA + UT_REGION - 128;
            break;
        }
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_ACCESS, names[i]));
        CHECKF(ut_mem_ok(f, names[i]), "%s: memory changed", names[i]);
        CHECKF(mrc_conn_state(&f->c) == MRC_QPS_ERR, "%s: state %s", names[i],
               mrc_state_name((unsigned)mrc_conn_state(&f->c)));
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, MRC_ERR_LOCAL_ACCESS, &ev, names[i]));
        UT_TRY(ut_expect_no_event(&f->ep, names[i]));
        /* the NAK 0x62, naming the offending message, on the arrival port and EV */
        CHECKF(ut_poll(f, pkt, sizeof pkt, &ti, &k) == MRC_BTH_LEN + MRC_AETH_LEN, "%s: no NAK", names[i]);
        CHECKF(k.bth.opcode == MRC_OP_ACK, "%s: opcode 0x%02X", names[i], k.bth.opcode);
        CHECKF(k.aeth.syndrome == MRC_AETH_NAK_REM_ACCESS, "%s: syndrome 0x%02X", names[i], k.aeth.syndrome);
        CHECK_EQ(k.aeth.msn, 1);
        CHECK_EQ(k.bth.psn, rq - 1); /* cack */
        CHECK_EQ(k.bth.dest_qp, UT_PEER_QPN);
        CHECK_EQ(ti.port, 2);
        CHECK_EQ(ti.ev, 0x5151);
        CHECK_EQ(ti.dscp_class, MRC_DSCP_CONTROL);
        UT_TRY(ut_expect_nothing(f, names[i]));
        mrc_conn_stats_get(&f->c, &cs);
        CHECK_EQ(cs.tx_nak, 1);
        CHECK_EQ(cs.rx_data, 0);
        /* in ERR, even a good write is refused */
        ut_data_init(&d, f, rq, 1, p, 16);
        d.rkey = f->rkey;
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_STATE, "write in ERR"));
        CHECK(ut_mem_ok(f, "write in ERR"));
    }
    return 0;
}

static int t_rsp_duplicate_not_replaced(void) {
    ut_fix *f = &ut_fx;
    uint8_t a[32], b[32], c2[32], pkt[256];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 0x1111);
    mrc_pkt k;
    mrc_txinfo ti;
    mrc_conn_stats cs;
    const uint32_t rq = 0xFFFFFE; /* the PSNs wrap */
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, rq, 0), MRC_OK);
    memset(a, 0x11, sizeof a);
    memset(b, 0x22, sizeof b);
    memset(c2, 0x33, sizeof c2);
    ut_data_init(&d, f, rq, 1, a, sizeof a);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 0, a, sizeof a);
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 0, 1, 0, 0x1111, 1, "original"));
    /* the same PSN with other payload bytes (PSN <= cack): dropped, re-SACKed at once */
    ut_data_init(&d, f, rq, 1, b, sizeof b);
    d.a = 0;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri.ev = 0x2222;
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_DUP, "duplicate of cack"));
    CHECK(ut_mem_ok(f, "after the duplicate"));
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 0, 1, 0, 0x2222, 1, "re-SACK"));
    /* an out-of-order PSN, then its duplicate (received, above cack) */
    ut_data_init(&d, f, (rq + 2) & MRC_PSN_MASK, 3, c2, sizeof c2);
    d.va = UT_IOVA + 256;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri.ev = 0x3333;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 256, c2, sizeof c2);
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 2, 1, 0x2, 0x3333, 1, "out of order"));
    ut_data_init(&d, f, (rq + 2) & MRC_PSN_MASK, 3, b, sizeof b);
    d.va = UT_IOVA + 256;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri.ev = 0x4444;
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_DUP, "duplicate above cack"));
    CHECK(ut_mem_ok(f, "after the second duplicate"));
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 2, 1, 0x2, 0x4444, 1, "re-SACK above cack"));
    /* a PSN exactly 2^23 behind... or ahead: -2^23 <= PSN - cack <= 0 is a duplicate (P13) */
    ut_data_init(&d, f, (rq + 0x800000u) & MRC_PSN_MASK, 2, b, sizeof b);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_DUP, "2^23 away"));
    CHECK(ut_mem_ok(f, "2^23 away"));
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rx_dup, 3);
    CHECK_EQ(cs.rx_data, 2);
    return 0;
}

static int t_rsp_psn_window(void) {
    static const struct {
        bool incl, nack;
        uint8_t mprd;
        uint32_t last_ok;
    } cs[] = {{false, false, 1, 127}, {true, true, 1, 128}, {false, true, 2, 255}, {true, false, 3, 384}};
    ut_fix *f = &ut_fx;
    unsigned i;
    for (i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        mrc_config cfg;
        uint8_t p[8] = {1, 2, 3, 4, 5, 6, 7, 8}, pkt[128];
        ut_data d;
        mrc_rxinfo ri = ut_ri(2, 0x7777);
        mrc_pkt k;
        mrc_txinfo ti;
        mrc_conn_stats st;
        const uint32_t rq = 0xFFFFC0, cack = rq - 1; /* the window crosses the wrap */
        uint32_t bad = (cack + cs[i].last_ok + 1) & MRC_PSN_MASK;
        size_t n;
        char what[64];
        ut_cfg(&cfg);
        cfg.rx.window_inclusive = cs[i].incl;
        cfg.rx.nack_oor = cs[i].nack;
        CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RESET, rq, 0), MRC_OK);
        f->attr.mpr_dest = cs[i].mprd;
        CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
        snprintf(what, sizeof what, "case %u (inclusive %d, mpr_dest %u)", i, (int)cs[i].incl, cs[i].mprd);
        /* the last PSN inside the window */
        ut_data_init(&d, f, (cack + cs[i].last_ok) & MRC_PSN_MASK, 2, p, sizeof p);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        CHECKF(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now) == MRC_OK, "%s: cack + %u refused", what,
               (unsigned)cs[i].last_ok);
        ut_expect_place(f, 0, p, sizeof p);
        UT_TRY(ut_expect_sack(f, &k, &ti, cack, (int)cs[i].last_ok, (int)cs[i].last_ok - 63, (uint64_t)1 << 63,
                              0x7777, 2, what));
        /* the first PSN past it */
        memset(p, 0xEE, sizeof p);
        ut_data_init(&d, f, bad, 2, p, sizeof p);
        d.va = UT_IOVA + 100;
        d.ts = 0x4321;
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PSN_OOR, what));
        CHECKF(ut_mem_ok(f, what), "%s: out-of-window write placed", what);
        if (cs[i].nack) {
            CHECKF(ut_poll(f, pkt, sizeof pkt, &ti, &k) == MRC_BTH_LEN + MRC_NETH_LEN, "%s: no NACK", what);
            CHECK_EQ(k.bth.opcode, MRC_OP_NACK);
            CHECK_EQ(k.neth.nack_reason, MRC_NACK_PSN_OOR_WINDOW);
            CHECK_EQ(k.neth.nack_psn, bad);
            CHECK_EQ(k.bth.psn, bad);
            CHECK_EQ(k.neth.entropy, 0x7777);
            CHECK_EQ(k.neth.tx_timestamp, 0x4321);
            CHECK_EQ(ti.port, 2);
        }
        UT_TRY(ut_expect_nothing(f, what));
        /* far ahead, 2^23 - 1 past cack: still out of window */
        ut_data_init(&d, f, (cack + 0x7FFFFFu) & MRC_PSN_MASK, 2, p, sizeof p);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PSN_OOR, "2^23 - 1 ahead"));
        mrc_conn_stats_get(&f->c, &st);
        CHECK_EQ(st.rx_oor, 2);
        CHECK_EQ(st.tx_nack, cs[i].nack ? 2 : 0);
        CHECK(ut_mem_ok(f, what));
    }
    return 0;
}

static int t_rsp_trimmed_nacked(void) {
    static const char *const names[] = {"rx flag", "dscp TRIMMED", "dscp TRIMMED_LASTHOP", "short payload",
                                        "headers only", "flag + last-hop dscp", "short FIRST packet",
                                        "custom last-hop codepoint", "custom trimmed codepoint"};
    ut_fix *f = &ut_fx;
    unsigned i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        mrc_config cfg;
        uint8_t p[300], pkt[512];
        ut_data d;
        mrc_rxinfo ri = ut_ri(1, 0x6060 + i);
        mrc_pkt k;
        mrc_txinfo ti;
        mrc_conn_stats st;
        unsigned want = MRC_NACK_TRIMMED;
        const uint32_t rq = 0x4000;
        size_t n;
        ut_cfg(&cfg);
        if (i >= 7) {
            cfg.dscp[MRC_DSCP_TRIMMED] = 20;
            cfg.dscp[MRC_DSCP_TRIMMED_LASTHOP] = 21;
        }
        CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, rq, 0), MRC_OK);
        ut_fill(p, sizeof p, (uint8_t)(0x30 + i));
        ut_data_init(&d, f, rq, 1, p, 64);
        d.ts = (uint16_t)(0x5000 + i);
        switch (i) {
        case 0: ri.flags = MRC_RX_TRIMMED; break;
        case 1: ri.dscp = 3; break;
        case 2: ri.dscp = 4; want = MRC_NACK_TRIMMED_LASTHOP; break;
        case 3: d.plen = 40; break; /* dma_len 64 */
        case 4: d.plen = 0; break;
        case 5: ri.flags = MRC_RX_TRIMMED; ri.dscp = 4; want = MRC_NACK_TRIMMED_LASTHOP; break;
        case 6: d.op = MRC_OP_WRITE_FIRST; d.dma_len = 600; d.plen = 100; break;
        case 7: ri.dscp = 21; want = MRC_NACK_TRIMMED_LASTHOP; break;
        default: ri.dscp = 20; break;
        }
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_TRIMMED, names[i]));
        CHECKF(ut_mem_ok(f, names[i]), "%s: trimmed packet placed", names[i]);
        CHECKF(ut_poll(f, pkt, sizeof pkt, &ti, &k) == MRC_BTH_LEN + MRC_NETH_LEN, "%s: no NACK", names[i]);
        CHECK_EQ(k.bth.opcode, MRC_OP_NACK);
        CHECKF(k.neth.nack_reason == want, "%s: reason 0x%02X, want 0x%02X", names[i], k.neth.nack_reason, want);
        CHECK_EQ(k.neth.nack_psn, rq);
        CHECK_EQ(k.bth.psn, rq);
        CHECK_EQ(k.bth.dest_qp, UT_PEER_QPN);
        CHECK_EQ(k.neth.entropy, 0x6060 + i);
        CHECK_EQ(k.neth.tx_timestamp, 0x5000 + i);
        CHECK_EQ(k.neth.spdcid, mrc_conn_qpn(&f->c) & 0xFFFFu);
        CHECK_EQ(k.neth.dpdcid, UT_PEER_QPN & 0xFFFFu);
        CHECK_EQ(k.neth.vendor_info, 0);
        CHECK_EQ(k.neth.cc_type, 0);
        CHECK_EQ(ti.port, 1);
        CHECK_EQ(ti.ev, 0x6060 + i);
        CHECK_EQ(ti.dscp_class, MRC_DSCP_CONTROL);
        UT_TRY(ut_expect_nothing(f, names[i]));
        mrc_conn_stats_get(&f->c, &st);
        CHECK_EQ(st.rx_trimmed, 1);
        CHECK_EQ(st.tx_nack, 1);
        /* the PSN was not marked: the untrimmed retransmission is accepted, not a duplicate */
        d.plen = d.op == MRC_OP_WRITE_FIRST ? 256 : 64;
        d.rtx = 1;
        ri = ut_ri(2, 0x7070);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        CHECKF(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now) == MRC_OK, "%s: retransmission refused", names[i]);
        ut_expect_place(f, 0, p, d.plen);
        CHECK(ut_mem_ok(f, names[i]));
        UT_TRY(ut_expect_sack(f, &k, &ti, rq, 0, 1, 0, 0x7070, 2, names[i]));
    }
    return 0;
}

/* trimmed so far that a header is gone: MRC_DROP_SHORT, no NACK (Q17) */
static int t_rsp_trimmed_into_headers(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[64], pkt[256];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 1);
    size_t n, cut;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 50, 0), MRC_OK);
    memset(p, 0x99, sizeof p);
    ut_data_init(&d, f, 50, 1, p, sizeof p);
    d.op = MRC_OP_WRITE_ONLY_IMM;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(n, 40 + 64);
    ri.flags = MRC_RX_TRIMMED;
    for (cut = 0; cut < 40; cut++) {
        char what[48];
        snprintf(what, sizeof what, "cut to %u bytes", (unsigned)cut);
        UT_TRY(ut_expect_drop(f, NULL, pkt, cut, &ri, MRC_DROP_SHORT, what));
        UT_TRY(ut_expect_nothing(f, what));
    }
    CHECK(ut_mem_ok(f, "cut packets"));
    UT_TRY(ut_expect_drop(f, &f->c, pkt, 40, &ri, MRC_DROP_TRIMMED, "headers intact"));
    /* a 5-byte write has pad 3: a switch that keeps only the headers cuts into the pad; it is still a trim, NACKed,
     * with or without the adapter's flag (regression: it used to be dropped as MALFORMED and never NACKed) */
    for (cut = 0; cut < 2; cut++) {
        mrc_txinfo ti;
        mrc_pkt k;
        uint8_t out[256];
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 60, 0), MRC_OK);
        ut_data_init(&d, f, 60, 1, p, 5);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        CHECK_EQ(pkt[1] & 0x30u, 3u << 4);
        ri.flags = cut ? 0 : MRC_RX_TRIMMED;
        ri.dscp = f->cfg.dscp[MRC_DSCP_TRIMMED];
        UT_TRY(ut_expect_drop(f, &f->c, pkt, 36, &ri, MRC_DROP_TRIMMED, "cut into the pad"));
        CHECK(ut_mem_ok(f, "cut into the pad"));
        CHECKF(ut_poll(f, out, sizeof out, &ti, &k) > 0, "no NACK for a packet cut into its pad");
        CHECK_EQ(k.bth.opcode, MRC_OP_NACK);
        CHECK_EQ(k.neth.nack_reason, MRC_NACK_TRIMMED);
        CHECK_EQ(k.neth.nack_psn, 60);
    }
    return 0;
}

/* one packet per MRC_DROP_* reason, each counted exactly once; rx_drops equals the sum */
static int t_rsp_drop_counters(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    mrc_conn *c2 = &ut_conns[0];
    uint8_t p[64], pkt[256];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 0x42);
    mrc_endpoint_stats st;
    mrc_conn_stats cs;
    uint64_t sum = 0;
    uint32_t rk_ext;
    const uint32_t rq = 0x200, sq = 0x300;
    unsigned r;
    size_t n;
    ut_cfg(&cfg);
    cfg.place = ut_place_hook;
    cfg.place_ud = f;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, rq, sq), MRC_OK);
    CHECK_EQ(mrc_endpoint_reg_mr(&f->ep, NULL, 0x9000000, 4096, MRC_ACCESS_REMOTE_WRITE | MRC_ACCESS_EXTERNAL, NULL,
                                 &rk_ext),
             MRC_OK);
    memset(ut_conns, 0, sizeof ut_conns);
    CHECK_EQ(mrc_conn_init(&f->ep, c2, f->now), MRC_OK);
    CHECK_EQ(ut_goto(c2, &f->attr, MRC_QPS_INIT, f->now), MRC_OK);
    memset(p, 0x77, sizeof p);

    /* ICRC: checked first */
    ut_data_init(&d, f, rq, 1, p, 16);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri.flags = MRC_RX_ICRC_BAD;
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_ICRC, "bad ICRC"));
    ri.flags = 0;
    /* SHORT */
    UT_TRY(ut_expect_drop(f, NULL, pkt, 5, &ri, MRC_DROP_SHORT, "5 bytes"));
    UT_TRY(ut_expect_drop(f, NULL, pkt, 0, &ri, MRC_DROP_SHORT, "0 bytes"));
    UT_TRY(ut_expect_drop(f, NULL, pkt, 12 + 4 + 4 + 8, &ri, MRC_DROP_SHORT, "half a RETH"));
    /* OPCODE */
    pkt[0] = 0x0A; /* RC RDMA WRITE ONLY: not an MRC opcode */
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_OPCODE, "RC opcode"));
    pkt[0] = 0xFF;
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_OPCODE, "opcode 0xFF"));
    {
        mrc_bth b;
        mrc_erth e;
        mrc_wire_opts *o = &f->cfg.wire;
        mrc_rxinfo rp = ri; /* from the conns' peer (P19: QP 0x2 takes only connected peers) */
        rp.peer = 0x77;
        memset(&b, 0, sizeof b);
        memset(&e, 0, sizeof e);
        b.opcode = MRC_OP_EP_REQ;
        b.pkey = 0xFFFF;
        b.dest_qp = mrc_conn_qpn(&f->c);
        n = (size_t)mrc_bth_encode(pkt, sizeof pkt, o, &b);
        n += (size_t)mrc_erth_encode(pkt + n, sizeof pkt - n, &e);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_OPCODE, "ERTH to an ordinary QPN"));
        /* EPOP: endpoint operations to QP 0x2 that name no operation, or answer no request */
        b.dest_qp = MRC_EPOP_QPN;
        e.op = 2; /* only PORT_STATUS_UPDATE (0) and EV_PROBE (1) exist */
        n = (size_t)mrc_bth_encode(pkt, sizeof pkt, o, &b);
        n += (size_t)mrc_erth_encode(pkt + n, sizeof pkt - n, &e);
        UT_TRY(ut_expect_drop(f, NULL, pkt, n, &rp, MRC_DROP_EPOP, "ERTH op 2 to QP 2"));
        UT_TRY(ut_expect_nothing(f, "ERTH op 2 to QP 2"));
        /* STRANGER (P38): the same from a peer with no connected QP here */
        UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_STRANGER, "ERTH from a stranger"));
        /* PSU (P38): a PORT_STATUS_UPDATE naming a plane this endpoint lacks, or not the plane it came on */
        e.op = MRC_EPOP_PORT_STATUS_UPDATE;
        e.port_status_mask = 0x5; /* planes 1 and 3 of 2 */
        n = (size_t)mrc_bth_encode(pkt, sizeof pkt, o, &b);
        n += (size_t)mrc_erth_encode(pkt + n, sizeof pkt - n, &e);
        UT_TRY(ut_expect_drop(f, NULL, pkt, n, &rp, MRC_DROP_PSU, "PSU naming plane 3 of 2"));
        e.port_status_mask = 0x2;
        n = (size_t)mrc_bth_encode(pkt, sizeof pkt, o, &b);
        n += (size_t)mrc_erth_encode(pkt + n, sizeof pkt - n, &e);
        UT_TRY(ut_expect_drop(f, NULL, pkt, n, &rp, MRC_DROP_PSU, "PSU on plane 1 naming plane 2 only"));
        UT_TRY(ut_expect_nothing(f, "bad PSUs"));
        b.opcode = MRC_OP_EP_RSP;
        n = (size_t)mrc_bth_encode(pkt, sizeof pkt, o, &b);
        memset(pkt + n, 0, MRC_EETH_LEN);
        n += MRC_EETH_LEN;
        UT_TRY(ut_expect_drop(f, NULL, pkt, n, &rp, MRC_DROP_EPOP, "unsolicited EETH to QP 2"));
    }
    ut_data_init(&d, f, rq, 1, p, 16);
    d.qp = MRC_EPOP_QPN;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_OPCODE, "data to QP 2"));
    /* QPN */
    d.qp = f->cfg.qpn_base + 9;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_QPN, "unattached slot"));
    d.qp = 0xABCDEF;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_QPN, "unknown QPN"));
    /* PKEY: the low 15 bits must match; the membership bit is ignored (P14) */
    ut_data_init(&d, f, rq, 1, p, 16);
    d.pkey = 0xFFFE;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PKEY, "pkey 0xFFFE"));
    /* MALFORMED */
    ut_data_init(&d, f, rq, 1, p, 0);
    d.dma_len = 0;
    d.pad = 3; /* pad larger than the bytes after the headers */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n - 1, &ri, MRC_DROP_MALFORMED, "pad 3 on a zero-length write"));
    ut_data_init(&d, f, rq, 1, p, 64);
    d.op = MRC_OP_WRITE_FIRST;
    d.dma_len = 256; /* FIRST needs dma_len > MTU */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "FIRST with dma_len = MTU"));
    ut_data_init(&d, f, rq, 1, p, 20);
    d.dma_len = 10; /* payload longer than implied */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "payload > dma_len"));
    ut_data_init(&d, f, rq, 1, p, 16);
    d.op = MRC_OP_WRITE_MIDDLE;
    d.dma_len = 512; /* MIDDLE needs > 2 MTU */
    d.plen = 32;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "MIDDLE with dma_len = 2 MTU"));
    n = ut_build_sack(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), sq, sq - 1, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "SACK cack != BTH psn"));
    n = ut_build_nack(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), sq, sq + 1, MRC_NACK_TRIMMED, 0);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "NACK nack_psn != BTH psn"));
    /* STATE and ACK_STALE: c2 is in INIT */
    ut_data_init(&d, f, rq, 1, p, 16);
    d.qp = mrc_conn_qpn(c2);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, c2, pkt, n, &ri, MRC_DROP_STATE, "data to INIT"));
    n = ut_build_probe(pkt, &f->cfg.wire, mrc_conn_qpn(c2), 0, 0);
    UT_TRY(ut_expect_drop(f, c2, pkt, n, &ri, MRC_DROP_STATE, "probe to INIT"));
    n = ut_build_sack(pkt, &f->cfg.wire, mrc_conn_qpn(c2), 0, 0, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, c2, pkt, n, &ri, MRC_DROP_ACK_STALE, "SACK to INIT"));
    n = ut_build_aeth(pkt, &f->cfg.wire, mrc_conn_qpn(c2), 0, MRC_AETH_NAK_REM_ACCESS, 1);
    UT_TRY(ut_expect_drop(f, c2, pkt, n, &ri, MRC_DROP_ACK_STALE, "AETH to INIT"));
    /* PSN_OOR, MSN_OOR, TRIMMED, DUP */
    ut_data_init(&d, f, rq + 200, 1, p, 16);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PSN_OOR, "cack + 201"));
    ut_data_init(&d, f, rq, 0, p, 16); /* msn_done 0: the window is [1, 128) */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MSN_OOR, "msn 0"));
    ut_data_init(&d, f, rq, 128, p, 16);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MSN_OOR, "msn 128"));
    ut_data_init(&d, f, rq, 1, p, 16);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri.flags = MRC_RX_TRIMMED;
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_TRIMMED, "trimmed"));
    ri.flags = 0;
    d.pkey = 0x7FFF; /* differs only in the membership bit: accepted */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 0, p, 16);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_DUP, "duplicate"));
    /* MALFORMED: a Write-IMM whose rqmsn slot is already taken */
    ut_data_init(&d, f, rq + 1, 2, p, 8);
    d.op = MRC_OP_WRITE_ONLY_IMM;
    d.rqmsn = 0;
    d.va = UT_IOVA + 64;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK); /* stashed: no receive posted */
    ut_expect_place(f, 64, p, 8);
    ut_data_init(&d, f, rq + 2, 3, p, 8);
    d.op = MRC_OP_WRITE_ONLY_IMM;
    d.rqmsn = 0;
    d.va = UT_IOVA + 128;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "rqmsn slot taken"));
    /* ACK_BOGUS: nothing sent yet, so a SACK for cack = sq names an unsent PSN */
    n = ut_build_sack(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), sq, sq, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_ACK_BOGUS, "SACK beyond snd_nxt"));
    /* PLACE: the hook refuses */
    f->place_rc = -1;
    ut_data_init(&d, f, rq + 3, 4, p, 16);
    d.rkey = rk_ext;
    d.va = 0x9000000 + 10;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PLACE, "hook refused"));
    CHECK_EQ(f->place_calls, 1);
    /* WIMM on c2 (RTR, max_wimm_dest 1): rqmsn 1 while rqmsn 0 is the next to deliver */
    {
        mrc_conn_attr a = f->attr;
        a.state = MRC_QPS_RTR;
        a.max_wimm_dest = 1;
        CHECK_EQ(mrc_conn_modify(c2, &a, UT_M_RTR, f->now), MRC_OK);
    }
    ut_data_init(&d, f, rq, 1, p, 8);
    d.qp = mrc_conn_qpn(c2);
    d.op = MRC_OP_WRITE_ONLY_IMM;
    d.rqmsn = 1;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, c2, pkt, n, &ri, MRC_DROP_WIMM, "WIMM overflow"));
    /* RATE (P19): PROBE_REQs beyond the connection's burst at one instant */
    n = ut_build_probe(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, 0);
    for (r = 0; r < f->cfg.guard.probe_burst; r++) CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_RATE, "PROBE_REQ over the rate"));
    /* ACCESS, last: it takes the main conn to ERR */
    ut_data_init(&d, f, rq + 3, 4, p, 16);
    d.rkey = 0;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_ACCESS, "bad rkey"));
    CHECK(ut_mem_ok(f, "drop counters"));

    mrc_endpoint_stats_get(&f->ep, &st);
    for (r = 0; r < MRC_DROP_REASONS; r++) { /* NAK needs guard.hardened and a message outstanding: ho_hardened */
        CHECKF(st.drop[r] >= 1 || r == MRC_DROP_NAK, "reason %s never counted", mrc_drop_name(r));
        sum += st.drop[r];
    }
    CHECKF(st.rx_drops == sum, "rx_drops %llu, sum of drop[] %llu", (unsigned long long)st.rx_drops,
           (unsigned long long)sum);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rx_drops, 18); /* the drops above that named the main conn */
    mrc_conn_stats_get(c2, &cs);
    CHECK_EQ(cs.rx_drops, 5);
    return 0;
}

/* the placement hook gets the region's rkey, user pointer, offset and bytes; a refusal leaves the PSN unmarked */
static int t_rsp_place_hook(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    uint8_t p[100], pkt[256];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 0x99);
    mrc_pkt k;
    mrc_txinfo ti;
    uint32_t rk;
    int user = 0;
    size_t n;
    ut_cfg(&cfg);
    cfg.place = ut_place_hook;
    cfg.place_ud = f;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x30, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_reg_mr(&f->ep, NULL, 0x9000000, 4096, MRC_ACCESS_REMOTE_WRITE | MRC_ACCESS_EXTERNAL, &user,
                                 &rk),
             MRC_OK);
    ut_fill(p, sizeof p, 0x21);
    ut_data_init(&d, f, 0x30, 1, p, sizeof p);
    d.rkey = rk;
    d.va = 0x9000000 + 50;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    f->place_rc = 1;
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PLACE, "refused"));
    UT_TRY(ut_expect_nothing(f, "refused: not acknowledged"));
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    f->place_rc = 0;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK); /* not a duplicate */
    CHECK_EQ(f->place_calls, 2);
    CHECK_EQ(f->place_rkey, rk);
    CHECK(f->place_user == &user);
    CHECK_EQ(f->place_off, 50);
    CHECK_EQ(f->place_len, sizeof p);
    CHECK_EQ(f->place_first, p[0]);
    CHECK(ut_mem_ok(f, "host region untouched"));
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x30, 0, 1, 0, 0x99, 1, "placed by the hook"));
    return 0;
}

/* WIMM overflow: NAK 0x61 as the only packet, ERR with MRC_ERR_LOCAL_INVAL, nothing placed (Q23, P8) */
static int t_rsp_wimm_overflow(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[16], pkt[256];
    ut_data d;
    mrc_rxinfo ri = ut_ri(2, 0x3131);
    mrc_pkt k;
    mrc_txinfo ti;
    mrc_event ev;
    const uint32_t rq = 0x700;
    unsigned i, part;
    size_t n;
    for (part = 0; part < 2; part++) {
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, rq, 0), MRC_OK);
        f->attr.max_wimm_dest = 2;
        CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
        if (part == 1) CHECK_EQ(mrc_conn_post_recv(&f->c, 77, f->now), MRC_OK); /* rqmsn 0 is delivered */
        /* part 0: rqmsn 0, 1 wait for receives; rqmsn 2 is one too many.
         * part 1: rqmsn 0 delivered; 1, 2 wait; rqmsn 3 is one too many. */
        for (i = 0; i < 3u + part; i++) {
            memset(p, (int)(0x10 + i), sizeof p);
            ut_data_init(&d, f, rq + i, (uint16_t)(1 + i), p, sizeof p);
            d.op = MRC_OP_WRITE_ONLY_IMM;
            d.rqmsn = (uint16_t)i;
            d.imm = 0x100 + i;
            d.va = UT_IOVA + 32 * i;
            n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
            if (i + 1 < 3u + part) {
                CHECKF(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now) == MRC_OK, "part %u rqmsn %u refused", part, i);
                ut_expect_place(f, 32 * i, p, sizeof p);
            } else {
                UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_WIMM, "one immediate too many"));
            }
        }
        CHECK(ut_mem_ok(f, "WIMM overflow"));
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_ERR);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, MRC_ERR_LOCAL_INVAL, &ev, "WIMM")); /* pulled first */
        if (part == 1) { /* completed before the error */
            UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "rqmsn 0"));
            CHECK_EQ(ev.wr_id, 77);
            CHECK_EQ(ev.imm, 0x100);
            CHECK_EQ(ev.byte_len, sizeof p);
        }
        UT_TRY(ut_expect_no_event(&f->ep, "stashed immediates are discarded"));
        /* the earlier SACKs were discarded with the control queue: the NAK is the only packet */
        CHECKF(ut_poll(f, pkt, sizeof pkt, &ti, &k) == MRC_BTH_LEN + MRC_AETH_LEN, "part %u: no NAK first", part);
        CHECK_EQ(k.bth.opcode, MRC_OP_ACK);
        CHECK_EQ(k.aeth.syndrome, MRC_AETH_NAK_INV_REQ);
        CHECK_EQ(k.aeth.msn, 3 + part); /* METH msn of the offending packet */
        CHECK_EQ(k.bth.psn, rq + 1 + part); /* cack: the accepted ones */
        CHECK_EQ(ti.port, 2);
        CHECK_EQ(ti.ev, 0x3131);
        UT_TRY(ut_expect_nothing(f, "after the NAK"));
    }
    return 0;
}

/* Write-IMMs complete into posted receives in rqmsn order, even when their last packets arrive in reverse */
static int t_rsp_wimm_order_reverse(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[700], pkt[512];
    ut_data d[6];
    mrc_rxinfo ri = ut_ri(1, 0x4141);
    mrc_event ev;
    const uint32_t rq = 0xFFFFFD; /* wraps inside the sequence */
    static const int order[6] = {4, 5, 3, 2, 1, 0};
    unsigned i;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, rq, 0), MRC_OK);
    for (i = 0; i < 3; i++) CHECK_EQ(mrc_conn_post_recv(&f->c, 100 + i, f->now), MRC_OK);
    ut_fill(p, sizeof p, 0x61);
    /* M1: Write-IMM rqmsn 0, 300 bytes, 2 packets; M2: plain write (rqmsn 1 = next, not consumed), 10 bytes;
     * M3: Write-IMM rqmsn 1, 20 bytes; M4: Write-IMM rqmsn 2, 300 bytes, 2 packets */
    ut_data_init(&d[0], f, rq, 1, p, 256);
    d[0].op = MRC_OP_WRITE_FIRST; d[0].dma_len = 300; d[0].va = UT_IOVA;
    ut_data_init(&d[1], f, rq + 1, 1, p + 256, 44);
    d[1].op = MRC_OP_WRITE_LAST_IMM; d[1].dma_len = 300; d[1].va = UT_IOVA + 256; d[1].imm = 0xA0;
    ut_data_init(&d[2], f, rq + 2, 2, p + 300, 10);
    d[2].rqmsn = 1; d[2].va = UT_IOVA + 400;
    ut_data_init(&d[3], f, rq + 3, 3, p + 310, 20);
    d[3].op = MRC_OP_WRITE_ONLY_IMM; d[3].rqmsn = 1; d[3].va = UT_IOVA + 500; d[3].imm = 0xA1;
    ut_data_init(&d[4], f, rq + 4, 4, p + 330, 256);
    d[4].op = MRC_OP_WRITE_FIRST; d[4].rqmsn = 2; d[4].dma_len = 300; d[4].va = UT_IOVA + 600;
    ut_data_init(&d[5], f, rq + 5, 4, p + 330 + 256, 44);
    d[5].op = MRC_OP_WRITE_LAST_IMM; d[5].rqmsn = 2; d[5].dma_len = 300; d[5].va = UT_IOVA + 856; d[5].imm = 0xA2;
    d[1].rqmsn = 0;
    d[0].rqmsn = 0;
    for (i = 0; i < 6; i++) {
        d[i].psn &= MRC_PSN_MASK;
        ut_expect_place(f, d[i].va - UT_IOVA, d[i].pl, d[i].plen);
    }
    for (i = 0; i < 6; i++) {
        const ut_data *x = &d[order[i]];
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, x);
        CHECKF(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now) == MRC_OK, "packet psn 0x%X refused",
               (unsigned)x->psn);
        if (i < 5) UT_TRY(ut_expect_no_event(&f->ep, "before the first packet arrives"));
    }
    CHECK(ut_mem_ok(f, "all placed"));
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "first immediate"));
    CHECK_EQ(ev.wr_id, 100);
    CHECK_EQ(ev.imm, 0xA0);
    CHECK_EQ(ev.byte_len, 300);
    CHECK(ev.conn == &f->c);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "second immediate"));
    CHECK_EQ(ev.wr_id, 101);
    CHECK_EQ(ev.imm, 0xA1);
    CHECK_EQ(ev.byte_len, 20);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "third immediate"));
    CHECK_EQ(ev.wr_id, 102);
    CHECK_EQ(ev.imm, 0xA2);
    CHECK_EQ(ev.byte_len, 300);
    UT_TRY(ut_expect_no_event(&f->ep, "three immediates only"));
    return 0;
}

/* an immediate with no receive posted waits; post_recv delivers it (P6) */
static int t_rsp_imm_waits_for_recv(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[8] = {1, 2, 3, 4, 5, 6, 7, 8}, pkt[128];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_event ev;
    mrc_conn_stats cs;
    unsigned i;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    for (i = 0; i < 2; i++) {
        ut_data_init(&d, f, 0x10 + i, (uint16_t)(1 + i), p, sizeof p);
        d.op = MRC_OP_WRITE_ONLY_IMM;
        d.rqmsn = (uint16_t)i;
        d.imm = 0x55 + i;
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    }
    UT_TRY(ut_expect_no_event(&f->ep, "no receive posted"));
    CHECK_EQ(mrc_conn_post_recv(&f->c, 7, f->now), MRC_OK);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "first after post_recv"));
    CHECK_EQ(ev.wr_id, 7);
    CHECK_EQ(ev.imm, 0x55);
    CHECK_EQ(ev.byte_len, 8);
    UT_TRY(ut_expect_no_event(&f->ep, "one receive, one immediate"));
    CHECK_EQ(mrc_conn_post_recv(&f->c, 8, f->now), MRC_OK);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "second"));
    CHECK_EQ(ev.wr_id, 8);
    CHECK_EQ(ev.imm, 0x56);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 9, f->now), MRC_OK);
    UT_TRY(ut_expect_no_event(&f->ep, "receive waiting for an immediate"));
    ut_data_init(&d, f, 0x12, 3, p, sizeof p);
    d.op = MRC_OP_WRITE_ONLY_IMM;
    d.rqmsn = 2;
    d.imm = 0x57;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "third"));
    CHECK_EQ(ev.wr_id, 9);
    CHECK_EQ(ev.imm, 0x57);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.imm_delivered, 3);
    return 0;
}

/* PROBE_REQ: a SACK with pr = 1, cack, the slice from cack + 1, the PETH timestamp echoed (P4) */
static int t_rsp_probe_answer(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[8] = {0}, pkt[128];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 3);
    mrc_pkt k;
    mrc_txinfo ti;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTR, 0x20, 0), MRC_OK);
    ut_data_init(&d, f, 0x22, 3, p, sizeof p); /* a hole at 0x20, 0x21 */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x1F, 3, 1, 0x4, 3, 1, "data"));
    n = ut_build_probe(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), 0x30, 0x4242);
    ri = ut_ri(2, 0xBEEF);
    ri.ecn = 3;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x1F, 0, 1, 0x4, 0xBEEF, 2, "probe answer"));
    CHECK_EQ(k.seth.pr, 1);
    CHECK_EQ(k.seth.m, MRC_M_SKIP_ONCE); /* the probe arrived CE-marked */
    CHECK_EQ(k.cc.tx_timestamp, 0x4242);
    CHECK_EQ(k.cc.ooo_count, 1);
    UT_TRY(ut_expect_nothing(f, "one answer"));
    /* acknowledgements are for RTS only */
    n = ut_build_sack(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, 0, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_ACK_STALE, "SACK to RTR"));
    n = ut_build_nack(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, 0, MRC_NACK_UNEXP_EVENT, 0);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_ACK_STALE, "UNEXP_EVENT NACK to RTR"));
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTR);
    return 0;
}

/* SETH mpr: mpr_dest when the connection has MRC_CAP_DYNAMIC_MPR, else 0 = ignore (Q9) */
static int t_rsp_sack_mpr_advertised(void) {
    ut_fix *f = &ut_fx;
    uint8_t pkt[128];
    mrc_rxinfo ri = ut_ri(1, 8);
    mrc_pkt k;
    mrc_txinfo ti;
    unsigned cap;
    size_t n;
    for (cap = 0; cap < 2; cap++) {
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 0x10, 0), MRC_OK);
        f->attr.caps = cap ? MRC_CAP_DYNAMIC_MPR : 0;
        f->attr.mpr_dest = 3;
        CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
        n = ut_data_pkt(f, pkt, sizeof pkt, 0x10, 1, 1, 0);
        CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
        UT_TRY(ut_expect_sack(f, &k, &ti, 0x10, 0, 1, 0, 8, 1, "SACK"));
        CHECKF(k.seth.mpr == (cap ? 3 : 0), "caps 0x%X: SETH mpr %u", (unsigned)f->attr.caps, k.seth.mpr);
    }
    return 0;
}

/* poll_tx: MRC_TX_COPY into a buffer too small for the whole packet consumes nothing; without MRC_TX_COPY the
 * payload points into the posted buffer at the packet's offset */
static int t_ep_poll_tx_copy_nobuf(void) {
    ut_fix *f = &ut_fx;
    static uint8_t buf[600];
    mrc_txinfo ti;
    mrc_pkt k;
    mrc_endpoint_stats st;
    int n;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, 0x20), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 300, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, 36 + 255, MRC_TX_COPY, &ti, f->now), MRC_ERR_NOBUF);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, MRC_HDR_MAX, MRC_TX_COPY, &ti, f->now), MRC_ERR_NOBUF);
    n = mrc_endpoint_poll_tx(&f->ep, buf, 36 + 256, MRC_TX_COPY, &ti, f->now);
    CHECK_EQ(n, 36 + 256);
    CHECK_EQ(mrc_pkt_decode(buf, (size_t)n, &f->cfg.wire, &k), MRC_OK);
    CHECK_EQ(k.bth.psn, 0x20); /* the refused attempts consumed no PSN */
    CHECK(ti.payload == buf + 36);
    CHECK(memcmp(buf + 36, ut_src, 256) == 0);
    n = mrc_endpoint_poll_tx(&f->ep, buf, MRC_HDR_MAX, 0, &ti, f->now); /* headers only */
    CHECK_EQ(n, 36);
    CHECK_EQ(mrc_pkt_decode(buf, (size_t)n, &f->cfg.wire, &k), MRC_OK);
    CHECK_EQ(k.bth.psn, 0x21);
    CHECK(ti.payload == ut_src + 256);
    CHECK_EQ(ti.payload_len, 44);
    CHECK_EQ(ti.pad, 0);
    mrc_endpoint_stats_get(&f->ep, &st);
    CHECK_EQ(st.tx_pkts, 2);
    CHECK_EQ(st.tx_bytes, 36 + 256 + 36 + 44);
    return 0;
}

/* ================================================================================================================
 * more responder behaviour: SACK coalescing and timing (Q6, P7), transport ACKs, reply port (Q19), control queue
 * ============================================================================================================== */

static int t_rsp_sack_coalescing(void) {
    ut_fix *f = &ut_fx;
    uint8_t pkt[256];
    mrc_rxinfo ri;
    mrc_pkt k;
    mrc_txinfo ti;
    uint32_t i;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    /* three in-order arrivals, nothing polled in between: the newer plain SACK replaces the older */
    for (i = 0; i < 3; i++) {
        n = ut_data_pkt(f, pkt, sizeof pkt, 0x10 + i, (uint16_t)(1 + i), 0, 0);
        ri = ut_ri(1, 0x100 + i);
        CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    }
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x12, 0, 1, 0, 0x102, 1, "coalesced"));
    UT_TRY(ut_expect_nothing(f, "one SACK for three"));
    /* a SKIP_ONCE SACK is never merged, nor merged into */
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x13, 4, 0, 0);
    ri = ut_ri(1, 0x200);
    ri.ecn = 3;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x14, 5, 0, 0);
    ri = ut_ri(1, 0x201);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x15, 6, 0, 0);
    ri = ut_ri(1, 0x202);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    /* contents are computed when built: cack is already 0x15 for the first */
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x15, -2, 1, 0, 0x200, 1, "CE SACK"));
    CHECK_EQ(k.seth.m, MRC_M_SKIP_ONCE);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x15, 0, 1, 0, 0x202, 1, "plain SACK after it"));
    CHECK_EQ(k.seth.m, MRC_M_NONE);
    UT_TRY(ut_expect_nothing(f, "two SACKs"));
    /* a NACK between two plain SACKs keeps all three */
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x16, 7, 0, 0);
    ri = ut_ri(1, 0x300);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x17, 8, 0, 0);
    ri = ut_ri(1, 0x301);
    ri.flags = MRC_RX_TRIMMED;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_ERR_DROP);
    ri.flags = 0;
    ri.ev = 0x302;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x17, -1, 1, 0, 0x300, 1, "SACK before the NACK"));
    CHECK_EQ(ut_poll(f, pkt, sizeof pkt, &ti, &k), MRC_BTH_LEN + MRC_NETH_LEN);
    CHECK_EQ(k.bth.opcode, MRC_OP_NACK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x17, 0, 1, 0, 0x302, 1, "SACK after the NACK"));
    UT_TRY(ut_expect_nothing(f, "three packets"));
    return 0;
}

/* A burst received before poll_tx (a NIC or socket batch): SACKs queued for packets in different 64-PSN slices are
 * not merged away, so every packet that arrived beyond a hole is reported by some SACK's bitmap. (Coalescing them all
 * into the newest lost the older slices: the requester then retransmitted packets that had arrived.) */
static int t_rsp_sack_burst_keeps_slices(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    uint8_t pkt[256];
    mrc_rxinfo ri = ut_ri(1, 0x55);
    mrc_pkt k;
    mrc_txinfo ti;
    uint8_t seen[128], ord[127];
    unsigned i, round, sacks;
    uint32_t x = 0x9E3779B9u;
    int n;
    /* arrivals in PSN order, then shuffled within blocks of 16 (as spraying over paths of unequal delay does: later
     * SACKs name lower PSNs too). A shuffle of the whole window can need more than MRC_CTLQ_LEN SACKs; then the
     * newest state wins (documented in PROTOCOL.md). */
    for (round = 0; round < 2; round++) {
        for (i = 1; i < 127; i++) ord[i] = (uint8_t)i;
        for (i = 126; round && i > 1; i--) {
            unsigned r, blk = (i - 1u) & ~15u;
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            r = 1u + blk + x % (i - blk);
            { uint8_t tmp = ord[i]; ord[i] = ord[r]; ord[r] = tmp; }
        }
        ut_cfg(&cfg);
        CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x10, 0), MRC_OK);
        memset(seen, 0, sizeof seen);
        sacks = 0;
        for (i = 1; i < 127; i++) { /* PSN 0x10 is lost: 0x11 .. 0x8E arrive in one burst (the MPR window is 128) */
            size_t len = ut_data_pkt(f, pkt, sizeof pkt, 0x10u + ord[i], (uint16_t)(1u + ord[i]), 0, 0);
            int rc = mrc_endpoint_recv(&f->ep, pkt, len, &ri, f->now);
            CHECKF(rc == MRC_OK, "round %u PSN 0x%X: recv %d", round, 0x10u + ord[i], rc);
        }
        while ((n = ut_poll(f, pkt, sizeof pkt, &ti, &k)) > 0) {
            unsigned b;
            if (k.bth.opcode != MRC_OP_SACK) continue;
            sacks++;
            CHECK_EQ(k.seth.cack_psn, 0x0Fu);
            for (b = 0; b < 64; b++)
                if (k.seth.sack_bitmap >> b & 1u) {
                    int32_t off = mrc_psn_diff(mrc_psn_add(k.seth.cack_psn, k.seth.sack_offset + (int32_t)b), 0x10u);
                    CHECKF(off >= 1 && off < 127, "round %u: SACK %u reports PSN offset %d, which never arrived",
                           round, sacks, off);
                    seen[off] = 1;
                }
        }
        for (i = 1; i < 127; i++)
            CHECKF(seen[i], "round %u: PSN 0x%X arrived but none of the %u SACKs reported it", round, 0x10u + i, sacks);
        CHECKF(sacks >= 2 && sacks <= MRC_CTLQ_LEN, "round %u: %u SACKs for 126 packets over 2 slices", round, sacks);
        note("126 packets behind a hole in one burst (%s): %u SACKs report them all", round ? "shuffled" : "in order",
             sacks);
    }
    return 0;
}

static int t_rsp_sack_every_and_delay(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    uint8_t pkt[256];
    mrc_rxinfo ri = ut_ri(1, 0x55);
    mrc_pkt k;
    mrc_txinfo ti;
    mrc_time t1;
    size_t n;
    ut_cfg(&cfg);
    cfg.ack.sack_every = 3;
    cfg.ack.sack_delay_ns = 4000;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x10, 1, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "1 of 3"));
    CHECK(mrc_endpoint_next_deadline(&f->ep) == f->now + 4000);
    t1 = f->now;
    f->now += 1000;
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x11, 2, 0, 0);
    ri.ev = 0x56;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "2 of 3"));
    CHECK(mrc_endpoint_next_deadline(&f->ep) == t1 + 4000); /* the timer started with the first */
    f->now = t1 + 3999;
    CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "before the delay"));
    f->now = t1 + 4000;
    CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x11, 0, 1, 0, 0x56, 1, "timer SACK names the latest"));
    CHECK_EQ(k.seth.m, MRC_M_NONE);
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    /* the third of three goes at once */
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x12, 3, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x13, 4, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "2 of 3 again"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x14, 5, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x14, 0, 1, 0, 0x56, 1, "sack_every"));
    UT_TRY(ut_expect_nothing(f, "sack_every"));
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    /* at once: rtx, a, out of order, a filled hole, CE */
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x15, 6, 0, 1);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x15, 0, 1, 0, 0x56, 1, "rtx"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x16, 7, 1, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x16, 0, 1, 0, 0x56, 1, "a"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x18, 9, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x16, 2, 1, 0x2, 0x56, 1, "out of order"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x17, 8, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x18, -1, 1, 0, 0x56, 1, "hole filled"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x19, 10, 0, 0);
    ri.ecn = 3;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x19, 0, 1, 0, 0x56, 1, "CE"));
    CHECK_EQ(k.seth.m, MRC_M_SKIP_ONCE);
    UT_TRY(ut_expect_nothing(f, "end"));
    return 0;
}

/* tack_every = 2: a positive transport ACK (0x1F, msn = messages completed) after every second message */
static int t_rsp_tack_every(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    uint8_t pkt[512], p[300];
    ut_data d;
    mrc_rxinfo ri = ut_ri(2, 0x66);
    mrc_pkt k;
    mrc_txinfo ti;
    mrc_conn_stats cs;
    size_t n;
    ut_cfg(&cfg);
    cfg.ack.tack_every = 2;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    ut_fill(p, sizeof p, 5);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x10, 1, 1, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x10, 0, 1, 0, 0x66, 2, "message 1"));
    UT_TRY(ut_expect_nothing(f, "no ACK after one message"));
    ut_data_init(&d, f, 0x11, 2, p, 256);
    d.op = MRC_OP_WRITE_FIRST;
    d.dma_len = 300;
    d.a = 0;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x11, 0, 1, 0, 0x66, 2, "message 2 first packet"));
    UT_TRY(ut_expect_nothing(f, "message 2 incomplete"));
    ut_data_init(&d, f, 0x12, 2, p + 256, 44);
    d.op = MRC_OP_WRITE_LAST;
    d.dma_len = 300;
    d.va = UT_IOVA + 256;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x12, 0, 1, 0, 0x66, 2, "message 2 last packet"));
    CHECK_EQ(ut_poll(f, pkt, sizeof pkt, &ti, &k), MRC_BTH_LEN + MRC_AETH_LEN);
    CHECK_EQ(k.bth.opcode, MRC_OP_ACK);
    CHECK_EQ(k.aeth.syndrome, MRC_AETH_ACK);
    CHECK_EQ(k.aeth.msn, 2);
    CHECK_EQ(k.bth.psn, 0x12);
    CHECK_EQ(ti.port, 2);
    CHECK_EQ(ti.ev, 0x66);
    UT_TRY(ut_expect_nothing(f, "one ACK"));
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.tx_tack, 1);
    return 0;
}

/* replies leave on the arrival port, or on the lowest port that is up, with the same EV (Q19) */
static int t_rsp_reply_port_fallback(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    uint8_t pkt[256];
    mrc_rxinfo ri;
    mrc_pkt k;
    mrc_txinfo ti;
    size_t n;
    ut_cfg(&cfg);
    cfg.num_ports = 4;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 1, false, f->now), MRC_OK);
    UT_TRY(ut_expect_psu(f, 3, 0xE, "port 1 down"));
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 4, false, f->now), MRC_OK);
    UT_TRY(ut_expect_psu(f, 2, 0x6, "port 4 down"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x10, 1, 1, 0);
    ri = ut_ri(4, 0x44);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x10, 0, 1, 0, 0x44, 2, "port 4 down: port 2"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x11, 2, 1, 0);
    ri = ut_ri(3, 0x33);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x11, 0, 1, 0, 0x33, 3, "port 3 up"));
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 2, false, f->now), MRC_OK);
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 3, false, f->now), MRC_OK); /* port 2's PSU, queued for port 3, is lost */
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x12, 3, 1, 0);
    ri = ut_ri(2, 0x22);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "every port down"));
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 4, true, f->now), MRC_OK);
    UT_TRY(ut_expect_psu(f, 1, 0x8, "port 4 back"));
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x12, 0, 1, 0, 0x22, 4, "port 4 back"));
    return 0;
}

/* control packets beyond MRC_CTLQ_LEN are dropped and counted */
static int t_rsp_ctlq_overflow(void) {
    ut_fix *f = &ut_fx;
    uint8_t pkt[256];
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_endpoint_stats st;
    mrc_pkt k;
    mrc_txinfo ti;
    unsigned i;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    ri.flags = MRC_RX_TRIMMED;
    for (i = 0; i < MRC_CTLQ_LEN + 3; i++) {
        n = ut_data_pkt(f, pkt, sizeof pkt, 0x10 + i, (uint16_t)(1 + i), 1, 0);
        CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_ERR_DROP);
    }
    mrc_endpoint_stats_get(&f->ep, &st);
    CHECK_EQ(st.ctlq_overflow, 3);
    CHECK_EQ(st.drop[MRC_DROP_TRIMMED], MRC_CTLQ_LEN + 3);
    for (i = 0; i < MRC_CTLQ_LEN; i++) {
        CHECK_EQ(ut_poll(f, pkt, sizeof pkt, &ti, &k), MRC_BTH_LEN + MRC_NETH_LEN);
        CHECK_EQ(k.neth.nack_psn, 0x10 + i); /* oldest first */
    }
    UT_TRY(ut_expect_nothing(f, "queue drained"));
    return 0;
}

const test_entry test_responder[] = {
    {"rsp_write_placed_and_sacked", t_rsp_write_placed_and_sacked},
    {"rsp_write_bounds_ok", t_rsp_write_bounds_ok},
    {"rsp_oob_write_rejected", t_rsp_oob_write_rejected},
    {"rsp_duplicate_not_replaced", t_rsp_duplicate_not_replaced},
    {"rsp_psn_window", t_rsp_psn_window},
    {"rsp_trimmed_nacked", t_rsp_trimmed_nacked},
    {"rsp_trimmed_into_headers", t_rsp_trimmed_into_headers},
    {"rsp_drop_counters", t_rsp_drop_counters},
    {"rsp_place_hook", t_rsp_place_hook},
    {"rsp_wimm_overflow", t_rsp_wimm_overflow},
    {"rsp_wimm_order_reverse", t_rsp_wimm_order_reverse},
    {"rsp_imm_waits_for_recv", t_rsp_imm_waits_for_recv},
    {"rsp_probe_answer", t_rsp_probe_answer},
    {"rsp_sack_mpr_advertised", t_rsp_sack_mpr_advertised},
    {"ep_poll_tx_copy_nobuf", t_ep_poll_tx_copy_nobuf},
    {"rsp_sack_coalescing", t_rsp_sack_coalescing},
    {"rsp_sack_every_and_delay", t_rsp_sack_every_and_delay},
    {"rsp_sack_burst_keeps_slices", t_rsp_sack_burst_keeps_slices},
    {"rsp_tack_every", t_rsp_tack_every},
    {"rsp_reply_port_fallback", t_rsp_reply_port_fallback},
    {"rsp_ctlq_overflow", t_rsp_ctlq_overflow},
    {NULL, NULL},
};
