#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# build.sh [--asan] [BUILD_DIR]
#
# Installs missing Debian packages, then configures and builds the
# superbuild (ntirpc + Ganesha with FSAL_SPARSE + our tools and tests).
# Default BUILD_DIR: build/ (build-asan/ with --asan) at the top of the repo.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
san=OFF
if [ "${1:-}" = --asan ]; then
	san=ON
	shift
fi
default_dir=$repo/build
[ $san = ON ] && default_dir=$repo/build-asan
build=${1:-${SPARSE_BUILD_DIR:-$default_dir}}

# progress LOG: until killed (the build runs meanwhile, in the
# foreground, so that Ctrl-C stops it), once it has run for 5 s, a line
# each time the build moves on to another step (configure,
# build, install) of ntirpc, Ganesha or our tools and tests, and every
# 30 s, with the step's own percentage (its make's "[ NN%]" lines in LOG)
# and the time so far; nothing for a build that is done within 5 s
progress() {
	local log=$1 t0=$SECONDS now said= said_at=0 elapsed
	while :; do
		sleep 1
		elapsed=$((SECONDS - t0))
		[ $elapsed -ge 5 ] || continue
		now=$(awk '
			/Performing [a-z]+ step for / {
				match($0, /Performing [a-z]+ step for /)
				step = substr($0, RSTART + 11, RLENGTH - 21)
				name = substr($0, RSTART + RLENGTH + 1)
				sub(/[^A-Za-z0-9_-].*$/, "", name)
				pct = ""
				next
			}
			/Completed .[A-Za-z0-9_-]+.$/ { step = "done"; pct = ""; next }
			/(Creating directories|No [a-z]+ step) for / { next }
			/^\[ *[0-9]+%\] / && step != "" && step != "done" {
				pct = $0
				sub(/^\[ */, "", pct)
				sub(/%.*$/, "%", pct)
			}
			END {
				if (name == "inner")
					name = "nfs-sparse tools and tests"
				if (step != "" && step != "done")
					print name ": " step (pct != "" ? " " pct : "")
			}' "$log" 2>/dev/null)
		[ -n "$now" ] || continue
		if [ "${now%% [0-9]*%}" != "${said%% [0-9]*%}" ] ||
		   [ $((elapsed - said_at)) -ge 30 ]; then
			echo "build: $now ($((elapsed / 60)) min $((elapsed % 60)) s)"
			said=$now
			said_at=$elapsed
		fi
	done
}

"$repo/scripts/install-deps.sh"
if [ ! -x "$build/stage/bin/ganesha.nfsd" ]; then
	echo "build: first build in $build: fetching and building libntirpc" \
	     "and NFS-Ganesha, then our tools and tests (about 5 min on 2" \
	     "cores); progress below, log in $build.build.log"
fi
cmake -S "$repo" -B "$build" -DSPARSE_SANITIZE=$san >"$build.configure.log" 2>&1 ||
	{ tail -n 30 "$build.configure.log" >&2; echo "build: configure failed (log: $build.configure.log)" >&2; exit 1; }
: >"$build.build.log"
progress "$build.build.log" &
progress_pid=$!
trap 'kill $progress_pid 2>/dev/null || true' EXIT
cmake --build "$build" -j"$(nproc)" >"$build.build.log" 2>&1 ||
	{ grep -E "error|Error" "$build.build.log" | head -n 30 >&2; echo "build: failed (log: $build.build.log)" >&2; exit 1; }
echo "build: ok ($build)"
