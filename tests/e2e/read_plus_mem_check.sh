#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# READ_PLUS on an FSAL with neither a read_plus slot nor seek2 (FSAL_MEM,
# run under harness.sh --fsal MEM): one data segment with READ's bytes
# (FSAL_MEM keeps no data and reads back 'a's), never NFS4ERR_NOTSUPP, and
# the default seek2's critical log line at most once (asked once per
# export).
set -eu
N=${SPARSE_NFS42:?}
P=${NFS42_PORT:?}
E=${NFS42_EXPORT:?}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

head -c 300001 /dev/urandom >"$t/src"
"$N" -p "$P" put "$t/src" "$E/x"
"$N" -p "$P" cat "$E/x" >"$t/read"
for _ in 1 2 3; do
	"$N" -p "$P" cat --read-plus "$E/x" >"$t/rp" 2>"$t/err"
	[ ! -s "$t/err" ] || { echo "cat --read-plus: $(cat "$t/err")"; exit 1; }
	cmp "$t/rp" "$t/read" || { echo "READ_PLUS differs from READ"; exit 1; }
done
map=$("$N" -p "$P" map "$E/x")
[ "$map" = "0 300001 data" ] || { echo "map: $map"; exit 1; }
n=$(grep -c "Invoking unsupported FSAL operation" "$NFS42_LOG" || true)
[ "$n" -le 1 ] || { echo "seek2 asked $n times"; exit 1; }
echo "read_plus_mem_check: ok"
