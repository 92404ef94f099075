/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE extended attributes (RFC 8276): GETXATTR, SETXATTR,
 * LISTXATTRS and REMOVEXATTR over the backing object's "user." namespace.
 *
 * A protocol key "k" is the backing xattr "user.k": a client can never
 * reach another namespace (trusted., security., system.), whatever it
 * sends.  Only regular files and directories have user xattrs (as in
 * Linux: others have none and refuse setting one, EPERM).
 *
 * xattr system calls fail on O_PATH descriptors (EBADF), and opening the
 * object for real could break a lease or block; so the object is opened
 * O_PATH from its handle and reached through its /proc/self/fd/N magic
 * link with the path calls, which follow it to the object itself.  They
 * run with the caller's credentials, so the kernel applies its own
 * permission rules: reading a user xattr needs read permission, setting
 * or removing one write permission (and ownership on a sticky directory).
 * Listing has no kernel check; like Linux nfsd it asks for read
 * permission (faccessat with AT_EACCESS, as the caller).
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>

#include "fsal.h"
#include "fsal_convert.h"
#include "FSAL/fsal_commonlib.h"
#include "sparse_int.h"

#define SPARSE_XA_PREFIX "user."
#define SPARSE_XA_PREFIX_LEN (sizeof(SPARSE_XA_PREFIX) - 1)
/* Linux XATTR_NAME_MAX, the whole name with its prefix */
#define SPARSE_XA_NAME_MAX 255
/* XDR size of one name in lxr_names: length word and padded bytes */
#define SPARSE_XA_XDR_NAME(len) (4 + (((len) + 3) & ~3U))

/* "user." + key into buf (SPARSE_XA_NAME_MAX + 1 bytes). */
static fsal_status_t sparse_xattr_name(const xattrkey4 *key, char *buf)
{
	size_t len = key->utf8string_len;

	if (len == 0 || key->utf8string_val == NULL ||
	    memchr(key->utf8string_val, '\0', len) != NULL)
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	if (SPARSE_XA_PREFIX_LEN + len > SPARSE_XA_NAME_MAX)
		return fsalstat(ERR_FSAL_NAMETOOLONG, ENAMETOOLONG);
	memcpy(buf, SPARSE_XA_PREFIX, SPARSE_XA_PREFIX_LEN);
	memcpy(buf + SPARSE_XA_PREFIX_LEN, key->utf8string_val, len);
	buf[SPARSE_XA_PREFIX_LEN + len] = '\0';
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/*
 * errno of an xattr call to a status.  ENOSPC from setxattr is what ext4
 * says when a value does not fit the object's xattr space: that is
 * XATTR2BIG unless the filesystem itself is full.
 */
static fsal_status_t sparse_xattr_status(int err, int fd, bool setting)
{
	struct statvfs sv;

	switch (err) {
	case ENODATA:
		return fsalstat(ERR_FSAL_NOXATTR, err);
	case E2BIG:
	case ERANGE:
		return fsalstat(ERR_FSAL_XATTR2BIG, err);
	case ENOSPC:
		if (setting && fstatvfs(fd, &sv) == 0 && sv.f_bavail > 16)
			return fsalstat(ERR_FSAL_XATTR2BIG, err);
		return fsalstat(ERR_FSAL_NOSPC, err);
	case EOPNOTSUPP:
		return fsalstat(ERR_FSAL_NOTSUPP, err);
	default:
		return posix2fsal_status(err);
	}
}

/* O_PATH descriptor of obj and its /proc path; -errno on failure. */
static int sparse_xattr_open(struct fsal_obj_handle *obj_hdl, char *proc_path)
{
	int fd = sparse_open_fh(sparse_op_export(), &sparse_hdl(obj_hdl)->fh,
				O_PATH | O_NOFOLLOW);

	if (fd >= 0)
		sparse_proc_path(fd, proc_path);
	return fd;
}

static bool sparse_xattr_type_ok(struct fsal_obj_handle *obj_hdl)
{
	return obj_hdl->type == REGULAR_FILE || obj_hdl->type == DIRECTORY;
}

enum sparse_xa_op { SPARSE_XA_GET, SPARSE_XA_SET, SPARSE_XA_REMOVE };

/*
 * One getxattr/setxattr/removexattr of user.KEY of obj, as the caller.
 * GET: *len is the buffer's size on entry (0: only ask the value's size)
 * and the value's length on return.  SET: buf and *len the value, flags
 * setxattr's.  A change is synced under Durable_Metadata.
 */
static fsal_status_t sparse_xattr_call(struct fsal_obj_handle *obj_hdl,
				       enum sparse_xa_op op,
				       const xattrkey4 *key, void *buf,
				       size_t *len, int flags)
{
	static const char *const what[] = { "getxattr", "setxattr",
					    "removexattr" };
	char name[SPARSE_XA_NAME_MAX + 1];
	char proc_path[SPARSE_PROC_PATH_LEN];
	fsal_status_t status;
	ssize_t n;
	int fd, err = 0;

	status = sparse_xattr_name(key, name);
	if (FSAL_IS_ERROR(status))
		return status;
	if (!sparse_xattr_type_ok(obj_hdl))
		return op == SPARSE_XA_GET ?
			       fsalstat(ERR_FSAL_NOXATTR, ENODATA) :
			       fsalstat(ERR_FSAL_PERM, EPERM);

	sparse_md_delay(op == SPARSE_XA_GET ? SPARSE_MD_READ :
					      SPARSE_MD_UPDATE);
	fd = sparse_xattr_open(obj_hdl, proc_path);
	if (fd < 0)
		return posix2fsal_status(-fd);

	fsal_set_credentials(&op_ctx->creds);
	if (op == SPARSE_XA_GET)
		n = getxattr(proc_path, name, *len ? buf : NULL, *len);
	else if (op == SPARSE_XA_SET)
		n = setxattr(proc_path, name, buf, *len, flags);
	else
		n = removexattr(proc_path, name);
	if (n < 0)
		err = errno;
	fsal_restore_ganesha_credentials();

	if (n < 0) {
		status = sparse_xattr_status(err, fd, op == SPARSE_XA_SET);
		LogDebug(COMPONENT_FSAL, "%s %s: %s", what[op], name,
			 strerror(err));
	} else if (op == SPARSE_XA_GET) {
		*len = (size_t)n;
	}
	close(fd);
	if (!FSAL_IS_ERROR(status) && op != SPARSE_XA_GET)
		sparse_changed(obj_hdl);
	if (!FSAL_IS_ERROR(status) && op != SPARSE_XA_GET)
		status = sparse_sync_obj(obj_hdl);
	return status;
}

/*
 * GETXATTR.  Ganesha asks with a buffer of utf8string_len bytes (+1 for a
 * NUL); ERR_FSAL_XATTR2BIG makes it ask for the size (utf8string_len 0,
 * no buffer) and then again with a buffer that large.
 */
static fsal_status_t sparse_getxattrs(struct fsal_obj_handle *obj_hdl,
				      xattrkey4 *xa_name, xattrvalue4 *xa_value)
{
	char *buf = xa_value->utf8string_val;
	size_t len = buf != NULL ? xa_value->utf8string_len : 0;
	bool has_room = len != 0;
	fsal_status_t status;

	status = sparse_xattr_call(obj_hdl, SPARSE_XA_GET, xa_name, buf, &len,
				   0);
	if (FSAL_IS_ERROR(status))
		return status;
	xa_value->utf8string_len = (u_int)len;
	if (has_room)
		buf[len] = '\0';
	return status;
}

/* SETXATTR: sxa_option EITHER, CREATE (EXIST if there) or REPLACE
 * (NOXATTR if not there), as setxattr's flags 0, XATTR_CREATE and
 * XATTR_REPLACE.
 */
static fsal_status_t sparse_setxattrs(struct fsal_obj_handle *obj_hdl,
				      setxattr_option4 option,
				      xattrkey4 *xa_name, xattrvalue4 *xa_value)
{
	size_t len = xa_value->utf8string_len;
	int flags;

	switch (option) {
	case SETXATTR4_EITHER:
		flags = 0;
		break;
	case SETXATTR4_CREATE:
		flags = XATTR_CREATE;
		break;
	case SETXATTR4_REPLACE:
		flags = XATTR_REPLACE;
		break;
	default:
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	}
	return sparse_xattr_call(obj_hdl, SPARSE_XA_SET, xa_name,
				 xa_value->utf8string_val, &len, flags);
}

static fsal_status_t sparse_removexattrs(struct fsal_obj_handle *obj_hdl,
					 xattrkey4 *xa_name)
{
	size_t len = 0;

	return sparse_xattr_call(obj_hdl, SPARSE_XA_REMOVE, xa_name, NULL, &len,
				 0);
}

static int sparse_xattr_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * All names of the object, as the caller (read permission required).
 * *buf holds them NUL-separated, as listxattr gives them.
 */
static fsal_status_t sparse_xattr_list_all(const char *proc_path, int fd,
					   char **buf, ssize_t *len)
{
	fsal_status_t status = { ERR_FSAL_NO_ERROR, 0 };
	char *list = NULL;
	ssize_t n = 0;
	int err = 0, tries;

	fsal_set_credentials(&op_ctx->creds);
	if (faccessat(AT_FDCWD, proc_path, R_OK, AT_EACCESS) != 0)
		err = errno;
	/* The list may grow between the size and the call: try again. */
	for (tries = 0; err == 0 && tries < 8; tries++) {
		n = listxattr(proc_path, NULL, 0);
		if (n < 0) {
			err = errno;
			break;
		}
		gsh_free(list);
		list = gsh_malloc(n + 1);
		if (n == 0)
			break;
		n = listxattr(proc_path, list, n);
		if (n >= 0)
			break;
		err = errno;
		if (err == ERANGE)
			err = 0;
	}
	fsal_restore_ganesha_credentials();

	if (err == 0 && n < 0)
		err = ERANGE;
	if (err != 0) {
		gsh_free(list);
		LogDebug(COMPONENT_FSAL, "listxattr: %s", strerror(err));
		status = sparse_xattr_status(err, fd, false);
		if (err == ERANGE) /* still changing: the client may retry */
			status = fsalstat(ERR_FSAL_DELAY, err);
		return status;
	}
	*buf = list;
	*len = n;
	return status;
}

/*
 * LISTXATTRS.  The user names without their prefix, sorted so that a
 * cookie (the index of the next name) means the same across calls while
 * the set does not change.  maxcount is what Ganesha leaves of
 * lxa_maxcount after the cookie and eof; the array's length word and each
 * name's XDR size (length word, padded bytes) are counted here, so the
 * reply never exceeds lxa_maxcount.  A first name that does not fit is
 * ERR_FSAL_TOOSMALL; a cookie past the end ERR_FSAL_BADCOOKIE.
 */
static fsal_status_t sparse_listxattrs(struct fsal_obj_handle *obj_hdl,
				       count4 maxcount, nfs_cookie4 *cookie,
				       bool_t *eof, xattrlist4 *names)
{
	char proc_path[SPARSE_PROC_PATH_LEN];
	fsal_status_t status;
	char *list = NULL, *p, **user = NULL;
	ssize_t len = 0;
	uint64_t nuser = 0, i, first = *cookie;
	uint32_t budget, used = 0, count = 0;
	int fd;

	names->xl4_count = 0;
	names->xl4_entries = NULL;
	*eof = true;
	if (!sparse_xattr_type_ok(obj_hdl)) {
		if (first != 0)
			return fsalstat(ERR_FSAL_BADCOOKIE, 0);
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	}

	sparse_md_delay(SPARSE_MD_READ);
	fd = sparse_xattr_open(obj_hdl, proc_path);
	if (fd < 0)
		return posix2fsal_status(-fd);
	status = sparse_xattr_list_all(proc_path, fd, &list, &len);
	close(fd);
	if (FSAL_IS_ERROR(status))
		return status;

	/* Pointers to the user names, past their prefix. */
	for (p = list; p < list + len; p += strlen(p) + 1) {
		if (strncmp(p, SPARSE_XA_PREFIX, SPARSE_XA_PREFIX_LEN) == 0 &&
		    p[SPARSE_XA_PREFIX_LEN] != '\0')
			nuser++;
	}
	if (nuser > 0)
		user = gsh_calloc(nuser, sizeof(*user));
	nuser = 0;
	for (p = list; p < list + len; p += strlen(p) + 1) {
		if (strncmp(p, SPARSE_XA_PREFIX, SPARSE_XA_PREFIX_LEN) == 0 &&
		    p[SPARSE_XA_PREFIX_LEN] != '\0')
			user[nuser++] = p + SPARSE_XA_PREFIX_LEN;
	}
	if (nuser > 1) /* user is NULL when there are none */
		qsort(user, nuser, sizeof(*user), sparse_xattr_cmp);

	if (first > nuser) {
		status = fsalstat(ERR_FSAL_BADCOOKIE, 0);
		goto out;
	}
	budget = maxcount >= 4 ? maxcount - 4 : 0;
	for (i = first; i < nuser; i++) {
		uint32_t need = SPARSE_XA_XDR_NAME(strlen(user[i]));

		if (need > budget - used)
			break;
		used += need;
		count++;
	}
	if (count == 0 && first < nuser) {
		status = fsalstat(ERR_FSAL_TOOSMALL, 0);
		goto out;
	}
	if (count > 0)
		names->xl4_entries = gsh_calloc(count, sizeof(xattrkey4));
	for (i = 0; i < count; i++) {
		const char *s = user[first + i];
		size_t l = strlen(s);

		names->xl4_entries[i].utf8string_val = gsh_malloc(l + 1);
		memcpy(names->xl4_entries[i].utf8string_val, s, l + 1);
		names->xl4_entries[i].utf8string_len = l;
	}
	names->xl4_count = count;
	*cookie = first + count;
	*eof = (first + count == nuser);
out:
	gsh_free(user);
	gsh_free(list);
	return status;
}

void sparse_xattr_ops_init(struct fsal_obj_ops *ops)
{
	ops->getxattrs = sparse_getxattrs;
	ops->setxattrs = sparse_setxattrs;
	ops->listxattrs = sparse_listxattrs;
	ops->removexattrs = sparse_removexattrs;
}
