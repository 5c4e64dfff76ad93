/* fuzz_decode.c - every header decoder, the packet classifier, the encoders and the ICRC helpers on arbitrary bytes.
 *
 * Input: [mode byte][bytes...]. The mode byte picks the wire options (m bit, SACK bit order, EETH op position, or
 * NULL options) and whether the rest is also read as encoder fields. Oracles:
 *   - a decoder returns its header length when len >= that length, MRC_ERR_TRUNC otherwise, and reads nothing past
 *     len (the bytes are an exact-size heap copy, so AddressSanitizer sees one byte too far);
 *   - decode -> encode -> decode is the identity on the decoded fields, the re-encoding is stable and sets no bit
 *     the input did not have (reserved bits read as zero);
 *   - mrc_pkt_decode agrees with a naive classifier written here from docs/PROTOCOL.md (header order, TSETH on the
 *     BTH ts bit, pad and cut rules) and with the per-header decoders at the offsets it implies;
 *   - encoders: MRC_ERR_NOBUF below the header length, MRC_ERR_INVAL (and a zeroed header) when a field does not fit
 *     its width (widths restated here from the spec tables), never a byte written past cap;
 *   - mrc_crc32 equals a bitwise CRC-32; mrc_icrc is deterministic and reads only [l3, l3 + len);
 *   - the name and predicate helpers accept every value;
 *   - the codec's fixed-offset fast paths (BTH, METH, TSETH, RETH, ImmDt, SETH, CC_STATE and mrc_pkt_decode, what the
 *     public functions run) agree with its generic table code on every input, byte for byte: the same return code,
 *     the same decoded struct (both start as the same junk), the same encoded bytes for every cap (off with
 *     -DFUZZ_NO_INTERNALS). Mode bits 6 and 7 spell bth_m_bit 7 as 0 and sack_msb_first 1 as 2, values the codec
 *     must read the same way. */
#include "fuzz_common.h"

typedef union {
    mrc_bth bth;
    mrc_meth meth;
    mrc_tseth tseth;
    mrc_reth reth;
    uint32_t imm;
    mrc_aeth aeth;
    mrc_seth seth;
    mrc_cc_state cc;
    mrc_neth neth;
    mrc_peth peth;
    mrc_erth erth;
    mrc_eeth eeth;
} fz_hdr;

enum { H_BTH, H_METH, H_TSETH, H_RETH, H_IMMDT, H_AETH, H_SETH, H_CC, H_NETH, H_PETH, H_ERTH, H_EETH, H_COUNT };
static const unsigned fz_hlen[H_COUNT] = {MRC_BTH_LEN,  MRC_METH_LEN, MRC_TSETH_LEN,   MRC_RETH_LEN,
                                          MRC_IMMDT_LEN, MRC_AETH_LEN, MRC_SETH_LEN,    MRC_CCSTATE_LEN,
                                          MRC_NETH_LEN,  MRC_PETH_LEN, MRC_ERTH_LEN,    MRC_EETH_LEN};

static int fz_dec(unsigned h, const uint8_t *p, size_t len, const mrc_wire_opts *o, fz_hdr *u) {
    memset(u, 0, sizeof *u);
    switch (h) {
    case H_BTH: return mrc_bth_decode(p, len, o, &u->bth);
    case H_METH: return mrc_meth_decode(p, len, &u->meth);
    case H_TSETH: return mrc_tseth_decode(p, len, &u->tseth);
    case H_RETH: return mrc_reth_decode(p, len, &u->reth);
    case H_IMMDT: return mrc_immdt_decode(p, len, &u->imm);
    case H_AETH: return mrc_aeth_decode(p, len, &u->aeth);
    case H_SETH: return mrc_seth_decode(p, len, o, &u->seth);
    case H_CC: return mrc_cc_state_decode(p, len, &u->cc);
    case H_NETH: return mrc_neth_decode(p, len, &u->neth);
    case H_PETH: return mrc_peth_decode(p, len, &u->peth);
    case H_ERTH: return mrc_erth_decode(p, len, &u->erth);
    default: return mrc_eeth_decode(p, len, o, &u->eeth);
    }
}
static int fz_enc(unsigned h, uint8_t *p, size_t cap, const mrc_wire_opts *o, const fz_hdr *u) {
    switch (h) {
    case H_BTH: return mrc_bth_encode(p, cap, o, &u->bth);
    case H_METH: return mrc_meth_encode(p, cap, &u->meth);
    case H_TSETH: return mrc_tseth_encode(p, cap, &u->tseth);
    case H_RETH: return mrc_reth_encode(p, cap, &u->reth);
    case H_IMMDT: return mrc_immdt_encode(p, cap, u->imm);
    case H_AETH: return mrc_aeth_encode(p, cap, &u->aeth);
    case H_SETH: return mrc_seth_encode(p, cap, o, &u->seth);
    case H_CC: return mrc_cc_state_encode(p, cap, &u->cc);
    case H_NETH: return mrc_neth_encode(p, cap, &u->neth);
    case H_PETH: return mrc_peth_encode(p, cap, &u->peth);
    case H_ERTH: return mrc_erth_encode(p, cap, &u->erth);
    default: return mrc_eeth_encode(p, cap, o, &u->eeth);
    }
}
static int fz_hdr_eq(unsigned h, const fz_hdr *a, const fz_hdr *b) {
    switch (h) {
    case H_BTH: return memcmp(&a->bth, &b->bth, sizeof a->bth) == 0;
    case H_METH: return memcmp(&a->meth, &b->meth, sizeof a->meth) == 0;
    case H_TSETH: return memcmp(&a->tseth, &b->tseth, sizeof a->tseth) == 0;
    case H_RETH: return memcmp(&a->reth, &b->reth, sizeof a->reth) == 0;
    case H_IMMDT: return a->imm == b->imm;
    case H_AETH: return memcmp(&a->aeth, &b->aeth, sizeof a->aeth) == 0;
    case H_SETH: return memcmp(&a->seth, &b->seth, sizeof a->seth) == 0;
    case H_CC: return memcmp(&a->cc, &b->cc, sizeof a->cc) == 0;
    case H_NETH: return memcmp(&a->neth, &b->neth, sizeof a->neth) == 0;
    case H_PETH: return memcmp(&a->peth, &b->peth, sizeof a->peth) == 0;
    case H_ERTH: return memcmp(&a->erth, &b->erth, sizeof a->erth) == 0;
    default: return memcmp(&a->eeth, &b->eeth, sizeof a->eeth) == 0;
    }
}

#ifndef FUZZ_NO_INTERNALS
/* ---- fast paths against the generic table code (mrc.h "fixed-offset fast paths") ------------------------------ */
static int fz_has_fast(unsigned h) {
    return h == H_BTH || h == H_METH || h == H_TSETH || h == H_RETH || h == H_IMMDT || h == H_SETH || h == H_CC;
}
static int fz_dec2(unsigned h, int fast, const uint8_t *p, size_t len, const mrc_wire_opts *o, fz_hdr *u) {
    switch (h) {
    case H_BTH: return fast ? mrc__bth_decode_fast(p, len, o, &u->bth) : mrc__bth_decode_generic(p, len, o, &u->bth);
    case H_METH: return fast ? mrc__meth_decode_fast(p, len, &u->meth) : mrc__meth_decode_generic(p, len, &u->meth);
    case H_TSETH:
        return fast ? mrc__tseth_decode_fast(p, len, &u->tseth) : mrc__tseth_decode_generic(p, len, &u->tseth);
    case H_RETH: return fast ? mrc__reth_decode_fast(p, len, &u->reth) : mrc__reth_decode_generic(p, len, &u->reth);
    case H_IMMDT: return fast ? mrc__immdt_decode_fast(p, len, &u->imm) : mrc__immdt_decode_generic(p, len, &u->imm);
    case H_SETH:
        return fast ? mrc__seth_decode_fast(p, len, o, &u->seth) : mrc__seth_decode_generic(p, len, o, &u->seth);
    default: return fast ? mrc__cc_state_decode_fast(p, len, &u->cc) : mrc__cc_state_decode_generic(p, len, &u->cc);
    }
}
static int fz_enc2(unsigned h, int fast, uint8_t *p, size_t cap, const mrc_wire_opts *o, const fz_hdr *u) {
    switch (h) {
    case H_BTH: return fast ? mrc__bth_encode_fast(p, cap, o, &u->bth) : mrc__bth_encode_generic(p, cap, o, &u->bth);
    case H_METH: return fast ? mrc__meth_encode_fast(p, cap, &u->meth) : mrc__meth_encode_generic(p, cap, &u->meth);
    case H_TSETH:
        return fast ? mrc__tseth_encode_fast(p, cap, &u->tseth) : mrc__tseth_encode_generic(p, cap, &u->tseth);
    case H_RETH: return fast ? mrc__reth_encode_fast(p, cap, &u->reth) : mrc__reth_encode_generic(p, cap, &u->reth);
    case H_IMMDT: return fast ? mrc__immdt_encode_fast(p, cap, u->imm) : mrc__immdt_encode_generic(p, cap, u->imm);
    case H_SETH:
        return fast ? mrc__seth_encode_fast(p, cap, o, &u->seth) : mrc__seth_encode_generic(p, cap, o, &u->seth);
    default: return fast ? mrc__cc_state_encode_fast(p, cap, &u->cc) : mrc__cc_state_encode_generic(p, cap, &u->cc);
    }
}
/* every fast decoder and the fast classifier on p[0..len) */
#define FZ_EQ(f) (a->f == b->f)
static int fz_rx_same(const mrc_pkt *a, const mrc_pkt *b, uint32_t want) {
    int same = FZ_EQ(hdrs) && FZ_EQ(hdr_len) && FZ_EQ(payload_len) && FZ_EQ(flags) && FZ_EQ(bth.opcode) &&
               FZ_EQ(bth.se) && FZ_EQ(bth.m) && FZ_EQ(bth.pad) && FZ_EQ(bth.tver) && FZ_EQ(bth.pkey) &&
               FZ_EQ(bth.resv8) && FZ_EQ(bth.dest_qp) && FZ_EQ(bth.a) && FZ_EQ(bth.r) && FZ_EQ(bth.rtx) &&
               FZ_EQ(bth.ts) && FZ_EQ(bth.psn);
    if ((want & ~(uint32_t)MRC_HDR_IMMDT) == (uint32_t)(MRC_HDR_METH | MRC_HDR_RETH))
        return same && FZ_EQ(meth.rqmsn) && FZ_EQ(meth.msn) && FZ_EQ(tseth.tx_timestamp) && FZ_EQ(tseth.tsr) &&
               FZ_EQ(tseth.ftype) && FZ_EQ(reth.va) && FZ_EQ(reth.rkey) && FZ_EQ(reth.dma_len) && FZ_EQ(imm);
    if (want == (uint32_t)(MRC_HDR_SETH | MRC_HDR_CCSTATE))
        return same && FZ_EQ(seth.type) && FZ_EQ(seth.nxt) && FZ_EQ(seth.m) && FZ_EQ(seth.pr) &&
               FZ_EQ(seth.ack_psn_offset) && FZ_EQ(seth.entropy) && FZ_EQ(seth.spdcid) && FZ_EQ(seth.dpdcid) &&
               FZ_EQ(seth.cack_psn) && FZ_EQ(seth.cc_type) && FZ_EQ(seth.cc_fl) && FZ_EQ(seth.mpr) &&
               FZ_EQ(seth.sack_offset) && FZ_EQ(seth.sack_bitmap) && FZ_EQ(cc.tx_timestamp) && FZ_EQ(cc.ooo_count) &&
               FZ_EQ(cc.r_c) && FZ_EQ(cc.rcv_cwnd_pen) && FZ_EQ(cc.rcvd_bytes);
    return memcmp(a, b, sizeof *a) == 0;
}
static void fz_fast_decoders(const uint8_t *p, size_t len, const mrc_wire_opts *o) {
    fz_hdr a, b;
    mrc_pkt ka, kb, kr;
    unsigned h;
    int ra, rb, rr;
    uint32_t want = len ? mrc_opcode_hdrs(p[0]) : 0u;
    for (h = 0; h < H_COUNT; h++) {
        if (!fz_has_fast(h)) continue;
        memset(&a, 0x5A, sizeof a);
        memset(&b, 0x5A, sizeof b);
        ra = fz_dec2(h, 1, p, len, o, &a);
        rb = fz_dec2(h, 0, p, len, o, &b);
        FZ_CHECK(ra == rb, "header %u, %zu bytes: fast decode %d, generic %d", h, len, ra, rb);
        FZ_CHECK(memcmp(&a, &b, sizeof a) == 0, "header %u, %zu bytes: fast and generic decode differ", h, len);
    }
    memset(&ka, 0x5A, sizeof ka);
    memset(&kb, 0x5A, sizeof kb);
    memset(&kr, 0x5A, sizeof kr);
    ra = mrc__pkt_decode_fast(p, len, o, &ka, true);
    rb = mrc__pkt_decode_generic(p, len, o, &kb);
    rr = mrc__pkt_decode_fast(p, len, o, &kr, false);
    FZ_CHECK(ra == rb, "mrc_pkt_decode of %zu bytes (opcode %#x): fast %d, generic %d", len, len ? p[0] : 0u, ra, rb);
    FZ_CHECK(memcmp(&ka, &kb, sizeof ka) == 0, "mrc_pkt_decode of %zu bytes (opcode %#x, rc %d): the mrc_pkt differs",
             len, len ? p[0] : 0u, ra);
    /* mrc_endpoint_recv's decode: the same in every member the opcode defines (it leaves the others as they were) */
    FZ_CHECK(rr == rb, "receive decode of %zu bytes (opcode %#x): %d, generic %d", len, len ? p[0] : 0u, rr, rb);
    FZ_CHECK(fz_rx_same(&kr, &kb, want), "receive decode of %zu bytes (opcode %#x, rc %d): a member differs", len,
             len ? p[0] : 0u, rb);
}
/* a fast encoder and its generic twin into two exact-size buffers of the same junk */
static void fz_fast_encoder(unsigned h, const fz_hdr *u, size_t cap, const mrc_wire_opts *o) {
    uint8_t *a, *b;
    int ra, rb;
    if (!fz_has_fast(h)) return;
    a = (uint8_t *)malloc(cap ? cap : 1u);
    b = (uint8_t *)malloc(cap ? cap : 1u);
    if (a && b) {
        memset(a, 0xA5, cap ? cap : 1u);
        memset(b, 0xA5, cap ? cap : 1u);
        ra = fz_enc2(h, 1, a, cap, o, u);
        rb = fz_enc2(h, 0, b, cap, o, u);
        FZ_CHECK(ra == rb, "header %u, cap %zu: fast encode %d, generic %d", h, cap, ra, rb);
        FZ_CHECK(memcmp(a, b, cap ? cap : 1u) == 0, "header %u, cap %zu (rc %d): fast and generic bytes differ", h,
                 cap, ra);
    }
    free(a);
    free(b);
}
#else
#define fz_fast_decoders(p, len, o) ((void)0)
#define fz_fast_encoder(h, u, cap, o) ((void)0)
#endif

/* Does every field fit its wire width? (restated from docs/PROTOCOL.md 3.3, independently of the codec tables) */
#define FITS(v, bits) ((uint64_t)(v) < ((uint64_t)1 << (bits)))
static int fz_fits(unsigned h, const fz_hdr *u) {
    switch (h) {
    case H_BTH:
        return FITS(u->bth.se, 1) && FITS(u->bth.m, 1) && FITS(u->bth.pad, 2) && FITS(u->bth.tver, 4) &&
               FITS(u->bth.a, 1) && FITS(u->bth.r, 1) && FITS(u->bth.rtx, 1) && FITS(u->bth.ts, 1) &&
               FITS(u->bth.dest_qp, 24) && FITS(u->bth.psn, 24);
    case H_TSETH: return FITS(u->tseth.tsr, 1) && FITS(u->tseth.ftype, 4);
    case H_AETH: return FITS(u->aeth.msn, 24);
    case H_SETH:
        return FITS(u->seth.type, 4) && FITS(u->seth.nxt, 5) && FITS(u->seth.m, 2) && FITS(u->seth.pr, 1) &&
               FITS(u->seth.cack_psn, 24) && FITS(u->seth.cc_type, 4) && FITS(u->seth.cc_fl, 4);
    case H_CC:
        return FITS(u->cc.ooo_count, 15) && FITS(u->cc.r_c, 1) && FITS(u->cc.rcv_cwnd_pen, 7) &&
               FITS(u->cc.rcvd_bytes, 24);
    case H_NETH:
        return FITS(u->neth.type, 4) && FITS(u->neth.nxt, 5) && FITS(u->neth.nack_psn, 24) &&
               FITS(u->neth.cc_type, 4) && FITS(u->neth.cc_fl, 4);
    case H_PETH:
        return FITS(u->peth.type, 4) && FITS(u->peth.nxt, 5) && FITS(u->peth.tsr, 1) && FITS(u->peth.ftype, 4);
    case H_ERTH:
        return FITS(u->erth.type, 4) && FITS(u->erth.nxt, 5) && FITS(u->erth.op, 2) && FITS(u->erth.tsr, 1) &&
               FITS(u->erth.ftype, 4);
    case H_EETH: return FITS(u->eeth.type, 4) && FITS(u->eeth.nxt, 5) && FITS(u->eeth.op, 2);
    default: return 1; /* METH, RETH, ImmDt: every field is full width */
    }
}

#define M8(v, bits) ((v) = (uint8_t)((v) & ((1u << (bits)) - 1u)))
#define M16(v, bits) ((v) = (uint16_t)((v) & ((1u << (bits)) - 1u)))
#define M32(v, bits) ((v) = (uint32_t)((v) & ((1u << (bits)) - 1u)))
static void fz_mask(unsigned h, fz_hdr *u) {
    switch (h) {
    case H_BTH:
        M8(u->bth.se, 1); M8(u->bth.m, 1); M8(u->bth.pad, 2); M8(u->bth.tver, 4); M8(u->bth.a, 1); M8(u->bth.r, 1);
        M8(u->bth.rtx, 1); M8(u->bth.ts, 1); M32(u->bth.dest_qp, 24); M32(u->bth.psn, 24);
        break;
    case H_TSETH: M8(u->tseth.tsr, 1); M8(u->tseth.ftype, 4); break;
    case H_AETH: M32(u->aeth.msn, 24); break;
    case H_SETH:
        M8(u->seth.type, 4); M8(u->seth.nxt, 5); M8(u->seth.m, 2); M8(u->seth.pr, 1); M32(u->seth.cack_psn, 24);
        M8(u->seth.cc_type, 4); M8(u->seth.cc_fl, 4);
        break;
    case H_CC: M16(u->cc.ooo_count, 15); M8(u->cc.r_c, 1); M8(u->cc.rcv_cwnd_pen, 7); M32(u->cc.rcvd_bytes, 24); break;
    case H_NETH:
        M8(u->neth.type, 4); M8(u->neth.nxt, 5); M32(u->neth.nack_psn, 24); M8(u->neth.cc_type, 4); M8(u->neth.cc_fl, 4);
        break;
    case H_PETH: M8(u->peth.type, 4); M8(u->peth.nxt, 5); M8(u->peth.tsr, 1); M8(u->peth.ftype, 4); break;
    case H_ERTH:
        M8(u->erth.type, 4); M8(u->erth.nxt, 5); M8(u->erth.op, 2); M8(u->erth.tsr, 1); M8(u->erth.ftype, 4);
        break;
    case H_EETH: M8(u->eeth.type, 4); M8(u->eeth.nxt, 5); M8(u->eeth.op, 2); break;
    default: break;
    }
}
#undef M8
#undef M16
#undef M32

static void fz_rnd_hdr(unsigned h, fz_in *in, fz_hdr *u) {
    memset(u, 0, sizeof *u);
    switch (h) {
    case H_BTH:
        u->bth.opcode = fz_u8(in); u->bth.se = fz_u8(in); u->bth.m = fz_u8(in); u->bth.pad = fz_u8(in);
        u->bth.tver = fz_u8(in); u->bth.resv8 = fz_u8(in); u->bth.a = fz_u8(in); u->bth.r = fz_u8(in);
        u->bth.rtx = fz_u8(in); u->bth.ts = fz_u8(in); u->bth.pkey = fz_u16(in); u->bth.dest_qp = fz_u32(in);
        u->bth.psn = fz_u32(in);
        break;
    case H_METH: u->meth.rqmsn = fz_u16(in); u->meth.msn = fz_u16(in); break;
    case H_TSETH: u->tseth.tx_timestamp = fz_u16(in); u->tseth.tsr = fz_u8(in); u->tseth.ftype = fz_u8(in); break;
    case H_RETH: u->reth.va = fz_u64(in); u->reth.rkey = fz_u32(in); u->reth.dma_len = fz_u32(in); break;
    case H_IMMDT: u->imm = fz_u32(in); break;
    case H_AETH: u->aeth.syndrome = fz_u8(in); u->aeth.msn = fz_u32(in); break;
    case H_SETH:
        u->seth.type = fz_u8(in); u->seth.nxt = fz_u8(in); u->seth.m = fz_u8(in); u->seth.pr = fz_u8(in);
        u->seth.ack_psn_offset = (int16_t)fz_u16(in); u->seth.entropy = fz_u32(in); u->seth.spdcid = fz_u16(in);
        u->seth.dpdcid = fz_u16(in); u->seth.cack_psn = fz_u32(in); u->seth.cc_type = fz_u8(in);
        u->seth.cc_fl = fz_u8(in); u->seth.mpr = fz_u8(in); u->seth.sack_offset = (int16_t)fz_u16(in);
        u->seth.sack_bitmap = fz_u64(in);
        break;
    case H_CC:
        u->cc.tx_timestamp = fz_u16(in); u->cc.ooo_count = fz_u16(in); u->cc.r_c = fz_u8(in);
        u->cc.rcv_cwnd_pen = fz_u8(in); u->cc.rcvd_bytes = fz_u32(in);
        break;
    case H_NETH:
        u->neth.type = fz_u8(in); u->neth.nxt = fz_u8(in); u->neth.nack_reason = fz_u8(in);
        u->neth.vendor_info = fz_u8(in); u->neth.entropy = fz_u32(in); u->neth.spdcid = fz_u16(in);
        u->neth.dpdcid = fz_u16(in); u->neth.nack_psn = fz_u32(in); u->neth.cc_type = fz_u8(in);
        u->neth.cc_fl = fz_u8(in); u->neth.tx_timestamp = fz_u16(in);
        break;
    case H_PETH:
        u->peth.type = fz_u8(in); u->peth.nxt = fz_u8(in); u->peth.vendor_info = fz_u8(in); u->peth.tsr = fz_u8(in);
        u->peth.ftype = fz_u8(in); u->peth.probe_id = fz_u16(in); u->peth.spdcid = fz_u16(in);
        u->peth.dpdcid = fz_u16(in); u->peth.tx_timestamp = fz_u16(in);
        break;
    case H_ERTH:
        u->erth.type = fz_u8(in); u->erth.nxt = fz_u8(in); u->erth.op = fz_u8(in); u->erth.vendor_info = fz_u8(in);
        u->erth.tsr = fz_u8(in); u->erth.ftype = fz_u8(in); u->erth.port_status_mask = fz_u32(in);
        u->erth.tx_timestamp = fz_u16(in);
        break;
    default:
        u->eeth.type = fz_u8(in); u->eeth.nxt = fz_u8(in); u->eeth.op = fz_u8(in); u->eeth.tx_timestamp = fz_u16(in);
        break;
    }
    if (fz_u8(in) & 1u) fz_mask(h, u); /* in range, so the success path is exercised too */
}

/* decode at p[0..len): exact-size heap copy so any over-read is caught */
static void fz_check_decoder(unsigned h, const uint8_t *p, size_t len, const mrc_wire_opts *o) {
    fz_hdr a, b;
    uint8_t e1[MRC_HDR_MAX + 8], e2[MRC_HDR_MAX + 8];
    unsigned hl = fz_hlen[h], i;
    int r = fz_dec(h, p, len, o, &a), r2;
    if (len < hl) {
        FZ_CHECK(r == MRC_ERR_TRUNC, "header %u: %zu bytes decoded to %d", h, len, r);
        return;
    }
    FZ_CHECK(r == (int)hl, "header %u: decode returned %d, want %u", h, r, hl);
    memset(e1, 0xA5, sizeof e1);
    r2 = fz_enc(h, e1, hl, o, &a);
    FZ_CHECK(r2 == (int)hl, "header %u: re-encode of decoded fields returned %d", h, r2);
    for (i = hl; i < sizeof e1; i++) FZ_CHECK(e1[i] == 0xA5, "header %u: encoder wrote byte %u past cap", h, i);
    r2 = fz_dec(h, e1, hl, o, &b);
    FZ_CHECK(r2 == (int)hl && fz_hdr_eq(h, &a, &b), "header %u: decode(encode(decode(x))) != decode(x)", h);
    FZ_CHECK(fz_enc(h, e2, hl, o, &b) == (int)hl && memcmp(e1, e2, hl) == 0, "header %u: re-encoding unstable", h);
    for (i = 0; i < hl; i++) {
        uint8_t extra = (uint8_t)(e1[i] & ~p[i]);
        if (h == H_EETH && i == 1) continue; /* Q16b: the op may be read from the other position */
        FZ_CHECK(extra == 0, "header %u: byte %u re-encoded as %#x from %#x (a bit the input did not have)", h, i, e1[i],
                 p[i]);
    }
}

/* The naive classifier: expected result of mrc_pkt_decode, and (when OK) the header offsets. */
static int fz_classify(const uint8_t *p, size_t len, const mrc_wire_opts *o, unsigned offs[H_COUNT], uint32_t *hdrs,
                       size_t *hdr_len, int *cut) {
    static const struct { unsigned h; uint32_t flag; } order[] = {
        {H_METH, MRC_HDR_METH}, {H_TSETH, MRC_HDR_TSETH}, {H_RETH, MRC_HDR_RETH}, {H_IMMDT, MRC_HDR_IMMDT},
        {H_AETH, MRC_HDR_AETH}, {H_SETH, MRC_HDR_SETH},   {H_CC, MRC_HDR_CCSTATE}, {H_NETH, MRC_HDR_NETH},
        {H_PETH, MRC_HDR_PETH}, {H_ERTH, MRC_HDR_ERTH},   {H_EETH, MRC_HDR_EETH}};
    uint32_t want = 0;
    unsigned op, pad, ts, i;
    size_t off = MRC_BTH_LEN;
    (void)o;
    *hdrs = 0;
    *cut = 0;
    if (len < MRC_BTH_LEN) return MRC_ERR_TRUNC;
    op = p[0];
    pad = (p[1] >> 4) & 3u;
    ts = (p[8] >> 4) & 1u;
    switch (op) {
    case 0xC6: case 0xC7: case 0xC8: case 0xCA: want = MRC_HDR_METH | MRC_HDR_RETH; break;
    case 0xC9: case 0xCB: want = MRC_HDR_METH | MRC_HDR_RETH | MRC_HDR_IMMDT; break;
    case 0xD1: want = MRC_HDR_AETH; break;
    case 0xD8: want = MRC_HDR_ERTH; break;
    case 0xD9: want = MRC_HDR_EETH; break;
    case 0xDC: want = MRC_HDR_SETH | MRC_HDR_CCSTATE; break;
    case 0xDD: want = MRC_HDR_NETH; break;
    case 0xDE: want = MRC_HDR_PETH; break;
    default: return MRC_ERR_MALFORMED;
    }
    FZ_CHECK(mrc_opcode_hdrs(op) == want, "mrc_opcode_hdrs(%#x) = %#x, want %#x", op, mrc_opcode_hdrs(op), want);
    if ((want & MRC_HDR_METH) && ts) want |= MRC_HDR_TSETH;
    for (i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (!(want & order[i].flag)) continue;
        if (len < off + fz_hlen[order[i].h]) return MRC_ERR_TRUNC;
        offs[order[i].h] = (unsigned)off;
        off += fz_hlen[order[i].h];
    }
    *hdrs = want;
    *hdr_len = off;
    if (len - off < pad) {
        if (!(want & MRC_HDR_METH)) return MRC_ERR_MALFORMED;
        *cut = 1;
    }
    return MRC_OK;
}

static void fz_check_pkt(const uint8_t *p, size_t len, const mrc_wire_opts *o) {
    mrc_pkt k;
    unsigned offs[H_COUNT], h;
    uint32_t hdrs;
    size_t hl = 0;
    int cut, want = fz_classify(p, len, o, offs, &hdrs, &hl, &cut);
    int r = mrc_pkt_decode(p, len, o, &k);
    FZ_CHECK(r == want, "mrc_pkt_decode returned %d, the naive classifier %d (opcode %#x, %zu bytes)", r, want,
             len ? p[0] : 0u, len);
    if (r != MRC_OK) return;
    FZ_CHECK(k.hdrs == hdrs && k.hdr_len == hl, "hdrs %#x/%#x, hdr_len %u/%zu", k.hdrs, hdrs, k.hdr_len, hl);
    if (cut) {
        FZ_CHECK(k.flags == MRC_PKT_CUT && k.payload_len == 0, "cut packet: flags %#x payload %u", k.flags,
                 k.payload_len);
    } else {
        FZ_CHECK(k.flags == 0 && (size_t)k.payload_len + hl + k.bth.pad == len, "payload_len %u", k.payload_len);
    }
    for (h = 0; h < H_COUNT; h++) {
        fz_hdr u;
        const void *got;
        size_t sz;
        uint32_t flag;
        switch (h) {
        case H_BTH: got = &k.bth; sz = sizeof k.bth; flag = 0; offs[h] = 0; break;
        case H_METH: got = &k.meth; sz = sizeof k.meth; flag = MRC_HDR_METH; break;
        case H_TSETH: got = &k.tseth; sz = sizeof k.tseth; flag = MRC_HDR_TSETH; break;
        case H_RETH: got = &k.reth; sz = sizeof k.reth; flag = MRC_HDR_RETH; break;
        case H_IMMDT: got = &k.imm; sz = sizeof k.imm; flag = MRC_HDR_IMMDT; break;
        case H_AETH: got = &k.aeth; sz = sizeof k.aeth; flag = MRC_HDR_AETH; break;
        case H_SETH: got = &k.seth; sz = sizeof k.seth; flag = MRC_HDR_SETH; break;
        case H_CC: got = &k.cc; sz = sizeof k.cc; flag = MRC_HDR_CCSTATE; break;
        case H_NETH: got = &k.neth; sz = sizeof k.neth; flag = MRC_HDR_NETH; break;
        case H_PETH: got = &k.peth; sz = sizeof k.peth; flag = MRC_HDR_PETH; break;
        case H_ERTH: got = &k.erth; sz = sizeof k.erth; flag = MRC_HDR_ERTH; break;
        default: got = &k.eeth; sz = sizeof k.eeth; flag = MRC_HDR_EETH; break;
        }
        if (h != H_BTH && !(hdrs & flag)) {
            static const uint8_t zero[sizeof(mrc_seth)];
            FZ_CHECK(memcmp(got, zero, sz) == 0, "header %u not present but not zeroed", h);
            continue;
        }
        FZ_CHECK(fz_dec(h, p + offs[h], len - offs[h], o, &u) == (int)fz_hlen[h], "header %u at %u", h, offs[h]);
        FZ_CHECK(memcmp(got, &u, sz) == 0, "mrc_pkt_decode's header %u differs from its decoder's", h);
    }
}

static void fz_check_encoder(unsigned h, fz_in *in, const mrc_wire_opts *o) {
    fz_hdr u, v;
    size_t cap = fz_u8(in) % (MRC_HDR_MAX + 1u), i;
    uint8_t *buf;
    int r, fits;
    fz_rnd_hdr(h, in, &u);
    fz_fast_encoder(h, &u, cap, o);
    fits = fz_fits(h, &u);
    buf = (uint8_t *)malloc(cap ? cap : 1u);
    if (!buf) return;
    memset(buf, 0xA5, cap ? cap : 1u);
    r = fz_enc(h, buf, cap, o, &u);
    if (cap < fz_hlen[h]) {
        FZ_CHECK(r == MRC_ERR_NOBUF, "header %u: encode into %zu bytes returned %d", h, cap, r);
        for (i = 0; i < cap; i++) FZ_CHECK(buf[i] == 0xA5, "header %u: NOBUF encoder wrote byte %zu", h, i);
    } else if (!fits) {
        FZ_CHECK(r == MRC_ERR_INVAL, "header %u: a field too wide encoded (%d)", h, r);
        for (i = 0; i < fz_hlen[h]; i++) FZ_CHECK(buf[i] == 0, "header %u: INVAL left byte %zu nonzero", h, i);
    } else {
        FZ_CHECK(r == (int)fz_hlen[h], "header %u: encode returned %d", h, r);
        FZ_CHECK(fz_dec(h, buf, cap, o, &v) == (int)fz_hlen[h], "header %u: decode of encoding", h);
        if (h == H_BTH) {
            /* decode masks nothing; resv8 and every field come back */
            FZ_CHECK(fz_hdr_eq(h, &u, &v), "BTH round trip");
        } else if (h != H_EETH) {
            FZ_CHECK(fz_hdr_eq(h, &u, &v), "header %u round trip", h);
        } else {
            FZ_CHECK(u.eeth.type == v.eeth.type && u.eeth.nxt == v.eeth.nxt && u.eeth.tx_timestamp == v.eeth.tx_timestamp &&
                         u.eeth.op == v.eeth.op,
                     "EETH round trip");
        }
    }
    free(buf);
}

static uint32_t fz_crc32_ref(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    unsigned b;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (b = 0; b < 8; b++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* header boundaries of BTH METH [TSETH] RETH [ImmDt] and BTH SETH CC_STATE */
static const size_t fz_cuts[] = {12, 16, 20, 32, 36, 40, 48};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    mrc_wire_opts ow;
    const mrc_wire_opts *o = &ow;
    uint8_t mode, *p;
    size_t len;
    unsigned h, i;
    fz_in in;
    if (size < 1) return 0;
    mode = data[0];
    memset(&ow, 0, sizeof ow);
    ow.bth_m_bit = (mode & 1u) ? 6 : 7;
    ow.sack_msb_first = (uint8_t)((mode >> 1) & 1u);
    ow.eeth_op_shift = (mode & 4u) ? 4 : 2;
    ow.ts_shift = 7;
    if ((mode & 0x40u) && ow.bth_m_bit == 7) ow.bth_m_bit = 0;          /* any value but 6 means bit 7 */
    if ((mode & 0x80u) && ow.sack_msb_first) ow.sack_msb_first = 2;     /* any non-zero value means MSB first */
    if ((mode & 0x18u) == 0x18u) o = (const mrc_wire_opts *)0; /* NULL options mean the defaults */
    len = size - 1;
    p = (uint8_t *)malloc(len ? len : 1u);
    if (!p) return 0;
    memcpy(p, data + 1, len);

    for (h = 0; h < H_COUNT; h++) fz_check_decoder(h, p, len, o);
    fz_check_pkt(p, len, o);
    fz_fast_decoders(p, len, o);
    /* every suffix starting at a header boundary a decoder might be handed */
    for (i = 1; i <= 4 && i * 4u <= len; i++) {
        const uint8_t *q = p + len - (size_t)i * 4u;
        mrc_pkt k;
        (void)mrc_pkt_decode(q, (size_t)i * 4u, o, &k);
        fz_fast_decoders(q, (size_t)i * 4u, o);
    }
    /* every prefix of the packet at the header boundaries of the data and SACK stacks, and one byte short of each */
    for (i = 0; i < sizeof fz_cuts / sizeof fz_cuts[0]; i++) {
        if (fz_cuts[i] < len) fz_fast_decoders(p, fz_cuts[i], o);
        if (fz_cuts[i] && fz_cuts[i] - 1u < len) fz_fast_decoders(p, fz_cuts[i] - 1u, o);
    }

    /* encoders on fields taken from the same bytes */
    if (mode & 0x20u) {
        fz_init(&in, data + 1, len);
        while (fz_left(&in) > 0) fz_check_encoder(fz_u8(&in) % H_COUNT, &in, o);
    }

    /* CRC and ICRC */
    if (len <= 4096) FZ_CHECK(mrc_crc32(0, p, len) == fz_crc32_ref(p, len), "mrc_crc32 differs from the bitwise CRC");
    {
        uint32_t a = mrc_icrc(p, len), b = mrc_icrc(p, len);
        uint8_t w[4];
        FZ_CHECK(a == b, "mrc_icrc not deterministic");
        mrc_icrc_put(w, a);
        FZ_CHECK(mrc_icrc_get(w) == a, "icrc put/get");
    }

    /* names and predicates accept anything */
    if (len) {
        unsigned v = p[0];
        int e = (int)(int8_t)p[0] - (len > 1 ? p[1] : 0);
        FZ_CHECK(mrc_opcode_name(v) && mrc_nack_name(v) && mrc_drop_name(v) && mrc_state_name(v) &&
                     mrc_event_name(v) && mrc_strerror(e),
                 "a name helper returned NULL");
        FZ_CHECK(mrc_err_is_fatal(e) == (e <= -100), "mrc_err_is_fatal(%d)", e);
        FZ_CHECK(mrc_nack_is_retriable(v) == (v == 1 || v == 2 || v == 6 || v == 7 || v == 0x0A || v == 0x0B),
                 "mrc_nack_is_retriable(%#x)", v);
    }
    free(p);
    return 0;
}
