#!/usr/bin/env python3
"""div_check.py OBJDUMP OBJ - no 64-bit division on a per-packet path of the core (make freestanding).

OBJ is the core compiled for a 32-bit target with -ffunction-sections (every function in its own section, so every
call carries a relocation naming its target). The per-packet roots are mrc_endpoint_poll_tx and mrc_endpoint_recv,
plus every function whose address sits in a data table (the congestion-control algorithm rows are called per SACK).
From them the call graph is followed, except into functions whose name ends in _slow: those run at most once per
RTT or adjust period (mrc.h, MRC__NOINLINE). Any reachable function that calls a 64-bit division or modulo helper
fails the check, with the call chain that reaches it. Prints one line per finding and a summary line.
"""
import re
import subprocess
import sys

DIV = re.compile(r"^(__aeabi_[lu]?ldivmod|__aeabi_uldivmod|__aeabi_ldivmod|__(u)?(div|mod)di3|__udivmoddi4|__divmoddi4)$")
ROOTS = ["mrc_endpoint_poll_tx", "mrc_endpoint_recv"]


def main():
    objdump, obj = sys.argv[1], sys.argv[2]
    rel = subprocess.run([objdump, "-r", obj], capture_output=True, text=True, check=True).stdout
    calls, sec, roots = {}, None, set(ROOTS)
    for line in rel.splitlines():
        m = re.match(r"RELOCATION RECORDS FOR \[(.*)\]:", line)
        if m:
            sec = m.group(1)
            continue
        f = line.split()
        if len(f) != 3 or not sec:
            continue
        typ, target = f[1], f[2]
        target = target[len(".text."):] if target.startswith(".text.") else target
        if sec.startswith(".text."):
            if "CALL" in typ or "JUMP" in typ or typ.startswith("R_RISCV_CALL"):
                calls.setdefault(sec[len(".text."):], set()).add(target)
        elif sec.startswith((".rodata", ".data")) and ("ABS32" in typ or typ in ("R_RISCV_32", "R_RISCV_64")) \
                and target.startswith("mrc"):
            roots.add(target)  # a function in a table: called through it
    syms = subprocess.run([objdump, "-t", obj], capture_output=True, text=True, check=True).stdout
    funcs = {l.split()[-1] for l in syms.splitlines() if " F " in l}
    roots = {r for r in roots if r in funcs or r in ROOTS}  # tables of data, not of functions, are no roots
    seen, bad, todo = {}, [], [(r, [r]) for r in sorted(roots)]
    while todo:
        fn, chain = todo.pop()
        if fn in seen or fn.endswith("_slow"):
            continue
        seen[fn] = chain
        for t in sorted(calls.get(fn, ())):
            if DIV.match(t):
                bad.append("%s calls %s (reached by %s)" % (fn, t, " -> ".join(chain)))
            elif t in calls or t.startswith("mrc"):
                todo.append((t, chain + [t]))
    for b in bad:
        print("FAIL div-check: " + b)
    slow = sorted(f for f in calls if f.endswith("_slow"))
    print("div-check: %d functions on the per-packet path (roots %s), %d kept off it (%s): %s" % (
        len(seen), ", ".join(sorted(roots)), len(slow), ", ".join(slow) or "none",
        "%d 64-bit divisions on it" % len(bad) if bad else "no 64-bit division on it"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
