/* fuzz_pair.c - two devices connected through a network the fuzzer controls, with posted Writes and Write-IMMs.
 *
 * Input: [config][plan][network actions...]. Endpoint A (side 0) and B (side 1) each have one or two QPs (QP q of
 * A <-> QP q of B), a guarded destination region and a source buffer. Each side's plan is a few writes per QP; a
 * message writes src[s][off, off + len) to the peer's region at the same offset. The peer's region starts as
 * src ^ 0x5A, so every byte tells whether it was written, and written right.
 *
 * The network is one FIFO of in-flight packets per direction. Each action byte picks: deliver (one packet, or a
 * burst of 2-5 in one mrc_endpoint_recv_burst: P37), drop, duplicate,
 * swap (reorder), delay (to the tail), corrupt (detected by ICRC, or undetected), trim (the switch cuts a
 * trimmable packet to its headers), CE-mark, link down/up on one plane (a black hole the endpoints do not see),
 * port down/up (a plane failure the endpoint is told about), an EV black hole (every packet on one EV of one plane
 * vanishes: a broken switch port behind that entropy), time jumps, flush, and holding back receives. The optional
 * extension byte (c3 bit 7) picks the congestion control - NSCC with its defaults (also the default without the
 * byte), NSCC on a CC profile with a window of a few packets and a short base RTT, a fixed window, none - and the EV
 * profile - AUTO, or a GEN profile of UDP, STEV or SRv6 format created through the control plane on both endpoints.
 * After the actions (at most FZ_STEPS) comes the calm phase: every link and port up, receives posted, packets
 * delivered in order as time advances from deadline to deadline, until every message has completed or a QP is in
 * ERR; with extension bit 4 the EV black holes stay (the path manager must route around them). The policy knobs
 * come from bits of c0 ^ c3 (every input bit was taken): bit 0 (inverted) the P28 mirror reply, bits 2-3 P29's
 * suspect hold scope (none, profiles, every EV; 2 and 3 also lower the research knob hold_min_evs to 2 and 0, else
 * no plane of this harness is large enough for a hold), bit 5 (inverted) Q25's trim_holds_rto, bits 6-7 P27's
 * late verdict scope (as P29's). (c0 ^ ext) bit 0 turns P30's last-hop trim marks off (cc_lh_mark_rtts 0; else the
 * default 32); c2 bits 6-7 the QP hint num_remote_recv_peers (P31: none, 2, 64, 2^32 - 1); (c0 ^ ext) bits 1-2
 * P32's reorder_timer (6 the default, 0 off, 1, 64), bit 3 P33's tlp_copies 1 (else the default 2), bits 4-5 P35's
 * sweep scope (hashed EVs the default, none, every EV). c0 ^ c3 bits 1 and 4 chose experiments of P25 that were
 * not adopted (docs/DESIGN.md P25); they are left unused so the other bits keep their meaning. The harness builds
 * with MRC_RESEARCH (fuzz/fuzz.mk) for the research knobs.
 *
 * Oracles:
 *   - while running: completions in posting order; a SEND_DONE with status OK means the bytes are already in the
 *     peer's memory; RECV_IMMs in the peer's Write-IMM (MSN) order with the right immediate and length, the data of
 *     that message and every earlier one already placed; CONN_ERROR only with a permitted cause (retry exhaustion;
 *     no usable path; WIMM overflow when receives were held back; anything once undetected corruption was
 *     injected); a QP with work is never silent (mrc_conn_check rule 11 in fz_invariants, and in the calm phase: no
 *     deadline and nothing to deliver while a QP in RTS has writes not complete is a violation); every emitted
 *     packet decodes and goes to the peer QP; guard bytes never change; the internal invariants hold (queues, timer
 *     heap, mrc_conn_check of every QP, congestion contexts: bytes in flight, READY list, cwnd bounds); EV_STATE
 *     events name a real EV of the QP;
 *   - at the end: with no QP error on a pair, every message completed (msgs_done) and every immediate arrived, and
 *     each region holds exactly the written bytes where some message covered it and the initial bytes elsewhere;
 *     with an error, no byte differs from both its initial value and its right value; liveness: the calm phase
 *     ends within its virtual-time budget. */
#include "fuzz_common.h"

#define FZ_STEPS 400
#define FZ_MAXQ 2
#define FZ_MSGS 6
#define FZ_SLICE 4096u
#define FZ_REGION (FZ_MAXQ * FZ_SLICE)
#define FZ_GUARD 64u
#define FZ_QLEN 32
#define FZ_PKTMAX (MRC_HDR_MAX + 512u + 4u)
#define FZ_CALM_ITERS 4000
#define FZ_CALM_NS ((mrc_time)20000000000ull) /* 20 s of virtual time */
#define FZ_INIT_XOR 0x5Au
#define FZ_GUARD_BYTE 0xE7u
/* extension byte: bits 1:0 congestion control, 3:2 EV profile, 4 black holes persist, 5 echo replies, 6 no loss
 * confirmation, 7 STEV entropy low half in the source port */
enum { FZ_CC_DEFAULT = 0, FZ_CC_NSCC_SMALL = 1, FZ_CC_FIXED = 2, FZ_CC_NONE = 3 };
#define FZ_CCPROF 5u
#define FZ_EVPROF 7u

typedef struct fz_msg {
    uint32_t off, len, imm;
    uint8_t imm_op, unsig;
    uint8_t posted;
} fz_msg;

typedef struct fz_side_q {
    mrc_conn c;
    fz_msg msg[FZ_MSGS];
    uint32_t nmsg, posted, reported;    /* requester: plan, posted, SEND_DONE accounted (incl. silent ones) */
    uint32_t imm_idx[FZ_MSGS], nimm;    /* plan indexes of this side's Write-IMMs */
    uint32_t recv_posted, recv_pulled;  /* receives for the peer's Write-IMMs */
    uint32_t imm_ok;                    /* RECV_IMM OK pulled */
    int err, err_status;
} fz_side_q;

typedef struct fz_pkt {
    uint8_t b[FZ_PKTMAX];
    uint16_t len, hdr_len;
    uint8_t port, dscp_class, ecn, flags, dscp;
    uint32_t ev;
} fz_pkt;

typedef struct fz_net {
    fz_pkt q[FZ_QLEN];
    unsigned head, n;
} fz_net;

static struct {
    mrc_config cfg[2];
    mrc_endpoint ep[2];
    fz_side_q q[2][FZ_MAXQ];
    unsigned nq;
    uint32_t mtu;
    mrc_time now;
    uint32_t rkey[2];
    uint8_t link_down[2][MRC_MAX_PORTS];
    int hold_recv[2];
    int held_ever[2];
    int lax;                  /* undetected corruption injected: content unchecked */
    uint8_t ext;              /* extension byte (0 without one) */
    unsigned nbh[2];          /* EV black holes per direction: (port, ev) pairs */
    uint8_t bh_port[2][8];
    uint32_t bh_ev[2][8];
} g;

/* Large buffers kept out of g so an input resets only what it must: the source pattern never changes, the
 * regions are copied from their initial image, and only the queue indexes of the network are cleared. */
static struct {
    int ready;
    uint8_t src[2][FZ_REGION];
    uint8_t mem0[2][FZ_GUARD + FZ_REGION + FZ_GUARD];
    uint8_t mem[2][FZ_GUARD + FZ_REGION + FZ_GUARD];
    fz_net net[2];            /* net[s]: packets from side s to side 1 - s */
    uint8_t txbuf[FZ_PKTMAX + 64];
} b;

static uint8_t *fz_dst(int side) { return b.mem[side] + FZ_GUARD; }

/* ---- setup ------------------------------------------------------------------------------------------------------- */
static void fz_connect(fz_in *in) {
    uint8_t c1 = fz_u8(in), c2 = fz_u8(in);
    mrc_conn_attr a[2];
    unsigned s, q;
    int rc;
    for (s = 0; s < 2; s++) {
        memset(&a[s], 0, sizeof a[s]);
        a[s].path_mtu = g.mtu;
        a[s].mpr_dest = (uint8_t)(1u + ((c1 >> 2) & (MRC_MAX_MPR_UNITS - 1u)));
        a[s].max_wimm = (uint16_t)(1u + ((c1 >> 3) & 3u));
        a[s].max_wimm_dest = (uint16_t)(a[s].max_wimm + ((c1 >> 5) & 1u) * 2u);
        a[s].caps = (c1 & 0x40u) ? MRC_CAP_DYNAMIC_MPR : 0u;
        a[s].sq_psn = fz_u24(in);
        a[s].mpr = (uint8_t)(1u + ((c1 >> 7) & 1u));
        a[s].retry_linear = (uint8_t)(c2 & 3u);
        a[s].retry_exp = (uint8_t)((c2 >> 2) & 3u);
        a[s].timeout = (uint8_t)(6u + ((c2 >> 4) & 3u) * 2u); /* 65 us .. 1 ms */
    }
    for (q = 0; q < g.nq; q++) {
        for (s = 0; s < 2; s++) {
            mrc_conn_attr x;
            rc = mrc_conn_init(&g.ep[s], &g.q[s][q].c, g.now);
            FZ_CHECK(rc == MRC_OK, "conn_init %d", rc);
            memset(&x, 0, sizeof x);
            x.state = MRC_QPS_INIT;
            x.ev_profile_id = ((g.ext >> 2) & 3u) ? FZ_EVPROF : 0u;
            x.cc_profile_id = (g.ext & 3u) == FZ_CC_NSCC_SMALL ? FZ_CCPROF : 0u;
            /* P31: c2 bits 6-7 pick the QP hint num_remote_recv_peers: none, 2, 64, 2^32 - 1 */
            x.hint.num_remote_recv_peers =
                (c2 >> 6) == 0 ? 0u : (c2 >> 6) == 1 ? 2u : (c2 >> 6) == 2 ? 64u : 0xFFFFFFFFu;
            rc = mrc_conn_modify(&g.q[s][q].c, &x,
                                 MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE | MRC_ATTR_HINT, g.now);
            FZ_CHECK(rc == MRC_OK, "INIT %d", rc);
        }
        for (s = 0; s < 2; s++) {
            mrc_conn_attr x = a[s];
            x.state = MRC_QPS_RTR;
            x.dest_qpn = mrc_conn_qpn(&g.q[1 - s][q].c);
            x.rq_psn = a[1 - s].sq_psn;
            x.peer = 1u - s;
            rc = mrc_conn_modify(&g.q[s][q].c, &x,
                                 MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU |
                                     MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST | MRC_ATTR_CAPS | MRC_ATTR_PEER,
                                 g.now);
            FZ_CHECK(rc == MRC_OK, "RTR %d", rc);
        }
        for (s = 0; s < 2; s++) {
            mrc_conn_attr x = a[s];
            x.state = MRC_QPS_RTS;
            rc = mrc_conn_modify(&g.q[s][q].c, &x,
                                 MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY |
                                     MRC_ATTR_TIMEOUT,
                                 g.now);
            FZ_CHECK(rc == MRC_OK, "RTS %d", rc);
        }
    }
}


static void fz_cc_profile(int s, fz_in *in) { /* NSCC with a window of a few packets, a short base RTT */
    mrc_cc_profile_attr a;
    int rc;
    uint8_t b0 = fz_u8(in), b1 = fz_u8(in);
    memset(&a, 0, sizeof a);
    a.state = MRC_PROFILE_OFFLINE;
    a.algorithm = MRC_CC_NSCC;
    a.nscc.max_cwnd = 1024u * (1u + (b0 & 15u));
    a.nscc.base_rtt = 2000u + 200u * b1;
    a.nscc.disable_qa = (b0 >> 4) & 1u;
    a.nscc.qa_gate = (uint8_t)((b0 >> 5) & 7u);
    rc = mrc_cc_profile_modify(&g.ep[s], FZ_CCPROF, &a,
                               MRC_CC_PROF_ATTR_STATE | MRC_CC_PROF_ATTR_ALGORITHM | MRC_CC_PROF_ATTR_CONFIG);
    FZ_CHECK(rc == MRC_OK, "CC profile %d", rc);
    a.state = MRC_PROFILE_ONLINE;
    rc = mrc_cc_profile_modify(&g.ep[s], FZ_CCPROF, &a, MRC_CC_PROF_ATTR_STATE);
    FZ_CHECK(rc == MRC_OK, "CC profile ONLINE %d", rc);
}

static void fz_ev_profile(int s, unsigned kind) { /* a GEN profile: 1 UDP, 2 STEV, 3 SRv6 */
    mrc_ev_fmt_attr f;
    mrc_ev_profile_attr p;
    unsigned i;
    int rc;
    memset(&f, 0, sizeof f);
    memset(&p, 0, sizeof p);
    if (kind == 1) {
        f.mode = MRC_EV_FMT_UDP;
        f.nfields = 1;
        f.width[0] = 16;
        p.field[0].width = 16;
        p.field[0].init_val = 0xC000u;
        p.field[0].mask = 0x3FFFu;
    } else if (kind == 2) {
        f.mode = MRC_EV_FMT_STEV;
        f.nfields = 2;
        f.width[0] = f.width[1] = 16;
        p.field[0].width = p.field[1].width = 16;
        p.field[0].init_val = 0x0100u;
        p.field[0].mask = 0x00FFu;
        p.field[1].init_val = 0x0200u;
        p.field[1].mask = 0x0FFFu;
        p.field[1].min_val = 1;
        p.field[1].max_val = 0xFFFu;
    } else { /* SRv6: a fixed 32-bit locator and four 16-bit uSIDs, two of them chosen per EV */
        f.mode = MRC_EV_FMT_SRV6;
        f.nfields = 5;
        f.width[0] = 32;
        p.field[0].width = 32;
        p.field[0].init_val = 0xCAFECAFEu;
        for (i = 1; i < 5; i++) {
            f.width[i] = 16;
            p.field[i].width = 16;
            p.field[i].init_val = 0xE000u + i;
            p.field[i].mask = i <= 2 ? 0x00FFu : 0u;
        }
    }
    p.nfields = f.nfields;
    f.state = MRC_PROFILE_OFFLINE;
    rc = mrc_ev_fmt_modify(&g.ep[s], 1, &f, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS);
    FZ_CHECK(rc == MRC_OK, "EV format %d", rc);
    f.state = MRC_PROFILE_ONLINE;
    FZ_CHECK(mrc_ev_fmt_modify(&g.ep[s], 1, &f, MRC_EV_FMT_ATTR_STATE) == MRC_OK, "EV format ONLINE");
    p.state = MRC_PROFILE_OFFLINE;
    p.mode = MRC_EV_MODE_GEN;
    p.fmt_id = 1;
    p.ev_count = MRC__MIN((uint32_t)g.cfg[s].auto_ev.per_port * g.cfg[s].num_ports, (uint32_t)MRC_MAX_EVS);
    p.ev_min_active = 1;
    p.event_mask = MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD;
    rc = mrc_ev_profile_modify(&g.ep[s], FZ_EVPROF, &p, 0x7Fu, g.now);
    FZ_CHECK(rc == MRC_OK, "EV profile %d", rc);
    p.state = MRC_PROFILE_ONLINE;
    rc = mrc_ev_profile_modify(&g.ep[s], FZ_EVPROF, &p, MRC_EV_PROF_ATTR_STATE, g.now);
    FZ_CHECK(rc == MRC_OK, "EV profile ONLINE %d", rc);
}

static void fz_setup(fz_in *in) {
    uint8_t c0 = fz_u8(in), c3 = fz_u8(in);
    unsigned s, q, i;
    int rc;
    g.ext = (c3 & 0x80u) ? fz_u8(in) : 0u;
    g.nq = 1u + ((c0 >> 2) & 1u);
    g.mtu = 256u << ((c3 >> 6) & 1u);
    g.now = 1000000;
    for (s = 0; s < 2; s++) {
        mrc_config *cf = &g.cfg[s];
        mrc_config_default(cf);
        /* (c0 ^ c3) bit 5: both sides seeded alike, so their GEN EV profiles draw the same EVs - a controller's
         * symmetric path list, on which control packets leave on the arrival's mirror (P28) */
        cf->seed = 0xA11CEu + (((c0 ^ c3) >> 5) & 1u ? 0u : s * 0x9E37u) + c3;
        cf->num_ports = (uint8_t)(1u + (c0 & 3u));
        cf->auto_ev.per_port = (uint16_t)(1u + (c3 & 3u));
        cf->tseth = !((c0 >> 3) & 1u);
        cf->trimmable = !((c0 >> 4) & 1u);
        cf->ack.sack_every = (uint16_t)(1u + ((c0 >> 5) & 1u));
        cf->rx.nack_oor = (c0 >> 6) & 1u;
        cf->rx.window_inclusive = (c0 >> 7) & 1u;
        cf->wire.sack_msb_first = (uint8_t)((c3 >> 2) & 1u);
        cf->wire.bth_m_bit = (c3 & 8u) ? 6 : 7;
        cf->ack.request_every = (uint16_t)((c3 >> 4) & 1u) * 2u;
        cf->cc.fixed_cwnd_bytes = (c3 & 0x20u) ? 3000u : 8000u;
        cf->recovery.tlp_min_ns = 5000u;
        if ((g.ext & 3u) == FZ_CC_FIXED) cf->cc.algo = MRC_CC_ALGO_FIXED;
        if ((g.ext & 3u) == FZ_CC_NONE) cf->cc.algo = MRC_CC_ALGO_NONE;
        cf->ev.confirm_loss = !((g.ext >> 6) & 1u);
        cf->stev_sport_high = !((g.ext >> 7) & 1u);
        cf->ev.confirm_late = fz_scope_npa[((c0 ^ c3) >> 6) & 3u]; /* P27: none, profiles, every EV (2-3) */
        /* Q19, P28: echo (ext bit 5), else the arrival's mirror (with an EV profile) or the rotation */
        cf->ev.reply = (uint8_t)(((g.ext >> 5) & 1u) ? MRC_EV_REPLY_ECHO
                                 : !((c0 ^ c3) & 1u) ? MRC_EV_REPLY_MIRROR : MRC_EV_REPLY_ROTATE);
        cf->ev.hold = fz_scope_npa[((c0 ^ c3) >> 2) & 3u]; /* P29: none, profiles, every EV (2-3) */
        if (((c0 ^ c3) >> 2) & 2u) /* ... with a minimum this harness's planes reach */
            cf->research.hold_min_evs = (((c0 ^ c3) >> 2) & 3u) == 3u ? 0u : 2u;
        cf->recovery.trim_holds_rto = !(((c0 ^ c3) >> 5) & 1u);           /* Q25: a trim-answered expiry does not back off */
        cf->research.cc_lh_mark_rtts = (uint8_t)(((c0 ^ g.ext) & 1u) ? 0u : 32u); /* P30 (every bit is taken: a mix) */
        { /* P32's reorder timer: the default 1.5 x the slack, off, a quarter of it, the largest (16 x) */
            static const uint8_t reo[4] = {6u, 0u, 1u, 64u};
            cf->research.reorder_timer = reo[((c0 ^ g.ext) >> 1) & 3u];
        }
        cf->research.tlp_copies = (uint8_t)(1u + !(((c0 ^ g.ext) >> 3) & 1u)); /* P33: 2 (the default) or 1 */
        { /* P35's sweeps: hashed EVs (the default), off, every EV */
            static const uint8_t sw[4] = {MRC_EV_SCOPE_HASHED, MRC_EV_SCOPE_NONE, MRC_EV_SCOPE_ALL, MRC_EV_SCOPE_HASHED};
            cf->ev.sweep = sw[((c0 ^ g.ext) >> 4) & 3u];
        }
        rc = mrc_endpoint_init(&g.ep[s], cf, g.now);
        FZ_CHECK(rc == MRC_OK, "endpoint_init %d", rc);
    }
    if ((g.ext & 3u) == FZ_CC_NSCC_SMALL) {
        fz_in save = *in;
        fz_cc_profile(0, in);
        *in = save;
        fz_cc_profile(1, in); /* the same profile on both sides */
    }
    if ((g.ext >> 2) & 3u)
        for (s = 0; s < 2; s++) fz_ev_profile((int)s, (g.ext >> 2) & 3u);
    if (!b.ready) {
        for (s = 0; s < 2; s++)
            for (i = 0; i < FZ_REGION; i++) b.src[s][i] = (uint8_t)((i * 131u + s * 71u + (i >> 8)) ^ (i >> 3));
        for (s = 0; s < 2; s++) {
            memset(b.mem0[s], FZ_GUARD_BYTE, sizeof b.mem0[s]);
            for (i = 0; i < FZ_REGION; i++) b.mem0[s][FZ_GUARD + i] = (uint8_t)(b.src[1 - s][i] ^ FZ_INIT_XOR);
        }
        b.ready = 1;
    }
    memcpy(b.mem, b.mem0, sizeof b.mem);
    b.net[0].head = b.net[0].n = b.net[1].head = b.net[1].n = 0;
    for (s = 0; s < 2; s++) {
        rc = mrc_endpoint_reg_mr(&g.ep[s], fz_dst((int)s), 0x40000000000ull + s * 0x10000000000ull, FZ_REGION,
                                 MRC_ACCESS_REMOTE_WRITE, (void *)0, &g.rkey[s]);
        FZ_CHECK(rc == MRC_OK, "reg_mr %d", rc);
    }
    fz_connect(in);
    /* the plan: up to FZ_MSGS writes per side and QP */
    for (s = 0; s < 2; s++) {
        for (q = 0; q < g.nq; q++) {
            fz_side_q *x = &g.q[s][q];
            x->nmsg = fz_u8(in) % (FZ_MSGS + 1u);
            for (i = 0; i < x->nmsg; i++) {
                fz_msg *m = &x->msg[i];
                uint8_t f = fz_u8(in);
                m->len = fz_u16(in) % (4u * g.mtu + 1u);
                m->off = (uint32_t)q * FZ_SLICE + fz_u16(in) % (FZ_SLICE - m->len + 1u);
                m->imm_op = f & 1u;
                m->unsig = (f >> 1) & 1u;
                m->imm = 0x1000u * s + 0x100u * q + i + ((uint32_t)f << 24);
                if (m->imm_op) x->imm_idx[x->nimm++] = i;
            }
        }
        g.hold_recv[s] = (c0 >> 1) & 1u && s == 0;
        g.held_ever[s] = g.hold_recv[s];
    }
}

/* ---- the application: posts and receives ------------------------------------------------------------------------- */
static void fz_refill(void) {
    unsigned s, q;
    for (s = 0; s < 2; s++) {
        for (q = 0; q < g.nq; q++) {
            fz_side_q *x = &g.q[s][q];
            const fz_side_q *peer = &g.q[1 - s][q];
            while (x->posted < x->nmsg && mrc_conn_state(&x->c) == MRC_QPS_RTS) {
                const fz_msg *m = &x->msg[x->posted];
                mrc_write w;
                int rc;
                memset(&w, 0, sizeof w);
                w.wr_id = x->posted;
                w.opcode = m->imm_op ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
                w.flags = m->unsig ? MRC_WR_UNSIGNALED : 0u;
                w.buf = b.src[s] + m->off;
                w.len = m->len;
                w.remote_va = 0x40000000000ull + (1u - s) * 0x10000000000ull + m->off;
                w.rkey = g.rkey[1 - s];
                w.imm = m->imm;
                rc = mrc_conn_post_write(&x->c, &w, g.now);
                if (rc == MRC_ERR_FULL) break;
                FZ_CHECK(rc == MRC_OK, "post_write %d", rc);
                x->posted++;
            }
            while (!g.hold_recv[s] && x->recv_posted < peer->nimm && mrc_conn_state(&x->c) != MRC_QPS_ERR) {
                int rc = mrc_conn_post_recv(&x->c, x->recv_posted, g.now);
                if (rc == MRC_ERR_FULL) break;
                FZ_CHECK(rc == MRC_OK, "post_recv %d", rc);
                x->recv_posted++;
            }
        }
    }
}

static int fz_msg_in_mem(int dst, const fz_msg *m) {
    return g.lax || m->len == 0 || memcmp(fz_dst(dst) + m->off, b.src[1 - dst] + m->off, m->len) == 0;
}

static int fz_err_allowed(int side, int status) {
    if (g.lax) return 1;
    if (status == MRC_ERR_RETRY_EXC) return 1;
    if (status == MRC_ERR_NOPATH) return 1; /* ports down, planes dark, EVs black-holed longer than the bound */
    /* receives held back: Write-IMMs pile up past max_wimm_dest at the holder */
    if ((status == MRC_ERR_LOCAL_INVAL && g.held_ever[side]) || (status == MRC_ERR_REMOTE_INVAL && g.held_ever[1 - side]))
        return 1;
    return 0;
}

static void fz_events(void) {
    int s;
    for (s = 0; s < 2; s++) {
        mrc_event ev;
        int rc;
        while ((rc = mrc_endpoint_poll_event(&g.ep[s], &ev)) == 1) {
            unsigned q;
            fz_side_q *x = (fz_side_q *)0, *peer;
            if (ev.type == MRC_EVT_EV_STATE) { /* a real EV of one of our QPs, a state the API defines */
                for (q = 0; q < g.nq; q++)
                    if (ev.conn == &g.q[s][q].c) x = &g.q[s][q];
                FZ_CHECK(x && ev.qpn == mrc_conn_qpn(&x->c), "EV_STATE for an unknown QP");
                FZ_CHECK(ev.state == MRC_EVS_GOOD || ev.state == MRC_EVS_ASSUMED_BAD, "EV_STATE state %#x", ev.state);
                FZ_CHECK(ev.port >= 1 && ev.port <= g.cfg[s].num_ports, "EV_STATE port %u", ev.port);
                FZ_CHECK(ev.profile_id == (((g.ext >> 2) & 3u) ? FZ_EVPROF : 0u), "EV_STATE profile %llu",
                         (unsigned long long)ev.profile_id);
                FZ_CHECK(ev.ev_index < mrc_conn_ev_count(&x->c), "EV_STATE index %u of %u", ev.ev_index,
                         mrc_conn_ev_count(&x->c));
                continue;
            }
            if (ev.type > MRC_EVT_CONN_ERROR) continue; /* endpoint operations */
            for (q = 0; q < g.nq; q++)
                if (ev.conn == &g.q[s][q].c) x = &g.q[s][q];
            FZ_CHECK(x && ev.qpn == mrc_conn_qpn(&x->c), "event for an unknown QP");
            q = (unsigned)(x - &g.q[s][0]);
            peer = &g.q[1 - s][q];
            if (ev.type == MRC_EVT_CONN_ERROR) {
                FZ_CHECK(fz_err_allowed(s, ev.status), "side %d q%u: CONN_ERROR %d (%s) is not a permitted cause", s,
                         q, ev.status, mrc_strerror(ev.status));
                FZ_CHECK(mrc_conn_state(&x->c) == MRC_QPS_ERR, "CONN_ERROR but not in ERR");
                x->err = 1;
                x->err_status = ev.status;
            } else if (ev.type == MRC_EVT_SEND_DONE) {
                const fz_msg *m;
                /* unsignaled writes that completed OK are silent: this completion implies them */
                while (x->reported < x->posted && ev.wr_id != x->reported) {
                    FZ_CHECK(x->msg[x->reported].unsig, "side %d q%u: SEND_DONE %llu skipped signaled write %u", s, q,
                             (unsigned long long)ev.wr_id, x->reported);
                    FZ_CHECK(fz_msg_in_mem(1 - s, &x->msg[x->reported]), "an implied completion's bytes are not in "
                                                                         "the peer's memory");
                    x->reported++;
                }
                FZ_CHECK(x->reported < x->posted, "side %d q%u: SEND_DONE %llu never posted or out of order", s, q,
                         (unsigned long long)ev.wr_id);
                m = &x->msg[x->reported];
                if (ev.status == MRC_OK) {
                    FZ_CHECK(ev.byte_len == m->len, "SEND_DONE byte_len %u, want %u", ev.byte_len, m->len);
                    FZ_CHECK(fz_msg_in_mem(1 - s, m), "side %d q%u: write %u completed OK but its %u bytes are not in "
                                                      "the peer's memory",
                             s, q, x->reported, m->len);
                } else {
                    FZ_CHECK(mrc_err_is_fatal(ev.status) && x->err, "SEND_DONE status %d without a CONN_ERROR",
                             ev.status);
                }
                x->reported++;
            } else if (ev.type == MRC_EVT_RECV_IMM) {
                FZ_CHECK(ev.wr_id == x->recv_pulled && x->recv_pulled < x->recv_posted, "RECV_IMM wr_id %llu, want %u",
                         (unsigned long long)ev.wr_id, x->recv_pulled);
                x->recv_pulled++;
                if (ev.status == MRC_OK) {
                    const fz_msg *m;
                    uint32_t i;
                    FZ_CHECK(x->imm_ok < peer->nimm, "more RECV_IMMs than the peer's Write-IMMs");
                    m = &peer->msg[peer->imm_idx[x->imm_ok]];
                    if (!g.lax)
                        FZ_CHECK(ev.imm == m->imm && ev.byte_len == m->len,
                                 "side %d q%u: RECV_IMM #%u imm %#x len %u, the peer's Write-IMM in MSN order has imm "
                                 "%#x len %u",
                                 s, q, x->imm_ok, ev.imm, ev.byte_len, m->imm, m->len);
                    for (i = 0; i <= peer->imm_idx[x->imm_ok]; i++)
                        FZ_CHECK(fz_msg_in_mem(s, &peer->msg[i]), "RECV_IMM #%u but message %u is not in memory",
                                 x->imm_ok, i);
                    x->imm_ok++;
                } else {
                    FZ_CHECK(ev.status == MRC_ERR_FLUSH && x->err, "RECV_IMM status %d", ev.status);
                }
            } else {
                FZ_CHECK(0, "event type %u", ev.type);
            }
        }
        FZ_CHECK(rc == 0, "poll_event %d", rc);
    }
}

FZ_NOCOV static void fz_mem_guards(void) {
    int s;
    unsigned i;
    for (s = 0; s < 2; s++)
        for (i = 0; i < FZ_GUARD; i++)
            FZ_CHECK(b.mem[s][i] == FZ_GUARD_BYTE && b.mem[s][FZ_GUARD + FZ_REGION + i] == FZ_GUARD_BYTE,
                     "side %d: guard byte %u around the region changed", s, i);
}

/* ---- the network ---------------------------------------------------------------------------------------------- */
static fz_pkt *fz_net_head(int dir) {
    fz_net *n = &b.net[dir];
    return n->n ? &n->q[n->head] : (fz_pkt *)0;
}
static void fz_net_pop(int dir) {
    fz_net *n = &b.net[dir];
    n->head = (n->head + 1u) % FZ_QLEN;
    n->n--;
}
static fz_pkt *fz_net_at(int dir, unsigned i) { return &b.net[dir].q[(b.net[dir].head + i) % FZ_QLEN]; }

static void fz_check_emitted(int from, const uint8_t *p, size_t len, const mrc_txinfo *ti) {
    mrc_pkt k;
    unsigned q;
    int ok = 0;
    FZ_CHECK(mrc_pkt_decode(p, len, &g.cfg[from].wire, &k) == MRC_OK, "side %d emitted a packet that does not decode",
             from);
    if (ti->qpn == MRC_EPOP_QPN) { /* an endpoint operation: to the peer's QP 0x2, never data */
        FZ_CHECK(k.bth.dest_qp == MRC_EPOP_QPN && !fz_op_is_data(k.bth.opcode), "side %d endpoint operation to %#x",
                 from, k.bth.dest_qp);
        return;
    }
    for (q = 0; q < g.nq; q++)
        if (ti->qpn == mrc_conn_qpn(&g.q[from][q].c) && k.bth.dest_qp == mrc_conn_qpn(&g.q[1 - from][q].c)) ok = 1;
    FZ_CHECK(ok, "side %d qpn %#x sent to qpn %#x", from, ti->qpn, k.bth.dest_qp);
    FZ_CHECK(k.hdr_len == ti->hdr_len && k.payload_len == ti->payload_len && k.bth.pad == ti->pad &&
                 k.bth.opcode == ti->opcode && ti->peer == (uint32_t)(1 - from),
             "side %d: headers disagree with txinfo", from);
    FZ_CHECK(mrc_endpoint_port_up(&g.ep[from], ti->port), "side %d sent on port %u, which is down", from, ti->port);
}

/* poll up to max packets from side s into its queue; returns how many were emitted */
static unsigned fz_pump(int s, unsigned max) {
    unsigned n = 0;
    while (n < max) {
        mrc_txinfo ti;
        fz_net *nt = &b.net[s];
        int r = mrc_endpoint_poll_tx(&g.ep[s], b.txbuf, sizeof b.txbuf, MRC_TX_COPY, &ti, g.now);
        FZ_CHECK(r >= 0, "poll_tx %d", r);
        if (r == 0) break;
        n++;
        fz_check_emitted(s, b.txbuf, (size_t)r, &ti);
        if (nt->n < FZ_QLEN && (size_t)r <= FZ_PKTMAX) { /* else: tail drop */
            fz_pkt *p = &nt->q[(nt->head + nt->n) % FZ_QLEN];
            memcpy(p->b, b.txbuf, (size_t)r);
            p->len = (uint16_t)r;
            p->hdr_len = (uint16_t)ti.hdr_len;
            p->port = ti.port;
            p->dscp = ti.dscp;
            p->dscp_class = ti.dscp_class;
            p->ecn = 0;
            p->flags = 0;
            p->ev = ti.ev;
            nt->n++;
        }
    }
    return n;
}

/* the network takes p: lost on a plane that is down, or in an EV black hole */
static int fz_lost(int dir, const fz_pkt *p) {
    unsigned i;
    if (g.link_down[dir][p->port - 1u] || !mrc_endpoint_port_up(&g.ep[1 - dir], p->port)) return 1;
    for (i = 0; i < g.nbh[dir]; i++)
        if (g.bh_port[dir][i] == p->port && g.bh_ev[dir][i] == p->ev) return 1;
    return 0;
}

static void fz_deliver(int dir, const fz_pkt *p) {
    int to = 1 - dir, rc;
    mrc_rxinfo ri;
    uint8_t *copy;
    if (fz_lost(dir, p)) return;
    memset(&ri, 0, sizeof ri);
    ri.port = p->port;
    ri.dscp = p->dscp;
    ri.ecn = p->ecn;
    ri.flags = p->flags;
    ri.ev = p->ev;
    copy = (uint8_t *)malloc(p->len ? p->len : 1u);
    if (!copy) return;
    memcpy(copy, p->b, p->len);
    rc = mrc_endpoint_recv(&g.ep[to], copy, p->len, &ri, g.now);
    free(copy);
    FZ_CHECK(rc == MRC_OK || rc == MRC_ERR_DROP, "recv returned %d", rc);
    fz_mem_guards();
}

/* P37 bursts: up to n packets from the head of direction dir to its receiver in one mrc_endpoint_recv_burst (those a
 * plane or an EV black hole takes are dropped first, as fz_deliver drops them); the same oracles per packet */
static void fz_deliver_burst(int dir, unsigned n) {
    mrc_rxpkt k[8];
    int rc[8];
    uint8_t *copy[8];
    unsigned i, m = 0;
    int to = 1 - dir, r;
    for (i = 0; i < n && i < 8u && b.net[dir].n; i++) {
        fz_pkt p = *fz_net_head(dir);
        fz_net_pop(dir);
        if (fz_lost(dir, &p)) continue;
        copy[m] = (uint8_t *)malloc(p.len ? p.len : 1u);
        if (!copy[m]) break;
        memcpy(copy[m], p.b, p.len);
        memset(&k[m], 0, sizeof k[m]);
        k[m].pkt = copy[m];
        k[m].len = p.len;
        k[m].ri.port = p.port;
        k[m].ri.dscp = p.dscp;
        k[m].ri.ecn = p.ecn;
        k[m].ri.flags = p.flags;
        k[m].ri.ev = p.ev;
        m++;
    }
    r = mrc_endpoint_recv_burst(&g.ep[to], k, m, rc, g.now);
    FZ_CHECK(r >= 0 && (unsigned)r <= m, "recv_burst returned %d for %u packets", r, m);
    for (i = 0; i < m; i++) {
        FZ_CHECK(rc[i] == MRC_OK || rc[i] == MRC_ERR_DROP, "recv_burst: packet %u returned %d", i, rc[i]);
        free(copy[i]);
    }
    fz_mem_guards();
}

static void fz_timers(void) {
    int s;
    for (s = 0; s < 2; s++) {
        if (mrc_endpoint_next_deadline(&g.ep[s]) <= g.now) {
            FZ_CHECK(mrc_endpoint_on_timeout(&g.ep[s], g.now) == MRC_OK, "on_timeout");
            FZ_CHECK(mrc_endpoint_next_deadline(&g.ep[s]) > g.now, "deadline in the past after on_timeout");
        }
    }
}

static void fz_action(fz_in *in) {
    uint8_t a = fz_u8(in), arg = (uint8_t)(a >> 4);
    int dir = arg & 1;
    fz_pkt *h = fz_net_head(dir), tmp;
    switch (a & 15u) {
    case 2: /* with argument bit 3: a burst (P37) of the next 2..5 packets of this direction in one call */
        if (h && (arg & 8u)) {
            fz_deliver_burst(dir, 2u + ((unsigned)arg >> 1 & 3u));
            break;
        }
        /* fall through */
    case 0: case 1: /* deliver */
        if (h) {
            tmp = *h;
            fz_net_pop(dir);
            fz_deliver(dir, &tmp);
        }
        break;
    case 3: /* drop */
        if (h) fz_net_pop(dir);
        break;
    case 4: /* duplicate: a copy arrives now, the original stays */
        if (h) fz_deliver(dir, h);
        break;
    case 5: /* reorder: swap the head with a later packet */
        if (h && b.net[dir].n > 1) {
            fz_pkt *o = fz_net_at(dir, 1u + (unsigned)(arg >> 1) % (b.net[dir].n - 1u));
            tmp = *h;
            *h = *o;
            *o = tmp;
        }
        break;
    case 6: /* delay: to the tail */
        if (h) {
            fz_net *n = &b.net[dir];
            tmp = *h;
            fz_net_pop(dir);
            n->q[(n->head + n->n) % FZ_QLEN] = tmp;
            n->n++;
        }
        break;
    case 7: /* corruption: detected (ICRC) or not */
        if (h) {
            uint16_t pos = fz_u16(in);
            tmp = *h;
            fz_net_pop(dir);
            if (arg & 2u) {
                tmp.b[pos % tmp.len] ^= (uint8_t)(1u << (pos >> 13));
                g.lax = 1;
            } else {
                tmp.flags |= MRC_RX_ICRC_BAD;
                tmp.b[pos % tmp.len] ^= (uint8_t)(1u << (pos >> 13));
            }
            fz_deliver(dir, &tmp);
        }
        break;
    case 8: /* trim: a switch cuts a trimmable packet to its headers (or a few bytes more) */
        if (h) {
            tmp = *h;
            fz_net_pop(dir);
            if (tmp.dscp_class == MRC_DSCP_TRIMMABLE || tmp.dscp_class == MRC_DSCP_TRIMMABLE_RETX) {
                uint16_t keep = (uint16_t)(tmp.hdr_len + ((arg & 2u) ? fz_u8(in) % 8u : 0u));
                if (keep < tmp.len) tmp.len = keep;
                tmp.dscp = g.cfg[dir].dscp[(arg & 4u) ? MRC_DSCP_TRIMMED_LASTHOP : MRC_DSCP_TRIMMED];
                if (arg & 8u) tmp.flags |= MRC_RX_TRIMMED;
            }
            fz_deliver(dir, &tmp);
        }
        break;
    case 9: /* CE mark */
        if (h) {
            tmp = *h;
            fz_net_pop(dir);
            tmp.ecn = 3;
            fz_deliver(dir, &tmp);
        }
        break;
    case 10: { /* a plane's link goes dark (or comes back) in one direction; the endpoints are not told */
        unsigned p = (unsigned)(arg >> 1) % g.cfg[0].num_ports;
        g.link_down[dir][p] = (uint8_t)!g.link_down[dir][p];
        break;
    }
    case 11: { /* a port goes down (or up) on one side and the endpoint is told */
        unsigned p = 1u + (unsigned)(arg >> 1) % g.cfg[0].num_ports;
        bool up = !mrc_endpoint_port_up(&g.ep[dir], p);
        FZ_CHECK(mrc_endpoint_port_set(&g.ep[dir], p, up, g.now) == MRC_OK, "port_set");
        break;
    }
    case 12: /* time jump */
        g.now += (mrc_time)fz_u16(in) << (arg & 7u);
        fz_timers();
        break;
    case 13: /* flush one direction in order */
        while ((h = fz_net_head(dir)) != (fz_pkt *)0) {
            tmp = *h;
            fz_net_pop(dir);
            fz_deliver(dir, &tmp);
        }
        break;
    case 14: /* hold back (or release) a side's receives */
        g.hold_recv[dir] = !g.hold_recv[dir];
        if (g.hold_recv[dir]) g.held_ever[dir] = 1;
        break;
    default:
        if (arg & 8u) { /* an EV black hole: the (port, EV) of a queued packet goes dark in this direction */
            fz_net *n = &b.net[dir];
            if (n->n && g.nbh[dir] < 8u) {
                const fz_pkt *p = fz_net_at(dir, (unsigned)(arg >> 1 & 3u) % n->n);
                unsigned i;
                for (i = 0; i < g.nbh[dir] && (g.bh_port[dir][i] != p->port || g.bh_ev[dir][i] != p->ev); i++) {
                }
                if (i == g.nbh[dir]) {
                    g.bh_port[dir][i] = p->port;
                    g.bh_ev[dir][i] = p->ev;
                    g.nbh[dir]++;
                }
            } else {
                g.nbh[dir] = 0; /* repaired */
            }
            break;
        }
        g.now += 1000u * (arg + 1u); /* a small tick */
        fz_timers();
        break;
    }
}

/* ---- completion ---------------------------------------------------------------------------------------------- */
static int fz_pair_err(unsigned q) {
    return mrc_conn_state(&g.q[0][q].c) == MRC_QPS_ERR || mrc_conn_state(&g.q[1][q].c) == MRC_QPS_ERR;
}
static int fz_all_done(void) {
    unsigned q;
    int s;
    for (q = 0; q < g.nq; q++) {
        if (fz_pair_err(q)) continue;
        for (s = 0; s < 2; s++) {
            mrc_conn_stats cs;
            mrc_conn_stats_get(&g.q[s][q].c, &cs);
            if (g.q[s][q].posted < g.q[s][q].nmsg || cs.msgs_done < g.q[s][q].nmsg) return 0;
            if (g.q[1 - s][q].imm_ok < g.q[s][q].nimm) return 0;
        }
    }
    return 1;
}

static void fz_final(void) {
    unsigned q, i, j;
    int d;
    fz_mem_guards();
    for (q = 0; q < g.nq; q++) {
        int err = fz_pair_err(q);
        for (d = 0; d < 2; d++) {
            const fz_side_q *x = &g.q[1 - d][q]; /* writes into side d */
            mrc_conn_stats cs;
            mrc_conn_stats_get(&x->c, &cs);
            if (!err && !g.lax) {
                FZ_CHECK(x->posted == x->nmsg && cs.msgs_done == x->nmsg, "q%u side %d: %llu of %u writes completed, "
                                                                          "no error",
                         q, 1 - d, (unsigned long long)cs.msgs_done, x->nmsg);
                FZ_CHECK(g.q[d][q].imm_ok == x->nimm, "q%u side %d: %u of %u immediates delivered", q, d,
                         g.q[d][q].imm_ok, x->nimm);
                for (i = 0; i < x->nmsg; i++)
                    FZ_CHECK(fz_msg_in_mem(d, &x->msg[i]), "q%u: message %u of side %d not in memory", q, i, 1 - d);
            }
            if (g.lax) continue;
            /* every byte is initial, or right and covered by some posted message */
            for (j = q * FZ_SLICE; j < (q + 1u) * FZ_SLICE; j++) {
                uint8_t v = fz_dst(d)[j], right = b.src[1 - d][j];
                int covered = 0;
                if (v == (uint8_t)(right ^ FZ_INIT_XOR)) continue;
                FZ_CHECK(v == right, "side %d byte %u is %#x: neither initial (%#x) nor written (%#x)", d, j, v,
                         right ^ FZ_INIT_XOR, right);
                for (i = 0; i < x->posted && !covered; i++)
                    covered = j >= x->msg[i].off && j < x->msg[i].off + x->msg[i].len;
                FZ_CHECK(covered, "side %d byte %u written but no posted message covers it", d, j);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in;
    unsigned step, it, calm_cap;
    mrc_time calm_start;
    int s;
    memset(&g, 0, sizeof g);
    fz_init(&in, data, size);
    fz_setup(&in);
    fz_refill();
    /* chaos: the fuzzer is the network */
    for (step = 0; step < FZ_STEPS && fz_left(&in) > 0; step++) {
        fz_pump(0, 4);
        fz_pump(1, 4);
        fz_action(&in);
        g.now += 200;
        fz_timers();
        fz_events();
        fz_refill();
        fz_invariants(&g.ep[0]);
        fz_invariants(&g.ep[1]);
    }
    /* calm: a clean network, in-order delivery, time advancing (EV black holes stay with extension bit 4) */
    memset(g.link_down, 0, sizeof g.link_down);
    if (!((g.ext >> 4) & 1u)) g.nbh[0] = g.nbh[1] = 0;
    g.hold_recv[0] = g.hold_recv[1] = 0;
    for (s = 0; s < 2; s++) {
        unsigned p;
        for (p = 1; p <= g.cfg[s].num_ports; p++)
            FZ_CHECK(mrc_endpoint_port_set(&g.ep[s], p, true, g.now) == MRC_OK, "port_set up");
    }
    calm_start = g.now;
    calm_cap = g.lax ? 300u : FZ_CALM_ITERS; /* after undetected corruption only safety is judged, not liveness */
    for (it = 0; it < calm_cap; it++) {
        unsigned moved = 0;
        fz_refill();
        fz_events();
        if (fz_all_done()) break;
        moved += fz_pump(0, 64);
        moved += fz_pump(1, 64);
        for (s = 0; s < 2; s++) {
            fz_pkt *h;
            while ((h = fz_net_head(s)) != (fz_pkt *)0) {
                fz_pkt tmp = *h;
                fz_net_pop(s);
                fz_deliver(s, &tmp);
                moved++;
            }
        }
        if (moved) {
            g.now += 1000;
        } else {
            mrc_time d0 = mrc_endpoint_next_deadline(&g.ep[0]), d1 = mrc_endpoint_next_deadline(&g.ep[1]);
            mrc_time d = MRC__MIN(d0, d1);
            if (d == MRC_TIME_NEVER) { /* nothing will ever happen again: a QP with work must not be left silent */
                unsigned q;
                for (q = 0; q < g.nq && !g.lax; q++)
                    for (s = 0; s < 2; s++) {
                        mrc_conn_stats cs;
                        mrc_conn_stats_get(&g.q[s][q].c, &cs);
                        FZ_CHECK(mrc_conn_state(&g.q[s][q].c) != MRC_QPS_RTS || cs.msgs_done >= g.q[s][q].posted,
                                 "q%u side %d: %llu of %u posted writes done, nothing to send and no deadline: silent",
                                 q, s, (unsigned long long)cs.msgs_done, g.q[s][q].posted);
                    }
                break;
            }
            if (d > g.now) g.now = d;
        }
        fz_timers();
        fz_invariants(&g.ep[0]);
        fz_invariants(&g.ep[1]);
        if (g.lax) continue;
        FZ_CHECK(g.now - calm_start < FZ_CALM_NS, "calm network for %llu ns and still not done",
                 (unsigned long long)(g.now - calm_start));
    }
    FZ_CHECK(g.lax || it < calm_cap, "calm phase ran %u iterations without finishing", it);
    fz_events();
    fz_final();
    return 0;
}
