/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL end-to-end, namespace (issue #3): LOOKUP/LOOKUPP, READDIR over
 * 10,000 entries with resumable cookies and the cookie verifier, CREATE of
 * directories, symlinks and special files, LINK, REMOVE and RENAME with
 * their error cases.  The oracle is RFC 8881 (NFSv4.1) and the backing
 * directory (lstat, readlink, readdir).
 */
#include <sys/sysmacros.h>

#include "e2e_fsal_util.h"

/* CREATE in dir; returns status, fills *fh and *cinfo when non-NULL. */
static int do_create(struct nfs42_client *cl, const struct nfs42_fh *dir,
		     const struct nfs42_create_args *a, struct nfs42_fh *fh,
		     struct nfs42_cinfo *cinfo)
{
	struct nfs42_compound *c = e2e_cpd(cl, dir);
	int rc, ci, fi;

	ci = nfs42_op_create(c, a);
	fi = nfs42_op_getfh(c);
	rc = nfs42_compound_run(c);
	if (!rc) {
		if (fh)
			*fh = nfs42_res(c, fi)->u.fh;
		if (cinfo)
			*cinfo = nfs42_res(c, ci)->u.create.cinfo;
	}
	nfs42_compound_free(c);
	return rc;
}

static int do_remove(struct nfs42_client *cl, const struct nfs42_fh *dir,
		     const char *name, struct nfs42_cinfo *cinfo)
{
	struct nfs42_compound *c = e2e_cpd(cl, dir);
	int rc, i;

	i = nfs42_op_remove(c, name);
	rc = nfs42_compound_run(c);
	if (!rc && cinfo)
		*cinfo = nfs42_res(c, i)->u.cinfo;
	nfs42_compound_free(c);
	return rc;
}

/* RENAME: SAVEFH = src dir, CURRENT = dst dir. */
static int do_rename(struct nfs42_client *cl, const struct nfs42_fh *sdir,
		     const char *from, const struct nfs42_fh *ddir,
		     const char *to)
{
	struct nfs42_compound *c = e2e_cpd2(cl, sdir, ddir);

	nfs42_op_rename(c, from, to);
	return e2e_cpd_run(c);
}

/* LINK: SAVEFH = existing object, CURRENT = target dir. */
static int do_link(struct nfs42_client *cl, const struct nfs42_fh *obj,
		   const struct nfs42_fh *dir, const char *name)
{
	struct nfs42_compound *c = e2e_cpd2(cl, obj, dir);

	nfs42_op_link(c, name);
	return e2e_cpd_run(c);
}

/* ------------------------------------------------------------- LOOKUP */

START_TEST(lookup_and_lookupp)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, FATTR4_TYPE, -1);
	char *d = e2e_uniq("lk"), *sub = e2e_fmt("%s/sub", d);
	char *file = e2e_fmt("%s/sub/file", d);
	struct stat sd, ss, sf;
	struct nfs42_compound *c;
	struct nfs42_fh dfh, subfh, root;
	char longname[300];
	int i1, i2, i3, g1, g2, g3, rc;

	e2e_bmkdir(d, 0755);
	e2e_bmkdir(sub, 0755);
	e2e_put_backing(file, "x", 1);
	sd = e2e_bstat(d);
	ss = e2e_bstat(sub);
	sf = e2e_bstat(file);
	root = e2e_fh(cl, "");

	/* LOOKUP d, sub, file in one compound; each fileid is the inode */
	c = e2e_cpd(cl, &root);
	nfs42_op_lookup(c, d);
	i1 = nfs42_op_getattr(c, &bm);
	g1 = nfs42_op_getfh(c);
	nfs42_op_lookup(c, "sub");
	i2 = nfs42_op_getattr(c, &bm);
	g2 = nfs42_op_getfh(c);
	nfs42_op_lookup(c, "file");
	i3 = nfs42_op_getattr(c, &bm);
	g3 = nfs42_op_getfh(c);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	ck_assert_uint_eq(nfs42_res(c, i1)->u.getattr->fileid, sd.st_ino);
	ck_assert_uint_eq(nfs42_res(c, i1)->u.getattr->type, NF4DIR);
	ck_assert_uint_eq(nfs42_res(c, i2)->u.getattr->fileid, ss.st_ino);
	ck_assert_uint_eq(nfs42_res(c, i3)->u.getattr->fileid, sf.st_ino);
	ck_assert_uint_eq(nfs42_res(c, i3)->u.getattr->type, NF4REG);
	dfh = nfs42_res(c, g1)->u.fh;
	subfh = nfs42_res(c, g2)->u.fh;
	ck_assert_uint_gt(nfs42_res(c, g3)->u.fh.len, 0);
	nfs42_compound_free(c);

	/* LOOKUPP from sub is d; twice is the export root */
	c = e2e_cpd(cl, &subfh);
	nfs42_op_lookupp(c);
	i1 = nfs42_op_getattr(c, &bm);
	nfs42_op_lookupp(c);
	i2 = nfs42_op_getattr(c, &bm);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	ck_assert_uint_eq(nfs42_res(c, i1)->u.getattr->fileid, sd.st_ino);
	ck_assert_uint_eq(nfs42_res(c, i2)->u.getattr->fileid,
			  e2e_bstat("").st_ino);
	nfs42_compound_free(c);

	/* RFC 8881 18.15.3 / 18.14.3: errors */
	c = e2e_cpd(cl, &dfh);
	nfs42_op_lookup(c, "no-such-name");
	ck_nfs_status(e2e_cpd_run(c), NFS4ERR_NOENT);

	c = e2e_cpd(cl, &subfh);
	nfs42_op_lookup(c, "file");
	nfs42_op_lookup(c, "below");
	rc = nfs42_compound_run(c);
	ck_nfs_status(rc, NFS4ERR_NOTDIR);
	ck_assert_int_eq(nfs42_compound_failed_op(c), 2);
	nfs42_compound_free(c);

	c = e2e_cpd(cl, &subfh);
	nfs42_op_lookup(c, "file");
	nfs42_op_lookupp(c);
	ck_nfs_status(e2e_cpd_run(c), NFS4ERR_NOTDIR);

	c = e2e_cpd(cl, &dfh);
	nfs42_op_lookup(c, "");
	ck_nfs_status(e2e_cpd_run(c), NFS4ERR_INVAL);

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	c = e2e_cpd(cl, &dfh);
	nfs42_op_lookup(c, longname);
	ck_nfs_status(e2e_cpd_run(c), NFS4ERR_NAMETOOLONG);

	free(d);
	free(sub);
	free(file);
	nfs42_client_free(cl);
}
END_TEST

/* ------------------------------------------------------------ READDIR */

#define NBIG 10000

struct page {
	uint32_t n;
	bool eof;
	uint8_t verf[NFS4_VERIFIER_SIZE];
	char **names;
	uint64_t *cookies;
	uint64_t *fileids;
};

static int readdir_page(struct nfs42_client *cl, const struct nfs42_fh *dir,
			uint64_t cookie, const uint8_t *verf, uint32_t maxcount,
			struct page *p)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, -1);
	struct nfs42_compound *c = e2e_cpd(cl, dir);
	const struct nfs42_res *r;
	int rc, i;

	i = nfs42_op_readdir(c, cookie, verf, maxcount, maxcount, &bm);
	rc = nfs42_compound_run(c);
	memset(p, 0, sizeof(*p));
	if (!rc) {
		r = nfs42_res(c, i);
		p->n = r->u.readdir.n;
		p->eof = r->u.readdir.eof;
		memcpy(p->verf, r->u.readdir.cookieverf, NFS4_VERIFIER_SIZE);
		p->names = calloc(p->n + 1, sizeof(char *));
		p->cookies = calloc(p->n + 1, sizeof(uint64_t));
		p->fileids = calloc(p->n + 1, sizeof(uint64_t));
		for (uint32_t k = 0; k < p->n; k++) {
			p->names[k] = strdup(r->u.readdir.entries[k].name);
			p->cookies[k] = r->u.readdir.entries[k].cookie;
			p->fileids[k] = r->u.readdir.entries[k].attrs.fileid;
		}
	}
	nfs42_compound_free(c);
	return rc;
}

static void page_free(struct page *p)
{
	for (uint32_t k = 0; k < p->n; k++)
		free(p->names[k]);
	free(p->names);
	free(p->cookies);
	free(p->fileids);
}

/* A whole walk from cookie, in order. */
struct walk {
	uint32_t n;
	char **names;
	uint64_t *cookies;
	uint64_t *fileids;
	int pages;
};

static void walk_dir(struct nfs42_client *cl, const struct nfs42_fh *dir,
		     uint64_t cookie, const uint8_t *verf0, struct walk *w)
{
	uint8_t verf[NFS4_VERIFIER_SIZE] = { 0 };
	struct page p;
	uint32_t cap = NBIG + 16;

	memset(w, 0, sizeof(*w));
	w->names = calloc(cap, sizeof(char *));
	w->cookies = calloc(cap, sizeof(uint64_t));
	w->fileids = calloc(cap, sizeof(uint64_t));
	if (verf0)
		memcpy(verf, verf0, sizeof(verf));
	for (;;) {
		ck_nfs_ok(cl, readdir_page(cl, dir, cookie, verf, 32768, &p));
		w->pages++;
		ck_assert_msg(p.n > 0 || p.eof, "READDIR made no progress");
		for (uint32_t k = 0; k < p.n; k++) {
			ck_assert_uint_lt(w->n, cap);
			w->names[w->n] = p.names[k];
			w->cookies[w->n] = p.cookies[k];
			w->fileids[w->n] = p.fileids[k];
			p.names[k] = NULL;
			w->n++;
			cookie = p.cookies[k];
		}
		memcpy(verf, p.verf, sizeof(verf));
		p.n = 0;
		page_free(&p);
		if (p.eof)
			break;
		ck_assert_int_lt(w->pages, 10000);
	}
}

static void walk_free(struct walk *w)
{
	for (uint32_t k = 0; k < w->n; k++)
		free(w->names[k]);
	free(w->names);
	free(w->cookies);
	free(w->fileids);
}

static int name_index(const char *name)
{
	int i;
	char tail;

	if (sscanf(name, "e%d%c", &i, &tail) != 1 || i < 0 || i >= NBIG)
		return -1;
	return i;
}

START_TEST(readdir_10k_cookies)
{
	struct nfs42_client *cl = e2e_client(), *c2, *c3;
	char *d = e2e_uniq("bigdir"), *bd = e2e_backing(d), path[4096];
	static ino_t inos[NBIG];
	static int seen[NBIG];
	struct walk all, tail, tail2;
	struct nfs42_fh dir;
	struct stat st;
	uint32_t k, start;
	int fd, i;

	ck_assert_int_eq(mkdir(bd, 0755), 0);
	for (i = 0; i < NBIG; i++) {
		snprintf(path, sizeof(path), "%s/e%d", bd, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(fstat(fd, &st), 0);
		inos[i] = st.st_ino;
		close(fd);
	}
	dir = e2e_fh(cl, d);
	walk_dir(cl, &dir, 0, NULL, &all);
	ck_assert_int_gt(all.pages, 1);
	ck_assert_uint_eq(all.n, NBIG);
	for (k = 0; k < all.n; k++) {
		i = name_index(all.names[k]);
		ck_assert_msg(i >= 0, "unexpected entry '%s'", all.names[k]);
		seen[i]++;
		ck_assert_msg(all.fileids[k] == inos[i],
			      "%s: fileid %llu != st_ino %llu", all.names[k],
			      (unsigned long long)all.fileids[k],
			      (unsigned long long)inos[i]);
		/* RFC 8881 18.23.3: 0, 1, 2 are never valid entry cookies */
		ck_assert_uint_gt(all.cookies[k], 2);
	}
	for (i = 0; i < NBIG; i++)
		ck_assert_msg(seen[i] == 1, "e%d seen %d times", i, seen[i]);

	/* Resume from a cookie, in a new compound on a new client: exactly
	 * the entries that followed it, in the same order. */
	c2 = e2e_client();
	start = all.n / 3;
	{
		struct page p0;

		/* a fresh verifier from the new client's first page */
		ck_nfs_ok(c2, readdir_page(c2, &dir, 0, NULL, 4096, &p0));
		walk_dir(c2, &dir, all.cookies[start], p0.verf, &tail);
		page_free(&p0);
	}
	ck_assert_uint_eq(tail.n, all.n - start - 1);
	for (k = 0; k < tail.n; k++)
		ck_assert_str_eq(tail.names[k], all.names[start + 1 + k]);
	/* the same cookies for the same entries */
	for (k = 0; k < tail.n; k++)
		ck_assert_uint_eq(tail.cookies[k], all.cookies[start + 1 + k]);

	/* And once more near the end with a third client, with the
	 * verifier the first client holds (the directory did not change). */
	c3 = e2e_client();
	start = all.n - 7;
	{
		struct page p0, last;

		ck_nfs_ok(cl, readdir_page(cl, &dir, 0, NULL, 4096, &p0));
		walk_dir(c3, &dir, all.cookies[start], p0.verf, &tail2);
		/* from the last cookie: nothing follows, eof */
		ck_nfs_ok(c3, readdir_page(c3, &dir, all.cookies[all.n - 1],
					   p0.verf, 4096, &last));
		ck_assert_uint_eq(last.n, 0);
		ck_assert(last.eof);
		page_free(&last);
		page_free(&p0);
	}
	ck_assert_uint_eq(tail2.n, 6);
	for (k = 0; k < tail2.n; k++)
		ck_assert_str_eq(tail2.names[k], all.names[start + 1 + k]);
	walk_free(&all);
	walk_free(&tail);
	walk_free(&tail2);
	nfs42_client_free(c2);
	nfs42_client_free(c3);
	free(bd);
	free(d);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(readdir_cookie_verifier)
{
	struct nfs42_client *cl = e2e_client();
	char *d = e2e_uniq("rdv"), name[64];
	struct page p1, p2;
	struct nfs42_fh dir;
	uint8_t bad[NFS4_VERIFIER_SIZE];
	int i, rc;

	e2e_bmkdir(d, 0755);
	for (i = 0; i < 200; i++) {
		char *rel;

		snprintf(name, sizeof(name), "entry-with-a-long-name-%03d", i);
		rel = e2e_fmt("%s/%s", d, name);
		e2e_put_backing(rel, "", 0);
		free(rel);
	}
	dir = e2e_fh(cl, d);
	ck_nfs_ok(cl, readdir_page(cl, &dir, 0, NULL, 1024, &p1));
	ck_assert_uint_gt(p1.n, 0);
	ck_assert(!p1.eof);
	/* the verifier the server gave back resumes fine */
	ck_nfs_ok(cl, readdir_page(cl, &dir, p1.cookies[p1.n - 1], p1.verf,
				   1024, &p2));
	ck_assert_uint_gt(p2.n, 0);
	ck_assert_str_ne(p2.names[0], p1.names[p1.n - 1]);
	page_free(&p2);
	/*
	 * RFC 8881 18.23.3: a cookieverf the server did not issue for this
	 * directory, with a non-zero cookie, is NFS4ERR_NOT_SAME (Ganesha
	 * answers NFS4ERR_BAD_COOKIE, also a READDIR error).  A server that
	 * does not use verifiers hands out zeros and ignores them (Ganesha's
	 * default, UseCookieVerifier = false); e2e_fsal_exports checks an
	 * export that turns them on.
	 */
	if (e2e_all_zero(p1.verf, NFS4_VERIFIER_SIZE)) {
		printf("readdir_cookie_verifier: server uses no cookie "
		       "verifier (zeros); forged-verifier check skipped\n");
	} else {
		memcpy(bad, p1.verf, sizeof(bad));
		for (i = 0; i < NFS4_VERIFIER_SIZE; i++)
			bad[i] ^= 0x5a;
		rc = readdir_page(cl, &dir, p1.cookies[p1.n - 1], bad, 1024,
				  &p2);
		if (!rc)
			page_free(&p2);
		ck_nfs_status2(rc, NFS4ERR_NOT_SAME, NFS4ERR_BAD_COOKIE);
	}
	/* cookies 1 and 2 are reserved and never handed out: BAD_COOKIE */
	rc = readdir_page(cl, &dir, 1, p1.verf, 1024, &p2);
	if (!rc)
		page_free(&p2);
	ck_nfs_status(rc, NFS4ERR_BAD_COOKIE);
	/* READDIR of a regular file: NOTDIR */
	{
		char *rel = e2e_fmt("%s/%s", d, "entry-with-a-long-name-000");
		struct nfs42_fh f = e2e_fh(cl, rel);

		rc = readdir_page(cl, &f, 0, NULL, 1024, &p2);
		if (!rc)
			page_free(&p2);
		ck_nfs_status(rc, NFS4ERR_NOTDIR);
		free(rel);
	}
	page_free(&p1);
	free(d);
	nfs42_client_free(cl);
}
END_TEST

/* -------------------------------------------------------- MKDIR/RMDIR */

START_TEST(mkdir_exist_rmdir_notempty)
{
	struct nfs42_client *cl = e2e_client();
	char *d = e2e_uniq("mk"), *child, *inner;
	struct nfs42_sattr sa;
	struct nfs42_create_args a = { .type = NF4DIR };
	struct nfs42_cinfo ci;
	struct nfs42_fh dir, sub, root = e2e_fh(cl, "");
	struct nfs42_attrs at;
	struct stat st;
	uint64_t before;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0751);
	a.attrs = &sa;
	a.name = d;
	before = e2e_change(cl, &root);
	ck_nfs_ok(cl, do_create(cl, &root, &a, &dir, &ci));
	st = e2e_bstat(d);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0751);
	at = e2e_getattr(cl, &dir, NULL);
	ck_assert_uint_eq(at.fileid, st.st_ino);
	ck_assert_uint_eq(at.type, NF4DIR);
	/* change_info4: before/after of the parent around the CREATE, atomic
	 * (the FSAL reads them under the directory's change_info stripe; a
	 * Linux client revalidates the directory after a non-atomic one)
	 */
	ck_assert(ci.atomic);
	/* before is the directory's own change attribute just before the
	 * call: at least what the (maybe stale: other tests write the backing
	 * directory directly) cached GETATTR said
	 */
	ck_assert_uint_ge(ci.before, before);
	ck_assert_uint_ne(ci.after, ci.before);
	ck_assert_uint_eq(e2e_change(cl, &root), ci.after);
	/* the next change through the server starts where this one ended:
	 * what lets a client keep its cache of the directory
	 */
	{
		struct nfs42_cinfo ci2;
		char *d2 = e2e_fmt("%s-2", d);

		a.name = d2;
		ck_nfs_ok(cl, do_create(cl, &root, &a, NULL, &ci2));
		ck_assert(ci2.atomic);
		ck_assert_uint_eq(ci2.before, ci.after);
		ck_assert_uint_ne(ci2.after, ci2.before);
		a.name = d;
	}
	/* EEXIST -> NFS4ERR_EXIST, for a dir and for a file name */
	ck_nfs_status(do_create(cl, &root, &a, NULL, NULL), NFS4ERR_EXIST);
	child = e2e_fmt("%s/afile", d);
	e2e_put_backing(child, "abc", 3);
	a.name = "afile";
	ck_nfs_status(do_create(cl, &dir, &a, NULL, NULL), NFS4ERR_EXIST);
	ck_assert(S_ISREG(e2e_bstat(child).st_mode));
	/* CREATE below a regular file: NOTDIR */
	{
		struct nfs42_fh f = e2e_fh(cl, child);

		a.name = "x";
		ck_nfs_status(do_create(cl, &f, &a, NULL, NULL),
			      NFS4ERR_NOTDIR);
	}
	/* a nested directory, then rmdir of the non-empty parent */
	a.name = "inner";
	ck_nfs_ok(cl, do_create(cl, &dir, &a, &sub, NULL));
	inner = e2e_fmt("%s/inner", d);
	ck_assert(S_ISDIR(e2e_bstat(inner).st_mode));
	ck_assert_uint_eq(e2e_getattr(cl, &dir, NULL).numlinks,
			  e2e_bstat(d).st_nlink);
	ck_assert_uint_eq(e2e_bstat(d).st_nlink, 3);
	ck_nfs_status(do_remove(cl, &root, d, NULL), NFS4ERR_NOTEMPTY);
	ck_assert(e2e_bexists(inner));
	ck_nfs_ok(cl, do_remove(cl, &dir, "inner", NULL));
	ck_assert(!e2e_bexists(inner));
	ck_nfs_status(do_remove(cl, &root, d, NULL), NFS4ERR_NOTEMPTY);
	ck_nfs_ok(cl, do_remove(cl, &dir, "afile", NULL));
	ck_nfs_ok(cl, do_remove(cl, &root, d, &ci));
	ck_assert_uint_ne(ci.after, ci.before);
	ck_assert(!e2e_bexists(d));
	/* the removed directory's handle is stale now */
	ck_nfs_status(e2e_getattr_rc(cl, &dir, NULL, &at), NFS4ERR_STALE);
	free(d);
	free(child);
	free(inner);
	nfs42_client_free(cl);
}
END_TEST

/* ------------------------------------------------------------ SYMLINK */

START_TEST(symlink_readlink)
{
	struct nfs42_client *cl = e2e_client();
	const char *target = "../some where/target-\xc3\xa9";
	char *l = e2e_uniq("sym"), *f = e2e_uniq("plain"), buf[512];
	struct nfs42_create_args a = { .type = NF4LNK };
	struct nfs42_fh root = e2e_fh(cl, ""), lfh, ffh;
	struct nfs42_compound *c;
	struct nfs42_attrs at;
	struct stat st;
	ssize_t n;
	char *bp;
	int i;

	a.name = l;
	a.linkdata = target;
	ck_nfs_ok(cl, do_create(cl, &root, &a, &lfh, NULL));
	st = e2e_bstat(l);
	ck_assert(S_ISLNK(st.st_mode));
	bp = e2e_backing(l);
	n = readlink(bp, buf, sizeof(buf) - 1);
	ck_assert_int_eq(n, (ssize_t)strlen(target));
	buf[n] = '\0';
	ck_assert_str_eq(buf, target);
	free(bp);
	/* READLINK on the handle CREATE returned */
	c = e2e_cpd(cl, &lfh);
	i = nfs42_op_readlink(c);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	ck_assert_uint_eq(nfs42_res(c, i)->u.readlink.len, strlen(target));
	ck_assert_mem_eq(nfs42_res(c, i)->u.readlink.link, target,
			 strlen(target));
	nfs42_compound_free(c);
	at = e2e_getattr(cl, &lfh, NULL);
	ck_assert_uint_eq(at.type, NF4LNK);
	ck_assert_uint_eq(at.size, strlen(target));
	ck_assert_uint_eq(at.fileid, st.st_ino);
	/* a symlink made in the backing store reads the same */
	bp = e2e_backing(f);
	ck_assert_int_eq(symlink("/abs/path", bp), 0);
	free(bp);
	ck_nfs_ok(cl, nfs42_readlink(cl, e2e_path(f), buf, sizeof(buf)));
	ck_assert_str_eq(buf, "/abs/path");
	/* READLINK on a non-symlink (RFC 8881 18.24.3: NFS4ERR_WRONG_TYPE
	 * for 4.1; INVAL in 4.0) */
	free(f);
	f = e2e_uniq("notlink");
	e2e_put_backing(f, "x", 1);
	ffh = e2e_fh(cl, f);
	c = e2e_cpd(cl, &ffh);
	nfs42_op_readlink(c);
	ck_nfs_status2(e2e_cpd_run(c), NFS4ERR_WRONG_TYPE, NFS4ERR_INVAL);
	/* the same name again: EXIST */
	ck_nfs_status(do_create(cl, &root, &a, NULL, NULL), NFS4ERR_EXIST);
	free(l);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

/* --------------------------------------------------------------- LINK */

START_TEST(hardlink)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("hl"), *g = e2e_uniq("hl2"), *d = e2e_uniq("hld");
	struct nfs42_fh root = e2e_fh(cl, ""), ffh, dfh;
	struct nfs42_attrs at;
	struct stat sf, sg;

	e2e_put_backing(f, "linked data", 11);
	e2e_bmkdir(d, 0755);
	ffh = e2e_fh(cl, f);
	dfh = e2e_fh(cl, d);
	at = e2e_getattr(cl, &ffh, NULL);
	ck_assert_uint_eq(at.numlinks, 1);
	ck_nfs_ok(cl, do_link(cl, &ffh, &root, g));
	sf = e2e_bstat(f);
	sg = e2e_bstat(g);
	ck_assert_uint_eq(sf.st_ino, sg.st_ino);
	ck_assert_uint_eq(sf.st_nlink, 2);
	at = e2e_getattr(cl, &ffh, NULL);
	ck_assert_uint_eq(at.numlinks, 2);
	at = e2e_stat(cl, g, NULL);
	ck_assert_uint_eq(at.fileid, sf.st_ino);
	ck_assert_uint_eq(at.numlinks, 2);
	/* into another directory */
	ck_nfs_ok(cl, do_link(cl, &ffh, &dfh, "third"));
	{
		char *t = e2e_fmt("%s/third", d);

		ck_assert_uint_eq(e2e_bstat(t).st_ino, sf.st_ino);
		ck_assert_uint_eq(e2e_bstat(f).st_nlink, 3);
		free(t);
	}
	ck_assert_uint_eq(e2e_getattr(cl, &ffh, NULL).numlinks, 3);
	/* existing name: EXIST */
	ck_nfs_status(do_link(cl, &ffh, &root, g), NFS4ERR_EXIST);
	/* RFC 8881 18.9.3: a directory as the saved object: ISDIR */
	ck_nfs_status(do_link(cl, &dfh, &root, "dirlink"), NFS4ERR_ISDIR);
	ck_assert(!e2e_bexists("dirlink"));
	/* the current filehandle must be a directory: NOTDIR */
	ck_nfs_status(do_link(cl, &ffh, &ffh, "x"), NFS4ERR_NOTDIR);
	/* unlink one name: the count goes down */
	ck_nfs_ok(cl, do_remove(cl, &root, g, NULL));
	ck_assert(!e2e_bexists(g));
	ck_assert_uint_eq(e2e_getattr(cl, &ffh, NULL).numlinks, 2);
	free(f);
	free(g);
	free(d);
	nfs42_client_free(cl);
}
END_TEST

/* ------------------------------------------------------------- REMOVE */

START_TEST(unlink_file)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("rm");
	struct nfs42_fh root = e2e_fh(cl, ""), ffh;
	struct nfs42_cinfo ci;
	struct nfs42_attrs at;
	uint64_t before;

	e2e_put_backing(f, "bye", 3);
	ffh = e2e_fh(cl, f);
	before = e2e_change(cl, &root);
	ck_nfs_ok(cl, do_remove(cl, &root, f, &ci));
	ck_assert(!e2e_bexists(f));
	ck_assert(ci.atomic);
	ck_assert_uint_ge(ci.before, before);
	ck_assert_uint_ne(ci.after, ci.before);
	ck_nfs_status(do_remove(cl, &root, f, NULL), NFS4ERR_NOENT);
	ck_nfs_status(e2e_fh_rc(cl, f, &ffh), NFS4ERR_NOENT);
	/* REMOVE with a file as the current filehandle: NOTDIR */
	free(f);
	f = e2e_uniq("rm2");
	e2e_put_backing(f, "x", 1);
	ffh = e2e_fh(cl, f);
	ck_nfs_status(do_remove(cl, &ffh, "x", NULL), NFS4ERR_NOTDIR);
	ck_nfs_status(do_remove(cl, &root, "", NULL), NFS4ERR_INVAL);
	at = e2e_getattr(cl, &ffh, NULL);
	ck_assert_uint_eq(at.size, 1);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

/* ------------------------------------------------------------- RENAME */

START_TEST(rename_matrix)
{
	struct nfs42_client *cl = e2e_client();
	char *d1 = e2e_uniq("rn1"), *d2 = e2e_uniq("rn2"), *p, *q;
	struct nfs42_fh root = e2e_fh(cl, ""), h1, h2;
	struct stat s, t;
	char buf[16];

	e2e_bmkdir(d1, 0755);
	e2e_bmkdir(d2, 0755);
	h1 = e2e_fh(cl, d1);
	h2 = e2e_fh(cl, d2);

	/* file over an existing file: the target is replaced */
	p = e2e_fmt("%s/src", d1);
	q = e2e_fmt("%s/dst", d1);
	e2e_put_backing(p, "SOURCE", 6);
	e2e_put_backing(q, "target!!", 8);
	s = e2e_bstat(p);
	ck_nfs_ok(cl, do_rename(cl, &h1, "src", &h1, "dst"));
	ck_assert(!e2e_bexists(p));
	t = e2e_bstat(q);
	ck_assert_uint_eq(t.st_ino, s.st_ino);
	ck_assert_uint_eq(t.st_size, 6);
	e2e_bpread(q, buf, 6, 0);
	ck_assert_mem_eq(buf, "SOURCE", 6);
	ck_assert_uint_eq(e2e_stat(cl, q, NULL).fileid, s.st_ino);
	free(p);
	free(q);

	/* across directories */
	p = e2e_fmt("%s/dst", d1);
	q = e2e_fmt("%s/moved", d2);
	ck_nfs_ok(cl, do_rename(cl, &h1, "dst", &h2, "moved"));
	ck_assert(!e2e_bexists(p));
	ck_assert_uint_eq(e2e_bstat(q).st_ino, s.st_ino);
	ck_assert_uint_eq(e2e_stat(cl, q, NULL).fileid, s.st_ino);
	ck_nfs_status(e2e_fh_rc(cl, p, &(struct nfs42_fh){ 0 }), NFS4ERR_NOENT);
	free(p);
	free(q);

	/* directory onto an empty directory */
	p = e2e_fmt("%s/dsrc", d1);
	q = e2e_fmt("%s/dempty", d2);
	e2e_bmkdir(p, 0755);
	e2e_bmkdir(q, 0755);
	{
		char *inner = e2e_fmt("%s/dsrc/inner", d1);

		e2e_put_backing(inner, "i", 1);
		free(inner);
	}
	s = e2e_bstat(p);
	ck_nfs_ok(cl, do_rename(cl, &h1, "dsrc", &h2, "dempty"));
	ck_assert(!e2e_bexists(p));
	ck_assert_uint_eq(e2e_bstat(q).st_ino, s.st_ino);
	{
		char *inner = e2e_fmt("%s/dempty/inner", d2);

		ck_assert(e2e_bexists(inner));
		ck_assert_uint_eq(e2e_stat(cl, inner, NULL).size, 1);
		free(inner);
	}
	free(p);
	free(q);

	/*
	 * Errors.  RFC 8881 18.26.3 says an incompatible or non-empty target
	 * is NFS4ERR_EXIST; servers commonly answer the POSIX-flavoured
	 * NOTEMPTY / ISDIR / NOTDIR.  Either way nothing may change.
	 */
	p = e2e_fmt("%s/dfull", d1);
	e2e_bmkdir(p, 0755);
	free(p);
	p = e2e_fmt("%s/dfull/x", d1);
	e2e_put_backing(p, "x", 1);
	free(p);
	p = e2e_fmt("%s/dother", d1);
	e2e_bmkdir(p, 0755);
	free(p);
	p = e2e_fmt("%s/afile", d1);
	e2e_put_backing(p, "file", 4);
	free(p);

	/* dir onto a non-empty dir */
	ck_nfs_status2(do_rename(cl, &h1, "dother", &h1, "dfull"),
		       NFS4ERR_NOTEMPTY, NFS4ERR_EXIST);
	p = e2e_fmt("%s/dfull/x", d1);
	ck_assert(e2e_bexists(p));
	free(p);
	p = e2e_fmt("%s/dother", d1);
	ck_assert(S_ISDIR(e2e_bstat(p).st_mode));
	free(p);
	/* file onto a directory */
	ck_nfs_status2(do_rename(cl, &h1, "afile", &h1, "dother"),
		       NFS4ERR_ISDIR, NFS4ERR_EXIST);
	p = e2e_fmt("%s/afile", d1);
	ck_assert(S_ISREG(e2e_bstat(p).st_mode));
	free(p);
	/* dir onto a file */
	ck_nfs_status2(do_rename(cl, &h1, "dother", &h1, "afile"),
		       NFS4ERR_NOTDIR, NFS4ERR_EXIST);
	p = e2e_fmt("%s/afile", d1);
	ck_assert(S_ISREG(e2e_bstat(p).st_mode));
	free(p);
	/* missing source */
	ck_nfs_status(do_rename(cl, &h1, "no-such", &h1, "whatever"),
		      NFS4ERR_NOENT);
	p = e2e_fmt("%s/whatever", d1);
	ck_assert(!e2e_bexists(p));
	free(p);
	/* a directory into itself */
	ck_nfs_status2(do_rename(cl, &root, d1, &h1, "self"), NFS4ERR_INVAL,
		       NFS4ERR_EXIST);
	ck_assert(e2e_bexists(d1));
	/* rename onto itself (same name): success, nothing changes
	 * (RFC 8881 18.26.3) */
	ck_nfs_ok(cl, do_rename(cl, &h1, "afile", &h1, "afile"));
	p = e2e_fmt("%s/afile", d1);
	ck_assert_uint_eq(e2e_bstat(p).st_size, 4);
	free(p);
	free(d1);
	free(d2);
	nfs42_client_free(cl);
}
END_TEST

/* ----------------------------------------------------- special files */

static void check_special(struct nfs42_client *cl, const struct nfs42_fh *root,
			  uint32_t type, mode_t ifmt, uint32_t maj,
			  uint32_t min)
{
	char *n = e2e_uniq("sp");
	struct nfs42_create_args a = { .type = type,
				       .specmajor = maj,
				       .specminor = min };
	struct nfs42_sattr sa;
	struct nfs42_bitmap bm = nfs42_bm_make(
		FATTR4_TYPE, FATTR4_MODE, FATTR4_RAWDEV, FATTR4_FILEID, -1);
	struct nfs42_attrs at;
	struct nfs42_fh fh;
	struct stat st;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0640);
	a.name = n;
	a.attrs = &sa;
	ck_nfs_ok(cl, do_create(cl, root, &a, &fh, NULL));
	st = e2e_bstat(n);
	ck_assert_msg((st.st_mode & S_IFMT) == ifmt, "%s: st_mode %o", n,
		      st.st_mode);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	if (type == NF4CHR || type == NF4BLK) {
		ck_assert_uint_eq(major(st.st_rdev), maj);
		ck_assert_uint_eq(minor(st.st_rdev), min);
	}
	at = e2e_getattr(cl, &fh, &bm);
	ck_assert_uint_eq(at.type, type);
	ck_assert_uint_eq(at.mode, 0640);
	ck_assert_uint_eq(at.fileid, st.st_ino);
	ck_assert(nfs42_bm_isset(&at.mask, FATTR4_RAWDEV));
	ck_assert_uint_eq(at.rawdev.major, major(st.st_rdev));
	ck_assert_uint_eq(at.rawdev.minor, minor(st.st_rdev));
	/* lookup gives the same type */
	ck_assert_uint_eq(e2e_stat(cl, n, &bm).type, type);
	/* and it goes away */
	ck_nfs_ok(cl, do_remove(cl, root, n, NULL));
	ck_assert(!e2e_bexists(n));
	free(n);
}

START_TEST(create_special_files)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_create_args a = { .type = NF4REG, .name = "regular" };

	check_special(cl, &root, NF4FIFO, S_IFIFO, 0, 0);
	check_special(cl, &root, NF4SOCK, S_IFSOCK, 0, 0);
	check_special(cl, &root, NF4CHR, S_IFCHR, 1, 3);
	check_special(cl, &root, NF4BLK, S_IFBLK, 7, 200);
	/* RFC 8881 18.4.3: CREATE of a regular file is BADTYPE */
	ck_nfs_status(do_create(cl, &root, &a, NULL, NULL), NFS4ERR_BADTYPE);
	ck_assert(!e2e_bexists("regular"));
	nfs42_client_free(cl);
}
END_TEST

/* ---- From the code review (was e2e_review_undo) ---- */

/*
 * From the code review: undoing a failed create (issue #6 item 6): when the
 * follow-up of a create fails the server removes what it made -- but only
 * if the name still names that object.  Whatever took the name meanwhile
 * (a local rename over it) must survive.  The follow-ups that fail here:
 * for CREATE of a directory the give-away to another owner (refused as in
 * mkdir_cannot_give_away, e2e_fsal_perms); for OPEN/create, where Ganesha refuses a give-away
 * before the FSAL sees it, a size beyond 2^63 (NFS4ERR_FBIG from the size
 * change that follows the create).
 *
 * The harness runs the export with Test_Hooks Metadata_Latency_Ms (updates
 * only), which sleeps before the create and again before the owner change
 * of the new object: the test waits for the new name to appear in the
 * backing directory and renames a decoy over it inside that second sleep,
 * so the interleaving is the same on every run.  Needs root.
 */

/* Test_Hooks Metadata_Latency_Ms of e2e_fsal_namespace_undo (fsal.cmake) */
#define UNDO_LATENCY_MS 1000

/* As uid 1000, make name in dir with attributes the FSAL fails to apply
 * after the create: CREATE of a directory given to uid 0 when is_dir,
 * else OPEN/create with a size of 2^64 - 1.  Returns the status.
 */
static int failing_create(const struct nfs42_fh *dir, const char *name,
			  bool is_dir)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_sattr sa;
	int rc;

	nfs42_set_cred(cl, 1000, 1000, 0, NULL);
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, is_dir ? 0755 : 0644);
	if (is_dir)
		nfs42_sattr_owner(&sa, "0");
	else
		nfs42_sattr_size(&sa, UINT64_MAX);
	if (is_dir) {
		struct nfs42_create_args ca = { .type = NF4DIR,
						.name = name,
						.attrs = &sa };
		struct nfs42_compound *c = e2e_cpd(cl, dir);

		nfs42_op_create(c, &ca);
		rc = e2e_cpd_run(c);
	} else {
		struct nfs42_file of;

		rc = e2e_open_guarded(cl, dir, name, &sa, &of);
	}
	nfs42_client_free(cl);
	return rc;
}

/*
 * Start failing_create() in a child process, wait until the new name shows
 * up in the backing directory, rename a decoy over it, and check that the
 * create failed with want and the decoy still has the name.
 */
static void check_decoy_survives(const char *d, bool is_dir, int want)
{
	struct nfs42_client *root = e2e_client();
	struct nfs42_fh dfh = e2e_world_dir(root, d);
	char *name_rel = e2e_fmt("%s/new", d);
	char *decoy_rel = e2e_fmt("%s/decoy", d);
	char *name = e2e_backing(name_rel), *decoy = e2e_backing(decoy_rel);
	struct stat made, dst;
	int pfd[2], rc = -1, i, status;
	pid_t pid;

	if (is_dir)
		e2e_bmkdir(decoy_rel, 0700);
	else
		e2e_put_backing(decoy_rel, "decoy", 5);
	dst = e2e_bstat(decoy_rel);

	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(pfd[0]);
		rc = failing_create(&dfh, "new", is_dir);
		_exit(write(pfd[1], &rc, sizeof(rc)) == sizeof(rc) ? 0 : 1);
	}
	close(pfd[1]);

	/* The object appears after one latency; the attribute change that
	 * fails waits another one.  Poll for it every millisecond, then let
	 * half of that second latency pass: the server identifies what it
	 * made right after making it (by a lookup for a directory, where a
	 * rename before that lookup would be taken for the new object).
	 */
	for (i = 0; i < 10 * UNDO_LATENCY_MS && lstat(name, &made) != 0; i++)
		usleep(1000);
	if (i == 10 * UNDO_LATENCY_MS &&
	    read(pfd[0], &rc, sizeof(rc)) == sizeof(rc))
		ck_abort_msg("%s never appeared; the create said %s", name,
			     nfs42_strerror(rc));
	usleep(UNDO_LATENCY_MS * 1000 / 2);
	ck_assert_int_eq(rename(decoy, name), 0);

	ck_assert_int_eq(read(pfd[0], &rc, sizeof(rc)), sizeof(rc));
	close(pfd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_nfs_status(rc, want);

	ck_assert_uint_ne(made.st_ino, dst.st_ino);
	ck_assert_msg(e2e_bexists(name_rel),
		      "the failed create removed the decoy renamed over %s",
		      name_rel);
	ck_assert_uint_eq(e2e_bstat(name_rel).st_ino, dst.st_ino);
	free(name);
	free(decoy);
	nfs42_client_free(root);
}

/* Without interference, the failed create leaves nothing behind. */
static void check_removed(const char *d, bool is_dir, int want)
{
	struct nfs42_client *root = e2e_client();
	struct nfs42_fh dfh = e2e_world_dir(root, d);

	ck_nfs_status(failing_create(&dfh, "new", is_dir), want);
	ck_assert_msg(!e2e_bexists(e2e_fmt("%s/new", d)),
		      "the failed create left %s/new behind", d);
	nfs42_client_free(root);
}

START_TEST(failed_open_create_is_removed)
{
	check_removed(e2e_uniq("undo-open-alone"), false, NFS4ERR_FBIG);
}
END_TEST

START_TEST(failed_mkdir_is_removed)
{
	check_removed(e2e_uniq("undo-mkdir-alone"), true, NFS4ERR_PERM);
}
END_TEST

START_TEST(failed_open_create_spares_new_owner_of_name)
{
	check_decoy_survives(e2e_uniq("undo-open"), false, NFS4ERR_FBIG);
}
END_TEST

START_TEST(failed_mkdir_spares_new_owner_of_name)
{
	check_decoy_survives(e2e_uniq("undo-mkdir"), true, NFS4ERR_PERM);
}
END_TEST

/*
 * e2e_fsal_namespace [undo]: without an argument the namespace cases; with
 * "undo" the undo cases above, against a server with an update latency
 * (fsal.cmake: e2e_fsal_namespace_undo), as root.
 */
int main(int argc, char **argv)
{
	Suite *s = suite_create("e2e_fsal_namespace");
	TCase *tc = tcase_create("namespace");

	tcase_set_timeout(tc, 60);
	if (argc > 1 && !strcmp(argv[1], "undo")) {
		e2e_require_root("e2e_fsal_namespace undo");
		tcase_add_test(tc, failed_open_create_is_removed);
		tcase_add_test(tc, failed_mkdir_is_removed);
		tcase_add_test(tc, failed_open_create_spares_new_owner_of_name);
		tcase_add_test(tc, failed_mkdir_spares_new_owner_of_name);
		suite_add_tcase(s, tc);
		return e2e_run(s);
	}
	tcase_add_test(tc, lookup_and_lookupp);
	tcase_add_test(tc, readdir_10k_cookies);
	tcase_add_test(tc, readdir_cookie_verifier);
	tcase_add_test(tc, mkdir_exist_rmdir_notempty);
	tcase_add_test(tc, symlink_readlink);
	tcase_add_test(tc, hardlink);
	tcase_add_test(tc, unlink_file);
	tcase_add_test(tc, rename_matrix);
	tcase_add_test(tc, create_special_files);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
