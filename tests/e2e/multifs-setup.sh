#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# multifs-setup.sh setup|cleanup DIR
#
# For e2e_fsal_multifs: two fresh ext4 filesystems on loop devices, mounted
# at DIR/a and DIR/b.  Fresh ext4 filesystems give their root and first
# files the same inode numbers and generations, so their kernel handles are
# equal: exactly what must not mix.  Their UUIDs are fixed here so the test
# knows the fsid to expect.  Writes DIR/exports.conf (two EXPORT blocks for
# the harness's --conf-extra) or, where loop mounts are not possible (not
# root, no loop devices), DIR/skip with the reason.
set -eu
verb=$1
d=$2
UUID_A=11111111-2222-3333-4444-555555555555
UUID_B=66666666-7777-8888-9999-aaaaaaaaaaaa

name=multifs-setup
mounts="$d/a $d/b"
. "$(dirname "$0")/loopfs-lib.sh"

make_fs() { # image uuid mountpoint
	truncate -s 32M "$1"
	mkfs.ext4 -q -F -U "$2" "$1" >/dev/null 2>&1 || return 1
	mkdir -p "$3"
	mount -o loop "$1" "$3" 2>/dev/null
}

loopfs_start "$verb"
command -v mkfs.ext4 >/dev/null || loopfs_skip "mkfs.ext4 missing"
make_fs "$d/a.img" $UUID_A "$d/a" || loopfs_skip "cannot mount a loop device here"
make_fs "$d/b.img" $UUID_B "$d/b" || loopfs_skip "cannot mount a second loop device"

printf 'alpha file\n' >"$d/a/only-in-a"
printf 'b\n' >"$d/b/only-in-b"
mkdir "$d/a/dir-a" "$d/b/dir-b"

cat >"$d/exports.conf" <<CONF
EXPORT {
	Export_Id = 4;
	Path = "$d/a";
	Pseudo = "/fsa";
	FSAL { Name = SPARSE; }
}
EXPORT {
	Export_Id = 5;
	Path = "$d/b";
	Pseudo = "/fsb";
	FSAL { Name = SPARSE; Fsid_Type = DEVICE; }
}
CONF
