#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# fsal_ceph_check.sh (under harness.sh --ceph): ganesha.nfsd with FSAL_CEPH
# serves a directory of the lane's CephFS, and what goes through NFS is
# what another CephFS client (the harness's ceph-fuse mount,
# NFS42_BACKING) sees, both ways:
# - our client nfs42 as NFSv4.2 and 4.1: a file with holes written with
#   `put` is the same bytes through ceph-fuse and through `cat`; a file written through
#   ceph-fuse is read back by `cat`; `ls -l` names and sizes; mkdir, mv,
#   ln -s/readlink, truncate, chmod, rm, rmdir seen through ceph-fuse; a
#   server-side `cp` gives the same bytes; user xattrs (RFC 8276) set
#   through NFS are the file's user.* xattrs in CephFS;
# - with NFSv3 served (harness --protocols "3, 4", NFS42_MNT_PORT, and
#   Mount_Path_Pseudo = true as in the sample configuration), Debian's
#   libnfs clients read and write the same files over NFSv3, and read one
#   over NFSv4.0 when the server has it (SPARSE_MINOR_VERSIONS "0, 1, 2").
# (The client records, in RADOS with the harness's default rados_ng, are
# the recovery tests' subject: every nfs42 run here destroys its client
# ID when it exits.)
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
nfs42=${SPARSE_NFS42:?}
. "$repo/tests/check-lib.sh"
n=("$nfs42" -p "$NFS42_PORT")
exp=$NFS42_EXPORT
back=$NFS42_BACKING
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fsal-ceph.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# a 5 MiB file: data, a 2 MiB hole, data, a trailing hole
mkfile() {
	rm -f "$1"
	head -c 1048576 /dev/urandom >"$1"
	head -c 1000000 /dev/urandom | dd of="$1" bs=1 seek=3145728 conv=notrunc status=none
	truncate -s 5242880 "$1"
}

for m in 2 1; do
	v=(-m "$m")
	d=v4$m
	check "mkdir-$d" 0 "" -- "${n[@]}" "${v[@]}" mkdir "$exp/$d"
	ok "mkdir-seen-$d" test -d "$back/$d"
	mkfile "$tmp/f$m"
	check "put-$d" 0 "" -- "${n[@]}" "${v[@]}" put "$tmp/f$m" "$exp/$d/f"
	ok "put-same-in-cephfs-$d" cmp -s "$tmp/f$m" "$back/$d/f"
	check "cat-$d" 0 "" -- "${n[@]}" "${v[@]}" cat "$exp/$d/f" -o "$tmp/f$m.back"
	ok "cat-same-$d" cmp -s "$tmp/f$m" "$tmp/f$m.back"
	head -c 70000 /dev/urandom >"$tmp/g$m"
	cp "$tmp/g$m" "$back/$d/from-cephfs"
	check "cat-cephfs-file-$d" 0 "" -- "${n[@]}" "${v[@]}" cat "$exp/$d/from-cephfs" -o "$tmp/g$m.back"
	ok "cat-cephfs-file-same-$d" cmp -s "$tmp/g$m" "$tmp/g$m.back"
	check "ls-$d" 0 " 5242880 .* f$" -- "${n[@]}" "${v[@]}" ls -l "$exp/$d"
	check "ls-cephfs-file-$d" 0 " 70000 .* from-cephfs$" -- "${n[@]}" "${v[@]}" ls -l "$exp/$d"
	check "mv-$d" 0 "" -- "${n[@]}" "${v[@]}" mv "$exp/$d/f" "$exp/$d/renamed"
	ok "mv-seen-$d" test -f "$back/$d/renamed" -a ! -e "$back/$d/f"
	check "symlink-$d" 0 "" -- "${n[@]}" "${v[@]}" ln -s renamed "$exp/$d/link"
	ok "symlink-seen-$d" test "$(readlink "$back/$d/link")" = renamed
	check "readlink-$d" 0 "^renamed$" -- "${n[@]}" "${v[@]}" readlink "$exp/$d/link"
	check "truncate-$d" 0 "" -- "${n[@]}" "${v[@]}" truncate "$exp/$d/renamed" 4096
	ok "truncate-seen-$d" test "$(stat -c %s "$back/$d/renamed")" = 4096
	check "chmod-$d" 0 "" -- "${n[@]}" "${v[@]}" chmod 0640 "$exp/$d/renamed"
	ok "chmod-seen-$d" test "$(stat -c %a "$back/$d/renamed")" = 640
	check "rm-$d" 0 "" -- "${n[@]}" "${v[@]}" rm "$exp/$d/renamed"
	ok "rm-seen-$d" test ! -e "$back/$d/renamed"
	check "rm-missing-$d" 1 "NFS4ERR_NOENT" -- "${n[@]}" "${v[@]}" rm "$exp/$d/renamed"
	check "rmdir-notempty-$d" 1 "NFS4ERR_NOTEMPTY" -- "${n[@]}" "${v[@]}" rmdir "$exp/$d"
done

# NFSv4.2 only: server-side copy and extended attributes
check cp 0 "" -- "${n[@]}" cp "$exp/v42/from-cephfs" "$exp/v42/copy"
ok cp-same cmp -s "$tmp/g2" "$back/v42/copy"
check xattr-set 0 "" -- "${n[@]}" xattr set "$exp/v42/copy" color blue
ok xattr-in-cephfs test "$(getfattr --only-values -n user.color "$back/v42/copy" 2>/dev/null)" = blue
setfattr -n user.shape -v round "$back/v42/copy"
check xattr-get 0 "^round$" -- "${n[@]}" xattr get "$exp/v42/copy" shape
check xattr-ls 0 "color" -- "${n[@]}" xattr ls "$exp/v42/copy"

# NFSv3 (harness --protocols "3, 4"): Debian's libnfs clients
if [ -n "${NFS42_MNT_PORT:-}" ]; then
	url="nfs://127.0.0.1$exp/v42/from-cephfs?nfsport=$NFS42_PORT&mountport=$NFS42_MNT_PORT"
	check v3-cat 0 "" -- sh -c "nfs-cat '$url' >'$tmp/v3.back'"
	ok v3-cat-same cmp -s "$tmp/g2" "$tmp/v3.back"
	head -c 30000 /dev/urandom >"$tmp/v3.up"
	check v3-cp 0 "" -- nfs-cp "$tmp/v3.up" \
		"nfs://127.0.0.1$exp/v42/v3-up?nfsport=$NFS42_PORT&mountport=$NFS42_MNT_PORT"
	ok v3-cp-in-cephfs cmp -s "$tmp/v3.up" "$back/v42/v3-up"
	check v3-ls 0 "from-cephfs" -- nfs-ls \
		"nfs://127.0.0.1$exp/v42?nfsport=$NFS42_PORT&mountport=$NFS42_MNT_PORT"
fi
if [[ "${SPARSE_MINOR_VERSIONS:-}" == *0* ]]; then
	check v40-cat 0 "" -- sh -c \
		"nfs-cat 'nfs://127.0.0.1$exp/v42/from-cephfs?version=4&nfsport=$NFS42_PORT' >'$tmp/v40.back'"
	ok v40-cat-same cmp -s "$tmp/g2" "$tmp/v40.back"
fi

check_summary fsal_ceph_check
