#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# build.sh [--asan | --fuzz] [BUILD_DIR]
#
# Installs missing Debian packages, then configures and builds the
# superbuild (ntirpc + Ganesha with FSAL_SPARSE + our tools and tests).
# Default BUILD_DIR: build/ (build-asan/ with --asan) at the top of the repo.
# --fuzz: the clang libFuzzer variant (ASan + UBSan + coverage) of ntirpc,
# Ganesha and FSAL_SPARSE with only the in-process harness on top
# (tests/fuzz/inproc), in build-fuzz/.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
san=OFF
fuzz=OFF
if [ "${1:-}" = --asan ]; then
	san=ON
	shift
elif [ "${1:-}" = --fuzz ]; then
	fuzz=ON
	shift
fi
default_dir=$repo/build
[ $san = ON ] && default_dir=$repo/build-asan
[ $fuzz = ON ] && default_dir=$repo/build-fuzz
build=${1:-${SPARSE_BUILD_DIR:-$default_dir}}

"$repo/scripts/install-deps.sh"
cmake -S "$repo" -B "$build" -DSPARSE_SANITIZE=$san -DSPARSE_FUZZ=$fuzz >"$build.configure.log" 2>&1 ||
	{ tail -n 30 "$build.configure.log" >&2; echo "build: configure failed (log: $build.configure.log)" >&2; exit 1; }
cmake --build "$build" -j"$(nproc)" >"$build.build.log" 2>&1 ||
	{ grep -E "error|Error" "$build.build.log" | head -n 30 >&2; echo "build: failed (log: $build.build.log)" >&2; exit 1; }
echo "build: ok ($build)"
