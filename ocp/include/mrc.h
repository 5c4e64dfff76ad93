/* mrc.h - OCP's MRC application API (devices, contexts, CQs, completion channels, QP hints, QPs, posting, async
 * events), as implemented by open MRC's lib_mrc over the open MRC core.
 *
 * This is open MRC's own header for that API, written from the published API's facts: the same function names,
 * types, constants and structure layouts, so that a program written for the API compiles against -I ocp/include
 * and links lib_mrc.so. It is not the core's single header (the repository's top-level mrc.h); the two never meet
 * in one translation unit. Semantics follow libibverbs wherever the API says "like ibv_...". Errors: functions
 * returning int give 0 or -1 with errno set (EINVAL, ENOMEM, EBUSY, E2BIG, EOPNOTSUPP, ...), except where a comment
 * says otherwise; functions returning pointers give NULL with errno set. See ocp/README.md. MIT licence.
 */
#ifndef _MRC_API_H_
#define _MRC_API_H_

#include <stdint.h>
#include <infiniband/verbs.h>

#include <mrc_api_ver.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_MAX_VENDOR_CFG_SIZE 128 /* bytes of opaque provider configuration */

/* Wire protocol versions: a device reports the OR of those it speaks; a QP asks for one, or 0 for the default. */
enum mrc_protocol_version {
    MRC_PROTOCOL_VERSION_0 = 0,
    MRC_PROTOCOL_VERSION_1 = 1 << 0,
};

struct mrc_context;
struct mrc_qp_hint;
struct mrc_qp;
struct mrc_cq;
struct mrc_comp_channel;

/* ---- device ---------------------------------------------------------------------------------------------- */

enum mrc_device_cap {
    MRC_DEVICE_CAP_TRIM_NACK = 1 << 0,   /* sends NACKs for trimmed packets */
    MRC_DEVICE_CAP_DYNAMIC_MPR = 1 << 1, /* dynamic MPR */
    MRC_DEVICE_CAP_SVC_TIME = 1 << 2,    /* reports responder service time */
};

struct mrc_device_attr {
    uint32_t mrc_protocol_version; /* OR of enum mrc_protocol_version; 0: provider's choice */
    struct {
        uint16_t max_wimm;      /* largest max_wimm (requester) */
        uint16_t max_wimm_dest; /* largest max_wimm_dest (responder) */
    } wimm_attr;
    struct {
        uint8_t max_mpr;        /* in 128-PSN units */
        uint8_t mpr_resolution; /* in 128-PSN units */
    } mpr_attr;
    struct {
        uint32_t max_qp_hint;
    } qp_attr;
    uint32_t cap; /* OR of enum mrc_device_cap */
};

/* Does this verbs device speak MRC? *supported = 0 when not. 0 or -1 (errno). mrc_query_device_ex is the form of
 * API 1.0.1 and later; mrc_query_device keeps the 1.0.0 semantics. */
#if MRC_API_VER_USED >= MRC_API_VER(1, 0, 1)
int mrc_query_device_ex(struct ibv_context *context, struct mrc_context *mcontext, struct mrc_device_attr *attr,
                        int *supported);
#endif
int mrc_query_device(struct ibv_context *context, struct mrc_device_attr *attr, int *supported);

/* API versions this library implements (MRC_API_VER encoding). Callable before any context exists; NULL
 * arguments are skipped. */
void mrc_query_version(uint32_t *current_version, uint32_t *last_supported_version, uint32_t *vendor_version,
                       uint32_t *last_supported_vendor_version);

/* ---- context --------------------------------------------------------------------------------------------- */

struct mrc_context_attr {
    uint32_t mrc_api_version_used;        /* 0: not said (the library assumes its newest) */
    uint32_t mrc_vendor_api_version_used; /* 0: not said */
};

/* The library instance over one verbs device; parent of every other object. context_attr may be NULL. */
struct mrc_context *mrc_create_context(struct ibv_context *vcontext, struct mrc_context_attr *context_attr);
int mrc_destroy_context(struct mrc_context *mrc_ctx); /* EBUSY while objects remain */

/* ---- completion channels and CQs ------------------------------------------------------------------------- */

int mrc_create_comp_channel(struct mrc_context *mrc_ctx, struct mrc_comp_channel **channel);
int mrc_get_comp_channel_fd(struct mrc_comp_channel *channel, int *fd);
int mrc_destroy_comp_channel(struct mrc_comp_channel *channel); /* EBUSY while a CQ uses it */

/* A CQ of at least cqe entries; channel may be NULL. */
struct mrc_cq *mrc_create_cq(struct mrc_context *mrc_ctx, int cqe, void *cq_context,
                             struct mrc_comp_channel *channel, int comp_vector);
/* Up to num_entries completions into wc: their number (fewer than num_entries: the CQ is now empty), or -1. */
int mrc_poll_cq(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc);
int mrc_destroy_cq(struct mrc_cq *cq); /* EBUSY while a QP uses it */

/* ---- QP hints -------------------------------------------------------------------------------------------- */

struct mrc_qp_hint_attr {
    int num_qps_per_peer;      /* QPs of this hint sending to the same peer address at once */
    int num_send_peers;        /* distinct peer addresses the hint's QPs send to at once */
    int num_remote_recv_peers; /* remote QPs sending to the same peer as this QP (the incast degree) */
    uint8_t vendor_cfg[MRC_MAX_VENDOR_CFG_SIZE];
};

enum mrc_qp_hint_attr_mask {
    MRC_QP_HINT_NUM_QPS_PER_PEER = 1 << 0,
    MRC_QP_HINT_NUM_SEND_PEERS = 1 << 1,
    MRC_QP_HINT_NUM_REMOTE_RECV_PEERS = 1 << 2,
    MRC_QP_HINT_VENDOR_CFG = -0x7fffffff - 1 /* bit 31 */
};

struct mrc_qp_hint_init_attr {
    struct mrc_qp_hint_attr attr;
};

struct mrc_qp_hint *mrc_create_qp_hint(struct mrc_context *mrc_ctx, struct mrc_qp_hint_init_attr *init_attr);
int mrc_destroy_qp_hint(struct mrc_qp_hint *qp_hint); /* EBUSY while a QP refers to it */
int mrc_query_qp_hint(struct mrc_qp_hint *qp_hint, struct mrc_qp_hint_attr *qp_hint_attr, int qp_hint_attr_mask);
int mrc_modify_qp_hint(struct mrc_qp_hint *qp_hint, struct mrc_qp_hint_attr *qp_hint_attr, int qp_hint_attr_mask);

/* ---- QPs ------------------------------------------------------------------------------------------------- */

struct mrc_qp_init_attr {
    void *qp_context;
    struct mrc_cq *send_cq;
    struct mrc_cq *recv_cq;
    struct ibv_qp_cap cap;
    int sq_sig_all;
    struct ibv_pd *pd;
    uint64_t send_ops_flags;                    /* enum ibv_qp_create_send_ops_flags */
    enum mrc_protocol_version protocol_version; /* one bit, or 0: the provider's default */
};

struct mrc_qp *mrc_create_qp(struct mrc_context *mrc_ctx, struct mrc_qp_init_attr *mrc_qp_attr);
int mrc_destroy_qp(struct mrc_qp *qp);

/* MRC attributes of mrc_modify_qp / mrc_query_qp. The transition each belongs to:
 *   to INIT: MRC_QP_HINT, MRC_QP_EV_PROFILE_ID, MRC_QP_CC_PROFILE_ID
 *   to RTR:  MRC_QP_MAX_WIMM_DEST, MRC_QP_MPR_DEST, MRC_QP_CAP
 *   to RTS:  MRC_QP_MAX_WIMM, MRC_QP_MPR, MRC_QP_RETRY_CNT, MRC_QP_TIMEOUT
 * Every attribute left out takes the library's default. */
enum mrc_qp_attr_mask {
    MRC_QP_MAX_WIMM = 1 << 0,
    MRC_QP_MAX_WIMM_DEST = 1 << 1,
    MRC_QP_MPR = 1 << 2,
    MRC_QP_MPR_DEST = 1 << 3,
    MRC_QP_TIMEOUT = 1 << 4,
    MRC_QP_EV_PROFILE_ID = 1 << 5,
    MRC_QP_CC_PROFILE_ID = 1 << 6,
    MRC_QP_HINT = 1 << 7,
    MRC_QP_RETRY_CNT = 1 << 8, /* linear and exponential retry limits */
    MRC_QP_CAP = 1 << 9,
    MRC_QP_VENDOR_CFG = -0x7fffffff - 1 /* bit 31 */
};

enum mrc_qp_cap {
    MRC_QP_CAP_TRIM_NACK_DEST_UNSUPPORTED = 1 << 0, /* the peer sends no trim NACKs */
    MRC_QP_CAP_DYNAMIC_MPR = 1 << 1,                /* both ends must set it */
    MRC_QP_CAP_SVC_TIME_DEST_UNSUPPORTED = 1 << 2   /* the peer reports no service time */
};

struct mrc_qp_attr {
    struct {
        uint8_t mpr;      /* requester window, 128-PSN units */
        uint8_t mpr_dest; /* responder window, 128-PSN units */
    } mpr;
    struct {
        uint16_t max_wimm;      /* Write-with-Immediate messages in flight as requester */
        uint16_t max_wimm_dest; /* ... accepted as responder */
    } wimm;
    uint8_t timeout; /* ACK timeout 1.024 us x 2^timeout, at most 24 */
    struct {
        uint64_t ev_profile_id; /* programmed by a controller, learned out of band */
        uint64_t cc_profile_id;
    } profile;
    struct {
        uint8_t linear_cnt; /* at most 7 */
        uint8_t exp_cnt;    /* at most 25 (25: no limit) */
    } retry;
    struct mrc_qp_hint *qp_hint; /* NULL: none */
    uint32_t cap;                /* OR of enum mrc_qp_cap */
    uint8_t vendor_cfg[MRC_MAX_VENDOR_CFG_SIZE];
};

int mrc_query_qp(struct mrc_qp *qp, struct ibv_qp_attr *vattr, int vattr_mask, struct mrc_qp_attr *mrc_attr,
                 int mrc_attr_mask, struct mrc_qp_init_attr *init_attr);

/* Move a QP through RESET -> INIT -> RTR -> RTS (or to ERR) like ibv_modify_qp. The verbs attributes IBV_QP_PORT,
 * IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY, IBV_QP_MIN_RNR_TIMER, IBV_QP_MAX_QP_RD_ATOMIC,
 * IBV_QP_MAX_DEST_RD_ATOMIC, IBV_QP_ALT_PATH and IBV_QP_PATH_MIG_STATE have no MRC meaning (use the MRC_QP_*
 * attributes); lib_mrc accepts and ignores them. IBV_QP_AV names the peer by ah_attr.grh.dgid. */
int mrc_modify_qp(struct mrc_qp *qp, struct ibv_qp_attr *vattr, int vattr_mask, struct mrc_qp_attr *mrc_attr,
                  int mrc_attr_mask);

int mrc_get_qpn(struct mrc_qp *qp, uint32_t *qpn);

/* A receive for one RDMA Write with Immediate, like ibv_post_recv (the data lands where the writer aims; the
 * scatter list may be empty). */
int mrc_post_recv(struct mrc_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);

/* RDMA Write and RDMA Write with Immediate, like ibv_post_send. Returns 0 or an errno value (and *bad_wr). */
int mrc_post_send(struct mrc_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);

/* ---- events ---------------------------------------------------------------------------------------------- */

struct mrc_async_event {
    union {
        struct mrc_cq *cq;
        struct mrc_qp *qp;
        int port_num;
    } element;
    enum ibv_event_type event_type;
};

/* Blocks until an asynchronous event (CQ overflow, QP fatal error, port change) arrives; each must be
 * acknowledged with mrc_ack_async_event. */
int mrc_get_async_event(struct mrc_context *mrc_ctx, struct mrc_async_event *event);
void mrc_ack_async_event(struct mrc_async_event *event);

/* Arm the CQ: the next completion raises one event on its channel. */
int mrc_req_notify_cq(struct mrc_cq *cq, int solicited_only);
/* Blocks (unless the channel fd is non-blocking) until a CQ event; each must be acknowledged. */
int mrc_get_cq_event(struct mrc_comp_channel *channel, struct mrc_cq **cq, void **cq_context);
void mrc_ack_cq_events(struct mrc_cq *cq, unsigned int nevents);

#ifdef __cplusplus
}
#endif

#endif /* _MRC_API_H_ */
