#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# harness_fuse_check.sh CLUSTER_DIR: no ceph-fuse of a test outlives its
# harness (harness.sh --ceph).  One still running when the lane's cluster
# stops waits for the cluster's MDS for good and fails ceph/cluster_stop
# ("still running after stop": seen under ./scripts/test.sh --asan).
# Whatever keeps a ceph-fuse running after its unmount, the harness ends
# it: here a process left behind by the test, its working directory in
# the test's mount (so that the unmount is a lazy one and the daemon
# stays while the directory is in use), and the pNFS case's data
# servers' mounts too.  Checked after the harness returned: no ceph-fuse
# of the test's directory left, the harness said why it stopped one.
# Seen failing with the harness before it stopped them (it waited 30 s
# and went on): "ceph-fuse left: PID".
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/tests/check-lib.sh"
cluster=${1:?usage: harness_fuse_check.sh CLUSTER_DIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/harness-fuse.XXXXXX")
sleepers=()
cleanup() {
	local p
	for p in ${sleepers[@]+"${sleepers[@]}"}; do
		kill "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# the program under the harness: a process left in the test's mount
cat >"$tmp/leave.sh" <<'PROG'
#!/usr/bin/env bash
echo "$NFS42_WORK_DIR" >"$1/work"
cd "$NFS42_BACKING"
setsid sleep 600 </dev/null >/dev/null 2>&1 &
echo $! >"$1/sleeper"
PROG
chmod +x "$tmp/leave.sh"

# fuse_left WORK: the PIDs of ceph-fuse daemons of the test's mounts
fuse_left() {
	local p c
	for p in /proc/[0-9]*; do
		c=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
		[[ "$c" == "ceph-fuse "*" $1/cephfs"* ]] && echo "${p#/proc/}"
	done
	return 0
}

run_case() {
	local name=$1 work left
	shift
	rm -f "$tmp/work" "$tmp/sleeper"
	"$repo/tests/e2e/harness.sh" --ceph "$cluster" "$@" -- "$tmp/leave.sh" "$tmp" \
		>"$tmp/$name.out" 2>&1 || true
	sleepers+=("$(cat "$tmp/sleeper" 2>/dev/null || true)")
	work=$(cat "$tmp/work" 2>/dev/null || true)
	ok "$name-ran" test -n "$work"
	left=$(fuse_left "$work")
	if [ -n "$left" ]; then
		echo "ceph-fuse left: $left" >&2
		kill -KILL $left 2>/dev/null || true
	fi
	ok "$name-no-ceph-fuse-left" test -z "$left"
	ok "$name-said-why" grep -q "still running [0-9]* s after its unmount; stopping it" "$tmp/$name.out"
}

run_case fsal-ceph
run_case pnfs --fsal SPARSE --pnfs 1
check_summary harness_fuse_check
