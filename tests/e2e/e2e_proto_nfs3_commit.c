/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * NFSv3 COMMIT of what is not a regular file (patch 0192; the in-process
 * fuzzer's second finding, tests/fuzz/inproc/regress/nfs3-commit-directory):
 * Ganesha 6.5 handed any object to the FSAL's commit2, and FSAL_SPARSE's
 * walked the open-descriptor list only regular files have: a COMMIT on the
 * export's root directory stopped the server.  Now a directory is
 * NFS3ERR_ISDIR and a symbolic link NFS3ERR_INVAL, as WRITE answers; a
 * regular file commits, and the server goes on answering.
 */
#include "e2e_fsal_util.h"
#include "nfs3_test.h"

START_TEST(commit_needs_a_regular_file)
{
	struct nfs3_fh root, file, link;
	struct nfs3_attr attr;
	struct nfs3_conn c;
	uint32_t n = 0;
	int st;

	ck_assert_int_eq(nfs3_connect(&c), 0);
	ck_assert_int_eq(nfs3_mount(&c, e2e_env("NFS42_BACKING"), &root), 0);
	ck_assert_int_eq(nfs3_create(&c, &root, nfs3_str("commit-file"), 0644,
				     &file),
			 NFS3_OK);
	ck_assert_int_eq(nfs3_write(&c, &file, 0, "data", 4, &n), NFS3_OK);
	ck_assert_int_eq(nfs3_symlink(&c, &root, nfs3_str("commit-link"),
				      "commit-file", &link),
			 NFS3_OK);

	st = nfs3_commit(&c, &root, 0, 0);
	ck_assert_msg(st == NFS3ERR_ISDIR, "COMMIT of the export's root: %s",
		      nfs3_status_name(st));
	st = nfs3_commit(&c, &link, 0, 0);
	ck_assert_msg(st == NFS3ERR_INVAL, "COMMIT of a symbolic link: %s",
		      nfs3_status_name(st));
	st = nfs3_commit(&c, &file, 0, 0);
	ck_assert_msg(st == NFS3_OK, "COMMIT of a file: %s",
		      nfs3_status_name(st));
	/* the server is still there */
	ck_assert_int_eq(nfs3_getattr(&c, &root, &attr), NFS3_OK);
	ck_assert_uint_eq(attr.type, 2);
	nfs3_close(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("proto_nfs3_commit");
	TCase *tc = tcase_create("commit");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, commit_needs_a_regular_file);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
