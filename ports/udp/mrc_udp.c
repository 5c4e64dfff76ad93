/* mrc_udp.c - Linux UDP port adapter for open MRC. See mrc_udp.h and README.md.
 *
 * Only sockets and time live here: datagrams in -> mrc_endpoint_recv, mrc_endpoint_poll_tx -> datagrams out, the
 * core's absolute deadline -> a timerfd. The optional impairment shim decides per transmitted datagram, from its own
 * seeded PRNG, whether to drop, duplicate, trim or delay it; it never reads MRC headers (a trim keeps the first
 * hdr_len bytes, which the core reported in mrc_txinfo).
 */
#define _GNU_SOURCE
#include "mrc_udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define U_NSOCK_MAX (MRC_UDP_MAX_PLANES + MRC_UDP_MAX_EVS)
#define U_DELAY_SLOTS 4096u
#define U_TAG_TIMER 0xFFFFu
#define U_TAG_WATCH 0x10000u

typedef struct u_tx {         /* one datagram waiting in the transmit batch */
    uint8_t hdr[MRC_HDR_MAX];
    struct iovec iov[3];
    uint32_t niov, len;
    uint16_t sock;            /* index in u->fd[] */
    uint8_t plane;            /* 1-based */
    uint8_t tos;              /* IP TOS byte to send with */
} u_tx;

#define U_RX_SLOTS (MRC_UDP_MAX_PLANES * MRC_UDP_BATCH)
typedef struct u_rxi {        /* a received datagram waiting for its turn (arrival order across planes) */
    uint64_t ts;              /* kernel receive time (SO_TIMESTAMPNS), 0 when missing */
    mrc_rxinfo ri;
    uint32_t len;
    uint16_t slot;
} u_rxi;

typedef struct u_delayed {    /* a datagram held by the delay impairment (bytes copied) */
    mrc_time due;
    uint16_t sock;
    uint8_t plane, tos;
    uint32_t len;
    uint8_t *buf;
} u_delayed;

struct mrc_udp {
    mrc_udp_config cfg;
    unsigned P, K;
    int fam;
    /* sockets: fd[0..P) data (receive) sockets of planes 1..P; fd[P + (p-1)*K + k] EV k of plane p */
    int fd[U_NSOCK_MAX];
    unsigned nsock;
    int cur_tos[U_NSOCK_MAX];
    struct sockaddr_storage local_data[MRC_UDP_MAX_PLANES];
    struct sockaddr_storage peer[MRC_UDP_MAX_PLANES];
    socklen_t peer_len;
    int have_peer;
    uint16_t peer_ev_first;   /* the peer's EV source ports (P38), none when peer_ev_n is 0 */
    unsigned peer_ev_n;
    int ep, tfd;
    int no_pwait2;            /* epoll_pwait2 missing: the timerfd carries the deadline */
    mrc_endpoint *rx_ep;      /* the endpoint of the current step */
    mrc_time timer_armed;     /* absolute time the timerfd is armed for, MRC_TIME_NEVER = disarmed */
    int watch[MRC_UDP_MAX_WATCH];
    unsigned nwatch;
    uint32_t wait_out;        /* the blocked socket is registered for EPOLLOUT (at most one socket blocks at a time) */
    int blocked_sock;         /* socket whose send returned EAGAIN, -1 none */
    /* transmit batch */
    u_tx tx[MRC_UDP_BATCH];
    unsigned ntx;
    struct mmsghdr mm[MRC_UDP_BATCH];
    /* receive round: one batch per plane socket, slots [plane * MRC_UDP_BATCH, + batch) */
    uint8_t *rxbuf;           /* MRC_UDP_MAX_PLANES x MRC_UDP_BATCH x MRC_UDP_PKT_MAX */
    struct mmsghdr rmm[U_RX_SLOTS];
    struct iovec riov[U_RX_SLOTS];
    struct sockaddr_storage rname[U_RX_SLOTS];
    union { struct cmsghdr align; uint8_t b[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct timespec)) + 16]; } rctl[U_RX_SLOTS];
    u_rxi rxi[U_RX_SLOTS];    /* the round's datagrams, per socket in arrival order */
    unsigned run_beg[MRC_UDP_MAX_PLANES], run_end[MRC_UDP_MAX_PLANES], nrxi;
    /* impairment */
    uint64_t rng;
    mrc_time imp_t0;
    int imp_on;
    mrc_time busy_until[MRC_UDP_MAX_PLANES]; /* link model: when each plane's serializer is free */
    u_delayed *dl;            /* delay line, ring of U_DELAY_SLOTS, kept in due order per insertion (FIFO by due) */
    uint8_t *dl_mem;
    unsigned dl_head, dl_len;
    mrc_udp_stats st;
};

static const uint8_t u_zero_pad[4] = {0, 0, 0, 0};

mrc_time mrc_udp_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (mrc_time)ts.tv_sec * 1000000000u + (mrc_time)ts.tv_nsec;
}

static uint64_t u_rand(mrc_udp *u) { /* splitmix64 */
    uint64_t z = (u->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int u_chance(mrc_udp *u, uint32_t ppm) {
    if (!ppm) return 0;
    if (ppm >= MRC_UDP_PPM) return 1;
    return (u_rand(u) >> 32) % MRC_UDP_PPM < ppm;
}

static void u_loopback(struct sockaddr_storage *ss, int fam) {
    memset(ss, 0, sizeof *ss);
    if (fam == AF_INET6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_addr = in6addr_loopback;
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
        s4->sin_family = AF_INET;
        s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
}

void mrc_udp_config_default(mrc_udp_config *cfg) {
    unsigned p;
    memset(cfg, 0, sizeof *cfg);
    cfg->family = AF_INET;
    cfg->planes = 8;
    cfg->evs_per_plane = 16;
    for (p = 0; p < MRC_UDP_MAX_PLANES; p++) u_loopback(&cfg->local[p], AF_INET);
    cfg->data_port = 0;
    cfg->ev_port = 20000;
    cfg->rcvbuf = 8 << 20;
    cfg->sndbuf = 1 << 20;
    cfg->batch = 32;
    cfg->tx_burst = 64;
    cfg->rx_tx_every = 16;
    cfg->set_tos = 1;
    cfg->ecn = 1;
    cfg->trimmed_dscp = 3;
    cfg->peer = 1;
    cfg->impair_seed = 1;
    cfg->plane_queue_bytes = 256u << 10;
}

int mrc_udp_config_set_local(mrc_udp_config *cfg, unsigned plane, const char *addr) {
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    if (!cfg || plane < 1 || plane > MRC_UDP_MAX_PLANES || !addr) return -1;
    if (inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
        ss.ss_family = AF_INET;
    } else if (inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
        ss.ss_family = AF_INET6;
    } else {
        return -1;
    }
    cfg->local[plane - 1] = ss;
    return 0;
}

static socklen_t u_salen(int fam) {
    return fam == AF_INET6 ? (socklen_t)sizeof(struct sockaddr_in6) : (socklen_t)sizeof(struct sockaddr_in);
}
static void u_setport(struct sockaddr_storage *ss, uint16_t port) {
    if (ss->ss_family == AF_INET6) ((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
    else ((struct sockaddr_in *)ss)->sin_port = htons(port);
}
static uint16_t u_getport(const struct sockaddr_storage *ss) {
    if (ss->ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
    return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}
static void u_fmt(const struct sockaddr_storage *ss, char *buf, size_t n) {
    char a[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, a, sizeof a);
        snprintf(buf, n, "[%s]:%u", a, (unsigned)u_getport(ss));
    } else {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, a, sizeof a);
        snprintf(buf, n, "%s:%u", a, (unsigned)u_getport(ss));
    }
}
static int u_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b) {
    if (a->ss_family != b->ss_family) return 0;
    if (a->ss_family == AF_INET6)
        return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
                       sizeof(struct in6_addr));
    return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
}

static void u_bufsize(int fd, int force_opt, int opt, int bytes) {
    if (setsockopt(fd, SOL_SOCKET, force_opt, &bytes, sizeof bytes) != 0) /* root: beyond rmem_max/wmem_max */
        (void)setsockopt(fd, SOL_SOCKET, opt, &bytes, sizeof bytes);
}

static int u_set_tos(mrc_udp *u, unsigned s, int tos) {
    int rc;
    if (u->cur_tos[s] == tos) return 0;
    if (u->fam == AF_INET6) rc = setsockopt(u->fd[s], IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof tos);
    else rc = setsockopt(u->fd[s], IPPROTO_IP, IP_TOS, &tos, sizeof tos);
    if (rc == 0) {
        u->cur_tos[s] = tos;
        u->st.tos_changes++;
    }
    return rc;
}

static int u_err(char *err, size_t n, const char *fmt, const char *what, int e) {
    if (err && n) snprintf(err, n, fmt, what, strerror(e));
    return -1;
}

int mrc_udp_open(mrc_udp **out, const mrc_udp_config *cfg, char *err, size_t errlen) {
    mrc_udp *u;
    unsigned p, k, s, i;
    char where[160], addr[80];
    int one = 1;
    if (!out || !cfg) return -1;
    *out = NULL;
    if (cfg->family != AF_INET && cfg->family != AF_INET6) {
        snprintf(err, errlen, "address family must be IPv4 or IPv6");
        return -1;
    }
    if (cfg->planes < 1 || cfg->planes > MRC_UDP_MAX_PLANES || cfg->evs_per_plane < 1 ||
        cfg->planes * cfg->evs_per_plane > MRC_UDP_MAX_EVS || cfg->planes * cfg->evs_per_plane > MRC_MAX_EVS) {
        snprintf(err, errlen, "planes (1..%u) x EVs per plane must be at most %u", (unsigned)MRC_UDP_MAX_PLANES,
                 (unsigned)(MRC_UDP_MAX_EVS < MRC_MAX_EVS ? MRC_UDP_MAX_EVS : MRC_MAX_EVS));
        return -1;
    }
    if ((unsigned)cfg->ev_port + cfg->planes * cfg->evs_per_plane > 65536u || cfg->ev_port == 0 ||
        (unsigned)cfg->data_port + cfg->planes > 65536u) {
        snprintf(err, errlen, "UDP port range past 65535 (EV ports %u + %u, data ports %u + %u)",
                 (unsigned)cfg->ev_port, cfg->planes * cfg->evs_per_plane, (unsigned)cfg->data_port, cfg->planes);
        return -1;
    }
    if (cfg->batch < 1 || cfg->batch > MRC_UDP_BATCH || cfg->nrules > MRC_UDP_MAX_RULES) {
        snprintf(err, errlen, "batch must be 1..%u and at most %u impairment rules", (unsigned)MRC_UDP_BATCH,
                 (unsigned)MRC_UDP_MAX_RULES);
        return -1;
    }
    for (p = 0; p < cfg->planes; p++)
        if (cfg->local[p].ss_family != cfg->family) {
            snprintf(err, errlen, "plane %u local address is not of the selected address family", p + 1u);
            return -1;
        }
    u = (mrc_udp *)calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    u->cfg = *cfg;
    u->P = cfg->planes;
    u->K = cfg->evs_per_plane;
    u->fam = cfg->family;
    u->nsock = u->P + u->P * u->K;
    u->ep = u->tfd = -1;
    u->blocked_sock = -1;
    u->timer_armed = MRC_TIME_NEVER;
    u->rng = cfg->impair_seed;
    for (s = 0; s < U_NSOCK_MAX; s++) {
        u->fd[s] = -1;
        u->cur_tos[s] = -1;
    }
    u->rxbuf = (uint8_t *)malloc((size_t)U_RX_SLOTS * MRC_UDP_PKT_MAX);
    if (!u->rxbuf) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    /* the EV sockets (fixed ports) first, the data sockets (maybe kernel-chosen ports) last, so that an ephemeral
       port can never land in the EV range */
    for (i = 0; i < u->nsock; i++) {
        struct sockaddr_storage a;
        int fd;
        s = (i + u->P) % u->nsock;
        if (s < u->P) {
            p = s;
            a = cfg->local[p];
            u_setport(&a, (uint16_t)(cfg->data_port ? cfg->data_port + p : 0u));
            u_fmt(&a, addr, sizeof addr);
            snprintf(where, sizeof where, "%s (plane %u receive socket)", addr, p + 1u);
        } else {
            p = (s - u->P) / u->K;
            k = (s - u->P) % u->K;
            a = cfg->local[p];
            u_setport(&a, mrc_udp_ev_sport(u, p + 1u, k));
            u_fmt(&a, addr, sizeof addr);
            snprintf(where, sizeof where, "%s (plane %u EV %u)", addr, p + 1u, k);
        }
        fd = socket(u->fam, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
        if (fd < 0) {
            u_err(err, errlen, "cannot create UDP socket for %s: %s", where, errno);
            goto fail;
        }
        u->fd[s] = fd;
        if (u->fam == AF_INET6) (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        if (s < u->P) {
            u_bufsize(fd, SO_RCVBUFFORCE, SO_RCVBUF, cfg->rcvbuf);
            u_bufsize(fd, SO_SNDBUFFORCE, SO_SNDBUF, cfg->sndbuf);
            if (u->fam == AF_INET6) (void)setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one, sizeof one);
            else (void)setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof one);
            (void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one); /* arrival order across planes */
        } else {
            int small = 4096;
            u_bufsize(fd, SO_SNDBUFFORCE, SO_SNDBUF, cfg->sndbuf);
            (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small); /* send-only */
        }
        if (bind(fd, (struct sockaddr *)&a, u_salen(u->fam)) != 0) {
            u_err(err, errlen, "cannot bind UDP %s: %s", where, errno);
            goto fail;
        }
        if (s < u->P) {
            socklen_t l = (socklen_t)sizeof u->local_data[p];
            if (getsockname(fd, (struct sockaddr *)&u->local_data[p], &l) != 0) {
                u_err(err, errlen, "getsockname %s: %s", where, errno);
                goto fail;
            }
        }
    }
    u->ep = epoll_create1(EPOLL_CLOEXEC);
    u->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (u->ep < 0 || u->tfd < 0) {
        u_err(err, errlen, "%s: %s", "epoll/timerfd", errno);
        goto fail;
    }
    for (s = 0; s <= u->P; s++) {
        struct epoll_event e;
        memset(&e, 0, sizeof e);
        e.events = EPOLLIN;
        e.data.u32 = s < u->P ? s : U_TAG_TIMER;
        if (epoll_ctl(u->ep, EPOLL_CTL_ADD, s < u->P ? u->fd[s] : u->tfd, &e) != 0) {
            u_err(err, errlen, "%s: %s", "epoll_ctl", errno);
            goto fail;
        }
    }
    for (s = 0; s < U_RX_SLOTS; s++) {
        u->riov[s].iov_base = u->rxbuf + (size_t)s * MRC_UDP_PKT_MAX;
        u->riov[s].iov_len = MRC_UDP_PKT_MAX;
    }
    for (s = 0; s < cfg->nrules; s++)
        if (cfg->rule[s].delay_ns || cfg->rule[s].jitter_ns) break;
    if (s < cfg->nrules || cfg->plane_rate_mbps) {
        u->dl = (u_delayed *)calloc(U_DELAY_SLOTS, sizeof *u->dl);
        u->dl_mem = (uint8_t *)malloc((size_t)U_DELAY_SLOTS * MRC_UDP_PKT_MAX);
        if (!u->dl || !u->dl_mem) {
            snprintf(err, errlen, "out of memory for the delay line");
            goto fail;
        }
        for (s = 0; s < U_DELAY_SLOTS; s++) u->dl[s].buf = u->dl_mem + (size_t)s * MRC_UDP_PKT_MAX;
    }
    *out = u;
    return 0;
fail:
    mrc_udp_close(u);
    return -1;
}

void mrc_udp_close(mrc_udp *u) {
    unsigned s;
    if (!u) return;
    for (s = 0; s < U_NSOCK_MAX; s++)
        if (u->fd[s] >= 0) close(u->fd[s]);
    if (u->ep >= 0) close(u->ep);
    if (u->tfd >= 0) close(u->tfd);
    free(u->rxbuf);
    free(u->dl);
    free(u->dl_mem);
    free(u);
}

int mrc_udp_local_addr(const mrc_udp *u, unsigned plane, struct sockaddr_storage *out) {
    if (!u || plane < 1 || plane > u->P || !out) return -1;
    *out = u->local_data[plane - 1];
    return 0;
}
uint16_t mrc_udp_ev_sport(const mrc_udp *u, unsigned plane, unsigned k) {
    return (uint16_t)(u->cfg.ev_port + (plane - 1u) * u->K + k);
}
unsigned mrc_udp_planes(const mrc_udp *u) { return u->P; }
unsigned mrc_udp_evs_per_plane(const mrc_udp *u) { return u->K; }

int mrc_udp_set_peer(mrc_udp *u, const struct sockaddr_storage *peer, unsigned planes, char *err, size_t errlen) {
    unsigned p, k;
    char addr[80];
    if (!u || !peer || planes != u->P) {
        snprintf(err, errlen, "peer has %u planes, this side %u", planes, u ? u->P : 0u);
        return -1;
    }
    for (p = 0; p < u->P; p++) {
        if (peer[p].ss_family != u->fam) {
            snprintf(err, errlen, "peer plane %u address is not of the selected address family", p + 1u);
            return -1;
        }
        u->peer[p] = peer[p];
        for (k = 0; k < u->K; k++) {
            int fd = u->fd[u->P + p * u->K + k];
            if (connect(fd, (const struct sockaddr *)&peer[p], u_salen(u->fam)) != 0) {
                u_fmt(&peer[p], addr, sizeof addr);
                return u_err(err, errlen, "cannot connect a UDP socket to %s: %s", addr, errno);
            }
        }
    }
    u->peer_len = u_salen(u->fam);
    u->have_peer = 1;
    return 0;
}
int mrc_udp_set_peer_sports(mrc_udp *u, uint16_t ev_first, unsigned ev_count) {
    if (!u || (unsigned)ev_first + ev_count > 65536u) return -1;
    u->peer_ev_first = ev_first;
    u->peer_ev_n = ev_count;
    return 0;
}

int mrc_udp_ev_profile(const mrc_udp *u, mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, unsigned min_active,
                       mrc_time now) {
    /* EV i: plane i % P + 1, that plane's EV i / P (source port mrc_udp_ev_sport) */
    return mrc_ev_profile_udp_planes(ep, fmt_id, prof_id, u->P, u->K, u->cfg.ev_port, min_active, now);
}

int mrc_udp_watch_fd(mrc_udp *u, int fd) {
    struct epoll_event e;
    if (!u || u->nwatch >= MRC_UDP_MAX_WATCH) return -1;
    memset(&e, 0, sizeof e);
    e.events = EPOLLIN | EPOLLRDHUP;
    e.data.u32 = U_TAG_WATCH | u->nwatch;
    if (epoll_ctl(u->ep, EPOLL_CTL_ADD, fd, &e) != 0) return -1;
    u->watch[u->nwatch++] = fd;
    return 0;
}

void mrc_udp_impair_start(mrc_udp *u, mrc_time t0) {
    u->imp_t0 = t0;
    u->imp_on = u->cfg.nrules > 0;
}

void mrc_udp_stats_get(const mrc_udp *u, mrc_udp_stats *out) { *out = u->st; }

/* ---- transmit ------------------------------------------------------------------------------------------------- */
/* Send the batch in order: one sendmmsg per run of adjacent datagrams on the same socket with the same TOS
 * (grouping a batch by socket would reorder it, which the receiver would see as holes). A socket that says EAGAIN
 * keeps that datagram and every later one in the batch; the caller waits for EPOLLOUT. Returns 0, or 1 when
 * something is left. */
static int u_flush(mrc_udp *u) {
    unsigned i = 0, n = u->ntx, j;
    if (!n) return 0;
    while (i < n) {
        unsigned s = u->tx[i].sock, m = 0;
        int tos = u->tx[i].tos, r;
        for (j = i; j < n && u->tx[j].sock == s && (!u->cfg.set_tos || u->tx[j].tos == tos); j++) {
            u_tx *t = &u->tx[j];
            memset(&u->mm[m], 0, sizeof u->mm[m]);
            u->mm[m].msg_hdr.msg_iov = t->iov;
            u->mm[m].msg_hdr.msg_iovlen = t->niov;
            if (s < u->P) { /* the plane's data socket is not connected */
                u->mm[m].msg_hdr.msg_name = &u->peer[t->plane - 1u];
                u->mm[m].msg_hdr.msg_namelen = u->peer_len;
            }
            m++;
        }
        if (u->cfg.set_tos) (void)u_set_tos(u, s, tos);
        r = sendmmsg(u->fd[s], u->mm, m, MSG_DONTWAIT);
        u->st.sendmmsg_calls++;
        if (r < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
                u->st.plane[u->tx[i].plane - 1u].tx_blocked++;
                u->blocked_sock = (int)s;
                break;
            }
            /* a hard error for the first datagram (ECONNREFUSED after an ICMP, EPERM from a firewall, ENETUNREACH,
               EMSGSIZE): it is lost, as on a wire, and the rest still go */
            u->st.plane[u->tx[i].plane - 1u].tx_err++;
            i++;
            continue;
        }
        for (j = 0; j < (unsigned)r; j++) {
            u_tx *t = &u->tx[i + j];
            u->st.plane[t->plane - 1u].tx_pkts++;
            u->st.plane[t->plane - 1u].tx_bytes += t->len;
        }
        i += (unsigned)r;
    }
    if (i) { /* keep the unsent tail at the front */
        for (j = i; j < n; j++) {
            u->tx[j - i] = u->tx[j];
            u->tx[j - i].iov[0].iov_base = u->tx[j - i].hdr; /* iov[0] always points at the slot's own header */
        }
    }
    u->ntx = n - i;
    return u->ntx ? 1 : 0;
}

/* The socket a datagram of plane p with entropy ev leaves from. */
static unsigned u_sock_for(mrc_udp *u, unsigned plane, uint32_t ev, unsigned *k_out) {
    uint32_t base = u->cfg.ev_port + (plane - 1u) * u->K;
    if (ev >= base && ev < base + u->K) {
        *k_out = ev - base;
        return u->P + (plane - 1u) * u->K + (ev - base);
    }
    u->st.ev_unmapped++;
    *k_out = 0xFFFFu;
    return plane - 1u;
}

/* Impairments for a datagram about to leave: returns 1 when it is dropped, else 0 and sets *dup, *trim, *delay. */
static int u_impair(mrc_udp *u, unsigned plane, unsigned k, mrc_time now, int *dup, int *trim, uint32_t *delay) {
    unsigned r;
    uint64_t t;
    uint32_t drop = 0, dp = 0, tr = 0, dl = 0, jt = 0;
    int got_drop = 0, got_dup = 0, got_trim = 0, got_dl = 0;
    *dup = *trim = 0;
    *delay = 0;
    if (!u->imp_on || now < u->imp_t0) return 0;
    t = now - u->imp_t0;
    for (r = 0; r < u->cfg.nrules; r++) {
        const mrc_udp_impair_rule *x = &u->cfg.rule[r];
        if (x->planes && !((x->planes >> (plane - 1u)) & 1u)) continue;
        if (!x->all_evs && (k < x->ev_lo || k > x->ev_hi)) continue;
        if (t < x->start_ns || (x->end_ns && t >= x->end_ns)) continue;
        if (!got_drop && x->drop_ppm) drop = x->drop_ppm, got_drop = 1;
        if (!got_dup && x->dup_ppm) dp = x->dup_ppm, got_dup = 1;
        if (!got_trim && x->trim_ppm) tr = x->trim_ppm, got_trim = 1;
        if (!got_dl && (x->delay_ns || x->jitter_ns)) dl = x->delay_ns, jt = x->jitter_ns, got_dl = 1;
    }
    if (u_chance(u, drop)) {
        u->st.plane[plane - 1u].imp_drop++;
        return 1;
    }
    *dup = u_chance(u, dp);
    *trim = u_chance(u, tr);
    if (got_dl) *delay = dl + (jt ? (uint32_t)((u_rand(u) >> 32) % ((uint64_t)jt + 1u)) : 0u);
    return 0;
}

/* Add a datagram to the batch (flushing first when it is full). hdr is copied; payload must stay valid until the
 * flush. */
static int u_queue(mrc_udp *u, unsigned sock, unsigned plane, int tos, const uint8_t *hdr, size_t hlen,
                   const void *payload, size_t plen, size_t pad) {
    u_tx *t;
    if (u->ntx == u->cfg.batch && u_flush(u) < 0) return -1;
    if (u->ntx == u->cfg.batch) return 1; /* blocked */
    t = &u->tx[u->ntx++];
    memcpy(t->hdr, hdr, hlen);
    t->iov[0].iov_base = t->hdr; /* always, even when hlen is 0 (u_flush relies on it) */
    t->iov[0].iov_len = hlen;
    t->niov = 1;
    if (plen) {
        t->iov[t->niov].iov_base = (void *)(uintptr_t)payload;
        t->iov[t->niov++].iov_len = plen;
    }
    if (pad) {
        t->iov[t->niov].iov_base = (void *)(uintptr_t)u_zero_pad;
        t->iov[t->niov++].iov_len = pad;
    }
    t->len = (uint32_t)(hlen + plen + pad);
    t->sock = (uint16_t)sock;
    t->plane = (uint8_t)plane;
    t->tos = (uint8_t)tos;
    return 0;
}

/* Datagrams whose delay is over go into the batch. */
static void u_delay_release(mrc_udp *u, mrc_time now) {
    while (u->dl_len && u->ntx < u->cfg.batch) {
        u_delayed *d = &u->dl[u->dl_head];
        if (d->due > now) break;
        /* hdr slot holds at most MRC_HDR_MAX: send the copy as the 'payload' with an empty header */
        (void)u_queue(u, d->sock, d->plane, d->tos, d->buf, 0, d->buf, d->len, 0);
        /* the buffer stays valid: the slot is reused only after the batch is flushed (below) */
        u->dl_head = (u->dl_head + 1u) % U_DELAY_SLOTS;
        u->dl_len--;
    }
}
static mrc_time u_delay_next(const mrc_udp *u) {
    return u->dl_len ? u->dl[u->dl_head].due : MRC_TIME_NEVER;
}
static void u_delay_put(mrc_udp *u, unsigned sock, unsigned plane, int tos, const uint8_t *hdr, size_t hlen,
                        const uint8_t *payload, size_t plen, size_t pad, mrc_time due) {
    u_delayed *d;
    unsigned i;
    if (!u->dl || u->dl_len + 2u * MRC_UDP_BATCH >= U_DELAY_SLOTS) { /* keep a batch of slots for in-flight sends */
        u->st.delay_overflow++;
        return;
    }
    /* insertion keeps the ring ordered by due time (jitter reorders, which is the point) */
    i = u->dl_len;
    while (i > 0 && u->dl[(u->dl_head + i - 1u) % U_DELAY_SLOTS].due > due) {
        unsigned a = (u->dl_head + i) % U_DELAY_SLOTS, b = (u->dl_head + i - 1u) % U_DELAY_SLOTS;
        u_delayed tmp = u->dl[a];
        u->dl[a] = u->dl[b];
        u->dl[b] = tmp;
        i--;
    }
    d = &u->dl[(u->dl_head + i) % U_DELAY_SLOTS];
    /* the slot at the insertion point may hold a buffer just rotated in: swap buffers, not copy over */
    memcpy(d->buf, hdr, hlen);
    if (plen) memcpy(d->buf + hlen, payload, plen);
    if (pad) memset(d->buf + hlen + plen, 0, pad);
    d->len = (uint32_t)(hlen + plen + pad);
    d->due = due;
    d->sock = (uint16_t)sock;
    d->plane = (uint8_t)plane;
    d->tos = (uint8_t)tos;
    u->dl_len++;
    u->st.plane[plane - 1u].imp_delay++;
}

/* One datagram from the core (or the raw blast) through the impairment shim into the batch. */
static int u_emit(mrc_udp *u, unsigned plane, uint32_t ev, int have_k, unsigned k_in, int tos, int is_data,
                  const uint8_t *hdr, size_t hlen, const uint8_t *payload, size_t plen, size_t pad, mrc_time now) {
    unsigned k, sock;
    int dup, trim, rc;
    uint32_t delay;
    if (have_k) {
        k = k_in;
        sock = u->P + (plane - 1u) * u->K + k;
    } else {
        sock = u_sock_for(u, plane, ev, &k);
    }
    if (is_data && u->cfg.ecn) tos = (tos & ~3) | 2; /* ECT(0) */
    rc = u_impair(u, plane, k, now, &dup, &trim, &delay);
    if (rc == 1) return 0;
    if (trim) { /* a trimming switch: keep the headers, mark the DSCP */
        plen = 0;
        pad = 0;
        tos = (u->cfg.trimmed_dscp << 2) | (tos & 3);
        u->st.plane[plane - 1u].imp_trim++;
    }
    if (u->cfg.plane_rate_mbps) { /* the link: serialize behind the plane's queue, or drop at its tail */
        mrc_time *b = &u->busy_until[plane - 1u], start = *b > now ? *b : now;
        uint64_t bytes = hlen + plen + pad + 28u + 14u; /* IP + UDP + Ethernet, roughly what a wire carries */
        uint64_t ser = bytes * 8000u / u->cfg.plane_rate_mbps, qns;
        qns = (uint64_t)u->cfg.plane_queue_bytes * 8000u / u->cfg.plane_rate_mbps;
        if (start - now > qns) {
            u->st.plane[plane - 1u].link_qdrop++;
            return 0;
        }
        *b = start + ser;
        u_delay_put(u, sock, plane, tos, hdr, hlen, payload, plen, pad, start + ser + delay);
        if (dup) {
            u->st.plane[plane - 1u].imp_dup++;
            u_delay_put(u, sock, plane, tos, hdr, hlen, payload, plen, pad, start + ser + delay);
        }
        return 0;
    }
    if (delay) {
        u_delay_put(u, sock, plane, tos, hdr, hlen, payload, plen, pad, now + delay);
        if (dup) {
            u->st.plane[plane - 1u].imp_dup++;
            u_delay_put(u, sock, plane, tos, hdr, hlen, payload, plen, pad, now + delay);
        }
        return 0;
    }
    if (u_queue(u, sock, plane, tos, hdr, hlen, payload, plen, pad)) return 1;
    if (dup) {
        u->st.plane[plane - 1u].imp_dup++;
        if (u_queue(u, sock, plane, tos, hdr, hlen, payload, plen, pad)) return 1;
    }
    return 0;
}

/* Pull up to tx_burst datagrams from the core. Returns datagrams pulled, or -1. *more: 1 stopped at the burst limit
 * with work left, 2 a socket is full (wait for EPOLLOUT), 0 the core has nothing more now. */
static int u_tx_core(mrc_udp *u, mrc_endpoint *ep, mrc_time now, int *more) {
    int n = 0;
    *more = 0;
    if (u->ntx) {
        if (u_flush(u) < 0) return -1;
        if (u->ntx) {
            *more = 2;
            return 0;
        }
    }
    u_delay_release(u, now);
    while ((unsigned)n < u->cfg.tx_burst) {
        mrc_txinfo ti;
        uint8_t hdr[MRC_HDR_MAX];
        int r;
        if (u->ntx == u->cfg.batch) {
            if (u_flush(u) < 0) return -1;
            if (u->ntx) { /* blocked */
                *more = 2;
                return n;
            }
        }
        r = mrc_endpoint_poll_tx(ep, hdr, sizeof hdr, 0, &ti, now);
        if (r <= 0) break;
        n++;
        if (ti.port < 1 || ti.port > u->P) continue; /* a port this adapter does not have: lost */
        if (u_emit(u, ti.port, ti.ev, 0, 0, u->cfg.set_tos ? (int)(ti.dscp << 2) : 0,
                   ti.dscp_class != MRC_DSCP_CONTROL, hdr, ti.hdr_len, ti.payload, ti.payload_len, ti.pad, now) < 0)
            return -1;
    }
    if ((unsigned)n == u->cfg.tx_burst) *more = 1;
    if (u_flush(u) < 0) return -1;
    if (u->ntx) *more = 2;
    return n;
}

/* ---- receive -------------------------------------------------------------------------------------------------- */
typedef void (*u_rx_fn)(mrc_udp *u, void *ctx, unsigned plane, const uint8_t *pkt, size_t len,
                        const mrc_rxinfo *ri, mrc_time now);

/* One recvmmsg batch from plane socket s into its slots; appends the datagrams to the round. Returns datagrams
 * (a full batch means there may be more), or -1. */
static int u_rx_sock(mrc_udp *u, unsigned s) {
    unsigned plane = s + 1u, base = s * MRC_UDP_BATCH;
    mrc_udp_plane_stats *ps = &u->st.plane[s];
    int r, i;
    for (i = 0; i < (int)u->cfg.batch; i++) {
        struct msghdr *h = &u->rmm[base + (unsigned)i].msg_hdr;
        h->msg_name = &u->rname[base + (unsigned)i];
        h->msg_namelen = (socklen_t)sizeof u->rname[0];
        h->msg_iov = &u->riov[base + (unsigned)i];
        h->msg_iovlen = 1;
        h->msg_control = u->rctl[base + (unsigned)i].b;
        h->msg_controllen = sizeof u->rctl[0].b;
        h->msg_flags = 0;
    }
    do {
        r = recvmmsg(u->fd[s], &u->rmm[base], u->cfg.batch, MSG_DONTWAIT, NULL);
        u->st.recvmmsg_calls++;
    } while (r < 0 && (errno == EINTR || errno == ECONNREFUSED)); /* ECONNREFUSED: a stale ICMP error, not ours */
    u->run_beg[s] = u->run_end[s] = u->nrxi;
    if (r < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    for (i = 0; i < r; i++) {
        unsigned slot = base + (unsigned)i;
        struct msghdr *h = &u->rmm[slot].msg_hdr;
        struct cmsghdr *cm;
        u_rxi *x;
        size_t len = u->rmm[slot].msg_len;
        int tos = 0;
        uint64_t ts = 0;
        if (h->msg_flags & MSG_TRUNC) {
            ps->rx_trunc++;
            continue;
        }
        if (u->have_peer && !u_same_host(&u->rname[slot], &u->peer[s])) {
            ps->rx_foreign++;
            continue;
        }
        for (cm = CMSG_FIRSTHDR(h); cm; cm = CMSG_NXTHDR(h, cm)) {
            if ((cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TOS) ||
                (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_TCLASS)) {
                if (cm->cmsg_len >= CMSG_LEN(sizeof(int))) {
                    int v;
                    memcpy(&v, CMSG_DATA(cm), sizeof v);
                    tos = v;
                } else {
                    tos = *(const uint8_t *)CMSG_DATA(cm);
                }
            } else if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS &&
                       cm->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
                struct timespec t;
                memcpy(&t, CMSG_DATA(cm), sizeof t);
                ts = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
            }
        }
        x = &u->rxi[u->nrxi++];
        memset(&x->ri, 0, sizeof x->ri);
        x->ri.port = (uint8_t)plane;
        x->ri.dscp = (uint8_t)((tos >> 2) & 63);
        x->ri.ecn = (uint8_t)(tos & 3);
        x->ri.ev = u_getport(&u->rname[slot]);
        x->ri.peer = u->cfg.peer;
        if (u->peer_ev_n && (uint16_t)(x->ri.ev - u->peer_ev_first) >= u->peer_ev_n &&
            x->ri.ev != u_getport(&u->peer[s])) { /* P38: the peer's address, not one of its ports */
            x->ri.peer = MRC_UDP_STRANGER;
            ps->rx_stranger++;
        }
        x->ts = ts;
        x->len = (uint32_t)len;
        x->slot = (uint16_t)slot;
        if (x->ri.ecn == 3) ps->rx_ce++;
        else if (x->ri.ecn) ps->rx_ect++;
        ps->rx_pkts++;
        ps->rx_bytes += len;
    }
    u->run_end[s] = u->nrxi;
    return r;
}

/* Receive rounds: one batch from every readable plane socket, then the datagrams of all planes handed over in
 * kernel arrival order (a merge of the per-socket runs by SO_TIMESTAMPNS). Handing over one socket's batch after
 * the other would reorder the planes by whole batches - hundreds of microseconds on a loaded host - and show the
 * core holes that are not losses. rd is updated: a socket stays set while its last batch was full. */
static int u_rx_round(mrc_udp *u, uint32_t *rd, u_rx_fn fn, void *ctx, mrc_time *now) {
    unsigned s, k, pos[MRC_UDP_MAX_PLANES];
    int total = 0, n;
    u->nrxi = 0;
    for (s = 0; s < u->P; s++) {
        u->run_beg[s] = u->run_end[s] = 0;
        if (!((*rd >> s) & 1u)) continue;
        n = u_rx_sock(u, s);
        if (n < 0) return -1;
        if ((unsigned)n < u->cfg.batch) *rd &= ~(1u << s);
        total += n;
    }
    *now = mrc_udp_now();
    for (s = 0; s < u->P; s++) pos[s] = u->run_beg[s];
    for (k = 0; k < u->nrxi; k++) { /* k-way merge: the earliest head among the planes */
        unsigned best = MRC_UDP_MAX_PLANES;
        const u_rxi *x;
        for (s = 0; s < u->P; s++)
            if (pos[s] < u->run_end[s] && (best == MRC_UDP_MAX_PLANES || u->rxi[pos[s]].ts < u->rxi[pos[best]].ts))
                best = s;
        x = &u->rxi[pos[best]++];
        fn(u, ctx, x->ri.port, (const uint8_t *)u->riov[x->slot].iov_base, x->len, &x->ri, *now);
        if (u->cfg.rx_tx_every && (k + 1u) % u->cfg.rx_tx_every == 0 && u->rx_ep) { /* acknowledgements leave mid-round */
            int more;
            if (u_tx_core(u, u->rx_ep, *now, &more) < 0) return -1;
        }
    }
    return total;
}

static void u_rx_core(mrc_udp *u, void *ctx, unsigned plane, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri,
                      mrc_time now) {
    (void)plane;
    if (mrc_endpoint_recv((mrc_endpoint *)ctx, pkt, len, ri, now) == MRC_ERR_DROP) u->st.core_rx_rejected++;
}

/* ---- waiting -------------------------------------------------------------------------------------------------- */
/* Arm the timerfd for 'at' when it is earlier than what is armed (a later wake-up than needed only costs a
 * spurious turn; re-arming on every deadline change would cost a syscall per packet). */
static void u_arm(mrc_udp *u, mrc_time at) {
    struct itimerspec its;
    if (at == MRC_TIME_NEVER || at >= u->timer_armed) return;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = (time_t)(at / 1000000000u);
    its.it_value.tv_nsec = (long)(at % 1000000000u);
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
    if (timerfd_settime(u->tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0) {
        u->timer_armed = at;
        u->st.timer_arms++;
    }
}

/* Watch the blocked socket for EPOLLOUT (on) or stop (off). A plane's receive socket is already in the epoll set
 * for EPOLLIN: it is modified, not added, and keeps EPOLLIN. */
static void u_want_out(mrc_udp *u, int on) {
    struct epoll_event e;
    int s = u->blocked_sock;
    if (s < 0 || (on && u->wait_out) || (!on && !u->wait_out)) return;
    memset(&e, 0, sizeof e);
    if ((unsigned)s < u->P) {
        e.events = on ? (EPOLLIN | EPOLLOUT) : EPOLLIN;
        e.data.u32 = (uint32_t)s;
        (void)epoll_ctl(u->ep, EPOLL_CTL_MOD, u->fd[s], &e);
    } else if (on) {
        e.events = EPOLLOUT;
        e.data.u32 = (uint32_t)s | 0x20000u;
        (void)epoll_ctl(u->ep, EPOLL_CTL_ADD, u->fd[s], &e);
    } else {
        (void)epoll_ctl(u->ep, EPOLL_CTL_DEL, u->fd[s], NULL);
    }
    u->wait_out = (uint32_t)on;
    if (!on) u->blocked_sock = -1;
}

/* Wait until 'until' (absolute; 0 = poll) for readable plane sockets or watched fds. Fills rd (plane bitmap) and
 * *ready. The timeout goes to epoll_pwait2 in ns (Linux 5.11); where that is missing, a timerfd armed at the
 * deadline wakes epoll_wait. Returns 0 or -1. */
static int u_wait(mrc_udp *u, mrc_time until, uint32_t *rd, unsigned *ready) {
    struct epoll_event ev[MRC_UDP_MAX_PLANES + MRC_UDP_MAX_WATCH + 4];
    int n, i, timeout = 0;
    struct timespec ts, *tsp = NULL;
    mrc_time now;
    *rd = 0;
    if (u->cfg.busy_poll) until = 0;
    memset(&ts, 0, sizeof ts);
    tsp = &ts;
    if (until) {
        now = mrc_udp_now();
        if (until > now) {
            timeout = -1;
            if (until == MRC_TIME_NEVER) {
                tsp = NULL;
            } else {
                ts.tv_sec = (time_t)((until - now) / 1000000000u);
                ts.tv_nsec = (long)((until - now) % 1000000000u);
                if (u->no_pwait2) u_arm(u, until);
            }
        }
    }
    if (u->ntx && u->blocked_sock >= 0) u_want_out(u, 1);
    if (!u->no_pwait2) {
        n = epoll_pwait2(u->ep, ev, (int)(sizeof ev / sizeof ev[0]), tsp, NULL);
        if (n < 0 && errno == ENOSYS) {
            u->no_pwait2 = 1;
            if (tsp && timeout) u_arm(u, until);
        }
    }
    if (u->no_pwait2) n = epoll_wait(u->ep, ev, (int)(sizeof ev / sizeof ev[0]), timeout);
    if (n < 0) {
        if (errno == EINTR) return 0;
        return -1;
    }
    if (timeout) u->st.wakeups++;
    for (i = 0; i < n; i++) {
        uint32_t tag = ev[i].data.u32;
        if (tag == U_TAG_TIMER) {
            uint64_t x;
            while (read(u->tfd, &x, sizeof x) > 0) {
            }
            u->timer_armed = MRC_TIME_NEVER;
        } else if (tag & U_TAG_WATCH) {
            if (ready) *ready |= 1u << (tag & 0xFFu);
        } else if (tag & 0x20000u) {
            u_want_out(u, 0);
        } else if (tag < u->P) {
            if (ev[i].events & EPOLLOUT) u_want_out(u, 0);
            if (ev[i].events & (EPOLLIN | EPOLLERR)) *rd |= 1u << tag;
        }
    }
    if (u->timer_armed != MRC_TIME_NEVER && mrc_udp_now() >= u->timer_armed) u->timer_armed = MRC_TIME_NEVER;
    return 0;
}

static void u_timers(mrc_udp *u, mrc_endpoint *ep, mrc_time now) {
    if (mrc_endpoint_next_deadline(ep) <= now) {
        (void)mrc_endpoint_on_timeout(ep, now);
        u->st.timeouts_run++;
    }
}

/* Receive rounds while sockets have datagrams ready (rd), at most 4, each followed by a transmit burst so that
 * acknowledgements leave while a backlog is worked off; what is left stays in rd for the caller (epoll is
 * level-triggered: the next step picks it up). Returns the datagrams moved, or -1. */
static int u_rx_rounds(mrc_udp *u, mrc_endpoint *ep, uint32_t *rd, int *more) {
    mrc_time now;
    unsigned round;
    int moved = 0, n;
    for (round = 0; round < 4u && *rd; round++) {
        n = u_rx_round(u, rd, u_rx_core, ep, &now);
        if (n < 0) return -1;
        moved += n;
        n = u_tx_core(u, ep, mrc_udp_now(), more);
        if (n < 0) return -1;
        moved += n;
    }
    if (round > u->st.rx_rounds_max) u->st.rx_rounds_max = round;
    return moved;
}

/* The sockets before the timers: a deadline that passed while this process was not running (a busy host) may be
 * answered by a datagram already waiting in a socket - an acknowledgement that makes an RTO or a tail-loss probe
 * moot. So due timers run only once what is ready has been read: at the start of a step, when a deadline has passed,
 * a non-blocking look at the sockets and their rounds come first; after the wait, the timers run once the rounds
 * have drained every socket (a backlog left after 4 rounds defers them to the next step, which reads first). */
int mrc_udp_step(mrc_udp *u, mrc_endpoint *ep, mrc_time wake_at, unsigned *ready) {
    mrc_time now = mrc_udp_now(), until, t_start = now, t_woke;
    uint32_t rd = 0;
    int moved = 0, n, more = 0;
    if (ready) *ready = 0;
    u->rx_ep = ep;
    if (mrc_endpoint_next_deadline(ep) <= now) {
        if (u_wait(u, 0, &rd, ready) < 0) return -1;
        n = u_rx_rounds(u, ep, &rd, &more);
        if (n < 0) return -1;
        moved += n;
        now = mrc_udp_now();
    }
    u_timers(u, ep, now);
    n = u_tx_core(u, ep, now, &more);
    if (n < 0) return -1;
    moved += n;
    /* sleep only when there is nothing left to send (a full socket is waited for: EPOLLOUT) and no event waits for
       the application (what this step received or its timers fired may have queued one: it is the caller's first) */
    until = more == 1 || mrc_endpoint_event_pending(ep) ? 0 : wake_at;
    if (until) {
        mrc_time d = mrc_endpoint_next_deadline(ep), dl = u_delay_next(u);
        if (d < until) until = d;
        if (dl < until) until = dl;
        if (until <= now) until = 0;
    }
    t_woke = mrc_udp_now();
    if (u_wait(u, until, &rd, ready) < 0) return -1;
    now = mrc_udp_now();
    t_start += now - t_woke; /* the sleep does not count */
    n = u_rx_rounds(u, ep, &rd, &more);
    if (n < 0) return -1;
    moved += n;
    if (!rd) { /* every socket drained: the timers, then what they and the rounds left to send */
        now = mrc_udp_now();
        u_timers(u, ep, now);
        n = u_tx_core(u, ep, now, &more);
        if (n < 0) return -1;
        moved += n;
    }
    now = mrc_udp_now();
    if (now - t_start > u->st.step_max_ns) u->st.step_max_ns = now - t_start;
    return moved;
}

/* ---- raw datagrams -------------------------------------------------------------------------------------------- */
int mrc_udp_raw_send(mrc_udp *u, unsigned plane, unsigned k, const void *hdr, size_t hlen, const void *payload,
                     size_t plen) {
    int rc;
    if (!u || plane < 1 || plane > u->P || k >= u->K || hlen > MRC_HDR_MAX || !u->have_peer) return -1;
    for (;;) {
        rc = u_emit(u, plane, 0, 1, k, u->cfg.set_tos ? 10 << 2 : 0, 1, (const uint8_t *)hdr, hlen,
                    (const uint8_t *)payload, plen, 0, mrc_udp_now());
        if (rc <= 0) return rc;
        if (mrc_udp_raw_flush(u) < 0) return -1; /* the batch was blocked: wait, then queue again */
    }
}

int mrc_udp_raw_flush(mrc_udp *u) {
    while (u->ntx || u->dl_len) {
        u_delay_release(u, mrc_udp_now());
        if (u_flush(u) < 0) return -1;
        if (u->ntx && u->blocked_sock >= 0) {
            struct pollfd pf;
            pf.fd = u->fd[u->blocked_sock];
            pf.events = POLLOUT;
            pf.revents = 0;
            (void)poll(&pf, 1, 10);
            if (u->wait_out) u_want_out(u, 0);
            else u->blocked_sock = -1;
        } else if (!u->ntx && u->dl_len) {
            break; /* delayed datagrams leave on later calls */
        }
    }
    return 0;
}

typedef struct u_raw_ctx { mrc_udp_raw_fn fn; void *ud; } u_raw_ctx;
static void u_rx_raw(mrc_udp *u, void *ctx, unsigned plane, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri,
                     mrc_time now) {
    u_raw_ctx *c = (u_raw_ctx *)ctx;
    (void)u;
    (void)ri;
    c->fn(c->ud, plane, pkt, len, now);
}

int mrc_udp_raw_recv(mrc_udp *u, uint64_t timeout_ns, mrc_udp_raw_fn fn, void *ud, unsigned *ready) {
    uint32_t rd = 0;
    int total = 0, n;
    unsigned round;
    u_raw_ctx c;
    mrc_time now = mrc_udp_now();
    c.fn = fn;
    c.ud = ud;
    if (ready) *ready = 0;
    if (u_wait(u, timeout_ns ? now + timeout_ns : 0, &rd, ready) < 0) return -1;
    for (round = 0; round < 4u && rd; round++) {
        n = u_rx_round(u, &rd, u_rx_raw, &c, &now);
        if (n < 0) return -1;
        total += n;
    }
    return total;
}
