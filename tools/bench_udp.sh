#!/bin/bash
# bench_udp.sh - make bench-udp: (1) goodput of mrc_perf against a raw UDP blast with the same datagram size,
# sockets and batching (mrc_perf --raw), on loopback, alternating the two in PAIRS back-to-back pairs so that both
# see the same host load; (2) failover recovery against Linux MPTCP, from tools/netns_failover.sh (root only).
#
#   tools/bench_udp.sh [PATH_TO_MRC_PERF]
#
# Environment: PAIRS (5), SECS (2) per run, ARGS (extra mrc_perf arguments for both runs, e.g. "--evs 8"),
# FAILOVER (1: run the netns failover test, 0: skip), TRIALS (3: failover trials), OUT (build/bench_udp).
# Goodput is measured at the receiver in both cases: payload bytes that arrived (raw) or were placed, verified and
# delivered in order (MRC), over the time from the first to the last arrival. The ratio is taken per pair and the
# median reported with every pair's numbers. Results: $OUT/bench_udp.json.
set -u
PERF=${1:-build/mrc_perf}
PAIRS=${PAIRS:-5}
SECS=${SECS:-2}
ARGS=${ARGS:-}
FAILOVER=${FAILOVER:-1}
TRIALS=${TRIALS:-3}
OUT=${OUT:-build/bench_udp}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=udp_lib.sh
. "$HERE/udp_lib.sh"
[ -x "$PERF" ] || { echo "bench-udp: $PERF not built"; exit 1; }
mkdir -p "$OUT"
echo "bench-udp: loopback, 8 planes x 16 EVs, 4096 B payload per datagram, $PAIRS pairs of ${SECS}s runs (raw, MRC)"
echo "           host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
fail=0
for i in $(seq 1 "$PAIRS"); do
    udp_pair "$OUT/raw_$i" "--json" "--json --raw -D $SECS $ARGS"
    raw=$(json_get "$OUT/raw_$i.client" '"%.4f" % d["raw_goodput_gbps"]')
    [ "$UP_CRC" = 0 ] && [ -n "$raw" ] || { echo "  pair $i: raw run failed"; fail=1; continue; }
    udp_pair "$OUT/mrc_$i" "--json" "--json -D $SECS $ARGS"
    mrc=$(json_get "$OUT/mrc_$i.client" '"%.4f" % d["peer_rx_gbps"] if d["ok"] else ""')
    [ "$UP_CRC" = 0 ] && [ "$UP_SRC" = 0 ] && [ -n "$mrc" ] || { echo "  pair $i: MRC run failed"; fail=1; continue; }
    echo "  pair $i: raw UDP $raw Gb/s, MRC $mrc Gb/s (verified), ratio $(python3 -c "print('%.3f' % ($mrc / $raw))")"
done
python3 - "$OUT" "$PAIRS" <<'EOF' >"$OUT/goodput.json"
import json, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
rows = []
for i in range(1, pairs + 1):
    def first(p):
        try:
            for l in open(p):
                if l.startswith("{"):
                    return json.loads(l)
        except OSError:
            return None
    r, m = first("%s/raw_%d.client" % (out, i)), first("%s/mrc_%d.client" % (out, i))
    rs, ms = first("%s/raw_%d.server" % (out, i)), first("%s/mrc_%d.server" % (out, i))
    if r and m and m.get("ok") and r.get("raw_goodput_gbps"):
        row = {"raw_gbps": r["raw_goodput_gbps"], "mrc_gbps": m["peer_rx_gbps"],
               "ratio": m["peer_rx_gbps"] / r["raw_goodput_gbps"], "mrc_rtx": m["mrc"]["rtx"]}
        # CPU seconds (both processes, user + sys) per GB delivered: the cost of a byte, whatever the host load
        def cpu(a, b):
            return sum(x["cpu"]["user_s"] + x["cpu"]["sys_s"] for x in (a, b) if x and "cpu" in x)
        rb = r["raw_goodput_gbps"] * r["tx"]["seconds"] / 8
        mb = m["rx"]["bytes"] / 1e9 if m["rx"]["bytes"] else m["tx"]["bytes"] / 1e9
        if rs and ms and rb > 0 and mb > 0:
            row["raw_cpu_s_per_gb"] = cpu(r, rs) / rb
            row["mrc_cpu_s_per_gb"] = cpu(m, ms) / mb
        rows.append(row)
res = {"pairs": rows}
if rows:
    res["ratio_median"] = statistics.median(x["ratio"] for x in rows)
    res["raw_gbps_median"] = statistics.median(x["raw_gbps"] for x in rows)
    res["mrc_gbps_median"] = statistics.median(x["mrc_gbps"] for x in rows)
    c = [x for x in rows if "mrc_cpu_s_per_gb" in x]
    if c:
        res["raw_cpu_s_per_gb_median"] = statistics.median(x["raw_cpu_s_per_gb"] for x in c)
        res["mrc_cpu_s_per_gb_median"] = statistics.median(x["mrc_cpu_s_per_gb"] for x in c)
print(json.dumps(res))
EOF
python3 -c "
import json; d = json.load(open('$OUT/goodput.json'))
if 'ratio_median' in d:
    print('bench-udp: goodput MRC/raw median %.3f (MRC %.2f Gb/s, raw UDP %.2f Gb/s; target >= 0.9: %s)' % (
        d['ratio_median'], d['mrc_gbps_median'], d['raw_gbps_median'], 'met' if d['ratio_median'] >= 0.9 else 'MISSED'))
    if 'mrc_cpu_s_per_gb_median' in d:
        print('bench-udp: CPU cost (both processes) per GB delivered: MRC %.2f s, raw UDP %.2f s (%.2fx)' % (
            d['mrc_cpu_s_per_gb_median'], d['raw_cpu_s_per_gb_median'],
            d['mrc_cpu_s_per_gb_median'] / d['raw_cpu_s_per_gb_median']))
else:
    print('bench-udp: no goodput result')"
if [ "$FAILOVER" = 1 ]; then
    OUT="$OUT/netns" TRIALS="$TRIALS" "$HERE/netns_failover.sh" "$PERF" || fail=1
    [ -f "$OUT/netns/netns_failover.json" ] && cp "$OUT/netns/netns_failover.json" "$OUT/failover.json"
fi
python3 - "$OUT" <<'EOF' >"$OUT/bench_udp.json"
import json, sys
o = sys.argv[1]
res = {}
for k, f in (("goodput", "goodput.json"), ("failover", "failover.json")):
    try:
        res[k] = json.load(open("%s/%s" % (o, f)))
    except (OSError, ValueError):
        pass
print(json.dumps(res))
EOF
echo "bench-udp: results in $OUT/bench_udp.json"
exit $fail
