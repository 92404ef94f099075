#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# uuidclone-setup.sh setup|cleanup DIR
#
# For e2e_isolation_clones (issue #16, item 2): one ext4 image copied with
# cp, as an admin clones a disk image or takes a snapshot, so the two
# filesystems have the same UUID and their files the same inode numbers
# and generations (equal kernel handles).  Mounted at DIR/a and DIR/b;
# DIR/a/data holds "AAAA...", DIR/b/data (the same inode) "BBBB...".
# Writes two sets of EXPORT blocks for the harness's --conf-extra:
#   DIR/exports.conf           /clone-a, /clone-b (the clone, no override)
#                              and /clone-a-sub (a/sub with its own
#                              Filesystem_Identity): the last two must be
#                              refused
#   DIR/exports-identity.conf  /clone-a and /clone-b with its own
#                              Filesystem_Identity: both served, apart
# or, where loop mounts are not possible, DIR/skip with the reason.
set -eu
verb=$1
d=$2
UUID=12345678-1234-4321-8765-0123456789ab
IDENTITY_B=feedface-0000-4000-8000-00000000000b
IDENTITY_SUB=feedface-0000-4000-8000-0000000000c5

name=uuidclone-setup
mounts="$d/a $d/b"
. "$(dirname "$0")/loopfs-lib.sh"

loopfs_start "$verb"
command -v mkfs.ext4 >/dev/null || loopfs_skip "mkfs.ext4 missing"
truncate -s 32M "$d/a.img"
mkfs.ext4 -q -F -U $UUID "$d/a.img" >/dev/null 2>&1 || loopfs_skip "mkfs.ext4 failed"
mkdir -p "$d/a" "$d/b"
mount -o loop "$d/a.img" "$d/a" 2>/dev/null || loopfs_skip "cannot mount a loop device here"
mkdir "$d/a/sub"
head -c 8192 /dev/zero | tr '\0' A >"$d/a/data"
umount "$d/a"
cp "$d/a.img" "$d/b.img"
mount -o loop "$d/a.img" "$d/a"
mount -o loop "$d/b.img" "$d/b" 2>/dev/null || loopfs_skip "cannot mount a second loop device"
head -c 8192 /dev/zero | tr '\0' B | dd of="$d/b/data" conv=notrunc status=none

exports() { # IDENTITY_LINE_FOR_B
	cat <<CONF
EXPORT {
	Export_Id = 7;
	Path = "$d/a";
	Pseudo = "/clone-a";
	FSAL { Name = SPARSE; }
}
EXPORT {
	Export_Id = 8;
	Path = "$d/b";
	Pseudo = "/clone-b";
	FSAL { Name = SPARSE; $1 }
}
CONF
}
{
	exports ""
	cat <<CONF
EXPORT {
	Export_Id = 9;
	Path = "$d/a/sub";
	Pseudo = "/clone-a-sub";
	FSAL { Name = SPARSE; Filesystem_Identity = "$IDENTITY_SUB"; }
}
CONF
} >"$d/exports.conf"
exports "Filesystem_Identity = \"$IDENTITY_B\";" >"$d/exports-identity.conf"
