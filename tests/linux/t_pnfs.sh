#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_pnfs.sh: guest/pnfs.sh on an NFSv4.2 mount of the metadata server of
# harness.sh --pnfs 2; then on the host: the file the guest wrote is in the
# backing store byte for byte, and each data server process moved its half
# of the file: /proc/PID/io wchar and rchar (as e2e_pnfs_io checks) each
# grew by at least 45 % of the file's size (received from the socket and
# written to the file, sent to the socket). Issue #26 item 9: with tshark
# on the metadata server's port, a LAYOUTGET of the guest carried a layout
# stateid (one a LAYOUTGET had answered), the file both of the guest's
# mounts wrote is in the backing store as the guest read it, and the
# metadata server and both data servers are still running.
. "$(dirname "$0")/lib.sh"
# shellcheck disable=SC2034 # wire-lib.sh reads it
wire_name=linux/pnfs
. "$LINUX_DIR/../e2e/wire-lib.sh"

ds_io_mark
export GUEST_DS_PORTS=$NFS42_DS_PORTS
LINUX_OUT=$(mktemp -d "${TMPDIR:-/tmp}/linux-test.XXXXXX")
x=$LINUX_OUT/xchg
mkdir -p "$x"
# recall: once the guest holds the file open with a layout, truncate it
host() {
	local i t0 t1
	for ((i = 0; i < 3000; i++)); do
		[ -e "$x/pnfs-held" ] && break
		sleep 0.1
	done
	[ -e "$x/pnfs-held" ] || return 1
	t0=$(date +%s.%N)
	"${SPARSE_NFS42:?}" -s "$NFS42_HOST" -p "$NFS42_PORT" -t 120 truncate \
		"$NFS42_EXPORT/pnfs/file" $((4 << 20)) >"$LINUX_OUT/trunc.log" 2>&1
	echo $? >"$LINUX_OUT/trunc.rc"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$LINUX_OUT/trunc.s"
	touch "$x/pnfs-truncated"
}
wire_start
host &
hpid=$!
rc=0
linux_guest --modules nfs_layout_nfsv41_files -- guest/pnfs.sh || rc=$?
wait $hpid || true
wire_stop
# LAYOUTGET (50): the stateids its calls carried (frames without an OPEN,
# 18, which the kernel puts its first LAYOUTGET of a file in: only the
# LAYOUTGET's stateid is there), and the layout stateids its replies gave
# (the last stateid of the reply)
lg_calls=$(decode -Y "rpc.msgtyp == 0 && nfs.opcode == 50 && !(nfs.opcode == 18)" \
	-T fields -E occurrence=a -e nfs.stateid.other | tr ',' '\n' | sort -u)
lg_layouts=$(decode -Y "rpc.msgtyp == 1 && nfs.opcode == 50" \
	-T fields -E occurrence=l -e nfs.stateid.other | sort -u)
h_check "a LAYOUTGET of the guest carried a layout stateid" \
	grep -q . <(comm -12 <(echo "$lg_calls") <(echo "$lg_layouts"))
for s in server ds0 ds1; do
	h_check "$s still running" kill -0 "$(cat "$NFS42_WORK_DIR/$s.pid")"
done
h_check_eq "recall: the host's truncate succeeded" "$(cat "$LINUX_OUT/trunc.rc" 2>/dev/null)" 0
t=$(cat "$LINUX_OUT/trunc.s" 2>/dev/null || echo 999)
h_check "recall: the truncate waited $t s (a layout not returned: the 20 s lease)" \
	awk -v t="$t" 'BEGIN { exit !(t < 10) }'
size=$((16 << 20))
ds_io_check "$size"
if [ -f "$LINUX_OUT/xchg/sum" ]; then
	h_check_eq "backing file's data (the copy: the file is truncated)" \
		"$(sha256sum <"$NFS42_BACKING/pnfs/copy" | cut -d' ' -f1)" \
		"$(cat "$LINUX_OUT/xchg/sum")"
else
	h_bad "the guest left no sum"
fi
if [ -f "$LINUX_OUT/xchg/rw-sum" ]; then
	h_check_eq "backing file of the two mounts' reads and writes" \
		"$(sha256sum <"$NFS42_BACKING/pnfs/rw" | cut -d' ' -f1)" \
		"$(cat "$LINUX_OUT/xchg/rw-sum")"
else
	h_bad "the guest left no rw-sum"
fi
h_done $rc
