# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# Shell helpers of the tests that run scripts/serve.sh (serve_check.sh,
# serve_heads_check.sh). Source it after setting stage (the staged
# build, $SPARSE_STAGE): it makes SPARSE_BUILD_DIR, a temporary build
# directory for serve.sh --no-build that borrows the real stage, sets
# serve (serve.sh's path) and serve_pids (serve.sh processes, stopped at
# exit with the directory removed; a bus of the test's own whose PID is
# in SPARSE_BUILD_DIR/dbus.pid too).

serve=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/serve.sh
export SPARSE_BUILD_DIR
SPARSE_BUILD_DIR=$(mktemp -d "${TMPDIR:-/tmp}/nfs-sparse-serve.XXXXXX")
ln -s "${stage:?}" "$SPARSE_BUILD_DIR/stage"
serve_pids=()
serve_cleanup() {
	local p
	for p in "${serve_pids[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[ ! -s "$SPARSE_BUILD_DIR/dbus.pid" ] ||
		kill "$(cat "$SPARSE_BUILD_DIR/dbus.pid")" 2>/dev/null || true
	rm -rf "$SPARSE_BUILD_DIR"
}
trap serve_cleanup EXIT

# start_serve OUT ARGS...: serve.sh --no-build ARGS in the background
# (SIGINT restored: background jobs of a script ignore it, perl gives
# serve.sh back the default so it sees Ctrl-C as at a terminal); its PID
# in $started and serve_pids, once it says it serves (or has exited)
start_serve() {
	local out=$1
	shift
	perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' \
		"$serve" --no-build "$@" >"$out" 2>&1 &
	started=$!
	serve_pids+=("$started")
	# its last line before it waits for the server (statistics or not):
	# all it says about the server is out by then
	for _ in $(seq 600); do
		grep -q "^serve: statistics\|^serve: no DBus" "$out" && break
		kill -0 "$started" 2>/dev/null || break
		sleep 0.1
	done
}
