#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# install_check.sh DEB_DIR [BASE_TAR]: the packages of scripts/package.sh
# (DEB_DIR/*.deb) on a pristine Debian 12: a bookworm minbase chroot
# (BASE_TAR when given and there, else debootstrap) where
#   - `apt-get install ./*.deb` succeeds with only the archive's packages;
#   - /etc/ganesha/ganesha.conf is the sample (no Test_* parameter, no
#     template value left);
#   - the sample's export directory, /srv/nfs-sparse, is there (made by
#     the postinst: the unit is enabled, and the first boot must serve);
#     the commented sysctl.d file for write delegations is a conffile
#     whose setting matches the sample's Lease_Lifetime; the sample shows
#     a second export and pNFS, commented out;
#   - the daemon is started as nfs-ganesha.service starts it at boot (no
#     systemd in a chroot: its EnvironmentFile read, its RuntimeDirectory
#     made, its ExecStart run), with no step of the admin's, with a
#     system bus (the package's DBus policy lets it own org.ganesha.nfsd);
#   - it serves the sample export: the installed nfs42 writes, reads,
#     copies and maps through it, owners come numeric, the client records
#     go to the sqlite database, write delegations are granted or (with
#     the kernel's default lease-break-time) refused with a WARN naming
#     the sysctl, sparse-stats reads the statistics, SIGHUP
#     (the unit's ExecReload) keeps it serving, SIGTERM stops it;
#   - the packages' READMEs name only what is installed (no source-tree
#     command; every path they name exists);
#   - a purge keeps /srv/nfs-sparse while it holds files, and removes it
#     once empty.
# The server runs in a network namespace of its own (loopback only, port
# 2049 free whatever the machine runs). Exit 77 (skipped) with the reason
# where this cannot run: not root, no debootstrap, no private mount or
# network namespace, no Debian mirror in the apt sources.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
debs=$(cd "${1:?usage: install_check.sh DEB_DIR [BASE_TAR]}" && pwd)
base_tar=${2:-}
. "$repo/scripts/chroot-lib.sh"

skip() { echo "install_check: skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (chroot, mounts)"
command -v debootstrap >/dev/null || skip "debootstrap missing"
if [ -z "${SPARSE_INSTALL_NS:-}" ]; then
	unshare --mount --propagation private --net true 2>/dev/null ||
		skip "no private mount and network namespace (unshare; in a chroot its root must be a mount point)"
	exec env SPARSE_INSTALL_NS=1 unshare --mount --propagation private -- "$0" "$@"
fi
ls "$debs"/*.deb >/dev/null 2>&1 || { echo "install_check: no packages in $debs" >&2; exit 1; }
mirror=$("$repo/cmake/fetch-sources.sh" --mirror) || skip "no Debian mirror in the apt sources"

work=$(mktemp -d "$(chroot_disk_dir)/nfs-sparse-install.XXXXXX")
root=$work/root
cleanup() {
	local rc=$?
	chroot_remove "$root" && rm -rf "$work"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$(date +%s)
chroot_base "${base_tar:-$work/base.tar}" "$root" "$mirror" "$work/debootstrap.log"
chroot_mount "$root" --dev
mkdir "$root/debs"
cp "$debs"/*.deb "$root/debs/"
echo "install_check: installing $(cd "$debs" && ls *.deb | tr '\n' ' ')"
if ! chroot_run "$root" /bin/bash -c \
	'apt-get -q update && apt-get -q -y -o Dpkg::Use-Pty=0 install /debs/*.deb' \
	>"$work/apt.log" 2>&1; then
	tail -n 30 "$work/apt.log" >&2
	echo "install_check: apt-get install ./*.deb failed" >&2
	exit 1
fi
echo "install_check: installed in $(($(date +%s) - start)) s"

. "$repo/tests/check-lib.sh"
in_root() { chroot_run "$root" "$@"; }
check versions 0 "^nfs-ganesha-sparse[[:space:]]+6\.5-5\+sparse[0-9]" -- \
	in_root dpkg-query -W nfs-ganesha nfs-ganesha-sparse nfs-ganesha-vfs nfs-sparse-tools libntirpc6.3
# every package apt fetched came from the Debian mirror, but ours (/debs)
check only-archive 1 "" -- bash -c "grep -E '^(Get|Hit):' '$work/apt.log' | grep -v '^Get:[0-9]* /debs/' | grep -vF '$mirror'"
check conf-sample 0 "FSAL" -- in_root grep -A3 "FSAL {" /etc/ganesha/ganesha.conf
check conf-no-test 1 "" -- in_root grep -n "Test_" /etc/ganesha/ganesha.conf
check conf-no-template 1 "" -- in_root grep -nE "@[A-Z_]+@" /etc/ganesha/ganesha.conf
check conffile 0 "/etc/ganesha/ganesha.conf" -- in_root dpkg-query -W -f='${Conffiles}' nfs-ganesha
unit=$(in_root dpkg -L nfs-ganesha | grep '/nfs-ganesha\.service$' | head -n1)
check unit-installed 0 "nfs-ganesha.service" -- echo "$unit"
check unit-enabled 0 "nfs-ganesha.service" -- \
	in_root ls /etc/systemd/system/multi-user.target.wants/
check export-dir-made 0 "^directory 755 root$" -- in_root stat -c "%F %a %U" /srv/nfs-sparse
sysctl_file=/etc/sysctl.d/60-nfs-ganesha-delegations.conf
lease=$(in_root sed -n 's/^[[:space:]]*Lease_Lifetime = \([0-9]*\);.*/\1/p' /etc/ganesha/ganesha.conf)
check sysctl-conffile 0 "$sysctl_file" -- in_root dpkg-query -W -f='${Conffiles}' nfs-ganesha
check sysctl-all-commented 1 "" -- in_root grep -vE "^(#|[[:space:]]*$)" "$sysctl_file"
check sysctl-matches-lease 0 "^#fs\.lease-break-time = $((2 * lease + 5))$" -- in_root cat "$sysctl_file"
check sample-second-export 0 "^1$" -- in_root grep -c "^#EXPORT {$" /etc/ganesha/ganesha.conf
check sample-pnfs-shown 0 "^[[:space:]]+# PNFS_MDS = true;$" -- in_root cat /etc/ganesha/ganesha.conf
check sample-pnfs-off 1 "" -- in_root grep -E "^[[:space:]]*(PNFS_MDS|PNFS_DS|Data_Server)" /etc/ganesha/ganesha.conf

# The script run in the chroot, in a network namespace of its own: the
# unit's start, then the client's round.
cat >"$root/root/serve-check.sh" <<'INNER'
#!/bin/bash
set -uo pipefail
unit=$1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
expect() { # NAME CMD...: CMD succeeds
	local name=$1
	shift
	if "$@" >/tmp/expect.out 2>&1; then ok; else bad "$name: $(tail -n 5 /tmp/expect.out)"; fi
}
unit_value() { sed -n "s/^$1=//p" "$unit" | head -n1; }

# nfs-ganesha.service by hand: EnvironmentFile (a leading '-': optional),
# RuntimeDirectory, ExecStart
envfile=$(unit_value EnvironmentFile)
envfile=${envfile#-}
[ ! -f "$envfile" ] || . "$envfile"
mkdir -p "/run/$(unit_value RuntimeDirectory)"
execstart=$(unit_value ExecStart)
mkdir -p /run/dbus
dbus-daemon --system --fork --print-pid >/run/dbus/check.pid
eval "set -- $execstart"
"$@" </dev/null >/tmp/ganesha.stdout 2>&1 &
gpid=$!
for i in $(seq 300); do
	grep -q "NFS SERVER INITIALIZED" /var/log/ganesha/ganesha.log 2>/dev/null && break
	kill -0 $gpid 2>/dev/null || break
	sleep 0.1
done
expect started grep -q "NFS SERVER INITIALIZED" /var/log/ganesha/ganesha.log
expect no-config-errors bash -c '! grep -E ":CONFIG :(CRIT|MAJ|FATAL) :|:FSAL :(CRIT|MAJ) :" /var/log/ganesha/ganesha.log'
expect bus-name bash -c '! grep -q "server bus reg failed\|dbus_bus_get failed" /var/log/ganesha/ganesha.log'

nfs42() { /usr/bin/nfs42 -t 20 "$@"; }
expect ping nfs42 ping
expect put nfs42 put /etc/os-release /sparse/os-release
expect cat bash -c 'nfs42 cat /sparse/os-release | cmp - /etc/os-release'
expect backing cmp /srv/nfs-sparse/os-release /etc/os-release
expect numeric-owner bash -c 'nfs42 stat /sparse/os-release | grep -qx "owner: 0"'
# The sample's RW delegations with Ganesha's 60 s lease: write ones while
# lease-break-time is at least 125 s, else refused with one WARN at
# startup naming the sysctl
if [ "$(cat /proc/sys/fs/lease-break-time)" -ge 125 ]; then
	expect write-delegation bash -c 'nfs42 put --stats /etc/os-release /sparse/wdeleg 2>&1 | grep -q "delegation write"'
else
	expect write-delegation-refused bash -c 'nfs42 put --stats /etc/os-release /sparse/wdeleg 2>&1 | grep -q "delegation none"'
	expect write-delegation-warned bash -c '[ "$(grep -c "write delegations are configured but will be refused.*sysctl -w fs.lease-break-time=125" /var/log/ganesha/ganesha.log)" = 1 ]'
fi
truncate -s 64M /tmp/sparse && dd if=/etc/os-release of=/tmp/sparse bs=1M seek=32 conv=notrunc status=none
expect put-sparse nfs42 put /tmp/sparse /sparse/sparse
expect map bash -c 'nfs42 map /sparse/sparse | grep -q "^0 33554432 hole$"'
expect holes-kept bash -c '[ $(du -k /srv/nfs-sparse/sparse | cut -f1) -le 1024 ]'
expect copy nfs42 cp --async /sparse/sparse /sparse/copy
expect copied cmp /srv/nfs-sparse/copy /tmp/sparse
expect xattr bash -c 'nfs42 xattr set /sparse/copy color blue && [ "$(nfs42 xattr get /sparse/copy color)" = blue ]'
expect records test -s /var/lib/nfs/ganesha/sparse_recovery.db
# one COPY, of the file's data alone (nfs42 cp copies data extents: the
# 4 KiB block os-release is in, not the 64 MiB of holes around it)
one_data_copy() {
	sparse-stats 1 | awk '$1 ~ /^copy_(sync|async)$/ && $2 == 1 &&
		$3 > 0 && $3 <= 65536 { ok = 1 } END { exit !ok }'
}
expect stats one_data_copy
expect reload kill -HUP $gpid
sleep 1
expect after-reload nfs42 ls /sparse
kill -TERM $gpid
for i in $(seq 200); do kill -0 $gpid 2>/dev/null || break; sleep 0.1; done
expect stopped bash -c "! kill -0 $gpid 2>/dev/null"
kill -KILL $gpid 2>/dev/null
kill "$(cat /run/dbus/check.pid)" 2>/dev/null
if [ $fail -gt 0 ]; then
	echo "--- ganesha.log"; tail -n 30 /var/log/ganesha/ganesha.log
	cat /tmp/ganesha.stdout
fi
echo "serve-check: $pass passed, $fail failed"
[ $fail -eq 0 ]
INNER
# The namespace gets an address besides loopback's, as a machine has:
# glibc's AI_ADDRCONFIG (Ganesha's lookup of Bind_addr) finds no IPv4
# address where only loopback has one.
netns_setup='ip link set lo up &&
	{ ip link add nfs0 type dummy 2>/dev/null ||
	  ip link add nfs0 type veth peer name nfs1; } &&
	ip addr add 192.0.2.1/24 dev nfs0 && ip link set nfs0 up'
out=$(unshare --net bash -c "$netns_setup && $(declare -f chroot_run); chroot_run '$root' /bin/bash /root/serve-check.sh '$unit'" 2>&1) || true
echo "$out" | grep -E "^FAIL|^serve-check:|^---" >&2 || true
check served 0 "serve-check: [0-9]+ passed, 0 failed" -- echo "$out"

# The READMEs describe what the packages install: no command of the
# project's source tree, every path they name there (globs expanded)
readmes=$(in_root bash -c 'ls /usr/share/doc/nfs-ganesha*/README* /usr/share/doc/nfs-sparse-tools/README* 2>/dev/null' || true)
check readme-not-project 1 "" -- in_root bash -c 'ls -d /usr/share/doc/nfs-ganesha-sparse/README.md* 2>/dev/null | grep .'
check readme-sparse 0 "nfs-ganesha-sparse/README.Debian" -- echo "$readmes"
for r in $readmes; do
	text=$(in_root zcat -f "$r")
	check "readme-no-source-tree $r" 1 "" -- grep -nE "scripts/|serve\.sh|test\.sh|build/|\./" <<<"$text"
	for path in $(grep -ohE "/(usr|etc|var|srv)/[A-Za-z0-9_.*/+-]*" <<<"$text" | sed 's/[.]$//' | sort -u); do
		check "readme-path $r $path" 0 "" -- in_root bash -c "ls -d $path >/dev/null"
	done
done

# A purge keeps the export directory while it holds files, and removes it
# once it is empty (reinstalled first: a purged package is installed anew)
purge() { in_root apt-get -q -y -o Dpkg::Use-Pty=0 purge nfs-ganesha nfs-ganesha-sparse nfs-ganesha-vfs; }
check purge 0 "" -- purge
check purge-keeps-data 0 "^os-release$" -- in_root ls /srv/nfs-sparse
check reinstall 0 "" -- in_root bash -c 'rm -rf /srv/nfs-sparse/* && apt-get -q -y -o Dpkg::Use-Pty=0 install /debs/*.deb'
check reinstalled-dir 0 "" -- in_root test -d /srv/nfs-sparse
check purge-again 0 "" -- purge
check purge-removes-empty 1 "" -- in_root test -e /srv/nfs-sparse
[ $fail -eq 0 ] || echo "$out" | tail -n 60 >&2
echo "install_check: $(($(date +%s) - start)) s in all"
check_summary install_check
