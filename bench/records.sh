#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# records.sh [--smoke] [--clients N] [--runs R] [--threads T] [--lease S]
#            [--backends "fs sqlite"] [--state] [--courtesy]
#
# Client records (issue #9): for each recovery backend, a fresh server
# (tests/e2e/harness.sh, Lease_Lifetime S) gets N clients established by
# bench_records from T threads (EXCHANGE_ID, CREATE_SESSION, which adds
# the record, RECLAIM_COMPLETE); their connections are closed without
# DESTROY_CLIENTID, and the script polls the records (directories under
# v4recov (v4recov/node0) for fs, rows of the sqlite database) until the reaper has
# expired them all. Expired_Client_Threshold = 0, so that one reaper pass
# expires them all and "expire s" is the cost of the removals, not the
# reaper's cadence; --courtesy keeps Ganesha's default (16: expired
# clients pass through the delayed-cleanup list, which
# Max_Alive_Time_For_Expired_Client = 1 empties at the next reaper pass,
# every Lease_Lifetime / 2 s). R timed runs per backend, then one more under
# `strace -f -c -e trace=fsync,fdatasync` to count syncs (strace slows the
# server, so that run is not timed). --state: each client also opens a
# file (bench_records -f), so that it holds state when it expires (a
# removal then has to be durable before the state is released). Prints,
# per backend, the medians:
#   add ms/rec    establishing time / N (the whole EXCHANGE_ID +
#                 CREATE_SESSION [+ OPEN] + RECLAIM_COMPLETE, from T threads)
#   expire s      first removed record to last removed record
#   passes        reaper passes that removed records (a drop more than 1 s
#                 after the previous one starts a pass: their leases ran
#                 out on both sides of a pass, whose period, Lease / 2,
#                 then shows in "expire s")
#   in-pass s     the time within passes: "expire s" less the gaps
#                 between passes (the cost of the removals themselves)
#   fsync/add     fsync+fdatasync calls of the strace run while the N
#                 clients were established / N
#   fsync/rm      the same from then until the last record was removed / N
#   fsync/pass    those of the removals / the strace run's passes
# --smoke: 20 clients, one run, for CI.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
clients=1000 runs=3 threads=16 lease=10 backends="fs sqlite" inner= strace_run=0
threshold=0 state=0
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) clients=20 runs=1 lease=4; shift ;;
	--clients) clients=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--lease) lease=$2; shift 2 ;;
	--backends) backends=$2; shift 2 ;;
	--inner) inner=$2; shift 2 ;;
	--strace) strace_run=1; shift ;;
	--courtesy) threshold=16; shift ;;
	--state) state=1; shift ;;
	*) echo "records.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
export SPARSE_STAGE=${SPARSE_STAGE:-$build/stage}
export SPARSE_BENCH_RECORDS=${SPARSE_BENCH_RECORDS:-$build/inner/bench/bench_records}

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

# ---- one run, under the harness ----
if [ -n "$inner" ]; then
	recov=$(dirname "$NFS42_LOG")/recovery
	count() {
		if [ "$inner" = fs ]; then
			# directories go away under find: its complaints are no error
			{ find "$recov/v4recov" -mindepth 1 -type d -name '*-(*' 2>/dev/null || true; } | wc -l
		else
			sqlite3 -cmd ".timeout 5000" "$recov/sparse_recovery.db" \
				"SELECT count(*) FROM clients"
		fi
	}
	pid=$(cat "$NFS42_SERVER_PID_FILE")
	# strace_start FILE / strace_stop: count fsync+fdatasync of the server
	strace_start() {
		strace -f -c -e trace=fsync,fdatasync -o "$1" -p "$pid" 2>/dev/null &
		spid=$!
		sleep 1
	}
	strace_stop() {
		kill -INT "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
	}
	syncs_in() {
		awk '$NF == "fsync" || $NF == "fdatasync" { n += $4 } END { print n + 0 }' "$1"
	}
	dir=$(dirname "$NFS42_LOG")
	[ $strace_run = 1 ] && strace_start "$dir/strace.add"
	t0=$(now)
	open_args=()
	if [ $state = 1 ]; then
		echo data >"$NFS42_BACKING/bench-records-file"
		open_args=(-f "$NFS42_EXPORT/bench-records-file")
	fi
	"$SPARSE_BENCH_RECORDS" -n "$clients" -t "$threads" -p "rec-$inner" "${open_args[@]}" >&2
	t1=$(now)
	if [ $strace_run = 1 ]; then
		strace_stop
		strace_start "$dir/strace.rm"
	fi
	peak=$(count)
	prev=$peak first= zero= last_drop= passes=0 gaps=0
	limit=$(( (lease * 4 + 60) * 50 ))
	for ((i = 0; i < limit; i++)); do
		c=$(count)
		[ "$c" -gt "$peak" ] && peak=$c
		if [ "$c" -lt "$prev" ]; then
			t=$(now)
			[ -z "$first" ] && first=$t
			# a drop over 1 s after the last one: the next reaper pass
			if [ -z "$last_drop" ]; then
				passes=1
			elif awk "BEGIN { exit !($t - $last_drop > 1) }"; then
				passes=$((passes + 1))
				gaps=$(calc "$gaps + $t - $last_drop")
			fi
			last_drop=$t
		fi
		prev=$c
		if [ "$c" = 0 ]; then zero=$(now); break; fi
		sleep 0.02
	done
	[ -n "$zero" ] || { echo "records: $inner: records left after the wait: $c" >&2; exit 1; }
	[ "$peak" = "$clients" ] || echo "records: $inner: only $peak records at once (lease too short?)" >&2
	add_syncs=- rm_syncs=-
	if [ $strace_run = 1 ]; then
		strace_stop
		add_syncs=$(syncs_in "$dir/strace.add")
		rm_syncs=$(syncs_in "$dir/strace.rm")
	fi
	echo "RESULT $inner $(calc "$t1 - $t0") $(calc "$zero - ${first:-$zero}") $add_syncs $rm_syncs $passes $(calc "$zero - ${first:-$zero} - $gaps")"
	exit 0
fi

# ---- the comparison ----
command -v sqlite3 >/dev/null || { echo "records: sqlite3 (Debian package sqlite3) missing; skipped"; exit 77; }
command -v strace >/dev/null || { echo "records: strace missing; skipped"; exit 77; }
. "$here/bench-lib.sh"
res=$(mktemp -d "${TMPDIR:-/tmp}/bench-records.XXXXXX")
trap 'rm -rf "$res"' EXIT
echo "bench records: $(bench_machine), $clients clients$([ $state = 1 ] && echo " each holding an open") from $threads threads, Lease_Lifetime $lease s, Expired_Client_Threshold $threshold," \
	"recovery root on $(findmnt -n -o FSTYPE -T "${TMPDIR:-/tmp}" 2>/dev/null || echo '?')"
for b in $backends; do
	for ((r = 0; r <= runs; r++)); do
		extra=()
		[ $r = "$runs" ] && extra=(--strace)
		[ $state = 1 ] && extra+=(--state)
		"$repo/tests/e2e/harness.sh" \
			--nfsv4-opts "RecoveryBackend = $b; Lease_Lifetime = $lease; Grace_Period = $lease; Max_Alive_Time_For_Expired_Client = 1; Expired_Client_Threshold = $threshold;" -- \
			"$0" --inner "$b" --clients "$clients" --threads "$threads" --lease "$lease" "${extra[@]}" \
			| grep '^RESULT' >>"$res/all" || { echo "records: run of $b failed" >&2; exit 1; }
	done
done
printf '%-8s %11s %9s %7s %10s %10s %10s %11s\n' backend "add ms/rec" "expire s" passes "in-pass s" \
	"fsync/add" "fsync/rm" "fsync/pass"
for b in $backends; do
	awk -v b="$b" '$2 == b && $5 == "-" { print $3 }' "$res/all" >"$res/add"
	awk -v b="$b" '$2 == b && $5 == "-" { print $4 }' "$res/all" >"$res/exp"
	awk -v b="$b" '$2 == b && $5 == "-" { print $7 }' "$res/all" >"$res/passes"
	awk -v b="$b" '$2 == b && $5 == "-" { print $8 }' "$res/all" >"$res/inpass"
	read -r add _ < <(bench_stats "$res/add")
	read -r exp _ < <(bench_stats "$res/exp")
	read -r passes _ < <(bench_stats "$res/passes")
	read -r inpass _ < <(bench_stats "$res/inpass")
	read -r asyncs rsyncs spasses < <(awk -v b="$b" '$2 == b && $5 != "-" { print $5, $6, $7 }' "$res/all")
	printf '%-8s %11.2f %9.2f %7.0f %10.2f %10.3f %10.3f %11.1f\n' "$b" \
		"$(calc "$add * 1000 / $clients")" "$exp" "$passes" "$inpass" \
		"$(calc "$asyncs / $clients")" "$(calc "$rsyncs / $clients")" \
		"$(calc "$rsyncs / ($spasses > 0 ? $spasses : 1)")"
done
echo "(medians of $runs runs; fsyncs from one more run under strace -f -c)"
