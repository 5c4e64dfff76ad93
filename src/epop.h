/* ================================================================================================================
 * ENDPOINT OPERATIONS: what src/epop.c offers the layers above it (the rest of it is public API)
 * ============================================================================================================== */
#ifndef MRC__SRC_EPOP_H
#define MRC__SRC_EPOP_H
#include "internal.h"

MRC__PRIVATE int mrc__epop_recv(mrc_endpoint *ep, const mrc_pkt *k, const mrc_rxinfo *ri, mrc_time now);
MRC__PRIVATE void mrc__ep_timeouts(mrc_endpoint *ep, mrc_time now);
MRC__PRIVATE int mrc__ep_emit(mrc_endpoint *ep, uint8_t *buf, size_t cap, mrc_txinfo *ti, mrc_time now);
#endif /* MRC__SRC_EPOP_H */
