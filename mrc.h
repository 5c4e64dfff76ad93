/* mrc.h - open MRC (Multipath Reliable Connection) protocol core, single header, I/O-free.
 *
 * MRC is the RDMA transport published through the Open Compute Project (MRC 1.0, 2026): RoCEv2 RC restricted to
 * RDMA Write and Write-with-Immediate, with every data packet self-describing (METH + RETH) so it is placed in any
 * order, sprayed over many paths (Entropy Values, EVs), selectively acknowledged (SACK/NACK) on a lossy fabric.
 *
 * This file is generated: tools/amalgamate writes it from the layered sources in src/ (make amalgamate), and make
 * test fails when it is stale. Edit src/, never this file; each source's text below begins with its name.
 *
 * USAGE
 *   In exactly one C or C++ file:       #define MRC_IMPLEMENTATION
 *                                       #include "mrc.h"
 *   Everywhere else just include it. MRC_STATIC makes every API function static to that translation unit.
 *
 *   The core owns no memory, no clock, no socket and no thread. The caller owns an mrc_endpoint (one NIC), its
 *   mrc_conns (one per QP) and every buffer; time is a uint64_t of nanoseconds passed into every call. Setup:
 *   mrc_config_default + mrc_endpoint_init, mrc_endpoint_reg_mr for memory peers write into, then per QP
 *   mrc_conn_init, mrc_conn_attr_default (set dest_qpn, rq_psn, sq_psn, peer) and mrc_conn_connect; a failing
 *   control call says why through mrc_endpoint_last_error + mrc_detail_format. Then mrc_conn_post_write and this
 *   loop (make test extracts and compiles it, as C99 and C++11):
 *
 *     static uint8_t pkt[9216], hdr[MRC_HDR_MAX];
 *     mrc_rxinfo ri;
 *     mrc_txinfo ti;
 *     mrc_event ev;
 *     size_t len;
 *     int n;
 *     for (;;) {
 *         mrc_time now = clock_ns();                           // monotonic nanoseconds
 *         while ((len = recv_packet(pkt, sizeof pkt, &ri)) > 0)  // from BTH on, ICRC checked and removed
 *             mrc_endpoint_recv(ep, pkt, len, &ri, now);
 *         if (now >= mrc_endpoint_next_deadline(ep))
 *             mrc_endpoint_on_timeout(ep, now);
 *         while ((n = mrc_endpoint_poll_tx(ep, hdr, sizeof hdr, 0, &ti, now)) > 0)
 *             send_packet(&ti, hdr, (size_t)n);  // hdr[0..n) + ti.payload[0..ti.payload_len) + ti.pad zero bytes
 *         while (mrc_endpoint_poll_event(ep, &ev) > 0)         // SEND_DONE, RECV_IMM, CONN_ERROR, ...
 *             handle_event(&ev);
 *         wait_for_packet_until(mrc_endpoint_next_deadline(ep));  // MRC_TIME_NEVER: nothing is due
 *     }
 *
 *   The adapter puts hdr on the wire after Ethernet/IP/UDP (destination port 4791; ti.port is the plane, ti.ev the
 *   entropy for the UDP source port or flow label, see mrc_endpoint_ev_headers; ti.dscp the DSCP) and appends the
 *   RoCEv2 ICRC (mrc_icrc). examples/hello.c is the whole thing in 150 lines, with an in-memory wire. A loop that
 *   gets packets in batches calls mrc_endpoint_recv_burst and mrc_endpoint_poll_tx_burst instead (per-QP work once
 *   per burst; docs/PROTOCOL.md P37 bursts).
 *
 * OBJECTS AND LIFETIMES
 *   mrc_endpoint  one NIC: its ports (planes), memory regions, profiles and the table of its conns. sizeof is tens
 *                 of KB at the default capacities (make size): allocate it statically or on the heap, not on a small
 *                 stack. mrc_endpoint_init zero-fills it; there is no destroy (drop it once its conns are gone).
 *                 The endpoint MUST NOT MOVE in memory once a conn is attached: conns point to it.
 *   mrc_conn      one QP. Caller-owned, attached by mrc_conn_init (which gives it its QPN, mrc_conn_qpn), detached
 *                 by mrc_conn_destroy in RESET or ERR. It MUST NOT MOVE while attached: the endpoint points to it.
 *                 After a detach the memory is the caller's again.
 *   peer          mrc_conn_attr.peer is an opaque 32-bit handle the adapter chooses for the remote NIC (an address
 *                 table index, say). The core never interprets it: it comes back in mrc_txinfo.peer so the adapter
 *                 knows where to send, groups the QPs to one peer into one congestion context, and is how endpoint
 *                 operations (which name no QP) find their QPs, so the adapter must pass the same handle in
 *                 mrc_rxinfo.peer for every packet it receives from that NIC.
 *   buffers       a posted write's source buffer stays the caller's, untouched, until its MRC_EVT_SEND_DONE; a
 *                 registered region stays valid until mrc_endpoint_dereg_mr; mrc_txinfo.payload/path point into
 *                 those or into the endpoint and are valid until the next call into the core.
 *   threads       none inside; an endpoint and its conns are used by one thread at a time (no locks inside).
 *
 * CONFIGURATION MACROS (define before including in the implementation unit)
 *   MRC_MEMCPY, MRC_MEMSET, MRC_MEMMOVE, MRC_MEMCMP   libc replacements: all four or none
 *   MRC_ASSERT(x)          internal invariants (never on wire input); default assert() when hosted
 *   MRC_MAX_PORTS          planes per endpoint (8)            MRC_MAX_CONNS     QPs per endpoint (16)
 *   MRC_MAX_EVS            EV slots per QP (256)              MRC_MAX_MRS       memory regions per endpoint (16)
 *   MRC_MAX_MPR_UNITS      largest responder MPR, units of 128 PSNs, power of two (32 -> 4096-bit bitmap)
 *   MRC_MAX_INFLIGHT       requester per-PSN records, power of two (1024): caps the send window
 *   MRC_MAX_WIMM           pending immediates per QP (128)    MRC_MAX_SQ, MRC_MAX_RQ  work requests per QP (64)
 *   MRC_CTLQ_LEN           queued control packets per QP (16)
 *   MRC_POOL_BLOCKS        in-flight memory per endpoint, in blocks of 64 PSNs (default MRC_MAX_CONNS x
 *                          (MRC_MAX_INFLIGHT / 64 + 1): every QP can fill its window at once, and nothing is ever
 *                          reclaimed). Lower it to provision by bandwidth-delay product (see "IN-FLIGHT MEMORY"
 *                          below; mrc_config.pool_blocks lowers it at run time)
 *   MRC_MAX_EV_FMTS        EV Format profiles per endpoint (4) MRC_MAX_EV_PROFILES EV profiles per endpoint (4)
 *   MRC_MAX_EV_FIELDS      fields per EV Format / EV profile (16: the OCP SRv6+SRH examples use 10 and 12)
 *   MRC_EV_BYTES           bytes of an EV value (32: SRv6 DA + SRH; 4 is enough for UDP and STEV formats)
 *   MRC_MAX_PROBES         outstanding reliability probes per QP (8)
 *   MRC_NOTIFYQ_LEN        controller events (EV state, endpoint responses) queued per endpoint (64)
 *   MRC_EPQ_LEN            endpoint-operation packets queued per endpoint (16)
 *   MRC_MAX_EP_REQS        endpoint requests awaiting a response (16)
 *   MRC_MAX_CC_PROFILES    CC profiles per endpoint (4)       MRC_MAX_CCX  congestion contexts (MRC_MAX_CONNS)
 *   MRC_NO_FLOAT           compile out the float fields of mrc_nscc_cfg (FPU-less firmware; use the _q16 ones)
 *   MRC_NO_STRINGS         compile out mrc_strerror() and the name tables
 *   MRC_NO_STATS           compile out the statistics counters (mrc_endpoint_stats, mrc_conn_stats read 0) but the
 *                          drops and losses (drop[], rx_drops, the overflow counters): Cortex-M4 -1.6 KB of code,
 *                          -6% instructions per packet
 *   MRC_NO_CHECK           compile out the invariant checker (mrc_conn_check answers MRC_ERR_NOTSUP; -1.5 KB)
 *                          The firmware build is -DMRC_NO_FLOAT -DMRC_NO_STRINGS -DMRC_NO_STATS -DMRC_NO_CHECK
 *   MRC_ENABLE_TRACE       compile in the numeric trace hook (mrc_config.trace)
 *   MRC_CODEC_GENERIC      every header through the table-interpreting codec (tests, comparisons); by default the
 *                          core's data and SACK paths take fixed-offset fast paths built from the same tables (the
 *                          public per-header decoders, and the encoders the core does not send through, take the
 *                          table code whatever the macro)
 *   MRC_FAST_PATH          1 (default): common-case packets (an in-order data packet on a clean QP, the SACK it
 *                          causes, the SACK that advances the cumulative acknowledgement) take dedicated code paths
 *                          with the same results as the general code (docs/PROTOCOL.md P22 fast paths; make fast-check
 * proves it
 *                          per call); 0 compiles them out (smaller code). mrc_config.fast_path_off turns them off at
 *                          run time
 *
 * TIME      uint64_t ns, monotonic, caller's epoch. Deadlines out are absolute; MRC_TIME_NEVER = none.
 * MEMORY    no heap, no globals, no static mutable state; sizeof(mrc_endpoint) and sizeof(mrc_conn) are fixed by the
 *           macros above. A posted write's source buffer stays caller-owned until its MRC_EVT_SEND_DONE.
 * IN-FLIGHT MEMORY  a QP's per-PSN requester state (record, send time, acknowledgement of each PSN it has sent and
 *           the peer has not yet cumulatively acknowledged) lives in the endpoint's pool of MRC_POOL_BLOCKS blocks of
 * 64
 *           PSNs, as a NIC keeps shared context memory: a QP's own structure is small, and in-flight state is
 *           provisioned by aggregate bandwidth-delay product rather than QPs x largest window (make size prints the
 *           bytes per block). A QP takes a block when its next new PSN enters one. Once the cumulative
 *           acknowledgement has passed the block's PSNs (or the QP has nothing in flight) the block is *retained*: it
 *           stays in the QP's table, so a late SACK (one overtaken by a later one) still finds the records of PSNs up
 *           to MRC_MAX_INFLIGHT behind snd_nxt for timing and path input, exactly as if the QP kept its own records,
 *           and it joins the endpoint's FIFO of retained blocks. The QP reuses it when its PSNs leave that span (at
 *           most MRC_MAX_INFLIGHT / 64 + 1 blocks per QP, so the default pool never runs short); it is freed when the
 *           QP leaves RTS. A block is taken from the free list, else the oldest retained block of any QP is reclaimed
 *           (pool_reclaims in mrc_endpoint_stats): late SACKs for its PSNs then give no timing or path input. Only
 *           with no block free or retained does a QP send no new PSN (retransmissions still go): it waits on the
 *           endpoint's pool list (pool_waits in mrc_conn_stats and mrc_endpoint_stats) and is handed the next block
 *           freed or retained, first come first served; a waiter with nothing in flight is woken by any other QP's
 *           acknowledgement, and one with packets in flight keeps its RTO. Provision the PSNs in flight at line rate
 *           over one RTT, in blocks, plus one block per QP sending at once. mrc_endpoint_stats: pool_in_use counts
 *           live blocks (holding PSNs not yet cumulatively acknowledged), pool_retained the retained ones, the rest
 *           are free. Every pool operation is O(1). The pool is not written by mrc_endpoint_init: blocks are first
 *           touched when taken.
 * ERRORS    negative int codes (mrc_err); values <= MRC_ERR_FATAL mean the connection is in ERR. Malformed or
 *           hostile packets are dropped and counted (mrc_endpoint_stats / mrc_conn_stats), never fatal to the
 *           endpoint and never a crash.
 * PLATFORM  freestanding C99: needs only memcpy/memset/memmove/memcmp and the compiler's 64-bit division helpers
 *           (__aeabi_uldivmod, __udivdi3, ...), which stay off the per-packet paths.
 * WIRE      docs/PROTOCOL.md documents every header and every choice the public material leaves open; the layout
 *           tables below are the single source of truth for both encoder and decoder.
 *
 * LICENSE   MIT. See the end of the file.
 */
#ifndef MRC_H
#define MRC_H

/* ====== src/config.h ============================================================================================ */

#define MRC_VERSION_MAJOR 0
#define MRC_VERSION_MINOR 1
#define MRC_VERSION_PATCH 0
#define MRC_VERSION_STRING "0.1.0"
#define MRC_WIRE_VERSION 1 /* MRC 1.0 on the wire (OCP API bit MRC_PROTOCOL_VERSION_1) */

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifndef MRC_API
#ifdef MRC_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define MRC_API static __attribute__((unused)) /* a unit need not call every function */
#else
#define MRC_API static
#endif
#else
#define MRC_API extern
#endif
#endif

/* ---- capacities ------------------------------------------------------------------------------------------- */
#ifndef MRC_MAX_PORTS
#define MRC_MAX_PORTS 8
#endif
#ifndef MRC_MAX_CONNS
#define MRC_MAX_CONNS 16
#endif
#ifndef MRC_MAX_EVS
#define MRC_MAX_EVS 256
#endif
#ifndef MRC_MAX_MRS
#define MRC_MAX_MRS 16
#endif
#ifndef MRC_MAX_MPR_UNITS
#define MRC_MAX_MPR_UNITS 32
#endif
#ifndef MRC_MAX_INFLIGHT
#define MRC_MAX_INFLIGHT 1024
#endif
#ifndef MRC_MAX_WIMM
#define MRC_MAX_WIMM 128
#endif
#ifndef MRC_MAX_SQ
#define MRC_MAX_SQ 64
#endif
#ifndef MRC_MAX_RQ
#define MRC_MAX_RQ 64
#endif
#ifndef MRC_CTLQ_LEN
#define MRC_CTLQ_LEN 16
#endif
#ifndef MRC_FAST_PATH
#define MRC_FAST_PATH 1
#endif
#ifndef MRC_POOL_BLOCKS
#define MRC_POOL_BLOCKS (MRC_MAX_CONNS * (MRC_MAX_INFLIGHT / 64 + 1))
#endif

#ifndef MRC_MAX_EV_FMTS
#define MRC_MAX_EV_FMTS 4
#endif
#ifndef MRC_MAX_EV_PROFILES
#define MRC_MAX_EV_PROFILES 4
#endif
#ifndef MRC_MAX_EV_FIELDS
#define MRC_MAX_EV_FIELDS 16
#endif
#ifndef MRC_EV_BYTES
#define MRC_EV_BYTES 32
#endif
#ifndef MRC_MAX_PROBES
#define MRC_MAX_PROBES 8
#endif
#ifndef MRC_NOTIFYQ_LEN
#define MRC_NOTIFYQ_LEN 64
#endif
#ifndef MRC_EPQ_LEN
#define MRC_EPQ_LEN 16
#endif
#ifndef MRC_MAX_CONTROLLERS /* P38 controllers: peers registered with mrc_endpoint_controller_set */
#define MRC_MAX_CONTROLLERS 4
#endif
#if MRC_MAX_CONTROLLERS < 1 || MRC_MAX_CONTROLLERS > 255
#error "MRC_MAX_CONTROLLERS must be 1..255"
#endif
#ifndef MRC_MAX_EP_REQS
#define MRC_MAX_EP_REQS 16
#endif
#ifndef MRC_MAX_CC_PROFILES
#define MRC_MAX_CC_PROFILES 4
#endif
#ifndef MRC_MAX_CCX
#define MRC_MAX_CCX MRC_MAX_CONNS
#endif

#if MRC_MAX_PORTS < 1 || MRC_MAX_PORTS > 32
#error "MRC_MAX_PORTS must be 1..32 (port_status_mask is 32 bits)"
#endif
#if MRC_MAX_CONNS < 1 || MRC_MAX_CONNS > 65535
#error "MRC_MAX_CONNS must be 1..65535"
#endif
#if MRC_MAX_EVS < 1 || MRC_MAX_EVS > 65534
#error "MRC_MAX_EVS must be 1..65534"
#endif
#if MRC_MAX_EV_FMTS < 1 || MRC_MAX_EV_FMTS > 255 || MRC_MAX_EV_PROFILES < 1 || MRC_MAX_EV_PROFILES > 254
#error "MRC_MAX_EV_FMTS must be 1..255 and MRC_MAX_EV_PROFILES 1..254"
#endif
#if MRC_MAX_EV_FIELDS < 1 || MRC_MAX_EV_FIELDS > 64
#error "MRC_MAX_EV_FIELDS must be 1..64"
#endif
#if MRC_EV_BYTES < 4 || MRC_EV_BYTES > 32
#error "MRC_EV_BYTES must be 4..32"
#endif
#if MRC_MAX_PROBES < 2 || MRC_MAX_PROBES > 32
#error "MRC_MAX_PROBES must be 2..32 (slot 0 is the tail-loss probe; probes_due is a 32-bit mask)"
#endif
#if MRC_NOTIFYQ_LEN < 1 || MRC_NOTIFYQ_LEN > 65535 || MRC_EPQ_LEN < 1 || MRC_EPQ_LEN > 65535
#error "MRC_NOTIFYQ_LEN and MRC_EPQ_LEN must be 1..65535"
#endif
#if MRC_MAX_EP_REQS < 1 || MRC_MAX_EP_REQS > 65535
#error "MRC_MAX_EP_REQS must be 1..65535"
#endif
#if MRC_MAX_CC_PROFILES < 1 || MRC_MAX_CC_PROFILES > 255 || MRC_MAX_CCX < 1 || MRC_MAX_CCX > 65534
#error "MRC_MAX_CC_PROFILES must be 1..255 and MRC_MAX_CCX 1..65534"
#endif
#if MRC_MAX_MRS < 1 || MRC_MAX_MRS > 65535
#error "MRC_MAX_MRS must be 1..65535"
#endif
#if defined MRC_NO_CHECK && defined MRC_CHECK_INVARIANTS
#error "MRC_CHECK_INVARIANTS asserts mrc_conn_check, which MRC_NO_CHECK compiles out"
#endif
/* The table of caller-chosen rkeys (mrc_endpoint_reg_mr_key): a power of two at least twice MRC_MAX_MRS */
#define MRC__MR_HASH_N                                                                                                  \
    (MRC_MAX_MRS <= 8u       ? 16u                                                                                     \
     : MRC_MAX_MRS <= 16u    ? 32u                                                                                     \
     : MRC_MAX_MRS <= 64u    ? 128u                                                                                    \
     : MRC_MAX_MRS <= 256u   ? 512u                                                                                    \
     : MRC_MAX_MRS <= 1024u  ? 2048u                                                                                   \
     : MRC_MAX_MRS <= 4096u  ? 8192u                                                                                   \
     : MRC_MAX_MRS <= 16384u ? 32768u                                                                                  \
                             : 131072u)
#if MRC_MAX_MPR_UNITS < 1 || MRC_MAX_MPR_UNITS > 255 || (MRC_MAX_MPR_UNITS & (MRC_MAX_MPR_UNITS - 1))
#error "MRC_MAX_MPR_UNITS must be a power of two in 1..128"
#endif
#if MRC_MAX_INFLIGHT < 64 || MRC_MAX_INFLIGHT > 32768 || (MRC_MAX_INFLIGHT & (MRC_MAX_INFLIGHT - 1))
#error "MRC_MAX_INFLIGHT must be a power of two in 64..32768"
#endif
#if MRC_MAX_WIMM < 1 || MRC_MAX_WIMM > 32768 || (MRC_MAX_WIMM & (MRC_MAX_WIMM - 1))
#error "MRC_MAX_WIMM must be a power of two in 1..32768"
#endif
#if MRC_MAX_SQ < 2 || MRC_MAX_SQ > 32768 || (MRC_MAX_SQ & (MRC_MAX_SQ - 1))
#error "MRC_MAX_SQ must be a power of two in 2..32768"
#endif
#if MRC_MAX_RQ < 2 || MRC_MAX_RQ > 32768 || (MRC_MAX_RQ & (MRC_MAX_RQ - 1))
#error "MRC_MAX_RQ must be a power of two in 2..32768"
#endif
#if MRC_CTLQ_LEN < 2 || MRC_CTLQ_LEN > 256 || (MRC_CTLQ_LEN & (MRC_CTLQ_LEN - 1))
#error "MRC_CTLQ_LEN must be a power of two in 2..256"
#endif
#if MRC_POOL_BLOCKS < 1 || MRC_POOL_BLOCKS > 16777215
#error "MRC_POOL_BLOCKS must be 1..16777215"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ====== src/api.h =============================================================================================== */

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

/* ====== src/types.h ============================================================================================= */
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

#ifdef __cplusplus
}
#endif
#endif /* MRC_H */

/* ================================================================================================================
 * IMPLEMENTATION
 * ============================================================================================================== */
#ifdef MRC_IMPLEMENTATION
#ifndef MRC__IMPLEMENTED
#define MRC__IMPLEMENTED

/* ====== src/internal.h ========================================================================================== */
/* ================================================================================================================
 * INTERNAL - src/internal.h: what every layer of the implementation may use
 * The libc replacements, MRC_ASSERT, inlining and branch hints, MRC__PRIVATE (static: the whole implementation is
 * one translation unit) and the trace hook. Every source includes this first, then the headers of the layers below
 * it that it uses (src/layers.h gives the order; tools/layer_check enforces it).
 * ============================================================================================================== */

#if defined(MRC_MEMCPY) || defined(MRC_MEMSET) || defined(MRC_MEMMOVE) || defined(MRC_MEMCMP)
#if !defined(MRC_MEMCPY) || !defined(MRC_MEMSET) || !defined(MRC_MEMMOVE) || !defined(MRC_MEMCMP)
#error "define all of MRC_MEMCPY, MRC_MEMSET, MRC_MEMMOVE and MRC_MEMCMP, or none of them"
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define MRC_MEMCPY __builtin_memcpy
#define MRC_MEMSET __builtin_memset
#define MRC_MEMMOVE __builtin_memmove
#define MRC_MEMCMP __builtin_memcmp
#else
#include <string.h>
#define MRC_MEMCPY memcpy
#define MRC_MEMSET memset
#define MRC_MEMMOVE memmove
#define MRC_MEMCMP memcmp
#endif
#ifndef MRC_ASSERT
#if __STDC_HOSTED__ && !defined(NDEBUG)
#include <assert.h>
#define MRC_ASSERT(x) assert(x)
#else
#define MRC_ASSERT(x) ((void)0)
#endif
#endif
#ifdef MRC__LAYER_CHECK /* tools/layer_check compiles each source alone: a header's declarations need no bodies */
#define MRC__INLINE
#define MRC__ALWAYS_INLINE
#elif defined(__GNUC__) || defined(__clang__)
#define MRC__INLINE inline
#define MRC__ALWAYS_INLINE inline __attribute__((always_inline)) /* the few-instruction helpers of every packet */
#else
#define MRC__INLINE inline
#define MRC__ALWAYS_INLINE inline
#endif
#if defined(__GNUC__) || defined(__clang__)
#define MRC__LIKELY(x) __builtin_expect(!!(x), 1)
#define MRC__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MRC__NOINLINE __attribute__((noinline))
/* a function off the per-packet path, out of line and placed apart (.text.unlikely): what the common case does not
 * run stays out of the per-packet code (a firmware's instruction memory, the cache), and the calls into it are
 * treated as unlikely */
#define MRC__COLD __attribute__((noinline, cold))
#else
#define MRC__LIKELY(x) (x)
#define MRC__UNLIKELY(x) (x)
#define MRC__NOINLINE
#define MRC__COLD
#endif
/* a helper with several callers on per-packet paths, or one that only loss or reordering runs: out of line where the
 * code's size is asked for (gcc -Os: a firmware, whose code and per-packet code should fit its memories), else the
 * compiler's choice (a call costs the -O2 build: a window with holes +6 per data packet for mrc__sack_losses_scan;
 * the timers' shared helpers out of line x86-64 +5.0 / +2.2 per data packet) */
#ifdef __OPTIMIZE_SIZE__
#define MRC__SIZE_NOINLINE MRC__NOINLINE
#else
#define MRC__SIZE_NOINLINE MRC__INLINE
#endif
/* the rare part of a function, split off where speed is asked for (its registers and frame would cost the common
 * part: a window with holes, x86-64 -O2, -4 per data packet for mrc__ev_on_loss's sweep and hop group), left to the
 * compiler (one caller: in line) where the code's size is */
#ifdef __OPTIMIZE_SIZE__
#define MRC__SPEED_COLD MRC__INLINE
#else
#define MRC__SPEED_COLD MRC__COLD
#endif
/* a rare branch of a per-packet function (loss, holes, ECN, bursts, first-time and error cases), split off where the
 * code's size is asked for (gcc -Os: the per-packet code a firmware keeps in TCM or its instruction cache is then what
 * the common case runs, make firmware-size; the rare branch pays a call), in line where speed is (the -O2 code as
 * before) */
#ifdef __OPTIMIZE_SIZE__
#define MRC__SIZE_COLD MRC__COLD
#else
#define MRC__SIZE_COLD MRC__ALWAYS_INLINE
#endif
/* The transmit runs (P37 bursts) and the transmit template (P22) where speed is asked for: not under gcc -Os, where
 * they would cost 2 KB of the Cortex-M4 core (a burst there is its single calls, as with MRC_FAST_PATH 0, and every
 * packet's headers are built field by field) */
#if MRC_FAST_PATH && !defined(__OPTIMIZE_SIZE__)
#define MRC__TX_RUN 1
#else
#define MRC__TX_RUN 0
#endif
/* A statistics counter's update (mrc_endpoint_stats, mrc_conn_stats): e, or nothing under MRC_NO_STATS (counters
 * that cost nothing when unused: a firmware with its NIC's own counters). The drop counters are not written through
 * it: a dropped packet is counted whatever the macro (mrc__drop). */
#ifdef MRC_NO_STATS
#define MRC__CNT(e) ((void)sizeof(e)) /* not evaluated; what it names still counts as used */
#else
#define MRC__CNT(e) ((void)(e))
#endif
/* Per-packet paths (mrc_endpoint_poll_tx, mrc_endpoint_recv and what they call) do no 64-bit division. Work that
 * runs at most once per RTT or adjust period and needs one lives in a MRC__NOINLINE function whose name ends in
 * _slow; make freestanding checks both rules on the Cortex-M4 object (tools/div_check.py). */
#ifdef MRC__LAYER_CHECK
#define MRC__PRIVATE
#else
#define MRC__PRIVATE static
#endif
#ifdef MRC_ENABLE_TRACE
#define MRC__TRACE(ep, id, a, b)                                                                                 \
    do {                                                                                                         \
        if ((ep)->cfg.trace) (ep)->cfg.trace((ep)->cfg.trace_ud, (unsigned)(id), (uint64_t)(a), (uint64_t)(b)); \
    } while (0)
#else
#define MRC__TRACE(ep, id, a, b) ((void)0)
#endif
/* The knobs of mrc_research_config: read from the configuration with MRC_RESEARCH, else these constants */
#define MRC__DEF_tlp_copies 2u
#define MRC__DEF_reorder_timer 6u
#define MRC__DEF_cc_subpkt_shift 4u
#define MRC__DEF_cc_lh_mark_rtts 32u
#define MRC__DEF_hold_min_evs 32u
#ifdef MRC_RESEARCH
#define MRC__KNOB(ep, name) ((ep)->cfg.research.name)
#else
#define MRC__KNOB(ep, name) MRC__DEF_##name
#endif
#define MRC__MIN(a, b) ((a) < (b) ? (a) : (b))
#define MRC__MAX(a, b) ((a) > (b) ? (a) : (b))
#define MRC__STATIC_ASSERT(cond, name) typedef char mrc__static_assert_##name[(cond) ? 1 : -1]
MRC__STATIC_ASSERT(MRC__RSP_BITS >= 128 && MRC__RSP_BITS <= 32768, rsp_bits);
MRC__STATIC_ASSERT(sizeof(uint64_t) == 8, u64);

/* ====== src/codec.h ============================================================================================= */
/* ================================================================================================================
 * CODEC: what src/codec.c offers the layers above it
 * The layout of every header as ONE table of field descriptors, read by the generic encoders and decoders (which
 * interpret it at run time) and by the fixed-offset fast paths here and in the endpoint loop (which expand it at
 * compile time), so a layout correction is a one-line edit. A descriptor is
 *     byte offset, span (bytes read as one big-endian word), shift (bits from the word's LSB), width (bits)
 * The public codec (mrc_*_encode, mrc_*_decode, mrc_pkt_decode, mrc_psn_*, mrc_icrc) is declared in the API.
 * Facts marked [inferred] in docs/PROTOCOL.md are the ones to re-check against the spec PDF.
 * ============================================================================================================== */

/* ---- header layouts (docs/PROTOCOL.md section 3.3) ------------------------------------------------------------ */
/* BTH, 12 bytes (spec Table 6-3/7-10). m/se positions are a runtime choice (mrc_wire_opts.bth_m_bit, Q1 BTH bit order).
 * */
#define MRC__BTH_OPCODE     0, 1, 0, 8
#define MRC__BTH_PAD        1, 1, 4, 2
#define MRC__BTH_TVER       1, 1, 0, 4
#define MRC__BTH_PKEY       2, 2, 0, 16
#define MRC__BTH_RESV8      4, 1, 0, 8
#define MRC__BTH_DEST_QP    5, 3, 0, 24
#define MRC__BTH_A          8, 1, 7, 1
#define MRC__BTH_R          8, 1, 6, 1
#define MRC__BTH_RTX        8, 1, 5, 1
#define MRC__BTH_TS         8, 1, 4, 1
#define MRC__BTH_PSN        9, 3, 0, 24
/* METH, 4 bytes (Table 6-8) */
#define MRC__METH_RQMSN     0, 2, 0, 16
#define MRC__METH_MSN       2, 2, 0, 16
/* TSETH, 4 bytes (Table 6-6) */
#define MRC__TSETH_TS       0, 2, 0, 16
#define MRC__TSETH_TSR      2, 1, 7, 1
#define MRC__TSETH_FTYPE    3, 1, 0, 4
/* RETH, 16 bytes (Table 6-5) */
#define MRC__RETH_VA        0, 8, 0, 64
#define MRC__RETH_RKEY      8, 4, 0, 32
#define MRC__RETH_DMA_LEN   12, 4, 0, 32
/* ImmDt, 4 bytes */
#define MRC__IMMDT_IMM      0, 4, 0, 32
/* AETH, 4 bytes (IBTA) */
#define MRC__AETH_SYNDROME  0, 1, 0, 8
#define MRC__AETH_MSN       1, 3, 0, 24
/* common prefix of SETH, NETH, PETH, ERTH, EETH */
#define MRC__X_TYPE         0, 1, 4, 4
#define MRC__X_NXT          0, 2, 7, 5
/* SETH, 28 bytes (Table 7-14) */
#define MRC__SETH_M         1, 1, 5, 2
#define MRC__SETH_PR        1, 1, 1, 1
#define MRC__SETH_ACK_OFF   2, 2, 0, 16
#define MRC__SETH_ENTROPY   4, 4, 0, 32
#define MRC__SETH_SPDCID    8, 2, 0, 16
#define MRC__SETH_DPDCID    10, 2, 0, 16
#define MRC__SETH_CACK      13, 3, 0, 24
#define MRC__SETH_CC_TYPE   16, 1, 4, 4
#define MRC__SETH_CC_FL     16, 1, 0, 4
#define MRC__SETH_MPR       17, 1, 0, 8
#define MRC__SETH_SACK_OFF  18, 2, 0, 16
#define MRC__SETH_BITMAP    20, 8, 0, 64
/* CC_STATE, 8 bytes (Table 7-12) */
#define MRC__CCS_TS         0, 2, 0, 16
#define MRC__CCS_OOO        2, 2, 0, 15
#define MRC__CCS_R_C        4, 1, 7, 1
#define MRC__CCS_PEN        4, 1, 0, 7
#define MRC__CCS_RCVD       5, 3, 0, 24
/* NETH, 20 bytes (Table 7-16) */
#define MRC__NETH_REASON    2, 1, 0, 8
#define MRC__NETH_VENDOR    3, 1, 0, 8
#define MRC__NETH_ENTROPY   4, 4, 0, 32
#define MRC__NETH_SPDCID    8, 2, 0, 16
#define MRC__NETH_DPDCID    10, 2, 0, 16
#define MRC__NETH_PSN       13, 3, 0, 24
#define MRC__NETH_CC_TYPE   16, 1, 4, 4
#define MRC__NETH_CC_FL     16, 1, 0, 4
#define MRC__NETH_TS        18, 2, 0, 16
/* PETH, 16 bytes (Table 7-18) */
#define MRC__PETH_VENDOR    3, 1, 0, 8
#define MRC__PETH_PROBE_ID  4, 2, 0, 16
#define MRC__PETH_SPDCID    8, 2, 0, 16
#define MRC__PETH_DPDCID    10, 2, 0, 16
#define MRC__PETH_TS        12, 2, 0, 16
#define MRC__PETH_TSR       14, 1, 7, 1
#define MRC__PETH_FTYPE     15, 1, 0, 4
/* ERTH, 16 bytes (Table 7-20) */
#define MRC__ERTH_OP        1, 1, 0, 2
#define MRC__ERTH_VENDOR    3, 1, 0, 8
#define MRC__ERTH_PORTMASK  4, 4, 0, 32
#define MRC__ERTH_TS        12, 2, 0, 16
#define MRC__ERTH_TSR       14, 1, 7, 1
#define MRC__ERTH_FTYPE     15, 1, 0, 4
/* EETH, 36 bytes (Table 7-22); op position is a runtime choice (mrc_wire_opts.eeth_op_shift, Q16b EETH op position) */
#define MRC__EETH_TS        28, 2, 0, 16

/* ---- fixed-offset field access: constant-offset big-endian loads and stores of a field's span ------------------ */
/* Big-endian loads and stores. On little-endian x86 and AArch64 with GCC or Clang, and on 32-bit Arm when the
 * compiler may access memory unaligned (__ARM_FEATURE_UNALIGNED: v7-M without -mno-unaligned-access), 2-, 4- and
 * 8-byte ones are one unaligned access and a byte swap (compilers do not always merge the byte-wise form when many
 * fields are written in a row); everywhere else, and with MRC_CODEC_BYTEWISE, the portable byte-wise C99. They are
 * always inlined (MRC__ALWAYS_INLINE): gcc -Os otherwise keeps them as functions, a call per header field. */
#if !defined(MRC_CODEC_BYTEWISE) && (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) &&      \
    defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&                                \
    (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) ||                                           \
     (defined(__arm__) && defined(__ARM_FEATURE_UNALIGNED)))
#define MRC__BSWAP_IO 1
#else
#define MRC__BSWAP_IO 0
#endif
typedef uint32_t mrc__w1, mrc__w2, mrc__w3, mrc__w4; /* the word a field of span 1..4 is read in */
typedef uint64_t mrc__w8;
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld1(const uint8_t *q);
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld2(const uint8_t *q);
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld3(const uint8_t *q);
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld4(const uint8_t *q);
MRC__PRIVATE MRC__ALWAYS_INLINE uint64_t mrc__ld8(const uint8_t *q);
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld3_at(const uint8_t *p, unsigned o);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st1(uint8_t *q, uint32_t v);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st2(uint8_t *q, uint32_t v);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st3(uint8_t *q, uint32_t v);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st4(uint8_t *q, uint32_t v);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st8(uint8_t *q, uint64_t v);
#define MRC__LD_AT1(p, o) mrc__ld1((p) + (o))
#define MRC__LD_AT2(p, o) mrc__ld2((p) + (o))
#define MRC__LD_AT3(p, o) mrc__ld3_at((p), (o))
#define MRC__LD_AT4(p, o) mrc__ld4((p) + (o))
#define MRC__LD_AT8(p, o) mrc__ld8((p) + (o))
/* MRC__FX(p, F): field F of the header at p */
#define MRC__ONES_(s, b) (~(mrc__w##s)0 >> (8u * sizeof(mrc__w##s) - (b)))
#define MRC__FX_(p, o, s, sh, b) ((MRC__LD_AT##s(p, o) >> (sh)) & MRC__ONES_(s, b))
#define MRC__FX(p, F) MRC__FX_(p, F)
/* The encoders store every header byte exactly once: a field that owns its bytes with MRC__FPUT, and the fields
 * sharing bytes [base, base + n) ORed together with MRC__FW into one store of n bytes (the build fails when the table
 * puts such a field outside those bytes). */
#define MRC__FPUT_(p, o, s, sh, b, v) mrc__st##s((p) + (o), (mrc__w##s)(v) << (sh))
#define MRC__FPUT(p, F, v) MRC__FPUT_(p, F, v)
#define MRC__FW_(base, n, o, s, sh, b, v)                                                                              \
    ((mrc__w##n)(v) << ((sh) + 8u * ((base) + (n) - (o) - (s)) *                                                     \
                                   sizeof(char[(o) >= (base) && (o) + (s) <= (base) + (n) ? 1 : -1])))
#define MRC__FW(base, n, F, v) MRC__FW_(base, n, F, v)
MRC__PRIVATE MRC__INLINE int16_t mrc__s16(uint16_t u);                 /* a 16-bit field as signed */
MRC__PRIVATE MRC__INLINE unsigned mrc__m_bit(const mrc_wire_opts *o);  /* BTH m bit position (Q1 BTH bit order) */
MRC__PRIVATE MRC__INLINE int mrc__seth_fast_ok(const mrc_wire_opts *o); /* SETH takes the fast path */
MRC__PRIVATE MRC__SIZE_NOINLINE uint64_t mrc__rev64(uint64_t v); /* bit order reversed (sack_msb_first) */

/* ---- PSN serial arithmetic ------------------------------------------------------------------------------------ */
#define MRC__PSN_INC(x) (((x) + 1u) & MRC_PSN_MASK)
#define MRC__PSN_DEC(x) (((x) - 1u) & MRC_PSN_MASK)
/* mrc_psn_diff(a, b) < 0: bit 23 of a - b (one test; gcc -Os wrote the difference out in full). Not a test of
 * mrc_psn_diff(b, a) > 0: at a - b = 2^23 both differences are -2^23 */
#define MRC__PSN_BEFORE(a, b) ((((a) - (b)) & MRC_PSN_HALF) != 0u)

/* ---- packet classifier: only the headers the opcode has are read (whole: the fast decoder may read them all) --- */
MRC__PRIVATE MRC__NOINLINE int mrc__pkt_decode_generic(const uint8_t *p, size_t len, const mrc_wire_opts *o,
                                                      mrc_pkt *k);
MRC__PRIVATE MRC__INLINE int mrc__pkt_decode_fast(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_pkt *k,
                                                  bool whole);
/* gcc -Os (a firmware) takes the generic one too: the same results, and the fast one in line cost mrc__recv about
 * 590 B on Cortex-M4, for the general path's packets only (a clean stream's take the fast paths) */
#if defined(MRC_CODEC_GENERIC) || defined(__OPTIMIZE_SIZE__)
#define MRC__PKT_DECODE(p, len, o, k, whole) mrc__pkt_decode_generic(p, len, o, k)
#else
#define MRC__PKT_DECODE(p, len, o, k, whole) mrc__pkt_decode_fast(p, len, o, k, whole)
#endif

/* ====== src/codec.c ============================================================================================= */
/* ================================================================================================================
 * CODEC - src/codec.c
 * Owns: the byte layout of every MRC header (the tables in codec.h), big-endian field access, PSN serial arithmetic,
 * the packet classifier and the RoCEv2 ICRC helper: pure functions of bytes, no endpoint or QP state.
 * Calls: nothing but internal.h.
 * ============================================================================================================== */

/* ---- generic field access: the table interpreted at run time ------------------------------------------------ */
MRC__PRIVATE MRC__INLINE uint64_t mrc__mask64(unsigned bits) {
    return bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1u);
}
MRC__PRIVATE MRC__INLINE uint64_t mrc__fget(const uint8_t *p, unsigned off, unsigned span, unsigned shift,
                                           unsigned bits) {
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < span; i++) v = (v << 8) | p[off + i];
    return (v >> shift) & mrc__mask64(bits);
}
/* Write a field into bytes where its bits are zero (mrc__hdr_put zeroes the header first, and no two fields of a
 * layout share a bit): ORed in; returns 1 when val does not fit the width (nothing written). */
MRC__PRIVATE MRC__INLINE int mrc__fput(uint8_t *p, unsigned off, unsigned span, unsigned shift, unsigned bits,
                                      uint64_t val) {
    unsigned i;
    if (val & ~mrc__mask64(bits)) return 1;
    val <<= shift;
    for (i = span; i-- > 0;) {
        p[off + i] = (uint8_t)(p[off + i] | (val & 0xFFu));
        val >>= 8;
    }
    return 0;
}
#define MRC__GET_(p, o, s, sh, b) mrc__fget((p), (o), (s), (sh), (b))
#define MRC__GET(p, F) MRC__GET_(p, F)
#define MRC__PUT_(p, o, s, sh, b, v) mrc__fput((p), (o), (s), (sh), (b), (uint64_t)(v))
#define MRC__PUT(p, F, v) MRC__PUT_(p, F, v)
MRC__PRIVATE MRC__INLINE int16_t mrc__s16(uint16_t u) {
    return (int16_t)(u >= 0x8000u ? (int32_t)u - 0x10000 : (int32_t)u);
}
/* v's bits in reverse order (the SETH's MSB-first bitmap option; out of line under -Os: the decoder, the encoder and
 * the responder's SACK) */
MRC__PRIVATE MRC__SIZE_NOINLINE uint64_t mrc__rev64(uint64_t v) {
    uint64_t r = 0;
    unsigned i;
    for (i = 0; i < 64; i++) {
        r = (r << 1) | (v & 1u);
        v >>= 1;
    }
    return r;
}
MRC__PRIVATE MRC__INLINE unsigned mrc__m_bit(const mrc_wire_opts *o) { return o && o->bth_m_bit == 6 ? 6u : 7u; }
MRC__PRIVATE MRC__INLINE unsigned mrc__eeth_shift(const mrc_wire_opts *o) {
    return o && o->eeth_op_shift == 4 ? 4u : 2u;
}

/* ---- PSN serial arithmetic ---------------------------------------------------------------------------------- */
MRC_API uint32_t mrc_psn_add(uint32_t psn, int32_t n) { return (psn + (uint32_t)n) & MRC_PSN_MASK; }
/* branch-free: d ^ 2^23 maps [0, 2^24) onto [-2^23, 2^23) + 2^23 with the halves swapped */
MRC_API int32_t mrc_psn_diff(uint32_t a, uint32_t b) {
    return (int32_t)(((a - b) & MRC_PSN_MASK) ^ MRC_PSN_HALF) - (int32_t)MRC_PSN_HALF;
}
MRC_API bool mrc_psn_lt(uint32_t a, uint32_t b) { return mrc_psn_diff(a, b) < 0; }

/* ---- per-header encoders and decoders: each header's fields as a const table walked by one loop -------------
 * The encoders of the control packets (AETH, NETH, PETH, ERTH, EETH) and the generic SETH encoder are kept out of
 * line: they are built inside mrc__poll_tx, and a call there, as before the tables, leaves gcc's register allocation
 * of its common case as it was (x86-64 make bench: 4 instructions per data packet otherwise). */
/* A field of a header: its layout entry (codec.h) and the member of the header's struct that holds it, in four bytes
 * (the build fails when an offset or shift does not fit its bits) */
typedef struct mrc__fdesc {
    uint8_t off_sh;  /* byte offset (bits 4:0), shift (7:5) */
    uint8_t bits;    /* width */
    uint8_t moff;    /* offsetof the struct member */
    uint8_t span_sz; /* span (bits 3:0), sizeof the struct member (7:4) */
} mrc__fdesc;
#define MRC__FD_(o, s, sh, b, T, m)                                                                             \
    {(uint8_t)(((o) | (sh) << 5) * sizeof(char[(o) < 32 && (sh) < 8 ? 1 : -1])), b, (uint8_t)offsetof(T, m),    \
     (uint8_t)((s) | sizeof(((T *)0)->m) << 4)}
#define MRC__FD(F, T, m) MRC__FD_(F, T, m)
/* a header's table: its length first (the entry's first byte), its fields, then an entry of zeros (no field has a zero
 * span_sz): the walks take one pointer */
#define MRC__FDH(hlen) {(uint8_t)(hlen), 0, 0, 0}
#define MRC__FEND {0, 0, 0, 0}
/* a struct member of 1, 2, 4 or 8 bytes, read zero-extended (an int16_t as its 16 bits) and written truncated: the
 * values of the casts the per-field code made (exact-width types are two's complement) */
MRC__PRIVATE uint64_t mrc__mget(const uint8_t *q, unsigned sz) {
    uint8_t b;
    uint16_t w;
    uint32_t d;
    uint64_t v;
    if (sz == 1) {
        MRC_MEMCPY(&b, q, 1);
        return b;
    }
    if (sz == 2) {
        MRC_MEMCPY(&w, q, 2);
        return w;
    }
    if (sz == 4) {
        MRC_MEMCPY(&d, q, 4);
        return d;
    }
    MRC_MEMCPY(&v, q, 8);
    return v;
}
MRC__PRIVATE void mrc__mput(uint8_t *q, unsigned sz, uint64_t v) {
    uint8_t b = (uint8_t)v;
    uint16_t w = (uint16_t)v;
    uint32_t d = (uint32_t)v;
    if (sz == 1) MRC_MEMCPY(q, &b, 1);
    else if (sz == 2) MRC_MEMCPY(q, &w, 2);
    else if (sz == 4) MRC_MEMCPY(q, &d, 4);
    else MRC_MEMCPY(q, &v, 8);
}
/* Decode a header of hlen bytes: every field of the table into its member. Returns hlen or an error. */
MRC__PRIVATE MRC__NOINLINE int mrc__hdr_get(const uint8_t *p, size_t len, void *hv, const mrc__fdesc *d) {
    uint8_t *h = (uint8_t *)hv;
    size_t hlen = d->off_sh;
    if (!p || !h) return MRC_ERR_INVAL;
    if (len < hlen) return MRC_ERR_TRUNC;
    for (d++; d->span_sz; d++)
        mrc__mput(h + d->moff, d->span_sz >> 4u,
                  mrc__fget(p, d->off_sh & 31u, d->span_sz & 15u, d->off_sh >> 5u, d->bits));
    return (int)hlen;
}
/* Encode a header of hlen bytes into zeroed bytes: every field of the table from its member; a value wider than its
 * field is not written and makes the header invalid (zeroed, MRC_ERR_INVAL) once the rest are. On success the caller
 * may then OR in fields outside the table (their bits are zero), checking them the same way. Returns hlen or an
 * error. */
MRC__PRIVATE MRC__NOINLINE int mrc__hdr_put(uint8_t *p, size_t cap, const void *hv, const mrc__fdesc *d) {
    const uint8_t *h = (const uint8_t *)hv;
    size_t hlen = d->off_sh;
    int bad = 0;
    if (!p || !h) return MRC_ERR_INVAL;
    if (cap < hlen) return MRC_ERR_NOBUF;
    MRC_MEMSET(p, 0, hlen);
    for (d++; d->span_sz; d++)
        bad |= mrc__fput(p, d->off_sh & 31u, d->span_sz & 15u, d->off_sh >> 5, d->bits,
                         mrc__mget(h + d->moff, d->span_sz >> 4));
    if (bad) {
        MRC_MEMSET(p, 0, hlen);
        return MRC_ERR_INVAL;
    }
    return (int)hlen;
}
#define MRC__NF(t) (unsigned)(sizeof(t) / sizeof((t)[0]))
#define MRC__DEC_PROLOGUE(HLEN)           \
    if (!p || !h) return MRC_ERR_INVAL;   \
    if (len < (size_t)(HLEN)) return MRC_ERR_TRUNC
/* BTH: m and se sit at run-time bit positions of byte 1, apart from the table */
static const mrc__fdesc mrc__bth_fd[] = {MRC__FDH(MRC_BTH_LEN),
    MRC__FD(MRC__BTH_OPCODE, mrc_bth, opcode), MRC__FD(MRC__BTH_PAD, mrc_bth, pad),
    MRC__FD(MRC__BTH_TVER, mrc_bth, tver),     MRC__FD(MRC__BTH_PKEY, mrc_bth, pkey),
    MRC__FD(MRC__BTH_RESV8, mrc_bth, resv8),   MRC__FD(MRC__BTH_DEST_QP, mrc_bth, dest_qp),
    MRC__FD(MRC__BTH_A, mrc_bth, a),           MRC__FD(MRC__BTH_R, mrc_bth, r),
    MRC__FD(MRC__BTH_RTX, mrc_bth, rtx),       MRC__FD(MRC__BTH_TS, mrc_bth, ts),
    MRC__FD(MRC__BTH_PSN, mrc_bth, psn),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__bth_decode_generic(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_bth *h) {
    unsigned mb = mrc__m_bit(o);
    int r = mrc__hdr_get(p, len, h, mrc__bth_fd);
    if (r < 0) return r;
    h->m = (uint8_t)((p[1] >> mb) & 1u);
    h->se = (uint8_t)((p[1] >> (13u - mb)) & 1u);
    return r;
}
MRC__PRIVATE MRC__INLINE int mrc__bth_encode_generic(uint8_t *p, size_t cap, const mrc_wire_opts *o, const mrc_bth *h) {
    unsigned mb = mrc__m_bit(o);
    int r = mrc__hdr_put(p, cap, h, mrc__bth_fd);
    if (r < 0) return r;
    if (h->m > 1u || h->se > 1u) {
        MRC_MEMSET(p, 0, MRC_BTH_LEN);
        return MRC_ERR_INVAL;
    }
    p[1] = (uint8_t)(p[1] | (unsigned)h->m << mb | (unsigned)h->se << (13u - mb));
    return r;
}
static const mrc__fdesc mrc__meth_fd[] = {MRC__FDH(MRC_METH_LEN),
    MRC__FD(MRC__METH_RQMSN, mrc_meth, rqmsn),
    MRC__FD(MRC__METH_MSN, mrc_meth, msn),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__meth_decode_generic(const uint8_t *p, size_t len, mrc_meth *h) {
    return mrc__hdr_get(p, len, h, mrc__meth_fd);
}
MRC__PRIVATE MRC__INLINE int mrc__meth_encode_generic(uint8_t *p, size_t cap, const mrc_meth *h) {
    return mrc__hdr_put(p, cap, h, mrc__meth_fd);
}
static const mrc__fdesc mrc__tseth_fd[] = {MRC__FDH(MRC_TSETH_LEN),
    MRC__FD(MRC__TSETH_TS, mrc_tseth, tx_timestamp),
    MRC__FD(MRC__TSETH_TSR, mrc_tseth, tsr),
    MRC__FD(MRC__TSETH_FTYPE, mrc_tseth, ftype),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__tseth_decode_generic(const uint8_t *p, size_t len, mrc_tseth *h) {
    return mrc__hdr_get(p, len, h, mrc__tseth_fd);
}
MRC__PRIVATE MRC__INLINE int mrc__tseth_encode_generic(uint8_t *p, size_t cap, const mrc_tseth *h) {
    return mrc__hdr_put(p, cap, h, mrc__tseth_fd);
}
static const mrc__fdesc mrc__reth_fd[] = {MRC__FDH(MRC_RETH_LEN),
    MRC__FD(MRC__RETH_VA, mrc_reth, va), MRC__FD(MRC__RETH_RKEY, mrc_reth, rkey),
    MRC__FD(MRC__RETH_DMA_LEN, mrc_reth, dma_len),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__reth_decode_generic(const uint8_t *p, size_t len, mrc_reth *h) {
    return mrc__hdr_get(p, len, h, mrc__reth_fd);
}
MRC__PRIVATE MRC__INLINE int mrc__reth_encode_generic(uint8_t *p, size_t cap, const mrc_reth *h) {
    return mrc__hdr_put(p, cap, h, mrc__reth_fd);
}
/* ImmDt: the immediate alone, a uint32_t */
typedef struct mrc__immdt_s {
    uint32_t imm;
} mrc__immdt_s;
static const mrc__fdesc mrc__immdt_fd[] = {MRC__FDH(MRC_IMMDT_LEN),
    MRC__FD(MRC__IMMDT_IMM, mrc__immdt_s, imm),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__immdt_decode_generic(const uint8_t *p, size_t len, uint32_t *imm) {
    return mrc__hdr_get(p, len, imm, mrc__immdt_fd);
}
MRC__PRIVATE MRC__INLINE int mrc__immdt_encode_generic(uint8_t *p, size_t cap, uint32_t imm) {
    return mrc__hdr_put(p, cap, &imm, mrc__immdt_fd);
}
static const mrc__fdesc mrc__aeth_fd[] = {MRC__FDH(MRC_AETH_LEN),
    MRC__FD(MRC__AETH_SYNDROME, mrc_aeth, syndrome),
    MRC__FD(MRC__AETH_MSN, mrc_aeth, msn),
    MRC__FEND};
MRC_API int mrc_aeth_decode(const uint8_t *p, size_t len, mrc_aeth *h) {
    return mrc__hdr_get(p, len, h, mrc__aeth_fd);
}
MRC_API MRC__NOINLINE int mrc_aeth_encode(uint8_t *p, size_t cap, const mrc_aeth *h) {
    return mrc__hdr_put(p, cap, h, mrc__aeth_fd);
}
/* SETH: the bitmap apart from the table (its wire bit order is an option); the offsets are int16_t members */
static const mrc__fdesc mrc__seth_fd[] = {MRC__FDH(MRC_SETH_LEN),
    MRC__FD(MRC__X_TYPE, mrc_seth, type),          MRC__FD(MRC__X_NXT, mrc_seth, nxt),
    MRC__FD(MRC__SETH_M, mrc_seth, m),             MRC__FD(MRC__SETH_PR, mrc_seth, pr),
    MRC__FD(MRC__SETH_ACK_OFF, mrc_seth, ack_psn_offset), MRC__FD(MRC__SETH_ENTROPY, mrc_seth, entropy),
    MRC__FD(MRC__SETH_SPDCID, mrc_seth, spdcid),   MRC__FD(MRC__SETH_DPDCID, mrc_seth, dpdcid),
    MRC__FD(MRC__SETH_CACK, mrc_seth, cack_psn),   MRC__FD(MRC__SETH_CC_TYPE, mrc_seth, cc_type),
    MRC__FD(MRC__SETH_CC_FL, mrc_seth, cc_fl),     MRC__FD(MRC__SETH_MPR, mrc_seth, mpr),
    MRC__FD(MRC__SETH_SACK_OFF, mrc_seth, sack_offset),
    MRC__FEND};
MRC__PRIVATE void mrc__seth_bitmap_get(const uint8_t *p, const mrc_wire_opts *o, mrc_seth *h) {
    uint64_t bm = MRC__GET(p, MRC__SETH_BITMAP);
    h->sack_bitmap = (o && o->sack_msb_first) ? mrc__rev64(bm) : bm;
}
MRC__PRIVATE MRC__INLINE int mrc__seth_decode_generic(const uint8_t *p, size_t len, const mrc_wire_opts *o,
                                                      mrc_seth *h) {
    int r = mrc__hdr_get(p, len, h, mrc__seth_fd);
    if (r < 0) return r;
    mrc__seth_bitmap_get(p, o, h);
    return r;
}
MRC__PRIVATE MRC__NOINLINE int mrc__seth_encode_generic(uint8_t *p, size_t cap, const mrc_wire_opts *o,
                                                      const mrc_seth *h) {
    int r = mrc__hdr_put(p, cap, h, mrc__seth_fd);
    if (r < 0) return r;
    (void)MRC__PUT(p, MRC__SETH_BITMAP, (o && o->sack_msb_first) ? mrc__rev64(h->sack_bitmap) : h->sack_bitmap);
    return r;
}
static const mrc__fdesc mrc__ccs_fd[] = {MRC__FDH(MRC_CCSTATE_LEN),
    MRC__FD(MRC__CCS_TS, mrc_cc_state, tx_timestamp), MRC__FD(MRC__CCS_OOO, mrc_cc_state, ooo_count),
    MRC__FD(MRC__CCS_R_C, mrc_cc_state, r_c),         MRC__FD(MRC__CCS_PEN, mrc_cc_state, rcv_cwnd_pen),
    MRC__FD(MRC__CCS_RCVD, mrc_cc_state, rcvd_bytes),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__cc_state_decode_generic(const uint8_t *p, size_t len, mrc_cc_state *h) {
    return mrc__hdr_get(p, len, h, mrc__ccs_fd);
}
MRC__PRIVATE MRC__INLINE int mrc__cc_state_encode_generic(uint8_t *p, size_t cap, const mrc_cc_state *h) {
    return mrc__hdr_put(p, cap, h, mrc__ccs_fd);
}
static const mrc__fdesc mrc__neth_fd[] = {MRC__FDH(MRC_NETH_LEN),
    MRC__FD(MRC__X_TYPE, mrc_neth, type),            MRC__FD(MRC__X_NXT, mrc_neth, nxt),
    MRC__FD(MRC__NETH_REASON, mrc_neth, nack_reason), MRC__FD(MRC__NETH_VENDOR, mrc_neth, vendor_info),
    MRC__FD(MRC__NETH_ENTROPY, mrc_neth, entropy),   MRC__FD(MRC__NETH_SPDCID, mrc_neth, spdcid),
    MRC__FD(MRC__NETH_DPDCID, mrc_neth, dpdcid),     MRC__FD(MRC__NETH_PSN, mrc_neth, nack_psn),
    MRC__FD(MRC__NETH_CC_TYPE, mrc_neth, cc_type),   MRC__FD(MRC__NETH_CC_FL, mrc_neth, cc_fl),
    MRC__FD(MRC__NETH_TS, mrc_neth, tx_timestamp),
    MRC__FEND};
MRC_API int mrc_neth_decode(const uint8_t *p, size_t len, mrc_neth *h) {
    return mrc__hdr_get(p, len, h, mrc__neth_fd);
}
MRC_API MRC__NOINLINE int mrc_neth_encode(uint8_t *p, size_t cap, const mrc_neth *h) {
    return mrc__hdr_put(p, cap, h, mrc__neth_fd);
}
static const mrc__fdesc mrc__peth_fd[] = {MRC__FDH(MRC_PETH_LEN),
    MRC__FD(MRC__X_TYPE, mrc_peth, type),             MRC__FD(MRC__X_NXT, mrc_peth, nxt),
    MRC__FD(MRC__PETH_VENDOR, mrc_peth, vendor_info), MRC__FD(MRC__PETH_PROBE_ID, mrc_peth, probe_id),
    MRC__FD(MRC__PETH_SPDCID, mrc_peth, spdcid),      MRC__FD(MRC__PETH_DPDCID, mrc_peth, dpdcid),
    MRC__FD(MRC__PETH_TS, mrc_peth, tx_timestamp),    MRC__FD(MRC__PETH_TSR, mrc_peth, tsr),
    MRC__FD(MRC__PETH_FTYPE, mrc_peth, ftype),
    MRC__FEND};
MRC_API int mrc_peth_decode(const uint8_t *p, size_t len, mrc_peth *h) {
    return mrc__hdr_get(p, len, h, mrc__peth_fd);
}
MRC_API MRC__NOINLINE int mrc_peth_encode(uint8_t *p, size_t cap, const mrc_peth *h) {
    return mrc__hdr_put(p, cap, h, mrc__peth_fd);
}
static const mrc__fdesc mrc__erth_fd[] = {MRC__FDH(MRC_ERTH_LEN),
    MRC__FD(MRC__X_TYPE, mrc_erth, type),               MRC__FD(MRC__X_NXT, mrc_erth, nxt),
    MRC__FD(MRC__ERTH_OP, mrc_erth, op),                MRC__FD(MRC__ERTH_VENDOR, mrc_erth, vendor_info),
    MRC__FD(MRC__ERTH_PORTMASK, mrc_erth, port_status_mask), MRC__FD(MRC__ERTH_TS, mrc_erth, tx_timestamp),
    MRC__FD(MRC__ERTH_TSR, mrc_erth, tsr),              MRC__FD(MRC__ERTH_FTYPE, mrc_erth, ftype),
    MRC__FEND};
MRC_API int mrc_erth_decode(const uint8_t *p, size_t len, mrc_erth *h) {
    return mrc__hdr_get(p, len, h, mrc__erth_fd);
}
MRC_API MRC__NOINLINE int mrc_erth_encode(uint8_t *p, size_t cap, const mrc_erth *h) {
    return mrc__hdr_put(p, cap, h, mrc__erth_fd);
}
/* EETH: the op sits at a run-time position of byte 1 (Q16b EETH op position), apart from the table */
static const mrc__fdesc mrc__eeth_fd[] = {MRC__FDH(MRC_EETH_LEN),
    MRC__FD(MRC__X_TYPE, mrc_eeth, type), MRC__FD(MRC__X_NXT, mrc_eeth, nxt),
    MRC__FD(MRC__EETH_TS, mrc_eeth, tx_timestamp),
    MRC__FEND};
MRC__PRIVATE void mrc__eeth_op_get(const uint8_t *p, const mrc_wire_opts *o, mrc_eeth *h) {
    unsigned sh = mrc__eeth_shift(o), other = sh == 2 ? 4u : 2u;
    h->op = (uint8_t)mrc__fget(p, 1, 1, sh, 2);
    /* Q16b EETH op position: accept the other position too when the configured one is zero and the other is the only op
     * bits */
    if (h->op == 0 && (p[1] & 0x7Fu & ~(3u << other)) == 0) h->op = (uint8_t)mrc__fget(p, 1, 1, other, 2);
}
MRC_API int mrc_eeth_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_eeth *h) {
    int r = mrc__hdr_get(p, len, h, mrc__eeth_fd);
    if (r < 0) return r;
    mrc__eeth_op_get(p, o, h);
    return r;
}
MRC_API MRC__NOINLINE int mrc_eeth_encode(uint8_t *p, size_t cap, const mrc_wire_opts *o, const mrc_eeth *h) {
    int r = mrc__hdr_put(p, cap, h, mrc__eeth_fd);
    if (r < 0) return r;
    if (h->op > 3u) {
        MRC_MEMSET(p, 0, MRC_EETH_LEN);
        return MRC_ERR_INVAL;
    }
    p[1] = (uint8_t)(p[1] | (unsigned)h->op << mrc__eeth_shift(o));
    return r;
}

/* ---- fixed-offset fast paths ----------------------------------------------------------------------------------------
 * The headers of the data and SACK path (BTH, METH, TSETH, RETH, ImmDt, SETH, CC_STATE) and mrc_pkt_decode for the
 * data opcodes and SACK also have straight-line versions. They use the same table entries as the generic code above,
 * expanded at compile time instead of interpreted at run time, so the tables stay the single source of truth and a
 * layout edit moves both paths: MRC__FX reads a field with constant-offset big-endian byte loads of its span (in 32
 * bits, 64 for an 8-byte span), MRC__FBAD checks a value against the field's width, and the encoders store every
 * header byte exactly once (MRC__FPUT, MRC__FW). Byte-wise: no unaligned access, no type punning, any endianness.
 * Options: the BTH m/se bits sit at a run-time shift in both paths, so either bth_m_bit is fast; SETH is fast with the
 * default LSB-first bitmap (sack_msb_first 0) only and hands the MSB-first order to the generic code. mrc_pkt_decode
 * is fast for the data opcodes, and for SACK when SETH is, once the packet holds every header; other opcodes and
 * short packets go to the generic classifier (so a truncated packet leaves the same partial mrc_pkt and error).
 * The generic functions stay as mrc__*_generic: MRC_CODEC_GENERIC makes the public functions use them, and
 * tests/codec.c and fuzz/fuzz_decode.c check that both paths agree byte for byte and field for field. */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld1(const uint8_t *q) { return q[0]; }
#if MRC__BSWAP_IO
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld2(const uint8_t *q) {
    uint16_t v;
    __builtin_memcpy(&v, q, 2);
    return __builtin_bswap16(v);
}
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld4(const uint8_t *q) {
    uint32_t v;
    __builtin_memcpy(&v, q, 4);
    return __builtin_bswap32(v);
}
#else
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld2(const uint8_t *q) { return (uint32_t)q[0] << 8 | q[1]; }
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld4(const uint8_t *q) {
    return (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
}
#endif
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld3(const uint8_t *q) {
    return (uint32_t)q[0] << 16 | (uint32_t)q[1] << 8 | q[2];
}
MRC__PRIVATE MRC__ALWAYS_INLINE uint64_t mrc__ld8(const uint8_t *q) { return (uint64_t)mrc__ld4(q) << 32 | mrc__ld4(q + 4); }
/* a 3-byte field past the header's first byte is read as the 4 bytes ending with it (one load and byte swap where
 * the target has them) */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld3_at(const uint8_t *p, unsigned o) {
    return o ? mrc__ld4(p + o - 1) & 0xFFFFFFu : mrc__ld3(p);
}
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st1(uint8_t *q, uint32_t v) { q[0] = (uint8_t)v; }
#if MRC__BSWAP_IO
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st2(uint8_t *q, uint32_t v) {
    uint16_t w = __builtin_bswap16((uint16_t)v);
    __builtin_memcpy(q, &w, 2);
}
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st4(uint8_t *q, uint32_t v) {
    v = __builtin_bswap32(v);
    __builtin_memcpy(q, &v, 4);
}
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st8(uint8_t *q, uint64_t v) {
    v = __builtin_bswap64(v);
    __builtin_memcpy(q, &v, 8);
}
#else
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st2(uint8_t *q, uint32_t v) {
    q[0] = (uint8_t)(v >> 8);
    q[1] = (uint8_t)(v & 0xFFu);
}
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st4(uint8_t *q, uint32_t v) {
    q[0] = (uint8_t)(v >> 24);
    q[1] = (uint8_t)(v >> 16);
    q[2] = (uint8_t)(v >> 8);
    q[3] = (uint8_t)(v & 0xFFu);
}
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st8(uint8_t *q, uint64_t v) {
    mrc__st4(q, (uint32_t)(v >> 32));
    mrc__st4(q + 4, (uint32_t)(v & 0xFFFFFFFFu));
}
#endif
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st3(uint8_t *q, uint32_t v) {
    q[0] = (uint8_t)(v >> 16);
    q[1] = (uint8_t)(v >> 8);
    q[2] = (uint8_t)(v & 0xFFu);
}
#define MRC__FBAD_(o, s, sh, b, v) (((mrc__w##s)(v) & ~MRC__ONES_(s, b)) != 0u)
#define MRC__FBAD(F, v) MRC__FBAD_(F, v)
#define MRC__FENC_PROLOGUE(HLEN)        \
    if (!p || !h) return MRC_ERR_INVAL; \
    if (cap < (size_t)(HLEN)) return MRC_ERR_NOBUF
/* a field too wide: the header is left zeroed and nothing else written, as mrc__hdr_put does */
MRC__PRIVATE MRC__INLINE int mrc__enc_bad(uint8_t *p, size_t n) {
    MRC_MEMSET(p, 0, n);
    return MRC_ERR_INVAL;
}
/* BTH: m and se sit at run-time bit positions of byte 1, as in the generic code */
MRC__PRIVATE MRC__INLINE void mrc__bth_get(const uint8_t *p, unsigned mb, mrc_bth *h) {
    h->opcode = (uint8_t)MRC__FX(p, MRC__BTH_OPCODE);
    h->m = (uint8_t)((p[1] >> mb) & 1u);
    h->se = (uint8_t)((p[1] >> (13u - mb)) & 1u);
    h->pad = (uint8_t)MRC__FX(p, MRC__BTH_PAD);
    h->tver = (uint8_t)MRC__FX(p, MRC__BTH_TVER);
    h->pkey = (uint16_t)MRC__FX(p, MRC__BTH_PKEY);
    h->resv8 = (uint8_t)MRC__FX(p, MRC__BTH_RESV8);
    h->dest_qp = MRC__FX(p, MRC__BTH_DEST_QP);
    h->a = (uint8_t)MRC__FX(p, MRC__BTH_A);
    h->r = (uint8_t)MRC__FX(p, MRC__BTH_R);
    h->rtx = (uint8_t)MRC__FX(p, MRC__BTH_RTX);
    h->ts = (uint8_t)MRC__FX(p, MRC__BTH_TS);
    h->psn = MRC__FX(p, MRC__BTH_PSN);
}
MRC__PRIVATE MRC__INLINE int mrc__bth_decode_fast(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_bth *h) {
    unsigned mb = mrc__m_bit(o);
    MRC__DEC_PROLOGUE(MRC_BTH_LEN);
    mrc__bth_get(p, mb, h);
    return MRC_BTH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__bth_encode_fast(uint8_t *p, size_t cap, const mrc_wire_opts *o,
                                                  const mrc_bth *h) {
    unsigned mb = mrc__m_bit(o);
    MRC__FENC_PROLOGUE(MRC_BTH_LEN);
    if (MRC__FBAD(MRC__BTH_OPCODE, h->opcode) | (h->m > 1u) | (h->se > 1u) | MRC__FBAD(MRC__BTH_PAD, h->pad) |
        MRC__FBAD(MRC__BTH_TVER, h->tver) | MRC__FBAD(MRC__BTH_PKEY, h->pkey) | MRC__FBAD(MRC__BTH_RESV8, h->resv8) |
        MRC__FBAD(MRC__BTH_DEST_QP, h->dest_qp) | MRC__FBAD(MRC__BTH_A, h->a) | MRC__FBAD(MRC__BTH_R, h->r) |
        MRC__FBAD(MRC__BTH_RTX, h->rtx) | MRC__FBAD(MRC__BTH_TS, h->ts) | MRC__FBAD(MRC__BTH_PSN, h->psn))
        return mrc__enc_bad(p, MRC_BTH_LEN);
    MRC__FPUT(p, MRC__BTH_OPCODE, h->opcode);
    mrc__st1(p + 1, (uint32_t)h->m << mb | (uint32_t)h->se << (13u - mb) | MRC__FW(1, 1, MRC__BTH_PAD, h->pad) |
                        MRC__FW(1, 1, MRC__BTH_TVER, h->tver));
    MRC__FPUT(p, MRC__BTH_PKEY, h->pkey);
    MRC__FPUT(p, MRC__BTH_RESV8, h->resv8);
    MRC__FPUT(p, MRC__BTH_DEST_QP, h->dest_qp);
    mrc__st1(p + 8, MRC__FW(8, 1, MRC__BTH_A, h->a) | MRC__FW(8, 1, MRC__BTH_R, h->r) |
                        MRC__FW(8, 1, MRC__BTH_RTX, h->rtx) | MRC__FW(8, 1, MRC__BTH_TS, h->ts));
    MRC__FPUT(p, MRC__BTH_PSN, h->psn);
    return MRC_BTH_LEN;
}
MRC__PRIVATE MRC__INLINE void mrc__meth_get(const uint8_t *p, mrc_meth *h) {
    h->rqmsn = (uint16_t)MRC__FX(p, MRC__METH_RQMSN);
    h->msn = (uint16_t)MRC__FX(p, MRC__METH_MSN);
}
MRC__PRIVATE MRC__INLINE int mrc__meth_decode_fast(const uint8_t *p, size_t len, mrc_meth *h) {
    MRC__DEC_PROLOGUE(MRC_METH_LEN);
    mrc__meth_get(p, h);
    return MRC_METH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__meth_encode_fast(uint8_t *p, size_t cap, const mrc_meth *h) {
    MRC__FENC_PROLOGUE(MRC_METH_LEN);
    if (MRC__FBAD(MRC__METH_RQMSN, h->rqmsn) | MRC__FBAD(MRC__METH_MSN, h->msn)) return mrc__enc_bad(p, MRC_METH_LEN);
    MRC__FPUT(p, MRC__METH_RQMSN, h->rqmsn);
    MRC__FPUT(p, MRC__METH_MSN, h->msn);
    return MRC_METH_LEN;
}
MRC__PRIVATE MRC__INLINE void mrc__tseth_get(const uint8_t *p, mrc_tseth *h) {
    h->tx_timestamp = (uint16_t)MRC__FX(p, MRC__TSETH_TS);
    h->tsr = (uint8_t)MRC__FX(p, MRC__TSETH_TSR);
    h->ftype = (uint8_t)MRC__FX(p, MRC__TSETH_FTYPE);
}
MRC__PRIVATE MRC__INLINE int mrc__tseth_decode_fast(const uint8_t *p, size_t len, mrc_tseth *h) {
    MRC__DEC_PROLOGUE(MRC_TSETH_LEN);
    mrc__tseth_get(p, h);
    return MRC_TSETH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__tseth_encode_fast(uint8_t *p, size_t cap, const mrc_tseth *h) {
    MRC__FENC_PROLOGUE(MRC_TSETH_LEN);
    if (MRC__FBAD(MRC__TSETH_TS, h->tx_timestamp) | MRC__FBAD(MRC__TSETH_TSR, h->tsr) |
        MRC__FBAD(MRC__TSETH_FTYPE, h->ftype))
        return mrc__enc_bad(p, MRC_TSETH_LEN);
    MRC__FPUT(p, MRC__TSETH_TS, h->tx_timestamp);
    MRC__FPUT(p, MRC__TSETH_TSR, h->tsr);
    MRC__FPUT(p, MRC__TSETH_FTYPE, h->ftype);
    return MRC_TSETH_LEN;
}
MRC__PRIVATE MRC__INLINE void mrc__reth_get(const uint8_t *p, mrc_reth *h) {
    h->va = MRC__FX(p, MRC__RETH_VA);
    h->rkey = MRC__FX(p, MRC__RETH_RKEY);
    h->dma_len = MRC__FX(p, MRC__RETH_DMA_LEN);
}
MRC__PRIVATE MRC__INLINE int mrc__reth_decode_fast(const uint8_t *p, size_t len, mrc_reth *h) {
    MRC__DEC_PROLOGUE(MRC_RETH_LEN);
    mrc__reth_get(p, h);
    return MRC_RETH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__reth_encode_fast(uint8_t *p, size_t cap, const mrc_reth *h) {
    MRC__FENC_PROLOGUE(MRC_RETH_LEN);
    if (MRC__FBAD(MRC__RETH_VA, h->va) | MRC__FBAD(MRC__RETH_RKEY, h->rkey) | MRC__FBAD(MRC__RETH_DMA_LEN, h->dma_len))
        return mrc__enc_bad(p, MRC_RETH_LEN);
    MRC__FPUT(p, MRC__RETH_VA, h->va);
    MRC__FPUT(p, MRC__RETH_RKEY, h->rkey);
    MRC__FPUT(p, MRC__RETH_DMA_LEN, h->dma_len);
    return MRC_RETH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__immdt_decode_fast(const uint8_t *p, size_t len, uint32_t *imm) {
    uint32_t *h = imm;
    MRC__DEC_PROLOGUE(MRC_IMMDT_LEN);
    *h = MRC__FX(p, MRC__IMMDT_IMM);
    return MRC_IMMDT_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__immdt_encode_fast(uint8_t *p, size_t cap, uint32_t imm) {
    const uint32_t *h = &imm;
    MRC__FENC_PROLOGUE(MRC_IMMDT_LEN);
    if (MRC__FBAD(MRC__IMMDT_IMM, *h)) return mrc__enc_bad(p, MRC_IMMDT_LEN);
    MRC__FPUT(p, MRC__IMMDT_IMM, *h);
    return MRC_IMMDT_LEN;
}
/* SETH: the fast code stores the bitmap as it is on the wire, which is the LSB-first order only */
MRC__PRIVATE MRC__INLINE int mrc__seth_fast_ok(const mrc_wire_opts *o) { return !(o && o->sack_msb_first); }
MRC__PRIVATE MRC__INLINE void mrc__seth_get(const uint8_t *p, mrc_seth *h) {
    h->type = (uint8_t)MRC__FX(p, MRC__X_TYPE);
    h->nxt = (uint8_t)MRC__FX(p, MRC__X_NXT);
    h->m = (uint8_t)MRC__FX(p, MRC__SETH_M);
    h->pr = (uint8_t)MRC__FX(p, MRC__SETH_PR);
    h->ack_psn_offset = mrc__s16((uint16_t)MRC__FX(p, MRC__SETH_ACK_OFF));
    h->entropy = MRC__FX(p, MRC__SETH_ENTROPY);
    h->spdcid = (uint16_t)MRC__FX(p, MRC__SETH_SPDCID);
    h->dpdcid = (uint16_t)MRC__FX(p, MRC__SETH_DPDCID);
    h->cack_psn = MRC__FX(p, MRC__SETH_CACK);
    h->cc_type = (uint8_t)MRC__FX(p, MRC__SETH_CC_TYPE);
    h->cc_fl = (uint8_t)MRC__FX(p, MRC__SETH_CC_FL);
    h->mpr = (uint8_t)MRC__FX(p, MRC__SETH_MPR);
    h->sack_offset = mrc__s16((uint16_t)MRC__FX(p, MRC__SETH_SACK_OFF));
    h->sack_bitmap = MRC__FX(p, MRC__SETH_BITMAP);
}
MRC__PRIVATE MRC__INLINE int mrc__seth_decode_fast(const uint8_t *p, size_t len, const mrc_wire_opts *o,
                                                   mrc_seth *h) {
    if (!mrc__seth_fast_ok(o)) return mrc__seth_decode_generic(p, len, o, h);
    MRC__DEC_PROLOGUE(MRC_SETH_LEN);
    mrc__seth_get(p, h);
    return MRC_SETH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__seth_encode_fast(uint8_t *p, size_t cap, const mrc_wire_opts *o,
                                                   const mrc_seth *h) {
    uint16_t ack_off, sack_off;
    if (!mrc__seth_fast_ok(o)) return mrc__seth_encode_generic(p, cap, o, h);
    MRC__FENC_PROLOGUE(MRC_SETH_LEN);
    ack_off = (uint16_t)h->ack_psn_offset;
    sack_off = (uint16_t)h->sack_offset;
    if (MRC__FBAD(MRC__X_TYPE, h->type) | MRC__FBAD(MRC__X_NXT, h->nxt) | MRC__FBAD(MRC__SETH_M, h->m) |
        MRC__FBAD(MRC__SETH_PR, h->pr) | MRC__FBAD(MRC__SETH_ACK_OFF, ack_off) |
        MRC__FBAD(MRC__SETH_ENTROPY, h->entropy) | MRC__FBAD(MRC__SETH_SPDCID, h->spdcid) |
        MRC__FBAD(MRC__SETH_DPDCID, h->dpdcid) | MRC__FBAD(MRC__SETH_CACK, h->cack_psn) |
        MRC__FBAD(MRC__SETH_CC_TYPE, h->cc_type) | MRC__FBAD(MRC__SETH_CC_FL, h->cc_fl) |
        MRC__FBAD(MRC__SETH_MPR, h->mpr) | MRC__FBAD(MRC__SETH_SACK_OFF, sack_off) |
        MRC__FBAD(MRC__SETH_BITMAP, h->sack_bitmap))
        return mrc__enc_bad(p, MRC_SETH_LEN);
    mrc__st2(p, MRC__FW(0, 2, MRC__X_TYPE, h->type) | MRC__FW(0, 2, MRC__X_NXT, h->nxt) |
                    MRC__FW(0, 2, MRC__SETH_M, h->m) | MRC__FW(0, 2, MRC__SETH_PR, h->pr));
    MRC__FPUT(p, MRC__SETH_ACK_OFF, ack_off);
    MRC__FPUT(p, MRC__SETH_ENTROPY, h->entropy);
    MRC__FPUT(p, MRC__SETH_SPDCID, h->spdcid);
    MRC__FPUT(p, MRC__SETH_DPDCID, h->dpdcid);
    mrc__st4(p + 12, MRC__FW(12, 4, MRC__SETH_CACK, h->cack_psn)); /* byte 12 reserved */
    mrc__st1(p + 16, MRC__FW(16, 1, MRC__SETH_CC_TYPE, h->cc_type) | MRC__FW(16, 1, MRC__SETH_CC_FL, h->cc_fl));
    MRC__FPUT(p, MRC__SETH_MPR, h->mpr);
    MRC__FPUT(p, MRC__SETH_SACK_OFF, sack_off);
    MRC__FPUT(p, MRC__SETH_BITMAP, h->sack_bitmap);
    return MRC_SETH_LEN;
}
MRC__PRIVATE MRC__INLINE void mrc__cc_state_get(const uint8_t *p, mrc_cc_state *h) {
    h->tx_timestamp = (uint16_t)MRC__FX(p, MRC__CCS_TS);
    h->ooo_count = (uint16_t)MRC__FX(p, MRC__CCS_OOO);
    h->r_c = (uint8_t)MRC__FX(p, MRC__CCS_R_C);
    h->rcv_cwnd_pen = (uint8_t)MRC__FX(p, MRC__CCS_PEN);
    h->rcvd_bytes = MRC__FX(p, MRC__CCS_RCVD);
}
MRC__PRIVATE MRC__INLINE int mrc__cc_state_decode_fast(const uint8_t *p, size_t len, mrc_cc_state *h) {
    MRC__DEC_PROLOGUE(MRC_CCSTATE_LEN);
    mrc__cc_state_get(p, h);
    return MRC_CCSTATE_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__cc_state_encode_fast(uint8_t *p, size_t cap, const mrc_cc_state *h) {
    MRC__FENC_PROLOGUE(MRC_CCSTATE_LEN);
    if (MRC__FBAD(MRC__CCS_TS, h->tx_timestamp) | MRC__FBAD(MRC__CCS_OOO, h->ooo_count) |
        MRC__FBAD(MRC__CCS_R_C, h->r_c) | MRC__FBAD(MRC__CCS_PEN, h->rcv_cwnd_pen) |
        MRC__FBAD(MRC__CCS_RCVD, h->rcvd_bytes))
        return mrc__enc_bad(p, MRC_CCSTATE_LEN);
    MRC__FPUT(p, MRC__CCS_TS, h->tx_timestamp);
    MRC__FPUT(p, MRC__CCS_OOO, h->ooo_count);
    mrc__st1(p + 4, MRC__FW(4, 1, MRC__CCS_R_C, h->r_c) | MRC__FW(4, 1, MRC__CCS_PEN, h->rcv_cwnd_pen));
    MRC__FPUT(p, MRC__CCS_RCVD, h->rcvd_bytes);
    return MRC_CCSTATE_LEN;
}
/* The public entry points of the headers above. The three the core sends its control packets through (BTH, SETH and
 * CC_STATE encoders) take the fast path, or the generic one under MRC_CODEC_GENERIC and gcc -Os (a firmware: about
 * 350 B less on Cortex-M4; the clean stream's SACKs are mrc__rsp_fast_sack's own stores); the others - the core never
 * calls them: its receive and data paths use the fast functions directly - take the table code, the same results in
 * less code (tests/codec.c compares the three for every header) */
#if defined(MRC_CODEC_GENERIC) || defined(__OPTIMIZE_SIZE__)
#define MRC__CODEC(f) mrc__##f##_generic
#else
#define MRC__CODEC(f) mrc__##f##_fast
#endif
MRC_API int mrc_bth_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_bth *h) {
    return mrc__bth_decode_generic(p, len, o, h);
}
MRC_API int mrc_bth_encode(uint8_t *p, size_t cap, const mrc_wire_opts *o, const mrc_bth *h) {
    return MRC__CODEC(bth_encode)(p, cap, o, h);
}
MRC_API int mrc_meth_decode(const uint8_t *p, size_t len, mrc_meth *h) { return mrc__meth_decode_generic(p, len, h); }
MRC_API int mrc_meth_encode(uint8_t *p, size_t cap, const mrc_meth *h) { return mrc__meth_encode_generic(p, cap, h); }
MRC_API int mrc_tseth_decode(const uint8_t *p, size_t len, mrc_tseth *h) {
    return mrc__tseth_decode_generic(p, len, h);
}
MRC_API int mrc_tseth_encode(uint8_t *p, size_t cap, const mrc_tseth *h) {
    return mrc__tseth_encode_generic(p, cap, h);
}
MRC_API int mrc_reth_decode(const uint8_t *p, size_t len, mrc_reth *h) { return mrc__reth_decode_generic(p, len, h); }
MRC_API int mrc_reth_encode(uint8_t *p, size_t cap, const mrc_reth *h) { return mrc__reth_encode_generic(p, cap, h); }
MRC_API int mrc_immdt_decode(const uint8_t *p, size_t len, uint32_t *imm) {
    return mrc__immdt_decode_generic(p, len, imm);
}
MRC_API int mrc_immdt_encode(uint8_t *p, size_t cap, uint32_t imm) { return mrc__immdt_encode_generic(p, cap, imm); }
MRC_API int mrc_seth_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_seth *h) {
    return mrc__seth_decode_generic(p, len, o, h);
}
MRC_API int mrc_seth_encode(uint8_t *p, size_t cap, const mrc_wire_opts *o, const mrc_seth *h) {
    return MRC__CODEC(seth_encode)(p, cap, o, h);
}
MRC_API int mrc_cc_state_decode(const uint8_t *p, size_t len, mrc_cc_state *h) {
    return mrc__cc_state_decode_generic(p, len, h);
}
MRC_API int mrc_cc_state_encode(uint8_t *p, size_t cap, const mrc_cc_state *h) {
    return MRC__CODEC(cc_state_encode)(p, cap, h);
}

/* ---- packet classifier -------------------------------------------------------------------------------------- */
MRC_API uint32_t mrc_opcode_hdrs(unsigned opcode) {
    switch (opcode) {
    case MRC_OP_WRITE_FIRST: case MRC_OP_WRITE_MIDDLE: case MRC_OP_WRITE_LAST: case MRC_OP_WRITE_ONLY:
        return MRC_HDR_METH | MRC_HDR_RETH;
    case MRC_OP_WRITE_LAST_IMM: case MRC_OP_WRITE_ONLY_IMM:
        return MRC_HDR_METH | MRC_HDR_RETH | MRC_HDR_IMMDT;
    case MRC_OP_ACK: return MRC_HDR_AETH;
    case MRC_OP_EP_REQ: return MRC_HDR_ERTH;
    case MRC_OP_EP_RSP: return MRC_HDR_EETH;
    case MRC_OP_SACK: return MRC_HDR_SETH | MRC_HDR_CCSTATE;
    case MRC_OP_NACK: return MRC_HDR_NETH;
    case MRC_OP_PROBE_REQ: return MRC_HDR_PETH;
    default: return 0;
    }
}
/* What follows the headers: hdr_len, then the pad and cut rules and payload_len (both classifiers end here) */
MRC__PRIVATE MRC__INLINE int mrc__pkt_finish(mrc_pkt *k, size_t len, size_t off, uint32_t want) {
    k->hdr_len = (uint32_t)off;
    if (len - off < k->bth.pad) {
        /* a switch that trims a data packet cuts into its pad too; the responder NACKs it (Q17 trim recognition) */
        if (!(want & MRC_HDR_METH)) return MRC_ERR_MALFORMED;
        k->flags |= MRC_PKT_CUT;
        return MRC_OK;
    }
    /* more than 32 bits of payload (64-bit size_t) */
    if (((uint64_t)(len - off - k->bth.pad) >> 16 >> 16) != 0u) return MRC_ERR_MALFORMED;
    k->payload_len = (uint32_t)(len - off - k->bth.pad);
    return MRC_OK;
}
/* The headers after BTH in wire order, each where it is decoded in mrc_pkt, with its length and table (TSETH: a data
 * packet's with the BTH ts bit; SETH's bitmap and EETH's op are outside their tables) */
typedef struct mrc__hstep {
    const mrc__fdesc *fd;
    uint16_t flag, koff;
} mrc__hstep;
#define MRC__HSTEP(F, m, L, t) {t, F, (uint16_t)offsetof(mrc_pkt, m)}
static const mrc__hstep mrc__hsteps[] = {
    MRC__HSTEP(MRC_HDR_METH, meth, MRC_METH_LEN, mrc__meth_fd),
    MRC__HSTEP(MRC_HDR_TSETH, tseth, MRC_TSETH_LEN, mrc__tseth_fd),
    MRC__HSTEP(MRC_HDR_RETH, reth, MRC_RETH_LEN, mrc__reth_fd),
    MRC__HSTEP(MRC_HDR_IMMDT, imm, MRC_IMMDT_LEN, mrc__immdt_fd),
    MRC__HSTEP(MRC_HDR_AETH, aeth, MRC_AETH_LEN, mrc__aeth_fd),
    MRC__HSTEP(MRC_HDR_SETH, seth, MRC_SETH_LEN, mrc__seth_fd),
    MRC__HSTEP(MRC_HDR_CCSTATE, cc, MRC_CCSTATE_LEN, mrc__ccs_fd),
    MRC__HSTEP(MRC_HDR_NETH, neth, MRC_NETH_LEN, mrc__neth_fd),
    MRC__HSTEP(MRC_HDR_PETH, peth, MRC_PETH_LEN, mrc__peth_fd),
    MRC__HSTEP(MRC_HDR_ERTH, erth, MRC_ERTH_LEN, mrc__erth_fd),
    MRC__HSTEP(MRC_HDR_EETH, eeth, MRC_EETH_LEN, mrc__eeth_fd)};
MRC__PRIVATE MRC__NOINLINE int mrc__pkt_decode_generic(const uint8_t *p, size_t len, const mrc_wire_opts *o,
                                                      mrc_pkt *k) {
    size_t off;
    uint32_t want, has;
    unsigned i;
    int r;
    if (!p || !k) return MRC_ERR_INVAL;
    MRC_MEMSET(k, 0, sizeof *k);
    r = mrc__bth_decode_generic(p, len, o, &k->bth);
    if (r < 0) return r;
    off = MRC_BTH_LEN;
    want = mrc_opcode_hdrs(k->bth.opcode);
    if (!want) return MRC_ERR_MALFORMED;
    has = want | ((want & MRC_HDR_METH) && k->bth.ts ? (uint32_t)MRC_HDR_TSETH : 0u);
    /* each header bounds-checks through its decoder: a short packet stops at the first missing one */
    for (i = 0; i < MRC__NF(mrc__hsteps); i++) {
        const mrc__hstep *s = &mrc__hsteps[i];
        if (!(has & s->flag)) continue;
        r = mrc__hdr_get(p + off, len - off, (uint8_t *)k + s->koff, s->fd);
        if (r < 0) return r;
        if (s->flag == MRC_HDR_SETH) mrc__seth_bitmap_get(p + off, o, &k->seth);
        if (s->flag == MRC_HDR_EETH) mrc__eeth_op_get(p + off, o, &k->eeth);
        off += (size_t)r;
        k->hdrs |= s->flag;
    }
    return mrc__pkt_finish(k, len, off, want);
}
/* The classifier's fast path: the data opcodes (BTH METH [TSETH] RETH [ImmDt]) and SACK (BTH SETH CC_STATE, LSB-first
 * bitmap) when every header is there, at fixed offsets; everything else goes to the generic classifier. With
 * `whole`, the mrc_pkt is zeroed first, as the generic classifier does (mrc_pkt_decode's contract); without it
 * (mrc_endpoint_recv) only the members these opcodes define are written - the bookkeeping, every header the opcode
 * has, and TSETH and the immediate of a data packet without them - and the other headers are left as they were:
 * the receive path reads a header only where the opcode has it (MRC_DEBUG_PKT_POISON fills them with 0xA5 bytes
 * instead, to prove it in tests). */
#if defined(MRC_DEBUG_PKT_POISON)
#define MRC__PKT_REST(k) MRC_MEMSET(&(k)->aeth, 0xA5, sizeof *(k) - offsetof(mrc_pkt, aeth))
#define MRC__PKT_REST_SACK(k)                                                                                        \
    (MRC_MEMSET(&(k)->meth, 0xA5, offsetof(mrc_pkt, seth) - offsetof(mrc_pkt, meth)),                     \
     MRC_MEMSET(&(k)->neth, 0xA5, sizeof *(k) - offsetof(mrc_pkt, neth)))
#else
#define MRC__PKT_REST(k) ((void)0)
#define MRC__PKT_REST_SACK(k) ((void)0)
#endif
MRC__PRIVATE MRC__INLINE int mrc__pkt_decode_fast(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_pkt *k,
                                                  bool whole) {
    if (p && k && len >= MRC_BTH_LEN) {
        uint32_t want = mrc_opcode_hdrs(MRC__FX(p, MRC__BTH_OPCODE));
        size_t off;
        if ((want & ~(uint32_t)MRC_HDR_IMMDT) == (uint32_t)(MRC_HDR_METH | MRC_HDR_RETH)) {
            uint32_t ts = MRC__FX(p, MRC__BTH_TS);
            const uint8_t *q = p + MRC_BTH_LEN + MRC_METH_LEN;
            off = (size_t)MRC_BTH_LEN + MRC_METH_LEN + MRC_RETH_LEN + (ts ? (size_t)MRC_TSETH_LEN : 0u) +
                  ((want & MRC_HDR_IMMDT) ? (size_t)MRC_IMMDT_LEN : 0u);
            if (len >= off) {
                if (whole) {
                    MRC_MEMSET(k, 0, sizeof *k);
                } else {
                    k->payload_len = k->flags = k->imm = 0;
                    MRC_MEMSET(&k->tseth, 0, sizeof k->tseth);
                    MRC__PKT_REST(k);
                }
                mrc__bth_get(p, mrc__m_bit(o), &k->bth);
                mrc__meth_get(p + MRC_BTH_LEN, &k->meth);
                if (ts) {
                    mrc__tseth_get(q, &k->tseth);
                    q += MRC_TSETH_LEN;
                    want |= MRC_HDR_TSETH;
                }
                mrc__reth_get(q, &k->reth);
                if (want & MRC_HDR_IMMDT) k->imm = MRC__FX(q + MRC_RETH_LEN, MRC__IMMDT_IMM);
                k->hdrs = want;
                return mrc__pkt_finish(k, len, off, want);
            }
        } else if (want == (uint32_t)(MRC_HDR_SETH | MRC_HDR_CCSTATE) && mrc__seth_fast_ok(o)) {
            off = (size_t)MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN;
            if (len >= off) {
                if (whole) {
                    MRC_MEMSET(k, 0, sizeof *k);
                } else {
                    k->payload_len = k->flags = 0;
                    MRC__PKT_REST_SACK(k);
                }
                mrc__bth_get(p, mrc__m_bit(o), &k->bth);
                mrc__seth_get(p + MRC_BTH_LEN, &k->seth);
                mrc__cc_state_get(p + MRC_BTH_LEN + MRC_SETH_LEN, &k->cc);
                k->hdrs = want;
                return mrc__pkt_finish(k, len, off, want);
            }
        }
    }
    return mrc__pkt_decode_generic(p, len, o, k);
}
/* The public classifier through the table code, like the per-header decoders: the same results (tests/codec.c and
 * fuzz/fuzz_decode.c compare it with the fast one), and the fast one is then the general receive path's alone */
MRC_API int mrc_pkt_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_pkt *k) {
    return mrc__pkt_decode_generic(p, len, o, k);
}

/* ---- CRC-32 and the RoCEv2 ICRC (docs/PROTOCOL.md "ICRC", Q15 ICRC and SRv6) -------------------------------- */
MRC_API uint32_t mrc_crc32(uint32_t crc, const uint8_t *p, size_t n) {
    static const uint32_t t[16] = {0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
                                   0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
                                   0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};
    crc = ~crc;
    if (!p) return ~crc;
    while (n--) {
        crc ^= *p++;
        crc = (crc >> 4) ^ t[crc & 15u];
        crc = (crc >> 4) ^ t[crc & 15u];
    }
    return ~crc;
}
MRC_API uint32_t mrc_icrc(const uint8_t *l3, size_t len) {
    static const uint8_t lrh[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    uint8_t h[60 + 8 + MRC_BTH_LEN];
    size_t iphl, n;
    uint32_t crc;
    if (!l3 || len < 1) return 0;
    if ((l3[0] >> 4) == 4) {
        iphl = (size_t)(l3[0] & 15u) * 4u;
        if (iphl < 20) return 0;
    } else if ((l3[0] >> 4) == 6) {
        iphl = 40;
    } else {
        return 0;
    }
    n = iphl + 8 + MRC_BTH_LEN;
    if (len < n) return 0;
    MRC_MEMCPY(h, l3, n);
    if (iphl == 40 && (l3[0] >> 4) == 6) {
        h[0] |= 0x0Fu; /* traffic class (high nibble) */
        h[1] = 0xFF;   /* traffic class (low nibble) + flow label */
        h[2] = 0xFF;
        h[3] = 0xFF;
        h[7] = 0xFF;   /* hop limit */
    } else {
        h[1] = 0xFF;   /* TOS */
        h[8] = 0xFF;   /* TTL */
        h[10] = 0xFF;  /* header checksum */
        h[11] = 0xFF;
    }
    h[iphl + 6] = 0xFF; /* UDP checksum */
    h[iphl + 7] = 0xFF;
    h[iphl + 8 + 4] = 0xFF; /* BTH byte 4 (resv8a) */
    crc = mrc_crc32(0, lrh, sizeof lrh);
    crc = mrc_crc32(crc, h, n);
    return mrc_crc32(crc, l3 + n, len - n);
}
MRC_API void mrc_icrc_put(uint8_t out[4], uint32_t icrc) {
    out[0] = (uint8_t)(icrc & 0xFFu);
    out[1] = (uint8_t)((icrc >> 8) & 0xFFu);
    out[2] = (uint8_t)((icrc >> 16) & 0xFFu);
    out[3] = (uint8_t)((icrc >> 24) & 0xFFu);
}
MRC_API uint32_t mrc_icrc_get(const uint8_t in[4]) {
    return (uint32_t)in[0] | ((uint32_t)in[1] << 8) | ((uint32_t)in[2] << 16) | ((uint32_t)in[3] << 24);
}

/* ---- NACK reasons (docs/PROTOCOL.md 3.4): which ones the requester retransmits ------------------------------ */
MRC_API bool mrc_nack_is_retriable(unsigned reason) {
    switch (reason) {
    case MRC_NACK_TRIMMED: case MRC_NACK_TRIMMED_LASTHOP: case MRC_NACK_NO_BITMAP: case MRC_NACK_NO_PKT_BUFFER:
    case MRC_NACK_NO_RESOURCE: case MRC_NACK_PSN_OOR_WINDOW:
        return true;
    default: return false;
    }
}

/* ====== src/state.h ============================================================================================= */
/* ================================================================================================================
 * ENDPOINT AND QP STATE: what src/state.c offers the layers above it
 * ============================================================================================================== */

#define MRC__EV_NONE 0xFFFFu /* no EV slot (also: no conn slot, in the lists that link conns) */
enum { MRC__PROBE_FREE = 0, MRC__PROBE_TLP = 1, MRC__PROBE_EV = 2, MRC__PROBE_VER = 3 }; /* mrc__probe.kind */

/* ---- error detail, configuration, PRNG, clock ----------------------------------------------------------------- */
MRC__PRIVATE void mrc__detail_begin(mrc_endpoint *ep, unsigned call); /* a control call starts: clear the detail */
MRC__PRIVATE int mrc__fail(mrc_endpoint *ep, int err, unsigned code, uint32_t attr); /* ... fails: detail.index 0 */
MRC__PRIVATE int mrc__fail_at(mrc_endpoint *ep, int err, unsigned code, uint32_t attr, uint32_t index); /* ... at one */
/* profiles' modify calls: the opening checks, and the state machine (1: done, MRC_OK) */
MRC__PRIVATE int mrc__prof_begin(mrc_endpoint *ep, unsigned call, const void *a, uint64_t id, uint32_t mask,
                                 uint32_t all);
MRC__PRIVATE int mrc__prof_step(mrc_endpoint *ep, unsigned cur, unsigned to, uint32_t mask, uint32_t need,
                                uint32_t fixed, bool busy);
/* Table-driven argument checks, in a table's order: a member of 1, 2 or 4 bytes (sz's low bits; 0x80: 0 is allowed
 * too) in [lo, lo + span], or (sz 0x40) one of the values below 32 whose bits span sets; checked always (bit 0) or
 * when the call's mask has bit bit - 1, which the failure then names. Checks that share a code may come in any order
 * among themselves. */
typedef struct mrc__range {
    uint32_t lo, span;
    uint16_t off;
    uint8_t sz, code, bit;
} mrc__range;
#define MRC__RNG(T, m, z, l, h, b, c)                                                                                  \
    {(uint32_t)(l), (uint32_t)(h) - (uint32_t)(l), (uint16_t)offsetof(T, m), (uint8_t)(sizeof(((T *)0)->m) | (z)),     \
     (uint8_t)(c), (uint8_t)(b)}
#define MRC__RSET(T, m, set, b, c) MRC__RNG(T, m, 0x40, 0, set, b, c)
#define MRC__NRANGES(t) (unsigned)(sizeof(t) / sizeof(t)[0]) /* a table's entries */
MRC__PRIVATE int mrc__ranges(mrc_endpoint *ep, const void *base, const mrc__range *r, unsigned n, uint32_t mask);
MRC__PRIVATE void mrc__copy(void *d, const void *s, size_t n); /* MRC_MEMCPY, out of line */
/* profile tables (an entry: the uint64_t ID at offset 0, a uint8_t used flag at offset uo, the same in each table so
 * that gcc passes it as a constant): the used entry of an ID, and a free entry claimed for an ID (zeroed, used, ID
 * set); NULL when there is none */
MRC__PRIVATE void *mrc__tab_find(const void *tab, unsigned n, size_t sz, size_t uo, uint64_t id);
MRC__PRIVATE void *mrc__tab_claim(void *tab, unsigned n, size_t sz, size_t uo, uint64_t id);
MRC__PRIVATE uint64_t mrc__splitmix(uint64_t *st); /* the generator step on a state (SplitMix64) */
MRC__PRIVATE uint64_t mrc__rand(mrc_endpoint *ep);
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__rand_below(mrc_endpoint *ep, uint32_t n);
MRC__PRIVATE MRC__INLINE mrc_time mrc__deadline_add(mrc_time t, mrc_time dt); /* saturating at MRC_TIME_NEVER */
MRC__PRIVATE mrc_time mrc__deadline_ctl(mrc_time t, mrc_time dt); /* the same, out of line (control calls) */
/* t is MRC_TIME_NEVER (all ones): its two halves ANDed, one 32-bit test on 32-bit targets (control calls) */
#define MRC__NEVER(t) (((uint32_t)(t) & (uint32_t)((t) >> 32)) == 0xFFFFFFFFu)
/* the general paths' rarer deadlines (the RTO's re-arm, a verdict's echo, a sweep's wait, the TLP's, a rate limit's,
 * an activity epoch's): out of line where the code's size is asked for (gcc -Os: 8-16 B of Cortex-M4 code each), in
 * line where speed is */
#ifdef __OPTIMIZE_SIZE__
#define MRC__DEADLINE_SZ mrc__deadline_ctl
#else
#define MRC__DEADLINE_SZ mrc__deadline_add
#endif
MRC__PRIVATE bool mrc__bucket_take(mrc_time *tat, mrc_time now, mrc_time T, mrc_time tau); /* a rate limit */
MRC__PRIVATE mrc_time mrc__clock(mrc_endpoint *ep, mrc_time now);                       /* the endpoint's now */
MRC__PRIVATE mrc_time mrc__clock_ctl(mrc_endpoint *ep, mrc_time now);                   /* ... for control calls */
MRC__PRIVATE uint32_t mrc__all_ports(const mrc_endpoint *ep); /* every port: bit p - 1 for port p */

/* ---- memory regions ------------------------------------------------------------------------------------------- */
MRC__PRIVATE int mrc__mr_find(const mrc_endpoint *ep, uint32_t rkey);
MRC__PRIVATE int mrc__mr_find_keyed(const mrc_endpoint *ep, uint32_t rkey); /* caller-chosen rkeys only */

/* ---- the in-flight pool (its waiters: src/sched.c) ------------------------------------------------------------ */
#define MRC__BTAB_IDX(psn) (((psn) >> 6) & (MRC__BTAB_LEN - 1u))
MRC__PRIVATE MRC__INLINE mrc__pblk *mrc__blk(const mrc_conn *c, uint32_t psn);
MRC__PRIVATE MRC__INLINE void mrc__pool_peak(mrc_endpoint *ep);
MRC__PRIVATE MRC__INLINE bool mrc__pool_ret(const mrc_endpoint *ep, uint32_t i);
MRC__PRIVATE void mrc__pool_unretain(mrc_endpoint *ep, uint32_t i);
MRC__PRIVATE void mrc__pool_give(mrc_conn *c, uint32_t psn, uint32_t i);
MRC__PRIVATE void mrc__pool_take(mrc_conn *c, uint32_t psn);

/* ---- conn table ----------------------------------------------------------------------------------------------- */
MRC__PRIVATE uint32_t mrc__qpn_draw(mrc_endpoint *ep, unsigned slot);
MRC__PRIVATE mrc_conn *mrc__conn_lookup(const mrc_endpoint *ep, uint32_t qpn);

/* ---- a QP's per-PSN records, work requests and bitmaps -------------------------------------------------------- */
#define MRC__PR_INFLIGHT 1u /* mrc__psnrec.flags: counted in flight; on the transmit list (c->txl) */
#define MRC__PR_LOST 2u     /* declared lost, waiting for retransmission */
#define MRC__PR_QUEUED 4u   /* on the retransmission queue (c->rtxq) */
#define MRC__PR_RTX 8u      /* transmitted more than once (no RTT sample) */
#define MRC__PR_EVLOST 16u  /* ev_lost names an EV whose loss awaits confirmation */
#define MRC__PR_NAMED 32u   /* a SACK named this (first) transmission (P38 quiet SACKs: a second one is a duplicate) */
#define MRC__PR_EVCONF 64u  /* ev_lost names an EV whose loss this PSN's verdict confirmed (P40: a later SACK echoing an
                             * earlier transmission takes it back) */
#define MRC__PR_FULL 128u   /* a full packet, not its message's last: its nominal size is mrc__nominal_full (set with the
                             * record at the first transmission; mrc__rec_nominal reads it instead of the WR's geometry) */
#define MRC__SQ(c, i) (&(c)->sq[(i) & (MRC_MAX_SQ - 1u)])
/* the record and send time of a PSN that has one (in [win_base, snd_nxt): its block is held) */
#define MRC__REC(c, psn) (&mrc__blk(c, psn)->rec[(psn) & (MRC__BLK_PSNS - 1u)])
#define MRC__REC_SENT(c, psn) (mrc__blk(c, psn)->sent[(psn) & (MRC__BLK_PSNS - 1u)])
/* a record in flight that has seen this many later transmissions without being acknowledged is lost */
#define MRC__TXL_SPAN (2u * MRC_MAX_INFLIGHT)
MRC__PRIVATE MRC__INLINE uint32_t mrc__link_psn(const mrc_conn *c, uint32_t idx); /* the PSN a record link names */
MRC__PRIVATE MRC__INLINE void mrc__plist_push(mrc_conn *c, mrc__plist *l, uint32_t psn, mrc__psnrec *r, bool front);
MRC__PRIVATE MRC__ALWAYS_INLINE mrc__psnrec *mrc__plist_nb(mrc_conn *c, mrc__pblk *bk, uint32_t psn, uint32_t q);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__plist_unlink_bk(mrc_conn *c, mrc__plist *l, uint32_t psn,
                                                         const mrc__psnrec *r, mrc__pblk *bk);
MRC__PRIVATE MRC__INLINE void mrc__plist_unlink(mrc_conn *c, mrc__plist *l, uint32_t psn, const mrc__psnrec *r);
MRC__PRIVATE MRC__INLINE bool mrc__bit(const uint64_t *w, uint32_t nbits, uint32_t i);
MRC__PRIVATE MRC__INLINE void mrc__bit_set(uint64_t *w, uint32_t nbits, uint32_t i);
MRC__PRIVATE MRC__INLINE void mrc__bit_clr(uint64_t *w, uint32_t nbits, uint32_t i);
MRC__PRIVATE uint64_t mrc__bits64(const uint64_t *w, uint32_t nbits, uint32_t start);
MRC__PRIVATE MRC__INLINE unsigned mrc__ctz64(uint64_t v);
MRC__PRIVATE MRC__INLINE uint16_t mrc__ts(const mrc_endpoint *ep, mrc_time t);               /* 16-bit timestamp */
MRC__PRIVATE MRC__SIZE_NOINLINE uint16_t mrc__ts_ctl(const mrc_endpoint *ep, mrc_time t); /* ... out of line */
MRC__PRIVATE MRC__ALWAYS_INLINE mrc_time mrc__ts_unwrap(const mrc_endpoint *ep, uint16_t ts, mrc_time now);
MRC__PRIVATE MRC__SIZE_NOINLINE mrc_time mrc__ts_unwrap_ctl(const mrc_endpoint *ep, uint16_t ts, mrc_time now);
MRC__PRIVATE MRC__INLINE uint32_t mrc__data_hdr_len(const mrc_conn *c, bool imm);
MRC__PRIVATE MRC__INLINE uint16_t mrc__wr_msn(uint32_t i);
MRC__PRIVATE MRC__INLINE uint32_t mrc__wr_index(const mrc_conn *c, uint32_t s);
MRC__PRIVATE MRC__INLINE bool mrc__wr_started(const mrc_conn *c, uint32_t i);
MRC__PRIVATE MRC__INLINE uint32_t mrc__wr_npkts(const mrc_conn *c, const mrc__wr *wr);
MRC__PRIVATE MRC__INLINE uint32_t mrc__pkt_len(const mrc_conn *c, const mrc__wr *wr, uint32_t k);
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__nominal_full(const mrc_conn *c);
MRC__PRIVATE MRC__INLINE uint32_t mrc__nominal(const mrc_conn *c, const mrc__wr *wr, uint32_t k);
MRC__PRIVATE uint32_t mrc__rec_nominal(const mrc_conn *c, uint32_t psn, const mrc__psnrec *r);

/* ---- drops ---------------------------------------------------------------------------------------------------- */
MRC__PRIVATE MRC__NOINLINE int mrc__drop(mrc_endpoint *ep, mrc_conn *c, unsigned reason,
                                        unsigned opcode); /* MRC_ERR_DROP; out of line */

/* ====== src/state.c ============================================================================================= */
/* ================================================================================================================
 * ENDPOINT AND QP STATE - src/state.c
 * Owns: the configuration defaults, the error detail of control calls, the endpoint PRNG and clock, ports, memory
 * regions (rkey -> region in O(1)), the conn table (QPN -> conn in O(1)), the in-flight pool (blocks of per-PSN
 * requester state shared by the endpoint's QPs), the layout of a QP's work requests, per-PSN records and bitmaps with
 * their accessors, and the drop counters. Data structures and their O(1) operations: no protocol decisions.
 * Calls: nothing but internal.h.
 * ============================================================================================================== */

/* ---- error detail: control calls record why they failed (mrc_endpoint_last_error) -------------------------- */
MRC__PRIVATE void mrc__detail_begin(mrc_endpoint *ep, unsigned call) {
    MRC_MEMSET(&ep->detail, 0, sizeof ep->detail);
    ep->detail.call = (uint8_t)call;
}
/* Out of line, and with four arguments for the common case (index 0), which the Arm and x86-64 ABIs pass in registers:
 * the control calls' hundred-odd failure returns are then a few moves and a tail call each (1.1 KB of Cortex-M4 code
 * less than with the stores in line) */
MRC__PRIVATE MRC__NOINLINE int mrc__fail_at(mrc_endpoint *ep, int err, unsigned code, uint32_t attr, uint32_t index) {
    ep->detail.err = (int16_t)err;
    ep->detail.code = (uint16_t)code;
    ep->detail.attr = attr;
    ep->detail.index = (uint16_t)index;
    return err;
}
MRC__PRIVATE MRC__NOINLINE int mrc__fail(mrc_endpoint *ep, int err, unsigned code, uint32_t attr) {
    return mrc__fail_at(ep, err, code, attr, 0);
}
/* The opening checks of a profile's modify call (CC profiles, EV Formats, EV profiles), in their order, the endpoint's
 * first (here, not in each caller: 32 B of Cortex-M4 code less) */
MRC__PRIVATE int mrc__prof_begin(mrc_endpoint *ep, unsigned call, const void *a, uint64_t id, uint32_t mask,
                                 uint32_t all) {
    if (!ep) return MRC_ERR_INVAL;
    mrc__detail_begin(ep, call);
    if (!a) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_NULL_ARG, 0);
    if (!id) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_PROFILE_ID, 0);
    if (mask & ~all) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_MASK, mask & ~all);
    return MRC_OK;
}
/* A profile's life, INIT -> OFFLINE <-> ONLINE, OFFLINE -> INIT, the same for the three kinds (mask bit 0 is the
 * state in each): MRC_OK to go on, 1 when the call is done (INIT -> INIT, the state alone), or the failure. need: the
 * mask bits INIT -> OFFLINE requires; fixed: those an ONLINE profile refuses; busy: ONLINE -> OFFLINE is refused
 * (QPs, or an ONLINE EV profile, use it). */
MRC__STATIC_ASSERT(MRC_CC_PROF_ATTR_STATE == 1u && MRC_EV_FMT_ATTR_STATE == 1u && MRC_EV_PROF_ATTR_STATE == 1u,
                   prof_state_bit);
MRC__PRIVATE int mrc__prof_step(mrc_endpoint *ep, unsigned cur, unsigned to, uint32_t mask, uint32_t need,
                                uint32_t fixed, bool busy) {
    if (cur == MRC_PROFILE_INIT) {
        if (to == MRC_PROFILE_INIT)
            return mask & ~1u ? mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_STATE_MISSING, mask & ~1u) : 1;
        if (to != MRC_PROFILE_OFFLINE) return mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_TRANSITION, 0);
        if ((mask & need) != need) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_ATTR_MISSING, need & ~mask);
    } else if (cur == MRC_PROFILE_ONLINE) {
        if (mask & fixed) return mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_PROFILE_ONLINE, mask & fixed);
        if (to == MRC_PROFILE_INIT) return mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_TRANSITION, 0);
        if (to == MRC_PROFILE_OFFLINE && busy) return mrc__fail(ep, MRC_ERR_BUSY, MRC_DETAIL_PROFILE_BUSY, 0);
    }
    return MRC_OK;
}
/* A copy through a call, for the control calls: gcc -Os copied a byte-aligned struct (an EV Format's attributes) or a
 * fixed-size array (an EV's value) in a loop of its own at every one */
MRC__PRIVATE MRC__NOINLINE void mrc__copy(void *d, const void *s, size_t n) { MRC_MEMCPY(d, s, n); }
/* The three profile tables (EV Formats, EV profiles, CC profiles) share their look-ups: out of line, one loop each
 * instead of a copy per table and per call. O(n), control calls only. */
/* one offset of the used flag: gcc passes it as a constant (72 B of Cortex-M4 code less than three offsets) */
MRC__STATIC_ASSERT(offsetof(mrc__evfmt, used) == 8 && offsetof(mrc__evprof, used) == 8 &&
                       offsetof(mrc__ccprof, used) == 8,
                   tab_used);
MRC__PRIVATE MRC__NOINLINE void *mrc__tab_find(const void *tab, unsigned n, size_t sz, size_t uo, uint64_t id) {
    const uint8_t *t = (const uint8_t *)tab;
    unsigned i;
    for (i = 0; i < n; i++, t += sz) {
        uint64_t v;
        MRC_MEMCPY(&v, t, sizeof v);
        if (t[uo] && v == id) return (void *)(uintptr_t)t;
    }
    return (void *)0;
}
MRC__PRIVATE MRC__NOINLINE void *mrc__tab_claim(void *tab, unsigned n, size_t sz, size_t uo, uint64_t id) {
    uint8_t *t = (uint8_t *)tab;
    unsigned i;
    for (i = 0; i < n; i++, t += sz) {
        if (t[uo]) continue;
        MRC_MEMSET(t, 0, sz);
        MRC_MEMCPY(t, &id, sizeof id);
        t[uo] = 1;
        return t;
    }
    return (void *)0;
}
MRC_API int mrc_endpoint_last_error(const mrc_endpoint *ep, mrc_detail *out) {
    if (!ep || !out) return MRC_ERR_INVAL;
    *out = ep->detail;
    return MRC_OK;
}
/* ---- configuration, PRNG, clock, ports ---------------------------------------------------------------------- */
MRC_API int mrc_ev_policy_preset(mrc_ev_policy *p, int preset) {
    if (!p || preset < MRC_EV_PRESET_DEFAULT || preset > MRC_EV_PRESET_PATHS) return MRC_ERR_INVAL;
    MRC_MEMSET(p, 0, sizeof *p);
    p->recycle = MRC_EV_SCOPE_AUTO;
    p->hold = MRC_EV_SCOPE_ALL;
    p->confirm_late = MRC_EV_SCOPE_ALL;
    p->sweep = MRC_EV_SCOPE_HASHED;
    p->group_retire = MRC_EV_RETIRE_SECOND;
    p->reply = MRC_EV_REPLY_MIRROR;
    p->confirm_loss = true;
    p->backup_pct = 25;
    p->revive_probes = 3;
    p->probe_interval_ns = 0;
    if (preset == MRC_EV_PRESET_ROTATION) {
        p->recycle = p->hold = p->confirm_late = p->sweep = MRC_EV_SCOPE_NONE;
        p->group_retire = MRC_EV_RETIRE_ALONE;
        p->reply = MRC_EV_REPLY_ROTATE;
    } else if (preset == MRC_EV_PRESET_ECMP) {
        p->recycle = MRC_EV_SCOPE_ALL;
        p->reply = MRC_EV_REPLY_ROTATE;
    } else if (preset == MRC_EV_PRESET_PATHS) {
        p->backup_pct = 0;
        p->sweep = MRC_EV_SCOPE_NONE;
    }
    return MRC_OK;
}
/* mrc_config_default's values that are not 0, each written into the zeroed configuration at its offset (the EV policy:
 * mrc_ev_policy_preset; the seed, 64 bits: in code) */
typedef struct mrc__cfg_def {
    uint32_t v;
    uint16_t off;
    uint8_t sz;
} mrc__cfg_def;
#define MRC__DEFAT(o, s, val) {(uint32_t)(val), (uint16_t)(o), (uint8_t)(s)}
#define MRC__DEF(m, val) MRC__DEFAT(offsetof(mrc_config, m), sizeof(((mrc_config *)0)->m), val)
#define MRC__DEF_DSCP(cl, val) MRC__DEFAT(offsetof(mrc_config, dscp) + (cl), 1, val)
static const mrc__cfg_def mrc__cfg_defs[] = {
    MRC__DEF(num_ports, MRC_MAX_PORTS), /* qpn_base 0: random QPNs */
    MRC__DEF(wire.bth_m_bit, 7), MRC__DEF(wire.eeth_op_shift, 2), MRC__DEF(wire.ts_shift, 7),
    /* DSCP codepoints: deployment-specific; these defaults are a project choice (docs/PROTOCOL.md) */
    MRC__DEF_DSCP(MRC_DSCP_TRIMMABLE, 10), MRC__DEF_DSCP(MRC_DSCP_NO_TRIM, 12),
    MRC__DEF_DSCP(MRC_DSCP_TRIMMABLE_RETX, 14), MRC__DEF_DSCP(MRC_DSCP_TRIMMED, 3),
    MRC__DEF_DSCP(MRC_DSCP_TRIMMED_LASTHOP, 4), MRC__DEF_DSCP(MRC_DSCP_CONTROL, 48),
    MRC__DEF(trimmable, 1), MRC__DEF(tseth, 1),
    MRC__DEF(ack.sack_every, 1), MRC__DEF(ack.sack_delay_ns, 4000),
    MRC__DEF(recovery.reorder_slack_min_ns, 2000), MRC__DEF(recovery.rtt_init_ns, 20000),
    MRC__DEF(recovery.tlp_min_ns, 10000), MRC__DEF(recovery.trim_keeps_alive, 1),
    MRC__DEF(recovery.trim_holds_rto, 1),
    MRC__DEF(rx.pen_ooo_pct, 50),
    MRC__DEF(cc.algo, MRC_CC_ALGO_NSCC), MRC__DEF(cc.base_rtt_ns, 12000),
    MRC__DEF(auto_ev.per_port, 16), MRC__DEF(auto_ev.sport_min, 49152), MRC__DEF(auto_ev.sport_max, 65535),
    MRC__DEF(auto_ev.event_mask, MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD),
    MRC__DEF(guard.zero_len_rkey, 1), MRC__DEF(guard.epop_peer_check, 1),
    MRC__DEF(guard.epop_rate_pps, 10000), MRC__DEF(guard.epop_burst, 32),
    MRC__DEF(guard.probe_rate_pps, 250000), MRC__DEF(guard.probe_burst, 64),
    MRC__DEF(guard.psu_hold_ns, 1000000000u),
    MRC__DEF(psu_retry_ns, 200000), MRC__DEF(psu_retries, 8), MRC__DEF(stev_sport_high, 1),
#ifdef MRC_RESEARCH
    MRC__DEF(research.tlp_copies, MRC__DEF_tlp_copies), MRC__DEF(research.reorder_timer, MRC__DEF_reorder_timer),
    MRC__DEF(research.cc_subpkt_shift, MRC__DEF_cc_subpkt_shift),
    MRC__DEF(research.cc_lh_mark_rtts, MRC__DEF_cc_lh_mark_rtts),
    MRC__DEF(research.hold_min_evs, MRC__DEF_hold_min_evs),
#endif
};
MRC_API void mrc_config_default(mrc_config *cfg) {
    unsigned i;
    if (!cfg) return;
    MRC_MEMSET(cfg, 0, sizeof *cfg);
    cfg->seed = 0x6D72632D31303030ull; /* "mrc-1000" */
    for (i = 0; i < sizeof mrc__cfg_defs / sizeof mrc__cfg_defs[0]; i++) {
        const mrc__cfg_def *d = &mrc__cfg_defs[i];
        uint8_t *f = (uint8_t *)cfg + d->off;
        uint64_t w = d->v;
        uint16_t h = (uint16_t)d->v;
        uint8_t b = (uint8_t)d->v;
        if (d->sz == 1) MRC_MEMCPY(f, &b, 1); /* a bool: 1 is true */
        else if (d->sz == 2) MRC_MEMCPY(f, &h, 2);
        else if (d->sz == 4) MRC_MEMCPY(f, &d->v, 4);
        else MRC_MEMCPY(f, &w, 8);
    }
    (void)mrc_ev_policy_preset(&cfg->ev, MRC_EV_PRESET_DEFAULT);
}
/* splitmix64: the endpoint's only source of randomness (two streams from the seed: QPNs, everything else) */
MRC__PRIVATE uint64_t mrc__splitmix(uint64_t *st) {
    uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
MRC__PRIVATE uint64_t mrc__rand(mrc_endpoint *ep) { return mrc__splitmix(&ep->rng); }
/* uniform in [0, n) without 64-bit division (Lemire's multiply-shift on 32 bits) */
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__rand_below(mrc_endpoint *ep, uint32_t n) {
    return (uint32_t)(((mrc__rand(ep) >> 32) * (uint64_t)n) >> 32);
}
/* Every deadline is now + an interval, saturating: an interval that would pass the end of time means never (so no
 * deadline wraps to the past near 2^64 ns). */
MRC__PRIVATE MRC__INLINE mrc_time mrc__deadline_add(mrc_time t, mrc_time dt) {
    return dt >= MRC_TIME_NEVER - t ? MRC_TIME_NEVER : t + dt;
}
/* GCRA token bucket in virtual time (P19 QP 0x2 and probe trust): true when the event is within the rate (and it is
 * then counted). T is the interval per token, tau the burst tolerance; T = 0 means unlimited. O(1), no division. */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE bool mrc__bucket_take(mrc_time *tat, mrc_time now, mrc_time T, mrc_time tau) {
    if (T == 0) return true;
    if (*tat > now && *tat - now > tau) return false;
    *tat = MRC__DEADLINE_SZ(*tat > now ? *tat : now, T);
    return true;
}
MRC__PRIVATE MRC__NOINLINE void mrc__bucket_cfg(uint32_t pps, uint16_t burst, mrc_time *T, mrc_time *tau) {
    *T = pps ? MRC__MAX((mrc_time)1000000000u / pps, (mrc_time)1) : 0; /* once, at init */
    *tau = *T * (mrc_time)(burst ? burst - 1u : 0u);
}
/* Time never runs backwards inside the core: an earlier 'now' than one already seen is treated as that one. */
MRC__PRIVATE mrc_time mrc__clock(mrc_endpoint *ep, mrc_time now) {
    if (now < ep->now) now = ep->now;
    ep->now = now; /* stored either way: no branch on the common path */
    return now;
}
/* The same for the control calls: out of line (in line in six of them it cost 60 B of Cortex-M4 code; the packet and
 * timer calls keep it in line) */
MRC__PRIVATE MRC__NOINLINE mrc_time mrc__clock_ctl(mrc_endpoint *ep, mrc_time now) { return mrc__clock(ep, now); }
/* ... and mrc__deadline_add for rare timers - the endpoint operations', the probe clock's (mrc__evp_arm), a congestion
 * context's last-hop mark and sub-packet pacing: in line in those seven places it cost 76 B of Cortex-M4 code more;
 * the EV policy's, on losses and its own timers (sweeps, host losses, a silent plane, verification and probe rounds),
 * 64 B more (out of line everywhere, -564 B, it cost the per-packet paths 12.2 Cortex-M4 and 17 x86-64 instructions) */
MRC__PRIVATE MRC__NOINLINE mrc_time mrc__deadline_ctl(mrc_time t, mrc_time dt) { return mrc__deadline_add(t, dt); }
/* every port of the endpoint, as a 1-based mask (bit p - 1 for port p) */
MRC__PRIVATE uint32_t mrc__all_ports(const mrc_endpoint *ep) {
    return ep->cfg.num_ports >= 32 ? 0xFFFFFFFFu : ((1u << ep->cfg.num_ports) - 1u);
}
#define MRC__CFGR(m, z, l, h, c) MRC__RNG(mrc_config, m, z, l, h, 0, c)
/* mrc_endpoint_init's checks before the DSCP and source-port checks (in code), then those after them */
static const mrc__range mrc__cfg_ranges[] = {
    MRC__CFGR(num_ports, 0, 1, MRC_MAX_PORTS, MRC_DETAIL_CFG_PORTS),
    MRC__CFGR(qpn_base, 0x80, MRC_EPOP_QPN + 1u, MRC_PSN_MASK - (uint32_t)MRC_MAX_CONNS, MRC_DETAIL_CFG_QPN_BASE),
    MRC__CFGR(wire.bth_m_bit, 0, 6, 7, MRC_DETAIL_CFG_WIRE),
    MRC__RSET(mrc_config, wire.eeth_op_shift, 1u << 2 | 1u << 4, 0, MRC_DETAIL_CFG_WIRE),
    MRC__CFGR(wire.ts_shift, 0, 0, 20, MRC_DETAIL_CFG_WIRE),
    MRC__CFGR(wire.tver, 0, 0, 15, MRC_DETAIL_CFG_WIRE),
    MRC__CFGR(wire.sack_msb_first, 0, 0, 1, MRC_DETAIL_CFG_WIRE)};
static const mrc__range mrc__cfg_ranges2[] = {
    MRC__CFGR(auto_ev.per_port, 0, 1, 0xFFFFu, MRC_DETAIL_CFG_EVS_PER_PORT),
    MRC__CFGR(ev.backup_pct, 0, 0, 90, MRC_DETAIL_CFG_BACKUP_PCT),
    MRC__CFGR(ev.recycle, 0, 0, MRC_EV_SCOPE_ALL, MRC_DETAIL_CFG_EV_POLICY), /* their OR at most ALL (scope_all) */
    MRC__CFGR(ev.hold, 0, 0, MRC_EV_SCOPE_ALL, MRC_DETAIL_CFG_EV_POLICY),
    MRC__CFGR(ev.confirm_late, 0, 0, MRC_EV_SCOPE_ALL, MRC_DETAIL_CFG_EV_POLICY),
    MRC__CFGR(ev.sweep, 0, 0, MRC_EV_SCOPE_ALL, MRC_DETAIL_CFG_EV_POLICY),
    MRC__CFGR(ev.reply, 0, 0, MRC_EV_REPLY_ECHO, MRC_DETAIL_CFG_EV_POLICY),
    MRC__CFGR(ev.group_retire, 0, 0, MRC_EV_RETIRE_SECOND, MRC_DETAIL_CFG_EV_POLICY),
    MRC__CFGR(ev.revive_probes, 0, 1, 7, MRC_DETAIL_CFG_REVIVE),
    MRC__CFGR(auto_ev.event_mask, 0, 0, MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD, MRC_DETAIL_CFG_EVENT_MASK), /* (evs_bits) */
    MRC__CFGR(ack.sack_every, 0, 1, 0xFFFFu, MRC_DETAIL_CFG_SACK_EVERY),
    MRC__CFGR(ev_max_width, 0x80, 16, 8u * MRC_EV_BYTES, MRC_DETAIL_CFG_EV_MAX_WIDTH),
    MRC__CFGR(pool_blocks, 0, 0, MRC_POOL_BLOCKS, MRC_DETAIL_CFG_POOL_BLOCKS)};
MRC__STATIC_ASSERT((MRC_EV_SCOPE_ALL & (MRC_EV_SCOPE_ALL + 1)) == 0, scope_all); /* OR over it iff one over it */
MRC__STATIC_ASSERT(((MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD) & ((MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD) + 1)) == 0, evs_bits);
MRC__PRIVATE MRC__NOINLINE int mrc__ranges(mrc_endpoint *ep, const void *base, const mrc__range *r, unsigned n,
                                           uint32_t mask) {
    for (; n; n--, r++) {
        const uint8_t *f = (const uint8_t *)base + r->off;
        uint32_t v, bit = r->bit ? 1u << (r->bit - 1u) : 0u;
        uint16_t h;
        uint8_t b;
        if (bit && !(mask & bit)) continue;
        if ((r->sz & 7u) == 1u) {
            MRC_MEMCPY(&b, f, 1);
            v = b;
        } else if ((r->sz & 7u) == 2u) {
            MRC_MEMCPY(&h, f, 2);
            v = h;
        } else {
            MRC_MEMCPY(&v, f, 4);
        }
        if (r->sz & 0x40u ? v >= 32u || !((r->span >> v) & 1u) : (v || !(r->sz & 0x80u)) && v - r->lo > r->span)
            return mrc__fail(ep, MRC_ERR_INVAL, r->code, bit);
    }
    return MRC_OK;
}
MRC_API int mrc_endpoint_init(mrc_endpoint *ep, const mrc_config *cfg, mrc_time now) {
    mrc_config d;
    unsigned i;
    int rc;
    if (!ep) return MRC_ERR_INVAL;
    mrc__detail_begin(ep, MRC_CALL_ENDPOINT_INIT);
    if (!cfg) {
        mrc_config_default(&d);
        cfg = &d;
    }
    if ((rc = mrc__ranges(ep, cfg, mrc__cfg_ranges, MRC__NRANGES(mrc__cfg_ranges), 0)) != MRC_OK) return rc;
    for (i = 0; i < MRC_DSCP_CLASSES; i++)
        if (cfg->dscp[i] > 63) return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_CFG_DSCP, 0, i);
    if (cfg->auto_ev.sport_min > cfg->auto_ev.sport_max)
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_CFG_EV_SPORT, 0);
    if ((rc = mrc__ranges(ep, cfg, mrc__cfg_ranges2, MRC__NRANGES(mrc__cfg_ranges2), 0)) != MRC_OK) return rc;
    /* everything but the pool, which is touched block by block as it is first used */
    MRC_MEMSET(ep, 0, (size_t)((const uint8_t *)ep->pool - (const uint8_t *)ep));
    ep->pool_cap = cfg->pool_blocks ? cfg->pool_blocks : (uint32_t)MRC_POOL_BLOCKS;
    ep->pool_nfree = ep->pool_cap;
    ep->detail.call = MRC_CALL_ENDPOINT_INIT;
    ep->cfg = *cfg;
    if (!ep->cfg.ev_max_width) ep->cfg.ev_max_width = 8u * MRC_EV_BYTES;
    ep->rng = cfg->seed;
    ep->qpn_rng = cfg->seed ^ 0x51504E2D51504E2Dull; /* "QPN-QPN-" */
    mrc__bucket_cfg(cfg->guard.epop_rate_pps, cfg->guard.epop_burst, &ep->epop_T, &ep->epop_tau);
    mrc__bucket_cfg(cfg->guard.probe_rate_pps, cfg->guard.probe_burst, &ep->probe_T, &ep->probe_tau);
    ep->now = now;
    ep->ports_up = mrc__all_ports(ep);
    ep->ep_deadline = ep->psu_hold = ep->psu_refresh = MRC_TIME_NEVER;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) ep->epreq[i].deadline = ep->psureq[i].deadline = MRC_TIME_NEVER;
    ep->epoch = 1;
    return MRC_OK;
}
MRC_API bool mrc_endpoint_port_up(const mrc_endpoint *ep, unsigned port) {
    return ep && port >= 1 && port <= ep->cfg.num_ports && ((ep->ports_up >> (port - 1)) & 1u);
}

/* ---- memory regions ---------------------------------------------------------------------------------------------
 * An rkey the core chooses is (slot + 1) << 8 | 8 random key bits, so its lookup is one compare; an rkey the caller
 * chooses (mrc_endpoint_reg_mr_key: the one its verbs library handed out) is found through mr_hash, an open-addressed
 * table of twice MRC_MAX_MRS entries with linear probes and backward-shift deletion (no tombstones), so every lookup
 * is O(1) expected and bounded by the table. Every rkey is unique on the endpoint whoever chose it. */
MRC__PRIVATE MRC__INLINE uint32_t mrc__mr_hslot(uint32_t rkey) {
    return ((rkey * 2654435761u) >> 15) & (MRC__MR_HASH_N - 1u);
}
/* the slot of a caller-chosen rkey, or -1 */
MRC__PRIVATE int mrc__mr_find_keyed(const mrc_endpoint *ep, uint32_t rkey) {
    uint32_t h = mrc__mr_hslot(rkey), n;
    for (n = 0; n < MRC__MR_HASH_N && ep->mr_hash[h]; n++, h = (h + 1u) & (MRC__MR_HASH_N - 1u)) {
        uint32_t i = ep->mr_hash[h] - 1u;
        if (ep->mrs[i].rkey == rkey) return (int)i;
    }
    return -1;
}
MRC__PRIVATE int mrc__mr_find(const mrc_endpoint *ep, uint32_t rkey) {
    uint32_t i = (rkey >> 8) - 1u;
    if ((rkey >> 8) != 0 && i < MRC_MAX_MRS && ep->mrs[i].valid && ep->mrs[i].rkey == rkey) return (int)i;
    return mrc__mr_find_keyed(ep, rkey);
}
MRC__PRIVATE int mrc__mr_check(const mrc_endpoint *ep, void *base, uint64_t iova, uint64_t len, uint32_t access) {
    if (access & ~(uint32_t)(MRC_ACCESS_REMOTE_WRITE | MRC_ACCESS_EXTERNAL)) return MRC_ERR_INVAL;
    if (!base && !((access & MRC_ACCESS_EXTERNAL) && ep->cfg.place)) return MRC_ERR_INVAL;
    if ((access & MRC_ACCESS_EXTERNAL) && !ep->cfg.place) return MRC_ERR_INVAL;
    if (len > UINT64_MAX - iova) return MRC_ERR_INVAL;
    return MRC_OK;
}
/* Both registrations: the core chooses the rkey (out non-NULL: it is written there) or the caller does (out NULL: key,
 * which must be new on the endpoint, goes into mr_hash). One body: the checks and the fill are written once. */
MRC__PRIVATE MRC__NOINLINE int mrc__mr_reg(mrc_endpoint *ep, void *base, uint64_t iova, uint64_t len, uint32_t access,
                                           void *user, uint32_t *out, uint32_t key) {
    unsigned i;
    uint32_t h;
    int rc = mrc__mr_check(ep, base, iova, len, access);
    if (rc != MRC_OK) return rc;
    if (!out && mrc__mr_find(ep, key) >= 0) return MRC_ERR_BUSY;
    for (i = 0; i < MRC_MAX_MRS; i++) {
        uint32_t r, t;
        if (ep->mrs[i].valid) continue;
        if (out) {
            r = (uint32_t)(mrc__rand(ep) & 0xFFu);
            for (t = 0; t < 256u; t++) { /* never an rkey a caller chose: the next key bits then */
                key = ((uint32_t)(i + 1u) << 8) | ((r + t) & 0xFFu);
                if (mrc__mr_find_keyed(ep, key) < 0) break;
            }
            if (t == 256u) continue; /* callers hold all 256 keys of this slot (MRC_MAX_MRS > 256): the next free one */
            *out = key;
        } else {
            ep->mrs[i].keyed = 1;
            for (h = mrc__mr_hslot(key); ep->mr_hash[h]; h = (h + 1u) & (MRC__MR_HASH_N - 1u)) {
            } /* a free entry exists: at most MRC_MAX_MRS of twice as many are used */
            ep->mr_hash[h] = (uint16_t)(i + 1u);
        }
        ep->mrs[i].valid = 1;
        ep->mrs[i].base = (uint8_t *)base;
        ep->mrs[i].user = user;
        ep->mrs[i].iova = iova;
        ep->mrs[i].len = len;
        ep->mrs[i].access = access;
        ep->mrs[i].rkey = key;
        return MRC_OK;
    }
    return MRC_ERR_FULL;
}
MRC_API int mrc_endpoint_reg_mr(mrc_endpoint *ep, void *base, uint64_t iova, uint64_t len, uint32_t access,
                                void *user, uint32_t *rkey) {
    if (!ep || !rkey) return MRC_ERR_INVAL;
    return mrc__mr_reg(ep, base, iova, len, access, user, rkey, 0);
}
MRC_API int mrc_endpoint_reg_mr_key(mrc_endpoint *ep, void *base, uint64_t iova, uint64_t len, uint32_t access,
                                    void *user, uint32_t rkey) {
    if (!ep) return MRC_ERR_INVAL;
    return mrc__mr_reg(ep, base, iova, len, access, user, (uint32_t *)0, rkey);
}
/* take slot i's caller-chosen rkey out of mr_hash: backward-shift deletion keeps every other key's probe run intact */
MRC__PRIVATE void mrc__mr_unhash(mrc_endpoint *ep, unsigned i) {
    uint32_t h = mrc__mr_hslot(ep->mrs[i].rkey), j, home;
    while (ep->mr_hash[h] != i + 1u) h = (h + 1u) & (MRC__MR_HASH_N - 1u);
    for (j = h;;) {
        ep->mr_hash[h] = 0;
        for (;;) {
            j = (j + 1u) & (MRC__MR_HASH_N - 1u);
            if (!ep->mr_hash[j]) return;
            home = mrc__mr_hslot(ep->mrs[ep->mr_hash[j] - 1u].rkey);
            /* the entry at j may move to h unless its home lies cyclically in (h, j] */
            if (h <= j ? (home <= h || home > j) : (home <= h && home > j)) break;
        }
        ep->mr_hash[h] = ep->mr_hash[j];
        h = j;
    }
}
MRC_API int mrc_endpoint_dereg_mr(mrc_endpoint *ep, uint32_t rkey) {
    int i;
    if (!ep) return MRC_ERR_INVAL;
    i = mrc__mr_find(ep, rkey);
    if (i < 0) return MRC_ERR_NOENT;
    if (ep->mrs[i].keyed) mrc__mr_unhash(ep, (unsigned)i);
    MRC_MEMSET(&ep->mrs[i], 0, sizeof ep->mrs[i]);
    return MRC_OK;
}

/* ---- the in-flight pool (IN-FLIGHT MEMORY at the top) ----------------------------------------------------------
 * Blocks of 64 PSNs' requester state; a QP's block table maps PSN / 64 to the block holding it. A QP holds the live
 * blocks of [win_base, snd_nxt) - plus, handed to it while it waited, the one its next PSN enters - and retained
 * blocks: acknowledged PSNs kept readable for late SACKs as long as the records would have lived in a QP of its own
 * (MRC_MAX_INFLIGHT PSNs behind snd_nxt), on the endpoint's FIFO of retained blocks. A block is taken from the free
 * list, else the oldest retained block is reclaimed from its QP (which then has no record of those PSNs). Every
 * operation is O(1); a block released or retained goes to the first QP waiting for one, if any: a QP waits only
 * while no block is free or retained. */
MRC__PRIVATE MRC__INLINE mrc__pblk *mrc__blk(const mrc_conn *c, uint32_t psn) {
    mrc__blkidx b = c->btab[MRC__BTAB_IDX(psn)];
    return b ? &c->ep->pool[b - 1u] : (mrc__pblk *)0;
}
/* blocks live now: the peak is the most at once */
MRC__PRIVATE MRC__INLINE void mrc__pool_peak(mrc_endpoint *ep) {
#ifndef MRC_NO_STATS
    uint32_t live = ep->pool_cap - ep->pool_nfree - ep->pool_nret;
    if (live > ep->st.pool_peak) ep->st.pool_peak = live;
#else
    (void)ep;
#endif
}
/* block i (held) is retained: on the FIFO of retained blocks */
MRC__PRIVATE MRC__INLINE bool mrc__pool_ret(const mrc_endpoint *ep, uint32_t i) {
    return ep->pool[i].prev || ep->ret_head == i + 1u;
}
/* block i leaves the FIFO of retained blocks (from anywhere in it) */
MRC__PRIVATE void mrc__pool_unretain(mrc_endpoint *ep, uint32_t i) {
    mrc__pblk *b = &ep->pool[i];
    MRC_ASSERT(mrc__pool_ret(ep, i) && ep->pool_nret > 0);
    if (b->prev) ep->pool[b->prev - 1u].next = b->next;
    else ep->ret_head = b->next;
    if (b->next) ep->pool[b->next - 1u].prev = b->prev;
    else ep->ret_tail = b->prev;
    b->prev = b->next = 0;
    ep->pool_nret--;
}
/* block i becomes c's block for PSN psn (which has none, or has i itself): lo is that PSN's slot */
MRC__PRIVATE void mrc__pool_give(mrc_conn *c, uint32_t psn, uint32_t i) {
    mrc__pblk *b = &c->ep->pool[i];
    b->acked = 0;
    b->prev = 0;
    b->owner = c->slot;
    b->loc = (uint16_t)(MRC__BTAB_IDX(psn) << 6 | (psn & (MRC__BLK_PSNS - 1u)));
    c->btab[MRC__BTAB_IDX(psn)] = (mrc__blkidx)(i + 1u);
}
/* Take a block for psn; the caller has checked that one is free or retained (mrc__req_new). With none free, the
 * oldest retained block is reclaimed from its QP's table. */
MRC__PRIVATE void mrc__pool_take(mrc_conn *c, uint32_t psn) {
    mrc_endpoint *ep = c->ep;
    uint32_t i;
    MRC_ASSERT(ep->pool_nfree + ep->pool_nret > 0 && !c->btab[MRC__BTAB_IDX(psn)]);
    if (ep->free_head) {
        i = ep->free_head - 1u;
        ep->free_head = ep->pool[i].next;
        ep->pool_nfree--;
    } else if (ep->pool_hw < ep->pool_cap) { /* a block never used before */
        i = ep->pool_hw++;
        ep->pool_nfree--;
    } else { /* reclaim: the owner treats those PSNs as having no record */
        i = ep->ret_head - 1u;
        ep->conns[ep->pool[i].owner]->btab[MRC__PBLK_TAB(&ep->pool[i])] = 0;
        mrc__pool_unretain(ep, i);
        MRC__CNT(ep->st.pool_reclaims++);
    }
    mrc__pool_give(c, psn, i);
    mrc__pool_peak(ep);
}

/* ---- conn table --------------------------------------------------------------------------------------------- */
/* P16 rkeys and QPNs: random QPNs keep the slot in their low MRC__QPN_SLOT_BITS bits (O(1) lookup); the rest is random
 * */
#define MRC__QPN_SLOT_BITS                                                                                          \
    (MRC_MAX_CONNS <= 1 ? 0 : MRC_MAX_CONNS <= 2 ? 1 : MRC_MAX_CONNS <= 4 ? 2 : MRC_MAX_CONNS <= 8 ? 3             \
     : MRC_MAX_CONNS <= 16 ? 4 : MRC_MAX_CONNS <= 32 ? 5 : MRC_MAX_CONNS <= 64 ? 6 : MRC_MAX_CONNS <= 128 ? 7      \
     : MRC_MAX_CONNS <= 256 ? 8 : MRC_MAX_CONNS <= 512 ? 9 : MRC_MAX_CONNS <= 1024 ? 10                           \
     : MRC_MAX_CONNS <= 2048 ? 11 : MRC_MAX_CONNS <= 4096 ? 12 : MRC_MAX_CONNS <= 8192 ? 13                        \
     : MRC_MAX_CONNS <= 16384 ? 14 : MRC_MAX_CONNS <= 32768 ? 15 : 16)
MRC__PRIVATE uint32_t mrc__qpn_draw(mrc_endpoint *ep, unsigned slot) {
    uint32_t q;
    do { /* a slot's 2^(24 - bits) QPNs hold at most 4 forbidden ones: this ends after a few draws at worst */
        q = (((uint32_t)(mrc__splitmix(&ep->qpn_rng) >> 40) << MRC__QPN_SLOT_BITS) | slot) & MRC_PSN_MASK;
    } while (q <= MRC_EPOP_QPN || q == MRC_PSN_MASK || (ep->conns[slot] && ep->conns[slot]->qpn == q));
    return q;
}
MRC__PRIVATE mrc_conn *mrc__conn_lookup(const mrc_endpoint *ep, uint32_t qpn) {
    uint32_t slot = !ep->cfg.qpn_base ? qpn & ((1u << MRC__QPN_SLOT_BITS) - 1u) : qpn - ep->cfg.qpn_base;
    mrc_conn *c;
    if ((ep->cfg.qpn_base && qpn < ep->cfg.qpn_base) || slot >= MRC_MAX_CONNS) return (mrc_conn *)0;
    c = ep->conns[slot];
    return (c && c->qpn == qpn) ? c : (mrc_conn *)0;
}

/* ---- a QP's per-PSN records, work requests and bitmaps ------------------------------------------------------ */
/* The PSN a record link names: a listed record is unacknowledged, in [win_base, snd_nxt), so it is the PSN of
 * [snd_nxt - MRC_MAX_INFLIGHT, snd_nxt) with that residue. */
MRC__PRIVATE MRC__INLINE uint32_t mrc__link_psn(const mrc_conn *c, uint32_t idx) {
    uint32_t last = (c->snd_nxt - 1u) & MRC_PSN_MASK;
    return (last - ((last - idx) & (MRC_MAX_INFLIGHT - 1u))) & MRC_PSN_MASK;
}
/* O(1) list operations on records (mrc__plist; r is psn's record). Only the links between listed records are kept:
 * the head's prev and the tail's next are never read. */
MRC__PRIVATE MRC__INLINE void mrc__plist_push(mrc_conn *c, mrc__plist *l, uint32_t psn, mrc__psnrec *r, bool front) {
    mrc__recidx me = (mrc__recidx)(psn & (MRC_MAX_INFLIGHT - 1u));
    if (!l->n) {
        l->head = l->tail = psn;
    } else if (front) {
        MRC__REC(c, l->head)->prev = me;
        r->next = (mrc__recidx)(l->head & (MRC_MAX_INFLIGHT - 1u));
        l->head = psn;
    } else {
        MRC__REC(c, l->tail)->next = me;
        r->prev = (mrc__recidx)(l->tail & (MRC_MAX_INFLIGHT - 1u));
        l->tail = psn;
    }
    l->n++;
}
/* The record of PSN q, a list neighbour of psn: in bk, psn's block, when the caller holds it (not null) and q is in it -
 * no look-up (a window with holes: a PSN's neighbours on the transmit list are the PSNs beside it) */
MRC__PRIVATE MRC__ALWAYS_INLINE mrc__psnrec *mrc__plist_nb(mrc_conn *c, mrc__pblk *bk, uint32_t psn, uint32_t q) {
    return bk && !((q ^ psn) & ~(MRC__BLK_PSNS - 1u)) ? &bk->rec[q & (MRC__BLK_PSNS - 1u)] : MRC__REC(c, q);
}
/* mrc__plist_unlink with psn's block bk at hand, or null (then a constant: the test goes) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__plist_unlink_bk(mrc_conn *c, mrc__plist *l, uint32_t psn,
                                                         const mrc__psnrec *r, mrc__pblk *bk) {
    MRC_ASSERT(l->n > 0);
    if (l->n == 1) {
        MRC_ASSERT(l->head == psn && l->tail == psn);
    } else if (psn == l->head) {
        l->head = mrc__link_psn(c, r->next);
    } else if (psn == l->tail) {
        l->tail = mrc__link_psn(c, r->prev);
    } else {
        mrc__plist_nb(c, bk, psn, mrc__link_psn(c, r->prev))->next = r->next;
        mrc__plist_nb(c, bk, psn, mrc__link_psn(c, r->next))->prev = r->prev;
    }
    l->n--;
}
MRC__PRIVATE MRC__INLINE void mrc__plist_unlink(mrc_conn *c, mrc__plist *l, uint32_t psn, const mrc__psnrec *r) {
    mrc__plist_unlink_bk(c, l, psn, r, (mrc__pblk *)0);
}
/* circular bitmaps of nbits (a power of two) */
MRC__PRIVATE MRC__INLINE bool mrc__bit(const uint64_t *w, uint32_t nbits, uint32_t i) {
    i &= nbits - 1u;
    return (w[i >> 6] >> (i & 63u)) & 1u;
}
MRC__PRIVATE MRC__INLINE void mrc__bit_set(uint64_t *w, uint32_t nbits, uint32_t i) {
    i &= nbits - 1u;
    w[i >> 6] |= (uint64_t)1 << (i & 63u);
}
MRC__PRIVATE MRC__INLINE void mrc__bit_clr(uint64_t *w, uint32_t nbits, uint32_t i) {
    i &= nbits - 1u;
    w[i >> 6] &= ~((uint64_t)1 << (i & 63u));
}
/* the 64 bits starting at index start, bit 0 = start (the next word's share shifted in two steps that never reach
 * 64: no test of the position) */
MRC__PRIVATE uint64_t mrc__bits64(const uint64_t *w, uint32_t nbits, uint32_t start) {
    uint32_t i = start & (nbits - 1u), wi = i >> 6, sh = i & 63u, nw = nbits >> 6;
    return (w[wi] >> sh) | (w[(wi + 1u) & (nw - 1u)] << 1 << (63u - sh));
}
MRC__PRIVATE MRC__INLINE unsigned mrc__ctz64(uint64_t v) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(v);
#else
    unsigned n = 0;
    while (!(v & 1u)) { v >>= 1; n++; }
    return n;
#endif
}
MRC__PRIVATE MRC__INLINE uint16_t mrc__ts(const mrc_endpoint *ep, mrc_time t) {
    return (uint16_t)((t >> ep->cfg.wire.ts_shift) & 0xFFFFu);
}
/* The same for the probes' and endpoint operations' stamps, out of line under -Os (their three copies in line cost
 * 40 B of Cortex-M4 code more) */
MRC__PRIVATE MRC__SIZE_NOINLINE uint16_t mrc__ts_ctl(const mrc_endpoint *ep, mrc_time t) { return mrc__ts(ep, t); }
/* The full time of a 16-bit echoed timestamp: the latest time <= now with those low bits (wraps every
 * 2^(16 + ts_shift) ns, 8.4 ms by default). */
MRC__PRIVATE MRC__ALWAYS_INLINE mrc_time mrc__ts_unwrap(const mrc_endpoint *ep, uint16_t ts, mrc_time now) {
    unsigned sh = ep->cfg.wire.ts_shift;
    uint64_t nu = now >> sh, d = (nu - ts) & 0xFFFFu;
    return nu >= d ? (nu - d) << sh : 0;
}
/* The same for the general code's SACK and NACK paths, out of line under -Os (its three copies in line cost 136 B of
 * Cortex-M4 code more; the SACK fast path keeps its own copy in line: out of line it cost 16 per packet there) */
MRC__PRIVATE MRC__SIZE_NOINLINE mrc_time mrc__ts_unwrap_ctl(const mrc_endpoint *ep, uint16_t ts, mrc_time now) {
    return mrc__ts_unwrap(ep, ts, now);
}
MRC__PRIVATE MRC__INLINE uint32_t mrc__data_hdr_len(const mrc_conn *c, bool imm) {
    return (uint32_t)MRC_BTH_LEN + MRC_METH_LEN + (c->ep->cfg.tseth ? (uint32_t)MRC_TSETH_LEN : 0u) + MRC_RETH_LEN +
           (imm ? (uint32_t)MRC_IMMDT_LEN : 0u);
}
/* MSN of the send-queue entry of free-running index i: the first message of a QP is MSN 1 (sq_tail is 0 in RTS) */
MRC__PRIVATE MRC__INLINE uint16_t mrc__wr_msn(uint32_t i) { return (uint16_t)(i + 1u); }
/* free-running index of the send-queue entry in slot s (an entry in [sq_head, sq_tail)) */
MRC__PRIVATE MRC__INLINE uint32_t mrc__wr_index(const mrc_conn *c, uint32_t s) {
    return c->sq_head + ((s - c->sq_head) & (MRC_MAX_SQ - 1u));
}
/* whether the entry of free-running index i, in [sq_done, sq_tail), has sent a packet yet */
MRC__PRIVATE MRC__INLINE bool mrc__wr_started(const mrc_conn *c, uint32_t i) {
    return i - c->sq_done < c->sq_send - c->sq_done || (i == c->sq_send && c->sq_sent != 0);
}
/* packets in a message: its length in path-MTU packets, at least one (the path MTU is fixed from RTR on) */
MRC__PRIVATE MRC__INLINE uint32_t mrc__wr_npkts(const mrc_conn *c, const mrc__wr *wr) {
    return wr->len ? ((wr->len - 1u) >> c->mtu_shift) + 1u : 1u;
}
/* payload bytes of packet k of a message */
MRC__PRIVATE MRC__INLINE uint32_t mrc__pkt_len(const mrc_conn *c, const mrc__wr *wr, uint32_t k) {
    uint64_t off = (uint64_t)k << c->mtu_shift;
    uint32_t mtu = 1u << c->mtu_shift;
    if (wr->len <= off) return 0;
    return (uint32_t)MRC__MIN((uint64_t)mtu, wr->len - off);
}
MRC__PRIVATE MRC__INLINE bool mrc__pkt_has_imm(const mrc_conn *c, const mrc__wr *wr, uint32_t k) {
    return wr->opcode == MRC_WR_WRITE_IMM && k + 1u == mrc__wr_npkts(c, wr);
}
/* nominal_pktsize = UDP payload + 40 (spec 8.3.1): MRC headers + payload + pad + ICRC + 40. Every packet but a
 * message's last carries a full path MTU (a multiple of 4: no pad) and no immediate. */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__nominal_full(const mrc_conn *c) { /* a full packet's */
    return mrc__data_hdr_len(c, false) + (1u << c->mtu_shift) + 4u + MRC_NOMINAL_HDR;
}
MRC__PRIVATE MRC__INLINE uint32_t mrc__nominal(const mrc_conn *c, const mrc__wr *wr, uint32_t k) {
    uint32_t plen;
    if (k + 1u < mrc__wr_npkts(c, wr)) return mrc__nominal_full(c);
    plen = mrc__pkt_len(c, wr, k);
    return mrc__data_hdr_len(c, mrc__pkt_has_imm(c, wr, k)) + plen + ((4u - (plen & 3u)) & 3u) + 4u + MRC_NOMINAL_HDR;
}
/* nominal size of a PSN's packet (its message is still in the send queue while the PSN is in the window) */
MRC__PRIVATE uint32_t mrc__rec_nominal(const mrc_conn *c, uint32_t psn, const mrc__psnrec *r) {
    const mrc__wr *wr = &c->sq[r->wr];
    if (r->flags & MRC__PR_FULL) return mrc__nominal_full(c);
    return mrc__nominal(c, wr, (psn - wr->first_psn) & MRC_PSN_MASK);
}

/* ---- drops: a packet discarded is counted by reason, never fatal to the endpoint ---------------------------- */
/* Out of line: a drop is never the common case, and in line the 50-odd drop returns cost 136 B of Cortex-M4 code more
 * (most of them in the receive path's checks and the endpoint operations'); MRC__NOINLINE is on its declaration
 * (state.h) */
MRC__PRIVATE int mrc__drop(mrc_endpoint *ep, mrc_conn *c, unsigned reason, unsigned opcode) {
    MRC_ASSERT(reason < MRC_DROP_REASONS);
    ep->st.drop[reason]++;
    ep->st.rx_drops++;
    if (c) c->st.rx_drops++;
    MRC__TRACE(ep, MRC_TRACE_DROP, reason, opcode);
    (void)opcode;
    return MRC_ERR_DROP;
}

/* ====== src/timers.h ============================================================================================ */
/* ================================================================================================================
 * TIMERS: what src/timers.c offers the layers above it
 * ============================================================================================================== */

/* ---- the heap of QPs by earliest deadline --------------------------------------------------------------------- */
#define MRC__NOHEAP 0xFFFFu /* conn->heap_idx of a QP not in the heap */
MRC__PRIVATE void mrc__heap_remove(mrc_endpoint *ep, mrc_conn *c);
/* The timers' helpers that have several callers (mrc__timers_min, mrc__reo_at, the heap's mrc__hset): one copy out of
 * line under gcc -Os (MRC__SIZE_NOINLINE: mrc__reo_at 40 B less of Cortex-M4 .text, mrc__hset 32 B), in line where
 * speed is asked for */
MRC__PRIVATE MRC__SIZE_NOINLINE mrc_time mrc__timers_min(const mrc_conn *c); /* the QP's earliest deadline */
MRC__PRIVATE void mrc__timer_update(mrc_conn *c);                     /* after any of its deadlines moved */
MRC__PRIVATE void mrc__timer_rekey(mrc_conn *c); /* the heap key made exact (P36 lazy deadlines) */

/* ---- the requester's timers ----------------------------------------------------------------------------------- */
MRC__PRIVATE mrc_time mrc__rto_interval(const mrc_conn *c, uint32_t retries);
MRC__PRIVATE mrc_time mrc__slack(mrc_conn *c); /* the reorder tolerance (P32 reorder timer) */
MRC__PRIVATE MRC__INLINE mrc_time mrc__slack_base(const mrc_conn *c); /* its base: max(floor, min RTT / 4) (Q5) */
MRC__PRIVATE void mrc__reo_widen(mrc_conn *c, mrc_time now);
MRC__PRIVATE MRC__SIZE_NOINLINE mrc_time mrc__reo_at(const mrc_conn *c, mrc_time sent, mrc_time slack);
MRC__PRIVATE mrc_time mrc__reo_due(mrc_conn *c);
MRC__PRIVATE void mrc__req_tlp_exact(mrc_conn *c); /* the TLP deadline exact (P36 lazy deadlines) */
#define MRC__TM_ALL 0u  /* mrc__req_timers_x: the RTO, the TLP and the reorder deadline */
#define MRC__TM_SACK 1u /* the RTO and the TLP; the reorder deadline as a SACK's loss detection set it */
#define MRC__TM_TX 2u   /* after a transmission: the RTO and the TLP where they may stay (P36), else as SACK */
MRC__PRIVATE void mrc__req_timers_x(mrc_conn *c, unsigned how); /* re-arm RTO, TLP (and the reorder deadline) */
MRC__PRIVATE void mrc__req_timers(mrc_conn *c);
#if MRC_FAST_PATH
MRC__PRIVATE MRC__INLINE void mrc__req_timers_arm(mrc_conn *c, uint32_t retries, uint32_t tlp_count,
                                                  mrc_time rto_start, mrc_time tlp_base);
MRC__PRIVATE MRC__INLINE void mrc__req_timers_tx(mrc_conn *c, mrc_time now); /* after a new PSN, no probe due */
#endif

/* ====== src/timers.c ============================================================================================ */
/* ================================================================================================================
 * TIMERS - src/timers.c
 * Owns: every deadline of a QP and the endpoint's heap of QPs keyed by a lower bound of their earliest one
 * (mrc_endpoint_next_deadline reads its top in O(1); a deadline that moves later costs nothing, one that moves earlier
 * a sift up, and on_timeout re-keys exactly: P36 lazy deadlines), and the requester's
 * retransmission timers: the RTO with linear then exponential back-off (Q25 retry budget), the tail-loss probe and the
 * reorder deadline (P32 reorder timer, the reorder tolerance). What a timer does when it fires belongs to its owner
 * (requester, responder, paths, congestion control, endpoint operations); src/endpoint.c dispatches the expiries.
 * Calls: state.
 * ============================================================================================================== */

/* ---- the heap: QP slots ordered by conn->deadline; heap_idx is a QP's position, MRC__NOHEAP when absent ----- */
MRC__PRIVATE mrc_time mrc__hkey(const mrc_endpoint *ep, uint32_t i) { return ep->conns[ep->heap[i]]->deadline; }
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__hset(mrc_endpoint *ep, uint32_t i, uint16_t slot) {
    ep->heap[i] = slot;
    ep->conns[slot]->heap_idx = (uint16_t)i;
}
MRC__PRIVATE void mrc__heap_fix(mrc_endpoint *ep, uint32_t i) {
    uint16_t s = ep->heap[i];
    mrc_time k = ep->conns[s]->deadline;
    while (i > 0 && mrc__hkey(ep, (i - 1) / 2) > k) { /* sift up */
        mrc__hset(ep, i, ep->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) { /* sift down */
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        mrc_time mk = k;
        if (l < ep->heap_len && mrc__hkey(ep, l) < mk) { m = l; mk = mrc__hkey(ep, l); }
        if (r < ep->heap_len && mrc__hkey(ep, r) < mk) m = r;
        if (m == i) break;
        mrc__hset(ep, i, ep->heap[m]);
        i = m;
    }
    mrc__hset(ep, i, s);
}
MRC__PRIVATE void mrc__heap_remove(mrc_endpoint *ep, mrc_conn *c) {
    uint32_t i = c->heap_idx;
    if (i == MRC__NOHEAP) return;
    c->heap_idx = MRC__NOHEAP;
    ep->heap_len--;
    if (i != ep->heap_len) {
        mrc__hset(ep, i, ep->heap[ep->heap_len]);
        mrc__heap_fix(ep, i);
    }
}
/* The earliest of a conn's timers: its heap key (mrc_conn_check rule 16). */
MRC__PRIVATE MRC__SIZE_NOINLINE mrc_time mrc__timers_min(const mrc_conn *c) {
    mrc_time d = MRC__MIN(MRC__MIN(c->rto_deadline, c->tlp_deadline), MRC__MIN(c->sack_deadline, c->evp_deadline));
    return MRC__MIN(MRC__MIN(MRC__MIN(d, c->reo_deadline), MRC__MIN(c->nopath_deadline, c->pace_deadline)),
                    c->ver_deadline);
}
/* docs/PROTOCOL.md P36 lazy deadlines: a QP's heap key (conn->deadline) is a lower bound of its timers, not always
 * the earliest. A timer that moves later - the RTO and the tail-loss probe after every packet sent or acknowledged,
 * the common case - leaves the key where it is: O(1), no re-sift. A timer that moves earlier lowers the key (sift up;
 * a QP enters the heap when it gets its first finite timer). When the key is reached, mrc_endpoint_on_timeout finds
 * what is due (possibly nothing) and re-keys the QP exactly (mrc__timer_rekey), so a QP whose timers keep moving
 * later costs one early wake-up per timer interval instead of a re-sift per packet. A QP left with no timer at all
 * stays in the heap too (its key is reached once, then it leaves): ep->armed counts the QPs with a timer armed, and
 * with none mrc_endpoint_next_deadline is MRC_TIME_NEVER, as for an idle endpoint. */
/* whether the QP has a timer armed, counted in ep->armed */
MRC__PRIVATE MRC__INLINE void mrc__timer_armed(mrc_conn *c, mrc_time d) {
    uint8_t a = d != MRC_TIME_NEVER;
    if (a != c->t_armed) {
        c->t_armed = a;
        if (a) c->ep->armed++;
        else c->ep->armed--;
    }
}
/* Key the QP at d (finite): into the heap if it is not there, then to its place. O(log conns). Out of line: gcc -Os
 * wrote it into both its callers, and a key that moves earlier is the rare case of each (P36 lazy deadlines). */
MRC__PRIVATE MRC__NOINLINE void mrc__heap_key(mrc_endpoint *ep, mrc_conn *c, mrc_time d) {
    c->deadline = d;
    if (c->heap_idx == MRC__NOHEAP) {
        c->heap_idx = ep->heap_len;
        ep->heap[ep->heap_len++] = c->slot;
    }
    /* alone in the heap, mrc__heap_fix would move nothing and rewrite the position it has */
    if (ep->heap_len > 1u) mrc__heap_fix(ep, c->heap_idx);
}
MRC__PRIVATE void mrc__timer_update(mrc_conn *c) {
    mrc_time d = mrc__timers_min(c);
    mrc__timer_armed(c, d);
    if (d < c->deadline) mrc__heap_key(c->ep, c, d); /* later, the same, or none: the key stays (P36) */
}
/* The key made exact again: the earliest of the timers, out of the heap when none is armed. O(log conns). The armed
 * count and a key that must move earlier as mrc__timer_update does them (then the key is exact, and in the heap); the
 * earliest timer read again after it (it changes none), a second time on this cold path rather than a copy of it. */
MRC__PRIVATE void mrc__timer_rekey(mrc_conn *c) {
    mrc_time d;
    mrc__timer_update(c);
    d = mrc__timers_min(c);
    if (d == c->deadline && (d == MRC_TIME_NEVER) == (c->heap_idx == MRC__NOHEAP)) return;
    if (d == MRC_TIME_NEVER) {
        c->deadline = d;
        mrc__heap_remove(c->ep, c);
    } else {
        mrc__heap_key(c->ep, c, d);
    }
}

/* ---- the requester's timers: RTO, tail-loss probe, reorder deadline ----------------------------------------- */
/* ACK timeout (docs/PROTOCOL.md P5 RTO schedule): T = 1.024 us * 2^timeout. The wait before expiry n is T while
 * n <= retry_linear + 1 and doubles after each exponential retry, capped at 2^24 * 1.024 us. */
MRC__PRIVATE mrc_time mrc__rto_interval(const mrc_conn *c, uint32_t retries) {
    const mrc_time cap = (mrc_time)1024u << 24;
    mrc_time t;
    uint32_t e;
    if (c->attr.timeout == 0) return MRC_TIME_NEVER; /* IBTA: 0 = infinite */
    t = (mrc_time)1024u << c->attr.timeout;
    if (retries > c->attr.retry_linear)
        for (e = retries - c->attr.retry_linear; e && t < cap; e--) t <<= 1;
    return MRC__MIN(t, cap);
}
/* The TLP's deadline: its interval (backed off by tlp_count) after tlp_base. Out of line: the fast paths keep the TLP
 * (mrc__req_tlp_keeps) or compute it in line (mrc__req_timers_arm) */
MRC__PRIVATE MRC__NOINLINE mrc_time mrc__tlp_at(const mrc_conn *c) {
    mrc_time t = MRC__MAX((mrc_time)c->ep->cfg.recovery.tlp_min_ns, 2u * c->srtt);
    t = MRC__MAX(t, (mrc_time)1000u);
    return MRC__DEADLINE_SZ(c->tlp_base, t << MRC__MIN(c->tlp_count, 10u));
}
/* Reordering tolerance (Q5 reordering slack): a configured value, or the base s = max(floor, min RTT / 4) times a
 * multiplier that grows by one, at most once per smoothed RTT, each time an earlier transmission of a retransmitted
 * PSN is SACKed (the retransmission was spurious), while s times it is below the smoothed RTT (RACK's bound, RFC 8985
 * 6.2: a fabric whose planes' queues differ by more than 4 minimum RTTs reorders by more than a fixed 16 x s), and
 * shrinks by one after 16 smoothed RTTs without growing. At most the smoothed RTT. */
MRC__PRIVATE MRC__INLINE mrc_time mrc__slack_base(const mrc_conn *c) {
    const mrc_config *cf = &c->ep->cfg;
    mrc_time s = (c->rtt_min == MRC_TIME_NEVER ? (mrc_time)cf->recovery.rtt_init_ns : c->rtt_min) >> 2;
    return MRC__MAX(s, (mrc_time)cf->recovery.reorder_slack_min_ns);
}
MRC__PRIVATE mrc_time mrc__slack(mrc_conn *c) {
    const mrc_config *cf = &c->ep->cfg;
    mrc_time s;
    if (cf->recovery.reorder_slack_ns) return cf->recovery.reorder_slack_ns;
    if (c->reo_mult > 1 && c->ep->now - c->reo_last > 16u * c->srtt) {
        c->reo_mult--;
        c->reo_last = c->ep->now;
    }
    s = mrc__slack_base(c);
    return MRC__MAX(MRC__MIN(s * c->reo_mult, c->srtt), s);
}
MRC__PRIVATE void mrc__reo_widen(mrc_conn *c, mrc_time now) {
    MRC__CNT(c->st.rtx_spurious++);
    if (c->reo_mult < 255u && now - c->reo_last >= c->srtt && mrc__slack_base(c) * c->reo_mult < c->srtt) {
        c->reo_mult++;
        c->reo_last = now;
    }
}
/* P32 reorder timer, the reorder timer (RACK's, RFC 8985 6.2): the time rule above declares a record lost only when a
 * SACK shows that a transmission sent slack later arrived, so a hole among the last packets sent - nothing that late
 * left to arrive - waited for the tail-loss probe (2 srtt from the last progress) or the RTO. Once any later
 * transmission is known to have arrived, the oldest record in flight is lost at its send time + the RTT that
 * transmission took + the slack x the P32 reorder timer (research.reorder_timer) / 4. O(1): the head of the transmit list; re-armed with the RTO and TLP
 * except after a transmission (mrc__req_timers_x), which only appends to the list. */
MRC__PRIVATE MRC__SIZE_NOINLINE mrc_time mrc__reo_at(const mrc_conn *c, mrc_time sent, mrc_time slack) {
    return sent + c->lat_acked_rtt + ((slack * MRC__MIN(MRC__KNOB(c->ep, reorder_timer), 64u)) >> 2);
}
MRC__PRIVATE mrc_time mrc__reo_due(mrc_conn *c) {
    mrc_time sent;
    if (MRC__KNOB(c->ep, reorder_timer) == 0u || !c->txl.n) return MRC_TIME_NEVER;
    sent = MRC__REC_SENT(c, c->txl.head);
    if (sent >= c->lat_acked_sent) return MRC_TIME_NEVER; /* nothing later is known to have arrived: the TLP's case */
    return mrc__reo_at(c, sent, mrc__slack(c));
}
MRC__PRIVATE MRC__INLINE mrc_time mrc__reo_deadline(mrc_conn *c) { /* as a deadline: in the future */
    mrc_time d = mrc__reo_due(c);
    return d == MRC_TIME_NEVER ? d : MRC__MAX(d, c->ep->now + 1u);
}
/* P36 lazy deadlines, the TLP after a transmission: a transmission sets tlp_base to now and changes nothing else the
 * TLP deadline depends on (the smoothed RTT, tlp_count and the probe bit are each followed by an exact re-arm where
 * they change), so the deadline only moves later - and stays where it is, a lower bound of the real one: the QP's heap
 * key, at most the old deadline, still bounds it, and mrc_endpoint_on_timeout makes it exact (mrc__req_tlp_exact)
 * before it tests it, so the TLP fires when it would have. Not when the TLP is not armed, nor when tlp_base may be
 * ahead of the clock (tlp_ahead: then the transmission moves it back, and the deadline with it). The RTO armed stays
 * too: rto_start and the retries do not change with a transmission. */
MRC__PRIVATE MRC__INLINE bool mrc__req_tlp_keeps(const mrc_conn *c) {
    return c->rto_deadline != MRC_TIME_NEVER && c->tlp_deadline != MRC_TIME_NEVER && !(c->probes_due & 1u) &&
           !c->tlp_ahead;
}
/* The TLP deadline made exact (mrc_endpoint_on_timeout, before it tests the QP's timers): what the last re-arm would
 * have set had it not kept the old one (mrc__req_tlp_keeps) */
MRC__PRIVATE void mrc__req_tlp_exact(mrc_conn *c) {
    if (c->tlp_deadline != MRC_TIME_NEVER) c->tlp_deadline = mrc__tlp_at(c);
}
/* Re-arm the requester's timers, how: MRC__TM_ALL the RTO, the TLP and the reorder deadline; MRC__TM_SACK the RTO and
 * the TLP (a SACK's handler whose loss detection set the reorder deadline); MRC__TM_TX after a transmission, which
 * only appends to the transmit list (its head and the latest acknowledged send time stay, so the reorder deadline
 * does) and leaves the RTO and the TLP where they are when it may (mrc__req_tlp_keeps). */
MRC__PRIVATE void mrc__req_timers_x(mrc_conn *c, unsigned how) {
    /* armed while any PSN is not cumulatively acknowledged: a peer whose cumulative point lags PSNs its bitmaps
     * acknowledged pins the window (snd_una == snd_nxt, win_base behind), and that wait must not be silent (7.11) */
    if (c->state != MRC_QPS_RTS || c->win_base == c->snd_nxt) {
        c->rto_deadline = c->tlp_deadline = c->reo_deadline = MRC_TIME_NEVER;
        c->retries = c->retry_spent = 0;
        c->rto_heard = 0;
        c->tlp_count = 0;
        c->probes[0].kind = MRC__PROBE_FREE; /* no tail to probe */
        c->probes_due &= ~1u;
        c->tlp2 = 0;
    } else if (how != MRC__TM_TX || !mrc__req_tlp_keeps(c)) {
        mrc_time r = mrc__rto_interval(c, MRC__MIN(c->retries, (uint32_t)c->attr.retry_linear + c->attr.retry_exp));
        c->rto_deadline = MRC__DEADLINE_SZ(c->rto_start, r);
        c->tlp_deadline = (c->probes_due & 1u) ? MRC_TIME_NEVER : mrc__tlp_at(c);
        if (how == MRC__TM_ALL) c->reo_deadline = mrc__reo_deadline(c);
        else if (how == MRC__TM_TX && c->tlp_base <= c->ep->now) c->tlp_ahead = 0;
    }
    mrc__timer_update(c);
}
MRC__PRIVATE void mrc__req_timers(mrc_conn *c) { mrc__req_timers_x(c, MRC__TM_ALL); }
#if MRC_FAST_PATH
/* mrc__req_timers' arming branch (RTS, a PSN in flight), then mrc__timer_update, for the fast paths (P22): after a
 * transmission that may not leave the timers (mrc__req_timers_tx) and after progress (the SACK fast path and P37's
 * deferred re-arm: retries and tlp_count 0, rto_start and tlp_base now). The RTO after `retries` expiries from
 * rto_start and the TLP after `tlp_count` from tlp_base (mrc__rto_interval's linear part and mrc__tlp_at in
 * line). The reorder deadline is left as it is: after a transmission it stands (mrc__req_timers_x), and the SACK fast
 * path sets it in its loss loop. The key moves only when one of them is now earlier than it (P36 lazy deadlines). */
MRC__PRIVATE MRC__INLINE void mrc__req_timers_arm(mrc_conn *c, uint32_t retries, uint32_t tlp_count,
                                                  mrc_time rto_start, mrc_time tlp_base) {
    mrc_time rto, tlp, d;
    if (!retries && c->attr.timeout && c->attr.timeout <= 24u) /* mrc__rto_interval(c, 0), under its cap */
        rto = (mrc_time)1024u << c->attr.timeout;
    else
        rto = mrc__rto_interval(c, MRC__MIN(retries, (uint32_t)c->attr.retry_linear + c->attr.retry_exp));
    c->rto_deadline = mrc__deadline_add(rto_start, rto);
    tlp = MRC__MAX(MRC__MAX((mrc_time)c->ep->cfg.recovery.tlp_min_ns, 2u * c->srtt), (mrc_time)1000u);
    c->tlp_deadline =
        (c->probes_due & 1u) ? MRC_TIME_NEVER : mrc__deadline_add(tlp_base, tlp << MRC__MIN(tlp_count, 10u));
    /* P36 lazy deadlines: the other timers did not move (the SACK fast path sets the reorder deadline just before),
     * so a key at or below these three still bounds them all */
    d = MRC__MIN(MRC__MIN(c->rto_deadline, c->tlp_deadline), c->reo_deadline);
    if (d < c->deadline || !c->t_armed) mrc__timer_update(c);
}
/* mrc__req_timers_tx's arming branch (MRC__SIZE_COLD: a stream of packets keeps its RTO and TLP armed) */
MRC__PRIVATE MRC__SIZE_COLD void mrc__req_timers_tx_arm(mrc_conn *c, mrc_time now) {
    if (c->rto_deadline == MRC_TIME_NEVER) c->rto_start = now;
    mrc__req_timers_arm(c, c->retries, c->tlp_count, c->rto_start, now); /* that arming branch: no probe is due */
    c->tlp_ahead = 0; /* as there: tlp_base is now */
}
/* After the transmit fast path's new PSN (no probe due): mrc__req_timers_x(c, MRC__TM_TX) - nothing where the RTO
 * and the TLP armed stay (mrc__req_tlp_keeps: nothing moves, the key stays); else mrc__req_emit_data's start of the RTO
 * (rto_start is now unless the RTO is armed) and the arming branch in line (a QP with one packet in flight at a time
 * takes it on every packet: its window empties with each SACK) */
MRC__PRIVATE MRC__INLINE void mrc__req_timers_tx(mrc_conn *c, mrc_time now) {
    /* mrc__req_tlp_keeps less its probe test: no probe is due */
    if (c->rto_deadline != MRC_TIME_NEVER && c->tlp_deadline != MRC_TIME_NEVER && !c->tlp_ahead) return;
    mrc__req_timers_tx_arm(c, now);
}
#endif

/* ====== src/sched.h ============================================================================================= */
/* ================================================================================================================
 * SCHEDULER: what src/sched.c offers the layers above it
 * ============================================================================================================== */

/* ---- the endpoint queues -------------------------------------------------------------------------------------- */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__ring_push_il(uint16_t *ring, uint32_t *head, uint32_t *len, uint16_t slot);
MRC__PRIVATE MRC__INLINE void mrc__ring_push(uint16_t *ring, uint32_t *head, uint32_t *len, uint16_t slot);
MRC__PRIVATE void mrc__ring_remove(uint16_t *ring, uint32_t *head, uint32_t *len, uint16_t slot);

/* ---- the send gate -------------------------------------------------------------------------------------------- */
enum { MRC__NEW_NO = 0, MRC__NEW_OK = 1, MRC__NEW_CWND = 2, MRC__NEW_POOL = 3 }; /* mrc__req_new, mrc__req_rtx */
MRC__PRIVATE MRC__INLINE mrc__ccx *mrc__conn_ccx(const mrc_conn *c); /* its congestion context, or none */
MRC__PRIVATE MRC__INLINE bool mrc__cc_fits(const mrc__ccx *x, uint32_t nominal, mrc_time now);
MRC__PRIVATE bool mrc__cc_can_send(const mrc_conn *c, uint32_t nominal);
MRC__PRIVATE int mrc__req_new(const mrc_conn *c); /* may a new PSN go: MRC__NEW_* */
MRC__PRIVATE bool mrc__req_can_send_new(const mrc_conn *c);
MRC__PRIVATE int mrc__req_rtx(const mrc_conn *c); /* may the head of the retransmission queue go: MRC__NEW_* */

/* ---- waiting, scheduling, waking ------------------------------------------------------------------------------ */
MRC__PRIVATE void mrc__cc_block(mrc_conn *c);          /* READY on its context */
MRC__PRIVATE void mrc__pool_wait(mrc_conn *c);         /* waiting for a pool block */
MRC__PRIVATE MRC__INLINE void mrc__sched_txq(mrc_conn *c, int w); /* after mrc__req_new/_rtx said w */
MRC__PRIVATE MRC__INLINE void mrc__sched_ctl(mrc_conn *c); /* its control packets, queued once */
MRC__PRIVATE void mrc__sched_tx(mrc_conn *c);          /* control packets and whatever it may send now */
MRC__PRIVATE void mrc__sched_ev(mrc_conn *c);          /* it has events to pull */
MRC__PRIVATE void mrc__cc_wake(mrc_endpoint *ep, mrc__ccx *x);
MRC__PRIVATE void mrc__cc_pace_expire(mrc_conn *c);
MRC__PRIVATE void mrc__cc_pass(mrc_conn *c);
MRC__PRIVATE void mrc__pool_release(mrc_conn *c, uint32_t t);
MRC__PRIVATE void mrc__pool_retain(mrc_conn *c, uint32_t psn);
MRC__PRIVATE void mrc__pool_put_all(mrc_conn *c);

/* ====== src/sched.c ============================================================================================= */
/* ================================================================================================================
 * SCHEDULER - src/sched.c
 * Owns: which QP sends next. The endpoint queues (ctq then txq: QPs with control packets, then QPs with requester
 * work, each round-robin, so acknowledgements never wait behind data and backlogged QPs share data turns equally;
 * evq: QPs with events to pull), the send gate (a QP's next new or retransmitted packet fits its MPR window, WIMM
 * limit, the in-flight pool and its congestion context's window), the READY list of each congestion context (QPs
 * the window stops, woken oldest first as acknowledgements open it) and the QPs waiting for an in-flight pool block.
 * How the window changes is congestion control's (src/cc.c); this file only reads it.
 * Calls: codec, state, timers.
 * ============================================================================================================== */

/* ---- the endpoint queues: ctq (control packets), txq (requester work), evq (events), each round-robin ------- */
/* inline: a store and a count, made on every packet (a call cost more than the push and its caller's spills); the
 * _il form in line even where a size-optimized build would call it (the responder's per-packet SACK queueing) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__ring_push_il(uint16_t *ring, uint32_t *head, uint32_t *len, uint16_t slot) {
    MRC_ASSERT(*len < MRC_MAX_CONNS);
    ring[(*head + *len) % MRC_MAX_CONNS] = slot;
    (*len)++;
}
MRC__PRIVATE MRC__INLINE void mrc__ring_push(uint16_t *ring, uint32_t *head, uint32_t *len, uint16_t slot) {
    mrc__ring_push_il(ring, head, len, slot);
}
MRC__PRIVATE void mrc__ring_remove(uint16_t *ring, uint32_t *head, uint32_t *len, uint16_t slot) {
    uint32_t i, j = 0, n = *len;
    for (i = 0; i < n; i++) { /* O(conns), only on destroy/reset */
        uint16_t s = ring[(*head + i) % MRC_MAX_CONNS];
        if (s != slot) ring[(*head + j++) % MRC_MAX_CONNS] = s;
    }
    *len = j;
}

/* ---- the send gate: may this QP send a packet now (docs/PROTOCOL.md 8.3) ------------------------------------ */
MRC__PRIVATE MRC__INLINE mrc__ccx *mrc__conn_ccx(const mrc_conn *c) {
    return c->ccxp;
}
/* mrc__cc_fits' pacing part, for a full window (out of line at -Os: two fast-path copies) */
MRC__PRIVATE MRC__SIZE_COLD bool mrc__cc_paced(const mrc__ccx *x, mrc_time now) {
    return x->inflight == 0 && now >= x->pace_next;
}
/* a packet of that nominal size fits context x's window (always, with none); with nothing in flight one packet
 * always goes, unless the window is below one packet and the pacing clock says not yet (P24 sub-packet windows;
 * pace_next stays 0 without sub-packet windows) */
MRC__PRIVATE MRC__INLINE bool mrc__cc_fits(const mrc__ccx *x, uint32_t nominal, mrc_time now) {
    return !x || x->inflight + nominal <= x->cwnd || mrc__cc_paced(x, now);
}
MRC__PRIVATE bool mrc__cc_can_send(const mrc_conn *c, uint32_t nominal) {
    return mrc__cc_fits(mrc__conn_ccx(c), nominal, c->ep->now);
}
/* May a new PSN go: MRC__NEW_OK; MRC__NEW_CWND when only the congestion window stops it (the QP is READY);
 * MRC__NEW_NO otherwise (nothing posted, MPR window or WIMM limit: this QP's own acknowledgements reopen them). */
MRC__PRIVATE int mrc__req_new(const mrc_conn *c) {
    const mrc__wr *wr;
    if (c->sq_send == c->sq_tail) return MRC__NEW_NO;
    wr = &c->sq[c->sq_send & (MRC_MAX_SQ - 1u)];
    if (c->sq_sent == 0 && wr->opcode == MRC_WR_WRITE_IMM && c->wimm_out >= c->attr.max_wimm) return MRC__NEW_NO;
    if ((uint32_t)mrc_psn_diff(c->snd_nxt, c->win_base) >= c->win_psns) return MRC__NEW_NO;
    if (!c->btab[MRC__BTAB_IDX(c->snd_nxt)] && !(c->ep->pool_nfree | c->ep->pool_nret)) /* no memory for it */
        return MRC__NEW_POOL;
    return mrc__cc_can_send(c, mrc__nominal(c, wr, c->sq_sent)) ? MRC__NEW_OK : MRC__NEW_CWND;
}
MRC__PRIVATE bool mrc__req_can_send_new(const mrc_conn *c) { return mrc__req_new(c) == MRC__NEW_OK; }
/* Retransmissions obey the congestion window like new data (docs/PROTOCOL.md 8.3: the scheduler gates every data
 * packet), or a trim storm feeds itself; the window check uses the queue head's size (a stale head is skipped when
 * sent). */
MRC__PRIVATE int mrc__req_rtx(const mrc_conn *c) {
    uint32_t psn;
    const mrc__psnrec *r;
    if (!c->rtxq.n) return MRC__NEW_NO;
    psn = c->rtxq.head;
    r = MRC__REC(c, psn);
    return c->rtx_force || mrc__cc_can_send(c, mrc__rec_nominal(c, psn, r)) ? MRC__NEW_OK : MRC__NEW_CWND;
}

/* ---- waiting: on its congestion context (READY) or for a pool block ----------------------------------------- */
/* The QP waits for its context's window; it is woken, oldest first, as acknowledgements open the window. */
MRC__PRIVATE void mrc__cc_block(mrc_conn *c) {
    mrc__ccx *x = mrc__conn_ccx(c);
    if (!x) return;
    /* P24 sub-packet windows: nothing of the context in flight, so no acknowledgement will wake it: the pacing clock
     * holds it, and its own deadline (mrc__cc_pace_expire) wakes the READY list then */
    if (MRC__UNLIKELY(!x->inflight) && x->pace_next > c->ep->now && c->pace_deadline != x->pace_next) {
        c->pace_deadline = x->pace_next;
        /* with nothing in flight its retransmission timers have nothing to time: they run from when it may send
         * (an RTO here would bypass the window, P24 sub-packet windows's point, and back off the QP's tail) */
        if (c->state == MRC_QPS_RTS && (c->rto_start < x->pace_next || c->tlp_base < x->pace_next)) {
            c->rto_start = MRC__MAX(c->rto_start, x->pace_next);
            c->tlp_base = MRC__MAX(c->tlp_base, x->pace_next);
            c->tlp_ahead = 1; /* the next transmission may move it back: the TLP is re-armed exactly then */
            mrc__req_timers(c);
        } else {
            mrc__timer_update(c);
        }
    }
    if (c->in_ready) return;
    c->in_ready = 1;
    c->ready_next = MRC__EV_NONE;
    if (x->ready_tail == MRC__EV_NONE) x->ready_head = c->slot;
    else c->ep->conns[x->ready_tail]->ready_next = c->slot;
    x->ready_tail = c->slot;
}
/* No block for the next new PSN and none free or retained: wait for one (once on the list, counted once). The QP is
 * never forgotten: a block freed or retained while it is listed is handed to it. */
MRC__PRIVATE void mrc__pool_wait(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    if (c->in_poolq) return;
    c->in_poolq = 1;
    mrc__ring_push(ep->poolq, &ep->poolq_head, &ep->poolq_len, c->slot);
    MRC__CNT(c->st.pool_waits++);
    MRC__CNT(ep->st.pool_waits++);
}

/* ---- scheduling: a QP with work joins the queues once ------------------------------------------------------- */
/* c (in RTS, not in the txq) can send now (MRC__NEW_OK): queued; MRC__NEW_CWND: READY on its context;
 * MRC__NEW_POOL: waiting for a pool block; MRC__NEW_NO: nothing */
MRC__PRIVATE MRC__INLINE void mrc__sched_txq(mrc_conn *c, int w) {
    if (w == MRC__NEW_OK) {
        c->in_txq = 1;
        mrc__ring_push(c->ep->txq, &c->ep->txq_head, &c->ep->txq_len, c->slot);
    } else if (w == MRC__NEW_CWND) {
        mrc__cc_block(c); /* READY: woken when its context's window opens */
    } else if (w == MRC__NEW_POOL) {
        mrc__pool_wait(c); /* woken with a block when another QP frees one */
    }
}
/* c's control packets, queued once */
MRC__PRIVATE MRC__INLINE void mrc__sched_ctl(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    if (c->ctlq_head != c->ctlq_tail && !c->in_ctq) { /* most often nothing is queued */
        c->in_ctq = 1;
        mrc__ring_push(ep->ctq, &ep->ctq_head, &ep->ctq_len, c->slot);
    }
}
MRC__PRIVATE void mrc__sched_tx(mrc_conn *c) {
    mrc__sched_ctl(c);
    if (!c->in_txq && c->state == MRC_QPS_RTS) { /* work it can send now: each check made once */
        int w = c->probes_due ? MRC__NEW_OK : mrc__req_rtx(c);
        mrc__sched_txq(c, w == MRC__NEW_NO ? mrc__req_new(c) : w);
    }
}
MRC__PRIVATE void mrc__sched_ev(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    if (c->in_evq) return;
    c->in_evq = 1;
    mrc__ring_push(ep->evq, &ep->evq_head, &ep->evq_len, c->slot);
}

/* ---- waking: a window opens, a pacing deadline passes, a pool block comes free ------------------------------ */
/* A few per event (O(1)) - but every one when nothing of the context is in flight: no acknowledgement will come to
 * wake the others (a woken QP may send nothing: no EV, its MPR window or WIMM limit), so none may stay (issue 13).
 * A QP woken with nothing in flight can send or has a reason of its own not to: it never goes back on the list -
 * unless the context's pacing clock holds it (P24 sub-packet windows): then it goes back with its pacing deadline
 * armed, which wakes the list again, and the others wait with it. */
MRC__PRIVATE void mrc__cc_wake(mrc_endpoint *ep, mrc__ccx *x) {
    unsigned n = 0;
    while (x->ready_head != MRC__EV_NONE && x->inflight < x->cwnd && (n++ < 4u || !x->inflight)) {
        mrc_conn *c = ep->conns[x->ready_head];
        x->ready_head = c->ready_next;
        if (x->ready_head == MRC__EV_NONE) x->ready_tail = MRC__EV_NONE;
        c->in_ready = 0;
        mrc__sched_tx(c);
        if (MRC__UNLIKELY(c->in_ready) && !x->inflight) break; /* P24 sub-packet windows: the pacing clock holds it (its
                                                                  deadline is
                                                                 * armed) and the context with it */
    }
}
/* A QP woken from the READY list (or in the round-robin) sent nothing, for a reason of its own (no EV, its MPR window
 * or WIMM limit): the wake-up it got would otherwise be lost. The READY list is served only on acknowledgements and
 * losses, a few QPs per event, on the assumption that the woken QPs put bytes in flight whose acknowledgements wake
 * the next ones; a woken QP that sends nothing breaks that chain, and when nothing else of the context is in flight
 * the QPs left on the list wait for ever with the window open (issue 13). So its turn passes on. */
MRC__PRIVATE void mrc__cc_pass(mrc_conn *c) {
    mrc__ccx *x = mrc__conn_ccx(c);
    if (x && x->ready_head != MRC__EV_NONE) mrc__cc_wake(c->ep, x);
}
/* P24 sub-packet windows: a QP's pacing deadline: its context's READY list is woken (every QP of it with nothing in
 * flight; the first to send puts the rest back to wait for its acknowledgement), as mrc__cc_pass wakes it.
 * mrc_endpoint_on_timeout then schedules the QP. */
MRC__PRIVATE void mrc__cc_pace_expire(mrc_conn *c) {
    c->pace_deadline = MRC_TIME_NEVER;
    mrc__cc_pass(c);
}
/* Free the block of c's table entry t (if any). The first waiting QP that still needs a block gets it, and is
 * scheduled. */
MRC__PRIVATE void mrc__pool_release(mrc_conn *c, uint32_t t) {
    mrc_endpoint *ep = c->ep;
    uint32_t i;
    if (!c->btab[t]) return;
    i = c->btab[t] - 1u;
    c->btab[t] = 0;
    if (mrc__pool_ret(ep, i)) mrc__pool_unretain(ep, i);
    while (ep->poolq_len) { /* O(1) amortised: each entry is looked at once */
        mrc_conn *w = ep->conns[ep->poolq[ep->poolq_head % MRC_MAX_CONNS]];
        ep->poolq_head = (ep->poolq_head + 1u) % MRC_MAX_CONNS;
        ep->poolq_len--;
        w->in_poolq = 0;
        if (w->state != MRC_QPS_RTS || w->btab[MRC__BTAB_IDX(w->snd_nxt)]) continue; /* needs none any more */
        mrc__pool_give(w, w->snd_nxt, i);
        MRC__CNT(ep->st.pool_handoffs++);
        mrc__sched_tx(w);
        return;
    }
    ep->pool[i].next = ep->free_head;
    ep->free_head = (mrc__blkidx)(i + 1u);
    ep->pool_nfree++;
}
/* The block holding psn (if any) now holds acknowledged PSNs only: retained at the FIFO's tail - or handed over at
 * once if a QP waits (one waits only while no block is free or retained). */
MRC__PRIVATE void mrc__pool_retain(mrc_conn *c, uint32_t psn) {
    mrc_endpoint *ep = c->ep;
    uint32_t t = MRC__BTAB_IDX(psn), i;
    mrc__pblk *b;
    if (!c->btab[t]) return;
    i = c->btab[t] - 1u;
    b = &ep->pool[i];
    if (mrc__pool_ret(ep, i)) return;
    if (ep->poolq_len) {
        mrc__pool_release(c, t);
        return;
    }
    b->next = 0;
    b->prev = ep->ret_tail;
    if (ep->ret_tail) ep->pool[ep->ret_tail - 1u].next = (mrc__blkidx)(i + 1u);
    else ep->ret_head = (mrc__blkidx)(i + 1u);
    ep->ret_tail = (mrc__blkidx)(i + 1u);
    ep->pool_nret++;
}
/* Every block of the QP (leaving RTS, reset, destroy): O(window / 64), never per packet. */
MRC__PRIVATE void mrc__pool_put_all(mrc_conn *c) {
    uint32_t t;
    for (t = 0; t < MRC__BTAB_LEN; t++)
        mrc__pool_release(c, t); /* nothing when the entry has no block */
}

/* ====== src/cc.h ================================================================================================ */
/* ================================================================================================================
 * CONGESTION CONTROL: what src/cc.c offers the layers above it
 * ============================================================================================================== */

typedef struct mrc__cc_sample { /* what one SACK tells the context */
    uint64_t newly;           /* bytes the responder newly received (rcvd_bytes delta) */
    mrc_time rtt;             /* RTT of the named, never retransmitted packet; 0 = no sample */
    uint8_t ecn, pen, r_c;    /* CE echo (m = SKIP_ONCE, Q27 ECN echo), receiver penalty, restore */
} mrc__cc_sample;
/* why a PSN was declared lost (mrc__cc_on_loss, mrc__req_mark_lost; trace MRC_TRACE_LOSS) */
enum { MRC__LOSS_SACK = 1, MRC__LOSS_RTO = 2, MRC__LOSS_PROBE = 3, MRC__LOSS_NACK = 4, MRC__LOSS_TRIM = 5,
       MRC__LOSS_TRIM_LH = 6 };

/* ---- contexts ------------------------------------------------------------------------------------------------- */
MRC__PRIVATE int mrc__ccx_slot(const mrc_endpoint *ep, uint32_t peer, uint64_t profile_id);
MRC__PRIVATE const mrc__ccprof *mrc__ccprof_find(const mrc_endpoint *ep, uint64_t id);
MRC__PRIVATE void mrc__cc_init(mrc_conn *c);    /* RTR -> RTS: join or create its context */
MRC__PRIVATE void mrc__cc_release(mrc_conn *c); /* leaving RTS: its bytes leave the context */

/* ---- a QP's inputs -------------------------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__cc_on_send(mrc_conn *c, uint32_t nominal);
MRC__PRIVATE MRC__INLINE void mrc__cc_on_ack(mrc_conn *c, uint32_t nominal);
MRC__PRIVATE void mrc__cc_on_loss(mrc_conn *c, uint32_t nominal, int why, mrc_time now);
MRC__PRIVATE void mrc__cc_on_sack(mrc_conn *c, const mrc__cc_sample *s, mrc_time now);
/* the NSCC steps the SACK fast path makes itself (src/endpoint.c). The per-SACK update (and its average and quick
 * adapt, which gcc would then leave out of line) is taken into its callers where speed is asked for (the SACK fast
 * path saves the calls' frames: 27 instructions per SACK on x86-64, gcc -O2); gcc -Os (the firmware builds) keeps
 * one copy (in line it would add 992 B of Cortex-M4 .text) */
#if defined(__OPTIMIZE_SIZE__)
#define MRC__NSCC_ACK_INLINE MRC__INLINE
#else
#define MRC__NSCC_ACK_INLINE MRC__ALWAYS_INLINE
#endif
MRC__PRIVATE MRC__NSCC_ACK_INLINE void mrc__nscc_ack(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now);
MRC__PRIVATE void mrc__nscc_on_pen(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now);

/* ====== src/cc.c ================================================================================================ */
/* ================================================================================================================
 * CONGESTION CONTROL - src/cc.c
 * Owns: CC profiles, congestion contexts (one per peer and profile, shared by its QPs: one window, one count of
 * nominal bytes in flight, docs/PROTOCOL.md 8.2) and how the window changes: NSCC ("uet-1.0-nscc", docs/PROTOCOL.md
 * 8.5, in integers), a fixed window and none. An algorithm is a row of the table mrc__cc_ops: adding one is adding
 * a row. Per SACK the work is O(1); divisions happen once per adjust period or per decrease, not per packet. The
 * send gate and the READY list of QPs waiting for window are the scheduler's (src/sched.c): this file wakes it.
 * Calls: state, sched.
 * ============================================================================================================== */

/* ---- helpers ------------------------------------------------------------------------------------------------ */
MRC__PRIVATE bool mrc__streq(const char *a, const char *b) {
    if (!a || !b) return a == b;
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}
MRC__PRIVATE void mrc__cc_clamp(mrc__ccx *x) {
    if (x->cwnd > x->p.maxwnd) x->cwnd = x->p.maxwnd;
    if (x->cwnd < x->p.floor) x->cwnd = x->p.floor;
}
MRC__PRIVATE uint32_t mrc__avg_delay(const mrc__ccx *x) { return x->avg_q4 >> 4; }
#ifndef MRC_NO_FLOAT
/* a positive float to uint32_t, saturating (a plain cast of >= 2^32 or infinity is undefined behaviour). The float
 * comparisons here are written in double: targets that evaluate float in double (FLT_EVAL_METHOD 1, s390x) would
 * otherwise promote implicitly (-Wdouble-promotion), and the values compare the same either way. */
MRC__PRIVATE uint32_t mrc__f2u32(float f) { return (double)f < 4294967040.0 ? (uint32_t)f : 0xFFFFFFFFu; }
#endif
/* a x b, saturating; out of line (the set-up's scaling and the rare wide operands of mrc__inc_add share it) */
MRC__PRIVATE MRC__NOINLINE uint64_t mrc__mul_sat(uint64_t a, uint64_t b) {
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}
/* inc += a * b, saturating at INT64_MAX (inc never goes negative). Operands of 32 bits (the bytes a SACK newly
 * acknowledges always are; the increase per byte nearly always) cannot overflow: one 32 x 32 multiplication. */
MRC__PRIVATE void mrc__inc_add(int64_t *inc, uint64_t a, uint64_t b) {
    uint64_t d = (a | b) >> 32 ? mrc__mul_sat(a, b) : (uint64_t)(uint32_t)a * (uint32_t)b;
    d = MRC__MIN(d, (uint64_t)INT64_MAX);
    *inc = (uint64_t)*inc > (uint64_t)INT64_MAX - d ? INT64_MAX : *inc + (int64_t)d;
}

/* min(a x m / div >> sh, 2^32 - 1), the product saturating: out of line, it is the four scaled parameters' 64-bit
 * arithmetic once (a context is set up at RTR -> RTS, never per packet). m is 1 or k x mss with k <= 15: 32 bits (mss
 * is the path MTU, at most 4096: mrc_conn_modify's PATH_MTU range) */
MRC__PRIVATE MRC__NOINLINE uint32_t mrc__prm_scale(uint64_t a, uint32_t m, uint32_t div, unsigned sh) {
    return (uint32_t)MRC__MIN((mrc__mul_sat(a, m) / div) >> sh, (uint64_t)0xFFFFFFFFu);
}
/* ---- NSCC parameters: the configured values, else the defaults the line rate and base RTT give (docs/PROTOCOL.md 8.4:
 * reference 100 Gb/s and 12 us, ref_BDP 150000 B; a = BDP / ref_BDP) ---------------------------------------------- */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__nscc_prm_init(mrc__nscc_prm *p, const mrc_nscc_cfg *cf, uint32_t rate_mbps,
                                                   uint32_t base_def, bool trimming, uint32_t mss, uint32_t min_cwnd) {
    uint64_t a_q16;
    uint32_t base = cf->base_rtt ? cf->base_rtt : base_def;
    MRC_MEMSET(p, 0, sizeof *p);
    p->base_rtt = base ? base : 1u;
    p->bdp = (uint64_t)rate_mbps * p->base_rtt / 8000u;
    if (p->bdp < min_cwnd) p->bdp = min_cwnd;
    /* bdp << 16 may not fit; the remainder's part in 32 bits: (r << 16) / 150000 = (r << 12) / 9375, r < 150000 */
    a_q16 = ((p->bdp / 150000u) << 16) + ((uint32_t)(p->bdp % 150000u) << 12) / 9375u;
    if (!a_q16) a_q16 = 1;
    p->target = cf->target_delay ? cf->target_delay : (trimming ? p->base_rtt / 4u * 3u : p->base_rtt);
    if (!p->target) p->target = 1;
    p->maxwnd = cf->max_cwnd ? cf->max_cwnd : p->bdp / 2u * 3u;
    p->maxwnd_set = cf->max_cwnd != 0;
    p->min_cwnd = p->floor = min_cwnd;
    p->trimming = (uint8_t)trimming;
    if (p->maxwnd < min_cwnd) p->maxwnd = min_cwnd;
    p->fi = mrc__prm_scale(a_q16, 5u * mss, 1u, 16u);
    p->eta = mrc__prm_scale(a_q16, 15u * mss, 100u, 16u);
    p->fi_scale_q16 = mrc__prm_scale(a_q16, 1u, 4u, 0u);
    p->gamma_q16 = 52429u;            /* 0.8 */
    p->md_floor_q16 = 32768u;         /* a decrease keeps at least half */
    if (cf->fi_bytes) p->fi = cf->fi_bytes;
    if (cf->eta_bytes) p->eta = cf->eta_bytes;
    if (cf->fi_scale_q16) p->fi_scale_q16 = cf->fi_scale_q16;
    if (cf->gamma_q16) p->gamma_q16 = cf->gamma_q16;
    if (cf->max_md_jump_q16) p->md_floor_q16 = 65536u - MRC__MIN(cf->max_md_jump_q16, 65536u);
#ifndef MRC_NO_FLOAT
    if ((double)cf->fi > 0.0) p->fi = mrc__f2u32(cf->fi);
    if ((double)cf->eta > 0.0) p->eta = mrc__f2u32(cf->eta);
    if ((double)cf->fi_scale > 0.0) p->fi_scale_q16 = mrc__f2u32(cf->fi_scale * 65536.0f);
    if ((double)cf->gamma > 0.0) p->gamma_q16 = mrc__f2u32(cf->gamma * 65536.0f);
    if ((double)cf->max_md_jump > 0.0 && (double)cf->max_md_jump <= 1.0)
        p->md_floor_q16 = 65536u - (uint32_t)(cf->max_md_jump * 65536.0f);
#endif
    /* proportional gain 4 MSS a b / target with b = target / 12 us: target cancels (bytes per ns, Q16 STEV header
     * mapping) */
    p->alpha_q16 = mrc__prm_scale(a_q16, 4u * mss, 12000u, 0u);
    p->qa_gate = cf->qa_gate ? cf->qa_gate : 3u;
    p->disable_qa = cf->disable_qa;
    p->qa_threshold =
        cf->qa_threshold ? cf->qa_threshold : p->target > 0x3FFFFFFFu ? 0xFFFFFFFFu : 4u * p->target; /* saturating */
    p->adjust_bytes = cf->adjust_bytes_threshold ? cf->adjust_bytes_threshold : 8u * min_cwnd;
    p->adjust_period = cf->adjust_period_threshold ? cf->adjust_period_threshold : p->base_rtt;
}

/* ---- NSCC (docs/PROTOCOL.md 8.5; the UEC reference's update order) ----------------------------------------------- */
/* Quick adapt's window end (once per base RTT + target, out of line: MRC__COLD): after a loss or a delay over
 * qa_threshold, a context that achieved less than maxwnd >> qa_gate drops its window to what it achieved, then
 * ignores ECN for the bytes in flight; a new window starts. Returns true when it fired. */
MRC__PRIVATE MRC__COLD bool mrc__nscc_qa_end(mrc_conn *c, mrc__ccx *x, bool loss, uint32_t delay, mrc_time now) {
    bool done = false;
    if (x->qa_end && (x->qa_loss || loss || delay > x->p.qa_threshold) && x->achieved < (x->p.maxwnd >> x->p.qa_gate)) {
        /* P24 sub-packet windows: below one packet only after a trim (congestion); a silent loss may be a path fault */
        x->cwnd = MRC__MAX(x->achieved, (uint64_t)(x->qa_trim ? x->p.floor : x->p.min_cwnd));
        x->ign_bytes = x->inflight;
        x->ign_done = 0;
        MRC__CNT(c->st.cc_qa++);
        done = true;
    }
    x->qa_loss = x->qa_trim = 0; /* a loss arms only the window it happened in */
    x->achieved = 0;
    x->qa_end = mrc__deadline_ctl(now, (mrc_time)x->p.base_rtt + x->p.target);
    return done;
}
/* Quick adapt: an ACK while ECN is ignored, or the window's end (above). Returns true when it fired or the ACK is
 * ignored: the rest of the update is skipped. */
MRC__PRIVATE MRC__NSCC_ACK_INLINE bool mrc__nscc_qa(mrc_conn *c, mrc__ccx *x, bool loss, bool ecn, uint32_t delay,
                                                  mrc_time now) {
    bool done;
    if (x->p.disable_qa) return false;
    if (x->ign_done < x->ign_bytes && ecn) done = true;
    else if (now > x->qa_end) done = mrc__nscc_qa_end(c, x, loss, delay, now);
    else return false;
    if (done) {
        x->inc = 0;
        x->received = 0;
    }
    return done;
}
/* Average queueing delay, EWMA weight 1/80; delay over target without ECN counts as a quarter base RTT (it is the
 * last hop or noise, not the fabric). */
MRC__PRIVATE MRC__NSCC_ACK_INLINE void mrc__nscc_avg(mrc__ccx *x, uint32_t delay, bool ecn) { /* 32-bit: per SACK */
    uint32_t d = MRC__MIN(!ecn && delay > x->p.target ? x->p.base_rtt / 4u : delay, (uint32_t)1u << 26);
    int32_t s = (int32_t)(d << 4), a = (int32_t)x->avg_q4;
    x->avg_q4 = (uint32_t)(a + (s - a) / 80);
}
/* The rare parts of the NSCC update, each with a 64-bit division, kept off the per-packet path (see MRC__NOINLINE):
 * a new minimum RTT (the BDP and window bound follow), a multiplicative decrease (at most once per base RTT), and
 * the fulfilment of the increase credit (once per adjust period or adjust_bytes). */
MRC__PRIVATE MRC__NOINLINE void mrc__nscc_base_rtt_slow(mrc__ccx *x, mrc_time rtt) {
    x->p.bdp = MRC__MAX(x->p.bdp / x->p.base_rtt * rtt + x->p.bdp % x->p.base_rtt * rtt / x->p.base_rtt,
                        (uint64_t)x->p.min_cwnd); /* bdp * rtt may not fit; rtt < base_rtt < 2^32 */
    if (!x->p.maxwnd_set) x->p.maxwnd = MRC__MAX(x->p.bdp / 2u * 3u, (uint64_t)x->p.min_cwnd);
    x->p.base_rtt = (uint32_t)rtt;
    mrc__cc_clamp(x);
}
MRC__PRIVATE MRC__NOINLINE void mrc__nscc_md_slow(mrc__ccx *x, uint32_t avg, mrc_time now) {
    uint64_t cut = (uint64_t)x->p.gamma_q16 * (avg - x->p.target) / avg;
    uint64_t keep = cut >= 65536u ? 0u : 65536u - cut;
    if (keep < x->p.md_floor_q16) keep = x->p.md_floor_q16;
    x->cwnd = (x->cwnd * keep) >> 16;
    x->last_dec = now;
}
MRC__PRIVATE MRC__NOINLINE void mrc__nscc_fulfil_slow(mrc__ccx *x) {
    x->cwnd += (uint64_t)x->inc / (x->cwnd ? x->cwnd : 1u);
}
/* the fulfilment: every adjust_bytes (8 minimum windows: a SACK of 8 packets may take it every time) */
MRC__PRIVATE MRC__NSCC_ACK_INLINE void mrc__nscc_fulfil(mrc__ccx *x, mrc_time now) {
    if (x->inc > 0) mrc__nscc_fulfil_slow(x);
    if (now - x->last_adjust >= x->p.adjust_period) {
        x->cwnd += x->p.eta;
        x->last_adjust = now;
    }
    x->inc = 0;
    x->received = 0;
    mrc__cc_clamp(x);
}
/* mrc__nscc_ack's rare branches (MRC__SIZE_COLD): the decrease of an ECN-marked SACK over target, the increase
 * credit (fair or proportional increase: not while the window is at its bound or in fast increase), and the P24
 * sub-packet window's bound */
MRC__PRIVATE MRC__SIZE_COLD void mrc__nscc_md(mrc_conn *c, mrc__ccx *x, mrc_time now) {
    uint32_t avg = mrc__avg_delay(x);
    x->fast = 0;
    x->fi_count = 0;
    if (avg > x->p.target && now - x->last_dec > x->p.base_rtt) {
        mrc__nscc_md_slow(x, avg, now);
        MRC__CNT(c->st.cc_md++);
    }
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__nscc_inc(mrc__ccx *x, uint64_t per, uint64_t newly) {
    mrc__inc_add(&x->inc, per, newly);
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__nscc_subpkt_cap(mrc__ccx *x, uint64_t w0) {
    if (x->cwnd > 2u * w0 && x->p.subpkt) x->cwnd = 2u * w0;
}
/* The per-SACK update, inline (cc.h: MRC__NSCC_ACK_INLINE): mrc__cc_table's row calls it, and so does the SACK fast
 * path (mrc__req_sack_fast) */
MRC__PRIVATE MRC__NSCC_ACK_INLINE void mrc__nscc_ack(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now) {
    uint32_t delay;
    uint64_t newly = s->newly, w0 = x->cwnd, per = UINT64_MAX; /* inc per byte acked; MAX: none */
    bool ecn = s->ecn || MRC__UNLIKELY(s->rtt && now < x->lh_mark_end); /* P30 last-hop trim mark: marked, or soon after
                                                                           a last-hop trim */
    x->achieved += newly;
    x->received += newly;
    if (x->ign_done < x->ign_bytes) x->ign_done += newly;
    if (s->rtt) { /* base RTT = the minimum seen; a fall raises the window's bound with the BDP */
        MRC__CNT(c->st.cc_rtt_samples++);
        if (MRC__UNLIKELY(s->rtt < x->p.base_rtt)) mrc__nscc_base_rtt_slow(x, s->rtt);
        delay = (uint32_t)MRC__MIN(s->rtt - x->p.base_rtt, (mrc_time)0xFFFFFFFFu);
        mrc__nscc_avg(x, delay, s->ecn); /* the true echo: P30 last-hop trim mark leaves the average alone */
    } else {
        delay = mrc__avg_delay(x);
    }
    if (mrc__nscc_qa(c, x, false, ecn, delay, now)) return;
    if (!ecn && delay >= x->p.target) { /* fair increase */
        per = x->p.fi;
        x->fast = 0;
    } else if (!ecn) { /* proportional increase, or fast increase while the delay stays under 1 us */
        if (delay < 1000u) {
            x->fi_count += newly;
        } else {
            x->fi_count = 0;
            x->fast = 0;
        }
        if (delay < 1000u && (x->fi_count > x->cwnd || x->fast)) {
            x->cwnd += (newly * x->p.fi_scale_q16) >> 16;
            x->fast = 1;
            MRC__CNT(c->st.cc_fast++);
        } else {
            x->fast = 0;
            per = ((uint64_t)x->p.alpha_q16 * (x->p.target - delay)) >> 16;
        }
    } else if (delay >= x->p.target) { /* multiplicative decrease, at most once per base RTT */
        mrc__nscc_md(c, x, now);
    } /* ECN below target: the EV is avoided (SKIP), the window stays */
    if (per != UINT64_MAX) mrc__nscc_inc(x, per, newly); /* one copy of it for both increases */
    mrc__cc_clamp(x);
    if (x->received > x->p.adjust_bytes || now - x->last_adjust > x->p.adjust_period) mrc__nscc_fulfil(x, now);
    /* P24 sub-packet windows: below one packet an acknowledgement covers more than the window, and the increases,
     * scaled for a window acknowledged per RTT, would jump to maxwnd at once: the window at most doubles per
     * acknowledgement there */
    if (MRC__UNLIKELY(w0 < x->p.min_cwnd)) mrc__nscc_subpkt_cap(x, w0);
}
MRC__PRIVATE void mrc__nscc_on_ack(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now) {
    mrc__nscc_ack(c, x, s, now);
}
/* A window decrease by d bytes (a trim, a drop-tail loss, the receiver penalty), clamped. P24 sub-packet windows: to
 * one packet as it always could; below one packet at most once per base RTT and at most by half (a burst of trims is
 * one congestion event: without this bound the trims of one window in flight took it to the floor, 64 base RTTs per
 * packet, and the ramp back up - one SACK per pacing interval - left the link idle when the other flows finished). */
MRC__PRIVATE void mrc__nscc_dec(mrc__ccx *x, uint64_t d, mrc_time now) {
    uint64_t w = x->cwnd > d ? x->cwnd - d : 0u;
    if (MRC__UNLIKELY(w < x->p.min_cwnd) && x->p.subpkt) {
        uint64_t one = MRC__MIN(x->cwnd, (uint64_t)x->p.min_cwnd);
        if (now - x->last_sub > x->p.base_rtt || !x->last_sub) {
            w = MRC__MAX(w, one / 2u);
            x->last_sub = now;
        } else {
            w = one;
        }
    }
    x->cwnd = w;
    mrc__cc_clamp(x);
}
/* A trim NACK: a pessimistic, marked delay sample; quick adapt as for a loss; else the window loses the bytes. */
MRC__PRIVATE void mrc__nscc_on_trim(mrc_conn *c, mrc__ccx *x, uint32_t bytes, mrc_time now) {
    mrc__nscc_avg(x, x->p.base_rtt, true);
    x->qa_loss = x->qa_trim = 1;
    if (mrc__nscc_qa(c, x, true, false, x->p.base_rtt, now)) return;
    mrc__nscc_dec(x, bytes, now);
    MRC__CNT(c->st.cc_nack_dec++);
}
/* P30 last-hop trim mark: a TRIMMED_LASTHOP NACK says the receiver's link is full - the queue NSCC's delay-without-ECN
 * rule reads as "last hop, do not decrease" (8.5). For lh_mark_rtts base RTTs the context's SACKs with an RTT sample
 * count as ECN-marked in the quadrant and quick adapt (not in the average delay, mrc__nscc_ack), so a delay over target
 * decreases the window. O(1). */
MRC__PRIVATE void mrc__nscc_lh_mark(mrc__ccx *x, mrc_time now) {
    if (x->p.lh_mark_rtts) x->lh_mark_end = mrc__deadline_ctl(now, (mrc_time)x->p.base_rtt * x->p.lh_mark_rtts);
}
/* A packet judged lost without a trim (Q13 NSCC constants). Where the fabric trims, a silent loss is a path fault, not
 * a full queue: the EV manager demotes the path and the window only sees the loss through quick adapt (a blackholed
 * cable must not shrink the window of every QP that crossed it). Without trimming, drops are the congestion signal and
 * the window loses the packet's bytes as for a trim. */
MRC__PRIVATE void mrc__nscc_on_loss(mrc_conn *c, mrc__ccx *x, uint32_t bytes, mrc_time now) {
    (void)c;
    x->qa_loss = 1;
    if (x->p.trimming) return;
    mrc__nscc_dec(x, bytes, now);
}
/* Receiver penalty (Q12, UET form): the window loses newly x pen / 128; the first penalised window is saved and
 * restored when the responder says r_c. */
MRC__PRIVATE void mrc__nscc_on_pen(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now) {
    if (s->pen) {
        uint64_t d = (s->newly * s->pen) >> 7;
        if (!x->saved_cwnd) x->saved_cwnd = x->cwnd;
        mrc__nscc_dec(x, d, now);
        MRC__CNT(c->st.cc_pen_dec++);
    }
    if (s->r_c && x->saved_cwnd) {
        x->cwnd = MRC__MAX(x->cwnd, x->saved_cwnd);
        x->saved_cwnd = 0;
        mrc__cc_clamp(x);
        MRC__CNT(c->st.cc_restores++);
    }
}

/* ---- the algorithms --------------------------------------------------------------------------------------------- */
typedef struct mrc__cc_ops {
    void (*on_ack)(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now);
    void (*on_trim)(mrc_conn *c, mrc__ccx *x, uint32_t bytes, mrc_time now);
    void (*on_loss)(mrc_conn *c, mrc__ccx *x, uint32_t bytes, mrc_time now);
    void (*on_pen)(mrc_conn *c, mrc__ccx *x, const mrc__cc_sample *s, mrc_time now);
} mrc__cc_ops;
static const mrc__cc_ops mrc__cc_table[3] = {
    {0, 0, 0, 0},                                                              /* NONE: no window */
    {mrc__nscc_on_ack, mrc__nscc_on_trim, mrc__nscc_on_loss, mrc__nscc_on_pen}, /* NSCC */
    {0, 0, 0, 0}                                                               /* FIXED: the window never moves */
};

/* ---- contexts: one per peer and CC profile, shared by its QPs ----------------------------------------------- */
/* The context a QP joins at RTR -> RTS: its peer's on its profile, or a new one. Index, or -1 (table full). */
MRC__PRIVATE int mrc__ccx_slot(const mrc_endpoint *ep, uint32_t peer, uint64_t profile_id) {
    int i, fr = -1;
    for (i = 0; i < MRC_MAX_CCX; i++) {
        const mrc__ccx *x = &ep->ccx[i];
        if (x->used && x->peer == peer && x->profile_id == profile_id) return i;
        if (!x->used && fr < 0) fr = i;
    }
    return fr;
}
MRC__PRIVATE const mrc__ccprof *mrc__ccprof_find(const mrc_endpoint *ep, uint64_t id) {
    return (const mrc__ccprof *)mrc__tab_find(ep->ccprofs, MRC_MAX_CC_PROFILES, sizeof ep->ccprofs[0],
                                              offsetof(mrc__ccprof, used), id);
}
/* A new context for c's peer and CC profile (mrc__cc_init): out of line, the context's address in one register */
MRC__PRIVATE MRC__NOINLINE void mrc__ccx_create(mrc_conn *c, mrc__ccx *x) {
    mrc_endpoint *ep = c->ep;
    const mrc__ccprof *pf = c->attr.cc_profile_id ? mrc__ccprof_find(ep, c->attr.cc_profile_id) : 0;
    mrc_nscc_cfg dflt;
    uint32_t mss = c->attr.path_mtu, rate = ep->cfg.cc.line_rate_mbps;
    uint32_t nominal = mrc__data_hdr_len(c, false) + mss + 4u + MRC_NOMINAL_HDR;
    MRC_MEMSET(x, 0, sizeof *x);
    MRC_MEMSET(&dflt, 0, sizeof dflt);
    x->used = 1;
    x->peer = c->attr.peer;
    x->profile_id = c->attr.cc_profile_id;
    x->ready_head = x->ready_tail = MRC__EV_NONE;
    x->algo = pf ? pf->algo : ep->cfg.cc.algo;
    if (!rate) rate = 100000u * ep->cfg.num_ports;
    mrc__nscc_prm_init(&x->p, pf ? &pf->nscc : &dflt, rate, ep->cfg.cc.base_rtt_ns, ep->cfg.trimmable, mss, nominal);
    if (x->algo == MRC_CC_ALGO_NSCC) {
        x->cwnd = x->p.maxwnd; /* Q13 NSCC constants: start at maxwnd */
        if (c->attr.hint.num_remote_recv_peers > 1u && x->p.trimming) /* P31 QP hints: or a known incast's fair
                                                                         share */
            x->cwnd = MRC__MAX(x->p.maxwnd / c->attr.hint.num_remote_recv_peers, (uint64_t)x->p.min_cwnd);
        x->last_adjust = x->last_dec = ep->now;
        if (MRC__KNOB(ep, cc_subpkt_shift)) { /* P24 sub-packet windows: the window may fall below one packet; the
                                                 context then paces */
            x->p.subpkt = 1;
            x->p.floor = MRC__MAX(nominal >> MRC__MIN(MRC__KNOB(ep, cc_subpkt_shift), 12u), 1u);
        }
        x->p.lh_mark_rtts = MRC__KNOB(ep, cc_lh_mark_rtts);
    } else { /* FIXED, or no window (NONE; a fixed window of 0 too): the NSCC window above is never 0 */
        uint32_t w = 0;
        if (x->algo == MRC_CC_ALGO_FIXED) x->p.maxwnd = w = pf ? pf->fixed_cwnd : ep->cfg.cc.fixed_cwnd_bytes;
        x->cwnd = w ? w : UINT64_MAX;
    }
}
MRC__PRIVATE void mrc__cc_init(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    int i = mrc__ccx_slot(ep, c->attr.peer, c->attr.cc_profile_id);
    mrc__ccx *x;
    MRC_ASSERT(i >= 0); /* checked before the transition */
    x = &ep->ccx[i];
    c->ccx = (uint16_t)i;
    c->ccxp = x;
    c->last_rcvd = 0;
    c->tx_nominal = 0;
    c->rcvd_credit = 0;
    if (!x->used) mrc__ccx_create(c, x);
    x->refs++;
}
MRC__PRIVATE void mrc__cc_release(mrc_conn *c) {
    mrc__ccx *x = mrc__conn_ccx(c);
    if (!x) return;
    if (c->in_ready) { /* unlink (O(QPs of the context), at teardown only) */
        uint16_t *pp = &x->ready_head, prev = MRC__EV_NONE;
        while (*pp != c->slot) {
            prev = *pp;
            pp = &c->ep->conns[*pp]->ready_next;
        }
        *pp = c->ready_next;
        if (x->ready_tail == c->slot) x->ready_tail = prev;
        c->in_ready = 0;
    }
    x->inflight -= MRC__MIN(x->inflight, c->cc_inflight);
    c->cc_inflight = 0;
    if (x->refs && !--x->refs) x->used = 0;
    else mrc__cc_wake(c->ep, x);
    c->ccx = MRC__EV_NONE;
    c->ccxp = (mrc__ccx *)0;
}

/* ---- a QP's inputs: sent, acknowledged, lost, a SACK's congestion signals ----------------------------------- */
/* P24 sub-packet windows: a packet sent with the window below its size sets the pacing clock: the context's next packet
 * waits base RTT x nominal / cwnd, so it sends cwnd bytes per base RTT on average, as a window would over one RTT.
 * One division, only below one packet per RTT - at most once per base RTT, hence _slow (kept off the per-packet
 * path, tools/div_check.py); the fast path leaves these packets to the general code. */
MRC__PRIVATE MRC__NOINLINE void mrc__cc_pace_slow(mrc__ccx *x, uint32_t nominal, mrc_time now) {
    x->pace_next = mrc__deadline_ctl(now, (mrc_time)x->p.base_rtt * nominal / (x->cwnd ? x->cwnd : 1u));
}
MRC__PRIVATE void mrc__cc_on_send(mrc_conn *c, uint32_t nominal) {
    mrc__ccx *x = mrc__conn_ccx(c);
    c->cc_inflight += nominal;
    if (!x) return;
    x->inflight += nominal;
    if (MRC__UNLIKELY(x->cwnd < nominal) && x->p.subpkt) mrc__cc_pace_slow(x, nominal, c->ep->now);
}
/* A PSN left the flight: acknowledged, or judged lost (why: MRC__LOSS_*, 0 for an acknowledgement). */
MRC__PRIVATE MRC__INLINE void mrc__cc_on_ack(mrc_conn *c, uint32_t nominal) {
    mrc__ccx *x = mrc__conn_ccx(c);
    MRC_ASSERT(c->cc_inflight >= nominal);
    c->cc_inflight -= MRC__MIN(c->cc_inflight, (uint64_t)nominal);
    if (!x) return;
    x->inflight -= MRC__MIN(x->inflight, (uint64_t)nominal);
    if (x->ready_head != MRC__EV_NONE) mrc__cc_wake(c->ep, x);
}
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__cc_on_loss(mrc_conn *c, uint32_t nominal, int why, mrc_time now) {
    mrc__ccx *x = mrc__conn_ccx(c);
    const mrc__cc_ops *ops;
    mrc__cc_on_ack(c, nominal);
    if (!x) return;
    ops = &mrc__cc_table[x->algo];
    if (why == MRC__LOSS_TRIM_LH) mrc__nscc_lh_mark(x, now); /* lh_mark_rtts is 0 unless NSCC */
    if (why == MRC__LOSS_TRIM || why == MRC__LOSS_TRIM_LH) { /* trims are congestion; resource NACKs are not (Q14
                                                                non-trim NACKs) */
        if (ops->on_trim) ops->on_trim(c, x, nominal, now);
    } else if (why != MRC__LOSS_NACK) {
        if (ops->on_loss) ops->on_loss(c, x, nominal, now);
    }
}
MRC__PRIVATE void mrc__cc_on_sack(mrc_conn *c, const mrc__cc_sample *s, mrc_time now) {
    mrc__ccx *x = mrc__conn_ccx(c);
    const mrc__cc_ops *ops;
    if (!x) return;
    ops = &mrc__cc_table[x->algo];
    if (ops->on_pen) ops->on_pen(c, x, s, now);
    if (ops->on_ack) ops->on_ack(c, x, s, now);
    if (x->ready_head != MRC__EV_NONE) mrc__cc_wake(c->ep, x);
}

/* ---- CC profiles and queries -------------------------------------------------------------------------------- */
/* the algorithms' names, by MRC_CC_ALGO_* (NONE: none) */
static const char *const mrc__cc_names[3] = {(const char *)0, MRC_CC_NSCC, MRC_CC_FIXED};
MRC__STATIC_ASSERT(MRC_CC_ALGO_NONE == 0 && MRC_CC_ALGO_NSCC == 1 && MRC_CC_ALGO_FIXED == 2, cc_algos);
MRC_API int mrc_cc_profile_modify(mrc_endpoint *ep, uint64_t id, const mrc_cc_profile_attr *a, uint32_t mask) {
    const uint32_t all = MRC_CC_PROF_ATTR_STATE | MRC_CC_PROF_ATTR_ALGORITHM | MRC_CC_PROF_ATTR_CONFIG;
    mrc__ccprof *pf;
    unsigned cur, to, algo = 0;
    int rc;
    if ((rc = mrc__prof_begin(ep, MRC_CALL_CC_PROFILE_MODIFY, a, id, mask, all)) != MRC_OK) return rc;
    pf = (mrc__ccprof *)mrc__ccprof_find(ep, id);
    cur = pf ? pf->state : (unsigned)MRC_PROFILE_INIT;
    to = cur; /* a state past ONLINE only from the call */
    if ((mask & MRC_CC_PROF_ATTR_STATE) && (to = a->state) > MRC_PROFILE_ONLINE)
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_STATE_VALUE, MRC_CC_PROF_ATTR_STATE);
    if ((mask & MRC_CC_PROF_ATTR_ALGORITHM) && a->algorithm) { /* (NULL: NONE) NSCC, then FIXED */
        for (algo = MRC_CC_ALGO_NSCC; algo <= MRC_CC_ALGO_FIXED && !mrc__streq(a->algorithm, mrc__cc_names[algo]);
             algo++) {
        }
        if (algo > MRC_CC_ALGO_FIXED)
            return mrc__fail(ep, MRC_ERR_NOTSUP, MRC_DETAIL_CC_ALGORITHM, MRC_CC_PROF_ATTR_ALGORITHM);
    }
    rc = mrc__prof_step(ep, cur, to, mask, MRC_CC_PROF_ATTR_ALGORITHM, MRC_CC_PROF_ATTR_ALGORITHM, pf && pf->refs);
    if (rc) return rc < 0 ? rc : MRC_OK;
    if (!(mask & MRC_CC_PROF_ATTR_ALGORITHM) && pf) algo = pf->algo;
    if ((mask & MRC_CC_PROF_ATTR_CONFIG) && algo == MRC_CC_ALGO_FIXED && !a->fixed_cwnd)
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_CC_CONFIG, MRC_CC_PROF_ATTR_CONFIG);
    if ((mask & MRC_CC_PROF_ATTR_CONFIG) && algo == MRC_CC_ALGO_NSCC &&
        (a->nscc.qa_gate > 16 || a->nscc.max_md_jump_q16 > 65536u))
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_CC_CONFIG, MRC_CC_PROF_ATTR_CONFIG);
    if (to == MRC_PROFILE_ONLINE && algo != MRC_CC_ALGO_NONE && !(mask & MRC_CC_PROF_ATTR_CONFIG) &&
        !(pf && pf->have_cfg))
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_CC_CONFIG_MISSING, MRC_CC_PROF_ATTR_CONFIG);
    if (to == MRC_PROFILE_INIT) {
        MRC_MEMSET(pf, 0, sizeof *pf);
        return MRC_OK;
    }
    if (!pf && !(pf = (mrc__ccprof *)mrc__tab_claim(ep->ccprofs, MRC_MAX_CC_PROFILES, sizeof ep->ccprofs[0],
                                                    offsetof(mrc__ccprof, used), id)))
        return mrc__fail(ep, MRC_ERR_FULL, MRC_DETAIL_PROFILE_FULL, 0);
    pf->algo = (uint8_t)algo;
    if (mask & MRC_CC_PROF_ATTR_CONFIG) {
        pf->nscc = a->nscc;
        pf->fixed_cwnd = a->fixed_cwnd;
        pf->have_cfg = 1;
    }
    pf->state = (uint8_t)to;
    return MRC_OK;
}
MRC_API int mrc_cc_profile_query(const mrc_endpoint *ep, uint64_t id, mrc_cc_profile_attr *a) {
    const mrc__ccprof *pf;
    if (!ep || !a) return MRC_ERR_INVAL;
    MRC_MEMSET(a, 0, sizeof *a);
    if (id == 0) {
        a->state = MRC_PROFILE_ONLINE;
        a->algorithm = mrc__cc_names[ep->cfg.cc.algo <= MRC_CC_ALGO_FIXED ? ep->cfg.cc.algo : 0];
        a->fixed_cwnd = ep->cfg.cc.fixed_cwnd_bytes;
        a->nscc.base_rtt = ep->cfg.cc.base_rtt_ns;
        return MRC_OK;
    }
    pf = mrc__ccprof_find(ep, id);
    if (!pf) return MRC_ERR_NOENT;
    a->state = pf->state;
    a->algorithm = mrc__cc_names[pf->algo];
    a->nscc = pf->nscc;
    a->fixed_cwnd = pf->fixed_cwnd;
    return MRC_OK;
}
MRC_API int mrc_endpoint_rx_pressure(mrc_endpoint *ep, unsigned penalty) {
    if (!ep || penalty > 127) return MRC_ERR_INVAL;
    ep->rx_pressure = (uint8_t)penalty;
    return MRC_OK;
}
MRC_API int mrc_conn_cc_info(const mrc_conn *c, mrc_cc_info *out) {
    const mrc__ccx *x;
    if (!c || !out) return MRC_ERR_INVAL;
    MRC_MEMSET(out, 0, sizeof *out);
    x = c->ep ? mrc__conn_ccx(c) : (const mrc__ccx *)0;
    if (c->sq_send != c->sq_tail) out->sched = c->in_ready || !mrc__req_can_send_new(c) ? MRC_SCHED_READY
                                                                                         : MRC_SCHED_ACTIVE;
    else out->sched = c->snd_una != c->snd_nxt ? MRC_SCHED_PENDING : MRC_SCHED_IDLE;
    if (!x) return MRC_OK;
    out->algo = x->algo;
    out->ctx_qps = x->refs;
    out->cwnd = x->cwnd;
    out->inflight = x->inflight;
    out->base_rtt_ns = x->p.base_rtt;
    out->avg_delay_ns = mrc__avg_delay(x);
    out->target_ns = x->p.target;
    out->maxwnd = x->p.maxwnd;
    return MRC_OK;
}

/* ====== src/path.h ============================================================================================== */
/* ================================================================================================================
 * EV / PATH MANAGER: what src/path.c offers the layers above it (the policies among them: src/path_policy.c)
 * ============================================================================================================== */

/* ---- EV slots, their states, the QP's profile, the ports ------------------------------------------------------ */
enum { MRC__EVS_ACTIVE = 0, MRC__EVS_SKIP, MRC__EVS_BACKUP, MRC__EVS_BAD, MRC__EVS_PROBING, MRC__EVS_DENIED,
       MRC__EVS_OFF };        /* mrc__ev.st bits 2:0 (the banner of src/path.c says where each state lives) */
#define MRC__EVF_SKIP2 0x08u  /* skipped after its turn in this round: it sits the next round out too */
#define MRC__EVF_OKC 0x70u    /* consecutive probe answers of an ASSUMED_BAD EV */
#define MRC__EVST(e) ((unsigned)((e)->st & 7u))
MRC__PRIVATE MRC__INLINE bool mrc__ev_hashed(const mrc_conn *c); /* the fabric's hash picks its EVs' paths */
MRC__PRIVATE MRC__INLINE bool mrc__ev_in_scope(const mrc_conn *c, unsigned scope); /* mrc_ev_policy scopes */
MRC__PRIVATE MRC__INLINE mrc__evprof *mrc__conn_prof(const mrc_conn *c);
MRC__PRIVATE mrc__evprof *mrc__prof_find(const mrc_endpoint *ep, uint64_t id);
MRC__PRIVATE uint32_t mrc__auto_evs(const mrc_endpoint *ep, uint32_t *min_active); /* the AUTO profile's EVs */
MRC__PRIVATE MRC__INLINE uint32_t mrc__ev_value(const mrc_conn *c, unsigned slot);
MRC__PRIVATE MRC__INLINE void mrc__ev_set(mrc__ev *e, unsigned st);
MRC__PRIVATE MRC__INLINE bool mrc__ev_is_bad(const mrc__ev *e);
MRC__PRIVATE void mrc__ev_badref(mrc_conn *c, unsigned slot, int delta);
#define MRC__EVP_NOPATH_BACKOFF 3u /* probe rounds stretch at most 8 x while a QP has no EV carrying data (7.11) */
MRC__PRIVATE bool mrc__ev_can_carry(const mrc_conn *c); /* an EV of some port can carry data */
/* ++*n out of line: a rare event's counter; MRC__EV_COUNT(n) is nothing under MRC_NO_STATS (a lost control packet,
 * endpoint operation or event calls mrc__ev_count itself: counted whatever the macro, as drops are) */
MRC__PRIVATE void mrc__ev_count(uint64_t *n);
#ifdef MRC_NO_STATS
#define MRC__EV_COUNT(n) ((void)0)
#else
#define MRC__EV_COUNT(n) mrc__ev_count(&(n))
#endif

/* ---- controller events ---------------------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__notify(mrc_endpoint *ep, mrc_event *e);
MRC__PRIVATE void mrc__ev_event(mrc_conn *c, uint16_t slot, uint32_t state);

/* ---- the rotation --------------------------------------------------------------------------------------------- */
MRC__PRIVATE MRC__INLINE void mrc__evr_put(mrc_conn *c, unsigned p, unsigned pos, uint16_t slot);
MRC__PRIVATE MRC__INLINE uint16_t mrc__evr_at(const mrc_conn *c, unsigned p, unsigned pos);
MRC__PRIVATE MRC__INLINE void mrc__evr_swap(mrc_conn *c, unsigned p, unsigned a, unsigned b);
MRC__PRIVATE void mrc__evr_del(mrc_conn *c, uint16_t slot);
MRC__PRIVATE void mrc__evr_add(mrc_conn *c, uint16_t slot);
MRC__PRIVATE void mrc__ev_new_round(mrc_conn *c, unsigned p);
MRC__PRIVATE void mrc__ev_rc_clear(mrc_conn *c); /* empty the recycle rings (P23 EV recycling) */

/* ---- the backup stacks, the bad FIFO, the probe clock, probes and the EVs of control packets ------------------- */
enum { MRC__TLP2_DUE = 1, MRC__TLP2_OUT = 2, MRC__TLP2_MATCH = MRC_MAX_PROBES }; /* c->tlp2; mrc__probe_match */
MRC__PRIVATE void mrc__bad_push(mrc_conn *c, uint16_t slot);
MRC__PRIVATE uint16_t mrc__bad_pop(mrc_conn *c);
MRC__PRIVATE void mrc__bk_push(mrc_conn *c, uint16_t slot);
MRC__PRIVATE mrc_time mrc__evp_interval(const mrc_conn *c);
MRC__PRIVATE mrc_time mrc__ev_ver_to(const mrc_conn *c);
MRC__PRIVATE void mrc__evp_arm(mrc_conn *c);
MRC__PRIVATE MRC__SIZE_NOINLINE int mrc__probe_match(const mrc_conn *c, uint32_t entropy, uint16_t ts);
MRC__PRIVATE uint16_t mrc__ev_ctl(mrc_conn *c, unsigned port);
MRC__PRIVATE MRC__INLINE uint32_t mrc__ent_hash(uint32_t ent);
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__ent_next(uint32_t h);
MRC__PRIVATE int mrc__prof_lookup(const mrc__evprof *pf, uint32_t ent, unsigned port);
MRC__PRIVATE uint16_t mrc__ev_mirror(const mrc_conn *c, uint32_t ent, unsigned port);

/* ---- building the set ----------------------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__ev_lists_empty(mrc_conn *c);
MRC__PRIVATE void mrc__ev_rebuild(mrc_conn *c);
MRC__PRIVATE void mrc__ev_setup(mrc_conn *c);
MRC__PRIVATE void mrc__ev_release(mrc_conn *c);
MRC__PRIVATE MRC__INLINE void mrc__ev_txinfo(const mrc_conn *c, uint16_t slot, mrc_txinfo *ti);

/* ---- EV expansion (docs/PROTOCOL.md 7.1) ---------------------------------------------------------------------- */
MRC__PRIVATE uint32_t mrc__bits_get(const uint8_t *p, uint32_t s, uint32_t k);
MRC__PRIVATE void mrc__bits_put(uint8_t *p, uint32_t d, uint32_t k, uint32_t v);
MRC__PRIVATE unsigned mrc__popcount32(uint32_t v);
MRC__PRIVATE uint32_t mrc__wmask(uint32_t w);
MRC__PRIVATE unsigned mrc__fmt_bits(const mrc_ev_fmt_attr *f);
MRC__PRIVATE unsigned mrc__prof_check(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nfields,
                                      unsigned *idx);

/* ====== src/path.c ============================================================================================== */
/* ================================================================================================================
 * EV / PATH MANAGER - src/path.c
 * Owns: the mechanism of paths - each QP's EV set, the state of every EV and how it changes (rotation, skips,
 * backups, the bad FIFO, rebuilds), the EV of every packet it sends, the EVs control packets leave on (Q19 reverse-path
 * EVs), the probe clock, controller events, and the EV expansion algorithm (docs/PROTOCOL.md 7.1). What to do on an
 * acknowledgement, a trim or a loss - which EV to use, when to hold one back, when to demote, sweep or verify - is
 * policy, in src/path_policy.c.
 *
 * A QP's EVs come from its profile: AUTO (ID 0) draws auto_ev.per_port distinct random UDP source ports per port; an
 * EXP or GEN profile lends its array. Packets go to the planes (ports) in turn, so every usable plane carries an
 * equal share; within a plane they walk that plane's EVs. Every slot is in exactly one place (docs/PROTOCOL.md 7):
 *   ACTIVE   its port's rotation [0, n_act): carries data. The rotation takes the next one and reshuffles at the end
 *            of a round, so each active EV of a plane carries one packet per round of that plane.
 *   SKIP     [n_act, n_act + n_skip) of its port: misses its next turn (SKIP_ONCE echo, fabric trim), back next round.
 *   BACKUP   bk_head[port]: good, waiting to replace a demoted EV of the same port.
 *   BAD      the bad FIFO (ASSUMED_BAD: a loss without a trim, or ALWAYS_SKIP); PROBING while its probe is out.
 *   DENIED   the controller said never.  OFF: its port, or the peer's, is down.
 * Picking, skipping, demoting, promoting a backup and reviving are O(1); a round's reshuffle is O(n) per n packets.
 * Control-plane changes (ports, peer ports, controller operations) rebuild the lists in O(n).
 * Calls: state.
 * ============================================================================================================== */

/* ---- EV slots, their states, the QP's profile, the ports ---------------------------------------------------- */
/* ECMP-hashed EVs: AUTO or a UDP or STEV profile's (the fabric's hash picks the path), not SRv6 (a named path) */
MRC__PRIVATE MRC__INLINE bool mrc__ev_hashed(const mrc_conn *c) {
    return !c->ev_prof || c->ep->profs[c->ev_prof - 1u].fmt_mode != MRC_EV_FMT_SRV6;
}
/* a rule of the EV policy whose scope (an OR of MRC_EV_KIND_*) holds the kind of the QP's EVs applies to it */
MRC__PRIVATE MRC__INLINE bool mrc__ev_in_scope(const mrc_conn *c, unsigned scope) {
    unsigned kind = !c->ev_prof ? MRC_EV_KIND_AUTO : mrc__ev_hashed(c) ? MRC_EV_KIND_HASHED : MRC_EV_KIND_PATH;
    return (scope & kind) != 0u;
}
MRC__PRIVATE MRC__INLINE mrc__evprof *mrc__conn_prof(const mrc_conn *c) {
    return c->ev_prof ? &c->ep->profs[c->ev_prof - 1u] : (mrc__evprof *)0;
}
MRC__PRIVATE mrc__evprof *mrc__prof_find(const mrc_endpoint *ep, uint64_t id) {
    return (mrc__evprof *)mrc__tab_find(ep->profs, MRC_MAX_EV_PROFILES, sizeof ep->profs[0],
                                        offsetof(mrc__evprof, used), id);
}
/* The entropy of EV slot 'slot' on the wire: its profile's (stored once per profile), or its AUTO source port. O(1). */
MRC__PRIVATE MRC__INLINE uint32_t mrc__ev_value(const mrc_conn *c, unsigned slot) {
    return c->ev_prof ? c->ep->profs[c->ev_prof - 1u].ev[slot].entropy : (uint32_t)c->evs[slot].sport;
}
MRC__PRIVATE MRC__INLINE void mrc__ev_set(mrc__ev *e, unsigned st) { /* clears flags and a P29 suspect hold hold too */
    e->st = (uint8_t)st;
    e->hold = 0;
}
MRC__PRIVATE MRC__INLINE bool mrc__ev_is_bad(const mrc__ev *e) {
    return MRC__EVST(e) == MRC__EVS_BAD || MRC__EVST(e) == MRC__EVS_PROBING;
}
MRC__PRIVATE MRC__INLINE bool mrc__port_ok(const mrc_conn *c, unsigned port) {
    return port >= 1 && port <= c->ep->cfg.num_ports && ((c->ep->ports_up & c->peer_ports) >> (port - 1u) & 1u);
}
/* the ASSUMED_BAD count a profile keeps per EV (QUERY_EV_STATE) */
MRC__PRIVATE void mrc__ev_badref(mrc_conn *c, unsigned slot, int delta) {
    mrc__evprof *pf = mrc__conn_prof(c);
    if (!pf) return;
    if (delta > 0) pf->ev[slot].bad_refs++;
    else if (pf->ev[slot].bad_refs) pf->ev[slot].bad_refs--;
}
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE bool mrc__ev_can_carry(const mrc_conn *c) { /* O(ports) */
    unsigned p;
    for (p = 0; p < MRC_MAX_PORTS; p++)
        if (c->n_act[p] + c->n_skip[p]) return true;
    return false;
}

/* A rare event counted (out of line: each 64-bit increment written out cost Cortex-M4 about six bytes more than a
 * call): EV policy verdicts, rebuilds, endpoint operations, and under gcc -Os the rare cases MRC__RARE_INC counts
 * (qp.h: a loss, a stale or marked packet) - never a data packet's common case */
MRC__PRIVATE MRC__NOINLINE void mrc__ev_count(uint64_t *n) { ++*n; }

/* ---- controller events -------------------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__notify(mrc_endpoint *ep, mrc_event *e) {
    if (ep->notify_len >= MRC_NOTIFYQ_LEN) { /* never silently: the next event delivered carries the count */
        ep->notify_lost++;
        ep->st.notify_dropped++; /* a loss: counted whatever MRC_NO_STATS */
        return;
    }
    e->drop_count = ep->notify_lost;
    ep->notify_lost = 0;
    ep->notify[(ep->notify_head + ep->notify_len) % MRC_NOTIFYQ_LEN] = *e;
    ep->notify_len++;
}
MRC__PRIVATE void mrc__ev_event(mrc_conn *c, uint16_t slot, uint32_t state) {
    const mrc__evprof *pf = mrc__conn_prof(c);
    mrc_event ev;
    MRC__TRACE(c->ep, MRC_TRACE_EV_STATE, ((uint64_t)c->qpn << 16) | slot, state);
    if (!((pf ? pf->event_mask : c->ep->cfg.auto_ev.event_mask) & state)) return;
    MRC_MEMSET(&ev, 0, sizeof ev);
    ev.type = MRC_EVT_EV_STATE;
    ev.qpn = c->qpn;
    ev.conn = c;
    ev.profile_id = pf ? pf->id : 0;
    ev.ev_index = slot;
    ev.ev = mrc__ev_value(c, slot);
    ev.port = c->evs[slot].port;
    ev.state = state;
    mrc__notify(c->ep, &ev);
}

/* ---- the rotation: planes round-robin, then each plane's own EV rotation ------------------------------------ */
MRC__PRIVATE MRC__INLINE void mrc__evr_put(mrc_conn *c, unsigned p, unsigned pos, uint16_t slot) {
    MRC_ASSERT((unsigned)c->seg[p] + pos < c->ev_count);
    c->ring[c->seg[p] + pos] = (mrc__evslot)slot;
    c->evs[slot].at = (uint16_t)pos;
}
MRC__PRIVATE MRC__INLINE uint16_t mrc__evr_at(const mrc_conn *c, unsigned p, unsigned pos) {
    return c->ring[c->seg[p] + pos];
}
MRC__PRIVATE MRC__INLINE void mrc__evr_swap(mrc_conn *c, unsigned p, unsigned a, unsigned b) {
    uint16_t t = mrc__evr_at(c, p, a);
    mrc__evr_put(c, p, a, mrc__evr_at(c, p, b));
    mrc__evr_put(c, p, b, t);
}
/* Take an ACTIVE or SKIP slot out of its port's rotation, keeping the used, pending and skipped regions contiguous. */
MRC__PRIVATE void mrc__evr_del(mrc_conn *c, uint16_t slot) {
    unsigned p = c->evs[slot].port - 1u, i = c->evs[slot].at, end = (unsigned)c->n_act[p] + c->n_skip[p] - 1u;
    c->evs[slot].rc = 0; /* skipped, demoted: its cached returns are stale (P23 EV recycling) */
    if (i >= c->n_act[p]) { /* skipped: the last skipped fills the hole */
        mrc__evr_put(c, p, i, mrc__evr_at(c, p, end));
        c->n_skip[p]--;
        return;
    }
    if (i < c->act_pos[p]) { /* used this round: the last used one fills the hole, which moves to the boundary */
        c->act_pos[p]--;
        mrc__evr_put(c, p, i, mrc__evr_at(c, p, c->act_pos[p]));
        i = c->act_pos[p];
    }
    if (i != c->n_act[p] - 1u) mrc__evr_put(c, p, i, mrc__evr_at(c, p, c->n_act[p] - 1u)); /* the last active one */
    c->n_act[p]--;
    if (c->n_skip[p]) mrc__evr_put(c, p, c->n_act[p], mrc__evr_at(c, p, end)); /* the last skipped moves down */
}
/* Make a slot ACTIVE, pending in its port's current round. */
MRC__PRIVATE void mrc__evr_add(mrc_conn *c, uint16_t slot) {
    unsigned p = c->evs[slot].port - 1u;
    if (c->n_skip[p]) mrc__evr_put(c, p, (unsigned)c->n_act[p] + c->n_skip[p], mrc__evr_at(c, p, c->n_act[p]));
    mrc__evr_put(c, p, c->n_act[p], slot);
    c->n_act[p]++;
    mrc__ev_set(&c->evs[slot], MRC__EVS_ACTIVE);
}
/* End of a port's round: skipped EVs rejoin (those that had their turn in the round they were skipped in sit this
 * one out, unless nothing else could carry data), then a seeded reshuffle. */
MRC__PRIVATE void mrc__ev_new_round(mrc_conn *c, unsigned p) {
    unsigned i, n = (unsigned)c->n_act[p] + c->n_skip[p], j = c->n_act[p];
    for (i = c->n_act[p]; i < n; i++) {
        mrc__ev *e = &c->evs[mrc__evr_at(c, p, i)];
        if (e->hold) { /* P29 suspect hold: awaiting a loss verdict; P35 sweeps: awaiting verification (no count) */
            if (e->hold != MRC__HOLD_VER) e->hold--;
            continue;
        }
        if (e->st & MRC__EVF_SKIP2) {
            e->st = (uint8_t)(e->st & ~MRC__EVF_SKIP2);
            continue;
        }
        mrc__ev_set(e, MRC__EVS_ACTIVE);
        mrc__evr_swap(c, p, i, j++);
    }
    if (j == 0 && n) { /* everything sat out: all but P35 sweeps's held EVs rejoin, and they too if they are all */
        for (i = c->n_act[p]; i < n; i++) {
            mrc__ev *e = &c->evs[mrc__evr_at(c, p, i)];
            if (e->hold == MRC__HOLD_VER) continue;
            mrc__ev_set(e, MRC__EVS_ACTIVE);
            mrc__evr_swap(c, p, i, j++);
        }
    }
    if (j == 0 && n) { /* everything sat out: everything rejoins */
        for (i = 0; i < n; i++) mrc__ev_set(&c->evs[mrc__evr_at(c, p, i)], MRC__EVS_ACTIVE); /* holds end too */
        j = n;
    }
    c->n_act[p] = (uint16_t)j;
    c->n_skip[p] = (uint16_t)(n - j);
    if (j) { /* shuffle the active ones (Fisher-Yates, the draws of mrc__evr_swap's loop); position i is final once its
              * step has drawn, so its slot's at is set there */
        mrc__evslot *ring = &c->ring[c->seg[p]];
#ifndef __OPTIMIZE_SIZE__ /* mrc__rand_below's draws on the generator's state in a local (24 bytes more under -Os) */
        uint64_t st = c->ep->rng;
#define MRC__SHUFFLE_BELOW(n) (unsigned)(((mrc__splitmix(&st) >> 32) * (uint64_t)(n)) >> 32)
#else
#define MRC__SHUFFLE_BELOW(n) (unsigned)mrc__rand_below(c->ep, n)
#endif
        MRC_ASSERT((unsigned)c->seg[p] + j <= c->ev_count);
        for (i = j - 1u; i; i--) {
            unsigned b = MRC__SHUFFLE_BELOW(i + 1u);
            mrc__evslot t = ring[b];
            ring[b] = ring[i];
            ring[i] = t;
            c->evs[t].at = (uint16_t)i;
        }
        c->evs[ring[0]].at = 0;
#undef MRC__SHUFFLE_BELOW
#ifndef __OPTIMIZE_SIZE__
        c->ep->rng = st;
#endif
    }
    c->act_pos[p] = 0;
}
/* Every FIFO empty (rebuild, ERR). O(ports + EVs). */
MRC__PRIVATE void mrc__ev_rc_clear(mrc_conn *c) {
    unsigned i;
    for (i = 0; i < MRC_MAX_PORTS; i++) c->rc_head[i] = c->rc_n[i] = 0;
    for (i = 0; i < c->ev_count; i++) c->evs[i].rc = 0;
}

/* ---- the backup stacks, the bad FIFO and the probe clock ---------------------------------------------------- */
MRC__PRIVATE void mrc__bad_push(mrc_conn *c, uint16_t slot) {
    mrc__ev *e = &c->evs[slot];
    e->st = (uint8_t)((e->st & MRC__EVF_OKC) | MRC__EVS_BAD);
    e->at = MRC__EV_NONE;
    if (c->bad_tail == MRC__EV_NONE) c->bad_head = slot;
    else c->evs[c->bad_tail].at = slot;
    c->bad_tail = slot;
    c->n_bad++;
}
MRC__PRIVATE uint16_t mrc__bad_pop(mrc_conn *c) {
    uint16_t s = c->bad_head;
    c->bad_head = c->evs[s].at;
    if (c->bad_head == MRC__EV_NONE) c->bad_tail = MRC__EV_NONE;
    c->n_bad--;
    return s;
}
MRC__PRIVATE void mrc__bk_push(mrc_conn *c, uint16_t slot) {
    mrc__ev *e = &c->evs[slot];
    unsigned p = e->port - 1u;
    mrc__ev_set(e, MRC__EVS_BACKUP);
    e->at = c->bk_head[p];
    c->bk_head[p] = slot;
    c->bk_n[p]++;
}
/* The probe round: ev.probe_interval_ns, or 8 smoothed RTTs (10 us..10 ms); doubled per round in which probes went
 * out and none came back, up to 1024 times, so dead paths cost little; back to 1 at the first answer. */
MRC__PRIVATE mrc_time mrc__evp_base(const mrc_conn *c) {
    mrc_time t = c->ep->cfg.ev.probe_interval_ns;
    return t ? t : MRC__MAX(MRC__MIN(MRC__MAX(8u * c->srtt, (mrc_time)10000u), (mrc_time)10000000u), 2u * c->srtt);
}
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE mrc_time mrc__evp_interval(const mrc_conn *c) { return mrc__evp_base(c) << c->evp_backoff; }
/* P35 sweeps: how long a verification probe waits for its answer: a quarter of a probe round (2 smoothed RTTs by
 * default), without the back-off of Q8 EV health timers's */
MRC__PRIVATE mrc_time mrc__ev_ver_to(const mrc_conn *c) { return MRC__MAX(mrc__evp_base(c) / 4u, 2u * c->srtt); }
MRC__PRIVATE void mrc__evp_arm(mrc_conn *c) {
    if (c->n_bad && c->evp_deadline == MRC_TIME_NEVER)
        c->evp_deadline = mrc__deadline_ctl(c->ep->now, mrc__evp_interval(c));
}
/* Which outstanding probe a probe SACK answers, by the EV and the PETH timestamp it echoes (P19 QP 0x2 and probe trust:
 * an answer to someone else's PROBE_REQ matches none); -1 for none. O(MRC_MAX_PROBES). */
MRC__PRIVATE MRC__SIZE_NOINLINE int mrc__probe_match(const mrc_conn *c, uint32_t entropy, uint16_t ts) {
    unsigned i;
    for (i = 0; i < MRC_MAX_PROBES; i++) {
        const mrc__probe *p = &c->probes[i];
        if (p->kind != MRC__PROBE_FREE && !((c->probes_due >> i) & 1u) && mrc__ev_value(c, p->slot) == entropy &&
            mrc__ts_ctl(c->ep, c->probe_sent[i]) == ts)
            return (int)i;
    }
    if (c->probes[0].kind == MRC__PROBE_TLP && (c->tlp2 & MRC__TLP2_OUT) && c->tlp2_slot < c->ev_count &&
        mrc__ev_value(c, c->tlp2_slot) == entropy && mrc__ts_ctl(c->ep, c->tlp2_sent) == ts)
        return MRC__TLP2_MATCH; /* P33 TLP copies: the other copy of the tail-loss probe */
    return -1;
}

/* ---- reverse EVs of control packets (Q19 reverse-path EVs) ----------------------------------------------------------
 * SACKs, NACKs and transport ACKs leave on the arrival plane, on its EVs that carry data, in turn: they spread over
 * the paths data takes, so one broken reverse path costs a share of (cumulative) acknowledgements, not all of
 * them. A plane with no such EV hands over to the next. MRC__EV_NONE when the QP has none at all. O(ports). */
MRC__PRIVATE uint16_t mrc__ev_ctl(mrc_conn *c, unsigned port) {
    unsigned i, np = c->ep->cfg.num_ports, p = port - 1u;
    for (i = 0; i < np; i++, p = p + 1u == np ? 0u : p + 1u) {
        unsigned n = (unsigned)c->n_act[p] + c->n_skip[p];
        if (!n) continue;
        if (c->rev_pos[p] >= n) c->rev_pos[p] = 0;
        return mrc__evr_at(c, p, c->rev_pos[p]++);
    }
    return MRC__EV_NONE;
}
/* P28 mirror reverse path: the EV of a profile whose entropy is 'ent' on 'port', from the profile's index (open
 * addressing, linear probing, at most half full). -1 when there is none. O(1) expected. */
MRC__PRIVATE MRC__INLINE uint32_t mrc__ent_hash(uint32_t ent) { return (uint32_t)(ent * 2654435761u) % MRC__EVH; }
/* (out of line under -Os: in line in its two callers it cost 24 B of Cortex-M4 code more) */
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__ent_next(uint32_t h) { return h + 1u == MRC__EVH ? 0u : h + 1u; }
MRC__PRIVATE int mrc__prof_lookup(const mrc__evprof *pf, uint32_t ent, unsigned port) {
    uint32_t h = mrc__ent_hash(ent), n;
    for (n = 0; n < MRC__EVH && pf->hix[h]; n++, h = mrc__ent_next(h)) {
        unsigned i = pf->hix[h] - 1u;
        if (pf->ev[i].entropy == ent && pf->ev[i].port == port) return (int)i;
    }
    return -1;
}
/* P28 mirror reverse path: a QP with an EV profile answers on the mirror of the arrival path: its own EV with the
 * arrival's entropy and port. A path-aware profile numbers the paths so that EV i from A to B and EV i from B to A
 * cross the same cables (the simulator's layouts do, on a two-tier Clos and a fat tree), and a packet that just arrived
 * on it shows that path works. Not while that EV is ASSUMED_BAD, PROBING, DENIED or OFF here: then Q19 reverse-path
 * EVs's rotation (MRC__EV_NONE). O(1). */
MRC__PRIVATE uint16_t mrc__ev_mirror(const mrc_conn *c, uint32_t ent, unsigned port) {
    const mrc__evprof *pf = mrc__conn_prof(c);
    int i;
    unsigned st;
    if (!pf || c->ep->cfg.ev.reply != MRC_EV_REPLY_MIRROR) return MRC__EV_NONE; /* (both callers left ECHO out) */
    i = mrc__prof_lookup(pf, ent, port);
    if (i < 0 || (unsigned)i >= c->ev_count) return MRC__EV_NONE;
    st = MRC__EVST(&c->evs[i]);
    if (st != MRC__EVS_ACTIVE && st != MRC__EVS_SKIP && st != MRC__EVS_BACKUP) return MRC__EV_NONE;
    return (uint16_t)i;
}

/* ---- building the set --------------------------------------------------------------------------------------- */
/* No ASSUMED_BAD FIFO, no backup stacks (MRC__EV_NONE: slot 0 is a real slot). */
MRC__STATIC_ASSERT(MRC__EV_NONE == 0xFFFFu, ev_none_bytes); /* all ones: a byte fill of 0xFF writes it */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__ev_lists_empty(mrc_conn *c) {
    c->bad_head = c->bad_tail = MRC__EV_NONE;
    MRC_MEMSET(c->bk_head, 0xFF, sizeof c->bk_head); /* MRC__EV_NONE in every entry */
}
/* Recompute every list from the slots' states, ports and the profile's DENIED flags: ASSUMED_BAD EVs stay bad;
 * good ones fill each port's active share (ev.backup_pct held back), the rest wait as backups. O(n).
 * The active share (act_target) and the floor are computed from the port's USABLE EVs (neither OFF nor DENIED),
 * good or ASSUMED_BAD, never from the health of the moment: they are later trusted by revivals and demotions, and a
 * share computed while a plane's EVs were all bad (0) parked every EV revived there as a backup for ever, which
 * left a QP whose only plane that was that one with nothing to send on (issue 13). */
MRC__PRIVATE void mrc__ev_rebuild(mrc_conn *c) {
    const mrc__evprof *pf = mrc__conn_prof(c);
    uint16_t usable[MRC_MAX_PORTS], slots[MRC_MAX_PORTS];
    unsigned i, p, planes = 0;
    c->n_bad = 0;
    mrc__ev_lists_empty(c);
    mrc__ev_rc_clear(c);
    for (p = 0; p < MRC_MAX_PORTS; p++) {
        c->bk_n[p] = c->n_act[p] = c->n_skip[p] = c->act_pos[p] = c->rev_pos[p] = 0;
        usable[p] = slots[p] = 0;
    }
    for (i = 0; i < c->ev_count; i++) { /* classify */
        mrc__ev *e = &c->evs[i];
        bool was_bad = mrc__ev_is_bad(e);
        unsigned ns = MRC__EVS_ACTIVE;
        if (pf && pf->ev[i].denied) ns = MRC__EVS_DENIED;
        else if (!mrc__port_ok(c, e->port)) ns = MRC__EVS_OFF;
        else if (was_bad) ns = MRC__EVS_BAD;
        if (ns == MRC__EVS_ACTIVE || ns == MRC__EVS_BAD) usable[e->port - 1u]++;
        if (was_bad && ns != MRC__EVS_BAD) mrc__ev_badref(c, i, -1);
        mrc__ev_set(e, ns);
        slots[e->port - 1u]++;
    }
    for (p = 0, i = 0; p < MRC_MAX_PORTS; p++) { /* segments, active shares, the per-port floor */
        uint32_t t = usable[p] - (uint32_t)usable[p] * c->ep->cfg.ev.backup_pct / 100u;
        c->act_target[p] = (uint16_t)(usable[p] && !t ? 1u : t);
        c->seg[p] = (uint16_t)i;
        i += slots[p];
        planes += usable[p] != 0;
    }
    c->seg[MRC_MAX_PORTS] = (uint16_t)i; /* ev_count: the last segment's end */
    c->ev_floor = (uint16_t)(planes ? (c->ev_min_active + planes - 1u) / planes : 0u);
    for (p = 0; p < MRC_MAX_PORTS; p++) c->port_ok[p] = c->ep->now;
    c->ev_proven = MRC__EV_NONE; /* proven again by the next SACK */
    for (i = 0; i < c->ev_count; i++) { /* place */
        mrc__ev *e = &c->evs[i];
        p = e->port - 1u;
        if (MRC__EVST(e) == MRC__EVS_BAD) {
            mrc__bad_push(c, (uint16_t)i);
        } else if (MRC__EVST(e) == MRC__EVS_ACTIVE) {
            if (c->n_act[p] < c->act_target[p]) mrc__evr_put(c, p, c->n_act[p]++, (uint16_t)i);
            else mrc__bk_push(c, (uint16_t)i);
        }
    }
    for (p = 0; p < MRC_MAX_PORTS; p++)
        for (i = c->n_act[p]; i-- > 1;) mrc__evr_swap(c, p, i, (unsigned)mrc__rand_below(c->ep, i + 1u));
    c->ver_n = c->ver_head = 0; /* P35 sweeps: every held EV was placed again above */
    c->ver_deadline = MRC_TIME_NEVER;
    for (i = 1; i < MRC_MAX_PROBES; i++) { /* EV probes in flight now answer nothing */
        if (c->probes[i].kind == MRC__PROBE_EV || c->probes[i].kind == MRC__PROBE_VER) c->probes[i].kind = MRC__PROBE_FREE;
        c->probes_due &= ~(1u << i);
    }
    if (c->probes[0].kind == MRC__PROBE_TLP && c->probes[0].slot >= c->ev_count) c->probes[0].kind = 0;
    if (c->probes[0].kind != MRC__PROBE_TLP || c->tlp2_slot >= c->ev_count) c->tlp2 = 0; /* P33 TLP copies: a stale copy
                                                                                            */
    c->evp_deadline = MRC_TIME_NEVER;
    mrc__evp_arm(c);
    if (mrc__ev_can_carry(c)) c->nopath_deadline = MRC_TIME_NEVER;
    MRC__EV_COUNT(c->st.ev_rebuilds);
}
/* The AUTO profile's EV count and its minimum active EVs (the configuration's, else an eighth, at least 1): the QPs'
 * sets (mrc__ev_setup) and mrc_ev_profile_query's answer for ID 0. Out of line: the two share it. */
MRC__PRIVATE MRC__NOINLINE uint32_t mrc__auto_evs(const mrc_endpoint *ep, uint32_t *min_active) {
    uint32_t n = MRC__MIN((uint32_t)ep->cfg.auto_ev.per_port * ep->cfg.num_ports, (uint32_t)MRC_MAX_EVS);
    *min_active = ep->cfg.auto_ev.min_active ? MRC__MIN((uint32_t)ep->cfg.auto_ev.min_active, n) : MRC__MAX(n / 8u, 1u);
    return n;
}
/* RESET -> INIT: the QP's EV set from its profile. AUTO values are distinct per QP (O(n^2) once, at set-up). */
MRC__PRIVATE void mrc__ev_setup(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    const mrc__evprof *pf = mrc__conn_prof(c);
    uint32_t n, i, j, range = (uint32_t)ep->cfg.auto_ev.sport_max - ep->cfg.auto_ev.sport_min + 1u;
    if (pf) {
        n = pf->ev_count;
        for (i = 0; i < n; i++) {
            c->evs[i].sport = 0; /* the value is the profile's */
            c->evs[i].port = pf->ev[i].port;
        }
        c->ev_min_active = (uint16_t)pf->ev_min_active;
    } else {
        uint32_t min_active;
        n = mrc__auto_evs(ep, &min_active);
        for (i = 0; i < n; i++) {
            uint32_t v, tries = 0;
            do { /* distinct values, as long as the range allows */
                v = ep->cfg.auto_ev.sport_min + mrc__rand_below(ep, range);
                for (j = 0; j < i && c->evs[j].sport != v; j++) {
                }
            } while (j < i && ++tries < 16u);
            c->evs[i].sport = (uint16_t)v; /* auto_ev.sport_min..sport_max: 16 bits */
            c->evs[i].port = (uint8_t)(i % ep->cfg.num_ports + 1u);
        }
        c->ev_min_active = (uint16_t)min_active;
    }
    for (i = 0; i < n; i++) mrc__ev_set(&c->evs[i], 0);
    c->ev_count = (uint16_t)n;
    c->peer_ports = mrc__all_ports(ep);
    mrc__ev_rebuild(c);
    c->st.ev_rebuilds = 0;
}
/* RESET or destroy: give back the profile reference and the ASSUMED_BAD counts. */
MRC__PRIVATE void mrc__ev_release(mrc_conn *c) {
    mrc__evprof *pf = mrc__conn_prof(c);
    unsigned i;
    if (!pf) return;
    for (i = 0; i < c->ev_count; i++)
        if (mrc__ev_is_bad(&c->evs[i])) mrc__ev_badref(c, i, -1);
    if (pf->refs) pf->refs--;
    c->ev_prof = 0;
}
/* The EV fields of a packet's txinfo. */
MRC__PRIVATE MRC__INLINE void mrc__ev_txinfo(const mrc_conn *c, uint16_t slot, mrc_txinfo *ti) {
    const mrc__evprof *pf = mrc__conn_prof(c);
    ti->port = c->evs[slot].port;
    ti->ev = pf ? pf->ev[slot].entropy : (uint32_t)c->evs[slot].sport;
    ti->ev_fmt = pf ? pf->fmt_mode : (uint8_t)MRC_EV_FMT_UDP;
    if (pf && pf->path_len) {
        ti->path = pf->ev[slot].path;
        ti->path_len = pf->path_len;
    }
}

/* ---- per-QP queries ----------------------------------------------------------------------------------------- */
MRC__STATIC_ASSERT(MRC_EVS_GOOD == 1u && MRC_EVS_ASSUMED_BAD == 2u && MRC_EVS_DENIED == 4u, ev_api_states);
MRC__PRIVATE uint32_t mrc__ev_api_state(const mrc__ev *e) { /* per state (ev_summary_at's order), 4 bits each */
    return (0x11422111u >> (4u * MRC__EVST(e))) & 0xFu; /* BAD, PROBING: ASSUMED_BAD; DENIED; else GOOD */
}
MRC_API unsigned mrc_conn_ev_count(const mrc_conn *c) { return c ? c->ev_count : 0u; }
MRC_API int mrc_conn_ev_get(const mrc_conn *c, unsigned index, uint32_t *ev, uint8_t *port, uint32_t *state) {
    if (!c) return MRC_ERR_INVAL;
    if (index >= c->ev_count) return MRC_ERR_NOENT;
    if (ev) *ev = mrc__ev_value(c, index);
    if (port) *port = c->evs[index].port;
    if (state) *state = mrc__ev_api_state(&c->evs[index]);
    return MRC_OK;
}
MRC__STATIC_ASSERT(MRC__EVS_ACTIVE == 0 && MRC__EVS_SKIP == 1 && MRC__EVS_BACKUP == 2 && MRC__EVS_BAD == 3 &&
                       MRC__EVS_PROBING == 4 && MRC__EVS_DENIED == 5 && MRC__EVS_OFF == 6,
                   ev_summary_at); /* the order of mrc_conn_ev_summary's table */
MRC__STATIC_ASSERT(sizeof(mrc_ev_port_summary) == 6u * sizeof(uint16_t), ev_summary_u16); /* its counts, by offset */
MRC_API int mrc_conn_ev_summary(const mrc_conn *c, mrc_ev_port_summary out[MRC_MAX_PORTS]) {
    unsigned i;
    if (!c || !out) return MRC_ERR_INVAL;
    MRC_MEMSET(out, 0, sizeof(mrc_ev_port_summary) * MRC_MAX_PORTS);
    for (i = 0; i < c->ev_count; i++) { /* each state's count, by its offset (a table, not a switch) */
        static const uint8_t at[8] = {
            offsetof(mrc_ev_port_summary, active), offsetof(mrc_ev_port_summary, skipped),
            offsetof(mrc_ev_port_summary, backup), offsetof(mrc_ev_port_summary, bad),
            offsetof(mrc_ev_port_summary, bad), offsetof(mrc_ev_port_summary, denied),
            offsetof(mrc_ev_port_summary, off), offsetof(mrc_ev_port_summary, off)};
        const mrc__ev *e = &c->evs[i];
        uint16_t *n = (uint16_t *)(void *)((uint8_t *)&out[e->port - 1u] + at[MRC__EVST(e)]);
        (*n)++;
    }
    return MRC_OK;
}

/* ---- EV expansion (docs/PROTOCOL.md 7.1; the OCP EV profile comment) ------------------------------------------------
 * Per field: start from init_val; overlay popcount(mask) bits read from the abstract EV (most significant first)
 * onto the mask's set bits, the highest set bit taking the first bit read; write the field right-aligned in its
 * format field's width. Format fields past the profile's fields stay zero; abstract bits past the last mask must
 * be zero. */
MRC__PRIVATE uint32_t mrc__bits_get(const uint8_t *p, uint32_t s, uint32_t k) { /* k <= 32 bits at bit s */
    uint32_t v = 0, i;
    for (i = 0; i < k; i++) v = (v << 1) | ((uint32_t)(p[(s + i) >> 3] >> (7u - ((s + i) & 7u))) & 1u);
    return v;
}
MRC__PRIVATE void mrc__bits_put(uint8_t *p, uint32_t d, uint32_t k, uint32_t v) { /* low k bits of v at bit d */
    uint32_t i;
    for (i = 0; i < k; i++) {
        uint32_t o = d + i;
        uint8_t m = (uint8_t)(1u << (7u - (o & 7u)));
        if ((v >> (k - 1u - i)) & 1u) p[o >> 3] = (uint8_t)(p[o >> 3] | m);
        else p[o >> 3] = (uint8_t)(p[o >> 3] & (uint8_t)~m);
    }
}
/* popcount32 and wmask out of line: cold code (profiles, expansion), smaller so on Cortex-M4 than in line in their
 * callers (gcc -Os inlined them) */
MRC__PRIVATE MRC__NOINLINE unsigned mrc__popcount32(uint32_t v) {
    unsigned n = 0;
    for (; v; v &= v - 1u) n++;
    return n;
}
MRC__PRIVATE uint32_t mrc__deposit(uint32_t x, uint32_t mask) { /* low bits of x onto mask's set bits, lowest first */
    uint32_t r = 0;
    for (; mask; mask &= mask - 1u, x >>= 1)
        if (x & 1u) r |= mask & (0u - mask);
    return r;
}
MRC__PRIVATE MRC__NOINLINE uint32_t mrc__wmask(uint32_t w) { return w >= 32u ? 0xFFFFFFFFu : ((1u << w) - 1u); }
MRC__PRIVATE unsigned mrc__fmt_max_bits(unsigned mode) {
    unsigned m = mode == MRC_EV_FMT_UDP ? 16u : mode == MRC_EV_FMT_STEV ? 32u : mode == MRC_EV_FMT_SRV6 ? 256u : 0u;
    return MRC__MIN(m, 8u * MRC_EV_BYTES);
}
/* total width in bits, or 0 when the format is invalid */
MRC__PRIVATE unsigned mrc__fmt_bits(const mrc_ev_fmt_attr *f) {
    unsigned i, w = 0;
    if (!f || f->nfields < 1 || f->nfields > MRC_MAX_EV_FIELDS) return 0;
    for (i = 0; i < f->nfields; i++) {
        if (f->width[i] < 1 || f->width[i] > 32) return 0;
        w += f->width[i];
    }
    return w <= mrc__fmt_max_bits(f->mode) ? w : 0u;
}
/* The profile rules (docs/PROTOCOL.md 7.1): the MRC_DETAIL_* rule broken, *idx its field (0 for the whole), or
 * MRC_DETAIL_NONE (0) */
MRC__PRIVATE unsigned mrc__prof_check(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nfields,
                                      unsigned *idx) {
    unsigned i, abits = 0;
    *idx = 0;
    if (!f || !fmt) return MRC_DETAIL_NULL_ARG;
    if (!mrc__fmt_bits(fmt)) return MRC_DETAIL_FMT_TOO_WIDE;
    if (nfields < 1 || nfields > fmt->nfields) return MRC_DETAIL_FIELD_COUNT;
    for (i = 0; i < nfields; i++) {
        uint32_t w = f[i].width, m = mrc__wmask(w), k = mrc__popcount32(f[i].mask);
        *idx = i;
        if (w < 1 || w > fmt->width[i]) return MRC_DETAIL_FIELD_WIDTH;
        if (f[i].init_val & ~m) return MRC_DETAIL_FIELD_INIT_VAL;
        if (f[i].mask & ~m) return MRC_DETAIL_FIELD_MASK;
        if (f[i].mask) {
            if (f[i].min_val > f[i].max_val || (k < 32u && (f[i].max_val >> k))) return MRC_DETAIL_FIELD_RANGE;
        } else if (f[i].min_val || f[i].max_val) {
            return MRC_DETAIL_FIELD_FIXED; /* a fixed field generates nothing */
        }
        abits += k;
    }
    *idx = 0;
    return abits > 8u * MRC_EV_BYTES ? MRC_DETAIL_ABSTRACT_WIDTH : MRC_DETAIL_NONE;
}
MRC_API int mrc_ev_profile_check(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nfields) {
    unsigned idx;
    return mrc__prof_check(fmt, f, nfields, &idx) ? MRC_ERR_INVAL : MRC_OK;
}
MRC_API int mrc_ev_expand(const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nfields, const uint8_t *abs,
                          size_t abs_len, uint8_t *out, size_t out_len) {
    unsigned i, bits;
    uint32_t s = 0, d = 0, nabs;
    int rc = mrc_ev_profile_check(fmt, f, nfields);
    if (rc) return rc;
    if (!abs || !out || abs_len > MRC_EV_BYTES) return MRC_ERR_INVAL;
    bits = mrc__fmt_bits(fmt);
    if (out_len * 8u < bits) return MRC_ERR_NOBUF;
    nabs = (uint32_t)abs_len * 8u;
    MRC_MEMSET(out, 0, out_len);
    for (i = 0; i < fmt->nfields; i++) {
        uint32_t v = 0;
        if (i < nfields) {
            v = f[i].init_val;
            if (f[i].mask) {
                uint32_t k = mrc__popcount32(f[i].mask);
                if (s + k > nabs) return MRC_ERR_INVAL;
                v = (v & ~f[i].mask) | mrc__deposit(mrc__bits_get(abs, s, k), f[i].mask);
                s += k;
            }
        }
        mrc__bits_put(out, d, fmt->width[i], v);
        d += fmt->width[i];
    }
    for (; s < nabs; s++)
        if (mrc__bits_get(abs, s, 1)) return MRC_ERR_INVAL; /* bits no field consumes */
    return (int)bits;
}

/* ---- encapsulation fields for an adapter (Q16 STEV header mapping, Q18 SRv6 mode) --------------------------- */
MRC_API int mrc_endpoint_ev_headers(const mrc_endpoint *ep, const mrc_txinfo *ti, mrc_ev_hdrs *out) {
    uint32_t hi, lo;
    if (!ep || !ti || !out) return MRC_ERR_INVAL;
    MRC_MEMSET(out, 0, sizeof *out);
    hi = (ti->ev >> 16) & 0xFFFFu;
    lo = ti->ev & 0xFFFFu;
    if (ti->ev_fmt == MRC_EV_FMT_UDP) {
        out->udp_sport = (uint16_t)lo;
        return MRC_OK;
    }
    if (ti->ev_fmt == MRC_EV_FMT_SRV6) { /* the path in the outer header; the entropy as in STEV (Q18 SRv6 mode) */
        if ((ti->path_len != 16 && ti->path_len != 32) || !ti->path) return MRC_ERR_INVAL;
        out->has_srv6 = 1;
        mrc__copy(out->srv6_da, ti->path, 16);
        if (ti->path_len == 32) {
            out->has_srh = 1;
            mrc__copy(out->srh_seg, ti->path + 16, 16);
        }
    } else if (ti->ev_fmt != MRC_EV_FMT_STEV) {
        return MRC_ERR_INVAL;
    }
    out->udp_sport = (uint16_t)(ep->cfg.stev_sport_high ? hi : lo);
    out->flow_label = ep->cfg.stev_sport_high ? lo : hi;
    return MRC_OK;
}

/* ====== src/path_policy.h ======================================================================================= */
/* ================================================================================================================
 * EV POLICIES: what src/path_policy.c offers the layers above it
 * ============================================================================================================== */

/* ---- which EV ------------------------------------------------------------------------------------------------- */
MRC__PRIVATE MRC__INLINE unsigned mrc__ev_seglen(const mrc_conn *c, unsigned p); /* a port's recycle ring length */
MRC__PRIVATE MRC__INLINE void mrc__ev_rc_push(mrc_conn *c, unsigned slot);
MRC__PRIVATE MRC__INLINE int mrc__ev_rc_pop(mrc_conn *c, unsigned p, int avoid);
MRC__PRIVATE int mrc__ev_pick(mrc_conn *c, int avoid);        /* the EV of the next data packet, or -1 */

/* ---- skips, holds and sweeps ---------------------------------------------------------------------------------- */
#define MRC__SUS_ROUNDS 8u /* P29 suspect hold: the most rounds of its plane a held EV sits out awaiting a verdict */
MRC__PRIVATE void mrc__ev_hold(mrc_conn *c, unsigned slot);
MRC__PRIVATE void mrc__ev_unhold(mrc_conn *c, unsigned slot);
MRC__PRIVATE MRC__INLINE bool mrc__ev_is_ver(const mrc__ev *e); /* held by a sweep until verified (P35 sweeps) */
MRC__PRIVATE MRC__INLINE unsigned mrc__ev_ver_pos(const mrc_conn *c, unsigned i);
MRC__PRIVATE MRC__INLINE void mrc__ev_delivered(mrc_conn *c, unsigned slot, mrc_time sent); /* a SACK named it */
MRC__PRIVATE void mrc__ev_ver_expire(mrc_conn *c, mrc_time now);

/* ---- verdicts ------------------------------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__ev_demote(mrc_conn *c, uint16_t slot, bool forced);
MRC__PRIVATE void mrc__ev_on_ack(mrc_conn *c, int slot, unsigned m);
MRC__PRIVATE void mrc__ev_on_trim(mrc_conn *c, int slot);
MRC__PRIVATE void mrc__ev_on_loss(mrc_conn *c, int slot, bool confirmed, mrc_time ref);
MRC__PRIVATE void mrc__ev_undemote(mrc_conn *c, uint16_t slot); /* P40: a confirmed loss taken back */
MRC__PRIVATE void mrc__ev_lost_at(mrc_conn *c, unsigned slot, mrc__txseq seq, mrc_time sent); /* P39 host losses */
MRC__PRIVATE void mrc__ev_rto_silent(mrc_conn *c); /* P39 host losses: an RTO after every plane fell silent */

/* ---- probes of ASSUMED_BAD EVs (Q8 EV health timers) -------------------------------------------------------- */
MRC__PRIVATE void mrc__ev_probe_round(mrc_conn *c, mrc_time now);
MRC__PRIVATE void mrc__ev_probe_answer(mrc_conn *c, unsigned i, unsigned m);

/* ====== src/path_policy.c ======================================================================================= */
/* ================================================================================================================
 * EV POLICIES - src/path_policy.c
 * Owns: the decisions about paths, over the mechanism of src/path.c: which EV carries the next packet (the plane's
 * rotation, good EVs recycled first: P23 EV recycling), what an acknowledgement, a trim or a loss does to the EV it
 * names (a skip, a hold awaiting the loss's verdict: P27 late-SACK verdict, P29 suspect hold; demotion to ASSUMED_BAD;
 * revival), the sweep of a plane after a confirmed silent loss and the verification of the EVs it holds (P35 sweeps),
 * and the rounds of probes that bring ASSUMED_BAD EVs back (Q8 EV health timers). The knobs these read are mrc_config's
 * EV policy fields.
 * Calls: state, path.
 * ============================================================================================================== */

/* ---- recycling of good EVs (docs/PROTOCOL.md P23 EV recycling) ------------------------------------------------------
 * Owns each port's FIFO of clean returns: an ACTIVE EV whose packet a SACK named without CE (m = MRC_M_NONE, the
 * SACK's entropy being the EV's) is queued once per such SACK, and the port's next packet takes the oldest queued
 * EV before its rotation moves on (REPS-like: good paths are reused, the rotation explores). A recycled EV that had
 * not had its turn in the rotation's round has it now (it moves to the used part), so the rotation's next EVs are
 * ones that have carried nothing this round: exploration does not pile more packets on an EV that recycling
 * already reuses (measured: less concentration, fewer trims on a fully loaded 2-tier Clos). An EV's rc counts its
 * entries that are still valid; leaving the rotation (skip, demotion) zeroes it, so entries queued before are
 * stale and dropped when they reach the head - an EV is never recycled after a CE echo, a trim or a loss until a
 * new clean return. A FIFO holds at most its port's slot count; a return that finds it full is not queued.
 * Rebuilds and ERR empty every FIFO. Queueing O(1); taking amortised O(1) (each stale entry is dropped once). */
MRC__PRIVATE MRC__INLINE unsigned mrc__ev_seglen(const mrc_conn *c, unsigned p) {
    return (unsigned)c->seg[p + 1u] - c->seg[p];
}
MRC__PRIVATE MRC__INLINE void mrc__ev_rc_push(mrc_conn *c, unsigned slot) {
    mrc__ev *e = &c->evs[slot];
    unsigned p, cap, n, pos;
    if (MRC__EVST(e) != MRC__EVS_ACTIVE || e->rc == 0xFFu || !mrc__ev_in_scope(c, c->ep->cfg.ev.recycle)) return;
    p = e->port - 1u; /* the port's FIFO, if not full */
    cap = mrc__ev_seglen(c, p);
    n = c->rc_n[p];
    if (n >= cap) return;
    pos = (unsigned)c->rc_head[p] + n;
    c->rc_ring[c->seg[p] + (pos >= cap ? pos - cap : pos)] = (mrc__evslot)slot;
    c->rc_n[p] = (uint16_t)(n + 1u);
    e->rc++;
}
/* The oldest valid entry of port p's FIFO, taken (and its turn of the round, if still pending); -1 when none, or
 * when it is 'avoid' (it stays queued: the rotation serves this packet). */
MRC__PRIVATE MRC__INLINE int mrc__ev_rc_pop(mrc_conn *c, unsigned p, int avoid) {
    unsigned cap = mrc__ev_seglen(c, p);
    while (c->rc_n[p]) {
        unsigned s = c->rc_ring[c->seg[p] + c->rc_head[p]];
        if (c->evs[s].rc && (int)s == avoid) return -1;
        c->rc_head[p] = (uint16_t)(c->rc_head[p] + 1u == cap ? 0u : c->rc_head[p] + 1u);
        c->rc_n[p]--;
        if (c->evs[s].rc) {
            c->evs[s].rc--;
            if (c->evs[s].at >= c->act_pos[p]) { /* this is its turn of the round: the rotation explores the rest */
                mrc__evr_swap(c, p, c->evs[s].at, c->act_pos[p]);
                c->act_pos[p]++;
            }
            return (int)s;
        }
    }
    return -1;
}
/* The EV for the next packet. Planes take turns, so each usable plane carries an equal share whatever the number
 * of EVs it has left (docs/PROTOCOL.md 7.3: planes stay balanced); within a plane its oldest recycled EV (P23 EV
 * recycling), else the next EV of its rotation. Never 'avoid' (the EV a retransmitted PSN last went on) unless it is
 * the only one. -1 when no EV can carry data.
 * O(MRC_MAX_PORTS) worst case, O(1) in the window and the EV set; a round's reshuffle is O(1) amortised. */
MRC__PRIVATE int mrc__ev_pick(mrc_conn *c, int avoid) {
    unsigned tries, np = c->ep->cfg.num_ports;
    for (tries = 0; tries < np; tries++) {
        unsigned p = c->plane_rr;
        uint16_t s;
        int r;
        c->plane_rr = (uint8_t)(p + 1u == np ? 0u : p + 1u);
        if (!c->n_act[p] && !c->n_skip[p]) continue;
        if (c->rc_n[p] && (r = mrc__ev_rc_pop(c, p, avoid)) >= 0) return r;
        if (c->act_pos[p] >= c->n_act[p]) mrc__ev_new_round(c, p);
        s = mrc__evr_at(c, p, c->act_pos[p]);
        if ((int)s == avoid) {
            if (c->n_act[p] < 2) continue; /* another plane, then */
            mrc__evr_swap(c, p, c->act_pos[p], c->act_pos[p] + 1u < c->n_act[p] ? c->act_pos[p] + 1u : 0u);
            s = mrc__evr_at(c, p, c->act_pos[p]);
        }
        c->act_pos[p]++;
        return (int)s;
    }
    if (avoid >= 0 && avoid < (int)c->ev_count && MRC__EVST(&c->evs[avoid]) <= MRC__EVS_SKIP) return avoid;
    return -1;
}

/* ---- skips and holds: an EV that may have lost a packet sits out (P27 late-SACK verdict, P29 suspect hold) --- */
/* SKIP_ONCE echo or fabric trim: the EV misses its next turn. */
MRC__PRIVATE void mrc__ev_skip(mrc_conn *c, uint16_t slot) {
    mrc__ev *e = &c->evs[slot];
    unsigned p = e->port - 1u;
    bool used;
    if (MRC__EVST(e) != MRC__EVS_ACTIVE) return;
    used = e->at < c->act_pos[p];
    mrc__evr_del(c, slot);
    mrc__evr_put(c, p, (unsigned)c->n_act[p] + c->n_skip[p], slot);
    c->n_skip[p]++;
    e->st = (uint8_t)(MRC__EVS_SKIP | (used ? MRC__EVF_SKIP2 : 0u));
    e->hold = 0;
    MRC__EV_COUNT(c->st.ev_skipped);
}
/* P29 suspect hold: a silent loss on the EV awaits its verdict (7.4), so the EV is likely dead: it sits out of its
 * plane's rotation (SKIP, with a hold) until the verdict - a confirmed loss demotes it, a spurious one puts it straight
 * back - or, if no verdict comes, for MRC__SUS_ROUNDS (8) rounds of its plane. It keeps every other role of a good EV
 * (the floor counts it, a SACK may still name it); if every EV of the plane sits out, all rejoin (mrc__ev_new_round),
 * so a hold never starves a plane. O(1). */
MRC__PRIVATE void mrc__ev_hold(mrc_conn *c, unsigned slot) {
    mrc__ev *e = &c->evs[slot];
    unsigned p = e->port - 1u;
    if (e->hold == MRC__HOLD_VER) return; /* P35 sweeps holds it until verified */
    if (!mrc__ev_in_scope(c, c->ep->cfg.ev.hold) ||
        (unsigned)c->n_act[p] + c->n_skip[p] < MRC__KNOB(c->ep, hold_min_evs))
        return;
    if (MRC__EVST(e) == MRC__EVS_ACTIVE) {
        mrc__ev_skip(c, (uint16_t)slot);
        MRC__EV_COUNT(c->st.ev_suspect_held);
    }
    if (MRC__EVST(e) != MRC__EVS_SKIP) return;
    e->st = (uint8_t)(e->st & ~MRC__EVF_SKIP2); /* the hold counts the rounds */
    e->hold = (uint8_t)MRC__SUS_ROUNDS;
}
MRC__PRIVATE void mrc__ev_unhold(mrc_conn *c, unsigned slot) {
    mrc__ev *e = &c->evs[slot];
    if (MRC__EVST(e) != MRC__EVS_SKIP || !e->hold || e->hold == MRC__HOLD_VER) return;
    mrc__evr_del(c, (uint16_t)slot);
    mrc__evr_add(c, (uint16_t)slot); /* ACTIVE, its turn pending in this round; the hold cleared */
}

/* ---- sweeps: verify before use after a confirmed silent loss (docs/PROTOCOL.md P35 sweeps) --------------------------
 * Under a hash the sender cannot tell which of its EVs cross the cable that just lost a packet: the rotation would
 * find each dead one by losing a data packet on it, the last ones long after the first (recycling, P23 EV recycling,
 * makes the rotation's visits rare). So a confirmed silent loss on a hashed EV sweeps its plane: every EV of the
 * rotation that has not delivered a packet sent since the loss (its dlv stamp, set by every SACK that names it), but
 * the one that delivered last, sits out - SKIP with the hold MRC__HOLD_VER - keeping the floor (ev_floor), until there
 * is evidence that its path works: a SACK naming a packet it carried that was sent after sw_ref (one in flight at the
 * sweep), or the answer to a probe on it. The probes take the Q8 EV health timers probe slots before ASSUMED_BAD EVs
 * do, as slots free; a probe not answered within a quarter of a probe round is sent once more, and a second miss
 * demotes its EV as a silent loss (then Q8 probes it back). Once a QP has swept, a
 * backup promoted to replace a demoted EV is verified the same way before it carries data. One sweep per 2 smoothed
 * RTTs of a QP: a later loss within them only moves sw_ref on. Held EVs keep the liveness of skipped ones: if nothing
 * else of the plane can carry data, the other skipped EVs rejoin, and if there are none, the held ones
 * (mrc__ev_new_round). O(EVs of the plane) per sweep, O(1) per verification and per queued entry; per SACK, a 16-bit
 * store and a byte compared. */
MRC__PRIVATE MRC__INLINE bool mrc__ev_is_ver(const mrc__ev *e) {
    return MRC__EVST(e) == MRC__EVS_SKIP && e->hold == MRC__HOLD_VER;
}
/* Position i of the verification FIFO in ver_ring. */
MRC__PRIVATE MRC__INLINE unsigned mrc__ev_ver_pos(const mrc_conn *c, unsigned i) {
    unsigned pos = (unsigned)c->ver_head + i;
    return pos >= c->ev_count ? pos - c->ev_count : pos;
}
/* Queue a held EV (not probed) for a verification probe. Entries go stale when their EV is verified or moved before
 * a probe slot reaches them, and an EV held again meanwhile is queued again: when the FIFO is full of such entries
 * it is compacted first - stale entries and repeats dropped (the VPROBE flag marks the EVs kept during the pass) -
 * which leaves room, since what stays names distinct held EVs; the EV is not queued twice if it is among them. O(1),
 * O(EVs) when full. */
MRC__PRIVATE void mrc__ev_ver_queue(mrc_conn *c, uint16_t slot) {
    if (c->ver_n >= c->ev_count) {
        unsigned i, n = 0;
        bool have = false;
        for (i = 0; i < c->ver_n; i++) { /* in place: position n is never ahead of position i */
            mrc__evslot sl = c->ver_ring[mrc__ev_ver_pos(c, i)];
            mrc__ev *e = &c->evs[sl];
            if (!mrc__ev_is_ver(e) || (e->st & MRC__EVF_VPROBE)) continue;
            e->st = (uint8_t)(e->st | MRC__EVF_VPROBE);
            have = have || sl == slot;
            c->ver_ring[mrc__ev_ver_pos(c, n++)] = sl;
        }
        c->ver_n = (uint16_t)n;
        for (i = 0; i < n; i++) {
            mrc__ev *e = &c->evs[c->ver_ring[mrc__ev_ver_pos(c, i)]];
            e->st = (uint8_t)(e->st & ~MRC__EVF_VPROBE);
        }
        if (have) return;
        MRC_ASSERT(c->ver_n < c->ev_count);
    }
    c->ver_ring[mrc__ev_ver_pos(c, c->ver_n)] = (mrc__evslot)slot;
    c->ver_n++;
}
/* Hold a skipped EV for verification and queue it for a probe. */
MRC__PRIVATE void mrc__ev_ver_hold(mrc_conn *c, uint16_t slot) {
    mrc__ev *e = &c->evs[slot];
    e->st = (uint8_t)(e->st & ~(MRC__EVF_SKIP2 | MRC__EVF_VPROBE | MRC__EVF_VRETRY));
    e->hold = (uint8_t)MRC__HOLD_VER;
    MRC__EV_COUNT(c->st.ev_ver_held);
    mrc__ev_ver_queue(c, slot);
}
/* Free probe slot i takes the oldest EV awaiting verification, if any (stale entries dropped). */
MRC__PRIVATE bool mrc__ev_ver_take(mrc_conn *c, unsigned i) {
    while (c->ver_n && c->state == MRC_QPS_RTS) {
        uint16_t sl = c->ver_ring[c->ver_head];
        mrc__ev *e = &c->evs[sl];
        c->ver_head = (uint16_t)(c->ver_head + 1u >= c->ev_count ? 0u : c->ver_head + 1u);
        c->ver_n--;
        if (!mrc__ev_is_ver(e) || (e->st & MRC__EVF_VPROBE)) continue; /* verified, moved or probed already */
        e->st = (uint8_t)(e->st | MRC__EVF_VPROBE);
        c->probes[i].slot = (mrc__evslot)sl;
        c->probes[i].kind = MRC__PROBE_VER;
        c->probes_due |= 1u << i;
        return true;
    }
    return false;
}
/* Free EV probe slots take the EVs awaiting verification; the probe round decides the unanswered ones. */
MRC__PRIVATE void mrc__ev_ver_fill(mrc_conn *c) {
    unsigned i;
    for (i = 1; i < MRC_MAX_PROBES && c->ver_n; i++)
        if (c->probes[i].kind == MRC__PROBE_FREE) (void)mrc__ev_ver_take(c, i);
}
/* Evidence that its path works: back into the rotation, its turn pending in this round. */
MRC__PRIVATE void mrc__ev_verified(mrc_conn *c, unsigned slot) {
    if (!mrc__ev_is_ver(&c->evs[slot])) return;
    mrc__evr_del(c, (uint16_t)slot);
    mrc__evr_add(c, (uint16_t)slot);
    MRC__EV_COUNT(c->st.ev_verified);
}
/* P35 sweeps: a SACK named a packet on the EV sent at 'sent': its delivery stamp, and a held EV's path proven if the
 * packet went after the fault (sw_ref). O(1), per SACK. */
MRC__PRIVATE MRC__INLINE void mrc__ev_delivered(mrc_conn *c, unsigned slot, mrc_time sent) {
    c->evs[slot].dlv = (uint16_t)(sent >> 8);
    if (MRC__UNLIKELY(c->evs[slot].hold == MRC__HOLD_VER) && sent >= c->sw_ref) mrc__ev_verified(c, slot);
}
/* A loss without a trim, or ALWAYS_SKIP: ASSUMED_BAD at once, and a backup of the same port takes its place.
 * Withheld when it would leave the port fewer than ev_floor EVs carrying data (ev_min_active spread over the
 * ports), unless forced (the controller), so that loss everywhere cannot starve a plane or the QP - but not for a
 * plane gone silent: another plane that still carries data has had a packet named by a SACK more than 2 srtt after
 * this plane's last. Such a plane loses its floor EVs one loss each and leaves the rotation (probes bring them
 * back). When every plane is silent (the peer, not a plane) the floor holds, and the QP always keeps carrying EVs
 * on the plane that delivered last. O(ports), per demotion. */
MRC__PRIVATE bool mrc__ev_plane_silent(const mrc_conn *c, unsigned p) {
    const mrc_time lim = mrc__deadline_ctl(c->port_ok[p], 2u * c->srtt); /* (once, not per port) */
    unsigned q;
    for (q = 0; q < MRC_MAX_PORTS; q++)
        if (c->port_ok[q] > lim && q != p && c->n_act[q] + c->n_skip[q] > 0) return true; /* (the rare test first) */
    return false;
}
/* An ACTIVE or SKIP EV of the rotation held for verification. */
MRC__PRIVATE void mrc__ev_to_ver(mrc_conn *c, uint16_t slot) {
    mrc__ev *e = &c->evs[slot];
    if (MRC__EVST(e) == MRC__EVS_ACTIVE) {
        unsigned p = e->port - 1u;
        mrc__evr_del(c, slot);
        mrc__evr_put(c, p, (unsigned)c->n_act[p] + c->n_skip[p], slot);
        c->n_skip[p]++;
        e->st = (uint8_t)MRC__EVS_SKIP;
    }
    if (MRC__EVST(e) == MRC__EVS_SKIP) mrc__ev_ver_hold(c, slot);
}
/* Kept by a sweep: held already, the EV that delivered last, or one whose latest delivered packet (its dlv stamp) is
 * at most 'age' units of 256 ns old (modulo 2^16: a stamp a multiple of 16.8 ms old reads as new and keeps an EV that
 * has not delivered for that long - the loss rule still finds it). */
MRC__PRIVATE bool mrc__ev_sweep_keeps(const mrc_conn *c, uint16_t slot, uint32_t age) {
    const mrc__ev *e = &c->evs[slot];
    return mrc__ev_is_ver(e) || slot == c->ev_proven || (uint16_t)((uint16_t)(c->ep->now >> 8) - e->dlv) <= age;
}
MRC__PRIVATE unsigned mrc__ev_sweep_count(const mrc_conn *c, unsigned p, uint32_t age) {
    unsigned i, n = 0;
    for (i = 0; i < (unsigned)c->n_act[p] + c->n_skip[p]; i++) n += mrc__ev_sweep_keeps(c, mrc__evr_at(c, p, i), age);
    return n;
}
#define MRC__SW_BACKOFF 6u /* sweeps of a QP at most 2^6 x 2 smoothed RTTs apart while none finds a dead path */
/* the sweep itself, past mrc__ev_sweep's tests (out of line: at most one per 2 smoothed RTTs, and in line its
 * registers cost every loss) */
MRC__PRIVATE MRC__SPEED_COLD void mrc__ev_sweep_run(mrc_conn *c, unsigned lost, mrc_time ref) {
    mrc_endpoint *ep = c->ep;
    unsigned p, i, floor;
    uint32_t age;
    uint64_t held0;
    p = c->evs[lost].port - 1u;
    floor = MRC__MIN((unsigned)c->ev_floor, (unsigned)c->n_act[p] + c->n_skip[p]);
    age = (uint32_t)MRC__MIN((ep->now - MRC__MIN(ref, ep->now)) >> 8, (mrc_time)0xFFFFu);
    /* a sweep that found no dead path (losses everywhere, not a fault) makes the next wait twice as long */
    if (c->sw_at) c->sw_backoff = c->sw_found ? 0u : (uint8_t)MRC__MIN(c->sw_backoff + 1u, MRC__SW_BACKOFF);
    c->sw_found = 0;
    c->sw_at = ep->now;
    c->sw_ref = ref;
    MRC__EV_COUNT(c->st.ev_sweeps);
    held0 = c->st.ev_ver_held;
    if (mrc__ev_sweep_count(c, p, age) < floor) { /* the floor: the EVs that delivered last stay too (binary search) */
        uint32_t lo = age, hi = 0xFFFFu;
        while (lo + 1u < hi) {
            uint32_t mid = lo + (hi - lo) / 2u;
            if (mrc__ev_sweep_count(c, p, mid) >= floor) hi = mid;
            else lo = mid;
        }
        age = hi;
    }
    /* downwards: taking position i out moves only EVs of positions above it (mrc__evr_del, mrc__ev_to_ver), all seen */
    for (i = (unsigned)c->n_act[p] + c->n_skip[p]; i-- > 0;) {
        uint16_t sl = mrc__evr_at(c, p, i);
        if (!mrc__ev_sweep_keeps(c, sl, age)) mrc__ev_to_ver(c, sl);
    }
    MRC__TRACE(ep, MRC_TRACE_EV_SWEEP, ((uint64_t)c->qpn << 16) | (p + 1u), c->st.ev_ver_held - held0);
    (void)held0;
    mrc__ev_ver_fill(c);
}
MRC__PRIVATE MRC__INLINE void mrc__ev_sweep(mrc_conn *c, unsigned lost, mrc_time ref) {
    if (!mrc__ev_in_scope(c, c->ep->cfg.ev.sweep) || c->state != MRC_QPS_RTS) return;
    if (c->sw_at && c->ep->now < MRC__DEADLINE_SZ(c->sw_at, (2u * c->srtt) << c->sw_backoff)) {
        if (ref > c->sw_ref) c->sw_ref = ref; /* the same event (or sweeps backed off): later proofs only */
        return;
    }
    mrc__ev_sweep_run(c, lost, ref);
}

/* ---- verdicts: demotion and revival, and what an acknowledgement, a trim or a loss does to its EV ----------- */
MRC__PRIVATE void mrc__ev_demote(mrc_conn *c, uint16_t slot, bool forced) {
    mrc__ev *e = &c->evs[slot];
    unsigned st = MRC__EVST(e), p = e->port - 1u;
    if (st == MRC__EVS_BACKUP) { /* only the controller demotes a backup: unlink it (O(backups), rare) */
        uint16_t *pp = &c->bk_head[p];
        if (!forced) return;
        while (*pp != slot) pp = &c->evs[*pp].at;
        *pp = e->at;
        c->bk_n[p]--;
    } else if (st == MRC__EVS_ACTIVE || st == MRC__EVS_SKIP) {
        if (!forced && (uint32_t)c->n_act[p] + c->n_skip[p] - 1u + (c->bk_n[p] ? 1u : 0u) < c->ev_floor &&
            !mrc__ev_plane_silent(c, p)) {
            MRC__EV_COUNT(c->st.ev_withheld);
            return;
        }
        mrc__evr_del(c, slot);
        if (c->bk_n[p]) { /* the plane keeps its EVs: a backup of the same port steps in */
            uint16_t b = c->bk_head[p];
            c->bk_head[p] = c->evs[b].at;
            c->bk_n[p]--;
            mrc__evr_add(c, b);
            MRC__EV_COUNT(c->st.ev_promoted);
            if (c->sw_at) { /* P35 sweeps: a backup has carried nothing since the QP saw a fault: verified first */
                mrc__ev_to_ver(c, b);
                mrc__ev_ver_fill(c);
            }
        }
    } else {
        return;
    }
    mrc__ev_set(e, 0);
    mrc__bad_push(c, slot);
    mrc__ev_badref(c, slot, 1);
    MRC__EV_COUNT(c->st.ev_demoted);
    mrc__ev_event(c, slot, MRC_EVS_ASSUMED_BAD);
    mrc__evp_arm(c);
}
/* Its probe went unanswered: a silent loss on it (ASSUMED_BAD, unless the floor withholds it: then it rejoins). */
MRC__PRIVATE void mrc__ev_ver_failed(mrc_conn *c, unsigned slot) {
    mrc__ev *e = &c->evs[slot];
    if (!mrc__ev_is_ver(e)) return;
    e->hold = 0;
    e->st = (uint8_t)MRC__EVS_SKIP;
    MRC__EV_COUNT(c->st.ev_ver_failed);
    c->sw_found = 1;
    mrc__ev_demote(c, (uint16_t)slot, false);
}
/* ver_deadline: the verification probes out that have waited mrc__ev_ver_to fail (their EVs are demoted), freeing
 * their slots for the next; the deadline moves to the next expiry. O(MRC_MAX_PROBES). */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__ev_ver_expire(mrc_conn *c, mrc_time now) {
    mrc_time to = mrc__ev_ver_to(c);
    unsigned i;
    c->ver_deadline = MRC_TIME_NEVER;
    for (i = 1; i < MRC_MAX_PROBES; i++) {
        mrc__probe *p = &c->probes[i];
        mrc_time t;
        if (p->kind != MRC__PROBE_VER || ((c->probes_due >> i) & 1u)) continue;
        t = mrc__deadline_ctl(c->probe_sent[i], to);
        if (t > now) {
            if (t < c->ver_deadline) c->ver_deadline = t;
            continue;
        }
        p->kind = MRC__PROBE_FREE;
        if (!mrc__ev_is_ver(&c->evs[p->slot]) || !(c->evs[p->slot].st & MRC__EVF_VPROBE)) continue;
        if (c->evs[p->slot].st & MRC__EVF_VRETRY) { /* two unanswered: a dead path */
            mrc__ev_ver_failed(c, p->slot);
        } else { /* one probe lost on a lossy path proves little: queued for a second (it stays held) */
            c->evs[p->slot].st = (uint8_t)((c->evs[p->slot].st & ~MRC__EVF_VPROBE) | MRC__EVF_VRETRY);
            mrc__ev_ver_queue(c, p->slot);
        }
    }
    mrc__ev_ver_fill(c);
}
/* Enough probe answers: back to GOOD, into the rotation if its port is short of active EVs, else a backup. */
MRC__PRIVATE void mrc__ev_revive(mrc_conn *c, uint16_t slot, bool skip) {
    mrc__ev *e = &c->evs[slot];
    unsigned p = e->port - 1u;
    mrc__ev_badref(c, slot, -1);
    MRC__EV_COUNT(c->st.ev_revived);
    if ((unsigned)c->n_act[p] + c->n_skip[p] < c->act_target[p]) {
        mrc__evr_add(c, slot);
        c->nopath_deadline = MRC_TIME_NEVER; /* an EV carries data again (7.11) */
        if (skip) mrc__ev_skip(c, slot);
    } else {
        mrc__bk_push(c, slot);
    }
    mrc__ev_event(c, slot, MRC_EVS_GOOD);
}
/* P40 overtaken originals: a demotion shown wrong (the original of the retransmission that confirmed it arrived after
 * all). An EV still ASSUMED_BAD waiting in the probe FIFO leaves it and comes back as a probe answer would bring it
 * back; one being probed, revived, withheld or moved meanwhile is left to its probes. O(ASSUMED_BAD EVs), at most once
 * per confirmed loss. */
MRC__PRIVATE void mrc__ev_undemote(mrc_conn *c, uint16_t slot) {
    mrc__ev *e;
    uint16_t s, prev = MRC__EV_NONE;
    if (slot >= c->ev_count) return;
    e = &c->evs[slot];
    if (MRC__EVST(e) != MRC__EVS_BAD) return;
    for (s = c->bad_head; s != MRC__EV_NONE && s != slot; s = c->evs[s].at) prev = s;
    if (s != slot) return;
    if (prev == MRC__EV_NONE) c->bad_head = e->at;
    else c->evs[prev].at = e->at;
    if (c->bad_tail == slot) c->bad_tail = prev;
    c->n_bad--;
    e->st = (uint8_t)(e->st & MRC__EVF_OKC); /* out of the FIFO, as mrc__bad_pop leaves it */
    mrc__ev_revive(c, slot, false);
}
/* Path signals from the requester (SACK m, trims, losses); slots are the EV of the packet's last transmission. */
MRC__PRIVATE void mrc__ev_on_ack(mrc_conn *c, int slot, unsigned m) {
    c->port_ok[c->evs[slot].port - 1u] = c->ep->now; /* the plane delivers (it keeps its floor) */
    c->ev_proven = (uint16_t)slot;                     /* and this EV did, just now (P25 hashed-EV bypass knobs) */
    if (m == MRC_M_NONE) mrc__ev_rc_push(c, (unsigned)slot); /* a clean return (P23 EV recycling) */
    else if (m == MRC_M_SKIP_ONCE) mrc__ev_skip(c, (uint16_t)slot);
    else if (m == MRC_M_ALWAYS_SKIP) mrc__ev_demote(c, (uint16_t)slot, false);
}
MRC__PRIVATE void mrc__ev_on_trim(mrc_conn *c, int slot) {
    MRC__EV_COUNT(c->st.ev_trims);
    mrc__ev_skip(c, (uint16_t)slot);
}
/* P39 host losses: losses that hit every plane at once are the host's (its receive buffers overflowed, its CPU was
 * starved), not a path's. A run of consecutive transmissions (in transmission order, with nothing between them) all
 * judged lost without a trim that covers every port carrying EVs, at least 2, marks the host (hl_at: the send time of
 * its latest loss): a receiver that drops whatever arrives drops that, a path does not. A loss on an EV sent at 'sent'
 * (for a verdict, the latest time the original can have left) no later than max(2 srtt, MRC__HOST_WIN_NS) after the
 * mark is the host's: the EV leaves its hold (P29) and is neither demoted nor swept (ev_loss_host). A real fault on
 * every plane at once looks the same and is treated alike: the RTO, the retry budget and the no-path timer still end a
 * QP that cannot deliver. One port never applies. Per loss O(1), O(ports) when the run covers 2 ports or more. */
#define MRC__HOST_WIN_NS 4000u
MRC__PRIVATE uint32_t mrc__ev_ports_carrying(const mrc_conn *c) { /* the ports with EVs ACTIVE or SKIP */
    uint32_t all = 0;
    unsigned q;
    for (q = 0; q < MRC_MAX_PORTS; q++)
        if (c->n_act[q] + c->n_skip[q]) all |= 1u << q;
    return all;
}
MRC__PRIVATE void mrc__ev_lost_at(mrc_conn *c, unsigned slot, mrc__txseq seq, mrc_time sent) {
    uint32_t all, bit = 1u << (c->evs[slot].port - 1u);
    c->hl_mask = seq == c->hl_next ? c->hl_mask | bit : bit;
    c->hl_next = (mrc__txseq)(seq + 1u);
    if (!(c->hl_mask & (c->hl_mask - 1u))) return; /* a run on one port cannot cover the 2 or more ports the rule
                                                      needs: the ports are scanned only for a run over 2 or more */
    all = mrc__ev_ports_carrying(c);
    if ((all & (all - 1u)) && (c->hl_mask & all) == all) c->hl_at = sent;
}
/* P39 host losses, timeouts: the RTO is about to judge the transmission of snd_una lost. When no acknowledgement has
 * named any transmission sent since the oldest one still in flight (lat_acked_sent before it), and those in flight
 * cover every port carrying EVs (at least 2), every plane has been silent together for a whole RTO: the receiver or
 * this host stalled (a starved process, an overflowed buffer), not a path, and the timed-out transmission's send time
 * marks the host (hl_at), so its loss is the host's (mrc__ev_host_loss). A path that fails alone leaves the others'
 * acknowledgements coming (lat_acked_sent moves past the head); a lone tail in flight covers one port: both are judged
 * as before. O(in flight) per RTO at most (stops once every port is covered), nothing per packet. */
MRC__PRIVATE void mrc__ev_rto_silent(mrc_conn *c) {
    uint32_t all = mrc__ev_ports_carrying(c), m = 0, psn = c->txl.head;
    unsigned i;
    if (!c->txl.n || !(all & (all - 1u)) || c->lat_acked_sent >= MRC__REC_SENT(c, psn)) return;
    for (i = 0; i < c->txl.n && (m & all) != all; i++) {
        const mrc__psnrec *r = MRC__REC(c, psn);
        if (r->ev < c->ev_count) m |= 1u << (c->evs[r->ev].port - 1u);
        psn = mrc__link_psn(c, r->next);
    }
    if ((m & all) == all && (MRC__REC(c, c->snd_una)->flags & MRC__PR_INFLIGHT))
        c->hl_at = MRC__MAX(c->hl_at, MRC__REC_SENT(c, c->snd_una));
}
MRC__PRIVATE bool mrc__ev_host_loss(mrc_conn *c, unsigned slot, mrc_time sent) {
    mrc_time w = MRC__MAX(2u * c->srtt, (mrc_time)MRC__HOST_WIN_NS);
    if (!c->hl_at || mrc__deadline_ctl(c->hl_at, w) < sent) return false;
    mrc__ev_unhold(c, slot);
    MRC__EV_COUNT(c->st.ev_loss_host);
    return true;
}
/* P26 hop groups: a profile may say which of its EVs share a known hop (a T0 uplink, a T1); a confirmed silent loss
 * on one is evidence against the hop, so the QP's other EVs of the group go ASSUMED_BAD with it and each is probed
 * back on its own (Q8 EV health timers). Each demotion keeps the floor (ev_floor, plane-silent rule) like any other: a
 * group that is a whole plane cannot starve it. Unconfirmed losses (ev_confirm_loss off, timeouts) demote their EV
 * alone: one RTO marks every EV with a packet in flight. O(group size) per confirmed loss, never per packet. */
/* (the group's other EVs after a confirmed loss on slot: out of line, only a profile's hop groups have them) */
MRC__PRIVATE MRC__SPEED_COLD void mrc__ev_group_loss(mrc_conn *c, const mrc__evprof *pf, unsigned slot) {
    unsigned j;
    if (c->ep->cfg.ev.group_retire == MRC_EV_RETIRE_SECOND) { /* a second witness: another EV of the group bad already
                                                                 */
        for (j = pf->ev[slot].grp_nx - 1u; j != slot && !mrc__ev_is_bad(&c->evs[j]); j = pf->ev[j].grp_nx - 1u) {
        }
        if (j == slot) return;
    }
    for (j = pf->ev[slot].grp_nx - 1u; j != slot; j = pf->ev[j].grp_nx - 1u) {
        uint64_t before = c->st.ev_demoted;
        MRC_ASSERT(j < c->ev_count && pf->ev[j].grp_nx);
        mrc__ev_demote(c, (uint16_t)j, false);
        MRC__CNT(c->st.ev_group_retired += c->st.ev_demoted - before);
    }
}
MRC__PRIVATE void mrc__ev_on_loss(mrc_conn *c, int slot, bool confirmed, mrc_time ref) {
    const mrc__evprof *pf;
    if (mrc__ev_host_loss(c, (unsigned)slot, ref)) return; /* P39 host losses */
    if (MRC__EVST(&c->evs[slot]) <= MRC__EVS_SKIP) mrc__ev_demote(c, (uint16_t)slot, false); /* else it does nothing */
    if (!confirmed) return;
    mrc__ev_sweep(c, (unsigned)slot, ref); /* P35 sweeps */
    pf = mrc__conn_prof(c);
    if (pf && pf->ev[slot].grp_nx && c->ep->cfg.ev.group_retire != MRC_EV_RETIRE_ALONE)
        mrc__ev_group_loss(c, pf, (unsigned)slot);
}

/* ---- probes of ASSUMED_BAD EVs (Q8 EV health timers) -------------------------------------------------------- */
MRC__PRIVATE unsigned mrc__probes_of(const mrc_conn *c, unsigned kind) {
    unsigned i, n = 0;
    for (i = 1; i < MRC_MAX_PROBES; i++) n += c->probes[i].kind == kind;
    return n;
}
/* A probe of an ASSUMED_BAD EV failed: the EV waits for the next one (out of line: a round and an answer) */
MRC__PRIVATE MRC__NOINLINE void mrc__ev_probe_failed(mrc_conn *c, uint16_t slot) {
    c->evs[slot].st = 0;
    mrc__bad_push(c, slot);
    MRC__EV_COUNT(c->st.ev_probe_fail);
}
/* One round: a probe still unanswered from the last round failed; free probe slots take the next bad EVs. */
MRC__PRIVATE void mrc__ev_probe_round(mrc_conn *c, mrc_time now) {
    unsigned i;
    bool out = false, failed = false;
    c->evp_deadline = MRC_TIME_NEVER;
    for (i = 1; i < MRC_MAX_PROBES; i++) {
        mrc__probe *p = &c->probes[i];
        if (p->kind == MRC__PROBE_VER) continue; /* P35 sweeps's: ver_deadline decides */
        if (p->kind == MRC__PROBE_EV && !((c->probes_due >> i) & 1u)) {
            mrc__ev *e = &c->evs[p->slot];
            if (MRC__EVST(e) == MRC__EVS_PROBING) {
                mrc__ev_probe_failed(c, p->slot);
                failed = true;
                MRC__TRACE(c->ep, MRC_TRACE_EV_PROBE, ((uint64_t)c->qpn << 16) | p->slot, 0u);
            }
            p->kind = MRC__PROBE_FREE;
        }
        if (p->kind == MRC__PROBE_FREE && c->ver_n && mrc__ev_ver_take(c, i)) continue; /* P35 sweeps first */
        /* P35 sweeps: once the QP has swept, ASSUMED_BAD EVs' probes (a round each, stretched by the back-off) keep at
         * most half the slots, so that verifications are not starved by probes of dead paths */
        if (p->kind == MRC__PROBE_FREE && c->n_bad && c->state == MRC_QPS_RTS &&
            (!c->sw_at || mrc__probes_of(c, MRC__PROBE_EV) < MRC_MAX_PROBES / 2u)) {
            p->slot = (mrc__evslot)mrc__bad_pop(c);
            c->evs[p->slot].st = (uint8_t)((c->evs[p->slot].st & MRC__EVF_OKC) | MRC__EVS_PROBING);
            p->kind = MRC__PROBE_EV;
            c->probes_due |= 1u << i;
        }
        out |= p->kind == MRC__PROBE_EV;
    }
    if (c->evp_answered) c->evp_backoff = 0;
    else if (failed && c->evp_backoff < (c->nopath_deadline != MRC_TIME_NEVER ? MRC__EVP_NOPATH_BACKOFF : 10u))
        c->evp_backoff++;
    c->evp_answered = 0;
    if (out || c->n_bad) c->evp_deadline = mrc__deadline_ctl(now, mrc__evp_interval(c));
}
/* The SACK (pr = 1) answering probe i of an ASSUMED_BAD EV. */
MRC__PRIVATE void mrc__ev_probe_answer(mrc_conn *c, unsigned i, unsigned m) {
    mrc__probe *p = &c->probes[i];
    mrc__ev *e = &c->evs[p->slot];
    unsigned okc;
    if (p->kind == MRC__PROBE_VER) { /* P35 sweeps: a verification probe */
        p->kind = MRC__PROBE_FREE;
        if (mrc__ev_is_ver(e) && (e->st & MRC__EVF_VPROBE)) {
            c->evp_answered = 1;
            if (m == MRC_M_ALWAYS_SKIP) mrc__ev_ver_failed(c, p->slot);
            else mrc__ev_verified(c, p->slot);
        }
        mrc__ev_ver_fill(c);
        return;
    }
    p->kind = MRC__PROBE_FREE;
    if (MRC__EVST(e) != MRC__EVS_PROBING) return; /* moved by a rebuild or the controller meanwhile */
    MRC__TRACE(c->ep, MRC_TRACE_EV_PROBE, ((uint64_t)c->qpn << 16) | p->slot, 1u);
    c->evp_answered = 1;
    if (m == MRC_M_ALWAYS_SKIP) {
        mrc__ev_probe_failed(c, p->slot);
        return;
    }
    MRC__EV_COUNT(c->st.ev_probe_ok);
    okc = ((e->st & MRC__EVF_OKC) >> 4) + 1u;
    if (okc >= c->ep->cfg.ev.revive_probes) {
        mrc__ev_revive(c, p->slot, m == MRC_M_SKIP_ONCE);
    } else {
        e->st = (uint8_t)(okc << 4);
        mrc__bad_push(c, p->slot);
    }
}

/* ====== src/qp.h ================================================================================================ */
/* ================================================================================================================
 * QUEUE PAIRS: what src/qp.c offers the layers above it (the rest of it is public API)
 * ============================================================================================================== */

/* The QP enters ERR with this status (an MRC_ERR_* code): both halves flushed, MRC_EVT_CONN_ERROR raised; has_msn:
 * the peer's NAK named msn (the work requests before it completed) */
MRC__PRIVATE void mrc__conn_error(mrc_conn *c, int status, int has_msn, uint16_t msn, mrc_time now);
MRC__PRIVATE void mrc__timers_never(mrc_conn *c); /* every timer of the QP disarmed (not the heap key) */
/* ++ of a rare event's 64-bit counter (a loss, a stale or bogus packet, a timer): one call to mrc__ev_count (path.c)
 * where the code's size is asked for (a call, not the 64-bit add, at each site: -300 B Cortex-M4), in line else */
#ifdef __OPTIMIZE_SIZE__
#define MRC__LOSS_INC(n) mrc__ev_count(&(n))
#else
#define MRC__LOSS_INC(n) ((void)++(n))
#endif
/* ... nothing under MRC_NO_STATS; MRC__LOSS_INC, a loss of the core's own (a full queue), is counted whatever the
 * macro, as drops are */
#ifdef MRC_NO_STATS
#define MRC__RARE_INC(n) ((void)0)
#else
#define MRC__RARE_INC(n) MRC__LOSS_INC(n)
#endif

/* ====== src/qp.c ================================================================================================ */
/* ================================================================================================================
 * QUEUE PAIRS - src/qp.c
 * Owns: a QP's life: attaching a caller's mrc_conn to the endpoint (its QPN and table slot) and detaching it, its
 * attributes, the state machine RESET -> INIT -> RTR -> RTS and ERR (docs/PROTOCOL.md section 4) with what each
 * transition sets up or tears down (the EV set, the congestion context, the timers, the in-flight pool blocks),
 * and entering ERR - which flushes both halves of the QP, so the requester and the responder call it.
 * Calls: codec, state, timers, sched, cc, path.
 * ============================================================================================================== */

/* ---- attach, detach, query ---------------------------------------------------------------------------------- */
/* The transmit fast paths' BTH word 0 template and the SACK fast path's header words, kept in step with their inputs:
 * PKEY and DEST_QP (mrc__conn_clear, mrc_conn_modify), TVER (the endpoint's configuration, fixed once attached) and
 * the QPN (mrc_conn_init); the transmit template (mrc__tx_tpl) dropped, to be built again from them */
MRC__PRIVATE void mrc__conn_tx_bth0(mrc_conn *c) {
    c->tx_bth0 = MRC__FW(0, 4, MRC__BTH_TVER, c->ep ? c->ep->cfg.wire.tver : 0u) |
                 MRC__FW(0, 4, MRC__BTH_PKEY, c->attr.pkey);
    mrc__st4((uint8_t *)&c->tx_sack[0], MRC__FW(0, 4, MRC__BTH_OPCODE, MRC_OP_SACK) | c->tx_bth0);
    mrc__st4((uint8_t *)&c->tx_sack[1], MRC__FW(4, 4, MRC__BTH_DEST_QP, c->attr.dest_qpn));
    mrc__st4((uint8_t *)&c->tx_sack[2], MRC__FW(8, 4, MRC__SETH_SPDCID, c->qpn & 0xFFFFu) |
                                            MRC__FW(8, 4, MRC__SETH_DPDCID, c->attr.dest_qpn & 0xFFFFu));
#if MRC__TX_RUN
    c->tpl.wr = 0; /* the transmit template holds PKEY and DEST_QP too */
#endif
}
/* Every timer of the QP disarmed (its heap key is the caller's to update) */
MRC__PRIVATE MRC__NOINLINE void mrc__timers_never(mrc_conn *c) {
    c->rto_deadline = c->tlp_deadline = c->sack_deadline = c->evp_deadline = MRC_TIME_NEVER;
    c->nopath_deadline = c->pace_deadline = c->reo_deadline = c->ver_deadline = MRC_TIME_NEVER;
}
/* Every per-connection protocol variable back to its RESET value; identity (ep, slot, qpn, user) is kept. */
MRC__PRIVATE void mrc__conn_clear(mrc_conn *c) {
    mrc_endpoint *ep = c->ep;
    void *user = c->user;
    uint16_t slot = c->slot;
    uint32_t qpn = c->qpn;
    if (ep) {
        mrc__heap_remove(ep, c);
        if (c->t_armed) ep->armed--;
        if (c->in_ctq) mrc__ring_remove(ep->ctq, &ep->ctq_head, &ep->ctq_len, slot);
        if (c->in_txq) mrc__ring_remove(ep->txq, &ep->txq_head, &ep->txq_len, slot);
        if (c->in_evq) mrc__ring_remove(ep->evq, &ep->evq_head, &ep->evq_len, slot);
        if (c->in_poolq) mrc__ring_remove(ep->poolq, &ep->poolq_head, &ep->poolq_len, slot);
        c->in_poolq = 0;
        mrc__pool_put_all(c);
        mrc__ev_release(c);
        mrc__cc_release(c);
        if (c->ccprof_ref) {
            mrc__ccprof *pf = (mrc__ccprof *)mrc__ccprof_find(ep, c->attr.cc_profile_id);
            if (pf && pf->refs) pf->refs--;
        }
    }
    MRC_MEMSET(c, 0, sizeof *c);
    c->ccx = MRC__EV_NONE;
    c->ep = ep;
    c->user = user;
    c->slot = slot;
    c->qpn = qpn;
    c->heap_idx = MRC__NOHEAP;
    mrc__ev_lists_empty(c); /* 0 is a slot: the empty lists need their sentinel */
    c->deadline = MRC_TIME_NEVER;
    mrc__timers_never(c);
    c->state = MRC_QPS_RESET;
    c->attr.state = MRC_QPS_RESET;
    c->attr.pkey = 0xFFFF;
    c->attr.access = MRC_ACCESS_REMOTE_WRITE;
    mrc__conn_tx_bth0(c);
}
MRC_API int mrc_conn_init(mrc_endpoint *ep, mrc_conn *c, mrc_time now) {
    unsigned i;
    if (!ep) return MRC_ERR_INVAL;
    mrc__detail_begin(ep, MRC_CALL_CONN_INIT);
    if (!c) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_NULL_ARG, 0);
    (void)mrc__clock_ctl(ep, now);
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        if (ep->conns[i] == c) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_ALREADY_ATTACHED, 0);
    }
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        if (ep->conns[i]) continue;
        c->ep = (mrc_endpoint *)0;
        c->user = (void *)0;
        mrc__conn_clear(c);
        c->ep = ep;
        c->slot = (uint16_t)i;
        c->qpn = !ep->cfg.qpn_base ? mrc__qpn_draw(ep, i) : ep->cfg.qpn_base + i;
        mrc__conn_tx_bth0(c);
        ep->conns[i] = c;
        return MRC_OK;
    }
    return mrc__fail(ep, MRC_ERR_FULL, MRC_DETAIL_CONN_FULL, 0);
}
/* c is attached to its endpoint (mrc_conn_init, not destroyed since): the first check of destroy, modify and connect.
 * Out of line: one call in each instead of three copies of the test */
MRC__PRIVATE MRC__NOINLINE bool mrc__conn_attached(const mrc_conn *c) {
    return c && c->ep && c->ep->conns[c->slot] == c;
}
MRC_API int mrc_conn_destroy(mrc_conn *c) {
    mrc_endpoint *ep;
    if (!mrc__conn_attached(c)) return MRC_ERR_INVAL;
    ep = c->ep;
    mrc__detail_begin(ep, MRC_CALL_CONN_DESTROY);
    if (c->state != MRC_QPS_RESET && c->state != MRC_QPS_ERR)
        return mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_DESTROY_STATE, 0);
    mrc__conn_clear(c);
    ep->conns[c->slot] = (mrc_conn *)0;
    c->ep = (mrc_endpoint *)0;
    return MRC_OK;
}
MRC_API uint32_t mrc_conn_qpn(const mrc_conn *c) { return c ? c->qpn : 0; }
MRC_API int mrc_conn_state(const mrc_conn *c) { return c ? (int)c->state : MRC_ERR_INVAL; }
MRC_API void mrc_conn_set_user(mrc_conn *c, void *user) {
    if (c) c->user = user;
}
MRC_API void *mrc_conn_user(const mrc_conn *c) { return c ? c->user : (void *)0; }
MRC_API int mrc_conn_query(const mrc_conn *c, mrc_conn_attr *a) {
    if (!c || !a) return MRC_ERR_INVAL;
    *a = c->attr;
    a->state = c->state;
    return MRC_OK;
}

/* ---- the state machine: RESET -> INIT -> RTR -> RTS, and ERR from any state --------------------------------- */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__set_state(mrc_conn *c, uint8_t s) {
    c->state = s;
    c->attr.state = s;
    MRC__TRACE(c->ep, MRC_TRACE_STATE, c->qpn, s);
}
/* Requester window in PSNs: MPR (units of 128) capped by the per-PSN record ring. */
MRC__PRIVATE void mrc__set_req_window(mrc_conn *c, unsigned mpr_units) {
    uint32_t w = (uint32_t)mpr_units * 128u;
    c->win_psns = MRC__MIN(w, (uint32_t)MRC_MAX_INFLIGHT);
}

/* ---- entering ERR (it empties the requester and the responder: both call it) -------------------------------- */
/* Q22 error flush: ibverbs semantics. Every outstanding work request completes with MRC_ERR_FLUSH, except the one that
 * caused a requester-side error (RETRY_EXC: the oldest incomplete; REMOTE_*: the message the NAK names), which carries
 * that status. Posted receives flush; stashed immediates are discarded. A CONN_ERROR event comes first. */
MRC__PRIVATE void mrc__conn_error(mrc_conn *c, int status, int has_msn, uint16_t msn, mrc_time now) {
    uint32_t i;
    bool blame = status == MRC_ERR_RETRY_EXC || status == MRC_ERR_NOPATH || has_msn;
    (void)now;
    if (c->state == MRC_QPS_ERR) return;
    mrc__set_state(c, MRC_QPS_ERR);
    mrc__ev_rc_clear(c); /* P23 EV recycling: nothing is recycled across ERR */
    c->err_pending = 1;
    c->err_status = (int16_t)status;
    for (i = c->sq_done; i != c->sq_tail; i++) {
        mrc__wr *wr = MRC__SQ(c, i);
        if (blame && (!has_msn || mrc__wr_msn(i) == msn)) {
            wr->status = (int16_t)status;
            blame = false;
        } else {
            wr->status = MRC_ERR_FLUSH;
        }
    }
    c->sq_done = c->sq_send = c->sq_tail;
    c->sq_sent = 0;
#if MRC__TX_RUN
    c->tpl.wr = 0; /* the transmit template's message is gone */
#endif
    for (i = c->rq_done; i != c->rq_tail; i++) {
        mrc__rqe *q = &c->rq[i & (MRC_MAX_RQ - 1u)];
        q->imm = 0;
        q->len = MRC__RQE_FLUSHED;
    }
    c->rq_done = c->rq_tail;
    for (i = 0; i < MRC_MAX_WIMM; i++) c->imms[i].psn = 0;
    c->rtxq.n = c->txl.n = 0;
    mrc__pool_put_all(c); /* the records go (state is ERR first: a block freed is not handed back to this QP) */
    c->ctlq_head = c->ctlq_tail;
    MRC_MEMSET(c->probes, 0, sizeof c->probes);
    MRC_MEMSET(c->probe_sent, 0, sizeof c->probe_sent);
    c->probes_due = 0;
    c->ver_n = 0; /* P35 sweeps: no verification is awaited any more (the holds stay until a rebuild: ERR sends nothing)
                     */
    for (i = 0; i < c->ev_count; i++) c->evs[i].st = (uint8_t)(c->evs[i].st & ~MRC__EVF_VPROBE);
    c->tlp2 = 0;
    mrc__cc_release(c); /* its packets in flight no longer count against the peer's window */
    c->sack_pending = 0;
    mrc__timers_never(c);
    mrc__timer_update(c);
    mrc__sched_ev(c);
}

/* ---- modify and connect ------------------------------------------------------------------------------------- */
/* Where the attribute of mask bit i is in mrc_conn_attr: offset and size (bit 0, the state, is not copied from the
 * caller's; RETRY is two adjacent bytes, retry_linear and retry_exp) */
#define MRC__AT(m) {(uint8_t)offsetof(mrc_conn_attr, m), (uint8_t)sizeof(((mrc_conn_attr *)0)->m)}
static const uint8_t mrc__attr_at[18][2] = {
    {0, 0},          MRC__AT(pkey),     MRC__AT(access), MRC__AT(ev_profile_id), MRC__AT(cc_profile_id),
    MRC__AT(dest_qpn), MRC__AT(rq_psn), MRC__AT(path_mtu), MRC__AT(mpr_dest), MRC__AT(max_wimm_dest),
    MRC__AT(caps),   MRC__AT(peer),     MRC__AT(sq_psn), MRC__AT(mpr),     MRC__AT(max_wimm),
    {(uint8_t)offsetof(mrc_conn_attr, retry_linear), 2}, MRC__AT(timeout), MRC__AT(hint)};
MRC__STATIC_ASSERT(offsetof(mrc_conn_attr, retry_exp) == offsetof(mrc_conn_attr, retry_linear) + 1, attr_retry);
MRC__STATIC_ASSERT(MRC_ATTR_PATH_MTU == (uint32_t)1 << 7 && MRC_ATTR_HINT == (uint32_t)1 << 17, attr_bits);
MRC__STATIC_ASSERT(sizeof(mrc_conn_attr) <= 255u, attr_offsets); /* the table's offsets are bytes */
MRC__PRIVATE void mrc__attr_copy(mrc_conn_attr *to, const mrc_conn_attr *from, unsigned i) {
    uint8_t *d = (uint8_t *)to + mrc__attr_at[i][0];
    const uint8_t *s = (const uint8_t *)from + mrc__attr_at[i][0];
    unsigned k;
    for (k = 0; k < mrc__attr_at[i][1]; k++) d[k] = s[k]; /* byte by byte: from may be &to */
}
/* The range of each numeric attribute mrc_conn_modify checks, in the order it checks them (mrc__ranges; the mask bit
 * is bit - 1): those up to PATH_MTU (256..4096, then a power of two), then the rest */
#define MRC__ARNG(m, lo, hi, b, c) MRC__RNG(mrc_conn_attr, m, 0, lo, hi, (b) + 1, c)
static const mrc__range mrc__attr_ranges[] = {
    MRC__ARNG(dest_qpn, MRC_EPOP_QPN + 1u, MRC_PSN_MASK, 5, MRC_DETAIL_DEST_QPN),
    MRC__ARNG(rq_psn, 0, MRC_PSN_MASK, 6, MRC_DETAIL_PSN),
    MRC__ARNG(sq_psn, 0, MRC_PSN_MASK, 12, MRC_DETAIL_PSN),
    MRC__ARNG(path_mtu, 256, 4096, 7, MRC_DETAIL_PATH_MTU)};
static const mrc__range mrc__attr_ranges2[] = {
    MRC__ARNG(mpr_dest, 1, MRC_MAX_MPR_UNITS, 8, MRC_DETAIL_MPR_DEST),
    MRC__ARNG(max_wimm_dest, 1, MRC_MAX_WIMM, 9, MRC_DETAIL_MAX_WIMM_DEST),
    MRC__ARNG(caps, 0, MRC_CAP_TRIM_NACK_DEST_UNSUPPORTED | MRC_CAP_DYNAMIC_MPR | MRC_CAP_SVC_TIME_DEST_UNSUPPORTED,
              10, MRC_DETAIL_CAPS), /* those bits only */
    MRC__ARNG(mpr, 1, 0xFFu, 13, MRC_DETAIL_MPR),
    MRC__ARNG(max_wimm, 1, 0xFFFFu, 14, MRC_DETAIL_MAX_WIMM),
    MRC__ARNG(retry_linear, 0, 7, 15, MRC_DETAIL_RETRY),
    MRC__ARNG(retry_exp, 0, 25, 15, MRC_DETAIL_RETRY),
    MRC__ARNG(timeout, 0, 24, 16, MRC_DETAIL_TIMEOUT)};
/* The transitions between RESET, INIT, RTR and RTS mrc_conn_modify makes (to RESET and ERR: from any state, the state
 * alone): mrc__trans_of[cur][to] is the transition's index + 1 in the tables of the attributes each requires and
 * allows, or 0 for an illegal one */
enum { MRC__TR_INIT = 1, MRC__TR_INIT_INIT, MRC__TR_RTR, MRC__TR_RTS, MRC__TR_RTS_RTS, MRC__TR_ANY };
static const uint8_t mrc__trans_of[MRC_QPS_ERR + 1][MRC_QPS_ERR + 1] = {
    {MRC__TR_ANY, MRC__TR_INIT, 0, 0, MRC__TR_ANY},
    {MRC__TR_ANY, MRC__TR_INIT_INIT, MRC__TR_RTR, 0, MRC__TR_ANY},
    {MRC__TR_ANY, 0, 0, MRC__TR_RTS, MRC__TR_ANY},
    {MRC__TR_ANY, 0, 0, MRC__TR_RTS_RTS, MRC__TR_ANY},
    {MRC__TR_ANY, 0, 0, 0, MRC__TR_ANY}};
static const uint32_t mrc__trans_req[MRC__TR_ANY] = {
    MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, 0,
    MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU | MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST,
    MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT, 0, 0};
static const uint32_t mrc__trans_opt[MRC__TR_ANY] = {
    MRC_ATTR_PKEY | MRC_ATTR_ACCESS | MRC_ATTR_HINT, MRC_ATTR_PKEY | MRC_ATTR_ACCESS | MRC_ATTR_HINT,
    MRC_ATTR_CAPS | MRC_ATTR_PEER | MRC_ATTR_PKEY | MRC_ATTR_ACCESS, MRC_ATTR_ACCESS,
    MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT | MRC_ATTR_ACCESS, 0};
MRC_API int mrc_conn_modify(mrc_conn *c, const mrc_conn_attr *a, uint32_t mask, mrc_time now) {
    uint32_t req, bad;
    unsigned cur, to, tr, i;
    int rc;
    mrc_endpoint *ep;
    if (!mrc__conn_attached(c)) return MRC_ERR_INVAL;
    ep = c->ep;
    mrc__detail_begin(ep, MRC_CALL_CONN_MODIFY);
    if (!a) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_NULL_ARG, 0);
    now = mrc__clock_ctl(ep, now);
    cur = c->state;
    to = (mask & MRC_ATTR_STATE) ? a->state : cur;
    if (to > MRC_QPS_ERR) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_STATE_VALUE, MRC_ATTR_STATE);
    tr = mrc__trans_of[cur][to]; /* (without MRC_ATTR_STATE, to is cur: RESET and ERR stay, the state alone) */
    if (!tr) return mrc__fail(ep, MRC_ERR_STATE, MRC_DETAIL_TRANSITION, 0);
    req = mrc__trans_req[tr - 1u];
    bad = mask & ~(req | mrc__trans_opt[tr - 1u] | (uint32_t)MRC_ATTR_STATE);
    if (bad)
        return mrc__fail(ep, MRC_ERR_INVAL,
                         (mask & MRC_ATTR_STATE) ? MRC_DETAIL_ATTR_UNEXPECTED : MRC_DETAIL_STATE_MISSING, bad);
    if ((mask & req) != req) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_ATTR_MISSING, req & ~mask);

    /* validate every value before changing anything */
    if ((mask & MRC_ATTR_PKEY) && (a->pkey & 0x7FFFu) == 0)
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_PKEY, MRC_ATTR_PKEY);
    if ((mask & MRC_ATTR_ACCESS) && (a->access & ~(uint32_t)MRC_ACCESS_REMOTE_WRITE))
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_ACCESS, MRC_ATTR_ACCESS);
    if ((mask & MRC_ATTR_EV_PROFILE) && a->ev_profile_id != 0) {
        const mrc__evprof *pf = mrc__prof_find(ep, a->ev_profile_id);
        if (!pf || pf->state != MRC_PROFILE_ONLINE)
            return mrc__fail(ep, MRC_ERR_NOENT, MRC_DETAIL_EV_PROFILE, MRC_ATTR_EV_PROFILE);
    }
    if ((mask & MRC_ATTR_CC_PROFILE) && a->cc_profile_id != 0) {
        const mrc__ccprof *pf = mrc__ccprof_find(ep, a->cc_profile_id);
        if (!pf || pf->state != MRC_PROFILE_ONLINE)
            return mrc__fail(ep, MRC_ERR_NOENT, MRC_DETAIL_CC_PROFILE, MRC_ATTR_CC_PROFILE);
    }
    if (tr == MRC__TR_RTS && mrc__ccx_slot(ep, c->attr.peer, c->attr.cc_profile_id) < 0)
        return mrc__fail(ep, MRC_ERR_FULL, MRC_DETAIL_CCX_FULL, 0); /* no congestion context left */
    if ((rc = mrc__ranges(ep, a, mrc__attr_ranges, MRC__NRANGES(mrc__attr_ranges), mask)) != MRC_OK) return rc;
    if ((mask & MRC_ATTR_PATH_MTU) && (a->path_mtu & (a->path_mtu - 1u))) /* in 256..4096 (above) */
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_PATH_MTU, MRC_ATTR_PATH_MTU);
    if ((rc = mrc__ranges(ep, a, mrc__attr_ranges2, MRC__NRANGES(mrc__attr_ranges2), mask)) != MRC_OK) return rc;

    if (to == MRC_QPS_ERR) {
        mrc__conn_error(c, MRC_ERR_FLUSH, 0, 0, now); /* nothing in ERR already */
        return MRC_OK;
    }
    if (to == MRC_QPS_RESET) {
        mrc__conn_clear(c);
        return MRC_OK;
    }
    for (i = 1; i <= 17u; i++) /* every attribute of the mask (mask <= MRC_ATTR_HINT: checked above) */
        if (mask & ((uint32_t)1 << i)) mrc__attr_copy(&c->attr, a, i);
    if (mask & (MRC_ATTR_PKEY | MRC_ATTR_DEST_QPN)) mrc__conn_tx_bth0(c);

    if (tr == MRC__TR_INIT) {
        if (c->attr.ev_profile_id) {
            mrc__evprof *pf = mrc__prof_find(c->ep, c->attr.ev_profile_id);
            c->ev_prof = (uint8_t)(pf - c->ep->profs + 1);
            pf->refs++;
        }
        if (c->attr.cc_profile_id) {
            ((mrc__ccprof *)mrc__ccprof_find(c->ep, c->attr.cc_profile_id))->refs++;
            c->ccprof_ref = 1;
        }
        mrc__ev_setup(c);
    } else if (tr == MRC__TR_RTR) {
        /* responder: cack = rq_psn - 1; window of mpr_dest * 128 PSNs (Q10 window edge: edge exclusive by default) */
        c->cack = MRC__PSN_DEC(c->attr.rq_psn);
        c->rsp_win = (uint32_t)c->attr.mpr_dest * 128u - (c->ep->cfg.rx.window_inclusive ? 0u : 1u);
        c->mtu_shift = mrc__ctz64(c->attr.path_mtu); /* a power of two in 256..4096 (checked above) */
        c->msn_done = 0;
        c->imm_next = 0;
    } else if (tr == MRC__TR_RTS) {
        c->win_base = c->snd_una = c->snd_nxt = c->attr.sq_psn;
        mrc__set_req_window(c, c->attr.mpr);
        /* the first message is MSN 1 (mrc__wr_msn; AETH msn 0 means "none yet", IBTA) */
        c->next_rqmsn = 0;
        c->srtt = c->ep->cfg.recovery.rtt_init_ns;
        c->rtt_min = MRC_TIME_NEVER;
        c->reo_mult = 1;
        c->reo_last = now;
        mrc__cc_init(c);
    }
    if (to != cur) mrc__set_state(c, (uint8_t)to);
    mrc__sched_tx(c);
    if (tr == MRC__TR_RTS_RTS && (mask & (MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT)))
        mrc__req_timers(c); /* the running timer takes the new values now (P5 RTO schedule), not at its next re-arm */
    else
        mrc__timer_update(c);
    return MRC_OK;
}
MRC_API void mrc_conn_attr_default(mrc_conn_attr *a) {
    unsigned w = MRC__MIN(8u, (unsigned)MRC_MAX_MPR_UNITS);
    if (!a) return;
    MRC_MEMSET(a, 0, sizeof *a);
    a->pkey = 0xFFFF;
    a->access = MRC_ACCESS_REMOTE_WRITE;
    a->path_mtu = 4096;
    a->mpr_dest = (uint8_t)w;
    a->mpr = (uint8_t)MRC__MIN(w, (unsigned)MRC_MAX_INFLIGHT / 128u);
    if (!a->mpr) a->mpr = 1;
    a->max_wimm_dest = (uint16_t)MRC_MAX_WIMM;
    a->max_wimm = (uint16_t)MRC_MAX_WIMM;
    a->retry_linear = 7;
    a->retry_exp = 7;
    a->timeout = 14;
}
MRC_API int mrc_conn_connect(mrc_conn *c, const mrc_conn_attr *a, mrc_time now) {
    static const uint8_t to[3] = {MRC_QPS_INIT, MRC_QPS_RTR, MRC_QPS_RTS};
    static const uint32_t mask[3] = {MRC_ATTR_INIT_MASK, MRC_ATTR_RTR_MASK, MRC_ATTR_RTS_MASK};
    mrc_conn_attr s;
    unsigned i;
    int rc;
    if (!mrc__conn_attached(c)) return MRC_ERR_INVAL;
    if (!a) {
        mrc__detail_begin(c->ep, MRC_CALL_CONN_MODIFY);
        return mrc__fail(c->ep, MRC_ERR_INVAL, MRC_DETAIL_NULL_ARG, 0);
    }
    if (c->state == MRC_QPS_ERR) {
        mrc__detail_begin(c->ep, MRC_CALL_CONN_MODIFY);
        return mrc__fail(c->ep, MRC_ERR_STATE, MRC_DETAIL_TRANSITION, 0);
    }
    s = *a;
    for (i = 0; i < 3; i++) {
        if (c->state >= to[i]) continue; /* a conn already past a step skips it */
        s.state = to[i];
        rc = mrc_conn_modify(c, &s, MRC_ATTR_STATE | mask[i], now);
        if (rc) return rc;
    }
    return MRC_OK;
}

/* ====== src/responder.h ========================================================================================= */
/* ================================================================================================================
 * RESPONDER: what src/responder.c offers the layers above it
 * ============================================================================================================== */

enum { MRC__CTL_SACK = 1, MRC__CTL_NACK = 2, MRC__CTL_AETH = 3 }; /* mrc__ctl.kind */

/* ---- control packets ------------------------------------------------------------------------------------------ */
MRC__PRIVATE int32_t mrc__sack_slice(const mrc_conn *c, uint32_t hi); /* the SETH sack_offset (Q4 SACK bitmap order) */
MRC__PRIVATE void mrc__rsp_sack(mrc_conn *c, uint32_t psn, uint32_t ev, uint8_t port, uint16_t ts, uint8_t m,
                                uint8_t pr);
MRC__PRIVATE void mrc__rsp_aeth(mrc_conn *c, uint8_t syndrome, uint32_t msn, const mrc_rxinfo *ri);
MRC__PRIVATE void mrc__rsp_on_sack_timer(mrc_conn *c);
MRC__PRIVATE uint8_t mrc__rsp_penalty(const mrc_conn *c);
MRC__PRIVATE uint8_t mrc__rsp_mpr(const mrc_conn *c);
MRC__PRIVATE int mrc__rsp_emit_ctl(mrc_conn *c, uint8_t *buf, mrc_txinfo *ti); /* bytes, or 0 (buf: MRC_HDR_MAX) */

/* ---- receiving ------------------------------------------------------------------------------------------------ */
MRC__PRIVATE MRC__INLINE bool mrc__rsp_got(const mrc_conn *c, uint32_t psn);
MRC__PRIVATE void mrc__rsp_deliver_imms(mrc_conn *c);
MRC__PRIVATE MRC__INLINE void mrc__rsp_advance_cack(mrc_conn *c);
MRC__PRIVATE MRC__INLINE bool mrc__rsp_any_after(const mrc_conn *c, uint32_t psn);
MRC__PRIVATE MRC__INLINE void mrc__rsp_late(mrc_conn *c, uint32_t psn, uint16_t ts);
MRC__PRIVATE MRC__INLINE void mrc__rsp_note_late(mrc_conn *c, uint32_t psn, uint16_t ts); /* P41 late arrivals */
MRC__PRIVATE MRC__INLINE void mrc__rsp_epoch(mrc_endpoint *ep, mrc_conn *c, mrc_time now);
MRC__PRIVATE int mrc__rsp_on_data(mrc_conn *c, const mrc_pkt *k, const uint8_t *payload, const mrc_rxinfo *ri,
                                  mrc_time now);
MRC__PRIVATE int mrc__rsp_on_probe(mrc_conn *c, const mrc_pkt *k, const mrc_rxinfo *ri);

/* ====== src/responder.c ========================================================================================= */
/* ================================================================================================================
 * RESPONDER - src/responder.c
 * Owns: the PSN bitmap over the MPR window past cack, duplicate and window checks, trim recognition, the access
 * checks that precede every placement (rkey, rights, bounds), direct placement in any arrival order, message
 * completion by cumulative PSN, Write-IMM completions in MSN order into pre-posted receives, the WIMM limit, and
 * the control packets it sends back: SACK (with CC_STATE), NACK, transport ACK/NAK (AETH). The queue of control
 * packets is per connection and coalesces plain SACKs.
 * The responder's fast path (an in-order data packet on a clean QP, and the SACK it causes) sits beside the general
 * receive path in src/endpoint.c and calls the functions below.
 * Calls: codec, state, sched, path, qp.
 * ============================================================================================================== */

/* ---- the control packets it sends back: queued per QP, plain SACKs coalesced -------------------------------- */
/* The 64-PSN slice a SACK reports (Q4 SACK bitmap order): cack + 1 .. cack + 64 while the highest PSN it stands for is
 * that close, else the 64 PSNs ending at that PSN. Returns the slice's offset from cack (the SETH sack_offset). */
MRC__PRIVATE int32_t mrc__sack_slice(const mrc_conn *c, uint32_t hi) {
    int32_t off = mrc_psn_diff(hi, c->cack);
    return off <= 64 ? 1 : off - 63;
}
MRC__PRIVATE void mrc__ctl_push(mrc_conn *c, const mrc__ctl *e) {
    uint32_t n = c->ctlq_tail - c->ctlq_head;
    if (e->kind == MRC__CTL_SACK && !e->pr && e->m == MRC_M_NONE && n > 0) {
        mrc__ctl *t = &c->ctlq[(c->ctlq_tail - 1u) & (MRC_CTLQ_LEN - 1u)];
        /* coalesce: the newer one names its packet, and the SACK reports the slice ending at the highest PSN named so
         * far - unless the named PSNs no longer fit one 64-PSN slice: an arrival would never be reported and the
         * requester would retransmit it. A full queue coalesces anyway (the newer state is worth more). */
        if (t->kind == MRC__CTL_SACK && !t->pr && t->m == MRC_M_NONE) {
            uint32_t lo = mrc_psn_diff(t->lo, e->psn) < 0 ? t->lo : e->psn;
            uint32_t hi = mrc_psn_diff(t->hi, e->psn) > 0 ? t->hi : e->psn;
            int32_t olo = mrc_psn_diff(lo, c->cack);
            bool keep = olo <= 0 || olo >= mrc__sack_slice(c, hi); /* cack only rises before it leaves: stays true */
            if (keep || n >= MRC_CTLQ_LEN) {
                *t = *e;
                if (keep) t->lo = lo, t->hi = hi;
                return;
            }
        }
    }
    if (n >= MRC_CTLQ_LEN) {
        MRC__LOSS_INC(c->ep->st.ctlq_overflow);
        return;
    }
    c->ctlq[c->ctlq_tail++ & (MRC_CTLQ_LEN - 1u)] = *e;
    mrc__sched_tx(c);
}
MRC__PRIVATE void mrc__rsp_sack(mrc_conn *c, uint32_t psn, uint32_t ev, uint8_t port, uint16_t ts, uint8_t m,
                                uint8_t pr) {
    mrc__ctl e;
    MRC_MEMSET(&e, 0, sizeof e);
    e.kind = MRC__CTL_SACK;
    e.psn = e.lo = e.hi = psn;
    e.ev = ev;
    e.port = port;
    e.ts = ts;
    e.m = m;
    e.pr = pr;
    mrc__ctl_push(c, &e);
    c->sack_pending = 0;
    c->sack_deadline = MRC_TIME_NEVER;
}
/* A NACK queued and counted (out of line: gcc -Os wrote its two calls out in full) */
MRC__PRIVATE MRC__NOINLINE void mrc__rsp_nack(mrc_conn *c, uint32_t psn, unsigned reason, const mrc_rxinfo *ri,
                                              uint16_t ts) {
    mrc__ctl e;
    MRC_MEMSET(&e, 0, sizeof e);
    e.kind = MRC__CTL_NACK;
    e.psn = psn;
    e.reason = (uint8_t)reason;
    e.ev = ri->ev;
    e.port = ri->port;
    e.ts = ts;
    mrc__ctl_push(c, &e);
    MRC__RARE_INC(c->st.tx_nack);
}
MRC__PRIVATE void mrc__rsp_aeth(mrc_conn *c, uint8_t syndrome, uint32_t msn, const mrc_rxinfo *ri) {
    mrc__ctl e;
    MRC_MEMSET(&e, 0, sizeof e);
    e.kind = MRC__CTL_AETH;
    e.reason = syndrome;
    e.psn = msn & MRC_PSN_MASK; /* an AETH names an MSN, no PSN */
    e.ev = ri ? ri->ev : 0;
    e.port = ri ? ri->port : 1;
    mrc__ctl_push(c, &e);
}
/* A semantic error the responder detected: NAK the requester, then this connection enters ERR too (as rxe does
 * for class C errors). conn_error empties the control queue first, so the NAK is the last packet it sends. */
MRC__PRIVATE void mrc__rsp_fatal(mrc_conn *c, uint8_t syndrome, uint16_t msn, int status, const mrc_rxinfo *ri,
                                 mrc_time now) {
    mrc__conn_error(c, status, 0, 0, now);
    mrc__rsp_aeth(c, syndrome, msn, ri);
    MRC__RARE_INC(c->st.tx_nak);
}

/* ---- receiving: the PSN bitmap, placement, completions ------------------------------------------------------ */
MRC__PRIVATE MRC__INLINE bool mrc__rsp_got(const mrc_conn *c, uint32_t psn) {
    return mrc__bit(c->rbits, MRC__RSP_BITS, psn);
}
/* Whether region mi holds the packet's plen bytes at its VA; *off their offset in it (out of line: two callers) */
MRC__PRIVATE MRC__NOINLINE bool mrc__rsp_in_mr(const mrc_endpoint *ep, int mi, const mrc_pkt *k, uint32_t plen,
                                               uint64_t *off) {
    if (k->reth.va < ep->mrs[mi].iova) return false;
    *off = k->reth.va - ep->mrs[mi].iova;
    return *off <= ep->mrs[mi].len && plen <= ep->mrs[mi].len - *off;
}
/* P38 hardened mode: a duplicate whose payload, where a host region holds it, differs from the bytes there: one of
 * the two transmissions was forged (rx_conflict). O(payload), duplicates only. */
MRC__PRIVATE void mrc__rsp_conflict(mrc_conn *c, const mrc_pkt *k, const uint8_t *payload) {
    const mrc_endpoint *ep = c->ep;
    uint32_t plen = k->payload_len;
    int mi = plen ? mrc__mr_find(ep, k->reth.rkey) : -1;
    uint64_t off;
    if (mi < 0 || (ep->mrs[mi].access & MRC_ACCESS_EXTERNAL) || !mrc__rsp_in_mr(ep, mi, k, plen, &off)) return;
    if (MRC_MEMCMP(ep->mrs[mi].base + off, payload, (size_t)plen) != 0) MRC__RARE_INC(c->st.rx_conflict);
}
/* Write-IMM completions strictly in MSN (= rqmsn) order, once cack covers the message's last PSN, each into the
 * oldest posted receive. An immediate whose receive is not posted yet waits in the stash. */
MRC__PRIVATE void mrc__rsp_deliver_imms(mrc_conn *c) {
    bool any = false;
    for (;;) {
        mrc__imm *s = &c->imms[c->imm_next & (MRC_MAX_WIMM - 1u)];
        mrc__rqe *q;
        if (!(s->psn & MRC__IMM_VALID) || mrc_psn_diff(s->psn & MRC_PSN_MASK, c->cack) > 0 || c->rq_done == c->rq_tail)
            break;
        q = &c->rq[c->rq_done & (MRC_MAX_RQ - 1u)];
        q->imm = s->imm;
        q->len = s->len;
        c->rq_done++;
        s->psn = 0;
        c->imm_next++;
        MRC__CNT(c->st.imm_delivered++);
        any = true;
    }
    if (any) mrc__sched_ev(c);
}
/* The cumulative ack moves over every PSN received in order after it, clearing their bits and counting the
 * messages they end. A word of the bitmap at a time: the run of arrivals from cack + 1 is the trailing ones of the
 * word shifted down to it (a shift fills zeros: a run stops at the word's end at the latest, the next word goes on). */
MRC__PRIVATE MRC__INLINE void mrc__rsp_advance_cack(mrc_conn *c) {
    for (;;) {
        uint32_t i = MRC__PSN_INC(c->cack) & (MRC__RSP_BITS - 1u), sh = i & 63u, n;
        uint64_t *w = &c->rbits[i >> 6], t = *w >> sh, m, l;
        if (!(t & 1u)) return; /* cack + 1 has not arrived */
        m = (t & ~(t + 1u)) << sh; /* the run: t's trailing ones */
        n = t + 1u ? mrc__ctz64(t + 1u) : 64u; /* 64: the whole word (sh is 0) */
        *w &= ~m;
        if ((l = c->rlast[i >> 6] & m) != 0) { /* messages end in the run */
            c->rlast[i >> 6] &= ~m;
            do {
                c->msn_done = (c->msn_done + 1u) & MRC_PSN_MASK;
                c->tack_msgs++;
            } while ((l &= l - 1u) != 0);
        }
        c->cack = (c->cack + n) & MRC_PSN_MASK;
        c->ooo -= n;
        if (sh + n < 64u) return; /* the run ended inside the word */
    }
}
/* P41 late arrivals: psn, just placed (cack moved over what it completed), is remembered with its timestamp ts when it
 * arrived after a later PSN - cack passed it, or PSNs beyond it are in (beyond a hole: one of the 64 after it). Its own
 * SACK may have been coalesced away (P7, Q6), and the requester may have judged it lost and retransmitted it: that
 * retransmission arrives as a duplicate, and its SACK echoes ts, the copy that arrived first (7.4). O(1). */
/* Whether one of the 64 PSNs after psn has arrived (any 24-bit PSN: the index wraps) */
MRC__PRIVATE MRC__INLINE bool mrc__rsp_any_after(const mrc_conn *c, uint32_t psn) {
    return mrc__bits64(c->rbits, MRC__RSP_BITS, psn + 1u) != 0;
}
/* P41 late arrivals: psn remembered with its timestamp ts */
MRC__PRIVATE MRC__INLINE void mrc__rsp_late(mrc_conn *c, uint32_t psn, uint16_t ts) {
    c->late_psn[c->late_next & (MRC__LATE_N - 1u)] = MRC__LATE_VALID | psn;
    c->late_ts[c->late_next++ & (MRC__LATE_N - 1u)] = ts;
}
MRC__PRIVATE MRC__INLINE void mrc__rsp_note_late(mrc_conn *c, uint32_t psn, uint16_t ts) {
    int32_t d = mrc_psn_diff(c->cack, psn);
    bool late = d > 0 || (d == 0 ? c->ooo != 0 : mrc__rsp_any_after(c, psn));
    if (ts && late) mrc__rsp_late(c, psn, ts);
}
/* P41 late arrivals: the timestamp a duplicate retransmission of psn echoes - the late arrival's, if remembered, else
 * its own (ts). O(MRC__LATE_N), per duplicate retransmission only. */
MRC__PRIVATE uint16_t mrc__rsp_dup_ts(const mrc_conn *c, uint32_t psn, uint16_t ts) {
    unsigned i;
    for (i = 0; i < MRC__LATE_N; i++)
        if (c->late_psn[i] == (MRC__LATE_VALID | psn)) return c->late_ts[i];
    return ts;
}
/* Activity epochs of one base RTT: how many QPs receive at once (dynamic MPR, Q9). Counts c once per epoch. */
MRC__PRIVATE MRC__INLINE void mrc__rsp_epoch(mrc_endpoint *ep, mrc_conn *c, mrc_time now) {
    if (now >= ep->epoch_end) {
        ep->rx_prev = now - ep->epoch_end < ep->cfg.cc.base_rtt_ns ? ep->rx_cur : 0u;
        ep->rx_cur = 0;
        ep->epoch++;
        ep->epoch_end = MRC__DEADLINE_SZ(now, ep->cfg.cc.base_rtt_ns);
    }
    if (c->rx_epoch != ep->epoch) {
        c->rx_epoch = ep->epoch;
        ep->rx_cur++;
    }
}
MRC__PRIVATE int mrc__rsp_on_data(mrc_conn *c, const mrc_pkt *k, const uint8_t *payload, const mrc_rxinfo *ri,
                                  mrc_time now) {
    mrc_endpoint *ep = c->ep;
    const mrc_config *cf = &ep->cfg;
    uint32_t psn = k->bth.psn, plen = k->payload_len, dlen = k->reth.dma_len, mtu = 1u << c->mtu_shift;
    uint32_t implied, old_cack = c->cack;
    unsigned op = k->bth.opcode;
    bool last = op == MRC_OP_WRITE_LAST || op == MRC_OP_WRITE_LAST_IMM || op == MRC_OP_WRITE_ONLY ||
                op == MRC_OP_WRITE_ONLY_IMM;
    bool imm = op == MRC_OP_WRITE_LAST_IMM || op == MRC_OP_WRITE_ONLY_IMM;
    bool ce = (ri->ecn & 3u) == 3u, trimmed, only;
    uint16_t ts = (k->hdrs & MRC_HDR_TSETH) ? k->tseth.tx_timestamp : 0;
    uint8_t m = ce ? MRC_M_SKIP_ONCE : MRC_M_NONE; /* Q8/Q27: a CE mark asks the sender to skip that EV once */
    mrc__imm *slot = (mrc__imm *)0;
    int mi = -1;
    uint64_t off = 0;
    int32_t d;
    unsigned why;

    if (c->state != MRC_QPS_RTR && c->state != MRC_QPS_RTS) return mrc__drop(ep, c, MRC_DROP_STATE, op);
    d = mrc_psn_diff(psn, c->cack);
    if (d <= 0 || ((uint32_t)d <= c->rsp_win && mrc__rsp_got(c, psn))) {
        /* duplicate: never placed again, acknowledged again so a lost SACK is repaired; a retransmission of a late
         * arrival echoes the timestamp of the copy that arrived first (P41 late arrivals) */
        MRC__RARE_INC(c->st.rx_dup);
        if (cf->guard.hardened) mrc__rsp_conflict(c, k, payload);
        if (k->bth.rtx && ts) ts = mrc__rsp_dup_ts(c, psn, ts);
        mrc__rsp_sack(c, psn, ri->ev, ri->port, ts, m, 0);
        return mrc__drop(ep, c, MRC_DROP_DUP, op);
    }
    if ((uint32_t)d > c->rsp_win) { /* Q10 window edge: beyond the window */
        MRC__RARE_INC(c->st.rx_oor);
        if (cf->rx.nack_oor) {
            mrc__rsp_nack(c, psn, MRC_NACK_PSN_OOR_WINDOW, ri, ts);
        }
        return mrc__drop(ep, c, MRC_DROP_PSN_OOR, op);
    }
    /* payload length implied by the opcode and the message length: an only packet's message fits one MTU (and is its
     * payload), a first or last packet's does not, a middle packet's is more than two; a last packet carries the
     * rest */
    only = op == MRC_OP_WRITE_ONLY || op == MRC_OP_WRITE_ONLY_IMM;
    if (only ? dlen > mtu : dlen <= (op == MRC_OP_WRITE_MIDDLE ? 2u * mtu : mtu))
        return mrc__drop(ep, c, MRC_DROP_MALFORMED, op);
    implied = only ? dlen : (last && (dlen & (mtu - 1u))) ? dlen & (mtu - 1u) : mtu;
    /* the pad must be the one the implied payload length needs, whatever happened to the payload on the way */
    if (k->bth.pad != ((4u - (implied & 3u)) & 3u)) return mrc__drop(ep, c, MRC_DROP_MALFORMED, op);
    /* Q17 trim recognition: trimmed when the adapter or the DSCP says so, or when the payload is shorter than the
     * headers imply */
    trimmed = (ri->flags & MRC_RX_TRIMMED) || ri->dscp == cf->dscp[MRC_DSCP_TRIMMED] ||
              ri->dscp == cf->dscp[MRC_DSCP_TRIMMED_LASTHOP] || (k->flags & MRC_PKT_CUT) || plen < implied;
    if (trimmed) {
        MRC__RARE_INC(c->st.rx_trimmed);
        mrc__rsp_nack(c, psn,
                      ri->dscp == cf->dscp[MRC_DSCP_TRIMMED_LASTHOP] ? MRC_NACK_TRIMMED_LASTHOP : MRC_NACK_TRIMMED,
                      ri, ts);
        return mrc__drop(ep, c, MRC_DROP_TRIMMED, op);
    }
    if (plen > implied) return mrc__drop(ep, c, MRC_DROP_MALFORMED, op);
    /* Q26 responder check order: a message sequence outside the window is dropped */
    if ((uint32_t)(uint16_t)(k->meth.msn - (uint16_t)(c->msn_done + 1u)) >= MRC__MIN(c->rsp_win, 0x8000u))
        return mrc__drop(ep, c, MRC_DROP_MSN_OOR, op);
    if (imm) { /* Q23 WIMM overflow: more pending immediates than max_wimm_dest is an invalid request */
        if ((uint16_t)(k->meth.rqmsn - c->imm_next) >= c->attr.max_wimm_dest) {
            why = MRC_DROP_WIMM;
            goto fatal;
        }
        slot = &c->imms[k->meth.rqmsn & (MRC_MAX_WIMM - 1u)];
        if (slot->psn & MRC__IMM_VALID) return mrc__drop(ep, c, MRC_DROP_MALFORMED, op);
    }
    /* access checks, all before a single byte is written (Q26 responder check order). IBTA checks no rkey for a
     * zero-length write; here (P10 zero-length writes, guard.zero_len_rkey) it must name a region with remote-write access
     * and a VA inside it, or it is dropped: not recorded, so a forged one cannot take the PSN of a real packet, and not
     * NAKed (IBTA never NAKs one). */
    if (!(c->attr.access & MRC_ACCESS_REMOTE_WRITE)) goto access_error;
    if (dlen != 0 || plen != 0 || cf->guard.zero_len_rkey) {
        /* (dlen 0: plen is 0 too, past the checks above, so only the VA can fail) */
        mi = mrc__mr_find(ep, k->reth.rkey);
        if (mi < 0 || !(ep->mrs[mi].access & MRC_ACCESS_REMOTE_WRITE) || !mrc__rsp_in_mr(ep, mi, k, plen, &off)) {
            if (dlen == 0) return mrc__drop(ep, c, MRC_DROP_ACCESS, op);
            goto access_error;
        }
    }
    if (plen) {
        if (ep->mrs[mi].access & MRC_ACCESS_EXTERNAL) {
            if (cf->place(cf->place_ud, ep->mrs[mi].rkey, ep->mrs[mi].user, off, payload, plen) != 0)
                return mrc__drop(ep, c, MRC_DROP_PLACE, op);
        } else {
            MRC_MEMCPY(ep->mrs[mi].base + off, payload, (size_t)plen);
        }
    }
    /* record the arrival and move cack over every contiguous arrival */
    mrc__bit_set(c->rbits, MRC__RSP_BITS, psn);
    if (last) mrc__bit_set(c->rlast, MRC__RSP_BITS, psn);
    if (slot) {
        slot->psn = MRC__IMM_VALID | psn;
        slot->imm = k->imm;
        slot->len = dlen;
    }
    c->ooo++;
    MRC__CNT(c->st.rx_data++);
    if (ce) MRC__RARE_INC(c->st.rx_ce);
    mrc__rsp_epoch(ep, c, now);
    MRC__CNT(c->st.rx_bytes_placed += plen);
    c->rcvd_bytes += k->hdr_len + plen + k->bth.pad + 4u + MRC_NOMINAL_HDR; /* 32-bit: at most a header and 4 KiB */
    mrc__rsp_advance_cack(c);
    mrc__rsp_note_late(c, psn, ts);
    mrc__rsp_deliver_imms(c);
    /* Q6 SACK frequency: SACK every ack.sack_every packets, at once on a, CE, rtx, out-of-order arrival or a filled hole */
    c->sack_pending++;
    c->pend_psn = psn;
    c->pend_ev = ri->ev;
    c->pend_ts = ts;
    c->pend_port = ri->port;
    if (k->bth.a || ce || k->bth.rtx || psn != MRC__PSN_INC(old_cack) || mrc_psn_diff(c->cack, old_cack) > 1 ||
        c->sack_pending >= cf->ack.sack_every) {
        mrc__rsp_sack(c, psn, ri->ev, ri->port, ts, m, 0);
    } else if (c->sack_deadline == MRC_TIME_NEVER) {
        c->sack_deadline = mrc__deadline_ctl(now, cf->ack.sack_delay_ns);
    }
    if (cf->ack.tack_every && c->tack_msgs >= cf->ack.tack_every) { /* Q6 SACK frequency: positive transport ACK */
        mrc__rsp_aeth(c, MRC_AETH_ACK, c->msn_done, ri);
        c->tack_msgs = 0;
        MRC__RARE_INC(c->st.tx_tack);
    }
    return MRC_OK;

access_error:
    why = MRC_DROP_ACCESS;
fatal: /* the WIMM overflow's invalid request, or a remote access error (one call for both) */
    if (!cf->guard.hardened) {
        bool w = why == MRC_DROP_WIMM;
        mrc__rsp_fatal(c, w ? MRC_AETH_NAK_INV_REQ : MRC_AETH_NAK_REM_ACCESS, k->meth.msn,
                       w ? MRC_ERR_LOCAL_INVAL : MRC_ERR_LOCAL_ACCESS, ri, now);
    }
    return mrc__drop(ep, c, why, op);
}
/* PROBE_REQ: answered by a SACK with pr = 1 carrying the current cack and the lowest slice with a hole (Q4 SACK bitmap
 * order). */
MRC__PRIVATE int mrc__rsp_on_probe(mrc_conn *c, const mrc_pkt *k, const mrc_rxinfo *ri) {
    if (c->state != MRC_QPS_RTR && c->state != MRC_QPS_RTS) return mrc__drop(c->ep, c, MRC_DROP_STATE, k->bth.opcode);
    if (!mrc__bucket_take(&c->probe_tat, c->ep->now, c->ep->probe_T, c->ep->probe_tau)) /* P19 QP 0x2 and probe trust:
                                                                                           no reflector */
        return mrc__drop(c->ep, c, MRC_DROP_RATE, k->bth.opcode);
    mrc__rsp_sack(c, c->cack, ri->ev, ri->port, k->peth.tx_timestamp,
                  (ri->ecn & 3u) == 3u ? MRC_M_SKIP_ONCE : MRC_M_NONE, 1);
    return MRC_OK;
}
MRC__PRIVATE void mrc__rsp_on_sack_timer(mrc_conn *c) {
    c->sack_deadline = MRC_TIME_NEVER;
    if (c->sack_pending && (c->state == MRC_QPS_RTR || c->state == MRC_QPS_RTS))
        mrc__rsp_sack(c, c->pend_psn, c->pend_ev, c->pend_port, c->pend_ts, MRC_M_NONE, 0);
}

/* ---- posted receives ---------------------------------------------------------------------------------------- */
MRC_API int mrc_conn_post_recv(mrc_conn *c, uint64_t wr_id, mrc_time now) {
    mrc__rqe *q;
    if (!c || !c->ep) return MRC_ERR_INVAL;
    (void)mrc__clock(c->ep, now);
    if (c->state == MRC_QPS_RESET || c->state == MRC_QPS_ERR) return MRC_ERR_STATE;
    if (c->rq_tail - c->rq_head >= MRC_MAX_RQ) return MRC_ERR_FULL;
    q = &c->rq[c->rq_tail & (MRC_MAX_RQ - 1u)];
    q->wr_id = wr_id;
    q->imm = q->len = 0;
    c->rq_tail++;
    mrc__rsp_deliver_imms(c);
    return MRC_OK;
}

/* ---- building a control packet: receiver penalty (Q12), dynamic MPR (Q9), the headers ----------------------- */
/* Receiver penalty (Q12): the host's backpressure (mrc_endpoint_rx_pressure), or tracking pressure: out-of-order
 * PSNs past rx.pen_ooo_pct of the window, rising linearly to 127 when the window is full. Out of line: the SACK fast
 * path calls it only with PSNs out of order. */
MRC__PRIVATE MRC__NOINLINE uint8_t mrc__rsp_penalty(const mrc_conn *c) {
    const mrc_endpoint *ep = c->ep;
    uint32_t pen = ep->rx_pressure, thr;
    if (ep->cfg.rx.pen_ooo_pct) {
        thr = c->rsp_win * ep->cfg.rx.pen_ooo_pct / 100u; /* rsp_win <= 255 x 128 (RTR): no overflow */
        if (c->ooo > thr) pen = MRC__MAX(pen, (uint32_t)MRC__MIN(127u, 127u * (c->ooo - thr) / MRC__MAX(c->rsp_win - thr, 1u)));
    }
    return (uint8_t)pen;
}
/* Dynamic MPR (Q9): mpr_dest, or an equal share of rx.mpr_budget among the QPs receiving in this or the last
 * base-RTT epoch, whichever is smaller, at least 1. The responder keeps accepting its full mpr_dest window, so a
 * shrink never strands PSNs already sent. */
MRC__PRIVATE uint8_t mrc__rsp_mpr(const mrc_conn *c) {
    const mrc_endpoint *ep = c->ep;
    uint32_t n = MRC__MAX(MRC__MAX(ep->rx_cur, ep->rx_prev), 1u), share;
    if (!ep->cfg.rx.mpr_budget) return c->attr.mpr_dest;
    share = MRC__MAX((uint32_t)ep->cfg.rx.mpr_budget / n, 1u);
    return (uint8_t)MRC__MIN(share, (uint32_t)c->attr.mpr_dest);
}
/* Build the next queued control packet. Returns bytes written or 0 when no port is up. */
MRC__STATIC_ASSERT(MRC__FW(8, 4, MRC__NETH_SPDCID, 0xFFFFu) == MRC__FW(8, 4, MRC__SETH_SPDCID, 0xFFFFu) &&
                       MRC__FW(8, 4, MRC__NETH_DPDCID, 0xFFFFu) == MRC__FW(8, 4, MRC__SETH_DPDCID, 0xFFFFu),
                   neth_dcids);
MRC__PRIVATE int mrc__rsp_emit_ctl(mrc_conn *c, uint8_t *buf, mrc_txinfo *ti) {
    mrc_endpoint *ep = c->ep;
    const mrc__ctl *e = &c->ctlq[c->ctlq_head & (MRC_CTLQ_LEN - 1u)];
    uint8_t port = e->port;
    uint16_t rs = MRC__EV_NONE;
    uint32_t op, psn = c->cack; /* the BTH's: a SACK and an AETH carry cack, a NACK its PSN */
    uint8_t *h;
    int n = MRC_BTH_LEN;
    /* P28 mirror reverse path: a profile's QP on the arrival's mirror; else Q19 reverse-path EVs: on the QP's own EVs
     * of the arrival plane, in turn (or another plane's), else echoing the arrival EV on the arrival port, or the
     * lowest port that is up */
    if (ep->cfg.ev.reply != MRC_EV_REPLY_ECHO && (rs = mrc__ev_mirror(c, e->ev, port)) == MRC__EV_NONE)
        rs = mrc__ev_ctl(c, port);
    if (rs == MRC__EV_NONE && !mrc_endpoint_port_up(ep, port)) {
        if (!ep->ports_up) return 0;
        port = (uint8_t)(mrc__ctz64(ep->ports_up) + 1u);
    }
    /* the headers stored straight at their fixed offsets, as mrc_bth_encode and the SETH, CC_STATE, NETH and AETH
     * encoders would store them (buf holds MRC_HDR_MAX; every value fits its field): BTH word 0 from the QP's template,
     * BTH word 1 (DEST_QP) and SETH/NETH word 2 (SPDCID, DPDCID) from the SACK fast path's */
    h = buf + MRC_BTH_LEN;
    if (e->kind == MRC__CTL_SACK) {
        int32_t off = mrc_psn_diff(e->psn, c->cack);
        /* Q4 SACK bitmap order: the 64-PSN slice ending at the highest packet this (coalesced) SACK stands for, from
         * cack + 1 at the earliest; probes: cack + 1 */
        int32_t soff = e->pr ? 1 : mrc__sack_slice(c, e->hi);
        uint64_t bm = mrc__bits64(c->rbits, MRC__RSP_BITS, mrc_psn_add(c->cack, soff));
        uint8_t pen = mrc__rsp_penalty(c);
        op = MRC_OP_SACK;
        mrc__st4(h, MRC__FW(0, 4, MRC__SETH_M, e->m) | MRC__FW(0, 4, MRC__SETH_PR, e->pr) |
                        MRC__FW(0, 4, MRC__SETH_ACK_OFF, (uint16_t)((e->pr || off < -32768 || off > 32767) ? 0 : off)));
        mrc__st4(h + 4, MRC__FW(4, 4, MRC__SETH_ENTROPY, e->ev));
        MRC_MEMCPY(h + 8, &c->tx_sack[2], 4);
        mrc__st4(h + 12, MRC__FW(12, 4, MRC__SETH_CACK, c->cack));
        mrc__st4(h + 16, MRC__FW(16, 4, MRC__SETH_MPR, (c->attr.caps & MRC_CAP_DYNAMIC_MPR) ? mrc__rsp_mpr(c) : 0u) |
                             MRC__FW(16, 4, MRC__SETH_SACK_OFF, (uint16_t)soff)); /* MPR 0: ignore */
        mrc__st8(h + 20, ep->cfg.wire.sack_msb_first ? mrc__rev64(bm) : bm); /* (the option's order: reversed) */
        h += MRC_SETH_LEN;
        mrc__st4(h, MRC__FW(0, 4, MRC__CCS_TS, e->ts) | MRC__FW(0, 4, MRC__CCS_OOO, MRC__MIN(c->ooo, 0x7FFFu)));
        /* R_C: the penalty is over, restore (Q12 receiver penalty) */
        mrc__st4(h + 4, MRC__FW(4, 4, MRC__CCS_R_C, !pen && c->pen_last) | MRC__FW(4, 4, MRC__CCS_PEN, pen) |
                            MRC__FW(4, 4, MRC__CCS_RCVD, (c->rcvd_bytes >> 8) & 0xFFFFFFu));
        c->pen_last = pen;
        if (pen) MRC__RARE_INC(c->st.tx_pen);
        MRC__CNT(c->st.tx_sack++);
        n += MRC_SETH_LEN + MRC_CCSTATE_LEN;
    } else if (e->kind == MRC__CTL_NACK) {
        op = MRC_OP_NACK;
        psn = e->psn;
        mrc__st4(h, MRC__FW(0, 4, MRC__NETH_REASON, e->reason));
        mrc__st4(h + 4, MRC__FW(4, 4, MRC__NETH_ENTROPY, e->ev));
        MRC_MEMCPY(h + 8, &c->tx_sack[2], 4); /* SETH's SPDCID and DPDCID word */
        mrc__st4(h + 12, MRC__FW(12, 4, MRC__NETH_PSN, e->psn));
        mrc__st4(h + 16, MRC__FW(16, 4, MRC__NETH_TS, e->ts));
        n += MRC_NETH_LEN;
    } else {
        op = MRC_OP_ACK;
        mrc__st4(h, MRC__FW(0, 4, MRC__AETH_SYNDROME, e->reason) | MRC__FW(0, 4, MRC__AETH_MSN, e->psn)); /* its MSN */
        n += MRC_AETH_LEN;
    }
    mrc__st4(buf, MRC__FW(0, 4, MRC__BTH_OPCODE, op) | c->tx_bth0);
    MRC_MEMCPY(buf + 4, &c->tx_sack[1], 4);
    mrc__st4(buf + 8, MRC__FW(8, 4, MRC__BTH_PSN, psn));
    MRC_MEMSET(ti, 0, sizeof *ti);
    if (rs != MRC__EV_NONE) {
        mrc__ev_txinfo(c, rs, ti);
    } else {
        ti->port = port;
        ti->ev = e->ev;
        ti->ev_fmt = (uint8_t)(e->ev > 0xFFFFu ? MRC_EV_FMT_STEV : MRC_EV_FMT_UDP);
    }
    ti->dscp_class = MRC_DSCP_CONTROL;
    ti->dscp = ep->cfg.dscp[MRC_DSCP_CONTROL];
    ti->opcode = (uint8_t)op;
    ti->peer = c->attr.peer;
    ti->qpn = c->qpn;
    ti->hdr_len = (uint32_t)n;
    c->ctlq_head++;
    MRC__TRACE(ep, MRC_TRACE_TX, (op << 24) | psn, ti->ev);
    return n;
}

/* ====== src/requester.h ========================================================================================= */
/* ================================================================================================================
 * REQUESTER: what src/requester.c offers the layers above it
 * ============================================================================================================== */

/* ---- the send window ------------------------------------------------------------------------------------------ */
MRC__PRIVATE MRC__SIZE_NOINLINE bool mrc__req_acked(const mrc_conn *c, uint32_t psn);
MRC__PRIVATE MRC__INLINE bool mrc__sack_bits_unsent(int32_t hi, uint64_t bm); /* P38: a bitmap naming an unsent PSN */
MRC__PRIVATE MRC__SIZE_NOINLINE uint64_t mrc__req_acked64(const mrc_conn *c, uint32_t base);
MRC__PRIVATE MRC__INLINE void mrc__req_release(mrc_conn *c, uint32_t old_base);
MRC__PRIVATE MRC__NOINLINE void mrc__pool_enter(mrc_conn *c, uint32_t psn);
MRC__PRIVATE MRC__INLINE bool mrc__req_has_work(const mrc_conn *c);
MRC__PRIVATE void mrc__nopath_expire(mrc_conn *c, mrc_time now);

/* ---- transmit ------------------------------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__rtxq_remove(mrc_conn *c, uint32_t psn, mrc__psnrec *r);
MRC__PRIVATE void mrc__req_mark_lost(mrc_conn *c, uint32_t psn, int why);
/* c's next packet (a probe due, a retransmission, new data) into buf: bytes written, 0 when it has none */
MRC__PRIVATE int mrc__req_tx(mrc_conn *c, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti); /* at ep->now */

/* ---- acknowledgements, NACKs, timers -------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__req_ack_one(mrc_conn *c, uint32_t psn);
MRC__PRIVATE void mrc__req_complete(mrc_conn *c);
MRC__PRIVATE void mrc__req_rtt_sample(mrc_conn *c, mrc_time rtt);
/* 7.4: the verdict of a SACK naming a retransmitted PSN (b: its block, the caller's), by its echo t; whether it decided
 * */
MRC__PRIVATE MRC__INLINE bool mrc__req_rtx_verdict(mrc_conn *c, mrc__pblk *b, uint32_t psn, mrc_time t, bool fresh,
                                                  mrc_time now);
MRC__PRIVATE MRC__INLINE void mrc__req_progress(mrc_conn *c, mrc_time now);
MRC__PRIVATE uint64_t mrc__rcvd_newly(uint32_t *last, uint32_t rcvd);
/* the parts of a SACK's processing both SACK handlers run (the general one, the fast path) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__req_losses_scan(mrc_endpoint *ep, mrc_conn *c, int why);
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__txl_used(mrc_conn *c);
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__txl_span(mrc_conn *c);
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__txl_room(mrc_conn *c);
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__req_slack_steady(const mrc_endpoint *ep, const mrc_conn *c);
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__req_losses_none(const mrc_endpoint *ep, mrc_conn *c);
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__req_detect_losses(mrc_endpoint *ep, mrc_conn *c, int why);
MRC__PRIVATE MRC__ALWAYS_INLINE uint64_t mrc__req_sack_bits(const mrc_conn *c, uint64_t bm, uint32_t base, int32_t hi);
MRC__PRIVATE MRC__SIZE_COLD bool mrc__req_sack_sel(mrc_conn *c, uint64_t bm, uint32_t base, int32_t hi);
MRC__PRIVATE MRC__SIZE_COLD uint32_t mrc__sack_rcvd_cap(mrc_conn *c, uint32_t avail);
MRC__PRIVATE MRC__SIZE_COLD void mrc__sack_mpr(mrc_conn *c, uint32_t mpr);
/* the SACK, NACK and AETH handlers: mrc__recv calls them for a QP in RTS (it drops the packet for others) */
MRC__PRIVATE int mrc__req_on_sack(mrc_conn *c, const mrc_pkt *k, mrc_time now);
MRC__PRIVATE int mrc__req_on_nack(mrc_conn *c, const mrc_pkt *k, mrc_time now);
MRC__PRIVATE int mrc__req_on_aeth(mrc_conn *c, const mrc_pkt *k, mrc_time now);
MRC__PRIVATE void mrc__req_on_rto(mrc_conn *c, mrc_time now);
MRC__PRIVATE void mrc__req_on_tlp(mrc_conn *c, mrc_time now);
MRC__PRIVATE void mrc__req_on_reo(mrc_conn *c, mrc_time now);

/* ====== src/requester.c ========================================================================================= */
/* ================================================================================================================
 * REQUESTER - src/requester.c
 * Owns: the send queue and segmentation (every packet carries METH + RETH, VA advanced per packet), PSN
 * assignment inside the MPR window and the CC window, the per-PSN records of [win_base, snd_nxt), SACK/NACK/AETH
 * processing, loss detection, retransmission (always on another EV, BTH rtx set), the RTO with linear then
 * exponential back-off, the tail-loss probe, and in-order send completions.
 *
 * Loss detection (docs/PROTOCOL.md Q5 reordering slack) is time-ordered and O(1) amortised: every record in flight is
 * on the transmit list in the order of its latest transmission (appended when sent, unlinked when acknowledged or
 * judged lost); when a SACK shows that a transmission sent at time T arrived, every record still in flight sent before
 * T - reorder_slack is declared lost, popping from the head of the list. A trim NACK retransmits at once; the RTO
 * and the tail-loss probe are backstops.
 * The requester's fast paths (new data on a clean QP; the SACK that advances the cumulative acknowledgement) sit
 * beside the general transmit and receive paths in src/endpoint.c and call the functions below.
 * Calls: codec, state, timers, sched, cc, path, path_policy, qp.
 * ============================================================================================================== */

/* ---- posting ------------------------------------------------------------------------------------------------ */
MRC_API int mrc_conn_post_write(mrc_conn *c, const mrc_write *w, mrc_time now) {
    mrc__wr *wr;
    if (!c || !c->ep || !w) return MRC_ERR_INVAL;
    (void)mrc__clock_ctl(c->ep, now); /* out of line: a post is rarer than packets */
    if (w->opcode >= MRC_WR_SEND && w->opcode <= MRC_WR_ATOMIC_FADD) return MRC_ERR_NOTSUP;
    if (w->opcode != MRC_WR_WRITE && w->opcode != MRC_WR_WRITE_IMM) return MRC_ERR_INVAL;
    if (w->flags & ~(uint32_t)(MRC_WR_UNSIGNALED | MRC_WR_SOLICITED)) return MRC_ERR_INVAL;
    if (w->len > MRC_MAX_MSG_LEN || (w->len && !w->buf)) return MRC_ERR_INVAL;
    if (w->remote_va > UINT64_MAX - w->len) return MRC_ERR_INVAL;
    if (c->state != MRC_QPS_RTS) return MRC_ERR_STATE;
    if (c->sq_tail - c->sq_head >= MRC_MAX_SQ) return MRC_ERR_FULL;
    wr = MRC__SQ(c, c->sq_tail);
    MRC_MEMSET(wr, 0, sizeof *wr);
    wr->wr_id = w->wr_id;
    wr->buf = (const uint8_t *)w->buf;
    wr->remote_va = w->remote_va;
    wr->len = w->len;
    wr->rkey = w->rkey;
    wr->imm = w->imm;
    wr->opcode = (uint8_t)w->opcode;
    wr->flags = (uint8_t)w->flags;
    /* rqmsn [inferred]: index of the receive WQE a Write-IMM consumes; plain writes carry the next one */
    wr->rqmsn = (w->opcode == MRC_WR_WRITE_IMM) ? c->next_rqmsn++ : c->next_rqmsn;
    c->sq_tail++;
    mrc__sched_tx(c);
    return MRC_OK;
}

/* ---- the send window: per-PSN records of [win_base, snd_nxt) in the in-flight pool -------------------------- */
/* acknowledged (a PSN in [win_base, snd_nxt), which surely has a record; out of line under -Os: two callers) */
MRC__PRIVATE MRC__SIZE_NOINLINE bool mrc__req_acked(const mrc_conn *c, uint32_t psn) {
    return (mrc__blk(c, psn)->acked >> (psn & 63u)) & 1u;
}
/* the acknowledged bits of PSNs base .. base + 63 (0 where no block: outside [win_base, snd_nxt), masked by the caller)
 * */
MRC__PRIVATE MRC__SIZE_NOINLINE uint64_t mrc__req_acked64(const mrc_conn *c, uint32_t base) {
    uint32_t sh = base & 63u;
    const mrc__pblk *b = mrc__blk(c, base);
    uint64_t w = b ? b->acked >> sh : 0;
    if (sh && (b = mrc__blk(c, (base + 64u) & MRC_PSN_MASK)) != (const mrc__pblk *)0) w |= b->acked << (64u - sh);
    return w;
}
/* The cumulative acknowledgement moved from old_base to win_base: the blocks it passed are retained, and the block of
 * win_base too when nothing is left in flight (a QP with nothing outstanding holds no live memory, so idle QPs cannot
 * pin the pool; a block handed to it for its next PSN is kept). Amortised O(1) per PSN acknowledged. */
MRC__PRIVATE MRC__INLINE void mrc__req_release(mrc_conn *c, uint32_t old_base) {
    uint32_t p = old_base & ~(MRC__BLK_PSNS - 1u);
    while (mrc_psn_diff((p + MRC__BLK_PSNS) & MRC_PSN_MASK, c->win_base) <= 0) {
        mrc__pool_retain(c, p);
        p = (p + MRC__BLK_PSNS) & MRC_PSN_MASK;
    }
    if (c->win_base == c->snd_nxt && (c->win_base & (MRC__BLK_PSNS - 1u))) {
        mrc__pool_retain(c, c->win_base);
        c->nxt_ret = 1;
    }
}
/* The block of new PSN psn, before it is sent. Entering a new block (slot 0), the block of PSN psn - MRC_MAX_INFLIGHT
 * - 1 leaves the span of MRC_MAX_INFLIGHT PSNs behind snd_nxt in which records are kept (where a QP with records of
 * its own overwrote them): it is reused for psn if psn needs one, else freed - so a QP holds at most
 * MRC_MAX_INFLIGHT / 64 + 1 blocks and a pool of that many per QP never reclaims. A retained block at psn's entry
 * is its own block resumed after an idle spell (or, entered at slot 0, a lap: fresh); a missing one is taken
 * (mrc__req_new saw one free or retained). O(1). The commit of mrc__req_emit_data calls it only for a PSN with no
 * block, at slot 0, or with nxt_ret set (the only way a block can be retained mid-way): else the block is live. */
MRC__PRIVATE MRC__NOINLINE void mrc__pool_enter(mrc_conn *c, uint32_t psn) {
    mrc_endpoint *ep = c->ep;
    uint32_t t = MRC__BTAB_IDX(psn), i;
    c->nxt_ret = 0;
    if (!(psn & (MRC__BLK_PSNS - 1u))) {
        uint32_t te = MRC__BTAB_IDX((psn - MRC_MAX_INFLIGHT - 1u) & MRC_PSN_MASK);
        if (te != t && c->btab[te]) {
            i = c->btab[te] - 1u;
            MRC_ASSERT(mrc__pool_ret(ep, i));
            if (c->btab[t]) {
                mrc__pool_release(c, te);
            } else {
                mrc__pool_unretain(ep, i);
                c->btab[te] = 0;
                mrc__pool_give(c, psn, i);
                mrc__pool_peak(ep);
                return;
            }
        }
    }
    if (!c->btab[t]) {
        mrc__pool_take(c, psn);
    } else if (mrc__pool_ret(ep, i = c->btab[t] - 1u)) {
        mrc__pool_unretain(ep, i);
        if (!(psn & (MRC__BLK_PSNS - 1u))) mrc__pool_give(c, psn, i);
        mrc__pool_peak(ep);
    }
}

/* ---- no usable path (docs/PROTOCOL.md 7.11) ------------------------------------------------------------------------
 * A QP in RTS whose work finds no EV to carry it (every EV ASSUMED_BAD, OFF or DENIED) is never silent: the failed
 * pick arms this timer (O(1)); ASSUMED_BAD EVs keep being probed meanwhile, and an EV back in a rotation (revival,
 * rebuild) disarms it. At expiry, still no EV and still work: MRC_ERR_NOPATH. The bound is recovery.nopath_timeout_ns, or by
 * default as long as the QP's RTO retries would last, so a QP without a path fails no later than one on a dead
 * path; with infinite retries (retry_exp 25, or timeout 0) the timer re-arms and the QP waits, still probing. */
MRC__PRIVATE MRC__INLINE bool mrc__req_has_work(const mrc_conn *c) {
    return c->sq_done != c->sq_tail || c->snd_una != c->snd_nxt;
}
MRC__PRIVATE bool mrc__retry_infinite(const mrc_conn *c) { return c->attr.retry_exp == 25 || c->attr.timeout == 0; }
MRC__PRIVATE mrc_time mrc__nopath_bound(const mrc_conn *c) {
    mrc_time t = 0;
    uint32_t n;
    if (c->ep->cfg.recovery.nopath_timeout_ns) return c->ep->cfg.recovery.nopath_timeout_ns;
    if (mrc__retry_infinite(c)) return (mrc_time)1024u << 24;
    for (n = 0; n <= (uint32_t)c->attr.retry_linear + c->attr.retry_exp; n++) t += mrc__rto_interval(c, n);
    return t;
}
MRC__PRIVATE void mrc__nopath_arm(mrc_conn *c) {
    if (c->nopath_deadline != MRC_TIME_NEVER) return;
    c->nopath_deadline = c->ep->now + mrc__nopath_bound(c);
    /* probes are now the only way back: the back-off a long outage built up (up to 1024 rounds) would outlast the
     * bound, so it is cut to MRC__EVP_NOPATH_BACKOFF while no EV carries data (7.5) */
    if (c->evp_backoff > MRC__EVP_NOPATH_BACKOFF) {
        c->evp_backoff = MRC__EVP_NOPATH_BACKOFF;
        if (c->evp_deadline != MRC_TIME_NEVER)
            c->evp_deadline = MRC__MIN(c->evp_deadline, c->ep->now + mrc__evp_interval(c));
    }
    mrc__timer_update(c);
}
MRC__PRIVATE void mrc__nopath_expire(mrc_conn *c, mrc_time now) {
    c->nopath_deadline = MRC_TIME_NEVER;
    if (c->state != MRC_QPS_RTS || !mrc__req_has_work(c) || mrc__ev_can_carry(c)) return;
    if (!c->ep->cfg.recovery.nopath_timeout_ns && mrc__retry_infinite(c)) {
        c->nopath_deadline = now + mrc__nopath_bound(c);
        return;
    }
    mrc__conn_error(c, MRC_ERR_NOPATH, 0, 0, now);
}

/* ---- loss bookkeeping --------------------------------------------------------------------------------------- */
/* The retransmission queue holds each lost record once (MRC__PR_QUEUED), in queue order: appended when judged lost
 * from SACK evidence, put at the front when a NACK, a trim or the RTO names it. A record leaves it when it is
 * retransmitted or acknowledged. */
/* (out of line under -Os: the RTO's handler and mrc__req_mark_lost each had a copy) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__rtxq_push(mrc_conn *c, uint32_t psn, mrc__psnrec *r, bool front) {
    r->flags |= MRC__PR_QUEUED;
    mrc__plist_push(c, &c->rtxq, psn, r, front);
}
MRC__PRIVATE void mrc__rtxq_remove(mrc_conn *c, uint32_t psn, mrc__psnrec *r) {
    if (!(r->flags & MRC__PR_QUEUED)) return;
    r->flags &= (uint8_t)~MRC__PR_QUEUED;
    mrc__plist_unlink(c, &c->rtxq, psn, r);
}
/* A transmission judged lost without a trim makes its EV suspect (docs/PROTOCOL.md 7.4). With ev_confirm_loss (Q5
 * reordering slack) a loss seen only as a SACK hole waits until the retransmission is SACKed with its own timestamp -
 * the original never arrived - and is forgotten if an earlier transmission is SACKed instead; a second loss of the same
 * PSN, or a timeout, demotes at once. (Demoting an ECMP-hashed EV at once instead was tried and not adopted:
 * docs/DESIGN.md P25 hashed-EV bypass knobs.) */
/* Out of line: cold code, smaller so on Cortex-M4 than in line in its callers (gcc -Os inlined it) */
MRC__PRIVATE MRC__NOINLINE void mrc__req_suspect(mrc_conn *c, mrc__psnrec *r, int why, mrc_time sent) {
    bool defer = c->ep->cfg.ev.confirm_loss && c->ep->cfg.tseth && (why == MRC__LOSS_SACK || why == MRC__LOSS_PROBE);
    MRC__RARE_INC(c->st.ev_losses);
    mrc__ev_lost_at(c, r->ev, r->txseq, sent); /* P39 host losses */
    if (r->flags & MRC__PR_EVLOST) /* lost twice: no more doubt (P35 sweeps: the fault was there when it was last sent)
                                      */
        mrc__ev_on_loss(c, (int)r->ev_lost, true, sent);
    r->flags &= (uint8_t)~(MRC__PR_EVLOST | MRC__PR_EVCONF);
    if (defer) {
        r->ev_lost = r->ev;
        r->flags |= MRC__PR_EVLOST;
        mrc__ev_hold(c, r->ev); /* P29 suspect hold: out of the rotation until the verdict */
    } else {
        mrc__ev_on_loss(c, (int)r->ev, false, sent);
    }
}
#define MRC__RTX_AT(m, why) (offsetof(mrc_conn_stats, m) == offsetof(mrc_conn_stats, rtx_nack) + 8u * (why))
MRC__STATIC_ASSERT(MRC__RTX_AT(rtx_sack_hole, MRC__LOSS_SACK) && MRC__RTX_AT(rtx_rto, MRC__LOSS_RTO) &&
                       MRC__RTX_AT(rtx_probe_loss, MRC__LOSS_PROBE) && MRC__LOSS_NACK > MRC__LOSS_PROBE &&
                       MRC__LOSS_TRIM > MRC__LOSS_PROBE && MRC__LOSS_TRIM_LH > MRC__LOSS_PROBE,
                   rtx_counters);
MRC__PRIVATE void mrc__req_mark_lost(mrc_conn *c, uint32_t psn, int why) {
    mrc__psnrec *r = MRC__REC(c, psn);
    if (!(r->flags & MRC__PR_INFLIGHT)) return;
    mrc__plist_unlink(c, &c->txl, psn, r);
    r->flags = (uint8_t)((r->flags & ~MRC__PR_INFLIGHT) | MRC__PR_LOST);
    mrc__cc_on_loss(c, mrc__rec_nominal(c, psn, r), why, c->ep->now);
    if (why == MRC__LOSS_TRIM) mrc__ev_on_trim(c, (int)r->ev);          /* fabric congestion on that path */
    else if (why == MRC__LOSS_TRIM_LH) MRC__RARE_INC(c->st.ev_trims);   /* the receiver's link: not the path */
    else if (why != MRC__LOSS_NACK) mrc__req_suspect(c, r, why, MRC__REC_SENT(c, psn)); /* silent: the path is suspect
                                                                                           */
    /* rtx_sack_hole, rtx_rto, rtx_probe_loss by their index past rtx_nack (a NACK's, a trim's: rtx_nack) */
    MRC__RARE_INC(*(uint64_t *)(void *)((uint8_t *)&c->st + offsetof(mrc_conn_stats, rtx_nack) +
                                        8u * (unsigned)(why <= MRC__LOSS_PROBE ? why : 0)));
    if (!(r->flags & MRC__PR_QUEUED)) mrc__rtxq_push(c, psn, r, why >= MRC__LOSS_NACK || why == MRC__LOSS_RTO);
    MRC__TRACE(c->ep, MRC_TRACE_LOSS, psn, why);
}
/* The transmissions since the transmit list's head was sent (the list not empty), from its record; txl_lo renewed to
 * the head's count */
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__txl_used(mrc_conn *c) {
    uint32_t used = (mrc__txseq)(c->tx_count - MRC__REC(c, c->txl.head)->txseq);
    c->txl_lo = c->tx_count - used;
    return used;
}
/* ... or a bound of them below MRC__TXL_SPAN, from txl_lo without the record: the head only ever gets newer (the list
 * is in transmission order, appended at the tail, and every transmission appends). The record is read, and the bound
 * renewed, only when the bound does not prove the room; every path asks this way, so all leave txl_lo alike (and
 * tx_count - txl_lo stays within a span of the head's count: no wrap) */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__txl_span(mrc_conn *c) {
    uint32_t used = c->tx_count - c->txl_lo;
    return used < MRC__TXL_SPAN ? used : mrc__txl_used(c);
}
/* mrc__txl_span's test (the list not empty): room for one more transmission (written out: as mrc__txl_span(c) <
 * MRC__TXL_SPAN the transmit fast paths' code came out 7 instructions per packet longer with gcc 12 -O2, measured) */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__txl_room(mrc_conn *c) {
    return (uint32_t)(c->tx_count - c->txl_lo) < MRC__TXL_SPAN || mrc__txl_used(c) < MRC__TXL_SPAN;
}
/* Room for one more transmission: the oldest record in flight that has seen MRC__TXL_SPAN later transmissions go
 * by (2 windows) is treated as lost. Called before the EV of the new transmission is chosen, since declaring a loss
 * can demote an EV. Only the head can qualify: the list is in transmission order. */
MRC__PRIVATE void mrc__txl_reserve(mrc_conn *c) {
    if (c->txl.n && !mrc__txl_room(c)) mrc__req_mark_lost(c, c->txl.head, MRC__LOSS_SACK);
}
/* Declare lost every record in flight sent more than the reordering slack before the latest acked transmission, and
 * set P32's reorder deadline from the head left, as mrc__reo_deadline would (the slack computed once: a second
 * mrc__slack at the same instant finds nothing more to decay). The SACK handlers only (the general one and the SACK
 * fast path), before mrc__req_timers_x(c, MRC__TM_SACK) or mrc__req_timers_arm. The scan runs only with reordering or
 * loss: out of line under -Os. */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__req_losses_scan(mrc_endpoint *ep, mrc_conn *c, int why) {
    mrc_time slack;
    if (ep->cfg.recovery.reorder_slack_ns || c->reo_mult > 1) {
        slack = mrc__slack(c);
    } else { /* mrc__slack at multiplier 1 (or 0): the floor, max(min(s, srtt), s) = s */
        slack = mrc__slack_base(c);
    }
    while (c->txl.n) {
        mrc_time hs = MRC__REC_SENT(c, c->txl.head);
        if (hs + slack > c->lat_acked_sent) {
            if (hs < c->lat_acked_sent && MRC__KNOB(ep, reorder_timer) != 0u)
                c->reo_deadline = MRC__MAX(mrc__reo_at(c, hs, slack), ep->now + 1u);
            break;
        }
        mrc__req_mark_lost(c, c->txl.head, why); /* unlinks it */
    }
}
/* the slack's multiplier would not decay (mrc__slack) */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__req_slack_steady(const mrc_endpoint *ep, const mrc_conn *c) {
    return c->reo_mult <= 1 || ep->cfg.recovery.reorder_slack_ns;
}
/* A head sent after the latest acknowledged send time (the in-order case) is neither lost nor late whatever the slack:
 * unless the slack's multiplier would decay (a side effect of mrc__slack), nothing more to do (this test in line) */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__req_losses_none(const mrc_endpoint *ep, mrc_conn *c) {
    c->reo_deadline = MRC_TIME_NEVER;
    return mrc__req_slack_steady(ep, c) && (!c->txl.n || MRC__REC_SENT(c, c->txl.head) > c->lat_acked_sent);
}
/* both (out of line under -Os: the general SACK handler and P37 bursts; the SACK fast path keeps the test in line) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__req_detect_losses(mrc_endpoint *ep, mrc_conn *c, int why) {
    if (!mrc__req_losses_none(ep, c)) mrc__req_losses_scan(ep, c, why);
}

/* ---- transmit ----------------------------------------------------------------------------------------------- */
MRC__STATIC_ASSERT(MRC_OP_WRITE_MIDDLE == MRC_OP_WRITE_FIRST + 1 && MRC_OP_WRITE_LAST_IMM == MRC_OP_WRITE_LAST + 1 &&
                       MRC_OP_WRITE_ONLY == MRC_OP_WRITE_LAST + 2 && MRC_OP_WRITE_ONLY_IMM == MRC_OP_WRITE_LAST + 3,
                   write_opcodes);
/* A requester packet's mrc_txinfo: zeroed, EV slot, DSCP class cls, opcode, header length (the data packet and the
 * probe; out of line under -Os) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__req_ti(const mrc_conn *c, int slot, unsigned cls, uint32_t opcode, uint32_t hl,
                                                 mrc_txinfo *ti) {
    MRC_MEMSET(ti, 0, sizeof *ti);
    mrc__ev_txinfo(c, (uint16_t)slot, ti);
    ti->dscp_class = (uint8_t)cls;
    ti->dscp = c->ep->cfg.dscp[cls];
    ti->opcode = (uint8_t)opcode;
    ti->peer = c->attr.peer;
    ti->qpn = c->qpn;
    ti->hdr_len = hl;
}
/* Emit packet k of send-queue entry wr_idx (free-running index) as PSN psn: a retransmission when rbk is psn's block
 * (the caller's, which read the record), a new PSN when it is null. Checks everything that can fail before changing
 * any state. Returns bytes written, 0 when no EV is usable now or, for a retransmission not forced, when the
 * congestion window is closed (mrc__req_rtx's test; a new PSN's window is the caller's to check), MRC_ERR_NOBUF. */
MRC__PRIVATE MRC__NOINLINE int mrc__req_emit_data(mrc_conn *c, uint32_t psn, uint32_t wr_idx, uint32_t k, mrc__pblk *rbk,
                                    uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti) {
    mrc_endpoint *ep = c->ep;
    mrc__wr *wr = MRC__SQ(c, wr_idx);
    const bool rtx = rbk != (mrc__pblk *)0;
    mrc__pblk *bk;
    mrc__psnrec *r;
    /* every packet but the last: a full path MTU, no immediate, no pad. mrc__wr_npkts and mrc__pkt_len without the
     * division: k is below the packet count, so packet k is the last when the next one would start at or past len,
     * and then holds the rest of len (0 for an empty message). 32-bit: (k + 1) path MTUs, the packet count's at
     * most, are below len + the path MTU <= 2^31 + 2^12 */
    const uint32_t off = k << c->mtu_shift;
    bool last = wr->len <= off + (1u << c->mtu_shift), imm = last && wr->opcode == MRC_WR_WRITE_IMM;
    uint32_t plen = last ? wr->len - off : 1u << c->mtu_shift;
    uint32_t pad = (4u - (plen & 3u)) & 3u;
    uint32_t hl = mrc__data_hdr_len(c, imm), nominal = hl + plen + pad + 4u + MRC_NOMINAL_HDR; /* mrc__nominal */
    size_t need = (flags & MRC_TX_COPY) ? (size_t)hl + (size_t)plen + (size_t)pad : (size_t)hl;
    uint32_t opcode, a;
    uint8_t *q;
    int slot;
    uint8_t cls;
    /* mrc__cc_can_send: READY, the window opens on an ACK */
    if (rtx && !c->rtx_force && !mrc__cc_can_send(c, nominal)) return 0;
    if (cap < need) return MRC_ERR_NOBUF;
    mrc__txl_reserve(c);
    /* a retransmission avoids its last EV */
    slot = mrc__ev_pick(c, rtx ? (int)rbk->rec[psn & (MRC__BLK_PSNS - 1u)].ev : -1);
    if (slot < 0) { /* no EV can carry data: never silent (7.11) */
        mrc__nopath_arm(c);
        return 0;
    }

    /* FIRST, MIDDLE; LAST, its IMM; ONLY, its IMM: consecutive codes (build-checked). The fast paths' copy
     * (mrc__fast_data_hdrs) stays as choices: one helper in either form cost 60 B here or, as arithmetic, 2
     * instructions per packet there on x86-64 and 8-10 on Cortex-M4 */
    opcode = !last ? (uint32_t)MRC_OP_WRITE_FIRST + (uint32_t)(k != 0u)
                   : (uint32_t)MRC_OP_WRITE_LAST + (k == 0u ? 2u : 0u) + (uint32_t)imm;
    a = last;
    if (ep->cfg.ack.request_every) {
        a = 0;
        if (++c->pkts_since_areq >= ep->cfg.ack.request_every) {
            a = 1;
            c->pkts_since_areq = 0;
        }
    }
    /* the headers stored straight at their fixed offsets from the codec's tables, as the encoders would with these
     * values (each checked against its field's width when it was configured, attached or posted): BTH word 0's TVER
     * and P_Key from the QP's template, the solicited-event bit at its run-time position */
    mrc__st4(buf, MRC__FW(0, 4, MRC__BTH_OPCODE, opcode) |
                      (imm && (wr->flags & MRC_WR_SOLICITED) ? 1u << (13u - mrc__m_bit(&ep->cfg.wire) + 16u) : 0u) |
                      MRC__FW(0, 4, MRC__BTH_PAD, pad) | c->tx_bth0);
    mrc__st4(buf + 4, MRC__FW(4, 4, MRC__BTH_RESV8, 0u) | MRC__FW(4, 4, MRC__BTH_DEST_QP, c->attr.dest_qpn));
    mrc__st4(buf + 8, MRC__FW(8, 4, MRC__BTH_A, a) | MRC__FW(8, 4, MRC__BTH_RTX, rtx ? 1u : 0u) |
                          MRC__FW(8, 4, MRC__BTH_TS, ep->cfg.tseth ? 1u : 0u) | MRC__FW(8, 4, MRC__BTH_PSN, psn));
    mrc__st4(buf + MRC_BTH_LEN,
             MRC__FW(0, 4, MRC__METH_RQMSN, wr->rqmsn) | MRC__FW(0, 4, MRC__METH_MSN, mrc__wr_msn(wr_idx)));
    q = buf + MRC_BTH_LEN + MRC_METH_LEN;
    if (ep->cfg.tseth) {
        mrc__st4(q, MRC__FW(0, 4, MRC__TSETH_TS, mrc__ts_ctl(ep, ep->now)) | MRC__FW(0, 4, MRC__TSETH_TSR, 0u) |
                        MRC__FW(0, 4, MRC__TSETH_FTYPE, 1u));
        q += MRC_TSETH_LEN;
    }
    MRC__FPUT(q, MRC__RETH_VA, wr->remote_va + off);
    MRC__FPUT(q, MRC__RETH_RKEY, wr->rkey);
    MRC__FPUT(q, MRC__RETH_DMA_LEN, wr->len);
    if (imm) MRC__FPUT(q + MRC_RETH_LEN, MRC__IMMDT_IMM, wr->imm);
    MRC_ASSERT((uint32_t)(q - buf) + MRC_RETH_LEN + (imm ? (uint32_t)MRC_IMMDT_LEN : 0u) == hl);

    cls = !ep->cfg.trimmable ? MRC_DSCP_NO_TRIM : rtx ? MRC_DSCP_TRIMMABLE_RETX : MRC_DSCP_TRIMMABLE;
    mrc__req_ti(c, slot, cls, opcode, hl, ti);
    ti->pad = (uint8_t)pad;
    ti->payload_len = plen;
    ti->payload = plen ? wr->buf + off : (const uint8_t *)0;
    if (flags & MRC_TX_COPY) {
        if (plen) MRC_MEMCPY(buf + hl, ti->payload, (size_t)plen);
        if (pad) MRC_MEMSET(buf + hl + plen, 0, (size_t)pad);
        ti->payload = buf + hl;
    }

    /* commit */
    bk = rtx ? rbk : mrc__blk(c, psn);
    if (!rtx && (!bk || !(psn & (MRC__BLK_PSNS - 1u)) || c->nxt_ret)) { /* else: its live block, as before */
        mrc__pool_enter(c, psn);
        bk = mrc__blk(c, psn);
    }
    r = &bk->rec[psn & (MRC__BLK_PSNS - 1u)];
    if (!rtx) { /* a new PSN: fresh record */
        r->flags = last ? 0u : MRC__PR_FULL;
        r->wr = (mrc__sqslot)(wr_idx & (MRC_MAX_SQ - 1u));
        r->ev_lost = 0; /* none: flags clear */
        bk->acked &= ~((uint64_t)1 << (psn & 63u));
    } else {
        mrc__rtxq_remove(c, psn, r); /* the queue's head */
        r->flags = (uint8_t)((r->flags & ~MRC__PR_LOST) | MRC__PR_RTX);
        MRC__RARE_INC(c->st.tx_rtx);
    }
    if (c->rto_deadline == MRC_TIME_NEVER) c->rto_start = ep->now;
    bk->sent[psn & (MRC__BLK_PSNS - 1u)] = ep->now;
    r->ev = (mrc__evslot)slot;
    r->flags |= MRC__PR_INFLIGHT;
    r->txseq = (mrc__txseq)c->tx_count++;
    mrc__plist_push(c, &c->txl, psn, r, false); /* the newest transmission */
    mrc__cc_on_send(c, nominal);
    MRC__CNT(c->st.tx_data++);
    MRC__CNT(c->st.tx_bytes += plen);
    c->tx_nominal += nominal; /* as the responder counts rcvd_bytes */
    c->tlp_base = ep->now; /* (mrc__poll_tx's now: its caller's mrc__clock) */
    MRC__TRACE(ep, MRC_TRACE_TX, (opcode << 24) | psn, ti->ev);
    return (int)need;
}
/* Reliability probe i: the tail-loss probe (i = 0) goes on the next EV of the rotation; a probe of an ASSUMED_BAD
 * EV (i > 0) goes on that EV. Returns 0 when the tail-loss probe has no EV to go on. */
MRC__PRIVATE MRC__NOINLINE int mrc__req_emit_probe(mrc_conn *c, unsigned i, uint8_t *buf, mrc_txinfo *ti) {
    mrc_endpoint *ep = c->ep;
    mrc__probe *pr = &c->probes[i];
    int slot = i                               ? (int)pr->slot
               : (c->tlp2 & MRC__TLP2_OUT) ? mrc__ev_pick(c, (int)c->tlp2_slot) /* P33 TLP copies: the copy, elsewhere
                                                                                   */
                                           : mrc__ev_pick(c, -1);
    if (slot < 0) {
        mrc__nopath_arm(c);
        return 0;
    }
    /* the headers stored straight at their fixed offsets, as mrc_bth_encode and mrc_peth_encode would store them
     * (cap >= MRC_HDR_MAX; every value checked when it was configured or attached): BTH word 0 from the QP's
     * template, BTH word 1 (DEST_QP) and PETH word 2 (SPDCID, DPDCID: SETH's positions) from the SACK fast path's */
    mrc__st4(buf, MRC__FW(0, 4, MRC__BTH_OPCODE, MRC_OP_PROBE_REQ) | c->tx_bth0);
    MRC_MEMCPY(buf + 4, &c->tx_sack[1], 4);
    /* Q21 probes consume no PSN: a probe consumes no PSN; it carries the next one unchanged */
    mrc__st4(buf + 8, MRC__FW(8, 4, MRC__BTH_PSN, c->snd_nxt));
    buf += MRC_BTH_LEN;
    mrc__st4(buf, 0u); /* type, nxt, vendor_info */
    mrc__st4(buf + 4, MRC__FW(4, 4, MRC__PETH_PROBE_ID, ++c->probe_id));
    MRC_MEMCPY(buf + 8, &c->tx_sack[2], 4);
    mrc__st4(buf + 12, MRC__FW(12, 4, MRC__PETH_TS, mrc__ts_ctl(ep, ep->now)) | MRC__FW(12, 4, MRC__PETH_TSR, 0u) |
                           MRC__FW(12, 4, MRC__PETH_FTYPE, 1u));
    mrc__req_ti(c, slot, MRC_DSCP_CONTROL, MRC_OP_PROBE_REQ, MRC_BTH_LEN + MRC_PETH_LEN, ti);
    c->probes_due &= ~(1u << i);
    if (i == 0 && (c->tlp2 & MRC__TLP2_DUE)) { /* P33 TLP copies: this copy is the other one; the next goes at once */
        c->tlp2 = MRC__TLP2_OUT;
        c->tlp2_sent = ep->now;
        c->tlp2_slot = (mrc__evslot)slot;
        c->probes_due |= 1u;
    }
    c->probe_sent[i] = ep->now; /* (mrc__poll_tx's now, as mrc__req_emit_data's) */
    pr->slot = (mrc__evslot)slot;
    if (pr->kind == MRC__PROBE_VER) { /* P35 sweeps: unanswered after mrc__ev_ver_to, its EV is taken as dead */
        mrc_time t = mrc__deadline_ctl(ep->now, mrc__ev_ver_to(c));
        if (t < c->ver_deadline) c->ver_deadline = t;
    }
    if (i == 0) {
        pr->kind = MRC__PROBE_TLP;
        c->tlp_base = ep->now;
        MRC__RARE_INC(c->st.tx_probes);
    } else {
        MRC__RARE_INC(c->st.ev_probes);
    }
    return MRC_BTH_LEN + MRC_PETH_LEN;
}
/* Retransmissions first (oldest loss first), then new data. */
MRC__PRIVATE int mrc__req_tx(mrc_conn *c, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti) {
    int n;
    uint32_t psn, wr_idx, k;
    mrc__pblk *bk = (mrc__pblk *)0;
    if (c->probes_due) {
        /* only the tail-loss probe can find no EV; it stays due until one comes back, but must not hold back the
         * probes of ASSUMED_BAD EVs queued behind it, which are what brings an EV back */
        uint32_t due = c->probes_due;
        unsigned i;
        do {
            i = mrc__ctz64(due);
            n = mrc__req_emit_probe(c, i, buf, ti); /* (cap >= MRC_HDR_MAX) */
            due &= ~1u;
        } while (n == 0 && i == 0 && due);
        if (n > 0) mrc__req_timers_x(c, MRC__TM_TX);
        return n;
    }
    if (c->rtxq.n) { /* the queue's head; 0 also when the window is closed to it (unless forced): its nominal size is
                        the emit's */
        mrc__psnrec *r;
        const mrc__wr *wr;
        psn = c->rtxq.head;
        bk = mrc__blk(c, psn);
        r = &bk->rec[psn & (MRC__BLK_PSNS - 1u)];
        MRC_ASSERT((r->flags & (MRC__PR_LOST | MRC__PR_QUEUED)) == (MRC__PR_LOST | MRC__PR_QUEUED));
        wr = &c->sq[r->wr];
        wr_idx = mrc__wr_index(c, r->wr);
        k = (psn - wr->first_psn) & MRC_PSN_MASK;
    } else if (mrc__req_can_send_new(c)) {
        psn = c->snd_nxt;
        wr_idx = c->sq_send;
        k = c->sq_sent;
    } else {
        return 0;
    }
    n = mrc__req_emit_data(c, psn, wr_idx, k, bk, buf, cap, flags, ti);
    if (n <= 0) return n;
    if (bk) {
        c->rtx_force = 0; /* the record left the queue in the commit */
    } else {
        mrc__wr *wr = MRC__SQ(c, wr_idx);
        if (k == 0) {
            wr->first_psn = psn;
            if (wr->opcode == MRC_WR_WRITE_IMM) c->wimm_out++;
        }
        if (++c->sq_sent == mrc__wr_npkts(c, wr)) {
            c->sq_send++;
            c->sq_sent = 0;
#if MRC__TX_RUN
            c->tpl.wr = 0; /* the transmit template's message is sent */
#endif
        }
        c->snd_nxt = MRC__PSN_INC(c->snd_nxt);
    }
    mrc__req_timers_x(c, MRC__TM_TX);
    return n;
}

/* ---- acknowledgements --------------------------------------------------------------------------------------- */
MRC__PRIVATE void mrc__req_ack_one(mrc_conn *c, uint32_t psn) {
    mrc__pblk *b = mrc__blk(c, psn);
    mrc__psnrec *r = &b->rec[psn & (MRC__BLK_PSNS - 1u)];
    uint64_t bit = (uint64_t)1 << (psn & 63u);
    if (b->acked & bit) return;
    b->acked |= bit;
    if (r->flags & MRC__PR_INFLIGHT) {
        mrc__cc_on_ack(c, mrc__rec_nominal(c, psn, r));
        mrc__plist_unlink(c, &c->txl, psn, r);
    }
    mrc__rtxq_remove(c, psn, r); /* a lost PSN acknowledged after all (an earlier transmission arrived late) */
    r->flags &= (uint8_t)~(MRC__PR_INFLIGHT | MRC__PR_LOST);
}
/* Send completions in work-request order once every PSN of the message is acknowledged. */
MRC__PRIVATE void mrc__req_complete(mrc_conn *c) {
    bool any = false;
    while (c->sq_done != c->sq_send) {
        mrc__wr *wr = MRC__SQ(c, c->sq_done);
        uint32_t last = (wr->first_psn + mrc__wr_npkts(c, wr) - 1u) & MRC_PSN_MASK;
        if (mrc_psn_diff(c->snd_una, last) <= 0) break;
        wr->status = MRC_OK;
        if (wr->opcode == MRC_WR_WRITE_IMM) c->wimm_out--;
        c->sq_done++;
        MRC__CNT(c->st.msgs_done++);
        any = true;
    }
    if (any) mrc__sched_ev(c);
}
MRC__PRIVATE void mrc__req_rtt_sample(mrc_conn *c, mrc_time rtt) {
    if (rtt < c->rtt_min) c->rtt_min = rtt;
    c->srtt = c->srtt - (c->srtt >> 3) + (rtt >> 3);
}
/* The cumulative acknowledgement moved: the retry budget, the RTO and the tail-loss probe start again from now. */
MRC__PRIVATE MRC__INLINE void mrc__req_progress(mrc_conn *c, mrc_time now) {
    c->retries = c->retry_spent = 0;
    c->rto_heard = 0;
    c->tlp_count = 0;
    c->rto_start = now;
    c->tlp_base = now;
}
/* A timestamp echo t (unwrapped) names a transmission before the one sent at sent (t is that transmission's time to
 * 2^ts_shift ns): the verdict below and the NACK's test (out of line under -Os) */
MRC__PRIVATE MRC__SIZE_NOINLINE bool mrc__req_echo_before(const mrc_conn *c, mrc_time t, mrc_time sent) {
    return mrc__deadline_add(t, (mrc_time)1 << c->ep->cfg.wire.ts_shift) <= sent;
}
/* The SACK that names a retransmitted PSN says, by its timestamp echo t, which transmission arrived (Q5 reordering
 * slack, 7.4): an earlier one - the loss was reordering, the tolerance widens - or the retransmission - the original
 * was lost, and its EV, remembered with the PSN (MRC__PR_EVLOST), is suspect. The first such SACK decides when the PSN
 * is fresh (not acknowledged yet); with ev.confirm_late (P27 late-SACK verdict) also when another SACK's bitmap or
 * cumulative point acknowledged it first, or the naming SACK is stale (SACKs reorder on the way back like data on the
 * way out), as long as the verdict is pending and the record lives. Returns whether it decided. In line where the
 * compiler finds it worth it (the SACK fast path's mrc__sack_rtx, fresh: a window with holes, half the SACKs). */
MRC__PRIVATE MRC__INLINE bool mrc__req_rtx_verdict(mrc_conn *c, mrc__pblk *b, uint32_t psn, mrc_time t, bool fresh,
                                                  mrc_time now) {
    mrc__psnrec *r = &b->rec[psn & (MRC__BLK_PSNS - 1u)];
    mrc_time sent = b->sent[psn & (MRC__BLK_PSNS - 1u)];
    bool earlier; /* the echo names a transmission before the latest: an earlier one arrived */
    if (!(r->flags & MRC__PR_RTX)) return false;
    earlier = mrc__req_echo_before(c, t, sent);
    if ((r->flags & MRC__PR_EVCONF) && earlier) {
        /* P40 overtaken originals: the loss this PSN's verdict confirmed was none - an earlier transmission arrived
         * after the retransmission (its duplicate's SACK echoes it): the retransmission overtook it on a faster path.
         * The tolerance widens, and the EV comes back. Once per confirmation. */
        r->flags &= (uint8_t)~MRC__PR_EVCONF;
        mrc__reo_widen(c, now);
        MRC__RARE_INC(c->st.ev_unconfirmed);
        mrc__ev_undemote(c, r->ev_lost);
        return true;
    }
    if (!fresh && (!(r->flags & MRC__PR_EVLOST) || !mrc__ev_in_scope(c, c->ep->cfg.ev.confirm_late)))
        return false;
    if (earlier) {
        mrc__reo_widen(c, now);
        if (r->flags & MRC__PR_EVLOST) mrc__ev_unhold(c, r->ev_lost); /* P29 suspect hold: not lost, back in the
                                                                         rotation */
    } else if (r->flags & MRC__PR_EVLOST) {
        /* P35 sweeps: the original's send time was at least a minimum RTT before the retransmission's (its loss was
         * seen by the SACK of a packet sent after it) */
        mrc__ev_on_loss(c, (int)r->ev_lost, true, sent > c->rtt_min ? sent - c->rtt_min : 0u);
        r->flags |= MRC__PR_EVCONF;
    }
    r->flags &= (uint8_t)~MRC__PR_EVLOST;
    return true;
}
/* Bytes newly received according to a SACK's 24-bit rcvd_bytes (256-byte units, wrapping every 4 GiB) against the
 * last one seen. A value behind the last (an older SACK overtaken by a newer one: a delta in the upper half of
 * the 24-bit space) moves nothing and is not remembered. */
MRC__PRIVATE uint64_t mrc__rcvd_newly(uint32_t *last, uint32_t rcvd) {
    uint32_t rd = (rcvd - *last) & 0xFFFFFFu;
    if (rd >= 0x800000u) return 0;
    *last = rcvd & 0xFFFFFFu;
    return (uint64_t)rd << 8;
}
/* P38 SACKs validated whole: whether a SACK bitmap bm, whose first bit stands hi PSNs before snd_nxt, names a PSN at
 * or past snd_nxt (never sent); the general path and the SACK fast path both ask it */
MRC__PRIVATE MRC__INLINE bool mrc__sack_bits_unsent(int32_t hi, uint64_t bm) {
    return bm && (hi <= 0 || (hi < 64 && (bm >> hi)));
}
/* A SACK's selective part: of the bits bm (bit i: PSN base + i, hi >= 1 PSNs before snd_nxt), those inside
 * [win_base, snd_nxt) not acknowledged yet - to be acknowledged in order (one's acknowledgement changes no other's
 * bit: the bits are read first). Both SACK handlers */
MRC__PRIVATE MRC__ALWAYS_INLINE uint64_t mrc__req_sack_bits(const mrc_conn *c, uint64_t bm, uint32_t base, int32_t hi) {
    int32_t lo = mrc_psn_diff(c->win_base, base);
    if (lo < 64) {
        uint64_t inr = ~(uint64_t)0;
        if (lo > 0) inr &= ~(uint64_t)0 << lo;
        if (hi < 64) inr &= ((uint64_t)1 << hi) - 1u;
        bm &= inr;
        if (bm) bm &= ~mrc__req_acked64(c, base);
        return bm;
    }
    return 0;
}
/* ... acknowledged; true when there was one. The general path and the SACK fast path (out of line under -Os: a window
 * with holes) */
MRC__PRIVATE MRC__SIZE_COLD bool mrc__req_sack_sel(mrc_conn *c, uint64_t bm, uint32_t base, int32_t hi) {
    bool progress;
    bm = mrc__req_sack_bits(c, bm, base, hi);
    progress = bm != 0;
    while (bm) {
        mrc__req_ack_one(c, (base + mrc__ctz64(bm)) & MRC_PSN_MASK);
        bm &= bm - 1u;
    }
    return progress;
}
/* the SACK's rcvd capped at what was sent (avail, below 2^23 there), counted (MRC__SIZE_COLD) */
MRC__PRIVATE MRC__SIZE_COLD uint32_t mrc__sack_rcvd_cap(mrc_conn *c, uint32_t avail) {
    MRC__RARE_INC(c->st.cc_rcvd_capped);
    return (c->last_rcvd + avail) & 0xFFFFFFu;
}
/* Q9 dynamic MPR: the responder's MPR (nonzero) with MRC_CAP_DYNAMIC_MPR (MRC__SIZE_COLD) */
MRC__PRIVATE MRC__SIZE_COLD void mrc__sack_mpr(mrc_conn *c, uint32_t mpr) {
    uint32_t wp = MRC__MIN(MRC__MIN(mpr, (uint32_t)c->attr.mpr) * 128u, (uint32_t)MRC_MAX_INFLIGHT);
    if (wp != c->win_psns) {
        c->win_psns = wp;
        MRC__CNT(c->st.cc_mpr_changes++);
    }
}
MRC__PRIVATE int mrc__req_on_sack(mrc_conn *c, const mrc_pkt *k, mrc_time now) {
    const mrc_seth *s = &k->seth;
    uint32_t cack = s->cack_psn, ack_psn, base, psn, old_una = c->snd_una, old_base = c->win_base;
    int32_t d, hi;
    uint64_t bm;
    bool progress = false, fresh = false, have_rec, stale, rec_live, quiet = false;
    int slot = -1, pi = -1;
    mrc_time acked_sent = 0, rtt = 0;
    mrc__pblk *bk = (mrc__pblk *)0; /* ack_psn's block: the records are read before mrc__req_release */
    if (cack != k->bth.psn) return mrc__drop(c->ep, c, MRC_DROP_MALFORMED, k->bth.opcode);
    /* P38 SACKs validated whole: one naming a PSN never sent - its cack, the PSN it answers, a bit of its bitmap - is
     * dropped before it changes anything (no acknowledgement, penalty, skip request, RTT sample or CC input) */
    ack_psn = mrc_psn_add(cack, s->ack_psn_offset);
    d = mrc_psn_diff(c->snd_nxt, ack_psn);
    base = mrc_psn_add(cack, s->sack_offset); /* the bitmap's first PSN, hi PSNs before snd_nxt */
    hi = mrc_psn_diff(c->snd_nxt, base);
    if (mrc_psn_diff(cack, MRC__PSN_DEC(c->snd_nxt)) > 0 || d < 1 || mrc__sack_bits_unsent(hi, s->sack_bitmap))
        return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    MRC__CNT(c->st.rx_sack++);
    /* P18 outstanding-only acknowledgements: a SACK whose cack is behind the acknowledged point (an old one overtaken,
     * or forged) only acknowledges: no timing, path, probe, CC or MPR input */
    stale = MRC__PSN_BEFORE(cack, MRC__PSN_DEC(old_base));

    /* the packet this SACK names: its record, if it still has one, before this SACK changes anything */
    /* a record lives as long as its block: any PSN up to MRC_MAX_INFLIGHT behind snd_nxt keeps its own (a live or
     * retained block; the table holds only blocks of that span, each at its own entry, mrc__pool_enter) unless its
     * block was reclaimed for want of memory: then it is stale (no timing or path input) */
    if (!s->pr && d >= 1 && d <= (int32_t)MRC_MAX_INFLIGHT) {
        bk = mrc__blk(c, ack_psn);
        rec_live = bk && (ack_psn & (MRC__BLK_PSNS - 1u)) >= MRC__PBLK_LO(bk);
    } else {
        rec_live = false;
    }
    /* P38 quiet SACKs: the answer to a probe this side did not send (or already answered), and a SACK naming a PSN a
     * SACK already named (a first transmission: a duplicate), likewise only acknowledge - no loss detection, path, CC
     * or MPR (a retransmitted PSN is named once per copy that arrives: its late-SACK verdict, 7.4, needs both) */
    if (!stale && s->pr) quiet = (pi = mrc__probe_match(c, s->entropy, k->cc.tx_timestamp)) < 0;
    else if (!stale && rec_live &&
             (bk->rec[ack_psn & (MRC__BLK_PSNS - 1u)].flags & (MRC__PR_NAMED | MRC__PR_RTX)) == MRC__PR_NAMED)
        quiet = true;
    have_rec = rec_live && !stale && !quiet;
    /* (ack_psn is before snd_nxt: d >= 1) */
    if (have_rec) fresh = !MRC__PSN_BEFORE(ack_psn, old_base) && !((bk->acked >> (ack_psn & 63u)) & 1u);

    /* cumulative part: every PSN <= cack (none when stale: an older SACK overtaken by newer ones) */
    if (!stale && cack != MRC__PSN_DEC(old_base)) {
        for (psn = old_base; psn != MRC__PSN_INC(cack); psn = MRC__PSN_INC(psn)) mrc__req_ack_one(c, psn);
        c->win_base = MRC__PSN_INC(cack);
        progress = true;
    }
    /* selective part: only bits inside [win_base, snd_nxt) that were not known yet */
    bm = s->sack_bitmap;
    if (bm && mrc__req_sack_sel(c, bm, base, hi)) progress = true;
    if (MRC__PSN_BEFORE(c->snd_una, c->win_base)) c->snd_una = c->win_base;
    while (c->snd_una != c->snd_nxt && mrc__req_acked(c, c->snd_una)) c->snd_una = MRC__PSN_INC(c->snd_una);
    if (c->snd_una != old_una) progress = true;

    /* timing and path attribution */
    if (stale) {
        /* acknowledgements only - and the verdict on a pending silent loss, which needs only the echo (7.4): below */
        MRC__RARE_INC(c->st.rx_sack_stale); /* (the counters here: gcc -Os copied them into each path it threaded) */
    } else if (quiet) {
        MRC__RARE_INC(c->st.rx_sack_quiet); /* acknowledgements only */
    } else {
        if (s->m == MRC_M_SKIP_ONCE || s->m == MRC_M_ALWAYS_SKIP) MRC__RARE_INC(c->st.ev_skip_req);
        if (s->pr) {
            if (pi == 0 || pi == MRC__TLP2_MATCH) { /* the tail-loss probe: the responder's state when it arrived */
                acked_sent = c->probe_sent[0];
                slot = (int)c->probes[0].slot;
                if (pi == MRC__TLP2_MATCH) { /* P33 TLP copies: the other copy answered */
                    acked_sent = c->tlp2_sent;
                    slot = (int)c->tlp2_slot;
                }
                c->probes[0].kind = MRC__PROBE_FREE;
                c->probes_due &= ~1u; /* P33 TLP copies: a copy not sent yet is not needed */
                c->tlp2 = 0;
            } else if (pi > 0) { /* a probe of an ASSUMED_BAD EV */
                mrc__ev_probe_answer(c, (unsigned)pi, s->m);
            }
        }
    }
    if (rec_live && !quiet) { /* a stale SACK's record (only the verdict), or have_rec */
        mrc__psnrec *r = &bk->rec[ack_psn & (MRC__BLK_PSNS - 1u)];
        mrc_time r_sent = bk->sent[ack_psn & (MRC__BLK_PSNS - 1u)], t = r_sent;
        if (c->ep->cfg.tseth) {
            t = mrc__ts_unwrap_ctl(c->ep, k->cc.tx_timestamp, now); /* the echo names the transmission that arrived */
            (void)mrc__req_rtx_verdict(c, bk, ack_psn, t, fresh, now); /* (fresh is false when stale) */
        }
        if (!stale) {
            acked_sent = MRC__MIN(t, r_sent);
            if (!(r->flags & MRC__PR_RTX)) r->flags |= MRC__PR_NAMED;
            if (r->ev < c->ev_count && mrc__ev_value(c, r->ev) == s->entropy) slot = (int)r->ev;
            if (fresh && !(r->flags & MRC__PR_RTX) && now > r_sent) { /* retransmitted packets give no sample */
                rtt = now - r_sent;
                mrc__req_rtt_sample(c, rtt);
            }
        }
    }
    if (acked_sent > c->lat_acked_sent) {
        c->lat_acked_sent = acked_sent;
        c->lat_acked_rtt = now > acked_sent ? now - acked_sent : 0u; /* P32 reorder timer */
    }
    if (slot >= 0) {
        mrc__ev_delivered(c, (unsigned)slot, acked_sent);
        mrc__ev_on_ack(c, slot, s->m);
    }
    if (progress) mrc__req_progress(c, now);
    if (!quiet) mrc__req_detect_losses(c->ep, c, s->pr ? MRC__LOSS_PROBE : MRC__LOSS_SACK);
    if (progress && mrc_psn_diff(c->win_base, old_base) > 0) mrc__req_release(c, old_base); /* records read above */
    if (!stale && !quiet) { /* congestion control: what the responder received since its last SACK, ECN, RTT, its penalty */
        mrc__cc_sample cs;
        uint32_t rcvd = k->cc.rcvd_bytes & 0xFFFFFFu, rd = (rcvd - c->last_rcvd) & 0xFFFFFFu;
        uint64_t avail = ((c->tx_nominal + 255u) >> 8) - c->rcvd_credit; /* P18 outstanding-only acknowledgements: sent
                                                                            and not yet credited */
        if (rd < 0x800000u && rd > avail) rcvd = mrc__sack_rcvd_cap(c, (uint32_t)avail); /* claims more than was ever
                                                                                          sent: credit only what was */
        cs.newly = mrc__rcvd_newly(&c->last_rcvd, rcvd);
        c->rcvd_credit += cs.newly >> 8;
        MRC__CNT(c->st.cc_rcvd_bytes += cs.newly);
        cs.rtt = rtt;
        cs.ecn = s->m == MRC_M_SKIP_ONCE;
        cs.pen = k->cc.rcv_cwnd_pen;
        cs.r_c = k->cc.r_c;
        mrc__cc_on_sack(c, &cs, now);
    }
    /* Q9 dynamic MPR: the responder's MPR (not a stale SACK's); sent PSNs are never recalled */
    if (!stale && !quiet && (c->attr.caps & MRC_CAP_DYNAMIC_MPR) && s->mpr) mrc__sack_mpr(c, s->mpr);
    mrc__req_complete(c);
    /* mrc__req_timers, the reorder deadline set above unless quiet. After progress (retries and tlp_count 0, rto_start
     * and tlp_base now) it arms unless the QP left RTS or nothing is in flight, as in the SACK fast path: the heap key
     * then moves only when one of the three is earlier (P36), and mrc__recv's mrc__timer_update after this handler
     * keys any other timer a loss armed */
#if MRC_FAST_PATH
    if (!quiet && progress && c->state == MRC_QPS_RTS && c->snd_una != c->snd_nxt) {
        mrc__req_timers_arm(c, 0, 0, now, now);
        return MRC_OK;
    }
#endif
    mrc__req_timers_x(c, quiet ? MRC__TM_ALL : MRC__TM_SACK); /* quiet: no loss detection set the reorder deadline */
    return MRC_OK;
}

/* ---- NACKs, transport ACK/NAKs, and the requester's timers expiring ----------------------------------------- */
MRC__PRIVATE int mrc__req_on_nack(mrc_conn *c, const mrc_pkt *k, mrc_time now) {
    const mrc_neth *n = &k->neth;
    uint32_t psn = n->nack_psn;
    mrc__psnrec *r;
    unsigned reason = n->nack_reason;
    if (psn != k->bth.psn) return mrc__drop(c->ep, c, MRC_DROP_MALFORMED, k->bth.opcode);
    MRC__RARE_INC(c->st.rx_nack);
    MRC__RARE_INC(c->st.rx_nack_reason[reason & 31u]);
    if (reason != MRC_NACK_UNEXP_EVENT && !mrc_nack_is_retriable(reason))
        return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    /* P18 outstanding-only acknowledgements: a NACK acts only on a PSN outstanding (sent, not yet acknowledged), the
     * fatal UNEXP_EVENT included */
    if (!MRC__PSN_BEFORE(psn, c->snd_nxt)) return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    if (MRC__PSN_BEFORE(psn, c->win_base) || mrc__req_acked(c, psn)) /* (in the window: psn is before snd_nxt) */
        return mrc__drop(c->ep, c, MRC_DROP_ACK_STALE, k->bth.opcode);
    if (reason == MRC_NACK_UNEXP_EVENT) {
        if (c->ep->cfg.guard.hardened) return mrc__drop(c->ep, c, MRC_DROP_NAK, k->bth.opcode); /* P38 hardened mode */
        mrc__conn_error(c, MRC_ERR_REMOTE_OP, 0, 0, now);
        return MRC_OK;
    }
    r = MRC__REC(c, psn);
    if (c->ep->cfg.tseth && (r->flags & MRC__PR_RTX)) {
        /* the echo tells which transmission was NACKed: ignore NACKs for one already superseded */
        mrc_time t = mrc__ts_unwrap_ctl(c->ep, n->tx_timestamp, now);
        if (mrc__req_echo_before(c, t, MRC__REC_SENT(c, psn)))
            return mrc__drop(c->ep, c, MRC_DROP_ACK_STALE, k->bth.opcode);
    }
    if (reason == MRC_NACK_TRIMMED || reason == MRC_NACK_TRIMMED_LASTHOP) c->rto_heard = 1;
    mrc__req_mark_lost(c, psn, reason == MRC_NACK_TRIMMED           ? MRC__LOSS_TRIM
                               : reason == MRC_NACK_TRIMMED_LASTHOP ? MRC__LOSS_TRIM_LH
                                                                    : MRC__LOSS_NACK);
    mrc__req_timers(c);
    return MRC_OK;
}
MRC__PRIVATE int mrc__req_on_aeth(mrc_conn *c, const mrc_pkt *k, mrc_time now) {
    unsigned syn = k->aeth.syndrome, type = syn >> 5, code = syn & 0x1Fu;
    uint16_t msn = (uint16_t)(k->aeth.msn & 0xFFFFu);
    uint32_t i;
    int status;
    if ((uint16_t)(mrc__wr_msn(c->sq_tail) - 1u - msn) >= 0x8000u) /* names a message never posted */
        return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    if (type == 0) { /* positive transport ACK: informational, completions follow PSN coverage (Q7 completion by
                        coverage) */
        MRC__RARE_INC(c->st.rx_tack);
        return MRC_OK;
    }
    if (type != 3) return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    switch (code) {
    case 1: status = MRC_ERR_REMOTE_INVAL; break;
    case 2: status = MRC_ERR_REMOTE_ACCESS; break;
    case 3: status = MRC_ERR_REMOTE_OP; break;
    default: return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    }
    /* a NAK is fatal, so it must name a message that has started and not completed (O(send queue), rare) */
    for (i = c->sq_done; i != c->sq_tail; i++) {
        if (!mrc__wr_started(c, i)) i = c->sq_tail - 1u; /* nothing after an unstarted message has started */
        else if (mrc__wr_msn(i) == msn) break;
    }
    if (i == c->sq_tail) return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
    if (c->ep->cfg.guard.hardened) { /* P38 hardened mode: the message must have a PSN sent and not acknowledged (the
                                        one refused: O(1), by snd_una), and then the NAK is still not fatal */
        const mrc__wr *wr = MRC__SQ(c, i);
        uint32_t last = (wr->first_psn + mrc__wr_npkts(c, wr) - 1u) & MRC_PSN_MASK;
        if (i == c->sq_send) last = MRC__PSN_DEC(c->snd_nxt); /* partly sent */
        if (c->snd_una == c->snd_nxt || mrc_psn_diff(c->snd_una, last) > 0)
            return mrc__drop(c->ep, c, MRC_DROP_ACK_BOGUS, k->bth.opcode);
        return mrc__drop(c->ep, c, MRC_DROP_NAK, k->bth.opcode);
    }
    mrc__conn_error(c, status, 1, msn, now);
    return MRC_OK;
}
MRC__PRIVATE void mrc__req_on_rto(mrc_conn *c, mrc_time now) {
    c->rto_deadline = MRC_TIME_NEVER;
    if (c->state != MRC_QPS_RTS || c->win_base == c->snd_nxt) {
        mrc__req_timers(c);
        return;
    }
    /* The retry budget and the back-off are for a dead path or peer (Q25 retry budget). An expiry after which a trim
     * NACK came back - the fabric cut one of this QP's packets and the peer answered: congestion, not failure - spends
     * none of the budget (recovery.trim_keeps_alive) and does not back off (recovery.trim_holds_rto): a QP locked out of a congested
     * queue is neither failed for being slow nor left waiting milliseconds after the queue has room. */
    if (!c->rto_heard || !c->ep->cfg.recovery.trim_holds_rto) c->retries++;
    if (!c->rto_heard || !c->ep->cfg.recovery.trim_keeps_alive) c->retry_spent++;
    MRC__RARE_INC(c->st.rto_fired);
    c->ev_proven = MRC__EV_NONE; /* nothing heard for an RTO: no EV is proven (P25 hashed-EV bypass knobs) */
    c->rto_heard = 0;
    MRC__TRACE(c->ep, MRC_TRACE_RTO, c->retries, mrc__rto_interval(c, c->retries));
    if (c->attr.retry_exp != 25 && c->retry_spent > (uint32_t)c->attr.retry_linear + c->attr.retry_exp) {
        mrc__conn_error(c, MRC_ERR_RETRY_EXC, 0, 0, now);
        return;
    }
    if (c->snd_una == c->snd_nxt) { /* every PSN SACKed, the cumulative point behind: nothing to resend, ask */
        c->probes[0].kind = MRC__PROBE_TLP;
        c->probes_due |= 1u;
    } else {
        /* The timed-out PSN goes first and regardless of the window: transmissions lost without a trace (a dropped
         * trimmed header, a dead path) still count as in flight, and a window they fill would never reopen. Its
         * SACK then reveals the other holes to loss detection. */
        mrc__psnrec *r = MRC__REC(c, c->snd_una);
        mrc__ev_rto_silent(c); /* P39 host losses: every plane silent since the oldest in flight */
        mrc__req_mark_lost(c, c->snd_una, MRC__LOSS_RTO);
        if ((r->flags & MRC__PR_QUEUED) && c->rtxq.head != c->snd_una) { /* to the head of the queue */
            mrc__rtxq_remove(c, c->snd_una, r);
            mrc__rtxq_push(c, c->snd_una, r, true);
        }
        c->rtx_force = 1;
    }
    mrc__sched_tx(c);
    c->rto_start = now;
    mrc__req_timers(c);
}
MRC__PRIVATE void mrc__req_on_tlp(mrc_conn *c, mrc_time now) {
    c->tlp_deadline = MRC_TIME_NEVER;
    if (c->state == MRC_QPS_RTS && c->win_base != c->snd_nxt) {
        c->tlp_base = now;
        if (c->tlp_count < 16) c->tlp_count++;
        /* P25 hashed-EV bypass knobs: the last tail-loss probe is unanswered: if it went on the proven EV, that EV is
         * proven no more */
        if (c->probes[0].kind == MRC__PROBE_TLP &&
            (c->probes[0].slot == c->ev_proven || ((c->tlp2 & MRC__TLP2_OUT) && c->tlp2_slot == c->ev_proven)))
            c->ev_proven = MRC__EV_NONE;
        c->tlp2 = 0;
        if (!c->rtxq.n) { /* nothing better to send: ask the responder where it is */
            c->probes[0].kind = MRC__PROBE_TLP;
            c->probes_due |= 1u;
            if (MRC__KNOB(c->ep, tlp_copies) >= 2u) c->tlp2 = MRC__TLP2_DUE; /* P33 TLP copies */
            MRC__RARE_INC(c->st.tlp_fired);
        }
    }
    mrc__req_timers(c);
}
/* P32 reorder timer: the reorder timer expired: every record at the head of the transmit list whose deadline has passed
 * is lost (as a SACK hole: its EV is suspect, section 7.4); the next one's deadline is in the future. */
MRC__PRIVATE void mrc__req_on_reo(mrc_conn *c, mrc_time now) {
    c->reo_deadline = MRC_TIME_NEVER;
    if (c->state == MRC_QPS_RTS) {
        while (c->txl.n && mrc__reo_due(c) <= now) {
            MRC__RARE_INC(c->st.rtx_reo_timer);
            mrc__req_mark_lost(c, c->txl.head, MRC__LOSS_SACK); /* unlinks it */
        }
    }
    mrc__req_timers(c);
}

/* ====== src/epop.h ============================================================================================== */
/* ================================================================================================================
 * ENDPOINT OPERATIONS: what src/epop.c offers the layers above it (the rest of it is public API)
 * ============================================================================================================== */

MRC__PRIVATE int mrc__epop_recv(mrc_endpoint *ep, const mrc_pkt *k, const mrc_rxinfo *ri, mrc_time now);
MRC__PRIVATE void mrc__ep_timeouts(mrc_endpoint *ep, mrc_time now);
MRC__PRIVATE int mrc__ep_emit(mrc_endpoint *ep, uint8_t *buf, size_t cap, mrc_txinfo *ti, mrc_time now);

/* ====== src/epop.c ============================================================================================== */
/* ================================================================================================================
 * ENDPOINT OPERATIONS AND THE CONTROL PLANE - src/epop.c
 * Owns: ports (planes) going up and down; packets to QP 0x2 - ERTH requests and EETH responses for
 * PORT_STATUS_UPDATE and EV_PROBE - which need no connection and consume no PSN; the requests awaiting answers
 * (the controller's, never resent, and the core's own PORT_STATUS_UPDATEs, resent until answered); and the
 * controller's objects: EV Format profiles, EV profiles, EV operations.
 * Calls: codec, state, timers, sched, path, path_policy.
 * ============================================================================================================== */

/* ---- ports, and the PORT_STATUS_UPDATEs that tell peers about them (7.8) ------------------------------------ */
/* The endpoint's timer (mrc_endpoint_on_timeout) runs no later than t. Out of line: the 64-bit minimum once instead
 * of in each of its callers. */
MRC__PRIVATE MRC__NOINLINE void mrc__ep_due(mrc_endpoint *ep, mrc_time t) {
    ep->ep_deadline = MRC__MIN(ep->ep_deadline, t);
}
/* A new packet at the end of the queue, zeroed, for the caller to fill in (built in place: no copy); NULL, and counted,
 * when the queue is full (the packet is dropped) */
MRC__PRIVATE mrc__epkt *mrc__epq_push(mrc_endpoint *ep) {
    mrc__epkt *k;
    if (ep->epq_len >= MRC_EPQ_LEN) {
        mrc__ev_count(&ep->st.epq_overflow); /* a loss: counted whatever MRC_NO_STATS */
        return (mrc__epkt *)0;
    }
    k = &ep->epq[(ep->epq_head + ep->epq_len) % MRC_EPQ_LEN];
    MRC_MEMSET(k, 0, sizeof *k);
    ep->epq_len++;
    return k;
}
MRC__PRIVATE MRC__INLINE bool mrc__conn_connected(const mrc_conn *c) {
    return c && (c->state == MRC_QPS_RTR || c->state == MRC_QPS_RTS);
}
/* Tell the peer of connection c which ports this endpoint can use: one PORT_STATUS_UPDATE per up port, leaving on
 * that port on the QP's reverse EV there (Q20 port-failure signalling); ports where the QP has no EV carrying data are
 * skipped. */
MRC__PRIVATE void mrc__psu_send(mrc_endpoint *ep, mrc_conn *c, uint16_t req_id) {
    unsigned p;
    for (p = 1; p <= ep->cfg.num_ports; p++) {
        mrc__epkt *k;
        mrc_txinfo ti;
        uint16_t s;
        if (!mrc_endpoint_port_up(ep, p)) continue;
        s = mrc__ev_ctl(c, p);
        if (s == MRC__EV_NONE || c->evs[s].port != p || !(k = mrc__epq_push(ep))) continue;
        MRC_MEMSET(&ti, 0, sizeof ti);
        mrc__ev_txinfo(c, s, &ti);
        k->op = MRC_EPOP_PORT_STATUS_UPDATE;
        k->port = (uint8_t)p;
        k->ev = ti.ev;
        k->ev_fmt = ti.ev_fmt;
        k->path_len = ti.path_len;
        if (ti.path_len) MRC_MEMCPY(k->path, ti.path, ti.path_len);
        k->peer = c->attr.peer;
        k->mask = ep->ports_up;
        k->req_id = req_id;
        k->dscp = ep->cfg.dscp[MRC_DSCP_CONTROL];
    }
}
MRC__PRIVATE mrc_time mrc__psu_wait(const mrc_endpoint *ep, unsigned tries) {
    mrc_time t = ep->cfg.psu_retry_ns ? ep->cfg.psu_retry_ns : 200000u;
    return t << MRC__MIN(tries, 16u);
}
/* The first connected QP of a peer, or NULL. O(conns). Out of line: the PSU announce and the PSU resends share it
 * (mrc__peer_pkey keeps its own loop: through mrc__ep_emit it is in mrc__poll_tx, whose x86-64 code a call there
 * made 10.9 instructions per data packet slower). */
MRC__PRIVATE MRC__NOINLINE mrc_conn *mrc__peer_conn(const mrc_endpoint *ep, uint32_t peer) {
    unsigned i;
    for (i = 0; i < MRC_MAX_CONNS; i++)
        if (mrc__conn_connected(ep->conns[i]) && ep->conns[i]->attr.peer == peer) return ep->conns[i];
    return (mrc_conn *)0;
}
/* Announce this endpoint's up ports to one peer, and keep resending until the peer answers (7.8): a lost update
 * would leave the peer's view of this endpoint's planes stale for ever. A newer announcement to the same peer takes
 * the older one's place (it carries the current mask). Beyond MRC_MAX_EP_REQS peers awaiting an answer, an update
 * is sent once. */
MRC__PRIVATE void mrc__psu_announce_peer(mrc_endpoint *ep, mrc_conn *c) {
    unsigned i, fi = MRC_MAX_EP_REQS;
    uint16_t id = ep->psu_req_id++;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) {
        mrc__psureq *q = &ep->psureq[i];
        if (MRC__NEVER(q->deadline)) {
            if (fi == MRC_MAX_EP_REQS) fi = i;
        } else if (q->peer == c->attr.peer) {
            fi = i;
            break;
        }
    }
    mrc__psu_send(ep, c, id);
    if (fi == MRC_MAX_EP_REQS || !ep->cfg.psu_retries) return;
    ep->psureq[fi].peer = c->attr.peer;
    ep->psureq[fi].req_id = id;
    ep->psureq[fi].tries = 0;
    ep->psureq[fi].deadline = ep->now + mrc__psu_wait(ep, 0);
    mrc__ep_due(ep, ep->psureq[fi].deadline);
}
/* Tell the peer of every connected QP which ports this endpoint can use, once per peer. O(conns^2 + conns x
 * ports), on port changes only. */
MRC__PRIVATE void mrc__psu_announce(mrc_endpoint *ep) {
    unsigned i;
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        mrc_conn *c = ep->conns[i];
        if (!mrc__conn_connected(c)) continue;
        if (mrc__peer_conn(ep, c->attr.peer) != c) continue; /* announced to this peer already (an earlier QP) */
        mrc__psu_announce_peer(ep, c);
    }
}
MRC__PRIVATE void mrc__conn_ev_changed(mrc_conn *c) {
    mrc__ev_rebuild(c);
    mrc__sched_tx(c);
    mrc__timer_update(c);
}
MRC_API int mrc_endpoint_port_set(mrc_endpoint *ep, unsigned port, bool up, mrc_time now) {
    uint32_t bit, i;
    if (!ep || port < 1 || port > ep->cfg.num_ports) return MRC_ERR_INVAL;
    (void)mrc__clock_ctl(ep, now);
    bit = 1u << (port - 1u);
    if (up == !!(ep->ports_up & bit)) return MRC_OK;
    ep->ports_up ^= bit; /* up or down: it was the other */
    if (!up && ep->cfg.guard.psu_hold_ns && MRC__NEVER(ep->psu_refresh)) { /* P38 bounded PSU: re-announce */
        ep->psu_refresh = mrc__deadline_ctl(ep->now, ep->cfg.guard.psu_hold_ns / 2u);
        mrc__ep_due(ep, ep->psu_refresh);
    }
    for (i = 0; i < MRC_MAX_CONNS; i++) { /* O(conns x EVs), on port changes only */
        mrc_conn *c = ep->conns[i];
        if (!c || !c->ev_count) continue;
        /* the view of the peer's planes no longer overlaps this endpoint's: it is stale (an update lost, or given up
         * on) - back to the RESET -> INIT assumption; losses and probes find what really works (7.8) */
        if (ep->ports_up && !(ep->ports_up & c->peer_ports)) c->peer_ports = mrc__all_ports(ep);
        mrc__conn_ev_changed(c);
    }
    mrc__psu_announce(ep); /* every peer then refreshes its view of this endpoint */
    return MRC_OK;
}
/* P38 bounded PSU: the planes a PSU takes away from c come back after guard.psu_hold_ns (a PSU naming them all, or a
 * hold of 0, sets none) */
MRC__PRIVATE void mrc__psu_hold(mrc_endpoint *ep, mrc_conn *c, uint32_t mask) {
    c->peer_hold = 0;
    if (mask == mrc__all_ports(ep) || !ep->cfg.guard.psu_hold_ns) return;
    c->peer_hold = mrc__deadline_ctl(ep->now, ep->cfg.guard.psu_hold_ns);
    ep->psu_hold = MRC__MIN(ep->psu_hold, c->peer_hold);
    mrc__ep_due(ep, ep->psu_hold);
}
/* A peer's PORT_STATUS_UPDATE: its QPs stop (or start again) using the planes it names. The plane it arrived on
 * works whatever the mask says, so no packet can take every plane away. Out of line: in line it cost mrc__recv 264 B
 * (16 more in all). */
MRC__PRIVATE MRC__NOINLINE void mrc__psu_apply(mrc_endpoint *ep, const mrc_rxinfo *ri, uint32_t mask) {
    unsigned i;
    bool changed = false;
    mask = (mask & mrc__all_ports(ep)) | (1u << (ri->port - 1u));
    MRC__EV_COUNT(ep->st.psu_rx);
    if (ep->ports_up && !(ep->ports_up & mask)) mask = mrc__all_ports(ep); /* no overlap: a stale view (7.8) */
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        mrc_conn *c = ep->conns[i];
        if (!c || !c->ev_count || c->attr.peer != ri->peer) continue;
        mrc__psu_hold(ep, c, mask);
        if (c->peer_ports == mask) continue;
        c->peer_ports = mask;
        mrc__conn_ev_changed(c);
        changed = true;
    }
    if (changed) {
        mrc_event e;
        MRC_MEMSET(&e, 0, sizeof e);
        e.type = MRC_EVT_PEER_PORTS;
        e.op = MRC_EPOP_PORT_STATUS_UPDATE;
        e.peer = ri->peer;
        e.port = ri->port;
        e.port_mask = mask;
        mrc__notify(ep, &e);
    }
}

/* ---- packets to QP 0x2: requests, responses, their timers, the controller's requests ------------------------ */
MRC__PRIVATE void mrc__ep_rearm(mrc_endpoint *ep) {
    unsigned i;
    ep->ep_deadline = MRC_TIME_NEVER;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) {
        mrc__ep_due(ep, ep->epreq[i].deadline);
        mrc__ep_due(ep, ep->psureq[i].deadline);
    }
    mrc__ep_due(ep, ep->psu_hold);
    mrc__ep_due(ep, ep->psu_refresh);
}
/* P38 controllers */
MRC__PRIVATE bool mrc__is_controller(const mrc_endpoint *ep, uint32_t peer) {
    unsigned i;
    for (i = 0; i < ep->n_ctl; i++)
        if (ep->ctl_peer[i] == peer) return true;
    return false;
}
MRC_API int mrc_endpoint_controller_set(mrc_endpoint *ep, uint32_t peer, bool on) {
    unsigned i;
    if (!ep) return MRC_ERR_INVAL;
    for (i = 0; i < ep->n_ctl && ep->ctl_peer[i] != peer; i++) {
    }
    if (!on) {
        if (i < ep->n_ctl) ep->ctl_peer[i] = ep->ctl_peer[--ep->n_ctl];
        return MRC_OK;
    }
    if (i < ep->n_ctl) return MRC_OK;
    if (ep->n_ctl == MRC_MAX_CONTROLLERS) return MRC_ERR_FULL;
    ep->ctl_peer[ep->n_ctl++] = peer;
    return MRC_OK;
}
/* P19 QP 0x2 and probe trust: the pkey of this endpoint's first connected QP to a peer (endpoint operations carry it);
 * 0xFFFF if none */
MRC__PRIVATE uint16_t mrc__peer_pkey(const mrc_endpoint *ep, uint32_t peer) {
    unsigned i;
    for (i = 0; i < MRC_MAX_CONNS; i++) /* O(conns), endpoint operations only */
        if (mrc__conn_connected(ep->conns[i]) && ep->conns[i]->attr.peer == peer) return ep->conns[i]->attr.pkey;
    return 0xFFFF;
}
/* The live endpoint request of that ID, operation and peer, or null (at most one: a live request's ID is unique,
 * mrc_endpoint_ep_request) */
MRC__PRIVATE mrc__epreq *mrc__epreq_find(mrc_endpoint *ep, uint16_t req_id, uint8_t op, uint32_t peer) {
    unsigned i;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) {
        mrc__epreq *q = &ep->epreq[i];
        if (!MRC__NEVER(q->deadline) && q->req_id == req_id && q->op == op && q->peer == peer) return q;
    }
    return (mrc__epreq *)0;
}
/* An endpoint request answered (EP_RESPONSE, with its port and round trip) or timed out (EP_TIMEOUT): its slot freed
 * and the controller told (one copy of the event's building for both) */
MRC__PRIVATE void mrc__epreq_done(mrc_endpoint *ep, mrc__epreq *q, uint16_t type, uint8_t port, uint32_t rtt) {
    mrc_event e;
    MRC_MEMSET(&e, 0, sizeof e);
    e.type = type;
    e.status = type == MRC_EVT_EP_TIMEOUT ? MRC_ERR_DROP : MRC_OK;
    e.req_id = q->req_id;
    e.op = q->op;
    e.port = port;
    e.peer = q->peer;
    e.rtt_ns = rtt;
    q->deadline = MRC_TIME_NEVER;
    mrc__notify(ep, &e);
}
MRC__PRIVATE int mrc__epop_recv(mrc_endpoint *ep, const mrc_pkt *k, const mrc_rxinfo *ri, mrc_time now) {
    uint16_t req_id = (uint16_t)(k->bth.psn & 0xFFFFu);
    unsigned i;
    mrc_conn *owner = (mrc_conn *)0;
    mrc__epreq *rq;
    bool pkey_ok = false;
    /* P19 QP 0x2 and probe trust: QP 0x2 takes packets only from a peer with a connected QP here, with that QP's pkey
     * (O(conns)) */
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        mrc_conn *c = ep->conns[i];
        if (!mrc__conn_connected(c) || c->attr.peer != ri->peer) continue;
        if (!owner) owner = c; /* the lowest connected slot keeps the peer's rate bucket */
        if (((k->bth.pkey ^ c->attr.pkey) & 0x7FFFu) == 0) {
            pkey_ok = true;
            break;
        }
    }
    if (k->bth.opcode != MRC_OP_EP_REQ && k->bth.opcode != MRC_OP_EP_RSP)
        return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_OPCODE, k->bth.opcode);
    if (ep->cfg.guard.epop_peer_check && !pkey_ok && !mrc__is_controller(ep, ri->peer))
        return mrc__drop(ep, (mrc_conn *)0, owner ? MRC_DROP_PKEY : MRC_DROP_STRANGER, k->bth.opcode);
    if (k->bth.opcode == MRC_OP_EP_REQ) {
        mrc__epkt *r;
        if (k->erth.op != MRC_EPOP_PORT_STATUS_UPDATE && k->erth.op != MRC_EPOP_EV_PROBE)
            return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_EPOP, k->bth.opcode);
        /* P20 empty PSU ignored: a PSU naming none of our planes is ignored (it could only confine the peer's QPs to
         * one plane) */
        if (k->erth.op == MRC_EPOP_PORT_STATUS_UPDATE && !(k->erth.port_status_mask & mrc__all_ports(ep)))
            return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_EPOP, k->bth.opcode);
        /* P38 PSU fields checked: a peer sends its PSU on each plane it names, and has this endpoint's planes */
        if (k->erth.op == MRC_EPOP_PORT_STATUS_UPDATE &&
            ((k->erth.port_status_mask & ~mrc__all_ports(ep)) || !((k->erth.port_status_mask >> (ri->port - 1u)) & 1u)))
            return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_PSU, k->bth.opcode);
        if (!mrc__bucket_take(owner ? &owner->epop_tat : &ep->epop_any_tat, now, ep->epop_T, ep->epop_tau))
            return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_RATE, k->bth.opcode);
        MRC__CNT(ep->st.ep_req_rx++);
        if (k->erth.op == MRC_EPOP_PORT_STATUS_UPDATE) mrc__psu_apply(ep, ri, k->erth.port_status_mask);
        /* the answer: same plane, same entropy back (there is no QP to own a reverse EV), timestamp echoed */
        if ((r = mrc__epq_push(ep)) != (mrc__epkt *)0) {
            r->rsp = 1;
            r->op = k->erth.op;
            r->port = ri->port;
            r->ev = ri->ev;
            r->ev_fmt = (uint8_t)(ri->ev > 0xFFFFu ? MRC_EV_FMT_STEV : MRC_EV_FMT_UDP);
            r->req_id = req_id;
            r->ts = k->erth.tx_timestamp;
            r->peer = ri->peer;
            r->dscp = ep->cfg.dscp[MRC_DSCP_CONTROL];
        }
        MRC__TRACE(ep, MRC_TRACE_EPOP, ((uint32_t)k->bth.opcode << 8) | k->erth.op, req_id);
        return MRC_OK;
    }
    if (k->bth.opcode != MRC_OP_EP_RSP) return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_OPCODE, k->bth.opcode);
    if ((rq = mrc__epreq_find(ep, req_id, k->eeth.op, ri->peer)) != (mrc__epreq *)0) {
        MRC__CNT(ep->st.ep_rsp_rx++);
        mrc__epreq_done(ep, rq, MRC_EVT_EP_RESPONSE, ri->port,
                        (uint32_t)MRC__MIN(now - rq->sent, (mrc_time)0xFFFFFFFFu));
        mrc__ep_rearm(ep);
        MRC__TRACE(ep, MRC_TRACE_EPOP, ((uint32_t)k->bth.opcode << 8) | k->eeth.op, req_id);
        return MRC_OK;
    }
    for (i = 0; i < MRC_MAX_EP_REQS && k->eeth.op == MRC_EPOP_PORT_STATUS_UPDATE; i++) { /* the core's own */
        mrc__psureq *q = &ep->psureq[i];
        if (q->deadline == MRC_TIME_NEVER || q->req_id != req_id || q->peer != ri->peer) continue;
        q->deadline = MRC_TIME_NEVER; /* answered: the peer has this endpoint's ports; no event */
        mrc__ep_rearm(ep);
        return MRC_OK;
    }
    return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_EPOP, k->bth.opcode); /* unsolicited, late or a duplicate */
}
MRC__PRIVATE void mrc__ep_timeouts(mrc_endpoint *ep, mrc_time now) {
    unsigned i;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) {
        mrc__epreq *q = &ep->epreq[i];
        if (q->deadline > now) continue;
        MRC__CNT(ep->st.ep_timeouts++);
        mrc__epreq_done(ep, q, MRC_EVT_EP_TIMEOUT, 0, 0);
    }
    for (i = 0; i < MRC_MAX_EP_REQS; i++) { /* the core's own PORT_STATUS_UPDATEs: resent, backing off, bounded */
        mrc__psureq *q = &ep->psureq[i];
        mrc_conn *c;
        if (q->deadline > now) continue;
        q->deadline = MRC_TIME_NEVER;
        c = mrc__peer_conn(ep, q->peer);
        if (!c) continue;           /* no connection to that peer left */
        if (q->tries >= ep->cfg.psu_retries) { /* given up: the peer's view is refreshed when it stops overlapping */
            MRC__CNT(ep->st.ep_timeouts++); /* (7.8) */
            continue;
        }
        q->tries++;
        MRC__CNT(ep->st.psu_rtx++);
        mrc__psu_send(ep, c, q->req_id);
        q->deadline = now + mrc__psu_wait(ep, q->tries);
    }
    if (ep->psu_hold <= now) { /* P38 bounded PSU: planes taken away too long come back (O(conns), rare) */
        ep->psu_hold = MRC_TIME_NEVER;
        for (i = 0; i < MRC_MAX_CONNS; i++) {
            mrc_conn *c = ep->conns[i];
            if (!c || !c->peer_hold) continue;
            if (c->peer_hold > now) {
                ep->psu_hold = MRC__MIN(ep->psu_hold, c->peer_hold);
                continue;
            }
            c->peer_hold = 0;
            if (!c->ev_count || c->peer_ports == mrc__all_ports(ep)) continue;
            c->peer_ports = mrc__all_ports(ep);
            MRC__CNT(ep->st.psu_expired++);
            mrc__conn_ev_changed(c);
        }
    }
    if (ep->psu_refresh <= now) { /* ... and this endpoint's ports that are down are announced again */
        ep->psu_refresh = MRC_TIME_NEVER;
        if (ep->ports_up != mrc__all_ports(ep) && ep->cfg.guard.psu_hold_ns) {
            mrc__psu_announce(ep);
            ep->psu_refresh = mrc__deadline_ctl(now, ep->cfg.guard.psu_hold_ns / 2u);
        }
    }
    mrc__ep_rearm(ep);
}
MRC_API int mrc_endpoint_ep_request(mrc_endpoint *ep, const mrc_ep_req *r, mrc_time now) {
    unsigned i, fi = MRC_MAX_EP_REQS;
    mrc__epkt *k;
    if (!ep || !r) return MRC_ERR_INVAL;
    now = mrc__clock_ctl(ep, now);
    if (r->op != MRC_EPOP_PORT_STATUS_UPDATE && r->op != MRC_EPOP_EV_PROBE) return MRC_ERR_INVAL;
    if (!mrc_endpoint_port_up(ep, r->port) || r->dscp < -1 || r->dscp > 63) return MRC_ERR_INVAL;
    if (r->ev_fmt != MRC_EV_FMT_UDP && r->ev_fmt != MRC_EV_FMT_STEV && r->ev_fmt != MRC_EV_FMT_SRV6)
        return MRC_ERR_INVAL;
    if (r->ev_fmt == MRC_EV_FMT_SRV6 ? (r->path_len != 16 && r->path_len != 32) || r->path_len > MRC_EV_BYTES
                                     : r->path_len != 0)
        return MRC_ERR_INVAL;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) {
        if (MRC__NEVER(ep->epreq[i].deadline)) {
            if (fi == MRC_MAX_EP_REQS) fi = i;
        } else if (ep->epreq[i].req_id == r->req_id) {
            return MRC_ERR_INVAL; /* in use */
        }
    }
    if (fi == MRC_MAX_EP_REQS || ep->epq_len >= MRC_EPQ_LEN) return MRC_ERR_FULL;
    k = mrc__epq_push(ep); /* room checked above */
    k->op = r->op;
    k->port = r->port;
    k->ev = r->ev;
    k->ev_fmt = r->ev_fmt;
    k->path_len = r->path_len;
    if (r->path_len) MRC_MEMCPY(k->path, r->path, r->path_len);
    k->peer = r->peer;
    k->mask = r->port_status ? r->port_status : ep->ports_up;
    k->req_id = r->req_id;
    k->dscp = r->dscp < 0 ? ep->cfg.dscp[MRC_DSCP_CONTROL] : (uint8_t)r->dscp;
    ep->epreq[fi].sent = now; /* until it leaves: poll_tx restamps it */
    /* NEVER marks a free slot: a request past the end of time expires at its last nanosecond */
    ep->epreq[fi].deadline =
        MRC__MIN(mrc__deadline_ctl(now, r->timeout_ns ? r->timeout_ns : 1000000u), MRC_TIME_NEVER - 1u);
    ep->epreq[fi].req_id = r->req_id;
    ep->epreq[fi].op = r->op;
    ep->epreq[fi].peer = r->peer;
    mrc__ep_due(ep, ep->epreq[fi].deadline);
    return MRC_OK;
}
/* The next queued endpoint-operation packet; 0 when none. */
MRC__PRIVATE int mrc__ep_emit(mrc_endpoint *ep, uint8_t *buf, size_t cap, mrc_txinfo *ti, mrc_time now) {
    while (ep->epq_len) {
        const mrc__epkt *k = &ep->epq[ep->epq_head];
        mrc_bth b;
        int n = MRC_BTH_LEN;
        mrc__epreq *q;
        ep->epq_head = (ep->epq_head + 1u) % MRC_EPQ_LEN;
        ep->epq_len--;
        if (!mrc_endpoint_port_up(ep, k->port)) continue; /* its port went down while it waited */
        MRC_MEMSET(&b, 0, sizeof b);
        b.opcode = k->rsp ? MRC_OP_EP_RSP : MRC_OP_EP_REQ;
        b.tver = ep->cfg.wire.tver;
        b.pkey = mrc__peer_pkey(ep, k->peer);
        b.dest_qp = MRC_EPOP_QPN;
        b.psn = k->req_id; /* request ID in PSN[15:0] */
        (void)mrc_bth_encode(buf, cap, &ep->cfg.wire, &b);
        if (k->rsp) {
            mrc_eeth e;
            MRC_MEMSET(&e, 0, sizeof e);
            e.op = k->op;
            e.tx_timestamp = k->ts;
            n += mrc_eeth_encode(buf + n, cap - (size_t)n, &ep->cfg.wire, &e);
            MRC__CNT(ep->st.ep_rsp_tx++);
        } else {
            mrc_erth e;
            MRC_MEMSET(&e, 0, sizeof e);
            e.op = k->op;
            e.port_status_mask = k->mask;
            e.tx_timestamp = mrc__ts_ctl(ep, now);
            e.ftype = 1;
            n += mrc_erth_encode(buf + n, cap - (size_t)n, &e);
            if ((q = mrc__epreq_find(ep, k->req_id, k->op, k->peer)) != (mrc__epreq *)0)
                q->sent = now; /* the round trip starts now */
            MRC__CNT(ep->st.ep_req_tx++);
        }
        MRC_MEMSET(ti, 0, sizeof *ti);
        ti->port = k->port;
        ti->ev = k->ev;
        ti->ev_fmt = k->ev_fmt;
        ti->path_len = k->path_len;
        ti->path = k->path_len ? k->path : (const uint8_t *)0;
        ti->dscp_class = MRC_DSCP_CONTROL;
        ti->dscp = k->dscp;
        ti->opcode = b.opcode;
        ti->peer = k->peer;
        ti->qpn = MRC_EPOP_QPN;
        ti->hdr_len = (uint32_t)n;
        MRC__TRACE(ep, MRC_TRACE_TX, ((uint32_t)b.opcode << 24) | b.psn, ti->ev);
        return n;
    }
    return 0;
}

/* ---- EV Format profiles ---------------------------------------------------------------------------------------- */
/* the EV Format and EV profile attributes, each call's STATE first */
static const mrc__range mrc__fmt_ranges[] = {
    MRC__RNG(mrc_ev_fmt_attr, state, 0, 0, MRC_PROFILE_ONLINE, 1, MRC_DETAIL_STATE_VALUE),
    MRC__RSET(mrc_ev_fmt_attr, mode, 1u << MRC_EV_FMT_UDP | 1u << MRC_EV_FMT_STEV | 1u << MRC_EV_FMT_SRV6, 2,
              MRC_DETAIL_FMT_MODE),
    MRC__RNG(mrc_ev_fmt_attr, nfields, 0, 1, MRC_MAX_EV_FIELDS, 3, MRC_DETAIL_FIELD_COUNT)};
static const mrc__range mrc__prof_ranges[] = {
    MRC__RNG(mrc_ev_profile_attr, state, 0, 0, MRC_PROFILE_ONLINE, 1, MRC_DETAIL_STATE_VALUE),
    MRC__RSET(mrc_ev_profile_attr, mode, 1u << MRC_EV_MODE_EXP | 1u << MRC_EV_MODE_GEN, 2, MRC_DETAIL_EV_MODE),
    MRC__RNG(mrc_ev_profile_attr, ev_count, 0, 1, MRC_MAX_EVS, 4, MRC_DETAIL_EV_COUNT),
    MRC__RNG(mrc_ev_profile_attr, event_mask, 0, 0, MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD, 6, MRC_DETAIL_EVENT_MASK),
    MRC__RNG(mrc_ev_profile_attr, nfields, 0, 1, MRC_MAX_EV_FIELDS, 7, MRC_DETAIL_FIELD_COUNT)};
MRC__STATIC_ASSERT(MRC_EV_FMT_ATTR_MODE == 1u << 1 && MRC_EV_FMT_ATTR_FIELDS == 1u << 2 &&
                       MRC_EV_PROF_ATTR_MODE == 1u << 1 && MRC_EV_PROF_ATTR_COUNT == 1u << 3 &&
                       MRC_EV_PROF_ATTR_EVENT_MASK == 1u << 5 && MRC_EV_PROF_ATTR_FIELDS == 1u << 6 &&
                       offsetof(mrc_ev_fmt_attr, state) == 0 && offsetof(mrc_ev_profile_attr, state) == 0,
                   range_bits);
MRC__PRIVATE mrc__evfmt *mrc__fmt_find(const mrc_endpoint *ep, uint64_t id) {
    return (mrc__evfmt *)mrc__tab_find(ep->fmts, MRC_MAX_EV_FMTS, sizeof ep->fmts[0], offsetof(mrc__evfmt, used), id);
}
MRC_API int mrc_ev_fmt_modify(mrc_endpoint *ep, uint64_t id, const mrc_ev_fmt_attr *a, uint32_t mask) {
    const uint32_t all = MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS;
    mrc__evfmt *f;
    mrc_ev_fmt_attr n;
    unsigned cur, to, i;
    bool busy = false;
    int rc;
    if ((rc = mrc__prof_begin(ep, MRC_CALL_EV_FMT_MODIFY, a, id, mask, all)) != MRC_OK) return rc;
    f = mrc__fmt_find(ep, id);
    cur = f ? f->a.state : (unsigned)MRC_PROFILE_INIT;
    /* STATE, MODE, FIELDS' count */
    if ((rc = mrc__ranges(ep, a, mrc__fmt_ranges, MRC__NRANGES(mrc__fmt_ranges), mask)) != MRC_OK) return rc;
    to = mask & MRC_EV_FMT_ATTR_STATE ? a->state : cur; /* a state past ONLINE only from the call */
    if (mask & MRC_EV_FMT_ATTR_FIELDS) {
        for (i = 0; i < a->nfields; i++)
            if (a->width[i] < 1 || a->width[i] > 32)
                return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_FIELD_WIDTH, MRC_EV_FMT_ATTR_FIELDS, i);
    }
    for (i = 0; i < MRC_MAX_EV_PROFILES; i++) /* an ONLINE EV profile uses it */
        if (ep->profs[i].used && ep->profs[i].state == MRC_PROFILE_ONLINE && ep->profs[i].fmt_id == id) busy = true;
    rc = mrc__prof_step(ep, cur, to, mask, MRC_EV_FMT_ATTR_MODE, MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS, busy);
    if (rc) return rc < 0 ? rc : MRC_OK;
    if (to == MRC_PROFILE_INIT) { /* OFFLINE -> INIT: forgotten */
        MRC_MEMSET(f, 0, sizeof *f);
        return MRC_OK;
    }
    if (f) mrc__copy(&n, &f->a, sizeof n);
    else MRC_MEMSET(&n, 0, sizeof n);
    if (mask & MRC_EV_FMT_ATTR_MODE) n.mode = a->mode;
    if (mask & MRC_EV_FMT_ATTR_FIELDS) {
        n.nfields = a->nfields;
        MRC_MEMSET(n.width, 0, sizeof n.width);
        MRC_MEMCPY(n.width, a->width, a->nfields * sizeof n.width[0]);
    }
    if (n.nfields) {
        unsigned bits = mrc__fmt_bits(&n);
        if (!bits) /* wider than the mode allows */
            return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_FMT_TOO_WIDE, MRC_EV_FMT_ATTR_FIELDS);
        if (bits > ep->cfg.ev_max_width) /* wider than the device supports */
            return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_MAX_WIDTH, MRC_EV_FMT_ATTR_FIELDS);
    }
    if (to == MRC_PROFILE_ONLINE && !n.nfields)
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_FIELDS_MISSING, MRC_EV_FMT_ATTR_FIELDS);
    if (!f && !(f = (mrc__evfmt *)mrc__tab_claim(ep->fmts, MRC_MAX_EV_FMTS, sizeof ep->fmts[0],
                                                  offsetof(mrc__evfmt, used), id)))
        return mrc__fail(ep, MRC_ERR_FULL, MRC_DETAIL_PROFILE_FULL, 0);
    n.state = (uint8_t)to;
    mrc__copy(&f->a, &n, sizeof n);
    return MRC_OK;
}
MRC_API int mrc_ev_fmt_query(const mrc_endpoint *ep, uint64_t id, mrc_ev_fmt_attr *a) {
    const mrc__evfmt *f;
    if (!ep || !a) return MRC_ERR_INVAL;
    f = mrc__fmt_find(ep, id);
    if (!f) return MRC_ERR_NOENT;
    mrc__copy(a, &f->a, sizeof *a);
    return MRC_OK;
}

/* ---- EV profiles -------------------------------------------------------------------------------------------- */
enum { MRC__HAVE_MIN_ACTIVE = 1u, MRC__HAVE_EVENT_MASK = 2u }; /* pf->have: the attributes given 4 bits down */
MRC__STATIC_ASSERT(MRC__HAVE_MIN_ACTIVE << 4 == MRC_EV_PROF_ATTR_MIN_ACTIVE &&
                       MRC__HAVE_EVENT_MASK << 4 == MRC_EV_PROF_ATTR_EVENT_MASK,
                   have_bits);
/* Expand EV idx of a profile (abstract value val) into its path bytes and wire entropy (Q18 SRv6 mode). */
MRC__PRIVATE int mrc__prof_expand(const mrc_ev_field *fields, unsigned nf, const mrc__evfmt *f, unsigned idx,
                                  const uint8_t *val, uint8_t *path, uint32_t *entropy) {
    int bits = mrc_ev_expand(&f->a, fields, nf, val, MRC_EV_BYTES, path, MRC_EV_BYTES);
    unsigned i, abits = 0;
    if (bits < 0) return bits;
    if (f->a.mode != MRC_EV_FMT_SRV6) {
        *entropy = mrc__bits_get(path, 0, (uint32_t)bits); /* the whole expanded EV, at most 32 bits */
        return MRC_OK;
    }
    for (i = 0; i < nf; i++) abits += mrc__popcount32(fields[i].mask);
    *entropy = abits && abits <= 32u ? mrc__bits_get(val, 0, abits) : idx;
    return MRC_OK;
}
/* GEN: a random abstract EV, field by field, each in [min_val, max_val] (0, 0: any non-zero value). */
MRC__PRIVATE void mrc__prof_generate(mrc_endpoint *ep, const mrc__evprof *pf, uint8_t *val) {
    unsigned i;
    uint32_t s = 0;
    MRC_MEMSET(val, 0, MRC_EV_BYTES);
    for (i = 0; i < pf->nfields; i++) {
        const mrc_ev_field *f = &pf->field[i];
        uint32_t k = mrc__popcount32(f->mask), lo = f->min_val, hi = f->max_val;
        uint64_t span;
        if (!k) continue;
        if (!lo && !hi) {
            lo = 1;
            hi = mrc__wmask(k);
        }
        span = (uint64_t)hi - lo + 1u;
        mrc__bits_put(val, s, k, lo + (uint32_t)(((mrc__rand(ep) >> 32) * span) >> 32));
        s += k;
    }
}
/* The QPs using a profile follow a change of its EVs. O(conns x EVs). */
MRC__PRIVATE void mrc__prof_changed(mrc_endpoint *ep, const mrc__evprof *pf, int idx, int how) {
    unsigned i, j;
    uint8_t pi = (uint8_t)(pf - ep->profs + 1);
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        mrc_conn *c = ep->conns[i];
        if (!c || c->ev_prof != pi) continue;
        for (j = 0; j < c->ev_count; j++) {
            mrc__ev *e = &c->evs[j];
            if (idx >= 0 && j != (unsigned)idx) continue;
            if (how == 0) { /* new value (read from the profile) or port */
                e->port = pf->ev[j].port;
            } else if (how == 1 && mrc__ev_is_bad(e)) { /* the controller says GOOD: reported, as its ASSUMED_BAD is */
                mrc__ev_badref(c, j, -1);
                e->st = 0;
                mrc__ev_event(c, (uint16_t)j, MRC_EVS_GOOD);
            } else if (how == 2) { /* the controller says ASSUMED_BAD */
                mrc__ev_demote(c, (uint16_t)j, true);
            }
        }
        if (how != 2) mrc__conn_ev_changed(c);
        else {
            mrc__sched_tx(c);
            mrc__timer_update(c);
        }
    }
}
/* P28 mirror reverse path: rebuild the profile's entropy index (mrc__prof_lookup) from its EVs; every change of an EV's
 * entropy or port calls it. O(n), at the controller's pace. */
MRC__PRIVATE void mrc__prof_index(mrc__evprof *pf) {
    unsigned i;
    MRC_MEMSET(pf->hix, 0, sizeof pf->hix);
    for (i = 0; i < pf->ev_count; i++) {
        uint32_t h = mrc__ent_hash(pf->ev[i].entropy);
        if (!pf->ev[i].port) continue; /* unpopulated */
        while (pf->hix[h]) h = mrc__ent_next(h);
        pf->hix[h] = (uint16_t)(i + 1u);
    }
}
MRC_API int mrc_ev_profile_modify(mrc_endpoint *ep, uint64_t id, const mrc_ev_profile_attr *a, uint32_t mask,
                                  mrc_time now) {
    const uint32_t all = MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_MODE | MRC_EV_PROF_ATTR_FMT_ID |
                         MRC_EV_PROF_ATTR_COUNT | MRC_EV_PROF_ATTR_MIN_ACTIVE | MRC_EV_PROF_ATTR_EVENT_MASK |
                         MRC_EV_PROF_ATTR_FIELDS;
    const uint32_t need = MRC_EV_PROF_ATTR_MODE | MRC_EV_PROF_ATTR_FMT_ID | MRC_EV_PROF_ATTR_COUNT |
                          MRC_EV_PROF_ATTR_FIELDS;
    mrc__evprof *pf;
    const mrc__evfmt *f;
    unsigned cur, to, i, j, have, nf, mode;
    uint32_t count, min_active;
    uint64_t fmt_id;
    const mrc_ev_field *fields;
    unsigned code, idx;
    int rc;
    if ((rc = mrc__prof_begin(ep, MRC_CALL_EV_PROFILE_MODIFY, a, id, mask, all)) != MRC_OK) return rc;
    now = mrc__clock_ctl(ep, now);
    pf = mrc__prof_find(ep, id);
    cur = pf ? pf->state : (unsigned)MRC_PROFILE_INIT;
    /* STATE, MODE, COUNT, EVENT_MASK, FIELDS' count */
    if ((rc = mrc__ranges(ep, a, mrc__prof_ranges, MRC__NRANGES(mrc__prof_ranges), mask)) != MRC_OK) return rc;
    to = mask & MRC_EV_PROF_ATTR_STATE ? a->state : cur; /* a state past ONLINE only from the call */
    rc = mrc__prof_step(ep, cur, to, mask, need,
                        all & ~(uint32_t)(MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_EVENT_MASK), pf && pf->refs);
    if (rc) return rc < 0 ? rc : MRC_OK;
    if (to == MRC_PROFILE_INIT) { /* OFFLINE -> INIT: forgotten */
        MRC_MEMSET(pf, 0, sizeof *pf);
        return MRC_OK;
    }
    /* the values after this call, validated before anything changes: the profile's (none before INIT -> OFFLINE,
     * whose mask has every attribute but MIN_ACTIVE and EVENT_MASK), then the call's */
    mode = nf = have = 0;
    count = min_active = 0;
    fields = a->field;
    fmt_id = a->fmt_id;
    if (pf) {
        mode = pf->mode;
        count = pf->ev_count;
        min_active = pf->ev_min_active;
        nf = pf->nfields;
        fields = pf->field;
        have = pf->have;
        fmt_id = pf->fmt_id;
    }
    if (mask & MRC_EV_PROF_ATTR_MODE) mode = a->mode;
    if (mask & MRC_EV_PROF_ATTR_COUNT) count = a->ev_count;
    if (mask & MRC_EV_PROF_ATTR_MIN_ACTIVE) min_active = a->ev_min_active;
    if (mask & MRC_EV_PROF_ATTR_FIELDS) {
        nf = a->nfields;
        fields = a->field;
    }
    if (mask & MRC_EV_PROF_ATTR_FMT_ID) fmt_id = a->fmt_id;
    have |= (mask >> 4) & (MRC__HAVE_MIN_ACTIVE | MRC__HAVE_EVENT_MASK);
    if (min_active > count) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_MIN_ACTIVE, MRC_EV_PROF_ATTR_MIN_ACTIVE);
    f = mrc__fmt_find(ep, fmt_id);
    if (f && f->a.nfields && (code = mrc__prof_check(&f->a, fields, nf, &idx)) != MRC_DETAIL_NONE)
        return mrc__fail_at(ep, MRC_ERR_INVAL, code, MRC_EV_PROF_ATTR_FIELDS, idx);
    if (to == MRC_PROFILE_ONLINE && cur == MRC_PROFILE_OFFLINE) {
        if (have != (MRC__HAVE_MIN_ACTIVE | MRC__HAVE_EVENT_MASK)) /* the missing ones' mask bits (have_bits) */
            return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_ATTR_MISSING,
                             (~have & (MRC__HAVE_MIN_ACTIVE | MRC__HAVE_EVENT_MASK)) << 4);
        if (!f) return mrc__fail(ep, MRC_ERR_NOENT, MRC_DETAIL_FMT_UNKNOWN, MRC_EV_PROF_ATTR_FMT_ID);
        if (f->a.state != MRC_PROFILE_ONLINE)
            return mrc__fail(ep, MRC_ERR_NOENT, MRC_DETAIL_FMT_NOT_ONLINE, MRC_EV_PROF_ATTR_FMT_ID);
        if (mode == MRC_EV_MODE_EXP) { /* every EV given and expandable */
            uint8_t path[MRC_EV_BYTES];
            uint32_t ent;
            if (mode != pf->mode) /* a new mode empties the array (commit below) */
                return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_MODE_CHANGED, MRC_EV_PROF_ATTR_MODE);
            for (i = 0; i < count; i++) {
                if (!pf->ev[i].port || pf->ev[i].port > ep->cfg.num_ports)
                    return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_UNPOPULATED, 0, i);
                if (mrc__prof_expand(fields, nf, f, i, pf->ev[i].val, path, &ent))
                    return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_EXPAND, 0, i);
            }
        }
    }
    /* commit */
    if (!pf && !(pf = (mrc__evprof *)mrc__tab_claim(ep->profs, MRC_MAX_EV_PROFILES, sizeof ep->profs[0],
                                                    offsetof(mrc__evprof, used), id)))
        return mrc__fail(ep, MRC_ERR_FULL, MRC_DETAIL_PROFILE_FULL, 0);
    if (mode != pf->mode || count != pf->ev_count) { /* a new array: unpopulated from the old count on */
        i = (mode != pf->mode) ? 0u : (unsigned)pf->ev_count;
        MRC_MEMSET(&pf->ev[i], 0, (MRC_MAX_EVS - i) * sizeof pf->ev[0]);
        for (i = 0; i < MRC_MAX_EVS; i++) pf->ev[i].group = pf->ev[i].grp_nx = 0; /* P26 hop groups: and no hop groups
                                                                                     */
    }
    pf->mode = (uint8_t)mode;
    pf->ev_count = count;
    pf->ev_min_active = min_active;
    if (mask & MRC_EV_PROF_ATTR_EVENT_MASK) pf->event_mask = a->event_mask;
    pf->fmt_id = fmt_id;
    if (mask & MRC_EV_PROF_ATTR_FIELDS) {
        pf->nfields = (uint8_t)nf;
        MRC_MEMCPY(pf->field, a->field, nf * sizeof pf->field[0]);
        MRC_MEMSET(&pf->field[nf], 0, (MRC_MAX_EV_FIELDS - nf) * sizeof pf->field[0]);
    }
    pf->have = (uint8_t)have;
    if (to == MRC_PROFILE_ONLINE && cur == MRC_PROFILE_OFFLINE) {
        pf->fmt_mode = f->a.mode;
        pf->path_len = (uint8_t)(f->a.mode != MRC_EV_FMT_SRV6 ? 0u : mrc__fmt_bits(&f->a) > 128u ? 32u : 16u);
        for (i = 0; i < count; i++) {
            mrc__event *e = &pf->ev[i];
            if (mode == MRC_EV_MODE_GEN) { /* distinct per port when the field ranges allow (O(n^2), once) */
                unsigned tries = 0;
                e->port = (uint8_t)(i % ep->cfg.num_ports + 1u);
                e->denied = 0;
                do {
                    mrc__prof_generate(ep, pf, e->val);
                    for (j = 0; j < i && (pf->ev[j].port != e->port || MRC_MEMCMP(pf->ev[j].val, e->val, MRC_EV_BYTES));
                         j++) {
                    }
                } while (j < i && ++tries < 16u);
            }
            e->bad_refs = 0;
            (void)mrc__prof_expand(pf->field, pf->nfields, f, i, e->val, e->path, &e->entropy);
        }
    }
    mrc__prof_index(pf);
    pf->state = (uint8_t)to;
    return MRC_OK;
}
MRC_API int mrc_ev_profile_query(const mrc_endpoint *ep, uint64_t id, mrc_ev_profile_attr *a) {
    const mrc__evprof *pf;
    if (!ep || !a) return MRC_ERR_INVAL;
    MRC_MEMSET(a, 0, sizeof *a);
    if (id == 0) { /* the built-in AUTO profile */
        a->state = MRC_PROFILE_ONLINE;
        a->mode = MRC_EV_MODE_AUTO;
        a->ev_count = mrc__auto_evs(ep, &a->ev_min_active);
        a->event_mask = ep->cfg.auto_ev.event_mask;
        return MRC_OK;
    }
    pf = mrc__prof_find(ep, id);
    if (!pf) return MRC_ERR_NOENT;
    a->state = pf->state;
    a->mode = pf->mode;
    a->nfields = pf->nfields;
    a->fmt_id = pf->fmt_id;
    a->ev_count = pf->ev_count;
    a->ev_min_active = pf->ev_min_active;
    a->event_mask = pf->event_mask;
    MRC_MEMCPY(a->field, pf->field, sizeof a->field);
    return MRC_OK;
}

/* ---- EV operations ---------------------------------------------------------------------------------------------- */
MRC__PRIVATE int mrc__prof_match(const mrc__evprof *pf, const mrc_ev *ev, unsigned from) {
    unsigned i;
    for (i = from; i < pf->ev_count; i++)
        if (pf->ev[i].port == ev->port && !MRC_MEMCMP(pf->ev[i].val, ev->val, MRC_EV_BYTES)) return (int)i;
    return -1;
}
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__prof_state(const mrc__evprof *pf, unsigned i) {
    return pf->ev[i].denied ? MRC_EVS_DENIED : pf->ev[i].bad_refs ? MRC_EVS_ASSUMED_BAD : MRC_EVS_GOOD;
}
MRC_API int mrc_ev_op(mrc_endpoint *ep, uint64_t profile_id, unsigned op, mrc_ev_op_entry *e, uint32_t *n,
                      mrc_time now) {
    mrc__evprof *pf;
    const mrc__evfmt *f;
    uint32_t count, k;
    unsigned i;
    if (!ep) return MRC_ERR_INVAL;
    mrc__detail_begin(ep, MRC_CALL_EV_OP);
    if (!n || (*n && !e) || op > MRC_EV_OP_QUERY_ARRAY) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_OP, 0);
    (void)mrc__clock_ctl(ep, now);
    count = *n;
    *n = 0;
    pf = mrc__prof_find(ep, profile_id);
    if (!pf) return mrc__fail(ep, MRC_ERR_NOENT, MRC_DETAIL_PROFILE_UNKNOWN, 0);
    f = mrc__fmt_find(ep, pf->fmt_id);
    if (op == MRC_EV_OP_QUERY_ARRAY) {
        if (count < pf->ev_count) {
            *n = pf->ev_count;
            return mrc__fail(ep, MRC_ERR_NOBUF, MRC_DETAIL_ARRAY_ROOM, 0);
        }
        for (i = 0; i < pf->ev_count; i++) {
            MRC_MEMSET(&e[i], 0, sizeof e[i]);
            mrc__copy(e[i].ev.val, pf->ev[i].val, MRC_EV_BYTES);
            e[i].ev.port = pf->ev[i].port;
            e[i].state = mrc__prof_state(pf, i);
        }
        *n = pf->ev_count;
        return MRC_OK;
    }
    for (k = 0; k < count; k++, (*n)++) {
        mrc_ev_op_entry *x = &e[k];
        int m = mrc__prof_match(pf, &x->ev, 0);
        if (m < 0) return mrc__fail_at(ep, MRC_ERR_NOENT, MRC_DETAIL_EV_NOT_FOUND, 0, k);
        if (op == MRC_EV_OP_QUERY_STATE) {
            x->state = mrc__prof_state(pf, (unsigned)m);
        } else if (op == MRC_EV_OP_MODIFY_STATE) {
            if (x->state != MRC_EVS_GOOD && x->state != MRC_EVS_DENIED && x->state != MRC_EVS_ASSUMED_BAD)
                return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_STATE, 0, k);
            for (; m >= 0; m = mrc__prof_match(pf, &x->ev, (unsigned)m + 1u)) {
                if (x->state == MRC_EVS_ASSUMED_BAD) {
                    mrc__prof_changed(ep, pf, m, 2);
                    continue;
                }
                pf->ev[m].denied = x->state == MRC_EVS_DENIED;
                mrc__prof_changed(ep, pf, m, x->state == MRC_EVS_GOOD ? 1 : 3);
            }
        } else { /* REPLACE */
            uint8_t path[MRC_EV_BYTES];
            uint32_t ent = 0;
            if (x->state != MRC_EVS_GOOD && x->state != MRC_EVS_DENIED)
                return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_STATE, 0, k);
            if (x->ev_new.port < 1 || x->ev_new.port > ep->cfg.num_ports)
                return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_PORT, 0, k);
            if (f && f->a.nfields && mrc__prof_expand(pf->field, pf->nfields, f, (unsigned)m, x->ev_new.val, path, &ent))
                return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_EXPAND, 0, k);
            if (pf->state == MRC_PROFILE_ONLINE && !f)
                return mrc__fail_at(ep, MRC_ERR_NOENT, MRC_DETAIL_FMT_UNKNOWN, 0, k);
            for (; m >= 0; m = (x->flags & MRC_EV_OP_F_ALL_COPIES) ? mrc__prof_match(pf, &x->ev, (unsigned)m + 1u) : -1) {
                mrc__event *v = &pf->ev[m];
                mrc__copy(v->val, x->ev_new.val, MRC_EV_BYTES);
                v->port = x->ev_new.port;
                v->denied = x->state == MRC_EVS_DENIED;
                if (pf->state == MRC_PROFILE_ONLINE) {
                    (void)mrc__prof_expand(pf->field, pf->nfields, f, (unsigned)m, v->val, v->path, &v->entropy);
                    mrc__prof_changed(ep, pf, m, 0);
                }
            }
            mrc__prof_index(pf);
        }
    }
    return MRC_OK;
}
/* EV i of a UDP EV set: from the arrays, or (ports NULL) from the plane layout of mrc_ev_profile_udp_planes */
MRC__PRIVATE int mrc__ev_profile_udp(mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, const uint8_t *ports,
                                     const uint16_t *sports, unsigned n, unsigned planes, unsigned K, unsigned base,
                                     unsigned min_active, mrc_time now) {
    mrc_ev_fmt_attr f;
    mrc_ev_profile_attr a;
    mrc_ev_op_entry e;
    unsigned i;
    uint32_t one;
    int rc;
    MRC_MEMSET(&f, 0, sizeof f);
    f.state = MRC_PROFILE_OFFLINE;
    f.mode = MRC_EV_FMT_UDP;
    f.nfields = 1;
    f.width[0] = 16;
    rc = mrc_ev_fmt_modify(ep, fmt_id, &f, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS);
    f.state = MRC_PROFILE_ONLINE;
    if (!rc) rc = mrc_ev_fmt_modify(ep, fmt_id, &f, MRC_EV_FMT_ATTR_STATE);
    if (rc) return rc;
    MRC_MEMSET(&a, 0, sizeof a);
    a.state = MRC_PROFILE_OFFLINE;
    a.mode = MRC_EV_MODE_EXP;
    a.nfields = 1;
    a.fmt_id = fmt_id;
    a.ev_count = n;
    a.ev_min_active = min_active;
    a.event_mask = MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD;
    a.field[0].width = 16;
    a.field[0].mask = 0xFFFFu;
    rc = mrc_ev_profile_modify(ep, prof_id, &a,
                               MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_MODE | MRC_EV_PROF_ATTR_FMT_ID |
                                   MRC_EV_PROF_ATTR_COUNT | MRC_EV_PROF_ATTR_MIN_ACTIVE |
                                   MRC_EV_PROF_ATTR_EVENT_MASK | MRC_EV_PROF_ATTR_FIELDS,
                               now);
    for (i = 0; !rc && i < n; i++) { /* each replaces an unpopulated entry */
        unsigned port = ports ? ports[i] : i % planes + 1u;
        unsigned sport = ports ? sports[i] : base + (port - 1u) * K + i / planes;
        MRC_MEMSET(&e, 0, sizeof e);
        e.ev_new.val[0] = (uint8_t)(sport >> 8);
        e.ev_new.val[1] = (uint8_t)(sport & 0xFFu);
        e.ev_new.port = (uint8_t)port;
        e.state = MRC_EVS_GOOD;
        one = 1;
        rc = mrc_ev_op(ep, prof_id, MRC_EV_OP_REPLACE, &e, &one, now);
    }
    if (rc) return rc;
    a.state = MRC_PROFILE_ONLINE;
    return mrc_ev_profile_modify(ep, prof_id, &a, MRC_EV_PROF_ATTR_STATE, now);
}
MRC_API int mrc_ev_profile_udp(mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, const uint8_t *ports,
                               const uint16_t *sports, unsigned n, unsigned min_active, mrc_time now) {
    if (!ep || !ports || !sports || !n) return MRC_ERR_INVAL;
    return mrc__ev_profile_udp(ep, fmt_id, prof_id, ports, sports, n, 0, 0, 0, min_active, now);
}
MRC_API int mrc_ev_profile_udp_planes(mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, unsigned planes,
                                      unsigned evs_per_plane, unsigned sport_base, unsigned min_active, mrc_time now) {
    if (!ep || !planes || planes > ep->cfg.num_ports || !evs_per_plane || evs_per_plane > MRC_MAX_EVS ||
        planes * evs_per_plane > MRC_MAX_EVS || sport_base > 65536u - planes * evs_per_plane)
        return MRC_ERR_INVAL;
    return mrc__ev_profile_udp(ep, fmt_id, prof_id, (const uint8_t *)0, (const uint16_t *)0, planes * evs_per_plane,
                               planes, evs_per_plane, sport_base, min_active, now);
}
MRC_API int mrc_ev_profile_groups(mrc_endpoint *ep, uint64_t prof_id, const uint16_t *group, unsigned n) {
    mrc__evprof *pf;
    unsigned i, j;
    if (!ep || !prof_id || (n && !group)) return MRC_ERR_INVAL;
    pf = mrc__prof_find(ep, prof_id);
    if (!pf || pf->state == MRC_PROFILE_INIT) return MRC_ERR_NOENT;
    if (n > pf->ev_count) return MRC_ERR_INVAL;
    for (i = 0; i < MRC_MAX_EVS; i++) pf->ev[i].group = (uint16_t)(i < n ? group[i] : 0u);
    for (i = 0; i < pf->ev_count; i++) { /* the ring: the next index of the same group, wrapping round */
        pf->ev[i].grp_nx = 0;
        if (!pf->ev[i].group) continue;
        for (j = i + 1u;; j++) { /* i itself at the latest */
            if (j == pf->ev_count) j = 0;
            if (pf->ev[j].group == pf->ev[i].group) break;
        }
        pf->ev[i].grp_nx = (uint16_t)(j + 1u);
    }
    return MRC_OK;
}

/* ====== src/check.h ============================================================================================= */
/* ================================================================================================================
 * INVARIANTS: what src/check.c offers the layers above it (mrc_conn_check itself is public API)
 * ============================================================================================================== */

/* MRC_CHECK_INVARIANTS: every QP's invariants (mrc_conn_check) asserted at the end of each call that changes them */
#ifdef MRC_CHECK_INVARIANTS
MRC__PRIVATE void mrc__check_all(const mrc_endpoint *ep);
#define MRC__CHECK_ALL(ep)                                                                                     \
    do {                                                                                                       \
        if (!(ep)->in_burst) mrc__check_all(ep); /* P37 bursts: a burst is checked once, at its end */         \
    } while (0)
#else
#define MRC__CHECK_ALL(ep) ((void)0)
#endif

/* ====== src/check.c ============================================================================================= */
/* ================================================================================================================
 * INVARIANTS - src/check.c
 * Owns: mrc_conn_check, every structural invariant of a QP (its EV lists and counts, its windows, records, queues
 * and timers) checked in O(size of the QP), and mrc__check_all behind MRC_CHECK_INVARIANTS, which asserts them for
 * every QP at the end of each call into the endpoint loop (tests, fuzzers and the sanitizer builds turn it on).
 * Calls: codec, state, timers, path, path_policy, requester (reads only).
 * ============================================================================================================== */

/* ---- invariants (mrc_conn_check; every call checks them with MRC_CHECK_INVARIANTS) ------------------------------ */
#ifdef MRC_NO_CHECK
/* compiled out (a firmware's production build: the checker is for tests and fuzzers) */
MRC_API int mrc_conn_check(const mrc_conn *c) { return c ? MRC_ERR_NOTSUP : MRC_ERR_INVAL; }
#else
/* mrc_conn_check's rules 17 to 23, in its order (out of line: the walks' registers are their own) */
MRC__PRIVATE MRC__NOINLINE int mrc__check_tail(const mrc_conn *c) {
    unsigned i, p;
    /* Rule 17 (P23 EV recycling): each port's recycle FIFO lies in its segment and holds EVs of that port; an EV's
     * valid entries (rc) are some of its entries, and only an ACTIVE EV has any. O(EVs). */
    {
        uint16_t occ[MRC_MAX_EVS];
        MRC_MEMSET(occ, 0, c->ev_count * sizeof occ[0]);
        if (c->seg[MRC_MAX_PORTS] != c->ev_count) return 17; /* the segments end at ev_count */
        for (p = 0; p < MRC_MAX_PORTS; p++) {
            unsigned cap = mrc__ev_seglen(c, p), k;
            if (c->rc_n[p] > cap || (cap ? c->rc_head[p] >= cap : c->rc_head[p] != 0)) return 17;
            for (k = 0; k < c->rc_n[p]; k++) {
                unsigned pos = (unsigned)c->rc_head[p] + k, sl;
                sl = c->rc_ring[c->seg[p] + (pos >= cap ? pos - cap : pos)];
                if (sl >= c->ev_count || c->evs[sl].port != p + 1u) return 17;
                occ[sl]++;
            }
        }
        for (i = 0; i < c->ev_count; i++)
            if (c->evs[i].rc > occ[i] || (c->evs[i].rc && MRC__EVST(&c->evs[i]) != MRC__EVS_ACTIVE)) return 17;
    }
    /* Rule 18 (P26 hop groups): the hop groups of the QP's profile stay inside its EV set: an EV's ring successor is
     * one of the QP's slots, of the same (non-zero) group; an EV without a successor has no group. Rule 20 (P28 mirror
     * reverse path): the profile's entropy index finds every populated EV of the QP, so a control packet can leave on
     * the arrival's mirror. O(n). */
    if (c->ep && c->ev_prof) {
        const mrc__evprof *pf = mrc__conn_prof(c);
        for (i = 0; i < c->ev_count; i++) {
            unsigned nx = pf->ev[i].grp_nx;
            if (nx ? nx > c->ev_count || !pf->ev[i].group || pf->ev[nx - 1u].group != pf->ev[i].group
                   : pf->ev[i].group != 0)
                return 18;
            if (pf->ev[i].port && mrc__prof_lookup(pf, pf->ev[i].entropy, pf->ev[i].port) < 0) return 20;
        }
    }
    /* Rule 19: the proven EV (P25 hashed-EV bypass knobs) is none or one of the QP's EVs (a retransmission may be sent
     * on it) */
    if (c->ev_proven != MRC__EV_NONE && c->ev_count && c->ev_proven >= c->ev_count) return 19;
    /* Rule 22 (P33 TLP copies): the other copy of the tail-loss probe is awaited only with the probe, on one of the
     * QP's EVs */
    if ((c->tlp2 & MRC__TLP2_OUT) && (c->probes[0].kind != MRC__PROBE_TLP || c->tlp2_slot >= c->ev_count)) return 22;
    /* Rule 23 (P35 sweeps): the verification queue and probes */
    if (c->ver_n > c->ev_count || (c->ev_count ? c->ver_head >= c->ev_count : c->ver_head != 0)) return 23;
    for (i = 0; i < c->ev_count; i++) { /* the queue's entries (ver_n <= ev_count, above), and each EV's probe */
        unsigned k;
        if (i < c->ver_n && c->ver_ring[mrc__ev_ver_pos(c, i)] >= c->ev_count) return 23;
        if (!(c->evs[i].st & MRC__EVF_VPROBE)) continue;
        if (!mrc__ev_is_ver(&c->evs[i])) return 23;
        for (k = 1; k < MRC_MAX_PROBES && !(c->probes[k].kind == MRC__PROBE_VER && c->probes[k].slot == i); k++) {
        }
        if (k == MRC_MAX_PROBES) return 23; /* named by none (an older probe of an earlier hold may name it too: either
                                               answer proves the path) */
    }
    for (i = 1; i < MRC_MAX_PROBES; i++) {
        if (c->probes[i].kind != MRC__PROBE_VER) continue;
        if (c->probes[i].slot >= c->ev_count) return 23;
        if (!((c->probes_due >> i) & 1u) && MRC__NEVER(c->ver_deadline)) return 23;
    }
    return 0;
}
/* Every EV slot is in exactly the place its state says, and the per-port counts match; then the rules below and
 * mrc__check_tail's. O(n). */
MRC_API int mrc_conn_check(const mrc_conn *c) {
    unsigned i, p, nb = 0, seen_bad = 0, bk;
    uint16_t s;
    if (!c) return MRC_ERR_INVAL;
    for (p = 0; p < MRC_MAX_PORTS; p++) {
        if ((unsigned)c->n_act[p] + c->n_skip[p] > c->ev_count || c->act_pos[p] > c->n_act[p]) return 1;
        for (i = 0; i < (unsigned)c->n_act[p] + c->n_skip[p]; i++) {
            const mrc__ev *e = &c->evs[c->ring[c->seg[p] + i]];
            if (e->port != p + 1u || e->at != i) return 2;
            if (MRC__EVST(e) != (i < c->n_act[p] ? MRC__EVS_ACTIVE : MRC__EVS_SKIP)) return 3;
        }
        for (bk = 0, s = c->bk_head[p]; s != MRC__EV_NONE; s = c->evs[s].at) {
            if (MRC__EVST(&c->evs[s]) != MRC__EVS_BACKUP || c->evs[s].port != p + 1u || ++bk > c->ev_count) return 4;
        }
        if (bk != c->bk_n[p]) return 5;
    }
    for (s = c->bad_head; s != MRC__EV_NONE; s = c->evs[s].at) {
        if (MRC__EVST(&c->evs[s]) != MRC__EVS_BAD || ++seen_bad > c->ev_count) return 6;
        if (c->evs[s].at == MRC__EV_NONE && s != c->bad_tail) return 7;
    }
    if (seen_bad != c->n_bad) return 8;
    for (i = 0; i < c->ev_count; i++) {
        unsigned st = MRC__EVST(&c->evs[i]);
        if (st == MRC__EVS_BAD) nb++;
        if (st > MRC__EVS_OFF) return 9;
        /* Rule 21 (P29 suspect hold): a hold is a skipped EV's, and bounded (it rejoins within MRC__SUS_ROUNDS rounds)
         * */
        if ((c->evs[i].hold > MRC__SUS_ROUNDS && c->evs[i].hold != MRC__HOLD_VER) ||
            (c->evs[i].hold && st != MRC__EVS_SKIP))
            return 21;
    }
    if (nb != c->n_bad) return 10;
    /* Liveness (docs/PROTOCOL.md 7.11): a QP in RTS with work (writes not complete, PSNs in flight) is never silent.
     * It has a packet ready (in the endpoint's transmit round-robin), or it waits on its context's READY list for
     * bytes in flight to be acknowledged, or for the context's pacing clock, whose deadline a QP on that list holds
     * (P24 sub-packet windows: mrc__cc_wake stops at the first QP the clock holds, and its deadline wakes the list), or
     * one of its timers is armed. The walk is O(QPs on the list), here only. */
    if (c->state == MRC_QPS_RTS && c->ep && mrc__req_has_work(c) && !c->in_txq && MRC__NEVER(c->deadline) &&
        !c->in_poolq) {
        const mrc__ccx *x = c->ccx == MRC__EV_NONE ? (const mrc__ccx *)0 : &c->ep->ccx[c->ccx];
        if (!c->in_ready || !x) return 11;
        if (!x->inflight) {
            unsigned k = x->ready_head, n;
            const mrc_conn *r = (const mrc_conn *)0;
            for (n = 0; k < MRC_MAX_CONNS && n < MRC_MAX_CONNS; k = r->ready_next, n++) {
                r = c->ep->conns[k];
                if (!r || !MRC__NEVER(r->pace_deadline)) break;
            }
            if (k >= MRC_MAX_CONNS || n == MRC_MAX_CONNS || !r) return 11;
        }
    }
    /* ... and one waiting for pool memory waits only while no block is free or retained: a block freed or retained
     * goes to a waiter */
    if (c->in_poolq && c->state == MRC_QPS_RTS && c->ep && (c->ep->pool_nfree || c->ep->pool_nret)) return 12;
    /* the requester's memory: every PSN of [win_base, snd_nxt) has its block (O(window / 64)); each listed record is
     * one of those, on one list */
    if (c->state == MRC_QPS_RTS && c->ep) {
        uint32_t w = (uint32_t)mrc_psn_diff(c->snd_nxt, c->win_base), k;
        for (k = 0; k < w; k = (k | (MRC__BLK_PSNS - 1u)) + 1u) {
            /* live: a retained block holds acknowledged PSNs only */
            mrc__blkidx b = c->btab[MRC__BTAB_IDX((c->win_base + k) & MRC_PSN_MASK)];
            if (!b || mrc__pool_ret(c->ep, b - 1u)) return 13;
        }
        if (c->rtxq.n + c->txl.n > w) return 14;
        /* Rule 25: txl_lo is at most the transmit list head's transmission count (the fast paths' span test) */
        if (c->txl.n && (uint32_t)(c->tx_count - c->txl_lo) <
                            (uint32_t)(mrc__txseq)(c->tx_count - MRC__REC(c, c->txl.head)->txseq))
            return 25;
        /* Rule 24: a PSN not acknowledged yet has MRC__PR_FULL exactly when it is not its message's last (the SACK
         * paths take its nominal size from the flag). O(window) */
        for (k = 0; k < w; k++) {
            const uint32_t psn = (c->win_base + k) & MRC_PSN_MASK;
            const mrc__pblk *pb = mrc__blk(c, psn);
            const mrc__psnrec *r = &pb->rec[psn & (MRC__BLK_PSNS - 1u)];
            const mrc__wr *wr = &c->sq[r->wr];
            if ((pb->acked >> (psn & 63u)) & 1u) continue;
            if (!(r->flags & MRC__PR_FULL) != !(((psn - wr->first_psn) & MRC_PSN_MASK) + 1u < mrc__wr_npkts(c, wr)))
                return 24;
        }
    }
    /* Rule 15: each block in the table is this QP's, at that entry; a retained one is linked in the endpoint's FIFO
     * of retained blocks (its neighbours point back at it). O(window / 64). */
    if (c->ep) {
        const mrc_endpoint *ep = c->ep;
        const mrc__pblk *pool = ep->pool; /* (its address in one register) */
        uint32_t t;
        for (t = 0; t < MRC__BTAB_LEN; t++) {
            const mrc__pblk *b;
            uint32_t i1 = c->btab[t];
            if (!i1) continue;
            if (i1 > ep->pool_hw) return 15;
            b = &pool[i1 - 1u];
            if (b->owner != c->slot || MRC__PBLK_TAB(b) != t) return 15;
            if (mrc__pool_ret(ep, i1 - 1u) && ((b->prev ? pool[b->prev - 1u].next : ep->ret_head) != i1 ||
                                (b->next ? pool[b->next - 1u].prev : ep->ret_tail) != i1))
                return 15;
        }
    }
    /* Rule 16: the QP's timer-heap key is at most the earliest of its timers (docs/PROTOCOL.md P36 lazy deadlines),
     * it is in the heap exactly when the key is finite, and in it whenever a timer is armed; t_armed says whether one
     * is (and is counted in ep->armed) */
    if (c->ep) {
        mrc_time d = mrc__timers_min(c);
        if (d < c->deadline || MRC__NEVER(c->deadline) != (c->heap_idx == MRC__NOHEAP)) return 16;
        if (!MRC__NEVER(d) != (c->t_armed != 0) || (c->t_armed && !c->ep->armed)) return 16;
        if (c->heap_idx != MRC__NOHEAP && (c->heap_idx >= c->ep->heap_len || c->ep->heap[c->heap_idx] != c->slot))
            return 16;
    }
    return mrc__check_tail(c);
}
#endif /* MRC_NO_CHECK */
#ifdef MRC_CHECK_INVARIANTS
MRC__PRIVATE void mrc__check_all(const mrc_endpoint *ep) {
    unsigned i;
    for (i = 0; i < MRC_MAX_CONNS; i++) MRC_ASSERT(!ep->conns[i] || mrc_conn_check(ep->conns[i]) == 0);
}
#endif

/* ====== src/endpoint.h ========================================================================================== */
/* ================================================================================================================
 * ENDPOINT LOOP: src/endpoint.c offers the public API only (mrc_endpoint_recv, _poll_tx, _on_timeout, ...)
 * ============================================================================================================== */

/* ====== src/endpoint.c ========================================================================================== */
/* ================================================================================================================
 * ENDPOINT LOOP - src/endpoint.c
 * Owns: the four calls of the caller's loop - recv (demultiplex by destination QPN, O(1)), poll_tx (round-robin
 * over connections with work: control packets, then retransmissions, then new data), on_timeout with the next
 * deadline (each expiry handed to its owner), and pulled events - plus statistics. Each fast path (docs/PROTOCOL.md
 * P22 fast paths) sits beside the general path it shortcuts: the SACK and the responder's data fast paths beside
 * mrc__recv, the requester's new-data fast path beside mrc__poll_tx; make fast-check compares the two per call.
 * The burst calls (docs/PROTOCOL.md P37) take and give many packets per call and do each QP's leftover work once.
 * Calls: every layer below (codec, state, timers, sched, cc, path, path_policy, qp, responder, requester, epop, check).
 * ============================================================================================================== */

/* P37 bursts, runs of one QP's in-order data packets (mrc__rsp_fast_run) and SACKs (mrc__req_sack_run): where speed is
 * asked for; gcc -Os leaves them out (about 1.6 KB on Cortex-M4 for the first: the firmware's size target) and takes
 * every packet of a burst alone */
#if MRC_FAST_PATH && !defined(__OPTIMIZE_SIZE__)
#define MRC__BURST_RUNS 1
#else
#define MRC__BURST_RUNS 0
#endif

/* ---- the end of a SACK's processing, as the SACK fast path runs it (and P37 bursts, once per QP) ------------- */
/* mrc__req_losses_scan of a SACK (the fast path's call keeps its two arguments: out of line under -Os) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__sack_losses_scan(mrc_endpoint *ep, mrc_conn *c) {
    mrc__req_losses_scan(ep, c, MRC__LOSS_SACK);
}
/* mrc__req_complete, only when the oldest message is all acknowledged */
MRC__PRIVATE MRC__INLINE void mrc__sack_complete(mrc_conn *c) {
    if (c->sq_done != c->sq_send) {
        const mrc__wr *wr = MRC__SQ(c, c->sq_done);
        if (mrc_psn_diff(c->snd_una, (wr->first_psn + mrc__wr_npkts(c, wr) - 1u) & MRC_PSN_MASK) > 0)
            mrc__req_complete(c);
    }
}

#if MRC_FAST_PATH
/* The SACK fast path's code that buys speed with size, where speed is asked for (not under gcc -Os): the in-order run
 * of the cumulative part (mrc__sack_run, +790 B on Cortex-M4: mrc__sack_cum's loop alone does the same) and the
 * one-PSN case's nominal size in line (+56 B: mrc__rec_nominal), snd_una's scan with the named PSN's block (+56 B) */
#if defined(__OPTIMIZE_SIZE__)
#define MRC__SACK_SPEED 0
#else
#define MRC__SACK_SPEED 1
#endif
/* mrc__blk(c, psn), bk the block of ack_psn's 64 PSNs: no lookup for a PSN among them (speed only: +56 B) */
MRC__PRIVATE MRC__ALWAYS_INLINE const mrc__pblk *mrc__sack_blk(const mrc_conn *c, uint32_t psn, uint32_t ack_psn,
                                                               const mrc__pblk *bk) {
#if MRC__SACK_SPEED
    return ((psn ^ ack_psn) & ~(MRC__BLK_PSNS - 1u)) ? mrc__blk(c, psn) : bk;
#else
    (void)ack_psn;
    (void)bk;
    return mrc__blk(c, psn);
#endif
}
/* mrc__req_detect_losses of a SACK, its test (mrc__req_losses_none) in line with the head's send time read from bk, the
 * block of ack_psn's 64 PSNs, when the head is among them (mrc__sack_blk) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__sack_losses(mrc_endpoint *ep, mrc_conn *c, uint32_t ack_psn,
                                                       const mrc__pblk *bk) {
    c->reo_deadline = MRC_TIME_NEVER;
    if (!mrc__req_slack_steady(ep, c) ||
        (c->txl.n && mrc__sack_blk(c, c->txl.head, ack_psn, bk)->sent[c->txl.head & (MRC__BLK_PSNS - 1u)] <=
                         c->lat_acked_sent))
        mrc__sack_losses_scan(ep, c);
}
#if MRC__SACK_SPEED
/* mrc__rec_nominal of PSN psn (record r): a full packet (MRC__PR_FULL) unless its message's last */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__sack_nominal(const mrc_conn *c, uint32_t psn, const mrc__psnrec *r) {
    const mrc__wr *wr;
    if (MRC__LIKELY(r->flags & MRC__PR_FULL)) return mrc__nominal_full(c);
    wr = &c->sq[r->wr];
    return mrc__nominal(c, wr, (psn - wr->first_psn) & MRC_PSN_MASK);
}
/* mrc__req_ack_one of a PSN not acknowledged yet from its block and record, which the caller holds: no look-up. A
 * window with holes: the SACK of a first transmission acknowledges only its PSN (by the bitmap, mrc__sack_ack_named),
 * and the SACK of a retransmission filling the window's first hole only its PSN too (the cumulative part: those after
 * it up to cack were acknowledged by earlier bitmaps, mrc__sack_acked_after) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__sack_ack1(mrc_conn *c, mrc__pblk *bk, mrc__psnrec *r, uint32_t psn) {
    bk->acked |= (uint64_t)1 << (psn & 63u);
    if (r->flags & MRC__PR_INFLIGHT) {
        mrc__cc_on_ack(c, mrc__sack_nominal(c, psn, r));
        mrc__plist_unlink_bk(c, &c->txl, psn, r, bk); /* its neighbours in bk reached there */
    }
    if (MRC__UNLIKELY(r->flags & MRC__PR_QUEUED)) mrc__rtxq_remove(c, psn, r); /* its test in line */
    r->flags &= (uint8_t)~(MRC__PR_INFLIGHT | MRC__PR_LOST);
}
/* the named PSN's, by the bitmap (out of line: in line, its registers cost the fast path's common case) */
MRC__PRIVATE MRC__NOINLINE void mrc__sack_ack_named(mrc_conn *c, mrc__pblk *bk, mrc__psnrec *r, uint32_t psn) {
    mrc__sack_ack1(c, bk, r, psn);
}
/* The PSNs after psn up to cack are all in psn's block (bk) and acknowledged already: mrc__sack_cum from psn would
 * acknowledge psn alone */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__sack_acked_after(const mrc__pblk *bk, uint32_t psn, uint32_t cack) {
    uint32_t i = psn & (MRC__BLK_PSNS - 1u), n = (cack - psn) & MRC_PSN_MASK;
    uint64_t m;
    if (n > MRC__BLK_PSNS - 1u - i) return false;
    m = (((uint64_t)1 << n) - 1u) << i << 1; /* bits i + 1 .. i + n (n = 0: none) */
    return (bk->acked & m) == m;
}
#endif
/* The SACK fast path's one-PSN case (the in-order stream's): the named PSN, not acknowledged yet, is in flight, not
 * queued for retransmission, and the head of a transmit list of more than one - mrc__req_ack_one's updates are then
 * the bit, mrc__cc_on_ack and the head's unlink */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__sack_one_head(const mrc_conn *c, uint32_t psn, const mrc__psnrec *r) {
    return (r->flags & (MRC__PR_INFLIGHT | MRC__PR_QUEUED)) == MRC__PR_INFLIGHT && c->txl.head == psn && c->txl.n > 1u;
}
/* mrc__cc_on_ack's subtractions of sum nominal bytes, without its wake-up (x: the QP's context, or none; out of line
 * under -Os: two callers in mrc__sack_cum) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__sack_cc_sub(mrc_conn *c, mrc__ccx *x, uint32_t sum) {
    MRC_ASSERT(c->cc_inflight >= sum);
    c->cc_inflight -= MRC__MIN(c->cc_inflight, (uint64_t)sum);
    if (x) x->inflight -= MRC__MIN(x->inflight, (uint64_t)sum);
}
/* The SACK fast path's cumulative part: mrc__req_ack_one of each PSN of [psn, cack] not acknowledged yet, O(1) each
 * as there (b: psn's block). Out of line: the one-PSN common case (above) is the fast path's own. mrc__cc_on_ack's
 * subtractions (saturating at 0, so summing them changes nothing) are summed and made once - before each wake-up of
 * the context's READY list, the only reader of the flight on the way, and at the end: the same values as one by one
 * (and as with mrc__sack_run's sum, of the PSNs before psn, taken off first). */
MRC__PRIVATE MRC__NOINLINE void mrc__sack_cum(mrc_endpoint *ep, mrc_conn *c, mrc__ccx *x, mrc__pblk *b, uint32_t psn,
                                              uint32_t cack) {
    const uint32_t full = mrc__nominal_full(c);
    uint32_t sum = 0; /* nominal bytes acknowledged, not yet taken off the flight (at most MRC_MAX_INFLIGHT packets) */
    for (;; psn = MRC__PSN_INC(psn)) {
        uint64_t bit = (uint64_t)1 << (psn & 63u);
        mrc__psnrec *q;
        if (!(psn & (MRC__BLK_PSNS - 1u))) b = mrc__blk(c, psn);
        q = &b->rec[psn & (MRC__BLK_PSNS - 1u)];
        if (!(b->acked & bit)) {
            b->acked |= bit;
            if (q->flags & MRC__PR_INFLIGHT) { /* mrc__cc_on_ack, then off the transmit list */
                sum += (q->flags & MRC__PR_FULL) ? full : mrc__rec_nominal(c, psn, q); /* mrc__rec_nominal */
                if (x && MRC__UNLIKELY(x->ready_head != MRC__EV_NONE)) {
                    mrc__sack_cc_sub(c, x, sum);
                    sum = 0;
                    mrc__cc_wake(ep, x);
                }
                mrc__plist_unlink(c, &c->txl, psn, q);
            }
            mrc__rtxq_remove(c, psn, q);
            q->flags &= (uint8_t)~(MRC__PR_INFLIGHT | MRC__PR_LOST);
        }
        if (psn == cack) break;
    }
    mrc__sack_cc_sub(c, x, sum);
}
#if MRC__SACK_SPEED
/* mrc__sack_cum from the window's first PSN (b: its block), for the fast path: a retransmission that filled the first
 * hole, with the PSNs after it up to cack acknowledged already, is acknowledged alone (mrc__sack_ack1) */
MRC__PRIVATE MRC__NOINLINE void mrc__sack_cum_base(mrc_endpoint *ep, mrc_conn *c, mrc__pblk *b, uint32_t psn,
                                                   uint32_t cack) {
    if (!((b->acked >> (psn & 63u)) & 1u) && mrc__sack_acked_after(b, psn, cack)) { /* a hole filled: psn alone */
        mrc__sack_ack1(c, b, &b->rec[psn & (MRC__BLK_PSNS - 1u)], psn);
        return;
    }
    mrc__sack_cum(ep, c, mrc__conn_ccx(c), b, psn, cack);
}
/* The SACK fast path's cumulative part in the in-order stream (the named PSN is cack, the transmit list starts at psn:
 * the caller's test), taken as a run: while each PSN of [psn, cack] is not acknowledged, in flight, not queued, and
 * (by its predecessor's next link) the transmit list's next record after the ones taken - the list's head each time
 * mrc__req_ack_one's unlink would run - it takes the PSN with no unlink of its own: the acknowledged bits a block at a
 * time, the list's head and length set once at the end as that many head unlinks leave them (the head of a list of
 * one is left in place), the nominal sizes as full packets but for the messages' last ones, one (saturating)
 * subtraction from the flight. Only with the congestion context's READY list empty (nothing here fills it: no
 * wake-up is due). The PSNs from the first it cannot take are mrc__sack_cum's (a tail call). */
MRC__PRIVATE MRC__NOINLINE void mrc__sack_run(mrc_endpoint *ep, mrc_conn *c, mrc__pblk *b, uint32_t psn,
                                              uint32_t cack) {
    mrc__ccx *x = mrc__conn_ccx(c);
    const uint32_t full = mrc__nominal_full(c);
    uint32_t i = psn & (MRC__BLK_PSNS - 1u), len = MRC__MIN(MRC__BLK_PSNS - i, ((cack - psn) & MRC_PSN_MASK) + 1u);
    uint32_t n = 0, last, wend, sum;
    uint64_t a = (b->acked >> i) & (len < 64u ? ((uint64_t)1 << len) - 1u : ~(uint64_t)0); /* acknowledged ones */
    mrc__psnrec first; /* a stand-in predecessor whose next link names the list's head */
    const mrc__psnrec *q = &first, *q0 = &b->rec[i];
    const mrc__wr *wr;
    if (x && x->ready_head != MRC__EV_NONE) {
        mrc__sack_cum(ep, c, x, b, psn, cack);
        return;
    }
    first.next = (mrc__recidx)(psn & (MRC_MAX_INFLIGHT - 1u));
    if (a) len = mrc__ctz64(a); /* the run ends before an acknowledged PSN */
    for (;;) { /* the run's part in b: at most len PSNs from psn (slot i), none acknowledged */
        uint32_t res = psn & (MRC_MAX_INFLIGHT - 1u), j; /* a block's PSNs: consecutive residues (no wrap) */
        mrc__psnrec *t = &b->rec[i];
        for (j = 0; j < len; j++, t++) {
            uint8_t f = t->flags;
            if ((f & (MRC__PR_INFLIGHT | MRC__PR_QUEUED)) != MRC__PR_INFLIGHT || q->next != (mrc__recidx)(res + j))
                break;
            t->flags = (uint8_t)(f & ~(MRC__PR_INFLIGHT | MRC__PR_LOST));
            q = t;
        }
        b->acked |= (j < 64u ? ((uint64_t)1 << j) - 1u : ~(uint64_t)0) << i;
        n += j;
        psn = (psn + j) & MRC_PSN_MASK;
        if (j < len || a || psn == MRC__PSN_INC(cack)) break;
        b = mrc__blk(c, psn); /* the run goes on in the next block */
        i = 0;
        len = MRC__MIN(MRC__BLK_PSNS, ((cack - psn) & MRC_PSN_MASK) + 1u);
        a = b->acked & (len < 64u ? ((uint64_t)1 << len) - 1u : ~(uint64_t)0);
        if (a) len = mrc__ctz64(a);
    }
    if (n) {
        last = (psn - 1u) & MRC_PSN_MASK;
        MRC_ASSERT(c->txl.n >= n);
        if (c->txl.n > n) c->txl.head = mrc__link_psn(c, q->next);
        else c->txl.head = last;
        c->txl.n -= n;
        sum = n * full;
        wr = &c->sq[q0->wr];
        /* each message's last packet in the run: none when packet k + 1 of the first one's (k: the run's last) starts
         * before its end, the in-order stream's common case */
        while (wr->len <= ((uint64_t)(((last - wr->first_psn) & MRC_PSN_MASK) + 1u) << c->mtu_shift)) {
            uint32_t np = mrc__wr_npkts(c, wr);
            wend = (wr->first_psn + np - 1u) & MRC_PSN_MASK;
            sum += mrc__nominal(c, wr, np - 1u) - full; /* wend is in the run: the test above */
            if (wend == last) break;
            wr = &c->sq[MRC__REC(c, MRC__PSN_INC(wend))->wr];
        }
        MRC_ASSERT(c->cc_inflight >= sum);
        c->cc_inflight -= MRC__MIN(c->cc_inflight, (uint64_t)sum);
        if (x) x->inflight -= MRC__MIN(x->inflight, (uint64_t)sum);
        if (last == cack) return;
    }
    mrc__sack_cum(ep, c, x, b, psn, cack); /* b: psn's block (the loop takes a block's first PSN's again) */
}
#endif
#endif

/* The requester half of mrc__sched_tx would do nothing: it is queued already, not in RTS, or has nothing to send
 * (no probe, no retransmission, nothing posted). Then only the control-queue half is left to do. Evaluated whole,
 * without branches: on a QP that only receives (the common case here) every term is read anyway. */
MRC__PRIVATE MRC__INLINE bool mrc__req_idle(const mrc_conn *c) {
    return !(!c->in_txq & (c->state == MRC_QPS_RTS) &
             ((c->sq_send != c->sq_tail) | ((c->probes_due | c->rtxq.n) != 0)));
}

/* ---- P37 bursts: per-QP work deferred to the end of mrc_endpoint_recv_burst ---------------------------------- */
/* The deferred work of one QP: NSCC's update from the burst's SACKs (bytes summed, the latest RTT sample, CE if any
 * was echoed), the RTO/TLP re-arm after them, then what mrc_endpoint_recv does after any packet of a QP (scheduling,
 * the timer key). */
MRC__PRIVATE void mrc__burst_conn(mrc_conn *c, mrc_time now) {
    unsigned f = c->bflags;
    c->bflags = 0;
    if ((f & MRC__BURST_SACK) && c->state == MRC_QPS_RTS) /* the SACKs' loss detection */
        mrc__req_detect_losses(c->ep, c, MRC__LOSS_SACK);
    if (f & MRC__BURST_CC) {
        mrc__ccx *x = mrc__conn_ccx(c);
        mrc__cc_sample cs;
        cs.newly = c->bs_newly;
        cs.rtt = c->bs_rtt;
        cs.ecn = c->bs_ecn;
        cs.pen = cs.r_c = 0;
        c->bs_newly = 0;
        c->bs_rtt = 0;
        c->bs_ecn = 0;
        if (x && x->algo == MRC_CC_ALGO_NSCC) {
            mrc__nscc_ack(c, x, &cs, now);
            if (x->ready_head != MRC__EV_NONE) mrc__cc_wake(c->ep, x);
        }
    }
    if (f & MRC__BURST_SACK) { /* as the SACK fast path's end (mrc__req_timers after progress) */
        mrc__sack_complete(c);
#if MRC_FAST_PATH
        if (!(f & MRC__BURST_PROGRESS) || c->state != MRC_QPS_RTS || c->snd_una == c->snd_nxt) mrc__req_timers(c);
        else mrc__req_timers_arm(c, 0, 0, now, now);
#else
        mrc__req_timers(c); /* only the fast paths defer */
#endif
    }
#if MRC__BURST_RUNS /* (under gcc -Os a third caller of mrc__req_idle made gcc call it out of line on every packet) */
    if (mrc__req_idle(c)) mrc__sched_ctl(c); /* mrc__sched_tx's requester half has nothing to do (a receiver's QP) */
    else
#endif
        mrc__sched_tx(c);
    mrc__timer_update(c);
}
/* Every queued QP's deferred work, in the order they were queued (a QP whose work the general code already did is
 * passed over) */
MRC__PRIVATE void mrc__burst_flush(mrc_endpoint *ep) {
    uint32_t i;
    for (i = 0; i < ep->burst_len; i++) {
        mrc_conn *d = ep->conns[ep->burst_q[i]];
        if (!d || !d->bflags) continue;
        /* mrc__burst_conn of a receiver's QP, in line where speed is asked for (MRC__BURST_RUNS) */
        if (MRC__BURST_RUNS && d->bflags == MRC__BURST_DIRTY && mrc__req_idle(d)) {
            d->bflags = 0;
            mrc__sched_ctl(d);
            mrc__timer_update(d);
        } else {
            mrc__burst_conn(d, ep->now);
        }
    }
    ep->burst_len = 0;
}
#if MRC_FAST_PATH
/* Queue a QP's deferred work (its bflags are set); a full list is worked off first. Only the fast paths defer (with
 * MRC_FAST_PATH 0 every packet of a burst does its QP's work at once, and this would be an unused function). */
MRC__PRIVATE void mrc__burst_defer(mrc_endpoint *ep, mrc_conn *c) {
    if (c->bflags & MRC__BURST_DIRTY) return;
    if (ep->burst_len == MRC__BURST_QPS) mrc__burst_flush(ep);
    c->bflags |= MRC__BURST_DIRTY;
    ep->burst_q[ep->burst_len++] = c->slot;
}
#endif

/* ---- receive: the general path (decode, then the endpoint operation or the QP's handler) -------------------- */
/* mrc_endpoint_recv past its argument checks, the clock, the receive counters, the ICRC flag and the fast paths:
 * the decode, then the endpoint operation or the QP's handler (out of line, with its mrc_pkt: the entry keeps no
 * frame, and the fast paths hand it what is not their case with a tail call) */
MRC__PRIVATE MRC__NOINLINE int mrc__recv(mrc_endpoint *ep, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri) {
    const mrc_time now = ep->now;
    mrc_pkt k;
    mrc_conn *c;
    int rc = MRC__PKT_DECODE(pkt, len, &ep->cfg.wire, &k, false); /* only the headers the opcode has are read */
    if (rc == MRC_ERR_TRUNC) return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_SHORT, len ? pkt[0] : 0u);
    if (rc < 0)
        return mrc__drop(ep, (mrc_conn *)0, mrc_opcode_hdrs(pkt[0]) ? MRC_DROP_MALFORMED : MRC_DROP_OPCODE, pkt[0]);
    MRC__TRACE(ep, MRC_TRACE_RX, ((uint32_t)k.bth.opcode << 24) | k.bth.psn, ri->port);
    if (k.bth.dest_qp == MRC_EPOP_QPN) return mrc__epop_recv(ep, &k, ri, now);
    c = mrc__conn_lookup(ep, k.bth.dest_qp);
    if (!c) return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_QPN, k.bth.opcode);
    if (c->bflags) mrc__burst_conn(c, now); /* P37 bursts: the general code sees the QP as after single calls */
    if ((k.bth.pkey & 0x7FFFu) != (c->attr.pkey & 0x7FFFu)) return mrc__drop(ep, c, MRC_DROP_PKEY, k.bth.opcode);
    switch (k.bth.opcode) {
    case MRC_OP_WRITE_FIRST: case MRC_OP_WRITE_MIDDLE: case MRC_OP_WRITE_LAST: case MRC_OP_WRITE_LAST_IMM:
    case MRC_OP_WRITE_ONLY: case MRC_OP_WRITE_ONLY_IMM:
        rc = mrc__rsp_on_data(c, &k, pkt + k.hdr_len, ri, now);
        break;
    case MRC_OP_PROBE_REQ: rc = mrc__rsp_on_probe(c, &k, ri); break;
    case MRC_OP_SACK: case MRC_OP_NACK: case MRC_OP_ACK: /* the requester's, only in RTS (their first check) */
        if (c->state != MRC_QPS_RTS) rc = mrc__drop(ep, c, MRC_DROP_ACK_STALE, k.bth.opcode);
        else if (k.bth.opcode == MRC_OP_SACK) rc = mrc__req_on_sack(c, &k, now);
        else if (k.bth.opcode == MRC_OP_NACK) rc = mrc__req_on_nack(c, &k, now);
        else rc = mrc__req_on_aeth(c, &k, now);
        break;
    default: return mrc__drop(ep, c, MRC_DROP_OPCODE, k.bth.opcode); /* endpoint ops not addressed to QP 0x2 */
    }
    mrc__sched_tx(c);
    mrc__timer_update(c);
    MRC__CHECK_ALL(ep);
    return rc;
}
#if MRC_FAST_PATH
/* A SACK naming a retransmitted PSN, fresh (b: its block): its verdict (7.4), as mrc__req_on_sack gives it, which may
 * demote an EV and arm its probe timer - the key lowered then, as mrc__recv's mrc__timer_update would (out of line:
 * the clean SACK keeps its registers). Returns now, as the send time the caller's RTT test then sees: a retransmitted
 * PSN gives no sample */
MRC__PRIVATE MRC__NOINLINE mrc_time mrc__sack_rtx(mrc_conn *c, mrc__pblk *b, uint32_t psn, mrc_time t, mrc_time now) {
    if (mrc__req_rtx_verdict(c, b, psn, t, true, now)) mrc__timer_update(c);
    return now;
}
/* mrc__req_sack_fast's rare branches (MRC__SIZE_COLD): P37 bursts' congestion sample (one update per QP per burst,
 * at its end) and their end (the re-arm and the scheduling, once per QP at the burst's end); the SETH's MPR, the
 * capped rcvd and the selective part are the general handler's helpers (src/requester.c) */
#if !MRC__SACK_SPEED
/* the cumulative part of more than the named PSN (out of line: gcc -Os only) */
MRC__PRIVATE MRC__NOINLINE void mrc__sack_fast_cum(mrc_endpoint *ep, mrc_conn *c, mrc__pblk *bk, uint32_t old_base,
                                                   uint32_t ack_psn, uint32_t cack) {
    mrc__pblk *b0 = (old_base ^ ack_psn) & ~(MRC__BLK_PSNS - 1u) ? mrc__blk(c, old_base) : bk;
    mrc__sack_cum(ep, c, mrc__conn_ccx(c), b0, old_base, cack);
}
#endif
MRC__PRIVATE MRC__SIZE_COLD void mrc__sack_fast_bcc(mrc_conn *c, const mrc__cc_sample *cs) {
    c->bs_newly = (uint32_t)MRC__MIN((uint64_t)c->bs_newly + cs->newly, (uint64_t)0xFFFFFFFFu);
    if (cs->rtt) c->bs_rtt = (uint32_t)MRC__MIN(cs->rtt, (mrc_time)0xFFFFFFFFu);
    c->bs_ecn |= cs->ecn;
    c->bflags |= MRC__BURST_CC;
}
MRC__PRIVATE MRC__SIZE_COLD int mrc__sack_fast_bend(mrc_endpoint *ep, mrc_conn *c, bool progress) {
    c->bflags |= MRC__BURST_SACK | (progress ? MRC__BURST_PROGRESS : 0u);
    mrc__burst_defer(ep, c);
    return MRC_OK;
}
/* mrc__req_sack_fast's bitmap (a window with holes; MRC__SIZE_COLD), read from the SETH at se (cack its CACK): its
 * first PSN (*base) and snd_nxt's distance from it (*hi, nxt: snd_nxt), and whether it names a PSN never sent; then
 * its selective part: the bits bm inside [win_base, snd_nxt) not known yet acknowledged as mrc__req_on_sack does;
 * true when there was one */
MRC__PRIVATE MRC__SIZE_COLD bool mrc__sack_fast_unsent(const uint8_t *se, uint32_t cack, uint32_t nxt, uint64_t bm,
                                                       uint32_t *base, int32_t *hi) {
    *base = mrc_psn_add(cack, mrc__s16((uint16_t)MRC__FX(se, MRC__SETH_SACK_OFF)));
    *hi = mrc_psn_diff(nxt, *base);
    return mrc__sack_bits_unsent(*hi, bm);
}
/* (its selective part: mrc__req_sack_sel, out of line under -Os; where speed is asked for, in line with the named PSN
 * acknowledged from the block and record the caller holds) */
MRC__PRIVATE MRC__ALWAYS_INLINE bool mrc__sack_fast_sel(mrc_conn *c, mrc__pblk *bk, mrc__psnrec *r, uint32_t ack_psn,
                                                        uint64_t bm, uint32_t base, int32_t hi) {
#if MRC__SACK_SPEED
    bool progress;
    bm = mrc__req_sack_bits(c, bm, base, hi);
    progress = bm != 0;
    while (bm) {
        uint32_t q = (base + mrc__ctz64(bm)) & MRC_PSN_MASK;
        if (q == ack_psn) mrc__sack_ack_named(c, bk, r, q);
        else mrc__req_ack_one(c, q);
        bm &= bm - 1u;
    }
    return progress;
#else
    (void)bk, (void)r, (void)ack_psn;
    return mrc__req_sack_sel(c, bm, base, hi);
#endif
}
/* The SACK fast path's per-SACK updates, shared with the SACK run (mrc__req_sack_run; always in line). The named
 * record's timing: the RTT sample when it was sent before now (returned, else 0) and the reorder timer's latest
 * acknowledged send time (P32) */
MRC__PRIVATE MRC__ALWAYS_INLINE mrc_time mrc__sack_fast_time(mrc_conn *c, mrc_time r_sent, mrc_time acked_sent,
                                                            mrc_time now) {
    mrc_time rtt = 0;
    if (now > r_sent) {
        rtt = now - r_sent;
        mrc__req_rtt_sample(c, rtt);
    }
    if (acked_sent > c->lat_acked_sent) {
        c->lat_acked_sent = acked_sent;
        c->lat_acked_rtt = now > acked_sent ? now - acked_sent : 0u; /* P32 reorder timer */
    }
    return rtt;
}
/* mrc__ev_on_ack with m 0 of the named EV slot ev (now = ep->now) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__sack_fast_ev0(mrc_conn *c, unsigned ev, mrc_time now) {
    c->port_ok[c->evs[ev].port - 1u] = now;
    c->ev_proven = (uint16_t)ev;
    mrc__ev_rc_push(c, ev);
}
/* The bytes newly received by the CC_STATE at cs_p's rcvd (capped at what was sent), credited and counted */
MRC__PRIVATE MRC__ALWAYS_INLINE uint64_t mrc__sack_fast_rcvd(mrc_conn *c, const uint8_t *cs_p) {
    uint32_t rcvd = MRC__FX(cs_p, MRC__CCS_RCVD), rd = (rcvd - c->last_rcvd) & 0xFFFFFFu;
    uint64_t avail = ((c->tx_nominal + 255u) >> 8) - c->rcvd_credit, newly;
    if (rd < 0x800000u && rd > avail) rcvd = mrc__sack_rcvd_cap(c, (uint32_t)avail); /* avail < rd < 2^23 */
    newly = mrc__rcvd_newly(&c->last_rcvd, rcvd);
    c->rcvd_credit += newly >> 8;
    MRC__CNT(c->st.cc_rcvd_bytes += newly);
    return newly;
}
/* ---- SACK fast path (header prediction; MRC_FAST_PATH) ----------------------------------------------------------
 * The common SACK - to a QP in RTS, its window (at most MRC_MAX_INFLIGHT PSNs) holding cack or cack just behind it
 * (not stale), naming a fresh PSN of the window not named before, no probe answer - is recognised straight from
 * the wire (the fixed offsets of mrc__pkt_decode_fast) by checks that change nothing; it then makes exactly the
 * updates mrc_endpoint_recv's decode, mrc__req_on_sack and what they call make in that case, in the same order
 * (stats, trace, list and pool operations, EV and CC updates, timers). Anything else is handed, before any change,
 * to the general code (mrc__recv, a tail call: mrc_endpoint_recv keeps no frame of its own). mrc_endpoint_recv
 * calls it for a SACK unless mrc_config.fast_path_off is set. */
MRC__PRIVATE MRC__NOINLINE int mrc__req_sack_fast(mrc_endpoint *ep, const uint8_t *p, size_t len,
                                                 const mrc_rxinfo *ri, mrc_time now) {
    const uint8_t *se = p + MRC_BTH_LEN, *cs_p = se + MRC_SETH_LEN;
    const size_t off = (size_t)MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN;
    mrc_conn *c;
    mrc__pblk *bk;
    mrc__psnrec *r;
    uint32_t cack, ack_psn, nxt, old_base, base = 0, mpr, w, m;
    int32_t hi = 0;
    uint64_t bm;
    unsigned ev;
    bool progress;
    mrc_time r_sent, acked_sent, rtt = 0;
    /* the packet: what mrc__pkt_decode_fast and mrc__pkt_finish accept as a SACK, m 0, no probe answer */
    if (len < off || ep->cfg.wire.sack_msb_first) return mrc__recv(ep, p, len, ri);
    if ((uint64_t)(len - off) - MRC__FX(p, MRC__BTH_PAD) > 0xFFFFFFFFu) /* pad > the rest, or a 33-bit payload */
        return mrc__recv(ep, p, len, ri);
    if (MRC__FX(se, MRC__SETH_PR)) return mrc__recv(ep, p, len, ri);
    /* the QP: in RTS; cack names the packet */
    c = MRC__FX(p, MRC__BTH_DEST_QP) == MRC_EPOP_QPN ? (mrc_conn *)0
                                                     : mrc__conn_lookup(ep, MRC__FX(p, MRC__BTH_DEST_QP));
    if (!c || ((MRC__FX(p, MRC__BTH_PKEY) ^ c->attr.pkey) & 0x7FFFu) || c->state != MRC_QPS_RTS)
        return mrc__recv(ep, p, len, ri);
    cack = MRC__FX(se, MRC__SETH_CACK);
    nxt = c->snd_nxt;
    old_base = c->win_base;
    /* a window [win_base, snd_nxt) of at most MRC_MAX_INFLIGHT PSNs holding cack (then it is not bogus, <= snd_nxt -
     * 1, and not stale) or cack = win_base - 1 (not stale, acknowledges nothing cumulatively); the named PSN in the
     * window (at most MRC_MAX_INFLIGHT behind snd_nxt) */
    w = (nxt - old_base) & MRC_PSN_MASK;
    ack_psn = mrc_psn_add(cack, mrc__s16((uint16_t)MRC__FX(se, MRC__SETH_ACK_OFF)));
    if (cack != MRC__FX(p, MRC__BTH_PSN) || w > MRC_MAX_INFLIGHT || ((ack_psn - old_base) & MRC_PSN_MASK) >= w ||
        (((cack - old_base) & MRC_PSN_MASK) >= w && cack != MRC__PSN_DEC(old_base)))
        return mrc__recv(ep, p, len, ri);
    /* the named PSN: a record (a live block: have_rec), not acknowledged yet (fresh); a first transmission not named
     * before (a retransmitted PSN is named once per copy that arrives: its verdict needs both) */
    bk = mrc__blk(c, ack_psn);
    if (!bk || (ack_psn & (MRC__BLK_PSNS - 1u)) < MRC__PBLK_LO(bk) || ((bk->acked >> (ack_psn & 63u)) & 1u))
        return mrc__recv(ep, p, len, ri);
    r = &bk->rec[ack_psn & (MRC__BLK_PSNS - 1u)];
    if (MRC__UNLIKELY(r->flags & (MRC__PR_RTX | MRC__PR_NAMED)) &&
        ((r->flags & (MRC__PR_RTX | MRC__PR_NAMED)) != MRC__PR_RTX || !ep->cfg.tseth)) /* P38 quiet SACKs there */
        return mrc__recv(ep, p, len, ri);
    /* P38 SACKs validated whole: a bitmap naming a PSN never sent is the general path's to drop */
    bm = MRC__FX(se, MRC__SETH_BITMAP);
    if (bm && mrc__sack_fast_unsent(se, cack, nxt, bm, &base, &hi)) return mrc__recv(ep, p, len, ri);

    /* the common case: mrc_endpoint_recv's trace, then mrc__req_on_sack's updates in its order */
    MRC__TRACE(ep, MRC_TRACE_RX, ((uint32_t)MRC_OP_SACK << 24) | cack, ri->port);
    (void)ri;
    MRC__CNT(c->st.rx_sack++);
    m = MRC__FX(se, MRC__SETH_M);
    if (m - MRC_M_SKIP_ONCE <= MRC_M_ALWAYS_SKIP - MRC_M_SKIP_ONCE) MRC__RARE_INC(c->st.ev_skip_req); /* either skip */
    progress = cack != MRC__PSN_DEC(old_base);
    if (progress) { /* the cumulative part: mrc__req_ack_one of each PSN, O(1) each as there */
        if (cack == old_base && ack_psn == cack && mrc__sack_one_head(c, cack, r)) { /* the one-PSN common case */
            bk->acked |= (uint64_t)1 << (cack & 63u);
#if MRC__SACK_SPEED
            mrc__cc_on_ack(c, mrc__sack_nominal(c, cack, r));
#else
            mrc__cc_on_ack(c, mrc__rec_nominal(c, cack, r));
#endif
            c->txl.head = mrc__link_psn(c, r->next); /* mrc__plist_unlink of the head of a longer list */
            c->txl.n--;
            r->flags &= (uint8_t)~(MRC__PR_INFLIGHT | MRC__PR_LOST);
        } else { /* the loop, or the in-order run; old_base's block is bk's when in the same 64 (both in the window) */
#if MRC__SACK_SPEED
            mrc__pblk *b0 = (old_base ^ ack_psn) & ~(MRC__BLK_PSNS - 1u) ? mrc__blk(c, old_base) : bk;
            /* (a run of one PSN - a QP with one packet in flight, as with many QPs - costs the run's setup for
             * nothing: the loop takes it) */
            if (ack_psn == cack && c->txl.head == old_base && old_base != cack)
                mrc__sack_run(ep, c, b0, old_base, cack);
            else
                mrc__sack_cum_base(ep, c, b0, old_base, cack);
#else
            mrc__sack_fast_cum(ep, c, bk, old_base, ack_psn, cack);
#endif
        }
        c->win_base = MRC__PSN_INC(cack);
    }
    /* the selective part, as there */
    if (bm && mrc__sack_fast_sel(c, bk, r, ack_psn, bm, base, hi)) progress = true;
    { /* snd_una's scan, in a local: its old value need not live across the parts above */
        uint32_t una = c->snd_una;
        if (mrc_psn_diff(una, c->win_base) < 0) una = c->win_base;
        /* mrc__req_acked */
        while (una != c->snd_nxt && (mrc__sack_blk(c, una, ack_psn, bk)->acked >> (una & 63u)) & 1u)
            una = MRC__PSN_INC(una);
        if (una != c->snd_una) {
            c->snd_una = una;
            progress = true;
        }
    }
    /* timing and path attribution: the named record (fresh). A retransmitted one (a window with holes: half the
     * SACKs) gets its verdict as in mrc__req_on_sack - which may demote an EV and arm its probe timer, so the key is
     * lowered then as mrc__recv's mrc__timer_update would - and gives no RTT sample */
    r_sent = bk->sent[ack_psn & (MRC__BLK_PSNS - 1u)];
    acked_sent = r_sent;
    ev = r->ev; /* the named packet's EV slot (read once: the byte stores below may alias it) */
    if (ep->cfg.tseth) {
        mrc_time t = mrc__ts_unwrap(ep, (uint16_t)MRC__FX(cs_p, MRC__CCS_TS), now);
        if (t < acked_sent) acked_sent = t;
        if (MRC__UNLIKELY(r->flags & MRC__PR_RTX)) r_sent = mrc__sack_rtx(c, bk, ack_psn, t, now); /* no sample */
        else r->flags |= MRC__PR_NAMED; /* P38 quiet SACKs: a first transmission */
    } else {
        r->flags |= MRC__PR_NAMED; /* a first transmission (without TSETH the checks took no other) */
    }
    if (now > r_sent) { /* mrc__sack_fast_time, written out: gcc then keeps the sample's block in line */
        rtt = now - r_sent;
        mrc__req_rtt_sample(c, rtt);
    }
    if (acked_sent > c->lat_acked_sent) {
        c->lat_acked_sent = acked_sent;
        c->lat_acked_rtt = now > acked_sent ? now - acked_sent : 0u; /* P32 reorder timer */
    }
    if (ev < c->ev_count && mrc__ev_value(c, ev) == MRC__FX(se, MRC__SETH_ENTROPY)) {
        mrc__ev_delivered(c, ev, acked_sent);
        if (m == MRC_M_NONE) {
            mrc__sack_fast_ev0(c, ev, now);
        } else {
            mrc__ev_on_ack(c, (int)ev, (unsigned)m);
        }
    }
    if (progress) mrc__req_progress(c, now);
    if (!ep->in_burst) mrc__sack_losses(ep, c, ack_psn, bk); /* P37 bursts: once per QP, at the burst's end */
    /* mrc__req_release (win_base moved) changes something only when win_base left old_base's block or caught up with
     * snd_nxt */
    if (c->win_base != old_base && (((old_base ^ c->win_base) & ~(MRC__BLK_PSNS - 1u)) || c->win_base == c->snd_nxt))
        mrc__req_release(c, old_base);
    { /* congestion control, as mrc__req_on_sack; NSCC's row of mrc__cc_table called directly */
        mrc__ccx *x = mrc__conn_ccx(c);
        mrc__cc_sample cs;
        cs.newly = mrc__sack_fast_rcvd(c, cs_p);
        cs.rtt = rtt;
        cs.ecn = m == MRC_M_SKIP_ONCE;
        cs.pen = (uint8_t)MRC__FX(cs_p, MRC__CCS_PEN);
        cs.r_c = (uint8_t)MRC__FX(cs_p, MRC__CCS_R_C);
        if (x && x->algo == MRC_CC_ALGO_NSCC) {
            if (cs.pen || cs.r_c) mrc__nscc_on_pen(c, x, &cs, now); /* else it changes nothing */
            if (ep->in_burst) { /* P37 bursts: one update per QP per burst, at its end */
                mrc__sack_fast_bcc(c, &cs);
            } else {
                mrc__nscc_ack(c, x, &cs, now);
                if (x->ready_head != MRC__EV_NONE) mrc__cc_wake(ep, x);
            }
        } else {
            mrc__cc_on_sack(c, &cs, now);
        }
    }
    mpr = MRC__FX(se, MRC__SETH_MPR);
    if ((c->attr.caps & MRC_CAP_DYNAMIC_MPR) && mpr) mrc__sack_mpr(c, mpr);
    if (ep->in_burst) return mrc__sack_fast_bend(ep, c, progress); /* P37 bursts: the re-arm and the scheduling
                                                                      below, once per QP at the burst's end */
    mrc__sack_complete(c);
    /* mrc__req_timers: after progress (retries and tlp_count 0, rto_start and tlp_base now) it arms unless the QP
     * left RTS or nothing is in flight */
    if (!progress || c->state != MRC_QPS_RTS || c->snd_una == c->snd_nxt) mrc__req_timers(c);
    else mrc__req_timers_arm(c, 0, 0, now, now); /* the reorder deadline is set above */
    /* and mrc_endpoint_recv's: mrc__sched_tx (its mrc__timer_update after it finds the deadlines as they are:
     * scheduling arms no timer) */
    if ((c->ctlq_head != c->ctlq_tail && !c->in_ctq) || (!c->in_txq && c->state == MRC_QPS_RTS)) mrc__sched_tx(c);
    MRC__CHECK_ALL(ep);
    return MRC_OK;
}
#endif
#if MRC__BURST_RUNS
/* ---- P37 bursts: a run of one QP's in-order SACKs ----------------------------------------------------------------
 * The SACKs of a receive burst that follow one another to one QP in RTS (NSCC, its READY list empty), each naming its
 * cumulative PSN (the ACK offset 0), in order, ahead of the one before and inside the window, fresh (not named
 * before, no retransmission), with no bitmap, no EV marking (m 0), no penalty and no probe answer: the updates the
 * SACK fast path makes for each of them in a burst, but the ones that only move forward, made once at the run's end
 * for its last cumulative PSN - the cumulative part (the transmit list, the acknowledged bits, the flight), win_base,
 * snd_una's scan, the progress, the release of the blocks passed, the deferred work queued. Each SACK's own updates
 * (the trace, its record's NAMED flag, the RTT sample, the reorder timer's latest, its EV's delivery and recycling,
 * the rcvd credit, the MPR) stay per SACK, in order (NSCC's burst sample summed and written at the end): none of them reads what the deferred
 * ones write, and these write nothing the per-SACK ones read (the named PSNs increase, so no earlier SACK's
 * cumulative part reaches a later one's record or bit; the context's READY list stays empty: nothing here wakes,
 * and the QP is queued or the queue has room, so the deferral flushes no other QP). So the state at the end is the
 * SACKs' one by one (make fast-check compares them byte for byte). Each test comes before the SACK's first change:
 * the run ends before the first SACK it cannot take (0: none taken, the caller's SACK fast path takes it). Under
 * MRC_ENABLE_TRACE the forward-only updates are made per SACK, before the next one's trace call: the hook sees the QP
 * as one by one. Where speed is asked for (MRC__BURST_RUNS). */
/* mrc__req_sack_run's forward-only updates for its SACKs from old_base up to cack (bk: cack's block), as the SACK fast
 * path makes them: the cumulative part (one PSN, the fast path's in-line case, is mrc__sack_cum's here: the same
 * updates, out of line), win_base, snd_una's scan, the progress, the release of the blocks passed, the deferred
 * work (always in line: one call at the run's end, another per SACK under MRC_ENABLE_TRACE) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__sack_run_fwd(mrc_endpoint *ep, mrc_conn *c, mrc__pblk *bk, uint32_t old_base,
                                                      uint32_t cack, mrc_time now) {
    mrc__pblk *b0 = (old_base ^ cack) & ~(MRC__BLK_PSNS - 1u) ? mrc__blk(c, old_base) : bk;
    uint32_t una = c->snd_una;
    if (c->txl.head == old_base && old_base != cack) mrc__sack_run(ep, c, b0, old_base, cack);
    else mrc__sack_cum_base(ep, c, b0, old_base, cack);
    c->win_base = MRC__PSN_INC(cack);
    if (mrc_psn_diff(una, c->win_base) < 0) una = c->win_base;
    while (una != c->snd_nxt && (mrc__sack_blk(c, una, cack, bk)->acked >> (una & 63u)) & 1u) una = MRC__PSN_INC(una);
    c->snd_una = una;
    mrc__req_progress(c, now);
    if (((old_base ^ c->win_base) & ~(MRC__BLK_PSNS - 1u)) || c->win_base == c->snd_nxt) mrc__req_release(c, old_base);
    c->bflags |= MRC__BURST_SACK | MRC__BURST_PROGRESS;
    mrc__burst_defer(ep, c);
}
/* ... and the SACKs' NSCC burst sample, as mrc__sack_fast_bcc's per SACK leave it: their newly received bytes summed
 * (saturating: one sum, then the cap, is each SACK's capped addition), their latest RTT sample (rtt, 0: none), no CE
 * (m 0) */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__sack_run_bcc(mrc_conn *c, uint64_t newly, mrc_time rtt) {
    c->bs_newly = (uint32_t)MRC__MIN((uint64_t)c->bs_newly + newly, (uint64_t)0xFFFFFFFFu);
    if (rtt) c->bs_rtt = (uint32_t)MRC__MIN(rtt, (mrc_time)0xFFFFFFFFu);
    c->bflags |= MRC__BURST_CC;
}
MRC__PRIVATE MRC__NOINLINE unsigned mrc__req_sack_run(mrc_endpoint *ep, const mrc_rxpkt *k, unsigned n, int *rc) {
    const mrc_config *cf = &ep->cfg;
    const size_t off = (size_t)MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN;
    const mrc_time now = ep->now;
    const mrc_rxpkt *k0 = k, *end = k + n;
    mrc_conn *c;
    mrc__ccx *x;
    mrc__pblk *bk = (mrc__pblk *)0;
    uint32_t qpn, nxt, old_base, base, cack = 0;
    uint64_t bytes = 0, newly = 0; /* newly: the bytes the SACKs' rcvd say were received (NSCC's burst sample) */
    mrc_time bs_rtt = 0;           /* ... and its latest RTT sample (0: none) */
    if (cf->wire.sack_msb_first || MRC__FX(k->pkt, MRC__BTH_DEST_QP) == MRC_EPOP_QPN) return 0;
    c = mrc__conn_lookup(ep, MRC__FX(k->pkt, MRC__BTH_DEST_QP));
    if (!c || c->state != MRC_QPS_RTS || (!(c->bflags & MRC__BURST_DIRTY) && ep->burst_len == MRC__BURST_QPS))
        return 0;
    x = mrc__conn_ccx(c);
    if (!x || x->algo != MRC_CC_ALGO_NSCC || x->ready_head != MRC__EV_NONE) return 0;
    qpn = c->qpn;
    nxt = c->snd_nxt;
    old_base = base = c->win_base;
    if (((nxt - old_base) & MRC_PSN_MASK) > MRC_MAX_INFLIGHT) return 0;
    for (; k != end; k++) {
        const uint8_t *p = k->pkt, *se, *cs_p;
        size_t len = k->len;
        uint32_t q, mpr;
        unsigned ev;
        mrc_time r_sent, acked_sent, rtt;
        mrc__pblk *b;
        mrc__psnrec *t;
        /* mrc_endpoint_recv_burst's dispatch, then the SACK fast path's tests and the run's */
        if (!p || k->ri.port - 1u >= cf->num_ports || (k->ri.flags & (MRC_RX_ICRC_BAD | MRC_RX_TRIMMED)) ||
            len < (size_t)MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN || p[0] != MRC_OP_SACK || len < off)
            break;
        if ((uint64_t)(len - off) - MRC__FX(p, MRC__BTH_PAD) > 0xFFFFFFFFu) break;
        se = p + MRC_BTH_LEN;
        cs_p = se + MRC_SETH_LEN;
        if (MRC__FX(se, MRC__SETH_PR) || MRC__FX(p, MRC__BTH_DEST_QP) != qpn ||
            ((MRC__FX(p, MRC__BTH_PKEY) ^ c->attr.pkey) & 0x7FFFu))
            break;
        q = MRC__FX(se, MRC__SETH_CACK);
        if (q != MRC__FX(p, MRC__BTH_PSN) || MRC__FX(se, MRC__SETH_ACK_OFF) || MRC__FX(se, MRC__SETH_BITMAP) ||
            MRC__FX(se, MRC__SETH_M) != MRC_M_NONE || ((q - base) & MRC_PSN_MASK) >= ((nxt - base) & MRC_PSN_MASK) ||
            MRC__FX(cs_p, MRC__CCS_PEN) || MRC__FX(cs_p, MRC__CCS_R_C))
            break;
        b = bk && !((q ^ cack) & ~(MRC__BLK_PSNS - 1u)) ? bk : mrc__blk(c, q); /* the SACK before's block, if q's */
        if (!b || (q & (MRC__BLK_PSNS - 1u)) < MRC__PBLK_LO(b) || ((b->acked >> (q & 63u)) & 1u)) break;
        t = &b->rec[q & (MRC__BLK_PSNS - 1u)];
        if (t->flags & (MRC__PR_RTX | MRC__PR_NAMED)) break;
        /* taken: the SACK's own updates, in the fast path's order */
#ifdef MRC_ENABLE_TRACE
        if (k != k0) { /* the hook sees the QP as the SACKs before left it, one by one (the counters at the end) */
            mrc__sack_run_fwd(ep, c, bk, old_base, cack, now);
            mrc__sack_run_bcc(c, newly, bs_rtt);
            old_base = c->win_base;
            newly = 0;
            bs_rtt = 0;
        }
#endif
        MRC__TRACE(ep, MRC_TRACE_RX, ((uint32_t)MRC_OP_SACK << 24) | q, k->ri.port);
        bytes += len;
        cack = q;
        bk = b;
        base = MRC__PSN_INC(q);
        r_sent = acked_sent = b->sent[q & (MRC__BLK_PSNS - 1u)];
        ev = t->ev;
        if (cf->tseth) {
            mrc_time ts = mrc__ts_unwrap(ep, (uint16_t)MRC__FX(cs_p, MRC__CCS_TS), now);
            if (ts < acked_sent) acked_sent = ts;
        }
        t->flags |= MRC__PR_NAMED;
        rtt = mrc__sack_fast_time(c, r_sent, acked_sent, now);
        if (ev < c->ev_count && mrc__ev_value(c, ev) == MRC__FX(se, MRC__SETH_ENTROPY)) {
            mrc__ev_delivered(c, ev, acked_sent);
            mrc__sack_fast_ev0(c, ev, now);
        }
        newly += mrc__sack_fast_rcvd(c, cs_p); /* NSCC's burst sample (mrc__sack_fast_bcc's), at the end */
        if (rtt) bs_rtt = rtt;
        mpr = MRC__FX(se, MRC__SETH_MPR);
        if ((c->attr.caps & MRC_CAP_DYNAMIC_MPR) && mpr) mrc__sack_mpr(c, mpr);
    }
    if (k == k0) return 0;
    /* the run's end: the forward-only updates for its last cumulative PSN (under MRC_ENABLE_TRACE, those of its last
     * SACK) and the counters */
    n = (unsigned)(k - k0);
    mrc__sack_run_fwd(ep, c, bk, old_base, cack, now);
    mrc__sack_run_bcc(c, newly, bs_rtt);
    MRC__CNT(ep->st.rx_bytes += bytes);
    MRC__CNT(ep->st.rx_pkts += n);
    MRC__CNT(c->st.rx_sack += n);
    if (rc) {
        unsigned j;
        for (j = 0; j < n; j++) rc[j] = MRC_OK;
    }
    return n;
}
#endif
#if MRC_FAST_PATH
/* ---- P22 fast paths of the responder ---------------------------------------------------------------------------
 The common cases of a receiving QP - a data packet and the SACK it causes - recognised by a few compares, with
 * exactly the state changes and outputs the general code (mrc__rsp_on_data, mrc__rsp_emit_ctl and their callers)
 * makes in those cases; anything else is left, before a byte has changed, to the general code. make fast-check
 * compares the two per call. They lean on four invariants: ooo counts the bits set in rbits, and rlast only has bits
 * that are set in rbits too - so ooo == 0 means both bitmaps are empty; cack + 1 never has its bit set when a call
 * starts (cack moves over every arrival it reaches); and a QP's deadline (its heap key) is the minimum of its timers
 * whenever a call starts. */

/* mrc__mr_find_keyed for mrc__rsp_fast_data, out of line: a caller-chosen rkey is rare, and its probe loop in line
 * costs the common case registers (gcc then keeps the packet's values on the stack) */
MRC__PRIVATE MRC__NOINLINE int mrc__rsp_mr_keyed(const mrc_endpoint *ep, uint32_t rkey) {
    return mrc__mr_find_keyed(ep, rkey);
}
/* mrc__rsp_fast_data's rare branches (MRC__SIZE_COLD): a PSN past cack + 1 outside the window or already in (the
 * general code's), an external region's placement (nonzero: its refusal dropped the packet, mrc__recv's steps
 * after it done), an arrival beyond a hole recorded, the first hole filled (cack moves on; mrc__rsp_note_late's
 * test is true: cack passed psn, or stayed on it with ooo as it was, not 0), an arrival beyond a hole's late check,
 * a TACK due */
MRC__PRIVATE MRC__SIZE_COLD bool mrc__rsp_fast_old(const mrc_conn *c, uint32_t psn, uint32_t old_cack) {
    return ((psn - old_cack) & MRC_PSN_MASK) - 1u >= c->rsp_win || mrc__rsp_got(c, psn);
}
MRC__PRIVATE MRC__SIZE_COLD int mrc__rsp_fast_place(mrc_endpoint *ep, mrc_conn *c, uint32_t mi, uint64_t mro,
                                                    const uint8_t *src, uint32_t plen, unsigned op) {
    const mrc_config *cf = &ep->cfg;
    int rc;
    if (cf->place(cf->place_ud, ep->mrs[mi].rkey, ep->mrs[mi].user, mro, src, plen) == 0) return 0;
    rc = mrc__drop(ep, c, MRC_DROP_PLACE, op);
    mrc__sched_tx(c); /* what mrc_endpoint_recv does after any packet of a QP */
    mrc__timer_update(c);
    MRC__CHECK_ALL(ep);
    return rc;
}
/* mrc__rsp_sack of the packet just taken (the pend_ fields hold its PSN, EV, port and timestamp), into a queue that
 * holds something (MRC__SIZE_COLD: its seven arguments are set up here, not in the fast path) */
MRC__PRIVATE MRC__SIZE_COLD void mrc__rsp_fast_sackq(mrc_conn *c, bool ce) {
    mrc__rsp_sack(c, c->pend_psn, c->pend_ev, c->pend_port, c->pend_ts, ce ? MRC_M_SKIP_ONCE : MRC_M_NONE, 0);
}
/* the coalesced SACK's deadline, once per coalesced SACK (MRC__SIZE_COLD) */
MRC__PRIVATE MRC__SIZE_COLD mrc_time mrc__rsp_fast_sack_dl(mrc_time now, mrc_time dt) {
    return mrc__deadline_add(now, dt);
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__rsp_fast_hole(mrc_conn *c, uint32_t psn, bool last) {
    mrc__bit_set(c->rbits, MRC__RSP_BITS, psn);
    if (last) mrc__bit_set(c->rlast, MRC__RSP_BITS, psn);
    c->ooo++;
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__rsp_fast_filled(mrc_conn *c, uint32_t psn, uint16_t ts) {
    mrc__rsp_advance_cack(c);
    if (ts) mrc__rsp_late(c, psn, ts);
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__rsp_fast_late(mrc_conn *c, uint32_t psn, uint16_t ts) {
    if (ts && mrc__rsp_any_after(c, psn)) mrc__rsp_late(c, psn, ts); /* mrc__rsp_note_late, cack before psn: a PSN
                                                                         beyond it in */
}
MRC__PRIVATE MRC__SIZE_COLD void mrc__rsp_fast_tack(mrc_conn *c, const mrc_rxinfo *ri, uint32_t every) {
    if (c->tack_msgs < every) return;
    mrc__rsp_aeth(c, MRC_AETH_ACK, c->msn_done, ri);
    c->tack_msgs = 0;
    MRC__CNT(c->st.tx_tack++);
}
/* mrc_endpoint_recv's fast path (after the clock, the receive counters, the ICRC and trimmed flags, the shortest
 * length and the opcode: a Write without an immediate): a Write data packet not trimmed, new and inside the window,
 * with every header there, the payload its opcode implies and an access check that passes; anything else it hands,
 * before any change, to the general code (mrc__recv, a tail call). The common case of all - the PSN after cack while
 * nothing is out of order - skips the bitmaps. Reads the headers in place (the codec's field loaders) instead of
 * filling an mrc_pkt. */
MRC__PRIVATE MRC__NOINLINE int mrc__rsp_fast_data(mrc_endpoint *ep, const uint8_t *pkt, size_t len,
                                                 const mrc_rxinfo *ri, mrc_time now) {
    const mrc_config *cf = &ep->cfg;
    unsigned op = MRC__FX(pkt, MRC__BTH_OPCODE);
    uint32_t tsb, pad, psn, old_cack, dlen, mtu, plen, rkey, mi;
    size_t off;
    const uint8_t *q;
    uint8_t *dst = (uint8_t *)0; /* the copy's destination in a host region (0: an external region, placed) */
    mrc_conn *c;
    uint64_t va, mro;
    mrc_time sack_dl0;
    uint16_t ts = 0;
    bool last, req_idle, next, ce = (ri->ecn & 3u) == 3u;
    int rc;
    /* its caller took a packet of at least BTH, METH, TSETH and RETH, not flagged trimmed */
    if (ri->dscp == cf->dscp[MRC_DSCP_TRIMMED] || ri->dscp == cf->dscp[MRC_DSCP_TRIMMED_LASTHOP])
        return mrc__recv(ep, pkt, len, ri);
    c = mrc__conn_lookup(ep, MRC__FX(pkt, MRC__BTH_DEST_QP));
    psn = MRC__FX(pkt, MRC__BTH_PSN);
    if (!c || ((MRC__FX(pkt, MRC__BTH_PKEY) ^ c->attr.pkey) & 0x7FFFu) ||
        (c->state != MRC_QPS_RTR && c->state != MRC_QPS_RTS) || !(c->attr.access & MRC_ACCESS_REMOTE_WRITE))
        return mrc__recv(ep, pkt, len, ri);
    /* the next PSN (new: cack + 1 never has its bit set between calls), or a new PSN in the window past it.
     * mrc_psn_diff(psn, old_cack) in 1..rsp_win: rsp_win is below 2^23 (at most 255 * 128, RTR), so the 24-bit
     * distance less one, unsigned, is below it (and 0 below it: rsp_win is at least 1 in RTR and RTS) */
    old_cack = c->cack;
    next = psn == MRC__PSN_INC(old_cack);
    if (!next && mrc__rsp_fast_old(c, psn, old_cack)) return mrc__recv(ep, pkt, len, ri);
    tsb = MRC__FX(pkt, MRC__BTH_TS);
    q = pkt + MRC_BTH_LEN + MRC_METH_LEN;
    if (tsb) {
        ts = (uint16_t)MRC__FX(q, MRC__TSETH_TS);
        q += MRC_TSETH_LEN;
    }
    off = (size_t)(q - pkt) + MRC_RETH_LEN;
    /* the payload length its opcode implies (0: a length the general code drops or a zero-length write), its pad,
     * and nothing else will do: no cut, no trim, no excess */
    dlen = MRC__FX(q, MRC__RETH_DMA_LEN);
    mtu = 1u << c->mtu_shift;
    last = op > MRC_OP_WRITE_MIDDLE; /* LAST or ONLY: its caller takes no other Write */
    pad = MRC__FX(pkt, MRC__BTH_PAD);
    if (!last) { /* FIRST of more than one MTU, MIDDLE of more than two: a full packet, no pad (mtu >= 256) */
        plen = mtu;
        if (dlen <= (mtu << (op == MRC_OP_WRITE_MIDDLE)) || pad || len - off != mtu)
            return mrc__recv(ep, pkt, len, ri);
    } else {
        if (op == MRC_OP_WRITE_ONLY) plen = dlen <= mtu ? dlen : 0u;
        else plen = dlen > mtu ? ((dlen - 1u) & (mtu - 1u)) + 1u : 0u; /* the rest after the full packets */
        if (!plen || pad != ((4u - (plen & 3u)) & 3u) || len - off != (size_t)plen + pad)
            return mrc__recv(ep, pkt, len, ri);
    }
    /* Q26 responder check order: the message window (mrc__rsp_on_data's bound min(rsp_win, 0x8000) is rsp_win in RTR
     * and RTS: at most 255 * 128 PSNs, set at RTR from mpr_dest, an 8-bit attribute RTR requires) */
    if ((uint32_t)(uint16_t)(MRC__FX(pkt + MRC_BTH_LEN, MRC__METH_MSN) - (uint16_t)(c->msn_done + 1u)) >= c->rsp_win)
        return mrc__recv(ep, pkt, len, ri);
    rkey = MRC__FX(q, MRC__RETH_RKEY);
    mi = (rkey >> 8) - 1u; /* mrc__mr_find: an rkey naming no region wraps past MRC_MAX_MRS */
    va = MRC__FX(q, MRC__RETH_VA);
    /* mrc__mr_find without the valid test: a free slot is all zero (init, dereg), and its rkey 0 matches no rkey of
     * this form (rkey >> 8 >= 1) */
    if (mi >= MRC_MAX_MRS || ep->mrs[mi].rkey != rkey) /* a caller-chosen rkey, or none */
        mi = (uint32_t)mrc__rsp_mr_keyed(ep, rkey);
    if (mi >= MRC_MAX_MRS || !(ep->mrs[mi].access & MRC_ACCESS_REMOTE_WRITE))
        return mrc__recv(ep, pkt, len, ri);
    /* va below iova wraps mro past len (iova + len fits 64 bits, mrc__mr_check), so one test is both bounds */
    mro = va - ep->mrs[mi].iova;
    if (mro > ep->mrs[mi].len || plen > ep->mrs[mi].len - mro) return mrc__recv(ep, pkt, len, ri);
    /* from here on it is the fast path's: the general code's steps in its order, but for the copy into a host
     * region, done last (nothing before it reads the region; no value is then kept live across the call) */
    MRC__TRACE(ep, MRC_TRACE_RX, ((uint32_t)op << 24) | psn, ri->port);
    if (ep->mrs[mi].access & MRC_ACCESS_EXTERNAL) {
        if ((rc = mrc__rsp_fast_place(ep, c, mi, mro, pkt + off, plen, op)) != 0) return rc;
    } else {
        dst = ep->mrs[mi].base + mro; /* never null: a host region has a base */
    }
    req_idle = mrc__req_idle(c);
    sack_dl0 = c->sack_deadline;
    /* an arrival beyond a hole recorded; cack stays where it is (cack + 1 never has its bit set between calls) */
    if (!next) mrc__rsp_fast_hole(c, psn, last);
    MRC__CNT(c->st.rx_data++);
    if (ce) MRC__RARE_INC(c->st.rx_ce);
    /* mrc__rsp_epoch, which has nothing to do inside the epoch this QP was already counted in (its test here: a
     * size-optimized build keeps the function out of line) */
    if (now >= ep->epoch_end || c->rx_epoch != ep->epoch) mrc__rsp_epoch(ep, c, now);
    MRC__CNT(c->st.rx_bytes_placed += plen);
    c->rcvd_bytes += (uint64_t)len + 4u + MRC_NOMINAL_HDR; /* len = headers + payload + pad */
    if (next) { /* cack moves to it (its bits would be set and cleared again as cack moves over it) */
        if (last) {
            c->msn_done = (c->msn_done + 1u) & MRC_PSN_MASK;
            c->tack_msgs++;
        }
        c->cack = psn;
        if (c->ooo) mrc__rsp_fast_filled(c, psn, ts); /* it filled the first hole (ooo as on entry here) */
    } else {
        mrc__rsp_fast_late(c, psn, ts);
    }
    if (c->imms[c->imm_next & (MRC_MAX_WIMM - 1u)].psn & MRC__IMM_VALID) mrc__rsp_deliver_imms(c);
    c->sack_pending++;
    c->pend_psn = psn;
    c->pend_ev = ri->ev;
    c->pend_ts = ts;
    c->pend_port = ri->port;
    if (MRC__FX(pkt, MRC__BTH_A) || ce || MRC__FX(pkt, MRC__BTH_RTX) || c->sack_pending >= cf->ack.sack_every ||
        !next || c->cack != psn) { /* out of order, or a filled hole (in order, cack is psn) */
        if (c->ctlq_head == c->ctlq_tail && req_idle) { /* mrc__rsp_sack into an empty queue: nothing to coalesce */
            /* written in place, member by member (no copy through the stack): the bytes of mrc__rsp_sack's zeroed
             * entry, the padding included - nothing ever sets it (the QP is zeroed when created, and every other
             * entry is a copy of a zeroed one) */
            mrc__ctl *e = &c->ctlq[c->ctlq_tail++ & (MRC_CTLQ_LEN - 1u)];
            e->psn = e->lo = e->hi = psn;
            e->ev = c->pend_ev;
            e->ts = ts;
            e->kind = MRC__CTL_SACK;
            e->m = ce ? MRC_M_SKIP_ONCE : MRC_M_NONE; /* Q8/Q27: a CE mark asks the sender to skip that EV once */
            e->reason = 0;
            e->port = c->pend_port;
            e->pr = 0;
            if (!c->in_ctq) { /* mrc__sched_tx (its requester half has nothing to do) */
                c->in_ctq = 1;
                mrc__ring_push_il(ep->ctq, &ep->ctq_head, &ep->ctq_len, c->slot);
            }
            c->sack_pending = 0;
            c->sack_deadline = MRC_TIME_NEVER;
        } else {
            mrc__rsp_fast_sackq(c, ce);
        }
    } else if (c->sack_deadline == MRC_TIME_NEVER) {
        c->sack_deadline = mrc__rsp_fast_sack_dl(now, cf->ack.sack_delay_ns);
    }
    if (cf->ack.tack_every) mrc__rsp_fast_tack(c, ri, cf->ack.tack_every);
    if (ep->in_burst) { /* P37 bursts: what follows, once per QP at the burst's end */
        mrc__burst_defer(ep, c);
    } else {
        /* what mrc_endpoint_recv does after any packet of a QP */
        if (!req_idle) {
            mrc__sched_tx(c);
        } else if (!c->in_ctq && c->ctlq_head != c->ctlq_tail) {
            mrc__sched_ctl(c); /* its push (its test again) */
        }
        /* mrc__timer_update: the QP's heap key is the minimum of its timers when a call starts; with the requester
         * half idle the only timer this can move is sack_deadline */
        if (!req_idle || c->sack_deadline != sack_dl0) mrc__timer_update(c);
        MRC__CHECK_ALL(ep);
    }
    if (dst) MRC_MEMCPY(dst, pkt + off, (size_t)plen);
    return MRC_OK;
}

#if MRC__BURST_RUNS
/* mrc__rsp_fast_run: the fields of the SACK the run's packet k (timestamp ts) named last, as mrc__ctl_push's copy of
 * mrc__rsp_sack's entry leaves them (lo and hi are kept as they go) */
MRC__PRIVATE MRC__INLINE void mrc__rsp_run_tail(mrc__ctl *t, const mrc_rxpkt *k, uint16_t ts) {
    t->psn = MRC__FX(k->pkt, MRC__BTH_PSN);
    t->ev = k->ri.ev;
    t->ts = ts;
    t->reason = 0;
    t->port = k->ri.port;
}
/* mrc_rxinfo's port, DSCP, ECN and flags (its first four bytes) as one word in memory order */
MRC__PRIVATE MRC__INLINE uint32_t mrc__ri_word(const mrc_rxinfo *ri) {
    uint32_t w;
    MRC_MEMCPY(&w, ri, 4);
    return w;
}
/* P37 bursts: the most packets one receive run takes (a burst of more is taken in runs of this many): the PSNs a run
 * merges into a SACK span less than a quarter of the PSN space */
#define MRC__RUN_MAX (1u << 22)
/* mrc__rsp_fast_run's merges of the PSNs mf .. ml (increasing, spanning less than MRC__RUN_MAX) into the tail, as
 * mrc__ctl_push's merges one by one leave lo and hi: lo moves to the first merged PSN at or before it, if any (then it
 * stays: the next ones are after it), and never later - exact while lo is less than MRC__RUN_MAX before the run's
 * first PSN (the difference cannot wrap; lazy); hi moves to each PSN at or after it, so to ml once one reached it */
#define MRC__RUN_TAIL()                                                                                                \
    do {                                                                                                               \
        if (merged) {                                                                                                  \
            int32_t d_ = mrc_psn_diff(tail->hi, mf);                                                                   \
            if (mrc_psn_diff(tail->lo, mf) >= 0) tail->lo = mf;                                                        \
            if (d_ <= 0 || ((ml - mf) & MRC_PSN_MASK) >= (uint32_t)d_) tail->hi = ml;                                  \
            merged = false;                                                                                            \
        }                                                                                                              \
    } while (0)
/* P37 bursts: a run of in-order data packets to one QP (a NIC's receive burst of one flow), from
 * mrc_endpoint_recv_burst for a Write without an immediate. Each packet is checked as mrc_endpoint_recv_burst,
 * mrc__recv_one and mrc__rsp_fast_data check it, and if it is the next PSN of a QP with nothing out of order, without
 * the A or RTX bit, into a host region, not CE-marked, and the SACK it may owe is written into an empty queue or merges
 * into the tail, it is taken as they take it in a burst; the first packet that is not this case ends the run, nothing
 * of it changed (the caller takes it as before). What the per-packet path finds anew each time is found once per run:
 * the QP (a packet with the QP's QPN is what the lookup would find it for), its state and rights, an empty reorder
 * state (an in-order arrival keeps it empty), the requester half idle or not (nothing here changes it), no transport
 * ACKs asked for. Returns the packets taken (0: none, the first not this case; their rc MRC_OK). */
MRC__PRIVATE MRC__NOINLINE unsigned mrc__rsp_fast_run(mrc_endpoint *ep, const mrc_rxpkt *k, unsigned n, int *rc,
                                                      mrc_time now) {
    const mrc_config *cf = &ep->cfg;
    mrc_conn *c = mrc__conn_lookup(ep, MRC__FX(k->pkt, MRC__BTH_DEST_QP));
    const mrc_rxpkt *k0 = k, *end = k + MRC__MIN(n, MRC__RUN_MAX), *kl = (const mrc_rxpkt *)0; /* kl: the last taken */
    mrc__ctl *tail; /* the control queue's tail, a plain SACK a SACK merges into (0: the queue is empty or it is not) */
    uint32_t mtu, qpn, rkey_ok = 0;
    const mrc__mr *mr_ok = (const mrc__mr *)0; /* the region rkey_ok names */
    uint64_t lens = 0, plens = 0; /* the packets' and the payloads' bytes, counted at the end */
    uint16_t ts = 0;              /* the last packet's timestamp */
    bool sack_ok, imm_wait, tail_new = false; /* tail_new: the last packet taken named the tail's SACK */
    bool epoch = true; /* mrc__rsp_epoch may still change something: not once it left the epoch current and
                          counted */
    bool like = false; /* kl a first or middle packet with no immediate stashed after it: one like it passes its
                          tests */
    size_t off_like = 0; /* kl's payload offset */
    uint32_t ri_mask, ri_like = 0; /* the receive flags' bytes but the port (the planes take turns), and kl's */
    /* the SACK merges into the tail (mrc__ctl_push's), made at the end: mf and ml the first and last PSNs merged since
     * (merged), lazy where that is exact (MRC__RUN_TAIL) */
    uint32_t mf = 0, ml = 0;
    bool merged = false, lazy;
    /* (a QP's first packet of the burst queues its deferred work: where that flushes the full queue, the flush may
     * wake this QP's requester half - mrc__rsp_fast_data then takes the packet, and the run waits for the next one) */
    if (!c || (!(c->bflags & MRC__BURST_DIRTY) && ep->burst_len == MRC__BURST_QPS) ||
        (c->state != MRC_QPS_RTR && c->state != MRC_QPS_RTS) || !(c->attr.access & MRC_ACCESS_REMOTE_WRITE) || c->ooo ||
        cf->ack.tack_every)
        return 0;
    {
        static const uint8_t mb[4] = {0u, 0xFFu, 0xFFu, 0xFFu}; /* mrc_rxinfo's first four bytes, port first */
        MRC_MEMCPY(&ri_mask, mb, 4);
    }
    mtu = 1u << c->mtu_shift;
    qpn = c->qpn;
    tail = &c->ctlq[(c->ctlq_tail - 1u) & (MRC_CTLQ_LEN - 1u)];
    if (c->ctlq_head == c->ctlq_tail || tail->kind != MRC__CTL_SACK || tail->pr || tail->m != MRC_M_NONE)
        tail = (mrc__ctl *)0;
    /* a SACK it owes can be merged into the tail, or written into the empty queue (with the requester half idle: it
     * stays so, nothing here changes it); else the packet path takes that packet */
    sack_ok = tail || (c->ctlq_head == c->ctlq_tail && mrc__req_idle(c));
    lazy = !tail || mrc_psn_diff(tail->lo, MRC__PSN_INC(c->cack)) > -(int32_t)MRC__RUN_MAX;
    /* an immediate waiting in the stash for cack to pass its message (none stashed here: only mrc__rsp_deliver_imms,
     * which the run calls, changes that) */
    imm_wait = (c->imms[c->imm_next & (MRC_MAX_WIMM - 1u)].psn & MRC__IMM_VALID) != 0;
    for (; k != end; k++) {
        const uint8_t *pkt = k->pkt, *q;
        size_t len = k->len, off;
        uint32_t psn, op, dlen, pad, plen, rkey, mi;
        const mrc__mr *mr;
        uint64_t mro;
        uint16_t pts = 0;
        bool last, sack;
        /* mrc_endpoint_recv_burst's and mrc__recv_one's tests, then mrc__rsp_fast_data's, then the in-order case (each
         * a test that ends the run, none with an effect: in any order) */
        if (!pkt || len < (size_t)MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN) break;
        /* the next PSN, with neither the A nor the RTX bit (either asks for a SACK at once: left to the packet path) */
        psn = MRC__PSN_INC(c->cack);
        if ((mrc__ld4(pkt + 8) & (0xA0000000u | MRC_PSN_MASK)) != psn) break;
        q = pkt + MRC_BTH_LEN + MRC_METH_LEN;
        if (MRC__LIKELY(MRC__FX(pkt, MRC__BTH_TS))) {
            pts = (uint16_t)MRC__FX(q, MRC__TSETH_TS);
            q += MRC_TSETH_LEN;
        }
        off = (size_t)(q - pkt) + MRC_RETH_LEN;
        /* a packet like the one before, a first or middle one (the same length, receive flags, BTH words 0 and 1, METH,
         * headers' length, RETH rkey and length; only the PSN, the timestamp and the VA differ): every test below
         * but the region's bounds has its answer (what they read of the QP, the MSN expected, moves only at a
         * message's last packet, and nothing else in the run changes it: immediates stashed excepted) */
        if (MRC__LIKELY(like && len == kl->len && off == off_like && (mrc__ri_word(&k->ri) & ri_mask) == ri_like &&
                        k->ri.port - 1u < cf->num_ports && !MRC_MEMCMP(pkt, kl->pkt, 8) &&
                        !MRC_MEMCMP(pkt + MRC_BTH_LEN, kl->pkt + MRC_BTH_LEN, MRC_METH_LEN) &&
                        !MRC_MEMCMP(q + 8, kl->pkt + off - 8, 8))) {
            op = pkt[0];
            last = false;
            plen = mtu;
            mr = mr_ok;
        } else {
            if (k->ri.port - 1u >= cf->num_ports || (k->ri.flags & (MRC_RX_ICRC_BAD | MRC_RX_TRIMMED))) break;
            op = pkt[0];
            if (op - MRC_OP_WRITE_FIRST > MRC_OP_WRITE_ONLY - MRC_OP_WRITE_FIRST || op == MRC_OP_WRITE_LAST_IMM ||
                k->ri.dscp == cf->dscp[MRC_DSCP_TRIMMED] || k->ri.dscp == cf->dscp[MRC_DSCP_TRIMMED_LASTHOP] ||
                (k->ri.ecn & 3u) == 3u || MRC__FX(pkt, MRC__BTH_DEST_QP) != qpn ||
                ((MRC__FX(pkt, MRC__BTH_PKEY) ^ c->attr.pkey) & 0x7FFFu))
                break;
            dlen = MRC__FX(q, MRC__RETH_DMA_LEN);
            last = op > MRC_OP_WRITE_MIDDLE;
            pad = MRC__FX(pkt, MRC__BTH_PAD);
            if (!last) {
                plen = mtu;
                if (dlen <= (mtu << (op == MRC_OP_WRITE_MIDDLE)) || pad || len - off != mtu) break;
            } else {
                if (op == MRC_OP_WRITE_ONLY) plen = dlen <= mtu ? dlen : 0u;
                else plen = dlen > mtu ? ((dlen - 1u) & (mtu - 1u)) + 1u : 0u;
                if (!plen || pad != ((4u - (plen & 3u)) & 3u) || len - off != (size_t)plen + pad) break;
            }
            if ((uint32_t)(uint16_t)(MRC__FX(pkt + MRC_BTH_LEN, MRC__METH_MSN) - (uint16_t)(c->msn_done + 1u)) >=
                c->rsp_win)
                break;
            /* the region: the rkey the packet before named is the slot it found, with its rights (nothing in the run
             * registers or deregisters a region); its bounds every time */
            rkey = MRC__FX(q, MRC__RETH_RKEY);
            if (rkey == rkey_ok && rkey_ok) {
                mr = mr_ok;
            } else {
                mi = (rkey >> 8) - 1u;
                if (mi >= MRC_MAX_MRS || ep->mrs[mi].rkey != rkey) mi = (uint32_t)mrc__rsp_mr_keyed(ep, rkey);
                if (mi >= MRC_MAX_MRS || (ep->mrs[mi].access & (MRC_ACCESS_REMOTE_WRITE | MRC_ACCESS_EXTERNAL)) !=
                                             MRC_ACCESS_REMOTE_WRITE)
                    break;
                mr = &ep->mrs[mi];
            }
            rkey_ok = rkey;
            off_like = off;
            like = !last;
            ri_like = mrc__ri_word(&k->ri) & ri_mask; /* (a packet like it has the same) */
        }
        mro = MRC__FX(q, MRC__RETH_VA) - mr->iova;
        if (mro > mr->len || plen > mr->len - mro) break;
        mr_ok = mr;
        /* the SACK it may owe: mrc__rsp_fast_data's choice; a merge into the tail always keeps (the PSNs it names end
         * at psn, which becomes cack) */
        sack = c->sack_pending + 1u >= cf->ack.sack_every;
        if (sack && !sack_ok) break;
        /* taken: mrc__recv_one's and mrc__rsp_fast_data's steps for this case, in their order - but for the counters
         * and the last packet's pend_* and SACK fields, written at the end (nothing here reads them), as are rc[] and
         * the QP's deferred work */
        if (tail_new && !sack) { /* a SACK the packet before named, which this one does not rename: its fields now */
            mrc__rsp_run_tail(tail, kl, ts);
            tail_new = false;
        }
        kl = k;
        ts = pts;
        lens += len;
        plens += plen;
#ifdef MRC_ENABLE_TRACE
        MRC__RUN_TAIL(); /* the hook sees the tail as the packets before left it */
#endif
        MRC__TRACE(ep, MRC_TRACE_RX, ((uint32_t)op << 24) | psn, k->ri.port);
        if (epoch) {
            mrc__rsp_epoch(ep, c, now);
            epoch = now >= ep->epoch_end; /* (now is the burst's: the same for the rest of the run) */
        }
        if (last) {
            c->msn_done = (c->msn_done + 1u) & MRC_PSN_MASK;
            c->tack_msgs++;
        }
        c->cack = psn;
        if (imm_wait) {
            if (c->imms[c->imm_next & (MRC_MAX_WIMM - 1u)].psn & MRC__IMM_VALID) mrc__rsp_deliver_imms(c);
            imm_wait = (c->imms[c->imm_next & (MRC_MAX_WIMM - 1u)].psn & MRC__IMM_VALID) != 0;
            if (imm_wait) like = false;
        }
        if (!sack) {
            c->sack_pending++;
            if (c->sack_deadline == MRC_TIME_NEVER) c->sack_deadline = mrc__deadline_add(now, cf->ack.sack_delay_ns);
        } else {
            if (tail) { /* mrc__ctl_push's merge */
                if (MRC__LIKELY(lazy)) {
                    if (!merged) mf = psn;
                    merged = true;
                    ml = psn;
                } else {
                    if (mrc_psn_diff(tail->lo, psn) >= 0) tail->lo = psn;
                    if (mrc_psn_diff(tail->hi, psn) <= 0) tail->hi = psn;
                }
            } else { /* into the empty queue, as mrc__rsp_fast_data */
                tail = &c->ctlq[c->ctlq_tail++ & (MRC_CTLQ_LEN - 1u)];
                tail->lo = tail->hi = psn;
                tail->kind = MRC__CTL_SACK;
                tail->m = MRC_M_NONE;
                tail->pr = 0;
                if (!c->in_ctq) {
                    c->in_ctq = 1;
                    mrc__ring_push(ep->ctq, &ep->ctq_head, &ep->ctq_len, c->slot);
                }
            }
            tail_new = true;
            c->sack_pending = 0;
            c->sack_deadline = MRC_TIME_NEVER;
        }
        MRC_MEMCPY(mr->base + mro, pkt + off, (size_t)plen);
    }
    if (kl) {
        uint32_t m = (uint32_t)(kl - k0) + 1u, j;
        MRC__RUN_TAIL();
        if (rc)
            for (j = 0; j < m; j++) rc[j] = MRC_OK;
        if (tail_new) mrc__rsp_run_tail(tail, kl, ts);
        c->pend_psn = c->cack;
        c->pend_ev = kl->ri.ev;
        c->pend_ts = ts;
        c->pend_port = kl->ri.port;
        MRC__CNT(ep->st.rx_bytes += lens);
        MRC__CNT(ep->st.rx_pkts += m);
        MRC__CNT(c->st.rx_data += m);
        MRC__CNT(c->st.rx_bytes_placed += plens);
        c->rcvd_bytes += lens + (uint64_t)m * (4u + MRC_NOMINAL_HDR);
        /* the QP's deferred work queued, as its first packet's would have been: no other QP was touched since, and
         * the queue is not full (no flush) */
        if (!(c->bflags & MRC__BURST_DIRTY)) mrc__burst_defer(ep, c);
    }
    return (unsigned)(k - k0);
}
#undef MRC__RUN_TAIL
#undef MRC__RUN_MAX
#endif

/* *ti zeroed, every byte (its padding too): a size-optimized GCC build calls memset for it (about 50 instructions
 * on Cortex-M4 for the 40 bytes), so there it is stores of whole words, which GCC merges (5 strd) */
MRC__PRIVATE MRC__INLINE void mrc__ti_zero(mrc_txinfo *ti) {
#if defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__) && defined(__OPTIMIZE_SIZE__)
    typedef uint32_t __attribute__((__may_alias__)) mrc__aw; /* stores that may alias every member */
    mrc__aw *z = (mrc__aw *)(void *)ti;
    unsigned i;
    _Pragma("GCC unroll 16") for (i = 0; i < sizeof *ti / sizeof *z; i++) z[i] = 0;
#else
    MRC_MEMSET(ti, 0, sizeof *ti);
#endif
}
/* mrc__rsp_fast_sack with something out of order (MRC__SIZE_COLD): the bitmap from PSN base, and *pen from
 * mrc__rsp_penalty, called only past its threshold: below it the penalty is the host's alone too. ooo >
 * floor(rsp_win * pct / 100) is 100 * ooo > rsp_win * pct (no division; both below 2^32: ooo at most MRC__RSP_BITS,
 * rsp_win at most 255 * 128) */
MRC__PRIVATE MRC__SIZE_COLD uint64_t mrc__rsp_fast_sack_ooo(mrc_conn *c, uint32_t base, uint8_t *pen) {
    const mrc_endpoint *ep = c->ep;
    if (ep->cfg.rx.pen_ooo_pct && 100u * c->ooo > c->rsp_win * ep->cfg.rx.pen_ooo_pct) *pen = mrc__rsp_penalty(c);
    return mrc__bits64(c->rbits, MRC__RSP_BITS, base);
}
/* mrc__rsp_fast_sack's P28 mirror reverse path with a profile (MRC__SIZE_COLD): MIRROR replies, the arrival's mirror */
MRC__PRIVATE MRC__SIZE_COLD uint16_t mrc__rsp_fast_mirror(mrc_conn *c, const mrc__ctl *e) {
    return c->ep->cfg.ev.reply != MRC_EV_REPLY_MIRROR ? (uint16_t)MRC__EV_NONE : mrc__ev_mirror(c, e->ev, e->port);
}
/* mrc_endpoint_poll_tx's fast path for a QP it took off the control round-robin with a packet queued: a plain SACK
 * (no probe answer; with nothing out of order the penalty is the host's alone and the bitmap 0), leaving on the
 * arrival's mirror (P28 mirror reverse path) or an EV of the arrival plane (mrc__ev_ctl's first choice; reply not ECHO
 * off), with the LSB-first SETH. It stores the 48 header bytes (BTH, SETH, CC_STATE) a word at a time, as the encoders
 * would with these values, and does the rest of poll_tx's work for the packet. 0 when it is not its case: nothing was
 * changed. */
MRC__PRIVATE MRC__INLINE int mrc__rsp_fast_sack(mrc_conn *c, uint8_t *buf, mrc_txinfo *ti) {
    mrc_endpoint *ep = c->ep;
    const mrc__ctl *e = &c->ctlq[c->ctlq_head & (MRC_CTLQ_LEN - 1u)];
    unsigned p = e->port - 1u, nev;
    uint32_t cack, ooo;
    int32_t ack, soff;
    uint16_t rs;
    uint8_t pen, mpr;
    uint64_t bitmap = 0;
    bool req_idle;
    if (e->kind != MRC__CTL_SACK || e->pr || ep->cfg.ev.reply == MRC_EV_REPLY_ECHO || !mrc__seth_fast_ok(&ep->cfg.wire))
        return 0;
    /* P28 mirror reverse path (only with a profile and MIRROR replies: its own first test, kept here so that the
     * common case makes no call), else mrc__ev_ctl's first plane's turn */
    if (!c->ev_prof || (rs = mrc__rsp_fast_mirror(c, e)) == MRC__EV_NONE) {
        nev = (unsigned)c->n_act[p] + c->n_skip[p];
        if (!nev) return 0;
        if (c->rev_pos[p] >= nev) c->rev_pos[p] = 0;
        rs = mrc__evr_at(c, p, c->rev_pos[p]++);
    }
    cack = c->cack;
    ack = mrc_psn_diff(e->psn, cack);
    soff = mrc__sack_slice(c, e->hi);
    pen = ep->rx_pressure;
    ooo = c->ooo;
    mpr = (c->attr.caps & MRC_CAP_DYNAMIC_MPR) ? mrc__rsp_mpr(c) : 0;
    if (ooo) bitmap = mrc__rsp_fast_sack_ooo(c, cack + (uint32_t)soff, &pen); /* else the penalty is the host's
                                                                                 alone and the bitmap 0 */
    MRC_MEMCPY(buf, c->tx_sack, 8); /* opcode, TVER, PKEY, DEST_QP */
    mrc__st4(buf + 8, MRC__FW(8, 4, MRC__BTH_PSN, cack));
    buf += MRC_BTH_LEN;
    mrc__st4(buf, MRC__FW(0, 4, MRC__SETH_M, e->m) |
                      MRC__FW(0, 4, MRC__SETH_ACK_OFF, (uint16_t)(ack < -32768 || ack > 32767 ? 0 : ack)));
    mrc__st4(buf + 4, MRC__FW(4, 4, MRC__SETH_ENTROPY, e->ev));
    MRC_MEMCPY(buf + 8, &c->tx_sack[2], 4); /* SPDCID, DPDCID */
    mrc__st4(buf + 12, MRC__FW(12, 4, MRC__SETH_CACK, cack));
    mrc__st4(buf + 16, MRC__FW(16, 4, MRC__SETH_MPR, mpr) |
                           MRC__FW(16, 4, MRC__SETH_SACK_OFF, (uint16_t)soff));
    mrc__st8(buf + 20, bitmap);
    buf += MRC_SETH_LEN;
    mrc__st4(buf, MRC__FW(0, 4, MRC__CCS_TS, e->ts) | MRC__FW(0, 4, MRC__CCS_OOO, MRC__MIN(ooo, 0x7FFFu)));
    mrc__st4(buf + 4, MRC__FW(4, 4, MRC__CCS_R_C, !pen && c->pen_last) | MRC__FW(4, 4, MRC__CCS_PEN, pen) |
                          MRC__FW(4, 4, MRC__CCS_RCVD, (c->rcvd_bytes >> 8) & 0xFFFFFFu));
    c->pen_last = pen;
    if (pen) MRC__RARE_INC(c->st.tx_pen);
    MRC__CNT(c->st.tx_sack++);
    mrc__ti_zero(ti);
    mrc__ev_txinfo(c, rs, ti);
    ti->dscp_class = MRC_DSCP_CONTROL;
    ti->dscp = ep->cfg.dscp[MRC_DSCP_CONTROL];
    ti->opcode = MRC_OP_SACK;
    ti->peer = c->attr.peer;
    ti->qpn = c->qpn;
    ti->hdr_len = MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN;
    c->ctlq_head++;
    req_idle = mrc__req_idle(c); /* (nothing above changes what it reads) */
    MRC__TRACE(ep, MRC_TRACE_TX, ((uint32_t)MRC_OP_SACK << 24) | cack, ti->ev);
    if (!req_idle) { /* mrc__sched_tx: round-robin, to the tail if it has more */
        mrc__sched_tx(c);
    } else if (c->ctlq_head != c->ctlq_tail) {
        mrc__sched_ctl(c); /* (in_ctq is 0: the pop cleared it) its push, its test again */
    }
    MRC__CNT(ep->st.tx_pkts++);
    MRC__CNT(ep->st.tx_bytes += MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN);
    return MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN;
}
#endif

/* ---- receive: the entry ------------------------------------------------------------------------------------- */
/* One packet, its arguments checked, at the endpoint's clock */
MRC__PRIVATE MRC__INLINE int mrc__recv_one(mrc_endpoint *ep, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri) {
    MRC__CNT(ep->st.rx_bytes += len);
#if MRC_FAST_PATH
    /* P22 fast paths: a Write without an immediate, or a SACK (each hands what is not its case on to mrc__recv).
     * Neither takes a trimmed packet or one shorter than the smallest data packet (BTH, METH, TSETH, RETH; a SACK is
     * longer): both are left to the general code here, with the ICRC flag in the same test. */
    if (!(ri->flags & (MRC_RX_ICRC_BAD | MRC_RX_TRIMMED)) &&
        len >= (size_t)MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN && !ep->cfg.fast_path_off) {
        unsigned op = pkt[0];
        MRC__CNT(ep->st.rx_pkts++); /* here and below: apart from rx_bytes, two adds (not one vector add, 5 more on
                                     * x86-64) */
        if (op - MRC_OP_WRITE_FIRST <= MRC_OP_WRITE_ONLY - MRC_OP_WRITE_FIRST && op != MRC_OP_WRITE_LAST_IMM)
            return mrc__rsp_fast_data(ep, pkt, len, ri, ep->now);
        if (op == MRC_OP_SACK) return mrc__req_sack_fast(ep, pkt, len, ri, ep->now);
        return mrc__recv(ep, pkt, len, ri);
    }
#endif
    MRC__CNT(ep->st.rx_pkts++);
    if (ri->flags & MRC_RX_ICRC_BAD) return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_ICRC, len ? pkt[0] : 0u);
    return mrc__recv(ep, pkt, len, ri);
}
MRC_API int mrc_endpoint_recv(mrc_endpoint *ep, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri,
                              mrc_time now) {
    if (!ep || !ri || ri->port - 1u >= ep->cfg.num_ports || !pkt) return MRC_ERR_INVAL; /* port 0 wraps */
    (void)mrc__clock(ep, now); /* ep->now from here on: the general path reads it (its callers' fallbacks are plain
                                 * tail calls) */
    return mrc__recv_one(ep, pkt, len, ri);
}
/* P37 bursts: the packets in order at one time; the per-QP work a packet leaves (NSCC's update, the RTO/TLP re-arm,
 * scheduling, the timer key) is done once per QP at the end, and the general code sees a QP as after single calls.
 * In-order data packets of one QP are taken as a run (mrc__rsp_fast_run, where MRC__BURST_RUNS), and so are its
 * in-order SACKs (mrc__req_sack_run), unless
 * ep->burst_no_runs (the fast-path check's reference, tests/fixtures/mrc_fastcheck.h: every packet alone, through
 * mrc__recv_one). */
MRC_API int mrc_endpoint_recv_burst(mrc_endpoint *ep, const mrc_rxpkt *pkts, unsigned n, int *rc, mrc_time now) {
    const mrc_rxpkt *k, *end;
    int ok = 0;
    if (!ep || (!pkts && n)) return MRC_ERR_INVAL;
    (void)mrc__clock(ep, now); /* ep->now from here on: a value fewer kept across the calls */
    ep->in_burst = 1;
    for (k = pkts, end = pkts + n; k != end; k++) {
        int r;
#if MRC__BURST_RUNS
        /* mrc__recv_one's fast-path dispatch, with a run of one QP's in-order SACKs or Writes first (ep->burst_no_runs:
         * the fast-path check's reference takes every packet through mrc__recv_one) */
        if (k->pkt && k->ri.port - 1u < ep->cfg.num_ports && !(k->ri.flags & (MRC_RX_ICRC_BAD | MRC_RX_TRIMMED)) &&
            k->len >= (size_t)MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN && !ep->cfg.fast_path_off &&
            !ep->burst_no_runs) {
            unsigned op = k->pkt[0], m;
            bool data = op - MRC_OP_WRITE_FIRST <= MRC_OP_WRITE_ONLY - MRC_OP_WRITE_FIRST && op != MRC_OP_WRITE_LAST_IMM;
            m = op == MRC_OP_SACK ? mrc__req_sack_run(ep, k, (unsigned)(end - k), rc)
                : data            ? mrc__rsp_fast_run(ep, k, (unsigned)(end - k), rc, ep->now)
                                  : 0u;
            if (m) { /* a run: m packets taken, their rc written */
                k += m - 1u;
                if (rc) rc += m;
                ok += (int)m;
                continue;
            }
            MRC__CNT(ep->st.rx_bytes += k->len);
            MRC__CNT(ep->st.rx_pkts++);
            r = op == MRC_OP_SACK ? mrc__req_sack_fast(ep, k->pkt, k->len, &k->ri, ep->now)
                : data            ? mrc__rsp_fast_data(ep, k->pkt, k->len, &k->ri, ep->now)
                                  : mrc__recv(ep, k->pkt, k->len, &k->ri);
        } else
#endif
        {
            r = !k->pkt || k->ri.port - 1u >= ep->cfg.num_ports ? MRC_ERR_INVAL
                                                                : mrc__recv_one(ep, k->pkt, k->len, &k->ri);
        }
        if (rc) *rc++ = r;
        ok += r == MRC_OK;
    }
    mrc__burst_flush(ep);
    ep->in_burst = 0;
    MRC__CHECK_ALL(ep);
    return ok;
}

/* ---- transmit: the fast path of new data, the general path, the entry --------------------------------------- */
#if MRC_FAST_PATH
/* the fast paths' EV without a recycled one: plane p's next in its rotation, a new round when it is through (as
 * mrc__ev_pick; MRC__SIZE_COLD: with EV recycling the common case takes a recycled EV) */
MRC__PRIVATE MRC__SIZE_COLD uint16_t mrc__fast_ev_next(mrc_conn *c, unsigned p) {
    if (c->act_pos[p] >= c->n_act[p]) mrc__ev_new_round(c, p);
    return mrc__evr_at(c, p, c->act_pos[p]++);
}
/* the fast paths' data packet's A bit with ack.request_every (every n-th packet; MRC__SIZE_COLD) */
MRC__PRIVATE MRC__SIZE_COLD uint32_t mrc__fast_areq(mrc_conn *c, uint32_t n) {
    if (++c->pkts_since_areq < n) return 0;
    c->pkts_since_areq = 0;
    return 1;
}
/* the fast paths' data packet's SE bit of a solicited immediate (byte 1, at its run-time bit; MRC__SIZE_COLD) */
MRC__PRIVATE MRC__SIZE_COLD uint32_t mrc__fast_se(const mrc_config *cf, const mrc__wr *wr) {
    return (wr->flags & MRC_WR_SOLICITED) ? 1u << (13u - mrc__m_bit(&cf->wire) + 16u) : 0u;
}
/* The fast paths' data packet (mrc__req_tx_fast, mrc__req_rtx_fast): the opcode of packet k of WR wr (index wr_idx),
 * returned; the A bit (ack.request_every); the headers at buf - BTH (rtx: its retransmission bit), METH, TSETH when on,
 * RETH, ImmDt when imm - stored as mrc__req_emit_data stores them */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__fast_data_hdrs(mrc_endpoint *ep, mrc_conn *c, uint8_t *buf,
                                                            const mrc__wr *wr, uint32_t wr_idx, uint32_t k,
                                                            uint32_t sh, uint32_t psn, uint32_t pad, bool last,
                                                            bool imm, uint32_t rtx, mrc_time now) {
    const mrc_config *cf = &ep->cfg;
#ifdef __OPTIMIZE_SIZE__
    /* FIRST, MIDDLE, LAST(_IMM), ONLY(_IMM): WRITE_FIRST plus 0, 1, 2(+imm), 4(+imm) - a nibble of 0x4201 picked by
     * last and k == 0, without branches (imm only when last; Cortex-M4 -Os: 80 B less than the branches below) */
    const uint32_t opcode = MRC_OP_WRITE_FIRST + (uint32_t)imm +
                            ((0x4201u >> (((last ? 2u : 0u) + (k == 0 ? 1u : 0u)) * 4u)) & 0xFu);
#else /* the branches: x86-64 -O2 keeps each opcode's constants */
    const uint32_t opcode = !last  ? (k == 0 ? MRC_OP_WRITE_FIRST : MRC_OP_WRITE_MIDDLE)
                            : k == 0 ? (imm ? MRC_OP_WRITE_ONLY_IMM : MRC_OP_WRITE_ONLY)
                                     : (imm ? MRC_OP_WRITE_LAST_IMM : MRC_OP_WRITE_LAST);
#endif
    const uint32_t a = cf->ack.request_every ? mrc__fast_areq(c, cf->ack.request_every) : (uint32_t)last;
    uint8_t *q;
    mrc__st4(buf, MRC__FW(0, 4, MRC__BTH_OPCODE, opcode) | (imm ? mrc__fast_se(cf, wr) : 0u) |
                      MRC__FW(0, 4, MRC__BTH_PAD, pad) | c->tx_bth0); /* se: byte 1, at its run-time bit; TVER and
                                                                        * PKEY from the QP's template */
    mrc__st4(buf + 4, MRC__FW(4, 4, MRC__BTH_RESV8, 0u) | MRC__FW(4, 4, MRC__BTH_DEST_QP, c->attr.dest_qpn));
    mrc__st4(buf + 8, MRC__FW(8, 4, MRC__BTH_A, a) | MRC__FW(8, 4, MRC__BTH_RTX, rtx) |
                          MRC__FW(8, 4, MRC__BTH_TS, cf->tseth ? 1u : 0u) | MRC__FW(8, 4, MRC__BTH_PSN, psn));
    mrc__st4(buf + MRC_BTH_LEN,
             MRC__FW(0, 4, MRC__METH_RQMSN, wr->rqmsn) | MRC__FW(0, 4, MRC__METH_MSN, mrc__wr_msn(wr_idx)));
    q = buf + MRC_BTH_LEN + MRC_METH_LEN;
    if (cf->tseth) {
        mrc__st4(q, MRC__FW(0, 4, MRC__TSETH_TS, mrc__ts(ep, now)) | MRC__FW(0, 4, MRC__TSETH_TSR, 0u) |
                        MRC__FW(0, 4, MRC__TSETH_FTYPE, 1u));
        q += MRC_TSETH_LEN;
    }
    MRC__FPUT(q, MRC__RETH_VA, wr->remote_va + (k << sh)); /* 32-bit: see mrc__req_tx_fast */
    MRC__FPUT(q, MRC__RETH_RKEY, wr->rkey);
    MRC__FPUT(q, MRC__RETH_DMA_LEN, wr->len);
    if (imm) MRC__FPUT(q + MRC_RETH_LEN, MRC__IMMDT_IMM, wr->imm);
    return opcode;
}
/* MRC_TX_COPY's copy of the payload (plen bytes at ti->payload, then pad zero bytes) to q, after the headers
 * (MRC__SIZE_COLD: a zero-copy transmit is the per-packet path's) */
MRC__PRIVATE MRC__SIZE_COLD void mrc__fast_data_copy(mrc_txinfo *ti, uint8_t *q, uint32_t plen, uint32_t pad) {
    if (plen) MRC_MEMCPY(q, ti->payload, (size_t)plen);
    if (pad) MRC_MEMSET(q + plen, 0, (size_t)pad);
    ti->payload = q;
}
/* ... and its mrc_txinfo (dscp class cls, EV slot), the payload copied after the headers with MRC_TX_COPY */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__fast_data_ti(const mrc_conn *c, mrc_txinfo *ti, uint8_t *buf,
                                                      const mrc__wr *wr, uint32_t k, uint32_t sh, uint16_t slot,
                                                      unsigned cls, uint32_t opcode, uint32_t pad, uint32_t hl,
                                                      uint32_t plen, unsigned flags) {
    mrc__ti_zero(ti);
    mrc__ev_txinfo(c, slot, ti);
    ti->dscp_class = (uint8_t)cls;
    ti->dscp = c->ep->cfg.dscp[cls];
    ti->pad = (uint8_t)pad;
    ti->opcode = (uint8_t)opcode;
    ti->peer = c->attr.peer;
    ti->qpn = c->qpn;
    ti->hdr_len = hl;
    ti->payload_len = plen;
    ti->payload = plen ? wr->buf + (k << sh) : (const uint8_t *)0;
    if (flags & MRC_TX_COPY) mrc__fast_data_copy(ti, buf + hl, plen, pad);
}
/* ... and what sending it counts: mrc__cc_on_send (the QP's and the congestion context's flight), the QP's data
 * counters, the TLP's base */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__fast_data_sent(mrc_conn *c, mrc__ccx *x, uint32_t nominal, uint32_t plen,
                                                        mrc_time now) {
    c->cc_inflight += nominal;
    if (x) x->inflight += nominal;
    MRC__CNT(c->st.tx_data++);
    MRC__CNT(c->st.tx_bytes += plen);
    c->tx_nominal += nominal;
    c->tlp_base = now;
}
#if MRC__TX_RUN
/* ---- the transmit template (docs/PROTOCOL.md P22 fast paths) ---------------------------------------------------------
 * What every middle packet of the message at send-queue index wr_idx shares, stored once per message in the QP for
 * mrc__req_tx_fast and mrc__req_tx_run: the header bytes (BTH words 0 and 1, METH, TSETH's fixed bits, RETH's rkey and
 * length), BTH word 2's TS bit and the mrc_txinfo but the EV's fields and the payload. A packet adds
 * its PSN word (A bit, PSN), TSETH's timestamp, RETH's VA, its EV and its payload. Its inputs stay fixed while the
 * message is sent: the WR, the QP's PKEY, DEST_QP, peer, QPN and MTU (changed outside RTS only, where
 * mrc__conn_tx_bth0 or mrc__conn_clear drops it), the configuration (fixed). tpl.wr is dropped where the message ends
 * (mrc__req_tx_fast, mrc__req_tx) and at a flush, so a slot that comes round again never finds it. */
/* its key: the message's send-queue slot plus one (never 0, "none"; a message's index plus one would be 0 at 2^32 - 1).
 * A slot comes round again every MRC_MAX_SQ messages: the template goes where its message ends, so it is never the
 * later message's (tests/burst.c bu_tx_template) */
#define MRC__TPL_KEY(wr_idx) (((wr_idx) & (MRC_MAX_SQ - 1u)) + 1u)
MRC__STATIC_ASSERT(sizeof(mrc_txinfo) >= 32, txinfo_32); /* mrc__tx_tpl_pkt's first copy */
MRC__PRIVATE MRC__NOINLINE void mrc__tx_tpl(mrc_conn *c, const mrc__wr *wr, uint32_t wr_idx) {
    const mrc_config *cf = &c->ep->cfg;
    const uint32_t hl = mrc__data_hdr_len(c, false), plen = 1u << c->mtu_shift; /* plen: pad 0 */
    uint8_t *th = c->tpl.hdr;
    mrc_txinfo *ti = &c->tpl.ti;
    MRC_MEMSET(th, 0, sizeof c->tpl.hdr);
    mrc__st4(th, MRC__FW(0, 4, MRC__BTH_OPCODE, MRC_OP_WRITE_MIDDLE) | c->tx_bth0);
    mrc__st4(th + 4, MRC__FW(4, 4, MRC__BTH_RESV8, 0u) | MRC__FW(4, 4, MRC__BTH_DEST_QP, c->attr.dest_qpn));
    mrc__st4(th + MRC_BTH_LEN,
             MRC__FW(0, 4, MRC__METH_RQMSN, wr->rqmsn) | MRC__FW(0, 4, MRC__METH_MSN, mrc__wr_msn(wr_idx)));
    mrc__st4(th + MRC_BTH_LEN + MRC_METH_LEN, MRC__FW(0, 4, MRC__TSETH_TSR, 0u) | MRC__FW(0, 4, MRC__TSETH_FTYPE, 1u));
    MRC__FPUT(th + sizeof c->tpl.hdr - MRC_RETH_LEN, MRC__RETH_RKEY, wr->rkey);
    MRC__FPUT(th + sizeof c->tpl.hdr - MRC_RETH_LEN, MRC__RETH_DMA_LEN, wr->len);
    c->tpl.w2 = MRC__FW(8, 4, MRC__BTH_TS, cf->tseth ? 1u : 0u);
    MRC_MEMSET(ti, 0, sizeof *ti);
    ti->dscp_class = (uint8_t)(cf->trimmable ? MRC_DSCP_TRIMMABLE : MRC_DSCP_NO_TRIM);
    ti->dscp = cf->dscp[ti->dscp_class];
    ti->opcode = (uint8_t)MRC_OP_WRITE_MIDDLE;
    ti->ev_fmt = (uint8_t)MRC_EV_FMT_UDP; /* mrc__ev_txinfo without a profile */
    ti->peer = c->attr.peer;
    ti->qpn = c->qpn;
    ti->hdr_len = hl;
    ti->payload_len = plen;
    c->tpl.wr = MRC__TPL_KEY(wr_idx);
}
/* A middle packet (packet k, PSN psn, EV slot, A bit a) from the template: its headers at buf (hl bytes), its
 * mrc_txinfo, its payload copied after the headers with MRC_TX_COPY - the bytes mrc__fast_data_hdrs and
 * mrc__fast_data_ti store for it. mrc__req_tx_run's loop stores the same from locals (the template's bytes with the
 * run's timestamp, the VA and payload advanced): through this helper its transmit cost 208.9 -> 225.5 per packet */
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__tx_tpl_pkt(mrc_conn *c, uint8_t *buf, mrc_txinfo *ti, const mrc__wr *wr,
                                                    uint32_t k, uint32_t sh, uint32_t psn, uint32_t a, uint16_t slot,
                                                    uint32_t hl, unsigned flags, mrc_time now) {
    uint8_t *q = buf + (hl - MRC_RETH_LEN);
    MRC_MEMCPY(buf, c->tpl.hdr, MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN);
    mrc__st4(buf + 8, c->tpl.w2 | MRC__FW(8, 4, MRC__BTH_A, a) | MRC__FW(8, 4, MRC__BTH_PSN, psn));
    if (c->tpl.w2) /* TSETH (without it, RETH below overwrites those bytes) */
        mrc__st4(buf + MRC_BTH_LEN + MRC_METH_LEN, MRC__FW(0, 4, MRC__TSETH_TS, mrc__ts(c->ep, now)) |
                                                       MRC__FW(0, 4, MRC__TSETH_TSR, 0u) |
                                                       MRC__FW(0, 4, MRC__TSETH_FTYPE, 1u));
    MRC__FPUT(q, MRC__RETH_VA, wr->remote_va + ((uint64_t)k << sh));
    MRC_MEMCPY(q + 8, c->tpl.hdr + sizeof c->tpl.hdr - 8, 8); /* RETH's rkey and length */
    /* (two copies: gcc -O2 x86-64 makes one copy of all 56 bytes a rep movs, 14 iterations; 32-bit: 40 bytes) */
    MRC_MEMCPY(ti, &c->tpl.ti, 32);
    MRC_MEMCPY((uint8_t *)ti + 32, (const uint8_t *)&c->tpl.ti + 32, sizeof *ti - 32);
    if (MRC__UNLIKELY(c->ev_prof)) {
        mrc__ev_txinfo(c, slot, ti);
    } else {
        ti->port = c->evs[slot].port;
        ti->ev = c->evs[slot].sport;
    }
    ti->payload = wr->buf + ((uint64_t)k << sh);
    if (flags & MRC_TX_COPY) mrc__fast_data_copy(ti, buf + hl, 1u << sh, 0u);
}
#endif
/* ---- new data: the fast path (docs/PROTOCOL.md P22 fast paths) ------------------------------------------------------
 * The common case of mrc__req_tx: a QP in RTS with no probe due and nothing to retransmit sends its next new packet,
 * inside the MPR window and the congestion window, on the next EV of the current plane's rotation, with no record in
 * flight old enough for mrc__txl_reserve to judge lost. It does what mrc__req_tx, mrc__req_new and
 * mrc__req_emit_data do then, in the same order, with the headers stored straight at their fixed offsets from the
 * codec's tables (every value was checked against its field's width when it was configured, attached or posted).
 * Every check comes before any state changes: 0 = not this case (the general code runs), else the bytes written. */
MRC__PRIVATE int mrc__req_tx_fast(mrc_conn *c, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti,
                                  mrc_time now) {
    mrc_endpoint *ep = c->ep;
    const mrc_config *cf = &ep->cfg;
    uint32_t psn = c->snd_nxt, wr_idx = c->sq_send, k = c->sq_sent, sh = c->mtu_shift;
    uint32_t plen, pad, hl, nominal, opcode, nxt;
    unsigned p = c->plane_rr;
    mrc__ccx *x = mrc__conn_ccx(c);
    mrc__wr *wr;
    mrc__pblk *bk;
    mrc__psnrec *r;
    size_t need;
    bool last, imm, more;
    uint16_t slot;
    if (cf->fast_path_off || c->state != MRC_QPS_RTS || c->probes_due || c->rtxq.n || wr_idx == c->sq_tail)
        return 0;
    wr = MRC__SQ(c, wr_idx);
    if (k == 0 && wr->opcode == MRC_WR_WRITE_IMM && c->wimm_out >= c->attr.max_wimm) return 0;
    if ((uint32_t)mrc_psn_diff(psn, c->win_base) >= c->win_psns) return 0;
    bk = mrc__blk(c, psn);
    if (!bk && !(ep->pool_nfree | ep->pool_nret)) return 0;
    /* mrc__wr_npkts and mrc__pkt_len without the division: k is below the packet count, so packet k is the last
     * when the next one would start at or past len, and then holds the rest of len (0 for an empty message)
     * (32-bit: len <= MRC_MAX_MSG_LEN = 2^31 and k < mrc__wr_npkts, so (k + 2) << sh < 2^31 + 2 * 4096) */
    last = wr->len <= ((k + 1u) << sh);
    more = wr->len > ((k + 2u) << sh); /* k + 2 < mrc__wr_npkts: the next packet is a middle one too */
    imm = last && wr->opcode == MRC_WR_WRITE_IMM;
    plen = last ? wr->len - (k << sh) : 1u << sh;
    pad = (4u - (plen & 3u)) & 3u;
    hl = mrc__data_hdr_len(c, imm);
    nominal = hl + plen + pad + 4u + MRC_NOMINAL_HDR; /* mrc__nominal */
    need = (flags & MRC_TX_COPY) ? (size_t)hl + (size_t)plen + (size_t)pad : (size_t)hl;
    if (!mrc__cc_fits(x, nominal, now) || ((flags & MRC_TX_COPY) && cap < need)) return 0; /* cap >= MRC_HDR_MAX > hl */
    if (x && MRC__UNLIKELY(x->cwnd < nominal) && x->p.subpkt) return 0; /* P24 sub-packet windows: it sets the pacing
                                                                           clock */
    if (c->txl.n && !mrc__txl_room(c)) return 0; /* mrc__txl_reserve's test: not past it */
    if (!(c->n_act[p] | c->n_skip[p])) { /* a plane without EVs: mrc__ev_pick finds one if any plane has one */
        int rs = mrc__ev_pick(c, -1); /* -1: none, its planes' turn back where it was (a full round of plane_rr), and
                                         the general code arms the no-path timer */
        if (rs < 0) return 0;
        slot = (uint16_t)rs;
    } else { /* mrc__ev_pick(c, -1), which takes this plane's oldest recycled EV (P23 EV recycling) or its next EV */
        int rs;
        c->plane_rr = (uint8_t)(p + 1u == cf->num_ports ? 0u : p + 1u);
        if (c->rc_n[p] && (rs = mrc__ev_rc_pop(c, p, -1)) >= 0) {
            slot = (uint16_t)rs;
        } else {
            slot = mrc__fast_ev_next(c, p);
        }
    }

#if MRC__TX_RUN
    if (!last && k) { /* a middle packet: the transmit template's bytes (the A bit as mrc__fast_data_hdrs) */
        if (c->tpl.wr != MRC__TPL_KEY(wr_idx)) mrc__tx_tpl(c, wr, wr_idx);
        opcode = MRC_OP_WRITE_MIDDLE;
        mrc__tx_tpl_pkt(c, buf, ti, wr, k, sh, psn,
                        cf->ack.request_every ? mrc__fast_areq(c, cf->ack.request_every) : 0u, slot, hl, flags, now);
    } else
#endif
    {
        opcode = mrc__fast_data_hdrs(ep, c, buf, wr, wr_idx, k, sh, psn, pad, last, imm, 0u, now);
        mrc__fast_data_ti(c, ti, buf, wr, k, sh, slot, cf->trimmable ? MRC_DSCP_TRIMMABLE : MRC_DSCP_NO_TRIM, opcode,
                          pad, hl, plen, flags);
    }

    /* commit: mrc__req_emit_data's for a new PSN, then mrc__req_tx's */
    if (!bk || !(psn & (MRC__BLK_PSNS - 1u)) || c->nxt_ret) {
        mrc__pool_enter(c, psn);
        bk = mrc__blk(c, psn);
    }
    r = &bk->rec[psn & (MRC__BLK_PSNS - 1u)];
    r->wr = (mrc__sqslot)(wr_idx & (MRC_MAX_SQ - 1u));
    r->ev_lost = 0;
    bk->acked &= ~((uint64_t)1 << (psn & 63u));
    bk->sent[psn & (MRC__BLK_PSNS - 1u)] = now;
    r->ev = (mrc__evslot)slot;
    r->flags = MRC__PR_INFLIGHT | MRC__PR_FULL; /* the message's last one drops MRC__PR_FULL below */
    r->txseq = (mrc__txseq)c->tx_count++;
    if (c->txl.n && !((c->txl.tail ^ psn) >> 6)) { /* mrc__plist_push(c, &c->txl, psn, r, false): tail in bk */
        bk->rec[c->txl.tail & (MRC__BLK_PSNS - 1u)].next = (mrc__recidx)(psn & (MRC_MAX_INFLIGHT - 1u));
        r->prev = (mrc__recidx)(c->txl.tail & (MRC_MAX_INFLIGHT - 1u));
        c->txl.tail = psn;
        c->txl.n++;
    } else {
        mrc__plist_push(c, &c->txl, psn, r, false);
    }
    mrc__fast_data_sent(c, x, nominal, plen, now);
    MRC__TRACE(ep, MRC_TRACE_TX, (opcode << 24) | psn, ti->ev);
    if (k == 0) {
        wr->first_psn = psn;
        if (wr->opcode == MRC_WR_WRITE_IMM) c->wimm_out++;
    }
    if (last) {
        r->flags = MRC__PR_INFLIGHT;
        c->sq_send++;
        c->sq_sent = 0;
#if MRC__TX_RUN
        c->tpl.wr = 0; /* the transmit template's message is sent */
#endif
    } else {
        c->sq_sent = k + 1u;
    }
    c->snd_nxt = nxt = MRC__PSN_INC(psn);
    mrc__req_timers_tx(c, now); /* psn is in flight; rto_start if the RTO starts */
    /* mrc__sched_tx(c), next in mrc_endpoint_poll_tx: c has left the txq and is in RTS with no probe due and nothing
     * to retransmit, so mrc__req_new decides - and after a middle packet, the next is a middle packet too (the same
     * nominal size, no WIMM limit) and in the same block unless it starts one */
    mrc__sched_ctl(c);
    if (c->in_txq) return (int)need; /* queued again while it sent: once is enough (as mrc__sched_tx) */
    if (more && (nxt & (MRC__BLK_PSNS - 1u)))
        mrc__sched_txq(c, (uint32_t)mrc_psn_diff(nxt, c->win_base) >= c->win_psns ? MRC__NEW_NO
                          : mrc__cc_fits(x, nominal, now)                     ? MRC__NEW_OK
                                                                              : MRC__NEW_CWND);
    else
        mrc__sched_txq(c, mrc__req_new(c));
    return (int)need;
}
#endif
#if MRC__TX_RUN
/* ---- P37 bursts: a run of one QP's middle packets (docs/PROTOCOL.md P37 bursts, P22 fast paths) -------------------
 * When one QP is all that is queued (no endpoint operation, no control packet, the txq holds just it), a single call
 * sends its packet and, after a middle packet that leaves the next one sendable, queues it again at the tail of the
 * otherwise empty txq, so the next call takes it again. mrc__req_tx_run sends such a run of the current message's
 * middle packets into consecutive burst entries, as that many calls of mrc__req_tx_fast would (the same updates, the
 * same draws, the same bytes), with what cannot change within the run tested and built once: the QP in RTS with no
 * probe due and nothing to retransmit (only acknowledgements, timers and the API change them), the header words
 * every middle packet of the message shares (BTH words 0 and 1, METH, TSETH at one time, RETH's rkey and length: the
 * PSN and the VA advance), the mrc_txinfo of those packets (less the EV's fields and the payload), the sub-packet
 * window's test; the txq's pop and push of each packet become one store of its ring. Per packet: the entry's room,
 * the pool block, the transmit list's span, the plane's EVs, the EV, the acknowledgement request, the record, the
 * transmit list, the congestion window and the requeue decision. It stops before a packet the single call would not
 * send this way (the message's last, a window or the pool full, a plane without EVs, an entry without room) with the
 * QP queued as the single call left it, and after a packet that queued anything else or left it unqueued (as the
 * single call did): the entry that follows then takes mrc__poll_tx. Returns the packets sent; 0: no such run, and
 * nothing changed. Called with the txq holding only c and nothing else queued, the fast paths on. */
/* the counters of m packets of a run: mrc__req_tx_fast's (mrc__cc_on_send's), then mrc__poll_tx's */
MRC__PRIVATE MRC__INLINE void mrc__tx_run_count(mrc_conn *c, uint32_t m, uint32_t nominal, uint32_t plen,
                                                uint32_t bytes) {
    c->cc_inflight += (uint64_t)nominal * m;
    MRC__CNT(c->st.tx_data += m);
    MRC__CNT(c->st.tx_bytes += (uint64_t)plen * m);
    c->tx_nominal += (uint64_t)nominal * m;
    MRC__CNT(c->ep->st.tx_pkts += m);
    MRC__CNT(c->ep->st.tx_bytes += (uint64_t)bytes * m);
}
MRC__PRIVATE MRC__NOINLINE unsigned mrc__req_tx_run(mrc_endpoint *ep, mrc_txpkt *t, unsigned n, unsigned flags,
                                                   mrc_time now) {
    const mrc_config *cf = &ep->cfg;
    const uint16_t cs = ep->txq[ep->txq_head % MRC_MAX_CONNS];
    mrc_conn *c = ep->conns[cs];
    mrc__ccx *x = mrc__conn_ccx(c);
    const mrc__evprof *pf = mrc__conn_prof(c);
    const uint32_t wr_idx = c->sq_send, sh = c->mtu_shift, plen = 1u << sh, pad = (4u - (plen & 3u)) & 3u;
    const unsigned np = cf->num_ports;
    const uint32_t k = c->sq_sent, psn0 = c->snd_nxt; /* packet j of the run: packet k + j of the message, PSN
                                                         * psn0 + j */
    uint32_t psn = psn0, hl, nominal, areq, last, room_w, lim;
    const uint32_t h0 = ep->txq_head; /* the txq's head before the run: one pop per packet taken */
    uint32_t jw = 0; /* the txq's ring slots h0 + 1 .. h0 + jw hold cs (each packet's push): written so far */
    uint32_t tl = c->txl.tail, pa = c->pkts_since_areq; /* the transmit list's tail and pkts_since_areq, kept here */
    unsigned p = c->plane_rr, j, i;
    uint64_t infl, cwnd; /* x->inflight before the run (j packets on: plus j * nominal) and the window: the congestion
                          * window's test in locals, nothing else in the run changes them */
    uint8_t th[MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN]; /* the shared header bytes */
    uint64_t va; /* the packet's VA, advanced by plen a packet */
    const uint8_t *src; /* its payload, too */
    size_t need, room;
    mrc__wr *wr;
    mrc__pblk *bk = (mrc__pblk *)0;
    mrc_txinfo ti0;
    bool tm = true, sc = true, fresh = true; /* the timer re-arm and the queues' tests still to make; fresh: packet j
                                              * is the first, or in another block than the packet before's (past
                                              * the first, bk is that block) */
    int w;
    uint32_t txc, tln = 0; /* c->tx_count before the run, and packets appended to the transmit list in c->txl.n's
                            * block, kept here */
    mrc__sqslot wrs;      /* the record's send-queue slot */
    uint32_t w8;          /* the PSN's word but the PSN and the A bit */
/* what the loop keeps in locals, written back before anything it calls may read it (and at the end): tx_count,
 * x->inflight, sq_sent and snd_nxt (j packets on: j counts the packets whose record is written), tlp_base (now once a
 * packet is sent), the transmit list's length and tail, pkts_since_areq. The txq's head is h0 plus the pops made:
 * written where something may queue, or at the end */
#define MRC__TX_RUN_SYNC()                                                                                             \
    do {                                                                                                               \
        c->tx_count = txc + j;                                                                                         \
        c->txl.n += tln;                                                                                               \
        tln = 0;                                                                                                       \
        if (x) x->inflight = infl + (uint64_t)nominal * j;                                                             \
        if (j) c->tlp_base = now;                                                                                      \
        c->txl.tail = tl;                                                                                              \
        c->sq_sent = k + j;                                                                                            \
        c->snd_nxt = (psn0 + j) & MRC_PSN_MASK;                                                                        \
        c->pkts_since_areq = pa;                                                                                       \
    } while (0)
/* the txq's ring slots of the pushes of the run's packets 1 .. u (the slots past jw: a slot written again holds cs
 * again), before anything may queue behind them */
#define MRC__TX_RUN_RING(u)                                                                                            \
    do {                                                                                                               \
        uint32_t u_ = (u);                                                                                             \
        if (u_ > jw + MRC_MAX_CONNS) jw = u_ - MRC_MAX_CONNS;                                                          \
        while (jw < u_) ep->txq[(h0 + ++jw) % MRC_MAX_CONNS] = cs;                                                     \
    } while (0)
    if (c->state != MRC_QPS_RTS || c->probes_due || c->rtxq.n || wr_idx == c->sq_tail || k == 0) return 0;
    wr = MRC__SQ(c, wr_idx);
    if (wr->len <= ((uint64_t)(k + 1u) << sh)) return 0; /* packet k is the message's last */
    last = (wr->len - 1u) >> sh;                         /* the last packet's index: packets k .. last - 1 are middle */
    hl = mrc__data_hdr_len(c, false);
    nominal = hl + plen + pad + 4u + MRC_NOMINAL_HDR; /* mrc__nominal */
    need = (flags & MRC_TX_COPY) ? (size_t)hl + (size_t)plen + (size_t)pad : (size_t)hl;
    room = (flags & MRC_TX_COPY) ? need : (size_t)MRC_HDR_MAX; /* an entry's least cap (need < MRC_HDR_MAX without) */
    room_w = (uint32_t)mrc_psn_diff(psn, c->win_base);
    if (room_w >= c->win_psns || !mrc__cc_fits(x, nominal, now)) return 0;
    room_w = c->win_psns - room_w; /* PSNs the window takes from psn on */
    if (x && MRC__UNLIKELY(x->cwnd < nominal) && x->p.subpkt) return 0; /* P24: as mrc__req_tx_fast */
    /* every plane has EVs: mrc__ev_new_round keeps a plane's count, nothing else in the run changes it */
    for (i = 0; i < np; i++)
        if (!(c->n_act[i] | c->n_skip[i])) return 0;
    /* the transmit list's span: its head stays (the run only appends), the sequence advances one per packet; past
     * it, as past the last entry, the QP stays queued */
    lim = MRC__TXL_SPAN;
    if (c->txl.n) {
        uint32_t used = mrc__txl_span(c); /* (as each packet's test would find it: it renews txl_lo alike) */
        if (used >= MRC__TXL_SPAN) return 0;
        lim = MRC__TXL_SPAN - used;
    }
    lim = MRC__MIN(lim, n);
    room_w = MRC__MIN(MRC__MIN(room_w, last - k), lim); /* packets j below it: inside the window, middle, in lim */
    infl = x ? x->inflight : 0u;
    txc = c->tx_count;
    cwnd = x ? x->cwnd : ~(uint64_t)0 - nominal;
    /* the congestion window's test of packet j + 1 (infl then the flight plus j + 1 packets): j below what the room
     * left takes whole */
    room_w = MRC__MIN(room_w, cwnd >= infl ? (uint32_t)MRC__MIN((cwnd - infl) / nominal, (uint64_t)room_w) : 0u);
    /* the bytes every middle packet of the message shares (the transmit template, with this instant's timestamp); the
     * PSN and the VA are stored per packet */
    if (c->tpl.wr != MRC__TPL_KEY(wr_idx)) mrc__tx_tpl(c, wr, wr_idx);
    MRC_MEMCPY(th, c->tpl.hdr, sizeof th);
    mrc__st4(th + MRC_BTH_LEN + MRC_METH_LEN,
             MRC__FW(0, 4, MRC__TSETH_TS, mrc__ts(ep, now)) | MRC__FW(0, 4, MRC__TSETH_TSR, 0u) |
                 MRC__FW(0, 4, MRC__TSETH_FTYPE, 1u));
    va = wr->remote_va + ((uint64_t)k << sh);
    wrs = (mrc__sqslot)(wr_idx & (MRC_MAX_SQ - 1u));
    w8 = c->tpl.w2;
    src = wr->buf + ((uint64_t)k << sh);
    areq = cf->ack.request_every;
    MRC_MEMCPY(&ti0, &c->tpl.ti, sizeof ti0);
    for (j = 0;; t++) { /* t: entry j */
        mrc_txpkt *e = t;
        uint8_t *buf = e->buf, *q;
        mrc_txinfo *ti = &e->ti;
        uint32_t a = 0;
        uint16_t slot;
        mrc__psnrec *r;
        int rs;
        /* this entry (mrc_endpoint_poll_tx_burst's tests) and this packet (mrc__req_tx_fast's that can change) */
        if (!buf || e->cap < room) break;
        if (MRC__UNLIKELY(fresh)) { /* else the block of the packet before */
            bk = mrc__blk(c, psn);
            if (!bk && !(ep->pool_nfree | ep->pool_nret)) break;
        }
        if (!j) { /* the call's pop of the txq (one a packet: the head moves on, at the end) */
            ep->txq_len = 0;
            c->in_txq = 0;
        }
        /* mrc__ev_pick(c, -1) on a plane with EVs, as mrc__req_tx_fast (plane_rr stored at the end) */
        if (c->rc_n[p] && (rs = mrc__ev_rc_pop(c, p, -1)) >= 0) {
            slot = (uint16_t)rs;
        } else {
            slot = mrc__fast_ev_next(c, p);
        }
        p = p + 1u == np ? 0u : p + 1u;
        if (areq && ++pa >= areq) {
            a = 1;
            pa = 0;
        }
        /* BTH, METH and TSETH as shared (without a TSETH, RETH's VA below overwrites its bytes), the PSN's word */
        MRC_MEMCPY(buf, th, MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN);
        mrc__st4(buf + 8, w8 | MRC__FW(8, 4, MRC__BTH_A, a) | MRC__FW(8, 4, MRC__BTH_PSN, psn));
        q = buf + (hl - MRC_RETH_LEN);
        MRC__FPUT(q, MRC__RETH_VA, va);
        MRC_MEMCPY(q + 8, th + sizeof th - 8, 8); /* RETH's rkey and length */
        MRC_MEMCPY(ti, &ti0, sizeof *ti);
        if (MRC__UNLIKELY(pf)) {
            mrc__ev_txinfo(c, slot, ti);
        } else {
            ti->port = c->evs[slot].port;
            ti->ev = c->evs[slot].sport;
        }
        ti->payload = src;
        if (flags & MRC_TX_COPY) {
            MRC_MEMCPY(buf + hl, ti->payload, (size_t)plen);
            if (pad) MRC_MEMSET(buf + hl + plen, 0, (size_t)pad);
            ti->payload = buf + hl;
        }
        /* commit: as mrc__req_tx_fast's for a middle packet; nxt_ret, set only by acknowledgements, is 0 after the
         * first packet's mrc__pool_enter */
        if (MRC__UNLIKELY(fresh) && (!bk || !(psn & (MRC__BLK_PSNS - 1u)) || c->nxt_ret)) {
            MRC__TX_RUN_RING(j);
            ep->txq_head = (h0 + j + 1u) % MRC_MAX_CONNS; /* what mrc__pool_enter may queue goes behind the pop */
            c->plane_rr = (uint8_t)p;
            MRC__TX_RUN_SYNC();
            mrc__pool_enter(c, psn);
            bk = mrc__blk(c, psn);
            sc = true; /* a block handed to a waiting QP queues it */
        }
        r = &bk->rec[psn & (MRC__BLK_PSNS - 1u)];
        r->wr = wrs;
        r->ev_lost = 0;
        bk->acked &= ~((uint64_t)1 << (psn & 63u));
        bk->sent[psn & (MRC__BLK_PSNS - 1u)] = now;
        r->ev = (mrc__evslot)slot;
        r->flags = MRC__PR_INFLIGHT | MRC__PR_FULL; /* a middle packet */
        r->txseq = (mrc__txseq)(txc + j);
        if (MRC__LIKELY(!fresh)) { /* the tail is the packet before, in bk */
            r[-1].next = (mrc__recidx)(psn & (MRC_MAX_INFLIGHT - 1u));
            r->prev = (mrc__recidx)((psn - 1u) & (MRC_MAX_INFLIGHT - 1u));
            tl = psn;
            tln++;
        } else if ((c->txl.n + tln) && !((tl ^ psn) >> 6)) { /* mrc__plist_push(c, &c->txl, psn, r, false) */
            bk->rec[tl & (MRC__BLK_PSNS - 1u)].next = (mrc__recidx)(psn & (MRC_MAX_INFLIGHT - 1u));
            r->prev = (mrc__recidx)(tl & (MRC_MAX_INFLIGHT - 1u));
            tl = psn;
            c->txl.n++;
        } else {
            c->txl.n += tln;
            c->txl.tail = tl;
            tln = 0;
            mrc__plist_push(c, &c->txl, psn, r, false);
            tl = c->txl.tail;
        }
        /* mrc__cc_on_send (x->inflight) and the transmission count, sq_sent and snd_nxt: through j (c's flight and
         * counters at the end: nothing in the run reads them) */
        j++;
        psn = MRC__PSN_INC(psn);
#ifdef MRC_ENABLE_TRACE
        MRC__TX_RUN_SYNC();
        c->sq_sent = k + j - 1u; /* (as the single call's trace sees them) */
        c->snd_nxt = (psn - 1u) & MRC_PSN_MASK;
        mrc__tx_run_count(c, 1u, nominal, plen, hl + plen + pad); /* the hook may read them */
        MRC__TRACE(ep, MRC_TRACE_TX, ((uint32_t)MRC_OP_WRITE_MIDDLE << 24) | ((psn - 1u) & MRC_PSN_MASK), ti->ev);
        c->sq_sent = k + j;
        c->snd_nxt = psn;
#endif
        e->len = (int)need;
        if (MRC__UNLIKELY(tm | sc)) {
            if (tm) { /* after a re-arm that leaves the RTO and the TLP armed, the next ones keep them (P36) */
                MRC__TX_RUN_SYNC();
                mrc__req_timers_tx(c, now);
                tm = c->rto_deadline == MRC_TIME_NEVER || c->tlp_deadline == MRC_TIME_NEVER || c->tlp_ahead;
            }
            if (sc) { /* only the first packet, or a pool block handed over, can queue anything */
                c->plane_rr = (uint8_t)p;
                MRC__TX_RUN_SYNC();
                mrc__sched_ctl(c);
                if (c->in_txq) { /* queued again while it sent (as mrc__req_tx_fast) */
                    MRC__TX_RUN_RING(j - 1u);
                    ep->txq_head = (h0 + j) % MRC_MAX_CONNS;
                    goto done;
                }
            }
        }
        /* mrc__req_tx_fast's requeue: packet k + j (PSN psn) is next (mrc__cc_fits with something in flight); the run
         * goes on only where it is queued alone. Below room_w it is inside the window, a middle packet, an entry of
         * the run and inside the congestion window. */
        if (MRC__LIKELY(j < room_w && (psn & (MRC__BLK_PSNS - 1u)))) {
            w = MRC__NEW_OK;
            fresh = false;
        } else {
            if (k + j < last && (psn & (MRC__BLK_PSNS - 1u))) {
                w = (uint32_t)mrc_psn_diff(psn, c->win_base) >= c->win_psns ? MRC__NEW_NO
                    : infl + (uint64_t)nominal * (j + 1u) <= cwnd           ? MRC__NEW_OK
                                                                            : MRC__NEW_CWND;
            } else {
                c->plane_rr = (uint8_t)p;
                MRC__TX_RUN_SYNC();
                w = mrc__req_new(c);
            }
            if (w != MRC__NEW_OK || k + j >= last || j == lim) goto requeue;
            fresh = !(psn & (MRC__BLK_PSNS - 1u));
        }
        if (sc) {
            sc = false;
            if (ep->epq_len | ep->ctq_len | ep->txq_len) goto requeue;
        }
        /* mrc__sched_txq's push, which the next pop takes: ring slot h0 + j, written later (MRC__TX_RUN_RING) */
        va += plen;
        src += plen;
    }
    if (j) { /* stopped before entry j: queued as the last packet left it */
        MRC__TX_RUN_RING(j);
        ep->txq_len = 1;
        c->in_txq = 1;
    }
    ep->txq_head = (h0 + j) % MRC_MAX_CONNS;
    goto done;
requeue:
    MRC__TX_RUN_RING(j - 1u);
    ep->txq_head = (h0 + j) % MRC_MAX_CONNS;
    c->plane_rr = (uint8_t)p;
    MRC__TX_RUN_SYNC();
    mrc__sched_txq(c, w);
done:
    MRC__TX_RUN_SYNC();
#undef MRC__TX_RUN_RING
#undef MRC__TX_RUN_SYNC
    c->plane_rr = (uint8_t)p;
#ifndef MRC_ENABLE_TRACE
    mrc__tx_run_count(c, j, nominal, plen, hl + plen + pad);
#endif
    return j;
}
#endif
#if MRC__TX_RUN
/* ---- a retransmission: the fast path (docs/PROTOCOL.md P22 fast paths) ---------------------------------------------
 * mrc__poll_req's common case after mrc__req_tx_fast declined a QP for its retransmission queue: a QP in RTS with no
 * probe due sends the head of its retransmission queue, inside the congestion window (or forced), with no record in
 * flight old enough for mrc__txl_reserve to judge lost and an EV in some plane's rotation (so mrc__ev_pick finds one:
 * the retransmission's last EV too when it is all a plane has, and that plane the only one with EVs). It does what
 * mrc__poll_req, mrc__req_tx's retransmission, mrc__req_emit_data and mrc__sched_tx do then, in the same order, built
 * for speed (mrc__poll_req and what only it calls are built for size: MRC__COLD), with the record's message and
 * packet read once, the headers stored as mrc__req_emit_data stores them, the queue's head unlinked in line and the
 * timers as mrc__req_tx_fast leaves them (mrc__req_timers_tx: no deadline but the RTO and the TLP moved). Where speed
 * is asked for only (as the transmit runs): under gcc -Os every retransmission takes mrc__poll_req. Every check comes
 * before any state changes: 0 = not this case (the general code runs), else the bytes written. */
MRC__PRIVATE MRC__NOINLINE int mrc__req_rtx_fast(mrc_conn *c, uint8_t *buf, size_t cap, unsigned flags,
                                                 mrc_txinfo *ti, mrc_time now) {
    mrc_endpoint *ep = c->ep;
    const mrc_config *cf = &ep->cfg;
    uint32_t psn = c->rtxq.head, sh = c->mtu_shift, wr_idx, k, plen, pad, hl, nominal, opcode;
    unsigned p = c->plane_rr;
    mrc__ccx *x = mrc__conn_ccx(c);
    mrc__pblk *bk;
    mrc__psnrec *r;
    mrc__wr *wr;
    size_t need;
    bool last, imm;
    int slot, w;
    unsigned avoid, pos;
    if (cf->fast_path_off || c->state != MRC_QPS_RTS || c->probes_due) return 0;
    bk = mrc__blk(c, psn);
    r = &bk->rec[psn & (MRC__BLK_PSNS - 1u)];
    MRC_ASSERT((r->flags & (MRC__PR_LOST | MRC__PR_QUEUED)) == (MRC__PR_LOST | MRC__PR_QUEUED));
    wr = &c->sq[r->wr];
    wr_idx = mrc__wr_index(c, r->wr);
    k = (psn - wr->first_psn) & MRC_PSN_MASK;
    /* mrc__req_emit_data's packet k: the last when the next would start at or past len (32-bit: as mrc__req_tx_fast) */
    last = wr->len <= ((k + 1u) << sh);
    imm = last && wr->opcode == MRC_WR_WRITE_IMM;
    plen = last ? wr->len - (k << sh) : 1u << sh;
    pad = (4u - (plen & 3u)) & 3u;
    hl = mrc__data_hdr_len(c, imm);
    nominal = hl + plen + pad + 4u + MRC_NOMINAL_HDR; /* mrc__nominal */
    need = (flags & MRC_TX_COPY) ? (size_t)hl + (size_t)plen + (size_t)pad : (size_t)hl;
    if ((!c->rtx_force && !mrc__cc_fits(x, nominal, now)) || ((flags & MRC_TX_COPY) && cap < need)) return 0;
    if (x && MRC__UNLIKELY(x->cwnd < nominal) && x->p.subpkt) return 0; /* P24 sub-packet windows: the pacing clock */
    if (c->txl.n && !mrc__txl_room(c)) return 0; /* mrc__txl_reserve's test: not past it */
    avoid = r->ev; /* a retransmission avoids its last EV */
    pos = c->act_pos[p];
    if (pos < c->n_act[p] && (c->n_act[p] > 1u || mrc__evr_at(c, p, pos) != avoid)) {
        /* mrc__ev_pick(c, avoid) in line where its first plane serves it without a new round (an EV of the round
         * pending, and another active one if that is the EV to avoid): its oldest recycled EV, else the next of its
         * rotation (swapped with the one after it, or the first, when that is the EV to avoid); else the call */
        int rs;
        c->plane_rr = (uint8_t)(p + 1u == cf->num_ports ? 0u : p + 1u);
        if (c->rc_n[p] && (rs = mrc__ev_rc_pop(c, p, (int)avoid)) >= 0) {
            slot = rs;
        } else {
            if (mrc__evr_at(c, p, pos) == avoid) mrc__evr_swap(c, p, pos, pos + 1u < c->n_act[p] ? pos + 1u : 0u);
            slot = mrc__evr_at(c, p, pos);
            c->act_pos[p] = (uint16_t)(pos + 1u);
        }
    } else {
        if (!(c->n_act[p] | c->n_skip[p])) { /* mrc__ev_pick finds an EV if any plane has one */
            unsigned i;
            for (i = 0; i < cf->num_ports && !(c->n_act[i] | c->n_skip[i]); i++) {
            }
            if (i == cf->num_ports) return 0; /* none: the general code arms the no-path timer */
        }
        slot = mrc__ev_pick(c, (int)avoid);
        MRC_ASSERT(slot >= 0);
    }

    opcode = mrc__fast_data_hdrs(ep, c, buf, wr, wr_idx, k, sh, psn, pad, last, imm, 1u, now);

    mrc__fast_data_ti(c, ti, buf, wr, k, sh, (uint16_t)slot, cf->trimmable ? MRC_DSCP_TRIMMABLE_RETX : MRC_DSCP_NO_TRIM,
                      opcode, pad, hl, plen, flags);

    /* commit: mrc__req_emit_data's for a retransmission (mrc__rtxq_remove of the queue's head in line), then
     * mrc__req_tx's */
    if (c->rtxq.n > 1u) c->rtxq.head = mrc__link_psn(c, r->next);
    c->rtxq.n--;
    r->flags = (uint8_t)((r->flags & ~(MRC__PR_QUEUED | MRC__PR_LOST)) | MRC__PR_RTX | MRC__PR_INFLIGHT);
    MRC__CNT(c->st.tx_rtx++);
    bk->sent[psn & (MRC__BLK_PSNS - 1u)] = now;
    r->ev = (mrc__evslot)slot;
    r->txseq = (mrc__txseq)c->tx_count++;
    mrc__plist_push(c, &c->txl, psn, r, false); /* the newest transmission */
    mrc__fast_data_sent(c, x, nominal, plen, now);
    MRC__TRACE(ep, MRC_TRACE_TX, (opcode << 24) | psn, ti->ev);
    c->rtx_force = 0;
    mrc__req_timers_tx(c, now); /* rto_start if the RTO starts (mrc__req_emit_data's) */
    /* mrc__poll_req's mrc__sched_tx (c is in RTS with no probe due) */
    mrc__sched_ctl(c);
    if (!c->in_txq) {
        w = mrc__req_rtx(c);
        mrc__sched_txq(c, w == MRC__NEW_NO ? mrc__req_new(c) : w);
    }
    return (int)need;
}
#endif
/* mrc__poll_tx's cold parts, out of line so that the per-packet code stays small (gcc would inline each once-called
 * handler into mrc__poll_tx): the endpoint operations, a control packet the SACK fast path does not build (a NACK, a
 * SACK with a probe answer), a requester packet the transmit fast path does not send (a retransmission, a probe).
 * MRC__COLD: gcc builds them, and what only they call, for size - the lossy cases pay (x86-64 -O2: a NACK built 1,313
 * -> 1,451, a window with holes 1,703 -> 1,715 per data packet) and the common case gains (1,747.9 -> 1,745.0; inline
 * without the attribute, or out of line without it, 1,775 and 1,754: the calls cost the common case its registers) */
/* a packet of n bytes sent, counted (the three below; out of line under -Os) */
MRC__PRIVATE MRC__SIZE_NOINLINE void mrc__tx_counted(mrc_endpoint *ep, uint32_t n) {
    MRC__CNT(ep->st.tx_pkts++);
    MRC__CNT(ep->st.tx_bytes += n);
}
/* an endpoint operation (P19; few, urgent: before the QPs); 0: none it could send */
MRC__PRIVATE MRC__COLD int mrc__poll_epop(mrc_endpoint *ep, uint8_t *buf, size_t cap, mrc_txinfo *ti) {
    int n = mrc__ep_emit(ep, buf, cap, ti, ep->now); /* (mrc__poll_tx's now) */
    if (n > 0) mrc__tx_counted(ep, (uint32_t)n);
    return n;
}
/* QP c's control packet by the general code (c was taken off the control round-robin); 0: no port up (queued again
 * when a port comes up) */
MRC__PRIVATE MRC__COLD int mrc__poll_ctl(mrc_conn *c, uint8_t *buf, mrc_txinfo *ti) {
    int n = mrc__rsp_emit_ctl(c, buf, ti);
    if (n == 0) return 0;
    mrc__sched_tx(c); /* round-robin: to the tail if it has more */
    mrc__tx_counted(c->ep, ti->hdr_len);
    return n;
}
/* QP c's requester packet by the general code (c was taken off the transmit round-robin, from the head of the
 * queue); 0: nothing it can send now (queued again when that changes), < 0: nothing consumed, c back at the head */
MRC__PRIVATE MRC__COLD int mrc__poll_req(mrc_conn *c, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti) {
    mrc_endpoint *ep = c->ep;
    int n = c->state == MRC_QPS_RTS ? mrc__req_tx(c, buf, cap, flags, ti) : 0; /* (at mrc__poll_tx's now) */
    if (n == 0) {
        int w = c->state == MRC_QPS_RTS ? mrc__req_rtx(c) : MRC__NEW_NO;
        if (w != MRC__NEW_CWND && c->state == MRC_QPS_RTS) w = mrc__req_new(c);
        if (w == MRC__NEW_CWND) {
            mrc__cc_block(c);
        } else { /* it let its turn go (no EV, MPR or WIMM limit, no pool block): the next READY QP may take it */
            if (w == MRC__NEW_POOL) mrc__pool_wait(c);
            mrc__cc_pass(c);
        }
    }
    if (n < 0) { /* nothing consumed: put it back at the head */
        ep->txq_head = (ep->txq_head + MRC_MAX_CONNS - 1u) % MRC_MAX_CONNS;
        ep->txq[ep->txq_head] = c->slot;
        ep->txq_len++;
        c->in_txq = 1;
        return n;
    }
    if (n == 0) return 0;
    mrc__sched_tx(c); /* round-robin: to the tail if it has more */
    mrc__tx_counted(ep, ti->hdr_len + ti->payload_len + ti->pad); /* 32-bit: at most MRC_HDR_MAX + 4096 + 3 */
    return n;
}
/* mrc_endpoint_poll_tx past its argument checks and the clock, when something is queued (out of line: the call with
 * nothing to send stays a few instructions, without this one's register saves) */
MRC__PRIVATE MRC__NOINLINE int mrc__poll_tx(mrc_endpoint *ep, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti) {
    if (ep->epq_len) { /* endpoint operations first: they are few and urgent */
        int n = mrc__poll_epop(ep, buf, cap, ti);
        if (n > 0) return n;
    }
    while (ep->ctq_len) { /* control packets: SACKs, NACKs, transport ACKs */
        uint16_t slot = ep->ctq[ep->ctq_head % MRC_MAX_CONNS];
        mrc_conn *c = ep->conns[slot];
        int n;
        ep->ctq_head = (ep->ctq_head + 1u) % MRC_MAX_CONNS;
        ep->ctq_len--;
        c->in_ctq = 0;
        if (c->ctlq_head == c->ctlq_tail) continue; /* emptied since it was queued (the QP entered ERR) */
#if MRC_FAST_PATH
        if (!ep->cfg.fast_path_off && (n = mrc__rsp_fast_sack(c, buf, ti)) > 0) return n; /* P22 fast paths: did it all
                                                                                             */
#endif
        n = mrc__poll_ctl(c, buf, ti);
        if (n) return n;
    }
    while (ep->txq_len) {
        uint16_t slot = ep->txq[ep->txq_head % MRC_MAX_CONNS];
        mrc_conn *c = ep->conns[slot];
        int n;
        ep->txq_head = (ep->txq_head + 1u) % MRC_MAX_CONNS;
        ep->txq_len--;
        c->in_txq = 0;
#if MRC_FAST_PATH
        n = mrc__req_tx_fast(c, buf, cap, flags, ti, ep->now); /* (its callers' mrc__clock) 0: not its common case;
                                                                  else c is requeued too */
#if MRC__TX_RUN
        if (n == 0 && c->rtxq.n) n = mrc__req_rtx_fast(c, buf, cap, flags, ti, ep->now); /* a retransmission */
#endif
        if (n > 0) {
            MRC__CNT(ep->st.tx_pkts++);
            MRC__CNT(ep->st.tx_bytes += ti->hdr_len + ti->payload_len + ti->pad); /* 32-bit: as mrc__tx_counted's */
            return n;
        }
#endif
        n = mrc__poll_req(c, buf, cap, flags, ti);
        if (n) return n;
    }
    return 0;
}
MRC_API int mrc_endpoint_poll_tx(mrc_endpoint *ep, uint8_t *buf, size_t cap, unsigned flags, mrc_txinfo *ti,
                                 mrc_time now) {
    if (!ep || !buf || !ti || (flags & ~(unsigned)MRC_TX_COPY)) return MRC_ERR_INVAL;
    if (cap < MRC_HDR_MAX) return MRC_ERR_NOBUF;
    now = mrc__clock(ep, now);
    if (!(ep->epq_len | ep->ctq_len | ep->txq_len)) return 0; /* nothing queued at all */
    return mrc__poll_tx(ep, buf, cap, flags, ti);
}

/* P37 bursts: up to n packets, each as mrc_endpoint_poll_tx would return it; stops at the first entry that gets none
 * (its len says why: 0 nothing to send, MRC_ERR_NOBUF) */
MRC_API int mrc_endpoint_poll_tx_burst(mrc_endpoint *ep, mrc_txpkt *pkts, unsigned n, unsigned flags, mrc_time now) {
    unsigned i;
    if (!ep || (!pkts && n) || (flags & ~(unsigned)MRC_TX_COPY)) return MRC_ERR_INVAL;
    now = mrc__clock(ep, now);
    for (i = 0; i < n; i++) {
        mrc_txpkt *t = &pkts[i];
#if MRC__TX_RUN
        if (ep->txq_len == 1u && !(ep->epq_len | ep->ctq_len) && !ep->cfg.fast_path_off) {
            unsigned m = mrc__req_tx_run(ep, t, n - i, flags, now); /* a run of one QP's middle packets */
            if (m) {
                i += m - 1u;
                continue;
            }
        }
#endif
        t->len = !t->buf                                            ? MRC_ERR_INVAL
                 : t->cap < MRC_HDR_MAX                             ? MRC_ERR_NOBUF
                 : !(ep->epq_len | ep->ctq_len | ep->txq_len) ? 0
                                                                : mrc__poll_tx(ep, t->buf, t->cap, flags, &t->ti);
        if (t->len <= 0) break;
    }
    return (int)i;
}

/* ---- time: the next deadline and the expiries --------------------------------------------------------------- */
MRC_API mrc_time mrc_endpoint_next_deadline(const mrc_endpoint *ep) {
    if (!ep) return MRC_TIME_NEVER;
    /* P36 lazy deadlines: the heap may hold idle QPs whose keys passed; with no timer armed there is nothing to do */
    return MRC__MIN(ep->armed && ep->heap_len ? ep->conns[ep->heap[0]]->deadline : MRC_TIME_NEVER, ep->ep_deadline);
}
MRC_API int mrc_endpoint_on_timeout(mrc_endpoint *ep, mrc_time now) {
    if (!ep) return MRC_ERR_INVAL;
    now = mrc__clock_ctl(ep, now); /* out of line: rarer than packets (-12 B Cortex-M4) */
    while (ep->heap_len && ep->conns[ep->heap[0]]->deadline <= now) {
        mrc_conn *c = ep->conns[ep->heap[0]];
        mrc__req_tlp_exact(c); /* P36 lazy deadlines: a transmission may have left it early */
        if (c->sack_deadline <= now) mrc__rsp_on_sack_timer(c);
        if (c->rto_deadline <= now) mrc__req_on_rto(c, now);
        if (c->tlp_deadline <= now) mrc__req_on_tlp(c, now);
        if (c->reo_deadline <= now) mrc__req_on_reo(c, now);
        if (c->evp_deadline <= now) mrc__ev_probe_round(c, now);
        if (c->ver_deadline <= now) mrc__ev_ver_expire(c, now);
        if (c->nopath_deadline <= now) mrc__nopath_expire(c, now);
        if (c->pace_deadline <= now) mrc__cc_pace_expire(c);
        mrc__timer_rekey(c); /* exact again (P36 lazy deadlines: the key may have been early, and nothing was due) */
        if (c->deadline <= now) { /* every handler re-arms in the future; never spin on a broken invariant */
            MRC_ASSERT(0);
            mrc__timers_never(c);
            mrc__timer_rekey(c);
        }
        mrc__sched_tx(c);
    }
    if (ep->ep_deadline <= now) mrc__ep_timeouts(ep, now);
    MRC__CHECK_ALL(ep);
    return MRC_OK;
}

/* ---- events and statistics ---------------------------------------------------------------------------------- */
/* mrc_endpoint_poll_event with something queued (out of line: the empty poll keeps no frame and saves no register) */
MRC__PRIVATE MRC__NOINLINE int mrc__poll_event(mrc_endpoint *ep, mrc_event *ev) {
    if (ep->notify_len) {
        *ev = ep->notify[ep->notify_head];
        ep->notify_head = (ep->notify_head + 1u) % MRC_NOTIFYQ_LEN;
        ep->notify_len--;
        return 1;
    }
    MRC_MEMSET(ev, 0, sizeof *ev); /* once: a QP with nothing to report writes nothing into it */
    while (ep->evq_len) {
        mrc_conn *c = ep->conns[ep->evq[ep->evq_head % MRC_MAX_CONNS]];
        if (c->err_pending) {
            c->err_pending = 0;
            ev->type = MRC_EVT_CONN_ERROR;
            ev->status = c->err_status;
        } else if (c->sq_head != c->sq_done) {
            const mrc__wr *wr = MRC__SQ(c, c->sq_head);
            c->sq_head++;
            if ((wr->flags & MRC_WR_UNSIGNALED) && wr->status == MRC_OK) continue;
            ev->type = MRC_EVT_SEND_DONE;
            ev->status = wr->status;
            ev->wr_id = wr->wr_id;
            ev->byte_len = wr->status == MRC_OK ? wr->len : 0;
        } else if (c->rq_head != c->rq_done) {
            const mrc__rqe *q = &c->rq[c->rq_head & (MRC_MAX_RQ - 1u)];
            c->rq_head++;
            ev->type = MRC_EVT_RECV_IMM;
            ev->status = q->len == MRC__RQE_FLUSHED ? MRC_ERR_FLUSH : MRC_OK;
            ev->wr_id = q->wr_id;
            ev->imm = q->imm;
            ev->byte_len = q->len == MRC__RQE_FLUSHED ? 0u : q->len;
        } else {
            c->in_evq = 0;
            ep->evq_head = (ep->evq_head + 1u) % MRC_MAX_CONNS;
            ep->evq_len--;
            continue;
        }
        ev->qpn = c->qpn;
        ev->conn = c;
        return 1;
    }
    return 0;
}
MRC_API int mrc_endpoint_poll_event(mrc_endpoint *ep, mrc_event *ev) {
    if (!ep || !ev) return MRC_ERR_INVAL;
    if (ep->notify_len | ep->evq_len) return mrc__poll_event(ep, ev);
    ev->type = MRC_EVT_NONE; /* nothing queued, the usual answer: one test, one store */
    return 0;
}
MRC_API int mrc_endpoint_event_pending(const mrc_endpoint *ep) { return ep && (ep->notify_len | ep->evq_len) != 0; }
MRC_API void mrc_endpoint_stats_get(const mrc_endpoint *ep, mrc_endpoint_stats *out) {
    if (!out) return;
    if (!ep) {
        MRC_MEMSET(out, 0, sizeof *out);
        return;
    }
    *out = ep->st;
    out->pool_blocks = ep->pool_cap;
    out->pool_in_use = ep->pool_cap - ep->pool_nfree - ep->pool_nret;
    out->pool_retained = ep->pool_nret;
}
MRC_API void mrc_conn_stats_get(const mrc_conn *c, mrc_conn_stats *out) {
    if (!out) return;
    if (c) *out = c->st;
    else MRC_MEMSET(out, 0, sizeof *out);
}

/* ====== src/names.h ============================================================================================= */
/* ================================================================================================================
 * ERRORS AND NAMES: src/names.c offers the public API only (mrc_strerror, mrc_*_name, mrc_detail_format)
 * ============================================================================================================== */

/* ====== src/names.c ============================================================================================= */
/* ================================================================================================================
 * ERRORS AND NAMES - src/names.c
 * Owns: mrc_err_is_fatal, and the strings: mrc_strerror, the names of opcodes, NACK reasons, drop reasons, states,
 * events and error details, mrc_detail_format. MRC_NO_STRINGS compiles every string out (each returns "").
 * Calls: nothing but internal.h.
 * ============================================================================================================== */

MRC_API bool mrc_err_is_fatal(int e) { return e <= MRC_ERR_FATAL; }
#ifdef MRC_NO_STRINGS
MRC_API const char *mrc_strerror(int e) { (void)e; return ""; }
MRC_API const char *mrc_opcode_name(unsigned op) { (void)op; return ""; }
MRC_API const char *mrc_nack_name(unsigned r) { (void)r; return ""; }
MRC_API const char *mrc_drop_name(unsigned r) { (void)r; return ""; }
MRC_API const char *mrc_state_name(unsigned s) { (void)s; return ""; }
MRC_API const char *mrc_event_name(unsigned t) { (void)t; return ""; }
MRC_API const char *mrc_detail_name(unsigned code) { (void)code; return ""; }
MRC_API size_t mrc_detail_format(const mrc_detail *d, char *buf, size_t cap) {
    (void)d;
    if (buf && cap) buf[0] = 0;
    return 0;
}
#else
MRC_API const char *mrc_strerror(int e) {
    switch (e) {
    case MRC_OK: return "success";
    case MRC_ERR_INVAL: return "invalid argument";
    case MRC_ERR_STATE: return "not allowed in the current state";
    case MRC_ERR_NOBUF: return "buffer too small";
    case MRC_ERR_FULL: return "queue or table full";
    case MRC_ERR_DROP: return "packet dropped";
    case MRC_ERR_NOTSUP: return "operation not supported by MRC";
    case MRC_ERR_NOENT: return "no such object";
    case MRC_ERR_TRUNC: return "truncated header";
    case MRC_ERR_MALFORMED: return "malformed header";
    case MRC_ERR_RETRY_EXC: return "retry count exceeded";
    case MRC_ERR_REMOTE_ACCESS: return "remote access error";
    case MRC_ERR_REMOTE_INVAL: return "remote invalid request";
    case MRC_ERR_REMOTE_OP: return "remote operational error";
    case MRC_ERR_FLUSH: return "flushed";
    case MRC_ERR_LOCAL_ACCESS: return "peer's write violated local access";
    case MRC_ERR_LOCAL_INVAL: return "peer's request invalid";
    case MRC_ERR_NOPATH: return "no usable path";
    default: return e <= MRC_ERR_FATAL ? "fatal error" : "unknown error";
    }
}
MRC_API const char *mrc_opcode_name(unsigned op) {
    switch (op) {
    case MRC_OP_WRITE_FIRST: return "WRITE_FIRST";
    case MRC_OP_WRITE_MIDDLE: return "WRITE_MIDDLE";
    case MRC_OP_WRITE_LAST: return "WRITE_LAST";
    case MRC_OP_WRITE_LAST_IMM: return "WRITE_LAST_IMM";
    case MRC_OP_WRITE_ONLY: return "WRITE_ONLY";
    case MRC_OP_WRITE_ONLY_IMM: return "WRITE_ONLY_IMM";
    case MRC_OP_ACK: return "ACK";
    case MRC_OP_EP_REQ: return "EP_REQ";
    case MRC_OP_EP_RSP: return "EP_RSP";
    case MRC_OP_SACK: return "SACK";
    case MRC_OP_NACK: return "NACK";
    case MRC_OP_PROBE_REQ: return "PROBE_REQ";
    default: return "?";
    }
}
MRC_API const char *mrc_nack_name(unsigned r) {
    switch (r) {
    case MRC_NACK_TRIMMED: return "TRIMMED";
    case MRC_NACK_TRIMMED_LASTHOP: return "TRIMMED_LASTHOP";
    case MRC_NACK_NO_BITMAP: return "NO_BITMAP";
    case MRC_NACK_NO_PKT_BUFFER: return "NO_PKT_BUFFER";
    case MRC_NACK_NO_RESOURCE: return "NO_RESOURCE";
    case MRC_NACK_PSN_OOR_WINDOW: return "PSN_OOR_WINDOW";
    case MRC_NACK_UNEXP_EVENT: return "UNEXP_EVENT";
    default: return "?";
    }
}
MRC_API const char *mrc_drop_name(unsigned r) {
    static const char *const n[MRC_DROP_REASONS] = {"short", "opcode", "malformed", "icrc", "qpn", "pkey",
                                                    "state", "psn_oor", "msn_oor", "trimmed", "access", "wimm",
                                                    "place", "dup", "ack_bogus", "ack_stale", "epop", "rate",
                                                    "stranger", "psu", "nak"};
    return r < MRC_DROP_REASONS ? n[r] : "?";
}
MRC_API const char *mrc_state_name(unsigned s) {
    static const char *const n[] = {"RESET", "INIT", "RTR", "RTS", "ERR"};
    return s <= MRC_QPS_ERR ? n[s] : "?";
}
MRC_API const char *mrc_event_name(unsigned t) {
    static const char *const n[] = {"NONE",     "SEND_DONE",   "RECV_IMM",   "CONN_ERROR",
                                    "EV_STATE", "EP_RESPONSE", "EP_TIMEOUT", "PEER_PORTS"};
    return t < sizeof n / sizeof n[0] ? n[t] : "?";
}
MRC_API const char *mrc_detail_name(unsigned code) {
    static const char *const n[] = {
        "no error recorded",
        "a required pointer argument is NULL",
        "the conn is not attached to an endpoint (mrc_conn_init)",
        "the conn is already attached to this endpoint",
        "every conn slot is taken (MRC_MAX_CONNS)",
        "a conn is destroyed only in RESET or ERR (move it to ERR or RESET first)",
        "state is not a value of its enum",
        "MRC_ATTR_STATE (the target state) is missing from the mask: every transition names its state, and a call "
        "without it stays in the current state, which takes none of these attributes",
        "illegal state transition (QPs: RESET->INIT->RTR->RTS, INIT->INIT, RTS->RTS, any->ERR, any->RESET; profiles: "
        "INIT->OFFLINE->ONLINE->OFFLINE->INIT)",
        "the transition requires attributes that are not in the mask",
        "the transition does not take these attributes",
        "pkey: its low 15 bits must not be 0 (default 0xFFFF)",
        "access: only MRC_ACCESS_REMOTE_WRITE may be set",
        "ev_profile_id names no ONLINE EV profile (0 = the built-in AUTO profile)",
        "cc_profile_id names no ONLINE CC profile (0 = the built-in profile)",
        "no free congestion context for this peer and CC profile (MRC_MAX_CCX)",
        "dest_qpn must be 3..0xFFFFFF (QP 0x2 is the endpoint-operation QP)",
        "PSNs are 24 bits: rq_psn and sq_psn must be 0..0xFFFFFF",
        "path_mtu must be 256, 512, 1024, 2048 or 4096",
        "mpr_dest must be 1..MRC_MAX_MPR_UNITS (units of 128 PSNs)",
        "max_wimm_dest must be 1..MRC_MAX_WIMM",
        "caps has a bit that is not an MRC_CAP_* value",
        "mpr must be at least 1 (units of 128 PSNs)",
        "max_wimm must be at least 1",
        "retry_linear must be 0..7 and retry_exp 0..25 (25 = retry for ever)",
        "timeout must be 0..24 (1.024 us x 2^timeout; 0 = never retransmit on timeout)",
        "num_ports must be 1..MRC_MAX_PORTS",
        "qpn_base must be 0 (random QPNs) or 3..0xFFFFFF - MRC_MAX_CONNS",
        "wire options: bth_m_bit 6 or 7, eeth_op_shift 2 or 4, ts_shift 0..20, tver 0..15, sack_msb_first 0 or 1",
        "a DSCP codepoint is over 63",
        "auto_ev.sport_min is above auto_ev.sport_max",
        "auto_ev.per_port must be at least 1",
        "ev.backup_pct must be 0..90",
        "ev.revive_probes must be 1..7",
        "auto_ev.event_mask takes MRC_EVS_GOOD and MRC_EVS_ASSUMED_BAD only",
        "ack.sack_every must be at least 1",
        "ev_max_width must be 0 (default) or 16..8 x MRC_EV_BYTES bits",
        "pool_blocks must be 0 (default: MRC_POOL_BLOCKS) or 1..MRC_POOL_BLOCKS",
        "profile ID 0 names the built-in profile, which cannot be modified",
        "the mask has bits this call does not define",
        "an ONLINE profile takes only STATE (and EVENT_MASK for an EV profile): take it OFFLINE first",
        "the profile is in use (by QPs, or by an ONLINE EV profile)",
        "every profile slot is taken (MRC_MAX_EV_FMTS, MRC_MAX_EV_PROFILES or MRC_MAX_CC_PROFILES)",
        "mode must be MRC_EV_FMT_UDP, MRC_EV_FMT_STEV or MRC_EV_FMT_SRV6",
        "nfields must be 1..MRC_MAX_EV_FIELDS, and a profile's at most its format's",
        "a field's width must be 1..32 bits, and a profile field at most its format field's",
        "the fields add up to more bits than the format mode allows (UDP 16, STEV 32, SRv6 256)",
        "the format is wider than the device's ev_max_width (mrc_config.ev_max_width)",
        "FIELDS must be given before the format goes ONLINE",
        "mode must be MRC_EV_MODE_EXP or MRC_EV_MODE_GEN",
        "ev_count must be 1..MRC_MAX_EVS",
        "event_mask takes MRC_EVS_GOOD and MRC_EVS_ASSUMED_BAD only",
        "ev_min_active must not exceed ev_count",
        "a field's init_val does not fit its width",
        "a field's mask has bits outside its width",
        "a field's min_val is above max_val, or max_val needs more bits than its mask has",
        "a fixed field (mask 0) must have min_val = max_val = 0",
        "the masks take more abstract EV bits than an EV holds (8 x MRC_EV_BYTES)",
        "fmt_id names no EV format",
        "the EV format must be ONLINE before the profile goes ONLINE",
        "EXP: every EV must be populated (MRC_EV_OP_REPLACE) with a port in 1..num_ports first",
        "an EV's abstract value cannot be expanded with these fields (bits left over)",
        "EXP: the mode changed, which empties the EV array: populate it before going ONLINE",
        "algorithm must be MRC_CC_NSCC, MRC_CC_FIXED or NULL (no congestion control)",
        "CC configuration out of range (fixed window: fixed_cwnd > 0; NSCC: qa_gate <= 16, max_md_jump_q16 <= 65536)",
        "CONFIG must be given before a CC profile with an algorithm goes ONLINE",
        "op must be an MRC_EV_OP_* value, and e non-NULL when *n > 0",
        "profile_id names no EV profile",
        "QUERY_ARRAY: *n (the room in e) is below the profile's ev_count, which *n now holds",
        "no EV of the profile matches the entry's ev (value and port)",
        "the entry's state must be MRC_EVS_GOOD or MRC_EVS_DENIED (and for MODIFY_STATE also MRC_EVS_ASSUMED_BAD)",
        "the entry's ev_new.port must be 1..num_ports",
        "EV policy (mrc_config.ev): a scope must be an OR of MRC_EV_KIND_* (MRC_EV_SCOPE_*), reply an "
        "MRC_EV_REPLY_* value, group_retire an MRC_EV_RETIRE_* value"};
    (void)sizeof(char[sizeof n / sizeof n[0] == MRC_DETAIL_COUNT ? 1 : -1]); /* one string per code, at build time */
    return code < MRC_DETAIL_COUNT ? n[code] : "?";
}
/* "MRC_ERR_INVAL" for MRC_ERR_INVAL, ... */
MRC__PRIVATE const char *mrc__err_sym(int e) {
    switch (e) {
    case MRC_OK: return "MRC_OK";
    case MRC_ERR_INVAL: return "MRC_ERR_INVAL";
    case MRC_ERR_STATE: return "MRC_ERR_STATE";
    case MRC_ERR_NOBUF: return "MRC_ERR_NOBUF";
    case MRC_ERR_FULL: return "MRC_ERR_FULL";
    case MRC_ERR_NOTSUP: return "MRC_ERR_NOTSUP";
    case MRC_ERR_NOENT: return "MRC_ERR_NOENT";
    case MRC_ERR_BUSY: return "MRC_ERR_BUSY";
    default: return "error";
    }
}
MRC__PRIVATE size_t mrc__cat(char *buf, size_t cap, size_t at, const char *str) {
    while (*str && at + 1u < cap) buf[at++] = *str++;
    buf[at] = 0;
    return at;
}
MRC_API size_t mrc_detail_format(const mrc_detail *d, char *buf, size_t cap) {
    static const char *const calls[MRC_CALL_COUNT] = {
        "(none)",          "mrc_endpoint_init",  "mrc_conn_init",          "mrc_conn_destroy",
        "mrc_conn_modify", "mrc_ev_fmt_modify", "mrc_ev_profile_modify", "mrc_cc_profile_modify", "mrc_ev_op"};
    static const char *const conn_attr[] = {"STATE", "PKEY", "ACCESS", "EV_PROFILE", "CC_PROFILE", "DEST_QPN",
                                            "RQ_PSN", "PATH_MTU", "MPR_DEST", "MAX_WIMM_DEST", "CAPS", "PEER",
                                            "SQ_PSN", "MPR", "MAX_WIMM", "RETRY", "TIMEOUT", "HINT"};
    static const char *const fmt_attr[] = {"STATE", "MODE", "FIELDS"};
    static const char *const prof_attr[] = {"STATE", "MODE", "FMT_ID", "COUNT", "MIN_ACTIVE", "EVENT_MASK", "FIELDS"};
    static const char *const cc_attr[] = {"STATE", "ALGORITHM", "CONFIG"};
    /* the calls with attribute bits, MRC_CALL_CONN_MODIFY .. MRC_CALL_CC_PROFILE_MODIFY in order; the counts come
     * from the tables, so a new attribute bit cannot be left out of its count */
    static const struct { const char *const *names; unsigned n; const char *prefix; } attrs[4] = {
        {conn_attr, (unsigned)(sizeof conn_attr / sizeof *conn_attr), "MRC_ATTR_"},
        {fmt_attr, (unsigned)(sizeof fmt_attr / sizeof *fmt_attr), "MRC_EV_FMT_ATTR_"},
        {prof_attr, (unsigned)(sizeof prof_attr / sizeof *prof_attr), "MRC_EV_PROF_ATTR_"},
        {cc_attr, (unsigned)(sizeof cc_attr / sizeof *cc_attr), "MRC_CC_PROF_ATTR_"}};
    const char *const *names = (const char *const *)0;
    const char *prefix = "";
    unsigned nnames = 0, i, first = 1;
    size_t at = 0;
    char num[8];
    if (!buf || !cap) return 0;
    buf[0] = 0;
    if (!d) return 0;
    at = mrc__cat(buf, cap, at, d->call < MRC_CALL_COUNT ? calls[d->call] : "?");
    at = mrc__cat(buf, cap, at, ": ");
    at = mrc__cat(buf, cap, at, mrc__err_sym(d->err));
    if (d->err == MRC_OK) return at;
    at = mrc__cat(buf, cap, at, ": ");
    at = mrc__cat(buf, cap, at, mrc_detail_name(d->code));
    if (d->call >= MRC_CALL_CONN_MODIFY && d->call <= MRC_CALL_CC_PROFILE_MODIFY) {
        names = attrs[d->call - MRC_CALL_CONN_MODIFY].names;
        nnames = attrs[d->call - MRC_CALL_CONN_MODIFY].n;
        prefix = attrs[d->call - MRC_CALL_CONN_MODIFY].prefix;
    }
    for (i = 0; i < 32; i++) {
        if (!((d->attr >> i) & 1u)) continue;
        at = mrc__cat(buf, cap, at, first ? ": " : "|");
        first = 0;
        if (i < nnames) {
            at = mrc__cat(buf, cap, at, prefix);
            at = mrc__cat(buf, cap, at, names[i]);
        } else {
            at = mrc__cat(buf, cap, at, "bit ");
            num[0] = (char)('0' + i / 10u), num[1] = (char)('0' + i % 10u), num[2] = 0;
            at = mrc__cat(buf, cap, at, i < 10 ? num + 1 : num);
        }
    }
    switch (d->code) {
    case MRC_DETAIL_FIELD_WIDTH: case MRC_DETAIL_FIELD_INIT_VAL: case MRC_DETAIL_FIELD_MASK:
    case MRC_DETAIL_FIELD_RANGE: case MRC_DETAIL_FIELD_FIXED: prefix = " (field "; break;
    case MRC_DETAIL_EV_UNPOPULATED: prefix = " (EV "; break;
    case MRC_DETAIL_EV_EXPAND: prefix = d->call == MRC_CALL_EV_OP ? " (entry " : " (EV "; break;
    case MRC_DETAIL_EV_NOT_FOUND: case MRC_DETAIL_EV_STATE: case MRC_DETAIL_EV_PORT: prefix = " (entry "; break;
    case MRC_DETAIL_CFG_DSCP: prefix = " (class "; break;
    default: prefix = (const char *)0; break;
    }
    if (prefix) {
        unsigned v = d->index, k = 0;
        char tmp[6];
        at = mrc__cat(buf, cap, at, prefix);
        do { tmp[k++] = (char)('0' + v % 10u); v /= 10u; } while (v && k < sizeof tmp);
        for (i = 0; i < k; i++) num[i] = tmp[k - 1u - i];
        num[k] = 0;
        at = mrc__cat(buf, cap, at, num);
        at = mrc__cat(buf, cap, at, ")");
    }
    return at;
}
#endif /* MRC_NO_STRINGS */

#endif /* MRC__IMPLEMENTED */
#endif /* MRC_IMPLEMENTATION */


/*
------------------------------------------------------------------------------
MIT License

Copyright (c) 2026 the open MRC authors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
documentation files (the "Software"), to deal in the Software without restriction, including without limitation the
rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
permit persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of the
Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
