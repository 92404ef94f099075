#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# rados_grace_tool_check.sh (under harness.sh --ceph with
# SPARSE_RECOVERY_BACKEND=rados_cluster): ganesha-rados-grace, the tool an
# administrator (or a cluster manager's script) drives the grace database
# with, next to a running server of the cluster (NFS42_CEPH_GRACE):
# - `dump` shows the epochs and the server's node, with no flag once its
#   start-up grace is over;
# - `add`, `member`, `enforce`, `noenforce` and `remove` of a second node
#   do what ganesha-rados-grace(8) says, each exiting 0 (`member` of a node
#   that is not one exits non-zero);
# - every run exits 0: 150 `dump`s and 20 add/remove rounds.  Before patch
#   0058 about one run in forty died with SIGSEGV or SIGABRT at exit after
#   doing its work.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/tests/check-lib.sh"
g=($NFS42_CEPH_GRACE)
node=$NFS42_CEPH_NODEID
other=other-$$

# the server's start-up grace: lifted at once (no records yet)
for i in $(seq 1 100); do
	out=$("${g[@]}" dump 2>&1) || true
	grep -q '^cur=[0-9]* rec=0$' <<<"$out" && break
	sleep 0.2
done
check dump-lifted 0 "^cur=[0-9]+ rec=0$" -- "${g[@]}" dump
check dump-node 0 "^$node	  $" -- "${g[@]}" dump

check add 0 "" -- "${g[@]}" add "$other"
check add-shown 0 "^$other	 E$" -- "${g[@]}" dump
check member 0 "" -- "${g[@]}" member "$other"
check noenforce 0 "" -- "${g[@]}" noenforce "$other"
check noenforce-shown 0 "^$other	  $" -- "${g[@]}" dump
check enforce 0 "" -- "${g[@]}" enforce "$other"
check enforce-shown 0 "^$other	 E$" -- "${g[@]}" dump
check remove 0 "" -- "${g[@]}" remove "$other"
check not-member 1 "" -- "${g[@]}" member "$other"
check removed 0 "^$node	  $" -- "${g[@]}" dump

# every run exits 0
crashed=0
for i in $(seq 1 150); do
	rc=0
	"${g[@]}" dump >/dev/null 2>&1 || rc=$?
	[ $rc -eq 0 ] || { crashed=$((crashed + 1)); echo "dump $i: exit status $rc" >&2; }
done
for i in $(seq 1 20); do
	for verb in add remove; do
		rc=0
		"${g[@]}" "$verb" "$other" >/dev/null 2>&1 || rc=$?
		[ $rc -eq 0 ] || { crashed=$((crashed + 1)); echo "$verb $i: exit status $rc" >&2; }
	done
done
check every-run-exits-0 0 "^0$" -- echo "$crashed"
check_summary rados_grace_tool_check
