/* ================================================================================================================
 * QUEUE PAIRS: what src/qp.c offers the layers above it (the rest of it is public API)
 * ============================================================================================================== */
#ifndef MRC__SRC_QP_H
#define MRC__SRC_QP_H
#include "internal.h"

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
#endif /* MRC__SRC_QP_H */
