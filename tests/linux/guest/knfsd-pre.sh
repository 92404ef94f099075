# Busybox sh, outside the chroot (vm.sh --pre): Linux's own NFS server
# (knfsd, the nfsd module of the same kernel) on 127.0.0.1:2049,
# NFSv4.0-4.2 only, exporting /export, which is (KNFSD_FS):
#  ext4 (the default): an ext4 filesystem made here on a file in a tmpfs,
#   loop-mounted, exported as rpc.mountd exports
#   "/export *(rw,no_root_squash,insecure,no_subtree_check)": no fsid=,
#   so the export is known by its filesystem's UUID (file handles with a
#   16-byte FSID_UUID16 fsid), under the NFSv4 pseudo root mountd adds
#   for "/" (nfs-utils' v4root: read-only, fsid 0, NFSEXP_V4ROOT); a
#   client mounts /export;
#  tmpfs: a tmpfs exported as the NFSv4 root (fsid=0, rw, no_root_squash,
#   insecure, no_subtree_check: 4-byte FSID_NUM fsids); a client mounts /.
# There is no rpc.mountd here: the export caches it would fill on upcalls
# are written directly (/proc/net/rpc/*/channel) with an expiry far in the
# future (lines as mountd writes them: "client path expiry flags anonuid
# anongid fsid [uuid HEX]" for nfsd.export,
# "client fsidtype fsid expiry path" for nfsd.fh). The chroot sees the
# exported directory at /run/export; /xchg/knfsd-export names the path a
# client mounts.
set -e
fs=${KNFSD_FS:-ext4}
size=${KNFSD_SIZE:-3g}
mkdir -p /export /proc/fs/nfsd /var/lib/nfs/v4recovery
mount -t nfsd nfsd /proc/fs/nfsd
far=2147483647
# NFSEXP_* flags (include/uapi/linux/nfsd/export.h), named in $((...))
# shellcheck disable=SC2034
READONLY=0x1 INSECURE_PORT=0x2 GATHERED_WRITES=0x20 NOSUBTREECHECK=0x400
FSID=0x2000 V4ROOT=0x10000
# export_entry PATH FLAGS [WORDS...]: an nfsd.export entry for every
# client ("*"), anonymous 65534, fsid 0, no secinfo (the kernel's default,
# AUTH_SYS and AUTH_NULL: mountd writes none for an export without sec=;
# for its pseudo root it lists its flavors, krb5* too, useless without
# gssd: left out)
export_entry() {
	echo "* $1 $far $(($2)) 65534 65534 0${3:+ $3}" \
		>/proc/net/rpc/nfsd.export/channel
}
# auth.unix.ip: the loopback client is in domain "*"
echo "nfsd 127.0.0.1 $far *" >/proc/net/rpc/auth.unix.ip/channel
case $fs in
tmpfs)
	mount -t tmpfs -o size=$size,mode=0755 tmpfs /export
	export_entry /export "INSECURE_PORT | NOSUBTREECHECK | FSID"
	# nfsd.fh: fsid type 1 (FSID_NUM), fsid 0 -> /export
	echo "* 1 \\x00000000 $far /export" >/proc/net/rpc/nfsd.fh/channel
	echo / >/xchg/knfsd-export
	;;
ext4)
	# the image: a sparse file in a tmpfs of its own (its size the
	# filesystem's; only what is written takes memory), made with the
	# host's mkfs.ext4 (Debian 12 defaults) in the chroot
	mkdir -p /host/run/knfsd-img
	mount -t tmpfs -o size=$size,mode=0700 tmpfs /host/run/knfsd-img
	chroot /host /sbin/mkfs.ext4 -q /run/knfsd-img/ext4.img "$size"
	mount -t ext4 -o loop /host/run/knfsd-img/ext4.img /export
	chmod 0755 /export
	# mountd's uuid: the filesystem's (blkid), its 16 bytes in hex
	uuid=$(chroot /host /sbin/blkid -s UUID -o value \
		/run/knfsd-img/ext4.img | tr -d -)
	[ ${#uuid} = 32 ] || { echo "knfsd: no UUID for the image"; exit 1; }
	# the pseudo root, fsid 0 (FSID_NUM) -> /
	export_entry / \
		"READONLY | INSECURE_PORT | NOSUBTREECHECK | FSID | V4ROOT"
	echo "* 1 \\x00000000 $far /" >/proc/net/rpc/nfsd.fh/channel
	# /export: mountd's defaults (wdelay, i.e. GATHERED_WRITES) and the
	# options above; its uuid. /export is its filesystem's root, so
	# knfsd's handles carry FSID_UUID16 (type 6): the 16 bytes alone
	export_entry /export \
		"INSECURE_PORT | GATHERED_WRITES | NOSUBTREECHECK" "uuid \\x$uuid"
	echo "* 6 \\x$uuid $far /export" >/proc/net/rpc/nfsd.fh/channel
	echo /export >/xchg/knfsd-export
	;;
*)
	echo "knfsd: KNFSD_FS=$fs: ext4 or tmpfs"
	exit 1
	;;
esac
echo "-2 -3 +4 +4.1 +4.2" >/proc/fs/nfsd/versions
echo 10 >/proc/fs/nfsd/nfsv4leasetime
echo 10 >/proc/fs/nfsd/nfsv4gracetime
echo "tcp 2049" >/proc/fs/nfsd/portlist 2>/dev/null ||
	echo "localhost 2049" >/proc/fs/nfsd/portlist
echo 4 >/proc/fs/nfsd/threads
mkdir -p /host/run/export
mount -o bind /export /host/run/export
date +%s >/xchg/knfsd-started
echo "knfsd: started ($fs)"
# its grace period (10 s) before any guest script runs
sleep 11
cat /proc/fs/nfsd/portlist /proc/fs/nfsd/versions
