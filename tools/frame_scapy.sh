#!/bin/sh
# frame_scapy.sh MRC_FRAME_TEST [PYTHON] - the frame codec checked by Scapy both ways (make frame-scapy).
# Skips (exit 0, one line) when PYTHON (default /usr/bin/python3, which sees Debian's python3-scapy) cannot import
# scapy.contrib.roce. Last line: "N passed, N failed".
T=${1:-build/mrc_frame_test}
PY=${2:-/usr/bin/python3}
HERE=$(cd "$(dirname "$0")" && pwd)
D=${OUT:-build/frame_scapy}
if ! "$PY" -c 'import scapy.contrib.roce, scapy.layers.inet6' 2>/dev/null; then
    echo "frame-scapy: SKIP: $PY cannot import scapy.contrib.roce (apt-get install python3-scapy)"
    exit 0
fi
mkdir -p "$D" || exit 1
"$T" --gen "$D/codec.pcap" "$D/codec.txt" >/dev/null || { echo "frame-scapy: codec could not write frames"; exit 1; }
"$PY" "$HERE/frame_scapy.py" verify "$D/codec.pcap" "$D/codec.txt" > "$D/verify.log" 2>&1; r1=$?
"$PY" "$HERE/frame_scapy.py" build "$D/scapy.pcap" "$D/scapy.txt" > "$D/build.log" 2>&1 || { cat "$D/build.log"; exit 1; }
"$T" --check "$D/scapy.pcap" "$D/scapy.txt" > "$D/check.log" 2>&1; r2=$?
grep -v '^[0-9]* passed' "$D/verify.log"
grep -v '^[0-9]* passed' "$D/check.log"
p=$(cat "$D/verify.log" "$D/check.log" | grep -c '^ok - ')
f=$(cat "$D/verify.log" "$D/check.log" | grep -c '^FAIL - ')
[ $r1 -ne 0 ] && [ "$f" -eq 0 ] && { f=1; echo "FAIL - scapy verify exited $r1"; cat "$D/verify.log"; }
[ $r2 -ne 0 ] && [ "$f" -eq 0 ] && { f=1; echo "FAIL - codec check exited $r2"; }
echo "frame-scapy: $p passed, $f failed"
[ "$f" -eq 0 ]
