/* tests/test.h - the test suite's internal header: included by mrc_test.c and by every tests/<module>.c.
 *
 * A module is one translation unit. Its tests are static functions returning 0 on pass, listed in its table
 * (const test_entry test_<module>[], ended by {NULL, NULL}); mrc_test.c's registry lists the tables in the order the
 * runner walks them. A test that is written but not in its table fails the build (-Wunused-function).
 *
 * The core: mrc_test.c is the implementation unit of mrc.h (MRC_IMPLEMENTATION), compiled once per build; modules
 * that use only the public API link against it. A white-box module (one that calls the core's private mrc__
 * functions: codec, ev_select, cc_nscc, live) defines MRC_STATIC and MRC_IMPLEMENTATION before including this header
 * and gets its own static copy of the core, of which the compiler keeps only what that module calls. Both copies
 * work on the same caller-owned structs (the core has no global state), so a white-box test may drive a connection
 * through the shared helpers and look inside it with mrc__ functions.
 *
 * The shared helpers: tests/util.c (ut_*: one endpoint, one connection and hand-built packets; typed header
 * comparison; the PRNG) and tests/harness.c (sc_*: two endpoints over the in-memory wire
 * tests/fixtures/mrc_wire.h, whose implementation is compiled there; ev_*: the controller event log and EV profile
 * helpers; ho_inject). With MRC_FASTCHECK (make fast-check) every unit that includes this header routes its
 * mrc_endpoint_recv / mrc_endpoint_poll_tx calls, the wire's included, through tests/fixtures/mrc_fastcheck.h.
 */
#ifndef MRC_TEST_H
#define MRC_TEST_H

#include "../mrc.h"
#ifdef MRC_FASTCHECK /* make fast-check: every recv and poll_tx runs general code and fast path, compared */
#include "fixtures/mrc_fastcheck.h"
#endif
#include "fixtures/mrc_wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================================================================
 * the runner (mrc_test.c)
 * ============================================================================================================== */
typedef struct { const char *name; int (*fn)(void); } test_entry;

extern uint64_t g_seed;     /* base seed (MRC_TEST_SEED); tests derive their own from it */
extern const char *g_test;  /* running test */
extern int g_verbose;       /* -v */
void fail_at(const char *file, int line, const char *what);
/* verbose notes a test wants to report (measured numbers); printed with -v */
void note(const char *fmt, ...);

#define CHECK(cond)                                 \
    do {                                            \
        if (!(cond)) {                              \
            fail_at(__FILE__, __LINE__, #cond);     \
            return 1;                               \
        }                                           \
    } while (0)
#define CHECK_EQ(a, b)                                                                                        \
    do {                                                                                                      \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                                 \
        if (va_ != vb_) {                                                                                     \
            char m_[256];                                                                                     \
            snprintf(m_, sizeof m_, "%s == %s (%lld vs %lld)", #a, #b, va_, vb_);                            \
            fail_at(__FILE__, __LINE__, m_);                                                                  \
            return 1;                                                                                         \
        }                                                                                                     \
    } while (0)
/* CHECK with a printf-style explanation printed on failure */
#define CHECKF(cond, ...)                           \
    do {                                            \
        if (!(cond)) {                              \
            fail_at(__FILE__, __LINE__, #cond);     \
            printf("    ");                         \
            printf(__VA_ARGS__);                    \
            printf("\n");                           \
            return 1;                               \
        }                                           \
    } while (0)

/* the modules' tables, in the runner's order (mrc_test.c) */
extern const test_entry test_codec[], test_packet[], test_state[], test_responder[], test_requester[],
    test_scenario[], test_scenario_edge[], test_ev_health[], test_ev_profile[], test_ev_select[], test_cc_nscc[],
    test_cc[], test_api[], test_hostile[], test_live[], test_burst[];

/* ================================================================================================================
 * tests/util.c: unit-test helpers (ut_*)
 * Wire vectors are hand-written from the layout tables of docs/PROTOCOL.md section 3.3 (never derived from the MRC__
 * layout macros); the responder's and the requester's reactions are tested with hand-built packets fed straight
 * into mrc_endpoint_recv (no wire). Helpers are prefixed ut_; tests are t_<area>_<what>.
 * ============================================================================================================== */
/* deterministic PRNG for tests (splitmix64) */
typedef struct { uint64_t s; } trng;
uint64_t trand(trng *r);
uint32_t trand_below(trng *r, uint32_t n);
#define UT_TRY(x)                \
    do {                         \
        if ((x) != 0) return 1;  \
    } while (0)
int ut_bytes_eq(const char *what, const uint8_t *got, const uint8_t *want, size_t n);
int ut_all(const uint8_t *p, size_t n, uint8_t v);
mrc_wire_opts ut_opts(unsigned mbit, unsigned msb_first, unsigned eshift);

/* ---- typed field comparison (prints the first differing field) --------------------------------------------- */
int ut_eq_bth(const mrc_bth *a, const mrc_bth *b);
int ut_eq_meth(const mrc_meth *a, const mrc_meth *b);
int ut_eq_tseth(const mrc_tseth *a, const mrc_tseth *b);
int ut_eq_reth(const mrc_reth *a, const mrc_reth *b);
int ut_eq_aeth(const mrc_aeth *a, const mrc_aeth *b);
int ut_eq_seth(const mrc_seth *a, const mrc_seth *b);
int ut_eq_cc(const mrc_cc_state *a, const mrc_cc_state *b);
int ut_eq_neth(const mrc_neth *a, const mrc_neth *b);
int ut_eq_peth(const mrc_peth *a, const mrc_peth *b);
int ut_eq_erth(const mrc_erth *a, const mrc_erth *b);
int ut_eq_eeth(const mrc_eeth *a, const mrc_eeth *b);
uint32_t ut_crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n);

/* ================================================================================================================
 * fixtures: one endpoint, one conn, one registered region between guard bands
 * ============================================================================================================== */
#define UT_GUARD 64u
#define UT_REGION 2048u
#define UT_MEM (UT_GUARD + UT_REGION + UT_GUARD)
#define UT_IOVA 0x0000123400000000ull /* above 2^32: a truncated VA would show */
#define UT_PEER_QPN 0x004321u
#define UT_T0 ((mrc_time)1000000)
#define UT_EV 0xC0DEu
#define UT_M_INIT (MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE)
#define UT_M_RTR                                                                                              \
    (MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU | MRC_ATTR_MPR_DEST |            \
     MRC_ATTR_MAX_WIMM_DEST)
#define UT_M_RTS                                                                                              \
    (MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT)

typedef struct {
    mrc_config cfg;
    mrc_endpoint ep;
    mrc_conn c;
    mrc_conn_attr attr;
    mrc_time now;
    uint32_t rkey;
    uint8_t mem[UT_MEM];  /* guard | region | guard */
    uint8_t snap[UT_MEM]; /* what mem must hold */
    /* placement hook record */
    int place_rc;
    unsigned place_calls;
    uint32_t place_rkey, place_len;
    uint64_t place_off;
    void *place_user;
    uint8_t place_first;
} ut_fix;
extern ut_fix ut_fx;
extern mrc_conn ut_conns[MRC_MAX_CONNS + 1];
void ut_cfg(mrc_config *cfg);
void ut_attr(mrc_conn_attr *a, uint32_t rq, uint32_t sq);
int ut_goto(mrc_conn *c, const mrc_conn_attr *base, unsigned state, mrc_time now);
int ut_place_hook(void *ud, uint32_t rkey, void *region_user, uint64_t offset, const uint8_t *src,
                  uint32_t len);
int ut_setup(ut_fix *f, const mrc_config *cfg, unsigned state, uint32_t rq, uint32_t sq);
int ut_mem_ok(const ut_fix *f, const char *what);
void ut_expect_place(ut_fix *f, uint64_t off, const uint8_t *p, uint32_t n);
mrc_rxinfo ut_ri(unsigned port, uint32_t ev);

/* ---- hand-built packets ------------------------------------------------------------------------------------ */
typedef struct {
    unsigned op;
    uint32_t qp, psn, rkey, dma_len, imm, plen;
    uint16_t pkey, msn, rqmsn, ts;
    uint8_t a, rtx, se, ts_on;
    int pad; /* -1: (4 - plen % 4) % 4 */
    uint64_t va;
    const uint8_t *pl;
} ut_data;
void ut_data_init(ut_data *d, const ut_fix *f, uint32_t psn, uint16_t msn, const uint8_t *pl, uint32_t plen);
size_t ut_build_data(uint8_t *buf, size_t cap, const mrc_wire_opts *o, const ut_data *d);
size_t ut_data_pkt(ut_fix *f, uint8_t *pkt, size_t cap, uint32_t psn, uint16_t msn, uint8_t a, uint8_t rtx);
size_t ut_build_sack(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t bth_psn, uint32_t cack,
                     int ack_off, int sack_off, uint64_t bitmap, uint32_t entropy, uint16_t ts, unsigned pr);
size_t ut_build_nack(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t bth_psn, uint32_t psn,
                     unsigned reason, uint16_t ts);
size_t ut_build_aeth(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t psn, unsigned syndrome,
                     uint32_t msn);
size_t ut_build_probe(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t psn, uint16_t ts);
int ut_poll(ut_fix *f, uint8_t *buf, size_t cap, mrc_txinfo *ti, mrc_pkt *k);
int ut_expect_drop(ut_fix *f, mrc_conn *c, const uint8_t *p, size_t n, const mrc_rxinfo *ri, unsigned reason,
                   const char *what);
int ut_expect_event(mrc_endpoint *ep, unsigned type, int want_status, mrc_event *out, const char *what);
int ut_expect_no_event(mrc_endpoint *ep, const char *what);

/* ---- requester helpers ------------------------------------------------------------------------------------- */
typedef struct {
    mrc_txinfo ti;
    mrc_pkt k;
    uint32_t pcrc;  /* CRC of the payload bytes */
    int pad_zero;   /* the pad bytes were zero */
    int len;        /* poll_tx's return value */
} ut_tx;
extern ut_tx ut_txs[300];
int ut_drain(ut_fix *f, ut_tx *out, int max);
mrc_write ut_wr(uint64_t id, uint32_t opcode, const void *buf, uint32_t len, uint64_t va, uint32_t flags);
int ut_post(ut_fix *f, uint64_t id, uint32_t opcode, const void *buf, uint32_t len, uint32_t flags);
extern uint8_t ut_src[65536];
void ut_src_init(void);
int ut_feed_sack(ut_fix *f, uint32_t cack, int ack_off, uint64_t bitmap, uint32_t entropy, uint16_t ts);
int ut_expect_psu(ut_fix *f, unsigned n, uint32_t mask, const char *what);
int ut_expect_nothing(ut_fix *f, const char *what);
int ut_feed_nack(ut_fix *f, uint32_t psn, unsigned reason, uint16_t ts);
int ut_feed_aeth(ut_fix *f, unsigned syndrome, uint32_t msn);

/* ================================================================================================================
 * tests/harness.c: the pair harness (sc_*), the EV helpers (ev_*), the attacker's injector (ho_inject)
 * ============================================================================================================== */
/* ================================================================================================================
 * scenarios: two endpoints over tests/fixtures/mrc_wire.h in virtual time
 *
 * The pair harness (sc_*): endpoint A (side 0) and B (side 1), nq connections each (conn q of A <-> conn q of B),
 * brought to RTS with p->attr[side]. Each side owns a source buffer (seeded pattern) and a registered destination
 * region with guard bytes before and after it (outside the MR). A message of side s's plan on conn q writes
 * src[s][off, off + len) to side 1 - s at the same offset, inside conn q's slice of the region. The destination
 * starts as src ^ 0x5A, so every byte tells whether it was written, and written correctly.
 *
 * The event pump pulls events from both endpoints after every wire step (and, with pump_in_taps, inside the wire
 * taps, i.e. at the exact moment between two packets) and checks as it goes:
 *   SEND_DONE  in work-request order; status OK means byte_len right and the bytes already in the peer's memory
 *   RECV_IMM   receive wr_ids in posting order; imm and byte_len of the peer's next Write-IMM; the bytes of that
 *              message and of every earlier message of the same connection already in memory
 *   CONN_ERROR recorded (fatal in strict mode, as is any non-OK status)
 * The refill keeps send queues fed from the plan and receive queues full. sc_run_until() runs the wire until the
 * stop hook (default: everything planned completed) or a virtual-time limit. On a failed check sc_dump() prints
 * the seed, the virtual time, per-connection and endpoint counters and the wire statistics.
 * ============================================================================================================== */
#define SC_MAXQ 16
#define SC_GUARD 256u
#define SC_GUARD_BYTE 0xE7u
#define SC_INIT_XOR 0x5Au
#define SC_PENDING 1 /* sc_msg.status until its SEND_DONE */
#define SC_US ((mrc_time)1000u)
#define SC_MS ((mrc_time)1000000u)
#define SC_SEC ((mrc_time)1000000000u)

typedef struct sc_pair sc_pair;

typedef struct sc_msg {
    uint32_t off, len, imm;
    uint8_t op;               /* MRC_WR_WRITE or MRC_WR_WRITE_IMM */
    uint8_t flags;            /* MRC_WR_UNSIGNALED, MRC_WR_SOLICITED */
    int16_t status;           /* SC_PENDING, then the SEND_DONE status */
    uint32_t va_adj;          /* added to the remote address when posted (aims a write elsewhere on purpose) */
    mrc_time t_post, t_done;
} sc_msg;

typedef struct sc_q { /* one connection of one side */
    sc_pair *p;
    int side;
    unsigned idx;
    mrc_conn *c;
    /* requester: the plan and its progress */
    sc_msg *msg;
    uint32_t nmsg, cap, posted, done; /* done = SEND_DONE events pulled */
    uint32_t *imm_idx;                /* plan indexes of the Write-IMMs, in order */
    uint32_t nimm, imm_cap;
    uint64_t npkts, nbytes;           /* data packets the plan needs (first transmissions), payload bytes */
    uint64_t base_rx_data, base_rx_bytes; /* this side's responder counters when the peer's plan was last cleared */
    /* responder: receives, and RECV_IMMs for the peer's plan */
    uint32_t recv_posted, recv_pulled, imm_ok, mem_ok;
    mrc_time t_last_imm;
    /* errors seen */
    uint32_t n_conn_err, n_send_err, n_recv_flush;
    int conn_err_status;
    mrc_time t_conn_err;
    /* EV state events seen (MRC_EVT_EV_STATE), and when the first ASSUMED_BAD came */
    uint32_t n_ev_bad, n_ev_good;
    mrc_time t_first_ev_bad;
} sc_q;

typedef int (*sc_filter_fn)(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                            mrc_time now);
typedef void (*sc_tap_fn)(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now);
typedef void (*sc_rx_fn)(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now);

struct sc_pair {
    uint64_t seed;
    mrc_config cfg[2];
    mrc_conn_attr attr[2];    /* per side: path_mtu, mpr_dest, max_wimm_dest, sq_psn, mpr, max_wimm, retry, timeout */
    mrc_wire_config wc;
    unsigned nq;
    size_t region;            /* destination bytes per side (split evenly among the nq connections) */
    /* options */
    int strict;               /* any CONN_ERROR or non-OK completion fails the run (default on) */
    int no_recv[2];           /* this side never posts receives */
    int pump_in_taps;         /* also pull events inside the wire taps */
    int hold;                 /* refill posts no writes */
    uint32_t max_post;        /* posted-not-completed writes per connection (0: the send queue size) */
    unsigned unsig_pct;       /* sc_plan_random: percent of writes posted unsignaled */
    int lax;                  /* content unchecked (undetected corruption): only order and counts */
    int rtr_only[2];          /* sc_connect leaves this side's connections in RTR (responder only) */
    int (*stop)(sc_pair *p);  /* run stops when it returns nonzero (default: sc_all_done) */
    sc_filter_fn filter;
    sc_tap_fn tap;
    sc_rx_fn rx;
    void *ud;
    int hash_on;
    uint64_t hash;
    mrc_time t0;              /* virtual time of the start (endpoints and wire) */
    uint64_t inj_rx[2], inj_drop[2]; /* packets an attacker fed straight to side s, and how many it dropped */
    uint8_t inj_ecn;          /* the ECN bits ho_inject's packets arrive with (default 0) */
    uint32_t keyed_rkey[2];   /* nonzero: side s registers its region under this caller-chosen rkey (reg_mr_key) */
    /* built by sc_start */
    mrc_endpoint *ep[2];
    sc_q q[2][SC_MAXQ];
    mrc_wire w;
    int w_ok;
    uint8_t *src[2], *mem[2], *cov[2];
    uint32_t rkey[2];
    uint64_t ntx[2];          /* packets each endpoint emitted (tap) */
    uint32_t n_peer_ports[2]; /* MRC_EVT_PEER_PORTS pulled per side, and the last mask */
    uint32_t peer_mask[2];
    mrc_time t_peer_ports[2];
    uint32_t n_ep_rsp[2], n_ep_timeout[2], n_ev_lost[2];
    /* first failure found by the pump or a hook */
    int fail;
    char failmsg[320];
};
void sc_failf(sc_pair *p, const char *fmt, ...);
mrc_time sc_now(const sc_pair *p);
size_t sc_slice(const sc_pair *p);
uint64_t sc_iova(int side);
void sc_dump(const sc_pair *p);

/* CHECK / CHECKF that also dump the pair */
#define SC_CHECK(p, cond)                       \
    do {                                        \
        if (!(cond)) {                          \
            fail_at(__FILE__, __LINE__, #cond); \
            sc_dump(p);                         \
            return 1;                           \
        }                                       \
    } while (0)
#define SC_CHECKF(p, cond, ...)                 \
    do {                                        \
        if (!(cond)) {                          \
            fail_at(__FILE__, __LINE__, #cond); \
            printf("    ");                     \
            printf(__VA_ARGS__);                \
            printf("\n");                       \
            sc_dump(p);                         \
            return 1;                           \
        }                                       \
    } while (0)
void sc_defaults(sc_pair *p, uint64_t seed);
void sc_set_links(sc_pair *p, int from, const mrc_wire_link *l);
void sc_set_ports(sc_pair *p, unsigned n);
int sc_connect(sc_pair *p, unsigned q);
uint64_t sc_fnv(uint64_t h, const void *d, size_t n);
int sc_is_data(unsigned op);
unsigned sc_qidx(const sc_pair *p, int s, uint32_t qpn);
void sc_check_emitted(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti);
void sc_fill_dst(sc_pair *p, int d);
int sc_start(sc_pair *p);
void sc_free(sc_pair *p);
int sc_add(sc_pair *p, int side, unsigned q, uint32_t off, uint32_t len, unsigned op, uint32_t imm);
int sc_plan_random(sc_pair *p, int side, unsigned q, unsigned n, uint32_t maxlen, unsigned imm_pct,
                   trng *r);
int sc_plan_seq(sc_pair *p, int side, unsigned q, unsigned n, uint32_t minlen, uint32_t maxlen,
                unsigned imm_pct, trng *r);
void sc_plan_clear(sc_q *x);
void sc_pump(sc_pair *p);
int sc_all_done(sc_pair *p);
int sc_stop_never(sc_pair *p);
int sc_run_until(sc_pair *p, mrc_time until);
int sc_mem_check_q(sc_pair *p, int d, unsigned qlo, unsigned qhi, char *why, size_t whylen);
int sc_mem_check(sc_pair *p, int d, char *why, size_t whylen);
mrc_conn_stats sc_cstats(const sc_pair *p, int s, unsigned q);
mrc_endpoint_stats sc_estats(const sc_pair *p, int s);
mrc_wire_stats sc_wstats(const sc_pair *p, int from);
int sc_check_clean(sc_pair *p);
int sc_decode(const sc_pair *p, const uint8_t *pkt, size_t len, mrc_pkt *k);

#define SC_MAXLOG 8192
typedef struct sc_txlog { /* A's transmissions: kind 0 new data, 1 retransmission, 2 tail-loss PROBE_REQ */
    uint32_t n;
    uint64_t tlps;            /* the conn's tx_probes (tail-loss probes) at the last logged probe */
    mrc_time t[SC_MAXLOG];
    uint32_t psn[SC_MAXLOG];
    uint8_t kind[SC_MAXLOG];
} sc_txlog;
void sc_txlog_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now);
int sc_exhaust_stop(sc_pair *p);
int ho_inject(sc_pair *p, int to, const uint8_t *pkt, size_t n, uint8_t port, uint32_t ev, uint32_t peer);

/* Each scenario is a body that may return early from a CHECK; the wrapper always frees. */
#define SC_TEST(name, body)                                 \
    static int name(void) {                                 \
        sc_pair *p_ = (sc_pair *)calloc(1, sizeof(sc_pair)); \
        int r_;                                             \
        if (!p_) return 1;                                  \
        r_ = body(p_);                                      \
        sc_free(p_);                                        \
        free(p_);                                           \
        return r_;                                          \
    }

/* ---- EV helpers ----------------------------------------------------------------------------------------------- */
#define EV_LOGN 4096
typedef struct ev_rec {
    mrc_time t;
    int side;
    mrc_event e;
} ev_rec;
extern ev_rec g_evlog[EV_LOGN];
extern unsigned g_evlog_n;
void ev_log_reset(void);
int ev_run_until(sc_pair *p, mrc_time until);
mrc_time ev_log_first(int s, uint32_t idx, uint32_t st, mrc_time t0);
unsigned ev_log_count(int s, unsigned type, uint32_t state);
mrc_time ev_rtt(const sc_pair *p);
double ev_in_rtts(const sc_pair *p, mrc_time t);
int ev_connect(sc_pair *p, unsigned q, uint64_t prof_a, uint64_t prof_b);
int ev_fmt_online(mrc_endpoint *ep, uint64_t id, unsigned mode, unsigned n, const uint8_t *w);
void ev_field(mrc_ev_field *f, uint32_t width, uint32_t init, uint32_t min, uint32_t max, uint32_t mask);
int ev_prof_offline(mrc_endpoint *ep, uint64_t id, unsigned mode, uint64_t fmt, uint32_t count,
                    uint32_t min_active, const mrc_ev_field *f, unsigned nf, mrc_time now);
int ev_prof_state(mrc_endpoint *ep, uint64_t id, unsigned state, mrc_time now);
int ev_gen_udp(mrc_endpoint *ep, uint64_t fmt_id, uint64_t id, uint32_t count, uint32_t min_active);
int ev_find(const mrc_conn *c, uint32_t ev, uint8_t port);
uint32_t ev_state(const mrc_conn *c, unsigned idx);
void ev_mkfmt(mrc_ev_fmt_attr *f, unsigned mode, unsigned n, const uint8_t *w);
int ev_vec(const char *what, const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nf, const uint8_t *abs,
           size_t abs_len, const uint8_t *want, unsigned want_bits);
int ev_exp_online(mrc_endpoint *ep, uint64_t id, uint64_t fmt_id, const mrc_ev_field *f, unsigned nf,
                  unsigned count, const uint8_t (*vals)[MRC_EV_BYTES], const uint8_t *ports);

#endif /* MRC_TEST_H */
