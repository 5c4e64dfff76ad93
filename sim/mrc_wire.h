/* mrc_wire.h - deterministic, seeded, virtual-time in-process wire between two mrc_endpoints (test infrastructure).
 *
 * USAGE
 *   In exactly one C or C++ file:       #define MRC_WIRE_IMPLEMENTATION
 *                                       #include "sim/mrc_wire.h"
 *   Everywhere else just include it. It includes ../mrc.h unless mrc.h was included before. MRC_WIRE_STATIC makes
 *   every API function static to that translation unit.
 *
 *   Endpoint A (index 0) and B (index 1) are joined port to port: port p of A <-> port p of B, p = 1..num_ports.
 *   Every link (one direction of one port) has its own mrc_wire_link parameters. Same config, same seed, same calls
 *   -> byte-identical run. Time is virtual: integer ns, advanced only by mrc_wire_step / mrc_wire_run.
 *
 *     mrc_wire_config cfg; mrc_wire w;
 *     mrc_wire_config_default(&cfg); cfg.seed = 7; cfg.link[MRC_WIRE_A][0].loss_ppm = 10000;
 *     mrc_wire_init(&w, &cfg, &ep_a, &ep_b, 0);
 *     mrc_conn_post_write(c, &wr, mrc_wire_now(&w)); mrc_wire_kick(&w);
 *     mrc_wire_run(&w, 1000000000, done_fn, ctx);         (done_fn pulls mrc_endpoint_poll_event itself)
 *     mrc_wire_free(&w);
 *
 * MODEL
 *   NIC       each endpoint hands out a packet (mrc_endpoint_poll_tx) only when now >= its NIC gate; the gate then
 *             moves to now + bytes at the sum of its num_ports link rates. The tap sees every packet here.
 *   PORT      the packet enters the FIFO of link [from][ti.port]: dropped if the link is down, if the filter says
 *             so, if the bytes still queued (the one being serialized included) plus its own exceed queue_bytes,
 *             or if the pool is full. It leaves the FIFO (departure) after serializing at rate_bps.
 *   LINK      at departure: dropped if the link is down now, then loss, dup (the copy is impaired and jittered on
 *             its own), corrupt (one random bit flipped; MRC_RX_ICRC_BAD unless corrupt_undetected), trim (trimmable
 *             DSCP classes only unless trim_any_class: cut to trim_bytes or to ti.hdr_len, rxinfo.dscp =
 *             dscp_trimmed, MRC_RX_TRIMMED if trim_sets_flag), CE (rxinfo.ecn = 3). Arrival = departure + delay_ns
 *             + uniform [0, jitter_ns]; packets already propagating are delivered even if the link goes down.
 *   ORDER     in-flight and queued packets sit in one binary min-heap on (time, insertion sequence).
 *   STEP      next event = min(heap top, each endpoint's next_deadline, the NIC gate of each endpoint not known
 *             idle). At that time: all heap events due (departures, arrivals -> mrc_endpoint_recv), then
 *             mrc_endpoint_on_timeout where next_deadline <= now (at most once per endpoint per instant: a deadline
 *             still <= now afterwards is served 1 ns later), then poll_tx of A then B while the gate is open. An
 *             endpoint whose poll_tx returned 0 is not polled again until a delivery, a timeout or mrc_wire_kick.
 *   RNG       splitmix64 seeded from cfg.seed; a draw is made only for a nonzero jitter or a ppm in 1..999999.
 *   MEMORY    mrc_wire_init mallocs pool_pkts slots of max_pkt bytes (default 65536 x 4164: about 273 MB of address
 *             space; free slots are reused last-in first-out, so only the peak in-flight count is ever touched).
 *   CALLBACKS filter, tap and rx_tap may read anything and may call mrc_wire_set_link/mrc_wire_set_up; they must
 *             not step, run or free the wire. The wire never calls mrc_endpoint_poll_event.
 *   ERRORS    negative mrc_err values: MRC_ERR_INVAL for bad arguments (or a txinfo inconsistent with poll_tx's
 *             return value), MRC_ERR_NOBUF when malloc fails; an endpoint call's negative return is passed through.
 *
 * LICENSE   MIT, as mrc.h.
 */
#ifndef MRC_WIRE_H
#define MRC_WIRE_H

#ifndef MRC_H
#include "../mrc.h"
#endif

#ifndef MRC_WIRE_API
#ifdef MRC_WIRE_STATIC
#define MRC_WIRE_API static
#else
#define MRC_WIRE_API extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- configuration ------------------------------------------------------------------------------------------ */
enum { MRC_WIRE_A = 0, MRC_WIRE_B = 1, MRC_WIRE_BOTH = -1 }; /* 'from' arguments: direction A->B, B->A, both */
#define MRC_WIRE_PPM 1000000u                                   /* ppm value meaning "every packet" */

typedef struct mrc_wire_link { /* one direction of one port */
    uint64_t rate_bps;    /* serialization rate in bits/s (default 100e9); 0 = infinite (no serialization time) */
    uint64_t delay_ns;    /* propagation delay (default 2000) */
    uint64_t jitter_ns;   /* extra delay, uniform in [0, jitter_ns] per packet (default 0); reorders packets */
    uint64_t queue_bytes; /* drop-tail limit of the port FIFO (default 1 MiB) */
    uint32_t loss_ppm;    /* per-packet probabilities in parts per million, 0..MRC_WIRE_PPM (default 0) */
    uint32_t dup_ppm;
    uint32_t corrupt_ppm;
    uint32_t trim_ppm;
    uint32_t ce_ppm;
    uint32_t trim_bytes;  /* bytes a trimmed packet keeps; 0 (default) = its headers (ti.hdr_len) */
    bool up;              /* false: every packet entering or leaving the port FIFO is silently dropped */
} mrc_wire_link;

/* from: MRC_WIRE_A or MRC_WIRE_B (the emitting endpoint); to: the receiving one. Callbacks see the packet as it
 * goes on the wire (BTH onward, pad included) and, for rx_tap, as it is handed to mrc_endpoint_recv. */
typedef int (*mrc_wire_filter_fn)(void *ud, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                                  mrc_time now); /* nonzero: drop */
typedef void (*mrc_wire_tap_fn)(void *ud, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                                mrc_time now);
typedef void (*mrc_wire_rx_fn)(void *ud, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri,
                               mrc_time now);

typedef struct mrc_wire_config {
    uint64_t seed;              /* the only source of randomness */
    uint8_t num_ports;          /* 1..MRC_MAX_PORTS (default MRC_MAX_PORTS) */
    mrc_wire_link link[2][MRC_MAX_PORTS]; /* [from][port - 1] */
    uint32_t max_pkt;           /* largest packet carried, MRC_HDR_MAX..2^24 (default 4096 + MRC_HDR_MAX + 4) */
    uint32_t pool_pkts;         /* packets queued or in flight at once, 1..2^24 (default 65536) */
    uint8_t dscp_trimmed;       /* rxinfo.dscp of a trimmed packet (default 3) */
    bool trim_sets_flag;        /* trimmed packets also get MRC_RX_TRIMMED (default false) */
    bool trim_any_class;        /* trim any packet, not only classes TRIMMABLE and TRIMMABLE_RETX (default false) */
    bool corrupt_undetected;    /* deliver corrupted packets without MRC_RX_ICRC_BAD (default false) */
    bool tx_copy;               /* poll with MRC_TX_COPY (default false: headers + ti.payload + pad) */
    mrc_wire_filter_fn filter;  /* called for each packet entering an up port; may be NULL */
    void *filter_ud;
    mrc_wire_tap_fn tap;        /* called for every packet an endpoint emits, before anything else; may be NULL */
    void *tap_ud;
    mrc_wire_rx_fn rx_tap;      /* called for every delivered packet just before mrc_endpoint_recv; may be NULL */
    void *rx_tap_ud;
} mrc_wire_config;

MRC_WIRE_API void mrc_wire_link_default(mrc_wire_link *l);
MRC_WIRE_API void mrc_wire_config_default(mrc_wire_config *cfg);
/* Copy *l into the config: from = MRC_WIRE_A, MRC_WIRE_B or MRC_WIRE_BOTH; port = 1..MRC_MAX_PORTS or 0 for all.
 * MRC_OK or MRC_ERR_INVAL (also for a ppm above MRC_WIRE_PPM). */
MRC_WIRE_API int mrc_wire_config_set_link(mrc_wire_config *cfg, int from, unsigned port, const mrc_wire_link *l);

/* ---- statistics (per direction per port; counted against the emitting side) --------------------------------- */
typedef struct mrc_wire_stats {
    uint64_t tx_pkts, tx_bytes;          /* emitted by the endpoint on this port */
    uint64_t delivered, delivered_bytes; /* handed to the peer's mrc_endpoint_recv */
    uint64_t drop_down, drop_filter, drop_loss, drop_queue, drop_pool;
    uint64_t drop_size;                  /* longer than max_pkt (not shown to the tap) */
    uint64_t drop_port;                  /* ti.port outside 1..num_ports (only in mrc_wire_stats_total) */
    uint64_t dup, corrupt, trim, ce;     /* impairments applied */
    uint64_t rx_rejected;                /* delivered, and mrc_endpoint_recv returned < 0 */
} mrc_wire_stats; /* tx_pkts + dup == delivered + every drop_* + packets still in the wire */

/* ---- the wire ----------------------------------------------------------------------------------------------- */
struct mrc_wire__slot; /* a pooled packet (private) */

typedef struct mrc_wire__port { /* private: the FIFO of one link */
    mrc_time busy_until;        /* when the last queued packet finishes serializing */
    uint64_t queued_bytes;      /* bytes not yet departed */
} mrc_wire__port;

/* Public only so callers can allocate it; touch it through the API. */
typedef struct mrc_wire {
    mrc_wire_config cfg;        /* links change through mrc_wire_set_link */
    mrc_endpoint *ep[2];
    mrc_time now;
    uint64_t rng;               /* splitmix64 state */
    uint64_t seq;               /* heap tie-break, increments per push */
    mrc_time gate[2];           /* NIC: earliest time the endpoint may hand out its next packet */
    mrc_time to_time[2];        /* last instant on_timeout ran */
    uint8_t to_ran[2];
    uint8_t busy[2];            /* endpoint may have something to send: poll it */
    mrc_wire__port port[2][MRC_MAX_PORTS];
    mrc_wire_stats st[2][MRC_MAX_PORTS];
    mrc_wire_stats misc[2];     /* packets on ports outside 1..num_ports */
    struct mrc_wire__slot *slot;
    uint8_t *data;              /* pool_pkts * max_pkt bytes */
    uint32_t *free_stk;         /* free slot indexes, LIFO */
    uint32_t *heap;             /* slot indexes, min-heap on (slot.t, slot.seq) */
    uint32_t nfree, heap_len;
    uint8_t *scratch;           /* max_pkt bytes: poll_tx buffer and packet assembly */
} mrc_wire;

/* MRC_OK, MRC_ERR_INVAL (NULL, a == b, bad config), MRC_ERR_NOBUF (malloc failed). On failure *w is left so that
 * mrc_wire_free is harmless. Both endpoints start not idle with their NIC gate open at start. */
MRC_WIRE_API int mrc_wire_init(mrc_wire *w, const mrc_wire_config *cfg, mrc_endpoint *a, mrc_endpoint *b,
                               mrc_time start);
MRC_WIRE_API void mrc_wire_free(mrc_wire *w); /* packets still in the wire are discarded; safe to call twice */
MRC_WIRE_API mrc_time mrc_wire_now(const mrc_wire *w);

/* Advance to the next event not after limit and process everything due then. 1: processed an event; 0: nothing at
 * or before limit, now = limit (unchanged when limit is MRC_TIME_NEVER or in the past); < 0: error. */
MRC_WIRE_API int mrc_wire_step(mrc_wire *w, mrc_time limit);
/* Step until done(ud) != 0 (checked first and after every step; done may be NULL) or nothing is left at or before
 * until. 1: done; 0: time ran out (or the wire went quiet for good with until = MRC_TIME_NEVER); < 0: error. */
MRC_WIRE_API int mrc_wire_run(mrc_wire *w, mrc_time until, int (*done)(void *ud), void *ud);
/* Both endpoints may have work (call after posting writes or receives, or changing port state, from outside). */
MRC_WIRE_API void mrc_wire_kick(mrc_wire *w);
/* Time of the next event (>= now), or MRC_TIME_NEVER when nothing is scheduled and both endpoints are idle. */
MRC_WIRE_API mrc_time mrc_wire_next_event(const mrc_wire *w);

/* Change links at the current virtual time: from = MRC_WIRE_A, MRC_WIRE_B or MRC_WIRE_BOTH; port = 1..num_ports or
 * 0 for all. Queued packets take the new impairments at departure; a new rate applies to packets entering later.
 * MRC_OK or MRC_ERR_INVAL. */
MRC_WIRE_API int mrc_wire_set_link(mrc_wire *w, int from, unsigned port, const mrc_wire_link *l);
MRC_WIRE_API int mrc_wire_set_up(mrc_wire *w, int from, unsigned port, bool up);
MRC_WIRE_API int mrc_wire_get_link(const mrc_wire *w, int from, unsigned port, mrc_wire_link *out);

/* from = MRC_WIRE_A or MRC_WIRE_B, port = 1..num_ports. MRC_OK or MRC_ERR_INVAL (*out zeroed). */
MRC_WIRE_API int mrc_wire_stats_get(const mrc_wire *w, int from, unsigned port, mrc_wire_stats *out);
/* Sum over all ports (and unroutable packets) of one direction, or of both with MRC_WIRE_BOTH. */
MRC_WIRE_API int mrc_wire_stats_total(const mrc_wire *w, int from, mrc_wire_stats *out);
/* Packets queued or propagating. */
MRC_WIRE_API uint32_t mrc_wire_inflight(const mrc_wire *w);

#ifdef __cplusplus
}
#endif
#endif /* MRC_WIRE_H */

/* ================================================================================================================
 * Implementation
 * ============================================================================================================== */
#if defined(MRC_WIRE_IMPLEMENTATION) && !defined(MRC_WIRE_IMPLEMENTATION_DONE)
#define MRC_WIRE_IMPLEMENTATION_DONE

#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_WIRE__MAX_PKT (1u << 24)   /* keeps bytes * 8e9 inside 64 bits */
#define MRC_WIRE__MAX_POOL (1u << 24)
#define MRC_WIRE__NS_BITS UINT64_C(8000000000) /* ns per second * bits per byte */

enum { MRC_WIRE__QUEUED = 1, MRC_WIRE__FLIGHT = 2 };

struct mrc_wire__slot {
    mrc_time t;          /* heap key: departure (QUEUED) or arrival (FLIGHT) */
    uint64_t seq;        /* heap tie-break */
    uint32_t len, hdr_len, ev;
    uint8_t from, port, dscp, dscp_class, ecn, flags, state;
};

/* ---- arithmetic and randomness ------------------------------------------------------------------------------ */
static mrc_time mrc_wire__tadd(mrc_time a, uint64_t b)
{
    return (a > MRC_TIME_NEVER - b) ? MRC_TIME_NEVER : a + b;
}

/* ceil(bytes * 8e9 / rate); bytes <= 2^24 so the product fits; rate 0 = infinite */
static uint64_t mrc_wire__ser(uint64_t bytes, uint64_t rate_bps)
{
    uint64_t num, q;
    if (rate_bps == 0)
        return 0;
    num = bytes * MRC_WIRE__NS_BITS;
    q = num / rate_bps;
    return (num % rate_bps) ? q + 1 : q;
}

static uint64_t mrc_wire__rand(mrc_wire *w) /* splitmix64 */
{
    uint64_t z;
    w->rng += UINT64_C(0x9E3779B97F4A7C15);
    z = w->rng;
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t mrc_wire__below(mrc_wire *w, uint64_t n) /* uniform in [0, n), n >= 1, no modulo bias */
{
    uint64_t threshold = ((uint64_t)0 - n) % n, r;
    do
        r = mrc_wire__rand(w);
    while (r < threshold);
    return r % n;
}

static int mrc_wire__chance(mrc_wire *w, uint32_t ppm)
{
    if (ppm == 0)
        return 0;
    if (ppm >= MRC_WIRE_PPM)
        return 1;
    return mrc_wire__below(w, MRC_WIRE_PPM) < ppm;
}

/* ---- argument checks ---------------------------------------------------------------------------------------- */
static int mrc_wire__link_ok(const mrc_wire_link *l)
{
    return l && l->loss_ppm <= MRC_WIRE_PPM && l->dup_ppm <= MRC_WIRE_PPM && l->corrupt_ppm <= MRC_WIRE_PPM &&
           l->trim_ppm <= MRC_WIRE_PPM && l->ce_ppm <= MRC_WIRE_PPM;
}

/* writes links [from][port - 1] for the (from, port) selection; nports bounds "all" */
static int mrc_wire__put_link(mrc_wire_link (*links)[MRC_MAX_PORTS], unsigned nports, int from, unsigned port,
                              const mrc_wire_link *l)
{
    unsigned d, p;
    if (!mrc_wire__link_ok(l) || from < MRC_WIRE_BOTH || from > MRC_WIRE_B || port > nports)
        return MRC_ERR_INVAL;
    for (d = 0; d < 2; d++) {
        if (from != MRC_WIRE_BOTH && (unsigned)from != d)
            continue;
        for (p = 1; p <= nports; p++)
            if (port == 0 || port == p)
                links[d][p - 1] = *l;
    }
    return MRC_OK;
}

/* ---- configuration ------------------------------------------------------------------------------------------ */
MRC_WIRE_API void mrc_wire_link_default(mrc_wire_link *l)
{
    if (!l)
        return;
    memset(l, 0, sizeof *l);
    l->rate_bps = UINT64_C(100000000000);
    l->delay_ns = 2000;
    l->queue_bytes = 1u << 20;
    l->up = true;
}

MRC_WIRE_API void mrc_wire_config_default(mrc_wire_config *cfg)
{
    mrc_wire_link l;
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    mrc_wire_link_default(&l);
    (void)mrc_wire__put_link(cfg->link, MRC_MAX_PORTS, MRC_WIRE_BOTH, 0, &l);
    cfg->num_ports = MRC_MAX_PORTS;
    cfg->max_pkt = 4096 + MRC_HDR_MAX + 4;
    cfg->pool_pkts = 65536;
    cfg->dscp_trimmed = 3;
}

MRC_WIRE_API int mrc_wire_config_set_link(mrc_wire_config *cfg, int from, unsigned port, const mrc_wire_link *l)
{
    if (!cfg)
        return MRC_ERR_INVAL;
    return mrc_wire__put_link(cfg->link, MRC_MAX_PORTS, from, port, l);
}

/* ---- packet pool and event heap ----------------------------------------------------------------------------- */
static uint8_t *mrc_wire__data(const mrc_wire *w, uint32_t idx)
{
    return w->data + (size_t)idx * w->cfg.max_pkt;
}

static int mrc_wire__alloc(mrc_wire *w, uint32_t *idx)
{
    if (w->nfree == 0)
        return 0;
    *idx = w->free_stk[--w->nfree];
    return 1;
}

static void mrc_wire__release(mrc_wire *w, uint32_t idx)
{
    w->slot[idx].state = 0;
    w->free_stk[w->nfree++] = idx;
}

static int mrc_wire__before(const mrc_wire *w, uint32_t a, uint32_t b)
{
    const struct mrc_wire__slot *x = &w->slot[a], *y = &w->slot[b];
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static void mrc_wire__push(mrc_wire *w, uint32_t idx)
{
    uint32_t i = w->heap_len++;
    w->slot[idx].seq = w->seq++;
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!mrc_wire__before(w, idx, w->heap[parent]))
            break;
        w->heap[i] = w->heap[parent];
        i = parent;
    }
    w->heap[i] = idx;
}

static uint32_t mrc_wire__pop(mrc_wire *w)
{
    uint32_t top = w->heap[0], last = w->heap[--w->heap_len], i = 0, n = w->heap_len;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && mrc_wire__before(w, w->heap[c + 1], w->heap[c]))
            c++;
        if (!mrc_wire__before(w, w->heap[c], last))
            break;
        w->heap[i] = w->heap[c];
        i = c;
    }
    if (n > 0)
        w->heap[i] = last;
    return top;
}

/* ---- lifecycle ---------------------------------------------------------------------------------------------- */
MRC_WIRE_API void mrc_wire_free(mrc_wire *w)
{
    if (!w)
        return;
    free(w->slot);
    free(w->data);
    free(w->free_stk);
    free(w->heap);
    free(w->scratch);
    w->slot = NULL;
    w->data = NULL;
    w->free_stk = NULL;
    w->heap = NULL;
    w->scratch = NULL;
    w->nfree = w->heap_len = 0;
}

MRC_WIRE_API int mrc_wire_init(mrc_wire *w, const mrc_wire_config *cfg, mrc_endpoint *a, mrc_endpoint *b,
                               mrc_time start)
{
    unsigned d, p;
    uint32_t i, n;
    if (!w)
        return MRC_ERR_INVAL;
    memset(w, 0, sizeof *w);
    if (!cfg || !a || !b || a == b || cfg->num_ports < 1 || cfg->num_ports > MRC_MAX_PORTS ||
        cfg->max_pkt < MRC_HDR_MAX || cfg->max_pkt > MRC_WIRE__MAX_PKT || cfg->pool_pkts < 1 ||
        cfg->pool_pkts > MRC_WIRE__MAX_POOL || (size_t)-1 / cfg->max_pkt < cfg->pool_pkts)
        return MRC_ERR_INVAL;
    for (d = 0; d < 2; d++)
        for (p = 0; p < MRC_MAX_PORTS; p++)
            if (!mrc_wire__link_ok(&cfg->link[d][p]))
                return MRC_ERR_INVAL;
    w->cfg = *cfg;
    w->ep[0] = a;
    w->ep[1] = b;
    w->now = w->gate[0] = w->gate[1] = start;
    w->rng = cfg->seed;
    w->busy[0] = w->busy[1] = 1;
    n = cfg->pool_pkts;
    w->slot = (struct mrc_wire__slot *)malloc((size_t)n * sizeof *w->slot);
    w->data = (uint8_t *)malloc((size_t)n * cfg->max_pkt);
    w->free_stk = (uint32_t *)malloc((size_t)n * sizeof *w->free_stk);
    w->heap = (uint32_t *)malloc((size_t)n * sizeof *w->heap);
    w->scratch = (uint8_t *)malloc(cfg->max_pkt);
    if (!w->slot || !w->data || !w->free_stk || !w->heap || !w->scratch) {
        mrc_wire_free(w);
        return MRC_ERR_NOBUF;
    }
    memset(w->slot, 0, (size_t)n * sizeof *w->slot);
    for (i = 0; i < n; i++) /* slot 0 on top: low indexes are reused first */
        w->free_stk[i] = n - 1 - i;
    w->nfree = n;
    return MRC_OK;
}

MRC_WIRE_API mrc_time mrc_wire_now(const mrc_wire *w)
{
    return w ? w->now : 0;
}

MRC_WIRE_API void mrc_wire_kick(mrc_wire *w)
{
    if (w)
        w->busy[0] = w->busy[1] = 1;
}

MRC_WIRE_API uint32_t mrc_wire_inflight(const mrc_wire *w)
{
    return (w && w->slot) ? w->cfg.pool_pkts - w->nfree : 0;
}

/* ---- links -------------------------------------------------------------------------------------------------- */
MRC_WIRE_API int mrc_wire_set_link(mrc_wire *w, int from, unsigned port, const mrc_wire_link *l)
{
    if (!w || !w->slot)
        return MRC_ERR_INVAL;
    return mrc_wire__put_link(w->cfg.link, w->cfg.num_ports, from, port, l);
}

MRC_WIRE_API int mrc_wire_set_up(mrc_wire *w, int from, unsigned port, bool up)
{
    unsigned d, p;
    if (!w || !w->slot || from < MRC_WIRE_BOTH || from > MRC_WIRE_B || port > w->cfg.num_ports)
        return MRC_ERR_INVAL;
    for (d = 0; d < 2; d++)
        for (p = 1; p <= w->cfg.num_ports; p++)
            if ((from == MRC_WIRE_BOTH || (unsigned)from == d) && (port == 0 || port == p))
                w->cfg.link[d][p - 1].up = up;
    return MRC_OK;
}

MRC_WIRE_API int mrc_wire_get_link(const mrc_wire *w, int from, unsigned port, mrc_wire_link *out)
{
    if (!out)
        return MRC_ERR_INVAL;
    memset(out, 0, sizeof *out);
    if (!w || !w->slot || (from != MRC_WIRE_A && from != MRC_WIRE_B) || port < 1 || port > w->cfg.num_ports)
        return MRC_ERR_INVAL;
    *out = w->cfg.link[from][port - 1];
    return MRC_OK;
}

/* ---- statistics --------------------------------------------------------------------------------------------- */
static void mrc_wire__stats_add(mrc_wire_stats *o, const mrc_wire_stats *s)
{
    o->tx_pkts += s->tx_pkts;
    o->tx_bytes += s->tx_bytes;
    o->delivered += s->delivered;
    o->delivered_bytes += s->delivered_bytes;
    o->drop_down += s->drop_down;
    o->drop_filter += s->drop_filter;
    o->drop_loss += s->drop_loss;
    o->drop_queue += s->drop_queue;
    o->drop_pool += s->drop_pool;
    o->drop_size += s->drop_size;
    o->drop_port += s->drop_port;
    o->dup += s->dup;
    o->corrupt += s->corrupt;
    o->trim += s->trim;
    o->ce += s->ce;
    o->rx_rejected += s->rx_rejected;
}

MRC_WIRE_API int mrc_wire_stats_get(const mrc_wire *w, int from, unsigned port, mrc_wire_stats *out)
{
    if (!out)
        return MRC_ERR_INVAL;
    memset(out, 0, sizeof *out);
    if (!w || !w->slot || (from != MRC_WIRE_A && from != MRC_WIRE_B) || port < 1 || port > w->cfg.num_ports)
        return MRC_ERR_INVAL;
    *out = w->st[from][port - 1];
    return MRC_OK;
}

MRC_WIRE_API int mrc_wire_stats_total(const mrc_wire *w, int from, mrc_wire_stats *out)
{
    unsigned d, p;
    if (!out)
        return MRC_ERR_INVAL;
    memset(out, 0, sizeof *out);
    if (!w || !w->slot || from < MRC_WIRE_BOTH || from > MRC_WIRE_B)
        return MRC_ERR_INVAL;
    for (d = 0; d < 2; d++) {
        if (from != MRC_WIRE_BOTH && (unsigned)from != d)
            continue;
        for (p = 0; p < MRC_MAX_PORTS; p++)
            mrc_wire__stats_add(out, &w->st[d][p]);
        mrc_wire__stats_add(out, &w->misc[d]);
    }
    return MRC_OK;
}

/* ---- scheduling --------------------------------------------------------------------------------------------- */
/* next_deadline, except that an instant already served by on_timeout is pushed 1 ns on (no livelock) */
static mrc_time mrc_wire__deadline(const mrc_wire *w, unsigned i)
{
    mrc_time d = mrc_endpoint_next_deadline(w->ep[i]);
    if (w->to_ran[i] && d <= w->to_time[i])
        d = mrc_wire__tadd(w->to_time[i], 1);
    return d;
}

static mrc_time mrc_wire__next(const mrc_wire *w)
{
    mrc_time t = w->heap_len ? w->slot[w->heap[0]].t : MRC_TIME_NEVER, d;
    unsigned i;
    for (i = 0; i < 2; i++) {
        d = mrc_wire__deadline(w, i);
        if (d < t)
            t = d;
        if (w->busy[i] && w->gate[i] < t)
            t = w->gate[i];
    }
    return t;
}

MRC_WIRE_API mrc_time mrc_wire_next_event(const mrc_wire *w)
{
    mrc_time t;
    if (!w || !w->slot)
        return MRC_TIME_NEVER;
    t = mrc_wire__next(w);
    return t < w->now ? w->now : t;
}

/* ---- egress: NIC gate, tap, port FIFO ----------------------------------------------------------------------- */
static int mrc_wire__tx_one(mrc_wire *w, unsigned from, mrc_time now)
{
    const mrc_wire_config *c = &w->cfg;
    mrc_txinfo ti;
    mrc_wire_link *l;
    mrc_wire__port *q;
    mrc_wire_stats *st;
    struct mrc_wire__slot *s;
    uint64_t len, nic_rate = 0;
    uint32_t idx;
    unsigned p;
    int n;

    memset(&ti, 0, sizeof ti);
    n = mrc_endpoint_poll_tx(w->ep[from], w->scratch, c->max_pkt, c->tx_copy ? (unsigned)MRC_TX_COPY : 0u, &ti,
                             now);
    if (n <= 0)
        return n;
    if (ti.hdr_len > (uint32_t)n || (uint32_t)n > c->max_pkt || (!c->tx_copy && ti.payload_len && !ti.payload))
        return MRC_ERR_INVAL;
    len = c->tx_copy ? (uint64_t)(uint32_t)n : (uint64_t)ti.hdr_len + ti.payload_len + ti.pad;
    if (len == 0)
        return MRC_ERR_INVAL;

    /* the NIC emits at the sum of its port rates (any infinite port makes it infinite) */
    for (p = 0; p < c->num_ports; p++) {
        uint64_t r = c->link[from][p].rate_bps;
        if (r == 0) {
            nic_rate = 0;
            break;
        }
        nic_rate = (nic_rate > UINT64_MAX - r) ? UINT64_MAX : nic_rate + r;
    }
    w->gate[from] = mrc_wire__tadd(now, mrc_wire__ser(len < MRC_WIRE__MAX_PKT ? len : MRC_WIRE__MAX_PKT, nic_rate));

    st = (ti.port >= 1 && ti.port <= c->num_ports) ? &w->st[from][ti.port - 1] : &w->misc[from];
    st->tx_pkts++;
    st->tx_bytes += len;
    if (len > c->max_pkt) {
        st->drop_size++;
        return 1;
    }
    if (!c->tx_copy) { /* assemble headers + payload + pad in scratch */
        if (ti.payload_len)
            memcpy(w->scratch + ti.hdr_len, ti.payload, ti.payload_len);
        memset(w->scratch + ti.hdr_len + ti.payload_len, 0, ti.pad);
    }
    if (c->tap)
        c->tap(c->tap_ud, (int)from, w->scratch, (size_t)len, &ti, now);
    if (st == &w->misc[from]) {
        st->drop_port++;
        return 1;
    }
    l = &w->cfg.link[from][ti.port - 1]; /* re-read: the tap may change links */
    q = &w->port[from][ti.port - 1];
    if (!l->up) {
        st->drop_down++;
        return 1;
    }
    if (c->filter && c->filter(c->filter_ud, (int)from, w->scratch, (size_t)len, &ti, now)) {
        st->drop_filter++;
        return 1;
    }
    l = &w->cfg.link[from][ti.port - 1];
    if (len > l->queue_bytes || q->queued_bytes > l->queue_bytes - len) {
        st->drop_queue++;
        return 1;
    }
    if (!mrc_wire__alloc(w, &idx)) {
        st->drop_pool++;
        return 1;
    }
    memcpy(mrc_wire__data(w, idx), w->scratch, (size_t)len);
    s = &w->slot[idx];
    s->len = (uint32_t)len;
    s->hdr_len = ti.hdr_len;
    s->ev = ti.ev;
    s->from = (uint8_t)from;
    s->port = ti.port;
    s->dscp = ti.dscp;
    s->dscp_class = ti.dscp_class;
    s->ecn = 0;
    s->flags = 0;
    s->state = MRC_WIRE__QUEUED;
    if (q->busy_until < now)
        q->busy_until = now;
    q->busy_until = mrc_wire__tadd(q->busy_until, mrc_wire__ser(len, l->rate_bps));
    q->queued_bytes += len;
    s->t = q->busy_until;
    mrc_wire__push(w, idx);
    return 1;
}

/* ---- link: departure impairments, propagation, delivery ----------------------------------------------------- */
static void mrc_wire__launch(mrc_wire *w, uint32_t idx, const mrc_wire_link *l, mrc_wire_stats *st, mrc_time now)
{
    struct mrc_wire__slot *s = &w->slot[idx];
    uint8_t *pkt = mrc_wire__data(w, idx);
    uint64_t jitter = 0;
    if (mrc_wire__chance(w, l->corrupt_ppm)) {
        uint64_t bit = mrc_wire__below(w, (uint64_t)s->len * 8);
        pkt[bit >> 3] = (uint8_t)(pkt[bit >> 3] ^ (1u << (bit & 7)));
        if (!w->cfg.corrupt_undetected)
            s->flags = (uint8_t)(s->flags | MRC_RX_ICRC_BAD);
        st->corrupt++;
    }
    if ((w->cfg.trim_any_class || s->dscp_class == MRC_DSCP_TRIMMABLE || s->dscp_class == MRC_DSCP_TRIMMABLE_RETX) &&
        mrc_wire__chance(w, l->trim_ppm)) {
        uint32_t keep = l->trim_bytes ? l->trim_bytes : s->hdr_len;
        if (keep < s->len)
            s->len = keep;
        s->dscp = w->cfg.dscp_trimmed;
        if (w->cfg.trim_sets_flag)
            s->flags = (uint8_t)(s->flags | MRC_RX_TRIMMED);
        st->trim++;
    }
    if (mrc_wire__chance(w, l->ce_ppm)) {
        s->ecn = 3;
        st->ce++;
    }
    if (l->jitter_ns)
        jitter = l->jitter_ns == UINT64_MAX ? mrc_wire__rand(w) : mrc_wire__below(w, l->jitter_ns + 1);
    s->t = mrc_wire__tadd(mrc_wire__tadd(now, l->delay_ns), jitter);
    s->state = MRC_WIRE__FLIGHT;
    mrc_wire__push(w, idx);
}

static void mrc_wire__depart(mrc_wire *w, uint32_t idx, mrc_time now)
{
    struct mrc_wire__slot *s = &w->slot[idx];
    const mrc_wire_link *l = &w->cfg.link[s->from][s->port - 1];
    mrc_wire_stats *st = &w->st[s->from][s->port - 1];
    uint32_t dup = 0;
    int have_dup = 0;
    w->port[s->from][s->port - 1].queued_bytes -= s->len;
    if (!l->up) {
        st->drop_down++;
        mrc_wire__release(w, idx);
        return;
    }
    if (mrc_wire__chance(w, l->loss_ppm)) {
        st->drop_loss++;
        mrc_wire__release(w, idx);
        return;
    }
    if (mrc_wire__chance(w, l->dup_ppm)) {
        st->dup++;
        if (mrc_wire__alloc(w, &dup)) {
            w->slot[dup] = w->slot[idx];
            memcpy(mrc_wire__data(w, dup), mrc_wire__data(w, idx), w->slot[idx].len);
            have_dup = 1;
        } else {
            st->drop_pool++;
        }
    }
    mrc_wire__launch(w, idx, l, st, now);
    if (have_dup)
        mrc_wire__launch(w, dup, l, st, now);
}

static void mrc_wire__arrive(mrc_wire *w, uint32_t idx, mrc_time now)
{
    const struct mrc_wire__slot *s = &w->slot[idx];
    mrc_wire_stats *st = &w->st[s->from][s->port - 1];
    const uint8_t *pkt = mrc_wire__data(w, idx);
    unsigned to = 1u - s->from;
    mrc_rxinfo ri;
    memset(&ri, 0, sizeof ri);
    ri.port = s->port;
    ri.dscp = s->dscp;
    ri.ecn = s->ecn;
    ri.flags = s->flags;
    ri.ev = s->ev;
    st->delivered++;
    st->delivered_bytes += s->len;
    if (w->cfg.rx_tap)
        w->cfg.rx_tap(w->cfg.rx_tap_ud, (int)to, pkt, s->len, &ri, now);
    if (mrc_endpoint_recv(w->ep[to], pkt, s->len, &ri, now) < 0)
        st->rx_rejected++;
    w->busy[to] = 1;
    mrc_wire__release(w, idx);
}

/* ---- driving ------------------------------------------------------------------------------------------------ */
MRC_WIRE_API int mrc_wire_step(mrc_wire *w, mrc_time limit)
{
    mrc_time t;
    unsigned i;
    int r;
    if (!w || !w->slot)
        return MRC_ERR_INVAL;
    t = mrc_wire__next(w);
    if (t < w->now)
        t = w->now;
    if (t == MRC_TIME_NEVER || t > limit) {
        if (limit > w->now && limit != MRC_TIME_NEVER)
            w->now = limit;
        return 0;
    }
    w->now = t;
    while (w->heap_len && w->slot[w->heap[0]].t <= t) {
        uint32_t idx = mrc_wire__pop(w);
        if (w->slot[idx].state == MRC_WIRE__QUEUED)
            mrc_wire__depart(w, idx, t);
        else
            mrc_wire__arrive(w, idx, t);
    }
    for (i = 0; i < 2; i++) {
        if (mrc_wire__deadline(w, i) > t)
            continue;
        w->to_ran[i] = 1;
        w->to_time[i] = t;
        w->busy[i] = 1;
        r = mrc_endpoint_on_timeout(w->ep[i], t);
        if (r < 0)
            return r;
    }
    for (i = 0; i < 2; i++) {
        while (w->busy[i] && w->gate[i] <= t) {
            r = mrc_wire__tx_one(w, i, t);
            if (r < 0)
                return r;
            if (r == 0)
                w->busy[i] = 0;
        }
    }
    return 1;
}

MRC_WIRE_API int mrc_wire_run(mrc_wire *w, mrc_time until, int (*done)(void *ud), void *ud)
{
    int r;
    if (!w || !w->slot)
        return MRC_ERR_INVAL;
    if (done && done(ud))
        return 1;
    for (;;) {
        r = mrc_wire_step(w, until);
        if (r < 0)
            return r;
        if (done && done(ud))
            return 1;
        if (r == 0)
            return 0;
    }
}

#ifdef __cplusplus
}
#endif
#endif /* MRC_WIRE_IMPLEMENTATION */
