#!/bin/sh
# cross_test.sh be|32 - the test suite and the frame codec's tests built with a Debian cross compiler and run under
# qemu-user: big-endian 64-bit (s390x, make test-be) or 32-bit x86 (i686, make test-32). Both use the project's
# strict warning set with -Werror, so a warning that only a 32-bit size_t or FLT_EVAL_METHOD 1 raises fails here.
# Installs the compiler, its libc and qemu-user with apt-get when they are missing and this is root; otherwise prints
# one SKIP line and exits 0. Last line: "N passed, N failed" (both programs together).
set -u
case "${1:-}" in
be) CC_X=s390x-linux-gnu-gcc QEMU=qemu-s390x PKGS="gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user"
    NAME=test-be WHAT="s390x (64-bit big-endian)" ;;
32) CC_X=i686-linux-gnu-gcc QEMU=qemu-i386 PKGS="gcc-i686-linux-gnu libc6-dev-i386-cross qemu-user"
    NAME=test-32 WHAT="i686 (32-bit little-endian, x87 float)" ;;
*) echo "usage: $0 be|32" >&2; exit 2 ;;
esac
B=${B:-build}
WARN="-Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wcast-align -Wstrict-prototypes
      -Wmissing-prototypes -Wundef -Wvla -Wswitch-enum -Wdouble-promotion -Werror"
if ! command -v "$CC_X" >/dev/null || ! command -v "$QEMU" >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "$NAME: installing $PKGS with apt-get"
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PKGS >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 &&
              DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PKGS >/dev/null 2>&1; }
    fi
fi
command -v "$CC_X" >/dev/null && command -v "$QEMU" >/dev/null ||
    { echo "$NAME: SKIP: no $CC_X or $QEMU (apt-get install $PKGS)"; exit 0; }
mkdir -p "$B"
echo "$NAME: $WHAT: $($CC_X --version | head -1), $($QEMU --version | head -1)"
p=0 f=0
# the test suite is mrc_test.c and its modules tests/*.c (one translation unit each)
for t in "mrc_test:mrc_test.c $(echo tests/*.c)" mrc_frame_test:ports/common/mrc_frame_test.c; do
    bin="$B/${t%%:*}_$NAME"
    # shellcheck disable=SC2086
    if ! $CC_X -std=c99 $WARN -O2 -static -o "$bin" ${t#*:}; then
        echo "FAIL - $NAME: ${t#*:} does not build for $WHAT"
        f=$((f + 1))
        continue
    fi
    out=$("$QEMU" "$bin" 2>&1)
    rc=$?
    last=$(printf '%s\n' "$out" | tail -n 1)
    printf '%s\n' "$out" | grep -E '^(FAIL|not ok)' | head -20
    echo "$NAME: ${t%%:*}: $last"
    np=$(echo "$last" | awk '/passed, .* failed/ { print $1 }')
    nf=$(echo "$last" | awk '/passed, .* failed/ { print $3 }')
    if [ -z "$np" ]; then # crashed before its summary
        echo "FAIL - $NAME: ${t%%:*} exited $rc without a summary"
        f=$((f + 1))
    else
        p=$((p + np))
        f=$((f + nf))
        if [ $rc -ne 0 ] && [ "$nf" -eq 0 ]; then echo "FAIL - $NAME: ${t%%:*} exited $rc"; f=$((f + 1)); fi
    fi
done
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
