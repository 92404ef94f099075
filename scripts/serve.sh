#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# serve.sh: run ganesha.nfsd from this checkout's build, in the foreground,
# with one FSAL_SPARSE export on 127.0.0.1; Ctrl-C stops it. Its
# configuration is the packages' sample /etc/ganesha/ganesha.conf
# (src/config_samples/ganesha-sparse.conf.in) filled in with this command's
# values. `serve.sh --help` lists the options.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/scripts/server-lib.sh"

usage() {
	cat <<'USAGE'
usage: serve.sh [-p PORT] [-d EXPORT_DIR] [-P PSEUDO] [-l LOG_LEVEL]
                [--protocols LIST] [--mount-port PORT]
                [--rpcbind private|system] [--dbus private|system]
                [--no-delegations] [--no-build]
                [--pnfs N [--stripe-unit BYTES]]

Builds (if needed) and runs ganesha.nfsd in the foreground with one
FSAL_SPARSE export on 127.0.0.1; Ctrl-C stops it.
  -p PORT        NFS port (default 2049)
  -d EXPORT_DIR  directory to export (default /srv/nfs-sparse, created if
                 missing; a directory given with -d must exist)
  -P PSEUDO      the path clients use for the export (default /sparse)
  -l LEVEL       log level: NULL FATAL MAJ CRIT WARN EVENT INFO DEBUG
                 MID_DEBUG FULL_DEBUG (default EVENT)
  --protocols LIST
                 NFS versions, comma-separated: 3, 4.0, 4.1, 4.2, or 4 for
                 all three NFSv4 minor versions (default 4)
  --mount-port PORT
                 with NFSv3: the MOUNT protocol's port (default 20048)
  --rpcbind private|system
                 with NFSv3, the rpcbind the server registers with (it does
                 not start without one). private (default): one of this
                 server's own, in a mount namespace of its own (needs root
                 and unshare); clients are given the ports. system: the
                 machine's rpcbind, which must be running already
                 (serve.sh never starts it: `systemctl start rpcbind`)
  --dbus private|system
                 the message bus each server registers org.ganesha.nfsd on
                 (its statistics, sparse-stats). private (default): a
                 dbus-daemon of each server's own, BUILD/serve/PORT/dbus.sock
                 (data servers: ds*/dbus.sock). system: the machine's system
                 bus for this server (as the packages' server does: none
                 other may own the name there), private ones for data
                 servers. serve.sh prints each server's sparse-stats command
                 and stops if a server could not own its name
  --no-delegations
                 grant no delegations (default: read and write
                 delegations, each backed by a Linux lease; write ones
                 while /proc/sys/fs/lease-break-time is at least 45 s,
                 the kernel's default, for this server's 20 s lease)
  --no-build     use the existing build as it is
  --pnfs N       pNFS: this server is the metadata server, and N more
                 servers on ports PORT+1..PORT+N, on the same export
                 directory, are its data servers (files layouts striped
                 over them; N from 1 to 16; NFSv4.1 or 4.2 only)
  --stripe-unit BYTES
                 with --pnfs: the stripe unit (default 1048576)
  -h, --help     this text
Each server keeps its configuration, log and client records in
BUILD/serve/PORT/ (BUILD: build/, or $SPARSE_BUILD_DIR).
USAGE
}

bad_usage() {
	echo "serve: $*" >&2
	echo "serve: serve.sh --help lists the options" >&2
	exit 2
}

PORT=2049
MNT_PORT=20048
EXPORT_DIR=/srv/nfs-sparse
PSEUDO=/sparse
LOG_LEVEL=EVENT
protocols_arg=4
rpcbind=private
dbus=private
build=${SPARSE_BUILD_DIR:-$repo/build}
do_build=1
export_given=0
delegations=1
pnfs=0
stripe_unit=1048576
all_args=("$@")

while [ $# -gt 0 ]; do
	case "$1" in
	-p | -d | -l | -P | --protocols | --mount-port | --rpcbind | --pnfs | \
	--stripe-unit | --dbus)
		[ $# -ge 2 ] || bad_usage "$1 needs a value"
		case "$1" in
		-p) PORT=$2 ;;
		-d) EXPORT_DIR=$2; export_given=1 ;;
		-l) LOG_LEVEL=$2 ;;
		-P) PSEUDO=$2 ;;
		--protocols) protocols_arg=$2 ;;
		--mount-port) MNT_PORT=$2 ;;
		--rpcbind) rpcbind=$2 ;;
		--dbus) dbus=$2 ;;
		--pnfs) pnfs=$2 ;;
		--stripe-unit) stripe_unit=$2 ;;
		esac
		shift 2
		;;
	--no-build) do_build=0; shift ;;
	--no-delegations) delegations=0; shift ;;
	-h | --help) usage; exit 0 ;;
	*) bad_usage "unknown argument '$1'" ;;
	esac
done

# parse_protocols LIST: PROTOCOLS (NFS_CORE_PARAM's list) and
# MINOR_VERSIONS from 3, 4, 4.0, 4.1, 4.2 separated by commas or blanks
parse_protocols() {
	local item items v3=0 m minors=""
	IFS=', ' read -r -a items <<<"$1"
	for item in "${items[@]}"; do
		case "$item" in
		3) v3=1 ;;
		4) minors="$minors 0 1 2" ;;
		4.0 | 4.1 | 4.2) minors="$minors ${item#4.}" ;;
		*) return 1 ;;
		esac
	done
	MINOR_VERSIONS=""
	for m in 0 1 2; do
		[[ " $minors " == *" $m "* ]] || continue
		MINOR_VERSIONS=${MINOR_VERSIONS:+$MINOR_VERSIONS, }$m
	done
	if [ -n "$MINOR_VERSIONS" ]; then
		PROTOCOLS=4
		[ $v3 = 0 ] || PROTOCOLS="3, 4"
	else
		[ $v3 = 1 ] || return 1
		PROTOCOLS=3
		MINOR_VERSIONS="0, 1, 2" # unused: no NFSv4
	fi
}

# Everything is checked before anything is written.
parse_protocols "$protocols_arg" ||
	bad_usage "bad --protocols '$protocols_arg' (a list of 3, 4, 4.0, 4.1, 4.2)"
with_v3=0
[ "$PROTOCOLS" = 4 ] || with_v3=1
with_v4=1
[ "$PROTOCOLS" != 3 ] || with_v4=0
sparse_valid_port "$PORT" || bad_usage "bad port '$PORT' (1-65535)"
sparse_valid_port "$MNT_PORT" || bad_usage "bad MOUNT port '$MNT_PORT' (1-65535)"
sparse_valid_log_level "$LOG_LEVEL" ||
	bad_usage "bad log level '$LOG_LEVEL' (one of: $SPARSE_LOG_LEVELS)"
case "$rpcbind" in
private | system) ;;
*) bad_usage "bad --rpcbind '$rpcbind' (private or system)" ;;
esac
case "$dbus" in
private | system) ;;
*) bad_usage "bad --dbus '$dbus' (private or system)" ;;
esac
[[ "$PSEUDO" == /* ]] || bad_usage "pseudo path must start with /"
pseudo_q=$(sparse_conf_string "$PSEUDO") ||
	bad_usage "pseudo path has a control character"
if [ $export_given = 1 ]; then
	if [ ! -e "$EXPORT_DIR" ]; then
		bad_usage "export directory '$EXPORT_DIR' does not exist"
	elif [ ! -d "$EXPORT_DIR" ]; then
		bad_usage "'$EXPORT_DIR' is not a directory"
	fi
fi
sparse_conf_string "$EXPORT_DIR" >/dev/null ||
	bad_usage "export directory name has a control character"
if [ $with_v3 = 1 ] && [ "$MNT_PORT" = "$PORT" ]; then
	bad_usage "the MOUNT port must differ from the NFS port ($PORT)"
fi
[[ "$pnfs" =~ ^[0-9]{1,2}$ ]] && [ "$pnfs" -le 16 ] ||
	bad_usage "--pnfs takes a number of data servers, 1 to 16"
[[ "$stripe_unit" =~ ^[0-9]{4,10}$ ]] && [ $((stripe_unit % 4096)) = 0 ] ||
	bad_usage "--stripe-unit must be a multiple of 4096"
if [ "$pnfs" -gt 0 ] && [[ ", $MINOR_VERSIONS" != *", 1"* && ", $MINOR_VERSIONS" != *", 2"* || $with_v4 = 0 ]]; then
	bad_usage "--pnfs needs NFSv4.1 or NFSv4.2 in --protocols"
fi
ds_ports=()
for ((i = 1; i <= pnfs; i++)); do
	ds_ports+=($((PORT + i)))
	sparse_valid_port "$((PORT + i))" ||
		bad_usage "data server port $((PORT + i)) out of range"
	if [ $with_v3 = 1 ] && [ "$MNT_PORT" = "$((PORT + i))" ]; then
		bad_usage "the MOUNT port must differ from the data servers' ports"
	fi
done

# A second serve.sh from this checkout may run on another port: each
# server has its own run directory, BUILD/serve/PORT, locked while it runs.
run=$build/serve/$PORT
for p in "$PORT" "${ds_ports[@]}"; do
	if sparse_port_in_use "$p"; then
		echo "serve: port $p is already in use on this machine" >&2
		exit 2
	fi
done
if [ $with_v3 = 1 ] && sparse_port_in_use "$MNT_PORT"; then
	echo "serve: MOUNT port $MNT_PORT is already in use on this machine (--mount-port)" >&2
	exit 2
fi
system_bus=${DBUS_SYSTEM_BUS_ADDRESS:-unix:path=/run/dbus/system_bus_socket}
if [ $dbus = system ] && [[ "$system_bus" == unix:path=* ]] &&
   [ ! -S "${system_bus#unix:path=}" ]; then
	echo "serve: --dbus system: no system bus ($system_bus is not there);" \
	     "start it (Debian package dbus) or use --dbus private" >&2
	exit 2
fi
if [ $with_v3 = 1 ] && [ $rpcbind = system ] && [ ! -S /run/rpcbind.sock ]; then
	echo "serve: --rpcbind system: the machine's rpcbind is not running" \
	     "(no /run/rpcbind.sock); start it yourself (Debian package" \
	     "rpcbind: systemctl start rpcbind) or use --rpcbind private" >&2
	exit 2
fi

# NFSv3 with a private rpcbind: the server and the rpcbind stub get a /run
# of their own, in a mount namespace of this process (unshare execs: the
# PID stays serve.sh's). The machine's rpcbind is never touched.
if [ $with_v3 = 1 ] && [ $rpcbind = private ] && [ -z "${SPARSE_SERVE_MNTNS:-}" ]; then
	if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null ||
	   ! unshare --mount --propagation private true 2>/dev/null; then
		echo "serve: NFSv3 with a private rpcbind needs a mount namespace" \
		     "of its own (root, unshare from util-linux); or use" \
		     "--rpcbind system with the machine's rpcbind running" >&2
		exit 2
	fi
	exec env SPARSE_SERVE_MNTNS=1 unshare --mount --propagation private -- \
		"$0" "${all_args[@]}"
fi

stage=$build/stage
if [ $do_build = 1 ]; then
	[ -x "$stage/bin/ganesha.nfsd" ] ||
		echo "serve: no server built in $build yet: building it first (scripts/build.sh)"
	"$repo/scripts/build.sh" "$build"
fi
[ -x "$stage/bin/ganesha.nfsd" ] || { echo "serve: no server built in $build" >&2; exit 1; }
stub=${SPARSE_RPCB_STUB:-$build/inner/tests/e2e/rpcb_stub}
if [ $with_v3 = 1 ] && [ $rpcbind = private ] && [ ! -x "$stub" ]; then
	echo "serve: no rpcbind stub built ($stub)" >&2
	exit 1
fi

mkdir -p "$run"
exec 9>>"$run/lock"
if ! flock -n 9; then
	echo "serve: another serve.sh runs a server from $run (port $PORT)" >&2
	exit 2
fi
if [ $export_given = 0 ]; then
	mkdir -p "$EXPORT_DIR"
fi
EXPORT_DIR=$(cd "$EXPORT_DIR" && pwd -P)
export_q=$(sparse_conf_string "$EXPORT_DIR")
mkdir -p "$run/recovery"
conf=$run/ganesha.conf
log=$run/ganesha.log
recovery_q=$(sparse_conf_string "$run/recovery") ||
	{ echo "serve: build directory name has a control character" >&2; exit 2; }
plugins_q=$(sparse_conf_string "$stage/lib/ganesha") ||
	{ echo "serve: build directory name has a control character" >&2; exit 2; }
# Read and write delegations: FSAL_SPARSE backs each with a Linux lease,
# so a local open recalls it too.  Write delegations need lease-break-time
# >= 2 x Lease_Lifetime + 5 (FSAL_SPARSE refuses them otherwise): this
# server's lease is 20 s, which the kernel's default lease-break-time
# (45 s) covers; the machine's sysctl is never changed here
# (configuration.md, "Delegations").
lease_lifetime=20
if [ $delegations = 1 ]; then
	deleg=(DELEGATIONS=true EXPORT_DELEGATIONS=RW)
else
	deleg=(DELEGATIONS=false EXPORT_DELEGATIONS=None)
fi
# render OUT PROTOCOLS PORT MINOR_VERSIONS RECOVERY_ROOT: the sample
# template with this command's values (the export's the same for all)
render() {
	sparse_render_conf "$repo/src/config_samples/ganesha-sparse.conf.in" "$1" \
		"PROTOCOLS=$2" "NFS_PORT=$3" "MNT_PORT=$MNT_PORT" \
		"BIND_ADDR=127.0.0.1" "PLUGINS_DIR=$plugins_q" \
		"MINOR_VERSIONS=$4" "RECOVERY_ROOT=$5" \
		"GRACELESS=true" "EXPORT_PATH=$export_q" "PSEUDO=$pseudo_q" \
		"LOG_LEVEL=$LOG_LEVEL" "LEASE_LIFETIME=$lease_lifetime" \
		"${deleg[@]}"
}
render "$conf" "$PROTOCOLS" "$PORT" "$MINOR_VERSIONS" "$recovery_q"
[ ! -s "$log" ] || mv "$log" "$log.old"
: >"$log"

# Each server registers org.ganesha.nfsd on a bus of its own (--dbus
# private: a dbus-daemon in its run directory, ended with serve.sh), or
# this one on the system bus (--dbus system); without dbus-daemon, on
# none (no statistics). head_bus DIR WHICH: the address for the server
# whose files are in DIR; "none" when there is no bus for it.
have_dbus_daemon=0
command -v dbus-daemon >/dev/null && command -v dbus-send >/dev/null &&
	have_dbus_daemon=1
head_bus() {
	if [ "$2" = mds ] && [ $dbus = system ]; then
		echo "$system_bus"
	elif [ $have_dbus_daemon = 1 ]; then
		sparse_start_dbus "$1" $$
	else
		echo none
	fi
}
# start_head DIR CONF LOG BUS: ganesha.nfsd with its bus (a socket
# that is not there for "none", so that it never takes the machine's
# system bus by default); its PID in $head_pid
start_head() {
	local addr=$4
	[ "$addr" != none ] || addr=unix:path=$1/no-bus
	head_pid=$(DBUS_SYSTEM_BUS_ADDRESS=$addr sparse_start_server "$stage" "$2" "$3" "$1/pid" $$)
}
# check_head_bus WHAT PID BUS LOG: 0 when process PID owns
# org.ganesha.nfsd on BUS (or there is no bus for it, or no dbus-send to
# ask it); else says who does and what the server logged about DBus, and
# returns 1
check_head_bus() {
	local what=$1 pid=$2 addr=$3 log=$4 owner
	[ "$addr" != none ] && command -v dbus-send >/dev/null || return 0
	owner=$(sparse_bus_owner "$addr") || owner=
	[ "$owner" = "$pid" ] && return 0
	echo "serve: $what (ganesha.nfsd $pid) could not own org.ganesha.nfsd on the bus $addr${owner:+: process $owner owns it}; its DBus messages:" >&2
	grep -F ":DBUS :" "$log" | sed 's/^.*\] //' >&2
	return 1
}

# pNFS: the data servers first, each with its own run directory under
# this one (NFSv4.1 and 4.2 only, same export directory); then this server
# as their metadata server (docs/configuration.md, "pNFS")
ds_pids=()
ds_buses=()
stop_ds() {
	local p
	for p in "${ds_pids[@]}"; do
		sparse_stop_server "$p" || true
	done
}
if [ "$pnfs" -gt 0 ]; then
	for ((i = 0; i < pnfs; i++)); do
		d=$run/ds$i
		mkdir -p "$d/recovery"
		render "$d/ganesha.conf" 4 "${ds_ports[$i]}" "1, 2" \
			"$(sparse_conf_string "$d/recovery")"
		sparse_conf_add_pnfs "$d/ganesha.conf" "PNFS_DS = true;" "PNFS_DS = true;"
		: >"$d/ganesha.log"
		bus=$(head_bus "$d" ds) ||
			{ echo "serve: data server $i: its dbus-daemon did not start" >&2; stop_ds; exit 1; }
		ds_buses+=("$bus")
		start_head "$d" "$d/ganesha.conf" "$d/ganesha.log" "$bus"
		p=$head_pid
		ds_pids+=("$p")
		if ! sparse_wait_ready "$p" "${ds_ports[$i]}" "$d/ganesha.log" 60; then
			echo "serve: data server $i did not start; from $d/ganesha.log:" >&2
			sparse_log_errors "$d/ganesha.log" >&2
			stop_ds
			exit 1
		fi
		if ! check_head_bus "data server $i" "$p" "$bus" "$d/ganesha.log"; then
			stop_ds
			exit 1
		fi
	done
	sparse_conf_add_pnfs "$conf" "PNFS_MDS = true;" \
		"PNFS_MDS = true; Stripe_Unit = $stripe_unit; $(sparse_pnfs_ds_blocks 127.0.0.1 "${ds_ports[@]}" | tr "\n\t" "  ")"
fi

if [ $with_v3 = 1 ] && [ $rpcbind = private ]; then
	# /run of this namespace: run/, with the machine's /run/dbus in it
	# (the system bus, for statistics)
	mkdir -p "$run/run"
	if [ -d /run/dbus ]; then
		mkdir -p "$run/run/dbus"
		mount --bind /run/dbus "$run/run/dbus"
	fi
	mount --rbind "$run/run" /run
	sparse_start_rpcb "$stub" "$run" $$ ||
		{ echo "serve: the private rpcbind did not start" >&2; exit 1; }
fi

bus=$(head_bus "$run" mds) ||
	{ echo "serve: its dbus-daemon did not start" >&2; stop_ds; exit 1; }
start_head "$run" "$conf" "$log" "$bus"
pid=$head_pid
trap 'echo; echo "serve: stopping ganesha.nfsd ($pid ${ds_pids[*]})"; sparse_stop_server "$pid"; stop_ds; exit 0' INT TERM
if ! sparse_wait_ready "$pid" "$PORT" "$log" 60; then
	echo "serve: ganesha.nfsd did not start; from $log:" >&2
	sparse_log_errors "$log" >&2
	sparse_stop_server "$pid" 2
	stop_ds
	exit 1
fi
if ! check_head_bus "the server" "$pid" "$bus" "$log"; then
	sparse_stop_server "$pid"
	stop_ds
	exit 1
fi
if sparse_config_errors "$log" >"$run/config-errors"; then
	echo "serve: ganesha.nfsd refused its configuration ($conf):" >&2
	cat "$run/config-errors" >&2
	sparse_stop_server "$pid"
	stop_ds
	exit 1
fi

versions=""
[ $with_v3 = 0 ] || versions="NFSv3"
for m in ${MINOR_VERSIONS//,/}; do
	[ $with_v4 = 1 ] || break
	versions="${versions:+$versions, }NFSv4.$m"
done
echo "serve: ganesha.nfsd $pid exports $EXPORT_DIR as $PSEUDO on 127.0.0.1:$PORT ($versions)"
echo "serve: config $conf, log $log; Ctrl-C stops it"
if [ "$pnfs" -gt 0 ]; then
	echo "serve: pNFS metadata server; data servers ${ds_pids[*]} on ports ${ds_ports[*]} (stripe unit $stripe_unit), their files in $run/ds*/"
fi
lease_break=$(cat /proc/sys/fs/lease-break-time 2>/dev/null || echo 0)
lease_need=$((2 * lease_lifetime + 5))
if [ $delegations = 0 ]; then
	echo "serve: delegations off"
elif [ "$lease_break" -ge $lease_need ]; then
	echo "serve: read and write delegations on (Lease_Lifetime $lease_lifetime s, lease-break-time $lease_break s; --no-delegations turns them off)"
else
	echo "serve: read delegations on; write delegations refused: /proc/sys/fs/lease-break-time is $lease_break s, they need $lease_need s (sysctl fs.lease-break-time=$lease_need; --no-delegations turns all off)"
fi
if [ $with_v4 = 1 ] && [[ "$MINOR_VERSIONS" == *2 ]]; then
	echo "serve: nfs42: $build/inner/tools/nfs42 -p $PORT ls $PSEUDO"
elif [ $with_v4 = 1 ] && [[ "$MINOR_VERSIONS" == *1 ]]; then
	echo "serve: nfs42: $build/inner/tools/nfs42 -p $PORT -m 1 ls $PSEUDO"
fi
# libnfs (nfs-ls, nfs-cat, nfs-cp of Debian's libnfs-utils) takes the
# ports as URL arguments; its NFSv4 is NFSv4.0
url_path=$PSEUDO
if [ $with_v3 = 1 ]; then
	echo "serve: NFSv3 MOUNT on 127.0.0.1:$MNT_PORT, registered with the $rpcbind rpcbind;" \
	     "libnfs: nfs-ls 'nfs://127.0.0.1$url_path?nfsport=$PORT&mountport=$MNT_PORT'"
fi
if [ $with_v4 = 1 ] && [[ ", $MINOR_VERSIONS" == *", 0"* ]]; then
	echo "serve: NFSv4.0, libnfs: nfs-ls 'nfs://127.0.0.1$url_path?version=4&nfsport=$PORT'"
fi
# stats_cmd BUS: the sparse-stats command for the server on BUS
stats_cmd() {
	if [ "$1" = "$system_bus" ] && [ $dbus = system ]; then
		echo "$repo/tools/sparse-stats 1"
	else
		echo "$repo/tools/sparse-stats --bus ${1#unix:path=} 1"
	fi
}
if [ "$bus" = none ]; then
	echo "serve: no DBus (dbus-daemon and dbus-send, Debian packages dbus-daemon and dbus-bin, are missing): serving without statistics; see docs/statistics.md"
else
	for ((i = 0; i < pnfs; i++)); do
		echo "serve: data server $i (port ${ds_ports[$i]}) statistics: $(stats_cmd "${ds_buses[$i]}")"
	done
	echo "serve: statistics: $(stats_cmd "$bus")"
fi
while kill -0 "$pid" 2>/dev/null; do
	sleep 1 &
	wait $! || true
done
echo "serve: ganesha.nfsd exited; last log lines:" >&2
tail -n 10 "$log" >&2
stop_ds
exit 1
