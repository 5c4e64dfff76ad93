/* ================================================================================================================
 * CONGESTION CONTROL: what src/cc.c offers the layers above it
 * ============================================================================================================== */
#ifndef MRC__SRC_CC_H
#define MRC__SRC_CC_H
#include "internal.h"

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
#endif /* MRC__SRC_CC_H */
