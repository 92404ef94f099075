# Guest side of t_delegts.sh (issue #30 item 4): the 6.12 client's write
# workloads against a server advertising OPEN_XOR_DELEGATION and
# DELEG_TIMESTAMPS: tar -x of a tree, cp -r of it, git add/commit, then
# git status after a fresh mount (the read delegations git add got were
# returned at the umount). The host checks the wire (tshark) and the
# backing files' times; here: the per-op counts (mountstats) of each
# workload into $XCHG/ops, and the files' mtimes as tar set them.
M=/mnt/d
nfs_mount 4.2 $M
mkdir -p $M/t
tar -C /usr/include -cf /tmp/tree.tar linux/netfilter
# name and mtime of every regular file, as the archive has them
tar -C /usr/include -cf - linux/netfilter | tar -tvf - --full-time |
	awk '$1 ~ /^-/ { print $6 }' | sort >"$XCHG/files"
for f in $(cat "$XCHG/files"); do
	echo "$f $(stat -c %Y /usr/include/$f)"
done >"$XCHG/mtimes"
snap() { mstat_all $M | sort >"$1"; }
# measure NAME CMD...: run CMD, append "NAME OP N" for every op it made
measure() {
	local name=$1
	shift
	snap /tmp/before
	"$@"
	snap /tmp/after
	join -a 2 -e 0 -o 2.1,1.2,2.2 /tmp/before /tmp/after |
		awk -v n="$name" '{ d = $3 - $2; if (d > 0) print n, $1, d }' \
			>>"$XCHG/ops"
}
: >"$XCHG/ops"
measure tar tar -C $M/t -xf /tmp/tree.tar
check "tar -x: tree identical" diff -r /usr/include/linux/netfilter $M/t/linux/netfilter
measure cp cp -r $M/t/linux $M/c
check "cp -r: tree identical" diff -r /usr/include/linux/netfilter $M/c/netfilter
# the host stats some files while this client still holds their
# delegations (CB_GETATTR): it must see tar's mtimes
touch "$XCHG/extracted"
check "the host stat-ed the files" wait_for host-stated 300
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
remount 4.2 $M
git -C $M/t init -q
measure gitadd git -C $M/t add -A
git -C $M/t commit -qm tree
f=$M/t/$(head -n 1 "$XCHG/files")
stat -c '%X %Y %Z' "$f" >"$XCHG/stat-after-add"
remount 4.2 $M
stat -c '%X %Y %Z' "$f" >"$XCHG/stat-after-remount"
measure status1 sh -c "git -C $M/t status --porcelain >/tmp/status"
check_eq "git status: clean" "$(cat /tmp/status)" ""
# git add recorded every file's stat data; returning the read
# delegations it got (at the umount) must not change them: no file of the
# tree read again, only git's own (7 READ_PLUS of .git: index, HEAD,
# config, ...; with the atime delegated 101, every file)
reads() { awk -v n="$1" '$1 == n && ($2 == "READ" || $2 == "READ_PLUS") { t += $3 }
	END { print t + 0 }' "$XCHG/ops"; }
check_le "git status read no file of the tree" "$(reads status1)" 10
check_eq "the ctime git add saw is the file's after the remount" \
	"$(cut -d' ' -f3 "$XCHG/stat-after-remount")" "$(cut -d' ' -f3 "$XCHG/stat-after-add")"
remount 4.2 $M
measure status2 sh -c "git -C $M/t status --porcelain >/tmp/status"
check_eq "git status again: clean" "$(cat /tmp/status)" ""
check_le "git status again read no file of the tree" "$(reads status2)" 10
umount $M
cat "$XCHG/ops" "$XCHG/stat-after-add" "$XCHG/stat-after-remount"
g_done
