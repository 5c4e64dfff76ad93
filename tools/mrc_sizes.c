/* mrc_sizes.c - prints the memory an application allocates for the core under the capacity macros it was compiled
 * with (make size builds it once per configuration). Host-only utility. */
#define MRC_IMPLEMENTATION
#include "../mrc.h"
#include <stdio.h>

#ifndef SIZES_NAME
#define SIZES_NAME "default"
#endif

int main(void) {
    /* the endpoint includes the in-flight pool: MRC_POOL_BLOCKS blocks of 64 PSNs */
    printf("%-10s ports %2d conns %3d evs %3d inflight %5d mpr_units %2d wimm %3d sq/rq %3d/%-3d  "
           "sizeof(mrc_endpoint) %7zu  sizeof(mrc_conn) %7zu  endpoint+conns %8zu  (pool %lu x %zu B)\n",
           SIZES_NAME, MRC_MAX_PORTS, MRC_MAX_CONNS, MRC_MAX_EVS, MRC_MAX_INFLIGHT, MRC_MAX_MPR_UNITS, MRC_MAX_WIMM,
           MRC_MAX_SQ, MRC_MAX_RQ, sizeof(mrc_endpoint), sizeof(mrc_conn),
           sizeof(mrc_endpoint) + (size_t)MRC_MAX_CONNS * sizeof(mrc_conn), (unsigned long)MRC_POOL_BLOCKS,
           sizeof(mrc__pblk));
    return 0;
}
