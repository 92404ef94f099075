# Guest: the courteous server seen from the kernel client (host side:
# t_courtesy.sh). The guest holds a fcntl write lock on courtesy/f, takes
# its own link down for $1 seconds (longer than the lease), while the
# host's client takes a conflicting lock (granted once the server lets
# the expired guest's state go). Link up: using the lost lock fails as
# RFC 8881 8.4.2/8.6 say (the state is gone: the write through the locked
# descriptor is refused, EIO from the Linux client), nothing hangs, and a
# new lock attempt is refused while the host holds it.
down=${1:-40}
M=/mnt/n
nfs_mount 4.2 $M
mkdir -p $M/courtesy
f=$M/courtesy/f
head -c 8192 /dev/zero >$f
# a process holding the lock, writing once on request
lock_holder() {
	perl -e 'use Fcntl;
		open(my $f, "+<", $ARGV[0]) or die "open: $!";
		my $fl = pack("s s x4 q q i x4", F_WRLCK, SEEK_SET, 0, 0, 0);
		fcntl($f, F_SETLK, $fl) or do { print "lock: $!\n"; exit 1 };
		print "locked\n";
		$| = 1;
		while (! -e $ARGV[1]) { select(undef, undef, undef, 0.2); }
		sysseek($f, 0, 0);
		my $n = syswrite($f, "after the outage\n");
		if (!defined $n) { print "write: $!\n"; exit 2 }
		if (!close($f)) { print "close: $!\n"; exit 3 }
		print "write ok\n";
		exit 0;' "$f" /tmp/go-write
}
lock_holder >/tmp/holder.out 2>&1 &
hp=$!
for ((i = 0; i < 300; i++)); do grep -q locked /tmp/holder.out && break; sleep 0.1; done
check "courtesy: the guest holds its lock" grep -q locked /tmp/holder.out
touch "$XCHG/guest-locked"
ip link set eth0 down
touch "$XCHG/link-down"
sleep "$down"
ip link set eth0 up
ok "courtesy: link up after $down s"
for ((i = 0; i < 1200; i++)); do [ -e "$XCHG/host-locked" ] && break; sleep 0.1; done
check "courtesy: the host took the conflicting lock meanwhile" grep -q granted "$XCHG/host-locked"
touch /tmp/go-write
rc=0
timeout 180 tail --pid=$hp -f /dev/null || rc=$?
check_eq "courtesy: the lock holder's write ended (no hang)" $rc 0
wait $hp && hrc=0 || hrc=$?
cat /tmp/holder.out
check "courtesy: the write through the lost lock failed" test "$hrc" -ne 0
check "courtesy: a new lock is refused while the host holds it" \
	timeout 120 sh -c "! flock -n $f true"
touch "$XCHG/host-release"
for ((i = 0; i < 600; i++)); do [ -e "$XCHG/host-released" ] && break; sleep 0.1; done
check "courtesy: a new lock is granted once the host let go" timeout 120 flock -n $f true
timeout 60 umount $M || bad "courtesy: umount"
g_done
