/* mrc_ctl.h - OCP's MRC controller API (device limits, port admin state, EV Format profiles, EV profiles and EV
 * operations, CC profiles, EV events, endpoint operations), as implemented by open MRC's lib_mrc.
 *
 * Open MRC's own header for that API, written from the published API's facts (names, types, constants, layouts).
 * Controller calls take the mrc_context of mrc_create_context. Every int-returning call gives 0 or -1 with errno
 * set, except mrc_ctl_poll_ev_event (a count, or -errno). What lib_mrc implements and what gives EOPNOTSUPP is in
 * ocp/README.md. MIT licence.
 *
 * ABI note: struct mrc_ctl_ev_event has the `state` field only when the program is compiled with
 * MRC_CTL_API_VER_USED >= 1.0.1 (the default); lib_mrc writes the 1.0.1 layout unless the context was created
 * with mrc_api_version_used below 1.0.1.
 */
#ifndef _MRC_CTL_API_H_
#define _MRC_CTL_API_H_

#include <stdint.h>
#include <infiniband/verbs.h>

#include <mrc.h>
#include <mrc_ctl_api_ver.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_CTL_MAX_VENDOR_CFG_SIZE 128
#define MRC_CTL_EV_MAX_BYTES 32 /* bytes of an EV value */

enum mrc_ctl_protocol_version {
    MRC_CTL_PROTOCOL_VERSION_0 = 0,
    MRC_CTL_PROTOCOL_VERSION_1 = 1 << 0,
};

/* Every controller profile: INIT -> OFFLINE -> ONLINE -> OFFLINE -> INIT. */
enum mrc_ctl_profile_state {
    MRC_CTL_PROFILE_INIT,    /* created, not configured */
    MRC_CTL_PROFILE_OFFLINE, /* configured, not in use */
    MRC_CTL_PROFILE_ONLINE,  /* usable by QPs */
};

/* ---- device ---------------------------------------------------------------------------------------------- */

enum mrc_ctl_attr_opt {
    MRC_CTL_OPT_CAP_EV_PROFILE_MODIFY_ONLINE = 1 << 0,
    MRC_CTL_OPT_CAP_CC_PROFILE_MODIFY_ONLINE = 1 << 1,
    MRC_CTL_OPT_CAP_EV_EVENT = 1 << 2,
    MRC_CTL_OPT_CAP_EV_EXPLICIT_RANGE = 1 << 3, /* explicit EV arrays must be one contiguous range */
    MRC_CTL_OPT_CAP_EV_EVENT_PRECISE_DROP_CNT = 1 << 4,
    MRC_CTL_OPT_CAP_EP_OP_EV_PROBE = 1 << 5
};

struct mrc_ctl_device_attr {
    uint32_t mrc_ctl_protocol_version; /* OR of enum mrc_ctl_protocol_version */
    struct {
        uint32_t ev_max_fmt_profiles;
        uint32_t ev_max_profiles;
        uint32_t ev_max_count;         /* EVs over every profile */
        uint32_t ev_free_count;        /* of which still free */
        uint32_t ev_max_count_profile; /* EVs in one profile */
        uint32_t ev_count_align;       /* explicit arrays are a multiple of this */
        uint32_t ev_max_width;         /* bits of an expanded EV */
        uint32_t ev_fmt_mode_mask;     /* OR of enum mrc_ctl_ev_fmt_mode */
        uint32_t ev_mode_mask;         /* OR of enum mrc_ctl_ev_mode */
        uint32_t ev_op_max_entries;    /* entries in one EV operation (0: no limit) */
    } ev;
    struct {
        uint32_t cc_max_profiles;
        const char **algorithms; /* NULL-terminated, owned by the library ("uet-1.0-nscc", ...) */
    } cc;
    uint32_t phy_port_mask; /* bit N: port N (1-based) */
    uint32_t opt_attr;      /* OR of enum mrc_ctl_attr_opt */
};

#if MRC_CTL_API_VER_USED >= MRC_CTL_API_VER(1, 0, 1)
int mrc_ctl_query_device_ex(struct ibv_context *context, struct mrc_context *mcontext,
                            struct mrc_ctl_device_attr *ctl_attr, int *supported);
#endif
int mrc_ctl_query_device(struct ibv_context *context, struct mrc_ctl_device_attr *ctl_attr);

void mrc_ctl_query_version(uint32_t *current_version, uint32_t *last_supported_version, uint32_t *vendor_version,
                           uint32_t *last_supported_vendor_version);

/* ---- port administrative state --------------------------------------------------------------------------- */

enum mrc_ctl_port_admin_state {
    MRC_CTL_PORT_ADMIN_DISABLED = 0,
    MRC_CTL_PORT_ADMIN_ENABLED = 1,
};

enum mrc_ctl_port_attr_mask {
    MRC_CTL_PORT_ADMIN_STATE = 1 << 0,
};

struct mrc_ctl_port_attr {
    enum mrc_ctl_port_admin_state port_admin_state; /* a disabled port reads IBV_PORT_DOWN */
};

int mrc_ctl_query_port(struct mrc_context *context, uint8_t port_num, struct mrc_ctl_port_attr *attr,
                       int attr_mask);
int mrc_ctl_modify_port(struct mrc_context *context, uint8_t port_num, struct mrc_ctl_port_attr *attr,
                        int attr_mask);

/* ---- EV Format profiles ---------------------------------------------------------------------------------- */

enum mrc_ctl_ev_fmt_mode {
    MRC_CTL_EV_FMT_MODE_STEV = 1 << 0, /* IPv6 flow label + UDP source port */
    MRC_CTL_EV_FMT_MODE_SRV6 = 1 << 1, /* SRv6 destination (and one SRH segment) */
    MRC_CTL_EV_FMT_MODE_UDP = 1 << 2,  /* UDP source port only */
};

enum mrc_ctl_ev_fmt_op {
    MRC_CTL_EV_FMT_OP_MODIFY_FIELDS,
    MRC_CTL_EV_FMT_OP_QUERY_FIELDS,
};

enum mrc_ctl_ev_fmt_profile_attr_mask {
    MRC_CTL_EV_FMT_PROFILE_STATE = 1 << 0,
    MRC_CTL_EV_FMT_PROFILE_CUR_STATE = 1 << 1,
    MRC_CTL_EV_FMT_PROFILE_MODE = 1 << 2,
    MRC_CTL_EV_FMT_PROFILE_OP = 1 << 3,
    MRC_CTL_EV_FMT_VENDOR_CFG = -0x7fffffff - 1 /* bit 31 */,
};

struct mrc_ctl_ev_fmt_field {
    uint8_t width; /* bits */
};

struct mrc_ctl_ev_fmt_profile_attr {
    enum mrc_ctl_profile_state profile_state;     /* target state (modify) */
    enum mrc_ctl_profile_state cur_profile_state; /* current state (query) */
    enum mrc_ctl_ev_fmt_mode ev_fmt_mode;
    struct {
        enum mrc_ctl_ev_fmt_op op;
        struct mrc_ctl_ev_fmt_field *fmt_fields;
        int fmt_field_count; /* in: room; out: fields (E2BIG: the room needed) */
    } ev_fmt_op;
    uint8_t vendor_cfg[MRC_CTL_MAX_VENDOR_CFG_SIZE];
};

int mrc_ctl_modify_ev_fmt_profile(struct mrc_context *mrc_ctx, uint64_t ev_fmt_profile_id,
                                  struct mrc_ctl_ev_fmt_profile_attr *attr, int attr_mask);
int mrc_ctl_query_ev_fmt_profile(struct mrc_context *mrc_ctx, uint64_t ev_fmt_profile_id,
                                 struct mrc_ctl_ev_fmt_profile_attr *attr, int attr_mask);

/* ---- EVs ------------------------------------------------------------------------------------------------- */

/* An EV value, most significant bit first from byte 0 (STEV: the first 4 bytes; SRv6: DA then SRH segment). */
typedef uint8_t mrc_ctl_ev_t[MRC_CTL_EV_MAX_BYTES];

struct mrc_ctl_ev {
    mrc_ctl_ev_t val;
    uint8_t port; /* 1-based */
};

#define MRC_CTL_EV_UNPOPULATED ((struct mrc_ctl_ev){.val = {0}, .port = 0})

enum mrc_ctl_ev_state {
    MRC_CTL_EV_GOOD = 1 << 0,
    MRC_CTL_EV_ASSUMED_BAD = 1 << 1,
    MRC_CTL_EV_DENIED = 1 << 2,
    MRC_CTL_EV_UNKNOWN = -0x7fffffff - 1 /* bit 31 */
};

/* ---- EV profiles ----------------------------------------------------------------------------------------- */

enum mrc_ctl_ev_mode {
    MRC_CTL_EV_MODE_AUTO = 1 << 0, /* the provider picks EVs (e.g. ECMP source ports) */
    MRC_CTL_EV_MODE_EXP = 1 << 1,  /* the controller lists the EVs */
    MRC_CTL_EV_MODE_GEN = 1 << 2,  /* the provider generates EVs from the fields */
};

enum mrc_ctl_ev_op {
    MRC_CTL_EV_OP_REPLACE_EV,
    MRC_CTL_EV_OP_MODIFY_EV_STATE,
    MRC_CTL_EV_OP_QUERY_EV_STATE,
    MRC_CTL_EV_OP_QUERY_EV_ARRAY,
};

enum mrc_ctl_ev_fields_op {
    MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS,
    MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS,
};

enum mrc_ctl_ev_profile_attr_mask {
    MRC_CTL_EV_PROFILE_STATE = 1 << 0,
    MRC_CTL_EV_PROFILE_CUR_STATE = 1 << 1,
    MRC_CTL_EV_PROFILE_MODE = 1 << 2,
    MRC_CTL_EV_PROFILE_FMT_ID = 1 << 3,
    MRC_CTL_EV_PROFILE_COUNT = 1 << 4,
    MRC_CTL_EV_PROFILE_MIN_ACTIVE = 1 << 5,
    MRC_CTL_EV_PROFILE_EVENT_MASK = 1 << 6,
    MRC_CTL_EV_PROFILE_EV_OP = 1 << 7,
    MRC_CTL_EV_PROFILE_EV_FIELDS_OP = 1 << 8,
    MRC_CTL_EV_PROFILE_VENDOR_CFG = -0x7fffffff - 1 /* bit 31 */,
};

/* One field of an EV profile; EV bits are laid into the set bits of mask, most significant first. */
struct mrc_ctl_ev_field {
    uint32_t width;
    uint32_t init_val;
    uint32_t min_val; /* range of generated values (GEN) */
    uint32_t max_val;
    uint32_t mask;
};

enum mrc_ctl_ev_op_flags {
    MRC_CTL_EV_OP_F_ALL_COPIES = 1 << 0, /* REPLACE_EV: every copy of ev, not one */
};

/* Entry of an EV operation: REPLACE_EV reads ev, ev_new, state; MODIFY_EV_STATE reads ev, state;
 * QUERY_EV_STATE reads ev and writes state; QUERY_EV_ARRAY writes ev and state. */
struct mrc_ctl_ev_op_entry {
    struct mrc_ctl_ev ev;
    struct mrc_ctl_ev ev_new;
    enum mrc_ctl_ev_state state;
    uint32_t flags; /* enum mrc_ctl_ev_op_flags */
};

struct mrc_ctl_ev_profile_attr {
    enum mrc_ctl_profile_state profile_state;
    enum mrc_ctl_profile_state cur_profile_state;
    enum mrc_ctl_ev_mode ev_mode;
    uint64_t ev_fmt_profile_id;
    uint32_t ev_count;      /* EVs in the array */
    uint32_t ev_min_active; /* EVs never demoted below this many, <= ev_count */
    int ev_event_mask;      /* MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD */
    struct {
        enum mrc_ctl_ev_op op;
        struct mrc_ctl_ev_op_entry *entries;
        int entry_count; /* in: entries; out: done (QUERY_EV_ARRAY, E2BIG: the room needed) */
    } ev_op;
    struct {
        enum mrc_ctl_ev_fields_op op;
        struct mrc_ctl_ev_field *fields;
        int field_count; /* in: room; out: fields (E2BIG: the room needed) */
    } ev_fields_op;
    uint8_t vendor_cfg[MRC_CTL_MAX_VENDOR_CFG_SIZE];
};

/* EV_OP and EV_FIELDS_OP exclude each other (EINVAL). Errors: E2BIG, EINVAL, ENOENT, EIO, EPERM, EBUSY. */
int mrc_ctl_modify_ev_profile(struct mrc_context *mrc_ctx, uint64_t ev_profile_id,
                              struct mrc_ctl_ev_profile_attr *attr, int attr_mask);
int mrc_ctl_query_ev_profile(struct mrc_context *mrc_ctx, uint64_t ev_profile_id,
                             struct mrc_ctl_ev_profile_attr *attr, int attr_mask);

/* ---- CC profiles ----------------------------------------------------------------------------------------- */

enum mrc_ctl_cc_profile_attr_mask {
    MRC_CTL_CC_PROFILE_STATE = 1 << 0,
    MRC_CTL_CC_PROFILE_CUR_STATE = 1 << 1,
    MRC_CTL_CC_PROFILE_ALGORITHM = 1 << 2,
    MRC_CTL_CC_PROFILE_CONFIG = 1 << 3,
    MRC_CTL_CC_PROFILE_VENDOR_CFG = -0x7fffffff - 1 /* bit 31 */,
};

struct mrc_ctl_cc_profile_attr {
    enum mrc_ctl_profile_state profile_state;
    enum mrc_ctl_profile_state cur_profile_state;
    const char *algorithm; /* one of mrc_ctl_device_attr.cc.algorithms; NULL: no congestion control */
    const void *cc_config; /* the algorithm's configuration (struct mrc_ctl_cc_nscc_cfg for NSCC) */
    uint8_t vendor_cfg[MRC_CTL_MAX_VENDOR_CFG_SIZE];
};

struct mrc_ctl_cc_nscc_cfg {
    uint8_t disable_qa;               /* no quick adapt when non-zero */
    uint32_t adjust_bytes_threshold;  /* bytes */
    uint32_t adjust_period_threshold; /* ns */
    uint32_t base_rtt;                /* ns */
    float eta;
    float fi;
    float fi_scale;
    float gamma;
    float max_md_jump;
    uint32_t max_cwnd; /* bytes */
    uint8_t qa_gate;
    uint32_t qa_threshold; /* ns */
    uint32_t target_delay; /* ns */
};

int mrc_ctl_modify_cc_profile(struct mrc_context *mrc_ctx, uint64_t cc_profile_id,
                              struct mrc_ctl_cc_profile_attr *attr, int attr_mask);
int mrc_ctl_query_cc_profile(struct mrc_context *mrc_ctx, uint64_t cc_profile_id,
                             struct mrc_ctl_cc_profile_attr *attr, int attr_mask);

/* ---- EV events ------------------------------------------------------------------------------------------- */

struct mrc_ctl_ev_event {
    uint64_t profile_id;
    struct mrc_ctl_ev ev;
    uint32_t drop_count; /* events lost just before this one (exact with ..._PRECISE_DROP_CNT, else 0/1) */
#if MRC_CTL_API_VER_USED >= MRC_CTL_API_VER(1, 0, 1)
    enum mrc_ctl_ev_state state; /* filled for API 1.0.1 and later */
#endif
};

struct mrc_cq *mrc_ctl_create_ev_event_cq(struct mrc_context *mrc_ctx, int cqe, void *cq_context,
                                          struct mrc_comp_channel *channel, int comp_vector);
/* Events polled (>= 0), or -errno. Destroy the CQ with mrc_destroy_cq. */
int mrc_ctl_poll_ev_event(struct mrc_cq *ev_cq, int num_entries, struct mrc_ctl_ev_event *ev_event);

/* ---- endpoint operations --------------------------------------------------------------------------------- */

enum mrc_ctl_ep_op_type {
    MRC_CTL_EP_OP_EV_PROBE,
    MRC_CTL_EP_OP_PORT_STATUS_UPDATE
};

struct mrc_ctl_ep_req {
    uint16_t req_id; /* unique among outstanding requests */
    union ibv_gid sgid;
    union ibv_gid dgid;
    enum mrc_ctl_ev_fmt_mode ev_fmt_mode;
    struct mrc_ctl_ev req_ev; /* EV and port */
    union {
        struct {
            uint32_t port_status; /* usable ports, bit N-1 = port N */
        } port_status_update;
    } op;
};

struct mrc_ctl_ep_rsp {
    uint16_t req_id;
    uint8_t port;         /* arrival port, 1-based */
    unsigned int rtt;     /* ns */
    uint8_t adj_svc_time; /* non-zero: rtt excludes the responder's service time */
};

/* Send num_req requests of one type and wait for their answers (at most rsp_timeout ns). ETIMEDOUT when some did
 * not come back (*num_rsp says how many did). */
int mrc_ctl_ep_batch_send_wait(struct mrc_context *mrc_ctx, uint8_t req_tc, enum mrc_ctl_ep_op_type op_type,
                               struct mrc_ctl_ep_req *req, int num_req, uint32_t rsp_timeout,
                               struct mrc_ctl_ep_rsp *rsp, int *num_rsp);

#ifdef __cplusplus
}
#endif

#endif /* _MRC_CTL_API_H_ */
