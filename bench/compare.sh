#!/usr/bin/env bash
# bench/compare.sh OLD.json NEW.json - two `make bench` records side by side: every figure of NEW next to the same
# figure of OLD (matched by bench and stream/dimension; firmware lines by target and variant) with the change in
# percent; '*' marks a change over 2%.
# ALL=1 also lists the raw per-wrapper calls_* and core_ir_* fields.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bench/compare.sh OLD.json NEW.json" >&2; exit 2; }
for f in "$1" "$2"; do [ -r "$f" ] || { echo "compare: cannot read $f" >&2; exit 2; }; done
awk -v all="${ALL:-0}" '
# a flat JSON object (the only kind bench.json holds) into kv[key] = value, keys in order in ks[1..n]
function parse(s, kv, ks,   n, i, c, j, d, str, key, expect_key, nk) {
    delete kv; delete ks; nk = 0; n = length(s); i = 1; expect_key = 1
    while (i <= n) {
        c = substr(s, i, 1)
        if (c == "\"") {
            str = ""
            for (j = i + 1; j <= n; j++) {
                d = substr(s, j, 1)
                if (d == "\\") { str = str substr(s, j + 1, 1); j++; continue }
                if (d == "\"") break
                str = str d
            }
            i = j + 1
            if (expect_key) { key = str; expect_key = 0; ks[++nk] = key } else { kv[key] = str; expect_key = 1 }
            continue
        }
        if (c == "{" || c == ",") { expect_key = 1; i++; continue }
        if (c == ":" || c == "}" || c == " ") { i++; continue }
        for (j = i; j <= n && substr(s, j, 1) !~ /[,}]/; j++) {}
        kv[key] = substr(s, i, j - i); expect_key = 1; i = j
    }
    return nk
}
function id(kv) { # bench/stream (or dimension); firmware lines: bench/target/variant
    if (kv["bench"] == "firmware") return kv["bench"] "/" kv["target"] "/" kv["variant"]
    return kv["bench"] "/" (("stream" in kv) ? kv["stream"] : ("dim" in kv) ? kv["dim"] : "")
}
FNR == NR { parse($0, kv, ks); k = id(kv); old[k] = $0; next }
{
    n = parse($0, kv, ks); k = id(kv)
    if (kv["bench"] == "meta") {
        if (k in old) { parse(old[k], ov, ok); printf "old: %s %s\n", ov["commit"], ov["date"] }
        printf "new: %s %s\n", kv["commit"], kv["date"]; next
    }
    if (!(k in old)) { printf "\n%s: only in NEW\n", k; next }
    parse(old[k], ov, ok)
    printf "\n%s\n", k
    for (i = 1; i <= n; i++) {
        f = ks[i]
        if (f == "bench" || f == "stream" || f == "dim" || f == "small" || f == "large" || f == "target" && kv["bench"] == "firmware") continue
        if (kv[f] !~ /^-?[0-9.]+$/ || !(f in ov) || ov[f] !~ /^-?[0-9.]+$/) continue
        if (!all && f ~ /^(calls|core_ir)_/) continue
        ch = ov[f] + 0 != 0 ? 100 * (kv[f] - ov[f]) / ov[f] : 0
        printf "  %-34s %12s %12s %+8.1f%%%s\n", f, ov[f], kv[f], ch, (ch > 2 || ch < -2) ? " *" : ""
    }
}' "$1" "$2"
