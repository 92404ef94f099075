/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE filesystem identity (UUID, handle identity) and export
 * confinement (is an object opened from a handle inside the export?).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_PATH */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/openat2.h>

#include <blkid/blkid.h>

#include "sparse_fs.h"
#include "sparse_open.h"

/* FS_IOC_GETFSUUID (Linux 6.5); Debian 12's kernel headers predate it. */
struct sparse_fsuuid2 {
	uint8_t len;
	uint8_t uuid[SPARSE_UUID_LEN];
};
#define SPARSE_IOC_GETFSUUID _IOR(0x15, 0, struct sparse_fsuuid2)

/* Deepest directory walk before giving up (ELOOP). */
#define SPARSE_CONFINE_MAX_DEPTH 4096

static bool sparse_uuid_is_zero(const uint8_t uuid[SPARSE_UUID_LEN])
{
	int i;

	for (i = 0; i < SPARSE_UUID_LEN; i++)
		if (uuid[i] != 0)
			return false;
	return true;
}

static int sparse_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool sparse_uuid_parse(const char *s, uint8_t uuid[SPARSE_UUID_LEN])
{
	int n = 0;

	for (; *s != '\0' && n < 2 * SPARSE_UUID_LEN; s++) {
		int d = sparse_hex_digit(*s);

		if (*s == '-')
			continue;
		if (d < 0)
			return false;
		if (n % 2 == 0)
			uuid[n / 2] = (uint8_t)(d << 4);
		else
			uuid[n / 2] |= (uint8_t)d;
		n++;
	}
	return n == 2 * SPARSE_UUID_LEN && *s == '\0';
}

static bool sparse_blkid_uuid(dev_t dev, uint8_t uuid[SPARSE_UUID_LEN])
{
	char *devname = blkid_devno_to_devname(dev);
	char *value;
	bool ok = false;

	if (devname == NULL)
		return false;
	value = blkid_get_tag_value(NULL, "UUID", devname);
	if (value != NULL)
		ok = sparse_uuid_parse(value, uuid);
	free(value);
	free(devname);
	return ok;
}

enum sparse_uuid_source sparse_fs_uuid(int fd, dev_t dev,
				       uint8_t uuid[SPARSE_UUID_LEN])
{
	struct sparse_fsuuid2 k = { .len = SPARSE_UUID_LEN };

	if (ioctl(fd, SPARSE_IOC_GETFSUUID, &k) == 0 &&
	    k.len == SPARSE_UUID_LEN && !sparse_uuid_is_zero(k.uuid)) {
		memcpy(uuid, k.uuid, SPARSE_UUID_LEN);
		return SPARSE_UUID_KERNEL;
	}
	if (sparse_blkid_uuid(dev, uuid) && !sparse_uuid_is_zero(uuid))
		return SPARSE_UUID_BLKID;
	memset(uuid, 0, SPARSE_UUID_LEN);
	return SPARSE_UUID_NONE;
}

void sparse_uuid_halves(const uint8_t uuid[SPARSE_UUID_LEN], uint64_t *hi,
			uint64_t *lo)
{
	int i;

	*hi = 0;
	*lo = 0;
	for (i = 0; i < 8; i++) {
		*hi = *hi << 8 | uuid[i];
		*lo = *lo << 8 | uuid[8 + i];
	}
}

uint64_t sparse_fs_ident(enum sparse_uuid_source src,
			 const uint8_t uuid[SPARSE_UUID_LEN], dev_t dev)
{
	uint64_t hi, lo;

	if (src == SPARSE_UUID_NONE)
		return (1ULL << 63) | (uint64_t)major(dev) << 32 | minor(dev);
	sparse_uuid_halves(uuid, &hi, &lo);
	return (hi ^ lo) & ~(1ULL << 63);
}

/* ---- names ---------------------------------------------------------------- */

bool sparse_name_is_component(const char *name)
{
	size_t len;

	if (name == NULL || name[0] == '\0' || strchr(name, '/') != NULL)
		return false;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return false;
	len = strlen(name);
	return len <= NAME_MAX;
}

static int sparse_open_resolved(int dirfd, const char *name, int flags,
				uint64_t resolve)
{
	int fd = sparse_sys_openat2(dirfd, name, flags, resolve);

	if (fd >= 0 || errno != ENOSYS)
		return fd;
	return sparse_sys_openat(dirfd, name, flags, 0); /* Linux < 5.6 */
}

int sparse_open_beneath(int dirfd, const char *name, int extra_flags)
{
	return sparse_open_resolved(
		dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | extra_flags,
		RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS);
}

int sparse_open_parent(int dirfd)
{
	return sparse_open_resolved(dirfd, "..",
				    O_PATH | O_DIRECTORY | O_CLOEXEC,
				    RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS);
}

/* ---- confinement --------------------------------------------------------- */

static bool sparse_same_inode(const struct stat *a, dev_t dev, ino_t ino)
{
	return a->st_dev == dev && a->st_ino == ino;
}

/* The kernel's name of fd ("/" for a dentry it cannot connect). */
static bool sparse_fd_path(int fd, char *buf, size_t size)
{
	char proc[32];
	ssize_t n;

	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, size - 1);
	if (n <= 0 || (size_t)n >= size - 1)
		return false;
	buf[n] = '\0';
	return buf[0] == '/';
}

int sparse_confine_init(struct sparse_confine *c, int root_fd)
{
	char path[PATH_MAX];
	struct stat st;

	memset(c, 0, sizeof(*c));
	if (fstat(root_fd, &st) != 0)
		return errno;
	c->root_fd = root_fd;
	c->root_dev = st.st_dev;
	c->root_ino = st.st_ino;
	return sparse_fd_path(root_fd, path, sizeof(path)) ? 0 : ENOENT;
}

/*
 * Is path below the export root's path as the kernel names the root now
 * (so a renamed export root is followed)?  Only a yes is conclusive.
 */
static bool sparse_path_below_root(const struct sparse_confine *c,
				   const char *path)
{
	char root[PATH_MAX];
	size_t len;

	if (!sparse_fd_path(c->root_fd, root, sizeof(root)))
		return false;
	len = strlen(root);
	if (len == 1) /* "/" */
		return true;
	return strncmp(path, root, len) == 0 &&
	       (path[len] == '/' || path[len] == '\0');
}

/*
 * A directory: the kernel reconnects directory handles, so its path is
 * known; one below the root is inside.  Anything else is settled by
 * walking "..", which a directory has exactly one of, up to the export root
 * (inside) or the top of the filesystem (outside).
 */
static int sparse_dir_inside(const struct sparse_confine *c, int fd)
{
	char path[PATH_MAX];
	struct stat st, up_st;
	int cur = fd, depth, rc = -ELOOP;

	if (sparse_fd_path(fd, path, sizeof(path)) &&
	    sparse_path_below_root(c, path))
		return 1;
	if (fstat(cur, &st) != 0)
		return -errno;
	for (depth = 0; depth < SPARSE_CONFINE_MAX_DEPTH; depth++) {
		int up;

		if (sparse_same_inode(&st, c->root_dev, c->root_ino)) {
			rc = 1;
			break;
		}
		up = sparse_sys_openat(cur, "..",
				       O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		if (up < 0 || fstat(up, &up_st) != 0) {
			rc = -errno;
			if (up >= 0)
				close(up);
			break;
		}
		if (cur != fd)
			close(cur);
		cur = up;
		/* left the filesystem, or reached the top of the tree */
		if (up_st.st_dev != c->root_dev ||
		    sparse_same_inode(&up_st, st.st_dev, st.st_ino)) {
			rc = 0;
			break;
		}
		st = up_st;
	}
	if (cur != fd)
		close(cur);
	return rc;
}

/* A non-directory: the kernel's name for the descriptor, when it has one. */
static int sparse_file_inside(const struct sparse_confine *c, int fd,
			      const struct stat *st)
{
	char path[PATH_MAX];
	struct stat by_path;

	/* No name, or a dentry the kernel could not connect ("/"): see
	 * sparse_fs.h.
	 */
	if (!sparse_fd_path(fd, path, sizeof(path)) || strcmp(path, "/") == 0)
		return 1;
	if (sparse_path_below_root(c, path))
		return 1;
	/* Named outside: the object is outside unless another link of it
	 * is inside, which only a single-link object rules out.  The name
	 * must still be this object (it may have been renamed since).
	 */
	if (st->st_nlink != 1)
		return 1;
	if (fstatat(AT_FDCWD, path, &by_path, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !sparse_same_inode(&by_path, st->st_dev, st->st_ino))
		return 1;
	return 0;
}

int sparse_confine_check(const struct sparse_confine *c, int fd,
			 const struct stat *st)
{
	if (st->st_dev != c->root_dev)
		return 0;
	if (S_ISDIR(st->st_mode))
		return sparse_dir_inside(c, fd);
	return sparse_file_inside(c, fd, st);
}

bool sparse_confine_is_root(const struct sparse_confine *c,
			    const struct stat *st)
{
	return sparse_same_inode(st, c->root_dev, c->root_ino);
}

/* ---- space reservation -------------------------------------------------- */

/* statfs f_type values (linux/magic.h) */
#define SPARSE_CEPH_SUPER_MAGIC 0x00c36400L
#define SPARSE_FUSE_SUPER_MAGIC 0x65735546L

bool sparse_fs_type_reserves(long f_type, const char *mnt_type)
{
	/* FUSE mounts of CephFS: ceph-fuse names its mounts "ceph-fuse";
	 * mount.fuse.ceph (an fstab line of type fuse.ceph) "ceph"
	 */
	static const char *const no_reserve[] = { "fuse.ceph-fuse",
						  "fuse.ceph" };
	size_t i;

	if (f_type == SPARSE_CEPH_SUPER_MAGIC)
		return false;
	if (f_type != SPARSE_FUSE_SUPER_MAGIC || mnt_type == NULL)
		return true;
	for (i = 0; i < sizeof(no_reserve) / sizeof(no_reserve[0]); i++)
		if (strcmp(mnt_type, no_reserve[i]) == 0)
			return false;
	return true;
}

/*
 * A mountinfo line: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS...] - TYPE
 * SOURCE SUPER_OPTIONS" (proc(5)); the tags before " - " vary in number.
 */
int sparse_mount_type(FILE *mountinfo, dev_t dev, char *type, size_t len)
{
	char *line = NULL;
	size_t cap = 0;
	int rc = ENOENT;

	/* getline: a line's two paths may be PATH_MAX long each */
	while (rc == ENOENT && getline(&line, &cap, mountinfo) > 0) {
		unsigned int maj, min;
		char *sep;
		size_t n;

		if (sscanf(line, "%*u %*u %u:%u", &maj, &min) != 2 ||
		    makedev(maj, min) != dev)
			continue;
		sep = strstr(line, " - ");
		if (sep == NULL)
			continue;
		sep += 3;
		n = strcspn(sep, "\n ");
		if (n >= len) {
			rc = ENAMETOOLONG;
			break;
		}
		memcpy(type, sep, n);
		type[n] = '\0';
		rc = 0;
	}
	free(line);
	return rc;
}

bool sparse_fs_reserves_space(int fd, long f_type)
{
	char type[64];
	struct stat st;
	FILE *f;
	int rc;

	if (f_type != SPARSE_FUSE_SUPER_MAGIC)
		return sparse_fs_type_reserves(f_type, NULL);
	if (fstat(fd, &st) != 0)
		return true;
	f = sparse_sys_fopen_read("/proc/self/mountinfo");
	if (f == NULL)
		return true;
	rc = sparse_mount_type(f, st.st_dev, type, sizeof(type));
	fclose(f);
	return sparse_fs_type_reserves(f_type, rc == 0 ? type : NULL);
}
