/* ================================================================================================================
 * ENDPOINT OPERATIONS AND THE CONTROL PLANE - src/epop.c
 * Owns: ports (planes) going up and down; packets to QP 0x2 - ERTH requests and EETH responses for
 * PORT_STATUS_UPDATE and EV_PROBE - which need no connection and consume no PSN; the requests awaiting answers
 * (the controller's, never resent, and the core's own PORT_STATUS_UPDATEs, resent until answered); and the
 * controller's objects: EV Format profiles, EV profiles, EV operations.
 * Calls: codec, state, timers, sched, path, path_policy.
 * ============================================================================================================== */
#include "epop.h"
#include "codec.h"
#include "state.h"
#include "timers.h"
#include "sched.h"
#include "path.h"
#include "path_policy.h"

/* ---- ports, and the PORT_STATUS_UPDATEs that tell peers about them (7.8) ------------------------------------ */
/* The endpoint's timer (mrc_endpoint_on_timeout) runs no later than t. Out of line: the 64-bit minimum once instead
 * of in each of its callers. */
MRC__PRIVATE MRC__NOINLINE void mrc__ep_due(mrc_endpoint *ep, mrc_time t) {
    ep->ep_deadline = MRC__MIN(ep->ep_deadline, t);
}
/* A new packet at the end of the queue, zeroed, for the caller to fill in (built in place: no copy); NULL, and counted,
 * when the queue is full (the packet is dropped) */
MRC__PRIVATE mrc__epkt *mrc__epq_push(mrc_endpoint *ep) {
    mrc__epkt *k;
    if (ep->epq_len >= MRC_EPQ_LEN) {
        mrc__ev_count(&ep->st.epq_overflow); /* a loss: counted whatever MRC_NO_STATS */
        return (mrc__epkt *)0;
    }
    k = &ep->epq[(ep->epq_head + ep->epq_len) % MRC_EPQ_LEN];
    MRC_MEMSET(k, 0, sizeof *k);
    ep->epq_len++;
    return k;
}
MRC__PRIVATE MRC__INLINE bool mrc__conn_connected(const mrc_conn *c) {
    return c && (c->state == MRC_QPS_RTR || c->state == MRC_QPS_RTS);
}
/* Tell the peer of connection c which ports this endpoint can use: one PORT_STATUS_UPDATE per up port, leaving on
 * that port on the QP's reverse EV there (Q20 port-failure signalling); ports where the QP has no EV carrying data are
 * skipped. */
MRC__PRIVATE void mrc__psu_send(mrc_endpoint *ep, mrc_conn *c, uint16_t req_id) {
    unsigned p;
    for (p = 1; p <= ep->cfg.num_ports; p++) {
        mrc__epkt *k;
        mrc_txinfo ti;
        uint16_t s;
        if (!mrc_endpoint_port_up(ep, p)) continue;
        s = mrc__ev_ctl(c, p);
        if (s == MRC__EV_NONE || c->evs[s].port != p || !(k = mrc__epq_push(ep))) continue;
        MRC_MEMSET(&ti, 0, sizeof ti);
        mrc__ev_txinfo(c, s, &ti);
        k->op = MRC_EPOP_PORT_STATUS_UPDATE;
        k->port = (uint8_t)p;
        k->ev = ti.ev;
        k->ev_fmt = ti.ev_fmt;
        k->path_len = ti.path_len;
        if (ti.path_len) MRC_MEMCPY(k->path, ti.path, ti.path_len);
        k->peer = c->attr.peer;
        k->mask = ep->ports_up;
        k->req_id = req_id;
        k->dscp = ep->cfg.dscp[MRC_DSCP_CONTROL];
    }
}
MRC__PRIVATE mrc_time mrc__psu_wait(const mrc_endpoint *ep, unsigned tries) {
    mrc_time t = ep->cfg.psu_retry_ns ? ep->cfg.psu_retry_ns : 200000u;
    return t << MRC__MIN(tries, 16u);
}
/* The first connected QP of a peer, or NULL. O(conns). Out of line: the PSU announce and the PSU resends share it
 * (mrc__peer_pkey keeps its own loop: through mrc__ep_emit it is in mrc__poll_tx, whose x86-64 code a call there
 * made 10.9 instructions per data packet slower). */
MRC__PRIVATE MRC__NOINLINE mrc_conn *mrc__peer_conn(const mrc_endpoint *ep, uint32_t peer) {
    unsigned i;
    for (i = 0; i < MRC_MAX_CONNS; i++)
        if (mrc__conn_connected(ep->conns[i]) && ep->conns[i]->attr.peer == peer) return ep->conns[i];
    return (mrc_conn *)0;
}
/* Announce this endpoint's up ports to one peer, and keep resending until the peer answers (7.8): a lost update
 * would leave the peer's view of this endpoint's planes stale for ever. A newer announcement to the same peer takes
 * the older one's place (it carries the current mask). Beyond MRC_MAX_EP_REQS peers awaiting an answer, an update
 * is sent once. */
MRC__PRIVATE void mrc__psu_announce_peer(mrc_endpoint *ep, mrc_conn *c) {
    unsigned i, fi = MRC_MAX_EP_REQS;
    uint16_t id = ep->psu_req_id++;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) {
        mrc__psureq *q = &ep->psureq[i];
        if (MRC__NEVER(q->deadline)) {
            if (fi == MRC_MAX_EP_REQS) fi = i;
        } else if (q->peer == c->attr.peer) {
            fi = i;
            break;
        }
    }
    mrc__psu_send(ep, c, id);
    if (fi == MRC_MAX_EP_REQS || !ep->cfg.psu_retries) return;
    ep->psureq[fi].peer = c->attr.peer;
    ep->psureq[fi].req_id = id;
    ep->psureq[fi].tries = 0;
    ep->psureq[fi].deadline = ep->now + mrc__psu_wait(ep, 0);
    mrc__ep_due(ep, ep->psureq[fi].deadline);
}
/* Tell the peer of every connected QP which ports this endpoint can use, once per peer. O(conns^2 + conns x
 * ports), on port changes only. */
MRC__PRIVATE void mrc__psu_announce(mrc_endpoint *ep) {
    unsigned i;
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        mrc_conn *c = ep->conns[i];
        if (!mrc__conn_connected(c)) continue;
        if (mrc__peer_conn(ep, c->attr.peer) != c) continue; /* announced to this peer already (an earlier QP) */
        mrc__psu_announce_peer(ep, c);
    }
}
MRC__PRIVATE void mrc__conn_ev_changed(mrc_conn *c) {
    mrc__ev_rebuild(c);
    mrc__sched_tx(c);
    mrc__timer_update(c);
}
MRC_API int mrc_endpoint_port_set(mrc_endpoint *ep, unsigned port, bool up, mrc_time now) {
    uint32_t bit, i;
    if (!ep || port < 1 || port > ep->cfg.num_ports) return MRC_ERR_INVAL;
    (void)mrc__clock_ctl(ep, now);
    bit = 1u << (port - 1u);
    if (up == !!(ep->ports_up & bit)) return MRC_OK;
    ep->ports_up ^= bit; /* up or down: it was the other */
    if (!up && ep->cfg.guard.psu_hold_ns && MRC__NEVER(ep->psu_refresh)) { /* P38 bounded PSU: re-announce */
        ep->psu_refresh = mrc__deadline_ctl(ep->now, ep->cfg.guard.psu_hold_ns / 2u);
        mrc__ep_due(ep, ep->psu_refresh);
    }
    for (i = 0; i < MRC_MAX_CONNS; i++) { /* O(conns x EVs), on port changes only */
        mrc_conn *c = ep->conns[i];
        if (!c || !c->ev_count) continue;
        /* the view of the peer's planes no longer overlaps this endpoint's: it is stale (an update lost, or given up
         * on) - back to the RESET -> INIT assumption; losses and probes find what really works (7.8) */
        if (ep->ports_up && !(ep->ports_up & c->peer_ports)) c->peer_ports = mrc__all_ports(ep);
        mrc__conn_ev_changed(c);
    }
    mrc__psu_announce(ep); /* every peer then refreshes its view of this endpoint */
    return MRC_OK;
}
/* P38 bounded PSU: the planes a PSU takes away from c come back after guard.psu_hold_ns (a PSU naming them all, or a
 * hold of 0, sets none) */
MRC__PRIVATE void mrc__psu_hold(mrc_endpoint *ep, mrc_conn *c, uint32_t mask) {
    c->peer_hold = 0;
    if (mask == mrc__all_ports(ep) || !ep->cfg.guard.psu_hold_ns) return;
    c->peer_hold = mrc__deadline_ctl(ep->now, ep->cfg.guard.psu_hold_ns);
    ep->psu_hold = MRC__MIN(ep->psu_hold, c->peer_hold);
    mrc__ep_due(ep, ep->psu_hold);
}
/* A peer's PORT_STATUS_UPDATE: its QPs stop (or start again) using the planes it names. The plane it arrived on
 * works whatever the mask says, so no packet can take every plane away. Out of line: in line it cost mrc__recv 264 B
 * (16 more in all). */
MRC__PRIVATE MRC__NOINLINE void mrc__psu_apply(mrc_endpoint *ep, const mrc_rxinfo *ri, uint32_t mask) {
    unsigned i;
    bool changed = false;
    mask = (mask & mrc__all_ports(ep)) | (1u << (ri->port - 1u));
    MRC__EV_COUNT(ep->st.psu_rx);
    if (ep->ports_up && !(ep->ports_up & mask)) mask = mrc__all_ports(ep); /* no overlap: a stale view (7.8) */
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        mrc_conn *c = ep->conns[i];
        if (!c || !c->ev_count || c->attr.peer != ri->peer) continue;
        mrc__psu_hold(ep, c, mask);
        if (c->peer_ports == mask) continue;
        c->peer_ports = mask;
        mrc__conn_ev_changed(c);
        changed = true;
    }
    if (changed) {
        mrc_event e;
        MRC_MEMSET(&e, 0, sizeof e);
        e.type = MRC_EVT_PEER_PORTS;
        e.op = MRC_EPOP_PORT_STATUS_UPDATE;
        e.peer = ri->peer;
        e.port = ri->port;
        e.port_mask = mask;
        mrc__notify(ep, &e);
    }
}

/* ---- packets to QP 0x2: requests, responses, their timers, the controller's requests ------------------------ */
MRC__PRIVATE void mrc__ep_rearm(mrc_endpoint *ep) {
    unsigned i;
    ep->ep_deadline = MRC_TIME_NEVER;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) {
        mrc__ep_due(ep, ep->epreq[i].deadline);
        mrc__ep_due(ep, ep->psureq[i].deadline);
    }
    mrc__ep_due(ep, ep->psu_hold);
    mrc__ep_due(ep, ep->psu_refresh);
}
/* P38 controllers */
MRC__PRIVATE bool mrc__is_controller(const mrc_endpoint *ep, uint32_t peer) {
    unsigned i;
    for (i = 0; i < ep->n_ctl; i++)
        if (ep->ctl_peer[i] == peer) return true;
    return false;
}
MRC_API int mrc_endpoint_controller_set(mrc_endpoint *ep, uint32_t peer, bool on) {
    unsigned i;
    if (!ep) return MRC_ERR_INVAL;
    for (i = 0; i < ep->n_ctl && ep->ctl_peer[i] != peer; i++) {
    }
    if (!on) {
        if (i < ep->n_ctl) ep->ctl_peer[i] = ep->ctl_peer[--ep->n_ctl];
        return MRC_OK;
    }
    if (i < ep->n_ctl) return MRC_OK;
    if (ep->n_ctl == MRC_MAX_CONTROLLERS) return MRC_ERR_FULL;
    ep->ctl_peer[ep->n_ctl++] = peer;
    return MRC_OK;
}
/* P19 QP 0x2 and probe trust: the pkey of this endpoint's first connected QP to a peer (endpoint operations carry it);
 * 0xFFFF if none */
MRC__PRIVATE uint16_t mrc__peer_pkey(const mrc_endpoint *ep, uint32_t peer) {
    unsigned i;
    for (i = 0; i < MRC_MAX_CONNS; i++) /* O(conns), endpoint operations only */
        if (mrc__conn_connected(ep->conns[i]) && ep->conns[i]->attr.peer == peer) return ep->conns[i]->attr.pkey;
    return 0xFFFF;
}
/* The live endpoint request of that ID, operation and peer, or null (at most one: a live request's ID is unique,
 * mrc_endpoint_ep_request) */
MRC__PRIVATE mrc__epreq *mrc__epreq_find(mrc_endpoint *ep, uint16_t req_id, uint8_t op, uint32_t peer) {
    unsigned i;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) {
        mrc__epreq *q = &ep->epreq[i];
        if (!MRC__NEVER(q->deadline) && q->req_id == req_id && q->op == op && q->peer == peer) return q;
    }
    return (mrc__epreq *)0;
}
/* An endpoint request answered (EP_RESPONSE, with its port and round trip) or timed out (EP_TIMEOUT): its slot freed
 * and the controller told (one copy of the event's building for both) */
MRC__PRIVATE void mrc__epreq_done(mrc_endpoint *ep, mrc__epreq *q, uint16_t type, uint8_t port, uint32_t rtt) {
    mrc_event e;
    MRC_MEMSET(&e, 0, sizeof e);
    e.type = type;
    e.status = type == MRC_EVT_EP_TIMEOUT ? MRC_ERR_DROP : MRC_OK;
    e.req_id = q->req_id;
    e.op = q->op;
    e.port = port;
    e.peer = q->peer;
    e.rtt_ns = rtt;
    q->deadline = MRC_TIME_NEVER;
    mrc__notify(ep, &e);
}
MRC__PRIVATE int mrc__epop_recv(mrc_endpoint *ep, const mrc_pkt *k, const mrc_rxinfo *ri, mrc_time now) {
    uint16_t req_id = (uint16_t)(k->bth.psn & 0xFFFFu);
    unsigned i;
    mrc_conn *owner = (mrc_conn *)0;
    mrc__epreq *rq;
    bool pkey_ok = false;
    /* P19 QP 0x2 and probe trust: QP 0x2 takes packets only from a peer with a connected QP here, with that QP's pkey
     * (O(conns)) */
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        mrc_conn *c = ep->conns[i];
        if (!mrc__conn_connected(c) || c->attr.peer != ri->peer) continue;
        if (!owner) owner = c; /* the lowest connected slot keeps the peer's rate bucket */
        if (((k->bth.pkey ^ c->attr.pkey) & 0x7FFFu) == 0) {
            pkey_ok = true;
            break;
        }
    }
    if (k->bth.opcode != MRC_OP_EP_REQ && k->bth.opcode != MRC_OP_EP_RSP)
        return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_OPCODE, k->bth.opcode);
    if (ep->cfg.guard.epop_peer_check && !pkey_ok && !mrc__is_controller(ep, ri->peer))
        return mrc__drop(ep, (mrc_conn *)0, owner ? MRC_DROP_PKEY : MRC_DROP_STRANGER, k->bth.opcode);
    if (k->bth.opcode == MRC_OP_EP_REQ) {
        mrc__epkt *r;
        if (k->erth.op != MRC_EPOP_PORT_STATUS_UPDATE && k->erth.op != MRC_EPOP_EV_PROBE)
            return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_EPOP, k->bth.opcode);
        /* P20 empty PSU ignored: a PSU naming none of our planes is ignored (it could only confine the peer's QPs to
         * one plane) */
        if (k->erth.op == MRC_EPOP_PORT_STATUS_UPDATE && !(k->erth.port_status_mask & mrc__all_ports(ep)))
            return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_EPOP, k->bth.opcode);
        /* P38 PSU fields checked: a peer sends its PSU on each plane it names, and has this endpoint's planes */
        if (k->erth.op == MRC_EPOP_PORT_STATUS_UPDATE &&
            ((k->erth.port_status_mask & ~mrc__all_ports(ep)) || !((k->erth.port_status_mask >> (ri->port - 1u)) & 1u)))
            return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_PSU, k->bth.opcode);
        if (!mrc__bucket_take(owner ? &owner->epop_tat : &ep->epop_any_tat, now, ep->epop_T, ep->epop_tau))
            return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_RATE, k->bth.opcode);
        MRC__CNT(ep->st.ep_req_rx++);
        if (k->erth.op == MRC_EPOP_PORT_STATUS_UPDATE) mrc__psu_apply(ep, ri, k->erth.port_status_mask);
        /* the answer: same plane, same entropy back (there is no QP to own a reverse EV), timestamp echoed */
        if ((r = mrc__epq_push(ep)) != (mrc__epkt *)0) {
            r->rsp = 1;
            r->op = k->erth.op;
            r->port = ri->port;
            r->ev = ri->ev;
            r->ev_fmt = (uint8_t)(ri->ev > 0xFFFFu ? MRC_EV_FMT_STEV : MRC_EV_FMT_UDP);
            r->req_id = req_id;
            r->ts = k->erth.tx_timestamp;
            r->peer = ri->peer;
            r->dscp = ep->cfg.dscp[MRC_DSCP_CONTROL];
        }
        MRC__TRACE(ep, MRC_TRACE_EPOP, ((uint32_t)k->bth.opcode << 8) | k->erth.op, req_id);
        return MRC_OK;
    }
    if (k->bth.opcode != MRC_OP_EP_RSP) return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_OPCODE, k->bth.opcode);
    if ((rq = mrc__epreq_find(ep, req_id, k->eeth.op, ri->peer)) != (mrc__epreq *)0) {
        MRC__CNT(ep->st.ep_rsp_rx++);
        mrc__epreq_done(ep, rq, MRC_EVT_EP_RESPONSE, ri->port,
                        (uint32_t)MRC__MIN(now - rq->sent, (mrc_time)0xFFFFFFFFu));
        mrc__ep_rearm(ep);
        MRC__TRACE(ep, MRC_TRACE_EPOP, ((uint32_t)k->bth.opcode << 8) | k->eeth.op, req_id);
        return MRC_OK;
    }
    for (i = 0; i < MRC_MAX_EP_REQS && k->eeth.op == MRC_EPOP_PORT_STATUS_UPDATE; i++) { /* the core's own */
        mrc__psureq *q = &ep->psureq[i];
        if (q->deadline == MRC_TIME_NEVER || q->req_id != req_id || q->peer != ri->peer) continue;
        q->deadline = MRC_TIME_NEVER; /* answered: the peer has this endpoint's ports; no event */
        mrc__ep_rearm(ep);
        return MRC_OK;
    }
    return mrc__drop(ep, (mrc_conn *)0, MRC_DROP_EPOP, k->bth.opcode); /* unsolicited, late or a duplicate */
}
MRC__PRIVATE void mrc__ep_timeouts(mrc_endpoint *ep, mrc_time now) {
    unsigned i;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) {
        mrc__epreq *q = &ep->epreq[i];
        if (q->deadline > now) continue;
        MRC__CNT(ep->st.ep_timeouts++);
        mrc__epreq_done(ep, q, MRC_EVT_EP_TIMEOUT, 0, 0);
    }
    for (i = 0; i < MRC_MAX_EP_REQS; i++) { /* the core's own PORT_STATUS_UPDATEs: resent, backing off, bounded */
        mrc__psureq *q = &ep->psureq[i];
        mrc_conn *c;
        if (q->deadline > now) continue;
        q->deadline = MRC_TIME_NEVER;
        c = mrc__peer_conn(ep, q->peer);
        if (!c) continue;           /* no connection to that peer left */
        if (q->tries >= ep->cfg.psu_retries) { /* given up: the peer's view is refreshed when it stops overlapping */
            MRC__CNT(ep->st.ep_timeouts++); /* (7.8) */
            continue;
        }
        q->tries++;
        MRC__CNT(ep->st.psu_rtx++);
        mrc__psu_send(ep, c, q->req_id);
        q->deadline = now + mrc__psu_wait(ep, q->tries);
    }
    if (ep->psu_hold <= now) { /* P38 bounded PSU: planes taken away too long come back (O(conns), rare) */
        ep->psu_hold = MRC_TIME_NEVER;
        for (i = 0; i < MRC_MAX_CONNS; i++) {
            mrc_conn *c = ep->conns[i];
            if (!c || !c->peer_hold) continue;
            if (c->peer_hold > now) {
                ep->psu_hold = MRC__MIN(ep->psu_hold, c->peer_hold);
                continue;
            }
            c->peer_hold = 0;
            if (!c->ev_count || c->peer_ports == mrc__all_ports(ep)) continue;
            c->peer_ports = mrc__all_ports(ep);
            MRC__CNT(ep->st.psu_expired++);
            mrc__conn_ev_changed(c);
        }
    }
    if (ep->psu_refresh <= now) { /* ... and this endpoint's ports that are down are announced again */
        ep->psu_refresh = MRC_TIME_NEVER;
        if (ep->ports_up != mrc__all_ports(ep) && ep->cfg.guard.psu_hold_ns) {
            mrc__psu_announce(ep);
            ep->psu_refresh = mrc__deadline_ctl(now, ep->cfg.guard.psu_hold_ns / 2u);
        }
    }
    mrc__ep_rearm(ep);
}
MRC_API int mrc_endpoint_ep_request(mrc_endpoint *ep, const mrc_ep_req *r, mrc_time now) {
    unsigned i, fi = MRC_MAX_EP_REQS;
    mrc__epkt *k;
    if (!ep || !r) return MRC_ERR_INVAL;
    now = mrc__clock_ctl(ep, now);
    if (r->op != MRC_EPOP_PORT_STATUS_UPDATE && r->op != MRC_EPOP_EV_PROBE) return MRC_ERR_INVAL;
    if (!mrc_endpoint_port_up(ep, r->port) || r->dscp < -1 || r->dscp > 63) return MRC_ERR_INVAL;
    if (r->ev_fmt != MRC_EV_FMT_UDP && r->ev_fmt != MRC_EV_FMT_STEV && r->ev_fmt != MRC_EV_FMT_SRV6)
        return MRC_ERR_INVAL;
    if (r->ev_fmt == MRC_EV_FMT_SRV6 ? (r->path_len != 16 && r->path_len != 32) || r->path_len > MRC_EV_BYTES
                                     : r->path_len != 0)
        return MRC_ERR_INVAL;
    for (i = 0; i < MRC_MAX_EP_REQS; i++) {
        if (MRC__NEVER(ep->epreq[i].deadline)) {
            if (fi == MRC_MAX_EP_REQS) fi = i;
        } else if (ep->epreq[i].req_id == r->req_id) {
            return MRC_ERR_INVAL; /* in use */
        }
    }
    if (fi == MRC_MAX_EP_REQS || ep->epq_len >= MRC_EPQ_LEN) return MRC_ERR_FULL;
    k = mrc__epq_push(ep); /* room checked above */
    k->op = r->op;
    k->port = r->port;
    k->ev = r->ev;
    k->ev_fmt = r->ev_fmt;
    k->path_len = r->path_len;
    if (r->path_len) MRC_MEMCPY(k->path, r->path, r->path_len);
    k->peer = r->peer;
    k->mask = r->port_status ? r->port_status : ep->ports_up;
    k->req_id = r->req_id;
    k->dscp = r->dscp < 0 ? ep->cfg.dscp[MRC_DSCP_CONTROL] : (uint8_t)r->dscp;
    ep->epreq[fi].sent = now; /* until it leaves: poll_tx restamps it */
    /* NEVER marks a free slot: a request past the end of time expires at its last nanosecond */
    ep->epreq[fi].deadline =
        MRC__MIN(mrc__deadline_ctl(now, r->timeout_ns ? r->timeout_ns : 1000000u), MRC_TIME_NEVER - 1u);
    ep->epreq[fi].req_id = r->req_id;
    ep->epreq[fi].op = r->op;
    ep->epreq[fi].peer = r->peer;
    mrc__ep_due(ep, ep->epreq[fi].deadline);
    return MRC_OK;
}
/* The next queued endpoint-operation packet; 0 when none. */
MRC__PRIVATE int mrc__ep_emit(mrc_endpoint *ep, uint8_t *buf, size_t cap, mrc_txinfo *ti, mrc_time now) {
    while (ep->epq_len) {
        const mrc__epkt *k = &ep->epq[ep->epq_head];
        mrc_bth b;
        int n = MRC_BTH_LEN;
        mrc__epreq *q;
        ep->epq_head = (ep->epq_head + 1u) % MRC_EPQ_LEN;
        ep->epq_len--;
        if (!mrc_endpoint_port_up(ep, k->port)) continue; /* its port went down while it waited */
        MRC_MEMSET(&b, 0, sizeof b);
        b.opcode = k->rsp ? MRC_OP_EP_RSP : MRC_OP_EP_REQ;
        b.tver = ep->cfg.wire.tver;
        b.pkey = mrc__peer_pkey(ep, k->peer);
        b.dest_qp = MRC_EPOP_QPN;
        b.psn = k->req_id; /* request ID in PSN[15:0] */
        (void)mrc_bth_encode(buf, cap, &ep->cfg.wire, &b);
        if (k->rsp) {
            mrc_eeth e;
            MRC_MEMSET(&e, 0, sizeof e);
            e.op = k->op;
            e.tx_timestamp = k->ts;
            n += mrc_eeth_encode(buf + n, cap - (size_t)n, &ep->cfg.wire, &e);
            MRC__CNT(ep->st.ep_rsp_tx++);
        } else {
            mrc_erth e;
            MRC_MEMSET(&e, 0, sizeof e);
            e.op = k->op;
            e.port_status_mask = k->mask;
            e.tx_timestamp = mrc__ts_ctl(ep, now);
            e.ftype = 1;
            n += mrc_erth_encode(buf + n, cap - (size_t)n, &e);
            if ((q = mrc__epreq_find(ep, k->req_id, k->op, k->peer)) != (mrc__epreq *)0)
                q->sent = now; /* the round trip starts now */
            MRC__CNT(ep->st.ep_req_tx++);
        }
        MRC_MEMSET(ti, 0, sizeof *ti);
        ti->port = k->port;
        ti->ev = k->ev;
        ti->ev_fmt = k->ev_fmt;
        ti->path_len = k->path_len;
        ti->path = k->path_len ? k->path : (const uint8_t *)0;
        ti->dscp_class = MRC_DSCP_CONTROL;
        ti->dscp = k->dscp;
        ti->opcode = b.opcode;
        ti->peer = k->peer;
        ti->qpn = MRC_EPOP_QPN;
        ti->hdr_len = (uint32_t)n;
        MRC__TRACE(ep, MRC_TRACE_TX, ((uint32_t)b.opcode << 24) | b.psn, ti->ev);
        return n;
    }
    return 0;
}

/* ---- EV Format profiles ---------------------------------------------------------------------------------------- */
/* the EV Format and EV profile attributes, each call's STATE first */
static const mrc__range mrc__fmt_ranges[] = {
    MRC__RNG(mrc_ev_fmt_attr, state, 0, 0, MRC_PROFILE_ONLINE, 1, MRC_DETAIL_STATE_VALUE),
    MRC__RSET(mrc_ev_fmt_attr, mode, 1u << MRC_EV_FMT_UDP | 1u << MRC_EV_FMT_STEV | 1u << MRC_EV_FMT_SRV6, 2,
              MRC_DETAIL_FMT_MODE),
    MRC__RNG(mrc_ev_fmt_attr, nfields, 0, 1, MRC_MAX_EV_FIELDS, 3, MRC_DETAIL_FIELD_COUNT)};
static const mrc__range mrc__prof_ranges[] = {
    MRC__RNG(mrc_ev_profile_attr, state, 0, 0, MRC_PROFILE_ONLINE, 1, MRC_DETAIL_STATE_VALUE),
    MRC__RSET(mrc_ev_profile_attr, mode, 1u << MRC_EV_MODE_EXP | 1u << MRC_EV_MODE_GEN, 2, MRC_DETAIL_EV_MODE),
    MRC__RNG(mrc_ev_profile_attr, ev_count, 0, 1, MRC_MAX_EVS, 4, MRC_DETAIL_EV_COUNT),
    MRC__RNG(mrc_ev_profile_attr, event_mask, 0, 0, MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD, 6, MRC_DETAIL_EVENT_MASK),
    MRC__RNG(mrc_ev_profile_attr, nfields, 0, 1, MRC_MAX_EV_FIELDS, 7, MRC_DETAIL_FIELD_COUNT)};
MRC__STATIC_ASSERT(MRC_EV_FMT_ATTR_MODE == 1u << 1 && MRC_EV_FMT_ATTR_FIELDS == 1u << 2 &&
                       MRC_EV_PROF_ATTR_MODE == 1u << 1 && MRC_EV_PROF_ATTR_COUNT == 1u << 3 &&
                       MRC_EV_PROF_ATTR_EVENT_MASK == 1u << 5 && MRC_EV_PROF_ATTR_FIELDS == 1u << 6 &&
                       offsetof(mrc_ev_fmt_attr, state) == 0 && offsetof(mrc_ev_profile_attr, state) == 0,
                   range_bits);
MRC__PRIVATE mrc__evfmt *mrc__fmt_find(const mrc_endpoint *ep, uint64_t id) {
    return (mrc__evfmt *)mrc__tab_find(ep->fmts, MRC_MAX_EV_FMTS, sizeof ep->fmts[0], offsetof(mrc__evfmt, used), id);
}
MRC_API int mrc_ev_fmt_modify(mrc_endpoint *ep, uint64_t id, const mrc_ev_fmt_attr *a, uint32_t mask) {
    const uint32_t all = MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS;
    mrc__evfmt *f;
    mrc_ev_fmt_attr n;
    unsigned cur, to, i;
    bool busy = false;
    int rc;
    if ((rc = mrc__prof_begin(ep, MRC_CALL_EV_FMT_MODIFY, a, id, mask, all)) != MRC_OK) return rc;
    f = mrc__fmt_find(ep, id);
    cur = f ? f->a.state : (unsigned)MRC_PROFILE_INIT;
    /* STATE, MODE, FIELDS' count */
    if ((rc = mrc__ranges(ep, a, mrc__fmt_ranges, MRC__NRANGES(mrc__fmt_ranges), mask)) != MRC_OK) return rc;
    to = mask & MRC_EV_FMT_ATTR_STATE ? a->state : cur; /* a state past ONLINE only from the call */
    if (mask & MRC_EV_FMT_ATTR_FIELDS) {
        for (i = 0; i < a->nfields; i++)
            if (a->width[i] < 1 || a->width[i] > 32)
                return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_FIELD_WIDTH, MRC_EV_FMT_ATTR_FIELDS, i);
    }
    for (i = 0; i < MRC_MAX_EV_PROFILES; i++) /* an ONLINE EV profile uses it */
        if (ep->profs[i].used && ep->profs[i].state == MRC_PROFILE_ONLINE && ep->profs[i].fmt_id == id) busy = true;
    rc = mrc__prof_step(ep, cur, to, mask, MRC_EV_FMT_ATTR_MODE, MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS, busy);
    if (rc) return rc < 0 ? rc : MRC_OK;
    if (to == MRC_PROFILE_INIT) { /* OFFLINE -> INIT: forgotten */
        MRC_MEMSET(f, 0, sizeof *f);
        return MRC_OK;
    }
    if (f) mrc__copy(&n, &f->a, sizeof n);
    else MRC_MEMSET(&n, 0, sizeof n);
    if (mask & MRC_EV_FMT_ATTR_MODE) n.mode = a->mode;
    if (mask & MRC_EV_FMT_ATTR_FIELDS) {
        n.nfields = a->nfields;
        MRC_MEMSET(n.width, 0, sizeof n.width);
        MRC_MEMCPY(n.width, a->width, a->nfields * sizeof n.width[0]);
    }
    if (n.nfields) {
        unsigned bits = mrc__fmt_bits(&n);
        if (!bits) /* wider than the mode allows */
            return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_FMT_TOO_WIDE, MRC_EV_FMT_ATTR_FIELDS);
        if (bits > ep->cfg.ev_max_width) /* wider than the device supports */
            return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_MAX_WIDTH, MRC_EV_FMT_ATTR_FIELDS);
    }
    if (to == MRC_PROFILE_ONLINE && !n.nfields)
        return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_FIELDS_MISSING, MRC_EV_FMT_ATTR_FIELDS);
    if (!f && !(f = (mrc__evfmt *)mrc__tab_claim(ep->fmts, MRC_MAX_EV_FMTS, sizeof ep->fmts[0],
                                                  offsetof(mrc__evfmt, used), id)))
        return mrc__fail(ep, MRC_ERR_FULL, MRC_DETAIL_PROFILE_FULL, 0);
    n.state = (uint8_t)to;
    mrc__copy(&f->a, &n, sizeof n);
    return MRC_OK;
}
MRC_API int mrc_ev_fmt_query(const mrc_endpoint *ep, uint64_t id, mrc_ev_fmt_attr *a) {
    const mrc__evfmt *f;
    if (!ep || !a) return MRC_ERR_INVAL;
    f = mrc__fmt_find(ep, id);
    if (!f) return MRC_ERR_NOENT;
    mrc__copy(a, &f->a, sizeof *a);
    return MRC_OK;
}

/* ---- EV profiles -------------------------------------------------------------------------------------------- */
enum { MRC__HAVE_MIN_ACTIVE = 1u, MRC__HAVE_EVENT_MASK = 2u }; /* pf->have: the attributes given 4 bits down */
MRC__STATIC_ASSERT(MRC__HAVE_MIN_ACTIVE << 4 == MRC_EV_PROF_ATTR_MIN_ACTIVE &&
                       MRC__HAVE_EVENT_MASK << 4 == MRC_EV_PROF_ATTR_EVENT_MASK,
                   have_bits);
/* Expand EV idx of a profile (abstract value val) into its path bytes and wire entropy (Q18 SRv6 mode). */
MRC__PRIVATE int mrc__prof_expand(const mrc_ev_field *fields, unsigned nf, const mrc__evfmt *f, unsigned idx,
                                  const uint8_t *val, uint8_t *path, uint32_t *entropy) {
    int bits = mrc_ev_expand(&f->a, fields, nf, val, MRC_EV_BYTES, path, MRC_EV_BYTES);
    unsigned i, abits = 0;
    if (bits < 0) return bits;
    if (f->a.mode != MRC_EV_FMT_SRV6) {
        *entropy = mrc__bits_get(path, 0, (uint32_t)bits); /* the whole expanded EV, at most 32 bits */
        return MRC_OK;
    }
    for (i = 0; i < nf; i++) abits += mrc__popcount32(fields[i].mask);
    *entropy = abits && abits <= 32u ? mrc__bits_get(val, 0, abits) : idx;
    return MRC_OK;
}
/* GEN: a random abstract EV, field by field, each in [min_val, max_val] (0, 0: any non-zero value). */
MRC__PRIVATE void mrc__prof_generate(mrc_endpoint *ep, const mrc__evprof *pf, uint8_t *val) {
    unsigned i;
    uint32_t s = 0;
    MRC_MEMSET(val, 0, MRC_EV_BYTES);
    for (i = 0; i < pf->nfields; i++) {
        const mrc_ev_field *f = &pf->field[i];
        uint32_t k = mrc__popcount32(f->mask), lo = f->min_val, hi = f->max_val;
        uint64_t span;
        if (!k) continue;
        if (!lo && !hi) {
            lo = 1;
            hi = mrc__wmask(k);
        }
        span = (uint64_t)hi - lo + 1u;
        mrc__bits_put(val, s, k, lo + (uint32_t)(((mrc__rand(ep) >> 32) * span) >> 32));
        s += k;
    }
}
/* The QPs using a profile follow a change of its EVs. O(conns x EVs). */
MRC__PRIVATE void mrc__prof_changed(mrc_endpoint *ep, const mrc__evprof *pf, int idx, int how) {
    unsigned i, j;
    uint8_t pi = (uint8_t)(pf - ep->profs + 1);
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        mrc_conn *c = ep->conns[i];
        if (!c || c->ev_prof != pi) continue;
        for (j = 0; j < c->ev_count; j++) {
            mrc__ev *e = &c->evs[j];
            if (idx >= 0 && j != (unsigned)idx) continue;
            if (how == 0) { /* new value (read from the profile) or port */
                e->port = pf->ev[j].port;
            } else if (how == 1 && mrc__ev_is_bad(e)) { /* the controller says GOOD: reported, as its ASSUMED_BAD is */
                mrc__ev_badref(c, j, -1);
                e->st = 0;
                mrc__ev_event(c, (uint16_t)j, MRC_EVS_GOOD);
            } else if (how == 2) { /* the controller says ASSUMED_BAD */
                mrc__ev_demote(c, (uint16_t)j, true);
            }
        }
        if (how != 2) mrc__conn_ev_changed(c);
        else {
            mrc__sched_tx(c);
            mrc__timer_update(c);
        }
    }
}
/* P28 mirror reverse path: rebuild the profile's entropy index (mrc__prof_lookup) from its EVs; every change of an EV's
 * entropy or port calls it. O(n), at the controller's pace. */
MRC__PRIVATE void mrc__prof_index(mrc__evprof *pf) {
    unsigned i;
    MRC_MEMSET(pf->hix, 0, sizeof pf->hix);
    for (i = 0; i < pf->ev_count; i++) {
        uint32_t h = mrc__ent_hash(pf->ev[i].entropy);
        if (!pf->ev[i].port) continue; /* unpopulated */
        while (pf->hix[h]) h = mrc__ent_next(h);
        pf->hix[h] = (uint16_t)(i + 1u);
    }
}
MRC_API int mrc_ev_profile_modify(mrc_endpoint *ep, uint64_t id, const mrc_ev_profile_attr *a, uint32_t mask,
                                  mrc_time now) {
    const uint32_t all = MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_MODE | MRC_EV_PROF_ATTR_FMT_ID |
                         MRC_EV_PROF_ATTR_COUNT | MRC_EV_PROF_ATTR_MIN_ACTIVE | MRC_EV_PROF_ATTR_EVENT_MASK |
                         MRC_EV_PROF_ATTR_FIELDS;
    const uint32_t need = MRC_EV_PROF_ATTR_MODE | MRC_EV_PROF_ATTR_FMT_ID | MRC_EV_PROF_ATTR_COUNT |
                          MRC_EV_PROF_ATTR_FIELDS;
    mrc__evprof *pf;
    const mrc__evfmt *f;
    unsigned cur, to, i, j, have, nf, mode;
    uint32_t count, min_active;
    uint64_t fmt_id;
    const mrc_ev_field *fields;
    unsigned code, idx;
    int rc;
    if ((rc = mrc__prof_begin(ep, MRC_CALL_EV_PROFILE_MODIFY, a, id, mask, all)) != MRC_OK) return rc;
    now = mrc__clock_ctl(ep, now);
    pf = mrc__prof_find(ep, id);
    cur = pf ? pf->state : (unsigned)MRC_PROFILE_INIT;
    /* STATE, MODE, COUNT, EVENT_MASK, FIELDS' count */
    if ((rc = mrc__ranges(ep, a, mrc__prof_ranges, MRC__NRANGES(mrc__prof_ranges), mask)) != MRC_OK) return rc;
    to = mask & MRC_EV_PROF_ATTR_STATE ? a->state : cur; /* a state past ONLINE only from the call */
    rc = mrc__prof_step(ep, cur, to, mask, need,
                        all & ~(uint32_t)(MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_EVENT_MASK), pf && pf->refs);
    if (rc) return rc < 0 ? rc : MRC_OK;
    if (to == MRC_PROFILE_INIT) { /* OFFLINE -> INIT: forgotten */
        MRC_MEMSET(pf, 0, sizeof *pf);
        return MRC_OK;
    }
    /* the values after this call, validated before anything changes: the profile's (none before INIT -> OFFLINE,
     * whose mask has every attribute but MIN_ACTIVE and EVENT_MASK), then the call's */
    mode = nf = have = 0;
    count = min_active = 0;
    fields = a->field;
    fmt_id = a->fmt_id;
    if (pf) {
        mode = pf->mode;
        count = pf->ev_count;
        min_active = pf->ev_min_active;
        nf = pf->nfields;
        fields = pf->field;
        have = pf->have;
        fmt_id = pf->fmt_id;
    }
    if (mask & MRC_EV_PROF_ATTR_MODE) mode = a->mode;
    if (mask & MRC_EV_PROF_ATTR_COUNT) count = a->ev_count;
    if (mask & MRC_EV_PROF_ATTR_MIN_ACTIVE) min_active = a->ev_min_active;
    if (mask & MRC_EV_PROF_ATTR_FIELDS) {
        nf = a->nfields;
        fields = a->field;
    }
    if (mask & MRC_EV_PROF_ATTR_FMT_ID) fmt_id = a->fmt_id;
    have |= (mask >> 4) & (MRC__HAVE_MIN_ACTIVE | MRC__HAVE_EVENT_MASK);
    if (min_active > count) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_MIN_ACTIVE, MRC_EV_PROF_ATTR_MIN_ACTIVE);
    f = mrc__fmt_find(ep, fmt_id);
    if (f && f->a.nfields && (code = mrc__prof_check(&f->a, fields, nf, &idx)) != MRC_DETAIL_NONE)
        return mrc__fail_at(ep, MRC_ERR_INVAL, code, MRC_EV_PROF_ATTR_FIELDS, idx);
    if (to == MRC_PROFILE_ONLINE && cur == MRC_PROFILE_OFFLINE) {
        if (have != (MRC__HAVE_MIN_ACTIVE | MRC__HAVE_EVENT_MASK)) /* the missing ones' mask bits (have_bits) */
            return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_ATTR_MISSING,
                             (~have & (MRC__HAVE_MIN_ACTIVE | MRC__HAVE_EVENT_MASK)) << 4);
        if (!f) return mrc__fail(ep, MRC_ERR_NOENT, MRC_DETAIL_FMT_UNKNOWN, MRC_EV_PROF_ATTR_FMT_ID);
        if (f->a.state != MRC_PROFILE_ONLINE)
            return mrc__fail(ep, MRC_ERR_NOENT, MRC_DETAIL_FMT_NOT_ONLINE, MRC_EV_PROF_ATTR_FMT_ID);
        if (mode == MRC_EV_MODE_EXP) { /* every EV given and expandable */
            uint8_t path[MRC_EV_BYTES];
            uint32_t ent;
            if (mode != pf->mode) /* a new mode empties the array (commit below) */
                return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_MODE_CHANGED, MRC_EV_PROF_ATTR_MODE);
            for (i = 0; i < count; i++) {
                if (!pf->ev[i].port || pf->ev[i].port > ep->cfg.num_ports)
                    return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_UNPOPULATED, 0, i);
                if (mrc__prof_expand(fields, nf, f, i, pf->ev[i].val, path, &ent))
                    return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_EXPAND, 0, i);
            }
        }
    }
    /* commit */
    if (!pf && !(pf = (mrc__evprof *)mrc__tab_claim(ep->profs, MRC_MAX_EV_PROFILES, sizeof ep->profs[0],
                                                    offsetof(mrc__evprof, used), id)))
        return mrc__fail(ep, MRC_ERR_FULL, MRC_DETAIL_PROFILE_FULL, 0);
    if (mode != pf->mode || count != pf->ev_count) { /* a new array: unpopulated from the old count on */
        i = (mode != pf->mode) ? 0u : (unsigned)pf->ev_count;
        MRC_MEMSET(&pf->ev[i], 0, (MRC_MAX_EVS - i) * sizeof pf->ev[0]);
        for (i = 0; i < MRC_MAX_EVS; i++) pf->ev[i].group = pf->ev[i].grp_nx = 0; /* P26 hop groups: and no hop groups
                                                                                     */
    }
    pf->mode = (uint8_t)mode;
    pf->ev_count = count;
    pf->ev_min_active = min_active;
    if (mask & MRC_EV_PROF_ATTR_EVENT_MASK) pf->event_mask = a->event_mask;
    pf->fmt_id = fmt_id;
    if (mask & MRC_EV_PROF_ATTR_FIELDS) {
        pf->nfields = (uint8_t)nf;
        MRC_MEMCPY(pf->field, a->field, nf * sizeof pf->field[0]);
        MRC_MEMSET(&pf->field[nf], 0, (MRC_MAX_EV_FIELDS - nf) * sizeof pf->field[0]);
    }
    pf->have = (uint8_t)have;
    if (to == MRC_PROFILE_ONLINE && cur == MRC_PROFILE_OFFLINE) {
        pf->fmt_mode = f->a.mode;
        pf->path_len = (uint8_t)(f->a.mode != MRC_EV_FMT_SRV6 ? 0u : mrc__fmt_bits(&f->a) > 128u ? 32u : 16u);
        for (i = 0; i < count; i++) {
            mrc__event *e = &pf->ev[i];
            if (mode == MRC_EV_MODE_GEN) { /* distinct per port when the field ranges allow (O(n^2), once) */
                unsigned tries = 0;
                e->port = (uint8_t)(i % ep->cfg.num_ports + 1u);
                e->denied = 0;
                do {
                    mrc__prof_generate(ep, pf, e->val);
                    for (j = 0; j < i && (pf->ev[j].port != e->port || MRC_MEMCMP(pf->ev[j].val, e->val, MRC_EV_BYTES));
                         j++) {
                    }
                } while (j < i && ++tries < 16u);
            }
            e->bad_refs = 0;
            (void)mrc__prof_expand(pf->field, pf->nfields, f, i, e->val, e->path, &e->entropy);
        }
    }
    mrc__prof_index(pf);
    pf->state = (uint8_t)to;
    return MRC_OK;
}
MRC_API int mrc_ev_profile_query(const mrc_endpoint *ep, uint64_t id, mrc_ev_profile_attr *a) {
    const mrc__evprof *pf;
    if (!ep || !a) return MRC_ERR_INVAL;
    MRC_MEMSET(a, 0, sizeof *a);
    if (id == 0) { /* the built-in AUTO profile */
        a->state = MRC_PROFILE_ONLINE;
        a->mode = MRC_EV_MODE_AUTO;
        a->ev_count = mrc__auto_evs(ep, &a->ev_min_active);
        a->event_mask = ep->cfg.auto_ev.event_mask;
        return MRC_OK;
    }
    pf = mrc__prof_find(ep, id);
    if (!pf) return MRC_ERR_NOENT;
    a->state = pf->state;
    a->mode = pf->mode;
    a->nfields = pf->nfields;
    a->fmt_id = pf->fmt_id;
    a->ev_count = pf->ev_count;
    a->ev_min_active = pf->ev_min_active;
    a->event_mask = pf->event_mask;
    MRC_MEMCPY(a->field, pf->field, sizeof a->field);
    return MRC_OK;
}

/* ---- EV operations ---------------------------------------------------------------------------------------------- */
MRC__PRIVATE int mrc__prof_match(const mrc__evprof *pf, const mrc_ev *ev, unsigned from) {
    unsigned i;
    for (i = from; i < pf->ev_count; i++)
        if (pf->ev[i].port == ev->port && !MRC_MEMCMP(pf->ev[i].val, ev->val, MRC_EV_BYTES)) return (int)i;
    return -1;
}
MRC__PRIVATE MRC__SIZE_NOINLINE uint32_t mrc__prof_state(const mrc__evprof *pf, unsigned i) {
    return pf->ev[i].denied ? MRC_EVS_DENIED : pf->ev[i].bad_refs ? MRC_EVS_ASSUMED_BAD : MRC_EVS_GOOD;
}
MRC_API int mrc_ev_op(mrc_endpoint *ep, uint64_t profile_id, unsigned op, mrc_ev_op_entry *e, uint32_t *n,
                      mrc_time now) {
    mrc__evprof *pf;
    const mrc__evfmt *f;
    uint32_t count, k;
    unsigned i;
    if (!ep) return MRC_ERR_INVAL;
    mrc__detail_begin(ep, MRC_CALL_EV_OP);
    if (!n || (*n && !e) || op > MRC_EV_OP_QUERY_ARRAY) return mrc__fail(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_OP, 0);
    (void)mrc__clock_ctl(ep, now);
    count = *n;
    *n = 0;
    pf = mrc__prof_find(ep, profile_id);
    if (!pf) return mrc__fail(ep, MRC_ERR_NOENT, MRC_DETAIL_PROFILE_UNKNOWN, 0);
    f = mrc__fmt_find(ep, pf->fmt_id);
    if (op == MRC_EV_OP_QUERY_ARRAY) {
        if (count < pf->ev_count) {
            *n = pf->ev_count;
            return mrc__fail(ep, MRC_ERR_NOBUF, MRC_DETAIL_ARRAY_ROOM, 0);
        }
        for (i = 0; i < pf->ev_count; i++) {
            MRC_MEMSET(&e[i], 0, sizeof e[i]);
            mrc__copy(e[i].ev.val, pf->ev[i].val, MRC_EV_BYTES);
            e[i].ev.port = pf->ev[i].port;
            e[i].state = mrc__prof_state(pf, i);
        }
        *n = pf->ev_count;
        return MRC_OK;
    }
    for (k = 0; k < count; k++, (*n)++) {
        mrc_ev_op_entry *x = &e[k];
        int m = mrc__prof_match(pf, &x->ev, 0);
        if (m < 0) return mrc__fail_at(ep, MRC_ERR_NOENT, MRC_DETAIL_EV_NOT_FOUND, 0, k);
        if (op == MRC_EV_OP_QUERY_STATE) {
            x->state = mrc__prof_state(pf, (unsigned)m);
        } else if (op == MRC_EV_OP_MODIFY_STATE) {
            if (x->state != MRC_EVS_GOOD && x->state != MRC_EVS_DENIED && x->state != MRC_EVS_ASSUMED_BAD)
                return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_STATE, 0, k);
            for (; m >= 0; m = mrc__prof_match(pf, &x->ev, (unsigned)m + 1u)) {
                if (x->state == MRC_EVS_ASSUMED_BAD) {
                    mrc__prof_changed(ep, pf, m, 2);
                    continue;
                }
                pf->ev[m].denied = x->state == MRC_EVS_DENIED;
                mrc__prof_changed(ep, pf, m, x->state == MRC_EVS_GOOD ? 1 : 3);
            }
        } else { /* REPLACE */
            uint8_t path[MRC_EV_BYTES];
            uint32_t ent = 0;
            if (x->state != MRC_EVS_GOOD && x->state != MRC_EVS_DENIED)
                return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_STATE, 0, k);
            if (x->ev_new.port < 1 || x->ev_new.port > ep->cfg.num_ports)
                return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_PORT, 0, k);
            if (f && f->a.nfields && mrc__prof_expand(pf->field, pf->nfields, f, (unsigned)m, x->ev_new.val, path, &ent))
                return mrc__fail_at(ep, MRC_ERR_INVAL, MRC_DETAIL_EV_EXPAND, 0, k);
            if (pf->state == MRC_PROFILE_ONLINE && !f)
                return mrc__fail_at(ep, MRC_ERR_NOENT, MRC_DETAIL_FMT_UNKNOWN, 0, k);
            for (; m >= 0; m = (x->flags & MRC_EV_OP_F_ALL_COPIES) ? mrc__prof_match(pf, &x->ev, (unsigned)m + 1u) : -1) {
                mrc__event *v = &pf->ev[m];
                mrc__copy(v->val, x->ev_new.val, MRC_EV_BYTES);
                v->port = x->ev_new.port;
                v->denied = x->state == MRC_EVS_DENIED;
                if (pf->state == MRC_PROFILE_ONLINE) {
                    (void)mrc__prof_expand(pf->field, pf->nfields, f, (unsigned)m, v->val, v->path, &v->entropy);
                    mrc__prof_changed(ep, pf, m, 0);
                }
            }
            mrc__prof_index(pf);
        }
    }
    return MRC_OK;
}
/* EV i of a UDP EV set: from the arrays, or (ports NULL) from the plane layout of mrc_ev_profile_udp_planes */
MRC__PRIVATE int mrc__ev_profile_udp(mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, const uint8_t *ports,
                                     const uint16_t *sports, unsigned n, unsigned planes, unsigned K, unsigned base,
                                     unsigned min_active, mrc_time now) {
    mrc_ev_fmt_attr f;
    mrc_ev_profile_attr a;
    mrc_ev_op_entry e;
    unsigned i;
    uint32_t one;
    int rc;
    MRC_MEMSET(&f, 0, sizeof f);
    f.state = MRC_PROFILE_OFFLINE;
    f.mode = MRC_EV_FMT_UDP;
    f.nfields = 1;
    f.width[0] = 16;
    rc = mrc_ev_fmt_modify(ep, fmt_id, &f, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS);
    f.state = MRC_PROFILE_ONLINE;
    if (!rc) rc = mrc_ev_fmt_modify(ep, fmt_id, &f, MRC_EV_FMT_ATTR_STATE);
    if (rc) return rc;
    MRC_MEMSET(&a, 0, sizeof a);
    a.state = MRC_PROFILE_OFFLINE;
    a.mode = MRC_EV_MODE_EXP;
    a.nfields = 1;
    a.fmt_id = fmt_id;
    a.ev_count = n;
    a.ev_min_active = min_active;
    a.event_mask = MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD;
    a.field[0].width = 16;
    a.field[0].mask = 0xFFFFu;
    rc = mrc_ev_profile_modify(ep, prof_id, &a,
                               MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_MODE | MRC_EV_PROF_ATTR_FMT_ID |
                                   MRC_EV_PROF_ATTR_COUNT | MRC_EV_PROF_ATTR_MIN_ACTIVE |
                                   MRC_EV_PROF_ATTR_EVENT_MASK | MRC_EV_PROF_ATTR_FIELDS,
                               now);
    for (i = 0; !rc && i < n; i++) { /* each replaces an unpopulated entry */
        unsigned port = ports ? ports[i] : i % planes + 1u;
        unsigned sport = ports ? sports[i] : base + (port - 1u) * K + i / planes;
        MRC_MEMSET(&e, 0, sizeof e);
        e.ev_new.val[0] = (uint8_t)(sport >> 8);
        e.ev_new.val[1] = (uint8_t)(sport & 0xFFu);
        e.ev_new.port = (uint8_t)port;
        e.state = MRC_EVS_GOOD;
        one = 1;
        rc = mrc_ev_op(ep, prof_id, MRC_EV_OP_REPLACE, &e, &one, now);
    }
    if (rc) return rc;
    a.state = MRC_PROFILE_ONLINE;
    return mrc_ev_profile_modify(ep, prof_id, &a, MRC_EV_PROF_ATTR_STATE, now);
}
MRC_API int mrc_ev_profile_udp(mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, const uint8_t *ports,
                               const uint16_t *sports, unsigned n, unsigned min_active, mrc_time now) {
    if (!ep || !ports || !sports || !n) return MRC_ERR_INVAL;
    return mrc__ev_profile_udp(ep, fmt_id, prof_id, ports, sports, n, 0, 0, 0, min_active, now);
}
MRC_API int mrc_ev_profile_udp_planes(mrc_endpoint *ep, uint64_t fmt_id, uint64_t prof_id, unsigned planes,
                                      unsigned evs_per_plane, unsigned sport_base, unsigned min_active, mrc_time now) {
    if (!ep || !planes || planes > ep->cfg.num_ports || !evs_per_plane || evs_per_plane > MRC_MAX_EVS ||
        planes * evs_per_plane > MRC_MAX_EVS || sport_base > 65536u - planes * evs_per_plane)
        return MRC_ERR_INVAL;
    return mrc__ev_profile_udp(ep, fmt_id, prof_id, (const uint8_t *)0, (const uint16_t *)0, planes * evs_per_plane,
                               planes, evs_per_plane, sport_base, min_active, now);
}
MRC_API int mrc_ev_profile_groups(mrc_endpoint *ep, uint64_t prof_id, const uint16_t *group, unsigned n) {
    mrc__evprof *pf;
    unsigned i, j;
    if (!ep || !prof_id || (n && !group)) return MRC_ERR_INVAL;
    pf = mrc__prof_find(ep, prof_id);
    if (!pf || pf->state == MRC_PROFILE_INIT) return MRC_ERR_NOENT;
    if (n > pf->ev_count) return MRC_ERR_INVAL;
    for (i = 0; i < MRC_MAX_EVS; i++) pf->ev[i].group = (uint16_t)(i < n ? group[i] : 0u);
    for (i = 0; i < pf->ev_count; i++) { /* the ring: the next index of the same group, wrapping round */
        pf->ev[i].grp_nx = 0;
        if (!pf->ev[i].group) continue;
        for (j = i + 1u;; j++) { /* i itself at the latest */
            if (j == pf->ev_count) j = 0;
            if (pf->ev[j].group == pf->ev[i].group) break;
        }
        pf->ev[i].grp_nx = (uint16_t)(j + 1u);
    }
    return MRC_OK;
}
