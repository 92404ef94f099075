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
		if (map->ext[i].hole)
			total += map->ext[i].length;
	return total;
}

static int sparse_map_grow(struct sparse_map *map)
{
	size_t cap = map->cap ? map->cap * 2 : SPARSE_MAP_FIRST_CAP;
	struct fsal_segment *ext;

	ext = realloc(map->ext, cap * sizeof(*ext));
	if (ext == NULL)
		return -ENOMEM;
	map->ext = ext;
	map->cap = cap;
	return 0;
}

static uint64_t sparse_map_covered_end(const struct sparse_map *map)
{
	const struct fsal_segment *last;

	if (map->count == 0)
		return map->start;
	last = &map->ext[map->count - 1];
	return last->offset + last->length;
}

int sparse_map_append(struct sparse_map *map, uint64_t offset, uint64_t length,
		      bool is_hole)
{
	struct fsal_segment *last;
	int rc;

	if (length == 0)
		return 0;
	if (offset != sparse_map_covered_end(map))
		return -EINVAL;

	last = map->count ? &map->ext[map->count - 1] : NULL;
	if (last != NULL && last->hole == is_hole) {
		last->length += length;
		return 0;
	}

	if (map->count == map->cap) {
		rc = sparse_map_grow(map);
		if (rc != 0)
			return rc;
	}
	map->ext[map->count].offset = offset;
	map->ext[map->count].length = length;
	map->ext[map->count].hole = is_hole;
	map->count++;
	return 0;
}

static int64_t sparse_seek(const struct sparse_seeker *seeker, uint64_t offset,
			   int whence)
{
	return seeker->seek(seeker->ctx, offset, whence);
}

void sparse_map_clip(struct sparse_map *map, uint64_t end)
{
	struct fsal_segment *e;
	size_t i;

	end = max_u64(end, map->start);
	if (end >= map->end)
		return;
	for (i = 0; i < map->count; i++) {
		e = &map->ext[i];
		if (e->offset + e->length < end)
			continue;
		if (e->offset >= end) {
			map->count = i; /* after a gap: wholly past end */
			break;
		}
		e->length = end - e->offset;
		map->count = i + 1;
		break;
	}
	map->end = end;
}

/*
 * A walk in progress.  The file may change under it (a concurrent write,
 * DEALLOCATE or truncate), so the seek answers need not agree with each
 * other.  Whatever they say, the map never shows a hole where the walk saw
 * data, never reaches past the end of file as last seen, and a merely
 * changing file is never an error: data it no longer holds reads as zeros.
 */
struct sparse_walk {
	const struct sparse_seeker *seeker;
	struct sparse_map *map;
	uint64_t pos;
	uint64_t size; /* file size as last seen */
};

/* An answer showed the file to be at least size bytes long. */
static void sparse_walk_saw_size(struct sparse_walk *w, uint64_t size)
{
	w->size = max_u64(w->size, size);
}

/* The file is now size bytes long: drop what lies past it. */
static void sparse_walk_set_size(struct sparse_walk *w, uint64_t size)
{
	w->size = size;
	sparse_map_clip(w->map, size);
	w->pos = min_u64(w->pos, w->map->end);
}

static int sparse_walk_refresh_size(struct sparse_walk *w)
{
	int64_t size;

	if (w->seeker->size == NULL)
		return 0;
	size = w->seeker->size(w->seeker->ctx);
	if (size < 0)
		return size;
	sparse_walk_set_size(w, size);
	return 0;
}

/* Map [pos, to) as one run (clipped to the map) and move past it. */
static int sparse_walk_add(struct sparse_walk *w, uint64_t to, bool is_hole)
{
	uint64_t stop = min_u64(to, w->map->end);
	int rc;

	rc = sparse_map_append(w->map, w->pos, stop - w->pos, is_hole);
	if (rc == 0)
		w->pos = stop;
	return rc;
}

/* [pos, data) is a hole; data may lie past the end of the map. */
static int sparse_walk_hole(struct sparse_walk *w, uint64_t data)
{
	return sparse_walk_add(w, data, true);
}

/* No data at or after pos: a hole up to the end of file, wherever it is. */
static int sparse_walk_tail(struct sparse_walk *w)
{
	int rc = sparse_walk_refresh_size(w);

	if (rc != 0 || w->pos >= w->map->end)
		return rc;
	return sparse_walk_hole(w, w->size);
}

/* The layout changed between two answers: the rest is mapped as data. */
static int sparse_walk_rest_as_data(struct sparse_walk *w)
{
	int rc = sparse_walk_refresh_size(w);

	if (rc != 0 || w->pos >= w->map->end)
		return rc;
	return sparse_walk_add(w, w->map->end, false);
}

/* There is data at pos: map it up to the next hole. */
static int sparse_walk_data(struct sparse_walk *w)
{
	int64_t hole = sparse_seek(w->seeker, w->pos, SEEK_HOLE);
	int rc;

	if (hole == -ENXIO) {
		/* Cut at pos or before; eof only if it still ends there. */
		rc = sparse_walk_refresh_size(w);
		sparse_map_clip(w->map, w->pos);
		return rc;
	}
	if (hole < 0)
		return hole;
	if ((uint64_t)hole <= w->pos)
		return sparse_walk_rest_as_data(w); /* data punched meanwhile */
	sparse_walk_saw_size(w, hole);
	return sparse_walk_add(w, hole, false);
}

static int sparse_walk_step(struct sparse_walk *w)
{
	int64_t data = sparse_seek(w->seeker, w->pos, SEEK_DATA);

	if (data == -ENXIO)
		return sparse_walk_tail(w);
	if (data < 0)
		return data;
	sparse_walk_saw_size(w, data + 1);
	if ((uint64_t)data > w->pos)
		return sparse_walk_hole(w, data);
	/* data < pos makes no sense: taking pos as data is always safe. */
	return sparse_walk_data(w);
}

int sparse_map_walk(const struct sparse_seeker *seeker, uint64_t file_size,
		    uint64_t start, uint64_t length, struct sparse_map *map)
{
	struct sparse_walk w = { seeker, map, start, file_size };
	int rc = 0;

	sparse_map_free(map);
	map->start = start;

	if (start >= file_size || length == 0) {
		map->end = start;
		map->eof = start >= file_size;
		return 0;
	}

	map->end = length >= file_size - start ? file_size : start + length;
	while (rc == 0 && w.pos < map->end)
		rc = sparse_walk_step(&w);
	if (rc != 0) {
		sparse_map_free(map);
		return rc;
	}
	map->eof = map->end >= w.size;
	return 0;
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

static int64_t sparse_fd_size(void *ctx)
{
	struct stat st;

	if (fstat(*(int *)ctx, &st) != 0)
		return -errno;
	return st.st_size;
}

int sparse_map_build_fd(int fd, uint64_t start, uint64_t length,
			struct sparse_map *map)
{
	struct sparse_seeker seeker = { .seek = sparse_fd_seek,
					.size = sparse_fd_size,
					.ctx = &fd };
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	return sparse_map_walk(&seeker, st.st_size, start, length, map);
}
