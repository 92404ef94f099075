#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# serve.sh [-p PORT] [-d EXPORT_DIR] [-l LOG_LEVEL] [-P PSEUDO] [--no-build]
#          [--no-delegations] [--pnfs N [--stripe-unit BYTES]]
#
# Builds (if needed) and runs ganesha.nfsd in the foreground with one
# FSAL_SPARSE export on 127.0.0.1. Ctrl-C stops it cleanly.
#   -p PORT        TCP port (default 2049)
#   -d EXPORT_DIR  directory to export (default /srv/nfs-sparse, created if
#                  missing; a directory given with -d must exist)
#   -l LEVEL       log level: NULL FATAL MAJ CRIT WARN EVENT INFO DEBUG
#                  MID_DEBUG FULL_DEBUG (default EVENT)
#   -P PSEUDO      NFSv4 pseudo path of the export (default /sparse)
#   --no-build     use the existing build as it is
#   --no-delegations  grant no delegations (default: read delegations on
#                  the export, backed by Linux leases; docs/configuration.md)
#   --pnfs N       pNFS: this server is the metadata server, and N more
#                  servers on ports PORT+1..PORT+N, on the same export
#                  directory, are its data servers (files layouts striped
#                  over them; N from 1 to 16)
#   --stripe-unit BYTES  with --pnfs: the stripe unit (default 1048576)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/scripts/server-lib.sh"

PORT=2049
EXPORT_DIR=/srv/nfs-sparse
PSEUDO=/sparse
LOG_LEVEL=EVENT
build=${SPARSE_BUILD_DIR:-$repo/build}
do_build=1
export_given=0
delegations=1
pnfs=0
stripe_unit=1048576

usage() {
	sed -n '5,24s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	-p) PORT=${2:-}; shift 2 || usage ;;
	-d) EXPORT_DIR=${2:-}; export_given=1; shift 2 || usage ;;
	-l) LOG_LEVEL=${2:-}; shift 2 || usage ;;
	-P) PSEUDO=${2:-}; shift 2 || usage ;;
	--no-build) do_build=0; shift ;;
	--no-delegations) delegations=0; shift ;;
	--pnfs) pnfs=${2:-}; shift 2 || usage ;;
	--stripe-unit) stripe_unit=${2:-}; shift 2 || usage ;;
	-h|--help) usage ;;
	*) echo "serve: unknown argument '$1'" >&2; usage ;;
	esac
done

sparse_valid_port "$PORT" || { echo "serve: bad port '$PORT' (1-65535)" >&2; exit 2; }
sparse_valid_log_level "$LOG_LEVEL" ||
	{ echo "serve: bad log level '$LOG_LEVEL' (one of: $SPARSE_LOG_LEVELS)" >&2; exit 2; }
[[ "$PSEUDO" == /* ]] || { echo "serve: pseudo path must start with /" >&2; exit 2; }
[[ "$pnfs" =~ ^[0-9]{1,2}$ ]] && [ "$pnfs" -le 16 ] ||
	{ echo "serve: --pnfs takes a number of data servers, 1 to 16" >&2; exit 2; }
[[ "$stripe_unit" =~ ^[0-9]{4,10}$ ]] && [ $((stripe_unit % 4096)) = 0 ] ||
	{ echo "serve: --stripe-unit must be a multiple of 4096" >&2; exit 2; }
ds_ports=()
for ((i = 1; i <= pnfs; i++)); do
	ds_ports+=($((PORT + i)))
	sparse_valid_port "$((PORT + i))" ||
		{ echo "serve: data server port $((PORT + i)) out of range" >&2; exit 2; }
done
if [ $export_given = 1 ]; then
	[ -d "$EXPORT_DIR" ] || { echo "serve: export directory '$EXPORT_DIR' does not exist" >&2; exit 2; }
else
	mkdir -p "$EXPORT_DIR"
fi
EXPORT_DIR=$(cd "$EXPORT_DIR" && pwd)
for p in "$PORT" "${ds_ports[@]}"; do
	if sparse_port_in_use "$p"; then
		echo "serve: port $p is already in use on this machine" >&2
		exit 2
	fi
done

[ $do_build = 1 ] && "$repo/scripts/build.sh" "$build"
stage=$build/stage
[ -x "$stage/bin/ganesha.nfsd" ] || { echo "serve: no server built in $build" >&2; exit 1; }

run=$build/serve
mkdir -p "$run/recovery"
RECOVERY_DIR=$run/recovery
PLUGINS_DIR=$stage/lib/ganesha
conf=$run/ganesha.conf
log=$run/ganesha.log
# Read delegations: FSAL_SPARSE backs each with a Linux lease, so a local
# writer recalls it too; write delegations are not offered (design.md).
if [ $delegations = 1 ]; then
	NFSV4_OPTS="Delegations = true;"
	EXPORT_OPTS="Delegations = Read;"
else
	NFSV4_OPTS="Delegations = false;"
	EXPORT_OPTS="Delegations = None;"
fi
# pNFS: the data servers first, each its own directory; then this server
# as their metadata server (docs/configuration.md, "pNFS")
ds_pids=()
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
		( PORT=${ds_ports[$i]} RECOVERY_DIR=$d/recovery \
		  NFSV4_OPTS="$NFSV4_OPTS PNFS_DS = true;" \
		  FSAL_OPTS="PNFS_DS = true;" sparse_write_conf "$d/ganesha.conf" )
		: >"$d/ganesha.log"
		p=$(sparse_start_server "$stage" "$d/ganesha.conf" "$d/ganesha.log" "$d/pid" $$)
		ds_pids+=("$p")
		if ! sparse_wait_ready "$p" "${ds_ports[$i]}" "$d/ganesha.log" 60; then
			echo "serve: data server $i did not start; from $d/ganesha.log:" >&2
			sparse_log_errors "$d/ganesha.log" >&2
			stop_ds
			exit 1
		fi
	done
	NFSV4_OPTS="$NFSV4_OPTS PNFS_MDS = true;"
	FSAL_OPTS="PNFS_MDS = true; Stripe_Unit = $stripe_unit;
		$(sparse_pnfs_ds_blocks 127.0.0.1 "${ds_ports[@]}")"
fi
sparse_write_conf "$conf"
: >"$log"

pid=$(sparse_start_server "$stage" "$conf" "$log" "$run/pid" $$)
trap 'echo; echo "serve: stopping ganesha.nfsd ($pid ${ds_pids[*]})"; sparse_stop_server "$pid"; stop_ds; exit 0' INT TERM
if ! sparse_wait_ready "$pid" "$PORT" "$log" 60; then
	echo "serve: ganesha.nfsd did not start; from $log:" >&2
	sparse_log_errors "$log" >&2
	sparse_stop_server "$pid" 2
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
echo "serve: ganesha.nfsd $pid exports $EXPORT_DIR as $PSEUDO on 127.0.0.1:$PORT"
echo "serve: config $conf, log $log; Ctrl-C stops it"
if [ "$pnfs" -gt 0 ]; then
	echo "serve: pNFS metadata server; data servers ${ds_pids[*]} on ports ${ds_ports[*]} (stripe unit $stripe_unit), their files in $run/ds*/"
fi
if [ $delegations = 1 ]; then
	echo "serve: read delegations on (--no-delegations turns them off)"
else
	echo "serve: delegations off"
fi
if grep -q "dbus_bus_get failed\|server bus reg failed" "$log"; then
	echo "serve: no DBus (no system bus, or org.ganesha.nfsd not allowed on it): serving without statistics; see docs/statistics.md"
else
	echo "serve: statistics: tools/sparse-stats 1"
fi
while kill -0 "$pid" 2>/dev/null; do
	sleep 1 &
	wait $! || true
done
echo "serve: ganesha.nfsd exited; last log lines:" >&2
tail -n 10 "$log" >&2
stop_ds
exit 1
