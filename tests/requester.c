/* tests/requester.c - the requester: its packets drained and checked (segmentation, windows), hand-built SACK / NACK / AETH
 * fed back; then time never running backwards (P15), tail-loss probe timing (P4), the RTO schedule, losses from SACK
 * holes and ports going down. On the one-endpoint fixture of tests/util.c (ut_fix), no wire.
 */
#include "test.h"

/* ================================================================================================================
 * 9. requester: drain its packets, feed it hand-built SACK / NACK / AETH
 * ============================================================================================================== */

/* segmentation: METH/RETH on every packet, VA advanced per packet, a on the last, TSETH, ImmDt, se, PSN wrap */
static int t_req_segmentation(void) {
    ut_fix *f = &ut_fx;
    mrc_write w;
    const uint64_t va = 0x00007F0000001000ull;
    uint16_t ts = (uint16_t)((UT_T0 >> 7) & 0xFFFFu);
    uint32_t ev1 = 0, ev2 = 0;
    mrc_conn_stats cs;
    mrc_config cfg;
    int n, i;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, 0xFFFFFF), MRC_OK);
    w = ut_wr(1, MRC_WR_WRITE, ut_src, 601, va, MRC_WR_SOLICITED); /* se only goes with ImmDt */
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    w = ut_wr(2, MRC_WR_WRITE_IMM, ut_src + 1000, 10, va + 0x10000, MRC_WR_SOLICITED);
    w.imm = 0xFEEDFACEu;
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    w = ut_wr(3, MRC_WR_WRITE, NULL, 0, va + 0x20000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    n = ut_drain(f, ut_txs, 20);
    CHECK_EQ(n, 5);
    {
        static const struct {
            unsigned op, plen, pad, a, msn, rqmsn, hl;
            uint32_t psn, src_off;
            uint64_t va_off;
        } want[5] = {
            {MRC_OP_WRITE_FIRST, 256, 0, 0, 1, 0, 36, 0xFFFFFF, 0, 0},
            {MRC_OP_WRITE_MIDDLE, 256, 0, 0, 1, 0, 36, 0x000000, 256, 256},
            {MRC_OP_WRITE_LAST, 89, 3, 1, 1, 0, 36, 0x000001, 512, 512},
            {MRC_OP_WRITE_ONLY_IMM, 10, 2, 1, 2, 0, 40, 0x000002, 1000, 0x10000},
            {MRC_OP_WRITE_ONLY, 0, 0, 1, 3, 1, 36, 0x000003, 0, 0x20000},
        };
        for (i = 0; i < n; i++) {
            const ut_tx *t = &ut_txs[i];
            const mrc_pkt *k = &t->k;
            CHECKF(k->bth.opcode == want[i].op && t->ti.opcode == want[i].op, "packet %d: opcode 0x%02X", i,
                   k->bth.opcode);
            CHECKF(k->bth.psn == want[i].psn, "packet %d: psn 0x%X, want 0x%X", i, (unsigned)k->bth.psn,
                   (unsigned)want[i].psn);
            CHECKF(k->payload_len == want[i].plen && t->ti.payload_len == want[i].plen, "packet %d: payload %u", i,
                   (unsigned)k->payload_len);
            CHECKF(k->bth.pad == want[i].pad && t->ti.pad == want[i].pad && t->pad_zero, "packet %d: pad %u", i,
                   k->bth.pad);
            CHECKF(k->bth.a == want[i].a, "packet %d: a %u", i, k->bth.a);
            CHECK_EQ(k->hdr_len, want[i].hl);
            CHECK_EQ(t->ti.hdr_len, want[i].hl);
            CHECK_EQ(t->len, (int)(want[i].hl + want[i].plen + want[i].pad));
            CHECK_EQ(k->meth.msn, want[i].msn);
            CHECK_EQ(k->meth.rqmsn, want[i].rqmsn);
            CHECK(k->reth.va == va + want[i].va_off);
            CHECK_EQ(k->reth.dma_len, i < 3 ? 601 : i == 3 ? 10 : 0);
            CHECK_EQ(k->reth.rkey, 0x1234);
            CHECK_EQ(k->bth.rtx, 0);
            CHECK_EQ(k->bth.r, 0);
            CHECK_EQ(k->bth.m, 0);
            CHECK_EQ(k->bth.resv8, 0);
            CHECK_EQ(k->bth.tver, 0);
            CHECK_EQ(k->bth.se, i == 3 ? 1 : 0);
            CHECK_EQ(k->bth.pkey, 0xFFFF);
            CHECK_EQ(k->bth.dest_qp, UT_PEER_QPN);
            CHECK_EQ(k->bth.ts, 1);
            CHECK(k->hdrs & MRC_HDR_TSETH);
            CHECK_EQ(k->tseth.tx_timestamp, ts);
            CHECK_EQ(k->tseth.tsr, 0);
            CHECK_EQ(k->tseth.ftype, 1);
            CHECK_EQ(t->pcrc, ut_crc32_bitwise(0, ut_src + want[i].src_off, want[i].plen));
            CHECK_EQ(t->ti.dscp_class, MRC_DSCP_TRIMMABLE);
            CHECK_EQ(t->ti.dscp, 10);
            CHECK_EQ(t->ti.peer, 0x77);
            CHECK_EQ(t->ti.qpn, mrc_conn_qpn(&f->c));
            /* two EV slots: ports alternate 1, 2, 1, ... and each port keeps its EV value (AUTO range) */
            CHECKF(t->ti.port == 1u + (unsigned)(i & 1), "packet %d on port %u", i, t->ti.port);
            CHECK(t->ti.ev >= 49152 && t->ti.ev <= 65535);
            if (t->ti.port == 1) {
                if (!ev1) ev1 = t->ti.ev;
                CHECK_EQ(t->ti.ev, ev1);
            } else {
                if (!ev2) ev2 = t->ti.ev;
                CHECK_EQ(t->ti.ev, ev2);
            }
        }
        CHECK_EQ(ut_txs[3].k.imm, 0xFEEDFACEu);
        CHECK(ut_txs[3].k.hdrs & MRC_HDR_IMMDT);
    }
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.tx_data, 5);
    CHECK_EQ(cs.tx_bytes, 611);
    /* without TSETH, not trimmable, an ack request every 2nd packet */
    ut_cfg(&cfg);
    cfg.tseth = false;
    cfg.trimmable = false;
    cfg.ack.request_every = 2;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 1, 0x10), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 256 * 5, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 20);
    CHECK_EQ(n, 5);
    for (i = 0; i < n; i++) {
        CHECK_EQ(ut_txs[i].k.bth.ts, 0);
        CHECK_EQ(ut_txs[i].k.hdr_len, 32);
        CHECK(!(ut_txs[i].k.hdrs & MRC_HDR_TSETH));
        CHECK_EQ(ut_txs[i].ti.dscp_class, MRC_DSCP_NO_TRIM);
        CHECK_EQ(ut_txs[i].ti.dscp, 12);
        CHECKF(ut_txs[i].k.bth.a == (unsigned)(i & 1), "packet %d: a %u with ack_req_every 2", i,
               ut_txs[i].k.bth.a);
    }
    return 0;
}

/* the requester sends up to W = mpr * 128 PSNs past cack; max_wimm caps Write-IMMs started and incomplete */
static int t_req_window_and_wimm_limits(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x1000;
    int n;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 256 * 140, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 300);
    CHECK_EQ(n, 128);
    CHECK_EQ(ut_txs[127].k.bth.psn, sq + 127);
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, ut_txs[0].ti.ev, 0), MRC_OK); /* one more PSN of room */
    n = ut_drain(f, ut_txs, 300);
    CHECK_EQ(n, 1);
    CHECK_EQ(ut_txs[0].k.bth.psn, sq + 128);
    CHECK_EQ(ut_feed_sack(f, sq + 10, 0, 0, 0, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 300);
    CHECK_EQ(n, 10);
    CHECK_EQ(ut_txs[9].k.bth.psn, sq + 138);

    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 1, sq), MRC_OK);
    f->attr.max_wimm = 1;
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE_IMM, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE_IMM, ut_src, 10, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 10);
    CHECK_EQ(n, 1);
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, 0, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 10);
    CHECK_EQ(n, 1);
    CHECK_EQ(ut_txs[0].k.meth.rqmsn, 1);
    CHECK_EQ(ut_txs[0].k.meth.msn, 2);
    return 0;
}

/* every retriable NACK: that PSN again at once, rtx = 1, on the other EV, before pending new data */
static int t_req_nack_retransmits(void) {
    static const unsigned reasons[6] = {MRC_NACK_TRIMMED, MRC_NACK_TRIMMED_LASTHOP, MRC_NACK_NO_BITMAP,
                                        MRC_NACK_NO_PKT_BUFFER, MRC_NACK_NO_RESOURCE, MRC_NACK_PSN_OOR_WINDOW};
    ut_fix *f = &ut_fx;
    unsigned i;
    ut_src_init();
    for (i = 0; i < 6; i++) {
        const uint32_t sq = 0x50;
        unsigned r = reasons[i];
        int trim = r == MRC_NACK_TRIMMED || r == MRC_NACK_TRIMMED_LASTHOP, n;
        ut_tx orig[4];
        mrc_conn_stats cs;
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
        CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 1024, 0), MRC_OK);
        n = ut_drain(f, orig, 4);
        CHECK_EQ(n, 4);
        CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 100, 0), MRC_OK); /* new data waiting */
        f->now += 5000;
        /* PSN sq + 2 went on slot 0, which is also the next round-robin pick: only the avoid rule moves it */
        CHECKF(ut_feed_nack(f, sq + 2, r, orig[2].k.tseth.tx_timestamp) == MRC_OK, "%s: NACK refused",
               mrc_nack_name(r));
        n = ut_drain(f, ut_txs, 1);
        CHECKF(n == 1, "%s: nothing sent after the NACK", mrc_nack_name(r));
        CHECKF(ut_txs[0].k.bth.psn == sq + 2, "%s: sent psn 0x%X first, want the NACKed 0x%X", mrc_nack_name(r),
               (unsigned)ut_txs[0].k.bth.psn, (unsigned)(sq + 2));
        CHECKF(ut_txs[0].k.bth.rtx == 1, "%s: rtx bit clear", mrc_nack_name(r));
        CHECK_EQ(ut_txs[0].k.bth.opcode, MRC_OP_WRITE_MIDDLE);
        CHECK(ut_txs[0].k.reth.va == orig[2].k.reth.va);
        CHECK_EQ(ut_txs[0].k.meth.msn, orig[2].k.meth.msn);
        CHECK_EQ(ut_txs[0].pcrc, orig[2].pcrc);
        CHECKF(ut_txs[0].ti.port != orig[2].ti.port && ut_txs[0].ti.ev == orig[1].ti.ev,
               "%s: retransmitted on port %u ev 0x%X; original port %u ev 0x%X (other slot: port %u ev 0x%X)",
               mrc_nack_name(r), ut_txs[0].ti.port, (unsigned)ut_txs[0].ti.ev, orig[2].ti.port,
               (unsigned)orig[2].ti.ev, orig[1].ti.port, (unsigned)orig[1].ti.ev);
        CHECK_EQ(ut_txs[0].ti.dscp_class, MRC_DSCP_TRIMMABLE_RETX);
        CHECK_EQ(ut_txs[0].ti.dscp, 14);
        CHECK_EQ(ut_txs[0].k.tseth.tx_timestamp, (uint16_t)((f->now >> 7) & 0xFFFFu)); /* a new timestamp */
        n = ut_drain(f, ut_txs, 5);
        CHECK_EQ(n, 1);
        CHECK_EQ(ut_txs[0].k.bth.psn, sq + 4); /* then the new data */
        CHECK_EQ(ut_txs[0].k.bth.rtx, 0);
        mrc_conn_stats_get(&f->c, &cs);
        CHECK_EQ(cs.rx_nack, 1);
        CHECK_EQ(cs.rx_nack_reason[r], 1);
        CHECK_EQ(cs.tx_rtx, 1);
        CHECK_EQ(cs.rtx_nack, 1);
        CHECK_EQ(cs.ev_trims, trim ? 1 : 0);
        CHECK_EQ(cs.ev_losses, 0);
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
        UT_TRY(ut_expect_no_event(&f->ep, mrc_nack_name(r)));
    }
    return 0;
}

/* NACK losses go to the front of the retransmit queue (P3): the later NACK is served first */
static int t_req_nack_front_of_queue(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x150;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 1024, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 8), 4);
    CHECK_EQ(ut_feed_nack(f, sq + 1, MRC_NACK_NO_RESOURCE, ut_txs[1].k.tseth.tx_timestamp), MRC_OK);
    CHECK_EQ(ut_feed_nack(f, sq + 3, MRC_NACK_TRIMMED, ut_txs[3].k.tseth.tx_timestamp), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 8), 2);
    CHECKF(ut_txs[0].k.bth.psn == sq + 3 && ut_txs[1].k.bth.psn == sq + 1,
           "retransmitted 0x%X then 0x%X, want 0x%X then 0x%X", (unsigned)ut_txs[0].k.bth.psn,
           (unsigned)ut_txs[1].k.bth.psn, (unsigned)(sq + 3), (unsigned)(sq + 1));
    CHECK(ut_txs[0].k.bth.rtx && ut_txs[1].k.bth.rtx);
    return 0;
}

/* a NACK echoing the timestamp of a transmission already superseded by a retransmission is stale */
static int t_req_nack_superseded(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x60;
    uint16_t ts0, ts1;
    uint8_t p[64];
    size_t n;
    mrc_rxinfo ri = ut_ri(1, 1);
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 512, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 4), 2);
    ts0 = ut_txs[0].k.tseth.tx_timestamp;
    f->now += 10000;
    CHECK_EQ(ut_feed_nack(f, sq, MRC_NACK_TRIMMED, ts0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 4), 1);
    CHECK_EQ(ut_txs[0].k.bth.rtx, 1);
    ts1 = ut_txs[0].k.tseth.tx_timestamp;
    CHECK(ts1 != ts0);
    f->now += 10000;
    n = ut_build_nack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), sq, sq, MRC_NACK_TRIMMED, ts0);
    UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, MRC_DROP_ACK_STALE, "NACK of the superseded transmission"));
    UT_TRY(ut_expect_nothing(f, "stale NACK"));
    CHECK_EQ(ut_feed_nack(f, sq, MRC_NACK_TRIMMED, ts1), MRC_OK); /* the NACK of the retransmission counts */
    CHECK_EQ(ut_drain(f, ut_txs, 4), 1);
    CHECK_EQ(ut_txs[0].k.bth.psn, sq);
    CHECK_EQ(ut_txs[0].k.bth.rtx, 1);
    return 0;
}

/* UNEXP_EVENT: the connection goes to ERR with MRC_ERR_REMOTE_OP; everything outstanding flushes */
static int t_req_nack_unexp_event(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x70;
    unsigned part;
    mrc_event ev;
    ut_src_init();
    for (part = 0; part < 2; part++) {
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
        CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
        CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, MRC_WR_UNSIGNALED), MRC_OK);
        CHECK_EQ(ut_drain(f, ut_txs, 4), 2);
        /* part 1: a PSN never sent is dropped as bogus first (P18), then an outstanding one errors */
        if (part) CHECK_EQ(ut_feed_nack(f, sq + 50, MRC_NACK_UNEXP_EVENT, 0), MRC_ERR_DROP);
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
        CHECK_EQ(ut_feed_nack(f, sq + 1, MRC_NACK_UNEXP_EVENT, 0), MRC_OK);
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_ERR);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, MRC_ERR_REMOTE_OP, &ev, "UNEXP_EVENT"));
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W1"));
        CHECK_EQ(ev.wr_id, 1);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W2"));
        CHECK_EQ(ev.wr_id, 2);
        UT_TRY(ut_expect_no_event(&f->ep, "UNEXP_EVENT"));
        UT_TRY(ut_expect_nothing(f, "UNEXP_EVENT"));
    }
    return 0;
}

static int t_req_nack_bogus_and_stale(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x000002;
    uint8_t p[64];
    size_t n;
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_conn_stats cs;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 512, 0), MRC_OK); /* PSNs sq, sq + 1 */
    CHECK_EQ(ut_drain(f, ut_txs, 4), 2);
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, 0, 0), MRC_OK);
#define UT_NACK_DROP(psn, reason, why, what)                                                        \
    do {                                                                                            \
        n = ut_build_nack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), (psn), (psn), (reason), 0);         \
        UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, (why), (what)));                                 \
        UT_TRY(ut_expect_nothing(f, (what)));                                                       \
    } while (0)
    UT_NACK_DROP(sq + 1, 0x05, MRC_DROP_ACK_BOGUS, "unknown reason 0x05");
    UT_NACK_DROP(sq + 1, 0x00, MRC_DROP_ACK_BOGUS, "unknown reason 0x00");
    UT_NACK_DROP(sq + 1, 0xFF, MRC_DROP_ACK_BOGUS, "unknown reason 0xFF");
    UT_NACK_DROP(sq + 2, MRC_NACK_TRIMMED, MRC_DROP_ACK_BOGUS, "never sent: snd_nxt");
    UT_NACK_DROP(sq + 100, MRC_NACK_NO_RESOURCE, MRC_DROP_ACK_BOGUS, "never sent: far ahead");
    UT_NACK_DROP(sq, MRC_NACK_TRIMMED, MRC_DROP_ACK_STALE, "already acknowledged");
    UT_NACK_DROP((sq - 1) & MRC_PSN_MASK, MRC_NACK_TRIMMED, MRC_DROP_ACK_STALE, "before the window");
    UT_NACK_DROP((sq - 0x400000) & MRC_PSN_MASK, MRC_NACK_TRIMMED, MRC_DROP_ACK_STALE, "far behind");
#undef UT_NACK_DROP
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rx_nack_reason[5], 1); /* counted per reason even when dropped */
    CHECK_EQ(cs.tx_rtx, 0);
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    CHECK_EQ(ut_feed_nack(f, sq + 1, MRC_NACK_TRIMMED, 0), MRC_OK); /* the one good NACK */
    CHECK_EQ(ut_drain(f, ut_txs, 4), 1);
    CHECK_EQ(ut_txs[0].k.bth.psn, sq + 1);
    return 0;
}

static int t_req_sack_bogus(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0xFFFFFE;
    uint8_t p[64];
    size_t n;
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_event ev;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 1024, 0), MRC_OK); /* 0xFFFFFE .. 0x000001 */
    CHECK_EQ(ut_drain(f, ut_txs, 8), 4);
    n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), 2, 2, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, MRC_DROP_ACK_BOGUS, "cack = snd_nxt"));
    n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), 0x100, 0x100, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, MRC_DROP_ACK_BOGUS, "cack far beyond snd_nxt"));
    n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, 1, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, MRC_DROP_MALFORMED, "cack != BTH psn"));
    UT_TRY(ut_expect_no_event(&f->ep, "after bogus SACKs"));
    CHECK_EQ(ut_feed_sack(f, 1, 0, 0, 0, 0), MRC_OK); /* the last PSN sent */
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "all acked"));
    CHECK_EQ(ev.wr_id, 1);
    CHECK_EQ(ev.byte_len, 1024);
    CHECK_EQ(ut_feed_sack(f, 0xFFFFFF, 0, 0, 0, 0), MRC_OK); /* an older SACK overtaken: harmless */
    UT_TRY(ut_expect_no_event(&f->ep, "old SACK"));
    return 0;
}

static int t_req_aeth_nak(void) {
    static const struct {
        unsigned syn;
        int status;
    } cs[3] = {{MRC_AETH_NAK_INV_REQ, MRC_ERR_REMOTE_INVAL},
               {MRC_AETH_NAK_REM_ACCESS, MRC_ERR_REMOTE_ACCESS},
               {MRC_AETH_NAK_REM_OP, MRC_ERR_REMOTE_OP}};
    ut_fix *f = &ut_fx;
    unsigned i;
    ut_src_init();
    for (i = 0; i < 3; i++) {
        mrc_event ev;
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, 0x80), MRC_OK);
        CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
        CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, MRC_WR_UNSIGNALED), MRC_OK);
        CHECK_EQ(ut_post(f, 3, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
        CHECK_EQ(ut_drain(f, ut_txs, 8), 3);
        CHECK_EQ(ut_post(f, 4, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* not sent */
        CHECKF(ut_feed_aeth(f, cs[i].syn, 2) == MRC_OK, "NAK 0x%02X refused", cs[i].syn);
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_ERR);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, cs[i].status, &ev, "NAK"));
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W1"));
        CHECK_EQ(ev.wr_id, 1);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, cs[i].status, &ev, "W2, named by the NAK"));
        CHECK_EQ(ev.wr_id, 2);
        CHECK_EQ(ev.byte_len, 0);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W3"));
        CHECK_EQ(ev.wr_id, 3);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W4"));
        CHECK_EQ(ev.wr_id, 4);
        UT_TRY(ut_expect_no_event(&f->ep, "after the NAK"));
        UT_TRY(ut_expect_nothing(f, "after the NAK"));
    }
    return 0;
}

static int t_req_aeth_bogus(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x90;
    uint8_t p[64];
    size_t n;
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_event ev;
    mrc_conn_stats cs;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* msn 1 */
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* msn 2 */
    CHECK_EQ(ut_drain(f, ut_txs, 8), 2);
    CHECK_EQ(ut_post(f, 3, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* msn 3, not started */
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, 0, 0), MRC_OK);            /* msn 1 complete */
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W1"));
#define UT_AETH_DROP(syn, msn, what)                                                    \
    do {                                                                                \
        n = ut_build_aeth(p, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, (syn), (msn));       \
        UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, MRC_DROP_ACK_BOGUS, (what)));        \
    } while (0)
    UT_AETH_DROP(MRC_AETH_NAK_REM_ACCESS, 9, "NAK naming a message never posted");
    UT_AETH_DROP(MRC_AETH_NAK_REM_ACCESS, 0x1234, "NAK naming msn 0x1234");
    UT_AETH_DROP(MRC_AETH_NAK_REM_ACCESS, 1, "NAK naming a completed message");
    UT_AETH_DROP(MRC_AETH_NAK_REM_ACCESS, 3, "NAK naming a message not started");
    UT_AETH_DROP(MRC_AETH_NAK_PSN_SEQ, 2, "NAK 0x60");
    UT_AETH_DROP(0x64, 2, "NAK code 4");
    UT_AETH_DROP(0x20, 2, "RNR NAK (type 1)");
    UT_AETH_DROP(0x40, 2, "reserved type 2");
    UT_AETH_DROP(MRC_AETH_ACK, 9, "ACK naming a message never posted");
#undef UT_AETH_DROP
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    CHECK_EQ(ut_feed_aeth(f, MRC_AETH_ACK, 2), MRC_OK); /* positive ACK: informational only (Q7) */
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rx_tack, 1);
    UT_TRY(ut_expect_no_event(&f->ep, "a positive ACK completes nothing"));
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    return 0;
}

/* completions in work-request order once every PSN is covered (cumulative or SACK bits), byte_len as posted */
static int t_req_sack_completes_in_order(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0xA0;
    mrc_event ev;
    mrc_conn_stats cs;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 300, 0), MRC_OK);                  /* sq, sq + 1 */
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, MRC_WR_UNSIGNALED), MRC_OK);   /* sq + 2 */
    CHECK_EQ(ut_post(f, 3, MRC_WR_WRITE, NULL, 0, 0), MRC_OK);                      /* sq + 3 */
    CHECK_EQ(ut_post(f, 4, MRC_WR_WRITE, ut_src, 256, 0), MRC_OK);                  /* sq + 4 */
    CHECK_EQ(ut_post(f, 5, MRC_WR_WRITE_IMM, ut_src, 20, 0), MRC_OK);               /* sq + 5 */
    CHECK_EQ(ut_drain(f, ut_txs, 10), 6);
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, 0, 0), MRC_OK); /* half of W1 */
    UT_TRY(ut_expect_no_event(&f->ep, "half a message"));
    CHECK_EQ(ut_feed_sack(f, sq, 5, 0x1F, 0, 0), MRC_OK); /* bits: sq + 1 .. sq + 5 */
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W1"));
    CHECK_EQ(ev.wr_id, 1);
    CHECK_EQ(ev.byte_len, 300);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W3 (W2 unsignaled)"));
    CHECK_EQ(ev.wr_id, 3);
    CHECK_EQ(ev.byte_len, 0);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W4"));
    CHECK_EQ(ev.wr_id, 4);
    CHECK_EQ(ev.byte_len, 256);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W5"));
    CHECK_EQ(ev.wr_id, 5);
    CHECK_EQ(ev.byte_len, 20);
    CHECK(ev.conn == &f->c);
    UT_TRY(ut_expect_no_event(&f->ep, "five messages"));
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.msgs_done, 5);
    CHECK_EQ(cs.rx_sack, 2);
    return 0;
}

/* a SACK bitmap acking a later message but not an earlier one completes nothing */
static int t_req_sack_no_early_completion(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x000000;
    mrc_event ev;
    mrc_conn_stats cs;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* sq */
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* sq + 1 */
    CHECK_EQ(ut_drain(f, ut_txs, 10), 2);
    CHECK_EQ(ut_feed_sack(f, 0xFFFFFF, 2, 0x2, 0, 0), MRC_OK); /* cack = sq - 1, bit for sq + 1 */
    UT_TRY(ut_expect_no_event(&f->ep, "later message acked first"));
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.msgs_done, 0);
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, 0, 0), MRC_OK);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W1"));
    CHECK_EQ(ev.wr_id, 1);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W2"));
    CHECK_EQ(ev.wr_id, 2);
    UT_TRY(ut_expect_no_event(&f->ep, "two messages"));
    return 0;
}

/* ================================================================================================================
 * more requester behaviour: time never runs backwards (P15), tail-loss probe timing (P4)
 * ============================================================================================================== */
static int t_ep_time_monotonic(void) {
    ut_fix *f = &ut_fx;
    uint8_t buf[512];
    mrc_txinfo ti;
    mrc_pkt k;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, 0x10), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK(mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, MRC_TX_COPY, &ti, UT_T0 - 500000) > 0);
    CHECK_EQ(mrc_pkt_decode(buf, ti.hdr_len + ti.payload_len + ti.pad, &f->cfg.wire, &k), MRC_OK);
    CHECK_EQ(k.tseth.tx_timestamp, (uint16_t)((UT_T0 >> 7) & 0xFFFFu)); /* not the earlier time */
    CHECK(mrc_endpoint_next_deadline(&f->ep) >= UT_T0);
    return 0;
}

static int t_req_tail_probe_timing(void) {
    ut_fix *f = &ut_fx;
    mrc_time d1, d2;
    int n;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, 0x40), MRC_OK);
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 4), 1);
    /* defaults, srtt still rtt_init 20 us: the first probe 40 us after the last send, then 80 us */
    d1 = mrc_endpoint_next_deadline(&f->ep);
    CHECKF(d1 == f->now + 40000, "first deadline %llu ns after the send, want 40000",
           (unsigned long long)(d1 - f->now));
    f->now = d1 - 1;
    CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "before the TLP"));
    f->now = d1;
    CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
    n = ut_drain(f, ut_txs, 4);
    CHECK_EQ(n, 2); /* P33: the probe and its copy on another EV */
    CHECK_EQ(ut_txs[0].k.bth.opcode, MRC_OP_PROBE_REQ);
    CHECK_EQ(ut_txs[1].k.bth.opcode, MRC_OP_PROBE_REQ);
    CHECK(ut_txs[1].ti.ev != ut_txs[0].ti.ev || ut_txs[1].ti.port != ut_txs[0].ti.port);
    CHECK_EQ(ut_txs[1].k.peth.probe_id, 2);
    CHECK_EQ(ut_txs[0].k.bth.psn, 0x41); /* the next unsent PSN, not consumed */
    CHECK_EQ(ut_txs[0].k.bth.dest_qp, UT_PEER_QPN);
    CHECK_EQ(ut_txs[0].k.peth.probe_id, 1);
    CHECK_EQ(ut_txs[0].k.peth.tx_timestamp, (uint16_t)((f->now >> 7) & 0xFFFFu));
    CHECK_EQ(ut_txs[0].k.peth.ftype, 1);
    CHECK_EQ(ut_txs[0].k.peth.spdcid, mrc_conn_qpn(&f->c) & 0xFFFFu);
    CHECK_EQ(ut_txs[0].k.peth.dpdcid, UT_PEER_QPN & 0xFFFFu);
    CHECK_EQ(ut_txs[0].ti.dscp_class, MRC_DSCP_CONTROL);
    d2 = mrc_endpoint_next_deadline(&f->ep);
    CHECKF(d2 == d1 + 80000, "second deadline %llu ns after the first, want 80000", (unsigned long long)(d2 - d1));
    /* everything acknowledged: no timer left */
    CHECK_EQ(ut_feed_sack(f, 0x40, 0, 0, 0, 0), MRC_OK);
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    return 0;
}

/* the responder's checks run in the documented order (Q26): the first failing check names the drop */
static int t_rsp_check_order(void) {
    static const char *const names[] = {"ICRC before QPN", "QPN before pkey", "pkey before state",
                                        "duplicate before trim", "window before trim", "length before trim",
                                        "trim before MSN window", "MSN window before WIMM", "WIMM before access",
                                        "MSN window before access", "state before duplicate"};
    static const unsigned want[] = {MRC_DROP_ICRC, MRC_DROP_QPN, MRC_DROP_PKEY, MRC_DROP_DUP, MRC_DROP_PSN_OOR,
                                    MRC_DROP_MALFORMED, MRC_DROP_TRIMMED, MRC_DROP_MSN_OOR, MRC_DROP_WIMM,
                                    MRC_DROP_MSN_OOR, MRC_DROP_STATE};
    ut_fix *f = &ut_fx;
    unsigned i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        uint8_t p[64], pkt[256];
        ut_data d;
        mrc_rxinfo ri = ut_ri(1, 1);
        const uint32_t rq = 0x100;
        unsigned state = (i == 2) ? MRC_QPS_INIT : (i == 10) ? MRC_QPS_ERR : MRC_QPS_RTS;
        mrc_conn *c = (i <= 1) ? NULL : &f->c;
        size_t n;
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, rq, 0), MRC_OK);
        f->attr.max_wimm_dest = 1;
        CHECK_EQ(ut_goto(&f->c, &f->attr, state == MRC_QPS_ERR ? (unsigned)MRC_QPS_RTS : state, f->now), MRC_OK);
        memset(p, 0x5A, sizeof p);
        ut_data_init(&d, f, rq, 1, p, 32);
        switch (i) {
        case 0: ri.flags = MRC_RX_ICRC_BAD; d.qp = 0x777777; break;
        case 1: d.qp = 0x777777; d.pkey = 0x1234; break;
        case 2: d.pkey = 0x1234; break;
        case 3: d.psn = rq - 1; ri.flags = MRC_RX_TRIMMED; break;
        case 4: d.psn = rq + 500; ri.flags = MRC_RX_TRIMMED; break;
        case 5: d.op = MRC_OP_WRITE_FIRST; ri.flags = MRC_RX_TRIMMED; break; /* FIRST with dma_len <= MTU */
        case 6: d.msn = 0; ri.flags = MRC_RX_TRIMMED; break;
        case 7: d.msn = 0; d.op = MRC_OP_WRITE_ONLY_IMM; d.rqmsn = 5; break;
        case 8: d.op = MRC_OP_WRITE_ONLY_IMM; d.rqmsn = 5; d.rkey = 0; break;
        case 9: d.msn = 0; d.rkey = 0; break;
        default: d.psn = rq - 1; break; /* a duplicate, but the conn is in ERR */
        }
        if (state == MRC_QPS_ERR) CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_ERR, f->now), MRC_OK);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, c, pkt, n, &ri, want[i], names[i]));
        CHECK(ut_mem_ok(f, names[i]));
        if (want[i] != MRC_DROP_WIMM && state == MRC_QPS_RTS)
            CHECKF(mrc_conn_state(&f->c) == MRC_QPS_RTS, "%s: the conn left RTS", names[i]);
    }
    return 0;
}

/* the wire options reach the bytes this core sends: tver, m/se order, bitmap order, timestamp unit */
static int t_wire_opts_on_tx(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    static uint8_t buf[512];
    uint8_t p[8] = {1, 2, 3, 4, 5, 6, 7, 8}, pkt[128];
    mrc_txinfo ti;
    mrc_rxinfo ri = ut_ri(1, 2);
    ut_data d;
    unsigned part;
    size_t n;
    int len;
    ut_src_init();
    for (part = 0; part < 2; part++) {
        ut_cfg(&cfg);
        cfg.wire.tver = 5;
        cfg.wire.bth_m_bit = part ? 6 : 7;
        cfg.wire.sack_msb_first = (uint8_t)part;
        cfg.wire.ts_shift = part ? 10 : 7;
        CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x40, 0x10), MRC_OK);
        f->now = 0x123456789ull;
        {
            mrc_write w = ut_wr(1, MRC_WR_WRITE_IMM, ut_src, 10, 0x1000, MRC_WR_SOLICITED);
            CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
        }
        len = mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, MRC_TX_COPY, &ti, f->now);
        CHECK_EQ(len, 40 + 10 + 2);
        CHECK_EQ(buf[0], MRC_OP_WRITE_ONLY_IMM);
        /* byte 1: se (bit 6, or bit 7 with bth_m_bit 6) | pad 2 << 4 | tver 5 */
        CHECKF(buf[1] == (part ? 0xA5 : 0x65), "part %u: BTH byte 1 = 0x%02X", part, buf[1]);
        /* TSETH at byte 16: (now >> ts_shift) mod 2^16 */
        CHECK_EQ(((unsigned)buf[16] << 8 | buf[17]), (unsigned)((f->now >> cfg.wire.ts_shift) & 0xFFFFu));
        /* an arrival with another tver is accepted (tver is ignored on receive); out of order: hole at 0x40 */
        ut_data_init(&d, f, 0x41, 2, p, sizeof p);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        pkt[1] = (uint8_t)((pkt[1] & 0xF0u) | 9u);
        CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
        len = mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, 0, &ti, f->now);
        CHECK_EQ(len, 48);
        CHECK_EQ(buf[0], MRC_OP_SACK);
        CHECK_EQ(buf[1], 0x05); /* tver 5, nothing else */
        /* bitmap: PSN 0x41 = base (0x40) + 1: LSB-first 0x...02, MSB-first 0x40... */
        CHECKF(buf[12 + 20] == (part ? 0x40 : 0x00) && buf[12 + 27] == (part ? 0x00 : 0x02),
               "part %u: bitmap bytes %02X .. %02X", part, buf[32], buf[39]);
    }
    return 0;
}

/* P5's worked example: timeout 8 (T = 262.144 us), retry_linear 7, retry_exp 2: expiries 1-8 after T each, the 9th
 * after 2T, the 10th after 4T ends in MRC_ERR_RETRY_EXC (14T in all); each expiry resends the oldest PSN */
static int t_req_rto_schedule(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    const mrc_time T = 262144;
    const uint32_t sq = 0x300;
    mrc_time start, prev, d;
    mrc_event ev;
    mrc_conn_stats cs;
    unsigned k;
    ut_src_init();
    ut_cfg(&cfg);
    cfg.recovery.tlp_min_ns = 0xFFFFFFFFu; /* keep the tail-loss probe out of the way */
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RESET, 1, sq), MRC_OK);
    f->attr.timeout = 8;
    f->attr.retry_linear = 7;
    f->attr.retry_exp = 2;
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 4), 2);
    start = prev = f->now;
    for (k = 1; k <= 10; k++) {
        mrc_time want = k <= 8 ? T : k == 9 ? 2 * T : 4 * T;
        d = mrc_endpoint_next_deadline(&f->ep);
        CHECKF(d - prev == want, "expiry %u: %llu ns after the previous, want %llu", k, (unsigned long long)(d - prev),
               (unsigned long long)want);
        f->now = d;
        CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
        if (k < 10) {
            CHECKF(ut_drain(f, ut_txs, 4) == 1, "expiry %u: one retransmission", k);
            CHECK_EQ(ut_txs[0].k.bth.psn, sq);
            CHECK_EQ(ut_txs[0].k.bth.rtx, 1);
            CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
            UT_TRY(ut_expect_no_event(&f->ep, "retrying"));
        }
        prev = d;
    }
    CHECK_EQ(prev - start, 14 * T);
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_ERR);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, MRC_ERR_RETRY_EXC, &ev, "retries exhausted"));
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_RETRY_EXC, &ev, "oldest request"));
    CHECK_EQ(ev.wr_id, 1);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "next request"));
    CHECK_EQ(ev.wr_id, 2);
    UT_TRY(ut_expect_no_event(&f->ep, "after RETRY_EXC"));
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rto_fired, 10);
    CHECK_EQ(cs.rtx_rto, 9);
    return 0;
}

/* Q5 / P3: a hole is lost once a transmission sent at least the reordering slack later is acked. Before the first
 * RTT sample slack = max(reorder_slack_min_ns 2000, min RTT / 4); here min RTT = 20 us, so slack = 5 us. */
static int t_req_sack_hole_loss(void) {
    static const mrc_time gaps[2] = {6000, 4000};
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x500;
    unsigned i;
    ut_src_init();
    for (i = 0; i < 2; i++) {
        ut_tx a, b;
        mrc_conn_stats cs;
        int n;
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
        CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
        CHECK_EQ(ut_drain(f, &a, 1), 1);
        f->now += gaps[i];
        CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
        CHECK_EQ(ut_drain(f, &b, 1), 1);
        f->now += 20000;
        /* B (sq + 1) arrived, A (sq) did not */
        CHECK_EQ(ut_feed_sack(f, sq - 1, 2, 0x2, b.ti.ev, b.k.tseth.tx_timestamp), MRC_OK);
        n = ut_drain(f, ut_txs, 4);
        mrc_conn_stats_get(&f->c, &cs);
        if (gaps[i] >= 5000) {
            CHECKF(n == 1, "gap %llu ns: %d packets, want the retransmission of the hole",
                   (unsigned long long)gaps[i], n);
            CHECK_EQ(ut_txs[0].k.bth.psn, sq);
            CHECK_EQ(ut_txs[0].k.bth.rtx, 1);
            CHECK_EQ(cs.rtx_sack_hole, 1);
            CHECK_EQ(cs.ev_losses, 1);
        } else {
            CHECKF(n == 0, "gap %llu ns (< slack): %d packets sent", (unsigned long long)gaps[i], n);
            CHECK_EQ(cs.rtx_sack_hole, 0);
        }
        UT_TRY(ut_expect_no_event(&f->ep, "W2 acked before W1")); /* completions stay in order */
    }
    return 0;
}

/* P9: a SACK's m counts against an EV only when its entropy is the EV the requester used for that PSN */
static int t_req_sack_ev_attribution(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x600;
    uint8_t p[64];
    size_t n;
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_conn_stats cs;
    ut_tx t[2];
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 512, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, t, 2), 2);
    /* names sq with SKIP_ONCE, entropy of the other EV: not attributed */
    n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), sq, sq, 0, 1, 0, t[1].ti.ev ^ 0x10000u, 0, 0);
    p[MRC_BTH_LEN + 1] |= 0x20; /* m = SKIP_ONCE */
    CHECK_EQ(mrc_endpoint_recv(&f->ep, p, n, &ri, f->now), MRC_OK);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.ev_skip_req, 1); /* every skip request is counted... */
    CHECK_EQ(cs.ev_skipped, 0);  /* ...but acts only on the EV the packet really went on */
    /* names sq + 1 with its own EV: that EV misses its next turn */
    n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), sq + 1, sq + 1, 0, 1, 0, t[1].ti.ev, 0, 0);
    p[MRC_BTH_LEN + 1] |= 0x20;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, p, n, &ri, f->now), MRC_OK);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.ev_skip_req, 2);
    CHECK_EQ(cs.ev_skipped, 1);
    CHECK_EQ(cs.rx_sack, 2);
    return 0;
}

/* data avoids EVs whose port is down; with every port down nothing goes, and it resumes when one comes back */
static int t_req_ports_down(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x700;
    int n, i;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 1, false, f->now), MRC_OK);
    UT_TRY(ut_expect_psu(f, 1, 0x2, "port 1 down"));
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 256 * 4, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 8);
    CHECK_EQ(n, 4);
    for (i = 0; i < n; i++) CHECKF(ut_txs[i].ti.port == 2, "packet %d on port %u, which is down", i, ut_txs[i].ti.port);
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 2, false, f->now), MRC_OK);
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 8), 0);
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 1, true, f->now), MRC_OK);
    UT_TRY(ut_expect_psu(f, 1, 0x1, "port 1 up"));
    n = ut_drain(f, ut_txs, 8);
    CHECK_EQ(n, 1);
    CHECK_EQ(ut_txs[0].ti.port, 1);
    CHECK_EQ(ut_txs[0].k.bth.psn, sq + 4);
    return 0;
}

const test_entry test_requester[] = {
    {"req_segmentation", t_req_segmentation},
    {"req_window_and_wimm_limits", t_req_window_and_wimm_limits},
    {"req_nack_retransmits", t_req_nack_retransmits},
    {"req_nack_front_of_queue", t_req_nack_front_of_queue},
    {"req_nack_superseded", t_req_nack_superseded},
    {"req_nack_unexp_event", t_req_nack_unexp_event},
    {"req_nack_bogus_and_stale", t_req_nack_bogus_and_stale},
    {"req_sack_bogus", t_req_sack_bogus},
    {"req_aeth_nak", t_req_aeth_nak},
    {"req_aeth_bogus", t_req_aeth_bogus},
    {"req_sack_completes_in_order", t_req_sack_completes_in_order},
    {"req_sack_no_early_completion", t_req_sack_no_early_completion},
    {"ep_time_monotonic", t_ep_time_monotonic},
    {"req_tail_probe_timing", t_req_tail_probe_timing},
    {"rsp_check_order", t_rsp_check_order},
    {"wire_opts_on_tx", t_wire_opts_on_tx},
    {"req_rto_schedule", t_req_rto_schedule},
    {"req_sack_hole_loss", t_req_sack_hole_loss},
    {"req_sack_ev_attribution", t_req_sack_ev_attribution},
    {"req_ports_down", t_req_ports_down},
    {NULL, NULL},
};
