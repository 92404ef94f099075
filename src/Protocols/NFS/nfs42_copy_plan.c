/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/* Pure rules of NFSv4.2 COPY and CLONE; see nfs42_copy_plan.h. */

#include "nfs42_copy_plan.h"

enum nfs42_range_verdict
nfs42_copy_range_verdict(uint64_t src_off, uint64_t dst_off, uint64_t count,
			 uint64_t src_size, uint64_t max_dst_end,
			 bool same_file, uint64_t *len)
{
	*len = 0;
	if (src_off > src_size || count > src_size - src_off)
		return NFS42_RANGE_INVAL;
	*len = count != 0 ? count : src_size - src_off;

	if (dst_off > UINT64_MAX - *len)
		return NFS42_RANGE_INVAL;
	if (dst_off + *len > max_dst_end)
		return NFS42_RANGE_FBIG;

	if (same_file && *len != 0 && src_off < dst_off + *len &&
	    dst_off < src_off + *len)
		return NFS42_RANGE_INVAL;
	return NFS42_RANGE_OK;
}

bool nfs42_chunk_over_budget(const struct nfs42_chunk *chunk,
			     uint64_t elapsed_us)
{
	return chunk->budget_ms != 0 &&
	       elapsed_us + chunk->slowest_us >=
		       (uint64_t)chunk->budget_ms * 1000;
}

bool nfs42_chunk_stop(const struct nfs42_chunk *chunk, uint64_t elapsed_us)
{
	if (chunk->done == 0)
		return false;
	if (chunk->cap != 0 && chunk->done >= chunk->cap)
		return true;
	return nfs42_chunk_over_budget(chunk, elapsed_us);
}

void nfs42_chunk_piece_took(struct nfs42_chunk *chunk, uint64_t us)
{
	if (us > chunk->slowest_us)
		chunk->slowest_us = us;
}

uint64_t nfs42_chunk_piece(const struct nfs42_chunk *chunk, uint64_t want)
{
	uint64_t left;

	if (chunk->cap == 0)
		return want;
	left = chunk->done < chunk->cap ? chunk->cap - chunk->done : 0;
	return want < left ? want : left;
}
