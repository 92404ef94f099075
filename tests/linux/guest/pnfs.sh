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
# A truncate by another client under the guest's layout: the guest holds
# the file open and has read through its layout; the host (t_pnfs.sh)
# truncates the file to 4 MiB with our client. The server recalls the
# guest's layout (Linux, a "forgetful" client, drops it and answers at
# once), so the truncate goes through in far less than the 20 s lease a
# kept layout would cost (t_pnfs.sh); the guest's next reads, on the file
# it still holds open, go through a layout and see the new size. (These
# checks also pass with the recall disabled: the kernel then gets new
# layouts by itself. The recall proper is e2e_pnfs_recall's.)
exec 3<"$m/pnfs/file"
dd if="$m/pnfs/file" of=/dev/null bs=1M count=4 iflag=direct status=none
pr=$(mst_event "$m" 26)
touch "$XCHG/pnfs-held"
check "recall: the host truncated the file" wait_for pnfs-truncated 120
dd if="$m/pnfs/file" of=/dev/null bs=1M count=1 iflag=direct status=none
check_ge "recall: that read went through a layout (events pnfs_read)" \
	"$(($(mst_event "$m" 26) - pr))" 1
dd if="$m/pnfs/file" of=/tmp/after bs=1M iflag=direct status=none
head -c $((4 << 20)) /tmp/want >/tmp/want4
check "recall: read after the truncate identical (4 MiB)" cmp /tmp/want4 /tmp/after
check_eq "recall: the size after reopening" "$(wc -c <"$m/pnfs/file")" $((4 << 20))
exec 3<&-
umount "$m"
g_done
