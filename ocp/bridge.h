/* bridge.h - the internal interface between lib_mrc's OCP-facing code (lib_mrc.c, which includes OCP's mrc.h) and
 * its core side (core_bridge.c, which includes the core's mrc.h with MRC_IMPLEMENTATION). The two headers both
 * define mrc_qp_hint, so they never meet in one translation unit; this header uses neither, only plain C types
 * with the ob_ prefix.
 *
 * Owns: one "device" (ob_dev) per mrc_context: a core endpoint, its UDP sockets, and the progress thread that alone
 * touches them. The application's threads reach it through a lock-free ring of operations (posts) with an eventfd
 * doorbell, and through synchronous calls (control operations) carried by the same ring. Core events come back
 * through the on_event callback, on the progress thread. With threaded = 0 there is no thread: every call runs the
 * loop once itself (deterministic tests).
 */
#ifndef OCP_BRIDGE_H
#define OCP_BRIDGE_H
#include <stddef.h>
#include <stdint.h>

typedef struct ob_dev ob_dev;
typedef struct ob_conn ob_conn;

/* completion status, the OCP side turns it into enum ibv_wc_status */
enum {
    OB_ST_OK = 0, OB_ST_RETRY_EXC, OB_ST_REM_ACCESS, OB_ST_REM_INV, OB_ST_REM_OP, OB_ST_FLUSH, OB_ST_LOC_ACCESS,
    OB_ST_LOC_INV, OB_ST_GENERAL
};
enum { OB_EVT_SEND_DONE = 1, OB_EVT_RECV_IMM, OB_EVT_CONN_ERROR, OB_EVT_EV_STATE, OB_EVT_EP_RSP, OB_EVT_EP_TIMEOUT };

typedef struct ob_evt {
    int kind;          /* OB_EVT_* */
    int status;        /* OB_ST_* */
    void *conn_user;   /* the user pointer given to ob_conn_create (NULL for endpoint events) */
    uint32_t qpn;
    uint64_t wr_id;
    uint32_t imm;      /* host order */
    uint32_t byte_len;
    /* EV_STATE */
    uint64_t profile_id;
    uint32_t ev;       /* the EV's entropy value (UDP source port for UDP formats) */
    uint8_t ev_val[32]; /* the EV as the controller wrote it (profile array entry), when the profile has one */
    uint32_t ev_index;
    uint8_t port;
    uint32_t state;    /* 1 GOOD, 2 ASSUMED_BAD (the OCP values) */
    uint32_t drop_count;
    /* EP_RSP / EP_TIMEOUT */
    uint16_t req_id;
    uint32_t rtt_ns;
    uint8_t adj_svc_time;
} ob_evt;

enum { OB_CAR_UDP = 0, OB_CAR_IBV = 1 };
typedef struct ob_cfg {
    int carrier;       /* OB_CAR_UDP: a soft device, UDP sockets; OB_CAR_IBV: an RDMA device, ports/ibverbs' raw QPs */
    uint32_t ip;       /* UDP: IPv4, network order (IBV: the port's address, filled in by ob_dev_open) */
    uint16_t udp_port; /* UDP: plane p binds udp_port + p - 1 (IBV: the flow rules' UDP port, filled in) */
    unsigned planes;   /* 1..8 */
    char ibv_dev[64];  /* IBV: the device's name (its port 1 carries every plane) */
    char ibv_extra[128]; /* IBV: more ports/ibverbs options ("dport=N,vlan=TCI,gid=N,..."), from MRC_OCP_IBV */
    int threaded;      /* 1: a progress thread; 0: inline */
    uint64_t seed;
    void *vctx;        /* handed back to mr_lookup */
    int (*mr_lookup)(void *vctx, uint32_t rkey, void **addr, uint64_t *iova, uint64_t *len, int *remote_write);
    unsigned long (*mr_generation)(void *vctx); /* moves when a registration goes away; NULL: never checked */
    void (*on_event)(void *user, const ob_evt *e);
    void *user;
} ob_cfg;

/* 0 or an errno value; err gets a one-line reason. */
int ob_dev_open(ob_dev **out, const ob_cfg *cfg, char *err, size_t errlen);
/* The device's address and port as the carrier found them (IBV: the RDMA port's). */
void ob_dev_addr(const ob_dev *d, uint32_t *ip, uint16_t *udp_port);
/* The ports/ibverbs spec of a NIC-mode device: "dev:1,carrier=raw[,extra]". 0, or -1 (bad name, too long). */
int ob_ibv_spec(char *buf, size_t n, const char *dev, const char *extra);
/* The MAC of ip in the text of /proc/net/arp (complete entries only). 0, or -1. */
int ob_arp_find(const char *text, uint32_t ip, uint8_t mac[6]);
void ob_dev_close(ob_dev *d);
/* Inline mode: run the loop once (receive, timers, transmit, events). Threaded mode: no-op. */
void ob_dev_progress(ob_dev *d);
int ob_dev_threaded(const ob_dev *d);

/* ---- posts (any thread; lock-free for the progress thread) ---- */
typedef struct ob_write {
    uint64_t wr_id;
    const void *buf;
    uint32_t len;
    uint64_t remote_va;
    uint32_t rkey;
    uint32_t imm;      /* host order */
    uint8_t with_imm, solicited;
} ob_write;
/* 0 or ENOMEM (the device's ring is full). Errors of the core come back as completions. */
int ob_post_write(ob_conn *c, const ob_write *w);
int ob_post_recv(ob_conn *c, uint64_t wr_id);

/* ---- QPs (synchronous; run on the progress thread) ---- */
enum { OB_QPS_RESET = 0, OB_QPS_INIT, OB_QPS_RTR, OB_QPS_RTS, OB_QPS_ERR };
typedef struct ob_conn_attr {
    int state;
    uint64_t ev_profile_id, cc_profile_id;
    uint32_t dest_qpn, rq_psn, sq_psn, path_mtu;
    uint8_t mpr_dest, mpr;
    uint16_t max_wimm_dest, max_wimm;
    uint32_t caps;
    uint32_t peer_ip;    /* network order */
    uint16_t peer_port;  /* the peer's plane-1 UDP port */
    uint8_t retry_linear, retry_exp, timeout;
    uint32_t hint_qps_per_peer, hint_send_peers, hint_remote_recv_peers;
    uint32_t access_remote_write;
} ob_conn_attr;
void ob_conn_attr_default(ob_conn_attr *a);
int ob_conn_create(ob_dev *d, void *user, ob_conn **out, uint32_t *qpn);
/* Walk to a->state with every attribute of that transition (the caller fills defaults). 0 or errno; why gets the
 * core's reason. */
int ob_conn_modify(ob_conn *c, const ob_conn_attr *a, char *why, size_t whylen);
int ob_conn_query(ob_conn *c, ob_conn_attr *a);
int ob_conn_destroy(ob_conn *c);

/* ---- controller ---- */
int ob_port_set(ob_dev *d, unsigned port, int up);
int ob_port_get(ob_dev *d, unsigned port, int *up);
/* NSCC's parameters: the same names in OCP's struct mrc_ctl_cc_nscc_cfg, the core's mrc_nscc_cfg and ob_cc_attr,
 * so one list copies any of them into any other: OB_NSCC_FIELDS(OB_COPY) with dst and src in scope. */
#define OB_NSCC_FIELDS(X)                                                                                           \
    X(disable_qa) X(qa_gate) X(adjust_bytes_threshold) X(adjust_period_threshold) X(base_rtt) X(max_cwnd)           \
    X(qa_threshold) X(target_delay) X(eta) X(fi) X(fi_scale) X(gamma) X(max_md_jump)
#define OB_COPY(f) (dst)->f = (src)->f;
typedef struct ob_cc_attr {
    int state;
    const char *algorithm; /* NULL: none */
    int has_nscc;
    uint8_t disable_qa, qa_gate;
    uint32_t adjust_bytes_threshold, adjust_period_threshold, base_rtt, max_cwnd, qa_threshold, target_delay;
    float eta, fi, fi_scale, gamma, max_md_jump;
} ob_cc_attr;
enum { OB_CC_STATE = 1, OB_CC_ALGORITHM = 2, OB_CC_CONFIG = 4 };
int ob_cc_modify(ob_dev *d, uint64_t id, const ob_cc_attr *a, unsigned mask);
int ob_cc_query(ob_dev *d, uint64_t id, ob_cc_attr *a);

#define OB_MAX_FIELDS 8
typedef struct ob_fmt_attr { int state, mode, nfields; uint8_t width[OB_MAX_FIELDS]; } ob_fmt_attr;
enum { OB_FMT_STATE = 1, OB_FMT_MODE = 2, OB_FMT_FIELDS = 4 };
int ob_fmt_modify(ob_dev *d, uint64_t id, const ob_fmt_attr *a, unsigned mask);
int ob_fmt_query(ob_dev *d, uint64_t id, ob_fmt_attr *a);

/* an EV field: the same names in OCP's mrc_ctl_ev_field, the core's mrc_ev_field and ob_field */
#define OB_EV_FIELD_FIELDS(X) X(width) X(init_val) X(min_val) X(max_val) X(mask)
typedef struct ob_field { uint32_t width, init_val, min_val, max_val, mask; } ob_field;
typedef struct ob_prof_attr {
    int state, mode, nfields;
    uint64_t fmt_id;
    uint32_t ev_count, ev_min_active, event_mask;
    ob_field field[OB_MAX_FIELDS];
} ob_prof_attr;
enum { OB_PROF_STATE = 1, OB_PROF_MODE = 2, OB_PROF_FMT_ID = 4, OB_PROF_COUNT = 8, OB_PROF_MIN_ACTIVE = 16,
       OB_PROF_EVENT_MASK = 32, OB_PROF_FIELDS = 64 };
int ob_prof_modify(ob_dev *d, uint64_t id, const ob_prof_attr *a, unsigned mask);
int ob_prof_query(ob_dev *d, uint64_t id, ob_prof_attr *a);
typedef struct ob_ev_entry { uint8_t val[32]; uint8_t port; uint8_t new_val[32]; uint8_t new_port; uint32_t state, flags; } ob_ev_entry;
/* op: 0 REPLACE, 1 MODIFY_STATE, 2 QUERY_STATE, 3 QUERY_ARRAY (as OCP's). *n in: entries, out: done/needed. */
int ob_ev_op(ob_dev *d, uint64_t prof_id, int op, ob_ev_entry *e, uint32_t *n);

/* endpoint request: an EV probe (op 0) or port status update (op 1, OCP numbering) to (ip, udp_port) */
typedef struct ob_ep_req {
    uint16_t req_id;
    int op;
    uint32_t peer_ip;
    uint16_t peer_port;
    uint8_t port;
    uint32_t ev;
    int dscp;
    uint32_t port_status;
    uint32_t timeout_ns;
} ob_ep_req;
int ob_ep_request(ob_dev *d, const ob_ep_req *r);

/* counters for tests */
typedef struct ob_stats { uint64_t tx_pkts, rx_pkts, rx_drops, rkey_miss, bh_drops, link_trims, psu_refused; } ob_stats;
void ob_stats_get(ob_dev *d, ob_stats *s);

#endif
