#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_pnfs_ceph.sh (under harness.sh --ceph CLUSTER_DIR --fsal SPARSE --pnfs
# 2 --pnfs-ds-host 10.0.2.100; issue #29 item 5): the Linux client through
# the pNFS gateway over CephFS: the metadata server and two data servers,
# FSAL_SPARSE heads each on a ceph-fuse mount of its own (docs/cluster.md
# section 7); the layouts name the data servers as the guest reaches them
# (vm.sh forwards NFS42_DS_PORTS).  guest/pnfs_ceph.sh writes and reads a
# file through them; then here: the file is in the CephFS byte for byte
# (through the harness's own ceph-fuse mount, another client), each data
# server process received and sent at least 45 % of it (/proc/PID/io, as
# t_pnfs.sh), and every server is still running.
. "$(dirname "$0")/lib.sh"

ds_io_mark
export GUEST_DS_PORTS=$NFS42_DS_PORTS
rc=0
linux_guest --modules "nfs_layout_nfsv41_files tcp_diag" -- guest/pnfs_ceph.sh || rc=$?
size=$((16 << 20))
ds_io_check "$size"
for s in server ds0 ds1; do
	h_check "$s still running" kill -0 "$(cat "$NFS42_WORK_DIR/$s.pid")"
done
if [ -f "$LINUX_OUT/xchg/sum" ]; then
	h_check_eq "the file in the CephFS (the harness's ceph-fuse mount)" \
		"$(sha256sum <"$NFS42_BACKING/pnfs/file" | cut -d' ' -f1)" \
		"$(cat "$LINUX_OUT/xchg/sum")"
else
	h_bad "the guest left no sum"
fi
h_done $rc
