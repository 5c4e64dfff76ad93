/* ================================================================================================================
 * RESPONDER: what src/responder.c offers the layers above it
 * ============================================================================================================== */
#ifndef MRC__SRC_RESPONDER_H
#define MRC__SRC_RESPONDER_H
#include "internal.h"

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
#endif /* MRC__SRC_RESPONDER_H */
