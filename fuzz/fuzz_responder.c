/* fuzz_responder.c - one device under attack: an endpoint with registered regions and QPs in every state, fed
 * arbitrary packet sequences, timer firings and application calls.
 *
 * Input: a configuration block (endpoint options, region sizes, per-QP target state and attributes), then records
 * [op][args...] until the input ends or FZ_MAX_OPS records ran. Packets are structure-aware: a per-QP message model
 * produces valid data segments (right opcode, PSN, VA, dma_len, pad) whose fields a mutation mask then corrupts;
 * SACK/NACK/ACK/probe/endpoint-operation packets aim at PSNs and messages the QP really has; raw byte packets and
 * bit flips of earlier packets cover the rest. Oracles, after every call:
 *   - memory: guard bytes around every region never change; a region changes only on a recv that returned MRC_OK
 *     for a data packet, and then exactly [va - iova, + payload) of the region its rkey names, which must be
 *     registered with remote write, on a QP with remote write; external regions see the same through the hook;
 *   - counters: every MRC_ERR_DROP moves exactly one drop reason and rx_drops by one (and the QP's rx_drops when
 *     the packet reached a QP), an accepted packet moves none, the classifier's reason (ICRC, SHORT, OPCODE,
 *     MALFORMED, EPOP, QPN, PKEY) matches what a naive classifier expects, and no counter ever decreases;
 *   - API: return codes are the documented ones; post_recv's FULL/STATE are exact; completions come in posting
 *     order; NOBUF from poll_tx consumes nothing; every emitted packet decodes and agrees with its txinfo;
 *   - time: after on_timeout(now) the next deadline is in the future;
 *   - internal invariants of the queues, windows and timer heap, mrc_conn_check of every QP, and the congestion
 *     contexts (bytes in flight equal the QPs' sum, the READY list, cwnd within its bounds) (fz_invariants;
 *     FUZZ_NO_INTERNALS turns it off). The congestion control is NSCC (default), or with c2 bit 7 a fixed window
 *     (or none when that window is 0). */
#include "fuzz_common.h"

#define FZ_MAX_OPS 600
#define FZ_NQ MRC_MAX_CONNS
#define FZ_NMR 4
#define FZ_GUARD 64u
#define FZ_MRMAX 4096u
#define FZ_SLOT (FZ_GUARD + FZ_MRMAX + FZ_GUARD)
#define FZ_SRC 8192u
#define FZ_HIST 16
#define FZ_PKT 4200u
#define FZ_WRS 1024u
#define FZ_GUARD_BYTE 0xE5u

typedef struct fz_mr {
    int valid, external;
    uint32_t rkey, access;
    uint64_t iova, len;
    uint8_t *base;            /* region bytes (inside arena, after the guard), NULL for external */
} fz_mr;

typedef struct fz_q {
    mrc_conn c;
    int attached;
    unsigned target;          /* state the setup aimed at */
    mrc_conn_attr attr;       /* values used at setup */
    /* peer-requester model (packets this harness sends to the QP's responder) */
    uint32_t psn;
    uint16_t msn, rqmsn;
    uint32_t m_len, m_k, m_npk, m_mr, m_imm;
    uint64_t m_va;
    /* what the QP's requester sent (for SACK/NACK/ACK aimed at it) */
    int sent_any;
    uint32_t sent_lo, sent_hi; /* [lo, hi) PSNs emitted as new data */
    uint32_t evs[8];
    unsigned nev;
    uint16_t msn_posted;      /* MSN of the latest posted write */
    /* completion order */
    uint64_t wr_id[FZ_WRS];
    uint8_t wr_sig[FZ_WRS];
    uint32_t wr_len[FZ_WRS];
    uint32_t wr_posted, wr_reported;
    uint32_t rq_posted, rq_pulled;
    uint64_t rq_next_id;
    int err_seen;
} fz_q;

typedef struct fz_dev {
    mrc_config cfg;
    mrc_endpoint ep;
    fz_q q[FZ_NQ];
    fz_mr mr[FZ_NMR];
    mrc_time now;
    int place_fail;
    int auto_events;
    /* the external region's backing store and its hook log */
    uint8_t ext[FZ_SLOT];
    uint8_t ext_shadow[FZ_SLOT];
    uint32_t place_calls;
    /* direct regions: guard | bytes | guard per slot */
    uint8_t arena[FZ_NMR][FZ_SLOT];
    uint8_t shadow[FZ_NMR][FZ_SLOT];
    uint8_t src[FZ_SRC];
    uint8_t hist[FZ_HIST][FZ_PKT];
    size_t hist_len[FZ_HIST];
    unsigned hist_n;
    uint8_t pkt[FZ_PKT];
    uint8_t txbuf[FZ_PKT];
} fz_dev;

static fz_dev g;

/* ---- placement hook for the external region ------------------------------------------------------------------ */
static int fz_place(void *ud, uint32_t rkey, void *region_user, uint64_t offset, const uint8_t *src, uint32_t len) {
    fz_dev *d = (fz_dev *)ud;
    const fz_mr *m = (const fz_mr *)region_user;
    d->place_calls++;
    FZ_CHECK(m && m->valid && m->external && m->rkey == rkey, "place hook called for rkey %#x, not an external MR",
             rkey);
    FZ_CHECK(offset <= m->len && len <= m->len - offset, "place hook: [%llu, +%u) outside the %llu-byte region",
             (unsigned long long)offset, len, (unsigned long long)m->len);
    if (d->place_fail) return 1;
    memcpy(d->ext + FZ_GUARD + offset, src, len);
    return 0;
}

/* ---- setup ----------------------------------------------------------------------------------------------------- */
static const uint8_t fz_default_state[FZ_NQ] = {MRC_QPS_RTS, MRC_QPS_RTS, MRC_QPS_RTR, MRC_QPS_INIT, MRC_QPS_ERR};

#define FZ_M_INIT (MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE)
#define FZ_M_RTR (MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU | MRC_ATTR_MPR_DEST | \
                  MRC_ATTR_MAX_WIMM_DEST)
#define FZ_M_RTS (MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY | \
                  MRC_ATTR_TIMEOUT)

static void fz_q_model_reset(fz_q *x) {
    x->psn = x->attr.rq_psn;
    x->msn = 1;
    x->rqmsn = 0;
    x->m_k = x->m_npk = 0;
    x->sent_any = 0;
    x->sent_lo = x->sent_hi = x->attr.sq_psn;
    x->nev = 0;
    x->msn_posted = 0;
}

/* RESET -> target through the legal path; the QP is attached and in RESET */
static void fz_q_goto(fz_q *x, unsigned target) {
    mrc_conn_attr a = x->attr;
    int rc;
    x->target = target;
    fz_q_model_reset(x);
    if (target == MRC_QPS_RESET) return;
    if (target == MRC_QPS_ERR) {
        a.state = MRC_QPS_ERR;
        rc = mrc_conn_modify(&x->c, &a, MRC_ATTR_STATE, g.now);
        FZ_CHECK(rc == MRC_OK, "RESET->ERR returned %d", rc);
        return;
    }
    a.state = MRC_QPS_INIT;
    rc = mrc_conn_modify(&x->c, &a, FZ_M_INIT | MRC_ATTR_PKEY | MRC_ATTR_ACCESS, g.now);
    FZ_CHECK(rc == MRC_OK, "RESET->INIT returned %d", rc);
    if (target == MRC_QPS_INIT) return;
    a.state = MRC_QPS_RTR;
    rc = mrc_conn_modify(&x->c, &a, FZ_M_RTR | MRC_ATTR_CAPS | MRC_ATTR_PEER, g.now);
    FZ_CHECK(rc == MRC_OK, "INIT->RTR returned %d", rc);
    if (target == MRC_QPS_RTR) return;
    a.state = MRC_QPS_RTS;
    rc = mrc_conn_modify(&x->c, &a, FZ_M_RTS, g.now);
    FZ_CHECK(rc == MRC_OK, "RTR->RTS returned %d", rc);
}

static void fz_q_attr(fz_q *x, unsigned i, fz_in *in) {
    uint8_t b0 = fz_u8(in), b1 = fz_u8(in), b2 = fz_u8(in);
    mrc_conn_attr *a = &x->attr;
    memset(a, 0, sizeof *a);
    a->pkey = (b0 & 0x80u) ? (uint16_t)(0x8000u | (b2 | 1u)) : 0xFFFFu;
    a->access = (b0 & 0x40u) ? 0u : MRC_ACCESS_REMOTE_WRITE;
    a->dest_qpn = 0x4000u + i;
    a->rq_psn = fz_u24(in);
    a->path_mtu = 256u << (b1 & 3u);
    a->mpr_dest = (uint8_t)(1u + ((b1 >> 2) & (MRC_MAX_MPR_UNITS - 1u)));
    a->max_wimm_dest = (uint16_t)(1u + ((b1 >> 3) & (MRC_MAX_WIMM - 1u)));
    a->caps = (b1 & 0x40u) ? MRC_CAP_DYNAMIC_MPR : 0u;
    a->peer = 0x1000u + i;
    a->sq_psn = fz_u24(in);
    a->mpr = (uint8_t)(1u + (b2 & 1u));
    a->max_wimm = (uint16_t)(1u + ((b2 >> 1) & 7u));
    a->retry_linear = (uint8_t)((b2 >> 4) & 3u);
    a->retry_exp = (b2 & 0x40u) ? 25u : 2u;
    a->timeout = (uint8_t)(b0 & 0x20u ? 0u : 4u + (b0 & 7u)); /* 0 = infinite; 16 us .. 2 ms */
}

/* a region registered under a core-drawn rkey, or with keyed set under the caller-chosen rkey key
 * (mrc_endpoint_reg_mr_key, P16): a key already in use is refused with MRC_ERR_BUSY, and the core draws one instead */
static void fz_mr_register(unsigned i, int keyed, uint32_t key) {
    fz_mr *m = &g.mr[i];
    void *base = m->external ? (void *)0 : m->base;
    int rc;
    if (keyed) {
        rc = mrc_endpoint_reg_mr_key(&g.ep, base, m->iova, m->len, m->access, m, key);
        FZ_CHECK(rc == MRC_OK || rc == MRC_ERR_BUSY, "reg_mr_key %u (0x%X) returned %d", i, (unsigned)key, rc);
        if (rc == MRC_OK) {
            m->rkey = key;
            m->valid = 1;
            return;
        }
    }
    rc = mrc_endpoint_reg_mr(&g.ep, base, m->iova, m->len, m->access, m, &m->rkey);
    FZ_CHECK(rc == MRC_OK, "reg_mr %u returned %d", i, rc);
    m->valid = 1;
}

static int fz_setup(fz_in *in) {
    uint8_t c0 = fz_u8(in), c1 = fz_u8(in), c2 = fz_u8(in), c3 = fz_u8(in);
    unsigned i;
    int rc;
    static const uint64_t lens[4] = {512, 1, 0, FZ_MRMAX};
    mrc_config_default(&g.cfg);
    g.cfg.seed = 0x5EEDu + c3;
    g.cfg.num_ports = (uint8_t)(1u + (c0 & 3u));
    g.cfg.wire.bth_m_bit = (c0 & 4u) ? 6 : 7;
    g.cfg.wire.sack_msb_first = (uint8_t)((c0 >> 3) & 1u);
    g.cfg.wire.eeth_op_shift = (c0 & 0x10u) ? 4 : 2;
    g.cfg.tseth = !(c0 & 0x20u);
    g.cfg.rx.nack_oor = (c0 & 0x40u) != 0;
    g.cfg.rx.window_inclusive = (c0 & 0x80u) != 0;
    g.cfg.ack.sack_every = (uint16_t)(1u + (c1 & 3u));
    g.cfg.ack.tack_every = (uint16_t)((c1 >> 2) & 3u);
    g.cfg.trimmable = !(c1 & 0x10u);
    g.cfg.ack.request_every = (uint16_t)((c1 >> 5) & 3u);
    g.cfg.cc.fixed_cwnd_bytes = (c2 & 0x80u) ? (uint32_t)(c2 & 0x7Fu) * 64u : 0u;
    if (c2 & 0x80u) g.cfg.cc.algo = g.cfg.cc.fixed_cwnd_bytes ? MRC_CC_ALGO_FIXED : MRC_CC_ALGO_NONE; /* else NSCC */
    g.cfg.wire.ts_shift = (uint8_t)((c2 & 0x40u) ? (c2 & 15u) : 7u);
    /* P16: random QPNs, or fixed ones at the top of the 24-bit space */
    g.cfg.qpn_base = (c3 & 0x80u) ? MRC_PSN_MASK - (uint32_t)MRC_MAX_CONNS : 0u;
    g.cfg.auto_ev.per_port = (uint16_t)(1u + ((c3 >> 4) & 3u));
    g.cfg.recovery.reorder_slack_ns = (c3 & 8u) ? 500u : 0u;
    g.cfg.place = fz_place;
    g.cfg.place_ud = &g;
    g.now = 1000000;
    rc = mrc_endpoint_init(&g.ep, &g.cfg, g.now);
    FZ_CHECK(rc == MRC_OK, "endpoint_init returned %d", rc);

    /* regions: 0 direct, 1 direct at the top of the IOVA space, 2 direct without remote write (its IOVA overlaps
     * region 0's), 3 external through the hook */
    memset(g.arena, FZ_GUARD_BYTE, sizeof g.arena);
    memset(g.ext, FZ_GUARD_BYTE, sizeof g.ext);
    for (i = 0; i < FZ_NMR; i++) {
        fz_mr *m = &g.mr[i];
        size_t j;
        memset(m, 0, sizeof *m);
        m->len = lens[(c2 >> (2u * (i & 1u))) & 3u];
        if (i == 1) m->len = (c2 & 0x20u) ? 300u : m->len;
        m->iova = i == 1 ? UINT64_MAX - m->len - ((c2 & 0x10u) ? 0u : 7u) : (i == 3 ? 0u : 0x10000u);
        if (i == 1 && m->len == 0) m->iova = UINT64_MAX;
        m->access = i == 2 ? 0u : MRC_ACCESS_REMOTE_WRITE;
        m->external = i == 3;
        if (m->external) m->access |= MRC_ACCESS_EXTERNAL;
        m->base = m->external ? (uint8_t *)0 : g.arena[i] + FZ_GUARD;
        for (j = 0; j < m->len; j++) (m->external ? g.ext : g.arena[i])[FZ_GUARD + j] = (uint8_t)(j * 7u + i);
        /* c3 bit 0: regions 1 and 3 under caller-chosen rkeys (one from the setup bytes, one shaped like a core key) */
        fz_mr_register(i, (c3 & 1u) && (i & 1u),
                       i == 1 ? (uint32_t)c0 << 24 | (uint32_t)c1 << 16 | (uint32_t)c2 << 8 | c3 : 0x400u | c1);
    }
    memcpy(g.shadow, g.arena, sizeof g.arena);
    memcpy(g.ext_shadow, g.ext, sizeof g.ext);
    for (i = 0; i < FZ_SRC; i++) g.src[i] = (uint8_t)(i * 13u + 5u);

    for (i = 0; i < FZ_NQ; i++) {
        fz_q *x = &g.q[i];
        uint8_t s = fz_u8(in);
        fz_q_attr(x, i, in);
        rc = mrc_conn_init(&g.ep, &x->c, g.now);
        FZ_CHECK(rc == MRC_OK, "conn_init %u returned %d", i, rc);
        x->attached = 1;
        fz_q_goto(x, (unsigned)(s + fz_default_state[i]) % 5u);
    }
    g.auto_events = 1;
    return 0;
}

/* ---- oracle helpers ------------------------------------------------------------------------------------------- */
FZ_NOCOV static void fz_mem_check(const char *after) {
    FZ_CHECK(memcmp(g.arena, g.shadow, sizeof g.arena) == 0, "memory changed outside an accepted placement (%s)",
             after);
    FZ_CHECK(memcmp(g.ext, g.ext_shadow, sizeof g.ext) == 0, "external region changed unexpectedly (%s)", after);
}

static int fz_q_of_qpn(uint32_t qpn) {
    unsigned i;
    for (i = 0; i < FZ_NQ; i++)
        if (g.q[i].attached && mrc_conn_qpn(&g.q[i].c) == qpn) return (int)i;
    return -1;
}

static void fz_events(void) {
    mrc_event ev;
    int rc;
    unsigned guard = 0;
    while ((rc = mrc_endpoint_poll_event(&g.ep, &ev)) == 1) {
        int qi = fz_q_of_qpn(ev.qpn);
        fz_q *x;
        FZ_CHECK(++guard < 10000, "poll_event never runs dry");
        if (ev.type > MRC_EVT_CONN_ERROR) continue; /* later event kinds (path manager, endpoint operations) */
        FZ_CHECK(qi >= 0 && ev.conn == &g.q[qi].c, "event for qpn %#x that is not an attached QP", ev.qpn);
        x = &g.q[qi];
        switch (ev.type) {
        case MRC_EVT_CONN_ERROR:
            FZ_CHECK(mrc_conn_state(&x->c) == MRC_QPS_ERR && mrc_err_is_fatal(ev.status), "CONN_ERROR %d, state %d",
                     ev.status, mrc_conn_state(&x->c));
            x->err_seen = 1;
            break;
        case MRC_EVT_SEND_DONE: {
            /* the next signaled write, or a failed one; unsignaled OK completions are silent */
            while (x->wr_reported != x->wr_posted && x->wr_id[x->wr_reported % FZ_WRS] != ev.wr_id) {
                FZ_CHECK(!x->wr_sig[x->wr_reported % FZ_WRS], "SEND_DONE %llu skipped signaled write %llu",
                         (unsigned long long)ev.wr_id, (unsigned long long)x->wr_id[x->wr_reported % FZ_WRS]);
                x->wr_reported++;
            }
            FZ_CHECK(x->wr_reported != x->wr_posted, "SEND_DONE wr_id %llu never posted (or out of order)",
                     (unsigned long long)ev.wr_id);
            FZ_CHECK(ev.status == MRC_OK ? ev.byte_len == x->wr_len[x->wr_reported % FZ_WRS]
                                         : (ev.byte_len == 0 && mrc_err_is_fatal(ev.status)),
                     "SEND_DONE status %d byte_len %u", ev.status, ev.byte_len);
            x->wr_reported++;
            break;
        }
        case MRC_EVT_RECV_IMM:
            FZ_CHECK(x->rq_pulled != x->rq_posted && ev.wr_id == x->rq_pulled, "RECV_IMM wr_id %llu, want %u",
                     (unsigned long long)ev.wr_id, x->rq_pulled);
            FZ_CHECK(ev.status == MRC_OK || ev.status == MRC_ERR_FLUSH, "RECV_IMM status %d", ev.status);
            x->rq_pulled++;
            break;
        default: FZ_CHECK(0, "event type %u", ev.type);
        }
    }
    FZ_CHECK(rc == 0, "poll_event returned %d", rc);
}

/* ---- receiving with the oracle ---------------------------------------------------------------------------------- */
static int fz_mr_of_rkey(uint32_t rkey) {
    unsigned i;
    for (i = 0; i < FZ_NMR; i++)
        if (g.mr[i].valid && g.mr[i].rkey == rkey) return (int)i;
    return -1;
}

static int fz_recv(const uint8_t *pkt, size_t len, const mrc_rxinfo *ri) {
    mrc_endpoint_stats s0, s1;
    mrc_conn_stats c0[FZ_NQ], c1;
    mrc_pkt k;
    uint8_t *copy;
    int rc, dec, qi = -1, moved, want = -1;
    unsigned i, conn_moves = 0;
    uint32_t place0 = g.place_calls;
    mrc_endpoint_stats_get(&g.ep, &s0);
    for (i = 0; i < FZ_NQ; i++) mrc_conn_stats_get(g.q[i].attached ? &g.q[i].c : (mrc_conn *)0, &c0[i]);
    dec = mrc_pkt_decode(pkt, len, &g.cfg.wire, &k);
    copy = (uint8_t *)malloc(len ? len : 1u); /* exact size: the core must not read past the packet */
    if (!copy) return MRC_ERR_INVAL;
    if (len) memcpy(copy, pkt, len);
    rc = mrc_endpoint_recv(&g.ep, copy, len, ri, g.now);
    free(copy);
    mrc_endpoint_stats_get(&g.ep, &s1);
    moved = fz_stats_step(&s0, &s1);
    if (ri->port < 1 || ri->port > g.cfg.num_ports) {
        FZ_CHECK(rc == MRC_ERR_INVAL && s1.rx_pkts == s0.rx_pkts && moved == -1, "recv on port %u returned %d",
                 ri->port, rc);
        fz_mem_check("recv on a bad port");
        return rc;
    }
    FZ_CHECK(rc == MRC_OK || rc == MRC_ERR_DROP, "recv returned %d", rc);
    FZ_CHECK(s1.rx_pkts == s0.rx_pkts + 1 && s1.rx_bytes == s0.rx_bytes + len, "rx_pkts/rx_bytes");
    FZ_CHECK(rc == MRC_OK ? moved == -1 : moved >= 0, "recv returned %d but drop counters moved %d", rc, moved);
    /* the classifier stages, restated */
    if (ri->flags & MRC_RX_ICRC_BAD) want = MRC_DROP_ICRC;
    else if (dec == MRC_ERR_TRUNC) want = MRC_DROP_SHORT;
    else if (dec < 0) want = mrc_opcode_hdrs(pkt[0]) ? MRC_DROP_MALFORMED : MRC_DROP_OPCODE;
    else if (k.bth.dest_qp == MRC_EPOP_QPN) /* endpoint operations: answered by cores that implement them */
        want = (k.bth.opcode == MRC_OP_EP_REQ || k.bth.opcode == MRC_OP_EP_RSP) ? -1 : MRC_DROP_OPCODE;
    else if ((qi = fz_q_of_qpn(k.bth.dest_qp)) < 0) want = MRC_DROP_QPN;
    else {
        mrc_conn_attr a;
        FZ_CHECK(mrc_conn_query(&g.q[qi].c, &a) == MRC_OK, "query");
        if ((k.bth.pkey & 0x7FFFu) != (a.pkey & 0x7FFFu)) want = MRC_DROP_PKEY;
        else if (k.bth.opcode == MRC_OP_EP_REQ || k.bth.opcode == MRC_OP_EP_RSP) want = MRC_DROP_OPCODE;
    }
    if (want >= 0)
        FZ_CHECK(rc == MRC_ERR_DROP && moved == want, "drop reason %s (rc %d), want %s",
                 moved >= 0 ? mrc_drop_name((unsigned)moved) : "none", rc, mrc_drop_name((unsigned)want));
    for (i = 0; i < FZ_NQ; i++) {
        uint64_t d;
        mrc_conn_stats_get(g.q[i].attached ? &g.q[i].c : (mrc_conn *)0, &c1);
        d = c1.rx_drops - c0[i].rx_drops;
        FZ_CHECK(c1.rx_drops >= c0[i].rx_drops && d <= 1 && (d == 0 || (int)i == qi), "conn %u rx_drops moved %llu",
                 i, (unsigned long long)d);
        conn_moves += (unsigned)d;
    }
    FZ_CHECK(conn_moves == ((rc == MRC_ERR_DROP && qi >= 0 && (ri->flags & MRC_RX_ICRC_BAD) == 0) ? 1u : 0u),
             "conn rx_drops moved %u for rc %d", conn_moves, rc);
    /* placement: exactly where the rkey and VA say, only into a region and QP that allow it */
    if (rc == MRC_OK && dec == MRC_OK && fz_op_is_data(k.bth.opcode) && k.payload_len > 0) {
        int mi = fz_mr_of_rkey(k.reth.rkey);
        mrc_conn_attr a;
        const fz_mr *m;
        uint64_t off;
        FZ_CHECK(mi >= 0, "accepted a %u-byte write with rkey %#x, which names no registered region", k.payload_len,
                 k.reth.rkey);
        m = &g.mr[mi];
        FZ_CHECK(m->access & MRC_ACCESS_REMOTE_WRITE, "accepted a write into region %d without remote write", mi);
        FZ_CHECK(mrc_conn_query(&g.q[qi].c, &a) == MRC_OK && (a.access & MRC_ACCESS_REMOTE_WRITE),
                 "accepted a write on a QP without remote write");
        FZ_CHECK(k.reth.va >= m->iova, "va below the region");
        off = k.reth.va - m->iova;
        FZ_CHECK(off <= m->len && k.payload_len <= m->len - off, "write [%llu, +%u) outside the %llu-byte region %d",
                 (unsigned long long)off, k.payload_len, (unsigned long long)m->len, mi);
        if (m->external) {
            FZ_CHECK(g.place_calls == place0 + 1, "external placement without exactly one hook call");
            memcpy(g.ext_shadow + FZ_GUARD + off, pkt + k.hdr_len, k.payload_len);
        } else {
            FZ_CHECK(g.place_calls == place0, "hook called for a direct region");
            memcpy(g.shadow[mi] + FZ_GUARD + off, pkt + k.hdr_len, k.payload_len);
        }
    } else if (moved == MRC_DROP_PLACE) {
        FZ_CHECK(g.place_fail && g.place_calls == place0 + 1, "PLACE drop without a refusing hook call");
    } else {
        FZ_CHECK(g.place_calls == place0, "hook called but nothing accepted (rc %d)", rc);
    }
    fz_mem_check("recv");
    return rc;
}

static void fz_hist_add(const uint8_t *p, size_t n) {
    unsigned i = g.hist_n++ % FZ_HIST;
    if (n > FZ_PKT) n = FZ_PKT;
    memcpy(g.hist[i], p, n);
    g.hist_len[i] = n;
}

static mrc_rxinfo fz_rxinfo(fz_in *in) {
    mrc_rxinfo ri;
    uint8_t b = fz_u8(in);
    memset(&ri, 0, sizeof ri);
    ri.port = (uint8_t)(1u + (b & 3u) % g.cfg.num_ports);
    if ((b & 0x0Fu) == 0x0Fu) ri.port = (uint8_t)(fz_u8(in) % (g.cfg.num_ports + 2u)); /* maybe out of range */
    ri.ecn = (uint8_t)((b >> 4) & 3u);
    switch (b >> 6) {
    case 0: ri.dscp = g.cfg.dscp[MRC_DSCP_TRIMMABLE]; break;
    case 1: ri.dscp = g.cfg.dscp[MRC_DSCP_TRIMMED]; break;
    case 2: ri.dscp = g.cfg.dscp[MRC_DSCP_TRIMMED_LASTHOP]; ri.flags = MRC_RX_TRIMMED; break;
    default:
        b = fz_u8(in);
        ri.dscp = (uint8_t)(b & 63u);
        ri.flags = (uint8_t)(b >> 6);
        break;
    }
    ri.ev = 0xC000u + (ri.port * 16u);
    return ri;
}

static fz_q *fz_pick_q(fz_in *in) { return &g.q[fz_u8(in) % FZ_NQ]; }
static uint16_t fz_pkey_of(const fz_q *x) {
    mrc_conn_attr a;
    return (x->attached && mrc_conn_query(&x->c, &a) == MRC_OK) ? a.pkey : 0xFFFFu;
}

/* the next segment of the peer's current message, then the mutations the mask asks for */
static void fz_op_data(fz_in *in) {
    fz_q *x = fz_pick_q(in);
    uint8_t mut = fz_u8(in), fl = fz_u8(in);
    uint32_t mtu = x->attr.path_mtu, k;
    fz_data d;
    mrc_rxinfo ri;
    size_t n;
    if (x->m_k >= x->m_npk) { /* a new message */
        uint8_t sel = fz_u8(in);
        const fz_mr *m = &g.mr[sel & 3u];
        x->m_len = fz_u16(in) % (4u * mtu + 1u);
        x->m_mr = sel & 3u;
        x->m_va = m->iova + (m->len ? fz_u16(in) % (m->len + 1u) : 0u);
        x->m_imm = (sel >> 2) & 1u;
        x->m_npk = x->m_len ? (x->m_len + mtu - 1u) / mtu : 1u;
        x->m_k = 0;
        x->msn++;
        if (x->m_imm) x->rqmsn++;
    }
    k = x->m_k++;
    memset(&d, 0, sizeof d);
    if (x->m_npk == 1) d.op = x->m_imm ? MRC_OP_WRITE_ONLY_IMM : MRC_OP_WRITE_ONLY;
    else if (k == 0) d.op = MRC_OP_WRITE_FIRST;
    else if (k + 1u == x->m_npk) d.op = x->m_imm ? MRC_OP_WRITE_LAST_IMM : MRC_OP_WRITE_LAST;
    else d.op = MRC_OP_WRITE_MIDDLE;
    d.qp = mrc_conn_qpn(&x->c);
    d.pkey = fz_pkey_of(x);
    d.psn = x->psn;
    x->psn = fz_psn_add(x->psn, 1);
    d.msn = (uint16_t)(x->msn - 1u);
    d.rqmsn = (uint16_t)(x->m_imm ? x->rqmsn - 1u : x->rqmsn);
    d.va = x->m_va + (uint64_t)k * mtu;
    d.rkey = g.mr[x->m_mr].rkey;
    d.dma_len = x->m_len;
    d.plen = x->m_len > k * mtu ? MRC__MIN(mtu, x->m_len - k * mtu) : 0u;
    d.imm = 0xABCD0000u + x->msn;
    d.pad = -1;
    d.a = (uint8_t)(k + 1u == x->m_npk || (fl & 1u));
    d.rtx = (fl >> 1) & 1u;
    d.se = (fl >> 2) & 1u;
    d.ts_on = (uint8_t)(((fl >> 3) & 1u) ? !g.cfg.tseth : g.cfg.tseth);
    d.ts = (uint16_t)(g.now >> 7);
    if (mut & 0x01u) d.psn = fz_psn_add(d.psn, (int8_t)fz_u8(in));
    if (mut & 0x02u) d.va = (fz_u8(in) & 1u) ? fz_u64(in) : d.va + (uint64_t)(int64_t)(int16_t)fz_u16(in);
    if (mut & 0x04u) {
        uint8_t r = fz_u8(in);
        d.rkey = (r & 0x80u) ? d.rkey ^ (uint32_t)(r & 0x7Fu) << ((r & 3u) * 8u) : g.mr[r & 3u].rkey;
    }
    if (mut & 0x08u) d.dma_len = (fz_u8(in) & 1u) ? fz_u32(in) : d.dma_len + (uint32_t)(int32_t)(int8_t)fz_u8(in);
    if (mut & 0x10u) d.plen = fz_u16(in) % (FZ_PKT - MRC_HDR_MAX - 4u);
    if (mut & 0x20u) d.pad = fz_u8(in) & 3u;
    if (mut & 0x40u) d.op = (uint8_t)(MRC_OP_WRITE_FIRST + fz_u8(in) % 6u);
    if (mut & 0x80u) {
        d.msn = fz_u16(in);
        d.rqmsn = fz_u16(in);
    }
    if (d.plen > FZ_SRC) d.plen = FZ_SRC;
    d.pl = g.src + (fz_u8(in) % 64u);
    if (d.plen > FZ_SRC - 64u) d.plen = FZ_SRC - 64u;
    ri = fz_rxinfo(in);
    n = fz_build_data(g.pkt, sizeof g.pkt, &g.cfg.wire, &d);
    if (!n) return;
    fz_hist_add(g.pkt, n);
    (void)fz_recv(g.pkt, n, &ri);
}

/* a PSN near what the QP's requester really sent */
static uint32_t fz_sent_psn(const fz_q *x, fz_in *in) {
    uint8_t b = fz_u8(in);
    uint32_t span = (uint32_t)fz_psn_diff(x->sent_hi, x->sent_lo);
    if (b & 0x80u) return fz_u24(in);
    return fz_psn_add(x->sent_lo, (int32_t)((uint32_t)(b & 0x7Fu) % (span + 3u)) - 1);
}

static void fz_op_sack(fz_in *in) {
    fz_q *x = fz_pick_q(in);
    uint8_t sel = fz_u8(in);
    mrc_seth s;
    mrc_cc_state cs;
    mrc_rxinfo ri;
    uint32_t cack = fz_sent_psn(x, in);
    size_t n;
    memset(&s, 0, sizeof s);
    memset(&cs, 0, sizeof cs);
    s.cack_psn = cack;
    s.ack_psn_offset = (int16_t)(int8_t)fz_u8(in);
    s.sack_offset = (int16_t)(sel & 0x40u ? (int16_t)fz_u16(in) : (int8_t)fz_u8(in));
    s.sack_bitmap = fz_u64(in);
    s.pr = (sel >> 2) & 1u;
    s.m = (uint8_t)((sel >> 3) & 3u);
    s.entropy = (x->nev && !(sel & 0x20u)) ? x->evs[fz_u8(in) % x->nev] : fz_u32(in);
    s.mpr = (uint8_t)(sel & 0x80u ? fz_u8(in) : 0u);
    cs.tx_timestamp = (sel & 1u) ? fz_u16(in) : (uint16_t)(g.now >> g.cfg.wire.ts_shift);
    n = fz_build_sack(g.pkt, &g.cfg.wire, mrc_conn_qpn(&x->c), fz_pkey_of(x), (sel & 2u) ? fz_u24(in) : cack, &s, &cs);
    ri = fz_rxinfo(in);
    fz_hist_add(g.pkt, n);
    (void)fz_recv(g.pkt, n, &ri);
}

static void fz_op_nack(fz_in *in) {
    static const uint8_t reasons[8] = {MRC_NACK_TRIMMED, MRC_NACK_TRIMMED_LASTHOP, MRC_NACK_NO_BITMAP,
                                       MRC_NACK_NO_PKT_BUFFER, MRC_NACK_NO_RESOURCE, MRC_NACK_PSN_OOR_WINDOW,
                                       MRC_NACK_UNEXP_EVENT, 0};
    fz_q *x = fz_pick_q(in);
    uint8_t sel = fz_u8(in), reason = reasons[sel & 7u];
    uint32_t psn = fz_sent_psn(x, in);
    uint16_t ts = (sel & 8u) ? fz_u16(in) : (uint16_t)(g.now >> g.cfg.wire.ts_shift);
    mrc_rxinfo ri;
    size_t n;
    if ((sel & 7u) == 7u) reason = fz_u8(in);
    n = fz_build_nack(g.pkt, &g.cfg.wire, mrc_conn_qpn(&x->c), fz_pkey_of(x), (sel & 0x10u) ? fz_u24(in) : psn, psn,
                      reason, ts);
    ri = fz_rxinfo(in);
    fz_hist_add(g.pkt, n);
    (void)fz_recv(g.pkt, n, &ri);
}

static void fz_op_aeth(fz_in *in) {
    static const uint8_t syn[8] = {MRC_AETH_ACK, 0x00, 0x20, MRC_AETH_NAK_PSN_SEQ, MRC_AETH_NAK_INV_REQ,
                                   MRC_AETH_NAK_REM_ACCESS, MRC_AETH_NAK_REM_OP, 0};
    fz_q *x = fz_pick_q(in);
    uint8_t sel = fz_u8(in), s = syn[sel & 7u];
    uint32_t msn = (sel & 8u) ? fz_u24(in) : (uint32_t)(uint16_t)(x->msn_posted - (fz_u8(in) % 8u));
    mrc_rxinfo ri;
    size_t n;
    if ((sel & 7u) == 7u) s = fz_u8(in);
    n = fz_build_aeth(g.pkt, &g.cfg.wire, mrc_conn_qpn(&x->c), fz_pkey_of(x), fz_u24(in), s, msn);
    ri = fz_rxinfo(in);
    fz_hist_add(g.pkt, n);
    (void)fz_recv(g.pkt, n, &ri);
}

static void fz_op_probe_epop(fz_in *in) {
    fz_q *x = fz_pick_q(in);
    uint8_t sel = fz_u8(in);
    mrc_rxinfo ri;
    size_t n;
    if (sel & 1u) {
        n = fz_build_probe(g.pkt, &g.cfg.wire, mrc_conn_qpn(&x->c), fz_pkey_of(x), fz_u24(in), fz_u16(in),
                           fz_u16(in));
    } else {
        uint32_t qp = (sel & 2u) ? mrc_conn_qpn(&x->c) : MRC_EPOP_QPN;
        unsigned op = (sel & 4u) ? MRC_OP_EP_RSP : MRC_OP_EP_REQ;
        if (sel & 8u) op = fz_u8(in);
        n = fz_build_epop(g.pkt, &g.cfg.wire, op, qp, fz_u8(in), fz_u32(in));
        if (!mrc_opcode_hdrs(op)) n = MRC_BTH_LEN + (sel >> 4);
    }
    ri = fz_rxinfo(in);
    fz_hist_add(g.pkt, n);
    (void)fz_recv(g.pkt, n, &ri);
}

/* raw bytes, optionally with a BTH aimed at a real QP */
static void fz_op_raw(fz_in *in) {
    uint8_t sel = fz_u8(in);
    size_t n = fz_u8(in);
    const uint8_t *p;
    mrc_rxinfo ri;
    if (sel & 1u) n = n * 16u + (sel >> 4);
    p = fz_bytes(in, &n);
    memcpy(g.pkt, p, n);
    if ((sel & 2u) && n >= MRC_BTH_LEN) {
        const fz_q *x = &g.q[(sel >> 2) % FZ_NQ];
        uint32_t qp = mrc_conn_qpn(&x->c);
        uint16_t pk = fz_pkey_of(x);
        g.pkt[2] = (uint8_t)(pk >> 8);
        g.pkt[3] = (uint8_t)pk;
        g.pkt[5] = (uint8_t)(qp >> 16);
        g.pkt[6] = (uint8_t)(qp >> 8);
        g.pkt[7] = (uint8_t)qp;
    }
    ri = fz_rxinfo(in);
    fz_hist_add(g.pkt, n);
    (void)fz_recv(g.pkt, n, &ri);
}

/* an earlier packet again (duplicate, reordering), maybe with bits flipped or its tail cut */
static void fz_op_replay(fz_in *in) {
    uint8_t sel = fz_u8(in), flips = fz_u8(in) & 7u, i;
    unsigned h;
    size_t n;
    mrc_rxinfo ri;
    if (!g.hist_n) return;
    h = (g.hist_n - 1u - (sel & 15u) % MRC__MIN(g.hist_n, (unsigned)FZ_HIST)) % FZ_HIST;
    n = g.hist_len[h];
    memcpy(g.pkt, g.hist[h], n);
    for (i = 0; i < flips && n; i++) {
        uint16_t pos = fz_u16(in);
        g.pkt[pos % n] ^= (uint8_t)(1u << (pos >> 13));
    }
    if (sel & 0x10u) n = n > 0 ? fz_u16(in) % n : 0; /* cut */
    if (sel & 0x20u) { /* set the retransmission bit of a data packet */
        if (n > 8) g.pkt[8] |= 0x20u;
    }
    ri = fz_rxinfo(in);
    (void)fz_recv(g.pkt, n, &ri);
}

/* ---- transmit -------------------------------------------------------------------------------------------------- */
static void fz_check_tx(int n, const uint8_t *buf, unsigned flags, const mrc_txinfo *ti) {
    mrc_pkt k;
    size_t len;
    const uint8_t *wire;
    int qi;
    mrc_conn_attr a;
    FZ_CHECK(ti->hdr_len <= MRC_HDR_MAX && ti->pad <= 3u, "txinfo hdr_len %u pad %u", ti->hdr_len, ti->pad);
    if (flags & MRC_TX_COPY) {
        FZ_CHECK((size_t)n == (size_t)ti->hdr_len + ti->payload_len + ti->pad, "COPY returned %d", n);
        FZ_CHECK(ti->payload_len == 0 || ti->payload == buf + ti->hdr_len, "COPY payload pointer");
        wire = buf;
        len = (size_t)n;
    } else {
        FZ_CHECK((uint32_t)n == ti->hdr_len, "poll_tx returned %d, hdr_len %u", n, ti->hdr_len);
        FZ_CHECK(ti->payload_len == 0 || (ti->payload >= g.src && ti->payload + ti->payload_len <= g.src + FZ_SRC),
                 "payload pointer outside every posted buffer");
        memcpy(g.pkt, buf, ti->hdr_len);
        if (ti->payload_len) memcpy(g.pkt + ti->hdr_len, ti->payload, ti->payload_len);
        memset(g.pkt + ti->hdr_len + ti->payload_len, 0, ti->pad);
        wire = g.pkt;
        len = (size_t)ti->hdr_len + ti->payload_len + ti->pad;
    }
    FZ_CHECK(mrc_pkt_decode(wire, len, &g.cfg.wire, &k) == MRC_OK, "emitted packet does not decode");
    FZ_CHECK(k.hdr_len == ti->hdr_len && k.payload_len == ti->payload_len && k.bth.pad == ti->pad &&
                 k.bth.opcode == ti->opcode,
             "emitted headers disagree with txinfo");
    FZ_CHECK(mrc_endpoint_port_up(&g.ep, ti->port), "sent on port %u, which is down or invalid", ti->port);
    if (ti->qpn == MRC_EPOP_QPN) { /* an endpoint operation: to the peer's QP 0x2, never data */
        FZ_CHECK(k.bth.dest_qp == MRC_EPOP_QPN && !fz_op_is_data(k.bth.opcode), "endpoint operation to qpn %#x",
                 k.bth.dest_qp);
        return;
    }
    qi = fz_q_of_qpn(ti->qpn);
    FZ_CHECK(qi >= 0, "emitted by qpn %#x, no such QP", ti->qpn);
    FZ_CHECK(mrc_conn_query(&g.q[qi].c, &a) == MRC_OK && k.bth.dest_qp == a.dest_qpn && ti->peer == a.peer &&
                 k.bth.pkey == a.pkey,
             "emitted to the wrong peer");
    if (fz_op_is_data(k.bth.opcode)) {
        fz_q *x = &g.q[qi];
        FZ_CHECK(a.state == MRC_QPS_RTS, "data sent in state %u", a.state);
        FZ_CHECK(k.payload_len <= a.path_mtu, "payload %u > path MTU", k.payload_len);
        if (!x->sent_any) {
            x->sent_any = 1;
            x->sent_lo = x->sent_hi = k.bth.psn;
        }
        if (!k.bth.rtx && fz_psn_diff(k.bth.psn, x->sent_hi) >= 0) x->sent_hi = fz_psn_add(k.bth.psn, 1);
        if (x->nev < 8) x->evs[x->nev++] = ti->ev;
        else x->evs[k.bth.psn & 7u] = ti->ev;
    }
}

static void fz_op_poll(fz_in *in) {
    uint8_t b = fz_u8(in);
    unsigned i, n = 1u + (b & 7u), flags = (b & 8u) ? MRC_TX_COPY : 0u;
    size_t cap;
    switch ((b >> 4) & 3u) {
    case 0: cap = sizeof g.txbuf; break;
    case 1: cap = MRC_HDR_MAX; break;
    case 2: cap = MRC_HDR_MAX - 1u; break;
    default: cap = MRC__MIN(sizeof g.txbuf, (size_t)MRC_HDR_MAX + (size_t)fz_u8(in) * 16u); break;
    }
    if (b & 0x40u) n = 64;
    for (i = 0; i < n; i++) {
        mrc_txinfo ti;
        mrc_endpoint_stats s0, s1;
        int r;
        mrc_endpoint_stats_get(&g.ep, &s0);
        r = mrc_endpoint_poll_tx(&g.ep, g.txbuf, cap, flags, &ti, g.now);
        mrc_endpoint_stats_get(&g.ep, &s1);
        (void)fz_stats_step(&s0, &s1);
        if (cap < MRC_HDR_MAX) {
            FZ_CHECK(r == MRC_ERR_NOBUF && s1.tx_pkts == s0.tx_pkts, "poll_tx into %zu bytes returned %d", cap, r);
            break;
        }
        if (r == MRC_ERR_NOBUF) {
            FZ_CHECK(flags & MRC_TX_COPY, "NOBUF without COPY at cap %zu", cap);
            FZ_CHECK(s1.tx_pkts == s0.tx_pkts, "NOBUF counted a packet");
            r = mrc_endpoint_poll_tx(&g.ep, g.txbuf, sizeof g.txbuf, flags, &ti, g.now);
            if (r == 0) { /* NOBUF is decided before the EV: legitimate only when no EV's port is up */
                unsigned p, up = 0;
                for (p = 1; p <= g.cfg.num_ports; p++) up += mrc_endpoint_port_up(&g.ep, p);
                FZ_CHECK(up < g.cfg.num_ports, "after NOBUF a large buffer got 0 with every port up: consumed");
            }
        }
        FZ_CHECK(r >= 0, "poll_tx returned %d", r);
        if (r == 0) break;
        fz_check_tx(r, g.txbuf, flags, &ti);
    }
    fz_mem_check("poll_tx");
}

/* ---- application calls ------------------------------------------------------------------------------------------ */
static uint64_t g_wr_seq;

static void fz_op_post_write(fz_in *in) {
    fz_q *x = fz_pick_q(in);
    uint8_t sel = fz_u8(in), fl = fz_u8(in);
    mrc_write w;
    const fz_mr *m = &g.mr[sel & 3u];
    uint32_t off;
    int rc, want = 1;
    memset(&w, 0, sizeof w);
    w.wr_id = ++g_wr_seq;
    w.opcode = (sel & 0x80u) ? fz_u8(in) % 9u : (sel >> 2) & 1u;
    w.flags = fl & 3u;
    if (fl & 0x80u) w.flags |= (uint32_t)fz_u8(in) << 2;
    w.len = fz_u16(in) % (FZ_SRC / 2u);
    off = fz_u16(in) % (FZ_SRC - w.len + 1u);
    w.buf = (fl & 0x40u) ? (const void *)0 : g.src + off;
    w.remote_va = (sel & 0x40u) ? fz_u64(in) : m->iova + fz_u16(in) % (m->len + 1u);
    w.rkey = (sel & 0x20u) ? fz_u32(in) : m->rkey;
    w.imm = fz_u32(in);
    if (!x->attached) return;
    rc = mrc_conn_post_write(&x->c, &w, g.now);
    if (w.opcode >= MRC_WR_SEND && w.opcode <= MRC_WR_ATOMIC_FADD) want = MRC_ERR_NOTSUP;
    else if (w.opcode > MRC_WR_WRITE_IMM || (w.flags & ~3u) || (w.len && !w.buf) || w.remote_va > UINT64_MAX - w.len)
        want = MRC_ERR_INVAL;
    else if (mrc_conn_state(&x->c) != MRC_QPS_RTS) want = MRC_ERR_STATE;
    if (want != 1) {
        FZ_CHECK(rc == want, "post_write returned %d, want %d", rc, want);
        return;
    }
    FZ_CHECK(rc == MRC_OK || rc == MRC_ERR_FULL, "post_write returned %d", rc);
    if (rc == MRC_ERR_FULL) {
        FZ_CHECK(x->wr_posted - x->wr_reported >= MRC_MAX_SQ, "FULL with %u outstanding",
                 x->wr_posted - x->wr_reported);
        return;
    }
    x->wr_id[x->wr_posted % FZ_WRS] = w.wr_id;
    x->wr_sig[x->wr_posted % FZ_WRS] = !(w.flags & MRC_WR_UNSIGNALED);
    x->wr_len[x->wr_posted % FZ_WRS] = w.len;
    x->wr_posted++;
    x->msn_posted++;
}

static void fz_op_post_recv(fz_in *in) {
    fz_q *x = fz_pick_q(in);
    unsigned n = 1u + (fz_u8(in) & 7u), i;
    for (i = 0; i < n && x->attached; i++) {
        int st = mrc_conn_state(&x->c), rc = mrc_conn_post_recv(&x->c, x->rq_posted, g.now), want;
        if (st == MRC_QPS_RESET || st == MRC_QPS_ERR) want = MRC_ERR_STATE;
        else if (x->rq_posted - x->rq_pulled >= MRC_MAX_RQ) want = MRC_ERR_FULL;
        else want = MRC_OK;
        FZ_CHECK(rc == want, "post_recv returned %d, want %d (state %d, %u posted, %u pulled)", rc, want, st,
                 x->rq_posted, x->rq_pulled);
        if (rc == MRC_OK) x->rq_posted++;
    }
}

/* what the harness's model must forget when the core clears a QP */
static void fz_q_cleared(fz_q *x) {
    x->wr_reported = x->wr_posted;
    x->rq_posted = x->rq_pulled = 0;
    x->err_seen = 0;
}

static void fz_q_after_modify(fz_q *x, int old_state) {
    mrc_conn_attr a;
    int st = mrc_conn_state(&x->c);
    if (st == old_state) return;
    FZ_CHECK(mrc_conn_query(&x->c, &a) == MRC_OK, "query");
    if (st == MRC_QPS_RESET) fz_q_cleared(x);
    if (st == MRC_QPS_RTR) {
        x->psn = a.rq_psn;
        x->msn = 1;
        x->rqmsn = 0;
        x->m_k = x->m_npk = 0;
        x->attr.path_mtu = a.path_mtu;
    }
    if (st == MRC_QPS_RTS) {
        x->sent_any = 0;
        x->sent_lo = x->sent_hi = a.sq_psn;
        x->msn_posted = 0;
    }
}

static void fz_op_manage(fz_in *in) {
    uint8_t sel = fz_u8(in);
    fz_q *x = fz_pick_q(in);
    int rc, st = x->attached ? mrc_conn_state(&x->c) : -1;
    mrc_conn_attr a;
    memset(&a, 0, sizeof a);
    switch (sel & 7u) {
    case 0: /* to ERR */
        if (!x->attached) break;
        a.state = MRC_QPS_ERR;
        rc = mrc_conn_modify(&x->c, &a, MRC_ATTR_STATE, g.now);
        FZ_CHECK(rc == MRC_OK && mrc_conn_state(&x->c) == MRC_QPS_ERR, "to ERR returned %d", rc);
        break;
    case 1: /* RESET and set up again (maybe to another state) */
        if (!x->attached) break;
        a.state = MRC_QPS_RESET;
        rc = mrc_conn_modify(&x->c, &a, MRC_ATTR_STATE, g.now);
        FZ_CHECK(rc == MRC_OK && mrc_conn_state(&x->c) == MRC_QPS_RESET, "to RESET returned %d", rc);
        fz_q_cleared(x);
        if (sel & 8u) x->attr.rq_psn = fz_u24(in);
        if (sel & 16u) x->attr.sq_psn = fz_u24(in);
        fz_q_goto(x, (sel >> 5) % 5u);
        break;
    case 2: { /* any attributes, any mask */
        uint32_t mask = fz_u32(in) & 0x1FFFFu;
        a.state = fz_u8(in) % 6u;
        a.pkey = fz_u16(in);
        a.access = fz_u8(in) & 3u;
        a.ev_profile_id = fz_u8(in) & 1u;
        a.cc_profile_id = fz_u8(in) & 1u;
        a.dest_qpn = fz_u32(in) & 0x1FFFFFFu;
        a.rq_psn = fz_u32(in) & 0x1FFFFFFu;
        a.path_mtu = 128u << (fz_u8(in) % 7u);
        a.mpr_dest = fz_u8(in) % (MRC_MAX_MPR_UNITS + 2u);
        a.max_wimm_dest = (uint16_t)(fz_u8(in) % (MRC_MAX_WIMM + 2u));
        a.caps = fz_u8(in) & 0xFu;
        a.peer = fz_u32(in);
        a.sq_psn = fz_u32(in) & 0x1FFFFFFu;
        a.mpr = fz_u8(in) % 4u;
        a.max_wimm = (uint16_t)(fz_u8(in) % 10u);
        a.retry_linear = fz_u8(in) % 9u;
        a.retry_exp = fz_u8(in) % 27u;
        a.timeout = fz_u8(in) % 26u;
        if (!x->attached) break;
        rc = mrc_conn_modify(&x->c, &a, mask, g.now);
        FZ_CHECK(rc == MRC_OK || rc == MRC_ERR_INVAL || rc == MRC_ERR_STATE || rc == MRC_ERR_NOENT,
                 "modify returned %d", rc);
        if (rc != MRC_OK) FZ_CHECK(mrc_conn_state(&x->c) == st, "a failed modify changed the state");
        else fz_q_after_modify(x, st);
        break;
    }
    case 3: { /* memory regions: deregister, register again, bad registrations */
        unsigned i = (sel >> 3) & 3u;
        fz_mr *m = &g.mr[i];
        if (sel & 0x20u) {
            if (m->valid) {
                rc = mrc_endpoint_dereg_mr(&g.ep, m->rkey);
                FZ_CHECK(rc == MRC_OK, "dereg returned %d", rc);
                m->valid = 0;
                rc = mrc_endpoint_dereg_mr(&g.ep, m->rkey);
                FZ_CHECK(rc == MRC_ERR_NOENT, "second dereg returned %d", rc);
            } else {
                uint8_t how = fz_u8(in); /* bit 0: a caller-chosen rkey, random or shaped like a core key */
                fz_mr_register(i, how & 1u, (how & 2u) ? fz_u32(in) : (uint32_t)(how >> 2) << 8);
            }
        } else {
            uint32_t rk = 0;
            uint8_t v = fz_u8(in);
            int want;
            void *base = (v & 1u) ? (void *)0 : g.arena[0] + FZ_GUARD;
            uint64_t iova = (v & 2u) ? UINT64_MAX - 10u : 0x20000u, len = (v & 4u) ? 100u : 11u;
            uint32_t acc = (v >> 3) & 7u;
            if (acc & ~3u) want = MRC_ERR_INVAL;
            else if (!base && !(acc & MRC_ACCESS_EXTERNAL)) want = MRC_ERR_INVAL;
            else if (len > UINT64_MAX - iova) want = MRC_ERR_INVAL;
            else want = MRC_ERR_FULL; /* every slot is taken unless one was deregistered */
            for (i = 0; i < FZ_NMR; i++)
                if (!g.mr[i].valid) want = want == MRC_ERR_FULL ? MRC_OK : want;
            if (want == MRC_OK) break; /* a fifth region would go unmodelled: only the refusals are checked */
            rc = mrc_endpoint_reg_mr(&g.ep, base, iova, len, acc, (void *)0, &rk);
            FZ_CHECK(rc == want, "reg_mr returned %d, want %d", rc, want);
        }
        break;
    }
    case 4: { /* ports */
        unsigned port = fz_u8(in) % (g.cfg.num_ports + 2u);
        bool up = (sel >> 3) & 1u;
        rc = mrc_endpoint_port_set(&g.ep, port, up, g.now);
        if (port < 1 || port > g.cfg.num_ports) FZ_CHECK(rc == MRC_ERR_INVAL, "port_set(%u) returned %d", port, rc);
        else FZ_CHECK(rc == MRC_OK && mrc_endpoint_port_up(&g.ep, port) == up, "port_set(%u) returned %d", port, rc);
        break;
    }
    case 5: /* the placement hook refuses (or accepts again) */ g.place_fail = !g.place_fail; break;
    case 6: /* destroy, or attach again */
        if (x->attached) {
            rc = mrc_conn_destroy(&x->c);
            if (st == MRC_QPS_RESET || st == MRC_QPS_ERR) {
                FZ_CHECK(rc == MRC_OK, "destroy in state %d returned %d", st, rc);
                x->attached = 0;
                fz_q_cleared(x);
            } else {
                FZ_CHECK(rc == MRC_ERR_STATE, "destroy in state %d returned %d", st, rc);
            }
        } else {
            rc = mrc_conn_init(&g.ep, &x->c, g.now);
            FZ_CHECK(rc == MRC_OK, "conn_init returned %d", rc);
            x->attached = 1;
            fz_q_goto(x, (sel >> 3) % 5u);
        }
        break;
    default: /* RTS -> RTS with new retry/timeout */
        if (!x->attached) break;
        a.state = MRC_QPS_RTS;
        a.retry_linear = fz_u8(in) % 9u;
        a.retry_exp = fz_u8(in) % 27u;
        a.timeout = fz_u8(in) % 26u;
        rc = mrc_conn_modify(&x->c, &a, MRC_ATTR_STATE | MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT, g.now);
        if (st == MRC_QPS_RTR) FZ_CHECK(rc == MRC_ERR_INVAL, "RTR->RTS without its attributes returned %d", rc);
        else if (st != MRC_QPS_RTS) FZ_CHECK(rc == MRC_ERR_STATE, "RTS->RTS from %d returned %d", st, rc);
        else if (a.retry_linear > 7 || a.retry_exp > 25 || a.timeout > 24) FZ_CHECK(rc == MRC_ERR_INVAL, "%d", rc);
        else FZ_CHECK(rc == MRC_OK, "RTS->RTS returned %d", rc);
        break;
    }
    fz_mem_check("manage");
}

static void fz_op_time(fz_in *in) {
    uint8_t sel = fz_u8(in);
    uint64_t dt = (uint64_t)fz_u16(in) << (sel % 24u);
    mrc_time dl;
    int rc;
    g.now += dt;
    dl = mrc_endpoint_next_deadline(&g.ep);
    if ((sel & 0x80u) && dl > g.now) return; /* only when due */
    rc = mrc_endpoint_on_timeout(&g.ep, (sel & 0x40u) && g.now > 1000u ? g.now - 1000u : g.now);
    FZ_CHECK(rc == MRC_OK, "on_timeout returned %d", rc);
    if (!(sel & 0x40u))
        FZ_CHECK(mrc_endpoint_next_deadline(&g.ep) > g.now, "a deadline at %llu <= now %llu after on_timeout",
                 (unsigned long long)mrc_endpoint_next_deadline(&g.ep), (unsigned long long)g.now);
    fz_mem_check("on_timeout");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in;
    unsigned ops, i;
    memset(&g, 0, sizeof g);
    g_wr_seq = 0;
    fz_init(&in, data, size);
    if (fz_setup(&in) != 0) return 0;
    fz_invariants(&g.ep);
    for (ops = 0; ops < FZ_MAX_OPS && fz_left(&in) > 0; ops++) {
        uint8_t op = fz_u8(&in);
        g.now += (uint64_t)(op >> 4) * 97u;
        switch (op & 15u) {
        case 0: case 1: case 2: fz_op_data(&in); break;
        case 3: fz_op_replay(&in); break;
        case 4: fz_op_raw(&in); break;
        case 5: fz_op_sack(&in); break;
        case 6: fz_op_nack(&in); break;
        case 7: fz_op_aeth(&in); break;
        case 8: fz_op_probe_epop(&in); break;
        case 9: fz_op_time(&in); break;
        case 10: case 11: fz_op_poll(&in); break;
        case 12: fz_op_post_write(&in); break;
        case 13: fz_op_post_recv(&in); break;
        case 14: fz_op_manage(&in); break;
        default: g.auto_events = !g.auto_events; fz_events(); break;
        }
        if (g.auto_events) fz_events();
        fz_invariants(&g.ep);
    }
    /* wind down: every timer runs, everything queued goes out */
    for (i = 0; i < 4; i++) {
        mrc_txinfo ti;
        int r, n = 0;
        g.now += (mrc_time)1 << (20u + 3u * i);
        FZ_CHECK(mrc_endpoint_on_timeout(&g.ep, g.now) == MRC_OK, "on_timeout");
        FZ_CHECK(mrc_endpoint_next_deadline(&g.ep) > g.now, "deadline in the past after on_timeout");
        while ((r = mrc_endpoint_poll_tx(&g.ep, g.txbuf, sizeof g.txbuf, MRC_TX_COPY, &ti, g.now)) > 0 && n++ < 4096)
            fz_check_tx(r, g.txbuf, MRC_TX_COPY, &ti);
        FZ_CHECK(r >= 0, "poll_tx returned %d", r);
        fz_events();
        fz_invariants(&g.ep);
    }
    fz_mem_check("end");
    return 0;
}
