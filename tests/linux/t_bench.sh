#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_bench.sh [both|ours|knfsd] [all|tree]: guest/bench.sh against our
# server (files made here in the backing directory), then against knfsd in
# a second guest, once for each filesystem LINUX_KNFSD_FS lists (ext4,
# tmpfs: lib.sh's knfsd_guest; default ext4); prints the table of
# docs/benchmarks.md ("The Linux client: ours and knfsd") from the result
# files (tests/linux/bench-table.sh), or one side's raw results. "tree":
# the tar -x, ls -lR, git status and rm -r workloads alone, and their rows
# of the table. Part of run-all.sh.
. "$(dirname "$0")/lib.sh"
linux_full_only
which=${1:-both} parts=${2:-all}
rc=0
if [ "$which" != knfsd ]; then
b=$NFS42_BACKING/bench
mkdir -p "$b"
if [ "$parts" != tree ]; then
	truncate -s 1G "$b/hole"
	truncate -s 1G "$b/ninety"
	for ((i = 0; i < 1024; i += 10)); do
		dd if=/dev/zero of="$b/ninety" bs=1M seek=$i count=1 conv=notrunc status=none
	done
	dd if=/dev/zero of="$b/data" bs=1M count=1024 status=none
fi
linux_guest --mem 2048 --timeout 3000 -- guest/bench.sh ours "$parts" || rc=$?
cp "$LINUX_OUT/xchg/bench-ours" "$LINUX_OUT/ours" 2>/dev/null || true
rm -rf "$b"
cat "$LINUX_OUT/ours"
fi
cols=("ours (FSAL_SPARSE)=$LINUX_OUT/ours")
if [ "$which" != ours ]; then
for fs in ${LINUX_KNFSD_FS:-ext4}; do
	knfsd_guest "$fs"
	rm -f "$LINUX_OUT/xchg/bench-knfsd"
	linux_guest --mem 4608 --timeout 3000 "${KNFSD_OPTS[@]}" -- \
		guest/bench.sh knfsd "$parts" || rc=$?
	cp "$LINUX_OUT/xchg/bench-knfsd" "$LINUX_OUT/knfsd-$fs" 2>/dev/null || true
	cat "$LINUX_OUT/knfsd-$fs"
	cols+=("knfsd ($fs)=$LINUX_OUT/knfsd-$fs")
done
fi
[ "$which" = both ] && { "$LINUX_DIR/bench-table.sh" "${cols[@]}" || rc=1; }
h_done $rc
