/* firmware/fw_config.h - the firmware configuration of the core's capacities (src/config.h lists the macros).
 * fw_test.c includes it before mrc.h; fw.mk passes it with -include to the size builds of the core alone.
 *
 * A small NIC controller: up to 4 QPs per endpoint on 8 planes, 32 EVs per QP (4 per plane), a 256-PSN window
 * (1 MiB of 4 KiB packets) each way, 16 send and 16 receive work requests, 16 pending immediates, and an in-flight
 * pool of 10 blocks of 64 PSNs (two QPs with a full window at once, by bandwidth-delay product rather than 4 x
 * the largest window). sizeof(mrc_endpoint) and sizeof(mrc_conn) under it: fw_test.c prints them (README.md). */
#ifndef FW_CONFIG_H
#define FW_CONFIG_H
#define MRC_MAX_PORTS 8
#define MRC_MAX_CONNS 4
#define MRC_MAX_EVS 32
#define MRC_MAX_MRS 4
#define MRC_MAX_MPR_UNITS 2
#define MRC_MAX_INFLIGHT 256
#define MRC_MAX_WIMM 16
#define MRC_MAX_SQ 16
#define MRC_MAX_RQ 16
#define MRC_CTLQ_LEN 8
#define MRC_POOL_BLOCKS 10
#define MRC_MAX_EV_FMTS 2
#define MRC_MAX_EV_PROFILES 2
#define MRC_MAX_EV_FIELDS 4
#define MRC_EV_BYTES 4
#define MRC_MAX_PROBES 4
#define MRC_NOTIFYQ_LEN 16
#define MRC_EPQ_LEN 4
#define MRC_MAX_EP_REQS 4
#define MRC_MAX_CC_PROFILES 1
#define FW_EVS_PER_PORT 4 /* mrc_config.auto_ev.per_port: 8 planes x 4 = MRC_MAX_EVS */
#endif
