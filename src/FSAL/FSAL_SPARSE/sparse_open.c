/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * The only place where FSAL_SPARSE calls open(2) and its relatives, each
 * with O_NONBLOCK (sparse_open.h says why).
 */

#define SPARSE_OPEN_IMPL

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/openat2.h>

#include "sparse_open.h"

/* flags with O_NONBLOCK; O_PATH opens nothing to break, and openat2(2)
 * refuses any flag but O_DIRECTORY, O_NOFOLLOW and O_CLOEXEC with it. */
static int sparse_nonblock(int flags)
{
	return (flags & O_PATH) ? flags : flags | O_NONBLOCK;
}

int sparse_sys_open(const char *path, int flags)
{
	return open(path, sparse_nonblock(flags));
}

int sparse_sys_openat(int dirfd, const char *name, int flags, mode_t mode)
{
	return openat(dirfd, name, sparse_nonblock(flags), mode);
}

int sparse_sys_openat2(int dirfd, const char *name, int flags, uint64_t resolve)
{
	/* (no glibc wrapper in Debian 12) */
	struct open_how how = { .flags = (uint64_t)sparse_nonblock(flags),
				.resolve = resolve };

	return (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
}

int sparse_sys_open_by_handle_at(int mount_fd, struct file_handle *fh,
				 int flags)
{
	return open_by_handle_at(mount_fd, fh, sparse_nonblock(flags));
}

FILE *sparse_sys_fopen_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	FILE *f;
	int err;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (f == NULL) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}
