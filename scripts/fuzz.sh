#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# fuzz.sh [--plain] [--time SECONDS] [--seed N] [--no-minimize]
#         [--out DIR] [-- fuzz_stateful options...]
#
# The long run of the stateful protocol fuzzer (docs/testing.md,
# "Stateful protocol fuzzing"): builds the sanitizer tree (build-asan/,
# ASan + UBSan; --plain: build/) if needed, then runs fuzz_stateful for
# SECONDS (default 3600) against a metadata server with one data server,
# read and write delegations, NFSv4.0/4.1/4.2 and NFSv3, exactly as the
# CI test fuzz/stateful does, but going on after each finding (the dead
# server restarted) and minimizing it into a trace under DIR (default
# fuzz-findings/ in the build tree).  A finding is replayed with
#   scripts/fuzz.sh -- --replay DIR/KIND-SEED-min.trace
# and becomes a regression test when copied into tests/fuzz/stateful/regress/.
# Needs root (NFSv3: a private mount namespace for the rpcbind stub).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
asan=1
time=3600
seed=""
minimize=(--minimize)
out=""
while [ $# -gt 0 ]; do
	case "$1" in
	--plain) asan=0; shift ;;
	--time) time=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--no-minimize) minimize=(); shift ;;
	--out) out=$2; shift 2 ;;
	--help | -h) sed -n '4,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) echo "fuzz.sh: unknown option $1 (--help)" >&2; exit 2 ;;
	esac
done
if [ $asan = 1 ]; then
	build=${SPARSE_BUILD_DIR:-$repo/build-asan}
	"$repo/scripts/build.sh" --asan "$build"
	# as scripts/test.sh --asan runs the servers: every report halts
	export SPARSE_SERVER_ASAN_OPTIONS=${SPARSE_SERVER_ASAN_OPTIONS:-detect_leaks=0}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$repo/tests/sanitizers/ubsan.supp}
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
else
	build=${SPARSE_BUILD_DIR:-$repo/build}
	"$repo/scripts/build.sh" "$build"
fi
out=${out:-$build/fuzz-findings}
args=(--time "$time" --keep-going "${minimize[@]}" --out "$out")
[ -z "$seed" ] || args+=(--seed "$seed")
export SPARSE_STAGE=$build/stage
export SPARSE_RPCB_STUB=$build/inner/tests/e2e/rpcb_stub
export SPARSE_MINOR_VERSIONS="0, 1, 2"
exec "$repo/tests/e2e/harness.sh" --needs-root --protocols "3, 4" \
	--pnfs 1 --pnfs-opts "Stripe_Unit = 65536;" \
	--nfsv4-opts "Delegations = true; Lease_Lifetime = 10;" \
	--export-opts "Delegations = RW;" \
	-- "$build/inner/tests/fuzz/fuzz_stateful" "${args[@]}" "$@"
