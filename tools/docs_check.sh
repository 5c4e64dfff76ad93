#!/bin/sh
# tools/docs_check.sh - keeps the documentation honest (make docs-check, part of make test):
#   1. every ```c block of README.md and the loop in mrc.h's USAGE comment are extracted and compiled against the
#      current API, as C99 (cc) and C++11 (c++), with the project's warnings and -Werror;
#   2. the README's sizeof figures are the ones tools/mrc_sizes.c prints for the same configurations, and the line
#      count it gives for examples/hello.c is that file's;
#   3. every figure of the README's sample output (the dissector's SACK, summary line and tshark -V excerpt) is the
#      regenerated packet's (tools/readme_sample_check.py over `mrc_pcap gen`, decoded by the core; needs python3
#      and BUILD_DIR/mrc_pcap).
# Usage: SIZE_SMALL="-D..." tools/docs_check.sh BUILD_DIR (make docs-check passes make size's small configuration). Prints one line per check and "docs-check: N passed, N failed".
set -u
BD=${1:-build}
B=$BD/snippets
CC=${CC:-cc}
CXX=${CXX:-c++}
WARN="-Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wcast-align -Wstrict-prototypes \
-Wmissing-prototypes -Wundef -Wvla -Wdouble-promotion -Werror"
CXXWARN="-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror"
mkdir -p "$B"
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }

# 1. snippets
rm -f "$B"/readme_*.inc
awk -v dir="$B" '/^```c$/ { n++; f = sprintf("%s/readme_%d.inc", dir, n); inb = 1; next }
                 /^```/ { if (inb) { inb = 0; close(f) } next }
                 inb { print > f }' README.md
awk '/^ \* USAGE/ { u = 1 } /^ \* OBJECTS AND LIFETIMES/ { u = 0 }
     u && /^ \*     / { sub(/^ \*     /, ""); print }' mrc.h > "$B/header_loop.inc"
if [ ! -s "$B/header_loop.inc" ]; then bad "mrc.h USAGE comment: no code lines found"; fi
set -- "$B"/readme_*.inc
if [ ! -e "$1" ]; then bad "README.md: no \`\`\`c block found"; set --; fi
{
    echo '#include "tools/snippet_prelude.h"'
    echo '#define MRC_IMPLEMENTATION'
    echo '#include "mrc.h"'
    echo 'void header_loop(mrc_endpoint *ep) {'
    echo "#include \"header_loop.inc\""
    echo '}'
} > "$B/header_loop.c"
units="$B/header_loop.c"
for inc in "$@"; do
    c=${inc%.inc}.c
    printf '#include "tools/snippet_prelude.h"\n#include "%s"\n' "$(basename "$inc")" > "$c"
    units="$units $c"
done
for u in $units; do
    name=$(basename "$u" .c)
    if out=$($CC -std=c99 $WARN -I. -c "$u" -o "$B/$name.o" 2>&1); then ok "$name compiles as C99 with -Werror"
    else bad "$name as C99:"; echo "$out" | head -20; fi
    if out=$($CXX -x c++ -std=c++11 $CXXWARN -I. -c "$u" -o "$B/$name.cxx.o" 2>&1); then ok "$name compiles as C++11 with -Werror"
    else bad "$name as C++11:"; echo "$out" | head -20; fi
done

# 2. numbers the README quotes
commas() { echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/;ta'; }
check_sizes() { # name, extra flags
    if ! $CC -std=c99 -O1 $2 -o "$B/sizes_$1" tools/mrc_sizes.c 2>/dev/null; then bad "tools/mrc_sizes.c ($1) does not build"; return; fi
    line=$("$B/sizes_$1")
    ep=$(commas "$(echo "$line" | sed -n 's/.*sizeof(mrc_endpoint) *\([0-9]*\).*/\1/p')")
    cn=$(commas "$(echo "$line" | sed -n 's/.*sizeof(mrc_conn) *\([0-9]*\).*/\1/p')")
    if grep -q "$cn B; endpoint $ep B" README.md; then ok "README quotes the $1 sizes: mrc_conn $cn B, endpoint $ep B"
    else bad "README does not quote the $1 sizes tools/mrc_sizes.c prints: \"$cn B; endpoint $ep B\""; fi
}
check_sizes default ""
check_sizes small "${SIZE_SMALL:?the Makefile passes the small configuration of make size}"
n=$(wc -l < examples/hello.c | tr -d ' ')
if grep -q "($n lines; \`make hello\`)" README.md; then ok "README gives examples/hello.c's length ($n lines)"
else bad "README does not say examples/hello.c has $n lines"; fi
if [ "$n" -lt 150 ]; then ok "examples/hello.c is under 150 lines"; else bad "examples/hello.c has $n lines (limit 150)"; fi

# 3. the README's sample output, regenerated
if ! command -v python3 >/dev/null; then
    echo "skip README sample output: python3 is needed (Debian: apt-get install python3)"
elif [ ! -x "$BD/mrc_pcap" ]; then
    bad "README sample output: $BD/mrc_pcap is not built"
elif out=$(python3 tools/readme_sample_check.py "$BD/mrc_pcap" README.md); then
    ok "README sample output: $(echo "$out" | tail -1 | sed 's/^readme-sample: //') (every figure regenerated)"
else
    bad "README sample output:"; echo "$out" | grep -v "^ok "
fi

echo "docs-check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
