/* core_bridge.c - lib_mrc's core side: the open MRC core (mrc.h, implementation compiled here), a thin UDP carrier
 * and the progress engine. See bridge.h for the shape, ocp/README.md for the carrier's framing.
 *
 * Owns: the endpoint, the UDP sockets (one per plane to receive, one per EV source port to send), the peer table,
 * the rkeys (the application's, chosen by the verbs library, registered with the core as they are), the operation
 * ring and the progress thread. The QP and controller calls that run on that thread are in core_calls.c.
 *
 * Carrier: a datagram is an 8-byte shim (EV, the sender's plane-1 UDP port) followed by the MRC packet from BTH on;
 * peers are named by (IPv4, plane-1 UDP port); the core sees a small handle per peer.
 */
#define _GNU_SOURCE
#define MRC_IMPLEMENTATION /* the core's implementation is compiled here, once */
#include "core_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

mrc_time ob_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (mrc_time)ts.tv_sec * 1000000000u + (mrc_time)ts.tv_nsec;
}

int ob_errno(int e) {
    switch (e) {
    case MRC_OK: return 0;
    case MRC_ERR_NOTSUP: return EOPNOTSUPP;
    case MRC_ERR_NOENT: return ENOENT;
    case MRC_ERR_BUSY: return EBUSY;
    case MRC_ERR_FULL: return ENOMEM;
    case MRC_ERR_NOBUF: return E2BIG;
    case MRC_ERR_STATE: return EINVAL;
    default: return e <= MRC_ERR_FATAL ? EIO : EINVAL;
    }
}

static int ob_status(int e) {
    switch (e) {
    case MRC_OK: return OB_ST_OK;
    case MRC_ERR_RETRY_EXC: case MRC_ERR_NOPATH: return OB_ST_RETRY_EXC;
    case MRC_ERR_REMOTE_ACCESS: return OB_ST_REM_ACCESS;
    case MRC_ERR_REMOTE_INVAL: return OB_ST_REM_INV;
    case MRC_ERR_REMOTE_OP: return OB_ST_REM_OP;
    case MRC_ERR_FLUSH: case MRC_ERR_STATE: return OB_ST_FLUSH;
    case MRC_ERR_LOCAL_ACCESS: return OB_ST_LOC_ACCESS;
    case MRC_ERR_LOCAL_INVAL: return OB_ST_LOC_INV;
    default: return OB_ST_GENERAL;
    }
}

/* ---- peers and rkeys ------------------------------------------------------------------------------------- */

uint32_t ob_peer_handle(ob_dev *d, uint32_t ip, uint16_t port) {
    unsigned i;
    d->peer_err[0] = 0;
    for (i = 1; i <= d->npeers; i++)
        if (d->peer[i].ip == ip && (d->ib || d->peer[i].port == port)) return i; /* IBV: one UDP port, the flows' */
    if (d->npeers >= OB_MAX_PEERS) return 0;
    if (d->ib) { /* ports/ibverbs serves one peer: the first, whose MAC the kernel must know */
        if (d->npeers) {
            snprintf(d->peer_err, sizeof d->peer_err, "a NIC-mode context serves one peer (ports/ibverbs)");
            return 0;
        }
        if (ob_ibv_set_peer(d, ip, d->peer_err, sizeof d->peer_err) != 0) return 0;
    }
    d->npeers++;
    d->peer[d->npeers].ip = ip;
    d->peer[d->npeers].port = port;
    return d->npeers;
}

/* The application's rkey (chosen by the verbs library) names the region on the wire, and the core registers the
 * region under that same rkey (mrc_endpoint_reg_mr_key, docs/PROTOCOL.md P16). The verbs library registers regions
 * without telling this layer, so on the first write naming an rkey the region is looked up there and registered
 * with the core; a packet is never rewritten. An rkey the verbs library does not know stays unknown to the core,
 * which refuses the write with a remote access NAK. */
static int ob_rkey_map(ob_dev *d, uint32_t app) {
    unsigned i;
    void *addr;
    uint64_t iova, len;
    int rw;
    if (d->cfg.mr_generation) { /* a region went away: forget every registration, look each up again */
        unsigned long g = d->cfg.mr_generation(d->cfg.vctx);
        if (g != d->rkey_gen) {
            for (i = 0; i < d->nrkeys; i++) mrc_endpoint_dereg_mr(&d->ep, d->rkey[i]);
            d->nrkeys = 0;
            d->rkey_gen = g;
        }
    }
    for (i = 0; i < d->nrkeys; i++)
        if (d->rkey[i] == app) return 0;
    if (!d->cfg.mr_lookup || d->nrkeys >= OB_RKEYS) return -1;
    if (d->cfg.mr_lookup(d->cfg.vctx, app, &addr, &iova, &len, &rw) != 0) return -1;
    if (mrc_endpoint_reg_mr_key(&d->ep, addr, iova, len, rw ? MRC_ACCESS_REMOTE_WRITE : 0, NULL, app) != MRC_OK)
        return -1;
    d->rkey[d->nrkeys++] = app;
    return 0;
}

/* P19 for the state-changing endpoint operation: lib_mrc turns the core's guard.epop_peer_check off, so that EV probes
 * are answered to any peer (a controller probes paths to endpoints it has no QP with); a PORT_STATUS_UPDATE, which
 * confines a peer's QPs to the planes it names, is still taken only from a peer with a connected QP here. */
int ob_epop_refuse(ob_dev *d, const uint8_t *pkt, size_t len, uint32_t peer) {
    mrc_pkt k;
    unsigned i;
    if (len < 1 || pkt[0] != MRC_OP_EP_REQ) return 0;
    if (mrc_pkt_decode(pkt, len, &d->wire, &k) != MRC_OK || k.erth.op != MRC_EPOP_PORT_STATUS_UPDATE) return 0;
    for (i = 0; i < d->nconns; i++) {
        int st = mrc_conn_state(&d->conns[i]->c);
        if (d->conns[i]->peer == peer && (st == MRC_QPS_RTR || st == MRC_QPS_RTS)) return 0;
    }
    d->st.psu_refused++;
    return 1;
}

int ob_peer_errno(const ob_dev *d) {
    if (d->peer_err[0] && getenv("MRC_OCP_DEBUG")) fprintf(stderr, "lib_mrc: %s\n", d->peer_err);
    return !d->peer_err[0] ? ENOMEM : d->npeers ? EOPNOTSUPP : EHOSTUNREACH;
}

/* a data packet with a RETH: make sure the core knows the region its rkey names */
void ob_rkey_seen(ob_dev *d, const uint8_t *pkt, size_t len) {
    mrc_pkt p;
    if (len < MRC_BTH_LEN) return;
    if (pkt[0] < MRC_OP_WRITE_FIRST || pkt[0] > MRC_OP_WRITE_ONLY_IMM) return; /* data; each may carry a RETH */
    if (mrc_pkt_decode(pkt, len, &d->wire, &p) != MRC_OK || !(p.hdrs & MRC_HDR_RETH)) return;
    if (ob_rkey_map(d, p.reth.rkey) != 0) d->st.rkey_miss++;
}

/* ---- the loop -------------------------------------------------------------------------------------------- */

static void ob_emit(ob_dev *d, const ob_evt *e) {
    if (d->cfg.on_event) d->cfg.on_event(d->cfg.user, e);
}

static void ob_fail_write(ob_dev *d, const ob_op *op, int err) {
    ob_evt e;
    memset(&e, 0, sizeof e);
    e.kind = op->kind == OP_RECV ? OB_EVT_RECV_IMM : OB_EVT_SEND_DONE;
    e.status = ob_status(err);
    e.conn_user = op->conn->user;
    e.qpn = op->conn->qpn;
    e.wr_id = op->w.wr_id;
    ob_emit(d, &e);
}

/* 1: consumed; 0: the core is full, keep it for later */
static int ob_exec(ob_dev *d, ob_op *op, mrc_time now) {
    int rc;
    if (op->kind == OP_CALL) {
        ob_call *c = op->call;
        c->rc = c->fn(d, c->arg);
        if (d->threaded) {
            pthread_mutex_lock(&d->clock_);
            atomic_store(&c->done, 1);
            pthread_cond_broadcast(&d->ccond);
            pthread_mutex_unlock(&d->clock_);
        } else {
            atomic_store(&c->done, 1);
        }
        return 1;
    }
    if (op->kind == OP_RECV) {
        rc = mrc_conn_post_recv(&op->conn->c, op->w.wr_id, now);
    } else {
        mrc_write w;
        memset(&w, 0, sizeof w);
        w.wr_id = op->w.wr_id;
        w.opcode = op->w.with_imm ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        w.flags = op->w.solicited ? MRC_WR_SOLICITED : 0;
        w.buf = op->w.buf;
        w.len = op->w.len;
        w.remote_va = op->w.remote_va;
        w.rkey = op->w.rkey;
        w.imm = op->w.imm;
        rc = mrc_conn_post_write(&op->conn->c, &w, now);
    }
    if (rc == MRC_ERR_FULL) return 0;
    if (rc != MRC_OK) ob_fail_write(d, op, rc);
    return 1;
}

/* Parked posts, oldest first: each QP's in order; a QP whose queue is still full keeps the rest of its posts
 * parked and is not asked again in this pass. */
static int ob_retry_parked(ob_dev *d, mrc_time now) {
    unsigned i, k = 0;
    int n = 0;
    if (!d->npark) return 0;
    d->pass++;
    for (i = 0; i < d->npark; i++) {
        ob_op *op = &d->parked[i];
        if (op->conn->full_pass != d->pass && ob_exec(d, op, now)) {
            op->conn->nparked--;
            n++;
            continue;
        }
        op->conn->full_pass = d->pass;
        if (k != i) d->parked[k] = *op;
        k++;
    }
    d->npark = k;
    return n;
}

void ob_unpark_conn(ob_dev *d, ob_conn *c) {
    unsigned i, k = 0;
    for (i = 0; i < d->npark; i++) {
        if (d->parked[i].conn == c) {
            ob_fail_write(d, &d->parked[i], MRC_ERR_FLUSH);
            continue;
        }
        if (k != i) d->parked[k] = d->parked[i];
        k++;
    }
    d->npark = k;
    c->nparked = 0;
}

static int ob_drain_ring(ob_dev *d, mrc_time now) {
    int n = ob_retry_parked(d, now);
    for (;;) {
        unsigned t = atomic_load_explicit(&d->tail, memory_order_relaxed), i = t & (OB_RING - 1);
        ob_op op;
        int park;
        if (!atomic_load_explicit(&d->ready[i], memory_order_acquire)) break;
        op = d->ring[i];
        /* a post of a QP with parked posts waits behind them; a post the core refuses is parked */
        park = op.kind != OP_CALL && op.conn->nparked > 0;
        if (park && d->npark == OB_RING) break; /* no room: it stays in the ring (back-pressure) */
        if (!park && !ob_exec(d, &op, now)) {
            if (d->npark == OB_RING) break; /* ob_exec did nothing: the op stays in the ring */
            park = 1;
        }
        if (park) {
            d->parked[d->npark++] = op;
            op.conn->nparked++;
        }
        atomic_store_explicit(&d->ready[i], 0, memory_order_relaxed);
        atomic_store_explicit(&d->tail, t + 1, memory_order_release);
        n++;
    }
    return n;
}

static void ob_ev_seen(ob_dev *d, uint8_t port, uint32_t ev, uint16_t sport, mrc_time now) {
    unsigned i;
    for (i = 0; i < d->nevs_seen; i++)
        if (d->ev_seen[i].port == port && d->ev_seen[i].ev == ev && d->ev_seen[i].sport == sport) break;
    if (i == d->nevs_seen) {
        if (i == sizeof d->ev_seen / sizeof d->ev_seen[0]) return;
        d->nevs_seen++;
        d->ev_seen[i].port = port;
        d->ev_seen[i].ev = ev;
        d->ev_seen[i].sport = sport;
    }
    d->ev_seen[i].pkts++;
    d->ev_seen[i].last = now;
}

static int ob_rx(ob_dev *d, mrc_time now) {
    unsigned p;
    int total = 0;
    for (p = 0; p < d->cfg.planes; p++) {
        int round;
        for (round = 0; round < 4; round++) { /* at most 4 batches a plane a turn: the other planes get their turn */
            struct mmsghdr mm[OB_BATCH];
            struct iovec iov[OB_BATCH];
            struct sockaddr_in from[OB_BATCH];
            mrc_rxpkt rp[OB_BATCH];
            unsigned i, k = 0;
            int n;
            memset(mm, 0, sizeof mm);
            for (i = 0; i < OB_BATCH; i++) {
                iov[i].iov_base = d->rxbuf[i];
                iov[i].iov_len = OB_PKT_MAX;
                mm[i].msg_hdr.msg_iov = &iov[i];
                mm[i].msg_hdr.msg_iovlen = 1;
                mm[i].msg_hdr.msg_name = &from[i];
                mm[i].msg_hdr.msg_namelen = sizeof from[i];
            }
            n = recvmmsg(d->fd[p], mm, OB_BATCH, MSG_DONTWAIT, NULL);
            if (n <= 0) break;
            total += n;
            d->st.rx_pkts += (uint64_t)n;
            for (i = 0; i < (unsigned)n; i++) {
                uint8_t *b = d->rxbuf[i];
                size_t len = mm[i].msg_len;
                mrc_rxinfo *ri = &rp[k].ri;
                if (len <= OB_SHIM || mm[i].msg_hdr.msg_namelen < sizeof from[i]) continue;
                memset(ri, 0, sizeof *ri);
                ri->port = (uint8_t)(p + 1);
                ri->ev = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
                ri->peer = ob_peer_handle(d, from[i].sin_addr.s_addr, (uint16_t)(b[4] << 8 | b[5]));
                if (ob_epop_refuse(d, b + OB_SHIM, len - OB_SHIM, ri->peer)) continue;
                ob_rkey_seen(d, b + OB_SHIM, len - OB_SHIM);
                if (d->evlog && b[OB_SHIM] >= MRC_OP_WRITE_FIRST && b[OB_SHIM] <= MRC_OP_WRITE_ONLY_IMM)
                    ob_ev_seen(d, ri->port, ri->ev, ntohs(from[i].sin_port), now);
                rp[k].pkt = b + OB_SHIM;
                rp[k].len = len - OB_SHIM;
                k++;
            }
            if (k) {
                int rc = mrc_endpoint_recv_burst(&d->ep, rp, k, NULL, now);
                if (rc >= 0 && (unsigned)rc < k) d->st.rx_drops += k - (unsigned)rc;
            }
            if (n < (int)OB_BATCH) break;
        }
    }
    return total;
}

/* The socket a packet leaves from: the one bound to its EV's UDP source port (bound on first use), else its plane's. */
static int ob_tx_fd(ob_dev *d, const mrc_txinfo *ti) {
    unsigned i;
    struct sockaddr_in a;
    int fd;
    if (!d->ev_sockets || ti->ev == 0 || ti->ev > 0xFFFF) return d->fd[ti->port - 1];
    for (i = 0; i < d->nevsock; i++)
        if (d->evsock[i].sport == ti->ev) return d->evsock[i].fd >= 0 ? d->evsock[i].fd : d->fd[ti->port - 1];
    if (d->nevsock == OB_EVSOCKS) return d->fd[ti->port - 1];
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = d->cfg.ip;
    a.sin_port = htons((uint16_t)ti->ev);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        fd = -1; /* in use (another program, or a plane port): this EV leaves from the plane socket */
    }
    if (fd >= 0) {
        int sz = 1 << 20;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    }
    d->evsock[d->nevsock].sport = (uint16_t)ti->ev;
    d->evsock[d->nevsock].fd = fd;
    d->nevsock++;
    return fd >= 0 ? fd : d->fd[ti->port - 1];
}

/* send n prepared datagrams, one sendmmsg per run of packets leaving from the same socket */
static void ob_send(ob_dev *d, const int *fd, struct mmsghdr *mm, unsigned n) {
    unsigned i = 0;
    while (i < n) {
        unsigned j = i;
        int r;
        while (j < n && fd[j] == fd[i]) j++;
        r = sendmmsg(fd[i], mm + i, j - i, 0);
        if (r > 0) d->st.tx_pkts += (uint64_t)r;
        i = j; /* what the kernel refused is lost, as a full queue on a link would lose it */
    }
}

/* ---- test hook MRC_OCP_LINK: each plane a link of link_mbps behind a queue that trims on overflow ----------- */

/* A datagram (gathered from iov[0..4): shim, MRC headers, payload, pad) to its plane's link: it leaves when the link
 * has serialized everything queued before it and itself. When the queue ahead of it is longer than the queue holds,
 * the plane trims it as MRC's switches do (docs/PROTOCOL.md Q17): the shim and headers alone go on at once, ahead of
 * the queue, and the peer, seeing a payload shorter than its headers imply, answers with a TRIMMED NACK
 * (link_trims counts them). A silent tail drop would read as a failed path, not as congestion. */
static void ob_link_put(ob_dev *d, unsigned plane, int fd, const struct sockaddr_in *to, const struct iovec *iov,
                        mrc_time now) {
    struct ob_link *l = &d->link[plane - 1];
    mrc_time start = l->busy > now ? l->busy : now;
    ob_lpkt *q;
    size_t len = 0, i;
    for (i = 0; i < 4; i++) len += iov[i].iov_len;
    if (start - now > d->link_qns || l->len == OB_LINK_SLOTS || len > OB_PKT_MAX) {
        struct msghdr mh;
        struct iovec hv[2];
        d->st.link_trims++;
        hv[0] = iov[0];
        hv[1] = iov[1];
        memset(&mh, 0, sizeof mh);
        mh.msg_name = (void *)(uintptr_t)to;
        mh.msg_namelen = sizeof *to;
        mh.msg_iov = hv;
        mh.msg_iovlen = 2;
        if (sendmsg(fd, &mh, 0) > 0) d->st.tx_pkts++;
        return;
    }
    q = &l->q[(l->head + l->len++) % OB_LINK_SLOTS];
    q->len = 0;
    for (i = 0; i < 4; i++) {
        if (iov[i].iov_len) memcpy(q->b + q->len, iov[i].iov_base, iov[i].iov_len); /* a NULL payload has none */
        q->len = (uint16_t)(q->len + iov[i].iov_len);
    }
    /* what a wire carries besides the datagram: IPv4, UDP and Ethernet headers */
    l->busy = start + (mrc_time)(len + 28u + 14u) * 8000u / d->link_mbps;
    q->due = l->busy;
    q->fd = fd;
    q->ip = to->sin_addr.s_addr;
    q->port = to->sin_port;
}

/* the plane whose link finishes its head datagram first, and when (MRC_TIME_NEVER: none waits) */
static mrc_time ob_link_first(const ob_dev *d, unsigned *plane) {
    mrc_time t = MRC_TIME_NEVER;
    unsigned p;
    for (p = 0, *plane = 0; p < d->cfg.planes; p++)
        if (d->link[p].len && d->link[p].q[d->link[p].head].due < t) {
            t = d->link[p].q[d->link[p].head].due;
            *plane = p;
        }
    return t;
}

/* send what the links have finished serializing, in the order they finished on every plane together (a wire
 * delivers in that order): a progress thread that wakes late must not release plane 1's backlog before plane 2's
 * older datagrams, which the peer would see as reordering by the whole delay */
static void ob_link_release(ob_dev *d, mrc_time now) {
    for (;;) {
        struct mmsghdr mm[OB_BATCH];
        struct iovec iov[OB_BATCH];
        struct sockaddr_in to[OB_BATCH];
        int fds[OB_BATCH];
        unsigned k = 0;
        memset(mm, 0, sizeof mm);
        while (k < OB_BATCH) {
            unsigned best;
            ob_lpkt *q;
            struct ob_link *l;
            if (ob_link_first(d, &best) > now) break;
            l = &d->link[best];
            q = &l->q[l->head];
            memset(&to[k], 0, sizeof to[k]);
            to[k].sin_family = AF_INET;
            to[k].sin_addr.s_addr = q->ip;
            to[k].sin_port = q->port;
            iov[k].iov_base = q->b;
            iov[k].iov_len = q->len;
            mm[k].msg_hdr.msg_name = &to[k];
            mm[k].msg_hdr.msg_namelen = sizeof to[k];
            mm[k].msg_hdr.msg_iov = &iov[k];
            mm[k].msg_hdr.msg_iovlen = 1;
            fds[k++] = q->fd;
            l->head = (l->head + 1) % OB_LINK_SLOTS;
            l->len--;
        }
        if (!k) return;
        ob_send(d, fds, mm, k);
    }
}

/* test hook MRC_OCP_CCLOG: after a transmit burst, the bytes in flight and the window of every QP's congestion
 * context (what a window cap bounds; a count, where the goodput it lowers is a time) */
static void ob_cc_sample(ob_dev *d) {
    unsigned i;
    mrc_cc_info ci;
    d->cc_bursts++;
    for (i = 0; i < d->nconns; i++) {
        if (mrc_conn_cc_info(&d->conns[i]->c, &ci) != MRC_OK) continue;
        if (ci.inflight > d->cc_max_inflight) d->cc_max_inflight = ci.inflight;
        if (ci.cwnd > d->cc_max_cwnd) d->cc_max_cwnd = ci.cwnd;
    }
}

static int ob_tx(ob_dev *d, mrc_time now) {
    static const uint8_t zeros[8];
    int total = 0;
    if (d->link_mbps) ob_link_release(d, now);
    for (;;) {
        mrc_txpkt tp[OB_BATCH];
        int fds[OB_BATCH];
        struct mmsghdr mm[OB_BATCH];
        struct iovec iov[OB_BATCH][4];
        uint8_t shim[OB_BATCH][OB_SHIM];
        struct sockaddr_in to[OB_BATCH];
        unsigned i, k = 0;
        int n;
        for (i = 0; i < OB_BATCH; i++) {
            tp[i].buf = d->txhdr[i];
            tp[i].cap = MRC_HDR_MAX;
        }
        n = mrc_endpoint_poll_tx_burst(&d->ep, tp, OB_BATCH, 0, now);
        if (n <= 0) break;
        total += n;
        memset(mm, 0, sizeof mm);
        for (i = 0; i < (unsigned)n; i++) {
            const mrc_txinfo *ti = &tp[i].ti;
            if (tp[i].len <= 0 || ti->peer < 1 || ti->peer > d->npeers || ti->port < 1 || ti->port > d->cfg.planes)
                continue;
            if ((d->bh_mask >> (ti->port - 1) & 1u) && now >= d->bh_start) {
                d->st.bh_drops++;
                continue;
            }
            shim[k][0] = (uint8_t)(ti->ev >> 24);
            shim[k][1] = (uint8_t)(ti->ev >> 16);
            shim[k][2] = (uint8_t)(ti->ev >> 8);
            shim[k][3] = (uint8_t)ti->ev;
            shim[k][4] = (uint8_t)(d->cfg.udp_port >> 8);
            shim[k][5] = (uint8_t)d->cfg.udp_port;
            shim[k][6] = shim[k][7] = 0;
            iov[k][0].iov_base = shim[k];
            iov[k][0].iov_len = OB_SHIM;
            iov[k][1].iov_base = tp[i].buf;
            iov[k][1].iov_len = (size_t)tp[i].len;
            iov[k][2].iov_base = (void *)(uintptr_t)ti->payload;
            iov[k][2].iov_len = ti->payload_len;
            iov[k][3].iov_base = (void *)(uintptr_t)zeros;
            iov[k][3].iov_len = ti->pad;
            memset(&to[k], 0, sizeof to[k]);
            to[k].sin_family = AF_INET;
            to[k].sin_addr.s_addr = d->peer[ti->peer].ip;
            to[k].sin_port = htons((uint16_t)(d->peer[ti->peer].port + ti->port - 1));
            mm[k].msg_hdr.msg_name = &to[k];
            mm[k].msg_hdr.msg_namelen = sizeof to[k];
            mm[k].msg_hdr.msg_iov = iov[k];
            mm[k].msg_hdr.msg_iovlen = 4;
            fds[k] = ob_tx_fd(d, ti);
            if (d->link_mbps) {
                ob_link_put(d, ti->port, fds[k], &to[k], iov[k], now);
                continue;
            }
            k++;
        }
        ob_send(d, fds, mm, k);
        if (d->cclog) ob_cc_sample(d);
        if (n < (int)OB_BATCH) break;
    }
    return total;
}

static int ob_events(ob_dev *d) {
    mrc_event ev;
    int n = 0;
    /* IBV: a SEND_DONE waits until the NIC has read every buffer posted before it */
    while ((d->ib ? ob_ibv_poll_event(d, &ev) : mrc_endpoint_poll_event(&d->ep, &ev)) == 1) {
        ob_evt e;
        memset(&e, 0, sizeof e);
        n++;
        e.status = ob_status(ev.status);
        e.qpn = ev.qpn;
        e.conn_user = ev.conn ? ((ob_conn *)(void *)ev.conn)->user : NULL;
        e.wr_id = ev.wr_id;
        e.imm = ev.imm;
        e.byte_len = ev.byte_len;
        switch (ev.type) {
        case MRC_EVT_SEND_DONE: e.kind = OB_EVT_SEND_DONE; break;
        case MRC_EVT_RECV_IMM: e.kind = OB_EVT_RECV_IMM; break;
        case MRC_EVT_CONN_ERROR: e.kind = OB_EVT_CONN_ERROR; break;
        case MRC_EVT_EV_STATE:
            e.kind = OB_EVT_EV_STATE;
            e.profile_id = ev.profile_id;
            e.ev = ev.ev;
            e.ev_index = ev.ev_index;
            e.port = ev.port;
            e.state = ev.state;
            e.drop_count = ev.drop_count;
            if (ev.profile_id != 0 && ev.ev_index < MRC_MAX_EVS) {
                mrc_ev_op_entry *arr = d->evarr;
                uint32_t n = ev.ev_index + 1;
                if (mrc_ev_op(&d->ep, ev.profile_id, MRC_EV_OP_QUERY_ARRAY, arr, &n, ob_now()) == MRC_OK &&
                    n > ev.ev_index)
                    memcpy(e.ev_val, arr[ev.ev_index].ev.val, sizeof e.ev_val);
            }
            break;
        case MRC_EVT_EP_RESPONSE:
        case MRC_EVT_EP_TIMEOUT:
            e.kind = ev.type == MRC_EVT_EP_RESPONSE ? OB_EVT_EP_RSP : OB_EVT_EP_TIMEOUT;
            e.req_id = ev.req_id;
            e.rtt_ns = ev.rtt_ns;
            e.port = ev.port;
            e.adj_svc_time = ev.adj_svc_time;
            break;
        default: continue;
        }
        ob_emit(d, &e);
    }
    return n;
}

/* IBV: a step of the adapter (timers, transmit, wait until wake_at (0: no wait), receive); its failure is fatal to
 * the device: reported once, then no more steps (the QPs' retries run out) */
static int ob_ibv_turn(ob_dev *d, mrc_time wake_at) {
    int n;
    if (d->ib_failed) return 0;
    n = ob_ibv_step(d, wake_at);
    if (n >= 0) return n;
    d->ib_failed = 1;
    fprintf(stderr, "lib_mrc: %s: the NIC carrier failed: %s\n", d->cfg.ibv_dev, ob_ibv_error(d));
    return 0;
}

/* one turn: returns the work done (0: idle) */
static int ob_turn(ob_dev *d) {
    mrc_time now = ob_now();
    int n = ob_drain_ring(d, now);
    if (d->ib) {
        n += ob_ibv_turn(d, 0);
    } else {
        n += ob_rx(d, now);
        if (mrc_endpoint_next_deadline(&d->ep) <= now) mrc_endpoint_on_timeout(&d->ep, now);
        n += ob_tx(d, now);
    }
    n += ob_events(d);
    return n;
}

static void ob_sleep(ob_dev *d) {
    struct pollfd pf[MRC_MAX_PORTS + 1];
    unsigned p, nf = 0;
    mrc_time dl = mrc_endpoint_next_deadline(&d->ep), now, ln = ob_link_first(d, &p); /* the next departure */
    int ms = -1;
    uint64_t v;
    for (p = 0; p < d->cfg.planes; p++) {
        pf[nf].fd = d->fd[p];
        pf[nf++].events = POLLIN;
    }
    pf[nf].fd = d->bell;
    pf[nf++].events = POLLIN;
    atomic_store(&d->sleeping, 1);
    if (atomic_load(&d->ready[atomic_load(&d->tail) & (OB_RING - 1)]) || d->npark || atomic_load(&d->stop)) {
        atomic_store(&d->sleeping, 0);
        return;
    }
    now = ob_now();
    if (d->ib) { /* the adapter sleeps on its completion channel, the doorbell and the core's deadline */
        ob_ibv_turn(d, d->ib_failed ? 0 : now + 100000000u);
        if (d->ib_failed) poll(pf + nf - 1, 1, 100);
        atomic_store(&d->sleeping, 0);
        return;
    }
    if (ln < dl && ln > now) { /* the link model's next departure: sleep until then, to the nanosecond */
        struct timespec ts;
        ts.tv_sec = (time_t)((ln - now) / 1000000000u);
        ts.tv_nsec = (long)((ln - now) % 1000000000u);
        if (ppoll(pf, nf, &ts, NULL) > 0 && (pf[nf - 1].revents & POLLIN) && read(d->bell, &v, sizeof v) < 0) {
        }
        atomic_store(&d->sleeping, 0);
        return;
    }
    if (ln < dl) dl = ln;
    if (dl != MRC_TIME_NEVER) ms = dl <= now ? 0 : (int)((dl - now + 999999u) / 1000000u);
    if (ms > 100 || ms < 0) ms = 100;
    /* sub-millisecond deadlines: spin briefly rather than sleep a whole millisecond */
    if (dl != MRC_TIME_NEVER && dl > now && dl - now < 1000000u) ms = 0;
    if (poll(pf, nf, ms) > 0 && (pf[nf - 1].revents & POLLIN)) {
        if (read(d->bell, &v, sizeof v) < 0) { /* nothing: the doorbell is level-triggered enough */
        }
    }
    atomic_store(&d->sleeping, 0);
}

static void *ob_thread(void *arg) {
    ob_dev *d = arg;
    unsigned idle = 0;
    while (!atomic_load(&d->stop)) {
        if (ob_turn(d)) {
            idle = 0;
            continue;
        }
        if (++idle < d->spin) continue; /* a short spin keeps latency low under load */
        ob_sleep(d);
        idle = 0;
    }
    ob_turn(d);
    return NULL;
}

void ob_dev_progress(ob_dev *d) {
    if (!d || d->threaded) return;
    pthread_mutex_lock(&d->ilock);
    ob_turn(d);
    pthread_mutex_unlock(&d->ilock);
}

int ob_dev_threaded(const ob_dev *d) { return d && d->threaded; }

/* ---- ring producers -------------------------------------------------------------------------------------- */

static int ob_push(ob_dev *d, const ob_op *op) {
    unsigned h, i;
    pthread_mutex_lock(&d->plock);
    h = atomic_load_explicit(&d->head, memory_order_relaxed);
    i = h & (OB_RING - 1);
    if (h - atomic_load_explicit(&d->tail, memory_order_acquire) >= OB_RING ||
        atomic_load_explicit(&d->ready[i], memory_order_acquire)) {
        pthread_mutex_unlock(&d->plock);
        return ENOMEM;
    }
    d->ring[i] = *op;
    atomic_store_explicit(&d->ready[i], 1, memory_order_release);
    atomic_store_explicit(&d->head, h + 1, memory_order_relaxed);
    pthread_mutex_unlock(&d->plock);
    if (d->threaded && atomic_load(&d->sleeping)) {
        uint64_t one = 1;
        if (write(d->bell, &one, sizeof one) < 0) { /* the counter saturates only after 2^64 rings */
        }
    }
    return 0;
}

int ob_run(ob_dev *d, int (*fn)(ob_dev *, void *), void *arg) {
    ob_call c;
    ob_op op;
    int rc;
    memset(&op, 0, sizeof op);
    c.fn = fn;
    c.arg = arg;
    c.rc = 0;
    atomic_init(&c.done, 0);
    op.kind = OP_CALL;
    op.call = &c;
    while ((rc = ob_push(d, &op)) == ENOMEM) {
        if (!d->threaded) ob_dev_progress(d);
        else sched_yield();
    }
    if (!d->threaded) {
        while (!atomic_load(&c.done)) ob_dev_progress(d);
        return c.rc;
    }
    pthread_mutex_lock(&d->clock_);
    while (!atomic_load(&c.done)) pthread_cond_wait(&d->ccond, &d->clock_);
    pthread_mutex_unlock(&d->clock_);
    return c.rc;
}

int ob_post_write(ob_conn *c, const ob_write *w) {
    ob_op op;
    int rc;
    memset(&op, 0, sizeof op);
    op.kind = OP_WRITE;
    op.conn = c;
    op.w = *w;
    rc = ob_push(c->dev, &op);
    if (!c->dev->threaded) ob_dev_progress(c->dev);
    return rc;
}

int ob_post_recv(ob_conn *c, uint64_t wr_id) {
    ob_op op;
    int rc;
    memset(&op, 0, sizeof op);
    op.kind = OP_RECV;
    op.conn = c;
    op.w.wr_id = wr_id;
    rc = ob_push(c->dev, &op);
    if (!c->dev->threaded) ob_dev_progress(c->dev);
    return rc;
}

/* ---- device ---------------------------------------------------------------------------------------------- */

int ob_dev_open(ob_dev **out, const ob_cfg *cfg, char *err, size_t errlen) {
    ob_dev *d;
    mrc_config mc;
    unsigned p;
    int rc;
    *out = NULL;
    if (!cfg || cfg->planes < 1 || cfg->planes > MRC_MAX_PORTS) {
        snprintf(err, errlen, "bad plane count");
        return EINVAL;
    }
    d = calloc(1, sizeof *d);
    if (!d) return ENOMEM;
    d->cfg = *cfg;
    if (cfg->mr_generation) d->rkey_gen = cfg->mr_generation(cfg->vctx);
    d->bell = -1;
    for (p = 0; p < MRC_MAX_PORTS; p++) d->fd[p] = -1;
    mrc_config_default(&mc);
    mc.seed = cfg->seed;
    mc.num_ports = (uint8_t)cfg->planes;
    /* controller probes may target peers with no connected QP; PSUs from such peers are refused by ob_epop_refuse */
    mc.guard.epop_peer_check = false;
    mc.recovery.rtt_init_ns = 50000;  /* loopback through the kernel, not a NIC */
    if (getenv("MRC_OCP_NOTS")) mc.tseth = false;
    if (getenv("MRC_OCP_ROT")) mrc_ev_policy_preset(&mc.ev, MRC_EV_PRESET_ROTATION);
    if (getenv("MRC_OCP_FIXED")) { mc.cc.algo = MRC_CC_ALGO_FIXED; mc.cc.fixed_cwnd_bytes = 1u << 20; }
    d->wire = mc.wire;
    rc = mrc_endpoint_init(&d->ep, &mc, ob_now());
    if (rc != MRC_OK) {
        snprintf(err, errlen, "mrc_endpoint_init: %s", mrc_strerror(rc));
        free(d);
        return EINVAL;
    }
    d->bell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (d->bell < 0) goto sockfail;
    if (cfg->carrier == OB_CAR_IBV) {
        rc = ob_ibv_open(d, err, errlen);
        if (rc) goto fail;
    }
    for (p = 0; p < cfg->planes && !d->ib; p++) {
        struct sockaddr_in a;
        int sz = 4 << 20;
        d->fd[p] = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (d->fd[p] < 0) goto sockfail;
        setsockopt(d->fd[p], SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
        setsockopt(d->fd[p], SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = cfg->ip;
        a.sin_port = htons((uint16_t)(cfg->udp_port + p));
        if (bind(d->fd[p], (struct sockaddr *)&a, sizeof a) != 0) {
            char ip[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &cfg->ip, ip, sizeof ip);
            snprintf(err, errlen, "cannot bind UDP %s:%u (plane %u): %s", ip, (unsigned)(cfg->udp_port + p), p + 1,
                     strerror(errno));
            rc = errno;
            goto fail;
        }
    }
    pthread_mutex_init(&d->plock, NULL);
    pthread_mutex_init(&d->ilock, NULL);
    pthread_mutex_init(&d->clock_, NULL);
    pthread_cond_init(&d->ccond, NULL);
    d->threaded = cfg->threaded;
    d->ev_sockets = !(getenv("MRC_OCP_EV_SOCKETS") && strcmp(getenv("MRC_OCP_EV_SOCKETS"), "0") == 0);
    if (getenv("MRC_OCP_EVLOG")) d->evlog = strdup(getenv("MRC_OCP_EVLOG"));
    if (getenv("MRC_OCP_CCLOG")) d->cclog = strdup(getenv("MRC_OCP_CCLOG"));
    d->spin = getenv("MRC_OCP_SPIN") ? (unsigned)atoi(getenv("MRC_OCP_SPIN")) : 64;
    {
        /* test hook: MRC_OCP_BLACKHOLE=P@MS silently drops what this device sends on plane P from MS ms on, as a
         * failed link would (the peer's packets still arrive) */
        const char *bh = getenv("MRC_OCP_BLACKHOLE");
        unsigned plane, ms;
        if (bh && sscanf(bh, "%u@%u", &plane, &ms) == 2 && plane >= 1 && plane <= cfg->planes) {
            d->bh_mask = 1u << (plane - 1);
            d->bh_start = ob_now() + (mrc_time)ms * 1000000u;
        }
    }
    {
        /* test hook: MRC_OCP_LINK=R[/Q] makes each plane a link of R Mb/s behind a queue of Q KiB (default 256) that
         * trims on overflow, so that the planes and not the host's CPU bound the goodput */
        const char *lk = getenv("MRC_OCP_LINK");
        unsigned mbps = 0, qkib = 256;
        if (lk && sscanf(lk, "%u/%u", &mbps, &qkib) >= 1 && mbps >= 1 && mbps <= 100000 && qkib >= 1 &&
            qkib <= 65536) {
            for (p = 0; p < cfg->planes; p++) {
                d->link[p].q = malloc(OB_LINK_SLOTS * sizeof(ob_lpkt));
                if (!d->link[p].q) {
                    snprintf(err, errlen, "out of memory for the link model");
                    rc = ENOMEM;
                    goto fail;
                }
            }
            d->link_mbps = mbps;
            d->link_qns = (uint64_t)qkib * 1024u * 8000u / mbps;
        }
    }
    if (d->threaded && pthread_create(&d->thr, NULL, ob_thread, d) != 0) {
        snprintf(err, errlen, "cannot start the progress thread");
        rc = EAGAIN;
        goto fail;
    }
    if (d->threaded) pthread_setname_np(d->thr, "mrc-progress"); /* how ps, top and the tests tell it */
    *out = d;
    return 0;
sockfail:
    rc = errno;
    snprintf(err, errlen, "socket: %s", strerror(errno));
fail:
    if (d->ib) ob_ibv_close(d);
    for (p = 0; p < MRC_MAX_PORTS; p++) {
        if (d->fd[p] >= 0) close(d->fd[p]);
        free(d->link[p].q);
    }
    if (d->bell >= 0) close(d->bell);
    free(d->evlog);
    free(d->cclog);
    free(d);
    return rc ? rc : EIO;
}

void ob_dev_close(ob_dev *d) {
    unsigned p;
    uint64_t one = 1;
    if (!d) return;
    if (d->threaded) {
        atomic_store(&d->stop, 1);
        if (write(d->bell, &one, sizeof one) < 0) {
        }
        pthread_join(d->thr, NULL);
    }
    if (d->ib) ob_ibv_close(d);
    for (p = 0; p < d->nevsock; p++)
        if (d->evsock[p].fd >= 0) close(d->evsock[p].fd);
    if (d->evlog) { /* one line per (port, EV, source port): port ev sport packets last_seen_ns (CLOCK_MONOTONIC) */
        FILE *f = fopen(d->evlog, "w");
        unsigned i;
        for (i = 0; f && i < d->nevs_seen; i++)
            fprintf(f, "%u %u %u %llu %llu\n", d->ev_seen[i].port, (unsigned)d->ev_seen[i].ev,
                    (unsigned)d->ev_seen[i].sport, (unsigned long long)d->ev_seen[i].pkts,
                    (unsigned long long)d->ev_seen[i].last);
        if (f) fclose(f);
        free(d->evlog);
    }
    if (d->cclog) { /* one line: max_inflight max_cwnd bursts (bytes, bytes, transmit bursts sampled) */
        FILE *f = fopen(d->cclog, "w");
        if (f) {
            fprintf(f, "%llu %llu %llu\n", (unsigned long long)d->cc_max_inflight,
                    (unsigned long long)d->cc_max_cwnd, (unsigned long long)d->cc_bursts);
            fclose(f);
        }
        free(d->cclog);
    }
    for (p = 0; p < MRC_MAX_PORTS; p++) {
        if (d->fd[p] >= 0) close(d->fd[p]);
        free(d->link[p].q);
    }
    close(d->bell);
    pthread_mutex_destroy(&d->plock);
    pthread_mutex_destroy(&d->ilock);
    pthread_mutex_destroy(&d->clock_);
    pthread_cond_destroy(&d->ccond);
    free(d);
}

void ob_stats_get(ob_dev *d, ob_stats *s) { *s = d->st; }

void ob_dev_addr(const ob_dev *d, uint32_t *ip, uint16_t *udp_port) {
    *ip = d->cfg.ip;
    *udp_port = d->cfg.udp_port;
}

