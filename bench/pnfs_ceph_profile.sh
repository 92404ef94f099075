#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# pnfs_ceph_profile.sh [MIB] [RUNS]: where a write through a pNFS data
# server over CephFS spends its time (issue #29 item 5; docs/cluster.md
# section 7).  Run by the harness with one data server over a cluster:
#
#   tests/e2e/harness.sh --ceph DIR --fsal SPARSE --pnfs 1 \
#       --pnfs-opts "Stripe_Unit = 1048576;" -- bench/pnfs_ceph_profile.sh 64 2
#
# For each of RUNS rounds (default 2), a MIB MiB file (default 64) is put
# through the data server and then through the metadata server alone
# (`nfs42 put --no-pnfs`); for each put the CPU seconds (user + system,
# from /proc/PID/stat) of every process of the deployment: the two
# ganesha.nfsd heads, each head's ceph-fuse, the cluster's daemons (the
# ones whose command line names the cluster's ceph.conf: nothing else may
# use the cluster meanwhile) and the client.
# Then one more put through the data server with `strace -c -f -w` on the
# data server: the wall time of its pwrite64 calls (how long each write
# waited).  Every put is compared (cmp) with its source.
set -euo pipefail

size=${1:-64}
runs=${2:-2}
nfs42=${SPARSE_NFS42:?}
: "${NFS42_DS_PORTS:?run under harness.sh --pnfs 1}"
mds=$(cat "$NFS42_SERVER_PID_FILE")
ds=$(ss -Hltnp "sport = :${NFS42_DS_PORTS%% *}" | grep -o 'pid=[0-9]*' |
	head -n 1 | cut -d= -f2)
work=$(mktemp -d "${TMPDIR:-/tmp}/pnfs-profile.XXXXXX")
trap 'rm -rf "$work"' EXIT
head -c $((size << 20)) /dev/urandom >"$work/src"

# procs: "LABEL PID" of every process of the deployment
procs() {
	local p cmd
	echo "mds-ganesha $mds"
	echo "ds-ganesha $ds"
	while read -r p; do
		cmd=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) || continue
		case $cmd in
		*" $NFS42_WORK_DIR/cephfs ") echo "mds-ceph-fuse $p" ;;
		*) echo "ds-ceph-fuse $p" ;;
		esac
	done <"$NFS42_WORK_DIR/ceph-fuse.pid"
	for p in $(pgrep -f -- "$NFS42_CEPH_CONF"); do
		case $(cat "/proc/$p/comm" 2>/dev/null) in
		ceph-mon | ceph-mgr | ceph-osd | ceph-mds)
			echo "$(cat "/proc/$p/comm") $p" ;;
		esac
	done
}

# cpu_snapshot FILE: "LABEL PID TICKS" (utime + stime) of each process
cpu_snapshot() {
	local label pid
	procs | while read -r label pid; do
		awk -v l="$label" -v p="$pid" \
			'{ sub(/^.*\) /, ""); print l, p, $12 + $13 }' \
			"/proc/$pid/stat" 2>/dev/null || true
	done >"$1"
}

# cpu_report WHAT SECONDS CLIENT_CPU: the CPU seconds of each label
cpu_report() {
	local hz
	hz=$(getconf CLK_TCK)
	printf "%s: %.2f s wall; CPU s:" "$1" "$2"
	awk -v hz="$hz" '
		FNR == NR { t0[$2] = $3; next }
		($2 in t0) { cpu[$1] += ($3 - t0[$2]) / hz }
		END {
			for (l in cpu)
				if (cpu[l] >= 0.01)
					printf "%s %.2f\n", l, cpu[l]
		}' "$work/cpu0" "$work/cpu1" | sort | tr '\n' ' ' | sed 's/^/ /'
	echo "nfs42 $3"
}

# put_profiled WHAT ARGS...: one put, its CPU by process
put_profiled() {
	local what=$1 t0 t1 name
	shift
	name=$what-$RANDOM
	cpu_snapshot "$work/cpu0"
	t0=$(date +%s.%N)
	/usr/bin/time -f "%U %S" -o "$work/time" \
		"$nfs42" put "$@" "$work/src" "$NFS42_EXPORT/$name"
	t1=$(date +%s.%N)
	cpu_snapshot "$work/cpu1"
	cmp "$work/src" "$NFS42_BACKING/$name"
	cpu_report "$what" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		"$(awk '{ printf "%.2f", $1 + $2 }' "$work/time")"
	rm -f "$NFS42_BACKING/$name"
}

echo "pnfs_ceph_profile: $size MiB put, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= runs; r++)); do
	put_profiled "put via the data server"
	put_profiled "put, metadata server alone" --no-pnfs
done

# the data server's syscalls during one more put through it
strace -c -f -w -o "$work/strace" -p "$ds" &
st=$!
sleep 1
t0=$(date +%s.%N)
"$nfs42" put "$work/src" "$NFS42_EXPORT/traced"
t1=$(date +%s.%N)
kill -INT $st
wait $st || true
cmp "$work/src" "$NFS42_BACKING/traced"
echo "put via the data server under strace: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s; the data server's syscalls (wall time):"
awk 'NR <= 2 || /pwrite64|pread64|openat|close|newfstatat|flock|fsync|fdatasync|fgetxattr|total/' \
	"$work/strace"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
