#!/bin/sh
# size_gcc.sh - the core's code size as a firmware engineer builds it (make size prints this first).
#
# The whole core, one object, compiled with GCC for a Cortex-M4 without FPU:
#     arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -Os -ffreestanding -DMRC_NO_FLOAT [-DMRC_NO_STRINGS [-DMRC_NO_STATS
#                       -DMRC_NO_CHECK]]
# prints .text, .rodata, .data and .bss of the three builds (every feature; no strings; as a firmware builds it for
# size: no strings, no statistics counters, no invariant checker - docs/EVALUATION.md#issue36-nov30c) and the target
# (issue 36: .text <= 48 KB, 49,152 B) met or not for each; then, from the same build with -ffunction-sections -g, the 30 largest functions and the .text of each layer of
# src/ (src/README.md): each function is mapped to the line of mrc.h where it is defined (arm-none-eabi-nm -l reads it
# from the debug information), and that line to the source file whose marker precedes it (tools/amalgamate writes
# /* ====== src/NAME ===...=== */ where each file begins). A static function inlined into its callers has no symbol:
# its bytes count in theirs. Without arm-none-eabi-gcc: a SKIP line.
#
#   tools/size_gcc.sh            (B: the build directory, default build; ARM_GCC: the compiler, default
#                                 arm-none-eabi-gcc; its nm and size are found beside it by name; FW_BUILD: the
#                                 firmware build's macros, firmware/fw.mk's, which make size passes)
ARM_GCC=${ARM_GCC:-arm-none-eabi-gcc}
B=${B:-build}
PFX=${ARM_GCC%gcc}
NM=${PFX}nm
SIZE=${PFX}size
TARGET=49152
FW_BUILD=${FW_BUILD:--DMRC_NO_STRINGS -DMRC_NO_STATS -DMRC_NO_CHECK}
FLAGS="-mcpu=cortex-m4 -mthumb -Os -ffreestanding -DMRC_NO_FLOAT"

if ! command -v "$ARM_GCC" >/dev/null 2>&1 || ! command -v "$NM" >/dev/null 2>&1 ||
    ! command -v "$SIZE" >/dev/null 2>&1; then
    echo "== code size for firmware (gcc): SKIP: $ARM_GCC (with $NM and $SIZE) not found" \
        "(Debian: apt-get install gcc-arm-none-eabi binutils-arm-none-eabi)"
    exit 0
fi
[ -f mrc.h ] || { echo "size_gcc.sh: run it from the repository root (mrc.h not found)" >&2; exit 1; }
D=$B/size_gcc
mkdir -p "$D"
printf '#define MRC_IMPLEMENTATION\n#include "mrc.h"\n' > "$D/impl.c"

secs() { # secs OBJECT -> ".text .rodata .data .bss" in bytes (every section of each kind summed)
    "$SIZE" -A "$1" | awk '
        $1 ~ /^\.text/   { t += $2 }
        $1 ~ /^\.rodata/ { r += $2 }
        $1 ~ /^\.data/   { d += $2 }
        $1 ~ /^\.bss/    { b += $2 }
        END { printf "%d %d %d %d\n", t, r, d, b }'
}

echo "== code size of the core for firmware: $("$ARM_GCC" --version | head -n 1)"
echo "   $ARM_GCC $FLAGS [...], the whole core in one object, bytes"
printf '  %-18s %8s %8s %6s %6s %8s   %s\n' build .text .rodata .data .bss flash "target: .text <= 48 KB (49,152 B)"
for v in "" -DMRC_NO_STRINGS "$FW_BUILD"; do
    o=$D/core$(echo "$v" | tr -d ' ').o
    # shellcheck disable=SC2086
    "$ARM_GCC" -std=c99 $FLAGS $v -Wall -Wextra -I. -c "$D/impl.c" -o "$o" || exit 1
    lbl=${v:-default}
    [ "$v" = "$FW_BUILD" ] && lbl="firmware: $v"
    # shellcheck disable=SC2046
    set -- $(secs "$o")
    [ "${#lbl}" -gt 18 ] && { echo "  $lbl"; lbl=""; }
    printf '  %-18s %8d %8d %6d %6d %8d   %s\n' "$lbl" "$1" "$2" "$3" "$4" $(($1 + $2 + $3)) \
        "$(awk -v t="$1" -v m="$TARGET" 'BEGIN {
            if (t <= m) printf "met (%d B to spare)", m - t
            else printf "not met (%d B over, %.2fx)", t - m, t / m }')"
done
echo "  (flash: .text + .rodata + .data, what clang's text column below counts; -ffunction-sections, as below, adds"
echo "  a few bytes of alignment)"

# the per-function table: the default build again, a section per function and the debug information for the lines
o=$D/core_fs.o
# shellcheck disable=SC2086
"$ARM_GCC" -std=c99 $FLAGS -ffunction-sections -g -I. -c "$D/impl.c" -o "$o" || exit 1
grep -n '^/\* ====== src/' mrc.h | sed 's|^\([0-9]*\):/\* ====== src/\([^ ]*\) .*|\1 \2|' > "$D/markers"
# one line per function: size, name, the mrc.h line it is defined at (0 when nm finds none)
"$NM" -S -l "$o" | awk '
    function hex(h,  i, v) { v = 0; h = tolower(h); for (i = 1; i <= length(h); i++)
                             v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
    $3 ~ /^[Tt]$/ { line = 0; if (NF >= 5) { n = split($NF, p, ":"); line = p[n] + 0 }
                    printf "%d %s %d\n", hex($2), $4, line }' > "$D/funcs"
awk -v total="$(secs "$o" | cut -d' ' -f1)" '
    # the layer of a source file: src/codec.c and src/codec.h are the layer codec; the public headers are one
    function layer(f) {
        if (f ~ /^(config|api|types|manual|license)\.h$/) return "public"
        sub(/\.[ch]$/, "", f)
        return f
    }
    FNR == NR { ml[++nm] = $1; mf[nm] = layer($2); if (!(mf[nm] in ord)) { ord[mf[nm]] = ++nl; lname[nl] = mf[nm] }
                next }
    {
        l = "?"
        for (i = nm; i >= 1; i--) if ($3 >= ml[i]) { l = mf[i]; break }
        if ($3 == 0) l = "?"
        nf++; sz[nf] = $1; fn[nf] = $2; fl[nf] = l; sum += $1
        ls[l] += $1; lc[l]++
    }
    END {
        # the largest first (a simple selection: a few hundred functions)
        for (i = 1; i <= nf; i++) idx[i] = i
        for (i = 1; i <= nf; i++) for (j = i + 1; j <= nf; j++)
            if (sz[idx[j]] > sz[idx[i]] || sz[idx[j]] == sz[idx[i]] && fn[idx[j]] < fn[idx[i]]) {
                t = idx[i]; idx[i] = idx[j]; idx[j] = t }
        top = nf < 30 ? nf : 30
        printf "== the %d largest functions (default build, -ffunction-sections: %d functions, %d B of the %d B of " \
            ".text)\n", top, nf, sum, total
        printf "  %4s %7s %6s  %-40s %s\n", "", "bytes", "%text", "function", "layer (src/)"
        for (i = 1; i <= top; i++) {
            k = idx[i]; tsum += sz[k]
            printf "  %4d %7d %5.1f%%  %-40s %s\n", i, sz[k], 100 * sz[k] / total, fn[k], fl[k]
        }
        printf "  %4s %7d %5.1f%%  %s\n", "", tsum, 100 * tsum / total, "the " top " above"
        printf "== .text by layer (src/README.md order; a function counts in the layer that defines it)\n"
        printf "  %-14s %9s %7s %6s\n", "layer", "functions", "bytes", "%text"
        for (i = 1; i <= nl; i++) if (lc[lname[i]])
            printf "  %-14s %9d %7d %5.1f%%\n", lname[i], lc[lname[i]], ls[lname[i]], 100 * ls[lname[i]] / total
        if (lc["?"]) printf "  %-14s %9d %7d %5.1f%%\n", "(no line)", lc["?"], ls["?"], 100 * ls["?"] / total
        printf "  %-14s %9d %7d %5.1f%%  (the rest of .text: alignment between the functions)\n", "all", nf, sum,
            100 * sum / total
    }' "$D/markers" "$D/funcs"
