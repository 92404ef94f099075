#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# cluster_check.sh DIR: scripts/ceph-cluster.sh keeps its promises, on the
# lane's cluster in DIR (docs/cluster.md):
# - `status` names every daemon running and the cluster's health; one
#   monitor, one manager, two OSDs up, one MDS active, the CephFS and the
#   Ganesha pool there;
# - no state outside DIR: no daemon has a file or a UNIX socket open
#   outside DIR (libraries, /dev and /proc aside), and nothing in
#   /etc/ceph, /var/lib/ceph, /var/log/ceph or /run/ceph is newer than
#   the cluster; the daemons listen on the cluster's address only, the
#   monitor on the ports of cluster.env;
# - keyrings are readable by root only;
# - client.ganesha reads and writes its pool (in a namespace) and the
#   CephFS (ceph-fuse), and may not write another pool;
# - refusals, each with its message and nothing started or made: a
#   non-empty DIR, bad --osds/--store/--addr/--owner, --addr with
#   --bridge, a missing program
#   (ceph-mon not on PATH), `status`/`stop` of a directory that holds no
#   cluster, no verb.
# Skipped (77) with the fixture's reason where there is no cluster.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: cluster_check.sh DIR}
cluster=$repo/scripts/ceph-cluster.sh
if [ ! -f "$dir/cluster.env" ]; then
	echo "cluster_check: skipped: $(cat "$dir.skip" 2>/dev/null || echo "no cluster in $dir")"
	exit 77
fi
# shellcheck source=/dev/null
. "$dir/cluster.env"
. "$repo/tests/check-lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ceph-check.XXXXXX")
mnt=$dir/check-mnt.$$
cleanup() {
	if grep -qF " $mnt " /proc/self/mounts; then
		umount "$mnt" 2>/dev/null || umount -l "$mnt" || true
	fi
	rmdir "$mnt" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

ceph_admin() {
	timeout 60 ceph -c "$CEPH_CONF" "$@" 2>/dev/null
}

# ---- status and the cluster's shape
status=$("$cluster" status "$dir" 2>&1) || true
for d in ceph-mon.a ceph-mgr.x ceph-osd.0 ceph-osd.1 ceph-mds.a; do
	ok "status-$d" grep -q "^$d: running (pid [0-9]*)" <<<"$status"
done
ok status-health grep -qE "health: HEALTH_(OK|WARN)" <<<"$status"
ok status-osds grep -qE "osd: 2 osds: 2 up" <<<"$status"
ok status-mds grep -qE "mds: 1/1 daemons up" <<<"$status"
fs=$(ceph_admin fs ls -f json)
ok cephfs grep -q '"name": *"cephfs"' <<<"$fs"
pools=$(ceph_admin osd pool ls detail)
ok ganesha-pool grep -qE "pool [0-9]+ 'nfs-ganesha' .*application nfs" <<<"$pools"

# ---- no state outside DIR
pids=()
for f in "$dir"/run/*.pid; do
	pids+=("$(cat "$f")")
done
ok five-daemons [ ${#pids[@]} -eq 5 ]
outside=""
for pid in "${pids[@]}"; do
	for fd in /proc/"$pid"/fd/*; do
		t=$(readlink "$fd" 2>/dev/null) || continue
		case $t in
		"$dir"/* | /dev/* | /proc/* | /sys/* | pipe:* | socket:* | anon_inode:* | /memfd:*) ;;
		*) outside="$outside $pid:$t" ;;
		esac
	done
	# UNIX sockets bound by the daemon (admin sockets): in DIR only
	while read -r path; do
		case $path in
		"$dir"/* | "") ;;
		*) outside="$outside $pid:$path" ;;
		esac
	done < <(ss -Hxlp 2>/dev/null | grep "pid=$pid," | awk '{ print $5 }')
done
[ -z "$outside" ] || echo "  open outside $dir:$outside" >&2
ok no-files-outside-dir [ -z "$outside" ]
newer=$(find /etc/ceph /var/lib/ceph /var/log/ceph /run/ceph -newer "$dir/ceph.conf" \
	2>/dev/null | head -n 5)
[ -z "$newer" ] || echo "  newer than the cluster: $newer" >&2
ok nothing-new-in-system-dirs [ -z "$newer" ]
listen=$(ss -Hltnp 2>/dev/null)
for pid in "${pids[@]}"; do
	addrs=$(grep "pid=$pid," <<<"$listen" | awk '{ print $4 }' | sed 's/:[0-9]*$//' | sort -u)
	[ "$addrs" = "$CEPH_MON_ADDR" ] || echo "  pid $pid listens on: $addrs" >&2
	ok "listens-$pid-on-$CEPH_MON_ADDR" [ "$addrs" = "$CEPH_MON_ADDR" ]
done
mon_pid=$(cat "$dir/run/ceph-mon.a.pid")
for port in "$CEPH_MON_PORT" "$CEPH_MON_PORT_V1"; do
	ok "mon-port-$port" grep -q "$CEPH_MON_ADDR:$port .*pid=$mon_pid," <<<"$listen"
done

# ---- keyrings
for k in "$CEPH_ADMIN_KEYRING" "$CEPH_GANESHA_KEYRING" "$dir"/*/keyring; do
	ok "keyring-mode-$(basename "$(dirname "$k")")/$(basename "$k")" \
		[ "$(stat -c %a "$k")" = 600 ]
done

# ---- Ganesha's user
g=(timeout 60 rados -c "$CEPH_CONF" -n "client.$CEPH_GANESHA_USER")
head -c 100000 /dev/urandom >"$tmp/obj"
ok ganesha-rados-put "${g[@]}" -p "$CEPH_GANESHA_POOL" -N check put obj "$tmp/obj"
ok ganesha-rados-get "${g[@]}" -p "$CEPH_GANESHA_POOL" -N check get obj "$tmp/obj.back"
ok ganesha-rados-same cmp -s "$tmp/obj" "$tmp/obj.back"
ok ganesha-rados-rm "${g[@]}" -p "$CEPH_GANESHA_POOL" -N check rm obj
check ganesha-no-other-pool 1 "Operation not permitted|error" -- \
	"${g[@]}" -p cephfs_metadata put obj "$tmp/obj"
mkdir -p "$mnt"
ok ceph-fuse-mount timeout 60 ceph-fuse -c "$CEPH_CONF" -n "client.$CEPH_GANESHA_USER" "$mnt"
ok ceph-fuse-write cp "$tmp/obj" "$mnt/cluster-check.$$"
ok ceph-fuse-read cmp -s "$tmp/obj" "$mnt/cluster-check.$$"
ok ceph-fuse-rm rm "$mnt/cluster-check.$$"
umount "$mnt" && rmdir "$mnt"
ok fuse-unmounted bash -c "! grep -qF ' $mnt ' /proc/self/mounts"

# ---- refusals: a message, nothing started, nothing made
mkdir "$tmp/full" && touch "$tmp/full/x"
check refuse-nonempty 1 "is not empty" -- "$cluster" start "$tmp/full"
check refuse-osds 1 "--osds: 1 to 8, not '0'" -- "$cluster" start --osds 0 "$tmp/c1"
check refuse-store 1 "--store: memstore or bluestore, not 'filestore'" -- \
	"$cluster" start --store filestore "$tmp/c1"
check refuse-addr 1 "no interface of this network namespace has that address" -- \
	"$cluster" start --addr 192.0.2.254 "$tmp/c1"
check refuse-owner 1 "--owner: no process" -- "$cluster" start --owner 999999999 "$tmp/c1"
check refuse-bridge-and-addr 1 "--addr and --bridge: one or the other" -- \
	"$cluster" start --bridge --addr 127.0.0.1 "$tmp/c1"
# a PATH where everything but ceph-mon is found
mkdir "$tmp/bin"
for d in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do
	for p in "$d"/*; do
		[ -e "$tmp/bin/${p##*/}" ] || ln -s "$p" "$tmp/bin/${p##*/}"
	done
done
rm -f "$tmp/bin/ceph-mon"
check refuse-missing-mon 1 "missing programs not found: ceph-mon .*ceph-mon" -- \
	env PATH="$tmp/bin" "$cluster" start "$tmp/c1"
check check-missing-mon 1 "cannot start a Ceph cluster here: missing programs not found: ceph-mon" -- \
	env PATH="$tmp/bin" "$cluster" check
ok refusals-made-nothing [ ! -e "$tmp/c1" ]
check check-ok 0 "everything a cluster needs is here" -- "$cluster" check
mkdir "$tmp/empty"
check status-no-cluster 1 "is not a cluster directory" -- "$cluster" status "$tmp/empty"
check stop-no-cluster 1 "is not a cluster directory" -- "$cluster" stop "$tmp/empty"
check usage 2 "ceph-cluster.sh start" -- "$cluster"

# ---- stop: a daemon its PID file does not name is stopped too.  An MDS
# told to stop can be blocklisted by the monitor on its way out and
# respawn as a new process (seen under ./scripts/test.sh --asan: the old
# MDS gone, the new one left running after stop).  Here a stand-in: an
# "MDS" of a cluster directory with no PID file, its command line as an
# MDS's (seen failing before stop_group looked for them: "left: PID").
mkdir -p "$tmp/c2/run" && : >"$tmp/c2/ceph.conf"
(exec -a ceph-mds sh -c 'trap "exit 0" TERM; while :; do sleep 0.2; done' \
	-c "$tmp/c2/ceph.conf" -i a) </dev/null >/dev/null 2>&1 &
fake=$!
for i in $(seq 1 50); do
	grep -qaF "$tmp/c2/ceph.conf" "/proc/$fake/cmdline" 2>/dev/null && break
	sleep 0.1
done
check stop-respawned-mds 0 "stopped 1 daemons" -- "$cluster" stop "$tmp/c2"
left=""
kill -0 "$fake" 2>/dev/null && left=$fake
[ -z "$left" ] || { echo "left: $left" >&2; kill -KILL "$fake"; }
ok stop-no-mds-left [ -z "$left" ]
check_summary cluster_check
