#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# The server without a message bus (the harness without --dbus points
# DBUS_SYSTEM_BUS_ADDRESS at a socket that does not exist, as on a machine
# with no system bus running): Ganesha logs that DBus is unavailable and
# serves anyway; the statistics command says it cannot reach the bus, and
# names it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
stats=$here/../../tools/sparse-stats
nfs42=${SPARSE_NFS42:?}
pid=$(cat "$NFS42_SERVER_PID_FILE")
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

tr '\0' '\n' <"/proc/$pid/environ" | grep -qx "DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS" ||
	bad "server does not have the harness's DBUS_SYSTEM_BUS_ADDRESS"
[ ! -e "${DBUS_SYSTEM_BUS_ADDRESS#unix:path=}" ] || bad "a bus socket exists"
grep -q "dbus_bus_get failed" "$NFS42_LOG" ||
	bad "no 'dbus_bus_get failed' in the server log"
echo hello >"$NFS42_BACKING/f"
out=$("$nfs42" -s "$NFS42_HOST" -p "$NFS42_PORT" cat "$NFS42_EXPORT/f") ||
	bad "READ without a bus failed"
[ "$out" = hello ] || bad "READ without a bus read '$out'"
if out=$("$stats" 1 2>&1); then
	bad "sparse-stats answered without a bus: $out"
else
	grep -qF "sparse-stats: cannot reach the system bus ($DBUS_SYSTEM_BUS_ADDRESS): " <<<"$out" ||
		bad "sparse-stats without a bus: $out"
fi
kill -0 "$pid" || bad "server gone"
[ $fail = 0 ] && echo "nobus_check: ok"
exit $fail
