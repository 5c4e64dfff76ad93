/* mrc_dpdk.c - DPDK port adapter for open MRC. See mrc_dpdk.h and README.md.
 *
 * Only ethdevs, mbufs and time live here: frames in -> mrc_frame_parse -> mrc_endpoint_recv, mrc_endpoint_poll_tx ->
 * mrc_frame_write_hdr in place -> rte_eth_tx_burst, the TSC -> ns. No MRC header is read or written here; the frame
 * codec (ports/common/mrc_frame.h, compiled static into this unit so that several ports can share one binary)
 * writes and checks Ethernet/IP/UDP and the ICRC.
 */
#define _GNU_SOURCE
#define MRC_FRAME_STATIC
#include "mrc_dpdk.h"
#define MRC_FRAME_IMPLEMENTATION
#include "../common/mrc_frame.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#define D_MRC_OFF MRC_FRAME_HDR_MAX            /* MRC headers start here in a frame mbuf's buffer; the L2-L4
                                                  header is written right in front of them */
#define D_FRAME_ROOM (D_MRC_OFF + MRC_HDR_MAX + 4096u + 3u + MRC_FRAME_ICRC_LEN) /* a 4 KiB-MTU frame */
#define D_PEND_MAX (2u * MRC_DPDK_BURST_MAX)   /* frames waiting for a plane's TX queue */
#define D_SCRATCH 16384u                       /* linearised multi-segment frames (jumbo frames fit) */
#define D_XROOM 64u                            /* data room of the zero-copy pool's mbufs (pad + ICRC tail) */
#define D_MAX_ARGS 256

__extension__ typedef unsigned __int128 d_u128;

typedef struct d_slot {      /* one external-buffer mbuf in flight (zero copy): its shared info and its state */
    struct rte_mbuf_ext_shared_info sh;
    struct mrc_dpdk *d;
    uint8_t busy;
} d_slot;

typedef struct d_held {      /* a SEND_DONE held back by the ownership rule */
    mrc_event ev;
    uint64_t mark;           /* deliverable once every external-buffer mbuf numbered below mark is freed */
    mrc_time t;
} d_held;

struct mrc_dpdk {
    mrc_dpdk_config cfg;
    unsigned P, K;
    uint16_t port[MRC_DPDK_MAX_PLANES];
    uint8_t started[MRC_DPDK_MAX_PLANES];
    uint8_t zc_ok[MRC_DPDK_MAX_PLANES];        /* the device takes multi-segment mbufs */
    char drv[MRC_DPDK_MAX_PLANES][32];
    mrc_frame fr;
    mrc_frame_addr local[MRC_DPDK_MAX_PLANES], peer[MRC_DPDK_MAX_PLANES];
    int have_peer;
    size_t iplen;
    struct rte_mempool *pool, *xpool;
    /* transmit: per plane, the frames its queue has not taken yet, in order */
    struct rte_mbuf *pend[MRC_DPDK_MAX_PLANES][D_PEND_MAX];
    uint32_t pend_len[MRC_DPDK_MAX_PLANES][D_PEND_MAX];
    unsigned npend[MRC_DPDK_MAX_PLANES];
    mrc_time refused_since[MRC_DPDK_MAX_PLANES];
    /* zero copy: external-buffer mbufs are numbered; ext_low is the lowest number not yet freed */
    d_slot *slot;
    uint64_t slot_mask, ext_next, ext_low;
    /* SEND_DONEs held back (FIFO ring) */
    d_held *held;
    unsigned held_head, nheld, held_cap;
    mrc_time next_cleanup;
    /* receive */
    struct rte_mbuf *rxm[MRC_DPDK_MAX_PLANES][MRC_DPDK_BURST_MAX];
    uint8_t *scratch;
    /* clock: ns = ns0 + ((tsc - tsc0) * mult) >> 32 */
    uint64_t clk_tsc0, clk_mult;
    mrc_time clk_ns0;
    /* watched fds */
    struct pollfd watch[MRC_DPDK_MAX_WATCH];
    unsigned nwatch;
    mrc_time next_fd_poll;
    mrc_time idle_since;                      /* when the loop last found nothing to do, 0 while busy */
    mrc_dpdk_stats st;
};

/* ---- clock ------------------------------------------------------------------------------------------------------ */
static mrc_time d_mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (mrc_time)ts.tv_sec * 1000000000u + (mrc_time)ts.tv_nsec;
}

/* A (TSC, CLOCK_MONOTONIC) pair read as close together as the host allows. */
static void d_clock_pair(uint64_t *tsc, mrc_time *ns) {
    uint64_t best = UINT64_MAX;
    int i;
    for (i = 0; i < 5; i++) {
        uint64_t a = rte_get_tsc_cycles(), b;
        mrc_time t = d_mono();
        b = rte_get_tsc_cycles();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2u;
            *ns = t;
        }
    }
}

static uint64_t d_anchor_tsc;   /* a clock pair taken right after rte_eal_init (calibration start) */
static mrc_time d_anchor_ns;
static int d_eal_done;
static char d_eal_first[400];   /* the first line the EAL printed during rte_eal_init (errors only, when quiet) */
static unsigned d_instances;    /* names the mempools of each adapter of this process */

mrc_time mrc_dpdk_now(const mrc_dpdk *d) {
    uint64_t c = rte_get_tsc_cycles();
    return d->clk_ns0 + (mrc_time)(((d_u128)(c - d->clk_tsc0) * d->clk_mult) >> 32);
}

/* The TSC rate against CLOCK_MONOTONIC over at least 20 ms (from the EAL's init when that was long enough ago). */
static void d_clock_calibrate(mrc_dpdk *d) {
    uint64_t t0, t1, hz;
    mrc_time n0, n1;
    if (d_anchor_ns && d_mono() - d_anchor_ns < 4000000000u) {
        t0 = d_anchor_tsc;
        n0 = d_anchor_ns;
    } else {
        d_clock_pair(&t0, &n0);
    }
    do {
        d_clock_pair(&t1, &n1);
    } while (n1 - n0 < 20000000u);
    hz = (uint64_t)((d_u128)(t1 - t0) * 1000000000u / (n1 - n0));
    if (!hz) hz = rte_get_tsc_hz();
    d->st.tsc_hz = hz;
    d->clk_mult = (uint64_t)(((d_u128)1000000000u << 32) / hz);
    d->clk_tsc0 = t1;
    d->clk_ns0 = n1;
}

/* ---- EAL ---------------------------------------------------------------------------------------------------- */
static int d_has_opt(char **argv, int argc, const char *name, int single_dash) {
    int i;
    size_t l = strlen(name);
    for (i = 1; i < argc; i++) {
        if (single_dash) { /* "-l", "-l0", "-l 0" */
            if (argv[i][0] == '-' && argv[i][1] == name[1] && argv[i][1] != '-') return 1;
        } else if (!strncmp(argv[i], name, l) && (argv[i][l] == 0 || argv[i][l] == '=')) {
            return 1;
        }
    }
    return 0;
}

int mrc_dpdk_eal_init(const char *args, char *err, size_t errlen) {
    static char *buf;                    /* the EAL may keep pointers into argv: kept for the process */
    static char *argv[D_MAX_ARGS + 8];
    static char lcores[1200], prefix[64];
    const char *p;
    char *o, first[400] = "";
    int argc = 1, r, e, quiet, saved1 = -1, saved2 = -1, nul = -1;
    FILE *tf = NULL;
    if (d_eal_done) return (int)rte_eth_dev_count_avail();
    if (!args) args = "";
    free(buf);
    buf = (char *)malloc(strlen(args) + 1u);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    argv[0] = (char *)(uintptr_t)"mrc_dpdk";
    for (p = args, o = buf; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\n') p++;
        if (!*p) break;
        if (argc >= D_MAX_ARGS) {
            snprintf(err, errlen, "more than %d EAL arguments", D_MAX_ARGS);
            return -1;
        }
        argv[argc++] = o;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (*p == '\'' || *p == '"') {
                char q = *p++;
                while (*p && *p != q) *o++ = *p++;
                if (!*p) {
                    snprintf(err, errlen, "unterminated %c quote in the EAL arguments", q);
                    return -1;
                }
                p++;
            } else {
                *o++ = *p++;
            }
        }
        *o++ = 0;
    }
    quiet = !d_has_opt(argv, argc, "--log-level", 0);
    if (!d_has_opt(argv, argc, "--file-prefix", 0) && !d_has_opt(argv, argc, "--in-memory", 0)) {
        /* --in-memory would refuse --no-huge: a per-process prefix and no shared config instead */
        snprintf(prefix, sizeof prefix, "--file-prefix=mrc_dpdk%ld", (long)getpid());
        argv[argc++] = prefix;
        if (!d_has_opt(argv, argc, "--no-shconf", 0)) argv[argc++] = (char *)(uintptr_t)"--no-shconf";
    }
    if (!d_has_opt(argv, argc, "--telemetry", 0) && !d_has_opt(argv, argc, "--no-telemetry", 0))
        argv[argc++] = (char *)(uintptr_t)"--no-telemetry";
    if (!d_has_opt(argv, argc, "-l", 1) && !d_has_opt(argv, argc, "-c", 1) && !d_has_opt(argv, argc, "--lcores", 0)) {
        cpu_set_t cs;
        size_t l = 0, c;
        int n = 0;
        if (sched_getaffinity(0, sizeof cs, &cs) == 0) {
            l = (size_t)snprintf(lcores, sizeof lcores, "--lcores=0@(");
            for (c = 0; c < (size_t)CPU_SETSIZE && l + 8 < sizeof lcores; c++)
                if (CPU_ISSET(c, &cs))
                    l += (size_t)snprintf(lcores + l, sizeof lcores - l, "%s%u", n++ ? "," : "", (unsigned)c);
            if (n && l + 2 < sizeof lcores) {
                snprintf(lcores + l, sizeof lcores - l, ")");
                argv[argc++] = lcores;
            }
        }
    }
    argv[argc] = NULL;
    /* everything rte_eal_init prints (its usage text on stdout, getopt and log lines on stderr) goes to a temporary
       file; its first line explains a failure */
    rte_openlog_stream(stderr);
    if (quiet) {
        tf = tmpfile();
        nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
        fflush(stdout);
        fflush(stderr);
        if (tf && nul >= 0) {
            saved1 = dup(1);
            saved2 = dup(2);
            if (saved1 >= 0 && saved2 >= 0) {
                (void)dup2(nul, 1);
                (void)dup2(fileno(tf), 2);
            }
        }
        rte_log_set_global_level(RTE_LOG_ERR);
    }
    r = rte_eal_init(argc, argv);
    e = rte_errno;
    if (quiet) {
        fflush(stdout);
        fflush(stderr);
        if (saved1 >= 0) (void)dup2(saved1, 1);
        if (saved2 >= 0) (void)dup2(saved2, 2);
        if (saved1 >= 0) close(saved1);
        if (saved2 >= 0) close(saved2);
        if (nul >= 0) close(nul);
        if (tf) {
            char line[400];
            rewind(tf);
            while (fgets(line, sizeof line, tf)) {
                size_t l = strlen(line);
                while (l && (line[l - 1] == '\n' || line[l - 1] == '\r' || line[l - 1] == ' ')) line[--l] = 0;
                if (l) {
                    snprintf(first, sizeof first, "%s", line);
                    snprintf(d_eal_first, sizeof d_eal_first, "%s", line);
                    break;
                }
            }
            fclose(tf);
        }
        rte_log_set_global_level(RTE_LOG_WARNING);
    }
    if (r < 0) {
        const char *rd = rte_eal_get_runtime_dir();
        if (prefix[0] && rd && strstr(rd, prefix + 14)) (void)rmdir(rd); /* what it created of our prefix */
        snprintf(err, errlen, "DPDK EAL init failed (%s)%s%s", rte_strerror(e), first[0] ? ": " : "", first);
        return -1;
    }
    if (r + 1 < argc && argv[r + 1] && strncmp(argv[r + 1], "--", 3)) {
        snprintf(err, errlen, "DPDK EAL: '%s' is not an EAL argument", argv[r + 1]);
        rte_eal_cleanup();
        return -1;
    }
    if (prefix[0]) (void)rmdir(rte_eal_get_runtime_dir()); /* our own prefix: --no-shconf left it empty */
    d_eal_done = 1;
    d_clock_pair(&d_anchor_tsc, &d_anchor_ns);
    return (int)rte_eth_dev_count_avail();
}

const char *mrc_dpdk_eal_message(void) { return d_eal_first; }

void mrc_dpdk_eal_cleanup(void) {
    if (d_eal_done) rte_eal_cleanup();
    d_eal_done = 0;
}

/* ---- configuration ---------------------------------------------------------------------------------------------- */
void mrc_dpdk_config_default(mrc_dpdk_config *cfg) {
    unsigned p;
    memset(cfg, 0, sizeof *cfg);
    cfg->planes = 8;
    for (p = 0; p < MRC_DPDK_MAX_PLANES; p++) {
        cfg->port_id[p] = (uint16_t)p;
        cfg->local_ip[p][0] = 10;
        cfg->local_ip[p][1] = 78;
        cfg->local_ip[p][2] = (uint8_t)(p + 1u);
        cfg->local_ip[p][3] = 1;
    }
    mrc_frame_cfg_default(&cfg->frame);
    cfg->evs_per_plane = 16;
    cfg->ev_port = 20000;
    cfg->tx_burst = 32;
    cfg->rx_burst = 32;
    cfg->rx_tx_every = 16;
    cfg->rx_desc = 256;
    cfg->tx_desc = 256;
    cfg->mbufs = 8191;
    cfg->mbuf_data_room = (uint16_t)(RTE_PKTMBUF_HEADROOM + 4608u);
    cfg->zero_copy = 0;
    cfg->zc_min_payload = 1024;
    cfg->check_peer = 1;
    cfg->peer = 1;
    cfg->tx_stuck_ns = 2000000u;
    cfg->fd_poll_ns = 50000u;
    cfg->idle_spin_ns = 50000u;
}

int mrc_dpdk_config_set_local(mrc_dpdk_config *cfg, unsigned plane, const char *ip) {
    uint8_t a[16];
    if (!cfg || plane < 1 || plane > MRC_DPDK_MAX_PLANES || !ip) return -1;
    memset(a, 0, sizeof a);
    if (inet_pton(cfg->frame.ipv6 ? AF_INET6 : AF_INET, ip, a) != 1) return -1;
    memcpy(cfg->local_ip[plane - 1], a, 16);
    return 0;
}

/* ---- zero copy: external buffers and their release --------------------------------------------------------------- */
static void d_ext_free(void *addr, void *opaque) {
    d_slot *s = (d_slot *)opaque;
    mrc_dpdk *d = s->d;
    (void)addr;
    s->busy = 0;
    d->st.ext_released++;
    while (d->ext_low < d->ext_next && !d->slot[d->ext_low & d->slot_mask].busy) d->ext_low++;
}

uint64_t mrc_dpdk_ext_outstanding(const mrc_dpdk *d) { return d->st.ext_attached - d->st.ext_released; }
unsigned mrc_dpdk_events_held(const mrc_dpdk *d) { return d->nheld; }

/* ---- open / close ----------------------------------------------------------------------------------------------- */
static int d_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int d_fail(char *err, size_t n, const char *fmt, ...) {
    va_list ap;
    if (err && n) {
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int d_in_use(struct rte_mempool *mp) { return mp && rte_mempool_in_use_count(mp) != 0; }

void mrc_dpdk_close(mrc_dpdk *d) {
    unsigned i, j, k;
    if (!d) return;
    for (i = 0; i < d->P; i++) {
        for (j = 0; j < d->npend[i]; j++) rte_pktmbuf_free(d->pend[i][j]);
        d->npend[i] = 0;
    }
    for (i = 0; i < d->P; i++) {
        if (!d->started[i]) continue;
        for (k = 0; k < 1024u; k++) { /* what arrived and was not read (bounded: a live link keeps delivering) */
            uint16_t n = rte_eth_rx_burst(d->port[i], 0, d->rxm[i], MRC_DPDK_BURST_MAX);
            if (!n) break;
            rte_pktmbuf_free_bulk(d->rxm[i], n);
        }
        (void)rte_eth_tx_done_cleanup(d->port[i], 0, 0);
        (void)rte_eth_dev_stop(d->port[i]);
        d->started[i] = 0;
    }
    if (d->ext_low != d->ext_next || d_in_use(d->pool) || d_in_use(d->xpool)) {
        /* mbufs of this adapter are still referenced elsewhere (a peer's ring, a driver): keep the pools and the
           slot table (whose free callbacks point here) rather than leave dangling pointers */
        return;
    }
    if (d->pool) rte_mempool_free(d->pool);
    if (d->xpool) rte_mempool_free(d->xpool);
    free(d->slot);
    free(d->held);
    free(d->scratch);
    free(d);
}

int mrc_dpdk_open(mrc_dpdk **out, const mrc_dpdk_config *cfg, char *err, size_t errlen) {
    mrc_dpdk *d;
    unsigned i, j, n;
    char name[RTE_MEMPOOL_NAMESIZE];
    int socket, rc;
    if (!out || !cfg) return d_fail(err, errlen, "no configuration");
    *out = NULL;
    if (cfg->planes < 1 || cfg->planes > MRC_DPDK_MAX_PLANES || cfg->evs_per_plane < 1 ||
        cfg->planes * cfg->evs_per_plane > MRC_DPDK_MAX_EVS || cfg->planes * cfg->evs_per_plane > MRC_MAX_EVS)
        return d_fail(err, errlen, "planes (1..%u) x EVs per plane must be at most %u", (unsigned)MRC_DPDK_MAX_PLANES,
                      (unsigned)(MRC_DPDK_MAX_EVS < MRC_MAX_EVS ? MRC_DPDK_MAX_EVS : MRC_MAX_EVS));
    if (cfg->ev_port == 0 || (unsigned)cfg->ev_port + cfg->planes * cfg->evs_per_plane > 65536u)
        return d_fail(err, errlen, "EV source ports %u + %u past 65535", (unsigned)cfg->ev_port,
                      cfg->planes * cfg->evs_per_plane);
    if (cfg->tx_burst < 1 || cfg->tx_burst > MRC_DPDK_BURST_MAX || cfg->rx_burst < 1 ||
        cfg->rx_burst > MRC_DPDK_BURST_MAX)
        return d_fail(err, errlen, "tx_burst and rx_burst must be 1..%u", (unsigned)MRC_DPDK_BURST_MAX);
    if (cfg->mbufs < 64u || cfg->mbufs > (1u << 24))
        return d_fail(err, errlen, "mbufs must be 64..%u", 1u << 24);
    if (cfg->mbuf_data_room < D_FRAME_ROOM)
        return d_fail(err, errlen, "mbuf_data_room %u is too small for a 4 KiB-MTU frame (%u)",
                      (unsigned)cfg->mbuf_data_room, (unsigned)D_FRAME_ROOM);
    if (rte_lcore_count() == 0) return d_fail(err, errlen, "the DPDK EAL is not initialised (mrc_dpdk_eal_init)");
    for (i = 0; i < cfg->planes; i++) {
        if (!rte_eth_dev_is_valid_port(cfg->port_id[i]))
            return d_fail(err, errlen,
                          "plane %u: ethdev %u does not exist (the EAL found %u ethdevs: give one --vdev or NIC per "
                          "plane)",
                          i + 1u, (unsigned)cfg->port_id[i], (unsigned)rte_eth_dev_count_avail());
        for (j = 0; j < i; j++)
            if (cfg->port_id[j] == cfg->port_id[i])
                return d_fail(err, errlen, "planes %u and %u name the same ethdev %u", j + 1u, i + 1u,
                              (unsigned)cfg->port_id[i]);
    }
    d = (mrc_dpdk *)calloc(1, sizeof *d);
    if (!d) return d_fail(err, errlen, "out of memory");
    d->cfg = *cfg;
    d->P = cfg->planes;
    d->K = cfg->evs_per_plane;
    d->iplen = cfg->frame.ipv6 ? 16u : 4u;
    if (mrc_frame_init(&d->fr, &cfg->frame) != MRC_OK) {
        free(d);
        return d_fail(err, errlen, "invalid frame configuration (ttl and udp_dport must be nonzero)");
    }
    d->scratch = (uint8_t *)malloc(D_SCRATCH);
    d->held_cap = MRC_MAX_CONNS * MRC_MAX_SQ + 16u;
    d->held = (d_held *)calloc(d->held_cap, sizeof *d->held);
    if (!d->scratch || !d->held) {
        mrc_dpdk_close(d);
        return d_fail(err, errlen, "out of memory");
    }
    socket = (int)rte_socket_id();
    n = d_instances++;
    snprintf(name, sizeof name, "mrcd%u_frames", n);
    d->pool = rte_pktmbuf_pool_create(name, cfg->mbufs, cfg->mbufs >= 1024u ? 256u : 0u, 0, cfg->mbuf_data_room,
                                      socket);
    if (!d->pool) {
        rc = rte_errno;
        mrc_dpdk_close(d);
        return d_fail(err, errlen, "cannot create a pool of %u mbufs of %u bytes: %s (more EAL memory: -m)",
                      cfg->mbufs, (unsigned)cfg->mbuf_data_room, rte_strerror(rc));
    }
    if (cfg->zero_copy) {
        uint64_t want = 2ull * cfg->mbufs + 2u, sz = 1;
        snprintf(name, sizeof name, "mrcd%u_ext", n);
        d->xpool = rte_pktmbuf_pool_create(name, 2u * cfg->mbufs + 1u, 256u, 0,
                                           (uint16_t)(RTE_PKTMBUF_HEADROOM + D_XROOM), socket);
        while (sz < want) sz <<= 1;
        d->slot = (d_slot *)calloc((size_t)sz, sizeof *d->slot);
        if (!d->xpool || !d->slot) {
            rc = rte_errno;
            mrc_dpdk_close(d);
            return d_fail(err, errlen, "cannot create the zero-copy pool of %u mbufs: %s", 2u * cfg->mbufs + 1u,
                          rte_strerror(rc));
        }
        d->slot_mask = sz - 1u;
        for (i = 0; i < sz; i++) {
            d->slot[i].d = d;
            d->slot[i].sh.free_cb = d_ext_free;
            d->slot[i].sh.fcb_opaque = &d->slot[i];
        }
    }
    for (i = 0; i < d->P; i++) {
        struct rte_eth_dev_info di;
        struct rte_eth_conf conf;
        struct rte_ether_addr ea;
        uint16_t port = cfg->port_id[i], nrx = cfg->rx_desc ? cfg->rx_desc : 256, ntx = cfg->tx_desc ? cfg->tx_desc : 256;
        int sock = rte_eth_dev_socket_id(port);
        d->port[i] = port;
        if (sock < 0) sock = socket;
        rc = rte_eth_dev_info_get(port, &di);
        if (rc) {
            mrc_dpdk_close(d);
            return d_fail(err, errlen, "plane %u (ethdev %u): cannot read device info: %s", i + 1u, (unsigned)port,
                          rte_strerror(-rc));
        }
        snprintf(d->drv[i], sizeof d->drv[i], "%s", di.driver_name ? di.driver_name : "?");
        memset(&conf, 0, sizeof conf);
        if (di.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) {
            conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
            d->zc_ok[i] = (uint8_t)(cfg->zero_copy != 0);
        }
        rc = rte_eth_dev_configure(port, 1, 1, &conf);
        if (rc) {
            mrc_dpdk_close(d);
            return d_fail(err, errlen, "plane %u (ethdev %u, %s): configure failed: %s", i + 1u, (unsigned)port,
                          d->drv[i], rte_strerror(-rc));
        }
        (void)rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrx, &ntx);
        rc = rte_eth_rx_queue_setup(port, 0, nrx, (unsigned)sock, NULL, d->pool);
        if (rc) {
            mrc_dpdk_close(d);
            return d_fail(err, errlen, "plane %u (ethdev %u, %s): RX queue setup failed: %s (mbuf data room %u B%s)",
                          i + 1u, (unsigned)port, d->drv[i], rte_strerror(-rc), (unsigned)cfg->mbuf_data_room,
                          strstr(d->drv[i], "af_packet") ? "; net_af_packet's framesz must be at most data room - "
                                                           "headroom + 32"
                                                         : "");
        }
        rc = rte_eth_tx_queue_setup(port, 0, ntx, (unsigned)sock, NULL);
        if (rc) {
            mrc_dpdk_close(d);
            return d_fail(err, errlen, "plane %u (ethdev %u, %s): TX queue setup failed: %s", i + 1u, (unsigned)port,
                          d->drv[i], rte_strerror(-rc));
        }
        rc = rte_eth_dev_start(port);
        if (rc) {
            mrc_dpdk_close(d);
            return d_fail(err, errlen, "plane %u (ethdev %u, %s): start failed: %s", i + 1u, (unsigned)port, d->drv[i],
                          rte_strerror(-rc));
        }
        d->started[i] = 1;
        if (cfg->promisc) (void)rte_eth_promiscuous_enable(port);
        rc = rte_eth_macaddr_get(port, &ea);
        if (rc) {
            mrc_dpdk_close(d);
            return d_fail(err, errlen, "plane %u (ethdev %u): cannot read its MAC address: %s", i + 1u,
                          (unsigned)port, rte_strerror(-rc));
        }
        memcpy(d->local[i].mac, ea.addr_bytes, 6);
        memcpy(d->local[i].ip, cfg->local_ip[i], 16);
    }
    d_clock_calibrate(d);
    d->next_fd_poll = 0;
    *out = d;
    return 0;
}

int mrc_dpdk_local_addr(const mrc_dpdk *d, unsigned plane, mrc_frame_addr *out) {
    if (!d || plane < 1 || plane > d->P || !out) return -1;
    *out = d->local[plane - 1];
    return 0;
}

int mrc_dpdk_set_peer(mrc_dpdk *d, const mrc_frame_addr *peer, unsigned planes, char *err, size_t errlen) {
    if (!d || !peer || planes != d->P)
        return d_fail(err, errlen, "peer has %u planes, this side %u", planes, d ? d->P : 0u);
    memcpy(d->peer, peer, planes * sizeof *peer);
    d->have_peer = 1;
    return 0;
}

uint16_t mrc_dpdk_ev_sport(const mrc_dpdk *d, unsigned plane, unsigned k) {
    return (uint16_t)(d->cfg.ev_port + (plane - 1u) * d->K + k);
}
unsigned mrc_dpdk_planes(const mrc_dpdk *d) { return d->P; }
unsigned mrc_dpdk_evs_per_plane(const mrc_dpdk *d) { return d->K; }
uint16_t mrc_dpdk_port_id(const mrc_dpdk *d, unsigned plane) {
    return plane >= 1 && plane <= d->P ? d->port[plane - 1] : (uint16_t)0xFFFFu;
}
const char *mrc_dpdk_driver(const mrc_dpdk *d, unsigned plane) {
    return plane >= 1 && plane <= d->P ? d->drv[plane - 1] : "?";
}
int mrc_dpdk_zero_copy(const mrc_dpdk *d) { return d->cfg.zero_copy != 0; }

int mrc_dpdk_ev_profile(const mrc_dpdk *d, mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, unsigned min_active,
                        mrc_time now) {
    /* EV i: plane i % P + 1, that plane's EV i / P (source port mrc_dpdk_ev_sport) */
    return mrc_ev_profile_udp_planes(ep, fmt_id, prof_id, d->P, d->K, d->cfg.ev_port, min_active, now);
}

int mrc_dpdk_watch_fd(mrc_dpdk *d, int fd) {
    if (!d || fd < 0 || d->nwatch >= MRC_DPDK_MAX_WATCH) return -1;
    d->watch[d->nwatch].fd = fd;
    d->watch[d->nwatch].events = POLLIN;
    d->watch[d->nwatch].revents = 0;
    d->nwatch++;
    return 0;
}

void mrc_dpdk_stats_get(const mrc_dpdk *d, mrc_dpdk_stats *out) { *out = d->st; }
const char *mrc_dpdk_drop_name(int reason) { return mrc_frame_drop_name(reason); }

unsigned mrc_dpdk_ports(uint16_t *ids, unsigned max) {
    unsigned n = 0;
    uint64_t p;
    if (!d_eal_done && rte_lcore_count() == 0) return 0;
    for (p = rte_eth_find_next(0); p < RTE_MAX_ETHPORTS; p = rte_eth_find_next((uint16_t)(p + 1u))) {
        if (n < max && ids) ids[n] = (uint16_t)p;
        n++;
    }
    return n;
}

/* ---- transmit --------------------------------------------------------------------------------------------------- */
/* Hand plane i's waiting frames to its TX queue, in order. What the queue refuses stays first in line; a queue that
 * refuses everything for tx_stuck_ns loses its frames, as a wire would (the core retransmits). */
static void d_flush_plane(mrc_dpdk *d, unsigned i, mrc_time now) {
    unsigned n = d->npend[i], k, j;
    mrc_dpdk_plane_stats *ps = &d->st.plane[i];
    if (!n) return;
    k = rte_eth_tx_burst(d->port[i], 0, d->pend[i], (uint16_t)n);
    for (j = 0; j < k; j++) ps->tx_bytes += d->pend_len[i][j];
    ps->tx_pkts += k;
    if (k == n) {
        d->npend[i] = 0;
        d->refused_since[i] = 0;
        return;
    }
    ps->tx_refused += n - k;
    if (k) {
        memmove(d->pend[i], d->pend[i] + k, (n - k) * sizeof d->pend[i][0]);
        memmove(d->pend_len[i], d->pend_len[i] + k, (n - k) * sizeof d->pend_len[i][0]);
        d->npend[i] = n - k;
        d->refused_since[i] = now;
        return;
    }
    if (!d->refused_since[i]) {
        d->refused_since[i] = now;
    } else if (now - d->refused_since[i] > d->cfg.tx_stuck_ns) {
        rte_pktmbuf_free_bulk(d->pend[i], n);
        ps->tx_drop += n;
        d->npend[i] = 0;
        d->refused_since[i] = 0;
    }
}

static void d_flush_all(mrc_dpdk *d, mrc_time now) {
    unsigned i;
    for (i = 0; i < d->P; i++) d_flush_plane(d, i, now);
}

/* some plane's queue is behind by a whole burst: the core keeps its packets until it catches up */
static int d_backlogged(const mrc_dpdk *d) {
    unsigned i;
    for (i = 0; i < d->P; i++)
        if (d->npend[i] >= MRC_DPDK_BURST_MAX) return 1;
    return 0;
}

static void d_queue(mrc_dpdk *d, unsigned i, struct rte_mbuf *m) {
    if (d->npend[i] >= D_PEND_MAX) { /* cannot happen while the core is paused at MRC_DPDK_BURST_MAX */
        rte_pktmbuf_free(m);
        d->st.plane[i].tx_drop++;
        return;
    }
    d->pend[i][d->npend[i]] = m;
    d->pend_len[i][d->npend[i]] = m->pkt_len;
    d->npend[i]++;
}

/* Finish the frame of m for plane p: its MRC headers (ti->hdr_len bytes) are at buf_addr + D_MRC_OFF, followed by the
 * payload and pad when in_place. Writes the L2-L4 header in front of them and the payload (copied, or attached as an
 * external buffer), pad and ICRC behind, and queues it. Frees m on failure. */
static void d_frame(mrc_dpdk *d, struct rte_mbuf *m, unsigned p, const mrc_txinfo *ti, const mrc_ev_hdrs *evh,
                    int in_place) {
    uint8_t *mrc = (uint8_t *)m->buf_addr + D_MRC_OFF, *f;
    size_t h = mrc_frame_hdr_len(&d->fr, ti), l3 = 0, hl, tot;
    uint32_t plen = ti->payload_len, pad = ti->pad;
    struct rte_mbuf *x = NULL, *t = NULL;
    mrc_dpdk_plane_stats *ps = &d->st.plane[p - 1u];
    int zc = 0;
    if (!h || h > D_MRC_OFF) goto drop;
    f = mrc - h;
    if (mrc_frame_write_hdr(&d->fr, &d->local[p - 1u], &d->peer[p - 1u], ti, evh, f, h, &l3) < 0) goto drop;
    m->data_off = (uint16_t)(D_MRC_OFF - h);
    hl = h + ti->hdr_len;
    if (!in_place && plen >= d->cfg.zc_min_payload && d->zc_ok[p - 1u] && ti->payload && plen <= 0xFFFFu) {
        if (d->ext_next - d->ext_low <= d->slot_mask && (x = rte_pktmbuf_alloc(d->xpool)) != NULL &&
            (t = rte_pktmbuf_alloc(d->xpool)) != NULL) {
            zc = 1;
        } else {
            if (x) rte_pktmbuf_free(x);
            d->st.zc_fallback++;
        }
    }
    if (zc) {
        d_slot *s = &d->slot[d->ext_next & d->slot_mask];
        uint8_t *tail = rte_pktmbuf_mtod(t, uint8_t *);
        void *pl = (void *)(uintptr_t)ti->payload; /* never written: a TX-only attachment */
        uint32_t icrc = mrc_frame_icrc(&d->fr, f + l3, hl - l3, ti->payload, plen, pad);
        s->busy = 1;
        rte_mbuf_ext_refcnt_set(&s->sh, 1);
        d->ext_next++;
        d->st.ext_attached++;
        rte_pktmbuf_attach_extbuf(x, pl, rte_mem_virt2iova(pl), (uint16_t)plen, &s->sh);
        x->data_len = (uint16_t)plen;
        memset(tail, 0, pad);
        mrc_icrc_put(tail + pad, icrc);
        t->data_len = (uint16_t)(pad + MRC_FRAME_ICRC_LEN);
        m->data_len = (uint16_t)hl;
        m->next = x;
        x->next = t;
        t->next = NULL;
        m->nb_segs = 3;
        m->pkt_len = (uint32_t)(hl + plen + pad + MRC_FRAME_ICRC_LEN);
        d->st.tx_zc++;
    } else {
        if (!in_place) {
            if (D_MRC_OFF + (size_t)ti->hdr_len + plen + pad + MRC_FRAME_ICRC_LEN > m->buf_len) goto drop;
            if (plen) memcpy(mrc + ti->hdr_len, ti->payload, plen);
            memset(mrc + ti->hdr_len + plen, 0, pad);
        }
        tot = hl + plen + pad;
        mrc_icrc_put(f + tot, mrc_frame_icrc(&d->fr, f + l3, tot - l3, (const uint8_t *)0, 0, 0));
        m->data_len = (uint16_t)(tot + MRC_FRAME_ICRC_LEN);
        m->pkt_len = m->data_len;
        if (plen) d->st.tx_copy++;
    }
    d_queue(d, p - 1u, m);
    return;
drop:
    rte_pktmbuf_free(m);
    ps->tx_drop++;
}

/* Pull up to tx_burst packets from the core into mbufs and send them. *more: 1 stopped at the burst limit with work
 * left, 2 stopped because a queue is behind or no mbuf was free, 0 the core has nothing more now. */
static int d_tx_core(mrc_dpdk *d, mrc_endpoint *ep, mrc_time now, int *more) {
    unsigned fl = d->cfg.zero_copy ? 0u : (unsigned)MRC_TX_COPY;
    int n = 0;
    *more = 0;
    d_flush_all(d, now);
    while ((unsigned)n < d->cfg.tx_burst) {
        struct rte_mbuf *m;
        mrc_txinfo ti;
        mrc_ev_hdrs evh;
        int r;
        if (d_backlogged(d)) {
            *more = 2;
            break;
        }
        m = rte_pktmbuf_alloc(d->pool);
        if (!m) {
            d->st.no_mbuf++;
            *more = 2;
            break;
        }
        r = mrc_endpoint_poll_tx(ep, (uint8_t *)m->buf_addr + D_MRC_OFF,
                                 fl ? (size_t)m->buf_len - D_MRC_OFF - MRC_FRAME_ICRC_LEN : (size_t)MRC_HDR_MAX, fl, &ti,
                                 now);
        if (r <= 0) {
            rte_pktmbuf_free(m);
            break;
        }
        n++;
        if (ti.port < 1 || ti.port > d->P || !d->have_peer || mrc_endpoint_ev_headers(ep, &ti, &evh) != MRC_OK) {
            rte_pktmbuf_free(m); /* a port this adapter does not have, or no peer yet: lost, as on a wire */
            if (ti.port >= 1 && ti.port <= d->P) d->st.plane[ti.port - 1u].tx_drop++;
            continue;
        }
        d_frame(d, m, ti.port, &ti, &evh, fl != 0);
    }
    if ((unsigned)n == d->cfg.tx_burst) *more = 1;
    d_flush_all(d, now);
    return n;
}

/* ---- receive ---------------------------------------------------------------------------------------------------- */
/* One received frame of plane i (0-based): checked, then to the core (ep) or to the raw callback. */
static void d_rx_one(mrc_dpdk *d, unsigned i, struct rte_mbuf *m, mrc_endpoint *ep, mrc_dpdk_raw_fn fn, void *ud,
                     mrc_time now) {
    mrc_dpdk_plane_stats *ps = &d->st.plane[i];
    const uint8_t *f;
    uint32_t len = m->pkt_len;
    mrc_frame_rx rx;
    mrc_rxinfo ri;
    int r;
    ps->rx_pkts++;
    ps->rx_bytes += len;
    if (m->nb_segs > 1 || m->data_len != m->pkt_len) {
        if (len > D_SCRATCH) {
            ps->rx_too_long++;
            return;
        }
        f = (const uint8_t *)rte_pktmbuf_read(m, 0, len, d->scratch);
        if (!f) {
            ps->rx_drop[MRC_FRAME_DROP_SHORT]++;
            return;
        }
        ps->rx_linearised++;
    } else {
        f = rte_pktmbuf_mtod(m, const uint8_t *);
    }
    r = mrc_frame_parse(&d->fr, &d->local[i], f, len, &rx);
    if (r != MRC_FRAME_OK) {
        if (r > 0 && r < (int)MRC_FRAME_DROP_NDROP) ps->rx_drop[r]++;
        return;
    }
    if (d->cfg.check_peer && d->have_peer && memcmp(rx.src_ip, d->peer[i].ip, d->iplen) != 0) {
        ps->rx_foreign++;
        return;
    }
    if (fn) {
        fn(ud, i + 1u, f + rx.mrc_off, rx.mrc_len, now);
        return;
    }
    mrc_frame_rxinfo(&rx, i + 1u, d->cfg.peer, &ri); /* flags TRIMMED / ICRC_BAD as the codec found them */
    if (mrc_endpoint_recv(ep, f + rx.mrc_off, rx.mrc_len, &ri, now) == MRC_ERR_DROP) d->st.core_rx_rejected++;
}

/* One receive round: a burst from every plane, handed over interleaved frame by frame across the planes (close to
 * arrival order; one plane's whole burst after another's would show the core holes that are not losses). With ep,
 * a transmit burst follows every rx_tx_every frames. Returns the frames received. */
static int d_rx_round(mrc_dpdk *d, mrc_endpoint *ep, mrc_dpdk_raw_fn fn, void *ud, mrc_time *now) {
    uint16_t n[MRC_DPDK_MAX_PLANES];
    unsigned i, j, total = 0, most = 0, handed = 0;
    int more;
    for (i = 0; i < d->P; i++) {
        n[i] = rte_eth_rx_burst(d->port[i], 0, d->rxm[i], (uint16_t)d->cfg.rx_burst);
        total += n[i];
        if (n[i] > most) most = n[i];
    }
    if (!total) return 0;
    *now = mrc_dpdk_now(d);
    for (j = 0; j < most; j++)
        for (i = 0; i < d->P; i++) {
            if (j >= n[i]) continue;
            d_rx_one(d, i, d->rxm[i][j], ep, fn, ud, *now);
            if (ep && d->cfg.rx_tx_every && ++handed % d->cfg.rx_tx_every == 0) (void)d_tx_core(d, ep, *now, &more);
        }
    for (i = 0; i < d->P; i++)
        if (n[i]) rte_pktmbuf_free_bulk(d->rxm[i], n[i]);
    return (int)total;
}

/* ---- the loop --------------------------------------------------------------------------------------------------- */
static void d_timers(mrc_dpdk *d, mrc_endpoint *ep, mrc_time now) {
    if (mrc_endpoint_next_deadline(ep) <= now) {
        (void)mrc_endpoint_on_timeout(ep, now);
        d->st.timeouts_run++;
    }
}

/* poll() the watched fds (0 timeout) when due; returns the ready bitmap */
static unsigned d_poll_fds(mrc_dpdk *d, mrc_time now, int force) {
    unsigned i, ready = 0;
    if (!d->nwatch || (!force && now < d->next_fd_poll)) return 0;
    d->next_fd_poll = now + d->cfg.fd_poll_ns;
    d->st.fd_polls++;
    if (poll(d->watch, d->nwatch, 0) > 0)
        for (i = 0; i < d->nwatch; i++)
            if (d->watch[i].revents) ready |= 1u << i;
    return ready;
}

static int d_held_ready(const mrc_dpdk *d) { return d->nheld && d->ext_low >= d->held[d->held_head].mark; }

int mrc_dpdk_step(mrc_dpdk *d, mrc_endpoint *ep, mrc_time wake_at, unsigned *ready) {
    mrc_time now = mrc_dpdk_now(d), t_iter;
    unsigned rd = 0, round;
    int moved = 0, n, more = 0, held_was = d_held_ready(d);
    if (ready) *ready = 0;
    for (;;) {
        t_iter = now;
        d->st.loops++;
        d_timers(d, ep, now);
        n = d_tx_core(d, ep, now, &more);
        moved += n;
        for (round = 0; round < 4u; round++) {
            n = d_rx_round(d, ep, NULL, NULL, &now);
            if (!n) break;
            moved += n;
            now = mrc_dpdk_now(d);
            d_timers(d, ep, now);
            n = d_tx_core(d, ep, now, &more);
            moved += n;
        }
        now = mrc_dpdk_now(d);
        rd |= d_poll_fds(d, now, 0);
        if (moved) {
            if (now - t_iter > d->st.step_max_ns) d->st.step_max_ns = now - t_iter;
            d->idle_since = 0;
            break;
        }
        /* an event the timers queued (with nothing moved) is the application's to pull: no spin or sleep over it */
        if (rd || (!held_was && d_held_ready(d)) || wake_at == 0 || now >= wake_at || mrc_endpoint_event_pending(ep))
            break;
        if (!d->idle_since) {
            d->idle_since = now;
        } else if (d->cfg.idle_sleep_ns && now - d->idle_since >= d->cfg.idle_spin_ns) {
            /* idle for a while on a shared host: give the CPU away briefly (the watched fds still wake us) */
            mrc_time until = now + d->cfg.idle_sleep_ns, dl = mrc_endpoint_next_deadline(ep);
            struct timespec ts;
            if (wake_at < until) until = wake_at;
            if (dl < until) until = dl;
            if (until > now) {
                ts.tv_sec = (time_t)((until - now) / 1000000000u);
                ts.tv_nsec = (long)((until - now) % 1000000000u);
                d->st.idle_sleeps++;
                if (ppoll(d->nwatch ? d->watch : NULL, d->nwatch, &ts, NULL) > 0) rd |= d_poll_fds(d, now, 1);
                now = mrc_dpdk_now(d);
                continue;
            }
        }
        if (d->nheld && now >= d->next_cleanup) { /* a held completion waits for a driver to free its mbufs */
            unsigned i;
            for (i = 0; i < d->P; i++) (void)rte_eth_tx_done_cleanup(d->port[i], 0, 0);
            d->st.tx_done_cleanups++;
            d->next_cleanup = now + 20000u;
        }
    }
    if (ready) *ready = rd;
    return moved;
}

int mrc_dpdk_poll_event(mrc_dpdk *d, mrc_endpoint *ep, mrc_event *ev) {
    for (;;) {
        mrc_event e;
        int r;
        if (d->nheld) {
            d_held *h = &d->held[d->held_head];
            if (d->ext_low < h->mark) {
                mrc_time now = mrc_dpdk_now(d);
                if (now >= d->next_cleanup) {
                    unsigned i;
                    for (i = 0; i < d->P; i++) (void)rte_eth_tx_done_cleanup(d->port[i], 0, 0);
                    d->st.tx_done_cleanups++;
                    d->next_cleanup = now + 20000u;
                }
            }
            if (d->ext_low >= h->mark) {
                mrc_time w = mrc_dpdk_now(d) - h->t;
                *ev = h->ev;
                if (w > d->st.ev_hold_max_ns) d->st.ev_hold_max_ns = w;
                d->held_head = (d->held_head + 1u) % d->held_cap;
                d->nheld--;
                return 1;
            }
            if (d->nheld == d->held_cap) return 0;
        }
        r = mrc_endpoint_poll_event(ep, &e);
        if (r <= 0) return r;
        if (e.type != MRC_EVT_SEND_DONE || (!d->nheld && d->ext_low == d->ext_next)) {
            *ev = e;
            return 1;
        }
        { /* the buffer may still be referenced by an mbuf: hold the completion */
            d_held *h = &d->held[(d->held_head + d->nheld) % d->held_cap];
            h->ev = e;
            h->mark = d->ext_next;
            h->t = mrc_dpdk_now(d);
            d->nheld++;
            d->st.ev_held++;
            if (d->nheld > d->st.ev_held_max) d->st.ev_held_max = d->nheld;
        }
    }
}

/* ---- raw frames ------------------------------------------------------------------------------------------------- */
int mrc_dpdk_raw_send(mrc_dpdk *d, unsigned plane, unsigned k, const void *hdr, size_t hlen, const void *payload,
                      size_t plen) {
    struct rte_mbuf *m;
    mrc_txinfo ti;
    mrc_ev_hdrs evh;
    mrc_time t0 = 0;
    if (!d || plane < 1 || plane > d->P || k >= d->K || hlen > MRC_HDR_MAX || hlen < 1 || plen > 4096u ||
        (plen && !payload) || !d->have_peer)
        return -1;
    while (d->npend[plane - 1u] >= MRC_DPDK_BURST_MAX || !(m = rte_pktmbuf_alloc(d->pool))) {
        mrc_time now = mrc_dpdk_now(d);
        if (!t0) t0 = now;
        if (now - t0 > d->cfg.tx_stuck_ns) return -1;
        d_flush_all(d, now);
    }
    memset(&ti, 0, sizeof ti);
    memset(&evh, 0, sizeof evh);
    ti.port = (uint8_t)plane;
    ti.dscp = 10;
    ti.opcode = MRC_OP_WRITE_FIRST;
    ti.ev = mrc_dpdk_ev_sport(d, plane, k);
    ti.ev_fmt = MRC_EV_FMT_UDP;
    ti.hdr_len = (uint32_t)hlen;
    ti.payload = (const uint8_t *)payload;
    ti.payload_len = (uint32_t)plen;
    ti.pad = (uint8_t)((4u - (plen & 3u)) & 3u);
    evh.udp_sport = (uint16_t)ti.ev;
    memcpy((uint8_t *)m->buf_addr + D_MRC_OFF, hdr, hlen);
    d_frame(d, m, plane, &ti, &evh, 0);
    if (d->npend[plane - 1u] >= d->cfg.tx_burst) d_flush_plane(d, plane - 1u, mrc_dpdk_now(d));
    return 0;
}

int mrc_dpdk_raw_flush(mrc_dpdk *d) {
    unsigned i, left;
    do {
        d_flush_all(d, mrc_dpdk_now(d));
        for (i = 0, left = 0; i < d->P; i++) left += d->npend[i];
    } while (left);
    return 0;
}

int mrc_dpdk_raw_recv(mrc_dpdk *d, uint64_t timeout_ns, mrc_dpdk_raw_fn fn, void *ud, unsigned *ready) {
    mrc_time now = mrc_dpdk_now(d), end = now + timeout_ns;
    unsigned rd = 0;
    int total = 0, n, round;
    for (;;) {
        for (round = 0; round < 4; round++) {
            n = d_rx_round(d, NULL, fn, ud, &now);
            if (!n) break;
            total += n;
        }
        now = mrc_dpdk_now(d);
        rd |= d_poll_fds(d, now, 0);
        if (total || rd || !timeout_ns || now >= end) break;
    }
    if (ready) *ready = rd;
    return total;
}
