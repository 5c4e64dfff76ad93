/* ================================================================================================================
 * INVARIANTS: what src/check.c offers the layers above it (mrc_conn_check itself is public API)
 * ============================================================================================================== */
#ifndef MRC__SRC_CHECK_H
#define MRC__SRC_CHECK_H
#include "internal.h"

/* MRC_CHECK_INVARIANTS: every QP's invariants (mrc_conn_check) asserted at the end of each call that changes them */
#ifdef MRC_CHECK_INVARIANTS
MRC__PRIVATE void mrc__check_all(const mrc_endpoint *ep);
#define MRC__CHECK_ALL(ep)                                                                                     \
    do {                                                                                                       \
        if (!(ep)->in_burst) mrc__check_all(ep); /* P37 bursts: a burst is checked once, at its end */         \
    } while (0)
#else
#define MRC__CHECK_ALL(ep) ((void)0)
#endif
#endif /* MRC__SRC_CHECK_H */
