#!/bin/sh
# tools/codegen_diff.sh OLD.h NEW.h [cc flags...] - does a change of the core's sources change its machine code?
# Compiles each header as the implementation unit (cc -O2 -DNDEBUG, plus the flags given) and compares the
# disassembly of every function, with addresses, jump offsets and alignment padding left out (moving a function
# changes those, nothing else). A refactor that claims "no behaviour change" shows "differ 0" here, e.g.
#   git show HEAD:mrc.h > /tmp/old.h && tools/codegen_diff.sh /tmp/old.h mrc.h
#   tools/codegen_diff.sh /tmp/old.h mrc.h -DMRC_ENABLE_TRACE -DMRC_CHECK_INVARIANTS -DMRC_MAX_CONNS=1024
# Prints "functions same N, differ N, only old N, only new N" and the names that differ; exit 1 when any does.
# Environment: CC (default cc), OBJDUMP (default objdump).
set -eu
[ $# -ge 2 ] || { echo "usage: tools/codegen_diff.sh OLD.h NEW.h [cc flags...]" >&2; exit 2; }
old=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
new=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
CC=${CC:-cc}
OBJDUMP=${OBJDUMP:-objdump}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
for v in old new; do
    h=$old; [ $v = new ] && h=$new
    printf '#define MRC_IMPLEMENTATION\n#include "%s"\n' "$h" > "$d/$v.c"
    $CC -std=c99 -O2 -DNDEBUG "$@" -c "$d/$v.c" -o "$d/$v.o"
    $OBJDUMP -d --no-show-raw-insn "$d/$v.o" > "$d/$v.dis"
done
python3 - "$d/old.dis" "$d/new.dis" <<'PY'
import re, sys
def load(path):
    funcs, cur = {}, None
    for line in open(path):
        m = re.match(r'^[0-9a-f]+ <(.*)>:', line)
        if m:
            cur = re.sub(r'\.(constprop|isra|part|cold)\.[0-9]+', '', m.group(1))
            funcs.setdefault(cur, [])
            continue
        if cur is None or '\t' not in line:
            continue
        ins = line.split('\t', 1)[1].strip()
        if re.match(r'(nop|xchg\s+%ax,%ax|data16)', ins):
            continue  # alignment padding
        ins = re.sub(r'\b[0-9a-f]+ <([^>+]*)(\+0x[0-9a-f]+)?>', r'<\1>', ins)  # branch targets: no offsets
        ins = re.sub(r'\.(constprop|isra|part|cold)\.[0-9]+', '', ins)
        funcs[cur].append(ins)
    return funcs
a, b = load(sys.argv[1]), load(sys.argv[2])
differ = sorted(k for k in a if k in b and a[k] != b[k])
same = sum(1 for k in a if k in b and a[k] == b[k])
only_a = sorted(k for k in a if k not in b)
only_b = sorted(k for k in b if k not in a)
print('codegen-diff: functions same %d, differ %d, only old %d, only new %d' % (same, len(differ), len(only_a),
                                                                                 len(only_b)))
for k in differ: print('  differ   %s (%d -> %d instructions)' % (k, len(a[k]), len(b[k])))
for k in only_a: print('  only old %s' % k)
for k in only_b: print('  only new %s' % k)
sys.exit(1 if differ or only_a or only_b else 0)
PY
