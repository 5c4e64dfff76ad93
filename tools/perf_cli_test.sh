#!/bin/bash
# perf_cli_test.sh - mrc_perf's perftest (ib_write_bw) interface and its report's figures (make perf-cli-test, part of
# make test; about 5 s):
#   1. the command line: perftest's flags accepted, what MRC cannot do refused with the reason, contradictions (-n with
#      -D, -a with -s) an error, bad input a clear line and exit 2, never a crash; -V / --version;
#   2. short loopback runs, the table and the JSON of each checked: perftest's columns (MB/sec by default, Gb/sec
#      with --report_gbits, the two agreeing), BW peak never below BW average, the retransmission lines adding up,
#      the --raw row counting datagrams of MTU bytes, the JSON structured (peer_result an object, null for never)
#      and --out_json_file written; -a (the size sweep) over a few sizes with -n 20.
# Nothing waits a fixed time: each client starts once its server listens (tools/udp_lib.sh).
#
#   tools/perf_cli_test.sh [PATH_TO_MRC_PERF]       last line: "perf-cli-test: N passed, N failed"
set -u
PERF=${1:-build/mrc_perf}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=udp_lib.sh
. "$HERE/udp_lib.sh"
[ -x "$PERF" ] || { echo "perf-cli-test: $PERF not built"; exit 1; }
command -v python3 >/dev/null || { echo "perf-cli-test: SKIP: python3 is needed to read the JSON"; exit 0; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/perf_cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# usage NAME WANT_RC PATTERN ARGS...: exits WANT_RC (2: a usage error) with a line on stderr matching PATTERN
usage() {
    local name=$1 want=$2 pat=$3 rc
    shift 3
    timeout 10 "${BIN:-$PERF}" "$@" >"$TMP/u.out" 2>"$TMP/u.err"
    rc=$?
    if [ "$rc" = "$want" ] && grep -q -- "$pat" "$TMP/u.err" "$TMP/u.out"; then ok "$name (exit $rc: $(head -1 "$TMP/u.err" "$TMP/u.out" | grep -v '^==' | grep . | head -1))"
    else bad "$name (exit $rc, wanted $want and '$pat': $(head -2 "$TMP/u.err"))"; fi
}

# 1. the command line
usage "-V" 0 "^mrc_perf [0-9.]* (open MRC" -V
usage "--version" 0 "wire version" --version
usage "-n with -D" 2 "contradict each other" 127.0.0.1 -n 5 -D 2
usage "-a with -s" 2 "contradict each other" 127.0.0.1 -a -s 4096
usage "--run_infinitely with -n" 2 "contradict each other" 127.0.0.1 --run_infinitely -n 5
usage "-R (rdma_cm)" 2 "rdma_cm is not supported" -R
usage "-c UD" 2 "only -c RC is accepted" -c UD 127.0.0.1
usage "--verb read" 2 "SEND, READ and atomics are not in its protocol" --verb=read 127.0.0.1
usage "-A (atomics)" 2 "READ and atomics are not in its protocol" -A CMP_AND_SWAP
usage "-T out of range" 2 "needs an integer in 0..255" -T 300 127.0.0.1
usage "-i 2 on UDP" 2 "one port per plane" -i 2 127.0.0.1
usage "-d a missing device" 2 "needs a device" -d
usage "a flag given a value" 2 "takes no value" --report_gbits=1
usage "--out_json_file without a name" 2 "needs a file name" --out_json_file=
usage "'--' with nothing before it" 2 "no EAL options before it" -- -s 4096
usage "unknown option" 2 "unknown option" --no-such-flag
if cp "$PERF" "$TMP/ib_read_bw" 2>/dev/null; then BIN=$TMP/ib_read_bw usage "run as ib_read_bw" 2 "SEND, READ and atomics" 127.0.0.1; fi
# perftest's accepted spellings parse (a server that gives up at once: no client)
usage "perftest flags parse (-F -x 3 -S 0 -T 105 -c RC -i 1 --report_gbits -d udp)" 1 "no client within" \
    -F -x 3 -S 0 -T 105 -c RC -i 1 --report_gbits -d udp -p 1 --accept-timeout 0.01

# 2. runs on loopback
# row FILE: the numbers of the table's result row (bytes iters peak avg mpps) and its header's unit
row() { awk '/#bytes/ { u = $0; sub(/.*BW average\[/, "", u); sub(/\].*/, "", u); getline; print $1, $2, $3, $4, $5, u; exit }' "$1"; }
udp_pair "$TMP/a" "" "-s 8K -n 400 --out_json_file $TMP/a.json"
read -r by it pk av mr unit <<<"$(row "$TMP/a.client")"
if [ "$UP_CRC" = 0 ] && [ "$UP_SRC" = 0 ] && [ "$unit" = "MB/sec" ] && [ "$by" = 8192 ] && [ "$it" = 400 ] &&
    awk -v p="$pk" -v a="$av" 'BEGIN { exit !(a > 0 && p >= a) }'; then
    ok "-s 8K -n 400: MB/sec by default, peak $pk >= average $av"
else bad "-s 8K -n 400 (rc $UP_CRC/$UP_SRC): row '$by $it $pk $av $mr' unit '$unit'"; fi
# the retransmission lines each add up
if awk '/data packets sent/ { n++; if ($5 != $8 + $11) bad = 1 }
        /PSNs declared lost/ { n++; if ($5 != $9 + $12 + $15 + $18) bad = 1 }
        END { exit !(n == 2 && !bad) }' "$TMP/a.client"; then ok "the retransmission lines add up"
else bad "the retransmission lines: $(grep ' MRC: ' "$TMP/a.client")"; fi
# --out_json_file: structured; the MB/sec of the table is the JSON's Gb/s
if out=$(python3 - "$TMP/a.json" "$av" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).readline())
pr = d["peer_result"]
assert isinstance(pr, dict) and pr["ok"] is True and pr["msgs"] == 400, "peer_result %r" % (pr,)
for p in d["planes_detail"]:
    assert p["first_bad_ms"] is None or isinstance(p["first_bad_ms"], float), p
    assert all(not isinstance(v, str) or k in ("error",) for k, v in p.items()), p
assert d["tx"]["gbps_peak"] >= d["tx"]["gbps_avg"] > 0, d["tx"]
mbs = d["tx"]["gbps_avg"] * 1e9 / 8 / 1048576
assert abs(mbs - float(sys.argv[2])) <= 0.01 * mbs + 0.01, (mbs, sys.argv[2])
print("peer_result %s, gbps_avg %.3f = %.2f MB/sec" % (json.dumps(pr)[:60], d["tx"]["gbps_avg"], mbs))
PY
); then ok "--out_json_file: $out"; else bad "--out_json_file: $out"; fi
# --report_gbits, --json to stdout: structured, peak >= average
udp_pair "$TMP/b" "--json" "--json --report_gbits -s 64K -n 200 -q 2 -b"
if [ "$UP_CRC" = 0 ] && [ "$UP_SRC" = 0 ] && out=$(python3 - "$TMP/b.client" "$TMP/b.server" <<'PY'
import json, sys
for f in sys.argv[1:]:
    d = json.loads([l for l in open(f) if l.startswith("{")][0])
    assert d["ok"] is True and isinstance(d["peer_result"], dict), f
    assert d["tx"]["gbps_peak"] >= d["tx"]["gbps_avg"], d["tx"]
    assert d["tos"] is None, d["tos"]
print("ok")
PY
); then ok "-b --report_gbits --json: both sides structured, peak >= average"; else bad "-b --json: $out"; fi
udp_pair "$TMP/g" "" "--report_gbits -s 4K -n 300 -T 105"
read -r by it pk av mr unit <<<"$(row "$TMP/g.client")"
if [ "$UP_CRC" = 0 ] && [ "$unit" = "Gb/sec" ]; then ok "--report_gbits -T 105: Gb/sec ($av)"; else bad "--report_gbits (rc $UP_CRC, unit '$unit')"; fi
# --raw: one row per datagram of MTU bytes (it once said 65536 for 4 KiB datagrams)
udp_pair "$TMP/r" "" "--raw -n 50 -m 4096"
read -r by it pk av mr unit <<<"$(row "$TMP/r.client")"
if [ "$UP_CRC" = 0 ] && [ "$by" = 4096 ] && awk -v p="$pk" -v a="$av" 'BEGIN { exit !(p >= a) }'; then
    ok "--raw: the row counts $it datagrams of $by B"
else bad "--raw (rc $UP_CRC): row '$by $it $pk $av'"; fi
# -a: the sweep, both sides -a; cut short here with -n 20 and a small MTU so that the 8 MiB end stays quick
udp_pair "$TMP/s" "-a" "-a -n 20"
# A row's rate is checked on its message rate (6 decimals): 20 messages of 2 B on a busy host can print an average
# of 0.00 MB/sec, perftest's two decimals, which is a rounding and not a missing figure.
rows=$(awk '/#bytes/ { h++; next } h && $1 ~ /^[0-9]+$/ && NF == 5 { n++; if ($1 != 2 ^ n || $5 <= 0 || $3 < $4) bad = 1 }
            END { print (bad ? -1 : n) + 0, h + 0 }' "$TMP/s.client")
if [ "$UP_CRC" = 0 ] && [ "$UP_SRC" = 0 ] && [ "$rows" = "23 1" ]; then ok "-a: 23 rows, 2 B .. 8 MiB, one header"
else
    bad "-a (rc $UP_CRC/$UP_SRC): rows/headers '$rows'"
    awk '/#bytes/ { h = 1 } h' "$TMP/s.client"
    tail -n 3 "$TMP/s.client.err" "$TMP/s.server.err"
fi
# --run_infinitely: a row every -D seconds until SIGINT, then the run drains, is verified and reported (exit 0)
inf_rows() { [ "$(awk '$1 == 65536 && NF == 5' "$1" 2>/dev/null | wc -l)" -ge 2 ]; }
rm -f "$TMP"/i.*
if udp_server "$TMP/i" ""; then
    "$PERF" 127.0.0.1 -p "$UP_TCP" --ev-port "$UP_EVC" --connect-timeout 30 --run_infinitely -D 0.2 \
        >"$TMP/i.client" 2>"$TMP/i.client.err" &
    ipid=$!
    if udp_wait "two --run_infinitely rows" "$ipid" inf_rows "$TMP/i.client"; then
        kill -INT "$ipid"
        wait "$ipid"
        irc=$?
        wait "$UP_SPID"
        isrc=$?
        if [ "$irc" = 0 ] && [ "$isrc" = 0 ] && grep -q "verified bit-exact" "$TMP/i.client"; then
            ok "--run_infinitely -D 0.2: rows every 0.2 s, SIGINT ends it verified ($(awk '$1 == 65536 && NF == 5' "$TMP/i.client" | wc -l) rows)"
        else bad "--run_infinitely: client exit $irc, server exit $isrc: $(head -2 "$TMP/i.client.err")"; fi
    else
        bad "--run_infinitely ($UP_ERR)"
        kill "$ipid" "$UP_SPID" 2>/dev/null
    fi
else bad "--run_infinitely: $UP_ERR"; fi
echo "perf-cli-test: $pass passed, $fail failed"
[ $fail = 0 ]
