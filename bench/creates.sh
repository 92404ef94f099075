#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# creates.sh [--smoke] [--latency MS] [--scope UPDATES|ALL]
#            [--clients "1 8 32 64"] [--files N] [--runs N] [--workers N]
#            [--durable true|false]
#
# Parallel creates in one directory: starts a FSAL_SPARSE server (through
# tests/e2e/harness.sh) whose backend sleeps MS per metadata call
# (Test_Metadata_Latency_Ms) of the kinds --scope names (Test_Latency_Scope:
# UPDATES, the default here, delays creates and other updates, so a create
# costs one latency; ALL also delays lookups and getattrs, which Ganesha's
# MDCACHE runs under per-directory locks), then runs bench_creates for each
# client count.
# Prints creates/s (median of RUNS after a warm-up), the ideal
# min(N, workers) / latency and the ratio (--latency 0: no added latency,
# the rate only). --durable: the export's Durable_Metadata (default true:
# every create fsyncs the new file and the directory). --smoke: a tiny run
# for CI.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
latency=20 scope=UPDATES clients="1 8 32 64" files=200 runs=5 durable=true
# Ganesha's RPC work pool may grow to RPC_Ioq_ThrdMax threads (default 200).
workers=200
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) latency=5 clients="1 4" files=5 runs=1; shift ;;
	--latency) latency=$2; shift 2 ;;
	--scope) scope=$2; shift 2 ;;
	--clients) clients=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--workers) workers=$2; shift 2 ;;
	--durable) durable=$2; shift 2 ;;
	*) echo "creates.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

if [ -z "${NFS42_PORT:-}" ]; then
	export SPARSE_STAGE=${SPARSE_STAGE:-$build/stage}
	export SPARSE_BENCH_CREATES=${SPARSE_BENCH_CREATES:-$build/inner/bench/bench_creates}
	exec "$repo/tests/e2e/harness.sh" \
		--fsal-opts "Test_Metadata_Latency_Ms = $latency; Test_Latency_Scope = $scope; Durable_Metadata = $durable;" -- \
		"$0" --latency "$latency" --scope "$scope" --clients "$clients" --files "$files" \
		--runs "$runs" --workers "$workers" --durable "$durable"
fi

echo "bench creates: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"\
     "backend latency ${latency} ms per metadata call (scope $scope), Durable_Metadata $durable,"\
     "export on $(findmnt -n -o FSTYPE -T "$NFS42_BACKING" 2>/dev/null || echo '?'), loopback"
for n in $clients; do
	dir=creates-n$n
	mkdir "$NFS42_BACKING/$dir"
	"$SPARSE_BENCH_CREATES" -d "$NFS42_EXPORT/$dir" -n "$n" -f "$files" \
		-r "$runs" -w "$workers" -l "$latency"
	want=$(( n * files * (runs + 1) ))
	got=$(find "$NFS42_BACKING/$dir" -type f | wc -l)
	if [ "$got" -ne "$want" ]; then
		echo "creates.sh: $got files in $dir, want $want" >&2
		exit 1
	fi
done
