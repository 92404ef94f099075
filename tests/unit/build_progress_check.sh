#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# scripts/build.sh says what it does (issue #28 item 5: serve.sh's first
# run was silent for minutes while it built): a first build is announced
# with its log, each superbuild step and every 20 % of a step's compile is
# printed with the time so far, the log keeps every line, and a failed
# build still exits 1 with its errors.  cmake is a stand-in on PATH that
# plays a superbuild's output ($FAKE_FAIL: then exits 2).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build_sh=$here/../../scripts/build.sh
fake=$(mktemp -d "${TMPDIR:-/tmp}/build-progress-check.XXXXXX")
trap 'rm -rf "$fake"' EXIT
mkdir "$fake/bin"
cat >"$fake/bin/cmake" <<'FAKE'
#!/bin/sh
[ "$1" = --build ] || exit 0
cat <<'LOG'
[  4%] Performing configure step for 'ntirpc'
[  6%] Performing build step for 'ntirpc'
[ 50%] Building C object src/CMakeFiles/ntirpc.dir/clnt_vc.c.o
[ 12%] Completed 'ntirpc'
[ 37%] Performing build step for 'ganesha'
[  9%] Building C object config_parsing/CMakeFiles/config_parsing.dir/conf_lex.c.o
[ 25%] Building C object log/CMakeFiles/log.dir/log_functions.c.o
[ 61%] Building C object SAL/CMakeFiles/sal.dir/state_lock.c.o
[ 62%] Building C object SAL/CMakeFiles/sal.dir/state_misc.c.o
LOG
if [ -n "$FAKE_FAIL" ]; then
	echo "nfs4_op_copy.c:12: error: expected ';'"
	exit 2
fi
echo "[ 99%] Building C object tools/CMakeFiles/nfs42.dir/cli/main.c.o"
echo "[100%] Completed 'ganesha'"
FAKE
chmod +x "$fake/bin/cmake"
export PATH="$fake/bin:$PATH"

. "$here/../check-lib.sh"

out=$fake/b
# one build of each kind (install-deps.sh runs each time: seconds)
"$build_sh" "$out" >"$fake/first" 2>&1 || true
cp "$out.build.log" "$fake/first.log"
mkdir -p "$out/stage/bin" && touch "$out/stage/bin/ganesha.nfsd" && chmod +x "$out/stage/bin/ganesha.nfsd"
"$build_sh" "$out" >"$fake/again" 2>&1 || true
rc=0
FAKE_FAIL=1 "$build_sh" "$out" >"$fake/failed" 2>&1 || rc=$?
check first-build-said 0 "^build: first build in $out: .* log: $out.build.log" -- cat "$fake/first"
check steps 0 "^build: ganesha: build \([0-9]+ s\)$" -- cat "$fake/first"
check step-done 0 "^build: ntirpc: done \([0-9]+ s\)$" -- cat "$fake/first"
check compile-60 0 "^build: ganesha: build 60 % \([0-9]+ s\)$" -- cat "$fake/first"
check no-40 1 "" -- grep "ganesha: build 40 %" "$fake/first"
check ok 0 "^build: ok \($out\)$" -- cat "$fake/first"
check log-whole 0 "^11 " -- wc -l "$fake/first.log"
check not-first 1 "" -- grep "first build" "$fake/again"
check failed 0 "^build: failed \(log: $out.build.log\)$" -- cat "$fake/failed"
check failed-error 0 "error: expected" -- cat "$fake/failed"
check failed-exit 0 "^1$" -- echo "$rc"

check_summary build_progress_check
