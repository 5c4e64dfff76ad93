#!/bin/sh
# frame_cost.sh MRC_FRAME_TEST - instructions per frame of the shared frame codec, from callgrind (make frame-cost).
# Frames 10000 packets of each kind and reports, per packet: mrc_frame_write_hdr (Ethernet/IP/UDP header),
# mrc_frame_icrc (the RoCEv2 ICRC over headers + payload, slice-by-8; per call), mrc_frame_parse (every check,
# the ICRC check included).
# Installs valgrind with apt-get when it is missing and this is root; otherwise skips with a line.
T=${1:-build/mrc_frame_test}
N=10000
command -v valgrind >/dev/null || { [ "$(id -u)" = 0 ] && apt-get install -y -qq valgrind >/dev/null 2>&1; }
command -v valgrind >/dev/null || { echo "frame-cost: SKIP: no valgrind (apt-get install valgrind)"; exit 0; }
D=${OUT:-build/frame_cost}
mkdir -p "$D"
for kind in 0 1; do
    name=$([ $kind = 0 ] && echo "4 KiB data packet (IPv4)" || echo "SACK-sized control packet (IPv4, 48 B MRC)")
    line="frame-cost: $name:"
    for fn in mrc_frame_write_hdr mrc_frame_icrc mrc_frame_parse; do
        valgrind --tool=callgrind --callgrind-out-file="$D/cg.$kind.$fn" --toggle-collect="$fn" "$T" --cost $N $kind \
            >/dev/null 2>&1 || { echo "frame-cost: callgrind failed"; exit 1; }
        ir=$(grep '^summary:' "$D/cg.$kind.$fn" | awk '{print $2}')
        # the ICRC runs twice per packet (built on transmit, checked inside mrc_frame_parse): per call
        [ $fn = mrc_frame_icrc ] && ir=$((ir / 2))
        line="$line $fn $((ir / N))"
    done
    echo "$line instructions per packet (parse includes its ICRC check)"
done
