#!/bin/bash
# udp_smoke.sh - about five seconds of mrc_perf over loopback: data verified end to end under the main options and
# impairments, and the failure paths answered with a clear error and a non-zero status (make udp-smoke).
#
#   tools/udp_smoke.sh [PATH_TO_MRC_PERF] [--quick]
#
# --quick runs the first two cases only (the ASan/UBSan run, make udp-asan). The last line is "N passed, N failed";
# the exit status is non-zero when a case failed.
set -u
PERF=${1:-build/mrc_perf}
QUICK=0
[ "${2:-}" = "--quick" ] && QUICK=1
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=udp_lib.sh
. "$HERE/udp_lib.sh"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/udp_smoke.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
[ -x "$PERF" ] || { echo "udp-smoke: $PERF not built"; exit 1; }
command -v python3 >/dev/null || { echo "udp-smoke: SKIP: python3 is needed to read mrc_perf's JSON (Debian: apt-get install python3)"; exit 0; }
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; sed 's/^/     /' "$TMP"/*.err 2>/dev/null | head -5; }

# a transfer: both sides exit 0, both JSON summaries say ok, the receiver verified every byte
transfer() {
    local name=$1 sargs=$2 cargs=$3
    rm -f "$TMP"/*
    udp_pair "$TMP/t" "--json $sargs" "--json $cargs"
    local cok sok what
    cok=$(json_get "$TMP/t.client" 'd["ok"]')
    sok=$(json_get "$TMP/t.server" 'd["ok"]')
    what=$(json_get "$TMP/t.client" '"%.2f Gb/s, %d msgs, %d rtx; receiver: %s" % (d["tx"]["gbps_avg"], d["tx"]["msgs"], d["mrc"]["rtx"], d["peer_result"].split()[0] if d["mode"] == "mrc" else "raw")')
    if [ "$UP_CRC" = 0 ] && [ "$UP_SRC" = 0 ] && [ "$cok" = True ] && [ "$sok" = True ]; then
        ok "$name ($what)"
    else
        bad "$name (client rc $UP_CRC, server rc $UP_SRC)"
    fi
}

# a failure: non-zero status within the time limit and one clear line on stderr matching the pattern
expect_fail() {
    local name=$1 want_rc=$2 pattern=$3 limit=$4
    shift 4
    local t0 rc dt
    t0=$(date +%s%N)
    timeout 20 "$@" >"$TMP/f.out" 2>"$TMP/f.err"
    rc=$?
    dt=$((($(date +%s%N) - t0) / 1000000))
    if [ "$rc" = "$want_rc" ] && grep -q -- "$pattern" "$TMP/f.err" && [ "$dt" -le "$limit" ]; then
        ok "$name (exit $rc in ${dt} ms: $(head -1 "$TMP/f.err"))"
    else
        bad "$name (exit $rc in ${dt} ms, wanted $want_rc within $limit ms: $(head -1 "$TMP/f.err"))"
    fi
}

transfer "8 planes x 16 EVs, 4 QPs, Write-with-Immediate" "" "-D 1 -q 4 --imm"
transfer "bidirectional, 0.2% drop + dup + trim, 30 us jitter" "" \
    "-D 1 --bidir -s 20000 --drop 2000 --dup 2000 --trim 2000 --jitter-us 30"
if [ $QUICK = 0 ]; then
    transfer "black-holed plane 5 at 300 ms, 64 EVs" "" "-D 0.8 --evs 64 --blackhole-plane 5 --at 300"
    if python3 -c 'import socket; s=socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.bind(("::1", 0))' 2>/dev/null; then
        rm -f "$TMP"/*
        udp_ports
        "$PERF" -6 -p "$UP_TCP" --udp-port "$UP_DATA" --ev-port "$UP_EVS" --json --accept-timeout 10 >"$TMP/t.server" 2>"$TMP/t.server.err" &
        spid=$!
        "$PERF" -6 ::1 -p "$UP_TCP" --ev-port "$UP_EVC" -n 300 -s 8000 --json --connect-timeout 5 >"$TMP/t.client" 2>"$TMP/t.client.err"
        crc=$?
        wait $spid
        src=$?
        if [ $crc = 0 ] && [ $src = 0 ] && [ "$(json_get "$TMP/t.client" 'd["family"] + str(d["ok"])')" = ipv6True ]; then
            ok "IPv6 loopback, 300 x 8000 B"
        else bad "IPv6 loopback (client rc $crc, server rc $src)"; fi
    else
        echo "skip IPv6 loopback (no ::1)"
    fi
    transfer "raw UDP baseline" "" "--raw -D 0.3"
    expect_fail "unknown option" 2 "unknown option" 500 "$PERF" --no-such-flag
    expect_fail "bad value" 2 "needs an integer" 500 "$PERF" -s 0 127.0.0.1
    udp_ports
    expect_fail "nobody listening" 1 "cannot connect" 3000 "$PERF" 127.0.0.1 -p "$UP_TCP" --connect-timeout 0.5
    # a port in use: a UDP socket holds the server's plane-1 receive port
    udp_ports
    python3 -c "import socket,time; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', $UP_DATA)); time.sleep(4)" &
    hold=$!
    sleep 0.2
    expect_fail "UDP port in use" 1 "Address already in use" 3000 "$PERF" -p "$UP_TCP" --udp-port "$UP_DATA" --ev-port "$UP_EVS" \
        --accept-timeout 3
    kill $hold 2>/dev/null
    wait $hold 2>/dev/null
    # the server dies in the middle of a run
    udp_ports
    # (in a subshell that waits for it, so that the shell does not report the killed job)
    ( "$PERF" -p "$UP_TCP" --udp-port "$UP_DATA" --ev-port "$UP_EVS" --accept-timeout 10 >/dev/null 2>&1 &
      echo $! >"$TMP/srv.pid"; wait ) 2>/dev/null &
    sleep 0.1
    (sleep 0.5 && kill -9 "$(cat "$TMP/srv.pid")") &
    expect_fail "server killed mid-run" 1 "peer closed the control connection" 3000 \
        "$PERF" 127.0.0.1 -p "$UP_TCP" --ev-port "$UP_EVC" -D 5 --connect-timeout 5
    wait 2>/dev/null
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
