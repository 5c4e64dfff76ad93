/* ================================================================================================================
 * EV POLICIES: what src/path_policy.c offers the layers above it
 * ============================================================================================================== */
#ifndef MRC__SRC_PATH_POLICY_H
#define MRC__SRC_PATH_POLICY_H
#include "internal.h"

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
#endif /* MRC__SRC_PATH_POLICY_H */
