/* tests/codec.c - the codec: wire vectors (expected bytes written by hand from the layout tables of docs/PROTOCOL.md
 * section 3.3, never derived from the MRC__ layout macros); every header through one table (random round trips, width
 * overflow, short buffers, truncation, NULLs); and the codec's fixed-offset fast paths against its generic table
 * code (issue 15, item 3).
 *
 * White-box (MRC_STATIC: its own copy of the core's codec, tests/test.h). mrc.h builds the headers of the data and
 * SACK path (BTH, METH, TSETH, RETH, ImmDt, SETH, CC_STATE) and the packet classifier twice from the same layout
 * tables: mrc__*_fast (straight-line, what the core's paths and the public BTH, SETH and CC_STATE encoders use) and
 * mrc__*_generic (the table interpreter; MRC_CODEC_GENERIC, and the other public functions). Every codec_fast check
 * runs the fast, the generic and the public function on the same input and wants, from all three, the same return
 * code and
 *   - encoders: the same bytes in the whole output buffer, which starts as the same junk in each, so a byte written
 *     (or left alone) differently shows, inside the header, past it and past cap;
 *   - decoders: the same struct, which starts as the same junk in each (memcmp of all of it, padding included, then
 *     field by field for the message), from an exact-size heap copy of the input (ASan sees any over-read).
 * Inputs come from the seeded PRNG: fields biased to 0 and all-ones (ut_rbits), pushed past their widths, random
 * bytes over the whole struct, every field at its maximum (PSN 0xFFFFFF, every flag bit, 64-bit VA and bitmap all
 * ones); caps and lengths from 0 to past the header; bytes random, all-ones, or an encoding with bits flipped; every
 * mrc_wire_opts the fast paths take (either BTH m bit, LSB-first bitmap, NULL) and the ones they hand to the generic
 * code (MSB-first bitmap, any non-zero sack_msb_first), with odd values in the fields neither path reads.
 */
#define MRC_STATIC /* white-box: its own copy of the core */
#define MRC_IMPLEMENTATION
#include "test.h"

/* random value of 'bits' bits, biased towards 0 and all-ones so edges are hit often */
static uint64_t ut_rbits(trng *r, unsigned bits) {
    uint64_t m = bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1u);
    switch (trand_below(r, 8)) {
    case 0: return 0;
    case 1: return m;
    default: return trand(r) & m;
    }
}

/* ================================================================================================================
 * 1. wire vectors: expected bytes written by hand from docs/PROTOCOL.md section 3.3
 * ============================================================================================================== */
#define UT_VEC_ENC(what, rc, buf, want)                                                    \
    do {                                                                                   \
        CHECKF((rc) == (int)sizeof(want), "%s: encoder returned %d, want %d", what, (rc), \
               (int)sizeof(want));                                                         \
        CHECKF(ut_bytes_eq(what, buf, want, sizeof(want)), "%s: encoded bytes", what);     \
    } while (0)

static int t_codec_bth_vector(void) {
    /* A: opcode 0xCB, m=1 se=0 pad=3 tver=0xA, pkey 0x8421, byte 4 = 0x5A, dest_qp 0xABCDEF, a=1 r=0 rtx=1 ts=0,
     *    psn 0x123456. Byte 1 = m (bit 7, or bit 6 with bth_m_bit 6) | se (the other bit) | pad << 4 | tver;
     *    byte 8 = a << 7 | r << 6 | rtx << 5 | ts << 4, bits 3:0 reserved. */
    static const uint8_t a7[12] = {0xCB, 0xBA, 0x84, 0x21, 0x5A, 0xAB, 0xCD, 0xEF, 0xA0, 0x12, 0x34, 0x56};
    static const uint8_t a6[12] = {0xCB, 0x7A, 0x84, 0x21, 0x5A, 0xAB, 0xCD, 0xEF, 0xA0, 0x12, 0x34, 0x56};
    /* B: opcode 0xC6, m=0 se=1 pad=1 tver=5, pkey 0x7FFF, byte 4 = 0, dest_qp 0x000002, a=0 r=1 rtx=0 ts=1,
     *    psn 0xFEDCBA */
    static const uint8_t b7[12] = {0xC6, 0x55, 0x7F, 0xFF, 0x00, 0x00, 0x00, 0x02, 0x50, 0xFE, 0xDC, 0xBA};
    static const uint8_t b6[12] = {0xC6, 0x95, 0x7F, 0xFF, 0x00, 0x00, 0x00, 0x02, 0x50, 0xFE, 0xDC, 0xBA};
    mrc_wire_opts o7 = ut_opts(7, 0, 2), o6 = ut_opts(6, 0, 2);
    mrc_bth A, B, d;
    uint8_t buf[16], tmp[12];
    int rc;
    memset(&A, 0, sizeof A);
    A.opcode = 0xCB; A.m = 1; A.se = 0; A.pad = 3; A.tver = 0xA; A.pkey = 0x8421; A.resv8 = 0x5A;
    A.dest_qp = 0xABCDEF; A.a = 1; A.r = 0; A.rtx = 1; A.ts = 0; A.psn = 0x123456;
    memset(&B, 0, sizeof B);
    B.opcode = 0xC6; B.m = 0; B.se = 1; B.pad = 1; B.tver = 5; B.pkey = 0x7FFF; B.resv8 = 0;
    B.dest_qp = 2; B.a = 0; B.r = 1; B.rtx = 0; B.ts = 1; B.psn = 0xFEDCBA;

    rc = mrc_bth_encode(buf, sizeof buf, &o7, &A); UT_VEC_ENC("bth A m7", rc, buf, a7);
    rc = mrc_bth_encode(buf, sizeof buf, &o6, &A); UT_VEC_ENC("bth A m6", rc, buf, a6);
    rc = mrc_bth_encode(buf, sizeof buf, &o7, &B); UT_VEC_ENC("bth B m7", rc, buf, b7);
    rc = mrc_bth_encode(buf, sizeof buf, &o6, &B); UT_VEC_ENC("bth B m6", rc, buf, b6);

    CHECK_EQ(mrc_bth_decode(a7, sizeof a7, &o7, &d), MRC_BTH_LEN); CHECK(ut_eq_bth(&d, &A));
    CHECK_EQ(mrc_bth_decode(a6, sizeof a6, &o6, &d), MRC_BTH_LEN); CHECK(ut_eq_bth(&d, &A));
    CHECK_EQ(mrc_bth_decode(b7, sizeof b7, &o7, &d), MRC_BTH_LEN); CHECK(ut_eq_bth(&d, &B));
    CHECK_EQ(mrc_bth_decode(b6, sizeof b6, &o6, &d), MRC_BTH_LEN); CHECK(ut_eq_bth(&d, &B));
    /* the other option reads the two bits the other way round */
    CHECK_EQ(mrc_bth_decode(a7, sizeof a7, &o6, &d), MRC_BTH_LEN);
    CHECK_EQ(d.m, 0); CHECK_EQ(d.se, 1);
    CHECK_EQ(mrc_bth_decode(b7, sizeof b7, &o6, &d), MRC_BTH_LEN);
    CHECK_EQ(d.m, 1); CHECK_EQ(d.se, 0);
    /* byte 8 bits 3:0 are reserved: ignored on receive */
    memcpy(tmp, a7, sizeof tmp);
    tmp[8] |= 0x0F;
    CHECK_EQ(mrc_bth_decode(tmp, sizeof tmp, &o7, &d), MRC_BTH_LEN); CHECK(ut_eq_bth(&d, &A));
    return 0;
}

static int t_codec_meth_tseth_vector(void) {
    /* METH: rqmsn 0xBEEF (bytes 0-1), msn 0x8123 (bytes 2-3) */
    static const uint8_t mv[4] = {0xBE, 0xEF, 0x81, 0x23};
    /* TSETH: tx_timestamp 0xA55A (bytes 0-1), tsr = byte 2 bit 7, ftype = byte 3 bits 3:0 */
    static const uint8_t t1[4] = {0xA5, 0x5A, 0x80, 0x0C}; /* tsr 1, ftype 0xC */
    static const uint8_t t2[4] = {0x00, 0x01, 0x00, 0x01}; /* ts 1, tsr 0, ftype 1 (what this core sends) */
    static const uint8_t t1r[4] = {0xA5, 0x5A, 0xFF, 0xFC}; /* t1 with every reserved bit set */
    mrc_meth m, md;
    mrc_tseth t, td;
    uint8_t buf[8];
    int rc;
    m.rqmsn = 0xBEEF; m.msn = 0x8123;
    rc = mrc_meth_encode(buf, sizeof buf, &m); UT_VEC_ENC("meth", rc, buf, mv);
    CHECK_EQ(mrc_meth_decode(mv, sizeof mv, &md), MRC_METH_LEN); CHECK(ut_eq_meth(&md, &m));

    t.tx_timestamp = 0xA55A; t.tsr = 1; t.ftype = 0xC;
    rc = mrc_tseth_encode(buf, sizeof buf, &t); UT_VEC_ENC("tseth 1", rc, buf, t1);
    CHECK_EQ(mrc_tseth_decode(t1, sizeof t1, &td), MRC_TSETH_LEN); CHECK(ut_eq_tseth(&td, &t));
    CHECK_EQ(mrc_tseth_decode(t1r, sizeof t1r, &td), MRC_TSETH_LEN); CHECK(ut_eq_tseth(&td, &t));
    t.tx_timestamp = 1; t.tsr = 0; t.ftype = 1;
    rc = mrc_tseth_encode(buf, sizeof buf, &t); UT_VEC_ENC("tseth 2", rc, buf, t2);
    CHECK_EQ(mrc_tseth_decode(t2, sizeof t2, &td), MRC_TSETH_LEN); CHECK(ut_eq_tseth(&td, &t));
    return 0;
}

static int t_codec_reth_immdt_aeth_vector(void) {
    /* RETH: va (8 bytes BE), rkey, dma_len */
    static const uint8_t rv[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF,
                                   0xDE, 0xAD, 0xBE, 0xEF, 0x80, 0xC0, 0xFF, 0xEE};
    static const uint8_t iv[4] = {0x89, 0xAB, 0xCD, 0xEF};
    /* AETH: syndrome byte 0, msn bytes 1-3 */
    static const uint8_t av1[4] = {0x62, 0xAB, 0xCD, 0xEF};
    static const uint8_t av2[4] = {0x1F, 0x00, 0x00, 0x01};
    mrc_reth r, rd;
    mrc_aeth a, ad;
    uint32_t imm = 0;
    uint8_t buf[16];
    int rc;
    r.va = 0x0123456789ABCDEFull; r.rkey = 0xDEADBEEFu; r.dma_len = 0x80C0FFEEu;
    rc = mrc_reth_encode(buf, sizeof buf, &r); UT_VEC_ENC("reth", rc, buf, rv);
    CHECK_EQ(mrc_reth_decode(rv, sizeof rv, &rd), MRC_RETH_LEN); CHECK(ut_eq_reth(&rd, &r));

    rc = mrc_immdt_encode(buf, sizeof buf, 0x89ABCDEFu); UT_VEC_ENC("immdt", rc, buf, iv);
    CHECK_EQ(mrc_immdt_decode(iv, sizeof iv, &imm), MRC_IMMDT_LEN);
    CHECK_EQ(imm, 0x89ABCDEFu);

    a.syndrome = 0x62; a.msn = 0xABCDEF;
    rc = mrc_aeth_encode(buf, sizeof buf, &a); UT_VEC_ENC("aeth nak", rc, buf, av1);
    CHECK_EQ(mrc_aeth_decode(av1, sizeof av1, &ad), MRC_AETH_LEN); CHECK(ut_eq_aeth(&ad, &a));
    a.syndrome = MRC_AETH_ACK; a.msn = 1;
    rc = mrc_aeth_encode(buf, sizeof buf, &a); UT_VEC_ENC("aeth ack", rc, buf, av2);
    CHECK_EQ(mrc_aeth_decode(av2, sizeof av2, &ad), MRC_AETH_LEN); CHECK(ut_eq_aeth(&ad, &a));
    return 0;
}

static int t_codec_seth_vector(void) {
    /* type 0xA, nxt 0x15 (10101b), m 1, pr 1: byte 0 = type << 4 | nxt >> 1 = 0xAA; byte 1 = (nxt & 1) << 7 |
     * m << 5 | pr << 1 = 0xA2. ack_psn_offset -2, entropy 0x11223344, spdcid 0x5566, dpdcid 0x7788, byte 12
     * reserved, cack 0x9ABCDE, cc_type 3 | cc_fl 0xC = 0x3C, mpr 0x80, sack_offset -300 = 0xFED4,
     * bitmap bits {0, 5, 62}: LSB-first word 0x4000000000000021, MSB-first (bit-reversed) 0x8400000000000002 */
    static const uint8_t lsb[28] = {0xAA, 0xA2, 0xFF, 0xFE, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x00, 0x9A,
                                    0xBC, 0xDE, 0x3C, 0x80, 0xFE, 0xD4, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21};
    static const uint8_t msb[28] = {0xAA, 0xA2, 0xFF, 0xFE, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x00, 0x9A,
                                    0xBC, 0xDE, 0x3C, 0x80, 0xFE, 0xD4, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02};
    /* the notes' example: m = 01, pr = 1, everything else 0 -> byte 1 = 0x22 */
    static const uint8_t notes[28] = {0x00, 0x22};
    /* m = ALWAYS_SKIP (2), pr 0 -> byte 1 = 0x40; ack_psn_offset 0x7FFF, cack 0xFFFFFF, sack_offset -32768 */
    static const uint8_t edge[28] = {0x00, 0x40, 0x7F, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                     0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x80, 0x00,
                                     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
    mrc_wire_opts o0 = ut_opts(7, 0, 2), o1 = ut_opts(7, 1, 2);
    mrc_seth s, d;
    uint8_t buf[32], tmp[28];
    int rc;
    memset(&s, 0, sizeof s);
    s.type = 0xA; s.nxt = 0x15; s.m = MRC_M_SKIP_ONCE; s.pr = 1; s.ack_psn_offset = -2; s.entropy = 0x11223344u;
    s.spdcid = 0x5566; s.dpdcid = 0x7788; s.cack_psn = 0x9ABCDE; s.cc_type = 3; s.cc_fl = 0xC; s.mpr = 0x80;
    s.sack_offset = -300; s.sack_bitmap = 0x4000000000000021ull;
    rc = mrc_seth_encode(buf, sizeof buf, &o0, &s); UT_VEC_ENC("seth lsb-first", rc, buf, lsb);
    rc = mrc_seth_encode(buf, sizeof buf, &o1, &s); UT_VEC_ENC("seth msb-first", rc, buf, msb);
    CHECK_EQ(mrc_seth_decode(lsb, sizeof lsb, &o0, &d), MRC_SETH_LEN); CHECK(ut_eq_seth(&d, &s));
    CHECK_EQ(mrc_seth_decode(msb, sizeof msb, &o1, &d), MRC_SETH_LEN); CHECK(ut_eq_seth(&d, &s));
    /* reading the LSB-first bytes as MSB-first gives the reversed word */
    CHECK_EQ(mrc_seth_decode(lsb, sizeof lsb, &o1, &d), MRC_SETH_LEN);
    CHECK(d.sack_bitmap == 0x8400000000000002ull);
    /* reserved bits (byte 1 bits 4:2 and 0, byte 12) are ignored on receive */
    memcpy(tmp, lsb, sizeof tmp);
    tmp[1] |= 0x1D;
    tmp[12] = 0xFF;
    CHECK_EQ(mrc_seth_decode(tmp, sizeof tmp, &o0, &d), MRC_SETH_LEN); CHECK(ut_eq_seth(&d, &s));

    memset(&s, 0, sizeof s);
    s.m = MRC_M_SKIP_ONCE; s.pr = 1;
    rc = mrc_seth_encode(buf, sizeof buf, &o0, &s); UT_VEC_ENC("seth notes example", rc, buf, notes);
    CHECK_EQ(mrc_seth_decode(notes, sizeof notes, &o0, &d), MRC_SETH_LEN); CHECK(ut_eq_seth(&d, &s));

    memset(&s, 0, sizeof s);
    s.m = MRC_M_ALWAYS_SKIP; s.ack_psn_offset = 0x7FFF; s.cack_psn = 0xFFFFFF; s.sack_offset = -32768;
    s.sack_bitmap = 1;
    rc = mrc_seth_encode(buf, sizeof buf, &o0, &s); UT_VEC_ENC("seth edge", rc, buf, edge);
    CHECK_EQ(mrc_seth_decode(edge, sizeof edge, &o0, &d), MRC_SETH_LEN); CHECK(ut_eq_seth(&d, &s));
    return 0;
}

static int t_codec_ccstate_vector(void) {
    /* tx_timestamp 0xBEEF, ooo_count 0x7ABC (word bits 14:0 of bytes 2-3), r_c 1 (byte 4 bit 7),
     * rcv_cwnd_pen 0x55 (byte 4 bits 6:0), rcvd_bytes 0xFEDCBA (bytes 5-7) */
    static const uint8_t v1[8] = {0xBE, 0xEF, 0x7A, 0xBC, 0xD5, 0xFE, 0xDC, 0xBA};
    static const uint8_t v1r[8] = {0xBE, 0xEF, 0xFA, 0xBC, 0xD5, 0xFE, 0xDC, 0xBA}; /* reserved bit 15 set */
    /* ooo 0x7FFF (15-bit max), r_c 0, pen 0x7F, rcvd 1 */
    static const uint8_t v2[8] = {0x00, 0x00, 0x7F, 0xFF, 0x7F, 0x00, 0x00, 0x01};
    mrc_cc_state c, d;
    uint8_t buf[8];
    int rc;
    c.tx_timestamp = 0xBEEF; c.ooo_count = 0x7ABC; c.r_c = 1; c.rcv_cwnd_pen = 0x55; c.rcvd_bytes = 0xFEDCBA;
    rc = mrc_cc_state_encode(buf, sizeof buf, &c); UT_VEC_ENC("cc_state 1", rc, buf, v1);
    CHECK_EQ(mrc_cc_state_decode(v1, sizeof v1, &d), MRC_CCSTATE_LEN); CHECK(ut_eq_cc(&d, &c));
    CHECK_EQ(mrc_cc_state_decode(v1r, sizeof v1r, &d), MRC_CCSTATE_LEN); CHECK(ut_eq_cc(&d, &c));
    c.tx_timestamp = 0; c.ooo_count = 0x7FFF; c.r_c = 0; c.rcv_cwnd_pen = 0x7F; c.rcvd_bytes = 1;
    rc = mrc_cc_state_encode(buf, sizeof buf, &c); UT_VEC_ENC("cc_state 2", rc, buf, v2);
    CHECK_EQ(mrc_cc_state_decode(v2, sizeof v2, &d), MRC_CCSTATE_LEN); CHECK(ut_eq_cc(&d, &c));
    return 0;
}

static int t_codec_neth_vector(void) {
    /* type 5, nxt 0x1F: byte 0 = 0x5F, byte 1 = 0x80; reason 0x0B, vendor 0xEE, entropy 0xCAFEBABE, spdcid 0x0102,
     * dpdcid 0x0304, byte 12 reserved, nack_psn 0xFEDCBA, cc_type 2 | cc_fl 5 = 0x25, byte 17 reserved,
     * tx_timestamp 0x1357 */
    static const uint8_t v[20] = {0x5F, 0x80, 0x0B, 0xEE, 0xCA, 0xFE, 0xBA, 0xBE, 0x01, 0x02,
                                  0x03, 0x04, 0x00, 0xFE, 0xDC, 0xBA, 0x25, 0x00, 0x13, 0x57};
    mrc_neth n, d;
    uint8_t buf[20], tmp[20];
    int rc;
    n.type = 5; n.nxt = 0x1F; n.nack_reason = MRC_NACK_PSN_OOR_WINDOW; n.vendor_info = 0xEE; n.entropy = 0xCAFEBABEu;
    n.spdcid = 0x0102; n.dpdcid = 0x0304; n.nack_psn = 0xFEDCBA; n.cc_type = 2; n.cc_fl = 5; n.tx_timestamp = 0x1357;
    rc = mrc_neth_encode(buf, sizeof buf, &n); UT_VEC_ENC("neth", rc, buf, v);
    CHECK_EQ(mrc_neth_decode(v, sizeof v, &d), MRC_NETH_LEN); CHECK(ut_eq_neth(&d, &n));
    memcpy(tmp, v, sizeof tmp);
    tmp[1] |= 0x7F; /* reserved */
    tmp[12] = 0xFF;
    tmp[17] = 0xFF;
    CHECK_EQ(mrc_neth_decode(tmp, sizeof tmp, &d), MRC_NETH_LEN); CHECK(ut_eq_neth(&d, &n));
    return 0;
}

static int t_codec_peth_vector(void) {
    /* type 0xF, nxt 0; byte 2 reserved; vendor 0x99; probe_id 0xABCD; bytes 6-7 reserved; spdcid 0x1111;
     * dpdcid 0x2222; tx_timestamp 0x2468; tsr 1 (byte 14 bit 7); ftype 1 (byte 15 bits 3:0) */
    static const uint8_t v1[16] = {0xF0, 0x00, 0x00, 0x99, 0xAB, 0xCD, 0x00, 0x00,
                                   0x11, 0x11, 0x22, 0x22, 0x24, 0x68, 0x80, 0x01};
    /* type 0, nxt 1 -> byte 1 bit 7; tsr 0, ftype 0xF */
    static const uint8_t v2[16] = {0x00, 0x80, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
                                   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0F};
    mrc_peth p, d;
    uint8_t buf[16], tmp[16];
    int rc;
    memset(&p, 0, sizeof p);
    p.type = 0xF; p.nxt = 0; p.vendor_info = 0x99; p.probe_id = 0xABCD; p.spdcid = 0x1111; p.dpdcid = 0x2222;
    p.tx_timestamp = 0x2468; p.tsr = 1; p.ftype = 1;
    rc = mrc_peth_encode(buf, sizeof buf, &p); UT_VEC_ENC("peth 1", rc, buf, v1);
    CHECK_EQ(mrc_peth_decode(v1, sizeof v1, &d), MRC_PETH_LEN); CHECK(ut_eq_peth(&d, &p));
    memcpy(tmp, v1, sizeof tmp);
    tmp[1] |= 0x7F; tmp[2] = 0xFF; tmp[6] = 0xFF; tmp[7] = 0xFF; tmp[14] |= 0x7F; tmp[15] |= 0xF0; /* reserved */
    CHECK_EQ(mrc_peth_decode(tmp, sizeof tmp, &d), MRC_PETH_LEN); CHECK(ut_eq_peth(&d, &p));
    memset(&p, 0, sizeof p);
    p.nxt = 1; p.probe_id = 1; p.ftype = 0xF;
    rc = mrc_peth_encode(buf, sizeof buf, &p); UT_VEC_ENC("peth 2", rc, buf, v2);
    CHECK_EQ(mrc_peth_decode(v2, sizeof v2, &d), MRC_PETH_LEN); CHECK(ut_eq_peth(&d, &p));
    return 0;
}

static int t_codec_erth_vector(void) {
    /* op EV_PROBE = 1 -> byte 1 = 0x01 (the notes' example); vendor 0x42 (byte 3); port_status_mask 0x800000A5;
     * bytes 8-11 reserved; tx_timestamp 0x0F0F; tsr 1; ftype 0xA */
    static const uint8_t v1[16] = {0x00, 0x01, 0x00, 0x42, 0x80, 0x00, 0x00, 0xA5,
                                   0x00, 0x00, 0x00, 0x00, 0x0F, 0x0F, 0x80, 0x0A};
    /* type 0xC, nxt 0x1F, op 3: byte 0 = 0xCF, byte 1 = 0x80 | 0x03 */
    static const uint8_t v2[16] = {0xCF, 0x83, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
                                   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    mrc_erth e, d;
    uint8_t buf[16], tmp[16];
    int rc;
    memset(&e, 0, sizeof e);
    e.op = MRC_EPOP_EV_PROBE; e.vendor_info = 0x42; e.port_status_mask = 0x800000A5u; e.tx_timestamp = 0x0F0F;
    e.tsr = 1; e.ftype = 0xA;
    rc = mrc_erth_encode(buf, sizeof buf, &e); UT_VEC_ENC("erth 1", rc, buf, v1);
    CHECK_EQ(mrc_erth_decode(v1, sizeof v1, &d), MRC_ERTH_LEN); CHECK(ut_eq_erth(&d, &e));
    memcpy(tmp, v1, sizeof tmp);
    tmp[1] |= 0x7C; tmp[2] = 0xFF; tmp[8] = tmp[9] = tmp[10] = tmp[11] = 0xFF; /* reserved */
    CHECK_EQ(mrc_erth_decode(tmp, sizeof tmp, &d), MRC_ERTH_LEN); CHECK(ut_eq_erth(&d, &e));
    memset(&e, 0, sizeof e);
    e.type = 0xC; e.nxt = 0x1F; e.op = 3; e.port_status_mask = 1;
    rc = mrc_erth_encode(buf, sizeof buf, &e); UT_VEC_ENC("erth 2", rc, buf, v2);
    CHECK_EQ(mrc_erth_decode(v2, sizeof v2, &d), MRC_ERTH_LEN); CHECK(ut_eq_erth(&d, &e));
    CHECK_EQ(MRC_EPOP_PORT_STATUS_UPDATE, 0); /* wire numbering, not the OCP API enum */
    CHECK_EQ(MRC_EPOP_EV_PROBE, 1);
    return 0;
}

static int t_codec_eeth_vector(void) {
    /* type 3, nxt 2: byte 0 = 0x31, byte 1 bit 7 = 0; op 2 at bits 3:2 (0x08) or 5:4 (0x20); tx_timestamp 0xFACE
     * at bytes 28-29; everything else reserved */
    uint8_t v2[36], v4[36], buf[40], tmp[36];
    mrc_wire_opts s2 = ut_opts(7, 0, 2), s4 = ut_opts(7, 0, 4);
    mrc_eeth e, d;
    int rc;
    memset(v2, 0, sizeof v2);
    v2[0] = 0x31; v2[1] = 0x08; v2[28] = 0xFA; v2[29] = 0xCE;
    memcpy(v4, v2, sizeof v4);
    v4[1] = 0x20;
    e.type = 3; e.nxt = 2; e.op = 2; e.tx_timestamp = 0xFACE;
    rc = mrc_eeth_encode(buf, sizeof buf, &s2, &e); UT_VEC_ENC("eeth shift 2", rc, buf, v2);
    rc = mrc_eeth_encode(buf, sizeof buf, &s4, &e); UT_VEC_ENC("eeth shift 4", rc, buf, v4);
    CHECK_EQ(mrc_eeth_decode(v2, sizeof v2, &s2, &d), MRC_EETH_LEN); CHECK(ut_eq_eeth(&d, &e));
    CHECK_EQ(mrc_eeth_decode(v4, sizeof v4, &s4, &d), MRC_EETH_LEN); CHECK(ut_eq_eeth(&d, &e));
    /* the decoder also accepts the other position when the configured one reads 0 (docs section 3.3, Q16b) */
    CHECK_EQ(mrc_eeth_decode(v4, sizeof v4, &s2, &d), MRC_EETH_LEN); CHECK(ut_eq_eeth(&d, &e));
    CHECK_EQ(mrc_eeth_decode(v2, sizeof v2, &s4, &d), MRC_EETH_LEN); CHECK(ut_eq_eeth(&d, &e));
    /* ... including with nxt's bit in byte 1 bit 7 set */
    memcpy(tmp, v4, sizeof tmp);
    tmp[1] = 0xA0; /* nxt bit 0 = 1, op 2 at bits 5:4 */
    CHECK_EQ(mrc_eeth_decode(tmp, sizeof tmp, &s2, &d), MRC_EETH_LEN);
    CHECK_EQ(d.op, 2); CHECK_EQ(d.nxt, 3);
    /* ... but not when other bits of byte 1 (6:0, outside the other position) are set */
    tmp[1] = 0x21;
    CHECK_EQ(mrc_eeth_decode(tmp, sizeof tmp, &s2, &d), MRC_EETH_LEN);
    CHECK_EQ(d.op, 0);
    tmp[1] = 0x0C | 0x02; /* shift 4 configured: bits 5:4 read 0, bit 1 set -> not accepted */
    CHECK_EQ(mrc_eeth_decode(tmp, sizeof tmp, &s4, &d), MRC_EETH_LEN);
    CHECK_EQ(d.op, 0);
    /* the configured position wins when it is non-zero */
    tmp[1] = 0x2C; /* bits 3:2 = 3, bits 5:4 = 2 */
    CHECK_EQ(mrc_eeth_decode(tmp, sizeof tmp, &s2, &d), MRC_EETH_LEN); CHECK_EQ(d.op, 3);
    CHECK_EQ(mrc_eeth_decode(tmp, sizeof tmp, &s4, &d), MRC_EETH_LEN); CHECK_EQ(d.op, 2);
    /* reserved bytes 2-27 and 30-35 are ignored */
    memcpy(tmp, v2, sizeof tmp);
    memset(tmp + 2, 0xFF, 26);
    memset(tmp + 30, 0xFF, 6);
    CHECK_EQ(mrc_eeth_decode(tmp, sizeof tmp, &s2, &d), MRC_EETH_LEN); CHECK(ut_eq_eeth(&d, &e));
    return 0;
}

/* NULL wire options mean the defaults: m at bit 7, LSB-first bitmap, EETH op at bits 3:2 */
static int t_codec_null_opts_default(void) {
    mrc_bth b;
    mrc_seth s;
    mrc_eeth e;
    uint8_t buf[40];
    memset(&b, 0, sizeof b);
    b.m = 1;
    CHECK_EQ(mrc_bth_encode(buf, sizeof buf, (const mrc_wire_opts *)0, &b), MRC_BTH_LEN);
    CHECK_EQ(buf[1], 0x80);
    memset(&s, 0, sizeof s);
    s.sack_bitmap = 1;
    CHECK_EQ(mrc_seth_encode(buf, sizeof buf, (const mrc_wire_opts *)0, &s), MRC_SETH_LEN);
    CHECK_EQ(buf[27], 0x01);
    CHECK_EQ(buf[20], 0x00);
    memset(&e, 0, sizeof e);
    e.op = 1;
    CHECK_EQ(mrc_eeth_encode(buf, sizeof buf, (const mrc_wire_opts *)0, &e), MRC_EETH_LEN);
    CHECK_EQ(buf[1], 0x04);
    return 0;
}

/* ================================================================================================================
 * 2. every header through one table: random round trips, width overflow, short buffers, truncation, NULLs
 * ============================================================================================================== */
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
} ut_hdr;

typedef struct {
    const char *name;
    size_t len;
    int has_hptr; /* the encoder takes a header pointer (ImmDt takes a value) */
    int (*enc)(uint8_t *p, size_t cap, const mrc_wire_opts *o, const ut_hdr *h);
    int (*dec)(const uint8_t *p, size_t len, const mrc_wire_opts *o, ut_hdr *h);
    void (*rnd)(trng *r, ut_hdr *h);
    int (*bad)(ut_hdr *h, int i); /* set field i beyond its width; 0 when there is no field i */
    int (*eq)(const ut_hdr *a, const ut_hdr *b);
} ut_codec;

#define UT_WRAP(NAME, T, FIELD)                                                                                 \
    static int ut_enc_##NAME(uint8_t *p, size_t cap, const mrc_wire_opts *o, const ut_hdr *h) {                 \
        (void)o;                                                                                                \
        return mrc_##NAME##_encode(p, cap, h ? &h->FIELD : (const T *)0);                                       \
    }                                                                                                           \
    static int ut_dec_##NAME(const uint8_t *p, size_t len, const mrc_wire_opts *o, ut_hdr *h) {                 \
        (void)o;                                                                                                \
        return mrc_##NAME##_decode(p, len, h ? &h->FIELD : (T *)0);                                             \
    }
#define UT_WRAP_O(NAME, T, FIELD)                                                                               \
    static int ut_enc_##NAME(uint8_t *p, size_t cap, const mrc_wire_opts *o, const ut_hdr *h) {                 \
        return mrc_##NAME##_encode(p, cap, o, h ? &h->FIELD : (const T *)0);                                    \
    }                                                                                                           \
    static int ut_dec_##NAME(const uint8_t *p, size_t len, const mrc_wire_opts *o, ut_hdr *h) {                 \
        return mrc_##NAME##_decode(p, len, o, h ? &h->FIELD : (T *)0);                                          \
    }
#define UT_EQ(NAME, FN, FIELD) \
    static int ut_equ_##NAME(const ut_hdr *a, const ut_hdr *b) { return FN(&a->FIELD, &b->FIELD); }

UT_WRAP_O(bth, mrc_bth, bth)
UT_WRAP(meth, mrc_meth, meth)
UT_WRAP(tseth, mrc_tseth, tseth)
UT_WRAP(reth, mrc_reth, reth)
UT_WRAP(aeth, mrc_aeth, aeth)
UT_WRAP_O(seth, mrc_seth, seth)
UT_WRAP(cc_state, mrc_cc_state, cc)
UT_WRAP(neth, mrc_neth, neth)
UT_WRAP(peth, mrc_peth, peth)
UT_WRAP(erth, mrc_erth, erth)
UT_WRAP_O(eeth, mrc_eeth, eeth)
static int ut_enc_immdt(uint8_t *p, size_t cap, const mrc_wire_opts *o, const ut_hdr *h) {
    (void)o;
    return mrc_immdt_encode(p, cap, h ? h->imm : 0u);
}
static int ut_dec_immdt(const uint8_t *p, size_t len, const mrc_wire_opts *o, ut_hdr *h) {
    (void)o;
    return mrc_immdt_decode(p, len, h ? &h->imm : (uint32_t *)0);
}
UT_EQ(bth, ut_eq_bth, bth)
UT_EQ(meth, ut_eq_meth, meth)
UT_EQ(tseth, ut_eq_tseth, tseth)
UT_EQ(reth, ut_eq_reth, reth)
UT_EQ(aeth, ut_eq_aeth, aeth)
UT_EQ(seth, ut_eq_seth, seth)
UT_EQ(cc_state, ut_eq_cc, cc)
UT_EQ(neth, ut_eq_neth, neth)
UT_EQ(peth, ut_eq_peth, peth)
UT_EQ(erth, ut_eq_erth, erth)
UT_EQ(eeth, ut_eq_eeth, eeth)
static int ut_equ_immdt(const ut_hdr *a, const ut_hdr *b) {
    if (a->imm == b->imm) return 1;
    printf("    field imm: 0x%08X vs 0x%08X\n", (unsigned)a->imm, (unsigned)b->imm);
    return 0;
}

#define UT_R8(b) ((uint8_t)ut_rbits(r, (b)))
#define UT_R16(b) ((uint16_t)ut_rbits(r, (b)))
#define UT_R32(b) ((uint32_t)ut_rbits(r, (b)))
static void ut_rnd_bth(trng *r, ut_hdr *u) {
    mrc_bth *h = &u->bth;
    memset(u, 0, sizeof *u);
    h->opcode = UT_R8(8); h->se = UT_R8(1); h->m = UT_R8(1); h->pad = UT_R8(2); h->tver = UT_R8(4);
    h->pkey = UT_R16(16); h->resv8 = UT_R8(8); h->dest_qp = UT_R32(24); h->a = UT_R8(1); h->r = UT_R8(1);
    h->rtx = UT_R8(1); h->ts = UT_R8(1); h->psn = UT_R32(24);
}
static void ut_rnd_meth(trng *r, ut_hdr *u) {
    memset(u, 0, sizeof *u);
    u->meth.rqmsn = UT_R16(16); u->meth.msn = UT_R16(16);
}
static void ut_rnd_tseth(trng *r, ut_hdr *u) {
    memset(u, 0, sizeof *u);
    u->tseth.tx_timestamp = UT_R16(16); u->tseth.tsr = UT_R8(1); u->tseth.ftype = UT_R8(4);
}
static void ut_rnd_reth(trng *r, ut_hdr *u) {
    memset(u, 0, sizeof *u);
    u->reth.va = ut_rbits(r, 64); u->reth.rkey = UT_R32(32); u->reth.dma_len = UT_R32(32);
}
static void ut_rnd_immdt(trng *r, ut_hdr *u) {
    memset(u, 0, sizeof *u);
    u->imm = UT_R32(32);
}
static void ut_rnd_aeth(trng *r, ut_hdr *u) {
    memset(u, 0, sizeof *u);
    u->aeth.syndrome = UT_R8(8); u->aeth.msn = UT_R32(24);
}
static void ut_rnd_seth(trng *r, ut_hdr *u) {
    mrc_seth *h = &u->seth;
    memset(u, 0, sizeof *u);
    h->type = UT_R8(4); h->nxt = UT_R8(5); h->m = UT_R8(2); h->pr = UT_R8(1);
    h->ack_psn_offset = (int16_t)(int32_t)((int32_t)UT_R32(16) - 32768);
    h->entropy = UT_R32(32); h->spdcid = UT_R16(16); h->dpdcid = UT_R16(16); h->cack_psn = UT_R32(24);
    h->cc_type = UT_R8(4); h->cc_fl = UT_R8(4); h->mpr = UT_R8(8);
    h->sack_offset = (int16_t)(int32_t)((int32_t)UT_R32(16) - 32768);
    h->sack_bitmap = ut_rbits(r, 64);
}
static void ut_rnd_cc(trng *r, ut_hdr *u) {
    memset(u, 0, sizeof *u);
    u->cc.tx_timestamp = UT_R16(16); u->cc.ooo_count = UT_R16(15); u->cc.r_c = UT_R8(1);
    u->cc.rcv_cwnd_pen = UT_R8(7); u->cc.rcvd_bytes = UT_R32(24);
}
static void ut_rnd_neth(trng *r, ut_hdr *u) {
    mrc_neth *h = &u->neth;
    memset(u, 0, sizeof *u);
    h->type = UT_R8(4); h->nxt = UT_R8(5); h->nack_reason = UT_R8(8); h->vendor_info = UT_R8(8);
    h->entropy = UT_R32(32); h->spdcid = UT_R16(16); h->dpdcid = UT_R16(16); h->nack_psn = UT_R32(24);
    h->cc_type = UT_R8(4); h->cc_fl = UT_R8(4); h->tx_timestamp = UT_R16(16);
}
static void ut_rnd_peth(trng *r, ut_hdr *u) {
    mrc_peth *h = &u->peth;
    memset(u, 0, sizeof *u);
    h->type = UT_R8(4); h->nxt = UT_R8(5); h->vendor_info = UT_R8(8); h->tsr = UT_R8(1); h->ftype = UT_R8(4);
    h->probe_id = UT_R16(16); h->spdcid = UT_R16(16); h->dpdcid = UT_R16(16); h->tx_timestamp = UT_R16(16);
}
static void ut_rnd_erth(trng *r, ut_hdr *u) {
    mrc_erth *h = &u->erth;
    memset(u, 0, sizeof *u);
    h->type = UT_R8(4); h->nxt = UT_R8(5); h->op = UT_R8(2); h->vendor_info = UT_R8(8); h->tsr = UT_R8(1);
    h->ftype = UT_R8(4); h->port_status_mask = UT_R32(32); h->tx_timestamp = UT_R16(16);
}
static void ut_rnd_eeth(trng *r, ut_hdr *u) {
    memset(u, 0, sizeof *u);
    u->eeth.type = UT_R8(4); u->eeth.nxt = UT_R8(5); u->eeth.op = UT_R8(2); u->eeth.tx_timestamp = UT_R16(16);
}

/* first value past each sub-byte-width field */
static int ut_bad_bth(ut_hdr *u, int i) {
    mrc_bth *h = &u->bth;
    switch (i) {
    case 0: h->se = 2; break;
    case 1: h->m = 2; break;
    case 2: h->pad = 4; break;
    case 3: h->tver = 16; break;
    case 4: h->dest_qp = 0x1000000u; break;
    case 5: h->a = 2; break;
    case 6: h->r = 2; break;
    case 7: h->rtx = 2; break;
    case 8: h->ts = 2; break;
    case 9: h->psn = 0x1000000u; break;
    case 10: h->psn = 0xFFFFFFFFu; break;
    default: return 0;
    }
    return 1;
}
static int ut_bad_none(ut_hdr *u, int i) {
    (void)u;
    (void)i;
    return 0;
}
static int ut_bad_tseth(ut_hdr *u, int i) {
    switch (i) {
    case 0: u->tseth.tsr = 2; break;
    case 1: u->tseth.ftype = 16; break;
    default: return 0;
    }
    return 1;
}
static int ut_bad_aeth(ut_hdr *u, int i) {
    if (i != 0) return 0;
    u->aeth.msn = 0x1000000u;
    return 1;
}
static int ut_bad_seth(ut_hdr *u, int i) {
    mrc_seth *h = &u->seth;
    switch (i) {
    case 0: h->type = 16; break;
    case 1: h->nxt = 32; break;
    case 2: h->m = 4; break;
    case 3: h->pr = 2; break;
    case 4: h->cack_psn = 0x1000000u; break;
    case 5: h->cc_type = 16; break;
    case 6: h->cc_fl = 16; break;
    default: return 0;
    }
    return 1;
}
static int ut_bad_cc(ut_hdr *u, int i) {
    switch (i) {
    case 0: u->cc.ooo_count = 0x8000; break;
    case 1: u->cc.r_c = 2; break;
    case 2: u->cc.rcv_cwnd_pen = 0x80; break;
    case 3: u->cc.rcvd_bytes = 0x1000000u; break;
    default: return 0;
    }
    return 1;
}
static int ut_bad_neth(ut_hdr *u, int i) {
    switch (i) {
    case 0: u->neth.type = 16; break;
    case 1: u->neth.nxt = 32; break;
    case 2: u->neth.nack_psn = 0x1000000u; break;
    case 3: u->neth.cc_type = 16; break;
    case 4: u->neth.cc_fl = 16; break;
    default: return 0;
    }
    return 1;
}
static int ut_bad_peth(ut_hdr *u, int i) {
    switch (i) {
    case 0: u->peth.type = 16; break;
    case 1: u->peth.nxt = 32; break;
    case 2: u->peth.tsr = 2; break;
    case 3: u->peth.ftype = 16; break;
    default: return 0;
    }
    return 1;
}
static int ut_bad_erth(ut_hdr *u, int i) {
    switch (i) {
    case 0: u->erth.type = 16; break;
    case 1: u->erth.nxt = 32; break;
    case 2: u->erth.op = 4; break;
    case 3: u->erth.tsr = 2; break;
    case 4: u->erth.ftype = 16; break;
    default: return 0;
    }
    return 1;
}
static int ut_bad_eeth(ut_hdr *u, int i) {
    switch (i) {
    case 0: u->eeth.type = 16; break;
    case 1: u->eeth.nxt = 32; break;
    case 2: u->eeth.op = 4; break;
    default: return 0;
    }
    return 1;
}

static const ut_codec ut_codecs[] = {
    {"bth", MRC_BTH_LEN, 1, ut_enc_bth, ut_dec_bth, ut_rnd_bth, ut_bad_bth, ut_equ_bth},
    {"meth", MRC_METH_LEN, 1, ut_enc_meth, ut_dec_meth, ut_rnd_meth, ut_bad_none, ut_equ_meth},
    {"tseth", MRC_TSETH_LEN, 1, ut_enc_tseth, ut_dec_tseth, ut_rnd_tseth, ut_bad_tseth, ut_equ_tseth},
    {"reth", MRC_RETH_LEN, 1, ut_enc_reth, ut_dec_reth, ut_rnd_reth, ut_bad_none, ut_equ_reth},
    {"immdt", MRC_IMMDT_LEN, 0, ut_enc_immdt, ut_dec_immdt, ut_rnd_immdt, ut_bad_none, ut_equ_immdt},
    {"aeth", MRC_AETH_LEN, 1, ut_enc_aeth, ut_dec_aeth, ut_rnd_aeth, ut_bad_aeth, ut_equ_aeth},
    {"seth", MRC_SETH_LEN, 1, ut_enc_seth, ut_dec_seth, ut_rnd_seth, ut_bad_seth, ut_equ_seth},
    {"cc_state", MRC_CCSTATE_LEN, 1, ut_enc_cc_state, ut_dec_cc_state, ut_rnd_cc, ut_bad_cc, ut_equ_cc_state},
    {"neth", MRC_NETH_LEN, 1, ut_enc_neth, ut_dec_neth, ut_rnd_neth, ut_bad_neth, ut_equ_neth},
    {"peth", MRC_PETH_LEN, 1, ut_enc_peth, ut_dec_peth, ut_rnd_peth, ut_bad_peth, ut_equ_peth},
    {"erth", MRC_ERTH_LEN, 1, ut_enc_erth, ut_dec_erth, ut_rnd_erth, ut_bad_erth, ut_equ_erth},
    {"eeth", MRC_EETH_LEN, 1, ut_enc_eeth, ut_dec_eeth, ut_rnd_eeth, ut_bad_eeth, ut_equ_eeth},
};
#define UT_NCODECS (sizeof ut_codecs / sizeof ut_codecs[0])

static mrc_wire_opts ut_rnd_opts(trng *r) {
    return ut_opts(trand_below(r, 2) ? 7u : 6u, trand_below(r, 2), trand_below(r, 2) ? 4u : 2u);
}

static int t_codec_roundtrip_random(void) {
    trng r;
    unsigned ci;
    int it;
    r.s = g_seed ^ 0xC0DEC0DEull;
    for (ci = 0; ci < UT_NCODECS; ci++) {
        const ut_codec *c = &ut_codecs[ci];
        for (it = 0; it < 3000; it++) {
            ut_hdr h, d;
            uint8_t buf[MRC_HDR_MAX + 16], again[MRC_HDR_MAX + 16];
            mrc_wire_opts o = ut_rnd_opts(&r);
            int rc;
            c->rnd(&r, &h);
            memset(buf, 0xA5, sizeof buf);
            rc = c->enc(buf, sizeof buf, &o, &h);
            CHECKF(rc == (int)c->len, "%s iteration %d: encode returned %d", c->name, it, rc);
            CHECKF(ut_all(buf + c->len, sizeof buf - c->len, 0xA5), "%s iteration %d: wrote past the header",
                   c->name, it);
            memset(&d, 0x5A, sizeof d);
            rc = c->dec(buf, c->len, &o, &d);
            CHECKF(rc == (int)c->len, "%s iteration %d: decode returned %d", c->name, it, rc);
            CHECKF(c->eq(&d, &h), "%s iteration %d (opts m%u msb%u eeth%u): decoded fields differ", c->name, it,
                   o.bth_m_bit, o.sack_msb_first, o.eeth_op_shift);
            /* trailing bytes do not change what is decoded */
            rc = c->dec(buf, sizeof buf, &o, &d);
            CHECKF(rc == (int)c->len && c->eq(&d, &h), "%s iteration %d: decode with trailing bytes", c->name, it);
            /* re-encoding the decoded header gives the same bytes */
            rc = c->enc(again, sizeof again, &o, &d);
            CHECKF(rc == (int)c->len && memcmp(again, buf, c->len) == 0, "%s iteration %d: re-encode differs",
                   c->name, it);
        }
    }
    note("%u headers x 3000 random round trips", (unsigned)UT_NCODECS);
    return 0;
}

static int t_codec_field_overflow(void) {
    trng r;
    unsigned ci;
    int i, total = 0;
    r.s = g_seed ^ 0x0F0F0F0Full;
    for (ci = 0; ci < UT_NCODECS; ci++) {
        const ut_codec *c = &ut_codecs[ci];
        for (i = 0;; i++) {
            ut_hdr h;
            uint8_t buf[MRC_HDR_MAX + 16];
            mrc_wire_opts o = ut_rnd_opts(&r);
            int rc;
            c->rnd(&r, &h);
            if (!c->bad(&h, i)) break;
            total++;
            memset(buf, 0xA5, sizeof buf);
            rc = c->enc(buf, sizeof buf, &o, &h);
            CHECKF(rc == MRC_ERR_INVAL, "%s field #%d past its width: encode returned %d, want MRC_ERR_INVAL",
                   c->name, i, rc);
            CHECKF(ut_all(buf, c->len, 0), "%s field #%d: buffer not left zeroed", c->name, i);
            CHECKF(ut_all(buf + c->len, sizeof buf - c->len, 0xA5), "%s field #%d: wrote past the header", c->name,
                   i);
        }
    }
    CHECK(total >= 40); /* the table really exercised the narrow fields */
    return 0;
}

static int t_codec_short_buffer(void) {
    trng r;
    unsigned ci;
    size_t cap;
    r.s = g_seed ^ 0x5107ull;
    for (ci = 0; ci < UT_NCODECS; ci++) {
        const ut_codec *c = &ut_codecs[ci];
        for (cap = 0; cap < c->len; cap++) {
            ut_hdr h;
            uint8_t buf[MRC_HDR_MAX + 16];
            uint8_t *heap;
            mrc_wire_opts o = ut_rnd_opts(&r);
            int rc;
            c->rnd(&r, &h);
            memset(buf, 0xA5, sizeof buf);
            rc = c->enc(buf, cap, &o, &h);
            CHECKF(rc == MRC_ERR_NOBUF, "%s cap %u: encode returned %d, want MRC_ERR_NOBUF", c->name, (unsigned)cap,
                   rc);
            CHECKF(ut_all(buf + cap, sizeof buf - cap, 0xA5), "%s cap %u: wrote outside the cap", c->name,
                   (unsigned)cap);
            /* the same into a heap block of exactly cap bytes: ASan reports any write past it */
            heap = (uint8_t *)malloc(cap ? cap : 1u);
            CHECK(heap != NULL);
            rc = c->enc(heap, cap, &o, &h);
            free(heap);
            CHECKF(rc == MRC_ERR_NOBUF, "%s cap %u (heap): encode returned %d", c->name, (unsigned)cap, rc);
        }
    }
    return 0;
}

static int t_codec_truncated(void) {
    trng r;
    unsigned ci;
    size_t len;
    r.s = g_seed ^ 0x7121ull;
    for (ci = 0; ci < UT_NCODECS; ci++) {
        const ut_codec *c = &ut_codecs[ci];
        ut_hdr h;
        uint8_t enc[MRC_HDR_MAX];
        mrc_wire_opts o = ut_rnd_opts(&r);
        c->rnd(&r, &h);
        CHECK_EQ(c->enc(enc, sizeof enc, &o, &h), (int)c->len);
        for (len = 0; len < c->len; len++) {
            /* the len valid bytes sit at the very end of a heap block: any read past them is caught by ASan */
            uint8_t *blk = (uint8_t *)malloc(c->len);
            uint8_t *p;
            ut_hdr d, before;
            int rc;
            CHECK(blk != NULL);
            p = blk + (c->len - len);
            memcpy(p, enc, len);
            memset(&d, 0x5A, sizeof d);
            before = d;
            rc = c->dec(p, len, &o, &d);
            free(blk);
            CHECKF(rc == MRC_ERR_TRUNC, "%s len %u: decode returned %d, want MRC_ERR_TRUNC", c->name,
                   (unsigned)len, rc);
            CHECKF(memcmp(&d, &before, sizeof d) == 0, "%s len %u: output written on TRUNC", c->name, (unsigned)len);
        }
    }
    return 0;
}

static int t_codec_null_args(void) {
    unsigned ci;
    for (ci = 0; ci < UT_NCODECS; ci++) {
        const ut_codec *c = &ut_codecs[ci];
        ut_hdr h;
        uint8_t buf[MRC_HDR_MAX];
        mrc_wire_opts o = ut_opts(7, 0, 2);
        memset(&h, 0, sizeof h);
        memset(buf, 0, sizeof buf);
        CHECKF(c->enc((uint8_t *)0, sizeof buf, &o, &h) == MRC_ERR_INVAL, "%s: encode NULL buffer", c->name);
        if (c->has_hptr)
            CHECKF(c->enc(buf, sizeof buf, &o, (const ut_hdr *)0) == MRC_ERR_INVAL, "%s: encode NULL header",
                   c->name);
        CHECKF(c->dec((const uint8_t *)0, sizeof buf, &o, &h) == MRC_ERR_INVAL, "%s: decode NULL buffer", c->name);
        CHECKF(c->dec(buf, sizeof buf, &o, (ut_hdr *)0) == MRC_ERR_INVAL, "%s: decode NULL output", c->name);
    }
    return 0;
}

/* ================================================================================================================
 * 3. the codec's fast paths against its generic table code (white-box; see the top of this file)
 * ============================================================================================================== */
/* ---- the three entry points of each header, on ut_hdr ---------------------------------------------------------- */
#define CF_WRAP(NAME, T, FIELD)                                                                                   \
    static int cf_enc_##NAME##_f(uint8_t *p, size_t cap, const mrc_wire_opts *o, const ut_hdr *h) {               \
        (void)o;                                                                                                  \
        return mrc__##NAME##_encode_fast(p, cap, h ? &h->FIELD : (const T *)0);                                   \
    }                                                                                                             \
    static int cf_enc_##NAME##_g(uint8_t *p, size_t cap, const mrc_wire_opts *o, const ut_hdr *h) {               \
        (void)o;                                                                                                  \
        return mrc__##NAME##_encode_generic(p, cap, h ? &h->FIELD : (const T *)0);                                \
    }                                                                                                             \
    static int cf_dec_##NAME##_f(const uint8_t *p, size_t len, const mrc_wire_opts *o, ut_hdr *h) {               \
        (void)o;                                                                                                  \
        return mrc__##NAME##_decode_fast(p, len, h ? &h->FIELD : (T *)0);                                         \
    }                                                                                                             \
    static int cf_dec_##NAME##_g(const uint8_t *p, size_t len, const mrc_wire_opts *o, ut_hdr *h) {               \
        (void)o;                                                                                                  \
        return mrc__##NAME##_decode_generic(p, len, h ? &h->FIELD : (T *)0);                                      \
    }
#define CF_WRAP_O(NAME, T, FIELD)                                                                                 \
    static int cf_enc_##NAME##_f(uint8_t *p, size_t cap, const mrc_wire_opts *o, const ut_hdr *h) {               \
        return mrc__##NAME##_encode_fast(p, cap, o, h ? &h->FIELD : (const T *)0);                                \
    }                                                                                                             \
    static int cf_enc_##NAME##_g(uint8_t *p, size_t cap, const mrc_wire_opts *o, const ut_hdr *h) {               \
        return mrc__##NAME##_encode_generic(p, cap, o, h ? &h->FIELD : (const T *)0);                             \
    }                                                                                                             \
    static int cf_dec_##NAME##_f(const uint8_t *p, size_t len, const mrc_wire_opts *o, ut_hdr *h) {               \
        return mrc__##NAME##_decode_fast(p, len, o, h ? &h->FIELD : (T *)0);                                      \
    }                                                                                                             \
    static int cf_dec_##NAME##_g(const uint8_t *p, size_t len, const mrc_wire_opts *o, ut_hdr *h) {               \
        return mrc__##NAME##_decode_generic(p, len, o, h ? &h->FIELD : (T *)0);                                   \
    }
CF_WRAP_O(bth, mrc_bth, bth)
CF_WRAP(meth, mrc_meth, meth)
CF_WRAP(tseth, mrc_tseth, tseth)
CF_WRAP(reth, mrc_reth, reth)
CF_WRAP_O(seth, mrc_seth, seth)
CF_WRAP(cc_state, mrc_cc_state, cc)
static int cf_enc_immdt_f(uint8_t *p, size_t cap, const mrc_wire_opts *o, const ut_hdr *h) {
    (void)o;
    return mrc__immdt_encode_fast(p, cap, h ? h->imm : 0u);
}
static int cf_enc_immdt_g(uint8_t *p, size_t cap, const mrc_wire_opts *o, const ut_hdr *h) {
    (void)o;
    return mrc__immdt_encode_generic(p, cap, h ? h->imm : 0u);
}
static int cf_dec_immdt_f(const uint8_t *p, size_t len, const mrc_wire_opts *o, ut_hdr *h) {
    (void)o;
    return mrc__immdt_decode_fast(p, len, h ? &h->imm : (uint32_t *)0);
}
static int cf_dec_immdt_g(const uint8_t *p, size_t len, const mrc_wire_opts *o, ut_hdr *h) {
    (void)o;
    return mrc__immdt_decode_generic(p, len, h ? &h->imm : (uint32_t *)0);
}

typedef int (*cf_enc_fn)(uint8_t *p, size_t cap, const mrc_wire_opts *o, const ut_hdr *h);
typedef int (*cf_dec_fn)(const uint8_t *p, size_t len, const mrc_wire_opts *o, ut_hdr *h);
typedef struct {
    const char *name;
    size_t len;
    cf_enc_fn enc_f, enc_g, enc_pub; /* fast, generic, public (ut_enc_*: mrc_*_encode) */
    cf_dec_fn dec_f, dec_g, dec_pub;
    void (*rnd)(trng *r, ut_hdr *h);
    int (*bad)(ut_hdr *h, int i);
    int (*eq)(const ut_hdr *a, const ut_hdr *b);
} cf_codec;

#define CF_ROW(NAME, LEN, RND, BAD, EQ)                                                                           \
    {#NAME, LEN, cf_enc_##NAME##_f, cf_enc_##NAME##_g, ut_enc_##NAME, cf_dec_##NAME##_f, cf_dec_##NAME##_g,        \
     ut_dec_##NAME, RND, BAD, EQ}
static const cf_codec cf_codecs[] = {
    CF_ROW(bth, MRC_BTH_LEN, ut_rnd_bth, ut_bad_bth, ut_equ_bth),
    CF_ROW(meth, MRC_METH_LEN, ut_rnd_meth, ut_bad_none, ut_equ_meth),
    CF_ROW(tseth, MRC_TSETH_LEN, ut_rnd_tseth, ut_bad_tseth, ut_equ_tseth),
    CF_ROW(reth, MRC_RETH_LEN, ut_rnd_reth, ut_bad_none, ut_equ_reth),
    CF_ROW(immdt, MRC_IMMDT_LEN, ut_rnd_immdt, ut_bad_none, ut_equ_immdt),
    CF_ROW(seth, MRC_SETH_LEN, ut_rnd_seth, ut_bad_seth, ut_equ_seth),
    CF_ROW(cc_state, MRC_CCSTATE_LEN, ut_rnd_cc, ut_bad_cc, ut_equ_cc_state),
};
#define CF_NCODECS (sizeof cf_codecs / sizeof cf_codecs[0])

/* ---- wire options: what the fast paths take, and what they must hand to the generic code ---------------------- */
/* Index i of 0..CF_NOPTS-1 (CF_NOPTS - 1: NULL). bth_m_bit: 7, 6, and values that mean 7; sack_msb_first: 0, 1 and
 * another non-zero value (the generic code reverses for any non-zero); eeth_op_shift, ts_shift and tver, which no
 * fast path reads, odd values. */
static const uint8_t cf_mbits[] = {7, 6, 0, 5, 255};
static const uint8_t cf_msbs[] = {0, 1, 2};
#define CF_NOPTS (sizeof cf_mbits * sizeof cf_msbs + 1u)
static const mrc_wire_opts *cf_opts(unsigned i, trng *r, mrc_wire_opts *buf) {
    static const uint8_t eshift[] = {2, 4, 0, 3}, tsh[] = {7, 0, 63}, tver[] = {0, 15, 255};
    if (i >= CF_NOPTS - 1u) return (const mrc_wire_opts *)0;
    memset(buf, 0, sizeof *buf);
    buf->bth_m_bit = cf_mbits[i % sizeof cf_mbits];
    buf->sack_msb_first = cf_msbs[i / sizeof cf_mbits];
    buf->eeth_op_shift = eshift[trand_below(r, sizeof eshift)];
    buf->ts_shift = tsh[trand_below(r, sizeof tsh)];
    buf->tver = tver[trand_below(r, sizeof tver)];
    return buf;
}
static void cf_opts_str(const mrc_wire_opts *o, char *s, size_t n) {
    if (!o) snprintf(s, n, "NULL opts");
    else snprintf(s, n, "m_bit %u msb_first %u", (unsigned)o->bth_m_bit, (unsigned)o->sack_msb_first);
}

/* a header whose fields come from one of several shapes (see the file comment) */
static void cf_rnd_fields(trng *r, const cf_codec *c, const mrc_wire_opts *o, ut_hdr *h) {
    uint8_t raw[MRC_HDR_MAX];
    size_t i;
    int nbad, k;
    switch (trand_below(r, 8)) {
    case 0: case 1: case 2: /* in range, biased to the edges */
        c->rnd(r, h);
        break;
    case 3: /* one field past its width (the first value past it) */
        c->rnd(r, h);
        for (nbad = 0; nbad < 64; nbad++) {
            ut_hdr t = *h;
            if (!c->bad(&t, nbad)) break;
        }
        if (nbad) (void)c->bad(h, (int)trand_below(r, (uint32_t)nbad));
        break;
    case 4: /* random bytes over the whole struct: most fields far past their widths */
        for (i = 0; i < sizeof *h; i++) ((uint8_t *)h)[i] = (uint8_t)trand(r);
        break;
    case 5: /* uniform in range: the generic decode of random bytes */
    case 6: /* every field at its maximum, or every field 0 */
        for (i = 0; i < c->len; i++) raw[i] = (uint8_t)trand(r);
        k = (int)trand_below(r, 3);
        if (k == 1) memset(raw, 0xFF, c->len);
        if (k == 2) memset(raw, 0, c->len);
        memset(h, 0, sizeof *h);
        (void)c->dec_g(raw, c->len, o, h);
        break;
    default: /* in range, then one random bit flipped anywhere in the struct */
        c->rnd(r, h);
        ((uint8_t *)h)[trand_below(r, (uint32_t)sizeof *h)] ^= (uint8_t)(1u << trand_below(r, 8));
        break;
    }
}

/* ---- encoders ------------------------------------------------------------------------------------------------- */
static int t_codec_fast_encode(void) {
    trng r;
    unsigned ci, oi, it, n = 0, inval = 0, nobuf = 0;
    r.s = g_seed ^ 0xFA57E4C0DEull;
    for (ci = 0; ci < CF_NCODECS; ci++) {
        const cf_codec *c = &cf_codecs[ci];
        for (oi = 0; oi < CF_NOPTS; oi++) {
            for (it = 0; it < 300; it++) {
                mrc_wire_opts ob;
                const mrc_wire_opts *o = cf_opts(oi, &r, &ob);
                ut_hdr h;
                uint8_t bf[MRC_HDR_MAX + 16], bg[MRC_HDR_MAX + 16], bp[MRC_HDR_MAX + 16], junk = (uint8_t)trand(&r);
                size_t cap, i;
                int rf, rg, rp;
                char os[48];
                cf_rnd_fields(&r, c, o, &h);
                switch (trand_below(&r, 6)) {
                case 0: cap = trand_below(&r, (uint32_t)c->len + 3u); break; /* short, exact or one or two over */
                case 1: cap = c->len; break;
                default: cap = c->len + trand_below(&r, 17); break;
                }
                memset(bf, junk, sizeof bf);
                if (trand_below(&r, 2))
                    for (i = 0; i < sizeof bf; i++) bf[i] = (uint8_t)trand(&r);
                memcpy(bg, bf, sizeof bf);
                memcpy(bp, bf, sizeof bf);
                rf = c->enc_f(bf, cap, o, &h);
                rg = c->enc_g(bg, cap, o, &h);
                rp = c->enc_pub(bp, cap, o, &h);
                cf_opts_str(o, os, sizeof os);
                CHECKF(rf == rg && rp == rg, "%s encode (%s, cap %u): fast %d, generic %d, public %d", c->name, os,
                       (unsigned)cap, rf, rg, rp);
                CHECKF(ut_bytes_eq("fast vs generic", bf, bg, sizeof bf) &&
                           ut_bytes_eq("public vs generic", bp, bg, sizeof bp),
                       "%s encode (%s, cap %u, returned %d): bytes differ", c->name, os, (unsigned)cap, rg);
                n++;
                inval += rg == MRC_ERR_INVAL;
                nobuf += rg == MRC_ERR_NOBUF;
            }
        }
    }
    /* each shape must have been reached, or the comparison proves less than it claims */
    CHECKF(inval > n / 20 && nobuf > n / 40 && n - inval - nobuf > n / 4, "%u encodes: %u INVAL, %u NOBUF", n, inval,
           nobuf);
    note("%u encodes compared (%u INVAL, %u NOBUF, %u written)", n, inval, nobuf, n - inval - nobuf);
    return 0;
}

/* ---- decoders ------------------------------------------------------------------------------------------------- */
static int t_codec_fast_decode(void) {
    trng r;
    unsigned ci, oi, it, n = 0, trunc = 0;
    r.s = g_seed ^ 0xFA57DEC0DEull;
    for (ci = 0; ci < CF_NCODECS; ci++) {
        const cf_codec *c = &cf_codecs[ci];
        for (oi = 0; oi < CF_NOPTS; oi++) {
            for (it = 0; it < 300; it++) {
                mrc_wire_opts ob;
                const mrc_wire_opts *o = cf_opts(oi, &r, &ob);
                ut_hdr hf, hg, hp, src;
                uint8_t img[MRC_HDR_MAX + 16], *in;
                size_t len, i;
                int rf, rg, rp, flips;
                char os[48];
                switch (trand_below(&r, 4)) {
                case 0: /* random bytes */
                    for (i = 0; i < sizeof img; i++) img[i] = (uint8_t)trand(&r);
                    break;
                case 1: /* all ones or all zeros */
                    memset(img, trand_below(&r, 2) ? 0xFF : 0x00, sizeof img);
                    break;
                default: /* an encoding of an in-range header, 0-3 bits flipped */
                    for (i = 0; i < sizeof img; i++) img[i] = (uint8_t)trand(&r);
                    c->rnd(&r, &src);
                    (void)c->enc_g(img, sizeof img, o, &src);
                    for (flips = (int)trand_below(&r, 4); flips > 0; flips--)
                        img[trand_below(&r, (uint32_t)c->len)] ^= (uint8_t)(1u << trand_below(&r, 8));
                    break;
                }
                len = trand_below(&r, 4) == 0 ? trand_below(&r, (uint32_t)c->len) /* truncated */
                                              : c->len + trand_below(&r, 9);
                in = (uint8_t *)malloc(len ? len : 1u); /* exact size: AddressSanitizer sees an over-read */
                CHECK(in != NULL);
                memcpy(in, img, len);
                memset(&hf, (int)trand_below(&r, 256), sizeof hf);
                memcpy(&hg, &hf, sizeof hf);
                memcpy(&hp, &hf, sizeof hf);
                rf = c->dec_f(in, len, o, &hf);
                rg = c->dec_g(in, len, o, &hg);
                rp = c->dec_pub(in, len, o, &hp);
                free(in);
                cf_opts_str(o, os, sizeof os);
                CHECKF(rf == rg && rp == rg, "%s decode (%s, len %u): fast %d, generic %d, public %d", c->name, os,
                       (unsigned)len, rf, rg, rp);
                CHECKF(c->eq(&hf, &hg) && c->eq(&hp, &hg), "%s decode (%s, len %u): fields differ (above)", c->name,
                       os, (unsigned)len);
                CHECKF(memcmp(&hf, &hg, sizeof hf) == 0 && memcmp(&hp, &hg, sizeof hp) == 0,
                       "%s decode (%s, len %u): struct bytes differ", c->name, os, (unsigned)len);
                n++;
                trunc += rg == MRC_ERR_TRUNC;
            }
        }
    }
    CHECKF(trunc > n / 10 && trunc < n / 2, "%u decodes, %u truncated", n, trunc);
    note("%u decodes compared (%u truncated)", n, trunc);
    return 0;
}

/* NULL arguments give the same answer on every path and touch nothing */
static int t_codec_fast_null_args(void) {
    unsigned ci;
    for (ci = 0; ci < CF_NCODECS; ci++) {
        const cf_codec *c = &cf_codecs[ci];
        uint8_t b[MRC_HDR_MAX];
        ut_hdr h;
        int pass;
        memset(&h, 0, sizeof h);
        for (pass = 0; pass < 3; pass++) {
            cf_enc_fn e = pass == 0 ? c->enc_f : pass == 1 ? c->enc_g : c->enc_pub;
            cf_dec_fn d = pass == 0 ? c->dec_f : pass == 1 ? c->dec_g : c->dec_pub;
            memset(b, 0xA5, sizeof b);
            CHECKF(e((uint8_t *)0, sizeof b, (const mrc_wire_opts *)0, &h) == MRC_ERR_INVAL, "%s pass %d", c->name,
                   pass);
            CHECKF(d((const uint8_t *)0, sizeof b, (const mrc_wire_opts *)0, &h) == MRC_ERR_INVAL, "%s pass %d",
                   c->name, pass);
            CHECKF(d(b, sizeof b, (const mrc_wire_opts *)0, (ut_hdr *)0) == MRC_ERR_INVAL, "%s pass %d", c->name, pass);
            if (ci != 4) /* ImmDt's encoder takes a value, not a pointer */
                CHECKF(e(b, sizeof b, (const mrc_wire_opts *)0, (const ut_hdr *)0) == MRC_ERR_INVAL, "%s pass %d",
                       c->name, pass);
            CHECKF(ut_all(b, sizeof b, 0xA5), "%s pass %d: a NULL-argument call wrote", c->name, pass);
        }
    }
    return 0;
}

/* The fast paths take exactly the options they were written for (the SETH bitmap order) */
static int t_codec_fast_opts_claims(void) {
    trng r;
    unsigned oi;
    r.s = g_seed ^ 0xFA570975ull;
    for (oi = 0; oi < CF_NOPTS; oi++) {
        mrc_wire_opts ob;
        const mrc_wire_opts *o = cf_opts(oi, &r, &ob);
        int want = !o || o->sack_msb_first == 0;
        CHECKF(mrc__seth_fast_ok(o) == want, "option set %u: seth fast %d, want %d", oi, mrc__seth_fast_ok(o), want);
    }
    return 0;
}

/* ---- the packet classifier ------------------------------------------------------------------------------------ */
static const uint8_t cf_mrc_ops[] = {MRC_OP_WRITE_FIRST, MRC_OP_WRITE_MIDDLE, MRC_OP_WRITE_LAST, MRC_OP_WRITE_LAST_IMM,
                                     MRC_OP_WRITE_ONLY,  MRC_OP_WRITE_ONLY_IMM, MRC_OP_ACK,       MRC_OP_EP_REQ,
                                     MRC_OP_EP_RSP,      MRC_OP_SACK,           MRC_OP_NACK,      MRC_OP_PROBE_REQ};

/* A packet for opcode op: BTH (random fields, ts and pad as asked), the headers the opcode has (in-range random
 * fields, encoded by the public encoders in mrc_pkt_decode's order), then payload bytes and pad. Returns its length. */
static size_t cf_build_pkt(trng *r, const mrc_wire_opts *o, unsigned op, unsigned ts, unsigned pad, size_t payload,
                           uint8_t *buf, size_t cap) {
    static const struct { uint32_t flag; unsigned ci; } order[] = {
        {MRC_HDR_METH, 1}, {MRC_HDR_TSETH, 2}, {MRC_HDR_RETH, 3}, {MRC_HDR_IMMDT, 4}, {MRC_HDR_AETH, 5},
        {MRC_HDR_SETH, 6}, {MRC_HDR_CCSTATE, 7}, {MRC_HDR_NETH, 8}, {MRC_HDR_PETH, 9}, {MRC_HDR_ERTH, 10},
        {MRC_HDR_EETH, 11}};
    uint32_t want = mrc_opcode_hdrs(op);
    ut_hdr h;
    size_t off, i;
    unsigned k;
    ut_rnd_bth(r, &h);
    h.bth.opcode = (uint8_t)op;
    h.bth.ts = (uint8_t)ts;
    h.bth.pad = (uint8_t)pad;
    off = (size_t)mrc_bth_encode(buf, cap, o, &h.bth);
    if ((want & MRC_HDR_METH) && ts) want |= MRC_HDR_TSETH;
    for (k = 0; k < sizeof order / sizeof order[0]; k++) {
        const ut_codec *c = &ut_codecs[order[k].ci];
        if (!(want & order[k].flag)) continue;
        c->rnd(r, &h);
        off += (size_t)c->enc(buf + off, cap - off, o, &h);
    }
    for (i = 0; i < payload + pad && off < cap; i++) buf[off++] = (uint8_t)trand(r);
    return off;
}

/* mrc_endpoint_recv's decode (whole = false) writes only the members an opcode defines: the bookkeeping, its
 * headers, and a data packet's TSETH and immediate; compare those member by member (padding and the other headers
 * are left as they were). Opcodes it hands to the generic classifier are zeroed whole, as the reference. */
static int cf_rx_same(const mrc_pkt *d, const mrc_pkt *ref, const uint8_t *p, size_t len) {
    uint32_t want = len ? mrc_opcode_hdrs(p[0]) : 0u;
    int same = d->hdrs == ref->hdrs && d->hdr_len == ref->hdr_len && d->payload_len == ref->payload_len &&
               d->flags == ref->flags && ut_eq_bth(&d->bth, &ref->bth);
    if ((want & ~(uint32_t)MRC_HDR_IMMDT) == (uint32_t)(MRC_HDR_METH | MRC_HDR_RETH))
        return same && ut_eq_meth(&d->meth, &ref->meth) && ut_eq_tseth(&d->tseth, &ref->tseth) &&
               ut_eq_reth(&d->reth, &ref->reth) && d->imm == ref->imm;
    if (want == (uint32_t)(MRC_HDR_SETH | MRC_HDR_CCSTATE))
        return same && ut_eq_seth(&d->seth, &ref->seth) && ut_eq_cc(&d->cc, &ref->cc);
    return memcmp(d, ref, sizeof *d) == 0;
}

/* decode p[0..len) on the three paths (exact-size heap copy) and compare return codes and the whole mrc_pkt */
static int cf_pkt_cmp(trng *r, const uint8_t *p, size_t len, const mrc_wire_opts *o, int *rc, uint32_t *flags) {
    mrc_pkt kf, kg, kp, kr;
    uint8_t *in = (uint8_t *)malloc(len ? len : 1u);
    int rf, rg, rp, rr;
    char os[48];
    CHECK(in != NULL);
    memcpy(in, p, len);
    memset(&kf, (int)trand_below(r, 256), sizeof kf);
    memcpy(&kg, &kf, sizeof kf);
    memcpy(&kp, &kf, sizeof kf);
    memcpy(&kr, &kf, sizeof kf);
    rf = mrc__pkt_decode_fast(in, len, o, &kf, true);
    rg = mrc__pkt_decode_generic(in, len, o, &kg);
    rp = mrc_pkt_decode(in, len, o, &kp);
    rr = mrc__pkt_decode_fast(in, len, o, &kr, false);
    rr = rr == rg && cf_rx_same(&kr, &kg, in, len) ? rr : 99;
    free(in);
    cf_opts_str(o, os, sizeof os);
    CHECKF(rf == rg && rp == rg && rr == rg, "opcode 0x%02X, %u bytes (%s): fast %d, generic %d, public %d, receive %d (99: a member differs)",
           len ? p[0] : 0u, (unsigned)len, os, rf, rg, rp, rr);
    if (memcmp(&kf, &kg, sizeof kf) != 0 || memcmp(&kp, &kg, sizeof kp) != 0) {
        (void)(ut_eq_bth(&kf.bth, &kg.bth) && ut_eq_meth(&kf.meth, &kg.meth) && ut_eq_tseth(&kf.tseth, &kg.tseth) &&
               ut_eq_reth(&kf.reth, &kg.reth) && ut_eq_seth(&kf.seth, &kg.seth) && ut_eq_cc(&kf.cc, &kg.cc));
        CHECKF(0, "opcode 0x%02X, %u bytes (%s), returned %d: mrc_pkt differs (hdrs %#x/%#x hdr_len %u/%u payload "
                  "%u/%u flags %#x/%#x imm %#x/%#x)",
               len ? p[0] : 0u, (unsigned)len, os, rg, kf.hdrs, kg.hdrs, kf.hdr_len, kg.hdr_len, kf.payload_len,
               kg.payload_len, kf.flags, kg.flags, kf.imm, kg.imm);
    }
    *rc = rg;
    *flags = rg == MRC_OK ? kg.flags : 0u;
    return 0;
}

/* every opcode (MRC's more often), every ts and pad, each packet whole, cut at every length, and with bits flipped */
static int t_codec_fast_pkt(void) {
    trng r;
    unsigned oi, it, n = 0, ok = 0, cut = 0, trunc = 0, malformed = 0;
    r.s = g_seed ^ 0xFA57B4C7ull;
    for (oi = 0; oi < CF_NOPTS; oi++) {
        for (it = 0; it < 200; it++) {
            mrc_wire_opts ob;
            const mrc_wire_opts *o = cf_opts(oi, &r, &ob);
            uint8_t pkt[MRC_HDR_MAX + 128];
            unsigned op = trand_below(&r, 4) ? cf_mrc_ops[trand_below(&r, sizeof cf_mrc_ops)] : trand_below(&r, 256);
            size_t len, cutlen, i;
            uint32_t flags;
            int rc, flips;
            if (it % 8 == 7) { /* random bytes after a chosen opcode */
                len = trand_below(&r, (uint32_t)sizeof pkt + 1u);
                for (i = 0; i < len; i++) pkt[i] = (uint8_t)trand(&r);
                if (len) pkt[0] = (uint8_t)op;
            } else {
                len = cf_build_pkt(&r, o, op, trand_below(&r, 2), trand_below(&r, 4),
                                   trand_below(&r, 3) ? trand_below(&r, 48) : 0, pkt, sizeof pkt);
            }
            for (cutlen = 0; cutlen <= len; cutlen++) { /* the whole packet and every prefix */
                UT_TRY(cf_pkt_cmp(&r, pkt, cutlen, o, &rc, &flags));
                n++;
                ok += rc == MRC_OK;
                cut += (flags & MRC_PKT_CUT) != 0u;
                trunc += rc == MRC_ERR_TRUNC;
                malformed += rc == MRC_ERR_MALFORMED;
            }
            for (flips = 0; flips < 4 && len; flips++) { /* bits flipped, mostly in BTH */
                size_t at = trand_below(&r, 2) ? trand_below(&r, MRC_BTH_LEN) : trand_below(&r, (uint32_t)len);
                if (at >= len) at = len - 1;
                pkt[at] ^= (uint8_t)(1u << trand_below(&r, 8));
                UT_TRY(cf_pkt_cmp(&r, pkt, len, o, &rc, &flags));
                n++;
            }
        }
    }
    {
        mrc_pkt k;
        uint8_t b[MRC_BTH_LEN];
        memset(b, 0, sizeof b);
        CHECK(mrc__pkt_decode_fast((const uint8_t *)0, 64, (const mrc_wire_opts *)0, &k, true) == MRC_ERR_INVAL);
        CHECK(mrc__pkt_decode_fast(b, sizeof b, (const mrc_wire_opts *)0, (mrc_pkt *)0, false) == MRC_ERR_INVAL);
    }
    CHECKF(ok > n / 20 && cut > 0 && trunc > n / 4 && malformed > n / 100, "%u packets: %u OK (%u cut), %u TRUNC, "
           "%u MALFORMED", n, ok, cut, trunc, malformed);
    note("%u packets compared: %u OK (%u cut), %u TRUNC, %u MALFORMED", n, ok, cut, trunc, malformed);
    return 0;
}

const test_entry test_codec[] = {
    {"codec_bth_vector", t_codec_bth_vector},
    {"codec_meth_tseth_vector", t_codec_meth_tseth_vector},
    {"codec_reth_immdt_aeth_vector", t_codec_reth_immdt_aeth_vector},
    {"codec_seth_vector", t_codec_seth_vector},
    {"codec_ccstate_vector", t_codec_ccstate_vector},
    {"codec_neth_vector", t_codec_neth_vector},
    {"codec_peth_vector", t_codec_peth_vector},
    {"codec_erth_vector", t_codec_erth_vector},
    {"codec_eeth_vector", t_codec_eeth_vector},
    {"codec_null_opts_default", t_codec_null_opts_default},
    {"codec_roundtrip_random", t_codec_roundtrip_random},
    {"codec_field_overflow", t_codec_field_overflow},
    {"codec_short_buffer", t_codec_short_buffer},
    {"codec_truncated", t_codec_truncated},
    {"codec_null_args", t_codec_null_args},
    {"codec_fast_encode", t_codec_fast_encode},
    {"codec_fast_decode", t_codec_fast_decode},
    {"codec_fast_null_args", t_codec_fast_null_args},
    {"codec_fast_opts_claims", t_codec_fast_opts_claims},
    {"codec_fast_pkt", t_codec_fast_pkt},
    {NULL, NULL},
};
