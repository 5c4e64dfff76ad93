/* ocp_unit.c - lib_mrc's NIC path, the parts that need no NIC: which carrier a device gets, the ports/ibverbs spec
 * of a NIC-mode device, the peer's MAC from the kernel's neighbour table, the refusals, and opening a device on
 * this machine (skipped with the reason where there is no RDMA device). Linked with lib_mrc's objects (not the
 * shared library: these functions are internal) and the real libibverbs, exported (-rdynamic) so that its own
 * ibv_reg_mr is the one lookups find, as in a program that links lib_mrc.so first.
 *
 * Every check prints "ok <name>" or "FAIL <name>: why"; "skip - <name>: why" is neither; the last line is
 * "N passed, N failed"; the exit status is non-zero on any failure.
 */
#define _GNU_SOURCE
#include "../lib_mrc_int.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned n_pass, n_fail;
static void check(int ok, const char *name, const char *fmt, const char *arg) {
    if (ok) {
        n_pass++;
        printf("ok %s\n", name);
    } else {
        n_fail++;
        printf("FAIL %s: ", name);
        printf(fmt, arg);
        printf("\n");
    }
}

static void t_kind(void) {
    check(lm_device_kind(1, 1) == LM_DEV_SOFT, "carrier: a soft device (soft libibverbs loaded) gets UDP", "%s", "");
    check(lm_device_kind(1, 0) == LM_DEV_NONE, "carrier: another device beside the soft libibverbs gets none",
          "%s", "");
    check(lm_device_kind(0, 0) == LM_DEV_NIC && lm_device_kind(0, 1) == LM_DEV_NIC,
          "carrier: any device of the real libibverbs gets the NIC carrier (raw packet QPs)", "%s", "");
}

static void t_spec(void) {
    char b[256];
    check(ob_ibv_spec(b, sizeof b, "mlx5_0", NULL) == 0 && !strcmp(b, "mlx5_0:1,carrier=raw"),
          "NIC spec: the device's port 1, raw packet QPs", "got '%s'", b);
    check(ob_ibv_spec(b, sizeof b, "rocep1s0f0", "dport=5000,vlan=7") == 0 &&
              !strcmp(b, "rocep1s0f0:1,carrier=raw,dport=5000,vlan=7"),
          "NIC spec: MRC_OCP_IBV's options follow", "got '%s'", b);
    check(ob_ibv_spec(b, sizeof b, "a,b", NULL) == -1 && ob_ibv_spec(b, sizeof b, "mlx5_0:2", NULL) == -1 &&
              ob_ibv_spec(b, sizeof b, "", NULL) == -1 && ob_ibv_spec(b, 12, "mlx5_0", NULL) == -1,
          "NIC spec: a name with ',' or ':', an empty one, no room: refused", "%s", "");
}

static void t_arp(void) {
    static const char text[] =
        "IP address       HW type     Flags       HW address            Mask     Device\n"
        "10.0.0.7         0x1         0x0         00:00:00:00:00:00     *        eth1\n"
        "10.0.0.9         0x1         0x2         0c:42:a1:00:00:09     *        eth1\n"
        "10.0.0.8         0x1         0x2         00:00:00:00:00:00     *        eth1\n"
        "10.0.0.2         0x1         0x2         b8:59:9f:12:34:56     *        eth0\n";
    uint8_t mac[6] = {0};
    uint32_t ip;
    char got[32];
    inet_pton(AF_INET, "10.0.0.2", &ip);
    snprintf(got, sizeof got, "%d", ob_arp_find(text, ip, mac));
    check(!strcmp(got, "0") && mac[0] == 0xb8 && mac[5] == 0x56, "neighbour table: a complete entry gives the MAC",
          "rc %s", got);
    inet_pton(AF_INET, "10.0.0.7", &ip);
    check(ob_arp_find(text, ip, mac) == -1, "neighbour table: an incomplete entry (flags 0x0) is none", "%s", "");
    inet_pton(AF_INET, "10.0.0.8", &ip);
    check(ob_arp_find(text, ip, mac) == -1, "neighbour table: a zero MAC is none", "%s", "");
    inet_pton(AF_INET, "10.0.0.1", &ip);
    check(ob_arp_find(text, ip, mac) == -1 && ob_arp_find("", ip, mac) == -1 &&
              ob_arp_find("garbage\n\n10.0.0.1 0x1\n", ip, mac) == -1,
          "neighbour table: an address it lacks, an empty or damaged table: none", "%s", "");
}

static void t_open(void) {
    ob_cfg c;
    ob_dev *d = NULL;
    char err[300] = "";
    int rc, n = 0;
    struct ibv_device **l;
    memset(&c, 0, sizeof c);
    c.carrier = OB_CAR_IBV;
    c.planes = 1;
    snprintf(c.ibv_dev, sizeof c.ibv_dev, "mlx5_0");
    snprintf(c.ibv_extra, sizeof c.ibv_extra, "carrier=ud");
    rc = ob_dev_open(&d, &c, err, sizeof err);
    check(rc == EOPNOTSUPP && !d && strstr(err, "raw packet QPs only"),
          "NIC open: the UD carrier is refused (OCP's API exchanges no UD QP numbers)", "%s", err);
    snprintf(c.ibv_extra, sizeof c.ibv_extra, "dport=banana");
    rc = ob_dev_open(&d, &c, err, sizeof err);
    check(rc == EINVAL && !d && err[0], "NIC open: a bad MRC_OCP_IBV option is refused with the reason", "%s", err);
    /* a device of this machine, if it has one */
    l = ibv_get_device_list(&n);
    c.ibv_extra[0] = 0;
    if (l && n > 0) snprintf(c.ibv_dev, sizeof c.ibv_dev, "%s", ibv_get_device_name(l[0]));
    if (l) ibv_free_device_list(l);
    rc = ob_dev_open(&d, &c, err, sizeof err);
    if (n <= 0) {
        check(rc == ENODEV && !d && strstr(err, "no RDMA device"), "NIC open without an RDMA device: ENODEV and why",
              "%s", err);
        printf("skip - NIC carrier: %s\n", err);
    } else {
        printf("   NIC open on %s: %s\n", c.ibv_dev, rc ? err : "opened");
        check(rc == 0 || err[0], "NIC open on this machine's first RDMA device: opened, or refused with the reason",
              "%s", err);
        if (d) ob_dev_close(d);
    }
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    check(lm_mr_interposed() == 1, "ibv_reg_mr and ibv_reg_mr_iova2 reach lib_mrc's recorder first", "%s", "");
    t_kind();
    t_spec();
    t_arp();
    t_open();
    printf("%u passed, %u failed\n", n_pass, n_fail);
    return n_fail != 0;
}
