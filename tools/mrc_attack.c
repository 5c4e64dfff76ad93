/* mrc_attack.c - a forging attacker against a live mrc_perf transfer on loopback (issue 13, make test-hostile).
 *
 *   mrc_attack --mode a|b|c|d|e|f|g --data-port N --ev-port N [--planes P] [--evs E] [options]
 *   mrc_attack --check            exit 0 when an AF_PACKET socket on "lo" can be opened, else "SKIP: ..." and 77
 *
 * It learns the connection by sniffing loopback with an AF_PACKET socket bound to "lo" (root). A classic BPF
 * filter keeps only IPv4 UDP datagrams of the mrc_perf server under attack (destination port in its plane receive
 * ports --data-port..+P-1, or source port in those or in its EV source ports --ev-port..+E-1) and cuts them to 512
 * bytes. Each datagram's payload is decoded from BTH on with the core's own mrc_pkt_decode:
 *   - data packets to the server (client -> server): the server's QPN, P_Key, the latest PSN and MSN, the RETH rkey;
 *   - SACKs from the server (server -> client): the client's QPN, the cumulative ack PSN, rcvd_bytes, the entropy,
 *     and the client's plane receive ports (their UDP destination ports).
 * Then it forges with the core's own encoders (mrc_bth_encode, mrc_meth_encode, mrc_tseth_encode, mrc_reth_encode,
 * mrc_seth_encode + mrc_cc_state_encode, mrc_neth_encode, mrc_peth_encode, mrc_erth_encode) and sends from an
 * ordinary UDP socket bound to 127.0.0.1 to 127.0.0.1 only: on loopback every datagram comes from 127.0.0.1, so
 * the adapter's source-address check lets the forgeries in (its EV is the attacker's source port).
 *
 * Modes (one per run; tools/hostile_test.sh runs each against its own transfer):
 *   a  zero-length WRITE_ONLY, rkey 0, at PSNs inside the responder window not sent yet, to the server's data QP
 *   b  a NACK UNEXP_EVENT (0x19) for a PSN never sent (2^20 past the latest), to the client's QP
 *   c  stale SACKs (cack 2^22 behind the live one) with penalty 127, ECN echo (SKIP_ONCE), rcvd_bytes +0x7FFFFF
 *      and MPR 1, to the client's QP
 *   d  PORT_STATUS_UPDATEs to QP 0x2 of both sides: one with a wrong P_Key (the connection's ^ 0x1234, mask 0x1),
 *      then one with the connection's P_Key and mask 0;
 *      then watches (sniffing) until data flows again on all P planes (or --observe-ms passes)
 *   e  a bounded, rate-limited flood of random garbage to QP 0x2 and to the data QPs of both sides: a third random
 *      bytes, a third a BTH to QP 0x2 (P_Key never the connection's) and random bytes, a third a BTH to the data QP
 *      (the connection's P_Key half the time) and random bytes; opcodes valid half the time
 *   f  a flood of EV_PROBE requests to QP 0x2 of both sides and of PROBE_REQs to the server's data QP, in bursts of
 *      256 sent back to back (sendmmsg); counts the probe answers it sees (SACKs with pr = 1 carrying its own
 *      source port as entropy)
 *   g  up-to-date SACKs (the live cack) whose bitmap names PSNs never sent (32767 past cack), with penalty 127 and an
 *      ECN echo (SKIP_ONCE), to the client's QP (issue 39: a SACK bogus in any field must be dropped whole)
 * Every result is one line "result MODE: key=value ..." on stdout. Exit 0 when the attack was carried out, 1 when
 * the connection could not be learned within --learn-ms (or a send failed), 2 usage, 77 AF_PACKET unavailable.
 *
 * Bounds: at most 20000 forged packets per run (--count), paced at --rate packets/s (default 20000, max 100000);
 * every wait is bounded by --learn-ms / --observe-ms. Destination: 127.0.0.1 only.
 */
#define _GNU_SOURCE
#define MRC_IMPLEMENTATION
#include "mrc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_COUNT 20000u
#define SNAP 512u
#define MAXP 8u

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

typedef struct {
    /* from the command line */
    char mode;
    unsigned data_port, ev_port, planes, evs;
    unsigned count, rate, learn_ms, observe_ms;
    uint64_t seed;
    /* sockets */
    int sniff, tx;
    unsigned my_sport;
    mrc_wire_opts wire;
    /* learned */
    int have_data, have_sack;
    uint32_t srv_qpn, cli_qpn, data_psn, cack, rkey, dma_len, rcvd, entropy;
    uint16_t pkey, msn;
    uint64_t va;
    unsigned cli_port[MAXP + 1]; /* the client's receive port of plane p (from SACK destination ports) */
    unsigned sack_plane;         /* the plane of the latest SACK */
    /* observations */
    uint64_t seen_data, seen_sack, plane_data[MAXP + 1], probe_answers, eeth_seen;
    uint64_t sent;
    uint64_t rng;
} atk;

static void die(int rc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("mrc_attack: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(rc);
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t rnd(atk *a) { /* xorshift64* */
    a->rng ^= a->rng >> 12;
    a->rng ^= a->rng << 25;
    a->rng ^= a->rng >> 27;
    return a->rng * 0x2545F4914F6CDD1DULL;
}

static unsigned opt_uint(const char *name, const char *v, unsigned lo, unsigned hi) {
    char *end;
    unsigned long x;
    if (!v) die(2, "option %s needs a value", name);
    errno = 0;
    x = strtoul(v, &end, 0);
    if (errno || *end || end == v || x < lo || x > hi) die(2, "option %s needs an integer in %u..%u, got '%s'", name, lo, hi, v);
    return (unsigned)x;
}

/* ---- sniffing ---------------------------------------------------------------------------------------------- */
static int sniff_open(atk *a, char *err, size_t n) {
    struct sockaddr_ll sll;
    struct sock_fprog prog;
    unsigned idx = if_nametoindex("lo");
    int one = 1, rcv = 8 << 20;
    uint32_t evlo = a->ev_port, evhi = a->ev_port + a->evs - 1u, dlo = a->data_port, dhi = a->data_port + a->planes - 1u;
    /* IPv4 (the packet socket's data starts at the IP header), UDP, not a fragment, and sport in the server's EV or
     * receive ports or dport in its receive ports: accept the first SNAP bytes */
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),               /* 0: protocol */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 17, 0, 12),      /* 1: UDP, else drop (14) */
        BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),               /* 2: flags + fragment offset */
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 10, 0), /* 3: a fragment: drop */
        BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),              /* 4: X = IP header length */
        BPF_STMT(BPF_LD | BPF_H | BPF_IND, 0),               /* 5: UDP source port */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, evlo, 0, 1),     /* 6 */
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, evhi, 0, 5),     /* 7: in the EV ports: accept (13) */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, dlo, 0, 1),      /* 8 */
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, dhi, 0, 3),      /* 9: from a receive port: accept */
        BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),               /* 10: UDP destination port */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, dlo, 0, 2),      /* 11 */
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, dhi, 1, 0),      /* 12: to a receive port: accept */
        BPF_STMT(BPF_RET | BPF_K, SNAP),                     /* 13 */
        BPF_STMT(BPF_RET | BPF_K, 0),                        /* 14 */
    };
    if (!idx) return snprintf(err, n, "no loopback interface \"lo\""), -1;
    a->sniff = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_IP));
    if (a->sniff < 0) return snprintf(err, n, "AF_PACKET socket: %s (needs root / CAP_NET_RAW)", strerror(errno)), -1;
    prog.len = (unsigned short)(sizeof code / sizeof code[0]);
    prog.filter = code;
    if (setsockopt(a->sniff, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog))
        return snprintf(err, n, "SO_ATTACH_FILTER: %s", strerror(errno)), -1;
    (void)setsockopt(a->sniff, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
    if (setsockopt(a->sniff, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof rcv))
        (void)setsockopt(a->sniff, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_IP);
    sll.sll_ifindex = (int)idx;
    if (bind(a->sniff, (struct sockaddr *)&sll, sizeof sll))
        return snprintf(err, n, "bind AF_PACKET to lo: %s", strerror(errno)), -1;
    return 0;
}

static uint32_t psn_max(uint32_t cur, uint32_t psn, int have) {
    return (!have || mrc_psn_diff(psn, cur) > 0) ? psn : cur;
}

/* one captured datagram: IPv4 + UDP between loopback addresses, MRC from BTH on */
static void on_datagram(atk *a, const uint8_t *b, size_t len) {
    size_t ihl, ulen, mlen;
    unsigned sport, dport;
    const uint8_t *m;
    mrc_pkt k;
    if (len < 28 || (b[0] >> 4) != 4 || b[9] != 17 || b[12] != 127 || b[16] != 127) return;
    ihl = (size_t)(b[0] & 15u) * 4u;
    if (ihl < 20 || len < ihl + 8) return;
    sport = (unsigned)b[ihl] << 8 | b[ihl + 1];
    dport = (unsigned)b[ihl + 2] << 8 | b[ihl + 3];
    ulen = (size_t)b[ihl + 4] << 8 | b[ihl + 5];
    if (ulen < 8) return;
    m = b + ihl + 8;
    mlen = len - ihl - 8;
    if (mlen > ulen - 8) mlen = ulen - 8;
    if (mrc_pkt_decode(m, mlen, &a->wire, &k) != MRC_OK) return;
    if (dport >= a->data_port && dport < a->data_port + a->planes) { /* to the server */
        if (k.bth.opcode >= MRC_OP_WRITE_FIRST && k.bth.opcode <= MRC_OP_WRITE_ONLY_IMM && k.bth.dest_qp != MRC_EPOP_QPN &&
            sport != a->my_sport) {
            a->srv_qpn = k.bth.dest_qp;
            a->pkey = k.bth.pkey;
            a->data_psn = psn_max(a->data_psn, k.bth.psn, a->have_data);
            a->msn = k.meth.msn;
            a->rkey = k.reth.rkey;
            a->va = k.reth.va;
            a->dma_len = k.reth.dma_len;
            a->have_data = 1;
            a->seen_data++;
            a->plane_data[dport - a->data_port + 1u]++;
        }
        return;
    }
    /* from the server (its EV ports or, for answers on an unmapped EV, its receive ports) */
    if (k.bth.opcode == MRC_OP_SACK && (k.hdrs & MRC_HDR_SETH)) {
        unsigned plane = 0;
        if (k.seth.pr && k.seth.entropy == a->my_sport) a->probe_answers++;
        if (sport >= a->ev_port && sport < a->ev_port + a->evs) plane = (sport - a->ev_port) / (a->evs / a->planes) + 1u;
        if (plane >= 1 && plane <= a->planes) {
            a->cli_port[plane] = dport;
            a->sack_plane = plane;
        }
        a->cli_qpn = k.bth.dest_qp;
        a->cack = psn_max(a->cack, k.seth.cack_psn, a->have_sack);
        a->rcvd = k.cc.rcvd_bytes;
        a->entropy = k.seth.entropy;
        a->have_sack = 1;
        a->seen_sack++;
    } else if (k.bth.opcode == MRC_OP_EP_RSP) {
        a->eeth_seen++;
    }
}

/* reads what is queued; returns the number of datagrams */
static unsigned sniff_drain(atk *a, int use) {
    uint8_t buf[2048];
    struct sockaddr_ll from;
    socklen_t fl;
    unsigned n = 0;
    for (;;) {
        ssize_t r;
        fl = sizeof from;
        r = recvfrom(a->sniff, buf, sizeof buf, MSG_TRUNC, (struct sockaddr *)&from, &fl);
        if (r < 0) break;
        n++;
        if (!use || from.sll_pkttype == PACKET_OUTGOING) continue;
        on_datagram(a, buf, (size_t)r < sizeof buf ? (size_t)r : sizeof buf);
        if (n > 100000u) break;
    }
    return n;
}

static void sleep_ns(uint64_t ns) {
    struct timespec t;
    t.tv_sec = (time_t)(ns / 1000000000u);
    t.tv_nsec = (long)(ns % 1000000000u);
    (void)nanosleep(&t, NULL);
}

/* Fresh knowledge of the connection: drop what was queued, then read until a data packet and a SACK (both newer
 * than the call) were seen, or timeout_ms passed. 0, or -1. */
static int learn(atk *a, unsigned timeout_ms) {
    uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;
    (void)sniff_drain(a, 1); /* what was queued still counts (answers), but the connection's state must be newer */
    a->have_data = a->have_sack = 0;
    while (!(a->have_data && a->have_sack)) {
        if (now_ns() > end) return -1;
        if (!sniff_drain(a, 1)) sleep_ns(200000); /* poll the capture every 0.2 ms, bounded by timeout_ms */
    }
    return 0;
}

/* ---- sending ----------------------------------------------------------------------------------------------- */
static void tx_open(atk *a) {
    struct sockaddr_in me;
    socklen_t l = sizeof me;
    int sb = 4 << 20;
    a->tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (a->tx < 0) die(1, "UDP socket: %s", strerror(errno));
    (void)setsockopt(a->tx, SOL_SOCKET, SO_SNDBUF, &sb, sizeof sb);
    memset(&me, 0, sizeof me);
    me.sin_family = AF_INET;
    me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(a->tx, (struct sockaddr *)&me, sizeof me) || getsockname(a->tx, (struct sockaddr *)&me, &l))
        die(1, "bind 127.0.0.1: %s", strerror(errno));
    a->my_sport = ntohs(me.sin_port);
}

/* the only way out: to 127.0.0.1 */
static void tx(atk *a, unsigned port, const uint8_t *p, size_t n) {
    struct sockaddr_in to;
    if (!port || port > 65535u) return;
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    to.sin_port = htons((uint16_t)port);
    if (sendto(a->tx, p, n, 0, (struct sockaddr *)&to, sizeof to) < 0 && errno != ECONNREFUSED && errno != ENOBUFS &&
        errno != EAGAIN)
        die(1, "sendto 127.0.0.1:%u: %s", port, strerror(errno));
    a->sent++;
}

/* paces the i-th packet of a flood at a->rate packets per second from t0 */
static void pace(const atk *a, uint64_t t0, uint64_t i) {
    uint64_t due = t0 + i * 1000000000u / a->rate, t = now_ns();
    if (due > t) sleep_ns(due - t);
}

static unsigned srv_port(const atk *a, unsigned plane) { return a->data_port + plane - 1u; }
static unsigned cli_port_any(const atk *a) {
    unsigned p;
    if (a->cli_port[1]) return a->cli_port[1];
    for (p = 1; p <= a->planes; p++)
        if (a->cli_port[p]) return a->cli_port[p];
    return 0;
}

static mrc_bth bth_of(unsigned opcode, uint16_t pkey, uint32_t qpn, uint32_t psn) {
    mrc_bth b;
    memset(&b, 0, sizeof b);
    b.opcode = (uint8_t)opcode;
    b.pkey = pkey;
    b.dest_qp = qpn & MRC_PSN_MASK;
    b.psn = psn & MRC_PSN_MASK;
    return b;
}

static size_t put(int r) {
    if (r < 0) die(1, "an encoder failed: %s", mrc_strerror(r));
    return (size_t)r;
}

static size_t forge_erth(atk *a, uint8_t *p, size_t cap, unsigned op, uint16_t pkey, uint32_t mask) {
    mrc_bth b = bth_of(MRC_OP_EP_REQ, pkey, MRC_EPOP_QPN, (uint32_t)(rnd(a) & 0xFFFFu));
    mrc_erth e;
    size_t n;
    memset(&e, 0, sizeof e);
    e.op = (uint8_t)op;
    e.ftype = 1;
    e.port_status_mask = mask;
    e.tx_timestamp = (uint16_t)(now_ns() >> a->wire.ts_shift);
    n = put(mrc_bth_encode(p, cap, &a->wire, &b));
    n += put(mrc_erth_encode(p + n, cap - n, &e));
    return n;
}

/* a: zero-length WRITE_ONLY, rkey 0, at PSNs near the far edge of the responder window (1,023 PSNs past its
 * cumulative ack by default): past what the requester has sent, so that each reaches the access check rather than
 * the duplicate check, and with an MSN 64 messages ahead, inside the MSN window whatever completed meanwhile */
static void attack_a(atk *a) {
    unsigned round, j, forged = 0;
    static const uint32_t offs[] = {1000, 980, 960, 940, 920, 900, 880, 860, 840, 820, 800, 780};
    for (round = 0; round < 8 && forged < a->count; round++) {
        if (learn(a, a->learn_ms)) die(1, "attack a: lost sight of the connection");
        for (j = 0; j < sizeof offs / sizeof offs[0] && forged < a->count; j++) {
            uint8_t p[64];
            uint32_t psn = mrc_psn_add(a->cack, (int32_t)offs[j]);
            mrc_bth b;
            mrc_meth m;
            mrc_tseth t;
            mrc_reth r;
            size_t n;
            if (mrc_psn_diff(psn, a->data_psn) <= 0) continue; /* sent already */
            b = bth_of(MRC_OP_WRITE_ONLY, a->pkey, a->srv_qpn, psn);
            b.ts = 1;
            b.a = 1;
            m.rqmsn = 0;
            m.msn = (uint16_t)(a->msn + 64u);
            memset(&t, 0, sizeof t);
            t.tx_timestamp = (uint16_t)(now_ns() >> a->wire.ts_shift);
            t.ftype = 1;
            r.va = 0;
            r.rkey = 0;
            r.dma_len = 0;
            n = put(mrc_bth_encode(p, sizeof p, &a->wire, &b));
            n += put(mrc_meth_encode(p + n, sizeof p - n, &m));
            n += put(mrc_tseth_encode(p + n, sizeof p - n, &t));
            n += put(mrc_reth_encode(p + n, sizeof p - n, &r));
            tx(a, srv_port(a, 1u + (j % a->planes)), p, n);
            forged++;
        }
    }
    printf("result a: sent=%u rounds=%u srv_qpn=0x%06x pkey=0x%04x data_psn=0x%06x cack=0x%06x rkey_seen=0x%08x\n", forged,
           round, (unsigned)a->srv_qpn, (unsigned)a->pkey, (unsigned)a->data_psn, (unsigned)a->cack, (unsigned)a->rkey);
}

/* b: NACK UNEXP_EVENT for a PSN the requester never sent */
static void attack_b(atk *a) {
    uint8_t p[64];
    uint32_t psn = mrc_psn_add(a->data_psn, 1 << 20);
    mrc_bth b = bth_of(MRC_OP_NACK, a->pkey, a->cli_qpn, psn);
    mrc_neth k;
    size_t n;
    memset(&k, 0, sizeof k);
    k.nack_reason = MRC_NACK_UNEXP_EVENT;
    k.nack_psn = psn;
    k.entropy = a->entropy;
    k.spdcid = (uint16_t)a->srv_qpn;
    k.dpdcid = (uint16_t)a->cli_qpn;
    n = put(mrc_bth_encode(p, sizeof p, &a->wire, &b));
    n += put(mrc_neth_encode(p + n, sizeof p - n, &k));
    tx(a, a->cli_port[a->sack_plane] ? a->cli_port[a->sack_plane] : cli_port_any(a), p, n);
    printf("result b: sent=1 cli_qpn=0x%06x nack_psn=0x%06x data_psn=0x%06x\n", (unsigned)a->cli_qpn, (unsigned)psn,
           (unsigned)a->data_psn);
}

/* c: stale SACKs: cack 2^22 behind, penalty 127, ECN echo, rcvd_bytes + 0x7FFFFF, MPR 1 */
static void attack_c(atk *a) {
    unsigned i, cnt = a->count < 8u ? a->count : 8u;
    uint32_t cack = 0;
    for (i = 0; i < cnt; i++) {
        uint8_t p[64];
        mrc_bth b;
        mrc_seth s;
        mrc_cc_state cc;
        size_t n;
        if (i && learn(a, a->learn_ms)) die(1, "attack c: lost sight of the connection");
        cack = mrc_psn_add(a->cack, -(1 << 22));
        b = bth_of(MRC_OP_SACK, a->pkey, a->cli_qpn, cack);
        memset(&s, 0, sizeof s);
        s.m = MRC_M_SKIP_ONCE;
        s.entropy = a->entropy;
        s.spdcid = (uint16_t)a->srv_qpn;
        s.dpdcid = (uint16_t)a->cli_qpn;
        s.cack_psn = cack;
        s.mpr = 1;
        s.sack_offset = 1;
        memset(&cc, 0, sizeof cc);
        cc.rcv_cwnd_pen = 127;
        cc.rcvd_bytes = (a->rcvd + 0x7FFFFFu) & 0xFFFFFFu;
        cc.ooo_count = 0x7FFF;
        n = put(mrc_bth_encode(p, sizeof p, &a->wire, &b));
        n += put(mrc_seth_encode(p + n, sizeof p - n, &a->wire, &s));
        n += put(mrc_cc_state_encode(p + n, sizeof p - n, &cc));
        tx(a, a->cli_port[a->sack_plane] ? a->cli_port[a->sack_plane] : cli_port_any(a), p, n);
    }
    printf("result c: sent=%u cli_qpn=0x%06x live_cack=0x%06x forged_cack=0x%06x\n", cnt, (unsigned)a->cli_qpn,
           (unsigned)a->cack, (unsigned)cack);
}

/* g: SACKs with the live cack whose bitmap names PSNs never sent, penalty 127, ECN echo */
static void attack_g(atk *a) {
    unsigned i;
    for (i = 0; i < a->count; i++) {
        uint8_t p[64];
        mrc_bth b;
        mrc_seth s;
        mrc_cc_state cc;
        size_t n;
        if (i && !(i & 7u) && learn(a, a->learn_ms)) die(1, "attack g: lost sight of the connection");
        b = bth_of(MRC_OP_SACK, a->pkey, a->cli_qpn, a->cack);
        memset(&s, 0, sizeof s);
        s.m = MRC_M_SKIP_ONCE;
        s.entropy = a->entropy;
        s.spdcid = (uint16_t)a->srv_qpn;
        s.dpdcid = (uint16_t)a->cli_qpn;
        s.cack_psn = a->cack;
        s.sack_offset = 32767;
        s.sack_bitmap = ~(uint64_t)0;
        memset(&cc, 0, sizeof cc);
        cc.rcv_cwnd_pen = 127;
        cc.rcvd_bytes = a->rcvd;
        n = put(mrc_bth_encode(p, sizeof p, &a->wire, &b));
        n += put(mrc_seth_encode(p + n, sizeof p - n, &a->wire, &s));
        n += put(mrc_cc_state_encode(p + n, sizeof p - n, &cc));
        tx(a, a->cli_port[a->sack_plane] ? a->cli_port[a->sack_plane] : cli_port_any(a), p, n);
    }
    printf("result g: sent=%u cli_qpn=0x%06x live_cack=0x%06x\n", a->count, (unsigned)a->cli_qpn, (unsigned)a->cack);
}

/* planes that carried client -> server data within window_ms (from now) */
static unsigned planes_window(atk *a, unsigned window_ms) {
    uint64_t end = now_ns() + (uint64_t)window_ms * 1000000u;
    unsigned p, n = 0;
    (void)sniff_drain(a, 0);
    memset(a->plane_data, 0, sizeof a->plane_data);
    while (now_ns() < end)
        if (!sniff_drain(a, 1)) sleep_ns(200000);
    for (p = 1; p <= a->planes; p++) n += a->plane_data[p] > 0;
    return n;
}

/* d: PORT_STATUS_UPDATEs to QP 0x2 of both sides: a wrong P_Key (mask 0x1), then mask 0 */
static void attack_d(atk *a) {
    uint8_t p[64];
    size_t n;
    unsigned before, after = 0, cp = a->cli_port[1] ? a->cli_port[1] : cli_port_any(a);
    uint64_t t0, took = 0;
    int full = 0;
    before = planes_window(a, 100);
    uint16_t bad = (uint16_t)(a->pkey ^ 0x1234u); /* low 15 bits differ from the connection's P_Key */
    n = forge_erth(a, p, sizeof p, MRC_EPOP_PORT_STATUS_UPDATE, bad, 0x1);
    tx(a, srv_port(a, 1), p, n);
    n = forge_erth(a, p, sizeof p, MRC_EPOP_PORT_STATUS_UPDATE, bad, 0x1);
    tx(a, cp, p, n);
    n = forge_erth(a, p, sizeof p, MRC_EPOP_PORT_STATUS_UPDATE, a->pkey, 0);
    tx(a, srv_port(a, 1), p, n);
    n = forge_erth(a, p, sizeof p, MRC_EPOP_PORT_STATUS_UPDATE, a->pkey, 0);
    tx(a, cp, p, n);
    t0 = now_ns();
    /* then: data on all planes again, within observe_ms, in 100 ms windows; a first 50 ms window is not counted
     * (packets the client sent before the PSUs reached it) */
    (void)planes_window(a, 50);
    while (now_ns() - t0 < (uint64_t)a->observe_ms * 1000000u) {
        after = planes_window(a, 100);
        if (after == a->planes) {
            full = 1;
            took = (now_ns() - t0) / 1000000u;
            break;
        }
    }
    printf("result d: sent=4 pkey=0x%04x badpkey=0x%04x planes_before=%u planes_after=%u full_planes_again=%d after_ms=%llu "
           "observe_ms=%u\n",
           (unsigned)a->pkey, (unsigned)bad, before, after, full, full ? (unsigned long long)took : 0ULL, a->observe_ms);
}

/* e: random garbage to QP 0x2 and to the data QPs of both sides */
static void attack_e(atk *a) {
    static const uint8_t ops[] = {0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xCB, 0xD1, 0xD8, 0xD9, 0xDC, 0xDD, 0xDE};
    uint64_t t0 = now_ns(), i;
    unsigned to_srv = 0, to_cli = 0, planes_after;
    for (i = 0; i < a->count; i++) {
        uint8_t p[128];
        size_t n = (size_t)(rnd(a) % 96u), j;
        unsigned kind = (unsigned)(i % 3u), port;
        int srv = (i / 3u) % 2u == 0;
        for (j = 0; j < sizeof p; j += 8) {
            uint64_t r = rnd(a);
            memcpy(p + j, &r, 8);
        }
        if (kind) {
            /* a BTH that names QP 0x2 (kind 1) or the data QP (kind 2), a random opcode (a valid one half the time);
             * to the data QP the connection's P_Key half the time, so that the checks behind it are exercised; to
             * QP 0x2 never the connection's P_Key: a well-formed request with it is a forgery (attack d), not garbage */
            uint16_t pk = (uint16_t)rnd(a);
            mrc_bth b;
            if (kind == 2 && (rnd(a) & 1u)) pk = a->pkey;
            else if (((pk ^ a->pkey) & 0x7FFFu) == 0) pk ^= 0x0101u;
            b = bth_of((rnd(a) & 1u) ? ops[rnd(a) % sizeof ops] : (unsigned)(rnd(a) & 0xFFu), pk,
                       kind == 1 ? MRC_EPOP_QPN : (srv ? a->srv_qpn : a->cli_qpn), (uint32_t)rnd(a));
            b.pad = (uint8_t)(rnd(a) & 3u);
            b.ts = (uint8_t)(rnd(a) & 1u);
            b.a = (uint8_t)(rnd(a) & 1u);
            n = 12u + (size_t)(rnd(a) % 84u);
            (void)put(mrc_bth_encode(p, sizeof p, &a->wire, &b));
        }
        port = srv ? srv_port(a, 1u + (unsigned)(rnd(a) % a->planes)) : a->cli_port[1u + (unsigned)(rnd(a) % a->planes)];
        if (!port) port = srv ? srv_port(a, 1) : cli_port_any(a);
        tx(a, port, p, n);
        if (srv) to_srv++;
        else to_cli++;
        pace(a, t0, i + 1u);
    }
    planes_after = planes_window(a, 100);
    printf("result e: sent=%u to_server=%u to_client=%u ms=%llu planes_after=%u\n", to_srv + to_cli, to_srv, to_cli,
           (unsigned long long)((now_ns() - t0) / 1000000u), planes_after);
}

/* sends n datagrams back to back (sendmmsg), each to 127.0.0.1:port[i] */
static void tx_burst(atk *a, const unsigned *port, uint8_t (*pkt)[64], const size_t *len, unsigned n) {
    static struct mmsghdr mm[256];
    static struct iovec iov[256];
    static struct sockaddr_in to[256];
    unsigned i, done = 0;
    if (n > 256u) n = 256u;
    for (i = 0; i < n; i++) {
        memset(&to[i], 0, sizeof to[i]);
        to[i].sin_family = AF_INET;
        to[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        to[i].sin_port = htons((uint16_t)port[i]);
        iov[i].iov_base = pkt[i];
        iov[i].iov_len = len[i];
        memset(&mm[i], 0, sizeof mm[i]);
        mm[i].msg_hdr.msg_name = &to[i];
        mm[i].msg_hdr.msg_namelen = sizeof to[i];
        mm[i].msg_hdr.msg_iov = &iov[i];
        mm[i].msg_hdr.msg_iovlen = 1;
    }
    while (done < n) {
        int r = sendmmsg(a->tx, mm + done, n - done, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            if (errno == ECONNREFUSED || errno == ENOBUFS || errno == EAGAIN) { done++; continue; }
            die(1, "sendmmsg to 127.0.0.1: %s", strerror(errno));
        }
        done += (unsigned)r;
    }
    a->sent += n;
}

/* f: bursts of PROBE_REQs to the server's data QP and of EV_PROBE requests to QP 0x2 of both sides, each burst sent
 * back to back (sendmmsg) so that it exceeds any sane per-peer answer rate; the rounds are paced at --rate */
static void attack_f(atk *a) {
    static uint8_t pkt[256][64];
    static size_t len[256];
    static unsigned port[256];
    uint64_t t0 = now_ns(), end, done = 0;
    unsigned evp_srv = 0, evp_cli = 0, probes = 0, cp = cli_port_any(a), i, burst;
    a->probe_answers = 0;
    a->eeth_seen = 0;
    while (done < a->count) {
        /* per round: 1024 PROBE_REQs (4 bursts), 256 EV_PROBEs to the server, 256 to the client */
        for (burst = 0; burst < 6u && done < a->count; burst++) {
            unsigned n = (unsigned)(a->count - done < 256u ? a->count - done : 256u);
            if (burst < 4u) {
                if (burst == 0 && learn(a, a->learn_ms)) die(1, "attack f: lost sight of the connection");
                for (i = 0; i < n; i++) { /* PROBE_REQ: BTH (PSN = the requester's latest data PSN) + PETH */
                    mrc_bth b = bth_of(MRC_OP_PROBE_REQ, a->pkey, a->srv_qpn, a->data_psn);
                    mrc_peth e;
                    memset(&e, 0, sizeof e);
                    e.probe_id = (uint16_t)(probes + i + 1u);
                    e.ftype = 1;
                    e.tx_timestamp = (uint16_t)(now_ns() >> a->wire.ts_shift);
                    len[i] = put(mrc_bth_encode(pkt[i], sizeof pkt[i], &a->wire, &b));
                    len[i] += put(mrc_peth_encode(pkt[i] + len[i], sizeof pkt[i] - len[i], &e));
                    port[i] = srv_port(a, 1u + i % a->planes);
                }
                probes += n;
            } else {
                int srv = burst == 4u;
                for (i = 0; i < n; i++) {
                    len[i] = forge_erth(a, pkt[i], sizeof pkt[i], MRC_EPOP_EV_PROBE, a->pkey, 0);
                    port[i] = srv ? srv_port(a, 1u + i % a->planes) : cp;
                }
                if (srv) evp_srv += n;
                else evp_cli += n;
            }
            tx_burst(a, port, pkt, len, n);
            done += n;
            (void)sniff_drain(a, 1);
        }
        pace(a, t0, done);
    }
    end = now_ns() + 100000000u; /* the last answers: 100 ms more of capture */
    while (now_ns() < end)
        if (!sniff_drain(a, 1)) sleep_ns(200000);
    printf("result f: sent=%u probe_req=%u ev_probe_to_server=%u ev_probe_to_client=%u probe_answers_seen=%llu "
           "ms=%llu\n",
           probes + evp_srv + evp_cli, probes, evp_srv, evp_cli, (unsigned long long)a->probe_answers,
           (unsigned long long)((now_ns() - t0) / 1000000u));
}

static void usage(void) {
    fprintf(stderr, "usage: mrc_attack --mode a|b|c|d|e|f|g --data-port N --ev-port N [--planes P] [--evs E] [--count N]\n"
                    "                  [--rate PPS] [--seed N] [--learn-ms MS] [--observe-ms MS]\n"
                    "       mrc_attack --check\n");
    exit(2);
}

int main(int argc, char **argv) {
    static atk a;
    mrc_config cfg;
    char err[256];
    int i, check = 0;
    memset(&a, 0, sizeof a);
    a.planes = 8;
    a.evs = 128;
    a.count = 0;
    a.rate = 20000;
    a.learn_ms = 5000;
    a.observe_ms = 2000;
    a.seed = 13;
    for (i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--check")) { check = 1; continue; }
        if (!strcmp(o, "--mode")) {
            if (!v || strlen(v) != 1 || v[0] < 'a' || v[0] > 'g') die(2, "--mode needs one of a b c d e f g");
            a.mode = v[0];
        } else if (!strcmp(o, "--data-port")) a.data_port = opt_uint(o, v, 1, 65535);
        else if (!strcmp(o, "--ev-port")) a.ev_port = opt_uint(o, v, 1, 65535);
        else if (!strcmp(o, "--planes")) a.planes = opt_uint(o, v, 1, MAXP);
        else if (!strcmp(o, "--evs")) a.evs = opt_uint(o, v, 1, 256);
        else if (!strcmp(o, "--count")) a.count = opt_uint(o, v, 1, MAX_COUNT);
        else if (!strcmp(o, "--rate")) a.rate = opt_uint(o, v, 100, 100000);
        else if (!strcmp(o, "--seed")) a.seed = opt_uint(o, v, 0, 0xFFFFFFFFu);
        else if (!strcmp(o, "--learn-ms")) a.learn_ms = opt_uint(o, v, 10, 60000);
        else if (!strcmp(o, "--observe-ms")) a.observe_ms = opt_uint(o, v, 100, 60000);
        else usage();
        i++;
    }
    if (check) {
        a.data_port = 1;
        a.ev_port = 1;
        if (sniff_open(&a, err, sizeof err)) {
            printf("SKIP: %s\n", err);
            return 77;
        }
        return 0;
    }
    if (!a.mode || !a.data_port || !a.ev_port) usage();
    if (a.evs % a.planes || a.data_port + a.planes - 1u > 65535u || a.ev_port + a.evs - 1u > 65535u)
        die(2, "--evs must be a multiple of --planes and the port ranges must end at 65535 at most");
    if (!a.count) a.count = a.mode == 'e' ? 10000u : a.mode == 'f' ? 6144u : 96u;
    a.rng = a.seed * 0x9E3779B97F4A7C15ULL + 1u;
    mrc_config_default(&cfg);
    a.wire = cfg.wire;
    if (sniff_open(&a, err, sizeof err)) {
        printf("SKIP: %s\n", err);
        return 77;
    }
    tx_open(&a);
    if (learn(&a, a.learn_ms)) {
        fprintf(stderr, "mrc_attack: no data packet and SACK of the transfer seen within %u ms (data port %u, EV port %u; "
                        "%llu data, %llu SACKs)\n",
                a.learn_ms, a.data_port, a.ev_port, (unsigned long long)a.seen_data, (unsigned long long)a.seen_sack);
        return 1;
    }
    printf("learned: server QPN 0x%06x, client QPN 0x%06x, P_Key 0x%04x, data PSN 0x%06x MSN %u, cack 0x%06x, "
           "rkey 0x%08x, client port %u (attacker source port %u)\n",
           (unsigned)a.srv_qpn, (unsigned)a.cli_qpn, (unsigned)a.pkey, (unsigned)a.data_psn, (unsigned)a.msn,
           (unsigned)a.cack, (unsigned)a.rkey, cli_port_any(&a), a.my_sport);
    fflush(stdout);
    switch (a.mode) {
    case 'a': attack_a(&a); break;
    case 'b': attack_b(&a); break;
    case 'c': attack_c(&a); break;
    case 'd': attack_d(&a); break;
    case 'e': attack_e(&a); break;
    case 'g': attack_g(&a); break;
    default: attack_f(&a); break;
    }
    {
        struct tpacket_stats ps;
        socklen_t l = sizeof ps;
        if (!getsockopt(a.sniff, SOL_PACKET, PACKET_STATISTICS, &ps, &l))
            printf("sniffer: %llu data, %llu SACKs decoded; %u captured, %u dropped by the kernel since the last reading\n",
                   (unsigned long long)a.seen_data, (unsigned long long)a.seen_sack, ps.tp_packets, ps.tp_drops);
    }
    close(a.sniff);
    close(a.tx);
    return 0;
}
