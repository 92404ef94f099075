/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: nfs42 ls, stat (tools/cli/info.c), and cat of
 * what they list.
 */
#include "e2e_cli_util.h"

START_TEST(ls_stat_cat)
{
	char *dir = e2e_backing("cli-dir"), *p = e2e_path("cli-dir");
	char *f = e2e_path("cli-dir/b-file"), *miss = e2e_path("nope");
	char want[256];
	struct stat st;
	struct run r;
	char *bf;

	mkdir(dir, 0755);
	e2e_put_backing("cli-dir/b-file", "contents\n", 9);
	e2e_put_backing("cli-dir/a-file", "", 0);
	r = CLI("ls", p);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "a-file\nb-file\n");
	run_free(&r);
	r = CLI("ls", "-l", p);
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "-rw-r--r--"));
	ck_assert(strstr(r.out, " b-file\n"));
	run_free(&r);
	r = CLI("stat", f);
	ck_assert_int_eq(r.status, 0);
	bf = e2e_backing("cli-dir/b-file");
	ck_assert_int_eq(stat(bf, &st), 0);
	ck_assert(strstr(r.out, "type: regular\n"));
	ck_assert(strstr(r.out, "size: 9\n"));
	ck_assert(strstr(r.out, "mode: 0644\n"));
	snprintf(want, sizeof(want), "fileid: %lu\n", (unsigned long)st.st_ino);
	ck_assert(strstr(r.out, want));
	run_free(&r);
	r = CLI("cat", f);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "contents\n");
	run_free(&r);
	r = CLI("cat", miss);
	ck_assert_int_eq(r.status, 1);
	ck_assert_str_eq(r.out, "");
	snprintf(want, sizeof(want), "nfs42: %s: NFS4ERR_NOENT\n", miss);
	ck_assert_str_eq(r.err, want);
	run_free(&r);
	CLI_EXPECT(1, NULL, "stat", miss);
	free(bf);
	free(dir);
	free(p);
	free(f);
	free(miss);
}
END_TEST

/*
 * stat prints times as dates (issue #28 item 5: raw epoch seconds): the
 * backing file's mtime 1000000000.5 is 2001-09-09 01:46:40.5 UTC.
 */
START_TEST(stat_prints_dates)
{
	const struct timespec ts[2] = { { 1000000000, 500000000 },
					{ 1000000000, 500000000 } };
	struct run r;

	e2e_put_backing("cli-times", "t", 1);
	ck_assert_int_eq(utimensat(AT_FDCWD, e2e_backing("cli-times"), ts, 0),
			 0);
	setenv("TZ", "UTC", 1);
	r = CLI("stat", e2e_path("cli-times"));
	ck_assert_msg(r.status == 0, "%s", r.err);
	ck_assert_msg(strstr(r.out, "mtime: 2001-09-09 01:46:40.500000000 "
				    "+0000\n") &&
			      strstr(r.out,
				     "atime: 2001-09-09 01:46:40.500000000 "
				     "+0000\n"),
		      "%s", r.out);
	run_free(&r);
	setenv("TZ", "CET", 1);
	r = CLI("stat", e2e_path("cli-times"));
	ck_assert_msg(strstr(r.out, "mtime: 2001-09-09 03:46:40.500000000 "
				    "+0200\n"),
		      "%s", r.out);
	run_free(&r);
	unsetenv("TZ");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_cli_info");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, ls_stat_cat);
	tcase_add_test(tc, stat_prints_dates);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
