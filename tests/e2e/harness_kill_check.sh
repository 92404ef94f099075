#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# What ctest does at a test's timeout: SIGKILL to harness.sh, which no trap
# sees. Its ganesha.nfsd must not outlive it (gone within 5 s), and the
# next harness must remove the killed one's temporary directory. Runs in a
# private TMPDIR so that other tests' harnesses are not involved.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
harness=$repo/tests/e2e/harness.sh
: "${SPARSE_STAGE:?}"
export TMPDIR
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/nfs-sparse-killcheck.XXXXXX")
info=$TMPDIR/info
hpid='' prog='' spid='' work=''

# serving PID CONF: PID is a live ganesha.nfsd with config CONF (a zombie
# has an empty command line)
serving() {
	grep -qaF "$2" "/proc/$1/cmdline" 2>/dev/null
}

cleanup() {
	[ -n "$hpid" ] && kill -KILL "$hpid" 2>/dev/null
	[ -n "$prog" ] && kill -KILL "$prog" 2>/dev/null
	# a server that did outlive its harness is not left behind either
	[ -n "$spid" ] && serving "$spid" "$work/ganesha.conf" &&
		kill -KILL "$spid" 2>/dev/null
	rm -rf "$TMPDIR"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# PROGRAM: writes where the harness put things, then sleeps "forever"
"$harness" -- bash -c 'echo "${NFS42_LOG%/*} $$" >"$0.tmp" &&
	mv "$0.tmp" "$0" && exec sleep 300' "$info" &
hpid=$!
for _ in $(seq 600); do
	[ -s "$info" ] && break
	kill -0 "$hpid" 2>/dev/null || fail "harness exited before running PROGRAM"
	sleep 0.1
done
[ -s "$info" ] || fail "PROGRAM did not start within 60 s"
read -r work prog <"$info"
spid=$(cat "$work/server.pid")
serving "$spid" "$work/ganesha.conf" || fail "no server running ($spid)"

kill -KILL "$hpid"
wait "$hpid" 2>/dev/null || true
hpid=
# ctest kills the harness's children too; only the server is in question
kill -KILL "$prog"
prog=

for _ in $(seq 50); do
	serving "$spid" "$work/ganesha.conf" || break
	sleep 0.1
done
serving "$spid" "$work/ganesha.conf" &&
	fail "ganesha.nfsd $spid outlived its harness by 5 s"
if pgrep -f "ganesha.nfsd -F -f $work/ganesha.conf" >/dev/null; then
	fail "a ganesha.nfsd with $work/ganesha.conf is running"
fi
[ -d "$work" ] || fail "$work is gone already (expected it left behind)"

out=$("$harness" -- true 2>&1) || fail "next harness run failed: $out"
[ ! -e "$work" ] || fail "next harness run left the stale $work"
grep -q "removing $work" <<<"$out" ||
	fail "next harness run did not say it removed $work: $out"
echo "harness_kill_check: ok"
