/* core_calls.c - lib_mrc's QP and controller calls on the core side of bridge.h.
 *
 * Owns: translating the bridge's QP, port, CC-profile, EV-format, EV-profile, EV-operation and endpoint-request
 * calls into the core's, each run on the device's progress thread through ob_run (the core takes no locks).
 */
#define _GNU_SOURCE
#include "core_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- QPs (each runs on the progress thread through ob_run) ----------------------------------------------- */

void ob_conn_attr_default(ob_conn_attr *a) {
    mrc_conn_attr m;
    mrc_conn_attr_default(&m);
    memset(a, 0, sizeof *a);
    a->ev_profile_id = m.ev_profile_id;
    a->cc_profile_id = m.cc_profile_id;
    a->path_mtu = m.path_mtu;
    a->mpr_dest = m.mpr_dest;
    a->mpr = m.mpr;
    a->max_wimm_dest = m.max_wimm_dest;
    a->max_wimm = m.max_wimm;
    a->caps = m.caps;
    a->retry_linear = m.retry_linear;
    a->retry_exp = m.retry_exp;
    a->timeout = m.timeout;
    a->access_remote_write = (m.access & MRC_ACCESS_REMOTE_WRITE) != 0;
}

struct ob_create_args { void *user; ob_conn *c; };

static int ob_create_fn(ob_dev *d, void *arg) {
    struct ob_create_args *a = arg;
    ob_conn *c = calloc(1, sizeof *c);
    int rc;
    if (!c) return ENOMEM;
    c->dev = d;
    c->user = a->user;
    rc = mrc_conn_init(&d->ep, &c->c, ob_now());
    if (rc != MRC_OK) {
        free(c);
        return ob_errno(rc);
    }
    c->qpn = mrc_conn_qpn(&c->c);
    d->conns[d->nconns++] = c; /* mrc_conn_init admits at most MRC_MAX_CONNS */
    a->c = c;
    return 0;
}

int ob_conn_create(ob_dev *d, void *user, ob_conn **out, uint32_t *qpn) {
    struct ob_create_args a = { user, NULL };
    int rc = ob_run(d, ob_create_fn, &a);
    if (rc) return rc;
    *out = a.c;
    *qpn = a.c->qpn;
    return 0;
}

struct ob_modify_args { ob_conn *c; const ob_conn_attr *a; char *why; size_t whylen; };

static int ob_modify_fn(ob_dev *d, void *arg) {
    struct ob_modify_args *x = arg;
    const ob_conn_attr *a = x->a;
    mrc_conn_attr m;
    uint32_t mask = MRC_ATTR_STATE;
    int rc;
    mrc_conn_attr_default(&m);
    m.state = (uint8_t)a->state;
    switch (a->state) {
    case OB_QPS_INIT:
        mask |= MRC_ATTR_INIT_MASK;
        m.ev_profile_id = a->ev_profile_id;
        m.cc_profile_id = a->cc_profile_id;
        m.access = a->access_remote_write ? MRC_ACCESS_REMOTE_WRITE : 0;
        m.hint.num_qps_per_peer = a->hint_qps_per_peer;
        m.hint.num_send_peers = a->hint_send_peers;
        m.hint.num_remote_recv_peers = a->hint_remote_recv_peers;
        break;
    case OB_QPS_RTR:
        mask |= MRC_ATTR_RTR_MASK;
        m.dest_qpn = a->dest_qpn;
        m.rq_psn = a->rq_psn & MRC_PSN_MASK;
        m.path_mtu = a->path_mtu;
        m.mpr_dest = a->mpr_dest;
        m.max_wimm_dest = a->max_wimm_dest;
        m.caps = a->caps;
        m.peer = ob_peer_handle(d, a->peer_ip, a->peer_port);
        if (!m.peer) return ob_peer_errno(d);
        x->c->peer = m.peer;
        break;
    case OB_QPS_RTS:
        mask |= MRC_ATTR_RTS_MASK;
        m.sq_psn = a->sq_psn & MRC_PSN_MASK;
        m.mpr = a->mpr;
        m.max_wimm = a->max_wimm;
        m.retry_linear = a->retry_linear;
        m.retry_exp = a->retry_exp;
        m.timeout = a->timeout;
        break;
    default: break;
    }
    rc = mrc_conn_modify(&x->c->c, &m, mask, ob_now());
    if (rc != MRC_OK && x->why && x->whylen) {
        mrc_detail det;
        mrc_endpoint_last_error(&d->ep, &det);
        mrc_detail_format(&det, x->why, x->whylen);
    }
    return ob_errno(rc);
}

int ob_conn_modify(ob_conn *c, const ob_conn_attr *a, char *why, size_t whylen) {
    struct ob_modify_args x = { c, a, why, whylen };
    return ob_run(c->dev, ob_modify_fn, &x);
}

struct ob_query_args { ob_conn *c; ob_conn_attr *a; };

static int ob_query_fn(ob_dev *d, void *arg) {
    struct ob_query_args *x = arg;
    mrc_conn_attr m;
    ob_conn_attr *a = x->a;
    int rc = mrc_conn_query(&x->c->c, &m);
    if (rc != MRC_OK) return ob_errno(rc);
    memset(a, 0, sizeof *a);
    a->state = m.state;
    a->ev_profile_id = m.ev_profile_id;
    a->cc_profile_id = m.cc_profile_id;
    a->dest_qpn = m.dest_qpn;
    a->rq_psn = m.rq_psn;
    a->sq_psn = m.sq_psn;
    a->path_mtu = m.path_mtu;
    a->mpr_dest = m.mpr_dest;
    a->mpr = m.mpr;
    a->max_wimm_dest = m.max_wimm_dest;
    a->max_wimm = m.max_wimm;
    a->caps = m.caps;
    if (m.peer >= 1 && m.peer <= d->npeers) {
        a->peer_ip = d->peer[m.peer].ip;
        a->peer_port = d->peer[m.peer].port;
    }
    a->retry_linear = m.retry_linear;
    a->retry_exp = m.retry_exp;
    a->timeout = m.timeout;
    a->hint_qps_per_peer = m.hint.num_qps_per_peer;
    a->hint_send_peers = m.hint.num_send_peers;
    a->hint_remote_recv_peers = m.hint.num_remote_recv_peers;
    a->access_remote_write = (m.access & MRC_ACCESS_REMOTE_WRITE) != 0;
    return 0;
}

int ob_conn_query(ob_conn *c, ob_conn_attr *a) {
    struct ob_query_args x = { c, a };
    return ob_run(c->dev, ob_query_fn, &x);
}

static int ob_destroy_fn(ob_dev *d, void *arg) {
    ob_conn *c = arg;
    int st = mrc_conn_state(&c->c), rc;
    unsigned i;
    ob_unpark_conn(d, c); /* posts that never reached the core: flushed */
    if (getenv("MRC_OCP_DEBUG")) {
        mrc_conn_stats cs;
        mrc_endpoint_stats es;
        mrc_conn_stats_get(&c->c, &cs);
        mrc_endpoint_stats_get(&d->ep, &es);
        fprintf(stderr, "lib_mrc: qp 0x%x: tx_data %llu rtx %llu (rto %llu tlp %llu nack %llu hole %llu) rx_data %llu "
                        "tx_sack %llu rx_sack %llu; endpoint rx_drops %llu; carrier black-holed %llu, trimmed at a full "
                        "link queue %llu\n",
                c->qpn, (unsigned long long)cs.tx_data, (unsigned long long)cs.tx_rtx,
                (unsigned long long)cs.rto_fired, (unsigned long long)cs.tlp_fired, (unsigned long long)cs.rtx_nack,
                (unsigned long long)cs.rtx_sack_hole, (unsigned long long)cs.rx_data, (unsigned long long)cs.tx_sack,
                (unsigned long long)cs.rx_sack, (unsigned long long)es.rx_drops, (unsigned long long)d->st.bh_drops,
                (unsigned long long)d->st.link_trims);
        fprintf(stderr, "lib_mrc: qp 0x%x: spurious %llu reorder-timer %llu; EVs demoted %llu (withheld %llu), losses "
                        "the host's %llu; sweeps %llu: verified %llu, failed %llu; revived %llu, probes %llu (%llu "
                        "answered, %llu failed); confirmed losses taken back %llu\n",
                c->qpn, (unsigned long long)cs.rtx_spurious, (unsigned long long)cs.rtx_reo_timer,
                (unsigned long long)cs.ev_demoted, (unsigned long long)cs.ev_withheld,
                (unsigned long long)cs.ev_loss_host, (unsigned long long)cs.ev_sweeps,
                (unsigned long long)cs.ev_verified, (unsigned long long)cs.ev_ver_failed,
                (unsigned long long)cs.ev_revived, (unsigned long long)cs.ev_probes,
                (unsigned long long)cs.ev_probe_ok, (unsigned long long)cs.ev_probe_fail,
                (unsigned long long)cs.ev_unconfirmed);
    }
    if (st != MRC_QPS_RESET && st != MRC_QPS_ERR) {
        mrc_conn_attr m;
        mrc_conn_attr_default(&m);
        m.state = MRC_QPS_ERR;
        mrc_conn_modify(&c->c, &m, MRC_ATTR_STATE, ob_now());
    }
    rc = mrc_conn_destroy(&c->c);
    if (rc != MRC_OK) return ob_errno(rc);
    for (i = 0; i < d->nconns; i++)
        if (d->conns[i] == c) d->conns[i] = d->conns[--d->nconns];
    free(c);
    return 0;
}

int ob_conn_destroy(ob_conn *c) {
    /* the ring is in order: when this call runs on the thread, every post made before it has reached the core (or
     * been failed), so no operation naming c is left behind */
    return ob_run(c->dev, ob_destroy_fn, c);
}

/* ---- controller ------------------------------------------------------------------------------------------ */

struct ob_port_args { unsigned port; int up; };

static int ob_port_set_fn(ob_dev *d, void *arg) {
    struct ob_port_args *x = arg;
    return ob_errno(mrc_endpoint_port_set(&d->ep, x->port, x->up != 0, ob_now()));
}
static int ob_port_get_fn(ob_dev *d, void *arg) {
    struct ob_port_args *x = arg;
    if (x->port < 1 || x->port > d->cfg.planes) return EINVAL;
    x->up = mrc_endpoint_port_up(&d->ep, x->port);
    return 0;
}
int ob_port_set(ob_dev *d, unsigned port, int up) {
    struct ob_port_args x = { port, up };
    if (port < 1 || port > d->cfg.planes) return EINVAL;
    return ob_run(d, ob_port_set_fn, &x);
}
int ob_port_get(ob_dev *d, unsigned port, int *up) {
    struct ob_port_args x = { port, 0 };
    int rc = ob_run(d, ob_port_get_fn, &x);
    *up = x.up;
    return rc;
}

/* a profile call (CC, EV Format, EV) run on the progress thread: the profile, what to set or where to put it */
struct ob_pargs { uint64_t id; const void *in; void *out; unsigned mask; };

static int ob_prun(ob_dev *d, int (*fn)(ob_dev *, void *), uint64_t id, const void *in, void *out, unsigned mask) {
    struct ob_pargs x;
    x.id = id;
    x.in = in;
    x.out = out;
    x.mask = mask;
    return ob_run(d, fn, &x);
}

static int ob_cc_modify_fn(ob_dev *d, void *arg) {
    struct ob_pargs *x = arg;
    const ob_cc_attr *in = x->in;
    mrc_cc_profile_attr m;
    uint32_t mask = 0;
    memset(&m, 0, sizeof m);
    m.state = (uint8_t)in->state;
    m.algorithm = in->algorithm;
    if (in->has_nscc) {
        mrc_nscc_cfg *dst = &m.nscc;
        const ob_cc_attr *src = in;
        OB_NSCC_FIELDS(OB_COPY)
    }
    if (x->mask & OB_CC_STATE) mask |= MRC_CC_PROF_ATTR_STATE;
    if (x->mask & OB_CC_ALGORITHM) mask |= MRC_CC_PROF_ATTR_ALGORITHM;
    if (x->mask & OB_CC_CONFIG) mask |= MRC_CC_PROF_ATTR_CONFIG;
    return ob_errno(mrc_cc_profile_modify(&d->ep, x->id, &m, mask));
}
static int ob_cc_query_fn(ob_dev *d, void *arg) {
    struct ob_pargs *x = arg;
    ob_cc_attr *out = x->out;
    mrc_cc_profile_attr m;
    int rc = mrc_cc_profile_query(&d->ep, x->id, &m);
    if (rc != MRC_OK) return ob_errno(rc);
    memset(out, 0, sizeof *out);
    out->state = m.state;
    out->algorithm = m.algorithm;
    out->has_nscc = m.algorithm && strcmp(m.algorithm, MRC_CC_NSCC) == 0;
    {
        ob_cc_attr *dst = out;
        const mrc_nscc_cfg *src = &m.nscc;
        OB_NSCC_FIELDS(OB_COPY)
    }
    return 0;
}
int ob_cc_modify(ob_dev *d, uint64_t id, const ob_cc_attr *a, unsigned mask) {
    return ob_prun(d, ob_cc_modify_fn, id, a, NULL, mask);
}
int ob_cc_query(ob_dev *d, uint64_t id, ob_cc_attr *a) { return ob_prun(d, ob_cc_query_fn, id, NULL, a, 0); }

static int ob_fmt_modify_fn(ob_dev *d, void *arg) {
    struct ob_pargs *x = arg;
    const ob_fmt_attr *in = x->in;
    mrc_ev_fmt_attr m;
    uint32_t mask = 0;
    int i;
    memset(&m, 0, sizeof m);
    m.state = (uint8_t)in->state;
    m.mode = (uint8_t)in->mode;
    m.nfields = (uint8_t)in->nfields;
    for (i = 0; i < in->nfields && i < OB_MAX_FIELDS; i++) m.width[i] = in->width[i];
    if (x->mask & OB_FMT_STATE) mask |= MRC_EV_FMT_ATTR_STATE;
    if (x->mask & OB_FMT_MODE) mask |= MRC_EV_FMT_ATTR_MODE;
    if (x->mask & OB_FMT_FIELDS) mask |= MRC_EV_FMT_ATTR_FIELDS;
    return ob_errno(mrc_ev_fmt_modify(&d->ep, x->id, &m, mask));
}
static int ob_fmt_query_fn(ob_dev *d, void *arg) {
    struct ob_pargs *x = arg;
    ob_fmt_attr *out = x->out;
    mrc_ev_fmt_attr m;
    int rc = mrc_ev_fmt_query(&d->ep, x->id, &m), i;
    if (rc != MRC_OK) return ob_errno(rc);
    memset(out, 0, sizeof *out);
    out->state = m.state;
    out->mode = m.mode;
    out->nfields = m.nfields;
    for (i = 0; i < m.nfields && i < OB_MAX_FIELDS; i++) out->width[i] = m.width[i];
    return 0;
}
int ob_fmt_modify(ob_dev *d, uint64_t id, const ob_fmt_attr *a, unsigned mask) {
    return a->nfields > OB_MAX_FIELDS ? E2BIG : ob_prun(d, ob_fmt_modify_fn, id, a, NULL, mask);
}
int ob_fmt_query(ob_dev *d, uint64_t id, ob_fmt_attr *a) { return ob_prun(d, ob_fmt_query_fn, id, NULL, a, 0); }

static int ob_prof_modify_fn(ob_dev *d, void *arg) {
    struct ob_pargs *x = arg;
    const ob_prof_attr *in = x->in;
    mrc_ev_profile_attr m;
    uint32_t mask = 0;
    int i;
    memset(&m, 0, sizeof m);
    m.state = (uint8_t)in->state;
    m.mode = (uint8_t)in->mode;
    m.nfields = (uint8_t)in->nfields;
    m.fmt_id = in->fmt_id;
    m.ev_count = in->ev_count;
    m.ev_min_active = in->ev_min_active;
    m.event_mask = in->event_mask;
    for (i = 0; i < in->nfields && i < OB_MAX_FIELDS; i++) {
        {
            mrc_ev_field *dst = &m.field[i];
            const ob_field *src = &in->field[i];
            OB_EV_FIELD_FIELDS(OB_COPY)
        }
    }
    if (x->mask & OB_PROF_STATE) mask |= MRC_EV_PROF_ATTR_STATE;
    if (x->mask & OB_PROF_MODE) mask |= MRC_EV_PROF_ATTR_MODE;
    if (x->mask & OB_PROF_FMT_ID) mask |= MRC_EV_PROF_ATTR_FMT_ID;
    if (x->mask & OB_PROF_COUNT) mask |= MRC_EV_PROF_ATTR_COUNT;
    if (x->mask & OB_PROF_MIN_ACTIVE) mask |= MRC_EV_PROF_ATTR_MIN_ACTIVE;
    if (x->mask & OB_PROF_EVENT_MASK) mask |= MRC_EV_PROF_ATTR_EVENT_MASK;
    if (x->mask & OB_PROF_FIELDS) mask |= MRC_EV_PROF_ATTR_FIELDS;
    return ob_errno(mrc_ev_profile_modify(&d->ep, x->id, &m, mask, ob_now()));
}
static int ob_prof_query_fn(ob_dev *d, void *arg) {
    struct ob_pargs *x = arg;
    ob_prof_attr *out = x->out;
    mrc_ev_profile_attr m;
    int rc = mrc_ev_profile_query(&d->ep, x->id, &m), i;
    if (rc != MRC_OK) return ob_errno(rc);
    memset(out, 0, sizeof *out);
    out->state = m.state;
    out->mode = m.mode;
    out->nfields = m.nfields > OB_MAX_FIELDS ? OB_MAX_FIELDS : m.nfields;
    out->fmt_id = m.fmt_id;
    out->ev_count = m.ev_count;
    out->ev_min_active = m.ev_min_active;
    out->event_mask = m.event_mask;
    for (i = 0; i < out->nfields; i++) {
        {
            ob_field *dst = &out->field[i];
            const mrc_ev_field *src = &m.field[i];
            OB_EV_FIELD_FIELDS(OB_COPY)
        }
    }
    return 0;
}
int ob_prof_modify(ob_dev *d, uint64_t id, const ob_prof_attr *a, unsigned mask) {
    return a->nfields > OB_MAX_FIELDS ? E2BIG : ob_prun(d, ob_prof_modify_fn, id, a, NULL, mask);
}
int ob_prof_query(ob_dev *d, uint64_t id, ob_prof_attr *a) { return ob_prun(d, ob_prof_query_fn, id, NULL, a, 0); }

struct ob_evop_args { uint64_t id; int op; ob_ev_entry *e; uint32_t *n; };

static int ob_evop_fn(ob_dev *d, void *arg) {
    struct ob_evop_args *x = arg;
    uint32_t n = *x->n, i;
    mrc_ev_op_entry *m = calloc(n ? n : 1, sizeof *m);
    int rc;
    if (!m) return ENOMEM;
    for (i = 0; i < n; i++) {
        memcpy(m[i].ev.val, x->e[i].val, MRC_EV_BYTES);
        m[i].ev.port = x->e[i].port;
        memcpy(m[i].ev_new.val, x->e[i].new_val, MRC_EV_BYTES);
        m[i].ev_new.port = x->e[i].new_port;
        m[i].state = x->e[i].state;
        m[i].flags = x->e[i].flags;
    }
    rc = mrc_ev_op(&d->ep, x->id, (unsigned)x->op, m, x->n, ob_now());
    for (i = 0; i < n && i < *x->n; i++) {
        memcpy(x->e[i].val, m[i].ev.val, MRC_EV_BYTES);
        x->e[i].port = m[i].ev.port;
        x->e[i].state = m[i].state;
    }
    free(m);
    return ob_errno(rc);
}
int ob_ev_op(ob_dev *d, uint64_t prof_id, int op, ob_ev_entry *e, uint32_t *n) {
    struct ob_evop_args x = { prof_id, op, e, n };
    return ob_run(d, ob_evop_fn, &x);
}

static int ob_ep_fn(ob_dev *d, void *arg) {
    const ob_ep_req *r = arg;
    mrc_ep_req m;
    memset(&m, 0, sizeof m);
    m.req_id = r->req_id;
    m.op = r->op == 0 ? MRC_EPOP_EV_PROBE : MRC_EPOP_PORT_STATUS_UPDATE;
    m.port = r->port;
    m.dscp = (int16_t)r->dscp;
    m.ev_fmt = MRC_EV_FMT_UDP;
    m.peer = ob_peer_handle(d, r->peer_ip, r->peer_port);
    if (!m.peer) return ob_peer_errno(d);
    m.ev = r->ev;
    m.port_status = r->port_status;
    m.timeout_ns = r->timeout_ns;
    return ob_errno(mrc_endpoint_ep_request(&d->ep, &m, ob_now()));
}
int ob_ep_request(ob_dev *d, const ob_ep_req *r) { return ob_run(d, ob_ep_fn, (void *)(uintptr_t)r); }
