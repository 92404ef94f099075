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

# progress: the log in full, and on stdout each step of the superbuild
# (ntirpc, ganesha, inner: configure, build, install) with the time so
# far, and every 20 % of a step's own compile (a first build is silent
# for minutes otherwise: issue #28 item 5)
progress() {
	awk -v logf="$1" -v t0="$(date +%s)" '
	function say(what) {
		printf "build: %s (%d s)\n", what, systime() - t0
		fflush()
	}
	{ print > logf; fflush(logf) }
	match($0, /Performing (configure|build|install) step for \047[a-z]+\047/) {
		split(substr($0, RSTART, RLENGTH), w, /[ \047]/)
		step = w[6] ": " w[2]; shown = 0
		say(step); next
	}
	match($0, /Completed \047[a-z]+\047/) { say(substr($0, RSTART + 11, RLENGTH - 12) ": done"); next }
	step != "" && match($0, /^\[ *[0-9]+%\] Building /) {
		pct = substr($0, 2, index($0, "%") - 2) + 0
		if (pct >= shown + 20) { shown = pct - pct % 20; say(step " " shown " %") }
	}'
}

if [ ! -x "$build/stage/bin/ganesha.nfsd" ]; then
	echo "build: first build in $build: the Debian sources of libntirpc and" \
		"NFS-Ganesha are fetched, verified, patched and built with ours" \
		"(minutes on a fresh machine; log: $build.build.log)"
fi
"$repo/scripts/install-deps.sh"
echo "build: configuring (log: $build.configure.log)"
cmake -S "$repo" -B "$build" -DSPARSE_SANITIZE=$san -DSPARSE_FUZZ=$fuzz >"$build.configure.log" 2>&1 ||
	{ tail -n 30 "$build.configure.log" >&2; echo "build: configure failed (log: $build.configure.log)" >&2; exit 1; }
cmake --build "$build" -j"$(nproc)" 2>&1 | progress "$build.build.log" ||
	{ grep -E "error|Error" "$build.build.log" | head -n 30 >&2; echo "build: failed (log: $build.build.log)" >&2; exit 1; }
echo "build: ok ($build)"
