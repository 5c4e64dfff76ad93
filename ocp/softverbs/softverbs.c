/* softverbs.c - a stand-in libibverbs.so.1 exposing "soft" MRC devices, for machines without an RDMA device.
 *
 * libibverbs lists only devices the kernel reports, so an OCP MRC program (which gets its device, protection
 * domain and memory registrations from verbs) cannot run over UDP with the real library. This library has the
 * same soname and symbol versions as rdma-core's and implements the verbs such programs call: device list and
 * names, open/close, device and port and GID queries (ibv_query_gid_ex too), PDs, memory registration (ibv_reg_mr,
 * ibv_reg_mr_iova2), ibv_wc_status_str, ibv_port_state_str. The verbs of queues (CQs, QPs, AHs, completion
 * channels) are there and fail with EOPNOTSUPP: soft devices have none. lib_mrc.so finds it through its run path or LD_LIBRARY_PATH; on a machine with a NIC, use
 * the real library instead.
 *
 * Devices come from MRC_SOFT_DEVICES, a comma-separated list of name=address[:udp_port][/planes]
 * (default "mrcudp0=127.0.0.1,mrcudp1=127.0.0.2", UDP port MRC_SOFT_PORT or 4791, 1 plane). Each plane is one
 * verbs port (1-based) and one UDP port (udp_port + plane - 1). GID indexes 0-3 of every port carry the address:
 * bytes 8-9 the UDP port, 10-11 0xffff, 12-15 the IPv4 address.
 *
 * lib_mrc asks for registrations by rkey through mrc_softverbs_mr_lookup, and whether any was deregistered since
 * through mrc_softverbs_mr_generation (version MRC_SOFTVERBS_1.0), which it finds with dlsym so that it also loads
 * beside the real libibverbs. MIT licence.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SV_MAX_DEVS 16
#define SV_MAX_PLANES 8
#define SV_GIDS 4 /* every index gives the same GID (programs default to index 3, RoCEv2 over IPv4) */

struct sv_device {
    struct ibv_device dev; /* first: ibv_device pointers are sv_device pointers */
    uint32_t ip;           /* network order */
    uint16_t udp_port;
    unsigned planes;
};

struct sv_mr {
    struct ibv_mr mr;
    uint64_t iova;
    int access;
    struct sv_mr *next;
};

struct sv_context {
    struct ibv_context ctx; /* first */
    struct sv_device *sd;
    pthread_mutex_t lock;
    struct sv_mr *mrs;
    uint32_t next_key;
    int npd;
    unsigned long dereg_gen; /* bumped by every ibv_dereg_mr (lib_mrc drops its cached registrations) */
};

static pthread_once_t sv_once = PTHREAD_ONCE_INIT;
static struct sv_device sv_devs[SV_MAX_DEVS];
static int sv_ndevs;

static int sv_parse_one(const char *spec, unsigned default_port) {
    char buf[128], *eq, *slash, *colon;
    struct sv_device *d;
    struct in_addr a;
    unsigned long v;
    if (sv_ndevs >= SV_MAX_DEVS || strlen(spec) >= sizeof buf) return -1;
    strcpy(buf, spec);
    eq = strchr(buf, '=');
    if (!eq || eq == buf || (size_t)(eq - buf) >= IBV_SYSFS_NAME_MAX) return -1;
    *eq++ = 0;
    d = &sv_devs[sv_ndevs];
    memset(d, 0, sizeof *d);
    d->planes = 1;
    d->udp_port = (uint16_t)default_port;
    slash = strchr(eq, '/');
    if (slash) {
        *slash++ = 0;
        v = strtoul(slash, NULL, 10);
        if (v < 1 || v > SV_MAX_PLANES) return -1;
        d->planes = (unsigned)v;
    }
    colon = strchr(eq, ':');
    if (colon) {
        *colon++ = 0;
        v = strtoul(colon, NULL, 10);
        if (v < 1 || v + d->planes > 65536) return -1;
        d->udp_port = (uint16_t)v;
    }
    if (inet_pton(AF_INET, eq, &a) != 1) return -1;
    d->ip = a.s_addr;
    d->dev.node_type = IBV_NODE_CA;
    d->dev.transport_type = IBV_TRANSPORT_IB;
    memcpy(d->dev.name, buf, strlen(buf) + 1); /* shorter than IBV_SYSFS_NAME_MAX: checked above */
    snprintf(d->dev.dev_name, sizeof d->dev.dev_name, "softmrc%d", sv_ndevs);
    snprintf(d->dev.dev_path, sizeof d->dev.dev_path, "/nonexistent/softmrc%d", sv_ndevs);
    snprintf(d->dev.ibdev_path, sizeof d->dev.ibdev_path, "/nonexistent/%.*s", IBV_SYSFS_NAME_MAX - 1, buf);
    sv_ndevs++;
    return 0;
}

static void sv_init(void) {
    const char *env = getenv("MRC_SOFT_DEVICES"), *pe = getenv("MRC_SOFT_PORT");
    char list[1024], *save = NULL, *tok;
    unsigned port = 4791;
    if (pe && *pe) {
        unsigned long v = strtoul(pe, NULL, 10);
        if (v >= 1 && v < 65536) port = (unsigned)v;
    }
    if (!env || !*env) env = "mrcudp0=127.0.0.1,mrcudp1=127.0.0.2";
    snprintf(list, sizeof list, "%s", env);
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (sv_parse_one(tok, port) != 0) fprintf(stderr, "softverbs: ignoring bad device spec \"%s\"\n", tok);
}

struct ibv_device **ibv_get_device_list(int *num_devices) {
    struct ibv_device **l;
    int i;
    pthread_once(&sv_once, sv_init);
    l = calloc((size_t)sv_ndevs + 1, sizeof *l);
    if (!l) {
        errno = ENOMEM;
        return NULL;
    }
    for (i = 0; i < sv_ndevs; i++) l[i] = &sv_devs[i].dev;
    if (num_devices) *num_devices = sv_ndevs;
    return l;
}

void ibv_free_device_list(struct ibv_device **list) { free(list); }

const char *ibv_get_device_name(struct ibv_device *device) { return device ? device->name : NULL; }

__be64 ibv_get_device_guid(struct ibv_device *device) {
    struct sv_device *d = (struct sv_device *)device;
    return d ? (__be64)(((uint64_t)d->ip << 16) | d->udp_port) : 0;
}

struct ibv_context *ibv_open_device(struct ibv_device *device) {
    struct sv_context *c;
    if (!device) {
        errno = EINVAL;
        return NULL;
    }
    c = calloc(1, sizeof *c);
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    c->sd = (struct sv_device *)device;
    c->ctx.device = device;
    c->ctx.cmd_fd = -1;
    c->ctx.async_fd = -1;
    c->ctx.num_comp_vectors = 1;
    c->ctx.abi_compat = NULL; /* not an extended context: the inline verbs take the exported functions */
    pthread_mutex_init(&c->ctx.mutex, NULL);
    pthread_mutex_init(&c->lock, NULL);
    c->next_key = 0x100;
    return &c->ctx;
}

int ibv_close_device(struct ibv_context *context) {
    struct sv_context *c = (struct sv_context *)context;
    struct sv_mr *m, *n;
    if (!c) return EINVAL;
    for (m = c->mrs; m; m = n) {
        n = m->next;
        free(m);
    }
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_destroy(&c->ctx.mutex);
    free(c);
    return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr) {
    struct sv_context *c = (struct sv_context *)context;
    if (!c || !attr) return EINVAL;
    memset(attr, 0, sizeof *attr);
    snprintf(attr->fw_ver, sizeof attr->fw_ver, "open-mrc-softverbs");
    attr->node_guid = ibv_get_device_guid(context->device);
    attr->max_mr_size = UINT64_MAX;
    attr->page_size_cap = 4096;
    attr->vendor_id = 0;
    attr->max_qp = 64;
    attr->max_qp_wr = 4096;
    attr->max_sge = 16;
    attr->max_cq = 256;
    attr->max_cqe = 65536;
    attr->max_mr = 64;
    attr->max_pd = 64;
    attr->phys_port_cnt = (uint8_t)c->sd->planes;
    return 0;
}

/* The exported ibv_query_port: reached through the inline wrapper of verbs.h because abi_compat is not the
 * extended marker; it has zeroed the caller's struct and gives us room for the compat layout (up to link_layer). */
#undef ibv_query_port
int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *port_attr) {
    struct sv_context *c = (struct sv_context *)context;
    struct ibv_port_attr a;
    if (!c || !port_attr || port_num < 1 || port_num > c->sd->planes) return EINVAL;
    memset(&a, 0, sizeof a);
    a.state = IBV_PORT_ACTIVE;
    a.max_mtu = IBV_MTU_4096;
    a.active_mtu = IBV_MTU_4096;
    a.gid_tbl_len = SV_GIDS;
    a.max_msg_sz = 0x80000000u;
    a.pkey_tbl_len = 1;
    a.active_width = 1;
    a.active_speed = 1;
    a.phys_state = 5; /* LinkUp */
    a.link_layer = IBV_LINK_LAYER_ETHERNET;
    memcpy(port_attr, &a, offsetof(struct ibv_port_attr, link_layer) + 1);
    return 0;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid) {
    struct sv_context *c = (struct sv_context *)context;
    uint16_t p;
    if (!c || !gid || port_num < 1 || port_num > c->sd->planes || index < 0 || index >= SV_GIDS) return -1;
    memset(gid, 0, sizeof *gid);
    p = c->sd->udp_port;
    gid->raw[8] = (uint8_t)(p >> 8);
    gid->raw[9] = (uint8_t)p;
    gid->raw[10] = 0xff;
    gid->raw[11] = 0xff;
    memcpy(&gid->raw[12], &c->sd->ip, 4);
    return 0;
}

/* the extended GID query (ibv_query_gid_ex): the same GID, typed RoCE v2 */
int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index, struct ibv_gid_entry *entry,
                      uint32_t flags, size_t entry_size) {
    struct ibv_gid_entry e;
    memset(&e, 0, sizeof e);
    if (flags || !entry || entry_size < sizeof e || port_num > 255u || gid_index >= SV_GIDS) return EINVAL;
    if (ibv_query_gid(context, (uint8_t)port_num, (int)gid_index, &e.gid) != 0) return EINVAL;
    e.gid_index = gid_index;
    e.port_num = port_num;
    e.gid_type = IBV_GID_TYPE_ROCE_V2;
    memcpy(entry, &e, sizeof e);
    return 0;
}

const char *ibv_port_state_str(enum ibv_port_state port_state) {
    switch (port_state) {
    case IBV_PORT_NOP: return "PORT_NOP";
    case IBV_PORT_DOWN: return "PORT_DOWN";
    case IBV_PORT_INIT: return "PORT_INIT";
    case IBV_PORT_ARMED: return "PORT_ARMED";
    case IBV_PORT_ACTIVE: return "PORT_ACTIVE";
    case IBV_PORT_ACTIVE_DEFER: return "PORT_ACTIVE_DEFER";
    default: return "invalid state";
    }
}

/* Soft devices have no verbs queues: their QPs, CQs and completion channels are the MRC API's, in lib_mrc. These
 * verbs exist so that a program (or lib_mrc's NIC carrier, never reached on a soft device) that links them loads
 * beside this library, also with immediate binding; each fails as a provider without the verb does: NULL or
 * EOPNOTSUPP, errno EOPNOTSUPP. */
static void *sv_none(void) {
    errno = EOPNOTSUPP;
    return NULL;
}
static int sv_none_rc(void) {
    errno = EOPNOTSUPP;
    return EOPNOTSUPP;
}
struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context) {
    (void)context;
    return sv_none();
}
int ibv_destroy_comp_channel(struct ibv_comp_channel *channel) {
    (void)channel;
    return sv_none_rc();
}
struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context, struct ibv_comp_channel *channel,
                             int comp_vector) {
    (void)context, (void)cqe, (void)cq_context, (void)channel, (void)comp_vector;
    return sv_none();
}
int ibv_destroy_cq(struct ibv_cq *cq) {
    (void)cq;
    return sv_none_rc();
}
int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context) {
    (void)channel, (void)cq, (void)cq_context;
    sv_none_rc();
    return -1;
}
void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents) { (void)cq, (void)nevents; }
struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr) {
    (void)pd, (void)qp_init_attr;
    return sv_none();
}
int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask) {
    (void)qp, (void)attr, (void)attr_mask;
    return sv_none_rc();
}
int ibv_destroy_qp(struct ibv_qp *qp) {
    (void)qp;
    return sv_none_rc();
}
struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr) {
    (void)pd, (void)attr;
    return sv_none();
}
int ibv_destroy_ah(struct ibv_ah *ah) {
    (void)ah;
    return sv_none_rc();
}

int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey) {
    (void)port_num;
    if (!context || !pkey || index != 0) return -1;
    *pkey = 0xFFFF;
    return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context) {
    struct sv_context *c = (struct sv_context *)context;
    struct ibv_pd *pd;
    if (!c) {
        errno = EINVAL;
        return NULL;
    }
    pd = calloc(1, sizeof *pd);
    if (!pd) {
        errno = ENOMEM;
        return NULL;
    }
    pd->context = context;
    pthread_mutex_lock(&c->lock);
    pd->handle = (uint32_t)++c->npd;
    pthread_mutex_unlock(&c->lock);
    return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd) {
    struct sv_context *c;
    struct sv_mr *m;
    int busy = 0;
    if (!pd || !pd->context) return EINVAL;
    c = (struct sv_context *)pd->context;
    pthread_mutex_lock(&c->lock);
    for (m = c->mrs; m; m = m->next)
        if (m->mr.pd == pd) busy = 1;
    pthread_mutex_unlock(&c->lock);
    if (busy) return EBUSY;
    free(pd);
    return 0;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access) {
    struct sv_context *c;
    struct sv_mr *m;
    if (!pd || !pd->context || (!addr && length)) {
        errno = EINVAL;
        return NULL;
    }
    c = (struct sv_context *)pd->context;
    m = calloc(1, sizeof *m);
    if (!m) {
        errno = ENOMEM;
        return NULL;
    }
    m->mr.context = pd->context;
    m->mr.pd = pd;
    m->mr.addr = addr;
    m->mr.length = length;
    m->iova = iova;
    m->access = (int)access;
    pthread_mutex_lock(&c->lock);
    /* keys: a counter in the high bits, a check byte below; never 0 */
    c->next_key += 0x100;
    m->mr.handle = c->next_key >> 8;
    m->mr.lkey = m->mr.rkey = c->next_key | ((uint32_t)(uintptr_t)m >> 4 & 0xFFu);
    m->next = c->mrs;
    c->mrs = m;
    pthread_mutex_unlock(&c->lock);
    return &m->mr;
}

#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access) {
    return ibv_reg_mr_iova2(pd, addr, length, (uint64_t)(uintptr_t)addr, (unsigned)access);
}

int ibv_dereg_mr(struct ibv_mr *mr) {
    struct sv_context *c;
    struct sv_mr **pp;
    if (!mr || !mr->context) return EINVAL;
    c = (struct sv_context *)mr->context;
    pthread_mutex_lock(&c->lock);
    for (pp = &c->mrs; *pp; pp = &(*pp)->next)
        if (&(*pp)->mr == mr) {
            struct sv_mr *m = *pp;
            *pp = m->next;
            __atomic_add_fetch(&c->dereg_gen, 1, __ATOMIC_RELEASE);
            pthread_mutex_unlock(&c->lock);
            free(m);
            return 0;
        }
    pthread_mutex_unlock(&c->lock);
    return EINVAL;
}

const char *ibv_wc_status_str(enum ibv_wc_status status) {
    static const char *const s[] = {
        [IBV_WC_SUCCESS] = "success",
        [IBV_WC_LOC_LEN_ERR] = "local length error",
        [IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
        [IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
        [IBV_WC_LOC_PROT_ERR] = "local protection error",
        [IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
        [IBV_WC_MW_BIND_ERR] = "memory management operation error",
        [IBV_WC_BAD_RESP_ERR] = "bad response error",
        [IBV_WC_LOC_ACCESS_ERR] = "local access error",
        [IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
        [IBV_WC_REM_ACCESS_ERR] = "remote access error",
        [IBV_WC_REM_OP_ERR] = "remote operation error",
        [IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
        [IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
        [IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
        [IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
        [IBV_WC_REM_ABORT_ERR] = "aborted error",
        [IBV_WC_INV_EECN_ERR] = "invalid EE context number",
        [IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
        [IBV_WC_FATAL_ERR] = "fatal error",
        [IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
        [IBV_WC_GENERAL_ERR] = "general error",
    };
    if ((unsigned)status < sizeof s / sizeof s[0] && s[status]) return s[status];
    return "unknown";
}

/* ---- private interface for lib_mrc (version MRC_SOFTVERBS_1.0) ----------------------------------------------- */

/* The count of deregistrations so far: a registration lib_mrc looked up stays valid while this does not move. */
unsigned long mrc_softverbs_mr_generation(struct ibv_context *context);
unsigned long mrc_softverbs_mr_generation(struct ibv_context *context) {
    struct sv_context *c = (struct sv_context *)context;
    return c ? __atomic_load_n(&c->dereg_gen, __ATOMIC_ACQUIRE) : 0;
}

int mrc_softverbs_mr_lookup(struct ibv_context *context, uint32_t rkey, void **addr, uint64_t *iova,
                            uint64_t *length, int *access);
int mrc_softverbs_mr_lookup(struct ibv_context *context, uint32_t rkey, void **addr, uint64_t *iova,
                            uint64_t *length, int *access) {
    struct sv_context *c = (struct sv_context *)context;
    struct sv_mr *m;
    int rc = -1;
    if (!c) return -1;
    pthread_mutex_lock(&c->lock);
    for (m = c->mrs; m; m = m->next)
        if (m->mr.rkey == rkey) {
            *addr = m->mr.addr;
            *iova = m->iova;
            *length = m->mr.length;
            *access = m->access;
            rc = 0;
            break;
        }
    pthread_mutex_unlock(&c->lock);
    return rc;
}
