/* tests/util.c - the unit tests' shared helpers (declared in tests/test.h): the PRNG, byte and typed header
 * comparison, the one-endpoint fixture (ut_fix: one endpoint, one connection, one registered region between guard
 * bands), hand-built packets, and the requester's drain and feed helpers. */
#include "test.h"

uint64_t trand(trng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
uint32_t trand_below(trng *r, uint32_t n) { return n ? (uint32_t)(trand(r) % n) : 0; }

/* 1 when equal; otherwise prints the first differing bytes */
int ut_bytes_eq(const char *what, const uint8_t *got, const uint8_t *want, size_t n) {
    size_t i;
    unsigned bad = 0;
    for (i = 0; i < n; i++) {
        if (got[i] == want[i]) continue;
        if (bad < 8) printf("    %s: byte %u is 0x%02X, want 0x%02X\n", what, (unsigned)i, got[i], want[i]);
        bad++;
    }
    if (bad) printf("    %s: %u byte(s) differ\n", what, bad);
    return bad == 0;
}

int ut_all(const uint8_t *p, size_t n, uint8_t v) {
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

mrc_wire_opts ut_opts(unsigned mbit, unsigned msb_first, unsigned eshift) {
    mrc_wire_opts o;
    memset(&o, 0, sizeof o);
    o.bth_m_bit = (uint8_t)mbit;
    o.sack_msb_first = (uint8_t)msb_first;
    o.eeth_op_shift = (uint8_t)eshift;
    o.ts_shift = 7;
    return o;
}

/* ---- typed field comparison (prints the first differing field) --------------------------------------------- */
#define UT_FEQ(f)                                                                                            \
    do {                                                                                                     \
        if ((uint64_t)(a->f) != (uint64_t)(b->f)) {                                                          \
            printf("    field %s: %lld vs %lld\n", #f, (long long)(a->f), (long long)(b->f));                 \
            return 0;                                                                                        \
        }                                                                                                    \
    } while (0)
int ut_eq_bth(const mrc_bth *a, const mrc_bth *b) {
    UT_FEQ(opcode); UT_FEQ(se); UT_FEQ(m); UT_FEQ(pad); UT_FEQ(tver); UT_FEQ(resv8); UT_FEQ(a); UT_FEQ(r);
    UT_FEQ(rtx); UT_FEQ(ts); UT_FEQ(pkey); UT_FEQ(dest_qp); UT_FEQ(psn);
    return 1;
}
int ut_eq_meth(const mrc_meth *a, const mrc_meth *b) {
    UT_FEQ(rqmsn); UT_FEQ(msn);
    return 1;
}
int ut_eq_tseth(const mrc_tseth *a, const mrc_tseth *b) {
    UT_FEQ(tx_timestamp); UT_FEQ(tsr); UT_FEQ(ftype);
    return 1;
}
int ut_eq_reth(const mrc_reth *a, const mrc_reth *b) {
    UT_FEQ(va); UT_FEQ(rkey); UT_FEQ(dma_len);
    return 1;
}
int ut_eq_aeth(const mrc_aeth *a, const mrc_aeth *b) {
    UT_FEQ(syndrome); UT_FEQ(msn);
    return 1;
}
int ut_eq_seth(const mrc_seth *a, const mrc_seth *b) {
    UT_FEQ(type); UT_FEQ(nxt); UT_FEQ(m); UT_FEQ(pr); UT_FEQ(ack_psn_offset); UT_FEQ(entropy); UT_FEQ(spdcid);
    UT_FEQ(dpdcid); UT_FEQ(cack_psn); UT_FEQ(cc_type); UT_FEQ(cc_fl); UT_FEQ(mpr); UT_FEQ(sack_offset);
    UT_FEQ(sack_bitmap);
    return 1;
}
int ut_eq_cc(const mrc_cc_state *a, const mrc_cc_state *b) {
    UT_FEQ(tx_timestamp); UT_FEQ(ooo_count); UT_FEQ(r_c); UT_FEQ(rcv_cwnd_pen); UT_FEQ(rcvd_bytes);
    return 1;
}
int ut_eq_neth(const mrc_neth *a, const mrc_neth *b) {
    UT_FEQ(type); UT_FEQ(nxt); UT_FEQ(nack_reason); UT_FEQ(vendor_info); UT_FEQ(entropy); UT_FEQ(spdcid);
    UT_FEQ(dpdcid); UT_FEQ(nack_psn); UT_FEQ(cc_type); UT_FEQ(cc_fl); UT_FEQ(tx_timestamp);
    return 1;
}
int ut_eq_peth(const mrc_peth *a, const mrc_peth *b) {
    UT_FEQ(type); UT_FEQ(nxt); UT_FEQ(vendor_info); UT_FEQ(tsr); UT_FEQ(ftype); UT_FEQ(probe_id); UT_FEQ(spdcid);
    UT_FEQ(dpdcid); UT_FEQ(tx_timestamp);
    return 1;
}
int ut_eq_erth(const mrc_erth *a, const mrc_erth *b) {
    UT_FEQ(type); UT_FEQ(nxt); UT_FEQ(op); UT_FEQ(vendor_info); UT_FEQ(tsr); UT_FEQ(ftype); UT_FEQ(port_status_mask);
    UT_FEQ(tx_timestamp);
    return 1;
}
int ut_eq_eeth(const mrc_eeth *a, const mrc_eeth *b) {
    UT_FEQ(type); UT_FEQ(nxt); UT_FEQ(op); UT_FEQ(tx_timestamp);
    return 1;
}

uint32_t ut_crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n) {
    size_t i;
    int b;
    crc = ~crc;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (b = 0; b < 8; b++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}
ut_fix ut_fx;
mrc_conn ut_conns[MRC_MAX_CONNS + 1];

void ut_cfg(mrc_config *cfg) {
    mrc_config_default(cfg);
    cfg->seed = g_seed * 0x9E3779B97F4A7C15ull + 0x55u;
    cfg->num_ports = 2;    /* two EV slots: slot 0 on port 1, slot 1 on port 2 (P12) */
    cfg->auto_ev.per_port = 1;
    cfg->ev.reply = MRC_EV_REPLY_ECHO; /* control packets echo the arrival EV: the tests below check that exact value;
                                        * the default per-plane reverse EV (Q19) has its own tests */
}

void ut_attr(mrc_conn_attr *a, uint32_t rq, uint32_t sq) {
    memset(a, 0, sizeof *a);
    a->pkey = 0xFFFF;
    a->access = MRC_ACCESS_REMOTE_WRITE;
    a->dest_qpn = UT_PEER_QPN;
    a->rq_psn = rq;
    a->path_mtu = 256;
    a->mpr_dest = 1;
    a->max_wimm_dest = 4;
    a->peer = 0x77;
    a->sq_psn = sq;
    a->mpr = 1;
    a->max_wimm = 4;
    a->retry_linear = 7;
    a->retry_exp = 7;
    a->timeout = 14;
}

/* RESET -> state through the legal path, with every value from a */
int ut_goto(mrc_conn *c, const mrc_conn_attr *base, unsigned state, mrc_time now) {
    mrc_conn_attr a = *base;
    int rc;
    if (state == MRC_QPS_RESET) return MRC_OK;
    if (state == MRC_QPS_ERR) {
        a.state = MRC_QPS_ERR;
        return mrc_conn_modify(c, &a, MRC_ATTR_STATE, now);
    }
    a.state = MRC_QPS_INIT;
    rc = mrc_conn_modify(c, &a, UT_M_INIT | MRC_ATTR_PKEY | MRC_ATTR_ACCESS, now);
    if (rc || state == MRC_QPS_INIT) return rc;
    a.state = MRC_QPS_RTR;
    rc = mrc_conn_modify(c, &a, UT_M_RTR | MRC_ATTR_CAPS | MRC_ATTR_PEER, now);
    if (rc || state == MRC_QPS_RTR) return rc;
    a.state = MRC_QPS_RTS;
    return mrc_conn_modify(c, &a, UT_M_RTS, now);
}

int ut_place_hook(void *ud, uint32_t rkey, void *region_user, uint64_t offset, const uint8_t *src,
                  uint32_t len) {
    ut_fix *f = (ut_fix *)ud;
    f->place_calls++;
    f->place_rkey = rkey;
    f->place_user = region_user;
    f->place_off = offset;
    f->place_len = len;
    f->place_first = len ? src[0] : 0;
    return f->place_rc;
}

/* cfg NULL: ut_cfg. Region pattern i*31+7, guards 0xEE. */
int ut_setup(ut_fix *f, const mrc_config *cfg, unsigned state, uint32_t rq, uint32_t sq) {
    size_t i;
    int rc;
    memset(f, 0, sizeof *f);
    if (cfg) f->cfg = *cfg;
    else ut_cfg(&f->cfg);
    f->now = UT_T0;
    rc = mrc_endpoint_init(&f->ep, &f->cfg, f->now);
    if (rc) return rc;
    rc = mrc_conn_init(&f->ep, &f->c, f->now);
    if (rc) return rc;
    for (i = 0; i < UT_MEM; i++)
        f->mem[i] = (i < UT_GUARD || i >= UT_GUARD + UT_REGION) ? 0xEE : (uint8_t)(i * 31u + 7u);
    memcpy(f->snap, f->mem, UT_MEM);
    rc = mrc_endpoint_reg_mr(&f->ep, f->mem + UT_GUARD, UT_IOVA, UT_REGION, MRC_ACCESS_REMOTE_WRITE, f, &f->rkey);
    if (rc) return rc;
    ut_attr(&f->attr, rq, sq);
    return ut_goto(&f->c, &f->attr, state, f->now);
}

/* memory equals the expected image, guard bands included */
int ut_mem_ok(const ut_fix *f, const char *what) {
    return ut_bytes_eq(what, f->mem, f->snap, UT_MEM);
}
void ut_expect_place(ut_fix *f, uint64_t off, const uint8_t *p, uint32_t n) {
    memcpy(f->snap + UT_GUARD + off, p, n);
}

mrc_rxinfo ut_ri(unsigned port, uint32_t ev) {
    mrc_rxinfo ri;
    memset(&ri, 0, sizeof ri);
    ri.port = (uint8_t)port;
    ri.dscp = 10; /* TRIMMABLE default codepoint */
    ri.ev = ev;
    return ri;
}

void ut_data_init(ut_data *d, const ut_fix *f, uint32_t psn, uint16_t msn, const uint8_t *pl, uint32_t plen) {
    memset(d, 0, sizeof *d);
    d->op = MRC_OP_WRITE_ONLY;
    d->qp = mrc_conn_qpn(&f->c);
    d->pkey = 0xFFFF;
    d->psn = psn;
    d->msn = msn;
    d->a = 1;
    d->ts_on = 1;
    d->ts = 0x1234;
    d->va = UT_IOVA;
    d->rkey = f->rkey;
    d->dma_len = plen;
    d->pl = pl;
    d->plen = plen;
    d->pad = -1;
}

size_t ut_build_data(uint8_t *buf, size_t cap, const mrc_wire_opts *o, const ut_data *d) {
    mrc_bth b;
    mrc_meth m;
    mrc_tseth t;
    mrc_reth re;
    unsigned pad = d->pad < 0 ? (4u - (d->plen & 3u)) & 3u : (unsigned)d->pad;
    int imm = d->op == MRC_OP_WRITE_LAST_IMM || d->op == MRC_OP_WRITE_ONLY_IMM;
    size_t n = 0;
    if (cap < 64u + d->plen + pad) {
        printf("    ut_build_data: buffer of %u bytes too small for a %u-byte payload (test bug)\n", (unsigned)cap,
               (unsigned)d->plen);
        return 0;
    }
    memset(&b, 0, sizeof b);
    b.opcode = (uint8_t)d->op;
    b.se = d->se;
    b.pad = (uint8_t)pad;
    b.pkey = d->pkey;
    b.dest_qp = d->qp;
    b.a = d->a;
    b.rtx = d->rtx;
    b.ts = d->ts_on;
    b.psn = d->psn;
    m.rqmsn = d->rqmsn;
    m.msn = d->msn;
    t.tx_timestamp = d->ts;
    t.tsr = 0;
    t.ftype = 1;
    re.va = d->va;
    re.rkey = d->rkey;
    re.dma_len = d->dma_len;
    n += (size_t)mrc_bth_encode(buf + n, cap - n, o, &b);
    n += (size_t)mrc_meth_encode(buf + n, cap - n, &m);
    if (d->ts_on) n += (size_t)mrc_tseth_encode(buf + n, cap - n, &t);
    n += (size_t)mrc_reth_encode(buf + n, cap - n, &re);
    if (imm) n += (size_t)mrc_immdt_encode(buf + n, cap - n, d->imm);
    if (d->plen) memcpy(buf + n, d->pl, d->plen);
    n += d->plen;
    memset(buf + n, 0, pad);
    return n + pad;
}

size_t ut_data_pkt(ut_fix *f, uint8_t *pkt, size_t cap, uint32_t psn, uint16_t msn, uint8_t a, uint8_t rtx) {
    static const uint8_t p[8] = {9, 8, 7, 6, 5, 4, 3, 2};
    ut_data d;
    ut_data_init(&d, f, psn, msn, p, sizeof p);
    d.a = a;
    d.rtx = rtx;
    d.va = UT_IOVA + 8u * (psn & 0xFFu);
    return ut_build_data(pkt, cap, &f->cfg.wire, &d);
}

size_t ut_build_sack(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t bth_psn, uint32_t cack,
                     int ack_off, int sack_off, uint64_t bitmap, uint32_t entropy, uint16_t ts, unsigned pr) {
    mrc_bth b;
    mrc_seth s;
    mrc_cc_state cs;
    size_t n = 0;
    memset(&b, 0, sizeof b);
    memset(&s, 0, sizeof s);
    memset(&cs, 0, sizeof cs);
    b.opcode = MRC_OP_SACK;
    b.pkey = 0xFFFF;
    b.dest_qp = qp;
    b.psn = bth_psn;
    s.pr = (uint8_t)pr;
    s.ack_psn_offset = (int16_t)ack_off;
    s.entropy = entropy;
    s.cack_psn = cack;
    s.sack_offset = (int16_t)sack_off;
    s.sack_bitmap = bitmap;
    cs.tx_timestamp = ts;
    n += (size_t)mrc_bth_encode(buf + n, 64, o, &b);
    n += (size_t)mrc_seth_encode(buf + n, 64, o, &s);
    n += (size_t)mrc_cc_state_encode(buf + n, 64, &cs);
    return n;
}

size_t ut_build_nack(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t bth_psn, uint32_t psn,
                     unsigned reason, uint16_t ts) {
    mrc_bth b;
    mrc_neth nk;
    size_t n = 0;
    memset(&b, 0, sizeof b);
    memset(&nk, 0, sizeof nk);
    b.opcode = MRC_OP_NACK;
    b.pkey = 0xFFFF;
    b.dest_qp = qp;
    b.psn = bth_psn;
    nk.nack_reason = (uint8_t)reason;
    nk.nack_psn = psn;
    nk.tx_timestamp = ts;
    n += (size_t)mrc_bth_encode(buf + n, 64, o, &b);
    n += (size_t)mrc_neth_encode(buf + n, 64, &nk);
    return n;
}

size_t ut_build_aeth(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t psn, unsigned syndrome,
                     uint32_t msn) {
    mrc_bth b;
    mrc_aeth a;
    size_t n = 0;
    memset(&b, 0, sizeof b);
    b.opcode = MRC_OP_ACK;
    b.pkey = 0xFFFF;
    b.dest_qp = qp;
    b.psn = psn;
    a.syndrome = (uint8_t)syndrome;
    a.msn = msn;
    n += (size_t)mrc_bth_encode(buf + n, 64, o, &b);
    n += (size_t)mrc_aeth_encode(buf + n, 64, &a);
    return n;
}

size_t ut_build_probe(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t psn, uint16_t ts) {
    mrc_bth b;
    mrc_peth p;
    size_t n = 0;
    memset(&b, 0, sizeof b);
    memset(&p, 0, sizeof p);
    b.opcode = MRC_OP_PROBE_REQ;
    b.pkey = 0xFFFF;
    b.dest_qp = qp;
    b.psn = psn;
    p.probe_id = 1;
    p.tx_timestamp = ts;
    p.ftype = 1;
    n += (size_t)mrc_bth_encode(buf + n, 64, o, &b);
    n += (size_t)mrc_peth_encode(buf + n, 64, &p);
    return n;
}

/* Poll one packet (payload copied) and decode it. Returns bytes, 0 when nothing, < 0 on error. */
int ut_poll(ut_fix *f, uint8_t *buf, size_t cap, mrc_txinfo *ti, mrc_pkt *k) {
    int n = mrc_endpoint_poll_tx(&f->ep, buf, cap, MRC_TX_COPY, ti, f->now);
    if (n <= 0) return n;
    if (mrc_pkt_decode(buf, (size_t)n, &f->cfg.wire, k) != MRC_OK) return -1000;
    return n;
}

/* A drop of exactly one reason: recv returns MRC_ERR_DROP, drop[reason] and rx_drops grow by one, no other
 * reason moves; with c, that conn's rx_drops grows by one too. Returns 0 when so. */
int ut_expect_drop(ut_fix *f, mrc_conn *c, const uint8_t *p, size_t n, const mrc_rxinfo *ri, unsigned reason,
                   const char *what) {
    mrc_endpoint_stats s0, s1;
    mrc_conn_stats c0, c1;
    unsigned r;
    int rc;
    mrc_endpoint_stats_get(&f->ep, &s0);
    mrc_conn_stats_get(c, &c0);
    rc = mrc_endpoint_recv(&f->ep, p, n, ri, f->now);
    mrc_endpoint_stats_get(&f->ep, &s1);
    mrc_conn_stats_get(c, &c1);
    CHECKF(rc == MRC_ERR_DROP, "%s: recv returned %d (%s), want MRC_ERR_DROP/%s", what, rc, mrc_strerror(rc),
           mrc_drop_name(reason));
    for (r = 0; r < MRC_DROP_REASONS; r++) {
        uint64_t d = s1.drop[r] - s0.drop[r];
        CHECKF(d == (r == reason ? 1u : 0u), "%s: drop[%s] moved by %llu (expected %s)", what, mrc_drop_name(r),
               (unsigned long long)d, mrc_drop_name(reason));
    }
    CHECKF(s1.rx_drops - s0.rx_drops == 1, "%s: endpoint rx_drops moved by %llu", what,
           (unsigned long long)(s1.rx_drops - s0.rx_drops));
    if (c)
        CHECKF(c1.rx_drops - c0.rx_drops == 1, "%s: conn rx_drops moved by %llu", what,
               (unsigned long long)(c1.rx_drops - c0.rx_drops));
    return 0;
}

/* pull the next event; type and status must match (status checked unless want_status == 1) */
int ut_expect_event(mrc_endpoint *ep, unsigned type, int want_status, mrc_event *out, const char *what) {
    mrc_event ev;
    int rc = mrc_endpoint_poll_event(ep, &ev);
    CHECKF(rc == 1, "%s: poll_event returned %d, want an event of type %s", what, rc, mrc_event_name(type));
    CHECKF(ev.type == type, "%s: event type %s (status %d), want %s", what, mrc_event_name(ev.type), ev.status,
           mrc_event_name(type));
    if (want_status != 1)
        CHECKF(ev.status == want_status, "%s: %s status %d (%s), want %d (%s)", what, mrc_event_name(ev.type),
               ev.status, mrc_strerror(ev.status), want_status, mrc_strerror(want_status));
    if (out) *out = ev;
    return 0;
}
int ut_expect_no_event(mrc_endpoint *ep, const char *what) {
    mrc_event ev;
    int rc = mrc_endpoint_poll_event(ep, &ev);
    CHECKF(rc == 0, "%s: unexpected event %s status %d wr_id %llu", what, rc == 1 ? mrc_event_name(ev.type) : "?",
           ev.status, (unsigned long long)ev.wr_id);
    return 0;
}
ut_tx ut_txs[300];

/* poll up to max packets into out[]; returns the count, or < 0 */
int ut_drain(ut_fix *f, ut_tx *out, int max) {
    static uint8_t buf[4200];
    int n = 0, rc;
    while (n < max) {
        rc = ut_poll(f, buf, sizeof buf, &out[n].ti, &out[n].k);
        if (rc == 0) break;
        if (rc < 0) return rc;
        out[n].pcrc = ut_crc32_bitwise(0, buf + out[n].k.hdr_len, out[n].k.payload_len);
        out[n].pad_zero = ut_all(buf + out[n].k.hdr_len + out[n].k.payload_len, out[n].k.bth.pad, 0);
        out[n].len = rc;
        n++;
    }
    return n;
}

mrc_write ut_wr(uint64_t id, uint32_t opcode, const void *buf, uint32_t len, uint64_t va, uint32_t flags) {
    mrc_write w;
    memset(&w, 0, sizeof w);
    w.wr_id = id;
    w.opcode = opcode;
    w.flags = flags;
    w.buf = buf;
    w.len = len;
    w.remote_va = va;
    w.rkey = 0x1234;
    w.imm = (uint32_t)(0xA0000000u + id);
    return w;
}
int ut_post(ut_fix *f, uint64_t id, uint32_t opcode, const void *buf, uint32_t len, uint32_t flags) {
    mrc_write w = ut_wr(id, opcode, buf, len, 0x10000u + 0x1000u * id, flags);
    return mrc_conn_post_write(&f->c, &w, f->now);
}
uint8_t ut_src[65536]; /* source data of posted writes */
void ut_src_init(void) {
    size_t i;
    for (i = 0; i < sizeof ut_src; i++) ut_src[i] = (uint8_t)(i * 7u + (i >> 8) + 1u);
}

/* feed a SACK to the fixture's conn (as requester); returns recv's rc */
int ut_feed_sack(ut_fix *f, uint32_t cack, int ack_off, uint64_t bitmap, uint32_t entropy, uint16_t ts) {
    uint8_t p[64];
    size_t n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), cack, cack, ack_off, 1, bitmap, entropy, ts, 0);
    mrc_rxinfo ri = ut_ri(1, entropy);
    return mrc_endpoint_recv(&f->ep, p, n, &ri, f->now);
}

/* n PORT_STATUS_UPDATEs to QP 0x2, one per up port, each announcing mask (docs 7: a port change tells the peer) */
int ut_expect_psu(ut_fix *f, unsigned n, uint32_t mask, const char *what) {
    unsigned i;
    uint32_t ports = 0;
    for (i = 0; i < n; i++) {
        uint8_t pkt[256];
        mrc_txinfo ti;
        mrc_pkt k;
        int rc = ut_poll(f, pkt, sizeof pkt, &ti, &k);
        CHECKF(rc == MRC_BTH_LEN + MRC_ERTH_LEN, "%s: PSU %u of %u: poll_tx returned %d", what, i + 1, n, rc);
        CHECKF(k.bth.opcode == MRC_OP_EP_REQ && k.bth.dest_qp == MRC_EPOP_QPN && ti.qpn == MRC_EPOP_QPN,
               "%s: opcode 0x%02X to qp 0x%X, want ENDPOINT_REQUEST to QP 2", what, k.bth.opcode, k.bth.dest_qp);
        CHECKF(k.erth.op == MRC_EPOP_PORT_STATUS_UPDATE && k.erth.port_status_mask == mask,
               "%s: op %u mask 0x%X, want PORT_STATUS_UPDATE 0x%X", what, k.erth.op, k.erth.port_status_mask, mask);
        CHECKF(mrc_endpoint_port_up(&f->ep, ti.port) && !(ports & (1u << (ti.port - 1u))),
               "%s: PSU on port %u (down, or twice)", what, ti.port);
        CHECK_EQ(ti.dscp_class, MRC_DSCP_CONTROL);
        CHECK_EQ(ti.peer, 0x77);
        ports |= 1u << (ti.port - 1u);
    }
    return 0;
}
int ut_expect_nothing(ut_fix *f, const char *what) {
    uint8_t buf[256];
    mrc_txinfo ti;
    mrc_pkt k;
    int n = ut_poll(f, buf, sizeof buf, &ti, &k);
    CHECKF(n == 0, "%s: poll_tx returned %d (opcode 0x%02X), want nothing", what, n, n > 0 ? ti.opcode : 0);
    return 0;
}

int ut_feed_nack(ut_fix *f, uint32_t psn, unsigned reason, uint16_t ts) {
    uint8_t p[64];
    size_t n = ut_build_nack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), psn, psn, reason, ts);
    mrc_rxinfo ri = ut_ri(1, 0x1234);
    return mrc_endpoint_recv(&f->ep, p, n, &ri, f->now);
}
int ut_feed_aeth(ut_fix *f, unsigned syndrome, uint32_t msn) {
    uint8_t p[64];
    size_t n = ut_build_aeth(p, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, syndrome, msn);
    mrc_rxinfo ri = ut_ri(1, 0x1234);
    return mrc_endpoint_recv(&f->ep, p, n, &ri, f->now);
}
