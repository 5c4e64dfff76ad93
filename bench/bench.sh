#!/usr/bin/env bash
# bench/bench.sh - make bench: the performance record of the core (bench/README.md explains every column).
#
#   1. instructions per data packet: each stream of build/mrc_bench (default capacities) and build/mrc_bench_large
#      (1,024 QPs, 1,024 WRs, 4,096-PSN window) runs once under callgrind, counting only inside the bench_* phase
#      wrappers; bench/cg_fold.awk folds each callgrind.out, `mrc_bench report` divides by the packets it counted
#   2. the reconciliation with `valgrind --tool=callgrind --toggle-collect=mrc_endpoint_recv
#      --toggle-collect=mrc_endpoint_poll_tx build/demo -m 16 -l 0 -t 0 -j 0 -q`
#   3. ns per data packet: `mrc_bench time`, median of REPS (7) wall-clock transfers, a 4 KiB memcpy as the yardstick
#   4. the EV-pick micro-bench (bench/ev_pick.c)
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
rm -f "$OUT"/*.counts "$OUT"/*.ir "$OUT"/*.log "$OUT"/cg.*.out "$JSON"
t_start=$(date +%s)

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
    cg demo "$OUT/demo.log" -- --toggle-collect=mrc_endpoint_recv --toggle-collect=mrc_endpoint_poll_tx \
        "$B/demo" -m 16 -l 0 -t 0 -j 0 -q
    if ! grep -q 'bit-exact' "$OUT/demo.log"; then
        cat "$OUT/demo.log" >&2
        echo "bench: FAIL: the demo transfer" >&2
        exit 1
    fi
    awk '/^data packets/ {print "data_pkts", $3}' "$OUT/demo.log" > "$OUT/demo.counts"
    "$BIN" report "$OUT" "$JSON"
else
    echo
    echo "== Instructions per data packet: SKIP: valgrind is not installed (apt-get install valgrind, as root);"
    echo "   the wall-clock table below is still measured"
    printf '{"bench":"instr","skipped":"valgrind not installed"}\n' >> "$JSON"
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
