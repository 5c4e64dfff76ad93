/* tests/cc_nscc.c - congestion control, white-box (issue #4; MRC_STATIC: its own copy of the core, tests/test.h):
 *
 *   cc_nscc_*        NSCC arithmetic: one context, one sample, the window the notes' formulas give by hand
 *                    (reference defaults: 100 Gb/s, base RTT 12 us, MSS 4096, nominal packet 4200 B)
 *   cc_wrap_*        rcvd_bytes (24 bits of 256 B) and TSETH timestamp (16 bits of 128 ns) wrap-around
 *   cc_subpkt_*      P24 sub-packet windows: trims, the penalty and quick adapt below one packet, the increase cap,
 *                    the pacing clock (white-box and live, exact in virtual time), liveness of a paced QP
 *   cc_lh_mark       P30: SACKs soon after a last-hop trim count as marked (white-box); live in cc_incast16
 */
#define MRC_STATIC /* white-box: its own copy of the core */
#define MRC_IMPLEMENTATION
#include "test.h"

/* ---- NSCC arithmetic ------------------------------------------------------------------------------------------- */
#define CC_T0 ((mrc_time)1000000000u)
static mrc_conn cc_conn; /* only its counters are used */

static void cc_ctx(mrc__ccx *x, int trimming) {
    mrc_nscc_cfg cf;
    memset(x, 0, sizeof *x);
    memset(&cf, 0, sizeof cf);
    memset(&cc_conn.st, 0, sizeof cc_conn.st);
    mrc__nscc_prm_init(&x->p, &cf, 100000u, 12000u, trimming != 0, 4096u, 4200u);
    x->algo = MRC_CC_ALGO_NSCC;
    x->cwnd = 100000u;
    x->last_adjust = x->last_dec = CC_T0;
    x->qa_end = CC_T0 + 1000000u; /* quick adapt out of the way unless a test arms it */
    x->ready_head = x->ready_tail = MRC__EV_NONE;
}
static void cc_ack(mrc__ccx *x, uint64_t newly, mrc_time rtt, int ecn, mrc_time now) {
    mrc__cc_sample s;
    memset(&s, 0, sizeof s);
    s.newly = newly;
    s.rtt = rtt;
    s.ecn = (uint8_t)ecn;
    mrc__nscc_on_ack(&cc_conn, x, &s, now);
}
#define CC_EQ(what, got, want)                                                                                      \
    do {                                                                                                            \
        if ((uint64_t)(got) != (uint64_t)(want)) {                                                                  \
            fail_at(__FILE__, __LINE__, what);                                                                      \
            printf("    got %llu, want %llu\n", (unsigned long long)(got), (unsigned long long)(want));             \
            return 1;                                                                                               \
        }                                                                                                           \
    } while (0)

/* Defaults derived from the line rate and base RTT (docs/PROTOCOL.md 8.4): a = BDP / 150000 B. */
static int t_cc_nscc_defaults(void) {
    mrc__ccx x;
    mrc_nscc_cfg cf;
    cc_ctx(&x, 1);
    CC_EQ("bdp = 100 Gb/s x 12 us", x.p.bdp, 150000u);
    CC_EQ("maxwnd = 1.5 BDP", x.p.maxwnd, 225000u);
    CC_EQ("target = 3/4 base RTT with trimming", x.p.target, 9000u);
    CC_EQ("fi = 5 MSS a", x.p.fi, 20480u);
    CC_EQ("eta = 0.15 MSS a", x.p.eta, 614u);            /* 61440 x 65536 / 100 >> 16 = 614.4 */
    CC_EQ("fi_scale = a / 4 (Q16)", x.p.fi_scale_q16, 16384u);
    CC_EQ("alpha = 4 MSS a / 12 us (Q16 bytes/ns)", x.p.alpha_q16, 89478u); /* 2^30 / 12000 */
    CC_EQ("gamma 0.8 (Q16)", x.p.gamma_q16, 52429u);
    CC_EQ("qa_threshold = 4 target", x.p.qa_threshold, 36000u);
    CC_EQ("adjust_bytes = 8 nominal packets", x.p.adjust_bytes, 33600u);
    CC_EQ("adjust_period = base RTT", x.p.adjust_period, 12000u);
    cc_ctx(&x, 0);
    CC_EQ("target = base RTT without trimming", x.p.target, 12000u);
    /* 400 Gb/s: a = 4 */
    memset(&cf, 0, sizeof cf);
    mrc__nscc_prm_init(&x.p, &cf, 400000u, 12000u, true, 4096u, 4200u);
    CC_EQ("bdp at 400G", x.p.bdp, 600000u);
    CC_EQ("maxwnd at 400G", x.p.maxwnd, 900000u);
    CC_EQ("fi at 400G", x.p.fi, 81920u);
    /* configured values win */
    cf.target_delay = 5000u;
    cf.max_cwnd = 300000u;
    cf.fi_bytes = 1000u;
    cf.qa_gate = 2u;
    mrc__nscc_prm_init(&x.p, &cf, 100000u, 12000u, true, 4096u, 4200u);
    CC_EQ("configured target", x.p.target, 5000u);
    CC_EQ("configured maxwnd", x.p.maxwnd, 300000u);
    CC_EQ("configured fi", x.p.fi, 1000u);
    CC_EQ("configured qa_gate", x.p.qa_gate, 2u);
    CC_EQ("qa_threshold follows the configured target", x.p.qa_threshold, 20000u);
    return 0;
}

/* No ECN, delay >= target: fair increase, applied at the fulfil (received > adjust_bytes). */
static int t_cc_nscc_fair(void) {
    mrc__ccx x;
    cc_ctx(&x, 1);
    cc_ack(&x, 40000u, 22000u, 0, CC_T0 + 100u); /* delay 10000 >= 9000 */
    /* inc = 20480 x 40000 = 819200000; cwnd += inc / 100000 = 8192 */
    CC_EQ("fair increase", x.cwnd, 108192u);
    /* below adjust_bytes and inside the period: accumulated, not applied */
    cc_ack(&x, 4096u, 22000u, 0, CC_T0 + 200u);
    CC_EQ("fair increase waits for the fulfil", x.cwnd, 108192u);
    /* the period elapses: the pending increase plus eta (614). inc = 20480 x 8192 = 167772160 -> / 108192 = 1550 */
    cc_ack(&x, 4096u, 22000u, 0, CC_T0 + 12001u);
    CC_EQ("fulfil after the adjust period adds the increase and eta", x.cwnd, 108192u + 1550u + 614u);
    return 0;
}

/* No ECN, 1 us <= delay < target: proportional increase alpha (target - delay). */
static int t_cc_nscc_proportional(void) {
    mrc__ccx x;
    cc_ctx(&x, 1);
    cc_ack(&x, 40000u, 17000u, 0, CC_T0 + 100u); /* delay 5000 */
    /* (89478 x 4000) >> 16 = 5461 per byte; x 40000 = 218440000; / 100000 = 2184 */
    CC_EQ("proportional increase", x.cwnd, 102184u);
    CC_EQ("no fast increase above 1 us", cc_conn.st.cc_fast, 0u);
    return 0;
}

/* No ECN, delay < 1 us for a window's worth of bytes: fast increase by newly x fi_scale. */
static int t_cc_nscc_fast(void) {
    mrc__ccx x;
    cc_ctx(&x, 1);
    cc_ack(&x, 4096u, 12500u, 0, CC_T0 + 100u); /* delay 500: counts, a window not yet seen */
    CC_EQ("no fast increase before a window of low delay", cc_conn.st.cc_fast, 0u);
    CC_EQ("proportional meanwhile: ((89478 x 8500) >> 16) x 4096 is not yet applied", x.cwnd, 100000u);
    x.fi_count = 100000u;                         /* a window of low-delay bytes seen */
    cc_ack(&x, 4096u, 12500u, 0, CC_T0 + 200u);
    CC_EQ("fast increase: 4096 x 0.25", x.cwnd, 101024u);
    CC_EQ("fast increase counted", cc_conn.st.cc_fast, 1u);
    cc_ack(&x, 4096u, 12500u, 0, CC_T0 + 300u);   /* stays fast while the delay stays low */
    CC_EQ("fast increase continues", x.cwnd, 102048u);
    cc_ack(&x, 4096u, 15000u, 0, CC_T0 + 400u);   /* delay 3000: fast ends */
    CC_EQ("fast ends when the delay rises", x.fast, 0u);
    return 0;
}

/* ECN and delay >= target: multiplicative decrease gamma (avg - target) / avg, at most once per base RTT, never
 * more than max_md_jump (0.5). */
static int t_cc_nscc_md(void) {
    mrc__ccx x;
    mrc_time now = CC_T0 + 13000u;
    cc_ctx(&x, 1);
    x.avg_q4 = 18000u << 4;
    x.last_adjust = now - 100u; /* keep the fulfil out */
    cc_ack(&x, 4096u, 30000u, 1, now);
    /* cut = 52429 x 9000 / 18000 = 26214; keep 39322; 100000 x 39322 >> 16 = 60000 */
    CC_EQ("multiplicative decrease", x.cwnd, 60000u);
    CC_EQ("one decrease", cc_conn.st.cc_md, 1u);
    cc_ack(&x, 4096u, 30000u, 1, now + 100u);
    CC_EQ("no second decrease within a base RTT", x.cwnd, 60000u);
    cc_ack(&x, 4096u, 30000u, 1, now + 12100u);
    CC_EQ("a decrease again after a base RTT", cc_conn.st.cc_md, 2u);
    /* a huge average delay: the cut would take 91% x 0.8; max_md_jump keeps half */
    cc_ctx(&x, 1);
    x.avg_q4 = 100000u << 4;
    x.last_adjust = now - 100u;
    cc_ack(&x, 4096u, 112000u, 1, now);
    CC_EQ("decrease floored at half the window", x.cwnd, 50000u);
    /* ECN below the target: the window stays (the EV manager avoids that path) */
    cc_ctx(&x, 1);
    cc_ack(&x, 4096u, 15000u, 1, CC_T0 + 100u);
    CC_EQ("ECN under target: no change", x.cwnd, 100000u);
    return 0;
}

/* Trim NACK: the window loses the packet's nominal bytes; silent loss: only with drop-tail (no trimming). */
static int t_cc_nscc_trim_loss(void) {
    mrc__ccx x;
    cc_ctx(&x, 1);
    mrc__nscc_on_trim(&cc_conn, &x, 4200u, CC_T0 + 100u);
    CC_EQ("trim decrease", x.cwnd, 95800u);
    CC_EQ("trim decrease counted", cc_conn.st.cc_nack_dec, 1u);
    CC_EQ("a trim arms quick adapt", x.qa_loss, 1u);
    cc_ctx(&x, 1);
    mrc__nscc_on_loss(&cc_conn, &x, 4200u, CC_T0 + 100u);
    CC_EQ("silent loss on a trimming fabric: path fault, window kept", x.cwnd, 100000u);
    CC_EQ("silent loss arms quick adapt", x.qa_loss, 1u);
    cc_ctx(&x, 0);
    mrc__nscc_on_loss(&cc_conn, &x, 4200u, CC_T0 + 100u);
    CC_EQ("silent loss on a drop-tail fabric: congestion", x.cwnd, 95800u);
    /* the window never goes under one nominal packet, nor over maxwnd */
    cc_ctx(&x, 1);
    x.cwnd = 5000u;
    mrc__nscc_on_trim(&cc_conn, &x, 4200u, CC_T0 + 100u);
    CC_EQ("floor min_cwnd", x.cwnd, 4200u);
    cc_ctx(&x, 1);
    x.cwnd = 225000u;
    cc_ack(&x, 40000u, 22000u, 0, CC_T0 + 100u);
    CC_EQ("ceiling maxwnd", x.cwnd, 225000u);
    return 0;
}

/* P30: for lh_mark_rtts base RTTs after a last-hop trim the SACKs with an RTT sample count as marked - a delay over
 * target decreases the window (it fair-increased before), the average delay still takes the unmarked sample; a SACK
 * without a sample is not marked; after the mark the window increases again. 0 turns it off. */
static int t_cc_lh_mark(void) {
    mrc__ccx x;
    mrc_time now = CC_T0 + 20000u;
    uint64_t w;
    cc_ctx(&x, 1);
    x.avg_q4 = 20000u << 4;
    cc_ack(&x, 4096u, 22000u, 0, now);
    CC_EQ("no last-hop trim: delay over target without ECN, fair increase", x.cwnd > 100000u, 1u);
    CC_EQ("... no decrease", cc_conn.st.cc_md, 0u);
    cc_ctx(&x, 1);
    x.p.lh_mark_rtts = 32;
    x.avg_q4 = 20000u << 4;
    x.last_adjust = now; /* no additive increase in this SACK */
    mrc__nscc_lh_mark(&x, now);
    CC_EQ("marks for 32 base RTTs", x.lh_mark_end, now + 32u * 12000u);
    cc_ack(&x, 4096u, 22000u, 0, now);
    /* avg 20000 takes the unmarked sample as a quarter base RTT: 20000 + (3000 - 20000) / 80 = 19788.75 (Q4) */
    CC_EQ("the average takes the unmarked sample", x.avg_q4, (20000u << 4) - (17000u << 4) / 80u);
    w = (100000u * (65536u - 52429u * ((x.avg_q4 >> 4) - 9000u) / (x.avg_q4 >> 4))) >> 16;
    CC_EQ("after a last-hop trim: multiplicative decrease", x.cwnd, w);
    CC_EQ("... counted", cc_conn.st.cc_md, 1u);
    w = x.cwnd;
    x.last_adjust = now + 24001u;
    cc_ack(&x, 4096u, 0u, 0, now + 24001u); /* two base RTTs on: a decrease is allowed again */
    CC_EQ("a SACK without an RTT sample (a retransmission's) is not marked", cc_conn.st.cc_md, 1u);
    CC_EQ("... and its delay, the average, over target: fair increase pending", x.inc > 0, 1u);
    cc_ack(&x, 4096u, 22000u, 0, now + 32u * 12000u);
    CC_EQ("the mark over: fair increase again", x.cwnd > w, 1u);
    CC_EQ("... no decrease", cc_conn.st.cc_md, 1u);
    cc_ctx(&x, 1);
    mrc__nscc_lh_mark(&x, now);
    CC_EQ("cc_lh_mark_rtts 0: off", x.lh_mark_end, 0u);
    return 0;
}

/* Quick adapt: at the end of its window, after a loss, a context that achieved less than maxwnd >> qa_gate takes
 * what it achieved as its window and ignores ECN for the bytes then in flight. */
static int t_cc_nscc_quick_adapt(void) {
    mrc__ccx x;
    mrc_time now = CC_T0 + 100u;
    cc_ctx(&x, 1);
    x.qa_end = now - 1u;
    x.qa_loss = 1;
    x.achieved = 20000u;
    x.inflight = 50000u;
    cc_ack(&x, 4096u, 22000u, 0, now);
    CC_EQ("quick adapt: window = achieved (20000 + 4096 < 225000 >> 3)", x.cwnd, 24096u);
    CC_EQ("quick adapt counted", cc_conn.st.cc_qa, 1u);
    CC_EQ("ignores ECN for the bytes in flight", x.ign_bytes, 50000u);
    CC_EQ("next window", x.qa_end, now + 12000u + 9000u);
    x.avg_q4 = 30000u << 4;
    cc_ack(&x, 4096u, 40000u, 1, now + 13000u); /* ECN, delay over target, inside the ignore window */
    CC_EQ("ECN ignored after quick adapt", x.cwnd, 24096u);
    CC_EQ("no decrease", cc_conn.st.cc_md, 0u);
    /* achieved above the gate: no quick adapt */
    cc_ctx(&x, 1);
    x.qa_end = now - 1u;
    x.qa_loss = 1;
    x.achieved = 40000u;
    cc_ack(&x, 4096u, 22000u, 0, now);
    CC_EQ("no quick adapt above maxwnd >> qa_gate", cc_conn.st.cc_qa, 0u);
    /* disable_qa */
    cc_ctx(&x, 1);
    x.p.disable_qa = 1;
    x.qa_end = now - 1u;
    x.qa_loss = 1;
    cc_ack(&x, 4096u, 22000u, 0, now);
    CC_EQ("disable_qa", cc_conn.st.cc_qa, 0u);
    return 0;
}

/* Receiver penalty (Q12): newly x pen / 128 off the window; the first penalised window comes back on r_c. */
static int t_cc_nscc_penalty(void) {
    mrc__ccx x;
    mrc__cc_sample s;
    cc_ctx(&x, 1);
    memset(&s, 0, sizeof s);
    s.newly = 8192u;
    s.pen = 64u;
    mrc__nscc_on_pen(&cc_conn, &x, &s, CC_T0 + 100u);
    CC_EQ("penalty 64: half of newly", x.cwnd, 95904u);
    s.pen = 127u;
    mrc__nscc_on_pen(&cc_conn, &x, &s, CC_T0 + 100u);
    CC_EQ("penalty 127", x.cwnd, 95904u - 8128u);
    CC_EQ("saved window is the first", x.saved_cwnd, 100000u);
    s.pen = 0;
    s.r_c = 1;
    mrc__nscc_on_pen(&cc_conn, &x, &s, CC_T0 + 100u);
    CC_EQ("r_c restores", x.cwnd, 100000u);
    CC_EQ("restores counted", cc_conn.st.cc_restores, 1u);
    CC_EQ("saved window cleared", x.saved_cwnd, 0u);
    return 0;
}

/* A smaller RTT lowers base_rtt and rescales BDP and maxwnd; the first sample is the minimum. */
static int t_cc_nscc_base_rtt(void) {
    mrc__ccx x;
    cc_ctx(&x, 1);
    cc_ack(&x, 4096u, 10000u, 0, CC_T0 + 100u);
    CC_EQ("base RTT falls", x.p.base_rtt, 10000u);
    CC_EQ("BDP rescaled", x.p.bdp, 125000u);
    CC_EQ("maxwnd rescaled", x.p.maxwnd, 187500u);
    cc_ack(&x, 4096u, 14000u, 0, CC_T0 + 200u);
    CC_EQ("a larger RTT leaves base RTT", x.p.base_rtt, 10000u);
    CC_EQ("RTT samples counted", cc_conn.st.cc_rtt_samples, 2u);
    cc_ack(&x, 4096u, 0u, 0, CC_T0 + 300u); /* no sample (a retransmission's SACK): uses the average */
    CC_EQ("no RTT sample, none counted", cc_conn.st.cc_rtt_samples, 2u);
    return 0;
}

/* ---- wrap-around ------------------------------------------------------------------------------------------------ */
static int t_cc_wrap_vectors(void) {
    static mrc_endpoint ep; /* only cfg.wire.ts_shift is read */
    uint32_t last;
    last = 0xFFFFF0u;
    CC_EQ("rcvd_bytes across the 24-bit wrap", mrc__rcvd_newly(&last, 0x000010u), 0x20u << 8);
    CC_EQ("remembered", last, 0x10u);
    CC_EQ("an overtaken (older) SACK moves nothing", mrc__rcvd_newly(&last, 0xFFFFF8u), 0u);
    CC_EQ("and is not remembered", last, 0x10u);
    CC_EQ("same value: nothing new", mrc__rcvd_newly(&last, 0x10u), 0u);
    last = 0;
    CC_EQ("largest forward step", mrc__rcvd_newly(&last, 0x7FFFFFu), (uint64_t)0x7FFFFFu << 8);
    last = 0;
    CC_EQ("half the space away counts as older", mrc__rcvd_newly(&last, 0x800000u), 0u);
    memset(&ep, 0, sizeof ep);
    ep.cfg.wire.ts_shift = 7;
    CC_EQ("timestamp unwrap, same epoch", mrc__ts_unwrap(&ep, 1000u, ((mrc_time)1000u << 7) + 50u),
          (mrc_time)1000u << 7);
    CC_EQ("timestamp sent before a 16-bit wrap, echoed after it", mrc__ts_unwrap(&ep, 0xFFFEu, ((mrc_time)0x10005u << 7) + 50u),
          (mrc_time)0xFFFEu << 7);
    CC_EQ("far in the run: 2^40 ns", mrc__ts_unwrap(&ep, (uint16_t)(((mrc_time)1 << 33) - 3u), ((mrc_time)1 << 40) + 9u),
          (((mrc_time)1 << 33) - 3u) << 7);
    CC_EQ("a timestamp from the future at time zero is clamped", mrc__ts_unwrap(&ep, 10u, (mrc_time)5u << 7), 0u);
    return 0;
}

/* The whole pipeline across the wrap: the responder's counter starts 4 KiB short of 2^32 bytes. Every byte it
 * reports arrives at the requester's context exactly once (to 256 B). */
static int sc_cc_wrap_body(sc_pair *p) {
    mrc_conn *rq, *rs;
    uint64_t start, got, want;
    unsigned i;
    sc_defaults(p, g_seed + 4400);
    p->region = 8u << 20;
    SC_CHECK(p, sc_start(p) == 0);
    rq = p->q[0][0].c;
    rs = p->q[1][0].c;
    rs->rcvd_bytes = ((uint64_t)0xFFFFF0u << 8) + 77u;
    rq->last_rcvd = 0xFFFFF0u;
    start = rs->rcvd_bytes;
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    got = sc_cstats(p, 0, 0).cc_rcvd_bytes;
    want = rs->rcvd_bytes - start;
    SC_CHECKF(p, (rs->rcvd_bytes >> 8) > 0xFFFFFFu, "the counter did not wrap (%llu)", (unsigned long long)rs->rcvd_bytes);
    SC_CHECKF(p, got + 512u > want && got <= want + 256u, "requester saw %llu bytes, responder counted %llu",
              (unsigned long long)got, (unsigned long long)want);
    SC_CHECK(p, got >= 8u << 20);
    return 0;
}
SC_TEST(t_cc_wrap_pipeline, sc_cc_wrap_body)

/* ---- P24: sub-packet windows ------------------------------------------------------------------------------------- */
static void cc_ctx_subpkt(mrc__ccx *x) {
    cc_ctx(x, 1);
    x->p.subpkt = 1;
    x->p.floor = 4200u >> 4; /* mrc_config.cc_subpkt_shift 4 */
}
/* Trims take the window below one packet with sub-packet windows (down to the floor), and stop at one packet
 * without them (P24 off: as before). */
static int t_cc_subpkt_trim(void) {
    mrc__ccx x;
    cc_ctx_subpkt(&x);
    x.cwnd = 5000u;
    mrc__nscc_on_trim(&cc_conn, &x, 4200u, CC_T0 + 100u);
    CC_EQ("a trim takes the window below one packet, by half at most", x.cwnd, 2100u);
    mrc__nscc_on_trim(&cc_conn, &x, 4200u, CC_T0 + 200u);
    CC_EQ("... once per base RTT", x.cwnd, 2100u);
    mrc__nscc_on_trim(&cc_conn, &x, 4200u, CC_T0 + 12101u);
    CC_EQ("... then again", x.cwnd, 1050u);
    x.cwnd = 300u;
    mrc__nscc_on_trim(&cc_conn, &x, 4200u, CC_T0 + 24202u);
    CC_EQ("... down to the floor, one packet >> cc_subpkt_shift", x.cwnd, 262u);
    cc_ctx(&x, 1);
    x.cwnd = 5000u;
    mrc__nscc_on_trim(&cc_conn, &x, 4200u, CC_T0 + 100u);
    CC_EQ("P24 off: one packet", x.cwnd, 4200u);
    /* quick adapt (a loss may be a path fault, not congestion) stops at one packet */
    cc_ctx_subpkt(&x);
    x.qa_end = CC_T0 + 99u;
    x.qa_loss = 1;
    x.achieved = 0u;
    cc_ack(&x, 1000u, 22000u, 0, CC_T0 + 100u);
    CC_EQ("quick adapt after a silent loss stops at one packet", x.cwnd, 4200u);
    cc_ctx_subpkt(&x);
    x.qa_end = CC_T0 + 99u;
    x.qa_loss = x.qa_trim = 1;
    x.achieved = 0u;
    cc_ack(&x, 1000u, 22000u, 0, CC_T0 + 100u);
    CC_EQ("quick adapt after a trim: what it achieved, below one packet", x.cwnd, 1000u);
    return 0;
}
/* The receiver penalty drives a sender below one packet per RTT. */
static int t_cc_subpkt_penalty(void) {
    mrc__ccx x;
    mrc__cc_sample s;
    cc_ctx_subpkt(&x);
    x.cwnd = 4200u;
    memset(&s, 0, sizeof s);
    s.newly = 4096u;
    s.pen = 127u;
    mrc__nscc_on_pen(&cc_conn, &x, &s, CC_T0 + 100u);
    CC_EQ("penalty 127 below one packet (by half at most)", x.cwnd, 2100u);
    mrc__nscc_on_pen(&cc_conn, &x, &s, CC_T0 + 200u);
    CC_EQ("... once per base RTT", x.cwnd, 2100u);
    s.pen = 64u;
    mrc__nscc_on_pen(&cc_conn, &x, &s, CC_T0 + 12101u);
    CC_EQ("penalty 64 a base RTT later", x.cwnd, 1050u);
    s.pen = 127u;
    mrc__nscc_on_pen(&cc_conn, &x, &s, CC_T0 + 24202u);
    CC_EQ("penalty 127 again", x.cwnd, 525u);
    mrc__nscc_on_pen(&cc_conn, &x, &s, CC_T0 + 36303u);
    CC_EQ("and again: the floor, one packet per 16 base RTTs", x.cwnd, 262u);
    cc_ctx(&x, 1);
    x.cwnd = 4200u;
    mrc__nscc_on_pen(&cc_conn, &x, &s, CC_T0 + 100u);
    CC_EQ("P24 off: one packet", x.cwnd, 4200u);
    return 0;
}
/* Below one packet an acknowledgement covers several windows: the increase at most doubles the window (the fair
 * increase would take 262 B to maxwnd in one SACK); at one packet or more the increase is NSCC's, uncapped. */
static int t_cc_subpkt_increase(void) {
    mrc__ccx x;
    cc_ctx_subpkt(&x);
    x.cwnd = 262u;
    cc_ack(&x, 4096u, 22000u, 0, CC_T0 + 12001u); /* fair increase, fulfilled at the period */
    CC_EQ("at most doubles below one packet", x.cwnd, 524u);
    x.cwnd = 4200u;
    cc_ack(&x, 40000u, 22000u, 0, CC_T0 + 24002u);
    CC_EQ("one packet: uncapped", x.cwnd > 8400u, 1u);
    return 0;
}
/* The pacing clock: a packet sent with the window below its size holds the context's next packet for
 * base RTT x nominal / cwnd; with nothing in flight before then the window does not fit, after it does. */
static int t_cc_subpkt_clock(void) {
    mrc__ccx x;
    cc_ctx_subpkt(&x);
    x.cwnd = 1050u;
    CC_EQ("fits before any packet", mrc__cc_fits(&x, 4200u, CC_T0), 1u);
    x.inflight = 4200u;
    mrc__cc_pace_slow(&x, 4200u, CC_T0);
    CC_EQ("next packet after 12 us x 4200 / 1050", x.pace_next, CC_T0 + 48000u);
    CC_EQ("in flight: no", mrc__cc_fits(&x, 4200u, CC_T0 + 50000u), 0u);
    x.inflight = 0;
    CC_EQ("acknowledged, the clock not yet", mrc__cc_fits(&x, 4200u, CC_T0 + 47999u), 0u);
    CC_EQ("the clock", mrc__cc_fits(&x, 4200u, CC_T0 + 48000u), 1u);
    x.cwnd = 8400u;
    CC_EQ("a window of a packet or more ignores the clock", mrc__cc_fits(&x, 4200u, CC_T0 + 1u), 1u);
    return 0;
}

/* Live: the window held below one packet (maxwnd 1050 B, a quarter of a nominal packet): every data packet after
 * the first leaves exactly when the pacing clock says (base RTT x nominal / cwnd after the one before, virtual
 * time), the QP always has a finite deadline while it waits (the harness runs on mrc_endpoint_next_deadline), and
 * the writes complete. */
typedef struct sc_pace { mrc_time next, last; uint32_t pkts, exact, late, early; } sc_pace;
static mrc__ccx *sc_pace_ccx(sc_pair *p) { return mrc__conn_ccx(p->q[0][0].c); }
static void sc_pace_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_pace *o = (sc_pace *)p->ud;
    mrc__ccx *x = sc_pace_ccx(p);
    (void)pkt, (void)len;
    if (from != 0 || !ti->payload_len || !x) return;
    if (o->pkts) {
        if (now == o->next) o->exact++;
        else if (now < o->next) o->early++;
        else o->late++;
    }
    o->pkts++;
    o->next = x->pace_next; /* set by this packet */
    o->last = now;
    x->cwnd = x->p.maxwnd = 1050u; /* held there: nothing on this clean wire lowers it, and nothing raises it */
}
static int sc_subpkt_pace_body(sc_pair *p) {
    static sc_pace o;
    mrc__ccx *x;
    sc_defaults(p, g_seed + 4700);
    p->region = 1u << 20;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_pace_tap;
    SC_CHECK(p, sc_start(p) == 0);
    x = sc_pace_ccx(p);
    SC_CHECK(p, x && x->p.subpkt && x->p.floor < x->p.min_cwnd);
    x->cwnd = x->p.maxwnd = 1050u;
    x->p.maxwnd_set = 1;
    SC_CHECK(p, sc_add(p, 0, 0, 0, 64u << 10, MRC_WR_WRITE, 0) == 0); /* 16 packets */
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECKF(p, o.pkts == 16 && o.exact == 15 && !o.early && !o.late,
              "%u data packets: %u on the clock, %u early, %u late", o.pkts, o.exact, o.early, o.late);
    return 0;
}
SC_TEST(t_cc_subpkt_pace, sc_subpkt_pace_body)

/* Liveness: a QP held by its pacing clock has a finite deadline (rule 16: the heap key is the earliest timer) and
 * leaves it cleanly - MODIFY to ERR while it waits flushes its work and disarms the deadline; a port down while it
 * waits does not strand it (it resumes on the other ports and completes). */
static int sc_pace_held(sc_pair *p) {
    mrc_conn *c = p->q[0][0].c;
    return c->in_ready && c->pace_deadline != MRC_TIME_NEVER;
}
static int sc_subpkt_live_one(sc_pair *p, int err) {
    static sc_pace o;
    mrc_conn *c;
    mrc__ccx *x;
    sc_defaults(p, g_seed + 4710u + (unsigned)err);
    p->region = 1u << 20;
    p->strict = !err;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_pace_tap;
    p->stop = sc_pace_held;
    SC_CHECK(p, sc_start(p) == 0);
    c = p->q[0][0].c;
    x = sc_pace_ccx(p);
    x->cwnd = x->p.maxwnd = 1050u;
    x->p.maxwnd_set = 1;
    SC_CHECK(p, sc_add(p, 0, 0, 0, 64u << 10, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, c->deadline <= c->pace_deadline && c->pace_deadline == x->pace_next && mrc_conn_check(c) == 0 &&
                     mrc_endpoint_next_deadline(p->ep[0]) <= c->pace_deadline,
              "held: deadline %llu, pace %llu, check %d", (unsigned long long)c->deadline,
              (unsigned long long)c->pace_deadline, mrc_conn_check(c));
    p->stop = 0;
    if (err) {
        mrc_conn_attr a;
        memset(&a, 0, sizeof a);
        a.state = MRC_QPS_ERR;
        SC_CHECK(p, mrc_conn_modify(c, &a, MRC_ATTR_STATE, sc_now(p)) == MRC_OK);
        /* no timer left armed (P36 lazy deadlines: its stale heap key may stay until it is reached) */
        SC_CHECKF(p, c->pace_deadline == MRC_TIME_NEVER && !c->t_armed && mrc_conn_check(c) == 0,
                  "ERR: pace %llu, deadline %llu, armed %u", (unsigned long long)c->pace_deadline,
                  (unsigned long long)c->deadline, (unsigned)c->t_armed);
        p->stop = sc_stop_never;
        (void)sc_run_until(p, sc_now(p) + SC_MS);
        SC_CHECKF(p, p->q[0][0].n_conn_err || p->q[0][0].done == p->q[0][0].nmsg, "ERR: the write was not flushed");
        return 0;
    }
    SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], 1, false, sc_now(p)) == MRC_OK);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_BOTH, 1, false) == MRC_OK);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECKF(p, o.pkts == 16 && !o.early, "%u data packets, %u early", o.pkts, o.early);
    return 0;
}
static int sc_subpkt_live_body(sc_pair *p) {
    if (sc_subpkt_live_one(p, 1)) return 1;
    sc_free(p);
    return sc_subpkt_live_one(p, 0);
}
SC_TEST(t_cc_subpkt_live, sc_subpkt_live_body)

/* Two QPs share one congestion context (same peer, same CC profile) whose window is below one packet. Both wait on
 * the context's READY list with nothing in flight; each holds its own pacing deadline (mrc__cc_block), so when one
 * goes to ERR the other is not left on the list without a deadline (a silent stall): it goes on by the pacing
 * clock - no RTO - and completes. */
static int sc_pace_any_held(sc_pair *p) {
    unsigned q;
    for (q = 0; q < p->nq; q++)
        if (p->q[0][q].c->pace_deadline != MRC_TIME_NEVER && p->q[0][q].c->in_ready) return 1;
    return 0;
}
static int sc_pace_other_done(sc_pair *p) {
    unsigned q;
    for (q = 0; q < p->nq; q++)
        if (p->q[0][q].c->state == MRC_QPS_RTS && p->q[0][q].done != p->q[0][q].nmsg) return 0;
    return 1;
}
static int sc_subpkt_shared_body(sc_pair *p) {
    mrc__ccx *x;
    mrc_conn_attr a;
    unsigned q, held = 0, other;
    sc_defaults(p, g_seed + 4730u);
    p->nq = 2;
    p->region = 1u << 20;
    p->strict = 0;
    p->stop = sc_pace_any_held;
    SC_CHECK(p, sc_start(p) == 0);
    x = sc_pace_ccx(p);
    SC_CHECK(p, x && x == mrc__conn_ccx(p->q[0][1].c)); /* one context for both */
    x->cwnd = x->p.maxwnd = 1050u;
    x->p.maxwnd_set = 1;
    for (q = 0; q < 2; q++) SC_CHECK(p, sc_add(p, 0, q, 0, 64u << 10, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    for (q = 0; q < 2; q++)
        if (p->q[0][q].c->pace_deadline != MRC_TIME_NEVER) held = q;
    other = 1u - held;
    SC_CHECKF(p, p->q[0][other].c->in_ready && !x->inflight && p->q[0][other].c->pace_deadline == x->pace_next,
              "QP %u holds the clock; the other is %s the READY list (pacing deadline %llu, clock %llu), %llu bytes in "
              "flight", held, p->q[0][other].c->in_ready ? "on" : "off",
              (unsigned long long)p->q[0][other].c->pace_deadline, (unsigned long long)x->pace_next,
              (unsigned long long)x->inflight);
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_ERR;
    SC_CHECK(p, mrc_conn_modify(p->q[0][held].c, &a, MRC_ATTR_STATE, sc_now(p)) == MRC_OK);
    SC_CHECK(p, mrc_conn_check(p->q[0][other].c) == 0);
    p->stop = sc_pace_other_done;
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, p->q[0][other].done == p->q[0][other].nmsg && !p->q[0][other].n_conn_err &&
                     sc_cstats(p, 0, other).rto_fired == 0,
              "QP %u: %u of %u writes done, %llu RTOs", other, p->q[0][other].done, p->q[0][other].nmsg,
              (unsigned long long)sc_cstats(p, 0, other).rto_fired);
    return 0;
}
SC_TEST(t_cc_subpkt_shared, sc_subpkt_shared_body)

/* Three QPs on one context (a window of 1/14 packet), all with work while a packet of the context is in flight: all
 * wait on the READY list for its acknowledgement, with no deadline of their own. The SACK empties the context and
 * wakes the list twice (acknowledgement, then SACK); each time the QP woken is held by the pacing clock and goes back
 * with its pacing deadline armed, and the wake-up stops there (mrc__cc_wake), so the third waits on the list with
 * nothing in flight and no deadline of its own: on the others'. fuzz_pair found this state from an empty corpus
 * (two QPs, one wake), and mrc_conn_check's rule 11 called it a stall; it is not one (the deadline held wakes the
 * list), and the rule now knows the shared wait. Every QP passes the check there, and all complete, no RTO. */
static int sc_pace_shared_wait(sc_pair *p) {
    unsigned q;
    for (q = 0; q < p->nq; q++) {
        mrc_conn *c = p->q[0][q].c;
        mrc__ccx *x = mrc__conn_ccx(c);
        if (c->in_ready && c->pace_deadline == MRC_TIME_NEVER && c->deadline == MRC_TIME_NEVER && x && !x->inflight)
            return 1;
    }
    return 0;
}
static void sc_pace_hold_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    mrc__ccx *x = sc_pace_ccx(p);
    (void)pkt, (void)len, (void)now;
    if (from == 0 && ti->payload_len && x) x->cwnd = x->p.maxwnd = 300u; /* 1/14 packet: 14 base RTTs per packet */
}
static int sc_pace_all_done(sc_pair *p) {
    unsigned q;
    for (q = 0; q < p->nq; q++)
        if (p->q[0][q].done != p->q[0][q].nmsg) return 0;
    return 1;
}
static int sc_subpkt_shared_wait_body(sc_pair *p) {
    mrc__ccx *x;
    mrc_time t_wait;
    unsigned q;
    sc_defaults(p, g_seed + 4740u);
    p->nq = 3;
    p->region = 1u << 20;
    p->stop = sc_pace_shared_wait;
    p->tap = sc_pace_hold_tap;
    SC_CHECK(p, sc_start(p) == 0);
    x = sc_pace_ccx(p);
    SC_CHECK(p, x && x == mrc__conn_ccx(p->q[0][1].c) && x == mrc__conn_ccx(p->q[0][2].c));
    x->cwnd = x->p.maxwnd = 300u;
    x->p.maxwnd_set = 1;
    for (q = 0; q < 3; q++) SC_CHECK(p, sc_add(p, 0, q, 0, 16u << 10, MRC_WR_WRITE, 0) == 0);
    SC_CHECKF(p, sc_run_until(p, SC_SEC) == 1, "no QP ever waited on another's pacing deadline");
    t_wait = sc_now(p);
    for (q = 0; q < 3; q++) {
        int rc = mrc_conn_check(p->q[0][q].c);
        SC_CHECKF(p, rc == 0, "QP %u: mrc_conn_check rule %d (READY %u, pacing deadline %llu, deadline %llu)", q, rc,
                  p->q[0][q].c->in_ready, (unsigned long long)p->q[0][q].c->pace_deadline,
                  (unsigned long long)p->q[0][q].c->deadline);
    }
    p->stop = sc_pace_all_done;
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    for (q = 0; q < 3; q++)
        SC_CHECKF(p, sc_cstats(p, 0, q).rto_fired == 0, "QP %u: %llu RTOs", q,
                  (unsigned long long)sc_cstats(p, 0, q).rto_fired);
    note("a QP waited on the other's pacing deadline at %.1f us; both done at %.1f us", (double)t_wait / 1e3,
         (double)sc_now(p) / 1e3);
    return 0;
}
SC_TEST(t_cc_subpkt_shared_wait, sc_subpkt_shared_wait_body)

const test_entry test_cc_nscc[] = {
    {"cc_nscc_defaults", t_cc_nscc_defaults},
    {"cc_nscc_fair", t_cc_nscc_fair},
    {"cc_nscc_proportional", t_cc_nscc_proportional},
    {"cc_nscc_fast", t_cc_nscc_fast},
    {"cc_nscc_md", t_cc_nscc_md},
    {"cc_nscc_trim_loss", t_cc_nscc_trim_loss},
    {"cc_nscc_quick_adapt", t_cc_nscc_quick_adapt},
    {"cc_nscc_penalty", t_cc_nscc_penalty},
    {"cc_nscc_base_rtt", t_cc_nscc_base_rtt},
    {"cc_wrap_vectors", t_cc_wrap_vectors},
    {"cc_wrap_pipeline", t_cc_wrap_pipeline},
    {"cc_subpkt_trim", t_cc_subpkt_trim},
    {"cc_subpkt_penalty", t_cc_subpkt_penalty},
    {"cc_subpkt_increase", t_cc_subpkt_increase},
    {"cc_subpkt_clock", t_cc_subpkt_clock},
    {"cc_subpkt_pace", t_cc_subpkt_pace},
    {"cc_subpkt_live", t_cc_subpkt_live},
    {"cc_subpkt_shared", t_cc_subpkt_shared},
    {"cc_subpkt_shared_wait", t_cc_subpkt_shared_wait},
    {"cc_lh_mark", t_cc_lh_mark},
    {NULL, NULL},
};
