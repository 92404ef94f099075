/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Pure rules of NFSv4.2 COPY and CLONE (RFC 7862 15.2, 15.13): the range
 * check both operations make, and the chunk bound one COPY reply obeys
 * (a byte cap and a time budget, whichever comes first).  Free of any
 * Ganesha header so that they can be unit tested on their own
 * (tests/unit/check_copy_plan.c).
 */

#ifndef NFS42_COPY_PLAN_H
#define NFS42_COPY_PLAN_H

#include <stdbool.h>
#include <stdint.h>

enum nfs42_range_verdict {
	NFS42_RANGE_OK = 0,
	NFS42_RANGE_INVAL, /* source range past EOF, overflow, overlap */
	NFS42_RANGE_FBIG, /* the destination would pass the maximum offset */
};

/*
 * [src_off, src_off + count) of a source of src_size bytes, to dst_off:
 * count 0 means up to the source's end of file.  The source range must lie
 * within the file, the destination range must fit below max_dst_end, and
 * in one file (same_file) the two ranges must not overlap.  *len is the
 * length the range resolves to (set whatever the verdict).
 */
enum nfs42_range_verdict
nfs42_copy_range_verdict(uint64_t src_off, uint64_t dst_off, uint64_t count,
			 uint64_t src_size, uint64_t max_dst_end,
			 bool same_file, uint64_t *len);

/* One reply's chunk: cap bytes (0: none), budget_ms (0: none). */
struct nfs42_chunk {
	uint64_t cap;
	uint32_t budget_ms;
	uint64_t done; /* bytes of the range done so far in this reply */
	uint64_t slowest_us; /* the longest piece so far in this reply */
};

/*
 * Would a next piece as slow as the slowest so far end past the budget,
 * elapsed_us after the reply began?  Stopping then keeps a reply within
 * its budget rather than over it by up to one piece.
 */
bool nfs42_chunk_over_budget(const struct nfs42_chunk *chunk,
			     uint64_t elapsed_us);

/*
 * Must the reply stop before the next piece, elapsed_us after it began?
 * At the cap or over the budget (above), but never before the first
 * piece, so every reply makes progress.
 */
bool nfs42_chunk_stop(const struct nfs42_chunk *chunk, uint64_t elapsed_us);

/* A piece took us microseconds. */
void nfs42_chunk_piece_took(struct nfs42_chunk *chunk, uint64_t us);

/* How much of want (> 0) the next piece may take under the cap (> 0). */
uint64_t nfs42_chunk_piece(const struct nfs42_chunk *chunk, uint64_t want);

#endif /* NFS42_COPY_PLAN_H */
