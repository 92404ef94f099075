#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_restart.sh: the host side of guest/restart.sh. Once the guest has
# fsynced some records, the server is killed with SIGKILL and started
# again (with its grace period; the recovery backend the harness was
# given, sqlite in CI). The hard mount must recover by itself, reclaim
# its open and its lock in the grace period (afterwards our own client
# cannot take the guest's lock), and every record the guest had fsynced
# before the kill must be in the backing file.
# LINUX_LOSE_RECORDS=1 empties the recovery directory before the start
# (a backend that lost its records): then the reclaim is refused and the
# lock check fails, which is how this test was seen failing.
. "$(dirname "$0")/lib.sh"
lockbin=${SPARSE_LINUX_LOCK:?}
LINUX_OUT=$(mktemp -d "${TMPDIR:-/tmp}/linux-test.XXXXXX")
x=$LINUX_OUT/xchg
mkdir -p "$x"
work=$(dirname "$NFS42_LOG")
wait_file() { # FILE SECONDS
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
host() {
	wait_file "$x/locked" 300 || return 1
	# a few records fsynced, then kill -9 in the middle of the loop
	for ((i = 0; i < 3000; i++)); do
		[ "$(cat "$x/fsynced" 2>/dev/null || echo 0)" -ge 10 ] && break
		sleep 0.1
	done
	"$NFS42_SERVER_CTL" kill9
	cat "$x/fsynced" >"$LINUX_OUT/fsynced-at-kill"
	echo "host: server killed after record $(cat "$LINUX_OUT/fsynced-at-kill")"
	sleep 2
	if [ "${LINUX_LOSE_RECORDS:-0}" = 1 ]; then
		echo "host: emptying the recovery directory (records lost)"
		find "$work/recovery" -mindepth 1 -delete
	fi
	"$NFS42_SERVER_CTL" start
	echo "host: server started again"
	touch "$x/restarted"
	wait_file "$x/loop-done" 900 || return 1
	# the guest's flock (a whole-file write lock) must have been
	# reclaimed: our client is refused
	NFS42_HOST=$NFS42_HOST NFS42_PORT=$NFS42_PORT "$lockbin" -r 5 \
		"$NFS42_EXPORT/restart/lock" 0 0 "$x/lock-checked" \
		>"$LINUX_OUT/lock.out" 2>"$LINUX_OUT/lock.err" &
	local lp=$!
	sleep 8
	touch "$x/lock-checked"
	wait $lp
}
host &
hpid=$!
rc=0
linux_guest --timeout 1200 -- guest/restart.sh 20 || rc=$?
touch "$x/lock-checked" "$x/restarted"
wait $hpid || true
h_check_eq "the guest's lock survived the restart: our client is refused" \
	"$(head -n 1 "$LINUX_OUT/lock.out" 2>/dev/null)" denied
k=$(cat "$LINUX_OUT/fsynced-at-kill" 2>/dev/null || echo 0)
h_check "the server was killed mid-loop (after record $k)" test "$k" -ge 10
missing=0
for ((j = 1; j <= k; j++)); do
	got=$(dd if="$NFS42_BACKING/restart/log" bs=4096 skip=$((j - 1)) count=1 status=none | head -n 1)
	[ "$got" = "$(printf 'record %08d' $j)" ] || missing=$((missing + 1))
done
h_check_eq "records fsynced before the kill missing from the backing file" $missing 0
h_check "the loop went on after the restart ($(cat "$x/records" 2>/dev/null) records)" \
	test "$(cat "$x/records" 2>/dev/null || echo 0)" -ge $((k + 20))
grep -E "NFS Server Now IN GRACE|NFS Server Now NOT IN GRACE" "$NFS42_LOG" | tail -n 3 || true
h_done $rc
