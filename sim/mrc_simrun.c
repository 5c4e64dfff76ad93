/* mrc_simrun.c - scenario runner for the fabric simulator (sim/mrc_sim.h) driving real mrc.h endpoints.
 *
 *   mrc_simrun --list
 *   mrc_simrun --scenario NAME [--seed N] [--json] [--out DIR] [--hosts N] [--k K] [--planes P] [--radix R]
 *              [--size BYTES] [--routing ecmp|srv6|srv6-paths] [--no-ev-groups] [--group-retire 0|1|2]
 *              [--evs N] [--no-trim] [--no-recycle] [--no-lasthop-dscp] [--lh-mark RTTS] [--no-hints]
 *              [--cwnd BYTES|unlimited]
 *              [--matrix FILE] [--pcap FILE --pcap-hosts A,B,...] [--sample-us N] [--quiet]
 *   mrc_simrun --suite full  --out DIR [--seeds N]     every standard scenario, summary.md, plots (make sim); the
 *                                                      targets' scenarios also on seeds seed+1..seed+N-1 (median, worst)
 *   mrc_simrun --suite quick --golden DIR [--update-golden] [--strict]   small scenarios vs golden files (make sim-quick)
 *
 * Exit status: 0 success (suite quick: every scenario PASS), 1 a run failed or a check failed, 2 usage error.
 * Sizes accept k/M/G (decimal) and Ki/Mi/Gi suffixes: 2M = 2,000,000 bytes, 2Mi = 2,097,152.
 */
#define _POSIX_C_SOURCE 200809L
#define MRC_IMPLEMENTATION
#define MRC_RESEARCH /* the simulator is the research tool: mrc_config.research's knobs (--lh-mark, --tlp-copies, ...) */
#include "../mrc.h"
#ifdef MRC_FASTCHECK /* make fast-check: every recv and poll_tx runs general code and fast path, compared */
#include "../tests/fixtures/mrc_fastcheck.h"
#endif
#define MRC_SIM_IMPLEMENTATION
#include "mrc_sim.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

/* ---- options ------------------------------------------------------------------------------------------------ */
typedef struct opts {
    const char *scenario, *suite, *out, *golden, *matrix, *pcap;
    uint64_t seed, size, cwnd, sample_ns, slack_ns, host_mbps;
    uint32_t hosts, k, planes, radix, evs, pcap_hosts[MRC_SIM_MAX_PCAP_HOSTS], n_pcap, nseeds, steps;
    int json, list, quiet, update_golden, strict, routing, no_trim, cwnd_set, seed_set, no_ev_groups;
    int group_retire, lh_mark, no_lh_dscp, no_hints, reo_timer, tlp_copies, oracle_bypass, ev_hashed, oracle_fault;
    int ev_policy, ev_recycle, ev_sweep, suspect_hold, confirm_late; /* -1: the scenario's */
} opts;

static void usage(FILE *f) {
    fputs("usage: mrc_simrun --list\n"
          "       mrc_simrun --scenario NAME [--seed N] [--json] [--out DIR] [--hosts N] [--k K] [--planes P]\n"
          "                  [--radix R] [--size BYTES] [--routing ecmp|srv6|srv6-paths] [--no-ev-groups]\n"
          "                  [--evs N] [--no-trim] [--cwnd BYTES|unlimited]\n"
          "                  [--no-lasthop-dscp] [--lh-mark RTTS] [--no-hints]\n"
          "                  [--matrix FILE]\n"
          "                  [--pcap FILE --pcap-hosts A,B]\n"
          "                  [--sample-us N] [--reorder-slack-us N] [--reorder-timer Q] [--tlp-copies 1|2]\n"
          "                  [--ev-hashed] [--oracle-bypass] [--oracle-fault] [--host-mbps N]\n"
          "                  [--ev-policy default|rotation|ecmp|paths] [--ev-recycle S] [--ev-sweep S]\n"
          "                  [--suspect-hold S] [--confirm-late S] [--no-recycle] [--group-retire alone|at-once|second]\n"
          "                  (S, an EV scope: none, auto, hashed, profile, all)\n"
          "                  [--steps N] (ring all-reduce: steps run; all-to-all: destinations per host)\n"
          "                  [--quiet]\n"
          "       mrc_simrun --suite full --out DIR [--seeds N]\n"
          "       mrc_simrun --list [--suite full]   (every scenario, or the full suite's alone)\n"
          "       mrc_simrun --suite quick --golden DIR [--update-golden] [--strict]\n",
          f);
}

static int bad_arg(const char *opt, const char *val, const char *want) {
    fprintf(stderr, "mrc_simrun: %s %s'%s': expected %s\n", opt, val ? "" : "needs a value, got ", val ? val : "",
            want);
    return 2;
}

static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, int allow_suffix) {
    char *end;
    unsigned long long v;
    uint64_t mul = 1;
    if (!s || !*s || *s == '-' || *s == '+') return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    if (*end && allow_suffix) {
        int bin = end[1] == 'i';
        switch (*end) {
        case 'k': case 'K': mul = bin ? 1024ull : 1000ull; break;
        case 'M': mul = bin ? 1048576ull : 1000000ull; break;
        case 'G': mul = bin ? 1073741824ull : 1000000000ull; break;
        default: return -1;
        }
        end += bin ? 2 : 1;
        if (*end == 'B') end++;
    }
    if (*end || (mul > 1 && v > UINT64_MAX / mul)) return -1;
    v *= mul;
    if (v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* ---- metrics: a named list printed as JSON and checked against golden files ------------------------------- */
#define MAXM 128
#define MAXSEEDS 32 /* --seeds */
typedef struct metrics {
    const char *name[MAXM];
    double v[MAXM];
    unsigned n;
} metrics;
static void madd(metrics *m, const char *name, double v) {
    if (m->n < MAXM) {
        m->name[m->n] = name;
        m->v[m->n++] = v;
    }
}
static int mget(const metrics *m, const char *name, double *v) {
    unsigned i;
    for (i = 0; i < m->n; i++)
        if (!strcmp(m->name[i], name)) {
            *v = m->v[i];
            return 0;
        }
    return -1;
}

/* ---- scenarios ------------------------------------------------------------------------------------------------ */
/* W_RING and W_A2A create their flows as the run goes (mrc_sim_config.on_done): a ring all-reduce's step when the
 * host has received the step before, an all-to-all's next destination when the host's send before completed */
enum { W_PERM, W_INCAST, W_VICTIM, W_ALLTOALL, W_ALLREDUCE, W_MATRIX, W_SELFTEST, W_RING, W_A2A };
enum { F_NONE, F_BLACKHOLE, F_LOSS, F_PLANE, F_MIX, F_T1_BLACKHOLE, F_HOST };

typedef struct scenario {
    const char *name, *desc;
    int work, fault;
    uint8_t topo;
    uint32_t k, planes, radix, hosts; /* topology */
    uint64_t size;
    uint32_t n;                       /* incast senders / participants */
    int one_ev, no_trim, srv6;        /* srv6: 1 SRv6 (AUTO EVs), 2 SRv6 + path-aware EV profile */
    uint64_t fault_at_ns;
    double fault_arg;                 /* fraction of cables, loss ppm */
    uint64_t sample_ns;
    uint64_t win_lo, win_hi;          /* goodput window (plane down) */
    int quick;                        /* 1: in the quick suite; 2: fixed window of one packet */
    int ev_policy;                    /* the EV policy, MRC_EV_PRESET_* (0: the default) */
    uint32_t steps;                   /* W_RING: ring steps run, W_A2A: destinations per host (0: all) */
    uint32_t linger_us;               /* QPs kept after a flow completed (0: the simulator's 200 us) */
} scenario;

#define FT(k_) MRC_SIM_FATTREE, (k_), 1, 0, 0
#define MP(p_, r_, h_) MRC_SIM_MULTIPLANE, 0, (p_), (r_), (h_)
static const scenario scenarios[] = {
    /* the standard suite (make sim) */
    {"perm_ft", "permutation, 3-tier fat tree, 2 MB per host, MRC spraying 128 EVs", W_PERM, F_NONE, FT(16),
     2000000, 0, 0, 0, 0, 0, 0, 5000, 0, 0, 0, 0, 0, 0},
    {"perm_ft_1ev", "baseline: same, one EV per QP (RoCE-like single ECMP path)", W_PERM, F_NONE, FT(16), 2000000, 0,
     1, 0, 0, 0, 0, 5000, 0, 0, 0, 0, 0, 0},
    {"perm_ft_notrim", "baseline: same, switches drop instead of trimming", W_PERM, F_NONE, FT(16), 2000000, 0, 0, 1,
     0, 0, 0, 5000, 0, 0, 0, 0, 0, 0},
    {"perm_ft_srv6", "same as perm_ft with static SRv6 uSID source routes (simulator's own EV->path encoding)",
     W_PERM, F_NONE, FT(16), 2000000, 0, 0, 0, 1, 0, 0, 5000, 0, 0, 0, 0, 0, 0},
    {"perm_mp", "permutation, 8-plane 2-tier Clos (8 x 100G ports per host), 2 MB per host", W_PERM, F_NONE,
     MP(8, 64, 1024), 2000000, 0, 0, 0, 0, 0, 0, 2000, 0, 0, 0, 0, 0, 0},
    {"perm_mp_srv6", "perm_mp over static SRv6 uSID routes with the path-aware EV profile: each QP has one EV per "
     "(plane, T1), 8 x 32 = 256, every T1 of every plane used once", W_PERM, F_NONE, MP(8, 64, 1024), 2000000, 0, 0, 0,
     2, 0, 0, 2000, 0, 0, 0, MRC_EV_PRESET_PATHS, 0, 0},
    {"perm_mp_16m", "perm_mp with 16 MB per host (flows as long in base RTTs as perm_ft's)", W_PERM, F_NONE,
     MP(8, 64, 1024), 16000000, 0, 0, 0, 0, 0, 0, 5000, 0, 0, 0, 0, 0, 0},
    {"perm_mp_16m_srv6", "perm_mp_srv6 with 16 MB per host", W_PERM, F_NONE, MP(8, 64, 1024), 16000000, 0, 0, 0, 2, 0,
     0, 5000, 0, 0, 0, MRC_EV_PRESET_PATHS, 0, 0},
    {"perm_mp_1ev", "baseline: same, one EV per port (one ECMP path per plane)", W_PERM, F_NONE, MP(8, 64, 1024),
     2000000, 0, 1, 0, 0, 0, 0, 2000, 0, 0, 0, 0, 0, 0},
    {"blackhole_ft", "perm_ft with 1% of fabric cables black-holed (silent drop) at 50 us", W_PERM, F_BLACKHOLE,
     FT(16), 2000000, 0, 0, 0, 0, 50000, 0.01, 5000, 0, 0, 0, 0, 0, 0},
    {"t1_blackhole_mp", "perm on 8 planes, 16 MB, one T1 switch of plane 1 silently stops forwarding at 50 us",
     W_PERM, F_T1_BLACKHOLE, MP(8, 32, 256), 16000000, 0, 0, 0, 0, 50000, 0, 5000, 80000, 160000, 0, 0, 0, 0},
    {"t1_blackhole_mp_srv6", "t1_blackhole_mp over SRv6 with the path-aware EV profile (8 x 16 EVs: one per plane "
     "and T1, so exactly one EV of each QP crosses the dead T1)", W_PERM, F_T1_BLACKHOLE, MP(8, 32, 256), 16000000, 0,
     0, 0, 2, 50000, 0, 5000, 80000, 160000, 0, MRC_EV_PRESET_PATHS, 0, 0},
    {"planedown_mp", "perm on 8 planes, 256 hosts x 16 MB; plane 1 (every host port 1) down at 50 us", W_PERM,
     F_PLANE, MP(8, 32, 256), 16000000, 0, 0, 0, 0, 50000, 0, 5000, 80000, 160000, 0, 0, 0, 0},
    {"blackhole_ft_srv6", "blackhole_ft over SRv6 with the path-aware EV profile (64 EVs: one per (T1, T2) up path)",
     W_PERM, F_BLACKHOLE, FT(16), 2000000, 0, 0, 0, 2, 50000, 0.01, 5000, 0, 0, 0, MRC_EV_PRESET_PATHS, 0, 0},
    {"loss_ft", "perm_ft with 1% random loss on every link", W_PERM, F_LOSS, FT(16), 2000000, 0, 0, 0, 0, 0, 10000,
     5000, 0, 0, 0, 0, 0, 0},
    {"loss_ft_1ev", "baseline: loss_ft with one EV per QP", W_PERM, F_LOSS, FT(16), 2000000, 0, 1, 0, 0, 0, 10000,
     5000, 0, 0, 0, 0, 0, 0},
    {"incast_ft", "incast 127 -> 1 x 2 MB on the fat tree, trimming on", W_INCAST, F_NONE, FT(16), 2000000, 127, 0, 0,
     0, 0, 0, 100000, 0, 0, 0, 0, 0, 0},
    {"incast_ft_notrim", "baseline: incast 127 -> 1 without trimming", W_INCAST, F_NONE, FT(16), 2000000, 127, 0, 1,
     0, 0, 0, 100000, 0, 0, 0, 0, 0, 0},
    {"incast_ft_cwnd1", "diagnostic: incast_ft with a fixed window of one packet per QP (a stand-in for a converged "
     "congestion control)", W_INCAST, F_NONE, FT(16), 2000000, 127, 0, 0, 0, 0, 0, 100000, 0, 0, 2, 0, 0, 0},
    {"victim_ft", "incast 7 -> 1 x 2 MB plus a victim flow (2 MB at 200 us) into a host on the receiver's T0",
     W_VICTIM, F_NONE, FT(16), 2000000, 7, 0, 0, 0, 0, 0, 10000, 0, 0, 0, 0, 0, 0},
    {"victim_ft_1ev", "baseline: victim_ft with one EV per QP", W_VICTIM, F_NONE, FT(16), 2000000, 7, 1, 0, 0, 0, 0,
     10000, 0, 0, 0, 0, 0, 0},
    {"alltoall_ft", "all-to-all among 32 hosts spread over a k=8 fat tree, 256 KB per pair", W_ALLTOALL, F_NONE,
     FT(8), 256000, 32, 0, 0, 0, 0, 0, 10000, 0, 0, 0, 0, 0, 0},
    {"allreduce_mp", "ring all-reduce, 64 hosts on 8 planes, 64 MB per host (2(N-1) dependent steps)", W_ALLREDUCE,
     F_NONE, MP(8, 16, 128), 64000000, 64, 0, 0, 0, 0, 0, 20000, 0, 0, 0, 0, 0, 0},
    {"faults_ft", "perm on a k=8 fat tree, 8 MB: a flapping link, a degraded link, a T1 switch down, 0.1% loss",
     W_PERM, F_MIX, FT(8), 8000000, 0, 0, 0, 0, 50000, 0, 10000, 0, 0, 0, 0, 0, 0},
    /* at scale (make sim-scale; build/sim/mrc_simrun_scale, endpoints sized for a permutation: docs/EVALUATION.md) */
    {"perm_ft_8k", "perm_ft at k = 32: 8,192 hosts, 3-tier fat tree, 2 MB per host", W_PERM, F_NONE, FT(32), 2000000,
     0, 0, 0, 0, 0, 0, 5000, 0, 0, 0, 0, 0, 0},
    {"perm_mp_32k", "perm_mp at 32,768 hosts: 8 planes of a 2-tier Clos of radix-256 switches, 2 MB per host",
     W_PERM, F_NONE, MP(8, 256, 32768), 2000000, 0, 0, 0, 0, 0, 0, 5000, 0, 0, 0, 0, 0, 0},
    {"perm_mp_131k", "the reference network: 131,072 hosts, 8 planes of a 2-tier Clos of 512-port switches (256 down, "
     "256 up), 2 MB per host", W_PERM, F_NONE, MP(8, 512, 131072), 2000000, 0, 0, 0, 0, 0, 0, 5000, 0, 0, 0, 0, 0, 0},
    {"perm_mp_131k_16m", "perm_mp_131k with 16 MB per host", W_PERM, F_NONE, MP(8, 512, 131072), 16000000, 0, 0, 0, 0,
     0, 0, 10000, 0, 0, 0, 0, 0, 0},
    {"t1_blackhole_mp_8k", "8,192 hosts on 8 planes of a radix-128 Clos, 4 MB: one T1 switch of plane 1 silently "
     "stops forwarding at 10 us", W_PERM, F_T1_BLACKHOLE, MP(8, 128, 8192), 4000000, 0, 0, 0, 0, 10000, 0, 2000, 20000,
     40000, 0, 0, 0, 0},
    {"planedown_mp_8k", "8,192 hosts on 8 planes of a radix-128 Clos, 4 MB: plane 1 (every host port 1) down at 10 us",
     W_PERM, F_PLANE, MP(8, 128, 8192), 4000000, 0, 0, 0, 0, 10000, 0, 2000, 20000, 40000, 0, 0, 0, 0},
    {"allreduce_mp_8k", "ring all-reduce over 8,192 hosts of the reference network (8 planes of 512-port switches), "
     "512 MiB per host (64 KiB per step), the first 64 of its 16,382 steps; each step created when its sender has "
     "received the one before", W_RING, F_NONE, MP(8, 512, 8192), 536870912ull, 8192, 0, 0, 0, 0, 0, 10000, 0, 0, 0, 0, 64, 20},
    {"alltoall_mp_4k", "all-to-all among a 4,096-host slice of the reference network (8 planes of 512-port switches), "
     "256 KB per pair, the first 32 of each host's 4,095 destinations (4 at a time; a seeded order of shifts shared by "
     "all hosts, so each is a permutation)", W_A2A, F_NONE, MP(8, 512, 4096), 256000, 4096, 0, 0, 0, 0, 0, 10000, 0, 0,
     0, 0, 32, 20},
    {"matrix", "connection matrix from --matrix FILE (src dst bytes start_us per line)", W_MATRIX, F_NONE, FT(16), 0,
     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* small versions (make sim-quick) */
    {"q_selftest", "routing self-test (ECMP and SRv6) on both topologies", W_SELFTEST, F_NONE, FT(4), 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 1, 0, 0, 0},
    {"q_perm_ft", "permutation, k=4 fat tree (16 hosts), 2 MB", W_PERM, F_NONE, FT(4), 2000000, 0, 0, 0, 0, 0, 0,
     5000, 0, 0, 1, 0, 0, 0},
    {"q_perm_srv6", "q_perm_ft over SRv6 uSID source routes", W_PERM, F_NONE, FT(4), 2000000, 0, 0, 0, 1, 0, 0, 5000,
     0, 0, 1, 0, 0, 0},
    {"q_perm_mp", "permutation, 4 planes, radix 8, 32 hosts, 2 MB", W_PERM, F_NONE, MP(4, 8, 32), 2000000, 0, 0, 0,
     0, 0, 0, 2000, 0, 0, 1, 0, 0, 0},
    {"q_blackhole", "q_perm_ft with one fabric cable black-holed at 50 us", W_PERM, F_BLACKHOLE, FT(4), 2000000, 0, 0,
     0, 0, 50000, 0.01, 5000, 0, 0, 1, 0, 0, 0},
    {"q_planedown", "4 planes, 32 hosts x 8 MB, plane 1 down at 30 us", W_PERM, F_PLANE, MP(4, 8, 32), 8000000, 0, 0,
     0, 0, 30000, 0, 5000, 50000, 100000, 1, 0, 0, 0},
    {"q_loss", "q_perm_ft with 1% loss on every link", W_PERM, F_LOSS, FT(4), 2000000, 0, 0, 0, 0, 0, 10000, 5000, 0,
     0, 1, 0, 0, 0},
    {"q_incast", "incast 15 -> 1 x 256 KB, k=4 fat tree", W_INCAST, F_NONE, FT(4), 256000, 15, 0, 0, 0, 0, 0, 20000,
     0, 0, 1, 0, 0, 0},
    {"q_victim", "incast 7 -> 1 + victim, k=4 fat tree, 1 MB", W_VICTIM, F_NONE, FT(4), 1000000, 7, 0, 0, 0, 0, 0,
     10000, 0, 0, 1, 0, 0, 0},
    {"q_alltoall", "all-to-all, 16 hosts, 64 KB per pair", W_ALLTOALL, F_NONE, FT(4), 64000, 16, 0, 0, 0, 0, 0, 10000,
     0, 0, 1, 0, 0, 0},
    {"q_allreduce", "ring all-reduce, 8 hosts on 4 planes, 4 MB", W_ALLREDUCE, F_NONE, MP(4, 8, 32), 4000000, 8, 0, 0,
     0, 0, 0, 10000, 0, 0, 1, 0, 0, 0},
    {"q_allreduce_dyn", "q_allreduce with each step created when the host has received the one before (the same run: "
     "the same digest)", W_RING, F_NONE, MP(4, 8, 32), 4000000, 8, 0, 0, 0, 0, 0, 10000, 0, 0, 1, 0, 0, 0},
    {"q_alltoall_dyn", "all-to-all, 16 hosts, 64 KB per pair, each host's next destination when its send before "
     "completed, 4 at a time", W_A2A, F_NONE, FT(4), 64000, 16, 0, 0, 0, 0, 0, 10000, 0, 0, 1, 0, 0, 0},
    {"q_faults", "every fault kind on a k=4 fat tree, 4 MB permutation", W_PERM, F_MIX, FT(4), 4000000, 0, 0, 0, 0,
     30000, 0, 10000, 0, 0, 1, 0, 0, 0},
    {"q_hostloss", "4 planes, 32 hosts x 8 MB; from 30 us host 0 drops all it receives for 2 us every 20 us (a busy "
     "host: loss on every plane at once, P39)", W_PERM, F_HOST, MP(4, 8, 32), 8000000, 0, 0, 0, 0, 30000, 0, 5000, 0,
     0, 1, 0, 0, 0},
};
#define NSCEN (sizeof scenarios / sizeof scenarios[0])

static const scenario *find_scenario(const char *name) {
    unsigned i;
    for (i = 0; i < NSCEN; i++)
        if (!strcmp(scenarios[i].name, name)) return &scenarios[i];
    return (const scenario *)0;
}

/* ---- a run's kept data (for combined plots) -------------------------------------------------------------------- */
typedef struct run {
    metrics m;
    char scen[48];
    double *fct_us; /* sorted FCTs of completed flows */
    uint32_t nfct;
    double *st, *sgp, *splane[MRC_MAX_PORTS], *sq; /* time series: us, Gb/s placed, Gb/s per plane, queue KB */
    uint32_t ns, planes;
    double fault_us;
    uint64_t digest;
} run;
static void run_free(run *r) {
    unsigned i;
    free(r->fct_us);
    free(r->st);
    free(r->sgp);
    free(r->sq);
    for (i = 0; i < MRC_MAX_PORTS; i++) free(r->splane[i]);
    memset(r, 0, sizeof *r);
}

static uint64_t rng_next(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint32_t rng_below(uint64_t *x, uint32_t n) { return (uint32_t)(((rng_next(x) >> 32) * n) >> 32); }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double pct(const double *v, uint32_t n, double p) {
    uint32_t i;
    if (!n) return 0.0;
    i = (uint32_t)(p * (double)(n - 1u) + 0.5);
    return v[i < n ? i : n - 1u];
}
static double cpu_now(void) { /* this process's CPU time (user + system), seconds */
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru)) return 0.0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}
static double wall_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int mkdir_p(const char *d) {
    char buf[512];
    size_t i, n = strlen(d);
    if (n >= sizeof buf) return -1;
    memcpy(buf, d, n + 1);
    for (i = 1; i <= n; i++)
        if (buf[i] == '/' || buf[i] == 0) {
            char c = buf[i];
            buf[i] = 0;
            if (mkdir(buf, 0777) && errno != EEXIST) return -1;
            buf[i] = c;
        }
    return 0;
}
static FILE *open_out(const opts *o, const char *name, const char *ext) {
    char path[600];
    FILE *f;
    if (!o->out) return (FILE *)0;
    snprintf(path, sizeof path, "%s/%s%s", o->out, name, ext);
    f = fopen(path, "w");
    if (!f) fprintf(stderr, "mrc_simrun: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* ---- matrix file ---------------------------------------------------------------------------------------------- */
static int load_matrix(mrc_sim *s, const char *path, uint32_t *nflows) {
    FILE *f = fopen(path, "r");
    char line[256];
    unsigned ln = 0;
    *nflows = 0;
    if (!f) {
        fprintf(stderr, "mrc_simrun: cannot open matrix %s: %s\n", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        unsigned long src, dst;
        unsigned long long bytes;
        double start_us;
        mrc_sim_flow_spec fs;
        char *p = line;
        ln++;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || !*p) continue;
        if (sscanf(p, "%lu %lu %llu %lf", &src, &dst, &bytes, &start_us) != 4 || start_us < 0.0) {
            fprintf(stderr, "mrc_simrun: %s:%u: expected 'src dst bytes start_us'\n", path, ln);
            fclose(f);
            return -1;
        }
        memset(&fs, 0, sizeof fs);
        fs.src = (uint32_t)src;
        fs.dst = (uint32_t)dst;
        fs.bytes = bytes;
        fs.start = (mrc_time)(start_us * 1000.0 + 0.5);
        fs.after = MRC_SIM_NONE;
        if (mrc_sim_add_flow(s, &fs) == MRC_SIM_NONE) {
            fprintf(stderr, "mrc_simrun: %s:%u: invalid flow (hosts 0..%u, src != dst, bytes 1..2^31)\n", path, ln,
                    mrc_sim_hosts(s) - 1u);
            fclose(f);
            return -1;
        }
        (*nflows)++;
    }
    fclose(f);
    return 0;
}

/* ---- one simulation -------------------------------------------------------------------------------------------- */
typedef struct runcfg {
    const scenario *sc;
    int with_fault;
} runcfg;

static uint32_t add_hint(mrc_sim *s, uint32_t src, uint32_t dst, uint64_t bytes, mrc_time start, uint32_t after,
                         uint32_t incast) {
    mrc_sim_flow_spec f;
    memset(&f, 0, sizeof f);
    f.src = src;
    f.dst = dst;
    f.bytes = bytes;
    f.start = start;
    f.after = after;
    f.incast = incast;
    return mrc_sim_add_flow(s, &f);
}
static uint32_t add(mrc_sim *s, uint32_t src, uint32_t dst, uint64_t bytes, mrc_time start, uint32_t after) {
    return add_hint(s, src, dst, bytes, start, after, 0u);
}

/* W_RING, W_A2A: the flows of a collective, created as the run goes (mrc_sim_config.on_done). A flow's user tag is
 * (k << 32) | i: participant i, its ring step or its destination index k. */
#define A2A_WINDOW 4u /* all-to-all: sends one host keeps going at once */
typedef struct coll {
    int work;
    uint32_t n, stride, steps; /* participants, their spacing in host ids, steps (ring) or destinations (a2a) */
    uint64_t bytes;            /* per flow */
    uint32_t *shift;           /* W_A2A: destination index k of participant i is i + shift[k] (mod n) */
    uint64_t refused;          /* flows mrc_sim_add_flow refused (0 in a good run) */
} coll;
static void coll_add(mrc_sim *s, coll *g, uint32_t i, uint32_t k) {
    uint32_t j = g->work == W_RING ? (i + 1u) % g->n : (i + g->shift[k]) % g->n;
    mrc_sim_flow_spec f;
    memset(&f, 0, sizeof f);
    f.src = i * g->stride;
    f.dst = j * g->stride;
    f.bytes = g->bytes;
    f.after = MRC_SIM_NONE;
    f.user = ((uint64_t)k << 32) | i;
    if (mrc_sim_add_flow(s, &f) == MRC_SIM_NONE) g->refused++;
}
static void coll_done(void *ud, mrc_sim *s, uint32_t flow, int side) { /* O(1) per completion */
    coll *g = (coll *)ud;
    uint64_t u = mrc_sim_flow_user(s, flow);
    uint32_t i = (uint32_t)u, k = (uint32_t)(u >> 32);
    if (g->work == W_RING) { /* participant i + 1 has step k: it sends step k + 1 on to i + 2 */
        if (side == MRC_SIM_DONE_RX && k + 1u < g->steps) coll_add(s, g, (i + 1u) % g->n, k + 1u);
    } else if (side == MRC_SIM_DONE_TX && k + A2A_WINDOW < g->steps) { /* i's send k done: its next destination */
        coll_add(s, g, i, k + A2A_WINDOW);
    }
}

static int simulate(const scenario *sc, const opts *o, int with_fault, run *r, mrc_sim **keep) {
    mrc_sim_config c;
    mrc_sim *s;
    char err[256];
    uint32_t H, i, nflows = 0, victim = MRC_SIM_NONE, n = sc->n;
    uint64_t size = o->size ? o->size : sc->size, seed = o->seed, rng;
    mrc_sim_totals t;
    double w0, wall, c0, cpu, *fct;
    uint32_t nf, done = 0, failed = 0;
    double sum_gp = 0.0, max_fct = 0.0, max_slow = 0.0, ideal_ref, sum_rtx = 0, sum_data = 0, sum_nack = 0;
    double sum_rto = 0, sum_tlp = 0, sum_probe = 0, sum_bh = 0, bypass = 0.0, sum_skip = 0, sum_trim_seen = 0;
    double sum_demoted = 0, sum_host = 0, stall_demoted = 0;
    double unique_pkts = 0;
    mrc_time last_done = 0, first_start = MRC_TIME_NEVER;
    coll g;
    FILE *pcapf = (FILE *)0;
    int rc;

    mrc_sim_config_default(&c);
    c.seed = seed;
    c.topo = sc->topo;
    if (sc->topo == MRC_SIM_FATTREE) c.k = o->k ? o->k : sc->k;
    else {
        c.planes = o->planes ? o->planes : sc->planes;
        c.radix = o->radix ? o->radix : sc->radix;
        c.hosts = o->hosts ? o->hosts : sc->hosts;
    }
    if (sc->one_ev) c.evs_per_qp = (uint16_t)(sc->topo == MRC_SIM_FATTREE ? 1u : c.planes);
    if (o->evs) c.evs_per_qp = (uint16_t)o->evs;
    c.trim = !(sc->no_trim || o->no_trim);
    {   /* 0 ECMP, 1 SRv6 (AUTO EVs, the simulator's EV->path encoding), 2 SRv6 with the path-aware EV profile */
        int rt = o->routing >= 0 ? o->routing : sc->srv6, pol = sc->ev_policy;
        c.routing = (uint8_t)(rt ? MRC_SIM_ROUTE_SRV6 : MRC_SIM_ROUTE_ECMP);
        c.ev_paths = rt == 2;
        /* the EV policy: the scenario's; --routing srv6-paths brings the path-aware policy and another routing takes
         * it away, --ev-hashed brings the one of AUTO's EVs (its profile stands in for them), --ev-policy overrides */
        if (rt != sc->srv6) pol = rt == 2 ? MRC_EV_PRESET_PATHS : MRC_EV_PRESET_DEFAULT;
        if (o->ev_hashed) pol = MRC_EV_PRESET_ECMP;
        if (o->ev_policy >= 0) pol = o->ev_policy;
        (void)mrc_ev_policy_preset(&c.core.ev, pol);
    }
    if (o->no_ev_groups) c.ev_groups = false;
    if (o->oracle_bypass) c.oracle_bypass = true;
    if (o->oracle_fault) c.oracle_fault = true;
    if (o->host_mbps) c.host_bps = o->host_mbps * 1000000u; /* hosts slower than the fabric (ideal_us follows) */
    if (o->ev_hashed) c.ev_hashed = true; /* ECMP-hashed EVs in a profile the oracle can mark */
    if (o->ev_recycle >= 0) c.core.ev.recycle = (uint8_t)o->ev_recycle; /* P23 EV recycling */
    if (o->group_retire >= 0) c.core.ev.group_retire = (uint8_t)o->group_retire;
    if (o->no_lh_dscp) c.trim_lasthop_dscp = false; /* every trim DSCP TRIMMED: P30 never fires */
    if (o->lh_mark >= 0) c.core.research.cc_lh_mark_rtts = (uint8_t)o->lh_mark;
    if (o->reo_timer >= 0) c.core.research.reorder_timer = (uint8_t)o->reo_timer;
    if (o->tlp_copies > 0) c.core.research.tlp_copies = (uint8_t)o->tlp_copies;
    if (o->ev_sweep >= 0) c.core.ev.sweep = (uint8_t)o->ev_sweep;
    if (o->suspect_hold >= 0) c.core.ev.hold = (uint8_t)o->suspect_hold;
    if (o->confirm_late >= 0) c.core.ev.confirm_late = (uint8_t)o->confirm_late;
    if (sc->quick & 2) c.cwnd_bytes = c.mtu; /* a window of one packet: a stand-in for a converged CC */
    if (o->cwnd_set) c.cwnd_bytes = (uint32_t)o->cwnd;
    c.core.recovery.reorder_slack_ns = (uint32_t)o->slack_ns;
    c.sample_ns = o->sample_ns ? o->sample_ns : sc->sample_ns;
    if (sc->linger_us) c.linger_ns = sc->linger_us * 1000u;
    memset(&g, 0, sizeof g);
    if (sc->work == W_RING || sc->work == W_A2A) {
        g.work = sc->work;
        c.on_done = coll_done;
        c.on_done_ud = &g;
    }
    if (o->pcap && with_fault) {
        pcapf = fopen(o->pcap, "wb");
        if (!pcapf) {
            fprintf(stderr, "mrc_simrun: cannot write %s: %s\n", o->pcap, strerror(errno));
            return -1;
        }
        c.pcap = pcapf;
        memcpy(c.pcap_hosts, o->pcap_hosts, sizeof c.pcap_hosts);
        c.n_pcap_hosts = o->n_pcap;
    }
    { /* the QPs one host holds at once, against this build's capacity (the scale build holds 8) */
        uint32_t need = sc->work == W_INCAST || sc->work == W_VICTIM ? (o->hosts ? o->hosts : n) + 1u
                        : sc->work == W_ALLTOALL                     ? 2u * ((o->hosts ? o->hosts : n) - 1u)
                        : sc->work == W_A2A                          ? 2u * A2A_WINDOW
                                                                     : 2u;
        if (need > MRC_MAX_CONNS) {
            fprintf(stderr,
                    "mrc_simrun: %s needs up to %u QPs on one host; this runner's endpoints hold %u "
                    "(MRC_MAX_CONNS; the scale build mrc_simrun_scale is sized for permutations and rings: use "
                    "mrc_simrun)\n",
                    sc->name, need, (unsigned)MRC_MAX_CONNS);
            if (pcapf) fclose(pcapf);
            return -1;
        }
    }
    if (mrc_sim_create(&s, &c, err, sizeof err)) {
        fprintf(stderr, "mrc_simrun: %s: %s\n", sc->name, err);
        if (strstr(err, "out of memory") && MRC_MAX_CONNS > 8)
            fprintf(stderr, "mrc_simrun: the scale build (make build/sim/mrc_simrun_scale) sizes endpoints for "
                            "permutations and rings: 67 KB per endpoint\n");
        if (pcapf) fclose(pcapf);
        return -1;
    }
    H = mrc_sim_hosts(s);
    rng = seed * 0x9E3779B97F4A7C15ull + 0x5C3Eull;
    switch (sc->work) {
    case W_PERM: case W_SELFTEST: {
        uint32_t *perm = (uint32_t *)malloc((size_t)H * sizeof *perm);
        if (!perm) break;
        for (i = 0; i < H; i++) perm[i] = i;
        for (i = H - 1u; i > 0; i--) {
            uint32_t j = rng_below(&rng, i + 1u), x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
        for (i = 0; i < H; i++) /* no fixed points */
            if (perm[i] == i) {
                uint32_t j = (i + 1u) % H, x = perm[i];
                perm[i] = perm[j];
                perm[j] = x;
            }
        if (sc->work == W_PERM)
            for (i = 0; i < H; i++) nflows += add(s, i, perm[i], size, 0, MRC_SIM_NONE) != MRC_SIM_NONE;
        free(perm);
        break;
    }
    case W_INCAST: case W_VICTIM: {
        /* receiver host 0; senders spread over the other T0s / pods; victim into host 1 (same T0 as host 0) */
        uint32_t stride, avail = H - 2u - (sc->work == W_VICTIM ? 1u : 0u);
        if (o->hosts) n = o->hosts;
        if (n > avail) n = avail;
        stride = avail / n;
        /* the application knows its incast: each sender's QP carries the hint num_remote_recv_peers = n (P31) -
         * where the switches trim: on the drop-tail rows it made the lockout of docs/EVALUATION.md more frequent */
        for (i = 0; i < n; i++)
            nflows += add_hint(s, 2u + i * stride, 0, size, 0, MRC_SIM_NONE, o->no_hints || !c.trim ? 0u : n) !=
                      MRC_SIM_NONE;
        if (sc->work == W_VICTIM) {
            victim = add(s, H - 1u, 1, size, 200000, MRC_SIM_NONE);
            nflows += victim != MRC_SIM_NONE;
        }
        break;
    }
    case W_ALLTOALL: {
        uint32_t a, b, stride;
        if (o->hosts) n = o->hosts;
        if (n > H) n = H;
        stride = H / n;
        for (a = 0; a < n; a++)
            for (b = 0; b < n; b++)
                if (a != b) nflows += add(s, a * stride, b * stride, size, 0, MRC_SIM_NONE) != MRC_SIM_NONE;
        break;
    }
    case W_ALLREDUCE: {
        /* ring: step st, host i sends chunk to i+1 once it received step st-1 from i-1 */
        uint32_t st, steps, stride, *prev;
        uint64_t chunk;
        if (o->hosts && sc->topo == MRC_SIM_FATTREE) n = o->hosts;
        if (n > H) n = H;
        if (n < 2) n = 2;
        stride = H / n;
        steps = 2u * (n - 1u);
        chunk = (size + n - 1u) / n;
        prev = (uint32_t *)malloc((size_t)n * sizeof *prev);
        if (!prev) break;
        for (st = 0; st < steps; st++) {
            uint32_t *cur = (uint32_t *)malloc((size_t)n * sizeof *cur);
            if (!cur) break;
            for (i = 0; i < n; i++) {
                uint32_t after = st ? prev[(i + n - 1u) % n] : MRC_SIM_NONE;
                cur[i] = add(s, i * stride, ((i + 1u) % n) * stride, chunk, 0, after);
                nflows += cur[i] != MRC_SIM_NONE;
            }
            memcpy(prev, cur, (size_t)n * sizeof *prev);
            free(cur);
        }
        free(prev);
        break;
    }
    case W_RING: case W_A2A: { /* the first step of every participant; coll_done adds the others */
        uint32_t k, full;
        g.n = n > H ? H : n;
        if (o->hosts && sc->topo == MRC_SIM_FATTREE) g.n = o->hosts < H ? o->hosts : H;
        if (g.n < 2) g.n = 2;
        g.stride = H / g.n;
        full = sc->work == W_RING ? 2u * (g.n - 1u) : g.n - 1u;
        g.steps = o->steps ? o->steps : sc->steps ? sc->steps : full;
        if (g.steps > full) g.steps = full;
        g.bytes = sc->work == W_RING ? (size + g.n - 1u) / g.n : size;
        if (sc->work == W_A2A) { /* destination shifts 1..n-1 in a seeded order, the same for every participant */
            g.shift = (uint32_t *)malloc((size_t)full * sizeof *g.shift);
            if (!g.shift) break;
            for (k = 0; k < full; k++) g.shift[k] = k + 1u;
            for (k = full; k > 1; k--) {
                uint32_t j = rng_below(&rng, k), x = g.shift[k - 1u];
                g.shift[k - 1u] = g.shift[j];
                g.shift[j] = x;
            }
        }
        for (k = 0; k < (sc->work == W_RING ? 1u : A2A_WINDOW) && k < g.steps; k++)
            for (i = 0; i < g.n; i++) coll_add(s, &g, i, k);
        break;
    }
    case W_MATRIX:
        if (!o->matrix) {
            fprintf(stderr, "mrc_simrun: scenario matrix needs --matrix FILE\n");
            mrc_sim_destroy(s);
            return -2;
        }
        if (load_matrix(s, o->matrix, &nflows)) {
            mrc_sim_destroy(s);
            return -2;
        }
        break;
    default: break;
    }
    if (sc->work == W_SELFTEST) {
        int bad = mrc_sim_selftest(s, err, sizeof err);
        mrc_sim_config c2 = c;
        mrc_sim *s2;
        memset(r, 0, sizeof *r);
        snprintf(r->scen, sizeof r->scen, "%s", sc->name);
        c2.topo = MRC_SIM_MULTIPLANE;
        c2.planes = 4;
        c2.radix = 8;
        c2.hosts = 30; /* a partly filled last T0 */
        if (!bad && !mrc_sim_create(&s2, &c2, err, sizeof err)) {
            bad = mrc_sim_selftest(s2, err, sizeof err);
            mrc_sim_destroy(s2);
        }
        madd(&r->m, "selftest_ok", bad ? 0.0 : 1.0);
        if (bad) fprintf(stderr, "mrc_simrun: selftest: %s\n", err);
        mrc_sim_destroy(s);
        return 0;
    }
    /* faults */
    if (with_fault && sc->fault != F_NONE) {
        mrc_sim_fault f;
        uint32_t nc = mrc_sim_cables(s), nfab = 0, *fab = (uint32_t *)malloc((size_t)nc * sizeof *fab);
        mrc_sim_cable cb;
        if (!fab) return -1;
        for (i = 0; i < nc; i++)
            if (!mrc_sim_cable_get(s, i, &cb) && cb.tier >= 1) fab[nfab++] = i;
        for (i = nfab; i > 1; i--) { /* shuffle the fabric cables */
            uint32_t j = rng_below(&rng, i), x = fab[i - 1u];
            fab[i - 1u] = fab[j];
            fab[j] = x;
        }
        memset(&f, 0, sizeof f);
        f.at = sc->fault_at_ns;
        r->fault_us = (double)sc->fault_at_ns / 1e3;
        switch (sc->fault) {
        case F_BLACKHOLE: {
            uint32_t cnt = (uint32_t)((double)nfab * sc->fault_arg + 0.5);
            if (cnt < 1) cnt = 1;
            f.kind = MRC_SIM_FAULT_BLACKHOLE;
            for (i = 0; i < cnt && i < nfab; i++) {
                f.target = fab[i];
                (void)mrc_sim_add_fault(s, &f);
            }
            madd(&r->m, "blackholed_cables", (double)cnt);
            break;
        }
        case F_LOSS:
            f.kind = MRC_SIM_FAULT_LOSS;
            f.target = MRC_SIM_NONE;
            f.loss_ppm = (uint32_t)sc->fault_arg;
            (void)mrc_sim_add_fault(s, &f);
            break;
        case F_PLANE:
            f.kind = MRC_SIM_FAULT_PLANE_DOWN;
            f.port = 1;
            (void)mrc_sim_add_fault(s, &f);
            break;
        case F_HOST: /* host 0's receive side stalls: loss on all its ports at once */
            f.kind = MRC_SIM_FAULT_HOST_STALL;
            f.target = 0;
            f.period_ns = 20000;
            f.down_ns = 2000;
            f.until = f.at + 400000;
            (void)mrc_sim_add_fault(s, &f);
            break;
        case F_T1_BLACKHOLE: /* switch index of the first T1 of plane 1 (after the plane's T0s) */
            f.kind = MRC_SIM_FAULT_SWITCH_BLACKHOLE;
            f.target = mrc_sim_host_t0(s, H - 1u, 1) + 1u;
            (void)mrc_sim_add_fault(s, &f);
            break;
        case F_MIX: {
            uint32_t sw_t1 = mrc_sim_host_t0(s, 0, 1) + (sc->topo == MRC_SIM_FATTREE ? c.k * c.k / 2u : 0u);
            f.kind = MRC_SIM_FAULT_FLAP;
            f.target = fab[0];
            f.period_ns = 20000;
            f.down_ns = 5000;
            f.until = f.at + 200000;
            (void)mrc_sim_add_fault(s, &f);
            memset(&f, 0, sizeof f);
            f.at = sc->fault_at_ns;
            f.kind = MRC_SIM_FAULT_DEGRADE;
            f.target = fab[1 % nfab];
            f.rate_pct = 25;
            (void)mrc_sim_add_fault(s, &f);
            f.kind = MRC_SIM_FAULT_SWITCH_DOWN;
            f.target = sw_t1; /* an aggregation switch (fat tree) */
            f.until = f.at + 100000;
            (void)mrc_sim_add_fault(s, &f);
            f.kind = MRC_SIM_FAULT_LOSS;
            f.target = MRC_SIM_NONE;
            f.loss_ppm = 1000;
            f.until = 0;
            (void)mrc_sim_add_fault(s, &f);
            f.kind = MRC_SIM_FAULT_LINK_DOWN;
            f.target = fab[2 % nfab];
            f.until = f.at + 60000;
            (void)mrc_sim_add_fault(s, &f);
            f.kind = MRC_SIM_FAULT_BLACKHOLE;
            f.target = fab[3 % nfab];
            f.until = 0;
            (void)mrc_sim_add_fault(s, &f);
            f.kind = MRC_SIM_FAULT_PORT_DOWN;
            f.target = 3;
            f.port = 1;
            f.at = sc->fault_at_ns + 20000;
            f.until = f.at + 30000;
            (void)mrc_sim_add_fault(s, &f);
            break;
        }
        default: break;
        }
        free(fab);
    }

    w0 = wall_now();
    c0 = cpu_now();
    rc = mrc_sim_run(s, MRC_TIME_NEVER);
    wall = wall_now() - w0;
    cpu = cpu_now() - c0; /* the simulator is one thread: on a busy machine this, not wall_s, is the run's cost */
    if (pcapf) fclose(pcapf);
    free(g.shift);
    g.shift = (uint32_t *)0;
    if (rc < 0) {
        fprintf(stderr, "mrc_simrun: %s: internal simulator error\n", sc->name);
        mrc_sim_destroy(s);
        return -1;
    }
    mrc_sim_totals_get(s, &t);

    /* per-flow results */
    nf = mrc_sim_flows(s);
    if (g.work) nflows = nf; /* created during the run */
    fct = (double *)calloc(nf ? nf : 1u, sizeof *fct);
    if (!fct) return -1;
    {
        FILE *fc = (o->out && !keep) ? open_out(o, sc->name, with_fault ? "_flows.csv" : "_nofault_flows.csv")
                                     : (FILE *)0;
        if (fc)
            fputs("flow,src,dst,bytes,start_ns,fct_ns,tx_done_ns,ideal_ns,slowdown,status,tx_data,tx_rtx,tx_probes,"
                  "rto,tlp,rx_nack,rx_trimmed,rx_dup,ev_skip_req,ev_trims,ev_losses,ev_demoted,ev_withheld,ev_revived,"
                  "rtx_spurious,fabric_trims,fabric_drops,"
                  "bh_drops\n",
                  fc);
        for (i = 0; i < nf; i++) {
            mrc_sim_flow_result fr;
            double f_us, sl;
            (void)mrc_sim_flow_get(s, i, &fr);
            if (fr.start < first_start) first_start = fr.start;
            sum_rtx += (double)fr.tx_rtx;
            sum_data += (double)fr.tx_data;
            sum_nack += (double)fr.rx_nack;
            sum_rto += (double)fr.rto_fired;
            sum_tlp += (double)fr.tlp_fired;
            sum_probe += (double)fr.tx_probes;
            sum_bh += (double)fr.bh_drops;
            sum_skip += (double)fr.ev_skip_req;
            sum_demoted += (double)fr.ev_demoted;
            sum_host += (double)fr.ev_loss_host;
            if (fr.dst == 0) stall_demoted += (double)fr.ev_demoted; /* F_HOST stalls host 0 */
            sum_trim_seen += (double)fr.rx_trimmed;
            unique_pkts += (double)((fr.bytes + c.mtu - 1u) / c.mtu);
            if (fr.bh_drops) {
                mrc_time from = fr.bh_first > sc->fault_at_ns ? fr.bh_first : sc->fault_at_ns;
                double b = (double)(fr.bh_last - from) / 1e3;
                if (b > bypass) bypass = b;
            }
            if (fr.status == MRC_OK && fr.rx_done != MRC_TIME_NEVER && fr.tx_done != MRC_TIME_NEVER) {
                f_us = (double)(fr.rx_done - fr.start) / 1e3;
                sl = (double)(fr.rx_done - fr.start) / (double)fr.ideal_ns;
                fct[done++] = f_us;
                sum_gp += (double)fr.bytes * 8.0 / ((double)(fr.rx_done - fr.start) / 1e9) / (double)mrc_sim_host_rate(s);
                if (f_us > max_fct) max_fct = f_us;
                if (sl > max_slow) max_slow = sl;
                if (fr.rx_done > last_done) last_done = fr.rx_done;
                if (i == victim) {
                    madd(&r->m, "victim_fct_us", f_us);
                    madd(&r->m, "victim_share", 1.0 / sl);
                }
            } else {
                failed++;
                sl = 0.0;
            }
            if (fc)
                fprintf(fc, "%u,%u,%u,%llu,%llu,%lld,%lld,%llu,%.4f,%d,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,"
                            "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
                        i, fr.src, fr.dst, (unsigned long long)fr.bytes, (unsigned long long)fr.start,
                        fr.rx_done == MRC_TIME_NEVER ? -1LL : (long long)(fr.rx_done - fr.start),
                        fr.tx_done == MRC_TIME_NEVER ? -1LL : (long long)(fr.tx_done - fr.start),
                        (unsigned long long)fr.ideal_ns, sl, fr.status, (unsigned long long)fr.tx_data,
                        (unsigned long long)fr.tx_rtx, (unsigned long long)fr.tx_probes,
                        (unsigned long long)fr.rto_fired, (unsigned long long)fr.tlp_fired,
                        (unsigned long long)fr.rx_nack, (unsigned long long)fr.rx_trimmed,
                        (unsigned long long)fr.rx_dup, (unsigned long long)fr.ev_skip_req,
                        (unsigned long long)fr.ev_trims, (unsigned long long)fr.ev_losses,
                        (unsigned long long)fr.ev_demoted, (unsigned long long)fr.ev_withheld,
                        (unsigned long long)fr.ev_revived, (unsigned long long)fr.rtx_spurious,
                        (unsigned long long)fr.fabric_trims, (unsigned long long)fr.fabric_drops,
                        (unsigned long long)fr.bh_drops);
        }
        if (fc) fclose(fc);
    }
    qsort(fct, done, sizeof *fct, cmp_double);
    /* the reference ideal: the scenario's flow size over the longest path (fat tree 6 links, Clos 4) */
    ideal_ref = (double)mrc_sim_ideal_fct(s, 0, H - 1u, g.work ? g.bytes : size) / 1e3; /* a ring: its chunk */
    snprintf(r->scen, sizeof r->scen, "%s", sc->name);
    r->fct_us = fct;
    r->nfct = done;
    r->digest = t.digest;
    madd(&r->m, "hosts", (double)H);
    madd(&r->m, "planes", (double)mrc_sim_ports(s));
    madd(&r->m, "flows", (double)nflows);
    madd(&r->m, "flows_done", (double)done);
    madd(&r->m, "flows_failed", (double)failed);
    madd(&r->m, "conn_errors", (double)t.conn_errors);
    madd(&r->m, "place_bad", (double)t.place_bad);
    madd(&r->m, "place_dup", (double)t.place_dup);
    madd(&r->m, "size_bytes", (double)size);
    madd(&r->m, "base_rtt_us", (double)mrc_sim_base_rtt(s) / 1e3);
    madd(&r->m, "queue_kb", (double)mrc_sim_config_get(s)->queue_bytes / 1e3);
    madd(&r->m, "cwnd_kb", (double)mrc_sim_config_get(s)->cwnd_bytes / 1e3);
    madd(&r->m, "evs_per_qp",
         (double)(mrc_sim_config_get(s)->ev_paths ? mrc_sim_path_evs(s) : mrc_sim_config_get(s)->evs_per_qp));
    madd(&r->m, "ideal_us", ideal_ref);
    madd(&r->m, "fct_max_us", max_fct);
    madd(&r->m, "fct_p99_us", pct(fct, done, 0.99));
    madd(&r->m, "fct_p50_us", pct(fct, done, 0.50));
    madd(&r->m, "fct_max_over_ideal", ideal_ref > 0.0 ? max_fct / ideal_ref : 0.0);
    madd(&r->m, "slowdown_max", max_slow);
    madd(&r->m, "goodput_mean", done ? sum_gp / done : 0.0);
    madd(&r->m, "last_done_us", (double)last_done / 1e3);
    madd(&r->m, "tx_data", sum_data);
    madd(&r->m, "tx_rtx", sum_rtx);
    madd(&r->m, "rtx_frac", unique_pkts > 0.0 ? sum_rtx / unique_pkts : 0.0);
    madd(&r->m, "rx_nack", sum_nack);
    madd(&r->m, "rx_trimmed", sum_trim_seen);
    madd(&r->m, "rto_fired", sum_rto);
    madd(&r->m, "tlp_fired", sum_tlp);
    madd(&r->m, "probes", sum_probe);
    madd(&r->m, "ev_skip_req", sum_skip);
    madd(&r->m, "ev_demoted", sum_demoted);
    madd(&r->m, "ev_loss_host", sum_host);
    if (sc->fault == F_HOST) madd(&r->m, "stalled_rx_demoted", stall_demoted); /* EVs demoted by flows into it */
    madd(&r->m, "trims", (double)t.trims);
    madd(&r->m, "ecn_marks", (double)t.ecn_marks);
    madd(&r->m, "drop_queue", (double)t.drop_queue);
    madd(&r->m, "drop_prio", (double)t.drop_prio);
    madd(&r->m, "drop_blackhole", (double)t.drop_blackhole);
    madd(&r->m, "drop_down", (double)(t.drop_down + t.drop_nic_down));
    madd(&r->m, "drop_loss", (double)t.drop_loss);
    madd(&r->m, "drop_host", (double)t.drop_host);
    madd(&r->m, "drop_noroute", (double)(t.drop_noroute + t.drop_srv6));
    if (c.oracle_bypass || c.oracle_fault) madd(&r->m, "oracle_marks", (double)t.oracle_marks);
    madd(&r->m, "bh_data_drops", sum_bh);
    madd(&r->m, "bypass_us", bypass);
    madd(&r->m, "bypass_rtts", bypass / ((double)mrc_sim_base_rtt(s) / 1e3));
    madd(&r->m, "q_max_fabric_kb", (double)t.q_max_fabric / 1e3);
    madd(&r->m, "q_max_lasthop_kb", (double)t.q_max_lasthop / 1e3);
    madd(&r->m, "rx_rejected", (double)t.rx_rejected);
    madd(&r->m, "pkts_sent", (double)t.pkts_sent);
    madd(&r->m, "events", (double)t.events);
    madd(&r->m, "sim_us", (double)mrc_sim_now(s) / 1e3);
    madd(&r->m, "wall_s", wall);
    madd(&r->m, "cpu_s", cpu);
    { /* memory: the process's peak so far (a suite's runs share it), per host; the core's state per host */
        struct rusage ru;
        double rss = getrusage(RUSAGE_SELF, &ru) ? 0.0 : (double)ru.ru_maxrss * 1024.0;
        madd(&r->m, "peak_rss_mb", rss / 1e6);
        madd(&r->m, "bytes_per_host", rss / (double)H);
        madd(&r->m, "endpoint_bytes", (double)sizeof(mrc_endpoint));
        madd(&r->m, "qp_bytes", (double)sizeof(mrc_conn));
        madd(&r->m, "pkt_pool", (double)t.pkt_pool);
        madd(&r->m, "heap_cap", (double)t.heap_max);
    }
    /* EV state changes: the core reports them through trace ids beyond MRC_TRACE_STATE once path health lands */
    {
        double evtr = 0.0;
        unsigned id;
        for (id = MRC_TRACE_STATE + 1u; id < 32u; id++) evtr += (double)t.trace_count[id];
        madd(&r->m, "trace_ev_events", evtr);
        madd(&r->m, "trace_loss", (double)t.trace_count[MRC_TRACE_LOSS]);
    }
    if (sc->work == W_INCAST) { /* last completion against n x message on the wire at line rate */
        double lat = (double)mrc_sim_ideal_fct(s, 2, 0, size) / 1e3 -
                     (double)mrc_sim_wire_bytes(s, size) * 8.0 / (double)mrc_sim_host_rate(s) * 1e6;
        double ideal_in = (double)nflows * (double)mrc_sim_wire_bytes(s, size) * 8.0 /
                              (double)mrc_sim_host_rate(s) * 1e6 + lat;
        madd(&r->m, "incast_ideal_us", ideal_in);
        if (!failed) madd(&r->m, "incast_last_over_ideal", ((double)(last_done - first_start) / 1e3) / ideal_in);
    }
    if ((sc->work == W_ALLTOALL || sc->work == W_ALLREDUCE) && !failed) {
        /* all-to-all: every host sends (n-1) messages at its NIC rate; all-reduce: 2(n-1) dependent steps, each
         * the slowest ring edge's ideal */
        double ji = 0.0;
        uint32_t a2, pn = 0;
        for (a2 = 0; a2 < nf; a2++) {
            mrc_sim_flow_result fr;
            (void)mrc_sim_flow_get(s, a2, &fr);
            if (fr.src == 0) pn++;
        }
        if (sc->work == W_ALLTOALL) {
            ji = (double)pn * (double)mrc_sim_wire_bytes(s, size) * 8.0 / (double)mrc_sim_host_rate(s) * 1e6 +
                 (double)mrc_sim_ideal_fct(s, 0, H - 1u, 1) / 1e3;
        } else { /* the longest dependency chain: flow (i, s) waits for (i-1, s-1), so a chain walks the ring */
            mrc_sim_flow_result fr;
            uint32_t nring = nf / (pn ? pn : 1u), st2;
            for (a2 = 0; a2 < nring; a2++) {
                double sum = 0.0;
                for (st2 = 0; st2 < pn; st2++) {
                    (void)mrc_sim_flow_get(s, (a2 + st2) % nring, &fr);
                    sum += (double)fr.ideal_ns / 1e3;
                }
                if (sum > ji) ji = sum;
            }
        }
        madd(&r->m, "job_us", (double)last_done / 1e3);
        madd(&r->m, "job_ideal_us", ji);
        madd(&r->m, "job_over_ideal", (double)last_done / 1e3 / ji);
    }
    if (g.work) {
        /* the collective: completion (every flow started at its dependency; the first at 0) against its ideal.
         * Ring: step k of participant i waits for step k-1 of i-1, so a chain of dependencies walks the ring; the
         * ideal is the longest such chain of unloaded FCTs. Bus bandwidth = bytes each participant sent per second
         * = chunk x steps / completion (NCCL's busbw: algbw x 2(n-1)/n, the same for a whole ring). All-to-all:
         * each participant's messages back to back at its NIC rate plus one unloaded flight. */
        double job = (double)last_done / 1e3, ji = 0.0, rate = (double)mrc_sim_host_rate(s);
        double sent = (double)g.bytes * (double)g.steps * 8.0; /* bits each participant sent */
        uint32_t full = g.work == W_RING ? 2u * (g.n - 1u) : g.n - 1u;
        if (g.work == W_RING) {
            double *e = (double *)malloc((size_t)g.n * sizeof *e), tot = 0.0, win = 0.0;
            uint32_t q = g.steps / g.n, rem = g.steps % g.n, j;
            if (e) {
                for (j = 0; j < g.n; j++) {
                    e[j] = (double)mrc_sim_ideal_fct(s, j * g.stride, ((j + 1u) % g.n) * g.stride, g.bytes) / 1e3;
                    tot += e[j];
                }
                for (j = 0; j < rem; j++) win += e[j];
                for (j = 0; j < g.n; j++) { /* the chain from edge j: q whole turns and rem edges (sliding) */
                    if (tot * q + win > ji) ji = tot * q + win;
                    win += e[(j + rem) % g.n] - e[j];
                }
                free(e);
            }
        } else {
            ji = (double)g.steps * (double)mrc_sim_wire_bytes(s, g.bytes) * 8.0 / rate * 1e6 +
                 (double)mrc_sim_ideal_fct(s, 0, H - 1u, 1) / 1e3;
        }
        madd(&r->m, "participants", (double)g.n);
        madd(&r->m, g.work == W_RING ? "ring_steps" : "a2a_dests", (double)g.steps);
        madd(&r->m, g.work == W_RING ? "ring_steps_all" : "a2a_dests_all", (double)full);
        madd(&r->m, "flows_refused", (double)g.refused);
        madd(&r->m, "qp_waits", (double)t.qp_waits); /* starts that waited for a free QP slot on a host */
        if (!failed && !g.refused && job > 0.0 && ji > 0.0) {
            madd(&r->m, "job_us", job);
            madd(&r->m, "job_ideal_us", ji);
            madd(&r->m, "job_over_ideal", job / ji);
            if (g.work == W_RING) {
                madd(&r->m, "busbw_gbps", sent / (job * 1e3));
                madd(&r->m, "busbw_ideal_gbps", sent / (ji * 1e3));
                madd(&r->m, "busbw_over_nic", sent / (job * 1e-6) / rate);
                madd(&r->m, "algbw_gbps", sent / (job * 1e3) * (double)g.n / (double)full);
                madd(&r->m, "job_all_steps_us", job * (double)full / (double)g.steps); /* at the measured pace */
            } else {
                madd(&r->m, "a2a_goodput", sent / (job * 1e-6) / rate); /* per participant, x its NIC rate */
            }
        }
    }
    /* time series */
    {
        uint32_t nsmp = mrc_sim_samples(s), p, P = mrc_sim_ports(s);
        double dt = (double)c.sample_ns;
        FILE *fs = (o->out && !keep) ? open_out(o, sc->name, with_fault ? "_series.csv" : "_nofault_series.csv")
                                     : (FILE *)0;
        r->ns = nsmp;
        r->planes = P;
        r->st = (double *)calloc(nsmp + 1u, sizeof(double));
        r->sgp = (double *)calloc(nsmp + 1u, sizeof(double));
        r->sq = (double *)calloc(nsmp + 1u, sizeof(double));
        for (p = 0; p < P; p++) r->splane[p] = (double *)calloc(nsmp + 1u, sizeof(double));
        if (fs) {
            fputs("t_us,goodput_gbps,trims,drops,ecn_marks,q_fabric_max_kb,q_fabric_sum_kb,q_lasthop_max_kb,"
                  "active_flows",
                  fs);
            for (p = 0; p < P; p++) fprintf(fs, ",plane%u_gbps", p + 1u);
            fputc('\n', fs);
        }
        for (i = 0; i < nsmp; i++) {
            mrc_sim_sample m;
            memset(&m, 0, sizeof m);
            (void)mrc_sim_sample_get(s, i, &m);
            r->st[i] = (double)m.t / 1e3;
            r->sgp[i] = (double)m.placed * 8.0 / dt;
            r->sq[i] = (double)m.q_max / 1e3;
            for (p = 0; p < P; p++) r->splane[p][i] = (double)m.plane_bytes[p] * 8.0 / dt;
            if (fs) {
                fprintf(fs, "%.3f,%.3f,%llu,%llu,%llu,%.1f,%.1f,%.1f,%u", r->st[i], r->sgp[i],
                        (unsigned long long)m.trims, (unsigned long long)m.drops, (unsigned long long)m.marks,
                        (double)m.q_max / 1e3, (double)m.q_sum / 1e3, (double)m.q_lasthop_max / 1e3, m.active_flows);
                for (p = 0; p < P; p++) fprintf(fs, ",%.3f", r->splane[p][i]);
                fputc('\n', fs);
            }
        }
        if (fs) fclose(fs);
        if (sc->win_hi) { /* goodput in a window: bytes placed in [win_lo, win_hi) */
            double bytes = 0.0;
            for (i = 0; i < nsmp; i++)
                if (r->st[i] * 1e3 > (double)sc->win_lo && r->st[i] * 1e3 <= (double)sc->win_hi)
                    bytes += r->sgp[i] * dt / 8.0;
            madd(&r->m, "window_goodput_gbps", bytes * 8.0 / (double)(sc->win_hi - sc->win_lo));
        }
    }
    if (keep) *keep = s;
    else mrc_sim_destroy(s);
    return 0;
}

/* ---- output of one scenario ---------------------------------------------------------------------------------- */
static void print_json(FILE *f, const run *r, uint64_t seed) {
    unsigned i;
    fprintf(f, "{\"scenario\":\"%s\",\"seed\":%llu,\"digest\":\"%016llx\"", r->scen, (unsigned long long)seed,
            (unsigned long long)r->digest);
    for (i = 0; i < r->m.n; i++) fprintf(f, ",\"%s\":%.6g", r->m.name[i], r->m.v[i]);
    fputs("}\n", f);
}

static void print_human(FILE *f, const run *r) {
    double v;
    fprintf(f, "%-18s", r->scen);
    if (!mget(&r->m, "selftest_ok", &v)) {
        fprintf(f, " selftest %s\n", v > 0.5 ? "ok" : "FAILED");
        return;
    }
#define H_(name, fmt)                                                                                              \
    if (!mget(&r->m, name, &v)) fprintf(f, " " name "=" fmt, v);
    H_("flows_done", "%.0f")
    H_("flows_failed", "%.0f")
    H_("fct_max_us", "%.1f")
    H_("ideal_us", "%.1f")
    H_("fct_max_over_ideal", "%.3f")
    H_("goodput_mean", "%.3f")
    H_("rtx_frac", "%.3f")
    H_("trims", "%.0f")
    H_("conn_errors", "%.0f")
    H_("wall_s", "%.2f")
    H_("peak_rss_mb", "%.0f")
#undef H_
    fputc('\n', f);
}

/* FCT CDFs of permutation-like runs get the ideal as a dashed line; job-style runs (all-to-all, all-reduce,
 * incast) do not, their per-flow ideal is not the reference */
static int find_metric_flag(const metrics *m) {
    double v;
    return !mget(m, "job_us", &v) || !mget(m, "incast_ideal_us", &v) || !mget(m, "victim_share", &v);
}

#define CDF_POINTS 2048u /* a CDF of more flows is drawn at this many quantiles (the last one the slowest flow) */
static void fct_cdf_plot(const opts *o, const char *file, const char *title, run **rs, unsigned nr) {
    mrc_sim_series sr[8];
    double *ys[8], *xs[8];
    unsigned i;
    uint32_t j;
    FILE *f = open_out(o, file, ".svg");
    if (!f) return;
    memset(sr, 0, sizeof sr);
    for (i = 0; i < nr && i < 8; i++) {
        uint32_t n = rs[i]->nfct, m = n > CDF_POINTS ? CDF_POINTS : n;
        ys[i] = (double *)malloc((m + 1u) * sizeof(double));
        xs[i] = (double *)malloc((m + 1u) * sizeof(double));
        for (j = 0; ys[i] && xs[i] && j < m; j++) { /* quantile j + 1 of m: the flow at rank ceil((j + 1) n / m) */
            uint32_t k = (uint32_t)(((uint64_t)(j + 1u) * n + m - 1u) / m) - 1u;
            xs[i][j] = rs[i]->fct_us[k];
            ys[i][j] = (double)(k + 1u) / (double)n;
        }
        sr[i].name = rs[i]->scen;
        sr[i].x = xs[i];
        sr[i].y = ys[i];
        sr[i].n = ys[i] && xs[i] ? m : 0;
    }
    {
        double ideal = -1.0, tmp;
        if (nr && !mget(&rs[0]->m, "ideal_us", &tmp) && (mget(&rs[0]->m, "job_us", &tmp) || 1) &&
            !mget(&rs[0]->m, "ideal_us", &ideal) && !find_metric_flag(&rs[0]->m))
            ideal = ideal > 0.0 ? ideal : -1.0;
        else
            ideal = -1.0;
        (void)mrc_sim_svg_plot(f, title, "flow completion time (us); dashed: ideal", "fraction of flows", sr, i,
                               MRC_SIM_PLOT_STEP, ideal);
    }
    fclose(f);
    while (i--) {
        free(ys[i]);
        free(xs[i]);
    }
}

static void goodput_plot(const opts *o, const char *file, const char *title, run **rs, unsigned nr, double vline) {
    mrc_sim_series sr[8];
    unsigned i;
    FILE *f = open_out(o, file, ".svg");
    if (!f) return;
    for (i = 0; i < nr && i < 8; i++) {
        sr[i].name = rs[i]->scen;
        sr[i].x = rs[i]->st;
        sr[i].y = rs[i]->sgp;
        sr[i].n = rs[i]->ns;
    }
    (void)mrc_sim_svg_plot(f, title, "time (us)", "goodput, all receivers (Gb/s)", sr, i, MRC_SIM_PLOT_YZERO, vline);
    fclose(f);
}

static void plane_plot(const opts *o, const char *file, const char *title, const run *r) {
    mrc_sim_series sr[MRC_MAX_PORTS];
    static const char *const nm[] = {"plane 1", "plane 2", "plane 3", "plane 4",
                                     "plane 5", "plane 6", "plane 7", "plane 8"};
    unsigned p;
    FILE *f;
    if (r->planes < 1) return;
    f = open_out(o, file, ".svg");
    if (!f) return;
    for (p = 0; p < r->planes && p < MRC_MAX_PORTS; p++) {
        sr[p].name = p < 8 ? nm[p] : "plane";
        sr[p].x = r->st;
        sr[p].y = r->splane[p];
        sr[p].n = r->ns;
    }
    (void)mrc_sim_svg_plot(f, title, "time (us)", "bytes sent by host NIC ports (Gb/s)", sr, p, MRC_SIM_PLOT_YZERO,
                           r->fault_us > 0.0 ? r->fault_us : -1.0);
    fclose(f);
}

/* Run one scenario (for plane-failure scenarios: the no-failure run too, and the ratio). */
static int run_scenario(const scenario *sc, const opts *o, run *r, run *base) {
    int rc;
    memset(r, 0, sizeof *r);
    if (base) memset(base, 0, sizeof *base);
    rc = simulate(sc, o, 1, r, (mrc_sim **)0);
    if (rc) return rc;
    if (sc->win_hi && base) {
        double a, b;
        rc = simulate(sc, o, 0, base, (mrc_sim **)0);
        if (rc) return rc;
        snprintf(base->scen, sizeof base->scen, "%s (no failure)", sc->name);
        if (!mget(&r->m, "window_goodput_gbps", &a) && !mget(&base->m, "window_goodput_gbps", &b) && b > 0.0) {
            madd(&r->m, "nofail_window_goodput_gbps", b);
            madd(&r->m, "goodput_vs_nofail", a / b);
            if (sc->fault == F_PLANE) madd(&r->m, "goodput_vs_7_8", a / b / (1.0 - 1.0 / (double)r->planes));
        }
    }
    if (o->out) {
        FILE *j = open_out(o, sc->name, ".json");
        run *pair[2];
        if (j) {
            print_json(j, r, o->seed);
            fclose(j);
        }
        pair[0] = r;
        fct_cdf_plot(o, sc->name, sc->name, &r, 1);
        pair[1] = base;
        if (r->ns) {
            char fn[96];
            snprintf(fn, sizeof fn, "%s_goodput", sc->name);
            goodput_plot(o, fn, sc->desc, pair, base && base->ns ? 2u : 1u, r->fault_us > 0.0 ? r->fault_us : -1.0);
            if (r->planes > 1) {
                snprintf(fn, sizeof fn, "%s_planes", sc->name);
                plane_plot(o, fn, sc->name, r);
            }
        }
    }
    return 0;
}

/* ---- suites ---------------------------------------------------------------------------------------------------- */
/* A target row: 'why_miss' is printed when the median misses; 'uec' is the UEC reference simulator's number for the
 * same setup where one is published (docs/EVALUATION.md), else "". */
typedef struct target {
    const char *what, *scen, *metric, *op;
    double want;
    const char *fmt, *why_miss, *uec;
} target;

static const target targets[] = {
    {"permutation 1024 hosts x 2 MB, fat tree k=16: max FCT / ideal", "perm_ft", "fct_max_over_ideal", "<=", 1.10,
     "%.3f", "the tail is a few flows whose sprayed packets meet ECMP hot spots at T1/T2 in the first RTTs, before "
     "NSCC and the SKIP_ONCE avoidance react", "1.22 (NSCC + REPS)"},
    {"same traffic, 8-plane 2-tier Clos, ECMP: max FCT / ideal", "perm_mp", "fct_max_over_ideal", "<=", 1.10, "%.3f",
     "flows of 2.7 base RTTs: per-plane ECMP collisions at the T1s (16 EVs per plane hashed over 32 uplinks) set the "
     "pace before any feedback can act", ""},
    {"same, path-aware SRv6 (one EV per plane and T1): max FCT / ideal", "perm_mp_srv6", "fct_max_over_ideal", "<=",
     1.25, "%.3f", "flows of 2.7 base RTTs: the first RTTs' collisions at the last hop", ""},
    {"8-plane Clos, 16 MB per host (equal length in RTTs), ECMP: max FCT / ideal", "perm_mp_16m",
     "fct_max_over_ideal", "<=", 1.10, "%.3f", "static ECMP collisions at the T1s: 0.5 EV per uplink per plane", ""},
    {"8-plane Clos, 16 MB per host, path-aware SRv6: max FCT / ideal", "perm_mp_16m_srv6", "fct_max_over_ideal",
     "<=", 1.10, "%.3f", "", ""},
    {"1% fabric cables black-holed: every flow completes (all seeds)", "blackhole_ft", "flows_failed", "==", 0.0,
     "%.0f", "", ""},
    {"1% fabric cables black-holed: no QP error (all seeds)", "blackhole_ft", "conn_errors", "==", 0.0, "%.0f", "",
     ""},
    {"1% fabric cables black-holed, ECMP: bypass (RTTs)", "blackhole_ft", "bypass_rtts", "<=", 8.0, "%.1f",
     "the metric is first to last black-hole drop per flow: a dead cable carries many of a flow's 128 EVs and each "
     "ECMP-hashed EV fails on its own evidence the first time the rotation reaches it", ""},
    {"1% fabric cables black-holed, path-aware SRv6: bypass (RTTs)", "blackhole_ft_srv6", "bypass_rtts", "<=", 3.0,
     "%.1f", "each dead cable is a hop group; a group retires only on a confirmed loss of one of its EVs", ""},
    {"1% fabric cables black-holed, ECMP: max FCT / ideal", "blackhole_ft", "fct_max_over_ideal", "<=", 1.30, "%.3f",
     "as above: the flows with most EVs through dead cables lose one packet per such EV before it is demoted", ""},
    {"one plane down: goodput / (7/8 x no-failure goodput)", "planedown_mp", "goodput_vs_7_8", ">=", 0.95, "%.3f",
     "", ""},
    {"1% random loss everywhere: goodput / line rate", "loss_ft", "goodput_mean", ">=", 0.60, "%.3f", "", ""},
    {"incast 127->1 x 2 MB, trimming: last FCT / ideal", "incast_ft", "incast_last_over_ideal", "<=", 1.03, "%.3f",
     "127 senders against a 43-packet (1 BDP) last-hop buffer: the share of each is below one packet per RTT",
     "1.021 (NSCC)"},
    {"incast 127->1 x 2 MB, trimming: retransmissions / packets", "incast_ft", "rtx_frac", "<=", 0.30, "%.3f",
     "as above: trimmed packets are retransmitted", "1.17 (NSCC), 0.10 (RCCC)"},
    {"incast 7->1 + victim: victim share of its fair rate", "victim_ft", "victim_share", ">=", 0.90, "%.3f",
     "the incast senders load the T1->T0 links the victim shares", ""},
    {"simulator speed: 1024-host permutation wall time (s)", "perm_ft", "wall_s", "<=", 10.0, "%.2f",
     "machine slower than the reference", ""},
};

static int check_op(double v, const char *op, double want) {
    if (!strcmp(op, "<=")) return v <= want + 1e-12;
    if (!strcmp(op, ">=")) return v >= want - 1e-12;
    if (!strcmp(op, "==")) return v == want;
    return 0;
}

static const char *const full_suite[] = {"perm_ft", "perm_ft_1ev", "perm_ft_notrim", "perm_ft_srv6", "perm_mp",
                                         "perm_mp_srv6", "perm_mp_16m", "perm_mp_16m_srv6", "perm_mp_1ev",
                                         "blackhole_ft", "blackhole_ft_srv6", "t1_blackhole_mp",
                                         "t1_blackhole_mp_srv6", "planedown_mp", "loss_ft",
                                         "loss_ft_1ev", "incast_ft", "incast_ft_notrim", "incast_ft_cwnd1", "victim_ft",
                                         "victim_ft_1ev", "alltoall_ft", "allreduce_mp", "faults_ft"};
#define NFULL (sizeof full_suite / sizeof full_suite[0])

static run *find_run(run *rs, unsigned n, const char *name) {
    unsigned i;
    for (i = 0; i < n; i++)
        if (!strcmp(rs[i].scen, name)) return &rs[i];
    return (run *)0;
}

/* The targets' scenarios on the extra seeds (--seeds): only their metrics are kept (no files). */
typedef struct seedrun {
    const char *scen;
    uint64_t seed;
    metrics m;
} seedrun;

static int target_scen(const char *name) {
    unsigned i;
    for (i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (!strcmp(targets[i].scen, name)) return 1;
    return 0;
}

/* Median and worst of one target's metric over the seeds that produced it; 'worst' is the largest for "<=" and
 * "==" targets, the smallest for ">=". Returns the number of values. */
static unsigned target_stats(const target *t, const run *r, const seedrun *sr, unsigned nsr, uint64_t seed0,
                             double *med, double *worst, uint64_t *wseed) {
    double x[MAXSEEDS], v;
    unsigned n = 0, i, j;
    int lo = !strcmp(t->op, ">=");
    if (r && !mget(&r->m, t->metric, &v)) {
        x[n++] = v;
        *worst = v;
        *wseed = seed0;
    }
    for (i = 0; i < nsr && n < MAXSEEDS; i++)
        if (!strcmp(sr[i].scen, t->scen) && !mget(&sr[i].m, t->metric, &v)) {
            if (!n || (lo ? v < *worst : v > *worst)) {
                *worst = v;
                *wseed = sr[i].seed;
            }
            x[n++] = v;
        }
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            if (x[j] < x[i]) {
                v = x[i];
                x[i] = x[j];
                x[j] = v;
            }
    if (n) *med = (n & 1u) ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2.0;
    return n;
}

static int suite_full(const opts *o) {
    run rs[NFULL], bases[NFULL];
    static seedrun sr[NFULL * MAXSEEDS];
    unsigned i, nr = 0, nsr = 0, ns = o->nseeds ? o->nseeds : 1u, si;
    FILE *md, *jl;
    double t0 = wall_now();
    if (!o->out) {
        fprintf(stderr, "mrc_simrun: --suite full needs --out DIR\n");
        return 2;
    }
    jl = open_out(o, "results", ".jsonl");
    for (i = 0; i < NFULL; i++) {
        const scenario *sc = find_scenario(full_suite[i]);
        if (!o->quiet) fprintf(stderr, "[%5.0fs] running %s: %s\n", wall_now() - t0, sc->name, sc->desc);
        if (run_scenario(sc, o, &rs[nr], &bases[nr])) {
            fprintf(stderr, "mrc_simrun: scenario %s failed to run\n", sc->name);
            continue;
        }
        if (!o->quiet) print_human(stderr, &rs[nr]);
        if (jl) {
            print_json(jl, &rs[nr], o->seed);
            fflush(jl);
        }
        nr++;
    }
    /* the targets' scenarios on the other seeds: metrics only (the files above are the first seed's) */
    for (si = 1; si < ns; si++) {
        opts o2 = *o;
        o2.seed = o->seed + si;
        o2.out = (const char *)0;
        for (i = 0; i < NFULL; i++) {
            const scenario *sc = find_scenario(full_suite[i]);
            run r, b;
            if (!target_scen(full_suite[i])) continue;
            if (!o->quiet)
                fprintf(stderr, "[%5.0fs] seed %llu: %s\n", wall_now() - t0, (unsigned long long)o2.seed, sc->name);
            if (run_scenario(sc, &o2, &r, &b)) {
                fprintf(stderr, "mrc_simrun: scenario %s failed to run on seed %llu\n", sc->name,
                        (unsigned long long)o2.seed);
                continue;
            }
            if (jl) {
                print_json(jl, &r, o2.seed);
                fflush(jl);
            }
            sr[nsr].scen = full_suite[i];
            sr[nsr].seed = o2.seed;
            sr[nsr].m = r.m;
            nsr++;
            run_free(&r);
            run_free(&b);
        }
    }
    if (jl) fclose(jl);
    /* combined plots */
    {
        run *a[4];
        unsigned n = 0;
        if ((a[n] = find_run(rs, nr, "perm_ft"))) n++;
        if ((a[n] = find_run(rs, nr, "perm_ft_1ev"))) n++;
        if ((a[n] = find_run(rs, nr, "perm_ft_notrim"))) n++;
        if ((a[n] = find_run(rs, nr, "blackhole_ft"))) n++;
        fct_cdf_plot(o, "fct_cdf_fattree", "Permutation, 1024 hosts x 2 MB, fat tree k=16: FCT CDF", a, n);
        n = 0;
        if ((a[n] = find_run(rs, nr, "perm_mp"))) n++;
        if ((a[n] = find_run(rs, nr, "perm_mp_1ev"))) n++;
        fct_cdf_plot(o, "fct_cdf_multiplane", "Permutation, 1024 hosts x 2 MB, 8 planes: FCT CDF", a, n);
        n = 0;
        if ((a[n] = find_run(rs, nr, "perm_ft"))) n++;
        if ((a[n] = find_run(rs, nr, "blackhole_ft"))) n++;
        if ((a[n] = find_run(rs, nr, "loss_ft"))) n++;
        goodput_plot(o, "goodput_blackhole", "Fat tree permutation: 1% cables black-holed at 50 us / 1% loss", a, n,
                     50.0);
        for (i = 0; i < nr; i++)
            if (!strcmp(rs[i].scen, "planedown_mp")) {
                a[0] = &rs[i];
                a[1] = &bases[i];
                goodput_plot(o, "goodput_planedown", "8 planes, 256 hosts x 16 MB: plane 1 down at 50 us", a,
                             bases[i].ns ? 2u : 1u, 50.0);
                plane_plot(o, "planes_planedown", "Per-plane load, plane 1 down at 50 us", &rs[i]);
            } else if (!strcmp(rs[i].scen, "t1_blackhole_mp")) {
                plane_plot(o, "planes_t1_blackhole", "Per-plane load, a plane-1 T1 black-holes at 50 us", &rs[i]);
            }
    }
    /* summary.md */
    md = open_out(o, "summary", ".md");
    if (!md) return 1;
    if (ns > 1)
        fprintf(md, "# open MRC fabric simulator: results (targets over seeds %llu-%llu, every scenario on seed %llu)\n\n",
                (unsigned long long)o->seed, (unsigned long long)(o->seed + ns - 1u), (unsigned long long)o->seed);
    else
        fprintf(md, "# open MRC fabric simulator: results (seed %llu)\n\n", (unsigned long long)o->seed);
    fputs("Produced by `make sim` (`build/sim/mrc_simrun --suite full --seeds 10 --out sim/out`). Every number comes "
          "from the real `mrc.h` endpoints driven through `sim/mrc_sim.h`; the scenarios and the model are described "
          "in `sim/README.md`. A target is met when its median over the seeds is; \"all seeds\" targets must hold on "
          "every seed. Worst = the largest value (the smallest for a \">=\" target), with its seed.\n\n",
          md);
    fputs("## Targets\n\n| Target | Scenario | Median | Worst (seed) | Required | Result | UEC reference | "
          "Reason if missed |\n|---|---|---|---|---|---|---|---|\n",
          md);
    for (i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        const target *t = &targets[i];
        run *r = find_run(rs, nr, t->scen);
        double med = 0.0, worst = 0.0;
        uint64_t ws = 0;
        unsigned n = target_stats(t, r, sr, nsr, o->seed, &med, &worst, &ws);
        char a1[64], a2[64];
        int ok;
        if (!n) {
            fprintf(md, "| %s | `%s` | no value | - | %s %g | **MISS** | %s | scenario did not run or finish |\n",
                    t->what, t->scen, t->op, t->want, t->uec);
            continue;
        }
        snprintf(a1, sizeof a1, t->fmt, med);
        snprintf(a2, sizeof a2, t->fmt, worst);
        ok = check_op(!strcmp(t->op, "==") ? worst : med, t->op, t->want) && n == ns;
        fprintf(md, "| %s | `%s` | %s | %s (%llu) | %s %g | %s | %s | %s |\n", t->what, t->scen, a1, a2,
                (unsigned long long)ws, t->op, t->want, ok ? "pass" : "**MISS**", t->uec,
                ok ? "" : (n != ns ? "a seed gave no value (flows failed)" : t->why_miss));
    }
    fputs("\n## Every scenario\n\n| Scenario | Hosts | Flows done/total | Max FCT (us) | Ideal (us) | Max/ideal | "
          "p99 FCT (us) | Mean goodput (x line) | Rtx / pkts | Trims | NACKs rx | Drops (q/bh/loss/down) | "
          "QP errors | Wall (s) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
          md);
    for (i = 0; i < nr; i++) {
        const metrics *m = &rs[i].m;
        double v[20];
        static const char *const k[] = {"hosts",     "flows_done",   "flows",      "fct_max_us",     "ideal_us",
                                        "fct_max_over_ideal", "fct_p99_us", "goodput_mean", "rtx_frac", "trims",
                                        "rx_nack",   "drop_queue",   "drop_blackhole", "drop_loss", "drop_down",
                                        "conn_errors", "wall_s"};
        unsigned j;
        for (j = 0; j < sizeof k / sizeof k[0]; j++)
            if (mget(m, k[j], &v[j])) v[j] = 0.0;
        fprintf(md, "| `%s` | %.0f | %.0f/%.0f | %.1f | %.1f | %.3f | %.1f | %.3f | %.3f | %.0f | %.0f | "
                    "%.0f/%.0f/%.0f/%.0f | %.0f | %.2f |\n",
                rs[i].scen, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13],
                v[14], v[15], v[16]);
    }
    fputs("\n## Scenario-specific numbers\n\n", md);
    for (i = 0; i < nr; i++) {
        double v;
        if (!mget(&rs[i].m, "bypass_us", &v) && v > 0.0)
        {
            double a = 0.0, b = 0.0;
            (void)mget(&rs[i].m, "bh_data_drops", &a);
            (void)mget(&rs[i].m, "bypass_rtts", &b);
            fprintf(md, "- `%s`: %.0f data packets dropped in black holes; a flow's last such drop came %.1f us "
                        "(%.1f base RTTs) after its first (the bypass time)\n",
                    rs[i].scen, a, v, b);
        }
        if (!mget(&rs[i].m, "goodput_vs_nofail", &v)) {
            double a = 0.0, b = 0.0;
            (void)mget(&rs[i].m, "window_goodput_gbps", &a);
            (void)mget(&rs[i].m, "nofail_window_goodput_gbps", &b);
            fprintf(md, "- `%s`: goodput in the window after the failure %.0f Gb/s vs %.0f Gb/s without it "
                        "(ratio %.3f)\n",
                    rs[i].scen, a, b, v);
        }
        if (!mget(&rs[i].m, "victim_share", &v))
            fprintf(md, "- `%s`: victim flow got %.3f of its fair (line) rate\n", rs[i].scen, v);
        if (!mget(&rs[i].m, "incast_ideal_us", &v)) {
            double a = 0.0, b = 0.0, fl = 0.0, ce = 0.0;
            (void)mget(&rs[i].m, "rtx_frac", &b);
            (void)mget(&rs[i].m, "flows_failed", &fl);
            (void)mget(&rs[i].m, "conn_errors", &ce);
            if (!mget(&rs[i].m, "incast_last_over_ideal", &a))
                fprintf(md, "- `%s`: last completion %.3f x ideal (ideal %.1f us), retransmissions %.3f of packets\n",
                        rs[i].scen, a, v, b);
            else
                fprintf(md, "- `%s`: %.0f flows failed (%.0f QP errors); ideal %.1f us; retransmissions %.3f of "
                            "packets\n",
                        rs[i].scen, fl, ce, v, b);
        }
        if (!mget(&rs[i].m, "job_us", &v)) {
            double a = 0.0, b = 0.0;
            (void)mget(&rs[i].m, "job_ideal_us", &a);
            (void)mget(&rs[i].m, "job_over_ideal", &b);
            fprintf(md, "- `%s`: job completion %.1f us, ideal %.1f us (%.3f x)\n", rs[i].scen, v, a, b);
        }
    }
    fputs("\nPlots: `fct_cdf_fattree.svg`, `fct_cdf_multiplane.svg`, `goodput_blackhole.svg`, "
          "`goodput_planedown.svg`, `planes_planedown.svg`, `planes_t1_blackhole.svg`, and per scenario "
          "`<name>.svg` (FCT CDF), `<name>_goodput.svg`, `<name>_planes.svg`. Data: `<name>_flows.csv`, "
          "`<name>_series.csv`, `results.jsonl`.\n",
          md);
    fclose(md);
    fprintf(stderr, "mrc_simrun: suite done in %.0f s; wrote %s/summary.md\n", wall_now() - t0, o->out);
    for (i = 0; i < nr; i++) {
        run_free(&rs[i]);
        run_free(&bases[i]);
    }
    return 0;
}

/* Golden files: 'digest HEX' and 'check METRIC OP VALUE' lines. Invariants are exact; performance metrics have a
 * margin so that ordinary protocol changes pass and regressions fail. The digest is compared only with --strict:
 * the core changes under the simulator, and every change moves it. */
static int golden_path(const opts *o, const char *name, char *buf, size_t cap) {
    return snprintf(buf, cap, "%s/%s.txt", o->golden, name) >= (int)cap ? -1 : 0;
}

static void golden_write(const opts *o, const scenario *sc, const run *r) {
    char path[600];
    FILE *f;
    double v;
    if (golden_path(o, sc->name, path, sizeof path)) return;
    f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "mrc_simrun: cannot write %s\n", path);
        return;
    }
    fprintf(f, "# sim-quick golden for %s (seed %llu): %s\n# written by mrc_simrun --update-golden\n", sc->name,
            (unsigned long long)o->seed, sc->desc);
    fprintf(f, "digest %016llx\n", (unsigned long long)r->digest);
    if (!mget(&r->m, "selftest_ok", &v)) {
        fputs("check selftest_ok == 1\n", f);
    } else {
        fputs("check flows_failed == 0\ncheck conn_errors == 0\ncheck place_bad == 0\ncheck place_dup == 0\n", f);
        if (!mget(&r->m, "flows", &v)) fprintf(f, "check flows_done == %.0f\n", v);
        if (sc->fault == F_HOST) /* P39: a busy host's losses demote no EV of the flows into it */
            fputs("check stalled_rx_demoted == 0\ncheck ev_loss_host >= 1\ncheck drop_host >= 1\n", f);
        if (!mget(&r->m, "fct_max_over_ideal", &v)) fprintf(f, "check fct_max_over_ideal <= %.3f\n", v * 1.3 + 0.05);
        if (!mget(&r->m, "goodput_mean", &v)) fprintf(f, "check goodput_mean >= %.3f\n", v * 0.75);
        if (!mget(&r->m, "goodput_vs_nofail", &v)) fprintf(f, "check goodput_vs_nofail >= %.3f\n", v * 0.9);
        if (!mget(&r->m, "incast_last_over_ideal", &v))
            fprintf(f, "check incast_last_over_ideal <= %.3f\n", v * 1.2 + 0.05);
        if (!mget(&r->m, "victim_share", &v)) fprintf(f, "check victim_share >= %.3f\n", v * 0.75);
        if (!mget(&r->m, "job_us", &v)) fprintf(f, "check job_us <= %.1f\n", v * 1.3);
    }
    fclose(f);
}

static int golden_check(const opts *o, const scenario *sc, const run *r, char *why, size_t cap) {
    char path[600], line[256];
    FILE *f;
    int ok = 1;
    why[0] = 0;
    if (golden_path(o, sc->name, path, sizeof path) || !(f = fopen(path, "r"))) {
        snprintf(why, cap, "no golden file %.200s (run make sim-golden)", path);
        return 0;
    }
    while (fgets(line, sizeof line, f)) {
        char name[64], op[4];
        double want, v;
        unsigned long long dg;
        if (line[0] == '#') continue;
        if (sscanf(line, "digest %llx", &dg) == 1) {
            if (dg != r->digest) {
                if (o->strict) {
                    snprintf(why, cap, "digest %016llx != golden %016llx", (unsigned long long)r->digest, dg);
                    ok = 0;
                } else if (!o->quiet) {
                    fprintf(stderr, "  note: %s digest %016llx differs from golden %016llx (core or model changed; "
                                    "metrics still checked)\n",
                            sc->name, (unsigned long long)r->digest, dg);
                }
            }
        } else if (sscanf(line, "check %63s %3s %lf", name, op, &want) == 3) {
            if (mget(&r->m, name, &v)) {
                snprintf(why, cap, "metric %s missing", name);
                ok = 0;
            } else if (!check_op(v, op, want)) {
                snprintf(why, cap, "%s = %.4g, want %s %.4g", name, v, op, want);
                ok = 0;
            }
        }
        if (!ok) break;
    }
    fclose(f);
    return ok;
}

static int suite_quick(const opts *o) {
    unsigned i, pass = 0, fail = 0;
    FILE *jl = o->out ? open_out(o, "quick", ".jsonl") : (FILE *)0;
    if (!o->golden) {
        fprintf(stderr, "mrc_simrun: --suite quick needs --golden DIR\n");
        return 2;
    }
    for (i = 0; i < NSCEN; i++) {
        const scenario *sc = &scenarios[i];
        run r, r2, b;
        char why[256];
        int ok;
        double w0;
        if (!(sc->quick & 1)) continue;
        w0 = wall_now();
        if (run_scenario(sc, o, &r, &b)) {
            printf("FAIL %-14s could not run\n", sc->name);
            fail++;
            continue;
        }
        ok = 1;
        why[0] = 0;
        /* determinism: the same seed twice gives the same digest */
        if (simulate(sc, o, 1, &r2, (mrc_sim **)0) == 0) {
            if (r2.digest != r.digest) {
                snprintf(why, sizeof why, "not deterministic: digest %016llx then %016llx",
                         (unsigned long long)r.digest, (unsigned long long)r2.digest);
                ok = 0;
            }
            run_free(&r2);
        }
        if (ok && o->update_golden) golden_write(o, sc, &r);
        if (ok) ok = golden_check(o, sc, &r, why, sizeof why);
        if (jl) print_json(jl, &r, o->seed);
        printf("%s %-14s %s%s(%.2f s)\n", ok ? "PASS" : "FAIL", sc->name, why, why[0] ? " " : "", wall_now() - w0);
        fflush(stdout);
        if (ok) pass++;
        else fail++;
        run_free(&r);
        run_free(&b);
    }
    if (jl) fclose(jl);
    printf("sim-quick: %u passed, %u failed\n", pass, fail);
    return fail ? 1 : 0;
}

/* an EV scope of mrc_ev_policy by name, or -1 */
static int parse_scope(const char *v) {
    static const struct { const char *name; int scope; } t[] = {
        {"none", MRC_EV_SCOPE_NONE}, {"auto", MRC_EV_SCOPE_AUTO}, {"hashed", MRC_EV_SCOPE_HASHED},
        {"profile", MRC_EV_SCOPE_PROFILE}, {"all", MRC_EV_SCOPE_ALL}};
    size_t i;
    for (i = 0; v && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(v, t[i].name)) return t[i].scope;
    return -1;
}

/* ---- main ------------------------------------------------------------------------------------------------------- */
int main(int argc, char **argv) {
    opts o;
    int i;
    memset(&o, 0, sizeof o);
    o.seed = 1;
    o.routing = -1;
    o.group_retire = -1;
    o.lh_mark = -1;
    o.reo_timer = -1;
    o.ev_policy = o.ev_recycle = o.ev_sweep = o.suspect_hold = o.confirm_late = -1;
    o.tlp_copies = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : (const char *)0;
        uint64_t x;
#define NEEDV()                                                                                                    \
    do {                                                                                                           \
        if (!v) return bad_arg(a, v, "a value");                                                                    \
        i++;                                                                                                       \
    } while (0)
        if (!strcmp(a, "--list")) o.list = 1;
        else if (!strcmp(a, "--json")) o.json = 1;
        else if (!strcmp(a, "--quiet")) o.quiet = 1;
        else if (!strcmp(a, "--no-trim")) o.no_trim = 1;
        else if (!strcmp(a, "--no-recycle")) o.ev_recycle = MRC_EV_SCOPE_NONE;
        else if (!strcmp(a, "--no-lasthop-dscp")) o.no_lh_dscp = 1;
        else if (!strcmp(a, "--no-hints")) o.no_hints = 1;
        else if (!strcmp(a, "--update-golden")) o.update_golden = 1;
        else if (!strcmp(a, "--strict")) o.strict = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--scenario")) { NEEDV(); o.scenario = v; }
        else if (!strcmp(a, "--suite")) {
            NEEDV();
            if (strcmp(v, "full") && strcmp(v, "quick")) return bad_arg(a, v, "full or quick");
            o.suite = v;
        } else if (!strcmp(a, "--out")) { NEEDV(); o.out = v; }
        else if (!strcmp(a, "--golden")) { NEEDV(); o.golden = v; }
        else if (!strcmp(a, "--matrix")) { NEEDV(); o.matrix = v; }
        else if (!strcmp(a, "--pcap")) { NEEDV(); o.pcap = v; }
        else if (!strcmp(a, "--seed")) {
            NEEDV();
            if (parse_u64(v, 0, UINT64_MAX, &o.seed, 0)) return bad_arg(a, v, "an unsigned integer");
        } else if (!strcmp(a, "--seeds")) {
            NEEDV();
            if (parse_u64(v, 1, MAXSEEDS, &x, 0)) return bad_arg(a, v, "a seed count in 1..32");
            o.nseeds = (uint32_t)x;
        } else if (!strcmp(a, "--hosts")) {
            NEEDV();
            if (parse_u64(v, 2, 65536, &x, 0)) return bad_arg(a, v, "an integer in 2..65536");
            o.hosts = (uint32_t)x;
        } else if (!strcmp(a, "--steps")) {
            NEEDV();
            if (parse_u64(v, 1, UINT32_MAX, &x, 0)) return bad_arg(a, v, "a positive integer");
            o.steps = (uint32_t)x;
        } else if (!strcmp(a, "--k")) {
            NEEDV();
            if (parse_u64(v, 4, 64, &x, 0) || (x & 1u)) return bad_arg(a, v, "an even integer in 4..64");
            o.k = (uint32_t)x;
        } else if (!strcmp(a, "--planes")) {
            NEEDV();
            if (parse_u64(v, 1, MRC_MAX_PORTS, &x, 0)) return bad_arg(a, v, "an integer in 1..8");
            o.planes = (uint32_t)x;
        } else if (!strcmp(a, "--radix")) {
            NEEDV();
            if (parse_u64(v, 4, 1024, &x, 0) || (x & 1u)) return bad_arg(a, v, "an even integer in 4..1024");
            o.radix = (uint32_t)x;
        } else if (!strcmp(a, "--size")) {
            NEEDV();
            if (parse_u64(v, 1, MRC_MAX_MSG_LEN, &o.size, 1)) return bad_arg(a, v, "bytes in 1..2Gi (k/M/G, Ki/Mi/Gi)");
        } else if (!strcmp(a, "--host-mbps")) {
            NEEDV();
            if (parse_u64(v, 1000, 100000, &o.host_mbps, 0)) return bad_arg(a, v, "Mb/s in 1000..100000");
        } else if (!strcmp(a, "--evs")) {
            NEEDV();
            if (parse_u64(v, 1, MRC_MAX_EVS, &x, 0)) return bad_arg(a, v, "an integer in 1..MRC_MAX_EVS");
            o.evs = (uint32_t)x;
        } else if (!strcmp(a, "--routing")) {
            NEEDV();
            if (!strcmp(v, "ecmp")) o.routing = MRC_SIM_ROUTE_ECMP;
            else if (!strcmp(v, "srv6")) o.routing = MRC_SIM_ROUTE_SRV6;
            else if (!strcmp(v, "srv6-paths")) o.routing = 2;
            else return bad_arg(a, v, "ecmp, srv6 or srv6-paths");
        } else if (!strcmp(a, "--no-ev-groups")) {
            o.no_ev_groups = 1;
        } else if (!strcmp(a, "--oracle-bypass")) {
            o.oracle_bypass = 1;
        } else if (!strcmp(a, "--oracle-fault")) {
            o.oracle_fault = 1;
        } else if (!strcmp(a, "--ev-hashed")) {
            o.ev_hashed = 1;
        } else if (!strcmp(a, "--group-retire")) {
            NEEDV();
            if (!strcmp(v, "alone")) o.group_retire = MRC_EV_RETIRE_ALONE;
            else if (!strcmp(v, "at-once")) o.group_retire = MRC_EV_RETIRE_AT_ONCE;
            else if (!strcmp(v, "second")) o.group_retire = MRC_EV_RETIRE_SECOND;
            else return bad_arg(a, v, "alone, at-once or second");
        } else if (!strcmp(a, "--ev-policy")) {
            NEEDV();
            if (!strcmp(v, "default")) o.ev_policy = MRC_EV_PRESET_DEFAULT;
            else if (!strcmp(v, "rotation")) o.ev_policy = MRC_EV_PRESET_ROTATION;
            else if (!strcmp(v, "ecmp")) o.ev_policy = MRC_EV_PRESET_ECMP;
            else if (!strcmp(v, "paths")) o.ev_policy = MRC_EV_PRESET_PATHS;
            else return bad_arg(a, v, "default, rotation, ecmp or paths");
        } else if (!strcmp(a, "--lh-mark")) {
            NEEDV();
            if (parse_u64(v, 0, 255, &x, 0)) return bad_arg(a, v, "base RTTs in 0..255");
            o.lh_mark = (int)x;
        } else if (!strcmp(a, "--reorder-timer")) {
            NEEDV();
            if (parse_u64(v, 0, 64, &x, 0)) return bad_arg(a, v, "quarters of the reordering slack in 0..64");
            o.reo_timer = (int)x;
        } else if (!strcmp(a, "--ev-sweep") || !strcmp(a, "--suspect-hold") || !strcmp(a, "--confirm-late") ||
                   !strcmp(a, "--ev-recycle")) {
            int sc_ = parse_scope(v);
            NEEDV();
            if (sc_ < 0) return bad_arg(a, v, "an EV scope: none, auto, hashed, profile or all");
            if (!strcmp(a, "--ev-sweep")) o.ev_sweep = sc_;
            else if (!strcmp(a, "--ev-recycle")) o.ev_recycle = sc_;
            else if (a[2] == 's') o.suspect_hold = sc_;
            else o.confirm_late = sc_;
        } else if (!strcmp(a, "--tlp-copies")) {
            NEEDV();
            if (parse_u64(v, 1, 2, &x, 0)) return bad_arg(a, v, "1 or 2");
            o.tlp_copies = (int)x;
        } else if (!strcmp(a, "--cwnd")) {
            NEEDV();
            o.cwnd_set = 1;
            if (!strcmp(v, "unlimited")) o.cwnd = MRC_SIM_NONE;
            else if (parse_u64(v, 1, 0xFFFFFFF0u, &o.cwnd, 1)) return bad_arg(a, v, "bytes or 'unlimited'");
        } else if (!strcmp(a, "--reorder-slack-us")) {
            NEEDV();
            if (parse_u64(v, 1, 1000000, &x, 0)) return bad_arg(a, v, "microseconds in 1..1000000");
            o.slack_ns = x * 1000u;
        } else if (!strcmp(a, "--sample-us")) {
            NEEDV();
            if (parse_u64(v, 1, 1000000, &x, 0)) return bad_arg(a, v, "microseconds in 1..1000000");
            o.sample_ns = x * 1000u;
        } else if (!strcmp(a, "--pcap-hosts")) {
            const char *p = v;
            NEEDV();
            while (p && *p && o.n_pcap < MRC_SIM_MAX_PCAP_HOSTS) {
                char *end;
                unsigned long h;
                errno = 0;
                h = strtoul(p, &end, 10);
                if (errno || end == p || (*end && *end != ',')) return bad_arg(a, v, "host ids like 0,5,17");
                o.pcap_hosts[o.n_pcap++] = (uint32_t)h;
                p = *end ? end + 1 : end;
            }
        } else {
            fprintf(stderr, "mrc_simrun: unknown option '%s' (try --help)\n", a);
            return 2;
        }
#undef NEEDV
    }
    if (o.list) { /* every scenario; with --suite full, the full suite's alone (the standard runner's: tools/sim_seeds.sh) */
        unsigned k;
        if (o.suite && !strcmp(o.suite, "full")) {
            for (k = 0; k < NFULL; k++) printf("%-18s %s\n", full_suite[k], find_scenario(full_suite[k])->desc);
            return 0;
        }
        for (k = 0; k < NSCEN; k++) printf("%-18s %s%s\n", scenarios[k].name, (scenarios[k].quick & 1) ? "[quick] " : "",
                                           scenarios[k].desc);
        return 0;
    }
    if (o.out && mkdir_p(o.out)) {
        fprintf(stderr, "mrc_simrun: cannot create %s: %s\n", o.out, strerror(errno));
        return 1;
    }
    if (o.suite) return !strcmp(o.suite, "full") ? suite_full(&o) : suite_quick(&o);
    if (!o.scenario) {
        fprintf(stderr, "mrc_simrun: give --scenario NAME, --suite full|quick or --list\n");
        return 2;
    }
    {
        const scenario *sc = find_scenario(o.scenario);
        run r, b;
        int rc;
        double v;
        if (!sc) {
            fprintf(stderr, "mrc_simrun: unknown scenario '%s' (see --list)\n", o.scenario);
            return 2;
        }
        if (o.pcap && !o.n_pcap) {
            fprintf(stderr, "mrc_simrun: --pcap needs --pcap-hosts A,B,...\n");
            return 2;
        }
        rc = run_scenario(sc, &o, &r, &b);
        if (rc) return rc == -2 ? 2 : 1;
        if (o.json) print_json(stdout, &r, o.seed);
        else print_human(stdout, &r);
        rc = (!mget(&r.m, "flows_failed", &v) && v > 0.0) || (!mget(&r.m, "selftest_ok", &v) && v < 0.5) ||
             (!mget(&r.m, "place_bad", &v) && v > 0.0);
        run_free(&r);
        run_free(&b);
        return rc;
    }
}
