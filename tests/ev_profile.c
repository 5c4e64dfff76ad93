/* tests/ev_profile.c - multipath: EV expansion vectors and the EV's header fields, the profile lifecycle and the EV
 * operations of the controller API, EV_PROBE endpoint operations, and the controller event ring (issue #3). Helpers and
 * the event log: tests/harness.c (ev_*).
 */
#include "test.h"

/* ================================================================================================================
 * 7. EV expansion (docs/PROTOCOL.md 7.1) and the EV's header fields (Q16, Q18): vectors computed by hand from the algorithm's
 * text, never from the implementation. Per profile field: init_val, then popcount(mask) abstract bits read most
 * significant first and laid on the mask's set bits from the lowest up (so the highest set bit gets the first bit
 * read), written right-aligned in the format field; format fields past the profile's are zero; abstract bits left
 * over must be zero. Invalid profiles and formats are rejected with MRC_ERR_INVAL (a short output buffer:
 * MRC_ERR_NOBUF). Through profiles, a QP's EV entropy is the whole expanded EV for UDP and STEV and, for SRv6, the
 * abstract bits when they fit in 32, else the EV's index (Q18).
 * ============================================================================================================== */
static mrc_endpoint g_ev_ep[2]; /* for unit tests without a wire */
/* an invalid profile: both the check and the expansion say MRC_ERR_INVAL */
static int ev_bad(const char *what, const mrc_ev_fmt_attr *fmt, const mrc_ev_field *f, unsigned nf) {
    static const uint8_t abs[MRC_EV_BYTES] = {0};
    uint8_t out[MRC_EV_BYTES];
    int rc = mrc_ev_profile_check(fmt, f, nf), rc2 = mrc_ev_expand(fmt, f, nf, abs, sizeof abs, out, sizeof out);
    CHECKF(rc == MRC_ERR_INVAL && rc2 == MRC_ERR_INVAL, "%s: check %d, expand %d, want MRC_ERR_INVAL", what, rc, rc2);
    return 0;
}
/* the entropies a QP using profile id gets, through a connection brought to INIT */
static int ev_prof_entropies(mrc_endpoint *ep, uint64_t id, uint32_t *ent, uint8_t *port, unsigned n) {
    mrc_conn *c = (mrc_conn *)calloc(1, sizeof *c);
    mrc_conn_attr a;
    unsigned i;
    int rc = -1;
    if (!c) return -1;
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_INIT;
    a.ev_profile_id = id;
    if (mrc_conn_init(ep, c, 0) == MRC_OK &&
        mrc_conn_modify(c, &a, MRC_ATTR_STATE | MRC_ATTR_EV_PROFILE | MRC_ATTR_CC_PROFILE, 0) == MRC_OK &&
        mrc_conn_ev_count(c) == n) {
        rc = 0;
        for (i = 0; i < n; i++)
            if (mrc_conn_ev_get(c, i, &ent[i], &port[i], NULL) != MRC_OK) rc = -1;
    }
    memset(&a, 0, sizeof a);
    a.state = MRC_QPS_RESET;
    (void)mrc_conn_modify(c, &a, MRC_ATTR_STATE, 0);
    (void)mrc_conn_destroy(c);
    free(c);
    return rc;
}
static int ev_hdrs_eq(const char *what, const mrc_ev_hdrs *h, uint16_t sport, uint32_t fl, const uint8_t *da,
                      const uint8_t *srh) {
    static const uint8_t z[16] = {0};
    CHECKF(h->udp_sport == sport && h->flow_label == fl && h->flow_label <= 0xFFFFFu,
           "%s: sport %#x flow label %#x, want %#x %#x", what, h->udp_sport, h->flow_label, sport, fl);
    CHECKF(h->has_srv6 == (da != NULL) && h->has_srh == (srh != NULL), "%s: has_srv6 %u has_srh %u", what, h->has_srv6,
           h->has_srh);
    CHECK(ut_bytes_eq(what, h->srv6_da, da ? da : z, 16));
    CHECK(ut_bytes_eq(what, h->srh_seg, srh ? srh : z, 16));
    return 0;
}
static int t_ev_expand_vectors(void) {
    static const uint8_t w16[1] = {16}, w8[1] = {8}, w32[1] = {32}, w16x2[2] = {16, 16}, w8_8_16[3] = {8, 8, 16};
    static const uint8_t w_da[7] = {32, 16, 16, 16, 16, 16, 16}, w_srh[8] = {32, 32, 32, 32, 32, 32, 32, 32};
    static const uint8_t abs_abcc[2] = {0xAB, 0xCC}, abs_abcd[2] = {0xAB, 0xCD}, want_eaf3[2] = {0xEA, 0xF3};
    static const uint8_t abs_a5[1] = {0xA5}, want_1a05[2] = {0x1A, 0x05};
    static const uint8_t abs_80[1] = {0x80}, abs_40[1] = {0x40}, want_80[1] = {0x80}, want_01[1] = {0x01};
    static const uint8_t want_08[1] = {0x08};
    static const uint8_t abs_3a[1] = {0x3A}, want_stev[4] = {0x01, 0x03, 0x02, 0x0A};
    static const uint8_t abs_90[1] = {0x90}, want_0529[4] = {0x05, 0x29, 0x00, 0x00};
    static const uint8_t abs_89[4] = {0x89, 0xAB, 0xCD, 0xEF};
    static const uint8_t abs_u[8] = {0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44};
    static const uint8_t want_cafe[16] = {0xCA, 0xFE, 0xCA, 0xFE, 0x11, 0x11, 0x22, 0x22,
                                          0x33, 0x33, 0x44, 0x44, 0x00, 0x00, 0x00, 0x00};
    static const uint8_t abs_a780[2] = {0xA7, 0x80};
    static const uint8_t want_fc[16] = {0xFC, 0x00, 0x00, 0x01, 0xE0, 0x05, 0xE1, 0x3C,
                                        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    static const uint8_t abs_dead[4] = {0xDE, 0xAD, 0xBE, 0xEF};
    static const uint8_t want_srh[32] = {0xFD, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                         0x00, 0xDE, 0xAD, 0x00, 0x00, 0xFD, 0x00, 0x00, 0x00, 0x00, 0x01,
                                         0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xBE, 0xEF};
    mrc_ev_fmt_attr fmt;
    mrc_ev_field f[8];
    mrc_ev_hdrs h;
    mrc_txinfo ti;
    mrc_config cfg;
    mrc_endpoint *ep = &g_ev_ep[0], *ep2 = &g_ev_ep[1];
    uint8_t out[MRC_EV_BYTES];
    unsigned i;

    /* UDP, contiguous mask: 14 bits 0x2AF3 (0xABCC >> 2) under init 0xC000 */
    ev_mkfmt(&fmt, MRC_EV_FMT_UDP, 1, w16);
    ev_field(&f[0], 16, 0xC000u, 0, 0, 0x3FFFu);
    if (ev_vec("udp", &fmt, f, 1, abs_abcc, 2, want_eaf3, 16)) return 1;
    /* ... the two abstract bits after the field's 14 must be zero: 0xABCD leaves 01 */
    memset(out, 0, sizeof out);
    CHECKF(mrc_ev_expand(&fmt, f, 1, abs_abcd, 2, out, sizeof out) == MRC_ERR_INVAL, "leftover abstract bits accepted");
    CHECK(mrc_ev_expand(&fmt, f, 1, abs_abcc, 1, out, sizeof out) == MRC_ERR_INVAL);     /* 8 bits for 14 */
    CHECK(mrc_ev_expand(&fmt, f, 1, abs_abcc, 2, out, 1) == MRC_ERR_NOBUF);              /* 16 bits into 8 */
    CHECK(mrc_ev_expand(&fmt, f, 1, abs_abcc, MRC_EV_BYTES + 1u, out, sizeof out) == MRC_ERR_INVAL);
    CHECK(mrc_ev_expand(&fmt, f, 1, NULL, 2, out, sizeof out) == MRC_ERR_INVAL);
    CHECK(mrc_ev_expand(NULL, f, 1, abs_abcc, 2, out, sizeof out) == MRC_ERR_INVAL);
    /* non-contiguous mask (notes' example): 0xA5 on mask 0x0F0F over init 0x1000 -> 0x1A05 */
    ev_field(&f[0], 16, 0x1000u, 0, 0, 0x0F0Fu);
    if (ev_vec("udp 0x0F0F", &fmt, f, 1, abs_a5, 1, want_1a05, 16)) return 1;
    /* the first bit read lands on the highest mask bit: mask 0x81 takes "10" as 0x80, "01" as 0x01 */
    ev_mkfmt(&fmt, MRC_EV_FMT_UDP, 1, w8);
    ev_field(&f[0], 8, 0, 0, 0, 0x81u);
    if (ev_vec("mask 0x81 <- 10", &fmt, f, 1, abs_80, 1, want_80, 8)) return 1;
    if (ev_vec("mask 0x81 <- 01", &fmt, f, 1, abs_40, 1, want_01, 8)) return 1;
    ev_field(&f[0], 8, 0, 0, 0, 0x0Au);
    if (ev_vec("mask 0x0A <- 10", &fmt, f, 1, abs_80, 1, want_08, 8)) return 1;
    /* STEV (notes' example): fixed high bytes 0x01 / 0x02, 4 random bits each; 0x3A -> 01 03 02 0A */
    ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 2, w16x2);
    ev_field(&f[0], 16, 0x0100u, 1, 15, 0x000Fu);
    ev_field(&f[1], 16, 0x0200u, 1, 15, 0x000Fu);
    if (ev_vec("stev", &fmt, f, 2, abs_3a, 1, want_stev, 32)) return 1;
    /* profile fields narrower than the format's, and a format field with no profile field: 4-bit fixed 5 in 8 bits,
     * 6-bit 0x20 | 0x9 in 8 bits, then 16 zero bits */
    ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 3, w8_8_16);
    ev_field(&f[0], 4, 0x5u, 0, 0, 0);
    ev_field(&f[1], 6, 0x20u, 0, 0, 0x0Fu);
    if (ev_vec("stev narrow", &fmt, f, 2, abs_90, 1, want_0529, 32)) return 1;
    /* one 32-bit field with a full mask (the width-32 edge case) and max_val 2^32 - 1 */
    ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 1, w32);
    ev_field(&f[0], 32, 0, 0, 0xFFFFFFFFu, 0xFFFFFFFFu);
    if (ev_vec("stev 32", &fmt, f, 1, abs_89, 4, abs_89, 32)) return 1;
    /* SRv6 (notes' example): locator cafe:cafe fixed, four 16-bit uSIDs from 64 abstract bits */
    ev_mkfmt(&fmt, MRC_EV_FMT_SRV6, 7, w_da);
    ev_field(&f[0], 32, 0xCAFECAFEu, 0, 0, 0);
    for (i = 1; i <= 4; i++) ev_field(&f[i], 16, 0, 0, 0, 0xFFFFu);
    if (ev_vec("srv6", &fmt, f, 5, abs_u, 8, want_cafe, 128)) return 1;
    /* SRv6 with a few bits per uSID: 3 plane bits into e000, 8 uplink bits into e100; "101" + "00111100" */
    ev_field(&f[0], 32, 0xFC000001u, 0, 0, 0);
    ev_field(&f[1], 16, 0xE000u, 0, 0, 0x0007u);
    ev_field(&f[2], 16, 0xE100u, 0, 0, 0x00FFu);
    if (ev_vec("srv6 few", &fmt, f, 3, abs_a780, 2, want_fc, 128)) return 1;
    /* SRv6 + one SRH segment (256 bits): 16 bits into the DA's 4th word, 16 into the segment's last */
    ev_mkfmt(&fmt, MRC_EV_FMT_SRV6, 8, w_srh);
    ev_field(&f[0], 32, 0xFD000000u, 0, 0, 0);
    ev_field(&f[1], 32, 0, 0, 0, 0);
    ev_field(&f[2], 32, 0, 0, 0, 0);
    ev_field(&f[3], 32, 0, 0, 0, 0xFFFF0000u);
    ev_field(&f[4], 32, 0xFD000000u, 0, 0, 0);
    ev_field(&f[5], 32, 0x00010002u, 0, 0, 0);
    ev_field(&f[6], 32, 0, 0, 0, 0);
    ev_field(&f[7], 32, 0, 0, 0, 0x0000FFFFu);
    if (ev_vec("srv6+srh", &fmt, f, 8, abs_dead, 4, want_srh, 256)) return 1;

    /* invalid profiles */
    ev_mkfmt(&fmt, MRC_EV_FMT_UDP, 1, w8);
    ev_field(&f[0], 8, 0, 0, 0, 0xFFu);
    ev_field(&f[1], 8, 0, 0, 0, 0xFFu);
    if (ev_bad("more fields than the format", &fmt, f, 2)) return 1;
    if (ev_bad("no field", &fmt, f, 0)) return 1;
    ev_field(&f[0], 16, 0, 0, 0, 0xFFu);
    if (ev_bad("field wider than its format field", &fmt, f, 1)) return 1;
    ev_field(&f[0], 0, 0, 0, 0, 0);
    if (ev_bad("width 0", &fmt, f, 1)) return 1;
    ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 1, w32);
    ev_field(&f[0], 33, 0, 0, 0, 0);
    if (ev_bad("width 33", &fmt, f, 1)) return 1;
    ev_field(&f[0], 16, 0x1FFFFu, 0, 0, 0);
    if (ev_bad("init_val wider than the field", &fmt, f, 1)) return 1;
    ev_field(&f[0], 16, 0, 0, 0, 0x10000u);
    if (ev_bad("mask outside the field", &fmt, f, 1)) return 1;
    ev_field(&f[0], 16, 0, 0, 16, 0x0Fu);
    if (ev_bad("max_val >= 2^popcount(mask)", &fmt, f, 1)) return 1;
    ev_field(&f[0], 16, 0, 5, 4, 0x0Fu);
    if (ev_bad("min_val > max_val", &fmt, f, 1)) return 1;
    ev_field(&f[0], 16, 0x1234u, 0, 3, 0);
    if (ev_bad("a fixed field with a range", &fmt, f, 1)) return 1;
    ev_field(&f[0], 8, 0, 0, 0, 0xFFu);
    {
        static const uint8_t w_udp24[2] = {8, 16}, w_stev40[3] = {16, 16, 8}, w0[1] = {0}, w33[1] = {33};
        ev_mkfmt(&fmt, MRC_EV_FMT_UDP, 2, w_udp24);
        if (ev_bad("UDP format over 16 bits", &fmt, f, 1)) return 1;
        ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 3, w_stev40);
        if (ev_bad("STEV format over 32 bits", &fmt, f, 1)) return 1;
        ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 1, w0);
        if (ev_bad("format width 0", &fmt, f, 1)) return 1;
        ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 1, w33);
        if (ev_bad("format width 33", &fmt, f, 1)) return 1;
        ev_mkfmt(&fmt, 3, 1, w8);
        if (ev_bad("unknown format mode", &fmt, f, 1)) return 1;
        CHECK(mrc_ev_profile_check(NULL, f, 1) == MRC_ERR_INVAL);
        /* the endpoint refuses the same formats */
        CHECK(mrc_endpoint_init(ep, NULL, 0) == MRC_OK);
        ev_mkfmt(&fmt, MRC_EV_FMT_UDP, 2, w_udp24);
        fmt.state = MRC_PROFILE_OFFLINE;
        CHECK(mrc_ev_fmt_modify(ep, 9, &fmt, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS) ==
              MRC_ERR_INVAL);
        ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 1, w33);
        fmt.state = MRC_PROFILE_OFFLINE;
        CHECK(mrc_ev_fmt_modify(ep, 9, &fmt, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS) ==
              MRC_ERR_INVAL);
        CHECK(mrc_ev_fmt_query(ep, 9, &fmt) == MRC_ERR_NOENT); /* nothing was created */
    }

    /* the header fields (mrc_endpoint_ev_headers) of hand-made txinfos; default stev_sport_high: bits 31:16 ->
     * UDP source port, 15:0 -> flow label; ep2 the other way round */
    mrc_config_default(&cfg);
    cfg.stev_sport_high = false;
    CHECK(mrc_endpoint_init(ep2, &cfg, 0) == MRC_OK);
    memset(&ti, 0, sizeof ti);
    ti.ev = 0xEAF3u;
    ti.ev_fmt = MRC_EV_FMT_UDP;
    CHECK(mrc_endpoint_ev_headers(ep, &ti, &h) == MRC_OK);
    if (ev_hdrs_eq("udp", &h, 0xEAF3u, 0, NULL, NULL)) return 1;
    ti.ev = 0x0103020Au;
    ti.ev_fmt = MRC_EV_FMT_STEV;
    CHECK(mrc_endpoint_ev_headers(ep, &ti, &h) == MRC_OK);
    if (ev_hdrs_eq("stev high", &h, 0x0103u, 0x020Au, NULL, NULL)) return 1;
    CHECK(mrc_endpoint_ev_headers(ep2, &ti, &h) == MRC_OK);
    if (ev_hdrs_eq("stev low", &h, 0x020Au, 0x0103u, NULL, NULL)) return 1;
    ti.ev = 0x53Cu; /* "srv6 few": 11 abstract bits 101 00111100 */
    ti.ev_fmt = MRC_EV_FMT_SRV6;
    ti.path = want_fc;
    ti.path_len = 16;
    CHECK(mrc_endpoint_ev_headers(ep, &ti, &h) == MRC_OK);
    if (ev_hdrs_eq("srv6", &h, 0x0000u, 0x053Cu, want_fc, NULL)) return 1;
    ti.ev = 0xDEADBEEFu;
    ti.path = want_srh;
    ti.path_len = 32;
    CHECK(mrc_endpoint_ev_headers(ep, &ti, &h) == MRC_OK);
    if (ev_hdrs_eq("srv6+srh", &h, 0xDEADu, 0xBEEFu, want_srh, want_srh + 16)) return 1;
    ti.path_len = 0;
    CHECK(mrc_endpoint_ev_headers(ep, &ti, &h) == MRC_ERR_INVAL); /* SRv6 without a path */
    ti.path_len = 16;
    ti.path = NULL;
    CHECK(mrc_endpoint_ev_headers(ep, &ti, &h) == MRC_ERR_INVAL);
    ti.ev_fmt = 3;
    CHECK(mrc_endpoint_ev_headers(ep, &ti, &h) == MRC_ERR_INVAL);
    CHECK(mrc_endpoint_ev_headers(NULL, &ti, &h) == MRC_ERR_INVAL);

    /* through profiles and a QP: the entropy each EV gets (Q18) */
    {
        static const uint8_t v_udp[2][MRC_EV_BYTES] = {{0xAB, 0xCC}, {0x00, 0x04}};
        static const uint8_t v_stev[2][MRC_EV_BYTES] = {{0x3A}, {0xF1}};
        static const uint8_t v_da[2][MRC_EV_BYTES] = {{0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44},
                                                      {0xA5, 0xA5, 0, 0, 0, 0, 0, 0x01}};
        static const uint8_t v_few[2][MRC_EV_BYTES] = {{0xA7, 0x80}, {0x20, 0x20}};
        static const uint8_t v_srh[2][MRC_EV_BYTES] = {{0xDE, 0xAD, 0xBE, 0xEF}, {0x01, 0x23, 0x45, 0x67}};
        static const uint8_t ports[2] = {3, 8};
        uint32_t ent[2];
        uint8_t pt[2];
        ev_mkfmt(&fmt, MRC_EV_FMT_UDP, 1, w16);
        CHECK(ev_fmt_online(ep, 1, fmt.mode, fmt.nfields, fmt.width) == MRC_OK);
        ev_field(&f[0], 16, 0xC000u, 0, 0, 0x3FFFu);
        CHECK(ev_exp_online(ep, 11, 1, f, 1, 2, v_udp, ports) == MRC_OK);
        CHECK(ev_prof_entropies(ep, 11, ent, pt, 2) == 0);
        CHECKF(ent[0] == 0xEAF3u && ent[1] == 0xC001u && pt[0] == 3 && pt[1] == 8, "udp entropies %#x %#x", ent[0],
               ent[1]);
        ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 2, w16x2);
        CHECK(ev_fmt_online(ep, 2, fmt.mode, fmt.nfields, fmt.width) == MRC_OK);
        ev_field(&f[0], 16, 0x0100u, 0, 0, 0x000Fu);
        ev_field(&f[1], 16, 0x0200u, 0, 0, 0x000Fu);
        CHECK(ev_exp_online(ep, 12, 2, f, 2, 2, v_stev, ports) == MRC_OK);
        CHECK(ev_prof_entropies(ep, 12, ent, pt, 2) == 0);
        CHECKF(ent[0] == 0x0103020Au && ent[1] == 0x010F0201u, "stev entropies %#x %#x", ent[0], ent[1]);
        ev_mkfmt(&fmt, MRC_EV_FMT_SRV6, 7, w_da);
        CHECK(ev_fmt_online(ep, 3, fmt.mode, fmt.nfields, fmt.width) == MRC_OK);
        ev_field(&f[0], 32, 0xCAFECAFEu, 0, 0, 0);
        for (i = 1; i <= 4; i++) ev_field(&f[i], 16, 0, 0, 0, 0xFFFFu);
        CHECK(ev_exp_online(ep, 13, 3, f, 5, 2, v_da, ports) == MRC_OK);
        CHECK(ev_prof_entropies(ep, 13, ent, pt, 2) == 0);
        CHECKF(ent[0] == 0 && ent[1] == 1, "srv6 64 abstract bits: entropies %#x %#x, want the indexes", ent[0],
               ent[1]);
        ev_field(&f[0], 32, 0xFC000001u, 0, 0, 0);
        ev_field(&f[1], 16, 0xE000u, 0, 0, 0x0007u);
        ev_field(&f[2], 16, 0xE100u, 0, 0, 0x00FFu);
        CHECK(ev_exp_online(ep, 14, 3, f, 3, 2, v_few, ports) == MRC_OK);
        CHECK(ev_prof_entropies(ep, 14, ent, pt, 2) == 0);
        CHECKF(ent[0] == 0x53Cu && ent[1] == 0x101u, "srv6 11 abstract bits: entropies %#x %#x", ent[0], ent[1]);
        /* SRv6 + SRH with exactly 32 abstract bits: still the bits themselves */
        ev_mkfmt(&fmt, MRC_EV_FMT_SRV6, 8, w_srh);
        CHECK(ev_fmt_online(ep2, 4, fmt.mode, fmt.nfields, fmt.width) == MRC_OK); /* ep's 4 profile slots are used */
        ev_field(&f[0], 32, 0xFD000000u, 0, 0, 0);
        ev_field(&f[1], 32, 0, 0, 0, 0);
        ev_field(&f[2], 32, 0, 0, 0, 0);
        ev_field(&f[3], 32, 0, 0, 0, 0xFFFF0000u);
        ev_field(&f[4], 32, 0xFD000000u, 0, 0, 0);
        ev_field(&f[5], 32, 0x00010002u, 0, 0, 0);
        ev_field(&f[6], 32, 0, 0, 0, 0);
        ev_field(&f[7], 32, 0, 0, 0, 0x0000FFFFu);
        CHECK(ev_exp_online(ep2, 15, 4, f, 8, 2, v_srh, ports) == MRC_OK);
        CHECK(ev_prof_entropies(ep2, 15, ent, pt, 2) == 0);
        CHECKF(ent[0] == 0xDEADBEEFu && ent[1] == 0x01234567u, "srv6+srh 32 abstract bits: entropies %#x %#x", ent[0],
               ent[1]);
    }
    return 0;
}

/* GEN profiles: every generated abstract EV is in its fields' ranges (min_val = max_val = 0: any non-zero value),
 * carries no bits past the fields, sits on port i % num_ports + 1, and expands to its QP entropy */
static int t_ev_gen_profile(void) {
    static const uint8_t w16x2[2] = {16, 16};
    static mrc_ev_op_entry arr[64];
    mrc_endpoint *ep = &g_ev_ep[0];
    mrc_ev_fmt_attr fmt;
    mrc_ev_field f[2];
    mrc_config cfg;
    uint32_t ent[64], n = 64;
    uint8_t pt[64], out[MRC_EV_BYTES];
    unsigned i, j;
    mrc_config_default(&cfg);
    cfg.seed = g_seed * 0x9E3779B97F4A7C15ull + 0x6E6u;
    CHECK(mrc_endpoint_init(ep, &cfg, 0) == MRC_OK);
    ev_mkfmt(&fmt, MRC_EV_FMT_STEV, 2, w16x2);
    CHECK(ev_fmt_online(ep, 1, fmt.mode, fmt.nfields, fmt.width) == MRC_OK);
    ev_field(&f[0], 16, 0xC000u, 0x100u, 0x1FFu, 0x3FFFu); /* 14 bits in [0x100, 0x1FF] */
    ev_field(&f[1], 16, 0xAB00u, 0, 0, 0x00FFu);          /* 8 bits, any non-zero */
    if (ev_prof_offline(ep, 2, MRC_EV_MODE_GEN, 1, 64, 8, f, 2, 0)) return 1;
    CHECK(ev_prof_state(ep, 2, MRC_PROFILE_ONLINE, 0) == MRC_OK);
    CHECK(mrc_ev_op(ep, 2, MRC_EV_OP_QUERY_ARRAY, arr, &n, 0) == MRC_OK && n == 64);
    CHECK(ev_prof_entropies(ep, 2, ent, pt, 64) == 0);
    for (i = 0; i < 64; i++) {
        uint32_t x = ((uint32_t)arr[i].ev.val[0] << 6) | ((uint32_t)arr[i].ev.val[1] >> 2); /* first 14 bits */
        uint32_t y = (((uint32_t)arr[i].ev.val[1] & 3u) << 6) | ((uint32_t)arr[i].ev.val[2] >> 2); /* next 8 */
        CHECKF(x >= 0x100u && x <= 0x1FFu && y >= 1u && y <= 0xFFu, "EV %u: generated %#x, %#x", i, x, y);
        CHECKF((arr[i].ev.val[2] & 3u) == 0 && ut_all(arr[i].ev.val + 3, MRC_EV_BYTES - 3u, 0), "EV %u: extra bits", i);
        CHECKF(arr[i].ev.port == i % 8u + 1u && pt[i] == arr[i].ev.port && arr[i].state == MRC_EVS_GOOD,
               "EV %u: port %u (QP %u), state %#x", i, arr[i].ev.port, pt[i], arr[i].state);
        CHECKF(ent[i] == ((0xC000u | x) << 16 | 0xAB00u | y), "EV %u: entropy %#x for %#x, %#x", i, ent[i], x, y);
        CHECK(mrc_ev_expand(&fmt, f, 2, arr[i].ev.val, MRC_EV_BYTES, out, sizeof out) == 32);
        CHECK(((uint32_t)out[0] << 24 | (uint32_t)out[1] << 16 | (uint32_t)out[2] << 8 | out[3]) == ent[i]);
        for (j = 0; j < i; j++) /* distinct per port while the ranges allow (256 x 255 values here) */
            CHECKF(arr[j].ev.port != arr[i].ev.port || memcmp(arr[j].ev.val, arr[i].ev.val, MRC_EV_BYTES),
                   "EVs %u and %u are the same", j, i);
    }
    return 0;
}

/* ================================================================================================================
 * 8. Profile lifecycle: INIT -> OFFLINE -> ONLINE -> OFFLINE -> INIT for EV Formats and EV profiles, every illegal
 * transition or change rejected with its documented code, and the EV operations of an explicit (EXP) profile:
 * REPLACE (populating, replacing under a QP, first copy or ALL_COPIES, DENIED), MODIFY_STATE, QUERY_STATE,
 * QUERY_ARRAY. Then (ev_exp_wire) EXP profiles in STEV and SRv6+SRH formats carry a transfer: every packet's EV and
 * its header fields match the hand-computed expansion, and an EV replaced mid-transfer is used at once, the old one
 * never again.
 * ============================================================================================================== */
static mrc_conn g_ev_conn;
#define EV_FA (MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS)
#define EV_PA_NEED (MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_MODE | MRC_EV_PROF_ATTR_FMT_ID | MRC_EV_PROF_ATTR_COUNT | \
                    MRC_EV_PROF_ATTR_FIELDS)
static int ev_op1(mrc_endpoint *ep, uint64_t id, unsigned op, mrc_ev_op_entry *e) {
    uint32_t n = 1;
    int rc = mrc_ev_op(ep, id, op, e, &n, 0);
    return rc == MRC_OK && n != 1 ? -99 : rc;
}
static void ev_entry(mrc_ev_op_entry *e, uint8_t v0, uint8_t v1, uint8_t port, uint8_t n0, uint8_t n1, uint8_t nport,
                     uint32_t state) {
    memset(e, 0, sizeof *e);
    e->ev.val[0] = v0;
    e->ev.val[1] = v1;
    e->ev.port = port;
    e->ev_new.val[0] = n0;
    e->ev_new.val[1] = n1;
    e->ev_new.port = nport;
    e->state = state;
}
static int t_ev_profile_lifecycle(void) {
    static const uint8_t w16[1] = {16}, w8x2[2] = {8, 8};
    mrc_endpoint *ep = &g_ev_ep[0];
    mrc_conn *c = &g_ev_conn;
    mrc_ev_fmt_attr fa, fq;
    mrc_ev_profile_attr pa, pq;
    mrc_conn_attr ca;
    mrc_ev_op_entry e[4], arr[4];
    mrc_event evt;
    uint32_t n, v;
    uint8_t port;
    unsigned i;
    CHECK(mrc_endpoint_init(ep, NULL, 0) == MRC_OK);

    /* ---- EV Format profile 5 ---- */
    CHECK(mrc_ev_fmt_query(ep, 5, &fq) == MRC_ERR_NOENT); /* an unknown ID is in INIT */
    ev_mkfmt(&fa, MRC_EV_FMT_UDP, 1, w16);
    fa.state = MRC_PROFILE_OFFLINE;
    CHECK(mrc_ev_fmt_modify(ep, 0, &fa, EV_FA) == MRC_ERR_INVAL); /* ID 0 is not a format */
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, EV_FA | 8u) == MRC_ERR_INVAL);
    fa.state = MRC_PROFILE_ONLINE;
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, EV_FA) == MRC_ERR_STATE); /* INIT -> ONLINE skips OFFLINE */
    fa.state = 3;
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, EV_FA) == MRC_ERR_INVAL);
    fa.state = MRC_PROFILE_OFFLINE;
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_STATE) == MRC_ERR_INVAL); /* OFFLINE needs a MODE */
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_FIELDS) == MRC_ERR_STATE); /* no configuring in INIT */
    fa.mode = 5;
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE) == MRC_ERR_INVAL);
    fa.mode = MRC_EV_FMT_UDP;
    CHECK(mrc_ev_fmt_query(ep, 5, &fq) == MRC_ERR_NOENT); /* nothing created by the failures */
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE) == MRC_OK);
    CHECK(mrc_ev_fmt_query(ep, 5, &fq) == MRC_OK && fq.state == MRC_PROFILE_OFFLINE && fq.mode == MRC_EV_FMT_UDP &&
          fq.nfields == 0);
    fa.state = MRC_PROFILE_ONLINE;
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_STATE) == MRC_ERR_INVAL); /* ONLINE needs the fields */
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_FIELDS) == MRC_OK);        /* configured in OFFLINE */
    CHECK(mrc_ev_fmt_query(ep, 5, &fq) == MRC_OK && fq.state == MRC_PROFILE_OFFLINE && fq.nfields == 1 &&
          fq.width[0] == 16);
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_STATE) == MRC_OK);
    CHECK(mrc_ev_fmt_query(ep, 5, &fq) == MRC_OK && fq.state == MRC_PROFILE_ONLINE);
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_MODE) == MRC_ERR_STATE); /* ONLINE: state changes only */
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_FIELDS) == MRC_ERR_STATE);
    fa.state = MRC_PROFILE_INIT;
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_STATE) == MRC_ERR_STATE); /* ONLINE -> INIT skips OFFLINE */
    ev_mkfmt(&fa, MRC_EV_FMT_STEV, 2, w8x2); /* format 6 stays OFFLINE */
    fa.state = MRC_PROFILE_OFFLINE;
    CHECK(mrc_ev_fmt_modify(ep, 6, &fa, EV_FA) == MRC_OK);

    /* ---- EV profile 7: EXP, 4 EVs over format 5 ---- */
    memset(&pa, 0, sizeof pa);
    pa.state = MRC_PROFILE_OFFLINE;
    pa.mode = MRC_EV_MODE_EXP;
    pa.fmt_id = 5;
    pa.ev_count = 4;
    pa.nfields = 1;
    ev_field(&pa.field[0], 16, 0xC000u, 0, 0, 0x3FFFu);
    CHECK(mrc_ev_profile_modify(ep, 0, &pa, EV_PA_NEED, 0) == MRC_ERR_INVAL); /* AUTO (ID 0) is built in */
    CHECK(mrc_ev_profile_query(ep, 0, &pq) == MRC_OK && pq.mode == MRC_EV_MODE_AUTO &&
          pq.state == MRC_PROFILE_ONLINE && pq.ev_count == 128 && pq.ev_min_active == 16);
    pa.state = MRC_PROFILE_ONLINE;
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, EV_PA_NEED, 0) == MRC_ERR_STATE);
    pa.state = MRC_PROFILE_OFFLINE;
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, EV_PA_NEED & ~MRC_EV_PROF_ATTR_FIELDS, 0) == MRC_ERR_INVAL);
    pa.mode = MRC_EV_MODE_AUTO;
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, EV_PA_NEED, 0) == MRC_ERR_INVAL);
    pa.mode = MRC_EV_MODE_EXP;
    pa.ev_count = 0;
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, EV_PA_NEED, 0) == MRC_ERR_INVAL);
    pa.ev_count = MRC_MAX_EVS + 1u;
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, EV_PA_NEED, 0) == MRC_ERR_INVAL);
    pa.ev_count = 4;
    pa.event_mask = MRC_EVS_DENIED;
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, EV_PA_NEED | MRC_EV_PROF_ATTR_EVENT_MASK, 0) == MRC_ERR_INVAL);
    pa.event_mask = MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD;
    pa.ev_min_active = 5;
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, EV_PA_NEED | MRC_EV_PROF_ATTR_MIN_ACTIVE, 0) == MRC_ERR_INVAL);
    pa.ev_min_active = 2;
    pa.field[0].width = 17; /* wider than the format's 16 */
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, EV_PA_NEED, 0) == MRC_ERR_INVAL);
    pa.field[0].width = 16;
    CHECK(mrc_ev_profile_query(ep, 7, &pq) == MRC_ERR_NOENT);
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, EV_PA_NEED, 0) == MRC_OK);
    CHECK(mrc_ev_profile_query(ep, 7, &pq) == MRC_OK && pq.state == MRC_PROFILE_OFFLINE &&
          pq.mode == MRC_EV_MODE_EXP && pq.ev_count == 4 && pq.fmt_id == 5 && pq.nfields == 1 &&
          pq.field[0].mask == 0x3FFFu);
    CHECK(ev_prof_state(ep, 7, MRC_PROFILE_ONLINE, 0) == MRC_ERR_INVAL); /* MIN_ACTIVE, EVENT_MASK not given */
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, MRC_EV_PROF_ATTR_MIN_ACTIVE, 0) == MRC_OK);
    CHECK(ev_prof_state(ep, 7, MRC_PROFILE_ONLINE, 0) == MRC_ERR_INVAL);
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, MRC_EV_PROF_ATTR_EVENT_MASK, 0) == MRC_OK);
    CHECK(ev_prof_state(ep, 7, MRC_PROFILE_ONLINE, 0) == MRC_ERR_INVAL); /* EXP: EVs not populated */
    /* REPLACE populates; a batch stops at its first bad entry, *n = entries done */
    ev_entry(&e[0], 0, 0, 0, 0x00, 0x04, 1, MRC_EVS_GOOD);           /* EV 0: 0xC001 on port 1 */
    ev_entry(&e[1], 0, 0, 0, 0x00, 0x08, 2, MRC_EVS_ASSUMED_BAD);    /* not a state REPLACE sets */
    ev_entry(&e[2], 0, 0, 0, 0x00, 0x0C, 2, MRC_EVS_GOOD);
    n = 3;
    CHECK(mrc_ev_op(ep, 7, MRC_EV_OP_REPLACE, e, &n, 0) == MRC_ERR_INVAL && n == 1);
    ev_entry(&e[0], 0, 0, 0, 0x00, 0x08, 0, MRC_EVS_GOOD);
    CHECK(ev_op1(ep, 7, MRC_EV_OP_REPLACE, e) == MRC_ERR_INVAL); /* port 0 */
    e[0].ev_new.port = 9;
    CHECK(ev_op1(ep, 7, MRC_EV_OP_REPLACE, e) == MRC_ERR_INVAL); /* port 9 of 8 */
    ev_entry(&e[0], 0, 0, 0, 0xAB, 0xCD, 2, MRC_EVS_GOOD);
    CHECK(ev_op1(ep, 7, MRC_EV_OP_REPLACE, e) == MRC_ERR_INVAL); /* abstract bits past the 14 of the mask */
    ev_entry(&e[0], 0x77, 0, 3, 0x00, 0x08, 2, MRC_EVS_GOOD);
    CHECK(ev_op1(ep, 7, MRC_EV_OP_REPLACE, e) == MRC_ERR_NOENT); /* no such EV */
    for (i = 1; i < 4; i++) { /* EVs 1-3: the same value 0xC002 on port 2 (three copies) */
        ev_entry(&e[0], 0, 0, 0, 0x00, 0x08, 2, MRC_EVS_GOOD);
        CHECK(ev_op1(ep, 7, MRC_EV_OP_REPLACE, e) == MRC_OK);
    }
    ev_entry(&e[0], 0, 0, 0, 0x00, 0x08, 2, MRC_EVS_GOOD);
    CHECK(ev_op1(ep, 7, MRC_EV_OP_REPLACE, e) == MRC_ERR_NOENT); /* no unpopulated entry left */
    /* ONLINE needs the format ONLINE: profile 8 on format 6 (OFFLINE) and profile 9 on format 99 (unknown) */
    pa.fmt_id = 6;
    ev_field(&pa.field[0], 8, 0, 0, 0, 0xFFu);
    CHECK(mrc_ev_profile_modify(ep, 8, &pa, EV_PA_NEED | MRC_EV_PROF_ATTR_MIN_ACTIVE | MRC_EV_PROF_ATTR_EVENT_MASK,
                                0) == MRC_OK);
    pa.mode = MRC_EV_MODE_GEN;
    CHECK(mrc_ev_profile_modify(ep, 8, &pa, MRC_EV_PROF_ATTR_MODE, 0) == MRC_OK);
    CHECK(ev_prof_state(ep, 8, MRC_PROFILE_ONLINE, 0) == MRC_ERR_NOENT);
    pa.fmt_id = 99;
    CHECK(mrc_ev_profile_modify(ep, 9, &pa, EV_PA_NEED | MRC_EV_PROF_ATTR_MIN_ACTIVE | MRC_EV_PROF_ATTR_EVENT_MASK,
                                0) == MRC_OK);
    CHECK(ev_prof_state(ep, 9, MRC_PROFILE_ONLINE, 0) == MRC_ERR_NOENT);
    CHECK(ev_prof_state(ep, 7, MRC_PROFILE_ONLINE, 0) == MRC_OK);
    /* ONLINE: only STATE and EVENT_MASK change; the format it uses cannot go OFFLINE */
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, MRC_EV_PROF_ATTR_COUNT, 0) == MRC_ERR_STATE);
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, MRC_EV_PROF_ATTR_FIELDS, 0) == MRC_ERR_STATE);
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, MRC_EV_PROF_ATTR_MIN_ACTIVE, 0) == MRC_ERR_STATE);
    CHECK(mrc_ev_profile_modify(ep, 7, &pa, MRC_EV_PROF_ATTR_EVENT_MASK, 0) == MRC_OK);
    CHECK(ev_prof_state(ep, 7, MRC_PROFILE_INIT, 0) == MRC_ERR_STATE);
    fa.state = MRC_PROFILE_OFFLINE;
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_STATE) == MRC_ERR_BUSY);
    n = 2;
    CHECK(mrc_ev_op(ep, 7, MRC_EV_OP_QUERY_ARRAY, arr, &n, 0) == MRC_ERR_NOBUF && n == 4);
    n = 4;
    CHECK(mrc_ev_op(ep, 7, MRC_EV_OP_QUERY_ARRAY, arr, &n, 0) == MRC_OK && n == 4);
    CHECK(arr[0].ev.port == 1 && arr[0].ev.val[1] == 0x04 && arr[3].ev.port == 2 && arr[3].ev.val[1] == 0x08);
    CHECK(mrc_ev_op(ep, 42, MRC_EV_OP_QUERY_ARRAY, arr, &n, 0) == MRC_ERR_NOENT);

    /* ---- a QP on it ---- */
    CHECK(mrc_conn_init(ep, c, 0) == MRC_OK);
    memset(&ca, 0, sizeof ca);
    ca.state = MRC_QPS_INIT;
    ca.ev_profile_id = 8; /* OFFLINE */
    CHECK(mrc_conn_modify(c, &ca, UT_M_INIT, 0) == MRC_ERR_NOENT);
    ca.ev_profile_id = 77; /* unknown */
    CHECK(mrc_conn_modify(c, &ca, UT_M_INIT, 0) == MRC_ERR_NOENT);
    ca.ev_profile_id = 7;
    CHECK(mrc_conn_modify(c, &ca, UT_M_INIT, 0) == MRC_OK);
    CHECK(mrc_conn_ev_count(c) == 4);
    CHECK(mrc_conn_ev_get(c, 0, &v, &port, NULL) == MRC_OK && v == 0xC001u && port == 1);
    CHECK(mrc_conn_ev_get(c, 3, &v, &port, NULL) == MRC_OK && v == 0xC002u && port == 2);
    CHECK(ev_prof_state(ep, 7, MRC_PROFILE_OFFLINE, 0) == MRC_ERR_BUSY); /* a QP uses it */
    /* REPLACE under the QP: it follows at once */
    ev_entry(&e[0], 0x00, 0x04, 1, 0x12, 0x34, 5, MRC_EVS_GOOD);
    CHECK(ev_op1(ep, 7, MRC_EV_OP_REPLACE, e) == MRC_OK);
    CHECK(mrc_conn_ev_get(c, 0, &v, &port, NULL) == MRC_OK && v == (0xC000u | (0x1234u >> 2)) && port == 5);
    /* the first copy only, then every copy */
    ev_entry(&e[0], 0x00, 0x08, 2, 0x00, 0x10, 2, MRC_EVS_GOOD);
    CHECK(ev_op1(ep, 7, MRC_EV_OP_REPLACE, e) == MRC_OK);
    ev_entry(&e[0], 0x00, 0x08, 2, 0x00, 0x14, 3, MRC_EVS_DENIED);
    e[0].flags = MRC_EV_OP_F_ALL_COPIES;
    CHECK(ev_op1(ep, 7, MRC_EV_OP_REPLACE, e) == MRC_OK);
    n = 4;
    CHECK(mrc_ev_op(ep, 7, MRC_EV_OP_QUERY_ARRAY, arr, &n, 0) == MRC_OK && n == 4);
    CHECKF(arr[1].ev.val[1] == 0x10 && arr[1].ev.port == 2 && arr[1].state == MRC_EVS_GOOD &&
               arr[2].ev.val[1] == 0x14 && arr[2].ev.port == 3 && arr[2].state == MRC_EVS_DENIED &&
               arr[3].ev.val[1] == 0x14 && arr[3].ev.port == 3 && arr[3].state == MRC_EVS_DENIED,
           "after REPLACE: %02x/%u/%#x %02x/%u/%#x %02x/%u/%#x", arr[1].ev.val[1], arr[1].ev.port, arr[1].state,
           arr[2].ev.val[1], arr[2].ev.port, arr[2].state, arr[3].ev.val[1], arr[3].ev.port, arr[3].state);
    CHECK(mrc_conn_ev_get(c, 1, &v, &port, NULL) == MRC_OK && v == 0xC004u && port == 2);
    CHECK(ev_state(c, 2) == MRC_EVS_DENIED && ev_state(c, 3) == MRC_EVS_DENIED);
    /* MODIFY_STATE / QUERY_STATE: ASSUMED_BAD (an event), GOOD (an event), DENIED and back */
    while (mrc_endpoint_poll_event(ep, &evt) > 0) {
    }
    ev_entry(&e[0], 0x00, 0x10, 2, 0, 0, 0, MRC_EVS_ASSUMED_BAD);
    CHECK(ev_op1(ep, 7, MRC_EV_OP_MODIFY_STATE, e) == MRC_OK);
    CHECK(ev_state(c, 1) == MRC_EVS_ASSUMED_BAD);
    e[0].state = 0;
    CHECK(ev_op1(ep, 7, MRC_EV_OP_QUERY_STATE, e) == MRC_OK && e[0].state == MRC_EVS_ASSUMED_BAD);
    CHECK(mrc_endpoint_poll_event(ep, &evt) == 1 && evt.type == MRC_EVT_EV_STATE && evt.conn == c &&
          evt.profile_id == 7 && evt.ev_index == 1 && evt.ev == 0xC004u && evt.port == 2 &&
          evt.state == MRC_EVS_ASSUMED_BAD && evt.drop_count == 0);
    e[0].state = MRC_EVS_GOOD;
    CHECK(ev_op1(ep, 7, MRC_EV_OP_MODIFY_STATE, e) == MRC_OK);
    CHECK(ev_state(c, 1) == MRC_EVS_GOOD);
    e[0].state = 0;
    CHECK(ev_op1(ep, 7, MRC_EV_OP_QUERY_STATE, e) == MRC_OK && e[0].state == MRC_EVS_GOOD);
    CHECKF(mrc_endpoint_poll_event(ep, &evt) == 1 && evt.type == MRC_EVT_EV_STATE && evt.ev_index == 1 &&
               evt.state == MRC_EVS_GOOD,
           "no GOOD event when the controller clears ASSUMED_BAD (type %u state %#x)", evt.type, evt.state);
    CHECK(mrc_endpoint_poll_event(ep, &evt) == 0);
    e[0].state = MRC_EVS_DENIED;
    CHECK(ev_op1(ep, 7, MRC_EV_OP_MODIFY_STATE, e) == MRC_OK);
    CHECK(ev_state(c, 1) == MRC_EVS_DENIED);
    e[0].state = MRC_EVS_GOOD;
    CHECK(ev_op1(ep, 7, MRC_EV_OP_MODIFY_STATE, e) == MRC_OK);
    CHECK(ev_state(c, 1) == MRC_EVS_GOOD);
    CHECK(mrc_endpoint_poll_event(ep, &evt) == 0); /* DENIED and back are not EV events */
    e[0].state = MRC_EVS_UNKNOWN;
    CHECK(ev_op1(ep, 7, MRC_EV_OP_MODIFY_STATE, e) == MRC_ERR_INVAL);
    CHECK(mrc_ev_op(ep, 7, 4, e, &n, 0) == MRC_ERR_INVAL); /* no such operation */

    /* ---- and down again: ONLINE -> OFFLINE -> INIT once no QP and no ONLINE profile holds them ---- */
    memset(&ca, 0, sizeof ca);
    ca.state = MRC_QPS_RESET;
    CHECK(mrc_conn_modify(c, &ca, MRC_ATTR_STATE, 0) == MRC_OK);
    CHECK(ev_prof_state(ep, 7, MRC_PROFILE_OFFLINE, 0) == MRC_OK);
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_STATE) == MRC_OK);
    CHECK(mrc_ev_profile_query(ep, 7, &pq) == MRC_OK && pq.state == MRC_PROFILE_OFFLINE);
    CHECK(ev_prof_state(ep, 7, MRC_PROFILE_INIT, 0) == MRC_OK);
    CHECK(mrc_ev_profile_query(ep, 7, &pq) == MRC_ERR_NOENT);
    CHECK(mrc_ev_op(ep, 7, MRC_EV_OP_QUERY_ARRAY, arr, &n, 0) == MRC_ERR_NOENT);
    fa.state = MRC_PROFILE_INIT;
    CHECK(mrc_ev_fmt_modify(ep, 5, &fa, MRC_EV_FMT_ATTR_STATE) == MRC_OK);
    CHECK(mrc_ev_fmt_query(ep, 5, &fq) == MRC_ERR_NOENT);
    CHECK(mrc_conn_destroy(c) == MRC_OK);
    /* the tables are finite: MRC_ERR_FULL, never an overwrite */
    ev_mkfmt(&fa, MRC_EV_FMT_UDP, 1, w16);
    fa.state = MRC_PROFILE_OFFLINE;
    for (i = 0; i < MRC_MAX_EV_FMTS; i++) {
        int rc = mrc_ev_fmt_modify(ep, 100u + i, &fa, EV_FA);
        CHECK(rc == MRC_OK || (rc == MRC_ERR_FULL && i == MRC_MAX_EV_FMTS - 1u)); /* format 6 still holds a slot */
    }
    CHECK(mrc_ev_fmt_modify(ep, 200, &fa, EV_FA) == MRC_ERR_FULL);
    pa.fmt_id = 100;
    pa.mode = MRC_EV_MODE_GEN;
    for (i = 0; i < MRC_MAX_EV_PROFILES; i++) {
        int rc = mrc_ev_profile_modify(ep, 300u + i, &pa, EV_PA_NEED, 0);
        CHECK(rc == MRC_OK || (rc == MRC_ERR_FULL && i >= MRC_MAX_EV_PROFILES - 2u)); /* profiles 8, 9 hold two */
    }
    CHECK(mrc_ev_profile_modify(ep, 400, &pa, EV_PA_NEED, 0) == MRC_ERR_FULL);
    return 0;
}

/* Two QPs of A on EXP profiles, 16 EVs each (2 per plane). STEV: fields 0x01xx (8 abstract bits) and 0x8xxx (12), so
 * EV i = 0x0100|x0 : 0x8000|x1, UDP source port 0x0100|x0 and flow label 0x8000|x1. SRv6 + one SRH segment
 * (8 x 32-bit words): the plane (4 bits) into word 1, a 16-bit path into word 3 and 8 bits into the segment's last
 * word, under fixed fd00:0000 / 1234:5678 / fd00:0001 / ab00:0000 words; 28 abstract bits, so the entropy is those
 * bits, split 12:16 over source port and flow label. */
typedef struct ev_xw {
    uint32_t x0[16], x1[16];  /* STEV: abstract fields of EV i */
    uint32_t b[16];           /* SRv6: the 16-bit path of EV i (plane = port, c = (i ^ 0x5A) & 0xFF) */
    uint8_t port[2][16];
    int replaced;
    uint32_t old_ev[2];
    uint8_t old_port[2];
    uint32_t bad, checked[2], old_after, new_after;
    char why[160];
} ev_xw;
static void ev_xw_stev_val(const ev_xw *o, unsigned i, uint8_t *val) {
    memset(val, 0, MRC_EV_BYTES);
    val[0] = (uint8_t)o->x0[i];
    val[1] = (uint8_t)(o->x1[i] >> 4);
    val[2] = (uint8_t)((o->x1[i] & 0xFu) << 4);
}
static uint32_t ev_xw_srv6_abs(const ev_xw *o, unsigned i) {
    return (uint32_t)o->port[1][i] << 24 | o->b[i] << 8 | ((i ^ 0x5Au) & 0xFFu);
}
static void ev_xw_srv6_val(const ev_xw *o, unsigned i, uint8_t *val) {
    uint32_t a = ev_xw_srv6_abs(o, i) << 4;
    memset(val, 0, MRC_EV_BYTES);
    val[0] = (uint8_t)(a >> 24);
    val[1] = (uint8_t)(a >> 16);
    val[2] = (uint8_t)(a >> 8);
    val[3] = (uint8_t)a;
}
static void ev_put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static void ev_xw_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    ev_xw *o = (ev_xw *)p->ud;
    unsigned q;
    int i;
    uint32_t want;
    uint8_t path[32];
    mrc_ev_hdrs h;
    (void)pkt, (void)len, (void)now;
    if (from != 0 || ti->qpn == MRC_EPOP_QPN || (!ti->payload_len && ti->opcode != MRC_OP_PROBE_REQ)) return;
    q = sc_qidx(p, 0, ti->qpn);
    if (q >= p->nq) return;
    if (o->replaced && ti->ev == o->old_ev[q] && ti->port == o->old_port[q]) o->old_after++;
    i = ev_find(p->q[0][q].c, ti->ev, ti->port);
    if (i < 0 || i >= 16 || mrc_endpoint_ev_headers(p->ep[0], ti, &h) != MRC_OK) {
        if (!o->bad++) snprintf(o->why, sizeof o->why, "q%u: EV %#x port %u unknown", q, ti->ev, ti->port);
        return;
    }
    if (o->replaced && i == 5) o->new_after++;
    o->checked[q]++;
    if (q == 0) {
        want = (0x0100u | o->x0[i]) << 16 | (0x8000u | o->x1[i]);
        if (ti->ev != want || ti->ev_fmt != MRC_EV_FMT_STEV || ti->path_len != 0 || h.udp_sport != (want >> 16) ||
            h.flow_label != (want & 0xFFFFu) || h.has_srv6 || h.has_srh) {
            if (!o->bad++)
                snprintf(o->why, sizeof o->why, "STEV EV %d: ev %#x fmt %u sport %#x label %#x, want %#x", i, ti->ev,
                         ti->ev_fmt, h.udp_sport, h.flow_label, want);
        }
        return;
    }
    want = ev_xw_srv6_abs(o, (unsigned)i);
    ev_put32(path, 0xFD000000u);
    ev_put32(path + 4, (uint32_t)o->port[1][i] << 16);
    ev_put32(path + 8, 0x12345678u);
    ev_put32(path + 12, o->b[i]);
    ev_put32(path + 16, 0xFD000001u);
    ev_put32(path + 20, 0);
    ev_put32(path + 24, 0);
    ev_put32(path + 28, 0xAB000000u | ((((unsigned)i ^ 0x5Au) & 0xFFu) << 16));
    if (ti->ev != want || ti->ev_fmt != MRC_EV_FMT_SRV6 || ti->path_len != 32 || !ti->path ||
        memcmp(ti->path, path, 32) || h.udp_sport != (want >> 16) || h.flow_label != (want & 0xFFFFu) ||
        !h.has_srv6 || !h.has_srh || memcmp(h.srv6_da, path, 16) || memcmp(h.srh_seg, path + 16, 16)) {
        if (!o->bad++)
            snprintf(o->why, sizeof o->why, "SRv6 EV %d: ev %#x (want %#x) fmt %u path_len %u sport %#x label %#x", i,
                     ti->ev, want, ti->ev_fmt, ti->path_len, h.udp_sport, h.flow_label);
    }
}
static int ev_exp_wire_body(sc_pair *p) {
    static ev_xw o;
    static const uint8_t w16x2[2] = {16, 16}, w_srh[8] = {32, 32, 32, 32, 32, 32, 32, 32};
    static uint8_t vals[16][MRC_EV_BYTES];
    mrc_ev_field f[8];
    mrc_ev_op_entry e;
    unsigned i, q;
    ev_log_reset();
    sc_defaults(p, g_seed + 5800);
    p->nq = 2;
    p->region = 8u << 20;
    memset(&o, 0, sizeof o);
    p->ud = &o;
    p->tap = ev_xw_tap;
    SC_CHECK(p, sc_start(p) == 0);
    for (i = 0; i < 16; i++) {
        o.x0[i] = (i * 37u + 11u) & 0xFFu;
        o.x1[i] = (0x100u + i * 5u) & 0xFFFu;
        o.b[i] = 0x1000u + i * 3u;
        o.port[0][i] = o.port[1][i] = (uint8_t)(i % 8u + 1u);
    }
    /* STEV: format 1, profile 11 */
    SC_CHECK(p, ev_fmt_online(p->ep[0], 1, MRC_EV_FMT_STEV, 2, w16x2) == MRC_OK);
    ev_field(&f[0], 16, 0x0100u, 0, 0, 0x00FFu);
    ev_field(&f[1], 16, 0x8000u, 0, 0, 0x0FFFu);
    for (i = 0; i < 16; i++) ev_xw_stev_val(&o, i, vals[i]);
    SC_CHECK(p, ev_exp_online(p->ep[0], 11, 1, f, 2, 16, (const uint8_t(*)[MRC_EV_BYTES])vals, o.port[0]) == MRC_OK);
    /* SRv6 + SRH: format 2, profile 12 */
    SC_CHECK(p, ev_fmt_online(p->ep[0], 2, MRC_EV_FMT_SRV6, 8, w_srh) == MRC_OK);
    ev_field(&f[0], 32, 0xFD000000u, 0, 0, 0);
    ev_field(&f[1], 32, 0, 0, 0, 0x000F0000u);
    ev_field(&f[2], 32, 0x12345678u, 0, 0, 0);
    ev_field(&f[3], 32, 0, 0, 0, 0x0000FFFFu);
    ev_field(&f[4], 32, 0xFD000001u, 0, 0, 0);
    ev_field(&f[5], 32, 0, 0, 0, 0);
    ev_field(&f[6], 32, 0, 0, 0, 0);
    ev_field(&f[7], 32, 0xAB000000u, 0, 0, 0x00FF0000u);
    for (i = 0; i < 16; i++) ev_xw_srv6_val(&o, i, vals[i]);
    SC_CHECK(p, ev_exp_online(p->ep[0], 12, 2, f, 8, 16, (const uint8_t(*)[MRC_EV_BYTES])vals, o.port[1]) == MRC_OK);
    SC_CHECK(p, ev_connect(p, 0, 11, 0) == 0);
    SC_CHECK(p, ev_connect(p, 1, 12, 0) == 0);
    for (q = 0; q < 2; q++)
        for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, q, i << 19, 1u << 19, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, ev_run_until(p, 20 * SC_US) == 0);
    SC_CHECK(p, p->q[0][0].done < 6 && p->q[0][1].done < 6);
    /* REPLACE EV 5 of each profile under the running QPs: new abstract value, same plane */
    for (q = 0; q < 2; q++) {
        memset(&e, 0, sizeof e);
        if (q == 0) ev_xw_stev_val(&o, 5, e.ev.val);
        else ev_xw_srv6_val(&o, 5, e.ev.val);
        e.ev.port = o.port[q][5];
        SC_CHECK(p, mrc_conn_ev_get(p->q[0][q].c, 5, &o.old_ev[q], &o.old_port[q], NULL) == MRC_OK);
        if (q == 0) {
            o.x0[5] ^= 0xA0u;
            o.x1[5] ^= 0x800u;
            ev_xw_stev_val(&o, 5, e.ev_new.val);
        } else {
            o.b[5] ^= 0x8000u;
            ev_xw_srv6_val(&o, 5, e.ev_new.val);
        }
        e.ev_new.port = o.port[q][5];
        e.state = MRC_EVS_GOOD;
        SC_CHECK(p, ev_op1(p->ep[0], q ? 12u : 11u, MRC_EV_OP_REPLACE, &e) == MRC_OK);
    }
    o.replaced = 1;
    SC_CHECK(p, ev_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    SC_CHECKF(p, o.bad == 0, "%u packets with a wrong EV or header field; first: %s", o.bad, o.why);
    SC_CHECKF(p, o.checked[0] >= p->q[0][0].npkts && o.checked[1] >= p->q[0][1].npkts && o.old_after == 0 &&
                     o.new_after > 10,
              "checked %u + %u packets; after REPLACE %u on the old EVs, %u on the new", o.checked[0], o.checked[1],
              o.old_after, o.new_after);
    note("EXP profiles: %u STEV and %u SRv6+SRH packets matched their hand-computed headers; after REPLACE %u on the "
         "new EVs, none on the old", o.checked[0], o.checked[1], o.new_after);
    return 0;
}
SC_TEST(t_ev_exp_wire, ev_exp_wire_body)

/* ================================================================================================================
 * 9. EV_PROBE endpoint operations. On an idle wire the answer's RTT is the wire's (2 x 2 us propagation plus two
 * serializations of <= 48 bytes at 100 Gb/s). During a transfer, one probe on a live path is answered, one on a dead
 * path (its EV black-holed) times out with MRC_EVT_EP_TIMEOUT (status MRC_ERR_DROP) exactly when its timeout ends.
 * Every request goes out exactly once (never retransmitted, even when it times out), carries its req_id in the PSN
 * field to QP 0x2, and consumes no PSN: the data PSNs stay contiguous and tail-loss probes carry the next unsent
 * one. Request errors: req_id in use, port down, bad format or path, DSCP, op; MRC_ERR_FULL past MRC_MAX_EP_REQS.
 * Service time: MRC_EVT_EP_RESPONSE has adj_svc_time but no service-time value, and this version never adjusts
 * (adj_svc_time = 0); the EETH layout has no known field for it (docs/PROTOCOL.md 7.8, Q11). Asserted as such.
 * ============================================================================================================== */
#define EV_EPP_IDS 128
typedef struct ev_epp {
    uint32_t dead_ev, tail_psn, tail_dropped;
    uint8_t dead_port;
    uint32_t tx[EV_EPP_IDS], bad_req, dead_lost;
    mrc_time t_tx[EV_EPP_IDS];
    uint32_t next_psn, psn_gaps, tlp, tlp_bad, data_new;
} ev_epp;
static int ev_epp_filter(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    ev_epp *o = (ev_epp *)p->ud;
    (void)now;
    if (from == 0 && ti->ev == o->dead_ev && ti->port == o->dead_port) {
        o->dead_lost++;
        return 1;
    }
    if (from == 0 && !o->tail_dropped && ti->payload_len && o->tail_psn) { /* the tail: lost once */
        mrc_pkt k;
        if (sc_decode(p, pkt, len, &k) && k.bth.psn == o->tail_psn) {
            o->tail_dropped = 1;
            return 1;
        }
    }
    return 0;
}
static void ev_epp_tap(sc_pair *p, int from, const uint8_t *pkt, size_t len, const mrc_txinfo *ti, mrc_time now) {
    ev_epp *o = (ev_epp *)p->ud;
    mrc_pkt k;
    if (from != 0 || !sc_decode(p, pkt, len, &k)) return;
    if (k.bth.opcode == MRC_OP_EP_REQ && k.erth.op == MRC_EPOP_EV_PROBE) {
        uint32_t id = k.bth.psn & 0xFFFFu;
        if (k.bth.dest_qp != MRC_EPOP_QPN || k.bth.psn > 0xFFFFu || id >= EV_EPP_IDS || ti->qpn != MRC_EPOP_QPN)
            o->bad_req++;
        else if (!o->tx[id]++)
            o->t_tx[id] = now;
    } else if (sc_is_data(k.bth.opcode) && !k.bth.rtx) {
        if (k.bth.psn != o->next_psn) o->psn_gaps++;
        o->next_psn = mrc_psn_add(k.bth.psn, 1);
        o->data_new++;
    } else if (k.bth.opcode == MRC_OP_PROBE_REQ) {
        o->tlp++;
        if (k.bth.psn != o->next_psn) o->tlp_bad++;
    }
}
static const ev_rec *ev_log_ep(unsigned type, uint16_t req_id) {
    unsigned i;
    for (i = 0; i < g_evlog_n; i++)
        if (g_evlog[i].side == 0 && g_evlog[i].e.type == type && g_evlog[i].e.req_id == req_id) return &g_evlog[i];
    return NULL;
}
static void ev_epreq(mrc_ep_req *r, uint16_t id, uint8_t port, uint32_t ev, uint32_t timeout) {
    memset(r, 0, sizeof *r);
    r->req_id = id;
    r->op = MRC_EPOP_EV_PROBE;
    r->port = port;
    r->dscp = -1;
    r->ev_fmt = MRC_EV_FMT_UDP;
    r->ev = ev;
    r->timeout_ns = timeout;
}
static int ev_ep_probe_body(sc_pair *p) {
    static ev_epp o;
    mrc_ep_req r;
    const ev_rec *x;
    mrc_endpoint_stats ea, eb;
    mrc_time t1, t2, t3;
    unsigned i;
    ev_log_reset();
    sc_defaults(p, g_seed + 5900);
    p->region = 4u << 20;
    memset(&o, 0, sizeof o);
    o.dead_ev = 0xDEADu;
    o.dead_port = 2;
    o.next_psn = p->attr[0].sq_psn;
    p->ud = &o;
    p->filter = ev_epp_filter;
    p->tap = ev_epp_tap;
    SC_CHECK(p, sc_start(p) == 0);
    /* idle wire: the RTT is the wire's */
    t1 = sc_now(p);
    ev_epreq(&r, 1, 4, 0xC123u, 100000);
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, t1) == MRC_OK);
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, t1) == MRC_ERR_INVAL); /* req_id 1 awaits its answer */
    mrc_wire_kick(&p->w);
    p->stop = sc_stop_never; /* nothing planned yet: run on time only */
    SC_CHECK(p, ev_run_until(p, 50 * SC_US) == 0);
    x = ev_log_ep(MRC_EVT_EP_RESPONSE, 1);
    SC_CHECK(p, x != NULL);
    SC_CHECKF(p, x->e.op == MRC_EPOP_EV_PROBE && x->e.port == 4 && x->e.status == MRC_OK && x->e.adj_svc_time == 0 &&
                     x->e.rtt_ns >= 2u * 2000u && x->e.rtt_ns <= 2u * 2000u + 50u && x->t - t1 == x->e.rtt_ns,
              "idle EV_PROBE: op %u port %u rtt %u ns (answered %llu ns after the request), adj_svc_time %u",
              x->e.op, x->e.port, x->e.rtt_ns, (unsigned long long)(x->t - t1), x->e.adj_svc_time);
    note("EV_PROBE on an idle wire: rtt %u ns (2 x 2000 ns propagation + serialization)", x->e.rtt_ns);
    /* request errors */
    ev_epreq(&r, 9, 0, 0xC123u, 0);
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, sc_now(p)) == MRC_ERR_INVAL); /* port 0 */
    r.port = 9;
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, sc_now(p)) == MRC_ERR_INVAL);
    r.port = 3;
    r.ev_fmt = 3;
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, sc_now(p)) == MRC_ERR_INVAL);
    r.ev_fmt = MRC_EV_FMT_SRV6; /* SRv6 needs a 16- or 32-byte path */
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, sc_now(p)) == MRC_ERR_INVAL);
    r.ev_fmt = MRC_EV_FMT_UDP;
    r.path_len = 16; /* and only SRv6 has one */
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, sc_now(p)) == MRC_ERR_INVAL);
    r.path_len = 0;
    r.dscp = 64;
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, sc_now(p)) == MRC_ERR_INVAL);
    r.dscp = -1;
    r.op = 2;
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, sc_now(p)) == MRC_ERR_INVAL);
    SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], 3, false, sc_now(p)) == MRC_OK);
    r.op = MRC_EPOP_EV_PROBE;
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, sc_now(p)) == MRC_ERR_INVAL); /* port 3 is down */
    SC_CHECK(p, mrc_endpoint_port_set(p->ep[0], 3, true, sc_now(p)) == MRC_OK);
    mrc_wire_kick(&p->w);
    SC_CHECK(p, ev_run_until(p, sc_now(p) + 20 * SC_US) == 0); /* the two port announcements come and go */
    SC_CHECK(p, sc_estats(p, 0).ep_req_tx == 1u + 7u + 8u); /* the probe, then 7 + 8 PORT_STATUS_UPDATEs */
    /* during a transfer: one live, one dead; its last packet is lost once, so a tail-loss probe goes out */
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, MRC_WR_WRITE, 0) == 0);
    o.tail_psn = mrc_psn_add(p->attr[0].sq_psn, (int32_t)p->q[0][0].npkts - 1);
    p->stop = NULL;
    SC_CHECK(p, ev_run_until(p, sc_now(p) + 10 * SC_US) == 0);
    t2 = sc_now(p);
    ev_epreq(&r, 2, 6, 0xC456u, 100000);
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, t2) == MRC_OK);
    t3 = sc_now(p);
    ev_epreq(&r, 3, o.dead_port, o.dead_ev, 30000);
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, t3) == MRC_OK);
    mrc_wire_kick(&p->w);
    SC_CHECK(p, ev_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    p->stop = sc_stop_never;
    SC_CHECK(p, ev_run_until(p, sc_now(p) + 500 * SC_US) == 0); /* 16 timeouts later: still one transmission */
    /* more data after the probes: its PSNs follow on */
    p->stop = NULL;
    for (i = 0; i < 2; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, MRC_WR_WRITE, 0) == 0);
    mrc_wire_kick(&p->w);
    SC_CHECK(p, ev_run_until(p, sc_now(p) + SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    x = ev_log_ep(MRC_EVT_EP_RESPONSE, 2);
    SC_CHECK(p, x != NULL);
    SC_CHECKF(p, x->e.port == 6 && x->e.rtt_ns >= 4000u && x->e.rtt_ns <= 6000u && x->e.adj_svc_time == 0,
              "live EV_PROBE during the transfer: port %u rtt %u ns", x->e.port, x->e.rtt_ns);
    note("EV_PROBE during the transfer: rtt %u ns (queued behind data)", x->e.rtt_ns);
    SC_CHECK(p, ev_log_ep(MRC_EVT_EP_RESPONSE, 3) == NULL && ev_log_ep(MRC_EVT_EP_TIMEOUT, 2) == NULL);
    x = ev_log_ep(MRC_EVT_EP_TIMEOUT, 3);
    SC_CHECK(p, x != NULL);
    SC_CHECKF(p, x->e.status == MRC_ERR_DROP && x->e.op == MRC_EPOP_EV_PROBE && x->t == t3 + 30000u,
              "dead EV_PROBE: status %d op %u, timed out %llu ns after the request (timeout 30000)", x->e.status,
              x->e.op, (unsigned long long)(x->t - t3));
    SC_CHECKF(p, o.tx[1] == 1 && o.tx[2] == 1 && o.tx[3] == 1 && o.dead_lost == 1 && o.bad_req == 0,
              "EV_PROBE requests sent %u/%u/%u times (dead path swallowed %u), %u malformed", o.tx[1], o.tx[2], o.tx[3],
              o.dead_lost, o.bad_req);
    SC_CHECK(p, o.t_tx[2] >= t2 && o.t_tx[2] - t2 < 1000u);
    /* no PSN consumed: contiguous data PSNs, tail probes at the next unsent PSN, cack at the last data PSN */
    SC_CHECKF(p, o.psn_gaps == 0 && o.tlp_bad == 0 && o.tlp > 0 && o.tail_dropped && o.data_new == p->q[0][0].npkts &&
                     o.next_psn == mrc_psn_add(p->attr[0].sq_psn, (int32_t)p->q[0][0].npkts),
              "%u PSN gaps, %u of %u tail probes off the next PSN, %u new data packets of %llu", o.psn_gaps,
              o.tlp_bad, o.tlp, o.data_new, (unsigned long long)p->q[0][0].npkts);
    ea = sc_estats(p, 0);
    eb = sc_estats(p, 1);
    SC_CHECKF(p, ea.ep_rsp_rx == 2 && ea.ep_timeouts == 1 && eb.ep_rsp_tx >= 2 && p->n_ep_rsp[0] == 2 &&
                     p->n_ep_timeout[0] == 1,
              "A: %llu answers, %llu timeouts; B answered %llu", (unsigned long long)ea.ep_rsp_rx,
              (unsigned long long)ea.ep_timeouts, (unsigned long long)eb.ep_rsp_tx);
    /* MRC_MAX_EP_REQS outstanding at most */
    for (i = 0; i < MRC_MAX_EP_REQS; i++) {
        ev_epreq(&r, (uint16_t)(100u + i), o.dead_port, o.dead_ev, 20000);
        SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, sc_now(p)) == MRC_OK);
    }
    ev_epreq(&r, 99, o.dead_port, o.dead_ev, 20000);
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, sc_now(p)) == MRC_ERR_FULL);
    mrc_wire_kick(&p->w);
    p->stop = sc_stop_never;
    SC_CHECK(p, ev_run_until(p, sc_now(p) + 100 * SC_US) == 0);
    SC_CHECK(p, p->n_ep_timeout[0] == 1u + MRC_MAX_EP_REQS && sc_estats(p, 0).ep_timeouts == 1u + MRC_MAX_EP_REQS);
    for (i = 0; i < MRC_MAX_EP_REQS; i++) SC_CHECK(p, o.tx[100u + i] == 1);
    return 0;
}
SC_TEST(t_ev_ep_probe, ev_ep_probe_body)

/* ================================================================================================================
 * 10. The controller event ring overruns, never silently. The controller forces all 128 EVs of a QP's GEN profile
 * ASSUMED_BAD at once (128 events) and an EV_PROBE times out, with nobody pulling events: the ring keeps the oldest
 * MRC_NOTIFYQ_LEN (64) in order, counts the other 65 in notify_dropped, and the next event delivered carries
 * drop_count = 65; the one after, 0. An event mask without ASSUMED_BAD filters (nothing queued, nothing counted
 * lost). Afterwards the QP, every EV GOOD again, carries a transfer bit-exact.
 * ============================================================================================================== */
static int ev_overrun_body(sc_pair *p) {
    static mrc_ev_op_entry arr[128], e[128];
    mrc_ev_profile_attr pa;
    mrc_ev_port_summary sum[MRC_MAX_PORTS];
    mrc_event evt;
    mrc_ep_req r;
    mrc_time now;
    uint32_t n = 128, i, k, bad = 0;
    ev_log_reset();
    sc_defaults(p, g_seed + 6000);
    p->region = 4u << 20;
    SC_CHECK(p, sc_start(p) == 0);
    SC_CHECK(p, ev_gen_udp(p->ep[0], 7, 1, 128, 16) == MRC_OK);
    SC_CHECK(p, ev_connect(p, 0, 1, 0) == 0);
    SC_CHECK(p, mrc_ev_op(p->ep[0], 1, MRC_EV_OP_QUERY_ARRAY, arr, &n, 0) == MRC_OK && n == 128);
    now = sc_now(p);
    for (i = 0; i < 128; i++) {
        memset(&e[i], 0, sizeof e[i]);
        e[i].ev = arr[i].ev;
        e[i].state = MRC_EVS_ASSUMED_BAD;
    }
    SC_CHECK(p, mrc_ev_op(p->ep[0], 1, MRC_EV_OP_MODIFY_STATE, e, &n, now) == MRC_OK && n == 128);
    SC_CHECK(p, mrc_conn_ev_summary(p->q[0][0].c, sum) == MRC_OK);
    for (i = 0; i < MRC_MAX_PORTS; i++) bad += sum[i].bad;
    SC_CHECK(p, bad == 128); /* forced: ev_min_active notwithstanding */
    ev_epreq(&r, 1, 1, 0xC001u, 1000);
    SC_CHECK(p, mrc_endpoint_ep_request(p->ep[0], &r, now) == MRC_OK);
    SC_CHECK(p, mrc_endpoint_on_timeout(p->ep[0], now + 1000u) == MRC_OK); /* an EP_TIMEOUT, into the full ring */
    SC_CHECKF(p, sc_estats(p, 0).notify_dropped == 128u + 1u - MRC_NOTIFYQ_LEN && sc_estats(p, 0).ep_timeouts == 1,
              "notify_dropped %llu", (unsigned long long)sc_estats(p, 0).notify_dropped);
    for (i = 0; i < MRC_NOTIFYQ_LEN; i++) { /* the oldest 64, in order, none claiming losses */
        SC_CHECK(p, mrc_endpoint_poll_event(p->ep[0], &evt) == 1);
        SC_CHECKF(p, evt.type == MRC_EVT_EV_STATE && evt.state == MRC_EVS_ASSUMED_BAD && evt.ev_index == i &&
                         evt.profile_id == 1 && evt.drop_count == 0 && evt.conn == p->q[0][0].c,
                  "event %u: type %u EV %u state %#x drop_count %u", i, evt.type, evt.ev_index, evt.state,
                  evt.drop_count);
    }
    SC_CHECK(p, mrc_endpoint_poll_event(p->ep[0], &evt) == 0);
    /* the next event says how many were lost */
    e[0].state = MRC_EVS_GOOD;
    n = 1;
    SC_CHECK(p, mrc_ev_op(p->ep[0], 1, MRC_EV_OP_MODIFY_STATE, e, &n, now + 1000u) == MRC_OK);
    SC_CHECK(p, mrc_endpoint_poll_event(p->ep[0], &evt) == 1);
    SC_CHECKF(p, evt.type == MRC_EVT_EV_STATE && evt.state == MRC_EVS_GOOD && evt.ev_index == 0 &&
                     evt.drop_count == 128u + 1u - MRC_NOTIFYQ_LEN,
              "first event after the overrun: type %u state %#x drop_count %u", evt.type, evt.state, evt.drop_count);
    e[1].state = MRC_EVS_GOOD;
    n = 1;
    SC_CHECK(p, mrc_ev_op(p->ep[0], 1, MRC_EV_OP_MODIFY_STATE, &e[1], &n, now + 1000u) == MRC_OK);
    SC_CHECK(p, mrc_endpoint_poll_event(p->ep[0], &evt) == 1 && evt.ev_index == 1 && evt.drop_count == 0);
    /* a mask without ASSUMED_BAD filters: nothing queued, nothing lost */
    memset(&pa, 0, sizeof pa);
    pa.event_mask = MRC_EVS_GOOD;
    SC_CHECK(p, mrc_ev_profile_modify(p->ep[0], 1, &pa, MRC_EV_PROF_ATTR_EVENT_MASK, now + 1000u) == MRC_OK);
    e[0].state = MRC_EVS_ASSUMED_BAD;
    n = 1;
    SC_CHECK(p, mrc_ev_op(p->ep[0], 1, MRC_EV_OP_MODIFY_STATE, e, &n, now + 1000u) == MRC_OK);
    SC_CHECK(p, ev_state(p->q[0][0].c, 0) == MRC_EVS_ASSUMED_BAD);
    SC_CHECK(p, mrc_endpoint_poll_event(p->ep[0], &evt) == 0);
    SC_CHECK(p, sc_estats(p, 0).notify_dropped == 128u + 1u - MRC_NOTIFYQ_LEN);
    /* everything GOOD again, pulled in batches the ring holds: 127 GOOD events, none lost */
    pa.event_mask = MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD;
    SC_CHECK(p, mrc_ev_profile_modify(p->ep[0], 1, &pa, MRC_EV_PROF_ATTR_EVENT_MASK, now + 1000u) == MRC_OK);
    for (k = 0, i = 0; i < 128; i++) {
        if (i == 1) continue;
        e[i].state = MRC_EVS_GOOD;
        n = 1;
        SC_CHECK(p, mrc_ev_op(p->ep[0], 1, MRC_EV_OP_MODIFY_STATE, &e[i], &n, now + 1000u) == MRC_OK);
        if (i % 32u == 31u || i == 127) {
            while (mrc_endpoint_poll_event(p->ep[0], &evt) > 0) {
                SC_CHECK(p, evt.type == MRC_EVT_EV_STATE && evt.state == MRC_EVS_GOOD && evt.drop_count == 0);
                k++;
            }
        }
    }
    SC_CHECKF(p, k == 127 && sc_estats(p, 0).notify_dropped == 128u + 1u - MRC_NOTIFYQ_LEN, "%u GOOD events", k);
    for (i = 0; i < 128; i++) SC_CHECK(p, ev_state(p->q[0][0].c, i) == MRC_EVS_GOOD);
    for (i = 0; i < 8; i++) SC_CHECK(p, sc_add(p, 0, 0, i << 19, 1u << 19, MRC_WR_WRITE, 0) == 0);
    SC_CHECK(p, ev_run_until(p, SC_SEC) == 1);
    if (sc_check_clean(p)) return 1;
    return 0;
}
SC_TEST(t_ev_notify_overrun, ev_overrun_body)

const test_entry test_ev_profile[] = {
    {"ev_expand_vectors", t_ev_expand_vectors},
    {"ev_gen_profile", t_ev_gen_profile},
    {"ev_profile_lifecycle", t_ev_profile_lifecycle},
    {"ev_exp_wire_headers", t_ev_exp_wire},
    {"ev_ep_probe", t_ev_ep_probe},
    {"ev_notify_overrun", t_ev_notify_overrun},
    {NULL, NULL},
};
