#!/bin/sh
# fuzz/campaign.sh - the long libFuzzer campaign, one harness at a time (nice -n 15), as recorded in fuzz/README.md.
#
#   cp mrc.h build/campaign/core/mrc.h        # the core under test, snapshotted (the tree may move meanwhile)
#   fuzz/campaign.sh 10000000 decode sack ev nscc responder pair
#
# Per harness: a fast libFuzzer binary (-O2, UBSan, no ASan: 1.5-3x the executions per second; without CMP tracing
# unless CMP=1: -fno-sanitize-coverage=trace-cmp gives the pair harness 3.7x the executions per second, and the seeds
# come from CMP-guided runs and the dictionary), -runs=RUNS on
# build/campaign/corpus/<t> seeded from fuzz/corpus/<t> and the regression inputs, -dict=fuzz/mrc.dict; then the whole
# corpus it grew is replayed under ASan+UBSan. Results go to build/campaign/summary.txt (stat:: lines, wall time,
# artifacts, replay), logs to build/campaign/<t>.log, crashes to build/campaign/artifacts/<t>-*.
#
# EMPTY=1 starts from nothing instead: a fresh corpus directory build/campaign/corpus-empty/<t>, no seeds and no
# regression inputs (the dictionary stays). A corpus-seeded campaign can circle the same states for millions of
# executions; one from scratch reaches others (issue 13 found a stall at 370k executions that way). Logs and
# artifacts then carry the suffix -empty.
set -u
cd "$(dirname "$0")/.."
C=build/campaign
[ -f $C/core/mrc.h ] || { mkdir -p $C/core; cp mrc.h $C/core/mrc.h; }
RUNS=${1:?usage: fuzz/campaign.sh RUNS target...}; shift
CMPFL=-fno-sanitize-coverage=trace-cmp; [ "${CMP:-0}" = 1 ] && CMPFL=
SFX=; CORP=corpus; [ "${EMPTY:-0}" = 1 ] && { SFX=-empty; CORP=corpus-empty; }
for t in "$@"; do
  case $t in pair) ML=1024;; nscc|ev) ML=2048;; *) ML=4096;; esac
  mkdir -p $C/$CORP/$t $C/artifacts
  clang -std=c99 -O2 -g -fsanitize=fuzzer,undefined -fno-sanitize-recover=undefined -fsanitize-coverage-ignorelist=fuzz/nocov.txt $CMPFL \
    -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -I$C/core -o $C/fast_$t fuzz/fuzz_$t.c || exit 1
  clang -std=c99 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
    -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -I$C/core -o $C/replay_$t fuzz/fuzz_$t.c fuzz/replay_main.c || exit 1
  seeds=fuzz/corpus/$t; for d in fuzz/regress/$t fuzz/regress-pending/$t; do [ -d $d ] && seeds="$seeds $d"; done
  [ "${EMPTY:-0}" = 1 ] && seeds=
  echo "== $t$SFX start $(date -u +%FT%TZ) runs=$RUNS max_len=$ML cmp=${CMP:-0}" >> $C/summary.txt
  s0=$(date +%s)
  nice -n 15 ./$C/fast_$t -runs=$RUNS -max_len=$ML -dict=fuzz/mrc.dict -print_final_stats=1 \
    -artifact_prefix=$C/artifacts/$t$SFX- $C/$CORP/$t $seeds > $C/$t$SFX.log 2>&1
  rc=$?
  s1=$(date +%s)
  echo "== $t$SFX end $(date -u +%FT%TZ) rc=$rc wall=$((s1 - s0))s" >> $C/summary.txt
  grep -E '^stat::|^#[0-9]+.*DONE' $C/$t$SFX.log >> $C/summary.txt
  ls $C/artifacts/$t$SFX-* >/dev/null 2>&1 && echo "ARTIFACTS: $(ls $C/artifacts/$t$SFX-*)" >> $C/summary.txt
  echo "replay ASan+UBSan: $(ASAN_OPTIONS=detect_leaks=1 nice -n 15 ./$C/replay_$t $C/$CORP/$t 2>&1 | tail -1)" >> $C/summary.txt
done
