# Guest: the kernel's pNFS files-layout client on an NFSv4.2 mount of our
# metadata server (t_pnfs.sh): a 16 MiB file written and read back after a
# remount, byte for byte, through layouts: the mount's pNFS counters
# (events pnfs_read/pnfs_write), GETDEVICEINFO and LAYOUTCOMMIT in
# /proc/self/mountstats, its READ/WRITE calls far more than the RPCs its
# own transport (the metadata server's) carried, and TCP connections to
# both data servers; `cp` still copies with COPY on the metadata server.
# (Linux sends the LAYOUTGET inside the OPEN compound, so the LAYOUTGET
# line of mountstats stays 0; OPEN carries it.)
size=$((16 << 20))
head -c $size /dev/urandom >/tmp/want
m=/mnt/pnfs

# mst_event DIR N: field N of the mount's "events:" line (26 pnfs_read,
# 27 pnfs_write)
mst_event() { mstats "$1" | awk -v n="$2" '$1 == "events:" { print $(n + 1) }'; }
# mst_sends DIR: the RPCs the mount's own transport sent
mst_sends() { mstats "$1" | awk '$1 == "xprt:" && $2 == "tcp" { s += $8 } END { print s + 0 }'; }

nfs_mount 4.2 "$m"
mkdir -p "$m/pnfs"
cp /tmp/want "$m/pnfs/file"
sync
mstats "$m" >"$XCHG/mountstats-write"
check_ge "writes through layouts (events pnfs_write)" "$(mst_event "$m" 27)" 1
check_ge "GETDEVICEINFO" "$(mstat_ops "$m" GETDEVICEINFO)" 1
check_ge "LAYOUTCOMMIT after the write" "$(mstat_ops "$m" LAYOUTCOMMIT)" 1
w=$(mstat_ops "$m" WRITE) s=$(mst_sends "$m")
check "WRITE calls ($w) not on the metadata server's transport ($s RPCs)" \
	[ "$w" -gt "$s" ]
sha256sum </tmp/want | cut -d' ' -f1 >"$XCHG/sum"

remount 4.2 "$m"
check "read back after remount identical" cmp /tmp/want "$m/pnfs/file"
mstats "$m" >"$XCHG/mountstats-read"
check_ge "reads through layouts (events pnfs_read)" "$(mst_event "$m" 26)" 1
r=$(mstat_ops "$m" READ) s=$(mst_sends "$m")
check "READ calls ($r) not on the metadata server's transport ($s RPCs)" \
	[ "$r" -gt "$s" ]
# the guest's TCP connections to the data servers (10.0.2.100, their
# ports: 6402000A:PORT in /proc/net/tcp)
for p in $GUEST_DS_PORTS; do
	check "a connection to the data server on port $p" \
		grep -q "6402000A:$(printf '%04X' "$p") " /proc/net/tcp
done

c=$(ops_delta "$m" COPY cp "$m/pnfs/file" "$m/pnfs/copy")
check "cp used COPY on the metadata server ($c calls)" [ "$c" -ge 1 ]
check "the copy is identical" cmp /tmp/want "$m/pnfs/copy"
umount "$m"
g_done
