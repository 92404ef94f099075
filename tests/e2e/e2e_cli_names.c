/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: nfs42 mkdir, rm, rmdir, mv, ln, readlink, truncate,
 * chmod (tools/cli/names.c).
 */
#include "e2e_cli_util.h"

START_TEST(namespace_verbs)
{
	char *d = e2e_path("cli-ns"), *d2 = e2e_path("cli-ns2");
	char *l = e2e_path("cli-ns2/link"), *bl = e2e_backing("cli-ns2/link");
	char *f = e2e_path("cli-ns2/f"), target[64];
	struct run r;
	ssize_t n;

	r = CLI("mkdir", d);
	ck_assert_msg(r.status == 0, "%s", r.err);
	run_free(&r);
	CLI_EXPECT(1, "NFS4ERR_EXIST", "mkdir", d);
	CLI_EXPECT(0, NULL, "mv", d, d2);
	CLI_EXPECT(0, NULL, "ln", "-s", "some/target", l);
	n = readlink(bl, target, sizeof(target) - 1);
	ck_assert_int_eq(n, 11);
	target[n] = '\0';
	ck_assert_str_eq(target, "some/target");
	r = CLI("readlink", l);
	ck_assert_str_eq(r.out, "some/target\n");
	run_free(&r);
	CLI_EXPECT(1, "NFS4ERR_NOTEMPTY", "rmdir", d2);
	CLI_EXPECT(0, NULL, "rm", l);
	CLI_EXPECT(1, "NFS4ERR_ISDIR", "rm", d2);
	CLI_EXPECT(0, NULL, "rmdir", d2);
	CLI_EXPECT(1, NULL, "rm", f);
	free(d);
	free(d2);
	free(l);
	free(bl);
	free(f);
}
END_TEST

START_TEST(truncate_verb)
{
	const char *np = e2e_path("cli-trunc");

	e2e_put_backing("cli-trunc", "0123456789", 10);
	CLI_EXPECT(0, NULL, "truncate", np, "4");
	expect_backing("cli-trunc", "0123", 4);
	CLI_EXPECT(0, NULL, "truncate", np, "8"); /* grows with zeros */
	expect_backing("cli-trunc", "0123\0\0\0\0", 8);
	CLI_EXPECT(0, NULL, "truncate", np, "0x10");
	expect_backing("cli-trunc", "0123\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	CLI_EXPECT(0, NULL, "truncate", np, "0");
	expect_backing("cli-trunc", "", 0);
	CLI_EXPECT(2, NULL, "truncate", np, "-1");
	CLI_EXPECT(2, NULL, "truncate", np, "ten");
	CLI_EXPECT(1, "NFS4ERR_NOENT", "truncate", e2e_path("cli-nope"), "1");
}
END_TEST

START_TEST(chmod_verb)
{
	static const struct {
		const char *arg;
		mode_t mode;
	} cases[] = { { "600", 0600 },	 { "0751", 0751 }, { "2750", 02750 },
		      { "4755", 04755 }, { "0", 0 },	   { "0644", 0644 } };
	const char *np = e2e_path("cli-chmod"), *dp = e2e_path("cli-chmod-d");
	size_t i;

	e2e_put_backing("cli-chmod", "x", 1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CLI_EXPECT(0, NULL, "chmod", cases[i].arg, np);
		ck_assert_uint_eq(backing_mode("cli-chmod", S_IFREG),
				  cases[i].mode);
	}
	expect_backing("cli-chmod", "x", 1);
	ck_assert_int_eq(mkdir(e2e_backing("cli-chmod-d"), 0755), 0);
	CLI_EXPECT(0, NULL, "chmod", "1777", dp);
	ck_assert_uint_eq(backing_mode("cli-chmod-d", S_IFDIR), 01777);
	CLI_EXPECT(2, NULL, "chmod", "0800", np);
	CLI_EXPECT(2, NULL, "chmod", "17777", np);
	CLI_EXPECT(2, NULL, "chmod", "rwx", np);
	ck_assert_uint_eq(backing_mode("cli-chmod", S_IFREG), 0644);
}
END_TEST

START_TEST(hard_link_verb)
{
	const char *src = e2e_path("cli-hl-src"), *dst = e2e_path("cli-hl-dst");
	struct stat a, b;

	e2e_put_backing("cli-hl-src", "linked\n", 7);
	CLI_EXPECT(0, NULL, "ln", src, dst);
	ck_assert_int_eq(lstat(e2e_backing("cli-hl-src"), &a), 0);
	ck_assert_int_eq(lstat(e2e_backing("cli-hl-dst"), &b), 0);
	ck_assert_uint_eq(a.st_ino, b.st_ino);
	ck_assert_uint_eq(a.st_nlink, 2);
	expect_backing("cli-hl-dst", "linked\n", 7);
	CLI_EXPECT(1, "NFS4ERR_EXIST", "ln", src, dst);
	CLI_EXPECT(1, "NFS4ERR_NOENT", "ln", e2e_path("cli-hl-none"),
		   e2e_path("cli-hl-other"));
	ck_assert_int_eq(access(e2e_backing("cli-hl-other"), F_OK), -1);
}
END_TEST

START_TEST(mkdir_mode_verb)
{
	static const struct {
		const char *arg, *name;
		mode_t mode;
	} cases[] = { { "0700", "cli-md-700", 0700 },
		      { "751", "cli-md-751", 0751 },
		      { "0", "cli-md-0", 0 },
		      { "1777", "cli-md-1777", 01777 } };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CLI_EXPECT(0, NULL, "mkdir", "-m", cases[i].arg,
			   e2e_path(cases[i].name));
		ck_assert_uint_eq(backing_mode(cases[i].name, S_IFDIR),
				  cases[i].mode);
	}
	CLI_EXPECT(2, NULL, "mkdir", "-m", "0800", e2e_path("cli-md-bad"));
	CLI_EXPECT(2, NULL, "mkdir", "-m", "rwx", e2e_path("cli-md-bad"));
	CLI_EXPECT(2, NULL, "mkdir", "-x", "0700", e2e_path("cli-md-bad"));
	ck_assert_int_eq(access(e2e_backing("cli-md-bad"), F_OK), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_cli_names");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, namespace_verbs);
	tcase_add_test(tc, truncate_verb);
	tcase_add_test(tc, chmod_verb);
	tcase_add_test(tc, hard_link_verb);
	tcase_add_test(tc, mkdir_mode_verb);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
