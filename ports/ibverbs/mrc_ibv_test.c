/* mrc_ibv_test.c - tests of the ibverbs port adapter (ports/ibverbs); make ibv-test.
 *
 * Without a device: the device-independent pieces of mrc_ibv.c (carrier choice, spec parsing, MTU checks, the
 * flow-steering rule's layout, the registered-region table, the send gather lists checked byte for byte against the
 * shared codec, the receive ring, the UD mapping), bad input on both carriers (malformed frames, frames for another
 * endpoint, wrong ICRC, foreign senders: dropped and counted), whole transfers between two cores whose every packet
 * crosses the adapter's transmit path, an in-memory "NIC" (gather list -> bytes; for UD the GRH it would write) and
 * the adapter's receive ring and receive path, and mrc_ibv_open's error paths. With a device (ibv_get_device_list
 * finds one; MRC_IBV_TEST_DEV picks it, default the first): a UD loopback transfer through two adapters on it.
 * Without one the device test prints a "skip -" line and is counted neither passed nor failed.
 *
 * Output: "ok - ..." / "FAIL - ..." / "skip - ..." lines; the last line is "N passed, N failed"; exit 1 on a failure.
 */
#define _GNU_SOURCE
#define MRC_IMPLEMENTATION
#define MRC_FRAME_STATIC
#include "mrc_ibv.h"
#define MRC_FRAME_IMPLEMENTATION
#include "../common/mrc_frame.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static unsigned n_pass, n_fail;

static void check(int ok, const char *name, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void check(int ok, const char *name, const char *fmt, ...) {
    if (ok) {
        n_pass++;
        printf("ok - %s\n", name);
        return;
    }
    n_fail++;
    printf("FAIL - %s", name);
    if (fmt && *fmt) {
        va_list ap;
        printf(": ");
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
    }
    printf("\n");
}

static uint64_t rng = 0x1234567u;
static uint32_t rnd(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

/* ---- carrier choice, spec, MTU ---------------------------------------------------------------------------------- */
static void test_carrier(void) {
    static const struct { const char *name, *drv; int force, want; } c[] = {
        {"mlx5_0", "", MRC_IBV_AUTO, MRC_IBV_RAW},        {"mlx4_1", NULL, MRC_IBV_AUTO, MRC_IBV_RAW},
        {"mana_0", "", MRC_IBV_AUTO, MRC_IBV_RAW},        {"bnxt_re0", "", MRC_IBV_AUTO, MRC_IBV_RAW},
        {"rxe0", "", MRC_IBV_AUTO, MRC_IBV_UD},           {"siw0", "", MRC_IBV_AUTO, MRC_IBV_UD},
        {"irdma0", "irdma", MRC_IBV_AUTO, MRC_IBV_UD},    {"efa_0", "", MRC_IBV_AUTO, MRC_IBV_UD},
        {"rocep1s0f0", "mlx5_core", MRC_IBV_AUTO, MRC_IBV_RAW}, /* renamed by udev: the driver decides */
        {"rocep2s0", "bnxt_en", MRC_IBV_AUTO, MRC_IBV_RAW},     {"mana_0", "mana", MRC_IBV_AUTO, MRC_IBV_RAW},
        {"mlx5_rxe", "rdma_rxe", MRC_IBV_AUTO, MRC_IBV_UD},     /* an rxe device named like mlx5 */
        {"mlx5_0", "mlx5_core", MRC_IBV_UD, MRC_IBV_UD},        {"rxe0", "", MRC_IBV_RAW, MRC_IBV_RAW},
        {NULL, NULL, MRC_IBV_AUTO, MRC_IBV_UD}};
    unsigned i, bad = 0;
    char why[256] = "";
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        int got = mrc_ibv_carrier_for(c[i].name, c[i].drv, c[i].force);
        if (got != c[i].want && !bad++)
            snprintf(why, sizeof why, "%s/%s force %s: got %s, want %s", c[i].name ? c[i].name : "(null)",
                     c[i].drv ? c[i].drv : "(null)", mrc_ibv_carrier_name(c[i].force), mrc_ibv_carrier_name(got),
                     mrc_ibv_carrier_name(c[i].want));
    }
    check(!bad, "carrier choice by driver and device name (15 cases, forced either way)", "%s", why);
}

static void test_spec(void) {
    mrc_ibv_spec s;
    char err[256];
    int rc = mrc_ibv_spec_parse(&s, "mlx5_0", err, sizeof err);
    check(rc == 0 && s.ndev == 1 && !strcmp(s.dev[0], "mlx5_0") && s.dev_port[0] == 1 && s.carrier == MRC_IBV_AUTO &&
              s.gid_index == -1 && s.dport == 4791 && s.vlan == -1 && s.txq == 256 && s.rxq == 512 &&
              s.inline_size == 128,
          "spec: one device, defaults", "rc %d ndev %u", rc, s.ndev);
    rc = mrc_ibv_spec_parse(&s, "mlx5_0:2,mlx5_1,carrier=ud,gid=3,dport=5000,vlan=100,txq=64,rxq=1024,inline=0", err,
                            sizeof err);
    check(rc == 0 && s.ndev == 2 && s.dev_port[0] == 2 && !strcmp(s.dev[1], "mlx5_1") && s.dev_port[1] == 1 &&
              s.carrier == MRC_IBV_UD && s.gid_index == 3 && s.dport == 5000 && s.vlan == 100 && s.txq == 64 &&
              s.rxq == 1024 && s.inline_size == 0,
          "spec: two devices, every option", "rc %d (%s)", rc, rc ? err : "");
    {
        static const char *const badv[] = {"",           "carrier=ud",  "mlx5_0,carrier=rdma", "mlx5_0:0",
                                           "mlx5_0,txq=100", "mlx5_0,rxq=8", "mlx5_0,dport=70000", "mlx5_0,bogus=1",
                                           "mlx5_0,gid=-1", "a,b,c,d,e,f,g,h,i"};
        unsigned i;
        int ok = 1;
        for (i = 0; i < sizeof badv / sizeof badv[0]; i++) {
            err[0] = 0;
            if (mrc_ibv_spec_parse(&s, badv[i], err, sizeof err) == 0 || !err[0] || strchr(err, '\n')) {
                ok = 0;
                printf("# spec '%s' accepted or no reason\n", badv[i]);
            }
        }
        check(ok, "spec: 10 bad specs refused, each with a one-line reason", "%s", "");
    }
}

static void test_mtu(void) {
    check(mrc_ibv_mtu_fits(MRC_IBV_RAW, 0, 4096, 9000) && mrc_ibv_mtu_fits(MRC_IBV_RAW, 1, 4096, 4250) &&
              !mrc_ibv_mtu_fits(MRC_IBV_RAW, 0, 4096, 1500) && mrc_ibv_mtu_fits(MRC_IBV_RAW, 0, 1024, 1500) &&
              !mrc_ibv_mtu_fits(MRC_IBV_RAW, 1, 4096, 4192),
          "MTU: raw frames against the netdev MTU (4096 needs jumbo frames, 1024 fits 1500)", "%s", "");
    check(!mrc_ibv_mtu_fits(MRC_IBV_UD, 0, 4096, 4096) && mrc_ibv_mtu_fits(MRC_IBV_UD, 0, 2048, 4096) &&
              !mrc_ibv_mtu_fits(MRC_IBV_UD, 0, 1024, 1024) && mrc_ibv_mtu_fits(MRC_IBV_UD, 0, 512, 1024) &&
              !mrc_ibv_mtu_fits(MRC_IBV_AUTO, 0, 256, 9000),
          "MTU: UD payload (MRC headers + MTU + pad) within one IB MTU (4096 never fits, 2048 does)", "%s", "");
}

/* ---- the flow-steering rule ----------------------------------------------------------------------------------- */
static void test_flow_rule(void) {
    mrc_ibv_flow_rule r;
    mrc_frame_addr a;
    struct ibv_flow_attr at;
    struct ibv_flow_spec_eth eth;
    struct ibv_flow_spec_ipv4 v4;
    struct ibv_flow_spec_ipv6 v6;
    struct ibv_flow_spec_tcp_udp udp;
    static const uint8_t ff6[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, z6[6] = {0, 0, 0, 0, 0, 0};
    uint8_t ff16[16], z16[16];
    size_t o;
    int n;
    memset(ff16, 0xFF, 16);
    memset(z16, 0, 16);
    memset(&a, 0, sizeof a);
    memcpy(a.mac, "\x02\x11\x22\x33\x44\x55", 6);
    memcpy(a.ip, "\x0a\x01\x02\x03", 4);
    n = mrc_ibv_flow_rule_build(&r, 1, &a, 0, 4791, 0, 0);
    memcpy(&at, r.b, sizeof at);
    o = sizeof at;
    memcpy(&eth, r.b + o, sizeof eth);
    o += sizeof eth;
    memcpy(&v4, r.b + o, sizeof v4);
    o += sizeof v4;
    memcpy(&udp, r.b + o, sizeof udp);
    o += sizeof udp;
    check(n == (int)o && at.size == o && at.num_of_specs == 3 && at.type == IBV_FLOW_ATTR_NORMAL && at.port == 1 &&
              at.priority == 0 && at.flags == 0 && at.comp_mask == 0 && o <= MRC_IBV_FLOW_RULE_MAX,
          "flow rule IPv4: attr size = the chain's (attr + eth + ipv4 + udp), 3 specs, port 1, normal", "n %d size %u",
          n, (unsigned)at.size);
    check(eth.type == IBV_FLOW_SPEC_ETH && eth.size == sizeof eth && !memcmp(eth.val.dst_mac, a.mac, 6) &&
              !memcmp(eth.mask.dst_mac, ff6, 6) && !memcmp(eth.mask.src_mac, z6, 6) &&
              eth.val.ether_type == htons(0x0800) && eth.mask.ether_type == 0xFFFF && eth.mask.vlan_tag == 0,
          "flow rule IPv4: eth spec = our MAC (mask ff), ethertype 0x0800 (mask ffff), source wildcard, no VLAN", "%s", "");
    check(v4.type == IBV_FLOW_SPEC_IPV4 && v4.size == sizeof v4 && !memcmp(&v4.val.dst_ip, a.ip, 4) &&
              v4.mask.dst_ip == 0xFFFFFFFFu && v4.mask.src_ip == 0 && udp.type == IBV_FLOW_SPEC_UDP &&
              udp.size == sizeof udp && udp.val.dst_port == htons(4791) && udp.mask.dst_port == 0xFFFF &&
              udp.mask.src_port == 0,
          "flow rule IPv4: ipv4 spec = our IP (mask /32, source wildcard), udp spec = dport 4791 (mask ffff)", "%s", "");
    memcpy(a.ip, "\xfd\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x07", 16);
    n = mrc_ibv_flow_rule_build(&r, 2, &a, 1, 4795, 1, 0x6123);
    memcpy(&at, r.b, sizeof at);
    o = sizeof at;
    memcpy(&eth, r.b + o, sizeof eth);
    o += sizeof eth;
    memcpy(&v6, r.b + o, sizeof v6);
    o += sizeof v6;
    memcpy(&udp, r.b + o, sizeof udp);
    o += sizeof udp;
    check(n == (int)o && at.size == o && at.port == 2 && eth.val.ether_type == htons(0x86DD) &&
              eth.val.vlan_tag == htons(0x0123) && eth.mask.vlan_tag == htons(0x0FFF) && v6.type == IBV_FLOW_SPEC_IPV6 &&
              v6.size == sizeof v6 && !memcmp(v6.val.dst_ip, a.ip, 16) && !memcmp(v6.mask.dst_ip, ff16, 16) &&
              !memcmp(v6.mask.src_ip, z16, 16) && v6.mask.flow_label == 0 && v6.mask.next_hdr == 0 &&
              udp.val.dst_port == htons(4795),
          "flow rule IPv6 + VLAN: ethertype 0x86DD, VLAN ID 0x123 (mask 0fff), ipv6 spec = our address, dport 4795",
          "n %d", n);
    check(mrc_ibv_flow_rule_build(&r, 0, &a, 0, 4791, 0, 0) < 0 && mrc_ibv_flow_rule_build(&r, 1, NULL, 0, 4791, 0, 0) < 0 &&
              mrc_ibv_flow_rule_build(&r, 1, &a, 0, 0, 0, 0) < 0 && mrc_ibv_flow_rule_build(NULL, 1, &a, 0, 4791, 0, 0) < 0,
          "flow rule: port 0, no address, dport 0, no buffer refused", "%s", "");
}

/* ---- registered regions and the gather list ------------------------------------------------------------------ */
static uint8_t big[1u << 16];

static void test_mrtab(void) {
    mrc_ibv_mrtab t;
    uint32_t k = 0;
    unsigned i;
    int ok;
    memset(&t, 0, sizeof t);
    ok = mrc_ibv_mrtab_add(&t, big, 4096, 0x11, NULL) == 0 && mrc_ibv_mrtab_add(&t, big + 8192, 8192, 0x22, NULL) == 0;
    ok = ok && mrc_ibv_mrtab_find(&t, big, 4096, &k) && k == 0x11;
    ok = ok && mrc_ibv_mrtab_find(&t, big + 4095, 1, &k) && k == 0x11;
    ok = ok && !mrc_ibv_mrtab_find(&t, big + 4095, 2, &k);    /* crosses the region's end */
    ok = ok && !mrc_ibv_mrtab_find(&t, big + 4096, 1, &k);    /* between the regions */
    ok = ok && !mrc_ibv_mrtab_find(&t, big + 4000, 5000, &k); /* spans the gap */
    ok = ok && mrc_ibv_mrtab_find(&t, big + 8192 + 100, 8092, &k) && k == 0x22;
    ok = ok && !mrc_ibv_mrtab_find(&t, big + 8192 + 100, 8093, &k);
    ok = ok && mrc_ibv_mrtab_add(&t, NULL, 10, 1, NULL) < 0 && mrc_ibv_mrtab_add(&t, big, 0, 1, NULL) < 0;
    check(ok, "region table: inside, last byte, crossing the end, between and across regions", "%s", "");
    for (i = t.n; i < MRC_IBV_MAX_MRS; i++) (void)mrc_ibv_mrtab_add(&t, big + 20000 + i, 1, i, NULL);
    ok = t.n == MRC_IBV_MAX_MRS && mrc_ibv_mrtab_add(&t, big + 30000, 1, 99, NULL) < 0;
    ok = ok && mrc_ibv_mrtab_del(&t, big) == NULL && t.n == MRC_IBV_MAX_MRS - 1u && !mrc_ibv_mrtab_find(&t, big, 1, &k);
    ok = ok && mrc_ibv_mrtab_find(&t, big + 9000, 4, &k) && k == 0x22;
    check(ok, "region table: full at MRC_IBV_MAX_MRS, delete keeps the others", "n %u", t.n);
}

static void test_tx_plan(void) {
    static uint8_t slot[MRC_IBV_SLOT], wire[MRC_IBV_SLOT], want[MRC_IBV_SLOT];
    mrc_ibv_mrtab t;
    mrc_ibv_txplan p;
    static const uint8_t icrc[4] = {0xA1, 0xB2, 0xC3, 0xD4};
    size_t i, n;
    int rc, ok;
    memset(&t, 0, sizeof t);
    for (i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 13u + 7u);
    (void)mrc_ibv_mrtab_add(&t, big, 32768, 0x77, NULL);
    for (i = 0; i < 100; i++) slot[i] = (uint8_t)(0xF0 ^ i);
    /* what the wire must carry: 100 header bytes, 1001 payload bytes, 3 pad zeros, the ICRC */
    memcpy(want, slot, 100);
    memcpy(want + 100, big + 5, 1001);
    memset(want + 1101, 0, 3);
    memcpy(want + 1104, icrc, 4);
    rc = mrc_ibv_tx_plan(&t, slot, sizeof slot, 0x55, 100, big + 5, 1001, 3, icrc, 128, &p);
    n = mrc_ibv_tx_gather(&p, wire, sizeof wire);
    check(rc == 0 && p.nsge == 3 && !p.copied && p.send_flags == 0 && p.len == 1108 &&
              p.sge[0].addr == (uint64_t)(uintptr_t)slot && p.sge[0].length == 100 && p.sge[0].lkey == 0x55 &&
              p.sge[1].addr == (uint64_t)(uintptr_t)(big + 5) && p.sge[1].length == 1001 && p.sge[1].lkey == 0x77 &&
              p.sge[2].addr == (uint64_t)(uintptr_t)(slot + 100) && p.sge[2].length == 7 && p.sge[2].lkey == 0x55 &&
              n == 1108 && !memcmp(wire, want, n),
          "gather list, zero copy: headers | payload (its region's lkey) | pad + ICRC from the slot tail; bytes exact",
          "rc %d nsge %u len %u", rc, p.nsge, p.len);
    rc = mrc_ibv_tx_plan(&t, slot, sizeof slot, 0x55, 100, big + 32768 - 1000, 1001, 3, icrc, 128, &p);
    memcpy(want + 100, big + 32768 - 1000, 1001);
    n = mrc_ibv_tx_gather(&p, wire, sizeof wire);
    check(rc == 0 && p.nsge == 1 && p.copied && p.sge[0].addr == (uint64_t)(uintptr_t)slot && p.sge[0].length == 1108 &&
              p.sge[0].lkey == 0x55 && n == 1108 && !memcmp(wire, want, n),
          "gather list, payload not in a region (crosses its end): copied, one SGE over the slot; bytes exact",
          "rc %d nsge %u copied %u", rc, p.nsge, p.copied);
    rc = mrc_ibv_tx_plan(&t, slot, sizeof slot, 0x55, 60, big + 40, 20, 0, icrc, 128, &p);
    memcpy(want, slot, 60);
    memcpy(want + 60, big + 40, 20);
    memcpy(want + 80, icrc, 4);
    n = mrc_ibv_tx_gather(&p, wire, sizeof wire);
    check(rc == 0 && p.send_flags == IBV_SEND_INLINE && p.nsge == 3 && p.len == 84 && n == 84 && !memcmp(wire, want, n),
          "gather list, 84 bytes <= inline 128: IBV_SEND_INLINE, same bytes", "rc %d flags %u", rc, p.send_flags);
    ok = mrc_ibv_tx_plan(&t, slot, sizeof slot, 0x55, 60, big + 40, 20, 0, icrc, 84, &p) == 0 &&
         p.send_flags == IBV_SEND_INLINE;
    ok = ok && mrc_ibv_tx_plan(&t, slot, sizeof slot, 0x55, 60, big + 40, 20, 0, icrc, 83, &p) == 0 && !p.send_flags &&
         p.nsge == 3 && p.sge[1].lkey == 0x77;
    check(ok, "gather list: inline exactly at the QP's inline size, not one byte over", "%s", "");
    rc = mrc_ibv_tx_plan(&t, slot, sizeof slot, 0x55, 90, NULL, 0, 0, icrc, 0, &p);
    memcpy(want, slot, 90);
    memcpy(want + 90, icrc, 4);
    n = mrc_ibv_tx_gather(&p, wire, sizeof wire);
    check(rc == 0 && p.nsge == 1 && p.sge[0].length == 94 && !p.send_flags && n == 94 && !memcmp(wire, want, n),
          "gather list, no payload (an acknowledgement), no inline: one SGE, headers + ICRC contiguous", "rc %d", rc);
    rc = mrc_ibv_tx_plan(&t, slot, sizeof slot, 0x55, 40, big + 100, 1022, 2, NULL, 0, &p);
    memcpy(want, slot, 40);
    memcpy(want + 40, big + 100, 1022);
    memset(want + 1062, 0, 2);
    n = mrc_ibv_tx_gather(&p, wire, sizeof wire);
    check(rc == 0 && p.nsge == 3 && p.sge[2].length == 2 && p.len == 1064 && n == 1064 && !memcmp(wire, want, n),
          "gather list, UD (no ICRC): MRC headers | payload | 2 pad bytes", "rc %d", rc);
    ok = mrc_ibv_tx_plan(&t, slot, 200, 0x55, 100, big + 40000, 1001, 3, icrc, 0, &p) < 0; /* copy does not fit */
    ok = ok && mrc_ibv_tx_plan(&t, slot, sizeof slot, 0x55, 100, big, 10, 4, icrc, 0, &p) < 0; /* pad > 3 */
    ok = ok && mrc_ibv_tx_plan(&t, slot, sizeof slot, 0x55, 0, big, 10, 0, icrc, 0, &p) < 0;   /* no headers */
    ok = ok && mrc_ibv_tx_plan(&t, slot, sizeof slot, 0x55, 100, NULL, 10, 0, icrc, 0, &p) < 0; /* no payload */
    ok = ok && mrc_ibv_tx_plan(&t, NULL, sizeof slot, 0x55, 100, big, 10, 0, icrc, 0, &p) < 0;
    check(ok, "gather list: a copy that does not fit the slot, pad 4, no headers, NULL payload refused", "%s", "");
}

/* ---- the receive ring ------------------------------------------------------------------------------------------- */
static void test_rxring(void) {
    mrc_ibv_rxring r;
    uint32_t ids[16], more[16];
    const uint8_t *d = NULL;
    size_t len = 0;
    unsigned n, i, seen[8];
    int ok;
    ok = mrc_ibv_rxring_init(&r, 8, 256, 40) == 0 && ((uintptr_t)r.mem & 4095u) == 0;
    n = mrc_ibv_rxring_take(&r, ids, 16);
    ok = ok && n == 8 && r.posted == 8 && r.todo_len == 0;
    for (i = 0; i < 8; i++) ok = ok && ids[i] == i && mrc_ibv_rxring_slot(&r, i) == r.mem + i * 256u;
    check(ok, "rx ring: 8 page-aligned slots, all taken for posting in order", "n %u", n);
    ok = mrc_ibv_rxring_complete(&r, 5, 140, &d, &len) == MRC_IBV_RX_OK && d == r.mem + 5 * 256 + 40 && len == 100;
    ok = ok && mrc_ibv_rxring_complete(&r, 5, 140, &d, &len) == MRC_IBV_RX_BADID; /* completed twice */
    ok = ok && mrc_ibv_rxring_complete(&r, 8, 140, &d, &len) == MRC_IBV_RX_BADID; /* no such slot */
    ok = ok && mrc_ibv_rxring_complete(&r, (uint64_t)1 << 40, 140, &d, &len) == MRC_IBV_RX_BADID;
    ok = ok && mrc_ibv_rxring_complete(&r, 2, 39, &d, &len) == MRC_IBV_RX_BADLEN;  /* shorter than the GRH slot */
    ok = ok && mrc_ibv_rxring_complete(&r, 3, 257, &d, &len) == MRC_IBV_RX_BADLEN; /* longer than the slot */
    ok = ok && mrc_ibv_rxring_complete(&r, 0, 40, &d, &len) == MRC_IBV_RX_OK && len == 0;
    ok = ok && mrc_ibv_rxring_fail(&r, 6) == MRC_IBV_RX_OK && mrc_ibv_rxring_fail(&r, 6) == MRC_IBV_RX_BADID;
    check(ok && r.posted == 3,
          "rx ring: completion gives slot + GRH offset and length; twice, unknown id, bad lengths, flush handled",
          "posted %u", r.posted);
    n = mrc_ibv_rxring_take(&r, more, 16); /* the bad-length and flushed slots are back, the held ones are not */
    ok = n == 3 && more[0] == 2 && more[1] == 3 && more[2] == 6;
    mrc_ibv_rxring_release(&r, 5);
    mrc_ibv_rxring_release(&r, 5); /* twice: ignored */
    mrc_ibv_rxring_release(&r, 0);
    mrc_ibv_rxring_release(&r, 1); /* never completed: ignored */
    n = mrc_ibv_rxring_take(&r, more, 16);
    ok = ok && n == 2 && more[0] == 5 && more[1] == 0;
    mrc_ibv_rxring_unpost(&r, 0); /* a failed post: back to the head */
    n = mrc_ibv_rxring_take(&r, more, 1);
    ok = ok && n == 1 && more[0] == 0 && r.posted == 8;
    /* every slot posted exactly once: churn in random order */
    for (i = 0; i < 2000 && ok; i++) {
        uint32_t id = rnd() % 8u, got;
        if (r.state[id] != 1) continue;
        ok = mrc_ibv_rxring_complete(&r, id, 40u + rnd() % 200u, &d, &len) == MRC_IBV_RX_OK;
        mrc_ibv_rxring_release(&r, id);
        ok = ok && mrc_ibv_rxring_take(&r, &got, 1) == 1 && got == id;
    }
    memset(seen, 0, sizeof seen);
    for (i = 0; i < 8; i++) seen[i] = r.state[i];
    ok = ok && r.posted == 8 && r.todo_len == 0;
    for (i = 0; i < 8; i++) ok = ok && seen[i] == 1;
    check(ok, "rx ring: recycled slots come back in completion order; 2000 random completions keep 8 posted", "%s", "");
    mrc_ibv_rxring_free(&r);
    check(mrc_ibv_rxring_init(&r, 0, 256, 0) < 0 && mrc_ibv_rxring_init(&r, 4, 40, 40) < 0,
          "rx ring: no slots, GRH offset >= slot refused", "%s", "");
}

/* ---- events held for the NIC ------------------------------------------------------------------------------------ */
static void test_evhold(void) {
    mrc_ibv_evhold h;
    mrc_event e, o;
    uint64_t head[2] = {0, 0}, tail[2] = {0, 0}, snap_ok = 1;
    unsigned i, in = 0, out = 0, order_ok = 1;
    int ok;
    ok = mrc_ibv_evhold_init(&h, 4, 2) == 0;
    memset(&e, 0, sizeof e);
    e.type = MRC_EVT_SEND_DONE;
    ok = ok && mrc_ibv_evhold_put(&h, &e, head, tail) == 0; /* nothing in flight: at once */
    head[0] = 5, head[1] = 2, tail[0] = 5, tail[1] = 1;
    e.type = MRC_EVT_RECV_IMM;
    ok = ok && mrc_ibv_evhold_put(&h, &e, head, tail) == 0; /* not a SEND_DONE, nothing held: at once */
    e.type = MRC_EVT_SEND_DONE;
    e.wr_id = 1;
    ok = ok && mrc_ibv_evhold_put(&h, &e, head, tail) == 1;
    e.type = MRC_EVT_EV_STATE;
    e.wr_id = 2;
    ok = ok && mrc_ibv_evhold_put(&h, &e, head, tail) == 1; /* behind the held one */
    head[0] = 9;                                            /* later sends do not delay it */
    ok = ok && mrc_ibv_evhold_get(&h, tail, &o) == 0;
    tail[1] = 2;
    ok = ok && mrc_ibv_evhold_get(&h, tail, &o) == 1 && o.wr_id == 1 && o.type == MRC_EVT_SEND_DONE;
    ok = ok && mrc_ibv_evhold_get(&h, tail, &o) == 1 && o.wr_id == 2 && mrc_ibv_evhold_get(&h, tail, &o) == 0;
    e.type = MRC_EVT_SEND_DONE;
    for (i = 0; i < 4; i++) ok = ok && mrc_ibv_evhold_put(&h, &e, head, tail) == 1;
    ok = ok && mrc_ibv_evhold_full(&h) && mrc_ibv_evhold_put(&h, &e, head, tail) == -1 && h.held == 6;
    check(ok, "held events: SEND_DONE waits for the sends posted before it (every plane), later events queue "
              "behind it, full queue refuses", "%s", "");
    mrc_ibv_evhold_free(&h);
    /* random traffic: nothing lost, order kept, no SEND_DONE before its sends completed */
    (void)mrc_ibv_evhold_init(&h, 64, 2);
    head[0] = head[1] = tail[0] = tail[1] = 0;
    for (i = 0; i < 20000; i++) {
        unsigned p = rnd() % 2u;
        if (rnd() % 3u == 0) head[p] += rnd() % 4u;             /* posts */
        if (rnd() % 2u == 0 && tail[p] < head[p]) tail[p] += 1u + rnd() % (unsigned)(head[p] - tail[p]); /* completions */
        if (rnd() % 2u == 0 && !mrc_ibv_evhold_full(&h)) {
            int r;
            memset(&e, 0, sizeof e);
            e.type = (uint16_t)(rnd() % 2u ? MRC_EVT_SEND_DONE : MRC_EVT_RECV_IMM);
            e.wr_id = in++;
            e.qpn = (uint32_t)(head[0] & 0xFFFFFFu); /* what head[0] was (checked below, with head[1] in imm) */
            e.imm = (uint32_t)head[1];
            r = mrc_ibv_evhold_put(&h, &e, head, tail);
            if (r == 0) order_ok &= e.wr_id == out++;
        }
        while (mrc_ibv_evhold_get(&h, tail, &o)) {
            order_ok &= o.wr_id == out++;
            if (o.type == MRC_EVT_SEND_DONE && (tail[0] < o.qpn || tail[1] < o.imm)) snap_ok = 0;
        }
    }
    tail[0] = head[0];
    tail[1] = head[1];
    while (mrc_ibv_evhold_get(&h, tail, &o)) order_ok &= o.wr_id == out++;
    check(order_ok && snap_ok && in == out && h.len == 0 && h.held > 0,
          "held events, 20000 random steps: none lost, order kept, no SEND_DONE before its sends completed",
          "in %u out %u order %u snap %llu", in, out, order_ok, (unsigned long long)snap_ok);
    mrc_ibv_evhold_free(&h);
}

/* ---- the UD mapping --------------------------------------------------------------------------------------------- */
static void put_grh(uint8_t *g, int ipv6, uint8_t tclass, uint32_t fl, const uint8_t *src, const uint8_t *dst,
                    unsigned plen) {
    memset(g, 0, MRC_IBV_GRH_LEN);
    if (ipv6) { /* what the NIC writes for RoCEv2 over IPv6: the IPv6 header */
        g[0] = (uint8_t)(0x60u | tclass >> 4);
        g[1] = (uint8_t)((tclass & 15u) << 4 | (fl >> 16 & 15u));
        g[2] = (uint8_t)(fl >> 8);
        g[3] = (uint8_t)fl;
        g[4] = (uint8_t)(plen >> 8);
        g[5] = (uint8_t)plen;
        g[6] = 17;
        g[7] = 64;
        memcpy(g + 8, src, 16);
        memcpy(g + 24, dst, 16);
    } else { /* over IPv4: 20 bytes of nothing, then the IPv4 header */
        uint8_t *h = g + 20;
        h[0] = 0x45;
        h[1] = tclass;
        h[2] = (uint8_t)((plen + 20u) >> 8);
        h[3] = (uint8_t)(plen + 20u);
        h[8] = 64;
        h[9] = 17;
        memcpy(h + 12, src, 4);
        memcpy(h + 16, dst, 4);
    }
}

static void test_ud_map(void) {
    uint8_t g[40], s6[16], d6[16];
    mrc_ibv_grh_info i;
    static const uint8_t dl[4] = {10, 12, 14, 48};
    int ok;
    memset(s6, 0x11, 16);
    memset(d6, 0x22, 16);
    ok = mrc_ibv_ud_flow_label(0xC123u) == 0xC123u && mrc_ibv_ud_flow_label(0xFFFFFFFFu) == 0xFFFFFu;
    ok = ok && mrc_ibv_ud_tclass(10, 1) == 42 && mrc_ibv_ud_tclass(48, 0) == 192 && mrc_ibv_ud_tclass(63, 1) == 254;
    ok = ok && mrc_ibv_ev_index(49152 + 2 * 16 + 5, 49152, 3, 16) == 5 && mrc_ibv_ev_index(49152 + 2 * 16 + 5, 49152, 2, 16) < 0 &&
         mrc_ibv_ev_index(49151, 49152, 1, 16) < 0 && mrc_ibv_ev_index(49152 + 16, 49152, 1, 16) < 0 &&
         mrc_ibv_ev_index(49152, 49152, 0, 16) < 0;
    ok = ok && mrc_ibv_dscp_index(dl, 4, 14) == 2 && mrc_ibv_dscp_index(dl, 4, 3) < 0 && mrc_ibv_dscp_index(NULL, 4, 10) < 0;
    check(ok, "UD mapping: EV -> flow label, DSCP -> traffic class (+ECT), EV and DSCP -> address handle index", "%s", "");
    put_grh(g, 1, (uint8_t)(14u << 2 | 3u), 0xABCDEu, s6, d6, 100);
    ok = mrc_ibv_grh_parse(g, 0, &i) == 0 && i.ipv6 && i.flow_label == 0xABCDEu && i.dscp == 14 && i.ecn == 3 &&
         !memcmp(i.src_ip, s6, 16);
    check(ok, "GRH slot, RoCEv2/IPv6: flow label 0xABCDE, DSCP 14, ECN CE, source address", "fl %x dscp %u ecn %u",
          i.flow_label, i.dscp, i.ecn);
    put_grh(g, 0, (uint8_t)(48u << 2 | 1u), 0, s6, d6, 100);
    ok = mrc_ibv_grh_parse(g, 1, &i) == 0 && !i.ipv6 && i.flow_label == 0 && i.dscp == 48 && i.ecn == 1 &&
         !memcmp(i.src_ip, s6, 4);
    check(ok, "GRH slot, RoCEv2/IPv4: the IPv4 header in bytes 20..40: DSCP 48, ECN ECT(1), source address", "%s", "");
    ok = mrc_ibv_grh_parse(g, 0, &i) < 0; /* an IPv4 slot read as IPv6 */
    put_grh(g, 1, 0, 1, s6, d6, 100);
    ok = ok && mrc_ibv_grh_parse(g, 1, &i) < 0; /* an IPv6 slot read as IPv4 */
    g[20] = 0x46;
    ok = ok && mrc_ibv_grh_parse(g, 1, &i) < 0; /* IPv4 with options */
    check(ok, "GRH slot of the wrong family or with IPv4 options refused", "%s", "");
}

/* ---- transfers through the adapter's paths over an in-memory NIC ---------------------------------------------- */
#define LP 2u                 /* planes */
#define LK 4u                 /* EVs per plane */
#define EVB 49152u
#define TXN 8u
#define RXN 64u
#define SRC_LEN (384u << 10)
#define WIRE_MAX 1024u
#define INLINE_MAX 128u

typedef struct side {
    mrc_endpoint ep;
    mrc_conn qp;
    mrc_ibv_path path[LP];
    mrc_ibv_rxring rx[LP];
    uint32_t posted[LP][RXN]; /* the "NIC's" receive queue: slot ids in posting order */
    unsigned ph[LP], pn[LP];
    mrc_ibv_mrtab mrs;
    uint8_t txslot[LP][TXN][MRC_IBV_SLOT];
    unsigned txi[LP];
    uint32_t qpn[LP];         /* the UD QP number each plane would have */
} side;

typedef struct wpkt {
    mrc_time at;
    int to;
    unsigned plane;
    uint32_t len;
    mrc_ibv_rxmeta m;
    uint8_t b[MRC_IBV_SLOT];
} wpkt;

static side S[2];
static wpkt wire[WIRE_MAX];
static unsigned in_flight;
static uint8_t src[SRC_LEN], dst[SRC_LEN];

typedef struct loop_stats {
    unsigned sent, lost, overrun, unmapped, tx_fail, plan_bad;
    unsigned inj[6];          /* injected bad packets by kind */
} loop_stats;

static void addr_of(int s, unsigned p, int ipv6, mrc_frame_addr *a) {
    memset(a, 0, sizeof *a);
    a->mac[0] = 0x02;
    a->mac[4] = (uint8_t)(0xA + s);
    a->mac[5] = (uint8_t)p;
    if (ipv6) {
        a->ip[0] = 0xFD;
        a->ip[13] = (uint8_t)p;
        a->ip[15] = (uint8_t)(s + 1);
    } else {
        a->ip[0] = 10;
        a->ip[2] = (uint8_t)p;
        a->ip[3] = (uint8_t)(s + 1);
    }
}

static void ip4_csum_fix(uint8_t *h) {
    uint32_t sum = 0, i;
    h[10] = h[11] = 0;
    for (i = 0; i < 20; i += 2) sum += (uint32_t)h[i] << 8 | h[i + 1];
    while (sum >> 16) sum = (sum & 0xFFFFu) + (sum >> 16);
    sum = ~sum & 0xFFFFu;
    h[10] = (uint8_t)(sum >> 8);
    h[11] = (uint8_t)sum;
}

/* A raw frame changed on purpose but still valid: IPv4 header checksum and ICRC recomputed (no VLAN, no SRv6). */
static void reseal(uint8_t *f, size_t len, int ipv6) {
    static mrc_frame fr;
    static int init;
    if (!init) init = mrc_frame_init(&fr, NULL) == MRC_OK;
    if (!ipv6) ip4_csum_fix(f + 14);
    mrc_icrc_put(f + len - 4, mrc_frame_icrc(&fr, f + 14, len - 14 - 4, NULL, 0, 0));
}

static void rx_refill(side *x, unsigned p) {
    uint32_t ids[RXN];
    unsigned n = mrc_ibv_rxring_take(&x->rx[p], ids, RXN), i;
    for (i = 0; i < n; i++) x->posted[p][(x->ph[p] + x->pn[p]++) % RXN] = ids[i];
}

static wpkt *wire_add(loop_stats *ls) {
    if (in_flight == WIRE_MAX) {
        ls->lost++;
        return NULL;
    }
    return &wire[in_flight++];
}

/* A's bad packets, next to a good one: kind 0 ICRC flipped, 1 another MAC, 2 another IP, 3 truncated, 4 garbage,
   5 a valid frame from another source address (raw); kind 0 GRH of the wrong family, 1 another QPN, 2 another source address, 3 an MRC packet of 6 bytes (UD) */
static void inject(const wpkt *good, int carrier, int ipv6, loop_stats *ls, unsigned kind) {
    wpkt *w = wire_add(ls);
    if (!w) return;
    *w = *good;
    if (carrier == MRC_IBV_RAW) {
        size_t l3 = 14u + (ipv6 ? 24u : 16u); /* offset of the destination IP */
        switch (kind) {
        case 0: w->b[w->len - 10] ^= 0x40; break; /* a payload (or header) byte: the ICRC no longer matches */
        case 1: w->b[5] ^= 0x01; break;
        case 2: /* another destination IP, with a valid IPv4 header checksum */
            w->b[l3 + (ipv6 ? 15u : 3u)] ^= 0x80;
            if (!ipv6) ip4_csum_fix(w->b + 14);
            break;
        case 3: w->len = 30; break;
        case 5: w->b[14 + (ipv6 ? 8u + 15u : 12u + 3u)] ^= 0x02; reseal(w->b, w->len, ipv6); break;
        default: {
            uint32_t i;
            for (i = 14; i < w->len; i++) w->b[i] = (uint8_t)rnd();
        } break;
        }
    } else {
        switch (kind) {
        case 0: w->b[0] = (uint8_t)(ipv6 ? 0x45 : 0x60); w->b[20] = (uint8_t)(ipv6 ? 0 : 0x60); break;
        case 1: w->m.src_qp ^= 0x10; break;
        case 2: w->b[ipv6 ? 8 + 15 : 20 + 12 + 3] ^= 0x01; break;
        default: w->len = MRC_IBV_GRH_LEN + 6u; break;
        }
    }
    ls->inj[kind]++;
}

static void transmit(int s, mrc_time now, int carrier, int ipv6, unsigned loss_pct, loop_stats *ls) {
    side *x = &S[s];
    uint8_t hdr[MRC_HDR_MAX];
    static const uint8_t dl[4] = {10, 12, 14, 48};
    mrc_txinfo ti;
    while (mrc_endpoint_poll_tx(&x->ep, hdr, sizeof hdr, 0, &ti, now) > 0) {
        unsigned p = ti.port - 1u, off = carrier == MRC_IBV_UD ? MRC_IBV_GRH_LEN : 0u;
        uint8_t *slot;
        mrc_ibv_txplan plan;
        wpkt *w;
        size_t n;
        if (p >= LP) {
            ls->tx_fail++;
            continue;
        }
        slot = x->txslot[p][x->txi[p]++ % TXN];
        if (mrc_ibv_path_tx(&x->path[p], &x->ep, &ti, hdr, &x->mrs, slot, MRC_IBV_SLOT, 0x1000u + p, INLINE_MAX,
                            &plan) != MRC_OK) {
            ls->tx_fail++;
            continue;
        }
        ls->sent++;
        if (rnd() % 100u < loss_pct) {
            ls->lost++;
            continue;
        }
        w = wire_add(ls);
        if (!w) continue;
        w->at = now + 5000u + rnd() % 3000u; /* 5-8 us: reorders across EVs and planes */
        w->to = 1 - s;
        w->plane = p;
        n = mrc_ibv_tx_gather(&plan, w->b + off, sizeof w->b - off); /* what the NIC reads */
        if (n != plan.len || n == 0) ls->plan_bad++;
        w->len = (uint32_t)(n + off);
        memset(&w->m, 0, sizeof w->m);
        if (carrier == MRC_IBV_UD) { /* the NIC's side of UD: the AH's traffic class and flow label, the immediate */
            int k = mrc_ibv_ev_index(ti.ev, EVB, ti.port, LK), d = mrc_ibv_dscp_index(dl, 4, ti.dscp);
            mrc_frame_addr me, peer;
            if (k < 0 || d < 0) ls->unmapped++;
            addr_of((int)s, p + 1u, ipv6, &me);
            addr_of(1 - s, p + 1u, ipv6, &peer);
            put_grh(w->b, ipv6, mrc_ibv_ud_tclass(dl[d < 0 ? 0 : d], ti.dscp != 48),
                    mrc_ibv_ud_flow_label(EVB + p * LK + (unsigned)(k < 0 ? 0 : k)), me.ip, peer.ip, (unsigned)n);
            w->m.src_qp = x->qpn[p];
            w->m.imm = plan.imm;
            w->m.has_imm = 1;
        }
        if (s == 0 && ti.payload_len && ls->sent % 29u == 0) inject(w, carrier, ipv6, ls, (ls->sent / 29u) % (carrier == MRC_IBV_RAW ? 6u : 4u));
    }
}

static void deliver(const wpkt *w, int carrier, mrc_time now, loop_stats *ls) {
    side *x = &S[w->to];
    unsigned p = w->plane;
    uint32_t id;
    uint8_t *slot;
    const uint8_t *data = NULL;
    size_t len = 0;
    if (!x->pn[p]) { /* no receive posted: the NIC drops it */
        ls->overrun++;
        return;
    }
    id = x->posted[p][x->ph[p]];
    x->ph[p] = (x->ph[p] + 1u) % RXN;
    x->pn[p]--;
    slot = mrc_ibv_rxring_slot(&x->rx[p], id);
    memcpy(slot, w->b, w->len); /* the NIC's scatter: (GRH +) the packet */
    if (mrc_ibv_rxring_complete(&x->rx[p], id, w->len, &data, &len) == MRC_IBV_RX_OK)
        (void)mrc_ibv_path_rx(&x->path[p], &x->ep, carrier == MRC_IBV_UD ? slot : NULL, data, len, &w->m, now);
    else
        x->path[p].st.rx_bad_len++;
    mrc_ibv_rxring_release(&x->rx[p], id);
    rx_refill(x, p);
}

/* A writes three messages into B (zero copy, copied, inline-sized with an immediate); every packet both ways goes
   through mrc_ibv_path_tx -> gather -> (GRH) -> rx ring -> mrc_ibv_path_rx. */
static void loop_test(int carrier, int ipv6, unsigned loss_pct, uint64_t seed) {
    char name[160];
    mrc_config cfg;
    mrc_conn_attr a;
    mrc_write w;
    mrc_event ev;
    mrc_time now = 0;
    loop_stats ls;
    uint32_t rkey = 0;
    unsigned s, p, i, sends = 0, recv_imm = 0, bad_ev = 0;
    static const struct { uint32_t off, len; int imm; } msg[3] = {
        {0, 200000, 0}, {256u << 10, 100003, 0}, {300000, 37, 1}};
    int setup = 1;
    snprintf(name, sizeof name, "transfer over %s/%s through the adapter paths, %u%% loss, bad packets injected",
             carrier == MRC_IBV_RAW ? "raw frames" : "UD", ipv6 ? "IPv6" : "IPv4", loss_pct);
    memset(&ls, 0, sizeof ls);
    rng = seed;
    in_flight = 0;
    memset(S, 0, sizeof S);
    for (i = 0; i < SRC_LEN; i++) src[i] = (uint8_t)(rnd() >> 7);
    memset(dst, 0, sizeof dst);
    for (s = 0; s < 2; s++) {
        side *x = &S[s];
        mrc_config_default(&cfg);
        cfg.seed = seed + s;
        cfg.num_ports = (uint8_t)LP;
        setup = setup && mrc_endpoint_init(&x->ep, &cfg, now) == MRC_OK && mrc_conn_init(&x->ep, &x->qp, now) == MRC_OK;
        setup = setup && mrc_ibv_ev_profile_set(&x->ep, LP, LK, EVB, 0x55, 0x4D524349u, 1, now) == MRC_OK;
        for (p = 0; p < LP; p++) {
            mrc_frame_addr me;
            addr_of((int)s, p + 1u, ipv6, &me);
            x->qpn[p] = 0x100u * (unsigned)(s + 1) + p;
            setup = setup && mrc_ibv_path_init(&x->path[p], carrier, p + 1u, ipv6, &me, (uint16_t)(4791u + p), -1) == MRC_OK;
            setup = setup && mrc_ibv_rxring_init(&x->rx[p], RXN, MRC_IBV_SLOT,
                                                 carrier == MRC_IBV_UD ? MRC_IBV_GRH_LEN : 0u) == 0;
            rx_refill(x, p);
        }
    }
    for (s = 0; s < 2 && setup; s++)
        for (p = 0; p < LP; p++) {
            mrc_frame_addr peer;
            addr_of(1 - (int)s, p + 1u, ipv6, &peer);
            mrc_ibv_path_set_peer(&S[s].path[p], &peer, (uint16_t)(4791u + p), S[1 - s].qpn[p], 1);
        }
    /* A's first 256 KiB is "registered" (zero copy); the rest is not (copied) */
    setup = setup && mrc_ibv_mrtab_add(&S[0].mrs, src, 256u << 10, 0xABCu, NULL) == 0;
    setup = setup && mrc_endpoint_reg_mr(&S[1].ep, dst, 0x10000000u, SRC_LEN, MRC_ACCESS_REMOTE_WRITE, NULL, &rkey) == MRC_OK;
    for (s = 0; s < 2 && setup; s++) {
        mrc_conn_attr_default(&a);
        a.ev_profile_id = 0x4D524349u;
        a.path_mtu = 1024;
        a.dest_qpn = mrc_conn_qpn(&S[1 - s].qp);
        a.sq_psn = 1000u * (s + 1u);
        a.rq_psn = 1000u * (2u - s);
        a.peer = 1;
        setup = mrc_conn_connect(&S[s].qp, &a, now) == MRC_OK;
    }
    setup = setup && mrc_conn_post_recv(&S[1].qp, 77, now) == MRC_OK;
    for (i = 0; i < 3 && setup; i++) {
        memset(&w, 0, sizeof w);
        w.wr_id = i + 1u;
        w.opcode = msg[i].imm ? MRC_WR_WRITE_IMM : MRC_WR_WRITE;
        w.buf = src + msg[i].off;
        w.len = msg[i].len;
        w.remote_va = 0x10000000u + msg[i].off;
        w.rkey = rkey;
        w.imm = 0xC0FFEEu;
        setup = mrc_conn_post_write(&S[0].qp, &w, now) == MRC_OK;
    }
    if (!setup) {
        check(0, name, "setup failed");
        return;
    }
    while ((sends < 3 || !recv_imm) && now < 2000000000u) {
        mrc_time next = MRC_TIME_NEVER;
        for (i = 0; i < in_flight;) {
            if (wire[i].at <= now) {
                wpkt *pk = &wire[i];
                deliver(pk, carrier, now, &ls);
                *pk = wire[--in_flight];
            } else {
                i++;
            }
        }
        for (s = 0; s < 2; s++) {
            if (now >= mrc_endpoint_next_deadline(&S[s].ep)) (void)mrc_endpoint_on_timeout(&S[s].ep, now);
            transmit((int)s, now, carrier, ipv6, loss_pct, &ls);
            while (mrc_endpoint_poll_event(&S[s].ep, &ev) > 0) {
                if (ev.status != MRC_OK) bad_ev++;
                if (ev.type == MRC_EVT_SEND_DONE) sends++;
                if (ev.type == MRC_EVT_RECV_IMM) recv_imm = ev.imm == 0xC0FFEEu && ev.wr_id == 77 && ev.byte_len == 37;
            }
            if (mrc_endpoint_next_deadline(&S[s].ep) < next) next = mrc_endpoint_next_deadline(&S[s].ep);
        }
        for (i = 0; i < in_flight; i++)
            if (wire[i].at < next) next = wire[i].at;
        now = next > now ? next : now + 1;
    }
    {
        int bytes_ok = 1;
        const mrc_ibv_plane_stats *a0 = &S[0].path[0].st, *a1 = &S[0].path[1].st, *b0 = &S[1].path[0].st,
                                  *b1 = &S[1].path[1].st;
        uint64_t zc = a0->tx_zero_copy + a1->tx_zero_copy, cp = a0->tx_copied + a1->tx_copied,
                 inl = a0->tx_inline + a1->tx_inline, binl = b0->tx_inline + b1->tx_inline;
        for (i = 0; i < 3; i++) bytes_ok = bytes_ok && !memcmp(src + msg[i].off, dst + msg[i].off, msg[i].len);
        check(sends == 3 && recv_imm && !bad_ev && bytes_ok && !ls.tx_fail && !ls.plan_bad && !ls.unmapped && !ls.overrun,
              name, "sends %u imm %u bad events %u bytes %s tx_fail %u plan_bad %u unmapped %u overrun %u (%.1f us)",
              sends, recv_imm, bad_ev, bytes_ok ? "equal" : "DIFFER", ls.tx_fail, ls.plan_bad, ls.unmapped, ls.overrun,
              (double)now / 1000.0);
        printf("#   %u packets, %u lost; A: %llu zero-copy, %llu copied, %llu inline; B: %llu inline; injected %u/%u/%u/%u/%u/%u\n",
               ls.sent, ls.lost, (unsigned long long)zc, (unsigned long long)cp, (unsigned long long)inl,
               (unsigned long long)binl, ls.inj[0], ls.inj[1], ls.inj[2], ls.inj[3], ls.inj[4], ls.inj[5]);
        check(zc > 0 && cp > 0 && inl > 0 && binl > 0 && S[0].path[0].st.tx_pkts > 0 && S[0].path[1].st.tx_pkts > 0,
              "  ... both planes carried data; payloads went zero-copy, copied and inline; acknowledgements inline", "%s", "");
        if (carrier == MRC_IBV_RAW) {
            uint64_t d[MRC_FRAME_DROP_NDROP];
            unsigned r;
            for (r = 0; r < MRC_FRAME_DROP_NDROP; r++) d[r] = S[1].path[0].fr.st.drop[r] + S[1].path[1].fr.st.drop[r];
            /* kind 4 (garbage after the Ethernet header) lands on any of several reasons */
            check(d[MRC_FRAME_DROP_ICRC] >= ls.inj[0] && d[MRC_FRAME_DROP_NOT_LOCAL] == ls.inj[1] + ls.inj[2] &&
                      d[MRC_FRAME_DROP_SHORT] >= ls.inj[3] && ls.inj[0] && ls.inj[1] && ls.inj[2] && ls.inj[3] &&
                      ls.inj[4] && ls.inj[5] && b0->rx_foreign + b1->rx_foreign == ls.inj[5],
                  "  ... bad frames dropped and counted: wrong ICRC, another MAC or IP (not_local), truncated, garbage, "
                  "a valid frame from a stranger (foreign)",
                  "icrc %llu/%u not_local %llu/%u short %llu/%u foreign %llu/%u",
                  (unsigned long long)d[MRC_FRAME_DROP_ICRC], ls.inj[0], (unsigned long long)d[MRC_FRAME_DROP_NOT_LOCAL],
                  ls.inj[1] + ls.inj[2], (unsigned long long)d[MRC_FRAME_DROP_SHORT], ls.inj[3],
                  (unsigned long long)(b0->rx_foreign + b1->rx_foreign), ls.inj[5]);
        } else {
            check(b0->rx_bad_grh + b1->rx_bad_grh == ls.inj[0] && b0->rx_foreign + b1->rx_foreign == ls.inj[1] + ls.inj[2] &&
                      b0->rx_core_drop + b1->rx_core_drop >= ls.inj[3] && ls.inj[0] && ls.inj[1] && ls.inj[2] &&
                      ls.inj[3] && b0->ev_mismatch + b1->ev_mismatch == 0,
                  "  ... bad UD packets dropped and counted: GRH of the wrong family, another QPN or address, 6-byte MRC",
                  "bad_grh %llu/%u foreign %llu/%u core_drop %llu/%u", (unsigned long long)(b0->rx_bad_grh + b1->rx_bad_grh),
                  ls.inj[0], (unsigned long long)(b0->rx_foreign + b1->rx_foreign), ls.inj[1] + ls.inj[2],
                  (unsigned long long)(b0->rx_core_drop + b1->rx_core_drop), ls.inj[3]);
        }
    }
    for (s = 0; s < 2; s++)
        for (p = 0; p < LP; p++) mrc_ibv_rxring_free(&S[s].rx[p]);
}

/* The raw path's frames are the shared codec's, byte for byte, whatever the gather list looks like. */
static void test_raw_frames(void) {
    static mrc_endpoint ep;
    static mrc_frame fr;
    static uint8_t slot[MRC_IBV_SLOT], got[MRC_IBV_SLOT], want[MRC_IBV_SLOT];
    mrc_config cfg;
    mrc_ibv_path path;
    mrc_ibv_mrtab t;
    mrc_frame_addr me, peer;
    mrc_txinfo ti;
    mrc_ev_hdrs evh;
    mrc_frame_rx rx;
    mrc_frame_cfg fc;
    uint8_t hdr[40];
    unsigned v6, mode, i, bad = 0, n = 0;
    char why[200] = "";
    mrc_config_default(&cfg);
    cfg.num_ports = 2;
    if (mrc_endpoint_init(&ep, &cfg, 0) != MRC_OK) {
        check(0, "raw frames equal the codec's", "endpoint init");
        return;
    }
    memset(&t, 0, sizeof t);
    for (i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 31u + 3u);
    (void)mrc_ibv_mrtab_add(&t, big, 8192, 9, NULL);
    for (i = 0; i < sizeof hdr; i++) hdr[i] = (uint8_t)(0x5A ^ i);
    hdr[0] = MRC_OP_WRITE_ONLY; /* BTH opcode: a data packet (the codec sends it ECT(0)) */
    for (v6 = 0; v6 < 2; v6++)
        for (mode = 0; mode < 4; mode++) { /* zero copy, copied, inline, no payload */
            int rc;
            mrc_ibv_txplan plan;
            size_t glen;
            int elen;
            addr_of(0, 2, (int)v6, &me);
            addr_of(1, 2, (int)v6, &peer);
            (void)mrc_ibv_path_init(&path, MRC_IBV_RAW, 2, (int)v6, &me, 4792, mode == 3 ? 0x2005 : -1);
            mrc_ibv_path_set_peer(&path, &peer, 4793, 0, 1);
            memset(&ti, 0, sizeof ti);
            ti.port = 2;
            ti.dscp = 10;
            ti.opcode = MRC_OP_WRITE_ONLY;
            ti.ev = 49157;
            ti.ev_fmt = MRC_EV_FMT_UDP;
            ti.hdr_len = sizeof hdr;
            ti.payload = mode == 1 ? big + 9000 : big + 100;
            ti.payload_len = mode == 2 ? 21u : mode == 3 ? 0u : 1021u;
            ti.pad = (uint8_t)((4u - ti.payload_len % 4u) % 4u);
            if (mode == 3) ti.payload = NULL;
            rc = mrc_ibv_path_tx(&path, &ep, &ti, hdr, &t, slot, sizeof slot, 5, mode == 2 ? 256u : 0u, &plan);
            glen = mrc_ibv_tx_gather(&plan, got, sizeof got);
            /* the reference: the codec's one-buffer encoder, configured the same (destination port 4793) */
            mrc_frame_cfg_default(&fc);
            fc.ipv6 = (uint8_t)v6;
            fc.udp_dport = 4793;
            fc.vlan = (uint8_t)(mode == 3);
            fc.vlan_tci = 0x2005;
            (void)mrc_frame_init(&fr, &fc);
            (void)mrc_endpoint_ev_headers(&ep, &ti, &evh);
            elen = mrc_frame_encode(&fr, &me, &peer, &ti, &evh, hdr, want, sizeof want);
            n++;
            if (rc != MRC_OK || elen <= 0 || glen != (size_t)elen || memcmp(got, want, glen) != 0 ||
                mrc_frame_parse(&fr, &peer, got, glen, &rx) != MRC_FRAME_OK || rx.udp_sport != 49157 ||
                rx.mrc_len != ti.hdr_len + ti.payload_len + ti.pad || rx.dscp != 10 || rx.ecn != 2 ||
                (mode == 2) != ((plan.send_flags & IBV_SEND_INLINE) != 0) || (mode == 1) != (plan.copied != 0)) {
                if (!bad++)
                    snprintf(why, sizeof why, "IPv%c mode %u: rc %d glen %zu elen %d cmp %d flags %u copied %u",
                             v6 ? '6' : '4', mode, rc, glen, elen, glen == (size_t)elen ? memcmp(got, want, glen) : -9,
                             plan.send_flags, plan.copied);
            }
        }
    check(!bad, "raw frames from the gather list equal mrc_frame_encode's and parse back (IPv4/IPv6 x zero copy, "
                "copy, inline, VLAN without payload)", "%u of %u: %s", bad, n, why);
}

/* What the core is handed: plane, EV, DSCP, ECN, peer handle, and the MRC packet's bytes. */
static void test_rxinfo(void) {
    static mrc_endpoint ep;
    static uint8_t slot[MRC_IBV_SLOT], f[MRC_IBV_SLOT], g[MRC_IBV_GRH_LEN];
    mrc_config cfg;
    mrc_ibv_path tx, rx;
    mrc_frame_addr a, b;
    mrc_ibv_txplan plan;
    mrc_txinfo ti;
    mrc_rxinfo ri;
    mrc_ibv_rxmeta m;
    uint8_t hdr[44];
    const uint8_t *buf;
    size_t n, len;
    unsigned i, v6;
    int rc, ok;
    mrc_config_default(&cfg);
    cfg.num_ports = 3;
    (void)mrc_endpoint_init(&ep, &cfg, 0);
    for (i = 0; i < sizeof hdr; i++) hdr[i] = (uint8_t)(i + 1u);
    hdr[0] = MRC_OP_WRITE_ONLY;
    for (v6 = 0; v6 < 2; v6++) {
        addr_of(0, 3, (int)v6, &a);
        addr_of(1, 3, (int)v6, &b);
        (void)mrc_ibv_path_init(&tx, MRC_IBV_RAW, 3, (int)v6, &a, 4793, -1);
        mrc_ibv_path_set_peer(&tx, &b, 4800, 0, 1);
        (void)mrc_ibv_path_init(&rx, MRC_IBV_RAW, 3, (int)v6, &b, 4800, -1);
        mrc_ibv_path_set_peer(&rx, &a, 4793, 0, 7);
        memset(&ti, 0, sizeof ti);
        ti.port = 3;
        ti.dscp = 14;
        ti.opcode = MRC_OP_WRITE_ONLY;
        ti.ev = 49163;
        ti.ev_fmt = MRC_EV_FMT_UDP;
        ti.hdr_len = sizeof hdr;
        ti.payload = big + 3;
        ti.payload_len = 301;
        ti.pad = 3;
        rc = mrc_ibv_path_tx(&tx, &ep, &ti, hdr, NULL, slot, sizeof slot, 1, 0, &plan);
        n = mrc_ibv_tx_gather(&plan, f, sizeof f);
        buf = f;
        len = n;
        ok = rc == MRC_OK && mrc_ibv_path_rxinfo(&rx, NULL, &buf, &len, NULL, &ri) == MRC_OK && ri.port == 3 &&
             ri.ev == 49163 && ri.dscp == 14 && ri.ecn == 2 && ri.peer == 7 && ri.flags == 0 &&
             len == sizeof hdr + 301u + 3u && !memcmp(buf, hdr, sizeof hdr) && !memcmp(buf + sizeof hdr, big + 3, 301);
        f[15] |= (uint8_t)(v6 ? 0x30u : 0x03u); /* CE, as a switch marks it (outside the ICRC) */
        if (!v6) ip4_csum_fix(f + 14);
        buf = f;
        len = n;
        ok = ok && mrc_ibv_path_rxinfo(&rx, NULL, &buf, &len, NULL, &ri) == MRC_OK && ri.ecn == 3 && rx.st.rx_ce == 1;
        f[14 + (v6 ? 8u + 15u : 12u + 3u)] ^= 1u; /* another sender, frame otherwise valid */
        reseal(f, n, (int)v6);
        buf = f;
        len = n;
        ok = ok && mrc_ibv_path_rxinfo(&rx, NULL, &buf, &len, NULL, &ri) == MRC_ERR_DROP && rx.st.rx_foreign == 1;
        check(ok, v6 ? "rxinfo, raw IPv6: plane, EV = UDP source port, DSCP, ECN (CE counted), peer handle, MRC bytes; "
                       "a stranger's valid frame dropped (foreign)"
                     : "rxinfo, raw IPv4: plane, EV = UDP source port, DSCP, ECN (CE counted), peer handle, MRC bytes; "
                       "a stranger's valid frame dropped (foreign)",
              "rc %d port %u ev %u dscp %u ecn %u peer %u len %zu foreign %llu", rc, ri.port, ri.ev, ri.dscp, ri.ecn,
              ri.peer, len, (unsigned long long)rx.st.rx_foreign);
    }
    /* UD: the immediate is the EV; the GRH slot gives DSCP, ECN and (IPv6) the flow label, cross-checked */
    addr_of(0, 2, 1, &a);
    addr_of(1, 2, 1, &b);
    (void)mrc_ibv_path_init(&rx, MRC_IBV_UD, 2, 1, &b, 4791, -1);
    mrc_ibv_path_set_peer(&rx, &a, 4791, 0x321, 9);
    put_grh(g, 1, (uint8_t)(12u << 2 | 3u), 49170, a.ip, b.ip, 60);
    memset(&m, 0, sizeof m);
    m.src_qp = 0x321;
    m.imm = 49170;
    m.has_imm = 1;
    buf = f;
    len = 60;
    ok = mrc_ibv_path_rxinfo(&rx, g, &buf, &len, &m, &ri) == MRC_OK && ri.port == 2 && ri.ev == 49170 && ri.dscp == 12 &&
         ri.ecn == 3 && ri.peer == 9 && buf == f && len == 60 && rx.st.rx_ce == 1 && rx.st.ev_mismatch == 0;
    m.imm = 49171; /* the provider rewrote the flow label: the immediate wins, the mismatch is counted */
    ok = ok && mrc_ibv_path_rxinfo(&rx, g, &buf, &len, &m, &ri) == MRC_OK && ri.ev == 49171 && rx.st.ev_mismatch == 1;
    m.has_imm = 0; /* no immediate: the flow label */
    ok = ok && mrc_ibv_path_rxinfo(&rx, g, &buf, &len, &m, &ri) == MRC_OK && ri.ev == 49170;
    m.has_imm = 1;
    m.src_qp = 0x322;
    ok = ok && mrc_ibv_path_rxinfo(&rx, g, &buf, &len, &m, &ri) == MRC_ERR_DROP && rx.st.rx_foreign == 1;
    ok = ok && mrc_ibv_path_rxinfo(&rx, NULL, &buf, &len, &m, &ri) == MRC_ERR_DROP && rx.st.rx_bad_grh == 1;
    check(ok, "rxinfo, UD IPv6: EV = immediate (flow label cross-checked, else used), DSCP, ECN, peer; wrong QPN "
              "foreign, no GRH slot bad_grh", "ev %u dscp %u ecn %u mismatch %llu", ri.ev, ri.dscp, ri.ecn,
          (unsigned long long)rx.st.ev_mismatch);
}

/* Random damage to valid frames and random bytes: every one is accepted or dropped with a counted reason. */
typedef struct hook_seen { unsigned calls; size_t len; uint8_t first, second; int refuse; } hook_seen;
static int rx_hook_fn(void *ctx, uint8_t *pkt, size_t len) {
    hook_seen *h = (hook_seen *)ctx;
    h->calls++;
    h->len = len;
    h->first = pkt[0];
    h->second = pkt[1];
    return h->refuse;
}

static void test_fuzz(void) {
    static mrc_endpoint ep;
    static uint8_t f[MRC_IBV_SLOT], g[MRC_IBV_SLOT], slot[MRC_IBV_SLOT];
    mrc_config cfg;
    mrc_ibv_path path, ud;
    mrc_frame_addr me, peer;
    mrc_ibv_txplan plan;
    mrc_txinfo ti;
    mrc_ibv_rxmeta m;
    uint8_t hdr[40];
    unsigned i, r, iters = 20000;
    uint64_t drops = 0, before;
    size_t n;
    mrc_config_default(&cfg);
    cfg.num_ports = 2;
    (void)mrc_endpoint_init(&ep, &cfg, 0);
    addr_of(1, 1, 0, &me);
    addr_of(0, 1, 0, &peer);
    (void)mrc_ibv_path_init(&path, MRC_IBV_RAW, 1, 0, &me, 4791, -1);
    mrc_ibv_path_set_peer(&path, &peer, 4791, 0, 1);
    (void)mrc_ibv_path_init(&ud, MRC_IBV_UD, 1, 0, &me, 4791, -1);
    mrc_ibv_path_set_peer(&ud, &peer, 4791, 0x99, 1);
    /* a valid frame addressed to "me", from "peer" */
    {
        mrc_ibv_path tx;
        (void)mrc_ibv_path_init(&tx, MRC_IBV_RAW, 1, 0, &peer, 4791, -1);
        mrc_ibv_path_set_peer(&tx, &me, 4791, 0, 1);
        memset(&ti, 0, sizeof ti);
        for (i = 0; i < sizeof hdr; i++) hdr[i] = (uint8_t)i;
        hdr[0] = MRC_OP_WRITE_ONLY;
        ti.port = 1;
        ti.opcode = MRC_OP_WRITE_ONLY;
        ti.ev = 50000;
        ti.ev_fmt = MRC_EV_FMT_UDP;
        ti.hdr_len = sizeof hdr;
        ti.payload = big;
        ti.payload_len = 512;
        (void)mrc_ibv_path_tx(&tx, &ep, &ti, hdr, NULL, slot, sizeof slot, 1, 0, &plan);
        n = mrc_ibv_tx_gather(&plan, f, sizeof f);
    }
    { /* the receive hook sees the MRC packet (BTH on) before the core, and may rewrite it */
        hook_seen hs;
        memset(&hs, 0, sizeof hs);
        path.rx_hook = rx_hook_fn;
        path.rx_hook_ctx = &hs;
        memcpy(g, f, n);
        (void)mrc_ibv_path_rx(&path, &ep, NULL, g, n, NULL, 0);
        hs.refuse = 1;
        memcpy(g, f, n);
        check(mrc_ibv_path_rx(&path, &ep, NULL, g, n, NULL, 0) == MRC_ERR_DROP && path.st.rx_hook_drop == 1,
              "the receive hook refuses a packet: dropped and counted", "rx_hook_drop %llu",
              (unsigned long long)path.st.rx_hook_drop);
        path.rx_hook = NULL;
        check(hs.calls == 2 && hs.len == sizeof hdr + 512u && hs.first == MRC_OP_WRITE_ONLY && hs.second == 1,
              "the receive hook sees the MRC packet of a frame before the core", "calls %u len %zu opcode 0x%x",
              hs.calls, hs.len, hs.first);
    }
    for (i = 0; i < iters; i++) {
        size_t len = n;
        unsigned k, flips = 1u + rnd() % 4u;
        memcpy(g, f, n);
        if (i % 5u == 4u) { /* random bytes of a random length */
            len = rnd() % 200u;
            for (k = 0; k < len; k++) g[k] = (uint8_t)rnd();
        } else {
            for (k = 0; k < flips; k++) g[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8u));
            if (rnd() % 4u == 0) len = rnd() % (n + 1u);
        }
        before = path.st.rx_foreign + path.st.rx_core_drop;
        for (r = 1; r < MRC_FRAME_DROP_NDROP; r++) before += path.fr.st.drop[r];
        if (mrc_ibv_path_rx(&path, &ep, NULL, g, len, NULL, 0) != MRC_OK) {
            uint64_t after = path.st.rx_foreign + path.st.rx_core_drop;
            for (r = 1; r < MRC_FRAME_DROP_NDROP; r++) after += path.fr.st.drop[r];
            drops += after - before == 1u;
        } else {
            drops++; /* accepted by the frame layer and the core (a flip the ICRC does not cover) */
        }
    }
    check(drops == iters, "20000 damaged or random raw frames: each accepted or dropped with exactly one counted reason",
          "%llu of %u", (unsigned long long)drops, iters);
    drops = 0;
    memset(&m, 0, sizeof m);
    m.src_qp = 0x99;
    m.has_imm = 1;
    for (i = 0; i < iters; i++) {
        size_t len = rnd() % 300u;
        unsigned k;
        put_grh(g, 0, 40, 0, peer.ip, me.ip, (unsigned)len);
        for (k = MRC_IBV_GRH_LEN; k < MRC_IBV_GRH_LEN + len; k++) g[k] = (uint8_t)rnd();
        if (len > 1) g[MRC_IBV_GRH_LEN] = (uint8_t)(0xC6u + rnd() % 25u); /* plausible opcodes */
        if (i % 7u == 0) g[20] = (uint8_t)rnd();
        m.imm = rnd();
        before = ud.st.rx_bad_grh + ud.st.rx_foreign + ud.st.rx_core_drop;
        if (mrc_ibv_path_rx(&ud, &ep, g, g + MRC_IBV_GRH_LEN, len, &m, 0) != MRC_OK)
            drops += ud.st.rx_bad_grh + ud.st.rx_foreign + ud.st.rx_core_drop - before == 1u;
        else
            drops++;
    }
    check(drops == iters, "20000 random UD payloads (and damaged GRH slots): each accepted or dropped and counted once",
          "%llu of %u", (unsigned long long)drops, iters);
}

/* ---- the device-backed adapter --------------------------------------------------------------------------------- */
static void test_open_errors(void) {
    mrc_ibv_config c;
    mrc_ibv *ib = NULL;
    char err[256] = "";
    int n = 0, rc;
    struct ibv_device **l;
    mrc_ibv_config_default(&c);
    rc = mrc_ibv_open(&ib, &c, err, sizeof err);
    check(rc < 0 && !ib && err[0] && !strchr(err, '\n'), "open without a device in the spec: one line, no adapter",
          "rc %d '%s'", rc, err);
    (void)mrc_ibv_spec_parse(&c.spec, "mrc_no_such_dev0", err, sizeof err);
    c.planes = 9;
    err[0] = 0;
    rc = mrc_ibv_open(&ib, &c, err, sizeof err);
    check(rc < 0 && !ib && strstr(err, "planes"), "open with 9 planes: refused, one line", "'%s'", err);
    c.planes = 2;
    err[0] = 0;
    l = ibv_get_device_list(&n);
    rc = mrc_ibv_open(&ib, &c, err, sizeof err);
    if (!l || n <= 0)
        check(rc < 0 && !ib && !strncmp(err, "no RDMA device (ibv_get_device_list found none", 46) && !strchr(err, '\n'),
              "open on a host without RDMA devices: 'no RDMA device (...)', no adapter", "'%s'", err);
    else
        check(rc < 0 && !ib && strstr(err, "no RDMA device named 'mrc_no_such_dev0'"),
              "open of a device that does not exist: 'no RDMA device named ...', no adapter", "'%s'", err);
    printf("#   mrc_ibv_open said: %s\n", err);
    {
        char e2[256] = "";
        rc = mrc_ibv_probe(&c.spec, e2, sizeof e2);
        check(rc < 0 && !strcmp(e2, err), "probe says what open says, in one line", "rc %d '%s'", rc, e2);
    }
    if (l) ibv_free_device_list(l);
    c.family = AF_INET6;
    err[0] = 0;
    check(mrc_ibv_config_set_addrs(&c, "fd00::1,fd00::2", err, sizeof err) == 0 && c.have_addr[1] &&
              c.addr[1][15] == 2 && mrc_ibv_config_set_addrs(&c, "10.0.0.1", err, sizeof err) < 0 && err[0] &&
              mrc_ibv_config_set_addrs(&c, "fd00::1,fd00::2,fd00::3", err, sizeof err) < 0,
          "plane addresses: 1 or `planes` of the family, else one line", "%s", "");
}

/* A UD loopback transfer between two adapters on one device port (only where a device exists). */
static void test_device(void) {
    struct ibv_device **l;
    int n = 0;
    const char *want = getenv("MRC_IBV_TEST_DEV");
    char spec[128], err[256];
    static mrc_endpoint ep[2];
    static mrc_conn qp[2];
    static uint8_t a_src[1u << 20], b_dst[1u << 20];
    mrc_ibv *ib[2] = {NULL, NULL};
    mrc_ibv_config c;
    mrc_ibv_peer me[2];
    mrc_config cfg;
    mrc_conn_attr at;
    mrc_write w;
    mrc_event ev;
    uint32_t rkey = 0, i;
    mrc_time end;
    int s, ok = 1, sent = 0, got = 0, bad = 0;
    l = ibv_get_device_list(&n);
    if (!l || n <= 0) {
        printf("skip - device test: no RDMA device (ibv_get_device_list found none)\n");
        if (l) ibv_free_device_list(l);
        return;
    }
    snprintf(spec, sizeof spec, "%s,carrier=ud", want && *want ? want : ibv_get_device_name(l[0]));
    ibv_free_device_list(l);
    mrc_ibv_config_default(&c);
    c.planes = 1;
    c.evs_per_plane = 4;
    c.mtu = 1024;
    if (mrc_ibv_spec_parse(&c.spec, spec, err, sizeof err) != 0) {
        check(0, "device test: UD loopback", "%s", err);
        return;
    }
    for (s = 0; s < 2 && ok; s++) {
        if (mrc_ibv_open(&ib[s], &c, err, sizeof err) != 0) {
            check(0, "device test: UD loopback: open", "%s: %s", spec, err);
            ok = 0;
            break;
        }
        ok = mrc_ibv_local(ib[s], 1, &me[s]) == 0;
    }
    for (s = 0; s < 2 && ok; s++) ok = mrc_ibv_set_peer(ib[s], &me[1 - s], 1, err, sizeof err) == 0;
    for (s = 0; s < 2 && ok; s++) {
        mrc_config_default(&cfg);
        cfg.seed = 7u + (unsigned)s;
        cfg.num_ports = 1;
        ok = mrc_endpoint_init(&ep[s], &cfg, mrc_ibv_now()) == MRC_OK && mrc_conn_init(&ep[s], &qp[s], mrc_ibv_now()) == MRC_OK &&
             mrc_ibv_ev_profile(ib[s], &ep[s], 0x55, 0x77, 1, mrc_ibv_now()) == MRC_OK;
    }
    for (i = 0; i < sizeof a_src; i++) a_src[i] = (uint8_t)(i * 7u + (i >> 11));
    ok = ok && mrc_endpoint_reg_mr(&ep[1], b_dst, 0x20000000u, sizeof b_dst, MRC_ACCESS_REMOTE_WRITE, NULL, &rkey) == MRC_OK;
    ok = ok && mrc_ibv_reg_mem(ib[0], a_src, sizeof a_src) == 0;
    for (s = 0; s < 2 && ok; s++) {
        mrc_conn_attr_default(&at);
        at.ev_profile_id = 0x77;
        at.path_mtu = 1024;
        at.dest_qpn = mrc_conn_qpn(&qp[1 - s]);
        at.sq_psn = 100u * (unsigned)(s + 1);
        at.rq_psn = 100u * (unsigned)(2 - s);
        at.peer = 1;
        ok = mrc_conn_connect(&qp[s], &at, mrc_ibv_now()) == MRC_OK;
    }
    memset(&w, 0, sizeof w);
    w.wr_id = 1;
    w.opcode = MRC_WR_WRITE_IMM;
    w.buf = a_src;
    w.len = sizeof a_src;
    w.remote_va = 0x20000000u;
    w.rkey = rkey;
    w.imm = 0xFEED;
    ok = ok && mrc_conn_post_recv(&qp[1], 5, mrc_ibv_now()) == MRC_OK && mrc_conn_post_write(&qp[0], &w, mrc_ibv_now()) == MRC_OK;
    end = mrc_ibv_now() + 10000000000ull;
    while (ok && (!sent || !got) && mrc_ibv_now() < end) {
        for (s = 0; s < 2 && ok; s++) {
            if (mrc_ibv_step(ib[s], &ep[s], mrc_ibv_now() + 1000000u, NULL) < 0) {
                printf("#   step: %s\n", mrc_ibv_last_error(ib[s]));
                ok = 0;
            }
            while (mrc_ibv_poll_event(ib[s], &ep[s], &ev) > 0) {
                if (ev.status != MRC_OK) bad++;
                if (ev.type == MRC_EVT_SEND_DONE) sent = 1;
                if (ev.type == MRC_EVT_RECV_IMM) got = ev.imm == 0xFEED && ev.byte_len == sizeof a_src;
            }
        }
    }
    {
        char d[512] = "";
        if (ib[0]) mrc_ibv_describe(ib[0], d, sizeof d);
        printf("#   %s\n", d);
    }
    check(ok && sent && got && !bad && !memcmp(a_src, b_dst, sizeof a_src),
          "device test: 1 MiB Write-with-Immediate over UD loopback on one device port, bytes equal",
          "%s: ok %d sent %d got %d bad %d", spec, ok, sent, got, bad);
    for (s = 0; s < 2; s++) mrc_ibv_close(ib[s]);
}

int main(void) {
    test_carrier();
    test_spec();
    test_mtu();
    test_flow_rule();
    test_mrtab();
    test_tx_plan();
    test_rxring();
    test_evhold();
    test_ud_map();
    test_raw_frames();
    test_rxinfo();
    test_fuzz();
    loop_test(MRC_IBV_RAW, 0, 2, 11);
    loop_test(MRC_IBV_RAW, 1, 3, 12);
    loop_test(MRC_IBV_UD, 0, 2, 13);
    loop_test(MRC_IBV_UD, 1, 0, 14);
    test_open_errors();
    test_device();
    printf("%u passed, %u failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
