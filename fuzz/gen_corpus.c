/* gen_corpus.c - seed corpora for the fuzz harnesses, recorded from real traffic.
 *
 *   build/fuzz/gen_corpus OUTDIR          writes OUTDIR/{decode,responder,pair,sack,ev,nscc}/seed-*
 *
 * Two endpoints exchange Writes and Write-IMMs over tests/fixtures/mrc_wire.h (the wire the scenario tests use), once
 * on a clean wire and once with loss, duplication, trimming, CE marks and reordering. Every emitted packet is tapped.
 *   decode     one seed per packet class seen (opcode x rtx x pad), plus the endpoint-operation headers the core
 *              never sends, each as [mode byte][packet]
 *   responder  the configuration block of fuzz_responder.c set to match the wire run (QPN, PSN, MTU, region and
 *              rkey), then the packets B received as raw records aimed at QP 0, each followed by a poll
 *   sack       responder mode: the PSN order in which B saw A's data, as offsets from cack; requester mode: the
 *              SACK bitmaps and offsets B sent
 *   pair       the same plan (message sizes, Write-IMM mix) under network scripts: clean, periodic loss, reorder,
 *              trims, a dark plane; and with the extension byte: NSCC on a small-window CC profile, a fixed window,
 *              no congestion control, GEN EV profiles of UDP, STEV and SRv6 format, EV black holes (some lasting)
 *   nscc       the congestion-control events the requester of the recorded runs saw, in time order: each data packet
 *              sent (nominal size), each SACK (rcvd_bytes delta, RTT of the packet it names, CE echo), the packets
 *              it acknowledged, each NACK as a loss, the time between them
 *   ev         the worked examples of docs/PROTOCOL.md 7.1 (STEV fixed byte + 4-bit field, non-contiguous mask, SRv6 locator +
 *              uSIDs) as single expansions; control-plane sessions building UDP / STEV / SRv6 formats with EXP and
 *              GEN profiles, QPs on them sending writes, EV operations and ports going down
 * Deterministic: same binary, same bytes. Capacities come from fuzz_common.h (the harnesses' build). */
#include "fuzz_common.h"
#define MRC_WIRE_IMPLEMENTATION
#include "../tests/fixtures/mrc_wire.h"

#define GC_MAXPKT 4096
#define GC_REGION 512u

typedef struct gc_cap {
    int from;
    mrc_time t;
    uint8_t b[MRC_HDR_MAX + 4096 + 4];
    size_t len;
    mrc_txinfo ti;
} gc_cap;

static gc_cap g_cap[GC_MAXPKT];
static unsigned g_ncap;
static const char *g_out;
static unsigned g_files;

static void gc_tap(void *ud, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    (void)ud;
    if (g_ncap >= GC_MAXPKT || len > sizeof g_cap[0].b) return;
    g_cap[g_ncap].from = from;
    g_cap[g_ncap].t = now;
    memcpy(g_cap[g_ncap].b, pkt, len);
    g_cap[g_ncap].len = len;
    g_cap[g_ncap].ti = *ti;
    g_ncap++;
}

static void gc_write(const char *target, const char *name, const uint8_t *p, size_t n) {
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s/seed-%s", g_out, target, name);
    f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "gen_corpus: cannot write %s (does %s/%s exist?)\n", path, g_out, target);
        exit(1);
    }
    if (n && fwrite(p, 1, n, f) != n) exit(1);
    fclose(f);
    g_files++;
}

/* ---- the recorded run -------------------------------------------------------------------------------------- */
typedef struct gc_run {
    mrc_endpoint ep[2];
    mrc_conn c[2];
    uint8_t mem[2][GC_REGION];
    uint8_t src[GC_REGION];
    uint32_t rkey[2];
    uint32_t sq_psn[2];
    unsigned done, want;
} gc_run;
static gc_run g_run;

static int gc_done(void *ud) {
    gc_run *r = (gc_run *)ud;
    mrc_event ev;
    int s;
    for (s = 0; s < 2; s++)
        while (mrc_endpoint_poll_event(&r->ep[s], &ev) == 1)
            if (ev.type == MRC_EVT_SEND_DONE) r->done++;
    return r->done >= r->want;
}

/* message sizes of the plan (also the pair seeds' plan) */
static const uint16_t gc_len[6] = {100, 700, 256, 1, 511, 0};

static void gc_record(int lossy, uint64_t seed) {
    mrc_wire_config wc;
    mrc_wire w;
    mrc_config cfg;
    mrc_conn_attr a;
    unsigned s, i;
    gc_run *r = &g_run;
    memset(r, 0, sizeof *r);
    for (i = 0; i < GC_REGION; i++) r->src[i] = (uint8_t)(i * 29u + 3u);
    for (s = 0; s < 2; s++) {
        mrc_config_default(&cfg);
        cfg.seed = 0x5EEDu; /* side B's first rkey then equals fuzz_responder's region 0 rkey (config byte c3 = 0) */
        cfg.num_ports = 2;
        cfg.auto_ev.per_port = 1;
        if (mrc_endpoint_init(&r->ep[s], &cfg, 0) != MRC_OK) exit(2);
        if (mrc_endpoint_reg_mr(&r->ep[s], r->mem[s], 0x10000u, GC_REGION, MRC_ACCESS_REMOTE_WRITE, (void *)0,
                                &r->rkey[s]) != MRC_OK)
            exit(2);
        if (mrc_conn_init(&r->ep[s], &r->c[s], 0) != MRC_OK) exit(2);
        r->sq_psn[s] = s ? 0x000100u : 0xFFFFF0u; /* A's PSNs wrap */
    }
    for (s = 0; s < 2; s++) {
        memset(&a, 0, sizeof a);
        a.state = MRC_QPS_INIT;
        if (mrc_conn_modify(&r->c[s], &a, MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, 0)) exit(3);
    }
    for (s = 0; s < 2; s++) {
        memset(&a, 0, sizeof a);
        a.state = MRC_QPS_RTR;
        a.dest_qpn = mrc_conn_qpn(&r->c[1 - s]);
        a.rq_psn = r->sq_psn[1 - s];
        a.path_mtu = 256;
        a.mpr_dest = 1;
        a.max_wimm_dest = 8;
        if (mrc_conn_modify(&r->c[s], &a,
                            MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU |
                                MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST,
                            0))
            exit(3);
    }
    for (s = 0; s < 2; s++) {
        memset(&a, 0, sizeof a);
        a.state = MRC_QPS_RTS;
        a.sq_psn = r->sq_psn[s];
        a.mpr = 1;
        a.max_wimm = 4;
        a.retry_linear = 7;
        a.retry_exp = 7;
        a.timeout = 8;
        if (mrc_conn_modify(&r->c[s], &a,
                            MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY |
                                MRC_ATTR_TIMEOUT,
                            0))
            exit(3);
    }
    for (i = 0; i < 8; i++) (void)mrc_conn_post_recv(&r->c[1], i, 0);
    for (i = 0; i < 6; i++) {
        mrc_write wr;
        memset(&wr, 0, sizeof wr);
        wr.wr_id = i;
        wr.opcode = (i & 1u) ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        wr.buf = r->src;
        wr.len = gc_len[i];
        wr.remote_va = 0x10000u;
        wr.rkey = r->rkey[1];
        wr.imm = 0xC0DE0000u + i;
        if (mrc_conn_post_write(&r->c[0], &wr, 0) != MRC_OK) exit(4);
    }
    r->want = 6;
    mrc_wire_config_default(&wc);
    wc.seed = seed;
    wc.num_ports = 2;
    wc.pool_pkts = 4096;
    wc.tx_copy = true;
    wc.tap = gc_tap;
    if (lossy) {
        mrc_wire_link l;
        mrc_wire_link_default(&l);
        l.loss_ppm = 200000;
        l.dup_ppm = 50000;
        l.trim_ppm = 100000;
        l.ce_ppm = 100000;
        l.jitter_ns = 3000;
        (void)mrc_wire_config_set_link(&wc, MRC_WIRE_BOTH, 0, &l);
    }
    if (mrc_wire_init(&w, &wc, &r->ep[0], &r->ep[1], 0) != MRC_OK) exit(5);
    mrc_wire_kick(&w);
    (void)mrc_wire_run(&w, 1000000000u, gc_done, r);
    if (getenv("GC_DEBUG")) fprintf(stderr, "run lossy=%d: %u of %u writes done, %u packets tapped\n", lossy, r->done, r->want, g_ncap);
    mrc_wire_free(&w);
}

/* ---- decode seeds ------------------------------------------------------------------------------------------ */
static void gc_decode(void) {
    uint8_t seen[256][2][4], buf[MRC_HDR_MAX + 4096 + 8];
    unsigned i, n = 0;
    char name[64];
    memset(seen, 0, sizeof seen);
    for (i = 0; i < g_ncap; i++) {
        const gc_cap *c = &g_cap[i];
        unsigned op = c->b[0], rtx = (c->b[8] >> 5) & 1u, pad = (c->b[1] >> 4) & 3u;
        if (seen[op][rtx][pad]) continue;
        seen[op][rtx][pad] = 1;
        buf[0] = 0x20; /* default wire options, encoder checks on */
        memcpy(buf + 1, c->b, c->len);
        snprintf(name, sizeof name, "%02x-rtx%u-pad%u", op, rtx, pad);
        gc_write("decode", name, buf, c->len + 1u);
        /* the same packet cut inside its headers */
        if (n++ < 4) {
            snprintf(name, sizeof name, "%02x-cut", op);
            gc_write("decode", name, buf, 1u + MRC_BTH_LEN + 3u);
        }
    }
    /* endpoint operations (decoded by the core, never sent by it) */
    buf[0] = 0x00;
    gc_write("decode", "d8-erth", buf, 1u + fz_build_epop(buf + 1, (const mrc_wire_opts *)0, MRC_OP_EP_REQ,
                                                           MRC_EPOP_QPN, MRC_EPOP_PORT_STATUS_UPDATE, 0x5u));
    buf[0] = 0x04; /* EETH op at bits 5:4 */
    gc_write("decode", "d9-eeth", buf, 1u + fz_build_epop(buf + 1, (const mrc_wire_opts *)0, MRC_OP_EP_RSP,
                                                           MRC_EPOP_QPN, MRC_EPOP_EV_PROBE, 0));
}

/* ---- responder seeds ---------------------------------------------------------------------------------------- */
static size_t gc_responder_config(uint8_t *p) {
    size_t n = 0;
    unsigned q;
    p[n++] = 0x01; /* c0: 2 ports, TSETH on, defaults */
    p[n++] = 0x00; /* c1: sack_every 1 */
    p[n++] = 0x00; /* c2: regions of 512 bytes */
    p[n++] = 0x00; /* c3: endpoint seed 0x5EED, QPN base 0x100, 1 EV per port */
    for (q = 0; q < MRC_MAX_CONNS; q++) {
        p[n++] = 0x00;      /* target state: the default of this slot (QP 0: RTS) */
        p[n++] = 0x04;      /* b0: pkey 0xFFFF, remote write, timeout 8 */
        p[n++] = 0x38;      /* b1: MTU 256, mpr_dest 1, max_wimm_dest 8 */
        p[n++] = 0x06;      /* b2: mpr 1, max_wimm 4 */
        p[n++] = 0xFF;      /* rq_psn = A's sq_psn 0xFFFFF0 */
        p[n++] = 0xFF;
        p[n++] = 0xF0;
        p[n++] = 0x00;      /* sq_psn 0x000100 */
        p[n++] = 0x01;
        p[n++] = 0x00;
    }
    return n;
}

static void gc_responder(const char *name, int with_sacks) {
    static uint8_t buf[65536];
    size_t n = gc_responder_config(buf);
    unsigned i;
    buf[n++] = 13; /* post receives on QP 0 */
    buf[n++] = 0;
    buf[n++] = 7;
    for (i = 0; i < g_ncap && n + 16u + g_cap[i].len < sizeof buf; i++) {
        const gc_cap *c = &g_cap[i];
        size_t len = c->len;
        if (c->from != 0 && !with_sacks) continue;
        if (len > 4000u) continue;
        /* raw record: op 4, sel (long form, aim at QP 0), length / 16, bytes, rxinfo */
        buf[n++] = 4;
        buf[n++] = (uint8_t)(0x03u | ((len & 15u) << 4));
        buf[n++] = (uint8_t)(len >> 4);
        memcpy(buf + n, c->b, len);
        n += len;
        buf[n++] = (uint8_t)((c->ti.port - 1u) & 3u);
        buf[n++] = 10; /* poll: up to 8 packets */
        buf[n++] = 0x07;
    }
    gc_write("responder", name, buf, n);
}

/* ---- sack seeds --------------------------------------------------------------------------------------------- */
static void gc_sack(void) {
    static uint8_t buf[8192];
    size_t n = 0;
    unsigned i;
    int32_t cack = -1;
    uint32_t start = g_run.sq_psn[0];
    /* responder mode: A's data PSNs in arrival order (the tap sees emission order; close enough) */
    buf[n++] = 0x00;         /* responder mode */
    buf[n++] = 0x01;         /* RTS */
    buf[n++] = 0x00;         /* c0 */
    buf[n++] = 0x00;         /* c1 */
    buf[n++] = (uint8_t)(start >> 16);
    buf[n++] = (uint8_t)(start >> 8);
    buf[n++] = (uint8_t)start;
    for (i = 0; i < g_ncap && n + 8u < sizeof buf; i++) {
        const gc_cap *c = &g_cap[i];
        mrc_pkt k;
        int32_t d;
        if (c->from != 0 || mrc_pkt_decode(c->b, c->len, (const mrc_wire_opts *)0, &k) != MRC_OK ||
            !fz_op_is_data(k.bth.opcode))
            continue;
        d = fz_psn_diff(k.bth.psn, fz_psn_add(start, cack));
        buf[n++] = 0x00; /* data */
        buf[n++] = (uint8_t)((uint32_t)(d + 8) & 0x3Fu);
        buf[n++] = (uint8_t)(k.bth.rtx << 5);
        if (d == 1) cack++;
    }
    gc_write("sack", "responder-arrivals", buf, n);
    /* requester mode: B's SACK bitmaps and offsets */
    n = 0;
    buf[n++] = 0x01;
    buf[n++] = 0x80;         /* c0: mpr 2 */
    buf[n++] = 0x00;
    buf[n++] = 0x00;
    buf[n++] = 0x00;
    buf[n++] = 0x10;
    buf[n++] = 0x07;         /* message shape */
    for (i = 0; i < g_ncap && n + 24u < sizeof buf; i++) {
        const gc_cap *c = &g_cap[i];
        mrc_pkt k;
        unsigned j;
        if (c->from != 1 || mrc_pkt_decode(c->b, c->len, (const mrc_wire_opts *)0, &k) != MRC_OK ||
            k.bth.opcode != MRC_OP_SACK)
            continue;
        buf[n++] = 0x00;                            /* SACK */
        buf[n++] = (uint8_t)(k.seth.pr << 3);       /* sel */
        buf[n++] = (uint8_t)(4u + (i % 6u));        /* cack near the window base */
        buf[n++] = (uint8_t)k.seth.ack_psn_offset;
        buf[n++] = (uint8_t)((k.seth.sack_offset + 8) % 80);
        for (j = 0; j < 8; j++) buf[n++] = (uint8_t)(k.seth.sack_bitmap >> (56u - 8u * j));
        for (j = 0; j < 4; j++) buf[n++] = (uint8_t)(k.seth.entropy >> (24u - 8u * j));
        buf[n++] = 0x05;                            /* time */
        buf[n++] = 0x01;
        buf[n++] = 0x00;
    }
    gc_write("sack", "requester-sacks", buf, n);
}

/* ---- pair seeds -------------------------------------------------------------------------------------------- */
static void gc_pair_ext(const char *name, uint8_t c0, int ext, const uint8_t *script, size_t slen, unsigned reps) {
    uint8_t buf[4096];
    size_t n = 0;
    unsigned s, i, q, nq = 1u + ((c0 >> 2) & 1u);
    buf[n++] = c0;
    buf[n++] = ext >= 0 ? 0x81 : 0x00;   /* c3: 2 EVs per port; bit 7: the extension byte follows */
    if (ext >= 0) {
        buf[n++] = (uint8_t)ext;
        if ((ext & 3) == 1) {            /* the small-window NSCC profile: max_cwnd 3 KB, base RTT 6 us */
            buf[n++] = 0x02;
            buf[n++] = 20;
        }
    }
    buf[n++] = 0x38;                     /* c1: mpr_dest 1, max_wimm 4 */
    buf[n++] = 0x15;                     /* c2: retries 1 + 1, timeout 8 */
    buf[n++] = 0xFF; buf[n++] = 0xFF; buf[n++] = 0xF0; /* A's sq_psn wraps */
    buf[n++] = 0x00; buf[n++] = 0x01; buf[n++] = 0x00;
    for (s = 0; s < 2 * nq; s++) {
        q = s % nq;
        buf[n++] = 6;
        for (i = 0; i < 6; i++) {
            buf[n++] = (uint8_t)(((i + q) & 1u) | (i == 2 ? 2u : 0u)); /* Write-IMM every other, one unsignaled */
            buf[n++] = (uint8_t)(gc_len[i] >> 8);
            buf[n++] = (uint8_t)gc_len[i];
            buf[n++] = 0x00;
            buf[n++] = (uint8_t)(i * 97u);
        }
    }
    for (i = 0; i < reps && n + slen < sizeof buf; i++) {
        memcpy(buf + n, script, slen);
        n += slen;
    }
    gc_write("pair", name, buf, n);
}
static void gc_pair(const char *name, uint8_t c0, const uint8_t *script, size_t slen, unsigned reps) {
    gc_pair_ext(name, c0, -1, script, slen, reps);
}

/* ---- nscc seeds --------------------------------------------------------------------------------------------- */
static void gc_nscc(const char *name, uint8_t c0) {
    static uint8_t buf[16384];
    static mrc_time sent_at[1u << 12];
    size_t n = 0;
    unsigned i, inflight = 0;
    uint32_t last_rcvd = 0;
    mrc_time t = 0;
    buf[n++] = c0;   /* 2 ports; trimming, TSETH, default line rate and base RTT */
    buf[n++] = 0x00; /* c1: NSCC */
    buf[n++] = 0x00; /* CC profile: NSCC, every default */
    buf[n++] = 0x00;
    buf[n++] = 0x00; /* one QP, MTU 256, peer 0, profile 0 (the endpoint's NSCC) */
    buf[n++] = 0x00;
    for (i = 0; i < g_ncap && n + 32u < sizeof buf; i++) {
        const gc_cap *c = &g_cap[i];
        mrc_pkt k;
        if (mrc_pkt_decode(c->b, c->len, (const mrc_wire_opts *)0, &k) != MRC_OK) continue;
        while (c->t > t + 250u) { /* time: steps of up to 255 x 250 ns */
            mrc_time d = (c->t - t) / 250u;
            buf[n++] = 11;
            buf[n++] = (uint8_t)(d > 255u ? 255u : d);
            t += 250u * (d > 255u ? 255u : d);
        }
        if (c->from == 0 && fz_op_is_data(k.bth.opcode)) { /* a data packet: full or partial */
            buf[n++] = 0x00;
            buf[n++] = k.payload_len >= 256u ? 0x80 : (uint8_t)((k.payload_len / 4u) & 0x7Fu);
            sent_at[k.bth.psn & 0xFFFu] = c->t;
            inflight++;
        } else if (c->from == 1 && k.bth.opcode == MRC_OP_SACK) {
            uint32_t units = (k.cc.rcvd_bytes - last_rcvd) & 0xFFFFFFu, psn = k.seth.cack_psn;
            mrc_time rtt = c->t - sent_at[(psn + (uint32_t)(int32_t)k.seth.ack_psn_offset) & 0xFFFu];
            last_rcvd = k.cc.rcvd_bytes;
            buf[n++] = 7;
            buf[n++] = (uint8_t)(0x03u | 0x08u | (k.seth.m == MRC_M_SKIP_ONCE ? 0x10u : 0u) |
                                 (k.cc.rcv_cwnd_pen ? 0x20u : 0u) | (k.cc.r_c ? 0x40u : 0u));
            buf[n++] = 0x00; /* r: RTT in 4 ns units */
            buf[n++] = (uint8_t)(units >> 16);
            buf[n++] = (uint8_t)(units >> 8);
            buf[n++] = (uint8_t)units;
            rtt = rtt / 4u > 0xFFFFu ? 0xFFFFu : rtt / 4u;
            buf[n++] = (uint8_t)(rtt >> 8);
            buf[n++] = (uint8_t)rtt;
            if (k.cc.rcv_cwnd_pen) buf[n++] = k.cc.rcv_cwnd_pen;
            for (; inflight && units >= 1u; units = units > 2u ? units - 2u : 0u, inflight--) { /* the packets acked */
                buf[n++] = 4;
                buf[n++] = 0x00;
            }
        } else if (c->from == 1 && k.bth.opcode == MRC_OP_NACK && inflight) { /* a loss: trim or resource */
            buf[n++] = 9;
            buf[n++] = k.neth.nack_reason == MRC_NACK_TRIMMED ? 4u : k.neth.nack_reason == MRC_NACK_TRIMMED_LASTHOP ? 5u : 3u;
            buf[n++] = 0x00;
            inflight--;
        }
    }
    gc_write("nscc", name, buf, n);
}

/* ---- ev seeds ----------------------------------------------------------------------------------------------- */
static size_t gc_put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return 4;
}
/* [0xC3][mode][nfields][8 widths]: a format given raw */
static size_t gc_ev_fmt(uint8_t *p, uint8_t mode, unsigned nf, const uint8_t *w) {
    size_t n = 0;
    unsigned i;
    p[n++] = 0xC3;
    p[n++] = mode;
    p[n++] = (uint8_t)nf;
    for (i = 0; i < 8; i++) p[n++] = i < nf ? w[i] : 0u;
    return n;
}
/* [0xE0][width][init][min][max][mask]: a field given raw */
static size_t gc_ev_field(uint8_t *p, uint8_t w, uint32_t init, uint32_t mn, uint32_t mx, uint32_t mask) {
    size_t n = 0;
    p[n++] = 0xE0;
    p[n++] = w;
    n += gc_put32(p + n, init);
    n += gc_put32(p + n, mn);
    n += gc_put32(p + n, mx);
    n += gc_put32(p + n, mask);
    return n;
}
typedef struct gc_evx {
    const char *name;
    uint8_t mode, nf, w[8];
    struct { uint8_t w; uint32_t init, mn, mx, mask; } f[8];
    uint8_t abs_len, abs[8];
} gc_evx;
static const gc_evx gc_evxs[] = {
    {"stev-fixed-byte-4bit-field", MRC_EV_FMT_STEV, 2, {16, 16}, {{16, 0x0100, 1, 15, 0x000F}, {16, 0x0200, 1, 15, 0x000F}},
     1, {0x3A}},
    {"udp-noncontiguous-mask", MRC_EV_FMT_UDP, 1, {16}, {{16, 0x1000, 0, 0, 0x0F0F}}, 1, {0xA5}},
    {"srv6-locator-4-usids", MRC_EV_FMT_SRV6, 5, {32, 16, 16, 16, 16},
     {{32, 0xCAFECAFEu, 0, 0, 0}, {16, 0, 0, 0, 0xFFFF}, {16, 0, 0, 0, 0xFFFF}, {16, 0, 0, 0, 0xFFFF}, {16, 0, 0, 0, 0xFFFF}},
     8, {0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44}},
    {"stev-leftover-bit", MRC_EV_FMT_STEV, 1, {32}, {{32, 0, 0, 0, 0x0000FFFF}}, 3, {0x12, 0x34, 0x01}},
    {"srv6-srh-256", MRC_EV_FMT_SRV6, 8, {32, 32, 32, 32, 32, 32, 32, 32},
     {{32, 0x20010DB8u, 0, 0, 0}, {32, 0, 1, 255, 0xFF}, {32, 0, 0, 0, 0xFFFFFFFFu}, {32, 7, 0, 0, 0},
      {32, 0, 0, 0, 0xF0000000u}, {32, 0, 0, 0, 0}, {32, 0, 0, 0, 0}, {32, 0, 0, 0, 0}},
     6, {0x42, 0xDE, 0xAD, 0xBE, 0xEF, 0x90}},
};
static void gc_ev(void) {
    uint8_t buf[1024];
    size_t n, j;
    unsigned i, k;
    char name[96];
    /* single expansions: [mode 0][fmt][sel 0xE0][nf][fields][abs_len][abs] */
    for (i = 0; i < sizeof gc_evxs / sizeof gc_evxs[0]; i++) {
        const gc_evx *x = &gc_evxs[i];
        n = 0;
        buf[n++] = 0x00;
        n += gc_ev_fmt(buf + n, x->mode, x->nf, x->w);
        buf[n++] = 0xE0;
        buf[n++] = x->nf;
        for (k = 0; k < x->nf; k++) n += gc_ev_field(buf + n, x->f[k].w, x->f[k].init, x->f[k].mn, x->f[k].mx, x->f[k].mask);
        buf[n++] = x->abs_len;
        for (j = 0; j < x->abs_len; j++) buf[n++] = x->abs[j];
        snprintf(name, sizeof name, "expand-%s", x->name);
        gc_write("ev", name, buf, n);
    }
    /* sessions: build (op 12) a format + profile, EXP (REPLACE each EV) or GEN; QPs on it; writes; polls; a port
     * down; REPLACE and MODIFY_STATE of a live EV; the encoder */
    for (i = 0; i < 3; i++) {
        const gc_evx *x = &gc_evxs[i];
        unsigned gen;
        for (gen = 0; gen < 2; gen++) {
            unsigned count = 4;
            n = 0;
            buf[n++] = 0x01;             /* session */
            buf[n++] = 0x01;             /* c0: 2 ports, 1 AUTO EV per port, STEV high half in the source port */
            buf[n++] = 0x00;             /* c1: NSCC, control packets on the QP's own EVs */
            buf[n++] = 12;               /* build */
            buf[n++] = 0x00;             /* format 1 */
            buf[n++] = 0x00;             /* profile 1 */
            buf[n++] = (uint8_t)(0xC0u | (gen ? 4u : 0u));
            n += gc_ev_fmt(buf + n, x->mode, x->nf, x->w);
            buf[n++] = (uint8_t)(count - 1u);
            buf[n++] = 1;                /* min_active */
            buf[n++] = 3;                /* event mask GOOD | ASSUMED_BAD */
            for (k = 0; k < x->nf; k++)
                n += gc_ev_field(buf + n, x->f[k].w, x->f[k].init, x->f[k].mn, x->f[k].mx, x->f[k].mask);
            if (!gen) { /* EXP: each EV's abstract value, field by field (u32 each), and its port */
                for (j = 0; j < count; j++) {
                    buf[n++] = 0x00;
                    for (k = 0; k < x->nf; k++) n += gc_put32(buf + n, (uint32_t)(j * 0x35u + k + 1u));
                    buf[n++] = (uint8_t)(j & 1u);
                }
            }
            for (k = 0; k < 3; k++) { /* QP k on profile 1 (b % 5 = 1), QP 2 on AUTO */
                buf[n++] = 7;
                buf[n++] = (uint8_t)k;
                buf[n++] = k == 2 ? 0x00 : 0x01;
            }
            for (k = 0; k < 3; k++) { /* a write each, then polls */
                buf[n++] = 7;
                buf[n++] = (uint8_t)k;
                buf[n++] = 0x02;
                buf[n++] = 0x00;
            }
            buf[n++] = 0xA5;             /* poll 11 */
            buf[n++] = 10 + 13 * 1;      /* port 2 down (op 23: 23 % 13 = 10, (23 >> 4) % 2 + 1 = 2) */
            buf[n++] = 0xA5;
            buf[n++] = 11;               /* time, then the timers */
            buf[n++] = 0xFF;
            buf[n++] = 0xFF;
            buf[n++] = 0xA5;
            buf[n++] = 5;                /* ev_op on profile 1: REPLACE the first EV with a new value, ALL_COPIES */
            buf[n++] = 0x01;
            buf[n++] = 0x00;             /* sel: REPLACE, one entry */
            buf[n++] = 0x00;             /* entry: existing EV 0, new port 1, GOOD */
            buf[n++] = 0x00;             /* ev_new value: field by field */
            for (k = 0; k < x->nf; k++) n += gc_put32(buf + n, 0x5Au + k);
            buf[n++] = 6;                /* ev_op: MODIFY_STATE of EV 1 to DENIED */
            buf[n++] = 0x01;
            buf[n++] = 0x01;
            buf[n++] = 0x11;
            buf[n++] = 0x00;
            for (k = 0; k < x->nf; k++) n += gc_put32(buf + n, 0);
            buf[n++] = 0xA5;
            buf[n++] = 24;               /* the encoder (24 % 13 = 11, bit 4): SRv6, 32-byte path */
            buf[n++] = 0x09;
            for (k = 0; k < 32; k++) buf[n++] = (uint8_t)(k * 7u);
            n += gc_put32(buf + n, 0xABCD1234u);
            snprintf(name, sizeof name, "session-%s-%s", gen ? "gen" : "exp", x->name);
            gc_write("ev", name, buf, n);
        }
    }
}

int main(int argc, char **argv) {
    static const uint8_t clean[] = {0x00, 0x10};
    static const uint8_t loss[] = {0x00, 0x10, 0x00, 0x10, 0x03, 0x10, 0x00, 0x13};
    static const uint8_t reorder[] = {0x05, 0x35, 0x00, 0x00, 0x06, 0x10, 0x00, 0x10};
    static const uint8_t trims[] = {0x08, 0x10, 0x00, 0x00, 0x09, 0x10, 0x04, 0x00};
    static const uint8_t dark[] = {0x0A, 0x00, 0x00, 0x10, 0x00, 0x10, 0x00, 0x0C, 0x00, 0x40};
    static const uint8_t corrupt[] = {0x07, 0x12, 0x34, 0x00, 0x10, 0x0F};
    static const uint8_t blackhole[] = {0x00, 0x10, 0x8F, 0x00, 0x10, 0x00, 0x10, 0x9F, 0x00, 0x10, 0x0F};
    static const uint8_t flap[] = {0x0B, 0x00, 0x10, 0x00, 0x10, 0x0B, 0x1B, 0x00, 0x10, 0x0C, 0x20, 0x1B, 0x0B};
    uint64_t seed;
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_out = argv[1];
    gc_record(0, 1);
    gc_nscc("wire-clean", 0x01);
    gc_decode();
    gc_responder("clean", 0);
    /* the first lossy run (in seed order) whose wire really lost, trimmed and duplicated: retransmissions tapped */
    for (seed = 7; seed < 200; seed++) {
        g_ncap = 0;
        gc_record(1, seed);
        if (g_ncap >= 24) break;
    }
    gc_decode();
    gc_responder("lossy", 0);
    gc_responder("lossy-both-directions", 1);
    gc_sack();
    gc_pair("clean", 0x01, clean, sizeof clean, 60);
    gc_pair("loss", 0x05, loss, sizeof loss, 40);
    gc_pair("reorder", 0x01, reorder, sizeof reorder, 40);
    gc_pair("trims", 0x21, trims, sizeof trims, 40);
    gc_pair("dark-plane", 0x03, dark, sizeof dark, 30);
    gc_pair("corrupt", 0x01, corrupt, sizeof corrupt, 20);
    gc_pair("held-receives", 0x02, loss, sizeof loss, 30);
    gc_pair_ext("nscc-small-window", 0x01, 0x01, loss, sizeof loss, 40);
    gc_pair_ext("fixed-window", 0x05, 0x02, reorder, sizeof reorder, 40);
    gc_pair_ext("no-cc", 0x01, 0x03, trims, sizeof trims, 40);
    gc_pair_ext("gen-udp", 0x01, 0x04, clean, sizeof clean, 60);
    gc_pair_ext("gen-stev-loss", 0x03, 0x08, loss, sizeof loss, 40);
    gc_pair_ext("gen-srv6-trims", 0x01, 0x0D, trims, sizeof trims, 40);
    gc_pair_ext("ev-blackhole", 0x01, 0x00, blackhole, sizeof blackhole, 30);
    gc_pair_ext("ev-blackhole-lasting-stev", 0x03, 0x18, blackhole, sizeof blackhole, 30);
    gc_pair_ext("port-flap-nscc", 0x03, 0x01, flap, sizeof flap, 20);
    gc_nscc("wire-lossy", 0x01);
    gc_ev();
    printf("gen_corpus: %u seeds in %s (from %u tapped packets of the lossy run)\n", g_files, g_out, g_ncap);
    return 0;
}
