#!/bin/sh
# ocp_example.sh OCP_SRC OCP_B - build OCP's examples/benchmark unmodified with its own makefile against
# ocp/include and lib_mrc.so, then run it between two processes on the soft devices and check that the receiver
# validated every size. OCP_SRC is a checkout of opencomputeproject/OCP-Multipath-Reliable-Connection (or its bare
# git directory); without it the check is skipped (CI has no network).
set -u
src=$1 b=$2
if [ -z "$src" ] || [ ! -e "$src" ]; then
    echo "ocp-example: SKIP (set OCP_SRC to a checkout of OCP's MRC repository to build its benchmark)"
    exit 0
fi
here=$(pwd)
work=$here/$b/ocp-example
rm -rf "$work" && mkdir -p "$work"
if [ -d "$src/examples/benchmark" ]; then
    cp -r "$src/examples/benchmark/." "$work/"
else
    git --git-dir="$src" archive HEAD examples/benchmark | tar -x -C "$work" --strip-components=2 || exit 1
fi
make -s -C "$work" MRC_H_PATH="$here/ocp/include" MRC_LIB_DIR="$here/$b" || { echo "ocp-example: FAIL (build)"; exit 1; }
port=$((20000 + $$ % 20000)) tcp=$((40000 + $$ % 20000))
export MRC_SOFT_DEVICES="mrcudp0=127.0.0.1:$port,mrcudp1=127.0.0.2:$port"
args="-p $tcp -s 65536 -n 200 -w 10"
fifo=$work/ready && mkfifo "$fifo"
# the server: its output says when it listens (readiness, not a sleep) and whether each size validated
( MRC_LOG_LEVEL=DEBUG timeout 150 stdbuf -oL -eL "$work/mrc_example" -d mrcudp1 $args 2>&1; echo "server-exit $?" ) |
    ( sent=0
      while IFS= read -r line; do
          echo "$line" >> "$work/server.log"
          case "$line" in
          *"Server listening"*|server-exit*) [ $sent = 1 ] || { echo go > "$fifo"; sent=1; } ;;
          esac
      done ) &
read _ < "$fifo"
timeout 120 "$work/mrc_example" 127.0.0.2 -d mrcudp0 $args > "$work/client.log" 2>&1
crc=$?
wait
srv=$(sed -n "s/^server-exit //p" "$work/server.log")
sizes=$(grep -c "^ *[0-9]" "$work/client.log")
passed=$(grep -c "Data validation passed" "$work/server.log")
bad=$(grep -c "Data mismatch\|validation found" "$work/server.log")
grep "^ *[0-9]" "$work/client.log" | sed 's/^/ocp-example: /'
if [ "$crc" = 0 ] && [ "$srv" = 0 ] && [ "$sizes" -gt 0 ] && [ "$passed" = "$sizes" ] && [ "$bad" = 0 ]; then
    echo "ocp-example: OK (OCP's benchmark, unmodified: $sizes sizes, $passed validated by the receiver)"
else
    echo "ocp-example: FAIL (client rc $crc, server rc $srv, sizes $sizes, validated $passed, mismatches $bad; logs in $work)"
    exit 1
fi
