/* ================================================================================================================
 * ERRORS AND NAMES: src/names.c offers the public API only (mrc_strerror, mrc_*_name, mrc_detail_format)
 * ============================================================================================================== */
#ifndef MRC__SRC_NAMES_H
#define MRC__SRC_NAMES_H
#include "internal.h"
#endif /* MRC__SRC_NAMES_H */
