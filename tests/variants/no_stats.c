/* tests/variants/no_stats.c - the core as a firmware builds it for size (docs/EVALUATION.md#issue36-nov30c):
 * MRC_NO_STATS (the statistics counters compiled out) and MRC_NO_CHECK (mrc_conn_check compiled out). The suite
 * (mrc_test) reads counters and asserts mrc_conn_check after every call, so it cannot run this build; this program
 * checks what the two macros promise, over seeds 1-5 of a lossy, reordering, corrupting in-process wire:
 *   - Writes (one with an immediate) complete and place every byte, nothing past the region;
 *   - every counter of both endpoints and QPs reads 0 (nothing counted) but the drops and the losses to full queues
 *     (the pool's gauges are filled when read);
 *   - a dropped packet is still counted: corrupted ones (the ICRC flag) and a short one handed in by hand land in
 *     drop[] of the endpoint, rx_drops their sum, as without the macros;
 *   - mrc_conn_check answers MRC_ERR_NOTSUP (MRC_ERR_INVAL for no QP).
 * make test runs it (make test-variants); a failure prints the seed and the figures. */
#define MRC_NO_STATS
#define MRC_NO_CHECK
#define MRC_IMPLEMENTATION
#include "../../mrc.h"
#define MRC_WIRE_IMPLEMENTATION
#include "../fixtures/mrc_wire.h"
#include <stdio.h>
#include <string.h>

#define REGION (1024u * 1024u)
#define GUARD 64u
static mrc_endpoint ep[2];
static mrc_conn qp[2];
static uint8_t src[REGION], dst[REGION + GUARD];
static int failed;

#define CHECK(cond, seed, what, a, b)                                                                                 \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            printf("FAIL no_stats seed %u: %s (%llu, %llu)\n", (seed), (what), (unsigned long long)(a),              \
                   (unsigned long long)(b));                                                                           \
            failed = 1;                                                                                                \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)

typedef struct { unsigned sent_done, recv_imm, errors; } tally;

/* the offset of the first byte where a and b differ (n: none) */
static size_t first_diff(const void *a, const void *b, size_t n) {
    const uint8_t *p = (const uint8_t *)a, *q = (const uint8_t *)b;
    size_t i;
    for (i = 0; i < n && p[i] == q[i]; i++) {
    }
    return i;
}

static int done(void *ud) {
    tally *t = (tally *)ud;
    mrc_event ev;
    int s;
    for (s = 0; s < 2; s++)
        while (mrc_endpoint_poll_event(&ep[s], &ev) > 0) {
            if (ev.status != MRC_OK) t->errors++;
            if (ev.type == MRC_EVT_SEND_DONE) t->sent_done++;
            if (ev.type == MRC_EVT_RECV_IMM) t->recv_imm++;
        }
    return t->sent_done == 3 && t->recv_imm == 1;
}

static void run(unsigned seed) {
    mrc_config cfg;
    mrc_conn_attr a;
    mrc_wire_config wc;
    mrc_wire w;
    mrc_write wr;
    mrc_endpoint_stats es, ez, zero_es;
    mrc_conn_stats cs, cz, zero_cs;
    mrc_rxinfo ri;
    tally t = {0, 0, 0};
    uint32_t rkey, i;
    uint64_t drops_before, icrc = 0;
    const uint8_t shortpkt[3] = {0x0A, 0, 0};
    int s, r;
    for (i = 0; i < REGION; i++) src[i] = (uint8_t)(i * 13u + seed);
    memset(dst, 0, sizeof dst);
    for (s = 0; s < 2; s++) {
        mrc_config_default(&cfg);
        cfg.seed = seed * 2u + (unsigned)s;
        CHECK(mrc_endpoint_init(&ep[s], &cfg, 0) == MRC_OK && mrc_conn_init(&ep[s], &qp[s], 0) == MRC_OK, seed,
              "init", s, 0);
    }
    CHECK(mrc_endpoint_reg_mr(&ep[1], dst, 0x40000000u, REGION, MRC_ACCESS_REMOTE_WRITE, NULL, &rkey) == MRC_OK, seed,
          "reg_mr", 0, 0);
    for (s = 0; s < 2; s++) {
        mrc_conn_attr_default(&a);
        a.dest_qpn = mrc_conn_qpn(&qp[1 - s]);
        a.sq_psn = 100u * (unsigned)(s + 1);
        a.rq_psn = 100u * (unsigned)(2 - s);
        a.peer = 1;
        CHECK(mrc_conn_connect(&qp[s], &a, 0) == MRC_OK, seed, "connect", s, 0);
    }
    mrc_wire_config_default(&wc);
    wc.seed = seed;
    for (s = 0; s < 2; s++)
        for (i = 0; i < MRC_MAX_PORTS; i++) {
            wc.link[s][i].loss_ppm = 20000;    /* 2% lost */
            wc.link[s][i].corrupt_ppm = 20000; /* 2% corrupted: the ICRC flag, a counted drop */
            wc.link[s][i].jitter_ns = 3000;    /* reordered */
        }
    CHECK(mrc_wire_init(&w, &wc, &ep[0], &ep[1], 0) == MRC_OK, seed, "wire init", 0, 0);
    CHECK(mrc_conn_post_recv(&qp[1], 9, 0) == MRC_OK, seed, "post_recv", 0, 0);
    for (i = 0; i < 3; i++) { /* three Writes of a third each, the last with an immediate */
        memset(&wr, 0, sizeof wr);
        wr.wr_id = i + 1u;
        wr.opcode = i == 2 ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        wr.buf = src + i * (REGION / 3u);
        wr.len = i == 2 ? REGION - 2u * (REGION / 3u) : REGION / 3u;
        wr.remote_va = 0x40000000u + i * (REGION / 3u);
        wr.rkey = rkey;
        wr.imm = 0xF00Du;
        CHECK(mrc_conn_post_write(&qp[0], &wr, 0) == MRC_OK, seed, "post_write", i, 0);
    }
    mrc_wire_kick(&w);
    r = mrc_wire_run(&w, 2000000000u, done, &t); /* at most 2 s of virtual time */
    mrc_wire_free(&w);
    CHECK(r >= 0 && t.sent_done == 3 && t.recv_imm == 1 && !t.errors, seed, "completions (sent, received)",
          t.sent_done, t.recv_imm);
    for (i = 0; i < REGION; i++) CHECK(dst[i] == src[i], seed, "byte differs (offset, value)", i, dst[i]);
    for (i = 0; i < GUARD; i++) CHECK(dst[REGION + i] == 0, seed, "byte past the region (offset, value)", i, dst[i]);
    for (s = 0; s < 2; s++) { /* nothing counted but drops */
        mrc_endpoint_stats_get(&ep[s], &es);
        mrc_conn_stats_get(&qp[s], &cs);
        CHECK(!es.rx_pkts && !es.tx_pkts && !es.rx_bytes && !es.tx_bytes, seed, "endpoint traffic counted (rx, tx)",
              es.rx_pkts, es.tx_pkts);
        CHECK(!cs.tx_data && !cs.rx_data && !cs.rx_bytes_placed && !cs.tx_rtx && !cs.rx_sack && !cs.tx_sack, seed,
              "QP traffic counted (tx_data, rx_data)", cs.tx_data, cs.rx_data);
        /* and every other field, but the drops, the losses and the pool's gauges (filled when read) */
        ez = es;
        memset(ez.drop, 0, sizeof ez.drop);
        ez.rx_drops = ez.ctlq_overflow = ez.epq_overflow = ez.notify_dropped = 0;
        ez.pool_blocks = ez.pool_in_use = ez.pool_retained = 0;
        memset(&zero_es, 0, sizeof zero_es);
        CHECK(!memcmp(&ez, &zero_es, sizeof ez), seed, "an endpoint counter counted (endpoint, first byte differing)",
              s, first_diff(&ez, &zero_es, sizeof ez));
        cz = cs;
        cz.rx_drops = 0;
        memset(&zero_cs, 0, sizeof zero_cs);
        CHECK(!memcmp(&cz, &zero_cs, sizeof cz), seed, "a QP counter counted (QP, first byte differing)", s,
              first_diff(&cz, &zero_cs, sizeof cz));
        for (drops_before = 0, i = 0; i < MRC_DROP_REASONS; i++) drops_before += es.drop[i];
        CHECK(es.rx_drops == drops_before, seed, "rx_drops is not the sum of drop[] (rx_drops, sum)", es.rx_drops,
              drops_before);
        icrc += es.drop[MRC_DROP_ICRC];
    }
    CHECK(icrc > 0, seed, "no corrupted packet counted as a drop", icrc, 0);
    memset(&ri, 0, sizeof ri);
    ri.port = 1;
    drops_before = es.drop[MRC_DROP_SHORT];
    CHECK(mrc_endpoint_recv(&ep[1], shortpkt, sizeof shortpkt, &ri, 2000000001u) == MRC_ERR_DROP, seed,
          "short packet not dropped", 0, 0);
    mrc_endpoint_stats_get(&ep[1], &es);
    CHECK(es.drop[MRC_DROP_SHORT] == drops_before + 1u, seed, "short packet not counted (before, after)",
          drops_before, es.drop[MRC_DROP_SHORT]);
    CHECK(mrc_conn_check(&qp[0]) == MRC_ERR_NOTSUP && mrc_conn_check(NULL) == MRC_ERR_INVAL, seed,
          "mrc_conn_check (QP, NULL)", (uint64_t)(int64_t)mrc_conn_check(&qp[0]),
          (uint64_t)(int64_t)mrc_conn_check(NULL));
}

int main(void) {
    unsigned seed;
    for (seed = 1; seed <= 5; seed++) run(seed);
    if (failed) return 1;
    printf("no_stats: MRC_NO_STATS + MRC_NO_CHECK, seeds 1-5: bytes equal, every counter 0 but drops and losses, "
           "drops counted, mrc_conn_check MRC_ERR_NOTSUP: ok\n");
    return 0;
}
