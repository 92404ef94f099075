# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# Shell helpers for the pristine Debian 12 chroots of scripts/package.sh
# (the build) and tests/package/install_check.sh (the install test).
# Source it; it defines functions only. The callers run in a mount
# namespace of their own (unshare --mount), so that no mount outlives them;
# every mount is still undone before a chroot is removed, and a chroot with
# anything mounted below it is never removed.

# chroot_disk_dir: TMPDIR (default /tmp), or /var/tmp where that is a tmpfs
# (a chroot with build dependencies takes about 2 GB)
chroot_disk_dir() {
	local d
	for d in "${TMPDIR:-/tmp}" /var/tmp; do
		case "$(stat -f -c %T "$d" 2>/dev/null)" in
		tmpfs | ramfs | '') continue ;;
		esac
		echo "$d"
		return 0
	done
	echo "${TMPDIR:-/tmp}"
}

# chroot_base TAR DIR MIRROR LOG: a pristine bookworm minbase system in DIR,
# unpacked from TAR when it exists, else made by debootstrap from MIRROR
# and saved as TAR (so that one run's chroots start from one debootstrap)
chroot_base() {
	local tar=$1 dir=$2 mirror=$3 log=$4
	mkdir -p "$dir"
	if [ -s "$tar" ]; then
		tar -C "$dir" --numeric-owner -xpf "$tar"
		return 0
	fi
	if ! debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		echo "chroot: debootstrap from $mirror failed (log: $log)" >&2
		return 1
	fi
	tar -C "$dir" --numeric-owner -cpf "$tar.tmp" . && mv "$tar.tmp" "$tar"
}

# chroot_mount DIR [--dev]: what a machine has: DIR a mount point (bound
# onto itself), /proc, /sys, a pts instance of its own, tmpfs on /dev/shm
# and /run, the machine's resolv.conf; with --dev, the machine's /dev
# instead of debootstrap's device nodes (block devices, for libblkid)
chroot_mount() {
	local dir=$1
	mount --bind "$dir" "$dir"
	mount -t proc proc "$dir/proc"
	mount -t sysfs sysfs "$dir/sys"
	if [ "${2:-}" = --dev ]; then
		mount --bind /dev "$dir/dev"
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$dir/dev/pts"
	else
		mount -t devpts -o newinstance,ptmxmode=0666 devpts "$dir/dev/pts"
	fi
	mount -t tmpfs -o mode=1777 tmpfs "$dir/dev/shm"
	mount -t tmpfs -o mode=755 tmpfs "$dir/run"
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
}

# chroot_umount DIR: every mount at or below DIR, deepest first; 1 if any
# is left
chroot_umount() {
	local dir=$1 m
	awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { print $5 }' \
		/proc/self/mountinfo | sort -r | while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
	! awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { found = 1 }
		END { exit !found }' /proc/self/mountinfo
}

# chroot_remove DIR: unmount, then remove DIR; refuses (1) while anything
# is still mounted below it
chroot_remove() {
	local dir=$1
	[ -d "$dir" ] || return 0
	if ! chroot_umount "$dir"; then
		echo "chroot: something is still mounted below $dir; not removing it" >&2
		return 1
	fi
	rm -rf --one-file-system "$dir"
}

# chroot_run DIR CMD...: CMD in the chroot as root, with a clean
# environment (plus DEBIAN_FRONTEND=noninteractive)
chroot_run() {
	local dir=$1
	shift
	env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive ${CHROOT_ENV:-} \
		chroot "$dir" "$@"
}
