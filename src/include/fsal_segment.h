/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * One run of a file that is all data or all hole: the one type a run has
 * from the file to the encoder.  An FSAL's read_plus slot reports runs of
 * it (fsal_api.h, patch 0008), FSAL_SPARSE's data/hole map is made of it
 * (sparse_map.h), and the READ_PLUS planner lays out and plans with it
 * (nfs42_read_plus_plan.h) before the reply turns each into a
 * data_content4.  Free of any other header, so that the pure helpers and
 * their unit tests use it too.
 */

#ifndef FSAL_SEGMENT_H
#define FSAL_SEGMENT_H

#include <stdbool.h>
#include <stdint.h>

/**
 * @brief One run of a file that is all data or all hole
 */
struct fsal_segment {
	uint64_t offset; /**< First byte of the run */
	uint64_t length; /**< Bytes in the run */
	bool hole; /**< true: reads as zeros, and the filesystem says so */
};

static inline uint64_t fsal_segment_end(const struct fsal_segment *s)
{
	return s->offset + s->length;
}

#endif /* FSAL_SEGMENT_H */
