# Guest: for each NFS version in $@, the everyday operations on a kernel
# mount, byte for byte, and the owners a Linux client shows (numeric for
# AUTH_SYS, like knfsd): root, a uid/gid that /etc/passwd names (daemon,
# 1:1) and one it does not (1234:5678). Leaves basic-V/{file,root,daemon}
# for the host to compare (sums in $XCHG/sums-V).
head -c 3000000 /dev/urandom >/tmp/data
for v in "$@"; do
	m=/mnt/v$v
	nfs_mount "$v" "$m"
	d=$m/basic-$v
	mkdir "$d"
	chmod 1777 "$d"
	cp /tmp/data "$d/file"
	check "v$v: cp'd file reads back identical" cmp /tmp/data "$d/file"
	chown 1234:5678 "$d/file"
	echo root-owned >"$d/root"
	echo daemon-owned >"$d/daemon"
	chown 1:1 "$d/daemon"
	setpriv --reuid 2345 --regid 3456 --clear-groups \
		sh -c "echo by-2345 >'$d/user'"
	check_eq "v$v: ls -ln owner of a chown'd file" \
		"$(ls -ln "$d/file" | awk '{ print $3 ":" $4 }')" 1234:5678
	check_eq "v$v: ls -ln owner of root's file" \
		"$(ls -ln "$d/root" | awk '{ print $3 ":" $4 }')" 0:0
	check_eq "v$v: ls -l owner of daemon's file" \
		"$(ls -l "$d/daemon" | awk '{ print $3 ":" $4 }')" daemon:daemon
	check_eq "v$v: owner of a file uid 2345 created" \
		"$(stat -c %u:%g "$d/user")" 2345:3456
	# overwrite in the middle, then extend
	cp /tmp/data /tmp/want
	head -c 4096 /dev/urandom >/tmp/patch
	dd if=/tmp/patch of=/tmp/want bs=4096 seek=100 conv=notrunc status=none
	dd if=/tmp/patch of="$d/file" bs=4096 seek=100 conv=notrunc status=none
	echo tail >>/tmp/want
	echo tail >>"$d/file"
	mkdir "$d/sub"
	mv "$d/user" "$d/sub/moved"
	check "v$v: rename: old name gone" test ! -e "$d/user"
	check_eq "v$v: rename: new name's data" "$(cat "$d/sub/moved")" by-2345
	ln "$d/file" "$d/hard"
	check_eq "v$v: link count after link" "$(stat -c %h "$d/file")" 2
	ln -s ../file "$d/sub/sym"
	check_eq "v$v: readlink" "$(readlink "$d/sub/sym")" ../file
	check "v$v: read through the symlink" cmp /tmp/want "$d/sub/sym"
	mv "$d/sub/moved" "$d/sub/moved2"
	check "v$v: rename in one directory" test -f "$d/sub/moved2"
	check "v$v: rmdir of a non-empty directory fails" \
		sh -c "! rmdir '$d/sub' 2>/dev/null"
	rm "$d/sub/sym" "$d/sub/moved2"
	rmdir "$d/sub"
	check "v$v: rmdir" test ! -e "$d/sub"
	rm "$d/hard"
	check_eq "v$v: link count after unlink" "$(stat -c %h "$d/file")" 1
	# what the server has, seen by a fresh mount (no client cache)
	umount "$m"
	nfs_mount "$v" "$m"
	check "v$v: after remount, data identical" cmp /tmp/want "$d/file"
	check_eq "v$v: after remount, owner" "$(stat -c %u:%g "$d/file")" 1234:5678
	check_eq "v$v: after remount, root's file owner" "$(stat -c %u:%g "$d/root")" 0:0
	check_eq "v$v: after remount, directory listing" \
		"$(cd "$d" && ls | tr '\n' ' ')" "daemon file root "
	sha256sum /tmp/want | cut -d' ' -f1 >"$XCHG/sums-$v"
	umount "$m"
done
g_done
