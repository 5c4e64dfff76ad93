#!/usr/bin/env bash
# bench/bench.sh - make bench: the performance record of the core (bench/README.md explains every column).
#
#   1. instructions per data packet: each stream of build/mrc_bench (default capacities) and build/mrc_bench_large
#      (1,024 QPs, 1,024 WRs, 4,096-PSN window) runs once under callgrind, counting only inside the bench_* phase
#      wrappers; bench/cg_fold.awk folds each callgrind.out, `mrc_bench report` divides by the packets it counted
#   2. the reconciliation: the streams the targets name (clean, sack8) run again as plain transfers under
#      `callgrind --toggle-collect=mrc_endpoint_recv --toggle-collect=mrc_endpoint_poll_tx`: callgrind's total per data
#      packet must be the table's ALL-IN (+ copy) within 2% (else a FAIL line, and exit 1 at the end); and the same
#      measurement over `build/demo -m 16 -l 0 -t 0 -j 0 -q`, printed beside it
#   3. the targets (issue 36) beside the figures, and the firmware figures (`make -s firmware-bench`, when the
#      Makefile has that target) beside x86-64's: reported, never asserted
#   4. the P37 bursts beside single calls (bench/burst.c), then the targets' four streams by mechanism
#      (bench/mechanisms.py: each instruction charged to what its code does; the mechanisms must add up to ALL-IN)
#   5. ns per data packet: `mrc_bench time`, median of REPS (7) wall-clock transfers, a 4 KiB memcpy as the yardstick
#   6. the EV-pick micro-bench (bench/ev_pick.c)
# Every result is also a JSON line in $B/bench/bench.json. Needs the binaries `make bench` builds first.
set -euo pipefail

B=${B:-build}
CC=${CC:-cc}
REPS=${REPS:-7}
OUT=$B/bench
JSON=$OUT/bench.json
BIN=$B/mrc_bench
BINL=$B/mrc_bench_large
HERE=$(cd "$(dirname "$0")" && pwd)

for f in "$BIN" "$BINL" "$B/demo" "$B/bench_ev_pick"; do
    [ -x "$f" ] || { echo "bench: $f is missing: run make bench" >&2; exit 1; }
done
mkdir -p "$OUT"
rm -f "$OUT"/*.counts "$OUT"/*.ir "$OUT"/*.log "$OUT"/cg.*.out "$OUT"/firmware.out "$JSON"
t_start=$(date +%s)
recon_fail=0

json_str() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
commit=$(git -C "$HERE/.." rev-parse HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$HERE/.." status --porcelain -- mrc.h 2>/dev/null | head -1)
ccv=$($CC --version 2>/dev/null | head -1 || echo "$CC")
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || uname -m)
printf '{"bench":"meta","commit":"%s","mrc_h_modified":%s,"cc":"%s","cflags":"-std=c99 -O2 -g","cpu":"%s",%s}\n' \
    "$commit" "$([ -n "$dirty" ] && echo true || echo false)" "$(json_str "$ccv")" "$(json_str "$cpu")" \
    "\"cores\":$(nproc 2>/dev/null || echo 0),\"date\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"" >> "$JSON"
echo "== make bench: commit ${commit:0:12}$([ -n "$dirty" ] && echo ' (mrc.h modified)'), $ccv, $cpu"

# ---- instructions (callgrind) ----
if ! command -v valgrind >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bench: valgrind not found; installing it (apt-get install -y valgrind)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind; } >/dev/null 2>&1 ||
        echo "bench: apt-get install valgrind failed"
fi
if command -v valgrind >/dev/null 2>&1; then
    cg() { # cg NAME LOG-FILE -- COMMAND...: one callgrind run, folded into $OUT/NAME.ir
        local name=$1 log=$2
        shift 3
        if ! valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.$name.out" --separate-callers=8 \
            --compress-strings=no --compress-pos=no "$@" > "$log" 2>&1; then
            cat "$log" >&2
            echo "bench: FAIL: callgrind run of $name failed (log above)" >&2
            exit 1
        fi
        awk -f "$HERE/cg_fold.awk" "$OUT/cg.$name.out" > "$OUT/$name.ir"
    }
    echo "== callgrind: $($BIN list | wc -l) streams (default build) + $($BINL list | wc -l) (large build) + the demo"
    for bin in "$BIN" "$BINL"; do
        atstart=()
        case "$($bin features)" in *"callgrind_requests 1"*) atstart=(--instr-atstart=no) ;; esac
        for s in $($bin list); do
            cg "$s" "$OUT/$s.log" -- --toggle-collect='bench_*' ${atstart[@]+"${atstart[@]}"} "$bin" cg "$s" \
                "$OUT/$s.counts"
        done
    done
    for s in $($BIN list timed); do # what the wall-clock times, whole: the harness's share of it
        cg "$s.plain" "$OUT/$s.plain.log" -- --toggle-collect=transfer "$BIN" run "$s"
    done
    for s in $($BIN list reconcile); do # the reconciliation: the two API calls counted straight, no wrapper
        cg "$s.api" "$OUT/$s.api.log" -- --toggle-collect=mrc_endpoint_recv --toggle-collect=mrc_endpoint_poll_tx \
            "$BIN" run "$s"
    done
    cg demo "$OUT/demo.log" -- --toggle-collect=mrc_endpoint_recv --toggle-collect=mrc_endpoint_poll_tx \
        "$B/demo" -m 16 -l 0 -t 0 -j 0 -q
    if ! grep -q 'bit-exact' "$OUT/demo.log"; then
        cat "$OUT/demo.log" >&2
        echo "bench: FAIL: the demo transfer" >&2
        exit 1
    fi
    awk '/^data packets/ {print "data_pkts", $3}' "$OUT/demo.log" > "$OUT/demo.counts"
    "$BIN" report "$OUT" "$JSON" || recon_fail=1
else
    echo
    echo "== Instructions per data packet: SKIP: valgrind is not installed (apt-get install valgrind, as root);"
    echo "   the wall-clock table below is still measured"
    printf '{"bench":"instr","skipped":"valgrind not installed"}\n' >> "$JSON"
fi

# ---- firmware: instructions per data packet on Cortex-M4 and RV32 (QEMU), beside x86-64's ----
jget() { # jget JSON-LINE KEY -> the value of KEY in a flat JSON object (a string without its quotes), or nothing
    printf '%s\n' "$1" | sed -n 's/.*"'"$2"'":\("\([^"]*\)"\|\([^,}]*\)\).*/\2\3/p' | head -n 1
}
x86() { # x86 STREAM -> the stream's ALL-IN per data packet from this run's instr line, or nothing
    jget "$(grep -F '"bench":"instr","stream":"'"$1"'"' "$JSON" | head -n 1)" all_in
}
fw_line() { # fw_line TARGET -> the firmware line of TARGET (variant default, else the first), or nothing
    local l
    l=$(grep -F '"bench":"firmware"' "$OUT/firmware.out" 2>/dev/null | grep -F '"target":"'"$1"'"' || true)
    { printf '%s\n' "$l" | grep -F '"variant":"default"' || printf '%s\n' "$l"; } | grep . | head -n 1 || true
}
fw_missing() { # fw_missing TARGET -> the tools that target needs and this machine lacks (a hint for the SKIP line)
    local t miss=""
    case $1 in
    cortex-m4) for t in arm-none-eabi-gcc qemu-system-arm; do command -v $t >/dev/null 2>&1 || miss="$miss $t"; done ;;
    rv32) command -v qemu-system-riscv32 >/dev/null 2>&1 || miss="$miss qemu-system-riscv32"
        command -v riscv64-unknown-elf-gcc >/dev/null 2>&1 || command -v riscv32-unknown-elf-gcc >/dev/null 2>&1 ||
            command -v clang >/dev/null 2>&1 || miss="$miss riscv64-unknown-elf-gcc" ;;
    esac
    printf '%s' "${miss# }"
}
fw_fail=0
ROOT=$(cd "$HERE/.." && pwd)
echo
echo "== Instructions per 4 KiB data packet: x86-64 (callgrind) | Cortex-M4 (QEMU) | RV32 (QEMU); all-in, copy apart =="
fw_skip=()
if make --no-print-directory -C "$ROOT" -n firmware-bench >/dev/null 2>&1; then
    rc=0
    make -s --no-print-directory -C "$ROOT" B="$B" firmware-bench > "$OUT/firmware.out" 2>&1 || rc=$?
    if [ "$rc" != 0 ]; then
        tail -n 20 "$OUT/firmware.out" | sed 's/^/  | /'
        echo "  FAIL: make firmware-bench exited $rc (its last lines above)"
        fw_fail=1
    fi
    grep -F '"bench":"firmware"' "$OUT/firmware.out" >> "$JSON" || true
    for t in cortex-m4 rv32; do
        l=$(fw_line $t)
        if [ -z "$l" ]; then
            why=$(grep -i 'skip' "$OUT/firmware.out" | grep -i -e "$t" -e "${t%%-*}" | head -n 1 || true)
            miss=$(fw_missing $t)
            fw_skip+=("SKIP: $t: make firmware-bench gave no result for it${miss:+ (missing here: $miss)}${why:+; it said: $why}")
        elif [ "$(jget "$l" result)" != PASS ]; then
            echo "  FAIL: $t: make firmware-bench result \"$(jget "$l" result)\": $l"
            fw_fail=1
        fi
    done
else
    fw_skip+=("SKIP: Cortex-M4 and RV32: this Makefile has no firmware-bench target (firmware/ is not in this tree)")
fi
cell() { # cell VALUE [RESULT] -> a table cell: the value rounded, '-' when there is none, '(FAIL)' after a failure
    if [ -z "$1" ] || [ "$1" = null ]; then printf '%s' -; else printf '%.0f%s' "$1" "${2:+$([ "$2" = PASS ] || echo " ($2)")}"; fi
}
l_m4=$(fw_line cortex-m4)
l_rv=$(fw_line rv32)
printf '  %-26s %20s %18s %18s %10s\n' "SACK" "x86-64 (callgrind)" "Cortex-M4 (QEMU)" "RV32 (QEMU)" "target"
for spec in "per data packet:clean:sack1:800" "per 8 data packets:sack8:sack8:400"; do
    IFS=: read -r label stream key tgt <<< "$spec"
    vx=$(x86 "$stream")
    vm=$(jget "$l_m4" "instr_per_pkt_$key")
    vr=$(jget "$l_rv" "instr_per_pkt_$key")
    printf '  %-26s %20s %18s %18s %10s\n' "$label" "$(cell "$vx")" "$(cell "$vm" "$(jget "$l_m4" result)")" \
        "$(cell "$vr" "$(jget "$l_rv" result)")" "<= $tgt"
    printf '{"bench":"platforms","stream":"%s","unit":"instructions per data packet","x86_64":%s,"cortex_m4":%s,"rv32":%s,"target":%s}\n' \
        "$stream" "${vx:-null}" "${vm:-null}" "${vr:-null}" "$tgt" >> "$JSON"
done
for t in cortex-m4 rv32; do
    l=$(fw_line $t)
    if [ -n "$l" ]; then
        echo "  $t ($(jget "$l" variant)): flash $(jget "$l" flash) B, RAM $(jget "$l" ram) B, stack high water" \
            "$(jget "$l" stack_hw) B, $(jget "$l" result)"
    fi
done
for m in ${fw_skip[@]+"${fw_skip[@]}"}; do echo "  $m"; done
if [ -z "$(x86 clean)" ]; then echo "  SKIP: x86-64: no callgrind figures in this run (valgrind)"; fi

# ---- P37 bursts beside single calls (bench/burst.c) ----
BB=$B/bench_burst
if command -v valgrind >/dev/null 2>&1 && [ -x "$BB" ]; then
    echo
    echo "== P37 bursts: instructions per 4 KiB data packet, excl. the copy (callgrind over bench/burst.c's wrappers;"
    echo "   no link model: each side takes what has arrived, then sends until it has nothing; bench/README.md) =="
    printf '  %-46s %6s %8s %8s %8s %8s %8s %8s %8s\n' stream "SACKs" "A tx" "B rx" "B SACK" "A SACK" "other" "ALL-IN" \
        "harness"
    printf '  %-46s %6s %8s %8s %8s %8s %8s %8s %8s\n' "" "/pkt" "data" "data" "built" "proc." "" "" "(apart)"
    for s in $("$BB" list | cut -f1); do
        label=$("$BB" list | awk -F'\t' -v s="$s" '$1 == s {print $2}')
        if ! valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.burst_$s.out" --compress-strings=no \
            --compress-pos=no --separate-callers=8 --toggle-collect='bench_b_*' "$BB" "$s" > "$OUT/burst_$s.log" 2>&1 ||
            ! grep -q ' ok$' "$OUT/burst_$s.log"; then
            cat "$OUT/burst_$s.log" >&2
            echo "bench: FAIL: bench_burst $s (log above)" >&2
            exit 1
        fi
        awk -f "$HERE/cg_fold.awk" "$OUT/cg.burst_$s.out" > "$OUT/burst_$s.ir"
        awk -v s="$s" -v label="$label" -v json="$JSON" '
            FNR == NR { for (i = 1; i < NF; i++) if ($i == "data_pkts") n = $(i + 1); else if ($i == "sacks") k = $(i + 1)
                        next }
            $1 == "W" { w[$2] = $3 }
            $1 == "M" { m[$2] = $3 }
            $1 == "F" { own[$2] = $4 } # a wrapper'"'"'s own instructions: the harness (its loop over single calls)
            $1 == "T" { t = $2 }
            function core(x) { return (w[x] - m[x] - own[x]) / n }
            END {
                at = core("bench_b_a_tx"); br = core("bench_b_b_rx"); bt = core("bench_b_b_tx")
                ar = core("bench_b_a_rx"); ot = core("bench_b_misc"); all = at + br + bt + ar + ot
                h = own["bench_b_a_tx"] + own["bench_b_b_rx"] + own["bench_b_b_tx"] + own["bench_b_a_rx"] + own["bench_b_misc"]
                printf "  %-46s %6.3f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f\n", label, k / n, at, br, bt, ar, ot, all, h / n
                # the columns, the copies and the wrappers'"'"' own instructions must be every instruction callgrind
                # collected (only the wrappers are)
                cp = 0; for (x in m) if (x != "-") cp += m[x]
                if (t <= 0 || (all * n + cp + h - t) / t > 0.001 || (t - all * n - cp - h) / t > 0.001) {
                    printf "bench: FAIL: %s: the columns (%.0f + copy %.0f + harness %.0f) differ from callgrind'"'"'s total %.0f\n", \
                        s, all * n, cp, h, t > "/dev/stderr"; exit 1 }
                printf "{\"bench\":\"burst\",\"stream\":\"%s\",\"data_pkts\":%d,\"sacks_per_pkt\":%.4f,\"a_tx_data\":%.1f,\"b_rx_data\":%.1f,\"b_sack_built\":%.1f,\"a_sack_processed\":%.1f,\"other\":%.1f,\"all_in\":%.1f,\"payload_copy\":%.1f,\"harness\":%.1f}\n", \
                    s, n, k / n, at, br, bt, ar, ot, all, (m["bench_b_b_rx"] + m["bench_b_a_rx"]) / n, h / n >> json
            }' "$OUT/burst_$s.log" "$OUT/burst_$s.ir" || exit 1
    done
    echo "  (each row checked: its columns, the copies and the harness add up to callgrind's total for the run, within"
    echo "   0.1%. harness: the wrappers' own instructions, their loops over single calls; apart, as in the table above)"
    # issue 36's targets with the burst entry points: a32 is the SACK-per-packet regime (B answers each packet),
    # a32_b8 the SACK-per-8 one (B answers each burst of 8); the SACKs per packet the run saw are printed beside
    for tg in "a32 800 a SACK per packet" "a32_b8 400 a SACK per 8"; do
        set -- $tg
        l=$(grep -F '"bench":"burst","stream":"'"$1"'"' "$JSON" | tail -1)
        [ -n "$l" ] || continue
        awk -v l="$l" -v tgt="$2" -v what="${*:3}" 'BEGIN {
            n = split(l, f, /[,{}]/); for (i = 1; i <= n; i++) { split(f[i], kv, ":"); gsub(/"/, "", kv[1]); v[kv[1]] = kv[2] }
            printf "  target with bursts, %-24s %8.0f  (%.3f SACKs/pkt)  <= %d  %s\n", what, v["all_in"], v["sacks_per_pkt"],
                tgt, v["all_in"] <= tgt ? "met" : sprintf("not met (%.2fx the target)", v["all_in"] / tgt) }'
    done
    echo "  (A: the writer, B: the receiver. \"other\": timers and events of both. single calls are the clean stream's"
    echo "   regime without its 800 Gb/s pacing; with B in bursts its SACKs for one burst coalesce: see SACKs/pkt)"
else
    echo
    echo "== P37 bursts: SKIP: needs valgrind and $BB"
fi

# ---- by mechanism: where the instructions of the targets' four streams go (bench/mechanisms.py) ----
mech_fail=0
if command -v valgrind >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 && command -v addr2line >/dev/null 2>&1 &&
    [ -x "$BB" ]; then
    echo
    echo "== By mechanism: instructions per 4 KiB data packet, excl. the copy, each charged to what its code does"
    echo "   (approximate: by function, and in the fast paths' own bodies by source line; *: what issue 36's levers"
    echo "   address; the bounds: what is left if those cost nothing, or half; bench/README.md) =="
    for s in clean sack8 a32 a32_b8; do
        case $s in
        a32*) kind=burst bin=$BB toggles=(--toggle-collect='bench_b_*') run=("$BB" "$s") ;;
        *) kind=instr bin=$BIN run=("$BIN" cg "$s" "$OUT/mech_$s.counts") toggles=()
           for w in tx_data rx_data tx_sack rx_sack poll_idle_tx poll_idle_rx rx_trim tx_nack rx_nack tx_other \
               rx_other; do toggles+=(--toggle-collect="bench_$w"); done
           case "$($BIN features)" in *"callgrind_requests 1"*) toggles+=(--instr-atstart=no) ;; esac ;;
        esac
        l=$(grep -F '"bench":"'"$kind"'","stream":"'"$s"'"' "$JSON" | head -n 1) # its ALL-IN and data packets above
        allin=$(jget "$l" all_in) pk=$(jget "$l" data_pkts)
        if [ -z "$allin" ] || [ -z "$pk" ]; then echo "  $s: SKIP: no ALL-IN figure above"; continue; fi
        if ! valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.mech_$s.out" --dump-instr=yes \
            --compress-strings=no --compress-pos=no "${toggles[@]}" "${run[@]}" > "$OUT/mech_$s.log" 2>&1; then
            cat "$OUT/mech_$s.log" >&2
            echo "bench: FAIL: callgrind run of $s by mechanism (log above)" >&2
            exit 1
        fi
        python3 "$HERE/mechanisms.py" --bin "$bin" --pkts "$pk" --expect "$allin" --stream "$s" --json "$JSON" \
            "$OUT/cg.mech_$s.out" || mech_fail=1
    done
else
    echo
    echo "== By mechanism: SKIP: needs valgrind, python3, addr2line and $BB"
fi

# ---- wall-clock ----
"$BIN" time "$JSON" "$REPS"

# ---- EV pick micro-bench ----
echo
echo "== EV pick micro-bench (bench/ev_pick.c: mrc__ev_pick alone, wall-clock)"
"$B/bench_ev_pick" | tee "$OUT/ev_pick.log" | sed 's/^/  /'
awk '/^ev pick:/ {printf "{\"bench\":\"ev_pick\",\"ns_per_pick\":%s}\n", $3}' "$OUT/ev_pick.log" >> "$JSON"

echo
echo "== JSON lines ($JSON; compare two commits with bench/compare.sh OLD.json NEW.json)"
cat "$JSON"
echo "bench: done in $(( $(date +%s) - t_start )) s"
if [ "$recon_fail" != 0 ] || [ "$fw_fail" != 0 ] || [ "$mech_fail" != 0 ]; then
    [ "$mech_fail" = 0 ] || echo "bench: FAIL: by mechanism (above: bench/mechanisms.py's FAIL line)"
    [ "$recon_fail" = 0 ] || echo "bench: FAIL: the reconciliation: the table's ALL-IN is not what callgrind counts in the API calls (above)"
    [ "$fw_fail" = 0 ] || echo "bench: FAIL: make firmware-bench (above)"
    exit 1
fi
