# Guest: open and lock state against a host client (the host side is
# t_state.sh; the two meet through files in $XCHG).
#  deleg: the guest reads a file (the server grants a read delegation),
#    the host's nfs42 writes it: the guest's mountstats show the
#    DELEGRETURN, and the guest then reads the host's data.
#  locks: the host holds a write lock on bytes 0..99: flock(2) and a
#    fcntl lock over them fail at once, a fcntl lock on 200..299 works,
#    a blocking fcntl lock is granted once the host lets go.
want=${1:-deleg,locks}
has() { case ",$want," in *",$1,"*) return 0 ;; esac; return 1; }
M=/mnt/n
nfs_mount 4.2 $M
mkdir -p $M/state
# fcntl_lock FILE CMD START LEN: a write lock with F_SETLK or F_SETLKW
fcntl_lock() {
	perl -e 'use Fcntl;
		open(my $f, "+<", $ARGV[0]) or die "open: $!";
		my $cmd = $ARGV[1] eq "wait" ? F_SETLKW : F_SETLK;
		my $fl = pack("s s x4 q q i x4", F_WRLCK, SEEK_SET, $ARGV[2], $ARGV[3], 0);
		fcntl($f, $cmd, $fl) or do { print STDERR "fcntl: $!\n"; exit 1 };
		exit 0;' "$@"
}

if has deleg; then
	echo one >$M/state/d
	sync
	exec 3<$M/state/d
	read -r first <&3
	check_eq "deleg: the guest reads the file" "$first" one
	d0=$(mstat_ops $M DELEGRETURN)
	touch "$XCHG/deleg-opened"
	check "deleg: the host wrote the file" wait_for deleg-written 120
	check_ge "deleg: DELEGRETURN after the host's open for write" \
		$(($(mstat_ops $M DELEGRETURN) - d0)) 1
	exec 3<&-
	check_eq "deleg: the guest reads the host's data" "$(cat $M/state/d)" two
fi

if has locks; then
	head -c 4096 /dev/zero >$M/state/l
	touch "$XCHG/lock-file"
	check "locks: the host holds its lock" wait_for lock-held 120
	l0=$(mstat_ops $M LOCK)
	check "locks: flock -n conflicts with the host's lock" \
		sh -c "! flock -n $M/state/l true"
	check "locks: fcntl F_SETLK on 0..99 conflicts" \
		eval "! fcntl_lock $M/state/l try 0 100"
	check "locks: fcntl F_SETLK on 200..299 is granted" \
		fcntl_lock $M/state/l try 200 100
	check_ge "locks: LOCK calls" $(($(mstat_ops $M LOCK) - l0)) 3
	[ -n "${GUEST_NFS_DEBUG:-}" ] && echo "$GUEST_NFS_DEBUG" >/proc/sys/sunrpc/nfs_debug
	fcntl_lock $M/state/l wait 0 100 &
	waiter=$!
	sleep 2
	check "locks: a blocking lock waits while the host holds it" kill -0 $waiter
	touch "$XCHG/lock-release"
	rc=0
	timeout 90 tail --pid=$waiter -f /dev/null || rc=$?
	check_eq "locks: the blocked lock ended within 90 s" $rc 0
	wrc=0
	wait $waiter || wrc=$?
	check_eq "locks: and was granted" $wrc 0
	check "locks: flock -n works once the host let go" flock -n $M/state/l true
fi
umount $M
g_done
