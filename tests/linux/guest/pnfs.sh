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

# The kernel client's own pNFS pattern (issue #26 item 9), from two mounts
# at once: this vers=4.2 mount and a vers=4.1 one are two NFSv4 clients of
# the server (the kernel's client owner string names the minor version;
# t_pnfs.sh counts the client IDs). On each, the same file is held open
# for reading (the OPEN brings a READ layout) and read through that
# layout, then opened O_RDWR as well and written: the kernel holds a
# layout of the file, so it asks for the RW one in a LAYOUTGET of its own
# under the layout stateid (RFC 8881 12.5.3; t_pnfs.sh finds it on the
# wire), on which Ganesha 6.5 freed the layout state (patch 0151: the
# next OPEN of the file aborted the server). Both mounts do so at the same
# time, then one truncates the file under the other's layout (recalled)
# and the other writes past the new end; every read is compared with what
# was written.
m2=/mnt/pnfs41
MiB=$((1 << 20))
nfs_mount 4.1 "$m2"
for p in a b c; do head -c $MiB /dev/urandom >/tmp/rw-$p; done
head -c $((4 * MiB)) /dev/urandom >/tmp/rw
cp /tmp/rw "$m/pnfs/rw"
lg1=$(mstat_ops "$m" LAYOUTGET) lg2=$(mstat_ops "$m2" LAYOUTGET)
# rw_pattern DIR READ_MIB WRITE_MIB SRC: hold the file open for reading,
# read one MiB, open it O_RDWR too, write one MiB; direct I/O (through the
# layouts, no page cache between the mounts); both opens held until the
# truncate below
rw_pattern() {
	local f=$1/pnfs/rw rd rw
	# shellcheck disable=SC2034 # rd and rw: descriptors held open
	exec {rd}<"$f" &&
		dd if="$f" of=/dev/null bs=64k skip=$(($2 * 16)) count=16 \
			iflag=direct status=none &&
		exec {rw}<>"$f" &&
		dd if="$4" of="$f" bs=64k seek=$(($3 * 16)) count=16 \
			oflag=direct conv=notrunc status=none &&
		touch "/tmp/rw-done-$2" &&
		while [ ! -e /tmp/rw-release ]; do sleep 0.1; done
}
check_ge "two mounts: two NFSv4 clients (/proc/fs/nfsfs/servers)" \
	"$(grep -c '^v4 ' /proc/fs/nfsfs/servers)" 2
rw_pattern "$m" 0 1 /tmp/rw-a &
pa=$!
rw_pattern "$m2" 2 3 /tmp/rw-b &
pb=$!
for _ in $(seq 600); do
	[ -e /tmp/rw-done-0 ] && [ -e /tmp/rw-done-2 ] && break
	if ! kill -0 $pa 2>/dev/null || ! kill -0 $pb 2>/dev/null; then
		break
	fi
	sleep 0.1
done
check "two mounts: 4.2 read then wrote through its layouts" [ -e /tmp/rw-done-0 ]
check "two mounts: 4.1 read then wrote through its layouts" [ -e /tmp/rw-done-2 ]
{
	dd if=/tmp/rw bs=1M count=1 status=none
	cat /tmp/rw-a
	dd if=/tmp/rw bs=1M skip=2 count=1 status=none
	cat /tmp/rw-b
} >/tmp/rw-want
for d in "$m" "$m2"; do
	dd if="$d/pnfs/rw" of=/tmp/rw-got bs=1M iflag=direct status=none
	check "two mounts: $d reads both writes" cmp /tmp/rw-want /tmp/rw-got
done
check_ge "two mounts: 4.2's LAYOUTGETs of their own" \
	"$(($(mstat_ops "$m" LAYOUTGET) - lg1))" 1
check_ge "two mounts: 4.1's LAYOUTGETs of their own" \
	"$(($(mstat_ops "$m2" LAYOUTGET) - lg2))" 1
# 4.2 truncates to 3 MiB under 4.1's layout (both still hold the file
# open), 4.1 then writes a MiB at 4 MiB
check "two mounts: 4.2 truncated the file under 4.1's layout" \
	truncate -s $((3 * MiB)) "$m/pnfs/rw"
head -c $((3 * MiB)) /tmp/rw-want >/tmp/rw-want3
dd if="$m2/pnfs/rw" of=/tmp/rw-got bs=1M iflag=direct status=none
check "two mounts: 4.1 reads the truncated file" cmp /tmp/rw-want3 /tmp/rw-got
check "two mounts: 4.1 wrote past the new end through its layout" \
	dd if=/tmp/rw-c of="$m2/pnfs/rw" bs=64k seek=64 count=16 \
	oflag=direct conv=notrunc status=none
{
	cat /tmp/rw-want3
	head -c $MiB /dev/zero
	cat /tmp/rw-c
} >/tmp/rw-final
dd if="$m/pnfs/rw" of=/tmp/rw-got bs=1M iflag=direct status=none
check "two mounts: 4.2 reads 4.1's write past the truncate" \
	cmp /tmp/rw-final /tmp/rw-got
touch /tmp/rw-release
wait $pa $pb || true
sha256sum </tmp/rw-final | cut -d' ' -f1 >"$XCHG/rw-sum"
mstats "$m" >"$XCHG/mountstats-rw-4.2"
mstats "$m2" >"$XCHG/mountstats-rw-4.1"
umount "$m2"
umount "$m"
g_done
