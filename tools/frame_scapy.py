#!/usr/bin/python3
"""frame_scapy.py - check the frame codec (ports/common/mrc_frame.h) against Scapy's RoCEv2 layer.

  frame_scapy.py verify PCAP EXPECT   frames the codec built (mrc_frame_test --gen): Scapy dissects each one, its
                                      headers must hold what EXPECT says and its ICRC must be the one Scapy computes
  frame_scapy.py build PCAP EXPECT    Scapy builds frames of every kind (IPv4, IPv6, 802.1Q, SRv6 + SRH; MRC opcodes,
                                      pads, payloads) with Scapy's ICRC, for mrc_frame_test --check

Scapy 2.5 (Debian 12) computes the RoCEv2 ICRC for IPv4 only (scapy/contrib/roce.py: "TODO support IPv6"). For IPv6
this script masks the same fields the RoCEv2 rules name (traffic class, flow label, hop limit, UDP checksum, BTH byte
4) on Scapy's own packet object and runs zlib.crc32, as Scapy does for IPv4 - an implementation independent of the C
code. Prints "ok - ..." / "FAIL - ..." lines and "N passed, N failed".
"""
import random
import struct
import sys
import zlib

from scapy.all import Ether, Dot1Q, IP, IPv6, UDP, Raw, raw, rdpcap, wrpcap  # noqa: E402
from scapy.layers.inet6 import IPv6ExtHdrSegmentRouting  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

passed = failed = 0


def check(ok, name, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + name)
    else:
        failed += 1
        print("FAIL - %s: %s" % (name, detail))


def icrc_v6(ip6):
    """RoCEv2 ICRC of an IPv6 packet object (inner header, UDP, BTH...), computed with Scapy + zlib."""
    ps = ip6.copy()
    ps.remove_underlayer(None)
    ps.tc = 0xFF
    ps.fl = 0xFFFFF
    ps.hlim = 0xFF
    ps[UDP].chksum = 0xFFFF
    b = bytearray(raw(ps))
    b[40 + 8 + 4] = 0xFF  # BTH byte 4
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(b[:-4])) & 0xFFFFFFFF)


def inner_ip(p):
    u = p[UDP]
    return u.underlayer


def verify(pcap, expect):
    exp = [l.rstrip("\n").split("|") for l in open(expect)]
    frames = rdpcap(pcap)
    check(len(frames) == len(exp), "frame count %d" % len(frames), "expected %d" % len(exp))
    for pkt, e in zip(frames, exp):
        name, ipv6, vlan, srv6, srh, sport, fl, dscp, ecn, mlen = e[0], *map(int, e[1:])
        orig = raw(pkt)
        ok = UDP in pkt and pkt[UDP].dport == 4791 and BTH in pkt
        if not ok:
            check(False, "scapy dissects %s" % name, pkt.summary())
            continue
        ip = inner_ip(pkt)
        hdr_ok = (pkt[UDP].sport == sport and (Dot1Q in pkt) == bool(vlan) and (IPv6 in pkt) == bool(ipv6)
                  and pkt[UDP].len == 8 + mlen + 4)
        if ipv6:
            hdr_ok = hdr_ok and ip.fl == fl and ip.tc == (dscp << 2 | ecn) and ip.nh == 17
        else:
            c = ip.copy()
            c.chksum = None
            hdr_ok = hdr_ok and ip.tos == (dscp << 2 | ecn) and ip.flags == "DF" and raw(c)[:20] == raw(ip)[:20]
        if srv6:
            outer = pkt[IPv6]
            hdr_ok = hdr_ok and outer is not ip and (IPv6ExtHdrSegmentRouting in pkt) == bool(srh)
            if srh:
                s = pkt[IPv6ExtHdrSegmentRouting]
                hdr_ok = hdr_ok and s.type == 4 and s.segleft == 1 and s.lastentry == 0 and len(s.addresses) == 1
        check(hdr_ok, "scapy reads the headers of %s" % name, pkt.summary())
        if ipv6:
            want = icrc_v6(ip)
        else:
            b = pkt[BTH]
            b.icrc = None
            want = raw(pkt)[-4:]
        check(orig[-4:] == want, "scapy ICRC of %s" % name, "frame %s scapy %s" % (orig[-4:].hex(), want.hex()))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def build(pcap, expect):
    rnd = random.Random(7)
    out, lines = [], []
    mac_a, mac_b = "02:00:00:00:00:a1", "02:00:00:00:00:b1"
    cases = [  # name, ipv6, vlan, srv6, srh, sport, fl, dscp, ecn, opcode, hdr_len, payload, pad
        ("ipv4 data", 0, 0, 0, 0, 0xC123, 0, 10, 2, 0xCA, 20, 4093, 3),
        ("ipv4 sack", 0, 0, 0, 0, 0xD001, 0, 48, 0, 0xD3, 36, 0, 0),
        ("ipv4 vlan data", 0, 1, 0, 0, 0xC555, 0, 12, 2, 0xCB, 20, 1000, 0),
        ("ipv6 udp-ev data", 1, 0, 0, 0, 0xC001, 0, 10, 2, 0xCA, 20, 1022, 2),
        ("ipv6 stev data", 1, 0, 0, 0, 0xBEEF, 0x1234, 10, 2, 0xCC, 24, 4096, 0),
        ("ipv6 vlan stev nack", 1, 1, 0, 0, 0x0001, 0x7FFF, 48, 0, 0xD4, 20, 0, 0),
        ("srv6 data", 1, 0, 1, 0, 0x0000, 0x0005, 10, 2, 0xCA, 20, 2048, 0),
        ("srv6+srh data", 1, 0, 1, 1, 0x1234, 0x5678, 10, 2, 0xCA, 20, 1001, 3),
    ]
    for (name, ipv6, vlan, srv6, srh, sport, fl, dscp, ecn, op, hlen, plen, pad) in cases:
        rest = bytes(rnd.randrange(256) for _ in range(hlen - 12 + plen)) + b"\x00" * pad
        bth = BTH(opcode=op, padcount=pad, pkey=0xFFFF, dqpn=0x123, psn=rnd.randrange(1 << 24))
        udp = UDP(sport=sport, dport=4791)
        if ipv6:
            inner = IPv6(src="fd00::a", dst="fd00::b", tc=dscp << 2 | ecn, fl=fl, hlim=64) / udp / bth / Raw(rest)
            inner[BTH].icrc = 0
            inner = IPv6(raw(inner))
            r = bytearray(raw(inner))
            r[-4:] = icrc_v6(inner)
            l3 = IPv6(bytes(r))
            if srv6:
                outer = IPv6(src="fd00::a", dst="fc00:1:2:3:4:5:6:7", tc=dscp << 2 | ecn, fl=fl, hlim=64)
                if srh:
                    l3 = outer / IPv6ExtHdrSegmentRouting(addresses=["fc01:8:9::"], segleft=1, lastentry=0, nh=41) / l3
                else:
                    l3 = outer / l3
        else:
            l3 = IP(src="10.78.1.1", dst="10.78.1.2", tos=dscp << 2 | ecn, ttl=64) / udp / bth / Raw(rest)
        f = Ether(src=mac_a, dst=mac_b) / (Dot1Q(vlan=100) / l3 if vlan else l3)
        out.append(Ether(raw(f)))
        ev = sport if not ipv6 or (fl & 0xFFFF) == 0 else (sport << 16 | (fl & 0xFFFF))
        lines.append("%s|%d|%d|%d|%d|%d\n" % (name, srv6, ev, dscp, ecn, hlen + plen + pad))
    wrpcap(pcap, out)
    with open(expect, "w") as fh:
        fh.writelines(lines)
    print("scapy built %d frames" % len(out))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("verify", "build"):
        print(__doc__)
        sys.exit(2)
    sys.exit((verify if sys.argv[1] == "verify" else build)(sys.argv[2], sys.argv[3]))
