#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_cbgetattr.sh: the host side of guest/cbgetattr.sh (issue #18 item 6,
# patch 0121). The guest holds a write delegation on a file it keeps open;
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
# OPEN replies with a write delegation (open_delegation_type4 2)
h_check "the guest's OPEN got a write delegation" \
	grep -qx 2 <<<"$(decode -Y "rpc.msgtyp == 1 && nfs.opcode == 18" \
		-T fields -e nfs.open.delegation_type | tr ',' '\n')"
# CB_COMPOUND: CB_SEQUENCE (11) then CB_GETATTR (3), called and answered
calls=$(decode -Y "rpc.msgtyp == 0 && nfs.cb.operation == 3" -T fields \
	-e frame.number | wc -l)
h_check_eq "CB_GETATTR sent to the guest" "$calls" 1
h_check_eq "the guest's CB_GETATTR reply: NFS4_OK, its size" \
	"$(decode -Y "rpc.msgtyp == 1 && nfs.cb.operation == 3" -T fields \
		-e nfs.status -e nfs.fattr4.size | head -n 1)" "$(printf '0,0,0\t12345')"
h_check_eq "no CB_RECALL" \
	"$(decode -Y "rpc.msgtyp == 0 && nfs.cb.operation == 4" -T fields \
		-e frame.number | wc -l)" 0
cat "$LINUX_OUT/stat.out" 2>/dev/null
h_done $rc
