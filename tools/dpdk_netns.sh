#!/bin/bash
# dpdk_netns.sh - make dpdk-test: mrc_perf over the DPDK port (ports/dpdk) between two processes in two network
# namespaces, with no NIC and no hugepages: each plane is a veth pair driven by DPDK's net_af_packet PMD.
#
#   tools/dpdk_netns.sh [PATH_TO_MRC_PERF]          (an mrc_perf built with -DMRC_PERF_DPDK)
#
# Topology: namespaces A (client, sender) and B (server, receiver). Pair 0 (va0/vb0, 10.77.0.1/.2) carries only the
# side channel (kernel TCP, as always for mrc_perf). Pairs 1..8 (vaP/vbP, MTU 9000, IPv6 off so that no ND/RS noise
# appears) are the planes: each side opens them with --vdev=net_af_packetN,iface=vaP (or vbP),qdisc_bypass=0, and
# MRC over DPDK gives plane P the IPs 10.78.P.1 / 10.78.P.2, addresses the kernels do not have: a kernel that sees
# such a frame drops it silently (no forwarding in a namespace, hence no ICMP) while DPDK reads it from its
# AF_PACKET ring. The kernel addresses 10.77.P.1 / 10.77.P.2 on the same veths serve the UDP port's runs. The EAL
# runs with --no-huge --no-pci -m 256 and a per-process --file-prefix (mrc_dpdk_eal_init's default).
#
# Checks (one "ok -" / "FAIL -" line each, then "N passed, N failed"):
#   (a) a clean transfer: mrc_perf --dpdk, the receiver checks every byte (exit status 0 = verified);
#   (a2) a short transfer with mrc_perf --pcap on the DPDK carrier: the capture dissected by tshark with
#       tools/wireshark/mrc.lua and compared field by field with the core's decoder (skipped without tshark);
#   (b) a plane black-holed mid-run: at FAULT_AT s after data is seen flowing (rounded up to a whole second of
#       wall-clock time), nftables rules loaded in advance and keyed on the kernel clock (meta time) drop everything
#       plane FAIL_PLANE's veth transmits, in both namespaces. AF_PACKET receive taps run before the netdev ingress
#       hook, so an ingress rule would not hide frames from net_af_packet: the rules are netdev-family *egress*
#       chains (kernel >= 5.16), and net_af_packet runs with qdisc_bypass=0 so that its frames pass that hook. The
#       test checks that the rules really dropped (their counters) and that the peer saw no frame on that plane
#       afterwards (the veths' kernel counters), and measures the stall and recovery exactly as test-netns does for
#       the UDP port (mrc_perf --stall-log and --json, tools/udp_failover_report.py); then the same fault on the UDP
#       port over the same veths, measured the same way (FO_UDP=0 skips it);
#   (c) goodput: mrc_perf --dpdk against the raw DPDK baseline (mrc_perf --raw --dpdk: frames of the same size and
#       framing, no protocol) and against the UDP port on the same veths (mrc_perf without --dpdk over 10.77.P.x),
#       REPS rounds of the three, interleaved so that each round sees the same host load; medians reported
#       (receiver-side goodput as bench-udp: delivered, verified bytes for MRC; arrived payload for raw).
#
# Every wait is for a sign of readiness (the server's listening socket, bytes on the plane veths), never a fixed
# sleep. Skips with one line (exit 0) when not root, without network namespaces, without a DPDK-enabled mrc_perf, or
# without nftables with the netdev egress hook (nftables is installed with apt-get when root and missing).
# Environment: DUR (3 s per goodput run), REPS (3), FO_DUR (6 s), FAULT_AT (3 s), FAIL_PLANE (3), FAULT_WINDOW_MS
# (50), FO_UDP (1: the same black hole on the UDP port too), ZC (0; 1: also time --mrc-zero-copy=1 runs), OUT
# (build/dpdk_netns), EAL_EXTRA (more EAL arguments).
set -u
PERF=${1:-build/mrc_perf}
DUR=${DUR:-3}
REPS=${REPS:-3}
FO_DUR=${FO_DUR:-6}
FAULT_AT=${FAULT_AT:-3}
FAIL_PLANE=${FAIL_PLANE:-3}
FAULT_WINDOW_MS=${FAULT_WINDOW_MS:-50}
ZC=${ZC:-0}
FO_UDP=${FO_UDP:-1}
OUT=${OUT:-build/dpdk_netns}
EAL_EXTRA=${EAL_EXTRA:-}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=udp_lib.sh
. "$HERE/udp_lib.sh"
A=mrcdpA$$
B=mrcdpB$$
NP=8
PORT=18515

skip() { echo "dpdk-test: SKIP: $*"; exit 0; }
passed=0
failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
bad() { echo "FAIL - $*"; failed=$((failed + 1)); }

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veth pairs, nftables, AF_PACKET)"
command -v ip >/dev/null || skip "no iproute2 'ip' command"
command -v python3 >/dev/null || skip "no python3 (result analysis)"
[ -x "$PERF" ] || skip "$PERF not built"
"$PERF" --help 2>/dev/null | grep -q 'go after the -- (built in)' ||
    skip "$PERF was built without DPDK (apt-get install dpdk-dev libdpdk-dev; make)"
need_nft dpdk-test || skip "no nftables and apt-get could not install it"
ip netns add "$A" 2>/dev/null || skip "cannot create network namespaces"
ip netns add "$B" || { ip netns del "$A"; skip "cannot create network namespaces"; }
PIDS=
cleanup() {
    [ -n "$PIDS" ] && kill $PIDS 2>/dev/null
    ip netns del "$A" 2>/dev/null
    ip netns del "$B" 2>/dev/null
}
trap cleanup EXIT INT TERM
mkdir -p "$OUT"
rm -f "$OUT"/*

# ---- topology -----------------------------------------------------------------------------------------------------
ip -n "$A" link set lo up && ip -n "$B" link set lo up || skip "cannot bring up loopback in the namespaces"
for p in $(seq 0 $NP); do
    ip link add "va$p" netns "$A" type veth peer name "vb$p" netns "$B" || skip "cannot create veth pairs"
    ip -n "$A" addr add "10.77.$p.1/24" dev "va$p"
    ip -n "$B" addr add "10.77.$p.2/24" dev "vb$p"
    if [ "$p" -gt 0 ]; then
        ip netns exec "$A" sysctl -qw "net.ipv6.conf.va$p.disable_ipv6=1"
        ip netns exec "$B" sysctl -qw "net.ipv6.conf.vb$p.disable_ipv6=1"
        ip -n "$A" link set "va$p" mtu 9000
        ip -n "$B" link set "vb$p" mtu 9000
    fi
    ip -n "$A" link set "va$p" up
    ip -n "$B" link set "vb$p" up
done
# the netdev egress hook must exist (kernel >= 5.16, nft >= 1.0.1)
ip netns exec "$A" nft -f - >/dev/null 2>&1 <<EOF || skip "nftables or the kernel has no netdev egress hook (kernel >= 5.16, nft >= 1.0.1)"
table netdev mrcprobe {
    chain eg {
        type filter hook egress device "va1" priority 0; policy accept;
    }
}
EOF
ip netns exec "$A" nft delete table netdev mrcprobe

# net_af_packet on each plane veth: 4608-byte ring frames (a 4 KiB-MTU frame and the adapter's default mbuf data
# room; blocksz a multiple of both the page and the frame size, as the PMD requires), through the qdisc layer
vdevs() {
    local s=$1 p
    for p in $(seq 1 $NP); do
        printf -- "--vdev=net_af_packet%d,iface=v%s%d,qdisc_bypass=0,framesz=4608,blocksz=36864,framecnt=1024 " \
            $((p - 1)) "$s" "$p"
    done
}
EAL_A="--no-huge --no-pci -m 256 $(vdevs a)$EAL_EXTRA"
EAL_B="--no-huge --no-pci -m 256 $(vdevs b)$EAL_EXTRA"
PL_A=$(seq -s, -f "10.78.%g.1" 1 $NP)
PL_B=$(seq -s, -f "10.78.%g.2" 1 $NP)
UDP_A=$(seq -s, -f "10.77.%g.1" 1 $NP)
UDP_B=$(seq -s, -f "10.77.%g.2" 1 $NP)

# dev_rx NS IFACE: bytes IFACE received, as NS's kernel counts them (/proc/net/dev: "name:bytes" may have no space)
dev_rx() { ip netns exec "$1" awk -v i="$2" '{ sub(/:/, " ") } $1 == i { print $2 }' /proc/net/dev; }
# plane_rx_sum PID: bytes received so far on B's plane veths (PID lives in B)
plane_rx_sum() {
    awk '{ sub(/:/, " ") } $1 ~ /^vb[1-9]$/ { s += $2 } END { printf "%.0f\n", s }' "/proc/$1/net/dev" 2>/dev/null
}
data_flowing() { [ $(($(plane_rx_sum "$1") - $2)) -gt 1000000 ]; }
second_after() { awk -v t="$EPOCHREALTIME" -v d="$1" 'BEGIN { x = t + d; s = int(x); if (s < x) s++; print s }'; }
sleep_until() {
    local d=$(($1 - ${EPOCHREALTIME/./}))
    [ "$d" -gt 0 ] && sleep "$((d / 1000000)).$(printf %06d $((d % 1000000)))"
    return 0
}

# pair PFX [HOOK]: an mrc_perf server in B with the arguments in the array SARGS, once it listens a client in A
# with CARGS; both --json, stdout/stderr to PFX.{server,client}.{json,err}. With HOOK, "HOOK PFX" runs once data is
# seen flowing on B's plane veths. Sets SRC and CRC (exit codes).
pair() {
    local pfx=$1 hook=${2:-} spid cpid base
    rm -f "$pfx".*
    ip netns exec "$B" "$PERF" ${SPRE[@]+"${SPRE[@]}"} --bind 10.77.0.2 -p $PORT --json --accept-timeout 60 "${SARGS[@]}" \
        >"$pfx.server.json" 2>"$pfx.server.err" &
    spid=$!
    PIDS=$spid
    if ! udp_wait "mrc_perf server listening in $B" "$spid" udp_tcp "$spid" $PORT 0A; then
        echo "$UP_ERR" >>"$pfx.server.err"
        kill "$spid" 2>/dev/null
        wait "$spid" 2>/dev/null
        PIDS=
        SRC=1
        CRC=1
        return
    fi
    base=$(plane_rx_sum "$spid")
    ip netns exec "$A" "$PERF" ${CPRE[@]+"${CPRE[@]}"} 10.77.0.2 -p $PORT --json --connect-timeout 30 "${CARGS[@]}" \
        >"$pfx.client.json" 2>"$pfx.client.err" &
    cpid=$!
    PIDS="$spid $cpid"
    if [ -n "$hook" ]; then
        if udp_wait "data flowing on the plane veths" "$cpid" data_flowing "$spid" "$base"; then
            "$hook" "$pfx"
        else
            echo "$UP_ERR" >>"$pfx.client.err"
        fi
    fi
    wait "$cpid"
    CRC=$?
    # a client that failed before it connected leaves the server waiting for one: end it
    [ "$CRC" != 0 ] && udp_tcp "$spid" $PORT 0A && kill "$spid" 2>/dev/null
    wait "$spid"
    SRC=$?
    PIDS=
}
# the first error line of a run
why() { cat "$1.client.err" "$1.server.err" 2>/dev/null | grep -v '^ *$' | head -1; }
# the argument arrays of MRC over DPDK and of MRC over UDP: SPRE/CPRE go first (DPDK: the EAL options and "--", as
# testpmd), SARGS/CARGS after; WORDS: carrier options such as --mrc-zero-copy=1; the client's extra arguments follow
set_dpdk() {
    local words=$1
    shift
    read -ra SPRE <<<"$EAL_B"
    read -ra CPRE <<<"$EAL_A"
    SPRE+=(--)
    CPRE+=(--)
    SARGS=($words --plane-addrs "$PL_B")
    CARGS=($words --plane-addrs "$PL_A" "$@")
}
set_udp() {
    SPRE=()
    CPRE=()
    SARGS=(--plane-addrs "$UDP_B")
    CARGS=(--plane-addrs "$UDP_A" "$@")
}
gbps() { json_get "$1.client.json" "\"%.2f\" % d[\"$2\"] if d and d[\"ok\"] and d.get(\"$2\") else \"\""; }
med() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "dpdk-test: 2 namespaces, $NP plane veths driven by net_af_packet (EAL --no-huge --no-pci -m 256); results in $OUT/"
echo "# host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); idle DPDK loops nap 20 us (mrc_perf's default)"

# ---- (a) a clean transfer -----------------------------------------------------------------------------------------
G_DPDK=()
G_RAW=()
G_UDP=()
G_ZC=()
set_dpdk "" -D "$DUR"
pair "$OUT/dpdk_1"
g=$(gbps "$OUT/dpdk_1" peer_rx_gbps)
if [ "$CRC" = 0 ] && [ "$SRC" = 0 ] && [ -n "$g" ]; then
    ok "(a) MRC over DPDK, ${DUR}s on $NP af_packet planes: every byte verified by the receiver ($g Gb/s, $(json_get \
"$OUT/dpdk_1.client.json" 'd["mrc"]["rtx"]') retransmissions)"
else
    bad "(a) MRC over DPDK clean transfer: client exit $CRC, server exit $SRC: $(why "$OUT/dpdk_1")"
fi

# ---- (a2) a capture over DPDK: mrc_perf --pcap on the DPDK carrier, dissected by tshark and compared field by field
# with the core's decoder (tools/wireshark/dissector_check.py, as make dissector-test does for the other captures)
set_dpdk "" -n 100 -s 65536 --imm --pcap "$OUT/dpdk_cap.client.pcap"
pair "$OUT/dpdk_cap"
if [ "$CRC" != 0 ] || [ "$SRC" != 0 ]; then
    bad "(a2) MRC over DPDK with --pcap: client exit $CRC, server exit $SRC: $(why "$OUT/dpdk_cap")"
elif ! command -v tshark >/dev/null || [ ! -x "${BUILD:-build}/mrc_pcap" ] || ! command -v python3 >/dev/null; then
    echo "skip - (a2) capture over DPDK written ($(stat -c %s "$OUT/dpdk_cap.client.pcap") bytes); not dissected: needs tshark, python3 and ${BUILD:-build}/mrc_pcap (make dissector-test)"
elif python3 "$HERE/wireshark/dissector_check.py" --lua "$HERE/wireshark/mrc.lua" --tool "${BUILD:-build}/mrc_pcap" \
        --compare "dpdk=$OUT/dpdk_cap.client.pcap" > "$OUT/dpdk_cap.dissect" 2>&1; then
    ok "(a2) capture over DPDK (mrc_perf --pcap): $(grep -m1 '^dissector-test: dpdk' "$OUT/dpdk_cap.dissect" | sed 's/^dissector-test: dpdk *//')"
else
    bad "(a2) capture over DPDK: tshark and the core's decoder disagree: $(grep -v '^ *$' "$OUT/dpdk_cap.dissect" | tail -2 | tr '\n' ' ')"
fi
# the capture carries the addresses on the wire: the planes' IPs (10.78.P.1 / .2) and the veths' MACs, not the
# placeholders 10.0.P.x and 02:00:00:00:00:0x
if [ -s "$OUT/dpdk_cap.client.pcap" ] && w=$(python3 - "$OUT/dpdk_cap.client.pcap" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, n, seen = 24, 0, set()
while off + 16 <= len(b):
    incl = struct.unpack_from("<I", b, off + 8)[0]
    f = b[off + 16: off + 16 + incl]
    off += 16 + incl
    if len(f) < 34 or f[12:14] != b"\x08\x00":
        continue
    src, dst = ".".join(map(str, f[26:30])), ".".join(map(str, f[30:34]))
    assert src.startswith("10.78.") and dst.startswith("10.78.") and src.split(".")[2] == dst.split(".")[2], (src, dst)
    assert f[0:6] not in (b"\x02\0\0\0\0\x01", b"\x02\0\0\0\0\x02"), f[0:6].hex()
    n += 1
    seen.add(src)
assert n > 0, "no IPv4 frame"
print("%d frames, %d source IPs such as %s" % (n, len(seen), sorted(seen)[0]))
PY
); then
    ok "(a2) the capture has the wire's addresses: $w"
elif [ -s "$OUT/dpdk_cap.client.pcap" ]; then
    bad "(a2) the capture's addresses are not the wire's: $w"
fi

# ---- (b) one plane black-holed mid-run ------------------------------------------------------------------------------
# fault_rules NS DEV TS: from the whole second TS (unix time) on, drop everything DEV transmits (loaded in advance)
fault_rules() {
    ip netns exec "$1" nft -f - <<EOF
table netdev mrcbh {
    chain eg {
        type filter hook egress device "$2" priority 0; policy accept;
        meta time >= $3 counter drop
    }
}
EOF
}
fault_off() {
    ip netns exec "$A" nft delete table netdev mrcbh 2>/dev/null
    ip netns exec "$B" nft delete table netdev mrcbh 2>/dev/null
}
fault_count() {
    ip netns exec "$1" nft list table netdev mrcbh 2>/dev/null | grep -o 'packets [0-9]*' | awk '{ s += $2 } END { print s + 0 }'
}
fault_both() { fault_rules "$A" "va$FAIL_PLANE" "$1" && fault_rules "$B" "vb$FAIL_PLANE" "$1" || ARM_ERR="nft failed"; }
# once data flows: the fault at the first whole second FAULT_AT s later (moved later should the rules be committed
# after their instant, as test-netns does), then what each kernel received on that plane, 100 ms into the fault
arm() {
    FAULT_TS=$(second_after "$FAULT_AT")
    fault_both "$FAULT_TS"
    if [ "${EPOCHREALTIME%.*}" -ge "$FAULT_TS" ]; then
        fault_off
        FAULT_TS=$(second_after 0.5)
        fault_both "$FAULT_TS"
    fi
    sleep_until $((FAULT_TS * 1000000 + 100000))
    RX_B0=$(dev_rx "$B" "vb$FAIL_PLANE")
    RX_A0=$(dev_rx "$A" "va$FAIL_PLANE")
}
# failover KIND PFX: one black-holed run of MRC over KIND (dpdk or udp), analysed; sets DROP_A/DROP_B, RX_* and
# FO_OK (the transfer verified)
failover() {
    local kind=$1 pfx=$2 tf
    ARM_ERR=
    FAULT_TS=0
    RX_A0=
    RX_B0=
    if [ "$kind" = dpdk ]; then set_dpdk "" -D "$FO_DUR"; else set_udp -D "$FO_DUR"; fi
    SARGS+=(--stall-log "$pfx.stalls")
    pair "$pfx" arm
    RX_B1=$(dev_rx "$B" "vb$FAIL_PLANE")
    RX_A1=$(dev_rx "$A" "va$FAIL_PLANE")
    DROP_A=$(fault_count "$A")
    DROP_B=$(fault_count "$B")
    fault_off
    tf=$((FAULT_TS * 1000000000))
    python3 "$HERE/udp_failover_report.py" mrc "$pfx" "$tf" "$FAIL_PLANE" "$((DROP_A + DROP_B))" "$CRC" "$SRC" \
        "$FAULT_WINDOW_MS" >"$pfx.result.json" 2>"$pfx.report.err"
    FO_OK=0
    [ "$CRC" = 0 ] && [ "$SRC" = 0 ] && [ "$FAULT_TS" != 0 ] && [ -z "$ARM_ERR" ] && FO_OK=1
    FO_LINE=$(python3 -c "import json; print(json.load(open('$pfx.result.json'))['line'])" 2>/dev/null)
}
failover dpdk "$OUT/fo"
if [ "$FO_OK" = 1 ]; then
    ok "(b) plane $FAIL_PLANE black-holed ${FAULT_AT}s into a ${FO_DUR}s transfer: every byte verified"
else
    bad "(b) black-hole run: client exit $CRC, server exit $SRC ${ARM_ERR}: $(why "$OUT/fo")"
fi
# the sender's rule must drop (the data direction); the receiver's only drops what it still sends on that plane (its
# acknowledgements follow the planes data arrives on, so usually nothing)
if [ "$DROP_A" -gt 0 ]; then
    ok "(b) the nftables egress rules dropped $DROP_A frames in A (sender) and $DROP_B in B (receiver)"
else
    bad "(b) the nftables egress rule in A dropped nothing (B: $DROP_B)"
fi
if [ -n "$RX_B0" ] && [ "$RX_B0" = "$RX_B1" ] && [ "$RX_A0" = "$RX_A1" ]; then
    ok "(b) from 100 ms into the fault to the end neither side received a byte on plane $FAIL_PLANE"
else
    bad "(b) bytes still arrived on plane $FAIL_PLANE during the fault (B ${RX_B0:-?} -> $RX_B1, A ${RX_A0:-?} -> $RX_A1)"
fi
# the stall and recovery, measured as test-netns measures them for the UDP port (a measurement, not a verdict: on a
# shared host the noise floor can exceed it); then the same fault on the UDP port over the same veths, for comparison
if [ -n "$FO_LINE" ]; then
    ok "(b) stall and recovery measured (tools/udp_failover_report.py): $FO_LINE"
else
    bad "(b) no failover result: $(head -1 "$OUT/fo.report.err" 2>/dev/null)"
fi
if [ "$FO_UDP" = 1 ]; then
    failover udp "$OUT/fo_udp"
    if [ "$FO_OK" = 1 ] && [ -n "$FO_LINE" ]; then
        ok "(b) the same black hole on the UDP port over the same veths, for comparison: $FO_LINE"
    else
        bad "(b) the UDP port's black-hole run: client exit $CRC, server exit $SRC: $(why "$OUT/fo_udp")"
    fi
fi

# ---- (c) goodput: raw DPDK, MRC over DPDK, MRC over UDP on the same veths, interleaved -------------------------------
for i in $(seq 1 "$REPS"); do
    set_dpdk "" --raw -D "$DUR"
    pair "$OUT/raw_$i"
    g=$(json_get "$OUT/raw_$i.client.json" '"%.2f" % d["raw_goodput_gbps"] if d and d.get("raw_goodput_gbps") else ""')
    if [ "$CRC" = 0 ] && [ -n "$g" ]; then G_RAW+=("$g"); else bad "(c) raw DPDK run $i: $(why "$OUT/raw_$i")"; fi
    set_dpdk "" -D "$DUR"
    pair "$OUT/dpdk_c$i"
    g=$(gbps "$OUT/dpdk_c$i" peer_rx_gbps)
    if [ "$CRC" = 0 ] && [ "$SRC" = 0 ] && [ -n "$g" ]; then G_DPDK+=("$g"); else bad "(c) MRC over DPDK run $i: $(why "$OUT/dpdk_c$i")"; fi
    if [ "$ZC" = 1 ]; then
        set_dpdk "--mrc-zero-copy=1" -D "$DUR"
        pair "$OUT/zc_$i"
        g=$(gbps "$OUT/zc_$i" peer_rx_gbps)
        if [ "$CRC" = 0 ] && [ "$SRC" = 0 ] && [ -n "$g" ]; then G_ZC+=("$g"); else bad "(c) zero-copy run $i: $(why "$OUT/zc_$i")"; fi
    fi
    set_udp -D "$DUR"
    pair "$OUT/udp_$i"
    g=$(gbps "$OUT/udp_$i" peer_rx_gbps)
    if [ "$CRC" = 0 ] && [ "$SRC" = 0 ] && [ -n "$g" ]; then G_UDP+=("$g"); else bad "(c) MRC over UDP run $i: $(why "$OUT/udp_$i")"; fi
done
m_dpdk=$(med "${G_DPDK[@]}")
m_raw=$(med "${G_RAW[@]}")
m_udp=$(med "${G_UDP[@]}")
if [ ${#G_DPDK[@]} = "$REPS" ] && [ ${#G_RAW[@]} = "$REPS" ] && [ ${#G_UDP[@]} = "$REPS" ]; then
    ok "(c) goodput, median of $REPS: MRC over DPDK $m_dpdk Gb/s (${G_DPDK[*]}), raw DPDK $m_raw Gb/s (${G_RAW[*]}), \
MRC over UDP $m_udp Gb/s (${G_UDP[*]}): MRC/raw $(awk -v a="$m_dpdk" -v b="$m_raw" 'BEGIN { printf "%.2f", b ? a / b : 0 }'), \
DPDK/UDP $(awk -v a="$m_dpdk" -v b="$m_udp" 'BEGIN { printf "%.2f", b ? a / b : 0 }')"
else
    bad "(c) goodput: runs missing (MRC over DPDK ${G_DPDK[*]:-none}; raw ${G_RAW[*]:-none}; UDP ${G_UDP[*]:-none})"
fi
[ "$ZC" = 1 ] && echo "# zero-copy MRC over DPDK: median $(med "${G_ZC[@]}") Gb/s (${G_ZC[*]:-none}); copy $m_dpdk Gb/s"
python3 - "$OUT" "${G_DPDK[*]:-}" "${G_RAW[*]:-}" "${G_UDP[*]:-}" "${G_ZC[*]:-}" >"$OUT/dpdk_netns.json" <<'PY'
import json, statistics, sys
out = sys.argv[1]
runs = [[float(x) for x in a.split()] for a in sys.argv[2:6]]
try:
    fo = json.load(open(out + "/fo.result.json"))
except (OSError, ValueError):
    fo = None
names = ("mrc_dpdk_gbps", "raw_dpdk_gbps", "mrc_udp_gbps", "mrc_dpdk_zc_gbps")
r = {n: v for n, v in zip(names, runs)}
r["median"] = {n: statistics.median(v) for n, v in zip(names, runs) if v}
r["failover"] = fo
print(json.dumps(r))
PY
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
