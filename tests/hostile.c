/* tests/hostile.c - a hostile peer (issue 13, trust half): live transfers over the in-process wire while an attacker
 * forges packets with mrc.h's own encoders and feeds them straight into an endpoint (ho_inject, tests/harness.c).
 *
 * The attacker is the strongest one RoCE admits short of authentication: it sees every packet on the wire (the tap)
 * and so knows QPNs, PSNs, MSNs and the peer's handle, but not the rkey (except where a case says so). Injected
 * packets are counted in sc_pair.inj_rx / inj_drop, so sc_check_clean's wire-versus-endpoint books still balance.
 * Each case asserts what docs/PROTOCOL.md promises (P10, P16, P18-P20, Security properties): the genuine transfer
 * completes bit-exact without a QP error, and the drop counter of the rule moved. On failure the seed and the pair's
 * state are printed (SC_CHECK*). Measured numbers are printed with -v (note()).
 */
#include "test.h"

static size_t ho_bth(uint8_t *buf, const sc_pair *p, unsigned op, uint32_t qp, uint32_t psn, uint16_t pkey,
                     unsigned pad) {
    mrc_bth b;
    memset(&b, 0, sizeof b);
    b.opcode = (uint8_t)op;
    b.pkey = pkey;
    b.dest_qp = qp;
    b.psn = psn & MRC_PSN_MASK;
    b.pad = (uint8_t)pad;
    b.ts = (uint8_t)(op <= MRC_OP_WRITE_ONLY_IMM && p->cfg[0].tseth);
    return (size_t)mrc_bth_encode(buf, 64, &p->cfg[0].wire, &b);
}

static size_t ho_sack_full(uint8_t *buf, const sc_pair *p, uint32_t qp, uint32_t cack, int ack_off, int sack_off,
                           uint64_t bitmap, unsigned m, unsigned mpr, unsigned pen, uint32_t rcvd, uint32_t entropy) {
    mrc_seth s;
    mrc_cc_state cs;
    size_t n = ho_bth(buf, p, MRC_OP_SACK, qp, cack, 0xFFFF, 0);
    memset(&s, 0, sizeof s);
    memset(&cs, 0, sizeof cs);
    s.cack_psn = cack & MRC_PSN_MASK;
    s.m = (uint8_t)m;
    s.mpr = (uint8_t)mpr;
    s.entropy = entropy;
    s.ack_psn_offset = (int16_t)ack_off;
    s.sack_offset = (int16_t)sack_off;
    s.sack_bitmap = bitmap;
    cs.rcvd_bytes = rcvd & 0xFFFFFFu;
    cs.rcv_cwnd_pen = (uint8_t)pen;
    n += (size_t)mrc_seth_encode(buf + n, 64, &p->cfg[0].wire, &s);
    n += (size_t)mrc_cc_state_encode(buf + n, 64, &cs);
    return n;
}
/* a data packet of plen bytes (all 'fill'), WRITE_ONLY or WRITE_ONLY_IMM */
static size_t ho_write(uint8_t *buf, const sc_pair *p, unsigned op, uint32_t qp, uint32_t psn, uint16_t msn,
                       uint16_t rqmsn, uint64_t va, uint32_t rkey, uint32_t plen, uint8_t fill) {
    mrc_meth m;
    mrc_tseth t;
    mrc_reth re;
    size_t n = ho_bth(buf, p, op, qp, psn, 0xFFFF, (4u - (plen & 3u)) & 3u);
    memset(&m, 0, sizeof m);
    memset(&t, 0, sizeof t);
    memset(&re, 0, sizeof re);
    m.msn = msn;
    m.rqmsn = rqmsn;
    t.ftype = 1;
    re.va = va;
    re.rkey = rkey;
    re.dma_len = plen;
    n += (size_t)mrc_meth_encode(buf + n, 64, &m);
    if (p->cfg[0].tseth) n += (size_t)mrc_tseth_encode(buf + n, 64, &t);
    n += (size_t)mrc_reth_encode(buf + n, 64, &re);
    if (op == MRC_OP_WRITE_ONLY_IMM) n += (size_t)mrc_immdt_encode(buf + n, 64, 0xBADu);
    memset(buf + n, fill, plen + ((4u - (plen & 3u)) & 3u));
    return n + plen + ((4u - (plen & 3u)) & 3u);
}

/* a zero-length WRITE_ONLY */
static size_t ho_zero_write(uint8_t *buf, const sc_pair *p, uint32_t qp, uint32_t psn, uint16_t msn, uint16_t rqmsn,
                            uint64_t va, uint32_t rkey) {
    return ho_write(buf, p, MRC_OP_WRITE_ONLY, qp, psn, msn, rqmsn, va, rkey, 0, 0);
}

static size_t ho_sack(uint8_t *buf, const sc_pair *p, uint32_t qp, uint32_t cack, unsigned m, unsigned mpr,
                      uint32_t rcvd, unsigned pen, uint32_t entropy) {
    return ho_sack_full(buf, p, qp, cack, 0, 1, 0, m, mpr, pen, rcvd, entropy);
}

static size_t ho_nack(uint8_t *buf, const sc_pair *p, uint32_t qp, uint32_t psn, unsigned reason) {
    mrc_neth nk;
    size_t n = ho_bth(buf, p, MRC_OP_NACK, qp, psn, 0xFFFF, 0);
    memset(&nk, 0, sizeof nk);
    nk.nack_reason = (uint8_t)reason;
    nk.nack_psn = psn & MRC_PSN_MASK;
    return n + (size_t)mrc_neth_encode(buf + n, 64, &nk);
}

static size_t ho_aeth(uint8_t *buf, const sc_pair *p, uint32_t qp, uint32_t psn, unsigned syndrome, uint32_t msn) {
    mrc_aeth a;
    size_t n = ho_bth(buf, p, MRC_OP_ACK, qp, psn, 0xFFFF, 0);
    memset(&a, 0, sizeof a);
    a.syndrome = (uint8_t)syndrome;
    a.msn = msn;
    return n + (size_t)mrc_aeth_encode(buf + n, 64, &a);
}

static size_t ho_probe(uint8_t *buf, const sc_pair *p, uint32_t qp, uint32_t psn, uint16_t ts) {
    mrc_peth pe;
    size_t n = ho_bth(buf, p, MRC_OP_PROBE_REQ, qp, psn, 0xFFFF, 0);
    memset(&pe, 0, sizeof pe);
    pe.probe_id = 1;
    pe.tx_timestamp = ts;
    pe.ftype = 1;
    return n + (size_t)mrc_peth_encode(buf + n, 64, &pe);
}

static size_t ho_ep_req(uint8_t *buf, const sc_pair *p, unsigned op, uint16_t req_id, uint32_t mask, uint16_t pkey) {
    mrc_erth e;
    size_t n = ho_bth(buf, p, MRC_OP_EP_REQ, MRC_EPOP_QPN, req_id, pkey, 0);
    memset(&e, 0, sizeof e);
    e.op = (uint8_t)op;
    e.port_status_mask = mask;
    e.ftype = 1;
    return n + (size_t)mrc_erth_encode(buf + n, 64, &e);
}

/* What the attacker learns from the wire (tap and rx tap). */
typedef struct ho_spy {
    uint32_t a_first_psn[64], a_first_msn[64]; /* first PSN / MSN of A's messages, by MSN mod 64 */
    uint32_t a_max_psn;                        /* highest data PSN A sent */
    uint64_t a_nominal;                        /* nominal bytes of A's data transmissions (as rcvd_bytes counts) */
    uint32_t a_data;                           /* A's data packets seen */
    int have_sack;
    uint32_t sack_cack, sack_rcvd, sack_entropy; /* the last SACK B -> A delivered to A */
    /* the case's plan */
    int step;
    uint32_t want_psn, want_msn;
    uint64_t n_forged, n_dropped;
    mrc_time t_next;
    uint64_t rng;
    mrc_conn_stats before, after;
    mrc_cc_info cc_before, cc_after;
    char why[200];
} ho_spy;

static uint64_t ho_rand(ho_spy *o) { /* splitmix64 */
    uint64_t z = (o->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void ho_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    ho_spy *o = (ho_spy *)p->ud;
    mrc_pkt k;
    (void)now;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    o->a_data++;
    o->a_nominal += (uint64_t)ti->hdr_len + ti->payload_len + ti->pad + 4u + MRC_NOMINAL_HDR;
    if (o->a_data == 1 || mrc_psn_diff(k.bth.psn, o->a_max_psn) > 0) o->a_max_psn = k.bth.psn;
    if (!k.bth.rtx && (k.bth.opcode == MRC_OP_WRITE_FIRST || k.bth.opcode == MRC_OP_WRITE_ONLY ||
                       k.bth.opcode == MRC_OP_WRITE_ONLY_IMM)) {
        o->a_first_psn[k.meth.msn & 63u] = k.bth.psn;
        o->a_first_msn[k.meth.msn & 63u] = k.meth.msn;
    }
}
static void ho_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    ho_spy *o = (ho_spy *)p->ud;
    mrc_pkt k;
    (void)ri, (void)now;
    if (to != 0 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK) return;
    if (o->have_sack && mrc_psn_diff(k.seth.cack_psn, o->sack_cack) < 0) return; /* keep the newest */
    o->have_sack = 1;
    o->sack_cack = k.seth.cack_psn;
    o->sack_rcvd = k.cc.rcvd_bytes;
    o->sack_entropy = k.seth.entropy;
}

/* A sends 16 x 64 KiB (16 packets each) to B, B sends 4 x 64 KiB back: the common transfer. */
static int ho_setup(sc_pair *p, ho_spy *o, uint64_t seed) {
    unsigned i;
    sc_defaults(p, seed);
    memset(o, 0, sizeof *o);
    o->rng = seed ^ 0xA77AC4E5ull;
    p->ud = o;
    p->tap = ho_tap;
    p->rx = ho_rx;
    p->region = 2u << 20;
    if (sc_start(p) != 0) return -1;
    for (i = 0; i < 16; i++)
        if (sc_add(p, 0, 0, i << 16, 1u << 16, (i & 3u) == 3u ? MRC_WR_WRITE_IMM : MRC_WR_WRITE, i) != 0) return -1;
    for (i = 0; i < 4; i++)
        if (sc_add(p, 1, 0, i << 16, 1u << 16, MRC_WR_WRITE_IMM, 100 + i) != 0) return -1;
    return 0;
}

/* ---- case 4: a forged zero-length write without the rkey ------------------------------------------------------- */
/* As soon as A starts message 3 (16 packets), the attacker sends B a zero-length WRITE_ONLY at that message's
 * 6th PSN, with its MSN, a VA inside B's region and a wrong rkey. IBTA checks no rkey for a zero-length write;
 * before P10 the core took it: the PSN was marked received and the message completed early, so the genuine 4 KiB
 * packet became a duplicate and was never placed. Now it is dropped (ACCESS), not NAKed, and the PSN stays open. */
static int ho_zero_stop(sc_pair *p) {
    ho_spy *o = (ho_spy *)p->ud;
    uint8_t pkt[128];
    if (o->step == 0 && o->a_data > 0 && o->a_first_msn[3 & 63u] == 3u) {
        size_t n;
        int rc;
        uint32_t rk[2];
        unsigned j;
        rk[0] = p->rkey[1] ^ 0x5Au;    /* a guess of the rkey's random bits */
        rk[1] = p->rkey[1] + 0x100u;   /* the next MR slot, not registered */
        for (j = 0; j < 2; j++) {
            n = ho_zero_write(pkt, p, mrc_conn_qpn(p->q[1][0].c), o->a_first_psn[3] + 5u + j, 3, 0,
                              sc_iova(1) + (3u << 16) + 4096u, rk[j]);
            rc = ho_inject(p, 1, pkt, n, 1, 0xC001u, 0);
            o->n_forged++;
            if (rc == MRC_ERR_DROP) o->n_dropped++;
        }
        o->step = 1;
    }
    return sc_all_done(p);
}
static int ho_zero_body(sc_pair *p) {
    static ho_spy o;
    mrc_endpoint_stats es;
    SC_CHECK(p, ho_setup(p, &o, g_seed + 13400) == 0);
    p->stop = ho_zero_stop;
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, o.step == 1 && o.n_forged == 2, "the attack did not run (step %d)", o.step);
    if (sc_check_clean(p)) return 1;
    es = sc_estats(p, 1);
    SC_CHECKF(p, o.n_dropped == 2 && es.drop[MRC_DROP_ACCESS] == 2, "forged zero-length writes: %llu dropped, "
              "drop[access] %llu", (unsigned long long)o.n_dropped, (unsigned long long)es.drop[MRC_DROP_ACCESS]);
    SC_CHECK(p, sc_cstats(p, 1, 0).tx_nak == 0); /* dropped, not NAKed: no connection error either side */
    note("2 forged zero-length writes dropped (ACCESS), transfer bit-exact, %.3f ms", (double)sc_now(p) / 1e6);
    return 0;
}
SC_TEST(t_ho_zero_len_write, ho_zero_body)

/* ---- case 5: NACK / NAK for what was never sent ---------------------------------------------------------------- */
/* Mid-transfer, the attacker sends A: a NACK UNEXP_EVENT (fatal) for a PSN 1000 past the last one A sent; the same
 * for a PSN long acknowledged; a retriable NACK (NO_RESOURCE) past the end; a transport NAK (REM_ACCESS) for MSN 1,
 * already complete. Before P18 the first one took A to ERR (MRC_ERR_REMOTE_OP). */
static int ho_nack_stop(sc_pair *p) {
    ho_spy *o = (ho_spy *)p->ud;
    if (o->step == 0 && sc_cstats(p, 0, 0).msgs_done >= 4 && o->a_data > 0) {
        uint8_t pkt[128];
        uint32_t qp = mrc_conn_qpn(p->q[0][0].c);
        size_t n;
        o->before = sc_cstats(p, 0, 0);
        n = ho_nack(pkt, p, qp, o->a_max_psn + 1000u, MRC_NACK_UNEXP_EVENT);
        o->n_dropped += ho_inject(p, 0, pkt, n, 2, 0xC002u, 0) == MRC_ERR_DROP;
        n = ho_nack(pkt, p, qp, p->attr[0].sq_psn + 3u, MRC_NACK_UNEXP_EVENT);
        o->n_dropped += ho_inject(p, 0, pkt, n, 3, 0xC003u, 0) == MRC_ERR_DROP;
        n = ho_nack(pkt, p, qp, o->a_max_psn + 7u, MRC_NACK_NO_RESOURCE);
        o->n_dropped += ho_inject(p, 0, pkt, n, 4, 0xC004u, 0) == MRC_ERR_DROP;
        n = ho_aeth(pkt, p, qp, 0, MRC_AETH_NAK_REM_ACCESS, 1);
        o->n_dropped += ho_inject(p, 0, pkt, n, 5, 0xC005u, 0) == MRC_ERR_DROP;
        o->n_forged = 4;
        o->step = 1;
    }
    return sc_all_done(p);
}
static int ho_nack_body(sc_pair *p) {
    static ho_spy o;
    mrc_endpoint_stats es;
    SC_CHECK(p, ho_setup(p, &o, g_seed + 13500) == 0);
    p->stop = ho_nack_stop;
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, o.step == 1, "the attack did not run");
    if (sc_check_clean(p)) return 1;
    es = sc_estats(p, 0);
    SC_CHECKF(p, o.n_dropped == 4 && es.drop[MRC_DROP_ACK_BOGUS] == 3 && es.drop[MRC_DROP_ACK_STALE] == 1,
              "%llu of 4 forged NACK/NAKs dropped: ack_bogus %llu (want 3), ack_stale %llu (want 1)",
              (unsigned long long)o.n_dropped, (unsigned long long)es.drop[MRC_DROP_ACK_BOGUS],
              (unsigned long long)es.drop[MRC_DROP_ACK_STALE]);
    SC_CHECK(p, sc_cstats(p, 0, 0).rtx_nack == 0);
    note("4 forged NACK/NAKs dropped (3 bogus, 1 stale); transfer bit-exact");
    return 0;
}
SC_TEST(t_ho_nack_unsent, ho_nack_body)

/* ---- case 6: stale and forged SACKs as congestion-control input ------------------------------------------------- */
/* One bulk transfer A -> B (NSCC, dynamic MPR on A). After 2 MiB the attacker sends A a SACK 1000 PSNs behind the
 * last delivered cumulative PSN, with the largest receiver penalty, an ECN echo (SKIP_ONCE), rcvd_bytes 0x7FFFFF
 * units ahead and MPR 1; then an up-to-date SACK with rcvd_bytes 0x7FFFFF units ahead. P18: the stale one gives no
 * CC, path or MPR input (window, counters unchanged; rx_sack_stale counts it); the fresh one is credited at most the
 * bytes sent and not yet credited (cc_rcvd_capped), so the requester's credit never passes what it sent and the
 * genuine SACKs after it keep counting. */
static int ho_sack_stop(sc_pair *p) {
    ho_spy *o = (ho_spy *)p->ud;
    if (o->step == 0 && o->have_sack && o->a_nominal > (2u << 20)) {
        uint8_t pkt[128];
        uint32_t qp = mrc_conn_qpn(p->q[0][0].c);
        size_t n;
        mrc_conn_stats s1;
        mrc_cc_info c1;
        o->before = sc_cstats(p, 0, 0);
        (void)mrc_conn_cc_info(p->q[0][0].c, &o->cc_before);
        n = ho_sack(pkt, p, qp, o->sack_cack - 1000u, MRC_M_SKIP_ONCE, 1, o->sack_rcvd + 0x7FFFFFu, 127,
                    o->sack_entropy);
        (void)ho_inject(p, 0, pkt, n, 1, o->sack_entropy, 0);
        o->after = sc_cstats(p, 0, 0);
        (void)mrc_conn_cc_info(p->q[0][0].c, &o->cc_after);
        /* then an up-to-date one claiming 2 GiB more */
        n = ho_sack(pkt, p, qp, o->sack_cack, MRC_M_NONE, 0, o->sack_rcvd + 0x7FFFFFu, 0, o->sack_entropy);
        (void)ho_inject(p, 0, pkt, n, 1, o->sack_entropy, 0);
        s1 = sc_cstats(p, 0, 0);
        (void)mrc_conn_cc_info(p->q[0][0].c, &c1);
        if (s1.cc_rcvd_bytes > o->a_nominal + 256u)
            snprintf(o->why, sizeof o->why, "after the fresh forged SACK: %llu bytes credited, %llu sent",
                     (unsigned long long)s1.cc_rcvd_bytes, (unsigned long long)o->a_nominal);
        o->step = 1;
    }
    return sc_all_done(p);
}
/* One bulk transfer A -> B, 8 x 1 MiB, NSCC, dynamic MPR on A; the case's state at ud */
static int ho_bulk_setup(sc_pair *p, void *ud, uint64_t seed, sc_rx_fn rx) {
    unsigned i;
    sc_defaults(p, seed);
    p->ud = ud;
    p->tap = ho_tap;
    p->rx = rx;
    p->region = 8u << 20;
    p->attr[0].caps |= MRC_CAP_DYNAMIC_MPR;
    if (sc_start(p) != 0) return -1;
    for (i = 0; i < 8; i++)
        if (sc_add(p, 0, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) != 0) return -1;
    return 0;
}
static int ho_sack_body(sc_pair *p) {
    static ho_spy o;
    mrc_conn_stats cs;
    memset(&o, 0, sizeof o);
    SC_CHECK(p, ho_bulk_setup(p, &o, g_seed + 13600, ho_rx) == 0);
    p->stop = ho_sack_stop;
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, o.step == 1, "the attack did not run");
    if (sc_check_clean(p)) return 1;
    cs = sc_cstats(p, 0, 0);
    SC_CHECKF(p, o.after.rx_sack_stale == o.before.rx_sack_stale + 1, "stale SACK not recognised");
    SC_CHECKF(p, o.cc_after.cwnd == o.cc_before.cwnd && o.after.cc_pen_dec == o.before.cc_pen_dec &&
                     o.after.cc_md == o.before.cc_md && o.after.cc_mpr_changes == o.before.cc_mpr_changes &&
                     o.after.cc_rcvd_bytes == o.before.cc_rcvd_bytes && o.after.ev_skip_req == o.before.ev_skip_req,
              "the stale SACK moved CC: cwnd %llu -> %llu, pen_dec %llu -> %llu, md %llu -> %llu, "
              "mpr changes %llu -> %llu, rcvd %llu -> %llu", (unsigned long long)o.cc_before.cwnd, (unsigned long long)o.cc_after.cwnd,
              (unsigned long long)o.before.cc_pen_dec, (unsigned long long)o.after.cc_pen_dec,
              (unsigned long long)o.before.cc_md, (unsigned long long)o.after.cc_md,
              (unsigned long long)o.before.cc_mpr_changes, (unsigned long long)o.after.cc_mpr_changes,
              (unsigned long long)o.before.cc_rcvd_bytes, (unsigned long long)o.after.cc_rcvd_bytes);
    SC_CHECKF(p, !o.why[0], "%s", o.why);
    SC_CHECK(p, cs.cc_rcvd_capped >= 1 || cs.rx_sack_quiet >= 1); /* capped, or (P38) quiet: it names a PSN a
                                                                       genuine SACK named */
    /* in the end every byte sent is credited once, not 2 GiB more, and the genuine SACKs kept counting */
    SC_CHECKF(p, cs.cc_rcvd_bytes <= o.a_nominal + 256u && cs.cc_rcvd_bytes + o.a_nominal / 50u >= o.a_nominal,
              "credited %llu bytes, sent %llu nominal", (unsigned long long)cs.cc_rcvd_bytes,
              (unsigned long long)o.a_nominal);
    note("stale SACK ignored for CC (cwnd %llu kept); forged rcvd_bytes capped; %llu of %llu nominal bytes credited",
         (unsigned long long)o.cc_after.cwnd, (unsigned long long)cs.cc_rcvd_bytes, (unsigned long long)o.a_nominal);
    return 0;
}
SC_TEST(t_ho_stale_sack, ho_sack_body)

/* ---- case 7: QP 0x2 and reliability probes ------------------------------------------------------------------- */
/* Mid-transfer over 8 planes, for 200 us, the attacker sends A endpoint requests at 10 M/s and B PROBE_REQs at
 * 2 M/s: garbage PSUs (random masks, random pkeys) from a stranger (rxinfo.peer 99); PSUs from the genuine peer's
 * handle with a wrong pkey; PSUs with mask 0 with the right pkey; EV_PROBE requests with the right pkey (a
 * reflector); PROBE_REQs to B's QP with random EVs and timestamps. P19/P20/P38: the stranger's are dropped
 * (STRANGER), the wrong pkeys (PKEY), mask 0 ignored (EPOP), the rest rate-limited per peer (RATE) with no answers
 * beyond the burst and rate; probes rate-limited per connection (RATE). A's view of B's planes never changes, nothing
 * is demoted. */
static int ho_qp2_stop(sc_pair *p) {
    ho_spy *o = (ho_spy *)p->ud;
    mrc_time now = sc_now(p);
    if (o->step == 0 && o->a_data >= 64) {
        o->step = 1;
        o->t_next = now;
        o->want_psn = (uint32_t)(now & 0xFFFFFFFFu); /* the attack's start (low bits; the run is short) */
    }
    while (o->step == 1 && o->t_next <= now) {
        uint8_t pkt[128];
        size_t n;
        uint64_t r = ho_rand(o);
        unsigned kind = (unsigned)(o->n_forged % 5u);
        uint8_t port = (uint8_t)(1u + (r >> 8) % 8u);
        uint32_t ev = 49152u + (uint32_t)((r >> 16) & 0x3FFFu);
        if (kind == 0) {
            n = ho_ep_req(pkt, p, MRC_EPOP_PORT_STATUS_UPDATE, (uint16_t)r, (uint32_t)(r >> 32) & 0xFFu,
                          (uint16_t)(r >> 40));
            (void)ho_inject(p, 0, pkt, n, port, ev, 99);
        } else if (kind == 1) {
            n = ho_ep_req(pkt, p, MRC_EPOP_PORT_STATUS_UPDATE, (uint16_t)r, 1u, 0x1234);
            (void)ho_inject(p, 0, pkt, n, port, ev, 0);
        } else if (kind == 2) {
            n = ho_ep_req(pkt, p, MRC_EPOP_PORT_STATUS_UPDATE, (uint16_t)r, 0, 0xFFFF);
            (void)ho_inject(p, 0, pkt, n, port, ev, 0);
        } else if (kind == 3) {
            n = ho_ep_req(pkt, p, MRC_EPOP_EV_PROBE, (uint16_t)r, 0, 0xFFFF);
            (void)ho_inject(p, 0, pkt, n, port, ev, 0);
        }
        /* and a PROBE_REQ to B every 500 ns */
        if ((o->n_forged & 3u) == 0) {
            n = ho_probe(pkt, p, mrc_conn_qpn(p->q[1][0].c), (uint32_t)r, (uint16_t)(r >> 48));
            (void)ho_inject(p, 1, pkt, n, port, ev, 0);
        }
        o->n_forged++;
        o->t_next += 100; /* 10 M/s */
        if (o->n_forged >= 2000) o->step = 2;
    }
    if (o->step == 1) return 0;
    return sc_all_done(p);
}
static int ho_qp2_body(sc_pair *p) {
    static ho_spy o;
    unsigned i;
    mrc_endpoint_stats ea, eb;
    mrc_conn_stats ca;
    sc_defaults(p, g_seed + 13700);
    memset(&o, 0, sizeof o);
    o.rng = g_seed ^ 0x9292ull;
    p->ud = &o;
    p->tap = ho_tap;
    p->rx = ho_rx;
    p->region = 4u << 20;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 16; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 18, 1u << 18, MRC_WR_WRITE, 0) == 0);
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 1, 0, i << 18, 1u << 18, MRC_WR_WRITE_IMM, i) == 0);
    p->stop = ho_qp2_stop;
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, o.step == 2, "the attack did not run to its end (step %d, %llu sent)", o.step,
              (unsigned long long)o.n_forged);
    if (sc_check_clean(p)) return 1;
    ea = sc_estats(p, 0);
    eb = sc_estats(p, 1);
    ca = sc_cstats(p, 0, 0);
    /* 400 from the stranger, 400 wrong pkeys, 400 with mask 0: all dropped; 400 EV_PROBEs: burst + rate x 200 us */
    SC_CHECKF(p, ea.drop[MRC_DROP_EPOP] >= 400 && ea.drop[MRC_DROP_STRANGER] == 400 && ea.drop[MRC_DROP_PKEY] == 400,
              "A: drop[epop] %llu (want >= 400), drop[stranger] %llu (want 400), drop[pkey] %llu (want 400)",
              (unsigned long long)ea.drop[MRC_DROP_EPOP], (unsigned long long)ea.drop[MRC_DROP_STRANGER],
              (unsigned long long)ea.drop[MRC_DROP_PKEY]);
    SC_CHECKF(p, ea.psu_rx == 0 && p->n_peer_ports[0] == 0, "A applied %llu forged PSUs (%u PEER_PORTS events)",
              (unsigned long long)ea.psu_rx, p->n_peer_ports[0]);
    SC_CHECKF(p, ea.drop[MRC_DROP_RATE] >= 300 && ea.ep_rsp_tx <= (uint64_t)p->cfg[0].guard.epop_burst + 4u,
              "A: EV_PROBE flood: drop[rate] %llu, answers sent %llu", (unsigned long long)ea.drop[MRC_DROP_RATE],
              (unsigned long long)ea.ep_rsp_tx);
    SC_CHECKF(p, eb.drop[MRC_DROP_RATE] >= 300, "B: PROBE_REQ flood: drop[rate] %llu of 500",
              (unsigned long long)eb.drop[MRC_DROP_RATE]);
    SC_CHECKF(p, ca.ev_demoted == 0 && ca.rtx_spurious == 0, "A: %llu EVs demoted, %llu spurious retransmissions",
              (unsigned long long)ca.ev_demoted, (unsigned long long)ca.rtx_spurious);
    note("QP 2: %llu epop / %llu pkey / %llu rate drops at A, %llu answers; %llu PROBE_REQs limited at B",
         (unsigned long long)ea.drop[MRC_DROP_EPOP], (unsigned long long)ea.drop[MRC_DROP_PKEY],
         (unsigned long long)ea.drop[MRC_DROP_RATE], (unsigned long long)ea.ep_rsp_tx,
         (unsigned long long)eb.drop[MRC_DROP_RATE]);
    return 0;
}
SC_TEST(t_ho_qp2, ho_qp2_body)

/* ---- case 9: unpredictable QPNs, and the end of time ---------------------------------------------------------- */
/* P16: QPNs are random (seeded), unique, 24-bit, never 0, 1, 2 or 0xFFFFFF, and not qpn_base + slot; the same seed
 * gives the same QPNs, another seed others; a nonzero qpn_base gives qpn_base + slot. */
static int t_ho_qpn_random(void) {
    static mrc_endpoint ep[2];
    static mrc_conn c[2][MRC_MAX_CONNS];
    mrc_config cf;
    unsigned s, i, j, same = 0, seq = 0;
    for (s = 0; s < 2; s++) {
        mrc_config_default(&cf);
        cf.seed = g_seed + 13900 + s;
        CHECK_EQ(mrc_endpoint_init(&ep[s], &cf, 0), MRC_OK);
        memset(c[s], 0, sizeof c[s]);
        for (i = 0; i < MRC_MAX_CONNS; i++) {
            uint32_t q;
            CHECK_EQ(mrc_conn_init(&ep[s], &c[s][i], 0), MRC_OK);
            q = mrc_conn_qpn(&c[s][i]);
            CHECKF(q > MRC_EPOP_QPN && q < 0xFFFFFFu, "seed %llu: QPN %#x", (unsigned long long)cf.seed, q);
            for (j = 0; j < i; j++) CHECKF(mrc_conn_qpn(&c[s][j]) != q, "QPN %#x twice", q);
            seq += q == cf.qpn_base + i;
        }
    }
    for (i = 0; i < MRC_MAX_CONNS; i++) same += mrc_conn_qpn(&c[0][i]) == mrc_conn_qpn(&c[1][i]);
    CHECKF(seq == 0, "%u QPNs are qpn_base + slot", seq);
    CHECKF(same == 0, "%u QPNs equal under two seeds", same);
    /* same seed, same QPNs; a destroyed conn's slot gets a new QPN */
    mrc_config_default(&cf);
    cf.seed = g_seed + 13900;
    CHECK_EQ(mrc_endpoint_init(&ep[1], &cf, 0), MRC_OK);
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        memset(&c[1][i], 0, sizeof c[1][i]);
        CHECK_EQ(mrc_conn_init(&ep[1], &c[1][i], 0), MRC_OK);
        CHECK_EQ(mrc_conn_qpn(&c[1][i]), mrc_conn_qpn(&c[0][i]));
    }
    {
        uint32_t old = mrc_conn_qpn(&c[1][0]);
        CHECK_EQ(mrc_conn_destroy(&c[1][0]), MRC_OK);
        CHECK_EQ(mrc_conn_init(&ep[1], &c[1][0], 0), MRC_OK);
        CHECK(mrc_conn_qpn(&c[1][0]) != old);
    }
    mrc_config_default(&cf);
    cf.qpn_base = 0x100;
    CHECK_EQ(mrc_endpoint_init(&ep[0], &cf, 0), MRC_OK);
    memset(&c[0][0], 0, sizeof c[0][0]);
    CHECK_EQ(mrc_conn_init(&ep[0], &c[0][0], 0), MRC_OK);
    CHECK_EQ(mrc_conn_qpn(&c[0][0]), cf.qpn_base);
    return 0;
}

/* Deadlines at the end of time: a transfer (with losses, so RTO, TLP, SACK-delay and probe timers all run) that
 * starts 1 s before 2^64 ns completes. The RTO is 1.07 s (timeout 20) and an endpoint request waits 2 s, so both
 * deadlines lie past the end of time: before mrc__deadline_add, now + interval wrapped to the past and the timer
 * loop hit MRC_ASSERT(0); now they saturate to never, and the EV_PROBE's answer still arrives. */
static int ho_time_body(sc_pair *p) {
    mrc_wire_link l;
    unsigned i;
    sc_defaults(p, g_seed + 14000);
    p->t0 = UINT64_MAX - SC_SEC;
    p->region = 2u << 20;
    p->cfg[1].ack.sack_every = 4; /* the SACK-delay timer too */
    p->attr[0].timeout = p->attr[1].timeout = 20;
    mrc_wire_link_default(&l);
    l.loss_ppm = 20000;
    l.jitter_ns = 1000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_now(p) == p->t0);
    {
        mrc_ep_req r;
        memset(&r, 0, sizeof r);
        r.op = MRC_EPOP_EV_PROBE;
        r.port = 1;
        r.ev = 50000;
        r.ev_fmt = MRC_EV_FMT_UDP;
        r.dscp = -1;
        r.req_id = 77;
        r.timeout_ns = 2u * SC_SEC;
        SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, sc_now(p)) == MRC_OK);
        SC_CHECK(p, mrc_endpoint_next_deadline(p->ep[0]) == MRC_TIME_NEVER - 1u); /* its last nanosecond */
        mrc_wire_kick(&p->w);
    }
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 18, 1u << 18, i & 1u, i) == 0);
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 1, 0, i << 18, 1u << 18, MRC_WR_WRITE_IMM, i) == 0);
    SC_CHECK(p, sc_run_until(p, p->t0 + SC_SEC / 2u) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, sc_cstats(p, 0, 0).tx_rtx > 0);
    SC_CHECK(p, sc_estats(p, 0).ep_rsp_rx == 1 && p->n_ep_rsp[0] == 1);
    note("transfer from 2^64 - 1 s: done after %.3f ms, %llu retransmissions", (double)(sc_now(p) - p->t0) / 1e6,
         (unsigned long long)sc_cstats(p, 0, 0).tx_rtx);
    return 0;
}
SC_TEST(t_ho_time_end, ho_time_body)

/* ---- issue 39 (P38): what a forger that sees the traffic can no longer do ------------------------------------ */
/* Forged SACKs (issue 39 "Why": bogus SACKs steered congestion control). Mid-transfer the attacker sends A a SACK with
 * the live cumulative point whose bitmap runs past the last PSN sent, and one whose acknowledged PSN (ack_psn_offset) is
 * past it, both with the largest penalty and an ECN echo; then it replays A's latest genuine SACK twice. P38: the two
 * forged ones are dropped whole (ACK_BOGUS: no penalty, skip request, window change); the replays are quiet
 * (rx_sack_quiet: acknowledgements only). On main the bitmap one was taken: its penalty and skip request applied. */
typedef struct ho_sk {
    ho_spy o;
    uint8_t last[128];
    size_t last_len;
    mrc_rxinfo last_ri;
} ho_sk;
static void ho_sk_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    ho_sk *x = (ho_sk *)p->ud;
    mrc_pkt k;
    ho_rx(p, to, pkt, len, ri, now);
    if (to != 0 || len > sizeof x->last || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK || k.seth.pr)
        return;
    memcpy(x->last, pkt, len);
    x->last_len = len;
    x->last_ri = *ri;
}
static int ho_sk_stop(sc_pair *p) {
    ho_sk *x = (ho_sk *)p->ud;
    ho_spy *o = &x->o;
    if (o->step == 0 && o->have_sack && x->last_len && o->a_nominal > (2u << 20)) {
        uint8_t pkt[128];
        uint32_t qp = mrc_conn_qpn(p->q[0][0].c), cack = o->sack_cack;
        int ahead = mrc_psn_diff(o->a_max_psn, cack);
        size_t n;
        o->before = sc_cstats(p, 0, 0);
        (void)mrc_conn_cc_info(p->q[0][0].c, &o->cc_before);
        n = ho_sack_full(pkt, p, qp, cack, 0, ahead > 20 ? ahead - 20 : 1, ~(uint64_t)0, MRC_M_SKIP_ONCE, 0, 127,
                         o->sack_rcvd, o->sack_entropy);
        o->n_dropped += ho_inject(p, 0, pkt, n, 1, o->sack_entropy, 0) == MRC_ERR_DROP;
        n = ho_sack_full(pkt, p, qp, cack, ahead + 5, 1, 0, MRC_M_SKIP_ONCE, 0, 127, o->sack_rcvd, o->sack_entropy);
        o->n_dropped += ho_inject(p, 0, pkt, n, 1, o->sack_entropy, 0) == MRC_ERR_DROP;
        o->after = sc_cstats(p, 0, 0);
        (void)mrc_conn_cc_info(p->q[0][0].c, &o->cc_after);
        (void)ho_inject(p, 0, x->last, x->last_len, x->last_ri.port, x->last_ri.ev, 0);
        (void)ho_inject(p, 0, x->last, x->last_len, x->last_ri.port, x->last_ri.ev, 0);
        o->n_forged = 4;
        o->step = 1;
    }
    return sc_all_done(p);
}
static int ho_sack_bogus_body(sc_pair *p) {
    static ho_sk x;
    mrc_conn_stats cs;
    ho_spy *o = &x.o;
    memset(&x, 0, sizeof x);
    SC_CHECK(p, ho_bulk_setup(p, &x, g_seed + 14100, ho_sk_rx) == 0);
    p->stop = ho_sk_stop;
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, o->step == 1, "the attack did not run");
    if (sc_check_clean(p)) return 1;
    cs = sc_cstats(p, 0, 0);
    SC_CHECKF(p, o->n_dropped == 2 && sc_estats(p, 0).drop[MRC_DROP_ACK_BOGUS] == 2,
              "forged SACKs: %llu of 2 dropped, drop[ack_bogus] %llu", (unsigned long long)o->n_dropped,
              (unsigned long long)sc_estats(p, 0).drop[MRC_DROP_ACK_BOGUS]);
    SC_CHECKF(p, o->cc_after.cwnd == o->cc_before.cwnd && o->after.cc_pen_dec == o->before.cc_pen_dec &&
                     o->after.ev_skip_req == o->before.ev_skip_req && o->after.rx_sack == o->before.rx_sack &&
                     o->after.cc_rtt_samples == o->before.cc_rtt_samples,
              "a bogus SACK moved the requester: cwnd %llu -> %llu, pen_dec %llu -> %llu, skip %llu -> %llu, "
              "rtt samples %llu -> %llu", (unsigned long long)o->cc_before.cwnd, (unsigned long long)o->cc_after.cwnd,
              (unsigned long long)o->before.cc_pen_dec, (unsigned long long)o->after.cc_pen_dec,
              (unsigned long long)o->before.ev_skip_req, (unsigned long long)o->after.ev_skip_req,
              (unsigned long long)o->before.cc_rtt_samples, (unsigned long long)o->after.cc_rtt_samples);
    SC_CHECKF(p, cs.rx_sack_quiet >= 2, "the replayed SACKs were not quiet (rx_sack_quiet %llu)",
              (unsigned long long)cs.rx_sack_quiet);
    note("2 bogus SACKs dropped whole (penalty, skip, window unchanged), 2 replays quiet; transfer bit-exact");
    return 0;
}
SC_TEST(t_ho_sack_bogus, ho_sack_bogus_body)

/* A PROBE_REQ flood in A's name (issue 39 "Why": a retransmission storm). For 200 us the attacker sends B 2 M
 * PROBE_REQs/s, CE-marked, with random EVs and timestamps; B answers up to its rate limit, and each answer reaches A
 * as a probe answer A never asked for, with an ECN echo. P38: they are quiet at A (rx_sack_quiet): no skip request, no
 * congestion signal, no loss detection, no EV withheld. On main each was a SACK with an ECN echo. */
static int ho_pflood_stop(sc_pair *p) {
    ho_spy *o = (ho_spy *)p->ud;
    mrc_time now = sc_now(p);
    if (o->step == 0 && o->a_data >= 64) {
        o->step = 1;
        o->t_next = now;
        o->before = sc_cstats(p, 0, 0);
    }
    while (o->step == 1 && o->t_next <= now) {
        uint8_t pkt[128];
        uint64_t r = ho_rand(o);
        size_t n = ho_probe(pkt, p, mrc_conn_qpn(p->q[1][0].c), (uint32_t)r, (uint16_t)(r >> 48));
        p->inj_ecn = 3;
        (void)ho_inject(p, 1, pkt, n, (uint8_t)(1u + (r >> 8) % 8u), 49152u + (uint32_t)((r >> 16) & 0x3FFFu), 0);
        p->inj_ecn = 0;
        o->n_forged++;
        o->t_next += 500; /* 2 M/s */
        if (o->n_forged >= 400) o->step = 2;
    }
    if (o->step == 1) return 0;
    return sc_all_done(p);
}
static int ho_pflood_body(sc_pair *p) {
    static ho_spy o;
    unsigned i;
    mrc_conn_stats ca;
    sc_defaults(p, g_seed + 14200);
    memset(&o, 0, sizeof o);
    o.rng = g_seed ^ 0x7070ull;
    p->ud = &o;
    p->tap = ho_tap;
    p->rx = ho_rx;
    p->region = 4u << 20;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 16; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 18, 1u << 18, MRC_WR_WRITE, 0) == 0);
    p->stop = ho_pflood_stop;
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, o.step == 2, "the attack did not run to its end (step %d)", o.step);
    if (sc_check_clean(p)) return 1;
    ca = sc_cstats(p, 0, 0);
    SC_CHECKF(p, ca.rx_sack_quiet >= 64, "A: %llu quiet SACKs (want the answers to B's burst at least)",
              (unsigned long long)ca.rx_sack_quiet);
    SC_CHECKF(p, ca.ev_skip_req == 0 && ca.cc_md == 0 && ca.rtx_probe_loss == 0 && ca.ev_withheld == 0 &&
                     ca.rtx_spurious == 0 && ca.tx_rtx == 0,
              "A took the answers to forged probes: %llu skip requests, %llu MDs, %llu probe losses, %llu EVs withheld, "
              "%llu retransmissions (%llu spurious)", (unsigned long long)ca.ev_skip_req,
              (unsigned long long)ca.cc_md, (unsigned long long)ca.rtx_probe_loss, (unsigned long long)ca.ev_withheld,
              (unsigned long long)ca.tx_rtx, (unsigned long long)ca.rtx_spurious);
    note("PROBE_REQ flood: %llu answers reached A, all quiet; no retransmission, no CC or EV signal",
         (unsigned long long)ca.rx_sack_quiet);
    return 0;
}
SC_TEST(t_ho_probe_flood, ho_pflood_body)

/* Control packets from strangers, PSU fields, bounded PSUs, controllers (issue 39 "Why": garbage accepted as PSUs,
 * planes lost). With guard.psu_hold_ns 100 us at A, the attacker sends A: a PSU naming plane 1 from a stranger (peer
 * 99, the right pkey); PSUs from B's handle naming plane 9 of 8, and arriving on plane 2 while naming plane 1 only;
 * then a well-formed PSU from B's handle on plane 1 naming plane 1 (not defended: it is applied). A registered
 * controller (99) then has its EV_PROBE answered. P38: STRANGER, PSU, PSU; the applied one confines A to plane 1 for
 * 100 us at most, after which every plane carries data again (psu_expired). */
typedef struct ho_pp {
    ho_spy o;
    mrc_time t_psu;
    uint64_t during[9], after[9];
} ho_pp;
static void ho_pp_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    ho_pp *x = (ho_pp *)p->ud;
    mrc_pkt k;
    ho_tap(p, from, pkt, len, ti, now);
    if (from != 0 || !x->t_psu || ti->port > 8 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    if (now > x->t_psu + 2000u && now < x->t_psu + p->cfg[0].guard.psu_hold_ns) x->during[ti->port]++;
    if (now > x->t_psu + p->cfg[0].guard.psu_hold_ns) x->after[ti->port]++;
}
static int ho_pp_stop(sc_pair *p) {
    ho_pp *x = (ho_pp *)p->ud;
    ho_spy *o = &x->o;
    if (o->step == 0 && o->a_data >= 64) {
        uint8_t pkt[128];
        size_t n = ho_ep_req(pkt, p, MRC_EPOP_PORT_STATUS_UPDATE, 1, 0x1, 0xFFFF);
        mrc_endpoint_stats es;
        o->n_dropped += ho_inject(p, 0, pkt, n, 1, 50000, 99) == MRC_ERR_DROP;
        n = ho_ep_req(pkt, p, MRC_EPOP_PORT_STATUS_UPDATE, 2, 0x1FF, 0xFFFF);
        o->n_dropped += ho_inject(p, 0, pkt, n, 1, 50001, 0) == MRC_ERR_DROP;
        n = ho_ep_req(pkt, p, MRC_EPOP_PORT_STATUS_UPDATE, 3, 0x1, 0xFFFF);
        o->n_dropped += ho_inject(p, 0, pkt, n, 2, 50002, 0) == MRC_ERR_DROP;
        n = ho_ep_req(pkt, p, MRC_EPOP_PORT_STATUS_UPDATE, 4, 0x1, 0xFFFF);
        SC_CHECK(p, ho_inject(p, 0, pkt, n, 1, 50003, 0) == MRC_OK);
        x->t_psu = sc_now(p);
        /* a registered controller's EV_PROBE is answered; a forgotten one's is not */
        es = sc_estats(p, 0);
        SC_CHECK(p, mrc_endpoint_controller_set(p->ep[0], 99, true) == MRC_OK);
        n = ho_ep_req(pkt, p, MRC_EPOP_EV_PROBE, 5, 0, 0x1234);
        SC_CHECK(p, ho_inject(p, 0, pkt, n, 3, 50004, 99) == MRC_OK);
        SC_CHECK(p, mrc_endpoint_controller_set(p->ep[0], 99, false) == MRC_OK);
        o->n_dropped += ho_inject(p, 0, pkt, n, 3, 50005, 99) == MRC_ERR_DROP;
        SC_CHECK(p, sc_estats(p, 0).ep_req_rx == es.ep_req_rx + 1);
        o->step = 1;
    }
    return sc_all_done(p);
}
static int ho_psu_body(sc_pair *p) {
    static ho_pp x;
    unsigned i, during = 0, after = 0;
    mrc_endpoint_stats ea;
    sc_defaults(p, g_seed + 14300);
    memset(&x, 0, sizeof x);
    x.o.rng = g_seed ^ 0x5050ull;
    p->ud = &x;
    p->tap = ho_pp_tap;
    p->rx = ho_rx;
    p->region = 8u << 20;
    p->cfg[0].guard.psu_hold_ns = 100000u;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 32; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 18, 1u << 18, MRC_WR_WRITE, 0) == 0);
    p->stop = ho_pp_stop;
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, x.o.step == 1, "the attack did not run");
    if (sc_check_clean(p)) return 1;
    ea = sc_estats(p, 0);
    SC_CHECKF(p, x.o.n_dropped == 4 && ea.drop[MRC_DROP_STRANGER] == 2 && ea.drop[MRC_DROP_PSU] == 2 &&
                     ea.psu_rx == 1 && ea.psu_expired == 1,
              "%llu of 4 dropped: stranger %llu (want 2), psu %llu (want 2); psu_rx %llu (want 1), psu_expired %llu",
              (unsigned long long)x.o.n_dropped, (unsigned long long)ea.drop[MRC_DROP_STRANGER],
              (unsigned long long)ea.drop[MRC_DROP_PSU], (unsigned long long)ea.psu_rx,
              (unsigned long long)ea.psu_expired);
    for (i = 2; i <= 8; i++) {
        during += x.during[i] != 0;
        after += x.after[i] != 0;
    }
    SC_CHECKF(p, during == 0 && x.during[1] > 0 && after == 7,
              "planes 2..8 carried data on %u planes while the PSU held (plane 1: %llu packets), on %u after it", during,
              (unsigned long long)x.during[1], after);
    note("PSUs: stranger and bad fields dropped; the applied one held plane 1 alone for 100 us, then all 8 again");
    return 0;
}
SC_TEST(t_ho_psu_bounded, ho_psu_body)

/* Hardened mode (issue 39 "Why": one packet kills a QP). Both sides set guard.hardened. While A sends message 5,
 * the attacker sends B an in-window 4 KiB write with a wrong rkey and a WRITE_ONLY_IMM with a far rqmsn (both ahead
 * of the sender), and A a transport NAK naming message 5 and one naming message 200 (never posted); once A's message 3
 * is complete, B a copy of one of its packets with other bytes and the right rkey. P38: ACCESS, WIMM, NAK, ACK_BOGUS
 * drops, no QP
 * error, no NAK sent; the copy is a duplicate whose bytes differ (rx_conflict 1), nothing placed. On main the first
 * packet ended B's QP (NAK 0x62, ERR). */
static int ho_hard_stop(sc_pair *p) {
    ho_spy *o = (ho_spy *)p->ud;
    static uint8_t pkt[4096 + 128];
    if (o->step == 0 && o->a_data > 0 && o->a_first_msn[5] == 5u) {
        uint32_t qb = mrc_conn_qpn(p->q[1][0].c), qa = mrc_conn_qpn(p->q[0][0].c);
        size_t n = ho_write(pkt, p, MRC_OP_WRITE_ONLY, qb, o->a_max_psn + 2u, 5, 0, sc_iova(1) + (5u << 16),
                            p->rkey[1] ^ 0x5Au, 4096, 0xEE);
        o->n_dropped += ho_inject(p, 1, pkt, n, 1, 0xC011u, 0) == MRC_ERR_DROP;
        n = ho_write(pkt, p, MRC_OP_WRITE_ONLY_IMM, qb, o->a_max_psn + 3u, 5, 0x4000, sc_iova(1) + (5u << 16),
                     p->rkey[1], 0, 0);
        o->n_dropped += ho_inject(p, 1, pkt, n, 1, 0xC012u, 0) == MRC_ERR_DROP;
        n = ho_aeth(pkt, p, qa, 5, MRC_AETH_NAK_REM_ACCESS, 5);
        o->n_dropped += ho_inject(p, 0, pkt, n, 1, 0xC013u, 0) == MRC_ERR_DROP;
        n = ho_aeth(pkt, p, qa, 200, MRC_AETH_NAK_REM_ACCESS, 200); /* never posted */
        o->n_dropped += ho_inject(p, 0, pkt, n, 1, 0xC014u, 0) == MRC_ERR_DROP;
        o->step = 1;
    }
    if (o->step == 1 && sc_cstats(p, 0, 0).msgs_done >= 5) {
        size_t n = ho_write(pkt, p, MRC_OP_WRITE_ONLY, mrc_conn_qpn(p->q[1][0].c), o->a_first_psn[3] + 5u, 3, 0,
                            sc_iova(1) + (3u << 16) + 5u * 4096u, p->rkey[1], 4096, 0xEE);
        o->n_dropped += ho_inject(p, 1, pkt, n, 1, 0xC015u, 0) == MRC_ERR_DROP;
        o->step = 2;
    }
    return sc_all_done(p);
}
static int ho_hard_body(sc_pair *p) {
    static ho_spy o;
    unsigned i;
    mrc_endpoint_stats ea, eb;
    sc_defaults(p, g_seed + 14400);
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = ho_tap;
    p->rx = ho_rx;
    p->region = 2u << 20;
    p->cfg[0].guard.hardened = p->cfg[1].guard.hardened = true;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 16; i++)
        SC_CHECK(p, sc_add(p, 0, 0, i << 16, 1u << 16, (i & 3u) == 3u ? MRC_WR_WRITE_IMM : MRC_WR_WRITE, i) == 0);
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 1, 0, i << 16, 1u << 16, MRC_WR_WRITE_IMM, 100 + i) == 0);
    p->stop = ho_hard_stop;
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, o.step == 2, "the attack did not run to its end (step %d)", o.step);
    if (sc_check_clean(p)) return 1;
    ea = sc_estats(p, 0);
    eb = sc_estats(p, 1);
    SC_CHECKF(p, o.n_dropped == 5 && eb.drop[MRC_DROP_ACCESS] == 1 && eb.drop[MRC_DROP_WIMM] == 1 &&
                     ea.drop[MRC_DROP_NAK] == 1 && ea.drop[MRC_DROP_ACK_BOGUS] == 1 && eb.drop[MRC_DROP_DUP] >= 1,
              "%llu of 5 dropped: B access %llu wimm %llu dup %llu, A nak %llu ack_bogus %llu",
              (unsigned long long)o.n_dropped, (unsigned long long)eb.drop[MRC_DROP_ACCESS],
              (unsigned long long)eb.drop[MRC_DROP_WIMM], (unsigned long long)eb.drop[MRC_DROP_DUP],
              (unsigned long long)ea.drop[MRC_DROP_NAK], (unsigned long long)ea.drop[MRC_DROP_ACK_BOGUS]);
    SC_CHECK(p, sc_cstats(p, 1, 0).tx_nak == 0);
    SC_CHECKF(p, sc_cstats(p, 1, 0).rx_conflict == 1, "rx_conflict %llu, want 1",
              (unsigned long long)sc_cstats(p, 1, 0).rx_conflict);
    note("hardened: access violation, WIMM overrun, NAKs dropped, no QP error; a conflicting copy counted");
    return 0;
}
SC_TEST(t_ho_hardened, ho_hard_body)

const test_entry test_hostile[] = {
    {"ho_zero_len_write", t_ho_zero_len_write},
    {"ho_nack_unsent", t_ho_nack_unsent},
    {"ho_stale_sack", t_ho_stale_sack},
    {"ho_qp2", t_ho_qp2},
    {"ho_qpn_random", t_ho_qpn_random},
    {"ho_time_end", t_ho_time_end},
    {"ho_sack_bogus", t_ho_sack_bogus},
    {"ho_probe_flood", t_ho_probe_flood},
    {"ho_psu_bounded", t_ho_psu_bounded},
    {"ho_hardened", t_ho_hardened},
    {NULL, NULL},
};
