/* mrc_frame_test.c - tests of the shared frame codec (ports/common/mrc_frame.h); make frame-test.
 *
 *   mrc_frame_test                      the unit tests; last line "N passed, N failed"
 *   mrc_frame_test --gen PCAP EXPECT    write codec-built frames of every kind to PCAP and one line per frame to
 *                                       EXPECT (what Scapy must find in it: tools/frame_scapy.py verify)
 *   mrc_frame_test --check PCAP EXPECT  parse the frames Scapy built (tools/frame_scapy.py build) with the codec
 *                                       and compare with EXPECT, one "ok -"/"FAIL -" line per frame
 *   mrc_frame_test --cost N [KIND]      frame N packets (header + ICRC over the payload, zero-copy style) and parse
 *                                       them back, for callgrind (make frame-cost): KIND 0 = 4 KiB IPv4 data,
 *                                       1 = SACK-sized control packet
 *
 * The unit tests: CRC-32 and ICRC agree with the core's mrc_crc32 / mrc_icrc; round trips for every EV format
 * (UDP, STEV, SRv6 128, SRv6 + SRH 256) over IPv4/IPv6, with and without 802.1Q; every malformed case dropped
 * under its own reason and counted; trimmed frames; random mutations never accepted with a bad ICRC and never
 * read out of bounds (run it under ASan: make frame-test-asan); whole transfers between two endpoints whose every
 * packet crosses the codec as an Ethernet frame (AUTO EVs over IPv4 and IPv6, STEV EVs, SRv6 + SRH EVs).
 */
#define MRC_IMPLEMENTATION
#include "../../mrc.h"
#define MRC_FRAME_IMPLEMENTATION
#include "mrc_frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned npass, nfail;
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}
static void check(int ok, const char *name, const char *fmt, ...);
#include <stdarg.h>
static void check(int ok, const char *name, const char *fmt, ...) {
    if (ok) {
        npass++;
        printf("ok - %s\n", name);
        return;
    }
    nfail++;
    printf("FAIL - %s: ", name);
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
    }
    printf("\n");
}

static mrc_frame fr;                 /* 8 KiB of CRC tables: static */
static mrc_endpoint ep_cfg;          /* only its configuration is read (mrc_endpoint_ev_headers) */
static const mrc_frame_addr A = {{0x02, 0, 0, 0, 0, 0xA1}, {10, 78, 1, 1}};
static const mrc_frame_addr B = {{0x02, 0, 0, 0, 0, 0xB1}, {10, 78, 1, 2}};
static const mrc_frame_addr A6 = {{0x02, 0, 0, 0, 0, 0xA1}, {0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0A}};
static const mrc_frame_addr B6 = {{0x02, 0, 0, 0, 0, 0xB1}, {0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0B}};

/* ---- packets of every kind ------------------------------------------------------------------------------------ */
typedef struct kind {
    const char *name;
    int ipv6, vlan;
    uint8_t ev_fmt, path_len, opcode, dscp, pad;
    uint32_t ev, payload_len;
} kind;
#define OP_WRITE_ONLY 0xCAu /* a data opcode (METH + RETH) */
#define OP_SACK 0xD3u       /* a control opcode */
static const kind kinds[] = {
    {"ipv4 udp-ev data", 0, 0, MRC_EV_FMT_UDP, 0, 0, 10, 2, 0xC123u, 4093},
    {"ipv4 udp-ev control", 0, 0, MRC_EV_FMT_UDP, 0, 0, 48, 0, 0xFFFEu, 0},
    {"ipv4 vlan udp-ev data", 0, 1, MRC_EV_FMT_UDP, 0, 0, 10, 0, 0xD000u, 256},
    {"ipv6 udp-ev data", 1, 0, MRC_EV_FMT_UDP, 0, 0, 10, 3, 0xC001u, 1021},
    {"ipv6 stev data", 1, 0, MRC_EV_FMT_STEV, 0, 0, 12, 1, 0xBEEF1234u, 4095},
    {"ipv6 vlan stev control", 1, 1, MRC_EV_FMT_STEV, 0, 0, 48, 0, 0x00017FFFu, 0},
    {"srv6 128 data", 1, 0, MRC_EV_FMT_SRV6, 16, 0, 10, 0, 0x00000005u, 2048},
    {"srv6+srh 256 data", 1, 0, MRC_EV_FMT_SRV6, 32, 0, 10, 2, 0x12345678u, 1002},
    {"srv6+srh vlan control", 1, 1, MRC_EV_FMT_SRV6, 32, 0, 48, 0, 0x00000001u, 0},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static uint8_t payload_buf[4096];
static uint8_t path_buf[32];

/* ti + MRC headers (BTH with the pad count, then bytes) for kind k */
static void make_pkt(const kind *k, mrc_txinfo *ti, uint8_t *hdr) {
    unsigned i;
    memset(ti, 0, sizeof *ti);
    ti->port = 1;
    ti->dscp = k->dscp;
    ti->pad = k->pad;
    ti->opcode = k->opcode ? k->opcode : OP_WRITE_ONLY;
    if (k->opcode == 0 && k->payload_len == 0) ti->opcode = OP_SACK;
    ti->ev = k->ev;
    ti->ev_fmt = k->ev_fmt;
    ti->path_len = k->path_len;
    for (i = 0; i < 32; i++) path_buf[i] = (uint8_t)(0xFC + i * 3u);
    ti->path = k->path_len ? path_buf : NULL;
    ti->hdr_len = k->payload_len ? 32u : 48u;
    for (i = 0; i < ti->hdr_len; i++) hdr[i] = (uint8_t)(i * 11u + 1u);
    hdr[0] = ti->opcode;
    hdr[1] = (uint8_t)(k->pad << 4);
    ti->payload = k->payload_len ? payload_buf : NULL;
    ti->payload_len = k->payload_len;
}

static int build(const kind *k, uint8_t *out, size_t cap, mrc_txinfo *ti, uint8_t *hdr) {
    mrc_ev_hdrs evh;
    fr.cfg.ipv6 = (uint8_t)k->ipv6;
    fr.cfg.vlan = (uint8_t)k->vlan;
    fr.cfg.vlan_tci = 0x2064; /* PCP 1, VID 100 */
    make_pkt(k, ti, hdr);
    if (mrc_endpoint_ev_headers(&ep_cfg, ti, &evh) != MRC_OK) return -100;
    return mrc_frame_encode(&fr, k->ipv6 ? &A6 : &A, k->ipv6 ? &B6 : &B, ti, &evh, hdr, out, cap);
}

static uint32_t want_ev(const kind *k) {
    if (k->ev_fmt == MRC_EV_FMT_UDP || !k->ipv6) return k->ev & 0xFFFFu;
    return (k->ev & 0xFFFFu) ? k->ev : k->ev >> 16; /* flow label 0: the source port alone (the codec's rule) */
}

static void t_crc(void) {
    static uint8_t buf[9000];
    unsigned i, bad = 0;
    for (i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)rnd();
    for (i = 0; i < 2000; i++) {
        size_t off = rnd() % 64, n = rnd() % (sizeof buf - 64);
        uint32_t seed = i & 1 ? rnd() : 0;
        if (mrc_frame_crc32(&fr, seed, buf + off, n) != mrc_crc32(seed, buf + off, n)) bad++;
    }
    check(mrc_frame_crc32(&fr, 0, (const uint8_t *)"123456789", 9) == 0xCBF43926u, "crc32 check value", NULL);
    {   /* the carry-less-multiply path (where the CPU has it) and the table path agree */
        static mrc_frame tab;
        unsigned diff = 0;
        (void)mrc_frame_init(&tab, NULL);
        tab.clmul = 0;
        for (i = 0; i < 2000; i++) {
            size_t off = rnd() % 64, n = 64u + rnd() % (sizeof buf - 128);
            uint32_t seed = rnd();
            if (mrc_frame_crc32(&fr, seed, buf + off, n) != mrc_frame_crc32(&tab, seed, buf + off, n)) diff++;
        }
        printf("#   carry-less-multiply CRC: %s\n", fr.clmul ? "used (PCLMULQDQ)" : "not available, table only");
        check(diff == 0, "clmul and slice-by-8 CRC agree (2000 random lengths >= 64)", "%u differ", diff);
    }
    check(bad == 0, "slice-by-8 crc32 == mrc_crc32 (2000 random lengths and alignments)", "%u differ", bad);
}

static void t_roundtrip(void) {
    static uint8_t f[MRC_FRAME_MAX + 64], hdr[MRC_HDR_MAX];
    unsigned i, j;
    for (i = 0; i < sizeof payload_buf; i++) payload_buf[i] = (uint8_t)rnd();
    for (i = 0; i < NKINDS; i++) {
        const kind *k = &kinds[i];
        mrc_txinfo ti;
        mrc_frame_rx rx;
        char name[96];
        int n = build(k, f, sizeof f, &ti, hdr), rc;
        size_t l3 = 0, hl = mrc_frame_hdr_len(&fr, &ti);
        uint32_t mrc_len = ti.hdr_len + ti.payload_len + ti.pad;
        snprintf(name, sizeof name, "round trip: %s", k->name);
        if (n < 0) {
            check(0, name, "encode failed %d", n);
            continue;
        }
        /* the ICRC equals the core's mrc_icrc over the inner IP header onwards */
        l3 = hl - MRC_FRAME_UDP_LEN - (k->ipv6 ? MRC_FRAME_IPV6_LEN : MRC_FRAME_IPV4_LEN);
        rc = mrc_frame_parse(&fr, k->ipv6 ? &B6 : &B, f, (size_t)n, &rx);
        check(rc == MRC_FRAME_OK && rx.mrc_off == hl && rx.mrc_len == mrc_len &&
                  memcmp(f + rx.mrc_off, hdr, ti.hdr_len) == 0 &&
                  (!ti.payload_len || memcmp(f + rx.mrc_off + ti.hdr_len, payload_buf, ti.payload_len) == 0) &&
                  rx.dscp == k->dscp && rx.ecn == (ti.payload_len ? 2u : 0u) && rx.ev == want_ev(k) &&
                  rx.srv6 == (k->ev_fmt == MRC_EV_FMT_SRV6) && rx.vlan == (uint8_t)k->vlan && !rx.icrc_bad &&
                  memcmp(rx.src_ip, k->ipv6 ? A6.ip : A.ip, k->ipv6 ? 16u : 4u) == 0 &&
                  memcmp(rx.src_mac, A.mac, 6) == 0 && (size_t)n == hl + mrc_len + 4u,
              name, "rc %s off %u/%zu len %u/%u dscp %u ecn %u ev 0x%x/0x%x srv6 %u", mrc_frame_drop_name(rc),
              rx.mrc_off, hl, rx.mrc_len, mrc_len, rx.dscp, rx.ecn, rx.ev, want_ev(k), rx.srv6);
        snprintf(name, sizeof name, "icrc == mrc_icrc: %s", k->name);
        check(mrc_icrc_get(f + n - 4) == mrc_icrc(f + l3, (size_t)n - 4u - l3), name, NULL);
        /* two-piece ICRC (zero-copy) == one-piece */
        snprintf(name, sizeof name, "icrc in two pieces: %s", k->name);
        check(mrc_frame_icrc(&fr, f + l3, hl - l3 + ti.hdr_len, ti.payload, ti.payload_len, ti.pad) ==
                  mrc_icrc_get(f + n - 4),
              name, NULL);
        if (k->ev_fmt == MRC_EV_FMT_SRV6) { /* outer DA = path, SRH segment = path[16..32) */
            size_t o = MRC_FRAME_ETH_LEN + (k->vlan ? 4u : 0u);
            snprintf(name, sizeof name, "srv6 outer header: %s", k->name);
            check(memcmp(f + o + 24, path_buf, 16) == 0 && f[o + 6] == (k->path_len == 32 ? 43 : 41) &&
                      (k->path_len != 32 || (memcmp(f + o + 48, path_buf + 16, 16) == 0 && f[o + 42] == 4 &&
                                             f[o + 43] == 1 && f[o + 40] == 41)),
                  name, NULL);
        }
        /* every single-bit flip in the MRC part is caught by the ICRC */
        for (j = 0; j < 64; j++) {
            size_t pos = rx.mrc_off + rnd() % mrc_len;
            if (pos == rx.mrc_off + 4u) pos++; /* BTH byte 4 is masked out of the ICRC (RoCEv2) */
            f[pos] ^= (uint8_t)(1u << (rnd() % 8));
            rc = mrc_frame_parse(&fr, k->ipv6 ? &B6 : &B, f, (size_t)n, &rx);
            if (rc != MRC_FRAME_DROP_ICRC) break;
            (void)build(k, f, sizeof f, &ti, hdr);
        }
        snprintf(name, sizeof name, "bit flips caught by the icrc: %s", k->name);
        check(j == 64, name, "flip %u accepted (rc %s)", j, mrc_frame_drop_name(rc));
    }
}

/* ---- malformed frames: each dropped under its reason -------------------------------------------------------- */
typedef void (*mut_fn)(uint8_t *f, size_t *n);
static void m_short(uint8_t *f, size_t *n) { (void)f; *n = 10; }
static void m_trunc_ip(uint8_t *f, size_t *n) { (void)f; *n = 14 + 12; }
static void m_ethertype(uint8_t *f, size_t *n) { (void)n; f[12] = 0x08; f[13] = 0x06; }
static void m_dst_mac(uint8_t *f, size_t *n) { (void)n; f[5] ^= 1; }
static void fix_csum(uint8_t *f) {
    uint32_t s = 0, i;
    f[24] = f[25] = 0;
    for (i = 0; i < 20; i += 2) s += (uint32_t)f[14 + i] << 8 | f[15 + i];
    while (s >> 16) s = (s & 0xFFFFu) + (s >> 16);
    f[24] = (uint8_t)(~s >> 8);
    f[25] = (uint8_t)~s;
}
static void m_dst_ip(uint8_t *f, size_t *n) { (void)n; f[33] ^= 1; fix_csum(f); }
static void m_version(uint8_t *f, size_t *n) { (void)n; f[14] = 0x65; fix_csum(f); }
static void m_options(uint8_t *f, size_t *n) { (void)n; f[14] = 0x46; fix_csum(f); }
static void m_ihl_small(uint8_t *f, size_t *n) { (void)n; f[14] = 0x44; }
static void m_frag_mf(uint8_t *f, size_t *n) { (void)n; f[20] = 0x20; fix_csum(f); }
static void m_frag_off(uint8_t *f, size_t *n) { (void)n; f[20] = 0x00; f[21] = 0x10; fix_csum(f); }
static void m_csum(uint8_t *f, size_t *n) { (void)n; f[24] ^= 0x40; }
static void m_iplen_long(uint8_t *f, size_t *n) { (void)n; f[16] = (uint8_t)(f[16] + 1); fix_csum(f); }
static void m_trailing(uint8_t *f, size_t *n) { memset(f + *n, 0, 80); *n += 80; }
static void m_proto(uint8_t *f, size_t *n) { (void)n; f[23] = 6; fix_csum(f); }
static void m_dport(uint8_t *f, size_t *n) { (void)n; f[37] = 0xB8; }
static void m_udplen(uint8_t *f, size_t *n) { (void)n; f[39] = (uint8_t)(f[39] - 4); }
static void m_udplen_tiny(uint8_t *f, size_t *n) {
    /* a UDP datagram with 8 bytes of payload: no room for BTH + ICRC */
    *n = 14 + 20 + 8 + 8;
    f[16] = 0;
    f[17] = 36;
    fix_csum(f);
    f[38] = 0;
    f[39] = 16;
}
static void m_icrc(uint8_t *f, size_t *n) { f[*n - 1] ^= 0x80; }
static void m_payload(uint8_t *f, size_t *n) { f[*n - 100] ^= 0x01; }
typedef struct mcase { const char *name; mut_fn fn; int want; } mcase;
static const mcase mcases[] = {
    {"shorter than Ethernet", m_short, MRC_FRAME_DROP_SHORT},
    {"IP header cut", m_trunc_ip, MRC_FRAME_DROP_SHORT},
    {"ARP ethertype", m_ethertype, MRC_FRAME_DROP_ETHERTYPE},
    {"another destination MAC", m_dst_mac, MRC_FRAME_DROP_NOT_LOCAL},
    {"another destination IP", m_dst_ip, MRC_FRAME_DROP_NOT_LOCAL},
    {"IPv6 version in an IPv4 frame", m_version, MRC_FRAME_DROP_IP_VERSION},
    {"IPv4 options (IHL 6)", m_options, MRC_FRAME_DROP_IP_OPTIONS},
    {"IHL below 5", m_ihl_small, MRC_FRAME_DROP_IP_LEN},
    {"fragment: MF", m_frag_mf, MRC_FRAME_DROP_IP_FRAGMENT},
    {"fragment: offset", m_frag_off, MRC_FRAME_DROP_IP_FRAGMENT},
    {"IPv4 checksum", m_csum, MRC_FRAME_DROP_IP_CSUM},
    {"IP length past the frame", m_iplen_long, MRC_FRAME_DROP_IP_LEN},
    {"80 bytes after the IP packet", m_trailing, MRC_FRAME_DROP_IP_LEN},
    {"TCP, not UDP", m_proto, MRC_FRAME_DROP_NOT_UDP},
    {"UDP port 4792", m_dport, MRC_FRAME_DROP_UDP_PORT},
    {"UDP length disagrees", m_udplen, MRC_FRAME_DROP_UDP_LEN},
    {"UDP too short for BTH + ICRC", m_udplen_tiny, MRC_FRAME_DROP_SHORT},
    {"ICRC byte flipped", m_icrc, MRC_FRAME_DROP_ICRC},
    {"payload byte flipped", m_payload, MRC_FRAME_DROP_ICRC},
};

/* IPv6 / SRv6 mutations at fixed offsets of an untagged IPv6 or SRv6+SRH frame */
static void m6_hbh(uint8_t *f, size_t *n) { (void)n; f[20] = 0; }
static void m6_frag(uint8_t *f, size_t *n) { (void)n; f[20] = 44; }
static void m6_plen(uint8_t *f, size_t *n) { (void)n; f[19] = (uint8_t)(f[19] + 2); }
static void m6_srh_type(uint8_t *f, size_t *n) { (void)n; f[56] = 3; }         /* SRH routing type 3 */
static void m6_srh_len(uint8_t *f, size_t *n) { (void)n; f[55] = 4; }          /* ext len / last entry disagree */
static void m6_inner_v4(uint8_t *f, size_t *n) { (void)n; f[78] = 0x45; }      /* inner header not IPv6 */
static void m6_inner_plen(uint8_t *f, size_t *n) { (void)n; f[83] = (uint8_t)(f[83] + 1); }
static void m6_inner_dst(uint8_t *f, size_t *n) { (void)n; f[117] ^= 1; }

static void t_malformed(void) {
    static uint8_t base[MRC_FRAME_MAX + 128], f[MRC_FRAME_MAX + 128], hdr[MRC_HDR_MAX];
    mrc_txinfo ti;
    mrc_frame_rx rx;
    unsigned i;
    int n = build(&kinds[0], base, sizeof base, &ti, hdr);
    for (i = 0; i < sizeof mcases / sizeof mcases[0]; i++) {
        size_t len = (size_t)n;
        uint64_t before;
        int rc;
        char name[96];
        memcpy(f, base, (size_t)n);
        mcases[i].fn(f, &len);
        before = fr.st.drop[mcases[i].want];
        rc = mrc_frame_parse(&fr, &B, f, len, &rx);
        snprintf(name, sizeof name, "malformed ipv4: %s -> %s", mcases[i].name, mrc_frame_drop_name(mcases[i].want));
        check(rc == mcases[i].want && fr.st.drop[mcases[i].want] == before + 1, name, "got %s",
              mrc_frame_drop_name(rc));
    }
    {
        struct { const char *name; int kind; mut_fn fn; int want; } c6[] = {
            {"IPv6 hop-by-hop header", 3, m6_hbh, MRC_FRAME_DROP_IP_OPTIONS},
            {"IPv6 fragment header", 3, m6_frag, MRC_FRAME_DROP_IP_FRAGMENT},
            {"IPv6 payload length", 3, m6_plen, MRC_FRAME_DROP_IP_LEN},
            {"SRH routing type 3", 7, m6_srh_type, MRC_FRAME_DROP_SRV6},
            {"SRH length vs last entry", 7, m6_srh_len, MRC_FRAME_DROP_SRV6},
            {"SRv6 inner header IPv4", 7, m6_inner_v4, MRC_FRAME_DROP_SRV6},
            {"SRv6 inner payload length", 7, m6_inner_plen, MRC_FRAME_DROP_IP_LEN},
            {"SRv6 inner destination", 7, m6_inner_dst, MRC_FRAME_DROP_NOT_LOCAL},
        };
        for (i = 0; i < sizeof c6 / sizeof c6[0]; i++) {
            size_t len;
            uint64_t before;
            int rc;
            char name[96];
            n = build(&kinds[c6[i].kind], f, sizeof f, &ti, hdr);
            len = (size_t)n;
            c6[i].fn(f, &len);
            before = fr.st.drop[c6[i].want];
            rc = mrc_frame_parse(&fr, &B6, f, len, &rx);
            snprintf(name, sizeof name, "malformed ipv6: %s -> %s", c6[i].name, mrc_frame_drop_name(c6[i].want));
            check(rc == c6[i].want && fr.st.drop[c6[i].want] == before + 1, name, "got %s", mrc_frame_drop_name(rc));
        }
    }
    /* a trimming switch: payload cut, DSCP TRIMMED, lengths rewritten, ICRC stale -> accepted, counted */
    {
        uint64_t before = fr.st.icrc_trimmed;
        int rc;
        n = build(&kinds[0], f, sizeof f, &ti, hdr);
        f[15] = (uint8_t)(3u << 2 | 2u);               /* DSCP 3 (trimmed), ECT(0) */
        f[16] = 0;                                       /* IP total length: 20 + 8 + headers + ICRC */
        f[17] = (uint8_t)(20 + 8 + ti.hdr_len + 4);
        fix_csum(f);
        f[38] = 0;
        f[39] = (uint8_t)(8 + ti.hdr_len + 4);
        rc = mrc_frame_parse(&fr, &B, f, 14u + 20u + 8u + ti.hdr_len + 4u, &rx);
        check(rc == MRC_FRAME_OK && rx.icrc_bad && rx.dscp == 3 && rx.mrc_len == ti.hdr_len &&
                  fr.st.icrc_trimmed == before + 1,
              "trimmed frame (DSCP 3, stale ICRC) accepted and counted", "rc %s", mrc_frame_drop_name(rc));
        f[15] = (uint8_t)(10u << 2);
        fix_csum(f);
        rc = mrc_frame_parse(&fr, &B, f, 14u + 20u + 8u + ti.hdr_len + 4u, &rx);
        check(rc == MRC_FRAME_DROP_ICRC, "the same frame with a normal DSCP is an ICRC drop", "rc %s",
              mrc_frame_drop_name(rc));
    }
    /* Ethernet padding: a short frame padded to 60 bytes is accepted */
    {
        static const kind tiny = {"tiny", 0, 0, MRC_EV_FMT_UDP, 0, 0x11, 48, 0, 0xC000u, 0};
        mrc_txinfo t2;
        int rc;
        n = build(&tiny, f, sizeof f, &t2, hdr);
        t2.hdr_len = 12; /* an ACK-sized packet: BTH only */
        {
            mrc_ev_hdrs evh;
            (void)mrc_endpoint_ev_headers(&ep_cfg, &t2, &evh);
            n = mrc_frame_encode(&fr, &A, &B, &t2, &evh, hdr, f, sizeof f);
        }
        memset(f + n, 0, 60u - (unsigned)n);
        rc = mrc_frame_parse(&fr, &B, f, 60, &rx);
        check(n < 60 && rc == MRC_FRAME_OK && rx.mrc_len == 12, "frame padded to the Ethernet minimum", "n %d rc %s",
              n, mrc_frame_drop_name(rc));
    }
}

/* random garbage and random mutations: never a crash (ASan), never accepted with a wrong ICRC */
static void t_fuzz(void) {
    static uint8_t f[MRC_FRAME_MAX + 128], hdr[MRC_HDR_MAX];
    mrc_txinfo ti;
    mrc_frame_rx rx;
    unsigned i, bad = 0, accepted = 0;
    for (i = 0; i < 200000u; i++) {
        const kind *k = &kinds[rnd() % NKINDS];
        int n = build(k, f, sizeof f, &ti, hdr), m, rc;
        size_t len = (size_t)n;
        uint8_t *buf = (uint8_t *)malloc(len + 1); /* exact-size copy: ASan sees any overread */
        if (rnd() % 8 == 0) len = rnd() % (len + 1);
        for (m = (int)(rnd() % 4); m >= 0; m--)
            if (len) f[rnd() % len] ^= (uint8_t)(1u + rnd() % 255u);
        if (rnd() % 16 == 0) {
            unsigned j;
            for (j = 0; j < len; j++) f[j] = (uint8_t)rnd();
        }
        memcpy(buf, f, len);
        rc = mrc_frame_parse(&fr, k->ipv6 ? &B6 : &B, buf, len, &rx);
        if (rc == MRC_FRAME_OK) {
            accepted++;
            if (rx.mrc_off + rx.mrc_len + 4u > len) bad++;
            else if (!rx.icrc_bad &&
                     mrc_icrc_get(buf + rx.mrc_off + rx.mrc_len) !=
                         mrc_frame_icrc(&fr, buf + rx.mrc_off - 8u - (rx.ipv6 ? 40u : 20u),
                                        rx.mrc_len + 8u + (rx.ipv6 ? 40u : 20u), NULL, 0, 0))
                bad++;
        }
        free(buf);
    }
    check(bad == 0, "200000 mutated/garbage frames: no out-of-range result, none accepted with a wrong ICRC",
          "%u bad (%u accepted)", bad, accepted);
}

/* ---- whole transfers: every packet crosses the codec ----------------------------------------------------------- */
static mrc_endpoint ep[2];
static mrc_conn qp[2];
static uint8_t src[1u << 20], dst[1u << 20];
typedef struct wpkt { mrc_time at; int to; unsigned port; size_t len; uint8_t f[MRC_FRAME_MAX]; } wpkt;
static wpkt wire[512];
static unsigned nw;
static mrc_frame frx[2];

static int ev_fmt_profile(mrc_endpoint *e, unsigned mode, uint64_t prof, unsigned count) {
    mrc_ev_fmt_attr f;
    mrc_ev_profile_attr a;
    unsigned i, nf = mode == MRC_EV_FMT_STEV ? 2u : 10u; /* STEV 16+16; SRv6+SRH: (32 + 6x16) + (32 + 6x16)... */
    int rc;
    memset(&f, 0, sizeof f);
    f.state = MRC_PROFILE_OFFLINE;
    f.mode = (uint8_t)mode;
    memset(&a, 0, sizeof a);
    a.state = MRC_PROFILE_OFFLINE;
    a.mode = MRC_EV_MODE_EXP;
    a.fmt_id = 7;
    a.ev_count = count;
    a.ev_min_active = 1;
    a.event_mask = MRC_EVS_GOOD | MRC_EVS_ASSUMED_BAD;
    if (mode == MRC_EV_FMT_STEV) {
        f.nfields = 2;
        f.width[0] = f.width[1] = 16;
        a.nfields = 2;
        for (i = 0; i < 2; i++) {
            a.field[i].width = 16;
            a.field[i].mask = 0xFFFF;
        }
    } else { /* SRv6 + SRH: DA = locator 32 + 6 uSIDs; SRH = locator 32 + 2 uSIDs (+ zero tail) */
        static const uint8_t w[10] = {32, 16, 16, 16, 16, 16, 16, 32, 16, 16};
        f.nfields = (uint8_t)nf;
        a.nfields = (uint8_t)nf;
        for (i = 0; i < nf; i++) {
            f.width[i] = w[i];
            a.field[i].width = w[i];
            a.field[i].mask = w[i] == 32 ? 0 : 0xFFFF;
            a.field[i].init_val = i == 0 ? 0xFC000000u : i == 7 ? 0xFC010000u : 0;
        }
    }
    rc = mrc_ev_fmt_modify(e, 7, &f, MRC_EV_FMT_ATTR_STATE | MRC_EV_FMT_ATTR_MODE | MRC_EV_FMT_ATTR_FIELDS);
    f.state = MRC_PROFILE_ONLINE;
    if (!rc) rc = mrc_ev_fmt_modify(e, 7, &f, MRC_EV_FMT_ATTR_STATE);
    if (!rc)
        rc = mrc_ev_profile_modify(e, prof, &a,
                                   MRC_EV_PROF_ATTR_STATE | MRC_EV_PROF_ATTR_MODE | MRC_EV_PROF_ATTR_FMT_ID |
                                       MRC_EV_PROF_ATTR_COUNT | MRC_EV_PROF_ATTR_MIN_ACTIVE |
                                       MRC_EV_PROF_ATTR_EVENT_MASK | MRC_EV_PROF_ATTR_FIELDS,
                                   0);
    for (i = 0; !rc && i < count; i++) {
        mrc_ev_op_entry en;
        uint32_t one = 1;
        unsigned j;
        memset(&en, 0, sizeof en);
        for (j = 0; j < (mode == MRC_EV_FMT_STEV ? 4u : 16u); j++) en.ev_new.val[j] = (uint8_t)(0x11u * (i + 1u) + j);
        en.ev_new.port = (uint8_t)(i % 2u + 1u);
        en.state = MRC_EVS_GOOD;
        rc = mrc_ev_op(e, prof, MRC_EV_OP_REPLACE, &en, &one, 0);
    }
    if (!rc) {
        a.state = MRC_PROFILE_ONLINE;
        rc = mrc_ev_profile_modify(e, prof, &a, MRC_EV_PROF_ATTR_STATE, 0);
    }
    return rc;
}

static int transfer(const char *name, int ipv6, unsigned ev_mode) {
    mrc_config cfg;
    mrc_conn_attr a;
    mrc_write w;
    mrc_event ev;
    mrc_time now = 0;
    uint32_t rkey, i;
    int s, done = 0, rc = 0;
    unsigned long frames = 0, lost = 0;
    const mrc_frame_addr *ad[2];
    mrc_frame_cfg fc;
    mrc_frame_cfg_default(&fc);
    fc.ipv6 = (uint8_t)ipv6;
    ad[0] = ipv6 ? &A6 : &A;
    ad[1] = ipv6 ? &B6 : &B;
    nw = 0;
    memset(dst, 0, sizeof dst);
    for (i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 13u + (i >> 9));
    for (s = 0; s < 2 && !rc; s++) {
        mrc_config_default(&cfg);
        cfg.seed = 7u + (unsigned)s;
        cfg.num_ports = 2;
        rc = mrc_endpoint_init(&ep[s], &cfg, now) || mrc_frame_init(&frx[s], &fc) ||
             (ev_mode != MRC_EV_FMT_UDP && ev_fmt_profile(&ep[s], ev_mode, 9, 8)) || mrc_conn_init(&ep[s], &qp[s], now);
    }
    if (rc || mrc_endpoint_reg_mr(&ep[1], dst, 0x1000, sizeof dst, MRC_ACCESS_REMOTE_WRITE, NULL, &rkey)) {
        check(0, name, "setup failed");
        return -1;
    }
    for (s = 0; s < 2; s++) {
        mrc_conn_attr_default(&a);
        a.dest_qpn = mrc_conn_qpn(&qp[1 - s]);
        a.sq_psn = 100u * (unsigned)(s + 1);
        a.rq_psn = 100u * (unsigned)(2 - s);
        a.peer = 1;
        if (ev_mode != MRC_EV_FMT_UDP) a.ev_profile_id = 9;
        if (mrc_conn_connect(&qp[s], &a, now) != MRC_OK) {
            check(0, name, "connect failed");
            return -1;
        }
    }
    memset(&w, 0, sizeof w);
    w.wr_id = 5;
    w.opcode = MRC_WR_WRITE;
    w.buf = src;
    w.len = sizeof src;
    w.remote_va = 0x1000;
    w.rkey = rkey;
    (void)mrc_conn_post_write(&qp[0], &w, now);
    while (!done && now < 2000000000u) {
        mrc_time next = MRC_TIME_NEVER;
        for (i = 0; i < nw;) {
            if (wire[i].at <= now) {
                wpkt *p = &wire[i];
                mrc_frame_rx rx;
                mrc_rxinfo ri;
                if (mrc_frame_parse(&frx[p->to], ad[p->to], p->f, p->len, &rx) == MRC_FRAME_OK) {
                    mrc_frame_rxinfo(&rx, p->port, 1, &ri);
                    (void)mrc_endpoint_recv(&ep[p->to], p->f + rx.mrc_off, rx.mrc_len, &ri, now);
                }
                wire[i] = wire[--nw];
            } else {
                i++;
            }
        }
        for (s = 0; s < 2; s++) {
            uint8_t hdr[MRC_HDR_MAX];
            mrc_txinfo ti;
            int n;
            if (now >= mrc_endpoint_next_deadline(&ep[s])) (void)mrc_endpoint_on_timeout(&ep[s], now);
            while ((n = mrc_endpoint_poll_tx(&ep[s], hdr, sizeof hdr, 0, &ti, now)) > 0) {
                mrc_ev_hdrs evh;
                frames++;
                if (rnd() % 100 < 1 || nw == sizeof wire / sizeof wire[0] ||
                    mrc_endpoint_ev_headers(&ep[s], &ti, &evh) != MRC_OK) {
                    lost++;
                    continue;
                }
                wire[nw].len = (size_t)mrc_frame_encode(&frx[s], ad[s], ad[1 - s], &ti, &evh, hdr, wire[nw].f,
                                                        sizeof wire[nw].f);
                wire[nw].at = now + 3000 + rnd() % 2000;
                wire[nw].to = 1 - s;
                wire[nw].port = ti.port;
                nw++;
            }
            while (mrc_endpoint_poll_event(&ep[s], &ev) > 0)
                if (ev.type == MRC_EVT_SEND_DONE) done = ev.status == MRC_OK ? 1 : -1;
            if (mrc_endpoint_next_deadline(&ep[s]) < next) next = mrc_endpoint_next_deadline(&ep[s]);
        }
        for (i = 0; i < nw; i++)
            if (wire[i].at < next) next = wire[i].at;
        now = next > now ? next : now + 1;
    }
    {
        mrc_conn_stats st;
        mrc_endpoint_stats es;
        uint64_t drops = 0;
        unsigned d;
        mrc_conn_stats_get(&qp[0], &st);
        mrc_endpoint_stats_get(&ep[0], &es);
        for (d = 1; d < MRC_FRAME_DROP_NDROP; d++) drops += frx[0].st.drop[d] + frx[1].st.drop[d];
        check(done == 1 && memcmp(src, dst, sizeof dst) == 0 && drops == 0 && st.rx_sack > 0 && es.rx_drops == 0,
              name, "done %d bytes %s frame drops %llu sacks %llu core drops %llu", done,
              memcmp(src, dst, sizeof dst) ? "differ" : "equal", (unsigned long long)drops,
              (unsigned long long)st.rx_sack, (unsigned long long)es.rx_drops);
        printf("#   %s: %lu frames, %lu lost, %llu retransmitted, %llu SACKs matched, %.1f us virtual\n", name, frames,
               lost, (unsigned long long)st.tx_rtx, (unsigned long long)st.rx_sack, (double)now / 1e3);
    }
    return 0;
}

/* ---- pcap exchange with Scapy (tools/frame_scapy.py) --------------------------------------------------------- */
static int gen(const char *pcap, const char *expect) {
    static uint8_t f[MRC_FRAME_MAX + 64], hdr[MRC_HDR_MAX];
    FILE *p = fopen(pcap, "wb"), *e = fopen(expect, "w");
    uint8_t h[24], r[16];
    unsigned i;
    if (!p || !e) {
        fprintf(stderr, "mrc_frame_test: cannot write %s / %s\n", pcap, expect);
        return 2;
    }
    for (i = 0; i < sizeof payload_buf; i++) payload_buf[i] = (uint8_t)rnd();
    mrc_frame_pcap_file_hdr(h, 65535);
    fwrite(h, 1, 24, p);
    for (i = 0; i < NKINDS; i++) {
        mrc_txinfo ti;
        mrc_ev_hdrs evh;
        int n = build(&kinds[i], f, sizeof f, &ti, hdr);
        if (n < 0) return 2;
        (void)mrc_endpoint_ev_headers(&ep_cfg, &ti, &evh);
        mrc_frame_pcap_rec_hdr(r, (uint64_t)i * 1000u, (uint32_t)n, (uint32_t)n);
        fwrite(r, 1, 16, p);
        fwrite(f, 1, (size_t)n, p);
        /* name|ipv6|vlan|srv6|srh|sport|flow_label|dscp|ecn|mrc_len */
        fprintf(e, "%s|%d|%d|%d|%d|%u|%u|%u|%u|%u\n", kinds[i].name, kinds[i].ipv6, kinds[i].vlan,
                kinds[i].ev_fmt == MRC_EV_FMT_SRV6, kinds[i].path_len == 32, evh.udp_sport, evh.flow_label,
                kinds[i].dscp, ti.payload_len ? 2u : 0u, ti.hdr_len + ti.payload_len + ti.pad);
    }
    fclose(p);
    fclose(e);
    printf("wrote %u frames to %s\n", (unsigned)NKINDS, pcap);
    return 0;
}

static int check_pcap(const char *pcap, const char *expect) {
    static uint8_t f[65536];
    FILE *p = fopen(pcap, "rb"), *e = fopen(expect, "r");
    uint8_t h[24], r[16];
    char line[512];
    unsigned idx = 0;
    if (!p || !e || fread(h, 1, 24, p) != 24) {
        fprintf(stderr, "mrc_frame_test: cannot read %s / %s\n", pcap, expect);
        return 2;
    }
    fr.cfg.check_local = 0;
    while (fread(r, 1, 16, p) == 16 && fgets(line, sizeof line, e)) {
        uint32_t n = (uint32_t)r[8] | (uint32_t)r[9] << 8 | (uint32_t)r[10] << 16 | (uint32_t)r[11] << 24;
        unsigned ev, dscp, ecn, mlen, srv6;
        char name[128];
        mrc_frame_rx rx;
        int rc;
        if (n > sizeof f || fread(f, 1, n, p) != n) break;
        if (sscanf(line, "%127[^|]|%u|%u|%u|%u|%u", name, &srv6, &ev, &dscp, &ecn, &mlen) != 6) break;
        rc = mrc_frame_parse(&fr, NULL, f, n, &rx);
        {
            char what[200];
            snprintf(what, sizeof what, "scapy-built frame %u (%s) parsed by the codec", idx, name);
            check(rc == MRC_FRAME_OK && !rx.icrc_bad && rx.ev == ev && rx.dscp == dscp && rx.ecn == ecn &&
                      rx.mrc_len == mlen && rx.srv6 == srv6,
                  what, "rc %s icrc_bad %u ev %u/%u dscp %u/%u ecn %u/%u len %u/%u srv6 %u/%u",
                  mrc_frame_drop_name(rc), rx.icrc_bad, rx.ev, ev, rx.dscp, dscp, rx.ecn, ecn, rx.mrc_len, mlen,
                  rx.srv6, srv6);
        }
        idx++;
    }
    fclose(p);
    fclose(e);
    check(idx > 0, "scapy pcap read", "no frames");
    printf("%u passed, %u failed\n", npass, nfail);
    return nfail ? 1 : 0;
}

/* the per-packet work of a port adapter, isolated for callgrind's --toggle-collect */
static int cost(unsigned long n, int ctl) {
    static uint8_t f[MRC_FRAME_MAX + 64], hdr[MRC_HDR_MAX];
    static const kind data = {"data", 0, 0, MRC_EV_FMT_UDP, 0, 0, 10, 0, 0xC123u, 4096};
    static const kind sack = {"sack", 0, 0, MRC_EV_FMT_UDP, 0, 0, 48, 0, 0xC123u, 0};
    const kind *k = ctl ? &sack : &data;
    mrc_txinfo ti;
    mrc_ev_hdrs evh;
    mrc_frame_rx rx;
    unsigned long i, ok = 0;
    size_t l3 = 0;
    fr.cfg.ipv6 = 0;
    make_pkt(k, &ti, hdr);
    (void)mrc_endpoint_ev_headers(&ep_cfg, &ti, &evh);
    for (i = 0; i < n; i++) {
        int h = mrc_frame_write_hdr(&fr, &A, &B, &ti, &evh, f, sizeof f, &l3);
        size_t m = (size_t)h + ti.hdr_len;
        memcpy(f + h, hdr, ti.hdr_len);
        if (ti.payload_len) memcpy(f + m, ti.payload, ti.payload_len); /* what the wire carries; not counted */
        mrc_icrc_put(f + m + ti.payload_len + ti.pad,
                     mrc_frame_icrc(&fr, f + l3, m - l3, ti.payload, ti.payload_len, ti.pad));
        if (mrc_frame_parse(&fr, &B, f, m + ti.payload_len + ti.pad + 4u, &rx) == MRC_FRAME_OK) ok++;
    }
    printf("%lu of %lu frames built and parsed back\n", ok, n);
    return ok == n ? 0 : 1;
}

int main(int argc, char **argv) {
    mrc_config cfg;
    mrc_config_default(&cfg);
    if (mrc_frame_init(&fr, NULL) || mrc_endpoint_init(&ep_cfg, &cfg, 0)) return 2;
    if (argc == 4 && !strcmp(argv[1], "--gen")) return gen(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "--check")) return check_pcap(argv[2], argv[3]);
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--cost"))
        return cost(strtoul(argv[2], NULL, 10), argc == 4 && atoi(argv[3]) == 1);
    if (argc != 1) {
        fprintf(stderr, "usage: mrc_frame_test [--gen|--check PCAP EXPECT] [--cost N [KIND]]\n");
        return 2;
    }
    t_crc();
    t_roundtrip();
    t_malformed();
    t_fuzz();
    (void)transfer("transfer over IPv4 frames, AUTO (UDP source port) EVs, 1% loss", 0, MRC_EV_FMT_UDP);
    (void)transfer("transfer over IPv6 frames, AUTO EVs, 1% loss", 1, MRC_EV_FMT_UDP);
    (void)transfer("transfer over IPv6 frames, STEV EVs (source port + flow label), 1% loss", 1, MRC_EV_FMT_STEV);
    (void)transfer("transfer over SRv6 + SRH frames, 256-bit path EVs, 1% loss", 1, MRC_EV_FMT_SRV6);
    printf("%u passed, %u failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
