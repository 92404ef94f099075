#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# tools/sparse-stats without a server: its usage (--help on stdout, exit 0,
# every command listed; no argument: exit 2); on a real private bus where
# nobody owns org.ganesha.nfsd, and with no bus at all, it names the bus
# and what is missing there (not dbus-send's "not provided by any
# .service files"); then what it says when a reply is a refusal, with or
# without a reason: dbus-send is a stand-in on PATH that prints the reply
# named by $FAKE_REPLY, as dbus-send --print-reply would.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
stats=$here/../../tools/sparse-stats
fake=$(mktemp -d "${TMPDIR:-/tmp}/sparse-stats-check.XXXXXX")
trap 'rm -rf "$fake"' EXIT
cat >"$fake/dbus-send" <<'FAKE'
#!/bin/sh
echo "method return time=1 sender=:1.0 -> destination=:1.1 serial=2 reply_serial=2"
case "$*" in
*GetConnectionUnixProcessID*) echo "   uint32 $$"; exit 0 ;;
esac
case "$FAKE_REPLY" in
refused) printf '   boolean false\n   string "Export id not found"\n' ;;
no-reason) printf '   boolean false\n' ;;
empty-reason) printf '   boolean false\n   string ""\n' ;;
esac
FAKE
chmod +x "$fake/dbus-send"

. "$here/../check-lib.sh"
. "$here/../../scripts/server-lib.sh"

check help-exits-0 0 "^  reset +zero all statistics" -- "$stats" --help
check help-on-stdout 0 "^usage: sparse-stats \[--bus ADDRESS\]" -- bash -c "'$stats' --help 2>/dev/null"
check no-argument 2 "^  EXPORT_ID\.\.\. " -- "$stats"
check bad-id 2 "bad export id 'x'" -- "$stats" x
check bad-prefix 2 "bad --prefix 'a.b'" -- "$stats" --prefix a.b 1

# A bus nobody serves on, and no bus at all: the bus is named
check no-bus 1 "^sparse-stats: cannot reach the system bus \\(unix:path=$fake/none\\): .*Failed to connect" -- \
	env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$fake/none" "$stats" 1
if command -v dbus-daemon >/dev/null; then
	addr=$(sparse_start_dbus "$fake" $$)
	check no-server 1 "^sparse-stats: no ganesha.nfsd on the system bus \\($addr\\): nobody owns org.ganesha.nfsd there" -- \
		env DBUS_SYSTEM_BUS_ADDRESS="$addr" "$stats" 1
	check no-server-bus 1 "^sparse-stats: no ganesha.nfsd on the bus $addr: nobody owns org.ganesha.nfsd there" -- \
		"$stats" --bus "$fake/dbus.sock" fsal
	check no-server-prefix 1 "nobody owns ds1.org.ganesha.nfsd there" -- \
		"$stats" --bus "$addr" --prefix ds1 server
	check no-dbus-send-jargon 1 "" -- bash -c "'$stats' --bus '$addr' 1 2>&1 | grep 'service files'"
	sparse_stop_server "$(cat "$fake/dbus.pid")" 5
else
	echo "sparse_stats_check: dbus-daemon missing: the private-bus cases not checked"
fi

export PATH="$fake:$PATH"
check names-server 0 "^server: org.ganesha.nfsd [0-9]+ on the system bus" -- \
	env FAKE_REPLY=refused "$stats" server
check refused 1 "^sparse-stats: export 9: server says: Export id not found$" -- \
	env FAKE_REPLY=refused "$stats" 9
check no-reason 1 "^sparse-stats: export 9: the server refused it and gave no reason$" -- \
	env FAKE_REPLY=no-reason "$stats" 9
check empty-reason 1 "^sparse-stats: reset: the server refused it and gave no reason$" -- \
	env FAKE_REPLY=empty-reason "$stats" reset

check_summary sparse_stats_check
