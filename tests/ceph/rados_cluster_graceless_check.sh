#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# rados_cluster_graceless_check.sh (under harness.sh --ceph with
# SPARSE_RECOVERY_BACKEND=rados_cluster and GRACELESS=true): a
# rados_cluster head started with Graceless = true joins no grace period,
# so it has no recovery object (rec-EPOCH:NODEID) to keep client records
# in.  Clients that establish themselves at once (nothing to wait for)
# must still be served: before patch 0231 the first one's CREATE_SESSION
# stopped the server (SIGSEGV in rados_kv_add_clid, a reference taken on
# the NULL object name).  Now:
# - three clients one after the other, and two at once, list the export
#   and write and read a file; the server is the same process throughout;
# - its log says that their records were not stored (LogCrit), and no
#   rec-* object of this node exists in the test's RADOS namespace.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/tests/check-lib.sh"
nfs42=("$SPARSE_NFS42" -s "$NFS42_HOST" -p "$NFS42_PORT")
pid=$(cat "$NFS42_SERVER_PID_FILE")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check graceless-in-log 0 "skipping GRACE" -- cat "$NFS42_LOG"
for i in 1 2 3; do
	check "client-$i-ls" 0 "" -- "${nfs42[@]}" ls "$NFS42_EXPORT"
done
"${nfs42[@]}" ls "$NFS42_EXPORT" >"$tmp/a" 2>&1 &
a=$!
"${nfs42[@]}" ls "$NFS42_EXPORT" >"$tmp/b" 2>&1 &
b=$!
ok two-clients-at-once wait "$a" "$b"
head -c 100000 /dev/urandom >"$tmp/data"
check put 0 "" -- "${nfs42[@]}" put "$tmp/data" "$NFS42_EXPORT/graceless"
ok get-same-bytes bash -c '"${@:2}" cat "$0" | cmp -s - "$1"' \
	"$NFS42_EXPORT/graceless" "$tmp/data" "${nfs42[@]}"
ok same-server kill -0 "$pid"
check record-not-stored 0 "record of clid [0-9]+ is not stored" -- \
	cat "$NFS42_LOG"
# no recovery object of this node: nothing was written to RADOS
objs=$(rados -c "$NFS42_CEPH_CONF" --id "$NFS42_CEPH_USER" \
	-p "$NFS42_CEPH_POOL" -N "$NFS42_CEPH_NS" ls 2>&1) ||
	{ echo "$objs" >&2; objs=ERROR; }
check no-recovery-object 0 "^none$" -- \
	bash -c 'grep -E "^rec-[0-9a-f]{16}:$1\$" <<<"$0" || echo none' \
	"$objs" "$NFS42_CEPH_NODEID"
check_summary rados_cluster_graceless_check
