/* tests/burst.c - P37 bursts (docs/PROTOCOL.md): mrc_endpoint_recv_burst and mrc_endpoint_poll_tx_burst. A burst of
 * transmissions equals the same number of single calls byte for byte; transfers whose arrivals reach each endpoint in
 * bursts (the wire's rx_burst) stay bit-exact and live under every impairment, over one QP and several; bad entries of
 * a burst are answered per entry while the rest are taken. Also the transmit template (P22) both transmit paths share:
 * never another message's.
 */
#include "test.h"

/* ---- 1. a transmit burst is the same packets as single calls ------------------------------------------------- */
/* A's write i straight into its QP (the pair's plan is not used: its refill runs inside the wire's loop) */
static int bu_post(sc_pair *p, unsigned i) {
    mrc_write w;
    memset(&w, 0, sizeof w);
    w.wr_id = i;
    w.opcode = (uint8_t)((i & 1u) ? MRC_WR_WRITE_IMM : MRC_WR_WRITE);
    w.buf = p->src[0] + (i << 16);
    w.len = 40000u + i * 1000u;
    w.remote_va = sc_iova(1) + (i << 16);
    w.rkey = p->rkey[1];
    w.imm = i;
    return mrc_conn_post_write(p->q[0][0].c, &w, sc_now(p));
}
/* the twin pair a test allocated, freed; returns r */
static int bu_twin_free(sc_pair *q, int r) {
    sc_free(q);
    free(q);
    return r;
}
/* Two pairs from the same seed and plan: A of one is polled packet by packet, A of the other in bursts (of 7, or of
 * 32 in the variants); every packet (its bytes, its payload, every mrc_txinfo field but the payload pointer) must be
 * the same. The variants take the transmit burst's runs of middle packets (P37) through other shapes: the payload
 * copied (MRC_TX_COPY), no TSETH with an acknowledgement request every 3 packets, a 1 KiB MTU with a fixed window that
 * the bursts fill, and two QPs that share the transmit queue. */
#define BU_MAXB 33u
static uint8_t bu_b1[BU_MAXB][MRC_HDR_MAX + 4096 + 4], bu_b2[BU_MAXB][MRC_HDR_MAX + 4096 + 4];
static void bu_tx_variant(sc_pair *p, unsigned v) {
    if (v == 2) {
        p->cfg[0].tseth = false;
        p->cfg[1].tseth = false;
        p->cfg[0].ack.request_every = 3;
    } else if (v == 3) {
        p->attr[0].path_mtu = p->attr[1].path_mtu = 1024;
        p->cfg[0].cc.algo = MRC_CC_ALGO_FIXED;
        p->cfg[0].cc.fixed_cwnd_bytes = 64u * 1200u;
    } else if (v == 4) {
        p->nq = 2;
    }
}
static int bu_tx_equal_run(sc_pair *p, unsigned v) {
    sc_pair *q = (sc_pair *)calloc(1, sizeof(sc_pair));
    mrc_txpkt k[BU_MAXB];
    const unsigned nb = v ? 32u : 7u, flags = v == 1 ? (unsigned)MRC_TX_COPY : 0u;
    const size_t cap = v == 1 ? sizeof bu_b1[0] : (size_t)MRC_HDR_MAX;
    unsigned total = 0, bursts = 0, i;
    int r = 1;
    if (!q) return 1;
    sc_defaults(p, g_seed + 3700 + v);
    sc_defaults(q, g_seed + 3700 + v);
    bu_tx_variant(p, v);
    bu_tx_variant(q, v);
    if (sc_start(p) != 0 || sc_start(q) != 0) goto out;
    for (i = 0; i < 6; i++)
        if (bu_post(p, i) != MRC_OK || bu_post(q, i) != MRC_OK) goto out;
    if (v == 4) { /* the second QP's writes, interleaved */
        for (i = 0; i < 3; i++) {
            mrc_write w;
            memset(&w, 0, sizeof w);
            w.wr_id = 100u + i;
            w.opcode = MRC_WR_WRITE;
            w.buf = p->src[0] + (i << 16);
            w.len = 30000u + i * 5000u;
            w.remote_va = sc_iova(1) + (i << 16);
            w.rkey = p->rkey[1];
            if (mrc_conn_post_write(p->q[0][1].c, &w, sc_now(p)) != MRC_OK) goto out;
            w.buf = q->src[0] + (i << 16);
            w.rkey = q->rkey[1];
            if (mrc_conn_post_write(q->q[0][1].c, &w, sc_now(q)) != MRC_OK) goto out;
        }
    }
    for (;;) {
        int n, j;
        memset(k, 0, sizeof k);
        for (i = 0; i < nb; i++) {
            k[i].buf = bu_b2[i];
            k[i].cap = cap;
        }
        n = mrc_endpoint_poll_tx_burst(q->ep[0], k, nb, flags, sc_now(q));
        if (n < 0 || n > (int)nb) {
            fail_at(__FILE__, __LINE__, "poll_tx_burst returned a bad count");
            goto out;
        }
        for (j = 0; j <= n && j < (int)nb; j++) {
            mrc_txinfo ti;
            int m;
            memset(&ti, 0, sizeof ti);
            m = mrc_endpoint_poll_tx(p->ep[0], bu_b1[j], cap, flags, &ti, sc_now(p));
            if (m != k[j].len) {
                printf("    variant %u, packet %u: single call %d, burst entry %d\n", v, total, m, k[j].len);
                fail_at(__FILE__, __LINE__, "the same return value");
                goto out;
            }
            if (m <= 0) break;
            if (memcmp(bu_b1[j], bu_b2[j], (size_t)m) != 0 || ti.port != k[j].ti.port || ti.ev != k[j].ti.ev ||
                ti.dscp != k[j].ti.dscp || ti.opcode != k[j].ti.opcode || ti.pad != k[j].ti.pad ||
                ti.hdr_len != k[j].ti.hdr_len || ti.payload_len != k[j].ti.payload_len || ti.qpn != k[j].ti.qpn ||
                ti.peer != k[j].ti.peer || ti.dscp_class != k[j].ti.dscp_class ||
                (ti.payload_len && memcmp(ti.payload, k[j].ti.payload, ti.payload_len) != 0)) {
                printf("    variant %u, packet %u differs\n", v, total);
                fail_at(__FILE__, __LINE__, "the same packet");
                goto out;
            }
            total++;
        }
        bursts++;
        if (n < (int)nb) break; /* the window or the plan ended the burst early: both stopped at the same place */
    }
    note("variant %u: %u packets in %u bursts, identical", v, total, bursts);
    if (total < 48) {
        fail_at(__FILE__, __LINE__, "total >= 48 (a burst test that sent little proves little)");
        goto out;
    }
    r = 0;
out:
    return bu_twin_free(q, r);
}
static int bu_tx_equal_body(sc_pair *p) { return bu_tx_equal_run(p, 0); }
static int bu_tx_variants_body(sc_pair *p) {
    unsigned v;
    for (v = 1; v <= 4; v++) {
        if (bu_tx_equal_run(p, v) != 0) return 1;
        sc_free(p);
        memset(p, 0, sizeof *p);
    }
    return 0;
}
SC_TEST(t_bu_tx_equal, bu_tx_equal_body)
SC_TEST(t_bu_tx_variants, bu_tx_variants_body)

/* ---- 2. transfers received in bursts: bit-exact and live under every impairment --------------------------------- */
static void bu_link(mrc_wire_link *l, unsigned impaired) {
    mrc_wire_link_default(l);
    l->rate_bps = 0; /* no serialization and no jitter: what is sent together arrives together, and bursts form */
    l->delay_ns = 3000;
    if (!impaired) return;
    l->loss_ppm = 10000;
    l->dup_ppm = 5000;
    l->corrupt_ppm = 5000;
    l->trim_ppm = 10000;
    l->ce_ppm = 20000;
}
static int bu_run(sc_pair *p, uint64_t seed, unsigned nq, unsigned impaired, unsigned burst, uint16_t sack_every) {
    mrc_wire_link l;
    unsigned q, s;
    trng r;
    sc_defaults(p, seed);
    p->cfg[0].ack.sack_every = p->cfg[1].ack.sack_every = sack_every; /* > 1: runs whose packets owe no SACK */
    p->nq = nq;
    p->region = 8u << 20;
    p->wc.rx_burst = (uint8_t)burst;
    bu_link(&l, impaired);
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    SC_CHECK(p, sc_start(p) == 0);
    r.s = seed ^ 0xB5B5ull;
    for (s = 0; s < 2; s++)
        for (q = 0; q < nq; q++) SC_CHECK(p, sc_plan_random(p, (int)s, q, 24, (uint32_t)(p->region / nq), 50, &r) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    /* the bursts really formed, on both sides */
    SC_CHECKF(p, p->w.bursts[0] && p->w.bursts[1] && p->w.burst_max[0] > 1 && p->w.burst_max[1] > 1,
              "bursts %llu/%llu, largest %llu/%llu", (unsigned long long)p->w.bursts[0],
              (unsigned long long)p->w.bursts[1], (unsigned long long)p->w.burst_max[0],
              (unsigned long long)p->w.burst_max[1]);
    note("seed %llu, %u QPs, impaired %u, burst %u: %llu+%llu bursts, %.2f+%.2f packets each, largest %llu/%llu",
         (unsigned long long)seed, nq, impaired, burst, (unsigned long long)p->w.bursts[0],
         (unsigned long long)p->w.bursts[1], (double)p->w.burst_pkts[0] / (double)p->w.bursts[0],
         (double)p->w.burst_pkts[1] / (double)p->w.bursts[1], (unsigned long long)p->w.burst_max[0],
         (unsigned long long)p->w.burst_max[1]);
    if (impaired)
        for (s = 0; s < 2; s++) {
            mrc_conn_stats cs = sc_cstats(p, (int)s, 0), peer = sc_cstats(p, 1 - (int)s, 0);
            SC_CHECK(p, peer.rx_trimmed > 0 && cs.tx_rtx > 0 && cs.rx_nack > 0); /* the impairments happened */
        }
    return 0;
}
static int bu_transfer_body(sc_pair *p) {
    static const unsigned nq[] = {1, 4, 1, 4, 2}, imp[] = {0, 0, 1, 1, 1}, burst[] = {32, 8, 16, 64, 16};
    static const uint16_t every[] = {1, 1, 1, 1, 3};
    unsigned i;
    for (i = 0; i < 5; i++) {
        if (bu_run(p, g_seed + 3800 + i, nq[i], imp[i], burst[i], every[i])) return 1;
        sc_free(p);
        memset(p, 0, sizeof *p);
    }
    return 0;
}
SC_TEST(t_bu_transfer, bu_transfer_body)

/* ---- 3. runs of received packets with one packet unlike the one before ------------------------------------------ */
/* The receive burst's runs (P37) take a packet whose headers repeat the one before's (but for the PSN, the timestamp
 * and the VA) without testing them again: here twin pairs get the same packets of one long Write, B of one pair one by
 * one and B of the other in bursts of 8, with one packet of each burst changed in one field the run's tests read (the
 * MSN, the rkey, the DMA length, the opcode, the pad, the TSETH bit, the P_Key, the QPN, the length, the port, the
 * DSCP, the ECN, the flags); every return code, the endpoints' counters and B's answers must be the same (the fast-check
 * build compares every byte of state after each burst besides). */
#define BU_RXB 8u
static uint8_t bu_rx1[BU_RXB][MRC_HDR_MAX + 4096 + 4], bu_rx2[BU_RXB][MRC_HDR_MAX + 4096 + 4];
static void bu_rx_change(mrc_rxpkt *k, unsigned v, unsigned dscp_trim) {
    uint8_t *b = (uint8_t *)(uintptr_t)k->pkt;
    switch (v % 15u) {
    case 0: break;                                       /* none */
    case 1: b[MRC_BTH_LEN + 3] ^= 1u; break;            /* the MSN */
    case 2: b[MRC_BTH_LEN + MRC_METH_LEN + ((b[8] & 0x10u) ? (unsigned)MRC_TSETH_LEN : 0u) + 9] ^= 4u; break;
    /* the length */
    case 3: b[MRC_BTH_LEN + MRC_METH_LEN + ((b[8] & 0x10u) ? (unsigned)MRC_TSETH_LEN : 0u) + 15] ^= 1u; break;
    case 4: b[0] = MRC_OP_WRITE_LAST; break;             /* the opcode */
    case 5: b[1] ^= 0x30u; break;                        /* the pad */
    case 6: b[8] ^= 0x10u; break;                        /* the TSETH bit */
    case 7: b[3] ^= 2u; break;                           /* the P_Key */
    case 8: b[7] ^= 1u; break;                           /* the QPN */
    case 9: k->len -= 4u; break;                         /* the length */
    case 10: k->ri.port = 9; break;                      /* a port out of range */
    case 11: k->ri.dscp = (uint8_t)dscp_trim; break;     /* trimmed */
    case 12: k->ri.ecn = 3; break;                       /* CE */
    case 13: k->ri.flags = MRC_RX_TRIMMED; break;        /* the flags */
    /* the VA */
    default: b[MRC_BTH_LEN + MRC_METH_LEN + ((b[8] & 0x10u) ? (unsigned)MRC_TSETH_LEN : 0u) + 7] ^= 1u; break;
    }
}
static int bu_rx_like_body(sc_pair *p) {
    sc_pair *q = (sc_pair *)calloc(1, sizeof(sc_pair));
    sc_pair *pp[2];
    mrc_rxpkt k[2][BU_RXB];
    int rc[2][BU_RXB], r = 1, ok;
    unsigned c, v, i, s, taken = 0;
    uint64_t data = 0;
    if (!q) return 1;
    pp[0] = p;
    pp[1] = q;
    for (c = 0; c < 15; c++) { /* each change on a fresh pair: some end the QP (a NAK) */
        for (s = 0; s < 2; s++) {
            mrc_write w;
            sc_defaults(pp[s], g_seed + 3950 + c);
            pp[s]->region = 8u << 20;
            pp[s]->cfg[1].ack.sack_every = 3; /* runs whose packets owe no SACK, and ones that do */
            if (sc_start(pp[s]) != 0) goto out;
            memset(&w, 0, sizeof w);
            w.opcode = MRC_WR_WRITE;
            w.buf = pp[s]->src[0];
            w.len = 1u << 20;
            w.remote_va = sc_iova(1);
            w.rkey = pp[s]->rkey[1];
            if (mrc_conn_post_write(pp[s]->q[0][0].c, &w, sc_now(pp[s])) != MRC_OK) goto out;
        }
        for (v = 0; v < 6; v++) {
            unsigned n = 0, at = 1u + (v * 3u + c) % (BU_RXB - 1u);
            for (s = 0; s < 2; s++) {
                uint8_t(*bb)[MRC_HDR_MAX + 4096 + 4] = s ? bu_rx2 : bu_rx1;
                for (n = 0; n < BU_RXB; n++) {
                    mrc_txinfo ti;
                    int m;
                    memset(&ti, 0, sizeof ti);
                    m = mrc_endpoint_poll_tx(pp[s]->ep[0], bb[n], sizeof bb[n], MRC_TX_COPY, &ti, sc_now(pp[s]));
                    if (m <= 0) break;
                    memset(&k[s][n], 0, sizeof k[s][n]);
                    k[s][n].pkt = bb[n];
                    k[s][n].len = (size_t)m;
                    k[s][n].ri.port = ti.port;
                    k[s][n].ri.ev = ti.ev;
                    k[s][n].ri.dscp = ti.dscp;
                    k[s][n].ri.peer = ti.peer;
                }
                if (n > at && v) bu_rx_change(&k[s][at], c, pp[s]->cfg[1].dscp[MRC_DSCP_TRIMMED]);
            }
            for (i = 0; i < n; i++)
                rc[0][i] = mrc_endpoint_recv(p->ep[1], k[0][i].pkt, k[0][i].len, &k[0][i].ri, sc_now(p));
            ok = mrc_endpoint_recv_burst(q->ep[1], k[1], n, rc[1], sc_now(q));
            for (i = 0; i < n; i++) ok -= rc[1][i] == MRC_OK;
            SC_CHECK(p, ok == 0); /* it counts the packets accepted */
            for (i = 0; i < n; i++)
                if (rc[0][i] != rc[1][i]) {
                    printf("    change %u, packet %u: single call %d, burst %d\n", c, i, rc[0][i], rc[1][i]);
                    fail_at(__FILE__, __LINE__, "the same return codes");
                    goto out;
                }
            for (s = 0; s < 2; s++) { /* both sides' counters the same */
                mrc_endpoint_stats e0 = sc_estats(p, (int)s), e1 = sc_estats(q, (int)s);
                SC_CHECK(p, e0.rx_pkts == e1.rx_pkts && e0.rx_bytes == e1.rx_bytes && e0.rx_drops == e1.rx_drops &&
                                e0.tx_pkts == e1.tx_pkts && e0.tx_bytes == e1.tx_bytes);
            }
            for (;;) { /* B's answers, the same, back to A */
                mrc_txinfo t0, t1;
                mrc_rxinfo ri;
                int m0, m1;
                memset(&t0, 0, sizeof t0);
                memset(&t1, 0, sizeof t1);
                m0 = mrc_endpoint_poll_tx(p->ep[1], bu_rx1[0], sizeof bu_rx1[0], MRC_TX_COPY, &t0, sc_now(p));
                m1 = mrc_endpoint_poll_tx(q->ep[1], bu_rx2[0], sizeof bu_rx2[0], MRC_TX_COPY, &t1, sc_now(q));
                SC_CHECK(p, m0 == m1 && (m0 <= 0 || memcmp(bu_rx1[0], bu_rx2[0], (size_t)m0) == 0));
                if (m0 <= 0) break;
                memset(&ri, 0, sizeof ri);
                ri.port = t0.port;
                ri.ev = t0.ev;
                ri.dscp = t0.dscp;
                ri.peer = t0.peer;
                SC_CHECK(p, mrc_endpoint_recv(p->ep[0], bu_rx1[0], (size_t)m0, &ri, sc_now(p)) ==
                                mrc_endpoint_recv(q->ep[0], bu_rx2[0], (size_t)m1, &ri, sc_now(q)));
            }
            taken += n;
        }
        {
            mrc_conn_stats c0 = sc_cstats(p, 1, 0), c1 = sc_cstats(q, 1, 0);
            SC_CHECK(p, c0.rx_data == c1.rx_data && c0.rx_drops == c1.rx_drops);
            data += c0.rx_data;
        }
        for (s = 0; s < 2; s++) {
            sc_free(pp[s]);
            memset(pp[s], 0, sizeof *pp[s]);
        }
    }
    note("%u packets in bursts of %u, one changed in most; B took %llu data packets", taken, BU_RXB,
         (unsigned long long)data);
    SC_CHECK(p, taken >= 600 && data >= 400);
    r = 0;
out:
    return bu_twin_free(q, r);
}
SC_TEST(t_bu_rx_like, bu_rx_like_body)

/* ---- 4. runs of received SACKs ---------------------------------------------------------------------------------- */
/* A receive burst takes one QP's in-order SACKs as a run (P37). Twin pairs get the same packets: B answers each data
 * packet with its own SACK, and A takes B's SACKs of a round in one burst - with runs in one pair, packet by packet in
 * the other (ep->burst_no_runs, the fast-path check's reference) - with one SACK of most rounds changed in one field
 * the run reads (the bitmap, the ACK offset, the M bits, the PR bit, the penalty, R_C, the QPN, the P_Key, the PSN, the
 * entropy, the MPR, rcvd, the timestamp, the length, the port, the flags, CACK) or moved (a repeat, a swap). Every
 * return code, A's counters and deadline, twelve fields of A's QP, and every packet A sends next (its bytes, port, EV,
 * DSCP) must be the same (the fast-check build compares every byte of state after each burst besides); some cases run
 * two QPs (their SACKs interleave), no TSETH, dynamic MPR, or a fixed window. */
#define BU_SK 16u
static uint8_t bu_sk[2][BU_SK][MRC_HDR_MAX + 64], bu_dt[MRC_HDR_MAX + 4096 + 4];
static void bu_sack_change(mrc_rxpkt *k, unsigned c) {
    uint8_t *b = (uint8_t *)(uintptr_t)k->pkt, *se = b + MRC_BTH_LEN, *cs = se + MRC_SETH_LEN;
    switch (c % 18u) {
    case 0: break;                                 /* none */
    case 1: se[27] ^= 2u; break;                   /* the bitmap */
    case 2: se[3] = 1u; break;                     /* the ACK offset */
    case 3: se[1] |= 0x20u; break;                 /* the M bits */
    case 4: se[1] |= 0x02u; break;                 /* the PR bit */
    case 5: cs[4] |= 1u; break;                    /* the penalty */
    case 6: cs[4] |= 0x80u; break;                 /* R_C */
    case 7: b[7] ^= 1u; break;                     /* the QPN */
    case 8: b[3] ^= 2u; break;                     /* the P_Key */
    case 9: b[11] ^= 1u; break;                    /* the BTH PSN */
    case 10: se[7] ^= 1u; break;                   /* the entropy */
    case 11: se[17] = 1u; break;                   /* the MPR */
    case 12: cs[5] ^= 0x40u; break;                /* rcvd */
    case 13: cs[0] ^= 0x80u; break;                /* the timestamp */
    case 14: k->len -= 4u; break;                  /* the length */
    case 15: k->ri.port = 9; break;                /* a port out of range */
    case 16: k->ri.flags = MRC_RX_ICRC_BAD; break; /* the flags */
    default: se[15] ^= 1u; b[11] ^= 1u; break;     /* CACK and PSN: a neighbour's */
    }
}
#ifdef MRC_ENABLE_TRACE
/* the trace build (make test-trace): A's hook folds what it sees of A's QP at each call into a hash, so the two pairs'
 * hooks must have seen the same states in the same order (the run makes its forward-only updates per SACK there) */
typedef struct {
    const mrc_conn *c;
    uint64_t h, n;
} bu_trc;
static void bu_trace(void *ud, unsigned id, uint64_t a, uint64_t b) {
    bu_trc *t = (bu_trc *)ud;
    const mrc_conn *c = t->c;
    uint64_t v[8];
    unsigned i;
    v[0] = id;
    v[1] = a;
    v[2] = b;
    v[3] = c ? ((uint64_t)c->win_base << 32 | c->snd_una) : 0;
    v[4] = c ? ((uint64_t)c->txl.n << 32 | c->txl.head) : 0;
    v[5] = c ? c->cc_inflight : 0;
    v[6] = c ? c->rto_start ^ c->srtt : 0;
    v[7] = c ? c->lat_acked_sent ^ ((uint64_t)c->ev_proven << 48) : 0;
    for (i = 0; i < 8; i++) t->h = (t->h ^ v[i]) * 0x100000001B3ull;
    t->n++;
}
#endif
static int bu_sack_run_body(sc_pair *p) {
    sc_pair *q = (sc_pair *)calloc(1, sizeof(sc_pair));
    sc_pair *pp[2];
    mrc_rxpkt k[2][BU_SK];
    int rc[2][BU_SK], r = 1, ok[2];
    unsigned c, v, i, s, sacks = 0;
#ifdef MRC_ENABLE_TRACE
    bu_trc trc[2];
    uint64_t traced = 0;
#endif
    if (!q) return 1;
    pp[0] = p;
    pp[1] = q;
    for (c = 0; c < 24; c++) { /* each change on a fresh pair, 24 cases: with a repeat (18) and a swap (19) */
        mrc_time t = 0;
        for (s = 0; s < 2; s++) {
            unsigned qi;
            sc_defaults(pp[s], g_seed + 4100 + c);
            pp[s]->region = 2u << 20;
            pp[s]->nq = c % 4u == 3u ? 2u : 1u;
            if (c % 5u == 4u) pp[s]->cfg[0].tseth = pp[s]->cfg[1].tseth = false;
            if (c == 22) {
                pp[s]->cfg[0].cc.algo = MRC_CC_ALGO_FIXED;
                pp[s]->cfg[0].cc.fixed_cwnd_bytes = 64u * 4200u;
            }
            if (c % 3u == 2u) pp[s]->attr[0].caps |= MRC_CAP_DYNAMIC_MPR;
            if (sc_start(pp[s]) != 0) goto out;
            pp[s]->ep[0]->burst_no_runs = (uint8_t)(s == 0); /* the reference */
#ifdef MRC_ENABLE_TRACE
            trc[s].c = pp[s]->q[0][0].c;
            trc[s].h = trc[s].n = 0;
            pp[s]->ep[0]->cfg.trace = bu_trace;
            pp[s]->ep[0]->cfg.trace_ud = &trc[s];
#endif
            for (qi = 0; qi < pp[s]->nq; qi++) {
                mrc_write w;
                memset(&w, 0, sizeof w);
                w.opcode = qi ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
                w.buf = pp[s]->src[0] + (qi << 20);
                w.len = 1u << 19;
                w.remote_va = sc_iova(1) + (qi << 20);
                w.rkey = pp[s]->rkey[1];
                if (mrc_conn_post_write(pp[s]->q[0][qi].c, &w, sc_now(pp[s])) != MRC_OK) goto out;
            }
            t = sc_now(pp[s]);
        }
        for (v = 0; v < 12; v++, t += 10000u) {
            unsigned n[2] = {0, 0}, at;
            uint64_t txh[2] = {0, 0}; /* a hash of the packets A sends this round (bytes, port, EV, DSCP) */
            for (s = 0; s < 2; s++) /* A's data to B, one by one; B's SACK for each */
                for (;;) {
                    mrc_txinfo ti;
                    mrc_rxinfo ri;
                    int m = 0, d, j;
                    memset(&ti, 0, sizeof ti);
                    if (n[s] == BU_SK) break;
                    d = mrc_endpoint_poll_tx(pp[s]->ep[0], bu_dt, sizeof bu_dt, MRC_TX_COPY, &ti, t);
                    if (d <= 0) break;
                    for (j = 0; j < d; j++) txh[s] = (txh[s] ^ bu_dt[j]) * 0x100000001B3ull;
                    txh[s] = (txh[s] ^ ((uint64_t)ti.port << 40 | (uint64_t)ti.dscp << 32 | ti.ev)) * 0x100000001B3ull;
                    memset(&ri, 0, sizeof ri);
                    ri.port = ti.port;
                    ri.ev = ti.ev;
                    ri.dscp = ti.dscp;
                    (void)mrc_endpoint_recv(pp[s]->ep[1], bu_dt, (size_t)d, &ri, t + 2000u);
                    while (n[s] < BU_SK) {
                        memset(&ti, 0, sizeof ti);
                        m = mrc_endpoint_poll_tx(pp[s]->ep[1], bu_sk[s][n[s]], sizeof bu_sk[s][n[s]], MRC_TX_COPY, &ti,
                                                 t + 2000u);
                        if (m <= 0) break;
                        memset(&k[s][n[s]], 0, sizeof k[s][n[s]]);
                        k[s][n[s]].pkt = bu_sk[s][n[s]];
                        k[s][n[s]].len = (size_t)m;
                        k[s][n[s]].ri.port = ti.port;
                        k[s][n[s]].ri.ev = ti.ev;
                        k[s][n[s]].ri.dscp = ti.dscp;
                        n[s]++;
                    }
                }
            SC_CHECKF(p, n[0] == n[1] && txh[0] == txh[1], "case %u round %u: %u and %u answers, A's packets %s", c, v,
                      n[0], n[1], txh[0] == txh[1] ? "the same" : "differ");
            at = 1u + (v * 5u + c) % (BU_SK - 1u);
            if (v && n[0] > at) /* a change in most rounds, the same in both */
                for (s = 0; s < 2; s++) {
                    if (c == 18) { /* a repeat of the SACK before */
                        memcpy(bu_sk[s][at], bu_sk[s][at - 1u], k[s][at - 1u].len);
                        k[s][at].len = k[s][at - 1u].len;
                    } else if (c == 19) { /* the SACK before after it */
                        mrc_rxpkt x = k[s][at];
                        k[s][at] = k[s][at - 1u];
                        k[s][at - 1u] = x;
                    } else {
                        bu_sack_change(&k[s][at], c < 18 ? c : c - 2u);
                    }
                }
            for (s = 0; s < 2; s++) ok[s] = mrc_endpoint_recv_burst(pp[s]->ep[0], k[s], n[s], rc[s], t + 4000u);
            SC_CHECKF(p, ok[0] == ok[1], "case %u round %u: %d and %d taken", c, v, ok[0], ok[1]);
            for (i = 0; i < n[0]; i++)
                SC_CHECKF(p, rc[0][i] == rc[1][i], "case %u round %u SACK %u: %d and %d", c, v, i, rc[0][i], rc[1][i]);
            {
                mrc_endpoint_stats e0 = sc_estats(p, 0), e1 = sc_estats(q, 0);
                mrc_conn_stats c0 = sc_cstats(p, 0, 0), c1 = sc_cstats(q, 0, 0);
                SC_CHECK(p, e0.rx_pkts == e1.rx_pkts && e0.rx_bytes == e1.rx_bytes && e0.rx_drops == e1.rx_drops);
                const mrc_conn *a0 = p->q[0][0].c, *a1 = q->q[0][0].c;
                SC_CHECK(p, c0.rx_sack == c1.rx_sack && c0.tx_rtx == c1.tx_rtx && c0.cc_rcvd_bytes == c1.cc_rcvd_bytes &&
                                c0.rx_sack_stale == c1.rx_sack_stale && c0.rx_sack_quiet == c1.rx_sack_quiet);
                SC_CHECK(p, a0->srtt == a1->srtt && a0->snd_una == a1->snd_una && a0->win_base == a1->win_base &&
                                a0->cc_inflight == a1->cc_inflight && a0->txl.n == a1->txl.n &&
                                a0->rto_start == a1->rto_start && a0->tlp_base == a1->tlp_base &&
                                a0->lat_acked_sent == a1->lat_acked_sent && a0->rcvd_credit == a1->rcvd_credit &&
                                a0->ev_proven == a1->ev_proven && a0->win_psns == a1->win_psns &&
                                (!a0->ccxp) == (!a1->ccxp) && (!a0->ccxp || a0->ccxp->cwnd == a1->ccxp->cwnd));
                SC_CHECK(p, mrc_endpoint_next_deadline(p->ep[0]) == mrc_endpoint_next_deadline(q->ep[0]));
            }
#ifdef MRC_ENABLE_TRACE
            SC_CHECKF(p, trc[0].n == trc[1].n && trc[0].h == trc[1].h, "case %u round %u: the hooks saw %llu and %llu calls",
                      c, v, (unsigned long long)trc[0].n, (unsigned long long)trc[1].n);
            traced = trc[0].n;
#endif
            sacks += n[0];
        }
        for (s = 0; s < 2; s++) {
            sc_free(pp[s]);
            memset(pp[s], 0, sizeof *pp[s]);
        }
    }
    note("%u SACKs in bursts of up to %u, one changed in most", sacks, BU_SK);
#ifdef MRC_ENABLE_TRACE
    note("trace build: A's hook saw the same QP states with runs and without (%llu calls in the last case)",
         (unsigned long long)traced);
    SC_CHECK(p, traced > 0);
#endif
    SC_CHECK(p, sacks >= 24u * 8u * BU_SK / 2u);
    r = 0;
out:
    return bu_twin_free(q, r);
}
SC_TEST(t_bu_sack_run, bu_sack_run_body)

/* ---- 5. bad entries and bad calls ------------------------------------------------------------------------------- */
static int bu_args_body(sc_pair *p) {
    mrc_rxpkt k[3];
    mrc_txpkt t[2];
    int rc[3];
    static uint8_t junk[64], buf[MRC_HDR_MAX];
    mrc_endpoint_stats before, after;
    sc_defaults(p, g_seed + 3900);
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_endpoint_recv_burst(NULL, k, 1, rc, 0) == MRC_ERR_INVAL);
    SC_CHECK(p, mrc_endpoint_recv_burst(p->ep[1], NULL, 1, rc, 0) == MRC_ERR_INVAL);
    SC_CHECK(p, mrc_endpoint_recv_burst(p->ep[1], NULL, 0, NULL, sc_now(p)) == 0);
    memset(k, 0, sizeof k);
    memset(junk, 0xA5, sizeof junk);
    k[0].pkt = NULL; /* no packet */
    k[0].ri.port = 1;
    k[1].pkt = junk; /* port 0 */
    k[1].len = sizeof junk;
    k[2].pkt = junk; /* garbage, port 1: dropped and counted */
    k[2].len = sizeof junk;
    k[2].ri.port = 1;
    before = sc_estats(p, 1);
    SC_CHECK(p, mrc_endpoint_recv_burst(p->ep[1], k, 3, rc, sc_now(p)) == 0);
    after = sc_estats(p, 1);
    SC_CHECK(p, rc[0] == MRC_ERR_INVAL && rc[1] == MRC_ERR_INVAL && rc[2] == MRC_ERR_DROP);
    SC_CHECK(p, after.rx_pkts == before.rx_pkts + 1u);
    SC_CHECK(p, mrc_endpoint_poll_tx_burst(NULL, t, 1, 0, 0) == MRC_ERR_INVAL);
    SC_CHECK(p, mrc_endpoint_poll_tx_burst(p->ep[0], NULL, 1, 0, 0) == MRC_ERR_INVAL);
    SC_CHECK(p, mrc_endpoint_poll_tx_burst(p->ep[0], t, 1, 0x80u, 0) == MRC_ERR_INVAL);
    SC_CHECK(p, bu_post(p, 0) == MRC_OK);
    memset(t, 0, sizeof t);
    t[0].buf = buf;
    t[0].cap = 8; /* too small: nothing is consumed */
    SC_CHECK(p, mrc_endpoint_poll_tx_burst(p->ep[0], t, 2, 0, sc_now(p)) == 0 && t[0].len == MRC_ERR_NOBUF);
    t[0].cap = sizeof buf;
    t[1].buf = NULL; /* the second entry has no buffer: one packet, then INVAL in its len */
    SC_CHECK(p, mrc_endpoint_poll_tx_burst(p->ep[0], t, 2, 0, sc_now(p)) == 1 && t[0].len > 0 &&
                    t[1].len == MRC_ERR_INVAL);
    return 0;
}
SC_TEST(t_bu_args, bu_args_body)

/* ---- 5. the transmit template (docs/PROTOCOL.md P22): never another message's --------------------------------------
 * Twin pairs from one seed, one with the fast paths off (cfg.fast_path_off: every packet built field by field, no
 * template). A's plan comes back to the same send-queue slot with a multi-packet message after MRC_MAX_SQ - 1
 * single-packet messages, which build no template, three times over, each time with another length, offset and
 * opcode (so another METH MSN and RETH length): every packet either pair sends (its bytes, port, EV, DSCP, pad: the
 * harness's hash) must agree, both transfers complete with every byte placed once. White-box, where the template is
 * built: at each middle packet it names the message being sent, and once the plan is done nothing. With the
 * template's drop at a message's end left out (mrc__req_tx_fast), the slot's second message goes out with the first
 * one's MSN and length and the hashes differ. */
#if MRC_FAST_PATH && !defined(__OPTIMIZE_SIZE__)
#define BU_TPL 1 /* the core builds the template (its MRC__TX_RUN) */
#else
#define BU_TPL 0
#endif
static unsigned long bu_tpl_mid, bu_tpl_bad;
static void bu_tpl_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    const mrc_conn *c = p->q[0][0].c;
    (void)pkt, (void)len, (void)now;
    if (from != 0 || ti->opcode != MRC_OP_WRITE_MIDDLE) return;
    bu_tpl_mid++;
#if BU_TPL
    if (c->tpl.wr != (c->sq_send & (MRC_MAX_SQ - 1u)) + 1u) bu_tpl_bad++;
#else
    (void)c;
#endif
}
static int bu_tx_template_run(sc_pair *p, int off) {
    const uint32_t mtu = 4096u;
    unsigned round, i;
    int s;
    sc_defaults(p, g_seed + 3900);
    for (s = 0; s < 2; s++) p->cfg[s].fast_path_off = off != 0;
    p->hash_on = 1;
    if (!off) p->tap = bu_tpl_tap;
    for (round = 0; round < 3; round++) {
        SC_CHECK(p, sc_add(p, 0, 0, round * 9000u, (5u + round) * mtu - 100u * round, round == 1 ? MRC_WR_WRITE_IMM
                                                                                               : MRC_WR_WRITE,
                           round) == 0);
        for (i = 1; i < MRC_MAX_SQ; i++) SC_CHECK(p, sc_add(p, 0, 0, 100000u + i * 64u, 40u + round, MRC_WR_WRITE, 0) == 0);
    }
    SC_CHECK(p, sc_add(p, 0, 0, 500000u, 9u * mtu + 1u, MRC_WR_WRITE_IMM, 7) == 0);
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
#if BU_TPL
    SC_CHECK(p, p->q[0][0].c->tpl.wr == 0u);
#endif
    return 0;
}
static int bu_tx_template_body(sc_pair *p) {
    sc_pair *q = (sc_pair *)calloc(1, sizeof(sc_pair));
    int r = 1;
    if (!q) return 1;
    bu_tpl_mid = bu_tpl_bad = 0;
    if (bu_tx_template_run(p, 0) != 0 || bu_tx_template_run(q, 1) != 0) goto out;
    note("%lu middle packets, %lu with a template not their message's; the packets' hash %s the general code's",
         bu_tpl_mid, bu_tpl_bad, p->hash == q->hash ? "equals" : "differs from");
    SC_CHECK(p, bu_tpl_mid > 0 && bu_tpl_bad == 0);
    SC_CHECKF(p, p->hash == q->hash, "fast paths %016llx, general code %016llx (seed %llu)",
              (unsigned long long)p->hash, (unsigned long long)q->hash, (unsigned long long)g_seed);
    r = 0;
out:
    return bu_twin_free(q, r);
}
SC_TEST(t_bu_tx_template, bu_tx_template_body)

const test_entry test_burst[] = {
    {"bu_tx_equal", t_bu_tx_equal},
    {"bu_tx_variants", t_bu_tx_variants},
    {"bu_transfer", t_bu_transfer},
    {"bu_rx_like", t_bu_rx_like},
    {"bu_args", t_bu_args},
    {"bu_sack_run", t_bu_sack_run},
    {"bu_tx_template", t_bu_tx_template},
    {NULL, NULL},
};
