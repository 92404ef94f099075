# Guest: a write/fsync loop across a server kill -9 and restart (the
# host side is t_restart.sh). The loop appends 4 KiB records (record i
# holds its number) to restart/log with fsync after each, holding a
# flock on restart/lock all along, and reports each fsynced record in
# $XCHG/fsynced. It stops $1 records after the host says "restarted".
# Then: every record is there and right, the lock is still ours.
more=${1:-20}
M=/mnt/n
nfs_mount 4.2 $M
mkdir -p $M/restart
f=$M/restart/log
: >$f
touch $M/restart/lock
exec 9<>$M/restart/lock
check "restart: flock on the lock file" flock -n 9
touch "$XCHG/locked"
rec() { printf 'record %08d\n' "$1" | dd bs=4096 conv=sync status=none; }
i=0 stop=-1
while :; do
	i=$((i + 1))
	rec $i >/tmp/rec
	# append and fsync in one process: dd conv=fsync fails on any error
	if ! dd if=/tmp/rec of=$f bs=4096 seek=$((i - 1)) conv=notrunc,fsync status=none; then
		bad "restart: write+fsync of record $i failed"
		break
	fi
	echo $i >"$XCHG/fsynced.tmp"
	mv "$XCHG/fsynced.tmp" "$XCHG/fsynced"
	if [ $stop -lt 0 ] && [ -e "$XCHG/restarted" ]; then
		stop=$((i + more))
	fi
	[ $stop -ge 0 ] && [ $i -ge $stop ] && break
	[ $i -ge 100000 ] && break
done
n=$i
ok "restart: $n records written and fsynced"
echo $n >"$XCHG/records"
touch "$XCHG/loop-done"
# the host checks the lock from its side, then lets us go on
for ((t = 0; t < 1200; t++)); do
	[ -e "$XCHG/lock-checked" ] && break
	sleep 0.1
done
remount_ok=1
umount $M 2>/dev/null || remount_ok=0
exec 9<&-
umount $M 2>/dev/null || true
nfs_mount 4.2 $M
bad_recs=0
for ((j = 1; j <= n; j++)); do
	got=$(dd if=$f bs=4096 skip=$((j - 1)) count=1 status=none | head -n 1)
	[ "$got" = "$(printf 'record %08d' $j)" ] || bad_recs=$((bad_recs + 1))
done
check_eq "restart: records wrong or missing after the restart" $bad_recs 0
check_eq "restart: file size" "$(stat -c %s $f)" $((n * 4096))
umount $M
g_done
