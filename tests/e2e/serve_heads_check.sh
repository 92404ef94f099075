#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# serve_heads_check.sh FIXTURE_DIR: serve.sh's servers and their message
# buses, and what a healthy server logs (issue #28 item 4). On an ext4
# filesystem with a UUID (the multifs fixture's a/ and b/, so that
# FSAL_SPARSE has a stable fsid and nothing to warn about):
#   - serve.sh --pnfs 2: each head (metadata server, two data servers)
#     owns org.ganesha.nfsd on a bus of its own; serve.sh prints one
#     sparse-stats command per head and each names its own server (PID,
#     port); a COPY through the metadata server is counted by its command,
#     not by the data servers';
#   - a healthy start, a workload and a reload (SIGHUP to each head) log
#     nothing above EVENT (one exception: PR_SET_IO_FLUSHER refused where
#     the bounding set has no CAP_SYS_RESOURCE, as in containers) and
#     nothing about Test_Hooks, which none of them has;
#   - the deprecated parameters (NFSv4 DomainName, Manage_Gids_Expiration)
#     still draw their WARNs when a configuration sets them (patch 0156);
#   - --dbus system: the metadata server on a shared "system" bus (a
#     private dbus-daemon here); a second serve.sh --dbus system cannot
#     own the name there: it fails, says who owns it, and leaves no server.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
fixture=${1:?usage: serve_heads_check.sh FIXTURE_DIR}
stage=${SPARSE_STAGE:?}
nfs42=${SPARSE_NFS42:?}
if [ -f "$fixture/skip" ]; then
	echo "serve_heads_check: skipped: $(cat "$fixture/skip")"
	exit 77
fi
command -v dbus-daemon >/dev/null || { echo "serve_heads_check: skipped: dbus-daemon missing"; exit 77; }
. "$repo/tests/e2e/serve-lib.sh"
. "$repo/tests/check-lib.sh"
. "$repo/scripts/server-lib.sh"
stats=$repo/tools/sparse-stats

# above_event LOG: the lines of LOG above EVENT that a healthy server
# must not log
io_flusher_expected=0
capbnd=$(awk '/^CapBnd:/ { print $2 }' /proc/self/status)
(((16#$capbnd >> 24) & 1)) || io_flusher_expected=1 # CAP_SYS_RESOURCE
above_event() {
	grep -E ' :(FATAL|CRIT|MAJ|WARN) :' "$1" |
		if [ $io_flusher_expected = 1 ]; then
			grep -v "Failed to set PR_SET_IO_FLUSHER due to EPERM, ignoring"
		else
			cat
		fi || true
}

# --pnfs 2 over the fixture's first filesystem
for _ in 1 2 3 4 5; do
	port=$(sparse_free_port)
	! sparse_port_in_use $((port + 1)) && ! sparse_port_in_use $((port + 2)) && break
done
start_serve "$SPARSE_BUILD_DIR/pnfs.out" -p "$port" --pnfs 2 -d "$fixture/a"
run=$SPARSE_BUILD_DIR/serve/$port
mds=$(cat "$run/pid")
out=$SPARSE_BUILD_DIR/pnfs.out
check serves 0 "^serve: ganesha.nfsd $mds exports" -- cat "$out"
check mds-own-bus 0 "^serve: statistics: $stats --bus $run/dbus.sock 1$" -- cat "$out"
check mds-owns-its-name 0 "^$mds$" -- sparse_bus_owner "unix:path=$run/dbus.sock"
check mds-no-bus-failure 1 "" -- grep "failed becoming primary bus owner" "$run/ganesha.log"
# the printed commands, as printed, name their own server
mds_cmd=$(sed -n 's/^serve: statistics: //p' "$out")
check mds-command-names-mds 0 "^server: org.ganesha.nfsd $mds, ports $port, $run/ganesha.conf on the bus unix:path=$run/dbus.sock$" -- $mds_cmd
ds_cmds=()
for i in 0 1; do
	ds=$(cat "$run/ds$i/pid")
	ds_port=$((port + 1 + i))
	check "ds$i-own-bus" 0 "^serve: data server $i \\(port $ds_port\\) statistics: $stats --bus $run/ds$i/dbus.sock 1$" -- cat "$out"
	check "ds$i-owns-its-name" 0 "^$ds$" -- sparse_bus_owner "unix:path=$run/ds$i/dbus.sock"
	check "ds$i-no-bus-failure" 1 "" -- grep "failed becoming primary bus owner" "$run/ds$i/ganesha.log"
	ds_cmds+=("$(sed -n "s/^serve: data server $i (port [0-9]*) statistics: //p" "$out")")
	check "ds$i-command-names-ds$i" 0 "^server: org.ganesha.nfsd $ds, ports $ds_port, $run/ds$i/ganesha.conf on the bus unix:path=$run/ds$i/dbus.sock$" -- ${ds_cmds[$i]}
done
# a workload: data through the data servers, a COPY on the metadata server
head -c 300000 /dev/urandom >"$SPARSE_BUILD_DIR/src"
check put 0 "" -- "$nfs42" -p "$port" put "$SPARSE_BUILD_DIR/src" /sparse/f
check copy 0 "" -- "$nfs42" -p "$port" cp /sparse/f /sparse/g
check copied 0 "" -- cmp "$SPARSE_BUILD_DIR/src" "$fixture/a/g"
check mds-counts-copy 0 "^copy_sync +1 +300000$" -- $mds_cmd
for i in 0 1; do
	check "ds$i-counts-none" 0 "^copy_sync +0 +0$" -- ${ds_cmds[$i]}
done
# a reload of each head
for head in "$mds:$run/ganesha.log" "$(cat "$run/ds0/pid"):$run/ds0/ganesha.log" \
	"$(cat "$run/ds1/pid"):$run/ds1/ganesha.log"; do
	kill -HUP "${head%%:*}"
	for _ in $(seq 100); do
		grep -q "Reread exports complete" "${head#*:}" && break
		sleep 0.1
	done
	check "reloaded-${head%%:*}" 0 "Reread exports complete" -- cat "${head#*:}"
done
check serves-after-reload 0 "" -- "$nfs42" -p "$port" cat /sparse/g -o "$SPARSE_BUILD_DIR/back"
for log in "$run/ganesha.log" "$run/ds0/ganesha.log" "$run/ds1/ganesha.log"; do
	check "nothing-above-event ${log#"$run/"}" 0 "^$" -- above_event "$log"
	check "no-test-hooks ${log#"$run/"}" 1 "" -- grep -i "test_hooks" "$log"
done
kill -INT "${serve_pids[0]}"
wait "${serve_pids[0]}" || true
serve_pids=()

# The deprecated parameters, set: their WARNs are still given
check deprecated-warned 0 "^3$" -- "$repo/tests/e2e/harness.sh" \
	--nfsv4-opts 'DomainName = "example.org";' \
	--core-opts 'Manage_Gids_Expiration = 600;' -- \
	bash -c 'grep -cE "domainname in NFSv4 config section will soon be deprecated|Use idmapped_(user|group)_time_validity under DIRECTORY_SERVICES" "$NFS42_LOG"'

# --dbus system: two servers for one name on one bus
addr=$(sparse_start_dbus "$SPARSE_BUILD_DIR" $$)
export DBUS_SYSTEM_BUS_ADDRESS=$addr
port1=$(sparse_free_port)
start_serve "$SPARSE_BUILD_DIR/sys1.out" -p "$port1" --dbus system -d "$fixture/b"
first=$(cat "$SPARSE_BUILD_DIR/serve/$port1/pid")
check system-command 0 "^serve: statistics: $stats 1$" -- cat "$SPARSE_BUILD_DIR/sys1.out"
check system-names-first 0 "^server: org.ganesha.nfsd $first, ports $port1, .* on the system bus \\($addr\\)$" -- "$stats" server
port2=$(sparse_free_port)
[ "$port2" != "$port1" ] || port2=$(sparse_free_port)
check second-refused 1 "^serve: the server \\(ganesha.nfsd [0-9]+\\) could not own org.ganesha.nfsd on the bus $addr: process $first owns it" -- \
	"$serve" --no-build -p "$port2" --dbus system -d "$fixture/b"
check second-logged-why 0 "failed becoming primary bus owner" -- cat "$SPARSE_BUILD_DIR/serve/$port2/ganesha.log"
second=$(cat "$SPARSE_BUILD_DIR/serve/$port2/pid")
check second-gone 1 "" -- kill -0 "$second"
check second-port-free 0 "" -- sparse_wait_port_free "$port2" 10
check first-still-owns 0 "^$first$" -- sparse_bus_owner "$addr"
check first-still-serves 0 "" -- "$nfs42" -p "$port1" ls /sparse
check system-bus-missing 2 "--dbus system: no system bus" -- \
	env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$SPARSE_BUILD_DIR/none" "$serve" --no-build -p "$port2" --dbus system
check bad-dbus 2 "bad --dbus 'session'" -- "$serve" --no-build --dbus session

check_summary serve_heads_check
