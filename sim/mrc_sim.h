/* mrc_sim.h - deterministic discrete-event fabric simulator that drives real mrc.h endpoints (host tool).
 *
 * USAGE
 *   In exactly one C file:   #define MRC_IMPLEMENTATION      (the core, compiled with the capacities you need)
 *                            #include "mrc.h"
 *                            #define MRC_SIM_IMPLEMENTATION
 *                            #include "sim/mrc_sim.h"
 *   MRC_SIM_STATIC makes every API function static. The simulator mallocs (it is a host tool, not firmware); it has
 *   no global mutable state, so several simulations can coexist in one process.
 *
 *     mrc_sim_config cfg; mrc_sim *s; mrc_sim_flow_spec f = {0};
 *     mrc_sim_config_default(&cfg); cfg.topo = MRC_SIM_FATTREE; cfg.k = 4; cfg.seed = 7;
 *     mrc_sim_create(&s, &cfg);
 *     f.src = 0; f.dst = 5; f.bytes = 2000000; f.after = MRC_SIM_NONE; mrc_sim_add_flow(s, &f);
 *     mrc_sim_run(s, MRC_TIME_NEVER);          (1 when every flow completed)
 *     mrc_sim_flow_get(s, 0, &res); mrc_sim_totals_get(s, &tot); mrc_sim_destroy(s);
 *
 * MODEL (sim/README.md has the details, every parameter and its default)
 *   TOPOLOGY  (a) 3-tier fat tree of parameter k: k^3/4 hosts with one port, k pods of k/2 T0 (edge) and k/2 T1
 *             (aggregation) switches, (k/2)^2 T2 (core) switches. (b) multi-plane 2-tier Clos: hosts with P ports,
 *             one independent plane per port; each plane has ceil(hosts / (radix/2)) T0s with radix/2 hosts each and
 *             radix/2 T1s, one link from every T0 to every T1. Every link: rate, propagation delay, serialization.
 *   SWITCH    output-queued, store-and-forward, no processing delay. Per output port: a strict-priority queue for
 *             CONTROL-class packets and trimmed headers, and a data queue of queue_bytes (default 1 BDP) with ECN
 *             CE marking whose probability rises linearly from ecn_kmin to ecn_kmax (default 20% / 80% of the
 *             queue) on switch-to-switch links (off on the last hop to a host). A data packet that does not fit is
 *             trimmed to its MRC headers and remarked DSCP TRIMMED when its DSCP class is trimmable and trimming is
 *             on, dropped otherwise (drop-tail). Classes come from the packet's DSCP codepoint, as in a switch.
 *   ROUTING   ECMP: a per-switch seeded hash of (source host, destination host, EV = UDP source port) picks the
 *             uplink; down routes are unique. SRv6: the NIC writes a uN uSID list (32-bit block + 16-bit uSIDs) into
 *             the outer DA; each switch matches its own uSID, shifts, and looks the next uSID up in one static table.
 *   NIC       P ports, each with its own link and a small transmit queue (nic_txq_pkts). The simulator calls
 *             mrc_endpoint_poll_tx whenever any port can take a packet; the packet goes to the port the core chose
 *             (and queues there if that port is busy). Received packets go to mrc_endpoint_recv at once. A NIC
 *             learns that its own link went down or up detect_ns later (mrc_endpoint_port_set); so do switches
 *             (a known-down uplink leaves the ECMP group). Black holes, random loss and degraded links are silent.
 *   BYTES     every packet carries the real MRC bytes from mrc_endpoint_poll_tx; the payload pointer refers to the
 *             sender's source buffer and is gathered into a contiguous packet at delivery. Receivers register one
 *             MRC_ACCESS_EXTERNAL region per host; the place hook checks the placed bytes against the source.
 *   TIME      integer ns; events ordered by (time, insertion sequence): same config, flows, faults and seed ->
 *             identical run (mrc_sim_totals.digest).
 *
 * LICENSE   MIT, as mrc.h.
 */
#ifndef MRC_SIM_H
#define MRC_SIM_H

#ifndef MRC_H
#include "../mrc.h"
#endif
#include <stdio.h>

#ifndef MRC_SIM_API
#ifdef MRC_SIM_STATIC
#define MRC_SIM_API static
#else
#define MRC_SIM_API extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_SIM_NONE 0xFFFFFFFFu
enum { MRC_SIM_FATTREE = 0, MRC_SIM_MULTIPLANE = 1 };
enum { MRC_SIM_ROUTE_ECMP = 0, MRC_SIM_ROUTE_SRV6 = 1 };
enum { MRC_SIM_VERIFY_NONE = 0, MRC_SIM_VERIFY_SAMPLED = 1, MRC_SIM_VERIFY_FULL = 2 };
#define MRC_SIM_MAX_PCAP_HOSTS 8

typedef struct mrc_sim mrc_sim;
enum { MRC_SIM_DONE_RX = 1, MRC_SIM_DONE_TX = 2 }; /* mrc_sim_config.on_done's side */

typedef struct mrc_sim_config {
    uint64_t seed;            /* the only source of randomness (switch hash salts, losses, ECN, endpoint seeds) */
    /* topology */
    uint8_t topo;             /* MRC_SIM_FATTREE (default) or MRC_SIM_MULTIPLANE */
    uint32_t k;               /* fat tree parameter, even, 2..64 (default 16: 1024 hosts) */
    uint32_t planes;          /* multi-plane: planes = host ports, 1..MRC_MAX_PORTS (default 8) */
    uint32_t radix;           /* multi-plane: switch radix, even (default 64) */
    uint32_t hosts;           /* multi-plane: host count, <= radix^2/2 (default 1024); fat tree: k^3/4, ignored */
    uint64_t link_bps;        /* every link (default 100e9) */
    uint64_t host_bps;        /* rate of each host port and its T0 link (default 0 = link_bps) */
    uint32_t prop_ns;         /* propagation delay of every link (default 1000) */
    uint32_t mtu;             /* path MTU, payload bytes per packet (default 4096) */
    uint32_t wire_overhead;   /* bytes on the wire around the MRC bytes: Eth 14 + IPv6 40 + UDP 8 + ICRC 4 + FCS 4
                                 + preamble/SFD 8 + IFG 12 = 90 (default) */
    uint32_t srv6_overhead;   /* extra outer IPv6 header in SRv6 mode (default 40) */
    /* switches */
    uint64_t queue_bytes;     /* data queue per output port (default 0 = 1 BDP of link_bps x base RTT) */
    uint64_t prio_queue_bytes;/* priority queue (control + trimmed headers) per port (default 0 = queue_bytes) */
    bool ecn;                 /* ECN marking on switch-to-switch links (default true) */
    bool ecn_last_hop;        /* also on switch-to-host links (default false: MRC runs it off on the last hop) */
    uint8_t ecn_kmin_pct, ecn_kmax_pct; /* marking thresholds, % of queue_bytes (default 20, 80) */
    bool trim;                /* packet trimming (default true); false = drop-tail for every class */
    uint32_t trim_bytes;      /* MRC bytes a trimmed packet keeps (default 0 = its MRC headers) */
    bool trim_lasthop_dscp;   /* trims on a switch-to-host port get DSCP TRIMMED_LASTHOP (default true: the
                                 receiver then answers TRIMMED_LASTHOP, docs/PROTOCOL.md P30) */
    uint8_t routing;          /* MRC_SIM_ROUTE_ECMP (default) or MRC_SIM_ROUTE_SRV6 */
    /* NICs */
    uint32_t nic_txq_pkts;    /* a NIC port can take a packet while it holds fewer than this (default 2) */
    uint32_t detect_ns;       /* link-state change seen by the nodes at both ends after this (default 10000) */
    /* endpoints (mrc_config / mrc_conn_attr the simulator sets) */
    uint16_t evs_per_qp;      /* AUTO EVs per QP over all ports (default 128); core.auto_ev.per_port = max(1, this / P) */
    bool ev_paths;            /* path-aware EV profile instead of AUTO (default false): each endpoint's EXP profile
                                 enumerates its fabric's up paths once: one EV per (plane, T1) on the Clos
                                 (P x radix/2 EVs), one per (T1, T2) on the fat tree ((k/2)^2). Under SRv6 routing
                                 every EV of a QP is then a distinct path; under ECMP they are just consecutive
                                 source ports (evs_per_qp is ignored). Their policy is core.ev's: the path-aware
                                 scenarios of mrc_simrun name MRC_EV_PRESET_PATHS (no backups, no sweeps) */
    bool ev_groups;           /* ev_paths on the fat tree: the profile's P26 hop groups say which EVs share a T1 (the
                                 T0 uplink and the T1 down to the destination's T0), so a confirmed black hole there
                                 retires them together (default true). The Clos has none: its EVs share no hop */
    bool ev_hashed;           /* ECMP-hashed EVs in an EXP profile instead of AUTO (default false; ECMP routing, not
                                 with ev_paths): each endpoint's profile holds evs_per_qp random UDP source ports, EV
                                 i on plane i % P + 1; give core.ev the policy AUTO's EVs get, MRC_EV_PRESET_ECMP
                                 (recycled, replies rotate), as mrc_simrun's --ev-hashed does. It gives the oracle
                                 below something to mark on an ECMP fabric: the control plane addresses EVs through a
                                 profile, never a QP's AUTO EVs (docs/PROTOCOL.md 7.1) */
    bool oracle_bypass;       /* a bound, not a mechanism (default false; needs ev_paths or ev_hashed): each
                                 black-holed data packet makes its sender mark that EV ASSUMED_BAD at once, as a
                                 controller told of the drop would (mrc_ev_op MODIFY_STATE on the host's profile);
                                 nothing end to end can detect a dead path sooner */
    bool oracle_fault;        /* a stronger bound (default false; needs ev_paths or ev_hashed): when a cable is
                                 black-holed, every host marks ASSUMED_BAD, at that instant and through the same
                                 control API, each EV of its profile whose path to the destination of one of its
                                 flows crosses the cable - no packet is sent into the hole after the fault, whatever
                                 the EV policy. Marks follow data paths only (a profile's EV serves all of a host's
                                 QPs, so marking for the SACK paths would take EVs from its data too) */
    uint32_t cwnd_bytes;      /* 0 (default): the core's NSCC, sized from the host rate and the unloaded RTT; a
                                 value: a fixed window of that many bytes; MRC_SIM_NONE: no congestion control */
    uint8_t mpr;              /* MPR and MPR_dest, units of 128 PSNs (default 8) */
    uint8_t timeout;          /* ACK timeout exponent, 1.024 us x 2^t (default 7: 131 us) */
    uint8_t retry_linear, retry_exp; /* (default 7, 7) */
    /* every endpoint's mrc_config, passed through as it is (default: mrc_config_default), except what the fabric
     * decides: seed (one per host), num_ports (the planes), qpn_base (fixed QPNs: flows are indexed by QPN),
     * auto_ev.per_port (evs_per_qp over the planes), cc.algo and cc.fixed_cwnd_bytes (cwnd_bytes), cc.line_rate_mbps
     * and cc.base_rtt_ns (the host's rate and the unloaded RTT) and the hooks. Its dscp[] are the switches' too. A
     * scenario that needs an EV policy other than the default names its preset (mrc_ev_policy_preset). */
    mrc_config core;
    /* outputs */
    uint64_t sample_ns;       /* time-series interval (default 0 = none) */
    uint8_t verify;           /* MRC_SIM_VERIFY_* placed-byte check (default SAMPLED: 3 x 8 bytes per packet) */
    uint32_t linger_ns;       /* a finished flow's QPs are destroyed this long after completion (default 200000) */
    /* flows created while the simulation runs (dependency-driven workloads: a ring all-reduce's next step, an
     * all-to-all's next destination). on_done, when set, is called once when a flow's reception completes
     * (MRC_SIM_DONE_RX: its last byte placed) and once when its sender learns it (MRC_SIM_DONE_TX: SEND_DONE), at
     * that instant of simulated time; it may call mrc_sim_add_flow, whose flow then starts at max(its start, now)
     * or when its 'after' completes. O(1) per completion; the order of calls is the run's, so runs stay
     * deterministic. With on_done set every host registers a receive region large enough for the flows to come
     * (flows are placed one after another in it), and flows added during the run may not be larger than
     * flow_bytes_max (default 0: the largest flow added before the run). */
    void (*on_done)(void *ud, mrc_sim *s, uint32_t flow, int side);
    void *on_done_ud;
    uint64_t flow_bytes_max;
    FILE *pcap;               /* optional pcap (ns timestamps) of the packets sent and received by pcap_hosts */
    uint32_t pcap_hosts[MRC_SIM_MAX_PCAP_HOSTS];
    uint32_t n_pcap_hosts;
} mrc_sim_config;

typedef struct mrc_sim_flow_spec {
    uint32_t src, dst;        /* hosts */
    uint64_t bytes;           /* 1..MRC_MAX_MSG_LEN, one RDMA Write */
    mrc_time start;           /* earliest start */
    uint32_t after;           /* flow id whose reception must complete first, or MRC_SIM_NONE */
    uint32_t incast;          /* the sender QP's hint num_remote_recv_peers (0: no hint; docs/PROTOCOL.md P31) */
    uint64_t user;            /* the caller's tag (mrc_sim_flow_user), for on_done */
} mrc_sim_flow_spec;

enum mrc_sim_fault_kind {
    MRC_SIM_FAULT_BLACKHOLE = 1,   /* cable silently drops everything (both directions) */
    MRC_SIM_FAULT_LINK_DOWN,       /* cable down, seen by both ends after detect_ns */
    MRC_SIM_FAULT_FLAP,            /* cable down for down_ns every period_ns, from at until until */
    MRC_SIM_FAULT_DEGRADE,         /* cable rate cut to rate_pct % */
    MRC_SIM_FAULT_LOSS,            /* random loss loss_ppm on a cable, or on every cable (target MRC_SIM_NONE) */
    MRC_SIM_FAULT_SWITCH_DOWN,     /* every cable of switch 'target' down (seen by the neighbours) */
    MRC_SIM_FAULT_SWITCH_BLACKHOLE,/* switch 'target' silently drops everything it receives */
    MRC_SIM_FAULT_PORT_DOWN,       /* host 'target', port 'port': its cable down */
    MRC_SIM_FAULT_PLANE_DOWN,      /* every host cable of plane 'port' down */
    MRC_SIM_FAULT_HOST_STALL       /* host 'target' drops every packet that reaches it, on any port, for down_ns every
                                      period_ns from at until until: a starved or overflowing receiver, told to nobody */
};
typedef struct mrc_sim_fault {
    uint8_t kind;
    mrc_time at;              /* when it starts */
    mrc_time until;           /* when it is undone (0 = never) */
    uint32_t target;          /* cable id, switch index (0-based) or host, per kind */
    uint8_t port;             /* 1-based host port / plane */
    uint32_t loss_ppm, rate_pct;
    mrc_time period_ns, down_ns; /* FLAP */
} mrc_sim_fault;

typedef struct mrc_sim_cable {
    uint32_t a, b;            /* node ids: a host id (< hosts) or hosts + switch index; a is the lower tier */
    uint8_t tier;             /* 0: host-T0, 1: T0-T1, 2: T1-T2 */
    uint8_t plane;            /* 0-based */
} mrc_sim_cable;

typedef struct mrc_sim_flow_result {
    uint32_t src, dst;
    uint64_t bytes;
    mrc_time start;           /* actual start (after its dependency) or MRC_TIME_NEVER */
    mrc_time rx_done;         /* last byte placed at the receiver, or MRC_TIME_NEVER */
    mrc_time tx_done;         /* sender's MRC_EVT_SEND_DONE, or MRC_TIME_NEVER */
    mrc_time ideal_ns;        /* mrc_sim_ideal_fct */
    int status;               /* MRC_OK, or the first error (QP error, failed setup, bad placement) */
    /* from the QPs' mrc_conn_stats */
    uint64_t tx_data, tx_rtx, tx_probes, rto_fired, tlp_fired, rx_nack, ev_skip_req, ev_trims, ev_losses;
    uint64_t ev_demoted, ev_withheld, ev_revived, rtx_spurious; /* the sender's EV manager and loss detector */
    uint64_t ev_loss_host;    /* the sender's silent losses taken as the receiving host's (docs/PROTOCOL.md P39) */
    uint64_t rx_data, rx_trimmed, rx_dup, tx_nack, tx_sack;
    /* from the fabric */
    uint64_t bh_drops;        /* data packets of this flow dropped in black holes */
    mrc_time bh_first, bh_last;
    uint64_t fabric_trims, fabric_drops; /* data packets of this flow trimmed / dropped anywhere */
} mrc_sim_flow_result;

typedef struct mrc_sim_totals {
    uint64_t events, pkts_sent, pkts_delivered, data_delivered;
    uint64_t drop_queue, drop_prio, drop_blackhole, drop_down, drop_loss, drop_noroute, drop_srv6, drop_nic_down;
    uint64_t oracle_marks;    /* oracle_bypass: EVs marked ASSUMED_BAD at a black-hole drop; oracle_fault: at the fault */
    uint64_t trims, ecn_marks;
    uint64_t q_max_fabric, q_max_lasthop, q_max_nic; /* largest data-queue occupancy seen, bytes */
    uint64_t place_bad, place_dup, bytes_placed;
    uint64_t rx_rejected;     /* mrc_endpoint_recv returned < 0 */
    uint64_t drop_host;       /* packets a stalled host dropped on arrival (MRC_SIM_FAULT_HOST_STALL) */
    uint64_t conn_errors, flows_done, flows_failed;
    uint64_t plane_bytes[MRC_MAX_PORTS]; /* bytes sent by host NIC ports per plane */
    uint64_t trace_count[32]; /* MRC_ENABLE_TRACE: calls of the core's trace hook per id */
    uint64_t digest;          /* FNV-1a over every delivery (time, host, port, bytes): the run's fingerprint */
    uint64_t qp_waits;        /* on_done: flow starts that waited for a free QP slot (MRC_MAX_CONNS) on a host */
    uint64_t pkt_pool;        /* packets the pool holds (its peak, rounded up to a chunk of 2^16); heap_max: the
                                 event heap's capacity (its largest size, rounded up to a power of two) */
    uint64_t heap_max;
} mrc_sim_totals;

typedef struct mrc_sim_sample {
    mrc_time t;               /* end of the interval */
    uint64_t placed;          /* bytes placed during the interval (all receivers) */
    uint64_t plane_bytes[MRC_MAX_PORTS]; /* bytes sent by NIC ports of each plane during the interval */
    uint64_t trims, drops, marks;        /* during the interval */
    uint64_t q_max, q_sum;    /* data-queue bytes over switch-to-switch ports at t: max and sum */
    uint64_t q_lasthop_max;
    uint32_t active_flows;
} mrc_sim_sample;

MRC_SIM_API void mrc_sim_config_default(mrc_sim_config *cfg);
/* Build the topology and the endpoints. 0, or -1 with *out NULL (the reason in err if err_cap > 0). */
MRC_SIM_API int mrc_sim_create(mrc_sim **out, const mrc_sim_config *cfg, char *err, size_t err_cap);
MRC_SIM_API void mrc_sim_destroy(mrc_sim *s);
MRC_SIM_API const mrc_sim_config *mrc_sim_config_get(const mrc_sim *s); /* defaults resolved */
MRC_SIM_API uint32_t mrc_sim_path_evs(const mrc_sim *s); /* EVs per QP of the ev_paths profile; 0 without */

MRC_SIM_API uint32_t mrc_sim_hosts(const mrc_sim *s);
MRC_SIM_API uint32_t mrc_sim_ports(const mrc_sim *s);       /* ports (planes) per host */
MRC_SIM_API uint32_t mrc_sim_switches(const mrc_sim *s);
MRC_SIM_API uint32_t mrc_sim_cables(const mrc_sim *s);
MRC_SIM_API int mrc_sim_cable_get(const mrc_sim *s, uint32_t id, mrc_sim_cable *out);
MRC_SIM_API uint32_t mrc_sim_host_t0(const mrc_sim *s, uint32_t host, unsigned port); /* switch index */
MRC_SIM_API mrc_time mrc_sim_base_rtt(const mrc_sim *s);    /* unloaded RTT of the longest path, MTU data + ACK */
MRC_SIM_API uint64_t mrc_sim_host_bdp(const mrc_sim *s);    /* all host ports x base RTT, bytes */
MRC_SIM_API uint64_t mrc_sim_host_rate(const mrc_sim *s);   /* all host ports, bit/s */
/* Unloaded completion time of a flow sent at full NIC rate: wire bytes / NIC rate + per-hop latency. */
MRC_SIM_API mrc_time mrc_sim_ideal_fct(const mrc_sim *s, uint32_t src, uint32_t dst, uint64_t bytes);
MRC_SIM_API uint32_t mrc_sim_hops(const mrc_sim *s, uint32_t src, uint32_t dst); /* links on the path */
MRC_SIM_API uint64_t mrc_sim_wire_bytes(const mrc_sim *s, uint64_t bytes); /* on the wire for one message */

/* Flows and faults are added before mrc_sim_run (flows also from mrc_sim_config.on_done during it). add_flow returns
 * the flow id or MRC_SIM_NONE. */
MRC_SIM_API uint32_t mrc_sim_add_flow(mrc_sim *s, const mrc_sim_flow_spec *f);
MRC_SIM_API int mrc_sim_add_fault(mrc_sim *s, const mrc_sim_fault *f); /* 0 or -1 */
/* Run until every flow has completed or failed (1), or until 'until' / nothing left to do (0); < 0 on an internal
 * error. May be called again with a later 'until'. */
MRC_SIM_API int mrc_sim_run(mrc_sim *s, mrc_time until);
MRC_SIM_API mrc_time mrc_sim_now(const mrc_sim *s);

MRC_SIM_API uint32_t mrc_sim_flows(const mrc_sim *s);
MRC_SIM_API uint64_t mrc_sim_flow_user(const mrc_sim *s, uint32_t id); /* its spec's user tag (0 for a bad id) */
MRC_SIM_API int mrc_sim_flow_get(const mrc_sim *s, uint32_t id, mrc_sim_flow_result *out);
MRC_SIM_API void mrc_sim_totals_get(const mrc_sim *s, mrc_sim_totals *out);
MRC_SIM_API uint32_t mrc_sim_samples(const mrc_sim *s);
MRC_SIM_API int mrc_sim_sample_get(const mrc_sim *s, uint32_t i, mrc_sim_sample *out);

/* SRv6 (the simulator's own path encoding until mrc.h emits SRv6 path bytes): the outer DA for a packet from host
 * src on port (1-based) to dst over the EV's static path. Returns the uSID count (>= 2) or -1. */
MRC_SIM_API int mrc_sim_srv6_path(const mrc_sim *s, uint32_t src, unsigned port, uint32_t dst, uint32_t ev,
                                  uint8_t da[16]);
/* Routing self-test on the built topology: ECMP and SRv6 forwarding walk packets switch by switch for sampled
 * (src, dst, EV) triples and check they reach dst in mrc_sim_hops links. 0, or -1 with the reason in msg. */
MRC_SIM_API int mrc_sim_selftest(mrc_sim *s, char *msg, size_t cap);

/* ---- dependency-free SVG line plots ---------------------------------------------------------------------- */
typedef struct mrc_sim_series {
    const char *name;
    const double *x, *y;
    uint32_t n;
} mrc_sim_series;
enum { MRC_SIM_PLOT_STEP = 1u, MRC_SIM_PLOT_YZERO = 2u, MRC_SIM_PLOT_MARKERS = 4u };
/* One chart with a legend. vline_x: a dashed vertical marker (e.g. a failure time), NaN-free; pass a negative
 * value for none. 0 or -1 (write error or no data). */
MRC_SIM_API int mrc_sim_svg_plot(FILE *f, const char *title, const char *xlabel, const char *ylabel,
                                 const mrc_sim_series *series, unsigned nseries, unsigned flags, double vline_x);

#ifdef __cplusplus
}
#endif
#endif /* MRC_SIM_H */

/* ================================================================================================================
 * IMPLEMENTATION
 * ============================================================================================================== */
#if defined(MRC_SIM_IMPLEMENTATION) && !defined(MRC_SIM__IMPLEMENTED)
#define MRC_SIM__IMPLEMENTED

#include <stdlib.h>
#include <string.h>

#ifndef MRC_FRAME_IMPLEMENTATION_DONE /* the ports' frame codec, for the pcap writer */
#define MRC_FRAME_IMPLEMENTATION
#endif
#include "../ports/common/mrc_frame.h"

#define MRC_SIM__PRIVATE static
#define MRC_SIM__NIL 0xFFFFFFFFu
#define MRC_SIM__PATH_PROF 1u /* ev_paths: ID of the EV Format and the EV profile every endpoint creates */
#define MRC_SIM__ECT0 2u
#define MRC_SIM__CE 3u
#define MRC_SIM_ERR_PLACE (-200) /* flow status: the place hook saw bytes that differ from the source */
#define MRC_SIM_ERR_SETUP (-201) /* flow status: its QPs could not be created (MRC_MAX_CONNS too small?) */
#define MRC_SIM__DATA_HDR ((uint32_t)MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN)
#define MRC_SIM__ACK_LEN ((uint32_t)MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN)
#define MRC_SIM__IOVA 0x10000000000ull
#define MRC_SIM__QPN_BASE 0x100u /* every endpoint's QPNs: qpn_base + conn slot */

enum {
    MRC_SIM__EV_ARRIVE = 1, MRC_SIM__EV_TXDONE, MRC_SIM__EV_TIMER, MRC_SIM__EV_FLOW, MRC_SIM__EV_FAULT_ON,
    MRC_SIM__EV_FAULT_OFF, MRC_SIM__EV_DETECT, MRC_SIM__EV_SAMPLE, MRC_SIM__EV_FREE
};

typedef struct mrc_sim__ev {
    mrc_time t;
    uint64_t seq;
    uint32_t type, idx;
} mrc_sim__ev;

typedef struct mrc_sim__pkt {
    uint32_t next;            /* queue / in-flight FIFO / free list */
    uint32_t link;            /* the link it is crossing */
    mrc_time t_arr;           /* arrival at the far end of that link */
    uint64_t seq;             /* event order of that arrival */
    uint32_t src, dst, flow;  /* hosts; flow id for statistics only (MRC_SIM__NIL for none) */
    uint32_t ev, wire, payload_len;
    const uint8_t *payload;   /* into the sender's source buffer */
    uint16_t hdr_len;
    uint8_t pad, dscp, ecn, is_data, trimmed, port;
    uint8_t hdr[MRC_HDR_MAX];
    uint8_t da[16];           /* SRv6 outer DA */
} mrc_sim__pkt;

typedef struct mrc_sim__link {
    uint32_t from, to;        /* node ids */
    uint8_t port;             /* host port (1-based) when one end is a host, else 0 */
    uint8_t plane, tier, from_host, to_host, ecn, up_port;
    uint8_t down, bh, known_down, txdone_pending;
    uint32_t loss_ppm;
    uint64_t rate, base_rate;
    mrc_time busy_until;
    uint32_t qh[2], qt[2];    /* [0] priority, [1] data */
    uint64_t qbytes[2];
    uint32_t qpkts;
    uint32_t fh, ft;          /* packets propagating, in arrival order: one heap entry per busy link */
    uint8_t arr_in_heap;
} mrc_sim__link;

typedef struct mrc_sim__sw {
    uint32_t lo, hi, div;     /* hosts [lo, hi) are below: down port (dst - lo) / div */
    uint32_t port0;           /* first entry in s->ports: n_down down links, then n_up up links */
    uint32_t n_down, n_up, n_up_known_down;
    uint32_t tbl0, ntbl;      /* SRv6 static table in s->tbl_usid / s->tbl_link, sorted by uSID */
    uint64_t salt;
    uint16_t usid;
    uint8_t tier, plane, dead;
} mrc_sim__sw;

typedef struct mrc_sim__host {
    mrc_endpoint ep;
    mrc_sim *sim;
    uint32_t id;
    uint32_t link[MRC_MAX_PORTS];  /* outgoing link of each port */
    mrc_time timer_at;
    uint8_t idle, pcap;
    uint8_t rx_stall;         /* MRC_SIM_FAULT_HOST_STALL: arriving packets are dropped */
    uint16_t usid;
    uint32_t *slot_flow;      /* conn slot -> flow id */
    uint32_t *rx_flows, n_rx; /* incoming flows, sorted by region offset */
    uint32_t rx_cap;          /* on_done: rx_flows' capacity (flows are appended as they are added) */
    uint32_t wait_head, wait_tail; /* on_done: flows waiting for a QP slot of this endpoint (FIFO) */
    uint64_t region_len;
    uint32_t rkey;
} mrc_sim__host;

typedef struct mrc_sim__flow {
    mrc_sim_flow_spec spec;
    mrc_sim_flow_result r;
    mrc_conn *cs, *cr;        /* sender and receiver QPs while they exist */
    uint64_t base, placed;
    uint64_t *bitmap;         /* packets placed */
    uint32_t npkts, dep_head, dep_next;
    uint32_t wait_next;       /* on_done: next flow waiting for a free QP on the same host */
    uint8_t started, done, freed;
} mrc_sim__flow;

struct mrc_sim {
    mrc_sim_config cfg;
    uint32_t H, P, S, L, C;   /* hosts, ports per host, switches, links, cables */
    size_t topo_links;        /* links the topology allocates (the out-of-memory message names them) */
    uint32_t n0, n1, hpt;     /* multi-plane: T0s and T1s per plane, hosts per T0; fat tree: k/2 in hpt */
    mrc_sim__host *host;
    mrc_sim__sw *sw;
    mrc_sim__link *link;
    mrc_sim_cable *cable;
    uint32_t *ports;
    uint16_t *tbl_usid;
    uint32_t *tbl_link;
    uint8_t cls_of[64];
    mrc_sim__ev *heap;
    uint32_t heap_len, heap_cap;
    uint64_t seq, rng;
    mrc_time now, rtt;
    uint64_t qlim, plim, kmin, kmax;
    uint32_t cwnd;
    uint32_t path_evs;        /* ev_paths: EVs of the path-aware profile (MRC_SIM__PATH_PROF), else 0 */
    uint32_t hashed_evs;      /* ev_hashed: EVs of the hashed profile (also MRC_SIM__PATH_PROF), else 0 */
    mrc_sim__pkt **pkt;       /* the packet pool in chunks of MRC_SIM__PKT_CHUNK (mrc_sim__pk) */
    uint32_t pkt_cap, pkt_free;
    mrc_sim__flow *flow;
    uint32_t nflows, flow_cap, flows_left;
    uint32_t active;          /* flows started and not done (the samples' active_flows) */
    uint64_t src_len;         /* bytes of the shared source buffer: the largest flow */
    mrc_sim_fault *fault;
    uint32_t nfaults, fault_cap;
    uint8_t *src;
    uint8_t *scratch;
    mrc_frame *frame;         /* the frame codec of the pcap writer (NULL without a pcap) */
    uint32_t mtu_shift;
    int started;
    mrc_sim_totals tot;
    uint64_t cum_drops;       /* drops of every kind, for the time series */
    mrc_sim_sample *smp;
    uint32_t nsmp, smp_cap;
    mrc_sim_sample prev;      /* cumulative counters at the previous sample */
};

/* ---- small helpers --------------------------------------------------------------------------------------------- */
MRC_SIM__PRIVATE uint64_t mrc_sim__mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
MRC_SIM__PRIVATE uint64_t mrc_sim__rand(mrc_sim *s) { return mrc_sim__mix(s->rng += 0x9E3779B97F4A7C15ull); }
MRC_SIM__PRIVATE uint32_t mrc_sim__below(uint64_t h, uint32_t n) { return (uint32_t)(((h >> 32) * n) >> 32); }
MRC_SIM__PRIVATE bool mrc_sim__ppm(mrc_sim *s, uint32_t ppm) {
    return ppm >= 1000000u || (ppm && mrc_sim__below(mrc_sim__rand(s), 1000000u) < ppm);
}
MRC_SIM__PRIVATE mrc_time mrc_sim__ser(uint64_t bytes, uint64_t bps) {
    return bps ? (bytes * 8000000000ull + bps / 2u) / bps : 0;
}
MRC_SIM__PRIVATE void mrc_sim__fnv(uint64_t *h, uint64_t v) {
    unsigned i;
    for (i = 0; i < 8; i++) {
        *h ^= (v >> (8u * i)) & 0xFFu;
        *h *= 0x100000001B3ull;
    }
}
MRC_SIM__PRIVATE void mrc_sim__seterr(char *err, size_t cap, const char *msg) {
    if (err && cap) {
        size_t n = strlen(msg);
        if (n >= cap) n = cap - 1u;
        memcpy(err, msg, n);
        err[n] = 0;
    }
}
MRC_SIM__PRIVATE bool mrc_sim__is_host(const mrc_sim *s, uint32_t node) { return node < s->H; }

/* ---- event heap: binary min-heap on (t, seq) ----------------------------------------------------------------- */
MRC_SIM__PRIVATE bool mrc_sim__less(const mrc_sim__ev *a, const mrc_sim__ev *b) {
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}
MRC_SIM__PRIVATE int mrc_sim__push_seq(mrc_sim *s, mrc_time t, uint64_t seq, uint32_t type, uint32_t idx) {
    uint32_t i;
    mrc_sim__ev e;
    if (s->heap_len == s->heap_cap) {
        uint32_t nc = s->heap_cap ? s->heap_cap * 2u : 4096u;
        mrc_sim__ev *nh = (mrc_sim__ev *)realloc(s->heap, (size_t)nc * sizeof *nh);
        if (!nh) return -1;
        s->heap = nh;
        s->heap_cap = nc;
    }
    e.t = t < s->now ? s->now : t;
    e.seq = seq;
    e.type = type;
    e.idx = idx;
    i = s->heap_len++;
    while (i) {
        uint32_t p = (i - 1u) >> 1;
        if (!mrc_sim__less(&e, &s->heap[p])) break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = e;
    return 0;
}
MRC_SIM__PRIVATE int mrc_sim__push(mrc_sim *s, mrc_time t, uint32_t type, uint32_t idx) {
    return mrc_sim__push_seq(s, t, s->seq++, type, idx);
}
MRC_SIM__PRIVATE mrc_sim__ev mrc_sim__pop(mrc_sim *s) {
    mrc_sim__ev top = s->heap[0], last = s->heap[--s->heap_len];
    uint32_t i = 0, n = s->heap_len;
    for (;;) {
        uint32_t c = 2u * i + 1u;
        if (c >= n) break;
        if (c + 1u < n && mrc_sim__less(&s->heap[c + 1u], &s->heap[c])) c++;
        if (!mrc_sim__less(&s->heap[c], &last)) break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n) s->heap[i] = last;
    return top;
}

/* ---- packet pool: chunks of 2^16 packets, indices stay valid and so do pointers ------------------------------
 * Packets in flight and queued are the simulator's largest table at scale (JSON pkt_pool): a pool grown in fixed
 * chunks holds at most one chunk more than the peak, where one array doubled by realloc held up to twice the peak and,
 * while it copied, three times. */
#define MRC_SIM__PKT_SHIFT 16u
#define MRC_SIM__PKT_CHUNK (1u << MRC_SIM__PKT_SHIFT)
MRC_SIM__PRIVATE mrc_sim__pkt *mrc_sim__pk(const mrc_sim *s, uint32_t i) {
    return &s->pkt[i >> MRC_SIM__PKT_SHIFT][i & (MRC_SIM__PKT_CHUNK - 1u)];
}
MRC_SIM__PRIVATE uint32_t mrc_sim__pkt_alloc(mrc_sim *s) {
    uint32_t i;
    if (s->pkt_free == MRC_SIM__NIL) {
        uint32_t n = s->pkt_cap >> MRC_SIM__PKT_SHIFT, j;
        mrc_sim__pkt **nt, *c;
        if (n == 0xFFFFu) return MRC_SIM__NIL; /* 2^32 - 2^16 packets: the index space */
        nt = (mrc_sim__pkt **)realloc(s->pkt, (size_t)(n + 1u) * sizeof *nt);
        if (!nt) return MRC_SIM__NIL;
        s->pkt = nt;
        c = (mrc_sim__pkt *)malloc((size_t)MRC_SIM__PKT_CHUNK * sizeof *c);
        if (!c) return MRC_SIM__NIL;
        nt[n] = c;
        for (j = MRC_SIM__PKT_CHUNK; j-- > 0;) {
            c[j].next = s->pkt_free;
            s->pkt_free = s->pkt_cap + j;
        }
        s->pkt_cap += MRC_SIM__PKT_CHUNK;
    }
    i = s->pkt_free;
    s->pkt_free = mrc_sim__pk(s, i)->next;
    mrc_sim__pk(s, i)->next = MRC_SIM__NIL;
    return i;
}
MRC_SIM__PRIVATE void mrc_sim__pkt_release(mrc_sim *s, uint32_t i) {
    mrc_sim__pk(s, i)->next = s->pkt_free;
    s->pkt_free = i;
}

/* ---- configuration ---------------------------------------------------------------------------------------------- */
MRC_SIM_API void mrc_sim_config_default(mrc_sim_config *c) {
    if (!c) return;
    memset(c, 0, sizeof *c);
    c->seed = 1;
    c->topo = MRC_SIM_FATTREE;
    c->k = 16;
    c->planes = 8;
    c->radix = 64;
    c->hosts = 1024;
    c->link_bps = 100000000000ull;
    c->host_bps = 0;
    c->prop_ns = 1000;
    c->mtu = 4096;
    c->wire_overhead = 90;
    c->srv6_overhead = 40;
    c->ecn = true;
    c->ecn_last_hop = false;
    c->ecn_kmin_pct = 20;
    c->ecn_kmax_pct = 80;
    c->trim = true;
    c->trim_lasthop_dscp = true;
    c->routing = MRC_SIM_ROUTE_ECMP;
    c->nic_txq_pkts = 2;
    c->detect_ns = 10000;
    c->evs_per_qp = 128;
    c->ev_paths = false;
    c->ev_groups = true;
    c->cwnd_bytes = 0;
    c->mpr = 8;
    c->timeout = 7;
    c->retry_linear = 7;
    c->retry_exp = 7;
    mrc_config_default(&c->core);
    c->verify = MRC_SIM_VERIFY_SAMPLED;
    c->linger_ns = 200000;
}

/* ---- topology ------------------------------------------------------------------------------------------------- */
MRC_SIM__PRIVATE uint32_t mrc_sim__cable_add(mrc_sim *s, uint32_t a, uint32_t b, uint8_t tier, uint8_t plane,
                                             uint8_t port) {
    uint32_t c = s->C++, d;
    uint64_t rate = tier == 0 ? s->cfg.host_bps : s->cfg.link_bps;
    s->cable[c].a = a;
    s->cable[c].b = b;
    s->cable[c].tier = tier;
    s->cable[c].plane = plane;
    for (d = 0; d < 2; d++) {
        mrc_sim__link *l = &s->link[2u * c + d];
        memset(l, 0, sizeof *l);
        l->from = d ? b : a;
        l->to = d ? a : b;
        l->port = port;
        l->plane = plane;
        l->tier = tier;
        l->from_host = (uint8_t)mrc_sim__is_host(s, l->from);
        l->to_host = (uint8_t)mrc_sim__is_host(s, l->to);
        l->ecn = (uint8_t)(l->from_host ? 0 : l->to_host ? s->cfg.ecn_last_hop : s->cfg.ecn);
        l->up_port = (uint8_t)(d == 0 && !l->from_host);
        l->rate = l->base_rate = rate;
        l->qh[0] = l->qh[1] = l->qt[0] = l->qt[1] = MRC_SIM__NIL;
        l->fh = l->ft = MRC_SIM__NIL;
    }
    return c;
}

MRC_SIM__PRIVATE void mrc_sim__sw_set(mrc_sim__sw *w, uint32_t lo, uint32_t hi, uint32_t div, uint32_t nd,
                                      uint32_t nu, uint8_t tier, uint8_t plane) {
    w->lo = lo;
    w->hi = hi;
    w->div = div;
    w->n_down = nd;
    w->n_up = nu;
    w->tier = tier;
    w->plane = plane;
}

MRC_SIM__PRIVATE int mrc_sim__build(mrc_sim *s, char *err, size_t cap) {
    const mrc_sim_config *c = &s->cfg;
    uint32_t i, j, a, p, t, u, np = 0;
    if (c->topo == MRC_SIM_FATTREE) {
        uint32_t k = c->k, h = k / 2u, pods = k, ne = k * h, nc = h * h;
        if (k < 4 || k > 64 || (k & 1u)) {
            mrc_sim__seterr(err, cap, "fat tree k must be even, 4..64");
            return -1;
        }
        s->H = k * k * k / 4u;
        s->P = 1;
        s->S = 2u * ne + nc;
        s->hpt = h;
        s->C = 0;
        s->sw = (mrc_sim__sw *)calloc(s->S, sizeof *s->sw);
        s->cable = (mrc_sim_cable *)calloc((size_t)s->H * 3u, sizeof *s->cable);
        s->topo_links = (size_t)s->H * 6u;
        s->link = (mrc_sim__link *)calloc((size_t)s->H * 6u, sizeof *s->link);
        s->ports = (uint32_t *)calloc((size_t)s->H * 6u, sizeof *s->ports);
        s->host = (mrc_sim__host *)calloc(s->H, sizeof *s->host);
        if (!s->sw || !s->cable || !s->link || !s->ports || !s->host) goto oom;
        for (p = 0; p < pods; p++)
            for (i = 0; i < h; i++) {
                mrc_sim__sw *e = &s->sw[p * h + i], *g = &s->sw[ne + p * h + i];
                mrc_sim__sw_set(e, (p * h + i) * h, (p * h + i) * h + h, 1, h, h, 0, 0);
                mrc_sim__sw_set(g, p * h * h, p * h * h + h * h, h, h, h, 1, 0);
            }
        for (i = 0; i < nc; i++) mrc_sim__sw_set(&s->sw[2u * ne + i], 0, s->H, h * h, pods, 0, 2, 0);
        for (i = 0; i < s->S; i++) {
            s->sw[i].port0 = np;
            np += s->sw[i].n_down + s->sw[i].n_up;
        }
        for (i = 0; i < s->H; i++) { /* host i under edge i / h, down port i % h */
            uint32_t e = i / h, cb = mrc_sim__cable_add(s, i, s->H + e, 0, 0, 1);
            s->host[i].link[0] = 2u * cb;
            s->ports[s->sw[e].port0 + i % h] = 2u * cb + 1u;
        }
        for (p = 0; p < pods; p++)
            for (i = 0; i < h; i++)
                for (a = 0; a < h; a++) { /* edge (p, i) up port a <-> agg (p, a) down port i */
                    uint32_t e = p * h + i, g = ne + p * h + a, cb = mrc_sim__cable_add(s, s->H + e, s->H + g, 1, 0, 0);
                    s->ports[s->sw[e].port0 + h + a] = 2u * cb;
                    s->ports[s->sw[g].port0 + i] = 2u * cb + 1u;
                }
        for (p = 0; p < pods; p++)
            for (a = 0; a < h; a++)
                for (j = 0; j < h; j++) { /* agg (p, a) up port j <-> core a*h + j down port p */
                    uint32_t g = ne + p * h + a, co = 2u * ne + a * h + j;
                    uint32_t cb = mrc_sim__cable_add(s, s->H + g, s->H + co, 2, 0, 0);
                    s->ports[s->sw[g].port0 + h + j] = 2u * cb;
                    s->ports[s->sw[co].port0 + p] = 2u * cb + 1u;
                }
    } else if (c->topo == MRC_SIM_MULTIPLANE) {
        uint32_t d = c->radix / 2u, n0, n1, per;
        if (c->radix < 4 || c->radix > 1024 || (c->radix & 1u)) {
            mrc_sim__seterr(err, cap, "radix must be even, 4..1024");
            return -1;
        }
        if (c->planes < 1 || c->planes > MRC_MAX_PORTS) {
            mrc_sim__seterr(err, cap, "planes must be 1..MRC_MAX_PORTS");
            return -1;
        }
        if (c->hosts < 2 || c->hosts > d * c->radix) {
            mrc_sim__seterr(err, cap, "hosts must be 2..radix^2/2 for a 2-tier plane");
            return -1;
        }
        n0 = (c->hosts + d - 1u) / d;
        n1 = n0 > 1 ? d : 0;
        per = n0 + n1;
        s->H = c->hosts;
        s->P = c->planes;
        s->S = per * s->P;
        s->n0 = n0;
        s->n1 = n1;
        s->hpt = d;
        s->sw = (mrc_sim__sw *)calloc(s->S, sizeof *s->sw);
        s->cable = (mrc_sim_cable *)calloc((size_t)s->P * (s->H + n0 * n1), sizeof *s->cable);
        s->topo_links = (size_t)s->P * (s->H + n0 * n1) * 2u;
        s->link = (mrc_sim__link *)calloc((size_t)s->P * (s->H + n0 * n1) * 2u, sizeof *s->link);
        s->ports = (uint32_t *)calloc((size_t)s->P * (s->H + n0 * n1) * 2u, sizeof *s->ports);
        s->host = (mrc_sim__host *)calloc(s->H, sizeof *s->host);
        if (!s->sw || !s->cable || !s->link || !s->ports || !s->host) goto oom;
        for (p = 0; p < s->P; p++) {
            for (t = 0; t < n0; t++) {
                uint32_t lo = t * d, hi = lo + d < s->H ? lo + d : s->H;
                mrc_sim__sw_set(&s->sw[p * per + t], lo, hi, 1, hi - lo, n1, 0, (uint8_t)p);
            }
            for (u = 0; u < n1; u++) mrc_sim__sw_set(&s->sw[p * per + n0 + u], 0, s->H, d, n0, 0, 1, (uint8_t)p);
        }
        for (i = 0; i < s->S; i++) {
            s->sw[i].port0 = np;
            np += s->sw[i].n_down + s->sw[i].n_up;
        }
        for (p = 0; p < s->P; p++) {
            for (i = 0; i < s->H; i++) {
                uint32_t t0 = p * per + i / d, cb = mrc_sim__cable_add(s, i, s->H + t0, 0, (uint8_t)p, (uint8_t)(p + 1u));
                s->host[i].link[p] = 2u * cb;
                s->ports[s->sw[t0].port0 + i % d] = 2u * cb + 1u;
            }
            for (t = 0; t < n0; t++)
                for (u = 0; u < n1; u++) {
                    uint32_t t0 = p * per + t, t1 = p * per + n0 + u;
                    uint32_t cb = mrc_sim__cable_add(s, s->H + t0, s->H + t1, 1, (uint8_t)p, 0);
                    s->ports[s->sw[t0].port0 + s->sw[t0].n_down + u] = 2u * cb;
                    s->ports[s->sw[t1].port0 + t] = 2u * cb + 1u;
                }
        }
    } else {
        mrc_sim__seterr(err, cap, "unknown topology");
        return -1;
    }
    s->L = 2u * s->C;
    /* switch salts, uSIDs and the SRv6 static tables (neighbour uSID -> link) */
    if (s->H + s->S + 1u > 0xFFFFu && c->routing == MRC_SIM_ROUTE_SRV6) {
        mrc_sim__seterr(err, cap, "too many nodes for 16-bit uSIDs");
        return -1;
    }
    s->tbl_usid = (uint16_t *)calloc(np ? np : 1u, sizeof *s->tbl_usid);
    s->tbl_link = (uint32_t *)calloc(np ? np : 1u, sizeof *s->tbl_link);
    if (!s->tbl_usid || !s->tbl_link) goto oom;
    for (i = 0; i < s->H; i++) {
        s->host[i].id = i;
        s->host[i].sim = s;
        s->host[i].usid = (uint16_t)((i + 1u) & 0xFFFFu);
    }
    for (i = 0; i < s->S; i++) {
        mrc_sim__sw *w = &s->sw[i];
        uint32_t n = w->n_down + w->n_up, x, y;
        w->salt = mrc_sim__mix(c->seed ^ (0x5357000000000000ull + i));
        w->usid = (uint16_t)((s->H + 1u + i) & 0xFFFFu);
        w->tbl0 = w->port0;
        w->ntbl = n;
        for (x = 0; x < n; x++) { /* insertion sort by uSID: radix is small */
            uint32_t li = s->ports[w->port0 + x], to = s->link[li].to;
            uint16_t us = (uint16_t)((mrc_sim__is_host(s, to) ? to + 1u : to + 1u) & 0xFFFFu);
            for (y = x; y > 0 && s->tbl_usid[w->tbl0 + y - 1u] > us; y--) {
                s->tbl_usid[w->tbl0 + y] = s->tbl_usid[w->tbl0 + y - 1u];
                s->tbl_link[w->tbl0 + y] = s->tbl_link[w->tbl0 + y - 1u];
            }
            s->tbl_usid[w->tbl0 + y] = us;
            s->tbl_link[w->tbl0 + y] = li;
        }
    }
    return 0;
oom: { /* name what did not fit: the hosts' endpoints (sized by the core's MRC_MAX_* capacities) and the fabric */
        double gib = 1024.0 * 1024.0 * 1024.0, links = (double)s->topo_links;
        double hb = (double)s->H * (double)sizeof(mrc_sim__host);
        double fb = links * (double)(sizeof(mrc_sim__link) + sizeof(uint32_t)) + links / 2.0 * (double)sizeof(mrc_sim_cable) +
                    (double)s->S * (double)sizeof(mrc_sim__sw);
        char m[256];
        (void)snprintf(m, sizeof m,
                       "out of memory: %u hosts x %.0f KB of endpoint state (this build's MRC_MAX_CONNS %u, "
                       "MRC_POOL_BLOCKS %u) = %.1f GiB, and the fabric's %.0f links %.2f GiB",
                       s->H, (double)sizeof(mrc_sim__host) / 1024.0, (unsigned)MRC_MAX_CONNS,
                       (unsigned)MRC_POOL_BLOCKS, hb / gib, links, fb / gib);
        mrc_sim__seterr(err, cap, m);
    }
    return -1;
}

MRC_SIM_API uint32_t mrc_sim_hops(const mrc_sim *s, uint32_t src, uint32_t dst) {
    if (!s || src >= s->H || dst >= s->H) return 0;
    if (src == dst) return 0;
    if (s->cfg.topo == MRC_SIM_FATTREE) {
        uint32_t h = s->hpt;
        if (src / h == dst / h) return 2;
        if (src / (h * h) == dst / (h * h)) return 4;
        return 6;
    }
    return src / s->hpt == dst / s->hpt ? 2u : 4u;
}
MRC_SIM__PRIVATE uint32_t mrc_sim__max_hops(const mrc_sim *s) {
    if (s->cfg.topo == MRC_SIM_FATTREE) return 6;
    return s->n0 > 1 ? 4u : 2u;
}
MRC_SIM__PRIVATE uint32_t mrc_sim__overhead(const mrc_sim *s) {
    return s->cfg.wire_overhead + (s->cfg.routing == MRC_SIM_ROUTE_SRV6 ? s->cfg.srv6_overhead : 0u);
}
MRC_SIM_API uint64_t mrc_sim_host_rate(const mrc_sim *s) { return s ? s->cfg.host_bps * s->P : 0; }
MRC_SIM_API mrc_time mrc_sim_base_rtt(const mrc_sim *s) { return s ? s->rtt : 0; }
MRC_SIM_API uint64_t mrc_sim_host_bdp(const mrc_sim *s) {
    return s ? (uint64_t)((double)mrc_sim_host_rate(s) * (double)s->rtt / 8e9) : 0;
}
MRC_SIM_API uint64_t mrc_sim_wire_bytes(const mrc_sim *s, uint64_t bytes) {
    uint64_t npk, last;
    if (!s || !bytes) return 0;
    npk = (bytes + s->cfg.mtu - 1u) / s->cfg.mtu;
    last = bytes - (npk - 1u) * s->cfg.mtu;
    return bytes + npk * (MRC_SIM__DATA_HDR + mrc_sim__overhead(s)) + ((4u - (last & 3u)) & 3u);
}
MRC_SIM_API mrc_time mrc_sim_ideal_fct(const mrc_sim *s, uint32_t src, uint32_t dst, uint64_t bytes) {
    uint32_t hops, ov;
    if (!s || !bytes) return 0;
    hops = mrc_sim_hops(s, src, dst);
    ov = mrc_sim__overhead(s);
    return mrc_sim__ser(mrc_sim_wire_bytes(s, bytes), mrc_sim_host_rate(s)) + (mrc_time)hops * s->cfg.prop_ns +
           (mrc_time)(hops ? hops - 1u : 0u) * mrc_sim__ser(s->cfg.mtu + MRC_SIM__DATA_HDR + ov, s->cfg.link_bps);
}

MRC_SIM_API uint32_t mrc_sim_hosts(const mrc_sim *s) { return s ? s->H : 0; }
MRC_SIM_API uint32_t mrc_sim_ports(const mrc_sim *s) { return s ? s->P : 0; }
MRC_SIM_API uint32_t mrc_sim_switches(const mrc_sim *s) { return s ? s->S : 0; }
MRC_SIM_API uint32_t mrc_sim_cables(const mrc_sim *s) { return s ? s->C : 0; }
MRC_SIM_API int mrc_sim_cable_get(const mrc_sim *s, uint32_t id, mrc_sim_cable *out) {
    if (!s || !out || id >= s->C) return -1;
    *out = s->cable[id];
    return 0;
}
MRC_SIM_API uint32_t mrc_sim_host_t0(const mrc_sim *s, uint32_t host, unsigned port) {
    if (!s || host >= s->H || port < 1 || port > s->P) return MRC_SIM_NONE;
    return s->link[s->host[host].link[port - 1u]].to - s->H;
}
MRC_SIM_API const mrc_sim_config *mrc_sim_config_get(const mrc_sim *s) { return s ? &s->cfg : (const mrc_sim_config *)0; }
MRC_SIM_API uint32_t mrc_sim_path_evs(const mrc_sim *s) { return s ? s->path_evs : 0u; }
MRC_SIM_API mrc_time mrc_sim_now(const mrc_sim *s) { return s ? s->now : 0; }

/* ---- routing -------------------------------------------------------------------------------------------------- */
/* ECMP: unique down route when the destination is below, else a seeded hash of (src, dst, EV) over the uplinks
 * that are not known to be down. */
MRC_SIM__PRIVATE uint32_t mrc_sim__ecmp(const mrc_sim *s, const mrc_sim__sw *w, const mrc_sim__pkt *p) {
    uint64_t h;
    uint32_t idx, j;
    if (p->dst >= w->lo && p->dst < w->hi) {
        uint32_t li = s->ports[w->port0 + (p->dst - w->lo) / w->div];
        return s->link[li].known_down ? MRC_SIM__NIL : li;
    }
    if (!w->n_up || w->n_up_known_down >= w->n_up) return MRC_SIM__NIL;
    h = mrc_sim__mix(((uint64_t)p->src << 40) ^ ((uint64_t)p->dst << 20) ^ (uint64_t)p->ev ^ w->salt);
    if (!w->n_up_known_down) return s->ports[w->port0 + w->n_down + mrc_sim__below(h, w->n_up)];
    idx = mrc_sim__below(h, w->n_up - w->n_up_known_down);
    for (j = 0; j < w->n_up; j++) {
        uint32_t li = s->ports[w->port0 + w->n_down + j];
        if (s->link[li].known_down) continue;
        if (!idx--) return li;
    }
    return MRC_SIM__NIL;
}

MRC_SIM__PRIVATE uint16_t mrc_sim__usid_get(const uint8_t *da, unsigned i) {
    return (uint16_t)(((unsigned)da[4u + 2u * i] << 8) | da[5u + 2u * i]);
}
/* SRv6 uN: match the active uSID, shift, look the next one up in this switch's static table. */
MRC_SIM__PRIVATE uint32_t mrc_sim__srv6_fwd(const mrc_sim *s, const mrc_sim__sw *w, uint8_t *da, int *miss) {
    uint16_t next;
    uint32_t lo = 0, hi = w->ntbl;
    *miss = 1;
    if (da[0] != 0xFC || da[1] || da[2] || da[3] || mrc_sim__usid_get(da, 0) != w->usid) return MRC_SIM__NIL;
    memmove(da + 4, da + 6, 10);
    da[14] = da[15] = 0;
    next = mrc_sim__usid_get(da, 0);
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2u;
        if (s->tbl_usid[w->tbl0 + mid] < next) lo = mid + 1u;
        else hi = mid;
    }
    if (lo >= w->ntbl || s->tbl_usid[w->tbl0 + lo] != next) return MRC_SIM__NIL;
    *miss = 0;
    return s->link[s->tbl_link[w->tbl0 + lo]].known_down ? MRC_SIM__NIL : s->tbl_link[w->tbl0 + lo];
}

MRC_SIM_API int mrc_sim_srv6_path(const mrc_sim *s, uint32_t src, unsigned port, uint32_t dst, uint32_t ev,
                                  uint8_t da[16]) {
    uint16_t u[6];
    int n = 0, i;
    if (!s || !da || src >= s->H || dst >= s->H || src == dst || port < 1 || port > s->P) return -1;
    if (s->cfg.topo == MRC_SIM_FATTREE) {
        uint32_t h = s->hpt, ne = s->cfg.k * h, es = src / h, ed = dst / h, ps = src / (h * h), pd = dst / (h * h);
        uint32_t a = ev % h, c = (ev / h) % h;
        u[n++] = s->sw[es].usid;
        if (es != ed) {
            u[n++] = s->sw[ne + ps * h + a].usid;
            if (ps != pd) {
                u[n++] = s->sw[2u * ne + a * h + c].usid;
                u[n++] = s->sw[ne + pd * h + a].usid;
            }
            u[n++] = s->sw[ed].usid;
        }
    } else {
        uint32_t per = s->n0 + s->n1, p = port - 1u, ts = src / s->hpt, td = dst / s->hpt;
        u[n++] = s->sw[p * per + ts].usid;
        if (ts != td) {
            u[n++] = s->sw[p * per + s->n0 + ev % s->n1].usid;
            u[n++] = s->sw[p * per + td].usid;
        }
    }
    u[n++] = s->host[dst].usid;
    memset(da, 0, 16);
    da[0] = 0xFC; /* 32-bit uSID block fc00:0000::/32 */
    for (i = 0; i < n; i++) {
        da[4 + 2 * i] = (uint8_t)(u[i] >> 8);
        da[5 + 2 * i] = (uint8_t)(u[i] & 0xFFu);
    }
    return n;
}

/* ---- statistics hooks ---------------------------------------------------------------------------------------- */
MRC_SIM__PRIVATE void mrc_sim__drop(mrc_sim *s, uint32_t pi, uint64_t *counter, int blackhole) {
    mrc_sim__pkt *p = mrc_sim__pk(s, pi);
    (*counter)++;
    s->cum_drops++;
    if (p->is_data && p->flow != MRC_SIM__NIL) {
        mrc_sim_flow_result *r = &s->flow[p->flow].r;
        r->fabric_drops++;
        if (blackhole) {
            if (s->cfg.oracle_bypass) { /* the EV is the UDP source port of the host's profile */
                mrc_sim__host *h = &s->host[p->src];
                mrc_ev_op_entry e;
                uint32_t one = 1;
                memset(&e, 0, sizeof e);
                e.ev.val[0] = (uint8_t)(p->ev >> 8);
                e.ev.val[1] = (uint8_t)(p->ev & 0xFFu);
                e.ev.port = p->port;
                e.state = MRC_EVS_ASSUMED_BAD;
                if (mrc_ev_op(&h->ep, MRC_SIM__PATH_PROF, MRC_EV_OP_MODIFY_STATE, &e, &one, s->now) == MRC_OK) {
                    s->tot.oracle_marks++;
                    h->timer_at = s->now; /* its deadlines moved (probes): serviced at once, as after a timer */
                    (void)mrc_sim__push(s, s->now, MRC_SIM__EV_TIMER, p->src);
                }
            }
            if (!r->bh_drops) r->bh_first = s->now;
            r->bh_last = s->now;
            r->bh_drops++;
        }
    }
    mrc_sim__pkt_release(s, pi);
}

/* ---- pcap ----------------------------------------------------------------------------------------------------- */
/* Frames as a NIC would put them on the wire, built by the ports' shared codec (ports/common/mrc_frame.h): Ethernet
 * 02:00:00:00:HH:LL (host id), IPv6 fd00::P:0:0:0:H+1 style addresses (P = plane, H = host), UDP 4791 with the EV in
 * the source port and flow label (STEV split when it has more than 16 bits), the SRv6 outer header in SRv6 routing
 * mode (the DA as the capture point sees it: the sender's full path, the receiver's shifted one), the packet's real
 * ECN (CE marks included) and a RoCEv2 ICRC. A trimmed packet gets a fresh ICRC over what is left, as if the
 * trimming switch recomputed it. */
MRC_SIM__PRIVATE void mrc_sim__frame_addr(mrc_frame_addr *a, uint32_t host, uint32_t port) {
    memset(a, 0, sizeof *a);
    a->mac[0] = 0x02;
    a->mac[4] = (uint8_t)(host >> 8);
    a->mac[5] = (uint8_t)host;
    a->ip[0] = 0xFD;
    a->ip[6] = (uint8_t)((host + 1u) >> 8);
    a->ip[7] = (uint8_t)(host + 1u);
    a->ip[14] = (uint8_t)(port >> 8);
    a->ip[15] = (uint8_t)port;
}
MRC_SIM__PRIVATE void mrc_sim__pcap_write(mrc_sim *s, const mrc_sim__pkt *p) {
    uint8_t *f = s->scratch + 8192, rec[16];
    mrc_frame_addr src, dst;
    mrc_txinfo ti;
    mrc_ev_hdrs evh;
    int n;
    if (!s->frame) return;
    memset(&ti, 0, sizeof ti);
    memset(&evh, 0, sizeof evh);
    ti.port = p->port;
    ti.dscp = p->dscp;
    ti.opcode = p->hdr[0];
    ti.pad = (uint8_t)(p->trimmed ? 0u : p->pad);
    ti.ev = p->ev;
    ti.hdr_len = p->hdr_len;
    ti.payload = p->payload;
    ti.payload_len = p->payload_len;
    evh.udp_sport = (uint16_t)(p->ev > 0xFFFFu ? p->ev >> 16 : p->ev);
    evh.flow_label = p->ev > 0xFFFFu ? p->ev & 0xFFFFu : 0u;
    ti.ev_fmt = (uint8_t)(p->ev > 0xFFFFu ? MRC_EV_FMT_STEV : MRC_EV_FMT_UDP);
    if (s->cfg.routing == MRC_SIM_ROUTE_SRV6) {
        ti.ev_fmt = MRC_EV_FMT_SRV6;
        ti.path_len = 16;
        ti.path = p->da;
        evh.has_srv6 = 1;
        memcpy(evh.srv6_da, p->da, 16);
    }
    mrc_sim__frame_addr(&src, p->src, p->port);
    mrc_sim__frame_addr(&dst, p->dst, p->port);
    n = mrc_frame_encode(s->frame, &src, &dst, &ti, &evh, p->hdr, f, 16384u - 8192u);
    if (n <= 0) return;
    {   /* the ECN the packet really carries (CE marks); the ICRC masks the traffic class */
        uint8_t *ip = f + MRC_FRAME_ETH_LEN;
        for (;;) {
            ip[1] = (uint8_t)((ip[1] & 0xCFu) | ((p->ecn & 3u) << 4));
            if (ip[6] != 41u && ip[6] != 43u) break;
            ip += MRC_FRAME_IPV6_LEN + (ip[6] == 43u ? 8u + 8u * ip[MRC_FRAME_IPV6_LEN + 1] : 0u);
        }
    }
    mrc_frame_pcap_rec_hdr(rec, s->now, (uint32_t)n, (uint32_t)n);
    (void)fwrite(rec, 1, 16, s->cfg.pcap);
    (void)fwrite(f, 1, (size_t)n, s->cfg.pcap);
}

/* ---- links and queues ------------------------------------------------------------------------------------------ */
MRC_SIM__PRIVATE void mrc_sim__tx_start(mrc_sim *s, uint32_t li) {
    mrc_sim__link *l = &s->link[li];
    while (l->qpkts) {
        unsigned q = l->qh[0] != MRC_SIM__NIL ? 0u : 1u;
        uint32_t pi = l->qh[q];
        mrc_sim__pkt *p = mrc_sim__pk(s, pi);
        mrc_time ser;
        l->qh[q] = p->next;
        if (l->qh[q] == MRC_SIM__NIL) l->qt[q] = MRC_SIM__NIL;
        l->qbytes[q] -= p->wire;
        l->qpkts--;
        if (l->down) { /* no carrier: the port discards at once */
            mrc_sim__drop(s, pi, l->from_host ? &s->tot.drop_nic_down : &s->tot.drop_down, 0);
            continue;
        }
        ser = mrc_sim__ser(p->wire, l->rate);
        l->busy_until = s->now + ser;
        if (l->from_host) {
            mrc_sim__host *h = &s->host[l->from];
            s->tot.plane_bytes[l->plane] += p->wire;
            if (h->pcap && s->cfg.pcap) mrc_sim__pcap_write(s, p);
        }
        if (l->bh) {
            mrc_sim__drop(s, pi, &s->tot.drop_blackhole, 1);
        } else if (l->loss_ppm && mrc_sim__ppm(s, l->loss_ppm)) {
            mrc_sim__drop(s, pi, &s->tot.drop_loss, 0);
        } else { /* propagating: arrivals on one link are in time order, so they queue behind one heap entry */
            p->link = li;
            p->t_arr = l->busy_until + s->cfg.prop_ns;
            p->seq = s->seq++;
            p->next = MRC_SIM__NIL;
            if (l->ft == MRC_SIM__NIL) l->fh = pi;
            else mrc_sim__pk(s, l->ft)->next = pi;
            l->ft = pi;
            if (!l->arr_in_heap) {
                l->arr_in_heap = 1;
                (void)mrc_sim__push_seq(s, p->t_arr, p->seq, MRC_SIM__EV_ARRIVE, li);
            }
        }
        if (l->qpkts || l->from_host) {
            l->txdone_pending = 1;
            (void)mrc_sim__push(s, l->busy_until, MRC_SIM__EV_TXDONE, li);
        }
        return;
    }
}

MRC_SIM__PRIVATE void mrc_sim__kick(mrc_sim *s, uint32_t li) {
    mrc_sim__link *l = &s->link[li];
    if (l->txdone_pending) return;
    if (l->busy_until <= s->now) {
        mrc_sim__tx_start(s, li);
    } else {
        l->txdone_pending = 1;
        (void)mrc_sim__push(s, l->busy_until, MRC_SIM__EV_TXDONE, li);
    }
}

MRC_SIM__PRIVATE void mrc_sim__qpush(mrc_sim *s, mrc_sim__link *l, unsigned q, uint32_t pi) {
    mrc_sim__pkt *p = mrc_sim__pk(s, pi);
    p->next = MRC_SIM__NIL;
    if (l->qt[q] == MRC_SIM__NIL) l->qh[q] = pi;
    else mrc_sim__pk(s, l->qt[q])->next = pi;
    l->qt[q] = pi;
    l->qbytes[q] += p->wire;
    l->qpkts++;
}

/* Output port of a switch or a NIC: classify by DSCP codepoint; trim, mark or drop (switches only); queue. */
MRC_SIM__PRIVATE void mrc_sim__enqueue(mrc_sim *s, uint32_t li, uint32_t pi) {
    mrc_sim__link *l = &s->link[li];
    mrc_sim__pkt *p = mrc_sim__pk(s, pi);
    unsigned cls = s->cls_of[p->dscp & 63u], q;
    uint64_t *qmax;
    if (l->from_host) {
        q = cls == MRC_DSCP_CONTROL ? 0u : 1u;
        qmax = &s->tot.q_max_nic;
    } else if (cls == MRC_DSCP_CONTROL || cls == MRC_DSCP_TRIMMED || cls == MRC_DSCP_TRIMMED_LASTHOP) {
        if (l->qbytes[0] + p->wire > s->plim) {
            mrc_sim__drop(s, pi, &s->tot.drop_prio, 0);
            return;
        }
        q = 0;
        qmax = (uint64_t *)0;
    } else if (l->qbytes[1] + p->wire > s->qlim) {
        uint32_t keep, mrc_len = (uint32_t)p->hdr_len + p->payload_len;
        if (!s->cfg.trim || (cls != MRC_DSCP_TRIMMABLE && cls != MRC_DSCP_TRIMMABLE_RETX) || p->trimmed) {
            mrc_sim__drop(s, pi, &s->tot.drop_queue, 0);
            return;
        }
        keep = s->cfg.trim_bytes ? s->cfg.trim_bytes : p->hdr_len;
        if (keep < p->hdr_len) keep = p->hdr_len; /* the model never cuts into the MRC headers */
        if (keep > mrc_len) keep = mrc_len;
        p->payload_len = keep - p->hdr_len;
        p->trimmed = 1;
        p->dscp = s->cfg.core.dscp[l->to_host && s->cfg.trim_lasthop_dscp ? MRC_DSCP_TRIMMED_LASTHOP : MRC_DSCP_TRIMMED];
        p->wire = keep + mrc_sim__overhead(s);
        s->tot.trims++;
        if (p->flow != MRC_SIM__NIL) s->flow[p->flow].r.fabric_trims++;
        if (l->qbytes[0] + p->wire > s->plim) {
            mrc_sim__drop(s, pi, &s->tot.drop_prio, 0);
            return;
        }
        q = 0;
        qmax = (uint64_t *)0;
    } else {
        uint64_t qb = l->qbytes[1];
        q = 1;
        qmax = l->to_host ? &s->tot.q_max_lasthop : &s->tot.q_max_fabric;
        if (l->ecn && (p->ecn & 3u) && p->ecn != MRC_SIM__CE && qb > s->kmin) {
            if (qb >= s->kmax || mrc_sim__below(mrc_sim__rand(s), (uint32_t)(s->kmax - s->kmin)) < qb - s->kmin) {
                p->ecn = MRC_SIM__CE;
                s->tot.ecn_marks++;
            }
        }
    }
    mrc_sim__qpush(s, l, q, pi);
    if (qmax && l->qbytes[1] > *qmax) *qmax = l->qbytes[1];
    mrc_sim__kick(s, li);
}

MRC_SIM__PRIVATE void mrc_sim__switch_rx(mrc_sim *s, uint32_t swi, uint32_t pi) {
    mrc_sim__sw *w = &s->sw[swi];
    mrc_sim__pkt *p = mrc_sim__pk(s, pi);
    uint32_t li;
    if (w->dead) {
        mrc_sim__drop(s, pi, &s->tot.drop_blackhole, 1);
        return;
    }
    if (s->cfg.routing == MRC_SIM_ROUTE_SRV6) {
        int miss;
        li = mrc_sim__srv6_fwd(s, w, p->da, &miss);
        if (li == MRC_SIM__NIL) {
            mrc_sim__drop(s, pi, miss ? &s->tot.drop_srv6 : &s->tot.drop_noroute, 0);
            return;
        }
    } else {
        li = mrc_sim__ecmp(s, w, p);
        if (li == MRC_SIM__NIL) {
            mrc_sim__drop(s, pi, &s->tot.drop_noroute, 0);
            return;
        }
    }
    mrc_sim__enqueue(s, li, pi);
}

/* ---- flows ----------------------------------------------------------------------------------------------------- */
MRC_SIM__PRIVATE void mrc_sim__flow_finish(mrc_sim *s, uint32_t fi) {
    mrc_sim__flow *f = &s->flow[fi];
    if (f->done) return;
    if (f->r.status == MRC_OK && (f->r.rx_done == MRC_TIME_NEVER || f->r.tx_done == MRC_TIME_NEVER)) return;
    f->done = 1;
    if (f->started) s->active--;
    s->flows_left--;
    if (f->r.status == MRC_OK) s->tot.flows_done++;
    else s->tot.flows_failed++;
    (void)mrc_sim__push(s, s->now + s->cfg.linger_ns, MRC_SIM__EV_FREE, fi);
}

MRC_SIM__PRIVATE void mrc_sim__flow_fail(mrc_sim *s, uint32_t fi, int status) {
    mrc_sim__flow *f = &s->flow[fi];
    if (f->r.status == MRC_OK) f->r.status = status;
    mrc_sim__flow_finish(s, fi);
}

MRC_SIM__PRIVATE void mrc_sim__flow_rx_done(mrc_sim *s, uint32_t fi) {
    mrc_sim__flow *f = &s->flow[fi];
    uint32_t d;
    f->r.rx_done = s->now;
    for (d = f->dep_head; d != MRC_SIM__NIL; d = s->flow[d].dep_next)
        (void)mrc_sim__push(s, s->flow[d].spec.start > s->now ? s->flow[d].spec.start : s->now, MRC_SIM__EV_FLOW, d);
    if (s->cfg.on_done) s->cfg.on_done(s->cfg.on_done_ud, s, fi, MRC_SIM_DONE_RX); /* may move s->flow */
    mrc_sim__flow_finish(s, fi);
}

/* The place hook (MRC_ACCESS_EXTERNAL): find the flow by region offset, check the bytes against the source. */
MRC_SIM__PRIVATE int mrc_sim__place(void *ud, uint32_t rkey, void *region_user, uint64_t off, const uint8_t *src,
                                    uint32_t len) {
    mrc_sim__host *h = (mrc_sim__host *)ud;
    mrc_sim *s = h->sim;
    uint32_t lo = 0, hi = h->n_rx, fi, k;
    mrc_sim__flow *f;
    uint64_t fo;
    int bad = 0;
    (void)rkey;
    (void)region_user;
    while (hi - lo > 1u) { /* last flow with base <= off */
        uint32_t mid = (lo + hi) / 2u;
        if (s->flow[h->rx_flows[mid]].base <= off) lo = mid;
        else hi = mid;
    }
    if (!h->n_rx) {
        s->tot.place_bad++;
        return 0;
    }
    fi = h->rx_flows[lo];
    f = &s->flow[fi];
    fo = off - f->base;
    if (off < f->base || fo + len > f->spec.bytes || (fo & (s->cfg.mtu - 1u)) || !f->bitmap) {
        s->tot.place_bad++;
        mrc_sim__flow_fail(s, fi, MRC_SIM_ERR_PLACE);
        return 0;
    }
    if (s->cfg.verify == MRC_SIM_VERIFY_FULL) {
        bad = memcmp(src, s->src + fo, len) != 0;
    } else if (s->cfg.verify == MRC_SIM_VERIFY_SAMPLED) {
        uint32_t w = len < 8u ? len : 8u;
        bad = memcmp(src, s->src + fo, w) || memcmp(src + len - w, s->src + fo + len - w, w) ||
              memcmp(src + (len - w) / 2u, s->src + fo + (len - w) / 2u, w);
    }
    if (bad) {
        s->tot.place_bad++;
        mrc_sim__flow_fail(s, fi, MRC_SIM_ERR_PLACE);
        return 0;
    }
    k = (uint32_t)(fo >> s->mtu_shift);
    if ((f->bitmap[k >> 6] >> (k & 63u)) & 1u) {
        s->tot.place_dup++;
        return 0;
    }
    f->bitmap[k >> 6] |= (uint64_t)1 << (k & 63u);
    f->placed += len;
    s->tot.bytes_placed += len;
    if (f->placed == f->spec.bytes && f->r.rx_done == MRC_TIME_NEVER) mrc_sim__flow_rx_done(s, fi);
    return 0;
}

MRC_SIM__PRIVATE void mrc_sim__trace(void *ud, unsigned id, uint64_t a, uint64_t b) {
    mrc_sim *s = (mrc_sim *)ud;
    (void)a;
    (void)b;
    if (id < 32u) s->tot.trace_count[id]++;
}

MRC_SIM__PRIVATE int mrc_sim__conn_up(mrc_sim *s, mrc_conn *c, uint32_t dest_qpn, uint32_t my_psn, uint32_t peer_psn,
                                      uint32_t peer, uint32_t incast) {
    mrc_conn_attr a;
    mrc_time now = s->now;
    int rc;
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_INIT;
    a.ev_profile_id = s->path_evs || s->hashed_evs ? MRC_SIM__PATH_PROF : 0u;
    a.hint.num_remote_recv_peers = incast;
    rc = mrc_conn_modify(c, &a, MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE | MRC_ATTR_HINT, now);
    if (rc) return rc;
    a.state = MRC_QPS_RTR;
    a.dest_qpn = dest_qpn;
    a.rq_psn = peer_psn;
    a.path_mtu = s->cfg.mtu;
    a.mpr_dest = s->cfg.mpr;
    a.max_wimm_dest = MRC_MAX_WIMM;
    a.peer = peer;
    rc = mrc_conn_modify(c, &a, MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU |
                                    MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST | MRC_ATTR_PEER, now);
    if (rc) return rc;
    a.state = MRC_QPS_RTS;
    a.sq_psn = my_psn;
    a.mpr = s->cfg.mpr;
    a.max_wimm = 1;
    a.retry_linear = s->cfg.retry_linear;
    a.retry_exp = s->cfg.retry_exp;
    a.timeout = s->cfg.timeout;
    return mrc_conn_modify(c, &a, MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM |
                                      MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT, now);
}

MRC_SIM__PRIVATE void mrc_sim__host_service(mrc_sim *s, mrc_sim__host *h);

/* on_done: every QP slot of host h is taken (MRC_MAX_CONNS) - the flow waits, in FIFO order, for one of h's QPs to
 * be freed (mrc_sim__conn_free), as an application waits for a free QP; O(1). Without on_done it fails instead. */
MRC_SIM__PRIVATE void mrc_sim__flow_wait(mrc_sim *s, mrc_sim__host *h, uint32_t fi) {
    mrc_sim__flow *f = &s->flow[fi];
    free(f->bitmap);
    f->bitmap = (uint64_t *)0;
    f->started = 0;
    s->active--;
    f->r.start = MRC_TIME_NEVER;
    f->wait_next = MRC_SIM__NIL;
    if (h->wait_head == MRC_SIM__NIL) h->wait_head = fi;
    else s->flow[h->wait_tail].wait_next = fi;
    h->wait_tail = fi;
    s->tot.qp_waits++;
}

MRC_SIM__PRIVATE void mrc_sim__flow_start(mrc_sim *s, uint32_t fi) {
    mrc_sim__flow *f = &s->flow[fi];
    mrc_sim__host *hs = &s->host[f->spec.src], *hr = &s->host[f->spec.dst];
    uint32_t psn_s = (uint32_t)(mrc_sim__rand(s) & MRC_PSN_MASK), psn_r = (uint32_t)(mrc_sim__rand(s) & MRC_PSN_MASK);
    int rc = MRC_OK;
    mrc_write wr;
    if (f->started) return;
    f->started = 1;
    s->active++;
    f->r.start = s->now;
    f->npkts = (uint32_t)((f->spec.bytes + s->cfg.mtu - 1u) >> s->mtu_shift);
    f->bitmap = (uint64_t *)calloc((f->npkts + 63u) / 64u, sizeof(uint64_t));
    f->cs = (mrc_conn *)calloc(1, sizeof(mrc_conn));
    f->cr = (mrc_conn *)calloc(1, sizeof(mrc_conn));
    if (!f->bitmap || !f->cs || !f->cr || (rc = mrc_conn_init(&hs->ep, f->cs, s->now)) != MRC_OK) {
        free(f->cs);
        free(f->cr);
        f->cs = f->cr = (mrc_conn *)0;
        if (rc == MRC_ERR_FULL && s->cfg.on_done) mrc_sim__flow_wait(s, hs, fi);
        else mrc_sim__flow_fail(s, fi, MRC_SIM_ERR_SETUP);
        return;
    }
    if ((rc = mrc_conn_init(&hr->ep, f->cr, s->now)) != MRC_OK) {
        (void)mrc_conn_destroy(f->cs);
        free(f->cs);
        free(f->cr);
        f->cs = f->cr = (mrc_conn *)0;
        if (rc == MRC_ERR_FULL && s->cfg.on_done) mrc_sim__flow_wait(s, hr, fi);
        else mrc_sim__flow_fail(s, fi, MRC_SIM_ERR_SETUP);
        return;
    }
    hs->slot_flow[mrc_conn_qpn(f->cs) - hs->ep.cfg.qpn_base] = fi;
    hr->slot_flow[mrc_conn_qpn(f->cr) - hr->ep.cfg.qpn_base] = fi;
    if (mrc_sim__conn_up(s, f->cs, mrc_conn_qpn(f->cr), psn_s, psn_r, f->spec.dst + 1u, f->spec.incast) != MRC_OK ||
        mrc_sim__conn_up(s, f->cr, mrc_conn_qpn(f->cs), psn_r, psn_s, f->spec.src + 1u, 0u) != MRC_OK) {
        mrc_sim__flow_fail(s, fi, MRC_SIM_ERR_SETUP);
        return;
    }
    memset(&wr, 0, sizeof wr);
    wr.wr_id = fi;
    wr.opcode = MRC_WR_WRITE;
    wr.buf = s->src;
    wr.len = (uint32_t)f->spec.bytes;
    wr.remote_va = MRC_SIM__IOVA + f->base;
    wr.rkey = hr->rkey;
    if (mrc_conn_post_write(f->cs, &wr, s->now) != MRC_OK) {
        mrc_sim__flow_fail(s, fi, MRC_SIM_ERR_SETUP);
        return;
    }
    hs->idle = 0;
    hr->idle = 0;
    mrc_sim__host_service(s, hs);
}

MRC_SIM__PRIVATE void mrc_sim__collect(mrc_sim__flow *f) {
    mrc_conn_stats st;
    if (f->cs) {
        mrc_conn_stats_get(f->cs, &st);
        f->r.tx_data = st.tx_data;
        f->r.tx_rtx = st.tx_rtx;
        f->r.tx_probes = st.tx_probes;
        f->r.rto_fired = st.rto_fired;
        f->r.tlp_fired = st.tlp_fired;
        f->r.rx_nack = st.rx_nack;
        f->r.ev_skip_req = st.ev_skip_req;
        f->r.ev_trims = st.ev_trims;
        f->r.ev_losses = st.ev_losses;
        f->r.ev_demoted = st.ev_demoted;
        f->r.ev_withheld = st.ev_withheld;
        f->r.ev_revived = st.ev_revived;
        f->r.rtx_spurious = st.rtx_spurious;
        f->r.ev_loss_host = st.ev_loss_host;
    }
    if (f->cr) {
        mrc_conn_stats_get(f->cr, &st);
        f->r.rx_data = st.rx_data;
        f->r.rx_trimmed = st.rx_trimmed;
        f->r.rx_dup = st.rx_dup;
        f->r.tx_nack = st.tx_nack;
        f->r.tx_sack = st.tx_sack;
    }
}

MRC_SIM__PRIVATE void mrc_sim__conn_free(mrc_sim *s, mrc_sim__host *h, mrc_conn *c) {
    mrc_conn_attr a;
    if (!c) return;
    h->slot_flow[mrc_conn_qpn(c) - h->ep.cfg.qpn_base] = MRC_SIM__NIL;
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_RESET;
    (void)mrc_conn_modify(c, &a, MRC_ATTR_STATE, s->now);
    (void)mrc_conn_destroy(c);
    free(c);
    if (h->wait_head != MRC_SIM__NIL) { /* a slot is free: the first flow waiting for one starts now */
        uint32_t w = h->wait_head;
        h->wait_head = s->flow[w].wait_next;
        (void)mrc_sim__push(s, s->now, MRC_SIM__EV_FLOW, w);
    }
}

MRC_SIM__PRIVATE void mrc_sim__flow_free(mrc_sim *s, uint32_t fi) {
    mrc_sim__flow *f = &s->flow[fi];
    if (f->freed) return;
    f->freed = 1;
    mrc_sim__collect(f);
    mrc_sim__conn_free(s, &s->host[f->spec.src], f->cs);
    mrc_sim__conn_free(s, &s->host[f->spec.dst], f->cr);
    f->cs = f->cr = (mrc_conn *)0;
    free(f->bitmap);
    f->bitmap = (uint64_t *)0;
}

/* ---- hosts ------------------------------------------------------------------------------------------------------ */
MRC_SIM__PRIVATE void mrc_sim__host_event(mrc_sim *s, mrc_sim__host *h, const mrc_event *ev) {
    uint32_t slot = ev->qpn - h->ep.cfg.qpn_base, fi;
    if (slot >= MRC_MAX_CONNS) return;
    fi = h->slot_flow[slot];
    if (fi == MRC_SIM__NIL) return;
    if (ev->type == MRC_EVT_CONN_ERROR) {
        s->tot.conn_errors++;
        mrc_sim__flow_fail(s, fi, ev->status);
    } else if (ev->type == MRC_EVT_SEND_DONE) {
        if (ev->status != MRC_OK) {
            mrc_sim__flow_fail(s, fi, ev->status);
        } else if (s->flow[fi].r.tx_done == MRC_TIME_NEVER) {
            s->flow[fi].r.tx_done = s->now;
            if (s->cfg.on_done) s->cfg.on_done(s->cfg.on_done_ud, s, fi, MRC_SIM_DONE_TX);
            mrc_sim__flow_finish(s, fi);
        }
    }
}

/* The NIC: hand packets out while any port can take one; each goes to the port the core chose. */
MRC_SIM__PRIVATE void mrc_sim__host_service(mrc_sim *s, mrc_sim__host *h) {
    mrc_event ev;
    mrc_time d;
    while (!h->idle) {
        uint32_t p, pi, hdr_len;
        int room = 0, n;
        mrc_txinfo ti;
        mrc_sim__pkt *pk;
        for (p = 0; p < s->P && !room; p++) {
            const mrc_sim__link *l = &s->link[h->link[p]];
            room = l->qpkts + (l->busy_until > s->now ? 1u : 0u) < s->cfg.nic_txq_pkts;
        }
        if (!room) break;
        pi = mrc_sim__pkt_alloc(s);
        if (pi == MRC_SIM__NIL) break;
        pk = mrc_sim__pk(s, pi);
        n = mrc_endpoint_poll_tx(&h->ep, pk->hdr, sizeof pk->hdr, 0, &ti, s->now);
        if (n <= 0) {
            mrc_sim__pkt_release(s, pi);
            h->idle = 1;
            break;
        }
        hdr_len = (uint32_t)n;
        s->tot.pkts_sent++;
        if (ti.port < 1 || ti.port > s->P || ti.peer < 1 || ti.peer > s->H || ti.peer - 1u == h->id) {
            mrc_sim__drop(s, pi, &s->tot.drop_noroute, 0); /* endpoint ops have no peer: nowhere to send them */
            continue;
        }
        pk->src = h->id;
        pk->dst = ti.peer - 1u;
        pk->ev = ti.ev;
        pk->hdr_len = (uint16_t)hdr_len;
        pk->payload = ti.payload;
        pk->payload_len = ti.payload_len;
        pk->pad = ti.pad;
        pk->dscp = ti.dscp;
        pk->ecn = MRC_SIM__ECT0;
        pk->port = ti.port;
        pk->trimmed = 0;
        pk->is_data = (uint8_t)(ti.opcode >= MRC_OP_WRITE_FIRST && ti.opcode <= MRC_OP_WRITE_ONLY_IMM);
        pk->flow = (ti.qpn - h->ep.cfg.qpn_base < MRC_MAX_CONNS) ? h->slot_flow[ti.qpn - h->ep.cfg.qpn_base]
                                                                   : MRC_SIM__NIL;
        pk->wire = hdr_len + ti.payload_len + ti.pad + mrc_sim__overhead(s);
        if (s->cfg.routing == MRC_SIM_ROUTE_SRV6)
            (void)mrc_sim_srv6_path(s, h->id, ti.port, pk->dst, ti.ev, pk->da);
        mrc_sim__enqueue(s, h->link[ti.port - 1u], pi);
    }
    while (mrc_endpoint_poll_event(&h->ep, &ev) > 0) mrc_sim__host_event(s, h, &ev);
    d = mrc_endpoint_next_deadline(&h->ep);
    if (d < h->timer_at) {
        h->timer_at = d < s->now ? s->now : d;
        (void)mrc_sim__push(s, h->timer_at, MRC_SIM__EV_TIMER, h->id);
    }
}

MRC_SIM__PRIVATE void mrc_sim__host_rx(mrc_sim *s, mrc_sim__host *h, uint32_t pi, uint8_t port) {
    mrc_sim__pkt *p = mrc_sim__pk(s, pi);
    mrc_rxinfo ri;
    uint32_t len = p->hdr_len;
    if (h->rx_stall) {
        mrc_sim__drop(s, pi, &s->tot.drop_host, 0);
        return;
    }
    if (s->cfg.routing == MRC_SIM_ROUTE_SRV6 && mrc_sim__usid_get(p->da, 0) != h->usid) {
        mrc_sim__drop(s, pi, &s->tot.drop_srv6, 0);
        return;
    }
    memcpy(s->scratch, p->hdr, p->hdr_len);
    if (p->payload_len) {
        memcpy(s->scratch + len, p->payload, p->payload_len);
        len += p->payload_len;
    }
    if (!p->trimmed && p->pad) {
        memset(s->scratch + len, 0, p->pad);
        len += p->pad;
    }
    memset(&ri, 0, sizeof ri);
    ri.port = port;
    ri.dscp = p->dscp;
    ri.ecn = p->ecn;
    ri.ev = p->ev;
#ifdef MRC_SIM_RX_PEER
    ri.peer = p->src + 1u; /* the handle the receiving conn has in mrc_conn_attr.peer */
#endif
    s->tot.pkts_delivered++;
    if (p->is_data) s->tot.data_delivered++;
    mrc_sim__fnv(&s->tot.digest, s->now);
    mrc_sim__fnv(&s->tot.digest, ((uint64_t)h->id << 40) ^ ((uint64_t)port << 32) ^ len);
    mrc_sim__fnv(&s->tot.digest, ((uint64_t)p->hdr[0] << 56) ^ ((uint64_t)p->hdr[9] << 16) ^
                                     ((uint64_t)p->hdr[10] << 8) ^ p->hdr[11]);
    if (h->pcap && s->cfg.pcap) mrc_sim__pcap_write(s, p);
    if (mrc_endpoint_recv(&h->ep, s->scratch, len, &ri, s->now) < 0) s->tot.rx_rejected++;
    mrc_sim__pkt_release(s, pi);
    h->idle = 0;
    mrc_sim__host_service(s, h);
}

/* ---- faults ------------------------------------------------------------------------------------------------------ */
MRC_SIM__PRIVATE void mrc_sim__cable_down(mrc_sim *s, uint32_t c, uint8_t down) {
    uint32_t d;
    for (d = 0; d < 2; d++) {
        uint32_t li = 2u * c + d;
        s->link[li].down = down;
        (void)mrc_sim__push(s, s->now + s->cfg.detect_ns, MRC_SIM__EV_DETECT, (li << 1) | down);
    }
}
/* oracle_fault: does the path a data packet of src on 'port' with EV 'ev' takes to dst cross a black hole? */
MRC_SIM__PRIVATE int mrc_sim__path_bh(mrc_sim *s, uint32_t src, unsigned port, uint32_t dst, uint32_t ev) {
    mrc_sim__pkt p;
    uint32_t li, node, hops = 0;
    memset(&p, 0, sizeof p);
    p.src = src;
    p.dst = dst;
    p.ev = ev;
    if (s->cfg.routing == MRC_SIM_ROUTE_SRV6 && mrc_sim_srv6_path(s, src, port, dst, ev, p.da) < 2) return 0;
    li = s->host[src].link[port - 1u];
    for (;;) {
        if (s->link[li].bh) return 1;
        node = s->link[li].to;
        if (mrc_sim__is_host(s, node) || ++hops > 8u) return 0;
        if (s->cfg.routing == MRC_SIM_ROUTE_SRV6) {
            int miss;
            li = mrc_sim__srv6_fwd(s, &s->sw[node - s->H], p.da, &miss);
        } else {
            li = mrc_sim__ecmp(s, &s->sw[node - s->H], &p);
        }
        if (li == MRC_SIM__NIL) return 0;
    }
}
/* oracle_fault: each host marks the EVs of its profile that now lead one of its flows into a black hole. O(flows x
 * EVs x hops) per fault, once. */
MRC_SIM__PRIVATE void mrc_sim__oracle_fault(mrc_sim *s) {
    mrc_ev_op_entry arr[MRC_MAX_EVS];
    uint32_t fi, i;
    for (fi = 0; fi < s->nflows; fi++) {
        const mrc_sim__flow *f = &s->flow[fi];
        mrc_sim__host *h = &s->host[f->spec.src];
        uint32_t n = MRC_MAX_EVS, marked = 0;
        if (f->done || mrc_ev_op(&h->ep, MRC_SIM__PATH_PROF, MRC_EV_OP_QUERY_ARRAY, arr, &n, s->now) != MRC_OK) continue;
        for (i = 0; i < n; i++) {
            uint32_t one = 1, ev = ((uint32_t)arr[i].ev.val[0] << 8) | arr[i].ev.val[1];
            if (arr[i].state == MRC_EVS_ASSUMED_BAD || !arr[i].ev.port || arr[i].ev.port > s->P ||
                !mrc_sim__path_bh(s, f->spec.src, arr[i].ev.port, f->spec.dst, ev))
                continue;
            arr[i].state = MRC_EVS_ASSUMED_BAD;
            if (mrc_ev_op(&h->ep, MRC_SIM__PATH_PROF, MRC_EV_OP_MODIFY_STATE, &arr[i], &one, s->now) == MRC_OK) {
                s->tot.oracle_marks++;
                marked++;
            }
        }
        if (marked) { /* its deadlines moved (probes): serviced at once, as after a timer */
            h->timer_at = s->now;
            (void)mrc_sim__push(s, s->now, MRC_SIM__EV_TIMER, f->spec.src);
        }
    }
}
MRC_SIM__PRIVATE void mrc_sim__cable_bh(mrc_sim *s, uint32_t c, uint8_t on) {
    s->link[2u * c].bh = s->link[2u * c + 1u].bh = on;
    if (on && s->cfg.oracle_fault) mrc_sim__oracle_fault(s);
}

MRC_SIM__PRIVATE void mrc_sim__fault(mrc_sim *s, uint32_t fid, uint8_t on) {
    const mrc_sim_fault *f = &s->fault[fid];
    uint32_t i, j;
    switch (f->kind) {
    case MRC_SIM_FAULT_BLACKHOLE: mrc_sim__cable_bh(s, f->target, on); break;
    case MRC_SIM_FAULT_LINK_DOWN: mrc_sim__cable_down(s, f->target, on); break;
    case MRC_SIM_FAULT_FLAP:
        if (f->until && s->now >= f->until) {
            mrc_sim__cable_down(s, f->target, 0);
            break;
        }
        mrc_sim__cable_down(s, f->target, on);
        if (on) (void)mrc_sim__push(s, s->now + f->down_ns, MRC_SIM__EV_FAULT_OFF, fid);
        else if (!f->until || s->now + (f->period_ns - f->down_ns) < f->until)
            (void)mrc_sim__push(s, s->now + (f->period_ns - f->down_ns), MRC_SIM__EV_FAULT_ON, fid);
        break;
    case MRC_SIM_FAULT_DEGRADE:
        for (j = 0; j < 2; j++) {
            mrc_sim__link *l = &s->link[2u * f->target + j];
            l->rate = on ? l->base_rate / 100u * f->rate_pct : l->base_rate;
            if (!l->rate) l->rate = 1;
        }
        break;
    case MRC_SIM_FAULT_LOSS:
        if (f->target == MRC_SIM_NONE)
            for (i = 0; i < s->L; i++) s->link[i].loss_ppm = on ? f->loss_ppm : 0;
        else
            s->link[2u * f->target].loss_ppm = s->link[2u * f->target + 1u].loss_ppm = on ? f->loss_ppm : 0;
        break;
    case MRC_SIM_FAULT_SWITCH_DOWN: {
        const mrc_sim__sw *w = &s->sw[f->target];
        for (i = 0; i < w->n_down + w->n_up; i++) mrc_sim__cable_down(s, s->ports[w->port0 + i] >> 1, on);
        break;
    }
    case MRC_SIM_FAULT_SWITCH_BLACKHOLE: s->sw[f->target].dead = on; break;
    case MRC_SIM_FAULT_PORT_DOWN: mrc_sim__cable_down(s, s->host[f->target].link[f->port - 1u] >> 1, on); break;
    case MRC_SIM_FAULT_PLANE_DOWN:
        for (i = 0; i < s->H; i++) mrc_sim__cable_down(s, s->host[i].link[f->port - 1u] >> 1, on);
        break;
    case MRC_SIM_FAULT_HOST_STALL: /* as FLAP, on the host's receive side */
        if (f->until && s->now >= f->until) {
            s->host[f->target].rx_stall = 0;
            break;
        }
        s->host[f->target].rx_stall = on;
        if (on) (void)mrc_sim__push(s, s->now + f->down_ns, MRC_SIM__EV_FAULT_OFF, fid);
        else if (!on && (!f->until || s->now + (f->period_ns - f->down_ns) < f->until))
            (void)mrc_sim__push(s, s->now + (f->period_ns - f->down_ns), MRC_SIM__EV_FAULT_ON, fid);
        break;
    default: break;
    }
}

MRC_SIM__PRIVATE void mrc_sim__detect(mrc_sim *s, uint32_t li, uint8_t down) {
    mrc_sim__link *l = &s->link[li];
    if (l->known_down == down) return;
    l->known_down = down;
    if (l->from_host) {
        mrc_sim__host *h = &s->host[l->from];
        (void)mrc_endpoint_port_set(&h->ep, l->port, !down, s->now);
        h->idle = 0;
        mrc_sim__host_service(s, h);
    } else if (l->up_port) {
        mrc_sim__sw *w = &s->sw[l->from - s->H];
        if (down) w->n_up_known_down++;
        else w->n_up_known_down--;
    }
}

MRC_SIM_API int mrc_sim_add_fault(mrc_sim *s, const mrc_sim_fault *f) {
    if (!s || !f || s->started) return -1;
    switch (f->kind) {
    case MRC_SIM_FAULT_BLACKHOLE: case MRC_SIM_FAULT_LINK_DOWN: case MRC_SIM_FAULT_DEGRADE:
        if (f->target >= s->C) return -1;
        if (f->kind == MRC_SIM_FAULT_DEGRADE && (f->rate_pct < 1 || f->rate_pct > 100)) return -1;
        break;
    case MRC_SIM_FAULT_FLAP:
        if (f->target >= s->C || !f->down_ns || f->down_ns >= f->period_ns) return -1;
        break;
    case MRC_SIM_FAULT_LOSS:
        if ((f->target != MRC_SIM_NONE && f->target >= s->C) || f->loss_ppm > 1000000u) return -1;
        break;
    case MRC_SIM_FAULT_SWITCH_DOWN: case MRC_SIM_FAULT_SWITCH_BLACKHOLE:
        if (f->target >= s->S) return -1;
        break;
    case MRC_SIM_FAULT_PORT_DOWN:
        if (f->target >= s->H || f->port < 1 || f->port > s->P) return -1;
        break;
    case MRC_SIM_FAULT_PLANE_DOWN:
        if (f->port < 1 || f->port > s->P) return -1;
        break;
    case MRC_SIM_FAULT_HOST_STALL:
        if (f->target >= s->H || !f->down_ns || f->down_ns >= f->period_ns) return -1;
        break;
    default: return -1;
    }
    if (f->until && f->until <= f->at) return -1;
    if (s->nfaults == s->fault_cap) {
        uint32_t nc = s->fault_cap ? s->fault_cap * 2u : 64u;
        mrc_sim_fault *nf = (mrc_sim_fault *)realloc(s->fault, (size_t)nc * sizeof *nf);
        if (!nf) return -1;
        s->fault = nf;
        s->fault_cap = nc;
    }
    s->fault[s->nfaults++] = *f;
    return 0;
}

/* ---- time series --------------------------------------------------------------------------------------------- */
MRC_SIM__PRIVATE void mrc_sim__sample(mrc_sim *s) {
    mrc_sim_sample m;
    uint32_t i;
    memset(&m, 0, sizeof m);
    m.t = s->now;
    m.placed = s->tot.bytes_placed - s->prev.placed;
    for (i = 0; i < MRC_MAX_PORTS; i++) m.plane_bytes[i] = s->tot.plane_bytes[i] - s->prev.plane_bytes[i];
    m.trims = s->tot.trims - s->prev.trims;
    m.drops = s->cum_drops - s->prev.drops;
    m.marks = s->tot.ecn_marks - s->prev.marks;
    for (i = 0; i < s->L; i++) {
        const mrc_sim__link *l = &s->link[i];
        if (l->from_host) continue;
        if (l->to_host) {
            if (l->qbytes[1] > m.q_lasthop_max) m.q_lasthop_max = l->qbytes[1];
        } else {
            if (l->qbytes[1] > m.q_max) m.q_max = l->qbytes[1];
            m.q_sum += l->qbytes[1];
        }
    }
    m.active_flows = s->active;
    s->prev.placed = s->tot.bytes_placed;
    memcpy(s->prev.plane_bytes, s->tot.plane_bytes, sizeof s->prev.plane_bytes);
    s->prev.trims = s->tot.trims;
    s->prev.drops = s->cum_drops;
    s->prev.marks = s->tot.ecn_marks;
    if (s->nsmp == s->smp_cap) {
        uint32_t nc = s->smp_cap ? s->smp_cap * 2u : 256u;
        mrc_sim_sample *ns = (mrc_sim_sample *)realloc(s->smp, (size_t)nc * sizeof *ns);
        if (!ns) return;
        s->smp = ns;
        s->smp_cap = nc;
    }
    s->smp[s->nsmp++] = m;
}

/* ---- flows: adding and the run -------------------------------------------------------------------------------- */
/* The array a of n elements, with room for one more (capacity doubled from 'first'); NULL when out of memory, a and
 * *cap unchanged then. */
MRC_SIM__PRIVATE void *mrc_sim__grow(void *a, uint32_t n, uint32_t *cap, uint32_t first, size_t elem) {
    uint32_t nc;
    void *na;
    if (n < *cap) return a;
    nc = *cap ? *cap * 2u : first;
    na = realloc(a, (size_t)nc * elem);
    if (na) *cap = nc;
    return na;
}

/* A flow added while the run is under way (mrc_sim_config.on_done): its place at the end of the receiver's region,
 * then its start now, later, or when its dependency completes. Amortised O(1). */
MRC_SIM__PRIVATE uint32_t mrc_sim__add_running(mrc_sim *s, uint32_t i) {
    mrc_sim__flow *f = &s->flow[i];
    mrc_sim__host *h = &s->host[f->spec.dst];
    uint32_t *nr = (uint32_t *)mrc_sim__grow(h->rx_flows, h->n_rx, &h->rx_cap, 16u, sizeof *nr);
    if (!nr) return MRC_SIM_NONE;
    h->rx_flows = nr;
    f->base = h->region_len;
    h->region_len += (f->spec.bytes + s->cfg.mtu - 1u) / s->cfg.mtu * s->cfg.mtu;
    h->rx_flows[h->n_rx++] = i; /* the largest base so far: the array stays sorted */
    s->nflows++;
    s->flows_left++;
    if (f->spec.after != MRC_SIM_NONE && s->flow[f->spec.after].r.rx_done == MRC_TIME_NEVER) {
        f->dep_next = s->flow[f->spec.after].dep_head;
        s->flow[f->spec.after].dep_head = i;
    } else {
        (void)mrc_sim__push(s, f->spec.start > s->now ? f->spec.start : s->now, MRC_SIM__EV_FLOW, i);
    }
    return i;
}

MRC_SIM_API uint32_t mrc_sim_add_flow(mrc_sim *s, const mrc_sim_flow_spec *f) {
    mrc_sim__flow *nf, *fl;
    if (!s || !f || (s->started && !s->cfg.on_done) || f->src >= s->H || f->dst >= s->H || f->src == f->dst ||
        !f->bytes || f->bytes > MRC_MAX_MSG_LEN || (s->started && f->bytes > s->src_len) ||
        (f->after != MRC_SIM_NONE && f->after >= s->nflows) || s->nflows == MRC_SIM__NIL - 1u)
        return MRC_SIM_NONE;
    fl = (mrc_sim__flow *)mrc_sim__grow(s->flow, s->nflows, &s->flow_cap, 1024u, sizeof *fl);
    if (!fl) return MRC_SIM_NONE;
    s->flow = fl;
    nf = &s->flow[s->nflows];
    memset(nf, 0, sizeof *nf);
    nf->spec = *f;
    nf->r.src = f->src;
    nf->r.dst = f->dst;
    nf->r.bytes = f->bytes;
    nf->r.start = nf->r.rx_done = nf->r.tx_done = MRC_TIME_NEVER;
    nf->r.bh_first = nf->r.bh_last = MRC_TIME_NEVER;
    nf->r.ideal_ns = mrc_sim_ideal_fct(s, f->src, f->dst, f->bytes);
    nf->dep_head = nf->dep_next = MRC_SIM__NIL;
    if (s->started) return mrc_sim__add_running(s, s->nflows);
    return s->nflows++;
}

MRC_SIM__PRIVATE int mrc_sim__start(mrc_sim *s) {
    uint32_t i, *cnt;
    uint64_t maxb = 0;
    s->started = 1;
    cnt = (uint32_t *)calloc(s->H, sizeof *cnt);
    if (!cnt) return -1;
    for (i = 0; i < s->nflows; i++) {
        mrc_sim__flow *f = &s->flow[i];
        mrc_sim__host *h = &s->host[f->spec.dst];
        f->base = h->region_len;
        h->region_len += (f->spec.bytes + s->cfg.mtu - 1u) / s->cfg.mtu * s->cfg.mtu;
        cnt[f->spec.dst]++;
        if (f->spec.bytes > maxb) maxb = f->spec.bytes;
        if (f->spec.after != MRC_SIM_NONE) { /* prepend: dependents start in reverse order of addition */
            f->dep_next = s->flow[f->spec.after].dep_head;
            s->flow[f->spec.after].dep_head = i;
        }
    }
    if (s->cfg.flow_bytes_max > maxb) maxb = s->cfg.flow_bytes_max;
    for (i = 0; i < s->H; i++) {
        mrc_sim__host *h = &s->host[i];
        if (!cnt[i] && !s->cfg.on_done) continue;
        h->rx_cap = cnt[i] > 16u ? cnt[i] : 16u;
        h->rx_flows = (uint32_t *)malloc((size_t)h->rx_cap * sizeof *h->rx_flows);
        if (!h->rx_flows) {
            free(cnt);
            return -1;
        }
        /* with on_done, flows still to come are placed after the ones known now: a window of 2^46 bytes (external
         * access: nothing is allocated) */
        if (mrc_endpoint_reg_mr(&h->ep, (void *)0, MRC_SIM__IOVA, s->cfg.on_done ? (uint64_t)1 << 46 : h->region_len,
                                MRC_ACCESS_REMOTE_WRITE | MRC_ACCESS_EXTERNAL, h, &h->rkey) != MRC_OK) {
            free(cnt);
            return -1;
        }
    }
    free(cnt);
    for (i = 0; i < s->nflows; i++) {
        mrc_sim__host *h = &s->host[s->flow[i].spec.dst];
        h->rx_flows[h->n_rx++] = i;
    }
    /* the shared source buffer: seeded bytes every sender writes from */
    {
        size_t nw = (size_t)((maxb + 15u) / 8u), w;
        s->src = (uint8_t *)malloc(nw * 8u);
        if (!s->src) return -1;
        s->src_len = maxb;
        for (w = 0; w < nw; w++) {
            uint64_t v = mrc_sim__mix(s->cfg.seed * 0x2545F4914F6CDD1Dull + w);
            memcpy(s->src + w * 8u, &v, 8u);
        }
    }
    s->flows_left = s->nflows;
    for (i = 0; i < s->nflows; i++)
        if (s->flow[i].spec.after == MRC_SIM_NONE)
            if (mrc_sim__push(s, s->flow[i].spec.start, MRC_SIM__EV_FLOW, i)) return -1;
    for (i = 0; i < s->nfaults; i++) {
        if (mrc_sim__push(s, s->fault[i].at, MRC_SIM__EV_FAULT_ON, i)) return -1;
        if (s->fault[i].until && s->fault[i].kind != MRC_SIM_FAULT_FLAP)
            if (mrc_sim__push(s, s->fault[i].until, MRC_SIM__EV_FAULT_OFF, i)) return -1;
    }
    if (s->cfg.sample_ns && mrc_sim__push(s, s->cfg.sample_ns, MRC_SIM__EV_SAMPLE, 0)) return -1;
    return 0;
}

MRC_SIM_API int mrc_sim_run(mrc_sim *s, mrc_time until) {
    if (!s) return -1;
    if (!s->started && mrc_sim__start(s)) return -1;
    while (s->flows_left && s->heap_len) {
        mrc_sim__ev e;
        if (s->heap[0].t > until) {
            s->now = until;
            return 0;
        }
        e = mrc_sim__pop(s);
        s->now = e.t;
        s->tot.events++;
        switch (e.type) {
        case MRC_SIM__EV_ARRIVE: {
            mrc_sim__link *l = &s->link[e.idx];
            uint32_t pi = l->fh;
            l->fh = mrc_sim__pk(s, pi)->next;
            if (l->fh == MRC_SIM__NIL) {
                l->ft = MRC_SIM__NIL;
                l->arr_in_heap = 0;
            } else {
                (void)mrc_sim__push_seq(s, mrc_sim__pk(s, l->fh)->t_arr, mrc_sim__pk(s, l->fh)->seq, MRC_SIM__EV_ARRIVE, e.idx);
            }
            if (l->to_host) mrc_sim__host_rx(s, &s->host[l->to], pi, l->port);
            else mrc_sim__switch_rx(s, l->to - s->H, pi);
            break;
        }
        case MRC_SIM__EV_TXDONE: {
            mrc_sim__link *l = &s->link[e.idx];
            l->txdone_pending = 0;
            if (l->qpkts) mrc_sim__tx_start(s, e.idx);
            if (l->from_host) mrc_sim__host_service(s, &s->host[l->from]);
            break;
        }
        case MRC_SIM__EV_TIMER: {
            mrc_sim__host *h = &s->host[e.idx];
            if (e.t != h->timer_at) break; /* superseded */
            h->timer_at = MRC_TIME_NEVER;
            (void)mrc_endpoint_on_timeout(&h->ep, s->now);
            h->idle = 0;
            mrc_sim__host_service(s, h);
            break;
        }
        case MRC_SIM__EV_FLOW: mrc_sim__flow_start(s, e.idx); break;
        case MRC_SIM__EV_FAULT_ON: mrc_sim__fault(s, e.idx, 1); break;
        case MRC_SIM__EV_FAULT_OFF: mrc_sim__fault(s, e.idx, 0); break;
        case MRC_SIM__EV_DETECT: mrc_sim__detect(s, e.idx >> 1, (uint8_t)(e.idx & 1u)); break;
        case MRC_SIM__EV_SAMPLE:
            mrc_sim__sample(s);
            (void)mrc_sim__push(s, s->now + s->cfg.sample_ns, MRC_SIM__EV_SAMPLE, 0);
            break;
        case MRC_SIM__EV_FREE: mrc_sim__flow_free(s, e.idx); break;
        default: return -1;
        }
    }
    if (!s->flows_left && s->cfg.sample_ns && (!s->nsmp || s->smp[s->nsmp - 1u].t < s->now)) mrc_sim__sample(s);
    return s->flows_left ? 0 : 1;
}

/* ---- results ------------------------------------------------------------------------------------------------ */
MRC_SIM_API uint32_t mrc_sim_flows(const mrc_sim *s) { return s ? s->nflows : 0; }
MRC_SIM_API uint64_t mrc_sim_flow_user(const mrc_sim *s, uint32_t id) {
    return s && id < s->nflows ? s->flow[id].spec.user : 0u;
}
MRC_SIM_API int mrc_sim_flow_get(const mrc_sim *s, uint32_t id, mrc_sim_flow_result *out) {
    if (!s || !out || id >= s->nflows) return -1;
    mrc_sim__collect(&s->flow[id]); /* live QPs: their current counters */
    *out = s->flow[id].r;
    return 0;
}
MRC_SIM_API void mrc_sim_totals_get(const mrc_sim *s, mrc_sim_totals *out) {
    if (!out) return;
    if (s) {
        *out = s->tot;
        out->pkt_pool = s->pkt_cap;
        out->heap_max = s->heap_cap;
    } else {
        memset(out, 0, sizeof *out);
    }
}
MRC_SIM_API uint32_t mrc_sim_samples(const mrc_sim *s) { return s ? s->nsmp : 0; }
MRC_SIM_API int mrc_sim_sample_get(const mrc_sim *s, uint32_t i, mrc_sim_sample *out) {
    if (!s || !out || i >= s->nsmp) return -1;
    *out = s->smp[i];
    return 0;
}

/* ---- create / destroy ---------------------------------------------------------------------------------------- */
MRC_SIM_API int mrc_sim_create(mrc_sim **out, const mrc_sim_config *cfg, char *err, size_t cap) {
    mrc_sim *s;
    uint32_t i, hops, ov;
    mrc_time data_ser_h, data_ser_l, ack_ser_h, ack_ser_l;
    uint64_t bdp_link;
    if (!out) return -1;
    *out = (mrc_sim *)0;
    s = (mrc_sim *)calloc(1, sizeof *s);
    if (!s) {
        mrc_sim__seterr(err, cap, "out of memory");
        return -1;
    }
    if (cfg) s->cfg = *cfg;
    else mrc_sim_config_default(&s->cfg);
    if (!s->cfg.host_bps) s->cfg.host_bps = s->cfg.link_bps;
    if (!s->cfg.link_bps || s->cfg.mtu < 256 || s->cfg.mtu > 4096 || (s->cfg.mtu & (s->cfg.mtu - 1u))) {
        mrc_sim__seterr(err, cap, "link rate must be > 0 and mtu a power of two in 256..4096");
        goto fail;
    }
    if ((s->cfg.oracle_bypass || s->cfg.oracle_fault) && !s->cfg.ev_paths && !s->cfg.ev_hashed) {
        mrc_sim__seterr(err, cap,
                        s->cfg.oracle_bypass ? "oracle_bypass needs an EV profile to mark (ev_paths or ev_hashed)"
                                             : "oracle_fault needs an EV profile to mark (ev_paths or ev_hashed)");
        goto fail;
    }
    if (s->cfg.ev_hashed && (s->cfg.ev_paths || s->cfg.routing != MRC_SIM_ROUTE_ECMP)) {
        mrc_sim__seterr(err, cap, "ev_hashed needs ECMP routing and no ev_paths");
        goto fail;
    }
    if (s->cfg.mpr < 1 || s->cfg.mpr > MRC_MAX_MPR_UNITS || s->cfg.ecn_kmin_pct >= s->cfg.ecn_kmax_pct ||
        s->cfg.ecn_kmax_pct > 100 || !s->cfg.nic_txq_pkts || s->cfg.routing > MRC_SIM_ROUTE_SRV6 ||
        s->cfg.timeout > 24 || s->cfg.retry_linear > 7 || s->cfg.retry_exp > 25 || !s->cfg.evs_per_qp ||
        s->cfg.verify > MRC_SIM_VERIFY_FULL) {
        mrc_sim__seterr(err, cap, "bad configuration value (mpr, ecn thresholds, nic_txq_pkts, routing, retry)");
        goto fail;
    }
    for (i = 0; s->cfg.mtu >> i > 1u; i++) {}
    s->mtu_shift = i;
    s->rng = mrc_sim__mix(s->cfg.seed ^ 0x73696D2D72756E31ull);
    s->pkt_free = MRC_SIM__NIL;
    s->tot.digest = 0xCBF29CE484222325ull;
    if (mrc_sim__build(s, err, cap)) goto fail;
    if ((uint32_t)(s->cfg.evs_per_qp / s->P ? s->cfg.evs_per_qp / s->P : 1u) * s->P > MRC_MAX_EVS) {
        mrc_sim__seterr(err, cap, "evs_per_qp larger than MRC_MAX_EVS");
        goto fail;
    }
    /* base RTT over the longest path: an MTU data packet out, a SACK back */
    hops = mrc_sim__max_hops(s);
    ov = mrc_sim__overhead(s);
    data_ser_h = mrc_sim__ser(s->cfg.mtu + MRC_SIM__DATA_HDR + ov, s->cfg.host_bps);
    data_ser_l = mrc_sim__ser(s->cfg.mtu + MRC_SIM__DATA_HDR + ov, s->cfg.link_bps);
    ack_ser_h = mrc_sim__ser(MRC_SIM__ACK_LEN + ov, s->cfg.host_bps);
    ack_ser_l = mrc_sim__ser(MRC_SIM__ACK_LEN + ov, s->cfg.link_bps);
    s->rtt = 2u * (mrc_time)hops * s->cfg.prop_ns + 2u * (data_ser_h + ack_ser_h) +
             (mrc_time)(hops - 2u) * (data_ser_l + ack_ser_l);
    bdp_link = (uint64_t)((double)s->cfg.link_bps * (double)s->rtt / 8e9);
    s->qlim = s->cfg.queue_bytes ? s->cfg.queue_bytes : bdp_link;
    s->plim = s->cfg.prio_queue_bytes ? s->cfg.prio_queue_bytes : s->qlim;
    s->kmin = s->qlim * s->cfg.ecn_kmin_pct / 100u;
    s->kmax = s->qlim * s->cfg.ecn_kmax_pct / 100u;
    s->cfg.queue_bytes = s->qlim;
    s->cfg.prio_queue_bytes = s->plim;
    s->cwnd = s->cfg.cwnd_bytes == MRC_SIM_NONE ? 0u : s->cfg.cwnd_bytes;
    if (s->cfg.ev_paths) { /* one EV per up path of a plane, on every plane (mrc_sim_srv6_path decodes them) */
        s->path_evs = s->P * (s->cfg.topo == MRC_SIM_FATTREE ? s->hpt * s->hpt : s->n1);
        if (s->path_evs > MRC_MAX_EVS || 49152u + 2u * s->path_evs > 65536u) {
            mrc_sim__seterr(err, cap, "ev_paths: more up paths than MRC_MAX_EVS EVs per QP");
            goto fail;
        }
    }
    if (s->cfg.ev_hashed) s->hashed_evs = s->P * (s->cfg.evs_per_qp / s->P ? s->cfg.evs_per_qp / s->P : 1u);
    /* DSCP codepoint -> class, as a switch is configured */
    for (i = 0; i < 64; i++) s->cls_of[i] = MRC_DSCP_NO_TRIM;
    for (i = MRC_DSCP_CLASSES; i-- > 0;) s->cls_of[s->cfg.core.dscp[i] & 63u] = (uint8_t)i;
    s->scratch = (uint8_t *)malloc(16384);
    if (!s->scratch) {
        mrc_sim__seterr(err, cap, "out of memory");
        goto fail;
    }
    for (i = 0; i < s->H; i++) {
        mrc_sim__host *h = &s->host[i];
        mrc_config mc = s->cfg.core; /* passed through, but for what the fabric decides */
        uint32_t j;
        mc.seed = mrc_sim__mix(s->cfg.seed ^ (0x686F737400000000ull + i));
        mc.qpn_base = MRC_SIM__QPN_BASE; /* fixed QPNs (qpn_base + slot): flows are indexed by QPN - qpn_base below */
        mc.num_ports = (uint8_t)s->P;
        /* congestion control: the core's NSCC sized for this host and fabric, unless a fixed window (or none) is
         * asked for */
        mc.cc.algo = s->cfg.cwnd_bytes == 0 ? MRC_CC_ALGO_NSCC
                     : s->cfg.cwnd_bytes == MRC_SIM_NONE ? MRC_CC_ALGO_NONE : MRC_CC_ALGO_FIXED;
        mc.cc.fixed_cwnd_bytes = s->cwnd;
        if (!mc.cc.line_rate_mbps)
            mc.cc.line_rate_mbps = (uint32_t)((s->cfg.host_bps ? s->cfg.host_bps : s->cfg.link_bps) / 1000000u * s->P);
        mc.cc.base_rtt_ns = (uint32_t)s->rtt;
        mc.auto_ev.per_port = (uint16_t)(s->cfg.evs_per_qp / s->P ? s->cfg.evs_per_qp / s->P : 1u);
        mc.place = mrc_sim__place;
        mc.place_ud = h;
        mc.trace = mrc_sim__trace;
        mc.trace_ud = s;
        if (mrc_endpoint_init(&h->ep, &mc, 0) != MRC_OK) {
            mrc_sim__seterr(err, cap, "mrc_endpoint_init failed (bad DSCP or EV settings)");
            goto fail;
        }
        if (s->path_evs) { /* ev_paths: EV i on plane i % P + 1, its source port names T1 (and T2) by itself */
            uint32_t per = s->path_evs / s->P, base = (49152u + per - 1u) / per * per;
            if (mrc_ev_profile_udp_planes(&h->ep, MRC_SIM__PATH_PROF, MRC_SIM__PATH_PROF, s->P, per, base,
                                          s->path_evs / 8u ? s->path_evs / 8u : 1u, 0) != MRC_OK) {
                mrc_sim__seterr(err, cap, "path-aware EV profile refused by the core");
                goto fail;
            }
            if (s->cfg.ev_groups && s->cfg.topo == MRC_SIM_FATTREE) { /* EV i climbs to T1 i mod k/2 */
                uint16_t g[MRC_MAX_EVS];
                for (j = 0; j < s->path_evs; j++) g[j] = (uint16_t)(1u + j % s->hpt);
                if (mrc_ev_profile_groups(&h->ep, MRC_SIM__PATH_PROF, g, s->path_evs) != MRC_OK) {
                    mrc_sim__seterr(err, cap, "hop groups refused by the core");
                    goto fail;
                }
            }
        }
        if (s->hashed_evs) { /* ev_hashed: distinct random source ports, as the core draws AUTO EVs */
            uint8_t ports[MRC_MAX_EVS];
            uint16_t sports[MRC_MAX_EVS];
            uint64_t r = mrc_sim__mix(s->cfg.seed ^ (0x6861736800000000ull + i));
            for (j = 0; j < s->hashed_evs; j++) {
                uint32_t t;
                do {
                    r = mrc_sim__mix(r);
                    sports[j] = (uint16_t)(49152u + (uint32_t)(r % 16384u));
                    for (t = 0; t < j && sports[t] != sports[j]; t++) {}
                } while (t < j);
                ports[j] = (uint8_t)(1u + j % s->P);
            }
            if (mrc_ev_profile_udp(&h->ep, MRC_SIM__PATH_PROF, MRC_SIM__PATH_PROF, ports, sports, s->hashed_evs,
                                   s->hashed_evs / 8u ? s->hashed_evs / 8u : 1u, 0) != MRC_OK) {
                mrc_sim__seterr(err, cap, "hashed EV profile refused by the core");
                goto fail;
            }
        }
        h->timer_at = MRC_TIME_NEVER;
        h->idle = 1;
        h->slot_flow = (uint32_t *)malloc((size_t)MRC_MAX_CONNS * sizeof *h->slot_flow);
        if (!h->slot_flow) {
            mrc_sim__seterr(err, cap, "out of memory");
            goto fail;
        }
        for (j = 0; j < MRC_MAX_CONNS; j++) h->slot_flow[j] = MRC_SIM__NIL;
        h->wait_head = h->wait_tail = MRC_SIM__NIL;
        for (j = 0; j < s->cfg.n_pcap_hosts && j < MRC_SIM_MAX_PCAP_HOSTS; j++)
            if (s->cfg.pcap_hosts[j] == i) h->pcap = 1;
    }
    if (s->cfg.pcap) { /* pcap global header (nanosecond timestamps, Ethernet) and the frame codec */
        uint8_t g[24];
        mrc_frame_cfg fc;
        s->frame = (mrc_frame *)malloc(sizeof *s->frame);
        mrc_frame_cfg_default(&fc);
        fc.ipv6 = 1;
        if (!s->frame || mrc_frame_init(s->frame, &fc) != MRC_OK) {
            mrc_sim__seterr(err, cap, "out of memory");
            goto fail;
        }
        mrc_frame_pcap_file_hdr(g, 65535);
        (void)fwrite(g, 1, sizeof g, s->cfg.pcap);
    }
    *out = s;
    return 0;
fail:
    mrc_sim_destroy(s);
    return -1;
}

MRC_SIM_API void mrc_sim_destroy(mrc_sim *s) {
    uint32_t i;
    if (!s) return;
    for (i = 0; i < s->nflows; i++) {
        free(s->flow[i].cs);
        free(s->flow[i].cr);
        free(s->flow[i].bitmap);
    }
    if (s->host)
        for (i = 0; i < s->H; i++) {
            free(s->host[i].slot_flow);
            free(s->host[i].rx_flows);
        }
    free(s->host);
    free(s->sw);
    free(s->link);
    free(s->cable);
    free(s->ports);
    free(s->tbl_usid);
    free(s->tbl_link);
    free(s->heap);
    for (i = 0; i < s->pkt_cap >> MRC_SIM__PKT_SHIFT; i++) free(s->pkt[i]);
    free(s->pkt);
    free(s->flow);
    free(s->fault);
    free(s->src);
    free(s->scratch);
    free(s->frame);
    free(s->smp);
    free(s);
}

/* ---- routing self-test ------------------------------------------------------------------------------------- */
MRC_SIM_API int mrc_sim_selftest(mrc_sim *s, char *msg, size_t cap) {
    uint32_t trial, mode;
    uint64_t r = 0x51E57E57ull;
    if (!s) return -1;
    for (mode = 0; mode < 2; mode++)
        for (trial = 0; trial < 4000u; trial++) {
            mrc_sim__pkt p;
            uint32_t src, dst, node, hops = 0, li;
            unsigned port;
            memset(&p, 0, sizeof p);
            src = mrc_sim__below(mrc_sim__mix(++r), s->H);
            dst = mrc_sim__below(mrc_sim__mix(++r), s->H);
            if (src == dst) continue;
            port = 1u + mrc_sim__below(mrc_sim__mix(++r), s->P);
            p.src = src;
            p.dst = dst;
            p.ev = 49152u + mrc_sim__below(mrc_sim__mix(++r), 16384u);
            if (mode == 1 && mrc_sim_srv6_path(s, src, port, dst, p.ev, p.da) < 2) {
                mrc_sim__seterr(msg, cap, "srv6: no path");
                return -1;
            }
            li = s->host[src].link[port - 1u];
            for (;;) {
                const mrc_sim__link *l = &s->link[li];
                if (l->plane != port - 1u) {
                    mrc_sim__seterr(msg, cap, "packet left its plane");
                    return -1;
                }
                hops++;
                node = l->to;
                if (mrc_sim__is_host(s, node) || hops > 8u) break;
                if (mode == 0) {
                    li = mrc_sim__ecmp(s, &s->sw[node - s->H], &p);
                } else {
                    int miss;
                    li = mrc_sim__srv6_fwd(s, &s->sw[node - s->H], p.da, &miss);
                }
                if (li == MRC_SIM__NIL) {
                    mrc_sim__seterr(msg, cap, mode ? "srv6: no route at a switch" : "ecmp: no route at a switch");
                    return -1;
                }
            }
            if (node != dst || hops != mrc_sim_hops(s, src, dst)) {
                mrc_sim__seterr(msg, cap, mode ? "srv6: wrong host or hop count" : "ecmp: wrong host or hop count");
                return -1;
            }
            if (mode == 1 && mrc_sim__usid_get(p.da, 0) != s->host[dst].usid) {
                mrc_sim__seterr(msg, cap, "srv6: DA not at the host uSID on arrival");
                return -1;
            }
        }
    mrc_sim__seterr(msg, cap, "ok");
    return 0;
}

/* ---- SVG line plots (no dependencies) --------------------------------------------------------------------- */
MRC_SIM__PRIVATE double mrc_sim__nice(double raw) {
    double p = 1.0;
    if (raw <= 0.0) return 1.0;
    while (p * 10.0 <= raw) p *= 10.0;
    while (p > raw) p /= 10.0;
    if (raw / p >= 5.0) return 5.0 * p;
    if (raw / p >= 2.0) return 2.0 * p;
    return p;
}
MRC_SIM__PRIVATE void mrc_sim__svg_text(FILE *f, const char *t) {
    for (; t && *t; t++) {
        if (*t == '<') fputs("&lt;", f);
        else if (*t == '>') fputs("&gt;", f);
        else if (*t == '&') fputs("&amp;", f);
        else fputc(*t, f);
    }
}
MRC_SIM_API int mrc_sim_svg_plot(FILE *f, const char *title, const char *xlabel, const char *ylabel,
                                 const mrc_sim_series *sr, unsigned ns, unsigned flags, double vline_x) {
    static const char *const col[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    const double W = 860.0, Hh = 430.0, ml = 72.0, mr = 250.0, mt = 36.0, mb = 52.0;
    double x0 = 0.0, x1 = 0.0, y0 = 0.0, y1 = 0.0, pw = W - ml - mr, ph = Hh - mt - mb, st, v;
    unsigned i, any = 0;
    uint32_t j;
    if (!f || !sr) return -1;
    for (i = 0; i < ns; i++)
        for (j = 0; j < sr[i].n; j++) {
            if (!any) {
                x0 = x1 = sr[i].x[j];
                y0 = y1 = sr[i].y[j];
                any = 1;
            }
            if (sr[i].x[j] < x0) x0 = sr[i].x[j];
            if (sr[i].x[j] > x1) x1 = sr[i].x[j];
            if (sr[i].y[j] < y0) y0 = sr[i].y[j];
            if (sr[i].y[j] > y1) y1 = sr[i].y[j];
        }
    if (!any) return -1;
    if (vline_x >= 0.0 && vline_x > x1) x1 = vline_x;
    if (flags & MRC_SIM_PLOT_YZERO && y0 > 0.0) y0 = 0.0;
    if (x1 <= x0) x1 = x0 + 1.0;
    if (y1 <= y0) y1 = y0 + 1.0;
    y1 += (y1 - y0) * 0.05;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, Hh, W, Hh);
    fprintf(f, "<text x=\"%.1f\" y=\"22\" font-size=\"15\" text-anchor=\"middle\">", ml + pw / 2.0);
    mrc_sim__svg_text(f, title);
    fputs("</text>\n", f);
#define MRC_SIM__PX(x) (ml + ((x) - x0) / (x1 - x0) * pw)
#define MRC_SIM__PY(y) (mt + ph - ((y) - y0) / (y1 - y0) * ph)
    st = mrc_sim__nice((x1 - x0) / 6.0);
    for (v = st * (double)(long long)(x0 / st); v <= x1 + st * 1e-9; v += st) {
        if (v < x0 - st * 1e-9) continue;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
                MRC_SIM__PX(v), mt, MRC_SIM__PX(v), mt + ph, MRC_SIM__PX(v), mt + ph + 16.0, v);
    }
    st = mrc_sim__nice((y1 - y0) / 6.0);
    for (v = st * (double)(long long)(y0 / st); v <= y1 + st * 1e-9; v += st) {
        if (v < y0 - st * 1e-9) continue;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                ml, MRC_SIM__PY(v), ml + pw, MRC_SIM__PY(v), ml - 6.0, MRC_SIM__PY(v) + 4.0, v);
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n", ml, mt,
            pw, ph);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", ml + pw / 2.0, Hh - 12.0);
    mrc_sim__svg_text(f, xlabel);
    fprintf(f, "</text>\n<text transform=\"translate(16,%.1f) rotate(-90)\" text-anchor=\"middle\">", mt + ph / 2.0);
    mrc_sim__svg_text(f, ylabel);
    fputs("</text>\n", f);
    if (vline_x >= 0.0)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" stroke-dasharray=\"5,4\"/>\n",
                MRC_SIM__PX(vline_x), mt, MRC_SIM__PX(vline_x), mt + ph);
    for (i = 0; i < ns; i++) {
        const char *c = col[i % (sizeof col / sizeof col[0])];
        if (!sr[i].n) continue;
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" points=\"", c);
        for (j = 0; j < sr[i].n; j++) {
            if ((flags & MRC_SIM_PLOT_STEP) && j)
                fprintf(f, "%.1f,%.1f ", MRC_SIM__PX(sr[i].x[j]), MRC_SIM__PY(sr[i].y[j - 1u]));
            fprintf(f, "%.1f,%.1f ", MRC_SIM__PX(sr[i].x[j]), MRC_SIM__PY(sr[i].y[j]));
        }
        fputs("\"/>\n", f);
        if (flags & MRC_SIM_PLOT_MARKERS)
            for (j = 0; j < sr[i].n; j++)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", MRC_SIM__PX(sr[i].x[j]),
                        MRC_SIM__PY(sr[i].y[j]), c);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">",
                W - mr + 12.0, mt + 10.0 + 18.0 * i, W - mr + 34.0, mt + 10.0 + 18.0 * i, c, W - mr + 40.0,
                mt + 14.0 + 18.0 * i);
        mrc_sim__svg_text(f, sr[i].name);
        fputs("</text>\n", f);
    }
#undef MRC_SIM__PX
#undef MRC_SIM__PY
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}

#endif /* MRC_SIM_IMPLEMENTATION */
