#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_state.sh WHAT: the host side of guest/state.sh (deleg, locks): our
# nfs42 client writes the file the guest holds a read delegation on, and
# linux_lock holds a write lock the guest's flock/fcntl run into.
. "$(dirname "$0")/lib.sh"
what=${1:-deleg,locks}
nfs42=${SPARSE_NFS42:?}
lockbin=${SPARSE_LINUX_LOCK:?}
LINUX_OUT=$(mktemp -d "${TMPDIR:-/tmp}/linux-test.XXXXXX")
x=$LINUX_OUT/xchg
mkdir -p "$x"
p=$NFS42_EXPORT/state
# host WHAT: in the background while the guest runs
host() {
	local i
	wait_file() {
		for ((i = 0; i < 3000; i++)); do
			[ -e "$x/$1" ] && return 0
			sleep 0.1
		done
		return 1
	}
	case ",$what," in *,deleg,*)
		wait_file deleg-opened || return 1
		echo two >"$LINUX_OUT/two"
		"$nfs42" -s "$NFS42_HOST" -p "$NFS42_PORT" -t 120 put "$LINUX_OUT/two" "$p/d" \
			>"$LINUX_OUT/put.log" 2>&1
		echo $? >"$LINUX_OUT/put.rc"
		touch "$x/deleg-written"
		;;
	esac
	case ",$what," in *,locks,*)
		wait_file lock-file || return 1
		NFS42_HOST=$NFS42_HOST NFS42_PORT=$NFS42_PORT "$lockbin" "$p/l" 0 100 \
			"$x/lock-release" >"$LINUX_OUT/lock.out" 2>"$LINUX_OUT/lock.err" &
		for ((i = 0; i < 600; i++)); do
			grep -q . "$LINUX_OUT/lock.out" 2>/dev/null && break
			sleep 0.1
		done
		grep -q granted "$LINUX_OUT/lock.out" && touch "$x/lock-held"
		wait
		;;
	esac
}
host &
hpid=$!
rc=0
linux_guest -- guest/state.sh "$what" || rc=$?
touch "$x/lock-release"
wait $hpid || true
case ",$what," in *,deleg,*)
	h_check_eq "deleg: the host's write succeeded" "$(cat "$LINUX_OUT/put.rc" 2>/dev/null)" 0
	h_check_eq "deleg: the backing file holds the host's data" "$(cat "$NFS42_BACKING/state/d")" two
	;;
esac
case ",$what," in *,locks,*)
	h_check_eq "locks: the host's lock" "$(tr '\n' ' ' <"$LINUX_OUT/lock.out" 2>/dev/null)" "granted released "
	;;
esac
h_done $rc
