/* firmware/fw_test.c - the core on bare metal: two endpoints in one image, a lossy reordering wire between them,
 * every byte and every completion checked, and the core's instructions per data packet counted.
 *
 * Endpoint A writes into endpoint B's registered memory over one QP each. Every packet the core emits is copied
 * into a slot of an in-memory wire with its first byte at an address = 2 mod 4 (as behind a 14-byte Ethernet
 * header), headers encoded there by mrc_endpoint_poll_tx and decoded there by mrc_endpoint_recv. Time is virtual
 * (uint64_t ns) and jumps to the next arrival, deadline or send slot. Phases:
 *   lossy      mixed-size writes (0 B to 64 KiB, odd offsets, every third with immediate) over a wire that loses 5%
 *              of the packets each way and reorders the rest (1-5 us one way), SACK per 4: B's memory must equal
 *              A's source byte for byte, every completion MRC_OK in order, every immediate in order
 *   clean-1    the x86 bench's clean stream (bench/mrc_bench.c): 16 writes of 1 MiB in 4 KiB packets, every 4th with
 *              immediate, all posted at once, a SACK per data packet, no loss, no reordering
 *   clean-8    the same with ack.sack_every = 8
 * The clean phases count instructions around each core call (fw_platform.h: SysTick on Cortex-M4, minstret on
 * RV32; the cost of reading the counter calibrated out): recv + poll_tx per data packet sent is the figure the x86
 * bench calls ALL-IN; the payload placement (copies of >= 1 KiB inside the calls, timed inside our memcpy) is
 * excluded and reported apart; timers, events, posts and next_deadline are reported apart too.
 * Last, the image prints flash, static RAM, the stack high-water mark of the core's calls and sizeof the endpoints
 * and QPs, then a JSON line. Any failure prints FAIL and exits nonzero.
 *
 * Semihosting command line "size" (fw.mk's firmware-size): only clean-1, with fw_mark_begin/fw_mark_end called
 * after data packets 256 and 512 (then it exits), so a QEMU execution trace can find the per-packet code path.
 * "unaligned": an unaligned 32-bit load, which the strict-align image must trap (fw_run.sh checks it does).
 * "lossy seed=N": only the lossy phase, with the wire's and the core's seeds from N (more seeds by hand). */
#include "fw_config.h"
#define MRC_IMPLEMENTATION
#include "../mrc.h"
#include "fw_platform.h"
#include <stdarg.h>

#if defined(__GNUC__) && __GNUC__ >= 8
#define FW_NOINLINE __attribute__((noipa))
#else
#define FW_NOINLINE __attribute__((noinline))
#endif

/* ---- output: a tiny formatter over semihosting --------------------------------------------------------------- */
static char g_line[512];
static size_t g_len;

static void out_c(char c) {
    if (g_len + 1 >= sizeof g_line) {
        g_line[g_len] = 0;
        fw_puts(g_line);
        g_len = 0;
    }
    g_line[g_len++] = c;
    if (c == '\n') {
        g_line[g_len] = 0;
        fw_puts(g_line);
        g_len = 0;
    }
}
static void out_s(const char *s) {
    while (*s) out_c(*s++);
}
static void out_u64(uint64_t v) {
    char b[21];
    int i = 0;
    do { b[i++] = (char)('0' + v % 10u); v /= 10u; } while (v);
    while (i) out_c(b[--i]);
}
/* %s %d %u %x (32-bit), %L (uint64_t), %T (uint64_t tenths, printed X.Y), %C (uint64_t hundredths, X.YY), %% */
static void out_f(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    for (; *fmt; fmt++) {
        if (*fmt != '%') { out_c(*fmt); continue; }
        switch (*++fmt) {
        case 's': out_s(va_arg(ap, const char *)); break;
        case 'd': {
            int v = va_arg(ap, int);
            if (v < 0) { out_c('-'); out_u64((uint64_t)(-(int64_t)v)); }
            else out_u64((uint64_t)v);
            break;
        }
        case 'u': out_u64(va_arg(ap, unsigned)); break;
        case 'x': {
            unsigned v = va_arg(ap, unsigned);
            int i;
            for (i = 28; i >= 0; i -= 4) out_c("0123456789abcdef"[(v >> i) & 15u]);
            break;
        }
        case 'L': out_u64(va_arg(ap, uint64_t)); break;
        case 'T': {
            uint64_t v = va_arg(ap, uint64_t);
            out_u64(v / 10u);
            out_c('.');
            out_c((char)('0' + v % 10u));
            break;
        }
        case 'C': {
            uint64_t v = va_arg(ap, uint64_t);
            out_u64(v / 100u);
            out_c('.');
            out_c((char)('0' + v / 10u % 10u));
            out_c((char)('0' + v % 10u));
            break;
        }
        case '%': out_c('%'); break;
        default: out_c('?'); break;
        }
    }
    va_end(ap);
}

static const char *g_tag = "fw";
static int g_size_run, g_unaligned_run, g_lossy_only;
static void print_json(const char *result);

static void fail(const char *what, uint64_t a, uint64_t b) {
    out_f("%s: FAIL: %s (%L, %L)\n", g_tag, what, a, b);
    print_json("FAIL");
    fw_exit(1);
}
#define CHECK(cond, what, a, b) do { if (!(cond)) fail(what, (uint64_t)(a), (uint64_t)(b)); } while (0)

/* ---- deterministic randomness (the wire's own; the core has its seeded PRNG) ---------------------------------- */
static uint64_t g_rng;
static uint32_t rnd(void) {
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(g_rng >> 33);
}

/* ---- counting instructions around core calls -------------------------------------------------------------------- */
enum { K_RX, K_TX, K_TIMER, K_EVENT, K_POST, K_DEADLINE, K_N };
static uint64_t g_ticks[K_N], g_calls[K_N];
/* calibration: the empty span (ticks over CAL_REPS spans), the counter's rate, the copy timing's own cost */
#define CAL_REPS 4096u
#define CAL_LOOP 250000u
#define CAL_COPIES 64u
static uint64_t g_k_sum, g_cal_ticks, g_cal_insns;
static int64_t g_copy_extra_x1000; /* ticks x 1000 per timed copy spent in memcpy outside its own timing */

/* The core's stack: before each core call the words below the caller's stack pointer are painted, down to the
 * deepest any call went so far plus STK_MARGIN; after it the lowest word no longer painted says how deep this call
 * went. Exact for every call (setup calls too); a call that goes past its painted window is reported. Both run in the
 * calling function's frame (always_inline), outside the timed span. */
#define STK_MARGIN 512u
static uint32_t g_stk_depth;  /* the deepest a core call went below its caller's stack pointer (bytes) */
static uintptr_t g_stk_low;   /* the lowest address a core call wrote */
static int g_stk_over;        /* a call went past its painted window: g_stk_depth is a lower bound */
static const char *g_stk_fn = "";  /* the core function of the deepest call */
static int g_stk_on = 1;      /* off in the size run: the painting loops would swamp its execution trace */
__attribute__((always_inline)) static inline uintptr_t stk_paint(uintptr_t *win) {
    uintptr_t sp = fw_sp(), lo = (sp - g_stk_depth - STK_MARGIN) & ~(uintptr_t)3u;
    volatile uint32_t *w;
    if (!g_stk_on) lo = sp;
    if (lo < (uintptr_t)__stack_bottom) lo = (uintptr_t)__stack_bottom;
    for (w = (volatile uint32_t *)lo; (uintptr_t)w < sp; w++) *w = FW_STACK_PAINT;
    *win = lo;
    return sp;
}
__attribute__((always_inline)) static inline void stk_check(uintptr_t sp, uintptr_t win, const char *fn) {
    const volatile uint32_t *w = (const volatile uint32_t *)win;
    if (!g_stk_on) return;
    while ((uintptr_t)w < sp && *w == FW_STACK_PAINT) w++;
    if ((uintptr_t)w == win && (uintptr_t)w < sp) g_stk_over = 1;
    if (sp - (uintptr_t)w > g_stk_depth) {
        g_stk_depth = (uint32_t)(sp - (uintptr_t)w);
        g_stk_fn = fn;
    }
    if (!g_stk_low || (uintptr_t)w < g_stk_low) g_stk_low = (uintptr_t)w;
}
#define STK_CALL(fn, stmt)                                                                                            \
    do {                                                                                                              \
        uintptr_t win_, sp_ = stk_paint(&win_);                                                                       \
        stmt;                                                                                                         \
        stk_check(sp_, win_, fn);                                                                                     \
    } while (0)

#define SPAN_BEGIN(k, fn)                                                                                             \
    uint64_t t0_;                                                                                                     \
    const char *fn_ = fn;                                                                                             \
    uintptr_t win_, sp_ = stk_paint(&win_);                                                                           \
    fw_copy_watch = (k) + 1u;                                                                                         \
    t0_ = fw_ticks()
#define SPAN_END(k)                                                                                                   \
    do {                                                                                                              \
        uint64_t t1_ = fw_ticks();                                                                                    \
        fw_copy_watch = 0;                                                                                            \
        g_ticks[k] += t1_ - t0_;                                                                                      \
        g_calls[k]++;                                                                                                 \
        stk_check(sp_, win_, fn_);                                                                                    \
    } while (0)

static mrc_endpoint g_ep[2]; /* large and must not move: static */
static mrc_wire_opts g_wopts;  /* the endpoints' wire options: the harness reads the BTH it carries */
static mrc_conn g_qp[2];

static FW_NOINLINE int c_recv(int side, const uint8_t *p, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    int rc;
    SPAN_BEGIN(K_RX, "mrc_endpoint_recv");
    rc = mrc_endpoint_recv(&g_ep[side], p, len, ri, now);
    SPAN_END(K_RX);
    return rc;
}
static FW_NOINLINE int c_poll_tx(int side, uint8_t *buf, size_t cap, mrc_txinfo *ti, mrc_time now) {
    int rc;
    SPAN_BEGIN(K_TX, "mrc_endpoint_poll_tx");
    rc = mrc_endpoint_poll_tx(&g_ep[side], buf, cap, 0, ti, now);
    SPAN_END(K_TX);
    return rc;
}
static FW_NOINLINE int c_timeout(int side, mrc_time now) {
    int rc;
    SPAN_BEGIN(K_TIMER, "mrc_endpoint_on_timeout");
    rc = mrc_endpoint_on_timeout(&g_ep[side], now);
    SPAN_END(K_TIMER);
    return rc;
}
static FW_NOINLINE int c_poll_event(int side, mrc_event *ev) {
    int rc;
    SPAN_BEGIN(K_EVENT, "mrc_endpoint_poll_event");
    rc = mrc_endpoint_poll_event(&g_ep[side], ev);
    SPAN_END(K_EVENT);
    return rc;
}
static FW_NOINLINE mrc_time c_deadline(int side) {
    mrc_time t;
    SPAN_BEGIN(K_DEADLINE, "mrc_endpoint_next_deadline");
    t = mrc_endpoint_next_deadline(&g_ep[side]);
    SPAN_END(K_DEADLINE);
    return t;
}
static FW_NOINLINE int c_post_write(const mrc_write *w, mrc_time now) {
    int rc;
    SPAN_BEGIN(K_POST, "mrc_conn_post_write");
    rc = mrc_conn_post_write(&g_qp[0], w, now);
    SPAN_END(K_POST);
    return rc;
}
static FW_NOINLINE int c_post_recv(uint64_t wr_id, mrc_time now) {
    int rc;
    SPAN_BEGIN(K_POST, "mrc_conn_post_recv");
    rc = mrc_conn_post_recv(&g_qp[1], wr_id, now);
    SPAN_END(K_POST);
    return rc;
}
static FW_NOINLINE void c_empty(void) { /* what a span costs with nothing inside (calibration) */
    SPAN_BEGIN(K_N - 1, "");
    __asm__ volatile("" ::: "memory");
    SPAN_END(K_N - 1);
}

/* the marks a QEMU execution trace finds (firmware-size) */
static volatile unsigned g_mark;
FW_NOINLINE void fw_mark_begin(void);
FW_NOINLINE void fw_mark_end(void);
FW_NOINLINE void fw_mark_begin(void) { g_mark = 1; }
FW_NOINLINE void fw_mark_end(void) { g_mark = 2; }

static void calibrate(void) {
    uint64_t t0, t1, cal_out = 0, cal_in;
    unsigned i;
    uint8_t *src = __host_start, *dst = __host_start + 8192;
    /* the counter's rate: a loop of known length */
    fw_copy_watch = 1;
    t0 = fw_ticks();
    fw_count_loop(CAL_LOOP);
    t1 = fw_ticks();
    fw_copy_watch = 0;
    for (i = 0; i < CAL_REPS; i++) c_empty();
    g_k_sum = g_ticks[K_N - 1];
    g_ticks[K_N - 1] = g_calls[K_N - 1] = 0;
    g_cal_insns = fw_count_loop_insns(CAL_LOOP);
    g_cal_ticks = (t1 - t0) * CAL_REPS > g_k_sum ? ((t1 - t0) * CAL_REPS - g_k_sum) / CAL_REPS : 1u;
    /* a timed copy's own overhead: a 4 KiB copy timed from outside, less the inside timing and the empty span */
    memset(fw_copy_ticks, 0, sizeof fw_copy_ticks);
    memset(fw_copy_calls, 0, sizeof fw_copy_calls);
    for (i = 0; i < CAL_COPIES; i++) {
        fw_copy_watch = 1;
        t0 = fw_ticks();
        memcpy(dst, src + 2, 4096);
        t1 = fw_ticks();
        fw_copy_watch = 0;
        cal_out += t1 - t0;
    }
    cal_in = fw_copy_ticks[0];
    g_copy_extra_x1000 = ((int64_t)cal_out * 1000 - (int64_t)cal_in * 1000 -
                          (int64_t)(g_k_sum * 1000u * CAL_COPIES / CAL_REPS)) / (int64_t)CAL_COPIES;
    memset(fw_copy_ticks, 0, sizeof fw_copy_ticks);
    memset(fw_copy_calls, 0, sizeof fw_copy_calls);
}

/* ---- the wire ---------------------------------------------------------------------------------------------------- */
#define NSLOTS 20u
#define RESERVE 4u              /* slots A leaves free for B's acknowledgements */
#define SLOT_CAP (MRC_HDR_MAX + 4096 + 4)
#define DELAY_NS 1000u          /* one way */
#define LINK_GBPS 100u          /* A's link: one packet after the other (336 ns for 4 KiB) */
enum { P_DATA = 1, P_SACK, P_OTHER };
typedef struct slot {
    mrc_time at;
    uint32_t seq, len;
    uint8_t used, to, kind, spare;
    mrc_rxinfo ri;
    union { uint32_t w[(SLOT_CAP + 8) / 4]; uint8_t b[SLOT_CAP + 8]; } u; /* the packet starts at b + 2 */
} slot;
static slot g_wire[NSLOTS];
static unsigned g_wire_used;
static uint32_t g_seq;
#define SLOT_PKT(s) ((s)->u.b + 2)

static slot *wire_alloc(void) {
    unsigned i;
    for (i = 0; i < NSLOTS; i++)
        if (!g_wire[i].used) {
            g_wire[i].used = 1;
            g_wire_used++;
            return &g_wire[i];
        }
    return NULL;
}
static void wire_release(slot *s) {
    s->used = 0;
    g_wire_used--;
}
/* the earliest packet due by now (by arrival time, then by order sent), or NULL */
static slot *wire_due(mrc_time now) {
    slot *best = NULL;
    unsigned i;
    for (i = 0; i < NSLOTS; i++) {
        slot *s = &g_wire[i];
        if (!s->used || s->at > now) continue;
        if (!best || s->at < best->at || (s->at == best->at && s->seq - best->seq > 0x80000000u)) best = s;
    }
    return best;
}
static mrc_time wire_next(void) {
    mrc_time t = MRC_TIME_NEVER;
    unsigned i;
    for (i = 0; i < NSLOTS; i++)
        if (g_wire[i].used && g_wire[i].at < t) t = g_wire[i].at;
    return t;
}

/* ---- the phases -------------------------------------------------------------------------------------------------- */
typedef struct phase_cfg {
    const char *name;
    uint16_t loss_pm;        /* packets lost per 1000, each way */
    uint32_t jitter_ns;      /* extra one-way delay 0..jitter_ns (packets overtake each other) */
    uint16_t sack_every;
    int clean;               /* 1: the x86 clean stream (16 x 1 MiB), instructions counted */
    uint32_t psn_a, psn_b;   /* first PSNs (lossy: A's wraps through 0xFFFFFF) */
    uint64_t seed;
} phase_cfg;

typedef struct msg { uint32_t src_off, dst_off, len; int imm; } msg;
#define IOVA 0x10000000ull
#define CLEAN_MSG (1u << 20)
#define CLEAN_REGION (4u << 20)  /* 16 writes of 1 MiB wrap around 4 MiB, as the x86 bench's around 16 MiB */
#define LOSSY_REGION (2u << 20)
#define LOSSY_SKEW 3u            /* lossy: message i's source is at dst_off + 3 (no common alignment) */
#define HOST_SRC (__host_start + 64)
#define HOST_DST (__host_start + (8u << 20))
#define GUARD 64u

typedef struct fw_run {
    const phase_cfg *pc;
    uint32_t nmsgs, region, posted, done, outstanding, per_qp, imm_next, imm_total, imm_seen;
    uint32_t rkey;
    mrc_time now, a_free;
    int a_kick, b_kick;
    uint64_t data_pkts, sacks, other_pkts, lost, sent, ev_state, rtx_pkts;
    uint64_t ticks[K_N], calls[K_N], copy_ticks[K_N], copy_calls[K_N];
    uint64_t mark_at;
} fw_run;
static fw_run g_run;

/* lossy: message sizes in turn, back to back over the region (the last one cut to fit) */
static const uint32_t lossy_sizes[] = {1, 4096, 3, 64, 0, 1000, 4095, 4097, 8191, 12288, 65536, 200, 16385, 2, 40000};
#define N_SIZES (sizeof lossy_sizes / sizeof lossy_sizes[0])

/* message i of the phase */
static void msg_get(const fw_run *r, uint32_t i, msg *m) {
    if (r->pc->clean) { /* the x86 clean stream: 1 MiB each, every 4th with immediate */
        m->dst_off = m->src_off = (i * CLEAN_MSG) % CLEAN_REGION;
        m->len = CLEAN_MSG;
        m->imm = i % 4u == 3u;
    } else {
        uint32_t k, cycle = 0, off = 0;
        for (k = 0; k < N_SIZES; k++) {
            cycle += lossy_sizes[k];
            if (k < i % N_SIZES) off += lossy_sizes[k];
        }
        off += i / N_SIZES * cycle;
        m->len = lossy_sizes[i % N_SIZES];
        if (m->len > LOSSY_REGION - off) m->len = LOSSY_REGION - off;
        m->dst_off = off;
        m->src_off = off + LOSSY_SKEW;
        m->imm = i % 3u == 2u;
    }
}

static void plan_phase(fw_run *r) {
    uint32_t i;
    msg m;
    if (r->pc->clean) {
        r->nmsgs = g_size_run ? 3u : 16u;
        r->region = r->nmsgs * CLEAN_MSG < CLEAN_REGION ? r->nmsgs * CLEAN_MSG : CLEAN_REGION;
        r->per_qp = MRC_MAX_SQ;
    } else {
        r->region = LOSSY_REGION;
        r->per_qp = 12u;
        for (i = 0;; i++) {
            msg_get(r, i, &m);
            if (m.dst_off + m.len >= LOSSY_REGION) break;
        }
        r->nmsgs = i + 1u;
    }
    for (i = 0; i < r->nmsgs; i++) {
        msg_get(r, i, &m);
        r->imm_total += m.imm ? 1u : 0u;
    }
}

static void setup(fw_run *r) {
    unsigned s;
    uint32_t i, *w;
    int rc;
    for (s = 0; s < 2; s++) {
        mrc_config cfg;
        STK_CALL("mrc_config_default", mrc_config_default(&cfg));
        cfg.seed = r->pc->seed + s; /* every random choice of the core derives from the seed */
        cfg.auto_ev.per_port = FW_EVS_PER_PORT;
        cfg.ack.sack_every = r->pc->sack_every;
        g_wopts = cfg.wire;
        STK_CALL("mrc_endpoint_init", rc = mrc_endpoint_init(&g_ep[s], &cfg, 0));
        CHECK(rc == MRC_OK, "mrc_endpoint_init", s, (uint32_t)-rc);
        memset(&g_qp[s], 0, sizeof g_qp[s]);
        STK_CALL("mrc_conn_init", rc = mrc_conn_init(&g_ep[s], &g_qp[s], 0));
        CHECK(rc == MRC_OK, "mrc_conn_init", s, (uint32_t)-rc);
    }
    /* A's source: a seeded pattern; B's region (and a guard after it): zero */
    g_rng = r->pc->seed * 7919u + 1u;
    w = (uint32_t *)(void *)__host_start;
    for (i = 0; i < (CLEAN_REGION + 256u) / 4u; i++) w[i] = rnd() ^ (i << 16);
    memset(HOST_DST, 0, r->region + GUARD);
    STK_CALL("mrc_endpoint_reg_mr",
             rc = mrc_endpoint_reg_mr(&g_ep[1], HOST_DST, IOVA, r->region, MRC_ACCESS_REMOTE_WRITE, NULL, &r->rkey));
    CHECK(rc == MRC_OK, "mrc_endpoint_reg_mr", 0, (uint32_t)-rc);
    for (s = 0; s < 2; s++) {
        mrc_conn_attr a;
        STK_CALL("mrc_conn_attr_default", mrc_conn_attr_default(&a));
        a.dest_qpn = mrc_conn_qpn(&g_qp[1 - s]);
        a.sq_psn = s ? r->pc->psn_b : r->pc->psn_a;
        a.rq_psn = s ? r->pc->psn_a : r->pc->psn_b;
        a.peer = 1; /* each side calls the other NIC "peer 1" */
        STK_CALL("mrc_conn_connect", rc = mrc_conn_connect(&g_qp[s], &a, 0));
        if (rc != MRC_OK) {
            mrc_detail d;
            mrc_endpoint_last_error(&g_ep[s], &d);
            fail("mrc_conn_connect (detail code, attr)", d.code, d.attr);
        }
    }
    memset(g_wire, 0, sizeof g_wire);
    g_wire_used = 0;
    g_seq = 0;
    g_rng = r->pc->seed ^ 0x5DEECE66Dull;
}

static void post_more(fw_run *r) {
    while (r->outstanding < r->per_qp && r->posted < r->nmsgs) {
        msg m;
        mrc_write w;
        int rc;
        msg_get(r, r->posted, &m);
        memset(&w, 0, sizeof w);
        w.wr_id = r->posted;
        w.opcode = m.imm ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        w.buf = HOST_SRC + m.src_off;
        w.len = m.len;
        w.remote_va = IOVA + m.dst_off;
        w.rkey = r->rkey;
        w.imm = 0xA0000000u ^ r->posted;
        if (m.imm) {
            rc = c_post_recv(r->posted, r->now); /* B: a receive for the immediate */
            CHECK(rc == MRC_OK, "mrc_conn_post_recv", r->posted, (uint32_t)-rc);
        }
        rc = c_post_write(&w, r->now);
        CHECK(rc == MRC_OK, "mrc_conn_post_write", r->posted, (uint32_t)-rc);
        r->posted++;
        r->outstanding++;
        r->a_kick = 1;
    }
}

/* one poll_tx of side into a new wire slot; returns the kind sent (0: nothing, -1: no free slot) */
static int send_one(fw_run *r, int side) {
    slot *s = wire_alloc();
    uint8_t *p;
    mrc_txinfo ti;
    int n, kind;
    uint32_t len;
    if (!s) return -1;
    p = SLOT_PKT(s);
    CHECK(((uintptr_t)p & 3u) == 2u, "a wire slot is not 2 bytes off word alignment", (uintptr_t)p, 0);
    n = c_poll_tx(side, p, SLOT_CAP, &ti, r->now);
    CHECK(n >= 0, "mrc_endpoint_poll_tx", side, (uint32_t)-n);
    if (n == 0) {
        wire_release(s);
        return 0;
    }
    len = (uint32_t)n + ti.payload_len + ti.pad;
    CHECK(len <= SLOT_CAP, "a packet longer than a wire slot", len, SLOT_CAP);
    if (ti.payload_len) memcpy(p + n, ti.payload, ti.payload_len); /* the adapter's DMA from host memory */
    if (ti.pad) memset(p + (uint32_t)n + ti.payload_len, 0, ti.pad);
    kind = ti.opcode >= MRC_OP_WRITE_FIRST && ti.opcode <= MRC_OP_WRITE_ONLY_IMM ? P_DATA
           : ti.opcode == MRC_OP_SACK                                           ? P_SACK
                                                                                : P_OTHER;
    CHECK(kind != P_DATA || side == 0, "B sent data", ti.opcode, 0);
    r->sent++;
    if (kind == P_DATA) {
        mrc_bth bth;
        r->data_pkts++;
        /* retransmissions seen on the wire (the BTH's RTX bit): the firmware build counts none in the core. Only in
         * the lossy phase: the clean ones have none, and their traced window (make firmware-size) would count the
         * decoder among the core's per-packet functions */
        if (!r->pc->clean && mrc_bth_decode(p, (size_t)n, &g_wopts, &bth) > 0 && bth.rtx) r->rtx_pkts++;
        if (g_size_run && r->data_pkts == 256u) fw_mark_begin();
        if (g_size_run && r->data_pkts == 512u) { /* the trace has what it needs: stop here */
            fw_mark_end();
            out_f("%s: size run: marks around data packets 257..512\n", g_tag);
            fw_exit(0);
        }
        r->a_free = r->now + (((uint64_t)len + MRC_NOMINAL_HDR) * 8u + LINK_GBPS - 1u) / LINK_GBPS;
    } else if (kind == P_SACK) {
        r->sacks++;
    } else {
        r->other_pkts++;
    }
    if (r->pc->loss_pm && rnd() % 1000u < r->pc->loss_pm) {
        r->lost++;
        wire_release(s);
        return kind;
    }
    s->at = (side == 0 ? r->a_free : r->now) + DELAY_NS + (r->pc->jitter_ns ? rnd() % r->pc->jitter_ns : 0u);
    s->seq = g_seq++;
    s->len = len;
    s->to = (uint8_t)(1 - side);
    s->kind = (uint8_t)kind;
    memset(&s->ri, 0, sizeof s->ri);
    s->ri.port = ti.port; /* plane p of A is wired to plane p of B */
    s->ri.ev = ti.ev;
    s->ri.dscp = ti.dscp;
    s->ri.peer = 1;
    return kind;
}

/* B: every packet it has, out at once (a real adapter polls until 0) */
static void drain_b(fw_run *r) {
    int k;
    r->b_kick = 0;
    while ((k = send_one(r, 1)) > 0) {}
    if (k < 0) r->b_kick = 1; /* the wire is full: again when a slot frees */
}

static void events(fw_run *r, int side) {
    mrc_event ev;
    int n;
    while ((n = c_poll_event(side, &ev)) > 0) {
        msg m;
        if (ev.type == MRC_EVT_EV_STATE && ev.status == MRC_OK) { /* path news: not an error */
            r->ev_state++;
            continue;
        }
        if (side == 0) {
            CHECK(ev.type == MRC_EVT_SEND_DONE && ev.conn == &g_qp[0], "A: unexpected event (type, status)", ev.type,
                  (uint32_t)-ev.status);
            CHECK(r->done < r->nmsgs, "A: more completions than writes", r->done, r->nmsgs);
            msg_get(r, r->done, &m);
            CHECK(ev.status == MRC_OK, "A: SEND_DONE not OK (wr_id, -status)", ev.wr_id, (uint32_t)-ev.status);
            CHECK(ev.wr_id == r->done, "A: SEND_DONE out of order (wr_id, expected)", ev.wr_id, r->done);
            CHECK(ev.byte_len == m.len, "A: SEND_DONE byte_len (got, expected)", ev.byte_len, m.len);
            r->done++;
            r->outstanding--;
            post_more(r);
        } else {
            CHECK(ev.type == MRC_EVT_RECV_IMM && ev.conn == &g_qp[1], "B: unexpected event (type, status)", ev.type,
                  (uint32_t)-ev.status);
            for (;; r->imm_next++) {
                CHECK(r->imm_next < r->nmsgs, "B: more immediates than Write-IMMs", ev.wr_id, r->imm_seen);
                msg_get(r, r->imm_next, &m);
                if (m.imm) break;
            }
            CHECK(ev.status == MRC_OK, "B: RECV_IMM not OK (wr_id, -status)", ev.wr_id, (uint32_t)-ev.status);
            CHECK(ev.wr_id == r->imm_next, "B: RECV_IMM out of order (wr_id, expected)", ev.wr_id, r->imm_next);
            CHECK(ev.imm == (0xA0000000u ^ r->imm_next), "B: RECV_IMM value (got, expected)", ev.imm,
                  0xA0000000u ^ r->imm_next);
            CHECK(ev.byte_len == m.len, "B: RECV_IMM byte_len (got, expected)", ev.byte_len, m.len);
            r->imm_next++;
            r->imm_seen++;
        }
    }
    CHECK(n == 0, "mrc_endpoint_poll_event", side, (uint32_t)-n);
}

static void transfer(fw_run *r) {
    uint64_t iter;
    int b_ev = 0, a_ev = 0;
    post_more(r);
    for (iter = 0;; iter++) {
        mrc_time next, t;
        slot *s;
        int busy = 0, rc;
        CHECK(iter < 50000000u, "no end after 50M steps (done, writes)", r->done, r->nmsgs);
        /* packets due, in arrival order; B answers each at once */
        while ((s = wire_due(r->now)) != NULL) {
            int to = s->to;
            busy = 1;
            rc = c_recv(to, SLOT_PKT(s), s->len, &s->ri, r->now);
            CHECK(rc == MRC_OK || rc == MRC_ERR_DROP, "mrc_endpoint_recv", to, (uint32_t)-rc);
            if (!r->pc->loss_pm) CHECK(rc == MRC_OK, "clean wire: a packet dropped by the core (side, kind)", to,
                                       s->kind);
            wire_release(s);
            if (to == 1) {
                b_ev = 1;
                drain_b(r);
            } else {
                r->a_kick = a_ev = 1;
            }
        }
        if (r->b_kick) drain_b(r);
        if (c_deadline(1) <= r->now) {
            CHECK(c_timeout(1, r->now) == MRC_OK, "mrc_endpoint_on_timeout", 1, 0);
            busy = b_ev = 1;
            drain_b(r);
        }
        if (c_deadline(0) <= r->now) {
            CHECK(c_timeout(0, r->now) == MRC_OK, "mrc_endpoint_on_timeout", 0, 0);
            busy = r->a_kick = a_ev = 1;
        }
        if (b_ev) { b_ev = 0; events(r, 1); }
        if (a_ev) { a_ev = 0; events(r, 0); }
        if (r->done == r->nmsgs && r->imm_seen == r->imm_total) break;
        /* A: one packet per slot of its link while it has something and the wire has room */
        if (r->a_kick && r->now >= r->a_free && g_wire_used + RESERVE < NSLOTS) {
            int k = send_one(r, 0);
            busy = 1;
            if (k == 0) r->a_kick = 0;
        }
        /* the next instant something happens */
        next = wire_next();
        if ((t = c_deadline(0)) < next) next = t;
        if ((t = c_deadline(1)) < next) next = t;
        if (r->a_kick && g_wire_used + RESERVE < NSLOTS && (t = r->a_free > r->now ? r->a_free : r->now) < next)
            next = t;
        CHECK(next != MRC_TIME_NEVER, "stalled: nothing in flight, no timer (done, writes)", r->done, r->nmsgs);
        if (next > r->now) r->now = next;
        else if (!busy) r->now++; /* a deadline left in the past: never spin */
        CHECK(r->now < 10000000000ull, "not done after 10 s of virtual time (done, writes)", r->done, r->nmsgs);
    }
}

static void verify(fw_run *r) {
    const uint8_t *src = HOST_SRC, *dst = HOST_DST;
    uint32_t i, skew = r->pc->clean ? 0u : LOSSY_SKEW;
    CHECK(mrc_conn_state(&g_qp[0]) == MRC_QPS_RTS && mrc_conn_state(&g_qp[1]) == MRC_QPS_RTS, "a QP left RTS",
          mrc_conn_state(&g_qp[0]), mrc_conn_state(&g_qp[1]));
    CHECK(r->done == r->nmsgs, "writes completed", r->done, r->nmsgs);
    CHECK(r->imm_seen == r->imm_total, "immediates received", r->imm_seen, r->imm_total);
    for (i = 0; i < r->region; i++)
        if (dst[i] != src[i + skew]) fail("B's memory differs from A's source at byte (offset, value)", i, dst[i]);
    for (i = 0; i < GUARD; i++) CHECK(dst[r->region + i] == 0, "a byte written past B's region", i, dst[r->region + i]);
#ifndef MRC_NO_STATS /* (the firmware build, fw.mk's FW_BUILD, counts nothing but drops: the bytes are checked above) */
    if (r->pc->clean) {
        mrc_conn_stats sb;
        mrc_conn_stats_get(&g_qp[1], &sb);
        CHECK(sb.rx_bytes_placed == (uint64_t)r->nmsgs * CLEAN_MSG, "bytes placed (placed, written)",
              sb.rx_bytes_placed, (uint64_t)r->nmsgs * CLEAN_MSG);
    }
#endif
}

static void run_phase(fw_run *r, const phase_cfg *pc) {
    unsigned k;
    memset(r, 0, sizeof *r);
    r->pc = pc;
    plan_phase(r);
    setup(r);
    for (k = 0; k < K_N; k++) g_ticks[k] = g_calls[k] = 0;
    memset(fw_copy_ticks, 0, sizeof fw_copy_ticks);
    memset(fw_copy_calls, 0, sizeof fw_copy_calls);
    transfer(r);
    for (k = 0; k < K_N; k++) {
        r->ticks[k] = g_ticks[k];
        r->calls[k] = g_calls[k];
        r->copy_ticks[k] = fw_copy_ticks[k];
        r->copy_calls[k] = fw_copy_calls[k];
    }
    verify(r);
}

/* instructions x 1000 of the categories in mask, the timed copies taken out (copies = 1) or only them (copies = 2) */
static int64_t instr_x1000(const fw_run *r, unsigned mask, int copies) {
    int64_t t = 0;
    unsigned k;
    for (k = 0; k < K_N; k++) {
        int64_t copy = (int64_t)r->copy_ticks[k] * 1000 + (int64_t)r->copy_calls[k] * g_copy_extra_x1000;
        if (!(mask & (1u << k))) continue;
        if (copies == 2) t += copy;
        else t += (int64_t)r->ticks[k] * 1000 - (int64_t)(r->calls[k] * g_k_sum * 1000u / CAL_REPS) - (copies ? copy : 0);
    }
    return t * (int64_t)g_cal_insns / (int64_t)g_cal_ticks;
}
/* per data packet, in tenths */
static uint64_t per_pkt(const fw_run *r, unsigned mask, int copies) {
    int64_t v = instr_x1000(r, mask, copies);
    if (v < 0 || !r->data_pkts) return 0;
    return (uint64_t)(v / (int64_t)r->data_pkts + 50) / 100u;
}
#define M_ALLIN ((1u << K_RX) | (1u << K_TX))
#define M_ALL ((1u << K_N) - 1u)

/* ---- results ---------------------------------------------------------------------------------------------------- */
static phase_cfg ph_lossy = {"lossy", 50, 4000, 4, 0, 0xFFFF00u, 0x7FFFF0u, 1001}; /* seed=N changes the seed */
static const phase_cfg ph_clean1 = {"clean-1", 0, 0, 1, 1, 0x1000u, 0x800000u, 42};
static const phase_cfg ph_clean8 = {"clean-8", 0, 0, 8, 1, 0x1000u, 0x800000u, 42};
static uint64_t g_sack1, g_sack8, g_sack1_all, g_sack8_all, g_copy1;
static uint32_t g_flash, g_ram, g_stack_hw, g_stack_img, g_epqp;

static void print_json(const char *result) {
    if (g_size_run) return;
    out_f("{\"bench\":\"firmware\",\"target\":\"%s\",\"variant\":\"%s\",\"flash\":%u,\"ram\":%u,\"stack_hw\":%u,"
          "\"instr_per_pkt_sack1\":%T,\"instr_per_pkt_sack8\":%T,"
          "\"instr_per_pkt_sack1_all_calls\":%T,\"instr_per_pkt_sack8_all_calls\":%T,\"copy_per_pkt\":%T,"
          "\"endpoints_qps_bytes\":%u,\"result\":\"%s\"}\n",
          fw_target, fw_variant, g_flash, g_ram, g_stack_hw, g_sack1, g_sack8, g_sack1_all, g_sack8_all, g_copy1,
          g_epqp, result);
}

static void memory_figures(void) {
    const uint32_t *w = (const uint32_t *)(const void *)__stack_bottom;
    uintptr_t low;
    while ((const uint8_t *)w < __stack_top && *w == FW_STACK_PAINT) w++;
    low = (uintptr_t)w;
    g_flash = (uint32_t)(__flash_end - __flash_start);
    g_ram = (uint32_t)(__bss_end - __data_start);
    if (g_stk_low && g_stk_low < low) low = g_stk_low;
    g_stack_img = (uint32_t)((uintptr_t)__stack_top - low);
    g_stack_hw = g_stk_depth;
    CHECK(!g_stk_over, "a core call went past its painted stack window (bytes at least)", g_stk_depth, STK_MARGIN);
    g_epqp = (uint32_t)(2u * sizeof(mrc_endpoint) + 2u * sizeof(mrc_conn));
}

static void report_clean(const fw_run *r) {
    out_f("%s: %s: %u writes of 1 MiB (%u with immediate), %L data packets, %L SACKs, %L other packets: "
          "instructions per data packet %T (recv %T, poll_tx %T; the figure the x86 bench calls ALL-IN), "
          "all core calls %T (timers %T, events %T, posts %T, next_deadline %T); payload copy %T (not included, "
          "%L copies)\n",
          g_tag, r->pc->name, r->nmsgs, r->imm_total, r->data_pkts, r->sacks, r->other_pkts, per_pkt(r, M_ALLIN, 1),
          per_pkt(r, 1u << K_RX, 1), per_pkt(r, 1u << K_TX, 1), per_pkt(r, M_ALL, 1),
          per_pkt(r, 1u << K_TIMER, 1), per_pkt(r, 1u << K_EVENT, 1), per_pkt(r, 1u << K_POST, 1),
          per_pkt(r, 1u << K_DEADLINE, 1), per_pkt(r, M_ALL, 2), r->copy_calls[K_RX] + r->copy_calls[K_TX]);
}

/* the command line has w; *num (when given) gets the decimal number right after it */
static int has_word(const char *s, const char *w, uint64_t *num) {
    size_t i, n = 0;
    while (w[n]) n++;
    for (; *s; s++) {
        for (i = 0; i < n && s[i] == w[i]; i++) {}
        if (i == n) {
            if (num)
                for (*num = 0, s += n; *s >= '0' && *s <= '9'; s++) *num = *num * 10u + (uint64_t)(*s - '0');
            return 1;
        }
    }
    return 0;
}

int fw_main(void) {
    static char tag[48], cmd[64];
    char *p = tag;
    const char *s;
    fw_run *r = &g_run;
    for (s = "fw "; *s;) *p++ = *s++;
    for (s = fw_target; *s;) *p++ = *s++;
    *p++ = '/';
    for (s = fw_variant; *s;) *p++ = *s++;
    *p = 0;
    g_tag = tag;
    if (fw_cmdline(cmd, sizeof cmd) == 0) {
        uint64_t seed;
        g_size_run = has_word(cmd, "size", NULL);
        g_unaligned_run = has_word(cmd, "unaligned", NULL);
        g_lossy_only = has_word(cmd, "lossy", NULL);
        if (has_word(cmd, "seed=", &seed)) ph_lossy.seed = seed;
    }
    if (g_unaligned_run) { /* the alignment trap's own check (fw.mk runs the strict image with it): must fault */
        volatile const uint32_t *u = (volatile const uint32_t *)((uintptr_t)g_line | 1u);
        out_f("%s: an unaligned 32-bit load from 0x%x: %x\n", g_tag, (unsigned)(uintptr_t)u, (unsigned)*u);
        out_f("%s: no fault\n", g_tag);
        return 2;
    }

    if (g_size_run) { /* the clean phase until data packet 512 (send_one exits there) */
        g_cal_insns = g_cal_ticks = 1;
        g_stk_on = 0;
        run_phase(r, &ph_clean1);
        out_f("%s: size run: the marks were not reached\n", g_tag);
        return 1;
    }
    calibrate();
    out_f("%s: counter: a loop of %L instructions took %L ticks (%C instructions per tick); an empty span: %L ticks "
          "per %u spans, subtracted from every call\n",
          g_tag, g_cal_insns, g_cal_ticks, (g_cal_insns * 100u + g_cal_ticks / 2u) / g_cal_ticks, g_k_sum, CAL_REPS);
    out_f("%s: config: %u ports, %u QPs, %u EVs per QP (%u per port), %u-PSN window, SQ/RQ %u/%u, %u pool blocks; "
          "sizeof(mrc_endpoint) %u, sizeof(mrc_conn) %u: 2 endpoints + 2 QPs = %u B\n",
          g_tag, MRC_MAX_PORTS, MRC_MAX_CONNS, MRC_MAX_EVS, FW_EVS_PER_PORT, MRC_MAX_INFLIGHT, MRC_MAX_SQ, MRC_MAX_RQ,
          MRC_POOL_BLOCKS, (unsigned)sizeof(mrc_endpoint), (unsigned)sizeof(mrc_conn),
          (unsigned)(2u * sizeof(mrc_endpoint) + 2u * sizeof(mrc_conn)));

    run_phase(r, &ph_lossy);
    out_f("%s: lossy: %u writes (%u with immediate, 0 B to 64 KiB, unaligned), %u B; %u/1000 lost each way, "
          "reordered (1-%u us one way), SACK per %u; %L packets sent, %L lost, %L data packets (%L retransmitted), "
          "%L EV state events, %L us virtual: bytes equal, completions OK in order, %u immediates in order: PASS\n",
          g_tag, r->nmsgs, r->imm_total, r->region, r->pc->loss_pm, (DELAY_NS + r->pc->jitter_ns) / 1000u,
          r->pc->sack_every, r->sent, r->lost, r->data_pkts, r->rtx_pkts, r->ev_state, r->now / 1000u, r->imm_seen);
    if (g_lossy_only) { /* by hand: more seeds of the lossy phase (-semihosting-config ...,arg=lossy,arg=seed=N) */
        out_f("%s: lossy seed %L: PASS\n", g_tag, ph_lossy.seed);
        return 0;
    }

    run_phase(r, &ph_clean1);
    g_sack1 = per_pkt(r, M_ALLIN, 1);
    g_sack1_all = per_pkt(r, M_ALL, 1);
    g_copy1 = per_pkt(r, M_ALL, 2);
    report_clean(r);
    run_phase(r, &ph_clean8);
    g_sack8 = per_pkt(r, M_ALLIN, 1);
    g_sack8_all = per_pkt(r, M_ALL, 1);
    report_clean(r);

    memory_figures();
    out_f("%s: memory: flash %u B (.text %u + .rodata %u + .data %u), static RAM %u B (.data + .bss), stack %u B "
          "reserved: %u of %u B SRAM; endpoints + QPs %u B; stack high-water: %u B below the caller's stack "
          "pointer in the deepest core call (%s; %u B for the whole image)\n",
          g_tag, g_flash, (unsigned)(__text_end - __text_start), (unsigned)(__rodata_end - __rodata_start),
          (unsigned)(__data_end - __data_start), g_ram, (unsigned)(__stack_top - __stack_bottom),
          (unsigned)(__sram_end - __sram_start), 256u * 1024u, g_epqp, g_stack_hw, g_stk_fn, g_stack_img);
    out_f("%s: PASS\n", g_tag);
    print_json("PASS");
    return 0;
}
