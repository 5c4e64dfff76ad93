#!/bin/bash
# udp_smoke.sh - a few seconds of mrc_perf over loopback: data verified end to end under the main options and
# impairments, and the failure paths answered with a clear error and a non-zero status (make udp-smoke).
#
#   tools/udp_smoke.sh [PATH_TO_MRC_PERF] [--quick]
#
# Nothing waits a fixed time for another process: a client starts once its server listens, the "port in use"
# server once the holder said "bound", and the server is killed once the client's progress shows bytes moving
# (udp_lib.sh's udp_wait).
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
    what=$(json_get "$TMP/t.client" '"%.2f Gb/s, %d msgs, %d rtx; receiver: %s" % (d["tx"]["gbps_avg"], d["tx"]["msgs"], d["mrc"]["rtx"], "ok" if d["mode"] == "mrc" and d["peer_result"]["ok"] is True else d["mode"])')
    if [ "$UP_CRC" = 0 ] && [ "$UP_SRC" = 0 ] && [ "$cok" = True ] && [ "$sok" = True ]; then
        ok "$name ($what)"
    else
        bad "$name (client rc $UP_CRC, server rc $UP_SRC)"
    fi
}

# tx_moving FILE: one of the client's progress lines in FILE ("0.05s tx 1.23 Gb/s ...") shows bytes being sent
tx_moving() { awk '$2 == "tx" && $3 > 0 { f = 1; exit } END { exit !f }' "$1" 2>/dev/null; }

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
    # planes modelled as 100 Mb/s links (as make demo), so that the goodput before the fault is the links' and the
    # verdict can tell; below 80% of the link model (a CPU-bound host, or the transport's window: the reason says
    # which) mrc_perf says INCONCLUSIVE, and so does this
    transfer "black-holed plane 5 at 300 ms, 64 EVs, 100 Mb/s per plane" "" \
        "-D 0.8 --evs 64 --blackhole-plane 5 --at 300 --plane-rate-mbps 100"
    # the failover figures: a timeline that starts at or after the fault (never "-1666 ms"), a verdict, null for never
    fo=$(json_get "$TMP/t.client" 'd["blackhole"]["verdict"] + " " + ("%.2f" % d["planes_detail"][4]["first_bad_after_fault_ms"] if d["planes_detail"][4]["first_bad_after_fault_ms"] is not None else "none") + " " + str(d["planes_detail"][4]["bad_before_fault"])')
    why=$(json_get "$TMP/t.client" 'd["blackhole"]["verdict_why"]')
    case "$fo" in
    OK\ [0-9]*) ok "black hole: OK, timeline from the fault ($fo: verdict, first EV marked bad ms after, marked before; $why)" ;;
    INCONCLUSIVE\ [0-9]*) ok "black hole: INCONCLUSIVE (the goodput figures cannot tell: $why); timeline from the fault ($fo)" ;;
    # a performance verdict, not the smoke's (which checks correctness: the transfer above verified the data): said
    # as it is, neither ok nor FAIL (a loaded host that is not CPU-bound before the fault can still be after it)
    DEGRADED\ [0-9]*) echo "note black hole: DEGRADED, not OK: $why ($fo: verdict, first EV marked bad ms after, marked before)" ;;
    *) bad "black hole: verdict and timeline ('$fo')" ;;
    esac
    # the CPU shares the verdict's reason rests on: each a share of one CPU's time, from /proc/self/schedstat (0 or
    # null only where the kernel does not say)
    cpu=$(json_get "$TMP/t.client" '"%s %s" % (d["blackhole"]["cpu_wanted_before"], d["peer_result"]["cpu_wanted_ppm"])')
    if [ ! -r /proc/self/schedstat ]; then
        echo "skip black hole: CPU shares (no /proc/self/schedstat)"
    elif awk -v a="${cpu% *}" -v b="${cpu#* }" 'BEGIN { exit !(a > 0 && a <= 1.05 && b > 0 && b <= 1050000) }'; then
        ok "black hole: CPU wanted before the fault ${cpu% *} (this process), ${cpu#* } ppm of its run (the peer)"
    else bad "black hole: CPU shares out of range ('$cpu')"; fi
    if python3 -c 'import socket; s=socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.bind(("::1", 0))' 2>/dev/null; then
        rm -f "$TMP"/*
        udp_pair "$TMP/t" "-6 --json" "-6 -n 300 -s 8000 --json" ::1
        if [ "$UP_CRC" = 0 ] && [ "$UP_SRC" = 0 ] && [ "$(json_get "$TMP/t.client" 'd["family"] + str(d["ok"])')" = ipv6True ]; then
            ok "IPv6 loopback, 300 x 8000 B"
        else bad "IPv6 loopback (client rc $UP_CRC, server rc $UP_SRC)"; fi
    else
        echo "skip IPv6 loopback (no ::1)"
    fi
    transfer "raw UDP baseline" "" "--raw -D 0.3"
    # the server learns the client's --seed from the hello line: its verification pattern must follow it
    transfer "client --seed 7 (the server verifies against the client's pattern)" "" "-n 200 -s 65536 --seed 7"
    # usage errors come before any socket: well within 2 s even on a loaded host (up to 0.23 s seen with both cores
    # busy), where waiting on the network would take the 5 s connect timeout or for ever (a server)
    expect_fail "unknown option" 2 "unknown option" 2000 "$PERF" --no-such-flag
    expect_fail "bad value" 2 "needs an integer" 2000 "$PERF" -s 0 127.0.0.1
    # the 3 s limit proves that --connect-timeout 0.5 was honoured (the default is 5 s)
    udp_ports
    expect_fail "nobody listening" 1 "cannot connect" 3000 "$PERF" 127.0.0.1 -p "$UP_TCP" --connect-timeout 0.5
    # a port in use: a UDP socket holds the server's plane-1 receive port. The holder says "bound" once it holds it,
    # and only then is the server started (the holder ends when killed, or after 120 s should this script die).
    udp_ports
    rm -f "$TMP"/*
    python3 -u -c "import socket,time; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', $UP_DATA)); print('bound'); time.sleep(120)" \
        >"$TMP/hold.out" 2>"$TMP/hold.err" &
    hold=$!
    if udp_wait "the port holder binding UDP port $UP_DATA" "$hold" udp_line "$TMP/hold.out" '^bound$'; then
        expect_fail "UDP port in use" 1 "Address already in use" 3000 "$PERF" -p "$UP_TCP" --udp-port "$UP_DATA" \
            --ev-port "$UP_EVS" --accept-timeout 10
    else
        bad "UDP port in use ($UP_ERR)"
    fi
    kill $hold 2>/dev/null
    wait $hold 2>/dev/null
    # the server dies in the middle of a run: killed once the client's progress lines show bytes moving; the client
    # must then fail at once (within 3 s of the kill) with a clear line
    rm -f "$TMP"/*
    # (in a subshell that waits for it, so that the shell does not report the killed job)
    ( udp_server "$TMP/k" "" || { echo "udp-smoke: $UP_ERR" >>"$TMP/k.server.err"; exit 1; }
      echo "$UP_SPID $UP_TCP $UP_EVC" >"$TMP/srv.pid.tmp" && mv "$TMP/srv.pid.tmp" "$TMP/srv.pid"
      wait ) 2>/dev/null &
    sub=$!
    if udp_wait "the mrc_perf server listening" "$sub" test -s "$TMP/srv.pid"; then
        read -r spid UP_TCP UP_EVC <"$TMP/srv.pid"
        timeout 20 "$PERF" 127.0.0.1 -p "$UP_TCP" --ev-port "$UP_EVC" -D 10 --connect-timeout 30 --report-every 50 \
            >"$TMP/k.client" 2>"$TMP/f.err" &
        cpid=$!
        if udp_wait "the client's progress showing bytes sent" "$cpid" tx_moving "$TMP/k.client"; then
            t0=${EPOCHREALTIME/./}
            kill -9 "$spid"
            wait $cpid
            rc=$?
            dt=$(((${EPOCHREALTIME/./} - t0) / 1000))
            if [ "$rc" = 1 ] && grep -q "peer closed the control connection" "$TMP/f.err" && [ "$dt" -le 3000 ]; then
                ok "server killed mid-run (exit $rc ${dt} ms after the kill: $(head -1 "$TMP/f.err"))"
            else
                bad "server killed mid-run (exit $rc ${dt} ms after the kill, wanted 1 within 3000 ms: $(head -1 "$TMP/f.err"))"
            fi
        else
            bad "server killed mid-run ($UP_ERR)"
            kill "$cpid" "$spid" 2>/dev/null
        fi
    else
        bad "server killed mid-run ($UP_ERR)"
    fi
    wait 2>/dev/null
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
