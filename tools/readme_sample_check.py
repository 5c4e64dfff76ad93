#!/usr/bin/env python3
"""readme_sample_check.py - every figure of the README's sample output regenerated and compared (make docs-check).

The README shows one SACK as the Wireshark dissector prints it: a one-line summary and a `tshark -V` excerpt. That
SACK is frame 6 of `mrc_pcap gen` (tools/mrc_pcap.c). This script regenerates the capture, decodes it with the core's
own decoder (`mrc_pcap dump`: mrc_frame_parse + mrc_pkt_decode) and reads the frame's bytes, then checks each figure
the README prints against what it must be: the header fields as decoded, and every derived figure recomputed from
them (the acknowledged PSN = cack + ack_psn_offset, the bitmap's base = cack + sack_offset, its population count and
the PSNs its first bits name, "(N more)", the timestamp in ns and the wrap of its 16 bits, ooo_count's bit pattern,
the ICRC of the frame's last 4 bytes and whether it is the one computed, the frame of the data packet the SACK
names). A figure that is not what the regenerated packet gives, or a sample line that is missing, fails.

    tools/readme_sample_check.py PATH/TO/mrc_pcap [README.md]

Prints one line per check and "readme-sample: N passed, N failed"; exit status 1 when a check failed.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

TS_SHIFT = 7  # mrc_config_default: wire.ts_shift (128 ns), the dissector's default preference too
SACK_FRAME = 6

passed = failed = 0


def ok(msg):
    global passed
    passed += 1
    print("ok   " + msg)


def bad(msg):
    global failed
    failed += 1
    print("FAIL " + msg)


def pcap_frames(path):
    """the frames of a classic pcap file, in order (1-based frame n is frames[n - 1])"""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off, frames = 24, []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def readme_sample(readme):
    """the one-line summary and the lines of the ``` block that follows the `tshark -V` sentence"""
    text = open(readme, encoding="utf-8").read()
    one = re.search(r"`(SACK cack=0x[0-9a-f]+ ack=0x[0-9a-f]+ bitmap \d+ of \d+ qp=0x[0-9a-f]+ ev=\d+)`", text)
    m = re.search(r"under `tshark -V`.*?\n```\n(.*?)\n```", text, re.S)
    return (one.group(1) if one else None), (m.group(1).splitlines() if m else [])


def main():
    if len(sys.argv) < 2:
        print("usage: readme_sample_check.py PATH/TO/mrc_pcap [README.md]")
        return 2
    tool = sys.argv[1]
    readme = sys.argv[2] if len(sys.argv) > 2 else "README.md"
    with tempfile.TemporaryDirectory() as tmp:
        cap = os.path.join(tmp, "gen.pcap")
        subprocess.run([tool, "gen", cap], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        names = subprocess.run([tool, "fields"], check=True, capture_output=True, text=True).stdout.split()
        dump = subprocess.run([tool, "dump", cap], check=True, capture_output=True, text=True).stdout.splitlines()
        frames = pcap_frames(cap)
    rows = {}
    for line in dump:
        cols = line.split("\t")
        rows[int(cols[0])] = dict(zip(names, cols[2:]), status=cols[1])
    f = rows[SACK_FRAME]

    def num(name):
        return int(f[name])

    cack, aoff, soff, bm = num("mrc.seth.cack_psn"), num("mrc.seth.ack_psn_offset"), num("mrc.seth.sack_offset"), \
        num("mrc.seth.sack_bitmap")
    ack, base = (cack + aoff) & 0xFFFFFF, (cack + soff) & 0xFFFFFF
    bits = [i for i in range(64) if (bm >> i) & 1]
    psns = [(base + i) & 0xFFFFFF for i in bits]
    ts, ooo = num("mrc.cc.ts"), num("mrc.cc.ooo_count")
    oob = format(ooo, "015b")  # the 15 bits under the r_c bit, as Wireshark draws them
    raw = frames[SACK_FRAME - 1]
    icrc = struct.unpack("<I", raw[-4:])[0]
    # the data packet the SACK names: the latest data frame before it with PSN = the acknowledged PSN
    named = max(n for n, r in rows.items() if n < SACK_FRAME and r["mrc.bth.psn"] == str(ack) and r["mrc.payload_len"])
    # figures derived from the decoded fields agree with the decoder's own derived fields
    if [int(x) for x in f["mrc.seth.sacked_psn"].split(",")] == psns and int(f["mrc.seth.sacked_count"]) == len(bits) \
            and int(f["mrc.seth.ack_psn"]) == ack and int(f["mrc.seth.sack_base"]) == base:
        ok("frame %d (the README's SACK): the decoder's acknowledged PSN, bitmap base and %d PSNs are the arithmetic's"
           % (SACK_FRAME, len(bits)))
    else:
        bad("frame %d: the decoder's derived fields differ from cack + offsets and the bitmap's bits" % SACK_FRAME)
    if f["status"] == "ok" and f["mrc.icrc.status"] == "1":
        ok("frame %d decodes (status ok) and its ICRC is the computed one" % SACK_FRAME)
    else:
        bad("frame %d: status %s, ICRC status %s" % (SACK_FRAME, f["status"], f["mrc.icrc.status"]))

    one, lines = readme_sample(readme)
    want_one = "SACK cack=0x%06x ack=0x%06x bitmap %d of 64 qp=0x%06x ev=%s" % (
        cack, ack, len(bits), num("mrc.bth.dest_qp"), f["mrc.ev"])
    if one == want_one:
        ok("README one-line summary: %s" % one)
    else:
        bad("README one-line summary is '%s', the regenerated SACK gives '%s'" % (one, want_one))
    if not lines:
        bad("README: no `tshark -V` sample block found")
    body = "\n".join(lines)
    m_names = {0: "NONE", 1: "SKIP_ONCE", 2: "ALWAYS_SKIP", 3: "RESERVED"}
    want = [
        "Opcode: SACK (0x%02x)" % num("mrc.opcode"),
        "Destination QP: 0x%06x" % num("mrc.bth.dest_qp"),
        "PSN: 0x%06x" % num("mrc.bth.psn"),
        "[EV (entropy as seen on the wire): %s]" % f["mrc.ev"],
        ".%s. .... = m (EV request): %s (%d)" % (format(num("mrc.seth.m"), "02b"), m_names[num("mrc.seth.m")],
                                                 num("mrc.seth.m")),
        ".... ..%d. = pr (probe answer): %d" % (num("mrc.seth.pr"), num("mrc.seth.pr")),
        "ack_psn_offset: %d" % aoff,
        "Entropy (EV of the named packet): %d" % num("mrc.seth.entropy"),
        "Cumulative ack PSN (cack_psn): 0x%06x" % cack,
        "sack_offset: %d" % soff,
        "SACK bitmap: 0x%016x" % bm,
        "[PSNs acknowledged by the bitmap: %d]" % len(bits),
        "[PSN acknowledged by the bitmap: 0x%06x]" % psns[0],
        "[PSN acknowledged by the bitmap: 0x%06x]" % psns[1],
        "... (%d more)" % (len(bits) - 2),
        "[Acknowledged PSN (cack + ack_psn_offset): 0x%06x]" % ack,
        "[Bitmap base PSN (cack + sack_offset): 0x%06x]" % base,
        "tx_timestamp (echo): %d (%d ns mod %.3f ms)" % (ts, ts << TS_SHIFT, (1 << (16 + TS_SHIFT)) / 1e6),
        ".%s %s %s %s = ooo_count: %d" % (oob[0:3], oob[3:7], oob[7:11], oob[11:15], ooo),
        "rcvd_bytes (256-byte units): %d" % num("mrc.cc.rcvd_bytes"),
        "ICRC: 0x%08x [correct]" % icrc,
        "[Names the data in frame: %d]" % named,
    ]
    for w in want:
        if w in body:
            ok("README sample: %s" % w)
        else:
            near = [ln.strip() for ln in lines if ln.strip().split(":")[0] == w.split(":")[0]]
            bad("README sample: wants '%s' (regenerated), has %s" % (w, "'%s'" % near[0] if near else "no such line"))
    print("readme-sample: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
