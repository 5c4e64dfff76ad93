/* ================================================================================================================
 * ENDPOINT LOOP: src/endpoint.c offers the public API only (mrc_endpoint_recv, _poll_tx, _on_timeout, ...)
 * ============================================================================================================== */
#ifndef MRC__SRC_ENDPOINT_H
#define MRC__SRC_ENDPOINT_H
#include "internal.h"
#endif /* MRC__SRC_ENDPOINT_H */
