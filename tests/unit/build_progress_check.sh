#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# scripts/build.sh says what it does while a long build runs (issue #28
# item 5: the first serve.sh was silent for minutes): on a build directory
# with no server built yet it says a first build is starting and where its
# log is; then, once the build has run 5 s, a line for each step of
# ntirpc, Ganesha and our tools (with the step's percentage and the time),
# and "build: ok". cmake is a stand-in on PATH that writes a superbuild's
# log lines (as ExternalProject and make print them) over about 12 s.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
fake=$(mktemp -d "${TMPDIR:-/tmp}/build-progress-check.XXXXXX")
trap 'rm -rf "$fake"' EXIT
mkdir "$fake/bin"
cat >"$fake/bin/cmake" <<'FAKE'
#!/bin/sh
# configure: nothing to do; --build: a superbuild's output, slowly
[ "$1" = --build ] || exit 0
say() { echo "$1"; sleep "${2:-0}"; }
say "[  4%] Creating directories for 'ntirpc'"
say "[ 20%] Performing configure step for 'ntirpc'" 1
say "[ 25%] Performing build step for 'ntirpc'"
for p in 10 40 70; do say "[ $p%] Building C object src/x$p.c.o" 2; done
say "[ 96%] Built target ntirpc" 1
say "[ 33%] Completed 'ntirpc'"
say "[ 33%] Built target ntirpc"
say "[ 54%] Performing configure step for 'ganesha'" 2
say "[ 58%] Performing build step for 'ganesha'"
for p in 5 45 88; do say "[ $p%] Building C object Protocols/y$p.c.o" 1; done
say "[ 62%] Performing install step for 'ganesha'" 2
say "[ 66%] Completed 'ganesha'"
say "[ 91%] Performing build step for 'inner'" 2
say "[100%] Completed 'inner'"
FAKE
chmod +x "$fake/bin/cmake"

. "$here/../check-lib.sh"
out=$fake/out
PATH="$fake/bin:$PATH" "$repo/scripts/build.sh" "$fake/build" >"$out" 2>&1 || true
check first-build 0 "^build: first build in $fake/build: .*log in $fake/build.build.log" -- cat "$out"
check ntirpc-progress 0 "^build: ntirpc: build [0-9]+% \\(0 min [5-9] s\\)$" -- cat "$out"
check ganesha-configure 0 "^build: ganesha: configure \\(0 min [0-9]+ s\\)$" -- cat "$out"
check ganesha-install 0 "^build: ganesha: install \\(0 min [0-9]+ s\\)$" -- cat "$out"
check tools 0 "^build: nfs-sparse tools and tests: build \\(0 min [0-9]+ s\\)$" -- cat "$out"
check ok-last 0 "^build: ok \\($fake/build\\)$" -- tail -n 1 "$out"
check no-superbuild-percent 1 "" -- grep -E "ganesha: (configure|install) [0-9]+%|: done [0-9]" "$out"
sed "s/^/    /" "$out"
check_summary build_progress_check
