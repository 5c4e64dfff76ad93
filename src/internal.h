/* ================================================================================================================
 * INTERNAL - src/internal.h: what every layer of the implementation may use
 * The libc replacements, MRC_ASSERT, inlining and branch hints, MRC__PRIVATE (static: the whole implementation is
 * one translation unit) and the trace hook. Every source includes this first, then the headers of the layers below
 * it that it uses (src/layers.h gives the order; tools/layer_check enforces it).
 * ============================================================================================================== */
#ifndef MRC__SRC_INTERNAL_H
#define MRC__SRC_INTERNAL_H
#include "config.h"
#include "api.h"
#include "types.h"

#if defined(MRC_MEMCPY) || defined(MRC_MEMSET) || defined(MRC_MEMMOVE) || defined(MRC_MEMCMP)
#if !defined(MRC_MEMCPY) || !defined(MRC_MEMSET) || !defined(MRC_MEMMOVE) || !defined(MRC_MEMCMP)
#error "define all of MRC_MEMCPY, MRC_MEMSET, MRC_MEMMOVE and MRC_MEMCMP, or none of them"
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define MRC_MEMCPY __builtin_memcpy
#define MRC_MEMSET __builtin_memset
#define MRC_MEMMOVE __builtin_memmove
#define MRC_MEMCMP __builtin_memcmp
#else
#include <string.h>
#define MRC_MEMCPY memcpy
#define MRC_MEMSET memset
#define MRC_MEMMOVE memmove
#define MRC_MEMCMP memcmp
#endif
#ifndef MRC_ASSERT
#if __STDC_HOSTED__ && !defined(NDEBUG)
#include <assert.h>
#define MRC_ASSERT(x) assert(x)
#else
#define MRC_ASSERT(x) ((void)0)
#endif
#endif
#ifdef MRC__LAYER_CHECK /* tools/layer_check compiles each source alone: a header's declarations need no bodies */
#define MRC__INLINE
#define MRC__ALWAYS_INLINE
#elif defined(__GNUC__) || defined(__clang__)
#define MRC__INLINE inline
#define MRC__ALWAYS_INLINE inline __attribute__((always_inline)) /* the few-instruction helpers of every packet */
#else
#define MRC__INLINE inline
#define MRC__ALWAYS_INLINE inline
#endif
#if defined(__GNUC__) || defined(__clang__)
#define MRC__LIKELY(x) __builtin_expect(!!(x), 1)
#define MRC__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MRC__NOINLINE __attribute__((noinline))
/* a function off the per-packet path, out of line and placed apart (.text.unlikely): what the common case does not
 * run stays out of the per-packet code (a firmware's instruction memory, the cache), and the calls into it are
 * treated as unlikely */
#define MRC__COLD __attribute__((noinline, cold))
#else
#define MRC__LIKELY(x) (x)
#define MRC__UNLIKELY(x) (x)
#define MRC__NOINLINE
#define MRC__COLD
#endif
/* a helper with several callers on per-packet paths, or one that only loss or reordering runs: out of line where the
 * code's size is asked for (gcc -Os: a firmware, whose code and per-packet code should fit its memories), else the
 * compiler's choice (a call costs the -O2 build: a window with holes +6 per data packet for mrc__sack_losses_scan;
 * the timers' shared helpers out of line x86-64 +5.0 / +2.2 per data packet) */
#ifdef __OPTIMIZE_SIZE__
#define MRC__SIZE_NOINLINE MRC__NOINLINE
#else
#define MRC__SIZE_NOINLINE MRC__INLINE
#endif
/* the rare part of a function, split off where speed is asked for (its registers and frame would cost the common
 * part: a window with holes, x86-64 -O2, -4 per data packet for mrc__ev_on_loss's sweep and hop group), left to the
 * compiler (one caller: in line) where the code's size is */
#ifdef __OPTIMIZE_SIZE__
#define MRC__SPEED_COLD MRC__INLINE
#else
#define MRC__SPEED_COLD MRC__COLD
#endif
/* a rare branch of a per-packet function (loss, holes, ECN, bursts, first-time and error cases), split off where the
 * code's size is asked for (gcc -Os: the per-packet code a firmware keeps in TCM or its instruction cache is then what
 * the common case runs, make firmware-size; the rare branch pays a call), in line where speed is (the -O2 code as
 * before) */
#ifdef __OPTIMIZE_SIZE__
#define MRC__SIZE_COLD MRC__COLD
#else
#define MRC__SIZE_COLD MRC__ALWAYS_INLINE
#endif
/* The transmit runs (P37 bursts) and the transmit template (P22) where speed is asked for: not under gcc -Os, where
 * they would cost 2 KB of the Cortex-M4 core (a burst there is its single calls, as with MRC_FAST_PATH 0, and every
 * packet's headers are built field by field) */
#if MRC_FAST_PATH && !defined(__OPTIMIZE_SIZE__)
#define MRC__TX_RUN 1
#else
#define MRC__TX_RUN 0
#endif
/* A statistics counter's update (mrc_endpoint_stats, mrc_conn_stats): e, or nothing under MRC_NO_STATS (counters
 * that cost nothing when unused: a firmware with its NIC's own counters). The drop counters are not written through
 * it: a dropped packet is counted whatever the macro (mrc__drop). */
#ifdef MRC_NO_STATS
#define MRC__CNT(e) ((void)sizeof(e)) /* not evaluated; what it names still counts as used */
#else
#define MRC__CNT(e) ((void)(e))
#endif
/* Per-packet paths (mrc_endpoint_poll_tx, mrc_endpoint_recv and what they call) do no 64-bit division. Work that
 * runs at most once per RTT or adjust period and needs one lives in a MRC__NOINLINE function whose name ends in
 * _slow; make freestanding checks both rules on the Cortex-M4 object (tools/div_check.py). */
#ifdef MRC__LAYER_CHECK
#define MRC__PRIVATE
#else
#define MRC__PRIVATE static
#endif
#ifdef MRC_ENABLE_TRACE
#define MRC__TRACE(ep, id, a, b)                                                                                 \
    do {                                                                                                         \
        if ((ep)->cfg.trace) (ep)->cfg.trace((ep)->cfg.trace_ud, (unsigned)(id), (uint64_t)(a), (uint64_t)(b)); \
    } while (0)
#else
#define MRC__TRACE(ep, id, a, b) ((void)0)
#endif
/* The knobs of mrc_research_config: read from the configuration with MRC_RESEARCH, else these constants */
#define MRC__DEF_tlp_copies 2u
#define MRC__DEF_reorder_timer 6u
#define MRC__DEF_cc_subpkt_shift 4u
#define MRC__DEF_cc_lh_mark_rtts 32u
#define MRC__DEF_hold_min_evs 32u
#ifdef MRC_RESEARCH
#define MRC__KNOB(ep, name) ((ep)->cfg.research.name)
#else
#define MRC__KNOB(ep, name) MRC__DEF_##name
#endif
#define MRC__MIN(a, b) ((a) < (b) ? (a) : (b))
#define MRC__MAX(a, b) ((a) > (b) ? (a) : (b))
#define MRC__STATIC_ASSERT(cond, name) typedef char mrc__static_assert_##name[(cond) ? 1 : -1]
MRC__STATIC_ASSERT(MRC__RSP_BITS >= 128 && MRC__RSP_BITS <= 32768, rsp_bits);
MRC__STATIC_ASSERT(sizeof(uint64_t) == 8, u64);
#endif /* MRC__SRC_INTERNAL_H */
