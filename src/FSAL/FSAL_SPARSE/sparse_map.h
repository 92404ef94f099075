/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Data/hole maps of a byte range of a file.
 *
 * This helper is deliberately free of any Ganesha header so that it can be
 * unit tested on its own.  A map is built by walking the file with
 * SEEK_DATA/SEEK_HOLE (or with any other "seek" callback, which is how the
 * unit tests feed it synthetic layouts) and clipping the result to the
 * asked range and to end of file.  It holds the runs the filesystem
 * reports, every hole however short: which holes are worth reporting is
 * the protocol layer's policy (READ_PLUS_Min_Hole, nfs42_read_plus_plan.h).
 * Its runs are struct fsal_segment, the type an FSAL's read_plus slot
 * reports.
 */

#ifndef SPARSE_MAP_H
#define SPARSE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fsal_segment.h"

/*
 * The map of [start, end) of a file.  Extents are sorted, adjacent,
 * non-empty, alternate between data and hole, and together cover exactly
 * [start, end).  end is the asked end clipped to the file
 * size; eof tells whether end is the end of the file.
 */
struct sparse_map {
	struct fsal_segment *ext;
	size_t count;
	size_t cap;
	uint64_t start;
	uint64_t end;
	bool eof;
};

/*
 * How the walk finds data and holes.  seek() behaves like lseek(2) with
 * SEEK_DATA or SEEK_HOLE: it returns the found offset, or -ENXIO when
 * there is no data at or after offset (or offset is at or beyond EOF), or
 * another negative errno on failure.  size(), when set, returns the
 * current size of the file (or a negative errno); the walk asks for it
 * when the answers show that the file changed under it.
 *
 * The file may change between two calls: the walk then degrades to data
 * (which always reads right) and never fails for that alone.
 */
struct sparse_seeker {
	int64_t (*seek)(void *ctx, uint64_t offset, int whence);
	int64_t (*size)(void *ctx);
	void *ctx;
};

void sparse_map_init(struct sparse_map *map);
void sparse_map_free(struct sparse_map *map);

/*
 * Append an extent right after the last one (offset must equal the end of
 * the map so far), merging it with the last one when of the same kind.
 * Returns 0, -EINVAL for a gap/overlap, or -ENOMEM.
 */
int sparse_map_append(struct sparse_map *map, uint64_t offset, uint64_t length,
		      bool is_hole);

/*
 * Drop everything at or past end (the file turned out to be shorter):
 * the extent holding end is cut there, and an extent starting at or past
 * end is dropped (even after a gap, so nothing can underflow).  end below
 * start empties the map; end at or past map->end changes nothing.  eof is
 * left to the caller.
 */
void sparse_map_clip(struct sparse_map *map, uint64_t end);

/*
 * Walk [start, start + length) of a file of size file_size with seeker,
 * producing a clipped map.  length == 0 or start >= file_size gives
 * an empty map with eof set.  A file seen to shrink during the walk ends
 * the map there (eof set); one seen to grow clears eof.  Returns 0 or a
 * negative errno (never for a file that merely changed).
 */
int sparse_map_walk(const struct sparse_seeker *seeker, uint64_t file_size,
		    uint64_t start, uint64_t length, struct sparse_map *map);

/* Same walk on an open file descriptor, using lseek(2) and fstat(2). */
int sparse_map_build_fd(int fd, uint64_t start, uint64_t length,
			struct sparse_map *map);

/* Total bytes of holes in the map (handy for logs and tests). */
uint64_t sparse_map_hole_bytes(const struct sparse_map *map);

#endif /* SPARSE_MAP_H */
