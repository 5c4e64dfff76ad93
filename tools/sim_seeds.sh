#!/bin/sh
# tools/sim_seeds.sh - every simulator scenario on several seeds (make sim-seeds): one seed is not a measurement.
# Per scenario: QP errors and failed flows summed over the seeds, the median and the worst fct_max_over_ideal and
# which seed was worst. Exits 1 when any seed of any scenario ends a QP in error or leaves a flow unfinished.
#   tools/sim_seeds.sh RUNNER "SEEDS" [SCENARIO...]     (default: every full-suite scenario; about 25 min for 10 seeds)
set -u
R=${1:?usage: tools/sim_seeds.sh build/sim/mrc_simrun "1 2 3" [scenario...]}
SEEDS=${2:?seeds}
shift 2
if [ $# -eq 0 ]; then
    set -- $("$R" --list | awk '{print $1}' | grep -v -e '^q_' -e '^matrix$')
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
bad=0
printf '%-18s %6s %6s %9s %14s\n' scenario errors failed median worst
for sc in "$@"; do
    : > "$OUT/$sc"
    for s in $SEEDS; do
        line=$("$R" --scenario "$sc" --seed "$s" --out "$OUT/run" 2>&1 | grep "^$sc ")
        if [ -z "$line" ]; then echo "$sc seed $s: no result line"; bad=1; continue; fi
        echo "$s $line" >> "$OUT/$sc"
    done
    awk -v sc="$sc" '
        { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
          err += v["conn_errors"]; fail += v["flows_failed"]; n++; x[n] = v["fct_max_over_ideal"] + 0; sd[n] = $1
          if (n == 1 || x[n] > worst) { worst = x[n]; ws = $1 } }
        END { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
              med = (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
              printf "%-18s %6d %6d %9.3f %8.3f (%s)\n", sc, err, fail, med, worst, ws
              exit (err + fail) ? 1 : 0 }' "$OUT/$sc" || bad=1
done
[ $bad -eq 0 ] && echo "sim-seeds: every seed of every scenario without a QP error or an unfinished flow" \
               || echo "sim-seeds: FAIL (QP errors or unfinished flows above)"
exit $bad
