/* mrc_test.c - the open MRC test suite: wire vectors, unit tests and scenarios in virtual time.
 *
 *   ./mrc_test                 run everything
 *   ./mrc_test -t sack         run tests whose name contains "sack" (repeatable)
 *   ./mrc_test -x slow         skip tests whose name contains "slow" (repeatable)
 *   ./mrc_test -l              list the tests
 *   MRC_TEST_SEED=n ./mrc_test override the base seed of every seeded test
 *
 * Every scenario runs two endpoints over tests/fixtures/mrc_wire.h (seeded, deterministic). A failing check prints the test,
 * the seed and the line, plus the state the test chose to dump; rerun with MRC_TEST_SEED to reproduce.
 * The last line is always "N passed, N failed".
 */
#define MRC_IMPLEMENTATION
#include "mrc.h"
#ifdef MRC_FASTCHECK /* make fast-check: every recv and poll_tx runs general code and fast path, compared */
#include "tests/fixtures/mrc_fastcheck.h"
#endif
#define MRC_WIRE_IMPLEMENTATION
#include "tests/fixtures/mrc_wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ================================================================================================================
 * harness
 * ============================================================================================================== */
static uint64_t g_seed = 1;     /* base seed; tests derive their own from it */
static const char *g_test = ""; /* running test */

static void fail_at(const char *file, int line, const char *what) {
    printf("  FAIL %s (seed %llu) %s:%d: %s\n", g_test, (unsigned long long)g_seed, file, line, what);
}
#define CHECK(cond)                                 \
    do {                                            \
        if (!(cond)) {                              \
            fail_at(__FILE__, __LINE__, #cond);     \
            return 1;                               \
        }                                           \
    } while (0)
#define CHECK_EQ(a, b)                                                                                        \
    do {                                                                                                      \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                                 \
        if (va_ != vb_) {                                                                                     \
            char m_[256];                                                                                     \
            snprintf(m_, sizeof m_, "%s == %s (%lld vs %lld)", #a, #b, va_, vb_);                            \
            fail_at(__FILE__, __LINE__, m_);                                                                  \
            return 1;                                                                                         \
        }                                                                                                     \
    } while (0)
/* CHECK with a printf-style explanation printed on failure */
#define CHECKF(cond, ...)                           \
    do {                                            \
        if (!(cond)) {                              \
            fail_at(__FILE__, __LINE__, #cond);     \
            printf("    ");                         \
            printf(__VA_ARGS__);                    \
            printf("\n");                           \
            return 1;                               \
        }                                           \
    } while (0)
/* verbose notes a test wants to report (measured numbers); printed with -v */
static int g_verbose = 0;
static void note(const char *fmt, ...) {
    va_list ap;
    if (!g_verbose) return;
    va_start(ap, fmt);
    printf("    ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/* deterministic PRNG for tests (splitmix64) */
typedef struct { uint64_t s; } trng;
static uint64_t trand(trng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static uint32_t trand_below(trng *r, uint32_t n) { return n ? (uint32_t)(trand(r) % n) : 0; }

/* ================================================================================================================
 * UNIT TESTS
 * Wire vectors hand-written from the layout tables of docs/PROTOCOL.md section 3.3 (never derived from the MRC__
 * layout macros), codec round trips and bounds, the packet classifier, PSN arithmetic, the ICRC helper,
 * configuration and endpoint calls, the QP state machine (section 4), the responder's and the requester's
 * reactions to hand-built packets fed straight into mrc_endpoint_recv (no wire), and the name tables.
 * Helpers are prefixed ut_; tests are t_<area>_<what>. Every test returns 0 on pass.
 * ============================================================================================================== */

#define UT_TRY(x)                \
    do {                         \
        if ((x) != 0) return 1;  \
    } while (0)

/* 1 when equal; otherwise prints the first differing bytes */
static int ut_bytes_eq(const char *what, const uint8_t *got, const uint8_t *want, size_t n) {
    size_t i;
    unsigned bad = 0;
    for (i = 0; i < n; i++) {
        if (got[i] == want[i]) continue;
        if (bad < 8) printf("    %s: byte %u is 0x%02X, want 0x%02X\n", what, (unsigned)i, got[i], want[i]);
        bad++;
    }
    if (bad) printf("    %s: %u byte(s) differ\n", what, bad);
    return bad == 0;
}

static int ut_all(const uint8_t *p, size_t n, uint8_t v) {
    size_t i;
    for (i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

static mrc_wire_opts ut_opts(unsigned mbit, unsigned msb_first, unsigned eshift) {
    mrc_wire_opts o;
    memset(&o, 0, sizeof o);
    o.bth_m_bit = (uint8_t)mbit;
    o.sack_msb_first = (uint8_t)msb_first;
    o.eeth_op_shift = (uint8_t)eshift;
    o.ts_shift = 7;
    return o;
}

/* random value of 'bits' bits, biased towards 0 and all-ones so edges are hit often */
static uint64_t ut_rbits(trng *r, unsigned bits) {
    uint64_t m = bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1u);
    switch (trand_below(r, 8)) {
    case 0: return 0;
    case 1: return m;
    default: return trand(r) & m;
    }
}

/* ---- typed field comparison (prints the first differing field) --------------------------------------------- */
#define UT_FEQ(f)                                                                                            \
    do {                                                                                                     \
        if ((uint64_t)(a->f) != (uint64_t)(b->f)) {                                                          \
            printf("    field %s: %lld vs %lld\n", #f, (long long)(a->f), (long long)(b->f));                 \
            return 0;                                                                                        \
        }                                                                                                    \
    } while (0)

static int ut_eq_bth(const mrc_bth *a, const mrc_bth *b) {
    UT_FEQ(opcode); UT_FEQ(se); UT_FEQ(m); UT_FEQ(pad); UT_FEQ(tver); UT_FEQ(resv8); UT_FEQ(a); UT_FEQ(r);
    UT_FEQ(rtx); UT_FEQ(ts); UT_FEQ(pkey); UT_FEQ(dest_qp); UT_FEQ(psn);
    return 1;
}
static int ut_eq_meth(const mrc_meth *a, const mrc_meth *b) {
    UT_FEQ(rqmsn); UT_FEQ(msn);
    return 1;
}
static int ut_eq_tseth(const mrc_tseth *a, const mrc_tseth *b) {
    UT_FEQ(tx_timestamp); UT_FEQ(tsr); UT_FEQ(ftype);
    return 1;
}
static int ut_eq_reth(const mrc_reth *a, const mrc_reth *b) {
    UT_FEQ(va); UT_FEQ(rkey); UT_FEQ(dma_len);
    return 1;
}
static int ut_eq_aeth(const mrc_aeth *a, const mrc_aeth *b) {
    UT_FEQ(syndrome); UT_FEQ(msn);
    return 1;
}
static int ut_eq_seth(const mrc_seth *a, const mrc_seth *b) {
    UT_FEQ(type); UT_FEQ(nxt); UT_FEQ(m); UT_FEQ(pr); UT_FEQ(ack_psn_offset); UT_FEQ(entropy); UT_FEQ(spdcid);
    UT_FEQ(dpdcid); UT_FEQ(cack_psn); UT_FEQ(cc_type); UT_FEQ(cc_fl); UT_FEQ(mpr); UT_FEQ(sack_offset);
    UT_FEQ(sack_bitmap);
    return 1;
}
static int ut_eq_cc(const mrc_cc_state *a, const mrc_cc_state *b) {
    UT_FEQ(tx_timestamp); UT_FEQ(ooo_count); UT_FEQ(r_c); UT_FEQ(rcv_cwnd_pen); UT_FEQ(rcvd_bytes);
    return 1;
}
static int ut_eq_neth(const mrc_neth *a, const mrc_neth *b) {
    UT_FEQ(type); UT_FEQ(nxt); UT_FEQ(nack_reason); UT_FEQ(vendor_info); UT_FEQ(entropy); UT_FEQ(spdcid);
    UT_FEQ(dpdcid); UT_FEQ(nack_psn); UT_FEQ(cc_type); UT_FEQ(cc_fl); UT_FEQ(tx_timestamp);
    return 1;
}
static int ut_eq_peth(const mrc_peth *a, const mrc_peth *b) {
    UT_FEQ(type); UT_FEQ(nxt); UT_FEQ(vendor_info); UT_FEQ(tsr); UT_FEQ(ftype); UT_FEQ(probe_id); UT_FEQ(spdcid);
    UT_FEQ(dpdcid); UT_FEQ(tx_timestamp);
    return 1;
}
static int ut_eq_erth(const mrc_erth *a, const mrc_erth *b) {
    UT_FEQ(type); UT_FEQ(nxt); UT_FEQ(op); UT_FEQ(vendor_info); UT_FEQ(tsr); UT_FEQ(ftype); UT_FEQ(port_status_mask);
    UT_FEQ(tx_timestamp);
    return 1;
}
static int ut_eq_eeth(const mrc_eeth *a, const mrc_eeth *b) {
    UT_FEQ(type); UT_FEQ(nxt); UT_FEQ(op); UT_FEQ(tx_timestamp);
    return 1;
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
 * 3. mrc_pkt_decode and mrc_opcode_hdrs
 * ============================================================================================================== */
/* the header set per opcode, written from docs/PROTOCOL.md section 3.2 (TSETH excluded) */
static uint32_t ut_expected_hdrs(unsigned op) {
    switch (op) {
    case 0xC6: case 0xC7: case 0xC8: case 0xCA: return MRC_HDR_METH | MRC_HDR_RETH;
    case 0xC9: case 0xCB: return MRC_HDR_METH | MRC_HDR_RETH | MRC_HDR_IMMDT;
    case 0xD1: return MRC_HDR_AETH;
    case 0xD8: return MRC_HDR_ERTH;
    case 0xD9: return MRC_HDR_EETH;
    case 0xDC: return MRC_HDR_SETH | MRC_HDR_CCSTATE;
    case 0xDD: return MRC_HDR_NETH;
    case 0xDE: return MRC_HDR_PETH;
    default: return 0;
    }
}
/* header bytes after BTH, from docs section 3.2 / 3.7 */
static uint32_t ut_hdrs_len(uint32_t h) {
    uint32_t n = 0;
    if (h & MRC_HDR_METH) n += 4;
    if (h & MRC_HDR_TSETH) n += 4;
    if (h & MRC_HDR_RETH) n += 16;
    if (h & MRC_HDR_IMMDT) n += 4;
    if (h & MRC_HDR_AETH) n += 4;
    if (h & MRC_HDR_SETH) n += 28;
    if (h & MRC_HDR_CCSTATE) n += 8;
    if (h & MRC_HDR_NETH) n += 20;
    if (h & MRC_HDR_PETH) n += 16;
    if (h & MRC_HDR_ERTH) n += 16;
    if (h & MRC_HDR_EETH) n += 36;
    return n;
}
static int ut_is_data_op(unsigned op) { return op >= 0xC6 && op <= 0xCB; }

static int t_pkt_decode_every_opcode(void) {
    unsigned op, ts, nvalid = 0;
    mrc_wire_opts o = ut_opts(7, 0, 2);
    for (op = 0; op < 256; op++) {
        for (ts = 0; ts < 2; ts++) {
            uint8_t p[160];
            mrc_pkt k;
            uint32_t want = ut_expected_hdrs(op), hl;
            int rc;
            memset(p, 0, sizeof p);
            p[0] = (uint8_t)op;
            p[2] = 0xFF; p[3] = 0xFF;
            p[7] = 0x42;
            p[8] = (uint8_t)(ts << 4);
            CHECKF(mrc_opcode_hdrs(op) == want, "mrc_opcode_hdrs(0x%02X) = 0x%X, want 0x%X", op,
                   (unsigned)mrc_opcode_hdrs(op), (unsigned)want);
            rc = mrc_pkt_decode(p, sizeof p, &o, &k);
            if (!want) {
                CHECKF(rc == MRC_ERR_MALFORMED, "opcode 0x%02X ts %u: rc %d, want MRC_ERR_MALFORMED", op, ts, rc);
                continue;
            }
            if (ts && ut_is_data_op(op)) want |= MRC_HDR_TSETH; /* TSETH only on data opcodes */
            hl = MRC_BTH_LEN + ut_hdrs_len(want);
            CHECKF(rc == MRC_OK, "opcode 0x%02X ts %u: rc %d", op, ts, rc);
            CHECKF(k.hdrs == want, "opcode 0x%02X ts %u: hdrs 0x%X, want 0x%X", op, ts, (unsigned)k.hdrs,
                   (unsigned)want);
            CHECKF(k.hdr_len == hl, "opcode 0x%02X ts %u: hdr_len %u, want %u", op, ts, (unsigned)k.hdr_len,
                   (unsigned)hl);
            CHECKF(k.payload_len == sizeof p - hl, "opcode 0x%02X: payload_len %u", op, (unsigned)k.payload_len);
            CHECK_EQ(k.bth.opcode, op);
            CHECK_EQ(k.bth.ts, ts);
            CHECK_EQ(k.bth.dest_qp, 0x42);
            nvalid++;
        }
    }
    CHECK_EQ(nvalid, 24); /* exactly the 12 MRC opcodes, ts 0 and 1 */
    /* the header sizes of docs section 3.7 */
    CHECK_EQ(MRC_BTH_LEN + ut_hdrs_len(ut_expected_hdrs(MRC_OP_SACK)), 48);
    CHECK_EQ(MRC_BTH_LEN + ut_hdrs_len(ut_expected_hdrs(MRC_OP_NACK)), 32);
    CHECK_EQ(MRC_BTH_LEN + ut_hdrs_len(ut_expected_hdrs(MRC_OP_PROBE_REQ)), 28);
    CHECK_EQ(MRC_BTH_LEN + ut_hdrs_len(ut_expected_hdrs(MRC_OP_ACK)), 16);
    CHECK_EQ(MRC_BTH_LEN + ut_hdrs_len(ut_expected_hdrs(MRC_OP_EP_RSP)), 48);
    CHECK(MRC_BTH_LEN + ut_hdrs_len(ut_expected_hdrs(MRC_OP_WRITE_ONLY_IMM) | MRC_HDR_TSETH) <= MRC_HDR_MAX);
    return 0;
}

static int t_pkt_decode_truncated(void) {
    unsigned op, ts;
    size_t len;
    mrc_wire_opts o = ut_opts(7, 0, 2);
    for (op = 0; op < 256; op++) {
        for (ts = 0; ts < 2; ts++) {
            uint32_t want = ut_expected_hdrs(op), hl;
            if (ts && ut_is_data_op(op)) want |= MRC_HDR_TSETH;
            hl = (uint32_t)MRC_BTH_LEN + (want ? ut_hdrs_len(want) : 0u);
            for (len = 0; len < hl; len++) {
                uint8_t *blk = (uint8_t *)malloc(hl);
                uint8_t *p;
                mrc_pkt k;
                int rc;
                CHECK(blk != NULL);
                p = blk + (hl - len); /* the bytes end where the block ends */
                memset(p, 0, len);
                if (len > 0) p[0] = (uint8_t)op;
                if (len > 8) p[8] = (uint8_t)(ts << 4);
                rc = mrc_pkt_decode(p, len, &o, &k);
                free(blk);
                CHECKF(rc == MRC_ERR_TRUNC, "opcode 0x%02X ts %u len %u: rc %d, want MRC_ERR_TRUNC", op, ts,
                       (unsigned)len, rc);
            }
        }
    }
    return 0;
}

static int t_pkt_decode_pad(void) {
    static const unsigned ops[3] = {MRC_OP_WRITE_ONLY, MRC_OP_SACK, MRC_OP_ACK};
    mrc_wire_opts o = ut_opts(7, 0, 2);
    unsigned i, pad, extra;
    for (i = 0; i < 3; i++) {
        uint32_t hl = MRC_BTH_LEN + ut_hdrs_len(ut_expected_hdrs(ops[i]) |
                                                (ut_is_data_op(ops[i]) ? (uint32_t)MRC_HDR_TSETH : 0u));
        for (pad = 0; pad < 4; pad++) {
            for (extra = 0; extra < 7; extra++) {
                uint8_t p[128];
                mrc_pkt k;
                int rc;
                memset(p, 0, sizeof p);
                p[0] = (uint8_t)ops[i];
                p[1] = (uint8_t)(pad << 4);
                p[8] = 0x10; /* ts */
                rc = mrc_pkt_decode(p, hl + extra, &o, &k);
                if (extra < pad && !ut_is_data_op(ops[i])) {
                    CHECKF(rc == MRC_ERR_MALFORMED, "op 0x%02X pad %u extra %u: rc %d, want MALFORMED", ops[i], pad,
                           extra, rc);
                } else if (extra < pad) { /* a data packet cut inside its pad: trimmed, not malformed */
                    CHECKF(rc == MRC_OK, "op 0x%02X pad %u extra %u: rc %d, want OK", ops[i], pad, extra, rc);
                    CHECK(k.flags & MRC_PKT_CUT);
                    CHECK_EQ(k.payload_len, 0);
                    CHECK_EQ(k.hdr_len, hl);
                } else {
                    CHECK(!(k.flags & MRC_PKT_CUT));
                    CHECKF(rc == MRC_OK, "op 0x%02X pad %u extra %u: rc %d", ops[i], pad, extra, rc);
                    CHECK_EQ(k.hdr_len, hl);
                    CHECK_EQ(k.bth.pad, pad);
                    CHECKF(k.payload_len == extra - pad, "op 0x%02X pad %u extra %u: payload_len %u", ops[i], pad,
                           extra, (unsigned)k.payload_len);
                }
            }
        }
    }
    return 0;
}

/* a whole data packet built from the encoders decodes field for field, and the payload starts at hdr_len */
static int t_pkt_decode_fields(void) {
    mrc_wire_opts o = ut_opts(6, 1, 4);
    mrc_bth b, bd;
    mrc_meth m;
    mrc_tseth t;
    mrc_reth re;
    mrc_pkt k;
    uint8_t p[96];
    size_t off = 0;
    memset(&b, 0, sizeof b);
    b.opcode = MRC_OP_WRITE_LAST_IMM; b.se = 1; b.pad = 2; b.pkey = 0x8001; b.dest_qp = 0x00BEEF; b.a = 1;
    b.ts = 1; b.psn = 0xFFFFFF;
    m.rqmsn = 7; m.msn = 0xFFFF;
    t.tx_timestamp = 0x1234; t.tsr = 0; t.ftype = 1;
    re.va = 0xFFFFFFFF00001000ull; re.rkey = 0x1234; re.dma_len = 1000;
    off += (size_t)mrc_bth_encode(p + off, sizeof p - off, &o, &b);
    off += (size_t)mrc_meth_encode(p + off, sizeof p - off, &m);
    off += (size_t)mrc_tseth_encode(p + off, sizeof p - off, &t);
    off += (size_t)mrc_reth_encode(p + off, sizeof p - off, &re);
    off += (size_t)mrc_immdt_encode(p + off, sizeof p - off, 0xCAFEF00Du);
    CHECK_EQ(off, 40);
    memcpy(p + off, "abcdefghij", 10); /* payload 10, pad 2 */
    p[off + 10] = 0;
    p[off + 11] = 0;
    CHECK_EQ(mrc_pkt_decode(p, off + 12, &o, &k), MRC_OK);
    bd = k.bth;
    CHECK(ut_eq_bth(&bd, &b));
    CHECK(ut_eq_meth(&k.meth, &m));
    CHECK(ut_eq_tseth(&k.tseth, &t));
    CHECK(ut_eq_reth(&k.reth, &re));
    CHECK_EQ(k.imm, 0xCAFEF00Du);
    CHECK_EQ(k.hdrs, MRC_HDR_METH | MRC_HDR_TSETH | MRC_HDR_RETH | MRC_HDR_IMMDT);
    CHECK_EQ(k.hdr_len, 40);
    CHECK_EQ(k.payload_len, 10);
    CHECK(memcmp(p + k.hdr_len, "abcdefghij", 10) == 0);
    /* NULL arguments */
    CHECK_EQ(mrc_pkt_decode((const uint8_t *)0, 40, &o, &k), MRC_ERR_INVAL);
    CHECK_EQ(mrc_pkt_decode(p, 40, &o, (mrc_pkt *)0), MRC_ERR_INVAL);
    return 0;
}

/* ================================================================================================================
 * 4. PSN serial arithmetic (24 bits, +-2^23)
 * ============================================================================================================== */
static int t_psn_arith(void) {
    trng r;
    int i;
    CHECK_EQ(mrc_psn_add(0, -1), 0xFFFFFF);
    CHECK_EQ(mrc_psn_add(0xFFFFFF, 1), 0);
    CHECK_EQ(mrc_psn_add(0xFFFFFE, 5), 3);
    CHECK_EQ(mrc_psn_add(0x7FFFFF, 1), 0x800000);
    CHECK_EQ(mrc_psn_add(5, -6), 0xFFFFFF);
    CHECK_EQ(mrc_psn_add(0x123456, 0x1000000), 0x123456); /* a whole turn */
    CHECK_EQ(mrc_psn_add(0x123456, -0x800000), 0x923456);
    CHECK_EQ(mrc_psn_add(0, INT32_MIN), 0);
    CHECK_EQ(mrc_psn_diff(0, 0xFFFFFF), 1);
    CHECK_EQ(mrc_psn_diff(0xFFFFFF, 0), -1);
    CHECK_EQ(mrc_psn_diff(5, 5), 0);
    CHECK_EQ(mrc_psn_diff(0x7FFFFF, 0), 0x7FFFFF);
    CHECK_EQ(mrc_psn_diff(0, 0x7FFFFF), -0x7FFFFF);
    CHECK_EQ(mrc_psn_diff(0x800000, 0), -0x800000); /* exactly 2^23 apart: maps to -2^23 both ways */
    CHECK_EQ(mrc_psn_diff(0, 0x800000), -0x800000);
    CHECK_EQ(mrc_psn_diff(0x000010, 0xFFFFF0), 0x20);
    CHECK_EQ(mrc_psn_diff(0xFFFFF0, 0x000010), -0x20);
    CHECK(mrc_psn_lt(0xFFFFFF, 0));
    CHECK(!mrc_psn_lt(0, 0xFFFFFF));
    CHECK(!mrc_psn_lt(7, 7));
    CHECK(mrc_psn_lt(0, 0x7FFFFF));
    CHECK(!mrc_psn_lt(0x7FFFFF, 0));
    CHECK(mrc_psn_lt(0, 0x800000) && mrc_psn_lt(0x800000, 0)); /* documented: each "less than" the other */
    CHECK(mrc_psn_lt(0x800001, 0));
    CHECK(!mrc_psn_lt(0, 0x800001));
    r.s = g_seed ^ 0x95Eull;
    for (i = 0; i < 20000; i++) {
        uint32_t a = (uint32_t)trand(&r) & MRC_PSN_MASK, b2;
        int32_t n = (int32_t)(trand_below(&r, 0x1000000u)) - 0x800000; /* [-2^23, 2^23) */
        b2 = mrc_psn_add(a, n);
        CHECKF(b2 <= MRC_PSN_MASK, "add(%u, %d) = %u exceeds 24 bits", (unsigned)a, (int)n, (unsigned)b2);
        CHECKF(mrc_psn_diff(b2, a) == n, "diff(add(%u, %d), %u) = %d", (unsigned)a, (int)n, (unsigned)a,
               (int)mrc_psn_diff(b2, a));
        CHECKF(mrc_psn_lt(a, b2) == (n > 0 || n == -0x800000), "lt(%u, %u), n %d", (unsigned)a, (unsigned)b2, (int)n);
        CHECKF(n == -0x800000 || n == 0 || mrc_psn_diff(a, b2) == -n, "diff antisymmetry a %u n %d", (unsigned)a,
               (int)n);
    }
    return 0;
}

/* ================================================================================================================
 * 5. CRC-32 and the RoCEv2 ICRC
 * What is checked: mrc_crc32 is the IEEE 802.3 / zlib CRC-32 (check value 0xCBF43926) and is incremental;
 * mrc_icrc equals an independent bit-at-a-time CRC-32 over 8 bytes of 0xFF, the IP header, UDP header and the MRC
 * bytes with the variant fields set to 1s (IPv4 TOS, TTL, header checksum; IPv6 traffic class, flow label, hop
 * limit; UDP checksum; BTH byte 4); flipping any variant bit leaves it unchanged, flipping any other bit changes
 * it; unparseable input gives 0. On the wire the ICRC's least significant byte goes first (mrc_icrc_put), which a
 * real ConnectX-4 Lx capture confirms (t_icrc_hw_vector).
 * ============================================================================================================== */
static uint32_t ut_crc32_bitwise(uint32_t crc, const uint8_t *p, size_t n) {
    size_t i;
    int b;
    crc = ~crc;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (b = 0; b < 8; b++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static int t_icrc_crc32_check_value(void) {
    static const uint8_t s[9] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
    uint8_t big[1000];
    trng r;
    size_t i;
    CHECK_EQ(mrc_crc32(0, s, 9), 0xCBF43926u);
    CHECK_EQ(mrc_crc32(mrc_crc32(0, s, 4), s + 4, 5), 0xCBF43926u);
    CHECK_EQ(mrc_crc32(0, s, 0), 0);
    CHECK_EQ(mrc_crc32(0x12345678u, s, 0), 0x12345678u);
    r.s = g_seed ^ 0xC4Cull;
    for (i = 0; i < sizeof big; i++) big[i] = (uint8_t)trand(&r);
    CHECK_EQ(mrc_crc32(0, big, sizeof big), ut_crc32_bitwise(0, big, sizeof big));
    return 0;
}

/* A RoCEv2 CNP captured on a ConnectX-4 Lx, published as a test vector in Scapy's RoCE tests
 * (github.com/secdev/scapy, test/contrib/roce.uts, "RoCE CNP captured on ConnectX-4 Lx"). From the IPv4 header
 * on: IPv4 (20) | UDP sport 0, dport 4791 (8) | BTH opcode 0x81, byte 4 = 0x40 (BECN, masked) (12) | 16 zero
 * bytes | ICRC on the wire 82 fd 00 2a. Only the frame bytes were taken from there. */
static int t_icrc_hw_vector(void) {
    static const uint8_t f[56] = {
        0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00, 0x11, 0x01,
        0x0a, 0x00, 0x12, 0x01, 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00, 0x81, 0x00, 0xff, 0xff,
        0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    static const uint8_t wire[4] = {0x82, 0xfd, 0x00, 0x2a};
    uint8_t out[4], g[56];
    uint32_t c = mrc_icrc(f, sizeof f);
    mrc_icrc_put(out, c);
    CHECKF(memcmp(out, wire, 4) == 0, "icrc 0x%08X -> wire %02x %02x %02x %02x, want 82 fd 00 2a", (unsigned)c,
           out[0], out[1], out[2], out[3]);
    CHECK_EQ(mrc_icrc_get(wire), c);
    /* the capture has BECN set in BTH byte 4: clearing it must not change the ICRC */
    memcpy(g, f, sizeof g);
    g[32] = 0x00;
    CHECK_EQ(mrc_icrc(g, sizeof g), c);
    return 0;
}

/* reference ICRC: independent masking + bit-at-a-time CRC */
static uint32_t ut_icrc_ref(const uint8_t *l3, size_t len) {
    static const uint8_t ff[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    uint8_t m[512];
    size_t ip = (l3[0] >> 4) == 6 ? 40u : (size_t)(l3[0] & 15u) * 4u;
    memcpy(m, l3, len);
    if ((l3[0] >> 4) == 6) {
        m[0] |= 0x0F;
        m[1] = m[2] = m[3] = 0xFF;
        m[7] = 0xFF;
    } else {
        m[1] = 0xFF;
        m[8] = 0xFF;
        m[10] = m[11] = 0xFF;
    }
    m[ip + 6] = m[ip + 7] = 0xFF;
    m[ip + 8 + 4] = 0xFF;
    return ut_crc32_bitwise(ut_crc32_bitwise(0, ff, 8), m, len);
}

/* Build IP | UDP | data packet (BTH..RETH, 13 bytes payload, 3 pad). v6: IPv6, else IPv4 with ihl words. */
static size_t ut_icrc_frame(uint8_t *f, int v6, unsigned ihl) {
    size_t ip = v6 ? 40u : (size_t)ihl * 4u, n, i;
    mrc_wire_opts o = ut_opts(7, 0, 2);
    mrc_bth b;
    mrc_meth m;
    mrc_reth re;
    memset(f, 0, 200);
    if (v6) {
        static const uint8_t h6[8] = {0x6A, 0xBC, 0xDE, 0xF1, 0x00, 0x2C, 0x11, 0x40};
        memcpy(f, h6, 8);
        for (i = 8; i < 40; i++) f[i] = (uint8_t)(0x20 + i);
    } else {
        static const uint8_t h4[20] = {0x45, 0x0A, 0x00, 0x50, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11,
                                       0xAB, 0xCD, 0x0A, 0x00, 0x00, 0x01, 0x0A, 0x00, 0x00, 0x02};
        memcpy(f, h4, 20);
        f[0] = (uint8_t)(0x40 | ihl);
        for (i = 20; i < ip; i++) f[i] = (uint8_t)(0x90 + i); /* options */
    }
    f[ip + 0] = 0xC0; f[ip + 1] = 0x01; f[ip + 2] = 0x12; f[ip + 3] = 0xB7; /* sport, dport 4791 */
    f[ip + 4] = 0x00; f[ip + 5] = 0x3C; f[ip + 6] = 0xBE; f[ip + 7] = 0xEF; /* len, checksum */
    n = ip + 8;
    memset(&b, 0, sizeof b);
    b.opcode = MRC_OP_WRITE_ONLY; b.pad = 3; b.pkey = 0xFFFF; b.resv8 = 0x5C; b.dest_qp = 0x123; b.a = 1;
    b.psn = 0x777;
    m.rqmsn = 1; m.msn = 2;
    re.va = 0x1000; re.rkey = 0x155; re.dma_len = 13;
    n += (size_t)mrc_bth_encode(f + n, 64, &o, &b);
    n += (size_t)mrc_meth_encode(f + n, 64, &m);
    n += (size_t)mrc_reth_encode(f + n, 64, &re);
    for (i = 0; i < 13; i++) f[n + i] = (uint8_t)(0xA0 + i);
    return n + 16;
}

static int ut_icrc_flip_all(const char *what, uint8_t *f, size_t len, const uint8_t *variant /* per-byte mask */) {
    uint32_t base = mrc_icrc(f, len);
    size_t i;
    unsigned bit;
    CHECKF(base == ut_icrc_ref(f, len), "%s: icrc 0x%08X, reference 0x%08X", what, (unsigned)base,
           (unsigned)ut_icrc_ref(f, len));
    CHECK(base != 0);
    for (i = 0; i < len; i++) {
        for (bit = 0; bit < 8; bit++) {
            uint32_t c;
            int masked = (variant[i] >> bit) & 1;
            f[i] ^= (uint8_t)(1u << bit);
            c = mrc_icrc(f, len);
            f[i] ^= (uint8_t)(1u << bit);
            CHECKF(masked ? c == base : c != base, "%s: flipping byte %u bit %u %s the ICRC", what, (unsigned)i, bit,
                   masked ? "changed" : "did not change");
        }
    }
    return 0;
}

static int t_icrc_masks_ipv4(void) {
    uint8_t f[200], var[200];
    unsigned ihl;
    for (ihl = 5; ihl <= 6; ihl++) { /* without and with one option word */
        size_t ip = ihl * 4u, len = ut_icrc_frame(f, 0, ihl);
        char what[32];
        memset(var, 0, sizeof var);
        var[1] = 0xFF;                  /* TOS (DSCP + ECN) */
        var[8] = 0xFF;                  /* TTL */
        var[10] = var[11] = 0xFF;       /* header checksum */
        var[ip + 6] = var[ip + 7] = 0xFF; /* UDP checksum */
        var[ip + 8 + 4] = 0xFF;         /* BTH byte 4 */
        snprintf(what, sizeof what, "ipv4 ihl %u", ihl);
        UT_TRY(ut_icrc_flip_all(what, f, len, var));
    }
    return 0;
}

static int t_icrc_masks_ipv6(void) {
    uint8_t f[200], var[200];
    size_t len = ut_icrc_frame(f, 1, 0);
    memset(var, 0, sizeof var);
    var[0] = 0x0F;                /* traffic class, high nibble */
    var[1] = var[2] = var[3] = 0xFF; /* traffic class low nibble + flow label */
    var[7] = 0xFF;                /* hop limit */
    var[46] = var[47] = 0xFF;     /* UDP checksum */
    var[52] = 0xFF;               /* BTH byte 4 */
    return ut_icrc_flip_all("ipv6", f, len, var);
}

static int t_icrc_bad_input(void) {
    uint8_t f[200];
    size_t len4 = ut_icrc_frame(f, 0, 5), len6;
    CHECK_EQ(mrc_icrc((const uint8_t *)0, 64), 0);
    CHECK_EQ(mrc_icrc(f, 0), 0);
    CHECK_EQ(mrc_icrc(f, 20 + 8 + 12 - 1), 0); /* shorter than IPv4 + UDP + BTH */
    CHECK(mrc_icrc(f, 20 + 8 + 12) == ut_icrc_ref(f, 20 + 8 + 12));
    CHECK(mrc_icrc(f, len4) != 0);
    f[0] = 0x44; /* IHL 4: below the minimum */
    CHECK_EQ(mrc_icrc(f, len4), 0);
    f[0] = 0x55; /* version 5 */
    CHECK_EQ(mrc_icrc(f, len4), 0);
    f[0] = 0x05; /* version 0 */
    CHECK_EQ(mrc_icrc(f, len4), 0);
    f[0] = 0x4F; /* IHL 15 = 60 bytes of IP header: needs 80 bytes */
    CHECK_EQ(mrc_icrc(f, 79), 0);
    len6 = ut_icrc_frame(f, 1, 0);
    CHECK_EQ(mrc_icrc(f, 40 + 8 + 12 - 1), 0);
    CHECK(mrc_icrc(f, 40 + 8 + 12) == ut_icrc_ref(f, 40 + 8 + 12));
    CHECK(mrc_icrc(f, len6) != 0);
    return 0;
}

static int t_icrc_put_get(void) {
    static const uint8_t le[4] = {0x44, 0x33, 0x22, 0x11};
    uint8_t out[4];
    trng r;
    int i;
    mrc_icrc_put(out, 0x11223344u);
    CHECK(memcmp(out, le, 4) == 0); /* least significant byte first on the wire, as rxe stores it */
    CHECK_EQ(mrc_icrc_get(le), 0x11223344u);
    r.s = g_seed ^ 0x1C2Cull;
    for (i = 0; i < 1000; i++) {
        uint32_t v = (uint32_t)trand(&r);
        mrc_icrc_put(out, v);
        CHECK_EQ(mrc_icrc_get(out), v);
        CHECK_EQ(out[0], v & 0xFFu);
        CHECK_EQ(out[3], v >> 24);
    }
    return 0;
}

/* ================================================================================================================
 * fixtures: one endpoint, one conn, one registered region between guard bands
 * ============================================================================================================== */
#define UT_GUARD 64u
#define UT_REGION 2048u
#define UT_MEM (UT_GUARD + UT_REGION + UT_GUARD)
#define UT_IOVA 0x0000123400000000ull /* above 2^32: a truncated VA would show */
#define UT_PEER_QPN 0x004321u
#define UT_T0 ((mrc_time)1000000)
#define UT_EV 0xC0DEu
#define UT_M_INIT (MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE)
#define UT_M_RTR                                                                                              \
    (MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU | MRC_ATTR_MPR_DEST |            \
     MRC_ATTR_MAX_WIMM_DEST)
#define UT_M_RTS                                                                                              \
    (MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT)

typedef struct {
    mrc_config cfg;
    mrc_endpoint ep;
    mrc_conn c;
    mrc_conn_attr attr;
    mrc_time now;
    uint32_t rkey;
    uint8_t mem[UT_MEM];  /* guard | region | guard */
    uint8_t snap[UT_MEM]; /* what mem must hold */
    /* placement hook record */
    int place_rc;
    unsigned place_calls;
    uint32_t place_rkey, place_len;
    uint64_t place_off;
    void *place_user;
    uint8_t place_first;
} ut_fix;
static ut_fix ut_fx;
static mrc_conn ut_conns[MRC_MAX_CONNS + 1];

static void ut_cfg(mrc_config *cfg) {
    mrc_config_default(cfg);
    cfg->seed = g_seed * 0x9E3779B97F4A7C15ull + 0x55u;
    cfg->num_ports = 2;    /* two EV slots: slot 0 on port 1, slot 1 on port 2 (P12) */
    cfg->evs_per_port = 1;
    cfg->rev_ev_echo = true; /* control packets echo the arrival EV: the tests below check that exact value; the
                                default per-plane reverse EV (Q19) has its own tests */
}

static void ut_attr(mrc_conn_attr *a, uint32_t rq, uint32_t sq) {
    memset(a, 0, sizeof *a);
    a->pkey = 0xFFFF;
    a->access = MRC_ACCESS_REMOTE_WRITE;
    a->dest_qpn = UT_PEER_QPN;
    a->rq_psn = rq;
    a->path_mtu = 256;
    a->mpr_dest = 1;
    a->max_wimm_dest = 4;
    a->peer = 0x77;
    a->sq_psn = sq;
    a->mpr = 1;
    a->max_wimm = 4;
    a->retry_linear = 7;
    a->retry_exp = 7;
    a->timeout = 14;
}

/* RESET -> state through the legal path, with every value from a */
static int ut_goto(mrc_conn *c, const mrc_conn_attr *base, unsigned state, mrc_time now) {
    mrc_conn_attr a = *base;
    int rc;
    if (state == MRC_QPS_RESET) return MRC_OK;
    if (state == MRC_QPS_ERR) {
        a.state = MRC_QPS_ERR;
        return mrc_conn_modify(c, &a, MRC_ATTR_STATE, now);
    }
    a.state = MRC_QPS_INIT;
    rc = mrc_conn_modify(c, &a, UT_M_INIT | MRC_ATTR_PKEY | MRC_ATTR_ACCESS, now);
    if (rc || state == MRC_QPS_INIT) return rc;
    a.state = MRC_QPS_RTR;
    rc = mrc_conn_modify(c, &a, UT_M_RTR | MRC_ATTR_CAPS | MRC_ATTR_PEER, now);
    if (rc || state == MRC_QPS_RTR) return rc;
    a.state = MRC_QPS_RTS;
    return mrc_conn_modify(c, &a, UT_M_RTS, now);
}

static int ut_place_hook(void *ud, uint32_t rkey, void *region_user, uint64_t offset, const uint8_t *src,
                         uint32_t len) {
    ut_fix *f = (ut_fix *)ud;
    f->place_calls++;
    f->place_rkey = rkey;
    f->place_user = region_user;
    f->place_off = offset;
    f->place_len = len;
    f->place_first = len ? src[0] : 0;
    return f->place_rc;
}

/* cfg NULL: ut_cfg. Region pattern i*31+7, guards 0xEE. */
static int ut_setup(ut_fix *f, const mrc_config *cfg, unsigned state, uint32_t rq, uint32_t sq) {
    size_t i;
    int rc;
    memset(f, 0, sizeof *f);
    if (cfg) f->cfg = *cfg;
    else ut_cfg(&f->cfg);
    f->now = UT_T0;
    rc = mrc_endpoint_init(&f->ep, &f->cfg, f->now);
    if (rc) return rc;
    rc = mrc_conn_init(&f->ep, &f->c, f->now);
    if (rc) return rc;
    for (i = 0; i < UT_MEM; i++)
        f->mem[i] = (i < UT_GUARD || i >= UT_GUARD + UT_REGION) ? 0xEE : (uint8_t)(i * 31u + 7u);
    memcpy(f->snap, f->mem, UT_MEM);
    rc = mrc_endpoint_reg_mr(&f->ep, f->mem + UT_GUARD, UT_IOVA, UT_REGION, MRC_ACCESS_REMOTE_WRITE, f, &f->rkey);
    if (rc) return rc;
    ut_attr(&f->attr, rq, sq);
    return ut_goto(&f->c, &f->attr, state, f->now);
}

/* memory equals the expected image, guard bands included */
static int ut_mem_ok(const ut_fix *f, const char *what) {
    return ut_bytes_eq(what, f->mem, f->snap, UT_MEM);
}
static void ut_expect_place(ut_fix *f, uint64_t off, const uint8_t *p, uint32_t n) {
    memcpy(f->snap + UT_GUARD + off, p, n);
}

static mrc_rxinfo ut_ri(unsigned port, uint32_t ev) {
    mrc_rxinfo ri;
    memset(&ri, 0, sizeof ri);
    ri.port = (uint8_t)port;
    ri.dscp = 10; /* TRIMMABLE default codepoint */
    ri.ev = ev;
    return ri;
}

/* ---- hand-built packets ------------------------------------------------------------------------------------ */
typedef struct {
    unsigned op;
    uint32_t qp, psn, rkey, dma_len, imm, plen;
    uint16_t pkey, msn, rqmsn, ts;
    uint8_t a, rtx, se, ts_on;
    int pad; /* -1: (4 - plen % 4) % 4 */
    uint64_t va;
    const uint8_t *pl;
} ut_data;

static void ut_data_init(ut_data *d, const ut_fix *f, uint32_t psn, uint16_t msn, const uint8_t *pl, uint32_t plen) {
    memset(d, 0, sizeof *d);
    d->op = MRC_OP_WRITE_ONLY;
    d->qp = mrc_conn_qpn(&f->c);
    d->pkey = 0xFFFF;
    d->psn = psn;
    d->msn = msn;
    d->a = 1;
    d->ts_on = 1;
    d->ts = 0x1234;
    d->va = UT_IOVA;
    d->rkey = f->rkey;
    d->dma_len = plen;
    d->pl = pl;
    d->plen = plen;
    d->pad = -1;
}

static size_t ut_build_data(uint8_t *buf, size_t cap, const mrc_wire_opts *o, const ut_data *d) {
    mrc_bth b;
    mrc_meth m;
    mrc_tseth t;
    mrc_reth re;
    unsigned pad = d->pad < 0 ? (4u - (d->plen & 3u)) & 3u : (unsigned)d->pad;
    int imm = d->op == MRC_OP_WRITE_LAST_IMM || d->op == MRC_OP_WRITE_ONLY_IMM;
    size_t n = 0;
    if (cap < 64u + d->plen + pad) {
        printf("    ut_build_data: buffer of %u bytes too small for a %u-byte payload (test bug)\n", (unsigned)cap,
               (unsigned)d->plen);
        return 0;
    }
    memset(&b, 0, sizeof b);
    b.opcode = (uint8_t)d->op;
    b.se = d->se;
    b.pad = (uint8_t)pad;
    b.pkey = d->pkey;
    b.dest_qp = d->qp;
    b.a = d->a;
    b.rtx = d->rtx;
    b.ts = d->ts_on;
    b.psn = d->psn;
    m.rqmsn = d->rqmsn;
    m.msn = d->msn;
    t.tx_timestamp = d->ts;
    t.tsr = 0;
    t.ftype = 1;
    re.va = d->va;
    re.rkey = d->rkey;
    re.dma_len = d->dma_len;
    n += (size_t)mrc_bth_encode(buf + n, cap - n, o, &b);
    n += (size_t)mrc_meth_encode(buf + n, cap - n, &m);
    if (d->ts_on) n += (size_t)mrc_tseth_encode(buf + n, cap - n, &t);
    n += (size_t)mrc_reth_encode(buf + n, cap - n, &re);
    if (imm) n += (size_t)mrc_immdt_encode(buf + n, cap - n, d->imm);
    if (d->plen) memcpy(buf + n, d->pl, d->plen);
    n += d->plen;
    memset(buf + n, 0, pad);
    return n + pad;
}

static size_t ut_data_pkt(ut_fix *f, uint8_t *pkt, size_t cap, uint32_t psn, uint16_t msn, uint8_t a, uint8_t rtx) {
    static const uint8_t p[8] = {9, 8, 7, 6, 5, 4, 3, 2};
    ut_data d;
    ut_data_init(&d, f, psn, msn, p, sizeof p);
    d.a = a;
    d.rtx = rtx;
    d.va = UT_IOVA + 8u * (psn & 0xFFu);
    return ut_build_data(pkt, cap, &f->cfg.wire, &d);
}

static size_t ut_build_sack(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t bth_psn, uint32_t cack,
                            int ack_off, int sack_off, uint64_t bitmap, uint32_t entropy, uint16_t ts, unsigned pr) {
    mrc_bth b;
    mrc_seth s;
    mrc_cc_state cs;
    size_t n = 0;
    memset(&b, 0, sizeof b);
    memset(&s, 0, sizeof s);
    memset(&cs, 0, sizeof cs);
    b.opcode = MRC_OP_SACK;
    b.pkey = 0xFFFF;
    b.dest_qp = qp;
    b.psn = bth_psn;
    s.pr = (uint8_t)pr;
    s.ack_psn_offset = (int16_t)ack_off;
    s.entropy = entropy;
    s.cack_psn = cack;
    s.sack_offset = (int16_t)sack_off;
    s.sack_bitmap = bitmap;
    cs.tx_timestamp = ts;
    n += (size_t)mrc_bth_encode(buf + n, 64, o, &b);
    n += (size_t)mrc_seth_encode(buf + n, 64, o, &s);
    n += (size_t)mrc_cc_state_encode(buf + n, 64, &cs);
    return n;
}

static size_t ut_build_nack(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t bth_psn, uint32_t psn,
                            unsigned reason, uint16_t ts) {
    mrc_bth b;
    mrc_neth nk;
    size_t n = 0;
    memset(&b, 0, sizeof b);
    memset(&nk, 0, sizeof nk);
    b.opcode = MRC_OP_NACK;
    b.pkey = 0xFFFF;
    b.dest_qp = qp;
    b.psn = bth_psn;
    nk.nack_reason = (uint8_t)reason;
    nk.nack_psn = psn;
    nk.tx_timestamp = ts;
    n += (size_t)mrc_bth_encode(buf + n, 64, o, &b);
    n += (size_t)mrc_neth_encode(buf + n, 64, &nk);
    return n;
}

static size_t ut_build_aeth(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t psn, unsigned syndrome,
                            uint32_t msn) {
    mrc_bth b;
    mrc_aeth a;
    size_t n = 0;
    memset(&b, 0, sizeof b);
    b.opcode = MRC_OP_ACK;
    b.pkey = 0xFFFF;
    b.dest_qp = qp;
    b.psn = psn;
    a.syndrome = (uint8_t)syndrome;
    a.msn = msn;
    n += (size_t)mrc_bth_encode(buf + n, 64, o, &b);
    n += (size_t)mrc_aeth_encode(buf + n, 64, &a);
    return n;
}

static size_t ut_build_probe(uint8_t *buf, const mrc_wire_opts *o, uint32_t qp, uint32_t psn, uint16_t ts) {
    mrc_bth b;
    mrc_peth p;
    size_t n = 0;
    memset(&b, 0, sizeof b);
    memset(&p, 0, sizeof p);
    b.opcode = MRC_OP_PROBE_REQ;
    b.pkey = 0xFFFF;
    b.dest_qp = qp;
    b.psn = psn;
    p.probe_id = 1;
    p.tx_timestamp = ts;
    p.ftype = 1;
    n += (size_t)mrc_bth_encode(buf + n, 64, o, &b);
    n += (size_t)mrc_peth_encode(buf + n, 64, &p);
    return n;
}

/* Poll one packet (payload copied) and decode it. Returns bytes, 0 when nothing, < 0 on error. */
static int ut_poll(ut_fix *f, uint8_t *buf, size_t cap, mrc_txinfo *ti, mrc_pkt *k) {
    int n = mrc_endpoint_poll_tx(&f->ep, buf, cap, MRC_TX_COPY, ti, f->now);
    if (n <= 0) return n;
    if (mrc_pkt_decode(buf, (size_t)n, &f->cfg.wire, k) != MRC_OK) return -1000;
    return n;
}

/* A drop of exactly one reason: recv returns MRC_ERR_DROP, drop[reason] and rx_drops grow by one, no other
 * reason moves; with c, that conn's rx_drops grows by one too. Returns 0 when so. */
static int ut_expect_drop(ut_fix *f, mrc_conn *c, const uint8_t *p, size_t n, const mrc_rxinfo *ri, unsigned reason,
                          const char *what) {
    mrc_endpoint_stats s0, s1;
    mrc_conn_stats c0, c1;
    unsigned r;
    int rc;
    mrc_endpoint_stats_get(&f->ep, &s0);
    mrc_conn_stats_get(c, &c0);
    rc = mrc_endpoint_recv(&f->ep, p, n, ri, f->now);
    mrc_endpoint_stats_get(&f->ep, &s1);
    mrc_conn_stats_get(c, &c1);
    CHECKF(rc == MRC_ERR_DROP, "%s: recv returned %d (%s), want MRC_ERR_DROP/%s", what, rc, mrc_strerror(rc),
           mrc_drop_name(reason));
    for (r = 0; r < MRC_DROP_REASONS; r++) {
        uint64_t d = s1.drop[r] - s0.drop[r];
        CHECKF(d == (r == reason ? 1u : 0u), "%s: drop[%s] moved by %llu (expected %s)", what, mrc_drop_name(r),
               (unsigned long long)d, mrc_drop_name(reason));
    }
    CHECKF(s1.rx_drops - s0.rx_drops == 1, "%s: endpoint rx_drops moved by %llu", what,
           (unsigned long long)(s1.rx_drops - s0.rx_drops));
    if (c)
        CHECKF(c1.rx_drops - c0.rx_drops == 1, "%s: conn rx_drops moved by %llu", what,
               (unsigned long long)(c1.rx_drops - c0.rx_drops));
    return 0;
}

/* pull the next event; type and status must match (status checked unless want_status == 1) */
static int ut_expect_event(mrc_endpoint *ep, unsigned type, int want_status, mrc_event *out, const char *what) {
    mrc_event ev;
    int rc = mrc_endpoint_poll_event(ep, &ev);
    CHECKF(rc == 1, "%s: poll_event returned %d, want an event of type %s", what, rc, mrc_event_name(type));
    CHECKF(ev.type == type, "%s: event type %s (status %d), want %s", what, mrc_event_name(ev.type), ev.status,
           mrc_event_name(type));
    if (want_status != 1)
        CHECKF(ev.status == want_status, "%s: %s status %d (%s), want %d (%s)", what, mrc_event_name(ev.type),
               ev.status, mrc_strerror(ev.status), want_status, mrc_strerror(want_status));
    if (out) *out = ev;
    return 0;
}
static int ut_expect_no_event(mrc_endpoint *ep, const char *what) {
    mrc_event ev;
    int rc = mrc_endpoint_poll_event(ep, &ev);
    CHECKF(rc == 0, "%s: unexpected event %s status %d wr_id %llu", what, rc == 1 ? mrc_event_name(ev.type) : "?",
           ev.status, (unsigned long long)ev.wr_id);
    return 0;
}

/* ================================================================================================================
 * 6. configuration and endpoint
 * ============================================================================================================== */
static int t_cfg_defaults(void) {
    mrc_config c;
    memset(&c, 0xA5, sizeof c);
    mrc_config_default(&c);
    CHECK_EQ(c.num_ports, MRC_MAX_PORTS);
    CHECK_EQ(c.qpn_base, 0x100);
    CHECK_EQ(c.wire.bth_m_bit, 7);
    CHECK_EQ(c.wire.eeth_op_shift, 2);
    CHECK_EQ(c.wire.sack_msb_first, 0);
    CHECK_EQ(c.wire.ts_shift, 7);
    CHECK_EQ(c.wire.tver, 0);
    CHECK_EQ(c.dscp[MRC_DSCP_TRIMMABLE], 10);
    CHECK_EQ(c.dscp[MRC_DSCP_NO_TRIM], 12);
    CHECK_EQ(c.dscp[MRC_DSCP_TRIMMABLE_RETX], 14);
    CHECK_EQ(c.dscp[MRC_DSCP_TRIMMED], 3);
    CHECK_EQ(c.dscp[MRC_DSCP_TRIMMED_LASTHOP], 4);
    CHECK_EQ(c.dscp[MRC_DSCP_CONTROL], 48);
    CHECK(c.trimmable);
    CHECK(c.tseth);
    CHECK_EQ(c.sack_every, 1);
    CHECK_EQ(c.sack_delay_ns, 4000);
    CHECK(!c.nack_oor);
    CHECK(!c.window_inclusive);
    CHECK_EQ(c.tack_every, 0);
    CHECK_EQ(c.reorder_slack_ns, 0);
    CHECK_EQ(c.reorder_slack_min_ns, 2000);
    CHECK_EQ(c.rtt_init_ns, 20000);
    CHECK_EQ(c.tlp_min_ns, 10000);
    CHECK_EQ(c.ack_req_every, 0);
    CHECK_EQ(c.fixed_cwnd_bytes, 0);
    CHECK_EQ(c.evs_per_port, 16);
    CHECK_EQ(c.ev_sport_min, 49152);
    CHECK_EQ(c.ev_sport_max, 65535);
    CHECK(c.place == NULL);
    CHECK(c.place_ud == NULL);
    CHECK(c.trace == NULL);
    CHECK(c.trace_ud == NULL);
    mrc_config_default((mrc_config *)0); /* harmless */
    /* the defaults and a NULL config both initialise */
    CHECK_EQ(mrc_endpoint_init(&ut_fx.ep, &c, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_init(&ut_fx.ep, (const mrc_config *)0, 0), MRC_OK);
    CHECK(mrc_endpoint_port_up(&ut_fx.ep, MRC_MAX_PORTS));
    CHECK_EQ(mrc_endpoint_init((mrc_endpoint *)0, &c, 0), MRC_ERR_INVAL);
    return 0;
}

static int t_ep_init_rejects(void) {
    mrc_config c;
    mrc_endpoint *ep = &ut_fx.ep;
    unsigned i;
#define UT_CFG_RC(stmt, want)                                                                      \
    do {                                                                                           \
        int rc_;                                                                                   \
        mrc_config_default(&c);                                                                    \
        stmt;                                                                                      \
        rc_ = mrc_endpoint_init(ep, &c, 0);                                                        \
        CHECKF(rc_ == (want), "%s: mrc_endpoint_init returned %d, want %d", #stmt, rc_, (int)(want)); \
    } while (0)
    UT_CFG_RC(c.num_ports = 0, MRC_ERR_INVAL);
    UT_CFG_RC(c.num_ports = 1, MRC_OK);
    UT_CFG_RC(c.num_ports = MRC_MAX_PORTS, MRC_OK);
    UT_CFG_RC(c.num_ports = MRC_MAX_PORTS + 1, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.bth_m_bit = 5, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.bth_m_bit = 6, MRC_OK);
    UT_CFG_RC(c.wire.bth_m_bit = 8, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.bth_m_bit = 0, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.eeth_op_shift = 3, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.eeth_op_shift = 0, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.eeth_op_shift = 4, MRC_OK);
    UT_CFG_RC(c.wire.eeth_op_shift = 6, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.ts_shift = 20, MRC_OK);
    UT_CFG_RC(c.wire.ts_shift = 21, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.ts_shift = 0, MRC_OK);
    UT_CFG_RC(c.wire.tver = 15, MRC_OK);
    UT_CFG_RC(c.wire.tver = 16, MRC_ERR_INVAL);
    UT_CFG_RC(c.wire.sack_msb_first = 1, MRC_OK);
    UT_CFG_RC(c.wire.sack_msb_first = 2, MRC_ERR_INVAL);
    for (i = 0; i < MRC_DSCP_CLASSES; i++) {
        UT_CFG_RC(c.dscp[i] = 63, MRC_OK);
        UT_CFG_RC(c.dscp[i] = 64, MRC_ERR_INVAL);
    }
    UT_CFG_RC((c.ev_sport_min = 1000, c.ev_sport_max = 999), MRC_ERR_INVAL);
    UT_CFG_RC((c.ev_sport_min = 1000, c.ev_sport_max = 1000), MRC_OK);
    UT_CFG_RC(c.evs_per_port = 0, MRC_ERR_INVAL);
    UT_CFG_RC(c.sack_every = 0, MRC_ERR_INVAL);
    UT_CFG_RC((c.qpn_random = false, c.qpn_base = 2), MRC_ERR_INVAL);
    UT_CFG_RC((c.qpn_random = false, c.qpn_base = 0), MRC_ERR_INVAL);
    UT_CFG_RC((c.qpn_random = false, c.qpn_base = 3), MRC_OK);
    UT_CFG_RC((c.qpn_random = false, c.qpn_base = 0x1000000u), MRC_ERR_INVAL);
    UT_CFG_RC((c.qpn_random = false, c.qpn_base = 0xFFFFFFu - MRC_MAX_CONNS), MRC_OK); /* last QPN 0xFFFFFF - 1 */
    UT_CFG_RC((c.qpn_random = false, c.qpn_base = 0xFFFFFFu), MRC_ERR_INVAL);
    UT_CFG_RC(c.qpn_base = 0, MRC_OK); /* P16: random QPNs (the default) ignore qpn_base */
#undef UT_CFG_RC
    return 0;
}

/* Every QPN must fit 24 bits: a qpn_base whose qpn_base + MRC_MAX_CONNS wraps 32 bits must be refused too. */
static int t_ep_init_qpn_base_range(void) {
    static const uint32_t bad[] = {0x1000000u, 0x80000000u, 0xFFFFFFF8u, 0xFFFFFFFFu};
    mrc_config c;
    unsigned i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc;
        mrc_config_default(&c);
        c.qpn_random = false;
        c.qpn_base = bad[i];
        rc = mrc_endpoint_init(&ut_fx.ep, &c, 0);
        CHECKF(rc == MRC_ERR_INVAL, "qpn_base 0x%08X: mrc_endpoint_init returned %d, want MRC_ERR_INVAL (its QPNs "
               "do not fit 24 bits)", (unsigned)bad[i], rc);
    }
    return 0;
}

static int t_ep_port_set(void) {
    mrc_config c;
    mrc_endpoint *ep = &ut_fx.ep;
    unsigned p;
    mrc_config_default(&c);
    c.num_ports = 3;
    CHECK_EQ(mrc_endpoint_init(ep, &c, 0), MRC_OK);
    for (p = 1; p <= 3; p++) CHECK(mrc_endpoint_port_up(ep, p)); /* all ports start up */
    CHECK(!mrc_endpoint_port_up(ep, 0));
    CHECK(!mrc_endpoint_port_up(ep, 4));
    CHECK(!mrc_endpoint_port_up((const mrc_endpoint *)0, 1));
    CHECK_EQ(mrc_endpoint_port_set(ep, 0, false, 0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_port_set(ep, 4, false, 0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_port_set((mrc_endpoint *)0, 1, false, 0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_port_set(ep, 3, false, 0), MRC_OK);
    CHECK(!mrc_endpoint_port_up(ep, 3));
    CHECK(mrc_endpoint_port_up(ep, 1) && mrc_endpoint_port_up(ep, 2));
    CHECK_EQ(mrc_endpoint_port_set(ep, 3, false, 0), MRC_OK); /* idempotent */
    CHECK_EQ(mrc_endpoint_port_set(ep, 1, false, 0), MRC_OK);
    CHECK(!mrc_endpoint_port_up(ep, 1));
    CHECK_EQ(mrc_endpoint_port_set(ep, 3, true, 0), MRC_OK);
    CHECK(mrc_endpoint_port_up(ep, 3));
    CHECK(!mrc_endpoint_port_up(ep, 1));
    return 0;
}

static int t_ep_mr_table(void) {
    mrc_config c;
    mrc_endpoint *ep = &ut_fx.ep;
    static uint8_t mem[MRC_MAX_MRS][16];
    uint32_t rk[MRC_MAX_MRS], k, extra;
    unsigned i, j;
    mrc_config_default(&c);
    CHECK_EQ(mrc_endpoint_init(ep, &c, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_reg_mr((mrc_endpoint *)0, mem[0], 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &k), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, (uint32_t *)0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], 0, 16, 1u << 2, NULL, &k), MRC_ERR_INVAL); /* unknown access bit */
    CHECK_EQ(mrc_endpoint_reg_mr(ep, NULL, 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &k), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], 0, 16, MRC_ACCESS_EXTERNAL, NULL, &k), MRC_ERR_INVAL); /* no hook */
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], UINT64_MAX - 15u, 17, 0, NULL, &k), MRC_ERR_INVAL); /* wraps */
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], UINT64_MAX - 16u, 16, 0, NULL, &k), MRC_OK);        /* just fits */
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, k), MRC_OK);
    for (i = 0; i < MRC_MAX_MRS; i++) {
        CHECKF(mrc_endpoint_reg_mr(ep, mem[i], 0x1000u * i, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &rk[i]) == MRC_OK,
               "reg_mr #%u", i);
        for (j = 0; j < i; j++) CHECKF(rk[i] != rk[j], "rkeys %u and %u are both 0x%X", i, j, (unsigned)rk[i]);
    }
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &k), MRC_ERR_FULL);
    for (i = 1; i < MRC_MAX_MRS; i++) /* P16: 8 seeded random key bits, not a constant */
        if ((rk[i] & 0xFFu) != (rk[0] & 0xFFu)) break;
    CHECK(i < MRC_MAX_MRS);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, rk[3]), MRC_OK);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, rk[3]), MRC_ERR_NOENT); /* lookup after dereg */
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[3], 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &extra), MRC_OK);
    CHECK_EQ(mrc_endpoint_reg_mr(ep, mem[0], 0, 16, MRC_ACCESS_REMOTE_WRITE, NULL, &k), MRC_ERR_FULL);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, 0), MRC_ERR_NOENT);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, 0xFFFFFFFFu), MRC_ERR_NOENT);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, rk[0] ^ 0x80u), MRC_ERR_NOENT); /* right slot, wrong key bits */
    CHECK_EQ(mrc_endpoint_dereg_mr((mrc_endpoint *)0, rk[0]), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_dereg_mr(ep, rk[0]), MRC_OK);
    return 0;
}

/* recv / poll_tx / poll_event / on_timeout argument checks */
static int t_ep_api_args(void) {
    ut_fix *f = &ut_fx;
    uint8_t buf[128];
    mrc_txinfo ti;
    mrc_event ev;
    mrc_rxinfo ri = ut_ri(1, UT_EV);
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 200), MRC_OK);
    memset(buf, 0, sizeof buf);
    CHECK_EQ(mrc_endpoint_recv((mrc_endpoint *)0, buf, 40, &ri, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, (const uint8_t *)0, 40, &ri, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, buf, 40, (const mrc_rxinfo *)0, f->now), MRC_ERR_INVAL);
    ri.port = 0;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, buf, 40, &ri, f->now), MRC_ERR_INVAL);
    ri.port = 3; /* num_ports is 2 */
    CHECK_EQ(mrc_endpoint_recv(&f->ep, buf, 40, &ri, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_tx((mrc_endpoint *)0, buf, sizeof buf, 0, &ti, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, (uint8_t *)0, sizeof buf, 0, &ti, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, 0, (mrc_txinfo *)0, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, 1u << 5, &ti, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, MRC_HDR_MAX - 1, 0, &ti, f->now), MRC_ERR_NOBUF);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, MRC_HDR_MAX, 0, &ti, f->now), 0); /* nothing to send */
    CHECK_EQ(mrc_endpoint_poll_event((mrc_endpoint *)0, &ev), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_event(&f->ep, (mrc_event *)0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_poll_event(&f->ep, &ev), 0);
    CHECK_EQ(mrc_endpoint_on_timeout((mrc_endpoint *)0, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
    CHECK(mrc_endpoint_next_deadline((const mrc_endpoint *)0) == MRC_TIME_NEVER);
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER); /* idle */
    return 0;
}

/* ---- requester helpers ------------------------------------------------------------------------------------- */
typedef struct {
    mrc_txinfo ti;
    mrc_pkt k;
    uint32_t pcrc;  /* CRC of the payload bytes */
    int pad_zero;   /* the pad bytes were zero */
    int len;        /* poll_tx's return value */
} ut_tx;
static ut_tx ut_txs[300];

/* poll up to max packets into out[]; returns the count, or < 0 */
static int ut_drain(ut_fix *f, ut_tx *out, int max) {
    static uint8_t buf[4200];
    int n = 0, rc;
    while (n < max) {
        rc = ut_poll(f, buf, sizeof buf, &out[n].ti, &out[n].k);
        if (rc == 0) break;
        if (rc < 0) return rc;
        out[n].pcrc = ut_crc32_bitwise(0, buf + out[n].k.hdr_len, out[n].k.payload_len);
        out[n].pad_zero = ut_all(buf + out[n].k.hdr_len + out[n].k.payload_len, out[n].k.bth.pad, 0);
        out[n].len = rc;
        n++;
    }
    return n;
}

static mrc_write ut_wr(uint64_t id, uint32_t opcode, const void *buf, uint32_t len, uint64_t va, uint32_t flags) {
    mrc_write w;
    memset(&w, 0, sizeof w);
    w.wr_id = id;
    w.opcode = opcode;
    w.flags = flags;
    w.buf = buf;
    w.len = len;
    w.remote_va = va;
    w.rkey = 0x1234;
    w.imm = (uint32_t)(0xA0000000u + id);
    return w;
}
static int ut_post(ut_fix *f, uint64_t id, uint32_t opcode, const void *buf, uint32_t len, uint32_t flags) {
    mrc_write w = ut_wr(id, opcode, buf, len, 0x10000u + 0x1000u * id, flags);
    return mrc_conn_post_write(&f->c, &w, f->now);
}
static uint8_t ut_src[65536]; /* source data of posted writes */
static void ut_src_init(void) {
    size_t i;
    for (i = 0; i < sizeof ut_src; i++) ut_src[i] = (uint8_t)(i * 7u + (i >> 8) + 1u);
}


/* feed a SACK to the fixture's conn (as requester); returns recv's rc */
static int ut_feed_sack(ut_fix *f, uint32_t cack, int ack_off, uint64_t bitmap, uint32_t entropy, uint16_t ts) {
    uint8_t p[64];
    size_t n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), cack, cack, ack_off, 1, bitmap, entropy, ts, 0);
    mrc_rxinfo ri = ut_ri(1, entropy);
    return mrc_endpoint_recv(&f->ep, p, n, &ri, f->now);
}

/* ================================================================================================================
 * 7. QP state machine (docs/PROTOCOL.md section 4)
 * ============================================================================================================== */
static const unsigned ut_states[5] = {MRC_QPS_RESET, MRC_QPS_INIT, MRC_QPS_RTR, MRC_QPS_RTS, MRC_QPS_ERR};

/* required mask (with STATE) of a legal pair; for illegal pairs the mask the target state normally takes */
static uint32_t ut_trans_mask(unsigned from, unsigned to) {
    switch (to) {
    case MRC_QPS_INIT: return from == MRC_QPS_INIT ? MRC_ATTR_STATE : UT_M_INIT;
    case MRC_QPS_RTR: return UT_M_RTR;
    case MRC_QPS_RTS: return from == MRC_QPS_RTS ? MRC_ATTR_STATE : UT_M_RTS;
    default: return MRC_ATTR_STATE;
    }
}
/* docs section 4 transition table */
static int ut_trans_legal(unsigned from, unsigned to) {
    if (to == MRC_QPS_RESET || to == MRC_QPS_ERR) return 1;
    if (from == MRC_QPS_RESET && to == MRC_QPS_INIT) return 1;
    if (from == MRC_QPS_INIT && (to == MRC_QPS_INIT || to == MRC_QPS_RTR)) return 1;
    if (from == MRC_QPS_RTR && to == MRC_QPS_RTS) return 1;
    if (from == MRC_QPS_RTS && to == MRC_QPS_RTS) return 1;
    return 0;
}

static int t_qp_transition_matrix(void) {
    ut_fix *f = &ut_fx;
    unsigned i, j, pass;
    for (i = 0; i < 5; i++) {
        for (j = 0; j < 5; j++) {
            for (pass = 0; pass < 2; pass++) {
                unsigned from = ut_states[i], to = ut_states[j];
                int legal = ut_trans_legal(from, to), want = legal ? MRC_OK : MRC_ERR_STATE, rc;
                uint32_t mask = pass == 0 ? ut_trans_mask(from, to) : MRC_ATTR_STATE;
                mrc_conn_attr a = f->attr, q;
                if (pass == 1 && legal) continue; /* STATE-only masks of legal pairs are covered by the mask test */
                CHECK_EQ(ut_setup(f, NULL, from, 100, 200), MRC_OK);
                CHECKF(mrc_conn_state(&f->c) == (int)from, "setup to %s", mrc_state_name(from));
                a = f->attr;
                a.state = (uint8_t)to;
                rc = mrc_conn_modify(&f->c, &a, mask, f->now);
                CHECKF(rc == want, "%s -> %s (mask 0x%X): rc %d (%s), want %d (%s)", mrc_state_name(from),
                       mrc_state_name(to), (unsigned)mask, rc, mrc_strerror(rc), want, mrc_strerror(want));
                CHECKF(mrc_conn_state(&f->c) == (int)(legal ? to : from), "%s -> %s: now in %s",
                       mrc_state_name(from), mrc_state_name(to), mrc_state_name((unsigned)mrc_conn_state(&f->c)));
                CHECK_EQ(mrc_conn_query(&f->c, &q), MRC_OK);
                CHECK_EQ(q.state, legal ? to : from);
            }
        }
    }
    /* a state value past ERR is invalid */
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 100, 200), MRC_OK);
    {
        mrc_conn_attr a = f->attr;
        a.state = 5;
        CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE, f->now), MRC_ERR_INVAL);
        /* RTR -> RTR (no STATE bit, an RTS-only attribute) is not a listed transition */
        CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTR, f->now), MRC_OK);
        CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_RETRY, f->now), MRC_ERR_STATE);
        CHECK_EQ(mrc_conn_modify(&f->c, &a, 0, f->now), MRC_ERR_STATE);
        CHECK_EQ(mrc_conn_modify((mrc_conn *)0, &a, MRC_ATTR_STATE, f->now), MRC_ERR_INVAL);
        CHECK_EQ(mrc_conn_modify(&f->c, (const mrc_conn_attr *)0, MRC_ATTR_STATE, f->now), MRC_ERR_INVAL);
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTR);
    }
    return 0;
}

static int t_qp_mask_bits(void) {
    static const struct {
        unsigned from, to;
        uint32_t req, opt;
    } tr[] = {
        {MRC_QPS_RESET, MRC_QPS_INIT, MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE,
         MRC_ATTR_PKEY | MRC_ATTR_ACCESS | MRC_ATTR_HINT},
        {MRC_QPS_INIT, MRC_QPS_INIT, 0, MRC_ATTR_PKEY | MRC_ATTR_ACCESS | MRC_ATTR_HINT},
        {MRC_QPS_INIT, MRC_QPS_RTR,
         MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU | MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST,
         MRC_ATTR_CAPS | MRC_ATTR_PEER | MRC_ATTR_PKEY | MRC_ATTR_ACCESS},
        {MRC_QPS_RTR, MRC_QPS_RTS,
         MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT, MRC_ATTR_ACCESS},
        {MRC_QPS_RTS, MRC_QPS_RTS, 0, MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT | MRC_ATTR_ACCESS},
        {MRC_QPS_RTS, MRC_QPS_ERR, 0, 0},
        {MRC_QPS_INIT, MRC_QPS_ERR, 0, 0},
        {MRC_QPS_RTR, MRC_QPS_RESET, 0, 0},
        {MRC_QPS_ERR, MRC_QPS_RESET, 0, 0},
        {MRC_QPS_RESET, MRC_QPS_RESET, 0, 0},
    };
    ut_fix *f = &ut_fx;
    unsigned t, b;
    for (t = 0; t < sizeof tr / sizeof tr[0]; t++) {
        for (b = 0; b <= 19; b++) { /* b 0: the required set alone; b 1..17: each attribute; 18, 19: unknown bits */
            uint32_t bit = b == 0 ? 0 : b == 19 ? 0x80000000u : (uint32_t)1 << b, mask = MRC_ATTR_STATE | tr[t].req;
            int want, rc;
            mrc_conn_attr a;
            if (bit & tr[t].req) {
                mask &= ~bit;
                want = MRC_ERR_INVAL;
            } else if (bit == 0 || (bit & tr[t].opt)) {
                mask |= bit;
                want = MRC_OK;
            } else {
                mask |= bit;
                want = MRC_ERR_INVAL;
            }
            CHECK_EQ(ut_setup(f, NULL, tr[t].from, 100, 200), MRC_OK);
            a = f->attr;
            a.state = (uint8_t)tr[t].to;
            rc = mrc_conn_modify(&f->c, &a, mask, f->now);
            CHECKF(rc == want, "%s -> %s mask 0x%X (bit 0x%X): rc %d (%s), want %d", mrc_state_name(tr[t].from),
                   mrc_state_name(tr[t].to), (unsigned)mask, (unsigned)bit, rc, mrc_strerror(rc), want);
            CHECKF(mrc_conn_state(&f->c) == (int)(want == MRC_OK ? tr[t].to : tr[t].from), "%s -> %s bit 0x%X: state",
                   mrc_state_name(tr[t].from), mrc_state_name(tr[t].to), (unsigned)bit);
        }
    }
    return 0;
}

enum { UT_F_PKEY, UT_F_ACCESS, UT_F_EV, UT_F_CC, UT_F_DEST, UT_F_RQ, UT_F_MTU, UT_F_MPRD, UT_F_WIMMD, UT_F_CAPS,
       UT_F_SQ, UT_F_MPR, UT_F_WIMM, UT_F_RLIN, UT_F_REXP, UT_F_TO };

static void ut_attr_set(mrc_conn_attr *a, unsigned fld, uint64_t v) {
    switch (fld) {
    case UT_F_PKEY: a->pkey = (uint16_t)v; break;
    case UT_F_ACCESS: a->access = (uint32_t)v; break;
    case UT_F_EV: a->ev_profile_id = v; break;
    case UT_F_CC: a->cc_profile_id = v; break;
    case UT_F_DEST: a->dest_qpn = (uint32_t)v; break;
    case UT_F_RQ: a->rq_psn = (uint32_t)v; break;
    case UT_F_MTU: a->path_mtu = (uint32_t)v; break;
    case UT_F_MPRD: a->mpr_dest = (uint8_t)v; break;
    case UT_F_WIMMD: a->max_wimm_dest = (uint16_t)v; break;
    case UT_F_CAPS: a->caps = (uint32_t)v; break;
    case UT_F_SQ: a->sq_psn = (uint32_t)v; break;
    case UT_F_MPR: a->mpr = (uint8_t)v; break;
    case UT_F_WIMM: a->max_wimm = (uint16_t)v; break;
    case UT_F_RLIN: a->retry_linear = (uint8_t)v; break;
    case UT_F_REXP: a->retry_exp = (uint8_t)v; break;
    default: a->timeout = (uint8_t)v; break;
    }
}
static uint64_t ut_attr_get(const mrc_conn_attr *a, unsigned fld) {
    switch (fld) {
    case UT_F_PKEY: return a->pkey;
    case UT_F_ACCESS: return a->access;
    case UT_F_EV: return a->ev_profile_id;
    case UT_F_CC: return a->cc_profile_id;
    case UT_F_DEST: return a->dest_qpn;
    case UT_F_RQ: return a->rq_psn;
    case UT_F_MTU: return a->path_mtu;
    case UT_F_MPRD: return a->mpr_dest;
    case UT_F_WIMMD: return a->max_wimm_dest;
    case UT_F_CAPS: return a->caps;
    case UT_F_SQ: return a->sq_psn;
    case UT_F_MPR: return a->mpr;
    case UT_F_WIMM: return a->max_wimm;
    case UT_F_RLIN: return a->retry_linear;
    case UT_F_REXP: return a->retry_exp;
    default: return a->timeout;
    }
}
static int ut_attr_same(const mrc_conn_attr *a, const mrc_conn_attr *b) {
    unsigned fld;
    for (fld = UT_F_PKEY; fld <= UT_F_TO; fld++)
        if (ut_attr_get(a, fld) != ut_attr_get(b, fld)) {
            printf("    attribute #%u: %llu vs %llu\n", fld, (unsigned long long)ut_attr_get(a, fld),
                   (unsigned long long)ut_attr_get(b, fld));
            return 0;
        }
    if (a->state != b->state || a->peer != b->peer) {
        printf("    state %u vs %u, peer %u vs %u\n", a->state, b->state, (unsigned)a->peer, (unsigned)b->peer);
        return 0;
    }
    return 1;
}

static int t_qp_attr_ranges(void) {
    static const struct {
        unsigned from, fld;
        uint32_t bit;
        uint64_t v;
        int want;
    } cs[] = {
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0x0000, MRC_ERR_INVAL},
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0x8000, MRC_ERR_INVAL}, /* low 15 bits 0 */
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0x0001, MRC_OK},
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0x8001, MRC_OK},
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0x7FFF, MRC_OK},
        {MRC_QPS_RESET, UT_F_PKEY, MRC_ATTR_PKEY, 0xFFFF, MRC_OK},
        {MRC_QPS_RESET, UT_F_ACCESS, MRC_ATTR_ACCESS, 0, MRC_OK},
        {MRC_QPS_RESET, UT_F_ACCESS, MRC_ATTR_ACCESS, MRC_ACCESS_REMOTE_WRITE, MRC_OK},
        {MRC_QPS_RESET, UT_F_ACCESS, MRC_ATTR_ACCESS, 1u << 7, MRC_ERR_INVAL},
        {MRC_QPS_RESET, UT_F_EV, MRC_ATTR_EV_PROFILE, 1, MRC_ERR_NOENT},
        {MRC_QPS_RESET, UT_F_EV, MRC_ATTR_EV_PROFILE, UINT64_MAX, MRC_ERR_NOENT},
        {MRC_QPS_RESET, UT_F_CC, MRC_ATTR_CC_PROFILE, 1, MRC_ERR_NOENT},
        {MRC_QPS_RESET, UT_F_CC, MRC_ATTR_CC_PROFILE, 0x8000000000000000ull, MRC_ERR_NOENT},
        {MRC_QPS_INIT, UT_F_DEST, MRC_ATTR_DEST_QPN, 0, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_DEST, MRC_ATTR_DEST_QPN, MRC_EPOP_QPN, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_DEST, MRC_ATTR_DEST_QPN, 3, MRC_OK},
        {MRC_QPS_INIT, UT_F_DEST, MRC_ATTR_DEST_QPN, 0xFFFFFF, MRC_OK},
        {MRC_QPS_INIT, UT_F_DEST, MRC_ATTR_DEST_QPN, 0x1000000, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_RQ, MRC_ATTR_RQ_PSN, 0, MRC_OK},
        {MRC_QPS_INIT, UT_F_RQ, MRC_ATTR_RQ_PSN, 0xFFFFFF, MRC_OK},
        {MRC_QPS_INIT, UT_F_RQ, MRC_ATTR_RQ_PSN, 0x1000000, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 0, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 128, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 255, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 256, MRC_OK},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 257, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 512, MRC_OK},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 1024, MRC_OK},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 1500, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 2048, MRC_OK},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 4096, MRC_OK},
        {MRC_QPS_INIT, UT_F_MTU, MRC_ATTR_PATH_MTU, 8192, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MPRD, MRC_ATTR_MPR_DEST, 0, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_MPRD, MRC_ATTR_MPR_DEST, 1, MRC_OK},
        {MRC_QPS_INIT, UT_F_MPRD, MRC_ATTR_MPR_DEST, MRC_MAX_MPR_UNITS, MRC_OK},
        {MRC_QPS_INIT, UT_F_MPRD, MRC_ATTR_MPR_DEST, MRC_MAX_MPR_UNITS + 1, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_WIMMD, MRC_ATTR_MAX_WIMM_DEST, 0, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_WIMMD, MRC_ATTR_MAX_WIMM_DEST, 1, MRC_OK},
        {MRC_QPS_INIT, UT_F_WIMMD, MRC_ATTR_MAX_WIMM_DEST, MRC_MAX_WIMM, MRC_OK},
        {MRC_QPS_INIT, UT_F_WIMMD, MRC_ATTR_MAX_WIMM_DEST, MRC_MAX_WIMM + 1, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_CAPS, MRC_ATTR_CAPS, 0, MRC_OK},
        {MRC_QPS_INIT, UT_F_CAPS, MRC_ATTR_CAPS,
         MRC_CAP_TRIM_NACK_DEST_UNSUPPORTED | MRC_CAP_DYNAMIC_MPR | MRC_CAP_SVC_TIME_DEST_UNSUPPORTED, MRC_OK},
        {MRC_QPS_INIT, UT_F_CAPS, MRC_ATTR_CAPS, 1u << 3, MRC_ERR_INVAL},
        {MRC_QPS_INIT, UT_F_CAPS, MRC_ATTR_CAPS, 0x80000000u, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_SQ, MRC_ATTR_SQ_PSN, 0xFFFFFF, MRC_OK},
        {MRC_QPS_RTR, UT_F_SQ, MRC_ATTR_SQ_PSN, 0x1000000, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_MPR, MRC_ATTR_MPR, 0, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_MPR, MRC_ATTR_MPR, 1, MRC_OK},
        {MRC_QPS_RTR, UT_F_MPR, MRC_ATTR_MPR, 255, MRC_OK},
        {MRC_QPS_RTR, UT_F_WIMM, MRC_ATTR_MAX_WIMM, 0, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_WIMM, MRC_ATTR_MAX_WIMM, 1, MRC_OK},
        {MRC_QPS_RTR, UT_F_WIMM, MRC_ATTR_MAX_WIMM, 0xFFFF, MRC_OK},
        {MRC_QPS_RTR, UT_F_RLIN, MRC_ATTR_RETRY, 7, MRC_OK},
        {MRC_QPS_RTR, UT_F_RLIN, MRC_ATTR_RETRY, 8, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_REXP, MRC_ATTR_RETRY, 25, MRC_OK},
        {MRC_QPS_RTR, UT_F_REXP, MRC_ATTR_RETRY, 26, MRC_ERR_INVAL},
        {MRC_QPS_RTR, UT_F_TO, MRC_ATTR_TIMEOUT, 0, MRC_OK},
        {MRC_QPS_RTR, UT_F_TO, MRC_ATTR_TIMEOUT, 24, MRC_OK},
        {MRC_QPS_RTR, UT_F_TO, MRC_ATTR_TIMEOUT, 25, MRC_ERR_INVAL},
        /* the optional RTS -> RTS attributes */
        {MRC_QPS_RTS, UT_F_RLIN, MRC_ATTR_RETRY, 8, MRC_ERR_INVAL},
        {MRC_QPS_RTS, UT_F_REXP, MRC_ATTR_RETRY, 0, MRC_OK},
        {MRC_QPS_RTS, UT_F_TO, MRC_ATTR_TIMEOUT, 25, MRC_ERR_INVAL},
        {MRC_QPS_RTS, UT_F_TO, MRC_ATTR_TIMEOUT, 1, MRC_OK},
        {MRC_QPS_RTS, UT_F_ACCESS, MRC_ATTR_ACCESS, 0, MRC_OK},
        {MRC_QPS_INIT, UT_F_PKEY, MRC_ATTR_PKEY, 0x8000, MRC_ERR_INVAL}, /* INIT -> INIT */
    };
    ut_fix *f = &ut_fx;
    unsigned i;
    for (i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        unsigned from = cs[i].from, to;
        uint32_t mask;
        mrc_conn_attr a, q0, q1;
        int rc;
        if (from == MRC_QPS_RESET) to = MRC_QPS_INIT;
        else if (from == MRC_QPS_INIT)
            to = (cs[i].bit == MRC_ATTR_PKEY || cs[i].bit == MRC_ATTR_ACCESS) ? MRC_QPS_INIT : MRC_QPS_RTR;
        else if (from == MRC_QPS_RTR) to = MRC_QPS_RTS;
        else to = MRC_QPS_RTS;
        mask = ut_trans_mask(from, to) | cs[i].bit;
        CHECK_EQ(ut_setup(f, NULL, from, 100, 200), MRC_OK);
        CHECK_EQ(mrc_conn_query(&f->c, &q0), MRC_OK);
        a = f->attr;
        a.state = (uint8_t)to;
        ut_attr_set(&a, cs[i].fld, cs[i].v);
        rc = mrc_conn_modify(&f->c, &a, mask, f->now);
        CHECKF(rc == cs[i].want, "case %u: attribute #%u = %llu (%s -> %s): rc %d (%s), want %d (%s)", i, cs[i].fld,
               (unsigned long long)cs[i].v, mrc_state_name(from), mrc_state_name(to), rc, mrc_strerror(rc),
               cs[i].want, mrc_strerror(cs[i].want));
        CHECK_EQ(mrc_conn_query(&f->c, &q1), MRC_OK);
        if (rc == MRC_OK) {
            CHECKF(q1.state == to, "case %u: state %u", i, q1.state);
            CHECKF(ut_attr_get(&q1, cs[i].fld) == cs[i].v, "case %u: query reads %llu", i,
                   (unsigned long long)ut_attr_get(&q1, cs[i].fld));
        } else {
            CHECKF(ut_attr_same(&q1, &q0), "case %u: a failed modify changed the attributes", i);
        }
    }
    return 0;
}

/* every value is validated before anything changes: valid optional values in a failing call are not applied */
static int t_qp_modify_atomic(void) {
    ut_fix *f = &ut_fx;
    mrc_conn_attr a, q0, q1;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 100, 200), MRC_OK);
    CHECK_EQ(mrc_conn_query(&f->c, &q0), MRC_OK);
    CHECK_EQ(q0.pkey, 0xFFFF); /* defaults */
    CHECK_EQ(q0.access, MRC_ACCESS_REMOTE_WRITE);
    a = f->attr;
    a.state = MRC_QPS_INIT;
    a.pkey = 0x1234;
    a.access = 0;
    a.cc_profile_id = 9;
    CHECK_EQ(mrc_conn_modify(&f->c, &a, UT_M_INIT | MRC_ATTR_PKEY | MRC_ATTR_ACCESS, f->now), MRC_ERR_NOENT);
    CHECK_EQ(mrc_conn_query(&f->c, &q1), MRC_OK);
    CHECK(ut_attr_same(&q1, &q0));

    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_INIT, f->now), MRC_OK);
    CHECK_EQ(mrc_conn_query(&f->c, &q0), MRC_OK);
    a = f->attr;
    a.state = MRC_QPS_RTR;
    a.pkey = 0x1234;
    a.caps = MRC_CAP_DYNAMIC_MPR;
    a.peer = 999;
    a.dest_qpn = 0x555;
    a.max_wimm_dest = 0; /* the bad one, validated after the good ones */
    CHECK_EQ(mrc_conn_modify(&f->c, &a, UT_M_RTR | MRC_ATTR_PKEY | MRC_ATTR_CAPS | MRC_ATTR_PEER, f->now),
             MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_query(&f->c, &q1), MRC_OK);
    CHECK(ut_attr_same(&q1, &q0));

    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RESET, f->now), MRC_OK);
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 200), MRC_OK);
    CHECK_EQ(mrc_conn_query(&f->c, &q0), MRC_OK);
    a = f->attr;
    a.state = MRC_QPS_RTS;
    a.retry_linear = 1;
    a.access = 0;
    a.timeout = 25;
    CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE | MRC_ATTR_RETRY | MRC_ATTR_ACCESS | MRC_ATTR_TIMEOUT, f->now),
             MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_query(&f->c, &q1), MRC_OK);
    CHECK(ut_attr_same(&q1, &q0));
    return 0;
}

/* query reflects every attribute set on the way to RTS; RESET restores the defaults */
static int t_qp_query_roundtrip(void) {
    ut_fix *f = &ut_fx;
    mrc_conn_attr want, q;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 0xFFFFFF, 0x000001), MRC_OK);
    f->attr.pkey = 0x8123;
    f->attr.caps = MRC_CAP_DYNAMIC_MPR;
    f->attr.peer = 0xDEAD;
    f->attr.mpr_dest = 3;
    f->attr.mpr = 200;
    f->attr.path_mtu = 4096;
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
    want = f->attr;
    want.state = MRC_QPS_RTS;
    CHECK_EQ(mrc_conn_query(&f->c, &q), MRC_OK);
    CHECK(ut_attr_same(&q, &want));
    CHECK_EQ(q.caps, MRC_CAP_DYNAMIC_MPR);
    CHECK_EQ(mrc_conn_query((const mrc_conn *)0, &q), MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_query(&f->c, (mrc_conn_attr *)0), MRC_ERR_INVAL);
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_ERR, f->now), MRC_OK);
    want.state = MRC_QPS_RESET;
    {
        mrc_conn_attr a = f->attr;
        a.state = MRC_QPS_RESET;
        CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE, f->now), MRC_OK);
    }
    CHECK_EQ(mrc_conn_query(&f->c, &q), MRC_OK);
    CHECK_EQ(q.state, MRC_QPS_RESET);
    CHECK_EQ(q.pkey, 0xFFFF);
    CHECK_EQ(q.access, MRC_ACCESS_REMOTE_WRITE);
    return 0;
}

static int t_qp_conn_table(void) {
    mrc_config c;
    mrc_endpoint *ep = &ut_fx.ep;
    mrc_conn_attr a;
    unsigned i;
    int user = 5;
    uint8_t pkt[64];
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_endpoint_stats st;
    mrc_wire_opts o = ut_opts(7, 0, 2);
    size_t n;
    mrc_config_default(&c);
    c.qpn_random = false; /* P16: fixed QPNs on request */
    c.qpn_base = 0x300;
    CHECK_EQ(mrc_endpoint_init(ep, &c, 0), MRC_OK);
    memset(ut_conns, 0, sizeof ut_conns);
    CHECK_EQ(mrc_conn_init((mrc_endpoint *)0, &ut_conns[0], 0), MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_init(ep, (mrc_conn *)0, 0), MRC_ERR_INVAL);
    for (i = 0; i < MRC_MAX_CONNS; i++) {
        CHECK_EQ(mrc_conn_init(ep, &ut_conns[i], 0), MRC_OK);
        CHECK_EQ(mrc_conn_qpn(&ut_conns[i]), 0x300 + i); /* P16: qpn_base + slot */
        CHECK_EQ(mrc_conn_state(&ut_conns[i]), MRC_QPS_RESET);
    }
    CHECK_EQ(mrc_conn_init(ep, &ut_conns[MRC_MAX_CONNS], 0), MRC_ERR_FULL);
    CHECK_EQ(mrc_conn_init(ep, &ut_conns[0], 0), MRC_ERR_INVAL); /* already attached */
    CHECK_EQ(mrc_conn_qpn((const mrc_conn *)0), 0);
    CHECK_EQ(mrc_conn_state((const mrc_conn *)0), MRC_ERR_INVAL);
    mrc_conn_set_user(&ut_conns[1], &user);
    CHECK(mrc_conn_user(&ut_conns[1]) == &user);
    ut_attr(&a, 1, 1);
    CHECK_EQ(ut_goto(&ut_conns[1], &a, MRC_QPS_RTS, 0), MRC_OK);
    a.state = MRC_QPS_RESET;
    CHECK_EQ(mrc_conn_modify(&ut_conns[1], &a, MRC_ATTR_STATE, 0), MRC_OK);
    CHECK(mrc_conn_user(&ut_conns[1]) == &user); /* RESET keeps the identity */
    CHECK_EQ(mrc_conn_qpn(&ut_conns[1]), 0x301);
    CHECK(mrc_conn_user((const mrc_conn *)0) == NULL);
    /* destroy only in RESET and ERR */
    ut_attr(&a, 1, 1);
    for (i = 0; i < 5; i++) {
        mrc_conn *cn = &ut_conns[2 + i];
        CHECK_EQ(ut_goto(cn, &a, ut_states[i], 0), MRC_OK);
        CHECKF(mrc_conn_destroy(cn) == ((i == 0 || i == 4) ? MRC_OK : MRC_ERR_STATE), "destroy in %s",
               mrc_state_name(ut_states[i]));
    }
    CHECK_EQ(mrc_conn_destroy(&ut_conns[2]), MRC_ERR_INVAL); /* already detached */
    CHECK_EQ(mrc_conn_destroy((mrc_conn *)0), MRC_ERR_INVAL);
    a.state = MRC_QPS_INIT;
    CHECK_EQ(mrc_conn_modify(&ut_conns[2], &a, UT_M_INIT, 0), MRC_ERR_INVAL); /* detached */
    /* a destroyed slot's QPN no longer exists */
    {
        mrc_bth b;
        memset(&b, 0, sizeof b);
        b.opcode = MRC_OP_PROBE_REQ;
        b.pkey = 0xFFFF;
        b.dest_qp = 0x300 + 6;
        n = (size_t)mrc_bth_encode(pkt, sizeof pkt, &o, &b);
        memset(pkt + n, 0, MRC_PETH_LEN);
        n += MRC_PETH_LEN;
        CHECK_EQ(mrc_endpoint_recv(ep, pkt, n, &ri, 0), MRC_ERR_DROP);
        mrc_endpoint_stats_get(ep, &st);
        CHECK_EQ(st.drop[MRC_DROP_QPN], 1);
    }
    /* a freed slot is reused, with its QPN */
    CHECK_EQ(mrc_conn_init(ep, &ut_conns[MRC_MAX_CONNS], 0), MRC_OK);
    CHECK_EQ(mrc_conn_qpn(&ut_conns[MRC_MAX_CONNS]), 0x300 + 2);
    CHECK(mrc_conn_user(&ut_conns[MRC_MAX_CONNS]) == NULL);
    return 0;
}

static int t_qp_post_write_rules(void) {
    ut_fix *f = &ut_fx;
    mrc_write w;
    unsigned i;
    uint32_t op;
    /* only in RTS */
    for (i = 0; i < 5; i++) {
        CHECK_EQ(ut_setup(f, NULL, ut_states[i], 100, 200), MRC_OK);
        w = ut_wr(1, MRC_WR_WRITE, ut_src, 16, 0x1000, 0);
        CHECKF(mrc_conn_post_write(&f->c, &w, f->now) == (ut_states[i] == MRC_QPS_RTS ? MRC_OK : MRC_ERR_STATE),
               "post_write in %s", mrc_state_name(ut_states[i]));
    }
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 200), MRC_OK);
    for (op = MRC_WR_SEND; op <= MRC_WR_ATOMIC_FADD; op++) {
        w = ut_wr(1, op, ut_src, 16, 0x1000, 0);
        CHECKF(mrc_conn_post_write(&f->c, &w, f->now) == MRC_ERR_NOTSUP, "opcode %u", (unsigned)op);
    }
    w = ut_wr(1, 7, ut_src, 16, 0x1000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    w = ut_wr(1, 0xFFFFFFFFu, ut_src, 16, 0x1000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    w = ut_wr(1, MRC_WR_WRITE, ut_src, 16, 0x1000, 1u << 2);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    w = ut_wr(1, MRC_WR_WRITE, ut_src, MRC_MAX_MSG_LEN + 1u, 0x1000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    w = ut_wr(1, MRC_WR_WRITE, NULL, 1, 0x1000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    w = ut_wr(1, MRC_WR_WRITE, ut_src, 16, UINT64_MAX - 15u, 0); /* last byte would be past 2^64 - 1 */
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_post_write((mrc_conn *)0, &w, f->now), MRC_ERR_INVAL);
    CHECK_EQ(mrc_conn_post_write(&f->c, (const mrc_write *)0, f->now), MRC_ERR_INVAL);
    /* the last valid values */
    w = ut_wr(2, MRC_WR_WRITE, ut_src, 16, UINT64_MAX - 16u, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    w = ut_wr(3, MRC_WR_WRITE, NULL, 0, 0x1000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    w = ut_wr(4, MRC_WR_WRITE_IMM, ut_src, 16, 0x1000, MRC_WR_UNSIGNALED | MRC_WR_SOLICITED);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    w = ut_wr(5, MRC_WR_WRITE, ut_src, MRC_MAX_MSG_LEN, 0x1000, 0); /* accepted; never polled */
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    return 0;
}

/* MRC_ERR_FULL at MRC_MAX_SQ posted, and completions not yet pulled still hold their slot */
static int t_qp_send_queue_full(void) {
    ut_fix *f = &ut_fx;
    mrc_event ev;
    unsigned i;
    int n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 0x500), MRC_OK);
    for (i = 0; i < MRC_MAX_SQ; i++) CHECKF(ut_post(f, i, MRC_WR_WRITE, NULL, 0, 0) == MRC_OK, "post #%u", i);
    CHECK_EQ(ut_post(f, 999, MRC_WR_WRITE, NULL, 0, 0), MRC_ERR_FULL);
    n = ut_drain(f, ut_txs, 300);
    CHECK_EQ(n, MRC_MAX_SQ);
    CHECK_EQ(ut_feed_sack(f, 0x500 + MRC_MAX_SQ - 1, 0, 0, ut_txs[n - 1].ti.ev, 0), MRC_OK);
    CHECK_EQ(ut_post(f, 999, MRC_WR_WRITE, NULL, 0, 0), MRC_ERR_FULL); /* completions not pulled */
    CHECK_EQ(mrc_endpoint_poll_event(&f->ep, &ev), 1);
    CHECK_EQ(ev.type, MRC_EVT_SEND_DONE);
    CHECK_EQ(ev.wr_id, 0);
    CHECK_EQ(ut_post(f, 1000, MRC_WR_WRITE, NULL, 0, 0), MRC_OK);
    CHECK_EQ(ut_post(f, 1001, MRC_WR_WRITE, NULL, 0, 0), MRC_ERR_FULL);
    return 0;
}

static int t_qp_post_recv_rules(void) {
    ut_fix *f = &ut_fx;
    unsigned i;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 100, 200), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 1, f->now), MRC_ERR_STATE);
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_INIT, f->now), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 1, f->now), MRC_OK);
    {
        mrc_conn_attr a = f->attr;
        a.state = MRC_QPS_RTR;
        CHECK_EQ(mrc_conn_modify(&f->c, &a, UT_M_RTR, f->now), MRC_OK);
        CHECK_EQ(mrc_conn_post_recv(&f->c, 2, f->now), MRC_OK);
        a.state = MRC_QPS_RTS;
        CHECK_EQ(mrc_conn_modify(&f->c, &a, UT_M_RTS, f->now), MRC_OK);
        CHECK_EQ(mrc_conn_post_recv(&f->c, 3, f->now), MRC_OK);
    }
    for (i = 3; i < MRC_MAX_RQ; i++) CHECKF(mrc_conn_post_recv(&f->c, 4 + i, f->now) == MRC_OK, "recv #%u", i);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 99, f->now), MRC_ERR_FULL);
    CHECK_EQ(mrc_conn_post_recv((mrc_conn *)0, 99, f->now), MRC_ERR_INVAL);
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_ERR, f->now), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 99, f->now), MRC_ERR_STATE);
    return 0;
}

/* going to ERR: CONN_ERROR first, then every outstanding write (unsignaled too) and receive flushed */
static int t_qp_err_flushes(void) {
    ut_fix *f = &ut_fx;
    mrc_event ev;
    mrc_conn_attr a;
    uint8_t buf[128];
    mrc_txinfo ti;
    int n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 0x10), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, MRC_WR_UNSIGNALED), MRC_OK);
    CHECK_EQ(ut_post(f, 3, MRC_WR_WRITE_IMM, ut_src, 600, 0), MRC_OK); /* 3 packets */
    n = ut_drain(f, ut_txs, 3);                                    /* W1, W2, first packet of W3 */
    CHECK_EQ(n, 3);
    CHECK_EQ(ut_feed_sack(f, 0x10, 0, 0, ut_txs[0].ti.ev, 0), MRC_OK); /* completes W1; not pulled */
    CHECK_EQ(ut_post(f, 4, MRC_WR_WRITE, ut_src, 5, MRC_WR_UNSIGNALED), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 50, f->now), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 51, f->now), MRC_OK);
    a = f->attr;
    a.state = MRC_QPS_ERR;
    CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE, f->now), MRC_OK);
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_ERR);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, MRC_ERR_FLUSH, &ev, "first event"));
    CHECK(ev.conn == &f->c);
    CHECK_EQ(ev.qpn, mrc_conn_qpn(&f->c));
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W1"));
    CHECK_EQ(ev.wr_id, 1);
    CHECK_EQ(ev.byte_len, 10);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W2 (unsignaled)"));
    CHECK_EQ(ev.wr_id, 2);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W3"));
    CHECK_EQ(ev.wr_id, 3);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W4 (unsignaled, never sent)"));
    CHECK_EQ(ev.wr_id, 4);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_ERR_FLUSH, &ev, "recv 50"));
    CHECK_EQ(ev.wr_id, 50);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_ERR_FLUSH, &ev, "recv 51"));
    CHECK_EQ(ev.wr_id, 51);
    UT_TRY(ut_expect_no_event(&f->ep, "after the flush"));
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, 0, &ti, f->now), 0); /* nothing queued */
    CHECK_EQ(ut_post(f, 5, MRC_WR_WRITE, ut_src, 5, 0), MRC_ERR_STATE);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 52, f->now), MRC_ERR_STATE);
    /* ERR -> ERR changes nothing and reports nothing */
    CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE, f->now), MRC_OK);
    UT_TRY(ut_expect_no_event(&f->ep, "ERR -> ERR"));

    /* RESET discards events not pulled yet */
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 100, 0x10), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 50, f->now), MRC_OK);
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_ERR, f->now), MRC_OK);
    a.state = MRC_QPS_RESET;
    CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE, f->now), MRC_OK);
    UT_TRY(ut_expect_no_event(&f->ep, "after RESET"));
    CHECK_EQ(mrc_conn_destroy(&f->c), MRC_OK);
    return 0;
}

/* ================================================================================================================
 * 8. responder: hand-built data packets into mrc_endpoint_recv
 * ============================================================================================================== */
static void ut_fill(uint8_t *p, size_t n, uint8_t seed) {
    size_t i;
    for (i = 0; i < n; i++) p[i] = (uint8_t)(seed + i * 13u);
}

/* poll exactly one SACK and check the fields every SACK shares */
static int ut_expect_sack(ut_fix *f, mrc_pkt *k, mrc_txinfo *ti, uint32_t cack, int ack_off, int sack_off,
                          uint64_t bitmap, uint32_t ev, unsigned port, const char *what) {
    uint8_t buf[256];
    int n = ut_poll(f, buf, sizeof buf, ti, k);
    CHECKF(n == MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN, "%s: poll_tx returned %d, want a 48-byte SACK", what,
           n);
    CHECKF(k->bth.opcode == MRC_OP_SACK, "%s: opcode 0x%02X", what, k->bth.opcode);
    CHECK_EQ(ti->opcode, MRC_OP_SACK);
    CHECK_EQ(k->bth.dest_qp, f->attr.dest_qpn);
    CHECK_EQ(k->bth.pkey, f->attr.pkey);
    CHECK_EQ(k->bth.a, 0);
    CHECK_EQ(k->bth.ts, 0);
    CHECKF(k->bth.psn == cack && k->seth.cack_psn == cack, "%s: bth.psn 0x%X cack_psn 0x%X, want 0x%X", what,
           (unsigned)k->bth.psn, (unsigned)k->seth.cack_psn, (unsigned)cack);
    CHECKF(k->seth.ack_psn_offset == ack_off, "%s: ack_psn_offset %d, want %d", what, k->seth.ack_psn_offset, ack_off);
    CHECKF(k->seth.sack_offset == sack_off, "%s: sack_offset %d, want %d", what, k->seth.sack_offset, sack_off);
    CHECKF(k->seth.sack_bitmap == bitmap, "%s: bitmap 0x%016llX, want 0x%016llX", what,
           (unsigned long long)k->seth.sack_bitmap, (unsigned long long)bitmap);
    CHECKF(k->seth.entropy == ev && ti->ev == ev, "%s: entropy 0x%X / ti.ev 0x%X, want 0x%X", what,
           (unsigned)k->seth.entropy, (unsigned)ti->ev, (unsigned)ev);
    CHECKF(ti->port == port, "%s: left on port %u, want %u", what, ti->port, port);
    CHECK_EQ(ti->dscp_class, MRC_DSCP_CONTROL);
    CHECK_EQ(ti->dscp, f->cfg.dscp[MRC_DSCP_CONTROL]);
    CHECK_EQ(ti->qpn, mrc_conn_qpn(&f->c));
    CHECK_EQ(ti->peer, f->attr.peer);
    CHECK_EQ(ti->payload_len, 0);
    CHECK_EQ(k->seth.spdcid, mrc_conn_qpn(&f->c) & 0xFFFFu);
    CHECK_EQ(k->seth.dpdcid, f->attr.dest_qpn & 0xFFFFu);
    CHECK_EQ(k->seth.type, 0);
    CHECK_EQ(k->seth.nxt, 0);
    CHECK_EQ(k->seth.cc_type, 0);
    CHECK_EQ(k->seth.cc_fl, 0);
    return 0;
}
/* n PORT_STATUS_UPDATEs to QP 0x2, one per up port, each announcing mask (docs 7: a port change tells the peer) */
static int ut_expect_psu(ut_fix *f, unsigned n, uint32_t mask, const char *what) {
    unsigned i;
    uint32_t ports = 0;
    for (i = 0; i < n; i++) {
        uint8_t pkt[256];
        mrc_txinfo ti;
        mrc_pkt k;
        int rc = ut_poll(f, pkt, sizeof pkt, &ti, &k);
        CHECKF(rc == MRC_BTH_LEN + MRC_ERTH_LEN, "%s: PSU %u of %u: poll_tx returned %d", what, i + 1, n, rc);
        CHECKF(k.bth.opcode == MRC_OP_EP_REQ && k.bth.dest_qp == MRC_EPOP_QPN && ti.qpn == MRC_EPOP_QPN,
               "%s: opcode 0x%02X to qp 0x%X, want ENDPOINT_REQUEST to QP 2", what, k.bth.opcode, k.bth.dest_qp);
        CHECKF(k.erth.op == MRC_EPOP_PORT_STATUS_UPDATE && k.erth.port_status_mask == mask,
               "%s: op %u mask 0x%X, want PORT_STATUS_UPDATE 0x%X", what, k.erth.op, k.erth.port_status_mask, mask);
        CHECKF(mrc_endpoint_port_up(&f->ep, ti.port) && !(ports & (1u << (ti.port - 1u))),
               "%s: PSU on port %u (down, or twice)", what, ti.port);
        CHECK_EQ(ti.dscp_class, MRC_DSCP_CONTROL);
        CHECK_EQ(ti.peer, 0x77);
        ports |= 1u << (ti.port - 1u);
    }
    return 0;
}
static int ut_expect_nothing(ut_fix *f, const char *what) {
    uint8_t buf[256];
    mrc_txinfo ti;
    mrc_pkt k;
    int n = ut_poll(f, buf, sizeof buf, &ti, &k);
    CHECKF(n == 0, "%s: poll_tx returned %d (opcode 0x%02X), want nothing", what, n, n > 0 ? ti.opcode : 0);
    return 0;
}

static int t_rsp_write_placed_and_sacked(void) {
    ut_fix *f = &ut_fx;
    uint8_t p1[200], p2[60], p3[100], pkt[512];
    ut_data d;
    mrc_rxinfo ri;
    mrc_pkt k;
    mrc_txinfo ti;
    mrc_conn_stats cs;
    uint32_t rcvd = 0;
    const uint32_t rq = 0x100;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, rq, 0x9000), MRC_OK);
    ut_fill(p1, sizeof p1, 1);
    ut_fill(p2, sizeof p2, 2);
    ut_fill(p3, sizeof p3, 3);
    /* in order */
    ut_data_init(&d, f, rq, 1, p1, sizeof p1);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(2, UT_EV);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 0, p1, sizeof p1);
    CHECK(ut_mem_ok(f, "first write"));
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 0, 1, 0, UT_EV, 2, "first"));
    CHECK_EQ(k.seth.m, MRC_M_NONE);
    CHECK_EQ(k.seth.pr, 0);
    CHECK_EQ(k.seth.mpr, 0); /* no DYNAMIC_MPR cap */
    CHECK_EQ(k.cc.tx_timestamp, 0x1234);
    CHECK_EQ(k.cc.ooo_count, 0);
    rcvd += 36 + 200 + 0 + 4 + 40; /* nominal: headers + payload + pad + ICRC + 40 */
    CHECKF(k.cc.rcvd_bytes == (rcvd >> 8), "rcvd_bytes %u, want %u", (unsigned)k.cc.rcvd_bytes, rcvd >> 8);
    UT_TRY(ut_expect_nothing(f, "after the first SACK"));
    /* out of order: rq + 2 before rq + 1 */
    ut_data_init(&d, f, rq + 2, 3, p3, sizeof p3);
    d.va = UT_IOVA + 512;
    d.ts = 0x2222;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(1, 0xAAAA);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 512, p3, sizeof p3);
    CHECK(ut_mem_ok(f, "out-of-order write"));
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 2, 1, 0x2, 0xAAAA, 1, "hole at rq+1"));
    CHECK_EQ(k.cc.ooo_count, 1);
    CHECK_EQ(k.cc.tx_timestamp, 0x2222);
    rcvd += 36 + 100 + 0 + 44;
    CHECK_EQ(k.cc.rcvd_bytes, rcvd >> 8);
    /* the hole fills: cack jumps to rq + 2 */
    ut_data_init(&d, f, rq + 1, 2, p2, sizeof p2);
    d.va = UT_IOVA + 300;
    d.a = 0; /* filling a hole SACKs at once anyway */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(1, 0xBBBB);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 300, p2, sizeof p2);
    CHECK(ut_mem_ok(f, "hole filled"));
    UT_TRY(ut_expect_sack(f, &k, &ti, rq + 2, -1, 1, 0, 0xBBBB, 1, "hole filled"));
    CHECK_EQ(k.cc.ooo_count, 0);
    rcvd += 36 + 60 + 0 + 44;
    CHECK_EQ(k.cc.rcvd_bytes, rcvd >> 8);
    /* CE-marked arrival: SKIP_ONCE echo (Q27); 85 bytes + pad 3 bring the total to exactly 768 */
    ut_data_init(&d, f, rq + 3, 4, p1, 85);
    d.va = UT_IOVA + 1000;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(2, 0xCCCC);
    ri.ecn = 3;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 1000, p1, 85);
    UT_TRY(ut_expect_sack(f, &k, &ti, rq + 3, 0, 1, 0, 0xCCCC, 2, "CE"));
    CHECK_EQ(k.seth.m, MRC_M_SKIP_ONCE);
    rcvd += 36 + 85 + 3 + 44; /* pad 3 counts */
    CHECK_EQ(rcvd, 768);
    CHECKF(k.cc.rcvd_bytes == (rcvd >> 8), "rcvd_bytes %u, want %u", (unsigned)k.cc.rcvd_bytes, rcvd >> 8);
    /* a PSN more than 64 past cack: the slice is the 64 PSNs ending at it (Q4) */
    ut_data_init(&d, f, rq + 3 + 100, 50, p2, 4);
    d.va = UT_IOVA + 1100;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(1, 0xDDDD);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 1100, p2, 4);
    UT_TRY(ut_expect_sack(f, &k, &ti, rq + 3, 100, 100 - 63, (uint64_t)1 << 63, 0xDDDD, 1, "far slice"));
    CHECK(ut_mem_ok(f, "all writes"));
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rx_data, 5);
    CHECK_EQ(cs.rx_bytes_placed, 200 + 100 + 60 + 85 + 4);
    CHECK_EQ(cs.tx_sack, 5);

    /* RTR accepts data too */
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTR, 0xFFFFFF, 0), MRC_OK);
    ut_data_init(&d, f, 0xFFFFFF, 1, p1, 16);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri = ut_ri(1, 5);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 0, p1, 16);
    CHECK(ut_mem_ok(f, "RTR write"));
    UT_TRY(ut_expect_sack(f, &k, &ti, 0xFFFFFF, 0, 1, 0, 5, 1, "RTR"));
    return 0;
}

/* writes that touch the region's first and last byte, zero-length writes, VA advanced per packet */
static int t_rsp_write_bounds_ok(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[512], pkt[1024];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 9);
    mrc_pkt k;
    mrc_txinfo ti;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 10, 0), MRC_OK);
    ut_fill(p, sizeof p, 0x40);
    ut_data_init(&d, f, 10, 1, p, 16);
    d.va = UT_IOVA + UT_REGION - 16; /* ends exactly at the region's end */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, UT_REGION - 16, p, 16);
    ut_data_init(&d, f, 11, 2, p + 16, 16);
    d.va = UT_IOVA;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 0, p + 16, 16);
    /* zero-length write (P10): with zero_len_rkey (default) it needs a valid rkey and a VA in the region; one
     * that fails is dropped, not NAKed; it may name the byte just past the end */
    ut_data_init(&d, f, 12, 3, NULL, 0);
    d.rkey = 0xBAD0BAD0u;
    d.va = 7;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_ERR_DROP);
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    d.rkey = f->rkey;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d), &ri, f->now),
             MRC_ERR_DROP);
    d.va = UT_IOVA + UT_REGION;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d), &ri, f->now), MRC_OK);
    /* a two-packet message: FIRST at va, LAST at va + MTU, dma_len 300 in both */
    ut_data_init(&d, f, 13, 4, p + 32, 256);
    d.op = MRC_OP_WRITE_FIRST;
    d.dma_len = 300;
    d.va = UT_IOVA + 1000;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_data_init(&d, f, 14, 4, p + 32 + 256, 44);
    d.op = MRC_OP_WRITE_LAST;
    d.dma_len = 300;
    d.va = UT_IOVA + 1256;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 1000, p + 32, 300);
    CHECK(ut_mem_ok(f, "in-bounds writes"));
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    while (ut_poll(f, pkt, sizeof pkt, &ti, &k) > 0) CHECK_EQ(k.bth.opcode, MRC_OP_SACK);
    CHECK_EQ(k.seth.cack_psn, 14);
    return 0;
}

static int t_rsp_oob_write_rejected(void) {
    static const char *const names[] = {"rkey key bits wrong", "rkey slot unknown", "rkey 0", "va below region",
                                        "va + len past the end", "va at the end", "va wraps 2^64",
                                        "region without remote write", "qp without remote write",
                                        "deregistered rkey", "zero-length on qp without remote write",
                                        "non-first packet past the end"};
    ut_fix *f = &ut_fx;
    unsigned i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        uint8_t p[256], pkt[512];
        ut_data d;
        mrc_rxinfo ri = ut_ri(2, 0x5151);
        mrc_pkt k;
        mrc_txinfo ti;
        mrc_conn_stats cs;
        mrc_event ev;
        const uint32_t rq = 0x800;
        size_t n;
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, rq, 0), MRC_OK);
        ut_fill(p, sizeof p, (uint8_t)i);
        ut_data_init(&d, f, rq, 1, p, 16);
        d.msn = 1;
        switch (i) {
        case 0: d.rkey = f->rkey ^ 0x01u; break;
        case 1: d.rkey = 0x7F00u | (f->rkey & 0xFFu); break;
        case 2: d.rkey = 0; break;
        case 3: d.va = UT_IOVA - 1; break;
        case 4: d.va = UT_IOVA + UT_REGION - 15; break;
        case 5: d.va = UT_IOVA + UT_REGION; d.plen = d.dma_len = 4; break;
        case 6: d.va = UINT64_MAX - 7u; break;
        case 7: {
            uint32_t rk2;
            CHECK_EQ(mrc_endpoint_reg_mr(&f->ep, f->mem + UT_GUARD, UT_IOVA, UT_REGION, 0, NULL, &rk2), MRC_OK);
            d.rkey = rk2;
            break;
        }
        case 8:
        case 10: {
            mrc_conn_attr a = f->attr;
            a.state = MRC_QPS_RTS;
            a.access = 0;
            CHECK_EQ(mrc_conn_modify(&f->c, &a, MRC_ATTR_STATE | MRC_ATTR_ACCESS, f->now), MRC_OK);
            if (i == 10) d.plen = d.dma_len = 0;
            break;
        }
        case 9: CHECK_EQ(mrc_endpoint_dereg_mr(&f->ep, f->rkey), MRC_OK); break;
        default:
            d.op = MRC_OP_WRITE_LAST;
            d.psn = rq + 1;
            d.dma_len = 512;
            d.plen = 256;
            d.va = UT_IOVA + UT_REGION - 128;
            break;
        }
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_ACCESS, names[i]));
        CHECKF(ut_mem_ok(f, names[i]), "%s: memory changed", names[i]);
        CHECKF(mrc_conn_state(&f->c) == MRC_QPS_ERR, "%s: state %s", names[i],
               mrc_state_name((unsigned)mrc_conn_state(&f->c)));
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, MRC_ERR_LOCAL_ACCESS, &ev, names[i]));
        UT_TRY(ut_expect_no_event(&f->ep, names[i]));
        /* the NAK 0x62, naming the offending message, on the arrival port and EV */
        CHECKF(ut_poll(f, pkt, sizeof pkt, &ti, &k) == MRC_BTH_LEN + MRC_AETH_LEN, "%s: no NAK", names[i]);
        CHECKF(k.bth.opcode == MRC_OP_ACK, "%s: opcode 0x%02X", names[i], k.bth.opcode);
        CHECKF(k.aeth.syndrome == MRC_AETH_NAK_REM_ACCESS, "%s: syndrome 0x%02X", names[i], k.aeth.syndrome);
        CHECK_EQ(k.aeth.msn, 1);
        CHECK_EQ(k.bth.psn, rq - 1); /* cack */
        CHECK_EQ(k.bth.dest_qp, UT_PEER_QPN);
        CHECK_EQ(ti.port, 2);
        CHECK_EQ(ti.ev, 0x5151);
        CHECK_EQ(ti.dscp_class, MRC_DSCP_CONTROL);
        UT_TRY(ut_expect_nothing(f, names[i]));
        mrc_conn_stats_get(&f->c, &cs);
        CHECK_EQ(cs.tx_nak, 1);
        CHECK_EQ(cs.rx_data, 0);
        /* in ERR, even a good write is refused */
        ut_data_init(&d, f, rq, 1, p, 16);
        d.rkey = f->rkey;
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_STATE, "write in ERR"));
        CHECK(ut_mem_ok(f, "write in ERR"));
    }
    return 0;
}

static int t_rsp_duplicate_not_replaced(void) {
    ut_fix *f = &ut_fx;
    uint8_t a[32], b[32], c2[32], pkt[256];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 0x1111);
    mrc_pkt k;
    mrc_txinfo ti;
    mrc_conn_stats cs;
    const uint32_t rq = 0xFFFFFE; /* the PSNs wrap */
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, rq, 0), MRC_OK);
    memset(a, 0x11, sizeof a);
    memset(b, 0x22, sizeof b);
    memset(c2, 0x33, sizeof c2);
    ut_data_init(&d, f, rq, 1, a, sizeof a);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 0, a, sizeof a);
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 0, 1, 0, 0x1111, 1, "original"));
    /* the same PSN with other payload bytes (PSN <= cack): dropped, re-SACKed at once */
    ut_data_init(&d, f, rq, 1, b, sizeof b);
    d.a = 0;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri.ev = 0x2222;
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_DUP, "duplicate of cack"));
    CHECK(ut_mem_ok(f, "after the duplicate"));
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 0, 1, 0, 0x2222, 1, "re-SACK"));
    /* an out-of-order PSN, then its duplicate (received, above cack) */
    ut_data_init(&d, f, (rq + 2) & MRC_PSN_MASK, 3, c2, sizeof c2);
    d.va = UT_IOVA + 256;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri.ev = 0x3333;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 256, c2, sizeof c2);
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 2, 1, 0x2, 0x3333, 1, "out of order"));
    ut_data_init(&d, f, (rq + 2) & MRC_PSN_MASK, 3, b, sizeof b);
    d.va = UT_IOVA + 256;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri.ev = 0x4444;
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_DUP, "duplicate above cack"));
    CHECK(ut_mem_ok(f, "after the second duplicate"));
    UT_TRY(ut_expect_sack(f, &k, &ti, rq, 2, 1, 0x2, 0x4444, 1, "re-SACK above cack"));
    /* a PSN exactly 2^23 behind... or ahead: -2^23 <= PSN - cack <= 0 is a duplicate (P13) */
    ut_data_init(&d, f, (rq + 0x800000u) & MRC_PSN_MASK, 2, b, sizeof b);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_DUP, "2^23 away"));
    CHECK(ut_mem_ok(f, "2^23 away"));
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rx_dup, 3);
    CHECK_EQ(cs.rx_data, 2);
    return 0;
}

static int t_rsp_psn_window(void) {
    static const struct {
        bool incl, nack;
        uint8_t mprd;
        uint32_t last_ok;
    } cs[] = {{false, false, 1, 127}, {true, true, 1, 128}, {false, true, 2, 255}, {true, false, 3, 384}};
    ut_fix *f = &ut_fx;
    unsigned i;
    for (i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        mrc_config cfg;
        uint8_t p[8] = {1, 2, 3, 4, 5, 6, 7, 8}, pkt[128];
        ut_data d;
        mrc_rxinfo ri = ut_ri(2, 0x7777);
        mrc_pkt k;
        mrc_txinfo ti;
        mrc_conn_stats st;
        const uint32_t rq = 0xFFFFC0, cack = rq - 1; /* the window crosses the wrap */
        uint32_t bad = (cack + cs[i].last_ok + 1) & MRC_PSN_MASK;
        size_t n;
        char what[64];
        ut_cfg(&cfg);
        cfg.window_inclusive = cs[i].incl;
        cfg.nack_oor = cs[i].nack;
        CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RESET, rq, 0), MRC_OK);
        f->attr.mpr_dest = cs[i].mprd;
        CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
        snprintf(what, sizeof what, "case %u (inclusive %d, mpr_dest %u)", i, (int)cs[i].incl, cs[i].mprd);
        /* the last PSN inside the window */
        ut_data_init(&d, f, (cack + cs[i].last_ok) & MRC_PSN_MASK, 2, p, sizeof p);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        CHECKF(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now) == MRC_OK, "%s: cack + %u refused", what,
               (unsigned)cs[i].last_ok);
        ut_expect_place(f, 0, p, sizeof p);
        UT_TRY(ut_expect_sack(f, &k, &ti, cack, (int)cs[i].last_ok, (int)cs[i].last_ok - 63, (uint64_t)1 << 63,
                              0x7777, 2, what));
        /* the first PSN past it */
        memset(p, 0xEE, sizeof p);
        ut_data_init(&d, f, bad, 2, p, sizeof p);
        d.va = UT_IOVA + 100;
        d.ts = 0x4321;
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PSN_OOR, what));
        CHECKF(ut_mem_ok(f, what), "%s: out-of-window write placed", what);
        if (cs[i].nack) {
            CHECKF(ut_poll(f, pkt, sizeof pkt, &ti, &k) == MRC_BTH_LEN + MRC_NETH_LEN, "%s: no NACK", what);
            CHECK_EQ(k.bth.opcode, MRC_OP_NACK);
            CHECK_EQ(k.neth.nack_reason, MRC_NACK_PSN_OOR_WINDOW);
            CHECK_EQ(k.neth.nack_psn, bad);
            CHECK_EQ(k.bth.psn, bad);
            CHECK_EQ(k.neth.entropy, 0x7777);
            CHECK_EQ(k.neth.tx_timestamp, 0x4321);
            CHECK_EQ(ti.port, 2);
        }
        UT_TRY(ut_expect_nothing(f, what));
        /* far ahead, 2^23 - 1 past cack: still out of window */
        ut_data_init(&d, f, (cack + 0x7FFFFFu) & MRC_PSN_MASK, 2, p, sizeof p);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PSN_OOR, "2^23 - 1 ahead"));
        mrc_conn_stats_get(&f->c, &st);
        CHECK_EQ(st.rx_oor, 2);
        CHECK_EQ(st.tx_nack, cs[i].nack ? 2 : 0);
        CHECK(ut_mem_ok(f, what));
    }
    return 0;
}

static int t_rsp_trimmed_nacked(void) {
    static const char *const names[] = {"rx flag", "dscp TRIMMED", "dscp TRIMMED_LASTHOP", "short payload",
                                        "headers only", "flag + last-hop dscp", "short FIRST packet",
                                        "custom last-hop codepoint", "custom trimmed codepoint"};
    ut_fix *f = &ut_fx;
    unsigned i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        mrc_config cfg;
        uint8_t p[300], pkt[512];
        ut_data d;
        mrc_rxinfo ri = ut_ri(1, 0x6060 + i);
        mrc_pkt k;
        mrc_txinfo ti;
        mrc_conn_stats st;
        unsigned want = MRC_NACK_TRIMMED;
        const uint32_t rq = 0x4000;
        size_t n;
        ut_cfg(&cfg);
        if (i >= 7) {
            cfg.dscp[MRC_DSCP_TRIMMED] = 20;
            cfg.dscp[MRC_DSCP_TRIMMED_LASTHOP] = 21;
        }
        CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, rq, 0), MRC_OK);
        ut_fill(p, sizeof p, (uint8_t)(0x30 + i));
        ut_data_init(&d, f, rq, 1, p, 64);
        d.ts = (uint16_t)(0x5000 + i);
        switch (i) {
        case 0: ri.flags = MRC_RX_TRIMMED; break;
        case 1: ri.dscp = 3; break;
        case 2: ri.dscp = 4; want = MRC_NACK_TRIMMED_LASTHOP; break;
        case 3: d.plen = 40; break; /* dma_len 64 */
        case 4: d.plen = 0; break;
        case 5: ri.flags = MRC_RX_TRIMMED; ri.dscp = 4; want = MRC_NACK_TRIMMED_LASTHOP; break;
        case 6: d.op = MRC_OP_WRITE_FIRST; d.dma_len = 600; d.plen = 100; break;
        case 7: ri.dscp = 21; want = MRC_NACK_TRIMMED_LASTHOP; break;
        default: ri.dscp = 20; break;
        }
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_TRIMMED, names[i]));
        CHECKF(ut_mem_ok(f, names[i]), "%s: trimmed packet placed", names[i]);
        CHECKF(ut_poll(f, pkt, sizeof pkt, &ti, &k) == MRC_BTH_LEN + MRC_NETH_LEN, "%s: no NACK", names[i]);
        CHECK_EQ(k.bth.opcode, MRC_OP_NACK);
        CHECKF(k.neth.nack_reason == want, "%s: reason 0x%02X, want 0x%02X", names[i], k.neth.nack_reason, want);
        CHECK_EQ(k.neth.nack_psn, rq);
        CHECK_EQ(k.bth.psn, rq);
        CHECK_EQ(k.bth.dest_qp, UT_PEER_QPN);
        CHECK_EQ(k.neth.entropy, 0x6060 + i);
        CHECK_EQ(k.neth.tx_timestamp, 0x5000 + i);
        CHECK_EQ(k.neth.spdcid, mrc_conn_qpn(&f->c) & 0xFFFFu);
        CHECK_EQ(k.neth.dpdcid, UT_PEER_QPN & 0xFFFFu);
        CHECK_EQ(k.neth.vendor_info, 0);
        CHECK_EQ(k.neth.cc_type, 0);
        CHECK_EQ(ti.port, 1);
        CHECK_EQ(ti.ev, 0x6060 + i);
        CHECK_EQ(ti.dscp_class, MRC_DSCP_CONTROL);
        UT_TRY(ut_expect_nothing(f, names[i]));
        mrc_conn_stats_get(&f->c, &st);
        CHECK_EQ(st.rx_trimmed, 1);
        CHECK_EQ(st.tx_nack, 1);
        /* the PSN was not marked: the untrimmed retransmission is accepted, not a duplicate */
        d.plen = d.op == MRC_OP_WRITE_FIRST ? 256 : 64;
        d.rtx = 1;
        ri = ut_ri(2, 0x7070);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        CHECKF(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now) == MRC_OK, "%s: retransmission refused", names[i]);
        ut_expect_place(f, 0, p, d.plen);
        CHECK(ut_mem_ok(f, names[i]));
        UT_TRY(ut_expect_sack(f, &k, &ti, rq, 0, 1, 0, 0x7070, 2, names[i]));
    }
    return 0;
}

/* trimmed so far that a header is gone: MRC_DROP_SHORT, no NACK (Q17) */
static int t_rsp_trimmed_into_headers(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[64], pkt[256];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 1);
    size_t n, cut;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 50, 0), MRC_OK);
    memset(p, 0x99, sizeof p);
    ut_data_init(&d, f, 50, 1, p, sizeof p);
    d.op = MRC_OP_WRITE_ONLY_IMM;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(n, 40 + 64);
    ri.flags = MRC_RX_TRIMMED;
    for (cut = 0; cut < 40; cut++) {
        char what[48];
        snprintf(what, sizeof what, "cut to %u bytes", (unsigned)cut);
        UT_TRY(ut_expect_drop(f, NULL, pkt, cut, &ri, MRC_DROP_SHORT, what));
        UT_TRY(ut_expect_nothing(f, what));
    }
    CHECK(ut_mem_ok(f, "cut packets"));
    UT_TRY(ut_expect_drop(f, &f->c, pkt, 40, &ri, MRC_DROP_TRIMMED, "headers intact"));
    /* a 5-byte write has pad 3: a switch that keeps only the headers cuts into the pad; it is still a trim, NACKed,
     * with or without the adapter's flag (regression: it used to be dropped as MALFORMED and never NACKed) */
    for (cut = 0; cut < 2; cut++) {
        mrc_txinfo ti;
        mrc_pkt k;
        uint8_t out[256];
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 60, 0), MRC_OK);
        ut_data_init(&d, f, 60, 1, p, 5);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        CHECK_EQ(pkt[1] & 0x30u, 3u << 4);
        ri.flags = cut ? 0 : MRC_RX_TRIMMED;
        ri.dscp = f->cfg.dscp[MRC_DSCP_TRIMMED];
        UT_TRY(ut_expect_drop(f, &f->c, pkt, 36, &ri, MRC_DROP_TRIMMED, "cut into the pad"));
        CHECK(ut_mem_ok(f, "cut into the pad"));
        CHECKF(ut_poll(f, out, sizeof out, &ti, &k) > 0, "no NACK for a packet cut into its pad");
        CHECK_EQ(k.bth.opcode, MRC_OP_NACK);
        CHECK_EQ(k.neth.nack_reason, MRC_NACK_TRIMMED);
        CHECK_EQ(k.neth.nack_psn, 60);
    }
    return 0;
}

/* one packet per MRC_DROP_* reason, each counted exactly once; rx_drops equals the sum */
static int t_rsp_drop_counters(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    mrc_conn *c2 = &ut_conns[0];
    uint8_t p[64], pkt[256];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 0x42);
    mrc_endpoint_stats st;
    mrc_conn_stats cs;
    uint64_t sum = 0;
    uint32_t rk_ext;
    const uint32_t rq = 0x200, sq = 0x300;
    unsigned r;
    size_t n;
    ut_cfg(&cfg);
    cfg.place = ut_place_hook;
    cfg.place_ud = f;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, rq, sq), MRC_OK);
    CHECK_EQ(mrc_endpoint_reg_mr(&f->ep, NULL, 0x9000000, 4096, MRC_ACCESS_REMOTE_WRITE | MRC_ACCESS_EXTERNAL, NULL,
                                 &rk_ext),
             MRC_OK);
    memset(ut_conns, 0, sizeof ut_conns);
    CHECK_EQ(mrc_conn_init(&f->ep, c2, f->now), MRC_OK);
    CHECK_EQ(ut_goto(c2, &f->attr, MRC_QPS_INIT, f->now), MRC_OK);
    memset(p, 0x77, sizeof p);

    /* ICRC: checked first */
    ut_data_init(&d, f, rq, 1, p, 16);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri.flags = MRC_RX_ICRC_BAD;
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_ICRC, "bad ICRC"));
    ri.flags = 0;
    /* SHORT */
    UT_TRY(ut_expect_drop(f, NULL, pkt, 5, &ri, MRC_DROP_SHORT, "5 bytes"));
    UT_TRY(ut_expect_drop(f, NULL, pkt, 0, &ri, MRC_DROP_SHORT, "0 bytes"));
    UT_TRY(ut_expect_drop(f, NULL, pkt, 12 + 4 + 4 + 8, &ri, MRC_DROP_SHORT, "half a RETH"));
    /* OPCODE */
    pkt[0] = 0x0A; /* RC RDMA WRITE ONLY: not an MRC opcode */
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_OPCODE, "RC opcode"));
    pkt[0] = 0xFF;
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_OPCODE, "opcode 0xFF"));
    {
        mrc_bth b;
        mrc_erth e;
        mrc_wire_opts *o = &f->cfg.wire;
        memset(&b, 0, sizeof b);
        memset(&e, 0, sizeof e);
        b.opcode = MRC_OP_EP_REQ;
        b.pkey = 0xFFFF;
        b.dest_qp = mrc_conn_qpn(&f->c);
        n = (size_t)mrc_bth_encode(pkt, sizeof pkt, o, &b);
        n += (size_t)mrc_erth_encode(pkt + n, sizeof pkt - n, &e);
        UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_OPCODE, "ERTH to an ordinary QPN"));
        /* EPOP: endpoint operations to QP 0x2 that name no operation, or answer no request */
        b.dest_qp = MRC_EPOP_QPN;
        e.op = 2; /* only PORT_STATUS_UPDATE (0) and EV_PROBE (1) exist */
        n = (size_t)mrc_bth_encode(pkt, sizeof pkt, o, &b);
        n += (size_t)mrc_erth_encode(pkt + n, sizeof pkt - n, &e);
        UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_EPOP, "ERTH op 2 to QP 2"));
        UT_TRY(ut_expect_nothing(f, "ERTH op 2 to QP 2"));
        b.opcode = MRC_OP_EP_RSP;
        n = (size_t)mrc_bth_encode(pkt, sizeof pkt, o, &b);
        memset(pkt + n, 0, MRC_EETH_LEN);
        n += MRC_EETH_LEN;
        UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_EPOP, "unsolicited EETH to QP 2"));
    }
    ut_data_init(&d, f, rq, 1, p, 16);
    d.qp = MRC_EPOP_QPN;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_OPCODE, "data to QP 2"));
    /* QPN */
    d.qp = f->cfg.qpn_base + 9;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_QPN, "unattached slot"));
    d.qp = 0xABCDEF;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, NULL, pkt, n, &ri, MRC_DROP_QPN, "unknown QPN"));
    /* PKEY: the low 15 bits must match; the membership bit is ignored (P14) */
    ut_data_init(&d, f, rq, 1, p, 16);
    d.pkey = 0xFFFE;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PKEY, "pkey 0xFFFE"));
    /* MALFORMED */
    ut_data_init(&d, f, rq, 1, p, 0);
    d.dma_len = 0;
    d.pad = 3; /* pad larger than the bytes after the headers */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n - 1, &ri, MRC_DROP_MALFORMED, "pad 3 on a zero-length write"));
    ut_data_init(&d, f, rq, 1, p, 64);
    d.op = MRC_OP_WRITE_FIRST;
    d.dma_len = 256; /* FIRST needs dma_len > MTU */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "FIRST with dma_len = MTU"));
    ut_data_init(&d, f, rq, 1, p, 20);
    d.dma_len = 10; /* payload longer than implied */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "payload > dma_len"));
    ut_data_init(&d, f, rq, 1, p, 16);
    d.op = MRC_OP_WRITE_MIDDLE;
    d.dma_len = 512; /* MIDDLE needs > 2 MTU */
    d.plen = 32;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "MIDDLE with dma_len = 2 MTU"));
    n = ut_build_sack(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), sq, sq - 1, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "SACK cack != BTH psn"));
    n = ut_build_nack(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), sq, sq + 1, MRC_NACK_TRIMMED, 0);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "NACK nack_psn != BTH psn"));
    /* STATE and ACK_STALE: c2 is in INIT */
    ut_data_init(&d, f, rq, 1, p, 16);
    d.qp = mrc_conn_qpn(c2);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, c2, pkt, n, &ri, MRC_DROP_STATE, "data to INIT"));
    n = ut_build_probe(pkt, &f->cfg.wire, mrc_conn_qpn(c2), 0, 0);
    UT_TRY(ut_expect_drop(f, c2, pkt, n, &ri, MRC_DROP_STATE, "probe to INIT"));
    n = ut_build_sack(pkt, &f->cfg.wire, mrc_conn_qpn(c2), 0, 0, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, c2, pkt, n, &ri, MRC_DROP_ACK_STALE, "SACK to INIT"));
    n = ut_build_aeth(pkt, &f->cfg.wire, mrc_conn_qpn(c2), 0, MRC_AETH_NAK_REM_ACCESS, 1);
    UT_TRY(ut_expect_drop(f, c2, pkt, n, &ri, MRC_DROP_ACK_STALE, "AETH to INIT"));
    /* PSN_OOR, MSN_OOR, TRIMMED, DUP */
    ut_data_init(&d, f, rq + 200, 1, p, 16);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PSN_OOR, "cack + 201"));
    ut_data_init(&d, f, rq, 0, p, 16); /* msn_done 0: the window is [1, 128) */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MSN_OOR, "msn 0"));
    ut_data_init(&d, f, rq, 128, p, 16);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MSN_OOR, "msn 128"));
    ut_data_init(&d, f, rq, 1, p, 16);
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    ri.flags = MRC_RX_TRIMMED;
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_TRIMMED, "trimmed"));
    ri.flags = 0;
    d.pkey = 0x7FFF; /* differs only in the membership bit: accepted */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    ut_expect_place(f, 0, p, 16);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_DUP, "duplicate"));
    /* MALFORMED: a Write-IMM whose rqmsn slot is already taken */
    ut_data_init(&d, f, rq + 1, 2, p, 8);
    d.op = MRC_OP_WRITE_ONLY_IMM;
    d.rqmsn = 0;
    d.va = UT_IOVA + 64;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK); /* stashed: no receive posted */
    ut_expect_place(f, 64, p, 8);
    ut_data_init(&d, f, rq + 2, 3, p, 8);
    d.op = MRC_OP_WRITE_ONLY_IMM;
    d.rqmsn = 0;
    d.va = UT_IOVA + 128;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_MALFORMED, "rqmsn slot taken"));
    /* ACK_BOGUS: nothing sent yet, so a SACK for cack = sq names an unsent PSN */
    n = ut_build_sack(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), sq, sq, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_ACK_BOGUS, "SACK beyond snd_nxt"));
    /* PLACE: the hook refuses */
    f->place_rc = -1;
    ut_data_init(&d, f, rq + 3, 4, p, 16);
    d.rkey = rk_ext;
    d.va = 0x9000000 + 10;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PLACE, "hook refused"));
    CHECK_EQ(f->place_calls, 1);
    /* WIMM on c2 (RTR, max_wimm_dest 1): rqmsn 1 while rqmsn 0 is the next to deliver */
    {
        mrc_conn_attr a = f->attr;
        a.state = MRC_QPS_RTR;
        a.max_wimm_dest = 1;
        CHECK_EQ(mrc_conn_modify(c2, &a, UT_M_RTR, f->now), MRC_OK);
    }
    ut_data_init(&d, f, rq, 1, p, 8);
    d.qp = mrc_conn_qpn(c2);
    d.op = MRC_OP_WRITE_ONLY_IMM;
    d.rqmsn = 1;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, c2, pkt, n, &ri, MRC_DROP_WIMM, "WIMM overflow"));
    /* RATE (P19): PROBE_REQs beyond the connection's burst at one instant */
    n = ut_build_probe(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, 0);
    for (r = 0; r < f->cfg.probe_burst; r++) CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_RATE, "PROBE_REQ over the rate"));
    /* ACCESS, last: it takes the main conn to ERR */
    ut_data_init(&d, f, rq + 3, 4, p, 16);
    d.rkey = 0;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_ACCESS, "bad rkey"));
    CHECK(ut_mem_ok(f, "drop counters"));

    mrc_endpoint_stats_get(&f->ep, &st);
    for (r = 0; r < MRC_DROP_REASONS; r++) {
        CHECKF(st.drop[r] >= 1, "reason %s never counted", mrc_drop_name(r));
        sum += st.drop[r];
    }
    CHECKF(st.rx_drops == sum, "rx_drops %llu, sum of drop[] %llu", (unsigned long long)st.rx_drops,
           (unsigned long long)sum);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rx_drops, 18); /* the drops above that named the main conn */
    mrc_conn_stats_get(c2, &cs);
    CHECK_EQ(cs.rx_drops, 5);
    return 0;
}

/* the placement hook gets the region's rkey, user pointer, offset and bytes; a refusal leaves the PSN unmarked */
static int t_rsp_place_hook(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    uint8_t p[100], pkt[256];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 0x99);
    mrc_pkt k;
    mrc_txinfo ti;
    uint32_t rk;
    int user = 0;
    size_t n;
    ut_cfg(&cfg);
    cfg.place = ut_place_hook;
    cfg.place_ud = f;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x30, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_reg_mr(&f->ep, NULL, 0x9000000, 4096, MRC_ACCESS_REMOTE_WRITE | MRC_ACCESS_EXTERNAL, &user,
                                 &rk),
             MRC_OK);
    ut_fill(p, sizeof p, 0x21);
    ut_data_init(&d, f, 0x30, 1, p, sizeof p);
    d.rkey = rk;
    d.va = 0x9000000 + 50;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    f->place_rc = 1;
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_PLACE, "refused"));
    UT_TRY(ut_expect_nothing(f, "refused: not acknowledged"));
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    f->place_rc = 0;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK); /* not a duplicate */
    CHECK_EQ(f->place_calls, 2);
    CHECK_EQ(f->place_rkey, rk);
    CHECK(f->place_user == &user);
    CHECK_EQ(f->place_off, 50);
    CHECK_EQ(f->place_len, sizeof p);
    CHECK_EQ(f->place_first, p[0]);
    CHECK(ut_mem_ok(f, "host region untouched"));
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x30, 0, 1, 0, 0x99, 1, "placed by the hook"));
    return 0;
}

/* WIMM overflow: NAK 0x61 as the only packet, ERR with MRC_ERR_LOCAL_INVAL, nothing placed (Q23, P8) */
static int t_rsp_wimm_overflow(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[16], pkt[256];
    ut_data d;
    mrc_rxinfo ri = ut_ri(2, 0x3131);
    mrc_pkt k;
    mrc_txinfo ti;
    mrc_event ev;
    const uint32_t rq = 0x700;
    unsigned i, part;
    size_t n;
    for (part = 0; part < 2; part++) {
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, rq, 0), MRC_OK);
        f->attr.max_wimm_dest = 2;
        CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
        if (part == 1) CHECK_EQ(mrc_conn_post_recv(&f->c, 77, f->now), MRC_OK); /* rqmsn 0 is delivered */
        /* part 0: rqmsn 0, 1 wait for receives; rqmsn 2 is one too many.
         * part 1: rqmsn 0 delivered; 1, 2 wait; rqmsn 3 is one too many. */
        for (i = 0; i < 3u + part; i++) {
            memset(p, (int)(0x10 + i), sizeof p);
            ut_data_init(&d, f, rq + i, (uint16_t)(1 + i), p, sizeof p);
            d.op = MRC_OP_WRITE_ONLY_IMM;
            d.rqmsn = (uint16_t)i;
            d.imm = 0x100 + i;
            d.va = UT_IOVA + 32 * i;
            n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
            if (i + 1 < 3u + part) {
                CHECKF(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now) == MRC_OK, "part %u rqmsn %u refused", part, i);
                ut_expect_place(f, 32 * i, p, sizeof p);
            } else {
                UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_WIMM, "one immediate too many"));
            }
        }
        CHECK(ut_mem_ok(f, "WIMM overflow"));
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_ERR);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, MRC_ERR_LOCAL_INVAL, &ev, "WIMM")); /* pulled first */
        if (part == 1) { /* completed before the error */
            UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "rqmsn 0"));
            CHECK_EQ(ev.wr_id, 77);
            CHECK_EQ(ev.imm, 0x100);
            CHECK_EQ(ev.byte_len, sizeof p);
        }
        UT_TRY(ut_expect_no_event(&f->ep, "stashed immediates are discarded"));
        /* the earlier SACKs were discarded with the control queue: the NAK is the only packet */
        CHECKF(ut_poll(f, pkt, sizeof pkt, &ti, &k) == MRC_BTH_LEN + MRC_AETH_LEN, "part %u: no NAK first", part);
        CHECK_EQ(k.bth.opcode, MRC_OP_ACK);
        CHECK_EQ(k.aeth.syndrome, MRC_AETH_NAK_INV_REQ);
        CHECK_EQ(k.aeth.msn, 3 + part); /* METH msn of the offending packet */
        CHECK_EQ(k.bth.psn, rq + 1 + part); /* cack: the accepted ones */
        CHECK_EQ(ti.port, 2);
        CHECK_EQ(ti.ev, 0x3131);
        UT_TRY(ut_expect_nothing(f, "after the NAK"));
    }
    return 0;
}

/* Write-IMMs complete into posted receives in rqmsn order, even when their last packets arrive in reverse */
static int t_rsp_wimm_order_reverse(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[700], pkt[512];
    ut_data d[6];
    mrc_rxinfo ri = ut_ri(1, 0x4141);
    mrc_event ev;
    const uint32_t rq = 0xFFFFFD; /* wraps inside the sequence */
    static const int order[6] = {4, 5, 3, 2, 1, 0};
    unsigned i;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, rq, 0), MRC_OK);
    for (i = 0; i < 3; i++) CHECK_EQ(mrc_conn_post_recv(&f->c, 100 + i, f->now), MRC_OK);
    ut_fill(p, sizeof p, 0x61);
    /* M1: Write-IMM rqmsn 0, 300 bytes, 2 packets; M2: plain write (rqmsn 1 = next, not consumed), 10 bytes;
     * M3: Write-IMM rqmsn 1, 20 bytes; M4: Write-IMM rqmsn 2, 300 bytes, 2 packets */
    ut_data_init(&d[0], f, rq, 1, p, 256);
    d[0].op = MRC_OP_WRITE_FIRST; d[0].dma_len = 300; d[0].va = UT_IOVA;
    ut_data_init(&d[1], f, rq + 1, 1, p + 256, 44);
    d[1].op = MRC_OP_WRITE_LAST_IMM; d[1].dma_len = 300; d[1].va = UT_IOVA + 256; d[1].imm = 0xA0;
    ut_data_init(&d[2], f, rq + 2, 2, p + 300, 10);
    d[2].rqmsn = 1; d[2].va = UT_IOVA + 400;
    ut_data_init(&d[3], f, rq + 3, 3, p + 310, 20);
    d[3].op = MRC_OP_WRITE_ONLY_IMM; d[3].rqmsn = 1; d[3].va = UT_IOVA + 500; d[3].imm = 0xA1;
    ut_data_init(&d[4], f, rq + 4, 4, p + 330, 256);
    d[4].op = MRC_OP_WRITE_FIRST; d[4].rqmsn = 2; d[4].dma_len = 300; d[4].va = UT_IOVA + 600;
    ut_data_init(&d[5], f, rq + 5, 4, p + 330 + 256, 44);
    d[5].op = MRC_OP_WRITE_LAST_IMM; d[5].rqmsn = 2; d[5].dma_len = 300; d[5].va = UT_IOVA + 856; d[5].imm = 0xA2;
    d[1].rqmsn = 0;
    d[0].rqmsn = 0;
    for (i = 0; i < 6; i++) {
        d[i].psn &= MRC_PSN_MASK;
        ut_expect_place(f, d[i].va - UT_IOVA, d[i].pl, d[i].plen);
    }
    for (i = 0; i < 6; i++) {
        const ut_data *x = &d[order[i]];
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, x);
        CHECKF(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now) == MRC_OK, "packet psn 0x%X refused",
               (unsigned)x->psn);
        if (i < 5) UT_TRY(ut_expect_no_event(&f->ep, "before the first packet arrives"));
    }
    CHECK(ut_mem_ok(f, "all placed"));
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "first immediate"));
    CHECK_EQ(ev.wr_id, 100);
    CHECK_EQ(ev.imm, 0xA0);
    CHECK_EQ(ev.byte_len, 300);
    CHECK(ev.conn == &f->c);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "second immediate"));
    CHECK_EQ(ev.wr_id, 101);
    CHECK_EQ(ev.imm, 0xA1);
    CHECK_EQ(ev.byte_len, 20);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "third immediate"));
    CHECK_EQ(ev.wr_id, 102);
    CHECK_EQ(ev.imm, 0xA2);
    CHECK_EQ(ev.byte_len, 300);
    UT_TRY(ut_expect_no_event(&f->ep, "three immediates only"));
    return 0;
}

/* an immediate with no receive posted waits; post_recv delivers it (P6) */
static int t_rsp_imm_waits_for_recv(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[8] = {1, 2, 3, 4, 5, 6, 7, 8}, pkt[128];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_event ev;
    mrc_conn_stats cs;
    unsigned i;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    for (i = 0; i < 2; i++) {
        ut_data_init(&d, f, 0x10 + i, (uint16_t)(1 + i), p, sizeof p);
        d.op = MRC_OP_WRITE_ONLY_IMM;
        d.rqmsn = (uint16_t)i;
        d.imm = 0x55 + i;
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    }
    UT_TRY(ut_expect_no_event(&f->ep, "no receive posted"));
    CHECK_EQ(mrc_conn_post_recv(&f->c, 7, f->now), MRC_OK);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "first after post_recv"));
    CHECK_EQ(ev.wr_id, 7);
    CHECK_EQ(ev.imm, 0x55);
    CHECK_EQ(ev.byte_len, 8);
    UT_TRY(ut_expect_no_event(&f->ep, "one receive, one immediate"));
    CHECK_EQ(mrc_conn_post_recv(&f->c, 8, f->now), MRC_OK);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "second"));
    CHECK_EQ(ev.wr_id, 8);
    CHECK_EQ(ev.imm, 0x56);
    CHECK_EQ(mrc_conn_post_recv(&f->c, 9, f->now), MRC_OK);
    UT_TRY(ut_expect_no_event(&f->ep, "receive waiting for an immediate"));
    ut_data_init(&d, f, 0x12, 3, p, sizeof p);
    d.op = MRC_OP_WRITE_ONLY_IMM;
    d.rqmsn = 2;
    d.imm = 0x57;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_RECV_IMM, MRC_OK, &ev, "third"));
    CHECK_EQ(ev.wr_id, 9);
    CHECK_EQ(ev.imm, 0x57);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.imm_delivered, 3);
    return 0;
}

/* PROBE_REQ: a SACK with pr = 1, cack, the slice from cack + 1, the PETH timestamp echoed (P4) */
static int t_rsp_probe_answer(void) {
    ut_fix *f = &ut_fx;
    uint8_t p[8] = {0}, pkt[128];
    ut_data d;
    mrc_rxinfo ri = ut_ri(1, 3);
    mrc_pkt k;
    mrc_txinfo ti;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTR, 0x20, 0), MRC_OK);
    ut_data_init(&d, f, 0x22, 3, p, sizeof p); /* a hole at 0x20, 0x21 */
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x1F, 3, 1, 0x4, 3, 1, "data"));
    n = ut_build_probe(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), 0x30, 0x4242);
    ri = ut_ri(2, 0xBEEF);
    ri.ecn = 3;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x1F, 0, 1, 0x4, 0xBEEF, 2, "probe answer"));
    CHECK_EQ(k.seth.pr, 1);
    CHECK_EQ(k.seth.m, MRC_M_SKIP_ONCE); /* the probe arrived CE-marked */
    CHECK_EQ(k.cc.tx_timestamp, 0x4242);
    CHECK_EQ(k.cc.ooo_count, 1);
    UT_TRY(ut_expect_nothing(f, "one answer"));
    /* acknowledgements are for RTS only */
    n = ut_build_sack(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, 0, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_ACK_STALE, "SACK to RTR"));
    n = ut_build_nack(pkt, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, 0, MRC_NACK_UNEXP_EVENT, 0);
    UT_TRY(ut_expect_drop(f, &f->c, pkt, n, &ri, MRC_DROP_ACK_STALE, "UNEXP_EVENT NACK to RTR"));
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTR);
    return 0;
}

/* SETH mpr: mpr_dest when the connection has MRC_CAP_DYNAMIC_MPR, else 0 = ignore (Q9) */
static int t_rsp_sack_mpr_advertised(void) {
    ut_fix *f = &ut_fx;
    uint8_t pkt[128];
    mrc_rxinfo ri = ut_ri(1, 8);
    mrc_pkt k;
    mrc_txinfo ti;
    unsigned cap;
    size_t n;
    for (cap = 0; cap < 2; cap++) {
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 0x10, 0), MRC_OK);
        f->attr.caps = cap ? MRC_CAP_DYNAMIC_MPR : 0;
        f->attr.mpr_dest = 3;
        CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
        n = ut_data_pkt(f, pkt, sizeof pkt, 0x10, 1, 1, 0);
        CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
        UT_TRY(ut_expect_sack(f, &k, &ti, 0x10, 0, 1, 0, 8, 1, "SACK"));
        CHECKF(k.seth.mpr == (cap ? 3 : 0), "caps 0x%X: SETH mpr %u", (unsigned)f->attr.caps, k.seth.mpr);
    }
    return 0;
}

/* poll_tx: MRC_TX_COPY into a buffer too small for the whole packet consumes nothing; without MRC_TX_COPY the
 * payload points into the posted buffer at the packet's offset */
static int t_ep_poll_tx_copy_nobuf(void) {
    ut_fix *f = &ut_fx;
    static uint8_t buf[600];
    mrc_txinfo ti;
    mrc_pkt k;
    mrc_endpoint_stats st;
    int n;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, 0x20), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 300, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, 36 + 255, MRC_TX_COPY, &ti, f->now), MRC_ERR_NOBUF);
    CHECK_EQ(mrc_endpoint_poll_tx(&f->ep, buf, MRC_HDR_MAX, MRC_TX_COPY, &ti, f->now), MRC_ERR_NOBUF);
    n = mrc_endpoint_poll_tx(&f->ep, buf, 36 + 256, MRC_TX_COPY, &ti, f->now);
    CHECK_EQ(n, 36 + 256);
    CHECK_EQ(mrc_pkt_decode(buf, (size_t)n, &f->cfg.wire, &k), MRC_OK);
    CHECK_EQ(k.bth.psn, 0x20); /* the refused attempts consumed no PSN */
    CHECK(ti.payload == buf + 36);
    CHECK(memcmp(buf + 36, ut_src, 256) == 0);
    n = mrc_endpoint_poll_tx(&f->ep, buf, MRC_HDR_MAX, 0, &ti, f->now); /* headers only */
    CHECK_EQ(n, 36);
    CHECK_EQ(mrc_pkt_decode(buf, (size_t)n, &f->cfg.wire, &k), MRC_OK);
    CHECK_EQ(k.bth.psn, 0x21);
    CHECK(ti.payload == ut_src + 256);
    CHECK_EQ(ti.payload_len, 44);
    CHECK_EQ(ti.pad, 0);
    mrc_endpoint_stats_get(&f->ep, &st);
    CHECK_EQ(st.tx_pkts, 2);
    CHECK_EQ(st.tx_bytes, 36 + 256 + 36 + 44);
    return 0;
}

/* ================================================================================================================
 * 9. requester: drain its packets, feed it hand-built SACK / NACK / AETH
 * ============================================================================================================== */
static int ut_feed_nack(ut_fix *f, uint32_t psn, unsigned reason, uint16_t ts) {
    uint8_t p[64];
    size_t n = ut_build_nack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), psn, psn, reason, ts);
    mrc_rxinfo ri = ut_ri(1, 0x1234);
    return mrc_endpoint_recv(&f->ep, p, n, &ri, f->now);
}
static int ut_feed_aeth(ut_fix *f, unsigned syndrome, uint32_t msn) {
    uint8_t p[64];
    size_t n = ut_build_aeth(p, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, syndrome, msn);
    mrc_rxinfo ri = ut_ri(1, 0x1234);
    return mrc_endpoint_recv(&f->ep, p, n, &ri, f->now);
}

/* segmentation: METH/RETH on every packet, VA advanced per packet, a on the last, TSETH, ImmDt, se, PSN wrap */
static int t_req_segmentation(void) {
    ut_fix *f = &ut_fx;
    mrc_write w;
    const uint64_t va = 0x00007F0000001000ull;
    uint16_t ts = (uint16_t)((UT_T0 >> 7) & 0xFFFFu);
    uint32_t ev1 = 0, ev2 = 0;
    mrc_conn_stats cs;
    mrc_config cfg;
    int n, i;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, 0xFFFFFF), MRC_OK);
    w = ut_wr(1, MRC_WR_WRITE, ut_src, 601, va, MRC_WR_SOLICITED); /* se only goes with ImmDt */
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    w = ut_wr(2, MRC_WR_WRITE_IMM, ut_src + 1000, 10, va + 0x10000, MRC_WR_SOLICITED);
    w.imm = 0xFEEDFACEu;
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    w = ut_wr(3, MRC_WR_WRITE, NULL, 0, va + 0x20000, 0);
    CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
    n = ut_drain(f, ut_txs, 20);
    CHECK_EQ(n, 5);
    {
        static const struct {
            unsigned op, plen, pad, a, msn, rqmsn, hl;
            uint32_t psn, src_off;
            uint64_t va_off;
        } want[5] = {
            {MRC_OP_WRITE_FIRST, 256, 0, 0, 1, 0, 36, 0xFFFFFF, 0, 0},
            {MRC_OP_WRITE_MIDDLE, 256, 0, 0, 1, 0, 36, 0x000000, 256, 256},
            {MRC_OP_WRITE_LAST, 89, 3, 1, 1, 0, 36, 0x000001, 512, 512},
            {MRC_OP_WRITE_ONLY_IMM, 10, 2, 1, 2, 0, 40, 0x000002, 1000, 0x10000},
            {MRC_OP_WRITE_ONLY, 0, 0, 1, 3, 1, 36, 0x000003, 0, 0x20000},
        };
        for (i = 0; i < n; i++) {
            const ut_tx *t = &ut_txs[i];
            const mrc_pkt *k = &t->k;
            CHECKF(k->bth.opcode == want[i].op && t->ti.opcode == want[i].op, "packet %d: opcode 0x%02X", i,
                   k->bth.opcode);
            CHECKF(k->bth.psn == want[i].psn, "packet %d: psn 0x%X, want 0x%X", i, (unsigned)k->bth.psn,
                   (unsigned)want[i].psn);
            CHECKF(k->payload_len == want[i].plen && t->ti.payload_len == want[i].plen, "packet %d: payload %u", i,
                   (unsigned)k->payload_len);
            CHECKF(k->bth.pad == want[i].pad && t->ti.pad == want[i].pad && t->pad_zero, "packet %d: pad %u", i,
                   k->bth.pad);
            CHECKF(k->bth.a == want[i].a, "packet %d: a %u", i, k->bth.a);
            CHECK_EQ(k->hdr_len, want[i].hl);
            CHECK_EQ(t->ti.hdr_len, want[i].hl);
            CHECK_EQ(t->len, (int)(want[i].hl + want[i].plen + want[i].pad));
            CHECK_EQ(k->meth.msn, want[i].msn);
            CHECK_EQ(k->meth.rqmsn, want[i].rqmsn);
            CHECK(k->reth.va == va + want[i].va_off);
            CHECK_EQ(k->reth.dma_len, i < 3 ? 601 : i == 3 ? 10 : 0);
            CHECK_EQ(k->reth.rkey, 0x1234);
            CHECK_EQ(k->bth.rtx, 0);
            CHECK_EQ(k->bth.r, 0);
            CHECK_EQ(k->bth.m, 0);
            CHECK_EQ(k->bth.resv8, 0);
            CHECK_EQ(k->bth.tver, 0);
            CHECK_EQ(k->bth.se, i == 3 ? 1 : 0);
            CHECK_EQ(k->bth.pkey, 0xFFFF);
            CHECK_EQ(k->bth.dest_qp, UT_PEER_QPN);
            CHECK_EQ(k->bth.ts, 1);
            CHECK(k->hdrs & MRC_HDR_TSETH);
            CHECK_EQ(k->tseth.tx_timestamp, ts);
            CHECK_EQ(k->tseth.tsr, 0);
            CHECK_EQ(k->tseth.ftype, 1);
            CHECK_EQ(t->pcrc, ut_crc32_bitwise(0, ut_src + want[i].src_off, want[i].plen));
            CHECK_EQ(t->ti.dscp_class, MRC_DSCP_TRIMMABLE);
            CHECK_EQ(t->ti.dscp, 10);
            CHECK_EQ(t->ti.peer, 0x77);
            CHECK_EQ(t->ti.qpn, mrc_conn_qpn(&f->c));
            /* two EV slots: ports alternate 1, 2, 1, ... and each port keeps its EV value (AUTO range) */
            CHECKF(t->ti.port == 1u + (unsigned)(i & 1), "packet %d on port %u", i, t->ti.port);
            CHECK(t->ti.ev >= 49152 && t->ti.ev <= 65535);
            if (t->ti.port == 1) {
                if (!ev1) ev1 = t->ti.ev;
                CHECK_EQ(t->ti.ev, ev1);
            } else {
                if (!ev2) ev2 = t->ti.ev;
                CHECK_EQ(t->ti.ev, ev2);
            }
        }
        CHECK_EQ(ut_txs[3].k.imm, 0xFEEDFACEu);
        CHECK(ut_txs[3].k.hdrs & MRC_HDR_IMMDT);
    }
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.tx_data, 5);
    CHECK_EQ(cs.tx_bytes, 611);
    /* without TSETH, not trimmable, an ack request every 2nd packet */
    ut_cfg(&cfg);
    cfg.tseth = false;
    cfg.trimmable = false;
    cfg.ack_req_every = 2;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 1, 0x10), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 256 * 5, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 20);
    CHECK_EQ(n, 5);
    for (i = 0; i < n; i++) {
        CHECK_EQ(ut_txs[i].k.bth.ts, 0);
        CHECK_EQ(ut_txs[i].k.hdr_len, 32);
        CHECK(!(ut_txs[i].k.hdrs & MRC_HDR_TSETH));
        CHECK_EQ(ut_txs[i].ti.dscp_class, MRC_DSCP_NO_TRIM);
        CHECK_EQ(ut_txs[i].ti.dscp, 12);
        CHECKF(ut_txs[i].k.bth.a == (unsigned)(i & 1), "packet %d: a %u with ack_req_every 2", i,
               ut_txs[i].k.bth.a);
    }
    return 0;
}

/* the requester sends up to W = mpr * 128 PSNs past cack; max_wimm caps Write-IMMs started and incomplete */
static int t_req_window_and_wimm_limits(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x1000;
    int n;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 256 * 140, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 300);
    CHECK_EQ(n, 128);
    CHECK_EQ(ut_txs[127].k.bth.psn, sq + 127);
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, ut_txs[0].ti.ev, 0), MRC_OK); /* one more PSN of room */
    n = ut_drain(f, ut_txs, 300);
    CHECK_EQ(n, 1);
    CHECK_EQ(ut_txs[0].k.bth.psn, sq + 128);
    CHECK_EQ(ut_feed_sack(f, sq + 10, 0, 0, 0, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 300);
    CHECK_EQ(n, 10);
    CHECK_EQ(ut_txs[9].k.bth.psn, sq + 138);

    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, 1, sq), MRC_OK);
    f->attr.max_wimm = 1;
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE_IMM, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE_IMM, ut_src, 10, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 10);
    CHECK_EQ(n, 1);
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, 0, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 10);
    CHECK_EQ(n, 1);
    CHECK_EQ(ut_txs[0].k.meth.rqmsn, 1);
    CHECK_EQ(ut_txs[0].k.meth.msn, 2);
    return 0;
}

/* every retriable NACK: that PSN again at once, rtx = 1, on the other EV, before pending new data */
static int t_req_nack_retransmits(void) {
    static const unsigned reasons[6] = {MRC_NACK_TRIMMED, MRC_NACK_TRIMMED_LASTHOP, MRC_NACK_NO_BITMAP,
                                        MRC_NACK_NO_PKT_BUFFER, MRC_NACK_NO_RESOURCE, MRC_NACK_PSN_OOR_WINDOW};
    ut_fix *f = &ut_fx;
    unsigned i;
    ut_src_init();
    for (i = 0; i < 6; i++) {
        const uint32_t sq = 0x50;
        unsigned r = reasons[i];
        int trim = r == MRC_NACK_TRIMMED || r == MRC_NACK_TRIMMED_LASTHOP, n;
        ut_tx orig[4];
        mrc_conn_stats cs;
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
        CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 1024, 0), MRC_OK);
        n = ut_drain(f, orig, 4);
        CHECK_EQ(n, 4);
        CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 100, 0), MRC_OK); /* new data waiting */
        f->now += 5000;
        /* PSN sq + 2 went on slot 0, which is also the next round-robin pick: only the avoid rule moves it */
        CHECKF(ut_feed_nack(f, sq + 2, r, orig[2].k.tseth.tx_timestamp) == MRC_OK, "%s: NACK refused",
               mrc_nack_name(r));
        n = ut_drain(f, ut_txs, 1);
        CHECKF(n == 1, "%s: nothing sent after the NACK", mrc_nack_name(r));
        CHECKF(ut_txs[0].k.bth.psn == sq + 2, "%s: sent psn 0x%X first, want the NACKed 0x%X", mrc_nack_name(r),
               (unsigned)ut_txs[0].k.bth.psn, (unsigned)(sq + 2));
        CHECKF(ut_txs[0].k.bth.rtx == 1, "%s: rtx bit clear", mrc_nack_name(r));
        CHECK_EQ(ut_txs[0].k.bth.opcode, MRC_OP_WRITE_MIDDLE);
        CHECK(ut_txs[0].k.reth.va == orig[2].k.reth.va);
        CHECK_EQ(ut_txs[0].k.meth.msn, orig[2].k.meth.msn);
        CHECK_EQ(ut_txs[0].pcrc, orig[2].pcrc);
        CHECKF(ut_txs[0].ti.port != orig[2].ti.port && ut_txs[0].ti.ev == orig[1].ti.ev,
               "%s: retransmitted on port %u ev 0x%X; original port %u ev 0x%X (other slot: port %u ev 0x%X)",
               mrc_nack_name(r), ut_txs[0].ti.port, (unsigned)ut_txs[0].ti.ev, orig[2].ti.port,
               (unsigned)orig[2].ti.ev, orig[1].ti.port, (unsigned)orig[1].ti.ev);
        CHECK_EQ(ut_txs[0].ti.dscp_class, MRC_DSCP_TRIMMABLE_RETX);
        CHECK_EQ(ut_txs[0].ti.dscp, 14);
        CHECK_EQ(ut_txs[0].k.tseth.tx_timestamp, (uint16_t)((f->now >> 7) & 0xFFFFu)); /* a new timestamp */
        n = ut_drain(f, ut_txs, 5);
        CHECK_EQ(n, 1);
        CHECK_EQ(ut_txs[0].k.bth.psn, sq + 4); /* then the new data */
        CHECK_EQ(ut_txs[0].k.bth.rtx, 0);
        mrc_conn_stats_get(&f->c, &cs);
        CHECK_EQ(cs.rx_nack, 1);
        CHECK_EQ(cs.rx_nack_reason[r], 1);
        CHECK_EQ(cs.tx_rtx, 1);
        CHECK_EQ(cs.rtx_nack, 1);
        CHECK_EQ(cs.ev_trims, trim ? 1 : 0);
        CHECK_EQ(cs.ev_losses, 0);
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
        UT_TRY(ut_expect_no_event(&f->ep, mrc_nack_name(r)));
    }
    return 0;
}

/* NACK losses go to the front of the retransmit queue (P3): the later NACK is served first */
static int t_req_nack_front_of_queue(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x150;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 1024, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 8), 4);
    CHECK_EQ(ut_feed_nack(f, sq + 1, MRC_NACK_NO_RESOURCE, ut_txs[1].k.tseth.tx_timestamp), MRC_OK);
    CHECK_EQ(ut_feed_nack(f, sq + 3, MRC_NACK_TRIMMED, ut_txs[3].k.tseth.tx_timestamp), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 8), 2);
    CHECKF(ut_txs[0].k.bth.psn == sq + 3 && ut_txs[1].k.bth.psn == sq + 1,
           "retransmitted 0x%X then 0x%X, want 0x%X then 0x%X", (unsigned)ut_txs[0].k.bth.psn,
           (unsigned)ut_txs[1].k.bth.psn, (unsigned)(sq + 3), (unsigned)(sq + 1));
    CHECK(ut_txs[0].k.bth.rtx && ut_txs[1].k.bth.rtx);
    return 0;
}

/* a NACK echoing the timestamp of a transmission already superseded by a retransmission is stale */
static int t_req_nack_superseded(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x60;
    uint16_t ts0, ts1;
    uint8_t p[64];
    size_t n;
    mrc_rxinfo ri = ut_ri(1, 1);
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 512, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 4), 2);
    ts0 = ut_txs[0].k.tseth.tx_timestamp;
    f->now += 10000;
    CHECK_EQ(ut_feed_nack(f, sq, MRC_NACK_TRIMMED, ts0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 4), 1);
    CHECK_EQ(ut_txs[0].k.bth.rtx, 1);
    ts1 = ut_txs[0].k.tseth.tx_timestamp;
    CHECK(ts1 != ts0);
    f->now += 10000;
    n = ut_build_nack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), sq, sq, MRC_NACK_TRIMMED, ts0);
    UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, MRC_DROP_ACK_STALE, "NACK of the superseded transmission"));
    UT_TRY(ut_expect_nothing(f, "stale NACK"));
    CHECK_EQ(ut_feed_nack(f, sq, MRC_NACK_TRIMMED, ts1), MRC_OK); /* the NACK of the retransmission counts */
    CHECK_EQ(ut_drain(f, ut_txs, 4), 1);
    CHECK_EQ(ut_txs[0].k.bth.psn, sq);
    CHECK_EQ(ut_txs[0].k.bth.rtx, 1);
    return 0;
}

/* UNEXP_EVENT: the connection goes to ERR with MRC_ERR_REMOTE_OP; everything outstanding flushes */
static int t_req_nack_unexp_event(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x70;
    unsigned part;
    mrc_event ev;
    ut_src_init();
    for (part = 0; part < 2; part++) {
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
        CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
        CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, MRC_WR_UNSIGNALED), MRC_OK);
        CHECK_EQ(ut_drain(f, ut_txs, 4), 2);
        /* part 1: a PSN never sent is dropped as bogus first (P18), then an outstanding one errors */
        if (part) CHECK_EQ(ut_feed_nack(f, sq + 50, MRC_NACK_UNEXP_EVENT, 0), MRC_ERR_DROP);
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
        CHECK_EQ(ut_feed_nack(f, sq + 1, MRC_NACK_UNEXP_EVENT, 0), MRC_OK);
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_ERR);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, MRC_ERR_REMOTE_OP, &ev, "UNEXP_EVENT"));
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W1"));
        CHECK_EQ(ev.wr_id, 1);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W2"));
        CHECK_EQ(ev.wr_id, 2);
        UT_TRY(ut_expect_no_event(&f->ep, "UNEXP_EVENT"));
        UT_TRY(ut_expect_nothing(f, "UNEXP_EVENT"));
    }
    return 0;
}

static int t_req_nack_bogus_and_stale(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x000002;
    uint8_t p[64];
    size_t n;
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_conn_stats cs;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 512, 0), MRC_OK); /* PSNs sq, sq + 1 */
    CHECK_EQ(ut_drain(f, ut_txs, 4), 2);
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, 0, 0), MRC_OK);
#define UT_NACK_DROP(psn, reason, why, what)                                                        \
    do {                                                                                            \
        n = ut_build_nack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), (psn), (psn), (reason), 0);         \
        UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, (why), (what)));                                 \
        UT_TRY(ut_expect_nothing(f, (what)));                                                       \
    } while (0)
    UT_NACK_DROP(sq + 1, 0x05, MRC_DROP_ACK_BOGUS, "unknown reason 0x05");
    UT_NACK_DROP(sq + 1, 0x00, MRC_DROP_ACK_BOGUS, "unknown reason 0x00");
    UT_NACK_DROP(sq + 1, 0xFF, MRC_DROP_ACK_BOGUS, "unknown reason 0xFF");
    UT_NACK_DROP(sq + 2, MRC_NACK_TRIMMED, MRC_DROP_ACK_BOGUS, "never sent: snd_nxt");
    UT_NACK_DROP(sq + 100, MRC_NACK_NO_RESOURCE, MRC_DROP_ACK_BOGUS, "never sent: far ahead");
    UT_NACK_DROP(sq, MRC_NACK_TRIMMED, MRC_DROP_ACK_STALE, "already acknowledged");
    UT_NACK_DROP((sq - 1) & MRC_PSN_MASK, MRC_NACK_TRIMMED, MRC_DROP_ACK_STALE, "before the window");
    UT_NACK_DROP((sq - 0x400000) & MRC_PSN_MASK, MRC_NACK_TRIMMED, MRC_DROP_ACK_STALE, "far behind");
#undef UT_NACK_DROP
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rx_nack_reason[5], 1); /* counted per reason even when dropped */
    CHECK_EQ(cs.tx_rtx, 0);
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    CHECK_EQ(ut_feed_nack(f, sq + 1, MRC_NACK_TRIMMED, 0), MRC_OK); /* the one good NACK */
    CHECK_EQ(ut_drain(f, ut_txs, 4), 1);
    CHECK_EQ(ut_txs[0].k.bth.psn, sq + 1);
    return 0;
}

static int t_req_sack_bogus(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0xFFFFFE;
    uint8_t p[64];
    size_t n;
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_event ev;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 1024, 0), MRC_OK); /* 0xFFFFFE .. 0x000001 */
    CHECK_EQ(ut_drain(f, ut_txs, 8), 4);
    n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), 2, 2, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, MRC_DROP_ACK_BOGUS, "cack = snd_nxt"));
    n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), 0x100, 0x100, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, MRC_DROP_ACK_BOGUS, "cack far beyond snd_nxt"));
    n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, 1, 0, 1, 0, 0, 0, 0);
    UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, MRC_DROP_MALFORMED, "cack != BTH psn"));
    UT_TRY(ut_expect_no_event(&f->ep, "after bogus SACKs"));
    CHECK_EQ(ut_feed_sack(f, 1, 0, 0, 0, 0), MRC_OK); /* the last PSN sent */
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "all acked"));
    CHECK_EQ(ev.wr_id, 1);
    CHECK_EQ(ev.byte_len, 1024);
    CHECK_EQ(ut_feed_sack(f, 0xFFFFFF, 0, 0, 0, 0), MRC_OK); /* an older SACK overtaken: harmless */
    UT_TRY(ut_expect_no_event(&f->ep, "old SACK"));
    return 0;
}

static int t_req_aeth_nak(void) {
    static const struct {
        unsigned syn;
        int status;
    } cs[3] = {{MRC_AETH_NAK_INV_REQ, MRC_ERR_REMOTE_INVAL},
               {MRC_AETH_NAK_REM_ACCESS, MRC_ERR_REMOTE_ACCESS},
               {MRC_AETH_NAK_REM_OP, MRC_ERR_REMOTE_OP}};
    ut_fix *f = &ut_fx;
    unsigned i;
    ut_src_init();
    for (i = 0; i < 3; i++) {
        mrc_event ev;
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, 0x80), MRC_OK);
        CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
        CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, MRC_WR_UNSIGNALED), MRC_OK);
        CHECK_EQ(ut_post(f, 3, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
        CHECK_EQ(ut_drain(f, ut_txs, 8), 3);
        CHECK_EQ(ut_post(f, 4, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* not sent */
        CHECKF(ut_feed_aeth(f, cs[i].syn, 2) == MRC_OK, "NAK 0x%02X refused", cs[i].syn);
        CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_ERR);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, cs[i].status, &ev, "NAK"));
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W1"));
        CHECK_EQ(ev.wr_id, 1);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, cs[i].status, &ev, "W2, named by the NAK"));
        CHECK_EQ(ev.wr_id, 2);
        CHECK_EQ(ev.byte_len, 0);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W3"));
        CHECK_EQ(ev.wr_id, 3);
        UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "W4"));
        CHECK_EQ(ev.wr_id, 4);
        UT_TRY(ut_expect_no_event(&f->ep, "after the NAK"));
        UT_TRY(ut_expect_nothing(f, "after the NAK"));
    }
    return 0;
}

static int t_req_aeth_bogus(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x90;
    uint8_t p[64];
    size_t n;
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_event ev;
    mrc_conn_stats cs;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* msn 1 */
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* msn 2 */
    CHECK_EQ(ut_drain(f, ut_txs, 8), 2);
    CHECK_EQ(ut_post(f, 3, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* msn 3, not started */
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, 0, 0), MRC_OK);            /* msn 1 complete */
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W1"));
#define UT_AETH_DROP(syn, msn, what)                                                    \
    do {                                                                                \
        n = ut_build_aeth(p, &f->cfg.wire, mrc_conn_qpn(&f->c), 0, (syn), (msn));       \
        UT_TRY(ut_expect_drop(f, &f->c, p, n, &ri, MRC_DROP_ACK_BOGUS, (what)));        \
    } while (0)
    UT_AETH_DROP(MRC_AETH_NAK_REM_ACCESS, 9, "NAK naming a message never posted");
    UT_AETH_DROP(MRC_AETH_NAK_REM_ACCESS, 0x1234, "NAK naming msn 0x1234");
    UT_AETH_DROP(MRC_AETH_NAK_REM_ACCESS, 1, "NAK naming a completed message");
    UT_AETH_DROP(MRC_AETH_NAK_REM_ACCESS, 3, "NAK naming a message not started");
    UT_AETH_DROP(MRC_AETH_NAK_PSN_SEQ, 2, "NAK 0x60");
    UT_AETH_DROP(0x64, 2, "NAK code 4");
    UT_AETH_DROP(0x20, 2, "RNR NAK (type 1)");
    UT_AETH_DROP(0x40, 2, "reserved type 2");
    UT_AETH_DROP(MRC_AETH_ACK, 9, "ACK naming a message never posted");
#undef UT_AETH_DROP
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    CHECK_EQ(ut_feed_aeth(f, MRC_AETH_ACK, 2), MRC_OK); /* positive ACK: informational only (Q7) */
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rx_tack, 1);
    UT_TRY(ut_expect_no_event(&f->ep, "a positive ACK completes nothing"));
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
    return 0;
}

/* completions in work-request order once every PSN is covered (cumulative or SACK bits), byte_len as posted */
static int t_req_sack_completes_in_order(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0xA0;
    mrc_event ev;
    mrc_conn_stats cs;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 300, 0), MRC_OK);                  /* sq, sq + 1 */
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, MRC_WR_UNSIGNALED), MRC_OK);   /* sq + 2 */
    CHECK_EQ(ut_post(f, 3, MRC_WR_WRITE, NULL, 0, 0), MRC_OK);                      /* sq + 3 */
    CHECK_EQ(ut_post(f, 4, MRC_WR_WRITE, ut_src, 256, 0), MRC_OK);                  /* sq + 4 */
    CHECK_EQ(ut_post(f, 5, MRC_WR_WRITE_IMM, ut_src, 20, 0), MRC_OK);               /* sq + 5 */
    CHECK_EQ(ut_drain(f, ut_txs, 10), 6);
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, 0, 0), MRC_OK); /* half of W1 */
    UT_TRY(ut_expect_no_event(&f->ep, "half a message"));
    CHECK_EQ(ut_feed_sack(f, sq, 5, 0x1F, 0, 0), MRC_OK); /* bits: sq + 1 .. sq + 5 */
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W1"));
    CHECK_EQ(ev.wr_id, 1);
    CHECK_EQ(ev.byte_len, 300);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W3 (W2 unsignaled)"));
    CHECK_EQ(ev.wr_id, 3);
    CHECK_EQ(ev.byte_len, 0);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W4"));
    CHECK_EQ(ev.wr_id, 4);
    CHECK_EQ(ev.byte_len, 256);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W5"));
    CHECK_EQ(ev.wr_id, 5);
    CHECK_EQ(ev.byte_len, 20);
    CHECK(ev.conn == &f->c);
    UT_TRY(ut_expect_no_event(&f->ep, "five messages"));
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.msgs_done, 5);
    CHECK_EQ(cs.rx_sack, 2);
    return 0;
}

/* a SACK bitmap acking a later message but not an earlier one completes nothing */
static int t_req_sack_no_early_completion(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x000000;
    mrc_event ev;
    mrc_conn_stats cs;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* sq */
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK); /* sq + 1 */
    CHECK_EQ(ut_drain(f, ut_txs, 10), 2);
    CHECK_EQ(ut_feed_sack(f, 0xFFFFFF, 2, 0x2, 0, 0), MRC_OK); /* cack = sq - 1, bit for sq + 1 */
    UT_TRY(ut_expect_no_event(&f->ep, "later message acked first"));
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.msgs_done, 0);
    CHECK_EQ(ut_feed_sack(f, sq, 0, 0, 0, 0), MRC_OK);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W1"));
    CHECK_EQ(ev.wr_id, 1);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_OK, &ev, "W2"));
    CHECK_EQ(ev.wr_id, 2);
    UT_TRY(ut_expect_no_event(&f->ep, "two messages"));
    return 0;
}

/* ================================================================================================================
 * 10. errors and names
 * ============================================================================================================== */
static int t_names_and_errors(void) {
    static const int errs[] = {MRC_OK, MRC_ERR_INVAL, MRC_ERR_STATE, MRC_ERR_NOBUF, MRC_ERR_FULL, MRC_ERR_DROP,
                               MRC_ERR_NOTSUP, MRC_ERR_NOENT, MRC_ERR_TRUNC, MRC_ERR_MALFORMED, MRC_ERR_RETRY_EXC,
                               MRC_ERR_REMOTE_ACCESS, MRC_ERR_REMOTE_INVAL, MRC_ERR_REMOTE_OP, MRC_ERR_FLUSH,
                               MRC_ERR_LOCAL_ACCESS, MRC_ERR_LOCAL_INVAL};
    static const unsigned ops[] = {0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xCB, 0xD1, 0xD8, 0xD9, 0xDC, 0xDD, 0xDE};
    static const unsigned nacks[] = {0x01, 0x02, 0x06, 0x07, 0x0A, 0x0B, 0x19};
    const char *unk = mrc_strerror(-50), *unkfatal = mrc_strerror(-150);
    unsigned i, j, v;
    CHECK(unk && *unk);
    CHECK(unkfatal && *unkfatal);
    CHECK_EQ(strcmp(mrc_strerror(1), unk), 0);
    for (i = 0; i < sizeof errs / sizeof errs[0]; i++) {
        const char *s = mrc_strerror(errs[i]);
        CHECKF(s && *s && strcmp(s, unk) != 0 && strcmp(s, unkfatal) != 0, "mrc_strerror(%d) = \"%s\"", errs[i],
               s ? s : "(null)");
        for (j = 0; j < i; j++)
            CHECKF(strcmp(s, mrc_strerror(errs[j])) != 0, "errors %d and %d share \"%s\"", errs[i], errs[j], s);
        CHECKF(mrc_err_is_fatal(errs[i]) == (errs[i] <= MRC_ERR_FATAL), "mrc_err_is_fatal(%d)", errs[i]);
    }
    CHECK(!mrc_err_is_fatal(MRC_ERR_FATAL + 1));
    CHECK(mrc_err_is_fatal(MRC_ERR_FATAL));
    CHECK(!mrc_err_is_fatal(0));
    CHECK(!mrc_err_is_fatal(MRC_ERR_MALFORMED));
    CHECK(mrc_err_is_fatal(-1000));
    for (v = 0; v < 256; v++) {
        int known = 0;
        for (i = 0; i < sizeof ops / sizeof ops[0]; i++) known |= ops[i] == v;
        CHECKF(known ? strcmp(mrc_opcode_name(v), "?") != 0 && *mrc_opcode_name(v)
                     : strcmp(mrc_opcode_name(v), "?") == 0,
               "mrc_opcode_name(0x%02X) = \"%s\"", v, mrc_opcode_name(v));
        known = 0;
        for (i = 0; i < sizeof nacks / sizeof nacks[0]; i++) known |= nacks[i] == v;
        CHECKF(known ? strcmp(mrc_nack_name(v), "?") != 0 && *mrc_nack_name(v) : strcmp(mrc_nack_name(v), "?") == 0,
               "mrc_nack_name(0x%02X) = \"%s\"", v, mrc_nack_name(v));
        CHECKF(mrc_nack_is_retriable(v) == (known && v != MRC_NACK_UNEXP_EVENT), "mrc_nack_is_retriable(0x%02X)", v);
    }
    CHECK(!mrc_nack_is_retriable(0x101)); /* not masked to 8 bits */
    CHECK(!mrc_nack_is_retriable(0xFFFFFFFFu));
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
        for (j = 0; j < i; j++) CHECK(strcmp(mrc_opcode_name(ops[i]), mrc_opcode_name(ops[j])) != 0);
    for (i = 0; i < sizeof nacks / sizeof nacks[0]; i++)
        for (j = 0; j < i; j++) CHECK(strcmp(mrc_nack_name(nacks[i]), mrc_nack_name(nacks[j])) != 0);
    for (i = 0; i < MRC_DROP_REASONS; i++) {
        CHECKF(*mrc_drop_name(i) && strcmp(mrc_drop_name(i), "?") != 0, "mrc_drop_name(%u)", i);
        for (j = 0; j < i; j++) CHECK(strcmp(mrc_drop_name(i), mrc_drop_name(j)) != 0);
    }
    CHECK_EQ(strcmp(mrc_drop_name(MRC_DROP_REASONS), "?"), 0);
    CHECK_EQ(strcmp(mrc_drop_name(0xFFFFFFFFu), "?"), 0);
    for (i = 0; i <= MRC_QPS_ERR; i++) {
        CHECKF(*mrc_state_name(i) && strcmp(mrc_state_name(i), "?") != 0, "mrc_state_name(%u)", i);
        for (j = 0; j < i; j++) CHECK(strcmp(mrc_state_name(i), mrc_state_name(j)) != 0);
    }
    CHECK_EQ(strcmp(mrc_state_name(MRC_QPS_ERR + 1), "?"), 0);
    for (i = 0; i <= MRC_EVT_PEER_PORTS; i++) { /* every enum mrc_event_type value has its own name */
        CHECKF(*mrc_event_name(i) && strcmp(mrc_event_name(i), "?") != 0, "mrc_event_name(%u)", i);
        for (j = 0; j < i; j++) CHECK(strcmp(mrc_event_name(i), mrc_event_name(j)) != 0);
    }
    CHECK_EQ(strcmp(mrc_event_name(MRC_EVT_PEER_PORTS + 1), "?"), 0);
    CHECK_EQ(strcmp(mrc_event_name(MRC_EVT_EV_STATE), "EV_STATE"), 0);
    for (i = 0; i < MRC_DETAIL_COUNT; i++) { /* every error-detail rule has its own text */
        CHECKF(*mrc_detail_name(i) && strcmp(mrc_detail_name(i), "?") != 0, "mrc_detail_name(%u)", i);
        for (j = 0; j < i; j++) CHECKF(strcmp(mrc_detail_name(i), mrc_detail_name(j)) != 0, "detail %u vs %u", i, j);
    }
    CHECK_EQ(strcmp(mrc_detail_name(MRC_DETAIL_COUNT), "?"), 0);
    CHECK_EQ(strcmp(mrc_state_name(MRC_QPS_RTS), "RTS"), 0);
    CHECK_EQ(strcmp(mrc_opcode_name(MRC_OP_SACK), "SACK"), 0);
    return 0;
}

/* ================================================================================================================
 * more responder behaviour: SACK coalescing and timing (Q6, P7), transport ACKs, reply port (Q19), control queue
 * ============================================================================================================== */

static int t_rsp_sack_coalescing(void) {
    ut_fix *f = &ut_fx;
    uint8_t pkt[256];
    mrc_rxinfo ri;
    mrc_pkt k;
    mrc_txinfo ti;
    uint32_t i;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    /* three in-order arrivals, nothing polled in between: the newer plain SACK replaces the older */
    for (i = 0; i < 3; i++) {
        n = ut_data_pkt(f, pkt, sizeof pkt, 0x10 + i, (uint16_t)(1 + i), 0, 0);
        ri = ut_ri(1, 0x100 + i);
        CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    }
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x12, 0, 1, 0, 0x102, 1, "coalesced"));
    UT_TRY(ut_expect_nothing(f, "one SACK for three"));
    /* a SKIP_ONCE SACK is never merged, nor merged into */
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x13, 4, 0, 0);
    ri = ut_ri(1, 0x200);
    ri.ecn = 3;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x14, 5, 0, 0);
    ri = ut_ri(1, 0x201);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x15, 6, 0, 0);
    ri = ut_ri(1, 0x202);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    /* contents are computed when built: cack is already 0x15 for the first */
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x15, -2, 1, 0, 0x200, 1, "CE SACK"));
    CHECK_EQ(k.seth.m, MRC_M_SKIP_ONCE);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x15, 0, 1, 0, 0x202, 1, "plain SACK after it"));
    CHECK_EQ(k.seth.m, MRC_M_NONE);
    UT_TRY(ut_expect_nothing(f, "two SACKs"));
    /* a NACK between two plain SACKs keeps all three */
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x16, 7, 0, 0);
    ri = ut_ri(1, 0x300);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x17, 8, 0, 0);
    ri = ut_ri(1, 0x301);
    ri.flags = MRC_RX_TRIMMED;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_ERR_DROP);
    ri.flags = 0;
    ri.ev = 0x302;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x17, -1, 1, 0, 0x300, 1, "SACK before the NACK"));
    CHECK_EQ(ut_poll(f, pkt, sizeof pkt, &ti, &k), MRC_BTH_LEN + MRC_NETH_LEN);
    CHECK_EQ(k.bth.opcode, MRC_OP_NACK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x17, 0, 1, 0, 0x302, 1, "SACK after the NACK"));
    UT_TRY(ut_expect_nothing(f, "three packets"));
    return 0;
}

/* A burst received before poll_tx (a NIC or socket batch): SACKs queued for packets in different 64-PSN slices are
 * not merged away, so every packet that arrived beyond a hole is reported by some SACK's bitmap. (Coalescing them all
 * into the newest lost the older slices: the requester then retransmitted packets that had arrived.) */
static int t_rsp_sack_burst_keeps_slices(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    uint8_t pkt[256];
    mrc_rxinfo ri = ut_ri(1, 0x55);
    mrc_pkt k;
    mrc_txinfo ti;
    uint8_t seen[128], ord[127];
    unsigned i, round, sacks;
    uint32_t x = 0x9E3779B9u;
    int n;
    /* arrivals in PSN order, then shuffled within blocks of 16 (as spraying over paths of unequal delay does: later
     * SACKs name lower PSNs too). A shuffle of the whole window can need more than MRC_CTLQ_LEN SACKs; then the
     * newest state wins (documented in PROTOCOL.md). */
    for (round = 0; round < 2; round++) {
        for (i = 1; i < 127; i++) ord[i] = (uint8_t)i;
        for (i = 126; round && i > 1; i--) {
            unsigned r, blk = (i - 1u) & ~15u;
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            r = 1u + blk + x % (i - blk);
            { uint8_t tmp = ord[i]; ord[i] = ord[r]; ord[r] = tmp; }
        }
        ut_cfg(&cfg);
        CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x10, 0), MRC_OK);
        memset(seen, 0, sizeof seen);
        sacks = 0;
        for (i = 1; i < 127; i++) { /* PSN 0x10 is lost: 0x11 .. 0x8E arrive in one burst (the MPR window is 128) */
            size_t len = ut_data_pkt(f, pkt, sizeof pkt, 0x10u + ord[i], (uint16_t)(1u + ord[i]), 0, 0);
            int rc = mrc_endpoint_recv(&f->ep, pkt, len, &ri, f->now);
            CHECKF(rc == MRC_OK, "round %u PSN 0x%X: recv %d", round, 0x10u + ord[i], rc);
        }
        while ((n = ut_poll(f, pkt, sizeof pkt, &ti, &k)) > 0) {
            unsigned b;
            if (k.bth.opcode != MRC_OP_SACK) continue;
            sacks++;
            CHECK_EQ(k.seth.cack_psn, 0x0Fu);
            for (b = 0; b < 64; b++)
                if (k.seth.sack_bitmap >> b & 1u) {
                    int32_t off = mrc_psn_diff(mrc_psn_add(k.seth.cack_psn, k.seth.sack_offset + (int32_t)b), 0x10u);
                    CHECKF(off >= 1 && off < 127, "round %u: SACK %u reports PSN offset %d, which never arrived",
                           round, sacks, off);
                    seen[off] = 1;
                }
        }
        for (i = 1; i < 127; i++)
            CHECKF(seen[i], "round %u: PSN 0x%X arrived but none of the %u SACKs reported it", round, 0x10u + i, sacks);
        CHECKF(sacks >= 2 && sacks <= MRC_CTLQ_LEN, "round %u: %u SACKs for 126 packets over 2 slices", round, sacks);
        note("126 packets behind a hole in one burst (%s): %u SACKs report them all", round ? "shuffled" : "in order",
             sacks);
    }
    return 0;
}

static int t_rsp_sack_every_and_delay(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    uint8_t pkt[256];
    mrc_rxinfo ri = ut_ri(1, 0x55);
    mrc_pkt k;
    mrc_txinfo ti;
    mrc_time t1;
    size_t n;
    ut_cfg(&cfg);
    cfg.sack_every = 3;
    cfg.sack_delay_ns = 4000;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x10, 1, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "1 of 3"));
    CHECK(mrc_endpoint_next_deadline(&f->ep) == f->now + 4000);
    t1 = f->now;
    f->now += 1000;
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x11, 2, 0, 0);
    ri.ev = 0x56;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "2 of 3"));
    CHECK(mrc_endpoint_next_deadline(&f->ep) == t1 + 4000); /* the timer started with the first */
    f->now = t1 + 3999;
    CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "before the delay"));
    f->now = t1 + 4000;
    CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x11, 0, 1, 0, 0x56, 1, "timer SACK names the latest"));
    CHECK_EQ(k.seth.m, MRC_M_NONE);
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    /* the third of three goes at once */
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x12, 3, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x13, 4, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "2 of 3 again"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x14, 5, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x14, 0, 1, 0, 0x56, 1, "sack_every"));
    UT_TRY(ut_expect_nothing(f, "sack_every"));
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    /* at once: rtx, a, out of order, a filled hole, CE */
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x15, 6, 0, 1);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x15, 0, 1, 0, 0x56, 1, "rtx"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x16, 7, 1, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x16, 0, 1, 0, 0x56, 1, "a"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x18, 9, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x16, 2, 1, 0x2, 0x56, 1, "out of order"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x17, 8, 0, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x18, -1, 1, 0, 0x56, 1, "hole filled"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x19, 10, 0, 0);
    ri.ecn = 3;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x19, 0, 1, 0, 0x56, 1, "CE"));
    CHECK_EQ(k.seth.m, MRC_M_SKIP_ONCE);
    UT_TRY(ut_expect_nothing(f, "end"));
    return 0;
}

/* tack_every = 2: a positive transport ACK (0x1F, msn = messages completed) after every second message */
static int t_rsp_tack_every(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    uint8_t pkt[512], p[300];
    ut_data d;
    mrc_rxinfo ri = ut_ri(2, 0x66);
    mrc_pkt k;
    mrc_txinfo ti;
    mrc_conn_stats cs;
    size_t n;
    ut_cfg(&cfg);
    cfg.tack_every = 2;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    ut_fill(p, sizeof p, 5);
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x10, 1, 1, 0);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x10, 0, 1, 0, 0x66, 2, "message 1"));
    UT_TRY(ut_expect_nothing(f, "no ACK after one message"));
    ut_data_init(&d, f, 0x11, 2, p, 256);
    d.op = MRC_OP_WRITE_FIRST;
    d.dma_len = 300;
    d.a = 0;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x11, 0, 1, 0, 0x66, 2, "message 2 first packet"));
    UT_TRY(ut_expect_nothing(f, "message 2 incomplete"));
    ut_data_init(&d, f, 0x12, 2, p + 256, 44);
    d.op = MRC_OP_WRITE_LAST;
    d.dma_len = 300;
    d.va = UT_IOVA + 256;
    n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x12, 0, 1, 0, 0x66, 2, "message 2 last packet"));
    CHECK_EQ(ut_poll(f, pkt, sizeof pkt, &ti, &k), MRC_BTH_LEN + MRC_AETH_LEN);
    CHECK_EQ(k.bth.opcode, MRC_OP_ACK);
    CHECK_EQ(k.aeth.syndrome, MRC_AETH_ACK);
    CHECK_EQ(k.aeth.msn, 2);
    CHECK_EQ(k.bth.psn, 0x12);
    CHECK_EQ(ti.port, 2);
    CHECK_EQ(ti.ev, 0x66);
    UT_TRY(ut_expect_nothing(f, "one ACK"));
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.tx_tack, 1);
    return 0;
}

/* replies leave on the arrival port, or on the lowest port that is up, with the same EV (Q19) */
static int t_rsp_reply_port_fallback(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    uint8_t pkt[256];
    mrc_rxinfo ri;
    mrc_pkt k;
    mrc_txinfo ti;
    size_t n;
    ut_cfg(&cfg);
    cfg.num_ports = 4;
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 1, false, f->now), MRC_OK);
    UT_TRY(ut_expect_psu(f, 3, 0xE, "port 1 down"));
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 4, false, f->now), MRC_OK);
    UT_TRY(ut_expect_psu(f, 2, 0x6, "port 4 down"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x10, 1, 1, 0);
    ri = ut_ri(4, 0x44);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x10, 0, 1, 0, 0x44, 2, "port 4 down: port 2"));
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x11, 2, 1, 0);
    ri = ut_ri(3, 0x33);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x11, 0, 1, 0, 0x33, 3, "port 3 up"));
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 2, false, f->now), MRC_OK);
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 3, false, f->now), MRC_OK); /* port 2's PSU, queued for port 3, is lost */
    n = ut_data_pkt(f, pkt, sizeof pkt, 0x12, 3, 1, 0);
    ri = ut_ri(2, 0x22);
    CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "every port down"));
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 4, true, f->now), MRC_OK);
    UT_TRY(ut_expect_psu(f, 1, 0x8, "port 4 back"));
    UT_TRY(ut_expect_sack(f, &k, &ti, 0x12, 0, 1, 0, 0x22, 4, "port 4 back"));
    return 0;
}

/* control packets beyond MRC_CTLQ_LEN are dropped and counted */
static int t_rsp_ctlq_overflow(void) {
    ut_fix *f = &ut_fx;
    uint8_t pkt[256];
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_endpoint_stats st;
    mrc_pkt k;
    mrc_txinfo ti;
    unsigned i;
    size_t n;
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 0x10, 0), MRC_OK);
    ri.flags = MRC_RX_TRIMMED;
    for (i = 0; i < MRC_CTLQ_LEN + 3; i++) {
        n = ut_data_pkt(f, pkt, sizeof pkt, 0x10 + i, (uint16_t)(1 + i), 1, 0);
        CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_ERR_DROP);
    }
    mrc_endpoint_stats_get(&f->ep, &st);
    CHECK_EQ(st.ctlq_overflow, 3);
    CHECK_EQ(st.drop[MRC_DROP_TRIMMED], MRC_CTLQ_LEN + 3);
    for (i = 0; i < MRC_CTLQ_LEN; i++) {
        CHECK_EQ(ut_poll(f, pkt, sizeof pkt, &ti, &k), MRC_BTH_LEN + MRC_NETH_LEN);
        CHECK_EQ(k.neth.nack_psn, 0x10 + i); /* oldest first */
    }
    UT_TRY(ut_expect_nothing(f, "queue drained"));
    return 0;
}

/* ================================================================================================================
 * more requester behaviour: time never runs backwards (P15), tail-loss probe timing (P4)
 * ============================================================================================================== */
static int t_ep_time_monotonic(void) {
    ut_fix *f = &ut_fx;
    uint8_t buf[512];
    mrc_txinfo ti;
    mrc_pkt k;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, 0x10), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK(mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, MRC_TX_COPY, &ti, UT_T0 - 500000) > 0);
    CHECK_EQ(mrc_pkt_decode(buf, ti.hdr_len + ti.payload_len + ti.pad, &f->cfg.wire, &k), MRC_OK);
    CHECK_EQ(k.tseth.tx_timestamp, (uint16_t)((UT_T0 >> 7) & 0xFFFFu)); /* not the earlier time */
    CHECK(mrc_endpoint_next_deadline(&f->ep) >= UT_T0);
    return 0;
}

static int t_req_tail_probe_timing(void) {
    ut_fix *f = &ut_fx;
    mrc_time d1, d2;
    int n;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, 0x40), MRC_OK);
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 4), 1);
    /* defaults, srtt still rtt_init 20 us: the first probe 40 us after the last send, then 80 us */
    d1 = mrc_endpoint_next_deadline(&f->ep);
    CHECKF(d1 == f->now + 40000, "first deadline %llu ns after the send, want 40000",
           (unsigned long long)(d1 - f->now));
    f->now = d1 - 1;
    CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
    UT_TRY(ut_expect_nothing(f, "before the TLP"));
    f->now = d1;
    CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
    n = ut_drain(f, ut_txs, 4);
    CHECK_EQ(n, 2); /* P33: the probe and its copy on another EV */
    CHECK_EQ(ut_txs[0].k.bth.opcode, MRC_OP_PROBE_REQ);
    CHECK_EQ(ut_txs[1].k.bth.opcode, MRC_OP_PROBE_REQ);
    CHECK(ut_txs[1].ti.ev != ut_txs[0].ti.ev || ut_txs[1].ti.port != ut_txs[0].ti.port);
    CHECK_EQ(ut_txs[1].k.peth.probe_id, 2);
    CHECK_EQ(ut_txs[0].k.bth.psn, 0x41); /* the next unsent PSN, not consumed */
    CHECK_EQ(ut_txs[0].k.bth.dest_qp, UT_PEER_QPN);
    CHECK_EQ(ut_txs[0].k.peth.probe_id, 1);
    CHECK_EQ(ut_txs[0].k.peth.tx_timestamp, (uint16_t)((f->now >> 7) & 0xFFFFu));
    CHECK_EQ(ut_txs[0].k.peth.ftype, 1);
    CHECK_EQ(ut_txs[0].k.peth.spdcid, mrc_conn_qpn(&f->c) & 0xFFFFu);
    CHECK_EQ(ut_txs[0].k.peth.dpdcid, UT_PEER_QPN & 0xFFFFu);
    CHECK_EQ(ut_txs[0].ti.dscp_class, MRC_DSCP_CONTROL);
    d2 = mrc_endpoint_next_deadline(&f->ep);
    CHECKF(d2 == d1 + 80000, "second deadline %llu ns after the first, want 80000", (unsigned long long)(d2 - d1));
    /* everything acknowledged: no timer left */
    CHECK_EQ(ut_feed_sack(f, 0x40, 0, 0, 0, 0), MRC_OK);
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    return 0;
}

/* the responder's checks run in the documented order (Q26): the first failing check names the drop */
static int t_rsp_check_order(void) {
    static const char *const names[] = {"ICRC before QPN", "QPN before pkey", "pkey before state",
                                        "duplicate before trim", "window before trim", "length before trim",
                                        "trim before MSN window", "MSN window before WIMM", "WIMM before access",
                                        "MSN window before access", "state before duplicate"};
    static const unsigned want[] = {MRC_DROP_ICRC, MRC_DROP_QPN, MRC_DROP_PKEY, MRC_DROP_DUP, MRC_DROP_PSN_OOR,
                                    MRC_DROP_MALFORMED, MRC_DROP_TRIMMED, MRC_DROP_MSN_OOR, MRC_DROP_WIMM,
                                    MRC_DROP_MSN_OOR, MRC_DROP_STATE};
    ut_fix *f = &ut_fx;
    unsigned i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        uint8_t p[64], pkt[256];
        ut_data d;
        mrc_rxinfo ri = ut_ri(1, 1);
        const uint32_t rq = 0x100;
        unsigned state = (i == 2) ? MRC_QPS_INIT : (i == 10) ? MRC_QPS_ERR : MRC_QPS_RTS;
        mrc_conn *c = (i <= 1) ? NULL : &f->c;
        size_t n;
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RESET, rq, 0), MRC_OK);
        f->attr.max_wimm_dest = 1;
        CHECK_EQ(ut_goto(&f->c, &f->attr, state == MRC_QPS_ERR ? (unsigned)MRC_QPS_RTS : state, f->now), MRC_OK);
        memset(p, 0x5A, sizeof p);
        ut_data_init(&d, f, rq, 1, p, 32);
        switch (i) {
        case 0: ri.flags = MRC_RX_ICRC_BAD; d.qp = 0x777777; break;
        case 1: d.qp = 0x777777; d.pkey = 0x1234; break;
        case 2: d.pkey = 0x1234; break;
        case 3: d.psn = rq - 1; ri.flags = MRC_RX_TRIMMED; break;
        case 4: d.psn = rq + 500; ri.flags = MRC_RX_TRIMMED; break;
        case 5: d.op = MRC_OP_WRITE_FIRST; ri.flags = MRC_RX_TRIMMED; break; /* FIRST with dma_len <= MTU */
        case 6: d.msn = 0; ri.flags = MRC_RX_TRIMMED; break;
        case 7: d.msn = 0; d.op = MRC_OP_WRITE_ONLY_IMM; d.rqmsn = 5; break;
        case 8: d.op = MRC_OP_WRITE_ONLY_IMM; d.rqmsn = 5; d.rkey = 0; break;
        case 9: d.msn = 0; d.rkey = 0; break;
        default: d.psn = rq - 1; break; /* a duplicate, but the conn is in ERR */
        }
        if (state == MRC_QPS_ERR) CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_ERR, f->now), MRC_OK);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        UT_TRY(ut_expect_drop(f, c, pkt, n, &ri, want[i], names[i]));
        CHECK(ut_mem_ok(f, names[i]));
        if (want[i] != MRC_DROP_WIMM && state == MRC_QPS_RTS)
            CHECKF(mrc_conn_state(&f->c) == MRC_QPS_RTS, "%s: the conn left RTS", names[i]);
    }
    return 0;
}

/* the wire options reach the bytes this core sends: tver, m/se order, bitmap order, timestamp unit */
static int t_wire_opts_on_tx(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    static uint8_t buf[512];
    uint8_t p[8] = {1, 2, 3, 4, 5, 6, 7, 8}, pkt[128];
    mrc_txinfo ti;
    mrc_rxinfo ri = ut_ri(1, 2);
    ut_data d;
    unsigned part;
    size_t n;
    int len;
    ut_src_init();
    for (part = 0; part < 2; part++) {
        ut_cfg(&cfg);
        cfg.wire.tver = 5;
        cfg.wire.bth_m_bit = part ? 6 : 7;
        cfg.wire.sack_msb_first = (uint8_t)part;
        cfg.wire.ts_shift = part ? 10 : 7;
        CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RTS, 0x40, 0x10), MRC_OK);
        f->now = 0x123456789ull;
        {
            mrc_write w = ut_wr(1, MRC_WR_WRITE_IMM, ut_src, 10, 0x1000, MRC_WR_SOLICITED);
            CHECK_EQ(mrc_conn_post_write(&f->c, &w, f->now), MRC_OK);
        }
        len = mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, MRC_TX_COPY, &ti, f->now);
        CHECK_EQ(len, 40 + 10 + 2);
        CHECK_EQ(buf[0], MRC_OP_WRITE_ONLY_IMM);
        /* byte 1: se (bit 6, or bit 7 with bth_m_bit 6) | pad 2 << 4 | tver 5 */
        CHECKF(buf[1] == (part ? 0xA5 : 0x65), "part %u: BTH byte 1 = 0x%02X", part, buf[1]);
        /* TSETH at byte 16: (now >> ts_shift) mod 2^16 */
        CHECK_EQ(((unsigned)buf[16] << 8 | buf[17]), (unsigned)((f->now >> cfg.wire.ts_shift) & 0xFFFFu));
        /* an arrival with another tver is accepted (tver is ignored on receive); out of order: hole at 0x40 */
        ut_data_init(&d, f, 0x41, 2, p, sizeof p);
        n = ut_build_data(pkt, sizeof pkt, &f->cfg.wire, &d);
        pkt[1] = (uint8_t)((pkt[1] & 0xF0u) | 9u);
        CHECK_EQ(mrc_endpoint_recv(&f->ep, pkt, n, &ri, f->now), MRC_OK);
        len = mrc_endpoint_poll_tx(&f->ep, buf, sizeof buf, 0, &ti, f->now);
        CHECK_EQ(len, 48);
        CHECK_EQ(buf[0], MRC_OP_SACK);
        CHECK_EQ(buf[1], 0x05); /* tver 5, nothing else */
        /* bitmap: PSN 0x41 = base (0x40) + 1: LSB-first 0x...02, MSB-first 0x40... */
        CHECKF(buf[12 + 20] == (part ? 0x40 : 0x00) && buf[12 + 27] == (part ? 0x00 : 0x02),
               "part %u: bitmap bytes %02X .. %02X", part, buf[32], buf[39]);
    }
    return 0;
}

/* P5's worked example: timeout 8 (T = 262.144 us), retry_linear 7, retry_exp 2: expiries 1-8 after T each, the 9th
 * after 2T, the 10th after 4T ends in MRC_ERR_RETRY_EXC (14T in all); each expiry resends the oldest PSN */
static int t_req_rto_schedule(void) {
    ut_fix *f = &ut_fx;
    mrc_config cfg;
    const mrc_time T = 262144;
    const uint32_t sq = 0x300;
    mrc_time start, prev, d;
    mrc_event ev;
    mrc_conn_stats cs;
    unsigned k;
    ut_src_init();
    ut_cfg(&cfg);
    cfg.tlp_min_ns = 0xFFFFFFFFu; /* keep the tail-loss probe out of the way */
    CHECK_EQ(ut_setup(f, &cfg, MRC_QPS_RESET, 1, sq), MRC_OK);
    f->attr.timeout = 8;
    f->attr.retry_linear = 7;
    f->attr.retry_exp = 2;
    CHECK_EQ(ut_goto(&f->c, &f->attr, MRC_QPS_RTS, f->now), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 4), 2);
    start = prev = f->now;
    for (k = 1; k <= 10; k++) {
        mrc_time want = k <= 8 ? T : k == 9 ? 2 * T : 4 * T;
        d = mrc_endpoint_next_deadline(&f->ep);
        CHECKF(d - prev == want, "expiry %u: %llu ns after the previous, want %llu", k, (unsigned long long)(d - prev),
               (unsigned long long)want);
        f->now = d;
        CHECK_EQ(mrc_endpoint_on_timeout(&f->ep, f->now), MRC_OK);
        if (k < 10) {
            CHECKF(ut_drain(f, ut_txs, 4) == 1, "expiry %u: one retransmission", k);
            CHECK_EQ(ut_txs[0].k.bth.psn, sq);
            CHECK_EQ(ut_txs[0].k.bth.rtx, 1);
            CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_RTS);
            UT_TRY(ut_expect_no_event(&f->ep, "retrying"));
        }
        prev = d;
    }
    CHECK_EQ(prev - start, 14 * T);
    CHECK_EQ(mrc_conn_state(&f->c), MRC_QPS_ERR);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_CONN_ERROR, MRC_ERR_RETRY_EXC, &ev, "retries exhausted"));
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_RETRY_EXC, &ev, "oldest request"));
    CHECK_EQ(ev.wr_id, 1);
    UT_TRY(ut_expect_event(&f->ep, MRC_EVT_SEND_DONE, MRC_ERR_FLUSH, &ev, "next request"));
    CHECK_EQ(ev.wr_id, 2);
    UT_TRY(ut_expect_no_event(&f->ep, "after RETRY_EXC"));
    CHECK(mrc_endpoint_next_deadline(&f->ep) == MRC_TIME_NEVER);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.rto_fired, 10);
    CHECK_EQ(cs.rtx_rto, 9);
    return 0;
}

/* Q5 / P3: a hole is lost once a transmission sent at least the reordering slack later is acked. Before the first
 * RTT sample slack = max(reorder_slack_min_ns 2000, min RTT / 4); here min RTT = 20 us, so slack = 5 us. */
static int t_req_sack_hole_loss(void) {
    static const mrc_time gaps[2] = {6000, 4000};
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x500;
    unsigned i;
    ut_src_init();
    for (i = 0; i < 2; i++) {
        ut_tx a, b;
        mrc_conn_stats cs;
        int n;
        CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
        CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
        CHECK_EQ(ut_drain(f, &a, 1), 1);
        f->now += gaps[i];
        CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
        CHECK_EQ(ut_drain(f, &b, 1), 1);
        f->now += 20000;
        /* B (sq + 1) arrived, A (sq) did not */
        CHECK_EQ(ut_feed_sack(f, sq - 1, 2, 0x2, b.ti.ev, b.k.tseth.tx_timestamp), MRC_OK);
        n = ut_drain(f, ut_txs, 4);
        mrc_conn_stats_get(&f->c, &cs);
        if (gaps[i] >= 5000) {
            CHECKF(n == 1, "gap %llu ns: %d packets, want the retransmission of the hole",
                   (unsigned long long)gaps[i], n);
            CHECK_EQ(ut_txs[0].k.bth.psn, sq);
            CHECK_EQ(ut_txs[0].k.bth.rtx, 1);
            CHECK_EQ(cs.rtx_sack_hole, 1);
            CHECK_EQ(cs.ev_losses, 1);
        } else {
            CHECKF(n == 0, "gap %llu ns (< slack): %d packets sent", (unsigned long long)gaps[i], n);
            CHECK_EQ(cs.rtx_sack_hole, 0);
        }
        UT_TRY(ut_expect_no_event(&f->ep, "W2 acked before W1")); /* completions stay in order */
    }
    return 0;
}

/* P9: a SACK's m counts against an EV only when its entropy is the EV the requester used for that PSN */
static int t_req_sack_ev_attribution(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x600;
    uint8_t p[64];
    size_t n;
    mrc_rxinfo ri = ut_ri(1, 1);
    mrc_conn_stats cs;
    ut_tx t[2];
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 512, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, t, 2), 2);
    /* names sq with SKIP_ONCE, entropy of the other EV: not attributed */
    n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), sq, sq, 0, 1, 0, t[1].ti.ev ^ 0x10000u, 0, 0);
    p[MRC_BTH_LEN + 1] |= 0x20; /* m = SKIP_ONCE */
    CHECK_EQ(mrc_endpoint_recv(&f->ep, p, n, &ri, f->now), MRC_OK);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.ev_skip_req, 1); /* every skip request is counted... */
    CHECK_EQ(cs.ev_skipped, 0);  /* ...but acts only on the EV the packet really went on */
    /* names sq + 1 with its own EV: that EV misses its next turn */
    n = ut_build_sack(p, &f->cfg.wire, mrc_conn_qpn(&f->c), sq + 1, sq + 1, 0, 1, 0, t[1].ti.ev, 0, 0);
    p[MRC_BTH_LEN + 1] |= 0x20;
    CHECK_EQ(mrc_endpoint_recv(&f->ep, p, n, &ri, f->now), MRC_OK);
    mrc_conn_stats_get(&f->c, &cs);
    CHECK_EQ(cs.ev_skip_req, 2);
    CHECK_EQ(cs.ev_skipped, 1);
    CHECK_EQ(cs.rx_sack, 2);
    return 0;
}

/* data avoids EVs whose port is down; with every port down nothing goes, and it resumes when one comes back */
static int t_req_ports_down(void) {
    ut_fix *f = &ut_fx;
    const uint32_t sq = 0x700;
    int n, i;
    ut_src_init();
    CHECK_EQ(ut_setup(f, NULL, MRC_QPS_RTS, 1, sq), MRC_OK);
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 1, false, f->now), MRC_OK);
    UT_TRY(ut_expect_psu(f, 1, 0x2, "port 1 down"));
    CHECK_EQ(ut_post(f, 1, MRC_WR_WRITE, ut_src, 256 * 4, 0), MRC_OK);
    n = ut_drain(f, ut_txs, 8);
    CHECK_EQ(n, 4);
    for (i = 0; i < n; i++) CHECKF(ut_txs[i].ti.port == 2, "packet %d on port %u, which is down", i, ut_txs[i].ti.port);
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 2, false, f->now), MRC_OK);
    CHECK_EQ(ut_post(f, 2, MRC_WR_WRITE, ut_src, 10, 0), MRC_OK);
    CHECK_EQ(ut_drain(f, ut_txs, 8), 0);
    CHECK_EQ(mrc_endpoint_port_set(&f->ep, 1, true, f->now), MRC_OK);
    UT_TRY(ut_expect_psu(f, 1, 0x1, "port 1 up"));
    n = ut_drain(f, ut_txs, 8);
    CHECK_EQ(n, 1);
    CHECK_EQ(ut_txs[0].ti.port, 1);
    CHECK_EQ(ut_txs[0].k.bth.psn, sq + 4);
    return 0;
}

/* ================================================================================================================
 * the unit tests, in file order, for the runner's table (entries end with a comma)
 * ============================================================================================================== */


/* ================================================================================================================
 * scenarios: two endpoints over tests/fixtures/mrc_wire.h in virtual time
 *
 * The pair harness (sc_*): endpoint A (side 0) and B (side 1), nq connections each (conn q of A <-> conn q of B),
 * brought to RTS with p->attr[side]. Each side owns a source buffer (seeded pattern) and a registered destination
 * region with guard bytes before and after it (outside the MR). A message of side s's plan on conn q writes
 * src[s][off, off + len) to side 1 - s at the same offset, inside conn q's slice of the region. The destination
 * starts as src ^ 0x5A, so every byte tells whether it was written, and written correctly.
 *
 * The event pump pulls events from both endpoints after every wire step (and, with pump_in_taps, inside the wire
 * taps, i.e. at the exact moment between two packets) and checks as it goes:
 *   SEND_DONE  in work-request order; status OK means byte_len right and the bytes already in the peer's memory
 *   RECV_IMM   receive wr_ids in posting order; imm and byte_len of the peer's next Write-IMM; the bytes of that
 *              message and of every earlier message of the same connection already in memory
 *   CONN_ERROR recorded (fatal in strict mode, as is any non-OK status)
 * The refill keeps send queues fed from the plan and receive queues full. sc_run_until() runs the wire until the
 * stop hook (default: everything planned completed) or a virtual-time limit. On a failed check sc_dump() prints
 * the seed, the virtual time, per-connection and endpoint counters and the wire statistics.
 * ============================================================================================================== */
#define SC_MAXQ 16
#define SC_GUARD 256u
#define SC_GUARD_BYTE 0xE7u
#define SC_INIT_XOR 0x5Au
#define SC_PENDING 1 /* sc_msg.status until its SEND_DONE */
#define SC_US ((mrc_time)1000u)
#define SC_MS ((mrc_time)1000000u)
#define SC_SEC ((mrc_time)1000000000u)

typedef struct sc_pair sc_pair;

typedef struct sc_msg {
    uint32_t off, len, imm;
    uint8_t op;               /* MRC_WR_WRITE or MRC_WR_WRITE_IMM */
    uint8_t flags;            /* MRC_WR_UNSIGNALED, MRC_WR_SOLICITED */
    int16_t status;           /* SC_PENDING, then the SEND_DONE status */
    uint32_t va_adj;          /* added to the remote address when posted (aims a write elsewhere on purpose) */
    mrc_time t_post, t_done;
} sc_msg;

typedef struct sc_q { /* one connection of one side */
    sc_pair *p;
    int side;
    unsigned idx;
    mrc_conn *c;
    /* requester: the plan and its progress */
    sc_msg *msg;
    uint32_t nmsg, cap, posted, done; /* done = SEND_DONE events pulled */
    uint32_t *imm_idx;                /* plan indexes of the Write-IMMs, in order */
    uint32_t nimm, imm_cap;
    uint64_t npkts, nbytes;           /* data packets the plan needs (first transmissions), payload bytes */
    uint64_t base_rx_data, base_rx_bytes; /* this side's responder counters when the peer's plan was last cleared */
    /* responder: receives, and RECV_IMMs for the peer's plan */
    uint32_t recv_posted, recv_pulled, imm_ok, mem_ok;
    mrc_time t_last_imm;
    /* errors seen */
    uint32_t n_conn_err, n_send_err, n_recv_flush;
    int conn_err_status;
    mrc_time t_conn_err;
    /* EV state events seen (MRC_EVT_EV_STATE), and when the first ASSUMED_BAD came */
    uint32_t n_ev_bad, n_ev_good;
    mrc_time t_first_ev_bad;
} sc_q;

typedef int (*sc_filter_fn)(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                            mrc_time now);
typedef void (*sc_tap_fn)(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now);
typedef void (*sc_rx_fn)(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now);

struct sc_pair {
    uint64_t seed;
    mrc_config cfg[2];
    mrc_conn_attr attr[2];    /* per side: path_mtu, mpr_dest, max_wimm_dest, sq_psn, mpr, max_wimm, retry, timeout */
    mrc_wire_config wc;
    unsigned nq;
    size_t region;            /* destination bytes per side (split evenly among the nq connections) */
    /* options */
    int strict;               /* any CONN_ERROR or non-OK completion fails the run (default on) */
    int no_recv[2];           /* this side never posts receives */
    int pump_in_taps;         /* also pull events inside the wire taps */
    int hold;                 /* refill posts no writes */
    uint32_t max_post;        /* posted-not-completed writes per connection (0: the send queue size) */
    unsigned unsig_pct;       /* sc_plan_random: percent of writes posted unsignaled */
    int lax;                  /* content unchecked (undetected corruption): only order and counts */
    int rtr_only[2];          /* sc_connect leaves this side's connections in RTR (responder only) */
    int (*stop)(sc_pair *p);  /* run stops when it returns nonzero (default: sc_all_done) */
    sc_filter_fn filter;
    sc_tap_fn tap;
    sc_rx_fn rx;
    void *ud;
    int hash_on;
    uint64_t hash;
    mrc_time t0;              /* virtual time of the start (endpoints and wire) */
    uint64_t inj_rx[2], inj_drop[2]; /* packets an attacker fed straight to side s, and how many it dropped */
    /* built by sc_start */
    mrc_endpoint *ep[2];
    sc_q q[2][SC_MAXQ];
    mrc_wire w;
    int w_ok;
    uint8_t *src[2], *mem[2], *cov[2];
    uint32_t rkey[2];
    uint64_t ntx[2];          /* packets each endpoint emitted (tap) */
    uint32_t n_peer_ports[2]; /* MRC_EVT_PEER_PORTS pulled per side, and the last mask */
    uint32_t peer_mask[2];
    mrc_time t_peer_ports[2];
    uint32_t n_ep_rsp[2], n_ep_timeout[2], n_ev_lost[2];
    /* first failure found by the pump or a hook */
    int fail;
    char failmsg[320];
};

static void sc_failf(sc_pair *p, const char *fmt, ...) {
    va_list ap;
    if (p->fail) return;
    p->fail = 1;
    va_start(ap, fmt);
    vsnprintf(p->failmsg, sizeof p->failmsg, fmt, ap);
    va_end(ap);
}

static mrc_time sc_now(const sc_pair *p) { return mrc_wire_now(&p->w); }
static uint8_t *sc_dst(const sc_pair *p, int side) { return p->mem[side] + SC_GUARD; }
static size_t sc_slice(const sc_pair *p) { return p->region / p->nq; }
static uint64_t sc_iova(int side) { return side ? UINT64_C(0x50000000000) : UINT64_C(0x40000000000); }

static void sc_dump(const sc_pair *p) {
    unsigned s, q, r;
    printf("    seed %llu, virtual time %llu ns\n", (unsigned long long)p->seed, (unsigned long long)sc_now(p));
    if (p->fail) printf("    pump: %s\n", p->failmsg);
    for (s = 0; s < 2; s++) {
        mrc_endpoint_stats es;
        if (!p->ep[s]) continue;
        mrc_endpoint_stats_get(p->ep[s], &es);
        printf("    %c: tx %llu rx %llu drops %llu ctlq_overflow %llu", s ? 'B' : 'A', (unsigned long long)es.tx_pkts,
               (unsigned long long)es.rx_pkts, (unsigned long long)es.rx_drops,
               (unsigned long long)es.ctlq_overflow);
        for (r = 0; r < MRC_DROP_REASONS; r++)
            if (es.drop[r]) printf(" %s=%llu", mrc_drop_name(r), (unsigned long long)es.drop[r]);
        printf("\n");
        for (q = 0; q < p->nq; q++) {
            const sc_q *x = &p->q[s][q];
            mrc_conn_stats cs;
            if (!x->c) continue;
            mrc_conn_stats_get(x->c, &cs);
            printf("      q%u %s plan %u/%u/%u (done/posted/n) recv %u/%u imm_ok %u err %u(%d) | tx_data %llu "
                   "tx_rtx %llu probes %llu rx_sack %llu rx_nack %llu rtx nack/hole/rto/probe %llu/%llu/%llu/%llu "
                   "rto %llu tlp %llu msgs %llu | rx_data %llu dup %llu trim %llu oor %llu tx_sack %llu "
                   "tx_nack %llu tx_nak %llu imm %llu drops %llu\n",
                   q, mrc_state_name((unsigned)mrc_conn_state(x->c)), x->done, x->posted, x->nmsg, x->recv_pulled,
                   x->recv_posted, x->imm_ok, x->n_conn_err, x->conn_err_status, (unsigned long long)cs.tx_data,
                   (unsigned long long)cs.tx_rtx, (unsigned long long)cs.tx_probes, (unsigned long long)cs.rx_sack,
                   (unsigned long long)cs.rx_nack, (unsigned long long)cs.rtx_nack,
                   (unsigned long long)cs.rtx_sack_hole, (unsigned long long)cs.rtx_rto,
                   (unsigned long long)cs.rtx_probe_loss, (unsigned long long)cs.rto_fired,
                   (unsigned long long)cs.tlp_fired, (unsigned long long)cs.msgs_done,
                   (unsigned long long)cs.rx_data, (unsigned long long)cs.rx_dup, (unsigned long long)cs.rx_trimmed,
                   (unsigned long long)cs.rx_oor, (unsigned long long)cs.tx_sack, (unsigned long long)cs.tx_nack,
                   (unsigned long long)cs.tx_nak, (unsigned long long)cs.imm_delivered,
                   (unsigned long long)cs.rx_drops);
        }
    }
    if (p->w_ok) {
        for (s = 0; s < 2; s++) {
            mrc_wire_stats ws;
            mrc_wire_stats_total(&p->w, (int)s, &ws);
            printf("    wire %s: tx %llu delivered %llu loss %llu down %llu filter %llu queue %llu pool %llu dup %llu "
                   "corrupt %llu trim %llu ce %llu rejected %llu\n",
                   s ? "B->A" : "A->B", (unsigned long long)ws.tx_pkts, (unsigned long long)ws.delivered,
                   (unsigned long long)ws.drop_loss, (unsigned long long)ws.drop_down,
                   (unsigned long long)ws.drop_filter, (unsigned long long)ws.drop_queue,
                   (unsigned long long)ws.drop_pool, (unsigned long long)ws.dup, (unsigned long long)ws.corrupt,
                   (unsigned long long)ws.trim, (unsigned long long)ws.ce, (unsigned long long)ws.rx_rejected);
        }
        printf("    wire in flight %u\n", mrc_wire_inflight(&p->w));
    }
}

/* CHECK / CHECKF that also dump the pair */
#define SC_CHECK(p, cond)                       \
    do {                                        \
        if (!(cond)) {                          \
            fail_at(__FILE__, __LINE__, #cond); \
            sc_dump(p);                         \
            return 1;                           \
        }                                       \
    } while (0)
#define SC_CHECKF(p, cond, ...)                 \
    do {                                        \
        if (!(cond)) {                          \
            fail_at(__FILE__, __LINE__, #cond); \
            printf("    ");                     \
            printf(__VA_ARGS__);                \
            printf("\n");                       \
            sc_dump(p);                         \
            return 1;                           \
        }                                       \
    } while (0)

/* ---- set-up ------------------------------------------------------------------------------------------------- */
static void sc_defaults(sc_pair *p, uint64_t seed) {
    int s;
    memset(p, 0, sizeof *p);
    p->seed = seed;
    for (s = 0; s < 2; s++) {
        mrc_config_default(&p->cfg[s]);
        p->cfg[s].seed = seed * UINT64_C(0x9E3779B97F4A7C15) + (s ? UINT64_C(2) : UINT64_C(1));
        p->cfg[s].qpn_base = 0x100u + (uint32_t)s * 0x40u;
        memset(&p->attr[s], 0, sizeof p->attr[s]);
        p->attr[s].path_mtu = 4096;
        p->attr[s].mpr_dest = MRC_MAX_MPR_UNITS;
        p->attr[s].max_wimm_dest = 64;
        p->attr[s].sq_psn = (uint32_t)((seed * 7919u + (uint64_t)s * 104729u) & 0xFFFFFu);
        p->attr[s].mpr = 8;
        p->attr[s].max_wimm = 32;
        p->attr[s].retry_linear = 7;
        p->attr[s].retry_exp = 7;
        p->attr[s].timeout = 10; /* 1.05 ms */
    }
    mrc_wire_config_default(&p->wc);
    p->wc.seed = seed ^ 0xD1B54A32D192ED03ull;
    p->wc.pool_pkts = 16384;
    p->nq = 1;
    p->region = 1u << 20;
    p->strict = 1;
}

static void sc_set_links(sc_pair *p, int from, const mrc_wire_link *l) {
    (void)mrc_wire_config_set_link(&p->wc, from, 0, l);
}

/* one number of ports everywhere (both endpoints and the wire) */
static void sc_set_ports(sc_pair *p, unsigned n) {
    p->cfg[0].num_ports = p->cfg[1].num_ports = (uint8_t)n;
    p->wc.num_ports = (uint8_t)n;
}

/* Bring connection q of both sides from RESET (or unattached) to RTS. 0 on success. */
static int sc_connect(sc_pair *p, unsigned q) {
    mrc_conn_attr a;
    mrc_time now = p->w_ok ? sc_now(p) : 0;
    int s, rc;
    for (s = 0; s < 2; s++) {
        sc_q *x = &p->q[s][q];
        x->p = p;
        x->side = s;
        x->idx = q;
        if (!x->c) {
            x->c = (mrc_conn *)calloc(1, sizeof *x->c);
            if (!x->c) return -1;
            if (mrc_conn_init(p->ep[s], x->c, now) != MRC_OK) return -2;
            mrc_conn_set_user(x->c, x);
        }
        memset(&a, 0, sizeof a);
        a.state = MRC_QPS_INIT;
        a.ev_profile_id = p->attr[s].ev_profile_id;
        a.cc_profile_id = p->attr[s].cc_profile_id;
        if ((rc = mrc_conn_modify(x->c, &a, MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, now)) != MRC_OK)
            return rc;
    }
    for (s = 0; s < 2; s++) {
        sc_q *x = &p->q[s][q];
        a = p->attr[s];
        a.state = MRC_QPS_RTR;
        a.dest_qpn = mrc_conn_qpn(p->q[1 - s][q].c);
        a.rq_psn = p->attr[1 - s].sq_psn;
        if ((rc = mrc_conn_modify(x->c, &a,
                            MRC_ATTR_STATE | MRC_ATTR_DEST_QPN | MRC_ATTR_RQ_PSN | MRC_ATTR_PATH_MTU |
                                MRC_ATTR_MPR_DEST | MRC_ATTR_MAX_WIMM_DEST | MRC_ATTR_CAPS,
                            now)) != MRC_OK)
            return rc;
    }
    for (s = 0; s < 2; s++) {
        sc_q *x = &p->q[s][q];
        if (p->rtr_only[s]) continue;
        a = p->attr[s];
        a.state = MRC_QPS_RTS;
        if ((rc = mrc_conn_modify(x->c, &a,
                            MRC_ATTR_STATE | MRC_ATTR_SQ_PSN | MRC_ATTR_MPR | MRC_ATTR_MAX_WIMM | MRC_ATTR_RETRY |
                                MRC_ATTR_TIMEOUT,
                            now)) != MRC_OK)
            return rc;
    }
    if (p->w_ok) mrc_wire_kick(&p->w);
    return 0;
}

static uint64_t sc_fnv(uint64_t h, const void *d, size_t n) {
    const uint8_t *b = (const uint8_t *)d;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

static void sc_pump(sc_pair *p);

static int sc_is_data(unsigned op) { return op >= MRC_OP_WRITE_FIRST && op <= MRC_OP_WRITE_ONLY_IMM; }

/* What every emitted packet must satisfy, whatever the scenario: it decodes, it goes to the peer of the QP that
 * produced it, its length and pad match the txinfo, and its DSCP class fits its kind (docs 3.6). */
/* the connection index of side s's QPN qpn (QPNs are random, P16); SC_MAXQ when none */
static unsigned sc_qidx(const sc_pair *p, int s, uint32_t qpn) {
    unsigned q;
    for (q = 0; q < SC_MAXQ; q++)
        if (p->q[s][q].c && mrc_conn_qpn(p->q[s][q].c) == qpn) return q;
    return SC_MAXQ;
}

static void sc_check_emitted(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti) {
    mrc_pkt k;
    mrc_conn_attr a;
    unsigned q = sc_qidx(p, from, ti->qpn), cls;
    const mrc_config *cf = &p->cfg[from];
    if (mrc_pkt_decode(pkt, len, &cf->wire, &k) != MRC_OK) {
        sc_failf(p, "side %d emitted a packet that does not decode (opcode %#x, %zu bytes)", from, ti->opcode, len);
        return;
    }
    if (ti->qpn == MRC_EPOP_QPN) { /* an endpoint operation: no QP, no PSN, control class, an up port */
        if ((k.bth.opcode != MRC_OP_EP_REQ && k.bth.opcode != MRC_OP_EP_RSP) || k.bth.dest_qp != MRC_EPOP_QPN ||
            ti->dscp_class != MRC_DSCP_CONTROL || !mrc_endpoint_port_up(p->ep[from], ti->port))
            sc_failf(p, "side %d endpoint operation opcode %#x to qpn %#x class %u port %u", from, k.bth.opcode,
                     k.bth.dest_qp, ti->dscp_class, ti->port);
        return;
    }
    if (q >= p->nq || !p->q[1 - from][q].c || k.bth.dest_qp != mrc_conn_qpn(p->q[1 - from][q].c)) {
        sc_failf(p, "side %d qpn %#x sent to qpn %#x", from, ti->qpn, k.bth.dest_qp);
        return;
    }
    if (mrc_conn_query(p->q[from][q].c, &a) != MRC_OK) {
        sc_failf(p, "side %d qpn %#x: conn_query failed", from, ti->qpn);
        return;
    }
    if (k.bth.opcode != ti->opcode || k.hdr_len != ti->hdr_len || k.payload_len != ti->payload_len ||
        k.bth.pad != ti->pad || k.bth.pkey != a.pkey || k.bth.tver != cf->wire.tver || ti->peer != a.peer) {
        sc_failf(p, "side %d opcode %#x: headers disagree with txinfo", from, ti->opcode);
        return;
    }
    if (sc_is_data(k.bth.opcode) || k.bth.opcode == MRC_OP_PROBE_REQ) {
        /* data and probes leave on one of the QP's own EVs, on its port; data only on a GOOD one */
        unsigned i, n = mrc_conn_ev_count(p->q[from][q].c), found = 0, good = 0;
        for (i = 0; i < n; i++) { /* EV values may repeat when the configured range is narrow */
            uint32_t ev = 0, st = 0;
            uint8_t port = 0;
            (void)mrc_conn_ev_get(p->q[from][q].c, i, &ev, &port, &st);
            if (ev != ti->ev || port != ti->port) continue;
            found = 1;
            good |= st == MRC_EVS_GOOD;
        }
        if (!found || (sc_is_data(k.bth.opcode) && !good)) {
            sc_failf(p, "side %d opcode %#x psn %#x on EV %#x port %u: %s", from, k.bth.opcode, k.bth.psn, ti->ev,
                     ti->port, !found ? "not one of the QP's EVs" : "an EV that is not GOOD");
            return;
        }
    }
    if (sc_is_data(k.bth.opcode))
        cls = k.bth.rtx ? (cf->trimmable ? MRC_DSCP_TRIMMABLE_RETX : MRC_DSCP_NO_TRIM)
                        : (cf->trimmable ? MRC_DSCP_TRIMMABLE : MRC_DSCP_NO_TRIM);
    else
        cls = MRC_DSCP_CONTROL;
    if (ti->dscp_class != cls || ti->dscp != cf->dscp[cls] || ti->port < 1 || ti->port > cf->num_ports ||
        !mrc_endpoint_port_up(p->ep[from], ti->port))
        sc_failf(p, "side %d opcode %#x rtx %u: dscp class %u (%u) on port %u, expected class %u", from, ti->opcode,
                 k.bth.rtx, ti->dscp_class, ti->dscp, ti->port, cls);
}

static void sc_w_tap(void *ud, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_pair *p = (sc_pair *)ud;
    if (p->pump_in_taps) sc_pump(p);
    p->ntx[from]++;
    sc_check_emitted(p, from, pkt, len, ti);
    if (p->hash_on) {
        uint8_t meta[16];
        unsigned i;
        for (i = 0; i < 8; i++) meta[i] = (uint8_t)(now >> (8 * i));
        meta[8] = (uint8_t)from;
        meta[9] = ti->port;
        meta[10] = ti->dscp;
        meta[11] = ti->pad;
        for (i = 0; i < 4; i++) meta[12 + i] = (uint8_t)(ti->ev >> (8 * i));
        p->hash = sc_fnv(sc_fnv(p->hash, meta, sizeof meta), pkt, len);
    }
    if (p->tap) p->tap(p, from, pkt, len, ti, now);
}
static int sc_w_filter(void *ud, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_pair *p = (sc_pair *)ud;
    return p->filter ? p->filter(p, from, pkt, len, ti, now) : 0;
}
static void sc_w_rx(void *ud, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_pair *p = (sc_pair *)ud;
    if (p->pump_in_taps) sc_pump(p);
    if (p->rx) p->rx(p, to, pkt, len, ri, now);
}

static void sc_fill_dst(sc_pair *p, int d) {
    size_t i;
    uint8_t *m = p->mem[d];
    memset(m, SC_GUARD_BYTE, SC_GUARD);
    memset(m + SC_GUARD + p->region, SC_GUARD_BYTE, SC_GUARD);
    for (i = 0; i < p->region; i++) m[SC_GUARD + i] = (uint8_t)(p->src[1 - d][i] ^ SC_INIT_XOR);
}

/* Allocate and start everything described by *p. 0 on success. */
static int sc_start(sc_pair *p) {
    trng r;
    int s, rc;
    unsigned q;
    size_t i;
    if (p->nq < 1 || p->nq > SC_MAXQ) return -1;
    r.s = p->seed ^ 0x5C5C5C5C5C5C5C5Cull;
    for (s = 0; s < 2; s++) {
        p->ep[s] = (mrc_endpoint *)calloc(1, sizeof *p->ep[s]);
        p->src[s] = (uint8_t *)malloc(p->region);
        p->mem[s] = (uint8_t *)malloc(p->region + 2u * SC_GUARD);
        p->cov[s] = (uint8_t *)calloc(1, p->region);
        if (!p->ep[s] || !p->src[s] || !p->mem[s] || !p->cov[s]) return -2;
        if ((rc = mrc_endpoint_init(p->ep[s], &p->cfg[s], p->t0)) != MRC_OK) return rc;
        for (i = 0; i + 8 <= p->region; i += 8) {
            uint64_t v = trand(&r);
            memcpy(p->src[s] + i, &v, 8);
        }
        for (; i < p->region; i++) p->src[s][i] = (uint8_t)trand(&r);
    }
    for (s = 0; s < 2; s++) {
        sc_fill_dst(p, s);
        if ((rc = mrc_endpoint_reg_mr(p->ep[s], sc_dst(p, s), sc_iova(s),
                                      p->region, MRC_ACCESS_REMOTE_WRITE, NULL, &p->rkey[s])) != MRC_OK)
            return rc;
    }
    p->wc.tap = sc_w_tap;
    p->wc.tap_ud = p;
    p->wc.filter = sc_w_filter;
    p->wc.filter_ud = p;
    p->wc.rx_tap = sc_w_rx;
    p->wc.rx_tap_ud = p;
    p->hash = 0xCBF29CE484222325ull;
    if ((rc = mrc_wire_init(&p->w, &p->wc, p->ep[0], p->ep[1], p->t0)) != MRC_OK) return rc;
    p->w_ok = 1;
    for (q = 0; q < p->nq; q++)
        if ((rc = sc_connect(p, q)) != 0) return rc;
    return 0;
}

static void sc_free(sc_pair *p) {
    int s;
    unsigned q;
    if (p->w_ok) mrc_wire_free(&p->w);
    p->w_ok = 0;
    for (s = 0; s < 2; s++) {
        for (q = 0; q < SC_MAXQ; q++) {
            sc_q *x = &p->q[s][q];
            if (x->c) {
                if (mrc_conn_state(x->c) != MRC_QPS_RESET && mrc_conn_state(x->c) != MRC_QPS_ERR) {
                    mrc_conn_attr a;
                    memset(&a, 0, sizeof a);
                    a.state = MRC_QPS_RESET;
                    (void)mrc_conn_modify(x->c, &a, MRC_ATTR_STATE, 0);
                }
                (void)mrc_conn_destroy(x->c);
            }
            free(x->c);
            free(x->msg);
            free(x->imm_idx);
            x->c = NULL;
            x->msg = NULL;
            x->imm_idx = NULL;
        }
        free(p->ep[s]);
        free(p->src[s]);
        free(p->mem[s]);
        free(p->cov[s]);
        p->ep[s] = NULL;
        p->src[s] = p->mem[s] = p->cov[s] = NULL;
    }
}

/* ---- plans -------------------------------------------------------------------------------------------------- */
static int sc_add(sc_pair *p, int side, unsigned q, uint32_t off, uint32_t len, unsigned op, uint32_t imm) {
    sc_q *x = &p->q[side][q];
    sc_msg *m;
    uint32_t mtu = p->attr[side].path_mtu;
    if ((size_t)off + len > sc_slice(p)) return -1;
    if (x->nmsg == x->cap) {
        uint32_t nc = x->cap ? 2u * x->cap : 64u;
        sc_msg *nm = (sc_msg *)realloc(x->msg, (size_t)nc * sizeof *nm);
        if (!nm) return -1;
        x->msg = nm;
        x->cap = nc;
    }
    if (op == MRC_WR_WRITE_IMM && x->nimm == x->imm_cap) {
        uint32_t nc = x->imm_cap ? 2u * x->imm_cap : 64u;
        uint32_t *ni = (uint32_t *)realloc(x->imm_idx, (size_t)nc * sizeof *ni);
        if (!ni) return -1;
        x->imm_idx = ni;
        x->imm_cap = nc;
    }
    m = &x->msg[x->nmsg];
    memset(m, 0, sizeof *m);
    m->off = (uint32_t)(q * sc_slice(p)) + off;
    m->len = len;
    m->op = (uint8_t)op;
    m->imm = imm;
    m->status = SC_PENDING;
    if (op == MRC_WR_WRITE_IMM) x->imm_idx[x->nimm++] = x->nmsg;
    x->npkts += len ? (len + mtu - 1u) / mtu : 1u;
    x->nbytes += len;
    x->nmsg++;
    return 0;
}

/* n messages of log-uniform sizes in [1, maxlen] at random offsets of the slice; imm_pct percent Write-IMM */
static int sc_plan_random(sc_pair *p, int side, unsigned q, unsigned n, uint32_t maxlen, unsigned imm_pct,
                          trng *r) {
    unsigned i, bits = 0;
    uint32_t slice = (uint32_t)sc_slice(p);
    sc_msg *m;
    if (maxlen > slice) maxlen = slice;
    while (bits < 31 && (1u << bits) < maxlen) bits++;
    for (i = 0; i < n; i++) {
        uint32_t hi = 1u << trand_below(r, bits + 1u), len = 1u + trand_below(r, hi);
        uint32_t off;
        unsigned op = trand_below(r, 100) < imm_pct ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        if (len > maxlen) len = maxlen;
        off = trand_below(r, slice - len + 1u);
        if (sc_add(p, side, q, off, len, op, (uint32_t)trand(r)) != 0) return -1;
        m = &p->q[side][q].msg[p->q[side][q].nmsg - 1u];
        if (trand_below(r, 100) < p->unsig_pct) m->flags = MRC_WR_UNSIGNALED;
        if (op == MRC_WR_WRITE_IMM && trand_below(r, 2)) m->flags |= MRC_WR_SOLICITED;
    }
    return 0;
}

/* n messages back to back from offset 0 with sizes in [minlen, maxlen]; minlen 0: 1 in 25 is zero-length */
static int sc_plan_seq(sc_pair *p, int side, unsigned q, unsigned n, uint32_t minlen, uint32_t maxlen,
                       unsigned imm_pct, trng *r) {
    unsigned i;
    uint32_t off = 0;
    for (i = 0; i < n; i++) {
        uint32_t len = minlen + trand_below(r, maxlen - minlen + 1u);
        unsigned op;
        if (minlen == 0) len = trand_below(r, 25) ? (len ? len : 1u) : 0u;
        op = trand_below(r, 100) < imm_pct ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        if (sc_add(p, side, q, off, len, op, (uint32_t)trand(r)) != 0) return -1;
        if (op == MRC_WR_WRITE_IMM && trand_below(r, 2))
            p->q[side][q].msg[p->q[side][q].nmsg - 1u].flags = MRC_WR_SOLICITED;
        off += len;
    }
    return 0;
}

/* forget a connection's plan and receive bookkeeping (after RESET) */
static void sc_plan_clear(sc_q *x) {
    mrc_conn_stats cs;
    mrc_conn_stats_get(x->c, &cs);
    x->base_rx_data = cs.rx_data;
    x->base_rx_bytes = cs.rx_bytes_placed;
    x->nmsg = x->posted = x->done = 0;
    x->nimm = 0;
    x->npkts = x->nbytes = 0;
    x->recv_posted = x->recv_pulled = x->imm_ok = x->mem_ok = 0;
    x->n_conn_err = x->n_send_err = x->n_recv_flush = 0;
    x->conn_err_status = 0;
}

/* ---- events ------------------------------------------------------------------------------------------------- */
static int sc_in_mem(const sc_pair *p, int dst_side, const sc_msg *m) {
    return p->lax || m->len == 0 || memcmp(sc_dst(p, dst_side) + m->off, p->src[1 - dst_side] + m->off, m->len) == 0;
}

static void sc_on_event(sc_pair *p, int s, const mrc_event *ev) {
    sc_q *x;
    mrc_time now = sc_now(p);
    p->n_ev_lost[s] += ev->drop_count;
    if (ev->type == MRC_EVT_PEER_PORTS) {
        p->n_peer_ports[s]++;
        p->peer_mask[s] = ev->port_mask;
        p->t_peer_ports[s] = now;
        return;
    }
    if (ev->type == MRC_EVT_EP_RESPONSE || ev->type == MRC_EVT_EP_TIMEOUT) {
        if (ev->type == MRC_EVT_EP_RESPONSE) p->n_ep_rsp[s]++;
        else p->n_ep_timeout[s]++;
        return;
    }
    x = (sc_q *)mrc_conn_user(ev->conn);
    if (!x || x->side != s || x->c != ev->conn) {
        sc_failf(p, "event type %u for an unknown connection on side %d", ev->type, s);
        return;
    }
    if (ev->type == MRC_EVT_EV_STATE) {
        uint32_t e;
        uint8_t port;
        if (ev->qpn != mrc_conn_qpn(x->c) || mrc_conn_ev_get(x->c, ev->ev_index, &e, &port, NULL) != MRC_OK ||
            e != ev->ev || port != ev->port || (ev->state != MRC_EVS_GOOD && ev->state != MRC_EVS_ASSUMED_BAD)) {
            sc_failf(p, "side %d q%u: EV_STATE event for EV %u (0x%x port %u state %u) that the QP does not have", s,
                     x->idx, ev->ev_index, ev->ev, ev->port, ev->state);
            return;
        }
        if (ev->state == MRC_EVS_ASSUMED_BAD) {
            if (!x->n_ev_bad) x->t_first_ev_bad = now;
            x->n_ev_bad++;
        } else {
            x->n_ev_good++;
        }
    } else if (ev->type == MRC_EVT_SEND_DONE) {
        sc_msg *m;
        if (x->done >= x->posted) {
            sc_failf(p, "side %d q%u: SEND_DONE wr_id %llu with nothing outstanding", s, x->idx,
                     (unsigned long long)ev->wr_id);
            return;
        }
        /* unsignaled writes that completed OK produce no event: any later completion implies them (WR order; a
         * flushed or failed one is always reported) */
        while (x->done < x->posted && ev->wr_id > x->done && (x->msg[x->done].flags & MRC_WR_UNSIGNALED)) {
            m = &x->msg[x->done];
            m->status = MRC_OK;
            m->t_done = now;
            x->done++;
            if (!sc_in_mem(p, 1 - s, m)) {
                sc_failf(p, "side %d q%u wr %u: unsignaled write completed but its data is not in the peer's memory",
                         s, x->idx, x->done - 1u);
                return;
            }
        }
        m = &x->msg[x->done];
        if (ev->wr_id != x->done || (ev->status == MRC_OK && (m->flags & MRC_WR_UNSIGNALED))) {
            sc_failf(p, "side %d q%u: SEND_DONE wr_id %llu status %d, expected wr %u (work-request order, "
                     "unsignaled writes only on error)", s, x->idx, (unsigned long long)ev->wr_id, ev->status,
                     x->done);
            return;
        }
        m->status = ev->status;
        m->t_done = now;
        x->done++;
        if (ev->status == MRC_OK) {
            if (ev->byte_len != m->len && !p->lax)
                sc_failf(p, "side %d q%u wr %u: byte_len %u, expected %u", s, x->idx, x->done - 1u, ev->byte_len,
                         m->len);
            else if (!sc_in_mem(p, 1 - s, m))
                sc_failf(p, "side %d q%u wr %u: SEND_DONE OK but the data is not in the peer's memory", s, x->idx,
                         x->done - 1u);
        } else {
            x->n_send_err++;
            if (p->strict)
                sc_failf(p, "side %d q%u wr %u: SEND_DONE status %d (%s)", s, x->idx, x->done - 1u, ev->status,
                         mrc_strerror(ev->status));
        }
    } else if (ev->type == MRC_EVT_RECV_IMM) {
        sc_q *y = &p->q[1 - s][x->idx]; /* the peer connection whose Write-IMMs land here */
        if (ev->wr_id != x->recv_pulled) {
            sc_failf(p, "side %d q%u: RECV_IMM wr_id %llu, expected %u (receive order)", s, x->idx,
                     (unsigned long long)ev->wr_id, x->recv_pulled);
            return;
        }
        x->recv_pulled++;
        if (ev->status == MRC_OK) {
            uint32_t k, j;
            const sc_msg *m;
            if (x->imm_ok >= y->nimm && p->lax) {
                x->imm_ok++;
                return;
            }
            if (x->imm_ok >= y->nimm) {
                sc_failf(p, "side %d q%u: RECV_IMM OK beyond the %u Write-IMMs planned", s, x->idx, y->nimm);
                return;
            }
            k = y->imm_idx[x->imm_ok];
            m = &y->msg[k];
            if (k >= y->posted && !p->lax) {
                sc_failf(p, "side %d q%u: RECV_IMM for message %u not posted yet", s, x->idx, k);
                return;
            }
            if (!p->lax && (ev->imm != m->imm || ev->byte_len != m->len)) {
                sc_failf(p, "side %d q%u: RECV_IMM #%u imm %08x len %u, expected message %u imm %08x len %u", s,
                         x->idx, x->imm_ok, ev->imm, ev->byte_len, k, m->imm, m->len);
                return;
            }
            for (j = x->mem_ok; j <= k; j++) {
                if (!sc_in_mem(p, s, &y->msg[j])) {
                    sc_failf(p, "side %d q%u: RECV_IMM of message %u pulled before the bytes of message %u are in "
                             "memory", s, x->idx, k, j);
                    return;
                }
            }
            if (k + 1u > x->mem_ok) x->mem_ok = k + 1u;
            x->imm_ok++;
            x->t_last_imm = now;
        } else {
            x->n_recv_flush++;
            if (p->strict)
                sc_failf(p, "side %d q%u: RECV_IMM status %d (%s)", s, x->idx, ev->status, mrc_strerror(ev->status));
        }
    } else if (ev->type == MRC_EVT_CONN_ERROR) {
        if (!x->n_conn_err) {
            x->conn_err_status = ev->status;
            x->t_conn_err = now;
        }
        x->n_conn_err++;
        if (p->strict)
            sc_failf(p, "side %d q%u: CONN_ERROR %d (%s) at %llu ns", s, x->idx, ev->status, mrc_strerror(ev->status),
                     (unsigned long long)now);
    } else {
        sc_failf(p, "side %d: unknown event type %u", s, ev->type);
    }
}

static void sc_pump(sc_pair *p) {
    mrc_event ev;
    int s;
    for (s = 0; s < 2; s++)
        while (mrc_endpoint_poll_event(p->ep[s], &ev) > 0) sc_on_event(p, s, &ev);
}

/* post what the plans and the receive queues allow */
static void sc_refill(sc_pair *p) {
    int s, kick = 0;
    unsigned q;
    uint32_t cap = p->max_post && p->max_post < MRC_MAX_SQ ? p->max_post : MRC_MAX_SQ;
    mrc_time now = sc_now(p);
    for (s = 0; s < 2; s++) {
        for (q = 0; q < p->nq; q++) {
            sc_q *x = &p->q[s][q];
            int st = mrc_conn_state(x->c);
            while (!p->hold && st == MRC_QPS_RTS && x->posted < x->nmsg && x->posted - x->done < cap) {
                sc_msg *m = &x->msg[x->posted];
                mrc_write w;
                int rc;
                memset(&w, 0, sizeof w);
                w.wr_id = x->posted;
                w.opcode = m->op;
                w.buf = p->src[s] + m->off;
                w.len = m->len;
                w.remote_va = sc_iova(1 - s) + m->off + m->va_adj;
                w.rkey = p->rkey[1 - s];
                w.imm = m->imm;
                /* the plan's last write is always signaled: its completion covers the unsignaled ones before it */
                if (x->posted + 1u == x->nmsg) m->flags = (uint8_t)(m->flags & ~MRC_WR_UNSIGNALED);
                w.flags = m->flags;
                rc = mrc_conn_post_write(x->c, &w, now);
                if (rc == MRC_ERR_FULL) break;
                if (rc != MRC_OK) {
                    sc_failf(p, "side %d q%u: post_write %u returned %d", s, q, x->posted, rc);
                    return;
                }
                m->t_post = now;
                x->posted++;
                kick = 1;
            }
            while (!p->no_recv[s] && (st == MRC_QPS_RTS || st == MRC_QPS_RTR) &&
                   x->recv_posted - x->recv_pulled < MRC_MAX_RQ) {
                int rc = mrc_conn_post_recv(x->c, x->recv_posted, now);
                if (rc == MRC_ERR_FULL) break;
                if (rc != MRC_OK) {
                    sc_failf(p, "side %d q%u: post_recv returned %d", s, q, rc);
                    return;
                }
                x->recv_posted++;
                kick = 1;
            }
        }
    }
    if (kick) mrc_wire_kick(&p->w);
}

/* every plan completed and every Write-IMM received */
static int sc_all_done(sc_pair *p) {
    int s;
    unsigned q;
    for (s = 0; s < 2; s++)
        for (q = 0; q < p->nq; q++) {
            const sc_q *x = &p->q[s][q];
            if (x->done < x->nmsg) return 0;
            if (!p->no_recv[1 - s] && p->q[1 - s][q].imm_ok < x->nimm) return 0;
        }
    return 1;
}

static int sc_stop_never(sc_pair *p) {
    (void)p;
    return 0;
}

static int sc_cb(void *ud) {
    sc_pair *p = (sc_pair *)ud;
    sc_pump(p);
    if (p->fail) return 1;
    sc_refill(p);
    if (p->fail) return 1;
    return p->stop ? p->stop(p) : sc_all_done(p);
}

/* run until the stop condition (1), the time limit (0) or a failure (p->fail set, returns -1) */
static int sc_run_until(sc_pair *p, mrc_time until) {
    int r = mrc_wire_run(&p->w, until, sc_cb, p);
    if (r < 0) sc_failf(p, "mrc_wire_run returned %d", r);
    if (p->fail) return -1;
    return r;
}

/* Final memory check of side d, connections [qlo, qhi): guards intact; each byte of their slices written by a
 * message completed OK equals the source, every other byte still holds its initial value. */
static int sc_mem_check_q(sc_pair *p, int d, unsigned qlo, unsigned qhi, char *why, size_t whylen) {
    const sc_pair *cp = p;
    unsigned q;
    uint32_t i;
    size_t b, lo = qlo * sc_slice(p), hi = qhi * sc_slice(p);
    const uint8_t *m = p->mem[d], *src = p->src[1 - d];
    for (b = 0; b < SC_GUARD; b++) {
        if (m[b] != SC_GUARD_BYTE || m[SC_GUARD + p->region + b] != SC_GUARD_BYTE) {
            snprintf(why, whylen, "side %d: guard byte %s+%u overwritten", d, m[b] != SC_GUARD_BYTE ? "pre" : "post",
                     (unsigned)b);
            return 0;
        }
    }
    memset(p->cov[d], 0, p->region);
    for (q = qlo; q < qhi; q++) {
        const sc_q *y = &cp->q[1 - d][q];
        for (i = 0; i < y->nmsg; i++)
            if (y->msg[i].status == MRC_OK && y->msg[i].len) memset(p->cov[d] + y->msg[i].off, 1, y->msg[i].len);
    }
    for (b = lo; b < hi; b++) {
        uint8_t want = p->cov[d][b] ? src[b] : (uint8_t)(src[b] ^ SC_INIT_XOR);
        if (m[SC_GUARD + b] != want) {
            snprintf(why, whylen, "side %d: byte %zu is %02x, expected %02x (%s)", d, b, m[SC_GUARD + b], want,
                     p->cov[d][b] ? "written" : "never written");
            return 0;
        }
    }
    return 1;
}
static int sc_mem_check(sc_pair *p, int d, char *why, size_t whylen) {
    return sc_mem_check_q(p, d, 0, p->nq, why, whylen);
}

static mrc_conn_stats sc_cstats(const sc_pair *p, int s, unsigned q) {
    mrc_conn_stats cs;
    mrc_conn_stats_get(p->q[s][q].c, &cs);
    return cs;
}
static mrc_endpoint_stats sc_estats(const sc_pair *p, int s) {
    mrc_endpoint_stats es;
    mrc_endpoint_stats_get(p->ep[s], &es);
    return es;
}
static mrc_wire_stats sc_wstats(const sc_pair *p, int from) {
    mrc_wire_stats ws;
    mrc_wire_stats_total(&p->w, from, &ws);
    return ws;
}

/* the standard end of a clean transfer: everything completed OK, memory exact, nothing dropped by the pool */
static int sc_check_clean(sc_pair *p) {
    char why[200];
    int s;
    unsigned q;
    uint32_t i;
    mrc_wire_stats ws;
    SC_CHECKF(p, !p->fail, "%s", p->failmsg);
    SC_CHECK(p, sc_all_done(p));
    for (s = 0; s < 2; s++) {
        for (q = 0; q < p->nq; q++) {
            const sc_q *x = &p->q[s][q];
            SC_CHECK(p, mrc_conn_state(x->c) == MRC_QPS_RTS);
            SC_CHECK(p, x->n_conn_err == 0);
            for (i = 0; i < x->nmsg; i++) SC_CHECKF(p, x->msg[i].status == MRC_OK, "side %d q%u msg %u", s, q, i);
            if (!p->no_recv[1 - s]) SC_CHECK(p, p->q[1 - s][q].imm_ok == x->nimm);
            {   /* the peer placed every planned packet exactly once, duplicates and retransmissions never twice */
                mrc_conn_stats ps;
                const sc_q *y = &p->q[1 - s][q];
                mrc_conn_stats_get(y->c, &ps);
                SC_CHECKF(p, ps.rx_data - y->base_rx_data == x->npkts &&
                                 ps.rx_bytes_placed - y->base_rx_bytes == x->nbytes,
                          "side %d q%u: peer placed %llu packets / %llu bytes, planned %llu / %llu", s, q,
                          (unsigned long long)(ps.rx_data - y->base_rx_data),
                          (unsigned long long)(ps.rx_bytes_placed - y->base_rx_bytes), (unsigned long long)x->npkts,
                          (unsigned long long)x->nbytes);
            }
        }
        SC_CHECKF(p, sc_mem_check(p, s, why, sizeof why), "%s", why);
    }
    mrc_wire_stats_total(&p->w, MRC_WIRE_BOTH, &ws);
    SC_CHECK(p, ws.drop_pool == 0 && ws.drop_size == 0 && ws.drop_port == 0);
    /* the wire's books balance, and agree with the endpoints' */
    SC_CHECK(p, ws.tx_pkts + ws.dup == ws.delivered + ws.drop_down + ws.drop_filter + ws.drop_loss + ws.drop_queue +
                                           ws.drop_pool + ws.drop_size + ws.drop_port + mrc_wire_inflight(&p->w));
    for (s = 0; s < 2; s++) {
        mrc_wire_stats w = sc_wstats(p, s);
        mrc_endpoint_stats tx = sc_estats(p, s), rx = sc_estats(p, 1 - s);
        SC_CHECK(p, w.tx_pkts == tx.tx_pkts && w.tx_bytes == tx.tx_bytes);
        SC_CHECK(p, w.delivered + p->inj_rx[1 - s] == rx.rx_pkts && w.rx_rejected + p->inj_drop[1 - s] == rx.rx_drops);
    }
    return 0;
}

/* decode a tapped packet (returns 0 when it does not decode, e.g. trimmed below its headers) */
static int sc_decode(const sc_pair *p, const uint8_t *pkt, size_t len, mrc_pkt *k) {
    return mrc_pkt_decode(pkt, len, &p->cfg[0].wire, k) == MRC_OK;
}

/* Each scenario is a body that may return early from a CHECK; the wrapper always frees. */
#define SC_TEST(name, body)                                 \
    static int name(void) {                                 \
        sc_pair *p_ = (sc_pair *)calloc(1, sizeof(sc_pair)); \
        int r_;                                             \
        if (!p_) return 1;                                  \
        r_ = body(p_);                                      \
        sc_free(p_);                                        \
        free(p_);                                           \
        return r_;                                          \
    }

/* ---- 1. bulk: bit-exact, both directions, every impairment at once ------------------------------------------ */
static void sc_impaired_link(mrc_wire_link *l) {
    mrc_wire_link_default(l);
    l->delay_ns = 3000;
    l->jitter_ns = 2000;
    l->loss_ppm = 10000;
    l->dup_ppm = 5000;
    l->corrupt_ppm = 5000;
    l->trim_ppm = 10000;
    l->ce_ppm = 10000;
}

/* Both sides send nmsg random messages (1 B .. region, log-uniform sizes, half Write-IMM) over impaired links;
 * with_max adds one message of the whole region (8 MiB) to each side. */
static int sc_bulk_setup(sc_pair *p, uint64_t seed, unsigned nmsg, size_t region, int with_max) {
    trng r;
    mrc_wire_link l;
    int s;
    sc_defaults(p, seed);
    p->region = region;
    p->unsig_pct = 10;
    sc_impaired_link(&l);
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    if (sc_start(p) != 0) return -1;
    r.s = seed ^ 0xB0B0B0B0ull;
    for (s = 0; s < 2; s++) {
        if (sc_plan_random(p, s, 0, nmsg / 2u, (uint32_t)region, 50, &r) != 0) return -1;
        if (with_max && sc_add(p, s, 0, 0, (uint32_t)region, s ? MRC_WR_WRITE_IMM : MRC_WR_WRITE, 0xFEEDu) != 0)
            return -1;
        if (sc_plan_random(p, s, 0, nmsg - nmsg / 2u, (uint32_t)region, 50, &r) != 0) return -1;
    }
    return 0;
}

static int sc_bulk_body(sc_pair *p) {
    unsigned i;
    int s;
    for (i = 0; i < 4; i++) {
        uint64_t seed = g_seed + i;
        mrc_wire_stats w[2];
        SC_CHECK(p, sc_bulk_setup(p, seed, 100, 8u << 20, i == 0) == 0);
        SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        w[0] = sc_wstats(p, MRC_WIRE_A);
        w[1] = sc_wstats(p, MRC_WIRE_B);
        for (s = 0; s < 2; s++) {
            mrc_conn_stats cs = sc_cstats(p, s, 0), peer = sc_cstats(p, 1 - s, 0);
            mrc_endpoint_stats es = sc_estats(p, 1 - s);
            /* every impairment really happened in both directions */
            SC_CHECK(p, w[s].drop_loss > 0 && w[s].dup > 0 && w[s].corrupt > 0 && w[s].trim > 0 && w[s].ce > 0);
            /* each corrupted packet is dropped by its receiver as ICRC, never placed (some may still be in flight:
             * probes of ASSUMED_BAD EVs keep the wire busy after the last completion) */
            SC_CHECK(p, es.drop[MRC_DROP_ICRC] <= w[s].corrupt &&
                            w[s].corrupt <= es.drop[MRC_DROP_ICRC] + mrc_wire_inflight(&p->w));
            /* trims draw NACKs, duplicates are recognised, losses repaired */
            SC_CHECK(p, peer.rx_trimmed > 0 && peer.tx_nack == peer.rx_trimmed);
            SC_CHECK(p, peer.rx_dup > 0 && cs.tx_rtx > 0 && cs.rx_nack > 0);
            SC_CHECK(p, cs.msgs_done == p->q[s][0].nmsg);
        }
        note("seed %llu: %u+%u msgs, %.3f ms virtual, A tx_data %llu rtx %llu, B tx_data %llu rtx %llu",
             (unsigned long long)seed, p->q[0][0].nmsg, p->q[1][0].nmsg, (double)sc_now(p) / 1e6,
             (unsigned long long)sc_cstats(p, 0, 0).tx_data, (unsigned long long)sc_cstats(p, 0, 0).tx_rtx,
             (unsigned long long)sc_cstats(p, 1, 0).tx_data, (unsigned long long)sc_cstats(p, 1, 0).tx_rtx);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_bulk_bidir, sc_bulk_body)

/* ---- 2. Write-IMM completions in posting order under heavy reordering --------------------------------------- */
typedef struct sc_reorder {
    uint32_t base, max_off, arrivals, late;
} sc_reorder;
static void sc_reorder_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_reorder *o = (sc_reorder *)p->ud;
    mrc_pkt k;
    (void)ri;
    (void)now;
    if (to != 1 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    {
        uint32_t off = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
        o->arrivals++;
        if (o->arrivals > 1 && off < o->max_off) o->late++;
        if (off > o->max_off) o->max_off = off;
    }
}
typedef struct sc_se {
    uint32_t checked, bad;
} sc_se;
static sc_se g_sc_se;
static void sc_se_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    const sc_q *x = &p->q[0][0];
    mrc_pkt k;
    uint32_t i;
    (void)ti;
    (void)now;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    if (k.bth.opcode != MRC_OP_WRITE_LAST_IMM && k.bth.opcode != MRC_OP_WRITE_ONLY_IMM) {
        if (k.bth.se) g_sc_se.bad++; /* se only on the packet that carries the immediate */
        return;
    }
    for (i = 0; i < x->nmsg; i++) /* the message with this immediate (values are random 32-bit) */
        if (x->msg[i].op == MRC_WR_WRITE_IMM && x->msg[i].imm == k.imm) break;
    if (i == x->nmsg) {
        g_sc_se.bad++;
        return;
    }
    g_sc_se.checked++;
    if (k.bth.se != ((x->msg[i].flags & MRC_WR_SOLICITED) ? 1u : 0u)) g_sc_se.bad++;
}
static int sc_wimm_order_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    sc_reorder o;
    sc_defaults(p, g_seed + 200);
    p->attr[0].path_mtu = p->attr[1].path_mtu = 1024;
    mrc_wire_link_default(&l);
    l.delay_ns = 1000;
    l.jitter_ns = 20000; /* 20 us of jitter against ~100 ns of serialization per packet */
    l.loss_ppm = 2000;
    sc_set_links(p, MRC_WIRE_A, &l);
    l.jitter_ns = 5000;
    sc_set_links(p, MRC_WIRE_B, &l);
    p->pump_in_taps = 1; /* RECV_IMMs are pulled between any two packets: memory is checked at that moment */
    memset(&o, 0, sizeof o);
    o.base = p->attr[0].sq_psn;
    p->ud = &o;
    p->rx = sc_reorder_rx;
    p->tap = sc_se_tap;
    memset(&g_sc_se, 0, sizeof g_sc_se);
    SC_CHECK(p, sc_start(p) == 0);
    r.s = g_seed ^ 0x2222;
    SC_CHECK(p, sc_plan_seq(p, 0, 0, 400, 0, 3000, 80, &r) == 0);
    SC_CHECK(p, p->q[0][0].nimm > 250);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, p->q[1][0].imm_ok == p->q[0][0].nimm);
    SC_CHECK(p, sc_cstats(p, 1, 0).imm_delivered == p->q[0][0].nimm);
    SC_CHECKF(p, o.late * 4u >= o.arrivals, "only %u of %u arrivals out of order", o.late, o.arrivals);
    SC_CHECKF(p, g_sc_se.bad == 0 && g_sc_se.checked >= p->q[0][0].nimm, "BTH se wrong on %u packets (%u checked)",
              g_sc_se.bad, g_sc_se.checked);
    note("%u Write-IMMs in order; %u of %u data arrivals out of PSN order", p->q[0][0].nimm, o.late, o.arrivals);
    return 0;
}
SC_TEST(t_sc_wimm_order, sc_wimm_order_body)

/* ---- 3. WIMM limits ------------------------------------------------------------------------------------------ */
typedef struct sc_wimm_watch {
    uint32_t started, imm_done, scanned, max_out, over;
} sc_wimm_watch;
static void sc_wimm_watch_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                              mrc_time now) {
    sc_wimm_watch *o = (sc_wimm_watch *)p->ud;
    const sc_q *x = &p->q[0][0];
    mrc_pkt k;
    uint32_t out;
    (void)ti;
    (void)now;
    /* completions already pulled (the harness pumps before calling the tap) */
    for (; o->scanned < x->done; o->scanned++)
        if (x->msg[o->scanned].op == MRC_WR_WRITE_IMM) o->imm_done++;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_WRITE_ONLY_IMM || k.bth.rtx) return;
    o->started++; /* single-packet messages: the first transmission starts the message */
    out = o->started - o->imm_done;
    if (out > o->max_out) o->max_out = out;
    if (out > p->attr[0].max_wimm) o->over++;
}
static int sc_wimm_limit_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    sc_wimm_watch o;
    unsigned pass;
    for (pass = 0; pass < 2; pass++) {
        sc_defaults(p, g_seed + 300 + pass);
        p->attr[0].path_mtu = p->attr[1].path_mtu = 1024;
        /* pass 0: max_wimm 4 well below max_wimm_dest; pass 1: max_wimm == max_wimm_dest == 4, loss and jitter */
        p->attr[0].max_wimm = 4;
        p->attr[1].max_wimm_dest = pass ? 4 : 64;
        mrc_wire_link_default(&l);
        l.delay_ns = 5000;
        if (pass) {
            l.jitter_ns = 4000;
            l.loss_ppm = 20000;
        }
        sc_set_links(p, MRC_WIRE_BOTH, &l);
        p->pump_in_taps = 1;
        memset(&o, 0, sizeof o);
        p->ud = &o;
        p->tap = sc_wimm_watch_tap;
        SC_CHECK(p, sc_start(p) == 0);
        r.s = g_seed ^ 0x3333 ^ pass;
        SC_CHECK(p, sc_plan_seq(p, 0, 0, 300, 1, 1024, 75, &r) == 0);
        SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        SC_CHECKF(p, o.over == 0 && o.max_out == 4, "max outstanding Write-IMMs %u (limit 4), %u over", o.max_out,
                  o.over);
        SC_CHECK(p, o.started == p->q[0][0].nimm);
        SC_CHECK(p, sc_estats(p, 1).drop[MRC_DROP_WIMM] == 0);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_wimm_limit, sc_wimm_limit_body)

/* Responder max_wimm_dest 2, requester max_wimm 8, no receives posted: the third Write-IMM draws NAK 0x61 naming
 * its MSN; B enters ERR (LOCAL_INVAL), A follows (REMOTE_INVAL) with that WR failed and the later ones flushed. */
typedef struct sc_nak_watch {
    uint32_t naks, syndrome, msn, other_b;
} sc_nak_watch;
static void sc_nak_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_nak_watch *o = (sc_nak_watch *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from != 1 || !sc_decode(p, pkt, len, &k)) return;
    if (k.bth.opcode == MRC_OP_ACK) {
        o->naks++;
        o->syndrome = k.aeth.syndrome;
        o->msn = k.aeth.msn;
    } else if (k.bth.opcode != MRC_OP_SACK) {
        o->other_b++;
    }
}
static int sc_wimm_err_stop(sc_pair *p) {
    return p->q[0][0].n_conn_err && p->q[1][0].n_conn_err && p->q[0][0].done == p->q[0][0].nmsg;
}
static int sc_drop_nak(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    (void)p;
    (void)pkt;
    (void)len;
    (void)now;
    return from == 1 && ti->opcode == MRC_OP_ACK;
}
static int sc_wimm_overflow_body(sc_pair *p) {
    sc_nak_watch o;
    unsigned i;
    mrc_endpoint_stats eb;
    sc_defaults(p, g_seed + 310);
    sc_set_ports(p, 1); /* one in-order path: the Write-IMMs arrive in posting order */
    p->attr[0].max_wimm = 8;
    p->attr[1].max_wimm_dest = 2;
    p->no_recv[1] = 1;
    p->strict = 0;
    p->stop = sc_wimm_err_stop;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_nak_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i * 64u, 64, MRC_WR_WRITE_IMM, 0x1000u + i) == 0);
    SC_CHECK(p, sc_run_until(p, 10 * SC_MS) == 1);
    SC_CHECK(p, p->q[1][0].conn_err_status == MRC_ERR_LOCAL_INVAL && p->q[1][0].n_conn_err == 1);
    SC_CHECK(p, p->q[0][0].conn_err_status == MRC_ERR_REMOTE_INVAL && p->q[0][0].n_conn_err == 1);
    SC_CHECK(p, mrc_conn_state(p->q[0][0].c) == MRC_QPS_ERR && mrc_conn_state(p->q[1][0].c) == MRC_QPS_ERR);
    SC_CHECKF(p, o.naks == 1 && o.syndrome == MRC_AETH_NAK_INV_REQ && o.msn == 3,
              "naks %u syndrome %#x msn %u", o.naks, o.syndrome, o.msn);
    SC_CHECK(p, o.other_b == 0);
    SC_CHECK(p, p->q[0][0].msg[0].status == MRC_OK && p->q[0][0].msg[1].status == MRC_OK);
    SC_CHECK(p, p->q[0][0].msg[2].status == MRC_ERR_REMOTE_INVAL);
    for (i = 3; i < 8; i++) SC_CHECK(p, p->q[0][0].msg[i].status == MRC_ERR_FLUSH);
    eb = sc_estats(p, 1);
    SC_CHECK(p, eb.drop[MRC_DROP_WIMM] == 1 && sc_cstats(p, 1, 0).tx_nak == 1);
    SC_CHECK(p, eb.drop[MRC_DROP_STATE] == 5); /* the Write-IMMs after the offending one find B in ERR */
    SC_CHECK(p, sc_cstats(p, 1, 0).imm_delivered == 0 && p->q[1][0].recv_pulled == 0);
    SC_CHECK(p, mrc_conn_post_recv(p->q[1][0].c, 99, sc_now(p)) == MRC_ERR_STATE);
    sc_free(p);

    /* P8: the NAK is sent once; lost, it leaves the requester to exhaust its retries (B in ERR drops them) */
    sc_defaults(p, g_seed + 311);
    sc_set_ports(p, 1);
    p->attr[0].max_wimm = 8;
    p->attr[0].timeout = 5;
    p->attr[0].retry_linear = 1;
    p->attr[0].retry_exp = 1;
    p->attr[1].max_wimm_dest = 2;
    p->no_recv[1] = 1;
    p->strict = 0;
    p->stop = sc_wimm_err_stop;
    p->filter = sc_drop_nak;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i * 64u, 64, MRC_WR_WRITE_IMM, 0x1000u + i) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECK(p, p->q[1][0].conn_err_status == MRC_ERR_LOCAL_INVAL && sc_wstats(p, MRC_WIRE_B).drop_filter == 1);
    SC_CHECK(p, p->q[0][0].conn_err_status == MRC_ERR_RETRY_EXC && sc_cstats(p, 0, 0).rto_fired == 3);
    SC_CHECK(p, p->q[0][0].msg[2].status == MRC_ERR_RETRY_EXC && p->q[0][0].msg[7].status == MRC_ERR_FLUSH);
    return 0;
}
SC_TEST(t_sc_wimm_overflow, sc_wimm_overflow_body)
/* ---- 4. RTO and back-off timing ------------------------------------------------------------------------------- */
#define SC_MAXLOG 8192
typedef struct sc_txlog { /* A's transmissions: kind 0 new data, 1 retransmission, 2 tail-loss PROBE_REQ */
    uint32_t n;
    uint64_t tlps;            /* the conn's tx_probes (tail-loss probes) at the last logged probe */
    mrc_time t[SC_MAXLOG];
    uint32_t psn[SC_MAXLOG];
    uint8_t kind[SC_MAXLOG];
} sc_txlog;
static void sc_txlog_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_txlog *o = (sc_txlog *)p->ud;
    mrc_pkt k;
    (void)ti;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || o->n >= SC_MAXLOG) return;
    if (sc_is_data(k.bth.opcode)) {
        o->kind[o->n] = k.bth.rtx ? 1u : 0u;
    } else if (k.bth.opcode == MRC_OP_PROBE_REQ) { /* the counters tell the two kinds of probe apart */
        uint64_t t = sc_cstats(p, 0, 0).tx_probes;
        if (t == o->tlps) return; /* a probe of an ASSUMED_BAD EV: on its own clock, not logged */
        o->kind[o->n] = 2;
        o->tlps = t;
    } else {
        return;
    }
    o->t[o->n] = now;
    o->psn[o->n] = k.bth.psn;
    o->n++;
}
/* wait before RTO expiry n (1-based), docs P5 */
static mrc_time sc_rto_wait(unsigned timeout, unsigned linear, unsigned n) {
    const mrc_time cap = (mrc_time)1024u << 24;
    mrc_time t = (mrc_time)1024u << timeout;
    unsigned e;
    if (n - 1u > linear)
        for (e = n - 1u - linear; e && t < cap; e--) t <<= 1;
    return t < cap ? t : cap;
}
static int sc_rto_stop10(sc_pair *p) { return sc_cstats(p, 0, 0).rto_fired >= 10; }

/* Check the RTO schedule and the probes from log entry 'from' on: expiry n retransmits the oldest PSN exactly
 * sum(wait(1..n)) after the first transmission; every PROBE_REQ follows A's previous transmission by
 * g << min(probes before it, 10) (P4), g the first probe's gap. Returns the number of expiries seen, -1 on a
 * mismatch (printed). */
static int sc_check_schedule(const sc_txlog *o, uint32_t from, unsigned timeout, unsigned linear,
                             mrc_time *first_gap, unsigned *nprobes) {
    uint32_t i, first_psn = o->psn[from];
    mrc_time t0 = o->t[from], expect = t0, g = 0, prev = t0;
    unsigned n = 0, np = 0;
    for (i = from; i < o->n; i++) {
        if (o->kind[i] == 1) {
            n++;
            expect += sc_rto_wait(timeout, linear, n);
            if (o->t[i] != expect || o->psn[i] != first_psn) {
                printf("    expiry %u: retransmitted psn %#x at %llu ns, expected psn %#x at %llu ns (t0 %llu)\n", n,
                       o->psn[i], (unsigned long long)o->t[i], first_psn, (unsigned long long)expect,
                       (unsigned long long)t0);
                return -1;
            }
        } else if (o->kind[i] == 2) {
            mrc_time gap = o->t[i] - prev;
            if (i > from && o->kind[i - 1u] == 2 && gap < 1000u) { /* P33: the probe's copy, right after it; the */
                prev = o->t[i];                                      /* next wait counts from it */
                continue;
            }
            if (np == 0) g = gap;
            if (gap != g << (np < 10 ? np : 10)) {
                printf("    probe %u at %llu ns: gap %llu ns after the previous transmission, expected %llu\n", np,
                       (unsigned long long)o->t[i], (unsigned long long)gap,
                       (unsigned long long)(g << (np < 10 ? np : 10)));
                return -1;
            }
            np++;
        }
        prev = o->t[i];
    }
    *first_gap = g;
    *nprobes = np;
    return (int)n;
}

static int sc_rto_timing_body(sc_pair *p) {
    static sc_txlog o;
    uint32_t from;
    int n;
    mrc_time g;
    unsigned np;
    mrc_conn_stats cs;
    sc_defaults(p, g_seed + 400);
    p->attr[0].timeout = 6; /* T = 65.536 us */
    p->attr[0].retry_linear = 3;
    p->attr[0].retry_exp = 25;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_txlog_tap;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 65536, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, 10 * SC_MS) == 1); /* a clean first message: RTT samples, timers idle */
    SC_CHECK(p, sc_cstats(p, 0, 0).rto_fired == 0);
    /* black hole A->B, then post the next message */
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, false) == MRC_OK);
    from = o.n;
    SC_CHECK(p, sc_add(p, 0, 0, 65536, 65536, MRC_WR_WRITE, 0) == 0);
    p->stop = sc_rto_stop10;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    SC_CHECK(p, o.kind[from] == 0);
    n = sc_check_schedule(&o, from, 6, 3, &g, &np);
    SC_CHECKF(p, n == 10, "%d expiries matched the schedule", n);
    cs = sc_cstats(p, 0, 0);
    /* every retransmission came from the RTO; the probes (lost too) retransmitted nothing */
    SC_CHECK(p, cs.rto_fired == 10 && cs.rtx_rto == 10 && cs.tx_rtx == 10 && cs.rtx_probe_loss == 0);
    SC_CHECK(p, cs.tx_probes == 2u * np && cs.tlp_fired == np && np >= 4); /* each with its copy (P33) */
    SC_CHECK(p, g >= p->cfg[0].tlp_min_ns);
    SC_CHECK(p, mrc_conn_state(p->q[0][0].c) == MRC_QPS_RTS);
    note("RTO waits T=65.536us x(1,1,1,1,2,4,8,16,32,64) matched to the ns; %u probes, first after %llu ns", np,
         (unsigned long long)g);
    return 0;
}
SC_TEST(t_sc_rto_backoff, sc_rto_timing_body)

/* ---- 5. retry exhaustion, and retry_exp = 25 = infinite --------------------------------------------------------- */
static int sc_exhaust_stop(sc_pair *p) {
    const sc_q *x = &p->q[0][0];
    return x->n_conn_err && x->done == x->nmsg && x->recv_pulled == x->recv_posted;
}
static int sc_stop_rto30(sc_pair *p) { return sc_cstats(p, 0, 0).rto_fired >= 30; }
static int sc_retry_exhaust_body(sc_pair *p) {
    static sc_txlog o;
    unsigned i, nrtx = 0, np;
    int n;
    mrc_time t0, T = (mrc_time)1024u << 5, g, last_a = 0;
    mrc_conn_stats cs;
    sc_defaults(p, g_seed + 500);
    p->attr[0].timeout = 5;
    p->attr[0].retry_linear = 3;
    p->attr[0].retry_exp = 2;
    p->strict = 0;
    p->stop = sc_exhaust_stop;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_txlog_tap;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, false) == MRC_OK); /* dead from the start */
    for (i = 0; i < 5; i++) SC_CHECK(p, sc_add(p, 0, 0, i * 8192u, 8192, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    t0 = o.t[0];
    for (i = 0; i < o.n; i++) {
        if (o.kind[i] == 1) nrtx++;
        last_a = o.t[i];
    }
    cs = sc_cstats(p, 0, 0);
    /* L + E + 1 = 6 expiries: 5 retransmissions, the 6th is the error; waits T,T,T,T,2T,4T */
    SC_CHECKF(p, cs.rto_fired == 6 && nrtx == 5 && cs.tx_rtx == 5, "rto_fired %llu rtx %u",
              (unsigned long long)cs.rto_fired, nrtx);
    SC_CHECK(p, sc_check_schedule(&o, 0, 5, 3, &g, &np) == 5);
    SC_CHECK(p, p->q[0][0].conn_err_status == MRC_ERR_RETRY_EXC && p->q[0][0].n_conn_err == 1);
    SC_CHECKF(p, p->q[0][0].t_conn_err == t0 + 10u * T, "error at %llu, expected %llu",
              (unsigned long long)p->q[0][0].t_conn_err, (unsigned long long)(t0 + 10u * T));
    SC_CHECK(p, p->q[0][0].msg[0].status == MRC_ERR_RETRY_EXC);
    for (i = 1; i < 5; i++) SC_CHECK(p, p->q[0][0].msg[i].status == MRC_ERR_FLUSH);
    SC_CHECK(p, p->q[0][0].n_recv_flush == p->q[0][0].recv_posted && p->q[0][0].recv_posted == MRC_MAX_RQ);
    SC_CHECK(p, last_a < p->q[0][0].t_conn_err); /* nothing sent at or after the error */
    /* a little longer: still silent */
    p->stop = NULL;
    p->hold = 1;
    (void)sc_run_until(p, sc_now(p) + 100 * SC_MS);
    SC_CHECK(p, !p->fail);
    SC_CHECK(p, o.t[o.n - 1] == last_a);
    SC_CHECK(p, mrc_conn_state(p->q[1][0].c) == MRC_QPS_RTS && sc_estats(p, 1).rx_pkts == 0);
    {
        mrc_write w;
        memset(&w, 0, sizeof w);
        SC_CHECK(p, mrc_conn_post_write(p->q[0][0].c, &w, sc_now(p)) == MRC_ERR_STATE);
    }
    sc_free(p);

    /* retry_exp = 25: never exhausted; waits double up to the 2^24 * 1.024 us cap and stay there */
    sc_defaults(p, g_seed + 501);
    p->attr[0].timeout = 1;
    p->attr[0].retry_linear = 0;
    p->attr[0].retry_exp = 25;
    p->stop = sc_stop_rto30;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_txlog_tap;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, false) == MRC_OK);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 4096, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, 400 * SC_SEC) == 1);
    n = sc_check_schedule(&o, 0, 1, 0, &g, &np);
    SC_CHECKF(p, n == 30, "%d expiries matched", n);
    SC_CHECK(p, mrc_conn_state(p->q[0][0].c) == MRC_QPS_RTS && p->q[0][0].n_conn_err == 0);
    SC_CHECK(p, sc_now(p) > 100 * SC_SEC);
    note("retry_exp 25: 30 expiries in %.1f s virtual, no error; %u probes", (double)sc_now(p) / 1e9, np);
    /* the link comes back after 137 s: the next probe finds the hole, the write completes long before the next
     * 17 s expiry */
    {
        mrc_time t_up = sc_now(p);
        SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, true) == MRC_OK);
        p->stop = NULL;
        SC_CHECK(p, sc_run_until(p, t_up + SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        SC_CHECK(p, p->q[0][0].msg[0].t_done - t_up < 50 * SC_MS);
        SC_CHECK(p, sc_cstats(p, 0, 0).rto_fired == 30 && sc_cstats(p, 0, 0).rtx_probe_loss >= 1);
        note("link back: write completed %.2f ms later", (double)(p->q[0][0].msg[0].t_done - t_up) / 1e6);
    }
    return 0;
}
SC_TEST(t_sc_retry_exhaust, sc_retry_exhaust_body)
/* ---- 6. PSN wrap across 2^24 ---------------------------------------------------------------------------------- */
typedef struct sc_wrap {
    uint32_t high[2], low[2];
} sc_wrap;
static void sc_wrap_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_wrap *o = (sc_wrap *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (!sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    if (k.bth.psn >= 0xFFFF00u) o->high[from]++;
    if (k.bth.psn < 0x10000u) o->low[from]++;
}
static int sc_psn_wrap_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    sc_wrap o;
    int s;
    sc_defaults(p, g_seed + 600);
    p->region = 4u << 20;
    p->attr[0].path_mtu = p->attr[1].path_mtu = 1024;
    p->attr[0].sq_psn = 0xFFFF00u;
    p->attr[1].sq_psn = 0xFFFFF0u;
    mrc_wire_link_default(&l);
    l.delay_ns = 2000;
    l.jitter_ns = 3000;
    l.loss_ppm = 10000;
    l.dup_ppm = 5000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_wrap_tap;
    SC_CHECK(p, sc_start(p) == 0);
    r.s = g_seed ^ 0x6666;
    for (s = 0; s < 2; s++) {
        SC_CHECK(p, sc_add(p, s, 0, 0, 1u << 20, MRC_WR_WRITE_IMM, 7) == 0);
        SC_CHECK(p, sc_plan_random(p, s, 0, 12, 1u << 20, 50, &r) == 0);
        SC_CHECK(p, sc_add(p, s, 0, 3u << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    }
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    for (s = 0; s < 2; s++) {
        SC_CHECKF(p, o.high[s] > 0 && o.low[s] > 1000, "side %d: %u packets below the wrap, %u after", s, o.high[s],
                  o.low[s]);
        SC_CHECK(p, sc_cstats(p, s, 0).tx_rtx > 0);
    }
    note("A sent %u data packets at PSN >= 0xFFFF00 and %u after the wrap; B %u / %u", o.high[0], o.low[0], o.high[1],
         o.low[1]);
    return 0;
}
SC_TEST(t_sc_psn_wrap, sc_psn_wrap_body)

/* ---- 7. tail loss: the last packets of a message dropped once -> probe, not RTO -------------------------------- */
typedef struct sc_tail {
    uint32_t lo, hi, dropped, armed, probes, probe_bad_psn;
    mrc_time t_drop;
} sc_tail;
static void sc_tail_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_tail *o = (sc_tail *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from != 0 || !o->armed || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_PROBE_REQ) return;
    o->probes++;
    if (k.bth.psn != mrc_psn_add(o->hi, 1)) o->probe_bad_psn++; /* Q21: the next unsent PSN, not consumed */
}
static int sc_tail_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_tail *o = (sc_tail *)p->ud;
    mrc_pkt k;
    (void)ti;
    if (!o->armed || from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode) || k.bth.rtx) return 0;
    if (mrc_psn_diff(k.bth.psn, o->lo) < 0 || mrc_psn_diff(k.bth.psn, o->hi) > 0) return 0;
    o->dropped++;
    o->t_drop = now;
    return 1;
}
static int sc_tail_loss_body(sc_pair *p) {
    sc_tail o;
    unsigned ndrop;
    for (ndrop = 1; ndrop <= 3; ndrop += 2) {
        mrc_conn_stats cs;
        mrc_time rec;
        uint32_t first;
        sc_defaults(p, g_seed + 700 + ndrop);
        p->attr[0].timeout = 14; /* RTO 16.8 ms: far away */
        p->cfg[0].ev_sweep = 0; /* every PROBE_REQ counted here is a tail-loss probe (P35's are PROBE_REQs too) */
        memset(&o, 0, sizeof o);
        p->ud = &o;
        p->filter = sc_tail_filter;
        p->tap = sc_tail_tap;
        SC_CHECK(p, sc_start(p) == 0);
        SC_CHECK(p, sc_add(p, 0, 0, 0, 65536, MRC_WR_WRITE, 0) == 0); /* warm-up: 16 packets, RTT samples */
        SC_CHECK(p, sc_run_until(p, 10 * SC_MS) == 1);
        first = mrc_psn_add(p->attr[0].sq_psn, 16);
        o.hi = mrc_psn_add(first, 63); /* the next message is 64 packets; drop its last ndrop once */
        o.lo = mrc_psn_add(o.hi, -(int32_t)(ndrop - 1u));
        o.armed = 1;
        SC_CHECK(p, sc_add(p, 0, 0, 65536, 262144, MRC_WR_WRITE_IMM, 0x7A11u) == 0);
        SC_CHECK(p, sc_run_until(p, sc_now(p) + 10 * SC_MS) == 1);
        if (sc_check_clean(p)) return 1;
        cs = sc_cstats(p, 0, 0);
        rec = p->q[0][0].msg[1].t_done - o.t_drop;
        SC_CHECK(p, o.dropped == ndrop);
        SC_CHECKF(p, cs.rto_fired == 0 && cs.tlp_fired >= 1 && cs.tx_probes >= 1, "rto %llu tlp %llu",
                  (unsigned long long)cs.rto_fired, (unsigned long long)cs.tlp_fired);
        SC_CHECK(p, cs.rtx_probe_loss == ndrop && cs.tx_rtx == ndrop);
        SC_CHECK(p, o.probes == cs.tx_probes && o.probe_bad_psn == 0);
        SC_CHECKF(p, rec < 100 * SC_US, "recovery took %llu ns", (unsigned long long)rec);
        note("tail loss of %u packet(s): recovered by %llu probe(s) in %.2f us (RTO would be 16777 us)", ndrop,
             (unsigned long long)cs.tx_probes, (double)rec / 1e3);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_tail_loss, sc_tail_loss_body)

/* ---- 8. trimming: every trim draws a NACK TRIMMED and a retransmission on another EV -------------------------- */
#define SC_TRIM_PKTS 4096
typedef struct sc_trim {
    uint32_t base;
    uint8_t port[SC_TRIM_PKTS];
    uint32_t rtx, rtx_same_port, rtx_bad_class, nacks, nack_other;
} sc_trim;
static void sc_trim_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_trim *o = (sc_trim *)p->ud;
    mrc_pkt k;
    uint32_t i;
    (void)now;
    if (!sc_decode(p, pkt, len, &k)) return;
    if (from == 1) {
        if (k.bth.opcode == MRC_OP_NACK) {
            o->nacks++;
            if (k.neth.nack_reason != MRC_NACK_TRIMMED) o->nack_other++;
        }
        return;
    }
    if (!sc_is_data(k.bth.opcode)) return;
    i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
    if (i >= SC_TRIM_PKTS) return;
    if (k.bth.rtx) {
        o->rtx++;
        if (o->port[i] == ti->port) o->rtx_same_port++;
        if (ti->dscp_class != MRC_DSCP_TRIMMABLE_RETX) o->rtx_bad_class++;
    }
    o->port[i] = ti->port;
}
static int sc_trim_body(sc_pair *p) {
    static sc_trim o;
    mrc_wire_link l;
    mrc_wire_stats w;
    mrc_conn_stats a, b;
    unsigned i;
    sc_defaults(p, g_seed + 800);
    p->region = 4u << 20;
    /* one EV per port: "another EV" is then visible as another port */
    p->cfg[0].evs_per_port = 1;
    mrc_wire_link_default(&l);
    sc_set_links(p, MRC_WIRE_B, &l);
    l.trim_ppm = 30000;
    sc_set_links(p, MRC_WIRE_A, &l);
    memset(&o, 0, sizeof o);
    o.base = p->attr[0].sq_psn;
    p->ud = &o;
    p->tap = sc_trim_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, i & 1u, i) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    w = sc_wstats(p, MRC_WIRE_A);
    a = sc_cstats(p, 0, 0);
    b = sc_cstats(p, 1, 0);
    SC_CHECK(p, w.trim > 8);
    SC_CHECKF(p, b.rx_trimmed == w.trim && b.tx_nack == w.trim && o.nacks == w.trim && o.nack_other == 0,
              "trims %llu rx_trimmed %llu tx_nack %llu nacks seen %u", (unsigned long long)w.trim,
              (unsigned long long)b.rx_trimmed, (unsigned long long)b.tx_nack, o.nacks);
    SC_CHECK(p, sc_estats(p, 1).drop[MRC_DROP_TRIMMED] == w.trim);
    SC_CHECK(p, a.rx_nack == w.trim && a.rx_nack_reason[MRC_NACK_TRIMMED] == w.trim && a.ev_trims == w.trim);
    SC_CHECKF(p, a.rtx_nack == w.trim && a.tx_rtx == w.trim && o.rtx == w.trim,
              "trims %llu, rtx_nack %llu tx_rtx %llu (hole %llu rto %llu probe %llu)", (unsigned long long)w.trim,
              (unsigned long long)a.rtx_nack, (unsigned long long)a.tx_rtx, (unsigned long long)a.rtx_sack_hole,
              (unsigned long long)a.rtx_rto, (unsigned long long)a.rtx_probe_loss);
    SC_CHECK(p, o.rtx_same_port == 0 && o.rtx_bad_class == 0);
    SC_CHECK(p, b.rx_dup == 0);
    note("%llu trims of %llu data packets: %u NACKs TRIMMED, %u retransmissions, all on another port",
         (unsigned long long)w.trim, (unsigned long long)a.tx_data, o.nacks, o.rtx);
    return 0;
}
SC_TEST(t_sc_trim, sc_trim_body)

/* ---- 9. MPR window and the fixed CC window --------------------------------------------------------------------- */
typedef struct sc_mpr {
    uint32_t cack_max;
    int32_t max_ahead;
    uint32_t over, checked, sacks, mpr_bad;
} sc_mpr;
static void sc_mpr_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_mpr *o = (sc_mpr *)p->ud;
    mrc_pkt k;
    (void)ri;
    (void)now;
    if (to != 0 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK) return;
    if (mrc_psn_diff(k.seth.cack_psn, o->cack_max) > 0) o->cack_max = k.seth.cack_psn;
    o->sacks++;
    if (k.seth.mpr != p->attr[1].mpr_dest) o->mpr_bad++; /* Q9: advertised with MRC_CAP_DYNAMIC_MPR */
}
static void sc_mpr_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_mpr *o = (sc_mpr *)p->ud;
    mrc_pkt k;
    int32_t d;
    (void)ti;
    (void)now;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    d = mrc_psn_diff(k.bth.psn, o->cack_max);
    o->checked++;
    if (d > o->max_ahead) o->max_ahead = d;
    if (d > (int32_t)p->attr[0].mpr * 128) o->over++;
}
static int sc_mpr_body(sc_pair *p) {
    mrc_wire_link l;
    sc_mpr o;
    unsigned i;
    sc_defaults(p, g_seed + 900);
    p->region = 4u << 20;
    p->attr[0].path_mtu = p->attr[1].path_mtu = 1024;
    p->attr[0].mpr = 1;       /* the requester may run 128 PSNs past the latest cack */
    p->attr[1].mpr_dest = 4;  /* the responder accepts more, so the requester's window is what binds */
    p->attr[0].caps = p->attr[1].caps = MRC_CAP_DYNAMIC_MPR; /* advertised, and ignored by the requester (Q9) */
    mrc_wire_link_default(&l);
    l.delay_ns = 4000;
    sc_set_links(p, MRC_WIRE_B, &l);
    l.jitter_ns = 1000;
    l.loss_ppm = 20000;
    sc_set_links(p, MRC_WIRE_A, &l);
    memset(&o, 0, sizeof o);
    o.cack_max = mrc_psn_add(p->attr[0].sq_psn, -1);
    p->ud = &o;
    p->tap = sc_mpr_tap;
    p->rx = sc_mpr_rx;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECKF(p, o.over == 0 && o.max_ahead == 128, "%u packets beyond cack + 128, furthest cack + %d", o.over,
              o.max_ahead);
    SC_CHECK(p, sc_wstats(p, MRC_WIRE_A).drop_loss > 0 && sc_cstats(p, 1, 0).rx_oor == 0);
    SC_CHECK(p, o.sacks > 1000 && o.mpr_bad == 0);
    note("mpr 1: %u data packets checked, furthest at cack + %d", o.checked, o.max_ahead);
    return 0;
}
SC_TEST(t_sc_mpr_window, sc_mpr_body)

/* fixed_cwnd_bytes: nominal bytes in flight (first transmissions not yet covered by a SACK) never exceed cwnd,
 * except that one packet may always go when nothing is in flight. Clean link, so the outside view is exact. */
#define SC_CWND_PKTS 4096
typedef struct sc_cwnd {
    uint32_t base, n_acked;
    uint16_t nominal[SC_CWND_PKTS];
    uint8_t sent[SC_CWND_PKTS], acked[SC_CWND_PKTS];
    uint64_t inflight, max_inflight;
    uint32_t over, solo, sends, max_pkts, pkts;
} sc_cwnd;
static void sc_cwnd_ack(sc_cwnd *o, uint32_t psn) {
    uint32_t i = (uint32_t)mrc_psn_diff(psn, o->base);
    if (i >= SC_CWND_PKTS || !o->sent[i] || o->acked[i]) return;
    o->acked[i] = 1;
    o->inflight -= o->nominal[i];
    o->pkts--;
}
static void sc_cwnd_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_cwnd *o = (sc_cwnd *)p->ud;
    mrc_pkt k;
    uint32_t psn, i;
    (void)ri;
    (void)now;
    if (to != 0 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK) return;
    for (psn = o->base; mrc_psn_diff(psn, k.seth.cack_psn) <= 0 && (uint32_t)mrc_psn_diff(psn, o->base) < SC_CWND_PKTS;
         psn = mrc_psn_add(psn, 1))
        sc_cwnd_ack(o, psn);
    for (i = 0; i < 64; i++)
        if ((k.seth.sack_bitmap >> i) & 1u)
            sc_cwnd_ack(o, mrc_psn_add(k.seth.cack_psn, k.seth.sack_offset + (int32_t)i));
}
static void sc_cwnd_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_cwnd *o = (sc_cwnd *)p->ud;
    mrc_pkt k;
    uint32_t i, nominal = (uint32_t)len + 4u + MRC_NOMINAL_HDR;
    (void)ti;
    (void)now;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
    if (i >= SC_CWND_PKTS || k.bth.rtx || o->sent[i]) return;
    o->sends++;
    if (o->inflight == 0) o->solo++;
    else if (o->inflight + nominal > p->cfg[0].fixed_cwnd_bytes) o->over++;
    o->sent[i] = 1;
    o->nominal[i] = (uint16_t)nominal;
    o->inflight += nominal;
    o->pkts++;
    if (o->inflight > o->max_inflight) o->max_inflight = o->inflight;
    if (o->pkts > o->max_pkts) o->max_pkts = o->pkts;
}
static int sc_cwnd_body(sc_pair *p) {
    static sc_cwnd o;
    unsigned pass;
    for (pass = 0; pass < 2; pass++) {
        uint32_t cwnd = pass ? 1000u : 32768u; /* pass 1: smaller than one packet */
        mrc_conn_stats cs;
        unsigned i;
        sc_defaults(p, g_seed + 950 + pass);
        p->region = 2u << 20;
        p->cfg[0].cc_algo = MRC_CC_ALGO_FIXED;
        p->cfg[0].fixed_cwnd_bytes = cwnd;
        memset(&o, 0, sizeof o);
        o.base = p->attr[0].sq_psn;
        p->ud = &o;
        p->tap = sc_cwnd_tap;
        p->rx = sc_cwnd_rx;
        SC_CHECK(p, sc_start(p) == 0);
        for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, MRC_WR_WRITE, 0) == 0);
        SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        cs = sc_cstats(p, 0, 0);
        SC_CHECK(p, cs.tx_rtx == 0 && o.sends == cs.tx_data && o.sends == 512);
        SC_CHECKF(p, o.over == 0, "%u sends beyond cwnd %u", o.over, cwnd);
        if (pass == 0) {
            /* the window binds: within one packet of cwnd, never above it */
            SC_CHECKF(p, o.max_inflight <= cwnd && o.max_inflight + 4200u > cwnd, "max in flight %llu",
                      (unsigned long long)o.max_inflight);
        } else {
            SC_CHECK(p, o.max_pkts == 1 && o.solo == o.sends);
        }
        note("cwnd %u: max %llu nominal bytes (%u packets) in flight", cwnd, (unsigned long long)o.max_inflight,
             o.max_pkts);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_cwnd, sc_cwnd_body)
/* ---- 10. SACK policy (Q6, P7) ------------------------------------------------------------------------------------ */
static int sc_sack_count_body(sc_pair *p) {
    unsigned pass;
    for (pass = 0; pass < 2; pass++) {
        uint16_t every = pass ? 8 : 1;
        uint64_t pkts = 512, msgs = 8, n;
        unsigned i;
        sc_defaults(p, g_seed + 1000 + pass);
        sc_set_ports(p, 1); /* one path: arrivals in order, so only the count and the a bit trigger SACKs */
        p->region = 2u << 20;
        p->cfg[1].sack_every = every;
        SC_CHECK(p, sc_start(p) == 0);
        for (i = 0; i < msgs; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 18, 1u << 18, MRC_WR_WRITE, 0) == 0);
        SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        n = sc_cstats(p, 1, 0).tx_sack;
        SC_CHECK(p, sc_cstats(p, 0, 0).tx_data == pkts && sc_cstats(p, 0, 0).tx_rtx == 0);
        SC_CHECK(p, sc_cstats(p, 0, 0).rx_sack == n);
        if (every == 1) SC_CHECKF(p, n == pkts, "%llu SACKs for %llu packets", (unsigned long long)n,
                                  (unsigned long long)pkts);
        else SC_CHECKF(p, n >= pkts / every && n <= pkts / every + msgs, "%llu SACKs for %llu packets, every %u",
                       (unsigned long long)n, (unsigned long long)pkts, every);
        note("sack_every %u: %llu SACKs for %llu in-order packets", every, (unsigned long long)n,
             (unsigned long long)pkts);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_sack_every, sc_sack_count_body)

/* With sack_every 16, a SACK still goes at once (within the 100 ns the NIC needs for what is queued before it, and
 * naming the packet) for the a bit, an out-of-order arrival, a retransmission (which also fills the hole), a
 * duplicate and a CE mark (then with m = SKIP_ONCE). */
#define SC_EXP_MAX 256
typedef struct sc_sackimm {
    uint32_t base, drop_psn, dropped, cack, got[128];
    uint32_t nexp, plain_arrivals, sacks, skip_sacks;
    uint32_t exp_psn[SC_EXP_MAX];
    mrc_time exp_t[SC_EXP_MAX];
    uint8_t exp_why[SC_EXP_MAX], exp_ok[SC_EXP_MAX], exp_skip[SC_EXP_MAX];
} sc_sackimm;
static int sc_sackimm_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                             mrc_time now) {
    sc_sackimm *o = (sc_sackimm *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from != 0 || o->dropped || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return 0;
    if (k.bth.psn != o->drop_psn) return 0;
    o->dropped = 1;
    return 1;
}
static void sc_sackimm_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_sackimm *o = (sc_sackimm *)p->ud;
    mrc_pkt k;
    uint32_t i, old = o->cack;
    unsigned why = 0;
    if (to != 1 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
    if (i >= 128) return;
    if (ri->ecn == 3) why |= 32; /* CE: immediate, m = SKIP_ONCE */
    if (o->got[i]) {
        why |= 16; /* duplicate */
    } else {
        o->got[i] = 1;
        while (o->cack < 128 && o->got[o->cack]) o->cack++;
    }
    if (k.bth.a) why |= 1;
    if (k.bth.rtx) why |= 2;
    if (!(why & 16) && i != old) why |= 4; /* not the next expected PSN */
    if (o->cack - old > 1) why |= 8;       /* fills a hole */
    if (!why) {
        o->plain_arrivals++;
        return;
    }
    if (o->nexp < SC_EXP_MAX) {
        o->exp_psn[o->nexp] = k.bth.psn;
        o->exp_t[o->nexp] = now;
        o->exp_why[o->nexp] = (uint8_t)why;
        o->nexp++;
    }
}
static void sc_sackimm_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                           mrc_time now) {
    sc_sackimm *o = (sc_sackimm *)p->ud;
    mrc_pkt k;
    uint32_t i, named;
    (void)ti;
    if (from != 1 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK) return;
    if (k.seth.m == MRC_M_SKIP_ONCE) o->skip_sacks++;
    if (k.seth.pr) return; /* answers a probe, not an arrival: outside the coalescing rule */
    o->sacks++;
    named = mrc_psn_add(k.seth.cack_psn, k.seth.ack_psn_offset);
    for (i = 0; i < o->nexp; i++)
        if (o->exp_psn[i] == named && now >= o->exp_t[i] && now - o->exp_t[i] <= 100u) { /* NIC gate: a few ns */
            o->exp_ok[i] = 1;
            if (k.seth.m == MRC_M_SKIP_ONCE) o->exp_skip[i] = 1;
        }
}
static int sc_sack_immediate_body(sc_pair *p) {
    static sc_sackimm o;
    uint32_t i, seen = 0;
    sc_defaults(p, g_seed + 1010);
    sc_set_ports(p, 1);
    p->cfg[1].sack_every = 16;
    {
        mrc_wire_link l;
        mrc_wire_link_default(&l);
        sc_set_links(p, MRC_WIRE_B, &l);
        l.dup_ppm = 100000; /* copies arrive with their original (no jitter): the SACK names the same packet */
        l.ce_ppm = 150000;
        sc_set_links(p, MRC_WIRE_A, &l);
    }
    memset(&o, 0, sizeof o);
    o.base = p->attr[0].sq_psn;
    o.drop_psn = mrc_psn_add(o.base, 20);
    p->ud = &o;
    p->filter = sc_sackimm_filter;
    p->rx = sc_sackimm_rx;
    p->tap = sc_sackimm_tap;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 64u * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, o.dropped == 1 && o.cack == 64);
    for (i = 0; i < o.nexp; i++) {
        SC_CHECKF(p, o.exp_ok[i], "arrival of psn %#x (why %u) at %llu ns drew no immediate SACK naming it",
                  o.exp_psn[i], o.exp_why[i], (unsigned long long)o.exp_t[i]);
        /* Q27: a CE arrival's SACK carries SKIP_ONCE (a copy arriving with it may draw a plain one as well) */
        SC_CHECKF(p, !(o.exp_why[i] & 32) || o.exp_skip[i], "CE arrival of psn %#x drew no SKIP_ONCE SACK",
                  o.exp_psn[i]);
        seen |= o.exp_why[i];
    }
    SC_CHECKF(p, seen == 63, "triggers seen %#x (want a, rtx, out of order, hole filled, dup, CE)", seen);
    /* the requester counts every SKIP_ONCE it receives (let the last acknowledgements land first). The silent drop
     * made its EV ASSUMED_BAD; probes revive it, and then the wire goes quiet */
    p->stop = sc_stop_never;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + 5 * SC_MS) == 0 && mrc_wire_inflight(&p->w) == 0);
    SC_CHECKF(p, p->q[0][0].n_ev_bad == 1 && p->q[0][0].n_ev_good == 1, "EV events: %u ASSUMED_BAD, %u GOOD",
              p->q[0][0].n_ev_bad, p->q[0][0].n_ev_good);
    SC_CHECKF(p, o.skip_sacks > 0 && sc_cstats(p, 0, 0).ev_skip_req == o.skip_sacks, "skip_sacks %u ev_skip_req %llu",
              o.skip_sacks, (unsigned long long)sc_cstats(p, 0, 0).ev_skip_req);
    SC_CHECK(p, sc_cstats(p, 1, 0).rx_dup > 0);
    /* the other arrivals are coalesced: at most one SACK per 16 of them (plus the timer at the edges) */
    SC_CHECKF(p, o.sacks <= o.nexp + o.plain_arrivals / 16u + 2u, "%u SACKs, %u forced, %u plain arrivals", o.sacks,
              o.nexp, o.plain_arrivals);
    return 0;
}
SC_TEST(t_sc_sack_immediate, sc_sack_immediate_body)

/* sack_delay_ns: in-order packets without the a bit wait; the timer's SACK names the latest of them */
typedef struct sc_sacktimer {
    mrc_time t_first, t_sack;
    uint32_t arrivals, sacks, named, cack;
} sc_sacktimer;
static void sc_sacktimer_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_sacktimer *o = (sc_sacktimer *)p->ud;
    mrc_pkt k;
    (void)ri;
    if (to != 1 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    if (o->arrivals++ == 0) o->t_first = now;
}
static void sc_sacktimer_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                             mrc_time now) {
    sc_sacktimer *o = (sc_sacktimer *)p->ud;
    mrc_pkt k;
    (void)ti;
    if (from != 1 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK) return;
    if (o->sacks++ == 0) {
        o->t_sack = now;
        o->named = mrc_psn_add(k.seth.cack_psn, k.seth.ack_psn_offset);
        o->cack = k.seth.cack_psn;
    }
}
static int sc_sack_timer_body(sc_pair *p) {
    sc_sacktimer o;
    uint32_t last;
    sc_defaults(p, g_seed + 1020);
    sc_set_ports(p, 1);
    p->cfg[0].ack_req_every = 1000; /* no a bit on the last packet */
    p->cfg[1].sack_every = 100;
    p->cfg[1].sack_delay_ns = 7000;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->rx = sc_sacktimer_rx;
    p->tap = sc_sacktimer_tap;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 3u * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    last = mrc_psn_add(p->attr[0].sq_psn, 2);
    SC_CHECK(p, o.arrivals == 3 && o.sacks == 1 && sc_cstats(p, 1, 0).tx_sack == 1);
    SC_CHECKF(p, o.t_sack == o.t_first + 7000u, "SACK at %llu, first arrival %llu", (unsigned long long)o.t_sack,
              (unsigned long long)o.t_first);
    SC_CHECK(p, o.named == last && o.cack == last);
    SC_CHECK(p, sc_cstats(p, 0, 0).tlp_fired == 0 && sc_cstats(p, 0, 0).tx_rtx == 0);
    return 0;
}
SC_TEST(t_sc_sack_timer, sc_sack_timer_body)

/* ---- 11. determinism -------------------------------------------------------------------------------------------- */
static int sc_det_run(sc_pair *p, uint64_t seed, uint64_t *trace, uint64_t *stats) {
    int s;
    uint64_t h = 0xCBF29CE484222325ull;
    if (sc_bulk_setup(p, seed, 16, 2u << 20, 0) != 0) return -1;
    p->hash_on = 1;
    if (sc_run_until(p, SC_SEC) != 1 || sc_check_clean(p)) return -1;
    for (s = 0; s < 2; s++) {
        mrc_conn_stats cs = sc_cstats(p, s, 0);
        mrc_endpoint_stats es = sc_estats(p, s);
        mrc_wire_stats ws = sc_wstats(p, s);
        h = sc_fnv(h, &cs, sizeof cs);
        h = sc_fnv(h, &es, sizeof es);
        h = sc_fnv(h, &ws, sizeof ws);
    }
    {
        mrc_time t = sc_now(p);
        h = sc_fnv(h, &t, sizeof t);
    }
    *trace = p->hash;
    *stats = h;
    return 0;
}
static int sc_determinism_body(sc_pair *p) {
    uint64_t t1, s1, t2, s2, t3, s3, pk1;
    SC_CHECK(p, sc_det_run(p, g_seed + 1100, &t1, &s1) == 0);
    pk1 = p->ntx[0] + p->ntx[1];
    sc_free(p);
    SC_CHECK(p, sc_det_run(p, g_seed + 1100, &t2, &s2) == 0);
    SC_CHECK(p, p->ntx[0] + p->ntx[1] == pk1);
    sc_free(p);
    SC_CHECK(p, sc_det_run(p, g_seed + 1101, &t3, &s3) == 0);
    SC_CHECKF(p, t1 == t2 && s1 == s2, "same seed: trace %016llx vs %016llx, stats %016llx vs %016llx",
              (unsigned long long)t1, (unsigned long long)t2, (unsigned long long)s1, (unsigned long long)s2);
    SC_CHECK(p, t3 != t1 && s3 != s1);
    note("%llu packets hashed: trace %016llx reproduced; next seed %016llx", (unsigned long long)pk1,
         (unsigned long long)t1, (unsigned long long)t3);
    return 0;
}
SC_TEST(t_sc_determinism, sc_determinism_body)

/* ---- 12. several connections share the endpoint fairly ------------------------------------------------------- */
typedef struct sc_fair {
    uint64_t tx[2][SC_MAXQ], first[2][SC_MAXQ], all[2][SC_MAXQ];
    int snap[2];
    uint64_t lo[2], hi[2], alo[2], ahi[2];
} sc_fair;
static void sc_fair_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_fair *o = (sc_fair *)p->ud;
    mrc_pkt k;
    unsigned q, j;
    (void)now;
    q = sc_qidx(p, from, ti->qpn);
    if (q >= p->nq) return;
    o->all[from][q]++;
    if (!sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    o->tx[from][q]++;
    if (!k.bth.rtx) o->first[from][q]++;
    /* the first time one connection has sent its whole plan, all of them were backlogged until now */
    if (!o->snap[from] && o->first[from][q] == p->q[from][q].npkts) {
        o->snap[from] = 1;
        o->lo[from] = o->hi[from] = o->tx[from][0];
        o->alo[from] = o->ahi[from] = o->all[from][0];
        for (j = 1; j < p->nq; j++) {
            if (o->tx[from][j] < o->lo[from]) o->lo[from] = o->tx[from][j];
            if (o->tx[from][j] > o->hi[from]) o->hi[from] = o->tx[from][j];
            if (o->all[from][j] < o->alo[from]) o->alo[from] = o->all[from][j];
            if (o->all[from][j] > o->ahi[from]) o->ahi[from] = o->all[from][j];
        }
    }
}
static int sc_multi_conn_body(sc_pair *p) {
    mrc_wire_link l;
    sc_fair o;
    int s;
    unsigned q, i;
    sc_defaults(p, g_seed + 1200);
    p->nq = 4;
    /* P35's verification probes are requester work and take data turns after a confirmed loss, which the bound below
     * (data packets, 2% of slack for retransmissions) does not count: the round-robin is measured without them */
    p->cfg[0].ev_sweep = p->cfg[1].ev_sweep = 0;
    p->region = 16u << 20;
    mrc_wire_link_default(&l);
    l.loss_ppm = 5000;
    l.jitter_ns = 500;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_fair_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (s = 0; s < 2; s++)
        for (q = 0; q < 4; q++)
            for (i = 0; i < 8; i++)
                SC_CHECK(p, sc_add(p, s, q, i << 19, 1u << 19, (i + q) & 1u, (uint32_t)(s * 100 + (int)q)) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    for (s = 0; s < 2; s++) {
        /* P7: control packets go first; requester work is served round-robin one packet per turn, so backlogged
         * connections share data turns equally, however many SACKs each owes (a connection at its MPR edge skips
         * turns, and retransmissions count too: 2% of slack) */
        SC_CHECK(p, o.snap[s]);
        SC_CHECKF(p, o.hi[s] - o.lo[s] <= o.lo[s] / 50u, "side %d: per-connection data packets %llu..%llu while backlogged",
                  s, (unsigned long long)o.lo[s], (unsigned long long)o.hi[s]);
        for (q = 0; q < 4; q++) SC_CHECK(p, sc_cstats(p, s, q).msgs_done == 8);
        note("side %d: 4 QPs sent %llu..%llu packets, %llu..%llu of them data, while all were backlogged", s,
             (unsigned long long)o.alo[s], (unsigned long long)o.ahi[s], (unsigned long long)o.lo[s],
             (unsigned long long)o.hi[s]);
    }
    return 0;
}
SC_TEST(t_sc_multi_conn, sc_multi_conn_body)

/* ---- 12b. the in-flight pool: more QPs want memory than there is (IN-FLIGHT MEMORY in mrc.h) --------------- */
/* Eight QPs per side, each with a 1,024-PSN window (16 blocks of 64 PSNs), share a pool of 6 blocks on each
 * endpoint, over a lossy, jittery wire. Every transfer completes bit-exact, no QP errs or stalls (liveness: a QP
 * waiting for a block with nothing in flight is handed the next block freed), QPs really waited, the pool never
 * held more blocks than it has, and once everything is acknowledged every block is back (an idle QP holds none). */
static int sc_pool_share_body(sc_pair *p) {
    mrc_wire_link l;
    int s;
    unsigned q, i;
    { /* mrc_config.pool_blocks: 0 (all), 1..MRC_POOL_BLOCKS; more is refused with its detail */
        mrc_endpoint *ep = (mrc_endpoint *)calloc(1, sizeof *ep);
        mrc_config cfg;
        mrc_endpoint_stats es;
        mrc_detail why;
        SC_CHECK(p, ep != NULL);
        mrc_config_default(&cfg);
        cfg.pool_blocks = (uint32_t)MRC_POOL_BLOCKS + 1u;
        SC_CHECK(p, mrc_endpoint_init(ep, &cfg, 0) == MRC_ERR_INVAL);
        SC_CHECK(p, mrc_endpoint_last_error(ep, &why) == MRC_OK && why.code == MRC_DETAIL_CFG_POOL_BLOCKS);
        cfg.pool_blocks = 0;
        SC_CHECK(p, mrc_endpoint_init(ep, &cfg, 0) == MRC_OK);
        mrc_endpoint_stats_get(ep, &es);
        SC_CHECK(p, es.pool_blocks == MRC_POOL_BLOCKS && es.pool_in_use == 0);
        free(ep);
    }
    sc_defaults(p, g_seed + 1250);
    p->nq = 8;
    p->region = 16u << 20;
    for (s = 0; s < 2; s++) p->cfg[s].pool_blocks = 6;
    mrc_wire_link_default(&l);
    l.loss_ppm = 5000;
    l.jitter_ns = 500;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    SC_CHECK(p, sc_start(p) == 0);
    for (s = 0; s < 2; s++)
        for (q = 0; q < p->nq; q++)
            for (i = 0; i < 4; i++)
                SC_CHECK(p, sc_add(p, s, q, i << 19, 1u << 19, (i + q) & 1u, (uint32_t)(s * 100 + (int)q)) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    /* then half the QPs send once more: every block is retained now, so each one they take is reclaimed (or handed
     * over) */
    for (s = 0; s < 2; s++)
        for (q = 1; q < p->nq; q += 2) SC_CHECK(p, sc_add(p, s, q, 0, 1u << 19, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    for (s = 0; s < 2; s++) {
        mrc_endpoint_stats es = sc_estats(p, s);
        uint64_t waits = 0;
        for (q = 0; q < p->nq; q++) {
            SC_CHECK(p, sc_cstats(p, s, q).msgs_done == 4u + (q & 1u));
            waits += sc_cstats(p, s, q).pool_waits;
        }
        SC_CHECKF(p, es.pool_waits > 0 && es.pool_waits == waits, "side %d: pool_waits %llu, per QP %llu", s,
                  (unsigned long long)es.pool_waits, (unsigned long long)waits);
        SC_CHECK(p, es.pool_blocks == 6 && es.pool_peak == 6 && es.pool_in_use == 0 && es.pool_retained <= 6);
        /* acknowledged blocks are retained (late SACKs still find their records) until a QP needs one */
        SC_CHECKF(p, es.pool_reclaims > 0, "side %d: no retained block was ever reclaimed", s);
        note("side %d: 8 QPs over 6 blocks: %llu waits, %llu hand-offs, %llu reclaims, %u retained at the end", s,
             (unsigned long long)es.pool_waits, (unsigned long long)es.pool_handoffs,
             (unsigned long long)es.pool_reclaims, es.pool_retained);
    }
    return 0;
}
SC_TEST(t_sc_pool_share, sc_pool_share_body)

/* Retained blocks are memory a QP with work may take: QP 0 sends 192 packets over a pool of 3 blocks, so once it is
 * acknowledged every block is retained (none free, none never used). QP 1 then sends as much: it must reclaim the
 * oldest retained blocks from QP 0 (which keeps no record of those PSNs), never wait for a block nobody will free. */
static int sc_pool_reclaim_body(sc_pair *p) {
    mrc_endpoint_stats es;
    uint64_t r0;
    unsigned q;
    int s;
    sc_defaults(p, g_seed + 1260);
    p->nq = 2;
    p->region = 4u << 20;
    for (s = 0; s < 2; s++) p->cfg[s].pool_blocks = 3;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 192u * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    es = sc_estats(p, 0);
    SC_CHECKF(p, es.pool_in_use == 0 && es.pool_retained == 3, "after QP 0: %u in use, %u retained",
              es.pool_in_use, es.pool_retained);
    r0 = es.pool_reclaims; /* QP 0's fourth block was its own oldest */
    SC_CHECK(p, sc_add(p, 0, 1, 0, 192u * 4096u, MRC_WR_WRITE_IMM, 0x5EC1u) == 0);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    es = sc_estats(p, 0);
    SC_CHECKF(p, es.pool_in_use == 0 && es.pool_retained == 3 && es.pool_reclaims >= r0 + 3u && es.pool_peak <= 3,
              "after QP 1: %u in use, %u retained, %llu reclaims, peak %u", es.pool_in_use, es.pool_retained,
              (unsigned long long)es.pool_reclaims, es.pool_peak);
    for (q = 0; q < 2; q++) SC_CHECK(p, mrc_conn_check(p->q[0][q].c) == 0);
    note("QP 1 over QP 0's retained blocks: %llu reclaims, %llu waits", (unsigned long long)es.pool_reclaims,
         (unsigned long long)es.pool_waits);
    return 0;
}
SC_TEST(t_sc_pool_reclaim, sc_pool_reclaim_body)

/* ---- 13. a plane goes down at the requester mid-transfer ---------------------------------------------------- */
typedef struct sc_plane {
    int down;
    uint32_t port;
    uint64_t on_port_after, on_port_up, a_tx_after, b_data_on_port_after;
} sc_plane;
static void sc_plane_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_plane *o = (sc_plane *)p->ud;
    mrc_pkt k;
    (void)now;
    if (from != 0) {
        if (o->down == 1 && ti->port == o->port && sc_decode(p, pkt, len, &k) && sc_is_data(k.bth.opcode))
            o->b_data_on_port_after++;
        return;
    }
    if (o->down == 1) {
        o->a_tx_after++;
        if (ti->port == o->port) o->on_port_after++;
    } else if (o->down == 2 && ti->port == o->port) {
        o->on_port_up++;
    }
}
static int sc_plane_down_body(sc_pair *p) {
    mrc_wire_link l;
    sc_plane o;
    mrc_wire_stats before, after;
    unsigned i;
    sc_defaults(p, g_seed + 1300);
    p->region = 8u << 20;
    p->attr[0].timeout = p->attr[1].timeout = 8;
    mrc_wire_link_default(&l);
    l.jitter_ns = 1000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    memset(&o, 0, sizeof o);
    o.port = 3;
    p->ud = &o;
    p->tap = sc_plane_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 16; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, i & 1u, i) == 0);
    for (i = 0; i < 8; i++) /* traffic the other way too; B does not know the plane is down */
        SC_CHECK(p, sc_add(p, 1, 0, i << 19, 1u << 19, i & 1u, i) == 0);
    SC_CHECK(p, sc_run_until(p, 30 * SC_US) == 0);                  /* about a third of the way */
    SC_CHECK(p, p->q[0][0].done < 8);
    SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], 3, false, sc_now(p)) == MRC_OK);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_BOTH, 3, false) == MRC_OK);
    SC_CHECK(p, !mrc_endpoint_port_up(p->ep[0], 3));
    mrc_wire_stats_get(&p->w, MRC_WIRE_A, 3, &before);
    o.down = 1;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    mrc_wire_stats_get(&p->w, MRC_WIRE_A, 3, &after);
    SC_CHECK(p, o.a_tx_after > 1000);
    SC_CHECKF(p, o.on_port_after == 0 && after.tx_pkts == before.tx_pkts, "%llu packets on the down port",
              (unsigned long long)o.on_port_after);
    SC_CHECK(p, sc_cstats(p, 0, 0).tx_rtx > 0); /* what was queued on the port is lost and repaired */
    mrc_wire_stats_get(&p->w, MRC_WIRE_B, 3, &after);
    SC_CHECK(p, o.b_data_on_port_after > 0 && after.drop_down >= o.b_data_on_port_after);
    SC_CHECK(p, sc_cstats(p, 1, 0).tx_rtx >= o.b_data_on_port_after);
    note("port 3 down at 30 us: A sent %llu packets after, none on port 3; A rtx %llu, B rtx %llu",
         (unsigned long long)o.a_tx_after, (unsigned long long)sc_cstats(p, 0, 0).tx_rtx,
         (unsigned long long)sc_cstats(p, 1, 0).tx_rtx);
    /* the plane comes back: it carries traffic again */
    SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], 3, true, sc_now(p)) == MRC_OK);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_BOTH, 3, true) == MRC_OK);
    o.down = 2;
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 18, 1u << 18, MRC_WR_WRITE, 0) == 0);
    mrc_wire_kick(&p->w);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, o.on_port_up > 0);
    return 0;
}
SC_TEST(t_sc_plane_down, sc_plane_down_body)

/* ---- 14. the peer moves to ERR mid-transfer ------------------------------------------------------------------- */
static int sc_peer_err_stop(sc_pair *p) {
    int s;
    for (s = 0; s < 2; s++) {
        const sc_q *x = &p->q[s][0], *y = &p->q[s][1];
        if (!x->n_conn_err || x->done != x->posted || x->recv_pulled != x->recv_posted) return 0;
        if (y->done != y->nmsg || p->q[1 - s][1].imm_ok != y->nimm) return 0;
    }
    return 1;
}
static int sc_peer_err_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    mrc_conn_attr a;
    unsigned i, nrx = 0, nflush = 0, nok = 0;
    int s;
    const sc_q *x;
    char why[200];
    sc_defaults(p, g_seed + 1400);
    p->nq = 2; /* connection 1 carries on undisturbed next to the failing connection 0 */
    p->region = 8u << 20;
    p->attr[0].timeout = 6;
    p->attr[0].retry_linear = 2;
    p->attr[0].retry_exp = 2;
    p->strict = 0;
    mrc_wire_link_default(&l);
    l.loss_ppm = 5000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    SC_CHECK(p, sc_start(p) == 0);
    r.s = g_seed ^ 0x1414;
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, i & 1u, i) == 0);
    SC_CHECK(p, sc_plan_random(p, 1, 0, 12, 1u << 20, 50, &r) == 0);
    for (s = 0; s < 2; s++)
        for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, s, 1, i << 19, 1u << 19, (i + 1u) & 1u, i) == 0);
    SC_CHECK(p, sc_run_until(p, 20 * SC_US) == 0);
    SC_CHECK(p, p->q[0][0].done < 4);
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_ERR;
    SC_CHECK(p, mrc_conn_modify(p->q[1][0].c, &a, MRC_ATTR_STATE, sc_now(p)) == MRC_OK);
    p->stop = sc_peer_err_stop;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    /* B: the application's ERR */
    x = &p->q[1][0];
    SC_CHECK(p, x->conn_err_status == MRC_ERR_FLUSH && x->n_conn_err == 1);
    SC_CHECK(p, x->recv_pulled == x->recv_posted && x->n_recv_flush > 0);
    for (i = 0; i < x->posted; i++)
        SC_CHECK(p, x->msg[i].status == MRC_OK || x->msg[i].status == MRC_ERR_FLUSH);
    SC_CHECK(p, sc_estats(p, 1).drop[MRC_DROP_STATE] > 0); /* A's data kept coming and was dropped */
    /* A: retries exhausted; the oldest incomplete WR carries it, later ones flush, earlier ones were OK */
    x = &p->q[0][0];
    SC_CHECK(p, x->conn_err_status == MRC_ERR_RETRY_EXC && x->n_conn_err == 1);
    SC_CHECK(p, sc_cstats(p, 0, 0).rto_fired == 5);
    for (i = 0; i < x->posted; i++) {
        int st = x->msg[i].status;
        if (st == MRC_OK) {
            SC_CHECK(p, nrx == 0 && nflush == 0);
            nok++;
        } else if (st == MRC_ERR_RETRY_EXC) {
            SC_CHECK(p, nrx == 0 && nflush == 0);
            nrx++;
        } else {
            SC_CHECK(p, st == MRC_ERR_FLUSH && nrx == 1);
            nflush++;
        }
    }
    SC_CHECK(p, nrx == 1 && x->posted == x->nmsg);
    SC_CHECK(p, x->recv_pulled == x->recv_posted && x->n_recv_flush + x->imm_ok == x->recv_posted);
    for (s = 0; s < 2; s++) SC_CHECK(p, mrc_conn_state(p->q[s][0].c) == MRC_QPS_ERR);
    /* connection 1 never noticed */
    for (s = 0; s < 2; s++) {
        x = &p->q[s][1];
        SC_CHECK(p, mrc_conn_state(x->c) == MRC_QPS_RTS && x->n_conn_err == 0 && x->n_send_err == 0);
        SC_CHECKF(p, sc_mem_check_q(p, s, 1, 2, why, sizeof why), "%s", why);
    }
    note("A: %u WRs OK before B's ERR, 1 RETRY_EXC, %u flushed, %.3f ms after; the other QP completed",
         nok, nflush, (double)(p->q[0][0].t_conn_err - 20 * SC_US) / 1e6);
    /* no crash, nothing left in flight; both reset and reconnect, and a clean transfer follows */
    p->stop = sc_stop_never;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + 10 * SC_MS) == 0 && mrc_wire_inflight(&p->w) == 0);
    for (s = 0; s < 2; s++) {
        a.state = MRC_QPS_RESET;
        SC_CHECK(p, mrc_conn_modify(p->q[s][0].c, &a, MRC_ATTR_STATE, sc_now(p)) == MRC_OK);
        sc_plan_clear(&p->q[s][0]);
        p->attr[s].sq_psn = mrc_psn_add(p->attr[s].sq_psn, 0x10000);
    }
    for (s = 0; s < 2; s++) sc_fill_dst(p, s);
    for (s = 0; s < 2; s++) sc_plan_clear(&p->q[s][1]); /* its slice was just reset too */
    SC_CHECK(p, sc_connect(p, 0) == 0);
    p->strict = 1;
    p->stop = NULL;
    for (s = 0; s < 2; s++) SC_CHECK(p, sc_plan_random(p, s, 0, 8, 1u << 20, 50, &r) == 0);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    return 0;
}
SC_TEST(t_sc_peer_err, sc_peer_err_body)

/* ---- 9b. requester and responder windows that differ (Q10) --------------------------------------------------- */
static int sc_mpr_mismatch_body(sc_pair *p) {
    unsigned pass;
    for (pass = 0; pass < 3; pass++) {
        mrc_wire_link l;
        mrc_conn_stats a, b;
        unsigned i;
        sc_defaults(p, g_seed + 920 + pass);
        p->region = 2u << 20;
        p->attr[0].path_mtu = p->attr[1].path_mtu = 1024;
        p->attr[1].mpr_dest = 1; /* responder window 127 PSNs (128 when inclusive) */
        p->attr[0].mpr = pass == 0 ? 8 : 1;
        p->cfg[1].nack_oor = pass == 1;
        p->cfg[1].window_inclusive = pass == 2;
        mrc_wire_link_default(&l);
        l.jitter_ns = 1000;
        l.loss_ppm = 10000;
        sc_set_links(p, MRC_WIRE_A, &l);
        SC_CHECK(p, sc_start(p) == 0);
        for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, i & 1u, i) == 0);
        SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        if (sc_check_clean(p)) return 1;
        a = sc_cstats(p, 0, 0);
        b = sc_cstats(p, 1, 0);
        if (pass == 0) { /* requester window 1024 > 127: beyond-window PSNs dropped silently, repaired */
            SC_CHECK(p, b.rx_oor > 0 && b.tx_nack == 0 && sc_estats(p, 1).drop[MRC_DROP_PSN_OOR] == b.rx_oor);
        } else if (pass == 1) { /* equal windows, exclusive edge: the documented one-PSN disagreement, NACKed */
            SC_CHECK(p, b.rx_oor > 0 && b.tx_nack == b.rx_oor);
            SC_CHECK(p, a.rx_nack_reason[MRC_NACK_PSN_OOR_WINDOW] > 0 && a.rtx_nack > 0);
        } else { /* inclusive edge: the requester never overruns */
            SC_CHECK(p, b.rx_oor == 0);
        }
        note("mpr %u vs mpr_dest 1%s: %llu out-of-window arrivals, %llu retransmissions", p->attr[0].mpr,
             pass == 1 ? " (nack_oor)" : pass == 2 ? " (inclusive)" : "", (unsigned long long)b.rx_oor,
             (unsigned long long)a.tx_rtx);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_mpr_mismatch, sc_mpr_mismatch_body)

/* ---- MSN and rqmsn wrap: more than 65536 messages on one connection ---------------------------------------- */
static int sc_msn_wrap_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    unsigned i;
    sc_defaults(p, g_seed + 1500);
    p->region = 1u << 20;
    p->cfg[1].tack_every = 7; /* positive transport ACKs too: their 24-bit AETH msn wraps the 16-bit MSN */
    p->attr[0].path_mtu = p->attr[1].path_mtu = 256;
    mrc_wire_link_default(&l);
    l.delay_ns = 500;
    l.jitter_ns = 300;
    l.loss_ppm = 1000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    SC_CHECK(p, sc_start(p) == 0);
    r.s = g_seed ^ 0x1515;
    for (i = 0; i < 70000u; i++) {
        uint32_t len = trand_below(&r, 600);
        SC_CHECK(p, sc_add(p, 0, 0, trand_below(&r, (1u << 20) - 600u), len,
                           trand_below(&r, 2) ? MRC_WR_WRITE_IMM : MRC_WR_WRITE, (uint32_t)trand(&r)) == 0);
    }
    SC_CHECK(p, p->q[0][0].nimm > 32768u + 1000u);
    SC_CHECK(p, sc_run_until(p, 10 * SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, sc_cstats(p, 0, 0).msgs_done == 70000u && sc_cstats(p, 1, 0).imm_delivered == p->q[0][0].nimm);
    {   /* one positive ACK per 7 completed messages at most (several can complete at once) */
        uint64_t tt = sc_cstats(p, 1, 0).tx_tack, rt = sc_cstats(p, 0, 0).rx_tack;
        SC_CHECKF(p, tt <= 10000u && tt > 5000u && rt <= tt && rt + tt / 100u >= tt, "tx_tack %llu rx_tack %llu",
                  (unsigned long long)tt, (unsigned long long)rt);
    }
    SC_CHECK(p, sc_estats(p, 0).drop[MRC_DROP_ACK_BOGUS] == 0 && sc_estats(p, 1).drop[MRC_DROP_MSN_OOR] == 0);
    note("70000 messages (%u Write-IMMs) across the 16-bit MSN and rqmsn wrap in %.2f ms virtual", p->q[0][0].nimm,
         (double)sc_now(p) / 1e6);
    return 0;
}
SC_TEST(t_sc_msn_wrap, sc_msn_wrap_body)

/* ---- P6: immediates wait for receives posted late; they count against max_wimm_dest ------------------------ */
static int sc_late_recv_body(sc_pair *p) {
    unsigned i;
    sc_q *a, *b;
    sc_defaults(p, g_seed + 1600);
    p->attr[0].max_wimm = 8;
    p->attr[1].max_wimm_dest = 8;
    p->no_recv[1] = 1;
    SC_CHECK(p, sc_start(p) == 0);
    a = &p->q[0][0];
    b = &p->q[1][0];
    /* 8 multi-packet Write-IMMs with no receive posted: all placed and acknowledged, none delivered */
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i * 20000u, 10000u + i, MRC_WR_WRITE_IMM, 0xA0u + i) == 0);
    p->stop = sc_stop_never;
    SC_CHECK(p, sc_run_until(p, 5 * SC_MS) == 0);
    SC_CHECK(p, !p->fail && a->done == 8 && b->imm_ok == 0 && sc_cstats(p, 1, 0).imm_delivered == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, a->msg[i].status == MRC_OK);
    /* posting 5 receives delivers the first 5 immediates at once, in order (checked by the pump) */
    for (i = 0; i < 5; i++) SC_CHECK(p, mrc_conn_post_recv(b->c, b->recv_posted++, sc_now(p)) == MRC_OK);
    sc_pump(p);
    SC_CHECK(p, !p->fail && b->imm_ok == 5 && b->recv_pulled == 5);
    /* then the rest, and a second round that never waits */
    p->no_recv[1] = 0;
    p->stop = NULL;
    for (i = 8; i < 24; i++) SC_CHECK(p, sc_add(p, 0, 0, i * 20000u, 5000u + i, MRC_WR_WRITE_IMM, 0xA0u + i) == 0);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, b->imm_ok == 24 && sc_estats(p, 1).drop[MRC_DROP_WIMM] == 0);
    return 0;
}
SC_TEST(t_sc_late_recv, sc_late_recv_body)

/* ---- every port of the requester down for a while, then back ------------------------------------------------- */
typedef struct sc_alldown {
    int down;
    uint64_t a_tx_down;
} sc_alldown;
static void sc_alldown_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                           mrc_time now) {
    sc_alldown *o = (sc_alldown *)p->ud;
    (void)pkt;
    (void)len;
    (void)ti;
    (void)now;
    if (from == 0 && o->down) o->a_tx_down++;
}
static int sc_all_ports_down_body(sc_pair *p) {
    sc_alldown o;
    unsigned i, port;
    mrc_conn_stats cs;
    sc_defaults(p, g_seed + 1700);
    p->region = 4u << 20;
    p->attr[0].timeout = 14; /* the outage is shorter than the RTO */
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = sc_alldown_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, i & 1u, i) == 0);
    for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, 1, 0, i << 19, 1u << 19, MRC_WR_WRITE_IMM, i) == 0);
    SC_CHECK(p, sc_run_until(p, 15 * SC_US) == 0);
    for (port = 1; port <= 8; port++) SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], port, false, sc_now(p)) == MRC_OK);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_BOTH, 0, false) == MRC_OK);
    o.down = 1;
    SC_CHECK(p, sc_run_until(p, sc_now(p) + 500 * SC_US) == 0);
    SC_CHECK(p, o.a_tx_down == 0);
    cs = sc_cstats(p, 0, 0);
    SC_CHECK(p, cs.tlp_fired >= 1); /* the tail-loss timer fired, but nothing could be sent */
    o.down = 0;
    for (port = 1; port <= 8; port++) SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], port, true, sc_now(p)) == MRC_OK);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_BOTH, 0, true) == MRC_OK);
    mrc_wire_kick(&p->w);
    SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    cs = sc_cstats(p, 0, 0);
    SC_CHECK(p, cs.rto_fired == 0 && cs.tx_probes >= 1);
    note("500 us outage of every port: resumed by %llu probe(s), %llu retransmissions",
         (unsigned long long)cs.tx_probes, (unsigned long long)cs.tx_rtx);
    return 0;
}
SC_TEST(t_sc_all_ports_down, sc_all_ports_down_body)

/* ---- hostile input: corruption the adapter does not detect ---------------------------------------------------- */
/* Bit flips delivered without MRC_RX_ICRC_BAD reach every decoder and check. The data may then be wrong and a
 * connection may fail or stall (a forged SACK can acknowledge what never arrived): what must hold is that nothing
 * crashes or asserts, nothing is written outside the registered regions, and completions stay in order, one per
 * work request. */
static int sc_hostile_body(sc_pair *p) {
    unsigned i;
    for (i = 0; i < 12; i++) {
        trng r;
        mrc_wire_link l;
        int s;
        unsigned q, j;
        sc_defaults(p, g_seed + 1800 + i);
        p->nq = 2;
        p->region = 2u << 20;
        p->strict = 0;
        p->lax = 1;
        p->attr[0].path_mtu = p->attr[1].path_mtu = 256; /* mostly headers: more flips land in them */
        p->attr[0].timeout = p->attr[1].timeout = 8;
        p->attr[0].retry_exp = p->attr[1].retry_exp = 3;
        p->wc.corrupt_undetected = true;
        mrc_wire_link_default(&l);
        l.jitter_ns = 1000;
        l.loss_ppm = 2000;
        l.dup_ppm = 2000;
        l.trim_ppm = 2000;
        sc_set_links(p, MRC_WIRE_BOTH, &l);
        /* even runs: both directions at 3%, 0.75%, 0.19%, ...; odd runs: only B->A (A's acknowledgements, B's
         * data) */
        l.corrupt_ppm = 30000u >> (2u * ((i / 2u) % 3u));
        sc_set_links(p, (i & 1u) ? MRC_WIRE_B : MRC_WIRE_BOTH, &l);
        SC_CHECK(p, sc_start(p) == 0);
        r.s = g_seed ^ 0x1818 ^ i;
        for (s = 0; s < 2; s++)
            for (q = 0; q < 2; q++) SC_CHECK(p, sc_plan_random(p, s, q, 30, 1u << 18, 50, &r) == 0);
        SC_CHECK(p, sc_run_until(p, 50 * SC_MS) >= 0);
        SC_CHECKF(p, !p->fail, "%s", p->failmsg);
        for (s = 0; s < 2; s++) {
            /* guards intact (the coverage part is meaningless here, so only the guards are checked) */
            for (j = 0; j < SC_GUARD; j++)
                SC_CHECK(p, p->mem[s][j] == SC_GUARD_BYTE && p->mem[s][SC_GUARD + p->region + j] == SC_GUARD_BYTE);
            for (q = 0; q < 2; q++) {
                const sc_q *x = &p->q[s][q];
                int st = mrc_conn_state(x->c);
                SC_CHECK(p, st == MRC_QPS_RTS || st == MRC_QPS_ERR);
                if (st == MRC_QPS_ERR) SC_CHECK(p, x->n_conn_err == 1 && x->done == x->posted);
            }
        }
        note("seed %llu: A drops %llu (malformed %llu, bogus acks %llu), B drops %llu; states %s/%s %s/%s",
             (unsigned long long)p->seed, (unsigned long long)sc_estats(p, 0).rx_drops,
             (unsigned long long)sc_estats(p, 0).drop[MRC_DROP_MALFORMED],
             (unsigned long long)sc_estats(p, 0).drop[MRC_DROP_ACK_BOGUS],
             (unsigned long long)sc_estats(p, 1).rx_drops, mrc_state_name((unsigned)mrc_conn_state(p->q[0][0].c)),
             mrc_state_name((unsigned)mrc_conn_state(p->q[1][0].c)),
             mrc_state_name((unsigned)mrc_conn_state(p->q[0][1].c)),
             mrc_state_name((unsigned)mrc_conn_state(p->q[1][1].c)));
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_hostile_corruption, sc_hostile_body)

/* ---- a responder that never leaves RTR still takes writes and acknowledges them ------------------------------ */
static int sc_rtr_only_body(sc_pair *p) {
    trng r;
    mrc_wire_link l;
    sc_defaults(p, g_seed + 1900);
    p->rtr_only[1] = 1;
    mrc_wire_link_default(&l);
    l.loss_ppm = 10000;
    l.jitter_ns = 1000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_conn_state(p->q[1][0].c) == MRC_QPS_RTR);
    r.s = g_seed ^ 0x1919;
    SC_CHECK(p, sc_plan_random(p, 0, 0, 30, 1u << 19, 50, &r) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    SC_CHECKF(p, !p->fail, "%s", p->failmsg);
    SC_CHECK(p, mrc_conn_state(p->q[1][0].c) == MRC_QPS_RTR && p->q[1][0].imm_ok == p->q[0][0].nimm);
    {
        char why[200];
        SC_CHECKF(p, sc_mem_check(p, 1, why, sizeof why), "%s", why);
    }
    return 0;
}
SC_TEST(t_sc_rtr_responder, sc_rtr_only_body)

/* ---- access errors: rkey gone mid-transfer, and a write past the end of the region --------------------------- */
typedef struct sc_nak62 {
    uint32_t naks, syndrome, msn;
} sc_nak62;
static void sc_nak62_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_nak62 *o = (sc_nak62 *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from == 1 && sc_decode(p, pkt, len, &k) && k.bth.opcode == MRC_OP_ACK) {
        o->naks++;
        o->syndrome = k.aeth.syndrome;
        o->msn = k.aeth.msn;
    }
}
static int sc_access_err_stop(sc_pair *p) {
    int s;
    for (s = 0; s < 2; s++) {
        const sc_q *x = &p->q[s][0];
        if (!x->n_conn_err || x->done != x->posted || x->recv_pulled != x->recv_posted) return 0;
    }
    return 1;
}
static int sc_access_err_body(sc_pair *p) {
    unsigned pass;
    for (pass = 0; pass < 3; pass++) {
        sc_nak62 o;
        const sc_q *a;
        uint32_t i, bad = 0, before = 0;
        int found = 0;
        sc_defaults(p, g_seed + 2000 + pass);
        p->region = 4u << 20;
        p->strict = 0;
        p->stop = sc_access_err_stop;
        memset(&o, 0, sizeof o);
        p->ud = &o;
        p->tap = sc_nak62_tap;
        SC_CHECK(p, sc_start(p) == 0);
        a = &p->q[0][0];
        if (pass != 1) { /* B deregisters its region, or revokes the QP's remote-write right, while A writes */
            for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, i & 1u, i) == 0);
            SC_CHECK(p, sc_run_until(p, 25 * SC_US) == 0);
            SC_CHECK(p, a->done > 0 && a->done < 8);
            if (pass == 0) {
                SC_CHECK(p, mrc_endpoint_dereg_mr(p->ep[1], p->rkey[1]) == MRC_OK);
            } else {
                mrc_conn_attr ca;
                memset(&ca, 0, sizeof ca);
                ca.access = 0;
                SC_CHECK(p, mrc_conn_modify(p->q[1][0].c, &ca, MRC_ATTR_ACCESS, sc_now(p)) == MRC_OK);
            }
            SC_CHECK(p, sc_run_until(p, sc_now(p) + SC_SEC) == 1);
        } else { /* the third write ends one byte past the region */
            SC_CHECK(p, sc_add(p, 0, 0, 0, 100000, MRC_WR_WRITE, 0) == 0);
            SC_CHECK(p, sc_add(p, 0, 0, 200000, 100000, MRC_WR_WRITE_IMM, 5) == 0);
            SC_CHECK(p, sc_add(p, 0, 0, (4u << 20) - 9000u, 9000, MRC_WR_WRITE, 0) == 0);
            p->q[0][0].msg[2].va_adj = 1; /* aimed one byte further: its last byte lies past the region */
            SC_CHECK(p, sc_add(p, 0, 0, 300000, 100000, MRC_WR_WRITE, 0) == 0);
            SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
        }
        SC_CHECK(p, p->q[1][0].conn_err_status == MRC_ERR_LOCAL_ACCESS && p->q[1][0].n_conn_err == 1);
        SC_CHECK(p, a->conn_err_status == MRC_ERR_REMOTE_ACCESS && a->n_conn_err == 1);
        SC_CHECKF(p, o.naks == 1 && o.syndrome == MRC_AETH_NAK_REM_ACCESS, "naks %u syndrome %#x", o.naks,
                  o.syndrome);
        SC_CHECK(p, sc_estats(p, 1).drop[MRC_DROP_ACCESS] == 1 && sc_cstats(p, 1, 0).tx_nak == 1);
        /* Q22: a prefix completed OK; exactly the WR the NAK names (MSN = index + 1) carries REMOTE_ACCESS; every
         * other outstanding WR, earlier ones included (placement is out of order), is flushed */
        for (i = 0; i < a->posted; i++) {
            int st = a->msg[i].status;
            if (st == MRC_OK) {
                SC_CHECKF(p, before == i, "wr %u OK after a failed one", i);
                before++;
            } else if (st == MRC_ERR_REMOTE_ACCESS) {
                SC_CHECK(p, !found);
                found = 1;
                bad = i;
            } else {
                SC_CHECKF(p, st == MRC_ERR_FLUSH, "wr %u status %d", i, st);
            }
        }
        SC_CHECK(p, found && o.msn == bad + 1u);
        if (pass == 1) SC_CHECK(p, bad == 2 && before >= 1);
        /* nothing of the offending packet was written: the byte past the region (the guard) is intact */
        for (i = 0; i < SC_GUARD; i++) SC_CHECK(p, p->mem[1][SC_GUARD + p->region + i] == SC_GUARD_BYTE);
        note("%s: NAK 0x62 names wr %u; %u WRs completed OK before",
             pass == 0 ? "dereg mid-transfer" : pass == 1 ? "write past the end" : "remote write revoked", bad, before);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_access_error, sc_access_err_body)

/* ---- bursts: infinite link rate, every packet of a window arrives at the same instant ------------------------- */
static int sc_burst_body(sc_pair *p) {
    mrc_wire_link l;
    mrc_endpoint_stats eb;
    sc_defaults(p, g_seed + 2100);
    p->cfg[0].cc_algo = p->cfg[1].cc_algo = MRC_CC_ALGO_NONE; /* whole windows at once, to overflow the queue */
    p->region = 4u << 20;
    sc_set_ports(p, 1);
    mrc_wire_link_default(&l);
    l.rate_bps = 0;   /* no serialization: whole windows land in one step */
    l.delay_ns = 1000;
    l.trim_ppm = 20000; /* NACKs and CE echoes are never merged: they overflow the 16-entry control queue */
    l.ce_ppm = 50000;
    l.loss_ppm = 5000;
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    p->wc.pool_pkts = 65536;
    SC_CHECK(p, sc_start(p) == 0);
    {
        int s;
        unsigned i;
        for (s = 0; s < 2; s++)
            for (i = 0; i < 4; i++) SC_CHECK(p, sc_add(p, s, 0, i << 20, 1u << 20, (i + 1u) & 1u, i) == 0);
    }
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    eb = sc_estats(p, 1);
    SC_CHECK(p, eb.ctlq_overflow > 0 || sc_estats(p, 0).ctlq_overflow > 0);
    note("bursts: control queue overflows A %llu B %llu, all repaired; A rtx %llu rto %llu tlp %llu",
         (unsigned long long)sc_estats(p, 0).ctlq_overflow, (unsigned long long)eb.ctlq_overflow,
         (unsigned long long)sc_cstats(p, 0, 0).tx_rtx, (unsigned long long)sc_cstats(p, 0, 0).rto_fired,
         (unsigned long long)sc_cstats(p, 0, 0).tlp_fired);
    return 0;
}
SC_TEST(t_sc_burst_ctlq, sc_burst_body)

/* ---- random configurations: every knob both ends may set, drawn from the seed -------------------------------- */
static int sc_random_config_body(sc_pair *p) {
    unsigned run;
    for (run = 0; run < 30; run++) {
        trng r;
        mrc_wire_link l;
        uint64_t seed = g_seed * 1000u + 2200u + run;
        unsigned q, nports, mtu_shift, nmsg;
        int s;
        r.s = seed ^ 0x7A7A7A7A7A7A7A7Aull;
        sc_defaults(p, seed);
        p->nq = trand_below(&r, 4) ? 1u + trand_below(&r, 3) : 1u + trand_below(&r, SC_MAXQ);
        p->region = (size_t)(1u + trand_below(&r, 4)) << 20;
        p->unsig_pct = trand_below(&r, 3) * 10u;
        nports = 1u + trand_below(&r, MRC_MAX_PORTS);
        sc_set_ports(p, nports);
        mtu_shift = 8u + trand_below(&r, 5);
        for (s = 0; s < 2; s++) {
            mrc_config *c = &p->cfg[s];
            mrc_conn_attr *a = &p->attr[s];
            c->evs_per_port = (uint16_t)(1u + trand_below(&r, 32));
            c->sack_every = (uint16_t)(1u + (trand_below(&r, 2) ? trand_below(&r, 16) : 0u));
            c->sack_delay_ns = 500u + trand_below(&r, 10000);
            c->nack_oor = trand_below(&r, 2) != 0;
            c->window_inclusive = trand_below(&r, 2) != 0;
            c->tack_every = (uint16_t)(trand_below(&r, 3) ? 0u : 1u + trand_below(&r, 8));
            c->reorder_slack_ns = trand_below(&r, 2) ? 0u : 500u + trand_below(&r, 8000);
            c->reorder_slack_min_ns = 500u + trand_below(&r, 4000);
            c->rtt_init_ns = 2000u + trand_below(&r, 40000);
            c->tlp_min_ns = 1000u + trand_below(&r, 20000);
            c->ack_req_every = (uint16_t)(trand_below(&r, 2) ? 0u : 1u + trand_below(&r, 32));
            c->fixed_cwnd_bytes = trand_below(&r, 3) ? 0u : 1000u + trand_below(&r, 200000);
            c->trimmable = trand_below(&r, 4) != 0;
            c->tseth = trand_below(&r, 4) != 0;
            a->path_mtu = 1u << mtu_shift;
            a->mpr_dest = (uint8_t)(1u << trand_below(&r, 6)); /* 1..32 */
            a->mpr = (uint8_t)(1u + trand_below(&r, 12));
            a->max_wimm = (uint16_t)(1u + trand_below(&r, 32));
            a->sq_psn = trand_below(&r, 2) ? (uint32_t)trand(&r) & MRC_PSN_MASK : MRC_PSN_MASK - trand_below(&r, 3000);
            a->retry_linear = 7;
            a->retry_exp = 25;
            a->timeout = (uint8_t)(8u + trand_below(&r, 5));
        }
        /* wire layout choices: both ends must agree */
        p->cfg[1].wire.bth_m_bit = p->cfg[0].wire.bth_m_bit = (uint8_t)(6u + trand_below(&r, 2));
        p->cfg[1].wire.sack_msb_first = p->cfg[0].wire.sack_msb_first = (uint8_t)trand_below(&r, 2);
        p->cfg[1].wire.ts_shift = p->cfg[0].wire.ts_shift = (uint8_t)(3u + trand_below(&r, 8));
        for (s = 0; s < 2; s++) {
            unsigned w = p->attr[1 - s].max_wimm; /* the peer never exceeds what this side accepts */
            p->attr[s].max_wimm_dest = (uint16_t)(w + trand_below(&r, 2u * w + 1u));
            if (p->attr[s].max_wimm_dest > MRC_MAX_WIMM) p->attr[s].max_wimm_dest = MRC_MAX_WIMM;
        }
        for (s = 0; s < 2; s++) {
            mrc_wire_link_default(&l);
            l.rate_bps = trand_below(&r, 8) ? (uint64_t)(10u + trand_below(&r, 400)) * 1000000000u : 0u;
            l.delay_ns = 200u + trand_below(&r, 10000);
            l.jitter_ns = trand_below(&r, 2) ? trand_below(&r, 20000) : 0u;
            l.loss_ppm = trand_below(&r, 50000);
            l.dup_ppm = trand_below(&r, 20000);
            l.corrupt_ppm = trand_below(&r, 20000);
            l.trim_ppm = trand_below(&r, 2) ? trand_below(&r, 50000) : 0u;
            l.ce_ppm = trand_below(&r, 50000);
            l.trim_bytes = trand_below(&r, 3) ? 0u : trand_below(&r, 200);
            l.queue_bytes = 256u << 10;
            sc_set_links(p, s, &l);
        }
        p->wc.trim_sets_flag = trand_below(&r, 2) != 0;
        p->wc.tx_copy = trand_below(&r, 2) != 0;
        p->pump_in_taps = trand_below(&r, 4) == 0;
        SC_CHECK(p, sc_start(p) == 0);
        nmsg = p->nq > 4 ? 2u + trand_below(&r, 6) : 5u + trand_below(&r, 20);
        for (s = 0; s < 2; s++)
            for (q = 0; q < p->nq; q++)
                SC_CHECK(p, sc_plan_random(p, s, q, nmsg, (uint32_t)sc_slice(p), trand_below(&r, 101), &r) == 0);
        SC_CHECKF(p, sc_run_until(p, 20 * SC_SEC) == 1, "run %u did not complete: %s", run, p->failmsg);
        if (sc_check_clean(p)) {
            printf("    (random configuration run %u, seed %llu)\n", run, (unsigned long long)seed);
            return 1;
        }
        note("run %u: %u QPs, %u ports, mtu %u, %.3f ms virtual, A rtx %llu rto %llu tlp %llu", run, p->nq, nports,
             1u << mtu_shift, (double)sc_now(p) / 1e6, (unsigned long long)sc_cstats(p, 0, 0).tx_rtx,
             (unsigned long long)sc_cstats(p, 0, 0).rto_fired, (unsigned long long)sc_cstats(p, 0, 0).tlp_fired);
        sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_random_config, sc_random_config_body)

/* ---- Q5: a hole is declared lost exactly when a transmission sent at least slack later is acknowledged -------- */
#define SC_SLACK_PKTS 64
typedef struct sc_slack {
    uint32_t base, drop_psn, dropped, nsacks, rtx;
    mrc_time sent[SC_SLACK_PKTS], t_rtx;
    mrc_time sack_t[256];
    uint32_t sack_named[256];
} sc_slack;
static int sc_slack_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                           mrc_time now) {
    sc_slack *o = (sc_slack *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from != 0 || o->dropped || !sc_decode(p, pkt, len, &k) || k.bth.psn != o->drop_psn) return 0;
    o->dropped = 1;
    return 1;
}
static void sc_slack_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_slack *o = (sc_slack *)p->ud;
    mrc_pkt k;
    uint32_t i;
    (void)ti;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
    if (i >= SC_SLACK_PKTS) return;
    if (!k.bth.rtx) o->sent[i] = now;
    else if (k.bth.psn == o->drop_psn && !o->rtx++) o->t_rtx = now;
}
static void sc_slack_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_slack *o = (sc_slack *)p->ud;
    mrc_pkt k;
    (void)ri;
    if (to != 0 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK || o->nsacks >= 256) return;
    o->sack_t[o->nsacks] = now;
    o->sack_named[o->nsacks++] = mrc_psn_add(k.seth.cack_psn, k.seth.ack_psn_offset);
}
/* SC_SLACK_PKTS packets on one port with a fixed slack and no timestamp echo (the acknowledged send time is the
 * requester's own record), packet x lost once; reorder_timer q (P32) unless q < 0 (the default) */
static int sc_slack_run(sc_pair *p, sc_slack *o, uint64_t seed, mrc_time slack, uint32_t x, int q) {
    sc_defaults(p, seed);
    sc_set_ports(p, 1);
    p->cfg[0].reorder_slack_ns = (uint32_t)slack;
    if (q >= 0) p->cfg[0].reorder_timer = (uint8_t)q;
    p->cfg[0].tseth = false;
    memset(o, 0, sizeof *o);
    o->base = p->attr[0].sq_psn;
    o->drop_psn = mrc_psn_add(o->base, (int32_t)x);
    p->ud = o;
    p->filter = sc_slack_filter;
    p->tap = sc_slack_tap;
    p->rx = sc_slack_rx;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, SC_SLACK_PKTS * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    return sc_check_clean(p);
}
static int sc_loss_slack_body(sc_pair *p) {
    static sc_slack o;
    const mrc_time slack = 5000, ser = 331; /* one 4 KiB packet at 100 Gb/s */
    mrc_time t_exp = 0;
    uint32_t i, x = 10;
    if (sc_slack_run(p, &o, g_seed + 2300, slack, x, -1)) return 1;
    SC_CHECK(p, o.dropped && o.rtx == 1 && sc_cstats(p, 0, 0).rtx_sack_hole == 1 && sc_cstats(p, 0, 0).tx_rtx == 1);
    for (i = 0; i < o.nsacks; i++) { /* the first SACK naming a packet sent >= slack after the hole */
        uint32_t j = (uint32_t)mrc_psn_diff(o.sack_named[i], o.base);
        if (j < SC_SLACK_PKTS && j != x && o.sent[j] >= o.sent[x] + slack) {
            t_exp = o.sack_t[i];
            break;
        }
    }
    SC_CHECK(p, t_exp != 0);
    SC_CHECKF(p, o.t_rtx >= t_exp && o.t_rtx <= t_exp + ser, "hole sent at %llu, retransmitted at %llu, expected "
              "at the SACK arriving at %llu", (unsigned long long)o.sent[x], (unsigned long long)o.t_rtx,
              (unsigned long long)t_exp);
    note("slack 5 us: hole sent at %.3f us, declared lost by the SACK at %.3f us, retransmitted at %.3f us",
         (double)o.sent[x] / 1e3, (double)t_exp / 1e3, (double)o.t_rtx / 1e3);
    return 0;
}
SC_TEST(t_sc_loss_slack, sc_loss_slack_body)

/* ---- P32: a hole among the last packets sent - no later transmission sent slack after it - is declared lost by the
 * reorder timer at its send time + the RTT of the latest acknowledged transmission + 1.5 x slack, not by the
 * tail-loss probe; with reorder_timer 0 the probe finds it. -------------------------------------------------------- */
static int sc_reo_run(sc_pair *p, sc_slack *o, uint8_t q, mrc_time *t_rtx_after) {
    const mrc_time slack = 5000, ser = 331; /* one 4 KiB packet at 100 Gb/s */
    const uint32_t x = SC_SLACK_PKTS - 2u, last = SC_SLACK_PKTS - 1u;
    mrc_conn_stats cs;
    mrc_time t_exp = 0, rtt_last = 0;
    uint32_t i;
    sc_free(p);
    if (sc_slack_run(p, o, g_seed + 2310, slack, x, q)) return 1;
    cs = sc_cstats(p, 0, 0);
    /* the time rule cannot declare it: the only later packet left within the slack */
    SC_CHECKF(p, o->dropped && o->rtx == 1 && cs.tx_rtx == 1 && cs.rto_fired == 0 && o->sent[last] < o->sent[x] + slack,
              "reorder_timer %u: dropped %u, retransmitted %u (%llu), RTOs %llu", q, o->dropped, o->rtx,
              (unsigned long long)cs.tx_rtx, (unsigned long long)cs.rto_fired);
    for (i = 0; i < o->nsacks; i++)
        if (o->sack_named[i] == mrc_psn_add(o->base, (int32_t)last)) {
            rtt_last = o->sack_t[i] - o->sent[last];
            break;
        }
    SC_CHECK(p, rtt_last != 0);
    t_exp = o->sent[x] + rtt_last + ((slack * q) >> 2);
    *t_rtx_after = o->t_rtx - o->sent[x];
    if (q) {
        SC_CHECKF(p, cs.rtx_reo_timer == 1 && cs.rtx_sack_hole == 1 && cs.tlp_fired == 0 && o->t_rtx >= t_exp &&
                      o->t_rtx <= t_exp + ser,
                  "reorder_timer %u: hole sent at %llu, retransmitted at %llu, expected at %llu (RTT %llu); timer %llu, "
                  "TLPs %llu", q, (unsigned long long)o->sent[x], (unsigned long long)o->t_rtx,
                  (unsigned long long)t_exp, (unsigned long long)rtt_last, (unsigned long long)cs.rtx_reo_timer,
                  (unsigned long long)cs.tlp_fired);
    } else {
        SC_CHECKF(p, cs.rtx_reo_timer == 0 && cs.tlp_fired >= 1 && cs.rtx_probe_loss == 1 && o->t_rtx > t_exp,
                  "reorder_timer 0: retransmitted at %llu, timer %llu, TLPs %llu, probe losses %llu",
                  (unsigned long long)o->t_rtx, (unsigned long long)cs.rtx_reo_timer,
                  (unsigned long long)cs.tlp_fired, (unsigned long long)cs.rtx_probe_loss);
    }
    return 0;
}
static int sc_reo_timer_body(sc_pair *p) {
    static sc_slack o;
    mrc_time t6 = 0, t2 = 0, t0 = 0;
    if (sc_reo_run(p, &o, 6, &t6) || sc_reo_run(p, &o, 2, &t2) || sc_reo_run(p, &o, 0, &t0)) return 1;
    note("second-to-last packet lost, slack 5 us: retransmitted %.3f us after it by the reorder timer (default, 1.5 x "
         "slack), %.3f us (0.5 x slack), %.3f us by the tail-loss probe (timer off)", (double)t6 / 1e3,
         (double)t2 / 1e3, (double)t0 / 1e3);
    return 0;
}
SC_TEST(t_sc_reo_timer, sc_reo_timer_body)

/* ---- P33: the tail-loss probe goes out twice, on two EVs: the last packet is lost and so is the first probe (its
 * path dies with the tail); the copy's answer reveals the hole one round trip later. With tlp_copies 1 the next
 * probe waits twice as long. --------------------------------------------------------------------------------------- */
typedef struct sc_tlpc {
    uint32_t tail_psn, probes, drop_nth, dropped_probe, tail_dropped, rtx;
    mrc_time t_tail, t_probe, t_rtx;
} sc_tlpc;
static int sc_tlpc_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti,
                          mrc_time now) {
    sc_tlpc *o = (sc_tlpc *)p->ud;
    mrc_pkt k;
    (void)ti;
    if (from != 0 || !sc_decode(p, pkt, len, &k)) return 0;
    if (sc_is_data(k.bth.opcode) && k.bth.psn == o->tail_psn) {
        if (!k.bth.rtx && !o->tail_dropped) {
            o->tail_dropped = 1;
            o->t_tail = now;
            return 1;
        }
        if (k.bth.rtx && !o->rtx++) o->t_rtx = now;
    }
    if (k.bth.opcode == MRC_OP_PROBE_REQ && ++o->probes == o->drop_nth) {
        o->dropped_probe = 1;
        o->t_probe = now;
        return 1;
    }
    return 0;
}
static int sc_tlpc_run(sc_pair *p, sc_tlpc *o, uint8_t copies, uint32_t drop_nth) {
    mrc_conn_stats cs;
    sc_free(p);
    sc_defaults(p, g_seed + 2320);
    p->cfg[0].tlp_copies = copies;
    memset(o, 0, sizeof *o);
    o->drop_nth = drop_nth; /* the first copy, or the second: either answer counts */
    o->tail_psn = mrc_psn_add(p->attr[0].sq_psn, 15); /* 16 packets of 4 KiB */
    p->ud = o;
    p->filter = sc_tlpc_filter;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 16u * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    cs = sc_cstats(p, 0, 0);
    SC_CHECKF(p, o->tail_dropped && o->dropped_probe && o->rtx == 1 && cs.rto_fired == 0 && o->t_rtx > o->t_probe,
              "tlp_copies %u, probe %u lost: tail dropped %u, probe dropped %u, retransmitted %u, RTOs %llu", copies,
              drop_nth,
              o->tail_dropped, o->dropped_probe, o->rtx, (unsigned long long)cs.rto_fired);
    if (copies == 2) { /* one expiry; its copy answered within a round trip (the wire's is a few us) */
        SC_CHECKF(p, cs.tlp_fired == 1 && cs.tx_probes == 2 && cs.rtx_probe_loss == 1 &&
                      o->t_rtx - o->t_probe < 20u * SC_US,
                  "copies, probe %u lost: %llu TLPs, %llu probes, retransmitted %.3f us after the lost probe",
                  drop_nth, (unsigned long long)cs.tlp_fired, (unsigned long long)cs.tx_probes,
                  (double)(o->t_rtx - o->t_probe) / 1e3);
    } else { /* the second expiry, twice the first's wait, found it */
        SC_CHECKF(p, cs.tlp_fired == 2 && cs.tx_probes == 2 && o->t_rtx - o->t_probe >= 2u * p->cfg[0].tlp_min_ns,
                  "one copy: %llu TLPs, %llu probes, retransmitted %.3f us after the first probe",
                  (unsigned long long)cs.tlp_fired, (unsigned long long)cs.tx_probes,
                  (double)(o->t_rtx - o->t_probe) / 1e3);
    }
    return 0;
}
static int sc_tlp_copies_body(sc_pair *p) {
    static sc_tlpc o;
    mrc_time d2, d1;
    if (sc_tlpc_run(p, &o, 2, 2)) return 1;
    if (sc_tlpc_run(p, &o, 2, 1)) return 1;
    d2 = o.t_rtx - o.t_tail;
    if (sc_tlpc_run(p, &o, 1, 1)) return 1;
    d1 = o.t_rtx - o.t_tail;
    note("last packet and the first tail-loss probe lost: retransmitted %.3f us after the tail with the copy, "
         "%.3f us with one probe per expiry", (double)d2 / 1e3, (double)d1 / 1e3);
    return 0;
}
SC_TEST(t_sc_tlp_copies, sc_tlp_copies_body)

/* ---- Q19/P9: where replies go. Echo mode: they echo the arrival EV and leave on the arrival port, or the lowest
 * port up. Default: on the QP's own EV of the arrival plane, or of another plane when that one is down; the SETH
 * or NETH entropy always names the arrival EV. ------------------------------------------------------------------- */
#define SC_REPLY_PKTS 8192
typedef struct sc_reply {
    int echo;
    uint32_t base, checked, moved, bad, on_down;
    uint32_t ev[SC_REPLY_PKTS];
    uint8_t port[SC_REPLY_PKTS];
} sc_reply;
static void sc_reply_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_reply *o = (sc_reply *)p->ud;
    mrc_pkt k;
    uint32_t i;
    (void)now;
    if (to != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode)) return;
    i = (uint32_t)mrc_psn_diff(k.bth.psn, o->base);
    if (i >= SC_REPLY_PKTS) return;
    o->ev[i] = ri->ev;
    o->port[i] = ri->port;
}
static void sc_reply_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_reply *o = (sc_reply *)p->ud;
    mrc_pkt k;
    uint32_t i, ev;
    (void)now;
    if (from != 0 || !sc_decode(p, pkt, len, &k)) return;
    if (ti->port == 2) o->on_down++;
    if (k.bth.opcode == MRC_OP_SACK && !k.seth.pr) {
        i = (uint32_t)mrc_psn_diff(mrc_psn_add(k.seth.cack_psn, k.seth.ack_psn_offset), o->base);
        ev = k.seth.entropy;
    } else if (k.bth.opcode == MRC_OP_NACK) {
        i = (uint32_t)mrc_psn_diff(k.neth.nack_psn, o->base);
        ev = k.neth.entropy;
    } else {
        return;
    }
    if (i >= SC_REPLY_PKTS || !o->port[i]) return;
    o->checked++;
    if (o->port[i] == 2) o->moved++;
    if (o->echo) {
        if (ev != o->ev[i] || ev != ti->ev || ti->port != (o->port[i] == 2 ? 1 : o->port[i])) o->bad++;
    } else {
        unsigned j, n = mrc_conn_ev_count(p->q[0][0].c), own = 0;
        for (j = 0; j < n; j++) {
            uint32_t e2 = 0;
            uint8_t port = 0;
            (void)mrc_conn_ev_get(p->q[0][0].c, j, &e2, &port, NULL);
            own |= e2 == ti->ev && port == ti->port;
        }
        if (ev != o->ev[i] || !own || (o->port[i] != 2 && ti->port != o->port[i])) o->bad++;
    }
}
static int sc_no_epop(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    (void)p, (void)from, (void)pkt, (void)len, (void)now;
    return ti->qpn == MRC_EPOP_QPN;
}
static int sc_reply_port_body(sc_pair *p) {
    static sc_reply o;
    mrc_wire_link l;
    unsigned i;
    int echo;
    for (echo = 1; echo >= 0; echo--) {
    sc_defaults(p, g_seed + 2400);
    p->cfg[0].rev_ev_echo = echo != 0;
    p->region = 8u << 20;
    mrc_wire_link_default(&l);
    sc_set_links(p, MRC_WIRE_A, &l);
    l.trim_ppm = 20000; /* NACKs too */
    sc_set_links(p, MRC_WIRE_B, &l);
    memset(&o, 0, sizeof o);
    o.echo = echo;
    o.base = p->attr[1].sq_psn;
    p->ud = &o;
    p->filter = sc_no_epop; /* B is not told about A's port 2 (PORT_STATUS_UPDATE lost): it keeps sending there */
    p->rx = sc_reply_rx;
    p->tap = sc_reply_tap;
    SC_CHECK(p, sc_start(p) == 0);
    /* A's port 2 is down at A only: B still sends on it and the wire still carries it */
    SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], 2, false, 0) == MRC_OK);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 1, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, sc_cstats(p, 0, 0).tx_nack > 0);
    SC_CHECKF(p, o.bad == 0 && o.on_down == 0 && o.checked > 1000 && o.moved > 100,
              "%s: %u replies checked, %u wrong, %u moved off port 2, %u on port 2", echo ? "echo" : "reverse EV",
              o.checked, o.bad, o.moved, o.on_down);
    sc_free(p);
    }
    return 0;
}
SC_TEST(t_sc_reply_port, sc_reply_port_body)

/* ================================================================================================================
 * Multipath: EV path health, spraying, planes (issue #3)
 * ============================================================================================================== */
/* ---- a black-holed EV: detected from SACK evidence, demoted, avoided; the transfer finishes bit-exact --------- */
typedef struct sc_bh {
    uint32_t ev;             /* A->B packets on this EV vanish */
    uint8_t port;
    uint32_t drops, drops_data, after;
    mrc_time t_first, t_last;
} sc_bh;
static int sc_bh_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_bh *o = (sc_bh *)p->ud;
    (void)pkt, (void)len;
    if (from != 0 || ti->ev != o->ev || ti->port != o->port) return 0;
    o->drops++;
    if (ti->qpn != MRC_EPOP_QPN && ti->payload_len) {
        if (!o->drops_data) o->t_first = now;
        o->t_last = now;
        o->drops_data++;
        if (p->q[0][0].n_ev_bad) o->after++;
    }
    return 1;
}
static int sc_blackhole_ev_body(sc_pair *p) {
    static sc_bh o;
    unsigned i;
    uint32_t st = 0;
    mrc_time rtt;
    sc_defaults(p, g_seed + 3500);
    p->region = 8u << 20;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->filter = sc_bh_filter;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_conn_ev_get(p->q[0][0].c, 5, &o.ev, &o.port, NULL) == MRC_OK);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 20, 1u << 20, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECK(p, mrc_conn_ev_get(p->q[0][0].c, 5, NULL, NULL, &st) == MRC_OK);
    SC_CHECKF(p, st == MRC_EVS_ASSUMED_BAD, "the black-holed EV is in state %u", st);
    SC_CHECKF(p, p->q[0][0].n_ev_bad == 1, "%u EVs went ASSUMED_BAD, expected just the black-holed one",
              p->q[0][0].n_ev_bad);
    SC_CHECKF(p, o.after == 0, "%u data packets went into the black hole after it was detected", o.after);
    rtt = 2u * (p->wc.link[0][0].delay_ns + 1000u); /* propagation there and back plus serialization */
    SC_CHECKF(p, p->q[0][0].t_first_ev_bad - o.t_first <= 3u * rtt, "detected %llu ns after the first loss (RTT %llu)",
              (unsigned long long)(p->q[0][0].t_first_ev_bad - o.t_first), (unsigned long long)rtt);
    note("black-holed EV: %u data packets lost, detected %.2f RTTs after the first loss", o.drops_data,
         (double)(p->q[0][0].t_first_ev_bad - o.t_first) / (double)rtt);
    return 0;
}
SC_TEST(t_sc_blackhole_ev, sc_blackhole_ev_body)

/* ---- Q25: selective progress alone resets the retry count --------------------------------------------------- */
/* The first packet of a long message never arrives (every transmission of it is dropped), so cack never moves; the
 * others are acknowledged selectively, one every 3.3 us, for about 700 us. With T = 32.8 us and L = E = 1 the
 * connection fails only 4T after the last selective progress, and no expiry happens before it. */
typedef struct sc_prog {
    uint32_t base, npkts, dropped;
    uint8_t acked[256];
    mrc_time t_progress;
} sc_prog;
static int sc_prog_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    sc_prog *o = (sc_prog *)p->ud;
    mrc_pkt k;
    (void)ti;
    (void)now;
    if (from != 0 || !sc_decode(p, pkt, len, &k) || !sc_is_data(k.bth.opcode) || k.bth.psn != o->base) return 0;
    o->dropped++;
    return 1;
}
static void sc_prog_rx(sc_pair *p, int to, const uint8_t *pkt, size_t len, const mrc_rxinfo *ri, mrc_time now) {
    sc_prog *o = (sc_prog *)p->ud;
    mrc_pkt k;
    uint32_t i;
    (void)ri;
    if (to != 0 || !sc_decode(p, pkt, len, &k) || k.bth.opcode != MRC_OP_SACK) return;
    for (i = 0; i < 64; i++) {
        uint32_t j = (uint32_t)mrc_psn_diff(mrc_psn_add(k.seth.cack_psn, k.seth.sack_offset + (int32_t)i), o->base);
        if (((k.seth.sack_bitmap >> i) & 1u) && j < o->npkts && !o->acked[j]) {
            o->acked[j] = 1;
            o->t_progress = now;
        }
    }
}
static int sc_rto_progress_body(sc_pair *p) {
    sc_prog o;
    mrc_wire_link l;
    const mrc_time T = (mrc_time)1024u << 5;
    uint32_t i, nacked = 0;
    sc_defaults(p, g_seed + 2500);
    sc_set_ports(p, 1);
    p->attr[0].timeout = 5;
    p->attr[0].retry_linear = 1;
    p->attr[0].retry_exp = 1;
    p->strict = 0;
    /* retry semantics, not congestion control: a PSN dropped every time can fill a window collapsed to one MTU */
    p->cfg[0].cc_algo = p->cfg[1].cc_algo = MRC_CC_ALGO_NONE;
    mrc_wire_link_default(&l);
    l.rate_bps = 10000000000u; /* 10 Gb/s: a 4 KiB packet every 3.3 us */
    sc_set_links(p, MRC_WIRE_BOTH, &l);
    memset(&o, 0, sizeof o);
    o.base = p->attr[0].sq_psn;
    o.npkts = 200;
    p->ud = &o;
    p->filter = sc_prog_filter;
    p->rx = sc_prog_rx;
    p->stop = sc_exhaust_stop;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 200u * 4096u, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_SEC) == 1);
    for (i = 1; i < o.npkts; i++) nacked += o.acked[i];
    SC_CHECK(p, nacked == o.npkts - 1 && !o.acked[0] && o.t_progress > 600 * SC_US);
    SC_CHECK(p, p->q[0][0].conn_err_status == MRC_ERR_RETRY_EXC && sc_cstats(p, 0, 0).rto_fired == 3);
    SC_CHECKF(p, p->q[0][0].t_conn_err == o.t_progress + 4u * T, "error at %llu, last progress %llu",
              (unsigned long long)p->q[0][0].t_conn_err, (unsigned long long)o.t_progress);
    note("selective progress until %.1f us kept the retry count at 0; RETRY_EXC 4T later", (double)o.t_progress / 1e3);
    return 0;
}
SC_TEST(t_sc_rto_progress, sc_rto_progress_body)

/* ---- RTS -> RTS: a new timeout applies to the timer already running (P5) ------------------------------------- */
/* Link dead from the start with timeout 0 (no RTO: only probes). At 1 ms the application sets timeout 5 (32.8 us)
 * and no retries: the timer that has been running since the first transmission is long expired, so the connection
 * fails at once, not whenever the next probe happens to re-arm it. */
static int sc_modify_timeout_body(sc_pair *p) {
    mrc_conn_attr a;
    mrc_time t_mod;
    sc_defaults(p, g_seed + 2600);
    p->attr[0].timeout = 0;
    p->strict = 0;
    p->stop = sc_exhaust_stop;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, false) == MRC_OK);
    SC_CHECK(p, sc_add(p, 0, 0, 0, 65536, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, sc_run_until(p, SC_MS) == 0);
    SC_CHECK(p, sc_cstats(p, 0, 0).rto_fired == 0 && sc_cstats(p, 0, 0).tlp_fired >= 3);
    memset(&a, 0, sizeof a);
    a.timeout = 5;
    a.retry_linear = 0;
    a.retry_exp = 0;
    t_mod = sc_now(p);
    SC_CHECK(p, mrc_conn_modify(p->q[0][0].c, &a, MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT, t_mod) == MRC_OK);
    mrc_wire_kick(&p->w);
    SC_CHECK(p, sc_run_until(p, t_mod + SC_SEC) == 1);
    SC_CHECK(p, p->q[0][0].conn_err_status == MRC_ERR_RETRY_EXC && sc_cstats(p, 0, 0).rto_fired == 1);
    SC_CHECKF(p, p->q[0][0].t_conn_err == t_mod, "timeout set at %llu ns, RETRY_EXC at %llu ns",
              (unsigned long long)t_mod, (unsigned long long)p->q[0][0].t_conn_err);
    sc_free(p);

    /* the converse: lengthened during an outage, the pending expiry moves out to T(new) after the timer's start */
    {
        static sc_txlog o;
        uint32_t i;
        mrc_time t0, t_rtx = 0;
        sc_defaults(p, g_seed + 2601);
        p->attr[0].timeout = 6; /* 65.5 us */
        memset(&o, 0, sizeof o);
        p->ud = &o;
        p->tap = sc_txlog_tap;
        p->stop = sc_stop_never;
        SC_CHECK(p, sc_start(p) == 0);
        SC_CHECK(p, mrc_wire_set_up(&p->w, MRC_WIRE_A, 0, false) == MRC_OK);
        SC_CHECK(p, sc_add(p, 0, 0, 0, 65536, MRC_WR_WRITE, 0) == 0);
        SC_CHECK(p, sc_run_until(p, 30 * SC_US) == 0);
        t0 = o.t[0];
        a.timeout = 10; /* 1.048576 ms */
        a.retry_linear = 7;
        a.retry_exp = 7;
        SC_CHECK(p, mrc_conn_modify(p->q[0][0].c, &a, MRC_ATTR_RETRY | MRC_ATTR_TIMEOUT, sc_now(p)) == MRC_OK);
        SC_CHECK(p, sc_run_until(p, 3 * SC_MS) == 0);
        for (i = 0; i < o.n; i++)
            if (o.kind[i] == 1) {
                t_rtx = o.t[i];
                break;
            }
        SC_CHECKF(p, t_rtx == t0 + ((mrc_time)1024u << 10), "first transmission %llu, first RTO retransmission %llu",
                  (unsigned long long)t0, (unsigned long long)t_rtx);
    }
    return 0;
}
SC_TEST(t_sc_modify_timeout, sc_modify_timeout_body)

/* the scenario entries of the runner's table */


/* Multipath (EV manager, planes, probes, controller API) and congestion-control scenarios live in their own
 * fragments; each defines its tests and a MRC_TEST_*_ENTRIES list for the table below. */
#include "tests/test_ev.inc"
#include "tests/test_cc.inc"
#include "tests/test_api.inc"
#include "tests/test_hostile.inc"
#include "tests/test_live.inc"
#include "tests/test_codec_fast.inc"

/* ================================================================================================================
 * runner
 * ============================================================================================================== */
typedef struct { const char *name; int (*fn)(void); } test_entry;
static const test_entry tests[] = {
    /* unit tests: wire vectors, codec, state machine, responder and requester in isolation */
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
    {"pkt_decode_every_opcode", t_pkt_decode_every_opcode},
    {"pkt_decode_truncated", t_pkt_decode_truncated},
    {"pkt_decode_pad", t_pkt_decode_pad},
    {"pkt_decode_fields", t_pkt_decode_fields},
    {"psn_arith", t_psn_arith},
    {"icrc_crc32_check_value", t_icrc_crc32_check_value},
    {"icrc_hw_vector", t_icrc_hw_vector},
    {"icrc_masks_ipv4", t_icrc_masks_ipv4},
    {"icrc_masks_ipv6", t_icrc_masks_ipv6},
    {"icrc_bad_input", t_icrc_bad_input},
    {"icrc_put_get", t_icrc_put_get},
    {"cfg_defaults", t_cfg_defaults},
    {"ep_init_rejects", t_ep_init_rejects},
    {"ep_init_qpn_base_range", t_ep_init_qpn_base_range},
    {"ep_port_set", t_ep_port_set},
    {"ep_mr_table", t_ep_mr_table},
    {"ep_api_args", t_ep_api_args},
    {"qp_transition_matrix", t_qp_transition_matrix},
    {"qp_mask_bits", t_qp_mask_bits},
    {"qp_attr_ranges", t_qp_attr_ranges},
    {"qp_modify_atomic", t_qp_modify_atomic},
    {"qp_query_roundtrip", t_qp_query_roundtrip},
    {"qp_conn_table", t_qp_conn_table},
    {"qp_post_write_rules", t_qp_post_write_rules},
    {"qp_send_queue_full", t_qp_send_queue_full},
    {"qp_post_recv_rules", t_qp_post_recv_rules},
    {"qp_err_flushes", t_qp_err_flushes},
    {"rsp_write_placed_and_sacked", t_rsp_write_placed_and_sacked},
    {"rsp_write_bounds_ok", t_rsp_write_bounds_ok},
    {"rsp_oob_write_rejected", t_rsp_oob_write_rejected},
    {"rsp_duplicate_not_replaced", t_rsp_duplicate_not_replaced},
    {"rsp_psn_window", t_rsp_psn_window},
    {"rsp_trimmed_nacked", t_rsp_trimmed_nacked},
    {"rsp_trimmed_into_headers", t_rsp_trimmed_into_headers},
    {"rsp_drop_counters", t_rsp_drop_counters},
    {"rsp_place_hook", t_rsp_place_hook},
    {"rsp_wimm_overflow", t_rsp_wimm_overflow},
    {"rsp_wimm_order_reverse", t_rsp_wimm_order_reverse},
    {"rsp_imm_waits_for_recv", t_rsp_imm_waits_for_recv},
    {"rsp_probe_answer", t_rsp_probe_answer},
    {"rsp_sack_mpr_advertised", t_rsp_sack_mpr_advertised},
    {"ep_poll_tx_copy_nobuf", t_ep_poll_tx_copy_nobuf},
    {"req_segmentation", t_req_segmentation},
    {"req_window_and_wimm_limits", t_req_window_and_wimm_limits},
    {"req_nack_retransmits", t_req_nack_retransmits},
    {"req_nack_front_of_queue", t_req_nack_front_of_queue},
    {"req_nack_superseded", t_req_nack_superseded},
    {"req_nack_unexp_event", t_req_nack_unexp_event},
    {"req_nack_bogus_and_stale", t_req_nack_bogus_and_stale},
    {"req_sack_bogus", t_req_sack_bogus},
    {"req_aeth_nak", t_req_aeth_nak},
    {"req_aeth_bogus", t_req_aeth_bogus},
    {"req_sack_completes_in_order", t_req_sack_completes_in_order},
    {"req_sack_no_early_completion", t_req_sack_no_early_completion},
    {"names_and_errors", t_names_and_errors},
    {"rsp_sack_coalescing", t_rsp_sack_coalescing},
    {"rsp_sack_every_and_delay", t_rsp_sack_every_and_delay},
    {"rsp_sack_burst_keeps_slices", t_rsp_sack_burst_keeps_slices},
    {"rsp_tack_every", t_rsp_tack_every},
    {"rsp_reply_port_fallback", t_rsp_reply_port_fallback},
    {"rsp_ctlq_overflow", t_rsp_ctlq_overflow},
    {"ep_time_monotonic", t_ep_time_monotonic},
    {"req_tail_probe_timing", t_req_tail_probe_timing},
    {"rsp_check_order", t_rsp_check_order},
    {"wire_opts_on_tx", t_wire_opts_on_tx},
    {"req_rto_schedule", t_req_rto_schedule},
    {"req_sack_hole_loss", t_req_sack_hole_loss},
    {"req_sack_ev_attribution", t_req_sack_ev_attribution},
    {"req_ports_down", t_req_ports_down},
    /* scenarios: two endpoints over the seeded virtual-time wire (tests/fixtures/mrc_wire.h) */
    {"sc_bulk_bidir", t_sc_bulk_bidir},
    {"sc_wimm_order", t_sc_wimm_order},
    {"sc_wimm_limit", t_sc_wimm_limit},
    {"sc_wimm_overflow", t_sc_wimm_overflow},
    {"sc_rto_backoff", t_sc_rto_backoff},
    {"sc_retry_exhaust", t_sc_retry_exhaust},
    {"sc_psn_wrap", t_sc_psn_wrap},
    {"sc_tail_loss", t_sc_tail_loss},
    {"sc_trim", t_sc_trim},
    {"sc_mpr_window", t_sc_mpr_window},
    {"sc_mpr_mismatch", t_sc_mpr_mismatch},
    {"sc_cwnd", t_sc_cwnd},
    {"sc_sack_every", t_sc_sack_every},
    {"sc_sack_immediate", t_sc_sack_immediate},
    {"sc_sack_timer", t_sc_sack_timer},
    {"sc_determinism", t_sc_determinism},
    {"sc_multi_conn", t_sc_multi_conn},
    {"sc_pool_share", t_sc_pool_share},
    {"sc_pool_reclaim", t_sc_pool_reclaim},
    {"sc_plane_down", t_sc_plane_down},
    {"sc_peer_err", t_sc_peer_err},
    {"sc_msn_wrap", t_sc_msn_wrap},
    {"sc_late_recv", t_sc_late_recv},
    {"sc_all_ports_down", t_sc_all_ports_down},
    {"sc_hostile_corruption", t_sc_hostile_corruption},
    {"sc_rtr_responder", t_sc_rtr_responder},
    {"sc_access_error", t_sc_access_error},
    {"sc_burst_ctlq", t_sc_burst_ctlq},
    {"sc_random_config", t_sc_random_config},
    {"sc_loss_slack", t_sc_loss_slack},
    {"sc_reo_timer", t_sc_reo_timer},
    {"sc_tlp_copies", t_sc_tlp_copies},
    {"sc_reply_port", t_sc_reply_port},
    {"ev_blackhole_one_ev", t_sc_blackhole_ev},
    {"sc_rto_progress", t_sc_rto_progress},
    {"sc_modify_timeout", t_sc_modify_timeout},
    MRC_TEST_EV_ENTRIES
    MRC_TEST_CC_ENTRIES
    MRC_TEST_API_ENTRIES
    MRC_TEST_HOSTILE_ENTRIES
    MRC_TEST_LIVE_ENTRIES
    MRC_TEST_CODEC_FAST_ENTRIES
};

static int has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

int main(int argc, char **argv) {
    const char *inc[32], *exc[32];
    int ninc = 0, nexc = 0, list = 0, i;
    unsigned pass = 0, fail = 0;
    const char *env = getenv("MRC_TEST_SEED");
    if (env && *env) g_seed = strtoull(env, NULL, 0);
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc && ninc < 32) inc[ninc++] = argv[++i];
        else if (!strcmp(argv[i], "-x") && i + 1 < argc && nexc < 32) exc[nexc++] = argv[++i];
        else if (!strcmp(argv[i], "-l")) list = 1;
        else if (!strcmp(argv[i], "-v")) g_verbose = 1;
        else {
            fprintf(stderr, "mrc_test: unknown argument '%s' (use -t NAME, -x NAME, -l, -v)\n", argv[i]);
            return 2;
        }
    }
    for (i = 0; i < (int)(sizeof tests / sizeof tests[0]); i++) {
        int j, sel = ninc == 0, r;
        for (j = 0; j < ninc; j++) sel |= has(tests[i].name, inc[j]);
        for (j = 0; j < nexc; j++) sel &= !has(tests[i].name, exc[j]);
        if (!sel) continue;
        if (list) {
            printf("%s\n", tests[i].name);
            continue;
        }
        g_test = tests[i].name;
        if (g_verbose) printf("%s\n", g_test);
        fflush(stdout);
        r = tests[i].fn();
        if (r == 0) pass++;
        else {
            fail++;
            printf("FAIL %s (MRC_TEST_SEED=%llu ./mrc_test -t %s)\n", tests[i].name, (unsigned long long)g_seed,
                   tests[i].name);
        }
    }
    if (list) return 0;
    printf("%u passed, %u failed\n", pass, fail);
    return fail != 0;
}
