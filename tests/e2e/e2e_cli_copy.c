/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: nfs42 cp (tools/cli/copy.c, progress.c).
 */
#include "e2e_cli_util.h"

/* `cp SRC DST` succeeded; today's server has no COPY: if stderr says so,
 * it says it once. */
static void cp_ok(const char *src, const char *dst)
{
	static const char told[] = "copied through the client\n";
	struct run r = CLI("cp", src, dst);

	ck_assert_msg(r.status == 0, "cp: %s", r.err);
	if (r.err[0]) {
		ck_assert_msg(strstr(r.err, "server COPY not supported") &&
				      strstr(r.err, told),
			      "stderr: %s", r.err);
		ck_assert_msg(!strstr(strstr(r.err, told) + 1, told),
			      "told twice: %s", r.err);
	}
	run_free(&r);
}

/*
 * cp: 5 MiB, a 1 MiB hole in the middle, over a larger existing file:
 * the destination is the source byte for byte, with its mode, and the
 * hole stays a hole.  A trailing hole (make_sparse) survives too.
 */
START_TEST(cp_verb)
{
	size_t n = 5u << 20, i, tn;
	char *data = calloc(1, n), *junk = malloc(6u << 20), *tail;
	unsigned int seed = 5;
	struct run r;
	int fd;

	for (i = 0; i < n; i++)
		if (i < (2u << 20) || i >= (3u << 20))
			data[i] = rand_r(&seed);
	fd = open(e2e_backing("cli-cp-src"), O_WRONLY | O_CREAT | O_TRUNC,
		  0640);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0640), 0);
	ck_assert_int_eq(pwrite(fd, data, 2u << 20, 0), 2u << 20);
	ck_assert_int_eq(pwrite(fd, data + (3u << 20), 2u << 20, 3u << 20),
			 2u << 20);
	close(fd);
	memset(junk, 'j', 6u << 20);
	e2e_put_backing("cli-cp-dst", junk, 6u << 20);
	cp_ok(e2e_path("cli-cp-src"), e2e_path("cli-cp-dst"));
	expect_backing("cli-cp-dst", data, n);
	/* the hole kept: about 4 MiB allocated, as much as the source */
	ck_assert_msg(backing_alloc("cli-cp-dst") <=
			      backing_alloc("cli-cp-src") + (256 << 10),
		      "dst %lld bytes allocated, src %lld",
		      backing_alloc("cli-cp-dst"), backing_alloc("cli-cp-src"));
	/* a new destination gets the source's mode */
	cp_ok(e2e_path("cli-cp-src"), e2e_path("cli-cp-new"));
	expect_backing("cli-cp-new", data, n);
	ck_assert_uint_eq(backing_mode("cli-cp-new", S_IFREG), 0640);
	/* a trailing hole: the size comes out right */
	tail = make_sparse("cli-cp-sparse", &tn);
	cp_ok(e2e_path("cli-cp-sparse"), e2e_path("cli-cp-sparse2"));
	expect_backing("cli-cp-sparse2", tail, tn);
	ck_assert_int_le(backing_alloc("cli-cp-sparse2"), 1 << 20);
	/* an empty source */
	e2e_put_backing("cli-cp-empty", "", 0);
	cp_ok(e2e_path("cli-cp-empty"), e2e_path("cli-cp-sparse2"));
	expect_backing("cli-cp-sparse2", "", 0);
	/*
	 * --via-client: no COPY sent at all (calls=0 where plain cp, above,
	 * tried one), nothing said about COPY, the same bytes.
	 */
	r = CLI("cp", "--via-client", "--stats", e2e_path("cli-cp-src"),
		e2e_path("cli-cp-via"));
	ck_assert_msg(r.status == 0, "cp --via-client: %s", r.err);
	ck_assert_msg(strstr(r.err, "nfs42: cp stats: path=client calls=0 "
				    "total_us=0 max_us=0\n") == r.err,
		      "%s", r.err);
	/* and the round trips hold no COPY */
	ck_assert_msg(!strstr(r.err, "COPY"), "%s", r.err);
	run_free(&r);
	expect_backing("cli-cp-via", data, n);
	r = CLI("cp", "--stats", e2e_path("cli-cp-src"),
		e2e_path("cli-cp-via"));
	/* COPY tried (NOTSUPP today; one or more chunks once it is there) */
	ck_assert_msg(r.status == 0 && strstr(r.err, " calls=") &&
			      !strstr(r.err, " calls=0 "),
		      "cp --stats: %s", r.err);
	run_free(&r);
	/* NFSv4.1 has no COPY (OP_ILLEGAL): through the client as well */
	r = CLI("-m", "1", "cp", e2e_path("cli-cp-src"),
		e2e_path("cli-cp-v41"));
	ck_assert_msg(r.status == 0, "cp -m 1: %s", r.err);
	run_free(&r);
	expect_backing("cli-cp-v41", data, n);
	/* onto itself: refused before truncating it */
	CLI_EXPECT(1, "are the same file", "cp", e2e_path("cli-cp-new"),
		   e2e_path("cli-cp-new"));
	expect_backing("cli-cp-new", data, n);
	CLI_EXPECT(1, "NFS4ERR_ISDIR", "cp", e2e_path(""),
		   e2e_path("cli-cp-dir"));
	ck_assert_int_eq(access(e2e_backing("cli-cp-dir"), F_OK), -1);
	/* no source: nothing created */
	CLI_EXPECT(1, "NFS4ERR_NOENT", "cp", e2e_path("cli-cp-none"),
		   e2e_path("cli-cp-none2"));
	ck_assert_int_eq(access(e2e_backing("cli-cp-none2"), F_OK), -1);
	free(tail);
	free(junk);
	free(data);
}
END_TEST

/*
 * cp --async of a mostly sparse file, stderr not a terminal: 100 % is
 * reported once, and the rate counts data (3 MiB), not the 256 MiB of
 * the file; options in either order.
 */
START_TEST(cp_async_progress)
{
	char *data, *p, *line;
	const char *local = make_local_sparse(&data);
	unsigned long long d, dt;
	int full = 0, lines = 0;
	struct run r;

	r = CLI("put", local, e2e_path("cli-prog-src"));
	ck_assert_msg(r.status == 0, "put: %s", r.err);
	run_free(&r);
	unlink(local);
	r = CLI("cp", "--stats", "--async", e2e_path("cli-prog-src"),
		e2e_path("cli-prog-dst"));
	ck_assert_msg(r.status == 0, "cp --stats --async: %s", r.err);
	ck_assert_msg(strstr(r.err, "cp stats: path="), "%s", r.err);
	for (line = strtok_r(r.err, "\n", &p); line;
	     line = strtok_r(NULL, "\n", &p)) {
		if (!strstr(line, "copied "))
			continue;
		lines++;
		full += strstr(line, "(100%)") != NULL;
		ck_assert_msg(sscanf(strstr(line, "data "),
				     "data %llu of %llu bytes", &d, &dt) == 2,
			      "%s", line);
		ck_assert_msg(dt == 3u << 20, "data total %llu: %s", dt, line);
	}
	ck_assert_msg(lines > 0, "no progress (the copy went synchronous?): %s",
		      r.err);
	ck_assert_msg(full == 1, "100%% reported %d times", full);
	run_free(&r);
	expect_backing("cli-prog-dst", data, 256u << 20);
	free(data);
}
END_TEST

/*
 * cp --clone on the harness's ext4 export: NFS4ERR_NOTSUPP, exit 1, and
 * no destination touched (issue #28 item 1): a new one is not created
 * (it was left behind empty), nothing is left beside it.
 */
START_TEST(cp_clone_notsupp)
{
	char want[256];
	struct run r;
	int before;

	e2e_put_backing("cli-cl-src", "to be cloned\n", 13);
	before = dir_entries(e2e_backing(""));
	ck_assert_int_eq(access(e2e_backing("cli-cl-dst"), F_OK), -1);
	r = CLI("cp", "--clone", e2e_path("cli-cl-src"),
		e2e_path("cli-cl-dst"));
	ck_assert_int_eq(r.status, 1);
	snprintf(want, sizeof(want), "nfs42: %s -> %s: NFS4ERR_NOTSUPP\n",
		 e2e_path("cli-cl-src"), e2e_path("cli-cl-dst"));
	ck_assert_str_eq(r.err, want);
	ck_assert_str_eq(r.out, "");
	run_free(&r);
	ck_assert_int_eq(access(e2e_backing("cli-cl-dst"), F_OK), -1);
	ck_assert_int_eq(dir_entries(e2e_backing("")), before);
	expect_backing("cli-cl-src", "to be cloned\n", 13);
}
END_TEST

/* ... and an existing destination keeps its bytes (it was truncated to
 * 0), with nothing left beside it */
START_TEST(cp_clone_notsupp_keeps_dst)
{
	int before;

	e2e_put_backing("cli-cl-src2", "to be cloned\n", 13);
	e2e_put_backing("cli-cl-old", "precious\n", 9);
	expect_backing("cli-cl-old", "precious\n", 9);
	before = dir_entries(e2e_backing(""));
	CLI_EXPECT(1, "NFS4ERR_NOTSUPP", "cp", "--clone",
		   e2e_path("cli-cl-src2"), e2e_path("cli-cl-old"));
	expect_backing("cli-cl-old", "precious\n", 9);
	ck_assert_int_eq(dir_entries(e2e_backing("")), before);
	expect_backing("cli-cl-src2", "to be cloned\n", 13);
}
END_TEST

/*
 * cp (server COPY) of files with the same three 4 KiB runs of data takes
 * as many round trips at 64 MiB, 1 GiB and 16 TiB - 4 KiB: COPY per data
 * extent found with SEEK, holes left holes (issue #28 item 2).
 */
START_TEST(cp_cost_follows_data)
{
	static const uint64_t sizes[] = { 64ull << 20, 1ull << 30,
					  (16ull << 40) - 4096 };
	unsigned long trips[3];
	char name[32];
	struct run r;
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "cli-cp-runs-%zu", i);
		make_three_runs(name, sizes[i]);
		r = CLI("cp", "--stats", e2e_path(name),
			e2e_path("cli-cp-runs-dst"));
		ck_assert_msg(r.status == 0, "cp: %s", r.err);
		ck_assert_msg(strstr(r.err, "path=copy calls=3 "), "%s", r.err);
		trips[i] = round_trips(r.err, "cp");
		run_free(&r);
		same_sparse(e2e_backing(name), e2e_backing("cli-cp-runs-dst"));
		ck_assert_int_le(backing_alloc("cli-cp-runs-dst"),
				 3 * 4096 + 65536);
		unlink(e2e_backing(name));
		ck_assert_msg(trips[i] == trips[0],
			      "cp: %lu round trips at %llu bytes, %lu at %llu",
			      trips[i], (unsigned long long)sizes[i], trips[0],
			      (unsigned long long)sizes[0]);
	}
}
END_TEST

/*
 * cp into a directory copies to DIR/SRC's name, as cp(1) (issue #28 item
 * 5: it opened the directory, NFS4ERR_ROFS at the export's root); into
 * the source's own directory that is the source itself.
 */
START_TEST(cp_into_directory)
{
	ck_assert_int_eq(mkdir(e2e_backing("cli-cp-into"), 0755), 0);
	e2e_put_backing("cli-cp-one", "one\n", 4);
	CLI_EXPECT(0, NULL, "cp", e2e_path("cli-cp-one"),
		   e2e_path("cli-cp-into"));
	expect_backing("cli-cp-into/cli-cp-one", "one\n", 4);
	CLI_EXPECT(0, NULL, "cp", "--async", e2e_path("cli-cp-one"),
		   e2e_path("cli-cp-into/"));
	expect_backing("cli-cp-into/cli-cp-one", "one\n", 4);
	CLI_EXPECT(1, "are the same file", "cp", e2e_path("cli-cp-one"),
		   e2e_path(""));
	expect_backing("cli-cp-one", "one\n", 4);
}
END_TEST

/*
 * cp --async of a file that is all hole: no "0.0 MiB/s" (issue #28 item
 * 5), it says there was no data; the copy has the size and no data.
 */
START_TEST(cp_async_all_holes)
{
	struct run r;
	int fd = open(e2e_backing("cli-cp-holes"), O_WRONLY | O_CREAT, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 1 << 30), 0);
	close(fd);
	r = CLI("cp", "--async", e2e_path("cli-cp-holes"),
		e2e_path("cli-cp-holes2"));
	ck_assert_msg(r.status == 0, "%s", r.err);
	ck_assert_msg(!strstr(r.err, "MiB/s") &&
			      strstr(r.err, "all holes, no data to copy"),
		      "%s", r.err);
	run_free(&r);
	same_sparse(e2e_backing("cli-cp-holes"), e2e_backing("cli-cp-holes2"));
	ck_assert_int_eq(backing_alloc("cli-cp-holes2"), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_cli_copy");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, cp_verb);
	tcase_add_test(tc, cp_clone_notsupp);
	tcase_add_test(tc, cp_clone_notsupp_keeps_dst);
	tcase_add_test(tc, cp_async_progress);
	tcase_add_test(tc, cp_cost_follows_data);
	tcase_add_test(tc, cp_into_directory);
	tcase_add_test(tc, cp_async_all_holes);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
