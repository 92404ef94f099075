#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# vm.sh [--mem MIB] [--smp N] [--timeout S] [--fwd PORT]... [--modules "M..."]
#       [--env K=V]... [--pre SCRIPT] [--out DIR] [--keep] [--open-net]
#       -- GUEST_SCRIPT [ARGS]
#
# Boots the pinned Debian kernel (fetch-kernel.sh) under QEMU with a busybox
# initramfs (init.sh), runs GUEST_SCRIPT ARGS with bash in the guest, chrooted
# into this machine's root (shared read-only over 9p; /tmp, /run, /mnt,
# /var/tmp, /root are the guest's tmpfs), prints its output and exits with
# its exit status. --pre SCRIPT runs first with busybox sh outside the
# chroot (guest/knfsd-pre.sh starts knfsd there), with the --env and
# GUEST_* variables below exported. --modules loads more
# kernel modules (with their dependencies) at boot.
#
# The guest's network is QEMU's user network with restrict=on: it reaches
# nothing but the guestfwd ports, each --fwd PORT (and NFS42_PORT,
# NFS42_MNT_PORT and harness.sh --pnfs's NFS42_DS_PORTS when set) as
# 10.0.2.100:PORT, which QEMU connects, one `busybox nc` per connection,
# to 127.0.0.1:PORT on this machine.  --open-net lifts the restriction:
# the guest may then also connect out to any address (QEMU connects for
# it from this machine): 10.0.2.2 is this machine's 127.0.0.1, any other
# address of this machine (a bridge's, scripts/ceph-cluster.sh start
# --bridge) is reached as itself (the Ceph kernel client, t_cephfs.sh).
#
# In the guest: NFS_SERVER (10.0.2.100), NFS_PORT (NFS42_PORT),
# NFS_EXPORT (NFS42_EXPORT), NFS_MOUNTPORT (NFS42_MNT_PORT: the MOUNT
# protocol's port of a server with NFSv3, also forwarded), NFS_BACKING
# (NFS42_BACKING: the export's path, which NFSv3's MOUNT takes), REPO (this repository), XCHG (/run/xchg, the
# run's directory shared read-write with the host: OUT/xchg here), every
# --env K=V, every GUEST_* variable of vm.sh's environment, and the
# functions of guest-lib.sh (sourced first).
#
# OUT (--out, else a new directory under TMPDIR) keeps console.log (the
# serial console), xchg/output (the script's output), xchg/dmesg; it is
# removed after a success unless --keep or --out; kept (path printed) after
# a failure. Exit status: the script's, 77 (skipped, reason printed) where
# qemu-system-x86 is missing or the kernel cannot be fetched, 1 when the
# guest did not finish (timeout, crash: see console.log).
#
# A guest that does not reach its script (panic in early boot, or not
# booted within SPARSE_LINUX_BOOT_LIMIT seconds, default 240) is booted
# again, up to SPARSE_LINUX_BOOT_TRIES times in all (default 3); each
# failed boot's console is kept as console.boot-N.log.
#
# Environment: SPARSE_LINUX_CACHE (default ~/.cache/nfs-sparse/linux),
# SPARSE_LINUX_ACCEL (kvm, tcg, or auto: KVM where a probe boot of this
# kernel works, remembered per host kernel and QEMU version; else TCG).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
mem=1536
smp=2
timeout=600
fwd=()
modules=""
envs=()
pre=""
out=""
keep=0
restrict=on
while [ $# -gt 0 ]; do
	case "$1" in
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--fwd) fwd+=("$2"); shift 2 ;;
	--modules) modules="$modules $2"; shift 2 ;;
	--env) envs+=("$2"); shift 2 ;;
	--pre) pre=$2; shift 2 ;;
	--out) out=$2; keep=1; shift 2 ;;
	--keep) keep=1; shift ;;
	--open-net) restrict=off; shift ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: vm.sh [options] -- GUEST_SCRIPT [ARGS]" >&2; exit 2; }
script=$1
shift

skip() {
	echo "linux-vm: skipped: $*"
	exit 77
}

qemu=$(command -v qemu-system-x86_64 || true)
[ -n "$qemu" ] || skip "qemu-system-x86_64 missing (Debian package qemu-system-x86; scripts/install-deps.sh)"
busybox=$(command -v busybox || true)
# (no "cmd | grep -q" under pipefail: grep's early exit can fail cmd)
[ -n "$busybox" ] && grep -qx insmod <<<"$("$busybox" --list 2>/dev/null)" ||
	skip "busybox missing (Debian package busybox-static)"
grep -q 'statically linked' <<<"$(file -L "$busybox" 2>/dev/null)" ||
	grep -q 'not a dynamic' <<<"$(ldd "$busybox" 2>&1)" ||
	skip "$busybox is not statically linked (Debian package busybox-static)"
cache=${SPARSE_LINUX_CACHE:-$HOME/.cache/nfs-sparse/linux}
kdir=$("$here/fetch-kernel.sh" "$cache" 2>"${TMPDIR:-/tmp}/fetch-kernel.$$.log") || {
	cat "${TMPDIR:-/tmp}/fetch-kernel.$$.log" >&2
	rm -f "${TMPDIR:-/tmp}/fetch-kernel.$$.log"
	skip "the guest kernel could not be fetched (above)"
}
rm -f "${TMPDIR:-/tmp}/fetch-kernel.$$.log"
kver=$(cat "$kdir/kver")

# module_file NAME: the module's file in the unpacked package
module_file() {
	awk -v n="$1" '{ m = $1; gsub(/-/, "_", m) } m == n { print $2; exit }' \
		"$kdir/modules.index"
}

# module_order NAMES: NAMES and what they depend on, dependencies first
module_order() {
	local -A seen=()
	local order=()
	visit() {
		local n=${1//-/_} f d
		[ -n "${seen[$n]:-}" ] && return 0
		seen[$n]=1
		f=$(module_file "$n")
		# built into the kernel: nothing to load
		[ -n "$f" ] || return 0
		for d in $(xz -dc "$kdir/$f" | tr '\0' '\n' |
			   sed -n 's/^depends=//p' | head -n 1 | tr ',' ' '); do
			visit "$d"
		done
		order+=("$n")
	}
	for m in "$@"; do visit "$m"; done
	printf '%s\n' "${order[@]}"
}

# initramfs MODULES: path of a cached initramfs with busybox, init.sh and
# MODULES (with their dependencies), built when missing
initramfs() {
	local key img st m
	key=$( (echo "$kver $*"; cat "$here/init.sh"; sha256sum "$busybox") |
		sha256sum | cut -c1-16)
	img=$cache/initramfs-$key.cpio.gz
	if [ ! -s "$img" ]; then
		st=$(mktemp -d "${TMPDIR:-/tmp}/linux-initramfs.XXXXXX")
		mkdir -p "$st/bin" "$st/lib/modules" "$st/proc" "$st/sys" "$st/dev"
		cp "$busybox" "$st/bin/busybox"
		for m in $("$busybox" --list); do
			[ "$m" = busybox ] || ln -s busybox "$st/bin/$m"
		done
		install -m 755 "$here/init.sh" "$st/init"
		module_order "$@" >"$st/modules.load"
		while read -r m; do
			xz -dc "$kdir/$(module_file "$m")" >"$st/lib/modules/$m.ko"
		done <"$st/modules.load"
		(cd "$st" && find . | cpio -o -H newc --quiet | gzip -1) >"$img.tmp"
		mv "$img.tmp" "$img"
		rm -rf "$st"
	fi
	echo "$img"
}

base_modules="9pnet_virtio 9p virtio_net nfsv4 nfsv3 loop"
img=$(initramfs $base_modules $modules)

if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/linux-vm.XXXXXX")
fi
mkdir -p "$out/xchg"
xchg=$out/xchg
rm -f "$xchg/rc" "$xchg/output" "$xchg/dmesg" "$xchg/booted" "$xchg/pre.sh"
# guest_env: the export lines of every --env K=V and GUEST_* variable
guest_env() {
	local e
	for e in ${envs[@]+"${envs[@]}"}; do
		printf 'export %q\n' "$e"
	done
	while IFS= read -r e; do
		printf 'export %s=%q\n' "$e" "${!e}"
	done < <(compgen -v GUEST_ || true)
}
[ -z "$pre" ] || { guest_env; cat "$pre"; } >"$xchg/pre.sh"
cp "$here/guest-lib.sh" "$here/checks.sh" "$xchg/"
cp "$script" "$xchg/test.sh"
[ -n "${NFS42_PORT:-}" ] && fwd+=("$NFS42_PORT")
[ -n "${NFS42_MNT_PORT:-}" ] && fwd+=("$NFS42_MNT_PORT")
# shellcheck disable=SC2206 # a list of ports
[ -n "${NFS42_DS_PORTS:-}" ] && fwd+=($NFS42_DS_PORTS)
{
	echo "#!/bin/bash"
	echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	echo "export HOME=/root LANG=C.UTF-8 TMPDIR=/tmp XCHG=/run/xchg"
	printf 'export REPO=%q NFS_SERVER=10.0.2.100\n' "$repo"
	printf 'export NFS_PORT=%q NFS_EXPORT=%q NFS_MOUNTPORT=%q NFS_BACKING=%q\n' \
		"${NFS42_PORT:-}" "${NFS42_EXPORT:-}" "${NFS42_MNT_PORT:-}" \
		"${NFS42_BACKING:-}"
	guest_env
	echo ". /run/xchg/guest-lib.sh"
	echo "cd /tmp"
	printf 'set --'
	printf ' %q' "$@"
	echo
	echo ". /run/xchg/test.sh"
} >"$xchg/main.sh"

accel=${SPARSE_LINUX_ACCEL:-auto}
net="user,id=n0,restrict=$restrict,ipv6=off"
for p in ${fwd[@]+"${fwd[@]}"}; do
	net="$net,guestfwd=tcp:10.0.2.100:$p-cmd:$busybox nc 127.0.0.1 $p"
done

# run_qemu ACCEL TIMEOUT: boot, wait for the guest to power off (or kill
# it, by PID, after TIMEOUT seconds, or after BOOT_LIMIT seconds when it
# has not reached its script by then); 0 when the guest wrote its rc
boot_limit=${SPARSE_LINUX_BOOT_LIMIT:-240}
run_qemu() {
	local acc=$1 limit=$2 qpid t=0
	: >"$out/console.log"
	rm -f "$xchg/booted"
	setpriv --pdeathsig KILL -- "$qemu" -nodefaults -no-reboot \
		-machine "q35,accel=$acc" -cpu max -m "$mem" -smp "$smp" \
		-display none -vga none -monitor none \
		-serial "file:$out/console.log" \
		-kernel "$kdir/vmlinuz" -initrd "$img" \
		-append "console=ttyS0 quiet panic=-1 oops=panic" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$xchg,mount_tag=xchg,security_model=none,multidevs=remap" \
		-netdev "$net" -device virtio-net-pci,netdev=n0 \
		</dev/null >"$out/qemu.log" 2>&1 &
	qpid=$!
	echo "$qpid" >"$out/qemu.pid"
	while kill -0 "$qpid" 2>/dev/null; do
		if [ $t -ge $((limit * 10)) ]; then
			echo "linux-vm: guest still running after ${limit}s; killing QEMU (PID $qpid)" >&2
			kill -KILL "$qpid" 2>/dev/null || true
			break
		fi
		if [ $t -ge $((boot_limit * 10)) ] && [ ! -e "$xchg/booted" ]; then
			echo "linux-vm: guest not booted after ${boot_limit}s; killing QEMU (PID $qpid)" >&2
			kill -KILL "$qpid" 2>/dev/null || true
			break
		fi
		sleep 0.1
		t=$((t + 1))
	done
	wait "$qpid" 2>/dev/null || true
	rm -f "$out/qemu.pid"
	[ -s "$xchg/rc" ]
}

if [ "$accel" = auto ]; then
	probe=$cache/accel-$(uname -r)-$("$qemu" --version | head -n 1 | tr -c 'A-Za-z0-9.\n' _)-$kver
	if [ -s "$probe" ]; then
		accel=$(cat "$probe")
	else
		accel=tcg
		if [ -w /dev/kvm ] && [ -r /dev/kvm ]; then
			# a stock kernel can stop early with a KVM emulation
			# failure on some hosts: KVM only when a boot completes
			saved=$(cat "$xchg/main.sh")
			printf '#!/bin/bash\nexit 0\n' >"$xchg/main.sh"
			if run_qemu kvm 20 && [ "$(cat "$xchg/rc")" = 0 ]; then
				accel=kvm
			fi
			echo "$saved" >"$xchg/main.sh"
			rm -f "$xchg/rc" "$xchg/output" "$xchg/dmesg" "$xchg/booted"
		fi
		echo "$accel" >"$probe"
	fi
fi

# A guest that never reached its script (a TCG guest kernel on a loaded
# host has been seen to panic in early boot: "IO-APIC + timer", int3 in
# sched_clock_cpu) ran nothing of the test: boot it again, up to
# SPARSE_LINUX_BOOT_TRIES times in all. A guest that booted is never rerun.
tries=${SPARSE_LINUX_BOOT_TRIES:-3}
attempt=1
while :; do
	status=0
	run_qemu "$accel" "$timeout" || status=$?
	if [ $status -eq 0 ] || [ -e "$xchg/booted" ] || [ $attempt -ge "$tries" ]; then
		break
	fi
	echo "linux-vm: the guest did not boot (attempt $attempt of $tries); console:" >&2
	grep -m 3 -i -E 'panic|oops|BUG|error' "$out/console.log" >&2 ||
		tail -n 5 "$out/console.log" >&2 || true
	cp "$out/console.log" "$out/console.boot-$attempt.log" 2>/dev/null || true
	rm -f "$xchg/rc" "$xchg/output" "$xchg/dmesg" "$xchg/pre.log"
	attempt=$((attempt + 1))
done
if [ -f "$xchg/output" ]; then
	cat "$xchg/output"
fi
if [ $status -ne 0 ]; then
	echo "linux-vm: the guest did not finish (accel $accel); console: $out/console.log" >&2
	tail -n 30 "$out/console.log" >&2 || true
	tail -n 5 "$out/qemu.log" >&2 || true
	exit 1
fi
rc=$(cat "$xchg/rc")
if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
	echo "linux-vm: guest script exited $rc; kept $out (console.log, xchg/output, xchg/dmesg)" >&2
	tail -n 15 "$out/console.log" >&2 || true
elif [ $keep = 0 ]; then
	rm -rf "$out"
fi
exit "$rc"
