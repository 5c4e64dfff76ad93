/* tests/packet.c - the packet classifier (mrc_pkt_decode, mrc_opcode_hdrs), PSN serial arithmetic, CRC-32 and the RoCEv2
 * ICRC.
 */
#include "test.h"

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

const test_entry test_packet[] = {
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
    {NULL, NULL},
};
