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
 * cat -o FILE that fails leaves FILE as it was, and no temporary beside
 * it (issue #28 item 1: keep.txt was emptied): the source does not exist
 * (this test), or is a directory (cat_isdir_keeps_output).  One that
 * succeeds replaces FILE's contents and keeps its mode; through a
 * symbolic link the link stays and its target is replaced.
 */
START_TEST(cat_failure_keeps_output)
{
	const char *dir = local_dir();
	char keep[PATH_MAX], link[PATH_MAX];
	struct stat st;

	snprintf(keep, sizeof(keep), "%s/keep.txt", dir);
	put_local(keep, "precious\n", 9, 0640);
	expect_local(keep, "precious\n", 9);
	CLI_EXPECT(1, "NFS4ERR_NOENT", "cat", e2e_path("cli-nope"), "-o", keep);
	expect_local(keep, "precious\n", 9);
	ck_assert_int_eq(dir_entries(dir), 1);
	e2e_put_backing("cli-keep-src", "new\n", 4);
	CLI_EXPECT(0, NULL, "cat", e2e_path("cli-keep-src"), "-o", keep);
	expect_local(keep, "new\n", 4);
	ck_assert_uint_eq(local_mode(keep), 0640);
	ck_assert_int_eq(dir_entries(dir), 1);
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

/* cat -o FILE of a directory, with READ and READ_PLUS: NFS4ERR_ISDIR and
 * FILE as it was (issue #28 item 1) */
START_TEST(cat_isdir_keeps_output)
{
	const char *dir = local_dir();
	char keep[PATH_MAX];

	snprintf(keep, sizeof(keep), "%s/keep.txt", dir);
	put_local(keep, "precious\n", 9, 0640);
	expect_local(keep, "precious\n", 9);
	CLI_EXPECT(1, "NFS4ERR_ISDIR", "cat", e2e_path(""), "-o", keep);
	expect_local(keep, "precious\n", 9);
	CLI_EXPECT(1, "NFS4ERR_ISDIR", "cat", "--read-plus", e2e_path(""), "-o",
		   keep);
	expect_local(keep, "precious\n", 9);
	ck_assert_uint_eq(local_mode(keep), 0640);
	ck_assert_int_eq(dir_entries(dir), 1);
}
END_TEST

/*
 * Cost follows data, not size (issue #28 item 2): map, cat -o (READ_PLUS)
 * and get --plain-read (READ and SEEK) of files with the same three 4 KiB
 * runs of data take as many round trips at 64 MiB, 1 GiB and 16 TiB -
 * 4 KiB (ext4's largest file), and the local copies hold the same bytes
 * with their holes kept (item 3); an NFSv4.1 cat (no SEEK) still reads
 * right.
 */
START_TEST(sparse_cost_follows_data)
{
	static const uint64_t sizes[] = { 64ull << 20, 1ull << 30,
					  (16ull << 40) - 4096 };
	static const char *const verbs[] = { "map", "cat", "get --plain-read" };
	const char *dir = local_dir();
	unsigned long trips[3][3];
	char out[PATH_MAX], name[32];
	struct run r;
	size_t i, v;

	snprintf(out, sizeof(out), "%s/copy", dir);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "cli-runs-%zu", i);
		make_three_runs(name, sizes[i]);
		r = CLI("map", "--stats", e2e_path(name));
		ck_assert_msg(r.status == 0, "map: %s", r.err);
		trips[i][0] = round_trips(r.err, "map");
		run_free(&r);
		r = CLI("cat", "--stats", e2e_path(name), "-o", out);
		ck_assert_msg(r.status == 0, "cat: %s", r.err);
		trips[i][1] = round_trips(r.err, "cat");
		run_free(&r);
		same_sparse(e2e_backing(name), out);
		ck_assert_int_le(local_alloc(out), 3 * 4096 + 65536);
		r = CLI("get", "--stats", "--plain-read", e2e_path(name), out);
		ck_assert_msg(r.status == 0, "get: %s", r.err);
		trips[i][2] = round_trips(r.err, "get");
		run_free(&r);
		same_sparse(e2e_backing(name), out);
		ck_assert_int_le(local_alloc(out), 3 * 4096 + 65536);
		if (i == 0) {
			/* NFSv4.1: no SEEK, no READ_PLUS: all read, right */
			CLI_EXPECT(0, NULL, "-m", "1", "cat", e2e_path(name),
				   "-o", out);
			same_sparse(e2e_backing(name), out);
		}
		unlink(e2e_backing(name));
		for (v = 0; v < 3; v++)
			ck_assert_msg(trips[i][v] == trips[0][v],
				      "%s: %lu round trips at %llu bytes, %lu "
				      "at %llu",
				      verbs[v], trips[i][v],
				      (unsigned long long)sizes[i], trips[0][v],
				      (unsigned long long)sizes[0]);
	}
}
END_TEST

/*
 * cat to a stdout that is a regular file keeps holes (seeks over them),
 * and to one opened for appending writes them as zeros: seeking is
 * useless there, every write goes to the end.
 */
START_TEST(cat_to_stdout_file)
{
	const char *dir = local_dir();
	const char *const argv[] = { e2e_env("SPARSE_NFS42"), "-s",
				     e2e_env("NFS42_HOST"),   "-p",
				     e2e_env("NFS42_PORT"),   "cat",
				     e2e_path("cli-stdout"),  NULL };
	char out[PATH_MAX], *want, *got;
	size_t n, len;
	int fd;

	want = make_sparse("cli-stdout", &n);
	snprintf(out, sizeof(out), "%s/out", dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_eq(run_argv_to(argv, fd), 0);
	close(fd);
	expect_local(out, want, n);
	ck_assert_int_le(local_alloc(out), 1 << 20);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	ck_assert_int_eq(write(fd, "head", 4), 4);
	ck_assert_int_eq(run_argv_to(argv, fd), 0);
	close(fd);
	got = read_local(out, &len);
	ck_assert_uint_eq(len, n + 4);
	ck_assert(!memcmp(got, "head", 4) && !memcmp(got + 4, want, n));
	free(got);
	free(want);
}
END_TEST

/*
 * cat -o onto a file its user may not write fails as open(2) would, and
 * leaves it alone: the temporary renamed over it must not get round the
 * file's mode (the user may write the directory).  As uid 65534 through
 * setpriv(1), in a directory anyone may write; skipped without setpriv.
 */
START_TEST(cat_respects_readonly_output)
{
	char dir[] = "/tmp/nfs42-cli-ro-XXXXXX", keep[64];
	const char *argv[] = { "/usr/bin/setpriv",
			       "--reuid=65534",
			       "--regid=65534",
			       "--clear-groups",
			       e2e_env("SPARSE_NFS42"),
			       "-s",
			       e2e_env("NFS42_HOST"),
			       "-p",
			       e2e_env("NFS42_PORT"),
			       "cat",
			       e2e_path("cli-ro-src"),
			       "-o",
			       keep,
			       NULL };
	struct run r;

	if (access(argv[0], X_OK) < 0)
		return;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0777), 0);
	snprintf(keep, sizeof(keep), "%s/keep", dir);
	put_local(keep, "precious\n", 9, 0444);
	e2e_put_backing("cli-ro-src", "new\n", 4);
	r = run_argv(argv);
	ck_assert_msg(r.status == 2 && strstr(r.err, "Permission denied"),
		      "exit %d: %s", r.status, r.err);
	run_free(&r);
	expect_local(keep, "precious\n", 9);
	ck_assert_int_eq(dir_entries(dir), 1);
	unlink(keep);
	rmdir(dir);
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
	tcase_add_test(tc, cat_isdir_keeps_output);
	tcase_add_test(tc, sparse_cost_follows_data);
	tcase_add_test(tc, cat_to_stdout_file);
	tcase_add_test(tc, cat_respects_readonly_output);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
