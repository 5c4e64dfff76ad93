/* tests/scenario.c - scenarios: two endpoints over the in-memory wire (tests/fixtures/mrc_wire.h) in virtual time, on the
 * pair harness of tests/harness.c (sc_pair): bulk transfers bit-exact under every impairment, Write-IMM order and
 * limits, RTO and back-off timing, retry exhaustion, PSN wrap, tail loss, trimming, the MPR and CC windows, the SACK
 * policy (Q6, P7), determinism, connections sharing an endpoint and its in-flight pool, a plane down, a peer in ERR.
 */
#include "test.h"

/* ---- 1. bulk: bit-exact, both directions, every impairment at once ------------------------------------------ */
static void sc_impaired_link(mrc_wire_link *l) {
    mrc_wire_link_default(l);
    l->delay_ns = 3000;
    l->jitter_ns = 2000;
    l->loss_ppm = 10000;
    l->dup_ppm = 5000;
    l->corrupt_ppm = 5000;
    l->trim_ppm = 10000;
    l->ce_ppm = 10000;
}

/* Both sides send nmsg random messages (1 B .. region, log-uniform sizes, half Write-IMM) over impaired links;
 * with_max adds one message of the whole region (8 MiB) to each side. */
static int sc_bulk_setup(sc_pair *p, uint64_t seed, unsigned nmsg, size_t region, int with_max) {
    trng r;
    mrc_wire_link l;
    int s;
    sc_defaults(p, seed);
    p->region = region;
    p->unsig_pct = 10;
    sc_impaired_link(&l);
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    if (sc_start(p) != 0) return -1;
    r.s = seed ^ 0xB0B0B0B0ull;
    for (s = 0; s < 2; s++) {
        if (sc_plan_random(p, s, 0, nmsg / 2u, (uint32_t)region, 50, &r) != 0) return -1;
        if (with_max && sc_add(p, s, 0, 0, (uint32_t)region, s ? MRC_WR_WRITE_IMM : MRC_WR_WRITE, 0xFEEDu) != 0)
            return -1;
        if (sc_plan_random(p, s, 0, nmsg - nmsg / 2u, (uint32_t)region, 50, &r) != 0) return -1;
    }
    return 0;
}

static int sc_bulk_body(sc_pair *p) {
    unsigned i;
    int s;
    for (i = 0; i < 4; i++) {
        uint64_t seed = g_seed + i;
        mrc_wire_stats w[2];
        SC_CHECK(p, sc_bulk_setup(p, seed, 100, 8u << 20, i == 0) == 0);
        SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        w[0] = sc_wstats(p, MRC_WIRE_A);
        w[1] = sc_wstats(p, MRC_WIRE_B);
        for (s = 0; s < 2; s++) {
            mrc_conn_stats cs = sc_cstats(p, s, 0), peer = sc_cstats(p, 1 - s, 0);
            mrc_endpoint_stats es = sc_estats(p, 1 - s);
            /* every impairment really happened in both directions */
            SC_CHECK(p, w[s].drop_loss > 0 && w[s].dup > 0 && w[s].corrupt > 0 && w[s].trim > 0 && w[s].ce > 0);
            /* each corrupted packet is dropped by its receiver as ICRC, never placed (some may still be in flight:
             * probes of ASSUMED_BAD EVs keep the wire busy after the last completion) */
            SC_CHECK(p, es.drop[MRC_DROP_ICRC] <= w[s].corrupt &&
                            w[s].corrupt <= es.drop[MRC_DROP_ICRC] + mrc_wire_inflight(&p->w));
            /* trims draw NACKs, duplicates are recognised, losses repaired */
            SC_CHECK(p, peer.rx_trimmed > 0 && peer.tx_nack == peer.rx_trimmed);
            SC_CHECK(p, peer.rx_dup > 0 && cs.tx_rtx > 0 && cs.rx_nack > 0);
            SC_CHECK(p, cs.msgs_done == p->q[s][0].nmsg);
        }
        note("seed %llu: %u+%u msgs, %.3f ms virtual, A tx_data %llu rtx %llu, B tx_data %llu rtx %llu",
             (unsigned long long)seed, p->q[0][0].nmsg, p->q[1][0].nmsg, (double)sc_now(p) / 1e6,
             (unsigned long long)sc_cstats(p, 0, 0).tx_data, (unsigned long long)sc_cstats(p, 0, 0).tx_rtx,
             (unsigned long long)sc_cstats(p, 1, 0).tx_data, (unsigned long long)sc_cstats(p, 1, 0).tx_rtx);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_bulk_bidir, sc_bulk_body)

/* P16 caller-chosen rkeys: the same impaired bidirectional transfer with each side's region registered under an
 * rkey its application chose (one shaped like a core key of slot 0, one found through the hash table); every byte
 * placed where it belongs (sc_check_clean), no access error */
static int sc_keyed_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    int s;
    mrc_endpoint_stats es;
    sc_defaults(p, g_seed);
    p->region = 2u << 20;
    p->keyed_rkey[0] = 0x00000101u;
    p->keyed_rkey[1] = 0xDEADBEEFu;
    sc_impaired_link(&l);
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, p->rkey[0] == 0x00000101u && p->rkey[1] == 0xDEADBEEFu);
    r.s = g_seed ^ 0xB0B0B0B0ull;
    for (s = 0; s < 2; s++) SC_CHECK(p, sc_plan_random(p, s, 0, 40, (uint32_t)p->region, 50, &r) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    for (s = 0; s < 2; s++) SC_CHECK(p, sc_cstats(p, s, 0).msgs_done == p->q[s][0].nmsg);
    es = sc_estats(p, 1);
    SC_CHECK(p, es.drop[MRC_DROP_ACCESS] == 0);
    note("seed %llu: %u+%u msgs under rkeys 0x%X and 0x%X, %.3f ms virtual", (unsigned long long)g_seed,
         p->q[0][0].nmsg, p->q[1][0].nmsg, (unsigned)p->rkey[0], (unsigned)p->rkey[1], (double)sc_now(p) / 1e6);
    sc_free(p);
    return 0;
}
SC_TEST(t_sc_keyed_rkeys, sc_keyed_body)

/* ---- 2. Write-IMM completions in posting order under heavy reordering --------------------------------------- */
typedef struct sc_reorder {
    uint32_t base, max_off, arrivals, late;
} sc_reorder;
static void sc_reorder_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_reorder *o = (sc_reorder *)p->ud;
    mrc_pkt k;
    (void)ri;
    (void)now;
    if (to != 1 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    {
        uint32_t off = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
        o->arrivals++;
        if (o->arrivals > 1 && off < o->max_off) o->late++;
        if (off > o->max_off) o->max_off = off;
    }
}
typedef struct sc_se {
    uint32_t checked, bad;
} sc_se;
static sc_se g_sc_se;
static void sc_se_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    const sc_q *x = &p->q[0][0];
    mrc_pkt k;
    uint32_t i;
    (void)ti;
    (void)now;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    if (k.bth.opcode != MRC_OP_WRITE_LAST_IMM && k.bth.opcode != MRC_OP_WRITE_ONLY_IMM) {
        if (k.bth.se) g_sc_se.bad++; /* se only on the packet that carries the immediate */
        return;
    }
    for (i = 0; i < x->nmsg; i++) /* the message with this immediate (values are random 32-bit) */
        if (x->msg[i].op == MRC_WR_WRITE_IMM && x->msg[i].imm == k.imm) break;
    if (i == x->nmsg) {
        g_sc_se.bad++;
        return;
    }
    g_sc_se.checked++;
    if (k.bth.se != ((x->msg[i].flags & MRC_WR_SOLICITED) ? 1u : 0u)) g_sc_se.bad++;
}
static int sc_wimm_order_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    sc_reorder o;
    sc_defaults(p, g_seed + 200);
    p->attr[0].path_mtu = p->attr[1].path_mtu = 1024;
    mrc_wire_link_default(&l);
    l.delay_ns = 1000;
    l.jitter_ns = 20000; /* 20 us of jitter against ~100 ns of serialization per packet */
    l.loss_ppm = 2000;
    sc_set_links(p, MRC_WIRE_A, &l);
    l.jitter_ns = 5000;
    sc_set_links(p, MRC_WIRE_B, &l);
    p->pump_in_taps = 1; /* RECV_IMMs are pulled between any two packets: memory is checked at that moment */
    memset(&o, 0, sizeof o);
    o.base = p->attr[0].sq_psn;
    p->ud = &o;
    p->rx = sc_reorder_rx;
    p->tap = sc_se_tap;
    memset(&g_sc_se, 0, sizeof g_sc_se);
    SC_CHECK(p, sc_start(p) == 0);
    r.s = g_seed ^ 0x2222;
    SC_CHECK(p, sc_plan_seq(p, 0, 0, 400, 0, 3000, 80, &r) == 0);
    SC_CHECK(p, p->q[0][0].nimm > 250);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, p->q[1][0].imm_ok == p->q[0][0].nimm);
    SC_CHECK(p, sc_cstats(p, 1, 0).imm_delivered == p->q[0][0].nimm);
    SC_CHECKF(p, o.late * 4u >= o.arrivals, "only %u of %u arrivals out of order", o.late, o.arrivals);
    SC_CHECKF(p, g_sc_se.bad == 0 && g_sc_se.checked >= p->q[0][0].nimm, "BTH se wrong on %u packets (%u checked)",
              g_sc_se.bad, g_sc_se.checked);
    note("%u Write-IMMs in order; %u of %u data arrivals out of PSN order", p->q[0][0].nimm, o.late, o.arrivals);
    return 0;
}
SC_TEST(t_sc_wimm_order, sc_wimm_order_body)

/* ---- 3. WIMM limits ------------------------------------------------------------------------------------------ */
typedef struct sc_wimm_watch {
    uint32_t started, imm_done, scanned, max_out, over;
} sc_wimm_watch;
static void sc_wimm_watch_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                              mrc_time now) {
    sc_wimm_watch *o = (sc_wimm_watch *)p->ud;
    const sc_q *x = &p->q[0][0];
    mrc_pkt k;
    uint32_t out;
    (void)ti;
    (void)now;
    /* completions already pulled (the harness pumps before calling the tap) */
    for (; o->scanned < x->done; o->scanned++)
        if (x->msg[o->scanned].op == MRC_WR_WRITE_IMM) o->imm_done++;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_WRITE_ONLY_IMM || k.bth.rtx) return;
    o->started++; /* single-packet messages: the first transmission starts the message */
    out = o->started - o->imm_done;
    if (out > o->max_out) o->max_out = out;
    if (out > p->attr[0].max_wimm) o->over++;
}
static int sc_wimm_limit_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    sc_wimm_watch o;
    unsigned pass;
    for (pass = 0; pass < 2; pass++) {
        sc_defaults(p, g_seed + 300 + pass);
        p->attr[0].path_mtu = p->attr[1].path_mtu = 1024;
        /* pass 0: max_wimm 4 well below max_wimm_dest; pass 1: max_wimm == max_wimm_dest == 4, loss and jitter */
        p->attr[0].max_wimm = 4;
        p->attr[1].max_wimm_dest = pass ? 4 : 64;
        mrc_wire_link_default(&l);
        l.delay_ns = 5000;
        if (pass) {
            l.jitter_ns = 4000;
            l.loss_ppm = 20000;
        }
        sc_set_links(p, MRC_WIRE_BOTH, &l);
        p->pump_in_taps = 1;
        memset(&o, 0, sizeof o);
        p->ud = &o;
        p->tap = sc_wimm_watch_tap;
        SC_CHECK(p, sc_start(p) == 0);
        r.s = g_seed ^ 0x3333 ^ pass;
        SC_CHECK(p, sc_plan_seq(p, 0, 0, 300, 1, 1024, 75, &r) == 0);
        SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        SC_CHECKF(p, o.over == 0 && o.max_out == 4, "max outstanding Write-IMMs %u (limit 4), %u over", o.max_out,
                  o.over);
        SC_CHECK(p, o.started == p->q[0][0].nimm);
        SC_CHECK(p, sc_estats(p, 1).drop[MRC_DROP_WIMM] == 0);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_wimm_limit, sc_wimm_limit_body)

/* Responder max_wimm_dest 2, requester max_wimm 8, no receives posted: the third Write-IMM draws NAK 0x61 naming
 * its MSN; B enters ERR (LOCAL_INVAL), A follows (REMOTE_INVAL) with that WR failed and the later ones flushed. */
typedef struct sc_nak_watch {
    uint32_t naks, syndrome, msn, other_b;
} sc_nak_watch;
static void sc_nak_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_nak_watch *o = (sc_nak_watch *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from != 1 || !sc_decode(p, pkt, len, &k)) return;
    if (k.bth.opcode == MRC_OP_ACK) {
        o->naks++;
        o->syndrome = k.aeth.syndrome;
        o->msn = k.aeth.msn;
    } else if (k.bth.opcode != MRC_OP_SACK) {
        o->other_b++;
    }
}
static int sc_wimm_err_stop(sc_pair *p) {
    return p->q[0][0].n_conn_err && p->q[1][0].n_conn_err && p->q[0][0].done == p->q[0][0].nmsg;
}
static int sc_drop_nak(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    (void)p;
    (void)pkt;
    (void)len;
    (void)now;
    return from == 1 && ti->opcode == MRC_OP_ACK;
}
static int sc_wimm_overflow_body(sc_pair *p) {
    sc_nak_watch o;
    unsigned i;
    mrc_endpoint_stats eb;
    sc_defaults(p, g_seed + 310);
    sc_set_ports(p, 1); /* one in-order path: the Write-IMMs arrive in posting order */
    p->attr[0].max_wimm = 8;
    p->attr[1].max_wimm_dest = 2;
    p->no_recv[1] = 1;
    p->strict = 0;
    p->stop = sc_wimm_err_stop;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_nak_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i * 64u, 64, MRC_WR_WRITE_IMM, 0x1000u + i) == 0);
    SC_CHECK(p, sc_run_until(p, 10 * SC_MS) == 1);
    SC_CHECK(p, p->q[1][0].conn_err_status == MRC_ERR_LOCAL_INVAL && p->q[1][0].n_conn_err == 1);
    SC_CHECK(p, p->q[0][0].conn_err_status == MRC_ERR_REMOTE_INVAL && p->q[0][0].n_conn_err == 1);
    SC_CHECK(p, mrc_conn_state(p->q[0][0].c) == MRC_QPS_ERR && mrc_conn_state(p->q[1][0].c) == MRC_QPS_ERR);
    SC_CHECKF(p, o.naks == 1 && o.syndrome == MRC_AETH_NAK_INV_REQ && o.msn == 3,
              "naks %u syndrome %#x msn %u", o.naks, o.syndrome, o.msn);
    SC_CHECK(p, o.other_b == 0);
    SC_CHECK(p, p->q[0][0].msg[0].status == MRC_OK && p->q[0][0].msg[1].status == MRC_OK);
    SC_CHECK(p, p->q[0][0].msg[2].status == MRC_ERR_REMOTE_INVAL);
    for (i = 3; i < 8; i++) SC_CHECK(p, p->q[0][0].msg[i].status == MRC_ERR_FLUSH);
    eb = sc_estats(p, 1);
    SC_CHECK(p, eb.drop[MRC_DROP_WIMM] == 1 && sc_cstats(p, 1, 0).tx_nak == 1);
    SC_CHECK(p, eb.drop[MRC_DROP_STATE] == 5); /* the Write-IMMs after the offending one find B in ERR */
    SC_CHECK(p, sc_cstats(p, 1, 0).imm_delivered == 0 && p->q[1][0].recv_pulled == 0);
    SC_CHECK(p, mrc_conn_post_recv(p->q[1][0].c, 99, sc_now(p)) == MRC_ERR_STATE);
    sc_free(p);

    /* P8: the NAK is sent once; lost, it leaves the requester to exhaust its retries (B in ERR drops them) */
    sc_defaults(p, g_seed + 311);
    sc_set_ports(p, 1);
    p->attr[0].max_wimm = 8;
    p->attr[0].timeout = 5;
    p->attr[0].retry_linear = 1;
    p->attr[0].retry_exp = 1;
    p->attr[1].max_wimm_dest = 2;
    p->no_recv[1] = 1;
    p->strict = 0;
    p->stop = sc_wimm_err_stop;
    p->filter = sc_drop_nak;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i * 64u, 64, MRC_WR_WRITE_IMM, 0x1000u + i) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECK(p, p->q[1][0].conn_err_status == MRC_ERR_LOCAL_INVAL && sc_wstats(p, MRC_WIRE_B).drop_filter == 1);
    SC_CHECK(p, p->q[0][0].conn_err_status == MRC_ERR_RETRY_EXC && sc_cstats(p, 0, 0).rto_fired == 3);
    SC_CHECK(p, p->q[0][0].msg[2].status == MRC_ERR_RETRY_EXC && p->q[0][0].msg[7].status == MRC_ERR_FLUSH);
    return 0;
}
SC_TEST(t_sc_wimm_overflow, sc_wimm_overflow_body)
/* ---- 4. RTO and back-off timing ------------------------------------------------------------------------------- */
/* wait before RTO expiry n (1-based), docs P5 */
static mrc_time sc_rto_wait(unsigned timeout, unsigned linear, unsigned n) {
    const mrc_time cap = (mrc_time)1024u << 24;
    mrc_time t = (mrc_time)1024u << timeout;
    unsigned e;
    if (n - 1u > linear)
        for (e = n - 1u - linear; e && t < cap; e--) t <<= 1;
    return t < cap ? t : cap;
}
static int sc_rto_stop10(sc_pair *p) { return sc_cstats(p, 0, 0).rto_fired >= 10; }

/* Check the RTO schedule and the probes from log entry 'from' on: expiry n retransmits the oldest PSN exactly
 * sum(wait(1..n)) after the first transmission; every PROBE_REQ follows A's previous transmission by
 * g << min(probes before it, 10) (P4), g the first probe's gap. Returns the number of expiries seen, -1 on a
 * mismatch (printed). */
static int sc_check_schedule(const sc_txlog *o, uint32_t from, unsigned timeout, unsigned linear,
                             mrc_time *first_gap, unsigned *nprobes) {
    uint32_t i, first_psn = o->psn[from];
    mrc_time t0 = o->t[from], expect = t0, g = 0, prev = t0;
    unsigned n = 0, np = 0;
    for (i = from; i < o->n; i++) {
        if (o->kind[i] == 1) {
            n++;
            expect += sc_rto_wait(timeout, linear, n);
            if (o->t[i] != expect || o->psn[i] != first_psn) {
                printf("    expiry %u: retransmitted psn %#x at %llu ns, expected psn %#x at %llu ns (t0 %llu)\n", n,
                       o->psn[i], (unsigned long long)o->t[i], first_psn, (unsigned long long)expect,
                       (unsigned long long)t0);
                return -1;
            }
        } else if (o->kind[i] == 2) {
            mrc_time gap = o->t[i] - prev;
            if (i > from && o->kind[i - 1u] == 2 && gap < 1000u) { /* P33: the probe's copy, right after it; the */
                prev = o->t[i];                                      /* next wait counts from it */
                continue;
            }
            if (np == 0) g = gap;
            if (gap != g << (np < 10 ? np : 10)) {
                printf("    probe %u at %llu ns: gap %llu ns after the previous transmission, expected %llu\n", np,
                       (unsigned long long)o->t[i], (unsigned long long)gap,
                       (unsigned long long)(g << (np < 10 ? np : 10)));
                return -1;
            }
            np++;
        }
        prev = o->t[i];
    }
    *first_gap = g;
    *nprobes = np;
    return (int)n;
}

static int sc_rto_timing_body(sc_pair *p) {
    static sc_txlog o;
    uint32_t from;
    int n;
    mrc_time g;
    unsigned np;
    mrc_conn_stats cs;
    sc_defaults(p, g_seed + 400);
    p->attr[0].timeout = 6; /* T = 65.536 us */
    p->attr[0].retry_linear = 3;
    p->attr[0].retry_exp = 25;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_txlog_tap;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 65536, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, 10 * SC_MS) == 1); /* a clean first message: RTT samples, timers idle */
    SC_CHECK(p, sc_cstats(p, 0, 0).rto_fired == 0);
    /* black hole A->B, then post the next message */
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, false) == MRC_OK);
    from = o.n;
    SC_CHECK(p, sc_add(p, 0, 0, 65536, 65536, MRC_WR_WRITE, 0) == 0);
    p->stop = sc_rto_stop10;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    SC_CHECK(p, o.kind[from] == 0);
    n = sc_check_schedule(&o, from, 6, 3, &g, &np);
    SC_CHECKF(p, n == 10, "%d expiries matched the schedule", n);
    cs = sc_cstats(p, 0, 0);
    /* every retransmission came from the RTO; the probes (lost too) retransmitted nothing */
    SC_CHECK(p, cs.rto_fired == 10 && cs.rtx_rto == 10 && cs.tx_rtx == 10 && cs.rtx_probe_loss == 0);
    SC_CHECK(p, cs.tx_probes == 2u * np && cs.tlp_fired == np && np >= 4); /* each with its copy (P33) */
    SC_CHECK(p, g >= p->cfg[0].recovery.tlp_min_ns);
    SC_CHECK(p, mrc_conn_state(p->q[0][0].c) == MRC_QPS_RTS);
    note("RTO waits T=65.536us x(1,1,1,1,2,4,8,16,32,64) matched to the ns; %u probes, first after %llu ns", np,
         (unsigned long long)g);
    return 0;
}
SC_TEST(t_sc_rto_backoff, sc_rto_timing_body)

/* ---- 5. retry exhaustion, and retry_exp = 25 = infinite --------------------------------------------------------- */
static int sc_stop_rto30(sc_pair *p) { return sc_cstats(p, 0, 0).rto_fired >= 30; }
static int sc_retry_exhaust_body(sc_pair *p) {
    static sc_txlog o;
    unsigned i, nrtx = 0, np;
    int n;
    mrc_time t0, T = (mrc_time)1024u << 5, g, last_a = 0;
    mrc_conn_stats cs;
    sc_defaults(p, g_seed + 500);
    p->attr[0].timeout = 5;
    p->attr[0].retry_linear = 3;
    p->attr[0].retry_exp = 2;
    p->strict = 0;
    p->stop = sc_exhaust_stop;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_txlog_tap;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, false) == MRC_OK); /* dead from the start */
    for (i = 0; i < 5; i++) SC_CHECK(p, sc_add(p, 0, 0, i * 8192u, 8192, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    t0 = o.t[0];
    for (i = 0; i < o.n; i++) {
        if (o.kind[i] == 1) nrtx++;
        last_a = o.t[i];
    }
    cs = sc_cstats(p, 0, 0);
    /* L + E + 1 = 6 expiries: 5 retransmissions, the 6th is the error; waits T,T,T,T,2T,4T */
    SC_CHECKF(p, cs.rto_fired == 6 && nrtx == 5 && cs.tx_rtx == 5, "rto_fired %llu rtx %u",
              (unsigned long long)cs.rto_fired, nrtx);
    SC_CHECK(p, sc_check_schedule(&o, 0, 5, 3, &g, &np) == 5);
    SC_CHECK(p, p->q[0][0].conn_err_status == MRC_ERR_RETRY_EXC && p->q[0][0].n_conn_err == 1);
    SC_CHECKF(p, p->q[0][0].t_conn_err == t0 + 10u * T, "error at %llu, expected %llu",
              (unsigned long long)p->q[0][0].t_conn_err, (unsigned long long)(t0 + 10u * T));
    SC_CHECK(p, p->q[0][0].msg[0].status == MRC_ERR_RETRY_EXC);
    for (i = 1; i < 5; i++) SC_CHECK(p, p->q[0][0].msg[i].status == MRC_ERR_FLUSH);
    SC_CHECK(p, p->q[0][0].n_recv_flush == p->q[0][0].recv_posted && p->q[0][0].recv_posted == MRC_MAX_RQ);
    SC_CHECK(p, last_a < p->q[0][0].t_conn_err); /* nothing sent at or after the error */
    /* a little longer: still silent */
    p->stop = NULL;
    p->hold = 1;
    (void)sc_run_until(p, sc_now(p) + 100 * SC_MS);
    SC_CHECK(p, !p->fail);
    SC_CHECK(p, o.t[o.n - 1] == last_a);
    SC_CHECK(p, mrc_conn_state(p->q[1][0].c) == MRC_QPS_RTS && sc_estats(p, 1).rx_pkts == 0);
    {
        mrc_write w;
        memset(&w, 0, sizeof w);
        SC_CHECK(p, mrc_conn_post_write(p->q[0][0].c, &w, sc_now(p)) == MRC_ERR_STATE);
    }
    sc_free(p);

    /* retry_exp = 25: never exhausted; waits double up to the 2^24 * 1.024 us cap and stay there */
    sc_defaults(p, g_seed + 501);
    p->attr[0].timeout = 1;
    p->attr[0].retry_linear = 0;
    p->attr[0].retry_exp = 25;
    p->stop = sc_stop_rto30;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_txlog_tap;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, false) == MRC_OK);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 4096, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, 400 * SC_SEC) == 1);
    n = sc_check_schedule(&o, 0, 1, 0, &g, &np);
    SC_CHECKF(p, n == 30, "%d expiries matched", n);
    SC_CHECK(p, mrc_conn_state(p->q[0][0].c) == MRC_QPS_RTS && p->q[0][0].n_conn_err == 0);
    SC_CHECK(p, sc_now(p) > 100 * SC_SEC);
    note("retry_exp 25: 30 expiries in %.1f s virtual, no error; %u probes", (double)sc_now(p) / 1e9, np);
    /* the link comes back after 137 s: the next probe finds the hole, the write completes long before the next
     * 17 s expiry */
    {
        mrc_time t_up = sc_now(p);
        SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, true) == MRC_OK);
        p->stop = NULL;
        SC_CHECK(p, sc_run_until(p, t_up + SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        SC_CHECK(p, p->q[0][0].msg[0].t_done - t_up < 50 * SC_MS);
        SC_CHECK(p, sc_cstats(p, 0, 0).rto_fired == 30 && sc_cstats(p, 0, 0).rtx_probe_loss >= 1);
        note("link back: write completed %.2f ms later", (double)(p->q[0][0].msg[0].t_done - t_up) / 1e6);
    }
    return 0;
}
SC_TEST(t_sc_retry_exhaust, sc_retry_exhaust_body)
/* ---- 6. PSN wrap across 2^24 ---------------------------------------------------------------------------------- */
typedef struct sc_wrap {
    uint32_t high[2], low[2];
} sc_wrap;
static void sc_wrap_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_wrap *o = (sc_wrap *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (!sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    if (k.bth.psn >= 0xFFFF00u) o->high[from]++;
    if (k.bth.psn < 0x10000u) o->low[from]++;
}
static int sc_psn_wrap_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    sc_wrap o;
    int s;
    sc_defaults(p, g_seed + 600);
    p->region = 4u << 20;
    p->attr[0].path_mtu = p->attr[1].path_mtu = 1024;
    p->attr[0].sq_psn = 0xFFFF00u;
    p->attr[1].sq_psn = 0xFFFFF0u;
    mrc_wire_link_default(&l);
    l.delay_ns = 2000;
    l.jitter_ns = 3000;
    l.loss_ppm = 10000;
    l.dup_ppm = 5000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_wrap_tap;
    SC_CHECK(p, sc_start(p) == 0);
    r.s = g_seed ^ 0x6666;
    for (s = 0; s < 2; s++) {
        SC_CHECK(p, sc_add(p, s, 0, 0, 1u << 20, MRC_WR_WRITE_IMM, 7) == 0);
        SC_CHECK(p, sc_plan_random(p, s, 0, 12, 1u << 20, 50, &r) == 0);
        SC_CHECK(p, sc_add(p, s, 0, 3u << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    }
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    for (s = 0; s < 2; s++) {
        SC_CHECKF(p, o.high[s] > 0 && o.low[s] > 1000, "side %d: %u packets below the wrap, %u after", s, o.high[s],
                  o.low[s]);
        SC_CHECK(p, sc_cstats(p, s, 0).tx_rtx > 0);
    }
    note("A sent %u data packets at PSN >= 0xFFFF00 and %u after the wrap; B %u / %u", o.high[0], o.low[0], o.high[1],
         o.low[1]);
    return 0;
}
SC_TEST(t_sc_psn_wrap, sc_psn_wrap_body)

/* ---- 7. tail loss: the last packets of a message dropped once -> probe, not RTO -------------------------------- */
typedef struct sc_tail {
    uint32_t lo, hi, dropped, armed, probes, probe_bad_psn;
    mrc_time t_drop;
} sc_tail;
static void sc_tail_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_tail *o = (sc_tail *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from != 0 || !o->armed || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_PROBE_REQ) return;
    o->probes++;
    if (k.bth.psn != mrc_psn_add(o->hi, 1)) o->probe_bad_psn++; /* Q21: the next unsent PSN, not consumed */
}
static int sc_tail_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_tail *o = (sc_tail *)p->ud;
    mrc_pkt k;
    (void)ti;
    if (!o->armed || from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode) || k.bth.rtx) return 0;
    if (mrc_psn_diff(k.bth.psn, o->lo) < 0 || mrc_psn_diff(k.bth.psn, o->hi) > 0) return 0;
    o->dropped++;
    o->t_drop = now;
    return 1;
}
static int sc_tail_loss_body(sc_pair *p) {
    sc_tail o;
    unsigned ndrop;
    for (ndrop = 1; ndrop <= 3; ndrop += 2) {
        mrc_conn_stats cs;
        mrc_time rec;
        uint32_t first;
        sc_defaults(p, g_seed + 700 + ndrop);
        p->attr[0].timeout = 14; /* RTO 16.8 ms: far away */
        p->cfg[0].ev.sweep = MRC_EV_SCOPE_NONE; /* every PROBE_REQ counted here is a tail-loss probe (P35's are PROBE_REQs too) */
        memset(&o, 0, sizeof o);
        p->ud = &o;
        p->filter = sc_tail_filter;
        p->tap = sc_tail_tap;
        SC_CHECK(p, sc_start(p) == 0);
        SC_CHECK(p, sc_add(p, 0, 0, 0, 65536, MRC_WR_WRITE, 0) == 0); /* warm-up: 16 packets, RTT samples */
        SC_CHECK(p, sc_run_until(p, 10 * SC_MS) == 1);
        first = mrc_psn_add(p->attr[0].sq_psn, 16);
        o.hi = mrc_psn_add(first, 63); /* the next message is 64 packets; drop its last ndrop once */
        o.lo = mrc_psn_add(o.hi, -(int32_t)(ndrop - 1u));
        o.armed = 1;
        SC_CHECK(p, sc_add(p, 0, 0, 65536, 262144, MRC_WR_WRITE_IMM, 0x7A11u) == 0);
        SC_CHECK(p, sc_run_until(p, sc_now(p) + 10 * SC_MS) == 1);
        if (sc_check_clean(p)) return 1;
        cs = sc_cstats(p, 0, 0);
        rec = p->q[0][0].msg[1].t_done - o.t_drop;
        SC_CHECK(p, o.dropped == ndrop);
        SC_CHECKF(p, cs.rto_fired == 0 && cs.tlp_fired >= 1 && cs.tx_probes >= 1, "rto %llu tlp %llu",
                  (unsigned long long)cs.rto_fired, (unsigned long long)cs.tlp_fired);
        SC_CHECK(p, cs.rtx_probe_loss == ndrop && cs.tx_rtx == ndrop);
        SC_CHECK(p, o.probes == cs.tx_probes && o.probe_bad_psn == 0);
        SC_CHECKF(p, rec < 100 * SC_US, "recovery took %llu ns", (unsigned long long)rec);
        note("tail loss of %u packet(s): recovered by %llu probe(s) in %.2f us (RTO would be 16777 us)", ndrop,
             (unsigned long long)cs.tx_probes, (double)rec / 1e3);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_tail_loss, sc_tail_loss_body)

/* ---- 8. trimming: every trim draws a NACK TRIMMED and a retransmission on another EV -------------------------- */
#define SC_TRIM_PKTS 4096
typedef struct sc_trim {
    uint32_t base;
    uint8_t port[SC_TRIM_PKTS];
    uint32_t rtx, rtx_same_port, rtx_bad_class, nacks, nack_other;
} sc_trim;
static void sc_trim_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_trim *o = (sc_trim *)p->ud;
    mrc_pkt k;
    uint32_t i;
    (void)now;
    if (!sc_decode(p, pkt, len, &k)) return;
    if (from == 1) {
        if (k.bth.opcode == MRC_OP_NACK) {
            o->nacks++;
            if (k.neth.nack_reason != MRC_NACK_TRIMMED) o->nack_other++;
        }
        return;
    }
    if (!sc_is_data(k.bth.opcode)) return;
    i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
    if (i >= SC_TRIM_PKTS) return;
    if (k.bth.rtx) {
        o->rtx++;
        if (o->port[i] == ti->port) o->rtx_same_port++;
        if (ti->dscp_class != MRC_DSCP_TRIMMABLE_RETX) o->rtx_bad_class++;
    }
    o->port[i] = ti->port;
}
static int sc_trim_body(sc_pair *p) {
    static sc_trim o;
    mrc_wire_link l;
    mrc_wire_stats w;
    mrc_conn_stats a, b;
    unsigned i;
    sc_defaults(p, g_seed + 800);
    p->region = 4u << 20;
    /* one EV per port: "another EV" is then visible as another port */
    p->cfg[0].auto_ev.per_port = 1;
    mrc_wire_link_default(&l);
    sc_set_links(p, MRC_WIRE_B, &l);
    l.trim_ppm = 30000;
    sc_set_links(p, MRC_WIRE_A, &l);
    memset(&o, 0, sizeof o);
    o.base = p->attr[0].sq_psn;
    p->ud = &o;
    p->tap = sc_trim_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, i & 1u, i) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    w = sc_wstats(p, MRC_WIRE_A);
    a = sc_cstats(p, 0, 0);
    b = sc_cstats(p, 1, 0);
    SC_CHECK(p, w.trim > 8);
    SC_CHECKF(p, b.rx_trimmed == w.trim && b.tx_nack == w.trim && o.nacks == w.trim && o.nack_other == 0,
              "trims %llu rx_trimmed %llu tx_nack %llu nacks seen %u", (unsigned long long)w.trim,
              (unsigned long long)b.rx_trimmed, (unsigned long long)b.tx_nack, o.nacks);
    SC_CHECK(p, sc_estats(p, 1).drop[MRC_DROP_TRIMMED] == w.trim);
    SC_CHECK(p, a.rx_nack == w.trim && a.rx_nack_reason[MRC_NACK_TRIMMED] == w.trim && a.ev_trims == w.trim);
    SC_CHECKF(p, a.rtx_nack == w.trim && a.tx_rtx == w.trim && o.rtx == w.trim,
              "trims %llu, rtx_nack %llu tx_rtx %llu (hole %llu rto %llu probe %llu)", (unsigned long long)w.trim,
              (unsigned long long)a.rtx_nack, (unsigned long long)a.tx_rtx, (unsigned long long)a.rtx_sack_hole,
              (unsigned long long)a.rtx_rto, (unsigned long long)a.rtx_probe_loss);
    SC_CHECK(p, o.rtx_same_port == 0 && o.rtx_bad_class == 0);
    SC_CHECK(p, b.rx_dup == 0);
    note("%llu trims of %llu data packets: %u NACKs TRIMMED, %u retransmissions, all on another port",
         (unsigned long long)w.trim, (unsigned long long)a.tx_data, o.nacks, o.rtx);
    return 0;
}
SC_TEST(t_sc_trim, sc_trim_body)

/* ---- 9. MPR window and the fixed CC window --------------------------------------------------------------------- */
typedef struct sc_mpr {
    uint32_t cack_max;
    int32_t max_ahead;
    uint32_t over, checked, sacks, mpr_bad;
} sc_mpr;
static void sc_mpr_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_mpr *o = (sc_mpr *)p->ud;
    mrc_pkt k;
    (void)ri;
    (void)now;
    if (to != 0 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK) return;
    if (mrc_psn_diff(k.seth.cack_psn, o->cack_max) > 0) o->cack_max = k.seth.cack_psn;
    o->sacks++;
    if (k.seth.mpr != p->attr[1].mpr_dest) o->mpr_bad++; /* Q9: advertised with MRC_CAP_DYNAMIC_MPR */
}
static void sc_mpr_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_mpr *o = (sc_mpr *)p->ud;
    mrc_pkt k;
    int32_t d;
    (void)ti;
    (void)now;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    d = mrc_psn_diff(k.bth.psn, o->cack_max);
    o->checked++;
    if (d > o->max_ahead) o->max_ahead = d;
    if (d > (int32_t)p->attr[0].mpr * 128) o->over++;
}
static int sc_mpr_body(sc_pair *p) {
    mrc_wire_link l;
    sc_mpr o;
    unsigned i;
    sc_defaults(p, g_seed + 900);
    p->region = 4u << 20;
    p->attr[0].path_mtu = p->attr[1].path_mtu = 1024;
    p->attr[0].mpr = 1;       /* the requester may run 128 PSNs past the latest cack */
    p->attr[1].mpr_dest = 4;  /* the responder accepts more, so the requester's window is what binds */
    p->attr[0].caps = p->attr[1].caps = MRC_CAP_DYNAMIC_MPR; /* advertised, and ignored by the requester (Q9) */
    mrc_wire_link_default(&l);
    l.delay_ns = 4000;
    sc_set_links(p, MRC_WIRE_B, &l);
    l.jitter_ns = 1000;
    l.loss_ppm = 20000;
    sc_set_links(p, MRC_WIRE_A, &l);
    memset(&o, 0, sizeof o);
    o.cack_max = mrc_psn_add(p->attr[0].sq_psn, -1);
    p->ud = &o;
    p->tap = sc_mpr_tap;
    p->rx = sc_mpr_rx;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECKF(p, o.over == 0 && o.max_ahead == 128, "%u packets beyond cack + 128, furthest cack + %d", o.over,
              o.max_ahead);
    SC_CHECK(p, sc_wstats(p, MRC_WIRE_A).drop_loss > 0 && sc_cstats(p, 1, 0).rx_oor == 0);
    SC_CHECK(p, o.sacks > 1000 && o.mpr_bad == 0);
    note("mpr 1: %u data packets checked, furthest at cack + %d", o.checked, o.max_ahead);
    return 0;
}
SC_TEST(t_sc_mpr_window, sc_mpr_body)

/* fixed_cwnd_bytes: nominal bytes in flight (first transmissions not yet covered by a SACK) never exceed cwnd,
 * except that one packet may always go when nothing is in flight. Clean link, so the outside view is exact. */
#define SC_CWND_PKTS 4096
typedef struct sc_cwnd {
    uint32_t base, n_acked;
    uint16_t nominal[SC_CWND_PKTS];
    uint8_t sent[SC_CWND_PKTS], acked[SC_CWND_PKTS];
    uint64_t inflight, max_inflight;
    uint32_t over, solo, sends, max_pkts, pkts;
} sc_cwnd;
static void sc_cwnd_ack(sc_cwnd *o, uint32_t psn) {
    uint32_t i = (uint32_t)mrc_psn_diff(psn, o->base);
    if (i >= SC_CWND_PKTS || !o->sent[i] || o->acked[i]) return;
    o->acked[i] = 1;
    o->inflight -= o->nominal[i];
    o->pkts--;
}
static void sc_cwnd_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_cwnd *o = (sc_cwnd *)p->ud;
    mrc_pkt k;
    uint32_t psn, i;
    (void)ri;
    (void)now;
    if (to != 0 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK) return;
    for (psn = o->base; mrc_psn_diff(psn, k.seth.cack_psn) <= 0 && (uint32_t)mrc_psn_diff(psn, o->base) < SC_CWND_PKTS;
         psn = mrc_psn_add(psn, 1))
        sc_cwnd_ack(o, psn);
    for (i = 0; i < 64; i++)
        if ((k.seth.sack_bitmap >> i) & 1u)
            sc_cwnd_ack(o, mrc_psn_add(k.seth.cack_psn, k.seth.sack_offset + (int32_t)i));
}
static void sc_cwnd_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_cwnd *o = (sc_cwnd *)p->ud;
    mrc_pkt k;
    uint32_t i, nominal = (uint32_t)len + 4u + MRC_NOMINAL_HDR;
    (void)ti;
    (void)now;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
    if (i >= SC_CWND_PKTS || k.bth.rtx || o->sent[i]) return;
    o->sends++;
    if (o->inflight == 0) o->solo++;
    else if (o->inflight + nominal > p->cfg[0].cc.fixed_cwnd_bytes) o->over++;
    o->sent[i] = 1;
    o->nominal[i] = (uint16_t)nominal;
    o->inflight += nominal;
    o->pkts++;
    if (o->inflight > o->max_inflight) o->max_inflight = o->inflight;
    if (o->pkts > o->max_pkts) o->max_pkts = o->pkts;
}
static int sc_cwnd_body(sc_pair *p) {
    static sc_cwnd o;
    unsigned pass;
    for (pass = 0; pass < 2; pass++) {
        uint32_t cwnd = pass ? 1000u : 32768u; /* pass 1: smaller than one packet */
        mrc_conn_stats cs;
        unsigned i;
        sc_defaults(p, g_seed + 950 + pass);
        p->region = 2u << 20;
        p->cfg[0].cc.algo = MRC_CC_ALGO_FIXED;
        p->cfg[0].cc.fixed_cwnd_bytes = cwnd;
        memset(&o, 0, sizeof o);
        o.base = p->attr[0].sq_psn;
        p->ud = &o;
        p->tap = sc_cwnd_tap;
        p->rx = sc_cwnd_rx;
        SC_CHECK(p, sc_start(p) == 0);
        for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, MRC_WR_WRITE, 0) == 0);
        SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        cs = sc_cstats(p, 0, 0);
        SC_CHECK(p, cs.tx_rtx == 0 && o.sends == cs.tx_data && o.sends == 512);
        SC_CHECKF(p, o.over == 0, "%u sends beyond cwnd %u", o.over, cwnd);
        if (pass == 0) {
            /* the window binds: within one packet of cwnd, never above it */
            SC_CHECKF(p, o.max_inflight <= cwnd && o.max_inflight + 4200u > cwnd, "max in flight %llu",
                      (unsigned long long)o.max_inflight);
        } else {
            SC_CHECK(p, o.max_pkts == 1 && o.solo == o.sends);
        }
        note("cwnd %u: max %llu nominal bytes (%u packets) in flight", cwnd, (unsigned long long)o.max_inflight,
             o.max_pkts);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_cwnd, sc_cwnd_body)
/* ---- 10. SACK policy (Q6, P7) ------------------------------------------------------------------------------------ */
static int sc_sack_count_body(sc_pair *p) {
    unsigned pass;
    for (pass = 0; pass < 2; pass++) {
        uint16_t every = pass ? 8 : 1;
        uint64_t pkts = 512, msgs = 8, n;
        unsigned i;
        sc_defaults(p, g_seed + 1000 + pass);
        sc_set_ports(p, 1); /* one path: arrivals in order, so only the count and the a bit trigger SACKs */
        p->region = 2u << 20;
        p->cfg[1].ack.sack_every = every;
        SC_CHECK(p, sc_start(p) == 0);
        for (i = 0; i < msgs; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 18, 1u << 18, MRC_WR_WRITE, 0) == 0);
        SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        n = sc_cstats(p, 1, 0).tx_sack;
        SC_CHECK(p, sc_cstats(p, 0, 0).tx_data == pkts && sc_cstats(p, 0, 0).tx_rtx == 0);
        SC_CHECK(p, sc_cstats(p, 0, 0).rx_sack == n);
        if (every == 1) SC_CHECKF(p, n == pkts, "%llu SACKs for %llu packets", (unsigned long long)n,
                                  (unsigned long long)pkts);
        else SC_CHECKF(p, n >= pkts / every && n <= pkts / every + msgs, "%llu SACKs for %llu packets, every %u",
                       (unsigned long long)n, (unsigned long long)pkts, every);
        note("sack_every %u: %llu SACKs for %llu in-order packets", every, (unsigned long long)n,
             (unsigned long long)pkts);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_sack_every, sc_sack_count_body)

/* With sack_every 16, a SACK still goes at once (within the 100 ns the NIC needs for what is queued before it, and
 * naming the packet) for the a bit, an out-of-order arrival, a retransmission (which also fills the hole), a
 * duplicate and a CE mark (then with m = SKIP_ONCE). */
#define SC_EXP_MAX 256
typedef struct sc_sackimm {
    uint32_t base, drop_psn, dropped, cack, got[128];
    uint32_t nexp, plain_arrivals, sacks, skip_sacks;
    uint32_t exp_psn[SC_EXP_MAX];
    mrc_time exp_t[SC_EXP_MAX];
    uint8_t exp_why[SC_EXP_MAX], exp_ok[SC_EXP_MAX], exp_skip[SC_EXP_MAX];
} sc_sackimm;
static int sc_sackimm_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                             mrc_time now) {
    sc_sackimm *o = (sc_sackimm *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from != 0 || o->dropped || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return 0;
    if (k.bth.psn != o->drop_psn) return 0;
    o->dropped = 1;
    return 1;
}
static void sc_sackimm_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_sackimm *o = (sc_sackimm *)p->ud;
    mrc_pkt k;
    uint32_t i, old = o->cack;
    unsigned why = 0;
    if (to != 1 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
    if (i >= 128) return;
    if (ri->ecn == 3) why |= 32; /* CE: immediate, m = SKIP_ONCE */
    if (o->got[i]) {
        why |= 16; /* duplicate */
    } else {
        o->got[i] = 1;
        while (o->cack < 128 && o->got[o->cack]) o->cack++;
    }
    if (k.bth.a) why |= 1;
    if (k.bth.rtx) why |= 2;
    if (!(why & 16) && i != old) why |= 4; /* not the next expected PSN */
    if (o->cack - old > 1) why |= 8;       /* fills a hole */
    if (!why) {
        o->plain_arrivals++;
        return;
    }
    if (o->nexp < SC_EXP_MAX) {
        o->exp_psn[o->nexp] = k.bth.psn;
        o->exp_t[o->nexp] = now;
        o->exp_why[o->nexp] = (uint8_t)why;
        o->nexp++;
    }
}
static void sc_sackimm_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                           mrc_time now) {
    sc_sackimm *o = (sc_sackimm *)p->ud;
    mrc_pkt k;
    uint32_t i, named;
    (void)ti;
    if (from != 1 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK) return;
    if (k.seth.m == MRC_M_SKIP_ONCE) o->skip_sacks++;
    if (k.seth.pr) return; /* answers a probe, not an arrival: outside the coalescing rule */
    o->sacks++;
    named = mrc_psn_add(k.seth.cack_psn, k.seth.ack_psn_offset);
    for (i = 0; i < o->nexp; i++)
        if (o->exp_psn[i] == named && now >= o->exp_t[i] && now - o->exp_t[i] <= 100u) { /* NIC gate: a few ns */
            o->exp_ok[i] = 1;
            if (k.seth.m == MRC_M_SKIP_ONCE) o->exp_skip[i] = 1;
        }
}
static int sc_sack_immediate_body(sc_pair *p) {
    static sc_sackimm o;
    uint32_t i, seen = 0;
    sc_defaults(p, g_seed + 1010);
    sc_set_ports(p, 1);
    p->cfg[1].ack.sack_every = 16;
    {
        mrc_wire_link l;
        mrc_wire_link_default(&l);
        sc_set_links(p, MRC_WIRE_B, &l);
        l.dup_ppm = 100000; /* copies arrive with their original (no jitter): the SACK names the same packet */
        l.ce_ppm = 150000;
        sc_set_links(p, MRC_WIRE_A, &l);
    }
    memset(&o, 0, sizeof o);
    o.base = p->attr[0].sq_psn;
    o.drop_psn = mrc_psn_add(o.base, 20);
    p->ud = &o;
    p->filter = sc_sackimm_filter;
    p->rx = sc_sackimm_rx;
    p->tap = sc_sackimm_tap;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 64u * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, o.dropped == 1 && o.cack == 64);
    for (i = 0; i < o.nexp; i++) {
        SC_CHECKF(p, o.exp_ok[i], "arrival of psn %#x (why %u) at %llu ns drew no immediate SACK naming it",
                  o.exp_psn[i], o.exp_why[i], (unsigned long long)o.exp_t[i]);
        /* Q27: a CE arrival's SACK carries SKIP_ONCE (a copy arriving with it may draw a plain one as well) */
        SC_CHECKF(p, !(o.exp_why[i] & 32) || o.exp_skip[i], "CE arrival of psn %#x drew no SKIP_ONCE SACK",
                  o.exp_psn[i]);
        seen |= o.exp_why[i];
    }
    SC_CHECKF(p, seen == 63, "triggers seen %#x (want a, rtx, out of order, hole filled, dup, CE)", seen);
    /* the requester counts every SKIP_ONCE it receives (let the last acknowledgements land first). The silent drop
     * made its EV ASSUMED_BAD; probes revive it, and then the wire goes quiet */
    p->stop = sc_stop_never;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + 5 * SC_MS) == 0 && mrc_wire_inflight(&p->w) == 0);
    SC_CHECKF(p, p->q[0][0].n_ev_bad == 1 && p->q[0][0].n_ev_good == 1, "EV events: %u ASSUMED_BAD, %u GOOD",
              p->q[0][0].n_ev_bad, p->q[0][0].n_ev_good);
    SC_CHECKF(p, o.skip_sacks > 0 && sc_cstats(p, 0, 0).ev_skip_req == o.skip_sacks, "skip_sacks %u ev_skip_req %llu",
              o.skip_sacks, (unsigned long long)sc_cstats(p, 0, 0).ev_skip_req);
    SC_CHECK(p, sc_cstats(p, 1, 0).rx_dup > 0);
    /* the other arrivals are coalesced: at most one SACK per 16 of them (plus the timer at the edges) */
    SC_CHECKF(p, o.sacks <= o.nexp + o.plain_arrivals / 16u + 2u, "%u SACKs, %u forced, %u plain arrivals", o.sacks,
              o.nexp, o.plain_arrivals);
    return 0;
}
SC_TEST(t_sc_sack_immediate, sc_sack_immediate_body)

/* sack_delay_ns: in-order packets without the a bit wait; the timer's SACK names the latest of them */
typedef struct sc_sacktimer {
    mrc_time t_first, t_sack;
    uint32_t arrivals, sacks, named, cack;
} sc_sacktimer;
static void sc_sacktimer_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_sacktimer *o = (sc_sacktimer *)p->ud;
    mrc_pkt k;
    (void)ri;
    if (to != 1 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    if (o->arrivals++ == 0) o->t_first = now;
}
static void sc_sacktimer_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                             mrc_time now) {
    sc_sacktimer *o = (sc_sacktimer *)p->ud;
    mrc_pkt k;
    (void)ti;
    if (from != 1 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK) return;
    if (o->sacks++ == 0) {
        o->t_sack = now;
        o->named = mrc_psn_add(k.seth.cack_psn, k.seth.ack_psn_offset);
        o->cack = k.seth.cack_psn;
    }
}
static int sc_sack_timer_body(sc_pair *p) {
    sc_sacktimer o;
    uint32_t last;
    sc_defaults(p, g_seed + 1020);
    sc_set_ports(p, 1);
    p->cfg[0].ack.request_every = 1000; /* no a bit on the last packet */
    p->cfg[1].ack.sack_every = 100;
    p->cfg[1].ack.sack_delay_ns = 7000;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->rx = sc_sacktimer_rx;
    p->tap = sc_sacktimer_tap;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 3u * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    last = mrc_psn_add(p->attr[0].sq_psn, 2);
    SC_CHECK(p, o.arrivals == 3 && o.sacks == 1 && sc_cstats(p, 1, 0).tx_sack == 1);
    SC_CHECKF(p, o.t_sack == o.t_first + 7000u, "SACK at %llu, first arrival %llu", (unsigned long long)o.t_sack,
              (unsigned long long)o.t_first);
    SC_CHECK(p, o.named == last && o.cack == last);
    SC_CHECK(p, sc_cstats(p, 0, 0).tlp_fired == 0 && sc_cstats(p, 0, 0).tx_rtx == 0);
    return 0;
}
SC_TEST(t_sc_sack_timer, sc_sack_timer_body)

/* ---- 11. determinism -------------------------------------------------------------------------------------------- */
static int sc_det_run(sc_pair *p, uint64_t seed, uint64_t *trace, uint64_t *stats) {
    int s;
    uint64_t h = 0xCBF29CE484222325ull;
    if (sc_bulk_setup(p, seed, 16, 2u << 20, 0) != 0) return -1;
    p->hash_on = 1;
    if (sc_run_until(p, SC_SEC) != 1 || sc_check_clean(p)) return -1;
    for (s = 0; s < 2; s++) {
        mrc_conn_stats cs = sc_cstats(p, s, 0);
        mrc_endpoint_stats es = sc_estats(p, s);
        mrc_wire_stats ws = sc_wstats(p, s);
        h = sc_fnv(h, &cs, sizeof cs);
        h = sc_fnv(h, &es, sizeof es);
        h = sc_fnv(h, &ws, sizeof ws);
    }
    {
        mrc_time t = sc_now(p);
        h = sc_fnv(h, &t, sizeof t);
    }
    *trace = p->hash;
    *stats = h;
    return 0;
}
static int sc_determinism_body(sc_pair *p) {
    uint64_t t1, s1, t2, s2, t3, s3, pk1;
    SC_CHECK(p, sc_det_run(p, g_seed + 1100, &t1, &s1) == 0);
    pk1 = p->ntx[0] + p->ntx[1];
    sc_free(p);
    SC_CHECK(p, sc_det_run(p, g_seed + 1100, &t2, &s2) == 0);
    SC_CHECK(p, p->ntx[0] + p->ntx[1] == pk1);
    sc_free(p);
    SC_CHECK(p, sc_det_run(p, g_seed + 1101, &t3, &s3) == 0);
    SC_CHECKF(p, t1 == t2 && s1 == s2, "same seed: trace %016llx vs %016llx, stats %016llx vs %016llx",
              (unsigned long long)t1, (unsigned long long)t2, (unsigned long long)s1, (unsigned long long)s2);
    SC_CHECK(p, t3 != t1 && s3 != s1);
    note("%llu packets hashed: trace %016llx reproduced; next seed %016llx", (unsigned long long)pk1,
         (unsigned long long)t1, (unsigned long long)t3);
    return 0;
}
SC_TEST(t_sc_determinism, sc_determinism_body)

/* ---- 12. several connections share the endpoint fairly ------------------------------------------------------- */
typedef struct sc_fair {
    uint64_t tx[2][SC_MAXQ], first[2][SC_MAXQ], all[2][SC_MAXQ];
    int snap[2];
    uint64_t lo[2], hi[2], alo[2], ahi[2];
} sc_fair;
static void sc_fair_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_fair *o = (sc_fair *)p->ud;
    mrc_pkt k;
    unsigned q, j;
    (void)now;
    q = sc_qidx(p, from, ti->qpn);
    if (q >= p->nq) return;
    o->all[from][q]++;
    if (!sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    o->tx[from][q]++;
    if (!k.bth.rtx) o->first[from][q]++;
    /* the first time one connection has sent its whole plan, all of them were backlogged until now */
    if (!o->snap[from] && o->first[from][q] == p->q[from][q].npkts) {
        o->snap[from] = 1;
        o->lo[from] = o->hi[from] = o->tx[from][0];
        o->alo[from] = o->ahi[from] = o->all[from][0];
        for (j = 1; j < p->nq; j++) {
            if (o->tx[from][j] < o->lo[from]) o->lo[from] = o->tx[from][j];
            if (o->tx[from][j] > o->hi[from]) o->hi[from] = o->tx[from][j];
            if (o->all[from][j] < o->alo[from]) o->alo[from] = o->all[from][j];
            if (o->all[from][j] > o->ahi[from]) o->ahi[from] = o->all[from][j];
        }
    }
}
static int sc_multi_conn_body(sc_pair *p) {
    mrc_wire_link l;
    sc_fair o;
    int s;
    unsigned q, i;
    sc_defaults(p, g_seed + 1200);
    p->nq = 4;
    /* P35's verification probes are requester work and take data turns after a confirmed loss, which the bound below
     * (data packets, 2% of slack for retransmissions) does not count: the round-robin is measured without them */
    p->cfg[0].ev.sweep = p->cfg[1].ev.sweep = MRC_EV_SCOPE_NONE;
    p->region = 16u << 20;
    mrc_wire_link_default(&l);
    l.loss_ppm = 5000;
    l.jitter_ns = 500;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_fair_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (s = 0; s < 2; s++)
        for (q = 0; q < 4; q++)
            for (i = 0; i < 8; i++)
                SC_CHECK(p, sc_add(p, s, q, i << 19, 1u << 19, (i + q) & 1u, (uint32_t)(s * 100 + (int)q)) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    for (s = 0; s < 2; s++) {
        /* P7: control packets go first; requester work is served round-robin one packet per turn, so backlogged
         * connections share data turns equally, however many SACKs each owes (a connection at its MPR edge skips
         * turns, and retransmissions count too: 2% of slack) */
        SC_CHECK(p, o.snap[s]);
        SC_CHECKF(p, o.hi[s] - o.lo[s] <= o.lo[s] / 50u, "side %d: per-connection data packets %llu..%llu while backlogged",
                  s, (unsigned long long)o.lo[s], (unsigned long long)o.hi[s]);
        for (q = 0; q < 4; q++) SC_CHECK(p, sc_cstats(p, s, q).msgs_done == 8);
        note("side %d: 4 QPs sent %llu..%llu packets, %llu..%llu of them data, while all were backlogged", s,
             (unsigned long long)o.alo[s], (unsigned long long)o.ahi[s], (unsigned long long)o.lo[s],
             (unsigned long long)o.hi[s]);
    }
    return 0;
}
SC_TEST(t_sc_multi_conn, sc_multi_conn_body)

/* ---- 12b. the in-flight pool: more QPs want memory than there is (IN-FLIGHT MEMORY in mrc.h) --------------- */
/* Eight QPs per side, each with a 1,024-PSN window (16 blocks of 64 PSNs), share a pool of 6 blocks on each
 * endpoint, over a lossy, jittery wire. Every transfer completes bit-exact, no QP errs or stalls (liveness: a QP
 * waiting for a block with nothing in flight is handed the next block freed), QPs really waited, the pool never
 * held more blocks than it has, and once everything is acknowledged every block is back (an idle QP holds none). */
static int sc_pool_share_body(sc_pair *p) {
    mrc_wire_link l;
    int s;
    unsigned q, i;
    { /* mrc_config.pool_blocks: 0 (all), 1..MRC_POOL_BLOCKS; more is refused with its detail */
        mrc_endpoint *ep = (mrc_endpoint *)calloc(1, sizeof *ep);
        mrc_config cfg;
        mrc_endpoint_stats es;
        mrc_detail why;
        SC_CHECK(p, ep != NULL);
        mrc_config_default(&cfg);
        cfg.pool_blocks = (uint32_t)MRC_POOL_BLOCKS + 1u;
        SC_CHECK(p, mrc_endpoint_init(ep, &cfg, 0) == MRC_ERR_INVAL);
        SC_CHECK(p, mrc_endpoint_last_error(ep, &why) == MRC_OK && why.code == MRC_DETAIL_CFG_POOL_BLOCKS);
        cfg.pool_blocks = 0;
        SC_CHECK(p, mrc_endpoint_init(ep, &cfg, 0) == MRC_OK);
        mrc_endpoint_stats_get(ep, &es);
        SC_CHECK(p, es.pool_blocks == MRC_POOL_BLOCKS && es.pool_in_use == 0);
        free(ep);
    }
    sc_defaults(p, g_seed + 1250);
    p->nq = 8;
    p->region = 16u << 20;
    for (s = 0; s < 2; s++) p->cfg[s].pool_blocks = 6;
    mrc_wire_link_default(&l);
    l.loss_ppm = 5000;
    l.jitter_ns = 500;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    SC_CHECK(p, sc_start(p) == 0);
    for (s = 0; s < 2; s++)
        for (q = 0; q < p->nq; q++)
            for (i = 0; i < 4; i++)
                SC_CHECK(p, sc_add(p, s, q, i << 19, 1u << 19, (i + q) & 1u, (uint32_t)(s * 100 + (int)q)) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    /* then half the QPs send once more: every block is retained now, so each one they take is reclaimed (or handed
     * over) */
    for (s = 0; s < 2; s++)
        for (q = 1; q < p->nq; q += 2) SC_CHECK(p, sc_add(p, s, q, 0, 1u << 19, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    for (s = 0; s < 2; s++) {
        mrc_endpoint_stats es = sc_estats(p, s);
        uint64_t waits = 0;
        for (q = 0; q < p->nq; q++) {
            SC_CHECK(p, sc_cstats(p, s, q).msgs_done == 4u + (q & 1u));
            waits += sc_cstats(p, s, q).pool_waits;
        }
        SC_CHECKF(p, es.pool_waits > 0 && es.pool_waits == waits, "side %d: pool_waits %llu, per QP %llu", s,
                  (unsigned long long)es.pool_waits, (unsigned long long)waits);
        SC_CHECK(p, es.pool_blocks == 6 && es.pool_peak == 6 && es.pool_in_use == 0 && es.pool_retained <= 6);
        /* acknowledged blocks are retained (late SACKs still find their records) until a QP needs one */
        SC_CHECKF(p, es.pool_reclaims > 0, "side %d: no retained block was ever reclaimed", s);
        note("side %d: 8 QPs over 6 blocks: %llu waits, %llu hand-offs, %llu reclaims, %u retained at the end", s,
             (unsigned long long)es.pool_waits, (unsigned long long)es.pool_handoffs,
             (unsigned long long)es.pool_reclaims, es.pool_retained);
    }
    return 0;
}
SC_TEST(t_sc_pool_share, sc_pool_share_body)

/* Retained blocks are memory a QP with work may take: QP 0 sends 192 packets over a pool of 3 blocks, so once it is
 * acknowledged every block is retained (none free, none never used). QP 1 then sends as much: it must reclaim the
 * oldest retained blocks from QP 0 (which keeps no record of those PSNs), never wait for a block nobody will free. */
static int sc_pool_reclaim_body(sc_pair *p) {
    mrc_endpoint_stats es;
    uint64_t r0;
    unsigned q;
    int s;
    sc_defaults(p, g_seed + 1260);
    p->nq = 2;
    p->region = 4u << 20;
    for (s = 0; s < 2; s++) p->cfg[s].pool_blocks = 3;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 192u * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    es = sc_estats(p, 0);
    SC_CHECKF(p, es.pool_in_use == 0 && es.pool_retained == 3, "after QP 0: %u in use, %u retained",
              es.pool_in_use, es.pool_retained);
    r0 = es.pool_reclaims; /* QP 0's fourth block was its own oldest */
    SC_CHECK(p, sc_add(p, 0, 1, 0, 192u * 4096u, MRC_WR_WRITE_IMM, 0x5EC1u) == 0);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    es = sc_estats(p, 0);
    SC_CHECKF(p, es.pool_in_use == 0 && es.pool_retained == 3 && es.pool_reclaims >= r0 + 3u && es.pool_peak <= 3,
              "after QP 1: %u in use, %u retained, %llu reclaims, peak %u", es.pool_in_use, es.pool_retained,
              (unsigned long long)es.pool_reclaims, es.pool_peak);
    for (q = 0; q < 2; q++) SC_CHECK(p, mrc_conn_check(p->q[0][q].c) == 0);
    note("QP 1 over QP 0's retained blocks: %llu reclaims, %llu waits", (unsigned long long)es.pool_reclaims,
         (unsigned long long)es.pool_waits);
    return 0;
}
SC_TEST(t_sc_pool_reclaim, sc_pool_reclaim_body)

/* ---- 13. a plane goes down at the requester mid-transfer ---------------------------------------------------- */
typedef struct sc_plane {
    int down;
    uint32_t port;
    uint64_t on_port_after, on_port_up, a_tx_after, b_data_on_port_after;
} sc_plane;
static void sc_plane_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_plane *o = (sc_plane *)p->ud;
    mrc_pkt k;
    (void)now;
    if (from != 0) {
        if (o->down == 1 && ti->port == o->port && sc_decode(p, pkt, len, &k) && sc_is_data(k.bth.opcode))
            o->b_data_on_port_after++;
        return;
    }
    if (o->down == 1) {
        o->a_tx_after++;
        if (ti->port == o->port) o->on_port_after++;
    } else if (o->down == 2 && ti->port == o->port) {
        o->on_port_up++;
    }
}
static int sc_plane_down_body(sc_pair *p) {
    mrc_wire_link l;
    sc_plane o;
    mrc_wire_stats before, after;
    unsigned i;
    sc_defaults(p, g_seed + 1300);
    p->region = 8u << 20;
    p->attr[0].timeout = p->attr[1].timeout = 8;
    mrc_wire_link_default(&l);
    l.jitter_ns = 1000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    memset(&o, 0, sizeof o);
    o.port = 3;
    p->ud = &o;
    p->tap = sc_plane_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 16; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, i & 1u, i) == 0);
    for (i = 0; i < 8; i++) /* traffic the other way too; B does not know the plane is down */
        SC_CHECK(p, sc_add(p, 1, 0, i << 19, 1u << 19, i & 1u, i) == 0);
    SC_CHECK(p, sc_run_until(p, 30 * SC_US) == 0);                  /* about a third of the way */
    SC_CHECK(p, p->q[0][0].done < 8);
    SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], 3, false, sc_now(p)) == MRC_OK);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_BOTH, 3, false) == MRC_OK);
    SC_CHECK(p, !mrc_endpoint_port_up(p->ep[0], 3));
    mrc_wire_stats_get(&p->w, MRC_WIRE_A, 3, &before);
    o.down = 1;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    mrc_wire_stats_get(&p->w, MRC_WIRE_A, 3, &after);
    SC_CHECK(p, o.a_tx_after > 1000);
    SC_CHECKF(p, o.on_port_after == 0 && after.tx_pkts == before.tx_pkts, "%llu packets on the down port",
              (unsigned long long)o.on_port_after);
    SC_CHECK(p, sc_cstats(p, 0, 0).tx_rtx > 0); /* what was queued on the port is lost and repaired */
    mrc_wire_stats_get(&p->w, MRC_WIRE_B, 3, &after);
    SC_CHECK(p, o.b_data_on_port_after > 0 && after.drop_down >= o.b_data_on_port_after);
    SC_CHECK(p, sc_cstats(p, 1, 0).tx_rtx >= o.b_data_on_port_after);
    note("port 3 down at 30 us: A sent %llu packets after, none on port 3; A rtx %llu, B rtx %llu",
         (unsigned long long)o.a_tx_after, (unsigned long long)sc_cstats(p, 0, 0).tx_rtx,
         (unsigned long long)sc_cstats(p, 1, 0).tx_rtx);
    /* the plane comes back: it carries traffic again */
    SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], 3, true, sc_now(p)) == MRC_OK);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_BOTH, 3, true) == MRC_OK);
    o.down = 2;
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 18, 1u << 18, MRC_WR_WRITE, 0) == 0);
    mrc_wire_kick(&p->w);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, o.on_port_up > 0);
    return 0;
}
SC_TEST(t_sc_plane_down, sc_plane_down_body)

/* ---- 14. the peer moves to ERR mid-transfer ------------------------------------------------------------------- */
static int sc_peer_err_stop(sc_pair *p) {
    int s;
    for (s = 0; s < 2; s++) {
        const sc_q *x = &p->q[s][0], *y = &p->q[s][1];
        if (!x->n_conn_err || x->done != x->posted || x->recv_pulled != x->recv_posted) return 0;
        if (y->done != y->nmsg || p->q[1 - s][1].imm_ok != y->nimm) return 0;
    }
    return 1;
}
static int sc_peer_err_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    mrc_conn_attr a;
    unsigned i, nrx = 0, nflush = 0, nok = 0;
    int s;
    const sc_q *x;
    char why[200];
    sc_defaults(p, g_seed + 1400);
    p->nq = 2; /* connection 1 carries on undisturbed next to the failing connection 0 */
    p->region = 8u << 20;
    p->attr[0].timeout = 6;
    p->attr[0].retry_linear = 2;
    p->attr[0].retry_exp = 2;
    p->strict = 0;
    mrc_wire_link_default(&l);
    l.loss_ppm = 5000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    SC_CHECK(p, sc_start(p) == 0);
    r.s = g_seed ^ 0x1414;
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, i & 1u, i) == 0);
    SC_CHECK(p, sc_plan_random(p, 1, 0, 12, 1u << 20, 50, &r) == 0);
    for (s = 0; s < 2; s++)
        for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, s, 1, i << 19, 1u << 19, (i + 1u) & 1u, i) == 0);
    SC_CHECK(p, sc_run_until(p, 20 * SC_US) == 0);
    SC_CHECK(p, p->q[0][0].done < 4);
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_ERR;
    SC_CHECK(p, mrc_conn_modify(p->q[1][0].c, &a, MRC_ATTR_STATE, sc_now(p)) == MRC_OK);
    p->stop = sc_peer_err_stop;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    /* B: the application's ERR */
    x = &p->q[1][0];
    SC_CHECK(p, x->conn_err_status == MRC_ERR_FLUSH && x->n_conn_err == 1);
    SC_CHECK(p, x->recv_pulled == x->recv_posted && x->n_recv_flush > 0);
    for (i = 0; i < x->posted; i++)
        SC_CHECK(p, x->msg[i].status == MRC_OK || x->msg[i].status == MRC_ERR_FLUSH);
    SC_CHECK(p, sc_estats(p, 1).drop[MRC_DROP_STATE] > 0); /* A's data kept coming and was dropped */
    /* A: retries exhausted; the oldest incomplete WR carries it, later ones flush, earlier ones were OK */
    x = &p->q[0][0];
    SC_CHECK(p, x->conn_err_status == MRC_ERR_RETRY_EXC && x->n_conn_err == 1);
    SC_CHECK(p, sc_cstats(p, 0, 0).rto_fired == 5);
    for (i = 0; i < x->posted; i++) {
        int st = x->msg[i].status;
        if (st == MRC_OK) {
            SC_CHECK(p, nrx == 0 && nflush == 0);
            nok++;
        } else if (st == MRC_ERR_RETRY_EXC) {
            SC_CHECK(p, nrx == 0 && nflush == 0);
            nrx++;
        } else {
            SC_CHECK(p, st == MRC_ERR_FLUSH && nrx == 1);
            nflush++;
        }
    }
    SC_CHECK(p, nrx == 1 && x->posted == x->nmsg);
    SC_CHECK(p, x->recv_pulled == x->recv_posted && x->n_recv_flush + x->imm_ok == x->recv_posted);
    for (s = 0; s < 2; s++) SC_CHECK(p, mrc_conn_state(p->q[s][0].c) == MRC_QPS_ERR);
    /* connection 1 never noticed */
    for (s = 0; s < 2; s++) {
        x = &p->q[s][1];
        SC_CHECK(p, mrc_conn_state(x->c) == MRC_QPS_RTS && x->n_conn_err == 0 && x->n_send_err == 0);
        SC_CHECKF(p, sc_mem_check_q(p, s, 1, 2, why, sizeof why), "%s", why);
    }
    note("A: %u WRs OK before B's ERR, 1 RETRY_EXC, %u flushed, %.3f ms after; the other QP completed",
         nok, nflush, (double)(p->q[0][0].t_conn_err - 20 * SC_US) / 1e6);
    /* no crash, nothing left in flight; both reset and reconnect, and a clean transfer follows */
    p->stop = sc_stop_never;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + 10 * SC_MS) == 0 && mrc_wire_inflight(&p->w) == 0);
    for (s = 0; s < 2; s++) {
        a.state = MRC_QPS_RESET;
        SC_CHECK(p, mrc_conn_modify(p->q[s][0].c, &a, MRC_ATTR_STATE, sc_now(p)) == MRC_OK);
        sc_plan_clear(&p->q[s][0]);
        p->attr[s].sq_psn = mrc_psn_add(p->attr[s].sq_psn, 0x10000);
    }
    for (s = 0; s < 2; s++) sc_fill_dst(p, s);
    for (s = 0; s < 2; s++) sc_plan_clear(&p->q[s][1]); /* its slice was just reset too */
    SC_CHECK(p, sc_connect(p, 0) == 0);
    p->strict = 1;
    p->stop = NULL;
    for (s = 0; s < 2; s++) SC_CHECK(p, sc_plan_random(p, s, 0, 8, 1u << 20, 50, &r) == 0);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    return 0;
}
SC_TEST(t_sc_peer_err, sc_peer_err_body)

const test_entry test_scenario[] = {
    {"sc_bulk_bidir", t_sc_bulk_bidir},
    {"sc_keyed_rkeys", t_sc_keyed_rkeys},
    {"sc_wimm_order", t_sc_wimm_order},
    {"sc_wimm_limit", t_sc_wimm_limit},
    {"sc_wimm_overflow", t_sc_wimm_overflow},
    {"sc_rto_backoff", t_sc_rto_backoff},
    {"sc_retry_exhaust", t_sc_retry_exhaust},
    {"sc_psn_wrap", t_sc_psn_wrap},
    {"sc_tail_loss", t_sc_tail_loss},
    {"sc_trim", t_sc_trim},
    {"sc_mpr_window", t_sc_mpr_window},
    {"sc_cwnd", t_sc_cwnd},
    {"sc_sack_every", t_sc_sack_every},
    {"sc_sack_immediate", t_sc_sack_immediate},
    {"sc_sack_timer", t_sc_sack_timer},
    {"sc_determinism", t_sc_determinism},
    {"sc_multi_conn", t_sc_multi_conn},
    {"sc_pool_share", t_sc_pool_share},
    {"sc_pool_reclaim", t_sc_pool_reclaim},
    {"sc_plane_down", t_sc_plane_down},
    {"sc_peer_err", t_sc_peer_err},
    {NULL, NULL},
};
