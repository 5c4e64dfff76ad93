/* core_ibv.c - lib_mrc's NIC carrier: on an RDMA device (the real libibverbs), the frames move over ports/ibverbs'
 * raw packet QPs (one per plane, flow-steered by destination MAC, IP and UDP port; the EV is the UDP source port).
 *
 * Owns: the adapter (mrc_ibv) of a device opened in NIC mode, its single peer (ports/ibverbs serves one), the peer's
 * MAC (from the kernel's neighbour table), and the hook that registers the region an arriving write's rkey names,
 * as the UDP carrier does. core_bridge.c calls these in place of its sockets when ob_cfg.carrier is OB_CAR_IBV.
 *
 * The adapter's source is compiled here, in a unit that sees the core's capacity macros exactly as core_bridge.c
 * does (core_int.h), so that both agree on the core's structure sizes.
 */
#define _GNU_SOURCE
#include "core_int.h"

#include "../ports/ibverbs/mrc_ibv.c"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/* ---- device-independent pieces (tested by ocp/tests/ocp_unit.c) ---------------------------------------------- */

int ob_ibv_spec(char *buf, size_t n, const char *dev, const char *extra) {
    int l;
    if (!buf || !dev || !*dev || strchr(dev, ',') || strchr(dev, ':')) return -1;
    l = snprintf(buf, n, "%s:1,carrier=raw%s%s", dev, extra && *extra ? "," : "", extra && *extra ? extra : "");
    return l > 0 && (size_t)l < n ? 0 : -1;
}

int ob_arp_find(const char *text, uint32_t ip, uint8_t mac[6]) {
    const char *line = text;
    while (line && *line) {
        char ipbuf[64], hw[64];
        unsigned type, flags, m[6];
        struct in_addr a;
        /* "IP address  HW type  Flags  HW address  Mask  Device" */
        if (sscanf(line, "%63s 0x%x 0x%x %63s", ipbuf, &type, &flags, hw) == 4 && inet_pton(AF_INET, ipbuf, &a) == 1 &&
            a.s_addr == ip && (flags & 0x2u) /* ATF_COM: complete */ &&
            sscanf(hw, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) == 6) {
            unsigned i, any = 0;
            for (i = 0; i < 6; i++) {
                mac[i] = (uint8_t)m[i];
                any |= m[i];
            }
            if (any) return 0;
        }
        line = strchr(line, '\n');
        if (line) line++;
    }
    return -1;
}

/* ---- the peer's MAC ------------------------------------------------------------------------------------------ */

static int ob_arp_read(uint32_t ip, uint8_t mac[6]) {
    char text[16384];
    size_t n;
    FILE *f = fopen("/proc/net/arp", "r");
    if (!f) return -1;
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    return ob_arp_find(text, ip, mac);
}

/* The kernel's neighbour entry for ip: if there is none, a datagram to it (the discard port) makes the kernel ask,
 * and the answer is awaited on a netlink socket subscribed to neighbour changes, for at most a second. */
static int ob_neigh_mac(uint32_t ip, uint8_t mac[6], char *err, size_t errlen) {
    struct sockaddr_nl nl;
    struct sockaddr_in to;
    mrc_time end = ob_now() + 1000000000u;
    int nfd, ufd;
    char ipt[INET_ADDRSTRLEN];
    if (ob_arp_read(ip, mac) == 0) return 0;
    memset(&nl, 0, sizeof nl);
    nl.nl_family = AF_NETLINK;
    nl.nl_groups = RTMGRP_NEIGH;
    nfd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (nfd >= 0 && bind(nfd, (struct sockaddr *)&nl, sizeof nl) != 0) {
        close(nfd);
        nfd = -1;
    }
    ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = ip;
    to.sin_port = htons(9);
    if (ufd >= 0) {
        if (sendto(ufd, "", 1, MSG_DONTWAIT, (struct sockaddr *)&to, sizeof to) < 0) { /* resolution starts anyway */
        }
        close(ufd);
    }
    while (nfd >= 0 && ob_now() < end) {
        struct pollfd pf;
        char junk[8192];
        pf.fd = nfd;
        pf.events = POLLIN;
        if (poll(&pf, 1, (int)((end - ob_now()) / 1000000u) + 1) <= 0) break;
        while (recv(nfd, junk, sizeof junk, MSG_DONTWAIT) > 0) {
        }
        if (ob_arp_read(ip, mac) == 0) {
            close(nfd);
            return 0;
        }
    }
    if (nfd >= 0) close(nfd);
    if (ob_arp_read(ip, mac) == 0) return 0;
    inet_ntop(AF_INET, &ip, ipt, sizeof ipt);
    snprintf(err, errlen, "no MAC address for the peer %s in the neighbour table (/proc/net/arp) after asking for 1 s; "
                          "raw frames go to the peer's MAC on one L2 segment", ipt);
    return -1;
}

/* ---- the adapter ----------------------------------------------------------------------------------------------- */

static int ob_ibv_rx_hook(void *ctx, uint8_t *pkt, size_t len) {
    ob_dev *d = ctx;
    if (ob_epop_refuse(d, pkt, len, 1)) return 1; /* the one peer's handle */
    ob_rkey_seen(d, pkt, len);
    return 0;
}

int ob_ibv_open(ob_dev *d, char *err, size_t errlen) {
    mrc_ibv_config ic;
    mrc_ibv_peer me;
    char spec[256];
    mrc_ibv_config_default(&ic);
    if (ob_ibv_spec(spec, sizeof spec, d->cfg.ibv_dev, d->cfg.ibv_extra) != 0) {
        snprintf(err, errlen, "bad device name '%s' or MRC_OCP_IBV options", d->cfg.ibv_dev);
        return EINVAL;
    }
    if (mrc_ibv_spec_parse(&ic.spec, spec, err, errlen) != 0) return EINVAL;
    if (ic.spec.carrier != MRC_IBV_RAW) {
        snprintf(err, errlen, "lib_mrc moves frames over raw packet QPs only: UD needs the peer's QP numbers, which "
                              "OCP's API does not exchange");
        return EOPNOTSUPP;
    }
    ic.planes = d->cfg.planes;
    ic.peer = 1;
    if (mrc_ibv_open(&d->ib, &ic, err, errlen) != 0) return ENODEV;
    if (mrc_ibv_watch_fd(d->ib, d->bell) != 0 || mrc_ibv_local(d->ib, 1, &me) != 0) {
        snprintf(err, errlen, "%s", mrc_ibv_last_error(d->ib));
        mrc_ibv_close(d->ib);
        d->ib = NULL;
        return EIO;
    }
    memcpy(&d->cfg.ip, me.addr.ip, 4);
    d->cfg.udp_port = me.dport;
    mrc_ibv_set_rx_hook(d->ib, ob_ibv_rx_hook, d);
    return 0;
}

void ob_ibv_close(ob_dev *d) {
    mrc_ibv_close(d->ib);
    d->ib = NULL;
}

/* the one peer of a NIC-mode device: its MAC, then every plane aimed at it (plane p: UDP port dport + p - 1) */
int ob_ibv_set_peer(ob_dev *d, uint32_t ip, char *err, size_t errlen) {
    mrc_ibv_peer peer[MRC_MAX_PORTS], me;
    unsigned p;
    memset(peer, 0, sizeof peer);
    if (mrc_ibv_local(d->ib, 1, &me) != 0) return EIO;
    if (ip == d->cfg.ip) memcpy(peer[0].addr.mac, me.addr.mac, 6); /* this port itself */
    else if (ob_neigh_mac(ip, peer[0].addr.mac, err, errlen) != 0) return EHOSTUNREACH;
    for (p = 0; p < d->cfg.planes; p++) {
        memcpy(peer[p].addr.mac, peer[0].addr.mac, 6);
        memcpy(peer[p].addr.ip, &ip, 4);
        peer[p].dport = me.dport; /* the peer's plane 1, as ours: both sides use the same dport */
    }
    return mrc_ibv_set_peer(d->ib, peer, d->cfg.planes, err, errlen) == 0 ? 0 : EIO;
}

/* One turn without sleeping: timers, transmit, receive. -1: the device failed (why in d->ib's last error). */
int ob_ibv_step(ob_dev *d, mrc_time wake_at) {
    unsigned ready = 0;
    int n = mrc_ibv_step(d->ib, &d->ep, wake_at, &ready);
    if (ready) { /* the doorbell (the only watched fd) */
        uint64_t v;
        if (read(d->bell, &v, sizeof v) < 0) {
        }
    }
    return n;
}

int ob_ibv_poll_event(ob_dev *d, mrc_event *ev) { return mrc_ibv_poll_event(d->ib, &d->ep, ev); }

const char *ob_ibv_error(const ob_dev *d) { return d->ib ? mrc_ibv_last_error(d->ib) : ""; }
