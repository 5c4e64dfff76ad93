/* mrc_dpdk.h - DPDK port adapter for open MRC (mrc.h): ethdevs, mbufs and a TSC clock, no protocol logic.
 *
 * The adapter owns one DPDK ethdev per plane, a pool of mbufs and the clock of one endpoint towards one peer; it
 * moves frames between them and the core (mrc_endpoint_recv / mrc_endpoint_poll_tx / mrc_endpoint_on_timeout) and
 * never looks inside an MRC header: every wire field comes from mrc_txinfo, mrc_endpoint_ev_headers and the shared
 * frame codec (ports/common/mrc_frame.h). See ports/dpdk/README.md for the full description; the short version:
 *
 *   PLANES   plane p (1-based, = MRC port p) is ethdev cfg.port_id[p-1] (default: port p-1, i.e. the ethdevs in
 *            port-id order), with 1 RX and 1 TX queue, its own MAC (read from the device) and the IP address
 *            cfg.local_ip[p-1]. Frames are Ethernet / IPv4 or IPv6 / UDP 4791 / MRC / pad / ICRC (mrc_frame.h).
 *   EVs      EV k (0-based) of plane p is the UDP source port ev_port + (p-1)*K + k, K = evs_per_plane, exactly as
 *            the UDP port numbers them; mrc_dpdk_ev_profile() programs the core with that EXP EV profile.
 *   TX       mrc_endpoint_poll_tx writes the MRC headers straight into an mbuf, at a fixed offset leaving room
 *            for the longest L2-L4 header in front; mrc_frame_write_hdr fills that room (the frame is built in
 *            place, no header copy). The payload is either copied into the same mbuf (MRC_TX_COPY, one segment)
 *            or, with zero_copy, attached as an external buffer (rte_pktmbuf_attach_extbuf, a second segment that
 *            points into the caller's posted memory) followed by a small third segment with the pad and the ICRC.
 *            The ICRC is computed over the pieces (mrc_frame_icrc). rte_eth_tx_burst per plane; what a queue
 *            refuses is kept in order and retried (never reordered, never silently dropped unless the queue refuses
 *            it for tx_stuck_ns).
 *   RX       rte_eth_rx_burst on every plane, the bursts interleaved frame by frame across the planes (arrival
 *            order), multi-segment mbufs linearised into a scratch buffer, mrc_frame_parse (malformed frames,
 *            frames for another MAC/IP, wrong ICRC: dropped and counted by reason), a source check against the
 *            peer's address, mrc_endpoint_recv, free.
 *   TIME     rte_get_tsc_cycles() scaled to ns by a multiplier computed once at open (calibrated against
 *            CLOCK_MONOTONIC over 20 ms, so mrc_dpdk_now() and CLOCK_MONOTONIC share their epoch and rate): one
 *            multiply and shift per call, never a division.
 *   LOOP     mrc_dpdk_step busy-polls: by default it never sleeps. It returns when it moved packets, when wake_at
 *            has passed, when a watched fd is readable (polled with poll(..., 0) every fd_poll_ns) or when a held
 *            completion became deliverable. On a shared host, idle_sleep_ns lets an idle loop sleep briefly.
 *
 * OWNERSHIP RULE (zero_copy): an external-buffer mbuf references the caller's posted buffer until the driver (or,
 * with net_ring, the receiving side) frees it, which can be after the core has seen the write acknowledged. So the
 * core's MRC_EVT_SEND_DONE is not handed to the application directly: mrc_dpdk_poll_event holds every SEND_DONE back
 * until every external-buffer mbuf created before that event was pulled from the core has been freed (the free
 * callback of each one counts its release). Only then may the application reuse or free the buffer, exactly as
 * mrc.h's buffer rule says. Use mrc_dpdk_poll_event instead of mrc_endpoint_poll_event. Drivers that keep sent
 * mbufs in their TX ring are asked to free them (rte_eth_tx_done_cleanup) while a completion waits. Other events
 * are not held; SEND_DONEs keep their order. In copy mode nothing is held.
 *
 * EAL       mrc_dpdk_eal_init splits one string of EAL arguments (as testpmd takes them) and runs rte_eal_init once
 *           per process. See its comment for the defaults it adds.
 *
 * One mrc_dpdk serves one peer (point to point). Not thread-safe: one thread (the EAL main lcore) drives it and its
 * endpoint. Needs DPDK 22.11 or later; _GNU_SOURCE is defined by mrc_dpdk.c only.
 *
 * LICENSE   MIT, as mrc.h.
 */
#ifndef MRC_DPDK_H
#define MRC_DPDK_H

#include "../../mrc.h"
#include "../common/mrc_frame.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_DPDK_MAX_PLANES MRC_MAX_PORTS
#define MRC_DPDK_MAX_EVS 256u     /* planes x evs_per_plane */
#define MRC_DPDK_BURST_MAX 64u    /* largest rx / tx burst */
#define MRC_DPDK_MAX_WATCH 4u     /* extra fds mrc_dpdk_step watches for the application */

typedef struct mrc_dpdk_config {
    unsigned planes;          /* 1..MRC_DPDK_MAX_PLANES (default 8) */
    uint16_t port_id[MRC_DPDK_MAX_PLANES]; /* ethdev of plane p (default p-1: the ethdevs in port-id order) */
    uint8_t local_ip[MRC_DPDK_MAX_PLANES][16]; /* this side's IP on plane p (IPv4 in [0..4); default 10.78.p.1) */
    mrc_frame_cfg frame;      /* wire choices (mrc_frame_cfg_default; frame.ipv6 = 1 for IPv6 frames) */
    unsigned evs_per_plane;   /* K, 1..MRC_DPDK_MAX_EVS / planes (default 16) */
    uint16_t ev_port;         /* EV k of plane p is UDP source port ev_port + (p-1)*K + k (default 20000) */
    unsigned tx_burst;        /* most packets pulled from the core per transmit burst, 1..MRC_DPDK_BURST_MAX (32) */
    unsigned rx_burst;        /* rte_eth_rx_burst size per plane, 1..MRC_DPDK_BURST_MAX (default 32) */
    unsigned rx_tx_every;     /* while handing received frames to the core, run a transmit burst after this many
                                 (default 16; 0 = once per receive round): acknowledgements leave mid-burst */
    uint16_t rx_desc, tx_desc;/* descriptors per queue (default 1024; adjusted to the device's limits) */
    unsigned mbufs;           /* mbufs in the frame pool (default 8191); the zero-copy pool gets twice as many */
    uint16_t mbuf_data_room;  /* bytes per frame mbuf incl. RTE_PKTMBUF_HEADROOM (default 128 + 4608: one 4 KiB-MTU
                                 frame, and what net_af_packet framesz=4608 needs: framesz <= data room - 128 + 32) */
    uint8_t zero_copy;        /* 1: payloads as external-buffer mbufs (see OWNERSHIP RULE); 0: copied (default 0,
                                 chosen by measurement: README "copy vs zero-copy") */
    uint16_t zc_min_payload;  /* zero_copy only for payloads of at least this many bytes (default 1024) */
    uint8_t promisc;          /* put the ethdevs in promiscuous mode (default 0: frames carry the peer's MAC) */
    uint8_t check_peer;       /* drop frames whose source IP is not the peer's on that plane (default 1) */
    uint32_t peer;            /* the peer handle used in mrc_conn_attr.peer and mrc_rxinfo.peer (default 1) */
    uint64_t tx_stuck_ns;     /* a plane whose TX queue refused its frames this long drops them (default 2 ms) */
    uint64_t fd_poll_ns;      /* watched fds are polled this often while spinning (default 50 us) */
    uint64_t idle_sleep_ns;   /* 0 (default): pure busy poll. Otherwise, once the loop has found nothing to do for
                                 idle_spin_ns, it sleeps up to this long at a time (ppoll on the watched fds, never
                                 past the core's deadline or wake_at): for hosts where the CPU is shared */
    uint64_t idle_spin_ns;    /* default 50 us */
} mrc_dpdk_config;

typedef struct mrc_dpdk_plane_stats {
    uint64_t tx_pkts, tx_bytes;   /* frames rte_eth_tx_burst accepted (whole frame bytes) */
    uint64_t rx_pkts, rx_bytes;   /* frames rte_eth_rx_burst returned, any content */
    uint64_t tx_refused;          /* frames a tx_burst call refused (queue full; kept in order and retried) */
    uint64_t tx_drop;             /* frames freed unsent: refused for tx_stuck_ns, or unframeable */
    uint64_t rx_drop[MRC_FRAME_DROP_NDROP]; /* frames mrc_frame_parse rejected, by reason (mrc_frame_drop_name) */
    uint64_t rx_foreign;          /* well-formed frames whose source IP is not the peer's on this plane */
    uint64_t rx_linearised;       /* multi-segment frames copied into the scratch buffer */
    uint64_t rx_too_long;         /* frames longer than the scratch buffer (dropped) */
} mrc_dpdk_plane_stats;

typedef struct mrc_dpdk_stats {
    mrc_dpdk_plane_stats plane[MRC_DPDK_MAX_PLANES];
    uint64_t core_rx_rejected;    /* mrc_endpoint_recv returned MRC_ERR_DROP (counted by reason in the core) */
    uint64_t tx_copy, tx_zc;      /* frames with a payload sent copied / zero-copy */
    uint64_t zc_fallback;         /* zero_copy frames copied because no external-buffer slot or mbuf was free */
    uint64_t ext_attached, ext_released; /* external-buffer mbufs created / freed (free callback) */
    uint64_t ev_held;             /* SEND_DONE events held back by the ownership rule */
    uint64_t ev_held_max;         /* most held at once */
    uint64_t ev_hold_max_ns;      /* longest hold */
    uint64_t tx_done_cleanups;    /* rte_eth_tx_done_cleanup calls made for a held event */
    uint64_t no_mbuf;             /* mbuf allocations that failed (the core keeps its packet for later) */
    uint64_t timeouts_run, loops, fd_polls, idle_sleeps;
    uint64_t step_max_ns;         /* longest mrc_dpdk_step that moved packets (its idle spinning excluded) */
    uint64_t tsc_hz;              /* the calibrated TSC rate */
} mrc_dpdk_stats;

typedef struct mrc_dpdk mrc_dpdk; /* opaque; mrc_dpdk_open allocates it */

/* ---- EAL -------------------------------------------------------------------------------------------------------- */
/* Initialise DPDK's EAL from one string of arguments, split at white space ('...' and "..." quote), e.g.
 * "--no-huge --no-pci -m 256 --vdev=net_af_packet0,iface=veth1". Added unless the string sets them:
 *   --in-memory             (no --file-prefix / --in-memory given: no shared files, so processes never collide)
 *   --lcores=0@(CPUS)       (no -l / -c / --lcores: the main lcore may run on every CPU this process may use,
 *                            like an ordinary thread, instead of being pinned to CPU 0)
 *   --no-telemetry          (no --telemetry)
 * EAL messages printed during rte_eal_init are suppressed (the error says why in one line) unless the string has
 * --log-level; afterwards DPDK logs go to stderr, never stdout. Once per process: a second call only returns the
 * port count. Returns the number of ethdevs, or -1 with one line in err (e.g. "DPDK EAL init failed: ...:
 * net_af_packet0: ioctl failed (SIOCGIFINDEX): No such device"). */
int mrc_dpdk_eal_init(const char *args, char *err, size_t errlen);
/* The first error line the EAL printed during a quiet mrc_dpdk_eal_init, "" if none: a device that failed to
 * probe does not fail rte_eal_init, it only leaves fewer ethdevs, and this says why. */
const char *mrc_dpdk_eal_message(void);
/* rte_eal_cleanup, after every mrc_dpdk is closed. */
void mrc_dpdk_eal_cleanup(void);

/* The ids of up to max ethdevs in port-id order (what the EAL found: --vdev devices and probed NICs). Returns how
 * many there are (may exceed max). */
unsigned mrc_dpdk_ports(uint16_t *ids, unsigned max);

/* ---- the adapter ------------------------------------------------------------------------------------------------ */
void mrc_dpdk_config_default(mrc_dpdk_config *cfg);
/* Set plane p's local IP (numeric IPv4 or IPv6; its family must match cfg.frame.ipv6). 0, or -1. */
int mrc_dpdk_config_set_local(mrc_dpdk_config *cfg, unsigned plane, const char *ip);

/* Configure and start every plane's ethdev (1 RX + 1 TX queue), create the mbuf pools, calibrate the clock. 0, or
 * -1 with a one-line reason in err (e.g. "plane 3: ethdev 2 does not exist (the EAL found 2 ethdevs: give one
 * --vdev or NIC per plane)"). An ethdev serves one adapter at a time. */
int mrc_dpdk_open(mrc_dpdk **out, const mrc_dpdk_config *cfg, char *err, size_t errlen);
/* Stop the ethdevs (rte_eth_dev_stop: the application may configure them again; net_af_packet cannot restart a
 * stopped port) and free the pools. Mbufs still referenced elsewhere (e.g. in a peer's net_ring) keep their pool
 * and slot table alive rather than leave dangling pointers (a deliberate leak). NULL is fine. */
void mrc_dpdk_close(mrc_dpdk *d);

/* Plane p's MAC (from the device) and IP, to send to the peer out of band. 0 or -1. */
int mrc_dpdk_local_addr(const mrc_dpdk *d, unsigned plane, mrc_frame_addr *out);
/* The peer's MAC and IP per plane (out-of-band exchange): destination of every frame of plane p, and the only
 * source accepted there (check_peer). 0, or -1 + err. */
int mrc_dpdk_set_peer(mrc_dpdk *d, const mrc_frame_addr *peer, unsigned planes, char *err, size_t errlen);
uint16_t mrc_dpdk_ev_sport(const mrc_dpdk *d, unsigned plane, unsigned k);
unsigned mrc_dpdk_planes(const mrc_dpdk *d);
unsigned mrc_dpdk_evs_per_plane(const mrc_dpdk *d);
uint16_t mrc_dpdk_port_id(const mrc_dpdk *d, unsigned plane);
/* "net_af_packet" etc. of plane p's ethdev */
const char *mrc_dpdk_driver(const mrc_dpdk *d, unsigned plane);
int mrc_dpdk_zero_copy(const mrc_dpdk *d);

/* Program the core with this EV set, exactly as mrc_udp_ev_profile does: an EV Format profile fmt_id
 * (MRC_EV_FMT_UDP, one 16-bit field) and an EXP EV profile prof_id whose EV i = (plane i % P + 1, source port of
 * EV i / P of that plane). min_active as mrc_ev_profile_attr.ev_min_active. MRC_OK or the core's error. */
int mrc_dpdk_ev_profile(const mrc_dpdk *d, mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, unsigned min_active,
                        mrc_time now);

/* Watch an extra fd (e.g. the out-of-band TCP socket): mrc_dpdk_step returns soon after it is readable (bit i of
 * *ready = i-th watched fd). 0, or -1 when full. */
int mrc_dpdk_watch_fd(mrc_dpdk *d, int fd);

/* One turn of the busy-poll loop: run due timers, send what the core has (up to tx_burst packets), receive up to 4
 * rounds of bursts (each followed by timers and a transmit burst); repeat until something moved, wake_at
 * (absolute ns; 0 = one pass only; MRC_TIME_NEVER = no limit) has passed, a watched fd is readable or a held
 * completion can be delivered. Events are left for mrc_dpdk_poll_event. Returns the packets moved (>= 0). ready may
 * be NULL. */
int mrc_dpdk_step(mrc_dpdk *d, mrc_endpoint *ep, mrc_time wake_at, unsigned *ready);

/* mrc_endpoint_poll_event with the ownership rule applied (see the top of this file): 1 and *ev, 0 none (or only
 * held ones), or the core's error. */
int mrc_dpdk_poll_event(mrc_dpdk *d, mrc_endpoint *ep, mrc_event *ev);
/* External-buffer mbufs created and not yet freed; SEND_DONE events currently held back. */
uint64_t mrc_dpdk_ext_outstanding(const mrc_dpdk *d);
unsigned mrc_dpdk_events_held(const mrc_dpdk *d);

void mrc_dpdk_stats_get(const mrc_dpdk *d, mrc_dpdk_stats *out);
/* mrc_frame_drop_name, for the indexes of mrc_dpdk_plane_stats.rx_drop[] (the codec is private to the adapter) */
const char *mrc_dpdk_drop_name(int reason);
/* The adapter's clock (TSC, ns, CLOCK_MONOTONIC's epoch): pass it into every core call. */
mrc_time mrc_dpdk_now(const mrc_dpdk *d);

/* ---- raw frames (no core): the baseline blast on the same ethdevs ------------------------------------------------
 * A frame of the same framing as MRC's (Ethernet/IP/UDP 4791 to the peer, source port = EV k of plane p, ICRC)
 * carrying hdr[0..hlen) + payload[0..plen) where MRC's headers and payload would be, sent the same way (copy or
 * zero-copy). Queued per plane and sent per burst or on flush. 0, or -1 (no peer, bad plane/EV, too long, no mbuf
 * for 2 ms). */
int mrc_dpdk_raw_send(mrc_dpdk *d, unsigned plane, unsigned k, const void *hdr, size_t hlen, const void *payload,
                      size_t plen);
/* Send everything queued (bounded by tx_stuck_ns per plane). 0 or -1. */
int mrc_dpdk_raw_flush(mrc_dpdk *d);
/* Receive for up to timeout_ns (0 = one poll) and hand each accepted frame's UDP payload (ICRC removed) to fn.
 * Returns the frames received (any content), or -1. */
typedef void (*mrc_dpdk_raw_fn)(void *ud, unsigned plane, const uint8_t *pkt, size_t len, mrc_time now);
int mrc_dpdk_raw_recv(mrc_dpdk *d, uint64_t timeout_ns, mrc_dpdk_raw_fn fn, void *ud, unsigned *ready);

#ifdef __cplusplus
}
#endif
#endif /* MRC_DPDK_H */
