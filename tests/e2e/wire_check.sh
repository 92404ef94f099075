#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# Independent wire check, run under harness.sh: capture a client session
# with tshark on the test port and have Wireshark's own RPC/NFS dissector
# decode it. It must find no malformed or error-level frames, the NFSv4.1
# session ops, a READDIR reply naming the backing directory's entries, READ
# replies whose data is byte-identical to the backing file,
# NFS4ERR_NOENT for a missing name, a CLONE (op 71) call and its
# NFS4ERR_NOTSUPP reply on the ext4 export, a COPY (op 60) call and its
# NFS4_OK reply (nfs42 cp), and an asynchronous COPY whose CB_OFFLOAD
# (callback op 15) call and reply are decoded (nfs42 cp --async).
set -euo pipefail

wire_name=wire_check # used by wire-lib.sh
# shellcheck source=tests/e2e/wire-lib.sh
. "$(dirname "$0")/wire-lib.sh"

# Test data: a 300 KiB random file (several READs at the client's io size
# if that is small, one otherwise) and a few names to list.
head -c 307200 /dev/urandom >"$backing/wire.bin"
for n in alpha beta gamma; do : >"$backing/$n"; done

wire_start
"$nfs42" ls "$exp" >"$work/ls.out"
"$nfs42" cat --plain-read "$exp/wire.bin" -o "$work/wire.out"
rc=0
"$nfs42" stat "$exp/no-such-name" >/dev/null 2>&1 || rc=$?
[ $rc -eq 1 ] || fail "stat of a missing name exited $rc, want 1"
# CLONE on the harness's ext4 export: NFS4ERR_NOTSUPP, exit 1.
rc=0
"$nfs42" cp --clone "$exp/wire.bin" "$exp/wire.clone" 2>"$work/clone.err" || rc=$?
if [ $rc -ne 1 ] || ! grep -q NFS4ERR_NOTSUPP "$work/clone.err"; then
	fail "cp --clone exited $rc, want 1 with NFS4ERR_NOTSUPP: $(cat "$work/clone.err")"
fi
# COPY (server-side, synchronous) on the same export: NFS4_OK.
"$nfs42" cp "$exp/wire.bin" "$exp/wire.copy" 2>"$work/copy.err" ||
	fail "cp exited $?: $(cat "$work/copy.err")"
! grep -q "through the client" "$work/copy.err" ||
	fail "cp copied through the client: $(cat "$work/copy.err")"
cmp -s "$backing/wire.copy" "$backing/wire.bin" || fail "cp's copy differs from the source"
# Asynchronous COPY: COPY (60) with ca_synchronous false, OFFLOAD_STATUS
# (67) and the server's CB_OFFLOAD (callback op 15) on the back channel.
"$nfs42" cp --async "$exp/wire.bin" "$exp/wire.async" 2>"$work/async.err" ||
	fail "cp --async failed: $(cat "$work/async.err")"
cmp -s "$backing/wire.async" "$backing/wire.bin" || fail "cp --async copy differs"
wire_stop

wire_no_errors
# Compound op numbers in calls (msgtyp 0): RFC 5661/7862 op codes.
ops=$(decode -Y 'nfs && rpc.msgtyp == 0' -T fields -e nfs.opcode | tr ',' '\n' | sort -un | tr '\n' ' ')
for want in 42 43 53 24 15 26 18 22 25 4 44 57; do
	case " $ops" in *" $want "*) ;; *) fail "no call with op $want on the wire (saw: $ops)" ;; esac
done

# READDIR reply (op 26) must name every backing entry.
names=$(decode -Y 'nfs && rpc.msgtyp == 1 && nfs.opcode == 26' -T fields -e nfs.name | tr ',' '\n')
for n in alpha beta gamma wire.bin; do
	grep -qx "$n" <<<"$names" || fail "READDIR reply lacks '$n' (dissector saw: $(tr '\n' ' ' <<<"$names"))"
done

# READ replies (op 25): the dissected data, in frame order, is the file.
decode -Y 'nfs && rpc.msgtyp == 1 && nfs.opcode == 25' -T fields -e nfs.data |
	tr -d ':\n' | perl -ne 'print pack("H*", $_)' >"$work/wire.dissected"
cmp -s "$work/wire.dissected" "$backing/wire.bin" ||
	fail "READ data dissected from the wire ($(stat -c %s "$work/wire.dissected") bytes) differs from the backing file"
cmp -s "$work/wire.out" "$backing/wire.bin" || fail "client's copy differs from the backing file"

# The missing name: some reply carries NFS4ERR_NOENT (2).
decode -Y 'nfs && rpc.msgtyp == 1 && nfs.nfsstat4 == 2' | grep -q . ||
	fail "no NFS4ERR_NOENT reply for the missing name"

# CLONE (op 71, RFC 7862 15.13): a call, and a reply whose CLONE result
# is NFS4ERR_NOTSUPP (10004); tshark 4.0 dissects op 71.
wire_op_call 71
wire_op_reply 71 10004

# COPY (op 60, RFC 7862 15.2): a call, and a reply whose COPY result is
# NFS4_OK (write_response4 and copy_requirements4 decoded: no malformed
# frame above).
wire_op_call 60
wire_op_reply 60 0
# CB_OFFLOAD (RFC 7862 16.1) of the cp --async: the server's callback
# call and the client's reply decoded.
decode -Y 'rpc.msgtyp == 0 && nfs.cb.operation == 15' | grep -q . ||
	fail "no CB_OFFLOAD call (callback op 15) decoded"
decode -Y 'rpc.msgtyp == 1 && nfs.cb.operation == 15' | grep -q . ||
	fail "no CB_OFFLOAD reply decoded"

frames=$(decode | wc -l)
echo "wire_check: $frames frames decoded by tshark; ops seen: $ops; READ data and READDIR names match"
