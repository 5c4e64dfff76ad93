#ifndef MRC__SRC_TYPES_H
#define MRC__SRC_TYPES_H
#include "api.h"
/* ================================================================================================================
 * Internal state. The structs are public only so callers can allocate them; touch them through the API.
 *
 * Glossary of the abbreviations in the names below and in the sources (docs/PROTOCOL.md has the protocol's terms):
 *   act        active: an EV in its port's rotation, carrying data
 *   bk         backup: a good EV held as a spare for its port
 *   btab, pblk a QP's table of in-flight pool blocks; a pool block (64 PSNs of requester state, P21)
 *   cack       the responder's cumulative acknowledgement (SETH cack_psn)
 *   ccx        congestion context: a peer and a CC profile, whose QPs share one window
 *   ctl, ctlq  a control packet (SACK, NACK, transport ACK); a QP's queue of them
 *   ctq, txq, evq  the endpoint's queues of QPs with control packets, with requester work, with events to pull
 *   dlv        an EV's delivery stamp (P35 sweeps)
 *   epop       endpoint operation: a packet to QP 0x2 (PORT_STATUS_UPDATE, EV_PROBE); epq their queue; epreq and
 *              psureq the requests awaiting answers
 *   ev, evs    entropy value (a path); a QP's EV slots
 *   evr        the EV rotation of a port
 *   evp        the rounds of probes of ASSUMED_BAD EVs (Q8 EV health timers)
 *   hw         high water
 *   imm, imms  an immediate (Write-IMM); the ones stashed until delivered in MSN order
 *   lat        latest
 *   mpr        the responder's window (maximum PSN range), in units of 128 PSNs
 *   msn        message sequence number
 *   ooo        out of order
 *   pen        receiver penalty (Q12)
 *   plist      a list of PSNs linked through their records (txl, rtxq)
 *   psu        PORT_STATUS_UPDATE
 *   rc         recycle: a port's ring of clean returns (P23 EV recycling)
 *   reo        reorder: the reorder deadline (P32 reorder timer)
 *   rq, rqe    receive queue; a posted receive
 *   rtxq       the retransmission queue
 *   sq, wr     send queue; a work request
 *   sw         sweep (P35 sweeps): sw_at, sw_ref, sw_backoff, sw_found
 *   tat        theoretical arrival time of a GCRA rate limit (P19)
 *   tlp, tlp2  tail-loss probe; its second copy (P33 TLP copies)
 *   txl        transmit list: the records in flight in the order they were sent (P3 send-order loss detection)
 *   ver        verification (P35): the EVs a sweep holds until a probe or a SACK shows their path works
 *   wimm       Write-IMM messages awaiting their receive (Q23 WIMM overflow)
 * ============================================================================================================== */
#define MRC__RSP_BITS (MRC_MAX_MPR_UNITS * 128)
#define MRC__LATE_N 64u               /* P41 late arrivals: the responder remembers the last 64 */
#define MRC__LATE_VALID 0x80000000u   /* mrc_conn.late_psn: the entry holds a PSN */
/* P37 bursts: QPs whose per-packet work an mrc_endpoint_recv_burst defers to its end, at most this many at once */
#define MRC__BURST_QPS (MRC_MAX_CONNS < 32 ? MRC_MAX_CONNS : 32)
#define MRC__BURST_DIRTY 1u    /* conn->bflags: queued on burst_q; sched_tx and the timer key at the end */
#define MRC__BURST_SACK 2u     /* SACKs of the burst: NSCC's update from bs_* and the RTO/TLP re-arm at the end */
#define MRC__BURST_PROGRESS 4u /* ... and one of them made progress */
#define MRC__BURST_CC 8u       /* NSCC samples of the burst summed in bs_*: one update at the end */

/* An EV slot index, 0..MRC_MAX_EVS-1 (one byte while the set fits it). */
#if MRC_MAX_EVS <= 256
typedef uint8_t mrc__evslot;
#else
typedef uint16_t mrc__evslot;
#endif

/* One EV slot of a QP. Slot i of a QP on an EV profile is EV i of the profile's array: its value (entropy, path) is
 * read there, stored once per profile (mrc__ev_value). */
typedef struct mrc__ev {
    uint16_t sport;           /* AUTO only: the UDP source port drawn for it (the entropy on the wire); else 0 */
    uint16_t at;              /* ACTIVE or SKIP: its position in its port's segment of ring[]; BACKUP or BAD: the next
                               * slot of its backup stack or of the bad FIFO (MRC__EV_NONE: the last); else unused */
    uint8_t port;             /* 1-based egress port (a profile's EV: a copy of the profile's, read per packet) */
    uint8_t st;               /* MRC__EVS_* in bits 2:0, MRC__EVF_* flags, probe answer count in bits 6:4 */
    uint8_t rc;               /* P23 EV recycling: its clean returns waiting in its port's recycle ring (0 unless
                                 ACTIVE) */
    uint8_t hold;             /* P29 suspect hold, SKIP only: rounds of its port it still sits out awaiting a loss
                                 verdict; P35 sweeps:
                               * MRC__HOLD_VER, held until verified */
    uint16_t dlv;             /* P35 sweeps: send time, in units of 256 ns (mod 2^16), of the latest packet on it a SACK
                                 named */
} mrc__ev;
#define MRC__HOLD_VER 0xFFu   /* P35 sweeps: the hold of a skipped EV awaiting verification (not a count of rounds) */
#define MRC__EVF_VPROBE 0x80u /* P35 sweeps, a skipped EV held for verification: its verification probe is out */
#define MRC__EVF_VRETRY 0x10u /* P35 sweeps, ... its first verification probe went unanswered: this is the second */

/* A reliability probe (slot 0: tail loss; others: ASSUMED_BAD EVs); to be sent by poll_tx while its bit of
 * c->probes_due is set, else awaiting its SACK. Its send time is c->probe_sent[i]. */
typedef struct mrc__probe {
    mrc__evslot slot;         /* EV it went on */
    uint8_t kind;             /* MRC__PROBE_* */
} mrc__probe;

typedef struct mrc__evfmt {   /* an EV Format profile; a.nfields 0 = fields not given yet */
    uint64_t id;
    uint8_t used;
    mrc_ev_fmt_attr a;
} mrc__evfmt;

typedef struct mrc__event {   /* one EV of an EV profile's array */
    uint8_t val[MRC_EV_BYTES];  /* abstract value (controller's view) */
    uint8_t path[MRC_EV_BYTES]; /* expanded (SRv6 DA + SRH) */
    uint32_t entropy;         /* what travels in the UDP source port / flow label */
    uint16_t bad_refs;        /* QPs holding it ASSUMED_BAD */
    uint16_t group;           /* P26 hop groups: hop group (mrc_ev_profile_groups), 0 = none */
    uint16_t grp_nx;          /* P26 hop groups: 1 + the next EV of its group, round the ring (back to itself); 0 = no
                                 group */
    uint8_t port, denied;
} mrc__event;

#define MRC__EVH (2u * MRC_MAX_EVS) /* P28 mirror reverse path: entries of a profile's entropy index (at most half full)
                                       */
typedef struct mrc__evprof {  /* an EV profile */
    uint64_t id;
    uint8_t used, state, mode, nfields, have, fmt_mode, path_len; /* used at 8, as in each profile table */
    uint16_t refs;            /* QPs using it */
    uint32_t ev_count, ev_min_active, event_mask;
    uint64_t fmt_id;
    mrc_ev_field field[MRC_MAX_EV_FIELDS];
    mrc__event ev[MRC_MAX_EVS];
    uint16_t hix[MRC__EVH];   /* P28 mirror reverse path: entropy -> 1 + EV index, open addressing (0 = empty);
                                 mrc__prof_index */
} mrc__evprof;

typedef struct mrc__epkt {    /* a queued endpoint-operation packet (ERTH request or EETH response) */
    uint8_t rsp, op, port, ev_fmt, path_len, dscp;
    uint16_t req_id, ts;
    uint32_t ev, peer, mask;
    uint8_t path[MRC_EV_BYTES];
} mrc__epkt;

typedef struct mrc__nscc_prm { /* NSCC parameters in integer form, per congestion context */
    uint64_t maxwnd, bdp;
    uint32_t target, base_rtt, qa_threshold, adjust_period, adjust_bytes, min_cwnd; /* min_cwnd: one packet */
    uint32_t floor;             /* the window's least value: min_cwnd, or below it with sub-packet pacing (P24
                                   sub-packet windows) */
    uint32_t eta, fi;           /* bytes */
    uint32_t fi_scale_q16, gamma_q16, md_floor_q16, alpha_q16; /* alpha: bytes per ns of delay below target */
    uint8_t qa_gate, disable_qa, maxwnd_set, trimming;
    uint8_t subpkt;             /* P24 sub-packet windows: a window below one packet paces the context (floor <
                                   min_cwnd) */
    uint8_t lh_mark_rtts;       /* P30 last-hop trim mark: SACKs count as marked for this many base RTTs after a
                                   last-hop trim */
} mrc__nscc_prm;

typedef struct mrc__ccprof {  /* a CC profile */
    uint64_t id;
    uint8_t used, state, algo, have_cfg;
    uint16_t refs;
    mrc_nscc_cfg nscc;
    uint32_t fixed_cwnd;
} mrc__ccprof;

typedef struct mrc__ccx {     /* a congestion context: the QPs to one peer on one CC profile */
    uint64_t profile_id;
    uint32_t peer;
    uint16_t refs, ready_head, ready_tail; /* QPs using it; FIFO of READY QPs (conn slots) */
    uint8_t used, algo;
    uint64_t cwnd, inflight;  /* nominal bytes */
    mrc_time pace_next;       /* P24 sub-packet windows: with a window below one packet, no packet before this (0: none
                                 sent so) */
    mrc__nscc_prm p;
    /* NSCC state (docs/PROTOCOL.md 8.5) */
    int64_t inc;              /* accumulated increase, bytes^2 */
    uint64_t received, achieved, fi_count, ign_bytes, ign_done, saved_cwnd;
    uint32_t avg_q4;          /* average queueing delay, ns x 16 */
    mrc_time last_adjust, last_dec, qa_end;
    mrc_time last_sub;        /* P24 sub-packet windows: the last decrease below one packet */
    mrc_time lh_mark_end;     /* P30 last-hop trim mark: SACKs before this count as ECN-marked (0: none) */
    uint8_t qa_loss, fast;
    uint8_t qa_trim;          /* P24 sub-packet windows: the loss that armed quick adapt was a trim */
} mrc__ccx;

typedef struct mrc__epreq {   /* an endpoint request awaiting its answer */
    mrc_time sent, deadline;  /* deadline MRC_TIME_NEVER: slot free */
    uint16_t req_id;
    uint8_t op, internal;     /* internal: a PORT_STATUS_UPDATE the core sent itself; its answer raises no event */
    uint32_t peer;
} mrc__epreq;

typedef struct mrc__psureq {  /* a PORT_STATUS_UPDATE the core sent itself, resent until answered (7.8) */
    mrc_time deadline;        /* MRC_TIME_NEVER: slot free */
    uint32_t peer;
    uint16_t req_id;
    uint8_t tries;            /* times resent */
} mrc__psureq;

/* A posted write (send queue entry). What follows from its place in the queue is not stored: its MSN from its
 * free-running index (mrc__wr_msn), its packet count from len and the path MTU (mrc__wr_npkts), and how many of its
 * packets went out from the queue's send pointer (c->sq_sent). */
typedef struct mrc__wr {
    uint64_t wr_id;
    const uint8_t *buf;
    uint64_t remote_va;
    uint32_t len, rkey, imm;  /* len 0..MRC_MAX_MSG_LEN */
    uint32_t first_psn;       /* its first PSN (24 bits), assigned when its first packet goes out */
    uint16_t rqmsn;           /* METH rqmsn: the receive WQE a Write-IMM consumes (plain writes: the next one) */
    uint8_t opcode, flags;    /* MRC_WR_WRITE or MRC_WR_WRITE_IMM; MRC_WR_UNSIGNALED, MRC_WR_SOLICITED */
    int16_t status;           /* its completion status once done (MRC_OK or an mrc_err) */
} mrc__wr;

/* Index types of the requester's per-PSN state, one byte while the capacity fits it: a send-queue slot
 * (0..MRC_MAX_SQ-1), a record (PSN mod MRC_MAX_INFLIGHT), and a transmission's sequence number (mod 2^16, or 2^32
 * past MRC_MAX_INFLIGHT 16384: it is compared over spans up to 2 x MRC_MAX_INFLIGHT, see mrc__txl_reserve). */
#if MRC_MAX_SQ <= 256
typedef uint8_t mrc__sqslot;
#else
typedef uint16_t mrc__sqslot;
#endif
#if MRC_MAX_INFLIGHT <= 256
typedef uint8_t mrc__recidx;
#else
typedef uint16_t mrc__recidx;
#endif
#if MRC_MAX_INFLIGHT <= 16384
typedef uint16_t mrc__txseq;
#else
typedef uint32_t mrc__txseq;
#endif

/* Requester record of one PSN sent, in the pool block of its 64 PSNs (mrc__pblk). It lives as long as its block: while
 * the PSN is in [win_base, snd_nxt) (a live block) and after, while the block is retained - until snd_nxt is
 * MRC_MAX_INFLIGHT PSNs past the whole block or the block is reclaimed. Its latest transmission time is in the
 * block's sent[], apart (no padding). */
typedef struct mrc__psnrec {
    mrc__recidx prev, next;   /* neighbours (PSN mod MRC_MAX_INFLIGHT) in the one list it is on: the transmit list with
                               * MRC__PR_INFLIGHT, the retransmission queue with MRC__PR_QUEUED (never both) */
    mrc__txseq txseq;         /* with MRC__PR_INFLIGHT: the QP's transmission count when it was last sent */
    mrc__sqslot wr;           /* send-queue slot of its message */
    mrc__evslot ev;           /* EV slot of the latest transmission */
    mrc__evslot ev_lost;      /* with MRC__PR_EVLOST: EV of a transmission judged lost whose loss awaits confirmation
                               * (Q5 reordering slack) */
    uint8_t flags;            /* MRC__PR_* */
} mrc__psnrec;

/* A list of a QP's records threaded through their prev/next links (PSN mod MRC_MAX_INFLIGHT: every record listed
 * is unacknowledged, in [win_base, snd_nxt), so its residue names it). head and tail are PSNs, n the length. */
typedef struct mrc__plist {
    uint32_t head, tail, n;
} mrc__plist;

/* The in-flight pool (see IN-FLIGHT MEMORY at the top). A block index is stored plus one: 0 is "none", so a zeroed
 * QP has no blocks. */
#if MRC_POOL_BLOCKS < 65535
typedef uint16_t mrc__blkidx;
#else
typedef uint32_t mrc__blkidx;
#endif
#define MRC__BLK_PSNS 64u
/* A QP's block table: entry (PSN / 64) mod MRC__BTAB_LEN. A window of MRC_MAX_INFLIGHT PSNs that does not start on a
 * block boundary spans MRC_MAX_INFLIGHT / 64 + 1 blocks, so the table has twice MRC_MAX_INFLIGHT / 64 entries. */
#define MRC__BTAB_LEN (2u * MRC_MAX_INFLIGHT / MRC__BLK_PSNS)
/* One pool block: the requester state of 64 consecutive PSNs (PSN / 64 = the block's number) of the QP that holds it.
 * Records below lo were sent before the block was taken (by an earlier holder of that table entry) and are not
 * this block's: a block taken mid-range (the QP's block was reclaimed while it had nothing in flight) starts at lo.
 * A block is free, live (it holds PSNs not yet cumulatively acknowledged, or was handed over for the next one) or
 * retained (acknowledged PSNs only, kept mapped for late SACKs, on the endpoint's FIFO of retained blocks). */
typedef struct mrc__pblk {
    mrc_time sent[MRC__BLK_PSNS];     /* per PSN: time of its latest transmission */
    uint64_t acked;                   /* bit i: PSN 64 x block + i is acknowledged (the requester's knowledge) */
    mrc__psnrec rec[MRC__BLK_PSNS];
    mrc__blkidx next, prev;           /* free list (next) or FIFO of retained blocks (both); index plus one, 0: none.
                                       * prev is 0 unless retained: retained = prev or the FIFO's head (mrc__pool_ret)
                                       * */
    uint16_t owner;                   /* held: the QP's conn slot */
    uint16_t loc;                     /* held: its entry in the QP's block table x 64 + lo, the first slot it holds */
} mrc__pblk;
#define MRC__PBLK_LO(b) ((b)->loc & (MRC__BLK_PSNS - 1u))
#define MRC__PBLK_TAB(b) ((uint32_t)(b)->loc >> 6)

typedef struct mrc__ctl {     /* a queued control packet (SACK, NACK, transport ACK/NAK) */
    uint32_t psn;             /* SACK, NACK: the PSN it names; AETH: the MSN (24 bits each) */
    uint32_t ev;              /* entropy of the packet it answers */
    uint32_t lo, hi;          /* SACK: lowest and highest PSN named by the SACKs coalesced into this one */
    uint16_t ts;              /* timestamp to echo */
    uint8_t kind, m, reason, port, pr; /* MRC__CTL_*; SACK m and pr; NACK reason or AETH syndrome; arrival port */
} mrc__ctl;

typedef struct mrc__imm {     /* a stashed immediate, delivered in MSN order */
    uint32_t psn;             /* MRC__IMM_VALID | the last PSN of the message (24 bits); 0: the slot is empty */
    uint32_t imm, len;        /* the immediate, the message's length (0..MRC_MAX_MSG_LEN) */
} mrc__imm;
#define MRC__IMM_VALID 0x80000000u

typedef struct mrc__rqe {     /* a posted receive */
    uint64_t wr_id;
    uint32_t imm;             /* the immediate it completed with (0 until then) */
    uint32_t len;             /* the message's length (0..MRC_MAX_MSG_LEN), or MRC__RQE_FLUSHED: it completes with
                               * MRC_ERR_FLUSH (status MRC_OK otherwise) */
} mrc__rqe;
#define MRC__RQE_FLUSHED 0xFFFFFFFFu

struct mrc_conn {
    mrc_endpoint *ep;
    void *user;
    uint16_t slot;
    uint8_t state, in_ctq, in_txq, in_evq, err_pending;
    uint8_t in_poolq;         /* on the endpoint's list of QPs waiting for a pool block */
    uint8_t nxt_ret;          /* the block of snd_nxt may be retained (it was when nothing was left in flight) */
    int16_t err_status;
    uint32_t qpn;
    mrc_conn_attr attr;       /* current attributes */
    uint32_t win_psns;        /* requester window in PSNs */
    uint32_t rsp_win;         /* responder window in PSNs */
    uint32_t mtu_shift;
    uint32_t tx_bth0;         /* BTH word 0's per-QP fields (TVER, PKEY) for mrc__st4: the fast paths add the rest */
    uint32_t tx_sack[3];      /* the SACK fast path's per-QP header words, in wire byte order: BTH words 0 (opcode SACK,
                                 TVER, PKEY) and 1 (DEST_QP), SETH word 2 (SPDCID, DPDCID); kept with tx_bth0 */
    mrc_time deadline;        /* at most the min of the timers below (heap key; P36 lazy deadlines) */
    uint16_t heap_idx;
    uint8_t t_armed;          /* a timer is armed (counted in ep->armed; P36 lazy deadlines) */
    uint8_t tlp_ahead;        /* tlp_base may be ahead of the clock (P24: mrc__cc_block moved it to the pacing clock): a
                                 transmission re-arms the TLP exactly (P36 lazy deadlines) */
    /* P37 bursts: work deferred to the end of an mrc_endpoint_recv_burst (MRC__BURST_* flags, and NSCC's sample:
     * bytes newly received, saturating, and the latest RTT sample, at most 2^32 - 1 ns) */
    uint8_t bflags;
    uint8_t bs_ecn;
    uint32_t bs_rtt;
    uint32_t bs_newly;
    /* --- requester --- */
    mrc__wr sq[MRC_MAX_SQ];
    uint32_t sq_head, sq_done, sq_send, sq_tail; /* reported <= done <= sending <= posted (free-running) */
    uint32_t sq_sent;         /* packets of sq[sq_send] sent so far (those before it: all, those after it: none) */
    uint32_t win_base;        /* peer's cack_psn + 1: the window starts here */
    uint32_t snd_una;         /* lowest PSN not known to be acked */
    uint32_t snd_nxt;         /* next new PSN */
    uint16_t next_rqmsn;      /* rqmsn of the next Write-IMM posted */
    uint32_t wimm_out;        /* Write-IMM messages started and not complete */
    mrc__blkidx btab[MRC__BTAB_LEN];             /* pool blocks of [win_base, snd_nxt) (plus one; 0: none) */
    mrc__plist txl;           /* records in flight (MRC__PR_INFLIGHT), by their latest transmission, oldest first */
    uint32_t tx_count;        /* data transmissions so far (mod 2^32; a record's txseq is its low bits) */
    uint32_t txl_lo;          /* with txl not empty: at most its head's transmission count (tx_count - txl_lo bounds
                               * the head's distance; mrc__txl_used renews it from the record) */
    mrc__plist rtxq;          /* records of the PSNs declared lost (MRC__PR_QUEUED), to retransmit from the head */
    mrc_time lat_acked_sent;  /* latest send time of any transmission known acked */
    mrc_time lat_acked_rtt;   /* P32 reorder timer: how long that transmission took to be acknowledged */
    mrc_time rtt_min, srtt;
    mrc_time rto_start, rto_deadline, tlp_base, tlp_deadline;
    mrc_time reo_deadline;    /* P32 reorder timer: the reorder timer: the oldest record in flight is lost then */
    mrc_time ver_deadline;    /* P35 sweeps: the earliest a verification probe out goes unanswered */
    uint32_t retries;         /* consecutive RTO expiries without progress that back off (Q25 retry budget: not
                                 trim-answered) */
    uint32_t retry_spent;     /* consecutive expiries without progress that spent the budget (Q25 retry budget: not
                                 trim-answered) */
    uint8_t rto_heard;        /* a trim NACK arrived since the last RTO expiry: the peer and the path are alive */
    uint8_t reo_mult;         /* reordering tolerance multiplier (Q5 reordering slack) */
    uint16_t ccx;             /* congestion context (index), MRC__EV_NONE before RTS */
    struct mrc__ccx *ccxp;    /* &ep->ccx[ccx], NULL while ccx is MRC__EV_NONE (read per packet) */
    uint64_t cc_inflight;     /* this QP's nominal bytes in flight (its share of the context's) */
    uint16_t ready_next;      /* next READY QP of the context */
    uint8_t in_ready;
    uint8_t rtx_force;        /* an RTO's retransmission: sent whatever the window (it is what reopens it) */
    uint8_t ccprof_ref;       /* holds a reference on its CC profile */
    uint32_t last_rcvd;       /* the peer's last rcvd_bytes (24 bits, 256-byte units; it counts from 0 too) */
    uint64_t tx_nominal;      /* nominal bytes of every data transmission, as the responder counts rcvd_bytes */
    uint64_t rcvd_credit;     /* 256-byte units of rcvd_bytes credited so far (never more than tx_nominal / 256) */
    mrc_time probe_tat;       /* P19 QP 0x2 and probe trust: PROBE_REQ answer bucket (GCRA theoretical arrival time) */
    mrc_time epop_tat;        /* P19 QP 0x2 and probe trust: endpoint-request bucket of this QP's peer (kept by its
                                 lowest connected slot) */
    mrc_time reo_last;        /* when it last changed */
    uint32_t tlp_count;
    uint16_t probe_id;        /* PETH probe_id of the last probe */
    uint32_t probes_due;      /* bit i: probes[i] waits for poll_tx */
    mrc__probe probes[MRC_MAX_PROBES];
    mrc_time probe_sent[MRC_MAX_PROBES]; /* when probes[i] went out */
    mrc_time tlp2_sent;       /* P33 TLP copies: the other copy of the tail-loss probe: when it went out ... */
    mrc__evslot tlp2_slot;    /* ... and on which EV */
    uint8_t tlp2;             /* P33 TLP copies: MRC__TLP2_DUE: a copy is still to go; MRC__TLP2_OUT: tlp2_* name one
                                 awaiting */
    uint32_t pkts_since_areq;
    /* --- EV / path manager --- */
    uint8_t ev_prof;          /* 0: AUTO; else 1 + index of the EV profile in the endpoint */
    uint16_t ev_count;        /* slots in evs[] */
    uint16_t ev_min_active;
    uint16_t ev_floor;        /* per port: EVs a port keeps carrying data whatever the losses (ev_min_active split) */
    mrc_time port_ok[MRC_MAX_PORTS]; /* per port: the last SACK that named a packet sent there */
    mrc_time hl_at;           /* P39 host losses: send time of the latest loss in a run that covered every port (0:
                                 none) */
    uint32_t hl_mask;         /* P39 host losses: the ports of the current run of consecutive silent losses */
    mrc__txseq hl_next;       /* P39 host losses: the transmission that would extend the run */
    uint16_t ev_proven;       /* P25 hashed-EV bypass knobs: the EV of the latest SACK that named a packet
                                 (MRC__EV_NONE: none yet) */
    mrc_time sw_at, sw_ref;   /* P35 sweeps: when the last sweep began, and the send time after which a SACK proves an
                                 EV */
    uint8_t sw_backoff;       /* P35 sweeps: the next sweep waits 2 smoothed RTTs << this (0..MRC__SW_BACKOFF) */
    uint8_t sw_found;         /* P35 sweeps: an EV failed its verification since the last sweep */
    uint16_t ver_head, ver_n; /* P35 sweeps: FIFO of EVs awaiting a verification probe in ver_ring (stale entries
                                 skipped) */
    mrc__evslot ver_ring[MRC_MAX_EVS];
    uint8_t plane_rr;         /* the port the next packet tries first */
    uint16_t bad_head, bad_tail, n_bad;   /* FIFO of ASSUMED_BAD slots waiting for a probe */
    /* per port p: its EVs' segment ring[seg[p], seg[p + 1]) (seg[MRC_MAX_PORTS]: ev_count); in it [0, n_act) carry
     * data ([0, act_pos) used this round) and [n_act, n_act + n_skip) sit out this round */
    uint16_t seg[MRC_MAX_PORTS + 1], n_act[MRC_MAX_PORTS], n_skip[MRC_MAX_PORTS], act_pos[MRC_MAX_PORTS];
    uint16_t bk_head[MRC_MAX_PORTS];      /* per port: stack of backup slots */
    uint16_t bk_n[MRC_MAX_PORTS], act_target[MRC_MAX_PORTS];
    uint16_t rev_pos[MRC_MAX_PORTS];      /* per port: where control packets are in its rotation (Q19 reverse-path EVs)
                                             */
    uint32_t peer_ports;      /* ports the peer announced usable (PORT_STATUS_UPDATE); all at first */
    mrc_time peer_hold;       /* P38 bounded PSU: when the ports a PSU took away come back (0: none taken away) */
    mrc_time evp_deadline;    /* next round of probes of ASSUMED_BAD EVs */
    uint8_t evp_backoff;      /* rounds stretch by 2^evp_backoff while no probe is answered (0..10) */
    uint8_t evp_answered;     /* a probe was answered since the last round */
    mrc_time nopath_deadline; /* MRC_ERR_NOPATH unless an EV can carry data again by then (armed by a failed pick) */
    mrc_time pace_deadline;   /* P24 sub-packet windows: READY on its context's pacing clock with nothing in flight:
                                 wakes it then */
    mrc__evslot ring[MRC_MAX_EVS];        /* the ports' rotations, segment by segment (see seg[]) */
    /* P23 EV recycling: per port p, a FIFO of its EVs' clean returns, rc_ring[seg[p], seg[p] + slots on p) from
     * rc_head[p], rc_n[p] entries (an entry of an EV whose rc is 0 is stale) */
    mrc__evslot rc_ring[MRC_MAX_EVS];
    uint16_t rc_head[MRC_MAX_PORTS], rc_n[MRC_MAX_PORTS];
    mrc__ev evs[MRC_MAX_EVS];
    /* --- responder --- */
    uint32_t cack;            /* every PSN <= cack has arrived */
    uint64_t rbits[MRC__RSP_BITS / 64];   /* arrived, indexed by psn mod MRC__RSP_BITS */
    uint64_t rlast[MRC__RSP_BITS / 64];   /* arrived packet was the last of its message */
    uint32_t ooo;             /* arrived PSNs beyond cack */
    uint32_t msn_done;        /* messages complete (24-bit, AETH msn) */
    uint32_t tack_msgs;       /* completed messages since the last positive transport ACK */
    uint64_t rcvd_bytes;      /* nominal bytes received (CC_STATE rcvd_bytes source) */
    uint8_t pen_last;         /* the receiver penalty of the last SACK (r_c when it drops to 0) */
    uint32_t rx_epoch;        /* the endpoint's activity epoch of the last data arrival (dynamic MPR) */
    uint16_t imm_next;        /* rqmsn of the next immediate to deliver */
    mrc__imm imms[MRC_MAX_WIMM];
    mrc__rqe rq[MRC_MAX_RQ];
    uint32_t rq_head, rq_done, rq_tail;   /* reported <= consumed <= posted (free-running) */
    uint32_t sack_pending;    /* data packets since the last SACK */
    mrc_time sack_deadline;
    uint32_t pend_psn, pend_ev;           /* the packet a coalesced SACK will name */
    uint16_t pend_ts;
    uint8_t pend_port;
    uint32_t late_psn[MRC__LATE_N];       /* P41 late arrivals: MRC__LATE_VALID | the PSN of a packet that arrived
                                             after a later PSN, the last MRC__LATE_N in a ring; 0: none */
    uint16_t late_ts[MRC__LATE_N];        /* its TSETH timestamp, which a duplicate retransmission's SACK echoes */
    uint32_t late_next;                   /* the ring's next entry (free-running) */
    mrc__ctl ctlq[MRC_CTLQ_LEN];
    uint32_t ctlq_head, ctlq_tail;
    mrc_conn_stats st;
#if MRC_FAST_PATH
    /* The transmit template (docs/PROTOCOL.md P22): what every middle packet of the message being sent shares, built
     * at its first middle packet (mrc__tx_tpl) for mrc__req_tx_fast and the transmit runs. A cache: no other code
     * reads it (make fast-check compares the packets built from it, not its bytes). Last: the members before it keep
     * their offsets (Cortex-M4 -Os, which leaves it unused, builds the same code) */
    struct {
        uint32_t wr;          /* the message's send-queue slot plus one; 0: none (dropped where a message ends, at a
                                 flush, with tx_bth0) */
        uint32_t w2;          /* BTH word 2 but the A bit and the PSN (the TS bit) */
        /* BTH, METH, TSETH and RETH as a middle packet carries them, but BTH word 2, TSETH's timestamp and RETH's VA
         * (zero); without TSETH, RETH starts at byte 16 on the wire */
        uint8_t hdr[MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN];
        mrc_txinfo ti;        /* its mrc_txinfo but the EV's fields (port, ev) and the payload */
    } tpl;
#endif
};

/* A registered memory region (the endpoint's mrs[]) */
typedef struct mrc__mr {
    uint8_t *base;
    void *user;
    uint64_t iova, len;
    uint32_t rkey, access;
    uint8_t valid;
    uint8_t keyed; /* the caller chose the rkey (mrc_endpoint_reg_mr_key): found through mr_hash */
} mrc__mr;

struct mrc_endpoint {
    mrc_config cfg;
    mrc_detail detail;        /* why the last control call failed (mrc_endpoint_last_error) */
    uint64_t rng;
    uint64_t qpn_rng;         /* P16 rkeys and QPNs: the QPN stream (separate, so QPNs do not move the other draws) */
    mrc_time epop_T, epop_tau, probe_T, probe_tau; /* P19 QP 0x2 and probe trust: bucket intervals and burst tolerances
                                                      (0: unlimited) */
    mrc_time now;             /* latest time seen: time never runs backwards inside the core */
    uint32_t ports_up;        /* bit p-1 set when port p is up */
    uint32_t rkey_gen;
    mrc__mr mrs[MRC_MAX_MRS];
    uint16_t mr_hash[MRC__MR_HASH_N]; /* caller-chosen rkeys -> MR slot + 1 (0 empty), open addressing, linear probes */
    mrc_conn *conns[MRC_MAX_CONNS];
    uint16_t heap[MRC_MAX_CONNS];         /* timer min-heap of conn slots keyed by conn->deadline */
    uint16_t heap_len;
    uint32_t armed;                       /* QPs with a timer armed (the heap may hold idle ones: P36) */
    uint8_t in_burst;                     /* inside mrc_endpoint_recv_burst (P37 bursts) */
    uint8_t burst_no_runs;                /* bursts take each packet alone, no runs (the fast-path check's reference) */
    uint16_t burst_len;                   /* QPs with deferred work (conn->bflags), their slots below */
    uint16_t burst_q[MRC__BURST_QPS];
    uint16_t ctq[MRC_MAX_CONNS];          /* conns with control packets queued, round-robin, served first */
    uint16_t txq[MRC_MAX_CONNS];          /* conns with requester work (data, retransmissions, probes), round-robin */
    uint32_t ctq_head, ctq_len;
    uint16_t evq[MRC_MAX_CONNS];          /* conns with events to pull */
    uint32_t txq_head, txq_len, evq_head, evq_len;
    /* EV formats and profiles (the control plane's objects) */
    mrc__evfmt fmts[MRC_MAX_EV_FMTS];
    mrc__evprof profs[MRC_MAX_EV_PROFILES];
    /* controller events, a ring that never overruns silently */
    mrc_event notify[MRC_NOTIFYQ_LEN];
    uint32_t notify_head, notify_len, notify_lost;
    /* endpoint operations: packets to send, requests awaiting answers */
    mrc__epkt epq[MRC_EPQ_LEN];
    uint32_t epq_head, epq_len;
    mrc__epreq epreq[MRC_MAX_EP_REQS];
    mrc_time ep_deadline;     /* earliest epreq or psureq deadline, or psu_hold / psu_refresh */
    mrc_time psu_hold;        /* P38 bounded PSU: the earliest conn's peer_hold (MRC_TIME_NEVER: none) */
    mrc_time psu_refresh;     /* ... and the next re-announcement while a port is down (MRC_TIME_NEVER: none) */
    uint32_t ctl_peer[MRC_MAX_CONTROLLERS]; /* P38 controllers: registered handles */
    uint8_t n_ctl;
    mrc_time epop_any_tat;    /* P19 QP 0x2 and probe trust: endpoint-request bucket of peers without a connected QP
                                 (epop_peer_check off) */
    uint16_t psu_req_id;      /* request IDs of the PORT_STATUS_UPDATEs the core sends itself */
    mrc__psureq psureq[MRC_MAX_EP_REQS]; /* those awaiting an answer, one per peer (not the controller's slots) */
    /* congestion control */
    mrc__ccprof ccprofs[MRC_MAX_CC_PROFILES];
    mrc__ccx ccx[MRC_MAX_CCX];
    uint8_t rx_pressure;      /* host backpressure penalty (mrc_endpoint_rx_pressure) */
    uint32_t epoch, rx_cur, rx_prev; /* receiving QPs in this and the last base-RTT epoch (dynamic MPR) */
    mrc_time epoch_end;
    mrc_endpoint_stats st;
    /* the in-flight pool: blocks [0, pool_hw) have been used; the free ones among them are on the free list, those
     * from pool_hw to pool_cap were never touched (mrc_endpoint_init does not write them) */
    uint32_t pool_cap, pool_hw, pool_nfree;  /* blocks usable (mrc_config.pool_blocks), ever used, free */
    uint32_t pool_nret;                       /* blocks retained */
    mrc__blkidx free_head;                    /* free list head (index plus one; 0: empty) */
    mrc__blkidx ret_head, ret_tail;           /* FIFO of retained blocks, oldest first (index plus one; 0: empty) */
    uint16_t poolq[MRC_MAX_CONNS];            /* QPs waiting for a block (conn slots), first come first served */
    uint32_t poolq_head, poolq_len;
    mrc__pblk pool[MRC_POOL_BLOCKS];          /* last: mrc_endpoint_init clears everything before it only */
};
#endif /* MRC__SRC_TYPES_H */
