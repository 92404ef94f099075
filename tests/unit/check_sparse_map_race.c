/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Walks of a file that changes while the map is built, as with a
 * concurrent WRITE, DEALLOCATE or truncate.  A model file (a data flag per
 * 1K unit and a byte size) answers the seeks; scripted or random changes
 * happen between two answers.  Every map must stay valid and conservative
 * against the history of the model during the walk:
 *  - extents sorted, contiguous, non-empty, alternating, covering
 *    [start, end) where end lies between what the smallest and the first
 *    size allow, and no further than any size the walk was told;
 *  - a hole only over bytes that were a hole (or past EOF) at some moment
 *    of the walk: bytes that stayed data are never a hole;
 *  - eof only when some moment had end as its size, and a false eof only
 *    when some moment had the file longer than end.
 * On a file that does not change, the map must equal the one computed
 * from the model directly.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_sparse_map.h"

#define UNIT 1024ULL
#define MAX_UNITS 128
#define MAX_BYTES (MAX_UNITS * UNIT)
#define MAX_STATES 512

struct model;

/* Called before every answer with the number of the call (from 1). */
typedef void (*model_hook)(struct model *m, unsigned int call);

struct model {
	uint64_t size;
	bool data[MAX_UNITS];

	/* history of the current walk */
	bool ever_hole[MAX_UNITS];
	uint64_t sizes[MAX_STATES];
	unsigned int nsizes;
	uint64_t min_size, max_size;
	uint64_t min_told; /* smallest size() answer */

	/* what changes it */
	model_hook hook;
	unsigned int calls;
	unsigned int change_pct; /* random change before an answer */
	unsigned int seed;
};

static inline uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* ---- the model file ----------------------------------------------------- */

static void model_set(struct model *m, uint64_t off, uint64_t len, bool data)
{
	uint64_t u;

	for (u = off / UNIT; u * UNIT < off + len && u < MAX_UNITS; u++)
		m->data[u] = data;
}

static void model_write(struct model *m, uint64_t off, uint64_t len)
{
	model_set(m, off, len, true);
	m->size = max64(m->size, off + len);
}

static void model_punch(struct model *m, uint64_t off, uint64_t len)
{
	model_set(m, off, len, false);
}

static void model_truncate(struct model *m, uint64_t size)
{
	uint64_t u;

	for (u = 0; u < MAX_UNITS; u++)
		if (u * UNIT >= size)
			m->data[u] = false;
	m->size = size;
}

/* Note the current state in the history of the walk. */
static void model_record(struct model *m)
{
	uint64_t u;

	for (u = 0; u < MAX_UNITS; u++)
		if (!m->data[u] || u * UNIT >= m->size)
			m->ever_hole[u] = true;
	ck_assert_uint_lt(m->nsizes, MAX_STATES);
	m->sizes[m->nsizes++] = m->size;
	m->min_size = min64(m->min_size, m->size);
	m->max_size = max64(m->max_size, m->size);
}

static void model_begin(struct model *m)
{
	memset(m->ever_hole, 0, sizeof(m->ever_hole));
	m->nsizes = 0;
	m->min_size = UINT64_MAX;
	m->max_size = 0;
	m->min_told = UINT64_MAX;
	m->calls = 0;
	model_record(m);
}

static uint64_t rand_below(unsigned int *seed, uint64_t n)
{
	return n ? (uint64_t)rand_r(seed) % n : 0;
}

/* One random WRITE, DEALLOCATE, shrink or growth. */
static void model_random_change(struct model *m)
{
	uint64_t off = rand_below(&m->seed, MAX_UNITS) * UNIT;
	uint64_t len = (1 + rand_below(&m->seed, 16)) * UNIT;

	len = min64(len, MAX_BYTES - off);
	switch (rand_below(&m->seed, 4)) {
	case 0:
		model_write(m, off, len);
		break;
	case 1:
		model_punch(m, off, len);
		break;
	case 2:
		model_truncate(m, rand_below(&m->seed, m->size + 1));
		break;
	default:
		model_truncate(m,
			       m->size + rand_below(&m->seed,
						    MAX_BYTES - m->size + 1));
		break;
	}
}

static void model_tick(struct model *m)
{
	m->calls++;
	if (m->hook)
		m->hook(m, m->calls);
	if (m->change_pct && rand_below(&m->seed, 100) < m->change_pct)
		model_random_change(m);
	model_record(m);
}

/* lseek(2) SEEK_DATA / SEEK_HOLE on the model. */
static int64_t model_answer(const struct model *m, uint64_t off, int whence)
{
	uint64_t u;

	if (off >= m->size)
		return -ENXIO;
	for (u = off / UNIT; u * UNIT < m->size; u++)
		if (m->data[u] == (whence == SEEK_DATA))
			return max64(off, u * UNIT);
	return whence == SEEK_DATA ? -ENXIO : (int64_t)m->size;
}

static int64_t model_seek(void *ctx, uint64_t off, int whence)
{
	struct model *m = ctx;

	model_tick(m);
	return model_answer(m, off, whence);
}

static int64_t model_size(void *ctx)
{
	struct model *m = ctx;

	model_tick(m);
	m->min_told = min64(m->min_told, m->size);
	return m->size;
}

static int model_walk(struct model *m, bool with_size, uint64_t start,
		      uint64_t len, struct sparse_map *map)
{
	struct sparse_seeker s = { .seek = model_seek,
				   .size = with_size ? model_size : NULL,
				   .ctx = m };

	model_begin(m);
	sparse_map_init(map);
	return sparse_map_walk(&s, m->size, start, len, map);
}

/* ---- checks ------------------------------------------------------------- */

static uint64_t range_end(uint64_t start, uint64_t len)
{
	return len > UINT64_MAX - start ? UINT64_MAX : start + len;
}

/* Sorted, contiguous, non-empty, alternating. */
static void check_shape(const struct sparse_map *map)
{
	uint64_t pos = map->start;
	size_t i;

	for (i = 0; i < map->count; i++) {
		const struct fsal_segment *e = &map->ext[i];

		ck_assert_uint_eq(e->offset, pos);
		ck_assert_uint_gt(e->length, 0);
		if (i > 0)
			ck_assert_msg(e->hole != map->ext[i - 1].hole,
				      "extents %zu and %zu not merged", i - 1,
				      i);
		pos += e->length;
	}
	ck_assert_uint_eq(pos, map->end);
}

/* No hole over bytes that were data at every moment of the walk. */
static void check_holes(const struct model *m, const struct fsal_segment *e)
{
	uint64_t u, lo;

	for (u = e->offset / UNIT; u * UNIT < e->offset + e->length; u++) {
		lo = max64(e->offset, u * UNIT);
		if (lo >= m->min_size)
			break; /* past EOF at some moment */
		ck_assert_msg(u < MAX_UNITS && m->ever_hole[u],
			      "hole [%llu, +%llu) over data that never left",
			      (unsigned long long)e->offset,
			      (unsigned long long)e->length);
	}
}

static bool model_had_size(const struct model *m, uint64_t size)
{
	unsigned int i;

	for (i = 0; i < m->nsizes; i++)
		if (m->sizes[i] == size)
			return true;
	return false;
}

static void check_history(const struct model *m, const struct sparse_map *map,
			  uint64_t start, uint64_t len)
{
	uint64_t want_end = range_end(start, len);
	uint64_t lo = max64(start, min64(want_end, m->min_size));
	uint64_t hi = max64(start, min64(want_end, m->sizes[0]));
	size_t i;

	ck_assert_uint_eq(map->start, start);
	ck_assert_uint_ge(map->end, lo);
	ck_assert_uint_le(map->end, hi);
	ck_assert_uint_le(map->end, max64(start, m->min_told));
	for (i = 0; i < map->count; i++)
		if (map->ext[i].hole)
			check_holes(m, &map->ext[i]);
	if (map->eof)
		ck_assert(model_had_size(m, map->end) ||
			  (map->end == start && m->min_size <= start));
	else
		ck_assert_uint_gt(m->max_size, map->end);
}

static void check_walk(const struct model *m, const struct sparse_map *map,
		       uint64_t start, uint64_t len)
{
	check_shape(map);
	check_history(m, map, start, len);
}

/* The map of an unchanging model, computed from its runs directly. */
static size_t reference_map(const struct model *m, uint64_t start, uint64_t len,
			    struct want *w)
{
	uint64_t end = min64(range_end(start, len), m->size);
	uint64_t off, run, lo, hi;
	size_t n = 0;
	bool data, hole;

	for (off = 0; off < m->size; off = run) {
		data = m->data[off / UNIT];
		for (run = off; run < m->size && m->data[run / UNIT] == data;)
			run = min64((run / UNIT + 1) * UNIT, m->size);
		hole = !data;
		lo = max64(off, start);
		hi = min64(run, end);
		if (lo >= hi)
			continue;
		if (n > 0 && w[n - 1].hole == hole)
			w[n - 1].len += hi - lo;
		else
			w[n++] = (struct want){ lo, hi - lo, hole };
	}
	return n;
}

/* ---- scripted changes --------------------------------------------------- */

/* Call number and change for the scripted tests. */
static unsigned int script_call;
static void (*script_change)(struct model *m);

static void script_hook(struct model *m, unsigned int call)
{
	if (call == script_call)
		script_change(m);
}

static void model_layout(struct model *m, uint64_t size,
			 const struct want *data, size_t n)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < n; i++)
		model_write(m, data[i].off, data[i].len);
	model_truncate(m, size);
	m->hook = script_hook;
	script_call = 0;
}

/* data 0-8K, hole 8K-32K, data 32K-40K (then a hole to EOF, if any) */
static const struct want layout_a[] = { { 0, 8 * K, false },
					{ 32 * K, 8 * K, false } };

/* layout_a once cut to 16K */
static const struct want cut_16k[] = { { 0, 8 * K, false },
				       { 8 * K, 8 * K, true } };

/* Walk [0, len) of layout_a cut to size, changed before answer call. */
static void scripted_walk(struct model *m, uint64_t size, unsigned int call,
			  void (*change)(struct model *m), uint64_t len,
			  struct sparse_map *map)
{
	model_layout(m, size, layout_a, 2);
	script_call = call;
	script_change = change;
	ck_assert_int_eq(model_walk(m, true, 0, len, map), 0);
	check_walk(m, map, 0, len);
}

static void punch_first_8k(struct model *m)
{
	model_punch(m, 0, 8 * K);
}

/* SEEK_DATA(0) finds data, DEALLOCATE, SEEK_HOLE(0) answers 0. */
START_TEST(punched_between_data_and_hole)
{
	struct model m;
	struct sparse_map map;

	scripted_walk(&m, 40 * K, 2, punch_first_8k, 40 * K, &map);
	/* the punched data was data when seen: not reported as a hole */
	ck_assert(!map.ext[0].hole);
	ck_assert_uint_ge(map.ext[0].length, 8 * K);
	ck_assert(map.eof);
	sparse_map_free(&map);
}
END_TEST

static void truncate_to_16k(struct model *m)
{
	model_truncate(m, 16 * K);
}

static void truncate_to_4k(struct model *m)
{
	model_truncate(m, 4 * K);
}

static void truncate_to_36k(struct model *m)
{
	model_truncate(m, 36 * K);
}

struct truncate_case {
	unsigned int call;
	void (*change)(struct model *m);
	const struct want *want;
	size_t n;
};

/*
 * Truncated during the walk of layout_a, whose calls are SEEK_DATA(0),
 * SEEK_HOLE(0), SEEK_DATA(8K), SEEK_HOLE(32K): the map ends at the new
 * size, with eof.
 */
START_TEST(truncated_mid_walk)
{
	static const struct want shrunk[] = { { 0, 4 * K, false } };
	static const struct want cut_36k[] = { { 0, 8 * K, false },
					       { 8 * K, 24 * K, true },
					       { 32 * K, 4 * K, false } };
	static const struct truncate_case cases[] = {
		{ 3, truncate_to_16k, cut_16k, 2 }, /* SEEK_DATA(8K): ENXIO */
		{ 3, truncate_to_4k, shrunk, 1 }, /* below what was mapped */
		{ 4, truncate_to_36k, cut_36k, 3 }, /* between DATA and HOLE */
		{ 4, truncate_to_16k, cut_16k, 2 }, /* SEEK_HOLE(32K): ENXIO */
	};
	struct sparse_map map;
	struct model m;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		scripted_walk(&m, 40 * K, cases[i].call, cases[i].change,
			      40 * K, &map);
		expect_map(&map, cases[i].want, cases[i].n);
		ck_assert_msg(map.eof, "case %zu: no eof", i);
		sparse_map_free(&map);
	}
}
END_TEST

static void append_8k_at_56k(struct model *m)
{
	model_write(m, 56 * K, 8 * K);
}

/*
 * Data appended after the walk began, past a trailing hole: SEEK_DATA in
 * that hole finds it.  The map still ends at the old size, but not at eof.
 */
START_TEST(extended_mid_walk)
{
	static const struct want w[] = { { 0, 8 * K, false },
					 { 8 * K, 24 * K, true },
					 { 32 * K, 8 * K, false },
					 { 40 * K, 8 * K, true } };
	struct model m;
	struct sparse_map map;
	unsigned int call;

	for (call = 1; call <= 5; call++) {
		scripted_walk(&m, 48 * K, call, append_8k_at_56k, 1 * M, &map);
		expect_map(&map, w, 4);
		ck_assert_uint_eq(map.end, 48 * K);
		ck_assert_msg(!map.eof, "eof after growth before call %u",
			      call);
		sparse_map_free(&map);
	}
}
END_TEST

/* ---- seekers that contradict themselves --------------------------------- */

/* SEEK_DATA answers before the asked offset. */
static int64_t data_behind_seek(void *ctx, uint64_t off, int whence)
{
	int64_t found = model_seek(ctx, off, whence);

	return whence == SEEK_DATA && off > 0 ? (int64_t)off - 1 : found;
}

/* SEEK_HOLE answers past the end of file. */
static int64_t hole_beyond_seek(void *ctx, uint64_t off, int whence)
{
	struct model *m = ctx;
	int64_t found = model_seek(ctx, off, whence);

	return whence == SEEK_HOLE && found == (int64_t)m->size ? found + M :
								  found;
}

/* Walk [0, len) of the model m through the seeker s. */
static int seeker_walk(struct model *m, struct sparse_seeker *s, uint64_t len,
		       struct sparse_map *map)
{
	model_begin(m);
	s->ctx = m;
	sparse_map_init(map);
	return sparse_map_walk(s, m->size, 0, len, map);
}

START_TEST(inconsistent_seekers)
{
	static const struct want all_data[] = { { 0, 40 * K, false } };
	static const struct want w[] = { { 0, 8 * K, false },
					 { 8 * K, 24 * K, true },
					 { 32 * K, 8 * K, false } };
	struct sparse_seeker s = { .seek = data_behind_seek };
	struct sparse_map map;
	struct model m;

	model_layout(&m, 40 * K, layout_a, 2);
	ck_assert_int_eq(seeker_walk(&m, &s, 40 * K, &map), 0);
	expect_map(&map, all_data, 1);
	sparse_map_free(&map);

	s.seek = hole_beyond_seek;
	ck_assert_int_eq(seeker_walk(&m, &s, 1 * M, &map), 0);
	expect_map(&map, w, 3);
	ck_assert_uint_eq(map.end, 40 * K);
	ck_assert(!map.eof); /* the answers say the file goes on */
	sparse_map_free(&map);
}
END_TEST

/* A true I/O error in the middle of a walk is still an error. */
static int64_t failing_seek(void *ctx, uint64_t off, int whence)
{
	struct model *m = ctx;

	return m->calls >= 2 ? -EIO : model_seek(ctx, off, whence);
}

static int64_t failing_size(void *ctx)
{
	return -EIO;
}

START_TEST(io_error_mid_walk)
{
	struct sparse_seeker s = { .seek = failing_seek };
	struct sparse_map map;
	struct model m;

	model_layout(&m, 40 * K, layout_a, 2);
	ck_assert_int_eq(seeker_walk(&m, &s, 40 * K, &map), -EIO);
	ck_assert_uint_eq(map.count, 0);

	/* size() failing when the walk needs it */
	script_call = 3;
	script_change = truncate_to_16k;
	s.seek = model_seek;
	s.size = failing_size;
	ck_assert_int_eq(seeker_walk(&m, &s, 40 * K, &map), -EIO);
	ck_assert_uint_eq(map.count, 0);
	sparse_map_free(&map);
}
END_TEST

/* ---- random layouts ----------------------------------------------------- */

#ifndef RANDOM_WALKS
#define RANDOM_WALKS 3000
#endif
#ifndef RANDOM_SEED
#define RANDOM_SEED 0x5ba45e
#endif

static void random_layout(struct model *m, unsigned int *seed)
{
	uint64_t off = 0, run;
	bool data = rand_below(seed, 2);

	memset(m, 0, sizeof(*m));
	while (off < MAX_BYTES) {
		run = min64((1 + rand_below(seed, 12)) * UNIT, MAX_BYTES - off);
		model_set(m, off, run, data);
		off += run;
		data = !data;
	}
	m->size = rand_below(seed, MAX_BYTES + 1);
	model_truncate(m, m->size);
}

static uint64_t random_length(unsigned int *seed, uint64_t size)
{
	if (rand_below(seed, 16) == 0)
		return UINT64_MAX;
	return rand_below(seed, size + 8 * K);
}

START_TEST(random_static_layouts)
{
	unsigned int seed = RANDOM_SEED, i;
	struct want w[MAX_UNITS + 2];
	struct sparse_map map;
	uint64_t start, len;
	struct model m;
	size_t n;

	for (i = 0; i < RANDOM_WALKS; i++) {
		random_layout(&m, &seed);
		start = rand_below(&seed, m.size + 4 * K);
		len = random_length(&seed, m.size);
		ck_assert_int_eq(model_walk(&m, i % 2, start, len, &map), 0);
		check_walk(&m, &map, start, len);
		n = reference_map(&m, start, len, w);
		expect_map(&map, w, n);
		ck_assert_int_eq(map.eof, map.end >= m.size);
		sparse_map_free(&map);
	}
}
END_TEST

START_TEST(random_changing_layouts)
{
	unsigned int seed = RANDOM_SEED + 1, i;
	uint64_t start, len;
	struct sparse_map map;
	struct model m;

	for (i = 0; i < RANDOM_WALKS; i++) {
		random_layout(&m, &seed);
		m.seed = seed + i;
		m.change_pct = 10 + rand_below(&seed, 60);
		start = rand_below(&seed, m.size + 4 * K);
		len = random_length(&seed, m.size);
		ck_assert_int_eq(model_walk(&m, i % 4 != 0, start, len, &map),
				 0);
		check_walk(&m, &map, start, len);
		sparse_map_free(&map);
	}
}
END_TEST

Suite *sparse_map_race_suite(void)
{
	Suite *s = suite_create("sparse_map_race");
	TCase *scripted = tcase_create("scripted");
	TCase *random = tcase_create("random");

	tcase_add_test(scripted, punched_between_data_and_hole);
	tcase_add_test(scripted, truncated_mid_walk);
	tcase_add_test(scripted, extended_mid_walk);
	tcase_add_test(scripted, inconsistent_seekers);
	tcase_add_test(scripted, io_error_mid_walk);
	suite_add_tcase(s, scripted);

	tcase_add_test(random, random_static_layouts);
	tcase_add_test(random, random_changing_layouts);
	suite_add_tcase(s, random);
	return s;
}
