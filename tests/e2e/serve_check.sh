#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# The README's serve command and the harness on bad input: each case must
# end with a clear message and the documented exit code, never a running
# server. Then a good start: the export is served, and SIGINT (Ctrl-C)
# stops serve.sh and its ganesha.nfsd cleanly.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
stage=${SPARSE_STAGE:?}
nfs42=${SPARSE_NFS42:?}
export SPARSE_BUILD_DIR
SPARSE_BUILD_DIR=$(mktemp -d "${TMPDIR:-/tmp}/nfs-sparse-serve.XXXXXX")
# serve.sh --no-build looks for BUILD/stage: borrow the real one.
ln -s "$stage" "$SPARSE_BUILD_DIR/stage"
serve_pid=
cleanup() {
	if [ -n "$serve_pid" ]; then
		kill -TERM "$serve_pid" 2>/dev/null || true
		wait "$serve_pid" 2>/dev/null || true
	fi
	rm -rf "$SPARSE_BUILD_DIR"
}
trap cleanup EXIT
pass=0
fail=0
check() { # NAME WANT_RC PATTERN -- CMD...
	local name=$1 want=$2 pattern=$3 out rc=0
	shift 4
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" -eq "$want" ] && grep -qE "$pattern" <<<"$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $name: rc=$rc (want $want), output:" >&2
		sed 's/^/    /' <<<"$out" | tail -n 8 >&2
	fi
}

serve=$repo/scripts/serve.sh
check bad-port 2 "bad port '99999'" -- "$serve" --no-build -p 99999
check port-not-number 2 "bad port 'abc'" -- "$serve" --no-build -p abc
check bad-log-level 2 "bad log level 'LOUD'" -- "$serve" --no-build -l LOUD
check missing-export-dir 2 "does not exist" -- "$serve" --no-build -d /nonexistent/dir
check bad-pseudo 2 "must start with /" -- "$serve" --no-build -P relative
check unknown-arg 2 "unknown argument" -- "$serve" --no-build --frobnicate
check port-in-use 2 "already in use" -- "$serve" --no-build -p "$NFS42_PORT"
check bad-fsal-value 1 "Min_Hole_Size = 1000 rejected" -- \
	"$repo/tests/e2e/harness.sh" --fsal SPARSE --fsal-opts "Min_Hole_Size = 1000;" -- true
check client-dead-server 3 "cannot connect to 127.0.0.1" -- "$nfs42" -p 1 ls /
check client-bad-path 1 "NFS4ERR_NOENT" -- "$nfs42" ls "$NFS42_EXPORT/no/such"

# A good start on a free port with the default export dir replaced by ours.
. "$repo/scripts/server-lib.sh"
port=$(sparse_free_port)
export_dir=$SPARSE_BUILD_DIR/export
mkdir "$export_dir"
echo served >"$export_dir/hello"
# Background jobs of a script ignore SIGINT; perl restores the default so
# serve.sh sees Ctrl-C as it would at a terminal.
perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
	"$serve" --no-build -p "$port" -d "$export_dir" >"$SPARSE_BUILD_DIR/serve.out" 2>&1 &
serve_pid=$!
for _ in $(seq 300); do
	grep -q "exports" "$SPARSE_BUILD_DIR/serve.out" && break
	kill -0 "$serve_pid" 2>/dev/null || break
	sleep 0.1
done
check serve-lists 0 "hello" -- "$nfs42" -p "$port" ls /sparse
check serve-reads 0 "^served$" -- "$nfs42" -p "$port" cat /sparse/hello
# read delegations on by default; a reader that exited leaves none behind:
# a write right after it does not wait for a recall (lease: 60 s)
check serve-delegations-conf 0 "Delegations = Read" -- \
	grep -E "Delegations = (true|Read)" "$SPARSE_BUILD_DIR/serve/ganesha.conf"
check serve-says-delegations 0 "read delegations on" -- cat "$SPARSE_BUILD_DIR/serve.out"
echo rewritten >"$SPARSE_BUILD_DIR/new"
check serve-write-after-read 0 "" -- timeout 10 "$nfs42" -p "$port" put "$SPARSE_BUILD_DIR/new" /sparse/hello
ganesha_pid=$(cat "$SPARSE_BUILD_DIR/serve/pid")
kill -INT "$serve_pid"
rc=0
wait "$serve_pid" || rc=$?
serve_pid=
if [ $rc -eq 0 ] && ! kill -0 "$ganesha_pid" 2>/dev/null &&
   grep -q "stopping ganesha.nfsd" "$SPARSE_BUILD_DIR/serve.out"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL ctrl-c: serve.sh rc=$rc, ganesha $ganesha_pid alive: $(kill -0 "$ganesha_pid" 2>/dev/null && echo yes || echo no)" >&2
	kill -KILL "$ganesha_pid" 2>/dev/null || true
fi

echo "serve_check: $pass passed, $fail failed"
[ $fail -eq 0 ]
