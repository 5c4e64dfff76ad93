# Fold a callgrind.out (--compress-strings=no --compress-pos=no, events Ir, --separate-callers) into
#   F <function> <inclusive Ir> <self Ir>   per function, its call contexts summed, clone suffixes (.part.0) merged,
#                                          blanks in names (below main) made underscores
#   W <bench_wrapper> <inclusive Ir>
#   M <bench_wrapper or -> <Ir>            libc memcpy/memmove inside that wrapper (- : outside any)
#   C <function> <calls>                   calls into the function, from the call arcs
#   T <Ir>                                 every Ir the run collected (callgrind's own totals: line)
function base(n,  b) { b = n; sub(/'.*/, "", b); sub(/\..*/, "", b); gsub(/[ \t]/, "_", b); return b }
function wrapper(n,  k, p, i, b) {
    k = split(n, p, "'")
    for (i = 1; i <= k; i++) if (p[i] ~ /^bench_/) { b = p[i]; sub(/\..*/, "", b); return b }
    return "-"
}
/^totals:/ { total = $2; next }
/^fn=/    { fn = substr($0, 4); incall = 0; next }
/^cfn=/   { cfn = substr($0, 5); next }
/^calls=/ { split(substr($0, 7), a, " "); ncalls[base(cfn)] += a[1]; incall = 1; next }
/^[0-9]/  { if (fn == "") next
            if (incall) { incl[fn] += $2; incall = 0 } else { self[fn] += $2; incl[fn] += $2 }
            next }
END {
    for (f in incl) {
        b = base(f); I[b] += incl[f]; S[b] += self[f]
        if (b ~ /^bench_/) W[b] += incl[f]
        else if (b ~ /mem(cpy|move)/) M[wrapper(f)] += incl[f]
    }
    for (b in I) if (I[b] > 0) printf "F %s %.0f %.0f\n", b, I[b], S[b]
    for (b in W) printf "W %s %.0f\n", b, W[b]
    for (b in M) printf "M %s %.0f\n", b, M[b]
    for (b in ncalls) printf "C %s %.0f\n", b, ncalls[b]
    if (total != "") printf "T %.0f\n", total
}
