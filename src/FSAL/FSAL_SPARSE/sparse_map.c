/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Data/hole map builder.  Pure helper: no Ganesha headers, only libc.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* SEEK_DATA, SEEK_HOLE */
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sparse_map.h"

#define SPARSE_MAP_FIRST_CAP 8

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void sparse_map_init(struct sparse_map *map)
{
	memset(map, 0, sizeof(*map));
}

void sparse_map_free(struct sparse_map *map)
{
	free(map->ext);
	sparse_map_init(map);
}

uint64_t sparse_map_hole_bytes(const struct sparse_map *map)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < map->count; i++)
		if (map->ext[i].is_hole)
			total += map->ext[i].length;
	return total;
}

static int sparse_map_grow(struct sparse_map *map)
{
	size_t cap = map->cap ? map->cap * 2 : SPARSE_MAP_FIRST_CAP;
	struct sparse_extent *ext;

	ext = realloc(map->ext, cap * sizeof(*ext));
	if (ext == NULL)
		return -ENOMEM;
	map->ext = ext;
	map->cap = cap;
	return 0;
}

static uint64_t sparse_map_covered_end(const struct sparse_map *map)
{
	const struct sparse_extent *last;

	if (map->count == 0)
		return map->start;
	last = &map->ext[map->count - 1];
	return last->offset + last->length;
}

int sparse_map_append(struct sparse_map *map, uint64_t offset, uint64_t length,
		      uint64_t span, bool is_hole)
{
	struct sparse_extent *last;
	int rc;

	if (length == 0)
		return 0;
	if (offset != sparse_map_covered_end(map))
		return -EINVAL;
	if (span < length || !is_hole)
		span = is_hole ? length : 0;

	last = map->count ? &map->ext[map->count - 1] : NULL;
	if (last != NULL && last->is_hole == is_hole) {
		last->length += length;
		last->span = is_hole ? max_u64(last->span + length, span) : 0;
		return 0;
	}

	if (map->count == map->cap) {
		rc = sparse_map_grow(map);
		if (rc != 0)
			return rc;
	}
	map->ext[map->count].offset = offset;
	map->ext[map->count].length = length;
	map->ext[map->count].span = span;
	map->ext[map->count].is_hole = is_hole;
	map->count++;
	return 0;
}

void sparse_map_fold(struct sparse_map *map, uint64_t min_hole)
{
	size_t in, out = 0;

	for (in = 0; in < map->count; in++) {
		struct sparse_extent cur = map->ext[in];

		if (cur.is_hole && cur.span < min_hole) {
			cur.is_hole = false;
			cur.span = 0;
		}

		if (out > 0 && map->ext[out - 1].is_hole == cur.is_hole) {
			/* Same kind as the previous survivor: merge. */
			map->ext[out - 1].length += cur.length;
			map->ext[out - 1].span += cur.span;
			continue;
		}
		map->ext[out++] = cur;
	}
	map->count = out;
}

static int64_t sparse_seek(const struct sparse_seeker *seeker, uint64_t offset,
			   int whence)
{
	return seeker->seek(seeker->ctx, offset, whence);
}

/*
 * start lies inside a hole: find where that hole begins, looking back at
 * most min_hole bytes (further back does not change the fold decision).
 */
static int64_t sparse_leading_hole_start(const struct sparse_seeker *seeker,
					 uint64_t start, uint64_t min_hole)
{
	uint64_t pos = start > min_hole ? start - min_hole : 0;
	int64_t hole, data;

	while (pos < start) {
		hole = sparse_seek(seeker, pos, SEEK_HOLE);
		if (hole < 0)
			return hole;
		if ((uint64_t)hole >= start)
			return start; /* layout changed under us */
		data = sparse_seek(seeker, hole, SEEK_DATA);
		if (data == -ENXIO || (data >= 0 && (uint64_t)data > start))
			return hole;
		if (data < 0)
			return data;
		if ((uint64_t)data <= pos)
			return start; /* no progress: be conservative */
		pos = data;
	}
	return start;
}

/* Offset of the next data at or after pos, file_size when there is none. */
static int64_t sparse_next_data(const struct sparse_seeker *seeker,
				uint64_t pos, uint64_t file_size)
{
	int64_t data = sparse_seek(seeker, pos, SEEK_DATA);

	if (data == -ENXIO)
		return file_size;
	if (data < 0)
		return data;
	if ((uint64_t)data < pos)
		return -EIO;
	return min_u64(data, file_size);
}

/* Offset where the data at pos stops, file_size at the latest. */
static int64_t sparse_next_hole(const struct sparse_seeker *seeker,
				uint64_t pos, uint64_t file_size)
{
	int64_t hole = sparse_seek(seeker, pos, SEEK_HOLE);

	if (hole == -ENXIO)
		return file_size; /* file shrank: rest reads as zeros */
	if (hole < 0)
		return hole;
	if ((uint64_t)hole <= pos)
		return -EIO;
	return min_u64(hole, file_size);
}

static int sparse_walk_hole(const struct sparse_seeker *seeker,
			    struct sparse_map *map, uint64_t pos, uint64_t data,
			    uint64_t min_hole)
{
	int64_t hole_start = pos;

	if (pos == map->start && pos > 0 && min_hole > 0) {
		hole_start = sparse_leading_hole_start(seeker, pos, min_hole);
		if (hole_start < 0)
			return hole_start;
	}
	return sparse_map_append(map, pos, min_u64(data, map->end) - pos,
				 data - hole_start, true);
}

int sparse_map_walk(const struct sparse_seeker *seeker, uint64_t file_size,
		    uint64_t start, uint64_t length, uint64_t min_hole,
		    struct sparse_map *map)
{
	uint64_t pos;
	int64_t next;
	int rc;

	sparse_map_free(map);
	map->start = start;
	map->file_size = file_size;

	if (start >= file_size || length == 0) {
		map->end = start;
		map->eof = start >= file_size;
		return 0;
	}

	map->end = length >= file_size - start ? file_size : start + length;
	map->eof = map->end == file_size;

	for (pos = start; pos < map->end;) {
		next = sparse_next_data(seeker, pos, file_size);
		if (next < 0)
			goto fail;
		if ((uint64_t)next > pos) {
			rc = sparse_walk_hole(seeker, map, pos, next, min_hole);
			if (rc != 0)
				goto fail_rc;
			pos = min_u64(next, map->end);
			continue;
		}

		next = sparse_next_hole(seeker, pos, file_size);
		if (next < 0)
			goto fail;
		rc = sparse_map_append(map, pos, min_u64(next, map->end) - pos,
				       0, false);
		if (rc != 0)
			goto fail_rc;
		pos = min_u64(next, map->end);
	}

	sparse_map_fold(map, min_hole);
	return 0;

fail:
	rc = (int)next;
fail_rc:
	sparse_map_free(map);
	return rc;
}

/* lseek-based seeker; filesystems without SEEK_DATA read as all data. */
static int64_t sparse_fd_seek(void *ctx, uint64_t offset, int whence)
{
	int fd = *(int *)ctx;
	off_t found = lseek(fd, (off_t)offset, whence);
	struct stat st;

	if (found >= 0)
		return found;
	if (errno != EINVAL && errno != EOPNOTSUPP)
		return -errno;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (offset >= (uint64_t)st.st_size)
		return -ENXIO;
	return whence == SEEK_DATA ? (int64_t)offset : (int64_t)st.st_size;
}

int sparse_map_build_fd(int fd, uint64_t start, uint64_t length,
			uint64_t min_hole, struct sparse_map *map)
{
	struct sparse_seeker seeker = { .seek = sparse_fd_seek, .ctx = &fd };
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	return sparse_map_walk(&seeker, st.st_size, start, length, min_hole,
			       map);
}
