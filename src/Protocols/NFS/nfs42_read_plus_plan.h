/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * READ_PLUS segment planner (RFC 7862 section 15.10, XDR in RFC 7863).
 *
 * Decides which data and hole segments one READ_PLUS reply carries, from
 * the request, the file size, the data/hole layout of the asked range and
 * the reply budget.  It reads no file and encodes nothing: the operation
 * reads the planned data segments and encodes the plan.  No Ganesha header
 * is used here, so that the rules can be unit tested on their own and any
 * FSAL's layout (FSAL_SPARSE's map through the read_plus slot, a
 * SEEK_DATA/SEEK_HOLE walk) can feed them.  The rules are described in docs/read_plus.md.
 */

#ifndef NFS42_READ_PLUS_PLAN_H
#define NFS42_READ_PLUS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fsal_segment.h"

/* XDR sizes of a reply (READ_PLUS4resok) and of its parts. */
#define RP_XDR_RESOK_FIXED 8 /* rpr_eof + length of rpr_contents<> */
#define RP_XDR_DATA_HEAD 16 /* content + d_offset + length of d_data */
#define RP_XDR_HOLE 20 /* content + di_offset + di_length */
/* The smallest segment: a hole, or one byte of data padded to 4. */
#define RP_XDR_MIN_SEGMENT 20

/*
 * A layout and a plan are runs of struct fsal_segment (fsal_segment.h):
 * the type the FSAL reports them in, from the file to the encoder.  In a
 * layout, hole means the file has a hole there; in a plan, a hole segment
 * (NFS4_CONTENT_HOLE) versus a data one (NFS4_CONTENT_DATA).
 */

struct rp_request {
	uint64_t offset; /* rpa_offset */
	uint32_t count; /* rpa_count */
	uint64_t file_size;
	/*
	 * Bytes the reply may take for READ_PLUS4resok (eof, the array and
	 * its segments): ca_maxresponsesize minus what the compound already
	 * holds, including this op's opcode and status.
	 */
	uint64_t budget;
	bool report_holes; /* false: holes are sent as data (zeros) */
};

/*
 * A plan: segments go into seg, which the caller provides with room for
 * max_seg segments (one per extent is always enough).
 */
struct rp_plan {
	struct fsal_segment *seg;
	size_t max_seg;
	size_t nseg;
	bool eof;
};

/*
 * Plan one reply for req over the layout ext[0..next).  The extents must
 * be sorted and contiguous and cover [offset, min(offset + count, size));
 * extents, or parts of them, outside that window are ignored.
 *
 * Returns 0, -E2BIG when not even one segment fits the budget (the caller
 * answers NFS4ERR_REP_TOO_BIG, or NFS4ERR_REP_TOO_BIG_TO_CACHE when the
 * budget came from ca_maxresponsesize_cached), or -EINVAL when the layout
 * does not cover the window or plan has no room for a segment.
 */
int rp_plan_build(const struct rp_request *req, const struct fsal_segment *ext,
		  size_t next, struct rp_plan *plan);

/* Bytes of READ_PLUS4resok encoding plan: what the budget is checked on. */
uint64_t rp_plan_xdr_size(const struct rp_plan *plan);

/* Bytes of data (not holes) in plan: at most rpa_count. */
uint64_t rp_plan_data_bytes(const struct rp_plan *plan);

/* Bytes of holes in plan: what the reply did not have to send. */
uint64_t rp_plan_hole_bytes(const struct rp_plan *plan);

/*
 * Where the plan ends: the end of its last segment, or from when it has
 * none.  A client continuing the read asks from there.
 */
uint64_t rp_plan_end(const struct rp_plan *plan, uint64_t from);

/*
 * Building a layout before it is read (the operation's side).  A layout is
 * ext[0..*n) with room for max extents, sorted and contiguous.
 */

/*
 * Append [offset, offset + length) of one kind right after the last
 * extent, merged with it when of the same kind.  Empty runs are ignored.
 * Returns 0, or -ENOSPC when a new extent is needed and there is no room.
 */
int rp_layout_append(struct fsal_segment *ext, size_t *n, size_t max,
		     uint64_t offset, uint64_t length, bool hole);

/* Bytes ext[0..n) takes as a READ_PLUS4resok when each extent is a
 * segment.
 */
uint64_t rp_layout_cost(const struct fsal_segment *ext, size_t n);

/*
 * Fold holes shorter than min_hole into data, measuring only holes whose
 * both ends the layout shows: data before it, and data after it or the
 * end of file at file_size.  A hole at the start of the layout, or one
 * the layout's end cuts short of EOF, may be longer than it shows and is
 * kept.  Neighbours are merged.  The one rule for every FSAL: an FSAL
 * reports every hole it finds, and READ_PLUS_Min_Hole is applied here.
 * Bytes of a folded hole read as zeros: a caller holding the data in a
 * buffer zeroes them (rp_layout_zero_short_holes).
 */
void rp_layout_fold(struct fsal_segment *ext, size_t *n, uint64_t min_hole,
		    uint64_t file_size);

/*
 * Zero, in buf (buf[0] is file offset start), every hole of the layout
 * shorter than min_hole (the FSAL leaves hole bytes untouched): any of
 * them rp_layout_fold may turn into data then reads as zeros.
 */
void rp_layout_zero_short_holes(const struct fsal_segment *ext, size_t n,
				uint64_t min_hole, char *buf, uint64_t start);

/*
 * Where a window from pos towards end may stop so that at most room bytes
 * of data are in it: end when it fits, else on a 4 KiB file offset when
 * that keeps at least one byte, else pos + room.
 */
uint64_t rp_room_end(uint64_t pos, uint64_t end, uint64_t room);

/*
 * Cut the layout where its cost reaches budget (the data beyond what a
 * reply can send is then not read): the first extent that does not fit
 * is dropped, or, for data, cut with rp_room_end when at least 4 bytes of
 * it fit.  Returns the new number of extents.
 */
size_t rp_layout_fit(struct fsal_segment *ext, size_t n, uint64_t budget);

#endif /* NFS42_READ_PLUS_PLAN_H */
