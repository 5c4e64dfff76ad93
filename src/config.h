#ifndef MRC__SRC_CONFIG_H
#define MRC__SRC_CONFIG_H

#define MRC_VERSION_MAJOR 0
#define MRC_VERSION_MINOR 1
#define MRC_VERSION_PATCH 0
#define MRC_VERSION_STRING "0.1.0"
#define MRC_WIRE_VERSION 1 /* MRC 1.0 on the wire (OCP API bit MRC_PROTOCOL_VERSION_1) */

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifndef MRC_API
#ifdef MRC_STATIC
#if defined(__GNUC__) || defined(__clang__)
#define MRC_API static __attribute__((unused)) /* a unit need not call every function */
#else
#define MRC_API static
#endif
#else
#define MRC_API extern
#endif
#endif

/* ---- capacities ------------------------------------------------------------------------------------------- */
#ifndef MRC_MAX_PORTS
#define MRC_MAX_PORTS 8
#endif
#ifndef MRC_MAX_CONNS
#define MRC_MAX_CONNS 16
#endif
#ifndef MRC_MAX_EVS
#define MRC_MAX_EVS 256
#endif
#ifndef MRC_MAX_MRS
#define MRC_MAX_MRS 16
#endif
#ifndef MRC_MAX_MPR_UNITS
#define MRC_MAX_MPR_UNITS 32
#endif
#ifndef MRC_MAX_INFLIGHT
#define MRC_MAX_INFLIGHT 1024
#endif
#ifndef MRC_MAX_WIMM
#define MRC_MAX_WIMM 128
#endif
#ifndef MRC_MAX_SQ
#define MRC_MAX_SQ 64
#endif
#ifndef MRC_MAX_RQ
#define MRC_MAX_RQ 64
#endif
#ifndef MRC_CTLQ_LEN
#define MRC_CTLQ_LEN 16
#endif
#ifndef MRC_FAST_PATH
#define MRC_FAST_PATH 1
#endif
#ifndef MRC_POOL_BLOCKS
#define MRC_POOL_BLOCKS (MRC_MAX_CONNS * (MRC_MAX_INFLIGHT / 64 + 1))
#endif

#ifndef MRC_MAX_EV_FMTS
#define MRC_MAX_EV_FMTS 4
#endif
#ifndef MRC_MAX_EV_PROFILES
#define MRC_MAX_EV_PROFILES 4
#endif
#ifndef MRC_MAX_EV_FIELDS
#define MRC_MAX_EV_FIELDS 16
#endif
#ifndef MRC_EV_BYTES
#define MRC_EV_BYTES 32
#endif
#ifndef MRC_MAX_PROBES
#define MRC_MAX_PROBES 8
#endif
#ifndef MRC_NOTIFYQ_LEN
#define MRC_NOTIFYQ_LEN 64
#endif
#ifndef MRC_EPQ_LEN
#define MRC_EPQ_LEN 16
#endif
#ifndef MRC_MAX_CONTROLLERS /* P38 controllers: peers registered with mrc_endpoint_controller_set */
#define MRC_MAX_CONTROLLERS 4
#endif
#if MRC_MAX_CONTROLLERS < 1 || MRC_MAX_CONTROLLERS > 255
#error "MRC_MAX_CONTROLLERS must be 1..255"
#endif
#ifndef MRC_MAX_EP_REQS
#define MRC_MAX_EP_REQS 16
#endif
#ifndef MRC_MAX_CC_PROFILES
#define MRC_MAX_CC_PROFILES 4
#endif
#ifndef MRC_MAX_CCX
#define MRC_MAX_CCX MRC_MAX_CONNS
#endif

#if MRC_MAX_PORTS < 1 || MRC_MAX_PORTS > 32
#error "MRC_MAX_PORTS must be 1..32 (port_status_mask is 32 bits)"
#endif
#if MRC_MAX_CONNS < 1 || MRC_MAX_CONNS > 65535
#error "MRC_MAX_CONNS must be 1..65535"
#endif
#if MRC_MAX_EVS < 1 || MRC_MAX_EVS > 65534
#error "MRC_MAX_EVS must be 1..65534"
#endif
#if MRC_MAX_EV_FMTS < 1 || MRC_MAX_EV_FMTS > 255 || MRC_MAX_EV_PROFILES < 1 || MRC_MAX_EV_PROFILES > 254
#error "MRC_MAX_EV_FMTS must be 1..255 and MRC_MAX_EV_PROFILES 1..254"
#endif
#if MRC_MAX_EV_FIELDS < 1 || MRC_MAX_EV_FIELDS > 64
#error "MRC_MAX_EV_FIELDS must be 1..64"
#endif
#if MRC_EV_BYTES < 4 || MRC_EV_BYTES > 32
#error "MRC_EV_BYTES must be 4..32"
#endif
#if MRC_MAX_PROBES < 2 || MRC_MAX_PROBES > 32
#error "MRC_MAX_PROBES must be 2..32 (slot 0 is the tail-loss probe; probes_due is a 32-bit mask)"
#endif
#if MRC_NOTIFYQ_LEN < 1 || MRC_NOTIFYQ_LEN > 65535 || MRC_EPQ_LEN < 1 || MRC_EPQ_LEN > 65535
#error "MRC_NOTIFYQ_LEN and MRC_EPQ_LEN must be 1..65535"
#endif
#if MRC_MAX_EP_REQS < 1 || MRC_MAX_EP_REQS > 65535
#error "MRC_MAX_EP_REQS must be 1..65535"
#endif
#if MRC_MAX_CC_PROFILES < 1 || MRC_MAX_CC_PROFILES > 255 || MRC_MAX_CCX < 1 || MRC_MAX_CCX > 65534
#error "MRC_MAX_CC_PROFILES must be 1..255 and MRC_MAX_CCX 1..65534"
#endif
#if MRC_MAX_MRS < 1 || MRC_MAX_MRS > 65535
#error "MRC_MAX_MRS must be 1..65535"
#endif
#if defined MRC_NO_CHECK && defined MRC_CHECK_INVARIANTS
#error "MRC_CHECK_INVARIANTS asserts mrc_conn_check, which MRC_NO_CHECK compiles out"
#endif
/* The table of caller-chosen rkeys (mrc_endpoint_reg_mr_key): a power of two at least twice MRC_MAX_MRS */
#define MRC__MR_HASH_N                                                                                                  \
    (MRC_MAX_MRS <= 8u       ? 16u                                                                                     \
     : MRC_MAX_MRS <= 16u    ? 32u                                                                                     \
     : MRC_MAX_MRS <= 64u    ? 128u                                                                                    \
     : MRC_MAX_MRS <= 256u   ? 512u                                                                                    \
     : MRC_MAX_MRS <= 1024u  ? 2048u                                                                                   \
     : MRC_MAX_MRS <= 4096u  ? 8192u                                                                                   \
     : MRC_MAX_MRS <= 16384u ? 32768u                                                                                  \
                             : 131072u)
#if MRC_MAX_MPR_UNITS < 1 || MRC_MAX_MPR_UNITS > 255 || (MRC_MAX_MPR_UNITS & (MRC_MAX_MPR_UNITS - 1))
#error "MRC_MAX_MPR_UNITS must be a power of two in 1..128"
#endif
#if MRC_MAX_INFLIGHT < 64 || MRC_MAX_INFLIGHT > 32768 || (MRC_MAX_INFLIGHT & (MRC_MAX_INFLIGHT - 1))
#error "MRC_MAX_INFLIGHT must be a power of two in 64..32768"
#endif
#if MRC_MAX_WIMM < 1 || MRC_MAX_WIMM > 32768 || (MRC_MAX_WIMM & (MRC_MAX_WIMM - 1))
#error "MRC_MAX_WIMM must be a power of two in 1..32768"
#endif
#if MRC_MAX_SQ < 2 || MRC_MAX_SQ > 32768 || (MRC_MAX_SQ & (MRC_MAX_SQ - 1))
#error "MRC_MAX_SQ must be a power of two in 2..32768"
#endif
#if MRC_MAX_RQ < 2 || MRC_MAX_RQ > 32768 || (MRC_MAX_RQ & (MRC_MAX_RQ - 1))
#error "MRC_MAX_RQ must be a power of two in 2..32768"
#endif
#if MRC_CTLQ_LEN < 2 || MRC_CTLQ_LEN > 256 || (MRC_CTLQ_LEN & (MRC_CTLQ_LEN - 1))
#error "MRC_CTLQ_LEN must be a power of two in 2..256"
#endif
#if MRC_POOL_BLOCKS < 1 || MRC_POOL_BLOCKS > 16777215
#error "MRC_POOL_BLOCKS must be 1..16777215"
#endif

#endif /* MRC__SRC_CONFIG_H */
