/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Unit tests of FSAL_SPARSE's data/hole map (sparse_map.c): synthetic
 * layouts through a fake seeker, and real sparse files in a temporary
 * directory (TMPDIR or /tmp) walked with SEEK_DATA/SEEK_HOLE.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "check_sparse_map.h"

/* ---- a fake file: sorted, non-overlapping data runs --------------------- */

struct fake_run {
	uint64_t off, len;
};

struct fake_file {
	uint64_t size;
	const struct fake_run *runs;
	size_t nruns;
	unsigned int seeks;
};

static int64_t fake_seek(void *ctx, uint64_t off, int whence)
{
	struct fake_file *f = ctx;
	size_t i;

	f->seeks++;
	if (off >= f->size)
		return -ENXIO;
	for (i = 0; i < f->nruns; i++) {
		uint64_t end = f->runs[i].off + f->runs[i].len;

		if (end <= off)
			continue;
		if (whence == SEEK_DATA)
			return f->runs[i].off > off ? f->runs[i].off : off;
		/* SEEK_HOLE */
		if (f->runs[i].off > off)
			return off;
		while (i + 1 < f->nruns && f->runs[i + 1].off == end) {
			i++;
			end = f->runs[i].off + f->runs[i].len;
		}
		return end < f->size ? end : f->size;
	}
	return whence == SEEK_DATA ? -ENXIO : (int64_t)off;
}

static void walk_fake(struct fake_file *f, uint64_t start, uint64_t len,
		      struct sparse_map *map)
{
	struct sparse_seeker s = { .seek = fake_seek, .ctx = f };

	sparse_map_init(map);
	ck_assert_int_eq(sparse_map_walk(&s, f->size, start, len, map), 0);
}

void expect_map(const struct sparse_map *map, const struct want *w, size_t n)
{
	size_t i;

	ck_assert_uint_eq(map->count, n);
	for (i = 0; i < n; i++) {
		ck_assert_msg(
			map->ext[i].offset == w[i].off &&
				map->ext[i].length == w[i].len &&
				map->ext[i].hole == w[i].hole,
			"extent %zu: got (%llu,%llu,%s) want (%llu,%llu,%s)", i,
			(unsigned long long)map->ext[i].offset,
			(unsigned long long)map->ext[i].length,
			map->ext[i].hole ? "hole" : "data",
			(unsigned long long)w[i].off,
			(unsigned long long)w[i].len,
			w[i].hole ? "hole" : "data");
	}
}

/* ---- pure inputs -------------------------------------------------------- */

START_TEST(all_data)
{
	static const struct fake_run runs[] = { { 0, 64 * K } };
	struct fake_file f = { 64 * K, runs, 1, 0 };
	static const struct want w[] = { { 0, 64 * K, false } };
	struct sparse_map map;

	walk_fake(&f, 0, 64 * K, &map);
	expect_map(&map, w, 1);
	ck_assert(map.eof);
	ck_assert_uint_eq(sparse_map_hole_bytes(&map), 0);
	sparse_map_free(&map);
}
END_TEST

START_TEST(all_hole)
{
	struct fake_file f = { 1 * M, NULL, 0, 0 };
	static const struct want w[] = { { 0, 1 * M, true } };
	struct sparse_map map;

	walk_fake(&f, 0, 2 * M, &map);
	expect_map(&map, w, 1);
	ck_assert(map.eof);
	ck_assert_uint_eq(map.end, 1 * M);
	ck_assert_uint_eq(sparse_map_hole_bytes(&map), 1 * M);
	sparse_map_free(&map);
}
END_TEST

START_TEST(mixed_4k_to_32k)
{
	static const struct fake_run runs[] = { { 0, 4 * K },
						{ 12 * K, 32 * K },
						{ 76 * K, 4 * K } };
	struct fake_file f = { 80 * K, runs, 3, 0 };
	static const struct want w[] = {
		{ 0, 4 * K, false },	   { 4 * K, 8 * K, true },
		{ 12 * K, 32 * K, false }, { 44 * K, 32 * K, true },
		{ 76 * K, 4 * K, false },
	};
	struct sparse_map map;

	walk_fake(&f, 0, 80 * K, &map);
	expect_map(&map, w, 5);
	ck_assert(map.eof);
	ck_assert_uint_eq(sparse_map_hole_bytes(&map), 40 * K);
	sparse_map_free(&map);
}
END_TEST

/*
 * Holes of any size are reported as they are: folding short ones into
 * data is the protocol layer's policy (READ_PLUS_Min_Hole,
 * rp_layout_fold), not the map's.
 */
START_TEST(tiny_holes_kept)
{
	/* data 0-4K, 2K hole, data 6K-10K, 1K hole, data 11K-16K */
	static const struct fake_run runs[] = { { 0, 4 * K },
						{ 6 * K, 4 * K },
						{ 11 * K, 5 * K } };
	struct fake_file f = { 16 * K, runs, 3, 0 };
	static const struct want kept[] = {
		{ 0, 4 * K, false },	  { 4 * K, 2 * K, true },
		{ 6 * K, 4 * K, false },  { 10 * K, 1 * K, true },
		{ 11 * K, 5 * K, false },
	};
	struct sparse_map map;

	walk_fake(&f, 0, 16 * K, &map);
	expect_map(&map, kept, 5);
	sparse_map_free(&map);
}
END_TEST

START_TEST(start_mid_data)
{
	static const struct fake_run runs[] = { { 0, 8 * K },
						{ 40 * K, 8 * K } };
	struct fake_file f = { 48 * K, runs, 2, 0 };
	static const struct want w[] = {
		{ 2 * K, 6 * K, false },
		{ 8 * K, 32 * K, true },
		{ 40 * K, 3 * K, false },
	};
	struct sparse_map map;

	walk_fake(&f, 2 * K, 41 * K, &map);
	expect_map(&map, w, 3);
	ck_assert(!map.eof);
	ck_assert_uint_eq(map.end, 43 * K);
	sparse_map_free(&map);
}
END_TEST

START_TEST(start_mid_big_hole_kept)
{
	/* Only 2K of a 32K hole are inside the range: still a hole. */
	static const struct fake_run runs[] = { { 0, 4 * K },
						{ 36 * K, 8 * K } };
	struct fake_file f = { 44 * K, runs, 2, 0 };
	static const struct want w[] = { { 34 * K, 2 * K, true },
					 { 36 * K, 4 * K, false } };
	struct sparse_map map;

	walk_fake(&f, 34 * K, 6 * K, &map);
	expect_map(&map, w, 2);
	sparse_map_free(&map);
}
END_TEST

START_TEST(end_mid_big_hole_kept)
{
	static const struct fake_run runs[] = { { 0, 4 * K },
						{ 36 * K, 8 * K } };
	struct fake_file f = { 44 * K, runs, 2, 0 };
	static const struct want w[] = { { 0, 4 * K, false },
					 { 4 * K, 2 * K, true } };
	struct sparse_map map;

	walk_fake(&f, 0, 6 * K, &map);
	expect_map(&map, w, 2);
	ck_assert(!map.eof);
	sparse_map_free(&map);
}
END_TEST

START_TEST(start_mid_small_hole_kept)
{
	/* 3K hole, range starts 1K into it: the 2K inside are a hole */
	static const struct fake_run runs[] = { { 0, 4 * K },
						{ 7 * K, 9 * K } };
	struct fake_file f = { 16 * K, runs, 2, 0 };
	static const struct want w[] = { { 5 * K, 2 * K, true },
					 { 7 * K, 9 * K, false } };
	struct sparse_map map;

	walk_fake(&f, 5 * K, 11 * K, &map);
	expect_map(&map, w, 2);
	ck_assert(map.eof);
	sparse_map_free(&map);
}
END_TEST

START_TEST(beyond_eof)
{
	static const struct fake_run runs[] = { { 0, 4 * K } };
	struct fake_file f = { 10 * K, runs, 1, 0 };
	static const struct want w[] = { { 8 * K, 2 * K, true } };
	struct sparse_map map;

	walk_fake(&f, 10 * K, 4 * K, &map);
	ck_assert_uint_eq(map.count, 0);
	ck_assert(map.eof);
	sparse_map_free(&map);

	walk_fake(&f, 1 * M, 4 * K, &map);
	ck_assert_uint_eq(map.count, 0);
	ck_assert(map.eof);
	sparse_map_free(&map);

	/* crossing EOF: clipped there */
	walk_fake(&f, 8 * K, 1 * M, &map);
	expect_map(&map, w, 1);
	ck_assert(map.eof);
	ck_assert_uint_eq(map.end, 10 * K);
	sparse_map_free(&map);

	/* zero length inside the file: empty, not eof */
	walk_fake(&f, 0, 0, &map);
	ck_assert_uint_eq(map.count, 0);
	ck_assert(!map.eof);
	sparse_map_free(&map);

	/* huge length must not overflow */
	walk_fake(&f, 4 * K, UINT64_MAX, &map);
	ck_assert_uint_eq(map.end, 10 * K);
	sparse_map_free(&map);
}
END_TEST

START_TEST(small_trailing_hole_kept)
{
	static const struct fake_run runs[] = { { 0, 4 * K } };
	struct fake_file f = { 5 * K, runs, 1, 0 };
	static const struct want w[] = { { 0, 4 * K, false },
					 { 4 * K, 1 * K, true } };
	struct sparse_map map;

	walk_fake(&f, 0, 5 * K, &map);
	expect_map(&map, w, 2);
	sparse_map_free(&map);
}
END_TEST

START_TEST(append_rules)
{
	struct sparse_map map;

	sparse_map_init(&map);
	ck_assert_int_eq(sparse_map_append(&map, 0, 10, false), 0);
	ck_assert_int_eq(sparse_map_append(&map, 10, 5, false), 0);
	ck_assert_uint_eq(map.count, 1);
	ck_assert_uint_eq(map.ext[0].length, 15);
	ck_assert_int_eq(sparse_map_append(&map, 20, 5, true), -EINVAL);
	ck_assert_int_eq(sparse_map_append(&map, 15, 0, true), 0);
	ck_assert_uint_eq(map.count, 1);
	ck_assert_int_eq(sparse_map_append(&map, 15, 100, true), 0);
	ck_assert_int_eq(sparse_map_append(&map, 115, 20, true), 0);
	ck_assert_uint_eq(map.count, 2);
	ck_assert(map.ext[1].hole);
	ck_assert_uint_eq(map.ext[1].length, 120);
	sparse_map_free(&map);
}
END_TEST

/* data 0-4K, hole 4K-64K, data 64K-68K */
static void three_extents(struct sparse_map *map)
{
	sparse_map_init(map);
	ck_assert_int_eq(sparse_map_append(map, 0, 4 * K, false), 0);
	ck_assert_int_eq(sparse_map_append(map, 4 * K, 60 * K, true), 0);
	ck_assert_int_eq(sparse_map_append(map, 64 * K, 4 * K, false), 0);
	map->end = 68 * K;
}

START_TEST(clip_rules)
{
	static const struct want in_hole[] = { { 0, 4 * K, false },
					       { 4 * K, 6 * K, true } };
	static const struct want at_edge[] = { { 0, 4 * K, false } };
	struct sparse_map map;

	three_extents(&map);
	sparse_map_clip(&map, 1 * M); /* past the end: no change */
	ck_assert_uint_eq(map.count, 3);
	ck_assert_uint_eq(map.end, 68 * K);
	sparse_map_clip(&map, 10 * K);
	expect_map(&map, in_hole, 2);
	ck_assert_uint_eq(map.end, 10 * K);
	sparse_map_clip(&map, 4 * K);
	expect_map(&map, at_edge, 1);
	sparse_map_free(&map);

	three_extents(&map);
	sparse_map_clip(&map, 0);
	ck_assert_uint_eq(map.count, 0);
	ck_assert_uint_eq(map.end, 0);
	sparse_map_free(&map);
}
END_TEST

/*
 * An extent wholly past end is dropped even when the extents before it do
 * not reach it (a gap: sparse_map_append never makes one, so the map is
 * built by hand); cutting it would compute end - offset < 0.
 */
START_TEST(clip_drops_extent_past_end_after_gap)
{
	static const struct want kept[] = { { 0, 2 * K, false } };
	struct sparse_map map;

	sparse_map_init(&map);
	ck_assert_int_eq(sparse_map_append(&map, 0, 2 * K, false), 0);
	ck_assert_int_eq(sparse_map_append(&map, 2 * K, 6 * K, true), 0);
	map.ext[1].offset = 8 * K; /* [2K, 8K) now missing */
	map.end = 16 * K;
	sparse_map_clip(&map, 4 * K);
	expect_map(&map, kept, 1);
	ck_assert_uint_eq(map.end, 4 * K);
	sparse_map_free(&map);
}
END_TEST

static int64_t broken_seek(void *ctx, uint64_t off, int whence)
{
	return -EIO;
}

START_TEST(seek_error_propagates)
{
	struct sparse_seeker s = { .seek = broken_seek };
	struct sparse_map map;

	sparse_map_init(&map);
	ck_assert_int_eq(sparse_map_walk(&s, 100, 0, 100, &map), -EIO);
	ck_assert_uint_eq(map.count, 0);
	sparse_map_free(&map);
}
END_TEST

/* ---- real sparse files -------------------------------------------------- */

static const char *temp_dir(void)
{
	return getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
}

/* An unlinked temporary file, or -1 with errno. */
static int open_temp_file(void)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/check_sparse_map.XXXXXX", temp_dir());
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static int make_temp_file(void)
{
	int fd = open_temp_file();

	ck_assert_int_ge(fd, 0);
	return fd;
}

static void write_at(int fd, uint64_t off, uint64_t len)
{
	char buf[4096];
	uint64_t done = 0;

	memset(buf, 0xab, sizeof(buf));
	while (done < len) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);

		ck_assert_int_eq(pwrite(fd, buf, n, off + done), (ssize_t)n);
		done += n;
	}
}

START_TEST(real_mixed_file)
{
	int fd = make_temp_file();
	static const struct want w[] = {
		{ 0, 4 * K, false },
		{ 4 * K, 60 * K, true },
		{ 64 * K, 4 * K, false },
		{ 68 * K, 1 * M - 68 * K, true },
		{ 1 * M, 8 * K, false },
		{ 1 * M + 8 * K, 1 * M - 8 * K, true },
	};
	struct sparse_map map;

	write_at(fd, 0, 4 * K);
	write_at(fd, 64 * K, 4 * K);
	write_at(fd, 1 * M, 8 * K);
	ck_assert_int_eq(ftruncate(fd, 2 * M), 0);
	ck_assert_int_eq(fsync(fd), 0);

	sparse_map_init(&map);
	ck_assert_int_eq(sparse_map_build_fd(fd, 0, 2 * M, &map), 0);
	expect_map(&map, w, 6);
	ck_assert(map.eof);

	/* a window starting inside the second hole */
	ck_assert_int_eq(sparse_map_build_fd(fd, 100 * K, 1 * M, &map), 0);
	ck_assert_uint_eq(map.count, 3);
	ck_assert(map.ext[0].hole);
	ck_assert_uint_eq(map.ext[0].offset, 100 * K);
	ck_assert_uint_eq(map.ext[1].offset, 1 * M);
	ck_assert(!map.eof);

	/* from EOF: nothing */
	ck_assert_int_eq(sparse_map_build_fd(fd, 2 * M, 4 * K, &map), 0);
	ck_assert_uint_eq(map.count, 0);
	ck_assert(map.eof);
	sparse_map_free(&map);
	close(fd);
}
END_TEST

START_TEST(real_punched_hole)
{
	int fd = make_temp_file();
	static const struct want w[] = { { 0, 64 * K, false },
					 { 64 * K, 64 * K, true },
					 { 128 * K, 128 * K, false } };
	struct sparse_map map;

	write_at(fd, 0, 256 * K);
	ck_assert_int_eq(fsync(fd), 0);
	ck_assert_int_eq(fallocate(fd,
				   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				   64 * K, 64 * K),
			 0);

	sparse_map_init(&map);
	ck_assert_int_eq(sparse_map_build_fd(fd, 0, 256 * K, &map), 0);
	expect_map(&map, w, 3);
	ck_assert_uint_eq(sparse_map_hole_bytes(&map), 64 * K);
	sparse_map_free(&map);
	close(fd);
}
END_TEST

START_TEST(real_all_hole_and_empty)
{
	int fd = make_temp_file();
	static const struct want w[] = { { 0, 1 * M, true } };
	struct sparse_map map;

	sparse_map_init(&map);
	ck_assert_int_eq(sparse_map_build_fd(fd, 0, 4 * K, &map), 0);
	ck_assert_uint_eq(map.count, 0); /* empty file */
	ck_assert(map.eof);

	ck_assert_int_eq(ftruncate(fd, 1 * M), 0);
	ck_assert_int_eq(sparse_map_build_fd(fd, 0, 1 * M, &map), 0);
	expect_map(&map, w, 1);
	ck_assert(map.eof);
	sparse_map_free(&map);
	close(fd);
}
END_TEST

/* One block of hole between data: a hole, whatever its size. */
START_TEST(real_small_hole_kept)
{
	int fd = make_temp_file();
	static const struct want kept[] = { { 0, 4 * K, false },
					    { 4 * K, 4 * K, true },
					    { 8 * K, 4 * K, false } };
	struct sparse_map map;

	write_at(fd, 0, 4 * K);
	write_at(fd, 8 * K, 4 * K);
	ck_assert_int_eq(fsync(fd), 0);
	sparse_map_init(&map);
	ck_assert_int_eq(sparse_map_build_fd(fd, 0, 12 * K, &map), 0);
	expect_map(&map, kept, 3);
	sparse_map_free(&map);
	close(fd);
}
END_TEST

START_TEST(real_not_regular)
{
	int fd = open(temp_dir(), O_RDONLY | O_DIRECTORY);
	struct sparse_map map;

	ck_assert_int_ge(fd, 0);
	sparse_map_init(&map);
	ck_assert_int_eq(sparse_map_build_fd(fd, 0, 10, &map), -EINVAL);
	close(fd);
}
END_TEST

/*
 * The real-file cases need a TMPDIR that reports holes (SEEK_HOLE) and can
 * punch them.  Returns 0 when it can, 77 (ctest's skip code) with the
 * reason printed when it cannot, 1 when no file can be made there at all.
 */
static int real_files_supported(void)
{
	char buf[4096] = { 1 };
	bool holes, punch;
	int fd = open_temp_file();

	if (fd < 0) {
		printf("check_sparse_map: cannot create a file in %s: %s\n",
		       temp_dir(), strerror(errno));
		return 1;
	}
	holes = pwrite(fd, buf, sizeof(buf), 0) == sizeof(buf) &&
		ftruncate(fd, 64 * K) == 0 && fsync(fd) == 0 &&
		lseek(fd, 0, SEEK_HOLE) == sizeof(buf);
	punch = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			  sizeof(buf)) == 0;
	close(fd);
	if (holes && punch)
		return 0;
	printf("check_sparse_map real: SKIPPED: the filesystem of %s %s\n",
	       temp_dir(),
	       holes ? "cannot punch holes (FALLOC_FL_PUNCH_HOLE)" :
		       "reports no holes (SEEK_HOLE)");
	return 77;
}

static Suite *sparse_map_suite(void)
{
	Suite *s = suite_create("sparse_map");
	TCase *pure = tcase_create("pure");

	tcase_add_test(pure, all_data);
	tcase_add_test(pure, all_hole);
	tcase_add_test(pure, mixed_4k_to_32k);
	tcase_add_test(pure, tiny_holes_kept);
	tcase_add_test(pure, start_mid_data);
	tcase_add_test(pure, start_mid_big_hole_kept);
	tcase_add_test(pure, end_mid_big_hole_kept);
	tcase_add_test(pure, start_mid_small_hole_kept);
	tcase_add_test(pure, beyond_eof);
	tcase_add_test(pure, small_trailing_hole_kept);
	tcase_add_test(pure, append_rules);
	tcase_add_test(pure, clip_rules);
	tcase_add_test(pure, clip_drops_extent_past_end_after_gap);
	tcase_add_test(pure, seek_error_propagates);
	tcase_add_test(pure, real_not_regular);
	suite_add_tcase(s, pure);
	return s;
}

static Suite *sparse_map_real_suite(void)
{
	Suite *s = suite_create("sparse_map_real_files");
	TCase *real = tcase_create("real_files");

	tcase_add_test(real, real_mixed_file);
	tcase_add_test(real, real_punched_hole);
	tcase_add_test(real, real_all_hole_and_empty);
	tcase_add_test(real, real_small_hole_kept);
	suite_add_tcase(s, real);
	return s;
}

/*
 * "check_sparse_map" runs the pure suites, "check_sparse_map real" the
 * real-file cases, which depend on the filesystem of TMPDIR.
 */
int main(int argc, char **argv)
{
	bool real = argc > 1 && strcmp(argv[1], "real") == 0;
	SRunner *sr;
	int failed;

	if (real) {
		failed = real_files_supported();
		if (failed != 0)
			return failed;
		sr = srunner_create(sparse_map_real_suite());
	} else {
		sr = srunner_create(sparse_map_suite());
		srunner_add_suite(sr, sparse_map_race_suite());
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
