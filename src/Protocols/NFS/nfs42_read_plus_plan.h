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
 * FSAL's layout (FSAL_SPARSE's map, a SEEK_DATA/SEEK_HOLE walk) can feed
 * them.  The rules are described in docs/read_plus.md.
 */

#ifndef NFS42_READ_PLUS_PLAN_H
#define NFS42_READ_PLUS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Segment types; the values are those of data_content4 on the wire. */
enum rp_seg_type {
	RP_SEG_DATA = 0, /* NFS4_CONTENT_DATA */
	RP_SEG_HOLE = 1, /* NFS4_CONTENT_HOLE */
};

/* XDR sizes of a reply (READ_PLUS4resok) and of its parts. */
#define RP_XDR_RESOK_FIXED 8 /* rpr_eof + length of rpr_contents<> */
#define RP_XDR_DATA_HEAD 16 /* content + d_offset + length of d_data */
#define RP_XDR_HOLE 20 /* content + di_offset + di_length */

/* The file's layout: one run that is all data or all hole. */
struct rp_extent {
	uint64_t offset;
	uint64_t length;
	bool hole;
};

/* One planned segment of the reply. */
struct rp_segment {
	enum rp_seg_type type;
	uint64_t offset;
	uint64_t length;
};

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
	struct rp_segment *seg;
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
int rp_plan_build(const struct rp_request *req, const struct rp_extent *ext,
		  size_t next, struct rp_plan *plan);

/* Bytes of READ_PLUS4resok encoding plan: what the budget is checked on. */
uint64_t rp_plan_xdr_size(const struct rp_plan *plan);

/* Bytes of data (not holes) in plan: at most rpa_count. */
uint64_t rp_plan_data_bytes(const struct rp_plan *plan);

/*
 * Where the plan ends: the end of its last segment, or from when it has
 * none.  A client continuing the read asks from there.
 */
uint64_t rp_plan_end(const struct rp_plan *plan, uint64_t from);

#endif /* NFS42_READ_PLUS_PLAN_H */
