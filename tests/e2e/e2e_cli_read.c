/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: nfs42 cat, map, seek (tools/cli/read.c).
 */
#include "e2e_cli_util.h"

START_TEST(seek_verb)
{
	char *bp = e2e_backing("cli-sparse"), *np = e2e_path("cli-sparse");
	struct run r;
	unsigned long off;
	int fd;

	fd = open(bp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_eq(pwrite(fd, "x", 1, 2 << 20), 1);
	close(fd);
	r = CLI("seek", np, "0", "data");
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(sscanf(r.out, "%lu eof=", &off), 1);
	ck_assert_uint_le(off, 2 << 20);
	run_free(&r);
	r = CLI("seek", np, "0", "hole");
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "0 eof=false\n");
	run_free(&r);
	CLI_EXPECT(1, "NFS4ERR_NXIO", "seek", np, "9999999", "data");
	free(bp);
	free(np);
}
END_TEST

START_TEST(cat_depth_equals_backing)
{
	char *np = e2e_path("cli-10m"), *bp = e2e_backing("cli-10m");
	static const char *const depths[] = { "1", "8", "64" };
	size_t n = 10u << 20, i;
	char *data = malloc(n);
	unsigned int seed = 11;
	struct run r;

	for (i = 0; i < n; i++)
		data[i] = rand_r(&seed);
	e2e_put_backing("cli-10m", data, n);
	for (i = 0; i < 3; i++) {
		cat_equals((const char *const[]){ "cat", "-d", depths[i], np,
						  NULL },
			   data, n, &r);
		run_free(&r);
	}
	/* the default depth (8) */
	cat_equals((const char *const[]){ "cat", np, NULL }, data, n, &r);
	run_free(&r);
	DEAD_EXPECT(2, "bad argument '0' for cat", "cat", "-d", "0", np);
	DEAD_EXPECT(2, "bad argument '65' for cat", "cat", "-d", "65", np);
	/* the option after PATH works as well */
	cat_equals((const char *const[]){ "cat", np, "-d", "8", NULL }, data, n,
		   &r);
	run_free(&r);
	free(data);
	free(np);
	free(bp);
}
END_TEST

START_TEST(cat_read_plus_sparse)
{
	char *np = e2e_path("cli-rp-sparse");
	size_t n;
	char *want = make_sparse("cli-rp-sparse", &n);
	struct run r;

	cat_equals((const char *const[]){ "cat", "--read-plus", np, NULL },
		   want, n, &r);
	/* this server answers READ_PLUS (issue #7): no fallback to READ
	 * (the fallback itself: check_nfs42_rpc's S_READS)
	 */
	ck_assert_msg(r.err[0] == 0, "stderr: %s", r.err);
	run_free(&r);
	cat_equals((const char *const[]){ "cat", "-d", "3", "--read-plus", np,
					  NULL },
		   want, n, &r);
	run_free(&r);
	cat_equals((const char *const[]){ "cat", np, "--read-plus", NULL },
		   want, n, &r);
	run_free(&r);
	free(want);
	free(np);
}
END_TEST

START_TEST(map_verb)
{
	char *np = e2e_path("cli-map"), *miss = e2e_path("nope");
	size_t n;
	char *want = make_sparse("cli-map", &n);
	struct run r = CLI("map", np);

	/* the server's READ_PLUS (issue #7) reports the backing file's
	 * layout: 4 KiB blocks around the data, holes between
	 */
	ck_assert_msg(r.status == 0, "map: %s", r.err);
	ck_assert_str_eq(r.out, "0 1048576 hole\n"
				"1048576 102400 data\n"
				"1150976 3043328 hole\n"
				"4194304 4096 data\n"
				"4198400 2093056 hole\n");
	run_free(&r);
	CLI_EXPECT(1, "NFS4ERR_NOENT", "map", miss);
	DEAD_EXPECT(2, NULL, "map");
	DEAD_EXPECT(2, NULL, "map", "-d", "x", np);
	free(want);
	free(np);
	free(miss);
}
END_TEST

/*
 * cat -o FILE that fails (no such file, a directory) leaves FILE as it
 * was, and no temporary beside it; one that succeeds replaces FILE's
 * contents and keeps its mode (issue #28 item 1).
 */
START_TEST(cat_failure_keeps_output)
{
	const char *dir = local_dir();
	char keep[PATH_MAX], link[PATH_MAX];
	struct stat st;

	snprintf(keep, sizeof(keep), "%s/keep.txt", dir);
	put_local(keep, "precious\n", 9, 0640);
	CLI_EXPECT(1, "NFS4ERR_NOENT", "cat", e2e_path("cli-nope"), "-o", keep);
	expect_local(keep, "precious\n", 9);
	CLI_EXPECT(1, "NFS4ERR_ISDIR", "cat", e2e_path(""), "-o", keep);
	expect_local(keep, "precious\n", 9);
	CLI_EXPECT(1, "NFS4ERR_ISDIR", "cat", "--read-plus", e2e_path(""), "-o",
		   keep);
	expect_local(keep, "precious\n", 9);
	ck_assert_int_eq(dir_entries(dir), 1);
	e2e_put_backing("cli-keep-src", "new\n", 4);
	CLI_EXPECT(0, NULL, "cat", e2e_path("cli-keep-src"), "-o", keep);
	expect_local(keep, "new\n", 4);
	ck_assert_uint_eq(local_mode(keep), 0640);
	ck_assert_int_eq(dir_entries(dir), 1);
	/* through a symbolic link: the link stays, its target is replaced */
	snprintf(link, sizeof(link), "%s/link", dir);
	ck_assert_int_eq(symlink("keep.txt", link), 0);
	e2e_put_backing("cli-keep-src", "newer\n", 6);
	CLI_EXPECT(0, NULL, "cat", e2e_path("cli-keep-src"), "-o", link);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	expect_local(keep, "newer\n", 6);
	ck_assert_int_eq(dir_entries(dir), 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_cli_read");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, seek_verb);
	tcase_add_test(tc, cat_depth_equals_backing);
	tcase_add_test(tc, cat_read_plus_sparse);
	tcase_add_test(tc, map_verb);
	tcase_add_test(tc, cat_failure_keeps_output);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
