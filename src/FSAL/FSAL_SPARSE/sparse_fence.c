/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Layout grants and boot generations: what the data servers of every head
 * read, on the shared filesystem, to decide whether a data-server handle
 * is still alive (sparse_pnfs.h; docs/design.md, "pNFS").
 *
 * A file's grant list is a trusted xattr of the file itself: the layout
 * grants alive now, each with its iomode.  Only the metadata server writes
 * it, from its record of the layouts (sparse_layouts.c), under an
 * exclusive flock(2) of the file; a data server reads it under a shared
 * flock held across the check and its pwrite, so that once the metadata
 * server has written a list without a grant no write under that grant is
 * still under way anywhere.  Value: a version byte (1), the number of
 * grants (16 bits), then per grant its id (64 bits) and iomode (8 bits),
 * little endian.
 *
 * The boot generation is a trusted xattr of the metadata server's export
 * root, one more at each start of the export; a data-server handle names
 * the one it was made under.
 */

#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/xattr.h>

#include "sparse_pnfs.h"

#define SPARSE_GRANTS_VERSION 1
#define SPARSE_GRANTS_HDR 3
#define SPARSE_GRANT_SIZE 9

static uint64_t sparse_get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void sparse_put_le(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int sparse_grants_get(int fd, struct sparse_grant *g, uint32_t *n)
{
	uint8_t buf[SPARSE_GRANTS_HDR + SPARSE_GRANTS_MAX * SPARSE_GRANT_SIZE];
	ssize_t len = fgetxattr(fd, SPARSE_GRANTS_XATTR, buf, sizeof(buf));
	uint32_t i, count;

	*n = 0;
	if (len < 0 && errno == ENODATA)
		return 0;
	if (len < 0)
		return errno == ERANGE ? -EUCLEAN : -errno;
	if (len < SPARSE_GRANTS_HDR || buf[0] != SPARSE_GRANTS_VERSION)
		return -EUCLEAN;
	count = (uint32_t)sparse_get_le(buf + 1, 2);
	if (count > SPARSE_GRANTS_MAX ||
	    (size_t)len != SPARSE_GRANTS_HDR + count * SPARSE_GRANT_SIZE)
		return -EUCLEAN;
	for (i = 0; i < count; i++) {
		const uint8_t *p =
			buf + SPARSE_GRANTS_HDR + i * SPARSE_GRANT_SIZE;

		g[i].id = sparse_get_le(p, 8);
		g[i].iomode = p[8];
	}
	*n = count;
	return 0;
}

int sparse_grant_iomode(int fd, uint64_t id, uint8_t *iomode)
{
	struct sparse_grant g[SPARSE_GRANTS_MAX];
	uint32_t i, n;
	int rc = sparse_grants_get(fd, g, &n);

	*iomode = 0;
	if (rc != 0)
		return rc;
	for (i = 0; i < n; i++)
		if (g[i].id == id) {
			*iomode = g[i].iomode;
			break;
		}
	return 0;
}

int sparse_grants_put(int fd, const struct sparse_grant *g, uint32_t n)
{
	uint8_t buf[SPARSE_GRANTS_HDR + SPARSE_GRANTS_MAX * SPARSE_GRANT_SIZE];
	uint32_t i;

	if (n > SPARSE_GRANTS_MAX)
		return -E2BIG;
	if (n == 0) {
		if (fremovexattr(fd, SPARSE_GRANTS_XATTR) == 0 ||
		    errno == ENODATA)
			return 0;
		return -errno;
	}
	buf[0] = SPARSE_GRANTS_VERSION;
	sparse_put_le(buf + 1, n, 2);
	for (i = 0; i < n; i++) {
		uint8_t *p = buf + SPARSE_GRANTS_HDR + i * SPARSE_GRANT_SIZE;

		sparse_put_le(p, g[i].id, 8);
		p[8] = g[i].iomode;
	}
	if (fsetxattr(fd, SPARSE_GRANTS_XATTR, buf,
		      SPARSE_GRANTS_HDR + n * SPARSE_GRANT_SIZE, 0) != 0)
		return -errno;
	return 0;
}

int sparse_boot_get(int root_fd, uint32_t *boot)
{
	uint8_t buf[4];
	ssize_t n = fgetxattr(root_fd, SPARSE_BOOT_XATTR, buf, sizeof(buf));

	if (n < 0 && errno == ENODATA) {
		*boot = 0;
		return 0;
	}
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(buf))
		return -EUCLEAN;
	*boot = (uint32_t)sparse_get_le(buf, 4);
	return 0;
}

int sparse_boot_next(int root_fd, uint32_t *boot)
{
	uint8_t buf[4];
	uint32_t now;
	int rc = sparse_boot_get(root_fd, &now);

	if (rc == -EUCLEAN)
		now = 0; /* a damaged value: any other one ends its handles */
	else if (rc != 0)
		return rc;
	now++;
	if (now == 0) /* (0 is the value of a root that never had one) */
		now = 1;
	sparse_put_le(buf, now, 4);
	if (fsetxattr(root_fd, SPARSE_BOOT_XATTR, buf, sizeof(buf), 0) != 0)
		return -errno;
	*boot = now;
	return 0;
}
