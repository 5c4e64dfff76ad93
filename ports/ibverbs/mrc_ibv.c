/* mrc_ibv.c - ibverbs port adapter for open MRC. See mrc_ibv.h and README.md.
 *
 * Only devices, buffers and time live here: completions in -> mrc_endpoint_recv, mrc_endpoint_poll_tx -> send work
 * requests out, the core's absolute deadline -> the ppoll timeout while the completion channel is armed. The first
 * half is device-independent (it is what mrc_ibv_test.c exercises without a device); the second half makes the
 * verbs calls.
 */
#define _GNU_SOURCE
/* the shared frame codec, private to this unit (static), so that whatever else a program links (another port, a
   pcap writer) may carry its own copy without a clash */
#define MRC_FRAME_STATIC
#include "mrc_ibv.h"
#define MRC_FRAME_IMPLEMENTATION
#include "../common/mrc_frame.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef char mrc_ibv__rule_fits[(sizeof(struct ibv_flow_attr) + sizeof(struct ibv_flow_spec_eth) +
                                 sizeof(struct ibv_flow_spec_ipv6) + sizeof(struct ibv_flow_spec_tcp_udp) <=
                                 MRC_IBV_FLOW_RULE_MAX) ? 1 : -1];
typedef char mrc_ibv__slot_fits[(MRC_FRAME_MAX <= MRC_IBV_SLOT &&
                                 MRC_IBV_GRH_LEN + MRC_HDR_MAX + 4096u + 3u <= MRC_IBV_SLOT) ? 1 : -1];

/* ================================================================================================================
 * Device-independent pieces
 * ============================================================================================================== */
const char *mrc_ibv_carrier_name(int carrier) {
    return carrier == MRC_IBV_RAW ? "raw" : carrier == MRC_IBV_UD ? "ud" : carrier == MRC_IBV_AUTO ? "auto" : "?";
}

int mrc_ibv_carrier_for(const char *dev_name, const char *driver, int force) {
    /* providers with raw packet QPs, by kernel driver of the device and by the provider's device name */
    static const char *const drv[] = {"mlx4_core", "mlx5_core", "mana", "bnxt_en", "bnxt_re"};
    static const char *const pre[] = {"mlx4_", "mlx5_", "mana_", "bnxt_re"};
    size_t i;
    if (force == MRC_IBV_RAW || force == MRC_IBV_UD) return force;
    if (driver && *driver) { /* authoritative: device names can be renamed (rocep1s0f0, ...) */
        for (i = 0; i < sizeof drv / sizeof drv[0]; i++)
            if (!strcmp(driver, drv[i])) return MRC_IBV_RAW;
        return MRC_IBV_UD;
    }
    if (dev_name)
        for (i = 0; i < sizeof pre / sizeof pre[0]; i++)
            if (!strncmp(dev_name, pre[i], strlen(pre[i]))) return MRC_IBV_RAW;
    return MRC_IBV_UD;
}

int mrc_ibv_mtu_fits(int carrier, int ipv6, unsigned mrc_mtu, unsigned link_mtu) {
    unsigned need;
    if (carrier == MRC_IBV_RAW) /* IP + UDP + the longest MRC header stack + payload + pad + ICRC */
        need = (ipv6 ? MRC_FRAME_IPV6_LEN : MRC_FRAME_IPV4_LEN) + MRC_FRAME_UDP_LEN + (unsigned)MRC_HDR_MAX + mrc_mtu +
               3u + MRC_FRAME_ICRC_LEN;
    else if (carrier == MRC_IBV_UD) /* the UD payload: MRC headers + payload + pad, within one IB MTU */
        need = (unsigned)MRC_HDR_MAX + mrc_mtu + 3u;
    else
        return 0;
    return need <= link_mtu;
}

int mrc_ibv_flow_rule_build(mrc_ibv_flow_rule *r, uint8_t port, const mrc_frame_addr *local, int ipv6,
                            uint16_t udp_dport, int vlan, uint16_t vlan_tci) {
    struct ibv_flow_attr a;
    struct ibv_flow_spec_eth eth;
    struct ibv_flow_spec_ipv4 v4;
    struct ibv_flow_spec_ipv6 v6;
    struct ibv_flow_spec_tcp_udp udp;
    size_t o, l3 = ipv6 ? sizeof v6 : sizeof v4, total;
    if (!r || !local || !port || !udp_dport) return -1;
    total = sizeof a + sizeof eth + l3 + sizeof udp;
    memset(r, 0, sizeof *r);
    memset(&a, 0, sizeof a);
    memset(&eth, 0, sizeof eth);
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    memset(&udp, 0, sizeof udp);
    a.comp_mask = 0;
    a.type = IBV_FLOW_ATTR_NORMAL;
    a.size = (uint16_t)total;
    a.priority = 0;
    a.num_of_specs = 3;
    a.port = port;
    a.flags = 0;
    eth.type = IBV_FLOW_SPEC_ETH;
    eth.size = (uint16_t)sizeof eth;
    memcpy(eth.val.dst_mac, local->mac, 6);
    memset(eth.mask.dst_mac, 0xFF, 6);
    eth.val.ether_type = htons((uint16_t)(ipv6 ? 0x86DDu : 0x0800u));
    eth.mask.ether_type = 0xFFFFu;
    if (vlan) { /* the VLAN ID only: priority and DEI may be rewritten on the way */
        eth.val.vlan_tag = htons((uint16_t)(vlan_tci & 0x0FFFu));
        eth.mask.vlan_tag = htons((uint16_t)0x0FFFu);
    }
    o = 0;
    memcpy(r->b + o, &a, sizeof a);
    o += sizeof a;
    memcpy(r->b + o, &eth, sizeof eth);
    o += sizeof eth;
    if (ipv6) {
        v6.type = IBV_FLOW_SPEC_IPV6;
        v6.size = (uint16_t)sizeof v6;
        memcpy(v6.val.dst_ip, local->ip, 16);
        memset(v6.mask.dst_ip, 0xFF, 16);
        memcpy(r->b + o, &v6, sizeof v6);
    } else {
        v4.type = IBV_FLOW_SPEC_IPV4;
        v4.size = (uint16_t)sizeof v4;
        memcpy(&v4.val.dst_ip, local->ip, 4); /* network order, as the frame carries it */
        v4.mask.dst_ip = 0xFFFFFFFFu;
        memcpy(r->b + o, &v4, sizeof v4);
    }
    o += l3;
    udp.type = IBV_FLOW_SPEC_UDP;
    udp.size = (uint16_t)sizeof udp;
    udp.val.dst_port = htons(udp_dport);
    udp.mask.dst_port = 0xFFFFu;
    memcpy(r->b + o, &udp, sizeof udp);
    return (int)total;
}

/* ---- registered regions ---------------------------------------------------------------------------------------- */
int mrc_ibv_mrtab_add(mrc_ibv_mrtab *t, const void *base, size_t len, uint32_t lkey, void *mr) {
    if (!t || !base || !len || t->n >= MRC_IBV_MAX_MRS) return -1;
    t->e[t->n].base = (const uint8_t *)base;
    t->e[t->n].len = len;
    t->e[t->n].lkey = lkey;
    t->e[t->n].mr = mr;
    t->n++;
    return 0;
}

void *mrc_ibv_mrtab_del(mrc_ibv_mrtab *t, const void *base) {
    unsigned i;
    if (!t) return NULL;
    for (i = 0; i < t->n; i++)
        if (t->e[i].base == (const uint8_t *)base) {
            void *mr = t->e[i].mr;
            t->e[i] = t->e[--t->n];
            return mr;
        }
    return NULL;
}

int mrc_ibv_mrtab_find(const mrc_ibv_mrtab *t, const void *p, size_t len, uint32_t *lkey) {
    uintptr_t a = (uintptr_t)p;
    unsigned i;
    if (!t || !p) return 0;
    for (i = 0; i < t->n; i++) {
        uintptr_t b = (uintptr_t)t->e[i].base;
        if (a >= b && a - b <= t->e[i].len && len <= t->e[i].len - (a - b)) {
            if (lkey) *lkey = t->e[i].lkey;
            return 1;
        }
    }
    return 0;
}

/* ---- transmit layout ------------------------------------------------------------------------------------------- */
static void mrc_ibv__sge(struct ibv_sge *s, const void *p, size_t len, uint32_t lkey) {
    s->addr = (uint64_t)(uintptr_t)p;
    s->length = (uint32_t)len;
    s->lkey = lkey;
}

int mrc_ibv_tx_plan(const mrc_ibv_mrtab *t, uint8_t *slot, size_t slot_cap, uint32_t slot_lkey, size_t hlen,
                    const uint8_t *payload, uint32_t plen, unsigned pad, const uint8_t *trailer4, uint32_t max_inline,
                    mrc_ibv_txplan *out) {
    size_t tl = pad + (trailer4 ? 4u : 0u), total = hlen + plen + tl;
    uint32_t lkey = 0;
    int inl, zc;
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    if (!slot || !hlen || pad > 3u || (plen && !payload) || hlen + MRC_IBV_TRAILER > slot_cap || total > 0xFFFFu)
        return -1;
    out->len = (uint32_t)total;
    inl = total <= max_inline;
    zc = !inl && plen && mrc_ibv_mrtab_find(t, payload, plen, &lkey);
    if (plen && !inl && !zc) { /* no region covers the payload: one SGE over a copy */
        if (total > slot_cap) return -1;
        memcpy(slot + hlen, payload, plen);
        memset(slot + hlen + plen, 0, pad);
        if (trailer4) memcpy(slot + hlen + plen + pad, trailer4, 4);
        mrc_ibv__sge(&out->sge[0], slot, total, slot_lkey);
        out->nsge = 1;
        out->copied = 1;
        return 0;
    }
    /* pad and trailer right after the headers in the slot: contiguous with them when there is no payload, else a
       third SGE (they follow the payload on the wire) */
    memset(slot + hlen, 0, pad);
    if (trailer4) memcpy(slot + hlen + pad, trailer4, 4);
    if (!plen) {
        mrc_ibv__sge(&out->sge[0], slot, hlen + tl, slot_lkey);
        out->nsge = 1;
    } else {
        mrc_ibv__sge(&out->sge[0], slot, hlen, slot_lkey);
        mrc_ibv__sge(&out->sge[1], payload, plen, lkey);
        out->nsge = 2;
        if (tl) mrc_ibv__sge(&out->sge[out->nsge++], slot + hlen, tl, slot_lkey);
    }
    if (inl) out->send_flags = IBV_SEND_INLINE;
    return 0;
}

size_t mrc_ibv_tx_gather(const mrc_ibv_txplan *p, uint8_t *out, size_t cap) {
    size_t o = 0;
    unsigned i;
    if (!p || !out || p->nsge > MRC_IBV_MAX_SGE) return 0;
    for (i = 0; i < p->nsge; i++) {
        if (p->sge[i].length > cap - o) return 0;
        memcpy(out + o, (const void *)(uintptr_t)p->sge[i].addr, p->sge[i].length);
        o += p->sge[i].length;
    }
    return o;
}

/* ---- receive ring ---------------------------------------------------------------------------------------------- */
enum { RX_FREE = 0, RX_POSTED = 1, RX_HELD = 2 };

int mrc_ibv_rxring_init(mrc_ibv_rxring *r, uint32_t nslots, uint32_t slot_size, uint32_t data_off) {
    void *m = NULL;
    uint32_t i;
    if (!r) return -1;
    memset(r, 0, sizeof *r);
    if (!nslots || nslots > (1u << 20) || slot_size < 64u || data_off >= slot_size) return -1;
    if (posix_memalign(&m, 4096, (size_t)nslots * slot_size) != 0) return -1;
    r->mem = (uint8_t *)m;
    r->state = (uint8_t *)calloc(nslots, 1);
    r->todo = (uint32_t *)malloc((size_t)nslots * sizeof *r->todo);
    if (!r->state || !r->todo) {
        mrc_ibv_rxring_free(r);
        return -1;
    }
    memset(r->mem, 0, (size_t)nslots * slot_size);
    r->nslots = nslots;
    r->slot_size = slot_size;
    r->data_off = data_off;
    for (i = 0; i < nslots; i++) r->todo[i] = i;
    r->todo_len = nslots;
    return 0;
}

void mrc_ibv_rxring_free(mrc_ibv_rxring *r) {
    if (!r) return;
    free(r->mem);
    free(r->state);
    free(r->todo);
    memset(r, 0, sizeof *r);
}

uint8_t *mrc_ibv_rxring_slot(const mrc_ibv_rxring *r, uint32_t id) {
    return r && id < r->nslots ? r->mem + (size_t)id * r->slot_size : NULL;
}

unsigned mrc_ibv_rxring_take(mrc_ibv_rxring *r, uint32_t *ids, unsigned max) {
    unsigned n = 0;
    while (n < max && r->todo_len) {
        uint32_t id = r->todo[r->todo_head];
        r->todo_head = (r->todo_head + 1u) % r->nslots;
        r->todo_len--;
        r->state[id] = RX_POSTED;
        r->posted++;
        ids[n++] = id;
    }
    return n;
}

static void mrc_ibv__rx_push(mrc_ibv_rxring *r, uint32_t id, int front) {
    r->state[id] = RX_FREE;
    if (front) {
        r->todo_head = (r->todo_head + r->nslots - 1u) % r->nslots;
        r->todo[r->todo_head] = id;
    } else {
        r->todo[(r->todo_head + r->todo_len) % r->nslots] = id;
    }
    r->todo_len++;
}

void mrc_ibv_rxring_unpost(mrc_ibv_rxring *r, uint32_t id) {
    if (!r || id >= r->nslots || r->state[id] != RX_POSTED) return;
    r->posted--;
    mrc_ibv__rx_push(r, id, 1);
}

int mrc_ibv_rxring_complete(mrc_ibv_rxring *r, uint64_t wr_id, uint32_t byte_len, const uint8_t **data,
                            size_t *len) {
    uint32_t id;
    if (!r || wr_id >= r->nslots || r->state[wr_id] != RX_POSTED) return MRC_IBV_RX_BADID;
    id = (uint32_t)wr_id;
    r->posted--;
    if (byte_len < r->data_off || byte_len > r->slot_size) {
        mrc_ibv__rx_push(r, id, 0);
        return MRC_IBV_RX_BADLEN;
    }
    r->state[id] = RX_HELD;
    if (data) *data = r->mem + (size_t)id * r->slot_size + r->data_off;
    if (len) *len = byte_len - r->data_off;
    return MRC_IBV_RX_OK;
}

int mrc_ibv_rxring_fail(mrc_ibv_rxring *r, uint64_t wr_id) {
    if (!r || wr_id >= r->nslots || r->state[wr_id] != RX_POSTED) return MRC_IBV_RX_BADID;
    r->posted--;
    mrc_ibv__rx_push(r, (uint32_t)wr_id, 0);
    return MRC_IBV_RX_OK;
}

void mrc_ibv_rxring_release(mrc_ibv_rxring *r, uint32_t id) {
    if (!r || id >= r->nslots || r->state[id] != RX_HELD) return;
    mrc_ibv__rx_push(r, id, 0);
}

/* ---- the UD mapping -------------------------------------------------------------------------------------------- */
uint32_t mrc_ibv_ud_flow_label(uint32_t ev) { return ev & 0xFFFFFu; }

uint8_t mrc_ibv_ud_tclass(unsigned dscp, int ect) { return (uint8_t)((dscp & 63u) << 2 | (ect ? 2u : 0u)); }

int mrc_ibv_grh_parse(const uint8_t *g, int ipv4, mrc_ibv_grh_info *o) {
    if (!g || !o) return -1;
    memset(o, 0, sizeof *o);
    if (ipv4) { /* RoCEv2 over IPv4: the 20-byte IPv4 header is the last half of the slot */
        const uint8_t *h = g + 20;
        if (h[0] != 0x45u) return -1;
        o->dscp = (uint8_t)(h[1] >> 2);
        o->ecn = (uint8_t)(h[1] & 3u);
        memcpy(o->src_ip, h + 12, 4);
        return 0;
    }
    if ((g[0] >> 4) != 6u) return -1;
    {
        unsigned tc = (unsigned)(g[0] & 0x0Fu) << 4 | (unsigned)(g[1] >> 4);
        o->ipv6 = 1;
        o->dscp = (uint8_t)(tc >> 2);
        o->ecn = (uint8_t)(tc & 3u);
        o->flow_label = (uint32_t)(g[1] & 0x0Fu) << 16 | (uint32_t)g[2] << 8 | g[3];
        memcpy(o->src_ip, g + 8, 16);
    }
    return 0;
}

int mrc_ibv_ev_index(uint32_t ev, uint32_t ev_base, unsigned plane, unsigned K) {
    uint32_t b;
    if (!plane || !K) return -1;
    b = ev_base + (plane - 1u) * K;
    return ev >= b && ev - b < K ? (int)(ev - b) : -1;
}

int mrc_ibv_dscp_index(const uint8_t *list, unsigned n, unsigned dscp) {
    unsigned i;
    for (i = 0; list && i < n; i++)
        if (list[i] == dscp) return (int)i;
    return -1;
}

/* ---- events held for the NIC ----------------------------------------------------------------------------------- */
int mrc_ibv_evhold_init(mrc_ibv_evhold *h, unsigned cap, unsigned planes) {
    if (!h) return -1;
    memset(h, 0, sizeof *h);
    if (!cap || !planes || planes > MRC_IBV_MAX_PLANES) return -1;
    h->q = (mrc_ibv_held *)calloc(cap, sizeof *h->q);
    if (!h->q) return -1;
    h->cap = cap;
    h->planes = planes;
    return 0;
}

void mrc_ibv_evhold_free(mrc_ibv_evhold *h) {
    if (!h) return;
    free(h->q);
    memset(h, 0, sizeof *h);
}

int mrc_ibv_evhold_full(const mrc_ibv_evhold *h) { return !h || h->len >= h->cap; }

int mrc_ibv_evhold_put(mrc_ibv_evhold *h, const mrc_event *ev, const uint64_t *head, const uint64_t *tail) {
    unsigned p;
    int busy = 0;
    mrc_ibv_held *x;
    if (!h || !ev || !head || !tail) return -1;
    for (p = 0; p < h->planes; p++) busy |= tail[p] < head[p];
    if (!h->len && (ev->type != MRC_EVT_SEND_DONE || !busy)) return 0;
    if (h->len >= h->cap) return -1;
    x = &h->q[(h->head + h->len) % h->cap];
    x->ev = *ev;
    for (p = 0; p < h->planes; p++) x->snap[p] = head[p];
    h->len++;
    h->held++;
    return 1;
}

int mrc_ibv_evhold_get(mrc_ibv_evhold *h, const uint64_t *tail, mrc_event *ev) {
    const mrc_ibv_held *x;
    unsigned p;
    if (!h || !h->len || !tail || !ev) return 0;
    x = &h->q[h->head];
    for (p = 0; p < h->planes; p++)
        if (tail[p] < x->snap[p]) return 0;
    *ev = x->ev;
    h->head = (h->head + 1u) % h->cap;
    h->len--;
    return 1;
}

/* ---- the spec of --ibv ----------------------------------------------------------------------------------------- */
void mrc_ibv_spec_default(mrc_ibv_spec *s) {
    memset(s, 0, sizeof *s);
    s->carrier = MRC_IBV_AUTO;
    s->gid_index = -1;
    s->dport = MRC_IBV_DPORT;
    s->vlan = -1;
    s->txq = 256;
    s->rxq = 512;
    s->inline_size = 128;
}

static int mrc_ibv__num(const char *s, unsigned long lo, unsigned long hi, unsigned long *out) {
    char *end;
    unsigned long v;
    if (!s || !*s || *s == '-' || *s == '+') return -1;
    errno = 0;
    v = strtoul(s, &end, 0);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int mrc_ibv_spec_parse(mrc_ibv_spec *s, const char *spec, char *err, size_t errlen) {
    char buf[512], *tok, *save = NULL;
    if (!s) return -1;
    mrc_ibv_spec_default(s);
    if (!spec || !*spec) {
        snprintf(err, errlen, "--ibv needs a device name (e.g. mlx5_0)");
        return -1;
    }
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "--ibv spec too long");
        return -1;
    }
    strcpy(buf, spec);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        unsigned long v;
        if (!eq) { /* a device: NAME or NAME:PORT */
            char *colon = strchr(tok, ':');
            unsigned long port = 1;
            if (colon) {
                *colon = 0;
                if (mrc_ibv__num(colon + 1, 1, 255, &port)) goto bad;
            }
            if (!*tok || strlen(tok) >= sizeof s->dev[0] || s->ndev >= MRC_IBV_MAX_DEVS) goto bad;
            strcpy(s->dev[s->ndev], tok);
            s->dev_port[s->ndev++] = (uint8_t)port;
            continue;
        }
        *eq++ = 0;
        if (!strcmp(tok, "carrier")) {
            if (!strcmp(eq, "auto")) s->carrier = MRC_IBV_AUTO;
            else if (!strcmp(eq, "raw")) s->carrier = MRC_IBV_RAW;
            else if (!strcmp(eq, "ud")) s->carrier = MRC_IBV_UD;
            else goto bad;
        } else if (!strcmp(tok, "gid")) {
            if (mrc_ibv__num(eq, 0, 1023, &v)) goto bad;
            s->gid_index = (int)v;
        } else if (!strcmp(tok, "dport")) {
            if (mrc_ibv__num(eq, 1, 65535, &v)) goto bad;
            s->dport = (unsigned)v;
        } else if (!strcmp(tok, "vlan")) {
            if (mrc_ibv__num(eq, 0, 0xFFFF, &v)) goto bad;
            s->vlan = (int)v;
        } else if (!strcmp(tok, "txq") || !strcmp(tok, "rxq")) {
            if (mrc_ibv__num(eq, 16, 8192, &v) || (v & (v - 1u))) goto bad;
            if (tok[0] == 't') s->txq = (unsigned)v;
            else s->rxq = (unsigned)v;
        } else if (!strcmp(tok, "inline")) {
            if (mrc_ibv__num(eq, 0, 1024, &v)) goto bad;
            s->inline_size = (unsigned)v;
        } else {
            goto bad;
        }
    }
    if (!s->ndev) {
        snprintf(err, errlen, "--ibv '%s' names no device", spec);
        return -1;
    }
    return 0;
bad:
    snprintf(err, errlen,
             "bad --ibv '%s' (DEV[:PORT][,DEV...][,carrier=auto|raw|ud][,gid=N][,dport=N][,vlan=TCI][,txq=N]"
             "[,rxq=N][,inline=N])",
             spec);
    return -1;
}

/* ---- one plane's packet path ----------------------------------------------------------------------------------- */
int mrc_ibv_path_init(mrc_ibv_path *p, int carrier, unsigned plane, int ipv6, const mrc_frame_addr *local,
                      uint16_t dport, int vlan) {
    mrc_frame_cfg c;
    if (!p || !local || (carrier != MRC_IBV_RAW && carrier != MRC_IBV_UD) || plane < 1 || plane > MRC_IBV_MAX_PLANES ||
        !dport)
        return MRC_ERR_INVAL;
    memset(p, 0, sizeof *p);
    mrc_frame_cfg_default(&c);
    c.ipv6 = (uint8_t)(ipv6 != 0);
    c.vlan = (uint8_t)(vlan >= 0);
    c.vlan_tci = (uint16_t)(vlan >= 0 ? vlan : 0);
    c.udp_dport = dport;
    if (mrc_frame_init(&p->fr, &c) != MRC_OK) return MRC_ERR_INVAL;
    p->carrier = (uint8_t)carrier;
    p->plane = (uint8_t)plane;
    p->ipv6 = (uint8_t)(ipv6 != 0);
    p->local = *local;
    p->local_dport = dport;
    return MRC_OK;
}

void mrc_ibv_path_set_peer(mrc_ibv_path *p, const mrc_frame_addr *peer, uint16_t dport, uint32_t qpn,
                           uint32_t handle) {
    if (!p || !peer) return;
    p->peer = *peer;
    p->peer_dport = dport;
    p->peer_qpn = qpn;
    p->peer_handle = handle;
    p->have_peer = 1;
}

size_t mrc_ibv_path_hdr_len(const mrc_ibv_path *p, const mrc_txinfo *ti) {
    return p && p->carrier == MRC_IBV_RAW ? mrc_frame_hdr_len(&p->fr, ti) : 0u;
}

int mrc_ibv_path_tx(mrc_ibv_path *p, const mrc_endpoint *ep, const mrc_txinfo *ti, const uint8_t *hdr,
                    const mrc_ibv_mrtab *mrs, uint8_t *slot, size_t slot_cap, uint32_t slot_lkey, uint32_t max_inline,
                    mrc_ibv_txplan *out) {
    int rc;
    if (!p || !ti || !hdr || !slot || !out || !p->have_peer || !ti->hdr_len || ti->hdr_len > MRC_HDR_MAX ||
        (ti->payload_len && !ti->payload) || ti->pad > 3u)
        return MRC_ERR_INVAL;
    if (p->carrier == MRC_IBV_RAW) {
        mrc_ev_hdrs evh;
        size_t l3 = 0, hl;
        uint8_t icrc[4];
        int h;
        if (mrc_endpoint_ev_headers(ep, ti, &evh) != MRC_OK) return MRC_ERR_INVAL;
        p->fr.cfg.udp_dport = p->peer_dport; /* the codec writes cfg.udp_dport as the destination */
        h = mrc_frame_write_hdr(&p->fr, &p->local, &p->peer, ti, &evh, slot, slot_cap, &l3);
        p->fr.cfg.udp_dport = p->local_dport; /* ... and checks it on receive */
        if (h < 0) return h;
        hl = (size_t)h + ti->hdr_len;
        if (hl + MRC_IBV_TRAILER > slot_cap) return MRC_ERR_NOBUF;
        memcpy(slot + h, hdr, ti->hdr_len);
        mrc_icrc_put(icrc, mrc_frame_icrc(&p->fr, slot + l3, hl - l3, ti->payload, ti->payload_len, ti->pad));
        rc = mrc_ibv_tx_plan(mrs, slot, slot_cap, slot_lkey, hl, ti->payload, ti->payload_len, ti->pad, icrc,
                             max_inline, out);
    } else {
        memcpy(slot, hdr, ti->hdr_len);
        rc = mrc_ibv_tx_plan(mrs, slot, slot_cap, slot_lkey, ti->hdr_len, ti->payload, ti->payload_len, ti->pad,
                             NULL, max_inline, out);
        out->imm = ti->ev;
    }
    if (rc) return MRC_ERR_NOBUF;
    p->st.tx_pkts++;
    p->st.tx_bytes += out->len;
    if (out->send_flags & IBV_SEND_INLINE) p->st.tx_inline++;
    else if (out->copied) p->st.tx_copied++;
    else if (ti->payload_len) p->st.tx_zero_copy++;
    return MRC_OK;
}

int mrc_ibv_path_rxinfo(mrc_ibv_path *p, const uint8_t *grh, const uint8_t **buf, size_t *len,
                        const mrc_ibv_rxmeta *m, mrc_rxinfo *ri) {
    if (!p || !buf || !*buf || !len || !ri) return MRC_ERR_DROP;
    p->st.rx_pkts++;
    p->st.rx_bytes += *len;
    memset(ri, 0, sizeof *ri);
    if (p->carrier == MRC_IBV_RAW) {
        mrc_frame_rx rx;
        if (mrc_frame_parse(&p->fr, &p->local, *buf, *len, &rx) != MRC_FRAME_OK) return MRC_ERR_DROP;
        if (!p->have_peer || memcmp(rx.src_ip, p->peer.ip, p->ipv6 ? 16u : 4u) != 0) {
            p->st.rx_foreign++;
            return MRC_ERR_DROP;
        }
        mrc_frame_rxinfo(&rx, p->plane, p->peer_handle, ri);
        *buf += rx.mrc_off;
        *len = rx.mrc_len;
    } else {
        mrc_ibv_grh_info g;
        if (!grh || mrc_ibv_grh_parse(grh, !p->ipv6, &g) != 0) {
            p->st.rx_bad_grh++;
            return MRC_ERR_DROP;
        }
        if (!p->have_peer || !m || m->src_qp != p->peer_qpn || memcmp(g.src_ip, p->peer.ip, p->ipv6 ? 16u : 4u)) {
            p->st.rx_foreign++;
            return MRC_ERR_DROP;
        }
        ri->port = p->plane;
        ri->dscp = g.dscp;
        ri->ecn = g.ecn;
        ri->peer = p->peer_handle;
        /* the EV: what the sender's core chose travels in the immediate; over IPv6 the flow label the network saw
           must agree (a provider that rewrites it is counted) */
        if (m->has_imm) {
            ri->ev = m->imm;
            if (g.ipv6 && g.flow_label && g.flow_label != mrc_ibv_ud_flow_label(m->imm)) p->st.ev_mismatch++;
        } else {
            ri->ev = g.flow_label;
        }
    }
    if (ri->ecn == 3u) p->st.rx_ce++;
    return MRC_OK;
}

int mrc_ibv_path_rx(mrc_ibv_path *p, mrc_endpoint *ep, const uint8_t *grh, const uint8_t *buf, size_t len,
                    const mrc_ibv_rxmeta *m, mrc_time now) {
    mrc_rxinfo ri;
    if (!ep || mrc_ibv_path_rxinfo(p, grh, &buf, &len, m, &ri) != MRC_OK) return MRC_ERR_DROP;
    /* buf is in the adapter's own receive slot (or the caller's buffer in tests): the hook may rewrite it */
    if (p->rx_hook && p->rx_hook(p->rx_hook_ctx, (uint8_t *)(uintptr_t)buf, len)) {
        p->st.rx_hook_drop++;
        return MRC_ERR_DROP;
    }
    if (mrc_endpoint_recv(ep, buf, len, &ri, now) != MRC_OK) {
        p->st.rx_core_drop++;
        return MRC_ERR_DROP;
    }
    return MRC_OK;
}

int mrc_ibv_ev_profile_set(mrc_endpoint *ep, unsigned planes, unsigned K, uint32_t ev_base, uint64_t fmt_id,
                           uint64_t prof_id, unsigned min_active, mrc_time now) {
    /* EV i: plane i % P + 1, that plane's EV i / P */
    if (ev_base > 65535u) return MRC_ERR_INVAL;
    return mrc_ev_profile_udp_planes(ep, fmt_id, prof_id, planes, K, (unsigned)ev_base, min_active, now);
}

/* ================================================================================================================
 * The device-backed adapter
 * ============================================================================================================== */
#define IB_RX_BIT ((uint64_t)1 << 63)  /* wr_id of receives; sends carry their ring sequence number */
#define IB_SIGNAL_EVERY 16u            /* besides the last of every post */
#define IB_HOLD 256u                   /* events held back by mrc_ibv_poll_event */
#define IB_POLL 32                     /* completions per ibv_poll_cq */

typedef struct ib_dev {
    char name[64], driver[64];
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_comp_channel *ch;
} ib_dev;

typedef struct ib_plane {
    mrc_ibv_path path;
    unsigned dev;              /* index into ib->dev */
    uint8_t port;
    int gid_index;
    uint8_t gid_v4;
    char ifname[IF_NAMESIZE];
    unsigned netdev_mtu;       /* 0: unknown */
    unsigned ib_mtu;           /* the port's active MTU in bytes */
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_flow *flow;
    uint32_t max_inline;
    unsigned cq_unacked;
    /* send ring: slot of sequence s is tx_mem + (s % txq) * MRC_IBV_SLOT; [tx_tail, tx_head) are the NIC's */
    uint8_t *tx_mem;
    struct ibv_mr *tx_mr;
    uint64_t tx_head, tx_tail;
    struct ibv_send_wr wr[MRC_IBV_MAX_BATCH];
    struct ibv_sge sge[MRC_IBV_MAX_BATCH][MRC_IBV_MAX_SGE];
    unsigned nwr;
    /* receive ring */
    mrc_ibv_rxring rx;
    struct ibv_mr *rx_mr;
    /* UD: address handles [k * ndscp + d] */
    struct ibv_ah **ah;
} ib_plane;

struct mrc_ibv {
    mrc_ibv_config cfg;
    unsigned P, K, ndev, txq, rxq, ndscp;
    int carrier;
    char why[200];             /* how the carrier was chosen */
    ib_dev dev[MRC_IBV_MAX_DEVS];
    ib_plane pl[MRC_IBV_MAX_PLANES];
    mrc_ibv_mrtab mrs;
    int watch[MRC_IBV_MAX_WATCH];
    unsigned nwatch;
    mrc_ibv_evhold hold;       /* events waiting for the NIC (mrc_ibv_poll_event) */
    int fatal;
    int raw_refused;           /* the device would not create a raw packet QP, its flow rule, or bring it up */
    char err[256];
    mrc_ibv_stats st;
};

static int ib_post(mrc_ibv *ib, ib_plane *pl);
static int ib_poll_cqs(mrc_ibv *ib, mrc_endpoint *ep);

mrc_time mrc_ibv_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (mrc_time)ts.tv_sec * 1000000000u + (mrc_time)ts.tv_nsec;
}

void mrc_ibv_config_default(mrc_ibv_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    mrc_ibv_spec_default(&cfg->spec);
    cfg->family = AF_INET;
    cfg->planes = 1;
    cfg->evs_per_plane = 16;
    cfg->mtu = 4096;
    cfg->batch = 32;
    cfg->tx_burst = 64;
    cfg->ecn = 1;
    cfg->ev_base = (uint16_t)MRC_IBV_EV_BASE;
    cfg->peer = 1;
    cfg->dscp[0] = 10; /* mrc_config_default's TRIMMABLE, NO_TRIM, TRIMMABLE_RETX, CONTROL */
    cfg->dscp[1] = 12;
    cfg->dscp[2] = 14;
    cfg->dscp[3] = 48;
    cfg->control_dscp = 48;
}

int mrc_ibv_config_set_addrs(mrc_ibv_config *cfg, const char *list, char *err, size_t errlen) {
    char buf[2048], *tok, *save = NULL;
    unsigned n = 0, p;
    uint8_t a[MRC_IBV_MAX_PLANES][16];
    if (!cfg || !list || strlen(list) >= sizeof buf) goto bad;
    strcpy(buf, list);
    memset(a, 0, sizeof a);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n >= MRC_IBV_MAX_PLANES || inet_pton(cfg->family, tok, a[n]) != 1) goto bad;
        n++;
    }
    if (n != 1 && n != cfg->planes) goto bad;
    for (p = 0; p < cfg->planes; p++) {
        memcpy(cfg->addr[p], a[n == 1 ? 0 : p], 16);
        cfg->have_addr[p] = 1;
    }
    return 0;
bad:
    snprintf(err, errlen, "plane addresses need 1 or %u numeric %s addresses, got '%s'", cfg ? cfg->planes : 0u,
             cfg && cfg->family == AF_INET6 ? "IPv6" : "IPv4", list ? list : "");
    return -1;
}

static int ib_fail(mrc_ibv *ib, char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int ib_fail(mrc_ibv *ib, char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    char *dst = err && errlen ? err : ib ? ib->err : NULL;
    size_t n = err && errlen ? errlen : ib ? sizeof ib->err : 0;
    if (dst && n) {
        va_start(ap, fmt);
        vsnprintf(dst, n, fmt, ap);
        va_end(ap);
        if (ib && dst != ib->err) snprintf(ib->err, sizeof ib->err, "%s", dst);
    }
    if (ib) ib->fatal = 1;
    return -1;
}

/* ---- sysfs: driver, netdev MAC and MTU ------------------------------------------------------------------------- */
static int ib_read_line(const char *path, char *buf, size_t n) {
    FILE *f = fopen(path, "r");
    size_t l;
    if (!f) return -1;
    if (!fgets(buf, (int)n, f)) {
        fclose(f);
        return -1;
    }
    fclose(f);
    l = strlen(buf);
    while (l && (buf[l - 1] == '\n' || buf[l - 1] == ' ')) buf[--l] = 0;
    return 0;
}

static void ib_copy(char *dst, size_t n, const char *src) { /* strlcpy */
    size_t l = strlen(src);
    if (!n) return;
    if (l >= n) l = n - 1u;
    memcpy(dst, src, l);
    dst[l] = 0;
}

static void ib_driver(const struct ibv_device *d, char *out, size_t n) {
    char path[IBV_SYSFS_PATH_MAX + 32], link[256];
    ssize_t l;
    const char *b;
    out[0] = 0;
    snprintf(path, sizeof path, "%s/device/driver", d->ibdev_path);
    l = readlink(path, link, sizeof link - 1);
    if (l <= 0) return;
    link[l] = 0;
    b = strrchr(link, '/');
    ib_copy(out, n, b ? b + 1 : link);
}

static int ib_parse_mac(const char *s, uint8_t mac[6]) {
    unsigned v[6], i;
    char extra;
    if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &extra) != 6) return -1;
    for (i = 0; i < 6; i++) {
        if (v[i] > 255) return -1;
        mac[i] = (uint8_t)v[i];
    }
    return 0;
}

static int ib_is_v4mapped(const uint8_t *g) {
    static const uint8_t pre[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    return !memcmp(g, pre, 12);
}

/* The plane's port, GID (RoCE v2, the family, the wanted address when given) and the GID's netdev (MAC, MTU). */
static int ib_pick_gid(mrc_ibv *ib, ib_plane *pl, mrc_frame_addr *local, char *err, size_t errlen) {
    ib_dev *d = &ib->dev[pl->dev];
    struct ibv_port_attr pa;
    struct ibv_gid_entry e, pick;
    const uint8_t *want = ib->cfg.have_addr[pl->path.plane - 1u] ? ib->cfg.addr[pl->path.plane - 1u] : NULL;
    int v4 = ib->cfg.family == AF_INET, found = 0, fallback = 0, i, rc;
    char path[128], line[64], ifn[IF_NAMESIZE];
    unsigned pn = pl->path.plane;
    memset(&pa, 0, sizeof pa);
    rc = ibv_query_port(d->ctx, pl->port, &pa);
    if (rc) return ib_fail(ib, err, errlen, "plane %u: cannot query %s port %u: %s", pn, d->name, pl->port, strerror(rc));
    if (pa.link_layer != IBV_LINK_LAYER_ETHERNET)
        return ib_fail(ib, err, errlen, "plane %u: %s port %u is not Ethernet (RoCE); the ibverbs port needs RoCE", pn,
                       d->name, pl->port);
    if (pa.state != IBV_PORT_ACTIVE)
        return ib_fail(ib, err, errlen, "plane %u: %s port %u is not active (%s)", pn, d->name, pl->port,
                       ibv_port_state_str(pa.state));
    pl->ib_mtu = 128u << (unsigned)pa.active_mtu;
    memset(&pick, 0, sizeof pick);
    for (i = 0; i < pa.gid_tbl_len; i++) {
        int gv4;
        memset(&e, 0, sizeof e);
        if (ibv_query_gid_ex(d->ctx, pl->port, (uint32_t)i, &e, 0) != 0) continue;
        if (ib->cfg.spec.gid_index >= 0 && i != ib->cfg.spec.gid_index) continue;
        if (e.gid_type != IBV_GID_TYPE_ROCE_V2) continue;
        gv4 = ib_is_v4mapped(e.gid.raw);
        if (gv4 != v4) continue;
        if (want && memcmp(gv4 ? e.gid.raw + 12 : e.gid.raw, want, gv4 ? 4u : 16u) != 0) {
            if (!fallback) pick = e, fallback = 1; /* raw: the netdev of the first RoCE v2 GID of the family */
            continue;
        }
        if (!gv4 && e.gid.raw[0] == 0xFE && (e.gid.raw[1] & 0xC0u) == 0x80u && !want) {
            if (!fallback) pick = e, fallback = 1; /* prefer a global address to link-local */
            continue;
        }
        pick = e;
        found = 1;
        break;
    }
    if (!found && !(fallback && (ib->carrier == MRC_IBV_RAW || !want)))
        return ib_fail(ib, err, errlen, "plane %u: no RoCE v2 %s GID on %s port %u%s%s", pn, v4 ? "IPv4" : "IPv6",
                       d->name, pl->port, want ? " with the plane's address" : "",
                       ib->cfg.spec.gid_index >= 0 ? " at the gid= index" : "");
    pl->gid_index = (int)pick.gid_index;
    pl->gid_v4 = (uint8_t)v4;
    memset(local, 0, sizeof *local);
    if (want) memcpy(local->ip, want, v4 ? 4u : 16u);
    else memcpy(local->ip, v4 ? pick.gid.raw + 12 : pick.gid.raw, v4 ? 4u : 16u);
    if (!if_indextoname(pick.ndev_ifindex, ifn))
        return ib_fail(ib, err, errlen, "plane %u: GID %d of %s port %u has no network device", pn, pl->gid_index,
                       d->name, pl->port);
    snprintf(pl->ifname, sizeof pl->ifname, "%s", ifn);
    snprintf(path, sizeof path, "/sys/class/net/%s/address", ifn);
    if (ib_read_line(path, line, sizeof line) || ib_parse_mac(line, local->mac))
        return ib_fail(ib, err, errlen, "plane %u: cannot read the MAC address of %s", pn, ifn);
    snprintf(path, sizeof path, "/sys/class/net/%s/mtu", ifn);
    pl->netdev_mtu = ib_read_line(path, line, sizeof line) == 0 ? (unsigned)strtoul(line, NULL, 10) : 0u;
    return 0;
}

/* ---- setup and teardown ---------------------------------------------------------------------------------------- */
static void ib_plane_down(ib_plane *pl, unsigned nah) {
    unsigned i;
    if (pl->ah) {
        for (i = 0; i < nah; i++)
            if (pl->ah[i]) ibv_destroy_ah(pl->ah[i]);
        free(pl->ah);
        pl->ah = NULL;
    }
    if (pl->flow) ibv_destroy_flow(pl->flow);
    if (pl->qp) ibv_destroy_qp(pl->qp);
    if (pl->cq) {
        if (pl->cq_unacked) ibv_ack_cq_events(pl->cq, pl->cq_unacked);
        ibv_destroy_cq(pl->cq);
    }
    if (pl->tx_mr) ibv_dereg_mr(pl->tx_mr);
    if (pl->rx_mr) ibv_dereg_mr(pl->rx_mr);
    free(pl->tx_mem);
    mrc_ibv_rxring_free(&pl->rx);
    pl->flow = NULL;
    pl->qp = NULL;
    pl->cq = NULL;
    pl->tx_mr = pl->rx_mr = NULL;
    pl->tx_mem = NULL;
    pl->cq_unacked = 0;
    pl->tx_head = pl->tx_tail = 0;
    pl->nwr = 0;
}

static int ib_post_recvs(mrc_ibv *ib, ib_plane *pl) {
    uint32_t ids[MRC_IBV_MAX_BATCH];
    struct ibv_recv_wr wr[MRC_IBV_MAX_BATCH], *bad = NULL;
    struct ibv_sge sge[MRC_IBV_MAX_BATCH];
    unsigned n, i;
    int rc;
    while ((n = mrc_ibv_rxring_take(&pl->rx, ids, ib->cfg.batch)) > 0) {
        for (i = 0; i < n; i++) {
            mrc_ibv__sge(&sge[i], mrc_ibv_rxring_slot(&pl->rx, ids[i]), pl->rx.slot_size, pl->rx_mr->lkey);
            memset(&wr[i], 0, sizeof wr[i]);
            wr[i].wr_id = IB_RX_BIT | ids[i];
            wr[i].sg_list = &sge[i];
            wr[i].num_sge = 1;
            wr[i].next = i + 1u < n ? &wr[i + 1u] : NULL;
        }
        rc = ibv_post_recv(pl->qp, wr, &bad);
        ib->st.post_recv_calls++;
        if (rc) {
            for (i = n; i-- > 0;) { /* the failed one and every later one go back to the FIFO, in order */
                mrc_ibv_rxring_unpost(&pl->rx, ids[i]);
                if (bad == &wr[i]) break;
            }
            return ib_fail(ib, NULL, 0, "plane %u: ibv_post_recv failed: %s", pl->path.plane, strerror(rc));
        }
    }
    return 0;
}

static int ib_plane_up(mrc_ibv *ib, ib_plane *pl, char *err, size_t errlen) {
    ib_dev *d = &ib->dev[pl->dev];
    struct ibv_qp_init_attr ia;
    struct ibv_qp_attr qa;
    mrc_frame_addr local;
    unsigned pn = pl->path.plane, q;
    int rc, raw = ib->carrier == MRC_IBV_RAW, ipv6 = ib->cfg.family == AF_INET6;
    uint16_t dport = (uint16_t)ib->cfg.spec.dport;
    void *m = NULL;
    if (ib_pick_gid(ib, pl, &local, err, errlen)) return -1;
    if (raw ? pl->netdev_mtu && !mrc_ibv_mtu_fits(MRC_IBV_RAW, ipv6, ib->cfg.mtu, pl->netdev_mtu)
            : !mrc_ibv_mtu_fits(MRC_IBV_UD, ipv6, ib->cfg.mtu, pl->ib_mtu))
        return ib_fail(ib, err, errlen,
                       "plane %u: MRC MTU %u does not fit %s (%s MTU %u); use a smaller -m or a larger link MTU", pn,
                       ib->cfg.mtu, raw ? pl->ifname : d->name, raw ? "netdev" : "UD/IB", raw ? pl->netdev_mtu : pl->ib_mtu);
    /* planes that share a device port are told apart by the UDP destination port (dport + plane - 1) */
    for (q = 0; raw && q < ib->P; q++) {
        const ib_plane *o = &ib->pl[q];
        if (o != pl && o->dev == pl->dev && o->port == pl->port) {
            if (ib->cfg.spec.dport + ib->P - 1u > 65535u)
                return ib_fail(ib, err, errlen, "dport=%u + %u planes passes 65535", ib->cfg.spec.dport, ib->P);
            dport = (uint16_t)(ib->cfg.spec.dport + pn - 1u);
            break;
        }
    }
    if (mrc_ibv_path_init(&pl->path, ib->carrier, pn, ipv6, &local, dport, ib->cfg.spec.vlan) != MRC_OK)
        return ib_fail(ib, err, errlen, "plane %u: bad frame configuration", pn);
    pl->path.fr.cfg.ecn_data = ib->cfg.ecn;
    pl->cq = ibv_create_cq(d->ctx, (int)(ib->txq + ib->rxq + 16u), pl, d->ch, 0);
    if (!pl->cq) return ib_fail(ib, err, errlen, "plane %u: ibv_create_cq on %s: %s", pn, d->name, strerror(errno));
    memset(&ia, 0, sizeof ia);
    ia.send_cq = ia.recv_cq = pl->cq;
    ia.qp_type = raw ? IBV_QPT_RAW_PACKET : IBV_QPT_UD;
    ia.cap.max_send_wr = ib->txq;
    ia.cap.max_recv_wr = ib->rxq;
    ia.cap.max_send_sge = MRC_IBV_MAX_SGE;
    ia.cap.max_recv_sge = 1;
    ia.cap.max_inline_data = ib->cfg.spec.inline_size;
    pl->qp = ibv_create_qp(d->pd, &ia);
    if (!pl->qp && ia.cap.max_inline_data) { /* some providers refuse inline on this QP type: go without */
        ia.cap.max_inline_data = 0;
        pl->qp = ibv_create_qp(d->pd, &ia);
    }
    if (!pl->qp) {
        int e = errno;
        ib->raw_refused = raw;
        return ib_fail(ib, err, errlen, "plane %u: cannot create a %s QP on %s: %s%s", pn, raw ? "raw packet" : "UD",
                       d->name, strerror(e), raw && e == EPERM ? " (raw packet QPs need CAP_NET_RAW)" : "");
    }
    pl->max_inline = ia.cap.max_inline_data;
    memset(&qa, 0, sizeof qa);
    qa.qp_state = IBV_QPS_INIT;
    qa.port_num = pl->port;
    if (raw) {
        rc = ibv_modify_qp(pl->qp, &qa, IBV_QP_STATE | IBV_QP_PORT);
    } else {
        qa.pkey_index = 0;
        qa.qkey = MRC_IBV_QKEY;
        rc = ibv_modify_qp(pl->qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
    }
    if (!rc) {
        memset(&qa, 0, sizeof qa);
        qa.qp_state = IBV_QPS_RTR;
        rc = ibv_modify_qp(pl->qp, &qa, IBV_QP_STATE);
    }
    if (!rc) {
        memset(&qa, 0, sizeof qa);
        qa.qp_state = IBV_QPS_RTS;
        qa.sq_psn = 0;
        rc = ibv_modify_qp(pl->qp, &qa, raw ? IBV_QP_STATE : IBV_QP_STATE | IBV_QP_SQ_PSN);
    }
    if (rc) {
        ib->raw_refused = raw;
        return ib_fail(ib, err, errlen, "plane %u: cannot bring the QP to RTS: %s", pn, strerror(rc));
    }
    if (raw) {
        mrc_ibv_flow_rule r;
        if (mrc_ibv_flow_rule_build(&r, pl->port, &local, ipv6, dport, ib->cfg.spec.vlan >= 0,
                                    (uint16_t)(ib->cfg.spec.vlan >= 0 ? ib->cfg.spec.vlan : 0)) < 0)
            return ib_fail(ib, err, errlen, "plane %u: bad flow rule", pn);
        pl->flow = ibv_create_flow(pl->qp, &r.attr);
        if (!pl->flow) {
            ib->raw_refused = 1;
            return ib_fail(ib, err, errlen, "plane %u: ibv_create_flow (UDP %u to this address) on %s: %s", pn,
                           (unsigned)dport, d->name, strerror(errno));
        }
    }
    if (posix_memalign(&m, 4096, (size_t)ib->txq * MRC_IBV_SLOT) != 0 ||
        mrc_ibv_rxring_init(&pl->rx, ib->rxq, MRC_IBV_SLOT, raw ? 0u : MRC_IBV_GRH_LEN) != 0) {
        free(m);
        return ib_fail(ib, err, errlen, "plane %u: out of memory for the rings", pn);
    }
    pl->tx_mem = (uint8_t *)m;
    memset(pl->tx_mem, 0, (size_t)ib->txq * MRC_IBV_SLOT);
    pl->tx_mr = ibv_reg_mr(d->pd, pl->tx_mem, (size_t)ib->txq * MRC_IBV_SLOT, IBV_ACCESS_LOCAL_WRITE);
    pl->rx_mr = ibv_reg_mr(d->pd, pl->rx.mem, (size_t)ib->rxq * MRC_IBV_SLOT, IBV_ACCESS_LOCAL_WRITE);
    if (!pl->tx_mr || !pl->rx_mr)
        return ib_fail(ib, err, errlen, "plane %u: ibv_reg_mr of the rings on %s: %s", pn, d->name, strerror(errno));
    if (ib_post_recvs(ib, pl)) return ib_fail(ib, err, errlen, "%s", ib->err);
    if ((rc = ibv_req_notify_cq(pl->cq, 0)) != 0)
        return ib_fail(ib, err, errlen, "plane %u: ibv_req_notify_cq: %s", pn, strerror(rc));
    return 0;
}

static void ib_devs_down(mrc_ibv *ib) {
    unsigned i;
    for (i = 0; i < ib->ndev; i++) {
        ib_dev *d = &ib->dev[i];
        if (d->ch) ibv_destroy_comp_channel(d->ch);
        if (d->pd) ibv_dealloc_pd(d->pd);
        if (d->ctx) ibv_close_device(d->ctx);
        memset(d, 0, sizeof *d);
    }
    ib->ndev = 0;
}

void mrc_ibv_close(mrc_ibv *ib) {
    unsigned p, i;
    if (!ib) return;
    for (p = 0; p < ib->P; p++) ib_plane_down(&ib->pl[p], ib->K * ib->ndscp);
    for (i = 0; i < ib->mrs.n; i++)
        if (ib->mrs.e[i].mr) ibv_dereg_mr((struct ibv_mr *)ib->mrs.e[i].mr);
    ib_devs_down(ib);
    mrc_ibv_evhold_free(&ib->hold);
    free(ib);
}

/* The device of that name in the list, or -1 with "no RDMA device named 'X' (found: ...)". */
static int ib_find_dev(struct ibv_device **list, int n, const char *name, char *err, size_t errlen) {
    size_t l = 0;
    char names[160];
    int i;
    for (i = 0; i < n; i++)
        if (!strcmp(ibv_get_device_name(list[i]), name)) return i;
    names[0] = 0;
    for (i = 0; i < n && l < sizeof names; i++)
        l += (size_t)snprintf(names + l, sizeof names - l, "%s%s", i ? ", " : "", ibv_get_device_name(list[i]));
    snprintf(err, errlen, "no RDMA device named '%s' (found: %s)", name, names);
    return -1;
}

static struct ibv_device **ib_devices(int *n, char *err, size_t errlen) {
    struct ibv_device **list;
    int e;
    errno = 0;
    *n = 0;
    list = ibv_get_device_list(n);
    e = errno;
    if (!list || *n <= 0) {
        snprintf(err, errlen, "no RDMA device (ibv_get_device_list found none%s%s)", e ? ": " : "", e ? strerror(e) : "");
        if (list) ibv_free_device_list(list);
        return NULL;
    }
    return list;
}

int mrc_ibv_probe(const mrc_ibv_spec *spec, char *err, size_t errlen) {
    struct ibv_device **list;
    unsigned s;
    int n = 0, i, rc = 0;
    if (!spec || !spec->ndev) {
        snprintf(err, errlen, "ibv: no device named");
        return -1;
    }
    if (!(list = ib_devices(&n, err, errlen))) return -1;
    for (s = 0; s < spec->ndev && !rc; s++) {
        struct ibv_context *ctx;
        struct ibv_port_attr pa;
        if ((i = ib_find_dev(list, n, spec->dev[s], err, errlen)) < 0) {
            rc = -1;
            break;
        }
        if (!(ctx = ibv_open_device(list[i]))) {
            snprintf(err, errlen, "cannot open RDMA device %s: %s", spec->dev[s], strerror(errno));
            rc = -1;
            break;
        }
        memset(&pa, 0, sizeof pa);
        i = ibv_query_port(ctx, spec->dev_port[s], &pa);
        if (i != 0) {
            snprintf(err, errlen, "cannot query %s port %u: %s", spec->dev[s], spec->dev_port[s], strerror(i));
            rc = -1;
        } else if (pa.link_layer != IBV_LINK_LAYER_ETHERNET) {
            snprintf(err, errlen, "%s port %u is not Ethernet (RoCE); the ibverbs port needs RoCE", spec->dev[s],
                     spec->dev_port[s]);
            rc = -1;
        } else if (pa.state != IBV_PORT_ACTIVE) {
            snprintf(err, errlen, "%s port %u is not active (%s)", spec->dev[s], spec->dev_port[s],
                     ibv_port_state_str(pa.state));
            rc = -1;
        }
        ibv_close_device(ctx);
    }
    ibv_free_device_list(list);
    return rc;
}

int mrc_ibv_open(mrc_ibv **out, const mrc_ibv_config *cfg, char *err, size_t errlen) {
    mrc_ibv *ib;
    struct ibv_device **list;
    int n = 0, i;
    unsigned s, p, d;
    if (!out || !cfg) return -1;
    *out = NULL;
    if (cfg->family != AF_INET && cfg->family != AF_INET6) {
        snprintf(err, errlen, "ibv: address family must be IPv4 or IPv6");
        return -1;
    }
    if (cfg->planes < 1 || cfg->planes > MRC_IBV_MAX_PLANES || cfg->evs_per_plane < 1 ||
        cfg->planes * cfg->evs_per_plane > MRC_IBV_MAX_EVS || cfg->planes * cfg->evs_per_plane > MRC_MAX_EVS ||
        (unsigned)cfg->ev_base + cfg->planes * cfg->evs_per_plane > 65536u || !cfg->ev_base) {
        snprintf(err, errlen, "ibv: planes (1..%u) x EVs per plane must be at most %u, EV values within 16 bits",
                 (unsigned)MRC_IBV_MAX_PLANES, (unsigned)(MRC_IBV_MAX_EVS < MRC_MAX_EVS ? MRC_IBV_MAX_EVS : MRC_MAX_EVS));
        return -1;
    }
    if (cfg->batch < 1 || cfg->batch > MRC_IBV_MAX_BATCH || !cfg->tx_burst || !cfg->spec.ndev ||
        cfg->spec.txq < 16 || cfg->spec.rxq < 16 || cfg->spec.txq < 2u * cfg->batch) {
        snprintf(err, errlen, "ibv: bad configuration (batch 1..%u, ring sizes, at least one device)",
                 (unsigned)MRC_IBV_MAX_BATCH);
        return -1;
    }
    if (!(list = ib_devices(&n, err, errlen))) return -1;
    ib = (mrc_ibv *)calloc(1, sizeof *ib);
    if (!ib || mrc_ibv_evhold_init(&ib->hold, IB_HOLD, cfg->planes) != 0) {
        if (ib) free(ib);
        ibv_free_device_list(list);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    ib->cfg = *cfg;
    ib->P = cfg->planes;
    ib->K = cfg->evs_per_plane;
    ib->txq = cfg->spec.txq;
    ib->rxq = cfg->spec.rxq;
    ib->ndscp = MRC_IBV_DSCPS;
    /* the devices (one context per distinct name) */
    for (s = 0; s < cfg->spec.ndev; s++) {
        for (d = 0; d < ib->ndev; d++)
            if (!strcmp(ib->dev[d].name, cfg->spec.dev[s])) break;
        if (d < ib->ndev) continue;
        if ((i = ib_find_dev(list, n, cfg->spec.dev[s], err, errlen)) < 0) goto fail;
        snprintf(ib->dev[d].name, sizeof ib->dev[d].name, "%s", cfg->spec.dev[s]);
        ib_driver(list[i], ib->dev[d].driver, sizeof ib->dev[d].driver);
        ib->ndev++;
        ib->dev[d].ctx = ibv_open_device(list[i]);
        if (!ib->dev[d].ctx) {
            snprintf(err, errlen, "cannot open RDMA device %s: %s", ib->dev[d].name, strerror(errno));
            goto fail;
        }
        ib->dev[d].pd = ibv_alloc_pd(ib->dev[d].ctx);
        ib->dev[d].ch = ibv_create_comp_channel(ib->dev[d].ctx);
        if (!ib->dev[d].pd || !ib->dev[d].ch) {
            snprintf(err, errlen, "cannot allocate a protection domain / completion channel on %s: %s",
                     ib->dev[d].name, strerror(errno));
            goto fail;
        }
        if (fcntl(ib->dev[d].ch->fd, F_SETFL, fcntl(ib->dev[d].ch->fd, F_GETFL) | O_NONBLOCK) != 0) {
            snprintf(err, errlen, "cannot make the completion channel of %s non-blocking: %s", ib->dev[d].name,
                     strerror(errno));
            goto fail;
        }
    }
    ibv_free_device_list(list);
    list = NULL;
    for (p = 0; p < ib->P; p++) {
        const char *nm = cfg->spec.dev[p % cfg->spec.ndev];
        for (d = 0; d < ib->ndev; d++)
            if (!strcmp(ib->dev[d].name, nm)) break;
        ib->pl[p].dev = d;
        ib->pl[p].port = cfg->spec.dev_port[p % cfg->spec.ndev];
        ib->pl[p].path.plane = (uint8_t)(p + 1u);
    }
    /* the carrier: one for every plane (the peer must run the same); AUTO asks every device's provider */
    ib->carrier = MRC_IBV_RAW;
    for (d = 0; d < ib->ndev; d++)
        if (mrc_ibv_carrier_for(ib->dev[d].name, ib->dev[d].driver, cfg->spec.carrier) != MRC_IBV_RAW)
            ib->carrier = MRC_IBV_UD;
    if (cfg->spec.carrier != MRC_IBV_AUTO)
        snprintf(ib->why, sizeof ib->why, "forced by carrier=%s", mrc_ibv_carrier_name(cfg->spec.carrier));
    else
        snprintf(ib->why, sizeof ib->why, "provider %s%s%s", ib->dev[0].name, ib->dev[0].driver[0] ? "/" : "",
                 ib->dev[0].driver);
    for (;;) {
        char e1[256];
        for (p = 0; p < ib->P; p++)
            if (ib_plane_up(ib, &ib->pl[p], e1, sizeof e1)) break;
        if (p == ib->P) break;
        for (s = 0; s < ib->P; s++) ib_plane_down(&ib->pl[s], 0);
        if (ib->carrier == MRC_IBV_RAW && cfg->spec.carrier == MRC_IBV_AUTO && ib->raw_refused) {
            /* no raw packet QP (permission, provider) or no flow steering: the portable UD carrier */
            char why[200];
            snprintf(why, sizeof why, "fell back from raw: %.170s", e1);
            memcpy(ib->why, why, sizeof ib->why);
            ib->carrier = MRC_IBV_UD;
            ib->fatal = ib->raw_refused = 0;
            continue;
        }
        snprintf(err, errlen, "%s", e1);
        goto fail;
    }
    ib->fatal = 0;
    ib->err[0] = 0;
    *out = ib;
    return 0;
fail:
    if (list) ibv_free_device_list(list);
    mrc_ibv_close(ib);
    return -1;
}

const char *mrc_ibv_drop_name(int reason) { return mrc_frame_drop_name(reason); }

int mrc_ibv_carrier(const mrc_ibv *ib) { return ib ? ib->carrier : MRC_IBV_AUTO; }
unsigned mrc_ibv_planes(const mrc_ibv *ib) { return ib ? ib->P : 0u; }
const char *mrc_ibv_last_error(const mrc_ibv *ib) { return ib && ib->err[0] ? ib->err : "no error"; }

uint32_t mrc_ibv_ev_value(const mrc_ibv *ib, unsigned plane, unsigned k) {
    return (uint32_t)ib->cfg.ev_base + (plane - 1u) * ib->K + k;
}

int mrc_ibv_local(const mrc_ibv *ib, unsigned plane, mrc_ibv_peer *out) {
    const ib_plane *pl;
    if (!ib || plane < 1 || plane > ib->P || !out) return -1;
    pl = &ib->pl[plane - 1u];
    memset(out, 0, sizeof *out);
    out->addr = pl->path.local;
    out->dport = pl->path.local_dport;
    out->qpn = pl->qp ? pl->qp->qp_num : 0u;
    return 0;
}

int mrc_ibv_set_peer(mrc_ibv *ib, const mrc_ibv_peer *peer, unsigned planes, char *err, size_t errlen) {
    unsigned p, k, x;
    if (!ib || !peer || planes != ib->P) {
        snprintf(err, errlen, "peer has %u planes, this side %u", planes, ib ? ib->P : 0u);
        return -1;
    }
    for (p = 0; p < ib->P; p++) {
        ib_plane *pl = &ib->pl[p];
        mrc_ibv_path_set_peer(&pl->path, &peer[p].addr, peer[p].dport, peer[p].qpn, ib->cfg.peer);
        if (ib->carrier != MRC_IBV_UD || pl->ah) continue;
        pl->ah = (struct ibv_ah **)calloc((size_t)ib->K * ib->ndscp, sizeof *pl->ah);
        if (!pl->ah) return ib_fail(ib, err, errlen, "out of memory");
        for (k = 0; k < ib->K; k++)
            for (x = 0; x < ib->ndscp; x++) {
                struct ibv_ah_attr a;
                uint8_t dscp = ib->cfg.dscp[x];
                memset(&a, 0, sizeof a);
                a.is_global = 1;
                a.port_num = pl->port;
                if (pl->gid_v4) {
                    a.grh.dgid.raw[10] = a.grh.dgid.raw[11] = 0xFF;
                    memcpy(a.grh.dgid.raw + 12, peer[p].addr.ip, 4);
                } else {
                    memcpy(a.grh.dgid.raw, peer[p].addr.ip, 16);
                }
                a.grh.sgid_index = (uint8_t)pl->gid_index;
                a.grh.hop_limit = 64;
                a.grh.flow_label = mrc_ibv_ud_flow_label(mrc_ibv_ev_value(ib, p + 1u, k));
                a.grh.traffic_class = mrc_ibv_ud_tclass(dscp, ib->cfg.ecn && dscp != ib->cfg.control_dscp);
                pl->ah[k * ib->ndscp + x] = ibv_create_ah(ib->dev[pl->dev].pd, &a);
                if (!pl->ah[k * ib->ndscp + x])
                    return ib_fail(ib, err, errlen, "plane %u: cannot create the address handle of EV %u: %s", p + 1u,
                                   k, strerror(errno));
            }
    }
    return 0;
}

void mrc_ibv_set_rx_hook(mrc_ibv *ib, int (*fn)(void *ctx, uint8_t *pkt, size_t len), void *ctx) {
    unsigned p;
    if (!ib) return;
    for (p = 0; p < ib->P; p++) {
        ib->pl[p].path.rx_hook = fn;
        ib->pl[p].path.rx_hook_ctx = ctx;
    }
}

void mrc_ibv_describe(const mrc_ibv *ib, char *buf, size_t n) {
    size_t l;
    unsigned p;
    char a[INET6_ADDRSTRLEN];
    if (!ib || !buf || !n) return;
    l = (size_t)snprintf(buf, n, "ibverbs %s (%s): ",
                         ib->carrier == MRC_IBV_RAW ? "raw Ethernet QPs" : "UD QPs", ib->why);
    for (p = 0; p < ib->P && l < n; p++) {
        const ib_plane *pl = &ib->pl[p];
        inet_ntop(ib->cfg.family, pl->path.local.ip, a, sizeof a);
        l += (size_t)snprintf(buf + l, n - l, "%s%s:%u %s", p ? ", " : "", ib->dev[pl->dev].name, (unsigned)pl->port, a);
        if (ib->carrier == MRC_IBV_RAW && l < n) l += (size_t)snprintf(buf + l, n - l, " udp %u", pl->path.local_dport);
    }
    if (l < n)
        snprintf(buf + l, n - l, "; payload zero-copy from %u registered region%s, else copied; inline <= %u B",
                 ib->mrs.n, ib->mrs.n == 1 ? "" : "s", ib->P ? ib->pl[0].max_inline : 0u);
}

int mrc_ibv_ev_profile(const mrc_ibv *ib, mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, unsigned min_active,
                       mrc_time now) {
    if (!ib) return MRC_ERR_INVAL;
    return mrc_ibv_ev_profile_set(ep, ib->P, ib->K, ib->cfg.ev_base, fmt_id, prof_id, min_active, now);
}

int mrc_ibv_reg_mem(mrc_ibv *ib, const void *base, size_t len) {
    struct ibv_mr *mr;
    /* one device, one MR; the lkey table has no per-device keys, so several devices copy every payload */
    if (!ib || !base || !len || ib->mrs.n >= MRC_IBV_MAX_MRS || ib->ndev != 1 || !ib->dev[0].pd) return -1;
    mr = ibv_reg_mr(ib->dev[0].pd, (void *)(uintptr_t)base, len, 0); /* the NIC only reads it: no LOCAL_WRITE */
    if (!mr) return -1;
    if (mrc_ibv_mrtab_add(&ib->mrs, base, len, mr->lkey, mr)) {
        ibv_dereg_mr(mr);
        return -1;
    }
    return 0;
}

int mrc_ibv_dereg_mem(mrc_ibv *ib, mrc_endpoint *ep, const void *base) {
    mrc_time end = mrc_ibv_now() + 1000000000u;
    unsigned p;
    void *mr;
    if (!ib || !ep || ib->fatal) return -1;
    for (p = 0; p < ib->P; p++) /* the NIC may still read it: wait (1 s at most) until nothing is in flight */
        if (ib_post(ib, &ib->pl[p])) return -1;
    for (p = 0; p < ib->P; p++)
        while (ib->pl[p].tx_tail < ib->pl[p].tx_head) {
            if (ib_poll_cqs(ib, ep) < 0) return -1;
            if (mrc_ibv_now() > end)
                return ib_fail(ib, NULL, 0, "plane %u: sends still in flight after 1 s: region not deregistered",
                               p + 1u);
        }
    mr = mrc_ibv_mrtab_del(&ib->mrs, base);
    if (!mr) return -1;
    ibv_dereg_mr((struct ibv_mr *)mr);
    return 0;
}

int mrc_ibv_watch_fd(mrc_ibv *ib, int fd) {
    if (!ib || fd < 0 || ib->nwatch >= MRC_IBV_MAX_WATCH) return -1;
    ib->watch[ib->nwatch++] = fd;
    return 0;
}

void mrc_ibv_stats_get(const mrc_ibv *ib, mrc_ibv_stats *out) {
    unsigned p, r;
    *out = ib->st;
    out->events_held = ib->hold.held;
    for (p = 0; p < ib->P; p++) {
        out->plane[p] = ib->pl[p].path.st;
        for (r = 1; r < MRC_FRAME_DROP_NDROP; r++) out->frame_drop[r] += ib->pl[p].path.fr.st.drop[r];
    }
}

/* ---- transmit -------------------------------------------------------------------------------------------------- */
static int ib_post(mrc_ibv *ib, ib_plane *pl) {
    struct ibv_send_wr *bad = NULL;
    int rc;
    if (!pl->nwr) return 0;
    pl->wr[pl->nwr - 1u].send_flags |= IBV_SEND_SIGNALED; /* every post ends with a completion */
    pl->wr[pl->nwr - 1u].next = NULL;
    rc = ibv_post_send(pl->qp, pl->wr, &bad);
    ib->st.post_send_calls++;
    pl->nwr = 0;
    if (rc) {
        pl->path.st.tx_err++;
        return ib_fail(ib, NULL, 0, "plane %u: ibv_post_send failed: %s", pl->path.plane, strerror(rc));
    }
    return 0;
}

static int ib_tx_one(mrc_ibv *ib, mrc_endpoint *ep, const mrc_txinfo *ti, const uint8_t *hdr) {
    ib_plane *pl = &ib->pl[ti->port - 1u];
    uint64_t seq = pl->tx_head;
    uint8_t *slot = pl->tx_mem + (size_t)(seq % ib->txq) * MRC_IBV_SLOT;
    struct ibv_send_wr *w = &pl->wr[pl->nwr];
    mrc_ibv_txplan plan;
    if (mrc_ibv_path_tx(&pl->path, ep, ti, hdr, &ib->mrs, slot, MRC_IBV_SLOT, pl->tx_mr->lkey, pl->max_inline, &plan)) {
        pl->path.st.tx_err++; /* cannot be framed: lost, as on a wire */
        return 0;
    }
    memcpy(pl->sge[pl->nwr], plan.sge, plan.nsge * sizeof plan.sge[0]);
    memset(w, 0, sizeof *w);
    w->wr_id = seq;
    w->sg_list = pl->sge[pl->nwr];
    w->num_sge = (int)plan.nsge;
    w->send_flags = plan.send_flags;
    if ((seq % IB_SIGNAL_EVERY) == IB_SIGNAL_EVERY - 1u) w->send_flags |= IBV_SEND_SIGNALED;
    if (ib->carrier == MRC_IBV_UD) {
        int k = mrc_ibv_ev_index(ti->ev, ib->cfg.ev_base, ti->port, ib->K);
        int x = mrc_ibv_dscp_index(ib->cfg.dscp, ib->ndscp, ti->dscp);
        if (k < 0) pl->path.st.ev_unmapped++, k = 0;
        if (x < 0) pl->path.st.dscp_unmapped++, x = 0;
        w->opcode = IBV_WR_SEND_WITH_IMM;
        w->imm_data = htonl(plan.imm);
        w->wr.ud.ah = pl->ah[(unsigned)k * ib->ndscp + (unsigned)x];
        w->wr.ud.remote_qpn = pl->path.peer_qpn;
        w->wr.ud.remote_qkey = MRC_IBV_QKEY;
    } else {
        w->opcode = IBV_WR_SEND;
    }
    if (pl->nwr) pl->wr[pl->nwr - 1u].next = w;
    pl->nwr++;
    pl->tx_head++;
    return pl->nwr == ib->cfg.batch ? ib_post(ib, pl) : 0;
}

static int ib_tx_full(const mrc_ibv *ib) {
    unsigned p;
    for (p = 0; p < ib->P; p++)
        if (ib->pl[p].tx_head - ib->pl[p].tx_tail >= ib->txq - 1u) return (int)p + 1;
    return 0;
}

/* ---- completions ----------------------------------------------------------------------------------------------- */
static int ib_poll_cqs(mrc_ibv *ib, mrc_endpoint *ep) {
    struct ibv_wc wc[IB_POLL];
    unsigned p;
    int total = 0, n, i;
    for (p = 0; p < ib->P; p++) {
        ib_plane *pl = &ib->pl[p];
        mrc_time now;
        n = ibv_poll_cq(pl->cq, IB_POLL, wc);
        ib->st.poll_cq_calls++;
        if (n < 0) return ib_fail(ib, NULL, 0, "plane %u: ibv_poll_cq failed", p + 1u);
        if (!n) continue;
        total += n;
        now = mrc_ibv_now();
        for (i = 0; i < n; i++) {
            const struct ibv_wc *c = &wc[i];
            if (c->wr_id & IB_RX_BIT) {
                uint64_t id = c->wr_id & ~IB_RX_BIT;
                const uint8_t *data;
                size_t len;
                int rc;
                if (c->status != IBV_WC_SUCCESS) {
                    (void)mrc_ibv_rxring_fail(&pl->rx, id);
                    pl->path.st.rx_err++;
                    if (c->status != IBV_WC_WR_FLUSH_ERR) continue;
                    return ib_fail(ib, NULL, 0, "plane %u: the receive queue was flushed (QP in error)", p + 1u);
                }
                rc = mrc_ibv_rxring_complete(&pl->rx, id, c->byte_len, &data, &len);
                if (rc == MRC_IBV_RX_BADLEN) {
                    pl->path.st.rx_bad_len++;
                } else if (rc == MRC_IBV_RX_OK) {
                    mrc_ibv_rxmeta m;
                    memset(&m, 0, sizeof m);
                    m.src_qp = c->src_qp;
                    m.has_imm = (uint8_t)((c->wc_flags & IBV_WC_WITH_IMM) != 0);
                    m.imm = m.has_imm ? ntohl(c->imm_data) : 0u;
                    (void)mrc_ibv_path_rx(&pl->path, ep,
                                          ib->carrier == MRC_IBV_UD ? mrc_ibv_rxring_slot(&pl->rx, (uint32_t)id) : NULL,
                                          data, len, &m, now);
                    mrc_ibv_rxring_release(&pl->rx, (uint32_t)id);
                } else {
                    pl->path.st.rx_err++;
                }
            } else {
                if (c->wr_id >= pl->tx_tail && c->wr_id < pl->tx_head) pl->tx_tail = c->wr_id + 1u; /* in order */
                if (c->status != IBV_WC_SUCCESS) {
                    pl->path.st.tx_err++;
                    return ib_fail(ib, NULL, 0, "plane %u: send completion error: %s", p + 1u,
                                   ibv_wc_status_str(c->status));
                }
            }
        }
        if (ib_post_recvs(ib, pl)) return -1;
    }
    return total;
}

/* Pull up to tx_burst packets from the core. *more: 1 stopped at the burst limit, 2 a send ring is full. */
static int ib_tx_core(mrc_ibv *ib, mrc_endpoint *ep, mrc_time now, int *more) {
    int n = 0;
    unsigned p;
    *more = 0;
    while ((unsigned)n < ib->cfg.tx_burst) {
        mrc_txinfo ti;
        uint8_t hdr[MRC_HDR_MAX];
        int r, full = ib_tx_full(ib);
        if (full) {
            for (p = 0; p < ib->P; p++)
                if (ib_post(ib, &ib->pl[p])) return -1;
            if (ib_poll_cqs(ib, ep) < 0) return -1;
            if ((full = ib_tx_full(ib)) != 0) {
                ib->pl[full - 1].path.st.tx_ring_full++;
                *more = 2;
                break;
            }
        }
        r = mrc_endpoint_poll_tx(ep, hdr, sizeof hdr, 0, &ti, now);
        if (r <= 0) break;
        n++;
        if (ti.port < 1 || ti.port > ib->P) continue; /* a port this adapter does not have: lost */
        if (ib_tx_one(ib, ep, &ti, hdr)) return -1;
    }
    if ((unsigned)n == ib->cfg.tx_burst) *more = 1;
    for (p = 0; p < ib->P; p++)
        if (ib_post(ib, &ib->pl[p])) return -1;
    return n;
}

/* ---- waiting --------------------------------------------------------------------------------------------------- */
static int ib_wait(mrc_ibv *ib, mrc_endpoint *ep, mrc_time until, unsigned *ready, int *moved) {
    struct pollfd pf[MRC_IBV_MAX_DEVS + MRC_IBV_MAX_WATCH];
    struct timespec ts, *tsp = &ts;
    unsigned d, w, p, nfd = 0;
    int r;
    mrc_time now = mrc_ibv_now();
    if (ib->cfg.busy_poll) until = 0;
    if (until && until > now) {
        /* arm every CQ, then look once more: a completion that came before the arm raises no event */
        for (p = 0; p < ib->P; p++)
            if ((r = ibv_req_notify_cq(ib->pl[p].cq, 0)) != 0)
                return ib_fail(ib, NULL, 0, "plane %u: ibv_req_notify_cq: %s", p + 1u, strerror(r));
        r = ib_poll_cqs(ib, ep);
        if (r < 0) return -1;
        if (r > 0) {
            *moved += r;
            until = 0;
        }
    } else {
        until = 0;
    }
    for (d = 0; d < ib->ndev; d++) {
        pf[nfd].fd = ib->dev[d].ch->fd;
        pf[nfd].events = POLLIN;
        pf[nfd++].revents = 0;
    }
    for (w = 0; w < ib->nwatch; w++) {
        pf[nfd].fd = ib->watch[w];
        pf[nfd].events = POLLIN;
        pf[nfd++].revents = 0;
    }
    memset(&ts, 0, sizeof ts);
    if (until == MRC_TIME_NEVER) {
        tsp = NULL;
    } else if (until) {
        now = mrc_ibv_now();
        if (until > now) {
            ts.tv_sec = (time_t)((until - now) / 1000000000u);
            ts.tv_nsec = (long)((until - now) % 1000000000u);
        }
    }
    r = ppoll(pf, nfd, tsp, NULL);
    if (r < 0) return errno == EINTR ? 0 : ib_fail(ib, NULL, 0, "ppoll: %s", strerror(errno));
    if (until) ib->st.wakeups++;
    for (d = 0; d < ib->ndev; d++) {
        struct ibv_cq *cq;
        void *ctx;
        if (!(pf[d].revents & POLLIN)) continue;
        while (ibv_get_cq_event(ib->dev[d].ch, &cq, &ctx) == 0) {
            ((ib_plane *)ctx)->cq_unacked++;
            ib->st.cq_events++;
        }
    }
    for (p = 0; p < ib->P; p++)
        if (ib->pl[p].cq_unacked) {
            ibv_ack_cq_events(ib->pl[p].cq, ib->pl[p].cq_unacked);
            ib->pl[p].cq_unacked = 0;
        }
    for (w = 0; w < ib->nwatch; w++)
        if (ready && (pf[ib->ndev + w].revents & (POLLIN | POLLHUP | POLLERR))) *ready |= 1u << w;
    return 0;
}

static void ib_timers(mrc_ibv *ib, mrc_endpoint *ep, mrc_time now) {
    if (mrc_endpoint_next_deadline(ep) <= now) {
        (void)mrc_endpoint_on_timeout(ep, now);
        ib->st.timeouts_run++;
    }
}

int mrc_ibv_step(mrc_ibv *ib, mrc_endpoint *ep, mrc_time wake_at, unsigned *ready) {
    mrc_time now = mrc_ibv_now(), until, t_start = now, t_woke;
    int moved = 0, n, more = 0;
    unsigned round;
    if (ready) *ready = 0;
    if (!ib || !ep || ib->fatal) return -1;
    ib_timers(ib, ep, now);
    n = ib_tx_core(ib, ep, now, &more);
    if (n < 0) return -1;
    moved += n;
    /* no sleep while an event the timers queued waits for the application */
    until = more == 1 || mrc_endpoint_event_pending(ep) ? 0 : wake_at;
    if (until) {
        mrc_time d = mrc_endpoint_next_deadline(ep);
        if (d < until) until = d;
        if (until <= now) until = 0;
    }
    t_woke = mrc_ibv_now();
    if (ib_wait(ib, ep, until, ready, &moved) < 0) return -1;
    now = mrc_ibv_now();
    t_start += now - t_woke;
    /* receive rounds, each followed by timers and a transmit burst, so acknowledgements leave while a backlog is
       worked off; what is left is picked up by the next step */
    for (round = 0; round < 4u; round++) {
        n = ib_poll_cqs(ib, ep);
        if (n < 0) return -1;
        if (!n && round) break;
        moved += n;
        now = mrc_ibv_now();
        ib_timers(ib, ep, now);
        n = ib_tx_core(ib, ep, now, &more);
        if (n < 0) return -1;
        moved += n;
    }
    now = mrc_ibv_now();
    if (now - t_start > ib->st.step_max_ns) ib->st.step_max_ns = now - t_start;
    return moved;
}

/* ---- events ---------------------------------------------------------------------------------------------------- */
int mrc_ibv_poll_event(mrc_ibv *ib, mrc_endpoint *ep, mrc_event *ev) {
    uint64_t head[MRC_IBV_MAX_PLANES], tail[MRC_IBV_MAX_PLANES];
    unsigned p;
    int r;
    if (!ib || !ep || !ev) return MRC_ERR_INVAL;
    for (p = 0; p < ib->P; p++) {
        head[p] = ib->pl[p].tx_head;
        tail[p] = ib->pl[p].tx_tail;
    }
    if (mrc_ibv_evhold_get(&ib->hold, tail, ev)) return 1;
    if (mrc_ibv_evhold_full(&ib->hold)) return 0; /* the rest waits in the core */
    r = mrc_endpoint_poll_event(ep, ev);
    if (r <= 0) return r;
    if (mrc_ibv_evhold_put(&ib->hold, ev, head, tail) == 0) return 1;
    return mrc_ibv_evhold_get(&ib->hold, tail, ev);
}
