#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# ceph-fixture.sh start|stop DIR: the cluster of the Linux guest's Ceph
# tests (ctest fixture linux_ceph_cluster, label linux and ceph): as the
# Ceph lane's (tests/ceph/cluster_fixture.sh, which stops it), but on a
# bridge of its own (ceph-cluster.sh start --bridge, 10.x.y.1), an
# address the guest reaches through QEMU's user network (vm.sh
# --open-net); the lane's cluster is on 127.0.0.1, the guest's own.
# Where this machine cannot run a cluster the reason goes to DIR.skip and
# the fixture exits 77; the tests then skip with it (harness.sh --ceph).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cluster=$repo/scripts/ceph-cluster.sh
verb=${1:?usage: ceph-fixture.sh start|stop DIR}
dir=${2:?usage: ceph-fixture.sh start|stop DIR}

case $verb in
start)
	rm -f "$dir.skip"
	# a cluster an earlier run left
	bash "$repo/tests/ceph/cluster_fixture.sh" stop "$dir"
	if ! why=$("$cluster" check 2>&1); then
		echo "$why" | tee "$dir.skip"
		exit 77
	fi
	# the owner is ctest, this script's parent
	if ! "$cluster" start --bridge --owner "$PPID" "$dir"; then
		tail -n 20 "$dir"/log/*.log 2>/dev/null | tail -n 60 >&2 || true
		exit 1
	fi
	;;
stop) exec bash "$repo/tests/ceph/cluster_fixture.sh" stop "$dir" ;;
*) echo "usage: ceph-fixture.sh start|stop DIR" >&2; exit 2 ;;
esac
