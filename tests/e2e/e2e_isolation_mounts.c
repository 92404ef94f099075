/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Export isolation, mounts and moved directories (issue #16, item 3).
 *
 * A bind mount of a directory outside the export, made inside it, is on
 * the export's own filesystem (same st_dev), so the old check let LOOKUP
 * cross it and bm/secret was served.  Lookups never cross a mount point
 * now (openat2 RESOLVE_NO_XDEV): the mount point is NFS4ERR_XDEV /
 * NFS3ERR_XDEV and READDIR leaves it out, as for another filesystem.
 *
 * A directory moved out of the export by a local process after a client
 * cached its handle kept serving lookups of its children.  Now every
 * operation on a directory's names checks the directory is still inside
 * (LOOKUP, READDIR, OPEN/CREATE, REMOVE, RENAME, LINK): FSAL_SPARSE says
 * ERR_FSAL_STALE, MDCACHE drops the directory's entry, and its handle is
 * then refused like any handle of an object outside (the confinement
 * check of a cache miss).  What a moved object can still reach, by design
 * and as knfsd with no_subtree_check: the directory's own attributes
 * until the first name operation in it, and a file whose handle a client
 * already holds (READ, WRITE, GETATTR) while its cache entry lives; after
 * a server restart neither handle works.  The test pins exactly that.
 *
 * The harness runs with Protocols = 3, 4, in a private mount namespace
 * (as root), so the mounts the tests make are seen by this test's server
 * only, and are gone with it.
 */
#include <libgen.h>
#include <sys/mount.h>

#include "e2e_fsal_util.h"
#include "nfs3_test.h"

struct place {
	char *outside; /* absolute: a directory next to the export */
	char *secret; /* outside/secret */
};

static struct place make_place(void)
{
	char *backing = e2e_keep(strdup(e2e_env("NFS42_BACKING")));
	struct place p;

	p.outside = e2e_fmt("%s/outside-%d", dirname(backing), (int)getpid());
	p.secret = e2e_fmt("%s/secret", p.outside);
	ck_assert_int_eq(mkdir(p.outside, 0755), 0);
	e2e_put_backing(e2e_fmt("../outside-%d/secret", (int)getpid()),
			"secret\n", 7);
	return p;
}

static void bind_mount(const char *from, const char *to)
{
	ck_assert_int_eq(mkdir(to, 0755), 0);
	ck_assert_msg(mount(from, to, NULL, MS_BIND, NULL) == 0,
		      "bind mount %s on %s: %s", from, to, strerror(errno));
}

static int read_fh(struct nfs42_client *cl, const struct nfs42_fh *fh,
		   char *buf, size_t size)
{
	struct nfs42_stateid anon = { 0 };
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	int i, rc;

	i = nfs42_op_read(c, &anon, 0, (uint32_t)size);
	rc = nfs42_compound_run(c);
	if (rc == 0) {
		const struct nfs42_res *r = nfs42_res(c, i);

		memcpy(buf, r->u.read.data, r->u.read.len);
		buf[r->u.read.len] = '\0';
	}
	nfs42_compound_free(c);
	return rc;
}

static int lookup_in(struct nfs42_client *cl, const struct nfs42_fh *dir,
		     const char *name)
{
	struct nfs42_compound *c = e2e_cpd(cl, dir);

	nfs42_op_lookup(c, name);
	return e2e_cpd_run(c);
}

/* ---- bind mounts -------------------------------------------------------- */

START_TEST(bind_mount_not_crossed_v4)
{
	struct place p = make_place();
	char *bm = e2e_fmt("bm-%d", (int)getpid());
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap fileid = nfs42_bm_make(FATTR4_FILEID, -1);
	struct e2e_names names = { 0 };
	struct nfs42_fh fh;
	void *buf = NULL;
	size_t len = 0;
	int rc;

	bind_mount(p.outside, e2e_backing(bm));
	rc = e2e_fh_rc(cl, bm, &fh);
	ck_assert_msg(rc == NFS4ERR_XDEV, "LOOKUP of a bind mount: %s",
		      nfs42_strerror(rc));
	rc = nfs42_read_file(cl, e2e_path(e2e_fmt("%s/secret", bm)), &buf,
			     &len);
	ck_assert_msg(rc != 0, "read through a bind mount: %.*s", (int)len,
		      (char *)buf);
	ck_nfs_ok(cl, nfs42_readdir_path(cl, e2e_path(""), &fileid,
					 e2e_names_collect, &names));
	ck_assert_msg(!e2e_names_has(&names, bm),
		      "READDIR lists the bind mount %s", bm);
	umount2(e2e_backing(bm), MNT_DETACH);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(bind_mount_not_crossed_v3)
{
	struct place p = make_place();
	char *bm = e2e_fmt("bm3-%d", (int)getpid());
	struct nfs3_fh root, fh;
	struct nfs3_conn c;
	int rc;

	bind_mount(p.outside, e2e_backing(bm));
	ck_assert_int_eq(nfs3_connect(&c), 0);
	ck_assert_int_eq(nfs3_mount(&c, e2e_env("NFS42_BACKING"), &root), 0);
	rc = nfs3_lookup(&c, &root, nfs3_str(bm), &fh);
	ck_assert_msg(rc == NFS3ERR_XDEV, "NFSv3 LOOKUP of a bind mount: %s",
		      nfs3_status_name(rc));
	nfs3_close(&c);
	umount2(e2e_backing(bm), MNT_DETACH);
}
END_TEST

START_TEST(other_filesystem_not_crossed)
{
	char *mnt = e2e_fmt("tmpfs-%d", (int)getpid());
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh;

	ck_assert_int_eq(mkdir(e2e_backing(mnt), 0755), 0);
	ck_assert_int_eq(mount("none", e2e_backing(mnt), "tmpfs", 0, NULL), 0);
	ck_assert_int_eq(e2e_fh_rc(cl, mnt, &fh), NFS4ERR_XDEV);
	umount2(e2e_backing(mnt), MNT_DETACH);
	nfs42_client_free(cl);
}
END_TEST

/* ---- a cached directory moved out ---------------------------------------- */

START_TEST(moved_out_directory)
{
	struct place p = make_place();
	char *d = e2e_fmt("d-%d", (int)getpid());
	char *moved = e2e_fmt("%s/d", p.outside);
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_SIZE, -1);
	struct e2e_names names = { 0 };
	struct nfs42_fh dfh, ffh;
	struct nfs42_attrs a;
	char buf[64];
	int rc;

	ck_assert_int_eq(mkdir(e2e_backing(d), 0755), 0);
	e2e_put_backing(e2e_fmt("%s/f", d), "inside\n", 7);
	e2e_put_backing(e2e_fmt("%s/g", d), "other\n", 6);
	dfh = e2e_fh(cl, d);
	ffh = e2e_fh(cl, e2e_fmt("%s/f", d));
	ck_nfs_ok(cl, read_fh(cl, &ffh, buf, sizeof(buf) - 1));

	/* a local process moves d out of the export */
	ck_assert_int_eq(rename(e2e_backing(d), moved), 0);

	/* still served from the cache, as documented: d's attributes, until
	 * a name operation in d finds it outside
	 */
	ck_nfs_ok(cl, nfs42_getattr_fh(cl, &dfh, &bm, &a));

	/* nothing below d by name.  FSAL_SPARSE says STALE; MDCACHE answers
	 * a lookup that met a stale parent NOENT and drops the parent's
	 * entry, whose handle is then refused like any other outside
	 */
	rc = lookup_in(cl, &dfh, "g");
	ck_assert_msg(rc == NFS4ERR_STALE || rc == NFS4ERR_NOENT,
		      "LOOKUP in a moved-out dir: %s", nfs42_strerror(rc));
	rc = nfs42_readdir_fh(cl, &dfh, &bm, e2e_names_collect, &names);
	ck_assert_msg(rc == NFS4ERR_STALE, "READDIR of a moved-out dir: %s",
		      nfs42_strerror(rc));
	rc = nfs42_getattr_fh(cl, &dfh, &bm, &a);
	ck_assert_msg(rc == NFS4ERR_STALE, "GETATTR of a dropped dir: %s",
		      nfs42_strerror(rc));
	rc = nfs42_write_file(cl, e2e_path(e2e_fmt("%s/new", d)), "x", 1, 0644);
	ck_assert_msg(rc != 0, "a create reached a moved-out directory");
	ck_assert_int_ne(access(e2e_fmt("%s/new", moved), F_OK), 0);

	/* a file whose handle a client holds stays readable while cached */
	ck_nfs_ok(cl, read_fh(cl, &ffh, buf, sizeof(buf) - 1));
	ck_assert_str_eq(buf, "inside\n");

	/* a restart empties the cache: both handles are refused */
	e2e_server_ctl("restart");
	nfs42_client_free(cl);
	cl = e2e_client();
	rc = nfs42_getattr_fh(cl, &dfh, &bm, &a);
	ck_assert_msg(rc == NFS4ERR_STALE, "moved-out dir after restart: %s",
		      nfs42_strerror(rc));
	rc = read_fh(cl, &ffh, buf, sizeof(buf) - 1);
	ck_assert_msg(rc == NFS4ERR_STALE, "moved-out file after restart: %s",
		      nfs42_strerror(rc));
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("isolation_mounts");
	TCase *tc = tcase_create("mounts");

	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, bind_mount_not_crossed_v4);
	tcase_add_test(tc, bind_mount_not_crossed_v3);
	tcase_add_test(tc, other_filesystem_not_crossed);
	tcase_add_test(tc, moved_out_directory);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
