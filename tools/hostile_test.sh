#!/bin/bash
# hostile_test.sh - tests that attack (issue 13, make test-hostile): a forging attacker of our own
# (tools/mrc_attack.c) against live mrc_perf transfers on loopback, one transfer per attack.
#
#   tools/hostile_test.sh [PATH_TO_MRC_PERF] [PATH_TO_MRC_ATTACK] [MODES]     (MODES: default "a b c d e f g")
#
# Each attack: an mrc_perf server and client on fresh random ports (udp_lib.sh), a 2.5 s transfer of 64 KiB
# Writes on 1 QP over 8 planes x 16 EVs; once the client's progress shows bytes moving, mrc_attack sniffs loopback
# (AF_PACKET on "lo": needs root), learns the QPNs, PSNs, P_Key and rkey and forges with the core's own encoders.
# Checked per attack:
#   - no stall: both sides end within the transfer time + 10 s (bounded by timeout), no crash (no signal);
#   - the data: the transfer completes bit-exact with no QP error (mrc_perf's own verification); a run that ends
#     with a clean, named error instead is reported with that error (and fails the check);
#   - the counters: the drops (or other counters) the trust rules name for that attack moved.
# What RoCE itself cannot prevent is printed as a protocol property, not tested (see the end).
#
# Not root, no AF_PACKET or no python3: one "SKIP: ..." line, exit 0. Only 127.0.0.1 is ever a destination.
# Nothing waits a fixed time: the attacker starts once the client printed a progress line with bytes sent, and
# every wait is bounded (udp_wait, UP_WAIT_S; timeout(1) around each process). Last line "N passed, N failed";
# the exit status is non-zero when a check failed.
set -u
PERF=${1:-build/mrc_perf}
ATTACK=${2:-build/mrc_attack}
MODES=${3:-a b c d e f g}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=udp_lib.sh
. "$HERE/udp_lib.sh"
DUR=2.5          # seconds of sending per attack
END_LIMIT=10     # seconds past DUR within which both sides must have ended
[ -x "$PERF" ] || { echo "test-hostile: $PERF not built"; exit 1; }
[ -x "$ATTACK" ] || { echo "test-hostile: $ATTACK not built"; exit 1; }
command -v python3 >/dev/null || { echo "test-hostile: SKIP: python3 is needed to read mrc_perf's JSON"; exit 0; }
command -v timeout >/dev/null || { echo "test-hostile: SKIP: timeout(1) (coreutils) is needed"; exit 0; }
if [ "$(id -u)" != 0 ]; then
    echo "test-hostile: SKIP: not root (the attacker sniffs loopback with an AF_PACKET socket)"
    exit 0
fi
if ! chk=$("$ATTACK" --check 2>&1); then
    echo "test-hostile: ${chk:-SKIP: mrc_attack --check failed}"
    exit 0
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hostile.XXXXXX")
KILL_PIDS=""
cleanup() {
    local p
    for p in $KILL_PIDS; do kill "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT
pass=0
fail=0
T0=${EPOCHREALTIME/./}

# the client's progress lines ("1.20s tx 1.5 Gb/s rtx 0 EVs good/bad 16/0 ..."), on stderr under --json
tx_moving() { awk '$2 == "tx" && $3 > 0 { f = 1; exit } END { exit !f }' "$1" 2>/dev/null; }
# bounded wait for a process to end (udp_wait polls every 10 ms, UP_WAIT_S at most)
ended() { ! udp_alive "$1"; }

# run_attack MODE: one transfer with the attacker in the middle; leaves $TMP/MODE.{server,client,atk}[.err]
run_attack() {
    local m=$1 cpid spid apid t0 t1 limit
    RUN_ERR=""
    CRC=255
    SRC=255
    ATK_RC=255
    CLIENT_S=0
    if ! udp_server "$TMP/$m" "--json --timeout 5"; then
        RUN_ERR="server: $UP_ERR"
        return 1
    fi
    spid=$UP_SPID
    KILL_PIDS="$spid"
    limit=$(awk -v d="$DUR" -v e="$END_LIMIT" 'BEGIN { printf "%d", d + e + 0.5 }')
    t0=${EPOCHREALTIME/./}
    timeout -s KILL "$limit" "$PERF" 127.0.0.1 -p "$UP_TCP" --ev-port "$UP_EVC" --connect-timeout 30 --json -q 1 \
        -D "$DUR" --timeout 5 --report-every 100 >"$TMP/$m.client" 2>"$TMP/$m.client.err" &
    cpid=$!
    KILL_PIDS="$spid $cpid"
    if udp_wait "the client's progress showing bytes sent" "$cpid" tx_moving "$TMP/$m.client.err"; then
        timeout -s KILL 30 "$ATTACK" --mode "$m" --data-port "$UP_DATA" --ev-port "$UP_EVS" --planes 8 --evs 128 \
            >"$TMP/$m.atk" 2>"$TMP/$m.atk.err" &
        apid=$!
        KILL_PIDS="$spid $cpid $apid"
        wait "$apid"
        ATK_RC=$?
    else
        RUN_ERR="$UP_ERR"
        ATK_RC=255
    fi
    wait "$cpid"
    CRC=$?
    t1=${EPOCHREALTIME/./}
    CLIENT_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
    # the server ends once the client is done (side channel); bounded, then killed and reported
    UP_WAIT_S=$END_LIMIT udp_wait "the server ending after the client" "" ended "$spid" || kill -9 "$spid" 2>/dev/null
    wait "$spid"
    SRC=$?
    KILL_PIDS=""
    [ -z "$RUN_ERR" ]
}

# The checks, all in one python3 run at the end (python3 takes about a second to start on a loaded host): per
# attack, the attacker ran, no stall, no crash, the data, then the attack's own counters. One line per check
# ("ok   ..." / "FAIL ..."), indented counter lines after each attack; the last line "CHECKS pass fail".
check_all() {
    python3 - "$TMP" "$DUR" "$END_LIMIT" "$@" <<'PY'
import json, re, sys
tmp, dur, end_limit, modes = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
npass = nfail = 0
def ok(s):
    global npass
    npass += 1
    print("ok   " + s)
def bad(s):
    global nfail
    nfail += 1
    print("FAIL " + s)
def check(cond, good, failed):
    (ok if cond else bad)(good if cond else failed)
def load(path):
    try:
        for l in open(path):
            if l.startswith("{"):
                return json.loads(l)
    except (OSError, ValueError):
        pass
    return None
def text(path):
    try:
        return open(path).read()
    except OSError:
        return ""
WHAT = {
    "a": "zero-length WRITE_ONLY, rkey 0, in-window PSNs -> server data QP",
    "b": "NACK UNEXP_EVENT for a PSN never sent -> client QP",
    "c": "stale SACK: cack 2^22 behind, penalty 127, ECN echo, rcvd_bytes +0x7FFFFF, MPR 1 -> client QP",
    "d": "PORT_STATUS_UPDATE with a wrong P_Key, then with mask 0 -> QP 0x2 of both sides",
    "e": "random garbage flood -> QP 0x2 and the data QPs of both sides",
    "f": "EV_PROBE + PROBE_REQ floods -> QP 0x2 of both sides, server data QP",
    "g": "up-to-date SACK whose bitmap names PSNs never sent, penalty 127, ECN echo -> client QP",
}
for m in modes:
    print("--- attack %s: %s" % (m, WHAT[m]))
    meta = dict(kv.split("=", 1) for kv in text("%s/%s.meta" % (tmp, m)).split("\n") if "=" in kv)
    if meta.get("run_err"):
        bad("%s: the run did not get going: %s" % (m, meta["run_err"]))
        for f in ("server.err", "client.err", "atk.err"):
            for l in text("%s/%s.%s" % (tmp, m, f)).splitlines()[:3]:
                print("     " + l)
        continue
    S, C = load("%s/%s.server" % (tmp, m)), load("%s/%s.client" % (tmp, m))
    atk = text("%s/%s.atk" % (tmp, m))
    mres = re.search(r"^result %s: (.*)$" % m, atk, re.M)
    r = dict(kv.split("=", 1) for kv in mres.group(1).split()) if mres else {}
    learned = re.search(r"^learned: (.*)$", atk, re.M)
    crc, src, arc = int(meta["crc"]), int(meta["src"]), int(meta["atk_rc"])
    check(arc == 0 and mres is not None,
          "%s: attacker learned the connection (%s) and sent %s forged packets" % (m, learned.group(1) if learned else "?", r.get("sent")),
          "%s: attacker exit %d: %s" % (m, arc, " ".join((text("%s/%s.atk.err" % (tmp, m)) + atk).splitlines()[:2])))
    check(crc < 124 and src < 124,
          "%s: no stall, no crash (client ended after %s s, exit %d; server exit %d)" % (m, meta["client_s"], crc, src),
          "%s: stall or crash: client exit %d, server exit %d after %s s (124/137: killed at the %g s bound; >128: a signal)"
          % (m, crc, src, meta["client_s"], dur + end_limit))
    if S is None or C is None:
        bad("%s: no JSON summary from the %s" % (m, "server" if S is None else "client"))
        continue
    if crc == 0 and src == 0 and C["ok"] and S["ok"]:
        ok("%s: transfer completed bit-exact, no QP error (%d msgs, %.2f Gb/s; receiver: %s)"
           % (m, C["tx"]["msgs"], C["tx"]["gbps_avg"], ("ok=%d" % C["peer_result"]["ok"]) if C["peer_result"] else "?"))
    else:
        bad("%s: transfer did not complete bit-exact: client: %s; server: %s"
            % (m, C["error"] or "exit %d" % crc, S["error"] or "exit %d" % src))
    def drops(d, *names):
        return sum(d["ep"]["drop"].get(n, 0) for n in names)
    def show(label, f):
        print("     server %s: %s" % (label, f(S)))
        print("     client %s: %s" % (label, f(C)))
    DROPS = lambda d: " ".join("%s=%d" % kv for kv in d["ep"]["drop"].items() if kv[1]) or "none"
    EPOPS = lambda d: "psu_rx=%d ep_req_rx=%d ep_rsp_tx=%d ep_rsp_rx=%d rx_foreign=%d rx_stranger=%d psu_expired=%d" % (
        d["ep"]["psu_rx"], d["ep"]["ep_req_rx"], d["ep"]["ep_rsp_tx"], d["ep"]["ep_rsp_rx"], d["ep"]["rx_foreign"],
        d["ep"].get("rx_stranger", -1), d["ep"].get("psu_expired", -1))
    def cc_effect(S, C):
        why = []
        if C["conn"]["cc_pen_dec"] > S["conn"]["tx_pen"]:
            why.append("%d penalty decreases for %d SACKs the server sent with a penalty" % (C["conn"]["cc_pen_dec"], S["conn"]["tx_pen"]))
        if C["conn"]["ev_skip_req"] > S["mrc"]["rx_ce"]:
            why.append("%d ECN/skip echoes for %d CE marks the server saw" % (C["conn"]["ev_skip_req"], S["mrc"]["rx_ce"]))
        if C["conn"]["cc_mpr_changes"] > 0:
            why.append("the window changed %d times by a SACK's MPR" % C["conn"]["cc_mpr_changes"])
        if C["conn"]["cc_rcvd_bytes"] > C["conn"]["tx_bytes"] * 1.12 + (4 << 20):
            why.append("rcvd_bytes credited %d B for %d B sent" % (C["conn"]["cc_rcvd_bytes"], C["conn"]["tx_bytes"]))
        return why
    PLANES = lambda d: " ".join("%d/%d" % (p["evs_good"], p["evs_bad"]) for p in d["planes_detail"])
    planes_good = sum(1 for p in C["planes_detail"] if p["evs_good"] > 0)
    sent = int(r.get("sent", 0))
    if m == "a":
        # the forged writes are sent past what the requester has sent, inside the responder's PSN and MSN windows,
        # so each one reaches the rkey check (a few may still be overtaken by the transfer: 90%)
        n = drops(S, "access", "malformed")
        check(sent > 0 and n >= sent * 9 // 10, "a: the server dropped the forged writes as access/malformed (%d of %d sent)" % (n, sent),
              "a: %d of %d forged writes dropped as access/malformed at the server: the others were accepted as data" % (n, sent))
        # a forged write that was accepted takes its PSN (the real packet is then a duplicate without a
        # retransmission) and, with its last-packet bit, a message (the real ones then fall out of the MSN window)
        dup, rtx, oor = S["mrc"]["rx_dup"], C["mrc"]["rtx"], drops(S, "msn_oor", "psn_oor")
        check(dup <= rtx and oor == 0,
              "a: no forged write took a real packet's place (server duplicates %d <= client retransmissions %d, no PSN/MSN window drop)" % (dup, rtx),
              "a: forged writes took real packets' places: %d duplicates for %d retransmissions, %d real packets dropped as msn_oor/psn_oor"
              % (dup, rtx, oor))
        show("drops", DROPS)
        show("conn", lambda d: "rx_data=%d rx_bytes_placed=%d tx_nak=%d" % (d["conn"]["rx_data"], d["conn"]["rx_bytes_placed"], d["conn"]["tx_nak"]))
    elif m == "b":
        # (ack_stale alone does not count: a QP in ERR drops every later acknowledgement as stale)
        n = drops(C, "ack_bogus")
        check(n >= 1, "b: the client dropped the forged NACK as ack_bogus (%d)" % n,
              "b: the client took the forged UNEXP_EVENT NACK (no ack_bogus drop; rx_nack = %d)" % C["conn"]["rx_nack"])
        show("drops", DROPS)
    elif m == "c":
        n = drops(C, "ack_stale", "ack_bogus") + C["conn"].get("rx_sack_stale", 0)
        check(n >= sent, "c: the client counted the forged SACKs as stale or bogus (%d >= %d sent)" % (n, sent),
              "c: the client did not count the %d forged SACKs as stale or bogus (ack_stale + ack_bogus + rx_sack_stale = %d)" % (sent, n))
        why = cc_effect(S, C)
        check(not why, "c: no congestion-control effect (penalty, ECN, MPR and rcvd_bytes only as the server sent them)",
              "c: the forged SACKs moved congestion control: " + "; ".join(why))
        show("drops", DROPS)
        show("conn", lambda d: " ".join("%s=%d" % (k, d["conn"][k]) for k in ("rx_sack", "tx_sack", "rx_sack_stale", "cc_pen_dec", "tx_pen", "cc_md", "ev_skip_req", "cc_mpr_changes", "cc_rcvd_bytes", "cc_rcvd_capped", "tx_bytes") if k in d["conn"]))
    elif m == "d":
        ps, pc = drops(S, "pkey", "stranger"), drops(C, "pkey", "stranger")
        check(ps >= 1 and pc >= 1, "d: the PSUs with a wrong P_Key were dropped on both sides (pkey: server %d, client %d)" % (ps, pc),
              "d: a PSU with a wrong P_Key was not dropped as pkey (server %d, client %d; psu_rx: server %d, client %d)"
              % (ps, pc, S["ep"]["psu_rx"], C["ep"]["psu_rx"]))
        check(r.get("full_planes_again") == "1",
              "d: data on all 8 planes again %s ms after the mask-0 PSU (planes before: %s)" % (r.get("after_ms"), r.get("planes_before")),
              "d: the mask-0 PSU confined the transfer: data on %s of 8 planes over the %s ms after it"
              % (r.get("planes_after"), r.get("observe_ms")))
        check(planes_good == 8, "d: all 8 planes have usable EVs at the end (EVs good/bad per plane: %s)" % PLANES(C),
              "d: %d of 8 planes with usable EVs at the end (EVs good/bad per plane: %s)" % (planes_good, PLANES(C)))
        show("drops", DROPS)
        show("epops", EPOPS)
    elif m == "e":
        for name, d, k in (("server", S, "to_server"), ("client", C, "to_client")):
            n = drops(d, "short", "opcode", "malformed", "qpn", "pkey", "epop", "state", "psn_oor", "msn_oor", "ack_bogus",
                      "ack_stale", "access", "rate", "stranger", "psu")
            want = int(r.get(k, 0))
            check(n >= want * 9 // 10, "e: the %s dropped and counted the garbage (%d drops for %d datagrams)" % (name, n, want),
                  "e: the %s counted %d drops for %d garbage datagrams (< 90%%)" % (name, n, want))
        check(S["ep"]["psu_rx"] == 0 and C["ep"]["psu_rx"] == 0,
              "e: no garbage taken as a PORT_STATUS_UPDATE (psu_rx: server 0, client 0)",
              "e: garbage taken as PORT_STATUS_UPDATEs (psu_rx: server %d, client %d)" % (S["ep"]["psu_rx"], C["ep"]["psu_rx"]))
        check(planes_good == 8 and r.get("planes_after") == "8",
              "e: no plane marked bad for good (data on 8 planes right after the flood; EVs good/bad at the end: %s)" % PLANES(C),
              "e: planes lost: data on %s of 8 planes right after the flood, %d of 8 with usable EVs at the end (%s)"
              % (r.get("planes_after"), planes_good, PLANES(C)))
        show("drops", DROPS)
        show("epops", EPOPS)
    elif m == "f":
        evs, evc, pr, ans = (int(r.get(k, 0)) for k in ("ev_probe_to_server", "ev_probe_to_client", "probe_req", "probe_answers_seen"))
        rs, rc = S["ep"]["ep_rsp_tx"], C["ep"]["ep_rsp_tx"]
        check(rs <= evs // 2 and rc <= evc // 2, "f: EV_PROBE answers rate-limited (server answered %d of %d, client %d of %d)" % (rs, evs, rc, evc),
              "f: EV_PROBE answers not rate-limited (server answered %d of %d, client %d of %d)" % (rs, evs, rc, evc))
        # the PROBE_REQ limit is generous (a requester's own tail-loss probes must pass): fewer answers than probes
        check(ans < pr, "f: PROBE_REQ answers rate-limited (%d answers seen for %d probes)" % (ans, pr),
              "f: PROBE_REQ answers not rate-limited (%d answers seen for %d probes)" % (ans, pr))
        ls, lc = drops(S, "rate", "stranger"), drops(C, "rate", "stranger")
        check(ls >= 1 and lc >= 1, "f: the requests over the rate or from a stranger were counted (server %d, client %d)" % (ls, lc),
              "f: no rate-limit or stranger drops counted (server %d, client %d)" % (ls, lc))
        # P38: the attacker sends from its own port: a stranger, whose EV_PROBEs are never answered
        xs, xc = drops(S, "stranger"), drops(C, "stranger")
        check(xs >= 1 and xc >= 1 and rs == 0 and rc == 0,
              "f: EV_PROBEs from a stranger's port dropped, none answered (stranger: server %d, client %d)" % (xs, xc),
              "f: EV_PROBEs from the attacker's port taken (stranger: server %d, client %d; answered %d, %d)" % (xs, xc, rs, rc))
        # P38: the answers to the PROBE_REQs reach the client as probe answers it never asked for: quiet
        q = C["conn"].get("rx_sack_quiet", 0)
        check(ans == 0 or q >= 1, "f: the client took the %d probe answers it never asked for as quiet (rx_sack_quiet %d)" % (ans, q),
              "f: the client took probe answers it never asked for as signals (rx_sack_quiet %d for %d answers)" % (q, ans))
        show("drops", DROPS)
        show("epops", EPOPS)
        show("conn", lambda d: " ".join("%s=%d" % (k, d["conn"][k]) for k in ("rx_sack", "rx_sack_quiet", "tx_rtx", "ev_skip_req", "cc_pen_dec") if k in d["conn"]))
    elif m == "g":
        n = drops(C, "ack_bogus")
        check(sent > 0 and n >= sent * 9 // 10, "g: the client dropped the forged SACKs as ack_bogus (%d of %d)" % (n, sent),
              "g: the client dropped %d of %d forged SACKs as ack_bogus: the others were taken" % (n, sent))
        why = cc_effect(S, C)
        check(not why, "g: no congestion-control effect (penalty, ECN, MPR and rcvd_bytes only as the server sent them)",
              "g: the forged SACKs moved congestion control: " + "; ".join(why))
        show("drops", DROPS)
        show("conn", lambda d: " ".join("%s=%d" % (k, d["conn"][k]) for k in ("rx_sack", "cc_pen_dec", "tx_pen", "ev_skip_req", "rx_sack_quiet") if k in d["conn"]))
print("CHECKS %d %d" % (npass, nfail))
PY
}

for M in $MODES; do
    case $M in a|b|c|d|e|f|g) ;; *) echo "test-hostile: unknown mode '$M'"; exit 2 ;; esac
    run_attack "$M"
    printf 'crc=%s\nsrc=%s\natk_rc=%s\nclient_s=%s\nrun_err=%s\n' "$CRC" "$SRC" "$ATK_RC" "$CLIENT_S" "$RUN_ERR" \
        >"$TMP/$M.meta"
    echo "attack $M: run done (client ended after $CLIENT_S s)"
done
# shellcheck disable=SC2086 # one argument per mode
out=$(check_all $MODES)
echo "$out" | grep -v '^CHECKS '
read -r _ pass fail < <(echo "$out" | grep '^CHECKS ' || echo "CHECKS 0 1")
cat <<'EOF'
note: protocol property, not tested: RoCE (and so MRC) has no authentication. An attacker on the path who sniffs
      a connection's QPN, PSN window, P_Key, rkey and VA can forge in-window data with the correct rkey, and it is
      placed in memory like the real packet (or takes the real packet's PSN); likewise a well-formed SACK/NACK for
      an outstanding PSN is believed, and so is a PORT_STATUS_UPDATE with the connection's P_Key naming some of
      the planes and sent from the peer's address and one of its ports (it confines the peer's QPs to them for
      guard.psu_hold_ns at most, P38). Only the checks above (rkey, windows, P_Key, outstanding PSNs, rate limits)
      narrow what a blind or stale forgery can do. Protecting against an on-path attacker needs IPsec/MACsec or
      a fabric that isolates tenants.
EOF
echo "test-hostile: $(awk -v a="$T0" -v b="${EPOCHREALTIME/./}" 'BEGIN { printf "%.1f", (b - a) / 1e6 }') s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
