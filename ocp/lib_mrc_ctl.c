/* lib_mrc_ctl.c - OCP's MRC controller API (ocp/include/mrc_ctl.h) over the core's endpoint operations, EV
 * Format / EV profiles and CC profiles, through bridge.h.
 *
 * Owns: translation of the controller's attribute structures and masks, EV event CQs, the blocking endpoint
 * batch. Controller calls take the application's mrc_context (the API mentions an mrc_open_context it never
 * declares); no privilege check is made (a soft device has nothing to protect).
 */
#define _GNU_SOURCE
#include "lib_mrc_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *lm_algorithms[] = { "uet-1.0-nscc", "mrc-fixed-window", NULL };

/* core limits the controller reports (the core's mrc.h defaults) */
#define LM_CORE_MAX_EVS 256
#define LM_CORE_EV_FIELDS 8 /* what this layer passes through (the core takes 16) */

static int lm_ctl_dev(struct ibv_context *context, struct mrc_ctl_device_attr *a, int *supported) {
    struct mrc_device_attr da;
    int sup = 0;
    struct ibv_device_attr va;
    unsigned planes = 1;
    if (!context || !a) return lm_fail(EINVAL);
    if (mrc_query_device(context, &da, &sup) != 0) return -1;
    if (supported) *supported = sup;
    memset(a, 0, sizeof *a);
    if (!sup) return supported ? 0 : lm_fail(EOPNOTSUPP);
    if (ibv_query_device(context, &va) == 0 && va.phys_port_cnt >= 1) planes = va.phys_port_cnt > 8 ? 8 : va.phys_port_cnt;
    a->mrc_ctl_protocol_version = MRC_CTL_PROTOCOL_VERSION_1;
    a->ev.ev_max_fmt_profiles = 8;
    a->ev.ev_max_profiles = 8;
    a->ev.ev_max_count = 8 * LM_CORE_MAX_EVS;
    a->ev.ev_free_count = a->ev.ev_max_count;
    a->ev.ev_max_count_profile = LM_CORE_MAX_EVS;
    a->ev.ev_count_align = 1;
    a->ev.ev_max_width = 256;
    /* the UDP carrier puts 16 bits of entropy on the wire; STEV and SRv6 profiles are accepted and expanded by the
     * core, but only their low 16 bits reach this carrier (see ocp/README.md) */
    a->ev.ev_fmt_mode_mask = MRC_CTL_EV_FMT_MODE_UDP | MRC_CTL_EV_FMT_MODE_STEV | MRC_CTL_EV_FMT_MODE_SRV6;
    a->ev.ev_mode_mask = MRC_CTL_EV_MODE_AUTO | MRC_CTL_EV_MODE_EXP | MRC_CTL_EV_MODE_GEN;
    a->ev.ev_op_max_entries = 0;
    a->cc.cc_max_profiles = 8;
    a->cc.algorithms = lm_algorithms;
    a->phy_port_mask = ((1u << planes) - 1) << 1;
    a->opt_attr = MRC_CTL_OPT_CAP_EV_EVENT | MRC_CTL_OPT_CAP_EV_EVENT_PRECISE_DROP_CNT |
                  MRC_CTL_OPT_CAP_EP_OP_EV_PROBE | MRC_CTL_OPT_CAP_CC_PROFILE_MODIFY_ONLINE;
    return 0;
}

int mrc_ctl_query_device_ex(struct ibv_context *context, struct mrc_context *mcontext,
                            struct mrc_ctl_device_attr *ctl_attr, int *supported) {
    (void)mcontext;
    if (!supported) return lm_fail(EINVAL);
    return lm_ctl_dev(context, ctl_attr, supported);
}

int mrc_ctl_query_device(struct ibv_context *context, struct mrc_ctl_device_attr *ctl_attr) {
    return lm_ctl_dev(context, ctl_attr, NULL);
}

void mrc_ctl_query_version(uint32_t *current_version, uint32_t *last_supported_version, uint32_t *vendor_version,
                           uint32_t *last_supported_vendor_version) {
    if (current_version) *current_version = MRC_CTL_API_CURRENT_VERSION;
    if (last_supported_version) *last_supported_version = MRC_CTL_API_VER(1, 0, 0);
    if (vendor_version) *vendor_version = MRC_CTL_VENDOR_API_CURRENT_VERSION;
    if (last_supported_vendor_version) *last_supported_vendor_version = MRC_CTL_API_VER(1, 0, 0);
}

/* ---- ports ---------------------------------------------------------------------------------------------- */

int mrc_ctl_query_port(struct mrc_context *ctx, uint8_t port_num, struct mrc_ctl_port_attr *attr, int attr_mask) {
    int up = 0, rc;
    if (!ctx || !attr || (attr_mask & ~MRC_CTL_PORT_ADMIN_STATE) || port_num < 1 || port_num > ctx->planes)
        return lm_fail(EINVAL);
    if (!(attr_mask & MRC_CTL_PORT_ADMIN_STATE)) return 0;
    rc = ob_port_get(ctx->dev, port_num, &up);
    if (rc) return lm_fail(rc);
    attr->port_admin_state = up ? MRC_CTL_PORT_ADMIN_ENABLED : MRC_CTL_PORT_ADMIN_DISABLED;
    return 0;
}

int mrc_ctl_modify_port(struct mrc_context *ctx, uint8_t port_num, struct mrc_ctl_port_attr *attr, int attr_mask) {
    int rc;
    if (!ctx || !attr || (attr_mask & ~MRC_CTL_PORT_ADMIN_STATE) || port_num < 1 || port_num > ctx->planes)
        return lm_fail(EINVAL);
    if (!(attr_mask & MRC_CTL_PORT_ADMIN_STATE)) return 0;
    if (attr->port_admin_state != MRC_CTL_PORT_ADMIN_ENABLED && attr->port_admin_state != MRC_CTL_PORT_ADMIN_DISABLED)
        return lm_fail(EINVAL);
    rc = ob_port_set(ctx->dev, port_num, attr->port_admin_state == MRC_CTL_PORT_ADMIN_ENABLED);
    return rc ? lm_fail(rc) : 0;
}

/* ---- EV Format profiles --------------------------------------------------------------------------------- */

#define LM_FMT_MASK                                                                                                 \
    (MRC_CTL_EV_FMT_PROFILE_STATE | MRC_CTL_EV_FMT_PROFILE_CUR_STATE | MRC_CTL_EV_FMT_PROFILE_MODE |                \
     MRC_CTL_EV_FMT_PROFILE_OP | MRC_CTL_EV_FMT_VENDOR_CFG)

int mrc_ctl_modify_ev_fmt_profile(struct mrc_context *ctx, uint64_t id, struct mrc_ctl_ev_fmt_profile_attr *attr,
                                  int attr_mask) {
    ob_fmt_attr f;
    unsigned mask = 0;
    int i, rc;
    if (!ctx || !attr || (attr_mask & ~LM_FMT_MASK) || (attr_mask & MRC_CTL_EV_FMT_PROFILE_CUR_STATE))
        return lm_fail(EINVAL);
    memset(&f, 0, sizeof f);
    if (attr_mask & MRC_CTL_EV_FMT_PROFILE_STATE) {
        f.state = (int)attr->profile_state;
        mask |= OB_FMT_STATE;
    }
    if (attr_mask & MRC_CTL_EV_FMT_PROFILE_MODE) {
        f.mode = (int)attr->ev_fmt_mode;
        mask |= OB_FMT_MODE;
    }
    if (attr_mask & MRC_CTL_EV_FMT_PROFILE_OP) {
        if (attr->ev_fmt_op.op == MRC_CTL_EV_FMT_OP_QUERY_FIELDS) return mrc_ctl_query_ev_fmt_profile(ctx, id, attr, attr_mask & MRC_CTL_EV_FMT_PROFILE_OP);
        if (attr->ev_fmt_op.op != MRC_CTL_EV_FMT_OP_MODIFY_FIELDS || attr->ev_fmt_op.fmt_field_count < 1 ||
            !attr->ev_fmt_op.fmt_fields)
            return lm_fail(EINVAL);
        if (attr->ev_fmt_op.fmt_field_count > OB_MAX_FIELDS) return lm_fail(E2BIG);
        f.nfields = attr->ev_fmt_op.fmt_field_count;
        for (i = 0; i < f.nfields; i++) f.width[i] = attr->ev_fmt_op.fmt_fields[i].width;
        mask |= OB_FMT_FIELDS;
        if (!(mask & OB_FMT_STATE)) { /* the core changes fields with a state: keep the current one */
            ob_fmt_attr cur;
            if ((rc = ob_fmt_query(ctx->dev, id, &cur)) != 0) return lm_fail(rc);
            f.state = cur.state;
            mask |= OB_FMT_STATE;
        }
    }
    if (!mask) return 0;
    if ((mask & OB_FMT_FIELDS) && !(mask & OB_FMT_MODE)) {
        ob_fmt_attr cur;
        if (ob_fmt_query(ctx->dev, id, &cur) == 0) f.mode = cur.mode;
    }
    rc = ob_fmt_modify(ctx->dev, id, &f, mask);
    return rc ? lm_fail(rc) : 0;
}

int mrc_ctl_query_ev_fmt_profile(struct mrc_context *ctx, uint64_t id, struct mrc_ctl_ev_fmt_profile_attr *attr,
                                 int attr_mask) {
    ob_fmt_attr f;
    int i, rc;
    if (!ctx || !attr || (attr_mask & ~LM_FMT_MASK)) return lm_fail(EINVAL);
    rc = ob_fmt_query(ctx->dev, id, &f);
    if (rc) return lm_fail(rc);
    if (attr_mask & (MRC_CTL_EV_FMT_PROFILE_STATE | MRC_CTL_EV_FMT_PROFILE_CUR_STATE))
        attr->cur_profile_state = attr->profile_state = (enum mrc_ctl_profile_state)f.state;
    if (attr_mask & MRC_CTL_EV_FMT_PROFILE_MODE) attr->ev_fmt_mode = (enum mrc_ctl_ev_fmt_mode)f.mode;
    if (attr_mask & MRC_CTL_EV_FMT_PROFILE_OP) {
        if (attr->ev_fmt_op.op != MRC_CTL_EV_FMT_OP_QUERY_FIELDS) return lm_fail(EINVAL);
        if (attr->ev_fmt_op.fmt_field_count < f.nfields || !attr->ev_fmt_op.fmt_fields) {
            attr->ev_fmt_op.fmt_field_count = f.nfields;
            return lm_fail(E2BIG);
        }
        for (i = 0; i < f.nfields; i++) attr->ev_fmt_op.fmt_fields[i].width = f.width[i];
        attr->ev_fmt_op.fmt_field_count = f.nfields;
    }
    return 0;
}

/* ---- EV profiles ---------------------------------------------------------------------------------------- */

#define LM_PROF_MASK                                                                                                \
    (MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_CUR_STATE | MRC_CTL_EV_PROFILE_MODE | MRC_CTL_EV_PROFILE_FMT_ID |  \
     MRC_CTL_EV_PROFILE_COUNT | MRC_CTL_EV_PROFILE_MIN_ACTIVE | MRC_CTL_EV_PROFILE_EVENT_MASK |                     \
     MRC_CTL_EV_PROFILE_EV_OP | MRC_CTL_EV_PROFILE_EV_FIELDS_OP | MRC_CTL_EV_PROFILE_VENDOR_CFG)

static int lm_ev_op(struct mrc_context *ctx, uint64_t id, struct mrc_ctl_ev_profile_attr *attr) {
    int n = attr->ev_op.entry_count, i, rc;
    uint32_t k = (uint32_t)n;
    ob_ev_entry *e;
    if (n < 0 || (n && !attr->ev_op.entries) || (unsigned)attr->ev_op.op > MRC_CTL_EV_OP_QUERY_EV_ARRAY)
        return lm_fail(EINVAL);
    e = calloc(n ? (size_t)n : 1, sizeof *e);
    if (!e) return lm_fail(ENOMEM);
    for (i = 0; i < n; i++) {
        memcpy(e[i].val, attr->ev_op.entries[i].ev.val, 32);
        e[i].port = attr->ev_op.entries[i].ev.port;
        memcpy(e[i].new_val, attr->ev_op.entries[i].ev_new.val, 32);
        e[i].new_port = attr->ev_op.entries[i].ev_new.port;
        e[i].state = (uint32_t)attr->ev_op.entries[i].state;
        e[i].flags = attr->ev_op.entries[i].flags;
    }
    rc = ob_ev_op(ctx->dev, id, (int)attr->ev_op.op, e, &k);
    if (attr->ev_op.op == MRC_CTL_EV_OP_QUERY_EV_STATE || attr->ev_op.op == MRC_CTL_EV_OP_QUERY_EV_ARRAY)
        for (i = 0; i < n && (uint32_t)i < k; i++) {
            memcpy(attr->ev_op.entries[i].ev.val, e[i].val, 32);
            attr->ev_op.entries[i].ev.port = e[i].port;
            attr->ev_op.entries[i].state = (enum mrc_ctl_ev_state)e[i].state;
        }
    free(e);
    attr->ev_op.entry_count = (int)k;
    return rc ? lm_fail(rc) : 0;
}

int mrc_ctl_modify_ev_profile(struct mrc_context *ctx, uint64_t id, struct mrc_ctl_ev_profile_attr *attr,
                              int attr_mask) {
    ob_prof_attr p;
    unsigned mask = 0;
    int i, rc, op_first;
    if (!ctx || !attr || (attr_mask & ~LM_PROF_MASK) || (attr_mask & MRC_CTL_EV_PROFILE_CUR_STATE))
        return lm_fail(EINVAL);
    if ((attr_mask & MRC_CTL_EV_PROFILE_EV_OP) && (attr_mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP)) return lm_fail(EINVAL);
    if ((attr_mask & MRC_CTL_EV_PROFILE_EV_OP) && (attr->ev_op.op == MRC_CTL_EV_OP_QUERY_EV_STATE ||
                                                   attr->ev_op.op == MRC_CTL_EV_OP_QUERY_EV_ARRAY))
        return lm_fail(EINVAL);
    memset(&p, 0, sizeof p);
    if (attr_mask & MRC_CTL_EV_PROFILE_STATE) { p.state = (int)attr->profile_state; mask |= OB_PROF_STATE; }
    if (attr_mask & MRC_CTL_EV_PROFILE_MODE) { p.mode = (int)attr->ev_mode; mask |= OB_PROF_MODE; }
    if (attr_mask & MRC_CTL_EV_PROFILE_FMT_ID) { p.fmt_id = attr->ev_fmt_profile_id; mask |= OB_PROF_FMT_ID; }
    if (attr_mask & MRC_CTL_EV_PROFILE_COUNT) { p.ev_count = attr->ev_count; mask |= OB_PROF_COUNT; }
    if (attr_mask & MRC_CTL_EV_PROFILE_MIN_ACTIVE) { p.ev_min_active = attr->ev_min_active; mask |= OB_PROF_MIN_ACTIVE; }
    if (attr_mask & MRC_CTL_EV_PROFILE_EVENT_MASK) {
        if (attr->ev_event_mask & ~(MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD)) return lm_fail(EINVAL);
        p.event_mask = (uint32_t)attr->ev_event_mask;
        mask |= OB_PROF_EVENT_MASK;
    }
    if (attr_mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP) {
        if (attr->ev_fields_op.op != MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS) return lm_fail(EINVAL);
        if (attr->ev_fields_op.field_count < 1 || !attr->ev_fields_op.fields) return lm_fail(EINVAL);
        if (attr->ev_fields_op.field_count > OB_MAX_FIELDS) return lm_fail(E2BIG);
        p.nfields = attr->ev_fields_op.field_count;
        for (i = 0; i < p.nfields; i++) {
            {
                ob_field *dst = &p.field[i];
                const struct mrc_ctl_ev_field *src = &attr->ev_fields_op.fields[i];
                OB_EV_FIELD_FIELDS(OB_COPY)
            }
        }
        mask |= OB_PROF_FIELDS;
    }
    /* the EVs are replaced before a move to ONLINE (which needs them), after a move out of INIT (which makes them) */
    op_first = (attr_mask & MRC_CTL_EV_PROFILE_EV_OP) && (mask & OB_PROF_STATE) && p.state == MRC_CTL_PROFILE_ONLINE;
    if (op_first && lm_ev_op(ctx, id, attr) != 0) return -1;
    if (mask) {
        if (!(mask & OB_PROF_STATE)) { /* the core changes attributes with a state: keep the current one */
            ob_prof_attr cur;
            if ((rc = ob_prof_query(ctx->dev, id, &cur)) != 0) return lm_fail(rc);
            p.state = cur.state;
            mask |= OB_PROF_STATE;
        }
        rc = ob_prof_modify(ctx->dev, id, &p, mask);
        if (rc) return lm_fail(rc);
    }
    if (!op_first && (attr_mask & MRC_CTL_EV_PROFILE_EV_OP)) return lm_ev_op(ctx, id, attr);
    return 0;
}

int mrc_ctl_query_ev_profile(struct mrc_context *ctx, uint64_t id, struct mrc_ctl_ev_profile_attr *attr,
                             int attr_mask) {
    ob_prof_attr p;
    int i, rc;
    if (!ctx || !attr || (attr_mask & ~LM_PROF_MASK)) return lm_fail(EINVAL);
    if ((attr_mask & MRC_CTL_EV_PROFILE_EV_OP) && (attr_mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP)) return lm_fail(EINVAL);
    rc = ob_prof_query(ctx->dev, id, &p);
    if (rc) return lm_fail(rc);
    if (attr_mask & (MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_CUR_STATE))
        attr->cur_profile_state = attr->profile_state = (enum mrc_ctl_profile_state)p.state;
    if (attr_mask & MRC_CTL_EV_PROFILE_MODE) attr->ev_mode = (enum mrc_ctl_ev_mode)p.mode;
    if (attr_mask & MRC_CTL_EV_PROFILE_FMT_ID) attr->ev_fmt_profile_id = p.fmt_id;
    if (attr_mask & MRC_CTL_EV_PROFILE_COUNT) attr->ev_count = p.ev_count;
    if (attr_mask & MRC_CTL_EV_PROFILE_MIN_ACTIVE) attr->ev_min_active = p.ev_min_active;
    if (attr_mask & MRC_CTL_EV_PROFILE_EVENT_MASK) attr->ev_event_mask = (int)p.event_mask;
    if (attr_mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP) {
        if (attr->ev_fields_op.op != MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS) return lm_fail(EINVAL);
        if (attr->ev_fields_op.field_count < p.nfields || !attr->ev_fields_op.fields) {
            attr->ev_fields_op.field_count = p.nfields;
            return lm_fail(E2BIG);
        }
        for (i = 0; i < p.nfields; i++) {
            {
                struct mrc_ctl_ev_field *dst = &attr->ev_fields_op.fields[i];
                const ob_field *src = &p.field[i];
                OB_EV_FIELD_FIELDS(OB_COPY)
            }
        }
        attr->ev_fields_op.field_count = p.nfields;
    }
    if (attr_mask & MRC_CTL_EV_PROFILE_EV_OP) {
        if (attr->ev_op.op != MRC_CTL_EV_OP_QUERY_EV_STATE && attr->ev_op.op != MRC_CTL_EV_OP_QUERY_EV_ARRAY)
            return lm_fail(EINVAL);
        return lm_ev_op(ctx, id, attr);
    }
    return 0;
}

/* ---- CC profiles ---------------------------------------------------------------------------------------- */

#define LM_CC_MASK                                                                                                  \
    (MRC_CTL_CC_PROFILE_STATE | MRC_CTL_CC_PROFILE_CUR_STATE | MRC_CTL_CC_PROFILE_ALGORITHM |                       \
     MRC_CTL_CC_PROFILE_CONFIG | MRC_CTL_CC_PROFILE_VENDOR_CFG)

int mrc_ctl_modify_cc_profile(struct mrc_context *ctx, uint64_t id, struct mrc_ctl_cc_profile_attr *attr,
                              int attr_mask) {
    ob_cc_attr c;
    unsigned mask = 0;
    int rc;
    if (!ctx || !attr || (attr_mask & ~LM_CC_MASK) || (attr_mask & MRC_CTL_CC_PROFILE_CUR_STATE))
        return lm_fail(EINVAL);
    memset(&c, 0, sizeof c);
    if (attr_mask & MRC_CTL_CC_PROFILE_STATE) { c.state = (int)attr->profile_state; mask |= OB_CC_STATE; }
    if (attr_mask & MRC_CTL_CC_PROFILE_ALGORITHM) { c.algorithm = attr->algorithm; mask |= OB_CC_ALGORITHM; }
    if (attr_mask & MRC_CTL_CC_PROFILE_CONFIG) {
        const struct mrc_ctl_cc_nscc_cfg *n = attr->cc_config;
        const char *alg = c.algorithm;
        ob_cc_attr cur;
        if (!(mask & OB_CC_ALGORITHM) && ob_cc_query(ctx->dev, id, &cur) == 0) alg = cur.algorithm;
        if (!n || !alg || strcmp(alg, "uet-1.0-nscc") != 0) return lm_fail(EINVAL);
        c.has_nscc = 1;
        {
            ob_cc_attr *dst = &c;
            const struct mrc_ctl_cc_nscc_cfg *src = n;
            OB_NSCC_FIELDS(OB_COPY)
        }
        if (!c.algorithm) c.algorithm = alg;
        mask |= OB_CC_CONFIG;
    }
    if (!mask) return 0;
    if (!(mask & OB_CC_STATE)) {
        ob_cc_attr cur;
        if ((rc = ob_cc_query(ctx->dev, id, &cur)) != 0) return lm_fail(rc);
        c.state = cur.state;
        mask |= OB_CC_STATE;
    }
    rc = ob_cc_modify(ctx->dev, id, &c, mask);
    return rc ? lm_fail(rc) : 0;
}

int mrc_ctl_query_cc_profile(struct mrc_context *ctx, uint64_t id, struct mrc_ctl_cc_profile_attr *attr,
                             int attr_mask) {
    ob_cc_attr c;
    int rc, i;
    if (!ctx || !attr || (attr_mask & ~LM_CC_MASK)) return lm_fail(EINVAL);
    rc = ob_cc_query(ctx->dev, id, &c);
    if (rc) return lm_fail(rc);
    if (attr_mask & (MRC_CTL_CC_PROFILE_STATE | MRC_CTL_CC_PROFILE_CUR_STATE))
        attr->cur_profile_state = attr->profile_state = (enum mrc_ctl_profile_state)c.state;
    if (attr_mask & MRC_CTL_CC_PROFILE_ALGORITHM) {
        attr->algorithm = NULL;
        for (i = 0; c.algorithm && lm_algorithms[i]; i++) /* a string the caller may keep */
            if (!strcmp(c.algorithm, lm_algorithms[i])) attr->algorithm = lm_algorithms[i];
    }
    if ((attr_mask & MRC_CTL_CC_PROFILE_CONFIG) && c.has_nscc) {
        struct mrc_ctl_cc_nscc_cfg *n = (struct mrc_ctl_cc_nscc_cfg *)(uintptr_t)attr->cc_config;
        if (!n) return lm_fail(EINVAL); /* the caller supplies the structure to fill */
        memset(n, 0, sizeof *n);
        {
            struct mrc_ctl_cc_nscc_cfg *dst = n;
            const ob_cc_attr *src = &c;
            OB_NSCC_FIELDS(OB_COPY)
        }
    }
    return 0;
}

/* ---- EV events ------------------------------------------------------------------------------------------ */

struct mrc_cq *mrc_ctl_create_ev_event_cq(struct mrc_context *ctx, int cqe, void *cq_context,
                                          struct mrc_comp_channel *channel, int comp_vector) {
    struct mrc_cq *cq;
    int i;
    if (!ctx || comp_vector != 0) return lm_null(EINVAL);
    cq = lm_cq_new(ctx, cqe, cq_context, channel, 1);
    if (!cq) return NULL;
    pthread_mutex_lock(&ctx->lock);
    for (i = 0; i < LM_MAX_EVCQ; i++)
        if (!ctx->evcq[i]) {
            ctx->evcq[i] = cq;
            break;
        }
    pthread_mutex_unlock(&ctx->lock);
    if (i == LM_MAX_EVCQ) {
        mrc_destroy_cq(cq);
        return lm_null(ENOMEM);
    }
    return cq;
}

void lm_ev_event(struct mrc_context *ctx, const ob_evt *e) {
    unsigned i;
    pthread_mutex_lock(&ctx->lock);
    for (i = 0; i < LM_MAX_EVCQ; i++) {
        struct mrc_cq *cq = ctx->evcq[i];
        struct mrc_ctl_ev_event ev;
        unsigned h;
        if (!cq) continue;
        memset(&ev, 0, sizeof ev);
        ev.profile_id = e->profile_id;
        memcpy(ev.ev.val, e->ev_val, sizeof ev.ev.val);
        if (e->profile_id == 0) { /* AUTO: the entropy itself, a UDP source port */
            ev.ev.val[0] = (uint8_t)(e->ev >> 8);
            ev.ev.val[1] = (uint8_t)e->ev;
        }
        ev.ev.port = e->port;
        ev.state = (enum mrc_ctl_ev_state)e->state;
        h = atomic_load_explicit(&cq->head, memory_order_relaxed);
        ev.drop_count = e->drop_count + cq->ev_dropped;
        if (h - atomic_load_explicit(&cq->tail, memory_order_acquire) >= cq->cap) {
            cq->ev_dropped++; /* EV CQs do not overflow: the next event counts what was lost */
            continue;
        }
        cq->ev_dropped = 0;
        cq->ev[h & (cq->cap - 1)] = ev;
        atomic_store_explicit(&cq->head, h + 1, memory_order_release);
        lm_cq_signal(cq);
    }
    pthread_mutex_unlock(&ctx->lock);
}

int mrc_ctl_poll_ev_event(struct mrc_cq *cq, int num_entries, struct mrc_ctl_ev_event *out) {
    int n = 0;
    unsigned t, h;
    /* a program built for API 1.0.0 has 48-byte records without `state` */
    size_t rec = cq && cq->ctx->api_ver < MRC_CTL_API_VER(1, 0, 1) ? offsetof(struct mrc_ctl_ev_event, drop_count) + 4
                                                                   : sizeof(struct mrc_ctl_ev_event);
    if (rec % 8) rec += 8 - rec % 8;
    if (!cq || !cq->is_ev || num_entries < 0 || (!out && num_entries)) return -EINVAL;
    if (!ob_dev_threaded(cq->ctx->dev)) ob_dev_progress(cq->ctx->dev);
    if (atomic_flag_test_and_set_explicit(&cq->poll_busy, memory_order_acquire)) return 0;
    t = atomic_load_explicit(&cq->tail, memory_order_relaxed);
    h = atomic_load_explicit(&cq->head, memory_order_acquire);
    while (n < num_entries && t != h) {
        memcpy((char *)out + (size_t)n * rec, &cq->ev[t++ & (cq->cap - 1)], rec);
        n++;
    }
    atomic_store_explicit(&cq->tail, t, memory_order_release);
    atomic_flag_clear_explicit(&cq->poll_busy, memory_order_release);
    return n;
}

/* ---- endpoint operations -------------------------------------------------------------------------------- */

int mrc_ctl_ep_batch_send_wait(struct mrc_context *ctx, uint8_t req_tc, enum mrc_ctl_ep_op_type op_type,
                               struct mrc_ctl_ep_req *req, int num_req, uint32_t rsp_timeout,
                               struct mrc_ctl_ep_rsp *rsp, int *num_rsp) {
    int i, got = 0, ended = 0, rc;
    struct timespec dl;
    if (num_rsp) *num_rsp = 0;
    if (!ctx || !req || !rsp || !num_rsp || num_req < 1 || num_req > 64 || req_tc > 63) return lm_fail(EINVAL);
    if (op_type != MRC_CTL_EP_OP_EV_PROBE && op_type != MRC_CTL_EP_OP_PORT_STATUS_UPDATE) return lm_fail(EOPNOTSUPP);
    pthread_mutex_lock(&ctx->lock);
    ctx->nrsp = 0; /* responses are not kept between calls */
    pthread_mutex_unlock(&ctx->lock);
    for (i = 0; i < num_req; i++) {
        ob_ep_req r;
        const uint8_t *g = req[i].dgid.raw, *v = req[i].req_ev.val;
        memset(&r, 0, sizeof r);
        if (g[10] != 0xff || g[11] != 0xff) return lm_fail(EINVAL);
        r.req_id = req[i].req_id;
        r.op = op_type == MRC_CTL_EP_OP_EV_PROBE ? 0 : 1;
        memcpy(&r.peer_ip, &g[12], 4);
        r.peer_port = (uint16_t)(g[8] << 8 | g[9]);
        if (!r.peer_port) r.peer_port = 4791;
        r.port = req[i].req_ev.port ? req[i].req_ev.port : 1;
        /* UDP: the 16-bit source port; STEV: 32 bits; both most significant byte first */
        r.ev = req[i].ev_fmt_mode == MRC_CTL_EV_FMT_MODE_UDP ? (uint32_t)(v[0] << 8 | v[1])
                                                             : (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 |
                                                                   (uint32_t)v[2] << 8 | v[3];
        r.dscp = req_tc;
        r.port_status = req[i].op.port_status_update.port_status;
        r.timeout_ns = rsp_timeout ? rsp_timeout : 1000000u;
        rc = ob_ep_request(ctx->dev, &r);
        if (rc) return lm_fail(rc == ENOMEM ? EAGAIN : rc);
    }
    clock_gettime(CLOCK_REALTIME, &dl);
    {
        uint64_t ns = (uint64_t)dl.tv_nsec + (uint64_t)rsp_timeout + 50000000u; /* the core times each one out */
        dl.tv_sec += (time_t)(ns / 1000000000u);
        dl.tv_nsec = (long)(ns % 1000000000u);
    }
    pthread_mutex_lock(&ctx->lock);
    for (;;) {
        unsigned k;
        got = ended = 0;
        for (k = 0; k < ctx->nrsp; k++) {
            ended++;
            if (!ctx->rsp[k].timeout && got < num_req) {
                rsp[got].req_id = ctx->rsp[k].req_id;
                rsp[got].port = ctx->rsp[k].port;
                rsp[got].rtt = ctx->rsp[k].rtt;
                rsp[got].adj_svc_time = ctx->rsp[k].adj;
                got++;
            }
        }
        if (ended >= num_req) break;
        if (!ob_dev_threaded(ctx->dev)) {
            pthread_mutex_unlock(&ctx->lock);
            ob_dev_progress(ctx->dev);
            pthread_mutex_lock(&ctx->lock);
            continue;
        }
        if (pthread_cond_timedwait(&ctx->cond, &ctx->lock, &dl) == ETIMEDOUT) break;
    }
    ctx->nrsp = 0;
    pthread_mutex_unlock(&ctx->lock);
    *num_rsp = got;
    return got < num_req ? lm_fail(ETIMEDOUT) : 0;
}
