/* core_int.h - what lib_mrc's core-side files (core_bridge.c: carrier, ring, progress thread; core_calls.c: the QP
 * and controller calls) share: the device structure and the helpers the calls run on. Includes the core's mrc.h
 * (with the same capacity macros in every file, so its structures have one size), never OCP's. */
#ifndef OCP_CORE_INT_H
#define OCP_CORE_INT_H
#define MRC_MAX_CONNS 64
#define MRC_MAX_MRS 64
#include "../mrc.h"
#include "bridge.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define OB_RING 4096u /* operations in flight between the application and the progress thread (power of two) */
#define OB_MAX_PEERS 64
#define OB_RKEYS 64
#define OB_SHIM 8 /* EV (4 bytes), the sender's plane-1 UDP port (2), reserved (2); big-endian */
#define OB_EVSOCKS 256 /* sockets bound to EV source ports */
#define OB_BATCH 32 /* datagrams per recvmmsg / sendmmsg */
#define OB_PKT_MAX (OB_SHIM + MRC_HDR_MAX + 4096 + 64)
#define OB_LINK_SLOTS 256u /* datagrams a plane's link model holds (its queue's bytes are the limit before this) */

typedef struct ob_lpkt { /* a datagram waiting for its link (test hook MRC_OCP_LINK) */
    mrc_time due;
    int fd;
    uint32_t ip;
    uint16_t port;
    uint16_t len;
    uint8_t b[OB_PKT_MAX];
} ob_lpkt;

enum { OP_WRITE = 1, OP_RECV, OP_CALL };

typedef struct ob_call {
    int (*fn)(ob_dev *d, void *arg);
    void *arg;
    int rc;
    atomic_int done;
} ob_call;

typedef struct ob_op {
    int kind;
    ob_conn *conn;
    ob_write w;
    ob_call *call;
} ob_op;

struct ob_conn {
    mrc_conn c;
    ob_dev *dev;
    void *user;
    uint32_t qpn;
    unsigned nparked;     /* its posts in ob_dev.parked */
    uint32_t peer;        /* the peer handle it was connected to (RTR), 0 before */
    unsigned full_pass;   /* the retry pass that found its queue full */
};
/* the conn is going away: its parked posts complete as flushed, in order */
void ob_unpark_conn(ob_dev *d, ob_conn *c);

struct ob_peer { uint32_t ip; uint16_t port; };

struct mrc_ibv; /* ports/ibverbs/mrc_ibv.h */

struct ob_dev {
    mrc_endpoint ep;
    ob_cfg cfg;
    struct mrc_ibv *ib;   /* OB_CAR_IBV: the adapter (core_ibv.c); NULL for UDP */
    int ib_failed;        /* the adapter reported a fatal error: no more steps */
    char peer_err[200];   /* why the last new peer was refused (IBV: one peer, its MAC) */
    int fd[MRC_MAX_PORTS];
    int bell;             /* eventfd doorbell */
    /* sockets bound to the UDP source ports that EVs name, so that the EV is the datagram's real source port (as a
     * switch hashes it and a capture shows it); fd -1: that port could not be bound, the plane socket sends */
    struct { uint16_t sport; int fd; } evsock[OB_EVSOCKS];
    unsigned nevsock;
    int ev_sockets;       /* MRC_OCP_EV_SOCKETS=0 turns them off */
    struct ob_peer peer[OB_MAX_PEERS + 1]; /* handle i = peer[i], 1-based */
    unsigned npeers;
    uint32_t rkey[OB_RKEYS]; /* the application's rkeys registered with the core (mrc_endpoint_reg_mr_key) */
    unsigned nrkeys;
    unsigned long rkey_gen; /* cfg.mr_generation when the map was last valid */
    /* the ring: producers take plock among themselves; the consumer (progress thread) takes no lock */
    ob_op ring[OB_RING];
    atomic_uint head;     /* next slot to fill, published after the fill by 'ready' */
    atomic_uint tail;     /* next slot to consume */
    atomic_uchar ready[OB_RING];
    pthread_mutex_t plock;
    pthread_mutex_t ilock; /* inline mode: one caller at a time runs the loop */
    pthread_mutex_t clock_; /* call completion */
    pthread_cond_t ccond;
    atomic_int sleeping;
    atomic_int stop;
    int threaded;
    unsigned spin;        /* idle turns before the thread sleeps */
    pthread_t thr;
    /* posts the core refused with MRC_ERR_FULL (their QP's queue is full), and every later post of the same QP (its
     * order kept), in arrival order; retried first on every turn. Other QPs' posts go on past them. */
    ob_op parked[OB_RING];
    unsigned npark;
    unsigned pass;        /* retry passes: a QP found full in this pass is not tried again in it */
    uint8_t rxbuf[OB_BATCH][OB_PKT_MAX];
    uint8_t txhdr[OB_BATCH][MRC_HDR_MAX];
    mrc_wire_opts wire;
    /* test hook MRC_OCP_EVLOG=file: the data packets received per (port, EV), written at close */
    char *evlog;
    unsigned nevs_seen;
    struct { uint8_t port; uint32_t ev; uint16_t sport; uint64_t pkts; mrc_time last; } ev_seen[256];
    /* test hook MRC_OCP_CCLOG=file: the most bytes in flight and the largest window of any QP's congestion context
     * after each transmit burst, and the data bytes sent, written at close */
    char *cclog;
    uint64_t cc_max_inflight, cc_max_cwnd, cc_bursts;
    uint32_t bh_mask;     /* test hook MRC_OCP_BLACKHOLE: planes whose packets vanish from bh_start on */
    mrc_time bh_start;
    /* test hook MRC_OCP_LINK=R[/Q]: each plane a link of R Mb/s behind a queue of Q KiB (default 256), trimming on
     * overflow */
    uint32_t link_mbps;
    uint64_t link_qns;    /* the queue, in ns of serialization */
    struct ob_link { struct ob_lpkt *q; unsigned head, len; mrc_time busy; } link[MRC_MAX_PORTS];
    mrc_ev_op_entry evarr[MRC_MAX_EVS]; /* scratch of the progress thread */
    ob_conn *conns[MRC_MAX_CONNS]; /* every conn of the device (the PSU guard asks which peers are connected) */
    unsigned nconns;
    ob_stats st;
};

mrc_time ob_now(void);
void ob_rkey_seen(ob_dev *d, const uint8_t *pkt, size_t len); /* the core knows the region a RETH's rkey names */
/* 1: a PORT_STATUS_UPDATE request from a peer with no connected (RTR/RTS) QP here, to be dropped (st.psu_refused) */
int ob_epop_refuse(ob_dev *d, const uint8_t *pkt, size_t len, uint32_t peer);
/* an errno value for a refused peer handle (ob_peer_handle returned 0) */
int ob_peer_errno(const ob_dev *d);
/* core_ibv.c: the NIC carrier */
int ob_ibv_open(ob_dev *d, char *err, size_t errlen);
void ob_ibv_close(ob_dev *d);
int ob_ibv_set_peer(ob_dev *d, uint32_t ip, char *err, size_t errlen);
int ob_ibv_step(ob_dev *d, mrc_time wake_at); /* wake_at 0: do not sleep */
int ob_ibv_poll_event(ob_dev *d, mrc_event *ev);
const char *ob_ibv_error(const ob_dev *d);
int ob_errno(int e);                                          /* MRC_ERR_* -> errno value */
uint32_t ob_peer_handle(ob_dev *d, uint32_t ip, uint16_t port); /* 0: the table is full */
/* Run fn(d, arg) on the progress thread (inline mode: here) and return what it returned. */
int ob_run(ob_dev *d, int (*fn)(ob_dev *, void *), void *arg);

#endif
