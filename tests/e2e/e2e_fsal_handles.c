/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL end-to-end, file handles (issue #3): persistent handles across a
 * clean restart and across SIGKILL, NFS4ERR_STALE for deleted objects
 * (also when the inode number is reused: "e2e_fsal_handles inode_reuse"),
 * NFS4ERR_BADHANDLE for garbage.
 * Oracle: RFC 8881 4.2.1 (persistent filehandles: the same object keeps
 * its handle; a removed object's handle is STALE).
 */
#include "e2e_fsal_util.h"

START_TEST(deleted_handle_is_stale)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("stale"), *p = e2e_path(f);
	struct nfs42_attrs a;
	struct nfs42_fh fh;
	uint32_t n;
	bool eof;
	char buf[8];

	e2e_put_backing(f, "gone", 4);
	fh = e2e_fh(cl, f);
	ck_nfs_ok(cl, nfs42_remove(cl, p));
	ck_nfs_status(e2e_getattr_rc(cl, &fh, NULL, &a), NFS4ERR_STALE);
	ck_nfs_status(e2e_read(cl, &fh, &e2e_anon_stateid, 0, 4, buf,
			       sizeof(buf), &n, &eof),
		      NFS4ERR_STALE);
	free(p);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(garbage_handle)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh good = e2e_fh(cl, ""), fh = good;
	struct nfs42_attrs a;
	int rc;

	/* random bytes of a plausible length */
	for (uint32_t i = 0; i < fh.len; i++)
		fh.data[i] = (uint8_t)(i * 37 + 11);
	rc = e2e_getattr_rc(cl, &fh, NULL, &a);
	ck_nfs_status2(rc, NFS4ERR_BADHANDLE, NFS4ERR_STALE);
	/* the good handle truncated by one byte */
	fh = good;
	fh.len--;
	rc = e2e_getattr_rc(cl, &fh, NULL, &a);
	ck_nfs_status2(rc, NFS4ERR_BADHANDLE, NFS4ERR_STALE);
	nfs42_client_free(cl);
}
END_TEST

/*
 * Handles survive a clean restart; a file deleted while the server was
 * down is STALE afterwards.
 */
START_TEST(handles_survive_restart)
{
	struct nfs42_client *cl = e2e_client();
	char *d = e2e_uniq("persist"), *f = e2e_fmt("%s/file", d);
	char *victim = e2e_uniq("victim");
	uint8_t *data = e2e_rand_bytes(100000, 8), *buf = malloc(100000);
	struct nfs42_fh dfh, ffh, vfh, root;
	struct nfs42_attrs a;

	e2e_bmkdir(d, 0755);
	e2e_put_backing(f, data, 100000);
	e2e_put_backing(victim, "victim", 6);
	dfh = e2e_fh(cl, d);
	ffh = e2e_fh(cl, f);
	vfh = e2e_fh(cl, victim);
	root = e2e_fh(cl, "");
	nfs42_client_free(cl);

	e2e_server_ctl("stop");
	ck_assert_int_eq(unlink(e2e_backing(victim)), 0);
	e2e_server_ctl("start");
	cl = e2e_client_after_restart();

	/* the old handles, straight away: PUTFH + GETATTR / READ */
	a = e2e_getattr(cl, &ffh, NULL);
	ck_assert_uint_eq(a.fileid, e2e_bstat(f).st_ino);
	ck_assert_uint_eq(a.size, 100000);
	e2e_read_all(cl, &ffh, &e2e_anon_stateid, 0, buf, 100000);
	ck_assert(memcmp(buf, data, 100000) == 0);
	a = e2e_getattr(cl, &dfh, NULL);
	ck_assert_uint_eq(a.fileid, e2e_bstat(d).st_ino);
	ck_assert_uint_eq(e2e_getattr(cl, &root, NULL).fileid,
			  e2e_bstat("").st_ino);
	/* LOOKUP through the old directory handle */
	{
		struct nfs42_compound *c = e2e_cpd(cl, &dfh);
		int gi;

		nfs42_op_lookup(c, "file");
		gi = nfs42_op_getfh(c);
		ck_nfs_ok(cl, nfs42_compound_run(c));
		/* and the handle did not change */
		ck_assert_uint_eq(nfs42_res(c, gi)->u.fh.len, ffh.len);
		ck_assert_mem_eq(nfs42_res(c, gi)->u.fh.data, ffh.data,
				 ffh.len);
		nfs42_compound_free(c);
	}
	/* the deleted file's handle is STALE */
	ck_nfs_status(e2e_getattr_rc(cl, &vfh, NULL, &a), NFS4ERR_STALE);
	free(data);
	free(buf);
	nfs42_client_free(cl);
}
END_TEST

/*
 * A file deleted while the server was down whose inode number a new file
 * got: the old handle is STALE, not the new file. Needs a backing
 * filesystem that hands out a freed inode number again (ext4 does at once;
 * tmpfs and btrfs do not): skipped when it did not happen.
 */
START_TEST(stale_after_inode_reuse)
{
	struct nfs42_client *cl = e2e_client();
	char *victim = e2e_uniq("victim"), *reuse = NULL;
	struct nfs42_fh vfh, rfh;
	struct nfs42_attrs a;
	struct stat sv;

	e2e_put_backing(victim, "victim", 6);
	sv = e2e_bstat(victim);
	vfh = e2e_fh(cl, victim);
	nfs42_client_free(cl);

	e2e_server_ctl("stop");
	ck_assert_int_eq(unlink(e2e_backing(victim)), 0);
	for (int i = 0; i < 200 && !reuse; i++) {
		char *r = e2e_fmt("%s-new-%d", victim, i);

		e2e_put_backing(r, "new", 3);
		if (e2e_bstat(r).st_ino == sv.st_ino)
			reuse = r;
	}
	e2e_server_ctl("start");
	if (!reuse) {
		e2e_skip("no new file got the deleted file's inode number");
		return;
	}
	cl = e2e_client_after_restart();
	ck_nfs_status(e2e_getattr_rc(cl, &vfh, NULL, &a), NFS4ERR_STALE);
	rfh = e2e_fh(cl, reuse);
	ck_assert_uint_eq(e2e_getattr(cl, &rfh, NULL).fileid, sv.st_ino);
	ck_assert(rfh.len != vfh.len ||
		  memcmp(rfh.data, vfh.data, vfh.len) != 0);
	nfs42_client_free(cl);
}
END_TEST

/*
 * WRITE FILE_SYNC4, get the reply, SIGKILL the server, start it again:
 * the data is in the backing file and readable through the old handle.
 */
START_TEST(sigkill_after_file_sync)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("kill9");
	uint8_t *data = e2e_rand_bytes(300000, 9), *buf = malloc(300000);
	struct nfs42_file of;
	struct nfs42_fh fh;
	uint32_t cnt, com;

	of = e2e_create_rw(cl, f);
	fh = of.fh;
	for (uint32_t off = 0; off < 300000; off += 60000) {
		ck_nfs_ok(cl,
			  e2e_write(cl, &of.fh, &of.stateid, off, FILE_SYNC4,
				    data + off, 60000, &cnt, &com, NULL));
		ck_assert_uint_eq(cnt, 60000);
		ck_assert_uint_eq(com, FILE_SYNC4);
	}
	e2e_server_ctl("kill9");
	nfs42_client_free(cl);
	e2e_bpread(f, buf, 300000, 0);
	ck_assert(memcmp(buf, data, 300000) == 0);
	e2e_server_ctl("start");
	cl = e2e_client_after_restart();
	memset(buf, 0, 300000);
	ck_assert_uint_eq(e2e_getattr(cl, &fh, NULL).size, 300000);
	e2e_read_all(cl, &fh, &e2e_anon_stateid, 0, buf, 300000);
	ck_assert(memcmp(buf, data, 300000) == 0);
	/* and it can be opened again by that handle */
	ck_nfs_ok(cl, nfs42_open_fh(cl, &fh, OPEN4_SHARE_ACCESS_BOTH, &of));
	ck_nfs_ok(cl, nfs42_pwrite(&of, "after", 5, 0, FILE_SYNC4));
	ck_nfs_ok(cl, e2e_close(&of));
	e2e_bpread(f, buf, 5, 0);
	ck_assert_mem_eq(buf, "after", 5);
	free(f);
	free(data);
	free(buf);
	nfs42_client_free(cl);
}
END_TEST

/* "inode_reuse": only that test (its own ctest entry, as it may skip) */
int main(int argc, char **argv)
{
	Suite *s = suite_create("e2e_fsal_handles");
	TCase *tc = tcase_create("handles");

	tcase_set_timeout(tc, 90);
	if (argc > 1 && !strcmp(argv[1], "inode_reuse")) {
		tcase_add_test(tc, stale_after_inode_reuse);
	} else {
		tcase_add_test(tc, deleted_handle_is_stale);
		tcase_add_test(tc, garbage_handle);
		tcase_add_test(tc, handles_survive_restart);
		tcase_add_test(tc, sigkill_after_file_sync);
	}
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
