# Busybox sh, outside the chroot (vm.sh --pre): Linux's own NFS server
# (knfsd, the nfsd module of the same kernel) exporting a tmpfs at
# /export as the NFSv4 root (fsid=0, rw, no_root_squash, insecure,
# no_subtree_check), on 127.0.0.1:2049, NFSv4.0-4.2 only. There is no
# rpc.mountd here: the export caches it would fill on upcalls are written
# directly (/proc/net/rpc/*/channel) with an expiry far in the future.
# The chroot sees the exported directory at /run/export.
set -e
size=${KNFSD_SIZE:-3g}
mkdir -p /export /proc/fs/nfsd /var/lib/nfs/v4recovery
mount -t tmpfs -o size=$size,mode=0755 tmpfs /export
mount -t nfsd nfsd /proc/fs/nfsd
far=2147483647
# auth.unix.ip: the loopback client is in domain "*"
echo "nfsd 127.0.0.1 $far *" >/proc/net/rpc/auth.unix.ip/channel
# nfsd.export: flags INSECURE_PORT 0x2 | NOSUBTREECHECK 0x400 | FSID 0x2000
echo "* /export $far $((0x2 | 0x400 | 0x2000)) 65534 65534 0" \
	>/proc/net/rpc/nfsd.export/channel
# nfsd.fh: fsid type 1 (FSID_NUM), fsid 0 -> /export
echo "* 1 \\x00000000 $far /export" >/proc/net/rpc/nfsd.fh/channel
echo "-2 -3 +4 +4.1 +4.2" >/proc/fs/nfsd/versions
echo 10 >/proc/fs/nfsd/nfsv4leasetime
echo 10 >/proc/fs/nfsd/nfsv4gracetime
echo "tcp 2049" >/proc/fs/nfsd/portlist 2>/dev/null ||
	echo "localhost 2049" >/proc/fs/nfsd/portlist
echo 4 >/proc/fs/nfsd/threads
mkdir -p /host/run/export
mount -o bind /export /host/run/export
date +%s >/xchg/knfsd-started
echo "knfsd: started"
# its grace period (10 s) before any guest script runs
sleep 11
cat /proc/fs/nfsd/portlist /proc/fs/nfsd/versions
