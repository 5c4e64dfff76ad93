/* mrc_pcap.c - captures for the Wireshark dissector's test (make dissector-test, tools/wireshark/mrc.lua), and the
 * oracle it is checked against: the core's own decoder.
 *
 *   mrc_pcap fields                        the compared field names, one a line (tshark -e NAME for each)
 *   mrc_pcap gen [WIRE OPTIONS] OUT.pcap   one packet of every kind, encoded with mrc.h's encoders and framed with
 *                                          ports/common/mrc_frame.h: every opcode, every NACK reason, every AETH
 *                                          syndrome, SACKs (probe answer, EV requests, wide offsets, PSN wrap), a
 *                                          probe, both endpoint operations each way, retransmissions, pads, a cut
 *                                          (trimmed) packet, a bad ICRC, IPv6 with a STEV flow label, 802.1Q, SRv6
 *                                          with an SRH, and two IBTA RoCEv2 packets (for Wireshark's own dissector)
 *   mrc_pcap garbage CORPUS_DIR OUT.pcap   malformed input for the dissector: each fuzz/corpus/decode packet framed
 *                                          whole, cut at every length, cut by the snapshot length, mutated, plus
 *                                          random packets with MRC opcodes
 *   mrc_pcap dump [WIRE OPTIONS] IN.pcap   per frame, a tab-separated line: the frame number, the status (ok,
 *                                          trunc, malformed, frame:<mrc_frame drop reason>, snap, ib = an IBTA
 *                                          opcode) and then the value of each field of `fields` as the core's
 *                                          mrc_frame_parse + mrc_pkt_decode see it (empty when absent; a list is
 *                                          comma-separated). tools/wireshark/dissector_check.py compares it with
 *                                          tshark -T fields, field by field.
 *
 * WIRE OPTIONS (mrc_wire_opts, as the dissector's preferences): --bth-m-bit 6|7, --eeth-op-shift 2|4,
 * --sack-msb-first, and --stev-sport-low (mrc_frame_cfg.stev_sport_high = 0).
 */
#define _POSIX_C_SOURCE 200809L
#define MRC_IMPLEMENTATION
#include "../mrc.h"
#define MRC_FRAME_STATIC
#define MRC_FRAME_IMPLEMENTATION
#include "../ports/common/mrc_frame.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the compared fields (tshark names) ---------------------------------------------------------------------- */
enum {
    F_OPCODE, F_BTH_M, F_BTH_SE, F_BTH_PAD, F_BTH_TVER, F_BTH_PKEY, F_BTH_RESV8, F_BTH_DEST_QP, F_BTH_A, F_BTH_R,
    F_BTH_RTX, F_BTH_TS, F_BTH_PSN, F_BTH_REQ_ID,
    F_METH_RQMSN, F_METH_MSN, F_TSETH_TS, F_TSETH_TSR, F_TSETH_FTYPE, F_RETH_VA, F_RETH_RKEY, F_RETH_DMA_LEN,
    F_IMMDT, F_AETH_SYNDROME, F_AETH_MSN,
    F_SETH_TYPE, F_SETH_NXT, F_SETH_M, F_SETH_PR, F_SETH_ACK_OFF, F_SETH_ENTROPY, F_SETH_SPDCID, F_SETH_DPDCID,
    F_SETH_CACK, F_SETH_CC_TYPE, F_SETH_CC_FL, F_SETH_MPR, F_SETH_SACK_OFF, F_SETH_BITMAP, F_SETH_ACK_PSN,
    F_SETH_SACK_BASE, F_SETH_SACKED_COUNT, F_SETH_SACKED_PSN,
    F_CC_TS, F_CC_OOO, F_CC_R_C, F_CC_PEN, F_CC_RCVD,
    F_NETH_TYPE, F_NETH_NXT, F_NETH_REASON, F_NETH_RETRIABLE, F_NETH_VENDOR, F_NETH_ENTROPY, F_NETH_SPDCID,
    F_NETH_DPDCID, F_NETH_PSN, F_NETH_CC_TYPE, F_NETH_CC_FL, F_NETH_TS,
    F_PETH_TYPE, F_PETH_NXT, F_PETH_VENDOR, F_PETH_PROBE_ID, F_PETH_SPDCID, F_PETH_DPDCID, F_PETH_TS, F_PETH_TSR,
    F_PETH_FTYPE,
    F_ERTH_TYPE, F_ERTH_NXT, F_ERTH_OP, F_ERTH_VENDOR, F_ERTH_MASK, F_ERTH_PORT, F_ERTH_TS, F_ERTH_TSR,
    F_ERTH_FTYPE,
    F_EETH_TYPE, F_EETH_NXT, F_EETH_OP, F_EETH_TS,
    F_PAYLOAD_LEN, F_CUT, F_EV, F_ICRC_STATUS,
    F_COUNT
};
static const char *const fname[F_COUNT] = {
    "mrc.opcode", "mrc.bth.m", "mrc.bth.se", "mrc.bth.pad", "mrc.bth.tver", "mrc.bth.pkey", "mrc.bth.resv8",
    "mrc.bth.dest_qp", "mrc.bth.a", "mrc.bth.r", "mrc.bth.rtx", "mrc.bth.ts", "mrc.bth.psn", "mrc.bth.req_id",
    "mrc.meth.rqmsn", "mrc.meth.msn", "mrc.tseth.ts", "mrc.tseth.tsr", "mrc.tseth.ftype", "mrc.reth.va",
    "mrc.reth.rkey", "mrc.reth.dma_len", "mrc.immdt", "mrc.aeth.syndrome", "mrc.aeth.msn",
    "mrc.seth.type", "mrc.seth.nxt", "mrc.seth.m", "mrc.seth.pr", "mrc.seth.ack_psn_offset", "mrc.seth.entropy",
    "mrc.seth.spdcid", "mrc.seth.dpdcid", "mrc.seth.cack_psn", "mrc.seth.cc_type", "mrc.seth.cc_fl",
    "mrc.seth.mpr", "mrc.seth.sack_offset", "mrc.seth.sack_bitmap", "mrc.seth.ack_psn", "mrc.seth.sack_base",
    "mrc.seth.sacked_count", "mrc.seth.sacked_psn",
    "mrc.cc.ts", "mrc.cc.ooo_count", "mrc.cc.r_c", "mrc.cc.rcv_cwnd_pen", "mrc.cc.rcvd_bytes",
    "mrc.neth.type", "mrc.neth.nxt", "mrc.neth.reason", "mrc.neth.retriable", "mrc.neth.vendor_info",
    "mrc.neth.entropy", "mrc.neth.spdcid", "mrc.neth.dpdcid", "mrc.neth.nack_psn", "mrc.neth.cc_type",
    "mrc.neth.cc_fl", "mrc.neth.ts",
    "mrc.peth.type", "mrc.peth.nxt", "mrc.peth.vendor_info", "mrc.peth.probe_id", "mrc.peth.spdcid",
    "mrc.peth.dpdcid", "mrc.peth.ts", "mrc.peth.tsr", "mrc.peth.ftype",
    "mrc.erth.type", "mrc.erth.nxt", "mrc.erth.op", "mrc.erth.vendor_info", "mrc.erth.port_status_mask",
    "mrc.erth.port", "mrc.erth.ts", "mrc.erth.tsr", "mrc.erth.ftype",
    "mrc.eeth.type", "mrc.eeth.nxt", "mrc.eeth.op", "mrc.eeth.ts",
    "mrc.payload_len", "mrc.cut", "mrc.ev", "mrc.icrc.status"};

/* ---- options ---------------------------------------------------------------------------------------------------- */
static mrc_wire_opts wo;
static int stev_sport_high = 1;

static int parse_wire(int argc, char **argv, int i) {
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--bth-m-bit") && i + 1 < argc) wo.bth_m_bit = (uint8_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--eeth-op-shift") && i + 1 < argc) wo.eeth_op_shift = (uint8_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sack-msb-first")) wo.sack_msb_first = 1;
        else if (!strcmp(argv[i], "--stev-sport-low")) stev_sport_high = 0;
        else break;
    }
    if (!wo.bth_m_bit) wo.bth_m_bit = 7;
    if (!wo.eeth_op_shift) wo.eeth_op_shift = 2;
    return i;
}

/* ---- pcap writer ------------------------------------------------------------------------------------------------ */
typedef struct pw {
    FILE *f;
    uint64_t t;
    unsigned n;
    mrc_frame fr;
} pw;

static int pw_open(pw *w, const char *path, int ipv6) {
    uint8_t g[24];
    mrc_frame_cfg cfg;
    memset(w, 0, sizeof *w);
    w->f = fopen(path, "wb");
    if (!w->f) {
        perror(path);
        return -1;
    }
    mrc_frame_pcap_file_hdr(g, 65535);
    (void)fwrite(g, 1, sizeof g, w->f);
    mrc_frame_cfg_default(&cfg);
    cfg.ipv6 = (uint8_t)ipv6;
    (void)mrc_frame_init(&w->fr, &cfg);
    w->t = 1700000000ull * 1000000000ull;
    return 0;
}
static void pw_rec(pw *w, const uint8_t *f, size_t caplen, size_t len) {
    uint8_t rec[16];
    mrc_frame_pcap_rec_hdr(rec, w->t, (uint32_t)caplen, (uint32_t)len);
    (void)fwrite(rec, 1, 16, w->f);
    (void)fwrite(f, 1, caplen, w->f);
    w->t += 1000;
    w->n++;
}

/* How one MRC packet is framed. */
typedef struct frm {
    int ipv6, vlan, srh;      /* IPv6 (flow label = the EV's low half when ev > 0xFFFF), 802.1Q, SRv6 + SRH */
    uint32_t ev;              /* EV: the source port, or STEV sport:flow label */
    uint8_t dscp, ecn_ce;
    int bad_icrc;             /* flip the ICRC */
    size_t snap;              /* caplen = MRC offset + snap when not 0 */
    int host_from, host_to;   /* 1 or 2: MAC / IP of each end */
} frm;

static void addr_of(mrc_frame_addr *a, int host) {
    memset(a, 0, sizeof *a);
    a->mac[0] = 0x02;
    a->mac[5] = (uint8_t)host;
    a->ip[0] = 10;
    a->ip[3] = (uint8_t)host;
}

/* Frame pkt[0..len) (BTH onwards, payload and pad included) and write it. */
static void emit(pw *w, const frm *fm, const uint8_t *pkt, size_t len) {
    static uint8_t out[MRC_FRAME_MAX + 256];
    static const uint8_t path[32] = {0xfc, 0, 0, 0, 0, 0, 0, 0x11, 0, 0, 0, 0, 0, 0, 0, 1,
                                     0xfc, 0, 0, 0, 0, 0, 0, 0x22, 0, 0, 0, 0, 0, 0, 0, 2};
    mrc_frame_addr src, dst;
    mrc_txinfo ti;
    mrc_ev_hdrs evh;
    mrc_frame *f = &w->fr;
    int n;
    f->cfg.ipv6 = (uint8_t)(fm->ipv6 || fm->srh);
    f->cfg.vlan = (uint8_t)fm->vlan;
    f->cfg.vlan_tci = 0x2064;
    addr_of(&src, fm->host_from ? fm->host_from : 1);
    addr_of(&dst, fm->host_to ? fm->host_to : 2);
    if (f->cfg.ipv6) {
        src.ip[0] = dst.ip[0] = 0xfd;
        src.ip[15] = (uint8_t)(fm->host_from ? fm->host_from : 1);
        dst.ip[15] = (uint8_t)(fm->host_to ? fm->host_to : 2);
        src.ip[3] = dst.ip[3] = 0;
    }
    memset(&ti, 0, sizeof ti);
    memset(&evh, 0, sizeof evh);
    ti.port = 1;
    ti.dscp = fm->dscp;
    ti.opcode = pkt[0];
    ti.hdr_len = (uint32_t)len;
    ti.ev = fm->ev;
    ti.ev_fmt = fm->ev > 0xFFFFu ? MRC_EV_FMT_STEV : MRC_EV_FMT_UDP;
    evh.udp_sport = (uint16_t)(fm->ev > 0xFFFFu ? fm->ev >> 16 : fm->ev);
    evh.flow_label = fm->ev > 0xFFFFu ? fm->ev & 0xFFFFu : 0u;
    if (fm->srh) {
        ti.ev_fmt = MRC_EV_FMT_SRV6;
        ti.path = path;
        ti.path_len = 32;
        evh.has_srv6 = evh.has_srh = 1;
        memcpy(evh.srv6_da, path, 16);
        memcpy(evh.srh_seg, path + 16, 16);
    }
    n = mrc_frame_encode(f, &src, &dst, &ti, &evh, pkt, out, sizeof out);
    if (n <= 0) {
        fprintf(stderr, "mrc_pcap: cannot frame a %zu-byte packet (%d)\n", len, n);
        exit(1);
    }
    if (fm->ecn_ce) { /* CE: the ICRC masks the traffic class */
        uint8_t *ip = out + MRC_FRAME_ETH_LEN + (fm->vlan ? 4u : 0u);
        if (f->cfg.ipv6) ip[1] |= 0x30;
        else {
            ip[1] |= 3;
            ip[10] = ip[11] = 0;
            {
                uint32_t s = 0;
                unsigned i;
                for (i = 0; i < 20; i += 2) s += (uint32_t)ip[i] << 8 | ip[i + 1];
                while (s >> 16) s = (s & 0xFFFFu) + (s >> 16);
                ip[10] = (uint8_t)(~s >> 8);
                ip[11] = (uint8_t)~s;
            }
        }
    }
    if (fm->bad_icrc) out[n - 1] ^= 0x5A;
    if (fm->snap) {
        size_t c = (size_t)n - 4 - len + fm->snap;
        pw_rec(w, out, c < (size_t)n ? c : (size_t)n, (size_t)n);
    } else {
        pw_rec(w, out, (size_t)n, (size_t)n);
    }
}

/* ---- packet builders (the core's encoders) ------------------------------------------------------------------------ */
typedef struct pk {
    uint8_t b[8192];
    size_t n;
} pk;

static void chk(int r, const char *what) {
    if (r < 0) {
        fprintf(stderr, "mrc_pcap: %s encode failed (%d)\n", what, r);
        exit(1);
    }
}
static void bth(pk *p, const mrc_bth *h) {
    p->n = 0;
    chk(mrc_bth_encode(p->b, sizeof p->b, &wo, h), "BTH");
    p->n = MRC_BTH_LEN;
}
static mrc_bth bth_of(unsigned op, uint32_t qp, uint32_t psn) {
    mrc_bth h;
    memset(&h, 0, sizeof h);
    h.opcode = (uint8_t)op;
    h.pkey = 0xFFFF;
    h.dest_qp = qp;
    h.psn = psn;
    return h;
}

/* a data packet: BTH METH [TSETH] RETH [ImmDt] payload pad */
static void data_pkt(pk *p, mrc_bth h, uint16_t msn, uint64_t va, uint32_t dma_len, uint32_t imm, size_t plen,
                     int cut) {
    mrc_meth m = {(uint16_t)(msn - 1u), msn};
    mrc_tseth t = {(uint16_t)(0x1234u + msn), 0, 1};
    mrc_reth r;
    size_t i;
    r.va = va;
    r.rkey = 0xC0FFEE01u;
    r.dma_len = dma_len;
    h.pad = (uint8_t)((4u - plen % 4u) % 4u);
    bth(p, &h);
    chk(mrc_meth_encode(p->b + p->n, sizeof p->b - p->n, &m), "METH");
    p->n += MRC_METH_LEN;
    if (h.ts) {
        chk(mrc_tseth_encode(p->b + p->n, sizeof p->b - p->n, &t), "TSETH");
        p->n += MRC_TSETH_LEN;
    }
    chk(mrc_reth_encode(p->b + p->n, sizeof p->b - p->n, &r), "RETH");
    p->n += MRC_RETH_LEN;
    if (mrc_opcode_hdrs(h.opcode) & MRC_HDR_IMMDT) {
        chk(mrc_immdt_encode(p->b + p->n, sizeof p->b - p->n, imm), "ImmDt");
        p->n += MRC_IMMDT_LEN;
    }
    if (cut) return; /* trimmed: the headers only, the pad count kept */
    for (i = 0; i < plen + h.pad; i++) p->b[p->n + i] = i < plen ? (uint8_t)(i * 7u + msn) : 0u;
    p->n += plen + h.pad;
}

static void ack_pkt(pk *p, uint32_t qp, uint32_t psn, uint8_t syn, uint32_t msn) {
    mrc_bth h = bth_of(MRC_OP_ACK, qp, psn);
    mrc_aeth a = {syn, msn};
    bth(p, &h);
    chk(mrc_aeth_encode(p->b + p->n, sizeof p->b - p->n, &a), "AETH");
    p->n += MRC_AETH_LEN;
}

static void sack_pkt(pk *p, uint32_t qp, const mrc_seth *s, const mrc_cc_state *c) {
    mrc_bth h = bth_of(MRC_OP_SACK, qp, s->cack_psn);
    bth(p, &h);
    chk(mrc_seth_encode(p->b + p->n, sizeof p->b - p->n, &wo, s), "SETH");
    p->n += MRC_SETH_LEN;
    chk(mrc_cc_state_encode(p->b + p->n, sizeof p->b - p->n, c), "CC_STATE");
    p->n += MRC_CCSTATE_LEN;
}

static void nack_pkt(pk *p, uint32_t qp, uint32_t psn, uint8_t reason, uint32_t entropy) {
    mrc_bth h = bth_of(MRC_OP_NACK, qp, psn);
    mrc_neth n;
    memset(&n, 0, sizeof n);
    n.nack_reason = reason;
    n.entropy = entropy;
    n.spdcid = 0x0200;
    n.dpdcid = (uint16_t)qp;
    n.nack_psn = psn;
    n.tx_timestamp = (uint16_t)(0x0100u + reason);
    bth(p, &h);
    chk(mrc_neth_encode(p->b + p->n, sizeof p->b - p->n, &n), "NETH");
    p->n += MRC_NETH_LEN;
}

static void probe_pkt(pk *p, uint32_t qp, uint32_t psn, uint16_t id) {
    mrc_bth h = bth_of(MRC_OP_PROBE_REQ, qp, psn);
    mrc_peth e;
    memset(&e, 0, sizeof e);
    e.probe_id = id;
    e.spdcid = 0x0100;
    e.dpdcid = (uint16_t)qp;
    e.tx_timestamp = 0xBEEF;
    e.ftype = 1;
    bth(p, &h);
    chk(mrc_peth_encode(p->b + p->n, sizeof p->b - p->n, &e), "PETH");
    p->n += MRC_PETH_LEN;
}

static void epreq_pkt(pk *p, uint16_t req_id, uint8_t op, uint32_t mask, uint16_t ts) {
    mrc_bth h = bth_of(MRC_OP_EP_REQ, MRC_EPOP_QPN, req_id);
    mrc_erth e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.port_status_mask = mask;
    e.tx_timestamp = ts;
    e.ftype = 1;
    bth(p, &h);
    chk(mrc_erth_encode(p->b + p->n, sizeof p->b - p->n, &e), "ERTH");
    p->n += MRC_ERTH_LEN;
}

static void eprsp_pkt(pk *p, uint16_t req_id, uint8_t op, uint16_t ts) {
    mrc_bth h = bth_of(MRC_OP_EP_RSP, MRC_EPOP_QPN, req_id);
    mrc_eeth e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.tx_timestamp = ts;
    bth(p, &h);
    chk(mrc_eeth_encode(p->b + p->n, sizeof p->b - p->n, &wo, &e), "EETH");
    p->n += MRC_EETH_LEN;
}

/* ---- gen: one packet of every kind --------------------------------------------------------------------------------- */
static int cmd_gen(const char *out) {
    pw w;
    pk p;
    frm fm, rv;
    mrc_bth h;
    mrc_seth s;
    mrc_cc_state c;
    static const uint8_t reasons[] = {MRC_NACK_TRIMMED, MRC_NACK_TRIMMED_LASTHOP, MRC_NACK_NO_BITMAP,
                                      MRC_NACK_NO_PKT_BUFFER, MRC_NACK_NO_RESOURCE, MRC_NACK_PSN_OOR_WINDOW,
                                      MRC_NACK_UNEXP_EVENT};
    static const uint8_t syns[] = {MRC_AETH_ACK, MRC_AETH_NAK_PSN_SEQ, MRC_AETH_NAK_INV_REQ, MRC_AETH_NAK_REM_ACCESS,
                                   MRC_AETH_NAK_REM_OP};
    unsigned i;
    const uint32_t qp_r = 0x000100, qp_q = 0x000200; /* responder (host 2) and requester (host 1) QPs */
    if (pw_open(&w, out, 0)) return 1;
    memset(&fm, 0, sizeof fm);
    fm.host_from = 1;
    fm.host_to = 2;
    fm.ev = 49213;
    fm.dscp = 10;
    rv = fm;
    rv.host_from = 2;
    rv.host_to = 1;
    rv.dscp = 48;
    rv.ev = 50001;

    /* a 4-packet message: FIRST, MIDDLE, MIDDLE again (retransmitted), LAST (a, pad 3) */
    h = bth_of(MRC_OP_WRITE_FIRST, qp_r, 0x000120);
    h.ts = 1;
    data_pkt(&p, h, 1, 0x7f0000001000ull, 1021, 0, 256, 0);
    emit(&w, &fm, p.b, p.n);
    h = bth_of(MRC_OP_WRITE_MIDDLE, qp_r, 0x000121);
    h.ts = 1;
    data_pkt(&p, h, 1, 0x7f0000001100ull, 1021, 0, 256, 0);
    fm.ev = 49214;
    emit(&w, &fm, p.b, p.n);
    h = bth_of(MRC_OP_WRITE_MIDDLE, qp_r, 0x000122);
    h.ts = 1;
    data_pkt(&p, h, 1, 0x7f0000001200ull, 1021, 0, 256, 0);
    fm.ev = 49215;
    emit(&w, &fm, p.b, p.n);
    h.rtx = 1; /* its retransmission, on another EV, with the retransmission DSCP */
    fm.ev = 49216;
    fm.dscp = 14;
    emit(&w, &fm, p.b, p.n);
    fm.dscp = 10;
    h = bth_of(MRC_OP_WRITE_LAST, qp_r, 0x000123);
    h.ts = 1;
    h.a = 1;
    data_pkt(&p, h, 1, 0x7f0000001300ull, 1021, 0, 253, 0);
    emit(&w, &fm, p.b, p.n);
    /* the responder's SACK: cack 0x120, bitmap 0x122..0x123, 17 bits in all further on */
    memset(&s, 0, sizeof s);
    memset(&c, 0, sizeof c);
    s.ack_psn_offset = 3;
    s.entropy = 49216;
    s.spdcid = (uint16_t)qp_r;
    s.dpdcid = (uint16_t)qp_q;
    s.cack_psn = 0x000120;
    s.sack_offset = 1;
    s.sack_bitmap = 0x0007F0F0000000F6ull; /* 17 bits */
    c.tx_timestamp = 0x1235;
    c.ooo_count = 3;
    c.rcvd_bytes = 4;
    sack_pkt(&p, qp_q, &s, &c);
    emit(&w, &rv, p.b, p.n);
    /* a SACK answering a probe (pr), SKIP_ONCE, the dynamic MPR, the receiver penalty with r_c */
    s.pr = 1;
    s.m = MRC_M_SKIP_ONCE;
    s.ack_psn_offset = 0;
    s.mpr = 3;
    s.sack_bitmap = 0;
    c.r_c = 1;
    c.rcv_cwnd_pen = 77;
    c.ooo_count = 0x7FFF;
    c.rcvd_bytes = 0xABCDEF;
    sack_pkt(&p, qp_q, &s, &c);
    emit(&w, &rv, p.b, p.n);
    /* ALWAYS_SKIP, a negative ack offset, a bitmap slice far past cack, every bit set */
    s.pr = 0;
    s.m = MRC_M_ALWAYS_SKIP;
    s.ack_psn_offset = -5;
    s.sack_offset = 300;
    s.sack_bitmap = ~(uint64_t)0;
    s.cack_psn = 0x000200;
    sack_pkt(&p, qp_q, &s, &c);
    emit(&w, &rv, p.b, p.n);
    /* PSN wrap: cack near 2^24, the bitmap crosses 0 */
    s.m = MRC_M_NONE;
    s.cack_psn = 0xFFFFF0;
    s.ack_psn_offset = 20;
    s.sack_offset = 1;
    s.sack_bitmap = 0x8000000000F0000Full;
    c.r_c = 0;
    c.rcv_cwnd_pen = 0;
    sack_pkt(&p, qp_q, &s, &c);
    emit(&w, &rv, p.b, p.n);
    /* Write-with-Immediate: LAST_IMM (se, pad 2), ONLY_IMM (se, pad 3) over IPv6 with a STEV flow label */
    h = bth_of(MRC_OP_WRITE_LAST_IMM, qp_r, 0x000124);
    h.ts = 1;
    h.a = 1;
    h.se = 1;
    data_pkt(&p, h, 2, 0x7f0000002000ull, 10, 0xDEADBEEFu, 10, 0);
    emit(&w, &fm, p.b, p.n);
    {
        frm f6 = fm;
        f6.ipv6 = 1;
        f6.ev = 0xC0DE1234u;
        h = bth_of(MRC_OP_WRITE_ONLY_IMM, qp_r, 0x000125);
        h.ts = 1;
        h.a = 1;
        h.se = 1;
        data_pkt(&p, h, 3, 0x7f0000003000ull, 1, 0x01020304u, 1, 0);
        emit(&w, &f6, p.b, p.n);
    }
    /* WRITE_ONLY without TSETH (ts 0), zero length; then one with m, r, tver and resv8 set (ignored on receive) */
    h = bth_of(MRC_OP_WRITE_ONLY, qp_r, 0x000126);
    h.a = 1;
    data_pkt(&p, h, 4, 0, 0, 0, 0, 0);
    emit(&w, &fm, p.b, p.n);
    h = bth_of(MRC_OP_WRITE_ONLY, qp_r, 0x000127);
    h.a = 1;
    h.ts = 1;
    h.m = 1;
    h.r = 1;
    h.tver = 5;
    h.resv8 = 0x42;
    h.pkey = 0x8001;
    data_pkt(&p, h, 5, 0x1000, 64, 0, 64, 0);
    emit(&w, &fm, p.b, p.n);
    /* 802.1Q-tagged WRITE_FIRST with a CE mark */
    {
        frm fv = fm;
        fv.vlan = 1;
        fv.ecn_ce = 1;
        h = bth_of(MRC_OP_WRITE_FIRST, qp_r, 0x000128);
        h.ts = 1;
        data_pkt(&p, h, 6, 0x2000, 8192, 0, 512, 0);
        emit(&w, &fv, p.b, p.n);
    }
    /* a WRITE_MIDDLE cut inside its pad by a trimming switch (DSCP TRIMMED), and its NACK TRIMMED */
    {
        frm ft = fm;
        ft.dscp = 3;
        h = bth_of(MRC_OP_WRITE_MIDDLE, qp_r, 0x000129);
        h.ts = 1;
        data_pkt(&p, h, 6, 0x2200, 8192, 0, 510, 1);
        emit(&w, &ft, p.b, p.n);
    }
    /* SRv6 with an SRH: WRITE_LAST */
    {
        frm fs = fm;
        fs.srh = 1;
        fs.ev = 0x51230007u;
        h = bth_of(MRC_OP_WRITE_LAST, qp_r, 0x00012a);
        h.ts = 1;
        h.a = 1;
        data_pkt(&p, h, 6, 0x2400, 8192, 0, 100, 0);
        emit(&w, &fs, p.b, p.n);
    }
    /* a bad ICRC */
    {
        frm fb = fm;
        fb.bad_icrc = 1;
        h = bth_of(MRC_OP_WRITE_ONLY, qp_r, 0x00012b);
        h.ts = 1;
        h.a = 1;
        data_pkt(&p, h, 7, 0x3000, 32, 0, 32, 0);
        emit(&w, &fb, p.b, p.n);
    }
    /* every NACK reason */
    for (i = 0; i < sizeof reasons; i++) {
        nack_pkt(&p, qp_q, 0x000129u + i, reasons[i], 49215u + i);
        emit(&w, &rv, p.b, p.n);
    }
    /* a tail-loss probe and its answer came above (pr); a transport ACK and every NAK syndrome */
    probe_pkt(&p, qp_r, 0x00012c, 7);
    emit(&w, &fm, p.b, p.n);
    for (i = 0; i < sizeof syns; i++) {
        ack_pkt(&p, qp_q, 0x000123u + i, syns[i], 1u + i);
        emit(&w, &rv, p.b, p.n);
    }
    /* endpoint operations: PORT_STATUS_UPDATE (ports 1, 2, 4) and EV_PROBE requests, and their responses */
    epreq_pkt(&p, 0x1001, MRC_EPOP_PORT_STATUS_UPDATE, 0x0000000Bu, 0x4242);
    emit(&w, &fm, p.b, p.n);
    eprsp_pkt(&p, 0x1001, MRC_EPOP_PORT_STATUS_UPDATE, 0x4242);
    emit(&w, &rv, p.b, p.n);
    epreq_pkt(&p, 0x1002, MRC_EPOP_EV_PROBE, 0x000000FFu, 0x4343);
    emit(&w, &fm, p.b, p.n);
    eprsp_pkt(&p, 0x1002, MRC_EPOP_EV_PROBE, 0x4343);
    emit(&w, &rv, p.b, p.n);
    /* the EV_PROBE response with op at the other position (the decoder accepts both, Q16b) */
    eprsp_pkt(&p, 0x1003, MRC_EPOP_EV_PROBE, 0x4444);
    p.b[MRC_BTH_LEN + 1] = (uint8_t)(1u << (wo.eeth_op_shift == 4 ? 2u : 4u));
    emit(&w, &rv, p.b, p.n);
    /* two IBTA RoCEv2 packets on the same port: RC SEND_ONLY (0x04) and RC RDMA_WRITE_ONLY (0x0A) */
    {
        static uint8_t send_only[12 + 64] = {0x04, 0x00, 0xff, 0xff, 0, 0, 0x01, 0x00, 0x80, 0, 0, 0x10};
        static const uint8_t write_only[12 + 16 + 4] = {0x0a, 0x00, 0xff, 0xff, 0, 0, 0x01, 0x00, 0x80, 0, 0, 0x11,
                                                       0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0x12, 0x34, 0, 0, 0, 4,
                                                       1, 2, 3, 4};
        for (i = 12; i < sizeof send_only; i++) send_only[i] = (uint8_t)(0xA0u + i);
        emit(&w, &fm, send_only, sizeof send_only);
        emit(&w, &fm, write_only, sizeof write_only);
    }
    fclose(w.f);
    fprintf(stderr, "mrc_pcap gen: %u packets in %s\n", w.n, out);
    return 0;
}

/* ---- garbage: malformed and truncated packets ----------------------------------------------------------------------- */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static int cmd_garbage(const char *dir, const char *out) {
    pw w;
    frm fm;
    DIR *d = opendir(dir);
    struct dirent *e;
    uint8_t b[4096];
    unsigned files = 0, i, k;
    if (!d) {
        perror(dir);
        return 1;
    }
    if (pw_open(&w, out, 0)) return 1;
    memset(&fm, 0, sizeof fm);
    fm.ev = 40000;
    fm.dscp = 10;
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        FILE *f;
        size_t n;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        f = fopen(path, "rb");
        if (!f) continue;
        n = fread(b, 1, sizeof b, f);
        fclose(f);
        if (n < 2) continue;
        files++;
        /* the corpus input is [mode byte][packet] (fuzz/fuzz_decode.c): the packet whole, then cut at every length */
        for (k = 0; k <= n - 1; k++) emit(&w, &fm, b + 1, n - 1 - k);
        /* cut by the snapshot length at a few places */
        for (k = 1; k < n - 1 && k < 64; k += 7) {
            frm fs = fm;
            fs.snap = k;
            emit(&w, &fs, b + 1, n - 1);
        }
        /* mutations: bytes flipped, the pad count maximal, the opcode swapped for every MRC opcode */
        for (k = 0; k < 16; k++) {
            uint8_t m[4096];
            unsigned j;
            memcpy(m, b + 1, n - 1);
            for (j = 0; j < 1u + rnd() % 4u; j++) m[rnd() % (n - 1)] ^= (uint8_t)(1u + rnd() % 255u);
            if (k == 0) m[1] |= 0x30;
            if (k >= 1 && k < 13) m[0] = (uint8_t)(k == 12 ? 0xDA : 0xC5u + k);
            emit(&w, &fm, m, n - 1);
        }
    }
    closedir(d);
    /* random packets with an MRC-range opcode */
    for (i = 0; i < 400; i++) {
        size_t n = rnd() % 90u;
        for (k = 0; k < n; k++) b[k] = (uint8_t)rnd();
        if (n) b[0] = (uint8_t)(0xC0u + rnd() % 32u);
        if (n > 7 && (i & 1)) { /* half with a plausible BTH */
            b[1] &= 0x3F;
            b[5] = b[6] = 0;
            b[7] = (uint8_t)(b[0] == MRC_OP_EP_REQ || b[0] == MRC_OP_EP_RSP ? 2 : 1);
        }
        emit(&w, &fm, b, n);
    }
    fclose(w.f);
    fprintf(stderr, "mrc_pcap garbage: %u packets in %s from %u corpus files\n", w.n, out, files);
    return 0;
}

/* ---- dump: the core's view of each frame ---------------------------------------------------------------------------- */
typedef struct row {
    char v[F_COUNT][1024];
} row;

static void setu(row *r, int f, uint64_t v) { snprintf(r->v[f], sizeof r->v[f], "%llu", (unsigned long long)v); }
static void seti(row *r, int f, int64_t v) { snprintf(r->v[f], sizeof r->v[f], "%lld", (long long)v); }
static void addu(row *r, int f, uint64_t v) {
    size_t l = strlen(r->v[f]);
    snprintf(r->v[f] + l, sizeof r->v[f] - l, "%s%llu", l ? "," : "", (unsigned long long)v);
}

static void fill(row *r, const mrc_pkt *k, const mrc_frame_rx *rx, int rc) {
    const mrc_bth *b = &k->bth;
    unsigned i;
    setu(r, F_OPCODE, b->opcode);
    setu(r, F_BTH_M, b->m);
    setu(r, F_BTH_SE, b->se);
    setu(r, F_BTH_PAD, b->pad);
    setu(r, F_BTH_TVER, b->tver);
    setu(r, F_BTH_PKEY, b->pkey);
    setu(r, F_BTH_RESV8, b->resv8);
    setu(r, F_BTH_DEST_QP, b->dest_qp);
    setu(r, F_BTH_A, b->a);
    setu(r, F_BTH_R, b->r);
    setu(r, F_BTH_RTX, b->rtx);
    setu(r, F_BTH_TS, b->ts);
    setu(r, F_BTH_PSN, b->psn);
    if (b->opcode == MRC_OP_EP_REQ || b->opcode == MRC_OP_EP_RSP) setu(r, F_BTH_REQ_ID, b->psn & 0xFFFFu);
    setu(r, F_EV, rx->ev);
    setu(r, F_ICRC_STATUS, rx->icrc_bad ? 2u : 1u);
    if (rc != MRC_OK) return;
    if (k->hdrs & MRC_HDR_METH) {
        setu(r, F_METH_RQMSN, k->meth.rqmsn);
        setu(r, F_METH_MSN, k->meth.msn);
    }
    if (k->hdrs & MRC_HDR_TSETH) {
        setu(r, F_TSETH_TS, k->tseth.tx_timestamp);
        setu(r, F_TSETH_TSR, k->tseth.tsr);
        setu(r, F_TSETH_FTYPE, k->tseth.ftype);
    }
    if (k->hdrs & MRC_HDR_RETH) {
        setu(r, F_RETH_VA, k->reth.va);
        setu(r, F_RETH_RKEY, k->reth.rkey);
        setu(r, F_RETH_DMA_LEN, k->reth.dma_len);
    }
    if (k->hdrs & MRC_HDR_IMMDT) setu(r, F_IMMDT, k->imm);
    if (k->hdrs & MRC_HDR_AETH) {
        setu(r, F_AETH_SYNDROME, k->aeth.syndrome);
        setu(r, F_AETH_MSN, k->aeth.msn);
    }
    if (k->hdrs & MRC_HDR_SETH) {
        const mrc_seth *s = &k->seth;
        uint32_t base = mrc_psn_add(s->cack_psn, s->sack_offset);
        unsigned cnt = 0;
        setu(r, F_SETH_TYPE, s->type);
        setu(r, F_SETH_NXT, s->nxt);
        setu(r, F_SETH_M, s->m);
        setu(r, F_SETH_PR, s->pr);
        seti(r, F_SETH_ACK_OFF, s->ack_psn_offset);
        setu(r, F_SETH_ENTROPY, s->entropy);
        setu(r, F_SETH_SPDCID, s->spdcid);
        setu(r, F_SETH_DPDCID, s->dpdcid);
        setu(r, F_SETH_CACK, s->cack_psn);
        setu(r, F_SETH_CC_TYPE, s->cc_type);
        setu(r, F_SETH_CC_FL, s->cc_fl);
        setu(r, F_SETH_MPR, s->mpr);
        seti(r, F_SETH_SACK_OFF, s->sack_offset);
        /* the wire word, as tshark shows the field: bit-reversed back with sack_msb_first */
        if (wo.sack_msb_first) {
            uint64_t v = s->sack_bitmap, rv = 0;
            for (i = 0; i < 64; i++, v >>= 1) rv = rv << 1 | (v & 1u);
            setu(r, F_SETH_BITMAP, rv);
        } else {
            setu(r, F_SETH_BITMAP, s->sack_bitmap);
        }
        setu(r, F_SETH_ACK_PSN, mrc_psn_add(s->cack_psn, s->ack_psn_offset));
        setu(r, F_SETH_SACK_BASE, base);
        for (i = 0; i < 64; i++)
            if ((s->sack_bitmap >> i) & 1u) {
                addu(r, F_SETH_SACKED_PSN, mrc_psn_add(base, (int32_t)i));
                cnt++;
            }
        setu(r, F_SETH_SACKED_COUNT, cnt);
    }
    if (k->hdrs & MRC_HDR_CCSTATE) {
        setu(r, F_CC_TS, k->cc.tx_timestamp);
        setu(r, F_CC_OOO, k->cc.ooo_count);
        setu(r, F_CC_R_C, k->cc.r_c);
        setu(r, F_CC_PEN, k->cc.rcv_cwnd_pen);
        setu(r, F_CC_RCVD, k->cc.rcvd_bytes);
    }
    if (k->hdrs & MRC_HDR_NETH) {
        const mrc_neth *n = &k->neth;
        setu(r, F_NETH_TYPE, n->type);
        setu(r, F_NETH_NXT, n->nxt);
        setu(r, F_NETH_REASON, n->nack_reason);
        setu(r, F_NETH_RETRIABLE, mrc_nack_is_retriable(n->nack_reason) ? 1u : 0u);
        setu(r, F_NETH_VENDOR, n->vendor_info);
        setu(r, F_NETH_ENTROPY, n->entropy);
        setu(r, F_NETH_SPDCID, n->spdcid);
        setu(r, F_NETH_DPDCID, n->dpdcid);
        setu(r, F_NETH_PSN, n->nack_psn);
        setu(r, F_NETH_CC_TYPE, n->cc_type);
        setu(r, F_NETH_CC_FL, n->cc_fl);
        setu(r, F_NETH_TS, n->tx_timestamp);
    }
    if (k->hdrs & MRC_HDR_PETH) {
        const mrc_peth *e = &k->peth;
        setu(r, F_PETH_TYPE, e->type);
        setu(r, F_PETH_NXT, e->nxt);
        setu(r, F_PETH_VENDOR, e->vendor_info);
        setu(r, F_PETH_PROBE_ID, e->probe_id);
        setu(r, F_PETH_SPDCID, e->spdcid);
        setu(r, F_PETH_DPDCID, e->dpdcid);
        setu(r, F_PETH_TS, e->tx_timestamp);
        setu(r, F_PETH_TSR, e->tsr);
        setu(r, F_PETH_FTYPE, e->ftype);
    }
    if (k->hdrs & MRC_HDR_ERTH) {
        const mrc_erth *e = &k->erth;
        setu(r, F_ERTH_TYPE, e->type);
        setu(r, F_ERTH_NXT, e->nxt);
        setu(r, F_ERTH_OP, e->op);
        setu(r, F_ERTH_VENDOR, e->vendor_info);
        setu(r, F_ERTH_MASK, e->port_status_mask);
        for (i = 0; i < 32; i++)
            if ((e->port_status_mask >> i) & 1u) addu(r, F_ERTH_PORT, i + 1u);
        setu(r, F_ERTH_TS, e->tx_timestamp);
        setu(r, F_ERTH_TSR, e->tsr);
        setu(r, F_ERTH_FTYPE, e->ftype);
    }
    if (k->hdrs & MRC_HDR_EETH) {
        setu(r, F_EETH_TYPE, k->eeth.type);
        setu(r, F_EETH_NXT, k->eeth.nxt);
        setu(r, F_EETH_OP, k->eeth.op);
        setu(r, F_EETH_TS, k->eeth.tx_timestamp);
    }
    if (k->flags & MRC_PKT_CUT) setu(r, F_CUT, 1);
    else setu(r, F_PAYLOAD_LEN, k->payload_len);
}

static int cmd_dump(const char *in) {
    FILE *f = fopen(in, "rb");
    uint8_t g[24], rec[16];
    static uint8_t buf[262144];
    static row r;
    mrc_frame fr;
    mrc_frame_cfg cfg;
    unsigned num = 0;
    if (!f) {
        perror(in);
        return 1;
    }
    if (fread(g, 1, 24, f) != 24) {
        fprintf(stderr, "mrc_pcap: %s: no pcap header\n", in);
        return 1;
    }
    if (!((g[0] == 0x4D && g[1] == 0x3C && g[2] == 0xB2 && g[3] == 0xA1) ||
          (g[0] == 0xD4 && g[1] == 0xC3 && g[2] == 0xB2 && g[3] == 0xA1)) || g[20] != 1) {
        fprintf(stderr, "mrc_pcap: %s: not a little-endian Ethernet pcap\n", in);
        return 1;
    }
    mrc_frame_cfg_default(&cfg);
    cfg.check_icrc = 0;
    cfg.check_local = 0;
    cfg.stev_sport_high = (uint8_t)stev_sport_high;
    (void)mrc_frame_init(&fr, &cfg);
    while (fread(rec, 1, 16, f) == 16) {
        uint32_t caplen = (uint32_t)rec[8] | (uint32_t)rec[9] << 8 | (uint32_t)rec[10] << 16 | (uint32_t)rec[11] << 24;
        uint32_t len = (uint32_t)rec[12] | (uint32_t)rec[13] << 8 | (uint32_t)rec[14] << 16 | (uint32_t)rec[15] << 24;
        mrc_frame_rx rx;
        mrc_pkt k;
        const char *st;
        int rc, dr;
        unsigned i;
        char stbuf[64];
        if (caplen > sizeof buf || fread(buf, 1, caplen, f) != caplen) {
            fprintf(stderr, "mrc_pcap: %s: truncated record\n", in);
            return 1;
        }
        num++;
        memset(&r, 0, sizeof r);
        rc = MRC_OK;
        if (caplen < len) {
            st = "snap";
        } else if ((dr = mrc_frame_parse(&fr, NULL, buf, caplen, &rx)) != MRC_FRAME_OK) {
            snprintf(stbuf, sizeof stbuf, "frame:%s", mrc_frame_drop_name(dr));
            st = stbuf;
        } else if (buf[rx.mrc_off] < 0xC0 || buf[rx.mrc_off] > 0xDF) {
            st = "ib";
        } else {
            rc = mrc_pkt_decode(buf + rx.mrc_off, rx.mrc_len, &wo, &k);
            st = rc == MRC_OK ? "ok" : rc == MRC_ERR_TRUNC ? "trunc" : "malformed";
            /* the BTH is there whenever the frame is: its fields are compared even when a later header is not */
            if (rc != MRC_OK) {
                memset(&k, 0, sizeof k);
                (void)mrc_bth_decode(buf + rx.mrc_off, rx.mrc_len, &wo, &k.bth);
            }
            fill(&r, &k, &rx, rc);
        }
        printf("%u\t%s", num, st);
        for (i = 0; i < F_COUNT; i++) printf("\t%s", r.v[i]);
        printf("\n");
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv) {
    int i;
    if (argc >= 2 && !strcmp(argv[1], "fields")) {
        for (i = 0; i < F_COUNT; i++) printf("%s\n", fname[i]);
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "gen")) {
        i = parse_wire(argc, argv, 2);
        if (i == argc - 1) return cmd_gen(argv[i]);
    } else if (argc == 4 && !strcmp(argv[1], "garbage")) {
        (void)parse_wire(argc, argv, 4);
        return cmd_garbage(argv[2], argv[3]);
    } else if (argc >= 3 && !strcmp(argv[1], "dump")) {
        i = parse_wire(argc, argv, 2);
        if (i == argc - 1) return cmd_dump(argv[i]);
    }
    fprintf(stderr, "usage: mrc_pcap fields | gen [WIRE OPTIONS] OUT.pcap | garbage CORPUS_DIR OUT.pcap |\n"
                    "                dump [WIRE OPTIONS] IN.pcap\n"
                    "WIRE OPTIONS: --bth-m-bit 6|7 --eeth-op-shift 2|4 --sack-msb-first --stev-sport-low\n");
    return 2;
}
