/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Parity with FSAL_VFS, RENAME: every object type moved between
 * directories, non-directory saved or current filehandles, missing,
 * empty and dot names, directory/file over directory/file (empty or
 * not), and the no-op renames (to itself, onto its own hard link) that
 * must leave both directories' change info untouched.  Oracle: RFC 8881
 * 18.26 and the backing directory.
 */
#include "e2e_parity_util.h"

struct rn_res {
	int status;
	struct nfs42_cinfo src, dst;
};

/* PUTFH from, SAVEFH, PUTFH to, RENAME old new. */
static struct rn_res rn(struct nfs42_client *cl, const struct nfs42_fh *from,
			const char *old, const struct nfs42_fh *to,
			const char *new)
{
	struct nfs42_compound *c = e2e_cpd2(cl, from, to);
	struct rn_res r = { 0 };
	int i;

	i = nfs42_op_rename(c, old, new);
	r.status = nfs42_compound_run(c);
	if (!r.status) {
		r.src = nfs42_res(c, i)->u.rename.source;
		r.dst = nfs42_res(c, i)->u.rename.target;
	}
	nfs42_compound_free(c);
	return r;
}

/* A fresh base directory with subdirectories dir1 and dir2. */
struct rn_base {
	const char *rel;
	struct nfs42_fh base, d1, d2;
};

static void rn_base(struct nfs42_client *cl, struct rn_base *b)
{
	struct nfs42_fh root = e2e_fh(cl, "");

	b->rel = e2e_uniq("rnm");
	ck_nfs_status(par_create(cl, &root, NF4DIR, b->rel, &b->base), NFS4_OK);
	ck_nfs_status(par_create(cl, &b->base, NF4DIR, "dir1", &b->d1),
		      NFS4_OK);
	ck_nfs_status(par_create(cl, &b->base, NF4DIR, "dir2", &b->d2),
		      NFS4_OK);
}

static void make_file(struct nfs42_client *cl, const struct nfs42_fh *dir,
		      const char *name)
{
	struct nfs42_file f;

	ck_nfs_status(par_create_file(cl, dir, name, OPEN4_SHARE_ACCESS_BOTH,
				      &f),
		      NFS4_OK);
	ck_nfs_status(e2e_close(&f), NFS4_OK);
}

/* RNM1*: dir1/foo -> dir2/bar for every type. */
START_TEST(rename_every_type)
{
	struct nfs42_client *cl = e2e_client();

	for (size_t i = 0; i < sizeof(par_types) / sizeof(par_types[0]); i++) {
		uint32_t ty = par_types[i];
		struct rn_base b;
		struct rn_res r;
		struct stat st;

		rn_base(cl, &b);
		if (ty == NF4REG)
			make_file(cl, &b.d1, "foo");
		else
			ck_nfs_status(par_create(cl, &b.d1, ty, "foo", NULL),
				      NFS4_OK);
		r = rn(cl, &b.d1, "foo", &b.d2, "bar");
		ck_assert_msg(r.status == 0, "RENAME %s: %s", par_type_name(ty),
			      nfs42_strerror(r.status));
		ck_assert(!e2e_bexists(e2e_fmt("%s/dir1/foo", b.rel)));
		st = e2e_bstat(e2e_fmt("%s/dir2/bar", b.rel));
		ck_assert_uint_eq(
			e2e_stat(cl, e2e_fmt("%s/dir2/bar", b.rel), NULL).fileid,
			st.st_ino);
		ck_assert_uint_ne(r.src.before, r.src.after);
		ck_assert_uint_ne(r.dst.before, r.dst.after);
	}
	nfs42_client_free(cl);
}
END_TEST

/* RNM2* / RNM3*: a non-directory saved fh (source) or current fh
 * (target) is NOTDIR (SYMLINK also allowed for a symlink). */
START_TEST(rename_non_dir_fh)
{
	struct nfs42_client *cl = e2e_client();
	struct par_tree t;
	struct nfs42_fh root = e2e_fh(cl, "");
	const char *name = e2e_uniq("rn-nd");

	par_make_tree(cl, &t);
	ck_nfs_status(par_create(cl, &root, NF4DIR, name, NULL), NFS4_OK);
	for (size_t i = 0; i < sizeof(par_types) / sizeof(par_types[0]); i++) {
		uint32_t ty = par_types[i];
		struct rn_res r;
		bool lnk = ty == NF4LNK;

		if (ty == NF4DIR)
			continue;
		r = rn(cl, &t.fh[ty], name, &root, name);
		ck_assert_msg(r.status == NFS4ERR_NOTDIR ||
				      (lnk && r.status == NFS4ERR_SYMLINK),
			      "RENAME with %s as saved fh: %s", t.name[ty],
			      nfs42_strerror(r.status));
		r = rn(cl, &root, name, &t.fh[ty], name);
		ck_assert_msg(r.status == NFS4ERR_NOTDIR ||
				      (lnk && r.status == NFS4ERR_SYMLINK),
			      "RENAME with %s as current fh: %s", t.name[ty],
			      nfs42_strerror(r.status));
		ck_assert(e2e_bexists(name));
	}
	nfs42_client_free(cl);
}
END_TEST

/* RNM4-RNM7, RNM10, RNM11. */
START_TEST(rename_bad_names)
{
	struct nfs42_client *cl = e2e_client();
	struct rn_base b;
	struct nfs42_compound *c;
	struct rn_res r;

	rn_base(cl, &b);
	/* no saved fh */
	c = e2e_cpd(cl, &b.base);
	nfs42_op_rename(c, "dir1", "dir1");
	ck_nfs_status(par_run(c), NFS4ERR_NOFILEHANDLE);
	r = rn(cl, &b.base, "foo", &b.base, "bar");
	ck_nfs_status(r.status, NFS4ERR_NOENT);
	r = rn(cl, &b.base, "", &b.base, "bar");
	ck_nfs_status(r.status, NFS4ERR_INVAL);
	r = rn(cl, &b.base, "dir1", &b.base, "");
	ck_nfs_status(r.status, NFS4ERR_INVAL);
	ck_assert(e2e_bexists(e2e_fmt("%s/dir1", b.rel)));
	/* RNM10: from "." / "..": BADNAME (NOENT only warned) */
	r = rn(cl, &b.base, ".", &b.base, "dir1");
	ck_nfs_status2(r.status, NFS4ERR_BADNAME, NFS4ERR_NOENT);
	if (r.status != NFS4ERR_BADNAME)
		par_note("RENAME from '.': %s", nfs42_strerror(r.status));
	r = rn(cl, &b.base, "..", &b.base, "dir1");
	ck_nfs_status2(r.status, NFS4ERR_BADNAME, NFS4ERR_NOENT);
	if (r.status != NFS4ERR_BADNAME)
		par_note("RENAME from '..': %s", nfs42_strerror(r.status));
	/* RNM11: into "." / "..": BADNAME (OK only warned) */
	r = rn(cl, &b.base, "dir1", &b.base, ".");
	ck_nfs_status2(r.status, NFS4ERR_BADNAME, NFS4_OK);
	if (r.status != NFS4ERR_BADNAME)
		par_note("RENAME into '.': %s", nfs42_strerror(r.status));
	ck_assert(e2e_bexists(e2e_fmt("%s/dir1", b.rel)) || r.status == 0);
	r = rn(cl, &b.base, "dir2", &b.base, "..");
	ck_nfs_status2(r.status, NFS4ERR_BADNAME, NFS4_OK);
	if (r.status != NFS4ERR_BADNAME)
		par_note("RENAME into '..': %s", nfs42_strerror(r.status));
	nfs42_client_free(cl);
}
END_TEST

/* RNM12-RNM17: over existing objects. */
START_TEST(rename_over_existing)
{
	struct nfs42_client *cl = e2e_client();
	struct rn_base b;
	struct nfs42_fh full;
	struct rn_res r;

	rn_base(cl, &b);
	make_file(cl, &b.base, "file");
	make_file(cl, &b.base, "file2");
	ck_nfs_status(par_create(cl, &b.base, NF4DIR, "full", &full), NFS4_OK);
	make_file(cl, &full, "foo");
	/* RNM12 dir -> file: EXIST or NOTDIR */
	r = rn(cl, &b.base, "dir1", &b.base, "file");
	ck_nfs_status2(r.status, NFS4ERR_EXIST, NFS4ERR_NOTDIR);
	ck_assert(S_ISREG(e2e_bstat(e2e_fmt("%s/file", b.rel)).st_mode));
	/* RNM14 file -> empty dir: EXIST or ISDIR */
	r = rn(cl, &b.base, "file", &b.base, "dir2");
	ck_nfs_status2(r.status, NFS4ERR_EXIST, NFS4ERR_ISDIR);
	/* RNM17 file -> non-empty dir */
	r = rn(cl, &b.base, "file", &b.base, "full");
	ck_nfs_status2(r.status, NFS4ERR_EXIST, NFS4ERR_ISDIR);
	/* RNM16 dir -> non-empty dir: EXIST or NOTEMPTY */
	r = rn(cl, &b.base, "dir1", &b.base, "full");
	ck_nfs_status2(r.status, NFS4ERR_EXIST, NFS4ERR_NOTEMPTY);
	ck_assert(e2e_bexists(e2e_fmt("%s/full/foo", b.rel)));
	/* RNM13 dir -> empty dir: OK */
	make_file(cl, &b.d1, "inside");
	r = rn(cl, &b.base, "dir1", &b.base, "dir2");
	ck_nfs_status(r.status, NFS4_OK);
	ck_assert(e2e_bexists(e2e_fmt("%s/dir2/inside", b.rel)));
	ck_assert(!e2e_bexists(e2e_fmt("%s/dir1", b.rel)));
	/* RNM15 file -> file: OK */
	r = rn(cl, &b.base, "file", &b.base, "file2");
	ck_nfs_status(r.status, NFS4_OK);
	ck_assert(!e2e_bexists(e2e_fmt("%s/file", b.rel)));
	nfs42_client_free(cl);
}
END_TEST

/* A RENAME that must succeed and leave both change infos untouched. */
static void ck_noop_rename(struct nfs42_client *cl, const struct nfs42_fh *from,
			   const char *old, const struct nfs42_fh *to,
			   const char *new, const char *what)
{
	struct rn_res r = rn(cl, from, old, to, new);

	ck_assert_msg(r.status == NFS4_OK, "%s: RENAME got %s (%d), want %s",
		      what, nfs42_strerror(r.status), r.status,
		      nfs42_strerror(NFS4_OK));
	ck_assert_msg(r.src.before == r.src.after &&
			      r.dst.before == r.dst.after,
		      "%s: cinfo %llu->%llu / %llu->%llu", what,
		      (unsigned long long)r.src.before,
		      (unsigned long long)r.src.after,
		      (unsigned long long)r.dst.before,
		      (unsigned long long)r.dst.after);
}

/* RNM18/RNM19/RNM20: renaming an object onto itself or onto a hard link
 * of itself succeeds and changes nothing: both change infos have
 * before == after. */
START_TEST(rename_noop_cinfo)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	struct rn_base b;
	const char *f = e2e_uniq("rn-self");
	struct nfs42_file of;

	/* RNM18: a directory onto itself (in the export root) */
	rn_base(cl, &b);
	ck_noop_rename(cl, &root, b.rel, &root, b.rel, "dir onto itself");
	/* RNM19: an open file onto itself */
	ck_nfs_status(par_create_file(cl, &root, f, OPEN4_SHARE_ACCESS_BOTH,
				      &of),
		      NFS4_OK);
	ck_noop_rename(cl, &root, f, &root, f, "file onto itself");
	ck_nfs_status(e2e_close(&of), NFS4_OK);
	/* RNM20: a file onto its hard link (in a subdirectory) */
	make_file(cl, &b.d1, "file");
	{
		struct nfs42_fh ffh =
			e2e_fh(cl, e2e_fmt("%s/dir1/file", b.rel));
		struct nfs42_compound *c = e2e_cpd2(cl, &ffh, &b.d1);

		nfs42_op_link(c, "link");
		ck_nfs_status(par_run(c), NFS4_OK);
	}
	ck_noop_rename(cl, &b.d1, "file", &b.d1, "link", "file onto its link");
	/* POSIX rename(2) of hard links to each other does nothing */
	ck_assert(e2e_bexists(e2e_fmt("%s/dir1/file", b.rel)));
	ck_assert(e2e_bexists(e2e_fmt("%s/dir1/link", b.rel)));
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_parity_rename");
	TCase *tc = tcase_create("rename");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, rename_every_type);
	tcase_add_test(tc, rename_non_dir_fh);
	tcase_add_test(tc, rename_bad_names);
	tcase_add_test(tc, rename_over_existing);
	tcase_add_test(tc, rename_noop_cinfo);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
