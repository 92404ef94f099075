/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/* Shared bits of the check_sparse_map suites. */

#ifndef CHECK_SPARSE_MAP_H
#define CHECK_SPARSE_MAP_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparse_map.h"

#define K 1024ULL
#define M (1024ULL * 1024ULL)

/* One expected extent: offset, length, is_hole. */
struct want {
	uint64_t off, len;
	bool hole;
};

/* Assert that map holds exactly the n extents of w. */
void expect_map(const struct sparse_map *map, const struct want *w, size_t n);

/* Walks of a file that changes under the walk (check_sparse_map_race.c). */
Suite *sparse_map_race_suite(void);

#endif /* CHECK_SPARSE_MAP_H */
