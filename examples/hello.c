/* examples/hello.c - the smallest complete open MRC program, the file to read first.
 *
 * Two endpoints (two NICs) in one process, joined by an in-memory wire that loses 2% of the packets and reorders
 * the rest (each takes 5 us plus up to 3 us of jitter). A writes 1 MiB into B's memory with one RDMA
 * Write-with-Immediate; A sees SEND_DONE, B sees RECV_IMM, and B's memory is compared with A's buffer.
 * Time is virtual: the loop jumps to the next packet arrival or core deadline, so it runs in milliseconds.
 *
 *   cc -std=c99 -I. -o hello examples/hello.c && ./hello        (make hello; make test runs it)
 */
#define MRC_IMPLEMENTATION
#include "mrc.h"
#include <stdio.h>
#include <string.h>

#define MSG (1u << 20)
typedef struct { mrc_time at; int to; size_t len; mrc_rxinfo ri; uint8_t bytes[MRC_HDR_MAX + 4096 + 4]; } packet;
static packet wire[2048];               /* packets in flight, in no particular order */
static unsigned in_flight, sent, lost;
static uint64_t rng = 1;                /* the wire's own randomness; the core has its seeded PRNG */
static mrc_endpoint ep[2];              /* large (make size) and must not move: static, not on the stack */
static mrc_conn qp[2];
static uint8_t src[MSG], dst[MSG];

static uint32_t rnd(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

/* What a port adapter does: take every packet the core has ready and put it on the wire (here: maybe lose it). */
static void transmit(int from, mrc_time now) {
    uint8_t hdr[MRC_HDR_MAX];
    mrc_txinfo ti;
    int n;
    while ((n = mrc_endpoint_poll_tx(&ep[from], hdr, sizeof hdr, 0, &ti, now)) > 0) {
        packet *p = &wire[in_flight];
        sent++;
        if (rnd() % 100 < 2 || in_flight == sizeof wire / sizeof wire[0]) { lost++; continue; }
        in_flight++;
        p->at = now + 5000 + rnd() % 3000;
        p->to = 1 - from;
        memcpy(p->bytes, hdr, (size_t)n);                              /* MRC headers from BTH on */
        if (ti.payload_len) memcpy(p->bytes + n, ti.payload, ti.payload_len); /* straight from the posted buffer */
        memset(p->bytes + n + ti.payload_len, 0, ti.pad);
        p->len = (size_t)n + ti.payload_len + ti.pad;
        memset(&p->ri, 0, sizeof p->ri);
        p->ri.port = ti.port; /* plane p of A is wired to plane p of B */
        p->ri.ev = ti.ev;     /* the entropy, as a UDP source port would carry it */
        p->ri.dscp = ti.dscp;
        p->ri.peer = 1;       /* each side calls the other NIC "peer 1" (mrc_conn_attr.peer) */
    }
}

static int connect_pair(void) {
    mrc_conn_attr a;
    mrc_detail d;
    char why[256];
    int s;
    for (s = 0; s < 2; s++) {
        mrc_conn_attr_default(&a);             /* pkey, MTU 4096, windows, retries and timeouts that work */
        a.dest_qpn = mrc_conn_qpn(&qp[1 - s]); /* normally learnt out of band, with the PSNs and the rkey */
        a.sq_psn = 1000u * (unsigned)(s + 1);
        a.rq_psn = 1000u * (unsigned)(2 - s);
        a.peer = 1;
        if (mrc_conn_connect(&qp[s], &a, 0) != MRC_OK) { /* RESET -> INIT -> RTR -> RTS */
            mrc_endpoint_last_error(&ep[s], &d);
            mrc_detail_format(&d, why, sizeof why);
            fprintf(stderr, "hello: %s\n", why);
            return -1;
        }
    }
    return 0;
}

int main(void) {
    mrc_config cfg;
    mrc_write w;
    mrc_event ev;
    mrc_conn_stats st;
    mrc_time now = 0;
    uint32_t rkey, i;
    int s, sent_done = 0, recv_done = 0;

    for (i = 0; i < MSG; i++) src[i] = (uint8_t)(i * 7u + (i >> 12));
    for (s = 0; s < 2; s++) {
        mrc_config_default(&cfg);
        cfg.seed = 42u + (unsigned)s; /* every random choice of the core derives from the seed */
        if (mrc_endpoint_init(&ep[s], &cfg, now) || mrc_conn_init(&ep[s], &qp[s], now)) return 1;
    }
    if (mrc_endpoint_reg_mr(&ep[1], dst, 0x10000000, MSG, MRC_ACCESS_REMOTE_WRITE, NULL, &rkey)) return 1;
    if (connect_pair()) return 1;

    mrc_conn_post_recv(&qp[1], 77, now); /* B: a receive for the immediate */
    memset(&w, 0, sizeof w);
    w.wr_id = 1;
    w.opcode = MRC_WR_WRITE_IMM;
    w.buf = src;
    w.len = MSG;
    w.remote_va = 0x10000000; /* B's iova of dst[0] */
    w.rkey = rkey;
    w.imm = 0xC0FFEE;
    if (mrc_conn_post_write(&qp[0], &w, now) != MRC_OK) return 1;

    while (!(sent_done && recv_done) && now < 1000000000u) { /* at most 1 s of virtual time */
        mrc_time next = MRC_TIME_NEVER;
        for (i = 0; i < in_flight;) { /* deliver what has arrived by now */
            if (wire[i].at <= now) {
                packet p = wire[i];
                wire[i] = wire[--in_flight];
                mrc_endpoint_recv(&ep[p.to], p.bytes, p.len, &p.ri, now); /* a bad packet is dropped, counted */
            } else {
                i++;
            }
        }
        for (s = 0; s < 2; s++) {
            if (now >= mrc_endpoint_next_deadline(&ep[s])) mrc_endpoint_on_timeout(&ep[s], now);
            transmit(s, now);
            while (mrc_endpoint_poll_event(&ep[s], &ev) > 0) {
                if (ev.status != MRC_OK) {
                    fprintf(stderr, "hello: %c: %s: %s\n", 'A' + s, mrc_event_name(ev.type), mrc_strerror(ev.status));
                    return 1;
                }
                if (ev.type == MRC_EVT_SEND_DONE) sent_done = 1;
                if (ev.type == MRC_EVT_RECV_IMM) {
                    printf("B: RECV_IMM wr_id %llu imm 0x%X, %u bytes\n", (unsigned long long)ev.wr_id, ev.imm,
                           ev.byte_len);
                    recv_done = ev.imm == 0xC0FFEE && ev.byte_len == MSG;
                }
            }
            if (mrc_endpoint_next_deadline(&ep[s]) < next) next = mrc_endpoint_next_deadline(&ep[s]);
        }
        for (i = 0; i < in_flight; i++)
            if (wire[i].at < next) next = wire[i].at;
        now = next > now ? next : now + 1; /* jump to the next thing that happens */
    }
    mrc_conn_stats_get(&qp[0], &st);
    printf("wire: %u packets (data and acknowledgements), %u lost; A retransmitted %llu; %.1f us of virtual time\n",
           sent, lost, (unsigned long long)st.tx_rtx, (double)now / 1000.0);
    if (!sent_done || !recv_done || memcmp(src, dst, MSG) != 0) {
        printf("hello: FAILED (send done %d, receive done %d, bytes %s)\n", sent_done, recv_done,
               memcmp(src, dst, MSG) ? "differ" : "equal");
        return 1;
    }
    printf("hello: 1 MiB written with immediate 0xC0FFEE, bytes equal\n");
    return 0;
}
