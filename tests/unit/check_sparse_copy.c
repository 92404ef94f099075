/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Unit tests of FSAL_SPARSE's copy engine (sparse_copy.c) on real files in
 * a temporary directory (TMPDIR or /tmp), with system calls failed
 * through the engine's ops table.
 *
 *   check_sparse_copy             the engine on TMPDIR's filesystem
 *   check_sparse_copy xfs         the clone path on a reflink XFS image
 *                                 mounted on a loop device (root; else 77)
 *   check_sparse_copy bench SRC DST auto|copy_range|rw
 *                                 copy SRC to DST in 64 MiB chunks, timed
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* SEEK_HOLE, unshare */
#endif

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include "sparse_copy.h"

#define K 1024ULL
#define M (1024 * K)

/* ---- files ----------------------------------------------------------- */

static char work_dir[4096]; /* where the test files go */

static const char *temp_dir(void)
{
	return getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
}

/* A new empty file in work_dir, unlinked, open read/write. */
static int new_file(void)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/copy.XXXXXX", work_dir);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	return fd;
}

/* The byte of a test pattern at off: differs per seed, never all zero. */
static unsigned char pattern(uint64_t off, unsigned int seed)
{
	uint64_t x = (off + 1) * 0x9e3779b97f4a7c15ULL ^ seed;

	return (x >> 29) | 1;
}

static void fill(int fd, uint64_t off, uint64_t len, unsigned int seed)
{
	static unsigned char buf[256 * K];
	uint64_t done = 0, i, n;

	while (done < len) {
		n = len - done < sizeof(buf) ? len - done : sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = pattern(off + done + i, seed);
		ck_assert_int_eq(pwrite(fd, buf, n, off + done), (ssize_t)n);
		done += n;
	}
}

static int patterned_file(uint64_t size, unsigned int seed)
{
	int fd = new_file();

	fill(fd, 0, size, seed);
	return fd;
}

static uint64_t file_size(int fd)
{
	struct stat st;

	ck_assert_int_eq(fstat(fd, &st), 0);
	return st.st_size;
}

static uint64_t file_bytes_used(int fd)
{
	struct stat st;

	ck_assert_int_eq(fstat(fd, &st), 0);
	return st.st_blocks * 512ULL;
}

/* [a_off, +len) of a equals [b_off, +len) of b (both must be readable). */
static void expect_same(int a, uint64_t a_off, int b, uint64_t b_off,
			uint64_t len)
{
	static char x[256 * K], y[256 * K];
	uint64_t done = 0, n;

	while (done < len) {
		n = len - done < sizeof(x) ? len - done : sizeof(x);
		ck_assert_int_eq(pread(a, x, n, a_off + done), (ssize_t)n);
		ck_assert_int_eq(pread(b, y, n, b_off + done), (ssize_t)n);
		ck_assert_msg(memcmp(x, y, n) == 0,
			      "differ in [%llu, +%llu) of the copy",
			      (unsigned long long)done, (unsigned long long)n);
		done += n;
	}
}

static void expect_identical(int a, int b)
{
	ck_assert_uint_eq(file_size(a), file_size(b));
	expect_same(a, 0, b, 0, file_size(a));
}

/* ---- a 64 MiB sparse file ---------------------------------------------- */

struct island {
	uint64_t off, len;
};

static const struct island islands[] = {
	{ 0, 64 * K }, { 5 * M, 300 * K },  { 20 * M + 4 * K, M },
	{ 40 * M, 1 }, { 41 * M - 10, 20 }, { 50 * M, 512 * K },
};

#define SPARSE_SIZE (64 * M) /* past the last island: a trailing hole */

static uint64_t island_bytes(void)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < sizeof(islands) / sizeof(islands[0]); i++)
		total += islands[i].len;
	return total;
}

static int sparse_file(void)
{
	int fd = new_file();
	size_t i;

	for (i = 0; i < sizeof(islands) / sizeof(islands[0]); i++)
		fill(fd, islands[i].off, islands[i].len, 7);
	ck_assert_int_eq(ftruncate(fd, SPARSE_SIZE), 0);
	return fd;
}

/* Does work_dir's filesystem keep and report holes? */
static bool holes_reported(void)
{
	int fd = new_file();
	bool ok;

	fill(fd, 0, 4 * K, 1);
	ok = ftruncate(fd, M) == 0 && fsync(fd) == 0 &&
	     lseek(fd, 0, SEEK_HOLE) == 4 * K;
	close(fd);
	return ok;
}

/* ---- injected system calls --------------------------------------------- */

struct fake {
	int clone_err; /* clone fails with this errno (0: real call) */
	bool clone_copies; /* clone "succeeds" by copying (no reflink here) */
	int copy_range_err; /* copy_file_range fails with this errno */
	int pwrite_err; /* pwrite fails with this errno ... */
	unsigned int pwrite_ok_calls; /* ... after this many good calls */
	int copy_range_late_err; /* copy_file_range fails with this ... */
	unsigned int copy_range_ok_calls; /* ... after this many good calls */
	bool short_pwrite; /* every pwrite writes half of what it is given */
	bool short_copy_range; /* every copy_file_range moves half */
	size_t copy_range_limit; /* ... or at most this much (0: no limit) */
	int punch_err; /* punch fails with this errno */
	int seek_err; /* SEEK_DATA/SEEK_HOLE fail with this errno */
	unsigned int calls[6]; /* clone, copy_range, pread, pwrite, seek, punch */
	size_t copy_range_max; /* the largest len copy_file_range was asked */
};

static int fake_clone(void *ctx, int src_fd, uint64_t src_off, int dst_fd,
		      uint64_t dst_off, uint64_t len)
{
	struct fake *f = ctx;
	ssize_t n;

	f->calls[0]++;
	if (f->clone_err)
		return -f->clone_err;
	if (!f->clone_copies)
		return sparse_copy_sys_ops.clone(NULL, src_fd, src_off, dst_fd,
						 dst_off, len);
	for (; len > 0; len -= n, src_off += n, dst_off += n) {
		n = sparse_copy_sys_ops.copy_range(NULL, src_fd, src_off,
						   dst_fd, dst_off, len);
		if (n <= 0)
			return n < 0 ? n : -EIO;
	}
	return 0;
}

static ssize_t fake_copy_range(void *ctx, int src_fd, uint64_t src_off,
			       int dst_fd, uint64_t dst_off, size_t len)
{
	struct fake *f = ctx;

	if (f->copy_range_err)
		return -f->copy_range_err;
	if (f->copy_range_late_err && f->calls[1] >= f->copy_range_ok_calls)
		return -f->copy_range_late_err;
	f->calls[1]++;
	if (len > f->copy_range_max)
		f->copy_range_max = len;
	if (f->short_copy_range && len > 1)
		len /= 2;
	if (f->copy_range_limit && len > f->copy_range_limit)
		len = f->copy_range_limit;
	return sparse_copy_sys_ops.copy_range(NULL, src_fd, src_off, dst_fd,
					      dst_off, len);
}

static ssize_t fake_pread(void *ctx, int fd, void *buf, size_t len,
			  uint64_t off)
{
	struct fake *f = ctx;

	f->calls[2]++;
	return sparse_copy_sys_ops.pread(NULL, fd, buf, len, off);
}

static ssize_t fake_pwrite(void *ctx, int fd, const void *buf, size_t len,
			   uint64_t off)
{
	struct fake *f = ctx;

	if (f->pwrite_err && f->calls[3] >= f->pwrite_ok_calls)
		return -f->pwrite_err;
	f->calls[3]++;
	if (f->short_pwrite && len > 1)
		len /= 2;
	return sparse_copy_sys_ops.pwrite(NULL, fd, buf, len, off);
}

static int64_t fake_seek(void *ctx, int fd, uint64_t off, int whence)
{
	struct fake *f = ctx;

	f->calls[4]++;
	if (f->seek_err)
		return -f->seek_err;
	return sparse_copy_sys_ops.seek(NULL, fd, off, whence);
}

static int fake_punch(void *ctx, int fd, uint64_t off, uint64_t len)
{
	struct fake *f = ctx;

	f->calls[5]++;
	if (f->punch_err)
		return -f->punch_err;
	return sparse_copy_sys_ops.punch(NULL, fd, off, len);
}

static struct sparse_copy_ops fake_ops(struct fake *f)
{
	struct sparse_copy_ops ops = { fake_clone, fake_copy_range,
				       fake_pread, fake_pwrite,
				       fake_seek,  fake_punch,
				       f };

	return ops;
}

/* ---- copying ----------------------------------------------------------- */

static struct sparse_copy_opts opts_mode(enum sparse_copy_mode mode)
{
	struct sparse_copy_opts o = { .mode = mode };

	return o;
}

/*
 * Copy src to dst from off to its end (at the same offset in dst) in as
 * many calls as it takes; every call must make progress.  Returns the
 * calls made.
 */
static unsigned int copy_from(int src, int dst, uint64_t off,
			      const struct sparse_copy_opts *opts,
			      struct sparse_copy_result *res)
{
	unsigned int calls = 0;
	int64_t n;

	do {
		n = sparse_copy_range(src, off, dst, off, 0, opts, res);
		ck_assert_msg(n >= 0, "copy at %llu: %s",
			      (unsigned long long)off, strerror(-n));
		ck_assert_uint_eq(res->bytes, n);
		ck_assert_msg(n > 0 || res->eof, "no progress at %llu",
			      (unsigned long long)off);
		off += n;
		calls++;
	} while (!res->eof);
	ck_assert_uint_eq(off, file_size(src));
	return calls;
}

static unsigned int copy_all(int src, int dst,
			     const struct sparse_copy_opts *opts,
			     struct sparse_copy_result *res)
{
	return copy_from(src, dst, 0, opts, res);
}

/* ---- sizes ------------------------------------------------------------- */

static const uint64_t sizes[] = { 0, 1, 4 * M - 1, 4 * M, 4 * M + 1 };

START_TEST(copy_sizes)
{
	struct sparse_copy_result res;
	int src = patterned_file(sizes[_i], _i);
	int dst = new_file();

	ck_assert_uint_eq(copy_all(src, dst, NULL, &res), 1);
	expect_identical(src, dst);
	ck_assert_int_eq(res.error, 0);
	if (sizes[_i] == 0)
		ck_assert_int_eq(res.path, SPARSE_COPY_PATH_NONE);
	close(src);
	close(dst);
}
END_TEST

/* Every size again, forced through the pread/pwrite loop. */
START_TEST(copy_sizes_rw)
{
	struct fake f = { .copy_range_err = EXDEV };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .ops = &ops };
	struct sparse_copy_result res;
	int src = patterned_file(sizes[_i], _i);
	int dst = new_file();

	copy_all(src, dst, &o, &res);
	expect_identical(src, dst);
	if (sizes[_i] != 0) {
		ck_assert_int_eq(res.path, SPARSE_COPY_PATH_RW);
		ck_assert_int_eq(res.fallback, EXDEV);
	}
	close(src);
	close(dst);
}
END_TEST

/* ---- holes ------------------------------------------------------------- */

static void check_sparse_copy_with(const struct sparse_copy_opts *o,
				   enum sparse_copy_path path)
{
	struct sparse_copy_result res;
	int src = sparse_file();
	int dst = new_file();

	copy_all(src, dst, o, &res);
	expect_identical(src, dst);
	ck_assert_int_eq(res.path, path);
	if (holes_reported())
		ck_assert_msg(file_bytes_used(dst) < island_bytes() + 4 * M,
			      "holes filled: %llu bytes used for %llu of data",
			      (unsigned long long)file_bytes_used(dst),
			      (unsigned long long)island_bytes());
	close(src);
	close(dst);
}

START_TEST(sparse_holes_stay_copy_range)
{
	struct sparse_copy_opts o = opts_mode(SPARSE_COPY_COPY_ONLY);

	check_sparse_copy_with(&o, SPARSE_COPY_PATH_COPY_RANGE);
}
END_TEST

START_TEST(sparse_holes_stay_rw)
{
	struct fake f = { .copy_range_err = EOPNOTSUPP };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .ops = &ops };

	check_sparse_copy_with(&o, SPARSE_COPY_PATH_RW);
}
END_TEST

/* No SEEK_DATA there: the whole range is data, and still right. */
START_TEST(sparse_without_seek_data)
{
	struct fake f = { .seek_err = EINVAL };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .mode = SPARSE_COPY_COPY_ONLY,
				      .ops = &ops };
	struct sparse_copy_result res;
	int src = sparse_file();
	int dst = new_file();

	ck_assert_int_eq(sparse_copy_range(src, 0, dst, 0, 0, &o, &res),
			 SPARSE_SIZE);
	expect_identical(src, dst);
	ck_assert_uint_gt(f.calls[4], 0);

	f.seek_err = EIO; /* a real failure is an error */
	ck_assert_int_eq(sparse_copy_range(src, 0, dst, 0, 0, &o, &res), -EIO);
	close(src);
	close(dst);
}
END_TEST

/* ---- ranges ------------------------------------------------------------ */

START_TEST(count_zero_is_to_eof)
{
	struct sparse_copy_result res;
	int src = patterned_file(3 * M + 17, 3);
	int dst = new_file();
	int64_t n;

	n = sparse_copy_range(src, 1000, dst, 0, 0, NULL, &res);
	ck_assert_int_eq(n, 3 * M + 17 - 1000);
	ck_assert(res.eof);
	ck_assert_uint_eq(file_size(dst), n);
	expect_same(src, 1000, dst, 0, n);

	/* a count past EOF is cut there; an offset at EOF copies nothing */
	n = sparse_copy_range(src, 3 * M, dst, 0, 10 * M, NULL, &res);
	ck_assert_int_eq(n, 17);
	ck_assert(res.eof);
	n = sparse_copy_range(src, 3 * M + 17, dst, 0, 0, NULL, &res);
	ck_assert_int_eq(n, 0);
	ck_assert(res.eof);
	close(src);
	close(dst);
}
END_TEST

/* dst keeps its bytes around the range; before is a copy of dst. */
static void check_range_in_place(int src, uint64_t s_off, int dst,
				 uint64_t d_off, uint64_t len, int before)
{
	uint64_t size = file_size(before);

	expect_same(src, s_off, dst, d_off, len);
	expect_same(before, 0, dst, 0, d_off);
	if (d_off + len < size)
		expect_same(before, d_off + len, dst, d_off + len,
			    size - d_off - len);
	ck_assert_uint_eq(file_size(dst),
			  d_off + len > size ? d_off + len : size);
}

START_TEST(copy_into_existing_destination)
{
	struct sparse_copy_result res;
	int src = patterned_file(6 * M, 4);
	int dst = patterned_file(8 * M, 5);
	int before = patterned_file(8 * M, 5);
	int64_t n;

	n = sparse_copy_range(src, M + 3, dst, 2 * M + 5, 3 * M, NULL, &res);
	ck_assert_int_eq(n, 3 * M);
	ck_assert(!res.eof);
	check_range_in_place(src, M + 3, dst, 2 * M + 5, 3 * M, before);

	/* crossing the destination's EOF grows it */
	n = sparse_copy_range(src, 0, dst, 7 * M, 2 * M, NULL, &res);
	ck_assert_int_eq(n, 2 * M);
	ck_assert_uint_eq(file_size(dst), 9 * M);
	expect_same(src, 0, dst, 7 * M, 2 * M);
	close(src);
	close(dst);
	close(before);
}
END_TEST

/*
 * The source's holes over existing destination data: the destination must
 * read zeros there, by a punched hole or, where punching fails, by zeros.
 */
static void check_holes_over_data(int punch_err)
{
	struct fake f = { .punch_err = punch_err };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .mode = SPARSE_COPY_COPY_ONLY,
				      .ops = &ops };
	struct sparse_copy_result res;
	int src = sparse_file();
	int dst = patterned_file(30 * M, 6);
	int before = patterned_file(30 * M, 6);
	int64_t n;

	/* [4M, 24M) of the source: hole, island, hole, island, hole */
	n = sparse_copy_range(src, 4 * M, dst, 3 * M, 20 * M, &o, &res);
	ck_assert_int_eq(n, 20 * M);
	check_range_in_place(src, 4 * M, dst, 3 * M, 20 * M, before);
	ck_assert_uint_gt(f.calls[5], 0);
	ck_assert_int_eq(res.fallback, punch_err);
	close(src);
	close(dst);
	close(before);
}

START_TEST(holes_over_data_punched)
{
	check_holes_over_data(0);
}
END_TEST

START_TEST(holes_over_data_zeroed)
{
	check_holes_over_data(EOPNOTSUPP);
}
END_TEST

/* ---- one piece per call ----------------------------------------------- */

/*
 * At most opts->piece bytes per call (how many calls a COPY reply makes,
 * and for how long, is the protocol layer's: nfs42_copy_chunk()).
 */
START_TEST(piece_short_then_finish)
{
	struct sparse_copy_opts o = { .mode = SPARSE_COPY_COPY_ONLY,
				      .piece = 3 * M / 2 };
	struct sparse_copy_result res;
	int src = patterned_file(5 * M + 123, 8);
	int dst = new_file();
	int64_t n;

	n = sparse_copy_range(src, 0, dst, 0, 0, &o, &res);
	ck_assert_int_eq(n, 3 * M / 2);
	ck_assert(!res.eof);
	ck_assert_uint_eq(file_size(dst), 3 * M / 2);
	ck_assert_uint_eq(copy_from(src, dst, n, &o, &res), 3);
	expect_identical(src, dst);
	close(src);
	close(dst);
}
END_TEST

/*
 * copy_file_range gets a data extent's whole piece in one call, not 1 MiB
 * at a time (the pread/pwrite buffer's size): a filesystem copies inside
 * its storage only what it is asked for in one call (kernel CephFS: whole
 * 4 MiB objects, RADOS copy-from; smaller calls go through the client).
 * The pread/pwrite path still moves at most its buffer per call.
 */
START_TEST(piece_one_copy_range_call)
{
	struct fake f = { 0 };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .mode = SPARSE_COPY_COPY_ONLY,
				      .piece = 8 * M,
				      .ops = &ops };
	struct sparse_copy_result res;
	int src = patterned_file(12 * M, 8);
	int dst = new_file();

	ck_assert_int_eq(sparse_copy_range(src, 0, dst, 0, 0, &o, &res), 8 * M);
	ck_assert_uint_eq(f.copy_range_max, 8 * M);
	ck_assert_uint_eq(f.calls[1], 1);
	ck_assert_int_eq(sparse_copy_range(src, 8 * M, dst, 8 * M, 0, &o, &res),
			 4 * M);
	expect_identical(src, dst);

	/* copy_file_range refused: pread/pwrite, at most 1 MiB each */
	f = (struct fake){ .copy_range_err = EOPNOTSUPP };
	ck_assert_int_eq(ftruncate(dst, 0), 0);
	ck_assert_int_eq(sparse_copy_range(src, 0, dst, 0, 0, &o, &res), 8 * M);
	ck_assert_uint_eq(f.calls[2], 8);
	ck_assert_uint_eq(f.calls[3], 8);
	close(src);
	close(dst);
}
END_TEST

/* A piece that ends inside a hole still leaves the hole readable. */
START_TEST(piece_sparse)
{
	struct sparse_copy_opts o = { .piece = 7 * M };
	struct sparse_copy_result res;
	int src = sparse_file();
	int dst = new_file();
	int64_t n;

	n = sparse_copy_range(src, 0, dst, 0, 0, &o, &res);
	ck_assert_int_eq(n, 7 * M);
	ck_assert_uint_eq(file_size(dst), 7 * M);
	expect_same(src, 0, dst, 0, 7 * M);
	ck_assert_uint_eq(copy_from(src, dst, n, &o, &res), 9);
	expect_identical(src, dst);
	close(src);
	close(dst);
}
END_TEST

/* ---- paths and fallbacks ----------------------------------------------- */

START_TEST(copy_only_never_clones)
{
	struct fake f = { .clone_copies = true };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .mode = SPARSE_COPY_COPY_ONLY,
				      .ops = &ops };
	struct sparse_copy_result res;
	int src = patterned_file(4 * M, 10);
	int dst = new_file();

	copy_all(src, dst, &o, &res);
	expect_identical(src, dst);
	ck_assert_uint_eq(f.calls[0], 0);
	ck_assert_int_eq(res.path, SPARSE_COPY_PATH_COPY_RANGE);
	close(src);
	close(dst);
}
END_TEST

/* An aligned range is cloned whole, whatever the piece says. */
START_TEST(clone_whole_range_past_piece)
{
	struct fake f = { .clone_copies = true };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .piece = M, .ops = &ops };
	struct sparse_copy_result res;
	int src = patterned_file(6 * M + 5, 11);
	int dst = new_file();
	int64_t n;

	n = sparse_copy_range(src, 0, dst, 0, 0, &o, &res);
	ck_assert_int_eq(n, 6 * M + 5); /* runs to EOF: aligned at its end */
	ck_assert_int_eq(res.path, SPARSE_COPY_PATH_CLONE);
	ck_assert(res.eof);
	ck_assert_uint_eq(f.calls[0], 1);
	ck_assert_uint_eq(f.calls[1], 0);
	expect_identical(src, dst);
	close(src);
	close(dst);
}
END_TEST

/* Unaligned ranges never reach FICLONERANGE. */
START_TEST(clone_needs_alignment)
{
	struct fake f = { .clone_copies = true };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .ops = &ops };
	struct sparse_copy_result res;
	int src = patterned_file(4 * M + 100, 12);
	int dst = patterned_file(4 * M, 13);
	int64_t n;

	n = sparse_copy_range(src, 100, dst, 0, M, &o, &res); /* src_off */
	ck_assert_int_eq(n, M);
	n = sparse_copy_range(src, 0, dst, 100, M, &o, &res); /* dst_off */
	ck_assert_int_eq(n, M);
	n = sparse_copy_range(src, 0, dst, 0, M + 1, &o, &res); /* count */
	ck_assert_int_eq(n, M + 1);
	/* to the source's EOF but not the destination's: its last block
	 * would bring zeros over destination data */
	n = sparse_copy_range(src, 2 * M, dst, 0, 0, &o, &res);
	ck_assert_int_eq(n, 2 * M + 100);
	ck_assert_uint_eq(f.calls[0], 0);
	ck_assert_int_eq(res.path, SPARSE_COPY_PATH_COPY_RANGE);
	ck_assert_int_eq(res.fallback, EINVAL);

	o.mode = SPARSE_COPY_CLONE_ONLY;
	n = sparse_copy_range(src, 100, dst, 0, M, &o, &res);
	ck_assert_int_eq(n, -EINVAL);
	ck_assert_uint_eq(f.calls[0], 0);
	close(src);
	close(dst);
}
END_TEST

/* One clone attempt refused, then the next path; the data is right. */
static void check_fallback(struct fake *f, uint64_t size,
			   enum sparse_copy_path path, int why)
{
	struct sparse_copy_ops ops = fake_ops(f);
	struct sparse_copy_opts o = { .ops = &ops };
	struct sparse_copy_result res;
	int src = patterned_file(size, 14);
	int dst = new_file();

	copy_all(src, dst, &o, &res);
	expect_identical(src, dst);
	ck_assert_uint_eq(f->calls[0], 1);
	ck_assert_int_eq(res.path, path);
	ck_assert_int_eq(res.fallback, why);
	close(src);
	close(dst);
}

START_TEST(clone_refused_falls_back_to_copy_range)
{
	struct fake f = { .clone_err = EOPNOTSUPP };

	check_fallback(&f, 4 * M, SPARSE_COPY_PATH_COPY_RANGE, EOPNOTSUPP);
	ck_assert_uint_gt(f.calls[1], 0);
}
END_TEST

START_TEST(copy_range_refused_falls_back_to_rw)
{
	struct fake f = { .clone_err = EOPNOTSUPP, .copy_range_err = EXDEV };

	check_fallback(&f, 4 * M + 1, SPARSE_COPY_PATH_RW, EXDEV);
	ck_assert_uint_eq(f.calls[1], 0);
	ck_assert_uint_ge(f.calls[3], 5);
}
END_TEST

START_TEST(clone_only_does_not_fall_back)
{
	struct fake f = { .clone_err = EXDEV };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .mode = SPARSE_COPY_CLONE_ONLY,
				      .ops = &ops };
	struct sparse_copy_result res;
	int src = patterned_file(M, 15);
	int dst = new_file();

	ck_assert_int_eq(sparse_copy_range(src, 0, dst, 0, 0, &o, &res),
			 -EXDEV);
	ck_assert_uint_eq(f.calls[1] + f.calls[3], 0);
	ck_assert_uint_eq(file_size(dst), 0);
	close(src);
	close(dst);
}
END_TEST

/* ---- errors ------------------------------------------------------------ */

START_TEST(error_after_bytes_is_a_count)
{
	struct fake f = { .copy_range_err = EXDEV,
			  .pwrite_err = EIO,
			  .pwrite_ok_calls = 2 };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .mode = SPARSE_COPY_COPY_ONLY,
				      .ops = &ops };
	struct sparse_copy_result res;
	int src = patterned_file(5 * M, 17);
	int dst = new_file();
	int64_t n;

	n = sparse_copy_range(src, 0, dst, 0, 0, &o, &res);
	ck_assert_int_eq(n, 2 * M);
	ck_assert_int_eq(res.error, EIO);
	ck_assert(!res.eof);
	expect_same(src, 0, dst, 0, 2 * M);

	f.pwrite_ok_calls = 0; /* fails at once: nothing copied */
	n = sparse_copy_range(src, 2 * M, dst, 2 * M, 0, &o, &res);
	ck_assert_int_eq(n, -EIO);
	ck_assert_uint_eq(res.bytes, 0);
	close(src);
	close(dst);
}
END_TEST

START_TEST(copy_range_error_after_bytes_is_a_count)
{
	/* a filesystem that moves 1 MiB per call */
	struct fake f = { .copy_range_late_err = ENOSPC,
			  .copy_range_ok_calls = 3,
			  .copy_range_limit = M };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .mode = SPARSE_COPY_COPY_ONLY,
				      .ops = &ops };
	struct sparse_copy_result res;
	int src = patterned_file(5 * M, 18);
	int dst = new_file();

	ck_assert_int_eq(sparse_copy_range(src, 0, dst, 0, 0, &o, &res), 3 * M);
	ck_assert_int_eq(res.error, ENOSPC);
	ck_assert_int_eq(res.path, SPARSE_COPY_PATH_COPY_RANGE);
	expect_same(src, 0, dst, 0, 3 * M);

	/* one piece of 5 MiB asked for in one call, each call moving half
	 * of what it is asked: 2.5 MiB + 1.25 MiB + 640K, then the error */
	f.calls[1] = 0;
	f.copy_range_limit = 0;
	f.short_copy_range = true;
	ck_assert_int_eq(sparse_copy_range(src, 0, dst, 0, 0, &o, &res),
			 4480 * K);
	ck_assert_int_eq(res.error, ENOSPC);
	close(src);
	close(dst);
}
END_TEST

START_TEST(short_write_is_a_short_count)
{
	struct fake f = { .copy_range_err = ENOSYS, .short_pwrite = true };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .ops = &ops };
	struct sparse_copy_result res;
	int src = patterned_file(3 * M, 19);
	int dst = new_file();

	ck_assert_int_eq(sparse_copy_range(src, 0, dst, 0, 0, &o, &res), M / 2);
	ck_assert_uint_eq(file_size(dst), M / 2);
	expect_same(src, 0, dst, 0, M / 2);
	close(src);
	close(dst);
}
END_TEST

/* Descriptors the engine refuses, and a range past the largest offset. */
START_TEST(refused_descriptors)
{
	struct fake f = { .copy_range_err = EXDEV };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts rw = { .mode = SPARSE_COPY_COPY_ONLY,
				       .ops = &ops };
	struct sparse_copy_result res;
	int src = patterned_file(M, 20);
	int dst = new_file();
	int dir = open(work_dir, O_RDONLY | O_DIRECTORY);
	char path[4200];
	int app;

	ck_assert_int_eq(sparse_copy_range(dir, 0, dst, 0, 0, NULL, &res),
			 -EINVAL);
	ck_assert_int_eq(sparse_copy_range(src, 0, dir, 0, 0, NULL, &res),
			 -EINVAL);
	snprintf(path, sizeof(path), "%s/append", work_dir);
	app = open(path, O_CREAT | O_WRONLY | O_APPEND, 0600);
	ck_assert_int_ge(app, 0);
	unlink(path);
	/* pwrite would append there whatever the offset */
	ck_assert_int_eq(sparse_copy_range(src, 0, app, 0, 0, &rw, &res),
			 -EBADF);
	ck_assert_uint_eq(file_size(app), 0);
	ck_assert_int_eq(sparse_copy_range(src, 0, dst, INT64_MAX - 10, 0, NULL,
					   &res),
			 -EFBIG);
	close(app);
	close(dir);
	close(src);
	close(dst);
}
END_TEST

/* ---- one file ---------------------------------------------------------- */

START_TEST(same_file)
{
	struct sparse_copy_result res;
	int fd = patterned_file(8 * M, 21);
	int before = patterned_file(8 * M, 21);
	char path[64];
	int again;

	/* the same inode through another open file is the same file */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	again = open(path, O_RDWR);
	ck_assert_int_ge(again, 0);
	ck_assert_int_eq(sparse_copy_range(fd, 0, again, M, 2 * M, NULL, &res),
			 -EINVAL);
	ck_assert_int_eq(sparse_copy_range(fd, M, fd, 0, 2 * M, NULL, &res),
			 -EINVAL);
	ck_assert_int_eq(sparse_copy_range(fd, 0, fd, 0, 0, NULL, &res),
			 -EINVAL);
	expect_identical(fd, before);

	/* touching ranges do not overlap */
	ck_assert_int_eq(sparse_copy_range(fd, 0, again, 2 * M, 2 * M, NULL,
					   &res),
			 2 * M);
	expect_same(before, 0, fd, 2 * M, 2 * M);
	expect_same(before, 0, fd, 0, 2 * M);
	expect_same(before, 4 * M, fd, 4 * M, 4 * M);
	close(again);
	close(fd);
	close(before);
}
END_TEST

START_TEST(counters_add_up)
{
	struct sparse_copy_counters c;
	struct sparse_copy_result a = { .bytes = 10,
					.path = SPARSE_COPY_PATH_CLONE };
	struct sparse_copy_result b = { .bytes = 5,
					.path = SPARSE_COPY_PATH_RW };

	memset(&c, 0, sizeof(c));
	sparse_copy_account(&c, &a);
	sparse_copy_account(&c, &a);
	sparse_copy_account(&c, &b);
	ck_assert_uint_eq(c.calls[SPARSE_COPY_PATH_CLONE], 2);
	ck_assert_uint_eq(c.bytes[SPARSE_COPY_PATH_CLONE], 20);
	ck_assert_uint_eq(c.calls[SPARSE_COPY_PATH_RW], 1);
	ck_assert_uint_eq(c.bytes[SPARSE_COPY_PATH_RW], 5);
	ck_assert_uint_eq(c.calls[SPARSE_COPY_PATH_COPY_RANGE], 0);
	ck_assert_str_eq(sparse_copy_path_name(SPARSE_COPY_PATH_RW),
			 "read/write");
}
END_TEST

static Suite *sparse_copy_suite(void)
{
	Suite *s = suite_create("sparse_copy");
	TCase *data = tcase_create("data");
	TCase *paths = tcase_create("paths");
	TCase *errors = tcase_create("errors");
	int nsizes = sizeof(sizes) / sizeof(sizes[0]);

	tcase_set_timeout(data, 60);
	tcase_add_loop_test(data, copy_sizes, 0, nsizes);
	tcase_add_loop_test(data, copy_sizes_rw, 0, nsizes);
	tcase_add_test(data, sparse_holes_stay_copy_range);
	tcase_add_test(data, sparse_holes_stay_rw);
	tcase_add_test(data, sparse_without_seek_data);
	tcase_add_test(data, count_zero_is_to_eof);
	tcase_add_test(data, copy_into_existing_destination);
	tcase_add_test(data, holes_over_data_punched);
	tcase_add_test(data, holes_over_data_zeroed);
	tcase_add_test(data, piece_short_then_finish);
	tcase_add_test(data, piece_one_copy_range_call);
	tcase_add_test(data, piece_sparse);
	suite_add_tcase(s, data);

	tcase_add_test(paths, copy_only_never_clones);
	tcase_add_test(paths, clone_whole_range_past_piece);
	tcase_add_test(paths, clone_needs_alignment);
	tcase_add_test(paths, clone_refused_falls_back_to_copy_range);
	tcase_add_test(paths, clone_only_does_not_fall_back);
	tcase_add_test(paths, copy_range_refused_falls_back_to_rw);
	tcase_add_test(paths, same_file);
	tcase_add_test(paths, counters_add_up);
	suite_add_tcase(s, paths);

	tcase_add_test(errors, error_after_bytes_is_a_count);
	tcase_add_test(errors, copy_range_error_after_bytes_is_a_count);
	tcase_add_test(errors, short_write_is_a_short_count);
	tcase_add_test(errors, refused_descriptors);
	suite_add_tcase(s, errors);
	return s;
}

/* ---- the clone path on XFS --------------------------------------------- */

static char xfs_image[4100], xfs_mount[4000];
static bool xfs_mounted;

static int run_quiet(const char *cmd)
{
	int rc = system(cmd);

	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static uint64_t fs_used_bytes(int fd)
{
	struct statvfs v;

	ck_assert_int_eq(fstatvfs(fd, &v), 0);
	return (uint64_t)(v.f_blocks - v.f_bfree) * v.f_frsize;
}

START_TEST(xfs_clone_shares_extents)
{
	struct sparse_copy_result res;
	int src = patterned_file(64 * M, 30);
	int dst = new_file();
	uint64_t used;
	int64_t n;

	ck_assert_int_eq(fsync(src), 0);
	used = fs_used_bytes(src);
	n = sparse_copy_range(src, 0, dst, 0, 0, NULL, &res);
	ck_assert_int_eq(n, 64 * M);
	ck_assert_int_eq(res.path, SPARSE_COPY_PATH_CLONE);
	ck_assert_int_eq(res.fallback, 0);
	ck_assert_int_eq(fsync(dst), 0);
	ck_assert_msg(fs_used_bytes(dst) - used < 8 * M,
		      "the filesystem grew by %llu bytes for a 64 MiB clone",
		      (unsigned long long)(fs_used_bytes(dst) - used));
	expect_identical(src, dst);
	close(src);
	close(dst);
}
END_TEST

/* Unaligned at the end, but the range runs to EOF: still a clone. */
START_TEST(xfs_clone_to_eof_unaligned)
{
	struct sparse_copy_opts o = opts_mode(SPARSE_COPY_CLONE_ONLY);
	struct sparse_copy_result res;
	int src = patterned_file(3 * M + 100, 31);
	int dst = new_file();

	ck_assert_int_eq(sparse_copy_range(src, 0, dst, 0, 0, &o, &res),
			 3 * M + 100);
	ck_assert_int_eq(res.path, SPARSE_COPY_PATH_CLONE);
	expect_identical(src, dst);

	/* into the same file after its end: non-overlapping, allowed */
	ck_assert_int_eq(sparse_copy_range(src, 0, src, 4 * M, M, &o, &res), M);
	expect_same(src, 0, src, 4 * M, M);
	ck_assert_int_eq(sparse_copy_range(src, 0, src, 0, M, &o, &res),
			 -EINVAL);
	close(src);
	close(dst);
}
END_TEST

/* Not aligned: auto takes copy_file_range and the data is right. */
START_TEST(xfs_unaligned_copies)
{
	struct sparse_copy_result res;
	int src = patterned_file(3 * M, 32);
	int dst = new_file();

	ck_assert_int_eq(sparse_copy_range(src, 1, dst, 0, 2 * M, NULL, &res),
			 2 * M);
	ck_assert_int_eq(res.path, SPARSE_COPY_PATH_COPY_RANGE);
	expect_same(src, 1, dst, 0, 2 * M);
	close(src);
	close(dst);
}
END_TEST

static Suite *sparse_copy_xfs_suite(void)
{
	Suite *s = suite_create("sparse_copy_xfs");
	TCase *clone = tcase_create("clone");

	tcase_set_timeout(clone, 60);
	tcase_add_test(clone, xfs_clone_shares_extents);
	tcase_add_test(clone, xfs_clone_to_eof_unaligned);
	tcase_add_test(clone, xfs_unaligned_copies);
	suite_add_tcase(s, clone);
	return s;
}

static void xfs_teardown(void)
{
	char cmd[9000];

	if (xfs_mounted) {
		snprintf(cmd, sizeof(cmd), "umount '%s'", xfs_mount);
		if (run_quiet(cmd) != 0)
			printf("check_sparse_copy xfs: umount %s failed\n",
			       xfs_mount);
		xfs_mounted = false;
	}
	if (xfs_mount[0] != '\0')
		rmdir(xfs_mount);
	if (xfs_image[0] != '\0')
		unlink(xfs_image);
}

/*
 * Mount in a mount namespace of our own: if this process dies before its
 * umount, the mount dies with the namespace and the loop device
 * ("mount -o loop" sets autoclear) is freed with it.
 */
static bool private_mounts(void)
{
	return unshare(CLONE_NEWNS) == 0 &&
	       mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
}

/*
 * A 300 MiB reflink XFS image mounted on a loop device under TMPDIR
 * ("mount -o loop" sets the device up and umount frees it).  0, or 77
 * with the reason printed when it cannot be done here.
 */
static int xfs_setup(void)
{
	char cmd[9000];
	const char *why = NULL;

	snprintf(xfs_mount, sizeof(xfs_mount), "%s/sparse_copy_xfs.XXXXXX",
		 temp_dir());
	if (geteuid() != 0)
		why = "needs root (mount)";
	else if (!private_mounts())
		why = "cannot make a private mount namespace";
	else if (run_quiet("command -v mkfs.xfs >/dev/null") != 0)
		why = "mkfs.xfs is not installed (xfsprogs)";
	else if (mkdtemp(xfs_mount) == NULL)
		why = "cannot make a mount point in TMPDIR";
	if (why != NULL) {
		xfs_mount[0] = '\0';
		goto skip;
	}
	snprintf(xfs_image, sizeof(xfs_image), "%s.img", xfs_mount);
	snprintf(cmd, sizeof(cmd),
		 "truncate -s 300M '%s' && mkfs.xfs -q -m reflink=1 '%s'",
		 xfs_image, xfs_image);
	if (run_quiet(cmd) != 0) {
		why = "cannot make a reflink XFS image (truncate, mkfs.xfs)";
		goto skip;
	}
	snprintf(cmd, sizeof(cmd), "mount -o loop '%s' '%s'", xfs_image,
		 xfs_mount);
	if (run_quiet(cmd) != 0) {
		why = "cannot mount the image on a loop device";
		goto skip;
	}
	xfs_mounted = true;
	unlink(xfs_image); /* the loop device keeps it while mounted */
	snprintf(work_dir, sizeof(work_dir), "%s", xfs_mount);
	return 0;
skip:
	printf("check_sparse_copy xfs: SKIPPED: %s\n", why);
	xfs_teardown();
	return 77;
}

static uint64_t ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 +
	       (now.tv_nsec - t0->tv_nsec) / 1000000;
}
/* ---- timing a copy ----------------------------------------------------- */

static int time_copy(const char *from, const char *to, const char *how)
{
	struct fake f = { 0 };
	struct sparse_copy_ops ops = fake_ops(&f);
	struct sparse_copy_opts o = { .piece = 64 * M, .ops = &ops };
	struct sparse_copy_result res = { 0 };
	int src = open(from, O_RDONLY);
	int dst = open(to, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	uint64_t off = 0, ms;
	struct timespec t0;
	int64_t n;

	if (strcmp(how, "copy_range") == 0) {
		o.mode = SPARSE_COPY_COPY_ONLY;
	} else if (strcmp(how, "rw") == 0) {
		o.mode = SPARSE_COPY_COPY_ONLY;
		f.copy_range_err = EXDEV;
	} else if (strcmp(how, "auto") != 0) {
		fprintf(stderr, "bench: auto, copy_range or rw\n");
		return 2;
	}
	if (src < 0 || dst < 0) {
		perror("bench: open");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = sparse_copy_range(src, off, dst, off, 0, &o, &res);
		if (n < 0) {
			fprintf(stderr, "bench: %s\n", strerror(-n));
			return 1;
		}
		off += n;
	} while (!res.eof);
	if (fsync(dst) != 0)
		perror("bench: fsync");
	ms = ms_since(&t0);
	printf("%llu bytes by %s in %llu ms (with fsync)\n",
	       (unsigned long long)off, sparse_copy_path_name(res.path),
	       (unsigned long long)ms);
	close(src);
	close(dst);
	return 0;
}

int main(int argc, char **argv)
{
	bool xfs = argc > 1 && strcmp(argv[1], "xfs") == 0;
	SRunner *sr;
	int failed;

	if (argc == 5 && strcmp(argv[1], "bench") == 0)
		return time_copy(argv[2], argv[3], argv[4]);
	snprintf(work_dir, sizeof(work_dir), "%s", temp_dir());
	if (xfs) {
		failed = xfs_setup();
		if (failed != 0)
			return failed;
		sr = srunner_create(sparse_copy_xfs_suite());
	} else {
		sr = srunner_create(sparse_copy_suite());
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (xfs)
		xfs_teardown();
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
