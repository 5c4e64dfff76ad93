/* bench/ev_pick.c - per-packet cost of the EV choice (mrc__ev_pick) on a default QP: 8 ports, 128 EVs.
 * make bench. Prints ns per pick; wall-clock, so run it on an idle machine. */
#define _POSIX_C_SOURCE 199309L
#define MRC_IMPLEMENTATION
#include "mrc.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
static mrc_endpoint ep; static mrc_conn c;
int main(void);
int main(void) {
    mrc_config cfg; mrc_conn_attr a; struct timespec t0, t1; unsigned long i, n = 20000000ul; volatile int sink = 0;
    mrc_config_default(&cfg);
    if (mrc_endpoint_init(&ep, &cfg, 0) != MRC_OK) return 1;
    if (mrc_conn_init(&ep, &c, 0) != MRC_OK) return 2;
    memset(&a, 0, sizeof a); a.state = MRC_QPS_INIT;
    if (mrc_conn_modify(&c, &a, MRC_ATTR_STATE|MRC_ATTR_EV_PROFILE|MRC_ATTR_CC_PROFILE, 0) != MRC_OK) return 3;
    a.state = MRC_QPS_RTR; a.dest_qpn = 0x200; a.rq_psn = 1; a.path_mtu = 4096; a.mpr_dest = 8; a.max_wimm_dest = 8;
    if (mrc_conn_modify(&c, &a, MRC_ATTR_STATE|MRC_ATTR_DEST_QPN|MRC_ATTR_RQ_PSN|MRC_ATTR_PATH_MTU|MRC_ATTR_MPR_DEST|MRC_ATTR_MAX_WIMM_DEST, 0) != MRC_OK) return 4;
    a.state = MRC_QPS_RTS; a.sq_psn = 1; a.mpr = 8; a.max_wimm = 8; a.retry_linear = 7; a.retry_exp = 7; a.timeout = 10;
    if (mrc_conn_modify(&c, &a, MRC_ATTR_STATE|MRC_ATTR_SQ_PSN|MRC_ATTR_MPR|MRC_ATTR_MAX_WIMM|MRC_ATTR_RETRY|MRC_ATTR_TIMEOUT, 0) != MRC_OK) return 5;
    printf("evs %u\n", c.ev_count);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < n; i++) sink += mrc__ev_pick(&c, (int)(i & 1 ? -1 : 3));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("ev pick: %.2f ns per packet (%lu picks, %u EVs over %u ports)\n", ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double)n, n, c.ev_count, (unsigned)cfg.num_ports);
    return sink == 12345 ? 9 : 0;
}
