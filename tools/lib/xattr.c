/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * RFC 8276 extended attributes by path: one compound each (PUTFH of the
 * looked-up object, then the xattr op), LISTXATTRS repeated along its
 * cookies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define XATTR_LS_MAXCOUNT 4096

/* A compound at PATH's object: PUTFH(fh).  *rc set on failure. */
static struct nfs42_compound *path_compound(struct nfs42_client *cl,
					    const char *path, int *rc)
{
	struct nfs42_compound *c;
	struct nfs42_fh fh;

	*rc = nfs42_lookup_path(cl, path, &fh, NULL);
	if (*rc)
		return NULL;
	c = nfs42_compound_new(cl);
	if (!c) {
		*rc = -ENOMEM;
		return NULL;
	}
	nfs42_op_putfh(c, &fh);
	return c;
}

int nfs42_xattr_get(struct nfs42_client *cl, const char *path, const char *name,
		    uint8_t **value, uint32_t *len)
{
	const struct nfs42_res *r;
	struct nfs42_compound *c;
	int rc, idx;

	*value = NULL;
	*len = 0;
	c = path_compound(cl, path, &rc);
	if (!c)
		return rc;
	idx = nfs42_op_getxattr(c, name);
	rc = nfs42_compound_run(c);
	if (!rc) {
		r = nfs42_res(c, idx);
		*value = malloc((size_t)r->u.getxattr.len + 1);
		if (!*value) {
			rc = -ENOMEM;
		} else {
			memcpy(*value, r->u.getxattr.data, r->u.getxattr.len);
			(*value)[r->u.getxattr.len] = '\0';
			*len = r->u.getxattr.len;
		}
	}
	nfs42_compound_free(c);
	return rc;
}

/* SETXATTR or REMOVEXATTR (value NULL) and its change_info4. */
static int xattr_change(struct nfs42_client *cl, const char *path,
			const char *name, const void *value, uint32_t len,
			enum nfs42_setxattr_option option,
			struct nfs42_cinfo *cinfo)
{
	struct nfs42_compound *c;
	int rc, idx;

	c = path_compound(cl, path, &rc);
	if (!c)
		return rc;
	if (value)
		idx = nfs42_op_setxattr(c, option, name, value, len);
	else
		idx = nfs42_op_removexattr(c, name);
	rc = nfs42_compound_run(c);
	if (!rc && cinfo)
		*cinfo = nfs42_res(c, idx)->u.xattr_cinfo;
	nfs42_compound_free(c);
	return rc;
}

int nfs42_xattr_set(struct nfs42_client *cl, const char *path, const char *name,
		    const void *value, uint32_t len,
		    enum nfs42_setxattr_option option,
		    struct nfs42_cinfo *cinfo)
{
	static const uint8_t empty;

	return xattr_change(cl, path, name, value ? value : &empty, len, option,
			    cinfo);
}

int nfs42_xattr_rm(struct nfs42_client *cl, const char *path, const char *name,
		   struct nfs42_cinfo *cinfo)
{
	return xattr_change(cl, path, name, NULL, 0, SETXATTR4_EITHER, cinfo);
}

int nfs42_xattr_ls(struct nfs42_client *cl, const char *path, uint32_t maxcount,
		   nfs42_xattr_fn fn, void *arg, unsigned int *calls)
{
	const struct nfs42_res *r;
	struct nfs42_compound *c;
	struct nfs42_fh fh;
	uint64_t cookie = 0;
	bool eof = false;
	uint32_t i;
	int rc, idx;

	if (calls)
		*calls = 0;
	if (maxcount == 0)
		maxcount = XATTR_LS_MAXCOUNT;
	rc = nfs42_lookup_path(cl, path, &fh, NULL);
	while (!rc && !eof) {
		c = nfs42_compound_new(cl);
		if (!c)
			return -ENOMEM;
		nfs42_op_putfh(c, &fh);
		idx = nfs42_op_listxattrs(c, cookie, maxcount);
		rc = nfs42_compound_run(c);
		if (calls)
			(*calls)++;
		if (!rc) {
			r = nfs42_res(c, idx);
			for (i = 0; !rc && i < r->u.listxattrs.n; i++)
				rc = fn(arg, r->u.listxattrs.names[i]);
			eof = r->u.listxattrs.eof;
			/* no progress without eof: the server is broken */
			if (!eof && r->u.listxattrs.n == 0 && !rc)
				rc = -EPROTO;
			cookie = r->u.listxattrs.cookie;
		}
		nfs42_compound_free(c);
	}
	return rc;
}
