# udp_lib.sh - shell helpers shared by tools/udp_smoke.sh, tools/udp_demo.sh, tools/bench_udp.sh and
# tools/netns_failover.sh (sourced).
#
# Every run picks its own ports from a random base so that concurrent runs on one host do not collide:
#   side channel TCP $UP_TCP, server UDP receive ports $UP_DATA.., server EV ports $UP_EVS.., client EV ports $UP_EVC..
#
# Synchronisation: a script never sleeps for a fixed time to let another process get ready. It waits for a sign of
# readiness (a socket seen listening or connected in the process's own /proc/PID/net, a line the process printed),
# polling every 10 ms; UP_WAIT_S (30 s) bounds every such wait and is reached only when something is wrong.

UP_WAIT_S=${UP_WAIT_S:-30}
UP_ERR=

udp_ports() {
    # below Linux's default ephemeral range (32768-60999), where nothing else is handed out automatically
    local base=$((10000 + (RANDOM % 170) * 128))
    UP_TCP=$base
    UP_DATA=$((base + 1))
    UP_EVS=$((base + 16))
    UP_EVC=$((base + 16 + 256 + 16))
}

# udp_alive PID: the process exists and has not exited (a zombie not yet reaped counts as exited)
udp_alive() {
    local st
    { read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
    st=${st##*) }
    [ "${st%% *}" != Z ]
}

# udp_tcp PID PORT STATE: process PID holds a TCP socket whose local port is PORT in STATE (0A listening,
# 01 established), as /proc/PID/net/tcp{,6} shows it, that is in PID's own network namespace. The socket's inode must
# be one of PID's open files, so that another process's socket on the same port does not count.
udp_tcp() {
    local hex ino
    printf -v hex ':%04X' "$2"
    for ino in $(awk -v p="$hex" -v s="$3" 'substr($2, length($2) - 4) == p && $4 == s && $10 != 0 { print $10 }' \
        "/proc/$1/net/tcp" "/proc/$1/net/tcp6" 2>/dev/null); do
        [ -n "$(find "/proc/$1/fd" -maxdepth 1 -lname "socket:\\[$ino\\]" -print -quit 2>/dev/null)" ] && return 0
    done
    return 1
}

# udp_line FILE ERE: FILE has a line matching the extended regular expression ERE
udp_line() { grep -qE -- "$2" "$1" 2>/dev/null; }

# udp_wait WHAT PID COMMAND...: runs COMMAND every 10 ms until it succeeds (returns 0). Returns 1 with UP_ERR set
# when process PID (if not empty) exits while COMMAND still fails, or after UP_WAIT_S seconds.
udp_wait() {
    local what=$1 pid=$2 end
    shift 2
    end=$((${EPOCHREALTIME/./} + UP_WAIT_S * 1000000))
    until "$@"; do
        if [ -n "$pid" ] && ! udp_alive "$pid"; then
            "$@" && return 0
            UP_ERR="$what: the process (pid $pid) exited first"
            return 1
        fi
        if [ "${EPOCHREALTIME/./}" -gt "$end" ]; then
            UP_ERR="$what: not within $UP_WAIT_S s"
            return 1
        fi
        sleep 0.01
    done
}

# udp_server OUTPREFIX "server args": starts an mrc_perf server on fresh ports (stdout to OUTPREFIX.server, stderr
# to OUTPREFIX.server.err) and returns once it listens on its side channel, with UP_SPID set. Should a port be in use
# (another run on this host picked overlapping ports), it tries again on others. Returns 1 with UP_ERR set when the
# server does not get to listen.
udp_server() {
    local out=$1 sargs=$2 try
    for try in 1 2 3 4 5; do
        udp_ports
        # shellcheck disable=SC2086
        "$PERF" -p "$UP_TCP" --udp-port "$UP_DATA" --ev-port "$UP_EVS" --accept-timeout 30 $sargs \
            >"$out.server" 2>"$out.server.err" &
        UP_SPID=$!
        udp_wait "mrc_perf server listening on TCP port $UP_TCP" "$UP_SPID" udp_tcp "$UP_SPID" "$UP_TCP" 0A && return 0
        kill "$UP_SPID" 2>/dev/null
        wait "$UP_SPID" 2>/dev/null
        grep -q "in use" "$out.server.err" 2>/dev/null || break
    done
    return 1
}

# udp_pair OUTPREFIX "server args" "client args" [HOST]: runs a server and, once it listens, a client on loopback
# (HOST: 127.0.0.1, or ::1 with -6 in both argument lists); the server's stdout goes to OUTPREFIX.server, the
# client's to OUTPREFIX.client (stderr to .err files). Sets UP_SRC and UP_CRC (exit codes).
udp_pair() {
    local out=$1 sargs=$2 cargs=$3 host=${4:-127.0.0.1}
    if ! udp_server "$out" "$sargs"; then
        echo "udp_pair: $UP_ERR" >>"$out.server.err"
        UP_SRC=1
        UP_CRC=1
        return
    fi
    # shellcheck disable=SC2086
    "$PERF" "$host" -p "$UP_TCP" --ev-port "$UP_EVC" --connect-timeout 30 $cargs >"$out.client" 2>"$out.client.err"
    UP_CRC=$?
    # a client that failed before it connected leaves the server waiting for one: end it instead
    [ "$UP_CRC" != 0 ] && udp_tcp "$UP_SPID" "$UP_TCP" 0A && kill "$UP_SPID" 2>/dev/null
    wait "$UP_SPID"
    UP_SRC=$?
}

# json_get FILE EXPR: a Python expression over the JSON object d of the first line of FILE that starts with '{'
json_get() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d = None
try:
    for line in open(sys.argv[1]):
        if line.startswith("{"):
            d = json.loads(line)
            break
except OSError:
    pass
try:
    print(eval(sys.argv[2], {"d": d}) if d is not None else "")
except Exception:
    print("")
PY
}

# need_nft NAME: nftables present, installed with apt-get when missing (root); 1 when neither (the caller skips)
need_nft() {
    command -v nft >/dev/null && return 0
    echo "$1: nftables missing, installing it with apt-get"
    apt-get install -y nftables >/dev/null 2>&1 ||
        { apt-get update >/dev/null 2>&1 && apt-get install -y nftables >/dev/null 2>&1; }
}
