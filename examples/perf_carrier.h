/* perf_carrier.h - what mrc_perf needs from a carrier (the port adapter that moves its packets): one table of
 * functions per carrier, so the same tool, flags, report and verification run over UDP sockets (ports/udp), DPDK
 * (ports/dpdk, --dpdk "EAL ARGS") or ibverbs (ports/ibverbs, --ibv DEV). Included by examples/mrc_perf.c only;
 * each carrier lives in examples/perf_<name>.inc, included by mrc_perf.c after its helpers (kv_get, kv_u64,
 * parse_addr, splitmix) so a carrier may use them.
 */
#ifndef PERF_CARRIER_H
#define PERF_CARRIER_H

#include <stdio.h>

/* What a carrier is opened with (from mrc_perf's options). */
typedef struct perf_carrier_args {
    int server;               /* 1 on the server side */
    unsigned planes;          /* MRC ports, 1..8 */
    unsigned evs_per_plane;   /* EVs (UDP source ports) per plane */
    unsigned mtu;             /* MRC path MTU (payload bytes per packet) */
    unsigned batch;           /* packets per burst */
    int family;               /* AF_INET or AF_INET6: the side channel's, and the planes' */
    const char *plane_addrs;  /* --plane-addrs: 1 or `planes` numeric addresses (NULL: the carrier's default) */
    const struct sockaddr_storage *side_local; /* the side channel's local address */
    int busy_poll, ecn, set_tos;
    uint64_t seed;            /* for anything the carrier randomises */
    const char *spec;         /* --dpdk "EAL ARGS" / --ibv DEV (NULL for UDP) */
    int verbose;
} perf_carrier_args;

typedef void (*perf_raw_fn)(void *ud, unsigned plane, const uint8_t *pkt, size_t len, mrc_time now);

typedef struct perf_carrier_ops {
    const char *name;         /* "udp", "dpdk", "ibverbs" */
    /* the carrier's clock, ns; every core call of the run gets its time from here */
    mrc_time (*now)(void *c);
    /* one line for the banner: which carrier, devices, what it does with payloads */
    void (*describe)(void *c, char *b, size_t n);
    /* append " key=value" fields naming this side's planes to the hello line (no spaces inside a value) */
    size_t (*put_addrs)(void *c, char *b, size_t n);
    /* read the peer's fields from its hello line and aim every plane at the peer: 0, or -1 + err */
    int (*set_peer)(void *c, const char *line, char *err, size_t errlen);
    /* program the core with this carrier's EV set (an EV Format fmt_id and EXP EV profile prof_id) */
    int (*ev_profile)(void *c, mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, unsigned min_active,
                      mrc_time now);
    /* one turn of the loop, as mrc_udp_step: timers, transmit, wait (until wake_at, a packet or a watched fd),
     * receive, transmit. Returns packets moved (>= 0) or -1 (errno / a reason the carrier prints) */
    int (*step)(void *c, mrc_endpoint *ep, mrc_time wake_at, unsigned *ready);
    /* watch an fd: step returns when it is readable, bit i of *ready = i-th watched fd. 0 or -1 */
    int (*watch_fd)(void *c, int fd);
    /* pull the next event: mrc_endpoint_poll_event, or a carrier that must hold completions back (DPDK zero-copy:
     * a SEND_DONE waits until no mbuf references the buffer) */
    int (*poll_event)(void *c, mrc_endpoint *ep, mrc_event *ev);
    void (*impair_start)(void *c, mrc_time t0);           /* may be NULL */
    /* the carrier's counters: text lines (each starting with two spaces) and the members of a JSON object */
    void (*report_text)(void *c, FILE *f);
    void (*report_json)(void *c, FILE *f);
    /* the --raw baseline on the same devices (NULL: --raw is refused): queue one packet hdr + payload on EV k of
     * plane p, flush, and receive (timeout_ns 0 = poll) */
    int (*raw_send)(void *c, unsigned plane, unsigned k, const void *hdr, size_t hlen, const void *payload,
                    size_t plen);
    int (*raw_flush)(void *c);
    int (*raw_recv)(void *c, uint64_t timeout_ns, perf_raw_fn fn, void *ud, unsigned *ready);
    void (*close)(void *c);
} perf_carrier_ops;

/* A carrier's entry point: opens its devices and returns its ops and state, or -1 with a one-line reason. */
typedef int (*perf_carrier_open_fn)(const perf_carrier_args *a, const perf_carrier_ops **ops, void **state,
                                    char *err, size_t errlen);

#endif /* PERF_CARRIER_H */
