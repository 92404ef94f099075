#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_cbgetattr.sh: the host side of guest/cbgetattr.sh (issue #18 item 6,
# patch 0121; delegated timestamps, issue #30 items 1 and 4, patch 0171;
# OPEN_XOR_DELEGATION, item 2, patch 0200). The guest holds a write
# delegation on a file it keeps open;
# our nfs42 stats it (GETATTR of size and change). With tshark on the
# server's port: the guest's OPEN got OPEN_DELEGATE_WRITE, the server sent
# the guest CB_GETATTR, the guest answered NFS4_OK with the size it has,
# and the host saw that size while the data was still only in the
# guest's page cache (the backing file empty, no WRITE yet); the guest
# returned no delegation for it.
. "$(dirname "$0")/lib.sh"
wire_name=linux/cbgetattr # shellcheck disable=SC2034 # wire-lib.sh reads it
. "$LINUX_DIR/../e2e/wire-lib.sh"
LINUX_OUT=$(mktemp -d "${TMPDIR:-/tmp}/linux-test.XXXXXX")
x=$LINUX_OUT/xchg
mkdir -p "$x"
p=$NFS42_EXPORT/cb/f
host() {
	local i
	for ((i = 0; i < 3000; i++)); do
		[ -e "$x/written" ] && break
		sleep 0.1
	done
	stat -c %s "$NFS42_BACKING/cb/f" >"$LINUX_OUT/backing-size" 2>&1
	"$nfs42" -s "$NFS42_HOST" -p "$NFS42_PORT" -t 120 stat "$p" \
		>"$LINUX_OUT/stat.out" 2>&1
	echo $? >"$LINUX_OUT/stat.rc"
	stat -c %s "$NFS42_BACKING/cb/f" >>"$LINUX_OUT/backing-size" 2>&1
	touch "$x/host-asked"
}
# the file, empty and an hour old (guest/cbgetattr.sh says why)
mkdir -p "$NFS42_BACKING/cb"
: >"$NFS42_BACKING/cb/f"
touch -d '-1 hour' "$NFS42_BACKING/cb/f"
wire_start
host &
hpid=$!
rc=0
linux_guest -- guest/cbgetattr.sh || rc=$?
wait $hpid || true
wire_stop
h_check_eq "the host's stat succeeded" "$(cat "$LINUX_OUT/stat.rc" 2>/dev/null)" 0
h_check_eq "the backing file was empty before and after the stat" \
	"$(tr '\n' ' ' <"$LINUX_OUT/backing-size")" "0 0 "
h_check_eq "the host saw the guest's size" \
	"$(sed -n 's/^size: //p' "$LINUX_OUT/stat.out")" 12345
h_check_eq "the backing file holds the guest's data" \
	"$(md5sum <"$NFS42_BACKING/cb/f")" "$(md5sum <"$x/data")"
# OPEN replies with a write delegation with the timestamps
# (OPEN_DELEGATE_WRITE_ATTRS_DELEG, 5: the server advertises
# DELEG_TIMESTAMPS in open_arguments, RFC 9754, issue #30 item 1)
h_check "the guest's OPEN got a write delegation with the timestamps (5)" \
	grep -qx 5 <<<"$(decode -Y "rpc.msgtyp == 1 && nfs.opcode == 18" \
		-T fields -e nfs.open.delegation_type | tr ',' '\n')"
# ... instead of an open stateid: the server advertises OPEN_XOR_DELEGATION
# (RFC 9754 section 4, issue #30 item 2), the guest asks for it and the
# reply's rflags carry OPEN4_RESULT_NO_OPEN_STATEID (0x10)
h_check "the guest's OPEN got its delegation without an open stateid" \
	grep -q . <<<"$(decode -Y "rpc.msgtyp == 1 && nfs.opcode == 18" \
		-T fields -e nfs.open_rflags | tr ',' '\n' |
		while read -r f; do [ -n "$f" ] && (((f & 0x10) != 0)) && echo "$f"; done)"
h_check_eq "the guest sent no CLOSE" \
	"$(decode -Y "rpc.msgtyp == 0 && nfs.opcode == 4" -T fields \
		-e frame.number | wc -l)" 0
# CB_COMPOUND: CB_SEQUENCE (11) then CB_GETATTR (3), called and answered
calls=$(decode -Y "rpc.msgtyp == 0 && nfs.cb.operation == 3" -T fields \
	-e frame.number | wc -l)
h_check_eq "CB_GETATTR sent to the guest" "$calls" 1
h_check_eq "the guest's CB_GETATTR reply: NFS4_OK, its size" \
	"$(decode -Y "rpc.msgtyp == 1 && nfs.cb.operation == 3" -T fields \
		-e nfs.status -e nfs.fattr4.size | head -n 1)" "$(printf '0,0,0\t12345')"
h_check_eq "CB_GETATTR asked for time_deleg_access and _modify (84, 85)" \
	"$(decode -Y "rpc.msgtyp == 0 && nfs.cb.operation == 3" -V |
		grep -cE 'reco_attr: Time_Deleg_(Access \(84\)|Modify \(85\))')" 2
# the times a second client sees are the writer's: the host's mtime is
# the one the guest answered (time_deleg_modify), not the server's clock
host_mtime=$(sed -n 's/^mtime: //p' "$LINUX_OUT/stat.out")
cb_mtime=$(decode -Y "rpc.msgtyp == 1 && nfs.cb.operation == 3" -V |
	awk '/Time_Deleg_Modify \(85\)/ { m = 1; next }
	m && /seconds:/ && !s { s = $2; next }
	m && /nseconds:/ { printf "%s.%09d\n", s, $2; exit }')
h_check_eq "the host saw the mtime the guest answered" \
	"$(date -u -d "$host_mtime" +%s.%N 2>&1)" "$cb_mtime"
# the return: SETATTR of 84/85 with the delegation, then DELEGRETURN, in
# one compound, NFS4_OK; the file keeps the writer's mtime
h_check_eq "the guest's SETATTR of 84/85 before its DELEGRETURN: NFS4_OK" \
	"$(decode -Y "rpc.msgtyp == 1 && nfs.opcode == 8 && nfs.opcode == 34" \
		-T fields -e nfs.status | head -n 1)" "0,0,0,0,0,0"
h_check_eq "the backing file has the mtime the guest answered" \
	"$(stat -c %.9Y "$NFS42_BACKING/cb/f")" "$cb_mtime"
h_check_eq "the guest sees that mtime" "$(cat "$x/guest-mtime")" "$cb_mtime"
h_check_eq "no CB_RECALL" \
	"$(decode -Y "rpc.msgtyp == 0 && nfs.cb.operation == 4" -T fields \
		-e frame.number | wc -l)" 0
cat "$LINUX_OUT/stat.out" 2>/dev/null
h_done $rc
