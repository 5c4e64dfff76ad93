// src/layers.h - the root of mrc.h: every source file, in layer order. tools/amalgamate (make amalgamate) replaces
// each #include below with the file's text, once, and writes ../mrc.h; lines starting with // stay out of it.
// tools/layer_check (make src-check) reads the order of the layers from here: a file may include and call only
// the files listed before it.
#include "manual.h"
#ifndef MRC_H
#define MRC_H
#include "config.h"
#ifdef __cplusplus
extern "C" {
#endif
#include "api.h"
#include "types.h"

#ifdef __cplusplus
}
#endif
#endif /* MRC_H */

/* ================================================================================================================
 * IMPLEMENTATION
 * ============================================================================================================== */
#ifdef MRC_IMPLEMENTATION
#ifndef MRC__IMPLEMENTED
#define MRC__IMPLEMENTED
#include "internal.h"
#include "codec.h"
#include "codec.c"
#include "state.h"
#include "state.c"
#include "timers.h"
#include "timers.c"
#include "sched.h"
#include "sched.c"
#include "cc.h"
#include "cc.c"
#include "path.h"
#include "path.c"
#include "path_policy.h"
#include "path_policy.c"
#include "qp.h"
#include "qp.c"
#include "responder.h"
#include "responder.c"
#include "requester.h"
#include "requester.c"
#include "epop.h"
#include "epop.c"
#include "check.h"
#include "check.c"
#include "endpoint.h"
#include "endpoint.c"
#include "names.h"
#include "names.c"

#endif /* MRC__IMPLEMENTED */
#endif /* MRC_IMPLEMENTATION */

#include "license.h"
