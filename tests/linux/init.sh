#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# /init of the tests/linux guest (busybox sh, in the initramfs vm.sh
# builds). Loads the modules listed in /modules.load, mounts the host's
# root read-only (9p tag "hostroot") on /host and the run's exchange
# directory (9p tag "xchg") on /xchg, configures the one network link
# (10.0.2.15/24; QEMU's user network, restricted to the forwarded server
# ports), and runs /xchg/main.sh with bash chrooted into /host, where
# /tmp, /run, /mnt, /var/tmp and /root are fresh tmpfs and the exchange
# directory is /run/xchg (after /xchg/pre.sh, when there is one, has run
# with busybox sh outside the chroot). Its exit status goes to /xchg/rc, the guest's
# kernel log to /xchg/dmesg; then the VM powers off (QEMU runs with
# -no-reboot, so a reboot ends it).
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1

say() { echo "init: $*"; }
finish() {
	sync
	reboot -f
	sleep 60
}

while read -r m; do
	insmod "/lib/modules/$m.ko" || say "insmod $m failed"
done </modules.load
mkdir -p /host /xchg
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 xchg /xchg ||
	{ say "cannot mount the exchange directory"; finish; }
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 \
	hostroot /host || { say "cannot mount the host root"; finish; }

ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2

mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
mount -t devtmpfs devtmpfs /host/dev
mkdir -p /host/dev/pts /host/dev/shm 2>/dev/null
mount -t devpts devpts /host/dev/pts 2>/dev/null
mount -t tmpfs tmpfs /host/dev/shm 2>/dev/null
for d in tmp run mnt var/tmp root; do
	mount -t tmpfs -o mode=1777 tmpfs "/host/$d" || say "no tmpfs on /$d"
done
mkdir -p /host/run/xchg
mount -o bind /xchg /host/run/xchg
# a setup step outside the chroot (knfsd's exports live in this root,
# where nfsd's kernel threads resolve paths)
if [ -f /xchg/pre.sh ]; then
	say "running pre.sh"
	sh /xchg/pre.sh >/xchg/pre.log 2>&1 || say "pre.sh exited $?"
fi
echo "$(date +%s)" >/xchg/booted
say "running main.sh"
chroot /host /bin/bash /run/xchg/main.sh >/xchg/output 2>&1
echo $? >/xchg/rc.tmp
# the NFS mounts a script left behind (its server may be gone: lazily)
awk '$3 ~ /^nfs/ { print $2 }' /proc/mounts | sort -r | while read -r m; do
	umount -l "$m" 2>/dev/null
done
dmesg >/xchg/dmesg 2>/dev/null
mv /xchg/rc.tmp /xchg/rc
say "main.sh exited $(cat /xchg/rc)"
finish
