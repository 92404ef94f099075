#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# load.sh [--clients N] [--seconds T] [--modes "on off"] [--lease S]
#         [--smoke]
#
# Delegations under load (issue #18): N nfs42 processes at once on the
# host, each looping for T seconds over files of its own:
#   put     nfs42 put of a 4 MiB file          (load-I-a)
#   cat     nfs42 cat of it                    (a read delegation, on)
#   cp      nfs42 cp of it, server-side COPY   (load-I-b)
#   sparse  nfs42 put of a 64 MiB sparse file  (load-I-s; 2 MiB of data)
#   catrp   nfs42 cat --read-plus of it
#   rm      nfs42 rm of the three
# Every step is its own process, so its own client: a process that
# exits holding a delegation is what the server must cope with.  An
# iteration fails when any of its steps exits non-zero.  One fresh server
# per mode (tests/e2e/harness.sh): "on" with NFSv4 Delegations = true and
# the export's Delegations = Read, "off" with Delegations = false.
# Prints per mode: iterations, failed iterations, the p99 latency of each
# step in ms, and ganesha.nfsd's RSS at the start, half-way and the end.
# The goal: 0 failures with delegations on, and an RSS that stops
# growing.  --smoke (CI): 4 clients for 6 seconds.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
clients=64 seconds=60 modes="on off" lease=10 inner=
while [ $# -gt 0 ]; do
	case "$1" in
	--clients) clients=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--modes) modes=$2; shift 2 ;;
	--lease) lease=$2; shift 2 ;;
	--smoke) clients=4 seconds=6 lease=5; shift ;;
	--inner) inner=$2; shift 2 ;;
	*) echo "load.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
export SPARSE_STAGE=${SPARSE_STAGE:-$build/stage}
export SPARSE_NFS42=${SPARSE_NFS42:-$build/inner/tools/nfs42}
steps="put cat cp sparse catrp rm"

rss_kib() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0
}

# ---- one client's loop: "STEP MS RC" lines on stdout ----
worker() {
	local i=$1 deadline=$2 out=$3 src=$4 sparse=$5 t0 rc failed
	local a=$NFS42_EXPORT/load-$i-a b=$NFS42_EXPORT/load-$i-b
	local s=$NFS42_EXPORT/load-$i-s
	run() { # STEP CMD...: time one step
		local step=$1 start end
		shift
		start=$(date +%s%N)
		if "$@" >/dev/null 2>>"$out.err"; then rc=0; else rc=$?; fi
		end=$(date +%s%N)
		echo "$step $(((end - start) / 1000000)) $rc" >>"$out"
		[ $rc = 0 ] || failed=1
	}
	while [ "$(date +%s)" -lt "$deadline" ]; do
		failed=0
		run put "$SPARSE_NFS42" -p "$NFS42_PORT" put "$src" "$a"
		run cat "$SPARSE_NFS42" -p "$NFS42_PORT" cat "$a"
		run cp "$SPARSE_NFS42" -p "$NFS42_PORT" cp "$a" "$b"
		run sparse "$SPARSE_NFS42" -p "$NFS42_PORT" put "$sparse" "$s"
		run catrp "$SPARSE_NFS42" -p "$NFS42_PORT" cat --read-plus "$s"
		t0=$(date +%s%N)
		rc=0
		for f in "$a" "$b" "$s"; do
			"$SPARSE_NFS42" -p "$NFS42_PORT" rm "$f" >/dev/null 2>>"$out.err" || rc=$?
		done
		echo "rm $((($(date +%s%N) - t0) / 1000000)) $rc" >>"$out"
		[ $rc = 0 ] || failed=1
		echo "iteration $failed" >>"$out"
	done
}

if [ -n "$inner" ]; then
	pid=$(cat "$NFS42_SERVER_PID_FILE")
	work=$(mktemp -d "${TMPDIR:-/tmp}/load.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	head -c $((4 << 20)) /dev/urandom >"$work/src"
	truncate -s 64M "$work/sparse"
	head -c $((1 << 20)) /dev/urandom |
		dd of="$work/sparse" conv=notrunc bs=1M seek=8 status=none
	head -c $((1 << 20)) /dev/urandom |
		dd of="$work/sparse" conv=notrunc bs=1M seek=63 status=none
	rss0=$(rss_kib "$pid")
	deadline=$(($(date +%s) + seconds))
	for ((i = 0; i < clients; i++)); do
		worker "$i" "$deadline" "$work/w$i" "$work/src" "$work/sparse" &
	done
	sleep $((seconds / 2))
	rss1=$(rss_kib "$pid")
	wait
	rss2=$(rss_kib "$pid")
	cat "$work"/w* >"$work/all" 2>/dev/null || true
	iters=$(grep -c '^iteration ' "$work/all" || true)
	fails=$(grep -c '^iteration 1' "$work/all" || true)
	line=$(printf "%-4s %6d %6d" "$inner" "$iters" "$fails")
	for step in $steps; do
		p99=$(awk -v s="$step" '$1 == s { print $2 }' "$work/all" | sort -n |
			awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
				i = int(NR * 0.99); if (i < NR * 0.99) i++
				print v[i] }')
		line="$line $(printf "%7s" "$p99")"
	done
	line="$line $(printf "%6d %6d %6d" $((rss0 / 1024)) $((rss1 / 1024)) $((rss2 / 1024)))"
	echo "$line" >>"$SPARSE_LOAD_OUT"
	if [ "$fails" != 0 ]; then
		echo "load.sh ($inner): what the failed steps said:" >&2
		cat "$work"/w*.err 2>/dev/null | sort | uniq -c | sort -rn | head -n 8 >&2
	fi
	exit 0
fi

out=$(mktemp "${TMPDIR:-/tmp}/load-out.XXXXXX")
trap 'rm -f "$out"' EXIT
export SPARSE_LOAD_OUT=$out
echo "load.sh: $clients clients, $seconds s per mode, Lease_Lifetime $lease; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in $modes; do
	case "$mode" in
	on) v4="Delegations = true; Lease_Lifetime = $lease;"
	    ex="Delegations = Read;" ;;
	off) v4="Delegations = false; Lease_Lifetime = $lease;"
	     ex="Delegations = None;" ;;
	*) echo "load.sh: mode on or off, not $mode" >&2; exit 2 ;;
	esac
	"$repo/tests/e2e/harness.sh" --nfsv4-opts "$v4" --export-opts "$ex" \
		-- "$0" --inner "$mode" --clients "$clients" --seconds "$seconds"
done
printf "%-4s %6s %6s" deleg iters failed
for step in $steps; do printf " %7s" "$step"; done
printf " %6s %6s %6s\n" rss0 rssmid rssend
cat "$out"
echo "(p99 per step in ms; RSS of ganesha.nfsd in MiB at the start, half-way, the end)"
status=0
while read -r mode iters fails _; do
	[ "$iters" -gt 0 ] || { echo "load.sh: no iteration completed ($mode)" >&2; status=1; }
	if [ "$mode" = on ] && [ "$fails" != 0 ]; then
		echo "load.sh: $fails failed iterations with delegations on" >&2
		status=1
	fi
done <"$out"
exit $status
