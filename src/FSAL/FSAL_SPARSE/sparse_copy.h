/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Server-side copy engine (NFSv4.2 COPY and CLONE, issue #8).
 *
 * Works on two open file descriptors and is free of any Ganesha header, so
 * that it can be unit tested on its own; the FSAL hands it the descriptors
 * it gets from its fsal_fd machinery.  One call copies one piece of a
 * range, by the cheapest path that works:
 *
 *   1. FICLONERANGE (shared extents), when the offsets and the length are
 *      aligned to the filesystem's block size: the whole range at once;
 *   2. else at most opts->piece bytes: copy_file_range(2) per data extent
 *      of the source, holes skipped;
 *   3. or a pread/pwrite loop per data extent.
 *
 * How many pieces one COPY reply makes (its chunk size, its time budget)
 * is the caller's policy (the protocol layer's nfs42_copy_chunk()); so is
 * which holes are worth keeping: the engine keeps every hole the source
 * reports.
 *
 * Holes of the source stay holes in the destination (punched where the
 * destination had data there) and a copy that reaches the source's end of
 * file leaves the destination at least dst_off + length bytes long, so a
 * trailing hole is kept too.
 */

#ifndef SPARSE_COPY_H
#define SPARSE_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Which paths a copy may take. */
enum sparse_copy_mode {
	SPARSE_COPY_AUTO = 0, /* clone when aligned, else copy */
	SPARSE_COPY_CLONE_ONLY, /* clone or fail (NFSv4.2 CLONE) */
	SPARSE_COPY_COPY_ONLY, /* never clone */
};

/* The path that moved the data (res->path, and the counters' index). */
enum sparse_copy_path {
	SPARSE_COPY_PATH_NONE = 0, /* nothing to copy */
	SPARSE_COPY_PATH_CLONE,
	SPARSE_COPY_PATH_COPY_RANGE,
	SPARSE_COPY_PATH_RW,
	SPARSE_COPY_PATHS
};

/*
 * The system calls the engine makes, so that tests can fail or slow them
 * down.  Each returns what the call returns, or a negative errno; ctx is
 * passed through.  sparse_copy_sys_ops holds the real ones.
 */
struct sparse_copy_ops {
	/* FICLONERANGE of [src_off, src_off + len) to dst_off: 0 or -errno */
	int (*clone)(void *ctx, int src_fd, uint64_t src_off, int dst_fd,
		     uint64_t dst_off, uint64_t len);
	ssize_t (*copy_range)(void *ctx, int src_fd, uint64_t src_off,
			      int dst_fd, uint64_t dst_off, size_t len);
	ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len,
			 uint64_t off);
	ssize_t (*pwrite)(void *ctx, int fd, const void *buf, size_t len,
			  uint64_t off);
	/* lseek with SEEK_DATA or SEEK_HOLE, for the source's map */
	int64_t (*seek)(void *ctx, int fd, uint64_t off, int whence);
	/* fallocate(PUNCH_HOLE | KEEP_SIZE) of the destination */
	int (*punch)(void *ctx, int fd, uint64_t off, uint64_t len);
	void *ctx;
};

extern const struct sparse_copy_ops sparse_copy_sys_ops;

struct sparse_copy_opts {
	enum sparse_copy_mode mode;
	/* at most this many bytes per call unless the whole range is cloned;
	 * 0: the whole range */
	uint64_t piece;
	const struct sparse_copy_ops *ops; /* NULL: sparse_copy_sys_ops */
};

struct sparse_copy_result {
	uint64_t bytes; /* of the range, from src_off/dst_off, now copied */
	enum sparse_copy_path path; /* the last path that ran */
	bool eof; /* the copy reached the source's end of file */
	int error; /* errno that ended the copy early, 0 if none */
	int fallback; /* errno that made a faster path give up, 0 if none */
};

/*
 * Per-path totals for statistics: calls and bytes, indexed by
 * enum sparse_copy_path.  sparse_copy_account() adds one result with
 * atomic additions, so one set can be shared by every thread.
 */
struct sparse_copy_counters {
	uint64_t calls[SPARSE_COPY_PATHS];
	uint64_t bytes[SPARSE_COPY_PATHS];
};

void sparse_copy_account(struct sparse_copy_counters *counters,
			 const struct sparse_copy_result *res);

/*
 * Copy [src_off, src_off + count) of src_fd to dst_off of dst_fd; count 0
 * means up to the source's end of file, and a range past it is cut there.
 * Copies one piece (at most opts->piece bytes; a clone always covers the
 * whole range): continue from src_off + bytes and dst_off + bytes until
 * res->eof or the range is done.
 *
 * Returns the bytes copied (also in res->bytes), short after a short write
 * or an error once some bytes are in, or a negative errno when none are:
 * -EINVAL for overlapping ranges of one file, a non-regular file, an
 * unaligned range in SPARSE_COPY_CLONE_ONLY; -EBADF for an O_APPEND
 * destination; else what the failing call said.  Nothing is synced: the
 * bytes are in the destination's page cache, as after write(2).
 */
int64_t sparse_copy_range(int src_fd, uint64_t src_off, int dst_fd,
			  uint64_t dst_off, uint64_t count,
			  const struct sparse_copy_opts *opts,
			  struct sparse_copy_result *res);

const char *sparse_copy_path_name(enum sparse_copy_path path);

/*
 * The alignment FICLONERANGE needs on fd's filesystem (statvfs f_bsize,
 * the superblock's block size that the kernel's remap checks use; else
 * st_blksize; else 4096): the NFSv4.2 clone_blksize attribute.
 */
uint64_t sparse_clone_block_size(int fd);

#endif /* SPARSE_COPY_H */
