#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# install-deps.sh [--check]
#
# Installs the Debian packages the build, the tests and the wire checks
# need, when any is missing. With --check it only lists the missing ones
# and exits 1 if there are any.
#
# The Ceph lane (ctest label ceph, docs/cluster.md) needs Ceph's daemons
# and ceph-fuse (about 90 packages, two minutes to install): they are
# installed too unless SPARSE_CEPH_LANE=off, which leaves them out (the
# lane then skips, saying what is missing). Ganesha's Ceph support
# (FSAL_CEPH, RADOS recovery and URLs) is always built: librados-dev and
# libcephfs-dev are build dependencies.
set -euo pipefail

packages=(
	build-essential cmake bison flex pkg-config git patch ca-certificates
	debian-archive-keyring
	liburcu-dev libcap-dev libblkid-dev uuid-dev libacl1-dev
	libkrb5-dev libnsl-dev libsqlite3-dev libdbus-1-dev
	check
	tshark xfsprogs btrfs-progs iproute2 procps util-linux
	dbus-daemon dbus-bin
	strace sqlite3
	clang libclang-rt-14-dev
	qemu-system-x86 busybox-static cpio xz-utils file
	stress-ng fio rsync attr
	libnfs-utils debootstrap
	librados-dev libcephfs-dev
)
case ${SPARSE_CEPH_LANE:-on} in
on) packages+=(ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph-common python3-rados) ;;
off) ;;
*)
	echo "install-deps: SPARSE_CEPH_LANE is on or off, not '$SPARSE_CEPH_LANE'" >&2
	exit 2
	;;
esac

# FSAL_VFS finds its filesystems through /etc/mtab (setmntent), which a
# minimal Debian (debootstrap --variant=minbase) does not have: without it
# FSAL_VFS refuses every export.  Debian's usual link is made when missing.
if [ ! -e /etc/mtab ] && [ ! -L /etc/mtab ]; then
	if [ "${1:-}" = --check ]; then
		echo "missing: /etc/mtab (the link to ../proc/self/mounts)"
		exit 1
	elif [ "$(id -u)" -eq 0 ]; then
		ln -s ../proc/self/mounts /etc/mtab
		echo "install-deps: /etc/mtab was missing; made the usual link to ../proc/self/mounts"
	else
		echo "install-deps: /etc/mtab is missing (FSAL_VFS needs it); as root: ln -s ../proc/self/mounts /etc/mtab" >&2
	fi
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done

[ ${#missing[@]} -eq 0 ] && exit 0
if [ "${1:-}" = --check ]; then
	echo "missing packages: ${missing[*]}"
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: need root to install: ${missing[*]}" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no, quietly.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	debconf-set-selections
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
