#!/bin/bash
# dissector_test.sh - make dissector-test: the Wireshark dissector (tools/wireshark/mrc.lua) checked by tshark against
# the core's own decoder, on captures from every carrier we can run here:
#   gen      build/mrc_pcap gen: one packet of every kind, encoded with mrc.h's encoders (every opcode, every NACK
#            reason, every AETH syndrome, probes, both endpoint operations each way, IPv6 STEV, 802.1Q, SRv6 + SRH,
#            a cut packet, a bad ICRC, two IBTA RoCEv2 packets); again with the other wire-layout choices
#            (gen-alt: BTH m bit 6, EETH op at bits 5:4, MSB-first SACK bitmap) and the dissector's matching
#            preferences
#   sim      the simulator's --pcap (sim/mrc_simrun q_faults, host 0: loss, trims, probes, a port down)
#   udp-*    mrc_perf --pcap over loopback UDP, client and server side (trims, drops, Write-with-Immediate)
# tools/wireshark/dissector_check.py compares tshark -T fields with `mrc_pcap dump` (mrc_frame_parse + mrc_pkt_decode)
# frame by frame and field by field, and checks that the captures together hold every MRC opcode, every NACK reason,
# a probe, both endpoint operations and a transport ACK. Then the garbage corpus (mrc_pcap garbage: the
# fuzz/corpus/decode packets whole, cut at every length, cut by the snapshot length, mutated, and random MRC-opcode
# packets): no Lua error ever, Malformed expert info on every frame the core rejects.
#
# Needs tshark (CI has Debian 12's 4.0): installed with apt-get when missing and root, else
# a SKIP line. Runs in well under a minute.
set -u
B=${B:-build}
TSHARK=${TSHARK:-tshark}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUT=$B/dissector

if ! command -v "$TSHARK" >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "dissector-test: tshark not found; installing it (apt-get install -y tshark)"
    echo 'wireshark-common wireshark-common/install-setuid boolean false' | debconf-set-selections 2>/dev/null
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark; }; } >/dev/null 2>&1 ||
        echo "dissector-test: apt-get install tshark failed"
fi
if ! command -v "$TSHARK" >/dev/null 2>&1; then
    echo "dissector-test: SKIP: tshark is not installed (Debian: apt-get install tshark)"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "dissector-test: SKIP: python3 is not installed"
    exit 0
fi
for bin in "$B/mrc_pcap" "$B/sim/mrc_simrun" "$B/mrc_perf"; do
    [ -x "$bin" ] || { echo "dissector-test: FAIL: $bin not built"; exit 1; }
done
echo "dissector-test: $("$TSHARK" --version 2>/dev/null | head -1)"
rm -rf "$OUT"
mkdir -p "$OUT"

# ---- captures ----
"$B/mrc_pcap" gen "$OUT/gen.pcap" 2>/dev/null || { echo "dissector-test: FAIL: mrc_pcap gen"; exit 1; }
ALT="--bth-m-bit 6 --eeth-op-shift 4 --sack-msb-first"
# shellcheck disable=SC2086
"$B/mrc_pcap" gen $ALT "$OUT/gen-alt.pcap" 2>/dev/null || { echo "dissector-test: FAIL: mrc_pcap gen $ALT"; exit 1; }
"$B/mrc_pcap" garbage "$ROOT/fuzz/corpus/decode" "$OUT/garbage.pcap" 2>/dev/null ||
    { echo "dissector-test: FAIL: mrc_pcap garbage"; exit 1; }
"$B/sim/mrc_simrun" --scenario q_faults --pcap "$OUT/sim.pcap" --pcap-hosts 0 --quiet >"$OUT/sim.out" 2>&1 ||
    { cat "$OUT/sim.out"; echo "dissector-test: FAIL: mrc_simrun --pcap"; exit 1; }

# two loopback transfers on ports of their own (tools/udp_lib.sh picks them), each side writing its --pcap:
# Write-with-Immediate messages of three packets, trims and drops (NACK TRIMMED, retransmissions, probes); then
# single-packet writes both ways
PERF=$B/mrc_perf
# shellcheck source=udp_lib.sh
. "$HERE/udp_lib.sh"
udp_run() { # NAME "client args"
    udp_pair "$OUT/$1" "--pcap $OUT/$1-server.pcap" "--pcap $OUT/$1-client.pcap $2"
    if [ "$UP_SRC" != 0 ] || [ "$UP_CRC" != 0 ]; then
        tail -n 5 "$OUT/$1.server.err" "$OUT/$1.client.err"
        echo "dissector-test: FAIL: the mrc_perf run $1 failed (server exit $UP_SRC, client exit $UP_CRC)"
        exit 1
    fi
}
udp_run udp1 "--imm -m 1024 -s 2500 -n 40 -t 4 --planes 2 --evs 4 --trim 30000 --drop 20000"
udp_run udp2 "--bidir -m 1024 -s 1000 -n 40 -t 4 --planes 4 --evs 8 --trim 20000"

# ---- the comparison ----
python3 "$HERE/wireshark/dissector_check.py" --tshark "$TSHARK" --lua "$HERE/wireshark/mrc.lua" --tool "$B/mrc_pcap" \
    --compare "gen=$OUT/gen.pcap" --compare "gen-alt=$OUT/gen-alt.pcap:$ALT" --compare "sim=$OUT/sim.pcap" \
    --compare "udp1-cli=$OUT/udp1-client.pcap" --compare "udp1-srv=$OUT/udp1-server.pcap" \
    --compare "udp2-cli=$OUT/udp2-client.pcap" --compare "udp2-srv=$OUT/udp2-server.pcap" \
    --garbage "garbage=$OUT/garbage.pcap" --require-all
rc=$?
if [ $rc = 0 ]; then
    echo "dissector-test: OK (captures in $OUT)"
else
    echo "dissector-test: FAILED (captures in $OUT)"
fi
exit $rc
