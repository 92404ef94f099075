#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# e2e_proto_stats.sh FIXTURE_DIR: the statistics of issues #7/#8 read the way
# an admin reads them (tools/sparse-stats over DBus; run under
# harness.sh --dbus, so the server and this script share a private bus).
# statsfs-setup.sh makes an XFS filesystem with reflink holding two
# exports, /xfs (Export_Id 6) and /xfs2 (Export_Id 7); the harness's own
# export (Export_Id 1) is on ext4, where CLONE is NOTSUPP.
#   - every counter starts at zero; CLONEs count per export, exactly
#     (calls and bytes), export 6 and 7 apart; a failed CLONE (ext4) does
#     not count;
#   - FSAL_SPARSE's copy-engine paths: GetFSALStats refused until FSAL stats
#     are enabled, then the clone path's calls and bytes;
#   - ResetStats zeroes both; an unknown export id is an error.
# Skipped (77) with the fixture's reason where it could not be made.
set -euo pipefail

fixture=${1:?fixture directory}
here=$(cd "$(dirname "$0")" && pwd)
stats=$here/../../tools/sparse-stats
nfs42=${SPARSE_NFS42:?}
if [ -f "$fixture/skip" ]; then
	echo "e2e_proto_stats: skipped: $(cat "$fixture/skip")"
	exit 77
fi
cli() { "$nfs42" -s "$NFS42_HOST" -p "$NFS42_PORT" "$@"; }

fail=0
pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }

# row OP CALLS BYTES [HOLES]: the table line sparse-stats prints
row() {
	if [ $# -eq 4 ]; then
		printf '%-12s %12s %18s %18s' "$@"
	else
		printf '%-12s %12s %18s' "$@"
	fi
}

# expect_export ID RP_CALLS RP_DATA RP_HOLES SYNC_C SYNC_B ASYNC_C ASYNC_B CLONE_C CLONE_B
expect_export() {
	local id=$1 out want
	out=$("$stats" "$id") || { bad "sparse-stats $id failed"; return; }
	want="$(row read_plus "$2" "$3" "$4")
$(row copy_sync "$5" "$6")
$(row copy_async "$7" "$8")
$(row clone "$9" "${10}")"
	if [ "$(sed -n '4,7p' <<<"$out")" = "$want" ]; then
		ok
	else
		bad "export $id: got
$out
want
$want"
	fi
}

# expect_fsal CLONE_C CLONE_B CFR_C CFR_B RW_C RW_B
expect_fsal() {
	local out want
	out=$("$stats" fsal) || { bad "sparse-stats fsal failed"; return; }
	want="$(printf '%-16s %12s %18s' clone "$1" "$2")
$(printf '%-16s %12s %18s' copy_file_range "$3" "$4")
$(printf '%-16s %12s %18s' read/write "$5" "$6")"
	if [ "$(sed -n '4,6p' <<<"$out")" = "$want" ]; then
		ok
	else
		bad "fsal: got
$out
want
$want"
	fi
}

# put LOCALPATH BYTES: a file of BYTES random bytes
put() { head -c "$2" /dev/urandom >"$1"; }

x=$fixture/x
put "$x/a" 65536
put "$x/b" 12288
put "$x/two/c" 8192
put "$NFS42_BACKING/e" 4096
# 8 KiB of data, then a 56 KiB hole to EOF
put "$NFS42_BACKING/rp" 8192
truncate -s 65536 "$NFS42_BACKING/rp"

# 0. the table names the server it was read from: this harness's server,
# its NFS port, its configuration file, the harness's bus
server_pid=$(cat "$NFS42_SERVER_PID_FILE")
out=$("$stats" 1) || bad "sparse-stats 1 failed"
want="server: org.ganesha.nfsd $server_pid, ports ([0-9]+ )*$NFS42_PORT( [0-9]+)*, /[^ ]*\\.conf on the system bus \\($DBUS_SYSTEM_BUS_ADDRESS\\)"
if grep -qxE "$want" <<<"$(head -n 1 <<<"$out")"; then ok; else bad "server line: $(head -n 1 <<<"$out") (want $want)"; fi

# 1. all zero at start, for every export
for id in 1 6 7; do
	expect_export "$id" 0 0 0 0 0 0 0 0 0
done

# 2. CLONEs on export 6 (twice) and 7 (once); one on ext4 that fails
cli cp --clone /xfs/a /xfs/a.1 || bad "clone /xfs/a"
cli cp --clone /xfs/b /xfs/b.1 || bad "clone /xfs/b"
cli cp --clone /xfs2/c /xfs2/c.1 || bad "clone /xfs2/c"
if cli cp --clone /sparse/e /sparse/e.1 2>/dev/null; then
	bad "clone on ext4 succeeded"
fi
expect_export 6 0 0 0 0 0 0 0 2 $((65536 + 12288))
expect_export 7 0 0 0 0 0 0 0 1 8192
expect_export 1 0 0 0 0 0 0 0 0 0

# 3. FSAL_SPARSE's engine paths: refused while FSAL stats are off
if out=$("$stats" fsal 2>&1); then
	bad "GetFSALStats answered with FSAL stats off: $out"
elif grep -q "FSAL stat counting disabled" <<<"$out"; then
	ok
else
	bad "GetFSALStats with FSAL stats off: $out"
fi
"$stats" enable-fsal >/dev/null || bad "enable-fsal"
expect_fsal 3 $((65536 + 12288 + 8192)) 0 0 0 0

# 4. ResetStats zeroes everything; counting goes on afterwards
"$stats" reset >/dev/null || bad "reset"
expect_export 6 0 0 0 0 0 0 0 0 0
expect_export 7 0 0 0 0 0 0 0 0 0
expect_fsal 0 0 0 0 0 0
cli cp --clone /xfs2/c /xfs2/c.2 || bad "clone /xfs2/c again"
expect_export 7 0 0 0 0 0 0 0 1 8192
expect_export 6 0 0 0 0 0 0 0 0 0
expect_fsal 1 8192 0 0 0 0

# 5. a synchronous COPY on ext4 (one reply, copy_file_range path)
cli cp /sparse/e /sparse/e.2 || bad "copy /sparse/e"
expect_export 1 0 0 0 1 4096 0 0 0 0
expect_fsal 1 8192 1 4096 0 0
# and an asynchronous one (counted when it finishes, before CB_OFFLOAD)
cli cp --async /sparse/e /sparse/e.3 || bad "async copy /sparse/e"
expect_export 1 0 0 0 1 4096 1 4096 0 0
expect_fsal 1 8192 2 8192 0 0

# 6. READ_PLUS: one reply, its data bytes and the hole bytes it elided
rp_out=$(mktemp "${TMPDIR:-/tmp}/stats-rp.XXXXXX")
cli cat --read-plus /sparse/rp >"$rp_out" || bad "cat --read-plus"
cmp -s "$rp_out" "$NFS42_BACKING/rp" || bad "cat --read-plus read wrong bytes"
rm -f "$rp_out"
expect_export 1 1 8192 $((65536 - 8192)) 1 4096 1 4096 0 0

# 7. an export id the server does not have
if out=$("$stats" 99 2>&1); then
	bad "export 99 answered: $out"
elif grep -q "Export id not found" <<<"$out"; then
	ok
else
	bad "export 99: $out"
fi

echo "e2e_proto_stats: $pass passed, $fail failed"
[ $fail -eq 0 ]
