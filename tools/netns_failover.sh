#!/bin/bash
# netns_failover.sh - one plane of eight fails silently in the middle of a transfer: MRC (mrc_perf over the UDP port)
# versus Linux MPTCP, over the same two network namespaces joined by 8 veth pairs (one per plane).
#
#   tools/netns_failover.sh [PATH_TO_MRC_PERF]          (make test-netns)
#
# Topology: namespaces A (client, sender) and B (server, receiver); veth pair p (p = 1..8) is plane p with
# 10.77.p.1/24 in A and 10.77.p.2/24 in B; pair 0 (10.77.0.0/24) carries only the side channels. By default the
# veths are plain (CPU-bound, where Linux MPTCP does best). RATE_MBIT=250 rate-limits each plane veth in both
# directions with a tbf qdisc, so that a plane is a link with a capacity and a queue and losing one costs its share;
# Linux MPTCP does not aggregate 8 such subflows (it runs at about one subflow's rate, with 200 ms stalls even
# without a fault), so that variant mostly shows MRC's plane-share behaviour.
#
# MRC: mrc_perf server in B, client in A, one UDP address per plane (--plane-addrs), 128 EVs (16 source ports per
# plane). MPTCP: tools/udp_mptcp.py over IPPROTO_MPTCP; the in-kernel path manager opens one subflow per plane
# (client endpoints 10.77.p.1 'subflow', each bound to plane p's veth; limits 8 subflows).
#
# The fault: FAULT_AT seconds into the transfer (rounded up to a whole second of wall-clock time) an nftables rule
# in B, loaded in advance and keyed on the kernel clock (meta time), starts silently dropping everything in and out
# of one plane's veth (no link-down, no ICMP: a black hole), so the fault instant is known to the packet. Both
# protocols lose plane FAIL_PLANE (default 3); its share of each protocol's bytes is reported (should MPTCP have
# carried under 5% there, its busiest plane fails instead so that the test is not void).
#
# Measured the same way on both, from the receiver's in-order delivery (tools/udp_failover_report.py has the exact
# definitions): the stall at the fault (the receiver logs every in-order stall over 1 ms: mrc_perf --stall-log,
# udp_mptcp.py), the time until goodput is sustainably back at the post-failure level, recovery time = the larger
# of the two, the noise floor (longest stall elsewhere), goodput before/after. Data: MRC verifies every byte at the
# receiver; the MPTCP receiver checks its byte stream against the sender's pattern.
#
# Skips (exit 0, one line) when not root, without network namespaces, nftables (installed with apt-get when root
# and missing) or MPTCP (the MRC part still runs then). Environment: DUR (6 s), FAULT_AT (3 s), FAIL_PLANE (3),
# RATE_MBIT (0), OUT (build/netns), FAULT_WINDOW_MS (50), TRIALS (1).
set -u
PERF=${1:-build/mrc_perf}
DUR=${DUR:-6}
FAULT_AT=${FAULT_AT:-3}
FAIL_PLANE=${FAIL_PLANE:-3}
RATE_MBIT=${RATE_MBIT:-0}
OUT=${OUT:-build/netns}
FAULT_WINDOW_MS=${FAULT_WINDOW_MS:-50}
TRIALS=${TRIALS:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
A=mrcfoA$$
B=mrcfoB$$
NP=8

skip() { echo "test-netns: SKIP: $*"; exit 0; }
die() { echo "test-netns: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veth pairs, nftables, tc)"
command -v ip >/dev/null || skip "no iproute2 'ip' command"
command -v python3 >/dev/null || skip "no python3 (MPTCP helper and result analysis)"
[ -x "$PERF" ] || die "$PERF not built (make build/mrc_perf)"
if ! command -v nft >/dev/null; then
    echo "test-netns: nftables missing, installing it with apt-get"
    (apt-get install -y nftables >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y nftables >/dev/null 2>&1; }) ||
        skip "no nftables and apt-get could not install it"
fi
ip netns add "$A" 2>/dev/null || skip "cannot create network namespaces"
ip netns add "$B" || { ip netns del "$A"; skip "cannot create network namespaces"; }
cleanup() {
    [ -n "${PIDS:-}" ] && kill $PIDS 2>/dev/null
    ip netns del "$A" 2>/dev/null
    ip netns del "$B" 2>/dev/null
}
trap cleanup EXIT INT TERM
mkdir -p "$OUT"

# ---- topology -----------------------------------------------------------------------------------------------------
ip -n "$A" link set lo up && ip -n "$B" link set lo up || die "cannot bring up loopback in the namespaces"
for p in $(seq 0 $NP); do
    ip link add "va$p" netns "$A" type veth peer name "vb$p" netns "$B" || skip "cannot create veth pairs"
    ip -n "$A" addr add "10.77.$p.1/24" dev "va$p"
    ip -n "$B" addr add "10.77.$p.2/24" dev "vb$p"
    ip -n "$A" link set "va$p" up
    ip -n "$B" link set "vb$p" up
    if [ "$p" -gt 0 ] && [ "$RATE_MBIT" -gt 0 ]; then
        ip netns exec "$A" tc qdisc add dev "va$p" root tbf rate "${RATE_MBIT}mbit" burst 32kb latency 5ms 2>/dev/null &&
            ip netns exec "$B" tc qdisc add dev "vb$p" root tbf rate "${RATE_MBIT}mbit" burst 32kb latency 5ms 2>/dev/null ||
            { echo "test-netns: no tbf qdisc: planes are not rate-limited"; RATE_MBIT=0; }
    fi
done
MPTCP=1
ip netns exec "$A" sysctl -qn net.mptcp.enabled 2>/dev/null | grep -q 1 || MPTCP=0
python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262).close()' 2>/dev/null || MPTCP=0
planes_a=$(seq -s, -f "10.77.%g.1" 1 $NP)
planes_b=$(seq -s, -f "10.77.%g.2" 1 $NP)

# nftables in B: from the whole second $2 (unix time) on, drop everything in and out of plane $1's veth, silently.
# The rule is loaded ahead of time and matches on the kernel's clock (meta time), so the fault starts at a known
# instant, to the packet, instead of whenever an nft process gets around to committing it.
fault_at() {
    ip netns exec "$B" nft -f - <<EOF || die "nft rule failed"
table inet mrcfail {
    chain in {
        type filter hook input priority -10; policy accept;
        iifname "vb$1" meta time >= $2 counter drop;
    }
    chain out {
        type filter hook output priority -10; policy accept;
        oifname "vb$1" meta time >= $2 counter drop;
    }
}
EOF
}
fault_off() { ip netns exec "$B" nft delete table inet mrcfail 2>/dev/null; }
fault_count() { ip netns exec "$B" nft list table inet mrcfail 2>/dev/null | grep -o 'packets [0-9]*' | awk '{s+=$2} END {print s+0}'; }
# the first whole second at least $1 seconds from now
second_after() { python3 -c "import math,time; print(math.ceil(time.time() + $1))"; }
rx_bytes() { ip netns exec "$B" cat "/sys/class/net/vb$1/statistics/rx_bytes"; }

# ---- MRC ----------------------------------------------------------------------------------------------------------
run_mrc() {
    local t=$1 pfx="$OUT/mrc_$1"
    rm -f "$pfx".*
    ip netns exec "$B" "$PERF" --bind 10.77.0.2 -p 18515 --plane-addrs "$planes_b" --stall-log "$pfx.stalls" --json \
        --accept-timeout 10 >"$pfx.server.json" 2>"$pfx.server.err" &
    local spid=$!
    ip netns exec "$A" "$PERF" 10.77.0.2 -p 18515 --plane-addrs "$planes_a" -D "$DUR" --json --connect-timeout 5 \
        >"$pfx.client.json" 2>"$pfx.client.err" &
    local cpid=$!
    PIDS="$spid $cpid"
    local ts
    ts=$(second_after "$FAULT_AT")
    fault_at "$FAIL_PLANE" "$ts"
    local tf=$((ts * 1000000000))
    wait $cpid
    local crc=$?
    wait $spid
    local src=$?
    PIDS=
    local dropped
    dropped=$(fault_count)
    fault_off
    echo "$tf" >"$pfx.fault"
    python3 "$HERE/udp_failover_report.py" mrc "$pfx" "$tf" "$FAIL_PLANE" "$dropped" "$crc" "$src" "$FAULT_WINDOW_MS" \
        >"$pfx.result.json" || return 1
    return 0
}

# ---- MPTCP --------------------------------------------------------------------------------------------------------
run_mptcp() {
    local t=$1 pfx="$OUT/mptcp_$1"
    rm -f "$pfx".*
    ip netns exec "$A" ip mptcp endpoint flush 2>/dev/null
    ip netns exec "$B" ip mptcp endpoint flush 2>/dev/null
    ip netns exec "$A" ip mptcp limits set subflows 8 add_addr_accepted 8 || return 2
    ip netns exec "$B" ip mptcp limits set subflows 8 add_addr_accepted 8 || return 2
    # one subflow per plane: the client's endpoint p is bound to plane p's veth (symmetric paths; the server listens
    # on every address and is reached at its plane-1 address through each of them)
    for p in $(seq 2 $NP); do ip netns exec "$A" ip mptcp endpoint add "10.77.$p.1" dev "va$p" subflow || return 2; done
    ip netns exec "$B" python3 "$HERE/udp_mptcp.py" server --bind 0.0.0.0 --port 5201 --stall-log "$pfx.stalls" \
        --json "$pfx.server.json" --timeout 15 2>"$pfx.server.err" &
    local spid=$!
    ip netns exec "$A" python3 "$HERE/udp_mptcp.py" client --connect 10.77.1.2 --port 5201 --duration "$DUR" \
        --timeout 15 >"$pfx.client.json" 2>"$pfx.client.err" &
    local cpid=$!
    PIDS="$spid $cpid"
    # the same plane fails as for MRC; its share of MPTCP's bytes in the half second before is reported (if MPTCP
    # hardly used it, the busiest plane fails instead, so that the test is not void)
    local ts
    ts=$(second_after "$FAULT_AT")
    sleep "$(python3 -c "import time; print(max($ts - time.time() - 0.7, 0.05))")"
    local p before=() best=1 bestd=-1 total=0 fd=0
    for p in $(seq 1 $NP); do before[$p]=$(rx_bytes "$p"); done
    sleep 0.5
    for p in $(seq 1 $NP); do
        local d=$(($(rx_bytes "$p") - before[p]))
        total=$((total + d))
        [ "$p" = "$FAIL_PLANE" ] && fd=$d
        if [ "$d" -gt "$bestd" ]; then bestd=$d; best=$p; fi
    done
    if [ "$total" -gt 0 ] && [ $((fd * 20)) -ge "$total" ]; then best=$FAIL_PLANE; bestd=$fd; fi
    local subflows
    subflows=$(ip netns exec "$B" ss -tnH state established '( sport = :5201 )' 2>/dev/null | wc -l)
    fault_at "$best" "$ts"
    local tf=$((ts * 1000000000))
    wait $cpid
    local crc=$?
    wait $spid
    local src=$?
    PIDS=
    local dropped
    dropped=$(fault_count)
    fault_off
    echo "$tf" >"$pfx.fault"
    python3 "$HERE/udp_failover_report.py" mptcp "$pfx" "$tf" "$best" "$dropped" "$crc" "$src" "$FAULT_WINDOW_MS" \
        "$subflows" "$bestd" "$total" >"$pfx.result.json" || return 1
    return 0
}

echo "test-netns: 2 namespaces, $NP plane veths$([ "$RATE_MBIT" -gt 0 ] && echo " at ${RATE_MBIT} Mbit/s each (tbf)"), \
${DUR}s transfers, silent drop of one plane at ${FAULT_AT}s, $TRIALS trial(s); results in $OUT/"
fail=0
for t in $(seq 1 "$TRIALS"); do
    run_mrc "$t" || fail=1
    python3 -c "import json,sys; r=json.load(open('$OUT/mrc_$t.result.json')); print('  ' + r['line'])" 2>/dev/null ||
        { echo "  MRC trial $t: no result"; cat "$OUT/mrc_$t.client.err" "$OUT/mrc_$t.server.err" 2>/dev/null | head -3; fail=1; }
    if [ "$MPTCP" = 1 ]; then
        run_mptcp "$t"
        rc=$?
        if [ $rc = 2 ]; then
            echo "  MPTCP: SKIP (cannot configure the in-kernel path manager)"
            MPTCP=0
        else
            [ $rc = 0 ] || fail=1
            python3 -c "import json,sys; r=json.load(open('$OUT/mptcp_$t.result.json')); print('  ' + r['line'])" 2>/dev/null ||
                { echo "  MPTCP trial $t: no result"; cat "$OUT/mptcp_$t.server.err" "$OUT/mptcp_$t.client.err" 2>/dev/null | head -3; fail=1; }
        fi
    else
        echo "  MPTCP: SKIP (no MPTCP in this kernel or namespace)"
    fi
done
python3 "$HERE/udp_failover_report.py" summary "$OUT" "$TRIALS" "$RATE_MBIT" >"$OUT/netns_failover.json" &&
    python3 -c "import json; print(json.load(open('$OUT/netns_failover.json'))['line'])"
[ $fail = 0 ] || die "a transfer failed or its data did not verify (see $OUT/)"
exit 0
