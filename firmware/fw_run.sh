#!/usr/bin/env bash
# firmware/fw_run.sh test|bench|size - what make firmware-test, firmware-bench and firmware-size run (firmware/fw.mk
# passes MAKE, B, JOBS, FW_ARM_CC, FW_RV_CC, FW_QEMU_ARM, FW_QEMU_RV, FW_TIMEOUT).
#   test   build the images this machine has tools for (a SKIP line for the others), run each under QEMU with a
#          timeout, print its lines; fail on FAIL, a fault, a timeout or a missing PASS
#   bench  the same, only the JSON lines on stdout (the rest on stderr)
#   size   the per-packet code path of the Cortex-M4 image (firmware/fw_size.py)
set -uo pipefail
mode=${1:-test}
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
B=${B:-build}
JOBS=${JOBS:-2}
FW_ARM_CC=${FW_ARM_CC:-arm-none-eabi-gcc}
FW_RV_CC=${FW_RV_CC:-riscv64-unknown-elf-gcc}
FW_QEMU_ARM=${FW_QEMU_ARM:-qemu-system-arm}
FW_QEMU_RV=${FW_QEMU_RV:-qemu-system-riscv32}
FW_TIMEOUT=${FW_TIMEOUT:-60}
FB=$B/fw
tag="firmware-$mode"

# the image builds: a make of their own, with JOBS jobs (not a recursive make: make -n check must not run this script)
build() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$MAKE" --no-print-directory -j"$JOBS" B="$B" FW_ARM_CC="$FW_ARM_CC" \
        FW_RV_CC="$FW_RV_CC" "$@"
}
say() { if [ "$mode" = bench ]; then echo "$@" >&2; else echo "$@"; fi; }

# which targets this machine can build and run
have_cm4=1 have_rv=1
need() { # target tool package
    if ! command -v "$2" >/dev/null 2>&1; then
        say "$tag: SKIP $1: $2 not found (apt-get install $3)"
        return 1
    fi
}
need cortex-m4 "$FW_ARM_CC" gcc-arm-none-eabi || have_cm4=0
[ $have_cm4 = 1 ] && { need cortex-m4 "$FW_QEMU_ARM" qemu-system-arm || have_cm4=0; }
if [ "$mode" != size ]; then
    need rv32 "$FW_RV_CC" gcc-riscv64-unknown-elf || have_rv=0
    [ $have_rv = 1 ] && { need rv32 "$FW_QEMU_RV" qemu-system-misc || have_rv=0; }
else
    have_rv=0
fi
command -v timeout >/dev/null 2>&1 || { say "$tag: SKIP: timeout (coreutils) not found"; exit 0; }

# QEMU command lines (firmware/README.md): semihosting for output and exit status, -icount shift=0 so the guest runs
# one instruction per virtual ns (the instruction counters rely on it)
qemu_cmd() { # image kind(cm4|rv32) [semihosting arguments, e.g. ",arg=fw,arg=unaligned"]: sets the array cmd
    case $2 in
        cm4) cmd=("$FW_QEMU_ARM" -M mps2-an386 -nographic -monitor none -serial none
                  -semihosting-config "enable=on,target=native${3:-}" -icount shift=0 -kernel "$1") ;;
        rv32) cmd=("$FW_QEMU_RV" -M virt -bios none -m 128M -nographic -monitor none -serial none
                   -semihosting-config "enable=on,target=native${3:-}" -icount shift=0 -kernel "$1") ;;
    esac
}

if [ "$mode" = size ]; then
    [ $have_cm4 = 1 ] || exit 0
    command -v python3 >/dev/null 2>&1 || { echo "$tag: SKIP: python3 not found (apt-get install python3)"; exit 0; }
    build fw-size-objs || exit 1
    exec python3 firmware/fw_size.py --elf "$FB/cm4.elf" --trace "$FB/size-trace.log" --timeout "$FW_TIMEOUT" \
        --tool-prefix "${FW_ARM_CC%gcc}" --qemu "$FW_QEMU_ARM" \
        --core "$FB/core/core.o" --core-strings "$FB/core/core-strings.o" --core-default "$FB/core/core-default.o" \
        --core-default-strings "$FB/core/core-default-strings.o" --core-default-fw "$FB/core/core-default-fw.o"
fi

images=() goals=()
[ $have_cm4 = 1 ] && { images+=(cm4 cm4-strict); goals+=(fw-images-cm4); }
[ $have_rv = 1 ] && { images+=(rv32); goals+=(fw-images-rv32); }
[ ${#images[@]} -gt 0 ] || exit 0
if [ "$mode" = bench ]; then
    build "${goals[@]}" >&2 || exit 1
else
    build "${goals[@]}" || exit 1
fi

# run every image at once (QEMU runs one guest CPU per process), each with its timeout; then read the logs in order
run_one() { # image log [semihosting arguments]
    local t0 rc
    case $1 in
        cm4*) qemu_cmd "$FB/$1.elf" cm4 "${3:-}" ;;
        *) qemu_cmd "$FB/$1.elf" rv32 "${3:-}" ;;
    esac
    t0=$(date +%s%N)
    timeout "$FW_TIMEOUT" "${cmd[@]}" >"$2" 2>&1 </dev/null
    rc=$?
    echo "$rc $(( ($(date +%s%N) - t0) / 100000000 ))" >"$2.rc"
}
for img in "${images[@]}"; do
    rm -f "$FB/$img.log" "$FB/$img.log.rc"
    run_one "$img" "$FB/$img.log" &
done
if [ "$mode" = test ] && [ $have_cm4 = 1 ]; then # the strict image's trap must work: an unaligned LDR must fault
    run_one cm4-strict "$FB/cm4-strict-trap.log" ",arg=fw,arg=unaligned" &
fi
wait

fail=0
for img in "${images[@]}"; do
    elf=$FB/$img.elf log=$FB/$img.log
    case $img in
        cm4*) prefix=${FW_ARM_CC%gcc} ;;
        *) prefix=${FW_RV_CC%gcc} ;;
    esac
    read -r rc tenths <"$log.rc" || { rc=1 tenths=0; }
    secs="$((tenths / 10)).$((tenths % 10))"
    name=$(sed -n 's/^fw \([^:]*\): .*/\1/p' "$log" | head -1)
    [ -n "$name" ] || name=$img
    json=$(grep '^{"bench":"firmware"' "$log" | tail -1)
    why=""
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        why="timeout after ${FW_TIMEOUT} s"
    elif grep -q '^FAULT' "$log"; then
        pc=$(sed -n 's/^FAULT.* pc=0x\([0-9a-f]*\).*/\1/p' "$log" | head -1)
        where=""
        if [ -n "$pc" ] && command -v "${prefix}addr2line" >/dev/null 2>&1; then
            where=" at $("${prefix}addr2line" -f -i -p -e "$elf" "0x$pc" 2>/dev/null | tr '\n' ' ')"
        fi
        why="$(grep '^FAULT' "$log" | head -1)$where"
    elif [ "$rc" != 0 ]; then
        why="exit status $rc"
    elif ! grep -q ': PASS$' "$log" || ! printf '%s' "$json" | grep -q '"result":"PASS"'; then
        why="no PASS line"
    fi
    if [ "$mode" = bench ]; then
        [ -n "$json" ] && echo "$json"
        [ -n "$why" ] && echo "$tag: FAIL $name: $why (log: $log)" >&2
    else
        grep -v '^{"bench"' "$log" | sed 's/^/  /'
        [ -n "$json" ] && echo "  $json"
        if [ -n "$why" ]; then
            echo "$tag: FAIL $name: $why (log: $log)"
        else
            echo "$tag: $name: PASS in ${secs} s"
        fi
    fi
    [ -n "$why" ] && fail=1
    if [ "$img" = cm4-strict ] && [ "$mode" = test ]; then
        tl=$FB/cm4-strict-trap.log
        read -r rc tenths <"$tl.rc" || rc=1
        if [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q '^FAULT: UsageFault.*UNALIGNED' "$tl"; then
            echo "$tag: $name: the alignment trap works: $(grep '^FAULT' "$tl"), exit status $rc"
        else
            echo "$tag: FAIL $name: an unaligned load did not fault as it must (exit status $rc, log: $tl)"
            fail=1
        fi
    fi
done
if [ "$mode" = test ]; then
    if [ $fail = 0 ]; then echo "$tag: ${#images[@]} images passed"; else echo "$tag: FAILED"; fi
fi
exit $fail
