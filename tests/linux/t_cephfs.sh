#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_cephfs.sh (under harness.sh --ceph CLUSTER_DIR --fsal SPARSE; issue #29
# item 4): the sparse-aware features on the kernel CephFS client.  The
# cluster must be on a bridge (ceph-cluster.sh start --bridge, the
# fixture linux/ceph_cluster_start): the guest reaches its daemons
# through QEMU's user network (vm.sh --open-net), 127.0.0.1 would be the
# guest's own.  The guest (guest/cephfs.sh) mounts the test's CephFS
# directory with the kernel client and runs FSAL_SPARSE over it; see
# there.  Here, for comparison, the same 64 MiB copies on the host's
# ceph-fuse mount of that directory (the harness's, NFS42_BACKING): one
# copy_file_range on the mount, one COPY through the harness's server
# (FSAL_SPARSE on ceph-fuse), each with the bytes ceph-fuse's TCP
# connections moved (ss: bytes_sent + bytes_received of its sockets),
# printed as figures (ceph-fuse copies through itself: docs/cluster.md
# section 6).
. "$(dirname "$0")/lib.sh"
MB=1048576
cdir=$(dirname "${NFS42_CEPH_CONF:?harness.sh --ceph}")
# shellcheck source=/dev/null
. "$cdir/cluster.env"
if [ -z "${CEPH_BRIDGE:-}" ]; then
	echo "linux: skipped: the cluster in $cdir is not on a bridge (ceph-cluster.sh start --bridge): the guest cannot reach $CEPH_MON_ADDR"
	exit 77
fi
key=$(awk '$1 == "key" { print $3 }' "$CEPH_ADMIN_KEYRING")
fuse_pid=$(head -n 1 "$NFS42_WORK_DIR/ceph-fuse.pid")
# fuse_net: the bytes ceph-fuse's TCP connections sent and received so far
fuse_net() {
	ss -tinpH 2>/dev/null | awk -v p="pid=$fuse_pid," '
		/users:/ { on = index($0, p) > 0; next }
		on { for (i = 1; i <= NF; i++)
			if ($i ~ /^bytes_(sent|received):/) { split($i, a, ":"); s += a[2] } }
		END { print s + 0 }'
}
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

h=$NFS42_BACKING/host
mkdir -p "$h"
head -c $((64 * MB)) /dev/urandom >"$h/src"
# written out, and out of this machine's page cache: each copy reads it
# from the cluster
drop_src() {
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$h/src"
}
want=$(sha256sum <"$h/src" | cut -d' ' -f1)
drop_src
n0=$(fuse_net) t0=$(date +%s.%N)
h_check "host ceph-fuse: copy_file_range of 64 MiB" \
	"$LINUX_DIR/copy_range.py" "$h/src" "$h/dst"
t1=$(date +%s.%N)
n=$(($(fuse_net) - n0))
echo "figure: copy_file_range of 64 MiB on the host's ceph-fuse: $(secs "$t0" "$t1") s, $n bytes on ceph-fuse's connections"
h_check_eq "host ceph-fuse: the copy is identical" "$(sha256sum <"$h/dst" | cut -d' ' -f1)" "$want"
drop_src
n0=$(fuse_net) t0=$(date +%s.%N)
h_check "host: nfs42 cp (COPY) through FSAL_SPARSE on ceph-fuse" \
	"${SPARSE_NFS42:?}" -s "$NFS42_HOST" -p "$NFS42_PORT" cp \
	"$NFS42_EXPORT/host/src" "$NFS42_EXPORT/host/nfs-dst"
t1=$(date +%s.%N)
n=$(($(fuse_net) - n0))
echo "figure: COPY of 64 MiB through FSAL_SPARSE on the host's ceph-fuse: $(secs "$t0" "$t1") s, $n bytes on ceph-fuse's connections"
h_check_eq "host: the COPY is identical" \
	"$(sha256sum <"$h/nfs-dst" | cut -d' ' -f1)" "$want"
rm -f "$h/src" "$h/dst" "$h/nfs-dst"

rc=0
# (libceph needs libcrc32c, whose crc32c comes from the crypto API:
# crc32c_generic, loaded first)
linux_guest --open-net --modules "crc32c_generic ceph" --mem 2048 --timeout 1200 \
	--env "GUEST_CEPH_MON=$CEPH_MON_ADDR:$CEPH_MON_PORT_V1" \
	--env "GUEST_CEPH_SECRET=$key" \
	--env "GUEST_CEPH_DIR=/$(basename "$NFS42_WORK_DIR")" \
	--env "GUEST_STAGE=${SPARSE_STAGE:?}" \
	${LINUX_CEPH_OPTS+--env "GUEST_CEPH_OPTS=$LINUX_CEPH_OPTS"} \
	-- guest/cephfs.sh || rc=$?
h_done $rc
