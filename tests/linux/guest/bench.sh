# Guest: the same client-side workloads against our server ("ours") or
# knfsd running in this guest ("knfsd", vm.sh --pre guest/knfsd-pre.sh),
# counted with the kernel client's own per-op statistics after a fresh
# mount each: bytes received for reading three 1 GiB sparse files (all
# hole, 90 % hole, all data; made beforehand: by t_bench.sh on our
# backing directory, here in knfsd's export), COPY calls and bytes for
# a cp of the all-data file, and the calls per entry of tar -x, ls -lR,
# git status and rm -r on /usr/include/linux. Results: $XCHG/bench-$1.
# A second argument "tree" runs the tree workloads alone.
target=$1 parts=${2:-all}
G=1073741824 MB=1048576
M=/mnt/b
if [ "$target" = knfsd ]; then
	# knfsd-pre.sh names the path to mount
	export NFS_SERVER=127.0.0.1 NFS_PORT=2049 EXPORT=$(cat $XCHG/knfsd-export)
	mk_files() {
		local d=/run/export/bench i
		mkdir -p $d
		truncate -s 1G $d/hole
		truncate -s 1G $d/ninety
		for ((i = 0; i < 1024; i += 10)); do
			dd if=/dev/zero of=$d/ninety bs=1M seek=$i count=1 conv=notrunc status=none
		done
		dd if=/dev/zero of=$d/data bs=1M count=1024 status=none
	}
	[ "$parts" = tree ] || mk_files
fi
out=$XCHG/bench-$target
: >$out
nfs_mount 4.2 $M
snap() { mstat_all $M | sort >"$1"; }
# measure NAME CMD...: remount, run CMD, record every op's calls
# ("NAME op OP N") and the totals of calls and received/sent bytes
measure() {
	local name=$1
	shift
	umount $M
	nfs_mount 4.2 $M
	snap /tmp/before
	local t0=$(date +%s)
	"$@"
	local t1=$(date +%s)
	snap /tmp/after
	join -a 2 -e 0 -o 2.1,1.2,2.2 /tmp/before /tmp/after |
		awk -v n="$name" '{ d = $3 - $2; if (d > 0) { print n, "op", $1, d; t += d } }
			END { print n, "total", t + 0 }' >>$out
	for op in READ READ_PLUS WRITE COPY; do
		echo "$name rx $op $(mstat_field $M $op 5)" >>$out
		echo "$name tx $op $(mstat_field $M $op 4)" >>$out
	done
	echo "$name secs $((t1 - t0))" >>$out
}
readall() { cat "$1" >/dev/null; }
if [ "$parts" != tree ]; then
	measure read_hole readall $M/bench/hole
	measure read_ninety readall $M/bench/ninety
	measure read_data readall $M/bench/data
	measure cp cp $M/bench/data $M/bench/data-copy
	check "cp: copy identical" cmp $M/bench/data $M/bench/data-copy
	rm -f $M/bench/data-copy
fi
tar -C /usr/include -cf /tmp/inc.tar linux
entries=$(tar -tf /tmp/inc.tar | wc -l)
echo "entries $entries" >>$out
mkdir -p $M/t
measure tar tar -C $M/t -xf /tmp/inc.tar
check "tar -x: tree identical" diff -r /usr/include/linux $M/t/linux
measure lslR sh -c "ls -lR $M/t >/dev/null"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
git -C $M/t init -q
git -C $M/t add -A
git -C $M/t commit -qm tree
measure gitstatus sh -c "git -C $M/t status --porcelain >/tmp/status"
check_eq "git status: clean" "$(cat /tmp/status)" ""
measure rmr rm -r $M/t
check "rm -r: gone" test ! -e $M/t
umount $M
cat $out | grep -E "total|rx READ|rx COPY|secs|entries"
g_done
