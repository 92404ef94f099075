#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# harness.sh [--fsal NAME] [--fsal-opts "K = V; ..."] [--nfsv4-opts "K = V; ..."]
#            [--core-opts "K = V; ..."]
#            [--export-opts "K = V; ..."]
#            [--conf-extra TEXT] [--mds-conf-extra TEXT] [--mkdir REL]
#            [--keep] [--protocols "3, 4"] [--export-tmpfs]
#            [--needs-root] [--dbus] [--ceph CLUSTER_DIR [--rados-conf TEXT]]
#            -- PROGRAM [ARGS]
#
# Starts our ganesha.nfsd (from $SPARSE_STAGE) on a free 127.0.0.1 port with
# a fresh temporary FSAL_SPARSE export and recovery directory, runs PROGRAM
# with these variables set, then stops the server by PID:
#   NFS42_HOST, NFS42_PORT   where the server listens
#   NFS42_EXPORT             pseudo path of the export (/sparse)
#   NFS42_BACKING            the export's backing directory on local disk
#   NFS42_LOG                the server log
#   NFS42_SERVER_CTL         "$NFS42_SERVER_CTL start|stop|restart|kill9"
#   NFS42_SERVER_PID_FILE    file holding the PID of the current
#                            ganesha.nfsd (rewritten by every start)
#   NFS42_RECOVERY_DIR       the server's RecoveryRoot (the sqlite backend's
#                            database is there)
#   NFS42_STALL_DIR          where a test arms Test_Hooks Stall_Dir markers
#                            (given to the server as @STALL_DIR@ in
#                            --fsal-opts)
#   NFS42_FSAL               the FSAL serving the export (SPARSE unless
#                            --fsal or $SPARSE_E2E_FSAL says otherwise; VFS
#                            is the baseline the same suites can run against)
#   DBUS_SYSTEM_BUS_ADDRESS  the bus the server registers org.ganesha.nfsd
#                            on: with --dbus a private dbus-daemon of this
#                            run (stopped by PID at the end; skipped, 77,
#                            where dbus-daemon is missing), else a socket
#                            that does not exist (the server runs without
#                            DBus). The machine's system bus is never used.
#   NFS42_MNT_PORT           with --protocols naming 3: the MOUNT port
#   NFS42_WORK_DIR           the test's directory (server files, ds*.pid)
#   NFS42_DS_COUNT, NFS42_DS_PORTS, NFS42_DS_LOGS
#                            with --pnfs N: the N data servers' ports and
#                            logs (space separated); "$NFS42_SERVER_CTL
#                            ds-kill9|ds-stop|ds-start I" controls data
#                            server I (0..N-1)
#
# --conf-extra TEXT goes at the end of every server's configuration (the
# data servers' too), --mds-conf-extra TEXT of the main server's only (with
# --pnfs, an export of the metadata server the data servers do not have);
# in both @EXPORT_DIR@ is the export's backing directory.  --mkdir REL
# (repeatable) makes directory REL in it before any server starts (the
# path of a nested export).
#
# --pnfs N starts N more servers on the same export directory, each a pNFS
# data server only (NFSv4 and FSAL PNFS_DS), and makes the main server the
# metadata server whose files layouts stripe over them (PNFS_MDS, a
# Data_Server block each); --pnfs-mds-ds makes the metadata server a data
# server too, first in the list; --pnfs-opts "K = V; ..." adds to the
# metadata server's FSAL block (Stripe_Unit, Stripe_Count);
# --pnfs-ds-host ADDR is the address the layouts give for the data servers
# (default 127.0.0.1; the Linux guest's 10.0.2.100, tests/linux/vm.sh).
# With --ceph (and FSAL SPARSE or VFS) each data server exports a ceph-fuse
# mount of its own (NFS42_WORK_DIR/cephfs-dsI): one CephFS, a client
# instance for each server, as servers on separate hosts have.
# Every ceph-fuse mount of the harness is made with SPARSE_CEPH_FUSE_OPTS,
# default --client_oc=false: no object cache in ceph-fuse, so no read
# holds a reference on the Fc capability while another client makes the
# MDS revoke it.  Ceph 16.2's client then lost the wake-up of a read
# waiting for that revocation (ceph PR 59027, fixed upstream in 2024): a
# data server's READ waited for the next capability message, 30 s and
# more (docs/cluster.md section 7).  Ganesha's FSAL_CEPH runs libcephfs
# with client_oc = false too.  SPARSE_CEPH_FUSE_OPTS= restores the cache.
#
# --ceph CLUSTER_DIR serves a directory of its own in the CephFS of the
# cluster scripts/ceph-cluster.sh started in CLUSTER_DIR (the ctest
# fixture of the ceph label; skipped, 77, with the reason the fixture left
# in CLUSTER_DIR.skip when there is no cluster).  The test's CephFS
# directory (/<the test's directory name>, made through libcephfs,
# tests/ceph/cephfs_dir.py) alone is mounted with ceph-fuse (as
# client.admin) in the test's directory: NFS42_BACKING, so the program
# sees what the server wrote through another CephFS client, and nothing
# outside the test's directory is reachable through the mount.  FSAL CEPH
# (the default with --ceph)
# exports that directory through libcephfs as client.ganesha; --fsal
# SPARSE or VFS export the ceph-fuse mount itself.  With
# The client records go to the cluster's Ganesha pool, in a RADOS
# namespace of the test's own: RecoveryBackend = rados_ng unless
# SPARSE_RECOVERY_BACKEND names another (rados_kv, rados_cluster: the node
# is first added to the grace database with ganesha-rados-grace).  The
# node id (SPARSE_CEPH_NODEID, default the test's directory name) is also
# what FSAL_CEPH names its CephFS session after ("ganesha-NODEID-0001"): a
# server that starts again with it takes over its predecessor's session
# (reclaim reset), so no two servers may share one; with the default
# fs backend every server would be "ganesha-HOSTNAME-0001".  The program
# gets NFS42_CEPH_CONF, NFS42_CEPH_POOL, NFS42_CEPH_NS, NFS42_CEPH_NODEID,
# NFS42_CEPH_USER, and NFS42_CEPH_GRACE, the ganesha-rados-grace command
# line for them.  At the end the server's CephFS session is evicted (a
# Ganesha that stops as a cluster member leaves it open for its successor,
# holding its capabilities for 300 s), then the test's CephFS directory and
# RADOS objects are removed.
# --rados-conf TEXT (with --ceph) puts TEXT, @CEPH_DIR@ replaced by the
# test's directory in the CephFS, into the RADOS object
# "ganesha-extra.conf" of the test's namespace; the configuration includes
# it with %url rados://POOL/NAMESPACE/ganesha-extra.conf (RADOS_URLS
# block, as client.ganesha), and the server reloads its configuration
# when the object "ganesha-watch" of the namespace is notified
# (watch_url).  The program gets NFS42_CEPH_URL_OBJ and
# NFS42_CEPH_WATCH_OBJ.
#
# --protocols LIST is NFS_CORE_PARAM's and EXPORT's Protocols (default 4).
# With NFSv3 Ganesha must register with rpcbind or it stops; tests never
# touch the machine's rpcbind: the harness then runs in a private mount
# namespace whose /run is a directory of this test, where our rpcbind stub
# ($SPARSE_RPCB_STUB, tests/e2e/rpcb_stub.c) listens on rpcbind.sock.
# That needs root (skipped, 77, otherwise).  NLM and RQUOTA stay off.
# --export-tmpfs makes the export directory a tmpfs of its own (in the
# same kind of private mount namespace, root only): what an admin who
# exports a tmpfs gets.
# SPARSE_RECOVERY_BACKEND=X in the environment makes the server use
# "RecoveryBackend = X" (default: Ganesha's, fs); SPARSE_MINOR_VERSIONS="0, 1, 2"
# its NFSv4 Minor_Versions (default "1, 2").
# A configuration error in Ganesha's log (a refused EXPORT or FSAL block)
# fails the run unless SPARSE_ALLOW_CONFIG_ERRORS=1 (for tests of exactly
# that). The server log is kept (path printed) when PROGRAM fails; otherwise the
# temporary directory is removed.
#
# Exit status 77 means "skipped" (ctest's SKIP_RETURN_CODE): PROGRAM exited
# 77, or --needs-root was given and we are not root (then no server is
# started). A skip is not a failure: nothing is kept, no log is printed.
#
# No server outlives its harness: each runs under a keeper that kills it
# once the harness process is gone, even after a SIGKILL (ctest's timeout),
# which no trap sees. The temporary directory records the harness PID; the
# next harness removes directories whose harness was killed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/scripts/server-lib.sh"

FSAL_NAME=${SPARSE_E2E_FSAL:-SPARSE}
FSAL_OPTS=""
NFSV4_OPTS=""
CORE_OPTS=""
EXPORT_OPTS=""
EXTRA_CONF=""
MDS_EXTRA_CONF=""
mkdirs=()
keep=0
needs_root=0
with_dbus=0
PROTOCOLS=${SPARSE_E2E_PROTOCOLS:-4}
export_tmpfs=0
pnfs_ds=0
pnfs_mds_ds=0
pnfs_opts=""
pnfs_ds_host=127.0.0.1
ceph_dir=""
rados_conf=""
fsal_given=0
harness_args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	--protocols) PROTOCOLS=$2; shift 2 ;;
	--export-tmpfs) export_tmpfs=1; shift ;;
	--fsal) FSAL_NAME=$2; fsal_given=1; shift 2 ;;
	--ceph) ceph_dir=$2; shift 2 ;;
	--rados-conf) rados_conf=$2; shift 2 ;;
	--fsal-opts) FSAL_OPTS=$2; shift 2 ;;
	--nfsv4-opts) NFSV4_OPTS=$2; shift 2 ;;
	--core-opts) CORE_OPTS=$2; shift 2 ;;
	--export-opts) EXPORT_OPTS=$2; shift 2 ;;
	--conf-extra) EXTRA_CONF=$2; shift 2 ;;
	--mds-conf-extra) MDS_EXTRA_CONF=$2; shift 2 ;;
	--mkdir) mkdirs+=("$2"); shift 2 ;;
	--keep) keep=1; shift ;;
	--needs-root) needs_root=1; shift ;;
	--dbus) with_dbus=1; shift ;;
	--pnfs) pnfs_ds=$2; shift 2 ;;
	--pnfs-mds-ds) pnfs_mds_ds=1; shift ;;
	--pnfs-opts) pnfs_opts=$2; shift 2 ;;
	--pnfs-ds-host) pnfs_ds_host=$2; shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: harness.sh [options] -- PROGRAM [ARGS]" >&2; exit 2; }
[ -z "$rados_conf" ] || [ -n "$ceph_dir" ] ||
	{ echo "harness: --rados-conf needs --ceph" >&2; exit 2; }
stage=${SPARSE_STAGE:?SPARSE_STAGE must name the staging prefix}
prog=$(basename "$1")
if [ $needs_root = 1 ] && [ "$(id -u)" != 0 ]; then
	echo "harness: $prog needs root; skipped"
	exit 77
fi
if [ -n "$ceph_dir" ]; then
	if [ ! -f "$ceph_dir/cluster.env" ]; then
		echo "harness: $prog skipped: $(cat "$ceph_dir.skip" 2>/dev/null ||
			echo "no Ceph cluster in $ceph_dir (scripts/ceph-cluster.sh start did not run or failed)")"
		exit 77
	fi
	# shellcheck source=/dev/null
	. "$ceph_dir/cluster.env"
	[ $fsal_given = 1 ] || FSAL_NAME=CEPH
fi
with_v3=0
case ",${PROTOCOLS// /}," in *,3,*) with_v3=1 ;; esac
if { [ $with_v3 = 1 ] || [ $export_tmpfs = 1 ]; } &&
   [ -z "${SPARSE_HARNESS_MNTNS:-}" ]; then
	# A private mount namespace (same PID: unshare execs) for our mounts
	if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null ||
	   ! unshare --mount --propagation private true 2>/dev/null; then
		echo "harness: $prog needs NFSv3 or a tmpfs export, hence a private mount namespace (root, unshare); skipped"
		exit 77
	fi
	[ $with_v3 = 0 ] || [ -x "${SPARSE_RPCB_STUB:-}" ] ||
		{ echo "harness: SPARSE_RPCB_STUB must name tests/e2e's rpcb_stub" >&2; exit 2; }
	exec env SPARSE_HARNESS_MNTNS=1 unshare --mount --propagation private -- \
		"$0" "${harness_args[@]}"
fi

# start_time PID: the kernel's start time of process PID (with the PID, it
# names one process even after the PID is reused)
start_time() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }
	# shellcheck disable=SC2086
	set -- $stat
	echo "${20}"
}

# remove_stale_dirs TMP: the directories of harnesses that were killed (a
# harness that ends by itself removes its directory or, when keeping it,
# its harness.pid), with the server of one if it is somehow still there
remove_stale_dirs() {
	local d pid start spid
	for d in "$1"/nfs-sparse-e2e.*; do
		[ -f "$d/harness.pid" ] || continue
		read -r pid start <"$d/harness.pid" 2>/dev/null || continue
		[ "$(start_time "$pid")" = "$start" ] && continue
		spid=$(cat "$d/server.pid" 2>/dev/null || true)
		if [ -n "$spid" ] &&
		   grep -qaF "$d/ganesha.conf" "/proc/$spid/cmdline" 2>/dev/null; then
			sparse_kill_server "$spid" || true
		fi
		echo "harness: removing $d (its harness, PID $pid, was killed)" >&2
		# what it mounted first (a ceph-fuse mount, a tmpfs), and never
		# across a mount
		awk -v d="$d/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo |
			sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
		rm -rf --one-file-system "$d"
	done
}

# disk_dir DIR: DIR unless it is on tmpfs or ramfs.  The export is a
# directory of the test's own, and an export must be on a disk filesystem:
# Ganesha's FSAL_VFS refuses tmpfs outright, and on tmpfs FSAL_SPARSE's
# READDIR cookies (the kernel's d_off) can restart a listing and its change
# attribute (ctime, one clock tick fine) can miss a change (docs/testing.md).
disk_dir() {
	case "$(stat -f -c %T "$1" 2>/dev/null)" in
	tmpfs | ramfs) return 1 ;;
	esac
	echo "$1"
}

# TMPDIR (default /tmp), or /var/tmp where that is a tmpfs (Debian 13
# mounts one on /tmp by default, and so do many containers and chroots)
tmp=$(disk_dir "${TMPDIR:-/tmp}") || tmp=$(disk_dir /var/tmp) || {
	echo "harness: ${TMPDIR:-/tmp} and /var/tmp are both tmpfs; the export needs a disk filesystem: set TMPDIR to a directory on one" >&2
	exit 1
}
[ "$tmp" = "${TMPDIR:-/tmp}" ] ||
	echo "harness: ${TMPDIR:-/tmp} is a tmpfs; working in $tmp" >&2
remove_stale_dirs "$tmp"
work=$(mktemp -d "$tmp/nfs-sparse-e2e.XXXXXX")
echo "$$ $(start_time $$)" >"$work/harness.pid"
mkdir -p "$work/export" "$work/recovery" "$work/stall"
if [ $export_tmpfs = 1 ]; then
	mount -t tmpfs -o mode=0755 nfs-sparse-export "$work/export"
fi
if [ $with_v3 = 1 ]; then
	# only in this process's mount namespace: the rpcbind socket of
	# this test's server lives in $work/run
	mkdir -p "$work/run"
	mount --bind "$work/run" /run
fi
# --fsal-opts may name the directory of Test_Hooks Stall_Dir markers as
# @STALL_DIR@ (the race tests arm one-shot backend stalls there)
FSAL_OPTS=${FSAL_OPTS//@STALL_DIR@/$work/stall}
EXPORT_DIR=$work/export
backing=$EXPORT_DIR
EXTRA_CONF=${EXTRA_CONF//@EXPORT_DIR@/$EXPORT_DIR}
MDS_EXTRA_CONF=${MDS_EXTRA_CONF//@EXPORT_DIR@/$EXPORT_DIR}
for d in ${mkdirs[@]+"${mkdirs[@]}"}; do
	mkdir -p "$EXPORT_DIR/$d"
done
PSEUDO=/sparse
# ceph_mount DIR: the test's CephFS directory mounted on DIR by a ceph-fuse
# of its own, a CephFS client instance apart (its PID added to
# ceph-fuse.pid: ceph-fuse forks and its parent is gone)
ceph_mount() {
	mkdir -p "$1"
	# shellcheck disable=SC2086 # options, word-split on purpose
	timeout 60 ceph-fuse -c "$CEPH_CONF" -n client.admin -r "/$ceph_sub" \
		${SPARSE_CEPH_FUSE_OPTS---client_oc=false} \
		"$1" >>"$work/ceph-fuse.log" 2>&1 ||
		{ cat "$work/ceph-fuse.log" >&2; echo "harness: ceph-fuse failed" >&2; exit 1; }
	pgrep -f -- "^ceph-fuse .* $1\$" >>"$work/ceph-fuse.pid" || true
}
if [ -n "$ceph_dir" ]; then
	# the test's directory in the CephFS, seen through ceph-fuse (that
	# directory only: nothing else can be reached through the mount)
	ceph_sub=$(basename "$work")
	"$repo/tests/ceph/cephfs_dir.py" "$CEPH_CONF" mkdir "/$ceph_sub" ||
		{ echo "harness: cannot make /$ceph_sub in the CephFS" >&2; exit 1; }
	ceph_mount "$work/cephfs"
	backing=$work/cephfs
	EXPORT_DIR=$backing
	# every head of one CephFS names it alike in its handles, whatever
	# its mount's device number (the cluster has one file system: its fsid)
	if [ "$FSAL_NAME" = SPARSE ]; then
		FSAL_OPTS="Filesystem_Identity = \"$CEPH_FSID\"; $FSAL_OPTS"
	fi
	if [ "$FSAL_NAME" = CEPH ]; then
		EXPORT_DIR=/$ceph_sub
		FSAL_OPTS="User_Id = \"$CEPH_GANESHA_USER\"; Filesystem = \"$CEPH_FS\"; $FSAL_OPTS"
		EXTRA_CONF="CEPH { Ceph_Conf = \"$CEPH_CONF\"; }
$EXTRA_CONF"
	fi
	export NFS42_CEPH_CONF=$CEPH_CONF NFS42_CEPH_POOL=$CEPH_GANESHA_POOL
	export NFS42_CEPH_NS=$ceph_sub NFS42_CEPH_NODEID=${SPARSE_CEPH_NODEID:-$ceph_sub}
	SPARSE_RECOVERY_BACKEND=${SPARSE_RECOVERY_BACKEND:-rados_ng}
	export NFS42_CEPH_USER=$CEPH_GANESHA_USER
	export NFS42_CEPH_GRACE="$stage/bin/ganesha-rados-grace --cephconf $CEPH_CONF --userid $CEPH_GANESHA_USER --pool $CEPH_GANESHA_POOL --ns $ceph_sub"
	case ${SPARSE_RECOVERY_BACKEND:-} in
	rados_kv | rados_ng | rados_cluster)
		EXTRA_CONF="RADOS_KV { Ceph_Conf = \"$CEPH_CONF\"; UserId = \"$CEPH_GANESHA_USER\"; Pool = \"$CEPH_GANESHA_POOL\"; Namespace = \"$ceph_sub\"; Nodeid = \"$NFS42_CEPH_NODEID\"; }
$EXTRA_CONF"
		;;
	esac
	if [ -n "$rados_conf" ]; then
		rados_g=(timeout 60 rados -c "$CEPH_CONF" -n "client.$CEPH_GANESHA_USER"
			-p "$CEPH_GANESHA_POOL" -N "$ceph_sub")
		printf '%s\n' "${rados_conf//@CEPH_DIR@//$ceph_sub}" >"$work/rados-extra.conf"
		"${rados_g[@]}" put ganesha-extra.conf "$work/rados-extra.conf" &&
			"${rados_g[@]}" create ganesha-watch ||
			{ echo "harness: cannot write the --rados-conf objects" >&2; exit 1; }
		url=rados://$CEPH_GANESHA_POOL/$ceph_sub
		EXTRA_CONF="RADOS_URLS { Ceph_Conf = \"$CEPH_CONF\"; UserId = \"$CEPH_GANESHA_USER\"; watch_url = \"$url/ganesha-watch\"; }
%url \"$url/ganesha-extra.conf\"
$EXTRA_CONF"
		export NFS42_CEPH_URL_OBJ=ganesha-extra.conf NFS42_CEPH_WATCH_OBJ=ganesha-watch
	fi
	if [ "${SPARSE_RECOVERY_BACKEND:-}" = rados_cluster ]; then
		$NFS42_CEPH_GRACE add "$NFS42_CEPH_NODEID" >"$work/grace.log" 2>&1 ||
			{ cat "$work/grace.log" >&2; echo "harness: ganesha-rados-grace add failed" >&2; exit 1; }
	fi
fi
RECOVERY_DIR=$work/recovery
PLUGINS_DIR=$stage/lib/ganesha
LOG_LEVEL=${SPARSE_LOG_LEVEL:-EVENT}
if [ $with_dbus = 1 ]; then
	BUS=unix:path=$work/dbus.sock
else
	BUS=unix:path=$work/no-bus
fi
# The control script the test program calls; it shares this harness's
# state through files in $work.
cat >"$work/ctl" <<CTL
#!/usr/bin/env bash
set -euo pipefail
. "$repo/scripts/server-lib.sh"
LOG_LEVEL=$LOG_LEVEL
export DBUS_SYSTEM_BUS_ADDRESS=$BUS
start() {
	local pid
	# after a kill9 the old server's socket may still be closing
	if [ -f "$work/server.pid" ]; then
		sparse_wait_port_free "\$(cat "$work/port")" 10 || exit 1
	fi
	# Ganesha tells its instances apart by the second they started in
	# (write verifier, client and state IDs): never two in one second
	if [ -f "$work/server.started" ]; then
		while [ "\$(date +%s)" -le "\$(cat "$work/server.started")" ]; do
			sleep 0.05
		done
	fi
	pid=\$(sparse_start_server "$stage" "$work/ganesha.conf" "$work/ganesha.log" \\
		"$work/server.pid" $$)
	if ! sparse_wait_ready "\$pid" "\$(cat "$work/port")" "$work/ganesha.log" 60; then
		echo "harness: ganesha.nfsd failed to start:" >&2
		sparse_log_errors "$work/ganesha.log" >&2
		sparse_stop_server "\$pid" 2
		exit 1
	fi
	if [ "\${SPARSE_ALLOW_CONFIG_ERRORS:-0}" = 0 ] &&
	   sparse_config_errors "$work/ganesha.log" >&2; then
		echo "harness: ganesha.nfsd refused part of its configuration (above)" >&2
		sparse_stop_server "\$pid"
		exit 1
	fi
	date +%s >"$work/server.started"
}
stop() { sparse_stop_server "\$(cat "$work/server.pid")"; }
kill9() { sparse_kill_server "\$(cat "$work/server.pid")"; }
# data server I of --pnfs: its own config, log, PID file and port
ds_start() {
	local pid d=$work/ds\$1
	[ -f "\$d.conf" ] || { echo "no data server \$1" >&2; exit 2; }
	if [ -f "\$d.pid" ]; then
		sparse_wait_port_free "\$(cat "\$d.port")" 10 || exit 1
	fi
	# (no DBus: the bus of --dbus is the metadata server's alone)
	pid=\$(DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/no-bus-ds \\
		sparse_start_server "$stage" "\$d.conf" "\$d.log" "\$d.pid" $$)
	if ! sparse_wait_ready "\$pid" "\$(cat "\$d.port")" "\$d.log" 60; then
		echo "harness: data server \$1 failed to start:" >&2
		sparse_log_errors "\$d.log" >&2
		sparse_stop_server "\$pid" 2
		exit 1
	fi
}
ds_stop() { sparse_stop_server "\$(cat "$work/ds\$1.pid")"; }
ds_kill9() { sparse_kill_server "\$(cat "$work/ds\$1.pid")"; }
case "\${1:-}" in
start) start ;;
stop) stop ;;
restart) stop; start ;;
kill9) kill9 ;;
ds-start) ds_start "\${2:?}" ;;
ds-stop) ds_stop "\${2:?}" ;;
ds-kill9) ds_kill9 "\${2:?}" ;;
*) echo "usage: \$0 start|stop|restart|kill9|ds-start I|ds-stop I|ds-kill9 I" >&2; exit 2 ;;
esac
CTL
chmod +x "$work/ctl"

# umount_below DIR: what a test mounted under DIR (a bind mount, a tmpfs),
# deepest first, so that removing DIR never reaches through a mount
umount_below() {
	local m
	awk -v d="$1/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo |
		sort -r | while read -r m; do
			umount -l "$m" 2>/dev/null || true
		done
}

# ceph_fuse_left: the PIDs of the test's ceph-fuse daemons still running
ceph_fuse_left() {
	local pid
	while read -r pid; do
		[[ "$pid" =~ ^[0-9]+$ ]] || continue
		grep -qaF "$work/cephfs" "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
	done <"$work/ceph-fuse.pid"
	return 0
}

# stop_ceph_fuse: after their unmount, the test's ceph-fuse daemons end, or
# are made to.  One normally ends a moment after its unmount; one still
# there when the lane's cluster stops waits for its MDS for good and fails
# ceph/cluster_stop.  After SPARSE_CEPH_FUSE_WAIT seconds (default 30)
# what it waits for (its admin socket) goes to the test's output, its
# CephFS session is evicted (else the MDS keeps its capabilities, and the
# removal of the test's directory waits, for the session timeout) and it
# gets SIGTERM and SIGKILL.
stop_ceph_fuse() {
	local pid i asok left mnt wait=${SPARSE_CEPH_FUSE_WAIT:-30}
	[ -f "$work/ceph-fuse.pid" ] || return 0
	[[ "$wait" =~ ^[0-9]+$ ]] || wait=30
	for ((i = 0; i < wait * 10; i++)); do
		left=$(ceph_fuse_left)
		[ -n "$left" ] || return 0
		sleep 0.1
	done
	for pid in $left; do
		echo "harness: ceph-fuse $pid still running $wait s after its unmount; stopping it" >&2
		asok=$ceph_dir/run/ceph-client.admin.$pid.asok
		for i in status mds_sessions mds_requests; do
			echo "harness: ceph-fuse $pid $i:" >&2
			timeout 10 ceph --admin-daemon "$asok" "$i" >&2 2>&1 || true
		done
		mnt=$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | tail -n 1) || true
		[ -z "$mnt" ] ||
			timeout 60 ceph -c "$CEPH_CONF" tell 'mds.*' client evict \
				"client_metadata.mount_point=$mnt" >&2 2>&1 || true
		grep -qaF "$work/cephfs" "/proc/$pid/cmdline" 2>/dev/null &&
			sparse_stop_server "$pid" 10 || true
	done
}

# remove_ceph_data: the test's CephFS directory and RADOS namespace
remove_ceph_data() {
	local o
	if [ "$FSAL_NAME" = CEPH ]; then
		timeout 60 ceph -c "$CEPH_CONF" tell 'mds.*' client evict \
			"client_metadata.uuid=ganesha-$NFS42_CEPH_NODEID-0001" \
			>>"$work/ceph-evict.log" 2>&1 || true
	fi
	local m
	awk -v d="$work/cephfs" '$3 == "fuse.ceph-fuse" && index($2, d) == 1 { print $2 }' \
		/proc/self/mounts | while read -r m; do
			umount "$m" 2>/dev/null || umount -l "$m" || true
		done
	stop_ceph_fuse
	timeout 120 "$repo/tests/ceph/cephfs_dir.py" "$CEPH_CONF" rmtree "/$ceph_sub" ||
		echo "harness: /$ceph_sub not removed from the CephFS" >&2
	timeout 60 rados -c "$CEPH_CONF" -p "$CEPH_GANESHA_POOL" -N "$ceph_sub" ls 2>/dev/null |
		while read -r o; do
			timeout 30 rados -c "$CEPH_CONF" -p "$CEPH_GANESHA_POOL" -N "$ceph_sub" rm "$o" || true
		done
}

cleanup() {
	local rc=$?
	if [ -f "$work/server.pid" ]; then
		sparse_stop_server "$(cat "$work/server.pid")" 20 || true
	fi
	local d
	for d in "$work"/ds*.pid; do
		[ -s "$d" ] && { sparse_stop_server "$(cat "$d")" 20 || true; }
	done
	if [ -n "${ceph_sub:-}" ]; then
		remove_ceph_data
	fi
	umount_below "$work"
	# whatever happened to the pid file, no server of ours outlives us
	pkill -KILL -f "ganesha.nfsd -F -f $work/ganesha.conf" 2>/dev/null || true
	if [ -s "$work/dbus.pid" ]; then
		sparse_stop_server "$(cat "$work/dbus.pid")" 5 || true
	fi
	if [ -s "$work/rpcb.pid" ]; then
		sparse_stop_server "$(cat "$work/rpcb.pid")" 5 || true
	fi
	rm -f "$work/harness.pid"
	local failed=0
	if [ $rc -eq 77 ]; then
		echo "harness: $prog skipped (exit status 77)"
	elif [ $rc -ne 0 ]; then
		failed=1
	fi
	if [ $failed = 1 ] || [ $keep = 1 ]; then
		echo "harness: kept $work (server log: $work/ganesha.log)" >&2
		if [ $failed = 1 ]; then
			echo "harness: last server log lines:" >&2
			tail -n 20 "$work/ganesha.log" >&2 2>/dev/null || true
		fi
	else
		rm -rf --one-file-system "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export DBUS_SYSTEM_BUS_ADDRESS=$BUS
if [ $with_dbus = 1 ]; then
	if ! command -v dbus-daemon >/dev/null; then
		echo "harness: dbus-daemon missing (Debian package dbus-daemon); $prog skipped"
		exit 77
	fi
	sparse_start_dbus "$work" $$ >/dev/null
fi

if [ $with_v3 = 1 ]; then
	sparse_start_rpcb "$SPARSE_RPCB_STUB" "$work" $$ ||
		{ echo "harness: the rpcbind stub did not start" >&2; exit 1; }
fi

# --pnfs: the data servers first (the metadata server's layouts name them)
ds_ports=()
if [ "$pnfs_ds" -gt 0 ]; then
	for ((i = 0; i < pnfs_ds; i++)); do
		ds_export=$EXPORT_DIR
		# over CephFS each data server has a client instance of its own,
		# as a data server on a host apart would
		if [ -n "${ceph_sub:-}" ] && [ "$FSAL_NAME" != CEPH ]; then
			ds_export=$work/cephfs-ds$i
			ceph_mount "$ds_export"
		fi
		for attempt in 1 2 3 4 5; do
			p=$(sparse_free_port)
			echo "$p" >"$work/ds$i.port"
			mkdir -p "$work/recovery-ds$i"
			( PORT=$p RECOVERY_DIR=$work/recovery-ds$i EXPORT_DIR=$ds_export \
			  NFSV4_OPTS="$NFSV4_OPTS PNFS_DS = true;" \
			  FSAL_OPTS="$FSAL_OPTS PNFS_DS = true;" MNT_PORT= \
			  sparse_write_conf "$work/ds$i.conf" )
			: >"$work/ds$i.log"
			if "$work/ctl" ds-start "$i" 2>"$work/start.err"; then
				break
			fi
			if [ $attempt -lt 5 ] && grep -q "Address already in use" "$work/ds$i.log"; then
				continue
			fi
			cat "$work/start.err" >&2
			exit 1
		done
		ds_ports+=("$(cat "$work/ds$i.port")")
	done
	pnfs_mds_ds_opts=""
	pnfs_nfsv4="PNFS_MDS = true;"
	if [ $pnfs_mds_ds = 1 ]; then
		pnfs_mds_ds_opts="PNFS_DS = true;"
		pnfs_nfsv4="PNFS_MDS = true; PNFS_DS = true;"
	fi
	NFSV4_OPTS="$NFSV4_OPTS $pnfs_nfsv4"
fi

# A free port can still be taken between the check and Ganesha's bind (by
# another test's server): then try another one.
for attempt in 1 2 3 4 5; do
	rm -f "$work/server.pid"
	PORT=$(sparse_free_port)
	MNT_PORT=
	if [ $with_v3 = 1 ]; then
		MNT_PORT=$(sparse_free_port)
		[ "$MNT_PORT" != "$PORT" ] || MNT_PORT=$(sparse_free_port)
	fi
	echo "$PORT" >"$work/port"
	if [ "$pnfs_ds" -gt 0 ]; then
		if [ $pnfs_mds_ds = 1 ]; then
			list=$(sparse_pnfs_ds_blocks "$pnfs_ds_host" "$PORT" "${ds_ports[@]}")
		else
			list=$(sparse_pnfs_ds_blocks "$pnfs_ds_host" "${ds_ports[@]}")
		fi
		FSAL_OPTS_SAVED=${FSAL_OPTS_SAVED-$FSAL_OPTS}
		FSAL_OPTS="$FSAL_OPTS_SAVED PNFS_MDS = true; $pnfs_mds_ds_opts $pnfs_opts
		$list"
	fi
	EXTRA_CONF="$EXTRA_CONF
$MDS_EXTRA_CONF" sparse_write_conf "$work/ganesha.conf"
	: >"$work/ganesha.log"
	if "$work/ctl" start 2>"$work/start.err"; then
		break
	fi
	if [ $attempt -lt 5 ] && grep -q "Address already in use" "$work/ganesha.log"; then
		continue
	fi
	cat "$work/start.err" >&2
	exit 1
done

export NFS42_HOST=127.0.0.1 NFS42_PORT=$PORT NFS42_EXPORT=$PSEUDO
export NFS42_BACKING=$backing NFS42_LOG=$work/ganesha.log
export NFS42_SERVER_CTL=$work/ctl NFS42_FSAL=$FSAL_NAME
export NFS42_SERVER_PID_FILE=$work/server.pid NFS42_STALL_DIR=$work/stall
export NFS42_RECOVERY_DIR=$RECOVERY_DIR NFS42_WORK_DIR=$work
if [ -n "$MNT_PORT" ]; then
	export NFS42_MNT_PORT=$MNT_PORT
else
	unset NFS42_MNT_PORT
fi
if [ "$pnfs_ds" -gt 0 ]; then
	export NFS42_DS_COUNT=$pnfs_ds NFS42_DS_PORTS="${ds_ports[*]}"
	NFS42_DS_LOGS=""
	for ((i = 0; i < pnfs_ds; i++)); do
		NFS42_DS_LOGS="$NFS42_DS_LOGS $work/ds$i.log"
	done
	export NFS42_DS_LOGS=${NFS42_DS_LOGS# }
else
	unset NFS42_DS_COUNT NFS42_DS_PORTS NFS42_DS_LOGS
fi
set +e
"$@"
rc=$?
set -e
exit $rc
