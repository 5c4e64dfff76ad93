#!/usr/bin/env python3
"""firmware/fw_size.py - the core's per-packet code path on Cortex-M4 (make firmware-size; firmware/README.md).

Runs the Cortex-M4 image in its "size" mode under QEMU with an execution trace (-d exec,nochain: one line per
translation block executed; -dfilter: the core's and the harness's functions, only the first block of the mem*
functions and libgcc's helpers), takes the part between fw_mark_begin and fw_mark_end (data packets 257..512 of the clean transfer, a
SACK per data packet), counts how often each function is entered there, and calls "per-packet path" the core's
functions entered at least once per 4 data packets: their .text sizes (nm -S) summed. Beside each, the bytes of it
that ran in that window (QEMU's -d in_asm gives each translation block's instructions): what the common case keeps
in an instruction cache or TCM, the rest being its cold branches. Next to it, the whole core's
.text: the core compiled alone (-Os -mcpu=cortex-m4 -mthumb -ffreestanding -DMRC_NO_FLOAT, with and without
MRC_NO_STRINGS, and as the images build it: MRC_NO_STRINGS MRC_NO_STATS MRC_NO_CHECK, fw.mk's FW_BUILD). The
targets are printed, not asserted.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

TARGET_CORE = 48 * 1024
TARGET_PATH = 8 * 1024
WINDOW_PKTS = 256  # data packets between the marks (fw_test.c: after the 256th and the 512th)
PER_PACKET = 4     # "entered at least once per 4 data packets"


def nm_functions(tool, elf):
    """(address, size, name, type) of every symbol in .text, sizes filled in from the next symbol where nm has none"""
    out = subprocess.run([tool, "-S", "-n", elf], check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:
            addr, size, typ, name = int(f[0], 16), int(f[1], 16), f[2], f[3]
        elif len(f) == 3:
            addr, size, typ, name = int(f[0], 16), None, f[1], f[2]
        else:
            continue
        syms.append([addr & ~1, size, name, typ])
    return syms


def section_sizes(tool, obj):
    out = subprocess.run([tool, "-A", obj], check=True, capture_output=True, text=True).stdout
    text = rodata = 0
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and f[1].isdigit():
            if f[0].startswith(".text"):
                text += int(f[1])
            elif f[0].startswith(".rodata"):
                rodata += int(f[1])
    return text, rodata


def kb(n):
    return "%.1f KB" % (n / 1024.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--elf", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--qemu", default="qemu-system-arm")
    ap.add_argument("--tool-prefix", default="arm-none-eabi-")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--core", required=True)
    ap.add_argument("--core-strings", required=True)
    ap.add_argument("--core-default", required=True)
    ap.add_argument("--core-default-strings", required=True)
    ap.add_argument("--core-default-fw", required=True)
    a = ap.parse_args()
    nm, size = a.tool_prefix + "nm", a.tool_prefix + "size"

    syms = nm_functions(nm, a.elf)
    addr = {s[2]: s[0] for s in syms}
    for k in ("__core_text_start", "__core_text_end", "__text_end", "fw_mark_begin", "fw_mark_end"):
        if k not in addr:
            sys.exit("firmware-size: %s not in %s" % (k, a.elf))
    core_lo, core_hi, text_end = addr["__core_text_start"], addr["__core_text_end"], addr["__text_end"]
    funcs = [s for s in syms if s[3] in "tTwW" and s[0] < text_end and not s[2].startswith("$")
             and s[2] not in ("__core_text_start", "__core_text_end", "__text_start", "__text_end", "__flash_start")]
    funcs.sort(key=lambda s: s[0])
    for i, s in enumerate(funcs):  # libgcc's assembly functions carry no size
        if s[1] is None:
            nxt = next((t[0] for t in funcs[i + 1:] if t[0] > s[0]), text_end)
            s[1] = nxt - s[0]
    # what the trace records: the core's functions and the harness's, whole (the function of the block executed just
    # before a function's entry is its caller), and only the first block of our mem* functions and libgcc's helpers
    # (their loops would swamp the log); not the set-up code, the wire's slot scans, the copy loop
    skip = ("copy_fwd", "wire_due", "wire_next", "wire_alloc", "setup", "rnd", "verify", "calibrate", "c_empty",
            "fw_count_loop", "fw_reset")
    ranges = []
    for s in funcs:
        base = s[2].split(".")[0]
        if base in skip:
            continue
        lo = s[0]
        hi = lo + 2 if base.startswith("__") or base.startswith("mem") else lo + max(s[1], 2)
        if ranges and ranges[-1][1] >= lo:
            ranges[-1] = (ranges[-1][0], max(ranges[-1][1], hi))
        else:
            ranges.append((lo, hi))
    dfilter = ",".join("0x%x..0x%x" % (lo, hi - 1) for lo, hi in ranges)
    cmd = [a.qemu, "-M", "mps2-an386", "-nographic", "-monitor", "none", "-serial", "none",
           "-semihosting-config", "enable=on,target=native,arg=fw,arg=size", "-icount", "shift=0",
           "-d", "in_asm,exec,nochain", "-dfilter", dfilter, "-D", a.trace, "-kernel", a.elf]
    if os.path.exists(a.trace):
        os.remove(a.trace)
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
    except subprocess.TimeoutExpired:
        sys.exit("firmware-size: FAIL: the traced run took more than %d s" % a.timeout)
    if run.returncode != 0 or "size run" not in run.stderr + run.stdout:
        sys.exit("firmware-size: FAIL: the traced run failed (exit status %d): %s" % (run.returncode,
                                                                                    (run.stderr + run.stdout)[-500:]))

    starts = {s[0]: s for s in funcs}
    bounds = [s[0] for s in funcs]
    import bisect
    entries = collections.Counter()
    blocks = collections.Counter()
    callers = collections.defaultdict(collections.Counter)
    prev = None
    state = 0
    pat = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/")
    # -d in_asm: each translation block's instructions, "0xADDR:  HALFWORDS  mnemonic", after an "IN:" line
    insn = re.compile(r"^0x([0-9a-f]+):\s+((?:[0-9a-f]{4}\s)+)")
    tb_insns = {}  # block start -> [(address, length)]
    tb = None
    ran = set()    # block starts executed between the marks
    with open(a.trace, errors="replace") as f:
        for line in f:
            if line.startswith("IN:"):
                tb = None
                continue
            m = insn.match(line)
            if m:
                at = int(m.group(1), 16)
                if tb is None:
                    tb = at
                    tb_insns[tb] = []
                tb_insns[tb].append((at, 2 * len(m.group(2).split())))
                continue
            m = pat.match(line)
            if not m:
                continue
            pc = int(m.group(1), 16)
            if state == 0:
                if pc == addr["fw_mark_begin"]:
                    state = 1
                continue
            if pc == addr["fw_mark_end"]:
                state = 2
                break
            i = bisect.bisect_right(bounds, pc) - 1
            if i < 0:
                continue
            fn = funcs[i]
            blocks[fn[0]] += 1
            ran.add(pc)
            if pc == fn[0]:
                entries[fn[0]] += 1
                if prev is not None and prev[0] != fn[0]:
                    callers[fn[0]][prev[2]] += 1
            prev = fn
    os.remove(a.trace)  # tens of MB; the figures are printed
    if state != 2:
        sys.exit("firmware-size: FAIL: the marks were not found in the trace")

    run_bytes = collections.defaultdict(set)  # function start -> the byte addresses that ran in the window
    for pc in ran:
        for at, n in tb_insns.get(pc, ()):
            i = bisect.bisect_right(bounds, at) - 1
            if i >= 0:
                run_bytes[funcs[i][0]].update(range(at, at + n))
    if ran and not tb_insns:
        sys.exit("firmware-size: FAIL: the trace has no -d in_asm blocks")

    def in_core(name):
        return name in addr and core_lo <= addr[name] < core_hi

    per_pkt, occasional, outside = [], [], []
    for fa in sorted(set(entries) | set(blocks)):
        s = starts[fa]
        row = (s[1], entries[fa] / WINDOW_PKTS, s[2], len(run_bytes[fa]))
        if not core_lo <= fa < core_hi:
            if s[2].startswith("__") or s[2] in ("memcpy", "memset", "memmove", "memcmp"):
                from_core = collections.Counter({k: v for k, v in callers[fa].items() if in_core(k)})
                if from_core:
                    outside.append((s[1], sum(from_core.values()) / WINDOW_PKTS, s[2], from_core))
        elif entries[fa] * PER_PACKET >= WINDOW_PKTS:
            per_pkt.append(row)
        else:
            occasional.append(row)
    per_pkt.sort(reverse=True)
    occasional.sort(reverse=True)
    total = sum(r[0] for r in per_pkt)
    core_in_image = core_hi - core_lo

    print("firmware-size: Cortex-M4, %s -Os -mcpu=cortex-m4 -mthumb; the image's clean transfer (SACK per data "
          "packet), data packets 257..512 traced (QEMU -d in_asm,exec,nochain)" % (a.tool_prefix + "gcc"))
    print("  per-packet path: the core's functions entered at least once per %d data packets" % PER_PACKET)
    print("    %6s  %6s  %9s  %s" % ("bytes", "ran", "calls/pkt", "function"))
    for sz, c, name, rb in per_pkt:
        print("    %6d  %6d  %9.2f  %s" % (sz, rb, c, name))
    ran_total = sum(r[3] for r in per_pkt)
    # a figure printed is checked: a function's bytes that ran lie inside it, and the common case runs some of each
    bad = [r[2] for r in per_pkt if not 0 < r[3] <= r[0]]
    if bad:
        sys.exit("firmware-size: FAIL: bytes that ran outside 1..size for %s (the in_asm blocks do not match nm)"
                 % ", ".join(bad))
    print("  per-packet path: %d functions, %d B (%s)   target: <= %s" % (len(per_pkt), total, kb(total),
                                                                       kb(TARGET_PATH)))
    print("  of which ran in the window (the common case's code, the rest its functions' cold branches): %d B (%s)"
          % (ran_total, kb(ran_total)))
    if occasional:
        print("  also entered in the window, less often than once per %d data packets: %d functions, %d B (%s): %s"
              % (PER_PACKET, len(occasional), sum(r[0] for r in occasional), kb(sum(r[0] for r in occasional)),
                 ", ".join("%s %.3f/pkt" % (r[2], r[1]) for r in occasional)))
    print("  called by the core, outside it (our mem* functions, libgcc's helpers): %s" % (
        "; ".join("%s %d B, %.2f/pkt (from %s)" % (r[2], r[0], r[1], ", ".join(
            "%s %.2f" % (k, v / WINDOW_PKTS) for k, v in r[3].most_common())) for r in outside) or "none"))
    print("  the core's functions in this image (--gc-sections keeps what it calls): %d B (%s)" %
          (core_in_image, kb(core_in_image)))
    rows = [("default capacities, MRC_NO_STRINGS", a.core_default),
            ("default capacities, with strings", a.core_default_strings),
            ("default capacities, the firmware build (MRC_NO_STRINGS MRC_NO_STATS MRC_NO_CHECK)", a.core_default_fw),
            ("firmware capacities (fw_config.h), the firmware build", a.core),
            ("firmware capacities, with strings, counters and the checker", a.core_strings)]
    print("  the whole core, compiled alone (-Os -mcpu=cortex-m4 -mthumb -ffreestanding -DMRC_NO_FLOAT):")
    for label, obj in rows:
        t, r = section_sizes(size, obj)
        print("    .text %6d B (%s), .rodata %5d B, together %s: %s" % (t, kb(t), r, kb(t + r), label))
    print("  target for the whole core: <= %s of .text" % kb(TARGET_CORE))
    print("firmware-size: per-packet path %d B, whole core %d B .text (default capacities, MRC_NO_STRINGS), %d B as a "
          "firmware builds it (MRC_NO_STRINGS MRC_NO_STATS MRC_NO_CHECK)" %
          (total, section_sizes(size, a.core_default)[0], section_sizes(size, a.core_default_fw)[0]))


if __name__ == "__main__":
    main()
