# Guest: the kernel CephFS client under FSAL_SPARSE (t_cephfs.sh, issue
# #29 item 4).  The test's CephFS directory (GUEST_CEPH_DIR, of the
# cluster's monitor GUEST_CEPH_MON, ADDR:PORT of msgr1) is mounted with
# the kernel client (mount -t ceph, client.admin's key GUEST_CEPH_SECRET,
# the options GUEST_CEPH_OPTS, default "copyfrom": the kernel's copy
# offload, off by default since 5.x, is what copies inside the cluster).
# Then, on the kernel mount itself: what lseek(SEEK_DATA/SEEK_HOLE),
# fallocate and copy_file_range do there, with the bytes the guest's
# network interface moved for a 64 MiB copy (eth0 carries only Ceph's
# traffic: NFS below is on the loopback).  Then ganesha.nfsd (the host's
# build, over 9p) runs in the guest under tests/e2e/harness.sh with
# FSAL_SPARSE exporting a directory of that mount (TMPDIR on it), and the
# guest's own NFS client (vers=4.2 on 127.0.0.1) does the same through
# NFS: READ_PLUS of a sparse file, SEEK, ALLOCATE, DEALLOCATE, COPY
# ("$0 nfs", the part run under the harness).  Figures are printed as
# "figure: ..." lines for docs/cluster.md section 6.
MB=1048576
net_bytes() {
	echo $(($(cat /sys/class/net/eth0/statistics/rx_bytes) +
		$(cat /sys/class/net/eth0/statistics/tx_bytes)))
}
# seeks FILE OFFSET: "DATA:d HOLE:h" as lseek answers from OFFSET
seeks() {
	xfs_io -r -c "seek -d $2" -c "seek -h $2" "$1" 2>&1 |
		awk '$1 == "DATA" || $1 == "HOLE" { printf "%s:%s ", $1, $2 }'
}
# copy_range SRC DST: copy_file_range(2) of all of SRC into DST
copy_range() { python3 "$REPO/tests/linux/copy_range.py" "$@"; }
# mk_sparse FILE: 64 MiB, 1 MiB of data at 16 MiB and 1 MiB at 48 MiB
mk_sparse() {
	truncate -s 64M "$1"
	dd if=/tmp/d1 of="$1" bs=1M seek=16 conv=notrunc status=none
	dd if=/tmp/d2 of="$1" bs=1M seek=48 conv=notrunc status=none
}

# ---- the part under the harness: FSAL_SPARSE on the kernel mount ----
# nfs_features: READ_PLUS, SEEK, ALLOCATE, DEALLOCATE through NFS
nfs_features() {
	# READ_PLUS of a sparse file made on the kernel mount
	mk_sparse "$b/sparse"
	sync
	remount 4.2 $m
	rp0=$(mstat_ops $m READ_PLUS) rd0=$(mstat_ops $m READ)
	rx0=$(mstat_field $m READ_PLUS 5)
	check "nfs read_plus: the sparse file reads back identical" cmp /tmp/sparse $m/sparse
	rp=$(($(mstat_ops $m READ_PLUS) - rp0)) rd=$(($(mstat_ops $m READ) - rd0))
	rx=$(($(mstat_field $m READ_PLUS 5) - rx0))
	check_ge "nfs read_plus: READ_PLUS calls for the 64 MiB read" "$rp" 1
	check_eq "nfs read_plus: READ calls" "$rd" 0
	echo "figure: READ_PLUS of the 64 MiB file with 2 MiB of data: $rp calls, $rx bytes received"
	# the server sees no hole (the kernel client's lseek tells none):
	# every byte comes as data
	check "nfs read_plus: all 64 MiB came as data ($rx bytes: CephFS tells no holes)" \
		test "$rx" -ge $((64 * MB))

	# SEEK through NFS: what lseek on the kernel mount says
	s0=$(mstat_ops $m SEEK)
	check_eq "nfs seek: data from 0, hole at the end (SEEK)" \
		"$(seeks $m/sparse 0)" "DATA:0 HOLE:$((64 * MB)) "
	check_ge "nfs seek: SEEK calls" $(($(mstat_ops $m SEEK) - s0)) 1

	# ALLOCATE: the kernel client's fallocate reserves nothing and says
	# so (EOPNOTSUPP for any mode but a punch), so the server refuses
	# ALLOCATE rather than promise space; the file is left empty
	: >$m/alloc
	a0=$(mstat_ops $m ALLOCATE)
	if out=$(fallocate -l 8M $m/alloc 2>&1); then
		bad "nfs allocate: fallocate of 8 MiB succeeded on kernel CephFS"
	else
		ok "nfs allocate: fallocate of 8 MiB refused ($out)"
	fi
	check_ge "nfs allocate: ALLOCATE calls" $(($(mstat_ops $m ALLOCATE) - a0)) 1
	check_eq "nfs allocate: the file is still empty" "$(stat -c %s "$b/alloc")" 0

	# DEALLOCATE: a punch of 4 MiB in an 8 MiB file
	head -c $((8 * MB)) /dev/urandom >/tmp/punch
	cp /tmp/punch $m/punch
	sync
	d0=$(mstat_ops $m DEALLOCATE)
	check "nfs deallocate: fallocate --punch-hole of [2 MiB, 6 MiB)" \
		fallocate -p -o $((2 * MB)) -l $((4 * MB)) $m/punch
	check_ge "nfs deallocate: DEALLOCATE calls" $(($(mstat_ops $m DEALLOCATE) - d0)) 1
	dd if=/dev/zero of=/tmp/punch bs=1M seek=2 count=4 conv=notrunc status=none
	remount 4.2 $m
	check "nfs deallocate: zeros in the range, the rest unchanged (NFS)" cmp /tmp/punch $m/punch
	check "nfs deallocate: the same on the kernel mount" cmp /tmp/punch "$b/punch"
	check_eq "nfs deallocate: the size kept" "$(stat -c %s $m/punch)" $((8 * MB))
}
# nfs_copy: COPY of 64 MiB (the bytes on eth0 checked with
# GUEST_COPY_INSIDE=1)
nfs_copy() {
	# COPY of 64 MiB: the server's copy_file_range on the kernel mount
	head -c $((64 * MB)) /dev/urandom >/tmp/big
	cp /tmp/big "$b/src"
	sync
	# (the source is read from the cluster, not from this page cache)
	echo 3 >/proc/sys/vm/drop_caches
	n0=$(net_bytes) t0=$(date +%s.%N)
	c=$(ops_delta $m COPY copy_range $m/src $m/dst)
	t1=$(date +%s.%N)
	n=$(($(net_bytes) - n0))
	check_ge "nfs copy: COPY calls" "$c" 1
	echo "figure: COPY of 64 MiB through FSAL_SPARSE on kernel CephFS ($GUEST_COPY_CONF): $c COPY calls, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, $n bytes on eth0"
	if [ "$GUEST_COPY_INSIDE" = 1 ]; then
		check "nfs copy: the guest's network moved $n bytes for the 64 MiB COPY (< 8 MiB: copied inside the cluster)" \
			test "$n" -lt $((8 * MB))
	fi
	remount 4.2 $m
	check "nfs copy: the copy is identical (NFS)" cmp /tmp/big $m/dst
	check "nfs copy: the copy is identical (kernel mount)" cmp /tmp/big "$b/dst"
}
if [ "${1:-}" = nfs ]; then
	. /run/xchg/guest-lib.sh
	export NFS_SERVER=127.0.0.1 NFS_PORT=$NFS42_PORT EXPORT=$NFS42_EXPORT
	b=$NFS42_BACKING
	m=/mnt/n
	nfs_mount 4.2 $m
	[ "$2" = copy ] || nfs_features
	nfs_copy
	umount $m
	g_done
fi

# ---- the kernel client alone ----
c=/mnt/ceph
mkdir -p $c
mount -i -t ceph "$GUEST_CEPH_MON:$GUEST_CEPH_DIR" $c \
	-o "name=admin,secret=$GUEST_CEPH_SECRET,${GUEST_CEPH_OPTS-copyfrom}" || {
	bad "mount -t ceph $GUEST_CEPH_MON:$GUEST_CEPH_DIR"
	g_done
}
ok "kernel CephFS mounted ($(awk -v d=$c '$2 == d { print $4 }' /proc/mounts | tr ',' '\n' | grep -v '^secret=' | tr '\n' ',' | sed 's/,$//'))"
mkdir -p $c/guest
k=$c/guest
head -c $MB /dev/urandom >/tmp/d1
head -c $MB /dev/urandom >/tmp/d2
mk_sparse /tmp/sparse
mk_sparse $k/sparse
sync
check "kernel: the sparse file reads back identical" cmp /tmp/sparse $k/sparse
# lseek on kernel CephFS (fs/ceph/file.c ceph_llseek): data at any
# offset below the size, the hole at the size
check_eq "kernel: lseek from 0: data at 0, the hole at the end" \
	"$(seeks $k/sparse 0)" "DATA:0 HOLE:$((64 * MB)) "
check_eq "kernel: lseek from 20 MiB (in a hole): data there" \
	"$(seeks $k/sparse $((20 * MB)))" "DATA:$((20 * MB)) HOLE:$((64 * MB)) "
echo "figure: kernel CephFS st_blocks of the 64 MiB file with 2 MiB data: $(stat -c %b $k/sparse)"
# fallocate: only a punch (PUNCH_HOLE | KEEP_SIZE) is supported
for f in "" "-n"; do
	if out=$(fallocate $f -l 8M $k/alloc$f 2>&1); then
		bad "kernel: fallocate $f -l 8M succeeded"
	else
		ok "kernel: fallocate $f -l 8M refused ($out)"
	fi
done
head -c $((8 * MB)) /dev/urandom >/tmp/punch
cp /tmp/punch $k/punch
sync
check "kernel: fallocate --punch-hole [2 MiB, 6 MiB)" \
	fallocate -p -o $((2 * MB)) -l $((4 * MB)) $k/punch
dd if=/dev/zero of=/tmp/punch bs=1M seek=2 count=4 conv=notrunc status=none
echo 3 >/proc/sys/vm/drop_caches
check "kernel: the punched range reads as zeros" cmp /tmp/punch $k/punch
# copy_file_range of 64 MiB, whole 4 MiB objects: RADOS copy-from with
# the "copyfrom" mount option (the OSDs copy; the guest sends the ops)
head -c $((64 * MB)) /dev/urandom >/tmp/big
cp /tmp/big $k/src
sync
echo 3 >/proc/sys/vm/drop_caches
n0=$(net_bytes) t0=$(date +%s.%N)
check "kernel: copy_file_range of 64 MiB" copy_range $k/src $k/dst
t1=$(date +%s.%N)
n=$(($(net_bytes) - n0))
echo "figure: copy_file_range of 64 MiB on the kernel mount: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, $n bytes on eth0"
check "kernel: the guest's network moved $n bytes for the 64 MiB copy (< 8 MiB: copied inside the cluster)" \
	test "$n" -lt $((8 * MB))
echo 3 >/proc/sys/vm/drop_caches
check "kernel: the copy is identical" cmp /tmp/big $k/dst

# FSAL_SPARSE exporting a directory of the kernel mount, in this guest:
# with the default configuration (Copy_Time_Budget_Ms = 100: the protocol
# layer asks the FSAL for pieces of 1 MiB, which the kernel client copies
# through itself), then the COPY alone with Copy_Time_Budget_Ms = 0 (the
# pieces are the 4 MiB chunks of Copy_Chunk_Size, whole objects)
mkdir -p $c/nfs
nfs_part() { # WHAT CONF INSIDE HARNESS_ARGS...
	local what=$1 conf=$2 inside=$3
	shift 3
	if GUEST_COPY_CONF=$conf GUEST_COPY_INSIDE=$inside TMPDIR=$c/nfs \
		SPARSE_STAGE=$GUEST_STAGE \
		"$REPO/tests/e2e/harness.sh" "$@" -- bash /run/xchg/test.sh nfs "$what"; then
		ok "the NFS part ($conf) passed"
	else
		bad "the NFS part ($conf) (above)"
	fi
}
nfs_part all "Copy_Time_Budget_Ms = 100" 0
nfs_part copy "Copy_Time_Budget_Ms = 0" 1 \
	--nfsv4-opts "Copy_Time_Budget_Ms = 0;"
umount $c
g_done
