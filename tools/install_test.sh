#!/bin/sh
# install_test.sh - make install-test (part of make test): make install into a scratch DESTDIR with PREFIX=/usr, then
# checks what a user gets: every file in its place, pkg-config finding mrc.pc with the version of mrc.h, a program
# built with `pkg-config --cflags mrc` against the installed header and run, the installed mrc_perf's --version, the
# man page well-formed (when man is here), the LICENSE the same text as the licence in mrc.h, and make uninstall
# removing it all. Last line "install-test: N passed, N failed".
set -u
B=${B:-build}
CC=${CC:-cc}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/install_test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
D=$TMP/root
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
if make --no-print-directory -s install DESTDIR="$D" PREFIX=/usr B="$B" >"$TMP/install.log" 2>&1; then ok "make install DESTDIR=... PREFIX=/usr"
else bad "make install:"; tail -5 "$TMP/install.log"; fi
for f in include/mrc.h bin/mrc_perf share/man/man1/mrc_perf.1 share/pkgconfig/mrc.pc lib/wireshark/plugins/mrc.lua \
         share/doc/mrc/LICENSE share/doc/mrc/CHANGELOG.md share/doc/mrc/README.md; do
    [ -s "$D/usr/$f" ] || bad "missing: /usr/$f"
done
[ -x "$D/usr/bin/mrc_perf" ] && ok "every file installed (mrc.h, mrc_perf, its man page, mrc.pc, mrc.lua, docs)"
ver=$(sed -n 's/^#define MRC_VERSION_STRING "\(.*\)"/\1/p' mrc.h)
if command -v pkg-config >/dev/null; then
    export PKG_CONFIG_PATH="$D/usr/share/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
    pv=$(pkg-config --modversion mrc 2>&1)
    cf=$(pkg-config --cflags mrc 2>&1 | sed 's/ *$//')
    if [ "$pv" = "$ver" ] && [ "$cf" = "-I$D/usr/include" ]; then ok "pkg-config: mrc $pv, cflags $cf"
    else bad "pkg-config: version '$pv' (mrc.h: $ver), cflags '$cf'"; fi
else
    cf="-I$D/usr/include"
    echo "skip pkg-config (not installed): the program below is built with $cf"
fi
printf '#define MRC_IMPLEMENTATION\n#include <mrc.h>\n#include <stdio.h>\nint main(void) { mrc_config c; mrc_config_default(&c); printf("%%s\\n", MRC_VERSION_STRING); return 0; }\n' >"$TMP/p.c"
if $CC -std=c99 $cf -o "$TMP/p" "$TMP/p.c" 2>"$TMP/cc.err" && [ "$("$TMP/p")" = "$ver" ]; then
    ok "a program built against the installed mrc.h runs (version $ver)"
else bad "a program against the installed header: $(head -3 "$TMP/cc.err")"; fi
v=$("$D/usr/bin/mrc_perf" --version 2>&1)
case "$v" in "mrc_perf $ver "*) ok "installed mrc_perf --version: $v" ;; *) bad "mrc_perf --version: '$v'" ;; esac
if command -v man >/dev/null && out=$(MANWIDTH=100 man -l "$D/usr/share/man/man1/mrc_perf.1" 2>&1 >/dev/null); then
    [ -z "$out" ] && ok "man -l mrc_perf.1: no warning" || bad "man -l mrc_perf.1: $out"
elif command -v groff >/dev/null; then
    out=$(groff -man -Tutf8 -ww "$D/usr/share/man/man1/mrc_perf.1" 2>&1 >/dev/null)
    [ -z "$out" ] && ok "groff -man mrc_perf.1: no warning" || bad "groff mrc_perf.1: $out"
else
    grep -q '^\.TH MRC_PERF 1' docs/mrc_perf.1 && ok "mrc_perf.1 has its .TH line (no man or groff here to render it)"
fi
awk '/^-----/ { n++; next } n == 1' src/license.h >"$TMP/lic"
if cmp -s "$TMP/lic" LICENSE && grep -q "Permission is hereby granted" LICENSE; then ok "LICENSE is the licence of mrc.h (src/license.h)"
else bad "LICENSE differs from the licence in src/license.h"; fi
make --no-print-directory -s uninstall DESTDIR="$D" PREFIX=/usr B="$B" >/dev/null 2>&1
left=$(find "$D" -type f | wc -l)
[ "$left" = 0 ] && ok "make uninstall removes every file" || bad "make uninstall left $left files"
echo "install-test: $pass passed, $fail failed"
[ "$fail" = 0 ]
