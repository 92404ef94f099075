#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# RecoveryBackend = sqlite refuses to start on a database it cannot trust
# or write (issue #9): a server over a good database starts (the control),
# over a corrupt file or in an unwritable directory (made immutable with
# chattr +i; skipped, 77, where that cannot be done) it exits with a
# LogCrit naming the database. Needs SPARSE_STAGE.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/scripts/server-lib.sh"
stage=${SPARSE_STAGE:?SPARSE_STAGE must name the staging prefix}

work=$(mktemp -d "${TMPDIR:-/tmp}/recovery-refuse.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && sparse_stop_server "$pid" 5 || true
	chattr -i "$work/ro" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/export" "$work/recovery" "$work/ro"
EXPORT_DIR=$work/export PSEUDO=/sparse RECOVERY_DIR=$work/recovery
PLUGINS_DIR=$stage/lib/ganesha LOG_LEVEL=EVENT
NFSV4_OPTS="RecoveryBackend = sqlite;"
fail=0

# run NAME EXPECT(start|refuse) [EXTRA_CONF]
run() {
	local name=$1 expect=$2 i
	EXTRA_CONF=${3:-}
	PORT=$(sparse_free_port)
	sparse_write_conf "$work/$name.conf"
	: >"$work/$name.log"
	pid=$(sparse_start_server "$stage" "$work/$name.conf" "$work/$name.log" "$work/$name.pid" $$)
	if [ "$expect" = start ]; then
		if sparse_wait_ready "$pid" "$PORT" "$work/$name.log" 60; then
			echo "ok: $name: started"
		else
			echo "FAIL: $name: did not start"; tail -n 20 "$work/$name.log"; fail=1
		fi
		sparse_stop_server "$pid"; pid=
		return
	fi
	for ((i = 0; i < 600; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "FAIL: $name: server still running over a bad database"
		sparse_stop_server "$pid"; pid=; fail=1; return
	fi
	pid=
	if grep -q "SQLite recovery database refused" "$work/$name.log"; then
		echo "ok: $name: refused: $(grep -m1 "SQLite recovery database refused" "$work/$name.log" | sed 's/.*CRIT ://')"
	else
		echo "FAIL: $name: exited without the expected message"; tail -n 20 "$work/$name.log"; fail=1
	fi
}

# control: a fresh database in the recovery root, then the same again
run good start
[ -f "$work/recovery/sparse_recovery.db" ] || { echo "FAIL: no database file"; fail=1; }
run good-again start

# corrupt: the database file overwritten with garbage
head -c 8192 /dev/urandom >"$work/recovery/sparse_recovery.db"
rm -f "$work/recovery/sparse_recovery.db-wal" "$work/recovery/sparse_recovery.db-shm"
run corrupt refuse

# unwritable: Database_Dir in an immutable directory (root ignores modes)
if ! chattr +i "$work/ro" 2>/dev/null; then
	echo "unwritable case: chattr +i not possible here; skipped"
	[ $fail = 0 ] && exit 77
	exit 1
fi
run unwritable refuse "SQLITE_RECOVERY { Database_Dir = \"$work/ro\"; }"
chattr -i "$work/ro"
exit $fail
