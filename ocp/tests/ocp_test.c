/* ocp_test.c - lib_mrc's test, written only against OCP's MRC API (ocp/include/mrc.h, mrc_ctl.h) and verbs.
 *
 *   ocp_test bw        two processes (this one and a forked child) on the soft devices mrcudp0 and mrcudp1: a sweep of
 *                      write sizes with random data, up to 128 writes outstanding, unsignaled writes, two SGEs and
 *                      inline sends, a Write-with-Immediate per size whose immediate and the data's checksum the
 *                      receiver checks; then ping-pong latency. Readiness and results travel over pipes.
 *   ocp_test errors    one process, both devices: retry exceeded -> IBV_WC_RETRY_EXC_ERR then flushed completions,
 *                      CQ overflow -> IBV_EVENT_CQ_ERR, bad calls -> EINVAL / EBUSY / E2BIG, completion channels.
 *   ocp_test stall     one process: a QP whose core queue is full (a dead peer) does not hold up another QP's writes on
 *                      the same device; destroying it flushes its posts that never reached the core, in order
 *   ocp_test ctl       controller: version and device queries, port admin state, CC, EV Format and EV profiles.
 *   ocp_test blackhole one process, devices of 8 planes, each plane a 40 Mb/s link (the carrier's MRC_OCP_LINK hook):
 *                      4.3 s of 64 KiB writes, plane 2 of the sender silently dropped from 2 s on (MRC_OCP_BLACKHOLE):
 *                      every write completes, the data is exact, the goodput after the fault keeps 7/8 of the goodput
 *                      before it (mrc_perf's verdict; INCONCLUSIVE, printed as a skip, when the host's CPU and not
 *                      the links was the limit), ASSUMED_BAD EV events name plane 2. Not part of "all".
 *   ocp_test cc        a CC profile (NSCC, max_cwnd 8 KiB) given to a QP at INIT bounds its window and bytes in
 *                      flight (the MRC_OCP_CCLOG hook's counts); the default profile's go past it
 *   ocp_test evwire    an EXP EV profile of 8 (port, UDP source port) pairs given to a QP at INIT: the receiving device
 *                      (its MRC_OCP_EVLOG hook) sees data on those pairs only; two set DENIED carry nothing after
 *   ocp_test inline    bw again with MRC_OCP_INLINE=1: no progress thread, each process drives its device in its
 *                      own calls (one process driving two devices would have to poll both)
 *   ocp_test_v100 v100 the same source built for API 1.0.0 (MRC_API_VER_USED, MRC_CTL_API_VER_USED): its
 *                      context says 1.0.0, and EV events reach it as 48-byte records without `state`
 *   ocp_test nic       bw between two RDMA devices (OCP_NIC_DEVS=dev0,dev1, default the first two) with the real
 *                      libibverbs (the build in ocp-nic/); skipped with the reason where there are none
 *   ocp_test layout    sizes and offsets of the API's structures on x86_64 (as OCP's headers give them).
 *
 * Every check prints "ok <name>" or "FAIL <name>: why"; the last line is "N passed, N failed"; the exit status is
 * non-zero on any failure.
 */
#define _GNU_SOURCE
#include <mrc.h>
#include <mrc_ctl.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* mrc_perf's figures as functions of numbers (the failover verdict); the others are not used here */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../../examples/perf_report.h"
#pragma GCC diagnostic pop

static unsigned n_pass, n_fail;
static const char *g_dev0 = "mrcudp0", *g_dev1 = "mrcudp1"; /* bw's two devices (nic: two RDMA devices) */
#define CHECK(name, cond, ...)                                                                                      \
    do {                                                                                                            \
        if (cond) {                                                                                                 \
            n_pass++;                                                                                               \
            printf("ok %s\n", name);                                                                                \
        } else {                                                                                                    \
            n_fail++;                                                                                               \
            printf("FAIL %s: ", name);                                                                              \
            printf(__VA_ARGS__);                                                                                    \
            printf("\n");                                                                                           \
        }                                                                                                           \
        fflush(stdout);                                                                                             \
    } while (0)
#define DIE(...)                                                                                                    \
    do {                                                                                                            \
        fprintf(stderr, "ocp_test: " __VA_ARGS__);                                                                  \
        fprintf(stderr, " (errno %d: %s)\n", errno, strerror(errno));                                               \
        exit(2);                                                                                                    \
    } while (0)

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void fill(uint8_t *p, size_t n, uint64_t seed) {
    size_t i;
    for (i = 0; i < n; i++) p[i] = (uint8_t)rnd(&seed);
}

static uint32_t fnv(const uint8_t *p, size_t n) {
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

/* ---- one side: device, context, CQs, QP, MR ---------------------------------------------------------------- */

struct side {
    struct ibv_device **list;
    struct ibv_context *v;
    struct mrc_context *m;
    struct ibv_pd *pd;
    struct ibv_mr *mr;
    struct mrc_cq *scq, *rcq;
    struct mrc_qp *qp;
    uint8_t *buf;
    size_t len;
    struct mrc_comp_channel *ch;
};

struct wire {
    uint32_t qpn, rkey, psn;
    uint64_t vaddr;
    union ibv_gid gid;
};

static void side_open2(struct side *s, const char *dev, size_t len, int cqe, int sq, struct mrc_comp_channel **ch) {
    int n, i, sup = 0;
    struct mrc_device_attr da;
    struct mrc_context_attr ca = { (uint32_t)MRC_API_VER_USED, 0 }; /* the API this program is built for */
    struct mrc_qp_init_attr qa;
    memset(s, 0, sizeof *s);
    s->list = ibv_get_device_list(&n);
    if (!s->list) DIE("ibv_get_device_list");
    for (i = 0; i < n; i++)
        if (!strcmp(ibv_get_device_name(s->list[i]), dev)) s->v = ibv_open_device(s->list[i]);
    if (!s->v) DIE("no device %s", dev);
    if (mrc_query_device(s->v, &da, &sup) || !sup) DIE("mrc_query_device %s", dev);
    s->m = mrc_create_context(s->v, &ca);
    if (!s->m) DIE("mrc_create_context %s", dev);
    s->pd = ibv_alloc_pd(s->v);
    if (!s->pd) DIE("ibv_alloc_pd");
    s->len = len;
    s->buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
    if (!s->buf) DIE("alloc");
    memset(s->buf, 0, len);
    s->mr = ibv_reg_mr(s->pd, s->buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_RELAXED_ORDERING);
    if (!s->mr) DIE("ibv_reg_mr");
    if (ch && mrc_create_comp_channel(s->m, ch)) DIE("mrc_create_comp_channel");
    if (ch) s->ch = *ch;
    s->scq = mrc_create_cq(s->m, cqe, s, ch ? *ch : NULL, 0);
    s->rcq = mrc_create_cq(s->m, 1024, NULL, NULL, 0);
    if (!s->scq || !s->rcq) DIE("mrc_create_cq");
    memset(&qa, 0, sizeof qa);
    qa.send_cq = s->scq;
    qa.recv_cq = s->rcq;
    qa.pd = s->pd;
    qa.cap.max_send_wr = (uint32_t)sq;
    qa.cap.max_recv_wr = 512;
    qa.cap.max_send_sge = 4;
    qa.cap.max_recv_sge = 1;
    qa.cap.max_inline_data = 256;
    s->qp = mrc_create_qp(s->m, &qa);
    if (!s->qp) DIE("mrc_create_qp");
}

static void side_open(struct side *s, const char *dev, size_t len, int cqe, int sq) {
    side_open2(s, dev, len, cqe, sq, NULL);
}

static void side_close(struct side *s) {
    if (mrc_destroy_qp(s->qp)) DIE("mrc_destroy_qp");
    if (mrc_destroy_cq(s->scq) || mrc_destroy_cq(s->rcq)) DIE("mrc_destroy_cq");
    if (s->ch && mrc_destroy_comp_channel(s->ch)) DIE("mrc_destroy_comp_channel");
    ibv_dereg_mr(s->mr);
    ibv_dealloc_pd(s->pd);
    if (mrc_destroy_context(s->m)) DIE("mrc_destroy_context");
    ibv_close_device(s->v);
    ibv_free_device_list(s->list);
    free(s->buf);
}

static void side_wire(struct side *s, struct wire *w, uint32_t psn) {
    memset(w, 0, sizeof *w);
    if (mrc_get_qpn(s->qp, &w->qpn)) DIE("mrc_get_qpn");
    w->rkey = s->mr->rkey;
    w->vaddr = (uint64_t)(uintptr_t)s->buf;
    w->psn = psn;
    if (ibv_query_gid(s->v, 1, 0, &w->gid)) DIE("ibv_query_gid");
}

/* Exactly the sequence OCP's benchmark uses: RoCE attributes MRC ignores, no MRC attribute at INIT and RTR. */
static uint64_t g_init_cc, g_init_ev; /* CC and EV profiles for the next QPs to take at INIT (0: the default) */

static void side_connect(struct side *s, const struct wire *me, const struct wire *peer, struct mrc_qp_attr *rts,
                         int rts_mask) {
    struct ibv_qp_attr v;
    struct mrc_qp_attr m;
    memset(&v, 0, sizeof v);
    memset(&m, 0, sizeof m);
    v.qp_state = IBV_QPS_INIT;
    v.port_num = 1;
    v.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
    m.profile.cc_profile_id = g_init_cc;
    m.profile.ev_profile_id = g_init_ev;
    if (mrc_modify_qp(s->qp, &v, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, &m,
                      (g_init_cc ? MRC_QP_CC_PROFILE_ID : 0) | (g_init_ev ? MRC_QP_EV_PROFILE_ID : 0)))
        DIE("INIT");
    memset(&m, 0, sizeof m);
    memset(&v, 0, sizeof v);
    v.qp_state = IBV_QPS_RTR;
    v.path_mtu = IBV_MTU_4096;
    v.ah_attr.is_global = 1;
    v.ah_attr.grh.dgid = peer->gid;
    v.ah_attr.port_num = 1;
    v.dest_qp_num = peer->qpn;
    v.rq_psn = peer->psn;
    if (mrc_modify_qp(s->qp, &v, IBV_QP_STATE | IBV_QP_AV | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_PATH_MTU, &m, 0))
        DIE("RTR");
    memset(&v, 0, sizeof v);
    v.qp_state = IBV_QPS_RTS;
    v.sq_psn = me->psn;
    v.timeout = 14;
    v.retry_cnt = 7;
    v.rnr_retry = 7;
    if (mrc_modify_qp(s->qp, &v, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_TIMEOUT,
                      rts ? rts : &m, rts ? rts_mask : 0))
        DIE("RTS");
}

/* wire a and b to each other; a's QP takes the EV and CC profiles given (0: the defaults) at INIT */
static void pair_connect(struct side *a, struct wire *wa, struct side *b, struct wire *wb, uint64_t ev, uint64_t cc) {
    side_wire(a, wa, 0x100);
    side_wire(b, wb, 0x200);
    g_init_ev = ev;
    g_init_cc = cc;
    side_connect(a, wa, wb, NULL, 0);
    g_init_ev = g_init_cc = 0;
    side_connect(b, wb, wa, NULL, 0);
}

static int post_write(struct side *s, uint64_t off, uint32_t len, const struct wire *peer, uint64_t roff, int signaled,
                      uint64_t wr_id, int nsge, int inl, int imm, uint32_t immv) {
    struct ibv_sge sge[2];
    struct ibv_send_wr wr, *bad = NULL;
    memset(&wr, 0, sizeof wr);
    memset(sge, 0, sizeof sge);
    if (nsge == 2 && len >= 2) {
        sge[0].addr = (uint64_t)(uintptr_t)(s->buf + off);
        sge[0].length = len / 3;
        sge[1].addr = sge[0].addr + sge[0].length;
        sge[1].length = len - sge[0].length;
        sge[0].lkey = sge[1].lkey = s->mr->lkey;
    } else {
        nsge = 1;
        sge[0].addr = (uint64_t)(uintptr_t)(s->buf + off);
        sge[0].length = len;
        sge[0].lkey = s->mr->lkey;
    }
    wr.wr_id = wr_id;
    wr.sg_list = sge;
    wr.num_sge = nsge;
    wr.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
    wr.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) | (inl ? IBV_SEND_INLINE : 0);
    wr.imm_data = htonl(immv);
    wr.wr.rdma.remote_addr = peer->vaddr + roff;
    wr.wr.rdma.rkey = peer->rkey;
    return mrc_post_send(s->qp, &wr, &bad);
}

static int post_recv(struct side *s, uint64_t wr_id) {
    struct ibv_recv_wr wr, *bad = NULL;
    memset(&wr, 0, sizeof wr);
    wr.wr_id = wr_id;
    return mrc_post_recv(s->qp, &wr, &bad);
}

/* wait for one completion on cq (bounded: 60 s, for a machine busy with other work) */
static int wait_wc(struct mrc_cq *cq, struct ibv_wc *wc) {
    uint64_t t0 = now_ns();
    int n;
    while ((n = mrc_poll_cq(cq, 1, wc)) == 0)
        if (now_ns() - t0 > 60000000000ull) return 0;
    return n;
}

static void xwrite(int fd, const void *p, size_t n) {
    if (write(fd, p, n) != (ssize_t)n) DIE("pipe write");
}
static void xread(int fd, void *p, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r <= 0) DIE("pipe read");
        got += (size_t)r;
    }
}

/* ---- bw: two processes ---------------------------------------------------------------------------------- */

/* Without a progress thread both processes spin, and a busy machine deschedules them for milliseconds: fewer
 * ping-pong rounds, no 1 MiB size and fewer writes per size there. */
static int inline_mode(void) { return getenv("MRC_OCP_INLINE") != NULL; }
static unsigned rounds(void) { return inline_mode() ? 200 : 1000; }

static const uint32_t sizes[] = { 1, 8, 64, 200, 1000, 4096, 4097, 65536, 1u << 20 };
#define NSIZES (sizeof sizes / sizeof sizes[0] - (inline_mode() ? 1 : 0))
#define MAXSZ (1u << 20)
#define OUTSTANDING 128
#define SIGNAL_EVERY 16

struct result { uint32_t size, imm, sum; int ok; };

static int bw_server(int rd, int wr_) {
    struct side s;
    struct wire me, peer;
    unsigned i;
    int bad = 0;
    side_open(&s, g_dev1, 2 * MAXSZ + 4096, 1024, 256);
    side_wire(&s, &me, 0x222);
    xwrite(wr_, &me, sizeof me);
    xread(rd, &peer, sizeof peer);
    side_connect(&s, &me, &peer, NULL, 0);
    for (i = 0; i < NSIZES; i++) {
        struct ibv_wc wc;
        struct result r;
        char go = 'g';
        if (post_recv(&s, 0x1000 + i)) DIE("post_recv");
        xwrite(wr_, &go, 1); /* ready for this size */
        memset(&r, 0, sizeof r);
        r.size = sizes[i];
        if (wait_wc(s.rcq, &wc) != 1 || wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
            !(wc.wc_flags & IBV_WC_WITH_IMM) || wc.wr_id != 0x1000 + i) {
            fprintf(stderr, "server: size %u: bad receive completion (status %s)\n", sizes[i],
                    ibv_wc_status_str(wc.status));
            bad = 1;
        } else {
            r.imm = ntohl(wc.imm_data);
            r.sum = fnv(s.buf, sizes[i]);
            r.ok = 1;
        }
        xwrite(wr_, &r, sizeof r);
    }
    /* latency: answer each Write-with-Immediate with one */
    for (i = 0; i < rounds(); i++) {
        struct ibv_wc wc;
        if (post_recv(&s, 0x9000 + i)) DIE("post_recv");
        if (i == 0) {
            char go = 'l';
            xwrite(wr_, &go, 1);
        }
        if (wait_wc(s.rcq, &wc) != 1 || wc.status != IBV_WC_SUCCESS || ntohl(wc.imm_data) != 0x5000 + i) {
            bad = 1;
            break;
        }
        if (post_write(&s, 0, 8, &peer, 0, 1, i, 1, 1, 1, 0x6000 + i) || wait_wc(s.scq, &wc) != 1 ||
            wc.status != IBV_WC_SUCCESS) {
            bad = 1;
            break;
        }
    }
    side_close(&s);
    return bad;
}

static void bw_client(int rd, int wr_) {
    struct side s;
    struct wire me, peer;
    unsigned i;
    uint64_t lat = 0;
    side_open(&s, g_dev0, 2 * MAXSZ + 4096, 1024, 256);
    side_wire(&s, &me, 0x111);
    xread(rd, &peer, sizeof peer);
    xwrite(wr_, &me, sizeof me);
    side_connect(&s, &me, &peer, NULL, 0);
    for (i = 0; i < NSIZES; i++) {
        uint32_t sz = sizes[i], iters = inline_mode() ? 32 : sz >= 65536 ? 64 : 512, posted = 0, done = 0, expect_imm;
        uint64_t t0, t1;
        struct ibv_wc wc[32];
        struct result r;
        char go;
        int n, k, werr = 0;
        fill(s.buf, sz, 1000 + i);
        expect_imm = 0xA5000000u | (i << 16) | (fnv(s.buf, sz) & 0xFFFF);
        xread(rd, &go, 1);
        t0 = now_ns();
        while (done < iters) {
            while (posted < iters && posted - done < OUTSTANDING) {
                int sig = (posted % SIGNAL_EVERY) == SIGNAL_EVERY - 1 || posted == iters - 1;
                int nsge = (posted % 3 == 1) ? 2 : 1, inl = sz <= 200 && (posted % 2 == 0);
                if (post_write(&s, 0, sz, &peer, 0, sig, posted, nsge, inl, 0, 0)) DIE("post_send size %u", sz);
                posted++;
            }
            n = mrc_poll_cq(s.scq, 32, wc);
            if (n < 0) DIE("mrc_poll_cq");
            for (k = 0; k < n; k++) {
                if (wc[k].status != IBV_WC_SUCCESS || wc[k].opcode != IBV_WC_RDMA_WRITE) {
                    if (!werr) fprintf(stderr, "client: size %u write %llu: %s\n", sz, (unsigned long long)wc[k].wr_id, ibv_wc_status_str(wc[k].status));
                    werr = 1;
                }
                done = (uint32_t)wc[k].wr_id + 1;
            }
            if (werr) break;
        }
        t1 = now_ns();
        CHECK("bw write completions", !werr, "size %u: a write failed", sz);
        /* the immediate last: the receiver checks the data once it has it */
        if (post_write(&s, 0, sz, &peer, 0, 1, 0xFFFF, 1, 0, 1, expect_imm)) DIE("post imm");
        if (wait_wc(s.scq, wc) != 1 || wc[0].status != IBV_WC_SUCCESS) DIE("imm completion");
        xread(rd, &r, sizeof r);
        {
            char name[64];
            snprintf(name, sizeof name, "bw size %u data and immediate", sz);
            CHECK(name, r.ok && r.imm == expect_imm && r.sum == fnv(s.buf, sz),
                  "ok %d imm 0x%08x (want 0x%08x) sum 0x%08x (want 0x%08x)", r.ok, r.imm, expect_imm, r.sum,
                  fnv(s.buf, sz));
        }
        printf("   size %7u: %5u writes, %8.1f MB/s\n", sz, iters,
               (double)sz * iters / ((double)(t1 - t0) / 1e9) / 1e6);
    }
    {
        char go;
        struct ibv_wc wc;
        int bad = 0;
        xread(rd, &go, 1);
        for (i = 0; i < rounds(); i++) {
            uint64_t t0;
            if (post_recv(&s, 0x7000 + i)) DIE("post_recv");
            t0 = now_ns();
            if (post_write(&s, 0, 8, &peer, 0, 1, i, 1, 1, 1, 0x5000 + i) || wait_wc(s.scq, &wc) != 1 ||
                wc.status != IBV_WC_SUCCESS || wait_wc(s.rcq, &wc) != 1 || wc.status != IBV_WC_SUCCESS ||
                ntohl(wc.imm_data) != 0x6000 + i) {
                bad = 1;
                break;
            }
            lat += now_ns() - t0;
        }
        CHECK("latency ping-pong exact immediates", !bad, "round %u of %u failed", i, rounds());
        if (!bad) printf("   latency: %.1f us per round trip (8-byte Write-with-Immediate each way)\n",
                         (double)lat / rounds() / 1000.0);
    }
    side_close(&s);
}

static void t_bw(void) {
    int a[2], b[2], st = 0;
    pid_t pid;
    if (pipe(a) || pipe(b)) DIE("pipe");
    fflush(stdout);
    pid = fork();
    if (pid < 0) DIE("fork");
    if (pid == 0) {
        close(a[1]);
        close(b[0]);
        _exit(bw_server(a[0], b[1]));
    }
    close(a[0]);
    close(b[1]);
    bw_client(b[0], a[1]);
    close(a[1]);
    close(b[0]);
    waitpid(pid, &st, 0);
    CHECK("bw server process", WIFEXITED(st) && WEXITSTATUS(st) == 0, "server exit status %d", st);
}

/* ---- errors: one process, both devices ------------------------------------------------------------------- */

static struct mrc_qp *extra_qp_sq(struct side *s, struct mrc_cq *scq, uint32_t sq) {
    struct mrc_qp_init_attr qa;
    memset(&qa, 0, sizeof qa);
    qa.send_cq = scq;
    qa.recv_cq = s->rcq;
    qa.pd = s->pd;
    qa.cap.max_send_wr = sq;
    qa.cap.max_recv_wr = 16;
    qa.cap.max_send_sge = 1;
    qa.cap.max_recv_sge = 1;
    return mrc_create_qp(s->m, &qa);
}

static struct mrc_qp *extra_qp(struct side *s, struct mrc_cq *scq) { return extra_qp_sq(s, scq, 16); }

/* ---- a QP whose queue is full does not hold up another QP's posts -------------------------------------------- */

static void t_stall(void) {
    struct side a, b, t;
    struct wire wa, wb, dead;
    struct mrc_qp_attr m;
    struct ibv_wc wc[32];
    struct mrc_cq *cq;
    struct mrc_qp *q;
    const int nq = 80; /* more than the core's queue of a QP (64): the last ones wait in lib_mrc */
    int i, n, done = 0, early, flushed = 0, inorder = 1;
    side_open(&a, "mrcudp0", 1 << 16, 64, 64);
    side_open(&b, "mrcudp1", 1 << 16, 64, 64);
    pair_connect(&a, &wa, &b, &wb, 0, 0);
    cq = mrc_create_cq(a.m, 256, NULL, NULL, 0);
    q = cq ? extra_qp_sq(&a, cq, 128) : NULL;
    if (!q) DIE("stall qp");
    dead = wb;
    dead.gid.raw[15] = 3; /* 127.0.0.3: nobody there, nothing is ever acknowledged */
    memset(&m, 0, sizeof m);
    m.timeout = 18; /* about 1 s a try: its retries outlast what follows */
    m.retry.linear_cnt = 7;
    m.retry.exp_cnt = 7;
    t = a;
    t.qp = q;
    side_connect(&t, &wa, &dead, &m, MRC_QP_TIMEOUT | MRC_QP_RETRY_CNT);
    for (i = 0; i < nq; i++)
        if (post_write(&t, 0, 64, &dead, 0, 1, 1000 + (uint64_t)i, 1, 0, 0, 0)) DIE("post to the dead peer");
    /* then the live QP on the same device: its writes pass the stalled ones */
    for (i = 0; i < 8; i++)
        if (post_write(&a, 64 * (uint64_t)i, 64, &wb, 64 * (uint64_t)i, 1, 2000 + (uint64_t)i, 1, 0, 0, 0))
            DIE("post to the live peer");
    while (done < 8 && (n = wait_wc(a.scq, wc)) == 1) done += wc[0].status == IBV_WC_SUCCESS;
    early = mrc_poll_cq(cq, 32, wc);
    CHECK("stall: a QP whose queue is full does not hold up another QP's writes", done == 8 && early == 0,
          "live writes done %d, the stalled QP's completions meanwhile %d", done, early);
    if (mrc_destroy_qp(q)) DIE("destroy stalled qp");
    /* the posts that never reached the core: flushed, in order (the core's own 64 are flushed by the core) */
    while ((n = mrc_poll_cq(cq, 32, wc)) > 0)
        for (i = 0; i < n; i++)
            if (wc[i].wr_id >= 1000 + 64 && wc[i].status == IBV_WC_WR_FLUSH_ERR) {
                inorder = inorder && wc[i].wr_id == 1000 + 64 + (uint64_t)flushed;
                flushed++;
            }
    CHECK("stall: destroying it flushes the posts still waiting in lib_mrc, in order", flushed == nq - 64 && inorder,
          "%d of %d, in order %d", flushed, nq - 64, inorder);
    if (mrc_destroy_cq(cq)) DIE("destroy stall cq");
    side_close(&a);
    side_close(&b);
}

static void t_errors(void) {
    struct side a, b;
    struct wire wa, wb;
    struct mrc_comp_channel *ch = NULL;
    struct ibv_wc wc[16];
    int i, n, rc;
    side_open2(&a, "mrcudp0", 1 << 16, 4, 64, &ch);
    side_open(&b, "mrcudp1", 1 << 16, 64, 64);
    pair_connect(&a, &wa, &b, &wb, 0, 0);

    /* completion channel: arm, write, get the event */
    {
        struct mrc_cq *evcq = NULL;
        void *evctx = NULL;
        int fd = -1;
        CHECK("comp channel fd", mrc_get_comp_channel_fd(ch, &fd) == 0 && fd >= 0, "fd %d", fd);
        CHECK("req_notify_cq", mrc_req_notify_cq(a.scq, 0) == 0, "errno %d", errno);
        rc = post_write(&a, 0, 64, &wb, 0, 1, 77, 1, 0, 0, 0);
        CHECK("get_cq_event after a write", rc == 0 && mrc_get_cq_event(ch, &evcq, &evctx) == 0 && evcq == a.scq &&
                                                evctx == &a, "rc %d errno %d", rc, errno);
        mrc_ack_cq_events(a.scq, 1);
        n = wait_wc(a.scq, wc);
        CHECK("completion behind the event", n == 1 && wc[0].wr_id == 77 && wc[0].status == IBV_WC_SUCCESS,
              "n %d", n);
        CHECK("destroy a channel in use: EBUSY", mrc_destroy_comp_channel(ch) == -1 && errno == EBUSY, "errno %d",
              errno);
    }

    /* CQ overflow: 4 entries, 8 signaled writes */
    {
        struct mrc_async_event ev;
        for (i = 0; i < 8; i++)
            if (post_write(&a, 0, 64, &wb, 0, 1, 100 + (uint64_t)i, 1, 0, 0, 0)) DIE("post");
        alarm(20);
        rc = mrc_get_async_event(a.m, &ev);
        alarm(0);
        CHECK("CQ overflow raises IBV_EVENT_CQ_ERR", rc == 0 && ev.event_type == IBV_EVENT_CQ_ERR &&
                                                         ev.element.cq == a.scq, "rc %d type %d", rc, (int)ev.event_type);
        mrc_ack_async_event(&ev);
        n = mrc_poll_cq(a.scq, 16, wc);
        CHECK("overflowed CQ keeps its 4 entries", n == 4 && wc[0].wr_id == 100, "n %d", n);
    }

    /* bad calls */
    {
        struct ibv_send_wr wr, *bad = NULL;
        struct ibv_sge sge[5];
        struct ibv_qp_attr v;
        struct mrc_qp_attr m;
        struct mrc_qp_hint_init_attr hi;
        struct mrc_qp_hint_attr ha;
        struct mrc_qp_hint *h;
        struct mrc_qp *q;
        memset(&wr, 0, sizeof wr);
        memset(sge, 0, sizeof sge);
        sge[0].addr = (uint64_t)(uintptr_t)a.buf;
        sge[0].length = 8;
        wr.sg_list = sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_SEND;
        wr.wr.rdma.rkey = wb.rkey;
        wr.wr.rdma.remote_addr = wb.vaddr;
        rc = mrc_post_send(a.qp, &wr, &bad);
        CHECK("post SEND: EINVAL", rc == EINVAL && bad == &wr, "rc %d", rc);
        wr.opcode = IBV_WR_RDMA_WRITE;
        wr.num_sge = 5;
        rc = mrc_post_send(a.qp, &wr, &bad);
        CHECK("post 5 SGEs on a 4-SGE QP: EINVAL", rc == EINVAL, "rc %d", rc);
        wr.num_sge = 1;
        wr.send_flags = IBV_SEND_INLINE;
        sge[0].length = 1000;
        rc = mrc_post_send(a.qp, &wr, &bad);
        CHECK("inline past max_inline_data: EINVAL", rc == EINVAL, "rc %d", rc);
        CHECK("destroy a CQ in use: EBUSY", mrc_destroy_cq(a.scq) == -1 && errno == EBUSY, "errno %d", errno);
        CHECK("destroy a context in use: EBUSY", mrc_destroy_context(a.m) == -1 && errno == EBUSY, "errno %d", errno);
        CHECK("create_cq with 0 entries: EINVAL", !mrc_create_cq(a.m, 0, NULL, NULL, 0) && errno == EINVAL,
              "errno %d", errno);
        CHECK("poll_cq(NULL): -1 EINVAL", mrc_poll_cq(NULL, 1, wc) == -1 && errno == EINVAL, "errno %d", errno);
        memset(&hi, 0, sizeof hi);
        hi.attr.num_qps_per_peer = 2;
        hi.attr.num_send_peers = 8;
        hi.attr.num_remote_recv_peers = 4;
        h = mrc_create_qp_hint(a.m, &hi);
        CHECK("create qp hint", h != NULL, "errno %d", errno);
        memset(&ha, 0, sizeof ha);
        CHECK("query hint with an unknown mask bit: EINVAL", mrc_query_qp_hint(h, &ha, 1 << 5) == -1 && errno == EINVAL,
              "errno %d", errno);
        CHECK("query hint", mrc_query_qp_hint(h, &ha, MRC_QP_HINT_NUM_SEND_PEERS) == 0 && ha.num_send_peers == 8,
              "got %d", ha.num_send_peers);
        q = extra_qp(&a, a.rcq);
        memset(&v, 0, sizeof v);
        memset(&m, 0, sizeof m);
        v.qp_state = IBV_QPS_RTS;
        CHECK("RESET -> RTS: EINVAL", q && mrc_modify_qp(q, &v, IBV_QP_STATE, &m, 0) == -1 && errno == EINVAL,
              "errno %d", errno);
        CHECK("modify without IBV_QP_STATE: EINVAL", mrc_modify_qp(q, &v, IBV_QP_PATH_MTU, &m, 0) == -1 &&
                                                          errno == EINVAL, "errno %d", errno);
        rc = mrc_post_send(q, &wr, &bad);
        CHECK("post on a QP in RESET: EINVAL", rc == EINVAL, "rc %d", rc);
        v.qp_state = IBV_QPS_INIT;
        m.qp_hint = h;
        CHECK("INIT with a QP hint", mrc_modify_qp(q, &v, IBV_QP_STATE, &m, MRC_QP_HINT) == 0, "errno %d", errno);
        CHECK("destroy a hint in use: EBUSY", mrc_destroy_qp_hint(h) == -1 && errno == EBUSY, "errno %d", errno);
        CHECK("destroy the QP", mrc_destroy_qp(q) == 0, "errno %d", errno);
        CHECK("destroy the hint", mrc_destroy_qp_hint(h) == 0, "errno %d", errno);
    }

    /* retry exceeded: a QP whose peer is silent */
    {
        struct mrc_cq *cq = mrc_create_cq(a.m, 16, NULL, NULL, 0);
        struct mrc_qp *q = extra_qp(&a, cq);
        struct wire dead = wb;
        struct mrc_qp_attr m;
        struct mrc_async_event ev;
        int okseq = 1;
        dead.gid.raw[15] = 3; /* 127.0.0.3: nobody there */
        memset(&m, 0, sizeof m);
        m.timeout = 8; /* 262 us */
        m.retry.linear_cnt = 1;
        m.retry.exp_cnt = 1;
        if (!cq || !q) DIE("extra qp");
        {
            struct side t = a;
            t.qp = q;
            side_connect(&t, &wa, &dead, &m, MRC_QP_TIMEOUT | MRC_QP_RETRY_CNT);
            for (i = 0; i < 3; i++)
                if (post_write(&t, 0, 64, &dead, 0, 1, 200 + (uint64_t)i, 1, 0, 0, 0)) DIE("post");
        }
        for (i = 0; i < 3; i++) {
            if (wait_wc(cq, &wc[i]) != 1) {
                okseq = 0;
                break;
            }
        }
        CHECK("retry exceeded: IBV_WC_RETRY_EXC_ERR first", okseq && wc[0].status == IBV_WC_RETRY_EXC_ERR &&
                                                                wc[0].wr_id == 200,
              "status %s wr_id %llu", ibv_wc_status_str(wc[0].status), (unsigned long long)wc[0].wr_id);
        CHECK("then the rest flushed in order", okseq && wc[1].status == IBV_WC_WR_FLUSH_ERR && wc[1].wr_id == 201 &&
                                                    wc[2].status == IBV_WC_WR_FLUSH_ERR && wc[2].wr_id == 202,
              "%s %s", ibv_wc_status_str(wc[1].status), ibv_wc_status_str(wc[2].status));
        alarm(20);
        rc = mrc_get_async_event(a.m, &ev);
        alarm(0);
        CHECK("QP fatal async event", rc == 0 && ev.event_type == IBV_EVENT_QP_FATAL && ev.element.qp == q,
              "type %d", (int)ev.event_type);
        rc = post_write(&a, 0, 8, &dead, 0, 1, 300, 1, 0, 0, 0);
        {
            struct side t = a;
            t.qp = q;
            rc = post_write(&t, 0, 8, &dead, 0, 1, 300, 1, 0, 0, 0);
        }
        n = wait_wc(cq, wc);
        CHECK("post on a QP in error: flushed", rc == 0 && n == 1 && wc[0].status == IBV_WC_WR_FLUSH_ERR &&
                                                    wc[0].wr_id == 300, "rc %d n %d", rc, n);
        if (mrc_destroy_qp(q) || mrc_destroy_cq(cq)) DIE("destroy extra");
        n = 0;
        while (mrc_poll_cq(a.scq, 16, wc) > 0) n++;
    }
    /* a write into a region the peer has deregistered: remote access error */
    {
        struct mrc_cq *cq = mrc_create_cq(a.m, 16, NULL, NULL, 0);
        struct side ta = a, tb = b;
        struct wire wqa, wqb;
        uint8_t *buf2 = calloc(1, 4096);
        struct ibv_mr *mr2 = ibv_reg_mr(b.pd, buf2, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
        ta.qp = extra_qp(&a, cq);
        tb.qp = extra_qp(&b, b.rcq);
        if (!cq || !ta.qp || !tb.qp || !mr2 || !buf2) DIE("setup");
        side_wire(&ta, &wqa, 3);
        side_wire(&tb, &wqb, 4);
        wqb.rkey = mr2->rkey;
        wqb.vaddr = (uint64_t)(uintptr_t)buf2;
        side_connect(&ta, &wqa, &wqb, NULL, 0);
        side_connect(&tb, &wqb, &wqa, NULL, 0);
        memset(a.buf, 0x5A, 64);
        rc = post_write(&ta, 0, 64, &wqb, 0, 1, 400, 1, 0, 0, 0);
        n = wait_wc(cq, wc);
        CHECK("write into a second region", rc == 0 && n == 1 && wc[0].status == IBV_WC_SUCCESS &&
                                                buf2[0] == 0x5A && buf2[63] == 0x5A, "n %d", n);
        ibv_dereg_mr(mr2);
        rc = post_write(&ta, 0, 64, &wqb, 0, 1, 401, 1, 0, 0, 0);
        n = wait_wc(cq, wc);
        CHECK("write into a deregistered region: IBV_WC_REM_ACCESS_ERR",
              rc == 0 && n == 1 && wc[0].status == IBV_WC_REM_ACCESS_ERR && wc[0].wr_id == 401, "status %s",
              n == 1 ? ibv_wc_status_str(wc[0].status) : "none");
        {
            struct mrc_async_event ev;
            alarm(20);
            rc = mrc_get_async_event(a.m, &ev); /* the QP's fatal error */
            alarm(0);
            CHECK("remote access error: QP fatal event", rc == 0 && ev.event_type == IBV_EVENT_QP_FATAL &&
                                                             ev.element.qp == ta.qp, "type %d", (int)ev.event_type);
        }
        if (mrc_destroy_qp(ta.qp) || mrc_destroy_qp(tb.qp) || mrc_destroy_cq(cq)) DIE("destroy");
        free(buf2);
    }
    side_close(&a);
    side_close(&b);
}

/* ---- layout: what OCP's headers give on x86_64 (checked against them once; see ocp/README.md) ------------- */

#define SZ(t, n) _Static_assert(sizeof(struct t) == (n), "size of " #t)
#define OF(t, f, n) _Static_assert(offsetof(struct t, f) == (n), "offset of " #t "." #f)
#if defined(__x86_64__)
SZ(mrc_device_attr, 20); SZ(mrc_context_attr, 8); SZ(mrc_qp_hint_attr, 140); SZ(mrc_qp_hint_init_attr, 140);
SZ(mrc_qp_init_attr, 72); SZ(mrc_qp_attr, 176); SZ(mrc_async_event, 16); SZ(mrc_ctl_device_attr, 72);
SZ(mrc_ctl_port_attr, 4); SZ(mrc_ctl_ev_fmt_field, 1); SZ(mrc_ctl_ev_fmt_profile_attr, 168); SZ(mrc_ctl_ev, 33);
SZ(mrc_ctl_ev_field, 20); SZ(mrc_ctl_ev_op_entry, 76); SZ(mrc_ctl_ev_profile_attr, 216);
SZ(mrc_ctl_cc_profile_attr, 152); SZ(mrc_ctl_cc_nscc_cfg, 52); SZ(mrc_ctl_ev_event, MRC_CTL_API_VER_USED >= MRC_CTL_API_VER(1, 0, 1) ? 56 : 48);
SZ(mrc_ctl_ep_req, 88);
SZ(mrc_ctl_ep_rsp, 12);
OF(mrc_device_attr, cap, 16); OF(mrc_qp_init_attr, cap, 24); OF(mrc_qp_init_attr, pd, 48);
OF(mrc_qp_init_attr, protocol_version, 64); OF(mrc_qp_attr, timeout, 6); OF(mrc_qp_attr, profile, 8);
OF(mrc_qp_attr, retry, 24); OF(mrc_qp_attr, qp_hint, 32); OF(mrc_qp_attr, cap, 40); OF(mrc_qp_attr, vendor_cfg, 44);
OF(mrc_ctl_device_attr, cc, 48); OF(mrc_ctl_device_attr, phy_port_mask, 64);
OF(mrc_ctl_ev_fmt_profile_attr, ev_fmt_op, 16); OF(mrc_ctl_ev_profile_attr, ev_fmt_profile_id, 16);
OF(mrc_ctl_ev_profile_attr, ev_op, 40); OF(mrc_ctl_ev_profile_attr, ev_fields_op, 64);
OF(mrc_ctl_ev_profile_attr, vendor_cfg, 88); OF(mrc_ctl_cc_nscc_cfg, eta, 16); OF(mrc_ctl_cc_nscc_cfg, max_cwnd, 36);
OF(mrc_ctl_cc_nscc_cfg, qa_gate, 40); OF(mrc_ctl_cc_nscc_cfg, target_delay, 48); OF(mrc_ctl_ev_event, drop_count, 44);
OF(mrc_ctl_ep_req, sgid, 8); OF(mrc_ctl_ep_req, ev_fmt_mode, 40); OF(mrc_ctl_ep_req, req_ev, 44);
OF(mrc_ctl_ep_req, op, 80); OF(mrc_ctl_ep_rsp, rtt, 4); OF(mrc_ctl_ep_rsp, adj_svc_time, 8);
OF(mrc_ctl_ev_op_entry, state, 68);
#endif
_Static_assert(MRC_API_VER(1, 0, 1) == 0x01000001, "version encoding");
_Static_assert(MRC_QP_VENDOR_CFG == (int)0x80000000u && MRC_CTL_EV_UNKNOWN == (int)0x80000000u, "bit 31 values");

static void t_layout(void) { CHECK("layout static asserts", 1, "-"); }

/* ---- controller --------------------------------------------------------------------------------------------- */

static void t_ctl(void) {
    struct side a, b;
    struct mrc_ctl_device_attr da;
    struct mrc_ctl_port_attr pa;
    uint32_t cur = 0, last = 0, vend = 0, lastv = 0;
    int sup = 0, rc, i, has_nscc = 0;
    side_open(&a, "mrcudp0", 4096, 64, 64);
    side_open(&b, "mrcudp1", 4096, 64, 64);

    mrc_ctl_query_version(&cur, &last, &vend, &lastv);
    CHECK("ctl version 1.0.1", cur == MRC_CTL_API_VER(1, 0, 1), "0x%08x", cur);
    memset(&da, 0, sizeof da);
#if MRC_CTL_API_VER_USED >= MRC_CTL_API_VER(1, 0, 1)
    rc = mrc_ctl_query_device_ex(a.v, a.m, &da, &sup);
#else
    rc = mrc_ctl_query_device(a.v, &da);
    sup = 1;
#endif
    for (i = 0; rc == 0 && da.cc.algorithms && da.cc.algorithms[i]; i++)
        if (!strcmp(da.cc.algorithms[i], "uet-1.0-nscc")) has_nscc = 1;
    CHECK("ctl query device", rc == 0 && sup && has_nscc && (da.phy_port_mask & 2) &&
                                  (da.ev.ev_fmt_mode_mask & MRC_CTL_EV_FMT_MODE_UDP), "rc %d", rc);

    CHECK("port 1 enabled", mrc_ctl_query_port(a.m, 1, &pa, MRC_CTL_PORT_ADMIN_STATE) == 0 &&
                                pa.port_admin_state == MRC_CTL_PORT_ADMIN_ENABLED, "errno %d", errno);
    pa.port_admin_state = MRC_CTL_PORT_ADMIN_DISABLED;
    rc = mrc_ctl_modify_port(a.m, 1, &pa, MRC_CTL_PORT_ADMIN_STATE);
    pa.port_admin_state = MRC_CTL_PORT_ADMIN_ENABLED;
    CHECK("port 1 disabled", rc == 0 && mrc_ctl_query_port(a.m, 1, &pa, MRC_CTL_PORT_ADMIN_STATE) == 0 &&
                                 pa.port_admin_state == MRC_CTL_PORT_ADMIN_DISABLED, "rc %d errno %d", rc, errno);
    pa.port_admin_state = MRC_CTL_PORT_ADMIN_ENABLED;
    CHECK("port 1 enabled again", mrc_ctl_modify_port(a.m, 1, &pa, MRC_CTL_PORT_ADMIN_STATE) == 0, "errno %d", errno);
    CHECK("port 9: EINVAL", mrc_ctl_query_port(a.m, 9, &pa, MRC_CTL_PORT_ADMIN_STATE) == -1 && errno == EINVAL,
          "errno %d", errno);

    /* CC profile 1: NSCC with a window cap */
    {
        struct mrc_ctl_cc_profile_attr cc;
        struct mrc_ctl_cc_nscc_cfg nc;
        memset(&cc, 0, sizeof cc);
        memset(&nc, 0, sizeof nc);
        cc.profile_state = MRC_CTL_PROFILE_OFFLINE;
        cc.algorithm = "uet-1.0-nscc";
        rc = mrc_ctl_modify_cc_profile(a.m, 1, &cc, MRC_CTL_CC_PROFILE_STATE | MRC_CTL_CC_PROFILE_ALGORITHM);
        CHECK("cc profile to OFFLINE", rc == 0, "errno %d", errno);
        nc.max_cwnd = 65536;
        cc.profile_state = MRC_CTL_PROFILE_ONLINE;
        cc.cc_config = &nc;
        rc = mrc_ctl_modify_cc_profile(a.m, 1, &cc, MRC_CTL_CC_PROFILE_STATE | MRC_CTL_CC_PROFILE_CONFIG);
        CHECK("cc profile to ONLINE", rc == 0, "errno %d", errno);
        memset(&cc, 0, sizeof cc);
        memset(&nc, 0, sizeof nc);
        cc.cc_config = &nc;
        rc = mrc_ctl_query_cc_profile(a.m, 1, &cc, MRC_CTL_CC_PROFILE_CUR_STATE | MRC_CTL_CC_PROFILE_ALGORITHM |
                                                       MRC_CTL_CC_PROFILE_CONFIG);
        CHECK("cc profile query", rc == 0 && cc.cur_profile_state == MRC_CTL_PROFILE_ONLINE && cc.algorithm &&
                                      !strcmp(cc.algorithm, "uet-1.0-nscc") && nc.max_cwnd == 65536,
              "rc %d state %d cwnd %u", rc, (int)cc.cur_profile_state, nc.max_cwnd);
    }

    /* EV Format 1 (UDP, one 16-bit field) and an EXP EV profile 1 of 8 source ports */
    {
        struct mrc_ctl_ev_fmt_profile_attr f;
        struct mrc_ctl_ev_fmt_field ff[2] = { { 16 }, { 0 } };
        struct mrc_ctl_ev_profile_attr p;
        struct mrc_ctl_ev_field fld;
        struct mrc_ctl_ev_op_entry e[8];
        memset(&f, 0, sizeof f);
        f.profile_state = MRC_CTL_PROFILE_OFFLINE;
        f.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_UDP;
        rc = mrc_ctl_modify_ev_fmt_profile(a.m, 1, &f, MRC_CTL_EV_FMT_PROFILE_STATE | MRC_CTL_EV_FMT_PROFILE_MODE);
        CHECK("ev fmt to OFFLINE", rc == 0, "errno %d", errno);
        f.profile_state = MRC_CTL_PROFILE_ONLINE;
        f.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_MODIFY_FIELDS;
        f.ev_fmt_op.fmt_fields = ff;
        f.ev_fmt_op.fmt_field_count = 1;
        rc = mrc_ctl_modify_ev_fmt_profile(a.m, 1, &f, MRC_CTL_EV_FMT_PROFILE_STATE | MRC_CTL_EV_FMT_PROFILE_OP);
        CHECK("ev fmt fields and ONLINE", rc == 0, "errno %d", errno);
        {
            struct mrc_ctl_ev_fmt_field many[9];
            struct mrc_ctl_ev_fmt_profile_attr g;
            memset(many, 0, sizeof many);
            memset(&g, 0, sizeof g);
            for (i = 0; i < 9; i++) many[i].width = 4;
            g.profile_state = MRC_CTL_PROFILE_OFFLINE;
            g.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_STEV;
            g.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_MODIFY_FIELDS;
            g.ev_fmt_op.fmt_fields = many;
            g.ev_fmt_op.fmt_field_count = 9;
            rc = mrc_ctl_modify_ev_fmt_profile(a.m, 2, &g, MRC_CTL_EV_FMT_PROFILE_STATE | MRC_CTL_EV_FMT_PROFILE_MODE |
                                                              MRC_CTL_EV_FMT_PROFILE_OP);
            CHECK("ev fmt of 9 fields: E2BIG", rc == -1 && errno == E2BIG, "rc %d errno %d", rc, errno);
        }
        memset(&f, 0, sizeof f);
        f.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_QUERY_FIELDS;
        f.ev_fmt_op.fmt_fields = ff;
        f.ev_fmt_op.fmt_field_count = 0;
        rc = mrc_ctl_query_ev_fmt_profile(a.m, 1, &f, MRC_CTL_EV_FMT_PROFILE_OP);
        CHECK("ev fmt query into no room: E2BIG and the count", rc == -1 && errno == E2BIG &&
                                                                    f.ev_fmt_op.fmt_field_count == 1, "rc %d errno %d", rc, errno);
        memset(&p, 0, sizeof p);
        memset(&fld, 0, sizeof fld);
        fld.width = 16;
        fld.mask = 0xFFFF;
        p.profile_state = MRC_CTL_PROFILE_OFFLINE;
        p.ev_mode = MRC_CTL_EV_MODE_EXP;
        p.ev_fmt_profile_id = 1;
        p.ev_count = 8;
        p.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS;
        p.ev_fields_op.fields = &fld;
        p.ev_fields_op.field_count = 1;
        rc = mrc_ctl_modify_ev_profile(a.m, 1, &p, MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_MODE |
                                                      MRC_CTL_EV_PROFILE_FMT_ID | MRC_CTL_EV_PROFILE_COUNT |
                                                      MRC_CTL_EV_PROFILE_EV_FIELDS_OP);
        CHECK("ev profile to OFFLINE", rc == 0, "errno %d", errno);
        memset(e, 0, sizeof e);
        for (i = 0; i < 8; i++) {
            e[i].ev_new.val[0] = (uint8_t)((50000 + i) >> 8);
            e[i].ev_new.val[1] = (uint8_t)(50000 + i);
            e[i].ev_new.port = 1;
            e[i].state = MRC_CTL_EV_GOOD;
        }
        memset(&p, 0, sizeof p);
        p.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
        p.ev_op.entries = e;
        p.ev_op.entry_count = 8;
        rc = mrc_ctl_modify_ev_profile(a.m, 1, &p, MRC_CTL_EV_PROFILE_EV_OP);
        CHECK("ev profile: replace 8 unpopulated EVs", rc == 0, "errno %d", errno);
        p.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
        rc = mrc_ctl_modify_ev_profile(a.m, 1, &p, MRC_CTL_EV_PROFILE_EV_OP | MRC_CTL_EV_PROFILE_EV_FIELDS_OP);
        CHECK("EV_OP with EV_FIELDS_OP: EINVAL", rc == -1 && errno == EINVAL, "errno %d", errno);
        memset(&p, 0, sizeof p);
        p.profile_state = MRC_CTL_PROFILE_ONLINE;
        p.ev_min_active = 2;
        p.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
        rc = mrc_ctl_modify_ev_profile(a.m, 1, &p, MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_MIN_ACTIVE |
                                                      MRC_CTL_EV_PROFILE_EVENT_MASK);
        CHECK("ev profile ONLINE", rc == 0, "errno %d", errno);
        memset(&p, 0, sizeof p);
        memset(e, 0, sizeof e);
        p.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_ARRAY;
        p.ev_op.entries = e;
        p.ev_op.entry_count = 4;
        rc = mrc_ctl_query_ev_profile(a.m, 1, &p, MRC_CTL_EV_PROFILE_EV_OP);
        CHECK("query EV array into 4: E2BIG, needs 8", rc == -1 && errno == E2BIG && p.ev_op.entry_count == 8,
              "rc %d errno %d count %d", rc, errno, p.ev_op.entry_count);
        p.ev_op.entry_count = 8;
        rc = mrc_ctl_query_ev_profile(a.m, 1, &p, MRC_CTL_EV_PROFILE_EV_OP | MRC_CTL_EV_PROFILE_CUR_STATE |
                                                     MRC_CTL_EV_PROFILE_COUNT);
        CHECK("query EV array", rc == 0 && p.cur_profile_state == MRC_CTL_PROFILE_ONLINE && p.ev_count == 8 &&
                                    e[7].ev.val[0] == (uint8_t)(50007 >> 8) && e[7].ev.val[1] == (uint8_t)50007 &&
                                    e[7].ev.port == 1, "rc %d errno %d", rc, errno);
        memset(&f, 0, sizeof f);
        f.profile_state = MRC_CTL_PROFILE_OFFLINE;
        rc = mrc_ctl_modify_ev_fmt_profile(a.m, 1, &f, MRC_CTL_EV_FMT_PROFILE_STATE);
        CHECK("ev fmt in use by an ONLINE profile: EBUSY", rc == -1 && errno == EBUSY, "rc %d errno %d", rc, errno);
    }

    /* EV event CQ: created and polled empty */
    {
        struct mrc_cq *ecq = mrc_ctl_create_ev_event_cq(a.m, 16, NULL, NULL, 0);
        struct mrc_ctl_ev_event ev[2];
        CHECK("ev event cq", ecq && mrc_ctl_poll_ev_event(ecq, 2, ev) == 0, "errno %d", errno);
        CHECK("ev event cq is not a completion CQ", ecq && mrc_poll_cq(ecq, 1, NULL) == -1, "-");
        if (ecq) mrc_destroy_cq(ecq);
    }

    /* EV probes: one to the live device, one to nobody */
    {
        struct mrc_ctl_ep_req rq[1];
        struct mrc_ctl_ep_rsp rs[1];
        union ibv_gid g;
        int nr = -1;
        memset(rq, 0, sizeof rq);
        ibv_query_gid(b.v, 1, 0, &g);
        rq[0].req_id = 7;
        rq[0].dgid = g;
        ibv_query_gid(a.v, 1, 0, &rq[0].sgid);
        rq[0].ev_fmt_mode = MRC_CTL_EV_FMT_MODE_UDP;
        rq[0].req_ev.val[0] = 0xC3;
        rq[0].req_ev.val[1] = 0x50;
        rq[0].req_ev.port = 1;
        rc = mrc_ctl_ep_batch_send_wait(a.m, 0, MRC_CTL_EP_OP_EV_PROBE, rq, 1, 200000000u, rs, &nr);
        CHECK("EV probe answered with an RTT", rc == 0 && nr == 1 && rs[0].req_id == 7 && rs[0].rtt > 0 &&
                                                   rs[0].port == 1, "rc %d errno %d n %d", rc, errno, nr);
        rq[0].req_id = 8;
        rq[0].dgid.raw[15] = 3;
        rc = mrc_ctl_ep_batch_send_wait(a.m, 0, MRC_CTL_EP_OP_EV_PROBE, rq, 1, 20000000u, rs, &nr);
        CHECK("EV probe to nobody: ETIMEDOUT", rc == -1 && errno == ETIMEDOUT && nr == 0, "rc %d errno %d n %d", rc,
              errno, nr);
        /* a PORT_STATUS_UPDATE (it confines the receiver's QPs to the planes it names) is taken only from a peer
         * with a connected QP there (P19), while EV probes are answered to anyone (above) */
        rq[0].req_id = 9;
        rq[0].dgid = g;
        rq[0].op.port_status_update.port_status = 0xF;
        rc = mrc_ctl_ep_batch_send_wait(a.m, 0, MRC_CTL_EP_OP_PORT_STATUS_UPDATE, rq, 1, 50000000u, rs, &nr);
        CHECK("PORT_STATUS_UPDATE to a device with no QP connected to us: refused (ETIMEDOUT)",
              rc == -1 && errno == ETIMEDOUT && nr == 0, "rc %d errno %d n %d", rc, errno, nr);
        {
            struct wire wa, wb;
            pair_connect(&a, &wa, &b, &wb, 0, 0);
        }
        rq[0].req_id = 10;
        rc = mrc_ctl_ep_batch_send_wait(a.m, 0, MRC_CTL_EP_OP_PORT_STATUS_UPDATE, rq, 1, 2000000000u, rs, &nr);
        CHECK("PORT_STATUS_UPDATE once a QP pair is connected: answered", rc == 0 && nr == 1 && rs[0].req_id == 10,
              "rc %d errno %d n %d", rc, errno, nr);
    }
    side_close(&a);
    side_close(&b);
}

/* CC profile id of ctx: NSCC with the configuration nc, OFFLINE then ONLINE */
static void cc_profile_set(struct mrc_context *ctx, uint64_t id, const struct mrc_ctl_cc_nscc_cfg *nc) {
    struct mrc_ctl_cc_profile_attr cc;
    memset(&cc, 0, sizeof cc);
    cc.profile_state = MRC_CTL_PROFILE_OFFLINE;
    cc.algorithm = "uet-1.0-nscc";
    cc.cc_config = nc;
    if (mrc_ctl_modify_cc_profile(ctx, id, &cc, MRC_CTL_CC_PROFILE_STATE | MRC_CTL_CC_PROFILE_ALGORITHM))
        DIE("cc offline");
    cc.profile_state = MRC_CTL_PROFILE_ONLINE;
    if (mrc_ctl_modify_cc_profile(ctx, id, &cc, MRC_CTL_CC_PROFILE_STATE | MRC_CTL_CC_PROFILE_CONFIG))
        DIE("cc online");
}

/* ---- one plane black-holed mid-run (devices with 4 or 8 planes; the carrier's test hooks MRC_OCP_LINK and
 * MRC_OCP_BLACKHOLE) -------------------------------------------------------------------------------------------- */

/* Nanoseconds lib_mrc's progress threads (named "mrc-progress") have spent runnable but waiting for a CPU: the
 * second field of /proc/self/task/TID/schedstat, summed; *nthr gets how many there are (0 where the kernel does not
 * say). This program's own spinning thread is not counted: it is not what moves the data. */
static uint64_t cpu_wait_ns(unsigned *nthr) {
    DIR *dir = opendir("/proc/self/task");
    struct dirent *e;
    uint64_t sum = 0;
    *nthr = 0;
    if (!dir) return 0;
    while ((e = readdir(dir)) != NULL) {
        char path[300], comm[32] = "";
        unsigned long long run, wait;
        FILE *f;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        f = fopen(path, "r");
        if (!f) continue;
        if (!fgets(comm, sizeof comm, f)) comm[0] = 0;
        fclose(f);
        if (strncmp(comm, "mrc-progress", 12) != 0) continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        f = fopen(path, "r");
        if (!f) continue;
        if (fscanf(f, "%llu %llu", &run, &wait) == 2) {
            sum += wait;
            ++*nthr;
        }
        fclose(f);
    }
    closedir(dir);
    return sum;
}

/* The black-hole goodput verdict: perf_fo_verdict (mrc_perf's: INCONCLUSIVE when the goodput before the fault was
 * not the links' - above 105% retained after it, or under 80% of the link model: a CPU-bound run); a DEGRADED is
 * INCONCLUSIVE too when lib_mrc's progress threads waited for a CPU more after the fault than before it (by more than
 * a tenth of the window: the host got busier, and it, not the protocol, may have taken the goodput). wait_before,
 * wait_after: the share of each window the progress threads spent runnable but not running. */
static int bh_verdict(double before, double after, double link_gbps, unsigned planes, double wait_before,
                      double wait_after, char *why, size_t n) {
    int v = perf_fo_verdict(before, after, link_gbps, planes, why, n);
    if (v == PERF_FO_DEGRADED && wait_after > wait_before + 0.10) {
        size_t l = strlen(why);
        snprintf(why + l, n - l, ", but the progress threads waited for a CPU %.0f%% of the time after the fault, "
                                 "%.0f%% before (the host got busier: CPU-bound)", 100 * wait_after, 100 * wait_before);
        v = PERF_FO_INCONCLUSIVE;
    }
    return v;
}

/* the median of bins[lo, hi) (bytes per 100 ms), in Gb/s; *dips: bins below 3/4 of it */
static double bins_median_gbps(const uint64_t *bins, unsigned lo, unsigned hi, unsigned *dips) {
    uint64_t s[64];
    unsigned n = 0, i, j;
    double med;
    for (i = lo; i < hi && n < 64; i++) s[n++] = bins[i];
    for (i = 1; i < n; i++) /* insertion sort: at most 64 */
        for (j = i; j > 0 && s[j - 1] > s[j]; j--) {
            uint64_t x = s[j];
            s[j] = s[j - 1];
            s[j - 1] = x;
        }
    if (!n) return 0;
    med = n % 2 ? (double)s[n / 2] : ((double)s[n / 2 - 1] + (double)s[n / 2]) / 2;
    for (*dips = 0, i = 0; i < n; i++) *dips += (double)s[i] < 0.75 * med;
    return med * 8 / 1e8;
}

static void t_blackhole(void) {
    struct side a, b;
    struct wire wa, wb;
    struct ibv_wc wc[32];
    const uint32_t sz = 65536, slots = 64;
    /* ms: the before window [B0, FAULT), the fault, the after window [A0, END) (after the EVs were marked bad), each
     * cut in 100 ms bins. The verdict compares the sustained goodput of the two windows, the median of their bins: a
     * failover keeps 7/8 of the goodput for good, and a dip of 100-300 ms (a burst of spurious retransmissions on
     * these links, whose queues differ by milliseconds, before or after the fault alike; docs/EVALUATION.md
     * #ci-blackhole) is another matter, counted and printed beside it. On the windows' means one dip decided the
     * verdict (CI: 71% and 81.7% retained). */
    const uint64_t B0 = 300, FAULT = 2000, A0 = 2300, END = 4300, MS = 1000000ull;
    const unsigned rate = 40, depth = 32; /* Mb/s per plane: far below what this library moves on one loaded core */
    uint64_t t0, bytes_before = 0, bytes_after = 0, posted = 0, done = 0, t, w_b0 = 0, w_f = 0, w_a0 = 0, w_end = 0;
    int bad = 0, n, k, planes, bad_bh = 0, bad_other = 0, v;
    unsigned nthr = 0, i;
    uint64_t bins[43] = { 0 }; /* bytes completed per 100 ms: the timeline printed with the verdict */
    struct mrc_comp_channel *ch = NULL;
    struct ibv_device_attr da;
    struct mrc_cq *evcq;
    struct mrc_ctl_ev_event ev[64];
    char link[32], hole[32], why[300];
    {   /* plane 2 of mrcudp0 goes silent at FAULT; every plane of both devices is a link of `rate` Mb/s */
        struct ibv_device **l = ibv_get_device_list(&n);
        struct ibv_context *c = l && n > 0 ? ibv_open_device(l[0]) : NULL;
        planes = c && ibv_query_device(c, &da) == 0 ? da.phys_port_cnt : 0;
        if (c) ibv_close_device(c);
        if (l) ibv_free_device_list(l);
    }
    /* the verdict itself, on figures: 8 planes of 40 Mb/s */
    CHECK("blackhole verdict: 7/8 kept is OK", bh_verdict(0.31, 0.27, 0.32, 8, 0.5, 0.5, why, sizeof why) == PERF_FO_OK,
          "%s", why);
    CHECK("blackhole verdict: 1/2 kept with the host as busy as before is DEGRADED",
          bh_verdict(0.31, 0.155, 0.32, 8, 0.5, 0.55, why, sizeof why) == PERF_FO_DEGRADED, "%s", why);
    CHECK("blackhole verdict: 1/2 kept with the host busier after is INCONCLUSIVE",
          bh_verdict(0.31, 0.155, 0.32, 8, 0.1, 0.5, why, sizeof why) == PERF_FO_INCONCLUSIVE && strstr(why, "busier"),
          "%s", why);
    CHECK("blackhole verdict: links not filled before is INCONCLUSIVE",
          bh_verdict(0.2, 0.1, 0.32, 8, 0, 0, why, sizeof why) == PERF_FO_INCONCLUSIVE && strstr(why, "CPU"), "%s", why);
    if (planes < 4) {
        printf("skip blackhole: the devices have %d plane(s); run with MRC_SOFT_DEVICES=...:port/8\n", planes);
        return;
    }
    snprintf(link, sizeof link, "%u/64", rate); /* 64 KiB queues: 13 ms at 40 Mb/s */
    snprintf(hole, sizeof hole, "2@%llu", (unsigned long long)FAULT);
    setenv("MRC_OCP_LINK", link, 1);
    setenv("MRC_OCP_BLACKHOLE", hole, 1);
    side_open2(&a, "mrcudp0", (size_t)sz * slots, 1024, 256, &ch);
    t0 = now_ns(); /* the black hole's clock started as mrcudp0 opened */
    unsetenv("MRC_OCP_BLACKHOLE");
    side_open(&b, "mrcudp1", (size_t)sz * slots, 1024, 256);
    unsetenv("MRC_OCP_LINK");
    evcq = mrc_ctl_create_ev_event_cq(a.m, 4096, NULL, NULL, 0);
    if (!evcq) DIE("mrc_ctl_create_ev_event_cq");
    {   /* NSCC for this network: its RTT is the links' serialization and queue (ms), not a data centre's (us) */
        struct mrc_ctl_cc_nscc_cfg nc;
        memset(&nc, 0, sizeof nc);
        nc.base_rtt = 1000000;
        nc.target_delay = 5000000;
        nc.max_cwnd = 256u << 10;
        cc_profile_set(a.m, 5, &nc);
    }
    pair_connect(&a, &wa, &b, &wb, 0, 5);
    fill(a.buf, (size_t)sz * slots, 4242);
    /* 64 KiB writes, each slot of the buffer to the same slot at the peer, 32 outstanding, until END */
    while ((t = now_ns() - t0) < END * MS || done < posted) {
        while (t < END * MS && posted - done < depth) {
            if (post_write(&a, (posted % slots) * sz, sz, &wb, (posted % slots) * sz, 1, posted, 1, 0, 0, 0))
                DIE("post");
            posted++;
        }
        n = mrc_poll_cq(a.scq, 32, wc);
        if (n == 0 && posted - done >= depth) { /* sleep on the completion channel: leave the CPUs to the library */
            struct mrc_cq *ecq;
            void *ectx;
            if (mrc_req_notify_cq(a.scq, 0)) DIE("req_notify_cq");
            n = mrc_poll_cq(a.scq, 32, wc); /* what came before the arm raises no event */
            if (n == 0) {
                if (mrc_get_cq_event(ch, &ecq, &ectx)) DIE("get_cq_event");
                mrc_ack_cq_events(ecq, 1);
                n = mrc_poll_cq(a.scq, 32, wc);
            }
        }
        t = now_ns() - t0;
        if (t >= B0 * MS && !w_b0) w_b0 = cpu_wait_ns(&nthr);
        if (t >= FAULT * MS && !w_f) w_f = cpu_wait_ns(&nthr);
        if (t >= A0 * MS && !w_a0) w_a0 = cpu_wait_ns(&nthr);
        if (t >= END * MS && !w_end) w_end = cpu_wait_ns(&nthr);
        for (k = 0; k < n; k++) {
            if (wc[k].status != IBV_WC_SUCCESS) bad = 1;
            done++;
            if (t / (100 * MS) < sizeof bins / sizeof bins[0]) bins[t / (100 * MS)] += sz;
            if (t >= B0 * MS && t < FAULT * MS) bytes_before += sz;
            else if (t >= A0 * MS && t < END * MS) bytes_after += sz;
        }
        if (bad || t > 60000ull * MS) break;
    }
    CHECK("blackhole: every write completes", !bad && done == posted, "bad %d done %llu of %llu", bad,
          (unsigned long long)done, (unsigned long long)posted);
    CHECK("blackhole: data exact at the peer", !bad && memcmp(a.buf, b.buf, (size_t)sz * slots) == 0, "mismatch");
    {
        unsigned dips_b = 0, dips_a = 0;
        double mean_b = (double)bytes_before * 8 / (double)((FAULT - B0) * MS), /* Gb/s */
            mean_a = (double)bytes_after * 8 / (double)((END - A0) * MS), linkg = planes * rate / 1000.0,
               before = bins_median_gbps(bins, (unsigned)(B0 / 100), (unsigned)(FAULT / 100), &dips_b),
               after = bins_median_gbps(bins, (unsigned)(A0 / 100), (unsigned)(END / 100), &dips_a),
               wb = w_f > w_b0 && nthr ? (double)(w_f - w_b0) / (double)((FAULT - B0) * MS) / nthr : 0,
               wa = w_end > w_a0 && nthr ? (double)(w_end - w_a0) / (double)((END - A0) * MS) / nthr : 0;
        v = bh_verdict(before, after, linkg, (unsigned)planes, wb, wa, why, sizeof why);
        printf("   goodput (median of 100 ms bins) %.1f Mb/s before, %.1f Mb/s with plane 2 of %d black-holed (links %d "
               "x %u Mb/s; means %.1f and %.1f; bins below 3/4 of the median: %u of %u before, %u of %u after; progress "
               "threads waiting for a CPU %.0f%% of the time before, %.0f%% after): %s: %s\n", before * 1000,
               after * 1000, planes, planes, rate, mean_b * 1000, mean_a * 1000, dips_b,
               (unsigned)((FAULT - B0) / 100), dips_a, (unsigned)((END - A0) / 100), 100 * wb, 100 * wa,
               perf_fo_name(v), why);
        printf("   goodput per 100 ms (Mb/s, the fault at %llu ms):", (unsigned long long)FAULT);
        for (i = 0; i < sizeof bins / sizeof bins[0]; i++) printf(" %.0f", (double)bins[i] * 8 / 1e5);
        printf("\n");
        CHECK("blackhole: goodput continues", after > 0, "no goodput after the black hole");
        if (v == PERF_FO_INCONCLUSIVE)
            printf("skip blackhole: goodput keeps (planes-1)/planes: INCONCLUSIVE: %s\n", why);
        else
            CHECK("blackhole: goodput keeps (planes-1)/planes of what it was", v == PERF_FO_OK, "%s", why);
    }
    while ((n = mrc_ctl_poll_ev_event(evcq, 64, ev)) > 0)
        for (k = 0; k < n; k++)
#if MRC_CTL_API_VER_USED >= MRC_CTL_API_VER(1, 0, 1)
            if (ev[k].state == MRC_CTL_EV_ASSUMED_BAD) {
#else
            { /* a 1.0.0 program cannot tell the state: counted all */
#endif
                if (ev[k].ev.port == 2) bad_bh++;
                else bad_other++;
            }
    printf("   EV events: %d ASSUMED_BAD on plane 2, %d on the others\n", bad_bh, bad_other);
    CHECK("blackhole: ASSUMED_BAD EV events name the black-holed plane", bad_bh > 0, "none on plane 2");
    if (mrc_destroy_cq(evcq)) DIE("destroy ev cq");
    side_close(&a);
    side_close(&b);
}

/* ---- a CC profile's window cap lowers goodput --------------------------------------------------------------- */

/* 64 KiB writes, up to depth outstanding, for ns nanoseconds, then until all completed; returns how many */
static uint64_t stream_for(struct side *a, const struct wire *wb, uint64_t ns, unsigned depth) {
    struct ibv_wc wc[32];
    uint64_t t0 = now_ns(), posted = 0, done = 0;
    int n, k;
    while (now_ns() - t0 < ns || done < posted) {
        while (now_ns() - t0 < ns && posted - done < depth) {
            if (post_write(a, 0, 65536, wb, 0, 1, posted, 1, 0, 0, 0)) DIE("post");
            posted++;
        }
        n = wait_wc(a->scq, wc);
        for (k = 0; k < n; k++, done++)
            if (wc[k].status != IBV_WC_SUCCESS) DIE("stream_for: %s", ibv_wc_status_str(wc[k].status));
        if (n <= 0) DIE("stream_for: no completion");
    }
    return done;
}

/* One stream of 300 ms; returns its goodput (bytes/s, printed, not checked: a time) and in *cc the sender's
 * MRC_OCP_CCLOG line: the most bytes in flight and the largest window of its congestion context, sampled after
 * every transmit burst, and how many bursts were sampled */
struct cclog { unsigned long long max_inflight, max_cwnd, bursts; };
static double stream(uint64_t cc_profile, uint32_t max_cwnd, struct cclog *cc) {
    struct side a, b;
    struct wire wa, wb;
    const uint32_t sz = 65536;
    uint64_t t0, done, t;
    char path[64];
    FILE *fp;
    snprintf(path, sizeof path, "/tmp/ocp_test_cclog.%d", (int)getpid());
    setenv("MRC_OCP_CCLOG", path, 1);
    side_open(&a, "mrcudp0", sz, 1024, 256);
    unsetenv("MRC_OCP_CCLOG");
    side_open(&b, "mrcudp1", sz, 1024, 256);
    if (cc_profile) {
        struct mrc_ctl_cc_nscc_cfg nc;
        memset(&nc, 0, sizeof nc);
        nc.max_cwnd = max_cwnd;
        cc_profile_set(a.m, cc_profile, &nc);
    }
    pair_connect(&a, &wa, &b, &wb, 0, cc_profile);
    t0 = now_ns();
    done = stream_for(&a, &wb, 300000000ull, 32);
    t = now_ns() - t0;
    side_close(&a);
    side_close(&b);
    memset(cc, 0, sizeof *cc);
    fp = fopen(path, "r");
    if (!fp || fscanf(fp, "%llu %llu %llu", &cc->max_inflight, &cc->max_cwnd, &cc->bursts) != 3)
        DIE("stream: no MRC_OCP_CCLOG line in %s", path);
    fclose(fp);
    unlink(path);
    return (double)done * sz / ((double)t / 1e9);
}

/* The window cap is checked as a count: with the 8 KiB cap the sender's bytes in flight never pass the cap plus one
 * packet (a packet is sent while the window is open), nor does its window pass the cap; without it both go past it.
 * The goodputs are printed, not checked: on a shared host the open stream is CPU-bound (250-610 MB/s on 2 cores) and
 * the capped one window-bound (75-240), their ratio 0.41-0.63 (November 29) - a timing check failed twice at 1/2 */
static void t_cc(void) {
    struct cclog o, c;
    const unsigned long long cap = 8192, pkt = 4096 + 128; /* a full packet's payload and headers, nominal */
    double open_ = stream(0, 0, &o), capped = stream(3, 8192, &c);
    printf("   default CC profile: %.1f MB/s, at most %llu bytes in flight, window at most %llu (%llu bursts); "
           "max_cwnd 8 KiB: %.1f MB/s, at most %llu in flight, window at most %llu (%llu bursts) - goodputs not "
           "checked (timing)\n", open_ / 1e6, o.max_inflight, o.max_cwnd, o.bursts, capped / 1e6, c.max_inflight,
           c.max_cwnd, c.bursts);
    CHECK("cc profile's max_cwnd bounds the window", c.bursts > 0 && c.max_cwnd <= cap, "window %llu > %llu (%llu "
          "bursts)", c.max_cwnd, cap, c.bursts);
    CHECK("cc profile's max_cwnd bounds the bytes in flight", c.max_inflight > 0 && c.max_inflight <= cap + pkt,
          "%llu in flight, cap %llu", c.max_inflight, cap);
    CHECK("the default profile's window goes past 8 KiB", o.max_inflight > cap + pkt && o.max_cwnd > cap,
          "%llu in flight, window %llu", o.max_inflight, o.max_cwnd);
}

/* ---- an EXP EV profile decides the EVs on the wire; DENIED EVs carry nothing after ---------------------------- */

static void t_evwire(void) {
    struct side a, b;
    struct wire wa, wb;
    struct mrc_ctl_ev_fmt_profile_attr f;
    struct mrc_ctl_ev_fmt_field ff = { 16 };
    struct mrc_ctl_ev_profile_attr p;
    struct mrc_ctl_ev_field fld;
    struct mrc_ctl_ev_op_entry e[8];
    struct ibv_device_attr da;
    char path[64];
    FILE *fp;
    unsigned port, ev, sport, planes, i, seen = 0, foreign = 0, denied_late = 0, others_after = 0, not_sport = 0;
    unsigned long long pkts, last, t_deny;
    int rc;
    snprintf(path, sizeof path, "/tmp/ocp_test_evlog.%d", (int)getpid());
    side_open(&a, "mrcudp0", 65536, 1024, 64);
    setenv("MRC_OCP_EVLOG", path, 1); /* the receiving device records the EVs of the data packets it gets */
    side_open(&b, "mrcudp1", 65536, 1024, 64);
    unsetenv("MRC_OCP_EVLOG");
    planes = ibv_query_device(a.v, &da) == 0 && da.phys_port_cnt ? da.phys_port_cnt : 1;
    memset(&f, 0, sizeof f);
    f.profile_state = MRC_CTL_PROFILE_OFFLINE;
    f.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_UDP;
    rc = mrc_ctl_modify_ev_fmt_profile(a.m, 7, &f, MRC_CTL_EV_FMT_PROFILE_STATE | MRC_CTL_EV_FMT_PROFILE_MODE);
    f.profile_state = MRC_CTL_PROFILE_ONLINE;
    f.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_MODIFY_FIELDS;
    f.ev_fmt_op.fmt_fields = &ff;
    f.ev_fmt_op.fmt_field_count = 1;
    rc |= mrc_ctl_modify_ev_fmt_profile(a.m, 7, &f, MRC_CTL_EV_FMT_PROFILE_STATE | MRC_CTL_EV_FMT_PROFILE_OP);
    memset(&p, 0, sizeof p);
    memset(&fld, 0, sizeof fld);
    fld.width = 16;
    fld.mask = 0xFFFF;
    p.profile_state = MRC_CTL_PROFILE_OFFLINE;
    p.ev_mode = MRC_CTL_EV_MODE_EXP;
    p.ev_fmt_profile_id = 7;
    p.ev_count = 8;
    p.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS;
    p.ev_fields_op.fields = &fld;
    p.ev_fields_op.field_count = 1;
    rc |= mrc_ctl_modify_ev_profile(a.m, 7, &p, MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_MODE |
                                                   MRC_CTL_EV_PROFILE_FMT_ID | MRC_CTL_EV_PROFILE_COUNT |
                                                   MRC_CTL_EV_PROFILE_EV_FIELDS_OP);
    memset(e, 0, sizeof e);
    for (i = 0; i < 8; i++) {
        e[i].ev_new.val[0] = (uint8_t)((50000 + i) >> 8);
        e[i].ev_new.val[1] = (uint8_t)(50000 + i);
        e[i].ev_new.port = (uint8_t)(i % planes + 1);
        e[i].state = MRC_CTL_EV_GOOD;
    }
    memset(&p, 0, sizeof p);
    p.profile_state = MRC_CTL_PROFILE_ONLINE;
    p.ev_min_active = 1;
    p.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
    p.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
    p.ev_op.entries = e;
    p.ev_op.entry_count = 8;
    rc |= mrc_ctl_modify_ev_profile(a.m, 7, &p, MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_MIN_ACTIVE |
                                                   MRC_CTL_EV_PROFILE_EVENT_MASK | MRC_CTL_EV_PROFILE_EV_OP);
    CHECK("evwire: EXP profile of 8 source ports ONLINE in one call", rc == 0, "errno %d", errno);
    pair_connect(&a, &wa, &b, &wb, 7, 0);
    stream_for(&a, &wb, 150000000ull, 16);
    /* deny the first two EVs */
    for (i = 0; i < 2; i++) {
        e[i].ev = e[i].ev_new;
        e[i].state = MRC_CTL_EV_DENIED;
        e[i].flags = MRC_CTL_EV_OP_F_ALL_COPIES;
    }
    memset(&p, 0, sizeof p);
    p.ev_op.op = MRC_CTL_EV_OP_MODIFY_EV_STATE;
    p.ev_op.entries = e;
    p.ev_op.entry_count = 2;
    rc = mrc_ctl_modify_ev_profile(a.m, 7, &p, MRC_CTL_EV_PROFILE_EV_OP);
    t_deny = now_ns();
    CHECK("evwire: two EVs DENIED", rc == 0, "errno %d", errno);
    memset(&p, 0, sizeof p);
    p.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_STATE;
    p.ev_op.entries = e;
    p.ev_op.entry_count = 1;
    rc = mrc_ctl_query_ev_profile(a.m, 7, &p, MRC_CTL_EV_PROFILE_EV_OP);
    CHECK("evwire: QUERY_EV_STATE says DENIED", rc == 0 && e[0].state == MRC_CTL_EV_DENIED, "state 0x%x", e[0].state);
    stream_for(&a, &wb, 150000000ull, 16);
    side_close(&a);
    side_close(&b); /* writes the log */
    fp = fopen(path, "r");
    if (!fp) DIE("no EV log %s", path);
    while (fscanf(fp, "%u %u %u %llu %llu", &port, &ev, &sport, &pkts, &last) == 5) {
        int idx = (int)ev - 50000;
        seen++;
        if (sport != ev) not_sport++; /* the EV is the datagram's own UDP source port */
        if (idx < 0 || idx > 7 || port != (unsigned)idx % planes + 1) {
            foreign++;
            continue;
        }
        /* a denied EV: nothing sent on it after the deny (2 ms for what was already in flight) */
        if (idx < 2 && last > t_deny + 2000000ull) denied_late++;
        if (idx >= 2 && last > t_deny) others_after++;
    }
    fclose(fp);
    unlink(path);
    printf("   EVs seen by the receiver: %u, foreign %u, not the UDP source port %u; denied seen late %u; others after "
           "the deny %u\n", seen, foreign, not_sport, denied_late, others_after);
    CHECK("evwire: each EV is the datagram's UDP source port", not_sport == 0, "%u are not", not_sport);
    CHECK("evwire: only the profile's (port, source port) pairs carry data", seen >= 4 && foreign == 0,
          "seen %u foreign %u", seen, foreign);
    CHECK("evwire: DENIED EVs carry nothing afterwards", denied_late == 0, "%u denied EVs still used", denied_late);
    CHECK("evwire: the other EVs carry on", others_after >= 2, "%u", others_after);
}

/* ---- a program built for API 1.0.0: 48-byte EV events (no state), written as such by the library ------------- */

static void t_v100(void) {
#if MRC_CTL_API_VER_USED < MRC_CTL_API_VER(1, 0, 1)
    struct side a, b;
    struct wire wa, wb;
    struct mrc_cq *evcq;
    struct mrc_ctl_ev_event ev[65];
    int n, k, on2 = 0, sane = 1;
    unsigned char *tail = (unsigned char *)&ev[64];
    CHECK("1.0.0: struct mrc_ctl_ev_event is 48 bytes", sizeof(struct mrc_ctl_ev_event) == 48, "%zu",
          sizeof(struct mrc_ctl_ev_event));
    setenv("MRC_OCP_BLACKHOLE", "2@0", 1);
    side_open(&a, "mrcudp0", 65536, 1024, 64);
    unsetenv("MRC_OCP_BLACKHOLE");
    side_open(&b, "mrcudp1", 65536, 1024, 64);
    evcq = mrc_ctl_create_ev_event_cq(a.m, 4096, NULL, NULL, 0);
    if (!evcq) DIE("ev cq");
    pair_connect(&a, &wa, &b, &wb, 0, 0);
    stream_for(&a, &wb, 300000000ull, 16);
    memset(ev, 0xEE, sizeof ev);
    n = mrc_ctl_poll_ev_event(evcq, 64, ev);
    for (k = 0; k < n; k++) {
        if (ev[k].profile_id != 0 || ev[k].ev.port < 1 || ev[k].ev.port > 4 || ev[k].drop_count > 1000) sane = 0;
        if (ev[k].ev.port == 2) on2++;
    }
    if (n < 64) tail = (unsigned char *)&ev[n];
    CHECK("1.0.0: EV events in 48-byte records", n > 0 && sane && on2 > 0 && tail[0] == 0xEE && tail[47] == 0xEE,
          "n %d sane %d on plane 2 %d", n, sane, on2);
    mrc_destroy_cq(evcq);
    side_close(&a);
    side_close(&b);
#endif
}

/* ---- bw over two RDMA devices, with the real libibverbs (ocp_test built as ocp-nic/ocp_test) ------------------ */

static void t_nic(void) {
    int n = 0, i;
    struct ibv_device **l = ibv_get_device_list(&n);
    static char d0[64], d1[64];
    const char *want = getenv("OCP_NIC_DEVS"); /* "dev0,dev1"; default: the first two devices */
    if (!l || n < 1) {
        printf("skip - nic: no RDMA device (ibv_get_device_list found none: %s)\n", strerror(errno));
        if (l) ibv_free_device_list(l);
        return;
    }
    if (dlsym(RTLD_DEFAULT, "mrc_softverbs_mr_lookup")) {
        printf("skip - nic: this program loaded the soft libibverbs, not the real one\n");
        ibv_free_device_list(l);
        return;
    }
    if (want && sscanf(want, "%63[^,],%63s", d0, d1) == 2) {
    } else if (n >= 2) {
        snprintf(d0, sizeof d0, "%s", ibv_get_device_name(l[0]));
        snprintf(d1, sizeof d1, "%s", ibv_get_device_name(l[1]));
    } else {
        printf("skip - nic: bw needs two RDMA devices (found %d:", n);
        for (i = 0; i < n; i++) printf(" %s", ibv_get_device_name(l[i]));
        printf("); set OCP_NIC_DEVS=dev0,dev1\n");
        ibv_free_device_list(l);
        return;
    }
    ibv_free_device_list(l);
    printf("-- nic: bw between %s and %s over raw packet QPs (ports/ibverbs)\n", d0, d1);
    g_dev0 = d0;
    g_dev1 = d1;
    t_bw();
    g_dev0 = "mrcudp0";
    g_dev1 = "mrcudp1";
}

int main(int argc, char **argv) {
    int i, all = argc < 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = all ? 0 : 1; i < (all ? 1 : argc); i++) {
        const char *t = all ? "all" : argv[i];
        if (all || !strcmp(t, "layout")) t_layout();
        if (all || !strcmp(t, "errors")) t_errors();
        if (all || !strcmp(t, "stall")) t_stall();
        if (all || !strcmp(t, "ctl")) t_ctl();
        if (all || !strcmp(t, "bw")) t_bw();
        if (!strcmp(t, "blackhole")) t_blackhole(); /* on devices of 8 planes: make ocp-test runs it apart */
        if (all || !strcmp(t, "cc")) t_cc();
        if (all || !strcmp(t, "evwire")) t_evwire();
        if (!strcmp(t, "v100")) t_v100();
        if (!strcmp(t, "nic")) t_nic(); /* not part of "all": built against the real libibverbs */
        if (all || !strcmp(t, "inline")) { /* no progress thread: each process drives its one device in its calls */
            printf("-- inline mode (MRC_OCP_INLINE=1): bw\n");
            setenv("MRC_OCP_INLINE", "1", 1);
            t_bw();
            unsetenv("MRC_OCP_INLINE");
        }
    }
    printf("%u passed, %u failed\n", n_pass, n_fail);
    return n_fail != 0;
}
