# Guest: third-party workloads from Debian packages on a vers=4.2 kernel
# mount, each with its own verification. $1: comma list of stress, fio,
# rsync, git, sqlite (default all). Leaves rsync/sparse for the host
# (holes) and its sum in $XCHG.
want=${1:-stress,fio,rsync,git,sqlite}
has() { case ",$want," in *",$1,"*) return 0 ;; esac; return 1; }
M=/mnt/n
nfs_mount 4.2 $M ${GUEST_MOUNT_OPTS:-}

t0=$(date +%s)
lap() { echo "time: $1 $(($(date +%s) - t0)) s"; t0=$(date +%s); }
if has stress; then
	mkdir -p $M/stress
	# one instance of each filesystem stressor at once, verifying
	# xattr's loop (hundreds of xattr calls) is too slow under TCG to
	# share the run: it runs alone below, until one loop has completed
	stressors="copy-file fallocate seek dir rename link symlink lockf flock fcntl hdd sync-file"
	args=()
	for s in $stressors; do args+=(--"$s" 1); done
	set +e
	stress-ng --temp-path $M/stress --verify --seek-punch --hdd-bytes 8M \
		--seek-size 16M --copy-file-bytes 128M --fallocate-bytes 8M \
		--timeout "${GUEST_STRESS_SECS:-20}" --metrics-brief \
		"${args[@]}" >/tmp/stress.log 2>&1
	rc=$?
	set -e
	cat /tmp/stress.log
	check_eq "stress-ng exit status" $rc 0
	check "stress-ng: no failure or verification error" \
		sh -c "! grep -Eiq 'fail|verif.*(error|mismatch)|unexpected' /tmp/stress.log"
	check "stress-ng: successful run" grep -q "successful run completed" /tmp/stress.log
	set +e
	stress-ng --temp-path $M/stress --verify --xattr 1 --xattr-ops 1 \
		--timeout 300 --metrics-brief >>/tmp/stress.log 2>&1
	rc=$?
	set -e
	tail -n 4 /tmp/stress.log
	check_eq "stress-ng --xattr exit status" $rc 0
	for s in $stressors xattr; do
		check_ge "stress-ng: $s bogo ops" "$(awk -v s="$s" '$2 == "metrc:" && $4 == s && $5 ~ /^[0-9]+$/ { print $5; exit }' /tmp/stress.log)" 1
	done
	rm -rf $M/stress
fi

lap stress
if has fio; then
	mkdir -p $M/fio
	set +e
	fio --name=rw --directory=$M/fio --size=8M --bs=4k --rw=randwrite \
		--ioengine=psync --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--fsync=64 --numjobs=2 --group_reporting >/tmp/fio.log 2>&1
	rc1=$?
	fio --name=seqv --directory=$M/fio --size=32M --bs=1M --rw=write \
		--ioengine=psync --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--end_fsync=1 >>/tmp/fio.log 2>&1
	rc2=$?
	set -e
	tail -n 30 /tmp/fio.log
	check_eq "fio randwrite verify=crc32c exit status" $rc1 0
	check_eq "fio sequential verify=crc32c exit status" $rc2 0
	check "fio: no verify failure" sh -c "! grep -Eiq 'verify.*(fail|bad)|crc32c.*wanted' /tmp/fio.log"
	rm -rf $M/fio
fi

lap fio
if has rsync; then
	mkdir -p $M/rsync
	truncate -s 32M /tmp/rs
	head -c 1048576 /dev/urandom | dd of=/tmp/rs bs=1M seek=8 conv=notrunc status=none
	check "rsync -S of a sparse file" rsync -S /tmp/rs $M/rsync/sparse
	check "rsync -a of /usr/include/linux" rsync -a /usr/include/linux/ $M/rsync/inc/
	umount $M
	nfs_mount 4.2 $M
	check "rsync: sparse file identical" cmp /tmp/rs $M/rsync/sparse
	check "rsync: tree identical" diff -r /usr/include/linux $M/rsync/inc
	check "rsync: second run has nothing to send" \
		sh -c "[ -z \"\$(rsync -ai /usr/include/linux/ $M/rsync/inc/)\" ]"
	sha256sum </tmp/rs | cut -d' ' -f1 >"$XCHG/rsync.sum"
fi

lap rsync
if has git; then
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
	g=$M/git/repo
	mkdir -p $M/git
	git init -q $g
	cp -r /usr/include/linux $g/linux
	git -C $g add -A
	check "git commit" git -C $g commit -qm one
	echo change >>$g/linux/types.h
	git -C $g commit -qam two
	check "git fsck" git -C $g fsck --strict --no-progress
	check_eq "git status clean" "$(git -C $g status --porcelain)" ""
	check "git clone from the mount" git clone -q $g /tmp/clone
	check "git clone's tree identical" diff -r --exclude=.git $g /tmp/clone
	check "git gc on the mount" git -C $g gc -q
	check "git fsck after gc" git -C $g fsck --strict --no-progress
	check_eq "git log after gc" "$(git -C $g log --format=%s | tr '\n' ' ')" "two one "
fi

lap git
if has sqlite; then
	mkdir -p $M/sql
	db=$M/sql/t.db
	sqlite3 $db "PRAGMA journal_mode=DELETE; CREATE TABLE t(i INTEGER PRIMARY KEY, v TEXT);" >/dev/null
	for b in $(seq 1 20); do
		{
			echo "BEGIN;"
			for i in $(seq 1 50); do
				echo "INSERT INTO t(v) VALUES(hex(randomblob(64)));"
			done
			echo "COMMIT;"
		} | sqlite3 $db
	done
	sqlite3 $db "UPDATE t SET v = 'x' || v WHERE i % 3 = 0; DELETE FROM t WHERE i % 7 = 0;"
	check_eq "sqlite: integrity_check" "$(sqlite3 $db 'PRAGMA integrity_check;')" ok
	check_eq "sqlite: rows" "$(sqlite3 $db 'SELECT count(*) FROM t;')" 858
	sqlite3 $db "PRAGMA journal_mode=WAL;" >/dev/null
	sqlite3 $db "INSERT INTO t(v) VALUES('wal'); VACUUM;" 2>/dev/null || true
	umount $M
	nfs_mount 4.2 $M
	check_eq "sqlite: integrity_check after remount" "$(sqlite3 $db 'PRAGMA integrity_check;')" ok
	check_eq "sqlite: rows after remount" "$(sqlite3 $db 'SELECT count(*) FROM t;')" 859
fi
lap sqlite
umount $M
g_done
