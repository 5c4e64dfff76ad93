/* fuzz_sack.c - differential: the SACK/bitmap/window bookkeeping of mrc.h against naive reference models.
 *
 * Observed through packets, events and counters only (public API). Input: [mode][config...][ops...].
 *
 * Responder mode: one QP receives one-packet writes at fuzzer-chosen PSNs (around cack, at the window edges, or
 * anywhere in the 24-bit space), some trimmed, some CE-marked, plus probes and timer firings. The model is a plain
 * array of arrived PSNs and a cumulative point. Checked after every packet: accept / DUP / PSN_OOR / TRIMMED exactly
 * as the model says; every SACK's cack_psn, the 64 bits of its bitmap at cack + sack_offset, its ack_psn_offset and
 * its ooo_count; NACK reason and PSN; the responder counters.
 *
 * Requester mode: one QP sends multi-packet writes; the fuzzer answers with SACKs (cumulative point, offset,
 * bitmap, ack offset, probe flag, wrong BTH PSN) and moves time. The model is a plain acked[] array, win_base,
 * snd_una and the message table. Checked: MALFORMED / ACK_BOGUS / accepted exactly as the model says; new PSNs
 * are consecutive and inside [win_base, win_base + window); a retransmission names an unacknowledged PSN inside
 * the window; after every drain the requester has sent exactly as far as the window allows; SEND_DONE events
 * match the model's completed messages one for one, in order.
 *
 * Both modes also check mrc_psn_diff / mrc_psn_add / mrc_psn_lt against the naive serial arithmetic, and the
 * endpoint invariants (fz_invariants: queues, timer heap, windows, mrc_conn_check) after every record. */
#define MRC_MAX_INFLIGHT 256
#define MRC_MAX_SQ 16
#include "fuzz_common.h"

#define FZ_MAX_OPS 1500
#define FZ_REL 4096            /* model arrays: PSN offsets from the start */
#define FZ_MSGS 64
#define FZ_MTU 256u
#define FZ_REGION 65536u

typedef struct fz_msg {
    uint32_t first, npk, len, sent;
    uint64_t wr_id, va;
    int started;
} fz_msg;

static struct {
    mrc_config cfg;
    mrc_endpoint ep;
    mrc_conn c;
    mrc_time now;
    uint32_t rkey;
    uint32_t start;            /* rq_psn (responder) or sq_psn (requester) */
    uint32_t win;              /* responder: rsp window in PSNs; requester: send window */
    /* responder model */
    uint8_t got[FZ_REL];
    int32_t cack;              /* relative; -1 before the first PSN */
    uint32_t ooo;
    uint64_t n_dup, n_oor, n_trim, n_data;
    mrc_time probe_tat;        /* the PROBE_REQ bucket (docs/PROTOCOL.md P19), modelled */
    int nack_oor;
    int dyn_mpr;
    unsigned mpr_dest;
    /* requester model */
    uint8_t acked[FZ_REL];
    int32_t nxt, wbase, una;   /* relative */
    fz_msg msg[FZ_MSGS];
    uint32_t nmsg, reported, done;
    uint32_t total_psns;
    uint32_t psn_msg[FZ_REL];
    uint64_t n_sack_ok;
    uint8_t region[FZ_REGION];
    uint8_t src[FZ_MTU * 16u];
    uint8_t buf[4400];
    uint8_t pkt[4400];
} g;

static void fz_psn_arith(fz_in *in) {
    uint32_t a = fz_u24(in), b = fz_u24(in);
    int32_t n = (int32_t)fz_u32(in);
    FZ_CHECK(mrc_psn_diff(a, b) == fz_psn_diff(a, b), "mrc_psn_diff(%#x, %#x)", a, b);
    FZ_CHECK(mrc_psn_lt(a, b) == (fz_psn_diff(a, b) < 0), "mrc_psn_lt(%#x, %#x)", a, b);
    FZ_CHECK(mrc_psn_add(a, n) == ((a + (uint32_t)n) & 0xFFFFFFu), "mrc_psn_add(%#x, %d)", a, n);
}

static void fz_setup_common(fz_in *in, unsigned state) {
    uint8_t c0 = fz_u8(in), c1 = fz_u8(in);
    mrc_conn_attr a;
    int rc;
    mrc_config_default(&g.cfg);
    g.cfg.num_ports = (uint8_t)(1u + (c0 & 1u));
    g.cfg.auto_ev.per_port = (uint16_t)(1u + ((c0 >> 1) & 3u));
    g.cfg.wire.sack_msb_first = (uint8_t)((c0 >> 3) & 1u);
    g.cfg.rx.window_inclusive = (c0 >> 4) & 1u;
    g.cfg.rx.nack_oor = (c0 >> 5) & 1u;
    g.cfg.tseth = !((c0 >> 6) & 1u);
    g.cfg.ack.sack_every = (uint16_t)(1u + (c1 & 3u));
    g.cfg.recovery.reorder_slack_ns = (c1 & 4u) ? 300u : 0u;
    g.cfg.ack.request_every = (uint16_t)((c1 >> 3) & 3u);
    g.nack_oor = g.cfg.rx.nack_oor;
    g.cfg.cc.algo = MRC_CC_ALGO_NONE; /* the reference models the PSN window and MPR; congestion windows are not in it */
    g.now = 1000000;
    rc = mrc_endpoint_init(&g.ep, &g.cfg, g.now);
    FZ_CHECK(rc == MRC_OK, "init %d", rc);
    rc = mrc_endpoint_reg_mr(&g.ep, g.region, 0x100000u, FZ_REGION, MRC_ACCESS_REMOTE_WRITE, (void *)0, &g.rkey);
    FZ_CHECK(rc == MRC_OK, "reg_mr %d", rc);
    rc = mrc_conn_init(&g.ep, &g.c, g.now);
    FZ_CHECK(rc == MRC_OK, "conn_init %d", rc);
    memset(&a, 0, sizeof a);
    g.start = fz_u24(in);
    g.mpr_dest = 1u + ((c1 >> 5) & (MRC_MAX_MPR_UNITS - 1u));
    g.dyn_mpr = (c1 >> 6) & 1u;
    a.state = MRC_QPS_INIT;
    rc = mrc_conn_modify(&g.c, &a, MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, g.now);
    FZ_CHECK(rc == MRC_OK, "INIT %d", rc);
    a.state = MRC_QPS_RTR;
    a.dest_qpn = 0x777;
    a.rq_psn = g.start;
    a.path_mtu = FZ_MTU;
    a.mpr_dest = (uint8_t)g.mpr_dest;
    a.max_wimm_dest = 1;
    a.caps = g.dyn_mpr ? MRC_CAP_DYNAMIC_MPR : 0u;
    rc = mrc_conn_modify(&g.c, &a,
                         MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU | MRC_ATTR_MPR_DEST |
                             MRC_ATTR_MAX_WIMM_DEST | MRC_ATTR_CAPS,
                         g.now);
    FZ_CHECK(rc == MRC_OK, "RTR %d", rc);
    if (state == MRC_QPS_RTS) {
        a.state = MRC_QPS_RTS;
        a.sq_psn = g.start;
        a.mpr = (uint8_t)(1u + ((c0 >> 7) & 1u));
        a.max_wimm = 1;
        a.retry_linear = 3;
        a.retry_exp = 25; /* infinite: the model stays in RTS */
        a.timeout = (uint8_t)(6u + (c1 >> 7) * 4u);
        rc = mrc_conn_modify(&g.c, &a,
                             MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY |
                                 MRC_ATTR_TIMEOUT,
                             g.now);
        FZ_CHECK(rc == MRC_OK, "RTS %d", rc);
        g.win = MRC__MIN((uint32_t)a.mpr * 128u, (uint32_t)MRC_MAX_INFLIGHT);
    } else {
        g.win = g.mpr_dest * 128u - (g.cfg.rx.window_inclusive ? 0u : 1u);
    }
}

/* ============================================================================================================ *
 * responder mode
 * ============================================================================================================ */
static int fz_rgot(int32_t rel) { return rel >= 0 && rel < FZ_REL && g.got[rel]; }

static void fz_rsp_check_ctl(const uint8_t *p, size_t n, int named, uint32_t named_psn, int want_nack,
                             uint32_t nack_psn, unsigned nack_reason) {
    mrc_pkt k;
    uint32_t cack = fz_psn_add(g.start, g.cack);
    FZ_CHECK(mrc_pkt_decode(p, n, &g.cfg.wire, &k) == MRC_OK, "control packet does not decode");
    if (k.bth.opcode == MRC_OP_SACK) {
        int32_t off = k.seth.sack_offset, i, d;
        FZ_CHECK(k.seth.cack_psn == cack && k.bth.psn == cack, "SACK cack %#x (bth %#x), model %#x", k.seth.cack_psn,
                 k.bth.psn, cack);
        FZ_CHECK(off >= 1, "SACK bitmap starts at cack%+d, at or before cack", off);
        for (i = 0; i < 64; i++) {
            int bit = (int)((k.seth.sack_bitmap >> i) & 1u);
            int32_t rel = g.cack + off + i;
            int want = (uint32_t)(off + i) <= g.win ? fz_rgot(rel) : 0;
            FZ_CHECK(bit == want, "SACK bit %d (PSN cack%+d) is %d, model %d", i, off + i, bit, want);
        }
        FZ_CHECK(k.cc.ooo_count == MRC__MIN(g.ooo, 0x7FFFu), "ooo_count %u, model %u", k.cc.ooo_count, g.ooo);
        FZ_CHECK(k.seth.mpr == (g.dyn_mpr ? g.mpr_dest : 0u), "SETH mpr %u", k.seth.mpr);
        if (named && !k.seth.pr) {
            d = fz_psn_diff(named_psn, cack);
            FZ_CHECK(k.seth.ack_psn_offset == ((d < -32768 || d > 32767) ? 0 : d), "ack_psn_offset %d, want %d",
                     k.seth.ack_psn_offset, d);
        }
        if (k.seth.pr) FZ_CHECK(k.seth.ack_psn_offset == 0 && off == 1, "probe SACK offsets %d %d",
                                k.seth.ack_psn_offset, off);
    } else if (k.bth.opcode == MRC_OP_NACK) {
        FZ_CHECK(want_nack && k.neth.nack_psn == nack_psn && k.bth.psn == nack_psn && k.neth.nack_reason == nack_reason,
                 "NACK psn %#x reason %#x, model %s psn %#x reason %#x", k.neth.nack_psn, k.neth.nack_reason,
                 want_nack ? "wants" : "wants none", nack_psn, nack_reason);
    } else {
        FZ_CHECK(0, "responder sent opcode %#x", k.bth.opcode);
    }
}

static void fz_rsp_drain(int named, uint32_t named_psn, int want_nack, uint32_t nack_psn, unsigned nack_reason) {
    mrc_txinfo ti;
    int r, nacks = 0;
    while ((r = mrc_endpoint_poll_tx(&g.ep, g.buf, sizeof g.buf, MRC_TX_COPY, &ti, g.now)) > 0) {
        if (ti.qpn == MRC_EPOP_QPN) continue; /* endpoint operations: not this model's business */
        fz_rsp_check_ctl(g.buf, (size_t)r, named, named_psn, want_nack, nack_psn, nack_reason);
        if (ti.opcode == MRC_OP_NACK) nacks++;
    }
    FZ_CHECK(r == 0, "poll_tx %d", r);
    FZ_CHECK(nacks == want_nack, "%d NACKs, model %d", nacks, want_nack);
}

static void fz_rsp_op_data(fz_in *in) {
    uint8_t b = fz_u8(in), fl = fz_u8(in);
    uint32_t cack = fz_psn_add(g.start, g.cack), psn;
    int32_t d, rel;
    fz_data dd;
    mrc_rxinfo ri;
    mrc_endpoint_stats s0, s1;
    size_t n;
    int rc, want, moved, trim = (fl & 3u) == 3u, lasthop = trim && (fl & 4u), ce = (fl >> 3) & 1u;
    if (b & 0x80u) psn = fz_u24(in);
    else if (b & 0x40u) psn = fz_psn_add(cack, (int32_t)g.win - 4 + (int32_t)(b & 7u)); /* the window edge */
    else psn = fz_psn_add(cack, (int32_t)(b & 0x3Fu) - 8);
    d = fz_psn_diff(psn, cack);
    rel = fz_psn_diff(psn, g.start);
    if (d <= 0 || ((uint32_t)d <= g.win && fz_rgot(rel))) want = MRC_DROP_DUP;
    else if ((uint32_t)d > g.win) want = MRC_DROP_PSN_OOR;
    else if (trim) want = MRC_DROP_TRIMMED;
    else want = -1;
    memset(&dd, 0, sizeof dd);
    dd.op = MRC_OP_WRITE_ONLY;
    dd.qp = mrc_conn_qpn(&g.c);
    dd.pkey = 0xFFFF;
    dd.psn = psn;
    dd.msn = (uint16_t)(rel + 1);
    dd.a = (fl >> 4) & 1u;
    dd.rtx = (fl >> 5) & 1u;
    dd.ts_on = 1;
    dd.ts = (uint16_t)psn;
    dd.va = 0x100000u + ((uint32_t)rel & 0x3FFFu) * 4u;
    dd.rkey = g.rkey;
    dd.dma_len = 4;
    dd.pl = g.src;
    dd.plen = 4;
    dd.pad = -1;
    n = fz_build_data(g.pkt, sizeof g.pkt, &g.cfg.wire, &dd);
    memset(&ri, 0, sizeof ri);
    ri.port = 1;
    ri.ecn = ce ? 3u : 0u;
    ri.dscp = trim ? g.cfg.dscp[lasthop ? MRC_DSCP_TRIMMED_LASTHOP : MRC_DSCP_TRIMMED] : g.cfg.dscp[MRC_DSCP_TRIMMABLE];
    ri.ev = 0xC123;
    mrc_endpoint_stats_get(&g.ep, &s0);
    rc = mrc_endpoint_recv(&g.ep, g.pkt, n, &ri, g.now);
    mrc_endpoint_stats_get(&g.ep, &s1);
    moved = fz_stats_step(&s0, &s1);
    FZ_CHECK(want < 0 ? (rc == MRC_OK && moved == -1) : (rc == MRC_ERR_DROP && moved == want),
             "PSN cack%+d: rc %d drop %s, model %s", d, rc, moved >= 0 ? mrc_drop_name((unsigned)moved) : "none",
             want >= 0 ? mrc_drop_name((unsigned)want) : "accept");
    if (want < 0) {
        FZ_CHECK(rel >= 0 && rel < FZ_REL, "model range");
        g.got[rel] = 1;
        g.ooo++;
        g.n_data++;
        while (fz_rgot(g.cack + 1)) {
            g.cack++;
            g.ooo--;
        }
    } else if (want == MRC_DROP_DUP) {
        g.n_dup++;
    } else if (want == MRC_DROP_PSN_OOR) {
        g.n_oor++;
    } else {
        g.n_trim++;
    }
    fz_rsp_drain(want != MRC_DROP_PSN_OOR && want != MRC_DROP_TRIMMED, psn,
                 want == MRC_DROP_TRIMMED || (want == MRC_DROP_PSN_OOR && g.nack_oor), psn,
                 want == MRC_DROP_TRIMMED ? (lasthop ? MRC_NACK_TRIMMED_LASTHOP : MRC_NACK_TRIMMED)
                                          : MRC_NACK_PSN_OOR_WINDOW);
}

static void fz_rsp_counters(void) {
    mrc_conn_stats cs;
    mrc_conn_stats_get(&g.c, &cs);
    FZ_CHECK(cs.rx_data == g.n_data && cs.rx_dup == g.n_dup && cs.rx_oor == g.n_oor && cs.rx_trimmed == g.n_trim,
             "responder counters data %llu dup %llu oor %llu trim %llu, model %llu %llu %llu %llu",
             (unsigned long long)cs.rx_data, (unsigned long long)cs.rx_dup, (unsigned long long)cs.rx_oor,
             (unsigned long long)cs.rx_trimmed, (unsigned long long)g.n_data, (unsigned long long)g.n_dup,
             (unsigned long long)g.n_oor, (unsigned long long)g.n_trim);
}

/* P19: PROBE_REQs are answered at most probe_rate_pps per connection with bursts of probe_burst (GCRA in virtual
 * time; the same arithmetic as the core's bucket, from the configuration): does this one fit? */
static int fz_probe_fits(void) {
    mrc_time T = g.cfg.guard.probe_rate_pps ? (mrc_time)1000000000u / g.cfg.guard.probe_rate_pps : 0, tau;
    if (!T) return 1;
    if (T < 1) T = 1;
    tau = T * (mrc_time)(g.cfg.guard.probe_burst ? g.cfg.guard.probe_burst - 1u : 0u);
    if (g.probe_tat > g.now && g.probe_tat - g.now > tau) return 0;
    g.probe_tat = (g.probe_tat > g.now ? g.probe_tat : g.now) + T;
    return 1;
}

static void fz_run_responder(fz_in *in) {
    unsigned ops;
    fz_setup_common(in, (fz_u8(in) & 1u) ? MRC_QPS_RTS : MRC_QPS_RTR);
    g.win = g.mpr_dest * 128u - (g.cfg.rx.window_inclusive ? 0u : 1u);
    g.cack = -1;
    for (ops = 0; ops < FZ_MAX_OPS && fz_left(in) > 0; ops++) {
        uint8_t op = fz_u8(in);
        switch (op % 8u) {
        case 0: case 1: case 2: case 3: case 4: fz_rsp_op_data(in); break;
        case 5: { /* probe: answered with pr = 1 */
            mrc_rxinfo ri;
            size_t n = fz_build_probe(g.pkt, &g.cfg.wire, mrc_conn_qpn(&g.c), 0xFFFF, fz_u24(in), 1, fz_u16(in));
            memset(&ri, 0, sizeof ri);
            ri.port = 1;
            mrc_endpoint_stats es0, es1;
            int rc;
            mrc_endpoint_stats_get(&g.ep, &es0);
            rc = mrc_endpoint_recv(&g.ep, g.pkt, n, &ri, g.now);
            mrc_endpoint_stats_get(&g.ep, &es1);
            if (fz_probe_fits()) {
                FZ_CHECK(rc == MRC_OK, "probe dropped (%d) within the rate limit", rc);
            } else { /* over probe_rate_pps/probe_burst: dropped and counted, not answered */
                FZ_CHECK(rc < 0 && es1.drop[MRC_DROP_RATE] == es0.drop[MRC_DROP_RATE] + 1u,
                         "probe over the rate limit not dropped as MRC_DROP_RATE (rc %d)", rc);
            }
            fz_rsp_drain(0, 0, 0, 0, 0);
            break;
        }
        case 6: /* time: coalesced SACKs come out */
            g.now += (mrc_time)fz_u16(in) << (op >> 5);
            FZ_CHECK(mrc_endpoint_on_timeout(&g.ep, g.now) == MRC_OK, "on_timeout");
            fz_rsp_drain(0, 0, 0, 0, 0);
            break;
        default: fz_psn_arith(in); break;
        }
        fz_rsp_counters();
        fz_invariants(&g.ep);
    }
}

/* ============================================================================================================ *
 * requester mode
 * ============================================================================================================ */
static int fz_racked(int32_t rel) { return rel >= 0 && rel < FZ_REL && g.acked[rel]; }

static void fz_req_post(void) {
    while (g.nmsg < FZ_MSGS && g.total_psns + 16u < FZ_REL) {
        fz_msg *m = &g.msg[g.nmsg];
        mrc_write w;
        int rc;
        memset(&w, 0, sizeof w);
        w.wr_id = 1000u + g.nmsg;
        w.opcode = MRC_WR_WRITE;
        w.buf = g.src;
        w.len = m->len;
        w.remote_va = m->va;
        w.rkey = 0x1234;
        rc = mrc_conn_post_write(&g.c, &w, g.now);
        if (rc == MRC_ERR_FULL) break;
        FZ_CHECK(rc == MRC_OK, "post_write %d", rc);
        m->wr_id = w.wr_id;
        g.total_psns += m->npk;
        g.nmsg++;
    }
}

static void fz_req_drain(void) {
    mrc_txinfo ti;
    mrc_pkt k;
    int r;
    int32_t limit;
    while ((r = mrc_endpoint_poll_tx(&g.ep, g.buf, sizeof g.buf, MRC_TX_COPY, &ti, g.now)) > 0) {
        int32_t rel;
        FZ_CHECK(mrc_pkt_decode(g.buf, (size_t)r, &g.cfg.wire, &k) == MRC_OK, "emitted packet does not decode");
        rel = fz_psn_diff(k.bth.psn, g.start);
        if (ti.qpn == MRC_EPOP_QPN) continue; /* endpoint operations: not this model's business */
        if (k.bth.opcode == MRC_OP_PROBE_REQ) {
            FZ_CHECK(rel == g.nxt, "probe carries PSN start%+d, next unsent is start%+d", rel, g.nxt);
            continue;
        }
        FZ_CHECK(fz_op_is_data(k.bth.opcode), "requester sent opcode %#x", k.bth.opcode);
        if (!k.bth.rtx) {
            uint32_t mi = (uint32_t)(uint16_t)(k.meth.msn - 1u);
            fz_msg *m;
            FZ_CHECK(rel == g.nxt, "new PSN start%+d, model next start%+d", rel, g.nxt);
            FZ_CHECK(g.nxt - g.wbase < (int32_t)g.win, "new PSN start%+d beyond window base start%+d + %u", rel, g.wbase,
                     g.win);
            FZ_CHECK(mi < g.nmsg, "METH msn %u names no posted message", k.meth.msn);
            m = &g.msg[mi];
            if (!m->started) {
                m->started = 1;
                m->first = (uint32_t)rel;
            }
            FZ_CHECK((uint32_t)rel - m->first == m->sent && m->sent < m->npk, "packet %u of message %u out of order",
                     (uint32_t)rel - m->first, mi);
            FZ_CHECK(k.reth.va == m->va + (uint64_t)m->sent * FZ_MTU && k.reth.dma_len == m->len,
                     "RETH va/dma_len of packet %u of message %u", m->sent, mi);
            FZ_CHECK(memcmp(g.buf + k.hdr_len, g.src + m->sent * FZ_MTU, k.payload_len) == 0, "payload bytes");
            m->sent++;
            g.psn_msg[rel] = mi;
            g.nxt++;
        } else {
            FZ_CHECK(rel >= g.wbase && rel < g.nxt, "retransmission of start%+d outside [start%+d, start%+d)", rel,
                     g.wbase, g.nxt);
            FZ_CHECK(!fz_racked(rel), "retransmission of start%+d, which the peer acknowledged", rel);
        }
    }
    FZ_CHECK(r == 0, "poll_tx %d", r);
    /* the requester sent exactly as far as the window and the posted data allow */
    limit = MRC__MIN(g.wbase + (int32_t)g.win, (int32_t)g.total_psns);
    FZ_CHECK(g.nxt == limit, "sent up to start%+d, window and posts allow start%+d", g.nxt, limit);
}

static void fz_req_events(void) {
    mrc_event ev;
    int r;
    while ((r = mrc_endpoint_poll_event(&g.ep, &ev)) == 1) {
        if (ev.type > MRC_EVT_CONN_ERROR) continue; /* later event kinds (path manager, endpoint operations) */
        FZ_CHECK(ev.type == MRC_EVT_SEND_DONE && ev.status == MRC_OK, "event type %u status %d", ev.type, ev.status);
        FZ_CHECK(g.reported < g.done, "SEND_DONE %llu, but the model completed only %u messages",
                 (unsigned long long)ev.wr_id, g.done);
        FZ_CHECK(ev.wr_id == g.msg[g.reported].wr_id && ev.byte_len == g.msg[g.reported].len, "SEND_DONE order");
        g.reported++;
    }
    FZ_CHECK(r == 0, "poll_event %d", r);
    FZ_CHECK(g.reported == g.done, "%u SEND_DONEs, model completed %u messages", g.reported, g.done);
}

static void fz_req_op_sack(fz_in *in) {
    uint8_t sel = fz_u8(in);
    mrc_seth s;
    mrc_cc_state cs;
    mrc_rxinfo ri;
    mrc_endpoint_stats s0, s1;
    uint32_t cack, bth_psn;
    int32_t crel, i;
    int rc, moved, want;
    size_t n;
    memset(&s, 0, sizeof s);
    memset(&cs, 0, sizeof cs);
    if (sel & 0x80u) crel = fz_psn_diff(fz_u24(in), g.start);
    else crel = g.wbase - 4 + (int32_t)(fz_u8(in) % (uint32_t)(g.nxt - g.wbase + 8));
    cack = fz_psn_add(g.start, crel);
    bth_psn = (sel & 0x40u) ? fz_u24(in) : cack;
    s.cack_psn = cack;
    s.ack_psn_offset = (int16_t)(int8_t)fz_u8(in);
    s.sack_offset = (sel & 0x20u) ? (int16_t)fz_u16(in) : (int16_t)((int32_t)(fz_u8(in) % 80u) - 8);
    s.sack_bitmap = (sel & 0x10u) ? ~(uint64_t)0 >> (fz_u8(in) & 63u) : fz_u64(in);
    s.pr = (sel >> 3) & 1u;
    s.m = (uint8_t)(sel & 3u);
    s.entropy = fz_u32(in);
    cs.tx_timestamp = (uint16_t)(g.now >> 7);
    n = fz_build_sack(g.pkt, &g.cfg.wire, mrc_conn_qpn(&g.c), 0xFFFF, bth_psn, &s, &cs);
    if (bth_psn != cack) want = MRC_DROP_MALFORMED;
    else if (fz_psn_diff(cack, fz_psn_add(g.start, g.nxt - 1)) > 0) want = MRC_DROP_ACK_BOGUS;
    else if (fz_psn_diff(fz_psn_add(g.start, g.nxt), fz_psn_add(cack, s.ack_psn_offset)) < 1)
        want = MRC_DROP_ACK_BOGUS; /* P38: it answers a PSN never sent */
    else want = -1;
    for (i = 0; want < 0 && i < 64; i++) { /* P38: a bitmap whose base or a set bit is at or past the next PSN */
        int32_t hi = fz_psn_diff(fz_psn_add(g.start, g.nxt), fz_psn_add(cack, s.sack_offset));
        if (((s.sack_bitmap >> i) & 1u) && (hi <= 0 || i >= hi)) want = MRC_DROP_ACK_BOGUS;
    }
    memset(&ri, 0, sizeof ri);
    ri.port = 1;
    mrc_endpoint_stats_get(&g.ep, &s0);
    rc = mrc_endpoint_recv(&g.ep, g.pkt, n, &ri, g.now);
    mrc_endpoint_stats_get(&g.ep, &s1);
    moved = fz_stats_step(&s0, &s1);
    FZ_CHECK(want < 0 ? (rc == MRC_OK && moved == -1) : (rc == MRC_ERR_DROP && moved == want),
             "SACK cack start%+d: rc %d drop %s, model %s", crel, rc,
             moved >= 0 ? mrc_drop_name((unsigned)moved) : "none", want >= 0 ? mrc_drop_name((unsigned)want) : "accept");
    if (want >= 0) return;
    g.n_sack_ok++;
    /* cumulative: every PSN <= cack; serial arithmetic relative to the window base */
    if (fz_psn_diff(cack, fz_psn_add(g.start, g.wbase - 1)) > 0) {
        int32_t to = g.wbase + fz_psn_diff(cack, fz_psn_add(g.start, g.wbase)); /* cack as a relative offset */
        for (i = g.wbase; i <= to; i++) g.acked[i] = 1;
        g.wbase = to + 1;
    }
    /* selective: bits inside [wbase, nxt) */
    for (i = 0; i < 64; i++) {
        int32_t rel;
        if (!((s.sack_bitmap >> i) & 1u)) continue;
        rel = g.wbase + fz_psn_diff(fz_psn_add(cack, s.sack_offset + i), fz_psn_add(g.start, g.wbase));
        if (rel >= g.wbase && rel < g.nxt) g.acked[rel] = 1;
    }
    if (g.una < g.wbase) g.una = g.wbase;
    while (g.una < g.nxt && g.acked[g.una]) g.una++;
    while (g.done < g.nmsg && g.msg[g.done].started && g.msg[g.done].sent == g.msg[g.done].npk &&
           (int32_t)(g.msg[g.done].first + g.msg[g.done].npk) <= g.una)
        g.done++;
}

static void fz_run_requester(fz_in *in) {
    unsigned ops, i;
    uint8_t shape;
    fz_setup_common(in, MRC_QPS_RTS);
    shape = fz_u8(in);
    for (i = 0; i < FZ_MSGS; i++) {
        fz_msg *m = &g.msg[i];
        uint32_t npk = 1u + ((shape + i * 7u) % (1u + (shape & 15u)));
        memset(m, 0, sizeof *m);
        m->npk = npk;
        m->len = npk * FZ_MTU - ((i * 37u + shape) % FZ_MTU);
        if (m->len == 0) m->len = 1;
        m->va = 0x700000000ull + (uint64_t)i * 65536u;
    }
    for (i = 0; i < FZ_MTU * 16u; i++) g.src[i] = (uint8_t)(i * 7u + 1u);
    fz_req_post();
    fz_req_drain();
    for (ops = 0; ops < FZ_MAX_OPS && fz_left(in) > 0; ops++) {
        uint8_t op = fz_u8(in);
        switch (op % 8u) {
        case 0: case 1: case 2: case 3: case 4: fz_req_op_sack(in); break;
        case 5: case 6: /* time: RTO and tail-loss probes */
            g.now += (mrc_time)fz_u16(in) << (op >> 4);
            FZ_CHECK(mrc_endpoint_on_timeout(&g.ep, g.now) == MRC_OK, "on_timeout");
            FZ_CHECK(mrc_endpoint_next_deadline(&g.ep) > g.now, "deadline in the past after on_timeout");
            break;
        default: fz_psn_arith(in); break;
        }
        fz_req_events();
        fz_req_post();
        fz_req_drain();
        FZ_CHECK(mrc_conn_state(&g.c) == MRC_QPS_RTS, "left RTS (state %d)", mrc_conn_state(&g.c));
        fz_invariants(&g.ep);
    }
    {
        mrc_conn_stats cs;
        mrc_conn_stats_get(&g.c, &cs);
        FZ_CHECK(cs.rx_sack == g.n_sack_ok, "rx_sack %llu, model %llu", (unsigned long long)cs.rx_sack,
                 (unsigned long long)g.n_sack_ok);
        FZ_CHECK(cs.msgs_done == g.done, "msgs_done %llu, model %u", (unsigned long long)cs.msgs_done, g.done);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in;
    memset(&g, 0, sizeof g);
    fz_init(&in, data, size);
    if (fz_u8(&in) & 1u) fz_run_requester(&in);
    else fz_run_responder(&in);
    return 0;
}
