/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * RFC 8276 extended attributes end to end on FSAL_SPARSE (issue #11):
 * GETXATTR, SETXATTR (EITHER/CREATE/REPLACE), LISTXATTRS (cookies,
 * lxr_eof, small lxa_maxcount) and REMOVEXATTR on files and directories,
 * checked byte for byte against the backing object's user. xattrs;
 * xattr_support; ACCESS4_XA*; change_info4 and the change attribute;
 * permissions as the caller; errors.  Needs root (other uids).
 */
#include <sys/xattr.h>

#include "e2e_fsal_util.h"

/* e2e_keep for any buffer: freed at the end of the test */
static void *keep(void *p)
{
	return e2e_keep(p);
}

/* ---- ops, one compound each, status returned ---- */

static int xa_set(struct nfs42_client *cl, const struct nfs42_fh *fh,
		  enum nfs42_setxattr_option opt, const char *name,
		  const void *val, uint32_t len, struct nfs42_cinfo *ci)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	int i = nfs42_op_setxattr(c, opt, name, val ? val : "", len);
	int rc = nfs42_compound_run(c);

	if (!rc && ci)
		*ci = nfs42_res(c, i)->u.xattr_cinfo;
	nfs42_compound_free(c);
	return rc;
}

static int xa_rm(struct nfs42_client *cl, const struct nfs42_fh *fh,
		 const char *name, struct nfs42_cinfo *ci)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	int i = nfs42_op_removexattr(c, name);
	int rc = nfs42_compound_run(c);

	if (!rc && ci)
		*ci = nfs42_res(c, i)->u.xattr_cinfo;
	nfs42_compound_free(c);
	return rc;
}

/* *val malloc'ed (kept for the test's end) */
static int xa_get(struct nfs42_client *cl, const struct nfs42_fh *fh,
		  const char *name, uint8_t **val, uint32_t *len)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	int i = nfs42_op_getxattr(c, name);
	int rc = nfs42_compound_run(c);

	if (!rc) {
		const struct nfs42_res *r = nfs42_res(c, i);

		*len = r->u.getxattr.len;
		*val = keep(malloc(*len + 1));
		memcpy(*val, r->u.getxattr.data, *len);
	}
	nfs42_compound_free(c);
	return rc;
}

/* One LISTXATTRS: names appended to *names (strdup'ed). */
struct xa_list {
	char *v[256];
	int n;
	int calls;
	uint32_t max_reply; /* largest LISTXATTRS4resok seen, XDR bytes */
};

static int xa_list1(struct nfs42_client *cl, const struct nfs42_fh *fh,
		    uint64_t *cookie, uint32_t maxcount, bool *eof,
		    struct xa_list *l)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	int i = nfs42_op_listxattrs(c, *cookie, maxcount);
	int rc = nfs42_compound_run(c);

	if (!rc) {
		const struct nfs42_res *r = nfs42_res(c, i);
		uint32_t size = 8 + 4 + 4, k;

		for (k = 0; k < r->u.listxattrs.n; k++) {
			const char *s = r->u.listxattrs.names[k];

			size += 4 + ((strlen(s) + 3) & ~3U);
			ck_assert_int_lt(l->n, 256);
			l->v[l->n++] = e2e_keep(strdup(s));
		}
		if (size > l->max_reply)
			l->max_reply = size;
		*eof = r->u.listxattrs.eof;
		*cookie = r->u.listxattrs.cookie;
		l->calls++;
	}
	nfs42_compound_free(c);
	return rc;
}

/* The whole list with lxa_maxcount maxcount, following the cookies. */
static int xa_list_all(struct nfs42_client *cl, const struct nfs42_fh *fh,
		       uint32_t maxcount, struct xa_list *l)
{
	uint64_t cookie = 0;
	bool eof = false;
	int rc = 0, guard = 0;

	memset(l, 0, sizeof(*l));
	while (!eof && rc == 0) {
		uint64_t before = cookie;
		int n = l->n;

		rc = xa_list1(cl, fh, &cookie, maxcount, &eof, l);
		if (rc == 0 && !eof) {
			/* progress: names and a moving cookie */
			ck_assert_int_gt(l->n, n);
			ck_assert_uint_ne(cookie, before);
		}
		ck_assert_int_lt(++guard, 1000);
	}
	return rc;
}

static bool xa_list_has(const struct xa_list *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return true;
	return false;
}

static struct nfs42_client *client_as(uint32_t uid, uint32_t gid)
{
	struct nfs42_client *cl = e2e_client();

	nfs42_set_cred(cl, uid, gid, 0, NULL);
	return cl;
}

/* ---- backing side ---- */

/* value of user.NAME of the backing rel: length, or -errno */
static ssize_t b_get(const char *rel, const char *name, void *buf, size_t sz)
{
	char *bp = e2e_backing(rel), xn[300];
	ssize_t n;

	snprintf(xn, sizeof(xn), "user.%s", name);
	n = getxattr(bp, xn, buf, sz);
	free(bp);
	return n < 0 ? -errno : n;
}

static void b_set(const char *rel, const char *xname, const void *v, size_t len)
{
	char *bp = e2e_backing(rel);

	ck_assert_msg(setxattr(bp, xname, v, len, 0) == 0, "setxattr %s: %s",
		      xname, strerror(errno));
	free(bp);
}

static void ck_backing_value(const char *rel, const char *name,
			     const void *want, size_t len)
{
	uint8_t *buf = keep(malloc(len + 16));
	ssize_t n = b_get(rel, name, buf, len + 16);

	ck_assert_int_eq(n, (ssize_t)len);
	ck_assert_mem_eq(buf, want, len);
}

/* a file, and a directory, made on the backing side */
static char *mkfile(const char *prefix)
{
	char *f = e2e_uniq(prefix);

	e2e_put_backing(f, "data", 4);
	return f;
}

/*
 * 0 when the backing filesystem takes a user xattr value of len bytes
 * itself, else its errno: ext4 keeps a value in one block (ENOSPC past
 * it), XFS and btrfs take up to Linux's 64 KiB.  Tried on a file of its
 * own made for it, which is removed again.
 */
static int b_value_fits(size_t len)
{
	char *bp = e2e_backing(mkfile("fits"));
	void *v = calloc(1, len);
	int err = 0;

	ck_assert_ptr_nonnull(v);
	if (setxattr(bp, "user.fits", v, len, 0) < 0)
		err = errno;
	ck_assert_int_eq(unlink(bp), 0);
	free(v);
	free(bp);
	return err;
}

static char *mkdir_(const char *prefix)
{
	char *d = e2e_uniq(prefix);

	e2e_bmkdir(d, 0755);
	return d;
}

/* a file (i 0) or a directory (i 1): each loop test runs on both */
static char *obj(int i, const char *prefix)
{
	return i == 0 ? mkfile(prefix) : mkdir_(prefix);
}

/* ---- tests ---- */

START_TEST(xattr_support_advertised)
{
	struct nfs42_client *cl = e2e_client();
	char *objs[2];
	struct nfs42_bitmap bm =
		nfs42_bm_make(FATTR4_SUPPORTED_ATTRS, FATTR4_XATTR_SUPPORT, -1);

	objs[0] = mkfile("sup");
	objs[1] = mkdir_("supd");
	for (int i = 0; i < 2; i++) {
		struct nfs42_attrs a = e2e_stat(cl, objs[i], &bm);

		ck_assert(nfs42_bm_isset(&a.supported_attrs,
					 FATTR4_XATTR_SUPPORT));
		ck_assert(nfs42_bm_isset(&a.mask, FATTR4_XATTR_SUPPORT));
		ck_assert_msg(a.xattr_support, "xattr_support false on %s",
			      objs[i]);
	}
	nfs42_client_free(cl);
}
END_TEST

/* set/get/replace/remove, byte for byte, on a file and a directory */
static void set_get_cycle(const char *rel)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = e2e_fh(cl, rel);
	uint8_t bin[256], *v, *big = keep(e2e_rand_bytes(3000, 11));
	uint32_t len;

	for (int i = 0; i < 256; i++)
		bin[i] = (uint8_t)(255 - i); /* NULs and 0xff inside */

	/* EITHER creates */
	ck_nfs_ok(cl,
		  xa_set(cl, &fh, SETXATTR4_EITHER, "color", "blue", 4, NULL));
	ck_backing_value(rel, "color", "blue", 4);
	ck_nfs_ok(cl, xa_get(cl, &fh, "color", &v, &len));
	ck_assert_uint_eq(len, 4);
	ck_assert_mem_eq(v, "blue", 4);
	/* EITHER replaces */
	ck_nfs_ok(cl,
		  xa_set(cl, &fh, SETXATTR4_EITHER, "color", "red", 3, NULL));
	ck_backing_value(rel, "color", "red", 3);
	/* binary */
	ck_nfs_ok(cl, xa_set(cl, &fh, SETXATTR4_EITHER, "bin", bin, sizeof(bin),
			     NULL));
	ck_backing_value(rel, "bin", bin, sizeof(bin));
	ck_nfs_ok(cl, xa_get(cl, &fh, "bin", &v, &len));
	ck_assert_uint_eq(len, sizeof(bin));
	ck_assert_mem_eq(v, bin, sizeof(bin));
	/* empty value */
	ck_nfs_ok(cl,
		  xa_set(cl, &fh, SETXATTR4_EITHER, "empty", NULL, 0, NULL));
	ck_assert_int_eq(b_get(rel, "empty", NULL, 0), 0);
	ck_nfs_ok(cl, xa_get(cl, &fh, "empty", &v, &len));
	ck_assert_uint_eq(len, 0);
	/* larger than Ganesha's first 1 KiB buffer (its XATTR2BIG retry) */
	ck_nfs_ok(cl,
		  xa_set(cl, &fh, SETXATTR4_EITHER, "big", big, 3000, NULL));
	ck_backing_value(rel, "big", big, 3000);
	ck_nfs_ok(cl, xa_get(cl, &fh, "big", &v, &len));
	ck_assert_uint_eq(len, 3000);
	ck_assert_mem_eq(v, big, 3000);
	/* a value set locally reads the same over NFS */
	b_set(rel, "user.local", "\0\1\2", 3);
	ck_nfs_ok(cl, xa_get(cl, &fh, "local", &v, &len));
	ck_assert_uint_eq(len, 3);
	ck_assert_mem_eq(v, "\0\1\2", 3);
	/* remove; then gone everywhere */
	ck_nfs_ok(cl, xa_rm(cl, &fh, "color", NULL));
	ck_assert_int_eq(b_get(rel, "color", NULL, 0), -ENODATA);
	ck_nfs_status(xa_get(cl, &fh, "color", &v, &len), NFS4ERR_NOXATTR);
	ck_nfs_status(xa_rm(cl, &fh, "color", NULL), NFS4ERR_NOXATTR);
	nfs42_client_free(cl);
}

START_TEST(set_get_remove)
{
	set_get_cycle(obj(_i, "sg"));
}
END_TEST

/* SETXATTR4_CREATE / REPLACE (RFC 8276 8.4.2) */
static void create_replace(const char *rel)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = e2e_fh(cl, rel);

	/* REPLACE of a missing one: NOXATTR, nothing made */
	ck_nfs_status(xa_set(cl, &fh, SETXATTR4_REPLACE, "k", "v1", 2, NULL),
		      NFS4ERR_NOXATTR);
	ck_assert_int_eq(b_get(rel, "k", NULL, 0), -ENODATA);
	/* CREATE of a missing one */
	ck_nfs_ok(cl, xa_set(cl, &fh, SETXATTR4_CREATE, "k", "v1", 2, NULL));
	ck_backing_value(rel, "k", "v1", 2);
	/* CREATE again: EXIST, value unchanged */
	ck_nfs_status(xa_set(cl, &fh, SETXATTR4_CREATE, "k", "v2", 2, NULL),
		      NFS4ERR_EXIST);
	ck_backing_value(rel, "k", "v1", 2);
	/* REPLACE of an existing one */
	ck_nfs_ok(cl, xa_set(cl, &fh, SETXATTR4_REPLACE, "k", "v3!", 3, NULL));
	ck_backing_value(rel, "k", "v3!", 3);
	/* an unknown option value: INVAL */
	ck_nfs_status(xa_set(cl, &fh, (enum nfs42_setxattr_option)3, "k", "x",
			     1, NULL),
		      NFS4ERR_INVAL);
	ck_backing_value(rel, "k", "v3!", 3);
	nfs42_client_free(cl);
}

START_TEST(create_replace_t)
{
	create_replace(obj(_i, "cr"));
}
END_TEST

/* LISTXATTRS: cookies across calls, eof, small and tiny maxcount */
static void listing(const char *rel)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = e2e_fh(cl, rel);
	/* 52: exactly the longest name (30 bytes) alone */
	static const uint32_t counts[] = { 4096, 200, 64, 52 };
	struct xa_list *l = keep(calloc(1, sizeof(*l)));
	char name[64];
	bool eof;
	int i, k;

	/* none yet: empty, eof */
	ck_nfs_ok(cl, xa_list_all(cl, &fh, 4096, l));
	ck_assert_int_eq(l->n, 0);
	ck_assert_int_eq(l->calls, 1);
	/* 30 names of lengths 1..30; other namespaces are never listed */
	for (i = 1; i <= 30; i++) {
		memset(name, 'a' + i % 26, i);
		name[i] = '\0';
		ck_nfs_ok(cl, xa_set(cl, &fh, SETXATTR4_CREATE, name, "x", 1,
				     NULL));
	}
	b_set(rel, "trusted.hidden", "t", 1);
	for (k = 0; k < 4; k++) {
		ck_nfs_ok(cl, xa_list_all(cl, &fh, counts[k], l));
		ck_assert_int_eq(l->n, 30);
		for (i = 1; i <= 30; i++) {
			memset(name, 'a' + i % 26, i);
			name[i] = '\0';
			ck_assert_msg(xa_list_has(l, name), "%s missing", name);
		}
		ck_assert(!xa_list_has(l, "hidden"));
		ck_assert(!xa_list_has(l, "trusted.hidden"));
		/* each reply within lxa_maxcount */
		ck_assert_uint_le(l->max_reply, counts[k]);
		if (counts[k] == 4096)
			ck_assert_int_eq(l->calls, 1);
		else
			ck_assert_int_gt(l->calls, 2);
		/* no name twice */
		for (i = 0; i < l->n; i++)
			for (int j = i + 1; j < l->n; j++)
				ck_assert_str_ne(l->v[i], l->v[j]);
	}
	/* lxa_maxcount too small for the first name: TOOSMALL.  The
	 * 30-byte name needs 8 + 4 + 4 + 32 + 4 = 52 bytes.
	 */
	memset(l, 0, sizeof(*l));
	ck_nfs_status(xa_list1(cl, &fh, &(uint64_t){ 0 }, 16, &eof, l),
		      NFS4ERR_TOOSMALL);
	ck_nfs_status(xa_list1(cl, &fh, &(uint64_t){ 0 }, 20, &eof, l),
		      NFS4ERR_TOOSMALL);
	/* exactly one short name fits in 24 bytes: 8 + 4 + (4 + 4) + 4 */
	{
		struct nfs42_client *c2 = cl;
		struct nfs42_fh fh2;
		char *f2 = mkfile("ls1");
		uint64_t ck = 0;

		fh2 = e2e_fh(c2, f2);
		ck_nfs_ok(cl, xa_set(cl, &fh2, SETXATTR4_CREATE, "a", "1", 1,
				     NULL));
		ck_nfs_ok(cl, xa_set(cl, &fh2, SETXATTR4_CREATE, "b", "2", 1,
				     NULL));
		memset(l, 0, sizeof(*l));
		ck_nfs_ok(cl, xa_list1(cl, &fh2, &ck, 24, &eof, l));
		ck_assert_int_eq(l->n, 1);
		ck_assert(!eof);
		ck_nfs_status(xa_list1(cl, &fh2, &ck, 23, &eof, l),
			      NFS4ERR_TOOSMALL);
		ck_nfs_ok(cl, xa_list1(cl, &fh2, &ck, 24, &eof, l));
		ck_assert_int_eq(l->n, 2);
		ck_assert(eof);
		ck_assert_str_ne(l->v[0], l->v[1]);
		/* at the end: nothing more, eof */
		ck_nfs_ok(cl, xa_list1(cl, &fh2, &ck, 24, &eof, l));
		ck_assert_int_eq(l->n, 2);
		ck_assert(eof);
		/* a cookie past the end */
		ck = 3;
		ck_nfs_status(xa_list1(cl, &fh2, &ck, 4096, &eof, l),
			      NFS4ERR_BAD_COOKIE);
	}
	nfs42_client_free(cl);
}

START_TEST(listing_t)
{
	listing(obj(_i, "ls"));
}
END_TEST

/* change_info4 and the change attribute move on every xattr change */
static void change_moves(const char *rel)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = e2e_fh(cl, rel);
	struct nfs42_cinfo ci;
	uint64_t c0, c1, c2, c3;

	c0 = e2e_change(cl, &fh);
	ck_nfs_ok(cl, xa_set(cl, &fh, SETXATTR4_EITHER, "m", "1", 1, &ci));
	ck_assert(!ci.atomic || ci.before != ci.after);
	ck_assert_uint_eq(ci.before, c0);
	ck_assert_uint_ne(ci.after, ci.before);
	c1 = e2e_change(cl, &fh);
	ck_assert_uint_ne(c1, c0);
	ck_assert_uint_eq(c1, ci.after);
	/* the same value again: ext4 leaves the inode alone, so the
	 * change attribute may stay, but change_info4 tells the truth
	 */
	ck_nfs_ok(cl, xa_set(cl, &fh, SETXATTR4_EITHER, "m", "1", 1, &ci));
	ck_assert_uint_eq(ci.before, c1);
	ck_assert_uint_eq(e2e_change(cl, &fh), ci.after);
	/* another value */
	ck_nfs_ok(cl, xa_set(cl, &fh, SETXATTR4_REPLACE, "m", "22", 2, &ci));
	c1 = ci.before;
	c2 = e2e_change(cl, &fh);
	ck_assert_uint_ne(c2, c1);
	ck_assert_uint_eq(c2, ci.after);
	ck_nfs_ok(cl, xa_rm(cl, &fh, "m", &ci));
	ck_assert_uint_eq(ci.before, c2);
	c3 = e2e_change(cl, &fh);
	ck_assert_uint_ne(c3, c2);
	ck_assert_uint_eq(c3, ci.after);
	/* a failed one changes nothing */
	ck_nfs_status(xa_rm(cl, &fh, "m", NULL), NFS4ERR_NOXATTR);
	ck_assert_uint_eq(e2e_change(cl, &fh), c3);
	nfs42_client_free(cl);
}

START_TEST(change_attr)
{
	change_moves(obj(_i, "ch"));
}
END_TEST

/* a non-owner (AUTH_SYS uid 1000) against root's 0644 and 0600 files */
START_TEST(permissions)
{
	const uint32_t xa = ACCESS4_XAREAD | ACCESS4_XAWRITE | ACCESS4_XALIST;
	struct nfs42_client *root = e2e_client(), *user = client_as(1000, 1000);
	char *f = mkfile("perm"), *bp = e2e_backing(f), *d = mkdir_("permd");
	struct nfs42_fh fh = e2e_fh(root, f), dfh = e2e_fh(root, d);
	struct xa_list *l = keep(calloc(1, sizeof(*l)));
	uint32_t sup, len;
	uint8_t *v;

	ck_assert_int_eq(chown(bp, 0, 0), 0);
	ck_assert_int_eq(chmod(bp, 0644), 0);
	ck_nfs_ok(root,
		  xa_set(root, &fh, SETXATTR4_EITHER, "k", "root", 4, NULL));
	/* ACCESS: read and list yes, write no; root all three */
	ck_assert_uint_eq(e2e_access(user, &fh, xa, &sup),
			  ACCESS4_XAREAD | ACCESS4_XALIST);
	ck_assert_uint_eq(sup, xa);
	ck_assert_uint_eq(e2e_access(root, &fh, xa, &sup), xa);
	ck_assert_uint_eq(e2e_access(user, &dfh, xa, &sup),
			  ACCESS4_XAREAD | ACCESS4_XALIST);
	/* what ACCESS says is what happens */
	ck_nfs_status(xa_set(user, &fh, SETXATTR4_EITHER, "k", "user", 4, NULL),
		      NFS4ERR_ACCESS);
	ck_nfs_status(xa_set(user, &fh, SETXATTR4_CREATE, "new", "u", 1, NULL),
		      NFS4ERR_ACCESS);
	ck_nfs_status(xa_rm(user, &fh, "k", NULL), NFS4ERR_ACCESS);
	ck_nfs_status(xa_set(user, &dfh, SETXATTR4_EITHER, "k", "u", 1, NULL),
		      NFS4ERR_ACCESS);
	ck_backing_value(f, "k", "root", 4);
	ck_assert_int_eq(b_get(f, "new", NULL, 0), -ENODATA);
	ck_nfs_ok(user, xa_get(user, &fh, "k", &v, &len));
	ck_assert_mem_eq(v, "root", 4);
	ck_nfs_ok(user, xa_list_all(user, &fh, 4096, l));
	ck_assert_int_eq(l->n, 1);
	/* 0600: not even read or listed */
	ck_assert_int_eq(chmod(bp, 0600), 0);
	ck_nfs_ok(root, xa_set(root, &fh, SETXATTR4_EITHER, "k", "root", 4,
			       NULL)); /* new ctime: caches revalidate */
	ck_assert_uint_eq(e2e_access(user, &fh, xa, &sup), 0);
	ck_nfs_status(xa_get(user, &fh, "k", &v, &len), NFS4ERR_ACCESS);
	ck_nfs_status(xa_list_all(user, &fh, 4096, l), NFS4ERR_ACCESS);
	/* the owner may, once the file is theirs */
	ck_assert_int_eq(chown(bp, 1000, 1000), 0);
	ck_nfs_ok(root,
		  xa_set(root, &fh, SETXATTR4_EITHER, "k", "root", 4, NULL));
	ck_nfs_ok(user,
		  xa_set(user, &fh, SETXATTR4_EITHER, "k", "mine", 4, NULL));
	ck_backing_value(f, "k", "mine", 4);
	ck_nfs_ok(user, xa_rm(user, &fh, "k", NULL));
	ck_assert_int_eq(b_get(f, "k", NULL, 0), -ENODATA);
	free(bp);
	nfs42_client_free(user);
	nfs42_client_free(root);
}
END_TEST

START_TEST(errors)
{
	struct nfs42_client *cl = e2e_client();
	char *f = mkfile("err"), *ln = e2e_uniq("errlink"), *bl;
	struct nfs42_fh fh = e2e_fh(cl, f), root, lfh;
	char name[300];
	uint8_t *v, *huge;
	uint32_t len;
	int fits;

	/* names: empty INVAL; 250 bytes (255 with "user.") fine, 251
	 * NAMETOOLONG
	 */
	ck_nfs_status(xa_set(cl, &fh, SETXATTR4_EITHER, "", "v", 1, NULL),
		      NFS4ERR_INVAL);
	memset(name, 'n', 250);
	name[250] = '\0';
	ck_nfs_ok(cl, xa_set(cl, &fh, SETXATTR4_EITHER, name, "v", 1, NULL));
	ck_backing_value(f, name, "v", 1);
	name[250] = 'n';
	name[251] = '\0';
	ck_nfs_status(xa_set(cl, &fh, SETXATTR4_EITHER, name, "v", 1, NULL),
		      NFS4ERR_NAMETOOLONG);
	ck_nfs_status(xa_get(cl, &fh, name, &v, &len), NFS4ERR_NAMETOOLONG);
	/* a name that looks like another namespace stays in user. */
	ck_nfs_ok(cl,
		  xa_set(cl, &fh, SETXATTR4_EITHER, "trusted.x", "t", 1, NULL));
	ck_backing_value(f, "trusted.x", "t", 1);
	{
		char *bp = e2e_backing(f);

		ck_assert_int_lt(getxattr(bp, "trusted.x", NULL, 0), 0);
		ck_assert_int_eq(errno, ENODATA);
		free(bp);
	}
	/* the export root's handle key (trusted.) is not reachable */
	ck_nfs_ok(cl, e2e_fh_rc(cl, "", &root));
	ck_nfs_status(xa_get(cl, &root, "trusted.nfs_sparse.handle_key", &v,
			     &len),
		      NFS4ERR_NOXATTR);
	/* 10000 bytes: too large for ext4 (one block), XATTR2BIG and
	 * nothing stored; a filesystem that takes it (XFS) has it stored
	 */
	huge = keep(e2e_rand_bytes(10000, 3));
	fits = b_value_fits(10000);
	if (fits == 0) {
		printf("errors: the backing filesystem takes a 10000-byte value\n");
		ck_nfs_ok(cl, xa_set(cl, &fh, SETXATTR4_EITHER, "huge", huge,
				     10000, NULL));
		ck_backing_value(f, "huge", huge, 10000);
		ck_nfs_ok(cl, xa_rm(cl, &fh, "huge", NULL));
	} else {
		ck_assert_msg(fits == ENOSPC || fits == E2BIG || fits == ERANGE,
			      "setxattr of 10000 bytes on the backing side: %s",
			      strerror(fits));
		ck_nfs_status(xa_set(cl, &fh, SETXATTR4_EITHER, "huge", huge,
				     10000, NULL),
			      NFS4ERR_XATTR2BIG);
	}
	ck_assert_int_eq(b_get(f, "huge", NULL, 0), -ENODATA);
	/* larger than Linux allows at all (64 KiB), within the session */
	if (nfs42_max_request(cl) > 70000 + 1024) {
		huge = keep(e2e_rand_bytes(70000, 4));
		ck_nfs_status(xa_set(cl, &fh, SETXATTR4_EITHER, "huge", huge,
				     70000, NULL),
			      NFS4ERR_XATTR2BIG);
	} else {
		printf("errors: ca_maxrequestsize %u, no 70000-byte value\n",
		       nfs42_max_request(cl));
	}
	/* a symlink has no user xattrs and takes none (as in Linux) */
	bl = e2e_backing(ln);
	ck_assert_int_eq(symlink("target", bl), 0);
	free(bl);
	lfh = e2e_fh(cl, ln);
	ck_nfs_status(xa_get(cl, &lfh, "k", &v, &len), NFS4ERR_NOXATTR);
	ck_nfs_status(xa_set(cl, &lfh, SETXATTR4_EITHER, "k", "v", 1, NULL),
		      NFS4ERR_PERM);
	ck_nfs_status(xa_rm(cl, &lfh, "k", NULL), NFS4ERR_PERM);
	nfs42_client_free(cl);
}
END_TEST

/* NFSv4.1 has no xattr ops (RFC 8276 extends minor version 2); ACCESS
 * with an XA bit is INVAL there
 */
START_TEST(v41_op_illegal)
{
	struct nfs42_client *cl = NULL;
	char *f = mkfile("v41");
	struct nfs42_compound *c;
	struct nfs42_opts o;
	struct nfs42_fh fh;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.minorversion = 1;
	ck_assert_int_eq(nfs42_client_create(&o, &cl), 0);
	fh = e2e_fh(cl, f);
	c = e2e_cpd(cl, &fh);
	nfs42_op_getxattr(c, "k");
	ck_nfs_status(e2e_cpd_run(c), NFS4ERR_OP_ILLEGAL);
	c = e2e_cpd(cl, &fh);
	nfs42_op_access(c, ACCESS4_READ | ACCESS4_XAREAD);
	ck_nfs_status(e2e_cpd_run(c), NFS4ERR_INVAL);
	nfs42_client_free(cl);
}
END_TEST

/* a read-only export (Access_Type = RO): read and list, never change */
START_TEST(read_only_export)
{
	struct nfs42_client *cl = e2e_client();
	struct xa_list *l = keep(calloc(1, sizeof(*l)));
	char buf[8];
	struct nfs42_fh fh;
	uint32_t len;
	uint8_t *v;

	ck_nfs_ok(cl, nfs42_lookup_path(cl, "/xattr_ro/f", &fh, NULL));
	ck_nfs_ok(cl, xa_get(cl, &fh, "k", &v, &len));
	ck_assert_uint_eq(len, 1);
	ck_assert_mem_eq(v, "v", 1);
	ck_nfs_ok(cl, xa_list_all(cl, &fh, 4096, l));
	ck_assert_int_eq(l->n, 1);
	ck_assert_str_eq(l->v[0], "k");
	ck_nfs_status(xa_set(cl, &fh, SETXATTR4_EITHER, "k", "w", 1, NULL),
		      NFS4ERR_ROFS);
	ck_nfs_status(xa_set(cl, &fh, SETXATTR4_CREATE, "n", "w", 1, NULL),
		      NFS4ERR_ROFS);
	ck_nfs_status(xa_rm(cl, &fh, "k", NULL), NFS4ERR_ROFS);
	ck_assert_int_eq(getxattr(E2E_XATTR_RO_DIR "/ro/f", "user.k", buf,
				  sizeof(buf)),
			 1);
	ck_assert_int_eq(buf[0], 'v');
	ck_assert_int_lt(getxattr(E2E_XATTR_RO_DIR "/ro/f", "user.n", buf,
				  sizeof(buf)),
			 0);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_proto_xattr");
	TCase *tc = tcase_create("xattr");
	const char *fsal;

	e2e_require_root("e2e_proto_xattr");
	/* getenv: ck_assert (e2e_env) may not run outside a test */
	fsal = getenv("NFS42_FSAL");
	if (fsal && strcmp(fsal, "SPARSE") != 0) {
		printf("e2e_proto_xattr: FSAL_SPARSE only (%s has no xattr "
		       "ops in Ganesha 6.5), skipped\n",
		       fsal);
		return 77;
	}
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, xattr_support_advertised);
	tcase_add_loop_test(tc, set_get_remove, 0, 2);
	tcase_add_loop_test(tc, create_replace_t, 0, 2);
	tcase_add_loop_test(tc, listing_t, 0, 2);
	tcase_add_loop_test(tc, change_attr, 0, 2);
	tcase_add_test(tc, permissions);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, v41_op_illegal);
	tcase_add_test(tc, read_only_export);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
