# Guest: the NFSv4.2 features a Linux client uses, proven by its own
# per-op counters (/proc/self/mountstats) and byte-for-byte results.
# $1: what to check, a comma list of read_plus, seek, allocate, wdeleg, copy,
# clone (on the /xfs export, XFS with reflink; GUEST_CLONE_EXPORT names
# another), xattr. Files the host
# inspects afterwards are left in feat/ (sums in $XCHG).
want=${1:-read_plus,seek,allocate,copy,xattr}
has() { case ",$want," in *",$1,"*) return 0 ;; esac; return 1; }
M=/mnt/n
MB=1048576
nfs_mount 4.2 $M
mkdir -p $M/feat
d=$M/feat

# a 64 MiB file with 1 MiB of data at 16 MiB and 1 MiB at 48 MiB, the
# same file on the guest's tmpfs for comparison
mk_sparse() {
	truncate -s 64M "$1"
	dd if=/tmp/d1 of="$1" bs=1M seek=16 conv=notrunc status=none
	dd if=/tmp/d2 of="$1" bs=1M seek=48 conv=notrunc status=none
}
head -c $MB /dev/urandom >/tmp/d1
head -c $MB /dev/urandom >/tmp/d2
mk_sparse /tmp/sparse
mk_sparse $d/sparse
sha256sum </tmp/sparse | cut -d' ' -f1 >"$XCHG/sparse.sum"

if has read_plus; then
	remount 4.2 $M
	rp0=$(mstat_ops $M READ_PLUS) rd0=$(mstat_ops $M READ)
	rpb0=$(mstat_field $M READ_PLUS 5) rdb0=$(mstat_field $M READ 5)
	check "read_plus: sparse file reads back identical" cmp /tmp/sparse $d/sparse
	rp=$(($(mstat_ops $M READ_PLUS) - rp0)) rd=$(($(mstat_ops $M READ) - rd0))
	rx=$(($(mstat_field $M READ_PLUS 5) - rpb0 + $(mstat_field $M READ 5) - rdb0))
	check_ge "read_plus: READ_PLUS calls for the 64 MiB read" "$rp" 1
	check_eq "read_plus: READ calls" "$rd" 0
	# 2 MiB of data; holes cost bytes of XDR, not 62 MiB of zeros
	check "read_plus: bytes received for 64 MiB with 2 MiB data ($rx) < 3 MiB" \
		test "$rx" -lt $((3 * MB))
	# a read moves atime as it does locally (the export's relatime: the
	# first read after a write) and stat shows it
	head -c 8192 /dev/urandom >$d/atime
	touch -a -d 2020-01-01 $d/atime
	remount 4.2 $M
	a0=$(stat -c %X $d/atime)
	cat $d/atime >/dev/null
	check_eq "read_plus: atime before the read" "$a0" 1577836800
	check "read_plus: a read moves atime ($a0 -> $(stat -c %X $d/atime))" \
		test "$(stat -c %X $d/atime)" -gt "$a0"
fi

if has seek; then
	remount 4.2 $M
	s0=$(mstat_ops $M SEEK)
	out=$(xfs_io -r -c "seek -d 0" -c "seek -h $((16 * MB))" -c "seek -d $((17 * MB))" \
		-c "seek -h $((48 * MB))" $d/sparse 2>&1)
	offs=$(echo "$out" | awk '$1 == "DATA" || $1 == "HOLE" { printf "%s:%s ", $1, $2 }')
	check_eq "seek: SEEK_DATA/SEEK_HOLE offsets" "$offs" \
		"DATA:$((16 * MB)) HOLE:$((17 * MB)) DATA:$((48 * MB)) HOLE:$((49 * MB)) "
	check_ge "seek: SEEK calls" $(($(mstat_ops $M SEEK) - s0)) 4
	# lseek(2) over NFS answers what it answers locally (the guest's
	# tmpfs copy): a middle hole, the trailing hole (ENXIO for
	# SEEK_DATA: xfs_io prints EOF), at EOF, past EOF, an all-hole file.
	seeks() { # FILE OFFSET...
		f=$1
		shift
		for o; do
			xfs_io -r -c "seek -d $o" -c "seek -h $o" "$f" 2>&1 |
				awk '$1 == "DATA" || $1 == "HOLE" { printf "%s:%s ", $1, $2 }'
		done
	}
	offs="$((20 * MB)) $((50 * MB)) $((64 * MB - 1)) $((64 * MB)) $((70 * MB))"
	truncate -s 8M $d/allhole
	truncate -s 8M /tmp/allhole
	check_eq "seek: lseek results match the local file's" \
		"$(seeks $d/sparse $offs)" "$(seeks /tmp/sparse $offs)"
	check_eq "seek: all-hole file's lseek results match the local file's" \
		"$(seeks $d/allhole 0 4096)" "$(seeks /tmp/allhole 0 4096)"
	# Below EOF, each ENXIO is one SEEK answered NFS4ERR_NXIO, as knfsd
	# answers (the SEEK errors counter), not NFS4_OK with sr_eof.
	s0=$(mstat_ops $M SEEK) e0=$(mstat_field $M SEEK 9)
	strace -f -e trace=lseek -o /tmp/lseek.trace bash -c \
		"$(declare -f seeks); seeks $d/sparse $((50 * MB)) $((64 * MB - 1)); seeks $d/allhole 0 4096" \
		>/dev/null
	check_eq "seek: one SEEK per lseek below EOF" \
		$(($(mstat_ops $M SEEK) - s0)) "$(grep -cE 'SEEK_(DATA|HOLE)' /tmp/lseek.trace)"
	check_eq "seek: SEEK replies NFS4ERR_NXIO where lseek says ENXIO" \
		$(($(mstat_field $M SEEK 9) - e0)) "$(grep -c ENXIO /tmp/lseek.trace)"
fi

if has allocate; then
	a0=$(mstat_ops $M ALLOCATE) p0=$(mstat_ops $M DEALLOCATE)
	check "allocate: fallocate -l 8M" fallocate -l 8M $d/alloc
	check_eq "allocate: size after fallocate" "$(stat -c %s $d/alloc)" $((8 * MB))
	check_ge "allocate: ALLOCATE calls" $(($(mstat_ops $M ALLOCATE) - a0)) 1
	cp /tmp/sparse $d/punch
	cp /tmp/sparse /tmp/punch
	check "allocate: fallocate -p over 16.25..16.75 MiB" \
		fallocate -p -o $((16 * MB + MB / 4)) -l $((MB / 2)) $d/punch
	fallocate -p -o $((16 * MB + MB / 4)) -l $((MB / 2)) /tmp/punch
	check_ge "allocate: DEALLOCATE calls" $(($(mstat_ops $M DEALLOCATE) - p0)) 1
	remount 4.2 $M
	check "allocate: punched file reads back as expected" cmp /tmp/punch $d/punch
	check_eq "allocate: punched file's size kept" "$(stat -c %s $d/punch)" $((64 * MB))
fi

# wdeleg (an export with write delegations, issue #32 item 4): with a
# write delegation held the client sends ALLOCATE, DEALLOCATE, COPY and
# SETATTR(size) under the delegation's stateid; each reaches the server
# once and succeeds: no NFS4ERR_OPENMODE (mountstats' errors), no state
# recovery (TEST_STATEID, a second OPEN), the bytes as on a local file.
if has wdeleg; then
	head -c $MB /dev/urandom >/tmp/wd-src
	cp /tmp/wd-src $d/wd-src
	remount 4.2 $M
	ops="OPEN ALLOCATE DEALLOCATE COPY SETATTR TEST_STATEID"
	declare -A n0 e0
	for op in $ops; do
		n0[$op]=$(mstat_ops $M $op) e0[$op]=$(mstat_field $M $op 9)
	done
	# wd_op NAME XFS_IO_COMMAND: a new file of 64 KiB written and NAME
	# done to it through the one open (a write delegation's), here and
	# on the guest's tmpfs
	wd_op() {
		local name=$1 cmd=$2
		xfs_io -f -c "pwrite -q -S 0x5a 0 64k" -c "$cmd" "$d/wd-$name" &&
			xfs_io -f -c "pwrite -q -S 0x5a 0 64k" \
				-c "${cmd//$d/\/tmp}" "/tmp/wd-$name"
	}
	check "wdeleg: fallocate" wd_op falloc "falloc 64k 4m"
	check "wdeleg: FALLOC_FL_PUNCH_HOLE" wd_op punch "fpunch 16k 32k"
	check "wdeleg: copy_file_range" wd_op copy "copy_range -s 0 -d 1m -l $MB $d/wd-src"
	check "wdeleg: ftruncate" wd_op trunc "truncate 3m"
	for op in ALLOCATE DEALLOCATE COPY SETATTR; do
		check_eq "wdeleg: $op calls" $(($(mstat_ops $M $op) - n0[$op])) 1
		check_eq "wdeleg: $op errors" $(($(mstat_field $M $op 9) - e0[$op])) 0
	done
	# at most one a file and the copy source's (no reopen for recovery)
	n=$(($(mstat_ops $M OPEN) - n0[OPEN]))
	check "wdeleg: OPEN calls ($n) at most 5" test "$n" -le 5
	check_eq "wdeleg: TEST_STATEID calls (state recovery)" \
		$(($(mstat_ops $M TEST_STATEID) - n0[TEST_STATEID])) 0
	# a write delegation was held: opening for writing again sends no OPEN
	o1=$(mstat_ops $M OPEN)
	check "wdeleg: reopen for writing" xfs_io -c "pwrite -q -S 0x5b 0 4k" $d/wd-falloc
	xfs_io -c "pwrite -q -S 0x5b 0 4k" /tmp/wd-falloc
	check_eq "wdeleg: no OPEN for the reopen (a write delegation held)" \
		$(($(mstat_ops $M OPEN) - o1)) 0
	remount 4.2 $M
	for f in falloc punch copy trunc; do
		check "wdeleg: $f: the file reads back as the local one" \
			cmp /tmp/wd-$f $d/wd-$f
		check_eq "wdeleg: $f: size" "$(stat -c %s $d/wd-$f)" \
			"$(stat -c %s /tmp/wd-$f)"
	done
fi

if has copy; then
	head -c $((16 * MB)) /dev/urandom >$d/src
	remount 4.2 $M
	c0=$(mstat_ops $M COPY) wb0=$(mstat_field $M WRITE 4)
	check "copy: cp" cp $d/src $d/cp-dst
	check "copy: xfs_io copy_range (copy_file_range)" \
		xfs_io -f -c "copy_range -s 0 -d 0 -l $((16 * MB)) $d/src" $d/cfr-dst
	c=$(($(mstat_ops $M COPY) - c0)) wb=$(($(mstat_field $M WRITE 4) - wb0))
	check_ge "copy: COPY calls for cp and copy_file_range" "$c" 2
	check "copy: bytes WRITE sent for 32 MiB copied ($wb) < 1 MiB" test "$wb" -lt $MB
	remount 4.2 $M
	check "copy: cp's copy identical" cmp $d/src $d/cp-dst
	check "copy: copy_file_range's copy identical" cmp $d/src $d/cfr-dst
	# a sparse source keeps its holes (the host checks the backing file)
	check "copy: cp of the sparse file" cp $d/sparse $d/sparse-cp
	remount 4.2 $M
	check "copy: sparse copy identical" cmp /tmp/sparse $d/sparse-cp
fi

if has clone; then
	X=/mnt/x
	CE=${GUEST_CLONE_EXPORT:-/xfs}
	EXPORT=$CE nfs_mount 4.2 $X
	head -c $((8 * MB)) /dev/urandom >$X/src
	k0=$(mstat_ops $X CLONE) wb0=$(mstat_field $X WRITE 4)
	check "clone: cp --reflink=always" cp --reflink=always $X/src $X/clone
	check_ge "clone: CLONE calls" $(($(mstat_ops $X CLONE) - k0)) 1
	check "clone: no data written" test $(($(mstat_field $X WRITE 4) - wb0)) -lt $MB
	EXPORT=$CE remount 4.2 $X
	check "clone: clone identical" cmp $X/src $X/clone
	sha256sum <$X/src | cut -d' ' -f1 >"$XCHG/clone.sum"
	umount $X
fi

if has xattr; then
	touch $d/xa
	s0=$(mstat_ops $M SETXATTR)
	check "xattr: setfattr user.a" setfattr -n user.a -v hello $d/xa
	check "xattr: setfattr user.b (binary)" setfattr -n user.b -v 0x00ff10 $d/xa
	check_ge "xattr: SETXATTR calls" $(($(mstat_ops $M SETXATTR) - s0)) 2
	remount 4.2 $M
	check_eq "xattr: getfattr user.a" "$(getfattr --only-values -n user.a $d/xa 2>/dev/null)" hello
	check_eq "xattr: getfattr user.b" \
		"$(getfattr -e hex -n user.b $d/xa 2>/dev/null | sed -n 's/^user.b=//p')" 0x00ff10
	check_eq "xattr: list" "$(getfattr -d -m '^user\.' --absolute-names $d/xa 2>/dev/null |
		awk -F= '/^user/ { printf "%s ", $1 }')" "user.a user.b "
	check_ge "xattr: GETXATTR calls" $(mstat_ops $M GETXATTR) 1
	check_ge "xattr: LISTXATTRS calls" $(mstat_ops $M LISTXATTRS) 1
	r0=$(mstat_ops $M REMOVEXATTR)
	check "xattr: setfattr -x user.a" setfattr -x user.a $d/xa
	check_ge "xattr: REMOVEXATTR calls" $(($(mstat_ops $M REMOVEXATTR) - r0)) 1
	remount 4.2 $M
	check "xattr: user.a gone" sh -c "! getfattr -n user.a $d/xa >/dev/null 2>&1"
	check_eq "xattr: user.b kept" "$(getfattr --only-values -n user.b $d/xa 2>/dev/null | od -An -tx1 | tr -d ' ')" 00ff10
fi
mstat_all $M >"$XCHG/ops"
umount $M
g_done
