#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# rados_url_check.sh (under harness.sh --ceph --rados-conf TEXT, TEXT an
# EXPORT block, Export_Id 2, Pseudo /fromrados, over the test's CephFS
# directory): Ganesha's configuration kept in RADOS, as Ceph's NFS service
# keeps it (%url rados://..., RADOS_URLS watch_url):
# - the export defined only in the RADOS object is served: a file written
#   through it is in the CephFS directory, one written there is read;
# - the object rewritten with a second export (Export_Id 3, /fromrados3)
#   and the watch object notified: the server reloads and serves it
#   within 20 s, without a restart (same PID); the object rewritten
#   without it and notified again: /fromrados3 is gone.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
nfs42=${SPARSE_NFS42:?}
. "$repo/tests/check-lib.sh"
n=("$nfs42" -p "$NFS42_PORT")
back=$NFS42_BACKING
r=(timeout 60 rados -c "$NFS42_CEPH_CONF" -n "client.$NFS42_CEPH_USER"
	-p "$NFS42_CEPH_POOL" -N "$NFS42_CEPH_NS")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rados-url.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pid=$(cat "$NFS42_SERVER_PID_FILE")

# poll CMD... for up to 20 s until it exits 0; 1 if it never does
within_20s() {
	local i
	for i in $(seq 1 100); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	return 1
}

echo "from cephfs" >"$back/seen"
check served-from-rados-conf 0 "^from cephfs$" -- "${n[@]}" cat /fromrados/seen
echo "through nfs" >"$tmp/up"
check put 0 "" -- "${n[@]}" put "$tmp/up" /fromrados/up
check put-in-cephfs 0 "^through nfs$" -- cat "$back/up"

# a second export, added in RADOS and announced through the watch object
"${r[@]}" get "$NFS42_CEPH_URL_OBJ" "$tmp/conf"
cp "$tmp/conf" "$tmp/conf.orig"
sed 's/Export_Id = 2;/Export_Id = 3;/; s|/fromrados"|/fromrados3"|' "$tmp/conf.orig" >>"$tmp/conf"
check export3-not-yet 1 "NFS4ERR_NOENT" -- "${n[@]}" ls /fromrados3
"${r[@]}" put "$NFS42_CEPH_URL_OBJ" "$tmp/conf"
"${r[@]}" notify "$NFS42_CEPH_WATCH_OBJ" reload >/dev/null
check export3-after-notify 0 "" -- within_20s "${n[@]}" cat /fromrados3/seen
check export3-serves 0 "^from cephfs$" -- "${n[@]}" cat /fromrados3/seen
check same-server 0 "" -- test "$(cat "$NFS42_SERVER_PID_FILE")" = "$pid"
"${r[@]}" put "$NFS42_CEPH_URL_OBJ" "$tmp/conf.orig"
"${r[@]}" notify "$NFS42_CEPH_WATCH_OBJ" reload >/dev/null
export3_gone() {
	! "${n[@]}" cat /fromrados3/seen
}
check export3-removed 0 "" -- within_20s export3_gone
check export3-noent 1 "NFS4ERR_NOENT" -- "${n[@]}" ls /fromrados3
check export2-still 0 "^from cephfs$" -- "${n[@]}" cat /fromrados/seen
check_summary rados_url_check
