#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_delegts.sh: the host side of guest/delegts.sh (issue #30 item 4).
. "$(dirname "$0")/lib.sh"
wire_name=linux/delegts # shellcheck disable=SC2034 # wire-lib.sh reads it
. "$LINUX_DIR/../e2e/wire-lib.sh"
LINUX_OUT=$(mktemp -d "${TMPDIR:-/tmp}/linux-test.XXXXXX")
x=$LINUX_OUT/xchg
mkdir -p "$x"
host() {
	local i
	for ((i = 0; i < 3000; i++)); do
		[ -e "$x/extracted" ] && break
		sleep 0.1
	done
	head -n 3 "$x/files" | while read -r f; do
		"$nfs42" -s "$NFS42_HOST" -p "$NFS42_PORT" -t 120 stat \
			"$NFS42_EXPORT/t/$f" | sed -n "s|^mtime: |$f |p"
	done >"$LINUX_OUT/host-mtimes" 2>&1
	touch "$x/host-stated"
}
wire_start
host &
hpid=$!
rc=0
linux_guest -- guest/delegts.sh || rc=$?
wait $hpid || true
wire_stop
# the times a second client sees are the writer's: tar set each file's
# mtime (a SETATTR under its write delegation, reported in CB_GETATTR)
n=0
while read -r f d t _; do
	want=$(awk -v f="$f" '$1 == f { print $2 }' "$x/mtimes")
	h_check_eq "the host saw tar's mtime of $f" "$(date -u -d "$d $t" +%s)" "$want"
	n=$((n + 1))
done <"$LINUX_OUT/host-mtimes"
h_check_eq "the host stat-ed 3 files" $n 3
# ... and every file keeps it after the returns (the guest unmounted)
bad=0
while read -r f want; do
	[ "$(stat -c %Y "$NFS42_BACKING/t/$f")" = "$want" ] || bad=$((bad + 1))
done <"$x/mtimes"
h_check_eq "every extracted file has tar's mtime on the server" $bad 0
files=$(wc -l <"$x/files")
# OPEN_XOR_DELEGATION used: OPEN replies without an open stateid
# (OPEN4_RESULT_NO_OPEN_STATEID, 0x10), at least one per file of tar -x
xor=$(decode -Y "rpc.msgtyp == 1 && nfs.opcode == 18" -T fields \
	-e nfs.open_rflags | tr ',' '\n' |
	while read -r f; do
		if [ -n "$f" ] && (((f & 0x10) != 0)); then echo "$f"; fi
	done | wc -l)
h_check_ge "OPENs answered without an open stateid" "$xor" "$files"
# delegated timestamps granted: OPEN_DELEGATE_WRITE_ATTRS_DELEG (5) for
# every file tar and cp created; no read delegation with them (4)
types=$(decode -Y "rpc.msgtyp == 1 && nfs.opcode == 18" -T fields \
	-e nfs.open.delegation_type | tr ',' '\n')
h_check_ge "write delegations with the timestamps" "$(grep -cx 5 <<<"$types" || true)" $((2 * files))
h_check_eq "no read delegation with the timestamps" "$(grep -cx 4 <<<"$types" || true)" 0
h_check_ge "CB_GETATTR asked for time_deleg_modify" \
	"$(decode -Y "rpc.msgtyp == 0 && nfs.cb.operation == 3" -V |
		grep -c 'reco_attr: Time_Deleg_Modify (85)' || true)" 3
cat "$LINUX_OUT/host-mtimes"
h_done $rc
