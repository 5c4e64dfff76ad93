# udp_lib.sh - shell helpers shared by tools/udp_smoke.sh, tools/udp_demo.sh and tools/bench_udp.sh (sourced).
#
# Every run picks its own ports from a random base so that concurrent runs on one host do not collide:
#   side channel TCP $UP_TCP, server UDP receive ports $UP_DATA.., server EV ports $UP_EVS.., client EV ports $UP_EVC..

udp_ports() {
    # below Linux's default ephemeral range (32768-60999), where nothing else is handed out automatically
    local base=$((10000 + (RANDOM % 170) * 128))
    UP_TCP=$base
    UP_DATA=$((base + 1))
    UP_EVS=$((base + 16))
    UP_EVC=$((base + 16 + 256 + 16))
}

# udp_pair OUTPREFIX "server args" "client args": runs a server and a client on loopback; the server's stdout goes
# to OUTPREFIX.server, the client's to OUTPREFIX.client (stderr to .err files). Sets UP_SRC and UP_CRC (exit codes).
udp_pair() {
    local out=$1 sargs=$2 cargs=$3 spid
    udp_ports
    # shellcheck disable=SC2086
    "$PERF" -p "$UP_TCP" --udp-port "$UP_DATA" --ev-port "$UP_EVS" --accept-timeout 10 $sargs \
        >"$out.server" 2>"$out.server.err" &
    spid=$!
    # shellcheck disable=SC2086
    "$PERF" 127.0.0.1 -p "$UP_TCP" --ev-port "$UP_EVC" --connect-timeout 5 $cargs >"$out.client" 2>"$out.client.err"
    UP_CRC=$?
    wait "$spid"
    UP_SRC=$?
}

# json_get FILE EXPR: a Python expression over the JSON object d of the first line of FILE that starts with '{'
json_get() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
d = None
try:
    for line in open(sys.argv[1]):
        if line.startswith("{"):
            d = json.loads(line)
            break
except OSError:
    pass
try:
    print(eval(sys.argv[2], {"d": d}) if d is not None else "")
except Exception:
    print("")
EOF
}
