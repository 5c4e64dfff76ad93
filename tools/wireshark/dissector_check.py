#!/usr/bin/env python3
"""dissector_check.py - checks tools/wireshark/mrc.lua with tshark against the core's own decoder (make dissector-test).

  dissector_check.py --tshark T --lua mrc.lua --tool build/mrc_pcap
                     [--compare NAME=FILE.pcap[:WIRE OPTIONS]]... [--garbage NAME=FILE.pcap]... [--require-all]

--compare: every frame of the capture is dissected by tshark (-T fields, the fields `mrc_pcap fields` names) and
decoded by `mrc_pcap dump` (mrc_frame_parse + mrc_pkt_decode, with the same wire options, passed to tshark as the
dissector's preferences); the two are compared frame by frame and field by field. A frame the core decodes is
compared on every field; one it rejects (truncated, malformed) on its BTH, EV and ICRC status. IBTA opcodes must be
left to Wireshark's InfiniBand dissector. Every frame: no Lua error, no internal error of the dissector.

--garbage: the same, and every frame the core rejects (or that is too short for a BTH and an ICRC) must carry expert
info of the Malformed group from the dissector.

--require-all: fail unless the --compare captures together hold every MRC opcode, every NACK reason, a probe, both
endpoint operations (request and response) and a transport ACK.
"""
import argparse
import subprocess
import sys

MRC_OPCODES = {0xC6: "WRITE_FIRST", 0xC7: "WRITE_MIDDLE", 0xC8: "WRITE_LAST", 0xC9: "WRITE_LAST_IMM",
               0xCA: "WRITE_ONLY", 0xCB: "WRITE_ONLY_IMM", 0xD1: "ACK", 0xD8: "ENDPOINT_REQUEST",
               0xD9: "ENDPOINT_RESPONSE", 0xDC: "SACK", 0xDD: "NACK", 0xDE: "PROBE_REQ"}
NACK_REASONS = {0x01: "TRIMMED", 0x02: "TRIMMED_LASTHOP", 0x06: "NO_BITMAP", 0x07: "NO_PKT_BUFFER",
                0x0A: "NO_RESOURCE", 0x0B: "PSN_OOR_WINDOW", 0x19: "UNEXP_EVENT"}
GROUP_MALFORMED = 0x07000000
EXTRA = ["frame.number", "frame.protocols", "_ws.lua.error", "_ws.expert.message", "_ws.expert.group"]
WIRE_TO_PREF = {"--bth-m-bit": "mrc.bth_m_bit", "--eeth-op-shift": "mrc.eeth_op_shift"}


def wire_prefs(wire):
    """mrc_pcap's wire options as the dissector's preferences (tshark -o)"""
    out, w = [], wire.split()
    i = 0
    while i < len(w):
        if w[i] in WIRE_TO_PREF:
            out += ["-o", "%s:%s" % (WIRE_TO_PREF[w[i]], w[i + 1])]
            i += 2
            continue
        if w[i] == "--sack-msb-first":
            out += ["-o", "mrc.sack_msb_first:TRUE"]
        elif w[i] == "--stev-sport-low":
            out += ["-o", "mrc.stev_sport_high:FALSE"]
        else:
            sys.exit("dissector_check: unknown wire option %s" % w[i])
        i += 1
    return out


def norm(v, sep):
    """a field's value(s) as a list of ints where they parse (hex, decimal, signed, booleans)"""
    out = []
    for x in (v.split(sep) if v != "" else []):
        if x in ("True", "False"):
            out.append(1 if x == "True" else 0)
            continue
        try:
            out.append(int(x, 0))
        except ValueError:
            out.append(x)
    return out


class Totals:
    def __init__(self):
        self.packets = 0
        self.fields = 0
        self.mismatches = []
        self.errors = []
        self.opcodes = set()
        self.reasons = set()
        self.erth_ops = set()
        self.eeth_ops = set()
        self.syndromes = set()
        self.ib = 0
        self.status = {}


def run(args, name, pcap, wire, garbage, fields, tot):
    dump = subprocess.run([args.tool, "dump"] + wire.split() + [pcap], stdout=subprocess.PIPE, check=True,
                          universal_newlines=True).stdout.splitlines()
    cmd = [args.tshark, "-n", "-X", "lua_script:" + args.lua, "-r", pcap] + wire_prefs(wire) + \
        ["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=|"]
    for f in EXTRA + fields:
        cmd += ["-e", f]
    ts = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if ts.returncode != 0 or "Lua" in ts.stderr and "rror" in ts.stderr:
        tot.errors.append("%s: tshark failed (exit %d): %s" % (name, ts.returncode, ts.stderr.strip()[-400:]))
        return
    lines = ts.stdout.splitlines()
    if len(lines) != len(dump):
        tot.errors.append("%s: tshark shows %d frames, the core's decoder %d" % (name, len(lines), len(dump)))
        return
    idx = {f: i for i, f in enumerate(fields)}
    bth_only = [f for f in fields if f.startswith("mrc.bth.") or f in ("mrc.opcode", "mrc.ev", "mrc.icrc.status")]
    npk = nf = 0
    ops = set()
    for tl, dl in zip(lines, dump):
        t = tl.split("\t")
        d = dl.split("\t")
        t += [""] * (len(EXTRA) + len(fields) - len(t))
        num, protos, luaerr, emsg, egrp = t[:5]
        tv = t[len(EXTRA):]
        status = d[1]
        dv = d[2:]
        tot.status[status] = tot.status.get(status, 0) + 1
        where = "%s frame %s (%s)" % (name, num, status)
        if luaerr or "Lua Error" in emsg:
            tot.errors.append("%s: Lua error: %s" % (where, emsg or luaerr))
        if "internal error" in emsg:
            tot.errors.append("%s: %s" % (where, emsg))
        groups = set(norm(egrp, "|"))
        if status == "ib":
            tot.ib += 1
            if "infiniband" not in protos.split(":") or tv[idx["mrc.opcode"]]:
                tot.errors.append("%s: an IBTA opcode not left to the InfiniBand dissector (%s)" % (where, protos))
            continue
        if status == "snap":
            continue
        bad = status in ("trunc", "malformed", "frame:short")
        if bad and garbage and GROUP_MALFORMED not in groups:
            tot.errors.append("%s: rejected by the core, but no Malformed expert info (experts: %s)" % (where, emsg))
        if status.startswith("frame:"):
            continue
        compare = fields if status == "ok" else bth_only
        npk += 1
        for f in compare:
            a = norm(tv[idx[f]], "|")
            b = norm(dv[idx[f]], ",")
            if not a and not b:
                continue
            nf += 1
            if a != b:
                tot.mismatches.append("%s: %s: tshark %s, core %s" % (where, f, tv[idx[f]], dv[idx[f]]))
        if status == "ok" and not garbage:
            op = int(dv[idx["mrc.opcode"]])
            ops.add(op)
            tot.opcodes.add(op)
            if op == 0xDD:
                tot.reasons.add(int(dv[idx["mrc.neth.reason"]]))
            if op == 0xD8:
                tot.erth_ops.add(int(dv[idx["mrc.erth.op"]]))
            if op == 0xD9:
                tot.eeth_ops.add(int(dv[idx["mrc.eeth.op"]]))
            if op == 0xD1:
                tot.syndromes.add(int(dv[idx["mrc.aeth.syndrome"]]))
    tot.packets += npk
    tot.fields += nf
    print("dissector-test: %-9s %5d frames, %5d compared, %6d fields%s%s" %
          (name, len(dump), npk, nf, "" if wire == "" else " (wire options: %s)" % wire,
           "" if not ops else "; opcodes " + " ".join("%02X" % o for o in sorted(ops))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tshark", default="tshark")
    ap.add_argument("--lua", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--compare", action="append", default=[])
    ap.add_argument("--garbage", action="append", default=[])
    ap.add_argument("--require-all", action="store_true")
    args = ap.parse_args()
    fields = subprocess.run([args.tool, "fields"], stdout=subprocess.PIPE, check=True,
                            universal_newlines=True).stdout.split()
    tot = Totals()
    for spec in args.compare:
        name, rest = spec.split("=", 1)
        pcap, _, wire = rest.partition(":")
        run(args, name, pcap, wire, False, fields, tot)
    cmp_pk, cmp_f = tot.packets, tot.fields
    gtot = Totals()
    for spec in args.garbage:
        name, pcap = spec.split("=", 1)
        run(args, name, pcap, "", True, fields, gtot)
    ok = True
    for e in tot.errors + gtot.errors:
        print("dissector-test: FAIL: " + e)
        ok = False
    for m in (tot.mismatches + gtot.mismatches)[:30]:
        print("dissector-test: MISMATCH: " + m)
    if tot.mismatches or gtot.mismatches:
        print("dissector-test: FAIL: %d field mismatches" % (len(tot.mismatches) + len(gtot.mismatches)))
        ok = False
    print("dissector-test: %d packets and %d fields compared with the core's decoder: %d differ" %
          (cmp_pk, cmp_f, len(tot.mismatches)))
    if args.garbage:
        st = gtot.status
        print("dissector-test: garbage: %d frames (%d the core decodes, %d truncated, %d malformed, %d too short for "
              "BTH + ICRC, %d cut by the snapshot length, %d IBTA opcodes); %d frames and %d fields compared, "
              "%d differ; rejected frames without Malformed expert info or with a Lua error: %d" %
              (sum(st.values()), st.get("ok", 0), st.get("trunc", 0), st.get("malformed", 0),
               st.get("frame:short", 0), st.get("snap", 0), st.get("ib", 0), gtot.packets, gtot.fields,
               len(gtot.mismatches), len(gtot.errors)))
    print("dissector-test: opcodes covered (%d of %d): %s" % (len(tot.opcodes & set(MRC_OPCODES)), len(MRC_OPCODES),
          " ".join("0x%02X %s" % (o, MRC_OPCODES[o]) for o in sorted(tot.opcodes) if o in MRC_OPCODES)))
    print("dissector-test: NACK reasons covered (%d of %d): %s" % (len(tot.reasons & set(NACK_REASONS)),
          len(NACK_REASONS), " ".join(NACK_REASONS.get(r, hex(r)) for r in sorted(tot.reasons))))
    print("dissector-test: endpoint operations: requests %s, responses %s; AETH syndromes %s; IBTA frames left to "
          "the InfiniBand dissector: %d" % (sorted(tot.erth_ops), sorted(tot.eeth_ops),
                                            " ".join("0x%02X" % s for s in sorted(tot.syndromes)), tot.ib))
    if args.require_all:
        miss = []
        miss += ["opcode 0x%02X %s" % (o, n) for o, n in sorted(MRC_OPCODES.items()) if o not in tot.opcodes]
        miss += ["NACK reason %s" % n for r, n in sorted(NACK_REASONS.items()) if r not in tot.reasons]
        miss += ["%s endpoint operation %s" % (w, n) for w, s in (("request", tot.erth_ops), ("response", tot.eeth_ops))
                 for v, n in ((0, "PORT_STATUS_UPDATE"), (1, "EV_PROBE")) if v not in s]
        if 0x1F not in tot.syndromes:
            miss.append("a transport ACK (syndrome 0x1F)")
        if miss:
            print("dissector-test: FAIL: not covered: " + ", ".join(miss))
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
