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
# NFS4ERR_NOTSUPP reply on the ext4 export, and a COPY (op 60) call and its
# NFS4_OK reply (nfs42 cp).
set -euo pipefail

nfs42=${SPARSE_NFS42:?}
port=${NFS42_PORT:?}
exp=${NFS42_EXPORT:?}
backing=${NFS42_BACKING:?}
work=$(mktemp -d "${TMPDIR:-/tmp}/nfs-sparse-wire.XXXXXX")
tshark_pid=
cleanup() {
	[ -n "$tshark_pid" ] && kill "$tshark_pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
fail() {
	echo "wire_check: FAIL: $*" >&2
	exit 1
}

if ! command -v tshark >/dev/null; then
	echo "wire_check: tshark is not installed" >&2
	exit 1
fi

# Test data: a 300 KiB random file (several READs at the client's io size
# if that is small, one otherwise) and a few names to list.
head -c 307200 /dev/urandom >"$backing/wire.bin"
for n in alpha beta gamma; do : >"$backing/$n"; done

tshark -i lo -f "tcp port $port" -w "$work/cap.pcapng" -q 2>"$work/tshark.err" &
tshark_pid=$!
for _ in $(seq 100); do
	grep -q "Capturing on" "$work/tshark.err" && break
	sleep 0.1
done
grep -q "Capturing on" "$work/tshark.err" || fail "tshark did not start: $(cat "$work/tshark.err")"
# "Capturing on" can come before packets are really taken: ping until the
# capture file shows one, so the session below is captured from its start.
live=0
for _ in $(seq 50); do
	"$nfs42" ping >/dev/null 2>&1 || true
	if tshark -r "$work/cap.pcapng" -c 1 2>/dev/null | grep -q .; then
		live=1
		break
	fi
	sleep 0.1
done
[ $live = 1 ] || fail "tshark captured nothing on port $port"

"$nfs42" ls "$exp" >"$work/ls.out"
"$nfs42" cat "$exp/wire.bin" -o "$work/wire.out"
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
# let the last frames reach the capture before stopping it
sleep 0.5
kill -INT "$tshark_pid"
wait "$tshark_pid" || true
tshark_pid=

decode() { # tshark read options + fields, rows with a tab between fields
	tshark -r "$work/cap.pcapng" -d "tcp.port==$port,rpc" "$@" 2>/dev/null
}

bad=$(decode -Y '_ws.malformed || _ws.expert.severity >= error' | wc -l)
[ "$bad" -eq 0 ] || fail "$bad malformed or error frames: $(decode -Y '_ws.malformed || _ws.expert.severity >= error' | head -3)"

# Compound op numbers in calls (msgtyp 0): RFC 5661/7862 op codes.
ops=$(decode -Y 'nfs && rpc.msgtyp == 0' -T fields -e nfs.opcode | tr ',' '\n' | sort -un | tr '\n' ' ')
for want in 42 43 53 24 15 26 18 22 25 4 44 57; do
	case " $ops" in *" $want "*) ;; *) fail "no call with op $want on the wire (saw: $ops)" ;; esac
done

# READDIR reply (op 26) must name every backing entry.
names=$(decode -Y 'nfs && rpc.msgtyp == 1 && nfs.opcode == 26' -T fields -e nfs.name | tr ',' '\n')
for n in alpha beta gamma wire.bin; do
	grep -qx "$n" <<<"$names" || fail "READDIR reply lacks '$n' (dissector saw: $(echo $names))"
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
decode -Y 'nfs && rpc.msgtyp == 0 && nfs.opcode == 71' | grep -q . ||
	fail "no CLONE call (op 71) decoded"
clone_reply=$(decode -Y 'nfs && rpc.msgtyp == 1 && nfs.opcode == 71' -T fields -e nfs.opcode -e nfs.nfsstat4)
[ -n "$clone_reply" ] || fail "no CLONE reply (op 71) decoded"
# the last op of the reply is CLONE and the last status is its own
awk -F'\t' '{ n = split($1, op, ","); m = split($2, st, ",")
	if (op[n] == 71 && st[m] == 10004) ok = 1 } END { exit !ok }' <<<"$clone_reply" ||
	fail "CLONE reply is not NFS4ERR_NOTSUPP (opcodes, statuses: $clone_reply)"

# COPY (op 60, RFC 7862 15.2): a call, and a reply whose COPY result is
# NFS4_OK (write_response4 and copy_requirements4 decoded: no malformed
# frame above).
decode -Y 'nfs && rpc.msgtyp == 0 && nfs.opcode == 60' | grep -q . ||
	fail "no COPY call (op 60) decoded"
copy_reply=$(decode -Y 'nfs && rpc.msgtyp == 1 && nfs.opcode == 60' -T fields -e nfs.opcode -e nfs.nfsstat4)
[ -n "$copy_reply" ] || fail "no COPY reply (op 60) decoded"
awk -F'\t' '{ n = split($1, op, ","); m = split($2, st, ",")
	if (op[n] == 60 && st[m] == 0) ok = 1 } END { exit !ok }' <<<"$copy_reply" ||
	fail "COPY reply is not NFS4_OK (opcodes, statuses: $copy_reply)"

frames=$(decode | wc -l)
echo "wire_check: $frames frames decoded by tshark; ops seen: $ops; READ data and READDIR names match"
