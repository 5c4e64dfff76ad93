/* mrc_frame.h - wire frames for open MRC port adapters: Ethernet (optional 802.1Q) / IPv4 or IPv6 (SRv6 outer
 * header + SRH when the EV format is SRv6) / UDP 4791 / MRC packet / pad / RoCEv2 ICRC. One codec for every
 * adapter that builds whole frames (ports/dpdk, ports/ibverbs raw packet QPs) and for every pcap writer (the
 * simulator, mrc_perf --pcap), so all of them put the same bytes on the wire.
 *
 * USAGE
 *   In exactly one C or C++ file:   #define MRC_FRAME_IMPLEMENTATION
 *                                   #include "ports/common/mrc_frame.h"
 *   Everywhere else just include it (after mrc.h, or it includes ../../mrc.h itself). MRC_FRAME_STATIC makes
 *   every function static to its translation unit. No malloc, no globals; libc: mem* only.
 *
 *   Transmit (the headers are written in front of the MRC headers the core produced, e.g. in an mbuf's headroom):
 *     n = mrc_endpoint_poll_tx(ep, mrc_hdr, MRC_HDR_MAX, 0, &ti, now);
 *     mrc_endpoint_ev_headers(ep, &ti, &evh);
 *     h = mrc_frame_hdr_len(&fr, &ti);                        (space needed in front of mrc_hdr)
 *     mrc_frame_write_hdr(&fr, &src, &dst, &ti, &evh, mrc_hdr - h, h, &l3);
 *     icrc = mrc_frame_icrc(&fr, mrc_hdr - h + l3, h - l3 + ti.hdr_len, ti.payload, ti.payload_len, ti.pad);
 *     frame = mrc_hdr - h .. + ti.hdr_len, then payload, pad zero bytes, mrc_icrc_put(icrc)
 *   or, all in one buffer: len = mrc_frame_encode(&fr, &src, &dst, &ti, &evh, mrc_hdr, out, cap).
 *
 *   Receive:
 *     if (mrc_frame_parse(&fr, &local, frame, len, &rx) == MRC_FRAME_OK) {
 *         mrc_frame_rxinfo(&rx, plane, peer_handle, &ri);
 *         mrc_endpoint_recv(ep, frame + rx.mrc_off, rx.mrc_len, &ri, now);
 *     }                                                        (else: dropped and counted in fr.st.drop[])
 *
 * WIRE CHOICES (docs/PROTOCOL.md "Frames"; each is a field of mrc_frame_cfg)
 *   IPv4: IHL 5 (no options), DF set, ID 0, TTL cfg.ttl, header checksum computed. IPv6: no extension headers.
 *   TOS / traffic class = DSCP << 2 | ECN; data packets ECT(0) when cfg.ecn_data, everything else Not-ECT.
 *   UDP: destination cfg.udp_dport (4791), source port and IPv6 flow label from mrc_endpoint_ev_headers, UDP
 *   checksum 0 (RoCEv2; not checked on receive), UDP length includes the 4-byte ICRC.
 *   SRv6 (ti.ev_fmt == MRC_EV_FMT_SRV6 and a path): outer IPv6 (source = ours, DA = the path's first 128 bits,
 *   traffic class and hop limit as the inner, flow label copied from the inner when cfg.srv6_outer_fl), then, for
 *   a 256-bit path, an SRH (RFC 8754, routing type 4, one segment = the path's second 128 bits, segments left 1,
 *   last entry 0: the reduced encapsulation), then the inner IPv6 + UDP + MRC. The ICRC covers the inner packet.
 *   SRv6 needs cfg.ipv6. On receive the outer header (any DA) and an SRH are skipped; the inner packet is checked.
 *   ICRC: RoCEv2 (mrc_icrc's masking), stored little-endian as mrc_icrc_put does; computed here with a
 *   slice-by-8 table held in the mrc_frame (8 KiB), and on x86-64 CPUs with PCLMULQDQ by carry-less-multiply
 *   folding (chosen at mrc_frame_init; MRC_FRAME_NO_CLMUL compiles it out). A frame whose DSCP is one of cfg.trimmed_dscp is accepted
 *   with a wrong ICRC (a trimming switch cut it; counted in icrc_trimmed), as docs/PROTOCOL.md "ICRC" requires.
 *   Receive rebuilds the 32-bit entropy as mrc_rxinfo.ev wants it: IPv4, or IPv6 with flow label 0: the source
 *   port; otherwise source port and the flow label's low 16 bits, ordered by cfg.stev_sport_high (Q16).
 *
 * LICENSE   MIT, as mrc.h.
 */
#ifndef MRC_FRAME_H
#define MRC_FRAME_H

#ifndef MRC_H
#include "../../mrc.h"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef MRC_FRAME_STATIC /* a private copy per translation unit: functions it does not call are no warning */
#if defined(__GNUC__) || defined(__clang__)
#define MRC_FRAME_API static __attribute__((unused))
#else
#define MRC_FRAME_API static
#endif
#else
#define MRC_FRAME_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_FRAME_ETH_LEN 14u
#define MRC_FRAME_VLAN_LEN 4u
#define MRC_FRAME_IPV4_LEN 20u
#define MRC_FRAME_IPV6_LEN 40u
#define MRC_FRAME_SRH_LEN 24u  /* SRH with one 128-bit segment */
#define MRC_FRAME_UDP_LEN 8u
#define MRC_FRAME_ICRC_LEN 4u
/* longest L2-L4 header: Eth + 802.1Q + outer IPv6 + SRH + inner IPv6 + UDP = 130 */
#define MRC_FRAME_HDR_MAX 136u
/* longest frame: that header, the MRC headers, a 4 KiB payload, pad 3, ICRC */
#define MRC_FRAME_MAX (MRC_FRAME_HDR_MAX + 64u + 4096u + 3u + 4u)

/* Why a received frame was not MRC (the index of mrc_frame_stats.drop[]; mrc_frame_parse returns it). */
enum mrc_frame_drop {
    MRC_FRAME_OK = 0,
    MRC_FRAME_DROP_SHORT,        /* ends inside a header, or too short for BTH + ICRC */
    MRC_FRAME_DROP_ETHERTYPE,    /* not IPv4 / IPv6 (after at most one 802.1Q tag) */
    MRC_FRAME_DROP_NOT_LOCAL,    /* destination MAC or IP address is not this endpoint's on that plane */
    MRC_FRAME_DROP_IP_VERSION,   /* the IP version nibble disagrees with the ethertype */
    MRC_FRAME_DROP_IP_OPTIONS,   /* IPv4 options (IHL != 5) or an IPv6 extension header that is not SRv6's */
    MRC_FRAME_DROP_IP_FRAGMENT,  /* IPv4 MF or fragment offset, IPv6 fragment header */
    MRC_FRAME_DROP_IP_CSUM,      /* IPv4 header checksum wrong */
    MRC_FRAME_DROP_IP_LEN,       /* IP total / payload length disagrees with the frame */
    MRC_FRAME_DROP_NOT_UDP,      /* IP protocol / next header is not UDP */
    MRC_FRAME_DROP_UDP_PORT,     /* UDP destination port is not cfg.udp_dport */
    MRC_FRAME_DROP_UDP_LEN,      /* UDP length disagrees with the IP length */
    MRC_FRAME_DROP_SRV6,         /* SRv6 encapsulation malformed (SRH, inner header not IPv6) */
    MRC_FRAME_DROP_ICRC,         /* ICRC mismatch */
    MRC_FRAME_DROP_NDROP
};

typedef struct mrc_frame_cfg {
    uint8_t ipv6;            /* 0: IPv4 (default), 1: IPv6 (required for SRv6 EVs) */
    uint8_t vlan;            /* 1: transmit with an 802.1Q tag (vlan_tci); receive accepts tagged and untagged */
    uint16_t vlan_tci;       /* PCP 3 | DEI 1 | VID 12 */
    uint8_t ttl;             /* IPv4 TTL / IPv6 hop limit (64) */
    uint8_t ecn_data;        /* 1: data packets ECT(0), others Not-ECT (default 1) */
    uint8_t check_icrc;      /* 1: drop frames whose ICRC is wrong (default 1) */
    uint8_t check_ip_csum;   /* 1: drop IPv4 headers with a wrong checksum (default 1) */
    uint8_t check_local;     /* 1: drop frames whose destination MAC / IP is not the local address (default 1) */
    uint8_t stev_sport_high; /* as mrc_config.stev_sport_high: rebuilds the 32-bit entropy on receive (default 1) */
    uint8_t srv6_outer_fl;   /* SRv6: the outer flow label copies the inner one (default 1) */
    uint8_t trimmed_dscp[2]; /* DSCPs that mark a trimmed packet: ICRC not required to match (3, 4) */
    uint16_t udp_dport;      /* MRC_UDP_PORT (4791) */
} mrc_frame_cfg;

typedef struct mrc_frame_stats {
    uint64_t tx;                        /* headers written */
    uint64_t rx_ok;                     /* frames accepted */
    uint64_t rx_ce;                     /* ... of which ECN CE */
    uint64_t icrc_trimmed;              /* accepted with a wrong ICRC because the DSCP says trimmed */
    uint64_t drop[MRC_FRAME_DROP_NDROP];     /* rejected, by reason (drop[0] unused) */
} mrc_frame_stats;

typedef struct mrc_frame {
    mrc_frame_cfg cfg;
    mrc_frame_stats st;
    uint32_t crc[8][256];               /* slice-by-8 CRC-32 tables */
    uint8_t clmul;                      /* 1: the carry-less-multiply CRC runs (x86-64 with PCLMULQDQ + SSE4.1) */
} mrc_frame;

/* One end of one plane: its MAC and IP address (IPv4 in ip[0..4)). */
typedef struct mrc_frame_addr {
    uint8_t mac[6];
    uint8_t ip[16];
} mrc_frame_addr;

/* What mrc_frame_parse found. */
typedef struct mrc_frame_rx {
    uint32_t mrc_off, mrc_len;  /* the MRC packet: BTH onwards, ICRC removed */
    uint8_t dscp, ecn;          /* of the (inner) IP header */
    uint8_t ipv6, srv6, vlan;   /* 1 when present */
    uint8_t icrc_bad;           /* ICRC wrong but accepted (trimmed DSCP, or cfg.check_icrc off) */
    uint8_t trimmed;            /* the DSCP is one of cfg.trimmed_dscp */
    uint16_t vlan_tci, udp_sport;
    uint32_t flow_label;        /* inner IPv6 flow label (0 for IPv4) */
    uint32_t ev;                /* the entropy for mrc_rxinfo.ev */
    uint8_t src_mac[6], dst_mac[6];
    uint8_t src_ip[16], dst_ip[16]; /* (inner) addresses; IPv4 in [0..4) */
} mrc_frame_rx;

MRC_FRAME_API void mrc_frame_cfg_default(mrc_frame_cfg *cfg);
/* cfg NULL = defaults. Builds the CRC tables, zeroes the stats. MRC_OK or MRC_ERR_INVAL. */
MRC_FRAME_API int mrc_frame_init(mrc_frame *f, const mrc_frame_cfg *cfg);

/* ---- transmit -------------------------------------------------------------------------------------------------- */
/* Bytes of Ethernet..UDP header the packet of ti needs: 42 (IPv4), 62 (IPv6), 102 / 126 (SRv6 / + SRH), + 4 with
 * a VLAN tag. 0 when ti cannot be framed with this configuration (SRv6 without cfg.ipv6, bad path length). */
MRC_FRAME_API size_t mrc_frame_hdr_len(const mrc_frame *f, const mrc_txinfo *ti);
/* Write that header into out[0..cap) for the packet of ti (ti.hdr_len + ti.payload_len + ti.pad MRC bytes and the
 * ICRC follow it). evh: from mrc_endpoint_ev_headers. l3 (may be NULL) receives the offset of the IP header the
 * ICRC covers (the inner one for SRv6). Returns the header length, or MRC_ERR_INVAL / MRC_ERR_NOBUF. */
MRC_FRAME_API int mrc_frame_write_hdr(mrc_frame *f, const mrc_frame_addr *src, const mrc_frame_addr *dst,
                                      const mrc_txinfo *ti, const mrc_ev_hdrs *evh, uint8_t *out, size_t cap,
                                      size_t *l3);
/* RoCEv2 ICRC of a frame in up to two pieces: l3[0..contig) = IP header .. MRC headers (contiguous), then
 * payload[0..plen) and pad zero bytes. Store it with mrc_icrc_put. Same value as mrc_icrc over the whole. */
MRC_FRAME_API uint32_t mrc_frame_icrc(const mrc_frame *f, const uint8_t *l3, size_t contig, const uint8_t *payload,
                                      size_t plen, unsigned pad);
/* A whole frame in one buffer: header, the MRC headers (mrc_hdr, ti.hdr_len bytes), payload, pad, ICRC. Returns
 * the frame length, or MRC_ERR_INVAL / MRC_ERR_NOBUF. */
MRC_FRAME_API int mrc_frame_encode(mrc_frame *f, const mrc_frame_addr *src, const mrc_frame_addr *dst,
                                   const mrc_txinfo *ti, const mrc_ev_hdrs *evh, const uint8_t *mrc_hdr,
                                   uint8_t *out, size_t cap);

/* ---- receive --------------------------------------------------------------------------------------------------- */
/* Check one frame. local: this endpoint's address on the arrival plane (NULL, or cfg.check_local = 0: any
 * destination). Returns MRC_FRAME_OK and fills rx, or the reason it was dropped (counted in f->st.drop[]). */
MRC_FRAME_API int mrc_frame_parse(mrc_frame *f, const mrc_frame_addr *local, const uint8_t *frame, size_t len,
                                  mrc_frame_rx *rx);
/* The mrc_rxinfo for the core: port and peer are the adapter's (plane, sender handle). flags: MRC_RX_TRIMMED for
 * a trimmed DSCP (its stale ICRC is no error, docs/PROTOCOL.md "ICRC"), MRC_RX_ICRC_BAD for a wrong ICRC that was
 * let through (cfg.check_icrc off): the core then drops and counts it as MRC_DROP_ICRC. */
MRC_FRAME_API void mrc_frame_rxinfo(const mrc_frame_rx *rx, unsigned port, uint32_t peer, mrc_rxinfo *ri);
/* "ethertype", "not_local", ... for a reason; "?" when out of range. */
MRC_FRAME_API const char *mrc_frame_drop_name(int reason);

/* ---- helpers --------------------------------------------------------------------------------------------------- */
/* CRC-32 (IEEE 802.3, zlib form, chainable like mrc_crc32), slice-by-8. */
MRC_FRAME_API uint32_t mrc_frame_crc32(const mrc_frame *f, uint32_t crc, const uint8_t *p, size_t n);
/* pcap (nanosecond timestamps, LINKTYPE_ETHERNET): the 24-byte file header and a 16-byte record header. */
MRC_FRAME_API void mrc_frame_pcap_file_hdr(uint8_t out[24], uint32_t snaplen);
MRC_FRAME_API void mrc_frame_pcap_rec_hdr(uint8_t out[16], uint64_t t_ns, uint32_t caplen, uint32_t len);

#ifdef __cplusplus
}
#endif
#endif /* MRC_FRAME_H */

/* ================================================================================================================
 * IMPLEMENTATION
 * ============================================================================================================== */
#if defined(MRC_FRAME_IMPLEMENTATION) && !defined(MRC_FRAME_IMPLEMENTATION_DONE)
#define MRC_FRAME_IMPLEMENTATION_DONE

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(MRC_FRAME_NO_CLMUL)
#define MRC_FRAME__CLMUL 1
#include <immintrin.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_FRAME__ETH_IPV4 0x0800u
#define MRC_FRAME__ETH_IPV6 0x86DDu
#define MRC_FRAME__ETH_VLAN 0x8100u
#define MRC_FRAME__NH_UDP 17u
#define MRC_FRAME__NH_IPV6 41u
#define MRC_FRAME__NH_ROUTING 43u
#define MRC_FRAME__NH_FRAGMENT 44u

static void mrc_frame__put16(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static uint32_t mrc_frame__get16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static void mrc_frame__le32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

MRC_FRAME_API void mrc_frame_cfg_default(mrc_frame_cfg *cfg) {
    if (!cfg) return;
    memset(cfg, 0, sizeof *cfg);
    cfg->ttl = 64;
    cfg->ecn_data = 1;
    cfg->check_icrc = 1;
    cfg->check_ip_csum = 1;
    cfg->check_local = 1;
    cfg->stev_sport_high = 1;
    cfg->srv6_outer_fl = 1;
    cfg->trimmed_dscp[0] = 3;
    cfg->trimmed_dscp[1] = 4;
    cfg->udp_dport = (uint16_t)MRC_UDP_PORT;
}

MRC_FRAME_API int mrc_frame_init(mrc_frame *f, const mrc_frame_cfg *cfg) {
    uint32_t i, j, c;
    if (!f) return MRC_ERR_INVAL;
    memset(f, 0, sizeof *f);
    if (cfg) {
        if (cfg->ttl == 0 || cfg->udp_dport == 0) return MRC_ERR_INVAL;
        f->cfg = *cfg;
    } else {
        mrc_frame_cfg_default(&f->cfg);
    }
    for (i = 0; i < 256; i++) {
        c = i;
        for (j = 0; j < 8; j++) c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        f->crc[0][i] = c;
    }
    for (i = 0; i < 256; i++)
        for (j = 1; j < 8; j++) f->crc[j][i] = (f->crc[j - 1][i] >> 8) ^ f->crc[0][f->crc[j - 1][i] & 0xFFu];
#ifdef MRC_FRAME__CLMUL
    __builtin_cpu_init();
    f->clmul = (uint8_t)(__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1"));
#endif
    return MRC_OK;
}

#ifdef MRC_FRAME__CLMUL
/* CRC-32 by folding 64-byte blocks with carry-less multiplication and a Barrett reduction (Intel, "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ", bit-reflected constants for the IEEE polynomial). state is
 * the CRC register (not inverted); n >= 64 and a multiple of 16. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t mrc_frame__crc_clmul(uint32_t state, const uint8_t *p,
                                                                               size_t n) {
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009eLL, 0x01751997d0LL);
    const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124LL);
    const __m128i poly = _mm_set_epi64x(0x01f7011641LL, 0x01db710641LL);
    const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
    __m128i x4 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
    __m128i t;
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)state));
    p += 64;
    n -= 64;
    while (n >= 64) {
        __m128i y1 = _mm_clmulepi64_si128(x1, k1k2, 0x00), y2 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
        __m128i y3 = _mm_clmulepi64_si128(x3, k1k2, 0x00), y4 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
        x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, k1k2, 0x11), y1);
        x2 = _mm_xor_si128(_mm_clmulepi64_si128(x2, k1k2, 0x11), y2);
        x3 = _mm_xor_si128(_mm_clmulepi64_si128(x3, k1k2, 0x11), y3);
        x4 = _mm_xor_si128(_mm_clmulepi64_si128(x4, k1k2, 0x11), y4);
        x1 = _mm_xor_si128(x1, _mm_loadu_si128((const __m128i *)(const void *)p));
        x2 = _mm_xor_si128(x2, _mm_loadu_si128((const __m128i *)(const void *)(p + 16)));
        x3 = _mm_xor_si128(x3, _mm_loadu_si128((const __m128i *)(const void *)(p + 32)));
        x4 = _mm_xor_si128(x4, _mm_loadu_si128((const __m128i *)(const void *)(p + 48)));
        p += 64;
        n -= 64;
    }
    /* fold the four lanes into one, then 16-byte blocks */
    t = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x2), t);
    t = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x3), t);
    t = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x4), t);
    while (n >= 16) {
        t = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11),
                                         _mm_loadu_si128((const __m128i *)(const void *)p)),
                           t);
        p += 16;
        n -= 16;
    }
    /* 128 -> 64 bits, then Barrett reduction to 32 */
    x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, low32);
    x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, k5, 0x00), x2);
    x2 = _mm_and_si128(x1, low32);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x10);
    x2 = _mm_and_si128(x2, low32);
    x2 = _mm_clmulepi64_si128(x2, poly, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}
#endif

MRC_FRAME_API uint32_t mrc_frame_crc32(const mrc_frame *f, uint32_t crc, const uint8_t *p, size_t n) {
    const uint32_t(*t)[256] = f->crc;
    crc = ~crc;
    if (!p) return ~crc;
#ifdef MRC_FRAME__CLMUL
    if (f->clmul && n >= 64) {
        size_t m = n & ~(size_t)15u;
        crc = mrc_frame__crc_clmul(crc, p, m);
        p += m;
        n -= m;
    }
#endif
    while (n && ((uintptr_t)p & 7u)) {
        crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xFFu];
        n--;
    }
    while (n >= 8) { /* byte loads: endian-neutral, no alignment assumption */
        uint32_t a = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        crc = t[7][a & 0xFFu] ^ t[6][(a >> 8) & 0xFFu] ^ t[5][(a >> 16) & 0xFFu] ^ t[4][a >> 24] ^ t[3][p[4]] ^
              t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
        p += 8;
        n -= 8;
    }
    while (n--) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xFFu];
    return ~crc;
}

static int mrc_frame__is_data(unsigned opcode) { return (mrc_opcode_hdrs(opcode) & MRC_HDR_RETH) != 0; }

MRC_FRAME_API size_t mrc_frame_hdr_len(const mrc_frame *f, const mrc_txinfo *ti) {
    size_t n;
    if (!f || !ti) return 0;
    n = MRC_FRAME_ETH_LEN + (f->cfg.vlan ? MRC_FRAME_VLAN_LEN : 0u) + MRC_FRAME_UDP_LEN;
    if (ti->ev_fmt == MRC_EV_FMT_SRV6 && ti->path_len) {
        if (!f->cfg.ipv6 || (ti->path_len != 16 && ti->path_len != 32)) return 0;
        n += 2u * MRC_FRAME_IPV6_LEN + (ti->path_len == 32 ? (size_t)MRC_FRAME_SRH_LEN : 0u);
    } else {
        n += f->cfg.ipv6 ? (size_t)MRC_FRAME_IPV6_LEN : (size_t)MRC_FRAME_IPV4_LEN;
    }
    return n;
}

static uint32_t mrc_frame__ip4_csum(const uint8_t *h) {
    uint32_t s = 0, i;
    for (i = 0; i < 20; i += 2) s += mrc_frame__get16(h + i);
    while (s >> 16) s = (s & 0xFFFFu) + (s >> 16);
    return ~s & 0xFFFFu;
}

static void mrc_frame__ip6(uint8_t *h, uint8_t tos, uint32_t fl, uint32_t plen, uint8_t nh, uint8_t hop,
                           const uint8_t *sa, const uint8_t *da) {
    h[0] = (uint8_t)(0x60u | (tos >> 4));
    h[1] = (uint8_t)(((tos & 0x0Fu) << 4) | ((fl >> 16) & 0x0Fu));
    mrc_frame__put16(h + 2, fl & 0xFFFFu);
    mrc_frame__put16(h + 4, plen);
    h[6] = nh;
    h[7] = hop;
    memcpy(h + 8, sa, 16);
    memcpy(h + 24, da, 16);
}

MRC_FRAME_API int mrc_frame_write_hdr(mrc_frame *f, const mrc_frame_addr *src, const mrc_frame_addr *dst,
                                      const mrc_txinfo *ti, const mrc_ev_hdrs *evh, uint8_t *out, size_t cap,
                                      size_t *l3) {
    size_t n, o, mrc_len;
    uint32_t udp_len, fl;
    uint8_t tos, ecn;
    int srv6;
    if (!f || !src || !dst || !ti || !evh || !out) return MRC_ERR_INVAL;
    n = mrc_frame_hdr_len(f, ti);
    if (!n) return MRC_ERR_INVAL;
    if (cap < n) return MRC_ERR_NOBUF;
    srv6 = ti->ev_fmt == MRC_EV_FMT_SRV6 && ti->path_len && evh->has_srv6;
    if (ti->ev_fmt == MRC_EV_FMT_SRV6 && ti->path_len && !evh->has_srv6) return MRC_ERR_INVAL;
    mrc_len = (size_t)ti->hdr_len + ti->payload_len + ti->pad;
    if (ti->dscp > 63u || mrc_len + MRC_FRAME_ICRC_LEN + MRC_FRAME_UDP_LEN + 2u * MRC_FRAME_IPV6_LEN +
                                  MRC_FRAME_SRH_LEN > 0xFFFFu)
        return MRC_ERR_INVAL;
    udp_len = (uint32_t)(MRC_FRAME_UDP_LEN + mrc_len + MRC_FRAME_ICRC_LEN);
    ecn = (uint8_t)(f->cfg.ecn_data && mrc_frame__is_data(ti->opcode) ? 2u : 0u);
    tos = (uint8_t)(ti->dscp << 2 | ecn);
    fl = f->cfg.ipv6 ? evh->flow_label & 0xFFFFFu : 0u;
    /* Ethernet */
    memcpy(out, dst->mac, 6);
    memcpy(out + 6, src->mac, 6);
    o = 12;
    if (f->cfg.vlan) {
        mrc_frame__put16(out + o, MRC_FRAME__ETH_VLAN);
        mrc_frame__put16(out + o + 2, f->cfg.vlan_tci);
        o += 4;
    }
    mrc_frame__put16(out + o, f->cfg.ipv6 ? MRC_FRAME__ETH_IPV6 : MRC_FRAME__ETH_IPV4);
    o += 2;
    if (srv6) { /* outer IPv6 (+ SRH): the path */
        uint32_t inner = (uint32_t)MRC_FRAME_IPV6_LEN + udp_len, srh = evh->has_srh ? MRC_FRAME_SRH_LEN : 0u;
        mrc_frame__ip6(out + o, tos, f->cfg.srv6_outer_fl ? fl : 0u, srh + inner,
                       (uint8_t)(srh ? MRC_FRAME__NH_ROUTING : MRC_FRAME__NH_IPV6), f->cfg.ttl, src->ip,
                       evh->srv6_da);
        o += MRC_FRAME_IPV6_LEN;
        if (srh) {
            uint8_t *s = out + o;
            s[0] = MRC_FRAME__NH_IPV6; /* next header */
            s[1] = 2;                  /* hdr ext len: 16 bytes of segment list, in 8-byte units */
            s[2] = 4;                  /* routing type: segment routing */
            s[3] = 1;                  /* segments left */
            s[4] = 0;                  /* last entry */
            s[5] = 0;                  /* flags */
            s[6] = s[7] = 0;           /* tag */
            memcpy(s + 8, evh->srh_seg, 16);
            o += MRC_FRAME_SRH_LEN;
        }
    }
    if (l3) *l3 = o;
    if (f->cfg.ipv6) {
        mrc_frame__ip6(out + o, tos, fl, udp_len, MRC_FRAME__NH_UDP, f->cfg.ttl, src->ip, dst->ip);
        o += MRC_FRAME_IPV6_LEN;
    } else {
        uint8_t *h = out + o;
        h[0] = 0x45;
        h[1] = tos;
        mrc_frame__put16(h + 2, MRC_FRAME_IPV4_LEN + udp_len);
        h[4] = h[5] = 0;
        h[6] = 0x40; /* DF */
        h[7] = 0;
        h[8] = f->cfg.ttl;
        h[9] = MRC_FRAME__NH_UDP;
        h[10] = h[11] = 0;
        memcpy(h + 12, src->ip, 4);
        memcpy(h + 16, dst->ip, 4);
        mrc_frame__put16(h + 10, mrc_frame__ip4_csum(h));
        o += MRC_FRAME_IPV4_LEN;
    }
    mrc_frame__put16(out + o, evh->udp_sport);
    mrc_frame__put16(out + o + 2, f->cfg.udp_dport);
    mrc_frame__put16(out + o + 4, udp_len);
    out[o + 6] = out[o + 7] = 0;
    f->st.tx++;
    return (int)n;
}

MRC_FRAME_API uint32_t mrc_frame_icrc(const mrc_frame *f, const uint8_t *l3, size_t contig, const uint8_t *payload,
                                      size_t plen, unsigned pad) {
    static const uint8_t ones[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    static const uint8_t zeros[4] = {0, 0, 0, 0};
    uint8_t h[MRC_FRAME_IPV6_LEN + MRC_FRAME_UDP_LEN + MRC_BTH_LEN];
    size_t iphl, n;
    uint32_t crc;
    if (!f || !l3 || contig < 1) return 0;
    iphl = (l3[0] >> 4) == 6 ? (size_t)MRC_FRAME_IPV6_LEN : (l3[0] >> 4) == 4 ? (size_t)(l3[0] & 15u) * 4u : 0u;
    if (iphl != MRC_FRAME_IPV6_LEN && iphl != MRC_FRAME_IPV4_LEN) return 0; /* no IPv4 options in MRC frames */
    n = iphl + MRC_FRAME_UDP_LEN + MRC_BTH_LEN;
    if (contig < n || pad > 3u) return 0;
    memcpy(h, l3, n);
    if (iphl == MRC_FRAME_IPV6_LEN) {
        h[0] |= 0x0Fu; /* traffic class, flow label, hop limit */
        h[1] = h[2] = h[3] = 0xFF;
        h[7] = 0xFF;
    } else {
        h[1] = 0xFF;   /* TOS, TTL, header checksum */
        h[8] = 0xFF;
        h[10] = h[11] = 0xFF;
    }
    h[iphl + 6] = h[iphl + 7] = 0xFF;       /* UDP checksum */
    h[iphl + MRC_FRAME_UDP_LEN + 4] = 0xFF; /* BTH resv8a */
    crc = mrc_frame_crc32(f, 0, ones, sizeof ones);
    crc = mrc_frame_crc32(f, crc, h, n);
    crc = mrc_frame_crc32(f, crc, l3 + n, contig - n);
    if (plen) crc = mrc_frame_crc32(f, crc, payload, plen);
    return mrc_frame_crc32(f, crc, zeros, pad);
}

MRC_FRAME_API int mrc_frame_encode(mrc_frame *f, const mrc_frame_addr *src, const mrc_frame_addr *dst,
                                   const mrc_txinfo *ti, const mrc_ev_hdrs *evh, const uint8_t *mrc_hdr,
                                   uint8_t *out, size_t cap) {
    size_t l3 = 0, o, total;
    int h;
    if (!f || !ti || !mrc_hdr || !out || (ti->payload_len && !ti->payload)) return MRC_ERR_INVAL;
    h = mrc_frame_write_hdr(f, src, dst, ti, evh, out, cap, &l3);
    if (h < 0) return h;
    total = (size_t)h + ti->hdr_len + ti->payload_len + ti->pad + MRC_FRAME_ICRC_LEN;
    if (total > cap) {
        f->st.tx--;
        return MRC_ERR_NOBUF;
    }
    o = (size_t)h;
    memcpy(out + o, mrc_hdr, ti->hdr_len);
    o += ti->hdr_len;
    if (ti->payload_len) memcpy(out + o, ti->payload, ti->payload_len);
    o += ti->payload_len;
    memset(out + o, 0, ti->pad);
    o += ti->pad;
    mrc_icrc_put(out + o, mrc_frame_icrc(f, out + l3, o - l3, (const uint8_t *)0, 0, 0));
    return (int)total;
}

static int mrc_frame__drop(mrc_frame *f, int why) {
    f->st.drop[why]++;
    return why;
}

MRC_FRAME_API int mrc_frame_parse(mrc_frame *f, const mrc_frame_addr *local, const uint8_t *p, size_t len,
                                  mrc_frame_rx *rx) {
    size_t o = MRC_FRAME_ETH_LEN, l3, end, udp_len, ip_end;
    uint32_t et;
    int v6;
    if (!f || !rx) return MRC_FRAME_DROP_SHORT;
    if (!p || len < MRC_FRAME_ETH_LEN) return mrc_frame__drop(f, MRC_FRAME_DROP_SHORT);
    memset(rx, 0, sizeof *rx);
    memcpy(rx->dst_mac, p, 6);
    memcpy(rx->src_mac, p + 6, 6);
    et = mrc_frame__get16(p + 12);
    if (et == MRC_FRAME__ETH_VLAN) {
        if (len < o + 4) return mrc_frame__drop(f, MRC_FRAME_DROP_SHORT);
        rx->vlan = 1;
        rx->vlan_tci = (uint16_t)mrc_frame__get16(p + 14);
        et = mrc_frame__get16(p + 16);
        o += 4;
    }
    if (et != MRC_FRAME__ETH_IPV4 && et != MRC_FRAME__ETH_IPV6) return mrc_frame__drop(f, MRC_FRAME_DROP_ETHERTYPE);
    v6 = et == MRC_FRAME__ETH_IPV6;
    if (f->cfg.check_local && local && memcmp(p, local->mac, 6) != 0) return mrc_frame__drop(f, MRC_FRAME_DROP_NOT_LOCAL);
    if (len < o + (v6 ? (size_t)MRC_FRAME_IPV6_LEN : (size_t)MRC_FRAME_IPV4_LEN))
        return mrc_frame__drop(f, MRC_FRAME_DROP_SHORT);
    if ((p[o] >> 4) != (v6 ? 6u : 4u)) return mrc_frame__drop(f, MRC_FRAME_DROP_IP_VERSION);
    if (v6) {
        uint32_t nh = p[o + 6];
        ip_end = o + MRC_FRAME_IPV6_LEN + mrc_frame__get16(p + o + 4);
        /* Ethernet pads frames to 60 bytes: a short packet may be followed by padding, nothing else may */
        if (ip_end > len || (ip_end < len && len > 60)) return mrc_frame__drop(f, MRC_FRAME_DROP_IP_LEN);
        if (nh == MRC_FRAME__NH_IPV6 || nh == MRC_FRAME__NH_ROUTING) { /* SRv6: skip the outer header (+ SRH) */
            size_t s = o + MRC_FRAME_IPV6_LEN;
            rx->srv6 = 1;
            if (nh == MRC_FRAME__NH_ROUTING) {
                size_t sl;
                if (ip_end < s + 8) return mrc_frame__drop(f, MRC_FRAME_DROP_SHORT);
                sl = 8u + (size_t)p[s + 1] * 8u;
                /* routing type 4 (SRH), next header IPv6, segment list = (last entry + 1) x 16 bytes */
                if (p[s + 2] != 4 || p[s] != MRC_FRAME__NH_IPV6 || (size_t)p[s + 1] != 2u * ((size_t)p[s + 4] + 1u))
                    return mrc_frame__drop(f, MRC_FRAME_DROP_SRV6);
                if (ip_end < s + sl) return mrc_frame__drop(f, MRC_FRAME_DROP_SHORT);
                s += sl;
            }
            if (ip_end < s + MRC_FRAME_IPV6_LEN) return mrc_frame__drop(f, MRC_FRAME_DROP_SHORT);
            if ((p[s] >> 4) != 6u) return mrc_frame__drop(f, MRC_FRAME_DROP_SRV6);
            o = s;
            if (o + MRC_FRAME_IPV6_LEN + mrc_frame__get16(p + o + 4) != ip_end)
                return mrc_frame__drop(f, MRC_FRAME_DROP_IP_LEN);
            nh = p[o + 6];
        }
        if (nh == MRC_FRAME__NH_FRAGMENT) return mrc_frame__drop(f, MRC_FRAME_DROP_IP_FRAGMENT);
        if (nh == 0 || nh == 60 || nh == MRC_FRAME__NH_ROUTING || nh == 51 || nh == 50 || nh == 135 ||
            nh == 139 || nh == 140 || nh == MRC_FRAME__NH_IPV6)
            return mrc_frame__drop(f, MRC_FRAME_DROP_IP_OPTIONS);
        if (nh != MRC_FRAME__NH_UDP) return mrc_frame__drop(f, MRC_FRAME_DROP_NOT_UDP);
        rx->ipv6 = 1;
        rx->dscp = (uint8_t)(((p[o] & 0x0Fu) << 2) | (p[o + 1] >> 6));
        rx->ecn = (uint8_t)((p[o + 1] >> 4) & 3u);
        rx->flow_label = ((uint32_t)(p[o + 1] & 0x0Fu) << 16) | mrc_frame__get16(p + o + 2);
        memcpy(rx->src_ip, p + o + 8, 16);
        memcpy(rx->dst_ip, p + o + 24, 16);
        l3 = o;
        o += MRC_FRAME_IPV6_LEN;
    } else {
        uint32_t tot, fo;
        if ((p[o] & 15u) != 5u) return mrc_frame__drop(f, (p[o] & 15u) < 5u ? MRC_FRAME_DROP_IP_LEN : MRC_FRAME_DROP_IP_OPTIONS);
        tot = mrc_frame__get16(p + o + 2);
        ip_end = o + tot;
        if (tot < MRC_FRAME_IPV4_LEN || ip_end > len || (ip_end < len && len > 60))
            return mrc_frame__drop(f, MRC_FRAME_DROP_IP_LEN);
        fo = mrc_frame__get16(p + o + 6);
        if (fo & 0x3FFFu) return mrc_frame__drop(f, MRC_FRAME_DROP_IP_FRAGMENT); /* MF or an offset */
        if (f->cfg.check_ip_csum && mrc_frame__ip4_csum(p + o) != 0) return mrc_frame__drop(f, MRC_FRAME_DROP_IP_CSUM);
        if (p[o + 9] != MRC_FRAME__NH_UDP) return mrc_frame__drop(f, MRC_FRAME_DROP_NOT_UDP);
        rx->dscp = (uint8_t)(p[o + 1] >> 2);
        rx->ecn = (uint8_t)(p[o + 1] & 3u);
        memcpy(rx->src_ip, p + o + 12, 4);
        memcpy(rx->dst_ip, p + o + 16, 4);
        l3 = o;
        o += MRC_FRAME_IPV4_LEN;
    }
    if (f->cfg.check_local && local && memcmp(rx->dst_ip, local->ip, v6 ? 16u : 4u) != 0)
        return mrc_frame__drop(f, MRC_FRAME_DROP_NOT_LOCAL);
    if (ip_end < o + MRC_FRAME_UDP_LEN) return mrc_frame__drop(f, MRC_FRAME_DROP_SHORT);
    if (mrc_frame__get16(p + o + 2) != f->cfg.udp_dport) return mrc_frame__drop(f, MRC_FRAME_DROP_UDP_PORT);
    udp_len = mrc_frame__get16(p + o + 4);
    if (o + udp_len != ip_end) return mrc_frame__drop(f, MRC_FRAME_DROP_UDP_LEN);
    if (udp_len < MRC_FRAME_UDP_LEN + MRC_BTH_LEN + MRC_FRAME_ICRC_LEN) return mrc_frame__drop(f, MRC_FRAME_DROP_SHORT);
    rx->udp_sport = (uint16_t)mrc_frame__get16(p + o);
    end = ip_end - MRC_FRAME_ICRC_LEN;
    rx->trimmed = (uint8_t)(rx->dscp == f->cfg.trimmed_dscp[0] || rx->dscp == f->cfg.trimmed_dscp[1]);
    rx->mrc_off = (uint32_t)(o + MRC_FRAME_UDP_LEN);
    rx->mrc_len = (uint32_t)(end - rx->mrc_off);
    if (mrc_frame_icrc(f, p + l3, end - l3, (const uint8_t *)0, 0, 0) != mrc_icrc_get(p + end)) {
        if (f->cfg.check_icrc && !rx->trimmed) return mrc_frame__drop(f, MRC_FRAME_DROP_ICRC);
        rx->icrc_bad = 1;
        if (rx->trimmed) f->st.icrc_trimmed++;
    }
    if (!rx->ipv6 || !(rx->flow_label & 0xFFFFu))
        rx->ev = rx->udp_sport;
    else if (f->cfg.stev_sport_high)
        rx->ev = (uint32_t)rx->udp_sport << 16 | (rx->flow_label & 0xFFFFu);
    else
        rx->ev = (rx->flow_label & 0xFFFFu) << 16 | rx->udp_sport;
    f->st.rx_ok++;
    if (rx->ecn == 3u) f->st.rx_ce++;
    return MRC_FRAME_OK;
}

MRC_FRAME_API void mrc_frame_rxinfo(const mrc_frame_rx *rx, unsigned port, uint32_t peer, mrc_rxinfo *ri) {
    if (!rx || !ri) return;
    memset(ri, 0, sizeof *ri);
    ri->port = (uint8_t)port;
    ri->dscp = rx->dscp;
    ri->ecn = rx->ecn;
    ri->ev = rx->ev;
    ri->peer = peer;
    ri->flags = (uint8_t)(rx->trimmed ? (unsigned)MRC_RX_TRIMMED : rx->icrc_bad ? (unsigned)MRC_RX_ICRC_BAD : 0u);
}

MRC_FRAME_API const char *mrc_frame_drop_name(int reason) {
    static const char *const n[MRC_FRAME_DROP_NDROP] = {"ok",          "short",        "ethertype", "not_local",
                                                   "ip_version",  "ip_options",   "ip_fragment", "ip_csum",
                                                   "ip_len",      "not_udp",      "udp_port",  "udp_len",
                                                   "srv6",        "icrc"};
    return reason >= 0 && reason < (int)MRC_FRAME_DROP_NDROP ? n[reason] : "?";
}

MRC_FRAME_API void mrc_frame_pcap_file_hdr(uint8_t out[24], uint32_t snaplen) {
    mrc_frame__le32(out, 0xA1B23C4Du); /* nanosecond timestamps */
    out[4] = 2;
    out[5] = 0;
    out[6] = 4;
    out[7] = 0;
    mrc_frame__le32(out + 8, 0);
    mrc_frame__le32(out + 12, 0);
    mrc_frame__le32(out + 16, snaplen);
    mrc_frame__le32(out + 20, 1); /* LINKTYPE_ETHERNET */
}

MRC_FRAME_API void mrc_frame_pcap_rec_hdr(uint8_t out[16], uint64_t t_ns, uint32_t caplen, uint32_t len) {
    uint64_t s = t_ns / 1000000000u;
    mrc_frame__le32(out, (uint32_t)s);
    mrc_frame__le32(out + 4, (uint32_t)(t_ns - s * 1000000000u));
    mrc_frame__le32(out + 8, caplen);
    mrc_frame__le32(out + 12, len);
}

#ifdef __cplusplus
}
#endif
#endif /* MRC_FRAME_IMPLEMENTATION */
