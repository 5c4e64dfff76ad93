/* tests/harness.c - the scenario harness (declared in tests/test.h): two endpoints over the in-memory wire
 * (tests/fixtures/mrc_wire.h, implemented here), their plans, event pump and checks (sc_*); the controller event log
 * and EV profile helpers (ev_*); the attacker's injector (ho_inject). */
#define MRC_WIRE_IMPLEMENTATION
#include "test.h"

void sc_failf(sc_pair *p, const char *fmt, ...) {
    va_list ap;
    if (p->fail) return;
    p->fail = 1;
    va_start(ap, fmt);
    vsnprintf(p->failmsg, sizeof p->failmsg, fmt, ap);
    va_end(ap);
}

mrc_time sc_now(const sc_pair *p) { return mrc_wire_now(&p->w); }
static uint8_t *sc_dst(const sc_pair *p, int side) { return p->mem[side] + SC_GUARD; }
size_t sc_slice(const sc_pair *p) { return p->region / p->nq; }
uint64_t sc_iova(int side) { return side ? UINT64_C(0x50000000000) : UINT64_C(0x40000000000); }

void sc_dump(const sc_pair *p) {
    unsigned s, q, r;
    printf("    seed %llu, virtual time %llu ns\n", (unsigned long long)p->seed, (unsigned long long)sc_now(p));
    if (p->fail) printf("    pump: %s\n", p->failmsg);
    for (s = 0; s < 2; s++) {
        mrc_endpoint_stats es;
        if (!p->ep[s]) continue;
        mrc_endpoint_stats_get(p->ep[s], &es);
        printf("    %c: tx %llu rx %llu drops %llu ctlq_overflow %llu", s ? 'B' : 'A', (unsigned long long)es.tx_pkts,
               (unsigned long long)es.rx_pkts, (unsigned long long)es.rx_drops,
               (unsigned long long)es.ctlq_overflow);
        for (r = 0; r < MRC_DROP_REASONS; r++)
            if (es.drop[r]) printf(" %s=%llu", mrc_drop_name(r), (unsigned long long)es.drop[r]);
        printf("\n");
        for (q = 0; q < p->nq; q++) {
            const sc_q *x = &p->q[s][q];
            mrc_conn_stats cs;
            if (!x->c) continue;
            mrc_conn_stats_get(x->c, &cs);
            printf("      q%u %s plan %u/%u/%u (done/posted/n) recv %u/%u imm_ok %u err %u(%d) | tx_data %llu "
                   "tx_rtx %llu probes %llu rx_sack %llu rx_nack %llu rtx nack/hole/rto/probe %llu/%llu/%llu/%llu "
                   "rto %llu tlp %llu msgs %llu | rx_data %llu dup %llu trim %llu oor %llu tx_sack %llu "
                   "tx_nack %llu tx_nak %llu imm %llu drops %llu\n",
                   q, mrc_state_name((unsigned)mrc_conn_state(x->c)), x->done, x->posted, x->nmsg, x->recv_pulled,
                   x->recv_posted, x->imm_ok, x->n_conn_err, x->conn_err_status, (unsigned long long)cs.tx_data,
                   (unsigned long long)cs.tx_rtx, (unsigned long long)cs.tx_probes, (unsigned long long)cs.rx_sack,
                   (unsigned long long)cs.rx_nack, (unsigned long long)cs.rtx_nack,
                   (unsigned long long)cs.rtx_sack_hole, (unsigned long long)cs.rtx_rto,
                   (unsigned long long)cs.rtx_probe_loss, (unsigned long long)cs.rto_fired,
                   (unsigned long long)cs.tlp_fired, (unsigned long long)cs.msgs_done,
                   (unsigned long long)cs.rx_data, (unsigned long long)cs.rx_dup, (unsigned long long)cs.rx_trimmed,
                   (unsigned long long)cs.rx_oor, (unsigned long long)cs.tx_sack, (unsigned long long)cs.tx_nack,
                   (unsigned long long)cs.tx_nak, (unsigned long long)cs.imm_delivered,
                   (unsigned long long)cs.rx_drops);
        }
    }
    if (p->w_ok) {
        for (s = 0; s < 2; s++) {
            mrc_wire_stats ws;
            mrc_wire_stats_total(&p->w, (int)s, &ws);
            printf("    wire %s: tx %llu delivered %llu loss %llu down %llu filter %llu queue %llu pool %llu dup %llu "
                   "corrupt %llu trim %llu ce %llu rejected %llu\n",
                   s ? "B->A" : "A->B", (unsigned long long)ws.tx_pkts, (unsigned long long)ws.delivered,
                   (unsigned long long)ws.drop_loss, (unsigned long long)ws.drop_down,
                   (unsigned long long)ws.drop_filter, (unsigned long long)ws.drop_queue,
                   (unsigned long long)ws.drop_pool, (unsigned long long)ws.dup, (unsigned long long)ws.corrupt,
                   (unsigned long long)ws.trim, (unsigned long long)ws.ce, (unsigned long long)ws.rx_rejected);
        }
        printf("    wire in flight %u\n", mrc_wire_inflight(&p->w));
    }
}

/* ---- set-up ------------------------------------------------------------------------------------------------- */
void sc_defaults(sc_pair *p, uint64_t seed) {
    int s;
    memset(p, 0, sizeof *p);
    p->seed = seed;
    for (s = 0; s < 2; s++) {
        mrc_config_default(&p->cfg[s]);
        p->cfg[s].seed = seed * UINT64_C(0x9E3779B97F4A7C15) + (s ? UINT64_C(2) : UINT64_C(1));
        p->cfg[s].qpn_base = 0x100u + (uint32_t)s * 0x40u;
        memset(&p->attr[s], 0, sizeof p->attr[s]);
        p->attr[s].path_mtu = 4096;
        p->attr[s].mpr_dest = MRC_MAX_MPR_UNITS;
        p->attr[s].max_wimm_dest = 64;
        p->attr[s].sq_psn = (uint32_t)((seed * 7919u + (uint64_t)s * 104729u) & 0xFFFFFu);
        p->attr[s].mpr = 8;
        p->attr[s].max_wimm = 32;
        p->attr[s].retry_linear = 7;
        p->attr[s].retry_exp = 7;
        p->attr[s].timeout = 10; /* 1.05 ms */
    }
    mrc_wire_config_default(&p->wc);
    p->wc.seed = seed ^ 0xD1B54A32D192ED03ull;
    p->wc.pool_pkts = 16384;
    p->nq = 1;
    p->region = 1u << 20;
    p->strict = 1;
}

void sc_set_links(sc_pair *p, int from, const mrc_wire_link *l) {
    (void)mrc_wire_config_set_link(&p->wc, from, 0, l);
}

/* one number of ports everywhere (both endpoints and the wire) */
void sc_set_ports(sc_pair *p, unsigned n) {
    p->cfg[0].num_ports = p->cfg[1].num_ports = (uint8_t)n;
    p->wc.num_ports = (uint8_t)n;
}

/* Bring connection q of both sides from RESET (or unattached) to RTS. 0 on success. */
int sc_connect(sc_pair *p, unsigned q) {
    mrc_conn_attr a;
    mrc_time now = p->w_ok ? sc_now(p) : 0;
    int s, rc;
    for (s = 0; s < 2; s++) {
        sc_q *x = &p->q[s][q];
        x->p = p;
        x->side = s;
        x->idx = q;
        if (!x->c) {
            x->c = (mrc_conn *)calloc(1, sizeof *x->c);
            if (!x->c) return -1;
            if (mrc_conn_init(p->ep[s], x->c, now) != MRC_OK) return -2;
            mrc_conn_set_user(x->c, x);
        }
        memset(&a, 0, sizeof a);
        a.state = MRC_QPS_INIT;
        a.ev_profile_id = p->attr[s].ev_profile_id;
        a.cc_profile_id = p->attr[s].cc_profile_id;
        if ((rc = mrc_conn_modify(x->c, &a, MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, now)) != MRC_OK)
            return rc;
    }
    for (s = 0; s < 2; s++) {
        sc_q *x = &p->q[s][q];
        a = p->attr[s];
        a.state = MRC_QPS_RTR;
        a.dest_qpn = mrc_conn_qpn(p->q[1 - s][q].c);
        a.rq_psn = p->attr[1 - s].sq_psn;
        if ((rc = mrc_conn_modify(x->c, &a,
                            MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU |
                                MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST | MRC_ATTR_CAPS,
                            now)) != MRC_OK)
            return rc;
    }
    for (s = 0; s < 2; s++) {
        sc_q *x = &p->q[s][q];
        if (p->rtr_only[s]) continue;
        a = p->attr[s];
        a.state = MRC_QPS_RTS;
        if ((rc = mrc_conn_modify(x->c, &a,
                            MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY |
                                MRC_ATTR_TIMEOUT,
                            now)) != MRC_OK)
            return rc;
    }
    if (p->w_ok) mrc_wire_kick(&p->w);
    return 0;
}

uint64_t sc_fnv(uint64_t h, const void *d, size_t n) {
    const uint8_t *b = (const uint8_t *)d;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

int sc_is_data(unsigned op) { return op >= MRC_OP_WRITE_FIRST && op <= MRC_OP_WRITE_ONLY_IMM; }

/* What every emitted packet must satisfy, whatever the scenario: it decodes, it goes to the peer of the QP that
 * produced it, its length and pad match the txinfo, and its DSCP class fits its kind (docs 3.6). */
/* the connection index of side s's QPN qpn (QPNs are random, P16); SC_MAXQ when none */
unsigned sc_qidx(const sc_pair *p, int s, uint32_t qpn) {
    unsigned q;
    for (q = 0; q < SC_MAXQ; q++)
        if (p->q[s][q].c && mrc_conn_qpn(p->q[s][q].c) == qpn) return q;
    return SC_MAXQ;
}

void sc_check_emitted(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti) {
    mrc_pkt k;
    mrc_conn_attr a;
    unsigned q = sc_qidx(p, from, ti->qpn), cls;
    const mrc_config *cf = &p->cfg[from];
    if (mrc_pkt_decode(pkt, len, &cf->wire, &k) != MRC_OK) {
        sc_failf(p, "side %d emitted a packet that does not decode (opcode %#x, %zu bytes)", from, ti->opcode, len);
        return;
    }
    if (ti->qpn == MRC_EPOP_QPN) { /* an endpoint operation: no QP, no PSN, control class, an up port */
        if ((k.bth.opcode != MRC_OP_EP_REQ && k.bth.opcode != MRC_OP_EP_RSP) || k.bth.dest_qp != MRC_EPOP_QPN ||
            ti->dscp_class != MRC_DSCP_CONTROL || !mrc_endpoint_port_up(p->ep[from], ti->port))
            sc_failf(p, "side %d endpoint operation opcode %#x to qpn %#x class %u port %u", from, k.bth.opcode,
                     k.bth.dest_qp, ti->dscp_class, ti->port);
        return;
    }
    if (q >= p->nq || !p->q[1 - from][q].c || k.bth.dest_qp != mrc_conn_qpn(p->q[1 - from][q].c)) {
        sc_failf(p, "side %d qpn %#x sent to qpn %#x", from, ti->qpn, k.bth.dest_qp);
        return;
    }
    if (mrc_conn_query(p->q[from][q].c, &a) != MRC_OK) {
        sc_failf(p, "side %d qpn %#x: conn_query failed", from, ti->qpn);
        return;
    }
    if (k.bth.opcode != ti->opcode || k.hdr_len != ti->hdr_len || k.payload_len != ti->payload_len ||
        k.bth.pad != ti->pad || k.bth.pkey != a.pkey || k.bth.tver != cf->wire.tver || ti->peer != a.peer) {
        sc_failf(p, "side %d opcode %#x: headers disagree with txinfo", from, ti->opcode);
        return;
    }
    if (sc_is_data(k.bth.opcode) || k.bth.opcode == MRC_OP_PROBE_REQ) {
        /* data and probes leave on one of the QP's own EVs, on its port; data only on a GOOD one */
        unsigned i, n = mrc_conn_ev_count(p->q[from][q].c), found = 0, good = 0;
        for (i = 0; i < n; i++) { /* EV values may repeat when the configured range is narrow */
            uint32_t ev = 0, st = 0;
            uint8_t port = 0;
            (void)mrc_conn_ev_get(p->q[from][q].c, i, &ev, &port, &st);
            if (ev != ti->ev || port != ti->port) continue;
            found = 1;
            good |= st == MRC_EVS_GOOD;
        }
        if (!found || (sc_is_data(k.bth.opcode) && !good)) {
            sc_failf(p, "side %d opcode %#x psn %#x on EV %#x port %u: %s", from, k.bth.opcode, k.bth.psn, ti->ev,
                     ti->port, !found ? "not one of the QP's EVs" : "an EV that is not GOOD");
            return;
        }
    }
    if (sc_is_data(k.bth.opcode))
        cls = k.bth.rtx ? (cf->trimmable ? MRC_DSCP_TRIMMABLE_RETX : MRC_DSCP_NO_TRIM)
                        : (cf->trimmable ? MRC_DSCP_TRIMMABLE : MRC_DSCP_NO_TRIM);
    else
        cls = MRC_DSCP_CONTROL;
    if (ti->dscp_class != cls || ti->dscp != cf->dscp[cls] || ti->port < 1 || ti->port > cf->num_ports ||
        !mrc_endpoint_port_up(p->ep[from], ti->port))
        sc_failf(p, "side %d opcode %#x rtx %u: dscp class %u (%u) on port %u, expected class %u", from, ti->opcode,
                 k.bth.rtx, ti->dscp_class, ti->dscp, ti->port, cls);
}

static void sc_w_tap(void *ud, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_pair *p = (sc_pair *)ud;
    if (p->pump_in_taps) sc_pump(p);
    p->ntx[from]++;
    sc_check_emitted(p, from, pkt, len, ti);
    if (p->hash_on) {
        uint8_t meta[16];
        unsigned i;
        for (i = 0; i < 8; i++) meta[i] = (uint8_t)(now >> (8 * i));
        meta[8] = (uint8_t)from;
        meta[9] = ti->port;
        meta[10] = ti->dscp;
        meta[11] = ti->pad;
        for (i = 0; i < 4; i++) meta[12 + i] = (uint8_t)(ti->ev >> (8 * i));
        p->hash = sc_fnv(sc_fnv(p->hash, meta, sizeof meta), pkt, len);
    }
    if (p->tap) p->tap(p, from, pkt, len, ti, now);
}
static int sc_w_filter(void *ud, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_pair *p = (sc_pair *)ud;
    return p->filter ? p->filter(p, from, pkt, len, ti, now) : 0;
}
static void sc_w_rx(void *ud, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_pair *p = (sc_pair *)ud;
    if (p->pump_in_taps) sc_pump(p);
    if (p->rx) p->rx(p, to, pkt, len, ri, now);
}

void sc_fill_dst(sc_pair *p, int d) {
    size_t i;
    uint8_t *m = p->mem[d];
    memset(m, SC_GUARD_BYTE, SC_GUARD);
    memset(m + SC_GUARD + p->region, SC_GUARD_BYTE, SC_GUARD);
    for (i = 0; i < p->region; i++) m[SC_GUARD + i] = (uint8_t)(p->src[1 - d][i] ^ SC_INIT_XOR);
}

/* Allocate and start everything described by *p. 0 on success. */
int sc_start(sc_pair *p) {
    trng r;
    int s, rc;
    unsigned q;
    size_t i;
    if (p->nq < 1 || p->nq > SC_MAXQ) return -1;
    r.s = p->seed ^ 0x5C5C5C5C5C5C5C5Cull;
    for (s = 0; s < 2; s++) {
        p->ep[s] = (mrc_endpoint *)calloc(1, sizeof *p->ep[s]);
        p->src[s] = (uint8_t *)malloc(p->region);
        p->mem[s] = (uint8_t *)malloc(p->region + 2u * SC_GUARD);
        p->cov[s] = (uint8_t *)calloc(1, p->region);
        if (!p->ep[s] || !p->src[s] || !p->mem[s] || !p->cov[s]) return -2;
        if ((rc = mrc_endpoint_init(p->ep[s], &p->cfg[s], p->t0)) != MRC_OK) return rc;
        for (i = 0; i + 8 <= p->region; i += 8) {
            uint64_t v = trand(&r);
            memcpy(p->src[s] + i, &v, 8);
        }
        for (; i < p->region; i++) p->src[s][i] = (uint8_t)trand(&r);
    }
    for (s = 0; s < 2; s++) {
        sc_fill_dst(p, s);
        if (p->keyed_rkey[s]) {
            p->rkey[s] = p->keyed_rkey[s];
            if ((rc = mrc_endpoint_reg_mr_key(p->ep[s], sc_dst(p, s), sc_iova(s), p->region, MRC_ACCESS_REMOTE_WRITE,
                                              NULL, p->rkey[s])) != MRC_OK)
                return rc;
        } else if ((rc = mrc_endpoint_reg_mr(p->ep[s], sc_dst(p, s), sc_iova(s), p->region, MRC_ACCESS_REMOTE_WRITE,
                                             NULL, &p->rkey[s])) != MRC_OK) {
            return rc;
        }
    }
    p->wc.tap = sc_w_tap;
    p->wc.tap_ud = p;
    p->wc.filter = sc_w_filter;
    p->wc.filter_ud = p;
    p->wc.rx_tap = sc_w_rx;
    p->wc.rx_tap_ud = p;
    p->hash = 0xCBF29CE484222325ull;
    if ((rc = mrc_wire_init(&p->w, &p->wc, p->ep[0], p->ep[1], p->t0)) != MRC_OK) return rc;
    p->w_ok = 1;
    for (q = 0; q < p->nq; q++)
        if ((rc = sc_connect(p, q)) != 0) return rc;
    return 0;
}

void sc_free(sc_pair *p) {
    int s;
    unsigned q;
    if (p->w_ok) mrc_wire_free(&p->w);
    p->w_ok = 0;
    for (s = 0; s < 2; s++) {
        for (q = 0; q < SC_MAXQ; q++) {
            sc_q *x = &p->q[s][q];
            if (x->c) {
                if (mrc_conn_state(x->c) != MRC_QPS_RESET && mrc_conn_state(x->c) != MRC_QPS_ERR) {
                    mrc_conn_attr a;
                    memset(&a, 0, sizeof a);
                    a.state = MRC_QPS_RESET;
                    (void)mrc_conn_modify(x->c, &a, MRC_ATTR_STATE, 0);
                }
                (void)mrc_conn_destroy(x->c);
            }
            free(x->c);
            free(x->msg);
            free(x->imm_idx);
            x->c = NULL;
            x->msg = NULL;
            x->imm_idx = NULL;
        }
        free(p->ep[s]);
        free(p->src[s]);
        free(p->mem[s]);
        free(p->cov[s]);
        p->ep[s] = NULL;
        p->src[s] = p->mem[s] = p->cov[s] = NULL;
    }
}

/* ---- plans -------------------------------------------------------------------------------------------------- */
int sc_add(sc_pair *p, int side, unsigned q, uint32_t off, uint32_t len, unsigned op, uint32_t imm) {
    sc_q *x = &p->q[side][q];
    sc_msg *m;
    uint32_t mtu = p->attr[side].path_mtu;
    if ((size_t)off + len > sc_slice(p)) return -1;
    if (x->nmsg == x->cap) {
        uint32_t nc = x->cap ? 2u * x->cap : 64u;
        sc_msg *nm = (sc_msg *)realloc(x->msg, (size_t)nc * sizeof *nm);
        if (!nm) return -1;
        x->msg = nm;
        x->cap = nc;
    }
    if (op == MRC_WR_WRITE_IMM && x->nimm == x->imm_cap) {
        uint32_t nc = x->imm_cap ? 2u * x->imm_cap : 64u;
        uint32_t *ni = (uint32_t *)realloc(x->imm_idx, (size_t)nc * sizeof *ni);
        if (!ni) return -1;
        x->imm_idx = ni;
        x->imm_cap = nc;
    }
    m = &x->msg[x->nmsg];
    memset(m, 0, sizeof *m);
    m->off = (uint32_t)(q * sc_slice(p)) + off;
    m->len = len;
    m->op = (uint8_t)op;
    m->imm = imm;
    m->status = SC_PENDING;
    if (op == MRC_WR_WRITE_IMM) x->imm_idx[x->nimm++] = x->nmsg;
    x->npkts += len ? (len + mtu - 1u) / mtu : 1u;
    x->nbytes += len;
    x->nmsg++;
    return 0;
}

/* n messages of log-uniform sizes in [1, maxlen] at random offsets of the slice; imm_pct percent Write-IMM */
int sc_plan_random(sc_pair *p, int side, unsigned q, unsigned n, uint32_t maxlen, unsigned imm_pct,
                   trng *r) {
    unsigned i, bits = 0;
    uint32_t slice = (uint32_t)sc_slice(p);
    sc_msg *m;
    if (maxlen > slice) maxlen = slice;
    while (bits < 31 && (1u << bits) < maxlen) bits++;
    for (i = 0; i < n; i++) {
        uint32_t hi = 1u << trand_below(r, bits + 1u), len = 1u + trand_below(r, hi);
        uint32_t off;
        unsigned op = trand_below(r, 100) < imm_pct ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        if (len > maxlen) len = maxlen;
        off = trand_below(r, slice - len + 1u);
        if (sc_add(p, side, q, off, len, op, (uint32_t)trand(r)) != 0) return -1;
        m = &p->q[side][q].msg[p->q[side][q].nmsg - 1u];
        if (trand_below(r, 100) < p->unsig_pct) m->flags = MRC_WR_UNSIGNALED;
        if (op == MRC_WR_WRITE_IMM && trand_below(r, 2)) m->flags |= MRC_WR_SOLICITED;
    }
    return 0;
}

/* n messages back to back from offset 0 with sizes in [minlen, maxlen]; minlen 0: 1 in 25 is zero-length */
int sc_plan_seq(sc_pair *p, int side, unsigned q, unsigned n, uint32_t minlen, uint32_t maxlen,
                unsigned imm_pct, trng *r) {
    unsigned i;
    uint32_t off = 0;
    for (i = 0; i < n; i++) {
        uint32_t len = minlen + trand_below(r, maxlen - minlen + 1u);
        unsigned op;
        if (minlen == 0) len = trand_below(r, 25) ? (len ? len : 1u) : 0u;
        op = trand_below(r, 100) < imm_pct ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        if (sc_add(p, side, q, off, len, op, (uint32_t)trand(r)) != 0) return -1;
        if (op == MRC_WR_WRITE_IMM && trand_below(r, 2))
            p->q[side][q].msg[p->q[side][q].nmsg - 1u].flags = MRC_WR_SOLICITED;
        off += len;
    }
    return 0;
}

/* forget a connection's plan and receive bookkeeping (after RESET) */
void sc_plan_clear(sc_q *x) {
    mrc_conn_stats cs;
    mrc_conn_stats_get(x->c, &cs);
    x->base_rx_data = cs.rx_data;
    x->base_rx_bytes = cs.rx_bytes_placed;
    x->nmsg = x->posted = x->done = 0;
    x->nimm = 0;
    x->npkts = x->nbytes = 0;
    x->recv_posted = x->recv_pulled = x->imm_ok = x->mem_ok = 0;
    x->n_conn_err = x->n_send_err = x->n_recv_flush = 0;
    x->conn_err_status = 0;
}

/* ---- events ------------------------------------------------------------------------------------------------- */
static int sc_in_mem(const sc_pair *p, int dst_side, const sc_msg *m) {
    return p->lax || m->len == 0 || memcmp(sc_dst(p, dst_side) + m->off, p->src[1 - dst_side] + m->off, m->len) == 0;
}

static void sc_on_event(sc_pair *p, int s, const mrc_event *ev) {
    sc_q *x;
    mrc_time now = sc_now(p);
    p->n_ev_lost[s] += ev->drop_count;
    if (ev->type == MRC_EVT_PEER_PORTS) {
        p->n_peer_ports[s]++;
        p->peer_mask[s] = ev->port_mask;
        p->t_peer_ports[s] = now;
        return;
    }
    if (ev->type == MRC_EVT_EP_RESPONSE || ev->type == MRC_EVT_EP_TIMEOUT) {
        if (ev->type == MRC_EVT_EP_RESPONSE) p->n_ep_rsp[s]++;
        else p->n_ep_timeout[s]++;
        return;
    }
    x = (sc_q *)mrc_conn_user(ev->conn);
    if (!x || x->side != s || x->c != ev->conn) {
        sc_failf(p, "event type %u for an unknown connection on side %d", ev->type, s);
        return;
    }
    if (ev->type == MRC_EVT_EV_STATE) {
        uint32_t e;
        uint8_t port;
        if (ev->qpn != mrc_conn_qpn(x->c) || mrc_conn_ev_get(x->c, ev->ev_index, &e, &port, NULL) != MRC_OK ||
            e != ev->ev || port != ev->port || (ev->state != MRC_EVS_GOOD && ev->state != MRC_EVS_ASSUMED_BAD)) {
            sc_failf(p, "side %d q%u: EV_STATE event for EV %u (0x%x port %u state %u) that the QP does not have", s,
                     x->idx, ev->ev_index, ev->ev, ev->port, ev->state);
            return;
        }
        if (ev->state == MRC_EVS_ASSUMED_BAD) {
            if (!x->n_ev_bad) x->t_first_ev_bad = now;
            x->n_ev_bad++;
        } else {
            x->n_ev_good++;
        }
    } else if (ev->type == MRC_EVT_SEND_DONE) {
        sc_msg *m;
        if (x->done >= x->posted) {
            sc_failf(p, "side %d q%u: SEND_DONE wr_id %llu with nothing outstanding", s, x->idx,
                     (unsigned long long)ev->wr_id);
            return;
        }
        /* unsignaled writes that completed OK produce no event: any later completion implies them (WR order; a
         * flushed or failed one is always reported) */
        while (x->done < x->posted && ev->wr_id > x->done && (x->msg[x->done].flags & MRC_WR_UNSIGNALED)) {
            m = &x->msg[x->done];
            m->status = MRC_OK;
            m->t_done = now;
            x->done++;
            if (!sc_in_mem(p, 1 - s, m)) {
                sc_failf(p, "side %d q%u wr %u: unsignaled write completed but its data is not in the peer's memory",
                         s, x->idx, x->done - 1u);
                return;
            }
        }
        m = &x->msg[x->done];
        if (ev->wr_id != x->done || (ev->status == MRC_OK && (m->flags & MRC_WR_UNSIGNALED))) {
            sc_failf(p, "side %d q%u: SEND_DONE wr_id %llu status %d, expected wr %u (work-request order, "
                     "unsignaled writes only on error)", s, x->idx, (unsigned long long)ev->wr_id, ev->status,
                     x->done);
            return;
        }
        m->status = ev->status;
        m->t_done = now;
        x->done++;
        if (ev->status == MRC_OK) {
            if (ev->byte_len != m->len && !p->lax)
                sc_failf(p, "side %d q%u wr %u: byte_len %u, expected %u", s, x->idx, x->done - 1u, ev->byte_len,
                         m->len);
            else if (!sc_in_mem(p, 1 - s, m))
                sc_failf(p, "side %d q%u wr %u: SEND_DONE OK but the data is not in the peer's memory", s, x->idx,
                         x->done - 1u);
        } else {
            x->n_send_err++;
            if (p->strict)
                sc_failf(p, "side %d q%u wr %u: SEND_DONE status %d (%s)", s, x->idx, x->done - 1u, ev->status,
                         mrc_strerror(ev->status));
        }
    } else if (ev->type == MRC_EVT_RECV_IMM) {
        sc_q *y = &p->q[1 - s][x->idx]; /* the peer connection whose Write-IMMs land here */
        if (ev->wr_id != x->recv_pulled) {
            sc_failf(p, "side %d q%u: RECV_IMM wr_id %llu, expected %u (receive order)", s, x->idx,
                     (unsigned long long)ev->wr_id, x->recv_pulled);
            return;
        }
        x->recv_pulled++;
        if (ev->status == MRC_OK) {
            uint32_t k, j;
            const sc_msg *m;
            if (x->imm_ok >= y->nimm && p->lax) {
                x->imm_ok++;
                return;
            }
            if (x->imm_ok >= y->nimm) {
                sc_failf(p, "side %d q%u: RECV_IMM OK beyond the %u Write-IMMs planned", s, x->idx, y->nimm);
                return;
            }
            k = y->imm_idx[x->imm_ok];
            m = &y->msg[k];
            if (k >= y->posted && !p->lax) {
                sc_failf(p, "side %d q%u: RECV_IMM for message %u not posted yet", s, x->idx, k);
                return;
            }
            if (!p->lax && (ev->imm != m->imm || ev->byte_len != m->len)) {
                sc_failf(p, "side %d q%u: RECV_IMM #%u imm %08x len %u, expected message %u imm %08x len %u", s,
                         x->idx, x->imm_ok, ev->imm, ev->byte_len, k, m->imm, m->len);
                return;
            }
            for (j = x->mem_ok; j <= k; j++) {
                if (!sc_in_mem(p, s, &y->msg[j])) {
                    sc_failf(p, "side %d q%u: RECV_IMM of message %u pulled before the bytes of message %u are in "
                             "memory", s, x->idx, k, j);
                    return;
                }
            }
            if (k + 1u > x->mem_ok) x->mem_ok = k + 1u;
            x->imm_ok++;
            x->t_last_imm = now;
        } else {
            x->n_recv_flush++;
            if (p->strict)
                sc_failf(p, "side %d q%u: RECV_IMM status %d (%s)", s, x->idx, ev->status, mrc_strerror(ev->status));
        }
    } else if (ev->type == MRC_EVT_CONN_ERROR) {
        if (!x->n_conn_err) {
            x->conn_err_status = ev->status;
            x->t_conn_err = now;
        }
        x->n_conn_err++;
        if (p->strict)
            sc_failf(p, "side %d q%u: CONN_ERROR %d (%s) at %llu ns", s, x->idx, ev->status, mrc_strerror(ev->status),
                     (unsigned long long)now);
    } else {
        sc_failf(p, "side %d: unknown event type %u", s, ev->type);
    }
}

void sc_pump(sc_pair *p) {
    mrc_event ev;
    int s;
    for (s = 0; s < 2; s++)
        while (mrc_endpoint_poll_event(p->ep[s], &ev) > 0) sc_on_event(p, s, &ev);
}

/* post what the plans and the receive queues allow */
static void sc_refill(sc_pair *p) {
    int s, kick = 0;
    unsigned q;
    uint32_t cap = p->max_post && p->max_post < MRC_MAX_SQ ? p->max_post : MRC_MAX_SQ;
    mrc_time now = sc_now(p);
    for (s = 0; s < 2; s++) {
        for (q = 0; q < p->nq; q++) {
            sc_q *x = &p->q[s][q];
            int st = mrc_conn_state(x->c);
            while (!p->hold && st == MRC_QPS_RTS && x->posted < x->nmsg && x->posted - x->done < cap) {
                sc_msg *m = &x->msg[x->posted];
                mrc_write w;
                int rc;
                memset(&w, 0, sizeof w);
                w.wr_id = x->posted;
                w.opcode = m->op;
                w.buf = p->src[s] + m->off;
                w.len = m->len;
                w.remote_va = sc_iova(1 - s) + m->off + m->va_adj;
                w.rkey = p->rkey[1 - s];
                w.imm = m->imm;
                /* the plan's last write is always signaled: its completion covers the unsignaled ones before it */
                if (x->posted + 1u == x->nmsg) m->flags = (uint8_t)(m->flags & ~MRC_WR_UNSIGNALED);
                w.flags = m->flags;
                rc = mrc_conn_post_write(x->c, &w, now);
                if (rc == MRC_ERR_FULL) break;
                if (rc != MRC_OK) {
                    sc_failf(p, "side %d q%u: post_write %u returned %d", s, q, x->posted, rc);
                    return;
                }
                m->t_post = now;
                x->posted++;
                kick = 1;
            }
            while (!p->no_recv[s] && (st == MRC_QPS_RTS || st == MRC_QPS_RTR) &&
                   x->recv_posted - x->recv_pulled < MRC_MAX_RQ) {
                int rc = mrc_conn_post_recv(x->c, x->recv_posted, now);
                if (rc == MRC_ERR_FULL) break;
                if (rc != MRC_OK) {
                    sc_failf(p, "side %d q%u: post_recv returned %d", s, q, rc);
                    return;
                }
                x->recv_posted++;
                kick = 1;
            }
        }
    }
    if (kick) mrc_wire_kick(&p->w);
}

/* every plan completed and every Write-IMM received */
int sc_all_done(sc_pair *p) {
    int s;
    unsigned q;
    for (s = 0; s < 2; s++)
        for (q = 0; q < p->nq; q++) {
            const sc_q *x = &p->q[s][q];
            if (x->done < x->nmsg) return 0;
            if (!p->no_recv[1 - s] && p->q[1 - s][q].imm_ok < x->nimm) return 0;
        }
    return 1;
}

int sc_stop_never(sc_pair *p) {
    (void)p;
    return 0;
}

static int sc_cb(void *ud) {
    sc_pair *p = (sc_pair *)ud;
    sc_pump(p);
    if (p->fail) return 1;
    sc_refill(p);
    if (p->fail) return 1;
    return p->stop ? p->stop(p) : sc_all_done(p);
}

/* run until the stop condition (1), the time limit (0) or a failure (p->fail set, returns -1) */
int sc_run_until(sc_pair *p, mrc_time until) {
    int r = mrc_wire_run(&p->w, until, sc_cb, p);
    if (r < 0) sc_failf(p, "mrc_wire_run returned %d", r);
    if (p->fail) return -1;
    return r;
}

/* Final memory check of side d, connections [qlo, qhi): guards intact; each byte of their slices written by a
 * message completed OK equals the source, every other byte still holds its initial value. */
int sc_mem_check_q(sc_pair *p, int d, unsigned qlo, unsigned qhi, char *why, size_t whylen) {
    const sc_pair *cp = p;
    unsigned q;
    uint32_t i;
    size_t b, lo = qlo * sc_slice(p), hi = qhi * sc_slice(p);
    const uint8_t *m = p->mem[d], *src = p->src[1 - d];
    for (b = 0; b < SC_GUARD; b++) {
        if (m[b] != SC_GUARD_BYTE || m[SC_GUARD + p->region + b] != SC_GUARD_BYTE) {
            snprintf(why, whylen, "side %d: guard byte %s+%u overwritten", d, m[b] != SC_GUARD_BYTE ? "pre" : "post",
                     (unsigned)b);
            return 0;
        }
    }
    memset(p->cov[d], 0, p->region);
    for (q = qlo; q < qhi; q++) {
        const sc_q *y = &cp->q[1 - d][q];
        for (i = 0; i < y->nmsg; i++)
            if (y->msg[i].status == MRC_OK && y->msg[i].len) memset(p->cov[d] + y->msg[i].off, 1, y->msg[i].len);
    }
    for (b = lo; b < hi; b++) {
        uint8_t want = p->cov[d][b] ? src[b] : (uint8_t)(src[b] ^ SC_INIT_XOR);
        if (m[SC_GUARD + b] != want) {
            snprintf(why, whylen, "side %d: byte %zu is %02x, expected %02x (%s)", d, b, m[SC_GUARD + b], want,
                     p->cov[d][b] ? "written" : "never written");
            return 0;
        }
    }
    return 1;
}
int sc_mem_check(sc_pair *p, int d, char *why, size_t whylen) {
    return sc_mem_check_q(p, d, 0, p->nq, why, whylen);
}

mrc_conn_stats sc_cstats(const sc_pair *p, int s, unsigned q) {
    mrc_conn_stats cs;
    mrc_conn_stats_get(p->q[s][q].c, &cs);
    return cs;
}
mrc_endpoint_stats sc_estats(const sc_pair *p, int s) {
    mrc_endpoint_stats es;
    mrc_endpoint_stats_get(p->ep[s], &es);
    return es;
}
mrc_wire_stats sc_wstats(const sc_pair *p, int from) {
    mrc_wire_stats ws;
    mrc_wire_stats_total(&p->w, from, &ws);
    return ws;
}

/* the standard end of a clean transfer: everything completed OK, memory exact, nothing dropped by the pool */
int sc_check_clean(sc_pair *p) {
    char why[200];
    int s;
    unsigned q;
    uint32_t i;
    mrc_wire_stats ws;
    SC_CHECKF(p, !p->fail, "%s", p->failmsg);
    SC_CHECK(p, sc_all_done(p));
    for (s = 0; s < 2; s++) {
        for (q = 0; q < p->nq; q++) {
            const sc_q *x = &p->q[s][q];
            SC_CHECK(p, mrc_conn_state(x->c) == MRC_QPS_RTS);
            SC_CHECK(p, x->n_conn_err == 0);
            for (i = 0; i < x->nmsg; i++) SC_CHECKF(p, x->msg[i].status == MRC_OK, "side %d q%u msg %u", s, q, i);
            if (!p->no_recv[1 - s]) SC_CHECK(p, p->q[1 - s][q].imm_ok == x->nimm);
            {   /* the peer placed every planned packet exactly once, duplicates and retransmissions never twice */
                mrc_conn_stats ps;
                const sc_q *y = &p->q[1 - s][q];
                mrc_conn_stats_get(y->c, &ps);
                SC_CHECKF(p, ps.rx_data - y->base_rx_data == x->npkts &&
                                 ps.rx_bytes_placed - y->base_rx_bytes == x->nbytes,
                          "side %d q%u: peer placed %llu packets / %llu bytes, planned %llu / %llu", s, q,
                          (unsigned long long)(ps.rx_data - y->base_rx_data),
                          (unsigned long long)(ps.rx_bytes_placed - y->base_rx_bytes), (unsigned long long)x->npkts,
                          (unsigned long long)x->nbytes);
            }
        }
        SC_CHECKF(p, sc_mem_check(p, s, why, sizeof why), "%s", why);
    }
    mrc_wire_stats_total(&p->w, MRC_WIRE_BOTH, &ws);
    SC_CHECK(p, ws.drop_pool == 0 && ws.drop_size == 0 && ws.drop_port == 0);
    /* the wire's books balance, and agree with the endpoints' */
    SC_CHECK(p, ws.tx_pkts + ws.dup == ws.delivered + ws.drop_down + ws.drop_filter + ws.drop_loss + ws.drop_queue +
                                           ws.drop_pool + ws.drop_size + ws.drop_port + mrc_wire_inflight(&p->w));
    for (s = 0; s < 2; s++) {
        mrc_wire_stats w = sc_wstats(p, s);
        mrc_endpoint_stats tx = sc_estats(p, s), rx = sc_estats(p, 1 - s);
        SC_CHECK(p, w.tx_pkts == tx.tx_pkts && w.tx_bytes == tx.tx_bytes);
        SC_CHECK(p, w.delivered + p->inj_rx[1 - s] == rx.rx_pkts && w.rx_rejected + p->inj_drop[1 - s] == rx.rx_drops);
    }
    return 0;
}

/* decode a tapped packet (returns 0 when it does not decode, e.g. trimmed below its headers) */
int sc_decode(const sc_pair *p, const uint8_t *pkt, size_t len, mrc_pkt *k) {
    return mrc_pkt_decode(pkt, len, &p->cfg[0].wire, k) == MRC_OK;
}
void sc_txlog_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_txlog *o = (sc_txlog *)p->ud;
    mrc_pkt k;
    (void)ti;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || o->n >= SC_MAXLOG) return;
    if (sc_is_data(k.bth.opcode)) {
        o->kind[o->n] = k.bth.rtx ? 1u : 0u;
    } else if (k.bth.opcode == MRC_OP_PROBE_REQ) { /* the counters tell the two kinds of probe apart */
        uint64_t t = sc_cstats(p, 0, 0).tx_probes;
        if (t == o->tlps) return; /* a probe of an ASSUMED_BAD EV: on its own clock, not logged */
        o->kind[o->n] = 2;
        o->tlps = t;
    } else {
        return;
    }
    o->t[o->n] = now;
    o->psn[o->n] = k.bth.psn;
    o->n++;
}
int sc_exhaust_stop(sc_pair *p) {
    const sc_q *x = &p->q[0][0];
    return x->n_conn_err && x->done == x->nmsg && x->recv_pulled == x->recv_posted;
}
/* ---- the attacker's tools --------------------------------------------------------------------------------------- */
/* Feed one forged packet to side 'to' now; returns mrc_endpoint_recv's code. */
int ho_inject(sc_pair *p, int to, const uint8_t *pkt, size_t n, uint8_t port, uint32_t ev, uint32_t peer) {
    mrc_rxinfo ri;
    int rc;
    memset(&ri, 0, sizeof ri);
    ri.port = port;
    ri.dscp = p->cfg[to].dscp[MRC_DSCP_CONTROL];
    ri.ev = ev;
    ri.peer = peer;
    ri.ecn = p->inj_ecn;
    rc = mrc_endpoint_recv(p->ep[to], pkt, n, &ri, sc_now(p));
    p->inj_rx[to]++;
    if (rc == MRC_ERR_DROP) p->inj_drop[to]++;
    mrc_wire_kick(&p->w);
    return rc;
}

ev_rec g_evlog[EV_LOGN];
unsigned g_evlog_n;

void ev_log_reset(void) { g_evlog_n = 0; }
/* sc_pump with a log of the controller events; completions only go to the harness */
static void ev_pump(sc_pair *p) {
    mrc_event ev;
    int s;
    for (s = 0; s < 2; s++) {
        if (!p->ep[s]) continue;
        while (mrc_endpoint_poll_event(p->ep[s], &ev) > 0) {
            if (ev.type != MRC_EVT_SEND_DONE && ev.type != MRC_EVT_RECV_IMM) {
                if (g_evlog_n < EV_LOGN) {
                    g_evlog[g_evlog_n].t = p->w_ok ? sc_now(p) : 0;
                    g_evlog[g_evlog_n].side = s;
                    g_evlog[g_evlog_n].e = ev;
                    g_evlog_n++;
                } else {
                    sc_failf(p, "the test's event log is full (%u events)", EV_LOGN); /* counts would be wrong */
                }
            }
            sc_on_event(p, s, &ev);
        }
    }
}
static int ev_cb(void *ud) {
    sc_pair *p = (sc_pair *)ud;
    ev_pump(p);
    if (p->fail) return 1;
    sc_refill(p);
    if (p->fail) return 1;
    return p->stop ? p->stop(p) : sc_all_done(p);
}
/* sc_run_until with ev_pump: 1 stop condition, 0 time limit, -1 failure */
int ev_run_until(sc_pair *p, mrc_time until) {
    int r = mrc_wire_run(&p->w, until, ev_cb, p);
    if (r < 0) sc_failf(p, "mrc_wire_run returned %d", r);
    if (p->fail) return -1;
    return r;
}
/* first logged EV_STATE event of side s, EV index idx, state st, at or after t0; MRC_TIME_NEVER when none */
mrc_time ev_log_first(int s, uint32_t idx, uint32_t st, mrc_time t0) {
    unsigned i;
    for (i = 0; i < g_evlog_n; i++) {
        const ev_rec *r = &g_evlog[i];
        if (r->side == s && r->e.type == MRC_EVT_EV_STATE && r->e.ev_index == idx && r->e.state == st && r->t >= t0)
            return r->t;
    }
    return MRC_TIME_NEVER;
}
unsigned ev_log_count(int s, unsigned type, uint32_t state) {
    unsigned i, n = 0;
    for (i = 0; i < g_evlog_n; i++)
        if (g_evlog[i].side == s && g_evlog[i].e.type == type && (!state || g_evlog[i].e.state == state)) n++;
    return n;
}
mrc_time ev_rtt(const sc_pair *p) { return 2u * (p->wc.link[0][0].delay_ns + 1000u); }
double ev_in_rtts(const sc_pair *p, mrc_time t) { return (double)t / (double)ev_rtt(p); }

/* Bring connection q of both sides (created by sc_start, nothing posted yet) back through RESET and up to RTS with
 * the given EV profiles; sc_connect always uses the AUTO profile. 0 on success. */
int ev_connect(sc_pair *p, unsigned q, uint64_t prof_a, uint64_t prof_b) {
    mrc_conn_attr a;
    mrc_time now = sc_now(p);
    int s, rc;
    for (s = 0; s < 2; s++) {
        sc_q *x = &p->q[s][q];
        memset(&a, 0, sizeof a);
        a.state = MRC_QPS_RESET;
        if ((rc = mrc_conn_modify(x->c, &a, MRC_ATTR_STATE, now)) != MRC_OK) return rc;
        a.state = MRC_QPS_INIT;
        a.ev_profile_id = s ? prof_b : prof_a;
        if ((rc = mrc_conn_modify(x->c, &a, MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, now)) !=
            MRC_OK)
            return rc;
    }
    for (s = 0; s < 2; s++) {
        a = p->attr[s];
        a.state = MRC_QPS_RTR;
        a.dest_qpn = mrc_conn_qpn(p->q[1 - s][q].c);
        a.rq_psn = p->attr[1 - s].sq_psn;
        if ((rc = mrc_conn_modify(p->q[s][q].c, &a,
                                  MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU |
                                      MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST | MRC_ATTR_CAPS,
                                  now)) != MRC_OK)
            return rc;
    }
    for (s = 0; s < 2; s++) {
        a = p->attr[s];
        a.state = MRC_QPS_RTS;
        if ((rc = mrc_conn_modify(p->q[s][q].c, &a,
                                  MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM |
                                      MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT,
                                  now)) != MRC_OK)
            return rc;
    }
    mrc_wire_kick(&p->w);
    return 0;
}

/* An EV Format profile, ONLINE: mode and field widths */
int ev_fmt_online(mrc_endpoint *ep, uint64_t id, unsigned mode, unsigned n, const uint8_t *w) {
    mrc_ev_fmt_attr f;
    unsigned i;
    memset(&f, 0, sizeof f);
    f.state = MRC_PROFILE_OFFLINE;
    f.mode = (uint8_t)mode;
    f.nfields = (uint8_t)n;
    for (i = 0; i < n && i < MRC_MAX_EV_FIELDS; i++) f.width[i] = w[i];
    if (mrc_ev_fmt_modify(ep, id, &f, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS))
        return -1;
    f.state = MRC_PROFILE_ONLINE;
    return mrc_ev_fmt_modify(ep, id, &f, MRC_EV_FMT_ATTR_STATE);
}
void ev_field(mrc_ev_field *f, uint32_t width, uint32_t init, uint32_t min, uint32_t max, uint32_t mask) {
    f->width = width;
    f->init_val = init;
    f->min_val = min;
    f->max_val = max;
    f->mask = mask;
}
/* An EV profile in OFFLINE (mode EXP or GEN) with every attribute given */
int ev_prof_offline(mrc_endpoint *ep, uint64_t id, unsigned mode, uint64_t fmt, uint32_t count,
                    uint32_t min_active, const mrc_ev_field *f, unsigned nf, mrc_time now) {
    mrc_ev_profile_attr a;
    unsigned i;
    memset(&a, 0, sizeof a);
    a.state = MRC_PROFILE_OFFLINE;
    a.mode = (uint8_t)mode;
    a.fmt_id = fmt;
    a.ev_count = count;
    a.ev_min_active = min_active;
    a.event_mask = MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD;
    a.nfields = (uint8_t)nf;
    for (i = 0; i < nf && i < MRC_MAX_EV_FIELDS; i++) a.field[i] = f[i];
    return mrc_ev_profile_modify(ep, id, &a,
                                 MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_MODE | MRC_EV_PROF_ATTR_FMT_ID |
                                     MRC_EV_PROF_ATTR_COUNT | MRC_EV_PROF_ATTR_MIN_ACTIVE |
                                     MRC_EV_PROF_ATTR_EVENT_MASK | MRC_EV_PROF_ATTR_FIELDS,
                                 now);
}
int ev_prof_state(mrc_endpoint *ep, uint64_t id, unsigned state, mrc_time now) {
    mrc_ev_profile_attr a;
    memset(&a, 0, sizeof a);
    a.state = (uint8_t)state;
    return mrc_ev_profile_modify(ep, id, &a, MRC_EV_PROF_ATTR_STATE, now);
}
/* A GEN profile over a 16-bit UDP format: 16-bit values 0xC000 | [1, 0x3FFF], ONLINE */
int ev_gen_udp(mrc_endpoint *ep, uint64_t fmt_id, uint64_t id, uint32_t count, uint32_t min_active) {
    static const uint8_t w16[1] = {16};
    mrc_ev_field f;
    ev_field(&f, 16, 0xC000u, 1, 0x3FFFu, 0x3FFFu);
    if (ev_fmt_online(ep, fmt_id, MRC_EV_FMT_UDP, 1, w16)) return -1;
    if (ev_prof_offline(ep, id, MRC_EV_MODE_GEN, fmt_id, count, min_active, &f, 1, 0)) return -2;
    return ev_prof_state(ep, id, MRC_PROFILE_ONLINE, 0);
}
/* index in the QP's EV set of (ev, port), or -1 */
int ev_find(const mrc_conn *c, uint32_t ev, uint8_t port) {
    unsigned i, n = mrc_conn_ev_count(c);
    for (i = 0; i < n; i++) {
        uint32_t v = 0;
        uint8_t pt = 0;
        (void)mrc_conn_ev_get(c, i, &v, &pt, NULL);
        if (v == ev && pt == port) return (int)i;
    }
    return -1;
}
uint32_t ev_state(const mrc_conn *c, unsigned idx) {
    uint32_t st = 0;
    (void)mrc_conn_ev_get(c, idx, NULL, NULL, &st);
    return st;
}

void ev_mkfmt(mrc_ev_fmt_attr *f, unsigned mode, unsigned n, const uint8_t *w) {
    unsigned i;
    memset(f, 0, sizeof *f);
    f->mode = (uint8_t)mode;
    f->nfields = (uint8_t)n;
    for (i = 0; i < n && i < MRC_MAX_EV_FIELDS; i++) f->width[i] = w[i];
}
/* one vector: the profile checks out, and abs expands to want (want_bits bits, zeros after) */
int ev_vec(const char *what, const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nf, const uint8_t *abs,
           size_t abs_len, const uint8_t *want, unsigned want_bits) {
    uint8_t out[MRC_EV_BYTES], zero[MRC_EV_BYTES];
    int rc = mrc_ev_profile_check(fmt, f, nf);
    CHECKF(rc == MRC_OK, "%s: profile check %d", what, rc);
    memset(out, 0xEE, sizeof out);
    memset(zero, 0, sizeof zero);
    rc = mrc_ev_expand(fmt, f, nf, abs, abs_len, out, sizeof out);
    CHECKF(rc == (int)want_bits, "%s: expand returned %d, want %u bits", what, rc, want_bits);
    CHECKF(ut_bytes_eq(what, out, want, want_bits / 8u), "%s: expanded EV", what);
    CHECKF(ut_bytes_eq(what, out + want_bits / 8u, zero, sizeof out - want_bits / 8u), "%s: padding", what);
    return 0;
}
/* profile id on ep, EXP over format fmt_id, count EVs with the given abstract values and ports, ONLINE */
int ev_exp_online(mrc_endpoint *ep, uint64_t id, uint64_t fmt_id, const mrc_ev_field *f, unsigned nf,
                  unsigned count, const uint8_t (*vals)[MRC_EV_BYTES], const uint8_t *ports) {
    unsigned i;
    if (ev_prof_offline(ep, id, MRC_EV_MODE_EXP, fmt_id, count, 1, f, nf, 0)) return -1;
    for (i = 0; i < count; i++) {
        mrc_ev_op_entry e;
        uint32_t n = 1;
        memset(&e, 0, sizeof e); /* the unpopulated entry: zero value, port 0 */
        memcpy(e.ev_new.val, vals[i], MRC_EV_BYTES);
        e.ev_new.port = ports[i];
        e.state = MRC_EVS_GOOD;
        if (mrc_ev_op(ep, id, MRC_EV_OP_REPLACE, &e, &n, 0) != MRC_OK || n != 1) return -2;
    }
    return ev_prof_state(ep, id, MRC_PROFILE_ONLINE, 0);
}
