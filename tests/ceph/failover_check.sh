#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# failover_check.sh PROGRAM:CASE...: two heads over one CephFS, each in a
# network namespace of its own (two "hosts"), and a head's failover to
# the other host with its floating address (issue #29 item 3;
# docs/cluster.md, "Two heads").
#
# A cluster of its own (scripts/ceph-cluster.sh --bridge: the hosts reach
# it through the bridge), hosts A and B attached to the bridge, head a
# (node id a) on A's floating address and head b on B's, both exporting
# /failover of the CephFS through FSAL_CEPH with
# RecoveryBackend = FAILOVER_BACKEND (default rados_cluster, the nodes
# added to the grace database first; `sqlite`: the per-head SQLite
# database in the host's own recovery directory), read delegations on,
# Grace_Period FAILOVER_GRACE (default 15 s) and Lease_Lifetime
# FAILOVER_LEASE (default 10 s).  Each PROGRAM runs with CK_RUN_CASE=CASE,
# in turn, against a's address (NFS42_HOST; b's is NFS42_HOST_B, the
# RADOS namespace and grace tool as harness.sh --ceph gives them).  Its
# server control: `kill9` kills head a (SIGKILL; the time in
# NFS42_WORK_DIR/killed_at, ms since the epoch), `start` moves a's
# address to the other host (as keepalived or pacemaker would) and starts
# head a there with that host's recovery directory, `restart` is both.
# The cases used: e2e_recovery_sqlite's restart (its clients reclaim on
# the other host, a client never seen gets NFS4ERR_NO_GRACE; with sqlite
# the records stayed on the first host and the reclaims fail: seen
# failing that way) and e2e_recovery_rados's failover (locks, a
# delegation, acknowledged data, the second client's conflicting lock,
# the records of a client that does not come back; the stall figures).
# The failover case with a backend without the cluster grace
# (FAILOVER_BACKEND=rados_kv or sqlite: NFS42_RECOVERY_BACKEND tells the
# program, which then leaves out its checks of rados_cluster's grace
# database and record objects) was seen failing where it must: head b,
# told nothing of head a's grace, granted the second client's LOCK of
# the range the first was about to reclaim ("got NFS4_OK (0), want
# NFS4ERR_GRACE"; docs/cluster.md section 5).
# Skipped (77) where Ceph cannot run or no bridge or network namespace
# can be made.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
stage=${SPARSE_STAGE:?}
[ $# -gt 0 ] || { echo "usage: failover_check.sh PROGRAM:CASE..." >&2; exit 2; }
backend=${FAILOVER_BACKEND:-rados_cluster}
grace_s=${FAILOVER_GRACE:-15}
lease_s=${FAILOVER_LEASE:-10}
# libcephfs's write-back cache in the heads (Ganesha's default: off):
# with it on, what a head acknowledged without COMMIT dies with it
client_oc=${FAILOVER_CLIENT_OC:-true}
cluster=$repo/scripts/ceph-cluster.sh
. "$repo/scripts/server-lib.sh"

if ! why=$("$cluster" check 2>&1); then
	echo "failover_check: skipped: $why"
	exit 77
fi
tag=fo$$
if ! ip netns add "${tag}probe" 2>/dev/null; then
	echo "failover_check: skipped: no network namespace can be made here"
	exit 77
fi
ip netns del "${tag}probe"

work=$(mktemp -d "${TMPDIR:-/tmp}/ceph-failover.XXXXXX")
owner=$$ # the heads' keepers end them when this script is gone
cleanup() {
	local rc=$? p h
	for p in "$work"/head-*.pid; do
		[ -s "$p" ] && { sparse_stop_server "$(cat "$p")" 10 || true; }
	done
	if grep -qF " $work/cephfs " /proc/self/mounts; then
		umount "$work/cephfs" 2>/dev/null || umount -l "$work/cephfs" || true
	fi
	[ ! -d "$work/cluster/run" ] || "$cluster" stop "$work/cluster" >/dev/null || true
	for h in A B; do
		ip netns del "$tag$h" 2>/dev/null || true
	done
	if [ $rc -eq 0 ]; then
		rm -rf --one-file-system "$work"
	else
		echo "failover_check: kept $work (logs: head-*.log, cluster/log)" >&2
	fi
	exit $rc
}
trap cleanup EXIT

# ---- the cluster, on a bridge the hosts attach to
if ! "$cluster" start --bridge --owner $$ "$work/cluster" >"$work/cluster.out" 2>&1; then
	if grep -q "no bridge could be made" "$work/cluster.out"; then
		echo "failover_check: skipped: $(tail -n 1 "$work/cluster.out")"
		exit 77
	fi
	cat "$work/cluster.out" >&2
	exit 1
fi
# shellcheck source=/dev/null
. "$work/cluster/cluster.env"
net=$CEPH_SUBNET
vip_a=$net.10
vip_b=$net.11

# host_add NAME IP: network namespace $tag$NAME, its eth0 on the bridge
host_add() {
	local ns=$tag$1
	ip netns add "$ns"
	ip link add "v$tag$1" type veth peer name eth0 netns "$ns"
	ip link set "v$tag$1" master "$CEPH_BRIDGE" up
	ip -n "$ns" link set lo up
	ip -n "$ns" addr add "$2/24" dev eth0
	ip -n "$ns" link set eth0 up
}

# vip_move VIP FROM TO: the floating address from host FROM to host TO
vip_move() {
	ip -n "$tag$2" addr del "$1/24" dev eth0
	ip -n "$tag$3" addr add "$1/24" dev eth0
	# the bridge side learns the new owner at once
	ip neigh flush to "$1" 2>/dev/null || true
}

host_add A "$net.2"
host_add B "$net.3"
ip -n "${tag}A" addr add "$vip_a/24" dev eth0
ip -n "${tag}B" addr add "$vip_b/24" dev eth0

grace=("$stage/bin/ganesha-rados-grace" --cephconf "$CEPH_CONF"
	--userid "$CEPH_GANESHA_USER" --pool "$CEPH_GANESHA_POOL" --ns failover)
[ "$backend" != rados_cluster ] || "${grace[@]}" add a b

mkdir -p "$work/cephfs" "$work/hostA" "$work/hostB"
timeout 60 ceph-fuse -c "$CEPH_CONF" -n client.admin "$work/cephfs" >"$work/ceph-fuse.log" 2>&1
mkdir "$work/cephfs/failover"

# head_conf NODE VIP HOST: head NODE's configuration on host HOST (its
# recovery directory is that host's)
head_conf() {
	local conf=$work/head-$1-on-$3.conf
	mkdir -p "$work/host$3/rec-$1"
	cat >"$conf" <<EOF
NFS_CORE_PARAM {
	Protocols = 4; Enable_NLM = false; Enable_RQUOTA = false;
	NFS_Port = 2049; Bind_addr = $2;
	Plugins_Dir = "$stage/lib/ganesha";
	allow_set_io_flusher_fail = true;
}
NFSv4 {
	RecoveryRoot = "$work/host$3/rec-$1";
	RecoveryBackend = $backend;
	Grace_Period = $grace_s; Lease_Lifetime = $lease_s;
	Minor_Versions = 1, 2;
	Delegations = true;
}
RADOS_KV {
	Ceph_Conf = "$CEPH_CONF"; UserId = "$CEPH_GANESHA_USER";
	Pool = "$CEPH_GANESHA_POOL"; Namespace = "failover"; Nodeid = "$1";
}
CEPH { Ceph_Conf = "$CEPH_CONF"; client_oc = $client_oc; }
EXPORT {
	Export_Id = 1; Path = "/failover"; Pseudo = "/failover";
	Access_Type = RW; Squash = No_Root_Squash; SecType = sys;
	Protocols = 4; Transports = TCP; Delegations = Read;
	FSAL { Name = CEPH; User_Id = "$CEPH_GANESHA_USER"; Filesystem = "$CEPH_FS"; }
}
LOG { Default_Log_Level = EVENT; }
EOF
	echo "$conf"
}

# head_start NODE VIP HOST: head NODE on host HOST, up and serving
head_start() {
	local conf log pid i
	conf=$(head_conf "$1" "$2" "$3")
	log=$work/head-$1-on-$3.log
	# a head back on a host it left: the earlier run's log is kept aside
	[ ! -e "$log" ] || mv "$log" "$log.$(date +%s%N)"
	# the host name is the head's (with FSAL_CEPH it names the head's
	# CephFS session whatever the host, and the sqlite backend's node)
	pid=$(DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/no-bus SPARSE_SERVER_NETNS=$tag$3 \
		SPARSE_SERVER_HOSTNAME=head-$1 \
		sparse_start_server "$stage" "$conf" "$log" "$work/head-$1.pid" "$owner")
	for ((i = 0; i < 600; i++)); do
		kill -0 "$pid" 2>/dev/null ||
			{ echo "head $1 died at start on host $3:" >&2; sparse_log_errors "$log" >&2; return 1; }
		grep -q "NFS SERVER INITIALIZED" "$log" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "head $1 not up after 60 s on host $3" >&2
	return 1
}

head_start a "$vip_a" A
head_start b "$vip_b" B

# the programs' server control: head a fails over to the other host
echo A >"$work/head-a.host"
cat >"$work/ctl" <<CTL
#!/usr/bin/env bash
set -euo pipefail
. "$repo/scripts/server-lib.sh"
$(declare -p work tag stage backend repo owner grace_s lease_s client_oc CEPH_CONF CEPH_GANESHA_USER CEPH_GANESHA_POOL CEPH_FS)
$(declare -f head_conf head_start vip_move sparse_log_errors)
kill9() {
	sparse_kill_server "\$(cat "\$work/head-a.pid")"
	echo \$(( \$(date +%s%N) / 1000000 )) >"\$work/killed_at"
}
start() {
	local from to t0
	from=\$(cat "\$work/head-a.host")
	to=\$([ "\$from" = A ] && echo B || echo A)
	t0=\$(cat "\$work/killed_at")
	vip_move $vip_a "\$from" "\$to"
	echo "\$to" >"\$work/head-a.host"
	head_start a $vip_a "\$to"
	echo "failover: head a serving from host \$to \$(( \$(date +%s%N) / 1000000 - t0 )) ms after its SIGKILL" | tee -a "\$work/figures" >&2
}
case "\${1:-}" in
kill9) kill9 ;;
start) start ;;
restart) kill9; start ;;
*) echo "ctl: kill9, start or restart (the failover)" >&2; exit 2 ;;
esac
CTL
chmod +x "$work/ctl"

rc=0
for run in "$@"; do
	program=${run%:*}
	case=${run##*:}
	NFS42_HOST=$vip_a NFS42_HOST_B=$vip_b NFS42_PORT=2049 \
		NFS42_EXPORT=/failover NFS42_BACKING=$work/cephfs/failover \
		NFS42_SERVER_CTL=$work/ctl NFS42_LOG=$work/head-a-on-A.log \
		NFS42_WORK_DIR=$work NFS42_CEPH_CONF=$CEPH_CONF \
		NFS42_CEPH_USER=$CEPH_GANESHA_USER \
		NFS42_CEPH_POOL=$CEPH_GANESHA_POOL NFS42_CEPH_NS=failover \
		NFS42_CEPH_NODEID=a NFS42_CEPH_GRACE="${grace[*]}" \
		NFS42_GRACE_PERIOD=$grace_s NFS42_LEASE=$lease_s \
		NFS42_CLIENT_OC=$client_oc NFS42_RECOVERY_BACKEND=$backend \
		CK_RUN_CASE=$case "$program" || rc=$?
	echo "failover_check ($backend): $(basename "$program") $case: exit status $rc"
	[ $rc -eq 0 ] || break
done
exit $rc
