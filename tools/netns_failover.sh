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
# shellcheck source=udp_lib.sh
. "$HERE/udp_lib.sh"
A=mrcfoA$$
B=mrcfoB$$
NP=8

skip() { echo "test-netns: SKIP: $*"; exit 0; }
die() { echo "test-netns: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veth pairs, nftables, tc)"
command -v ip >/dev/null || skip "no iproute2 'ip' command"
command -v python3 >/dev/null || skip "no python3 (MPTCP helper and result analysis)"
[ -x "$PERF" ] || die "$PERF not built (make build/mrc_perf)"
need_nft test-netns || skip "no nftables and apt-get could not install it"
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
# the first whole second at least $1 seconds from now (now: when this is called, from bash's clock; a Python
# process would add its start-up time, seconds on a loaded host)
second_after() { awk -v t="$EPOCHREALTIME" -v d="$1" 'BEGIN { x = t + d; s = int(x); if (s < x) s++; print s }'; }
# arm_fault PLANE TS: loads the rule for the whole second TS (unix time) and sets FAULT_TS to the instant the fault
# really starts: TS, or, should the rule have been committed only after TS (a very slow host), the next whole second
# at least 0.5 s after the commit (the fault must start at a known instant, after the rule is in place)
arm_fault() {
    FAULT_TS=$2
    fault_at "$1" "$FAULT_TS"
    if [ "${EPOCHREALTIME%.*}" -ge "$FAULT_TS" ]; then
        fault_off
        FAULT_TS=$(second_after 0.5)
        echo "  (the fault rule was committed only after its instant; the fault moves to $FAULT_TS)"
        fault_at "$1" "$FAULT_TS"
    fi
}
# plane_rx PID: the bytes received so far on each plane veth vb1..vbN of PID's network namespace (B), "b1 b2 ...",
# from one read of /proc/PID/net/dev
plane_rx() {
    awk -v n=$NP '{ sub(/:/, " ") } $1 ~ /^vb[0-9]+$/ { p = substr($1, 3) + 0; if (p >= 1 && p <= n) b[p] = $2 }
        END { for (p = 1; p <= n; p++) s = s (p > 1 ? " " : "") (b[p] + 0); print s }' "/proc/$1/net/dev" 2>/dev/null
}
# data_flowing PID BASE: over 1 MB more than BASE bytes have arrived on B's plane veths: the transfer is running
data_flowing() {
    local v s=0
    for v in $(plane_rx "$1"); do s=$((s + v)); done
    [ $((s - $2)) -gt 1000000 ]
}
plane_rx_sum() {
    local v s=0
    for v in $(plane_rx "$1"); do s=$((s + v)); done
    echo $s
}
# sleep_until US: sleeps until the unix time US (microseconds); a no-op when it has passed
sleep_until() {
    local d=$(($1 - ${EPOCHREALTIME/./}))
    [ "$d" -gt 0 ] && sleep "$((d / 1000000)).$(printf %06d $((d % 1000000)))"
    return 0
}

# a readiness wait of a trial failed: record why (UP_ERR) in ERRFILE and stop the trial's processes (PIDS)
abort_trial() {
    local err=$1
    shift
    echo "$UP_ERR" >>"$err"
    kill $PIDS 2>/dev/null
    wait "$@"
    PIDS=
}

# ---- MRC ----------------------------------------------------------------------------------------------------------
run_mrc() {
    local t=$1 pfx="$OUT/mrc_$1"
    rm -f "$pfx".*
    ip netns exec "$B" "$PERF" --bind 10.77.0.2 -p 18515 --plane-addrs "$planes_b" --stall-log "$pfx.stalls" --json \
        --accept-timeout 30 >"$pfx.server.json" 2>"$pfx.server.err" &
    local spid=$!
    PIDS=$spid
    # the client starts once the server listens; the fault is placed FAULT_AT seconds after data is seen flowing on
    # the plane veths (not after the client was started, which on a loaded host can be long before the transfer)
    udp_wait "MRC trial $t: the mrc_perf server listening in $B" "$spid" udp_tcp "$spid" 18515 0A ||
        { abort_trial "$pfx.server.err" $spid; return 1; }
    local base
    base=$(plane_rx_sum "$spid")
    ip netns exec "$A" "$PERF" 10.77.0.2 -p 18515 --plane-addrs "$planes_a" -D "$DUR" --json --connect-timeout 30 \
        >"$pfx.client.json" 2>"$pfx.client.err" &
    local cpid=$!
    PIDS="$spid $cpid"
    udp_wait "MRC trial $t: data flowing on the plane veths" "$cpid" data_flowing "$spid" "$base" ||
        { abort_trial "$pfx.client.err" $cpid $spid; return 1; }
    arm_fault "$FAIL_PLANE" "$(second_after "$FAULT_AT")"
    local tf=$((FAULT_TS * 1000000000))
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
        --json "$pfx.server.json" --timeout 15 --ready "$pfx.ready" 2>"$pfx.server.err" &
    local spid=$!
    PIDS=$spid
    # as for MRC: the client starts once the server says it listens, the fault is placed after data is seen flowing
    udp_wait "MPTCP trial $t: the server listening in $B" "$spid" udp_line "$pfx.ready" '^listening$' ||
        { abort_trial "$pfx.server.err" $spid; return 1; }
    local base
    base=$(plane_rx_sum "$spid")
    ip netns exec "$A" python3 "$HERE/udp_mptcp.py" client --connect 10.77.1.2 --port 5201 --duration "$DUR" \
        --timeout 15 >"$pfx.client.json" 2>"$pfx.client.err" &
    local cpid=$!
    PIDS="$spid $cpid"
    udp_wait "MPTCP trial $t: data flowing on the plane veths" "$cpid" data_flowing "$spid" "$base" ||
        { abort_trial "$pfx.client.err" $cpid $spid; return 1; }
    # the same plane fails as for MRC; its share of MPTCP's bytes in the half second before is reported (if MPTCP
    # hardly used it, the busiest plane fails instead, so that the test is not void). That half second is a
    # measurement window (1.2 to 0.7 s before the fault instant, leaving the rest to choose the plane and commit the
    # rule), read from one /proc/PID/net/dev at each end; should the rule be committed after the instant all the
    # same, arm_fault moves the fault later.
    local ts
    ts=$(second_after "$FAULT_AT")
    sleep_until $(((ts * 1000 - 1200) * 1000))
    local p before=() after=() best=1 bestd=-1 total=0 fd=0 w0
    w0=${EPOCHREALTIME/./}
    read -r -a before <<<"$(plane_rx "$spid")"
    sleep_until $((w0 + 500000))
    read -r -a after <<<"$(plane_rx "$spid")"
    for ((p = 1; p <= NP; p++)); do
        local d=$((after[p - 1] - before[p - 1]))
        total=$((total + d))
        [ "$p" = "$FAIL_PLANE" ] && fd=$d
        if [ "$d" -gt "$bestd" ]; then bestd=$d; best=$p; fi
    done
    if [ "$total" -gt 0 ] && [ $((fd * 20)) -ge "$total" ]; then best=$FAIL_PLANE; bestd=$fd; fi
    arm_fault "$best" "$ts"
    local subflows
    subflows=$(ip netns exec "$B" ss -tnH state established '( sport = :5201 )' 2>/dev/null | wc -l)
    local tf=$((FAULT_TS * 1000000000))
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
