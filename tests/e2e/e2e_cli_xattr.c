/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: nfs42 xattr get, set, ls, rm (tools/cli/xattr.c), checked
 * against the backing file's user. attributes.  The protocol itself:
 * e2e_proto_xattr.
 */
#include <sys/xattr.h>

#include "e2e_cli_util.h"

/* the backing file's user.NAME is want (NULL: absent) */
static void expect_backing_xattr(const char *rel, const char *name,
				 const char *want)
{
	char key[64], got[256];
	ssize_t n;

	snprintf(key, sizeof(key), "user.%s", name);
	n = getxattr(e2e_backing(rel), key, got, sizeof(got));
	if (!want) {
		ck_assert_msg(n < 0 && errno == ENODATA, "%s: %s is there", rel,
			      key);
		return;
	}
	ck_assert_msg(n == (ssize_t)strlen(want) && !memcmp(got, want, n),
		      "%s: %s is not '%s'", rel, key, want);
}

START_TEST(set_get_ls_rm)
{
	const char *p = e2e_path("cli-xa"), *dir = local_dir();
	char val[PATH_MAX], at[PATH_MAX + 1];
	struct run r;

	e2e_put_backing("cli-xa", "file\n", 5);
	CLI_EXPECT(0, NULL, "xattr", "set", p, "color", "blue");
	expect_backing_xattr("cli-xa", "color", "blue");
	r = CLI("xattr", "get", p, "color");
	ck_assert_msg(r.status == 0, "%s", r.err);
	ck_assert_str_eq(r.out, "blue");
	run_free(&r);
	/* @FILE: the bytes of a local file */
	snprintf(val, sizeof(val), "%s/val", dir);
	put_local(val, "from a file", 11, 0644);
	snprintf(at, sizeof(at), "@%s", val);
	CLI_EXPECT(0, NULL, "xattr", "set", p, "shape", at);
	expect_backing_xattr("cli-xa", "shape", "from a file");
	r = CLI("xattr", "ls", p);
	ck_assert_msg(r.status == 0, "%s", r.err);
	ck_assert_msg(!strcmp(r.out, "color\nshape\n") ||
			      !strcmp(r.out, "shape\ncolor\n"),
		      "ls: %s", r.out);
	run_free(&r);
	CLI_EXPECT(0, NULL, "xattr", "rm", p, "color");
	expect_backing_xattr("cli-xa", "color", NULL);
	CLI_EXPECT(1, "xattr user.color: NFS4ERR_NOXATTR", "xattr", "get", p,
		   "color");
	CLI_EXPECT(1, "xattr user.color: NFS4ERR_NOXATTR", "xattr", "rm", p,
		   "color");
	expect_backing_xattr("cli-xa", "shape", "from a file");
}
END_TEST

/* --create on an existing name, --replace on a missing one: the RFC 8276
 * errors, and the values as they were */
START_TEST(create_replace)
{
	const char *p = e2e_path("cli-xa-cr");

	e2e_put_backing("cli-xa-cr", "file\n", 5);
	CLI_EXPECT(0, NULL, "xattr", "set", "--create", p, "k", "one");
	CLI_EXPECT(1, "xattr user.k: NFS4ERR_EXIST", "xattr", "set", "--create",
		   p, "k", "two");
	expect_backing_xattr("cli-xa-cr", "k", "one");
	CLI_EXPECT(1, "xattr user.m: NFS4ERR_NOXATTR", "xattr", "set",
		   "--replace", p, "m", "two");
	expect_backing_xattr("cli-xa-cr", "m", NULL);
	CLI_EXPECT(0, NULL, "xattr", "set", "--replace", p, "k", "two");
	expect_backing_xattr("cli-xa-cr", "k", "two");
}
END_TEST

/*
 * xattr get -o FILE (issue #28 item 1, as cat -o): a missing attribute
 * leaves FILE's bytes as they were and nothing beside it; one that is
 * there replaces them, FILE's mode kept.
 */
START_TEST(get_output_file)
{
	const char *p = e2e_path("cli-xa-o"), *dir = local_dir();
	char keep[PATH_MAX];

	e2e_put_backing("cli-xa-o", "file\n", 5);
	snprintf(keep, sizeof(keep), "%s/keep", dir);
	put_local(keep, "precious\n", 9, 0640);
	expect_local(keep, "precious\n", 9);
	CLI_EXPECT(1, "NFS4ERR_NOXATTR", "xattr", "get", "-o", keep, p, "none");
	expect_local(keep, "precious\n", 9);
	CLI_EXPECT(1, "NFS4ERR_NOENT", "xattr", "get", "-o", keep,
		   e2e_path("cli-xa-nope"), "none");
	expect_local(keep, "precious\n", 9);
	ck_assert_int_eq(dir_entries(dir), 1);
	CLI_EXPECT(0, NULL, "xattr", "set", p, "v", "value");
	CLI_EXPECT(0, NULL, "xattr", "get", "-o", keep, p, "v");
	expect_local(keep, "value", 5);
	ck_assert_uint_eq(local_mode(keep), 0640);
	ck_assert_int_eq(dir_entries(dir), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_cli_xattr");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, set_get_ls_rm);
	tcase_add_test(tc, create_replace);
	tcase_add_test(tc, get_output_file);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
