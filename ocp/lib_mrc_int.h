/* lib_mrc_int.h - lib_mrc's OCP-side objects, shared by lib_mrc.c (application API) and lib_mrc_ctl.c
 * (controller API). Includes OCP's mrc.h and bridge.h, never the core's mrc.h. */
#ifndef OCP_LIB_MRC_INT_H
#define OCP_LIB_MRC_INT_H
#include <mrc.h>
#include <mrc_ctl.h>

#include "bridge.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#define LM_MAX_SEND_WR 4096
#define LM_MAX_RECV_WR 4096
#define LM_MAX_SGE 16
#define LM_MAX_INLINE 4096
#define LM_MAX_CQE 65536
#define LM_ASYNC 64
#define LM_EP_RSP 256
#define LM_MAX_EVCQ 8
#define LM_CH_FIFO 256 /* CQs with a pending event per completion channel */

/* core limits (the core's mrc.h defaults: MRC_MAX_WIMM, MRC_MAX_MPR_UNITS) */
#define LM_CORE_MAX_WIMM 128
#define LM_CORE_MAX_MPR 32

/* lib_mrc_verbs.c: the application's registrations (ibv_reg_mr and friends, interposed) */
int lm_mr_interposed(void); /* 1 when the program's ibv_reg_mr and ibv_reg_mr_iova2 are lib_mrc's */
int lm_mr_lookup(void *vctx, uint32_t rkey, void **addr, uint64_t *iova, uint64_t *len, int *remote_write);
unsigned long lm_mr_generation(void *vctx);

/* What carries a device's frames: a soft device's UDP sockets, an RDMA device's raw packet QPs (the real libibverbs
 * is loaded: the soft one is not), or nothing (the soft libibverbs is loaded and the device is not one of its). */
enum { LM_DEV_NONE = 0, LM_DEV_SOFT, LM_DEV_NIC };
int lm_device_kind(int softverbs_loaded, int soft_gid);

static inline int lm_fail(int e) {
    errno = e;
    return -1;
}
static inline void *lm_null(int e) {
    errno = e;
    return NULL;
}

struct mrc_context {
    struct ibv_context *vctx;
    ob_dev *dev;
    uint32_t api_ver;
    unsigned planes;
    uint32_t ip;
    uint16_t udp_port;
    atomic_int objs; /* CQs, QPs, hints, channels alive */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct mrc_async_event async[LM_ASYNC];
    unsigned async_n, async_head;
    struct mrc_cq *evcq[LM_MAX_EVCQ];
    /* endpoint responses awaiting mrc_ctl_ep_batch_send_wait */
    struct { uint16_t req_id; uint8_t port, adj, timeout; uint32_t rtt; } rsp[LM_EP_RSP];
    unsigned nrsp;
    uint8_t port_disabled[9];
};

struct mrc_comp_channel {
    struct mrc_context *ctx;
    int fd;
    atomic_int refs;
    pthread_mutex_t lock;
    struct mrc_cq *fifo[LM_CH_FIFO]; /* CQs with an event to read, in order */
    unsigned head, n;
};

struct mrc_cq {
    struct mrc_context *ctx;
    void *cq_context;
    struct mrc_comp_channel *ch;
    int is_ev;
    unsigned cap; /* power of two */
    struct ibv_wc *wc;
    struct mrc_ctl_ev_event *ev;
    atomic_uint head, tail;
    atomic_int armed;
    atomic_int refs;
    atomic_int overflowed;
    atomic_flag poll_busy;
    atomic_uint events, acked;
    uint32_t ev_dropped; /* EV event CQ: events lost since the last one queued */
    unsigned empty_polls; /* consecutive empty mrc_poll_cq calls */
};

struct mrc_qp_hint {
    struct mrc_context *ctx;
    struct mrc_qp_hint_attr attr;
    atomic_int refs;
};

struct lm_slot {
    uint64_t wr_id;
    uint32_t len;
    uint8_t signaled;
    void *copy;
};

struct mrc_qp {
    struct mrc_context *ctx;
    ob_conn *conn;
    uint32_t qpn;
    struct mrc_qp_init_attr init;
    struct mrc_qp_hint *hint;
    ob_conn_attr a;   /* attributes accumulated over the transitions */
    struct mrc_qp_attr mattr;
    int state;        /* enum ibv_qp_state as the application last set it */
    int access;
    struct lm_slot *slot;
    unsigned nslots;
    unsigned posted;  /* application side */
    atomic_uint completed;
    atomic_uint recv_posted, recv_done;
    pthread_mutex_t post_lock;
};

/* an EV state event for every EV event CQ of the context (progress thread) */
void lm_ev_event(struct mrc_context *ctx, const ob_evt *e);
void lm_cq_signal(struct mrc_cq *cq);
struct mrc_cq *lm_cq_new(struct mrc_context *ctx, int cqe, void *cq_context, struct mrc_comp_channel *ch, int is_ev);

#endif
