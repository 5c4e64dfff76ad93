#!/bin/sh
# size_breakdown.sh [CC] - what one QP (sizeof(mrc_conn)) costs, by capacity, and what the endpoint's in-flight pool
# costs (make size).
# Each capacity macro is halved in turn (one build of tools/mrc_sizes.c each) and what sizeof(mrc_conn) loses per
# removed unit is its cost; "fixed" is what no capacity macro scales. Measured on the compiled structure, so it stays
# true whatever mrc.h's layout becomes. Halved, not doubled: index fields are one byte while their capacity is at
# most 256 (EV slots, send-queue slots, in-flight records), so doubling a capacity of 256 would price the wider
# layout of 512 instead of the one measured. Columns: the default capacities and make size's small firmware set
# (SIZE_SMALL, passed in by the Makefile).
CC=${1:-cc}
B=${B:-build}
SMALL=${SIZE_SMALL:-}
mkdir -p "$B/sizes"
conn() { # conn NAME FLAGS... -> sizeof(mrc_conn)
    n=$1
    shift
    # shellcheck disable=SC2068
    $CC -std=c99 -O0 $@ -o "$B/sizes/$n" tools/mrc_sizes.c || exit 1
    "./$B/sizes/$n" | sed 's/.*sizeof(mrc_conn) *\([0-9]*\).*/\1/'
}
val() { # val MACRO FLAGS... -> the macro's value in that configuration
    m=$1
    shift
    printf '#define MRC_IMPLEMENTATION\n#include "mrc.h"\n#include <stdio.h>\nint main(void){printf("%%d\\n",(int)%s);return 0;}\n' \
        "$m" >"$B/sizes/val.c"
    # shellcheck disable=SC2068
    $CC -std=c99 -O0 -I. $@ -o "$B/sizes/val" "$B/sizes/val.c" && "./$B/sizes/val"
}
without() { # without MACRO FLAGS... -> FLAGS minus any -DMACRO=...
    m=$1
    shift
    for f in "$@"; do case "$f" in "-D$m="*) ;; *) printf '%s ' "$f" ;; esac; done
}
SPECS="MRC_MAX_INFLIGHT:in-flight_PSN:1 MRC_MAX_MPR_UNITS:tracked_PSN:128 MRC_MAX_EVS:EV:1 MRC_MAX_SQ:send_WR:1
       MRC_MAX_RQ:receive_WR:1 MRC_MAX_WIMM:pending_immediate:1 MRC_CTLQ_LEN:queued_control_packet:1
       MRC_MAX_PROBES:probe_slot:1"
column() { # column FLAGS... -> "total", then "per units bytes" per spec, then "fixed"
    base=$(conn base "$@")
    rest=$base
    echo "$base"
    for spec in $SPECS; do
        m=${spec%%:*}
        r=${spec#*:}
        k=${r#*:}
        v=$(val "$m" "$@")
        # shellcheck disable=SC2046
        half=$(conn "$m" $(without "$m" "$@") "-D$m=$((v / 2))")
        rest=$((rest - 2 * (base - half)))
        awk -v a="$half" -v b="$base" -v v="$v" -v k="$k" \
            'BEGIN { printf "%.2f %d %d\n", 2 * (b - a) / (v * k), v * k, 2 * (b - a) }'
    done
    echo "$rest"
}
D=$(column)
# shellcheck disable=SC2086
S=$([ -n "$SMALL" ] && column $SMALL)
echo "== memory per QP, sizeof(mrc_conn), by capacity (each macro halved in turn: saving per unit)"
printf '%-38s %9s | %-18s | %-18s\n' "capacity (macro)" "B/unit" "default: units = B" "small: units = B"
i=2
for spec in $SPECS; do
    m=${spec%%:*}
    r=${spec#*:}
    u=${r%%:*}
    d=$(echo "$D" | sed -n "${i}p")
    s=$(echo "$S" | sed -n "${i}p")
    printf '%-38s %9s | %7s = %8s | %7s = %8s\n' "$(echo "$u" | tr _ ' ') ($m)" "$(echo "$d" | cut -d' ' -f1)" \
        "$(echo "$d" | cut -d' ' -f2)" "$(echo "$d" | cut -d' ' -f3)" "$(echo "$s" | cut -d' ' -f2)" \
        "$(echo "$s" | cut -d' ' -f3)"
    i=$((i + 1))
done
printf '%-38s %9s | %18s | %18s\n' "fixed (no capacity scales it)" "" "$(echo "$D" | tail -n 1)" "$(echo "$S" | tail -n 1)"
printf '%-38s %9s | %18s | %18s\n' "total sizeof(mrc_conn)" "" "$(echo "$D" | head -n 1)" "$(echo "$S" | head -n 1)"

# The in-flight pool (IN-FLIGHT MEMORY in mrc.h): per-PSN requester state lives in the endpoint, in blocks of 64 PSNs
# a QP holds only while they are unacknowledged; the rows above are the QP's static bytes.
pool() { # pool FLAGS... -> "bytes/block blocks window_blocks"
    # shellcheck disable=SC2068
    echo "$(val 'sizeof(mrc__pblk)' $@) $(val MRC_POOL_BLOCKS $@) $(val 'MRC_MAX_INFLIGHT / 64 + 1' $@)"
}
PD=$(pool)
# shellcheck disable=SC2086
PS=$([ -n "$SMALL" ] && pool $SMALL)
echo "== in-flight pool, in sizeof(mrc_endpoint) (MRC_POOL_BLOCKS blocks of 64 PSNs; the QP above holds none of it)"
printf '%-38s %9s | %18s | %18s\n' "" "" "default" "small"
row() { # label awk-expression-of(b, n, w)
    d=$(echo "$PD" | awk "{ b = \$1; n = \$2; w = \$3; printf \"%s\", $2 }")
    s=$([ -n "$PS" ] && echo "$PS" | awk "{ b = \$1; n = \$2; w = \$3; printf \"%s\", $2 }")
    printf '%-38s %9s | %18s | %18s\n' "$1" "" "$d" "$s"
}
row "bytes per block (64 PSNs)" 'b'
row "bytes per in-flight PSN" 'sprintf("%.2f", b / 64)'
row "blocks (MRC_POOL_BLOCKS default)" 'n'
row "pool bytes" 'b * n'
row "blocks a full window holds" 'w'
row "bytes a full window holds" 'b * w'
