#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# clonefs-setup.sh setup|cleanup DIR
#
# For e2e_proto_clone: a fresh 300 MiB XFS filesystem with reflink
# (mkfs.xfs -m reflink=1; $CLONEFS_SIZE, e.g. 3G for bench/copy.sh, sets
# another size) on a loop device, mounted at DIR/x.  Writes
# DIR/exports.conf (an EXPORT block /xfs for the harness's --conf-extra)
# or, where it cannot be made (not root, no xfsprogs, no loop devices),
# DIR/skip with the reason.  CLONEFS_COPY_ENGINE, if set, is the export's
# Copy_Engine.
set -eu
verb=$1
d=$2

name=clonefs-setup
mounts="$d/x"
. "$(dirname "$0")/loopfs-lib.sh"

loopfs_start "$verb"
mkdir -p "$d/x"
command -v mkfs.xfs >/dev/null || loopfs_skip "mkfs.xfs (xfsprogs) missing"
truncate -s "${CLONEFS_SIZE:-300M}" "$d/xfs.img"
mkfs.xfs -q -m reflink=1 "$d/xfs.img" >/dev/null 2>&1 ||
	loopfs_skip "mkfs.xfs -m reflink=1 failed"
mount -o loop "$d/xfs.img" "$d/x" 2>/dev/null ||
	loopfs_skip "cannot mount a loop device here"

engine=
[ -z "${CLONEFS_COPY_ENGINE:-}" ] || engine="Copy_Engine = $CLONEFS_COPY_ENGINE; "
cat >"$d/exports.conf" <<CONF
EXPORT {
	Export_Id = 6;
	Path = "$d/x";
	Pseudo = "/xfs";
	FSAL { Name = SPARSE; $engine}
}
CONF
