#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# tools/sparse-stats without a server: its usage (--help on stdout, exit 0,
# every command listed; no argument: exit 2), what it says with no bus and
# with no server on the bus (a private dbus-daemon), and when a reply is a
# refusal, with or without a reason. Then dbus-send is a stand-in on PATH
# that prints the reply named by $FAKE_REPLY, as dbus-send --print-reply
# would.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
stats=$here/../../tools/sparse-stats
fake=$(mktemp -d "${TMPDIR:-/tmp}/sparse-stats-check.XXXXXX")
trap 'rm -rf "$fake"' EXIT
cat >"$fake/dbus-send" <<'FAKE'
#!/bin/sh
echo "method return time=1 sender=:1.0 -> destination=:1.1 serial=2 reply_serial=2"
case "$FAKE_REPLY" in
refused) printf '   boolean false\n   string "Export id not found"\n' ;;
no-reason) printf '   boolean false\n' ;;
empty-reason) printf '   boolean false\n   string ""\n' ;;
esac
FAKE
chmod +x "$fake/dbus-send"

. "$here/../check-lib.sh"

check help-exits-0 0 "sparse-stats reset +zero all statistics" -- "$stats" --help
check help-on-stdout 0 "sparse-stats fsal" -- bash -c "'$stats' --help 2>/dev/null"
check no-argument 2 "sparse-stats EXPORT_ID" -- "$stats"
check bad-id 2 "bad export id 'x'" -- "$stats" x
# no bus, and a bus without the server (issue #28 item 5: it said "not
# provided by any .service files"): the real dbus-send, a private bus
check no-bus 1 "^sparse-stats: GetSparseStats: no system bus to reach the server on \(unix:path=$fake/none\): No such file or directory$" -- \
	env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$fake/none" "$stats" 1
bus=$(dbus-daemon --session --fork --nopidfile --print-address=1 --print-pid=1 \
	--address="unix:path=$fake/bus")
trap 'kill "$(sed -n 2p <<<"$bus")"; rm -rf "$fake"' EXIT
check no-server 1 "^sparse-stats: GetSparseStats: no NFS-Ganesha server on the system bus: nothing owns org.ganesha.nfsd \(is ganesha.nfsd running, built with DBus\?\)$" -- \
	env DBUS_SYSTEM_BUS_ADDRESS="$(sed -n 1p <<<"$bus")" "$stats" 1
export PATH="$fake:$PATH"
check refused 1 "^sparse-stats: export 9: server says: Export id not found$" -- \
	env FAKE_REPLY=refused "$stats" 9
check no-reason 1 "^sparse-stats: export 9: the server refused it and gave no reason$" -- \
	env FAKE_REPLY=no-reason "$stats" 9
check empty-reason 1 "^sparse-stats: reset: the server refused it and gave no reason$" -- \
	env FAKE_REPLY=empty-reason "$stats" reset

check_summary sparse_stats_check
