/* ================================================================================================================
 * CODEC - src/codec.c
 * Owns: the byte layout of every MRC header (the tables in codec.h), big-endian field access, PSN serial arithmetic,
 * the packet classifier and the RoCEv2 ICRC helper: pure functions of bytes, no endpoint or QP state.
 * Calls: nothing but internal.h.
 * ============================================================================================================== */
#include "codec.h"

/* ---- generic field access: the table interpreted at run time ------------------------------------------------ */
MRC__PRIVATE MRC__INLINE uint64_t mrc__mask64(unsigned bits) {
    return bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1u);
}
MRC__PRIVATE MRC__INLINE uint64_t mrc__fget(const uint8_t *p, unsigned off, unsigned span, unsigned shift,
                                           unsigned bits) {
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < span; i++) v = (v << 8) | p[off + i];
    return (v >> shift) & mrc__mask64(bits);
}
/* Write a field into bytes where its bits are zero (mrc__hdr_put zeroes the header first, and no two fields of a
 * layout share a bit): ORed in; returns 1 when val does not fit the width (nothing written). */
MRC__PRIVATE MRC__INLINE int mrc__fput(uint8_t *p, unsigned off, unsigned span, unsigned shift, unsigned bits,
                                      uint64_t val) {
    unsigned i;
    if (val & ~mrc__mask64(bits)) return 1;
    val <<= shift;
    for (i = span; i-- > 0;) {
        p[off + i] = (uint8_t)(p[off + i] | (val & 0xFFu));
        val >>= 8;
    }
    return 0;
}
#define MRC__GET_(p, o, s, sh, b) mrc__fget((p), (o), (s), (sh), (b))
#define MRC__GET(p, F) MRC__GET_(p, F)
#define MRC__PUT_(p, o, s, sh, b, v) mrc__fput((p), (o), (s), (sh), (b), (uint64_t)(v))
#define MRC__PUT(p, F, v) MRC__PUT_(p, F, v)
MRC__PRIVATE MRC__INLINE int16_t mrc__s16(uint16_t u) {
    return (int16_t)(u >= 0x8000u ? (int32_t)u - 0x10000 : (int32_t)u);
}
/* (out of line under -Os: its two callers' copies cost 16 B of Cortex-M4 code more) */
MRC__PRIVATE MRC__SIZE_NOINLINE uint64_t mrc__rev64(uint64_t v) {
    uint64_t r = 0;
    unsigned i;
    for (i = 0; i < 64; i++) {
        r = (r << 1) | (v & 1u);
        v >>= 1;
    }
    return r;
}
MRC__PRIVATE MRC__INLINE unsigned mrc__m_bit(const mrc_wire_opts *o) { return o && o->bth_m_bit == 6 ? 6u : 7u; }
MRC__PRIVATE MRC__INLINE unsigned mrc__eeth_shift(const mrc_wire_opts *o) {
    return o && o->eeth_op_shift == 4 ? 4u : 2u;
}

/* ---- PSN serial arithmetic ---------------------------------------------------------------------------------- */
MRC_API uint32_t mrc_psn_add(uint32_t psn, int32_t n) { return (psn + (uint32_t)n) & MRC_PSN_MASK; }
/* branch-free: d ^ 2^23 maps [0, 2^24) onto [-2^23, 2^23) + 2^23 with the halves swapped */
MRC_API int32_t mrc_psn_diff(uint32_t a, uint32_t b) {
    return (int32_t)(((a - b) & MRC_PSN_MASK) ^ MRC_PSN_HALF) - (int32_t)MRC_PSN_HALF;
}
MRC_API bool mrc_psn_lt(uint32_t a, uint32_t b) { return mrc_psn_diff(a, b) < 0; }

/* ---- per-header encoders and decoders: each header's fields as a const table walked by one loop -------------
 * The encoders of the control packets (AETH, NETH, PETH, ERTH, EETH) and the generic SETH encoder are kept out of
 * line: they are built inside mrc__poll_tx, and a call there, as before the tables, leaves gcc's register allocation
 * of its common case as it was (x86-64 make bench: 4 instructions per data packet otherwise). */
/* A field of a header: its layout entry (codec.h) and the member of the header's struct that holds it, in four bytes
 * (the build fails when an offset or shift does not fit its bits) */
typedef struct mrc__fdesc {
    uint8_t off_sh;  /* byte offset (bits 4:0), shift (7:5) */
    uint8_t bits;    /* width */
    uint8_t moff;    /* offsetof the struct member */
    uint8_t span_sz; /* span (bits 3:0), sizeof the struct member (7:4) */
} mrc__fdesc;
#define MRC__FD_(o, s, sh, b, T, m)                                                                             \
    {(uint8_t)(((o) | (sh) << 5) * sizeof(char[(o) < 32 && (sh) < 8 ? 1 : -1])), b, (uint8_t)offsetof(T, m),    \
     (uint8_t)((s) | sizeof(((T *)0)->m) << 4)}
#define MRC__FD(F, T, m) MRC__FD_(F, T, m)
/* a header's table: its length first (the entry's first byte), its fields, then an entry of zeros (no field has a zero
 * span_sz): the walks take one pointer */
#define MRC__FDH(hlen) {(uint8_t)(hlen), 0, 0, 0}
#define MRC__FEND {0, 0, 0, 0}
/* a struct member of 1, 2, 4 or 8 bytes, read zero-extended (an int16_t as its 16 bits) and written truncated: the
 * values of the casts the per-field code made (exact-width types are two's complement) */
MRC__PRIVATE uint64_t mrc__mget(const uint8_t *q, unsigned sz) {
    uint8_t b;
    uint16_t w;
    uint32_t d;
    uint64_t v;
    if (sz == 1) {
        MRC_MEMCPY(&b, q, 1);
        return b;
    }
    if (sz == 2) {
        MRC_MEMCPY(&w, q, 2);
        return w;
    }
    if (sz == 4) {
        MRC_MEMCPY(&d, q, 4);
        return d;
    }
    MRC_MEMCPY(&v, q, 8);
    return v;
}
MRC__PRIVATE void mrc__mput(uint8_t *q, unsigned sz, uint64_t v) {
    uint8_t b = (uint8_t)v;
    uint16_t w = (uint16_t)v;
    uint32_t d = (uint32_t)v;
    if (sz == 1) MRC_MEMCPY(q, &b, 1);
    else if (sz == 2) MRC_MEMCPY(q, &w, 2);
    else if (sz == 4) MRC_MEMCPY(q, &d, 4);
    else MRC_MEMCPY(q, &v, 8);
}
/* Decode a header of hlen bytes: every field of the table into its member. Returns hlen or an error. */
MRC__PRIVATE MRC__NOINLINE int mrc__hdr_get(const uint8_t *p, size_t len, void *hv, const mrc__fdesc *d) {
    uint8_t *h = (uint8_t *)hv;
    size_t hlen = d->off_sh;
    if (!p || !h) return MRC_ERR_INVAL;
    if (len < hlen) return MRC_ERR_TRUNC;
    for (d++; d->span_sz; d++)
        mrc__mput(h + d->moff, d->span_sz >> 4u,
                  mrc__fget(p, d->off_sh & 31u, d->span_sz & 15u, d->off_sh >> 5u, d->bits));
    return (int)hlen;
}
/* Encode a header of hlen bytes into zeroed bytes: every field of the table from its member; a value wider than its
 * field is not written and makes the header invalid (zeroed, MRC_ERR_INVAL) once the rest are. On success the caller
 * may then OR in fields outside the table (their bits are zero), checking them the same way. Returns hlen or an
 * error. */
MRC__PRIVATE MRC__NOINLINE int mrc__hdr_put(uint8_t *p, size_t cap, const void *hv, const mrc__fdesc *d) {
    const uint8_t *h = (const uint8_t *)hv;
    size_t hlen = d->off_sh;
    int bad = 0;
    if (!p || !h) return MRC_ERR_INVAL;
    if (cap < hlen) return MRC_ERR_NOBUF;
    MRC_MEMSET(p, 0, hlen);
    for (d++; d->span_sz; d++)
        bad |= mrc__fput(p, d->off_sh & 31u, d->span_sz & 15u, d->off_sh >> 5, d->bits,
                         mrc__mget(h + d->moff, d->span_sz >> 4));
    if (bad) {
        MRC_MEMSET(p, 0, hlen);
        return MRC_ERR_INVAL;
    }
    return (int)hlen;
}
#define MRC__NF(t) (unsigned)(sizeof(t) / sizeof((t)[0]))
#define MRC__DEC_PROLOGUE(HLEN)           \
    if (!p || !h) return MRC_ERR_INVAL;   \
    if (len < (size_t)(HLEN)) return MRC_ERR_TRUNC
/* BTH: m and se sit at run-time bit positions of byte 1, apart from the table */
static const mrc__fdesc mrc__bth_fd[] = {MRC__FDH(MRC_BTH_LEN),
    MRC__FD(MRC__BTH_OPCODE, mrc_bth, opcode), MRC__FD(MRC__BTH_PAD, mrc_bth, pad),
    MRC__FD(MRC__BTH_TVER, mrc_bth, tver),     MRC__FD(MRC__BTH_PKEY, mrc_bth, pkey),
    MRC__FD(MRC__BTH_RESV8, mrc_bth, resv8),   MRC__FD(MRC__BTH_DEST_QP, mrc_bth, dest_qp),
    MRC__FD(MRC__BTH_A, mrc_bth, a),           MRC__FD(MRC__BTH_R, mrc_bth, r),
    MRC__FD(MRC__BTH_RTX, mrc_bth, rtx),       MRC__FD(MRC__BTH_TS, mrc_bth, ts),
    MRC__FD(MRC__BTH_PSN, mrc_bth, psn),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__bth_decode_generic(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_bth *h) {
    unsigned mb = mrc__m_bit(o);
    int r = mrc__hdr_get(p, len, h, mrc__bth_fd);
    if (r < 0) return r;
    h->m = (uint8_t)((p[1] >> mb) & 1u);
    h->se = (uint8_t)((p[1] >> (13u - mb)) & 1u);
    return r;
}
MRC__PRIVATE MRC__INLINE int mrc__bth_encode_generic(uint8_t *p, size_t cap, const mrc_wire_opts *o, const mrc_bth *h) {
    unsigned mb = mrc__m_bit(o);
    int r = mrc__hdr_put(p, cap, h, mrc__bth_fd);
    if (r < 0) return r;
    if (h->m > 1u || h->se > 1u) {
        MRC_MEMSET(p, 0, MRC_BTH_LEN);
        return MRC_ERR_INVAL;
    }
    p[1] = (uint8_t)(p[1] | (unsigned)h->m << mb | (unsigned)h->se << (13u - mb));
    return r;
}
static const mrc__fdesc mrc__meth_fd[] = {MRC__FDH(MRC_METH_LEN),
    MRC__FD(MRC__METH_RQMSN, mrc_meth, rqmsn),
    MRC__FD(MRC__METH_MSN, mrc_meth, msn),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__meth_decode_generic(const uint8_t *p, size_t len, mrc_meth *h) {
    return mrc__hdr_get(p, len, h, mrc__meth_fd);
}
MRC__PRIVATE MRC__INLINE int mrc__meth_encode_generic(uint8_t *p, size_t cap, const mrc_meth *h) {
    return mrc__hdr_put(p, cap, h, mrc__meth_fd);
}
static const mrc__fdesc mrc__tseth_fd[] = {MRC__FDH(MRC_TSETH_LEN),
    MRC__FD(MRC__TSETH_TS, mrc_tseth, tx_timestamp),
    MRC__FD(MRC__TSETH_TSR, mrc_tseth, tsr),
    MRC__FD(MRC__TSETH_FTYPE, mrc_tseth, ftype),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__tseth_decode_generic(const uint8_t *p, size_t len, mrc_tseth *h) {
    return mrc__hdr_get(p, len, h, mrc__tseth_fd);
}
MRC__PRIVATE MRC__INLINE int mrc__tseth_encode_generic(uint8_t *p, size_t cap, const mrc_tseth *h) {
    return mrc__hdr_put(p, cap, h, mrc__tseth_fd);
}
static const mrc__fdesc mrc__reth_fd[] = {MRC__FDH(MRC_RETH_LEN),
    MRC__FD(MRC__RETH_VA, mrc_reth, va), MRC__FD(MRC__RETH_RKEY, mrc_reth, rkey),
    MRC__FD(MRC__RETH_DMA_LEN, mrc_reth, dma_len),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__reth_decode_generic(const uint8_t *p, size_t len, mrc_reth *h) {
    return mrc__hdr_get(p, len, h, mrc__reth_fd);
}
MRC__PRIVATE MRC__INLINE int mrc__reth_encode_generic(uint8_t *p, size_t cap, const mrc_reth *h) {
    return mrc__hdr_put(p, cap, h, mrc__reth_fd);
}
/* ImmDt: the immediate alone, a uint32_t */
typedef struct mrc__immdt_s {
    uint32_t imm;
} mrc__immdt_s;
static const mrc__fdesc mrc__immdt_fd[] = {MRC__FDH(MRC_IMMDT_LEN),
    MRC__FD(MRC__IMMDT_IMM, mrc__immdt_s, imm),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__immdt_decode_generic(const uint8_t *p, size_t len, uint32_t *imm) {
    return mrc__hdr_get(p, len, imm, mrc__immdt_fd);
}
MRC__PRIVATE MRC__INLINE int mrc__immdt_encode_generic(uint8_t *p, size_t cap, uint32_t imm) {
    return mrc__hdr_put(p, cap, &imm, mrc__immdt_fd);
}
static const mrc__fdesc mrc__aeth_fd[] = {MRC__FDH(MRC_AETH_LEN),
    MRC__FD(MRC__AETH_SYNDROME, mrc_aeth, syndrome),
    MRC__FD(MRC__AETH_MSN, mrc_aeth, msn),
    MRC__FEND};
MRC_API int mrc_aeth_decode(const uint8_t *p, size_t len, mrc_aeth *h) {
    return mrc__hdr_get(p, len, h, mrc__aeth_fd);
}
MRC_API MRC__NOINLINE int mrc_aeth_encode(uint8_t *p, size_t cap, const mrc_aeth *h) {
    return mrc__hdr_put(p, cap, h, mrc__aeth_fd);
}
/* SETH: the bitmap apart from the table (its wire bit order is an option); the offsets are int16_t members */
static const mrc__fdesc mrc__seth_fd[] = {MRC__FDH(MRC_SETH_LEN),
    MRC__FD(MRC__X_TYPE, mrc_seth, type),          MRC__FD(MRC__X_NXT, mrc_seth, nxt),
    MRC__FD(MRC__SETH_M, mrc_seth, m),             MRC__FD(MRC__SETH_PR, mrc_seth, pr),
    MRC__FD(MRC__SETH_ACK_OFF, mrc_seth, ack_psn_offset), MRC__FD(MRC__SETH_ENTROPY, mrc_seth, entropy),
    MRC__FD(MRC__SETH_SPDCID, mrc_seth, spdcid),   MRC__FD(MRC__SETH_DPDCID, mrc_seth, dpdcid),
    MRC__FD(MRC__SETH_CACK, mrc_seth, cack_psn),   MRC__FD(MRC__SETH_CC_TYPE, mrc_seth, cc_type),
    MRC__FD(MRC__SETH_CC_FL, mrc_seth, cc_fl),     MRC__FD(MRC__SETH_MPR, mrc_seth, mpr),
    MRC__FD(MRC__SETH_SACK_OFF, mrc_seth, sack_offset),
    MRC__FEND};
MRC__PRIVATE void mrc__seth_bitmap_get(const uint8_t *p, const mrc_wire_opts *o, mrc_seth *h) {
    uint64_t bm = MRC__GET(p, MRC__SETH_BITMAP);
    h->sack_bitmap = (o && o->sack_msb_first) ? mrc__rev64(bm) : bm;
}
MRC__PRIVATE MRC__INLINE int mrc__seth_decode_generic(const uint8_t *p, size_t len, const mrc_wire_opts *o,
                                                      mrc_seth *h) {
    int r = mrc__hdr_get(p, len, h, mrc__seth_fd);
    if (r < 0) return r;
    mrc__seth_bitmap_get(p, o, h);
    return r;
}
MRC__PRIVATE MRC__NOINLINE int mrc__seth_encode_generic(uint8_t *p, size_t cap, const mrc_wire_opts *o,
                                                      const mrc_seth *h) {
    int r = mrc__hdr_put(p, cap, h, mrc__seth_fd);
    if (r < 0) return r;
    (void)MRC__PUT(p, MRC__SETH_BITMAP, (o && o->sack_msb_first) ? mrc__rev64(h->sack_bitmap) : h->sack_bitmap);
    return r;
}
static const mrc__fdesc mrc__ccs_fd[] = {MRC__FDH(MRC_CCSTATE_LEN),
    MRC__FD(MRC__CCS_TS, mrc_cc_state, tx_timestamp), MRC__FD(MRC__CCS_OOO, mrc_cc_state, ooo_count),
    MRC__FD(MRC__CCS_R_C, mrc_cc_state, r_c),         MRC__FD(MRC__CCS_PEN, mrc_cc_state, rcv_cwnd_pen),
    MRC__FD(MRC__CCS_RCVD, mrc_cc_state, rcvd_bytes),
    MRC__FEND};
MRC__PRIVATE MRC__INLINE int mrc__cc_state_decode_generic(const uint8_t *p, size_t len, mrc_cc_state *h) {
    return mrc__hdr_get(p, len, h, mrc__ccs_fd);
}
MRC__PRIVATE MRC__INLINE int mrc__cc_state_encode_generic(uint8_t *p, size_t cap, const mrc_cc_state *h) {
    return mrc__hdr_put(p, cap, h, mrc__ccs_fd);
}
static const mrc__fdesc mrc__neth_fd[] = {MRC__FDH(MRC_NETH_LEN),
    MRC__FD(MRC__X_TYPE, mrc_neth, type),            MRC__FD(MRC__X_NXT, mrc_neth, nxt),
    MRC__FD(MRC__NETH_REASON, mrc_neth, nack_reason), MRC__FD(MRC__NETH_VENDOR, mrc_neth, vendor_info),
    MRC__FD(MRC__NETH_ENTROPY, mrc_neth, entropy),   MRC__FD(MRC__NETH_SPDCID, mrc_neth, spdcid),
    MRC__FD(MRC__NETH_DPDCID, mrc_neth, dpdcid),     MRC__FD(MRC__NETH_PSN, mrc_neth, nack_psn),
    MRC__FD(MRC__NETH_CC_TYPE, mrc_neth, cc_type),   MRC__FD(MRC__NETH_CC_FL, mrc_neth, cc_fl),
    MRC__FD(MRC__NETH_TS, mrc_neth, tx_timestamp),
    MRC__FEND};
MRC_API int mrc_neth_decode(const uint8_t *p, size_t len, mrc_neth *h) {
    return mrc__hdr_get(p, len, h, mrc__neth_fd);
}
MRC_API MRC__NOINLINE int mrc_neth_encode(uint8_t *p, size_t cap, const mrc_neth *h) {
    return mrc__hdr_put(p, cap, h, mrc__neth_fd);
}
static const mrc__fdesc mrc__peth_fd[] = {MRC__FDH(MRC_PETH_LEN),
    MRC__FD(MRC__X_TYPE, mrc_peth, type),             MRC__FD(MRC__X_NXT, mrc_peth, nxt),
    MRC__FD(MRC__PETH_VENDOR, mrc_peth, vendor_info), MRC__FD(MRC__PETH_PROBE_ID, mrc_peth, probe_id),
    MRC__FD(MRC__PETH_SPDCID, mrc_peth, spdcid),      MRC__FD(MRC__PETH_DPDCID, mrc_peth, dpdcid),
    MRC__FD(MRC__PETH_TS, mrc_peth, tx_timestamp),    MRC__FD(MRC__PETH_TSR, mrc_peth, tsr),
    MRC__FD(MRC__PETH_FTYPE, mrc_peth, ftype),
    MRC__FEND};
MRC_API int mrc_peth_decode(const uint8_t *p, size_t len, mrc_peth *h) {
    return mrc__hdr_get(p, len, h, mrc__peth_fd);
}
MRC_API MRC__NOINLINE int mrc_peth_encode(uint8_t *p, size_t cap, const mrc_peth *h) {
    return mrc__hdr_put(p, cap, h, mrc__peth_fd);
}
static const mrc__fdesc mrc__erth_fd[] = {MRC__FDH(MRC_ERTH_LEN),
    MRC__FD(MRC__X_TYPE, mrc_erth, type),               MRC__FD(MRC__X_NXT, mrc_erth, nxt),
    MRC__FD(MRC__ERTH_OP, mrc_erth, op),                MRC__FD(MRC__ERTH_VENDOR, mrc_erth, vendor_info),
    MRC__FD(MRC__ERTH_PORTMASK, mrc_erth, port_status_mask), MRC__FD(MRC__ERTH_TS, mrc_erth, tx_timestamp),
    MRC__FD(MRC__ERTH_TSR, mrc_erth, tsr),              MRC__FD(MRC__ERTH_FTYPE, mrc_erth, ftype),
    MRC__FEND};
MRC_API int mrc_erth_decode(const uint8_t *p, size_t len, mrc_erth *h) {
    return mrc__hdr_get(p, len, h, mrc__erth_fd);
}
MRC_API MRC__NOINLINE int mrc_erth_encode(uint8_t *p, size_t cap, const mrc_erth *h) {
    return mrc__hdr_put(p, cap, h, mrc__erth_fd);
}
/* EETH: the op sits at a run-time position of byte 1 (Q16b EETH op position), apart from the table */
static const mrc__fdesc mrc__eeth_fd[] = {MRC__FDH(MRC_EETH_LEN),
    MRC__FD(MRC__X_TYPE, mrc_eeth, type), MRC__FD(MRC__X_NXT, mrc_eeth, nxt),
    MRC__FD(MRC__EETH_TS, mrc_eeth, tx_timestamp),
    MRC__FEND};
MRC__PRIVATE void mrc__eeth_op_get(const uint8_t *p, const mrc_wire_opts *o, mrc_eeth *h) {
    unsigned sh = mrc__eeth_shift(o), other = sh == 2 ? 4u : 2u;
    h->op = (uint8_t)mrc__fget(p, 1, 1, sh, 2);
    /* Q16b EETH op position: accept the other position too when the configured one is zero and the other is the only op
     * bits */
    if (h->op == 0 && (p[1] & 0x7Fu & ~(3u << other)) == 0) h->op = (uint8_t)mrc__fget(p, 1, 1, other, 2);
}
MRC_API int mrc_eeth_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_eeth *h) {
    int r = mrc__hdr_get(p, len, h, mrc__eeth_fd);
    if (r < 0) return r;
    mrc__eeth_op_get(p, o, h);
    return r;
}
MRC_API MRC__NOINLINE int mrc_eeth_encode(uint8_t *p, size_t cap, const mrc_wire_opts *o, const mrc_eeth *h) {
    int r = mrc__hdr_put(p, cap, h, mrc__eeth_fd);
    if (r < 0) return r;
    if (h->op > 3u) {
        MRC_MEMSET(p, 0, MRC_EETH_LEN);
        return MRC_ERR_INVAL;
    }
    p[1] = (uint8_t)(p[1] | (unsigned)h->op << mrc__eeth_shift(o));
    return r;
}

/* ---- fixed-offset fast paths ----------------------------------------------------------------------------------------
 * The headers of the data and SACK path (BTH, METH, TSETH, RETH, ImmDt, SETH, CC_STATE) and mrc_pkt_decode for the
 * data opcodes and SACK also have straight-line versions. They use the same table entries as the generic code above,
 * expanded at compile time instead of interpreted at run time, so the tables stay the single source of truth and a
 * layout edit moves both paths: MRC__FX reads a field with constant-offset big-endian byte loads of its span (in 32
 * bits, 64 for an 8-byte span), MRC__FBAD checks a value against the field's width, and the encoders store every
 * header byte exactly once (MRC__FPUT, MRC__FW). Byte-wise: no unaligned access, no type punning, any endianness.
 * Options: the BTH m/se bits sit at a run-time shift in both paths, so either bth_m_bit is fast; SETH is fast with the
 * default LSB-first bitmap (sack_msb_first 0) only and hands the MSB-first order to the generic code. mrc_pkt_decode
 * is fast for the data opcodes, and for SACK when SETH is, once the packet holds every header; other opcodes and
 * short packets go to the generic classifier (so a truncated packet leaves the same partial mrc_pkt and error).
 * The generic functions stay as mrc__*_generic: MRC_CODEC_GENERIC makes the public functions use them, and
 * tests/codec.c and fuzz/fuzz_decode.c check that both paths agree byte for byte and field for field. */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld1(const uint8_t *q) { return q[0]; }
#if MRC__BSWAP_IO
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld2(const uint8_t *q) {
    uint16_t v;
    __builtin_memcpy(&v, q, 2);
    return __builtin_bswap16(v);
}
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld4(const uint8_t *q) {
    uint32_t v;
    __builtin_memcpy(&v, q, 4);
    return __builtin_bswap32(v);
}
#else
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld2(const uint8_t *q) { return (uint32_t)q[0] << 8 | q[1]; }
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld4(const uint8_t *q) {
    return (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
}
#endif
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld3(const uint8_t *q) {
    return (uint32_t)q[0] << 16 | (uint32_t)q[1] << 8 | q[2];
}
MRC__PRIVATE MRC__ALWAYS_INLINE uint64_t mrc__ld8(const uint8_t *q) { return (uint64_t)mrc__ld4(q) << 32 | mrc__ld4(q + 4); }
/* a 3-byte field past the header's first byte is read as the 4 bytes ending with it (one load and byte swap where
 * the target has them) */
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld3_at(const uint8_t *p, unsigned o) {
    return o ? mrc__ld4(p + o - 1) & 0xFFFFFFu : mrc__ld3(p);
}
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st1(uint8_t *q, uint32_t v) { q[0] = (uint8_t)v; }
#if MRC__BSWAP_IO
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st2(uint8_t *q, uint32_t v) {
    uint16_t w = __builtin_bswap16((uint16_t)v);
    __builtin_memcpy(q, &w, 2);
}
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st4(uint8_t *q, uint32_t v) {
    v = __builtin_bswap32(v);
    __builtin_memcpy(q, &v, 4);
}
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st8(uint8_t *q, uint64_t v) {
    v = __builtin_bswap64(v);
    __builtin_memcpy(q, &v, 8);
}
#else
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st2(uint8_t *q, uint32_t v) {
    q[0] = (uint8_t)(v >> 8);
    q[1] = (uint8_t)(v & 0xFFu);
}
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st4(uint8_t *q, uint32_t v) {
    q[0] = (uint8_t)(v >> 24);
    q[1] = (uint8_t)(v >> 16);
    q[2] = (uint8_t)(v >> 8);
    q[3] = (uint8_t)(v & 0xFFu);
}
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st8(uint8_t *q, uint64_t v) {
    mrc__st4(q, (uint32_t)(v >> 32));
    mrc__st4(q + 4, (uint32_t)(v & 0xFFFFFFFFu));
}
#endif
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st3(uint8_t *q, uint32_t v) {
    q[0] = (uint8_t)(v >> 16);
    q[1] = (uint8_t)(v >> 8);
    q[2] = (uint8_t)(v & 0xFFu);
}
#define MRC__FBAD_(o, s, sh, b, v) (((mrc__w##s)(v) & ~MRC__ONES_(s, b)) != 0u)
#define MRC__FBAD(F, v) MRC__FBAD_(F, v)
#define MRC__FENC_PROLOGUE(HLEN)        \
    if (!p || !h) return MRC_ERR_INVAL; \
    if (cap < (size_t)(HLEN)) return MRC_ERR_NOBUF
/* a field too wide: the header is left zeroed and nothing else written, as mrc__hdr_put does */
MRC__PRIVATE MRC__INLINE int mrc__enc_bad(uint8_t *p, size_t n) {
    MRC_MEMSET(p, 0, n);
    return MRC_ERR_INVAL;
}
/* BTH: m and se sit at run-time bit positions of byte 1, as in the generic code */
MRC__PRIVATE MRC__INLINE void mrc__bth_get(const uint8_t *p, unsigned mb, mrc_bth *h) {
    h->opcode = (uint8_t)MRC__FX(p, MRC__BTH_OPCODE);
    h->m = (uint8_t)((p[1] >> mb) & 1u);
    h->se = (uint8_t)((p[1] >> (13u - mb)) & 1u);
    h->pad = (uint8_t)MRC__FX(p, MRC__BTH_PAD);
    h->tver = (uint8_t)MRC__FX(p, MRC__BTH_TVER);
    h->pkey = (uint16_t)MRC__FX(p, MRC__BTH_PKEY);
    h->resv8 = (uint8_t)MRC__FX(p, MRC__BTH_RESV8);
    h->dest_qp = MRC__FX(p, MRC__BTH_DEST_QP);
    h->a = (uint8_t)MRC__FX(p, MRC__BTH_A);
    h->r = (uint8_t)MRC__FX(p, MRC__BTH_R);
    h->rtx = (uint8_t)MRC__FX(p, MRC__BTH_RTX);
    h->ts = (uint8_t)MRC__FX(p, MRC__BTH_TS);
    h->psn = MRC__FX(p, MRC__BTH_PSN);
}
MRC__PRIVATE MRC__INLINE int mrc__bth_decode_fast(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_bth *h) {
    unsigned mb = mrc__m_bit(o);
    MRC__DEC_PROLOGUE(MRC_BTH_LEN);
    mrc__bth_get(p, mb, h);
    return MRC_BTH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__bth_encode_fast(uint8_t *p, size_t cap, const mrc_wire_opts *o,
                                                  const mrc_bth *h) {
    unsigned mb = mrc__m_bit(o);
    MRC__FENC_PROLOGUE(MRC_BTH_LEN);
    if (MRC__FBAD(MRC__BTH_OPCODE, h->opcode) | (h->m > 1u) | (h->se > 1u) | MRC__FBAD(MRC__BTH_PAD, h->pad) |
        MRC__FBAD(MRC__BTH_TVER, h->tver) | MRC__FBAD(MRC__BTH_PKEY, h->pkey) | MRC__FBAD(MRC__BTH_RESV8, h->resv8) |
        MRC__FBAD(MRC__BTH_DEST_QP, h->dest_qp) | MRC__FBAD(MRC__BTH_A, h->a) | MRC__FBAD(MRC__BTH_R, h->r) |
        MRC__FBAD(MRC__BTH_RTX, h->rtx) | MRC__FBAD(MRC__BTH_TS, h->ts) | MRC__FBAD(MRC__BTH_PSN, h->psn))
        return mrc__enc_bad(p, MRC_BTH_LEN);
    MRC__FPUT(p, MRC__BTH_OPCODE, h->opcode);
    mrc__st1(p + 1, (uint32_t)h->m << mb | (uint32_t)h->se << (13u - mb) | MRC__FW(1, 1, MRC__BTH_PAD, h->pad) |
                        MRC__FW(1, 1, MRC__BTH_TVER, h->tver));
    MRC__FPUT(p, MRC__BTH_PKEY, h->pkey);
    MRC__FPUT(p, MRC__BTH_RESV8, h->resv8);
    MRC__FPUT(p, MRC__BTH_DEST_QP, h->dest_qp);
    mrc__st1(p + 8, MRC__FW(8, 1, MRC__BTH_A, h->a) | MRC__FW(8, 1, MRC__BTH_R, h->r) |
                        MRC__FW(8, 1, MRC__BTH_RTX, h->rtx) | MRC__FW(8, 1, MRC__BTH_TS, h->ts));
    MRC__FPUT(p, MRC__BTH_PSN, h->psn);
    return MRC_BTH_LEN;
}
MRC__PRIVATE MRC__INLINE void mrc__meth_get(const uint8_t *p, mrc_meth *h) {
    h->rqmsn = (uint16_t)MRC__FX(p, MRC__METH_RQMSN);
    h->msn = (uint16_t)MRC__FX(p, MRC__METH_MSN);
}
MRC__PRIVATE MRC__INLINE int mrc__meth_decode_fast(const uint8_t *p, size_t len, mrc_meth *h) {
    MRC__DEC_PROLOGUE(MRC_METH_LEN);
    mrc__meth_get(p, h);
    return MRC_METH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__meth_encode_fast(uint8_t *p, size_t cap, const mrc_meth *h) {
    MRC__FENC_PROLOGUE(MRC_METH_LEN);
    if (MRC__FBAD(MRC__METH_RQMSN, h->rqmsn) | MRC__FBAD(MRC__METH_MSN, h->msn)) return mrc__enc_bad(p, MRC_METH_LEN);
    MRC__FPUT(p, MRC__METH_RQMSN, h->rqmsn);
    MRC__FPUT(p, MRC__METH_MSN, h->msn);
    return MRC_METH_LEN;
}
MRC__PRIVATE MRC__INLINE void mrc__tseth_get(const uint8_t *p, mrc_tseth *h) {
    h->tx_timestamp = (uint16_t)MRC__FX(p, MRC__TSETH_TS);
    h->tsr = (uint8_t)MRC__FX(p, MRC__TSETH_TSR);
    h->ftype = (uint8_t)MRC__FX(p, MRC__TSETH_FTYPE);
}
MRC__PRIVATE MRC__INLINE int mrc__tseth_decode_fast(const uint8_t *p, size_t len, mrc_tseth *h) {
    MRC__DEC_PROLOGUE(MRC_TSETH_LEN);
    mrc__tseth_get(p, h);
    return MRC_TSETH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__tseth_encode_fast(uint8_t *p, size_t cap, const mrc_tseth *h) {
    MRC__FENC_PROLOGUE(MRC_TSETH_LEN);
    if (MRC__FBAD(MRC__TSETH_TS, h->tx_timestamp) | MRC__FBAD(MRC__TSETH_TSR, h->tsr) |
        MRC__FBAD(MRC__TSETH_FTYPE, h->ftype))
        return mrc__enc_bad(p, MRC_TSETH_LEN);
    MRC__FPUT(p, MRC__TSETH_TS, h->tx_timestamp);
    MRC__FPUT(p, MRC__TSETH_TSR, h->tsr);
    MRC__FPUT(p, MRC__TSETH_FTYPE, h->ftype);
    return MRC_TSETH_LEN;
}
MRC__PRIVATE MRC__INLINE void mrc__reth_get(const uint8_t *p, mrc_reth *h) {
    h->va = MRC__FX(p, MRC__RETH_VA);
    h->rkey = MRC__FX(p, MRC__RETH_RKEY);
    h->dma_len = MRC__FX(p, MRC__RETH_DMA_LEN);
}
MRC__PRIVATE MRC__INLINE int mrc__reth_decode_fast(const uint8_t *p, size_t len, mrc_reth *h) {
    MRC__DEC_PROLOGUE(MRC_RETH_LEN);
    mrc__reth_get(p, h);
    return MRC_RETH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__reth_encode_fast(uint8_t *p, size_t cap, const mrc_reth *h) {
    MRC__FENC_PROLOGUE(MRC_RETH_LEN);
    if (MRC__FBAD(MRC__RETH_VA, h->va) | MRC__FBAD(MRC__RETH_RKEY, h->rkey) | MRC__FBAD(MRC__RETH_DMA_LEN, h->dma_len))
        return mrc__enc_bad(p, MRC_RETH_LEN);
    MRC__FPUT(p, MRC__RETH_VA, h->va);
    MRC__FPUT(p, MRC__RETH_RKEY, h->rkey);
    MRC__FPUT(p, MRC__RETH_DMA_LEN, h->dma_len);
    return MRC_RETH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__immdt_decode_fast(const uint8_t *p, size_t len, uint32_t *imm) {
    uint32_t *h = imm;
    MRC__DEC_PROLOGUE(MRC_IMMDT_LEN);
    *h = MRC__FX(p, MRC__IMMDT_IMM);
    return MRC_IMMDT_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__immdt_encode_fast(uint8_t *p, size_t cap, uint32_t imm) {
    const uint32_t *h = &imm;
    MRC__FENC_PROLOGUE(MRC_IMMDT_LEN);
    if (MRC__FBAD(MRC__IMMDT_IMM, *h)) return mrc__enc_bad(p, MRC_IMMDT_LEN);
    MRC__FPUT(p, MRC__IMMDT_IMM, *h);
    return MRC_IMMDT_LEN;
}
/* SETH: the fast code stores the bitmap as it is on the wire, which is the LSB-first order only */
MRC__PRIVATE MRC__INLINE int mrc__seth_fast_ok(const mrc_wire_opts *o) { return !(o && o->sack_msb_first); }
MRC__PRIVATE MRC__INLINE void mrc__seth_get(const uint8_t *p, mrc_seth *h) {
    h->type = (uint8_t)MRC__FX(p, MRC__X_TYPE);
    h->nxt = (uint8_t)MRC__FX(p, MRC__X_NXT);
    h->m = (uint8_t)MRC__FX(p, MRC__SETH_M);
    h->pr = (uint8_t)MRC__FX(p, MRC__SETH_PR);
    h->ack_psn_offset = mrc__s16((uint16_t)MRC__FX(p, MRC__SETH_ACK_OFF));
    h->entropy = MRC__FX(p, MRC__SETH_ENTROPY);
    h->spdcid = (uint16_t)MRC__FX(p, MRC__SETH_SPDCID);
    h->dpdcid = (uint16_t)MRC__FX(p, MRC__SETH_DPDCID);
    h->cack_psn = MRC__FX(p, MRC__SETH_CACK);
    h->cc_type = (uint8_t)MRC__FX(p, MRC__SETH_CC_TYPE);
    h->cc_fl = (uint8_t)MRC__FX(p, MRC__SETH_CC_FL);
    h->mpr = (uint8_t)MRC__FX(p, MRC__SETH_MPR);
    h->sack_offset = mrc__s16((uint16_t)MRC__FX(p, MRC__SETH_SACK_OFF));
    h->sack_bitmap = MRC__FX(p, MRC__SETH_BITMAP);
}
MRC__PRIVATE MRC__INLINE int mrc__seth_decode_fast(const uint8_t *p, size_t len, const mrc_wire_opts *o,
                                                   mrc_seth *h) {
    if (!mrc__seth_fast_ok(o)) return mrc__seth_decode_generic(p, len, o, h);
    MRC__DEC_PROLOGUE(MRC_SETH_LEN);
    mrc__seth_get(p, h);
    return MRC_SETH_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__seth_encode_fast(uint8_t *p, size_t cap, const mrc_wire_opts *o,
                                                   const mrc_seth *h) {
    uint16_t ack_off, sack_off;
    if (!mrc__seth_fast_ok(o)) return mrc__seth_encode_generic(p, cap, o, h);
    MRC__FENC_PROLOGUE(MRC_SETH_LEN);
    ack_off = (uint16_t)h->ack_psn_offset;
    sack_off = (uint16_t)h->sack_offset;
    if (MRC__FBAD(MRC__X_TYPE, h->type) | MRC__FBAD(MRC__X_NXT, h->nxt) | MRC__FBAD(MRC__SETH_M, h->m) |
        MRC__FBAD(MRC__SETH_PR, h->pr) | MRC__FBAD(MRC__SETH_ACK_OFF, ack_off) |
        MRC__FBAD(MRC__SETH_ENTROPY, h->entropy) | MRC__FBAD(MRC__SETH_SPDCID, h->spdcid) |
        MRC__FBAD(MRC__SETH_DPDCID, h->dpdcid) | MRC__FBAD(MRC__SETH_CACK, h->cack_psn) |
        MRC__FBAD(MRC__SETH_CC_TYPE, h->cc_type) | MRC__FBAD(MRC__SETH_CC_FL, h->cc_fl) |
        MRC__FBAD(MRC__SETH_MPR, h->mpr) | MRC__FBAD(MRC__SETH_SACK_OFF, sack_off) |
        MRC__FBAD(MRC__SETH_BITMAP, h->sack_bitmap))
        return mrc__enc_bad(p, MRC_SETH_LEN);
    mrc__st2(p, MRC__FW(0, 2, MRC__X_TYPE, h->type) | MRC__FW(0, 2, MRC__X_NXT, h->nxt) |
                    MRC__FW(0, 2, MRC__SETH_M, h->m) | MRC__FW(0, 2, MRC__SETH_PR, h->pr));
    MRC__FPUT(p, MRC__SETH_ACK_OFF, ack_off);
    MRC__FPUT(p, MRC__SETH_ENTROPY, h->entropy);
    MRC__FPUT(p, MRC__SETH_SPDCID, h->spdcid);
    MRC__FPUT(p, MRC__SETH_DPDCID, h->dpdcid);
    mrc__st4(p + 12, MRC__FW(12, 4, MRC__SETH_CACK, h->cack_psn)); /* byte 12 reserved */
    mrc__st1(p + 16, MRC__FW(16, 1, MRC__SETH_CC_TYPE, h->cc_type) | MRC__FW(16, 1, MRC__SETH_CC_FL, h->cc_fl));
    MRC__FPUT(p, MRC__SETH_MPR, h->mpr);
    MRC__FPUT(p, MRC__SETH_SACK_OFF, sack_off);
    MRC__FPUT(p, MRC__SETH_BITMAP, h->sack_bitmap);
    return MRC_SETH_LEN;
}
MRC__PRIVATE MRC__INLINE void mrc__cc_state_get(const uint8_t *p, mrc_cc_state *h) {
    h->tx_timestamp = (uint16_t)MRC__FX(p, MRC__CCS_TS);
    h->ooo_count = (uint16_t)MRC__FX(p, MRC__CCS_OOO);
    h->r_c = (uint8_t)MRC__FX(p, MRC__CCS_R_C);
    h->rcv_cwnd_pen = (uint8_t)MRC__FX(p, MRC__CCS_PEN);
    h->rcvd_bytes = MRC__FX(p, MRC__CCS_RCVD);
}
MRC__PRIVATE MRC__INLINE int mrc__cc_state_decode_fast(const uint8_t *p, size_t len, mrc_cc_state *h) {
    MRC__DEC_PROLOGUE(MRC_CCSTATE_LEN);
    mrc__cc_state_get(p, h);
    return MRC_CCSTATE_LEN;
}
MRC__PRIVATE MRC__INLINE int mrc__cc_state_encode_fast(uint8_t *p, size_t cap, const mrc_cc_state *h) {
    MRC__FENC_PROLOGUE(MRC_CCSTATE_LEN);
    if (MRC__FBAD(MRC__CCS_TS, h->tx_timestamp) | MRC__FBAD(MRC__CCS_OOO, h->ooo_count) |
        MRC__FBAD(MRC__CCS_R_C, h->r_c) | MRC__FBAD(MRC__CCS_PEN, h->rcv_cwnd_pen) |
        MRC__FBAD(MRC__CCS_RCVD, h->rcvd_bytes))
        return mrc__enc_bad(p, MRC_CCSTATE_LEN);
    MRC__FPUT(p, MRC__CCS_TS, h->tx_timestamp);
    MRC__FPUT(p, MRC__CCS_OOO, h->ooo_count);
    mrc__st1(p + 4, MRC__FW(4, 1, MRC__CCS_R_C, h->r_c) | MRC__FW(4, 1, MRC__CCS_PEN, h->rcv_cwnd_pen));
    MRC__FPUT(p, MRC__CCS_RCVD, h->rcvd_bytes);
    return MRC_CCSTATE_LEN;
}
/* The public entry points of the headers above. The three the core sends its control packets through (BTH, SETH and
 * CC_STATE encoders) take the fast path, or the generic one under MRC_CODEC_GENERIC and gcc -Os (a firmware: about
 * 350 B less on Cortex-M4; the clean stream's SACKs are mrc__rsp_fast_sack's own stores); the others - the core never
 * calls them: its receive and data paths use the fast functions directly - take the table code, the same results in
 * less code (tests/codec.c compares the three for every header) */
#if defined(MRC_CODEC_GENERIC) || defined(__OPTIMIZE_SIZE__)
#define MRC__CODEC(f) mrc__##f##_generic
#else
#define MRC__CODEC(f) mrc__##f##_fast
#endif
MRC_API int mrc_bth_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_bth *h) {
    return mrc__bth_decode_generic(p, len, o, h);
}
MRC_API int mrc_bth_encode(uint8_t *p, size_t cap, const mrc_wire_opts *o, const mrc_bth *h) {
    return MRC__CODEC(bth_encode)(p, cap, o, h);
}
MRC_API int mrc_meth_decode(const uint8_t *p, size_t len, mrc_meth *h) { return mrc__meth_decode_generic(p, len, h); }
MRC_API int mrc_meth_encode(uint8_t *p, size_t cap, const mrc_meth *h) { return mrc__meth_encode_generic(p, cap, h); }
MRC_API int mrc_tseth_decode(const uint8_t *p, size_t len, mrc_tseth *h) {
    return mrc__tseth_decode_generic(p, len, h);
}
MRC_API int mrc_tseth_encode(uint8_t *p, size_t cap, const mrc_tseth *h) {
    return mrc__tseth_encode_generic(p, cap, h);
}
MRC_API int mrc_reth_decode(const uint8_t *p, size_t len, mrc_reth *h) { return mrc__reth_decode_generic(p, len, h); }
MRC_API int mrc_reth_encode(uint8_t *p, size_t cap, const mrc_reth *h) { return mrc__reth_encode_generic(p, cap, h); }
MRC_API int mrc_immdt_decode(const uint8_t *p, size_t len, uint32_t *imm) {
    return mrc__immdt_decode_generic(p, len, imm);
}
MRC_API int mrc_immdt_encode(uint8_t *p, size_t cap, uint32_t imm) { return mrc__immdt_encode_generic(p, cap, imm); }
MRC_API int mrc_seth_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_seth *h) {
    return mrc__seth_decode_generic(p, len, o, h);
}
MRC_API int mrc_seth_encode(uint8_t *p, size_t cap, const mrc_wire_opts *o, const mrc_seth *h) {
    return MRC__CODEC(seth_encode)(p, cap, o, h);
}
MRC_API int mrc_cc_state_decode(const uint8_t *p, size_t len, mrc_cc_state *h) {
    return mrc__cc_state_decode_generic(p, len, h);
}
MRC_API int mrc_cc_state_encode(uint8_t *p, size_t cap, const mrc_cc_state *h) {
    return MRC__CODEC(cc_state_encode)(p, cap, h);
}

/* ---- packet classifier -------------------------------------------------------------------------------------- */
MRC_API uint32_t mrc_opcode_hdrs(unsigned opcode) {
    switch (opcode) {
    case MRC_OP_WRITE_FIRST: case MRC_OP_WRITE_MIDDLE: case MRC_OP_WRITE_LAST: case MRC_OP_WRITE_ONLY:
        return MRC_HDR_METH | MRC_HDR_RETH;
    case MRC_OP_WRITE_LAST_IMM: case MRC_OP_WRITE_ONLY_IMM:
        return MRC_HDR_METH | MRC_HDR_RETH | MRC_HDR_IMMDT;
    case MRC_OP_ACK: return MRC_HDR_AETH;
    case MRC_OP_EP_REQ: return MRC_HDR_ERTH;
    case MRC_OP_EP_RSP: return MRC_HDR_EETH;
    case MRC_OP_SACK: return MRC_HDR_SETH | MRC_HDR_CCSTATE;
    case MRC_OP_NACK: return MRC_HDR_NETH;
    case MRC_OP_PROBE_REQ: return MRC_HDR_PETH;
    default: return 0;
    }
}
/* What follows the headers: hdr_len, then the pad and cut rules and payload_len (both classifiers end here) */
MRC__PRIVATE MRC__INLINE int mrc__pkt_finish(mrc_pkt *k, size_t len, size_t off, uint32_t want) {
    k->hdr_len = (uint32_t)off;
    if (len - off < k->bth.pad) {
        /* a switch that trims a data packet cuts into its pad too; the responder NACKs it (Q17 trim recognition) */
        if (!(want & MRC_HDR_METH)) return MRC_ERR_MALFORMED;
        k->flags |= MRC_PKT_CUT;
        return MRC_OK;
    }
    /* more than 32 bits of payload (64-bit size_t) */
    if (((uint64_t)(len - off - k->bth.pad) >> 16 >> 16) != 0u) return MRC_ERR_MALFORMED;
    k->payload_len = (uint32_t)(len - off - k->bth.pad);
    return MRC_OK;
}
/* The headers after BTH in wire order, each where it is decoded in mrc_pkt, with its length and table (TSETH: a data
 * packet's with the BTH ts bit; SETH's bitmap and EETH's op are outside their tables) */
typedef struct mrc__hstep {
    const mrc__fdesc *fd;
    uint16_t flag, koff;
} mrc__hstep;
#define MRC__HSTEP(F, m, L, t) {t, F, (uint16_t)offsetof(mrc_pkt, m)}
static const mrc__hstep mrc__hsteps[] = {
    MRC__HSTEP(MRC_HDR_METH, meth, MRC_METH_LEN, mrc__meth_fd),
    MRC__HSTEP(MRC_HDR_TSETH, tseth, MRC_TSETH_LEN, mrc__tseth_fd),
    MRC__HSTEP(MRC_HDR_RETH, reth, MRC_RETH_LEN, mrc__reth_fd),
    MRC__HSTEP(MRC_HDR_IMMDT, imm, MRC_IMMDT_LEN, mrc__immdt_fd),
    MRC__HSTEP(MRC_HDR_AETH, aeth, MRC_AETH_LEN, mrc__aeth_fd),
    MRC__HSTEP(MRC_HDR_SETH, seth, MRC_SETH_LEN, mrc__seth_fd),
    MRC__HSTEP(MRC_HDR_CCSTATE, cc, MRC_CCSTATE_LEN, mrc__ccs_fd),
    MRC__HSTEP(MRC_HDR_NETH, neth, MRC_NETH_LEN, mrc__neth_fd),
    MRC__HSTEP(MRC_HDR_PETH, peth, MRC_PETH_LEN, mrc__peth_fd),
    MRC__HSTEP(MRC_HDR_ERTH, erth, MRC_ERTH_LEN, mrc__erth_fd),
    MRC__HSTEP(MRC_HDR_EETH, eeth, MRC_EETH_LEN, mrc__eeth_fd)};
MRC__PRIVATE MRC__NOINLINE int mrc__pkt_decode_generic(const uint8_t *p, size_t len, const mrc_wire_opts *o,
                                                      mrc_pkt *k) {
    size_t off;
    uint32_t want, has;
    unsigned i;
    int r;
    if (!p || !k) return MRC_ERR_INVAL;
    MRC_MEMSET(k, 0, sizeof *k);
    r = mrc__bth_decode_generic(p, len, o, &k->bth);
    if (r < 0) return r;
    off = MRC_BTH_LEN;
    want = mrc_opcode_hdrs(k->bth.opcode);
    if (!want) return MRC_ERR_MALFORMED;
    has = want | ((want & MRC_HDR_METH) && k->bth.ts ? (uint32_t)MRC_HDR_TSETH : 0u);
    /* each header bounds-checks through its decoder: a short packet stops at the first missing one */
    for (i = 0; i < MRC__NF(mrc__hsteps); i++) {
        const mrc__hstep *s = &mrc__hsteps[i];
        if (!(has & s->flag)) continue;
        r = mrc__hdr_get(p + off, len - off, (uint8_t *)k + s->koff, s->fd);
        if (r < 0) return r;
        if (s->flag == MRC_HDR_SETH) mrc__seth_bitmap_get(p + off, o, &k->seth);
        if (s->flag == MRC_HDR_EETH) mrc__eeth_op_get(p + off, o, &k->eeth);
        off += (size_t)r;
        k->hdrs |= s->flag;
    }
    return mrc__pkt_finish(k, len, off, want);
}
/* The classifier's fast path: the data opcodes (BTH METH [TSETH] RETH [ImmDt]) and SACK (BTH SETH CC_STATE, LSB-first
 * bitmap) when every header is there, at fixed offsets; everything else goes to the generic classifier. With
 * `whole`, the mrc_pkt is zeroed first, as the generic classifier does (mrc_pkt_decode's contract); without it
 * (mrc_endpoint_recv) only the members these opcodes define are written - the bookkeeping, every header the opcode
 * has, and TSETH and the immediate of a data packet without them - and the other headers are left as they were:
 * the receive path reads a header only where the opcode has it (MRC_DEBUG_PKT_POISON fills them with 0xA5 bytes
 * instead, to prove it in tests). */
#if defined(MRC_DEBUG_PKT_POISON)
#define MRC__PKT_REST(k) MRC_MEMSET(&(k)->aeth, 0xA5, sizeof *(k) - offsetof(mrc_pkt, aeth))
#define MRC__PKT_REST_SACK(k)                                                                                        \
    (MRC_MEMSET(&(k)->meth, 0xA5, offsetof(mrc_pkt, seth) - offsetof(mrc_pkt, meth)),                     \
     MRC_MEMSET(&(k)->neth, 0xA5, sizeof *(k) - offsetof(mrc_pkt, neth)))
#else
#define MRC__PKT_REST(k) ((void)0)
#define MRC__PKT_REST_SACK(k) ((void)0)
#endif
MRC__PRIVATE MRC__INLINE int mrc__pkt_decode_fast(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_pkt *k,
                                                  bool whole) {
    if (p && k && len >= MRC_BTH_LEN) {
        uint32_t want = mrc_opcode_hdrs(MRC__FX(p, MRC__BTH_OPCODE));
        size_t off;
        if ((want & ~(uint32_t)MRC_HDR_IMMDT) == (uint32_t)(MRC_HDR_METH | MRC_HDR_RETH)) {
            uint32_t ts = MRC__FX(p, MRC__BTH_TS);
            const uint8_t *q = p + MRC_BTH_LEN + MRC_METH_LEN;
            off = (size_t)MRC_BTH_LEN + MRC_METH_LEN + MRC_RETH_LEN + (ts ? (size_t)MRC_TSETH_LEN : 0u) +
                  ((want & MRC_HDR_IMMDT) ? (size_t)MRC_IMMDT_LEN : 0u);
            if (len >= off) {
                if (whole) {
                    MRC_MEMSET(k, 0, sizeof *k);
                } else {
                    k->payload_len = k->flags = k->imm = 0;
                    MRC_MEMSET(&k->tseth, 0, sizeof k->tseth);
                    MRC__PKT_REST(k);
                }
                mrc__bth_get(p, mrc__m_bit(o), &k->bth);
                mrc__meth_get(p + MRC_BTH_LEN, &k->meth);
                if (ts) {
                    mrc__tseth_get(q, &k->tseth);
                    q += MRC_TSETH_LEN;
                    want |= MRC_HDR_TSETH;
                }
                mrc__reth_get(q, &k->reth);
                if (want & MRC_HDR_IMMDT) k->imm = MRC__FX(q + MRC_RETH_LEN, MRC__IMMDT_IMM);
                k->hdrs = want;
                return mrc__pkt_finish(k, len, off, want);
            }
        } else if (want == (uint32_t)(MRC_HDR_SETH | MRC_HDR_CCSTATE) && mrc__seth_fast_ok(o)) {
            off = (size_t)MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN;
            if (len >= off) {
                if (whole) {
                    MRC_MEMSET(k, 0, sizeof *k);
                } else {
                    k->payload_len = k->flags = 0;
                    MRC__PKT_REST_SACK(k);
                }
                mrc__bth_get(p, mrc__m_bit(o), &k->bth);
                mrc__seth_get(p + MRC_BTH_LEN, &k->seth);
                mrc__cc_state_get(p + MRC_BTH_LEN + MRC_SETH_LEN, &k->cc);
                k->hdrs = want;
                return mrc__pkt_finish(k, len, off, want);
            }
        }
    }
    return mrc__pkt_decode_generic(p, len, o, k);
}
/* The public classifier through the table code, like the per-header decoders: the same results (tests/codec.c and
 * fuzz/fuzz_decode.c compare it with the fast one), and the fast one is then the general receive path's alone */
MRC_API int mrc_pkt_decode(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_pkt *k) {
    return mrc__pkt_decode_generic(p, len, o, k);
}

/* ---- CRC-32 and the RoCEv2 ICRC (docs/PROTOCOL.md "ICRC", Q15 ICRC and SRv6) -------------------------------- */
MRC_API uint32_t mrc_crc32(uint32_t crc, const uint8_t *p, size_t n) {
    static const uint32_t t[16] = {0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
                                   0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
                                   0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};
    crc = ~crc;
    if (!p) return ~crc;
    while (n--) {
        crc ^= *p++;
        crc = (crc >> 4) ^ t[crc & 15u];
        crc = (crc >> 4) ^ t[crc & 15u];
    }
    return ~crc;
}
MRC_API uint32_t mrc_icrc(const uint8_t *l3, size_t len) {
    static const uint8_t lrh[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    uint8_t h[60 + 8 + MRC_BTH_LEN];
    size_t iphl, n;
    uint32_t crc;
    if (!l3 || len < 1) return 0;
    if ((l3[0] >> 4) == 4) {
        iphl = (size_t)(l3[0] & 15u) * 4u;
        if (iphl < 20) return 0;
    } else if ((l3[0] >> 4) == 6) {
        iphl = 40;
    } else {
        return 0;
    }
    n = iphl + 8 + MRC_BTH_LEN;
    if (len < n) return 0;
    MRC_MEMCPY(h, l3, n);
    if (iphl == 40 && (l3[0] >> 4) == 6) {
        h[0] |= 0x0Fu; /* traffic class (high nibble) */
        h[1] = 0xFF;   /* traffic class (low nibble) + flow label */
        h[2] = 0xFF;
        h[3] = 0xFF;
        h[7] = 0xFF;   /* hop limit */
    } else {
        h[1] = 0xFF;   /* TOS */
        h[8] = 0xFF;   /* TTL */
        h[10] = 0xFF;  /* header checksum */
        h[11] = 0xFF;
    }
    h[iphl + 6] = 0xFF; /* UDP checksum */
    h[iphl + 7] = 0xFF;
    h[iphl + 8 + 4] = 0xFF; /* BTH byte 4 (resv8a) */
    crc = mrc_crc32(0, lrh, sizeof lrh);
    crc = mrc_crc32(crc, h, n);
    return mrc_crc32(crc, l3 + n, len - n);
}
MRC_API void mrc_icrc_put(uint8_t out[4], uint32_t icrc) {
    out[0] = (uint8_t)(icrc & 0xFFu);
    out[1] = (uint8_t)((icrc >> 8) & 0xFFu);
    out[2] = (uint8_t)((icrc >> 16) & 0xFFu);
    out[3] = (uint8_t)((icrc >> 24) & 0xFFu);
}
MRC_API uint32_t mrc_icrc_get(const uint8_t in[4]) {
    return (uint32_t)in[0] | ((uint32_t)in[1] << 8) | ((uint32_t)in[2] << 16) | ((uint32_t)in[3] << 24);
}

/* ---- NACK reasons (docs/PROTOCOL.md 3.4): which ones the requester retransmits ------------------------------ */
MRC_API bool mrc_nack_is_retriable(unsigned reason) {
    switch (reason) {
    case MRC_NACK_TRIMMED: case MRC_NACK_TRIMMED_LASTHOP: case MRC_NACK_NO_BITMAP: case MRC_NACK_NO_PKT_BUFFER:
    case MRC_NACK_NO_RESOURCE: case MRC_NACK_PSN_OOR_WINDOW:
        return true;
    default: return false;
    }
}
