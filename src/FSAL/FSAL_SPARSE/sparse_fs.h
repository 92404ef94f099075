/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE filesystem identity and export confinement.  Free of Ganesha
 * headers so it can be unit tested on real directories.
 */

#ifndef SPARSE_FS_H
#define SPARSE_FS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#define SPARSE_UUID_LEN 16

/* Where a filesystem UUID came from. */
enum sparse_uuid_source {
	SPARSE_UUID_NONE, /* none known (or all zeros) */
	SPARSE_UUID_KERNEL, /* FS_IOC_GETFSUUID (Linux 6.5+) */
	SPARSE_UUID_BLKID, /* the superblock of the block device, via libblkid */
	SPARSE_UUID_CONFIG, /* the export's Filesystem_Identity */
};

/* "8-4-4-4-12" hex text (dashes optional) to 16 bytes; false if not one. */
bool sparse_uuid_parse(const char *s, uint8_t uuid[SPARSE_UUID_LEN]);

/*
 * UUID of the filesystem holding fd (whose st_dev is dev): the kernel's
 * FS_IOC_GETFSUUID first, then libblkid on the block device.  An all-zero
 * UUID counts as none.
 */
enum sparse_uuid_source sparse_fs_uuid(int fd, dev_t dev,
				       uint8_t uuid[SPARSE_UUID_LEN]);

/* The UUID as two big-endian 64-bit halves (the UUID fsid's major/minor). */
void sparse_uuid_halves(const uint8_t uuid[SPARSE_UUID_LEN], uint64_t *hi,
			uint64_t *lo);

/*
 * The 64-bit filesystem identity carried in every handle: the two halves of
 * the UUID folded together (top bit clear), or, without a UUID, the device
 * number (top bit set), so the two kinds never meet.
 */
uint64_t sparse_fs_ident(enum sparse_uuid_source src,
			 const uint8_t uuid[SPARSE_UUID_LEN], dev_t dev);

/* ---- names ---------------------------------------------------------------- */

/*
 * Is name one path component a client may name: not empty, not "." or
 * "..", no '/', at most NAME_MAX bytes?  (A C string holds no NUL.)
 */
bool sparse_name_is_component(const char *name);

/*
 * Open name (a component, or a relative path) below dirfd as O_PATH,
 * never following a symbolic link (the last one is opened itself), never
 * leaving dirfd's tree and never crossing a mount point, bind mounts of the
 * same filesystem included (the call fails with EXDEV): openat2() with
 * RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS.  Kernels without
 * openat2 (before 5.6) get openat(O_NOFOLLOW), which does cross mounts.
 * extra_flags: O_DIRECTORY, say.  Returns an fd or -1 with errno.
 */
int sparse_open_beneath(int dirfd, const char *name, int extra_flags);

/*
 * Open the parent of the directory dirfd as O_PATH, without leaving its
 * mount (EXDEV at the root of the mount).  Returns an fd or -1 with errno.
 */
int sparse_open_parent(int dirfd);

/* ---- confinement ------------------------------------------------------------ */

/* Confinement of objects to an export's tree. */
struct sparse_confine {
	dev_t root_dev;
	ino_t root_ino;
	/* The export root's descriptor (not owned): its path is asked of
	 * the kernel at each check, so a renamed export root is followed.
	 */
	int root_fd;
};

/* Fill c from the export root's descriptor; 0 or an errno. */
int sparse_confine_init(struct sparse_confine *c, int root_fd);

/*
 * Does the object open on fd (O_PATH is enough; st is its fstat) lie inside
 * the export's tree?  Returns 1 inside, 0 outside, or -errno.
 *
 * Directories: the kernel's path of the descriptor when it lies below the
 * export root's, else a walk of ".." up to the export root or the top of the
 * filesystem.  Other objects: the kernel's path of the descriptor when it knows one (a
 * cached, connected dentry); an object it cannot name (no dentry cached
 * since it was last looked up) or with several links is given the benefit
 * of the doubt, because its handle's tag already says that this export gave
 * it out (see docs/fsal_sparse.md).
 */
int sparse_confine_check(const struct sparse_confine *c, int fd,
			 const struct stat *st);

/* Is fd (st: its fstat) the export root itself? */
bool sparse_confine_is_root(const struct sparse_confine *c,
			    const struct stat *st);

/* ---- space reservation -------------------------------------------------- */

/*
 * Does fallocate(2) in mode 0 reserve space on a filesystem of statfs type
 * f_type, mounted as mnt_type (the type /proc/self/mountinfo gives its
 * mount, "fuse.ceph-fuse" say; NULL when unknown)?  False for the
 * filesystems known to answer 0 without reserving anything, so that a
 * later write into the range can still fail with ENOSPC: CephFS through
 * the kernel client and through ceph-fuse (Ceph 16.2's Client::_fallocate
 * only moves the size; docs/cluster.md section 6).  True for every other
 * one, a FUSE filesystem of unknown type included.
 */
bool sparse_fs_type_reserves(long f_type, const char *mnt_type);

/*
 * The type of the mount whose device is dev, read from mountinfo (the
 * format of /proc/self/mountinfo), into type (size len).  0, or ENOENT
 * when no line names dev, ENAMETOOLONG when the type does not fit.
 */
int sparse_mount_type(FILE *mountinfo, dev_t dev, char *type, size_t len);

/*
 * sparse_fs_type_reserves() for the filesystem holding fd, whose statfs
 * type is f_type: the mount's type is looked up in /proc/self/mountinfo
 * for a FUSE filesystem only (its f_type does not say which one it is).
 */
bool sparse_fs_reserves_space(int fd, long f_type);

#endif /* SPARSE_FS_H */
