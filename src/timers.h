/* ================================================================================================================
 * TIMERS: what src/timers.c offers the layers above it
 * ============================================================================================================== */
#ifndef MRC__SRC_TIMERS_H
#define MRC__SRC_TIMERS_H
#include "internal.h"

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
#endif /* MRC__SRC_TIMERS_H */
