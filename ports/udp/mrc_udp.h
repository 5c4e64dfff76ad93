/* mrc_udp.h - Linux UDP port adapter for open MRC (mrc.h): sockets and time, no protocol logic.
 *
 * The adapter owns the sockets of one endpoint towards one peer and the clock; it moves bytes between them and the
 * core (mrc_endpoint_recv / mrc_endpoint_poll_tx / mrc_endpoint_on_timeout) and never looks inside MRC headers.
 * See ports/udp/README.md for the full description; the short version:
 *
 *   PLANES   plane p (1-based, = MRC port p) has a local address local[p-1] and one receive ("data") socket bound
 *            to local[p-1]:data_port+p-1. Give each plane its own address (its own veth/NIC) and a plane failure is
 *            an interface or address the kernel can see (ip link, nftables "iifname"/"ip saddr").
 *   EVs      EV k (0-based) of plane p is the UDP source port ev_port + (p-1)*K + k, K = evs_per_plane. Each EV has
 *            its own socket bound to exactly that port on local[p-1] and connect()ed to the peer's data socket of
 *            plane p, so the EV a packet took is the real UDP source port on the wire (nftables "udp sport") and
 *            the receiver reads it back from recvmmsg's source address into mrc_rxinfo.ev. mrc_udp_ev_profile()
 *            programs the core with an EXP EV profile holding exactly these (port, source port) pairs.
 *   TIME     CLOCK_MONOTONIC in ns (mrc_udp_now), passed into every core call. mrc_udp_step sleeps in epoll_wait
 *            with a timerfd armed at the core's absolute deadline (or spins with busy_poll).
 *   TOS      the core's per-packet DSCP goes into IP_TOS / IPV6_TCLASS (set on the EV socket when it changes, so
 *            connected sockets keep their cached route); data packets are sent ECT(0) when ecn is set; IP_RECVTOS /
 *            IPV6_RECVTCLASS give the received DSCP and ECN (CE) to mrc_rxinfo.
 *   IMPAIR   an optional seeded shim on the transmit side: drop / duplicate / trim / delay per plane and EV range,
 *            inside a time window (a black-holed plane at time T is one rule). No root needed.
 *
 * One mrc_udp serves one peer (perftest-style point to point). Not thread-safe: one thread drives it and its
 * endpoint. Requires Linux (recvmmsg, sendmmsg, epoll, timerfd); _GNU_SOURCE is defined by mrc_udp.c only.
 *
 * LICENSE   MIT, as mrc.h.
 */
#ifndef MRC_UDP_H
#define MRC_UDP_H

#include "../../mrc.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_UDP_MAX_PLANES MRC_MAX_PORTS
#define MRC_UDP_MAX_EVS 256u      /* EV sockets per adapter (planes x evs_per_plane) */
#define MRC_UDP_BATCH 64u         /* largest sendmmsg / recvmmsg batch */
#define MRC_UDP_MAX_RULES 8u      /* impairment rules */
#define MRC_UDP_MAX_WATCH 4u      /* extra fds mrc_udp_step watches for the application */
#define MRC_UDP_PKT_MAX (MRC_HDR_MAX + 4096u + 4u + 60u) /* largest datagram received: headers, MTU, pad, slack */
#define MRC_UDP_PPM 1000000u      /* impairment probability meaning "every packet" */

/* One impairment rule, applied to packets this side transmits. A packet matches when its plane is in planes, its
 * EV index within the plane is in [ev_lo, ev_hi], and start_ns <= t < end_ns, t being the time since
 * mrc_udp_impair_start (rules are inert before it is called). Of the matching rules the first one with a nonzero
 * field decides that field. */
typedef struct mrc_udp_impair_rule {
    uint32_t planes;          /* bit p-1 selects plane p; 0 = every plane */
    uint16_t ev_lo, ev_hi;    /* EV indexes within the plane (0-based, inclusive); 0, 0 with all = 1 means all */
    uint8_t all_evs;          /* 1: ignore ev_lo/ev_hi */
    uint64_t start_ns, end_ns;/* window relative to mrc_udp_impair_start; end_ns 0 = forever */
    uint32_t drop_ppm;        /* silently dropped (MRC_UDP_PPM: a black hole) */
    uint32_t dup_ppm;         /* sent twice */
    uint32_t trim_ppm;        /* cut to its MRC headers and sent with the TRIMMED DSCP, as a trimming switch does */
    uint32_t delay_ns;        /* held this long (plus jitter) before it leaves: reorders across EVs */
    uint32_t jitter_ns;       /* uniform extra delay in [0, jitter_ns] */
} mrc_udp_impair_rule;

typedef struct mrc_udp_config {
    int family;               /* AF_INET (default) or AF_INET6 */
    unsigned planes;          /* 1..MRC_UDP_MAX_PLANES (default 8) */
    unsigned evs_per_plane;   /* K, 1..MRC_UDP_MAX_EVS / planes (default 16: 128 EVs over 8 planes) */
    /* local address of each plane; the port field is ignored. Default: the loopback address of the family. */
    struct sockaddr_storage local[MRC_UDP_MAX_PLANES];
    uint16_t data_port;       /* plane p's receive socket binds data_port + p - 1; 0 = kernel-chosen (default) */
    uint16_t ev_port;         /* EV k of plane p binds ev_port + (p-1)*K + k (default 20000) */
    int rcvbuf, sndbuf;       /* socket buffers in bytes (default 8 MiB / 1 MiB; SO_*BUFFORCE is tried first) */
    unsigned batch;           /* packets per sendmmsg / recvmmsg, 1..MRC_UDP_BATCH (default 32) */
    unsigned tx_burst;        /* most packets pulled from the core per transmit burst (default 64) */
    unsigned rx_tx_every;     /* while handing a receive round to the core, drain its transmit queue after this many
                                 datagrams (default 16; 0 = once per round): acknowledgements leave mid-burst as
                                 they would from a NIC, instead of being coalesced by the core (see README) */
    uint8_t busy_poll;        /* never sleep in mrc_udp_step: poll the sockets non-blocking (default 0) */
    uint8_t set_tos;          /* write the core's DSCP into IP_TOS / IPV6_TCLASS (default 1) */
    uint8_t ecn;              /* send data packets ECT(0) (default 1) */
    uint8_t trimmed_dscp;     /* DSCP a shim-trimmed packet carries (default 3 = mrc_config dscp[TRIMMED]) */
    uint32_t peer;            /* the peer handle used in mrc_conn_attr.peer and mrc_rxinfo.peer (default 1) */
    uint32_t plane_rate_mbps; /* link model: each plane serializes at this rate behind a drop-tail queue, as a NIC
                                 port at line rate would (default 0: no limit) */
    uint32_t plane_queue_bytes; /* that queue (default 256 KiB) */
    uint64_t impair_seed;     /* seed of the impairment shim (default 1) */
    unsigned nrules;          /* 0..MRC_UDP_MAX_RULES */
    mrc_udp_impair_rule rule[MRC_UDP_MAX_RULES];
} mrc_udp_config;

typedef struct mrc_udp_plane_stats {
    uint64_t tx_pkts, tx_bytes;   /* datagrams handed to the kernel (UDP payload bytes) */
    uint64_t rx_pkts, rx_bytes;   /* datagrams received from the peer */
    uint64_t rx_ce, rx_ect;       /* received with ECN CE / ECT */
    uint64_t tx_err;              /* sends that failed with a hard error (ECONNREFUSED, ENETUNREACH, EPERM, ...) */
    uint64_t tx_blocked;          /* sendmmsg returned EAGAIN: the packet waited for EPOLLOUT */
    uint64_t rx_foreign;          /* datagrams from an address that is not the peer's (dropped) */
    uint64_t rx_stranger;         /* from the peer's address but not from one of its ports (mrc_udp_set_peer_sports):
                                     handed over as rxinfo.peer = MRC_UDP_STRANGER */
    uint64_t rx_trunc;            /* datagrams longer than MRC_UDP_PKT_MAX (dropped) */
    uint64_t imp_drop, imp_dup, imp_trim, imp_delay; /* impairments applied */
    uint64_t link_qdrop;          /* link model: dropped at a full plane queue */
} mrc_udp_plane_stats;

typedef struct mrc_udp_stats {
    mrc_udp_plane_stats plane[MRC_UDP_MAX_PLANES];
    uint64_t sendmmsg_calls, recvmmsg_calls, wakeups, timer_arms, timeouts_run, tos_changes;
    uint64_t ev_unmapped;         /* packets whose EV is not one of this adapter's source ports (sent from the
                                     plane's data socket instead) */
    uint64_t core_rx_rejected;    /* mrc_endpoint_recv returned MRC_ERR_DROP */
    uint64_t delay_overflow;      /* delayed packets dropped because the delay line was full */
    uint64_t step_max_ns;         /* longest mrc_udp_step, its sleep excluded */
    uint64_t rx_rounds_max;       /* most receive rounds in one step */
} mrc_udp_stats;

typedef struct mrc_udp mrc_udp;   /* opaque; mrc_udp_open allocates it */

/* Defaults as documented above (loopback of AF_INET). */
void mrc_udp_config_default(mrc_udp_config *cfg);
/* Set every plane's local address from a numeric string (IPv4 or IPv6). 0, or -1 when it does not parse. */
int mrc_udp_config_set_local(mrc_udp_config *cfg, unsigned plane, const char *addr);

/* Create, bind and configure every socket. 0, or -1 with a one-line reason in err (e.g. "cannot bind UDP
 * 127.0.0.1:20003 (plane 1 EV 3): Address already in use"). */
int mrc_udp_open(mrc_udp **out, const mrc_udp_config *cfg, char *err, size_t errlen);
void mrc_udp_close(mrc_udp *u); /* NULL is fine */

/* The bound receive address of plane p (1-based), to send to the peer out of band. 0 or -1. */
int mrc_udp_local_addr(const mrc_udp *u, unsigned plane, struct sockaddr_storage *out);
/* The peer's receive address per plane (from the out-of-band exchange): connects every EV socket of plane p to
 * peer[p-1]. Received datagrams whose source address is not peer[p-1]'s address are dropped. 0, or -1 + err. */
int mrc_udp_set_peer(mrc_udp *u, const struct sockaddr_storage *peer, unsigned planes, char *err, size_t errlen);
/* The peer's identity is its address and its source ports (docs/PROTOCOL.md P38): its ev_count EV source ports from
 * ev_first (from the out-of-band exchange), and its plane data ports (mrc_udp_set_peer). A datagram from the peer's
 * address but from another port is handed to the core with rxinfo.peer = MRC_UDP_STRANGER, so the core takes no
 * endpoint operation from it (counted rx_stranger). ev_count 0 (the default): any port is the peer's. 0 or -1. */
#define MRC_UDP_STRANGER 0xFFFFFFFFu
int mrc_udp_set_peer_sports(mrc_udp *u, uint16_t ev_first, unsigned ev_count);
/* UDP source port (= EV value) of EV k of plane p. */
uint16_t mrc_udp_ev_sport(const mrc_udp *u, unsigned plane, unsigned k);
unsigned mrc_udp_planes(const mrc_udp *u);
unsigned mrc_udp_evs_per_plane(const mrc_udp *u);

/* Program the core with the EV set of these sockets: an EV Format profile fmt_id (MRC_EV_FMT_UDP, one 16-bit
 * field) and an EXP EV profile prof_id whose EV i = (plane i % P + 1, source port of EV i / P of that plane), so
 * consecutive EVs alternate planes. min_active as mrc_ev_profile_attr.ev_min_active (0 = 1/8 of the EVs).
 * Returns MRC_OK or the core's error. The QPs then name prof_id at RESET -> INIT. */
int mrc_udp_ev_profile(const mrc_udp *u, mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, unsigned min_active,
                       mrc_time now);

/* Watch an extra fd (e.g. the out-of-band TCP socket): mrc_udp_step returns as soon as it is readable and reports
 * it in *ready (bit i = i-th watched fd). 0, or -1 when full. */
int mrc_udp_watch_fd(mrc_udp *u, int fd);

/* One turn of the loop: run due timers (after reading what the sockets already hold, when a deadline has passed),
 * send what the core has (up to tx_burst packets), then sleep until a datagram, a watched fd, the core's deadline or
 * wake_at (absolute ns; MRC_TIME_NEVER = none; 0 = do not sleep), receive every datagram waiting
 * (mrc_endpoint_recv), run due timers once the sockets are drained, and send again. Events are left for the
 * caller (mrc_endpoint_poll_event). Returns the datagrams moved (>= 0) or -1 on a socket error that is not
 * recoverable (errno set). ready may be NULL. */
int mrc_udp_step(mrc_udp *u, mrc_endpoint *ep, mrc_time wake_at, unsigned *ready);

/* Start the impairment clock: rule windows count from t0. */
void mrc_udp_impair_start(mrc_udp *u, mrc_time t0);
void mrc_udp_stats_get(const mrc_udp *u, mrc_udp_stats *out);

/* CLOCK_MONOTONIC in ns. */
mrc_time mrc_udp_now(void);

/* ---- raw datagrams (no core): the baseline blast uses the same sockets, batching and impairment ---------------- */
/* Queue one datagram hdr[0..hlen) + payload[0..plen) on EV k of plane p (both buffers must stay valid until the
 * next flush); it is sent when the batch is full or on mrc_udp_raw_flush. 0, or -1 (bad plane/EV, too long). */
int mrc_udp_raw_send(mrc_udp *u, unsigned plane, unsigned k, const void *hdr, size_t hlen, const void *payload,
                     size_t plen);
/* Send everything queued; blocks (poll on EPOLLOUT) while a socket is full. 0 or -1. */
int mrc_udp_raw_flush(mrc_udp *u);
/* Wait up to timeout_ns (0 = poll) for datagrams and hand each to fn. Returns the datagrams received, or -1. */
typedef void (*mrc_udp_raw_fn)(void *ud, unsigned plane, const uint8_t *pkt, size_t len, mrc_time now);
int mrc_udp_raw_recv(mrc_udp *u, uint64_t timeout_ns, mrc_udp_raw_fn fn, void *ud, unsigned *ready);

#ifdef __cplusplus
}
#endif
#endif /* MRC_UDP_H */
