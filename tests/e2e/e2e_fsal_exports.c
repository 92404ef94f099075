/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL end-to-end, several exports (issue #3).  Besides the harness's
 * /sparse export, fsal.cmake's fixture makes E2E_EXPORTS_DIR/top and its
 * subdirectory top/sub and adds (harness --conf-extra, %include):
 *   Export_Id 2, Path .../top,     Pseudo /second, UseCookieVerifier = true
 *   Export_Id 3, Path .../top/sub, Pseudo /subexp  (inside export 2's tree)
 * Checked: each export shows exactly its backing directory, the nested
 * export and its parent reach the same objects, LOOKUPP stops at an
 * export's root, RENAME/LINK across exports is XDEV (RFC 8881 18.26.3,
 * 18.9.3), and READDIR cookie verifiers where they are switched on.
 */
#include "e2e_fsal_util.h"

#ifndef E2E_EXPORTS_DIR
#error "E2E_EXPORTS_DIR must name the fixture directory"
#endif

static char *bpath(const char *rel)
{
	return e2e_fmt("%s/%s", E2E_EXPORTS_DIR, rel);
}

static struct nfs42_fh fh_of(struct nfs42_client *cl, const char *path)
{
	struct nfs42_fh fh;
	int rc = nfs42_lookup_path(cl, path, &fh, NULL);

	ck_assert_msg(rc == 0, "lookup %s: %s", path, nfs42_strerror(rc));
	return fh;
}

START_TEST(second_export_shows_its_directory)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, -1);
	char *name = e2e_uniq("in-second"), *p = e2e_fmt("/second/%s", name);
	char *bp = bpath(e2e_fmt("top/%s", name)), buf[8];
	struct e2e_names s = { 0 };
	struct nfs42_attrs a;
	int fd;

	ck_nfs_ok(cl, nfs42_write_file(cl, p, "second", 6, 0644));
	fd = open(bp, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, 8), 6);
	ck_assert_mem_eq(buf, "second", 6);
	close(fd);
	/* not in the first export */
	ck_assert(!e2e_bexists(name));
	ck_nfs_status(
		nfs42_stat(cl, e2e_fmt("%s/%s", e2e_env("NFS42_EXPORT"), name),
			   &a),
		NFS4ERR_NOENT);
	/* the listing of /second is the backing directory */
	ck_nfs_ok(cl, nfs42_readdir_path(cl, "/second", &bm, e2e_names_collect,
					 &s));
	ck_assert(e2e_names_has(&s, name));
	ck_assert(e2e_names_has(&s, "sub"));
	{
		DIR *d = opendir(E2E_EXPORTS_DIR "/top");
		struct dirent *de;
		int n = 0;

		ck_assert_ptr_nonnull(d);
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") &&
			    strcmp(de->d_name, "..")) {
				ck_assert_msg(e2e_names_has(&s, de->d_name),
					      "%s missing in /second",
					      de->d_name);
				n++;
			}
		closedir(d);
		ck_assert_int_eq(n, s.n);
	}
	/* the export root's fileid is the backing directory's inode */
	{
		struct stat st;

		ck_assert_int_eq(stat(E2E_EXPORTS_DIR "/top", &st), 0);
		ck_nfs_ok(cl, nfs42_stat(cl, "/second", &a));
		ck_assert_uint_eq(a.fileid, st.st_ino);
	}
	free(p);
	free(name);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(nested_export_same_objects)
{
	struct nfs42_client *cl = e2e_client();
	char *name = e2e_uniq("shared"), *p1 = e2e_fmt("/subexp/%s", name);
	char *p2 = e2e_fmt("/second/sub/%s", name);
	char *bp = bpath(e2e_fmt("top/sub/%s", name));
	struct nfs42_attrs a1, a2;
	struct stat st;
	void *buf;
	size_t len;

	ck_nfs_ok(cl, nfs42_write_file(cl, p1, "via subexp", 10, 0644));
	ck_assert_int_eq(stat(bp, &st), 0);
	ck_assert_uint_eq(st.st_size, 10);
	ck_nfs_ok(cl, nfs42_stat(cl, p1, &a1));
	ck_nfs_ok(cl, nfs42_stat(cl, p2, &a2));
	ck_assert_uint_eq(a1.fileid, st.st_ino);
	ck_assert_uint_eq(a2.fileid, st.st_ino);
	/* written through the parent export, read through the nested one */
	ck_nfs_ok(cl, nfs42_write_file(cl, p2, "via second!", 11, 0644));
	ck_nfs_ok(cl, nfs42_read_file(cl, p1, &buf, &len));
	ck_assert_uint_eq(len, 11);
	ck_assert_mem_eq(buf, "via second!", 11);
	free(buf);
	/* the nested export's root is top/sub */
	ck_assert_int_eq(stat(E2E_EXPORTS_DIR "/top/sub", &st), 0);
	ck_nfs_ok(cl, nfs42_stat(cl, "/subexp", &a1));
	ck_assert_uint_eq(a1.fileid, st.st_ino);
	free(name);
	free(p1);
	free(p2);
	free(bp);
	nfs42_client_free(cl);
}
END_TEST

/* LOOKUPP from the absolute path: the fileid of the object reached. */
static uint64_t parent_fileid(struct nfs42_client *cl, const char *path,
			      const struct nfs42_bitmap *bm)
{
	struct nfs42_fh fh = fh_of(cl, path);
	struct nfs42_compound *c = e2e_cpd(cl, &fh);
	uint64_t id;
	int i, rc;

	nfs42_op_lookupp(c);
	i = nfs42_op_getattr(c, bm);
	rc = nfs42_compound_run(c);
	ck_assert_msg(rc == 0, "LOOKUPP from %s: %s (%s)", path,
		      nfs42_strerror(rc), nfs42_client_error(cl));
	id = nfs42_res(c, i)->u.getattr->fileid;
	nfs42_compound_free(c);
	return id;
}

START_TEST(lookupp_stops_at_export_root)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, FATTR4_FSID, -1);
	struct nfs42_compound *c;
	uint64_t pseudo_root, id;
	struct stat top;
	int i;

	c = e2e_cpd(cl, NULL);
	i = nfs42_op_getattr(c, &bm);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	pseudo_root = nfs42_res(c, i)->u.getattr->fileid;
	nfs42_compound_free(c);
	ck_assert_int_eq(stat(E2E_EXPORTS_DIR "/top", &top), 0);
	/* from /subexp: the pseudo root, not top/ (the backing parent) */
	id = parent_fileid(cl, "/subexp", &bm);
	ck_assert_uint_ne(id, top.st_ino);
	ck_assert_uint_eq(id, pseudo_root);
	/* from /second/sub: top (inside the export) */
	ck_assert_uint_eq(parent_fileid(cl, "/second/sub", &bm), top.st_ino);
	/* from the first export's root: the pseudo root too */
	ck_assert_uint_eq(parent_fileid(cl, e2e_env("NFS42_EXPORT"), &bm),
			  pseudo_root);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(rename_and_link_across_exports_xdev)
{
	struct nfs42_client *cl = e2e_client();
	char *name = e2e_uniq("xdev"), *p = e2e_fmt("/second/%s", name);
	struct nfs42_fh first, second, file;
	struct nfs42_compound *c;

	ck_nfs_ok(cl, nfs42_write_file(cl, p, "x", 1, 0644));
	first = fh_of(cl, e2e_env("NFS42_EXPORT"));
	second = fh_of(cl, "/second");
	file = fh_of(cl, p);
	/* RENAME: SAVED_FH in /second, CURRENT_FH in the first export */
	c = e2e_cpd2(cl, &second, &first);
	nfs42_op_rename(c, name, name);
	ck_nfs_status(e2e_cpd_run(c), NFS4ERR_XDEV);
	ck_assert(!e2e_bexists(name));
	/* LINK likewise */
	c = e2e_cpd2(cl, &file, &first);
	nfs42_op_link(c, name);
	ck_nfs_status(e2e_cpd_run(c), NFS4ERR_XDEV);
	ck_assert(!e2e_bexists(name));
	/* even into the nested export, which is the same backing fs */
	{
		struct nfs42_fh sub = fh_of(cl, "/subexp");

		c = e2e_cpd2(cl, &second, &sub);
		nfs42_op_rename(c, name, name);
		ck_nfs_status(e2e_cpd_run(c), NFS4ERR_XDEV);
	}
	free(p);
	free(name);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(cookie_verifier_when_enabled)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, -1);
	char *d = e2e_uniq("verf"), *p = e2e_fmt("/second/%s", d), *bd;
	uint8_t verf[8], bad[8];
	struct nfs42_compound *c;
	const struct nfs42_res *r;
	uint64_t cookie;
	struct nfs42_fh dfh;
	int i, k;

	ck_nfs_ok(cl, nfs42_mkdir(cl, p, 0755));
	bd = bpath(e2e_fmt("top/%s", d));
	for (i = 0; i < 100; i++) {
		char *f = e2e_fmt("%s/a-rather-long-entry-name-%03d", bd, i);
		int fd = open(f, O_CREAT | O_WRONLY, 0644);

		ck_assert_int_ge(fd, 0);
		close(fd);
		free(f);
	}
	dfh = fh_of(cl, p);
	c = e2e_cpd(cl, &dfh);
	k = nfs42_op_readdir(c, 0, NULL, 1024, 1024, &bm);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	r = nfs42_res(c, k);
	ck_assert_uint_gt(r->u.readdir.n, 0);
	ck_assert(!r->u.readdir.eof);
	memcpy(verf, r->u.readdir.cookieverf, 8);
	cookie = r->u.readdir.entries[r->u.readdir.n - 1].cookie;
	nfs42_compound_free(c);
	ck_assert_msg(!e2e_all_zero(verf, 8),
		      "UseCookieVerifier = true, yet the verifier is zero");
	/* the real verifier resumes */
	c = e2e_cpd(cl, &dfh);
	nfs42_op_readdir(c, cookie, verf, 1024, 1024, &bm);
	ck_nfs_ok(cl, e2e_cpd_run(c));
	/* RFC 8881 18.23.3: a verifier not issued: NOT_SAME (Ganesha:
	 * BAD_COOKIE) */
	for (i = 0; i < 8; i++)
		bad[i] = verf[i] ^ 0xa5;
	c = e2e_cpd(cl, &dfh);
	nfs42_op_readdir(c, cookie, bad, 1024, 1024, &bm);
	ck_nfs_status2(e2e_cpd_run(c), NFS4ERR_NOT_SAME, NFS4ERR_BAD_COOKIE);
	free(bd);
	free(p);
	free(d);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_fsal_exports");
	TCase *tc = tcase_create("exports");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, second_export_shows_its_directory);
	tcase_add_test(tc, nested_export_same_objects);
	tcase_add_test(tc, lookupp_stops_at_export_root);
	tcase_add_test(tc, rename_and_link_across_exports_xdev);
	tcase_add_test(tc, cookie_verifier_when_enabled);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
