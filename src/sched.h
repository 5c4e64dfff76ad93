/* ================================================================================================================
 * SCHEDULER: what src/sched.c offers the layers above it
 * ============================================================================================================== */
#ifndef MRC__SRC_SCHED_H
#define MRC__SRC_SCHED_H
#include "internal.h"

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
#endif /* MRC__SRC_SCHED_H */
