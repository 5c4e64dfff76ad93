#!/bin/bash
# udp_demo.sh - make demo-udp: an mrc_perf server and client on loopback move data for a few seconds over 8 planes
# x 16 EVs; halfway through, the client's built-in impairment black-holes plane 3 in both directions (every
# datagram either side sends on it is silently dropped). Prints a progress line every 250 ms (Gb/s, retransmissions,
# good/bad EVs per plane), then the perftest-style table with the goodput before and after the black hole, the dip,
# how fast the plane's EVs were marked bad, and the receiver's bit-exact verification of every byte.
#
# The planes are modelled as links (--plane-rate-mbps: each plane serializes at RATE Mb/s behind a 256 KiB queue,
# like a NIC port at line rate), so that the bottleneck is the planes and not the host's CPU: losing one of 8 then
# costs 1/8 of the capacity, and anything beyond that share is the protocol's doing. Total under 15 s.
# The client captures every MRC packet it sends and receives (mrc_perf --pcap, the first 128 bytes of each frame)
# into demo.pcap beside mrc_perf (build/demo.pcap), for Wireshark / tshark with tools/wireshark/mrc.lua.
#
#   tools/udp_demo.sh [PATH_TO_MRC_PERF]       (environment: RATE per-plane Mb/s (100), SECS (4), AT_MS (2000),
#                                               PCAP (the capture; empty: none))
set -u
PERF=${1:-build/mrc_perf}
RATE=${RATE:-100}
SECS=${SECS:-4}
AT_MS=${AT_MS:-2000}
PCAP=${PCAP-$(dirname "$PERF")/demo.pcap}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=udp_lib.sh
. "$HERE/udp_lib.sh"
[ -x "$PERF" ] || { echo "demo-udp: $PERF not built"; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/udp_demo.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
echo "demo-udp: mrc_perf over loopback, 8 planes x 16 EVs (UDP source ports), each plane a ${RATE} Mb/s link;"
echo "          plane 3 is black-holed (both directions, silently) at ${AT_MS} ms of a ${SECS} s run"
# the server first; the client once it listens (udp_server returns then)
if ! udp_server "$TMP/demo" ""; then
    echo "demo-udp: FAILED: $UP_ERR"
    cat "$TMP/demo.server.err"
    exit 1
fi
spid=$UP_SPID
"$PERF" 127.0.0.1 -p "$UP_TCP" --ev-port "$UP_EVC" --connect-timeout 30 -D "$SECS" --planes 8 --evs 128 \
    --plane-rate-mbps "$RATE" --blackhole-plane 3 --at "$AT_MS" --report-every 250 \
    ${PCAP:+--pcap "$PCAP" --pcap-snap 128} 2>"$TMP/client.err" | tee "$TMP/client.out"
crc=${PIPESTATUS[0]}
wait $spid
src=$?
grep -v " captured in " "$TMP/client.err" >&2
if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
    echo "demo-udp: FAILED (client exit $crc, server exit $src)"
    cat "$TMP/demo.server.err"
    exit 1
fi
retained=$(sed -n 's/.*(\([0-9.]*\)% retained.*/\1/p' "$TMP/client.out")
# mrc_perf's own verdict on the failover (examples/perf_report.h): OK, DEGRADED, or INCONCLUSIVE when the goodput
# before the fault was not the links' (above 100% retained, or far below the link model; its reason says whether the
# host's CPU or the transport's window held it back, from how much of the time the two processes wanted a CPU)
fo=$(sed -n 's/^ failover verdict: \([A-Z]*\): \(.*\)/\1/p' "$TMP/client.out")
fo_why=$(sed -n 's/^ failover verdict: [A-Z]*: \(.*\)/\1/p' "$TMP/client.out")
if grep -q "verified bit-exact" "$TMP/client.out" && grep -q "bit-exact" "$TMP/demo.server"; then
    verdict="data bit-exact at the receiver"
else
    echo "demo-udp: FAILED: the receiver did not verify the data"
    exit 1
fi
case "$fo" in
OK) echo "demo-udp: OK: $verdict; $fo_why" ;;
INCONCLUSIVE) echo "demo-udp: INCONCLUSIVE: $verdict; the failover figures cannot tell: $fo_why" ;;
DEGRADED) echo "demo-udp: DEGRADED: $verdict; but $fo_why: a loaded host? (the 10 ms series is in the --json output)" ;;
*) echo "demo-udp: FAILED: mrc_perf printed no failover verdict (retained '${retained}')"; exit 1 ;;
esac
if [ -n "$PCAP" ] && [ -s "$PCAP" ]; then
    echo "demo-udp: the client's packets are in $PCAP ($(sed -n 's/.*: \([0-9]*\) packets .*/\1/p' "$TMP/client.err")" \
        "packets, first 128 bytes of each): tshark -X lua_script:tools/wireshark/mrc.lua -r $PCAP" \
        "(Wireshark: copy tools/wireshark/mrc.lua into ~/.local/lib/wireshark/plugins/)"
fi
exit 0
