#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# btrfs-setup.sh setup|cleanup DIR
#
# For e2e_isolation_clones btrfs: one btrfs filesystem (loop device) at
# DIR/m with two subvolumes, s1 and s2, each with a file "data" ("1111..."
# and "2222...").  Every subvolume has its own device number and the
# filesystem's UUID, like a clone would, but is one filesystem: both
# exports must be served.  Where the kernel tells no UUID for a subvolume
# (FS_IOC_GETFSUUID, and libblkid cannot map its anonymous device), the
# identity would be the device number, so both exports are given the same
# Filesystem_Identity, as one UUID would make it.  Writes DIR/exports.conf,
# or DIR/skip with the
# reason where it cannot be made (not root, no btrfs-progs, no loop
# devices, no btrfs in the kernel).
set -eu
verb=$1
d=$2
IDENTITY=b7f5b7f5-0000-4000-8000-00000000b7f5

name=btrfs-setup
mounts="$d/m"
. "$(dirname "$0")/loopfs-lib.sh"

loopfs_start "$verb"
command -v mkfs.btrfs >/dev/null || loopfs_skip "mkfs.btrfs (btrfs-progs) missing"
truncate -s 128M "$d/btrfs.img"
mkfs.btrfs -q -f "$d/btrfs.img" >/dev/null 2>&1 || loopfs_skip "mkfs.btrfs failed"
mkdir -p "$d/m"
mount -o loop "$d/btrfs.img" "$d/m" 2>/dev/null ||
	loopfs_skip "cannot mount a btrfs loop device here"
btrfs -q subvolume create "$d/m/s1" >/dev/null
btrfs -q subvolume create "$d/m/s2" >/dev/null
head -c 8192 /dev/zero | tr '\0' 1 >"$d/m/s1/data"
head -c 8192 /dev/zero | tr '\0' 2 >"$d/m/s2/data"
cat >"$d/exports.conf" <<CONF
EXPORT {
	Export_Id = 10;
	Path = "$d/m/s1";
	Pseudo = "/subvol-1";
	FSAL { Name = SPARSE; Filesystem_Identity = "$IDENTITY"; }
}
EXPORT {
	Export_Id = 11;
	Path = "$d/m/s2";
	Pseudo = "/subvol-2";
	FSAL { Name = SPARSE; Filesystem_Identity = "$IDENTITY"; }
}
CONF
