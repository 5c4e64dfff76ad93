/* lib_mrc.c - OCP's MRC application and controller API (ocp/include/mrc.h, mrc_ctl.h) over the open MRC core.
 *
 * Owns: the OCP objects (contexts, completion channels, CQs, QP hints, QPs, EV event CQs), the translation of
 * verbs and MRC attributes with defaults for everything an application leaves out, send-queue slots (signaled
 * and unsignaled writes, gathered SGEs and inline data), completion rings, async events. Everything that touches
 * the core lives behind bridge.h (core_bridge.c), on the device's progress thread.
 *
 * CQ rings: the progress thread produces, mrc_poll_cq consumes; no lock on either side.
 */
#define _GNU_SOURCE
#include "lib_mrc_int.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* ---- completions (progress thread) ---------------------------------------------------------------------- */

static void lm_async(struct mrc_context *ctx, enum ibv_event_type t, void *elem) {
    pthread_mutex_lock(&ctx->lock);
    if (ctx->async_n < LM_ASYNC) {
        struct mrc_async_event *e = &ctx->async[(ctx->async_head + ctx->async_n) % LM_ASYNC];
        memset(e, 0, sizeof *e);
        e->event_type = t;
        if (t == IBV_EVENT_CQ_ERR) e->element.cq = elem;
        else e->element.qp = elem;
        ctx->async_n++;
        pthread_cond_broadcast(&ctx->cond);
    }
    pthread_mutex_unlock(&ctx->lock);
}

void lm_cq_signal(struct mrc_cq *cq) {
    struct mrc_comp_channel *ch = cq->ch;
    uint64_t one = 1;
    int queued = 0;
    if (!ch || !atomic_exchange(&cq->armed, 0)) return;
    pthread_mutex_lock(&ch->lock);
    if (ch->n < LM_CH_FIFO) { /* a CQ is queued at most once per arming: the FIFO fills only past LM_CH_FIFO CQs */
        ch->fifo[(ch->head + ch->n) % LM_CH_FIFO] = cq;
        ch->n++;
        queued = 1;
    }
    pthread_mutex_unlock(&ch->lock);
    if (queued && write(ch->fd, &one, sizeof one) < 0) { /* the semaphore eventfd cannot fill in practice */
    }
}

static void lm_cq_push(struct mrc_cq *cq, const struct ibv_wc *wc) {
    unsigned h = atomic_load_explicit(&cq->head, memory_order_relaxed);
    if (h - atomic_load_explicit(&cq->tail, memory_order_acquire) >= cq->cap) {
        if (!atomic_exchange(&cq->overflowed, 1)) lm_async(cq->ctx, IBV_EVENT_CQ_ERR, cq);
        return;
    }
    cq->wc[h & (cq->cap - 1)] = *wc;
    atomic_store_explicit(&cq->head, h + 1, memory_order_release);
    lm_cq_signal(cq);
}

static enum ibv_wc_status lm_wc_status(int st) {
    switch (st) {
    case OB_ST_OK: return IBV_WC_SUCCESS;
    case OB_ST_RETRY_EXC: return IBV_WC_RETRY_EXC_ERR;
    case OB_ST_REM_ACCESS: return IBV_WC_REM_ACCESS_ERR;
    case OB_ST_REM_INV: return IBV_WC_REM_INV_REQ_ERR;
    case OB_ST_REM_OP: return IBV_WC_REM_OP_ERR;
    case OB_ST_FLUSH: return IBV_WC_WR_FLUSH_ERR;
    case OB_ST_LOC_ACCESS: return IBV_WC_LOC_PROT_ERR;
    case OB_ST_LOC_INV: return IBV_WC_LOC_QP_OP_ERR;
    default: return IBV_WC_GENERAL_ERR;
    }
}

static void lm_on_event(void *user, const ob_evt *e) {
    struct mrc_context *ctx = user;
    struct mrc_qp *qp = e->conn_user;
    struct ibv_wc wc;
    memset(&wc, 0, sizeof wc);
    switch (e->kind) {
    case OB_EVT_SEND_DONE: {
        struct lm_slot *s;
        if (!qp) return;
        s = &qp->slot[e->wr_id & (qp->nslots - 1)];
        if (s->signaled || e->status != OB_ST_OK) {
            wc.wr_id = s->wr_id;
            wc.status = lm_wc_status(e->status);
            wc.opcode = IBV_WC_RDMA_WRITE;
            wc.qp_num = qp->qpn;
            wc.byte_len = s->len;
            lm_cq_push(qp->init.send_cq, &wc);
        }
        free(s->copy);
        s->copy = NULL;
        atomic_fetch_add(&qp->completed, 1);
        break;
    }
    case OB_EVT_RECV_IMM:
        if (!qp) return;
        wc.wr_id = e->wr_id;
        wc.status = lm_wc_status(e->status);
        wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
        wc.qp_num = qp->qpn;
        wc.byte_len = e->byte_len;
        if (e->status == OB_ST_OK) {
            wc.wc_flags = IBV_WC_WITH_IMM;
            wc.imm_data = htonl(e->imm);
        }
        lm_cq_push(qp->init.recv_cq, &wc);
        atomic_fetch_add(&qp->recv_done, 1);
        break;
    case OB_EVT_CONN_ERROR:
        if (qp) lm_async(ctx, IBV_EVENT_QP_FATAL, qp);
        break;
    case OB_EVT_EV_STATE:
        lm_ev_event(ctx, e);
        break;
    case OB_EVT_EP_RSP:
    case OB_EVT_EP_TIMEOUT:
        pthread_mutex_lock(&ctx->lock);
        if (ctx->nrsp < LM_EP_RSP) {
            ctx->rsp[ctx->nrsp].req_id = e->req_id;
            ctx->rsp[ctx->nrsp].port = e->port;
            ctx->rsp[ctx->nrsp].rtt = e->rtt_ns;
            ctx->rsp[ctx->nrsp].adj = e->adj_svc_time;
            ctx->rsp[ctx->nrsp].timeout = e->kind == OB_EVT_EP_TIMEOUT;
            ctx->nrsp++;
        }
        pthread_cond_broadcast(&ctx->cond);
        pthread_mutex_unlock(&ctx->lock);
        break;
    default: break;
    }
}

/* ---- device and context --------------------------------------------------------------------------------- */

/* A soft device's GID 0 is ::PPPP:ffff:a.b.c.d (P: its UDP port). */
static int lm_soft_addr(struct ibv_context *v, uint32_t *ip, uint16_t *port, unsigned *planes) {
    union ibv_gid g;
    struct ibv_device_attr da;
    if (!v || ibv_query_gid(v, 1, 0, &g) != 0) return -1;
    if (g.raw[10] != 0xff || g.raw[11] != 0xff) return -1;
    memcpy(ip, &g.raw[12], 4);
    *port = (uint16_t)(g.raw[8] << 8 | g.raw[9]);
    if (*port == 0) *port = 4791;
    *planes = 1;
    if (ibv_query_device(v, &da) == 0 && da.phys_port_cnt >= 1) *planes = da.phys_port_cnt > 8 ? 8 : da.phys_port_cnt;
    return 0;
}

int lm_device_kind(int softverbs_loaded, int soft_gid) {
    if (softverbs_loaded) return soft_gid ? LM_DEV_SOFT : LM_DEV_NONE;
    return LM_DEV_NIC;
}

static int lm_softverbs_loaded(void) { return dlsym(RTLD_DEFAULT, "mrc_softverbs_mr_lookup") != NULL; }

/* planes of a NIC-mode context: MRC_OCP_IBV_PLANES (1..8, default 1), all on the device's port 1, told apart by the
 * UDP destination port (ports/ibverbs) */
static unsigned lm_nic_planes(void) {
    const char *e = getenv("MRC_OCP_IBV_PLANES");
    int n = e ? atoi(e) : 1;
    return n >= 1 && n <= 8 ? (unsigned)n : 1u;
}

/* The kind of the device, and for a soft one its address, UDP port and planes. An RDMA device is usable when its
 * port 1 is Ethernet (raw frames, RoCE). */
static int lm_device(struct ibv_context *v, uint32_t *ip, uint16_t *port, unsigned *planes) {
    int soft = lm_softverbs_loaded(), k = lm_device_kind(soft, soft && lm_soft_addr(v, ip, port, planes) == 0);
    if (k == LM_DEV_NIC) {
        struct ibv_port_attr pa;
        memset(&pa, 0, sizeof pa);
        if (ibv_query_port(v, 1, &pa) != 0 || pa.link_layer != IBV_LINK_LAYER_ETHERNET) return LM_DEV_NONE;
        *ip = 0;
        *port = 0;
        *planes = lm_nic_planes();
    }
    return k;
}

static int lm_dev_attr(struct ibv_context *context, struct mrc_device_attr *attr, int *supported) {
    uint32_t ip;
    uint16_t port;
    unsigned planes;
    if (!context || !attr || !supported) return lm_fail(EINVAL);
    memset(attr, 0, sizeof *attr);
    *supported = lm_device(context, &ip, &port, &planes) != LM_DEV_NONE;
    if (!*supported) return 0;
    attr->mrc_protocol_version = MRC_PROTOCOL_VERSION_1;
    attr->wimm_attr.max_wimm = LM_CORE_MAX_WIMM;
    attr->wimm_attr.max_wimm_dest = LM_CORE_MAX_WIMM;
    attr->mpr_attr.max_mpr = LM_CORE_MAX_MPR;
    attr->mpr_attr.mpr_resolution = 1;
    attr->qp_attr.max_qp_hint = 1024;
    attr->cap = MRC_DEVICE_CAP_TRIM_NACK | MRC_DEVICE_CAP_DYNAMIC_MPR;
    return 0;
}

int mrc_query_device(struct ibv_context *context, struct mrc_device_attr *attr, int *supported) {
    return lm_dev_attr(context, attr, supported);
}

int mrc_query_device_ex(struct ibv_context *context, struct mrc_context *mcontext, struct mrc_device_attr *attr,
                        int *supported) {
    (void)mcontext;
    return lm_dev_attr(context, attr, supported);
}

void mrc_query_version(uint32_t *current_version, uint32_t *last_supported_version, uint32_t *vendor_version,
                       uint32_t *last_supported_vendor_version) {
    if (current_version) *current_version = MRC_API_CURRENT_VERSION;
    if (last_supported_version) *last_supported_version = MRC_API_VER(1, 0, 0);
    if (vendor_version) *vendor_version = MRC_VENDOR_API_CURRENT_VERSION;
    if (last_supported_vendor_version) *last_supported_vendor_version = MRC_API_VER(1, 0, 0);
}

struct mrc_context *mrc_create_context(struct ibv_context *vcontext, struct mrc_context_attr *context_attr) {
    struct mrc_context *ctx;
    ob_cfg cfg;
    char err[160];
    const char *inl = getenv("MRC_OCP_INLINE"), *seed = getenv("MRC_OCP_SEED"), *mr = getenv("MRC_OCP_MR");
    int rc, kind;
    if (!vcontext) return lm_null(EINVAL);
    if (context_attr && context_attr->mrc_api_version_used > MRC_API_CURRENT_VERSION &&
        context_attr->mrc_api_version_used != MRC_API_VER_LATEST)
        return lm_null(EINVAL);
    ctx = calloc(1, sizeof *ctx);
    if (!ctx) return lm_null(ENOMEM);
    ctx->vctx = vcontext;
    ctx->api_ver = context_attr ? context_attr->mrc_api_version_used : 0;
    /* OCP's benchmark passes MRC_PROTOCOL_VERSION_1 (1) here: anything below 1.0.0 reads as "not said" */
    if (ctx->api_ver < MRC_API_VER(1, 0, 0) || ctx->api_ver == MRC_API_VER_LATEST) ctx->api_ver = MRC_API_CURRENT_VERSION;
    kind = lm_device(vcontext, &ctx->ip, &ctx->udp_port, &ctx->planes);
    if (kind == LM_DEV_NONE) {
        if (getenv("MRC_OCP_DEBUG"))
            fprintf(stderr, "lib_mrc: %s is neither a soft MRC device nor an RDMA device with an Ethernet port 1\n",
                    ibv_get_device_name(vcontext->device));
        free(ctx);
        return lm_null(EOPNOTSUPP); /* see ocp/README.md */
    }
    if (kind == LM_DEV_NIC && !lm_mr_interposed()) {
        if (getenv("MRC_OCP_DEBUG"))
            fprintf(stderr, "lib_mrc: the program's ibv_reg_mr is not lib_mrc's: link lib_mrc.so before libibverbs, "
                            "or lib_mrc cannot learn the regions peers write into\n");
        free(ctx);
        return lm_null(EOPNOTSUPP);
    }
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_cond_init(&ctx->cond, NULL);
    memset(&cfg, 0, sizeof cfg);
    if (kind == LM_DEV_NIC) {
        const char *extra = getenv("MRC_OCP_IBV");
        cfg.carrier = OB_CAR_IBV;
        snprintf(cfg.ibv_dev, sizeof cfg.ibv_dev, "%s", ibv_get_device_name(vcontext->device));
        snprintf(cfg.ibv_extra, sizeof cfg.ibv_extra, "%s", extra ? extra : "");
    }
    cfg.ip = ctx->ip;
    cfg.udp_port = ctx->udp_port;
    cfg.planes = ctx->planes;
    cfg.threaded = !(inl && *inl && strcmp(inl, "0") != 0);
    cfg.seed = seed && *seed ? strtoull(seed, NULL, 0)
                             : ((uint64_t)ctx->ip << 16 ^ ctx->udp_port ^ (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL));
    cfg.vctx = vcontext;
    if (kind == LM_DEV_NIC || (mr && !strcmp(mr, "lib"))) { /* the registrations lib_mrc records itself */
        cfg.mr_lookup = lm_mr_lookup;
        cfg.mr_generation = lm_mr_generation;
    } else { /* the soft libibverbs says */
        *(void **)&cfg.mr_lookup = dlsym(RTLD_DEFAULT, "mrc_softverbs_mr_lookup");
        *(void **)&cfg.mr_generation = dlsym(RTLD_DEFAULT, "mrc_softverbs_mr_generation");
    }
    cfg.on_event = lm_on_event;
    cfg.user = ctx;
    rc = ob_dev_open(&ctx->dev, &cfg, err, sizeof err);
    if (rc) {
        if (getenv("MRC_OCP_DEBUG")) fprintf(stderr, "lib_mrc: %s\n", err);
        pthread_mutex_destroy(&ctx->lock);
        pthread_cond_destroy(&ctx->cond);
        free(ctx);
        return lm_null(rc);
    }
    ob_dev_addr(ctx->dev, &ctx->ip, &ctx->udp_port); /* NIC: the RDMA port's address, the flow rules' UDP port */
    return ctx;
}

int mrc_destroy_context(struct mrc_context *ctx) {
    if (!ctx) return lm_fail(EINVAL);
    if (atomic_load(&ctx->objs) > 0) return lm_fail(EBUSY);
    ob_dev_close(ctx->dev);
    pthread_mutex_destroy(&ctx->lock);
    pthread_cond_destroy(&ctx->cond);
    free(ctx);
    return 0;
}

/* ---- completion channels -------------------------------------------------------------------------------- */

int mrc_create_comp_channel(struct mrc_context *ctx, struct mrc_comp_channel **channel) {
    struct mrc_comp_channel *ch;
    if (!ctx || !channel) return lm_fail(EINVAL);
    ch = calloc(1, sizeof *ch);
    if (!ch) return lm_fail(ENOMEM);
    ch->fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
    if (ch->fd < 0) {
        int e = errno;
        free(ch);
        return lm_fail(e);
    }
    ch->ctx = ctx;
    pthread_mutex_init(&ch->lock, NULL);
    atomic_fetch_add(&ctx->objs, 1);
    *channel = ch;
    return 0;
}

int mrc_get_comp_channel_fd(struct mrc_comp_channel *channel, int *fd) {
    if (!channel || !fd) return lm_fail(EINVAL);
    *fd = channel->fd;
    return 0;
}

int mrc_destroy_comp_channel(struct mrc_comp_channel *ch) {
    if (!ch) return lm_fail(EINVAL);
    if (atomic_load(&ch->refs) > 0) return lm_fail(EBUSY);
    atomic_fetch_sub(&ch->ctx->objs, 1);
    close(ch->fd);
    pthread_mutex_destroy(&ch->lock);
    free(ch);
    return 0;
}

/* ---- CQs ------------------------------------------------------------------------------------------------ */

struct mrc_cq *lm_cq_new(struct mrc_context *ctx, int cqe, void *cq_context, struct mrc_comp_channel *ch,
                                int is_ev) {
    struct mrc_cq *cq;
    unsigned cap = 1;
    if (!ctx || cqe < 1 || cqe > LM_MAX_CQE) return lm_null(EINVAL);
    if (ch && ch->ctx != ctx) return lm_null(EINVAL);
    while (cap < (unsigned)cqe) cap <<= 1;
    cq = calloc(1, sizeof *cq);
    if (!cq) return lm_null(ENOMEM);
    if (is_ev) cq->ev = calloc(cap, sizeof *cq->ev);
    else cq->wc = calloc(cap, sizeof *cq->wc);
    if (!cq->ev && !cq->wc) {
        free(cq);
        return lm_null(ENOMEM);
    }
    cq->ctx = ctx;
    cq->cq_context = cq_context;
    cq->ch = ch;
    cq->is_ev = is_ev;
    cq->cap = cap;
    atomic_flag_clear(&cq->poll_busy);
    if (ch) atomic_fetch_add(&ch->refs, 1);
    atomic_fetch_add(&ctx->objs, 1);
    return cq;
}

struct mrc_cq *mrc_create_cq(struct mrc_context *ctx, int cqe, void *cq_context, struct mrc_comp_channel *channel,
                             int comp_vector) {
    if (comp_vector < 0 || comp_vector > 0) return lm_null(EINVAL); /* one completion vector */
    return lm_cq_new(ctx, cqe, cq_context, channel, 0);
}

int mrc_poll_cq(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc) {
    int n = 0;
    unsigned t, h;
    if (!cq || cq->is_ev || num_entries < 0 || (!wc && num_entries)) return lm_fail(EINVAL);
    if (!ob_dev_threaded(cq->ctx->dev)) ob_dev_progress(cq->ctx->dev);
    if (atomic_flag_test_and_set_explicit(&cq->poll_busy, memory_order_acquire)) return 0; /* another poller */
    t = atomic_load_explicit(&cq->tail, memory_order_relaxed);
    h = atomic_load_explicit(&cq->head, memory_order_acquire);
    int yield = 0;
    while (n < num_entries && t != h) wc[n++] = cq->wc[t++ & (cq->cap - 1)];
    atomic_store_explicit(&cq->tail, t, memory_order_release);
    /* a program spinning on an empty CQ (as OCP's benchmark does) would starve the progress thread when cores are
     * fewer than busy threads: after a run of empty polls, give the core away once */
    cq->empty_polls = n ? 0 : cq->empty_polls + 1;
    if (cq->empty_polls >= 32) {
        cq->empty_polls = 0;
        yield = 1;
    }
    atomic_flag_clear_explicit(&cq->poll_busy, memory_order_release);
    if (yield && ob_dev_threaded(cq->ctx->dev)) sched_yield();
    return n;
}

int mrc_destroy_cq(struct mrc_cq *cq) {
    unsigned i;
    if (!cq) return lm_fail(EINVAL);
    if (atomic_load(&cq->refs) > 0) return lm_fail(EBUSY);
    if (cq->ch && atomic_load(&cq->acked) != atomic_load(&cq->events)) return lm_fail(EBUSY);
    if (cq->is_ev) {
        pthread_mutex_lock(&cq->ctx->lock);
        for (i = 0; i < LM_MAX_EVCQ; i++)
            if (cq->ctx->evcq[i] == cq) cq->ctx->evcq[i] = NULL;
        pthread_mutex_unlock(&cq->ctx->lock);
        ob_dev_progress(cq->ctx->dev);
    }
    if (cq->ch) atomic_fetch_sub(&cq->ch->refs, 1);
    atomic_fetch_sub(&cq->ctx->objs, 1);
    free(cq->wc);
    free(cq->ev);
    free(cq);
    return 0;
}

int mrc_req_notify_cq(struct mrc_cq *cq, int solicited_only) {
    (void)solicited_only; /* every completion wakes: MRC has no solicited events on RDMA writes to the requester */
    if (!cq || !cq->ch) return lm_fail(EINVAL);
    atomic_store(&cq->armed, 1);
    /* completions already queued count as a new one, as a hardware CQ that was not empty would signal */
    if (atomic_load(&cq->head) != atomic_load(&cq->tail)) lm_cq_signal(cq);
    return 0;
}

int mrc_get_cq_event(struct mrc_comp_channel *ch, struct mrc_cq **cq, void **cq_context) {
    uint64_t v;
    struct mrc_cq *c;
    if (!ch || !cq || !cq_context) return lm_fail(EINVAL);
    if (!ob_dev_threaded(ch->ctx->dev)) {
        struct pollfd pf = { ch->fd, POLLIN, 0 };
        while (poll(&pf, 1, 0) == 0) ob_dev_progress(ch->ctx->dev);
    }
    if (read(ch->fd, &v, sizeof v) != sizeof v) return -1; /* errno from read (EAGAIN on a non-blocking fd) */
    pthread_mutex_lock(&ch->lock);
    if (!ch->n) {
        pthread_mutex_unlock(&ch->lock);
        return lm_fail(EAGAIN);
    }
    c = ch->fifo[ch->head];
    ch->head = (ch->head + 1) % LM_CH_FIFO;
    ch->n--;
    pthread_mutex_unlock(&ch->lock);
    atomic_fetch_add(&c->events, 1);
    *cq = c;
    *cq_context = c->cq_context;
    return 0;
}

void mrc_ack_cq_events(struct mrc_cq *cq, unsigned int nevents) {
    if (cq) atomic_fetch_add(&cq->acked, nevents);
}

/* ---- QP hints ------------------------------------------------------------------------------------------- */

#define LM_HINT_MASK                                                                                                \
    (MRC_QP_HINT_NUM_QPS_PER_PEER | MRC_QP_HINT_NUM_SEND_PEERS | MRC_QP_HINT_NUM_REMOTE_RECV_PEERS |                \
     MRC_QP_HINT_VENDOR_CFG)

static int lm_hint_check(const struct mrc_qp_hint_attr *a, int mask) {
    if ((mask & MRC_QP_HINT_NUM_QPS_PER_PEER) && a->num_qps_per_peer < 0) return -1;
    if ((mask & MRC_QP_HINT_NUM_SEND_PEERS) && a->num_send_peers < 0) return -1;
    if ((mask & MRC_QP_HINT_NUM_REMOTE_RECV_PEERS) && a->num_remote_recv_peers < 0) return -1;
    return (mask & ~LM_HINT_MASK) ? -1 : 0;
}

struct mrc_qp_hint *mrc_create_qp_hint(struct mrc_context *ctx, struct mrc_qp_hint_init_attr *init_attr) {
    struct mrc_qp_hint *h;
    if (!ctx || !init_attr || lm_hint_check(&init_attr->attr, LM_HINT_MASK) != 0) return lm_null(EINVAL);
    h = calloc(1, sizeof *h);
    if (!h) return lm_null(ENOMEM);
    h->ctx = ctx;
    h->attr = init_attr->attr;
    atomic_fetch_add(&ctx->objs, 1);
    return h;
}

int mrc_destroy_qp_hint(struct mrc_qp_hint *h) {
    if (!h) return lm_fail(EINVAL);
    if (atomic_load(&h->refs) > 0) return lm_fail(EBUSY);
    atomic_fetch_sub(&h->ctx->objs, 1);
    free(h);
    return 0;
}

int mrc_query_qp_hint(struct mrc_qp_hint *h, struct mrc_qp_hint_attr *a, int mask) {
    if (!h || !a || (mask & ~LM_HINT_MASK)) return lm_fail(EINVAL);
    if (mask & MRC_QP_HINT_NUM_QPS_PER_PEER) a->num_qps_per_peer = h->attr.num_qps_per_peer;
    if (mask & MRC_QP_HINT_NUM_SEND_PEERS) a->num_send_peers = h->attr.num_send_peers;
    if (mask & MRC_QP_HINT_NUM_REMOTE_RECV_PEERS) a->num_remote_recv_peers = h->attr.num_remote_recv_peers;
    if (mask & MRC_QP_HINT_VENDOR_CFG) memcpy(a->vendor_cfg, h->attr.vendor_cfg, sizeof a->vendor_cfg);
    return 0;
}

int mrc_modify_qp_hint(struct mrc_qp_hint *h, struct mrc_qp_hint_attr *a, int mask) {
    if (!h || !a || lm_hint_check(a, mask) != 0) return lm_fail(EINVAL);
    /* the values reach QPs that take the hint from now on (the core reads a hint at RESET -> INIT) */
    if (mask & MRC_QP_HINT_NUM_QPS_PER_PEER) h->attr.num_qps_per_peer = a->num_qps_per_peer;
    if (mask & MRC_QP_HINT_NUM_SEND_PEERS) h->attr.num_send_peers = a->num_send_peers;
    if (mask & MRC_QP_HINT_NUM_REMOTE_RECV_PEERS) h->attr.num_remote_recv_peers = a->num_remote_recv_peers;
    if (mask & MRC_QP_HINT_VENDOR_CFG) memcpy(h->attr.vendor_cfg, a->vendor_cfg, sizeof a->vendor_cfg);
    return 0;
}

/* ---- QPs ------------------------------------------------------------------------------------------------ */

struct mrc_qp *mrc_create_qp(struct mrc_context *ctx, struct mrc_qp_init_attr *ia) {
    struct mrc_qp *qp;
    unsigned n = 1;
    int rc;
    if (!ctx || !ia || !ia->send_cq || !ia->recv_cq || ia->send_cq->is_ev || ia->recv_cq->is_ev ||
        ia->send_cq->ctx != ctx || ia->recv_cq->ctx != ctx)
        return lm_null(EINVAL);
    if (ia->protocol_version != MRC_PROTOCOL_VERSION_0 && ia->protocol_version != MRC_PROTOCOL_VERSION_1)
        return lm_null(EOPNOTSUPP);
    if (ia->cap.max_send_wr > LM_MAX_SEND_WR || ia->cap.max_recv_wr > LM_MAX_RECV_WR ||
        ia->cap.max_send_sge > LM_MAX_SGE || ia->cap.max_recv_sge > LM_MAX_SGE ||
        ia->cap.max_inline_data > LM_MAX_INLINE)
        return lm_null(EINVAL);
    if (ia->pd && ia->pd->context != ctx->vctx) return lm_null(EINVAL);
    qp = calloc(1, sizeof *qp);
    if (!qp) return lm_null(ENOMEM);
    qp->init = *ia;
    if (!qp->init.cap.max_send_wr) qp->init.cap.max_send_wr = 1;
    if (!qp->init.cap.max_send_sge) qp->init.cap.max_send_sge = 1;
    if (!qp->init.cap.max_recv_sge) qp->init.cap.max_recv_sge = 1;
    while (n < 2 * qp->init.cap.max_send_wr) n <<= 1;
    qp->nslots = n;
    qp->slot = calloc(n, sizeof *qp->slot);
    if (!qp->slot) {
        free(qp);
        return lm_null(ENOMEM);
    }
    qp->ctx = ctx;
    pthread_mutex_init(&qp->post_lock, NULL);
    ob_conn_attr_default(&qp->a);
    rc = ob_conn_create(ctx->dev, qp, &qp->conn, &qp->qpn);
    if (rc) {
        free(qp->slot);
        free(qp);
        return lm_null(rc);
    }
    qp->state = IBV_QPS_RESET;
    qp->mattr.mpr.mpr = qp->a.mpr;
    qp->mattr.mpr.mpr_dest = qp->a.mpr_dest;
    qp->mattr.wimm.max_wimm = qp->a.max_wimm;
    qp->mattr.wimm.max_wimm_dest = qp->a.max_wimm_dest;
    qp->mattr.timeout = qp->a.timeout;
    qp->mattr.retry.linear_cnt = qp->a.retry_linear;
    qp->mattr.retry.exp_cnt = qp->a.retry_exp;
    atomic_fetch_add(&ia->send_cq->refs, 1);
    atomic_fetch_add(&ia->recv_cq->refs, 1);
    atomic_fetch_add(&ctx->objs, 1);
    ia->cap = qp->init.cap; /* what the QP got */
    return qp;
}

int mrc_destroy_qp(struct mrc_qp *qp) {
    unsigned i;
    int rc;
    if (!qp) return lm_fail(EINVAL);
    rc = ob_conn_destroy(qp->conn);
    if (rc) return lm_fail(rc);
    for (i = 0; i < qp->nslots; i++) free(qp->slot[i].copy);
    if (qp->hint) atomic_fetch_sub(&qp->hint->refs, 1);
    atomic_fetch_sub(&qp->init.send_cq->refs, 1);
    atomic_fetch_sub(&qp->init.recv_cq->refs, 1);
    atomic_fetch_sub(&qp->ctx->objs, 1);
    pthread_mutex_destroy(&qp->post_lock);
    free(qp->slot);
    free(qp);
    return 0;
}

static int lm_mtu_bytes(enum ibv_mtu m) {
    switch (m) {
    case IBV_MTU_256: return 256;
    case IBV_MTU_512: return 512;
    case IBV_MTU_1024: return 1024;
    case IBV_MTU_2048: return 2048;
    case IBV_MTU_4096: return 4096;
    default: return -1;
    }
}

#define LM_MRC_MASK                                                                                                 \
    (MRC_QP_MAX_WIMM | MRC_QP_MAX_WIMM_DEST | MRC_QP_MPR | MRC_QP_MPR_DEST | MRC_QP_TIMEOUT |                       \
     MRC_QP_EV_PROFILE_ID | MRC_QP_CC_PROFILE_ID | MRC_QP_HINT | MRC_QP_RETRY_CNT | MRC_QP_CAP | MRC_QP_VENDOR_CFG)
/* verbs attributes with an MRC meaning; the others in IGNORED have none and are accepted and ignored */
#define LM_IBV_USED                                                                                                 \
    (IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_AV | IBV_QP_PATH_MTU |      \
     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN)
#define LM_IBV_IGNORED                                                                                              \
    (IBV_QP_PORT | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER |                    \
     IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |                \
     IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_QKEY)

int mrc_modify_qp(struct mrc_qp *qp, struct ibv_qp_attr *v, int vmask, struct mrc_qp_attr *m, int mmask) {
    ob_conn_attr a;
    struct mrc_qp_hint *newhint = qp ? qp->hint : NULL;
    char why[200];
    int rc, target;
    if (!qp || (vmask && !v) || (mmask && !m)) return lm_fail(EINVAL);
    if (vmask & ~(LM_IBV_USED | LM_IBV_IGNORED)) return lm_fail(EINVAL);
    if (mmask & ~LM_MRC_MASK) return lm_fail(EINVAL);
    if ((vmask & IBV_QP_CUR_STATE) && (int)v->cur_qp_state != qp->state) return lm_fail(EINVAL);
    if (!(vmask & IBV_QP_STATE)) return lm_fail(EINVAL); /* MRC changes attributes only with a transition */
    target = v->qp_state;
    a = qp->a;
    switch (target) {
    case IBV_QPS_RESET: a.state = OB_QPS_RESET; break;
    case IBV_QPS_INIT: a.state = OB_QPS_INIT; break;
    case IBV_QPS_RTR: a.state = OB_QPS_RTR; break;
    case IBV_QPS_RTS: a.state = OB_QPS_RTS; break;
    case IBV_QPS_ERR: a.state = OB_QPS_ERR; break;
    default: return lm_fail(EINVAL);
    }
    if (vmask & IBV_QP_ACCESS_FLAGS) a.access_remote_write = (v->qp_access_flags & IBV_ACCESS_REMOTE_WRITE) != 0;
    if (vmask & IBV_QP_PATH_MTU) {
        int b = lm_mtu_bytes(v->path_mtu);
        if (b < 0) return lm_fail(EINVAL);
        a.path_mtu = (uint32_t)b;
    }
    if (vmask & IBV_QP_DEST_QPN) a.dest_qpn = v->dest_qp_num;
    if (vmask & IBV_QP_RQ_PSN) a.rq_psn = v->rq_psn;
    if (vmask & IBV_QP_SQ_PSN) a.sq_psn = v->sq_psn;
    if (vmask & IBV_QP_AV) {
        const uint8_t *g = v->ah_attr.grh.dgid.raw;
        if (!v->ah_attr.is_global || g[10] != 0xff || g[11] != 0xff) return lm_fail(EINVAL);
        memcpy(&a.peer_ip, &g[12], 4);
        a.peer_port = (uint16_t)(g[8] << 8 | g[9]);
        if (!a.peer_port) a.peer_port = 4791;
    }
    if (mmask & MRC_QP_MAX_WIMM) a.max_wimm = m->wimm.max_wimm;
    if (mmask & MRC_QP_MAX_WIMM_DEST) a.max_wimm_dest = m->wimm.max_wimm_dest;
    if (mmask & MRC_QP_MPR) a.mpr = m->mpr.mpr;
    if (mmask & MRC_QP_MPR_DEST) a.mpr_dest = m->mpr.mpr_dest;
    if (mmask & MRC_QP_TIMEOUT) a.timeout = m->timeout;
    if (mmask & MRC_QP_EV_PROFILE_ID) a.ev_profile_id = m->profile.ev_profile_id;
    if (mmask & MRC_QP_CC_PROFILE_ID) a.cc_profile_id = m->profile.cc_profile_id;
    if (mmask & MRC_QP_RETRY_CNT) {
        a.retry_linear = m->retry.linear_cnt;
        a.retry_exp = m->retry.exp_cnt;
    }
    if (mmask & MRC_QP_CAP) {
        if (m->cap & ~(uint32_t)(MRC_QP_CAP_TRIM_NACK_DEST_UNSUPPORTED | MRC_QP_CAP_DYNAMIC_MPR |
                                 MRC_QP_CAP_SVC_TIME_DEST_UNSUPPORTED))
            return lm_fail(EINVAL);
        a.caps = m->cap;
    }
    if (mmask & MRC_QP_HINT) {
        newhint = m->qp_hint;
        if (newhint && newhint->ctx != qp->ctx) return lm_fail(EINVAL);
    }
    if (newhint) {
        a.hint_qps_per_peer = (uint32_t)newhint->attr.num_qps_per_peer;
        a.hint_send_peers = (uint32_t)newhint->attr.num_send_peers;
        a.hint_remote_recv_peers = (uint32_t)newhint->attr.num_remote_recv_peers;
    }
    why[0] = 0;
    rc = ob_conn_modify(qp->conn, &a, why, sizeof why);
    if (rc) {
        if (getenv("MRC_OCP_DEBUG")) fprintf(stderr, "lib_mrc: mrc_modify_qp: %s\n", why);
        return lm_fail(rc);
    }
    qp->a = a;
    qp->state = target;
    if (newhint != qp->hint) {
        if (newhint) atomic_fetch_add(&newhint->refs, 1);
        if (qp->hint) atomic_fetch_sub(&qp->hint->refs, 1);
        qp->hint = newhint;
    }
    if (vmask & IBV_QP_ACCESS_FLAGS) qp->access = (int)v->qp_access_flags;
    qp->mattr.mpr.mpr = a.mpr;
    qp->mattr.mpr.mpr_dest = a.mpr_dest;
    qp->mattr.wimm.max_wimm = a.max_wimm;
    qp->mattr.wimm.max_wimm_dest = a.max_wimm_dest;
    qp->mattr.timeout = a.timeout;
    qp->mattr.profile.ev_profile_id = a.ev_profile_id;
    qp->mattr.profile.cc_profile_id = a.cc_profile_id;
    qp->mattr.retry.linear_cnt = a.retry_linear;
    qp->mattr.retry.exp_cnt = a.retry_exp;
    qp->mattr.qp_hint = qp->hint;
    qp->mattr.cap = a.caps;
    if (mmask & MRC_QP_VENDOR_CFG) memcpy(qp->mattr.vendor_cfg, m->vendor_cfg, sizeof m->vendor_cfg);
    return 0;
}

int mrc_query_qp(struct mrc_qp *qp, struct ibv_qp_attr *v, int vmask, struct mrc_qp_attr *m, int mmask,
                 struct mrc_qp_init_attr *init_attr) {
    ob_conn_attr a;
    int rc;
    static const enum ibv_qp_state st[] = { IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_ERR };
    if (!qp || (vmask && !v) || (mmask && !m) || (mmask & ~LM_MRC_MASK)) return lm_fail(EINVAL);
    rc = ob_conn_query(qp->conn, &a);
    if (rc) return lm_fail(rc);
    if (v) {
        memset(v, 0, sizeof *v);
        v->qp_state = a.state >= 0 && a.state <= 4 ? st[a.state] : IBV_QPS_ERR;
        v->cur_qp_state = v->qp_state;
        v->path_mtu = a.path_mtu == 256 ? IBV_MTU_256 : a.path_mtu == 512 ? IBV_MTU_512 : a.path_mtu == 1024 ? IBV_MTU_1024
                    : a.path_mtu == 2048 ? IBV_MTU_2048 : IBV_MTU_4096;
        v->qp_access_flags = (unsigned)qp->access;
        v->dest_qp_num = a.dest_qpn;
        v->rq_psn = a.rq_psn;
        v->sq_psn = a.sq_psn;
        v->cap = qp->init.cap;
        v->port_num = 1;
        v->ah_attr.is_global = 1;
        v->ah_attr.port_num = 1;
        v->ah_attr.grh.dgid.raw[8] = (uint8_t)(a.peer_port >> 8);
        v->ah_attr.grh.dgid.raw[9] = (uint8_t)a.peer_port;
        v->ah_attr.grh.dgid.raw[10] = v->ah_attr.grh.dgid.raw[11] = 0xff;
        memcpy(&v->ah_attr.grh.dgid.raw[12], &a.peer_ip, 4);
        v->timeout = a.timeout;
    }
    if (m) {
        *m = qp->mattr;
        m->timeout = a.timeout;
    }
    if (init_attr) *init_attr = qp->init;
    return 0;
}

int mrc_get_qpn(struct mrc_qp *qp, uint32_t *qpn) {
    if (!qp || !qpn) return lm_fail(EINVAL);
    *qpn = qp->qpn;
    return 0;
}

int mrc_post_recv(struct mrc_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr) {
    int rc = 0;
    if (bad_wr) *bad_wr = NULL;
    if (!qp || !wr) return lm_fail(EINVAL);
    if (qp->state == IBV_QPS_RESET) {
        if (bad_wr) *bad_wr = wr;
        return lm_fail(EINVAL);
    }
    pthread_mutex_lock(&qp->post_lock);
    for (; wr; wr = wr->next) {
        if (wr->num_sge < 0 || (unsigned)wr->num_sge > qp->init.cap.max_recv_sge) {
            rc = EINVAL;
        } else if (atomic_load(&qp->recv_posted) - atomic_load(&qp->recv_done) >= qp->init.cap.max_recv_wr) {
            rc = ENOMEM;
        } else {
            rc = ob_post_recv(qp->conn, wr->wr_id);
            if (!rc) atomic_fetch_add(&qp->recv_posted, 1);
        }
        if (rc) break;
    }
    pthread_mutex_unlock(&qp->post_lock);
    if (rc) {
        if (bad_wr) *bad_wr = wr;
        return lm_fail(rc);
    }
    return 0;
}

static int lm_post_one(struct mrc_qp *qp, struct ibv_send_wr *wr) {
    ob_write w;
    struct lm_slot *s;
    uint64_t total = 0;
    int i, rc;
    unsigned seq;
    void *copy = NULL;
    if (wr->opcode != IBV_WR_RDMA_WRITE && wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM) return EINVAL;
    if (wr->num_sge < 0 || (unsigned)wr->num_sge > qp->init.cap.max_send_sge || (wr->num_sge && !wr->sg_list))
        return EINVAL;
    for (i = 0; i < wr->num_sge; i++) total += wr->sg_list[i].length;
    if (total > 0x80000000u) return EINVAL;
    if ((wr->send_flags & IBV_SEND_INLINE) && total > qp->init.cap.max_inline_data && total > 0) return EINVAL;
    if (qp->posted - atomic_load(&qp->completed) >= qp->init.cap.max_send_wr) return ENOMEM;
    memset(&w, 0, sizeof w);
    if (wr->num_sge == 1 && !(wr->send_flags & IBV_SEND_INLINE)) {
        w.buf = (const void *)(uintptr_t)wr->sg_list[0].addr;
    } else if (total) {
        uint8_t *p = copy = malloc(total);
        if (!copy) return ENOMEM;
        for (i = 0; i < wr->num_sge; i++) {
            memcpy(p, (const void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
            p += wr->sg_list[i].length;
        }
        w.buf = copy;
    }
    seq = qp->posted;
    s = &qp->slot[seq & (qp->nslots - 1)];
    free(s->copy); /* a slot whose completion was lost to destroy; normally NULL */
    s->wr_id = wr->wr_id;
    s->len = (uint32_t)total;
    s->signaled = qp->init.sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
    s->copy = copy;
    w.wr_id = seq;
    w.len = (uint32_t)total;
    w.remote_va = wr->wr.rdma.remote_addr;
    w.rkey = wr->wr.rdma.rkey;
    w.with_imm = wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
    w.imm = ntohl(wr->imm_data);
    w.solicited = (wr->send_flags & IBV_SEND_SOLICITED) != 0;
    rc = ob_post_write(qp->conn, &w);
    if (rc) {
        s->copy = NULL;
        free(copy);
        return rc;
    }
    qp->posted++;
    return 0;
}

int mrc_post_send(struct mrc_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr) {
    int rc = 0;
    if (bad_wr) *bad_wr = NULL;
    if (!qp || !wr) return errno = EINVAL;
    if (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_ERR) {
        if (bad_wr) *bad_wr = wr;
        return errno = EINVAL;
    }
    pthread_mutex_lock(&qp->post_lock);
    for (; wr; wr = wr->next)
        if ((rc = lm_post_one(qp, wr)) != 0) break;
    pthread_mutex_unlock(&qp->post_lock);
    if (rc) {
        if (bad_wr) *bad_wr = wr;
        errno = rc;
    }
    return rc;
}

/* ---- async events --------------------------------------------------------------------------------------- */

int mrc_get_async_event(struct mrc_context *ctx, struct mrc_async_event *event) {
    if (!ctx || !event) return lm_fail(EINVAL);
    pthread_mutex_lock(&ctx->lock);
    while (!ctx->async_n) {
        if (!ob_dev_threaded(ctx->dev)) {
            pthread_mutex_unlock(&ctx->lock);
            ob_dev_progress(ctx->dev);
            pthread_mutex_lock(&ctx->lock);
        } else {
            pthread_cond_wait(&ctx->cond, &ctx->lock);
        }
    }
    *event = ctx->async[ctx->async_head];
    ctx->async_head = (ctx->async_head + 1) % LM_ASYNC;
    ctx->async_n--;
    pthread_mutex_unlock(&ctx->lock);
    return 0;
}

void mrc_ack_async_event(struct mrc_async_event *event) { (void)event; /* nothing is held per event */ }
