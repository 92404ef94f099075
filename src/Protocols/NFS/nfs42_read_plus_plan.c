/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * READ_PLUS segment planner: see nfs42_read_plus_plan.h and
 * docs/read_plus.md for the rules.
 */

#include <errno.h>
#include <string.h>

#include "nfs42_read_plus_plan.h"

/* A data segment cut to fit the budget ends on this boundary if it can. */
#define RP_CUT_ALIGN 4096ULL

/* A run of the window: adjacent extents of the same kind, merged. */
struct rp_run {
	bool hole; /* a hole segment, else data */
	uint64_t offset;
	uint64_t length;
};

static uint64_t xdr_pad4(uint64_t n)
{
	return (n + 3) & ~3ULL;
}

static uint64_t segment_cost(bool hole, uint64_t length)
{
	if (hole)
		return RP_XDR_HOLE;
	return RP_XDR_DATA_HEAD + xdr_pad4(length);
}

static uint64_t extent_end(const struct fsal_segment *e)
{
	return fsal_segment_end(e);
}

/*
 * The part of the file one reply may describe: from offset to
 * offset + count, clipped to the file size.  Holes are not reported past
 * it either, so every segment lies inside what the client asked for.
 */
static uint64_t window_end(const struct rp_request *req)
{
	uint64_t left = req->file_size - req->offset;

	return req->offset + (req->count < left ? req->count : left);
}

/*
 * Whether ext covers [from, to) in order, without a gap or an overlap.
 * Extents ending before from are skipped; empty extents are allowed
 * anywhere.
 */
static bool layout_covers(const struct fsal_segment *ext, size_t next,
			  uint64_t from, uint64_t to)
{
	uint64_t pos = from;
	bool started = false;
	size_t i;

	for (i = 0; i < next && pos < to; i++) {
		if (ext[i].length == 0)
			continue;
		if (!started && extent_end(&ext[i]) <= from)
			continue;
		if (started ? ext[i].offset != pos : ext[i].offset > pos)
			return false;
		started = true;
		pos = extent_end(&ext[i]);
	}
	return pos >= to;
}

/* Is e a hole segment of the reply? */
static bool extent_type(const struct fsal_segment *e, bool report_holes)
{
	return report_holes && e->hole;
}

/*
 * The run starting at pos (< end) of a layout that covers [pos, end):
 * extents of the same kind merged, clipped to end.  *i is where the
 * search starts and is left on the run's last extent.
 */
static void next_run(const struct fsal_segment *ext, size_t next, size_t *i,
		     uint64_t pos, uint64_t end, bool report_holes,
		     struct rp_run *run)
{
	uint64_t run_end;

	while (ext[*i].length == 0 || extent_end(&ext[*i]) <= pos)
		(*i)++;
	run->hole = extent_type(&ext[*i], report_holes);
	run_end = extent_end(&ext[*i]);
	while (run_end < end && *i + 1 < next &&
	       (ext[*i + 1].length == 0 ||
		extent_type(&ext[*i + 1], report_holes) == run->hole)) {
		(*i)++;
		if (extent_end(&ext[*i]) > run_end)
			run_end = extent_end(&ext[*i]);
	}
	run->offset = pos;
	run->length = (run_end < end ? run_end : end) - pos;
}

/*
 * Length of the longest prefix of a data run that fits in left bytes, 0
 * when not even one byte does.  Ends the prefix on a 4 KiB file offset
 * when that keeps some data, so that the client's next read is aligned.
 */
static uint64_t data_prefix_fitting(const struct rp_run *run, uint64_t left)
{
	uint64_t room, aligned_end;

	if (left < RP_XDR_DATA_HEAD + 4)
		return 0;
	room = (left - RP_XDR_DATA_HEAD) & ~3ULL;
	if (room >= run->length)
		return run->length;
	aligned_end = (run->offset + room) & ~(RP_CUT_ALIGN - 1);
	if (aligned_end > run->offset)
		return aligned_end - run->offset;
	return room;
}

/*
 * Shrink run to what fits in left bytes of reply: a hole whole or not at
 * all (cutting it would save nothing), data possibly cut short.  Returns
 * false when nothing of it fits.
 */
static bool fit_run(struct rp_run *run, uint64_t left)
{
	if (segment_cost(run->hole, run->length) <= left)
		return true;
	if (run->hole)
		return false;
	run->length = data_prefix_fitting(run, left);
	return run->length > 0;
}

int rp_plan_build(const struct rp_request *req, const struct fsal_segment *ext,
		  size_t next, struct rp_plan *plan)
{
	uint64_t pos = req->offset, end, left;
	struct rp_run run;
	size_t i = 0;

	plan->nseg = 0;
	plan->eof = false;
	if (plan->max_seg == 0)
		return -EINVAL;
	if (req->budget < RP_XDR_RESOK_FIXED)
		return -E2BIG;
	if (req->offset >= req->file_size) {
		plan->eof = true;
		return 0;
	}
	end = window_end(req);
	if (!layout_covers(ext, next, pos, end))
		return -EINVAL;
	left = req->budget - RP_XDR_RESOK_FIXED;
	while (pos < end && plan->nseg < plan->max_seg) {
		uint64_t whole;

		next_run(ext, next, &i, pos, end, req->report_holes, &run);
		whole = run.length;
		if (!fit_run(&run, left))
			break;
		plan->seg[plan->nseg].hole = run.hole;
		plan->seg[plan->nseg].offset = run.offset;
		plan->seg[plan->nseg].length = run.length;
		plan->nseg++;
		left -= segment_cost(run.hole, run.length);
		pos += run.length;
		if (run.length < whole)
			break; /* cut to fit: the budget is spent */
	}
	if (plan->nseg == 0 && end > req->offset)
		return -E2BIG;
	plan->eof = pos == req->file_size;
	return 0;
}

uint64_t rp_plan_xdr_size(const struct rp_plan *plan)
{
	uint64_t size = RP_XDR_RESOK_FIXED;
	size_t i;

	for (i = 0; i < plan->nseg; i++)
		size += segment_cost(plan->seg[i].hole, plan->seg[i].length);
	return size;
}

static uint64_t rp_plan_bytes_of(const struct rp_plan *plan, bool hole)
{
	uint64_t bytes = 0;
	size_t i;

	for (i = 0; i < plan->nseg; i++)
		if (plan->seg[i].hole == hole)
			bytes += plan->seg[i].length;
	return bytes;
}

uint64_t rp_plan_data_bytes(const struct rp_plan *plan)
{
	return rp_plan_bytes_of(plan, false);
}

uint64_t rp_plan_hole_bytes(const struct rp_plan *plan)
{
	return rp_plan_bytes_of(plan, true);
}

uint64_t rp_plan_end(const struct rp_plan *plan, uint64_t from)
{
	const struct fsal_segment *last;

	if (plan->nseg == 0)
		return from;
	last = &plan->seg[plan->nseg - 1];
	return last->offset + last->length;
}

/* ---- building a layout ----------------------------------------------- */

int rp_layout_append(struct fsal_segment *ext, size_t *n, size_t max,
		     uint64_t offset, uint64_t length, bool hole)
{
	struct fsal_segment *last = *n ? &ext[*n - 1] : NULL;

	if (length == 0)
		return 0;
	if (last != NULL && last->hole == hole && extent_end(last) == offset) {
		last->length += length;
		return 0;
	}
	if (*n >= max)
		return -ENOSPC;
	ext[*n].offset = offset;
	ext[*n].length = length;
	ext[*n].hole = hole;
	(*n)++;
	return 0;
}

uint64_t rp_layout_cost(const struct fsal_segment *ext, size_t n)
{
	uint64_t cost = RP_XDR_RESOK_FIXED;
	size_t i;

	for (i = 0; i < n; i++)
		cost += segment_cost(ext[i].hole, ext[i].length);
	return cost;
}

void rp_layout_fold(struct fsal_segment *ext, size_t *n, uint64_t min_hole,
		    uint64_t file_size)
{
	size_t i, out = 0;

	for (i = 0; i < *n; i++) {
		struct fsal_segment e = ext[i];
		bool bounded = i > 0 &&
			       (i + 1 < *n || extent_end(&e) == file_size);

		if (e.hole && bounded && e.length < min_hole)
			e.hole = false;
		if (out > 0 && ext[out - 1].hole == e.hole)
			ext[out - 1].length += e.length;
		else
			ext[out++] = e;
	}
	*n = out;
}

void rp_layout_zero_short_holes(const struct fsal_segment *ext, size_t n,
				uint64_t min_hole, char *buf, uint64_t start)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ext[i].hole && ext[i].length < min_hole &&
		    ext[i].offset >= start)
			memset(buf + (ext[i].offset - start), 0, ext[i].length);
}

uint64_t rp_room_end(uint64_t pos, uint64_t end, uint64_t room)
{
	uint64_t cut;

	if (end - pos <= room)
		return end;
	cut = (pos + room) & ~(RP_CUT_ALIGN - 1);
	return cut > pos ? cut : pos + room;
}

size_t rp_layout_fit(struct fsal_segment *ext, size_t n, uint64_t budget)
{
	uint64_t cost = RP_XDR_RESOK_FIXED;
	size_t i;

	for (i = 0; i < n; i++) {
		struct fsal_segment *e = &ext[i];
		uint64_t need = segment_cost(e->hole, e->length);

		if (cost + need <= budget) {
			cost += need;
			continue;
		}
		if (!e->hole && cost + RP_XDR_DATA_HEAD + 4 <= budget) {
			/* whole XDR units, so that the padding fits too */
			uint64_t room = (budget - cost - RP_XDR_DATA_HEAD) &
					~3ULL;

			e->length =
				rp_room_end(e->offset, extent_end(e), room) -
				e->offset;
			return i + 1;
		}
		return i;
	}
	return n;
}
