#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# test.sh [--asan] [ctest arguments...]
#
# On a fresh Debian 12 machine (as root): installs what is missing, builds
# everything (scripts/build.sh) and runs every unit and end-to-end test
# through ctest. --asan does the same in build-asan/ with ASan and UBSan.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
asan=()
if [ "${1:-}" = --asan ]; then
	asan=(--asan)
	build=${SPARSE_BUILD_DIR:-$repo/build-asan}
	shift
	# Ganesha keeps caches alive until exit on purpose; report leaks only
	# from our own programs (client, tests), not from the server.
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
	export SPARSE_SERVER_ASAN_OPTIONS=${SPARSE_SERVER_ASAN_OPTIONS:-detect_leaks=0}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$repo/tests/sanitizers/ubsan.supp}
fi

"$repo/scripts/build.sh" "${asan[@]}" "$build"
cd "$build"
ctest --output-on-failure --timeout 600 -j"$(nproc)" "$@"
