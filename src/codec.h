/* ================================================================================================================
 * CODEC: what src/codec.c offers the layers above it
 * The layout of every header as ONE table of field descriptors, read by the generic encoders and decoders (which
 * interpret it at run time) and by the fixed-offset fast paths here and in the endpoint loop (which expand it at
 * compile time), so a layout correction is a one-line edit. A descriptor is
 *     byte offset, span (bytes read as one big-endian word), shift (bits from the word's LSB), width (bits)
 * The public codec (mrc_*_encode, mrc_*_decode, mrc_pkt_decode, mrc_psn_*, mrc_icrc) is declared in the API.
 * Facts marked [inferred] in docs/PROTOCOL.md are the ones to re-check against the spec PDF.
 * ============================================================================================================== */
#ifndef MRC__SRC_CODEC_H
#define MRC__SRC_CODEC_H
#include "internal.h"

/* ---- header layouts (docs/PROTOCOL.md section 3.3) ------------------------------------------------------------ */
/* BTH, 12 bytes (spec Table 6-3/7-10). m/se positions are a runtime choice (mrc_wire_opts.bth_m_bit, Q1 BTH bit order).
 * */
#define MRC__BTH_OPCODE     0, 1, 0, 8
#define MRC__BTH_PAD        1, 1, 4, 2
#define MRC__BTH_TVER       1, 1, 0, 4
#define MRC__BTH_PKEY       2, 2, 0, 16
#define MRC__BTH_RESV8      4, 1, 0, 8
#define MRC__BTH_DEST_QP    5, 3, 0, 24
#define MRC__BTH_A          8, 1, 7, 1
#define MRC__BTH_R          8, 1, 6, 1
#define MRC__BTH_RTX        8, 1, 5, 1
#define MRC__BTH_TS         8, 1, 4, 1
#define MRC__BTH_PSN        9, 3, 0, 24
/* METH, 4 bytes (Table 6-8) */
#define MRC__METH_RQMSN     0, 2, 0, 16
#define MRC__METH_MSN       2, 2, 0, 16
/* TSETH, 4 bytes (Table 6-6) */
#define MRC__TSETH_TS       0, 2, 0, 16
#define MRC__TSETH_TSR      2, 1, 7, 1
#define MRC__TSETH_FTYPE    3, 1, 0, 4
/* RETH, 16 bytes (Table 6-5) */
#define MRC__RETH_VA        0, 8, 0, 64
#define MRC__RETH_RKEY      8, 4, 0, 32
#define MRC__RETH_DMA_LEN   12, 4, 0, 32
/* ImmDt, 4 bytes */
#define MRC__IMMDT_IMM      0, 4, 0, 32
/* AETH, 4 bytes (IBTA) */
#define MRC__AETH_SYNDROME  0, 1, 0, 8
#define MRC__AETH_MSN       1, 3, 0, 24
/* common prefix of SETH, NETH, PETH, ERTH, EETH */
#define MRC__X_TYPE         0, 1, 4, 4
#define MRC__X_NXT          0, 2, 7, 5
/* SETH, 28 bytes (Table 7-14) */
#define MRC__SETH_M         1, 1, 5, 2
#define MRC__SETH_PR        1, 1, 1, 1
#define MRC__SETH_ACK_OFF   2, 2, 0, 16
#define MRC__SETH_ENTROPY   4, 4, 0, 32
#define MRC__SETH_SPDCID    8, 2, 0, 16
#define MRC__SETH_DPDCID    10, 2, 0, 16
#define MRC__SETH_CACK      13, 3, 0, 24
#define MRC__SETH_CC_TYPE   16, 1, 4, 4
#define MRC__SETH_CC_FL     16, 1, 0, 4
#define MRC__SETH_MPR       17, 1, 0, 8
#define MRC__SETH_SACK_OFF  18, 2, 0, 16
#define MRC__SETH_BITMAP    20, 8, 0, 64
/* CC_STATE, 8 bytes (Table 7-12) */
#define MRC__CCS_TS         0, 2, 0, 16
#define MRC__CCS_OOO        2, 2, 0, 15
#define MRC__CCS_R_C        4, 1, 7, 1
#define MRC__CCS_PEN        4, 1, 0, 7
#define MRC__CCS_RCVD       5, 3, 0, 24
/* NETH, 20 bytes (Table 7-16) */
#define MRC__NETH_REASON    2, 1, 0, 8
#define MRC__NETH_VENDOR    3, 1, 0, 8
#define MRC__NETH_ENTROPY   4, 4, 0, 32
#define MRC__NETH_SPDCID    8, 2, 0, 16
#define MRC__NETH_DPDCID    10, 2, 0, 16
#define MRC__NETH_PSN       13, 3, 0, 24
#define MRC__NETH_CC_TYPE   16, 1, 4, 4
#define MRC__NETH_CC_FL     16, 1, 0, 4
#define MRC__NETH_TS        18, 2, 0, 16
/* PETH, 16 bytes (Table 7-18) */
#define MRC__PETH_VENDOR    3, 1, 0, 8
#define MRC__PETH_PROBE_ID  4, 2, 0, 16
#define MRC__PETH_SPDCID    8, 2, 0, 16
#define MRC__PETH_DPDCID    10, 2, 0, 16
#define MRC__PETH_TS        12, 2, 0, 16
#define MRC__PETH_TSR       14, 1, 7, 1
#define MRC__PETH_FTYPE     15, 1, 0, 4
/* ERTH, 16 bytes (Table 7-20) */
#define MRC__ERTH_OP        1, 1, 0, 2
#define MRC__ERTH_VENDOR    3, 1, 0, 8
#define MRC__ERTH_PORTMASK  4, 4, 0, 32
#define MRC__ERTH_TS        12, 2, 0, 16
#define MRC__ERTH_TSR       14, 1, 7, 1
#define MRC__ERTH_FTYPE     15, 1, 0, 4
/* EETH, 36 bytes (Table 7-22); op position is a runtime choice (mrc_wire_opts.eeth_op_shift, Q16b EETH op position) */
#define MRC__EETH_TS        28, 2, 0, 16

/* ---- fixed-offset field access: constant-offset big-endian loads and stores of a field's span ------------------ */
/* Big-endian loads and stores. On little-endian x86 and AArch64 with GCC or Clang, and on 32-bit Arm when the
 * compiler may access memory unaligned (__ARM_FEATURE_UNALIGNED: v7-M without -mno-unaligned-access), 2-, 4- and
 * 8-byte ones are one unaligned access and a byte swap (compilers do not always merge the byte-wise form when many
 * fields are written in a row); everywhere else, and with MRC_CODEC_BYTEWISE, the portable byte-wise C99. They are
 * always inlined (MRC__ALWAYS_INLINE): gcc -Os otherwise keeps them as functions, a call per header field. */
#if !defined(MRC_CODEC_BYTEWISE) && (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) &&      \
    defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&                                \
    (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) ||                                           \
     (defined(__arm__) && defined(__ARM_FEATURE_UNALIGNED)))
#define MRC__BSWAP_IO 1
#else
#define MRC__BSWAP_IO 0
#endif
typedef uint32_t mrc__w1, mrc__w2, mrc__w3, mrc__w4; /* the word a field of span 1..4 is read in */
typedef uint64_t mrc__w8;
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld1(const uint8_t *q);
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld2(const uint8_t *q);
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld3(const uint8_t *q);
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld4(const uint8_t *q);
MRC__PRIVATE MRC__ALWAYS_INLINE uint64_t mrc__ld8(const uint8_t *q);
MRC__PRIVATE MRC__ALWAYS_INLINE uint32_t mrc__ld3_at(const uint8_t *p, unsigned o);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st1(uint8_t *q, uint32_t v);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st2(uint8_t *q, uint32_t v);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st3(uint8_t *q, uint32_t v);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st4(uint8_t *q, uint32_t v);
MRC__PRIVATE MRC__ALWAYS_INLINE void mrc__st8(uint8_t *q, uint64_t v);
#define MRC__LD_AT1(p, o) mrc__ld1((p) + (o))
#define MRC__LD_AT2(p, o) mrc__ld2((p) + (o))
#define MRC__LD_AT3(p, o) mrc__ld3_at((p), (o))
#define MRC__LD_AT4(p, o) mrc__ld4((p) + (o))
#define MRC__LD_AT8(p, o) mrc__ld8((p) + (o))
/* MRC__FX(p, F): field F of the header at p */
#define MRC__ONES_(s, b) (~(mrc__w##s)0 >> (8u * sizeof(mrc__w##s) - (b)))
#define MRC__FX_(p, o, s, sh, b) ((MRC__LD_AT##s(p, o) >> (sh)) & MRC__ONES_(s, b))
#define MRC__FX(p, F) MRC__FX_(p, F)
/* The encoders store every header byte exactly once: a field that owns its bytes with MRC__FPUT, and the fields
 * sharing bytes [base, base + n) ORed together with MRC__FW into one store of n bytes (the build fails when the table
 * puts such a field outside those bytes). */
#define MRC__FPUT_(p, o, s, sh, b, v) mrc__st##s((p) + (o), (mrc__w##s)(v) << (sh))
#define MRC__FPUT(p, F, v) MRC__FPUT_(p, F, v)
#define MRC__FW_(base, n, o, s, sh, b, v)                                                                              \
    ((mrc__w##n)(v) << ((sh) + 8u * ((base) + (n) - (o) - (s)) *                                                     \
                                   sizeof(char[(o) >= (base) && (o) + (s) <= (base) + (n) ? 1 : -1])))
#define MRC__FW(base, n, F, v) MRC__FW_(base, n, F, v)
MRC__PRIVATE MRC__INLINE int16_t mrc__s16(uint16_t u);                 /* a 16-bit field as signed */
MRC__PRIVATE MRC__INLINE unsigned mrc__m_bit(const mrc_wire_opts *o);  /* BTH m bit position (Q1 BTH bit order) */
MRC__PRIVATE MRC__INLINE int mrc__seth_fast_ok(const mrc_wire_opts *o); /* SETH takes the fast path */
MRC__PRIVATE MRC__SIZE_NOINLINE uint64_t mrc__rev64(uint64_t v); /* bit order reversed (sack_msb_first) */

/* ---- PSN serial arithmetic ------------------------------------------------------------------------------------ */
#define MRC__PSN_INC(x) (((x) + 1u) & MRC_PSN_MASK)
#define MRC__PSN_DEC(x) (((x) - 1u) & MRC_PSN_MASK)
/* mrc_psn_diff(a, b) < 0: bit 23 of a - b (one test; gcc -Os wrote the difference out in full). Not a test of
 * mrc_psn_diff(b, a) > 0: at a - b = 2^23 both differences are -2^23 */
#define MRC__PSN_BEFORE(a, b) ((((a) - (b)) & MRC_PSN_HALF) != 0u)

/* ---- packet classifier: only the headers the opcode has are read (whole: the fast decoder may read them all) --- */
MRC__PRIVATE MRC__NOINLINE int mrc__pkt_decode_generic(const uint8_t *p, size_t len, const mrc_wire_opts *o,
                                                      mrc_pkt *k);
MRC__PRIVATE MRC__INLINE int mrc__pkt_decode_fast(const uint8_t *p, size_t len, const mrc_wire_opts *o, mrc_pkt *k,
                                                  bool whole);
/* gcc -Os (a firmware) takes the generic one too: the same results, and the fast one in line cost mrc__recv about
 * 590 B on Cortex-M4, for the general path's packets only (a clean stream's take the fast paths) */
#if defined(MRC_CODEC_GENERIC) || defined(__OPTIMIZE_SIZE__)
#define MRC__PKT_DECODE(p, len, o, k, whole) mrc__pkt_decode_generic(p, len, o, k)
#else
#define MRC__PKT_DECODE(p, len, o, k, whole) mrc__pkt_decode_fast(p, len, o, k, whole)
#endif
#endif /* MRC__SRC_CODEC_H */
