/* mrc_test.c - the open MRC test suite: wire vectors, unit tests and scenarios in virtual time.
 *
 *   ./mrc_test                 run everything
 *   ./mrc_test -t sack         run tests whose name contains "sack" (repeatable)
 *   ./mrc_test -x slow         skip tests whose name contains "slow" (repeatable)
 *   ./mrc_test -l              list the tests
 *   -v                         print the numbers tests measure
 *   MRC_TEST_SEED=n ./mrc_test override the base seed of every seeded test
 *
 * Every scenario runs two endpoints over tests/fixtures/mrc_wire.h (seeded, deterministic). A failing check prints
 * the test, the seed and the line, plus the state the test chose to dump; rerun with MRC_TEST_SEED to reproduce.
 * The last line is always "N passed, N failed".
 *
 * This file is the runner, the registry of the test modules and the implementation unit of mrc.h. The tests live
 * in tests/<module>.c, one translation unit each, with their shared helpers in tests/util.c and tests/harness.c
 * (tests/test.h says how they fit together):
 *   codec          wire vectors, every header through one table, the codec's fast paths against its table code
 *   packet         mrc_pkt_decode and mrc_opcode_hdrs, PSN arithmetic, CRC-32 and the ICRC
 *   state          configuration and endpoint calls, the QP state machine, errors and names
 *   responder      hand-built packets into mrc_endpoint_recv; SACK coalescing and timing, transport ACKs, reply port
 *   requester      its packets drained, hand-built SACK / NACK / AETH fed; time, tail-loss probes, RTO schedule
 *   scenario       two endpoints over the wire: bulk, Write-IMM, RTO, retries, PSN wrap, trimming, windows, SACKs
 *   scenario_edge  the same: rules and edge cases (MSN wrap, ports down, access errors, reorder slack, RTS -> RTS)
 *   ev_health      multipath: black holes, a plane down, lossy paths, DENIED EVs, spraying balance
 *   ev_profile     EV expansion vectors, profile lifecycle, EV_PROBE operations, the controller event ring
 *   ev_select      which EV a packet takes: SKIP_ONCE, hop groups, recycling, the verification queue, proven EVs
 *   cc_nscc        NSCC arithmetic, wrap-around, sub-packet windows, last-hop marks (white-box, and live)
 *   cc             fixed window, CC profiles, dynamic MPR, fabric scenarios on the simulator (sim/mrc_sim.h)
 *   api            connection defaults, QP hints, the error detail of every control call, large EV formats
 *   hostile        a forging attacker against live transfers
 *   live           liveness: a QP with work is never silent
 *   burst          P37 bursts: a transmit burst equals single calls; transfers received in bursts, bad entries
 */
#define MRC_IMPLEMENTATION
#include "tests/test.h"

/* ================================================================================================================
 * harness
 * ============================================================================================================== */
uint64_t g_seed = 1;     /* base seed; tests derive their own from it */
const char *g_test = ""; /* running test */
int g_verbose = 0;

void fail_at(const char *file, int line, const char *what) {
    printf("  FAIL %s (seed %llu) %s:%d: %s\n", g_test, (unsigned long long)g_seed, file, line, what);
}
void note(const char *fmt, ...) {
    va_list ap;
    if (!g_verbose) return;
    va_start(ap, fmt);
    printf("    ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* ================================================================================================================
 * runner: the registry of the modules, walked in this order
 * ============================================================================================================== */
static const test_entry *const modules[] = {
    test_codec,    test_packet,        test_state,     test_responder,  test_requester,
    test_scenario, test_scenario_edge, test_ev_health, test_ev_profile, test_ev_select,
    test_cc_nscc,  test_cc,            test_api,       test_hostile,    test_live,
    test_burst,
};

static int has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

int main(int argc, char **argv) {
    const char *inc[32], *exc[32];
    int ninc = 0, nexc = 0, list = 0, i;
    unsigned pass = 0, fail = 0;
    size_t m;
    const test_entry *t;
    const char *env = getenv("MRC_TEST_SEED");
    if (env && *env) g_seed = strtoull(env, NULL, 0);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc && ninc < 32) inc[ninc++] = argv[++i];
        else if (!strcmp(argv[i], "-x") && i + 1 < argc && nexc < 32) exc[nexc++] = argv[++i];
        else if (!strcmp(argv[i], "-l")) list = 1;
        else if (!strcmp(argv[i], "-v")) g_verbose = 1;
        else {
            fprintf(stderr, "mrc_test: unknown argument '%s' (use -t NAME, -x NAME, -l, -v)\n", argv[i]);
            return 2;
        }
    }
    for (m = 0; m < sizeof modules / sizeof modules[0]; m++) {
        for (t = modules[m]; t->name; t++) {
            int j, sel = ninc == 0, r;
            for (j = 0; j < ninc; j++) sel |= has(t->name, inc[j]);
            for (j = 0; j < nexc; j++) sel &= !has(t->name, exc[j]);
            if (!sel) continue;
            if (list) {
                printf("%s\n", t->name);
                continue;
            }
            g_test = t->name;
            if (g_verbose) printf("%s\n", g_test);
            fflush(stdout);
            r = t->fn();
            if (r == 0) pass++;
            else {
                fail++;
                printf("FAIL %s (MRC_TEST_SEED=%llu ./mrc_test -t %s)\n", t->name, (unsigned long long)g_seed,
                       t->name);
            }
        }
    }
    if (list) return 0;
    printf("%u passed, %u failed\n", pass, fail);
    return fail != 0;
}
