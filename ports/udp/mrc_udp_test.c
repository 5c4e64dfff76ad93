/* mrc_udp_test.c - the UDP port's own tests (make udp-test; part of make test): two endpoints in one process over
 * loopback, each with its adapter (2 planes x 2 EVs).
 *
 *   udp_ack_waiting   the sockets before the timers (issue 38): A writes 1 KiB to B; B receives it and sends its
 *                     SACK; the test waits until the SACK is readable on A's socket (poll, a readiness wait) and
 *                     until A's RTO deadline has passed (clock_nanosleep to that absolute time: the state under test,
 *                     not a wait for another party), then runs one mrc_udp_step of A. The write must complete with
 *                     no RTO, no tail-loss probe and no retransmission: the acknowledgement was already there.
 *                     (With the timers run before the sockets, the step fired the RTO: 1 RTO, 1 retransmission, the
 *                     EV of the packet demoted.)
 *
 * Ports: each run binds its EV source ports from a base drawn from the process id and moves on when one is in use.
 * A failing check prints the state to reproduce it. Last line: "N passed, N failed".
 */
#define _GNU_SOURCE
#define MRC_IMPLEMENTATION
#include "mrc_udp.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PLANES 2u
#define EVS 2u
#define MSG 1024u
#define TIMEOUT 10u /* the RTO: 1.024 us x 2^10 = 1.05 ms */
#define FMT_ID 0x5501u
#define PROF_ID 0x5502u

typedef struct side {
    mrc_udp *u;
    mrc_endpoint ep;
    mrc_conn qp;
} side;
static side g[2];
static uint8_t g_src[MSG], g_dst[MSG];
static int g_pass, g_fail;

static void say_fail(const char *name, const char *why) {
    mrc_conn_stats a;
    mrc_udp_stats ua;
    mrc_conn_stats_get(&g[0].qp, &a);
    mrc_udp_stats_get(g[0].u, &ua);
    printf("FAIL %s: %s\n     A: rto %llu tlp %llu tx_rtx %llu ev_demoted %llu msgs_done %llu rx_sack %llu; adapter: "
           "timeouts_run %llu rx_rounds_max %llu\n",
           name, why, (unsigned long long)a.rto_fired, (unsigned long long)a.tlp_fired, (unsigned long long)a.tx_rtx,
           (unsigned long long)a.ev_demoted, (unsigned long long)a.msgs_done, (unsigned long long)a.rx_sack,
           (unsigned long long)ua.timeouts_run, (unsigned long long)ua.rx_rounds_max);
    g_fail++;
}

/* both adapters on loopback, on EV source ports from base (A) and base + 16 (B); -1 when a port is in use */
static int open_pair(uint16_t base, char *err, size_t errlen) {
    struct sockaddr_storage peer[2][PLANES];
    unsigned s, p;
    for (s = 0; s < 2; s++) {
        mrc_udp_config cfg;
        mrc_udp_config_default(&cfg);
        cfg.planes = PLANES;
        cfg.evs_per_plane = EVS;
        cfg.ev_port = (uint16_t)(base + 16u * s);
        if (mrc_udp_open(&g[s].u, &cfg, err, errlen)) return -1;
        for (p = 0; p < PLANES; p++)
            if (mrc_udp_local_addr(g[s].u, p + 1u, &peer[s][p])) {
                snprintf(err, errlen, "no local address for plane %u", p + 1u);
                return -2;
            }
    }
    for (s = 0; s < 2; s++) {
        if (mrc_udp_set_peer(g[s].u, peer[1 - s], PLANES, err, errlen)) return -2;
        (void)mrc_udp_set_peer_sports(g[s].u, (uint16_t)(base + 16u * (1 - s)), PLANES * EVS);
    }
    return 0;
}
static void close_pair(void) {
    unsigned s;
    for (s = 0; s < 2; s++) {
        mrc_udp_close(g[s].u);
        g[s].u = NULL;
    }
}

/* endpoints, the EV profile of the sockets, one QP each, connected; B's region registered */
static int setup_core(uint32_t *rkey, char *err, size_t errlen) {
    mrc_time now = mrc_udp_now();
    unsigned s;
    int rc;
    for (s = 0; s < 2; s++) {
        mrc_config cfg;
        mrc_config_default(&cfg);
        cfg.seed = 7u + s;
        cfg.num_ports = PLANES;
        cfg.recovery.tlp_min_ns = 1000000000u; /* no tail-loss probe before the RTO: the RTO is the deadline tested */
        if ((rc = mrc_endpoint_init(&g[s].ep, &cfg, now)) || (rc = mrc_conn_init(&g[s].ep, &g[s].qp, now)) ||
            (rc = mrc_udp_ev_profile(g[s].u, &g[s].ep, FMT_ID, PROF_ID, 0, now))) {
            snprintf(err, errlen, "side %c: core setup: %s", 'A' + s, mrc_strerror(rc));
            return -1;
        }
    }
    if ((rc = mrc_endpoint_reg_mr(&g[1].ep, g_dst, 0x10000000u, MSG, MRC_ACCESS_REMOTE_WRITE, NULL, rkey))) {
        snprintf(err, errlen, "reg_mr: %s", mrc_strerror(rc));
        return -1;
    }
    for (s = 0; s < 2; s++) {
        mrc_conn_attr a;
        mrc_conn_attr_default(&a);
        a.ev_profile_id = PROF_ID;
        a.dest_qpn = mrc_conn_qpn(&g[1 - s].qp);
        a.sq_psn = 100u + 100u * s;
        a.rq_psn = 200u - 100u * s;
        a.peer = 1;
        a.timeout = TIMEOUT;
        if ((rc = mrc_conn_connect(&g[s].qp, &a, now))) {
            snprintf(err, errlen, "side %c: connect: %s", 'A' + s, mrc_strerror(rc));
            return -1;
        }
    }
    return 0;
}

/* the fds of this process bound to A's receive addresses (one per plane), by getsockname */
static unsigned a_rx_fds(struct pollfd *pf) {
    struct sockaddr_storage want[PLANES], got;
    unsigned p, n = 0;
    int fd;
    for (p = 0; p < PLANES; p++)
        if (mrc_udp_local_addr(g[0].u, p + 1u, &want[p])) return 0;
    for (fd = 3; fd < 4096 && n < PLANES; fd++) {
        socklen_t len = sizeof got;
        if (getsockname(fd, (struct sockaddr *)&got, &len) || got.ss_family != AF_INET) continue;
        for (p = 0; p < PLANES; p++) {
            const struct sockaddr_in *x = (const struct sockaddr_in *)&got, *y = (const struct sockaddr_in *)&want[p];
            if (x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr) {
                pf[n].fd = fd;
                pf[n].events = POLLIN;
                pf[n].revents = 0;
                n++;
            }
        }
    }
    return n;
}

static void sleep_until(mrc_time t) {
    struct timespec ts;
    ts.tv_sec = (time_t)(t / 1000000000u);
    ts.tv_nsec = (long)(t % 1000000000u);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

/* The state both tests start from: A wrote MSG bytes to B, B answered with its SACK, the SACK is readable on A's
 * socket (a readiness wait) and A's RTO deadline has passed (the state under test, not a wait for another party).
 * 0, or -1 after say_fail (the pair is closed then). */
static int ack_waiting(const char *name) {
    char err[256], why[256];
    struct pollfd pf[PLANES];
    mrc_conn_stats a, b;
    mrc_write w;
    mrc_time t_sent, rto_at;
    uint32_t rkey = 0, i;
    unsigned nfd, tries;
    int rc = -1;
    uint16_t base = (uint16_t)(30000u + (unsigned)(getpid() % 1000) * 24u);
    for (tries = 0; tries < 8 && rc == -1; tries++, base = (uint16_t)(base + 17u * 24u)) {
        rc = open_pair(base, err, sizeof err);
        if (rc) close_pair();
    }
    if (rc) {
        say_fail(name, err);
        return -1;
    }
    if (setup_core(&rkey, err, sizeof err)) {
        say_fail(name, err);
        close_pair();
        return -1;
    }
    for (i = 0; i < MSG; i++) g_src[i] = (uint8_t)(i * 13u + 5u);
    memset(&w, 0, sizeof w);
    w.wr_id = 1;
    w.opcode = MRC_WR_WRITE;
    w.buf = g_src;
    w.len = MSG;
    w.remote_va = 0x10000000u;
    w.rkey = rkey;
    if ((rc = mrc_conn_post_write(&g[0].qp, &w, mrc_udp_now()))) {
        snprintf(why, sizeof why, "post_write: %s", mrc_strerror(rc));
        say_fail(name, why);
        close_pair();
        return -1;
    }
    /* A sends its one packet (no sleep), then B receives it and answers: B's steps sleep until a datagram or its
       deadline (the SACK may wait for the coalescing timer) */
    if (mrc_udp_step(g[0].u, &g[0].ep, 0, NULL) < 0) {
        say_fail(name, "A's first step failed");
        close_pair();
        return -1;
    }
    t_sent = mrc_udp_now();
    mrc_conn_stats_get(&g[0].qp, &a);
    for (tries = 0; tries < 1000; tries++) {
        mrc_conn_stats_get(&g[1].qp, &b);
        if (b.tx_sack >= 1 && b.rx_data >= 1) break;
        if (mrc_udp_step(g[1].u, &g[1].ep, mrc_udp_now() + 1000000000u, NULL) < 0) break;
    }
    mrc_conn_stats_get(&g[1].qp, &b);
    if (a.tx_data != 1 || b.rx_data != 1 || b.tx_sack < 1) {
        snprintf(why, sizeof why, "setup: A sent %llu data packets, B received %llu and sent %llu SACKs",
                 (unsigned long long)a.tx_data, (unsigned long long)b.rx_data, (unsigned long long)b.tx_sack);
        say_fail(name, why);
        close_pair();
        return -1;
    }
    nfd = a_rx_fds(pf);
    if (nfd != PLANES || poll(pf, nfd, 10000) < 1) {
        snprintf(why, sizeof why, "setup: A's receive sockets (%u found) never became readable", nfd);
        say_fail(name, why);
        close_pair();
        return -1;
    }
    rto_at = t_sent + ((mrc_time)1024u << TIMEOUT);
    sleep_until(rto_at + 1000u);
    if (mrc_endpoint_next_deadline(&g[0].ep) > mrc_udp_now()) {
        say_fail(name, "setup: A has no deadline due after its RTO's time");
        close_pair();
        return -1;
    }
    return 0;
}

/* A's pending SEND_DONE pulled: 1 when the write completed */
static int a_done(void) {
    mrc_event ev;
    int done = 0;
    while (mrc_endpoint_poll_event(&g[0].ep, &ev) > 0)
        if (ev.type == MRC_EVT_SEND_DONE && ev.wr_id == 1 && ev.status == MRC_OK) done = 1;
    return done;
}

static void udp_ack_waiting(void) {
    const char *name = "udp_ack_waiting";
    char why[256];
    mrc_conn_stats a;
    int done;
    if (ack_waiting(name)) return;
    /* one step of A, which must not sleep */
    if (mrc_udp_step(g[0].u, &g[0].ep, 0, NULL) < 0) {
        say_fail(name, "A's step failed");
        close_pair();
        return;
    }
    done = a_done();
    mrc_conn_stats_get(&g[0].qp, &a);
    if (!done || a.rto_fired || a.tlp_fired || a.tx_rtx || a.ev_demoted) {
        snprintf(why, sizeof why, "the SACK waited in A's socket past the RTO's deadline: write %s, %llu RTOs, "
                 "%llu tail-loss probes, %llu retransmissions, %llu EVs demoted (want done, 0, 0, 0, 0)",
                 done ? "done" : "not done", (unsigned long long)a.rto_fired, (unsigned long long)a.tlp_fired,
                 (unsigned long long)a.tx_rtx, (unsigned long long)a.ev_demoted);
        say_fail(name, why);
    } else {
        g_pass++;
        printf("ok   %s (the SACK read before the timers: write done in one step, no RTO, no retransmission)\n",
               name);
    }
    close_pair();
}

/* The same state, but A's step may sleep (a wake time 10 s away, as an application's watchdog): the SACK it reads
 * first completes the write, and with a completion waiting for the application the step must return at once, not
 * sleep until its wake time (once it slept with the completion queued: mrc_perf -a on a busy host, "no progress for
 * 5.0 s" on both sides with every byte delivered and acknowledged). The sleep is seen in the adapter's wakeups count
 * (a wait with a timeout that returned), not in a time. */
static void udp_event_no_sleep(void) {
    const char *name = "udp_event_no_sleep";
    char why[256];
    mrc_udp_stats s0, s1;
    int done;
    if (ack_waiting(name)) return;
    mrc_udp_stats_get(g[0].u, &s0);
    if (mrc_udp_step(g[0].u, &g[0].ep, mrc_udp_now() + 10000000000u, NULL) < 0) {
        say_fail(name, "A's step failed");
        close_pair();
        return;
    }
    mrc_udp_stats_get(g[0].u, &s1);
    done = a_done();
    if (!done || s1.wakeups != s0.wakeups) {
        snprintf(why, sizeof why, "write %s, the step slept %llu times with the completion queued (want done, 0)",
                 done ? "done" : "not done", (unsigned long long)(s1.wakeups - s0.wakeups));
        say_fail(name, why);
    } else {
        g_pass++;
        printf("ok   %s (a completion queued by the step's own receive: the step returned without sleeping)\n",
               name);
    }
    close_pair();
}

int main(void) {
    udp_ack_waiting();
    udp_event_no_sleep();
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
