/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Layout epochs: the fence of FSAL_SPARSE's files layouts.
 *
 * Every file has a layout epoch, a 32-bit counter in a trusted xattr of
 * the file itself (absent: 0), so that every head of the shared filesystem
 * reads the same value.  A layout's data-server filehandle carries the
 * epoch it was granted under (sparse_fh.h, tagged so that a client cannot
 * change it); a data server answers NFS4ERR_PNFS_NO_LAYOUT to I/O whose
 * handle's epoch is not the file's, and a client then gets a new layout or
 * does its I/O through the metadata server (RFC 8881 13.11: a files layout
 * server may revoke individual layouts, fencing I/O per file).  The
 * metadata server bumps the epoch when it revokes a layout: a recall not
 * answered in time, a client whose lease ended, an export going away.
 * Only the metadata server bumps, one head per export, so read-modify-
 * write needs no lock across heads; bumps of one file on that head are
 * serialised by sparse_fence_mutex.
 */

#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/xattr.h>

#include "sparse_pnfs.h"

static pthread_mutex_t sparse_fence_mutex = PTHREAD_MUTEX_INITIALIZER;

static uint32_t sparse_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int sparse_epoch_get(int fd, uint32_t *epoch)
{
	uint8_t buf[4];
	ssize_t n = fgetxattr(fd, SPARSE_EPOCH_XATTR, buf, sizeof(buf));

	if (n < 0 && errno == ENODATA) {
		*epoch = 0;
		return 0;
	}
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(buf))
		return -EUCLEAN;
	*epoch = sparse_le32(buf);
	return 0;
}

int sparse_epoch_bump(int fd, uint32_t *epoch)
{
	uint8_t buf[4];
	uint32_t now;
	int rc;

	pthread_mutex_lock(&sparse_fence_mutex);
	rc = sparse_epoch_get(fd, &now);
	if (rc == -EUCLEAN)
		now = 0; /* a damaged value: any other one fences */
	else if (rc != 0)
		goto out;
	now++;
	buf[0] = now & 0xff;
	buf[1] = (now >> 8) & 0xff;
	buf[2] = (now >> 16) & 0xff;
	buf[3] = (now >> 24) & 0xff;
	rc = fsetxattr(fd, SPARSE_EPOCH_XATTR, buf, sizeof(buf), 0) == 0 ?
		     0 :
		     -errno;
	if (rc == 0)
		*epoch = now;
out:
	pthread_mutex_unlock(&sparse_fence_mutex);
	return rc;
}
