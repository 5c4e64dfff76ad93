#!/bin/sh
# tools/sim_scale.sh - the simulator at scale (make sim-scale): the rows of docs/EVALUATION.md#scale that fit in
# about 10 minutes on a 2-core machine, each a run of the scale build (build/sim/mrc_simrun_scale: endpoints sized
# for a permutation or a ring, 74 KB per endpoint instead of 20 MB).
#
# First it checks that the scale build changes nothing where both builds fit: perm_ft and perm_mp (1,024 hosts) must
# give the standard runner's digest. Then one line per scenario: hosts, planes, wall time, peak memory and bytes per
# host, max FCT / ideal, mean goodput, QP errors and unfinished flows. Exits 1 when a digest differs, a run fails, or
# a run ends a QP in error or leaves a flow unfinished. Wall times depend on the machine and what else runs on it: the
# load average is printed beside them, a run measured while the machine was busy says so, and cpu_s (the process's
# CPU time; the simulator is one thread) is what the run cost whatever else ran.
#   tools/sim_scale.sh RUNNER SCALE_RUNNER [SCENARIO...]   (default: perm_ft_8k t1_blackhole_mp_8k)
#   SIM_SCALE_SEED   the seed (default 1)
#   SIM_JOBS         runs at once (default 1): each run is its own process writing its own file, the
#                    lines are printed in the order above once all are done - the same table as one at a time, but
#                    two rows share the 2 cores, so wall_s is no longer one run alone (cpu_s still is)
set -u
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0; }
if [ "${1:-}" = --one ]; then # --one OUTDIR SEED "RUNNER SCENARIO": load before, the result line, load after
    set -f
    # shellcheck disable=SC2086
    set -- "$2" "$3" $4
    f="$1/$(basename "$3").$4"
    { echo "L0 $(load)"; "$3" --scenario "$4" --seed "$2" --json --quiet --out "$f.d" 2>"$f.err" | grep '^{"scenario"'
      echo "L1 $(load)"; } >"$f"
    rm -rf "$f.d"
    exit 0
fi
R=${1:?usage: tools/sim_scale.sh build/sim/mrc_simrun build/sim/mrc_simrun_scale [scenario...]}
RS=${2:?scale runner}
shift 2
[ $# -eq 0 ] && set -- perm_ft_8k t1_blackhole_mp_8k
SEED=${SIM_SCALE_SEED:-1}
CORES=$(nproc 2>/dev/null || echo 1)
bad=0
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

field() { # field JSON-LINE KEY -> the value of KEY
    printf '%s\n' "$1" | sed -n 's/.*"'"$2"'":"\{0,1\}\([^,"}]*\).*/\1/p' | head -n 1
}
JOBS=${SIM_JOBS:-1}
pool() { # the runs named on stdin ("RUNNER SCENARIO" lines), JOBS at a time
    xargs -P "$JOBS" -I{} "$0" --one "$OUT" "$SEED" "{}"
}
row() { grep '^{"scenario"' "$OUT/$(basename "$1").$2"; } # row RUNNER SCENARIO: its result line

echo "== the scale build against the standard one (seed $SEED): the same run where both fit"
printf '%s perm_ft\n%s perm_ft\n%s perm_mp\n%s perm_mp\n' "$R" "$RS" "$R" "$RS" | pool
for sc in perm_ft perm_mp; do
    a=$(row "$R" "$sc")
    b=$(row "$RS" "$sc")
    da=$(field "$a" digest)
    db=$(field "$b" digest)
    printf '  %-12s digest %s (mrc_simrun, %s MB) %s (mrc_simrun_scale, %s MB)' "$sc" "${da:-none}" \
        "$(field "$a" peak_rss_mb | cut -d. -f1)" "${db:-none}" "$(field "$b" peak_rss_mb | cut -d. -f1)"
    if [ -n "$da" ] && [ "$da" = "$db" ]; then echo ": same"; else echo ": DIFFER"; bad=1; fi
done

echo
echo "== at scale (seed $SEED; $CORES cores, $JOBS run(s) at once; wall time of the simulation, peak resident memory of" \
     "the process)"
printf '  %-20s %7s %6s %8s %8s %8s %10s %9s %8s %9s %6s %6s %s\n' scenario hosts planes wall_s cpu_s peak_MB \
    bytes/host fct/ideal goodput job/ideal errors failed "load before/after"
for sc in "$@"; do echo "$RS $sc"; done | pool
for sc in "$@"; do
    f="$OUT/$(basename "$RS").$sc"
    l0=$(sed -n 's/^L0 //p' "$f")
    line=$(row "$RS" "$sc")
    l1=$(sed -n 's/^L1 //p' "$f")
    if [ -z "$line" ]; then
        echo "  $sc: FAIL: no result line"
        sed 's/^/    /' "$f.err"
        bad=1
        continue
    fi
    err=$(field "$line" conn_errors)
    fail=$(field "$line" flows_failed)
    note=""
    busy=$(awk -v a="$l0" -v b="$l1" -v c="$CORES" 'BEGIN { print (a > c - 0.5 || b > c - 0.5) ? 1 : 0 }')
    [ "$busy" = 1 ] && note=" (machine busy: wall_s is not a clean measurement; cpu_s is the run's own time)"
    job=$(field "$line" job_over_ideal) # the collectives: completion against the ideal
    printf '  %-20s %7s %6s %8.1f %8.1f %8.0f %10.0f %9.3f %8.3f %9s %6s %6s %s/%s%s\n' "$sc" "$(field "$line" hosts)" \
        "$(field "$line" planes)" "$(field "$line" wall_s)" "$(field "$line" cpu_s)" "$(field "$line" peak_rss_mb)" \
        "$(field "$line" bytes_per_host)" "$(field "$line" fct_max_over_ideal)" "$(field "$line" goodput_mean)" \
        "${job:--}" "$err" "$fail" "$l0" "$l1" "$note"
    if [ "$err" != 0 ] || [ "$fail" != 0 ]; then bad=1; fi
done
[ "$bad" = 0 ] && echo "sim-scale: ok" || echo "sim-scale: FAIL"
exit "$bad"
