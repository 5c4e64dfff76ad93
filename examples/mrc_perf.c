/* mrc_perf.c - RDMA Write bandwidth test for open MRC over the Linux UDP port, modelled on perftest's ib_write_bw.
 *
 *   server:  mrc_perf [options]
 *   client:  mrc_perf [options] SERVER
 *
 * The client connects to the server over a small TCP side channel (like perftest), the two exchange QPNs, PSNs,
 * rkeys, region addresses, EV/CC profile IDs and per-plane UDP addresses, move their QPs RESET -> INIT -> RTR ->
 * RTS, and the sender(s) stream RDMA Writes (or Write-with-Immediates) into the peer's registered region. Every
 * byte is checked by the receiver against a seeded pattern as the core places it (the region is registered
 * MRC_ACCESS_EXTERNAL and the core's placement hook verifies and copies each packet, like a NIC's DMA engine), and
 * every message is tracked until complete, so a run only reports success when the receiver saw every byte of every
 * message exactly once and bit-exact. --raw replaces MRC by a blast of plain UDP datagrams of the same size over the
 * same sockets and batching: the baseline for the goodput ratio. See ports/udp/README.md.
 *
 * Carriers (examples/perf_carrier.h): UDP sockets by default (ports/udp); --dpdk "EAL ARGS" runs the same test over
 * DPDK ethdevs (ports/dpdk, builds with -DMRC_PERF_DPDK) and --ibv DEV over ibverbs (ports/ibverbs, -DMRC_PERF_IBV),
 * with the same flags, report and verification; both ends must use the same carrier.
 *
 * Exit status: 0 success (data verified); 1 run failed (peer, network, verification); 2 usage error.
 */
#define _GNU_SOURCE
/* --pcap (examples/perf_pcap.inc): the core's two packet entry points are renamed here, and perf_pcap.inc defines
   mrc_endpoint_poll_tx / mrc_endpoint_recv as wrappers that capture and call them, so the packets of every carrier's
   adapter (they call those two) are captured at one place */
#define mrc_endpoint_poll_tx perf_core_poll_tx
#define mrc_endpoint_recv perf_core_recv
#define MRC_IMPLEMENTATION
#include "../mrc.h"
#undef mrc_endpoint_poll_tx
#undef mrc_endpoint_recv
#include "../ports/udp/mrc_udp.h"
#include "perf_carrier.h"
#define MRC_FRAME_STATIC
#define MRC_FRAME_IMPLEMENTATION
#include "../ports/common/mrc_frame.h"
#include "perf_report.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PERF_VERSION "1"
#define PAT_LEN 262139u                   /* period of the verification pattern: a prime, so no power-of-two
                                             misplacement lines up with it, and small enough to stay in L2 */
#define RING_LEN (256u << 10)             /* host memory the receiver copies placed data into (perftest reuses
                                             one message-sized buffer; this is 4 x 64 KiB and stays in L2) */
#define TRACK_LEN 16384u                  /* messages tracked at once by the receiver */
#define MAX_SIZE (16u << 20)
#define REGION_LEN (1ull << 50)           /* registered region: never wraps within a run */
#define BIN_NS 1000000ull                 /* time series bins: 1 ms */
#define MAX_BINS 700000u                  /* 700 s */
#define EV_FMT_ID 0x55ull
#define EV_PROF_ID 0x4D52432D55445000ull  /* "MRC-UDP" */

/* ---- options ------------------------------------------------------------------------------------------------ */
typedef struct opts {
    const char *server;       /* NULL: server mode */
    const char *bind_addr;
    const char *plane_addrs;
    unsigned tcp_port;
    uint64_t size, iters;
    double duration;          /* seconds, 0 = use iters */
    unsigned qps, depth, mtu, planes, evs, min_active;
    int min_active_set;
    int imm, bidir, raw, json, busy_poll, no_tos, no_ecn, fam, verbose;
    int iters_set, duration_set, size_set; /* given on the command line (contradictions are errors) */
    /* perftest's ib_write_bw interface */
    int report_gbits;         /* --report_gbits: Gb/sec; default MB/sec (2^20 bytes a second), as perftest */
    int sweep;                /* -a: sizes 2 B .. 8 MiB, one run each */
    int run_inf;              /* --run_infinitely: send until SIGINT/SIGTERM, a result row every -D seconds */
    int tos;                  /* -T: ToS byte (DSCP = tos >> 2) of data packets; -1: the core's defaults */
    unsigned gid_index, ib_port, sl;
    int gid_set;
    const char *json_file;    /* --out_json / --out_json_file: the JSON report also written to this file */
    const char *trace_file;   /* --trace (builds with MRC_ENABLE_TRACE) */
    const char *device;       /* -d: udp, dpdk, or an RDMA device */
    char eal_buf[4096];       /* the EAL options before "--" */
    char ibv_buf[256];        /* -d DEV -i PORT -x GID as an --ibv spec */
    char mrc_opts[512];       /* the DPDK carrier's --mrc-* options given as mrc_perf options */
    char dpdk_buf[4700];      /* --dpdk's string or the EAL options, then the --mrc-* options */
    const char *dpdk_eal;     /* --dpdk "EAL ARGS": the DPDK carrier */
    const char *ibv_dev;      /* --ibv DEV: the ibverbs carrier */
    const char *stall_log;    /* --stall-log: every in-order delivery stall > 1 ms, CLOCK_REALTIME */
    const char *pcap_file;    /* --pcap: every MRC packet sent and received (examples/perf_pcap.inc) */
    uint32_t pcap_snap;       /* --pcap-snap: bytes kept per frame, 0 = whole frames */
    unsigned batch, sack_every, ack_every, sack_delay_us;
    int udp_port, ev_port;    /* -1: role default */
    int cc;                   /* MRC_CC_ALGO_* */
    uint64_t cwnd, rate_mbps, base_rtt_ns;
    uint64_t seed;
    uint64_t report_every_ms;
    double timeout, connect_timeout, accept_timeout;
    /* impairment */
    unsigned nrules;
    mrc_udp_impair_rule rule[MRC_UDP_MAX_RULES];
    int bh_plane;             /* --blackhole-plane, 0 none */
    double bh_at_ms, bh_for_ms;
    int bh_evs_set;
    unsigned bh_ev_lo, bh_ev_hi;
    uint32_t drop_ppm, dup_ppm, trim_ppm;
    uint64_t delay_us, jitter_us;
    uint64_t plane_rate_mbps, plane_queue;
    uint64_t sndbuf, rcvbuf;  /* socket buffers, 0 = adapter default */
    int any_impair_flag;
} opts;

static const char *prog = "mrc_perf";

static void die_usage(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (try --help)\n");
    exit(2);
}

static void usage(void) {
    printf(
        "usage: mrc_perf [options]            server\n"
        "       mrc_perf [options] SERVER     client (the client's test parameters are used by both sides)\n"
        "\n"
        "test (ib_write_bw style):\n"
        "  -s, --size BYTES        message size, 1..16M, K/M suffixes (default 65536)\n"
        "  -n, --iters N           messages per QP (default 5000)\n"
        "  -D, --duration SEC      send for SEC seconds instead of -n\n"
        "  -q, --qps N             QPs (default 1, max %u)\n"
        "  -t, --tx-depth N        writes posted per QP (default 32, max %u)\n"
        "  -m, --mtu N             256, 512, 1024, 2048 or 4096 (default 4096)\n"
        "      --imm               every write is a Write-with-Immediate (the receiver posts receives)\n"
        "      --bidir             both sides write\n"
        "      --raw               baseline: plain UDP datagrams of the same size over the same sockets, no MRC\n"
        "      --seed N            seed of PSNs, data pattern and impairments (default 1)\n"
        "perftest (ib_write_bw) options:\n"
        "  -a, --all               every size from 2 B to 8 MiB, one run each (both sides give -a)\n"
        "  -b, --bidirectional     both sides write (= --bidir)\n"
        "      --report_gbits      BW in Gb/sec (default MB/sec, 2^20 bytes a second, as perftest)\n"
        "      --run_infinitely    send until SIGINT/SIGTERM, a result row every -D seconds (default 5)\n"
        "  -d, --ib-dev DEV        the carrier: udp (default), dpdk (EAL options before --), or an RDMA device\n"
        "  -i, --ib-port N         the RDMA device's port (default 1)\n"
        "  -x, --gid-index N       the RDMA device's GID index\n"
        "  -T, --tos N             ToS byte of data packets (DSCP = N >> 2; default: the core's DSCP classes)\n"
        "  -S, --sl N              accepted (0..15); Ethernet carriers have no service level: use -T\n"
        "  -c, --connection RC     MRC is a reliable connection: RC only\n"
        "  -F, --CPU-freq          accepted (no CPU frequency check here)\n"
        "      --out_json          also write the JSON report to mrc_perf_out.json\n"
        "      --out_json_file F   also write the JSON report to F (-a: one line per size)\n"
        "  -V, --version           print the version\n"
        "  refused with the reason: -R (rdma_cm), -c UC/UD/XRC/DC, --verb send/read/atomic, -A, -o\n"
        "  long options take --name=value as well as --name value\n"
"carrier (both sides the same; default: UDP sockets):\n"
"  mrc_perf [EAL options] -- [options]   DPDK ethdevs, one per plane in port-id order, as testpmd (e.g.\n"
"                          mrc_perf --no-huge --no-pci -m 256 --vdev=net_af_packet0,iface=veth1 ... -- -D 3 ...);\n"
"                          --plane-addrs gives the IPs; --mrc-idle-sleep-us=N, --mrc-zero-copy=0|1, --mrc-mbufs=N\n"
"                          go after the -- (%s)\n"
"      --dpdk \"EAL ARGS\"  the same, the EAL options in one word (older form)\n"
"      --ibv DEV           an RDMA device: raw Ethernet QPs, or UD QPs where the provider has none (%s)\n"
        , (unsigned)MRC_MAX_CONNS, (unsigned)MRC_MAX_SQ,
#ifdef MRC_PERF_DPDK
        "built in",
#else
        "not in this build: DPDK was not installed",
#endif
#ifdef MRC_PERF_IBV
        "built in"
#else
        "not in this build: libibverbs was not installed"
#endif
    );
    printf(
        "transport:\n"
        "  -p, --port N            TCP port of the side channel (default 18515)\n"
        "  -4, -6                  IPv4 (default) or IPv6\n"
        "      --bind ADDR         server: listen address (default any)\n"
        "      --planes N          planes (UDP sockets/addresses), 1..%u (default 8)\n"
        "      --evs N             EVs in all (UDP source ports), a multiple of planes, up to 256 (default 128)\n"
        "      --plane-addrs A,B.. this side's address per plane (default: the side channel's local address)\n"
        "      --udp-port N        first UDP receive port (plane p uses N+p-1; default server 4791, client any)\n"
        "      --ev-port N         first EV source port (default server 20000, client 20256)\n"
        "      --min-active N      EVs that keep carrying data whatever the losses (default evs/8, the core's AUTO)\n"
        "      --batch N           sendmmsg/recvmmsg batch, 1..64 (default 32)\n"
        "      --sndbuf B, --rcvbuf B   UDP socket buffers (default 1M per socket / 8M per plane receive socket)\n"
        "      --busy-poll         never sleep in epoll\n"
        "      --no-tos, --no-ecn  do not set DSCP / do not send ECT(0)\n"
        "      --cc nscc|fixed|none congestion control (default nscc)\n"
        "      --cwnd BYTES        window of --cc fixed (default 1M)\n"
        "      --rate-gbps G       NSCC line rate over all planes (default 25)\n"
        "      --base-rtt-us U     NSCC base RTT (default 200)\n"
        "      --sack-every N      responder SACKs every N data packets (default 4)\n"
        "      --sack-delay-us U   longest a coalesced SACK waits (default 4)\n"
        "      --ack-every N       requester sets the ack-request bit every N data packets (default 0: on the last\n"
        "                          packet of each message)\n"
        "impairment (client only; both sides apply it to what they transmit, seeded by --seed):\n"
        "      --blackhole-plane P --at MS [--for MS]   silently drop everything on plane P from MS on\n"
        "      --blackhole-evs LO-HI  only EVs LO..HI of each (or of the black-holed) plane\n"
        "      --drop PPM, --dup PPM, --trim PPM         random loss / duplication / trimming, parts per million\n"
        "      --delay-us U, --jitter-us U               extra delay (reorders across EVs)\n"
        "      --plane-rate-mbps R [--plane-queue BYTES] link model: each plane serializes at R Mb/s behind a\n"
        "                          drop-tail queue (default 256K), like a NIC port at line rate\n"
        "      --impair SPEC       a rule: plane=P,evs=LO-HI,at=MS,for=MS,drop=PPM,dup=PPM,trim=PPM,delay=US,jitter=US\n"
        "output and limits:\n"
        "      --json              print a JSON summary instead of the table (docs/mrc_perf.1, JSON OUTPUT)\n"
        "      --report-every MS   a progress line every MS (default: a live line on a terminal)\n"
        "      --timeout SEC       fail when nothing moves for SEC seconds (default 5)\n"
        "      --connect-timeout SEC   client: keep trying to reach the server this long (default 5)\n"
        "      --accept-timeout SEC    server: wait this long for a client (default 0 = forever)\n"
        "  -v, --verbose           adapter and core counters in the summary\n"
        "      --stall-log FILE    receiver: log every in-order delivery stall over 1 ms as 'start_realtime_ns\n"
        "                          duration_ns' lines (failover measurements)\n"
        "      --trace FILE        write the core's trace (time_ns id a b per line; MRC_ENABLE_TRACE builds only)\n"
        "      --pcap FILE         write every MRC packet this side sends and receives to FILE (pcap, Ethernet/IP/UDP\n"
        "                          4791 frames with the EV as source port and an ICRC; any carrier), for Wireshark\n"
        "                          with tools/wireshark/mrc.lua\n"
        "      --pcap-snap BYTES   keep only the first BYTES of each frame (default: whole frames)\n",
        (unsigned)MRC_UDP_MAX_PLANES);
}

static int parse_u64s(const char *s, uint64_t lo, uint64_t hi, int suffix, uint64_t *out) {
    char *end;
    unsigned long long v;
    if (!s || !*s || *s == '-') return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno) return -1;
    if (suffix && (*end == 'K' || *end == 'k')) v <<= 10, end++;
    else if (suffix && (*end == 'M' || *end == 'm')) v <<= 20, end++;
    else if (suffix && (*end == 'G' || *end == 'g')) v <<= 30, end++;
    if (*end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}
static uint64_t opt_u64(const char *o, const char *v, uint64_t lo, uint64_t hi, int suffix) {
    uint64_t x;
    if (!v) die_usage("option %s needs a value", o);
    if (parse_u64s(v, lo, hi, suffix, &x))
        die_usage("option %s needs an integer in %llu..%llu, got '%s'", o, (unsigned long long)lo,
                  (unsigned long long)hi, v);
    return x;
}
static double opt_dbl(const char *o, const char *v, double lo, double hi) {
    char *end;
    double x;
    if (!v) die_usage("option %s needs a value", o);
    errno = 0;
    x = strtod(v, &end);
    if (errno || *end || end == v || !(x >= lo && x <= hi)) die_usage("option %s needs a number in %g..%g, got '%s'", o, lo, hi, v);
    return x;
}

static int parse_rule(const char *spec, mrc_udp_impair_rule *r) {
    char buf[256], *save = NULL, *tok;
    memset(r, 0, sizeof *r);
    r->all_evs = 1;
    if (strlen(spec) >= sizeof buf) return -1;
    strcpy(buf, spec);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        uint64_t v;
        if (!eq) return -1;
        *eq++ = 0;
        if (!strcmp(tok, "plane")) {
            if (parse_u64s(eq, 1, MRC_UDP_MAX_PLANES, 0, &v)) return -1;
            r->planes |= 1u << (v - 1u);
        } else if (!strcmp(tok, "evs")) {
            unsigned lo, hi;
            char extra;
            if (sscanf(eq, "%u-%u%c", &lo, &hi, &extra) != 2 || lo > hi || hi > 255) return -1;
            r->all_evs = 0;
            r->ev_lo = (uint16_t)lo;
            r->ev_hi = (uint16_t)hi;
        } else {
            double d;
            char *end;
            errno = 0;
            d = strtod(eq, &end);
            if (errno || *end || end == eq || d < 0) return -1;
            if (!strcmp(tok, "at")) r->start_ns = (uint64_t)(d * 1e6);
            else if (!strcmp(tok, "for")) r->end_ns = (uint64_t)(d * 1e6); /* made absolute below */
            else if (!strcmp(tok, "drop") && d <= MRC_UDP_PPM) r->drop_ppm = (uint32_t)d;
            else if (!strcmp(tok, "dup") && d <= MRC_UDP_PPM) r->dup_ppm = (uint32_t)d;
            else if (!strcmp(tok, "trim") && d <= MRC_UDP_PPM) r->trim_ppm = (uint32_t)d;
            else if (!strcmp(tok, "delay") && d <= 1e6) r->delay_ns = (uint32_t)(d * 1e3);
            else if (!strcmp(tok, "jitter") && d <= 1e6) r->jitter_ns = (uint32_t)(d * 1e3);
            else return -1;
        }
    }
    if (r->end_ns) r->end_ns += r->start_ns;
    return 0;
}

static void parse_args(int argc, char **argv, opts *o) {
    int i;
    memset(o, 0, sizeof *o);
    o->tcp_port = 18515;
    o->size = 65536;
    o->iters = 5000;
    o->qps = 1;
    o->depth = 32;
    o->mtu = 4096;
    o->planes = 8;
    o->evs = 128;
    o->batch = 32;
    o->sack_every = 4;
    o->sack_delay_us = 4;
    o->udp_port = o->ev_port = -1;
    o->cc = MRC_CC_ALGO_NSCC;
    o->cwnd = 1u << 20;
    o->rate_mbps = 25000;
    o->base_rtt_ns = 200000;
    o->seed = 1;
    o->timeout = 5;
    o->connect_timeout = 5;
    o->fam = AF_INET;
    o->tos = -1;
    o->ib_port = 1;
    /* testpmd's form: mrc_perf [EAL options] -- [mrc_perf options]: the words before a bare "--" go to DPDK's EAL */
    for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
    }
    if (i < argc) {
        size_t l = 0;
        int k;
        if (i == 1) die_usage("'--' with no EAL options before it (mrc_perf [EAL options] -- [mrc_perf options])");
#ifndef MRC_PERF_DPDK
        die_usage("EAL options before '--' need the DPDK carrier, and this mrc_perf was built without DPDK "
                  "(apt-get install dpdk-dev libdpdk-dev; make)");
#endif
        for (k = 1; k < i; k++) {
            if (strpbrk(argv[k], " \t'\"")) die_usage("EAL option '%s' holds white space or quotes", argv[k]);
            if (!strcmp(argv[k], "--dpdk"))
                die_usage("--dpdk before '--': give the EAL options either before '--' or in --dpdk \"...\", not both");
            if (l + strlen(argv[k]) + 2u > sizeof o->eal_buf) die_usage("EAL options too long (at most %u bytes)",
                                                                        (unsigned)sizeof o->eal_buf - 1u);
            l += (size_t)snprintf(o->eal_buf + l, sizeof o->eal_buf - l, "%s%s", l ? " " : "", argv[k]);
        }
        o->dpdk_eal = o->eal_buf;
        argv += i;
        argc -= i;
    }
    for (i = 1; i < argc; i++) {
        char name[64];
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL, *eqv = NULL;
        int used = 1; /* consumed the value */
        /* perftest's long options take --name=value as well as --name value */
        if (a[0] == '-' && a[1] == '-' && (eqv = strchr(a, '=')) != NULL && (size_t)(eqv - a) < sizeof name &&
            strncmp(a, "--mrc-", 6)) {
            memcpy(name, a, (size_t)(eqv - a));
            name[eqv - a] = 0;
            a = name;
            v = eqv + 1;
        } else {
            eqv = NULL;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            exit(0);
        } else if (!strcmp(a, "-s") || !strcmp(a, "--size")) o->size = opt_u64(a, v, 1, MAX_SIZE, 1), o->size_set = 1;
        else if (!strcmp(a, "-n") || !strcmp(a, "--iters")) o->iters = opt_u64(a, v, 1, 1000000000, 0), o->iters_set = 1;
        else if (!strcmp(a, "-D") || !strcmp(a, "--duration")) o->duration = opt_dbl(a, v, 0.01, 600), o->duration_set = 1;
        else if (!strcmp(a, "-d") || !strcmp(a, "--ib-dev")) {
            if (!v || !*v) die_usage("option %s needs a device: udp, dpdk, or an RDMA device (e.g. mlx5_0)", a);
            o->device = v;
        } else if (!strcmp(a, "-x") || !strcmp(a, "--gid-index")) {
            o->gid_index = (unsigned)opt_u64(a, v, 0, 255, 0);
            o->gid_set = 1;
        } else if (!strcmp(a, "-i") || !strcmp(a, "--ib-port")) o->ib_port = (unsigned)opt_u64(a, v, 1, 255, 0);
        else if (!strcmp(a, "-S") || !strcmp(a, "--sl")) o->sl = (unsigned)opt_u64(a, v, 0, 15, 0);
        else if (!strcmp(a, "-T") || !strcmp(a, "--tos")) o->tos = (int)opt_u64(a, v, 0, 255, 0);
        else if (!strcmp(a, "-c") || !strcmp(a, "--connection")) {
            if (!v) die_usage("option %s needs a connection type", a);
            if (strcmp(v, "RC") && strcmp(v, "rc"))
                die_usage("-c %s: MRC is a reliable connection: it has RC's semantics and only -c RC is accepted", v);
        } else if (!strcmp(a, "--out_json_file")) {
            if (!v || !*v) die_usage("option %s needs a file name", a);
            o->json_file = v;
        } else if (!strcmp(a, "--verb")) {
            if (!v) die_usage("option %s needs a value", a);
            if (strcmp(v, "write") && strcmp(v, "WRITE"))
                die_usage("--verb %s: MRC carries RDMA Write and Write-with-Immediate only (--imm); SEND, READ and "
                          "atomics are not in its protocol", v);
        }
        else if (!strcmp(a, "-q") || !strcmp(a, "--qps")) o->qps = (unsigned)opt_u64(a, v, 1, MRC_MAX_CONNS, 0);
        else if (!strcmp(a, "-t") || !strcmp(a, "--tx-depth")) o->depth = (unsigned)opt_u64(a, v, 1, MRC_MAX_SQ, 0);
        else if (!strcmp(a, "-m") || !strcmp(a, "--mtu")) {
            o->mtu = (unsigned)opt_u64(a, v, 256, 4096, 0);
            if (o->mtu & (o->mtu - 1u)) die_usage("option %s needs 256, 512, 1024, 2048 or 4096", a);
        } else if (!strcmp(a, "-p") || !strcmp(a, "--port")) o->tcp_port = (unsigned)opt_u64(a, v, 1, 65535, 0);
        else if (!strcmp(a, "--planes")) o->planes = (unsigned)opt_u64(a, v, 1, MRC_UDP_MAX_PLANES, 0);
        else if (!strcmp(a, "--evs")) o->evs = (unsigned)opt_u64(a, v, 1, MRC_UDP_MAX_EVS, 0);
        else if (!strcmp(a, "--min-active")) {
            o->min_active = (unsigned)opt_u64(a, v, 0, MRC_UDP_MAX_EVS, 0);
            o->min_active_set = 1;
        } else if (!strcmp(a, "--plane-addrs")) {
            if (!v) die_usage("option %s needs a value", a);
            o->plane_addrs = v;
        } else if (!strcmp(a, "--trace")) {
            if (!v) die_usage("option %s needs a value", a);
#ifndef MRC_ENABLE_TRACE
            die_usage("--trace needs a build with -DMRC_ENABLE_TRACE (make build/mrc_perf_trace)");
#endif
            o->trace_file = v;
        } else if (!strcmp(a, "--dpdk")) {
            if (!v) die_usage("option %s needs a value", a);
#ifndef MRC_PERF_DPDK
            die_usage("--dpdk: this mrc_perf was built without DPDK (apt-get install dpdk-dev libdpdk-dev; make)");
#endif
            if (o->dpdk_eal) die_usage("--dpdk and EAL options before '--': give the EAL options once");
            o->dpdk_eal = v;
        } else if (!strcmp(a, "--ibv")) {
            if (!v) die_usage("option %s needs a value", a);
#ifndef MRC_PERF_IBV
            die_usage("--ibv: this mrc_perf was built without ibverbs (apt-get install libibverbs-dev; make)");
#endif
            o->ibv_dev = v;
        } else if (!strcmp(a, "--stall-log")) {
            if (!v) die_usage("option %s needs a value", a);
            o->stall_log = v;
        } else if (!strcmp(a, "--pcap")) {
            if (!v) die_usage("option %s needs a value", a);
            o->pcap_file = v;
        } else if (!strcmp(a, "--pcap-snap")) {
            o->pcap_snap = (uint32_t)opt_u64(a, v, 64, 65535, 0);
        } else if (!strcmp(a, "--bind")) {
            if (!v) die_usage("option %s needs a value", a);
            o->bind_addr = v;
        } else if (!strcmp(a, "--udp-port")) o->udp_port = (int)opt_u64(a, v, 1, 65535, 0);
        else if (!strcmp(a, "--ev-port")) o->ev_port = (int)opt_u64(a, v, 1, 65535, 0);
        else if (!strcmp(a, "--sndbuf")) o->sndbuf = opt_u64(a, v, 4096, 1u << 30, 1);
        else if (!strcmp(a, "--rcvbuf")) o->rcvbuf = opt_u64(a, v, 4096, 1u << 30, 1);
        else if (!strcmp(a, "--batch")) o->batch = (unsigned)opt_u64(a, v, 1, MRC_UDP_BATCH, 0);
        else if (!strcmp(a, "--sack-every")) o->sack_every = (unsigned)opt_u64(a, v, 1, 64, 0);
        else if (!strcmp(a, "--ack-every")) o->ack_every = (unsigned)opt_u64(a, v, 0, 1024, 0);
        else if (!strcmp(a, "--sack-delay-us")) o->sack_delay_us = (unsigned)opt_u64(a, v, 1, 100000, 0);
        else if (!strcmp(a, "--cc")) {
            if (!v) die_usage("option %s needs a value", a);
            if (!strcmp(v, "nscc")) o->cc = MRC_CC_ALGO_NSCC;
            else if (!strcmp(v, "fixed")) o->cc = MRC_CC_ALGO_FIXED;
            else if (!strcmp(v, "none")) o->cc = MRC_CC_ALGO_NONE;
            else die_usage("option --cc needs nscc, fixed or none, got '%s'", v);
        } else if (!strcmp(a, "--cwnd")) o->cwnd = opt_u64(a, v, 4096, 1u << 30, 1);
        else if (!strcmp(a, "--rate-gbps")) o->rate_mbps = (uint64_t)(opt_dbl(a, v, 0.1, 3200) * 1000.0);
        else if (!strcmp(a, "--base-rtt-us")) o->base_rtt_ns = (uint64_t)(opt_dbl(a, v, 1, 100000) * 1000.0);
        else if (!strcmp(a, "--seed")) o->seed = opt_u64(a, v, 0, UINT64_MAX, 0);
        else if (!strcmp(a, "--report-every")) o->report_every_ms = opt_u64(a, v, 10, 3600000, 0);
        else if (!strcmp(a, "--timeout")) o->timeout = opt_dbl(a, v, 0.1, 3600);
        else if (!strcmp(a, "--connect-timeout")) o->connect_timeout = opt_dbl(a, v, 0.1, 3600);
        else if (!strcmp(a, "--accept-timeout")) o->accept_timeout = opt_dbl(a, v, 0, 86400);
        else if (!strcmp(a, "--blackhole-plane")) {
            o->bh_plane = (int)opt_u64(a, v, 1, MRC_UDP_MAX_PLANES, 0);
            o->any_impair_flag = 1;
        } else if (!strcmp(a, "--at")) o->bh_at_ms = opt_dbl(a, v, 0, 3600000);
        else if (!strcmp(a, "--for")) o->bh_for_ms = opt_dbl(a, v, 0.001, 3600000);
        else if (!strcmp(a, "--blackhole-evs")) {
            char extra;
            if (!v || sscanf(v, "%u-%u%c", &o->bh_ev_lo, &o->bh_ev_hi, &extra) != 2 || o->bh_ev_lo > o->bh_ev_hi ||
                o->bh_ev_hi > 255)
                die_usage("option %s needs LO-HI (EV indexes within a plane)", a);
            o->bh_evs_set = 1;
            o->any_impair_flag = 1;
        } else if (!strcmp(a, "--drop")) o->drop_ppm = (uint32_t)opt_u64(a, v, 0, MRC_UDP_PPM, 0), o->any_impair_flag = 1;
        else if (!strcmp(a, "--dup")) o->dup_ppm = (uint32_t)opt_u64(a, v, 0, MRC_UDP_PPM, 0), o->any_impair_flag = 1;
        else if (!strcmp(a, "--trim")) o->trim_ppm = (uint32_t)opt_u64(a, v, 0, MRC_UDP_PPM, 0), o->any_impair_flag = 1;
        else if (!strcmp(a, "--plane-rate-mbps")) o->plane_rate_mbps = opt_u64(a, v, 1, 1000000, 0), o->any_impair_flag = 1;
        else if (!strcmp(a, "--plane-queue")) o->plane_queue = opt_u64(a, v, 8192, 1u << 30, 1), o->any_impair_flag = 1;
        else if (!strcmp(a, "--delay-us")) o->delay_us = opt_u64(a, v, 0, 1000000, 0), o->any_impair_flag = 1;
        else if (!strcmp(a, "--jitter-us")) o->jitter_us = opt_u64(a, v, 0, 1000000, 0), o->any_impair_flag = 1;
        else if (!strcmp(a, "--impair")) {
            if (!v) die_usage("option %s needs a value", a);
            if (o->nrules >= MRC_UDP_MAX_RULES) die_usage("at most %u impairment rules", (unsigned)MRC_UDP_MAX_RULES);
            if (parse_rule(v, &o->rule[o->nrules])) die_usage("bad --impair rule '%s'", v);
            o->nrules++;
            o->any_impair_flag = 1;
        } else {
            used = 0;
            if (eqv) die_usage("option %s takes no value", a);
            if (!strcmp(a, "--imm")) o->imm = 1;
            else if (!strcmp(a, "--bidir") || !strcmp(a, "-b") || !strcmp(a, "--bidirectional")) o->bidir = 1;
            else if (!strcmp(a, "--raw")) o->raw = 1;
            else if (!strcmp(a, "--json")) o->json = 1;
            else if (!strcmp(a, "--report_gbits")) o->report_gbits = 1;
            else if (!strcmp(a, "-a") || !strcmp(a, "--all")) o->sweep = 1;
            else if (!strcmp(a, "--run_infinitely")) o->run_inf = 1;
            else if (!strcmp(a, "--out_json")) o->json_file = o->json_file ? o->json_file : "mrc_perf_out.json";
            else if (!strcmp(a, "-F") || !strcmp(a, "--CPU-freq")) { /* perftest's cpufreq warning: none here */
            } else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
                printf("mrc_perf %s (open MRC %s, wire version %u, side channel protocol %s)\n", MRC_VERSION_STRING,
                       MRC_VERSION_STRING, (unsigned)MRC_WIRE_VERSION, PERF_VERSION);
                exit(0);
            } else if (!strcmp(a, "-R") || !strcmp(a, "--rdma_cm"))
                die_usage("%s: MRC connects its QPs over mrc_perf's TCP side channel (perftest's default exchange); "
                          "rdma_cm is not supported", a);
            else if (!strcmp(a, "-A") || !strcmp(a, "--atomic_type") || !strcmp(a, "-o") || !strcmp(a, "--outs"))
                die_usage("%s: MRC carries RDMA Write and Write-with-Immediate only; READ and atomics are not in its "
                          "protocol", a);
            else if (!strcmp(a, "--busy-poll")) o->busy_poll = 1;
            else if (!strcmp(a, "--no-tos")) o->no_tos = 1;
            else if (!strcmp(a, "--no-ecn")) o->no_ecn = 1;
            else if (!strcmp(a, "-4")) o->fam = AF_INET;
            else if (!strcmp(a, "-6")) o->fam = AF_INET6;
            else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) o->verbose = 1;
            else if (!strncmp(a, "--mrc-", 6)) { /* the DPDK carrier's options (examples/perf_dpdk.inc) */
                size_t l = strlen(o->mrc_opts);
                if (l + strlen(a) + 2u > sizeof o->mrc_opts) die_usage("too many --mrc- options");
                snprintf(o->mrc_opts + l, sizeof o->mrc_opts - l, " %s", a);
            } else if (a[0] == '-' && a[1]) die_usage("unknown option '%s'", a);
            else if (o->server) die_usage("more than one server address ('%s', '%s')", o->server, a);
            else o->server = a;
            continue;
        }
        if (used && !eqv) i++;
    }
    {   /* perftest's binaries for the verbs MRC does not carry */
        const char *b = strrchr(argv[0], '/');
        b = b ? b + 1 : argv[0];
        if (!strncmp(b, "ib_send_", 8) || !strncmp(b, "ib_read_", 8) || !strncmp(b, "ib_atomic_", 10))
            die_usage("run as %s: MRC carries RDMA Write and Write-with-Immediate only; SEND, READ and atomics are not "
                      "in its protocol", b);
    }
    if (o->iters_set && o->duration_set)
        die_usage("-n and -D contradict each other: -n N sends N messages per QP, -D SEC sends for SEC seconds; "
                  "give one");
    if (o->run_inf && o->iters_set)
        die_usage("--run_infinitely and -n contradict each other: it sends until interrupted, a result every -D "
                  "seconds");
    if (o->sweep && o->size_set) die_usage("-a and -s contradict each other: -a runs every size from 2 B to 8 MiB");
    if (o->sweep && o->run_inf) die_usage("-a and --run_infinitely contradict each other: a sweep ends");
    if (o->run_inf && !o->duration_set) o->duration = 5; /* perftest: a result row every 5 s */
    if (o->device) {
        if (!strcmp(o->device, "udp")) {
            if (o->dpdk_eal || o->ibv_dev) die_usage("-d udp but another carrier was chosen (--dpdk, --ibv or EAL options)");
        } else if (!strcmp(o->device, "dpdk")) {
#ifndef MRC_PERF_DPDK
            die_usage("-d dpdk: this mrc_perf was built without DPDK (apt-get install dpdk-dev libdpdk-dev; make)");
#endif
            if (!o->dpdk_eal) die_usage("-d dpdk needs the EAL options: mrc_perf [EAL options] -- -d dpdk [options]");
        } else {
#ifndef MRC_PERF_IBV
            die_usage("-d %s: not udp or dpdk, so an RDMA device, and this mrc_perf was built without ibverbs "
                      "(apt-get install libibverbs-dev; make)", o->device);
#endif
            if (o->ibv_dev) die_usage("-d %s and --ibv %s: choose one", o->device, o->ibv_dev);
            if (strpbrk(o->device, ",: ")) die_usage("-d %s: a device name (use -i for the port, -x for the GID index)",
                                                     o->device);
            snprintf(o->ibv_buf, sizeof o->ibv_buf, "%s:%u%s", o->device, o->ib_port, "");
            if (o->gid_set)
                snprintf(o->ibv_buf + strlen(o->ibv_buf), sizeof o->ibv_buf - strlen(o->ibv_buf), ",gid=%u",
                         o->gid_index);
            o->ibv_dev = o->ibv_buf;
        }
    }
    if (!o->ibv_dev && o->ib_port != 1)
        die_usage("-i %u: the %s carrier has one port per plane (-i 1); ports are a device's (-d DEV)", o->ib_port,
                  o->dpdk_eal ? "DPDK" : "UDP");
    if (!o->ibv_dev && o->gid_set)
        fprintf(stderr, "%s: note: -x %u applies to RDMA devices (-d DEV); the %s carrier has no GID table\n", prog,
                o->gid_index, o->dpdk_eal ? "DPDK" : "UDP");
    if (o->tos >= 0 && o->no_tos) die_usage("-T and --no-tos contradict each other");
    if (o->run_inf && o->bidir) die_usage("--run_infinitely with -b is not supported: the server's sending would end");
    if (o->mrc_opts[0]) {
        if (!o->dpdk_eal) die_usage("%s: a DPDK carrier option, and no DPDK carrier was chosen", o->mrc_opts + 1);
        if ((size_t)snprintf(o->dpdk_buf, sizeof o->dpdk_buf, "%s%s", o->dpdk_eal, o->mrc_opts) >= sizeof o->dpdk_buf)
            die_usage("EAL and --mrc- options too long");
        o->dpdk_eal = o->dpdk_buf;
    }
    if (o->evs % o->planes) die_usage("--evs %u is not a multiple of --planes %u", o->evs, o->planes);
    if (o->evs > MRC_MAX_EVS) die_usage("--evs at most %u", (unsigned)MRC_MAX_EVS);
    if (o->min_active_set && o->min_active > o->evs) die_usage("--min-active must be at most --evs");
    if (o->bh_plane && o->bh_plane > (int)o->planes) die_usage("--blackhole-plane %d but only %u planes", o->bh_plane, o->planes);
    if (!o->bh_plane && o->bh_evs_set) {
        /* EVs of every plane */
    }
    if (o->bh_plane || o->bh_evs_set) {
        mrc_udp_impair_rule *r;
        if (o->nrules >= MRC_UDP_MAX_RULES) die_usage("too many impairment rules");
        r = &o->rule[o->nrules++];
        memset(r, 0, sizeof *r);
        r->planes = o->bh_plane ? 1u << (o->bh_plane - 1) : 0u;
        r->all_evs = !o->bh_evs_set;
        r->ev_lo = (uint16_t)o->bh_ev_lo;
        r->ev_hi = (uint16_t)o->bh_ev_hi;
        r->start_ns = (uint64_t)(o->bh_at_ms * 1e6);
        r->end_ns = o->bh_for_ms > 0 ? r->start_ns + (uint64_t)(o->bh_for_ms * 1e6) : 0;
        r->drop_ppm = MRC_UDP_PPM;
    }
    if (o->drop_ppm || o->dup_ppm || o->trim_ppm || o->delay_us || o->jitter_us) {
        mrc_udp_impair_rule *r;
        if (o->nrules >= MRC_UDP_MAX_RULES) die_usage("too many impairment rules");
        r = &o->rule[o->nrules++];
        memset(r, 0, sizeof *r);
        r->all_evs = 1;
        r->drop_ppm = o->drop_ppm;
        r->dup_ppm = o->dup_ppm;
        r->trim_ppm = o->trim_ppm;
        r->delay_ns = (uint32_t)(o->delay_us * 1000u);
        r->jitter_ns = (uint32_t)(o->jitter_us * 1000u);
    }
    if (!o->server && o->any_impair_flag) die_usage("impairment flags go on the client (the server applies the client's)");
    if (o->raw && (o->imm || o->bidir)) die_usage("--raw cannot be combined with --imm or --bidir");
    if (o->dpdk_eal && o->ibv_dev) die_usage("--dpdk and --ibv are two carriers: choose one");
    if ((o->dpdk_eal || o->ibv_dev) && o->nrules)
        die_usage("the impairment flags are the UDP carrier's (ports/udp); with --%s use the network (nftables)",
                  o->dpdk_eal ? "dpdk" : "ibv");
}

/* ---- small utilities ------------------------------------------------------------------------------------------ */
/* The clock of the run: the carrier's (a DPDK carrier counts TSC cycles), CLOCK_MONOTONIC until one is open. Every
 * time handed to the core comes from here, so the core never sees two clocks. */
static const perf_carrier_ops *clock_ops;
static void *clock_car;
static mrc_time pnow(void) { return clock_ops ? clock_ops->now(clock_car) : mrc_udp_now(); }

static uint64_t splitmix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static void fmt_addr(const struct sockaddr_storage *ss, char *buf, size_t n, int with_port) {
    char a[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof a);
        port = ntohs(s6->sin6_port);
        if (with_port) snprintf(buf, n, "[%s]:%u", a, port);
        else snprintf(buf, n, "%s", a);
    } else {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &s4->sin_addr, a, sizeof a);
        port = ntohs(s4->sin_port);
        if (with_port) snprintf(buf, n, "%s:%u", a, port);
        else snprintf(buf, n, "%s", a);
    }
}
static int parse_addr(const char *s, unsigned port, struct sockaddr_storage *ss) {
    memset(ss, 0, sizeof *ss);
    if (inet_pton(AF_INET, s, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
        ss->ss_family = AF_INET;
        ((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
        return 0;
    }
    if (inet_pton(AF_INET6, s, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
        ss->ss_family = AF_INET6;
        ((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
        return 0;
    }
    return -1;
}

/* ---- the side channel: lines of "key=value" words ------------------------------------------------------------- */
typedef struct chan {
    int fd;
    char in[65536];
    size_t inlen;
    int eof;
} chan;

static int chan_send(chan *c, const char *fmt, ...) {
    char buf[16384];
    va_list ap;
    int n;
    size_t off = 0;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) return -1;
    while (off < (size_t)n) {
        ssize_t w = send(c->fd, buf + off, (size_t)n - off, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) {
                struct pollfd pf = {c->fd, POLLOUT, 0};
                if (poll(&pf, 1, 5000) <= 0) return -1;
                continue;
            }
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

/* Read what is available without blocking. 0 ok, -1 error or EOF (c->eof set on EOF). */
static int chan_fill(chan *c) {
    for (;;) {
        ssize_t r;
        if (c->inlen >= sizeof c->in - 1) return -1;
        r = recv(c->fd, c->in + c->inlen, sizeof c->in - 1 - c->inlen, MSG_DONTWAIT);
        if (r > 0) {
            c->inlen += (size_t)r;
            continue;
        }
        if (r == 0) {
            c->eof = 1;
            return -1;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        if (errno == EINTR) continue;
        c->eof = 1;
        return -1;
    }
}
/* Pop one line into out (without the newline). 1 got one, 0 none yet. */
static int chan_line(chan *c, char *out, size_t n) {
    char *nl = memchr(c->in, '\n', c->inlen);
    size_t l;
    if (!nl) return 0;
    l = (size_t)(nl - c->in);
    if (l >= n) l = n - 1;
    memcpy(out, c->in, l);
    out[l] = 0;
    c->inlen -= (size_t)(nl - c->in) + 1u;
    memmove(c->in, nl + 1, c->inlen);
    return 1;
}
/* Block for a line up to timeout_ms. 1 got one, 0 timeout, -1 EOF/error. */
static int chan_wait_line(chan *c, char *out, size_t n, int timeout_ms) {
    mrc_time end = pnow() + (mrc_time)timeout_ms * 1000000u;
    for (;;) {
        struct pollfd pf;
        mrc_time now;
        int r;
        if (chan_line(c, out, n)) return 1;
        if (c->eof) return -1;
        now = pnow();
        if (now >= end) return 0;
        pf.fd = c->fd;
        pf.events = POLLIN;
        pf.revents = 0;
        r = poll(&pf, 1, (int)((end - now) / 1000000u) + 1);
        if (r < 0 && errno != EINTR) return -1;
        if (r > 0 && chan_fill(c) < 0) return chan_line(c, out, n) ? 1 : -1; /* EOF: what is left, if a line */
    }
}

/* key=value lookup in a line of space-separated words */
static const char *kv_get(const char *line, const char *key, char *val, size_t n) {
    size_t kl = strlen(key);
    const char *p = line;
    while (*p) {
        while (*p == ' ') p++;
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            const char *s = p + kl + 1, *e = strchr(s, ' ');
            size_t l = e ? (size_t)(e - s) : strlen(s);
            if (l >= n) return NULL;
            memcpy(val, s, l);
            val[l] = 0;
            return val;
        }
        while (*p && *p != ' ') p++;
    }
    return NULL;
}
static int kv_u64(const char *line, const char *key, uint64_t *out) {
    char v[64], *end;
    if (!kv_get(line, key, v, sizeof v)) return -1;
    errno = 0;
    *out = strtoull(v, &end, 0);
    return (errno || *end) ? -1 : 0;
}

static int kv_range(const char *line, const char *key, uint64_t lo, uint64_t hi, uint64_t *out) {
    if (kv_u64(line, key, out) || *out < lo || *out > hi) return -1;
    return 0;
}

/* ---- the test ------------------------------------------------------------------------------------------------- */
typedef struct track { uint64_t msg; uint32_t got; uint32_t pad; } track;

typedef struct perf perf;

typedef struct rxq {          /* what this side receives on one QP */
    perf *pf;
    unsigned q;
    uint64_t pat_off;         /* the stream's offset into the pattern */
    track *tr;
    uint64_t frontier;        /* lowest message not complete */
    uint64_t complete, bytes, mismatches, dup_place, evicted, first_bad_off;
    uint64_t imm_next, imm_bad;
    mrc_time last_adv;
} rxq;

typedef struct txq {          /* what this side sends on one QP */
    uint64_t posted, done, bytes_done;
    uint64_t pat_off;
    uint32_t recvs_posted;
} txq;

struct perf {
    opts o;
    int server;               /* role */
    int sender, receiver;     /* this side sends / receives data */
    mrc_udp *u;               /* the UDP carrier's adapter (NULL with another carrier) */
    const perf_carrier_ops *cops; /* the carrier */
    void *car;
    mrc_endpoint *ep;
    mrc_conn *conn[MRC_MAX_CONNS];
    rxq rx[MRC_MAX_CONNS];
    txq tx[MRC_MAX_CONNS];
    uint8_t *pat;             /* PAT_LEN + MAX_SIZE + 4096 bytes */
    uint8_t *ring;            /* RING_LEN */
    uint64_t size, iters;     /* iters 0 in -D mode until the sender stops */
    unsigned qps, mtu, planes, evs, depth;
    uint32_t my_psn[MRC_MAX_CONNS], my_rkey[MRC_MAX_CONNS];
    uint64_t my_va[MRC_MAX_CONNS];
    uint32_t peer_qpn[MRC_MAX_CONNS], peer_psn[MRC_MAX_CONNS], peer_rkey[MRC_MAX_CONNS];
    uint64_t peer_va[MRC_MAX_CONNS];
    chan ch;
    mrc_time t_start, t_send_end, t_first_done, t_last_done, t_first_rx, t_last_rx;
    int sending_stopped;      /* -D elapsed: no new posts */
    int my_done_sent, peer_done, my_result_sent, peer_result;
    uint64_t peer_msgs, peer_bytes; /* from the peer's DONE */
    char peer_result_line[4096];
    /* time series (1 ms bins) */
    uint64_t *tx_bins, *rx_bins;  /* bytes completed by this sender / delivered in order to this receiver */
    uint32_t nbins;
    /* stalls of in-order delivery at this receiver */
    uint64_t stall_max_ns, stall_max_at_ns, stalls_1ms, stalls_10ms;
    /* EV state changes seen by this requester */
    uint64_t ev_bad_events[MRC_UDP_MAX_PLANES], ev_good_events[MRC_UDP_MAX_PLANES];
    mrc_time ev_first_bad[MRC_UDP_MAX_PLANES], ev_last_bad[MRC_UDP_MAX_PLANES];
    mrc_time fault_at;        /* the built-in black hole's start (0: none): timelines count from it */
    mrc_time cpu_t[2];        /* the failover verdict's "before" window: its start and the fault */
    uint64_t cpu_ns[2];       /* cpu_wanted_ns() at those times */
    unsigned cpu_n;           /* how many of the two were taken */
    uint64_t cpu_start_ns;    /* cpu_wanted_ns() at t_start (a receiver's RESULT reports its share of the run) */
    perf_timeline tl[MRC_UDP_MAX_PLANES];
    uint64_t ev_bad_ns[MRC_UDP_MAX_PLANES][256]; /* the first 256 bad events' times from t_start, for --json */
    /* --run_infinitely: the last result row */
    mrc_time inf_last_t;
    uint64_t inf_last_msgs, inf_last_bytes;
    /* raw mode */
    uint64_t raw_rx_pkts, raw_rx_bytes, raw_tx_pkts, raw_tx_bytes, raw_seq_max;
    /* failure */
    char err[512];
    int failed;
    int tty;
    mrc_time last_progress, next_report;
    uint64_t last_report_bytes_tx, last_report_bytes_rx;
    mrc_time last_report_t;
    /* loop health: longest mrc_udp_step and longest time between two steps (application work) */
    uint64_t step_max_ns, app_max_ns, steps;
    /* stalls over 1 ms (start relative to t_start, duration) for --stall-log */
    uint64_t stall_log[2 * 4096];
    unsigned nstall;
    int64_t realtime_off;     /* CLOCK_REALTIME - CLOCK_MONOTONIC at the start */
    /* trace records (MRC_ENABLE_TRACE) */
    uint64_t *trace;          /* 4 words per record: time, id, a, b */
    size_t ntrace, trace_cap;
};

static void fail(perf *p, const char *fmt, ...) {
    va_list ap;
    if (p->failed) return;
    p->failed = 1;
    va_start(ap, fmt);
    vsnprintf(p->err, sizeof p->err, fmt, ap);
    va_end(ap);
}

/* Nanoseconds this process's main thread has run or waited runnable for a CPU (the first two fields of
 * /proc/self/schedstat, Linux); 0 where the kernel does not say. The loop waits on readiness, so a run whose window or
 * peer holds it back wants a CPU a small part of the time, and a CPU-bound one all of it. */
static uint64_t cpu_wanted_ns(void) {
    unsigned long long run = 0, wait = 0;
    FILE *f = fopen("/proc/self/schedstat", "r");
    if (!f) return 0;
    if (fscanf(f, "%llu %llu", &run, &wait) != 2) run = wait = 0;
    fclose(f);
    return (uint64_t)(run + wait);
}
/* The share of the run so far (from t_start) this process wanted a CPU, in millionths (0: not known) */
static uint64_t cpu_share_ppm(const perf *p) {
    mrc_time now = pnow();
    uint64_t c = cpu_wanted_ns();
    if (!c || !p->cpu_start_ns || c < p->cpu_start_ns || now <= p->t_start) return 0;
    return (c - p->cpu_start_ns) * 1000000u / (now - p->t_start);
}
/* Take the next of the two samples of the failover's "before" window when its time has come. */
static void cpu_sample(perf *p, mrc_time now) {
    if (p->cpu_n < 2 && p->cpu_t[p->cpu_n] && now >= p->cpu_t[p->cpu_n]) {
        p->cpu_ns[p->cpu_n] = cpu_wanted_ns();
        p->cpu_t[p->cpu_n++] = now;
    }
}

static void bin_add(perf *p, uint64_t *bins, mrc_time now, uint64_t bytes) {
    uint64_t b;
    if (!bins || now < p->t_start) return;
    b = (now - p->t_start) / BIN_NS;
    if (b >= MAX_BINS) return;
    bins[b] += bytes;
    if (b + 1u > p->nbins) p->nbins = (uint32_t)(b + 1u);
}

/* The verification pattern: seeded pseudo-random bytes with period PAT_LEN (byte j of the stream is pat[(j + the
 * stream's offset) mod PAT_LEN]), stored extended past PAT_LEN so that any MAX_SIZE-long window starting below
 * PAT_LEN is contiguous: a sender's message is one pointer into it. */
static void pattern_fill(perf *p) {
    size_t total = (size_t)PAT_LEN + MAX_SIZE + 4096u, i;
    uint64_t seedk = splitmix(p->o.seed ^ 0xDA7A5EEDull);
    for (i = 0; i < PAT_LEN; i += 8u) {
        uint64_t w = splitmix(seedk + i);
        memcpy(p->pat + i, &w, 8); /* PAT_LEN + 8 <= total */
    }
    for (i = PAT_LEN; i < total; i++) p->pat[i] = p->pat[i - PAT_LEN];
}
static int pattern_init(perf *p) {
    p->pat = (uint8_t *)malloc((size_t)PAT_LEN + MAX_SIZE + 4096u);
    if (!p->pat) return -1;
    pattern_fill(p);
    return 0;
}
static uint64_t stream_off(unsigned q, int from_server) {
    return ((uint64_t)q * 0x100003u + (from_server ? 0x7FFFF1u : 0u)) % PAT_LEN;
}

/* The placement hook: called by the core once per accepted data packet, after every check, in place of memcpy. */
static int place_hook(void *ud, uint32_t rkey, void *region_user, uint64_t off, const uint8_t *src, uint32_t len) {
    rxq *r = (rxq *)region_user;
    perf *p = r->pf;
    uint64_t size = p->size;
    (void)ud;
    (void)rkey;
    while (len) {
        uint64_t msg = off / size, within = off % size;
        uint32_t chunk = (uint32_t)(size - within < len ? size - within : len);
        uint64_t ring_off = off % RING_LEN;
        track *t = &r->tr[msg % TRACK_LEN];
        mrc_time now;
        /* 1. the bytes are the pattern at their stream offset */
        if (memcmp(src, p->pat + (off + r->pat_off) % PAT_LEN, chunk)) {
            if (!r->mismatches) r->first_bad_off = off;
            r->mismatches++;
        }
        /* 2. host memory gets them (a NIC would DMA them there) */
        if (ring_off + chunk <= RING_LEN) {
            memcpy(p->ring + ring_off, src, chunk);
        } else {
            size_t a = (size_t)(RING_LEN - ring_off);
            memcpy(p->ring + ring_off, src, a);
            memcpy(p->ring, src + a, chunk - a);
        }
        /* 3. each message's bytes are counted until it is complete, exactly once */
        if (t->msg != msg) {
            if (t->got != 0 && t->got != size) r->evicted++; /* an incomplete message pushed out: an error */
            t->msg = msg;
            t->got = 0;
        }
        if (t->got + chunk > size) r->dup_place++;
        t->got += chunk;
        r->bytes += chunk;
        now = 0;
        if (t->got == size) {
            r->complete++;
            if (msg == r->frontier) { /* in-order delivery moves on */
                uint64_t before = r->frontier;
                now = pnow();
                while (r->tr[r->frontier % TRACK_LEN].msg == r->frontier &&
                       r->tr[r->frontier % TRACK_LEN].got == size)
                    r->frontier++;
                if (r->last_adv && now - r->last_adv > p->stall_max_ns) {
                    p->stall_max_ns = now - r->last_adv;
                    p->stall_max_at_ns = r->last_adv - p->t_start;
                }
                if (r->last_adv && now - r->last_adv > 1000000u) {
                    p->stalls_1ms++;
                    if (p->nstall < 4096u) {
                        p->stall_log[2 * p->nstall] = r->last_adv;
                        p->stall_log[2 * p->nstall + 1] = now - r->last_adv;
                        p->nstall++;
                    }
                }
                if (r->last_adv && now - r->last_adv > 10000000u) p->stalls_10ms++;
                r->last_adv = now;
                bin_add(p, p->rx_bins, now, (r->frontier - before) * size);
            }
        }
        if (!p->t_first_rx) p->t_first_rx = now ? now : pnow();
        if (now) p->t_last_rx = now;
        off += chunk;
        src += chunk;
        len -= chunk;
    }
    return 0;
}

#ifdef MRC_ENABLE_TRACE
static void trace_hook(void *ud, unsigned id, uint64_t a, uint64_t b) {
    perf *p = (perf *)ud;
    uint64_t *r;
    if (id == MRC_TRACE_TX || id == MRC_TRACE_RX || p->ntrace >= p->trace_cap) return; /* the rare events only */
    r = p->trace + 4u * p->ntrace++;
    r[0] = pnow() - p->t_start;
    r[1] = id;
    r[2] = a;
    r[3] = b;
}
#endif
static void stall_write(perf *p) {
    FILE *f;
    unsigned i;
    if (!p->o.stall_log) return;
    f = fopen(p->o.stall_log, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, p->o.stall_log, strerror(errno));
        return;
    }
    fprintf(f, "# start_realtime_ns duration_ns (in-order delivery stalls over 1 ms at this receiver)\n");
    fprintf(f, "# run %lld %lld\n", (long long)p->t_start + p->realtime_off,
            (long long)(p->t_last_rx ? p->t_last_rx : p->t_start) + p->realtime_off);
    for (i = 0; i < p->nstall; i++)
        fprintf(f, "%lld %llu\n", (long long)p->stall_log[2 * i] + p->realtime_off,
                (unsigned long long)p->stall_log[2 * i + 1]);
    fclose(f);
}
static void trace_write(perf *p) {
    FILE *f;
    size_t i;
    if (!p->o.trace_file || !p->trace) return;
    f = fopen(p->o.trace_file, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, p->o.trace_file, strerror(errno));
        return;
    }
    for (i = 0; i < p->ntrace; i++)
        fprintf(f, "%llu %s %llu %llu\n", (unsigned long long)p->trace[4 * i],
                p->trace[4 * i + 1] == MRC_TRACE_DROP ? "drop" : p->trace[4 * i + 1] == MRC_TRACE_LOSS ? "loss"
                : p->trace[4 * i + 1] == MRC_TRACE_RTO ? "rto" : p->trace[4 * i + 1] == MRC_TRACE_STATE ? "state"
                : p->trace[4 * i + 1] == MRC_TRACE_EV_STATE ? "ev_state" : p->trace[4 * i + 1] == MRC_TRACE_EV_PROBE
                ? "ev_probe" : "other",
                (unsigned long long)p->trace[4 * i + 2], (unsigned long long)p->trace[4 * i + 3]);
    fclose(f);
}

/* ---- connection setup ----------------------------------------------------------------------------------------- */
static int setup_endpoint(perf *p, char *err, size_t errlen) {
    mrc_config cfg;
    unsigned q;
    int rc;
    mrc_time now = pnow();
    mrc_config_default(&cfg);
    cfg.seed = splitmix(p->o.seed ^ (p->server ? 0x5E4Full : 0xC11Eull));
    cfg.num_ports = (uint8_t)p->planes;
    cfg.ack.sack_every = (uint16_t)p->o.sack_every;
    cfg.ack.request_every = (uint16_t)p->o.ack_every;
    cfg.ack.sack_delay_ns = p->o.sack_delay_us * 1000u;
    cfg.cc.algo = (uint8_t)p->o.cc;
    cfg.cc.fixed_cwnd_bytes = (uint32_t)p->o.cwnd;
    cfg.cc.line_rate_mbps = (uint32_t)p->o.rate_mbps;
    cfg.cc.base_rtt_ns = (uint32_t)p->o.base_rtt_ns;
    if (p->o.tos >= 0) /* -T: the ToS byte of data packets, perftest's meaning (DSCP = its 6 high bits) */
        cfg.dscp[MRC_DSCP_TRIMMABLE] = cfg.dscp[MRC_DSCP_NO_TRIM] = cfg.dscp[MRC_DSCP_TRIMMABLE_RETX] =
            (uint8_t)(p->o.tos >> 2);
    cfg.place = place_hook;
    cfg.place_ud = p;
#ifdef MRC_ENABLE_TRACE
    if (p->o.trace_file) {
        p->trace_cap = 1u << 20;
        p->trace = (uint64_t *)calloc(p->trace_cap * 4u, sizeof(uint64_t));
        if (p->trace) {
            cfg.trace = trace_hook;
            cfg.trace_ud = p;
        }
    }
#endif
    p->ep = (mrc_endpoint *)calloc(1, sizeof *p->ep);
    if (!p->ep) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    rc = mrc_endpoint_init(p->ep, &cfg, now);
    if (!rc)
        rc = p->cops->ev_profile(p->car, p->ep, EV_FMT_ID, EV_PROF_ID,
                                p->o.min_active_set ? p->o.min_active : (p->o.evs >= 8u ? p->o.evs / 8u : 1u), now);
    if (rc) {
        snprintf(err, errlen, "core setup failed: %s", mrc_strerror(rc));
        return -1;
    }
    for (q = 0; q < p->qps; q++) {
        mrc_conn_attr a;
        p->conn[q] = (mrc_conn *)calloc(1, sizeof(mrc_conn));
        if (!p->conn[q]) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        rc = mrc_conn_init(p->ep, p->conn[q], now);
        memset(&a, 0, sizeof a);
        a.state = MRC_QPS_INIT;
        a.ev_profile_id = EV_PROF_ID;
        a.cc_profile_id = 0;
        if (!rc) rc = mrc_conn_modify(p->conn[q], &a, MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, now);
        p->rx[q].pf = p;
        p->rx[q].q = q;
        p->rx[q].pat_off = stream_off(q, !p->server);
        p->rx[q].tr = (track *)calloc(TRACK_LEN, sizeof(track));
        p->tx[q].pat_off = stream_off(q, p->server);
        if (!p->rx[q].tr) rc = MRC_ERR_NOBUF;
        p->my_va[q] = (uint64_t)(q + 1u) << 52;
        if (!rc)
            rc = mrc_endpoint_reg_mr(p->ep, NULL, p->my_va[q], REGION_LEN, MRC_ACCESS_REMOTE_WRITE | MRC_ACCESS_EXTERNAL,
                                     &p->rx[q], &p->my_rkey[q]);
        p->my_psn[q] = (uint32_t)(splitmix(cfg.seed + q) & MRC_PSN_MASK);
        if (rc) {
            snprintf(err, errlen, "QP %u setup failed: %s", q, mrc_strerror(rc));
            return -1;
        }
    }
    return 0;
}

static int conns_up(perf *p, char *err, size_t errlen) {
    unsigned q;
    mrc_time now = pnow();
    for (q = 0; q < p->qps; q++) {
        mrc_conn_attr a;
        int rc;
        memset(&a, 0, sizeof a);
        a.state = MRC_QPS_RTR;
        a.dest_qpn = p->peer_qpn[q];
        a.rq_psn = p->peer_psn[q];
        a.path_mtu = p->mtu;
        a.mpr_dest = 8;
        a.max_wimm_dest = 64;
        a.peer = 1;
        rc = mrc_conn_modify(p->conn[q], &a,
                             MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU |
                                 MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST | MRC_ATTR_PEER,
                             now);
        if (!rc) {
            a.state = MRC_QPS_RTS;
            a.sq_psn = p->my_psn[q];
            a.mpr = 8;
            a.max_wimm = 64;
            a.retry_linear = 7;
            a.retry_exp = 7;
            a.timeout = 14; /* 16.8 ms: the retry budget ends a dead connection in a few seconds */
            rc = mrc_conn_modify(p->conn[q], &a,
                                 MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY |
                                     MRC_ATTR_TIMEOUT,
                                 now);
        }
        if (rc) {
            snprintf(err, errlen, "QP %u to RTR/RTS failed: %s", q, mrc_strerror(rc));
            return -1;
        }
        if (p->receiver && p->o.imm) {
            while (p->tx[q].recvs_posted < MRC_MAX_RQ - 1u && mrc_conn_post_recv(p->conn[q], 0, now) == MRC_OK)
                p->tx[q].recvs_posted++;
        }
    }
    return 0;
}

/* ---- the hello lines ------------------------------------------------------------------------------------------ */
static size_t put_side(perf *p, char *b, size_t n) {
    size_t l = (size_t)snprintf(b, n, " carrier=%s", p->cops->name);
    unsigned i;
    if (l >= n) return n;
    l += p->cops->put_addrs(p->car, b + l, n - l);
    if (l >= n) return n;
    if (!p->o.raw) {
        l += (size_t)snprintf(b + l, n - l, " evprof=0x%llx ccprof=0", (unsigned long long)EV_PROF_ID);
        for (i = 0; i < p->qps && l < n; i++)
            l += (size_t)snprintf(b + l, n - l, " qpn%u=%u psn%u=%u rkey%u=%u va%u=%llu", i,
                                  (unsigned)mrc_conn_qpn(p->conn[i]), i, (unsigned)p->my_psn[i], i,
                                  (unsigned)p->my_rkey[i], i, (unsigned long long)p->my_va[i]);
    }
    return l;
}
static int get_side(perf *p, const char *line, char *err, size_t errlen) {
    unsigned i;
    char car[32];
    if (!kv_get(line, "carrier", car, sizeof car) || strcmp(car, p->cops->name)) {
        snprintf(err, errlen, "the peer runs the %s carrier, this side %s: both sides need the same one",
                 kv_get(line, "carrier", car, sizeof car) ? car : "udp", p->cops->name);
        return -1;
    }
    if (p->cops->set_peer(p->car, line, err, errlen)) return -1;
    if (p->o.raw) return 0;
    for (i = 0; i < p->qps; i++) {
        char k[16];
        uint64_t v;
        snprintf(k, sizeof k, "qpn%u", i);
        if (kv_u64(line, k, &v) || v > MRC_PSN_MASK) goto bad;
        p->peer_qpn[i] = (uint32_t)v;
        snprintf(k, sizeof k, "psn%u", i);
        if (kv_u64(line, k, &v) || v > MRC_PSN_MASK) goto bad;
        p->peer_psn[i] = (uint32_t)v;
        snprintf(k, sizeof k, "rkey%u", i);
        if (kv_u64(line, k, &v) || v > 0xFFFFFFFFu) goto bad;
        p->peer_rkey[i] = (uint32_t)v;
        snprintf(k, sizeof k, "va%u", i);
        if (kv_u64(line, k, &v)) goto bad;
        p->peer_va[i] = v;
    }
    return 0;
bad:
    snprintf(err, errlen, "malformed handshake from the peer");
    return -1;
}

static size_t put_rules(const opts *o, char *b, size_t n) {
    size_t l = 0;
    unsigned i;
    l += (size_t)snprintf(b + l, n - l, " prate=%llu pqueue=%llu nrules=%u", (unsigned long long)o->plane_rate_mbps,
                          (unsigned long long)o->plane_queue, o->nrules);
    for (i = 0; i < o->nrules && l < n; i++) {
        const mrc_udp_impair_rule *r = &o->rule[i];
        l += (size_t)snprintf(b + l, n - l, " rule%u=%u/%u/%u/%u/%llu/%llu/%u/%u/%u/%u/%u", i, r->planes,
                              (unsigned)r->all_evs, (unsigned)r->ev_lo, (unsigned)r->ev_hi,
                              (unsigned long long)r->start_ns, (unsigned long long)r->end_ns, r->drop_ppm, r->dup_ppm,
                              r->trim_ppm, r->delay_ns, r->jitter_ns);
    }
    return l;
}
static int get_rules(opts *o, const char *line) {
    uint64_t n;
    unsigned i;
    if (kv_u64(line, "prate", &o->plane_rate_mbps) || o->plane_rate_mbps > 1000000u) return -1;
    if (kv_u64(line, "pqueue", &o->plane_queue) || o->plane_queue > (1u << 30)) return -1;
    if (kv_u64(line, "nrules", &n) || n > MRC_UDP_MAX_RULES) return -1;
    o->nrules = (unsigned)n;
    for (i = 0; i < o->nrules; i++) {
        char k[16], v[160];
        mrc_udp_impair_rule *r = &o->rule[i];
        unsigned planes, all, lo, hi, drop, dup, trim, dl, jt;
        unsigned long long s, e;
        snprintf(k, sizeof k, "rule%u", i);
        if (!kv_get(line, k, v, sizeof v)) return -1;
        if (sscanf(v, "%u/%u/%u/%u/%llu/%llu/%u/%u/%u/%u/%u", &planes, &all, &lo, &hi, &s, &e, &drop, &dup, &trim,
                   &dl, &jt) != 11)
            return -1;
        memset(r, 0, sizeof *r);
        r->planes = planes;
        r->all_evs = (uint8_t)(all != 0);
        r->ev_lo = (uint16_t)lo;
        r->ev_hi = (uint16_t)hi;
        r->start_ns = s;
        r->end_ns = e;
        r->drop_ppm = drop > MRC_UDP_PPM ? MRC_UDP_PPM : drop;
        r->dup_ppm = dup > MRC_UDP_PPM ? MRC_UDP_PPM : dup;
        r->trim_ppm = trim > MRC_UDP_PPM ? MRC_UDP_PPM : trim;
        r->delay_ns = dl;
        r->jitter_ns = jt;
    }
    return 0;
}

/* ---- the side channel's sockets ------------------------------------------------------------------------------- */
static int tcp_listen(const opts *o, char *err, size_t errlen) {
    struct addrinfo hints, *res = NULL, *ai;
    char port[16];
    int fd = -1, one = 1, rc, e = 0;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = o->fam;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    snprintf(port, sizeof port, "%u", o->tcp_port);
    rc = getaddrinfo(o->bind_addr, port, &hints, &res);
    if (rc) {
        snprintf(err, errlen, "cannot resolve listen address '%s': %s", o->bind_addr ? o->bind_addr : "any",
                 gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 1) == 0) break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) snprintf(err, errlen, "cannot listen on TCP port %u: %s", o->tcp_port, strerror(e));
    return fd;
}

static int tcp_connect(const opts *o, char *err, size_t errlen) {
    struct addrinfo hints, *res = NULL, *ai;
    char port[16];
    int rc, e = ECONNREFUSED;
    mrc_time end = pnow() + (mrc_time)(o->connect_timeout * 1e9);
    memset(&hints, 0, sizeof hints);
    hints.ai_family = o->fam;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    snprintf(port, sizeof port, "%u", o->tcp_port);
    rc = getaddrinfo(o->server, port, &hints, &res);
    if (rc) {
        snprintf(err, errlen, "cannot resolve server '%s': %s", o->server, gai_strerror(rc));
        return -1;
    }
    for (;;) {
        for (ai = res; ai; ai = ai->ai_next) {
            int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
            mrc_time now = pnow();
            if (fd < 0) {
                e = errno;
                continue;
            }
            if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
                e = errno;
                close(fd);
                continue;
            }
            {
                struct pollfd pf = {fd, POLLOUT, 0};
                int left = now < end ? (int)((end - now) / 1000000u) + 1 : 1;
                socklen_t l = sizeof e;
                if (poll(&pf, 1, left) <= 0) {
                    e = ETIMEDOUT;
                    close(fd);
                    continue;
                }
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) != 0 || e != 0) {
                    close(fd);
                    continue;
                }
            }
            freeaddrinfo(res);
            return fd;
        }
        if (pnow() >= end || (e != ECONNREFUSED && e != ENETUNREACH && e != EHOSTUNREACH)) break;
        usleep(100000);
    }
    freeaddrinfo(res);
    snprintf(err, errlen, "cannot connect to %s port %u: %s", o->server, o->tcp_port,
             e == ETIMEDOUT ? "timed out" : strerror(e));
    return -1;
}

static int parse_plane_addrs(const opts *o, unsigned planes, const struct sockaddr_storage *deflt,
                             mrc_udp_config *uc, char *err, size_t errlen) {
    unsigned p;
    char buf[2048], *save = NULL, *tok;
    char a[80];
    if (!o->plane_addrs) {
        fmt_addr(deflt, a, sizeof a, 0);
        for (p = 1; p <= planes; p++) (void)mrc_udp_config_set_local(uc, p, a);
        return 0;
    }
    if (strlen(o->plane_addrs) >= sizeof buf) goto bad;
    strcpy(buf, o->plane_addrs);
    for (p = 1, tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), p++) {
        if (p > planes || mrc_udp_config_set_local(uc, p, tok)) goto bad;
    }
    if (p - 1u == 1u) { /* one address for every plane */
        for (p = 2; p <= planes; p++) uc->local[p - 1] = uc->local[0];
    } else if (p - 1u != planes) {
        goto bad;
    }
    return 0;
bad:
    snprintf(err, errlen, "--plane-addrs needs 1 or %u numeric addresses, got '%s'", planes, o->plane_addrs);
    return -1;
}

static int open_udp(perf *p, const struct sockaddr_storage *tcp_local, char *err, size_t errlen) {
    mrc_udp_config uc;
    unsigned i;
    mrc_udp_config_default(&uc);
    uc.family = tcp_local->ss_family;
    uc.planes = p->planes;
    uc.evs_per_plane = p->evs / p->planes;
    if (parse_plane_addrs(&p->o, p->planes, tcp_local, &uc, err, errlen)) return -1;
    for (i = 0; i < p->planes; i++)
        if (uc.local[i].ss_family != uc.family) {
            snprintf(err, errlen, "--plane-addrs must be of the side channel's address family");
            return -1;
        }
    uc.data_port = (uint16_t)(p->o.udp_port > 0 ? p->o.udp_port : p->server ? 4791 : 0);
    uc.ev_port = (uint16_t)(p->o.ev_port > 0 ? p->o.ev_port : p->server ? 20000 : 20256);
    uc.batch = p->o.batch;
    if (p->o.sndbuf) uc.sndbuf = (int)p->o.sndbuf;
    if (p->o.rcvbuf) uc.rcvbuf = (int)p->o.rcvbuf;
    uc.busy_poll = (uint8_t)p->o.busy_poll;
    uc.set_tos = (uint8_t)!p->o.no_tos;
    uc.ecn = (uint8_t)!p->o.no_ecn;
    uc.impair_seed = splitmix(p->o.seed ^ (p->server ? 0x1111u : 0x2222u));
    uc.plane_rate_mbps = (uint32_t)p->o.plane_rate_mbps;
    if (p->o.plane_queue) uc.plane_queue_bytes = (uint32_t)p->o.plane_queue;
    uc.nrules = p->o.nrules;
    memcpy(uc.rule, p->o.rule, sizeof uc.rule);
    return mrc_udp_open(&p->u, &uc, err, errlen);
}

#include "perf_pcap.inc"

/* ---- the UDP carrier (ports/udp) ------------------------------------------------------------------------------ */
static mrc_time udp_c_now(void *c) {
    (void)c;
    return mrc_udp_now();
}
static void udp_c_describe(void *c, char *b, size_t n) {
    mrc_udp *u = (mrc_udp *)c;
    snprintf(b, n, "udp, %u planes x %u EVs", mrc_udp_planes(u), mrc_udp_evs_per_plane(u));
}
static size_t udp_c_put_addrs(void *c, char *b, size_t n) {
    mrc_udp *u = (mrc_udp *)c;
    size_t l = 0;
    unsigned i;
    for (i = 0; i < mrc_udp_planes(u); i++) {
        struct sockaddr_storage ss;
        char a[80];
        (void)mrc_udp_local_addr(u, i + 1u, &ss);
        fmt_addr(&ss, a, sizeof a, 0);
        l += (size_t)snprintf(b + l, n - l, " addr%u=%s port%u=%u", i, a, i,
                              (unsigned)ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                                      : ((struct sockaddr_in *)&ss)->sin_port));
        if (l >= n) return n;
    }
    l += (size_t)snprintf(b + l, n - l, " evport=%u evs=%u", (unsigned)mrc_udp_ev_sport(u, 1, 0),
                          mrc_udp_planes(u) * mrc_udp_evs_per_plane(u));
    return l < n ? l : n;
}
static int udp_c_set_peer(void *c, const char *line, char *err, size_t errlen) {
    mrc_udp *u = (mrc_udp *)c;
    struct sockaddr_storage peer[MRC_UDP_MAX_PLANES];
    unsigned i;
    for (i = 0; i < mrc_udp_planes(u); i++) {
        char k[16], a[80];
        uint64_t port;
        snprintf(k, sizeof k, "addr%u", i);
        if (!kv_get(line, k, a, sizeof a)) goto bad;
        snprintf(k, sizeof k, "port%u", i);
        if (kv_u64(line, k, &port) || port == 0 || port > 65535) goto bad;
        if (parse_addr(a, (unsigned)port, &peer[i])) goto bad;
    }
    if (mrc_udp_set_peer(u, peer, mrc_udp_planes(u), err, errlen)) return -1;
    { /* P38: the peer's source ports make its identity (older peers send no evs: any port) */
        uint64_t evp, nev;
        if (!kv_u64(line, "evport", &evp) && !kv_u64(line, "evs", &nev) && evp && evp + nev <= 65536u)
            (void)mrc_udp_set_peer_sports(u, (uint16_t)evp, (unsigned)nev);
    }
    for (i = 0; pcap_tap && i < mrc_udp_planes(u); i++) { /* --pcap: the planes' real addresses */
        struct sockaddr_storage ss;
        if (mrc_udp_local_addr(u, i + 1u, &ss) == 0) pcap_set_addr(pcap_tap, 1, i + 1u, &ss);
        pcap_set_addr(pcap_tap, 0, i + 1u, &peer[i]);
    }
    return 0;
bad:
    snprintf(err, errlen, "malformed handshake from the peer");
    return -1;
}
static int udp_c_ev_profile(void *c, mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, unsigned min_active,
                            mrc_time now) {
    return mrc_udp_ev_profile((const mrc_udp *)c, ep, fmt_id, prof_id, min_active, now);
}
static int udp_c_step(void *c, mrc_endpoint *ep, mrc_time wake_at, unsigned *ready) {
    return mrc_udp_step((mrc_udp *)c, ep, wake_at, ready);
}
static int udp_c_watch_fd(void *c, int fd) { return mrc_udp_watch_fd((mrc_udp *)c, fd); }
static int udp_c_poll_event(void *c, mrc_endpoint *ep, mrc_event *ev) {
    (void)c;
    return mrc_endpoint_poll_event(ep, ev);
}
static void udp_c_impair_start(void *c, mrc_time t0) { mrc_udp_impair_start((mrc_udp *)c, t0); }
static void udp_c_report_text(void *c, FILE *f) {
    mrc_udp_stats us;
    unsigned i;
    mrc_udp_stats_get((const mrc_udp *)c, &us);
    fprintf(f, " udp: sendmmsg %llu recvmmsg %llu wakeups %llu timer arms %llu tos changes %llu unmapped EVs %llu "
               "core drops %llu\n",
            (unsigned long long)us.sendmmsg_calls, (unsigned long long)us.recvmmsg_calls,
            (unsigned long long)us.wakeups, (unsigned long long)us.timer_arms, (unsigned long long)us.tos_changes,
            (unsigned long long)us.ev_unmapped, (unsigned long long)us.core_rx_rejected);
    for (i = 0; i < mrc_udp_planes((const mrc_udp *)c); i++)
        fprintf(f, "  plane %u: tx %llu rx %llu ce %llu tx_err %llu blocked %llu imp drop/dup/trim/delay "
                   "%llu/%llu/%llu/%llu\n",
                i + 1u, (unsigned long long)us.plane[i].tx_pkts, (unsigned long long)us.plane[i].rx_pkts,
                (unsigned long long)us.plane[i].rx_ce, (unsigned long long)us.plane[i].tx_err,
                (unsigned long long)us.plane[i].tx_blocked, (unsigned long long)us.plane[i].imp_drop,
                (unsigned long long)us.plane[i].imp_dup, (unsigned long long)us.plane[i].imp_trim,
                (unsigned long long)us.plane[i].imp_delay);
}
static void udp_c_report_json(void *c, FILE *f) {
    mrc_udp_stats us;
    mrc_udp_stats_get((const mrc_udp *)c, &us);
    fprintf(f, "\"sendmmsg\":%llu,\"recvmmsg\":%llu,\"wakeups\":%llu,\"timer_arms\":%llu,\"tos_changes\":%llu,"
               "\"ev_unmapped\":%llu,\"core_rx_rejected\":%llu",
            (unsigned long long)us.sendmmsg_calls, (unsigned long long)us.recvmmsg_calls,
            (unsigned long long)us.wakeups, (unsigned long long)us.timer_arms, (unsigned long long)us.tos_changes,
            (unsigned long long)us.ev_unmapped, (unsigned long long)us.core_rx_rejected);
}
static int udp_c_raw_send(void *c, unsigned plane, unsigned k, const void *hdr, size_t hlen, const void *payload,
                          size_t plen) {
    return mrc_udp_raw_send((mrc_udp *)c, plane, k, hdr, hlen, payload, plen);
}
static int udp_c_raw_flush(void *c) { return mrc_udp_raw_flush((mrc_udp *)c); }
static int udp_c_raw_recv(void *c, uint64_t timeout_ns, perf_raw_fn fn, void *ud, unsigned *ready) {
    return mrc_udp_raw_recv((mrc_udp *)c, timeout_ns, fn, ud, ready);
}
static void udp_c_close(void *c) { mrc_udp_close((mrc_udp *)c); }
static const perf_carrier_ops udp_carrier = {
    "udp", udp_c_now, udp_c_describe, udp_c_put_addrs, udp_c_set_peer, udp_c_ev_profile, udp_c_step,
    udp_c_watch_fd, udp_c_poll_event, udp_c_impair_start, udp_c_report_text, udp_c_report_json, udp_c_raw_send,
    udp_c_raw_flush, udp_c_raw_recv, udp_c_close};

#ifdef MRC_PERF_DPDK
#include "perf_dpdk.inc"
#endif
#ifdef MRC_PERF_IBV
#include "perf_ibv.inc"
#endif

/* Open the carrier the options name; it becomes the run's clock. */
static int open_carrier(perf *p, const struct sockaddr_storage *tcp_local, char *err, size_t errlen) {
    perf_carrier_args a;
    perf_carrier_open_fn fn = NULL;
    if (pcap_tap) pcap_family(pcap_tap, tcp_local->ss_family == AF_INET6);
    if (!p->o.dpdk_eal && !p->o.ibv_dev) {
        if (open_udp(p, tcp_local, err, errlen)) return -1;
        p->cops = &udp_carrier;
        p->car = p->u;
        clock_ops = p->cops;
        clock_car = p->car;
        return 0;
    }
    memset(&a, 0, sizeof a);
    a.server = p->server;
    a.planes = p->planes;
    a.evs_per_plane = p->evs / p->planes;
    a.mtu = p->mtu;
    a.batch = p->o.batch;
    a.family = tcp_local->ss_family;
    a.plane_addrs = p->o.plane_addrs;
    a.side_local = tcp_local;
    a.busy_poll = p->o.busy_poll;
    a.ecn = !p->o.no_ecn;
    a.set_tos = !p->o.no_tos;
    a.seed = splitmix(p->o.seed ^ (p->server ? 0x3333u : 0x4444u));
    a.verbose = p->o.verbose;
#ifdef MRC_PERF_DPDK
    if (p->o.dpdk_eal) {
        a.spec = p->o.dpdk_eal;
        fn = dpdk_carrier_open;
    }
#endif
#ifdef MRC_PERF_IBV
    if (p->o.ibv_dev) {
        a.spec = p->o.ibv_dev;
        fn = ibv_carrier_open;
    }
#endif
    if (!fn) {
        snprintf(err, errlen, "this mrc_perf was built without the %s carrier", p->o.dpdk_eal ? "DPDK" : "ibverbs");
        return -1;
    }
    if (fn(&a, &p->cops, &p->car, err, errlen)) {
        p->cops = NULL;
        p->car = NULL;
        return -1;
    }
    clock_ops = p->cops;
    clock_car = p->car;
    return 0;
}

/* A server opens its carrier only when a client's parameters are in. So that a DPDK EAL or a device that cannot
 * start is one line at start-up rather than after a client came, a server first opens and closes the carrier with
 * its own settings in a child process (the EAL initialises once per process). 0, or -1 with the child's reason. */
static int probe_carrier(perf *p, const struct sockaddr_storage *local, char *err, size_t errlen) {
    int fds[2], st = 0;
    pid_t pid;
    ssize_t n;
    if (pipe(fds) != 0) return 0; /* no probe: the real open reports any failure later */
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return 0;
    }
    if (pid == 0) {
        char e[512] = "";
        int rc;
        close(fds[0]);
        rc = open_carrier(p, local, e, sizeof e);
        if (rc == 0) p->cops->close(p->car);
        else if (write(fds[1], e, strlen(e)) < 0) rc = -1;
        _exit(rc == 0 ? 0 : 1);
    }
    close(fds[1]);
    n = read(fds[0], err, errlen - 1u);
    err[n > 0 ? (size_t)n : 0u] = 0;
    close(fds[0]);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    if (!err[0]) snprintf(err, errlen, "the %s carrier could not start", p->o.dpdk_eal ? "DPDK" : "ibverbs");
    return -1;
}

/* ---- progress ------------------------------------------------------------------------------------------------- */
static void sum_tx(const perf *p, uint64_t *msgs, uint64_t *bytes) {
    unsigned q;
    *msgs = *bytes = 0;
    for (q = 0; q < p->qps; q++) *msgs += p->tx[q].done, *bytes += p->tx[q].bytes_done;
}
static void sum_rx(const perf *p, uint64_t *msgs, uint64_t *bytes) {
    unsigned q;
    *msgs = *bytes = 0;
    for (q = 0; q < p->qps; q++) *msgs += p->rx[q].frontier, *bytes += p->rx[q].frontier * p->size;
}
static void conn_totals(const perf *p, mrc_conn_stats *t) {
    unsigned q;
    memset(t, 0, sizeof *t);
    for (q = 0; q < p->qps && p->conn[q]; q++) {
        mrc_conn_stats s;
        mrc_conn_stats_get(p->conn[q], &s);
        t->tx_data += s.tx_data;
        t->tx_rtx += s.tx_rtx;
        t->rtx_sack_hole += s.rtx_sack_hole;
        t->rtx_nack += s.rtx_nack;
        t->rtx_rto += s.rtx_rto;
        t->rtx_probe_loss += s.rtx_probe_loss;
        t->rtx_spurious += s.rtx_spurious;
        t->rto_fired += s.rto_fired;
        t->tlp_fired += s.tlp_fired;
        t->rx_sack += s.rx_sack;
        t->rx_nack += s.rx_nack;
        t->rx_data += s.rx_data;
        t->rx_dup += s.rx_dup;
        t->rx_trimmed += s.rx_trimmed;
        t->tx_sack += s.tx_sack;
        t->tx_nack += s.tx_nack;
        t->ev_demoted += s.ev_demoted;
        t->ev_revived += s.ev_revived;
        t->ev_withheld += s.ev_withheld;
        t->ev_promoted += s.ev_promoted;
        t->ev_probes += s.ev_probes;
        t->ev_skipped += s.ev_skipped;
        t->rx_ce += s.rx_ce;
        t->cc_md += s.cc_md;
        t->cc_qa += s.cc_qa;
        t->cc_nack_dec += s.cc_nack_dec;
        t->imm_delivered += s.imm_delivered;
    }
}
/* good/bad EVs per plane, summed over the QPs */
static void ev_per_plane(const perf *p, unsigned good[], unsigned bad[]) {
    unsigned q, i;
    for (i = 0; i < p->planes; i++) good[i] = bad[i] = 0;
    if (p->o.raw) return;
    for (q = 0; q < p->qps && p->conn[q]; q++) {
        mrc_ev_port_summary s[MRC_MAX_PORTS];
        if (mrc_conn_ev_summary(p->conn[q], s)) continue;
        for (i = 0; i < p->planes; i++) {
            good[i] += (unsigned)s[i].active + s[i].skipped + s[i].backup;
            bad[i] += (unsigned)s[i].bad + s[i].denied + s[i].off;
        }
    }
}

static void progress(perf *p, mrc_time now, int final_line) {
    uint64_t tm, tb, rm, rb;
    double dt = (double)(now - p->last_report_t) / 1e9, gtx, grx;
    mrc_conn_stats cs;
    unsigned good[MRC_UDP_MAX_PLANES], bad[MRC_UDP_MAX_PLANES], i;
    char line[512];
    size_t l = 0;
    int live = p->tty && !p->o.report_every_ms;
    sum_tx(p, &tm, &tb);
    sum_rx(p, &rm, &rb);
    if (p->o.raw) {
        tb = p->raw_tx_bytes;
        rb = p->raw_rx_bytes;
    }
    gtx = dt > 0 ? (double)(tb - p->last_report_bytes_tx) * 8 / dt / 1e9 : 0;
    grx = dt > 0 ? (double)(rb - p->last_report_bytes_rx) * 8 / dt / 1e9 : 0;
    p->last_report_bytes_tx = tb;
    p->last_report_bytes_rx = rb;
    p->last_report_t = now;
    conn_totals(p, &cs);
    ev_per_plane(p, good, bad);
    l += (size_t)snprintf(line + l, sizeof line - l, "%7.2fs", (double)(now - p->t_start) / 1e9);
    if (p->sender) l += (size_t)snprintf(line + l, sizeof line - l, " tx %6.2f Gb/s", gtx);
    if (p->receiver) l += (size_t)snprintf(line + l, sizeof line - l, " rx %6.2f Gb/s", grx);
    if (!p->o.raw) {
        l += (size_t)snprintf(line + l, sizeof line - l, " rtx %llu EVs good/bad", (unsigned long long)cs.tx_rtx);
        for (i = 0; i < p->planes && l < sizeof line; i++)
            l += (size_t)snprintf(line + l, sizeof line - l, " %u/%u", good[i], bad[i]);
    }
    if (live) {
        fprintf(stderr, "\r%-110s%s", line, final_line ? "\n" : "");
        fflush(stderr);
    } else if (p->o.report_every_ms) {
        fprintf(p->o.json ? stderr : stdout, "%s\n", line);
        fflush(p->o.json ? stderr : stdout);
    }
}

/* ---- data path ------------------------------------------------------------------------------------------------ */
static void post_more(perf *p, mrc_time now) {
    unsigned q;
    if (!p->sender || p->sending_stopped) return;
    for (q = 0; q < p->qps; q++) {
        txq *t = &p->tx[q];
        while (t->posted - t->done < p->depth && (p->iters == 0 || t->posted < p->iters)) {
            mrc_write w;
            uint64_t off = t->posted * p->size;
            memset(&w, 0, sizeof w);
            w.wr_id = t->posted;
            w.opcode = p->o.imm ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
            w.buf = p->pat + (off + t->pat_off) % PAT_LEN;
            w.len = (uint32_t)p->size;
            w.remote_va = p->peer_va[q] + off;
            w.rkey = p->peer_rkey[q];
            w.imm = (uint32_t)t->posted;
            if (mrc_conn_post_write(p->conn[q], &w, now) != MRC_OK) break;
            t->posted++;
        }
    }
}

static void events(perf *p, mrc_time now) {
    mrc_event ev;
    while (p->cops->poll_event(p->car, p->ep, &ev) > 0) {
        unsigned q;
        for (q = 0; q < p->qps && p->conn[q] != ev.conn; q++) {
        }
        switch (ev.type) {
        case MRC_EVT_SEND_DONE:
            if (ev.status != MRC_OK) {
                fail(p, "write on QP %u failed: %s", q, mrc_strerror(ev.status));
                break;
            }
            if (q < p->qps) {
                p->tx[q].done++;
                p->tx[q].bytes_done += ev.byte_len;
                if (!p->t_first_done) p->t_first_done = now;
                p->t_last_done = now;
                bin_add(p, p->tx_bins, now, ev.byte_len);
                p->last_progress = now;
            }
            break;
        case MRC_EVT_RECV_IMM:
            if (ev.status != MRC_OK) {
                fail(p, "receive on QP %u failed: %s", q, mrc_strerror(ev.status));
                break;
            }
            if (q < p->qps) {
                rxq *r = &p->rx[q];
                track *t = &r->tr[r->imm_next % TRACK_LEN];
                /* immediates arrive in message order, each after every byte of its message was placed */
                if (ev.imm != (uint32_t)r->imm_next || ev.byte_len != p->size || t->msg != r->imm_next ||
                    t->got != p->size)
                    r->imm_bad++;
                r->imm_next++;
                (void)mrc_conn_post_recv(p->conn[q], 0, now);
            }
            break;
        case MRC_EVT_CONN_ERROR:
            fail(p, "QP %u entered ERR: %s", q, mrc_strerror(ev.status));
            break;
        case MRC_EVT_EV_STATE:
            if (ev.port >= 1 && ev.port <= p->planes) {
                unsigned i = ev.port - 1u;
                if (ev.state == MRC_EVS_ASSUMED_BAD) {
                    if (p->ev_bad_events[i] < 256u) p->ev_bad_ns[i][p->ev_bad_events[i]] = now - p->t_start;
                    perf_timeline_add(&p->tl[i], now, p->fault_at ? p->fault_at : p->t_start);
                    p->ev_bad_events[i]++;
                    if (!p->ev_first_bad[i]) p->ev_first_bad[i] = now;
                    p->ev_last_bad[i] = now;
                } else {
                    p->ev_good_events[i]++;
                }
            }
            break;
        case MRC_EVT_NONE: case MRC_EVT_EP_RESPONSE: case MRC_EVT_EP_TIMEOUT: case MRC_EVT_PEER_PORTS:
        default:
            break;
        }
    }
}

/* The receiver's verdict on what it got, sent to the peer and printed locally. */
static int rx_verdict(const perf *p, char *b, size_t n) {
    uint64_t msgs = 0, bytes = 0, mism = 0, dup = 0, ev = 0, immbad = 0, placed = 0;
    unsigned q;
    int ok;
    for (q = 0; q < p->qps; q++) {
        msgs += p->rx[q].frontier;
        placed += p->rx[q].bytes;
        mism += p->rx[q].mismatches;
        dup += p->rx[q].dup_place;
        ev += p->rx[q].evicted;
        immbad += p->rx[q].imm_bad;
        if (p->o.imm && p->rx[q].imm_next != p->rx[q].frontier) immbad++;
    }
    bytes = msgs * p->size;
    ok = msgs == p->peer_msgs && bytes == p->peer_bytes && placed == bytes && !mism && !dup && !ev && !immbad;
    snprintf(b, n,
             "ok=%d msgs=%llu bytes=%llu placed=%llu mismatches=%llu dup=%llu evicted=%llu imm_bad=%llu "
             "expect_msgs=%llu expect_bytes=%llu stall_max_ns=%llu stall_at_ns=%llu stalls_1ms=%llu stalls_10ms=%llu "
             "rx_ns=%llu cpu_wanted_ppm=%llu",
             ok, (unsigned long long)msgs, (unsigned long long)bytes, (unsigned long long)placed,
             (unsigned long long)mism, (unsigned long long)dup, (unsigned long long)ev, (unsigned long long)immbad,
             (unsigned long long)p->peer_msgs, (unsigned long long)p->peer_bytes, (unsigned long long)p->stall_max_ns,
             (unsigned long long)p->stall_max_at_ns, (unsigned long long)p->stalls_1ms,
             (unsigned long long)p->stalls_10ms,
             (unsigned long long)(p->t_last_rx > p->t_first_rx ? p->t_last_rx - p->t_first_rx : 0),
             (unsigned long long)cpu_share_ppm(p));
    return ok;
}

static void handle_line(perf *p, const char *line) {
    if (!strncmp(line, "DONE ", 5)) {
        if (kv_u64(line, "msgs", &p->peer_msgs) || kv_u64(line, "bytes", &p->peer_bytes)) {
            fail(p, "malformed DONE from the peer");
            return;
        }
        p->peer_done = 1;
    } else if (!strncmp(line, "RESULT ", 7)) {
        snprintf(p->peer_result_line, sizeof p->peer_result_line, "%s", line + 7);
        p->peer_result = 1;
    } else if (!strncmp(line, "ABORT ", 6)) {
        fail(p, "peer aborted: %s", line + 6);
    } else {
        fail(p, "unexpected message from the peer: '%.60s'", line);
    }
}

static void check_chan(perf *p) {
    char line[4200];
    if (chan_fill(&p->ch) < 0 && p->ch.eof) {
        while (chan_line(&p->ch, line, sizeof line)) handle_line(p, line);
        if (!p->peer_result) fail(p, "peer closed the control connection before the run finished (crashed or killed?)");
        return;
    }
    while (chan_line(&p->ch, line, sizeof line)) handle_line(p, line);
}

/* Raw mode: the receiver counts datagrams; the 8 first bytes of each carry a sequence number. */
static void raw_rx(void *ud, unsigned plane, const uint8_t *pkt, size_t len, mrc_time now) {
    perf *p = (perf *)ud;
    uint64_t seq = 0;
    (void)plane;
    if (len < 36u) return;
    memcpy(&seq, pkt, 8);
    if (seq + 1u > p->raw_seq_max) p->raw_seq_max = seq + 1u;
    p->raw_rx_pkts++;
    p->raw_rx_bytes += len - 36u; /* payload only, as MRC goodput counts message bytes */
    if (!p->t_first_rx) p->t_first_rx = now;
    p->t_last_rx = now;
    bin_add(p, p->rx_bins, now, len - 36u);
    p->last_progress = now;
}

static int run_raw(perf *p) {
    uint8_t hdr[36];
    unsigned plane = 0, k = 0, K = p->evs / p->planes, i;
    uint64_t seq = 0, total_pkts = p->iters * ((p->size + p->mtu - 1u) / p->mtu);
    mrc_time end = p->o.duration > 0 ? p->t_start + (mrc_time)(p->o.duration * 1e9) : MRC_TIME_NEVER;
    mrc_time watchdog = (mrc_time)(p->o.timeout * 1e9);
    char vb[1024];
    memset(hdr, 0, sizeof hdr);
    if (!p->cops->raw_send || !p->cops->raw_flush || !p->cops->raw_recv)
        return fail(p, "--raw is not available with the %s carrier", p->cops->name), -1;
    p->last_progress = p->t_start;
    while (!p->failed) {
        mrc_time now = pnow();
        unsigned ready = 0;
        if (p->sender && !p->my_done_sent) {
            for (i = 0; i < 64u; i++) { /* a burst spread like MRC's: planes in turn, EVs of a plane in turn */
                memcpy(hdr, &seq, 8);
                if (p->cops->raw_send(p->car, plane + 1u, k, hdr, sizeof hdr, p->pat + (seq * p->mtu) % PAT_LEN,
                                     p->mtu) < 0) {
                    fail(p, "%s send failed: %s", p->cops->name, strerror(errno));
                    break;
                }
                seq++;
                p->raw_tx_pkts++;
                p->raw_tx_bytes += p->mtu;
                if (++plane == p->planes) {
                    plane = 0;
                    if (++k == K) k = 0;
                }
            }
            (void)p->cops->raw_flush(p->car);
            now = pnow();
            p->last_progress = now;
            if ((end != MRC_TIME_NEVER && now >= end) || (end == MRC_TIME_NEVER && seq >= total_pkts)) {
                p->t_send_end = now;
                if (chan_send(&p->ch, "DONE msgs=%llu bytes=%llu\n", (unsigned long long)seq,
                              (unsigned long long)(seq * p->mtu)) < 0)
                    fail(p, "peer closed the control connection");
                p->my_done_sent = 1;
            }
            if (p->cops->raw_recv(p->car, 0, raw_rx, p, &ready) < 0)
                fail(p, "%s receive failed: %s", p->cops->name, strerror(errno));
        } else {
            if (p->cops->raw_recv(p->car, 20000000u, raw_rx, p, &ready) < 0)
                fail(p, "%s receive failed: %s", p->cops->name, strerror(errno));
        }
        if (ready || p->my_done_sent || p->receiver) check_chan(p);
        now = pnow();
        if (p->receiver && p->peer_done && !p->my_result_sent) {
            /* let the last datagrams drain, then report */
            if (now - p->last_progress > 50000000u || now - p->last_progress > watchdog) {
                snprintf(vb, sizeof vb,
                         "ok=1 raw=1 rx_pkts=%llu rx_bytes=%llu rx_ns=%llu sent_pkts=%llu",
                         (unsigned long long)p->raw_rx_pkts, (unsigned long long)p->raw_rx_bytes,
                         (unsigned long long)(p->t_last_rx > p->t_first_rx ? p->t_last_rx - p->t_first_rx : 0),
                         (unsigned long long)p->peer_msgs);
                if (chan_send(&p->ch, "RESULT %s\n", vb) < 0) fail(p, "peer closed the control connection");
                snprintf(p->peer_result_line, sizeof p->peer_result_line, "%s", vb); /* own copy for printing */
                p->my_result_sent = 1;
                return p->failed ? -1 : 0;
            }
        }
        if (p->sender && p->peer_result) return 0;
        if (p->receiver && !p->peer_done && now - p->last_progress > watchdog)
            fail(p, "no datagram for %.1f s", p->o.timeout);
        if (p->sender && p->my_done_sent && now - p->t_send_end > watchdog)
            fail(p, "no result from the peer within %.1f s", p->o.timeout);
        if (p->next_report && now >= p->next_report) {
            progress(p, now, 0);
            p->next_report = now + (p->o.report_every_ms ? p->o.report_every_ms : 200u) * 1000000u;
        }
    }
    return -1;
}

static volatile sig_atomic_t stop_req; /* --run_infinitely: SIGINT/SIGTERM seen */
static void table_head(const perf *p, FILE *out);
static void table_row(const perf *p, FILE *out, uint64_t bytes, uint64_t iters, double peak_gbps, double avg_gbps,
                      double mpps);

/* --run_infinitely: a result row for the last period (perftest prints one every -D seconds) */
static void inf_row(perf *p, mrc_time now) {
    uint64_t m, b;
    double dt = (double)(now - p->inf_last_t) / 1e9, g;
    sum_tx(p, &m, &b);
    if (p->inf_last_t == p->t_start && !p->o.json) table_head(p, stdout);
    g = dt > 0 ? (double)(b - p->inf_last_bytes) * 8 / dt / 1e9 : 0;
    if (!p->o.json) { /* a period's peak is its average: the period is the window */
        table_row(p, stdout, p->size, (m - p->inf_last_msgs) / (p->qps ? p->qps : 1), g, g,
                  dt > 0 ? (double)(m - p->inf_last_msgs) / dt / 1e6 : 0.0);
        fflush(stdout);
    }
    p->inf_last_t = now;
    p->inf_last_msgs = m;
    p->inf_last_bytes = b;
}

static int run_mrc(perf *p) {
    mrc_time end = p->o.duration > 0 && !p->o.run_inf ? p->t_start + (mrc_time)(p->o.duration * 1e9) : MRC_TIME_NEVER;
    mrc_time period = p->o.run_inf && p->sender ? (mrc_time)(p->o.duration * 1e9) : 0;
    mrc_time watchdog = (mrc_time)(p->o.timeout * 1e9);
    char vb[1024];
    uint64_t last_tx = 0, last_rx = 0;
    mrc_time now_prev = p->t_start;
    p->last_progress = p->t_start;
    post_more(p, p->t_start);
    while (!p->failed) {
        unsigned ready = 0;
        mrc_time now, wake = p->next_report ? p->next_report : MRC_TIME_NEVER;
        uint64_t m, txb, rxb;
        int n;
        if (end != MRC_TIME_NEVER && !p->sending_stopped && end < wake) wake = end;
        if (period && !p->sending_stopped && p->inf_last_t + period < wake) wake = p->inf_last_t + period;
        if (p->last_progress + watchdog < wake) wake = p->last_progress + watchdog;
        if (p->cpu_n < 2 && p->cpu_t[p->cpu_n] && p->cpu_t[p->cpu_n] < wake) wake = p->cpu_t[p->cpu_n];
        {
            mrc_time t0 = pnow(), t1;
            if (p->steps && t0 - now_prev > p->app_max_ns) p->app_max_ns = t0 - now_prev;
            n = p->cops->step(p->car, p->ep, wake, &ready);
            t1 = pnow();
            p->steps++;
            (void)t1;
        }
        if (n < 0) {
            fail(p, "%s I/O failed: %s", p->cops->name, strerror(errno));
            break;
        }
        now = pnow();
        cpu_sample(p, now);
        events(p, now);
        if (ready) check_chan(p);
        now_prev = pnow();
        if (p->failed) break;
        if (end != MRC_TIME_NEVER && now >= end && !p->sending_stopped) {
            p->sending_stopped = 1;
            p->t_send_end = now;
        }
        if (period && !p->sending_stopped) {
            if (now >= p->inf_last_t + period) inf_row(p, now);
            if (stop_req) {
                p->sending_stopped = 1;
                p->t_send_end = now;
            }
        }
        post_more(p, now);
        /* progress for the watchdog: completions here or bytes arriving here */
        sum_tx(p, &m, &txb);
        rxb = 0;
        for (unsigned q = 0; q < p->qps; q++) rxb += p->rx[q].bytes;
        if (txb != last_tx || rxb != last_rx) {
            last_tx = txb;
            last_rx = rxb;
            p->last_progress = now;
        }
        /* this side finished sending: tell the peer how much to expect */
        if (p->sender && !p->my_done_sent) {
            int all = 1;
            for (unsigned q = 0; q < p->qps; q++)
                if (p->tx[q].done != p->tx[q].posted || (!p->sending_stopped && p->tx[q].posted < p->iters) ||
                    (p->iters == 0 && !p->sending_stopped))
                    all = 0;
            if (all) {
                sum_tx(p, &m, &txb);
                if (chan_send(&p->ch, "DONE msgs=%llu bytes=%llu\n", (unsigned long long)m, (unsigned long long)txb))
                    fail(p, "peer closed the control connection");
                p->my_done_sent = 1;
                if (!p->t_send_end) p->t_send_end = now;
            }
        }
        /* this side has everything it will get: its verdict */
        if (!p->my_result_sent && (!p->sender || p->my_done_sent) && (!p->receiver || p->peer_done)) {
            if (p->receiver) (void)rx_verdict(p, vb, sizeof vb);
            else snprintf(vb, sizeof vb, "ok=1 norx=1");
            if (chan_send(&p->ch, "RESULT %s\n", vb)) fail(p, "peer closed the control connection");
            p->my_result_sent = 1;
        }
        if (p->my_result_sent && p->peer_result) return 0;
        if (now - p->last_progress > watchdog) {
            if (p->my_result_sent) fail(p, "no result from the peer within %.1f s", p->o.timeout);
            else fail(p, "no progress for %.1f s (peer gone or every path down)", p->o.timeout);
            break;
        }
        if (p->next_report && now >= p->next_report) {
            progress(p, now, 0);
            p->next_report = now + (p->o.report_every_ms ? p->o.report_every_ms : 200u) * 1000000u;
        }
    }
    if (p->failed) (void)chan_send(&p->ch, "ABORT %s\n", p->err);
    return -1;
}

/* ---- reporting ------------------------------------------------------------------------------------------------ */
/* The average over [a, b) ms of a series (Gb/s). */
static double series_gbps(const perf *p, const uint64_t *bins, uint64_t a_ms, uint64_t b_ms) {
    uint64_t s = 0, i;
    if (!bins || b_ms <= a_ms) return 0;
    if (b_ms > p->nbins) b_ms = p->nbins;
    if (b_ms <= a_ms) return 0;
    for (i = a_ms; i < b_ms; i++) s += bins[i];
    return (double)s * 8 / ((double)(b_ms - a_ms) * 1e6);
}

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

/* a time in ms, or null for "never" (UINT64_MAX) */
static void json_ms(FILE *f, uint64_t ns) {
    if (ns == UINT64_MAX) fprintf(f, "null");
    else fprintf(f, "%.3f", (double)ns / 1e6);
}

/* JSON: the endpoint's counters (drops by reason, endpoint operations) and the per-connection counters the hostile
 * test reads (tools/hostile_test.sh), summed over the QPs */
static void json_counters(FILE *f, const perf *p, const mrc_udp_stats *us) {
    mrc_endpoint_stats es;
    mrc_conn_stats t, s;
    uint64_t foreign = 0, stranger = 0;
    unsigned i, q;
    mrc_endpoint_stats_get(p->ep, &es);
    memset(&t, 0, sizeof t);
    for (q = 0; q < p->qps && p->conn[q]; q++) {
        mrc_conn_stats_get(p->conn[q], &s);
        t.rx_sack += s.rx_sack, t.rx_nack += s.rx_nack, t.tx_sack += s.tx_sack, t.tx_nack += s.tx_nack;
        t.tx_nak += s.tx_nak, t.tx_pen += s.tx_pen, t.cc_pen_dec += s.cc_pen_dec, t.cc_md += s.cc_md;
        t.cc_rcvd_bytes += s.cc_rcvd_bytes, t.cc_mpr_changes += s.cc_mpr_changes, t.ev_skip_req += s.ev_skip_req;
        t.rx_data += s.rx_data, t.rx_bytes_placed += s.rx_bytes_placed, t.tx_bytes += s.tx_bytes;
        t.rx_drops += s.rx_drops, t.ev_rebuilds += s.ev_rebuilds;
        t.rx_sack_stale += s.rx_sack_stale, t.cc_rcvd_capped += s.cc_rcvd_capped;
        t.rx_sack_quiet += s.rx_sack_quiet, t.tx_rtx += s.tx_rtx;
    }
    for (i = 0; i < p->planes && i < MRC_UDP_MAX_PLANES; i++) foreign += us->plane[i].rx_foreign;
    for (i = 0; i < p->planes && i < MRC_UDP_MAX_PLANES; i++) stranger += us->plane[i].rx_stranger;
    fprintf(f, ",\"ep\":{\"rx_drops\":%llu,\"drop\":{", (unsigned long long)es.rx_drops);
    for (i = 0; i < MRC_DROP_REASONS; i++)
        fprintf(f, "%s\"%s\":%llu", i ? "," : "", mrc_drop_name(i), (unsigned long long)es.drop[i]);
    fprintf(f, "},\"psu_rx\":%llu,\"ep_req_tx\":%llu,\"ep_req_rx\":%llu,\"ep_rsp_tx\":%llu,\"ep_rsp_rx\":%llu,"
               "\"epq_overflow\":%llu,\"ctlq_overflow\":%llu,\"rx_foreign\":%llu,\"rx_stranger\":%llu,"
               "\"psu_expired\":%llu}",
            (unsigned long long)es.psu_rx, (unsigned long long)es.ep_req_tx, (unsigned long long)es.ep_req_rx,
            (unsigned long long)es.ep_rsp_tx, (unsigned long long)es.ep_rsp_rx, (unsigned long long)es.epq_overflow,
            (unsigned long long)es.ctlq_overflow, (unsigned long long)foreign, (unsigned long long)stranger,
            (unsigned long long)es.psu_expired);
    fprintf(f, ",\"conn\":{\"rx_sack\":%llu,\"rx_nack\":%llu,\"tx_sack\":%llu,\"tx_nack\":%llu,\"tx_nak\":%llu,"
               "\"tx_pen\":%llu,\"cc_pen_dec\":%llu,\"cc_md\":%llu,\"cc_rcvd_bytes\":%llu,\"cc_mpr_changes\":%llu,"
               "\"ev_skip_req\":%llu,\"rx_data\":%llu,\"rx_bytes_placed\":%llu,\"tx_bytes\":%llu,\"rx_drops\":%llu,"
               "\"ev_rebuilds\":%llu,\"rx_sack_stale\":%llu,\"cc_rcvd_capped\":%llu,\"rx_sack_quiet\":%llu,"
               "\"tx_rtx\":%llu}",
            (unsigned long long)t.rx_sack, (unsigned long long)t.rx_nack, (unsigned long long)t.tx_sack,
            (unsigned long long)t.tx_nack, (unsigned long long)t.tx_nak, (unsigned long long)t.tx_pen,
            (unsigned long long)t.cc_pen_dec, (unsigned long long)t.cc_md, (unsigned long long)t.cc_rcvd_bytes,
            (unsigned long long)t.cc_mpr_changes, (unsigned long long)t.ev_skip_req, (unsigned long long)t.rx_data,
            (unsigned long long)t.rx_bytes_placed, (unsigned long long)t.tx_bytes, (unsigned long long)t.rx_drops,
            (unsigned long long)t.ev_rebuilds, (unsigned long long)t.rx_sack_stale,
            (unsigned long long)t.cc_rcvd_capped, (unsigned long long)t.rx_sack_quiet, (unsigned long long)t.tx_rtx);
}

static void table_head(const perf *p, FILE *out) {
    const char *u = p->o.report_gbits ? "Gb/sec" : "MB/sec";
    fprintf(out, " #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]\n", u, u);
}
static void table_row(const perf *p, FILE *out, uint64_t bytes, uint64_t iters, double peak_gbps, double avg_gbps,
                      double mpps) {
    fprintf(out, " %-10llu %-14llu %-18.2f %-20.2f %.6f\n", (unsigned long long)bytes, (unsigned long long)iters,
            perf_bw_unit(peak_gbps, p->o.report_gbits), perf_bw_unit(avg_gbps, p->o.report_gbits), mpps);
}

static void report(perf *p, int ok, const char *why, FILE *out, int json, int first, int last) {
    uint64_t tm = 0, tb = 0, rm = 0, rb = 0;
    double ts = 0, gavg = 0, gpeak = 0, rx_gbps = 0, before = 0, after = 0, worst = 0;
    uint64_t wb;
    mrc_conn_stats cs;
    mrc_udp_stats us;
    unsigned good[MRC_UDP_MAX_PLANES], bad[MRC_UDP_MAX_PLANES], i;
    const char *prl = p->peer_result_line;
    uint64_t peer_ok = 0, peer_stall = 0, peer_stall_at = 0, peer_rx_ns = 0, peer_rx_bytes = 0, peer_mism = 0;
    uint64_t peer_sent = 0, peer_cpu_ppm = 0;
    int have_bh = 0, fo = PERF_FO_INCONCLUSIVE;
    double bh_at_ms = 0, link_gbps = 0, cpu_frac = -1;
    char fo_why[256] = "";
    int bh_plane = 0;
    char local[128] = "", verdict[1024] = "";
    conn_totals(p, &cs);
    if (p->u) mrc_udp_stats_get(p->u, &us);
    else memset(&us, 0, sizeof us);
    ev_per_plane(p, good, bad);
    sum_tx(p, &tm, &tb);
    sum_rx(p, &rm, &rb);
    if (p->o.raw) {
        tm = p->raw_tx_pkts;
        tb = p->raw_tx_bytes;
    }
    if (p->t_last_done > p->t_start) ts = (double)(p->t_last_done - p->t_start) / 1e9;
    if (p->o.raw && p->t_send_end > p->t_start) ts = (double)(p->t_send_end - p->t_start) / 1e9;
    if (ts > 0) gavg = (double)tb * 8 / ts / 1e9;
    /* BW peak: the best piece of the run cut in pieces of >= 1 s (perf_report.h); raw mode keeps no sender series */
    gpeak = ts > 0 ? perf_peak_gbps(p->o.raw ? NULL : p->tx_bins, p->nbins, BIN_NS, tb, (uint64_t)(ts * 1e9),
                                    PERF_PEAK_WINDOW_NS) : 0;
    if (p->receiver && !p->o.raw && p->t_last_rx > p->t_start)
        rx_gbps = (double)rb * 8 / ((double)(p->t_last_rx - p->t_start) / 1e9) / 1e9;
    if (p->receiver && ok && !p->o.raw) (void)rx_verdict(p, verdict, sizeof verdict);
    if (prl[0]) {
        (void)kv_u64(prl, "ok", &peer_ok);
        (void)kv_u64(prl, "stall_max_ns", &peer_stall);
        (void)kv_u64(prl, "stall_at_ns", &peer_stall_at);
        (void)kv_u64(prl, "rx_ns", &peer_rx_ns);
        (void)kv_u64(prl, p->o.raw ? "rx_bytes" : "bytes", &peer_rx_bytes);
        (void)kv_u64(prl, "mismatches", &peer_mism);
        (void)kv_u64(prl, "sent_pkts", &peer_sent);
        (void)kv_u64(prl, "cpu_wanted_ppm", &peer_cpu_ppm);
    }
    for (i = 0; i < p->o.nrules; i++)
        if (p->o.rule[i].drop_ppm == MRC_UDP_PPM && p->o.rule[i].planes && p->o.rule[i].all_evs) {
            have_bh = 1;
            bh_at_ms = (double)p->o.rule[i].start_ns / 1e6;
            for (bh_plane = 1; !((p->o.rule[i].planes >> (bh_plane - 1)) & 1u); bh_plane++) {
            }
            break;
        }
    if (have_bh && p->sender && !p->o.raw) {
        uint64_t a = (uint64_t)bh_at_ms, e = p->nbins;
        before = series_gbps(p, p->tx_bins, a > 200 ? 100 : 0, a);
        if (p->t_send_end > p->t_start) e = (p->t_send_end - p->t_start) / BIN_NS;
        after = series_gbps(p, p->tx_bins, a, e > a ? e : a);
        worst = after;
        for (wb = a; wb + 100u <= a + 600u && wb + 100u <= e; wb += 10u) {
            double g = series_gbps(p, p->tx_bins, wb, wb + 100u);
            if (g < worst) worst = g;
        }
        link_gbps = p->o.plane_rate_mbps ? (double)p->o.plane_rate_mbps * p->planes / 1000.0 : 0;
        if (p->cpu_n == 2 && p->cpu_ns[0] && p->cpu_t[1] > p->cpu_t[0])
            cpu_frac = (double)(p->cpu_ns[1] - p->cpu_ns[0]) / (double)(p->cpu_t[1] - p->cpu_t[0]);
        if (cpu_frac >= 0 && peer_cpu_ppm && (double)peer_cpu_ppm / 1e6 > cpu_frac) /* the busier of the two */
            cpu_frac = (double)peer_cpu_ppm / 1e6;
        fo = perf_fo_verdict_cpu(before, after, link_gbps, p->planes, cpu_frac, fo_why, sizeof fo_why);
    }
    if (json) {
        FILE *f = out;
        fprintf(f, "{\"tool\":\"mrc_perf\",\"version\":\"%s\",\"role\":\"%s\",\"mode\":\"%s\",\"ok\":%s,", MRC_VERSION_STRING,
                p->server ? "server" : "client", p->o.raw ? (p->u || !p->cops ? "raw-udp" : "raw") : "mrc", ok ? "true" : "false");
        fprintf(f, "\"carrier\":");
        json_str(f, p->cops ? p->cops->name : (p->o.dpdk_eal ? "dpdk" : p->o.ibv_dev ? "ibverbs" : "udp"));
        fprintf(f, ",");
        fprintf(f, "\"error\":");
        json_str(f, ok ? "" : why);
        fprintf(f,
                ",\"size\":%llu,\"iters\":%llu,\"qps\":%u,\"mtu\":%u,\"planes\":%u,\"evs\":%u,\"imm\":%s,"
                "\"bidir\":%s,\"family\":\"%s\",\"tos\":",
                (unsigned long long)p->size, (unsigned long long)p->iters, p->qps, p->mtu, p->planes, p->evs,
                p->o.imm ? "true" : "false", p->o.bidir ? "true" : "false",
                p->o.fam == AF_INET6 ? "ipv6" : "ipv4");
        if (p->o.tos >= 0) fprintf(f, "%d,", p->o.tos);
        else fprintf(f, "null,");
        fprintf(f,
                "\"tx\":{\"msgs\":%llu,\"bytes\":%llu,\"seconds\":%.6f,\"gbps_avg\":%.4f,\"gbps_peak\":%.4f,"
                "\"mpps\":%.6f},",
                (unsigned long long)tm, (unsigned long long)tb, ts, gavg, gpeak, ts > 0 ? (double)tm / ts / 1e6 : 0.0);
        fprintf(f, "\"rx\":{\"msgs\":%llu,\"bytes\":%llu,\"gbps\":%.4f,\"stall_max_us\":%.1f},",
                (unsigned long long)rm, (unsigned long long)rb, rx_gbps, (double)p->stall_max_ns / 1e3);
        fprintf(f, "\"peer_result\":");
        perf_json_kv(f, prl);
        if (p->o.raw && peer_rx_ns)
            fprintf(f, ",\"raw_goodput_gbps\":%.4f,\"raw_sent_pkts\":%llu",
                    (double)peer_rx_bytes * 8 / (double)peer_rx_ns, (unsigned long long)peer_sent);
        if (!p->o.raw && p->sender && peer_rx_ns)
            fprintf(f, ",\"peer_rx_gbps\":%.4f", (double)peer_rx_bytes * 8 / (double)peer_rx_ns);
        fprintf(f, ",\"peer_stall_max_us\":%.1f,\"peer_stall_at_ms\":%.3f", (double)peer_stall / 1e3,
                (double)peer_stall_at / 1e6);
        fprintf(f,
                ",\"mrc\":{\"data_pkts\":%llu,\"rtx\":%llu,\"lost_sack_hole\":%llu,\"lost_nack\":%llu,\"lost_rto\":%llu,"
                "\"lost_probe\":%llu,\"rtx_spurious\":%llu,\"tlp\":%llu,\"rto\":%llu,\"ev_demoted\":%llu,"
                "\"ev_revived\":%llu,\"ev_withheld\":%llu,\"ev_loss_host\":%llu,\"rx_dup\":%llu,\"rx_trimmed\":%llu,"
                "\"rx_ce\":%llu,\"ev_unconfirmed\":%llu}",
                (unsigned long long)cs.tx_data, (unsigned long long)cs.tx_rtx, (unsigned long long)cs.rtx_sack_hole,
                (unsigned long long)cs.rtx_nack, (unsigned long long)cs.rtx_rto, (unsigned long long)cs.rtx_probe_loss,
                (unsigned long long)cs.rtx_spurious, (unsigned long long)cs.tlp_fired,
                (unsigned long long)cs.rto_fired, (unsigned long long)cs.ev_demoted, (unsigned long long)cs.ev_revived,
                (unsigned long long)cs.ev_withheld, (unsigned long long)cs.ev_loss_host, (unsigned long long)cs.rx_dup,
                (unsigned long long)cs.rx_trimmed, (unsigned long long)cs.rx_ce,
                (unsigned long long)cs.ev_unconfirmed);
        fprintf(f, ",\"planes_detail\":[");
        for (i = 0; i < p->planes; i++) {
            unsigned k;
            fprintf(f, "%s{\"plane\":%u,\"evs_good\":%u,\"evs_bad\":%u,\"ev_bad_events\":%llu,\"first_bad_ms\":",
                    i ? "," : "", i + 1u, good[i], bad[i], (unsigned long long)p->ev_bad_events[i]);
            json_ms(f, p->ev_bad_events[i] ? p->ev_first_bad[i] - p->t_start : UINT64_MAX);
            fprintf(f, ",\"last_bad_ms\":");
            json_ms(f, p->ev_bad_events[i] ? p->ev_last_bad[i] - p->t_start : UINT64_MAX);
            fprintf(f, ",\"bad_events_ms\":[");
            for (k = 0; k < p->ev_bad_events[i] && k < 256u; k++)
                fprintf(f, "%s%.3f", k ? "," : "", (double)p->ev_bad_ns[i][k] / 1e6);
            fprintf(f, "]");
            if (p->fault_at) {
                fprintf(f, ",\"bad_before_fault\":%llu,\"first_bad_after_fault_ms\":",
                        (unsigned long long)p->tl[i].before);
                json_ms(f, p->tl[i].after ? p->tl[i].first - p->fault_at : UINT64_MAX);
                fprintf(f, ",\"last_bad_after_fault_ms\":");
                json_ms(f, p->tl[i].after ? p->tl[i].last - p->fault_at : UINT64_MAX);
            }
            if (p->u) /* the UDP port's per-plane counters (another carrier's are in its own object below) */
                fprintf(f, ",\"tx_pkts\":%llu,\"rx_pkts\":%llu,\"imp_drop\":%llu,\"tx_err\":%llu,\"link_qdrop\":%llu",
                        (unsigned long long)us.plane[i].tx_pkts, (unsigned long long)us.plane[i].rx_pkts,
                        (unsigned long long)us.plane[i].imp_drop, (unsigned long long)us.plane[i].tx_err,
                        (unsigned long long)us.plane[i].link_qdrop);
            fprintf(f, "}");
        }
        fprintf(f, "]");
        if (!p->o.raw && p->ep) json_counters(f, p, &us);
        if (have_bh && p->sender && !p->o.raw)
        {
            fprintf(f, ",\"blackhole\":{\"plane\":%d,\"at_ms\":%.3f,\"gbps_before\":%.4f,\"gbps_after\":%.4f,\"retained\":%.4f,"
                       "\"gbps_worst_100ms_after\":%.4f,\"link_model_gbps\":",
                    bh_plane, bh_at_ms, before, after, before > 0 ? after / before : 0.0, worst);
            if (link_gbps > 0) fprintf(f, "%.4f", link_gbps);
            else fprintf(f, "null");
            fprintf(f, ",\"cpu_wanted_before\":");
            if (cpu_frac >= 0) fprintf(f, "%.4f", cpu_frac);
            else fprintf(f, "null");
            fprintf(f, ",\"verdict\":\"%s\",\"verdict_why\":", perf_fo_name(fo));
            json_str(f, fo_why);
            fprintf(f, "}");
        }
        {
            const uint64_t *bins = p->sender ? p->tx_bins : p->rx_bins;
            uint32_t b;
            fprintf(f, ",\"t_start_realtime_ns\":%lld,\"series_10ms_gbps\":[", (long long)p->t_start + p->realtime_off);
            for (b = 0; bins && b * 10u < p->nbins; b++)
                fprintf(f, "%s%.3f", b ? "," : "", series_gbps(p, bins, b * 10u, b * 10u + 10u));
            fprintf(f, "]");
        }
        {
            struct rusage ru;
            if (getrusage(RUSAGE_SELF, &ru) == 0)
                fprintf(f, ",\"cpu\":{\"user_s\":%.3f,\"sys_s\":%.3f}",
                        (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
                        (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
        }
        fprintf(f, ",\"loop\":{\"steps\":%llu,\"app_max_us\":%.1f,\"step_max_us\":%.1f}", (unsigned long long)p->steps,
                (double)p->app_max_ns / 1e3, (double)us.step_max_ns / 1e3);
        /* the carrier's own counters: "udp" for the UDP port (as before), "<name>" for another carrier */
        fprintf(f, ",");
        json_str(f, p->cops ? p->cops->name : "udp");
        fprintf(f, ":{");
        if (p->cops) p->cops->report_json(p->car, f);
        fprintf(f, "}}\n");
        return;
    }
    if (!ok) return; /* the one-line error is printed by main */
    (void)local;
    if (!p->o.sweep || first) {
    fprintf(out, "---------------------------------------------------------------------------------------\n");
    {
        char dev[256] = "udp";
        if (p->cops) p->cops->describe(p->car, dev, sizeof dev);
        fprintf(out, "                    RDMA_Write%s BW Test (open MRC %s over %s)%s\n", p->o.imm ? "_with_imm" : "",
                MRC_VERSION_STRING, p->u ? "UDP" : p->cops ? p->cops->name : "?",
                p->o.raw ? (p->u ? " -- RAW UDP BASELINE" : " -- RAW BASELINE") : "");
        fprintf(out, " Dual-port       : OFF\t\tDevice         : %s\n", dev);
    }
    fprintf(out, " Number of qps   : %u\t\tTransport type : %s\n", p->qps,
            p->o.raw ? (p->u ? "raw UDP datagrams" : "raw frames") : "MRC");
    fprintf(out, " Connection type : MRC\t\tUsing SRQ      : OFF\n");
    fprintf(out, " TX depth        : %u\t\tBidirectional  : %s\n", p->depth, p->o.bidir ? "ON" : "OFF");
    fprintf(out, " Mtu             : %u[B]\t\tLink type      : %s/%s\n", p->mtu, p->u ? "UDP" : "Ethernet",
            p->o.fam == AF_INET6 ? "IPv6" : "IPv4");
    fprintf(out, " Data ex. method : TCP side channel, port %u\n", p->o.tcp_port);
    fprintf(out, "---------------------------------------------------------------------------------------\n");
    if (!p->o.raw) {
        for (i = 0; i < p->qps; i++)
            fprintf(out, " local address: QPN 0x%06x PSN 0x%06x RKey 0x%08x VAddr 0x%016llx\n",
                    (unsigned)mrc_conn_qpn(p->conn[i]), (unsigned)p->my_psn[i], (unsigned)p->my_rkey[i],
                    (unsigned long long)p->my_va[i]);
        for (i = 0; i < p->qps; i++)
            fprintf(out, " remote address: QPN 0x%06x PSN 0x%06x RKey 0x%08x VAddr 0x%016llx\n",
                    (unsigned)p->peer_qpn[i], (unsigned)p->peer_psn[i], (unsigned)p->peer_rkey[i],
                    (unsigned long long)p->peer_va[i]);
        fprintf(out, "---------------------------------------------------------------------------------------\n");
    }
    }
    if (p->sender) {
        if (!p->o.sweep || first) table_head(p, out);
        /* raw mode: one row per datagram of mtu payload bytes */
        table_row(p, out, p->o.raw ? p->mtu : p->size, p->o.raw ? tm : tm / (p->qps ? p->qps : 1), gpeak, gavg,
                  ts > 0 ? (double)tm / ts / 1e6 : 0.0);
        if (!p->o.sweep || last)
            fprintf(out, "---------------------------------------------------------------------------------------\n");
    }
    if (p->o.sweep && !p->o.verbose) return; /* a sweep: the rows only, as perftest's -a */
    if (p->o.raw) {
        double g = peer_rx_ns ? (double)peer_rx_bytes * 8 / (double)peer_rx_ns : 0;
        if (p->sender)
            fprintf(out, " raw %s: sent %llu datagrams of %u+36 B; the receiver got %.2f%% of them, goodput %.2f Gb/s\n",
                    p->u ? "UDP" : p->cops->name, (unsigned long long)tm, p->mtu,
                    peer_sent ? 100.0 * (double)(peer_rx_bytes / p->mtu) / (double)peer_sent : 0.0, g);
        else
            fprintf(out, " raw %s: received %llu datagrams (%llu payload bytes) in %.3f s: %.2f Gb/s\n",
                    p->u ? "UDP" : p->cops->name, (unsigned long long)p->raw_rx_pkts, (unsigned long long)p->raw_rx_bytes,
                    (double)(p->t_last_rx - p->t_first_rx) / 1e9, g);
        return;
    }
    {
        char rl[512];
        perf_rtx_line(rl, sizeof rl, cs.tx_data, cs.tx_rtx, cs.rtx_sack_hole, cs.rtx_nack, cs.rtx_rto,
                      cs.rtx_probe_loss, cs.rtx_spurious);
        fputs(rl, out);
    }
    fprintf(out, " EVs per plane good/bad:");
    for (i = 0; i < p->planes; i++) fprintf(out, " P%u %u/%u", i + 1u, good[i], bad[i]);
    fprintf(out, "  (demoted %llu, revived %llu, withheld %llu)\n", (unsigned long long)cs.ev_demoted,
            (unsigned long long)cs.ev_revived, (unsigned long long)cs.ev_withheld);
    if (have_bh && p->sender) {
        fprintf(out, " black-hole plane %d at %.0f ms: goodput before %.2f Gb/s, after %.2f Gb/s (%.1f%% retained, "
                     "plane share %.1f%%)\n",
                bh_plane, bh_at_ms, before, after, before > 0 ? 100.0 * after / before : 0.0, 100.0 / p->planes);
        fprintf(out, " dip: the worst 100 ms after the black hole carried %.2f Gb/s (%.1f%% of before)\n", worst,
                before > 0 ? 100.0 * worst / before : 0.0);
        fprintf(out, " failover verdict: %s: %s\n", perf_fo_name(fo), fo_why);
        {
            const perf_timeline *t = &p->tl[bh_plane - 1];
            if (t->after)
                fprintf(out, " plane %d EVs marked bad from %.2f ms to %.2f ms after the black hole (%llu events",
                        bh_plane, (double)(t->first - p->fault_at) / 1e6, (double)(t->last - p->fault_at) / 1e6,
                        (unsigned long long)t->after);
            else
                fprintf(out, " plane %d: no EV marked bad after the black hole (", bh_plane);
            fprintf(out, "; %llu before it, not counted)\n", (unsigned long long)t->before);
        }
    }
    if (p->sender && prl[0])
        fprintf(out, " receiver: %llu bytes verified %s; longest in-order delivery stall %.3f ms at t=%.1f ms\n",
                (unsigned long long)peer_rx_bytes, peer_ok ? "bit-exact" : "FAILED", (double)peer_stall / 1e6,
                (double)peer_stall_at / 1e6);
    if (p->receiver)
        fprintf(out, " this side received %llu messages, %llu bytes: %s; longest in-order stall %.3f ms\n",
                (unsigned long long)rm, (unsigned long long)rb, strstr(verdict, "ok=1") ? "bit-exact" : "FAILED",
                (double)p->stall_max_ns / 1e6);
    if (p->o.verbose) {
        if (p->cops) p->cops->report_text(p->car, out);
        fprintf(out, " core: rtx %llu tlp %llu rto %llu nack rx %llu sack rx %llu cc md %llu qa %llu\n",
                (unsigned long long)cs.tx_rtx, (unsigned long long)cs.tlp_fired, (unsigned long long)cs.rto_fired,
                (unsigned long long)cs.rx_nack, (unsigned long long)cs.rx_sack, (unsigned long long)cs.cc_md,
                (unsigned long long)cs.cc_qa);
        if (p->conn[0]) {
            mrc_cc_info ci;
            if (mrc_conn_cc_info(p->conn[0], &ci) == MRC_OK)
                fprintf(out, " cc: algo %u cwnd %llu B (max %llu) inflight %llu B base rtt %u ns avg delay %u ns target %u ns\n",
                        (unsigned)ci.algo, (unsigned long long)ci.cwnd, (unsigned long long)ci.maxwnd,
                        (unsigned long long)ci.inflight, ci.base_rtt_ns, ci.avg_delay_ns, ci.target_ns);
        }
    }
    fprintf(out, "---------------------------------------------------------------------------------------\n");
}

static void perf_free(perf *p) {
    unsigned q;
    for (q = 0; q < MRC_MAX_CONNS; q++) {
        if (p->conn[q]) {
            if (mrc_conn_state(p->conn[q]) != MRC_QPS_RESET && mrc_conn_state(p->conn[q]) != MRC_QPS_ERR) {
                mrc_conn_attr a;
                memset(&a, 0, sizeof a);
                a.state = MRC_QPS_ERR;
                (void)mrc_conn_modify(p->conn[q], &a, MRC_ATTR_STATE, pnow());
            }
            (void)mrc_conn_destroy(p->conn[q]);
            free(p->conn[q]);
        }
        free(p->rx[q].tr);
    }
    free(p->ep);
    if (p->cops) p->cops->close(p->car);
    clock_ops = NULL;
    if (p->ch.fd > 0) close(p->ch.fd);
    free(p->pat);
    free(p->ring);
    free(p->tx_bins);
    free(p->rx_bins);
    free(p->trace);
    free(p);
}

/* ---- main ----------------------------------------------------------------------------------------------------- */
static int run(perf *p) {
    char err[512] = "", line[16384];
    struct sockaddr_storage tl;
    socklen_t tll = sizeof tl;
    int fd, rc;
    size_t l;
    opts *o = &p->o;
#ifdef MRC_PERF_IBV
    /* a device that cannot carry MRC is one line at start-up, not after a peer arrived */
    if (o->ibv_dev && ibv_carrier_probe(o->ibv_dev, err, sizeof err)) return fail(p, "%s", err), -1;
#endif
    if (p->server) {
        int lfd;
        /* the UDP ports are bound for real once the client's parameters are known; try them now with this side's
           own settings, so that a port in use is reported at start-up rather than when a client arrives */
        struct sockaddr_storage any;
        memset(&any, 0, sizeof any);
        any.ss_family = (sa_family_t)o->fam;
        if (o->bind_addr && parse_addr(o->bind_addr, 0, &any) == 0) o->fam = any.ss_family;
        if (!o->dpdk_eal && !o->ibv_dev) {
            if (open_udp(p, &any, err, sizeof err)) return fail(p, "%s", err), -1;
            mrc_udp_close(p->u);
            p->u = NULL;
        } else if (o->dpdk_eal && probe_carrier(p, &any, err, sizeof err)) {
            return fail(p, "%s", err), -1;
        }
        lfd = tcp_listen(o, err, sizeof err);
        if (lfd < 0) return fail(p, "%s", err), -1;
        if (o->accept_timeout > 0) {
            struct pollfd pf = {lfd, POLLIN, 0};
            if (poll(&pf, 1, (int)(o->accept_timeout * 1000)) <= 0) {
                close(lfd);
                return fail(p, "no client within %.1f s", o->accept_timeout), -1;
            }
        }
        fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        close(lfd);
        if (fd < 0) return fail(p, "accept failed: %s", strerror(errno)), -1;
    } else {
        fd = tcp_connect(o, err, sizeof err);
        if (fd < 0) return fail(p, "%s", err), -1;
    }
    {
        int one = 1;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    p->ch.fd = fd;
    if (getsockname(fd, (struct sockaddr *)&tl, &tll) != 0) return fail(p, "getsockname: %s", strerror(errno)), -1;
    o->fam = tl.ss_family;
    if (p->server) {
        /* the client's parameters */
        uint64_t v;
        rc = chan_wait_line(&p->ch, line, sizeof line, 10000);
        if (rc <= 0) return fail(p, rc == 0 ? "client sent no handshake within 10 s" : "client closed the connection during the handshake"), -1;
        if (strncmp(line, "MRCPERF/" PERF_VERSION " HELLO ", 14)) {
            (void)chan_send(&p->ch, "MRCPERF/" PERF_VERSION " ERR unsupported handshake\n");
            return fail(p, "the peer is not an mrc_perf client of protocol version %s", PERF_VERSION), -1;
        }
#define GETV(key, dst, type, lo, hi)                                                                                \
    do {                                                                                                             \
        if (kv_range(line, key, lo, hi, &v)) {                                                                       \
            (void)chan_send(&p->ch, "MRCPERF/" PERF_VERSION " ERR bad " key "\n");                                   \
            return fail(p, "client sent a bad '%s'", key), -1;                                                       \
        }                                                                                                            \
        dst = (type)v;                                                                                               \
    } while (0)
        GETV("size", p->size, uint64_t, 1, MAX_SIZE);
        GETV("iters", p->iters, uint64_t, 0, 1000000000);
        GETV("qps", p->qps, unsigned, 1, MRC_MAX_CONNS);
        GETV("depth", p->depth, unsigned, 1, MRC_MAX_SQ);
        GETV("mtu", p->mtu, unsigned, 256, 4096);
        GETV("planes", p->planes, unsigned, 1, MRC_UDP_MAX_PLANES);
        GETV("evs", p->evs, unsigned, 1, MRC_UDP_MAX_EVS);
        GETV("imm", o->imm, int, 0, 1);
        GETV("bidir", o->bidir, int, 0, 1);
        GETV("raw", o->raw, int, 0, 1);
        GETV("seed", o->seed, uint64_t, 0, UINT64_MAX);
        GETV("sack_every", o->sack_every, unsigned, 1, 64);
        GETV("ack_every", o->ack_every, unsigned, 0, 1024);
        GETV("sack_delay_us", o->sack_delay_us, unsigned, 1, 100000);
        GETV("cc", o->cc, int, 0, 2);
        GETV("cwnd", o->cwnd, uint64_t, 4096, 1u << 30);
        GETV("rate_mbps", o->rate_mbps, uint64_t, 100, 3200000);
        GETV("base_rtt_ns", o->base_rtt_ns, uint64_t, 1000, 100000000);
        GETV("min_active", o->min_active, unsigned, 0, MRC_UDP_MAX_EVS);
        GETV("dur_us", v, uint64_t, 0, 600000000);
        o->duration = (double)v / 1e6;
#undef GETV
        pattern_fill(p); /* the verification pattern follows the client's --seed */
        o->min_active_set = 1;
        if (p->evs % p->planes || p->evs > MRC_MAX_EVS || p->mtu & (p->mtu - 1u)) {
            (void)chan_send(&p->ch, "MRCPERF/" PERF_VERSION " ERR inconsistent planes/EVs/MTU\n");
            return fail(p, "client sent inconsistent planes/EVs/MTU"), -1;
        }
        if (get_rules(o, line)) {
            (void)chan_send(&p->ch, "MRCPERF/" PERF_VERSION " ERR bad impairment rules\n");
            return fail(p, "client sent bad impairment rules"), -1;
        }
        p->sender = o->bidir;
        p->receiver = 1;
        if (o->duration > 0) p->iters = 0;
        if (open_carrier(p, &tl, err, sizeof err) || (!o->raw && setup_endpoint(p, err, sizeof err)) ||
            get_side(p, line, err, sizeof err)) {
            (void)chan_send(&p->ch, "MRCPERF/" PERF_VERSION " ERR server: %s\n", err);
            return fail(p, "%s", err), -1;
        }
        l = (size_t)snprintf(line, sizeof line, "MRCPERF/" PERF_VERSION " OK");
        l += put_side(p, line + l, sizeof line - l);
        if (l + 2 >= sizeof line) return fail(p, "handshake too long"), -1;
        if (!o->raw && conns_up(p, err, sizeof err)) {
            (void)chan_send(&p->ch, "MRCPERF/" PERF_VERSION " ERR server: %s\n", err);
            return fail(p, "%s", err), -1;
        }
        if (chan_send(&p->ch, "%s\n", line)) return fail(p, "client closed the connection during the handshake"), -1;
        rc = chan_wait_line(&p->ch, line, sizeof line, 10000);
        if (rc <= 0 || strcmp(line, "GO")) return fail(p, "client did not start the run"), -1;
    } else {
        p->sender = 1;
        p->receiver = o->bidir;
        if (open_carrier(p, &tl, err, sizeof err) || (!o->raw && setup_endpoint(p, err, sizeof err)))
            return fail(p, "%s", err), -1;
        l = (size_t)snprintf(line, sizeof line,
                             "MRCPERF/" PERF_VERSION " HELLO size=%llu iters=%llu qps=%u depth=%u mtu=%u planes=%u evs=%u "
                             "imm=%d bidir=%d raw=%d seed=%llu sack_every=%u ack_every=%u sack_delay_us=%u cc=%d cwnd=%llu rate_mbps=%llu "
                             "base_rtt_ns=%llu min_active=%u dur_us=%llu",
                             (unsigned long long)p->size, (unsigned long long)o->iters, p->qps, p->depth, p->mtu,
                             p->planes, p->evs, o->imm, o->bidir, o->raw, (unsigned long long)o->seed, o->sack_every,
                             o->ack_every, o->sack_delay_us, o->cc, (unsigned long long)o->cwnd, (unsigned long long)o->rate_mbps,
                             (unsigned long long)o->base_rtt_ns,
                             o->min_active_set ? o->min_active : (o->evs >= 8u ? o->evs / 8u : 1u),
                             (unsigned long long)(o->duration * 1e6));
        l += put_rules(o, line + l, sizeof line - l);
        l += put_side(p, line + l, sizeof line - l);
        if (l + 2 >= sizeof line) return fail(p, "handshake too long"), -1;
        if (chan_send(&p->ch, "%s\n", line)) return fail(p, "server closed the connection during the handshake"), -1;
        rc = chan_wait_line(&p->ch, line, sizeof line, 10000);
        if (rc <= 0) return fail(p, rc == 0 ? "server did not answer the handshake within 10 s" : "server closed the connection during the handshake"), -1;
        if (!strncmp(line, "MRCPERF/" PERF_VERSION " ERR ", 14)) return fail(p, "server refused: %s", line + 14), -1;
        if (strncmp(line, "MRCPERF/" PERF_VERSION " OK", 12)) {
            size_t k;
            for (k = 0; line[k] && k < 40; k++)
                if ((unsigned char)line[k] < 0x20 || (unsigned char)line[k] > 0x7E) line[k] = '?';
            line[k] = 0;
            return fail(p, "the peer at %s port %u is not an mrc_perf server (it answered '%s')", o->server, o->tcp_port, line), -1;
        }
        if (get_side(p, line, err, sizeof err) || (!o->raw && conns_up(p, err, sizeof err))) return fail(p, "%s", err), -1;
        if (chan_send(&p->ch, "GO\n")) return fail(p, "server closed the connection"), -1;
    }
    if (p->cops->watch_fd(p->car, fd)) return fail(p, "cannot watch the side channel"), -1;
    if (!(p->tx_bins = (uint64_t *)calloc(MAX_BINS, sizeof(uint64_t))) ||
        !(p->rx_bins = (uint64_t *)calloc(MAX_BINS, sizeof(uint64_t))))
        return fail(p, "out of memory"), -1;
    p->t_start = pnow();
    {
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        p->realtime_off = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec - (int64_t)p->t_start;
    }
    p->last_report_t = p->t_start;
    p->inf_last_t = p->t_start;
    p->cpu_start_ns = cpu_wanted_ns();
    {   /* the built-in black hole's start: failover timelines count from it */
        unsigned r;
        for (r = 0; r < o->nrules; r++)
            if (o->rule[r].drop_ppm == MRC_UDP_PPM && o->rule[r].planes && o->rule[r].all_evs) {
                p->fault_at = p->t_start + o->rule[r].start_ns;
                break;
            }
        if (p->fault_at && p->sender && !o->raw) { /* the verdict's "before" window, as series_gbps reads it */
            p->cpu_t[0] = p->t_start + (o->rule[r].start_ns > 200000000u ? 100000000u : 0u);
            p->cpu_t[1] = p->fault_at;
        }
    }
    if (p->cops->impair_start) p->cops->impair_start(p->car, p->t_start);
    if (p->tty || o->report_every_ms)
        p->next_report = p->t_start + (o->report_every_ms ? o->report_every_ms : 200u) * 1000000u;
    return o->raw ? run_raw(p) : run_mrc(p);
}

/* --run_infinitely: SIGINT or SIGTERM ends the sending; the run then drains, verifies and reports */
static void on_stop(int sig) {
    (void)sig;
    stop_req = 1;
}

/* one run (one size of a sweep): 0 verified, 1 failed */
static int run_one(const opts *o, uint64_t size, int first, int last) {
    perf *p = (perf *)calloc(1, sizeof *p);
    int rc, ok;
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    p->o = *o;
    if (p->o.dpdk_eal == o->eal_buf) p->o.dpdk_eal = p->o.eal_buf; /* the copy's own buffers */
    else if (p->o.dpdk_eal == o->dpdk_buf) p->o.dpdk_eal = p->o.dpdk_buf;
    if (p->o.ibv_dev == o->ibv_buf) p->o.ibv_dev = p->o.ibv_buf;
    p->o.size = size;
    p->server = p->o.server == NULL;
    p->size = p->o.size;
    p->iters = p->o.duration > 0 ? 0 : p->o.iters;
    p->qps = p->o.qps;
    p->depth = p->o.depth;
    p->mtu = p->o.mtu;
    p->planes = p->o.planes;
    p->evs = p->o.evs;
    p->tty = isatty(STDERR_FILENO) && !p->o.json;
    p->ring = (uint8_t *)malloc(RING_LEN);
    if (!p->ring || pattern_init(p)) {
        fprintf(stderr, "%s: out of memory\n", prog);
        perf_free(p);
        return 1;
    }
    rc = run(p);
    if (p->next_report && p->tty && !p->o.report_every_ms && p->t_start) progress(p, pnow(), 1);
    ok = rc == 0 && !p->failed;
    if (ok && !p->o.raw && p->peer_result_line[0] && !strstr(p->peer_result_line, "ok=1")) {
        fail(p, "the receiver could not verify the data: %s", p->peer_result_line);
        ok = 0;
    }
    if (ok && !p->o.raw && p->receiver) {
        char vb[1024];
        if (!rx_verdict(p, vb, sizeof vb)) {
            fail(p, "received data failed verification: %s", vb);
            ok = 0;
        }
    }
    report(p, ok, p->err, stdout, p->o.json, first, last);
    if (p->o.json_file) { /* --out_json[_file]: the JSON report also to a file (a sweep: one line per size) */
        FILE *jf = fopen(p->o.json_file, first ? "w" : "a");
        if (!jf) {
            fprintf(stderr, "%s: cannot write %s: %s\n", prog, p->o.json_file, strerror(errno));
            ok = 0;
        } else {
            report(p, ok, p->err, jf, 1, first, last);
            if (fclose(jf)) ok = 0;
        }
    }
    trace_write(p);
    stall_write(p);
    if (!ok) fprintf(stderr, "%s: %s\n", prog, p->err[0] ? p->err : "failed");
    perf_free(p);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    static opts o;
    int rc = 0;
    signal(SIGPIPE, SIG_IGN);
    parse_args(argc, argv, &o);
    if (o.run_inf) {
        signal(SIGINT, on_stop);
        signal(SIGTERM, on_stop);
    }
    if (o.pcap_file) {
        char perr[256];
        if (pcap_open(o.pcap_file, o.pcap_snap, o.server == NULL, perr, sizeof perr)) {
            fprintf(stderr, "%s: %s\n", prog, perr);
            return 1;
        }
    }
    if (o.sweep) { /* -a: 2 B .. 8 MiB, as perftest; both sides give -a, one side-channel session per size */
        uint64_t sz;
        for (sz = 2; sz <= (8u << 20) && rc == 0; sz <<= 1) rc = run_one(&o, sz, sz == 2, sz == (8u << 20));
    } else {
        rc = run_one(&o, o.size, 1, 1);
    }
    pcap_close();
    return rc;
}
