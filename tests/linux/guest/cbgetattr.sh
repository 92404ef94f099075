# Guest side of t_cbgetattr.sh (issue #18 item 6): the kernel client holds
# a write delegation on a file it wrote and keeps open; the host's nfs42
# then asks the server for the file's size and change, which the server
# must get from this client with CB_GETATTR (RFC 8881 10.4.3), not by
# recalling the delegation. One process holds the only descriptor: the
# kernel flushes at every close of a descriptor of the file (->flush),
# a forked child's copy included.
M=/mnt/n
# This guest's clock behind the server's: the writer's times are then
# never in the server's future, which the server (as knfsd's
# nfsd4_vet_deleg_time()) replaces with its own now in the CB_GETATTR
# answer it serves (RFC 9754 section 5). A TCG guest's clock drifts
# either way: once 40 ms ahead, the host saw the server's now instead of
# the writer's mtime (the lead's `ctest -L linux`, issue #30 item d).
date -s "@$(($(date +%s) - ${GUEST_CLOCK_SHIFT:-60}))" >/dev/null
nfs_mount 4.2 $M "${GUEST_MOUNT_OPTS:-write=lazy}"
grep " $M " /proc/mounts >"$XCHG/mount"
mkdir -p $M/cb
# keep written data in the page cache: no periodic writeback
echo 360000 >/proc/sys/vm/dirty_writeback_centisecs
echo 360000 >/proc/sys/vm/dirty_expire_centisecs
w0=$(mstat_ops $M WRITE)
head -c 12345 /dev/urandom >"$XCHG/data"
# the host made the file, empty, an hour old: "+<" opens it without a
# truncate (no new server time before the grant), so the writer's times,
# later than the file's at the grant even with this guest's clock lagging
# the server's under TCG, are the file's (RFC 9754 vets them against it)
perl -e 'open(my $f, "+<", $ARGV[0]) or die "open: $!";
	open(my $d, "<", $ARGV[1]) or die "data: $!";
	local $/; my $b = <$d>; close($d);
	syswrite($f, $b) == length($b) or die "write: $!";
	open(my $m, ">", $ARGV[2]); close($m);
	sleep 1 until -e $ARGV[3];
	close($f) or die "close: $!";' $M/cb/f "$XCHG/data" "$XCHG/opened" "$XCHG/close" &
writer=$!
check "the writer has the file open and written" wait_for opened 120
w1=$(mstat_ops $M WRITE)
d0=$(mstat_ops $M DELEGRETURN)
check_eq "the data only in the page cache (no WRITE yet)" $((w1 - w0)) 0
touch "$XCHG/written"
check "the host asked" wait_for host-asked 300
w2=$(mstat_ops $M WRITE)
d1=$(mstat_ops $M DELEGRETURN)
check_eq "no WRITE for the host's GETATTR either" $((w2 - w0)) 0
check_eq "no DELEGRETURN for the host's GETATTR" $((d1 - d0)) 0
touch "$XCHG/close"
check "the writer closed the file" wait $writer
check_eq "the file as written" "$(md5sum <$M/cb/f)" "$(md5sum <"$XCHG/data")"
# the writer's mtime, as this client (the timestamps' owner) has it
stat -c %.9Y $M/cb/f >"$XCHG/guest-mtime"
cat "$XCHG/mount"
g_done
