/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: nfs42 put (tools/cli/put.c).
 */
#include "e2e_cli_util.h"

START_TEST(put_cat_binary_roundtrip)
{
	char local[] = "/tmp/nfs42-cli-XXXXXX",
	     outp[] = "/tmp/nfs42-out-XXXXXX";
	char *np = e2e_path("cli-put"), *bp = e2e_backing("cli-put");
	size_t n = 3u << 20, got;
	char *data = malloc(n), *back;
	unsigned int seed = 7;
	struct run r;
	int fd;

	for (size_t i = 0; i < n; i++)
		data[i] = rand_r(&seed);
	fd = mkstemp(local);
	ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
	close(fd);
	r = CLI("put", local, np);
	ck_assert_msg(r.status == 0, "put: %s", r.err);
	run_free(&r);
	fd = open(bp, O_RDONLY);
	back = malloc(n);
	ck_assert_int_eq(read(fd, back, n), (ssize_t)n);
	close(fd);
	ck_assert(memcmp(back, data, n) == 0);
	r = CLI("cat", np);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(r.outlen, n);
	ck_assert(memcmp(r.out, data, n) == 0);
	run_free(&r);
	fd = mkstemp(outp);
	close(fd);
	CLI_EXPECT(0, NULL, "cat", np, "-o", outp);
	fd = open(outp, O_RDONLY);
	got = read(fd, back, n);
	close(fd);
	ck_assert_uint_eq(got, n);
	ck_assert(memcmp(back, data, n) == 0);
	unlink(local);
	unlink(outp);
	free(data);
	free(back);
	free(np);
	free(bp);
}
END_TEST

/* put of a directory: refused before connecting, nothing created */
START_TEST(put_directory_refused)
{
	const char *dir = getenv("NFS42_BACKING");
	struct run r;

	r = CLI("put", dir, e2e_path("cli-put-dir"));
	ck_assert_msg(r.status == 2, "put DIR: exit %d: %s", r.status, r.err);
	ck_assert(strstr(r.err, "Is a directory"));
	ck_assert(strstr(r.err, dir));
	run_free(&r);
	ck_assert_int_eq(access(e2e_backing("cli-put-dir"), F_OK), -1);
	DEAD_EXPECT(2, "Is a directory", "put", dir, "/x");
	DEAD_EXPECT(2, "No such file", "put", "/nonexistent/file", "/x");
}
END_TEST

/* put keeps holes: only the 3 MiB of data arrive, the size is right */
START_TEST(put_keeps_holes)
{
	char *data;
	const char *local = make_local_sparse(&data);
	struct run r;

	r = CLI("put", local, e2e_path("cli-put-sparse"));
	ck_assert_msg(r.status == 0, "put: %s", r.err);
	run_free(&r);
	expect_backing("cli-put-sparse", data, 256u << 20);
	ck_assert_msg(backing_alloc("cli-put-sparse") <= (4 << 20),
		      "%lld bytes allocated for 3 MiB of data",
		      backing_alloc("cli-put-sparse"));
	/* ending in a hole: the size still comes out right */
	ck_assert_int_eq(truncate(local, 300u << 20), 0);
	r = CLI("put", local, e2e_path("cli-put-sparse"));
	ck_assert_msg(r.status == 0, "put: %s", r.err);
	run_free(&r);
	data = realloc(data, 300u << 20);
	memset(data + (256u << 20), 0, 44u << 20);
	expect_backing("cli-put-sparse", data, 300u << 20);
	ck_assert_int_le(backing_alloc("cli-put-sparse"), 4 << 20);
	unlink(local);
	free(data);
}
END_TEST

/*
 * put from a stream (issue #28 item 1): a pipe as /dev/stdin, `put -` and
 * a FIFO each replace an existing file's contents with exactly what came
 * down the stream, written in order (no seek).
 */
START_TEST(put_streams)
{
	const size_t n = (3u << 20) + 12345;
	const char *np = e2e_path("cli-stream"), *dir = local_dir();
	char *data = malloc(n), fifo[PATH_MAX];
	const char *const srcs[] = { "/dev/stdin", "-", fifo };
	unsigned int seed = 17;
	struct run r;
	size_t i;
	pid_t pid;
	int fd;

	for (i = 0; i < n; i++)
		data[i] = rand_r(&seed);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	for (i = 0; i < 3; i++) {
		e2e_put_backing("cli-stream", "old contents\n", 13);
		pid = feed(srcs[i] == fifo ? fifo : NULL, data, n, &fd);
		r = CLI_IN(fd, "put", srcs[i], np);
		if (fd >= 0)
			close(fd);
		ck_assert_msg(r.status == 0, "put %s: exit %d: %s", srcs[i],
			      r.status, r.err);
		run_free(&r);
		fed(pid);
		expect_backing("cli-stream", data, n);
	}
	/* an empty stream empties the file, as it should */
	pid = feed(NULL, "", 0, &fd);
	r = CLI_IN(fd, "put", "-", np);
	close(fd);
	ck_assert_msg(r.status == 0, "put - (empty): %s", r.err);
	run_free(&r);
	fed(pid);
	expect_backing("cli-stream", "", 0);
	free(data);
}
END_TEST

/*
 * A source that cannot be read leaves the remote file alone: it is read
 * before the remote file is opened (/proc/self/mem: a regular file of
 * size 0 whose first read fails with EIO).  A regular file of size 0 that
 * has contents (/proc/version) is read to its end, not taken as empty.
 */
START_TEST(put_unreadable_keeps_remote)
{
	const char *np = e2e_path("cli-keep");
	size_t len = 0;
	char *want;
	struct run r;

	e2e_put_backing("cli-keep", "precious\n", 9);
	r = CLI("put", "/proc/self/mem", np);
	ck_assert_msg(r.status == 2, "put /proc/self/mem: exit %d: %s",
		      r.status, r.err);
	ck_assert_msg(strstr(r.err, "/proc/self/mem: Input/output error"), "%s",
		      r.err);
	run_free(&r);
	expect_backing("cli-keep", "precious\n", 9);
	want = read_local("/proc/version", &len);
	ck_assert_uint_gt(len, 0);
	CLI_EXPECT(0, NULL, "put", "/proc/version", np);
	expect_backing("cli-keep", want, len);
	free(want);
}
END_TEST

/* put into a directory writes DIR/LOCALFILE's name (as cp(1)) */
START_TEST(put_into_directory)
{
	const char *dir = local_dir();
	char local[PATH_MAX];

	snprintf(local, sizeof(local), "%s/cli-put-named", dir);
	put_local(local, "named\n", 6, 0644);
	ck_assert_int_eq(mkdir(e2e_backing("cli-put-into"), 0755), 0);
	CLI_EXPECT(0, NULL, "put", local, e2e_path("cli-put-into"));
	expect_backing("cli-put-into/cli-put-named", "named\n", 6);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_cli_put");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, put_cat_binary_roundtrip);
	tcase_add_test(tc, put_directory_refused);
	tcase_add_test(tc, put_keeps_holes);
	tcase_add_test(tc, put_streams);
	tcase_add_test(tc, put_unreadable_keeps_remote);
	tcase_add_test(tc, put_into_directory);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
