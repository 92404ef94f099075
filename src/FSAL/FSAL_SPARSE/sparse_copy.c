/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Server-side copy engine.  Pure helper: no Ganesha headers, only libc and
 * the data/hole map (sparse_map.c).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* copy_file_range, fallocate, SEEK_DATA */
#endif

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "sparse_copy.h"
#include "sparse_map.h"

/*
 * The pread/pwrite path (and writing zeros over a hole) moves at most
 * this much per system call: its buffer holds as much.  copy_file_range
 * gets a data extent's whole piece in one call: a filesystem copies
 * inside its storage only what one call asks for (kernel CephFS copies
 * whole 4 MiB objects with RADOS copy-from, anything smaller through the
 * client).
 */
#define SPARSE_COPY_PIECE (1024 * 1024)

/* ---- the real system calls ---------------------------------------------- */

static int sys_clone(void *ctx, int src_fd, uint64_t src_off, int dst_fd,
		     uint64_t dst_off, uint64_t len)
{
	struct file_clone_range arg = { .src_fd = src_fd,
					.src_offset = src_off,
					.src_length = len,
					.dest_offset = dst_off };

	return ioctl(dst_fd, FICLONERANGE, &arg) == 0 ? 0 : -errno;
}

static ssize_t sys_copy_range(void *ctx, int src_fd, uint64_t src_off,
			      int dst_fd, uint64_t dst_off, size_t len)
{
	off_t in = src_off, out = dst_off;
	ssize_t n = copy_file_range(src_fd, &in, dst_fd, &out, len, 0);

	return n >= 0 ? n : -errno;
}

static ssize_t sys_pread(void *ctx, int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	return n >= 0 ? n : -errno;
}

static ssize_t sys_pwrite(void *ctx, int fd, const void *buf, size_t len,
			  uint64_t off)
{
	ssize_t n = pwrite(fd, buf, len, off);

	return n >= 0 ? n : -errno;
}

static int64_t sys_seek(void *ctx, int fd, uint64_t off, int whence)
{
	off_t found = lseek(fd, off, whence);

	return found >= 0 ? found : -errno;
}

static int sys_punch(void *ctx, int fd, uint64_t off, uint64_t len)
{
	int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;

	return fallocate(fd, mode, off, len) == 0 ? 0 : -errno;
}

const struct sparse_copy_ops sparse_copy_sys_ops = {
	.clone = sys_clone,
	.copy_range = sys_copy_range,
	.pread = sys_pread,
	.pwrite = sys_pwrite,
	.seek = sys_seek,
	.punch = sys_punch,
};

/* ---- one call's state --------------------------------------------------- */

struct copy_run {
	const struct sparse_copy_opts *opts;
	const struct sparse_copy_ops *ops;
	int src_fd, dst_fd;
	uint64_t src_off, dst_off;
	uint64_t len; /* of the range, cut at the source's EOF */
	bool to_eof; /* the range ends at the source's EOF */
	uint64_t dst_size; /* the destination's size when the call began */
	uint64_t done; /* bytes of the range copied so far */
	bool use_rw; /* copy_file_range gave up: pread/pwrite from now on */
	bool zero_fill; /* the destination cannot punch holes: write zeros */
	bool stop; /* a piece ended the copy (short write, error, shrink) */
	char *buf; /* the pread/pwrite buffer, allocated on first use */
	struct sparse_copy_result *res;
};

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* How much of want this call may still move (opts->piece bounds it). */
static uint64_t run_room(const struct copy_run *run, uint64_t want)
{
	uint64_t piece = run->opts->piece;

	if (piece != 0)
		want = min_u64(want, piece - min_u64(piece, run->done));
	return want;
}

/* ---- checks and the range ----------------------------------------------- */

static bool ranges_overlap(uint64_t a, uint64_t b, uint64_t len)
{
	return len != 0 && a < b + len && b < a + len;
}

/*
 * Fill in the range: count 0 or past EOF is cut at the source's EOF.  One
 * file may be copied onto itself, but not over the bytes being read.
 */
static int run_prepare(struct copy_run *run, uint64_t count)
{
	struct stat src, dst;
	int flags;

	if (fstat(run->src_fd, &src) != 0 || fstat(run->dst_fd, &dst) != 0)
		return -errno;
	if (!S_ISREG(src.st_mode) || !S_ISREG(dst.st_mode))
		return -EINVAL;
	/* pwrite ignores the offset on an O_APPEND descriptor (Linux) */
	flags = fcntl(run->dst_fd, F_GETFL);
	if (flags < 0)
		return -errno;
	if (flags & O_APPEND)
		return -EBADF;
	if (run->src_off >= (uint64_t)src.st_size)
		run->len = 0;
	else if (count == 0 || count >= src.st_size - run->src_off)
		run->len = src.st_size - run->src_off;
	else
		run->len = count;
	if (run->dst_off > INT64_MAX || run->len > INT64_MAX - run->dst_off)
		return -EFBIG; /* past the largest file offset */
	run->to_eof = run->src_off + run->len >= (uint64_t)src.st_size;
	run->dst_size = dst.st_size;

	if (src.st_dev == dst.st_dev && src.st_ino == dst.st_ino &&
	    ranges_overlap(run->src_off, run->dst_off, run->len))
		return -EINVAL;
	return 0;
}

/* ---- path 1: clone ------------------------------------------------------ */

uint64_t sparse_clone_block_size(int fd)
{
	struct statvfs vfs;
	struct stat st;

	if (fstatvfs(fd, &vfs) == 0 && vfs.f_bsize > 0)
		return vfs.f_bsize;
	if (fstat(fd, &st) == 0 && st.st_blksize > 0)
		return st.st_blksize;
	return 4096;
}

/*
 * The kernel clones whole blocks only.  A range that runs to the source's
 * EOF may end inside its last block, but only when it also ends at or past
 * the destination's EOF: otherwise the clone would bring the bytes past the
 * source's EOF (zeros) over destination data after the range.
 */
static bool clone_aligned(const struct copy_run *run)
{
	uint64_t bs = sparse_clone_block_size(run->dst_fd);
	bool end_ok = run->len % bs == 0 ||
		      (run->to_eof && run->dst_off + run->len >= run->dst_size);

	return run->src_off % bs == 0 && run->dst_off % bs == 0 && end_ok;
}

/* 0 when cloned, else the -errno that the caller may fall back on. */
static int run_clone(struct copy_run *run)
{
	int rc;

	if (!clone_aligned(run))
		return -EINVAL;
	rc = run->ops->clone(run->ops->ctx, run->src_fd, run->src_off,
			     run->dst_fd, run->dst_off, run->len);
	if (rc == 0) {
		run->done = run->len;
		run->res->path = SPARSE_COPY_PATH_CLONE;
	}
	return rc;
}

static bool clone_may_fall_back(int rc)
{
	return rc == -EOPNOTSUPP || rc == -EXDEV || rc == -EINVAL ||
	       rc == -ENOTTY;
}

/* ---- paths 2 and 3: copy data extents ----------------------------------- */

/*
 * The pieces below return the bytes of the range they covered (at most
 * len), or a negative errno when they covered none; they set run->stop
 * when the copy must end after them (a short write, the source shrank, an
 * error after some bytes).
 */

static ssize_t run_pwrite(struct copy_run *run, size_t len, uint64_t at)
{
	const struct sparse_copy_ops *ops = run->ops;
	ssize_t put;

	do
		put = ops->pwrite(ops->ctx, run->dst_fd, run->buf, len, at);
	while (put == -EINTR);
	if (put >= 0 && (size_t)put < len)
		run->stop = true; /* no room, or a signal: a short count */
	return put;
}

static int run_alloc_buf(struct copy_run *run)
{
	if (run->buf == NULL)
		run->buf = malloc(SPARSE_COPY_PIECE);
	return run->buf == NULL ? -ENOMEM : 0;
}

static int64_t rw_piece(struct copy_run *run, uint64_t off, uint64_t len)
{
	const struct sparse_copy_ops *ops = run->ops;
	ssize_t got;
	int rc = run_alloc_buf(run);

	if (rc != 0)
		return rc;
	do
		got = ops->pread(ops->ctx, run->src_fd, run->buf, len,
				 run->src_off + off);
	while (got == -EINTR);
	if (got == 0)
		run->stop = true; /* the source shrank under us */
	if (got <= 0)
		return got;
	return run_pwrite(run, got, run->dst_off + off);
}

/*
 * "Not between these two files" (EXDEV, EOPNOTSUPP, EINVAL), or no such
 * system call at all (ENOSYS: a kernel before 4.5, or a seccomp filter),
 * which is what ENOSYS means, whatever checkpatch fears.
 */
static bool copy_range_may_fall_back(ssize_t rc)
{
	return rc == -EXDEV || rc == -EOPNOTSUPP || rc == -ENOSYS ||
	       rc == -EINVAL;
}

/*
 * copy_file_range one piece; it may move less than asked per call, so
 * loop until the piece is done or the source ends.  On an error that says
 * "not here" before any byte moved, switch this run to pread/pwrite.
 */
static int64_t copy_range_piece(struct copy_run *run, uint64_t off,
				uint64_t len)
{
	const struct sparse_copy_ops *ops = run->ops;
	uint64_t moved = 0;
	ssize_t n;

	while (moved < len) {
		n = ops->copy_range(ops->ctx, run->src_fd,
				    run->src_off + off + moved, run->dst_fd,
				    run->dst_off + off + moved, len - moved);
		if (n == -EINTR)
			continue;
		if (n < 0 && moved == 0 && copy_range_may_fall_back(n)) {
			run->use_rw = true;
			run->res->fallback = -n;
			run->res->path = SPARSE_COPY_PATH_RW;
			return rw_piece(run, off,
					min_u64(len, SPARSE_COPY_PIECE));
		}
		if (n < 0 && moved == 0)
			return n;
		if (n < 0)
			run->res->error = -n;
		if (n <= 0) {
			run->stop = true; /* an error, or the source shrank */
			break;
		}
		moved += n;
	}
	return moved;
}

static int64_t data_piece(struct copy_run *run, uint64_t off, uint64_t len)
{
	if (run->use_rw)
		return rw_piece(run, off, len);
	return copy_range_piece(run, off, len);
}

/* Zeros over [at, at + len) of the destination, where it cannot punch. */
static int64_t zero_piece(struct copy_run *run, uint64_t at, uint64_t len)
{
	int rc = run_alloc_buf(run);

	if (rc != 0)
		return rc;
	memset(run->buf, 0, len);
	return run_pwrite(run, len, at);
}

/*
 * A hole of the source: the destination must read zeros there.  Past the
 * destination's old EOF it already does (this call writes forward only);
 * before it, punch, or write zeros where punching is not supported.
 */
static int64_t hole_piece(struct copy_run *run, uint64_t off, uint64_t len)
{
	const struct sparse_copy_ops *ops = run->ops;
	uint64_t at = run->dst_off + off;
	int64_t rc;

	if (at >= run->dst_size)
		return len;
	if (run->zero_fill)
		return zero_piece(run, at, min_u64(len, run->dst_size - at));
	rc = ops->punch(ops->ctx, run->dst_fd, at,
			min_u64(len, run->dst_size - at));
	if (rc == -EOPNOTSUPP) {
		run->zero_fill = true;
		run->res->fallback = EOPNOTSUPP;
		return 0; /* covered nothing yet: the next piece writes */
	}
	return rc == 0 ? (int64_t)len : rc;
}

/* One extent, system call by system call: 0, 1 (stop here) or -errno. */
static int copy_extent(struct copy_run *run, const struct fsal_segment *e)
{
	uint64_t end = e->offset - run->src_off + e->length;
	uint64_t off = e->offset - run->src_off;
	uint64_t want;
	int64_t n;

	while (off < end) {
		want = run_room(run, end - off);
		if (want == 0)
			return 1; /* this call's piece is done */
		if (e->hole ? run->zero_fill : run->use_rw)
			want = min_u64(want, SPARSE_COPY_PIECE);
		n = e->hole ? hole_piece(run, off, want) :
			      data_piece(run, off, want);
		if (n < 0)
			return n;
		run->done += n;
		off += n;
		if (run->stop)
			return 1;
	}
	return 0;
}

/* ---- the source's map, through the injectable seek ---------------------- */

struct copy_seek_ctx {
	const struct sparse_copy_ops *ops;
	int fd;
};

static int64_t copy_seek(void *ctx, uint64_t offset, int whence)
{
	struct copy_seek_ctx *c = ctx;

	return c->ops->seek(c->ops->ctx, c->fd, offset, whence);
}

static int64_t copy_seek_size(void *ctx)
{
	struct copy_seek_ctx *c = ctx;
	struct stat st;

	return fstat(c->fd, &st) == 0 ? st.st_size : -errno;
}

/*
 * The map of what this call may copy: the range, or its first piece, with
 * every hole the source reports (no folding: the engine keeps them all).
 * Where the source cannot tell data from holes (no SEEK_DATA) it is all
 * data.
 */
static int run_map(struct copy_run *run, struct sparse_map *map)
{
	struct copy_seek_ctx ctx = { run->ops, run->src_fd };
	struct sparse_seeker seeker = { copy_seek, copy_seek_size, &ctx };
	uint64_t size = run->src_off + run->len;
	uint64_t want = run_room(run, run->len);
	int rc;

	rc = sparse_map_walk(&seeker, size, run->src_off, want, map);
	if (rc != -EINVAL && rc != -EOPNOTSUPP)
		return rc;
	map->start = run->src_off;
	map->end = run->src_off + want;
	map->eof = run->to_eof && want == run->len;
	return sparse_map_append(map, run->src_off, want, false);
}

/* Paths 2 and 3 over the map: 0, or -errno (run->done tells how far). */
static int run_copy(struct copy_run *run)
{
	struct sparse_map map;
	size_t i;
	int rc;

	sparse_map_init(&map);
	rc = run_map(run, &map);
	if (rc != 0)
		return rc;
	if (map.eof && map.end < run->src_off + run->len) {
		/* The source shrank since run_prepare(): copy what is left. */
		run->len = map.end - run->src_off;
		run->to_eof = true;
	}
	run->res->path = SPARSE_COPY_PATH_COPY_RANGE;
	for (i = 0, rc = 0; i < map.count && rc == 0; i++)
		rc = copy_extent(run, &map.ext[i]);
	sparse_map_free(&map);
	return rc < 0 ? rc : 0;
}

/*
 * Bytes of the range that end in a hole of the source were never written:
 * make the destination long enough to hold them as a hole.  If it cannot
 * grow, only what it holds counts.
 */
static int run_extend_dst(struct copy_run *run)
{
	uint64_t want = run->dst_off + run->done;
	struct stat st;

	if (fstat(run->dst_fd, &st) != 0)
		return -errno;
	if ((uint64_t)st.st_size >= want)
		return 0;
	if (ftruncate(run->dst_fd, want) == 0)
		return 0;
	run->done = (uint64_t)st.st_size > run->dst_off ?
			    min_u64(run->done, st.st_size - run->dst_off) :
			    0;
	return -errno;
}

/* rc: how the copy ended.  The bytes copied, or -errno if there are none. */
static int64_t run_finish(struct copy_run *run, int rc)
{
	struct sparse_copy_result *res = run->res;
	int ext = 0;

	if (run->done > 0)
		ext = run_extend_dst(run);
	if (rc == 0)
		rc = ext;
	free(run->buf);
	if (rc < 0 && res->error == 0)
		res->error = -rc;
	res->bytes = run->done;
	res->eof = run->to_eof && run->done == run->len;
	if (run->done == 0 && rc < 0)
		return rc;
	return run->done;
}

int64_t sparse_copy_range(int src_fd, uint64_t src_off, int dst_fd,
			  uint64_t dst_off, uint64_t count,
			  const struct sparse_copy_opts *opts,
			  struct sparse_copy_result *res)
{
	static const struct sparse_copy_opts defaults;
	struct copy_run run = { .src_fd = src_fd,
				.dst_fd = dst_fd,
				.src_off = src_off,
				.dst_off = dst_off,
				.res = res };
	int rc;

	memset(res, 0, sizeof(*res));
	run.opts = opts != NULL ? opts : &defaults;
	run.ops = run.opts->ops != NULL ? run.opts->ops : &sparse_copy_sys_ops;
	if (run.opts->mode > SPARSE_COPY_COPY_ONLY)
		return -EINVAL;

	rc = run_prepare(&run, count);
	if (rc != 0 || run.len == 0) {
		res->eof = rc == 0;
		return rc;
	}
	if (run.opts->mode != SPARSE_COPY_COPY_ONLY) {
		rc = run_clone(&run);
		if (rc == 0 || run.opts->mode == SPARSE_COPY_CLONE_ONLY ||
		    !clone_may_fall_back(rc))
			return run_finish(&run, rc);
		res->fallback = -rc;
	}
	return run_finish(&run, run_copy(&run));
}

void sparse_copy_account(struct sparse_copy_counters *counters,
			 const struct sparse_copy_result *res)
{
	unsigned int path = res->path;

	if (path >= SPARSE_COPY_PATHS)
		return;
	__atomic_fetch_add(&counters->calls[path], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&counters->bytes[path], res->bytes,
			   __ATOMIC_RELAXED);
}

const char *sparse_copy_path_name(enum sparse_copy_path path)
{
	static const char *const names[SPARSE_COPY_PATHS] = {
		[SPARSE_COPY_PATH_NONE] = "none",
		[SPARSE_COPY_PATH_CLONE] = "clone",
		[SPARSE_COPY_PATH_COPY_RANGE] = "copy_file_range",
		[SPARSE_COPY_PATH_RW] = "read/write",
	};

	return (unsigned int)path < SPARSE_COPY_PATHS ? names[path] : "?";
}
