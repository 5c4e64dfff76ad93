/* ================================================================================================================
 * REQUESTER: what src/requester.c offers the layers above it
 * ============================================================================================================== */
#ifndef MRC__SRC_REQUESTER_H
#define MRC__SRC_REQUESTER_H
#include "internal.h"

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
#endif /* MRC__SRC_REQUESTER_H */
