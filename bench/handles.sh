#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# handles.sh [--smoke] [--chains N] [--depth N] [--runs N] [--no-drop]
#
# What FSAL_SPARSE's export confinement check costs: the same cold-cache
# PUTFH+GETATTR storm (bench_handles) against a server with the check and
# one with Test_Hooks { Skip_Confinement = true; }, side by side, and the ratio.
# Kernel caches are dropped before each timed pass when run as root
# (--no-drop keeps them).  --smoke: a tiny run for CI.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
chains=100 depth=16 runs=5 drop=-D
[ "$(id -u)" = 0 ] || drop=
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) chains=2 depth=3 runs=1 drop=; shift ;;
	--chains) chains=$2; shift 2 ;;
	--depth) depth=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--no-drop) drop=; shift ;;
	*) echo "handles.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
export SPARSE_STAGE=${SPARSE_STAGE:-$build/stage}
bench=${SPARSE_BENCH_HANDLES:-$build/inner/bench/bench_handles}

echo "bench handles: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), loopback"
# Two passes in alternating order, so neither contender always runs first.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
half=$(( (runs + 1) / 2 ))
for order in "check skip" "skip check"; do
	for mode in $order; do
		opts=""
		[ $mode = skip ] && opts="Test_Hooks { Skip_Confinement = true; }"
		echo "== confinement $mode"
		"$repo/tests/e2e/harness.sh" --fsal-opts "$opts" -- \
			"$bench" -c "$chains" -d "$depth" -r "$half" $drop |
			tee -a "$out/$mode" | grep -v '^sample'
	done
done
# median of the pooled samples of one mode
med() {
	awk -v w="$2" '$1 == "sample" && $2 == w { print $3 }' "$out/$1" |
		sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
echo "pooled over both passes ($(( 2 * half )) runs each):"
for what in directories files; do
	awk -v w="$what" -v c="$(med check $what)" -v s="$(med skip $what)" \
		'BEGIN { printf "%s: with check %.1f us, without %.1f us, ratio %.2f\n", w, c, s, c / s }'
done
