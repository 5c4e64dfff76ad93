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
