#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# An FSAL_SPARSE export whose root holds a malformed handle key
# (trusted.nfs_sparse.handle_key of the wrong length: a restore, a tool,
# damage) is refused, with a CRIT line naming the export, and the key is
# left as found (issue #27 item 5): replacing it would turn every handle
# clients hold stale and switch the export's handle format, silently.
# Control: a fresh export makes a 16-byte key and a second start keeps
# it; after the admin removes the malformed key a new one is made.
# Needs root (trusted xattrs), SPARSE_STAGE and SPARSE_NFS42.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/scripts/server-lib.sh"
stage=${SPARSE_STAGE:?SPARSE_STAGE must name the staging prefix}
nfs42=${SPARSE_NFS42:?SPARSE_NFS42 must name the nfs42 client}
[ "$(id -u)" = 0 ] || { echo "needs root (trusted xattrs); skipped"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/handle-key.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && sparse_stop_server "$pid" 5 || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/export" "$work/recovery"
EXPORT_DIR=$work/export PSEUDO=/sparse RECOVERY_DIR=$work/recovery
PLUGINS_DIR=$stage/lib/ganesha LOG_LEVEL=EVENT
key=trusted.nfs_sparse.handle_key fmt=trusted.nfs_sparse.handle_format
fail=0
echo data >"$work/export/file"

xattr_hex() {
	getfattr --absolute-names -e hex -n "$1" "$work/export" 2>/dev/null |
		sed -n "s/^$1=//p" || true
}

# run NAME: start a server over the export; leaves it running in $pid
run() {
	local name=$1
	PORT=$(sparse_free_port)
	sparse_write_conf "$work/$name.conf"
	: >"$work/$name.log"
	pid=$(sparse_start_server "$stage" "$work/$name.conf" "$work/$name.log" "$work/$name.pid" $$)
	if ! sparse_wait_ready "$pid" "$PORT" "$work/$name.log" 60; then
		echo "FAIL: $name: server did not start"; sparse_log_errors "$work/$name.log"
		exit 1
	fi
}
stop() { sparse_stop_server "$pid"; pid=; }
served() { "$nfs42" -p "$PORT" cat /sparse/file >/dev/null 2>&1; }

# control: a fresh export makes its key; a restart keeps it
run fresh
served || { echo "FAIL: fresh: export not served"; fail=1; }
good=$(xattr_hex "$key")
[ ${#good} = 34 ] || { echo "FAIL: fresh: key $good is not 16 bytes"; fail=1; }
stop
run again
served || { echo "FAIL: again: export not served"; fail=1; }
[ "$(xattr_hex "$key")" = "$good" ] || { echo "FAIL: again: key changed"; fail=1; }
stop
echo "ok: a fresh export made a 16-byte key, kept across a restart"

# malformed: too short (5 bytes), then too long (40 bytes: ERANGE), on an
# export from before compact handles (no format mark)
setfattr -x "$fmt" "$work/export"
for bad in 0x0102030405 0x$(printf '%080d' 7); do
	setfattr -n "$key" -v "$bad" "$work/export"
	fmt_before=$(xattr_hex "$fmt")
	run "bad-${#bad}"
	log=$work/bad-${#bad}.log
	if served; then
		echo "FAIL: key $bad: the export is served"; fail=1
	else
		echo "ok: key $bad: the export is not served"
	fi
	if grep -q "export $work/export refused: its handle key $key is malformed" "$log"; then
		echo "ok: key $bad: $(grep -m1 "is malformed" "$log" | sed 's/.*CRIT :FSAL_SPARSE: //' | cut -c1-120)..."
	else
		echo "FAIL: key $bad: no CRIT naming the export"; grep -E "FSAL|handle" "$log" | tail -5; fail=1
	fi
	[ "$(xattr_hex "$key")" = "$bad" ] || { echo "FAIL: key $bad was replaced by $(xattr_hex "$key")"; fail=1; }
	[ "$(xattr_hex "$fmt")" = "$fmt_before" ] || { echo "FAIL: key $bad: the format mark changed"; fail=1; }
	stop
done

# the admin removes it: a new key is made
setfattr -x "$key" "$work/export"
run removed
served || { echo "FAIL: removed: export not served"; fail=1; }
new=$(xattr_hex "$key")
[ ${#new} = 34 ] && [ "$new" != "$good" ] || { echo "FAIL: removed: key $new"; fail=1; }
stop
echo "ok: with the key removed a new one is made"
exit $fail
