#ifndef MRC__SRC_API_H
#define MRC__SRC_API_H
#include "config.h"

/* ---- time and errors ---------------------------------------------------------------------------------------- */
typedef uint64_t mrc_time; /* nanoseconds */
#define MRC_TIME_NEVER UINT64_MAX

typedef enum mrc_err {
    MRC_OK = 0,
    MRC_ERR_INVAL = -1,     /* bad argument or attribute value */
    MRC_ERR_STATE = -2,     /* call not allowed in the object's current state */
    MRC_ERR_NOBUF = -3,     /* caller's buffer too small; nothing was consumed */
    MRC_ERR_FULL = -4,      /* a fixed-size queue or table is full; retry later */
    MRC_ERR_DROP = -5,      /* packet discarded and counted; not a failure of the call */
    MRC_ERR_NOTSUP = -6,    /* operation not supported by MRC (e.g. RDMA READ, SEND, atomics) */
    MRC_ERR_NOENT = -7,     /* no such object (rkey, QPN, profile ID) */
    MRC_ERR_TRUNC = -8,     /* decoder: input shorter than the header */
    MRC_ERR_MALFORMED = -9, /* decoder: field values inconsistent with the header */
    MRC_ERR_BUSY = -10,     /* object in use (a profile referenced by QPs or ONLINE profiles) */
    MRC_ERR_FATAL = -100,   /* this value and below: the connection is in ERR */
    MRC_ERR_RETRY_EXC = -101,     /* retransmission retries exhausted */
    MRC_ERR_REMOTE_ACCESS = -102, /* peer reported a remote access error (rkey, bounds, access) */
    MRC_ERR_REMOTE_INVAL = -103,  /* peer reported an invalid request (e.g. WIMM overflow) */
    MRC_ERR_REMOTE_OP = -104,     /* peer reported an operational error or a non-retriable NACK */
    MRC_ERR_FLUSH = -105,         /* work request flushed because the connection entered ERR */
    MRC_ERR_LOCAL_ACCESS = -106,  /* this side rejected the peer's write (rkey, bounds, access) */
    MRC_ERR_LOCAL_INVAL = -107,   /* this side rejected the peer's request (e.g. WIMM overflow) */
    MRC_ERR_NOPATH = -108         /* no EV could carry the QP's work for mrc_config.recovery.nopath_timeout_ns */
} mrc_err;

MRC_API bool mrc_err_is_fatal(int e);
MRC_API const char *mrc_strerror(int e); /* "" under MRC_NO_STRINGS */

/* ---- wire constants (docs/PROTOCOL.md section 3) ------------------------------------------------------------ */
#define MRC_UDP_PORT 4791u /* RoCEv2 destination port */
#define MRC_EPOP_QPN 0x2u  /* endpoint operations are sent to QP 0x2 */
#define MRC_PSN_MASK 0xFFFFFFu
#define MRC_PSN_HALF 0x800000u

enum mrc_opcode {
    MRC_OP_WRITE_FIRST = 0xC6,
    MRC_OP_WRITE_MIDDLE = 0xC7,
    MRC_OP_WRITE_LAST = 0xC8,
    MRC_OP_WRITE_LAST_IMM = 0xC9,
    MRC_OP_WRITE_ONLY = 0xCA,
    MRC_OP_WRITE_ONLY_IMM = 0xCB,
    MRC_OP_ACK = 0xD1, /* transport ACK/NAK, AETH */
    MRC_OP_EP_REQ = 0xD8,
    MRC_OP_EP_RSP = 0xD9,
    MRC_OP_SACK = 0xDC,
    MRC_OP_NACK = 0xDD,
    MRC_OP_PROBE_REQ = 0xDE
};

/* header sizes in bytes */
enum {
    MRC_BTH_LEN = 12, MRC_METH_LEN = 4, MRC_TSETH_LEN = 4, MRC_RETH_LEN = 16, MRC_IMMDT_LEN = 4,
    MRC_AETH_LEN = 4, MRC_SETH_LEN = 28, MRC_CCSTATE_LEN = 8, MRC_NETH_LEN = 20, MRC_PETH_LEN = 16,
    MRC_ERTH_LEN = 16, MRC_EETH_LEN = 36,
    MRC_HDR_MAX = 64,      /* no MRC header stack is longer; poll_tx needs at least this much room */
    MRC_NOMINAL_HDR = 40   /* nominal_pktsize = UDP payload + 40 (docs/PROTOCOL.md 3.7, spec 8.3.1) */
};

/* NACK reason codes (NETH nack_reason); numbering shared with UET PDS */
enum mrc_nack_reason {
    MRC_NACK_TRIMMED = 0x01,
    MRC_NACK_TRIMMED_LASTHOP = 0x02,
    MRC_NACK_NO_BITMAP = 0x06,
    MRC_NACK_NO_PKT_BUFFER = 0x07,
    MRC_NACK_NO_RESOURCE = 0x0A,
    MRC_NACK_PSN_OOR_WINDOW = 0x0B,
    MRC_NACK_UNEXP_EVENT = 0x19 /* not retriable: the QP goes to ERR */
};
MRC_API bool mrc_nack_is_retriable(unsigned reason); /* false for UNEXP_EVENT and for unknown codes */

/* AETH syndromes used by MRC (IBTA layout: type in bits 7:5, value in 4:0) */
enum mrc_aeth_syndrome {
    MRC_AETH_ACK = 0x1F,          /* ACK, credit field = 0x1F "no credit" */
    MRC_AETH_NAK_PSN_SEQ = 0x60,  /* NAK: PSN sequence error (never sent by this core) */
    MRC_AETH_NAK_INV_REQ = 0x61,  /* NAK: invalid request (WIMM overflow, bad opcode sequence) */
    MRC_AETH_NAK_REM_ACCESS = 0x62, /* NAK: remote access error (rkey, bounds, access rights) */
    MRC_AETH_NAK_REM_OP = 0x63    /* NAK: remote operational error */
};

/* SETH m field: what the responder asks the requester to do with the EV the packet came on */
enum { MRC_M_NONE = 0, MRC_M_SKIP_ONCE = 1, MRC_M_ALWAYS_SKIP = 2 };

/* ERTH/EETH op on the wire (NOT the OCP API enum, which is ordered the other way round) */
enum { MRC_EPOP_PORT_STATUS_UPDATE = 0, MRC_EPOP_EV_PROBE = 1 };

/* DSCP classes (the numeric codepoints are per deployment: mrc_config.dscp[]) */
enum mrc_dscp_class {
    MRC_DSCP_TRIMMABLE = 0, MRC_DSCP_NO_TRIM, MRC_DSCP_TRIMMABLE_RETX, MRC_DSCP_TRIMMED,
    MRC_DSCP_TRIMMED_LASTHOP, MRC_DSCP_CONTROL, MRC_DSCP_CLASSES
};

/* ---- PSN serial arithmetic (24-bit, compared within +-2^23) ------------------------------------------------ */
MRC_API uint32_t mrc_psn_add(uint32_t psn, int32_t n);
MRC_API int32_t mrc_psn_diff(uint32_t a, uint32_t b); /* a - b in [-2^23, 2^23) */
MRC_API bool mrc_psn_lt(uint32_t a, uint32_t b);

/* ---- wire layout choices (docs/PROTOCOL.md section 6; both ends must agree) --------------------------------- */
typedef struct mrc_wire_opts {
    uint8_t bth_m_bit;        /* Q1 BTH bit order: bit of BTH byte 1 that holds m (7: third-party model, default; 6:
                                 IBTA);
                                  se takes the other one */
    uint8_t eeth_op_shift;    /* Q16b: EETH op position in byte 1: 2 (bits 3:2, default) or 4 (bits 5:4) */
    uint8_t sack_msb_first;   /* Q4 SACK bitmap order: 0 (default): bitmap bit 0 (LSB of the BE 64-bit word) = base PSN;
                                  1: the MSB is the base PSN */
    uint8_t ts_shift;         /* Q2 TSETH timestamp unit: TSETH tx_timestamp unit = 2^ts_shift ns (default 7 = 128 ns)
                                 */
    uint8_t tver;             /* Q1 BTH bit order: BTH tver sent (default 0); ignored on receive */
} mrc_wire_opts;

/* ---- decoded headers (codec) -------------------------------------------------------------------------------- */
typedef struct mrc_bth {
    uint8_t opcode, se, m, pad, tver, resv8, a, r, rtx, ts;
    uint16_t pkey;
    uint32_t dest_qp, psn;
} mrc_bth;

typedef struct mrc_meth { uint16_t rqmsn, msn; } mrc_meth;
typedef struct mrc_tseth { uint16_t tx_timestamp; uint8_t tsr, ftype; } mrc_tseth;
typedef struct mrc_reth { uint64_t va; uint32_t rkey, dma_len; } mrc_reth;
typedef struct mrc_aeth { uint8_t syndrome; uint32_t msn; } mrc_aeth;

typedef struct mrc_seth {
    uint8_t type, nxt, m, pr;
    int16_t ack_psn_offset; /* ack_psn = cack_psn + ack_psn_offset */
    uint32_t entropy;
    uint16_t spdcid, dpdcid;
    uint32_t cack_psn;
    uint8_t cc_type, cc_fl, mpr;
    int16_t sack_offset;    /* bitmap base = cack_psn + sack_offset */
    uint64_t sack_bitmap;   /* bit i (LSB = 0) = PSN base + i, whatever the wire bit order */
} mrc_seth;

typedef struct mrc_cc_state {
    uint16_t tx_timestamp, ooo_count;
    uint8_t r_c, rcv_cwnd_pen;
    uint32_t rcvd_bytes; /* 24 bits, 256-byte units, wrapping */
} mrc_cc_state;

typedef struct mrc_neth {
    uint8_t type, nxt, nack_reason, vendor_info;
    uint32_t entropy;
    uint16_t spdcid, dpdcid;
    uint32_t nack_psn;
    uint8_t cc_type, cc_fl;
    uint16_t tx_timestamp;
} mrc_neth;

typedef struct mrc_peth {
    uint8_t type, nxt, vendor_info, tsr, ftype;
    uint16_t probe_id, spdcid, dpdcid, tx_timestamp;
} mrc_peth;

typedef struct mrc_erth {
    uint8_t type, nxt, op, vendor_info, tsr, ftype;
    uint32_t port_status_mask;
    uint16_t tx_timestamp;
} mrc_erth;

typedef struct mrc_eeth {
    uint8_t type, nxt, op;
    uint16_t tx_timestamp;
} mrc_eeth;

/* which headers mrc_pkt_decode found */
enum {
    MRC_HDR_METH = 1u << 0, MRC_HDR_TSETH = 1u << 1, MRC_HDR_RETH = 1u << 2, MRC_HDR_IMMDT = 1u << 3,
    MRC_HDR_AETH = 1u << 4, MRC_HDR_SETH = 1u << 5, MRC_HDR_CCSTATE = 1u << 6, MRC_HDR_NETH = 1u << 7,
    MRC_HDR_PETH = 1u << 8, MRC_HDR_ERTH = 1u << 9, MRC_HDR_EETH = 1u << 10
};

typedef struct mrc_pkt {
    mrc_bth bth;
    uint32_t hdrs;        /* MRC_HDR_* present */
    uint32_t hdr_len;     /* bytes of headers, BTH included */
    uint32_t payload_len; /* bytes after the headers, pad removed */
    uint32_t flags;       /* MRC_PKT_* */
    mrc_meth meth;
    mrc_tseth tseth;
    mrc_reth reth;
    uint32_t imm;
    mrc_aeth aeth;
    mrc_seth seth;
    mrc_cc_state cc;
    mrc_neth neth;
    mrc_peth peth;
    mrc_erth erth;
    mrc_eeth eeth;
} mrc_pkt;

/* mrc_pkt.flags */
enum {
    MRC_PKT_CUT = 1u << 0 /* a data packet with fewer bytes after its headers than its BTH pad: the payload was cut
                             (a switch trimmed it); payload_len is 0. Other opcodes are MALFORMED instead. */
};

/* Decoders: return the header length consumed (> 0), MRC_ERR_TRUNC when len is too short, or MRC_ERR_INVAL for
 * NULL arguments. Encoders: return the header length written, MRC_ERR_NOBUF when cap is too small, MRC_ERR_INVAL
 * when a field does not fit its width. Neither ever reads or writes outside [p, p + len/cap). */
MRC_API int mrc_bth_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_bth *h);
MRC_API int mrc_bth_encode(uint8_t *p, size_t cap, const mrc_wire_opts *o, const mrc_bth *h);
MRC_API int mrc_meth_decode(const uint8_t *p, size_t len, mrc_meth *h);
MRC_API int mrc_meth_encode(uint8_t *p, size_t cap, const mrc_meth *h);
MRC_API int mrc_tseth_decode(const uint8_t *p, size_t len, mrc_tseth *h);
MRC_API int mrc_tseth_encode(uint8_t *p, size_t cap, const mrc_tseth *h);
MRC_API int mrc_reth_decode(const uint8_t *p, size_t len, mrc_reth *h);
MRC_API int mrc_reth_encode(uint8_t *p, size_t cap, const mrc_reth *h);
MRC_API int mrc_immdt_decode(const uint8_t *p, size_t len, uint32_t *imm);
MRC_API int mrc_immdt_encode(uint8_t *p, size_t cap, uint32_t imm);
MRC_API int mrc_aeth_decode(const uint8_t *p, size_t len, mrc_aeth *h);
MRC_API int mrc_aeth_encode(uint8_t *p, size_t cap, const mrc_aeth *h);
MRC_API int mrc_seth_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_seth *h);
MRC_API int mrc_seth_encode(uint8_t *p, size_t cap, const mrc_wire_opts *o, const mrc_seth *h);
MRC_API int mrc_cc_state_decode(const uint8_t *p, size_t len, mrc_cc_state *h);
MRC_API int mrc_cc_state_encode(uint8_t *p, size_t cap, const mrc_cc_state *h);
MRC_API int mrc_neth_decode(const uint8_t *p, size_t len, mrc_neth *h);
MRC_API int mrc_neth_encode(uint8_t *p, size_t cap, const mrc_neth *h);
MRC_API int mrc_peth_decode(const uint8_t *p, size_t len, mrc_peth *h);
MRC_API int mrc_peth_encode(uint8_t *p, size_t cap, const mrc_peth *h);
MRC_API int mrc_erth_decode(const uint8_t *p, size_t len, mrc_erth *h);
MRC_API int mrc_erth_encode(uint8_t *p, size_t cap, const mrc_erth *h);
MRC_API int mrc_eeth_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_eeth *h);
MRC_API int mrc_eeth_encode(uint8_t *p, size_t cap, const mrc_wire_opts *o, const mrc_eeth *h);

/* Classify and decode a whole MRC packet (BTH onward, ICRC already removed). Returns MRC_OK, MRC_ERR_TRUNC,
 * MRC_ERR_MALFORMED (unknown opcode; pad larger than the bytes after the headers of a non-data packet) or
 * MRC_ERR_INVAL. A data packet cut inside its pad decodes with MRC_PKT_CUT set. */
MRC_API int mrc_pkt_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_pkt *pkt);
/* Headers that follow BTH for an opcode (MRC_HDR_* mask, TSETH excluded); 0 for opcodes MRC does not define. */
MRC_API uint32_t mrc_opcode_hdrs(unsigned opcode);

/* RoCEv2 ICRC helper for adapters that build full frames (docs/PROTOCOL.md "ICRC"). l3 points at the IPv4 or
 * IPv6 header; len covers IP header, UDP header, MRC packet and pad, without the ICRC. Variant fields (IPv4 TOS,
 * TTL, checksum; IPv6 traffic class, flow label, hop limit; UDP checksum; BTH byte 4) are masked as RoCEv2
 * specifies. Returns the CRC; mrc_icrc_put stores it in wire order. Returns 0 for unparseable input (len too short
 * or not IPv4/IPv6); callers treat that as a bad ICRC. */
MRC_API uint32_t mrc_crc32(uint32_t crc, const uint8_t *p, size_t n); /* IEEE 802.3 CRC-32 update (zlib form) */
MRC_API uint32_t mrc_icrc(const uint8_t *l3, size_t len);
MRC_API void mrc_icrc_put(uint8_t out[4], uint32_t icrc);
MRC_API uint32_t mrc_icrc_get(const uint8_t in[4]);

/* ---- objects ------------------------------------------------------------------------------------------------ */
typedef struct mrc_endpoint mrc_endpoint;
typedef struct mrc_conn mrc_conn;

/* Host memory placement hook: called inside mrc_endpoint_recv after every check passed, instead of MRC_MEMCPY,
 * for regions registered with MRC_ACCESS_EXTERNAL (firmware DMA). It must not call back into the core. src is
 * valid only during the call. A non-zero return drops the packet (counted, not acknowledged). */
typedef int (*mrc_place_fn)(void *ud, uint32_t rkey, void *region_user, uint64_t offset, const uint8_t *src,
                            uint32_t len);
typedef void (*mrc_trace_fn)(void *ud, unsigned id, uint64_t a, uint64_t b);

/* ---- configuration: mrc_config_default, then change what your deployment needs -------------------------------- */
/* The EV policies (docs/PROTOCOL.md 7.3-7.5): which EV carries a packet, and what an acknowledgement, a trim or a loss
 * does to the EV it names. A rule applies to a scope of EVs: an OR of the kinds below (MRC_EV_SCOPE_* name the useful
 * ones). Start from a preset (mrc_ev_policy_preset) rather than setting rules one by one. */
enum {
    MRC_EV_KIND_AUTO = 1u,    /* the AUTO profile's EVs: random UDP source ports the fabric's ECMP hash maps to paths */
    MRC_EV_KIND_HASHED = 2u,  /* a controller's UDP or STEV profile's EVs: hash inputs too */
    MRC_EV_KIND_PATH = 4u,    /* a controller's SRv6 profile's EVs: each names its path */
    MRC_EV_SCOPE_NONE = 0u,   /* the rule is off */
    MRC_EV_SCOPE_AUTO = MRC_EV_KIND_AUTO,
    MRC_EV_SCOPE_HASHED = MRC_EV_KIND_AUTO | MRC_EV_KIND_HASHED,
    MRC_EV_SCOPE_PROFILE = MRC_EV_KIND_HASHED | MRC_EV_KIND_PATH,
    MRC_EV_SCOPE_ALL = MRC_EV_KIND_AUTO | MRC_EV_KIND_HASHED | MRC_EV_KIND_PATH
};
/* where a QP's control packets (SACK, NACK, transport ACK) go back (Q19 reverse-path EVs, P28 mirror reverse path) */
enum {
    MRC_EV_REPLY_ROTATE = 0,  /* the QP's own data-carrying EVs of the arrival plane, in turn */
    MRC_EV_REPLY_MIRROR = 1,  /* on a QP with an EV profile, the EV the arrival came on (its path's mirror) while that
                                 EV is not known bad; else as ROTATE */
    MRC_EV_REPLY_ECHO = 2     /* the arriving packet's own entropy, echoed */
};
/* what a confirmed silent loss on an EV of a hop group (mrc_ev_profile_groups) does to the group (P26 hop groups) */
enum {
    MRC_EV_RETIRE_ALONE = 0,  /* that EV alone is demoted */
    MRC_EV_RETIRE_AT_ONCE = 1,/* the QP's other EVs of the group too */
    MRC_EV_RETIRE_SECOND = 2  /* ... once another EV of the group is ASSUMED_BAD already: two paths through the hop
                                 failed, not one link of one path */
};
typedef struct mrc_ev_policy {
    uint8_t recycle;          /* P23 EV recycling, scope: an EV whose packet a SACK named without CE carries one of
                                 its plane's next packets before the rotation moves on (default AUTO) */
    uint8_t hold;             /* P29 suspect hold, scope: an EV whose silent loss awaits its verdict sits out of the
                                 rotation until then, at most 8 rounds of its plane (default ALL) */
    uint8_t confirm_late;     /* P27 late-SACK verdict, scope: a SACK that comes after another acknowledged the PSN,
                                 or stale, still confirms or clears that loss (default ALL) */
    uint8_t sweep;            /* P35 sweeps, scope: a confirmed silent loss makes every EV of its plane that has not
                                 delivered a packet sent since sit out until a probe or a SACK shows its path works
                                 (default HASHED: a fault behind a hash may be on any EV's path) */
    uint8_t group_retire;     /* P26 hop groups: MRC_EV_RETIRE_* (default SECOND) */
    uint8_t reply;            /* Q19 reverse-path EVs, P28 mirror reverse path: MRC_EV_REPLY_* (default MIRROR) */
    bool confirm_loss;        /* Q5 reordering slack, Q8 EV health timers: a loss seen only as a SACK hole demotes its
                                 EV once the retransmission is SACKed with its own timestamp (default true; needs
                                 tseth), else at once */
    uint8_t backup_pct;       /* share of each port's EVs held as backups, 0..90 (default 25; 0: every EV carries) */
    uint8_t revive_probes;    /* Q8 EV health timers: consecutive probe answers that revive an ASSUMED_BAD EV, 1..7
                                 (default 3) */
    uint32_t probe_interval_ns; /* Q8 EV health timers: the round of probes of ASSUMED_BAD EVs; an answer must come
                                   within one (default
                                 0 = auto: 8 x smoothed RTT, 10 us..10 ms) */
} mrc_ev_policy;
enum {
    MRC_EV_PRESET_DEFAULT = 0, /* every adopted rule: what mrc_config_default gives */
    MRC_EV_PRESET_ROTATION,    /* the plain rotation with path health (7.3-7.5): no recycling, holds, late verdicts
                                  or sweeps, a group's EVs retired alone, replies rotate - a baseline */
    MRC_EV_PRESET_ECMP,        /* a controller's profile lists ECMP hash inputs (random source ports): its EVs are
                                  treated as AUTO's - recycled, replies rotate */
    MRC_EV_PRESET_PATHS        /* a path-aware profile, one EV per path: every path carries data (no backups) and no
                                  plane is swept (each path is watched on its own) */
};
/* Fill *p with a preset: MRC_OK, or MRC_ERR_INVAL for an unknown preset or a NULL p. */
MRC_API int mrc_ev_policy_preset(mrc_ev_policy *p, int preset);

typedef struct mrc_ack_config { /* acknowledgements (docs/PROTOCOL.md Q6 SACK frequency, P7 SACK coalescing) */
    uint16_t sack_every;      /* a SACK every N data packets, at once on a request, CE, retransmission or hole
                                 (default 1): raise it to send fewer acknowledgements */
    uint32_t sack_delay_ns;   /* the longest a coalesced SACK waits (default 4000) */
    uint16_t tack_every;      /* a positive transport ACK every M completed messages (default 0: never), for a peer
                                 that wants them */
    uint16_t request_every;   /* the requester sets BTH a every N data packets (default 0: on a message's last) */
} mrc_ack_config;
typedef struct mrc_recovery_config { /* loss recovery (Q5 reordering slack, P3-P5, Q25 retry budget, 7.11) */
    uint32_t reorder_slack_ns; /* a hole is lost once a packet sent this much later is acknowledged (default 0 = auto:
                                 max(reorder_slack_min_ns, min RTT / 4)): set it for a fabric that reorders more */
    uint32_t reorder_slack_min_ns; /* the floor of the automatic slack (default 2000) */
    uint32_t rtt_init_ns;     /* the RTT assumed before the first sample (default 20000): your fabric's RTT */
    uint32_t tlp_min_ns;      /* the tail-loss probe after max(this, 2 x smoothed RTT) without progress (default
                                 10000) */
    bool trim_keeps_alive;    /* Q25 retry budget: an RTO after which a trim NACK came back spends no retry (default
                                 true): congestion is not a dead path */
    bool trim_holds_rto;      /* Q25 retry budget: ... nor backs off (default true) */
    uint32_t nopath_timeout_ns; /* 7.11: a QP in RTS with work and no EV that can carry it enters ERR (MRC_ERR_NOPATH)
                                 after this long (default 0 = auto: as long as its RTO retries would last) */
} mrc_recovery_config;
typedef struct mrc_rx_config { /* the responder's window and flow control */
    bool nack_oor;            /* Q10 window edge: a PSN past the window is answered NACK PSN_OOR_WINDOW (default
                                 false: dropped), for a peer that expects the NACK */
    bool window_inclusive;    /* Q10 window edge: the window ends at cack + MPR (true) or cack + MPR - 1 (default false)
                                 */
    uint8_t pen_ooo_pct;      /* Q12 receiver penalty: once out-of-order PSNs fill this share of the window (default
                                 50; 0 = never), rising to 127 when it is full */
    uint16_t mpr_budget;      /* Q9 dynamic MPR: 128-PSN units shared by the QPs receiving at once (default 0 = each
                                 advertises its mpr_dest): set it to bound a receiver's buffer */
} mrc_rx_config;
typedef struct mrc_cc_config { /* the built-in CC profile 0 (docs/PROTOCOL.md section 8) */
    uint8_t algo;             /* MRC_CC_ALGO_NSCC (default), MRC_CC_ALGO_FIXED or MRC_CC_ALGO_NONE */
    uint32_t fixed_cwnd_bytes;/* MRC_CC_ALGO_FIXED: the window in nominal bytes */
    uint32_t line_rate_mbps;  /* NSCC: the endpoint's egress rate over all ports (default 0 = 100 Gb/s per port) */
    uint32_t base_rtt_ns;     /* NSCC: the unloaded network RTT its defaults derive from (default 12000) */
} mrc_cc_config;
typedef struct mrc_auto_ev_config { /* the built-in AUTO EV profile, ID 0 (P12 AUTO EV profile): random UDP source ports
                                       */
    uint16_t per_port;        /* EVs per port (default 16: 128 over 8 planes) */
    uint16_t sport_min, sport_max; /* the UDP source ports drawn (default 49152..65535): your fabric's ECMP range */
    uint16_t min_active;      /* EVs that keep carrying data whatever the losses (default 0 = auto: 1/8 of the QP's
                                 EVs, at least 1) */
    uint32_t event_mask;      /* EV state changes reported as MRC_EVT_EV_STATE (default GOOD | ASSUMED_BAD) */
} mrc_auto_ev_config;
typedef struct mrc_guard_config { /* hostile peers (docs/PROTOCOL.md P10 zero-length writes, P19 QP 0x2 and probe trust,
                                     Security properties) */
    bool zero_len_rkey;       /* P10 zero-length writes: they must name a valid rkey with remote-write access and a
                                 VA inside its region (default true); false: IBTA, no rkey check */
    bool epop_peer_check;     /* P19 QP 0x2 and probe trust: packets to QP 0x2 need the pkey of a connected (RTR/RTS) QP
                                 to rxinfo.peer (default true); false: anyone */
    uint32_t epop_rate_pps;   /* P19 QP 0x2 and probe trust: endpoint requests (PSU, EV_PROBE) taken per peer per second
                                 (default 10000; 0 = unlimited) */
    uint16_t epop_burst;      /* ... and in one burst (default 32, at least 1) */
    uint32_t probe_rate_pps;  /* P19 QP 0x2 and probe trust: PROBE_REQs answered per connection per second (default
                                 250000; 0 = unlimited) */
    uint16_t probe_burst;     /* ... and in one burst (default 64, at least 1) */
    bool hardened;            /* P38 hardened mode, a deviation from IBTA (default false): an access violation or a WIMM
                                 overrun is dropped (ACCESS, WIMM) without a NAK, a transport NAK or UNEXP_EVENT NACK
                                 is dropped (NAK, or ACK_BOGUS when no outstanding PSN of its message is unacknowledged),
                                 instead of ending the QP (a genuine one ends it by retry exhaustion); a duplicate whose
                                 bytes differ from those placed is counted (rx_conflict, a compare per duplicate) */
    uint64_t psu_hold_ns;     /* P38 bounded PSU: planes a peer's PORT_STATUS_UPDATE took away come back (and are found
                                 working or not by losses and probes) after this long; an endpoint with a port down
                                 re-announces every half of it (default 1 s; 0 = for ever, as before) */
} mrc_guard_config;
#ifdef MRC_RESEARCH
/* Knobs kept for research only (the simulator's experiments): each turns an adopted rule off or moves it away from
 * its measured best. Without MRC_RESEARCH they do not exist and the core uses the defaults given here. */
typedef struct mrc_research_config {
    uint8_t tlp_copies;       /* P33 TLP copies: the tail-loss probe on this many EVs, 1 or 2 (default 2) */
    uint8_t reorder_timer;    /* P32 reorder timer: quarters of the slack after an overtaking transmission's RTT
                                 (default 6; at most 64; 0: off) */
    uint8_t cc_subpkt_shift;  /* P24 sub-packet windows: NSCC's window may fall to one packet >> this, 0..12 (default 4;
                                 0: it stops at one packet) */
    uint8_t cc_lh_mark_rtts;  /* P30 last-hop trim mark: base RTTs during which SACKs read as marked (default 32) */
    uint16_t hold_min_evs;    /* P29 suspect hold: only in a plane with at least this many EVs (default 32) */
} mrc_research_config;
#endif

typedef struct mrc_config {
    uint64_t seed;            /* all randomness (QPNs too) derives from it: same seed, same bytes */
    uint8_t num_ports;        /* planes in use, 1..MRC_MAX_PORTS (default MRC_MAX_PORTS) */
    uint32_t qpn_base;        /* P16 rkeys and QPNs: 0 (default): QPNs drawn from a seeded stream, unique, 24-bit, never
                                 0/1/2 or 0xFFFFFF; a value: conn slot i gets qpn_base + i (predictable: tests,
                                 captures) */
    mrc_wire_opts wire;       /* layout choices both ends must agree on (docs/PROTOCOL.md section 6) */
    uint8_t dscp[MRC_DSCP_CLASSES]; /* your fabric's codepoints per class (defaults in docs/PROTOCOL.md 3.6) */
    bool trimmable;           /* first transmissions use DSCP_TRIMMABLE (default true): false where switches drop */
    bool tseth;               /* data packets carry TSETH (default true): false for a peer that rejects it */
    mrc_ack_config ack;
    mrc_recovery_config recovery;
    mrc_rx_config rx;
    mrc_cc_config cc;
    mrc_auto_ev_config auto_ev;
    mrc_ev_policy ev;         /* default: MRC_EV_PRESET_DEFAULT */
    mrc_guard_config guard;
    uint32_t psu_retry_ns;    /* 7.8: an unanswered PORT_STATUS_UPDATE the core sent goes again after this long,
                                 doubling (default 200000) */
    uint8_t psu_retries;      /* ... at most this many times (default 8; 0: once) */
    bool stev_sport_high;     /* Q16 STEV header mapping: STEV/SRv6 entropy bits 31:16 in the UDP source port, 15:0 in
                                 the flow label (default true), or the other way round: as your fabric hashes */
    uint16_t ev_max_width;    /* the device's widest expanded EV in bits (OCP ev_max_width), 16..8 x MRC_EV_BYTES
                                 (default 0 = 8 x MRC_EV_BYTES): EV formats wider are refused */
    uint32_t pool_blocks;     /* P21 pooled in-flight memory: in-flight pool blocks this endpoint uses,
                                 1..MRC_POOL_BLOCKS (default 0: all of them): lower it to provision by bandwidth-delay
                                 product (IN-FLIGHT MEMORY above) */
    bool fast_path_off;       /* P22 fast paths: every packet takes the general code (default false); to rule the
                                 fast paths out while debugging (make fast-check compares the two per call) */
    mrc_place_fn place;       /* firmware DMA: placement into MRC_ACCESS_EXTERNAL regions (default none) */
    void *place_ud;
    mrc_trace_fn trace;       /* the numeric trace hook, with MRC_ENABLE_TRACE (default none) */
    void *trace_ud;
#ifdef MRC_RESEARCH
    mrc_research_config research;
#endif
} mrc_config;

/* Fill every field with its documented default. */
MRC_API void mrc_config_default(mrc_config *cfg);

/* ---- statistics --------------------------------------------------------------------------------------------- */
enum mrc_drop_reason {
    MRC_DROP_SHORT = 0,    /* shorter than its headers */
    MRC_DROP_OPCODE,       /* opcode MRC does not define */
    MRC_DROP_MALFORMED,    /* inconsistent lengths, pad, or field values */
    MRC_DROP_ICRC,         /* adapter reported a bad ICRC */
    MRC_DROP_QPN,          /* no connection with that QPN */
    MRC_DROP_PKEY,         /* pkey mismatch */
    MRC_DROP_STATE,        /* connection not in a state that accepts this packet */
    MRC_DROP_PSN_OOR,      /* data PSN outside the responder window */
    MRC_DROP_MSN_OOR,      /* message sequence outside the window */
    MRC_DROP_TRIMMED,      /* trimmed data packet (answered with a NACK) */
    MRC_DROP_ACCESS,       /* rkey / bounds / access violation (answered with a transport NAK) */
    MRC_DROP_WIMM,         /* WIMM overflow (answered with a transport NAK) */
    MRC_DROP_PLACE,        /* placement hook refused */
    MRC_DROP_DUP,          /* duplicate data, payload discarded, re-acknowledged */
    MRC_DROP_ACK_BOGUS,    /* SACK/NACK/ACK naming PSNs or messages never sent */
    MRC_DROP_ACK_STALE,    /* SACK/NACK/ACK for a connection not (or no longer) sending */
    MRC_DROP_EPOP,         /* endpoint operation not handled */
    MRC_DROP_RATE,         /* over a per-peer / per-connection rate limit (endpoint requests, probes) */
    MRC_DROP_STRANGER,     /* QP 0x2 packet from a peer with no connected QP here and no controller registration (P38) */
    MRC_DROP_PSU,          /* PORT_STATUS_UPDATE naming a plane this endpoint lacks, or not its arrival plane (P38) */
    MRC_DROP_NAK,          /* guard.hardened: a transport NAK or UNEXP_EVENT NACK for what is outstanding, not fatal (P38) */
    MRC_DROP_REASONS
};

typedef struct mrc_endpoint_stats {
    uint64_t rx_pkts, rx_bytes, tx_pkts, tx_bytes;
    uint64_t rx_drops;                       /* sum of drop[] */
    uint64_t drop[MRC_DROP_REASONS];
    uint64_t ctlq_overflow;                  /* control packets not queued (queue full) */
    uint64_t ep_req_tx, ep_req_rx, ep_rsp_tx, ep_rsp_rx; /* endpoint operations (QP 0x2) */
    uint64_t ep_timeouts;                    /* endpoint requests that got no answer in time */
    uint64_t epq_overflow;                   /* endpoint-operation packets not queued (queue full) */
    uint64_t psu_rx;                         /* PORT_STATUS_UPDATEs applied */
    uint64_t psu_rtx;                        /* PORT_STATUS_UPDATEs the core resent for want of an answer */
    uint64_t psu_expired;                    /* planes a PSU took away given back after guard.psu_hold_ns (per QP) */
    uint64_t notify_dropped;                 /* controller events lost to a full queue */
    uint64_t pool_waits;                     /* times a QP had to wait for in-flight memory (an empty pool) */
    uint64_t pool_handoffs;                  /* blocks handed from a QP that freed them to a waiting one */
    uint64_t pool_reclaims;                  /* retained blocks taken from their QP for want of a free one */
    uint32_t pool_blocks, pool_in_use, pool_peak; /* the pool: blocks usable, live now (holding PSNs not yet
                                                   * cumulatively acknowledged), most ever live at once */
    uint32_t pool_retained;                  /* blocks retained now (acknowledged PSNs kept for late SACKs); the
                                              * free ones are pool_blocks - pool_in_use - pool_retained */
} mrc_endpoint_stats;

typedef struct mrc_conn_stats {
    /* requester */
    uint64_t tx_data, tx_rtx, tx_bytes, tx_probes;
    uint64_t rx_sack, rx_nack, rx_tack, rx_nack_reason[32];
    uint64_t rtx_nack, rtx_sack_hole, rtx_rto, rtx_probe_loss; /* why a PSN was retransmitted */
    uint64_t rtx_spurious;    /* retransmissions shown unnecessary (an earlier transmission was SACKed) */
    uint64_t rtx_reo_timer;   /* P32 reorder timer: of rtx_sack_hole, the holes the reorder timer declared */
    uint64_t rto_fired, tlp_fired;
    uint64_t msgs_done;
    /* responder */
    uint64_t rx_data, rx_bytes_placed, rx_dup, rx_trimmed, rx_oor;
    uint64_t tx_sack, tx_nack, tx_tack, tx_nak;
    uint64_t imm_delivered;
    /* path signals and what the EV manager did with them */
    uint64_t ev_skip_req, ev_trims, ev_losses;
    uint64_t ev_skipped;      /* EVs that missed a turn in the rotation (SKIP_ONCE, trim, a P29 suspect hold hold) */
    uint64_t ev_demoted;      /* EVs that went ASSUMED_BAD */
    uint64_t ev_withheld;     /* demotions withheld by ev_min_active */
    uint64_t ev_group_retired;/* P26 hop groups: EVs demoted with a hop-group member whose silent loss was confirmed */
    uint64_t ev_suspect_held; /* P29 suspect hold: EVs taken out of the rotation while a silent loss on them awaits its
                                 verdict */
    uint64_t ev_loss_host;    /* P39 host losses: silent losses not held against their EV (every plane lost at once) */
    uint64_t ev_sweeps;       /* P35: sweeps started by a confirmed silent loss */
    uint64_t ev_ver_held;     /* P35 sweeps: EVs a sweep took out of the rotation until verified */
    uint64_t ev_verified;     /* P35 sweeps: ... and brought back by a probe answer or a SACK of a later packet */
    uint64_t ev_ver_failed;   /* P35 sweeps: ... whose verification probe went unanswered (then demoted as a silent
                                 loss) */
    uint64_t ev_revived;      /* ASSUMED_BAD EVs revived by probes */
    uint64_t ev_promoted;     /* backup EVs that took a demoted EV's place */
    uint64_t ev_probes, ev_probe_ok, ev_probe_fail; /* background probes of ASSUMED_BAD EVs */
    uint64_t ev_rebuilds;     /* EV set rebuilt: port or peer-port change, controller operation */
    /* congestion control (requester) and flow control (responder) */
    uint64_t cc_rtt_samples, cc_md, cc_qa, cc_fast, cc_nack_dec, cc_pen_dec, cc_restores, cc_mpr_changes;
    uint64_t cc_rcvd_bytes;   /* bytes the peer's SACKs reported newly received (rcvd_bytes deltas, wrap-safe) */
    uint64_t rx_ce;           /* data packets that arrived CE-marked */
    uint64_t tx_pen;          /* SACKs sent with a receiver penalty */
    uint64_t rx_drops; /* packets for this connection dropped for any reason (also in the endpoint's drop[]) */
    uint64_t rx_sack_stale;   /* SACKs behind the acknowledged point: acknowledgements only, no CC or path input */
    uint64_t rx_conflict;     /* guard.hardened: duplicates whose payload differs from the bytes placed (P38) */
    uint64_t rx_sack_quiet;   /* SACKs answering a probe not sent (or answered), or naming a PSN a SACK named:
                                 acknowledgements only (P38 quiet SACKs) */
    uint64_t cc_rcvd_capped;  /* SACKs whose rcvd_bytes claimed more than was sent and not yet credited */
    uint64_t pool_waits;      /* times it could not start a new PSN for want of in-flight memory (an empty pool) */
    uint64_t ev_unconfirmed;  /* P40 overtaken originals: confirmed silent losses taken back (the original arrived after
                                 its retransmission); the EV, if still ASSUMED_BAD and not probing, revived */
} mrc_conn_stats;

/* The counters as they stand. Built with MRC_NO_STATS (counters that cost nothing when unused: a firmware with its
 * NIC's own counters) the core counts only drops and losses - the endpoint's drop[], rx_drops, ctlq_overflow,
 * epq_overflow and notify_dropped, the QP's rx_drops, as without it - and every other counter reads 0 (the pool's
 * gauges pool_blocks, pool_in_use and pool_retained are filled when read; pool_peak is a counter). */
MRC_API void mrc_endpoint_stats_get(const mrc_endpoint *ep, mrc_endpoint_stats *out); /* zeros for NULL ep */
MRC_API void mrc_conn_stats_get(const mrc_conn *c, mrc_conn_stats *out);

/* ---- endpoint (one NIC) ------------------------------------------------------------------------------------- */
/* Returns MRC_OK or MRC_ERR_INVAL (NULL, a configuration value out of range: mrc_endpoint_last_error says which).
 * All ports start up. The endpoint must not move in memory while conns are attached. */
MRC_API int mrc_endpoint_init(mrc_endpoint *ep, const mrc_config *cfg, mrc_time now);
/* Port (plane) state, 1-based. MRC_OK, MRC_ERR_INVAL. Down ports carry nothing until they come back up. */
MRC_API int mrc_endpoint_port_set(mrc_endpoint *ep, unsigned port, bool up, mrc_time now);
/* P38 controllers: register (on true) or forget the adapter's handle of a controller, so that its endpoint operations
 * (rxinfo.peer) are taken without a connected QP to it and with any pkey (with guard.epop_peer_check). At most
 * MRC_MAX_CONTROLLERS. MRC_OK, MRC_ERR_INVAL (NULL), MRC_ERR_FULL. */
MRC_API int mrc_endpoint_controller_set(mrc_endpoint *ep, uint32_t peer, bool on);
MRC_API bool mrc_endpoint_port_up(const mrc_endpoint *ep, unsigned port);

/* Memory regions. base: host address of the region (may be NULL only with MRC_ACCESS_EXTERNAL and a place hook);
 * iova: the address peers put in RETH for byte 0 of the region. Returns MRC_OK and the rkey, MRC_ERR_INVAL,
 * MRC_ERR_FULL. */
enum { MRC_ACCESS_REMOTE_WRITE = 1u << 0, MRC_ACCESS_EXTERNAL = 1u << 1 };
MRC_API int mrc_endpoint_reg_mr(mrc_endpoint *ep, void *base, uint64_t iova, uint64_t len, uint32_t access,
                                void *user, uint32_t *rkey);
/* The same with an rkey the caller chooses (a NIC's or a verbs library's own key; any 32-bit value, unique on the
 * endpoint): MRC_OK, MRC_ERR_INVAL, MRC_ERR_BUSY (rkey already names a region), MRC_ERR_FULL. Its lookup on each
 * arriving write stays O(1) (docs/PROTOCOL.md P16). */
MRC_API int mrc_endpoint_reg_mr_key(mrc_endpoint *ep, void *base, uint64_t iova, uint64_t len, uint32_t access,
                                    void *user, uint32_t rkey);
MRC_API int mrc_endpoint_dereg_mr(mrc_endpoint *ep, uint32_t rkey); /* MRC_OK, MRC_ERR_NOENT */

/* Feed one received packet (from BTH on, ICRC removed and checked by the adapter). Returns MRC_OK when the
 * packet was accepted, MRC_ERR_DROP when it was discarded and counted, MRC_ERR_INVAL for NULL arguments. */
typedef struct mrc_rxinfo {
    uint8_t port;  /* 1-based arrival port (plane) */
    uint8_t dscp;  /* IP DSCP as received (trim detection) */
    uint8_t ecn;   /* IP ECN bits as received (3 = CE) */
    uint8_t flags; /* MRC_RX_* */
    uint32_t ev;   /* entropy as seen on the wire (UDP source port / flow label bits) */
    uint32_t peer; /* the sender, as the adapter names it: the same handle its conns carry in mrc_conn_attr.peer
                      (endpoint operations, which name no QP, find their conns by it) */
} mrc_rxinfo;
enum { MRC_RX_TRIMMED = 1u << 0, MRC_RX_ICRC_BAD = 1u << 1 };
MRC_API int mrc_endpoint_recv(mrc_endpoint *ep, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri,
                              mrc_time now);
/* Feed a burst of n packets received together (docs/PROTOCOL.md P37 bursts), as a NIC's receive loop gets them: each
 * is taken as mrc_endpoint_recv would take it at `now`, in order, except that the per-QP work a packet leaves behind -
 * NSCC's update (once per QP from the burst's SACKs: the bytes summed, the latest RTT, CE if any echoed one), the
 * RTO/TLP re-arm, scheduling and the timer key - is done once per QP at the end. rc (NULL, or n entries) gets each
 * packet's result as mrc_endpoint_recv returns it (MRC_ERR_INVAL for an entry with no packet or a bad port). Returns
 * the number of packets accepted (MRC_OK), or MRC_ERR_INVAL when ep is NULL or pkts is NULL with n > 0. */
typedef struct mrc_rxpkt {
    const uint8_t *pkt;
    size_t len;
    mrc_rxinfo ri;
} mrc_rxpkt;
MRC_API int mrc_endpoint_recv_burst(mrc_endpoint *ep, const mrc_rxpkt *pkts, unsigned n, int *rc, mrc_time now);

/* Produce the next packet to send. Writes the MRC headers to buf and describes the payload in ti. Returns the bytes
 * written to buf (> 0), 0 when there is nothing to send now, MRC_ERR_NOBUF when cap < MRC_HDR_MAX (or, with
 * MRC_TX_COPY, smaller than the whole packet; nothing is consumed), MRC_ERR_INVAL. The packet on the wire is
 * buf[0..hdr_len) + payload[0..payload_len) + pad zero bytes (then the adapter's ICRC). */
typedef struct mrc_txinfo {
    uint8_t port;          /* 1-based egress port (plane) */
    uint8_t dscp;          /* codepoint to put in the IP header */
    uint8_t dscp_class;    /* enum mrc_dscp_class */
    uint8_t pad;           /* zero bytes to append after the payload (BTH pad count) */
    uint8_t opcode;
    uint32_t ev;           /* entropy for the UDP source port / flow label (mrc_endpoint_ev_headers) */
    uint8_t ev_fmt;        /* enum mrc_ev_fmt_mode of the EV: MRC_EV_FMT_UDP for the AUTO profile */
    uint8_t path_len;      /* bytes at path: 16 (SRv6 outer DA) or 32 (DA + one SRH segment); 0 otherwise */
    const uint8_t *path;   /* the expanded SRv6 path, valid until the next call into the core */
    uint32_t peer;         /* the peer handle (mrc_conn_attr.peer, or the endpoint request's) */
    uint32_t qpn;          /* local QPN that produced the packet (MRC_EPOP_QPN for endpoint ops) */
    uint32_t hdr_len;
    const uint8_t *payload;/* source data (caller's posted buffer), or inside buf with MRC_TX_COPY */
    uint32_t payload_len;
} mrc_txinfo;
enum { MRC_TX_COPY = 1u << 0 }; /* copy payload and pad into buf after the headers */
MRC_API int mrc_endpoint_poll_tx(mrc_endpoint *ep, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti,
                                 mrc_time now);
/* Produce up to n packets (docs/PROTOCOL.md P37 bursts), each exactly as mrc_endpoint_poll_tx would return it into
 * pkts[i].buf (pkts[i].cap bytes), its description in pkts[i].ti and its return value in pkts[i].len. Stops at the
 * first entry that gets no packet: its len is 0 (nothing to send now), MRC_ERR_NOBUF or MRC_ERR_INVAL (no buf).
 * Returns the number of packets produced (entries 0..count-1 have len > 0), or MRC_ERR_INVAL (ep NULL, pkts NULL
 * with n > 0, unknown flags). A packet's ti.path stays valid until the next call into the core. */
typedef struct mrc_txpkt {
    uint8_t *buf;
    size_t cap;
    int len;
    mrc_txinfo ti;
} mrc_txpkt;
MRC_API int mrc_endpoint_poll_tx_burst(mrc_endpoint *ep, mrc_txpkt *pkts, unsigned n, unsigned flags, mrc_time now);

/* The time at which to call mrc_endpoint_on_timeout next, or MRC_TIME_NEVER when no timer is armed. O(1). It may be
 * earlier than any timer (docs/PROTOCOL.md P36 lazy deadlines): a call then finds nothing due and re-keys. */
MRC_API mrc_time mrc_endpoint_next_deadline(const mrc_endpoint *ep);
/* Run every timer due at or before now. Spurious or early calls are harmless. MRC_OK or MRC_ERR_INVAL. */
MRC_API int mrc_endpoint_on_timeout(mrc_endpoint *ep, mrc_time now);

/* ---- events (pulled) ---------------------------------------------------------------------------------------- */
enum mrc_event_type {
    MRC_EVT_NONE = 0,
    MRC_EVT_SEND_DONE,   /* a posted write completed (status MRC_OK) or failed/flushed (status < 0) */
    MRC_EVT_RECV_IMM,    /* a Write-with-Immediate completed into a posted receive (or a flushed receive) */
    MRC_EVT_CONN_ERROR,  /* the connection entered ERR; status says why; flush completions follow */
    MRC_EVT_EV_STATE,    /* an EV of a QP went ASSUMED_BAD or back to GOOD (filtered by the profile's event mask) */
    MRC_EVT_EP_RESPONSE, /* the answer to an endpoint request (mrc_endpoint_ep_request) */
    MRC_EVT_EP_TIMEOUT,  /* an endpoint request got no answer within its timeout */
    MRC_EVT_PEER_PORTS   /* a peer announced which of its ports are usable (PORT_STATUS_UPDATE) */
};
typedef struct mrc_event {
    uint16_t type;       /* enum mrc_event_type */
    int16_t status;      /* MRC_OK or a negative mrc_err */
    uint32_t qpn;        /* the QP of a completion, error or EV_STATE event */
    mrc_conn *conn;
    uint64_t wr_id;
    uint32_t imm;        /* RECV_IMM */
    uint32_t byte_len;   /* SEND_DONE: bytes written; RECV_IMM: message length */
    /* EV_STATE */
    uint64_t profile_id; /* 0 for the AUTO profile */
    uint32_t ev_index;   /* index of the EV in the profile's array (AUTO: in the QP's EV set) */
    uint32_t ev;         /* its entropy */
    uint32_t state;      /* MRC_EVS_GOOD or MRC_EVS_ASSUMED_BAD */
    uint32_t drop_count; /* events lost to a full queue just before this one (exact count) */
    /* EV_STATE: the EV's port; EP_RESPONSE: the arrival port */
    uint8_t port;
    /* EP_RESPONSE, EP_TIMEOUT, PEER_PORTS */
    uint8_t op;          /* MRC_EPOP_* (wire numbering) */
    uint8_t adj_svc_time;/* rtt_ns was corrected for the responder's service time (never, in this version) */
    uint16_t req_id;
    uint32_t rtt_ns;
    uint32_t peer;
    uint32_t port_mask;  /* PEER_PORTS: 1-based mask of the peer's usable ports */
} mrc_event;
/* Returns 1 and fills ev, 0 when no event is pending (then only ev->type is written: MRC_EVT_NONE), MRC_ERR_INVAL.
 * Controller events (EV_STATE, EP_*,
 * PEER_PORTS) come first, then completions; completions of one connection come out in work-request order.
 * Completions never overrun: each lives in its connection's queue until pulled. Controller events live in a ring
 * of MRC_NOTIFYQ_LEN; when it is full the newest is dropped and counted, and the next one delivered says how many
 * were lost (drop_count). */
MRC_API int mrc_endpoint_poll_event(mrc_endpoint *ep, mrc_event *ev);
/* 1 when mrc_endpoint_poll_event may have an event to return, 0 when it has none (0 for a null ep). O(1), changes
 * nothing. Any call that takes packets or time in (recv, on_timeout, poll_tx) may queue an event; an event loop
 * does not block while this is 1 (the ports' step functions check it before they sleep). It may say 1 once more
 * than poll_event returns events: a connection whose completions were all unsignaled leaves the queue on that
 * poll_event call, which then returns 0. */
MRC_API int mrc_endpoint_event_pending(const mrc_endpoint *ep);

/* ---- connections (QPs) -------------------------------------------------------------------------------------- */
enum mrc_conn_state { MRC_QPS_RESET = 0, MRC_QPS_INIT, MRC_QPS_RTR, MRC_QPS_RTS, MRC_QPS_ERR };

/* Capabilities exchanged out of band, set at RTR (OCP enum mrc_qp_cap) */
enum {
    MRC_CAP_TRIM_NACK_DEST_UNSUPPORTED = 1u << 0, /* the peer never sends trim NACKs */
    MRC_CAP_DYNAMIC_MPR = 1u << 1,                /* both ends must set it */
    MRC_CAP_SVC_TIME_DEST_UNSUPPORTED = 1u << 2
};

/* Attribute mask bits and the transition that requires (R) or allows (O) each:
 *   RESET->INIT: R EV_PROFILE, CC_PROFILE; O PKEY, ACCESS, HINT
 *   INIT->INIT:  O PKEY, ACCESS, HINT
 *   INIT->RTR:   R DEST_QPN, RQ_PSN, PATH_MTU, MPR_DEST, MAX_WIMM_DEST; O CAPS, PEER, PKEY, ACCESS
 *   RTR->RTS:    R SQ_PSN, MPR, MAX_WIMM, RETRY, TIMEOUT; O ACCESS
 *   RTS->RTS:    O RETRY, TIMEOUT, ACCESS
 *   any->ERR, any->RESET: nothing else. Every other transition is MRC_ERR_STATE. */
#define MRC_ATTR_STATE           ((uint32_t)1 << 0)
#define MRC_ATTR_PKEY            ((uint32_t)1 << 1)
#define MRC_ATTR_ACCESS          ((uint32_t)1 << 2)
#define MRC_ATTR_EV_PROFILE      ((uint32_t)1 << 3)
#define MRC_ATTR_CC_PROFILE      ((uint32_t)1 << 4)
#define MRC_ATTR_DEST_QPN        ((uint32_t)1 << 5)
#define MRC_ATTR_RQ_PSN          ((uint32_t)1 << 6)
#define MRC_ATTR_PATH_MTU        ((uint32_t)1 << 7)
#define MRC_ATTR_MPR_DEST        ((uint32_t)1 << 8)
#define MRC_ATTR_MAX_WIMM_DEST   ((uint32_t)1 << 9)
#define MRC_ATTR_CAPS            ((uint32_t)1 << 10)
#define MRC_ATTR_PEER            ((uint32_t)1 << 11)
#define MRC_ATTR_SQ_PSN          ((uint32_t)1 << 12)
#define MRC_ATTR_MPR             ((uint32_t)1 << 13)
#define MRC_ATTR_MAX_WIMM        ((uint32_t)1 << 14)
#define MRC_ATTR_RETRY           ((uint32_t)1 << 15)
#define MRC_ATTR_TIMEOUT         ((uint32_t)1 << 16)
#define MRC_ATTR_HINT            ((uint32_t)1 << 17)

/* QP hints (MRC's MRC_QP_HINT, optional, set going to INIT): what the application knows of its traffic. 0 = not
 * known. The core uses num_remote_recv_peers: where the fabric trims (mrc_config.trimmable), a QP whose congestion
 * context it creates starts NSCC's window at maxwnd / num_remote_recv_peers, at least one packet, instead of maxwnd
 * (docs/PROTOCOL.md P31 QP hints). The other two are kept and reported by mrc_conn_query only. */
typedef struct mrc_qp_hint {
    uint32_t num_qps_per_peer;      /* QPs this application opens to the same peer */
    uint32_t num_send_peers;        /* peers this endpoint sends to at the same time */
    uint32_t num_remote_recv_peers; /* senders the peer receives from at the same time, this one included (the
                                       incast degree) */
} mrc_qp_hint;

typedef struct mrc_conn_attr {
    uint8_t state;           /* enum mrc_conn_state */
    uint16_t pkey;           /* default 0xFFFF */
    uint32_t access;         /* MRC_ACCESS_REMOTE_WRITE: peers may write through this QP (default on) */
    uint64_t ev_profile_id;  /* 0: built-in AUTO profile */
    uint64_t cc_profile_id;  /* 0: the built-in profile (mrc_config.cc, NSCC by default) */
    uint32_t dest_qpn;       /* 24 bits, not MRC_EPOP_QPN */
    uint32_t rq_psn;         /* first PSN expected from the peer */
    uint32_t path_mtu;       /* payload bytes per packet: 256, 512, 1024, 2048 or 4096 */
    uint8_t mpr_dest;        /* responder window, units of 128 PSNs, 1..MRC_MAX_MPR_UNITS */
    uint16_t max_wimm_dest;  /* pending immediates accepted, 1..MRC_MAX_WIMM */
    uint32_t caps;           /* MRC_CAP_* */
    uint32_t peer;           /* opaque handle echoed in mrc_txinfo.peer (address handle for the adapter) */
    uint32_t sq_psn;         /* first PSN this side sends */
    uint8_t mpr;             /* requester window, units of 128 PSNs, 1..255 (capped by MRC_MAX_INFLIGHT) */
    uint16_t max_wimm;       /* outstanding Write-IMMs, >= 1 */
    uint8_t retry_linear;    /* RETRY: linear retries, 0..7 */
    uint8_t retry_exp;       /* RETRY: exponential retries after them, 0..25 (25 = infinite) */
    uint8_t timeout;         /* ACK timeout 1.024 us * 2^t, t in 0..24 (0 = infinite, as IBTA) */
    mrc_qp_hint hint;        /* default all 0 (nothing known) */
} mrc_conn_attr;

/* Attach a caller-owned conn to the endpoint in RESET. MRC_OK, MRC_ERR_INVAL, MRC_ERR_FULL (no free slot). */
MRC_API int mrc_conn_init(mrc_endpoint *ep, mrc_conn *c, mrc_time now);
/* Detach. Allowed in RESET and ERR only (MRC_ERR_STATE otherwise). Pending events of the conn are discarded. */
MRC_API int mrc_conn_destroy(mrc_conn *c);
/* State transition and attributes. MRC_OK, MRC_ERR_INVAL (missing/unexpected mask bit or value out of range),
 * MRC_ERR_STATE (illegal transition), MRC_ERR_NOENT (unknown profile ID). */
MRC_API int mrc_conn_modify(mrc_conn *c, const mrc_conn_attr *a, uint32_t mask, mrc_time now);
MRC_API int mrc_conn_query(const mrc_conn *c, mrc_conn_attr *a); /* current attributes */
MRC_API uint32_t mrc_conn_qpn(const mrc_conn *c);
MRC_API int mrc_conn_state(const mrc_conn *c);
MRC_API void mrc_conn_set_user(mrc_conn *c, void *user);
MRC_API void *mrc_conn_user(const mrc_conn *c);

/* The common setup in one call: fill a from mrc_conn_attr_default, set dest_qpn, rq_psn, sq_psn and peer from the
 * out-of-band exchange, then mrc_conn_connect walks RESET -> INIT -> RTR -> RTS with the masks below (each step
 * exactly mrc_conn_modify with MRC_ATTR_STATE | MRC_ATTR_<step>_MASK). It stops at the first failing step and
 * returns its error; mrc_endpoint_last_error says which rule failed, and the conn stays in the last state reached. */
#define MRC_ATTR_INIT_MASK (MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE | MRC_ATTR_PKEY | MRC_ATTR_ACCESS | MRC_ATTR_HINT)
#define MRC_ATTR_RTR_MASK                                                                                             \
    (MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU | MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST |             \
     MRC_ATTR_CAPS | MRC_ATTR_PEER)
#define MRC_ATTR_RTS_MASK (MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT)
/* Defaults that work: pkey 0xFFFF, remote write allowed, the built-in EV and CC profiles, path_mtu 4096, windows
 * mpr = mpr_dest = min(8, MRC_MAX_MPR_UNITS, MRC_MAX_INFLIGHT / 128) units (1,024 PSNs), max_wimm = max_wimm_dest =
 * MRC_MAX_WIMM, retries 7 linear + 7 exponential, timeout 14 (1.024 us x 2^14 = 16.8 ms, first RTO; a dead peer is
 * reported 4.4 s after its last answer, docs/PROTOCOL.md P5 RTO schedule). dest_qpn, rq_psn, sq_psn, peer and caps are
 * 0: set them. */
MRC_API void mrc_conn_attr_default(mrc_conn_attr *a);
MRC_API int mrc_conn_connect(mrc_conn *c, const mrc_conn_attr *a, mrc_time now);

/* ---- error detail ---------------------------------------------------------------------------------------------
 * A control call that fails (mrc_endpoint_init, mrc_conn_init/_destroy/_modify/_connect, mrc_ev_fmt_modify,
 * mrc_ev_profile_modify, mrc_ev_op, mrc_cc_profile_modify) records in its endpoint which rule failed and which
 * attribute, field or entry it concerns; a successful control call resets the record (err MRC_OK). Packet, timer and
 * query calls never touch it. mrc_endpoint_init records into the endpoint it was given, so a rejected
 * configuration is explained too. */
enum mrc_detail_call {
    MRC_CALL_NONE = 0, MRC_CALL_ENDPOINT_INIT, MRC_CALL_CONN_INIT, MRC_CALL_CONN_DESTROY, MRC_CALL_CONN_MODIFY,
    MRC_CALL_EV_FMT_MODIFY, MRC_CALL_EV_PROFILE_MODIFY, MRC_CALL_CC_PROFILE_MODIFY, MRC_CALL_EV_OP, MRC_CALL_COUNT
};
enum mrc_detail_code {
    MRC_DETAIL_NONE = 0,
    MRC_DETAIL_NULL_ARG,          /* a required pointer is NULL */
    MRC_DETAIL_NOT_ATTACHED,      /* the conn is not attached to an endpoint (mrc_conn_init) */
    MRC_DETAIL_ALREADY_ATTACHED,  /* mrc_conn_init on a conn already attached */
    MRC_DETAIL_CONN_FULL,         /* every conn slot is taken (MRC_MAX_CONNS) */
    MRC_DETAIL_DESTROY_STATE,     /* mrc_conn_destroy outside RESET and ERR */
    MRC_DETAIL_STATE_VALUE,       /* state is not one of the enum's values */
    MRC_DETAIL_STATE_MISSING,     /* MRC_ATTR_STATE missing: attributes given for a transition never named */
    MRC_DETAIL_TRANSITION,        /* illegal state transition */
    MRC_DETAIL_ATTR_MISSING,      /* the transition requires these mask bits (attr) */
    MRC_DETAIL_ATTR_UNEXPECTED,   /* the transition does not take these mask bits (attr) */
    MRC_DETAIL_PKEY, MRC_DETAIL_ACCESS, MRC_DETAIL_EV_PROFILE, MRC_DETAIL_CC_PROFILE, MRC_DETAIL_CCX_FULL,
    MRC_DETAIL_DEST_QPN, MRC_DETAIL_PSN, MRC_DETAIL_PATH_MTU, MRC_DETAIL_MPR_DEST, MRC_DETAIL_MAX_WIMM_DEST,
    MRC_DETAIL_CAPS, MRC_DETAIL_MPR, MRC_DETAIL_MAX_WIMM, MRC_DETAIL_RETRY, MRC_DETAIL_TIMEOUT,
    /* mrc_config (index: the DSCP class for CFG_DSCP) */
    MRC_DETAIL_CFG_PORTS, MRC_DETAIL_CFG_QPN_BASE, MRC_DETAIL_CFG_WIRE, MRC_DETAIL_CFG_DSCP, MRC_DETAIL_CFG_EV_SPORT,
    MRC_DETAIL_CFG_EVS_PER_PORT, MRC_DETAIL_CFG_BACKUP_PCT, MRC_DETAIL_CFG_REVIVE, MRC_DETAIL_CFG_EVENT_MASK,
    MRC_DETAIL_CFG_SACK_EVERY, MRC_DETAIL_CFG_EV_MAX_WIDTH, MRC_DETAIL_CFG_POOL_BLOCKS,
    /* profiles (index: the field or EV entry concerned) */
    MRC_DETAIL_PROFILE_ID,        /* ID 0 names the built-in profile, which cannot be modified */
    MRC_DETAIL_MASK,              /* a mask bit the call does not define (attr) */
    MRC_DETAIL_PROFILE_ONLINE,    /* an ONLINE profile takes STATE only (and EVENT_MASK for an EV profile) */
    MRC_DETAIL_PROFILE_BUSY,      /* still used by QPs or by an ONLINE EV profile */
    MRC_DETAIL_PROFILE_FULL,      /* no free profile slot */
    MRC_DETAIL_FMT_MODE, MRC_DETAIL_FIELD_COUNT, MRC_DETAIL_FIELD_WIDTH, MRC_DETAIL_FMT_TOO_WIDE,
    MRC_DETAIL_EV_MAX_WIDTH, MRC_DETAIL_FIELDS_MISSING, MRC_DETAIL_EV_MODE, MRC_DETAIL_EV_COUNT,
    MRC_DETAIL_EVENT_MASK, MRC_DETAIL_MIN_ACTIVE, MRC_DETAIL_FIELD_INIT_VAL, MRC_DETAIL_FIELD_MASK,
    MRC_DETAIL_FIELD_RANGE, MRC_DETAIL_FIELD_FIXED, MRC_DETAIL_ABSTRACT_WIDTH, MRC_DETAIL_FMT_UNKNOWN,
    MRC_DETAIL_FMT_NOT_ONLINE, MRC_DETAIL_EV_UNPOPULATED, MRC_DETAIL_EV_EXPAND, MRC_DETAIL_EV_MODE_CHANGED,
    MRC_DETAIL_CC_ALGORITHM, MRC_DETAIL_CC_CONFIG, MRC_DETAIL_CC_CONFIG_MISSING,
    /* mrc_ev_op (index: the entry) */
    MRC_DETAIL_EV_OP, MRC_DETAIL_PROFILE_UNKNOWN, MRC_DETAIL_ARRAY_ROOM, MRC_DETAIL_EV_NOT_FOUND,
    MRC_DETAIL_EV_STATE, MRC_DETAIL_EV_PORT,
    MRC_DETAIL_CFG_EV_POLICY,     /* mrc_config.ev: a scope, reply or retire value out of range */
    MRC_DETAIL_COUNT
};
typedef struct mrc_detail {
    int16_t err;    /* what the call returned; MRC_OK when the last control call succeeded */
    uint8_t call;   /* enum mrc_detail_call */
    uint8_t pad_;
    uint16_t code;  /* enum mrc_detail_code: the rule */
    uint16_t index; /* EV field or EV entry concerned (0 otherwise) */
    uint32_t attr;  /* the call's attribute mask bits concerned (MRC_ATTR_*, MRC_EV_FMT_ATTR_*, ...), or 0 */
} mrc_detail;
/* The record of the last control call on ep. MRC_OK, MRC_ERR_INVAL (NULL). */
MRC_API int mrc_endpoint_last_error(const mrc_endpoint *ep, mrc_detail *out);
/* One line of text for a detail, e.g. "mrc_conn_modify: MRC_ERR_INVAL: the transition requires attributes not in the
 * mask: MRC_ATTR_DEST_QPN|MRC_ATTR_PATH_MTU". Always NUL-terminated (truncated to cap); returns the length written.
 * Under MRC_NO_STRINGS it writes "". */
MRC_API size_t mrc_detail_format(const mrc_detail *d, char *buf, size_t cap);
MRC_API const char *mrc_detail_name(unsigned code); /* the rule's text alone */

enum mrc_wr_opcode {
    MRC_WR_WRITE = 0, MRC_WR_WRITE_IMM = 1,
    /* verbs operations MRC does not have; posting them returns MRC_ERR_NOTSUP */
    MRC_WR_SEND = 2, MRC_WR_SEND_IMM = 3, MRC_WR_READ = 4, MRC_WR_ATOMIC_CAS = 5, MRC_WR_ATOMIC_FADD = 6
};
enum { MRC_WR_UNSIGNALED = 1u << 0, MRC_WR_SOLICITED = 1u << 1 };
#define MRC_MAX_MSG_LEN 0x80000000u /* 2 GiB, as IBTA */

typedef struct mrc_write {
    uint64_t wr_id;
    uint32_t opcode;         /* enum mrc_wr_opcode */
    uint32_t flags;          /* MRC_WR_* */
    const void *buf;         /* caller-owned until MRC_EVT_SEND_DONE; may be NULL when len == 0 */
    uint32_t len;            /* 0..MRC_MAX_MSG_LEN */
    uint64_t remote_va;
    uint32_t rkey;
    uint32_t imm;            /* WRITE_IMM only */
} mrc_write;

/* Post a write. MRC_OK, MRC_ERR_NOTSUP (not WRITE/WRITE_IMM), MRC_ERR_INVAL, MRC_ERR_STATE (not RTS),
 * MRC_ERR_FULL (send queue full, including completions not yet pulled). */
MRC_API int mrc_conn_post_write(mrc_conn *c, const mrc_write *w, mrc_time now);
/* Post a receive for one Write-with-Immediate. MRC_OK, MRC_ERR_STATE (RESET or ERR), MRC_ERR_FULL.
 * Post receives before the peer's Write-IMMs can complete: a Write-IMM that arrives with none posted is placed and
 * acknowledged (the writer's MRC_EVT_SEND_DONE comes as usual), but its immediate is held and MRC_EVT_RECV_IMM is
 * not raised until a receive is posted; immediates are then delivered in message order, one per receive. At most
 * attr.max_wimm_dest immediates wait so; one more is an invalid request that moves the connection to ERR. */
MRC_API int mrc_conn_post_recv(mrc_conn *c, uint64_t wr_id, mrc_time now);

/* ---- congestion control (docs/PROTOCOL.md section 8) --------------------------------------------------------------
 * A QP's CC profile (named at RESET -> INIT) picks the algorithm; the QPs to one peer (mrc_conn_attr.peer) on one
 * profile share a congestion context: one window, one bytes-in-flight count. Profile 0 is built in (mrc_config
 * cc_algo, line_rate_mbps, base_rtt_ns, fixed_cwnd_bytes). Profiles move INIT -> OFFLINE -> ONLINE. */
enum { MRC_CC_ALGO_NONE = 0, MRC_CC_ALGO_NSCC = 1, MRC_CC_ALGO_FIXED = 2 };
#define MRC_CC_NSCC "uet-1.0-nscc"      /* the OCP common algorithm string */
#define MRC_CC_FIXED "mrc-fixed-window" /* this project's fixed window (tests, baselines) */

/* NSCC parameters, as the OCP struct mrc_ctl_cc_nscc_cfg; 0 in a field takes the default derived from the line
 * rate and base RTT (docs/PROTOCOL.md 8.4). The float fields are converted once, at configuration time; without floats
 * (MRC_NO_FLOAT, or 0 there) the _q16 fields (value x 65536) or plain bytes are used. */
typedef struct mrc_nscc_cfg {
    uint8_t disable_qa;               /* no quick adapt */
    uint8_t qa_gate;                  /* quick adapt only while achieved < max_cwnd >> qa_gate (default 3) */
    uint32_t adjust_bytes_threshold;  /* bytes (default 8 MTU) */
    uint32_t adjust_period_threshold; /* ns (default base RTT) */
    uint32_t base_rtt;                /* ns (default mrc_config.cc.base_rtt_ns) */
    uint32_t max_cwnd;                /* bytes (default 1.5 BDP) */
    uint32_t qa_threshold;            /* ns (default 4 x target) */
    uint32_t target_delay;            /* ns (default 0.75 base RTT with trimming, else base RTT) */
#ifndef MRC_NO_FLOAT
    float eta, fi, fi_scale, gamma, max_md_jump;
#endif
    uint32_t eta_bytes, fi_bytes;     /* additive increase per period; fair-increase constant (bytes) */
    uint32_t fi_scale_q16, gamma_q16; /* fast-increase scale; decrease aggressiveness */
    uint32_t max_md_jump_q16;         /* largest share of the window one decrease takes (default 0.5) */
} mrc_nscc_cfg;

typedef struct mrc_cc_profile_attr {
    uint8_t state;                    /* enum mrc_profile_state */
    const char *algorithm;            /* MRC_CC_NSCC, MRC_CC_FIXED, or NULL: no congestion control */
    mrc_nscc_cfg nscc;                /* CONFIG of NSCC */
    uint32_t fixed_cwnd;              /* CONFIG of the fixed window: bytes, > 0 */
} mrc_cc_profile_attr;
#define MRC_CC_PROF_ATTR_STATE ((uint32_t)1 << 0)
#define MRC_CC_PROF_ATTR_ALGORITHM ((uint32_t)1 << 1)
#define MRC_CC_PROF_ATTR_CONFIG ((uint32_t)1 << 2)
/* To OFFLINE: ALGORITHM; to ONLINE: CONFIG (now or before; none needed without CC); ONLINE -> OFFLINE: MRC_ERR_BUSY
 * while QPs use it; CONFIG may change ONLINE (the next congestion context created takes it). MRC_ERR_INVAL,
 * MRC_ERR_STATE, MRC_ERR_FULL, MRC_ERR_NOTSUP (unknown algorithm string); query: MRC_ERR_NOENT. */
MRC_API int mrc_cc_profile_modify(mrc_endpoint *ep, uint64_t id, const mrc_cc_profile_attr *a, uint32_t mask);
MRC_API int mrc_cc_profile_query(const mrc_endpoint *ep, uint64_t id, mrc_cc_profile_attr *a);

/* A QP's scheduling state (spec Figure 4) and its congestion context's window. */
enum { MRC_SCHED_IDLE = 0, MRC_SCHED_ACTIVE, MRC_SCHED_READY, MRC_SCHED_PENDING };
typedef struct mrc_cc_info {
    uint8_t sched;            /* MRC_SCHED_*: IDLE nothing to send; ACTIVE data and window; READY data, window
                                 closed; PENDING nothing new to send, packets in flight */
    uint8_t algo;             /* MRC_CC_ALGO_* */
    uint16_t ctx_qps;         /* QPs sharing the context */
    uint64_t cwnd, inflight;  /* bytes (nominal) of the context */
    uint32_t base_rtt_ns, avg_delay_ns, target_ns;
    uint64_t maxwnd;
} mrc_cc_info;
MRC_API int mrc_conn_cc_info(const mrc_conn *c, mrc_cc_info *out); /* MRC_OK, MRC_ERR_INVAL */
/* Host backpressure (Q12 receiver penalty): a receiver penalty 0..127 every SACK of this endpoint carries while it is
 * set. */
MRC_API int mrc_endpoint_rx_pressure(mrc_endpoint *ep, unsigned penalty); /* MRC_OK, MRC_ERR_INVAL */

/* ---- EV formats, EV profiles and path state (docs/PROTOCOL.md section 7) ----------------------------------------
 * Modelled on the OCP control API (mrc_ctl.h): EV Format profiles describe how an expanded EV sits in the packet
 * (field widths, mode); EV profiles describe the EVs themselves (fields with init value, mask and generation
 * range) and hold the EV array, written by the controller (EXP) or generated from the seeded PRNG (GEN). A QP
 * names its EV profile at RESET -> INIT; profile 0 is the built-in AUTO profile (random UDP source ports,
 * mrc_config.auto_ev.per_port per port). Profiles move INIT -> OFFLINE -> ONLINE -> OFFLINE -> INIT; an unknown ID is in
 * INIT. Every call returns MRC_OK or a negative mrc_err. */
enum mrc_ev_fmt_mode {
    MRC_EV_FMT_STEV = 1u << 0, /* up to 32 bits in the UDP source port and the IPv6 flow label (Q16 STEV header mapping)
                                  */
    MRC_EV_FMT_SRV6 = 1u << 1, /* up to 128 bits: outer IPv6 DA (locator + uSIDs); up to 256 with one SRH segment */
    MRC_EV_FMT_UDP = 1u << 2   /* up to 16 bits in the UDP source port */
};
enum mrc_ev_mode { MRC_EV_MODE_AUTO = 1u << 0, MRC_EV_MODE_EXP = 1u << 1, MRC_EV_MODE_GEN = 1u << 2 };
enum mrc_profile_state { MRC_PROFILE_INIT = 0, MRC_PROFILE_OFFLINE = 1, MRC_PROFILE_ONLINE = 2 };
/* EV states as the control API reports them; the transient SKIP state is reported as GOOD */
#define MRC_EVS_GOOD ((uint32_t)1 << 0)
#define MRC_EVS_ASSUMED_BAD ((uint32_t)1 << 1)
#define MRC_EVS_DENIED ((uint32_t)1 << 2)
#define MRC_EVS_UNKNOWN ((uint32_t)1 << 31)

typedef struct mrc_ev_field {  /* one field of an EV profile (OCP struct mrc_ctl_ev_field) */
    uint32_t width;            /* bits, 1..32, at most the matching format field's width */
    uint32_t init_val;         /* the field before EV bits are overlaid; fits the width */
    uint32_t min_val, max_val; /* GEN: range of the popcount(mask) generated bits; 0, 0 = any non-zero value */
    uint32_t mask;             /* where EV bits land in the field, inside the width; 0 = a fixed field */
} mrc_ev_field;
/* An EV as the controller sees it: the abstract (compressed) value, most significant bit first from val[0] bit 7,
 * and the 1-based port (plane) it leaves on; port 0 = unpopulated. */
typedef struct mrc_ev { uint8_t val[MRC_EV_BYTES]; uint8_t port; } mrc_ev;

typedef struct mrc_ev_fmt_attr {
    uint8_t state;             /* enum mrc_profile_state: the target (modify) or the current state (query) */
    uint8_t mode;              /* enum mrc_ev_fmt_mode */
    uint8_t nfields;           /* 1..MRC_MAX_EV_FIELDS */
    uint8_t width[MRC_MAX_EV_FIELDS]; /* bits per field, 1..32 */
} mrc_ev_fmt_attr;
#define MRC_EV_FMT_ATTR_STATE ((uint32_t)1 << 0)
#define MRC_EV_FMT_ATTR_MODE ((uint32_t)1 << 1)
#define MRC_EV_FMT_ATTR_FIELDS ((uint32_t)1 << 2)

typedef struct mrc_ev_profile_attr {
    uint8_t state;             /* enum mrc_profile_state */
    uint8_t mode;              /* MRC_EV_MODE_EXP or MRC_EV_MODE_GEN */
    uint8_t nfields;           /* 1..MRC_MAX_EV_FIELDS, at most the format's */
    uint64_t fmt_id;           /* an EV Format profile, ONLINE when this profile goes ONLINE */
    uint32_t ev_count;         /* EVs in the array, 1..MRC_MAX_EVS */
    uint32_t ev_min_active;    /* EVs that keep carrying data whatever the losses, <= ev_count */
    uint32_t event_mask;       /* MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD: which transitions raise MRC_EVT_EV_STATE */
    mrc_ev_field field[MRC_MAX_EV_FIELDS];
} mrc_ev_profile_attr;
#define MRC_EV_PROF_ATTR_STATE ((uint32_t)1 << 0)
#define MRC_EV_PROF_ATTR_MODE ((uint32_t)1 << 1)
#define MRC_EV_PROF_ATTR_FMT_ID ((uint32_t)1 << 2)
#define MRC_EV_PROF_ATTR_COUNT ((uint32_t)1 << 3)
#define MRC_EV_PROF_ATTR_MIN_ACTIVE ((uint32_t)1 << 4)
#define MRC_EV_PROF_ATTR_EVENT_MASK ((uint32_t)1 << 5)
#define MRC_EV_PROF_ATTR_FIELDS ((uint32_t)1 << 6)

/* EV Format profiles. To OFFLINE: MODE (and FIELDS, here or later); to ONLINE: FIELDS given; ONLINE -> OFFLINE:
 * MRC_ERR_BUSY while an ONLINE EV profile uses it; OFFLINE -> INIT forgets it. In ONLINE only STATE may change.
 * MRC_ERR_INVAL (bad value, widths over the mode's limit: UDP 16, STEV 32, SRV6 256 bits), MRC_ERR_STATE (illegal
 * transition or change), MRC_ERR_FULL (no free slot), MRC_ERR_BUSY. Query: MRC_ERR_NOENT for an unknown ID. */
MRC_API int mrc_ev_fmt_modify(mrc_endpoint *ep, uint64_t id, const mrc_ev_fmt_attr *a, uint32_t mask);
MRC_API int mrc_ev_fmt_query(const mrc_endpoint *ep, uint64_t id, mrc_ev_fmt_attr *a);
/* EV profiles (ID 0 is AUTO and cannot be modified). To OFFLINE: MODE, FMT_ID, COUNT, FIELDS; to ONLINE:
 * MIN_ACTIVE and EVENT_MASK given (now or before), the format ONLINE, and for EXP every EV populated (REPLACE);
 * a GEN profile's EVs are generated on the way to ONLINE. ONLINE -> OFFLINE: MRC_ERR_BUSY while QPs use it. In
 * ONLINE, EVENT_MASK may change. Errors as for formats, plus MRC_ERR_NOENT for an unknown format. */
MRC_API int mrc_ev_profile_modify(mrc_endpoint *ep, uint64_t id, const mrc_ev_profile_attr *a, uint32_t mask,
                                  mrc_time now);
MRC_API int mrc_ev_profile_query(const mrc_endpoint *ep, uint64_t id, mrc_ev_profile_attr *a);

/* EV operations on a profile's array, entry by entry; *n is in: entries given, out: entries done (QUERY_ARRAY:
 * in: room, out: ev_count). It stops at the first failing entry and returns its error (MRC_ERR_NOENT: no such
 * EV; MRC_ERR_INVAL: bad state or an abstract value the profile cannot expand; MRC_ERR_NOBUF: QUERY_ARRAY room).
 *   REPLACE       ev (val + port; an unpopulated entry has port 0) -> ev_new, taking state (GOOD or DENIED); the
 *                 first match, or every match with MRC_EV_OP_F_ALL_COPIES. QPs using the profile follow at once.
 *   MODIFY_STATE  state of every entry matching ev: DENIED (never carries data), GOOD (clears DENIED and any QP's
 *                 ASSUMED_BAD) or ASSUMED_BAD (every QP demotes it, ev_min_active notwithstanding).
 *   QUERY_STATE   state: DENIED, else ASSUMED_BAD when some QP holds it so, else GOOD.
 *   QUERY_ARRAY   ev and state of entry i into e[i]. */
enum { MRC_EV_OP_REPLACE = 0, MRC_EV_OP_MODIFY_STATE = 1, MRC_EV_OP_QUERY_STATE = 2, MRC_EV_OP_QUERY_ARRAY = 3 };
#define MRC_EV_OP_F_ALL_COPIES ((uint32_t)1 << 0)
typedef struct mrc_ev_op_entry { mrc_ev ev, ev_new; uint32_t state; uint32_t flags; } mrc_ev_op_entry;
MRC_API int mrc_ev_op(mrc_endpoint *ep, uint64_t profile_id, unsigned op, mrc_ev_op_entry *e, uint32_t *n,
                      mrc_time now);
/* The EV set of a carrier whose EVs are UDP source ports, in one call (what the UDP, DPDK and ibverbs adapters do):
 * EV Format fmt_id in MRC_EV_FMT_UDP mode (one 16-bit field) and EXP EV profile prof_id with n EVs, EV i = UDP
 * source port sports[i] on port ports[i]; ev_min_active = min_active; events for GOOD and ASSUMED_BAD. Both end
 * ONLINE. Returns MRC_OK or the first failing call's error (its detail in the endpoint, mrc_endpoint_last_error). */
MRC_API int mrc_ev_profile_udp(mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, const uint8_t *ports,
                               const uint16_t *sports, unsigned n, unsigned min_active, mrc_time now);
/* The same for the layout every adapter uses: planes x evs_per_plane EVs, EV i on port i % planes + 1 (consecutive
 * EVs alternate planes) with source port sport_base + (port - 1) * evs_per_plane + i / planes, so plane p's EVs are
 * the consecutive ports sport_base + (p - 1) * evs_per_plane ... MRC_ERR_INVAL when planes is 0 or above the
 * endpoint's num_ports, evs_per_plane is 0, the product exceeds MRC_MAX_EVS or the ports run past 65535. */
MRC_API int mrc_ev_profile_udp_planes(mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, unsigned planes,
                                      unsigned evs_per_plane, unsigned sport_base, unsigned min_active, mrc_time now);
/* P26 hop groups of an EV profile (OFFLINE or ONLINE): EV i shares a known hop (a T0 uplink, a T1 switch) with the
 * profile's other EVs of group[i] (0 = none; n may be below ev_count: the rest get none). With
 * mrc_config.ev.group_retire a confirmed silent loss on one retires every EV of its group in that QP (each then
 * probed back on its own); QPs use the groups from their next such loss. MRC_ERR_INVAL (NULL, n above ev_count,
 * profile 0), MRC_ERR_NOENT (no such profile in OFFLINE or ONLINE). O(n^2) once, at configuration. */
MRC_API int mrc_ev_profile_groups(mrc_endpoint *ep, uint64_t prof_id, const uint16_t *group, unsigned n);

/* The EV expansion algorithm (docs/PROTOCOL.md 7.1) and the profile checks, for controllers and tests. expand writes
 * the expanded EV (the format's total width, most significant bit first, zero-padded) and returns its width in bits,
 * or MRC_ERR_INVAL (invalid profile, or abstract bits left over past the fields' masks). */
MRC_API int mrc_ev_profile_check(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nfields);
MRC_API int mrc_ev_expand(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nfields, const uint8_t *abs,
                          size_t abs_len, uint8_t *out, size_t out_len);

/* Header fields an adapter writes for a packet's EV: the UDP source port, the IPv6 flow label, and in SRv6 mode
 * the outer destination address and SRH segment. MRC_OK or MRC_ERR_INVAL. */
typedef struct mrc_ev_hdrs {
    uint16_t udp_sport;
    uint32_t flow_label;       /* 20 bits; 0 when the format puts nothing there */
    uint8_t has_srv6, has_srh;
    uint8_t srv6_da[16], srh_seg[16];
} mrc_ev_hdrs;
MRC_API int mrc_endpoint_ev_headers(const mrc_endpoint *ep, const mrc_txinfo *ti, mrc_ev_hdrs *out);

/* A QP's EV set, per port: what carries data now, what waits, what is bad. MRC_OK or MRC_ERR_INVAL. */
typedef struct mrc_ev_port_summary { uint16_t active, skipped, backup, bad, denied, off; } mrc_ev_port_summary;
MRC_API int mrc_conn_ev_summary(const mrc_conn *c, mrc_ev_port_summary out[MRC_MAX_PORTS]);
/* One EV of a QP: entropy, port and MRC_EVS_* state. MRC_OK, MRC_ERR_NOENT (index past the set), MRC_ERR_INVAL. */
MRC_API int mrc_conn_ev_get(const mrc_conn *c, unsigned index, uint32_t *ev, uint8_t *port, uint32_t *state);
MRC_API unsigned mrc_conn_ev_count(const mrc_conn *c);
/* Internal consistency of a QP's EV bookkeeping, for tests and fuzzers: 0, a positive number naming the first broken
 * rule, or MRC_ERR_INVAL; MRC_ERR_NOTSUP when built with MRC_NO_CHECK (the checker compiled out). Compiling with
 * MRC_CHECK_INVARIANTS asserts it after every received packet and timer run.
 * Rule 11 is liveness (docs/PROTOCOL.md 7.11): a QP in RTS with work is in the transmit round-robin, on its
 * congestion context's READY list behind bytes in flight or behind a QP of that list with its pacing deadline armed,
 * has a timer armed (a finite deadline), or waits for in-flight memory on the endpoint's pool list - and rule 12:
 * only while no pool block is free or retained. Rules 13 and 14: every PSN in flight has its live pool block, and
 * the record lists (transmit, retransmission) hold only those PSNs. Rule 15: each block in its table is its own, and
 * a retained one is linked in the FIFO of retained blocks. Rule 16: its timer-heap key is the earliest of its
 * timers, and it is in the heap exactly when that is finite. Rule 17 (P23 EV recycling): each plane's FIFO of recycled
 * EVs lies in its segment, and only ACTIVE EVs have valid entries. Rule 18 (P26 hop groups): its profile's hop-group
 * rings stay inside its EV set, each link within one group. Rule 19: its proven EV (docs/PROTOCOL.md P25 hashed-EV
 * bypass knobs) is none or one of its EVs.
 * Rule 20 (P28 mirror reverse path): its profile's entropy index finds each of its EVs. Rule 21 (P29 suspect hold):
 * only a skipped EV has a hold, of at most 8 rounds, or P35 sweeps's hold. Rule 22 (P33 TLP copies): the tail-loss
 * probe's other copy is awaited only with the probe, on one of its EVs. Rule 23 (P35): its verification queue stays
 * within its EV set; an EV is marked as probed only while held for verification with a verification probe naming it,
 * and while a verification probe is out the verification deadline is armed. */
MRC_API int mrc_conn_check(const mrc_conn *c);

/* ---- endpoint operations (ERTH/EETH to QP 0x2; they consume no PSN; only the core's own PSUs are resent) -------- */
typedef struct mrc_ep_req {
    uint16_t req_id;           /* unique among requests awaiting an answer */
    uint8_t op;                /* MRC_EPOP_EV_PROBE or MRC_EPOP_PORT_STATUS_UPDATE */
    uint8_t port;              /* 1-based egress port */
    int16_t dscp;              /* IP DSCP codepoint, or -1 for the CONTROL class */
    uint8_t ev_fmt;            /* format of ev and path */
    uint8_t path_len;          /* 0, 16 or 32 (SRv6) */
    uint32_t peer;             /* the adapter's handle of the destination */
    uint32_t ev;               /* entropy (finished wire value, as the OCP API's req_ev) */
    uint8_t path[MRC_EV_BYTES];
    uint32_t port_status;      /* PORT_STATUS_UPDATE: mask to announce; 0 = this endpoint's usable ports */
    uint32_t timeout_ns;       /* MRC_EVT_EP_TIMEOUT after this long without an answer (0 = 1 ms) */
} mrc_ep_req;
/* Queue an endpoint request; its answer arrives as MRC_EVT_EP_RESPONSE with the round-trip time. MRC_OK,
 * MRC_ERR_INVAL (bad field, req_id in use, port down), MRC_ERR_FULL (too many requests awaiting answers, or the
 * packet queue is full). */
MRC_API int mrc_endpoint_ep_request(mrc_endpoint *ep, const mrc_ep_req *r, mrc_time now);

/* ---- names (empty strings under MRC_NO_STRINGS) -------------------------------------------------------------- */
MRC_API const char *mrc_opcode_name(unsigned opcode);
MRC_API const char *mrc_nack_name(unsigned reason);
MRC_API const char *mrc_drop_name(unsigned reason);
MRC_API const char *mrc_state_name(unsigned state);
MRC_API const char *mrc_event_name(unsigned type);

/* ---- trace ids (append-only; MRC_ENABLE_TRACE) -------------------------------------------------------------- */
enum {
    MRC_TRACE_TX = 1,         /* a = opcode << 24 | psn, b = ev */
    MRC_TRACE_RX,             /* a = opcode << 24 | psn, b = port */
    MRC_TRACE_DROP,           /* a = drop reason, b = opcode */
    MRC_TRACE_LOSS,           /* a = psn, b = reason (1 sack hole, 2 rto, 3 probe) */
    MRC_TRACE_RTO,            /* a = retry count, b = interval ns */
    MRC_TRACE_STATE,          /* a = qpn, b = new state */
    MRC_TRACE_EV_STATE,       /* a = qpn << 16 | EV index, b = MRC_EVS_* state */
    MRC_TRACE_EV_PROBE,       /* a = qpn << 16 | EV index, b = 1 answered, 0 timed out */
    MRC_TRACE_EPOP,           /* a = opcode << 8 | op, b = req_id */
    MRC_TRACE_EV_SWEEP        /* P35 sweeps: a = qpn << 16 | port, b = EVs held by the sweep */
};

#endif /* MRC__SRC_API_H */
