/* bench/core.c - the core's implementation in a translation unit of its own (make bench links it into mrc_bench).
 *
 * Compiled apart from the harness (no LTO), the core's code cannot be inlined into the harness's phase wrappers
 * (bench_tx_data, bench_rx_data, ...): a wrapper can only call the core's API functions, so its own (self)
 * instructions are the harness's alone and its inclusive cost minus them is exactly the core's (bench/README.md). */
#define MRC_IMPLEMENTATION
#include "mrc.h"
