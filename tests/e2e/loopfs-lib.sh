# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# Sourced by the loop-device fixtures (multifs-setup.sh, clonefs-setup.sh).
# The caller sets d (the fixture directory), name (for messages) and mounts
# (its mount points, space-separated), then calls loopfs_start "$verb".

# Unmount the fixture's filesystems and remove its directory.
loopfs_cleanup() {
	for m in $mounts; do
		if mountpoint -q "$m" 2>/dev/null; then
			umount "$m" || umount -l "$m"
		fi
	done
	rm -rf "$d"
}

# The fixture cannot be made here: say why in DIR/skip (the test exits 77
# with it) and leave an empty exports.conf (the harness still includes it).
loopfs_skip() {
	echo "$*" >"$d/skip"
	: >"$d/exports.conf"
	echo "$name: $*" >&2
	exit 0
}

# cleanup: unmount, remove, exit.  setup: start from an empty DIR, as root.
loopfs_start() {
	case $1 in
	cleanup)
		loopfs_cleanup
		exit 0
		;;
	setup) ;;
	*)
		echo "usage: $name setup|cleanup DIR" >&2
		exit 2
		;;
	esac
	loopfs_cleanup
	mkdir -p "$d"
	[ "$(id -u)" = 0 ] || loopfs_skip "loop mounts need root"
}
