#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_features.sh WHAT: guest/features.sh WHAT (comma list), then the
# backing files on the host: the sparse file's holes are still holes (the
# guest's writes and reads allocated nothing more), the punched range is a
# hole, the fallocated file has its blocks, the copy of the sparse file
# kept its holes. With allocate or wdeleg, a capture of the server's port
# (tshark on the host): every ALLOCATE and DEALLOCATE call has its reply,
# and each of those replies is NFS4_OK, the compound and every op of it
# (issue #30 item 5: RFC 7862's ALLOCATE4res and DEALLOCATE4res are a
# bare nfsstat4; docs/testing.md compares them with knfsd's).
. "$(dirname "$0")/lib.sh"
if [ -n "${LINUX_SKIP_FILE:-}" ] && [ -f "$LINUX_SKIP_FILE" ]; then
	echo "linux: skipped: $(cat "$LINUX_SKIP_FILE")"
	exit 77
fi
what=${1:-read_plus,seek,allocate,copy,xattr}
has() { case ",$what," in *",$1,"*) return 0 ;; esac; return 1; }
MB=1048576
rc=0
wire=0
if has allocate || has wdeleg; then
	# shellcheck disable=SC2034 # wire-lib.sh reads it
	wire_name="linux/features ($what)"
	. "$LINUX_DIR/../e2e/wire-lib.sh"
	wire_start
	wire=1
fi
linux_guest -- guest/features.sh "$what" || rc=$?
if [ $wire = 1 ]; then
	wire_stop
	for op in 59:ALLOCATE 62:DEALLOCATE; do
		calls=$(wire_op_calls "${op%:*}")
		replies=$(wire_op_replies "${op%:*}")
		h_check_ge "${op#*:} calls on the wire" "$calls" 1
		h_check_eq "${op#*:} replies on the wire" "$(grep -c . <<<"$replies" || true)" "$calls"
		h_check_eq "${op#*:} replies not NFS4_OK (ops, statuses)" \
			"$(grep -Ev ' 0(,0)*$' <<<"$replies" | tr '\n' ';' || true)" ""
	done
fi
b=$NFS42_BACKING/feat
alloc() { echo $(($(stat -c %b "$1") * 512)); }
if [ -f "$b/sparse" ]; then
	h_check_eq "backing sparse file's data" "$(sha256sum <"$b/sparse" | cut -d' ' -f1)" \
		"$(cat "$LINUX_OUT/xchg/sparse.sum" 2>/dev/null)"
	h_check "backing sparse file holds about its 2 MiB of data ($(alloc "$b/sparse") bytes)" \
		test "$(alloc "$b/sparse")" -le $((2 * MB + 256 * 1024))
else
	h_bad "no backing sparse file"
fi
if has allocate; then
	h_check "fallocated backing file has its 8 MiB ($(alloc "$b/alloc" 2>/dev/null || echo 0))" \
		test "$(alloc "$b/alloc" 2>/dev/null || echo 0)" -ge $((8 * MB))
	h_check_eq "punched range is a hole in the backing file" \
		"$(xfs_io -r -c "seek -h $((16 * MB))" "$b/punch" 2>/dev/null | awk '$1 == "HOLE" { print $2 }')" \
		$((16 * MB + MB / 4))
	h_check_eq "punched backing file's data resumes at 16.75 MiB" \
		"$(xfs_io -r -c "seek -d $((16 * MB + MB / 4))" "$b/punch" 2>/dev/null | awk '$1 == "DATA" { print $2 }')" \
		$((16 * MB + 3 * MB / 4))
fi
if has copy; then
	h_check "backing copy of the sparse file kept its holes ($(alloc "$b/sparse-cp" 2>/dev/null || echo 0))" \
		test "$(alloc "$b/sparse-cp" 2>/dev/null || echo $((64 * MB)))" -le $((2 * MB + 256 * 1024))
fi
h_done $rc
