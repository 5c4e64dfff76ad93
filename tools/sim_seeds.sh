#!/bin/sh
# tools/sim_seeds.sh - every simulator scenario on several seeds (make sim-seeds): one seed is not a measurement.
# Per scenario: QP errors and failed flows summed over the seeds, then for each metric the median and the worst
# value over the seeds and which seed was worst: the largest value, or the smallest for the higher-is-better
# metrics (goodputs, the victim's share). Exits 1 when any seed of any scenario ends a QP in error or leaves a flow
# unfinished.
#   tools/sim_seeds.sh RUNNER "SEEDS" [SCENARIO...]     (default: every full-suite scenario; about 25 min for 10 seeds)
# Environment:
#   SEEDS_METRICS  keys of the runner's JSON result line (default fct_max_over_ideal); e.g. "fct_max_over_ideal rtx_frac".
#                  A key a scenario does not print is shown as "-".
#   SEEDS_ARGS     extra runner flags for every run (e.g. "--size 16M --routing srv6"); shown in the scenario column.
#   SIM_JOBS       runs at once (default 1): the runs are independent processes, each writes its own result file, and
#                  the table is made from them in scenario and seed order afterwards - the same output as one at a
#                  time (docs/EVALUATION.md#scale has the wall-time gain measured on 2 cores).
set -u
if [ "${1:-}" = --one ]; then # --one RUNNER OUTDIR "SCENARIO SEED": one run, its result line into OUTDIR/SCENARIO.SEED
    set -f
    # shellcheck disable=SC2086
    set -- "$2" "$3" $4
    # shellcheck disable=SC2086
    "$1" --scenario "$3" --seed "$4" --out "$2/run.$3.$4" --json ${SEEDS_ARGS:-} 2>&1 |
        grep "^{\"scenario\":\"$3\"" | tr -d '{}"' | tr ',:' ' =' > "$2/$3.$4"
    rm -rf "$2/run.$3.$4"
    exit 0
fi
R=${1:?usage: tools/sim_seeds.sh build/sim/mrc_simrun "1 2 3" [scenario...]}
SEEDS=${2:?seeds}
shift 2
METRICS=${SEEDS_METRICS:-fct_max_over_ideal}
XARGS=${SEEDS_ARGS:-}
if [ $# -eq 0 ]; then
    set -- $("$R" --list --suite full | awk '{print $1}') # the full suite: not the quick ones, nor those at scale
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
bad=0
printf '%-18s %6s %6s' scenario errors failed
for m in $METRICS; do printf '  %-30s' "$m: median, worst (seed)"; done
printf '\n'
for sc in "$@"; do for s in $SEEDS; do echo "$sc $s"; done; done |
    SEEDS_ARGS=$XARGS xargs -P "${SIM_JOBS:-1}" -I{} "$0" --one "$R" "$OUT" "{}"
for sc in "$@"; do
    : > "$OUT/$sc"
    for s in $SEEDS; do
        line=$(cat "$OUT/$sc.$s" 2>/dev/null)
        if [ -z "$line" ]; then echo "$sc seed $s: no result line"; bad=1; continue; fi
        echo "$s $line" >> "$OUT/$sc"
    done
    label=$sc
    [ -n "$XARGS" ] && label="$sc $XARGS"
    awk -v sc="$label" -v metrics="$METRICS" -v higher="goodput_mean goodput_vs_7_8 goodput_vs_nofail victim_share" '
        { delete v; for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
          err += v["conn_errors"]; fail += v["flows_failed"]; n++; sd[n] = $1
          for (k = 1; k <= nm; k++) { has[k, n] = (mk[k] in v); x[k, n] = v[mk[k]] + 0 } }
        BEGIN { nm = split(metrics, mk, " "); nh = split(higher, hk, " "); for (k = 1; k <= nh; k++) hi[hk[k]] = 1 }
        END { printf "%-18s %6d %6d", sc, err, fail
              for (k = 1; k <= nm; k++) {
                  c = 0; worst = 0; ws = "-"
                  for (i = 1; i <= n; i++) if (has[k, i]) {
                      y[++c] = x[k, i]
                      if (c == 1 || (mk[k] in hi ? x[k, i] < worst : x[k, i] > worst)) { worst = x[k, i]; ws = sd[i] } }
                  if (!c) { printf "  %-30s", "-"; continue }
                  for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (y[j] < y[i]) { t = y[i]; y[i] = y[j]; y[j] = t }
                  med = (c % 2) ? y[(c + 1) / 2] : (y[c / 2] + y[c / 2 + 1]) / 2
                  printf "  %-30s", sprintf("%.3f, %.3f (%s)", med, worst, ws) }
              printf "\n"
              exit (err + fail) ? 1 : 0 }' "$OUT/$sc" || bad=1
done
[ $bad -eq 0 ] && echo "sim-seeds: every seed of every scenario without a QP error or an unfinished flow" \
               || echo "sim-seeds: FAIL (QP errors or unfinished flows above)"
exit $bad
