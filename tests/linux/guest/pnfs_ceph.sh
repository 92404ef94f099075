# Guest: the kernel's pNFS files-layout client through the gateway over
# CephFS (t_pnfs_ceph.sh, issue #29 item 5): an NFSv4.2 mount of the
# metadata server, whose two data servers are FSAL_SPARSE heads each on a
# ceph-fuse mount of its own.  A 16 MiB file written, then read back
# after a remount, byte for byte; each way the mount's pNFS events
# (pnfs_write, pnfs_read), its READ/WRITE calls against the RPCs its own
# (the metadata server's) transport carried, and the bytes the guest's
# TCP connection to each data server moved (ss: tcp_diag), each at least
# 45 % of the file (Stripe_Unit 64 KiB over two data servers).  The
# mount's LAYOUTGET, GETDEVICEINFO and LAYOUTCOMMIT counts are printed
# (Linux sends its first LAYOUTGET of a file inside the OPEN compound).
size=$((16 << 20))
head -c $size /dev/urandom >/tmp/want
m=/mnt/pnfs

mst_event() { mstats "$1" | awk -v n="$2" '$1 == "events:" { print $(n + 1) }'; }
mst_sends() { mstats "$1" | awk '$1 == "xprt:" && $2 == "tcp" { s += $8 } END { print s + 0 }'; }
# ds_bytes PORT sent|received: the bytes of the guest's connections to
# the data server on PORT
ds_bytes() {
	ss -tinH "dst $NFS_SERVER:$1" 2>/dev/null | awk -v k="bytes_$2:" '
		{ for (i = 1; i <= NF; i++) if (index($i, k) == 1) s += substr($i, length(k) + 1) }
		END { print s + 0 }'
}
declare -A b0
# ds_mark KEY: remember each data server's bytes (KEY sent or received)
ds_mark() {
	local p
	for p in $GUEST_DS_PORTS; do b0[$p]=$(ds_bytes "$p" "$1"); done
}
# ds_check WHAT KEY: each data server's bytes grew by 45 % of the file
ds_check() {
	local p n
	for p in $GUEST_DS_PORTS; do
		n=$(($(ds_bytes "$p" "$2") - b0[$p]))
		echo "figure: $1: $n bytes $2 (the data server on port $p)"
		check_ge "$1: bytes $2 (the data server on port $p)" "$n" $((size * 9 / 20))
	done
}

nfs_mount 4.2 "$m"
mkdir -p "$m/pnfs"
ds_mark sent
w0=$(mst_event "$m" 27)
# the file held open while the counters are read: Linux drops a data
# server's connection once no layout needs it (at the close)
exec 3>"$m/pnfs/file"
dd if=/tmp/want of="$m/pnfs/file" bs=1M conv=notrunc,fsync status=none
check_ge "write: through layouts (events pnfs_write)" $(($(mst_event "$m" 27) - w0)) 1
w=$(mstat_ops "$m" WRITE) s=$(mst_sends "$m")
check "write: WRITE calls ($w) not on the metadata server's transport ($s RPCs)" \
	[ "$w" -gt "$s" ]
ds_check write sent
echo "figure: write: LAYOUTGET $(mstat_ops "$m" LAYOUTGET), GETDEVICEINFO $(mstat_ops "$m" GETDEVICEINFO), LAYOUTCOMMIT $(mstat_ops "$m" LAYOUTCOMMIT), OPEN $(mstat_ops "$m" OPEN), WRITE $w, metadata server's RPCs $s"
check_ge "write: LAYOUTCOMMIT" "$(mstat_ops "$m" LAYOUTCOMMIT)" 1
exec 3>&-
sha256sum </tmp/want | cut -d' ' -f1 >"$XCHG/sum"

remount 4.2 "$m"
exec 3<"$m/pnfs/file"
ds_mark received
check "read: the file read back after a remount is identical" cmp /tmp/want "$m/pnfs/file"
check_ge "read: through layouts (events pnfs_read)" "$(mst_event "$m" 26)" 1
r=$(mstat_ops "$m" READ) s=$(mst_sends "$m")
check "read: READ calls ($r) not on the metadata server's transport ($s RPCs)" \
	[ "$r" -gt "$s" ]
ds_check read received
echo "figure: read: LAYOUTGET $(mstat_ops "$m" LAYOUTGET), GETDEVICEINFO $(mstat_ops "$m" GETDEVICEINFO), OPEN $(mstat_ops "$m" OPEN), READ $r, metadata server's RPCs $s"
exec 3<&-
mstats "$m" >"$XCHG/mountstats"
umount "$m"
g_done
