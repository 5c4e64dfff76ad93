#!/usr/bin/env python3
"""udp_mptcp.py - the MPTCP side of tools/netns_failover.sh: a bulk transfer over Linux MPTCP (IPPROTO_MPTCP)
whose receiver measures what mrc_perf's receiver measures, so the two failover numbers are comparable.

  udp_mptcp.py server --bind ADDR --port P [--stall-log FILE] [--json FILE] [--timeout S] [--ready FILE]
  udp_mptcp.py client --connect ADDR --port P --duration S [--timeout S]

--ready FILE: the server writes the line "listening" to FILE once its socket listens, and "connected" once a client
is accepted, so that a script can start the client when the server is ready instead of after a fixed delay.

The client streams a seeded 1 MiB pattern for --duration seconds and closes. The server checks every byte against
the pattern (bit-exact or it fails), and logs every in-order delivery stall over 1 ms: the time between two
recv() calls that returned data, as 'start_realtime_ns duration_ns' lines (the same format as mrc_perf
--stall-log). A TCP byte stream is delivered in order, so a gap between reads is exactly an in-order stall.
Its JSON summary has bytes, seconds, goodput, the longest stall and a 10 ms goodput series.

Exit status: 0 ok, 1 failure (connection error, data mismatch, timeout), 2 usage.
"""
import argparse
import json
import random
import socket
import sys
import time

IPPROTO_MPTCP = getattr(socket, "IPPROTO_MPTCP", 262)
BLOCK = 1 << 20


def pattern(seed=1):
    r = random.Random(seed)
    b = bytes(r.getrandbits(8) for _ in range(4096)) * (BLOCK // 4096)
    return b


def mptcp_socket(family):
    try:
        return socket.socket(family, socket.SOCK_STREAM, IPPROTO_MPTCP)
    except OSError as e:
        print("udp_mptcp: this kernel has no MPTCP socket (%s)" % e, file=sys.stderr)
        sys.exit(1)


def ready(path, what):
    if path:
        with open(path, "a") as f:
            f.write(what + "\n")


def server(a):
    fam = socket.AF_INET6 if ":" in a.bind else socket.AF_INET
    ls = mptcp_socket(fam)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        ls.bind((a.bind, a.port))
    except OSError as e:
        print("udp_mptcp: cannot listen on %s port %d: %s" % (a.bind, a.port, e.strerror), file=sys.stderr)
        return 1
    ls.listen(1)
    ready(a.ready, "listening")
    ls.settimeout(a.timeout)
    try:
        c, _ = ls.accept()
    except socket.timeout:
        print("udp_mptcp: no client within %.1f s" % a.timeout, file=sys.stderr)
        return 1
    ready(a.ready, "connected")
    c.settimeout(a.timeout)
    exp = pattern()
    exp2 = memoryview(exp + exp)
    buf = bytearray(BLOCK)
    mv = memoryview(buf)
    pos = 0
    mism = 0
    stalls = []
    bins = {}
    t_first = t_last = None
    real_off = time.time_ns() - time.monotonic_ns()
    while True:
        try:
            n = c.recv_into(buf)
        except socket.timeout:
            print("udp_mptcp: no data for %.1f s" % a.timeout, file=sys.stderr)
            return 1
        except OSError as e:
            print("udp_mptcp: receive failed: %s" % e.strerror, file=sys.stderr)
            return 1
        now = time.monotonic_ns()
        if n == 0:
            break
        if t_first is None:
            t_first = now
        elif now - t_last > 1000000:
            stalls.append((t_last + real_off, now - t_last))
        t_last = now
        o = pos % BLOCK
        if mv[:n] != exp2[o:o + n]:
            mism += 1
        pos += n
        b = (now - t_first) // 10000000
        bins[b] = bins.get(b, 0) + n
    secs = (t_last - t_first) / 1e9 if t_first and t_last > t_first else 0.0
    smax = max(stalls, key=lambda s: s[1]) if stalls else (0, 0)
    res = {
        "tool": "udp_mptcp", "ok": mism == 0 and pos > 0, "bytes": pos, "seconds": secs,
        "gbps": pos * 8 / secs / 1e9 if secs else 0.0, "mismatches": mism,
        "stall_max_us": smax[1] / 1e3, "stall_max_at_realtime_ns": smax[0],
        "t_start_realtime_ns": (t_first or 0) + real_off,
        "series_10ms_gbps": [bins.get(i, 0) * 8 / 1e7 for i in range(int(max(bins) + 1) if bins else 0)],
    }
    if a.stall_log:
        with open(a.stall_log, "w") as f:
            f.write("# start_realtime_ns duration_ns (in-order delivery stalls over 1 ms, MPTCP receiver)\n")
            f.write("# run %d %d\n" % ((t_first or 0) + real_off, (t_last or 0) + real_off))
            for s, d in stalls:
                f.write("%d %d\n" % (s, d))
    out = json.dumps(res)
    if a.json:
        with open(a.json, "w") as f:
            f.write(out + "\n")
    else:
        print(out)
    if mism:
        print("udp_mptcp: %d received chunks did not match the pattern" % mism, file=sys.stderr)
    return 0 if res["ok"] else 1


def client(a):
    fam = socket.AF_INET6 if ":" in a.connect else socket.AF_INET
    s = mptcp_socket(fam)
    s.settimeout(a.timeout)
    # a refused connection is retried (every 50 ms, for at most --timeout) for use by hand; tools/netns_failover.sh
    # starts the client only once the server has reported "listening" (--ready), so it never depends on this
    end = time.monotonic() + a.timeout
    while True:
        try:
            s.connect((a.connect, a.port))
            break
        except ConnectionRefusedError:
            if time.monotonic() > end:
                print("udp_mptcp: cannot connect to %s port %d: refused" % (a.connect, a.port), file=sys.stderr)
                return 1
            time.sleep(0.05)
            s.close()
            s = mptcp_socket(fam)
            s.settimeout(a.timeout)
        except OSError as e:
            print("udp_mptcp: cannot connect to %s port %d: %s" % (a.connect, a.port, e.strerror), file=sys.stderr)
            return 1
    exp = pattern()
    mv = memoryview(exp)
    stop = time.monotonic() + a.duration
    sent = 0
    try:
        while time.monotonic() < stop:
            s.sendall(mv[:256 * 1024])
            sent += 256 * 1024
            s.sendall(mv[256 * 1024:])
            sent += BLOCK - 256 * 1024
        s.shutdown(socket.SHUT_WR)
        s.recv(1)
    except OSError as e:
        print("udp_mptcp: send failed after %d bytes: %s" % (sent, e.strerror or e), file=sys.stderr)
        return 1
    print(json.dumps({"tool": "udp_mptcp", "role": "client", "sent": sent}))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="role", required=True)
    s = sub.add_parser("server")
    s.add_argument("--bind", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--stall-log")
    s.add_argument("--json")
    s.add_argument("--timeout", type=float, default=15.0)
    s.add_argument("--ready")
    c = sub.add_parser("client")
    c.add_argument("--connect", required=True)
    c.add_argument("--port", type=int, required=True)
    c.add_argument("--duration", type=float, required=True)
    c.add_argument("--timeout", type=float, default=15.0)
    a = ap.parse_args()
    return server(a) if a.role == "server" else client(a)


if __name__ == "__main__":
    sys.exit(main())
