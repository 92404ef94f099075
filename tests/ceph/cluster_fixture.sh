#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# cluster_fixture.sh start|stop DIR: the Ceph lane's cluster (ctest
# fixture ceph_cluster, docs/cluster.md), made by scripts/ceph-cluster.sh.
#
# start: a cluster left in DIR by an earlier run is stopped and removed;
#   where this machine cannot run one (`ceph-cluster.sh check`: a missing
#   package, not root) the reason goes to DIR.skip and the fixture exits
#   77 (skipped); the lane's tests then skip with that reason (harness.sh
#   --ceph). Otherwise the cluster is started, owned by the test runner
#   (stopped if ctest is killed), and a failure to start is a failure.
# stop: stops the cluster; fails if one of its daemons is still there;
#   keeps DIR's logs in DIR.log and removes DIR.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cluster=$repo/scripts/ceph-cluster.sh
verb=${1:?usage: cluster_fixture.sh start|stop DIR}
dir=${2:?usage: cluster_fixture.sh start|stop DIR}

# leftovers DIR: the PIDs of processes started with DIR/ceph.conf
leftovers() {
	local p c
	for p in /proc/[0-9]*; do
		c=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
		[[ "$c" == *" $1/ceph.conf "* ]] && echo "${p#/proc/}"
	done
	return 0
}

stop_and_remove() {
	if [ -d "$dir/run" ]; then
		"$cluster" stop "$dir"
	fi
	local left
	left=$(leftovers "$dir")
	if [ -n "$left" ]; then
		echo "cluster_fixture: still running after stop: $left" >&2
		return 1
	fi
	if [ -d "$dir/log" ]; then
		rm -rf "$dir.log"
		mv "$dir/log" "$dir.log"
	fi
	rm -rf --one-file-system "$dir"
}

case $verb in
start)
	rm -f "$dir.skip"
	stop_and_remove
	if ! why=$("$cluster" check 2>&1); then
		echo "$why" | tee "$dir.skip"
		exit 77
	fi
	# the owner is ctest, this script's parent
	if ! "$cluster" start --owner "$PPID" "$dir"; then
		tail -n 20 "$dir"/log/*.log 2>/dev/null | tail -n 60 >&2 || true
		exit 1
	fi
	;;
stop)
	stop_and_remove
	;;
*)
	echo "usage: cluster_fixture.sh start|stop DIR" >&2
	exit 2
	;;
esac
