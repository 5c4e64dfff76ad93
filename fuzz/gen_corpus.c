/* gen_corpus.c - seed corpora for the fuzz harnesses, recorded from real traffic.
 *
 *   build/fuzz/gen_corpus OUTDIR          writes OUTDIR/{decode,responder,pair,sack}/seed-*
 *
 * Two endpoints exchange Writes and Write-IMMs over sim/mrc_wire.h (the wire the scenario tests use), once on a
 * clean wire and once with loss, duplication, trimming, CE marks and reordering. Every emitted packet is tapped.
 *   decode     one seed per packet class seen (opcode x rtx x pad), plus the endpoint-operation headers the core
 *              never sends, each as [mode byte][packet]
 *   responder  the configuration block of fuzz_responder.c set to match the wire run (QPN, PSN, MTU, region and
 *              rkey), then the packets B received as raw records aimed at QP 0, each followed by a poll
 *   sack       responder mode: the PSN order in which B saw A's data, as offsets from cack; requester mode: the
 *              SACK bitmaps and offsets B sent
 *   pair       the same plan (message sizes, Write-IMM mix) under network scripts: clean, periodic loss, reorder,
 *              trims, a dark plane
 * Deterministic: same binary, same bytes. Capacities come from fuzz_common.h (the harnesses' build). */
#include "fuzz_common.h"
#define MRC_WIRE_IMPLEMENTATION
#include "../sim/mrc_wire.h"

#define GC_MAXPKT 4096
#define GC_REGION 512u

typedef struct gc_cap {
    int from;
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
    (void)now;
    if (g_ncap >= GC_MAXPKT || len > sizeof g_cap[0].b) return;
    g_cap[g_ncap].from = from;
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
        cfg.evs_per_port = 1;
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
static void gc_pair(const char *name, uint8_t c0, const uint8_t *script, size_t slen, unsigned reps) {
    uint8_t buf[4096];
    size_t n = 0;
    unsigned s, i, q, nq = 1u + ((c0 >> 2) & 1u);
    buf[n++] = c0;
    buf[n++] = 0x00;                     /* c3 */
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

int main(int argc, char **argv) {
    static const uint8_t clean[] = {0x00, 0x10};
    static const uint8_t loss[] = {0x00, 0x10, 0x00, 0x10, 0x03, 0x10, 0x00, 0x13};
    static const uint8_t reorder[] = {0x05, 0x35, 0x00, 0x00, 0x06, 0x10, 0x00, 0x10};
    static const uint8_t trims[] = {0x08, 0x10, 0x00, 0x00, 0x09, 0x10, 0x04, 0x00};
    static const uint8_t dark[] = {0x0A, 0x00, 0x00, 0x10, 0x00, 0x10, 0x00, 0x0C, 0x00, 0x40};
    static const uint8_t corrupt[] = {0x07, 0x12, 0x34, 0x00, 0x10, 0x0F};
    uint64_t seed;
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_out = argv[1];
    gc_record(0, 1);
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
    printf("gen_corpus: %u seeds in %s (from %u tapped packets of the lossy run)\n", g_files, g_out, g_ncap);
    return 0;
}
