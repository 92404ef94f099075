/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Unit tests of the READ_PLUS segment planner (nfs42_read_plus_plan.c):
 * fixed layouts for each rule, whole files walked with repeated plans,
 * and random requests (fixed seed) against a byte-by-byte model.
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nfs42_read_plus_plan.h"

#define K 1024ULL
#define BIG (1ULL << 40) /* a budget that never limits */
#define MAX_EXT 4096

/* ---- layouts: runs from offset 0, each data or hole ---------------------- */

struct run_spec {
	uint64_t len;
	bool hole;
};

struct layout {
	struct fsal_segment ext[MAX_EXT];
	size_t n;
	uint64_t size;
};

static void layout_from(struct layout *l, const struct run_spec *r, size_t n)
{
	size_t i;

	l->n = 0;
	l->size = 0;
	for (i = 0; i < n; i++) {
		l->ext[l->n].offset = l->size;
		l->ext[l->n].length = r[i].len;
		l->ext[l->n].hole = r[i].hole;
		l->n++;
		l->size += r[i].len;
	}
}

/* Runs of 4K, 8K, 16K, 32K, ... alternating, the first a hole or not. */
static void layout_alternating(struct layout *l, size_t n, bool first_hole)
{
	static const uint64_t sizes[] = { 4 * K, 8 * K, 16 * K, 32 * K };
	struct run_spec r[MAX_EXT];
	size_t i;

	for (i = 0; i < n; i++) {
		r[i].len = sizes[i % 4];
		r[i].hole = (i % 2 == 0) == first_hole;
	}
	layout_from(l, r, n);
}

/* ---- planning and checking ------------------------------------------------ */

static struct fsal_segment segs[MAX_EXT];

static int plan(const struct layout *l, uint64_t off, uint32_t count,
		uint64_t budget, bool holes, struct rp_plan *p)
{
	struct rp_request req = { .offset = off,
				  .count = count,
				  .file_size = l->size,
				  .budget = budget,
				  .report_holes = holes };

	p->seg = segs;
	p->max_seg = MAX_EXT;
	return rp_plan_build(&req, l->ext, l->n, p);
}

struct want {
	uint64_t off, len;
	bool hole;
};

static void expect_segs(const struct rp_plan *p, const struct want *w, size_t n)
{
	size_t i;

	ck_assert_uint_eq(p->nseg, n);
	for (i = 0; i < n; i++) {
		ck_assert_msg(
			p->seg[i].offset == w[i].off &&
				p->seg[i].length == w[i].len &&
				p->seg[i].hole == w[i].hole,
			"segment %zu: got %s %llu+%llu, want %s %llu+%llu", i,
			p->seg[i].hole ? "hole" : "data",
			(unsigned long long)p->seg[i].offset,
			(unsigned long long)p->seg[i].length,
			w[i].hole ? "hole" : "data",
			(unsigned long long)w[i].off,
			(unsigned long long)w[i].len);
	}
}

/* XDR size of a reply holding the n segments of w, counted by hand. */
static uint64_t want_xdr_size(const struct want *w, size_t n)
{
	uint64_t size = 8;
	size_t i;

	for (i = 0; i < n; i++)
		size += w[i].hole ? 20 : 16 + (w[i].len + 3) / 4 * 4;
	return size;
}

/* The plan of a whole file laid out as r, with no limit, is w and eof. */
static void expect_whole_file(const struct run_spec *r, size_t nr,
			      const struct want *w, size_t nw)
{
	static struct layout l;
	struct rp_plan p;

	layout_from(&l, r, nr);
	ck_assert_int_eq(plan(&l, 0, l.size, BIG, true, &p), 0);
	expect_segs(&p, w, nw);
	ck_assert(p.eof);
	ck_assert_uint_eq(rp_plan_xdr_size(&p), want_xdr_size(w, nw));
}

/* ---- shapes --------------------------------------------------------------- */

START_TEST(all_hole)
{
	static const struct run_spec r[] = { { 1024 * K, true } };
	static const struct want whole[] = { { 0, 1024 * K, true } };
	static const struct want inner[] = { { 4 * K, 8 * K, true } };
	struct layout l;
	struct rp_plan p;

	expect_whole_file(r, 1, whole, 1);
	layout_from(&l, r, 1);
	ck_assert_int_eq(plan(&l, 4 * K, 8 * K, BIG, true, &p), 0);
	expect_segs(&p, inner, 1);
	ck_assert(!p.eof);
}
END_TEST

START_TEST(all_data)
{
	static const struct run_spec r[] = { { 100000, false } };
	static const struct want w[] = { { 0, 100000, false } };

	expect_whole_file(r, 1, w, 1);
}
END_TEST

START_TEST(hole_at_start)
{
	static const struct run_spec r[] = { { 64 * K, true },
					     { 36 * K + 5, false } };
	static const struct want w[] = { { 0, 64 * K, true },
					 { 64 * K, 36 * K + 5, false } };

	expect_whole_file(r, 2, w, 2);
	/* the odd data length is padded to 4 on the wire */
	ck_assert_uint_eq(want_xdr_size(w, 2), 8 + 20 + 16 + 36 * K + 8);
}
END_TEST

START_TEST(hole_at_end)
{
	static const struct run_spec r[] = { { 64 * K, false },
					     { 64 * K, true } };
	static const struct want w[] = { { 0, 64 * K, false },
					 { 64 * K, 64 * K, true } };

	expect_whole_file(r, 2, w, 2); /* eof: the hole reaches the size */
}
END_TEST

START_TEST(data_at_eof)
{
	static const struct run_spec r[] = { { 64 * K, true },
					     { 10 * K + 3, false } };
	static const struct want past[] = { { 70 * K, 4 * K + 3, false } };
	static const struct want exact[] = { { 64 * K, 10 * K + 3, false } };
	static const struct want short_of[] = { { 64 * K, 10 * K + 2, false } };
	struct layout l;
	struct rp_plan p;

	layout_from(&l, r, 2);
	/* count past the size: clipped there, eof */
	ck_assert_int_eq(plan(&l, 70 * K, 64 * K, BIG, true, &p), 0);
	expect_segs(&p, past, 1);
	ck_assert(p.eof);
	/* count ending exactly at the size: eof */
	ck_assert_int_eq(plan(&l, 64 * K, 10 * K + 3, BIG, true, &p), 0);
	expect_segs(&p, exact, 1);
	ck_assert(p.eof);
	/* one byte short of it: no eof */
	ck_assert_int_eq(plan(&l, 64 * K, 10 * K + 2, BIG, true, &p), 0);
	expect_segs(&p, short_of, 1);
	ck_assert(!p.eof);
}
END_TEST

/* The plan of a whole alternating layout is the layout itself. */
static void check_alternation(bool first_hole)
{
	struct want w[16];
	struct layout l;
	struct rp_plan p;
	size_t i;

	layout_alternating(&l, 16, first_hole);
	for (i = 0; i < l.n; i++) {
		w[i].off = l.ext[i].offset;
		w[i].len = l.ext[i].length;
		w[i].hole = l.ext[i].hole;
	}
	ck_assert_int_eq(plan(&l, 0, l.size, BIG, true, &p), 0);
	expect_segs(&p, w, l.n);
	ck_assert(p.eof);
	/* From inside the third run to inside the fifth. */
	ck_assert_int_eq(plan(&l, 14 * K, 50 * K, BIG, true, &p), 0);
	w[0] = (struct want){ 14 * K, 14 * K, l.ext[2].hole };
	w[1] = (struct want){ 28 * K, 32 * K, l.ext[3].hole };
	w[2] = (struct want){ 60 * K, 4 * K, l.ext[4].hole };
	expect_segs(&p, w, 3);
	ck_assert(!p.eof);
}

START_TEST(alternation_data_first)
{
	check_alternation(false);
}
END_TEST

START_TEST(alternation_hole_first)
{
	check_alternation(true);
}
END_TEST

START_TEST(adjacent_runs_merged)
{
	static const struct run_spec r[] = {
		{ 4 * K, false }, { 0, true },	   { 4 * K, false },
		{ 8 * K, true },  { 100, true },   { 0, false },
		{ 3 * K, true },  { 5 * K, false }
	};
	static const struct want w[] = { { 0, 8 * K, false },
					 { 8 * K, 11 * K + 100, true },
					 { 19 * K + 100, 5 * K, false } };

	expect_whole_file(r, 8, w, 3);
}
END_TEST

/* ---- rpa_count ------------------------------------------------------------ */

START_TEST(count_limits)
{
	static const struct run_spec r[] = { { 64 * K, false },
					     { 960 * K, true },
					     { 64 * K, false } };
	static const struct want cut[] = { { 32 * K, 10000, false } };
	static const struct want hole_clipped[] = { { 0, 64 * K, false },
						    { 64 * K, 36 * K, true } };
	static const struct want hole_only[] = { { 64 * K, 4 * K, true } };
	static const struct want across[] = { { 60 * K, 4 * K, false },
					      { 64 * K, 960 * K, true },
					      { 1024 * K, 3, false } };
	struct layout l;
	struct rp_plan p;

	layout_from(&l, r, 3);
	/* data is cut exactly at offset + count, not on a 4K boundary */
	ck_assert_int_eq(plan(&l, 32 * K, 10000, BIG, true, &p), 0);
	expect_segs(&p, cut, 1);
	ck_assert(!p.eof);
	/* a hole is reported up to offset + count, not past it */
	ck_assert_int_eq(plan(&l, 0, 100 * K, BIG, true, &p), 0);
	expect_segs(&p, hole_clipped, 2);
	ck_assert_int_eq(plan(&l, 64 * K, 4 * K, BIG, true, &p), 0);
	expect_segs(&p, hole_only, 1);
	/* the hole's length is inside the count like the data's */
	ck_assert_int_eq(plan(&l, 60 * K, 964 * K + 3, BIG, true, &p), 0);
	expect_segs(&p, across, 3);
	ck_assert_uint_le(rp_plan_data_bytes(&p), 964 * K + 3);
	ck_assert(!p.eof);
}
END_TEST

START_TEST(count_zero)
{
	static const struct run_spec r[] = { { 8 * K, false } };
	struct layout l;
	struct rp_plan p;

	layout_from(&l, r, 1);
	ck_assert_int_eq(plan(&l, 0, 0, BIG, true, &p), 0);
	ck_assert_uint_eq(p.nseg, 0);
	ck_assert(!p.eof);
	ck_assert_int_eq(plan(&l, 8 * K, 0, BIG, true, &p), 0);
	ck_assert_uint_eq(p.nseg, 0);
	ck_assert(p.eof);
}
END_TEST

START_TEST(offsets_at_and_past_eof)
{
	static const struct run_spec r[] = { { 8 * K, false },
					     { 8 * K, true } };
	struct layout l, empty = { .n = 0, .size = 0 };
	struct rp_plan p;

	layout_from(&l, r, 2);
	ck_assert_int_eq(plan(&l, 16 * K, 4 * K, BIG, true, &p), 0);
	ck_assert_uint_eq(p.nseg, 0);
	ck_assert(p.eof);
	ck_assert_int_eq(plan(&l, UINT64_MAX, UINT32_MAX, BIG, true, &p), 0);
	ck_assert_uint_eq(p.nseg, 0);
	ck_assert(p.eof);
	ck_assert_int_eq(plan(&empty, 0, 4 * K, BIG, true, &p), 0);
	ck_assert_uint_eq(p.nseg, 0);
	ck_assert(p.eof);
	/* The empty reply fits in its 8 bytes, not in fewer. */
	ck_assert_int_eq(plan(&l, 16 * K, 4 * K, 8, true, &p), 0);
	ck_assert_uint_eq(rp_plan_xdr_size(&p), 8);
	ck_assert_int_eq(plan(&l, 16 * K, 4 * K, 7, true, &p), -E2BIG);
}
END_TEST

START_TEST(holes_off)
{
	static const struct run_spec r[] = { { 4 * K, true },
					     { 4 * K, false },
					     { 12 * K + 1, true } };
	static const struct want whole[] = { { 0, 20 * K + 1, false } };
	static const struct want cut[] = { { 2 * K, 2 * K, false } };
	struct layout l;
	struct rp_plan p;

	layout_from(&l, r, 3);
	ck_assert_int_eq(plan(&l, 0, l.size, BIG, false, &p), 0);
	expect_segs(&p, whole, 1);
	ck_assert(p.eof);
	/* one data run, cut by the budget like any other */
	ck_assert_int_eq(plan(&l, 2 * K, l.size, 8 + 16 + 5000, false, &p), 0);
	expect_segs(&p, cut, 1);
	ck_assert(!p.eof);
}
END_TEST

/* ---- the reply budget ----------------------------------------------------- */

START_TEST(budget_cuts_data_on_4k)
{
	static const struct run_spec r[] = { { 1024 * K, false } };
	static const struct want aligned[] = { { 0, 8 * K, false } };
	static const struct want to_4k[] = { { 1000, 8192 - 1000, false } };
	static const struct want short_of_4k[] = { { 4000, 96, false } };
	static const struct want no_4k[] = { { 4096, 100, false } };
	static const struct want one_word[] = { { 4096, 4, false } };
	struct layout l;
	struct rp_plan p;

	layout_from(&l, r, 1);
	ck_assert_int_eq(plan(&l, 0, 64 * K, 8 + 16 + 10000, true, &p), 0);
	expect_segs(&p, aligned, 1);
	ck_assert(!p.eof);
	ck_assert_int_eq(plan(&l, 1000, 64 * K, 8 + 16 + 10000, true, &p), 0);
	expect_segs(&p, to_4k, 1);
	/* the 4K boundary keeps some data: cut there */
	ck_assert_int_eq(plan(&l, 4000, 64 * K, 8 + 16 + 100, true, &p), 0);
	expect_segs(&p, short_of_4k, 1);
	/* no 4K boundary inside what fits: all that fits */
	ck_assert_int_eq(plan(&l, 4096, 64 * K, 8 + 16 + 100, true, &p), 0);
	expect_segs(&p, no_4k, 1);
	ck_assert_int_eq(plan(&l, 4096, 64 * K, 8 + 16 + 7, true, &p), 0);
	expect_segs(&p, one_word, 1);
	ck_assert_uint_le(rp_plan_xdr_size(&p), 8 + 16 + 7);
}
END_TEST

START_TEST(budget_keeps_holes_whole)
{
	static const struct run_spec r[] = { { 4 * K, false },
					     { 1024 * K, true },
					     { 4 * K, false } };
	static const struct want data_only[] = { { 0, 4 * K, false } };
	static const struct want with_hole[] = { { 0, 4 * K, false },
						 { 4 * K, 1024 * K, true } };
	struct layout l;
	struct rp_plan p;

	layout_from(&l, r, 3);
	/* one byte short of the hole's header: the hole is left out */
	ck_assert_int_eq(plan(&l, 0, l.size, want_xdr_size(with_hole, 2) - 1,
			      true, &p),
			 0);
	expect_segs(&p, data_only, 1);
	ck_assert(!p.eof);
	/* just enough for the header: the whole hole, whatever its length */
	ck_assert_int_eq(
		plan(&l, 0, l.size, want_xdr_size(with_hole, 2), true, &p), 0);
	expect_segs(&p, with_hole, 2);
	ck_assert_uint_eq(rp_plan_xdr_size(&p), want_xdr_size(with_hole, 2));
	ck_assert(!p.eof);
}
END_TEST

START_TEST(budget_too_small)
{
	static const struct run_spec data_first[] = { { 4 * K, false },
						      { 4 * K, true } };
	static const struct run_spec hole_first[] = { { 4 * K, true },
						      { 4 * K, false } };
	struct layout l;
	struct rp_plan p;

	/* the smallest reply with a segment: 8 + a hole or 1 byte = 28 */
	layout_from(&l, data_first, 2);
	ck_assert_int_eq(plan(&l, 0, l.size, 27, true, &p), -E2BIG);
	ck_assert_uint_eq(p.nseg, 0);
	ck_assert_int_eq(plan(&l, 0, l.size, 28, true, &p), 0);
	ck_assert_uint_eq(p.nseg, 1);
	ck_assert_uint_eq(p.seg[0].length, 4);
	layout_from(&l, hole_first, 2);
	ck_assert_int_eq(plan(&l, 0, l.size, 27, true, &p), -E2BIG);
	ck_assert_int_eq(plan(&l, 0, l.size, 28, true, &p), 0);
	ck_assert_uint_eq(p.nseg, 1);
	ck_assert(p.seg[0].hole);
	ck_assert_int_eq(plan(&l, 0, l.size, 0, true, &p), -E2BIG);
}
END_TEST

START_TEST(bad_layout_or_room)
{
	static const struct run_spec r[] = { { 4 * K, false },
					     { 4 * K, true } };
	struct layout l;
	struct rp_plan p;

	layout_from(&l, r, 2);
	l.ext[1].offset += 1; /* a gap */
	ck_assert_int_eq(plan(&l, 0, l.size, BIG, true, &p), -EINVAL);
	l.ext[1].offset -= 2; /* an overlap */
	ck_assert_int_eq(plan(&l, 0, l.size, BIG, true, &p), -EINVAL);
	l.ext[1].offset += 1;
	l.n = 1; /* short of the window */
	ck_assert_int_eq(plan(&l, 0, 8 * K, BIG, true, &p), -EINVAL);
	ck_assert_int_eq(plan(&l, 0, 4 * K, BIG, true, &p), 0);
	l.n = 2;
	p.seg = segs;
	p.max_seg = 0;
	{
		struct rp_request req = { .offset = 0,
					  .count = 4096,
					  .file_size = l.size,
					  .budget = BIG,
					  .report_holes = true };

		ck_assert_int_eq(rp_plan_build(&req, l.ext, l.n, &p), -EINVAL);
	}
}
END_TEST

/* ---- whole files walked with repeated plans ------------------------------- */

/* Segments of several plans, merged where adjacent and of the same type. */
struct merged {
	struct want w[MAX_EXT];
	size_t n;
};

static void merged_add(struct merged *m, uint64_t off, uint64_t len, bool hole)
{
	struct want *last = m->n ? &m->w[m->n - 1] : NULL;

	if (len == 0)
		return;
	if (last && last->hole == hole && last->off + last->len == off) {
		last->len += len;
		return;
	}
	ck_assert_uint_lt(m->n, MAX_EXT);
	m->w[m->n++] = (struct want){ off, len, hole };
}

/* Plan from 0 to EOF with this count and budget; the union is the layout. */
static void walk_file(const struct layout *l, uint32_t count, uint64_t budget)
{
	struct merged got = { .n = 0 }, want = { .n = 0 };
	struct rp_plan p = { .eof = false };
	uint64_t off = 0;
	unsigned int plans = 0;
	size_t i;

	while (!p.eof) {
		ck_assert_int_eq(plan(l, off, count, budget, true, &p), 0);
		ck_assert_uint_le(rp_plan_xdr_size(&p), budget);
		ck_assert_uint_le(rp_plan_data_bytes(&p), count);
		ck_assert_uint_gt(p.nseg, 0);
		ck_assert_uint_eq(p.seg[0].offset, off);
		/* data and holes together cover the plan exactly */
		ck_assert_uint_eq(rp_plan_data_bytes(&p) +
					  rp_plan_hole_bytes(&p),
				  rp_plan_end(&p, off) - off);
		for (i = 0; i < p.nseg; i++) {
			ck_assert_uint_eq(p.seg[i].offset,
					  i ? p.seg[i - 1].offset +
							  p.seg[i - 1].length :
					      off);
			merged_add(&got, p.seg[i].offset, p.seg[i].length,
				   p.seg[i].hole);
		}
		off = rp_plan_end(&p, off);
		ck_assert_uint_eq(p.eof, off == l->size);
		ck_assert_uint_lt(++plans, 1000000);
	}
	for (i = 0; i < l->n; i++)
		merged_add(&want, l->ext[i].offset, l->ext[i].length,
			   l->ext[i].hole);
	ck_assert_uint_eq(got.n, want.n);
	ck_assert(memcmp(got.w, want.w, want.n * sizeof(want.w[0])) == 0);
}

START_TEST(budget_walk_many_small_segments)
{
	struct run_spec r[1000];
	struct layout l;
	size_t i;

	/* 1000 runs of 100..1099 bytes, alternating */
	for (i = 0; i < 1000; i++) {
		r[i].len = 100 + (i * 7919) % 1000;
		r[i].hole = i % 2;
	}
	layout_from(&l, r, 1000);
	walk_file(&l, UINT32_MAX, 4 * K);
	walk_file(&l, UINT32_MAX, 28);
	walk_file(&l, UINT32_MAX, 1000);
	walk_file(&l, 3000, 64 * K);
	layout_from(&l, r, 20); /* small: one byte per plan */
	walk_file(&l, 1, BIG);
	layout_alternating(&l, 64, true);
	walk_file(&l, UINT32_MAX, 8 * K + 100);
	walk_file(&l, 20 * K, 8 * K + 100);
}
END_TEST

START_TEST(budget_stops_many_small_segments)
{
	struct run_spec r[200];
	struct layout l;
	struct rp_plan p;
	size_t i;

	for (i = 0; i < 200; i++) {
		r[i].len = 4;
		r[i].hole = i % 2;
	}
	layout_from(&l, r, 200);
	/* 8 + 10 x (data 20 + hole 20) fits 20 segments exactly */
	ck_assert_int_eq(plan(&l, 0, l.size, 8 + 10 * 40, true, &p), 0);
	ck_assert_uint_eq(p.nseg, 20);
	ck_assert_uint_eq(rp_plan_xdr_size(&p), 8 + 10 * 40);
	ck_assert_uint_eq(rp_plan_end(&p, 0), 80);
	ck_assert(!p.eof);
	ck_assert_int_eq(plan(&l, 0, l.size, 8 + 10 * 40 + 19, true, &p), 0);
	ck_assert_uint_eq(p.nseg, 20);
}
END_TEST

/* ---- random requests against a byte-by-byte model ------------------------- */

#define RAND_FILE_MAX (64 * 1024)

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t rng_below(uint64_t n)
{
	return n ? rng() % n : 0;
}

/*
 * The model: the file as one flag per byte, runs found by scanning bytes,
 * each run taken whole if it fits, else (data) the longest prefix that
 * fits, shortened to a 4K boundary when one is inside it.
 */
struct model_reply {
	int rc;
	struct want w[MAX_EXT];
	size_t n;
	bool eof;
};

static void model(const bool *is_hole, uint64_t size, uint64_t off,
		  uint32_t count, uint64_t budget, bool holes,
		  struct model_reply *m)
{
	uint64_t end, pos, left, q, len, cost;
	bool hole;

	m->n = 0;
	m->eof = false;
	m->rc = budget < 8 ? -E2BIG : 0;
	if (m->rc || off >= size) {
		m->eof = !m->rc;
		return;
	}
	end = off + count < size ? off + count : size;
	left = budget - 8;
	for (pos = off; pos < end; pos = q) {
		hole = holes && is_hole[pos];
		for (q = pos; q < end && (holes && is_hole[q]) == hole; q++)
			;
		len = q - pos;
		cost = hole ? 20 : 16 + (len + 3) / 4 * 4;
		if (cost > left && hole)
			break;
		if (cost > left) {
			if (left < 20)
				break;
			len = (left - 16) / 4 * 4;
			for (q = len; q > 0 && (pos + q) % 4096; q--)
				;
			len = q ? q : len;
			m->w[m->n++] = (struct want){ pos, len, false };
			pos += len;
			break;
		}
		m->w[m->n++] = (struct want){ pos, len, hole };
		left -= cost;
	}
	if (m->n == 0 && end > off)
		m->rc = -E2BIG;
	m->eof = !m->rc && pos == size;
}

static void random_layout(struct layout *l, bool *is_hole)
{
	uint64_t max_run = 1 + rng_below(9000), len;
	bool hole = rng() & 1;
	uint64_t i;

	l->n = 0;
	l->size = 0;
	while (l->n < MAX_EXT) {
		len = 1 + rng_below(max_run);
		if (l->size + len > RAND_FILE_MAX || rng_below(40) == 0)
			break;
		/* sometimes two extents of the same kind in a row */
		hole = rng_below(5) ? !hole : hole;
		l->ext[l->n++] = (struct fsal_segment){ l->size, len, hole };
		for (i = 0; i < len; i++)
			is_hole[l->size + i] = hole;
		l->size += len;
	}
}

/* Keep only what the planner needs: the extents inside [from, to). */
static void clip_layout(struct layout *l, uint64_t from, uint64_t to)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++) {
		uint64_t s = l->ext[i].offset, e = s + l->ext[i].length;

		s = s > from ? s : from;
		e = e < to ? e : to;
		if (s >= e)
			continue;
		l->ext[n++] = (struct fsal_segment){ s, e - s, l->ext[i].hole };
	}
	l->n = n;
}

START_TEST(random_against_model)
{
	static bool is_hole[RAND_FILE_MAX];
	static struct model_reply m;
	struct layout l;
	struct rp_plan p;
	unsigned int iter;

	for (iter = 0; iter < 3000; iter++) {
		uint64_t off, budget;
		uint32_t count;
		bool holes = rng_below(4) != 0;
		int rc;

		random_layout(&l, is_hole);
		off = rng_below(l.size + 100);
		count = rng_below(3) ? rng_below(l.size + 1) : UINT32_MAX;
		budget = rng_below(3) ? rng_below(2000) : rng_below(70000);
		if (rng_below(2) && off < l.size)
			clip_layout(&l, off,
				    off + count < l.size ? off + count :
							   l.size);
		model(is_hole, l.size, off, count, budget, holes, &m);
		rc = plan(&l, off, count, budget, holes, &p);
		ck_assert_msg(
			rc == m.rc,
			"iter %u: rc %d, model %d (off %llu count %u budget %llu size %llu)",
			iter, rc, m.rc, (unsigned long long)off, count,
			(unsigned long long)budget, (unsigned long long)l.size);
		if (rc)
			continue;
		expect_segs(&p, m.w, m.n);
		ck_assert_uint_eq(p.eof, m.eof);
		ck_assert_uint_le(rp_plan_xdr_size(&p), budget);
		ck_assert_uint_le(rp_plan_data_bytes(&p), count);
	}
}
END_TEST

/* ---- building a layout (rp_layout_*) -------------------------------------- */

static void expect_ext(const struct fsal_segment *e, size_t n,
		       const struct want *w, size_t nw)
{
	size_t i;

	ck_assert_uint_eq(n, nw);
	for (i = 0; i < n; i++)
		ck_assert_msg(e[i].offset == w[i].off &&
				      e[i].length == w[i].len &&
				      e[i].hole == w[i].hole,
			      "extent %zu: got %s %llu+%llu, want %s %llu+%llu",
			      i, e[i].hole ? "hole" : "data",
			      (unsigned long long)e[i].offset,
			      (unsigned long long)e[i].length,
			      w[i].hole ? "hole" : "data",
			      (unsigned long long)w[i].off,
			      (unsigned long long)w[i].len);
}

START_TEST(layout_append_merges)
{
	struct fsal_segment e[2];
	size_t n = 0;

	ck_assert_int_eq(rp_layout_append(e, &n, 2, 0, 4 * K, true), 0);
	ck_assert_int_eq(rp_layout_append(e, &n, 2, 4 * K, 0, false), 0);
	ck_assert_int_eq(rp_layout_append(e, &n, 2, 4 * K, 4 * K, true), 0);
	ck_assert_int_eq(rp_layout_append(e, &n, 2, 8 * K, 5, false), 0);
	ck_assert_int_eq(rp_layout_append(e, &n, 2, 8 * K + 5, 3, false), 0);
	ck_assert_int_eq(rp_layout_append(e, &n, 2, 8 * K + 8, 1, true),
			 -ENOSPC);
	expect_ext(e, n,
		   (struct want[]){ { 0, 8 * K, true }, { 8 * K, 8, false } },
		   2);
	ck_assert_uint_eq(rp_layout_cost(e, n), 8 + 20 + 16 + 8);
}
END_TEST

/*
 * Only holes whose both ends show are measured: a hole at the start, or
 * one cut by the layout's end short of EOF, stays a hole however short;
 * one ending at EOF after data is measured.
 */
START_TEST(layout_fold_bounded_holes)
{
	struct fsal_segment e[8];
	size_t n = 0;

	rp_layout_append(e, &n, 8, 0, 1 * K, true); /* start: kept */
	rp_layout_append(e, &n, 8, 1 * K, 4 * K, false);
	rp_layout_append(e, &n, 8, 5 * K, 4 * K, true); /* < 8K: folded */
	rp_layout_append(e, &n, 8, 9 * K, 4 * K, false);
	rp_layout_append(e, &n, 8, 13 * K, 8 * K, true); /* 8K: kept */
	rp_layout_append(e, &n, 8, 21 * K, 4 * K, false);
	rp_layout_append(e, &n, 8, 25 * K, 2 * K, true); /* cut: kept */
	rp_layout_fold(e, &n, 8 * K, 100 * K);
	expect_ext(e, n,
		   (struct want[]){ { 0, 1 * K, true },
				    { 1 * K, 12 * K, false },
				    { 13 * K, 8 * K, true },
				    { 21 * K, 4 * K, false },
				    { 25 * K, 2 * K, true } },
		   5);
	/* the same short hole ending at EOF (27K) after data: folded */
	rp_layout_fold(e, &n, 8 * K, 27 * K);
	expect_ext(e, n,
		   (struct want[]){ { 0, 1 * K, true },
				    { 1 * K, 12 * K, false },
				    { 13 * K, 8 * K, true },
				    { 21 * K, 6 * K, false } },
		   4);
	/* a layout of one hole is never folded; min 0 folds nothing */
	n = 0;
	rp_layout_append(e, &n, 8, 0, 100, true);
	rp_layout_fold(e, &n, 8 * K, 100);
	expect_ext(e, n, (struct want[]){ { 0, 100, true } }, 1);
}
END_TEST

/*
 * Before folding a buffer that holds a layout's data (the FSAL leaves hole
 * bytes untouched), the holes shorter than the minimum are zeroed: any of
 * them may become data.  Longer holes, and bytes outside holes, are left.
 */
START_TEST(layout_zero_short_holes)
{
	static char buf[32 * K];
	struct fsal_segment e[8];
	size_t n = 0, i;

	memset(buf, 0x5a, sizeof(buf));
	rp_layout_append(e, &n, 8, 8 * K, 1 * K, true); /* short: zeroed */
	rp_layout_append(e, &n, 8, 9 * K, 4 * K, false);
	rp_layout_append(e, &n, 8, 13 * K, 2 * K, true); /* short: zeroed */
	rp_layout_append(e, &n, 8, 15 * K, 4 * K, false);
	rp_layout_append(e, &n, 8, 19 * K, 8 * K, true); /* 8K: left */
	rp_layout_zero_short_holes(e, n, 8 * K, buf, 8 * K);
	for (i = 0; i < 19 * K; i++)
		ck_assert_msg(buf[i] ==
				      (i < 1 * K || (i >= 5 * K && i < 7 * K) ?
					       0 :
					       0x5a),
			      "byte %zu: %d", i, buf[i]);
	for (; i < sizeof(buf); i++)
		ck_assert_int_eq(buf[i], 0x5a);
}
END_TEST

START_TEST(layout_room_end)
{
	/* fits: the end; else a 4 KiB offset; else pos + room */
	ck_assert_uint_eq(rp_room_end(100, 200, 100), 200);
	ck_assert_uint_eq(rp_room_end(100, 20000, 10000), 8192);
	ck_assert_uint_eq(rp_room_end(100, 20000, 3000), 3100);
	ck_assert_uint_eq(rp_room_end(8192, 1 << 20, 4096), 12288);
}
END_TEST

/* Cut where the budget ends: data to a 4 KiB offset, a hole dropped. */
START_TEST(layout_fit_budget)
{
	struct fsal_segment e[4];
	size_t n = 0, k;

	rp_layout_append(e, &n, 4, 0, 64 * K, true);
	rp_layout_append(e, &n, 4, 64 * K, 64 * K, false);
	rp_layout_append(e, &n, 4, 128 * K, 64 * K, true);
	/* everything fits */
	ck_assert_uint_eq(rp_layout_fit(e, n, BIG), 3);
	/* 8 + 20 + 16 + 10000 rounded: data cut to 8K - 0 (offset 72K) */
	k = rp_layout_fit(e, n, 8 + 20 + 16 + 10000);
	ck_assert_uint_eq(k, 2);
	ck_assert_uint_eq(e[1].length, 8 * K);
	ck_assert_uint_le(rp_layout_cost(e, k), 8 + 20 + 16 + 10000);
	/* a budget with room for the data's header and a few bytes:
	 * whole XDR units, never past the budget
	 */
	e[1].length = 64 * K;
	k = rp_layout_fit(e, n, 8 + 20 + 16 + 7);
	ck_assert_uint_eq(k, 2);
	ck_assert_uint_eq(e[1].length, 4);
	ck_assert_uint_le(rp_layout_cost(e, k), 8 + 20 + 16 + 7);
	/* the hole after fitting data does not fit: dropped */
	e[1].length = 64 * K;
	k = rp_layout_fit(e, n, 8 + 20 + 16 + 64 * K + 19);
	ck_assert_uint_eq(k, 2);
	ck_assert_uint_eq(e[1].length, 64 * K);
	/* not even the first hole */
	ck_assert_uint_eq(rp_layout_fit(e, n, 27), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("read_plus_plan");
	TCase *shapes = tcase_create("shapes");
	TCase *limits = tcase_create("limits");
	TCase *walks = tcase_create("walks");
	SRunner *sr;
	int failed;

	tcase_add_test(shapes, all_hole);
	tcase_add_test(shapes, all_data);
	tcase_add_test(shapes, hole_at_start);
	tcase_add_test(shapes, hole_at_end);
	tcase_add_test(shapes, data_at_eof);
	tcase_add_test(shapes, alternation_data_first);
	tcase_add_test(shapes, alternation_hole_first);
	tcase_add_test(shapes, adjacent_runs_merged);
	tcase_add_test(shapes, holes_off);
	tcase_add_test(limits, count_limits);
	tcase_add_test(limits, count_zero);
	tcase_add_test(limits, offsets_at_and_past_eof);
	tcase_add_test(limits, budget_cuts_data_on_4k);
	tcase_add_test(limits, budget_keeps_holes_whole);
	tcase_add_test(limits, budget_too_small);
	tcase_add_test(limits, bad_layout_or_room);
	tcase_add_test(limits, layout_append_merges);
	tcase_add_test(limits, layout_fold_bounded_holes);
	tcase_add_test(limits, layout_zero_short_holes);
	tcase_add_test(limits, layout_room_end);
	tcase_add_test(limits, layout_fit_budget);
	tcase_add_test(walks, budget_walk_many_small_segments);
	tcase_add_test(walks, budget_stops_many_small_segments);
	tcase_add_test(walks, random_against_model);
	/* the walks take about a second; seconds more on a loaded machine */
	tcase_set_timeout(walks, 60);
	suite_add_tcase(s, shapes);
	suite_add_tcase(s, limits);
	suite_add_tcase(s, walks);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
