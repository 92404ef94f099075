# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# Sourced by every tests/linux guest script (vm.sh does it first, in the
# guest, with NFS_SERVER, NFS_PORT, NFS_EXPORT, XCHG set).
set -euo pipefail

# ok, bad, check, check_eq, check_ge (vm.sh copies checks.sh along)
. /run/xchg/checks.sh

# g_done: the script's end; exit status 1 when any check failed
g_done() {
	if [ $CHECK_FAILS -ne 0 ]; then
		echo "guest: $CHECK_FAILS check(s) failed"
		exit 1
	fi
	echo "guest: all checks passed"
	exit 0
}

# wait_for FILE SECONDS: until the host has written FILE
wait_for() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "$XCHG/$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# nfs_mount VERS DIR [EXTRA_OPTS]: mount the server's export (EXPORT, else
# NFS_EXPORT)
# on DIR with vers=VERS (4.2, 4.1, 4.0; 3 with NFS_MOUNTPORT), hard, with
# the kernel's own option parser (there is no mount.nfs on this machine:
# addr= is given). An NFSv4.0 client's callback address is 127.0.0.1, so
# a server probing it can only reach the loopback.
nfs_mount() {
	local vers=$1 dir=$2 extra=${3:-} type=nfs4 opts
	opts="vers=$vers,port=$NFS_PORT,addr=$NFS_SERVER,hard,timeo=100"
	case "$vers" in
	4.0 | 4) opts="$opts,clientaddr=127.0.0.1" ;;
	3)
		type=nfs
		opts="$opts,mountport=${NFS_MOUNTPORT:?},mountaddr=$NFS_SERVER,mountproto=tcp,proto=tcp,nolock"
		;;
	esac
	[ -n "$extra" ] && opts="$opts,$extra"
	mkdir -p "$dir"
	# NFSv3's MOUNT takes the export's path, NFSv4 its pseudo path
	local path=${EXPORT:-$NFS_EXPORT}
	[ "$type" = nfs ] && path=${EXPORT:-$NFS_BACKING}
	mount -i -t "$type" -o "$opts" "$NFS_SERVER:$path" "$dir"
}

# remount VERS DIR [EXTRA_OPTS]: unmount and mount again (nothing cached)
remount() {
	umount "$2"
	nfs_mount "$@"
}

# ops_delta DIR OP CMD...: run CMD, print how many OP calls it made
# (stderr keeps CMD's output)
ops_delta() {
	local dir=$1 op=$2 before
	shift 2
	before=$(mstat_ops "$dir" "$op")
	"$@" >&2
	echo $(($(mstat_ops "$dir" "$op") - before))
}

# mstats DIR: the /proc/self/mountstats section of the mount on DIR
mstats() {
	awk -v d="$1" '
		/^device / { on = ($5 == d) }
		on { print }' /proc/self/mountstats
}

# mstat_ops DIR OP: how many OP calls the mount on DIR has made
# mstat_bytes DIR OP: the bytes those calls sent plus received
# mstat_field DIR OP N: field N (1 ops, 2 transmissions, 3 timeouts,
#   4 bytes sent, 5 bytes received, ... 9 errors) of OP's line
mstat_field() {
	mstats "$1" | awk -v op="$2:" -v n="$3" '
		$1 == op { v = $(n + 1) } END { print v + 0 }'
}
mstat_ops() { mstat_field "$1" "$2" 1; }
mstat_bytes() {
	echo $(($(mstat_field "$1" "$2" 4) + $(mstat_field "$1" "$2" 5)))
}
# mstat_all DIR: "OP calls" for every op used, one a line
mstat_all() {
	mstats "$1" | awk '/per-op statistics/ { on = 1; next }
		on && NF >= 10 && $2 > 0 { sub(":", "", $1); print $1, $2 }'
}
