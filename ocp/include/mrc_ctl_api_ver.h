/* mrc_ctl_api_ver.h - version numbers of OCP's MRC controller API, as implemented by open MRC's lib_mrc.
 *
 * Written for open MRC from the published API's facts (names and values); see ocp/README.md. MIT licence.
 *
 * A version packs MAJOR (bits 31..24), MINOR (23..16) and SUBMINOR (15..0). A program may define
 * MRC_CTL_API_VER_USED before including <mrc_ctl.h> to pin the API it was written for; MRC_CTL_API_VER_LATEST means "the
 * newest this header knows".
 */
#ifndef _MRC_CTL_API_VER_H_
#define _MRC_CTL_API_VER_H_

#define MRC_CTL_API_VER_MAJOR_OFFSET 24
#define MRC_CTL_API_VER_MINOR_OFFSET 16
#define MRC_CTL_API_VER_SUBMINOR_OFFSET 0

#define MRC_CTL_API_VER(_major, _minor, _sub_minor)                                                                      \
    (((_major) << MRC_CTL_API_VER_MAJOR_OFFSET) | ((_minor) << MRC_CTL_API_VER_MINOR_OFFSET) |                               \
     ((_sub_minor) << MRC_CTL_API_VER_SUBMINOR_OFFSET))

#define MRC_CTL_API_VER_LATEST MRC_CTL_API_VER(0xFFu, 0xFFu, 0xFFFFu) /* unsigned: 0xFF << 24 overflows an int */

#define MRC_CTL_API_CURRENT_VERSION MRC_CTL_API_VER(1, 0, 1)
#define MRC_CTL_API_LAST_SUPPORTED_VERSION MRC_CTL_API_VER(0, 0, 0)

#if !defined(MRC_CTL_API_VER_USED)
#define MRC_CTL_API_VER_USED MRC_CTL_API_CURRENT_VERSION
#elif MRC_CTL_API_VER_USED == MRC_CTL_API_VER_LATEST
#undef MRC_CTL_API_VER_USED
#define MRC_CTL_API_VER_USED MRC_CTL_API_CURRENT_VERSION
#endif

#if MRC_CTL_API_VER_USED > MRC_CTL_API_CURRENT_VERSION
#error "MRC_CTL_API_VER_USED is newer than this mrc_ctl.h (MRC_CTL_API_CURRENT_VERSION)"
#elif MRC_CTL_API_VER_USED < MRC_CTL_API_LAST_SUPPORTED_VERSION
#error "MRC_CTL_API_VER_USED is older than MRC_CTL_API_LAST_SUPPORTED_VERSION"
#elif MRC_CTL_API_VER_USED == MRC_CTL_API_LAST_SUPPORTED_VERSION
#warning "MRC_CTL_API_VER_USED equals MRC_CTL_API_LAST_SUPPORTED_VERSION and may become obsolete"
#endif

/* The provider (vendor) API moves on its own; open MRC's provider API is 1.0.0. */
#define MRC_CTL_VENDOR_API_CURRENT_VERSION MRC_CTL_API_VER(1, 0, 0)
#define MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION MRC_CTL_API_VER(0, 0, 0)

#if !defined(MRC_CTL_VENDOR_API_VER_USED)
#define MRC_CTL_VENDOR_API_VER_USED MRC_CTL_VENDOR_API_CURRENT_VERSION
#elif MRC_CTL_VENDOR_API_VER_USED == MRC_CTL_API_VER_LATEST
#undef MRC_CTL_VENDOR_API_VER_USED
#define MRC_CTL_VENDOR_API_VER_USED MRC_CTL_VENDOR_API_CURRENT_VERSION
#endif

#if MRC_CTL_VENDOR_API_VER_USED > MRC_CTL_VENDOR_API_CURRENT_VERSION
#error "MRC_CTL_VENDOR_API_VER_USED is newer than MRC_CTL_VENDOR_API_CURRENT_VERSION"
#elif MRC_CTL_VENDOR_API_VER_USED < MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION
#error "MRC_CTL_VENDOR_API_VER_USED is older than MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION"
#elif MRC_CTL_VENDOR_API_VER_USED == MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION
#warning "MRC_CTL_VENDOR_API_VER_USED equals MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION and may become obsolete"
#endif

#endif /* _MRC_CTL_API_VER_H_ */
