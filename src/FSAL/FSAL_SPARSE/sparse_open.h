/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Every open of FSAL_SPARSE goes through these calls, which add O_NONBLOCK.
 *
 * An open(2) of a file that has a Linux lease in a conflicting mode (a
 * write lease against any open, a read lease against an open for writing)
 * breaks the lease and then sleeps in the kernel's __break_lease until the
 * holder lets go, up to /proc/sys/fs/lease-break-time (45 s here).  The
 * leases are FSAL_SPARSE's own (the delegations, sparse_deleg.c) or another
 * server's on the same filesystem (a pNFS head, knfsd, Samba).  A Ganesha
 * worker must never sleep there: with O_NONBLOCK the kernel starts the
 * break and the open fails at once with EWOULDBLOCK, which the caller
 * answers as NFS4ERR_DELAY (ERR_FSAL_DELAY): the client retries while the
 * delegation is recalled.  O_NONBLOCK changes nothing else for a regular
 * file or a directory; an O_PATH open (which opens nothing) goes as it is.
 *
 * The raw calls are poisoned below for every file that includes this
 * header (sparse_int.h does, last), so a new open that bypasses these
 * fails the build; tests/unit/fsal_opens_check.sh fails for a raw call in
 * any FSAL_SPARSE source but sparse_open.c.
 *
 * Free of Ganesha headers (the unit tests and benchmarks link it).
 */

#ifndef SPARSE_OPEN_H
#define SPARSE_OPEN_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct file_handle;

/* open(2) of path; an fd, or -1 with errno. */
int sparse_sys_open(const char *path, int flags);
/* openat(2); an fd, or -1 with errno. */
int sparse_sys_openat(int dirfd, const char *name, int flags, mode_t mode);
/* openat2(2) with resolve (RESOLVE_*); -1 with ENOSYS before Linux 5.6. */
int sparse_sys_openat2(int dirfd, const char *name, int flags,
		       uint64_t resolve);
/* open_by_handle_at(2); an fd, or -1 with errno. */
int sparse_sys_open_by_handle_at(int mount_fd, struct file_handle *fh,
				 int flags);
/* A stream to read path (a /proc or /sys file), or NULL with errno. */
FILE *sparse_sys_fopen_read(const char *path);

#ifndef SPARSE_OPEN_IMPL
#pragma GCC poison open openat open_by_handle_at creat fopen freopen
#endif

#endif /* SPARSE_OPEN_H */
