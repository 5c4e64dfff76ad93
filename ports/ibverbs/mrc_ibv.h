/* mrc_ibv.h - ibverbs port adapter for open MRC (mrc.h): RDMA NICs as plain packet carriers, no protocol logic.
 *
 * The adapter moves MRC packets between an RDMA device and the core (mrc_endpoint_recv / mrc_endpoint_poll_tx /
 * mrc_endpoint_on_timeout), owns the clock and never reads an MRC header: it only uses what mrc_endpoint_poll_tx
 * reports in mrc_txinfo. See ports/ibverbs/README.md for the full description; the short version:
 *
 *   CARRIERS  RAW  one IBV_QPT_RAW_PACKET QP per plane sends whole Ethernet frames built by the shared codec
 *                  (ports/common/mrc_frame.h: Ethernet / IPv4 or IPv6 / UDP / MRC / pad / ICRC); a flow-steering rule
 *                  (ibv_create_flow: destination MAC, destination IP, UDP destination port) steers this endpoint's
 *                  frames of the plane to the plane's QP. The EV is the UDP source port, written by the codec.
 *             UD   where the provider has no raw packet QPs (Soft-RoCE, and every provider but mlx4, mlx5, mana,
 *                  bnxt_re): one UD QP per plane; the MRC packet from BTH on is the UD payload (the NIC adds its own
 *                  RoCEv2 headers and ICRC), the EV is the address handle's flow label (one AH per plane, EV and
 *                  DSCP, created when the peer is known) and travels in the immediate too; receive buffers start
 *                  with the 40-byte GRH slot, from which the DSCP/ECN (and, on IPv6, the flow label) are read.
 *             Chosen by provider (mrc_ibv_carrier_for), or forced; an AUTO choice of RAW that the device refuses
 *             (no CAP_NET_RAW, no flow steering) falls back to UD and says why (mrc_ibv_describe).
 *   TRANSMIT  each plane has a ring of registered send slots. A packet's headers go into its slot; the payload is a
 *             second SGE straight from the caller's memory when a region registered with mrc_ibv_reg_mem covers it
 *             (zero copy), else it is copied into the slot; pad and ICRC (raw) are a third SGE from the slot's tail.
 *             Packets that fit the QP's inline size are sent IBV_SEND_INLINE.
 *   RECEIVE   a ring of registered receive buffers per plane, reposted in batches. Raw: the frame is checked by the
 *             codec (addresses, lengths, IP checksum, ICRC; drops counted by reason); UD: the sender's QPN and
 *             address must be the peer's.
 *   TIME      CLOCK_MONOTONIC in ns (mrc_ibv_now) into every core call. mrc_ibv_step sleeps on the completion
 *             channel (ibv_req_notify_cq + ppoll) until a completion, a watched fd, or the core's deadline.
 *   EVENTS    mrc_ibv_poll_event holds a SEND_DONE back until every work request posted before it completed, so a
 *             buffer is never handed back while the NIC may still read it.
 *
 * The first half of this header is device-independent (frame building, SGE layout, receive ring, flow-rule spec,
 * carrier choice, the UD mapping, the per-plane transmit/receive paths) and is what ports/ibverbs/mrc_ibv_test.c
 * unit-tests without a device; the second half is the device-backed adapter.
 *
 * One mrc_ibv serves one peer (perftest-style point to point). Not thread-safe. Linux, rdma-core (libibverbs).
 *
 * LICENSE   MIT, as mrc.h.
 */
#ifndef MRC_IBV_H
#define MRC_IBV_H

#include "../../mrc.h"
#include "../common/mrc_frame.h"

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_IBV_MAX_PLANES MRC_MAX_PORTS
#define MRC_IBV_MAX_EVS 256u       /* EVs per adapter (planes x evs_per_plane) */
#define MRC_IBV_MAX_DEVS 8u        /* devices (or device ports) named in a spec */
#define MRC_IBV_MAX_MRS 16u        /* regions registered with mrc_ibv_reg_mem */
#define MRC_IBV_MAX_WATCH 4u       /* extra fds mrc_ibv_step watches */
#define MRC_IBV_MAX_BATCH 64u      /* work requests per post */
#define MRC_IBV_DSCPS 4u           /* UD: DSCP codepoints with their own address handles */
#define MRC_IBV_GRH_LEN 40u        /* UD: the GRH slot in front of every received payload */
#define MRC_IBV_MAX_SGE 3u         /* headers, payload, pad + ICRC */
#define MRC_IBV_TRAILER 8u         /* room after the headers for pad (<= 3) + ICRC (4) */
/* one send or receive buffer: a whole raw frame (MRC_FRAME_MAX) or GRH + MRC headers + 4 KiB + pad, 64-aligned */
#define MRC_IBV_SLOT 4352u
#define MRC_IBV_QKEY 0x4D524321u   /* UD qkey ("MRC!") */
#define MRC_IBV_DPORT 4791u        /* UDP destination port of the raw carrier (RoCEv2's) */
#define MRC_IBV_EV_BASE 49152u     /* EV k of plane p = ev_base + (p-1) * K + k */
/* a flow rule: ibv_flow_attr, then the Ethernet, IPv4 or IPv6, and UDP specs, packed one after the other */
#define MRC_IBV_FLOW_RULE_MAX 192u

enum mrc_ibv_carrier { MRC_IBV_AUTO = 0, MRC_IBV_RAW = 1, MRC_IBV_UD = 2 };

/* ================================================================================================================
 * Device-independent pieces (no verbs calls; unit-tested without a device)
 * ============================================================================================================== */

/* "auto", "raw", "ud" */
const char *mrc_ibv_carrier_name(int carrier);
/* The carrier for a device: force (MRC_IBV_RAW or MRC_IBV_UD) wins; MRC_IBV_AUTO picks RAW when the kernel driver
 * (driver: the basename of the device's sysfs driver link, e.g. "mlx5_core", may be NULL or "") or else the device
 * name (e.g. "mlx5_0") names a provider with raw packet QPs (mlx4, mlx5, mana, bnxt_re), and UD otherwise. */
int mrc_ibv_carrier_for(const char *dev_name, const char *driver, int force);

/* Largest MRC packet the carrier must carry for a path MTU (MRC headers + payload + pad) fits the link:
 * RAW: link_mtu is the netdev MTU (IP packet bytes); UD: the port's active IB MTU in bytes (256..4096). 1 or 0. */
int mrc_ibv_mtu_fits(int carrier, int ipv6, unsigned mrc_mtu, unsigned link_mtu);

/* The flow-steering rule of the raw carrier: every frame to this plane's MAC and IP with UDP destination dport goes
 * to the plane's QP. Source fields are wildcards (mask 0). vlan: match the VLAN ID of vlan_tci. Returns the rule's
 * size (attr.size), or -1 on a bad argument. */
typedef union mrc_ibv_flow_rule {
    struct ibv_flow_attr attr;
    uint64_t align_;
    uint8_t b[MRC_IBV_FLOW_RULE_MAX];
} mrc_ibv_flow_rule;
int mrc_ibv_flow_rule_build(mrc_ibv_flow_rule *r, uint8_t port, const mrc_frame_addr *local, int ipv6,
                            uint16_t udp_dport, int vlan, uint16_t vlan_tci);

/* Regions registered with the device (ibv_reg_mr), by address: the transmit path finds the lkey of a payload. */
typedef struct mrc_ibv_mr_ent {
    const uint8_t *base;
    size_t len;
    uint32_t lkey;
    void *mr;                  /* struct ibv_mr * (NULL in tests) */
} mrc_ibv_mr_ent;
typedef struct mrc_ibv_mrtab {
    mrc_ibv_mr_ent e[MRC_IBV_MAX_MRS];
    unsigned n;
} mrc_ibv_mrtab;
/* 0, or -1 (full, NULL, empty). */
int mrc_ibv_mrtab_add(mrc_ibv_mrtab *t, const void *base, size_t len, uint32_t lkey, void *mr);
/* Remove the entry that starts at base; returns its mr pointer (or NULL when none). */
void *mrc_ibv_mrtab_del(mrc_ibv_mrtab *t, const void *base);
/* 1 and *lkey when one region covers [p, p + len) entirely, else 0. */
int mrc_ibv_mrtab_find(const mrc_ibv_mrtab *t, const void *p, size_t len, uint32_t *lkey);

/* How one packet is handed to the NIC: the gather list of a send work request. */
typedef struct mrc_ibv_txplan {
    struct ibv_sge sge[MRC_IBV_MAX_SGE];
    unsigned nsge;
    unsigned send_flags;       /* IBV_SEND_INLINE or 0 (the caller adds IBV_SEND_SIGNALED) */
    uint32_t len;              /* bytes on the wire (raw: the frame without FCS; UD: the payload) */
    uint32_t imm;              /* UD: the EV, for the immediate (host order) */
    uint8_t copied;            /* the payload was copied into the slot (no region covered it) */
} mrc_ibv_txplan;
/* Lay out a packet whose headers (hlen bytes) are at slot[0..hlen): payload[0..plen), then pad zero bytes, then
 * the 4 trailer bytes (raw: the ICRC; NULL for UD). The pad and trailer are written at slot[hlen..) (a separate
 * SGE, as they follow the payload on the wire). total <= max_inline: inline; a region covers the payload: 3 SGEs
 * (headers, payload with its lkey, pad + trailer), or 1 when plen is 0; otherwise the payload is copied to
 * slot[hlen..) and one SGE covers the whole packet. 0, or -1 (slot too small, bad arguments). */
int mrc_ibv_tx_plan(const mrc_ibv_mrtab *t, uint8_t *slot, size_t slot_cap, uint32_t slot_lkey, size_t hlen,
                    const uint8_t *payload, uint32_t plen, unsigned pad, const uint8_t *trailer4, uint32_t max_inline,
                    mrc_ibv_txplan *out);
/* What the NIC reads for a plan, in order, into out[0..cap): the bytes on the wire. Returns the length, or 0. */
size_t mrc_ibv_tx_gather(const mrc_ibv_txplan *p, uint8_t *out, size_t cap);

/* A ring of receive buffers: slot i is mem + i * slot_size; wr_id = i. Slots move FREE (to post) -> POSTED (the NIC
 * owns it) -> HELD (a completion handed it to the adapter) -> FREE. */
typedef struct mrc_ibv_rxring {
    uint8_t *mem;              /* nslots x slot_size, page-aligned (posix_memalign) */
    uint32_t nslots, slot_size;
    uint32_t data_off;         /* where the frame starts in a slot's completion (UD: the GRH slot, 40) */
    uint8_t *state;            /* per slot: 0 FREE, 1 POSTED, 2 HELD */
    uint32_t *todo;            /* FIFO of FREE slots waiting to be posted */
    uint32_t todo_head, todo_len;
    uint32_t posted;           /* slots the NIC owns */
} mrc_ibv_rxring;
enum { MRC_IBV_RX_OK = 0, MRC_IBV_RX_BADID = -1, MRC_IBV_RX_BADLEN = -2 };
/* 0, or -1 (bad sizes, out of memory). Every slot starts FREE, in order. */
int mrc_ibv_rxring_init(mrc_ibv_rxring *r, uint32_t nslots, uint32_t slot_size, uint32_t data_off);
void mrc_ibv_rxring_free(mrc_ibv_rxring *r);
uint8_t *mrc_ibv_rxring_slot(const mrc_ibv_rxring *r, uint32_t id);
/* Take up to max FREE slots to post: ids[] in FIFO order, marked POSTED. Returns how many. */
unsigned mrc_ibv_rxring_take(mrc_ibv_rxring *r, uint32_t *ids, unsigned max);
/* A post of slot id failed: POSTED -> FREE (back at the head of the FIFO). */
void mrc_ibv_rxring_unpost(mrc_ibv_rxring *r, uint32_t id);
/* A receive completion (wr_id, byte_len): MRC_IBV_RX_OK with the frame (after data_off) in *data / *len, the slot
 * HELD until mrc_ibv_rxring_release; MRC_IBV_RX_BADLEN: the length cannot be (shorter than data_off, longer than
 * the slot), the slot is FREE again; MRC_IBV_RX_BADID: not a POSTED slot, nothing changed. */
int mrc_ibv_rxring_complete(mrc_ibv_rxring *r, uint64_t wr_id, uint32_t byte_len, const uint8_t **data,
                            size_t *len);
/* A completion with an error status (flush): POSTED -> FREE. MRC_IBV_RX_OK or MRC_IBV_RX_BADID. */
int mrc_ibv_rxring_fail(mrc_ibv_rxring *r, uint64_t wr_id);
void mrc_ibv_rxring_release(mrc_ibv_rxring *r, uint32_t id);

/* The UD mapping. EV -> AH flow label (20 bits); DSCP (+ ECT(0)) -> AH traffic class; the GRH slot of a received
 * UD packet -> flow label, DSCP, ECN, source address. ipv4: the port's GID is IPv4-mapped (RoCEv2 over IPv4: the
 * IPv4 header sits in the slot's last 20 bytes, and there is no flow label on the wire). */
uint32_t mrc_ibv_ud_flow_label(uint32_t ev);
uint8_t mrc_ibv_ud_tclass(unsigned dscp, int ect);
typedef struct mrc_ibv_grh_info {
    uint32_t flow_label;       /* 0 for IPv4 */
    uint8_t dscp, ecn, ipv6;
    uint8_t src_ip[16];        /* IPv4 in [0..4) */
} mrc_ibv_grh_info;
/* 0, or -1 when the slot does not hold a header of the expected family. */
int mrc_ibv_grh_parse(const uint8_t *grh, int ipv4, mrc_ibv_grh_info *out);
/* Index k of EV ev on plane (1-based) when ev = ev_base + (plane-1) * K + k, else -1. */
int mrc_ibv_ev_index(uint32_t ev, uint32_t ev_base, unsigned plane, unsigned K);
/* Index of dscp in list[0..n), else -1. */
int mrc_ibv_dscp_index(const uint8_t *list, unsigned n, unsigned dscp);

/* Events held back until the NIC is done with a buffer: a SEND_DONE pulled while sends are in flight (some plane's
 * tail < head) waits until every plane's tail reaches its head of that moment; every later event queues behind it,
 * so the order is kept. tail/head: per plane, sends completed / posted (monotonic counters). */
typedef struct mrc_ibv_held {
    mrc_event ev;
    uint64_t snap[MRC_IBV_MAX_PLANES];
} mrc_ibv_held;
typedef struct mrc_ibv_evhold {
    mrc_ibv_held *q;
    unsigned cap, head, len, planes;
    uint64_t held;             /* events that had to wait */
} mrc_ibv_evhold;
int mrc_ibv_evhold_init(mrc_ibv_evhold *h, unsigned cap, unsigned planes); /* 0, or -1 */
void mrc_ibv_evhold_free(mrc_ibv_evhold *h);
/* An event just pulled from the core: 0 deliver it now (nothing held, and not a SEND_DONE with sends in flight),
 * 1 queued, -1 the queue is full (check mrc_ibv_evhold_full before pulling). */
int mrc_ibv_evhold_put(mrc_ibv_evhold *h, const mrc_event *ev, const uint64_t *head, const uint64_t *tail);
/* 1 and the oldest held event once it may go, else 0. */
int mrc_ibv_evhold_get(mrc_ibv_evhold *h, const uint64_t *tail, mrc_event *ev);
int mrc_ibv_evhold_full(const mrc_ibv_evhold *h);

/* The spec of mrc_perf --ibv: "DEV[:PORT][,DEV[:PORT]...][,key=value...]" - devices (plane p uses entry
 * (p-1) % n), then options: carrier=auto|raw|ud, gid=N (GID index), dport=N (raw: UDP destination port),
 * vlan=TCI (raw: send tagged), txq=N, rxq=N (ring sizes, 16..8192, powers of two), inline=N (bytes asked of the QP). */
typedef struct mrc_ibv_spec {
    char dev[MRC_IBV_MAX_DEVS][64];
    uint8_t dev_port[MRC_IBV_MAX_DEVS];
    unsigned ndev;
    int carrier;               /* MRC_IBV_AUTO, MRC_IBV_RAW, MRC_IBV_UD */
    int gid_index;             /* -1 (default): chosen by address and RoCE version */
    unsigned dport;            /* MRC_IBV_DPORT */
    int vlan;                  /* -1 (default): untagged, else the TCI */
    unsigned txq, rxq;         /* send / receive ring per plane (default 256 / 512) */
    unsigned inline_size;      /* inline bytes asked of each QP (default 128; 0: never inline) */
} mrc_ibv_spec;
void mrc_ibv_spec_default(mrc_ibv_spec *s);
/* mrc_ibv_spec_default, then the spec. 0, or -1 with a one-line reason in err. */
int mrc_ibv_spec_parse(mrc_ibv_spec *s, const char *spec, char *err, size_t errlen);

/* The EV set of every carrier: an EV Format profile fmt_id (MRC_EV_FMT_UDP, one 16-bit field) and an EXP EV profile
 * prof_id whose EV i is on plane i % planes + 1 with value ev_base + (plane - 1) * K + i / planes (raw: the UDP
 * source port; UD: the flow label and the immediate). min_active as mrc_ev_profile_attr.ev_min_active. MRC_OK or the
 * core's error. */
int mrc_ibv_ev_profile_set(mrc_endpoint *ep, unsigned planes, unsigned K, uint32_t ev_base, uint64_t fmt_id,
                           uint64_t prof_id, unsigned min_active, mrc_time now);

/* ---- one plane's packet path (device-independent: the verbs layer wraps it; tests drive it directly) ----------- */
typedef struct mrc_ibv_plane_stats {
    uint64_t tx_pkts, tx_bytes;       /* packets handed to the NIC (raw: frame bytes; UD: payload bytes) */
    uint64_t tx_zero_copy, tx_copied, tx_inline; /* how their payload went */
    uint64_t tx_err;                  /* failed posts and send completions with an error status */
    uint64_t tx_ring_full;            /* transmit bursts cut short because this plane's send ring was full */
    uint64_t rx_pkts, rx_bytes;       /* completions handed to the path */
    uint64_t rx_ce;                   /* ... with ECN CE */
    uint64_t rx_foreign;              /* not from the peer: UD source QPN / address, raw source IP (dropped) */
    uint64_t rx_bad_len;              /* completion length impossible for the ring (dropped) */
    uint64_t rx_bad_grh;              /* UD: the GRH slot holds no header of the port's family (dropped) */
    uint64_t rx_err;                  /* receive completions with an error status */
    uint64_t rx_core_drop;            /* mrc_endpoint_recv returned MRC_ERR_DROP (counted by the core) */
    uint64_t ev_unmapped;             /* UD: EV not of this plane's set: sent on its EV 0 handle */
    uint64_t dscp_unmapped;           /* UD: DSCP without a handle: sent with the first DSCP's */
    uint64_t ev_mismatch;             /* UD over IPv6: GRH flow label differs from the immediate */
    uint64_t rx_hook_drop;            /* refused by the receive hook (mrc_ibv_set_rx_hook) */
} mrc_ibv_plane_stats;

typedef struct mrc_ibv_path {
    uint8_t carrier;           /* MRC_IBV_RAW or MRC_IBV_UD */
    uint8_t plane;             /* 1-based MRC port */
    uint8_t ipv6, have_peer;
    mrc_frame fr;              /* RAW: the codec; fr.st.drop[] counts rejected frames by reason */
    mrc_frame_addr local, peer;
    uint16_t local_dport, peer_dport;
    uint32_t peer_qpn;         /* UD: the peer plane's QPN */
    uint32_t peer_handle;      /* mrc_rxinfo.peer */
    mrc_ibv_plane_stats st;
    /* called with each MRC packet (BTH on) that passed the checks, before the core sees it; may rewrite it in place
     * (lib_mrc registers the region its rkey names with the core), or refuse it (non-zero: dropped, counted in
     * st.rx_hook_drop). NULL: none. */
    int (*rx_hook)(void *ctx, uint8_t *pkt, size_t len);
    void *rx_hook_ctx;
} mrc_ibv_path;

/* MRC_OK or MRC_ERR_INVAL. vlan >= 0: send tagged with that TCI (raw). */
int mrc_ibv_path_init(mrc_ibv_path *p, int carrier, unsigned plane, int ipv6, const mrc_frame_addr *local,
                      uint16_t dport, int vlan);
void mrc_ibv_path_set_peer(mrc_ibv_path *p, const mrc_frame_addr *peer, uint16_t dport, uint32_t qpn,
                           uint32_t handle);
/* Headers in front of the MRC headers: RAW the codec's Ethernet..UDP, UD none. */
size_t mrc_ibv_path_hdr_len(const mrc_ibv_path *p, const mrc_txinfo *ti);
/* One packet from mrc_endpoint_poll_tx (hdr = its MRC headers, ti) into a send slot and its gather list:
 * RAW Ethernet..UDP + MRC headers in the slot, the ICRC over them, the payload and pad; UD the MRC headers.
 * MRC_OK, or MRC_ERR_INVAL / MRC_ERR_NOBUF (cannot frame it: dropped by the caller, as a wire would). */
int mrc_ibv_path_tx(mrc_ibv_path *p, const mrc_endpoint *ep, const mrc_txinfo *ti, const uint8_t *hdr,
                    const mrc_ibv_mrtab *mrs, uint8_t *slot, size_t slot_cap, uint32_t slot_lkey, uint32_t max_inline,
                    mrc_ibv_txplan *out);
/* What a receive completion says besides the bytes. */
typedef struct mrc_ibv_rxmeta {
    uint32_t src_qp;           /* UD: wc.src_qp */
    uint32_t imm;              /* UD: the immediate, host order */
    uint8_t has_imm;
} mrc_ibv_rxmeta;
/* The checks and the mrc_rxinfo of one received buffer, without the core: RAW (*buf, *len) a frame (grh NULL), moved
 * to the MRC packet on success; UD (*buf, *len) the MRC packet, grh its 40-byte GRH slot. MRC_OK, or MRC_ERR_DROP
 * (counted: the codec's drop reason, rx_foreign, rx_bad_grh). */
int mrc_ibv_path_rxinfo(mrc_ibv_path *p, const uint8_t *grh, const uint8_t **buf, size_t *len,
                        const mrc_ibv_rxmeta *m, mrc_rxinfo *ri);
/* One received buffer: RAW a frame (checked by the codec; grh NULL), UD the MRC packet (BTH on) with the 40-byte
 * GRH slot in front of it in grh. Hands it to mrc_endpoint_recv or drops and counts it. Returns MRC_OK (the core
 * took it) or MRC_ERR_DROP. */
int mrc_ibv_path_rx(mrc_ibv_path *p, mrc_endpoint *ep, const uint8_t *grh, const uint8_t *buf, size_t len,
                    const mrc_ibv_rxmeta *m, mrc_time now);

/* ================================================================================================================
 * The device-backed adapter
 * ============================================================================================================== */
typedef struct mrc_ibv_config {
    mrc_ibv_spec spec;         /* devices and options (mrc_ibv_spec_parse) */
    int family;                /* AF_INET (default) or AF_INET6: the planes' addresses */
    unsigned planes;           /* 1..MRC_IBV_MAX_PLANES (default 1) */
    unsigned evs_per_plane;    /* K (default 16); planes x K <= MRC_IBV_MAX_EVS */
    unsigned mtu;              /* the MRC path MTU the core will use (checked against the link; default 4096) */
    unsigned batch;            /* work requests per post, 1..MRC_IBV_MAX_BATCH (default 32) */
    unsigned tx_burst;         /* most packets pulled from the core per transmit burst (default 64) */
    uint8_t busy_poll;         /* never sleep (default 0) */
    uint8_t ecn;               /* data packets ECT(0) (default 1) */
    uint8_t have_addr[MRC_IBV_MAX_PLANES];
    uint8_t addr[MRC_IBV_MAX_PLANES][16]; /* a plane's IP address (IPv4 in [0..4)); default: from the GID table */
    uint16_t ev_base;          /* EV k of plane p = ev_base + (p-1) * K + k (default MRC_IBV_EV_BASE) */
    uint32_t peer;             /* the peer handle (mrc_conn_attr.peer, mrc_rxinfo.peer; default 1) */
    uint8_t dscp[MRC_IBV_DSCPS]; /* UD: DSCPs with their own AHs (default the core's 10, 12, 14, 48) */
    uint8_t control_dscp;      /* UD: the one sent Not-ECT (default 48) */
} mrc_ibv_config;

typedef struct mrc_ibv_stats {
    mrc_ibv_plane_stats plane[MRC_IBV_MAX_PLANES];
    uint64_t frame_drop[MRC_FRAME_DROP_NDROP]; /* RAW: rejected frames by reason, all planes */
    uint64_t post_send_calls, post_recv_calls, poll_cq_calls, wakeups, cq_events, timeouts_run;
    uint64_t events_held;      /* events mrc_ibv_poll_event held back for the NIC to finish reading a buffer */
    uint64_t step_max_ns;      /* longest mrc_ibv_step, its sleep excluded */
} mrc_ibv_stats;

/* The peer's plane as learned out of band. */
typedef struct mrc_ibv_peer {
    mrc_frame_addr addr;       /* MAC (RAW) and IP */
    uint16_t dport;            /* RAW: its UDP destination port */
    uint32_t qpn;              /* UD: its QP number */
} mrc_ibv_peer;

typedef struct mrc_ibv mrc_ibv; /* opaque; mrc_ibv_open allocates it */

void mrc_ibv_config_default(mrc_ibv_config *cfg);
/* "A" or "A,B,..." (1 or `planes` numeric addresses) into cfg->addr (family checked). 0, or -1 + err. */
int mrc_ibv_config_set_addrs(mrc_ibv_config *cfg, const char *list, char *err, size_t errlen);

/* Check, without creating anything, that the spec's devices exist and their ports are active RoCE ports (for a
 * tool to fail at once, before it waits for a peer). 0, or -1 with one line in err, as mrc_ibv_open's. */
int mrc_ibv_probe(const mrc_ibv_spec *spec, char *err, size_t errlen);
/* Open the devices, create and connect the QPs, register the rings, post the receives. 0, or -1 with one line in
 * err: "no RDMA device (ibv_get_device_list found none: ...)", "no RDMA device named 'X' (found: ...)", ... */
int mrc_ibv_open(mrc_ibv **out, const mrc_ibv_config *cfg, char *err, size_t errlen);
void mrc_ibv_close(mrc_ibv *ib); /* NULL is fine */

int mrc_ibv_carrier(const mrc_ibv *ib);           /* MRC_IBV_RAW or MRC_IBV_UD */
unsigned mrc_ibv_planes(const mrc_ibv *ib);
/* This side's plane p (1-based): MAC, IP, UDP destination port (RAW) and QPN (UD), to send to the peer. 0 or -1. */
int mrc_ibv_local(const mrc_ibv *ib, unsigned plane, mrc_ibv_peer *out);
/* The peer's planes: RAW aims frames at them, UD creates the address handles (one per plane, EV and DSCP). 0, or
 * -1 + err. */
int mrc_ibv_set_peer(mrc_ibv *ib, const mrc_ibv_peer *peer, unsigned planes, char *err, size_t errlen);
/* One line: carrier (and why), devices, ports, addresses, how payloads go. */
void mrc_ibv_describe(const mrc_ibv *ib, char *buf, size_t n);
uint32_t mrc_ibv_ev_value(const mrc_ibv *ib, unsigned plane, unsigned k);
/* Program the core with this adapter's EV set: mrc_ibv_ev_profile_set with its planes, K and ev_base. */
int mrc_ibv_ev_profile(const mrc_ibv *ib, mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, unsigned min_active,
                       mrc_time now);
/* Register memory the core's payloads come from (posted write buffers): sent zero-copy as a second SGE (one device
 * only; with several devices every payload is copied). 0 or -1. */
int mrc_ibv_reg_mem(mrc_ibv *ib, const void *base, size_t len);
/* Deregister it once the NIC has completed every send posted so far (receives meanwhile go to ep, as in a step;
 * at most 1 s). 0 or -1. */
int mrc_ibv_dereg_mem(mrc_ibv *ib, mrc_endpoint *ep, const void *base);
int mrc_ibv_watch_fd(mrc_ibv *ib, int fd);
/* Every plane's mrc_ibv_path.rx_hook (NULL: none). */
void mrc_ibv_set_rx_hook(mrc_ibv *ib, int (*fn)(void *ctx, uint8_t *pkt, size_t len), void *ctx);
/* One turn of the loop (as mrc_udp_step): timers, transmit, wait (completion channel, watched fds, the core's
 * deadline, wake_at; 0 = do not sleep), receive, timers, transmit. Returns packets moved, or -1 (a QP or the CQ
 * failed; mrc_ibv_last_error says how). */
int mrc_ibv_step(mrc_ibv *ib, mrc_endpoint *ep, mrc_time wake_at, unsigned *ready);
/* mrc_endpoint_poll_event, with SEND_DONE (and what follows it) held until the NIC completed every work request
 * posted before it. 1, 0 or a negative mrc_err. */
int mrc_ibv_poll_event(mrc_ibv *ib, mrc_endpoint *ep, mrc_event *ev);
const char *mrc_ibv_last_error(const mrc_ibv *ib);
void mrc_ibv_stats_get(const mrc_ibv *ib, mrc_ibv_stats *out);
/* The codec's name of a frame drop reason (index of mrc_ibv_stats.frame_drop): "icrc", "not_local", ... */
const char *mrc_ibv_drop_name(int reason);
mrc_time mrc_ibv_now(void);

#ifdef __cplusplus
}
#endif
#endif /* MRC_IBV_H */
