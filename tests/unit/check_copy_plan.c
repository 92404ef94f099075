/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Unit tests of the COPY/CLONE rules (nfs42_copy_plan.c): the range check
 * (RFC 7862 15.2.3: source range within EOF, count 0 to EOF, no overlap in
 * one file, destination below the maximum offset) and one reply's chunk
 * bound (byte cap and time budget, progress guaranteed).
 */

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "nfs42_copy_plan.h"

#define MiB (1024ULL * 1024)
#define NOMAX UINT64_MAX

static enum nfs42_range_verdict check(uint64_t src_off, uint64_t dst_off,
				      uint64_t count, uint64_t size, bool same,
				      uint64_t *len)
{
	return nfs42_copy_range_verdict(src_off, dst_off, count, size, NOMAX,
					same, len);
}

START_TEST(range_count_zero_is_to_eof)
{
	uint64_t len;

	ck_assert_int_eq(check(0, 0, 0, 10 * MiB, false, &len), NFS42_RANGE_OK);
	ck_assert_uint_eq(len, 10 * MiB);
	ck_assert_int_eq(check(MiB, 0, 0, 10 * MiB, false, &len),
			 NFS42_RANGE_OK);
	ck_assert_uint_eq(len, 9 * MiB);
	/* at EOF: nothing to copy, not an error */
	ck_assert_int_eq(check(10 * MiB, 0, 0, 10 * MiB, false, &len),
			 NFS42_RANGE_OK);
	ck_assert_uint_eq(len, 0);
	/* empty source */
	ck_assert_int_eq(check(0, 5, 0, 0, false, &len), NFS42_RANGE_OK);
	ck_assert_uint_eq(len, 0);
}
END_TEST

START_TEST(range_past_eof_is_inval)
{
	uint64_t len;

	ck_assert_int_eq(check(10 * MiB + 1, 0, 0, 10 * MiB, false, &len),
			 NFS42_RANGE_INVAL);
	ck_assert_int_eq(check(0, 0, 10 * MiB + 1, 10 * MiB, false, &len),
			 NFS42_RANGE_INVAL);
	ck_assert_int_eq(check(MiB, 0, 9 * MiB + 1, 10 * MiB, false, &len),
			 NFS42_RANGE_INVAL);
	ck_assert_int_eq(check(MiB, 0, 9 * MiB, 10 * MiB, false, &len),
			 NFS42_RANGE_OK);
	ck_assert_uint_eq(len, 9 * MiB);
	/* overflow of offset + count */
	ck_assert_int_eq(check(MiB, 0, UINT64_MAX, 10 * MiB, false, &len),
			 NFS42_RANGE_INVAL);
}
END_TEST

START_TEST(range_destination_limits)
{
	uint64_t len;

	ck_assert_int_eq(check(0, UINT64_MAX - 10, 100, 100, false, &len),
			 NFS42_RANGE_INVAL);
	ck_assert_int_eq(nfs42_copy_range_verdict(0, 1000, 100, 100, 1099,
						  false, &len),
			 NFS42_RANGE_FBIG);
	ck_assert_int_eq(nfs42_copy_range_verdict(0, 1000, 100, 100, 1100,
						  false, &len),
			 NFS42_RANGE_OK);
}
END_TEST

START_TEST(range_overlap_in_one_file)
{
	uint64_t len;

	/* one file: overlapping ranges refused, touching ones allowed */
	ck_assert_int_eq(check(0, 50, 100, 1000, true, &len),
			 NFS42_RANGE_INVAL);
	ck_assert_int_eq(check(50, 0, 100, 1000, true, &len),
			 NFS42_RANGE_INVAL);
	ck_assert_int_eq(check(0, 0, 100, 1000, true, &len), NFS42_RANGE_INVAL);
	ck_assert_int_eq(check(0, 100, 100, 1000, true, &len), NFS42_RANGE_OK);
	ck_assert_int_eq(check(100, 0, 100, 1000, true, &len), NFS42_RANGE_OK);
	/* count 0 resolves to EOF before the overlap test */
	ck_assert_int_eq(check(500, 900, 0, 1000, true, &len),
			 NFS42_RANGE_INVAL);
	ck_assert_int_eq(check(500, 1000, 0, 1000, true, &len), NFS42_RANGE_OK);
	/* nothing to copy cannot overlap */
	ck_assert_int_eq(check(1000, 1000, 0, 1000, true, &len),
			 NFS42_RANGE_OK);
	/* two files: the same offsets are fine */
	ck_assert_int_eq(check(0, 50, 100, 1000, false, &len), NFS42_RANGE_OK);
}
END_TEST

START_TEST(chunk_cap)
{
	struct nfs42_chunk c = { .cap = 4 * MiB };

	ck_assert(!nfs42_chunk_stop(&c, 0));
	ck_assert_uint_eq(nfs42_chunk_piece(&c, 64 * MiB), 4 * MiB);
	c.done = 3 * MiB;
	ck_assert(!nfs42_chunk_stop(&c, 0));
	ck_assert_uint_eq(nfs42_chunk_piece(&c, 64 * MiB), MiB);
	ck_assert_uint_eq(nfs42_chunk_piece(&c, 100), 100);
	c.done = 4 * MiB;
	ck_assert(nfs42_chunk_stop(&c, 0));
	/* no cap: anything goes */
	c.cap = 0;
	ck_assert(!nfs42_chunk_stop(&c, 0));
	ck_assert_uint_eq(nfs42_chunk_piece(&c, 1ULL << 40), 1ULL << 40);
}
END_TEST

START_TEST(chunk_budget)
{
	struct nfs42_chunk c = { .budget_ms = 100 };

	/* the first piece always goes, however late (times in us) */
	ck_assert(!nfs42_chunk_stop(&c, 5000000));
	c.done = 1;
	ck_assert(!nfs42_chunk_stop(&c, 99999));
	ck_assert(nfs42_chunk_stop(&c, 100000));
	/* a next piece as slow as the slowest would end past the budget */
	nfs42_chunk_piece_took(&c, 30000);
	nfs42_chunk_piece_took(&c, 10000); /* the slowest stays 30 ms */
	ck_assert_uint_eq(c.slowest_us, 30000);
	ck_assert(!nfs42_chunk_stop(&c, 69999));
	ck_assert(nfs42_chunk_stop(&c, 70000));
	ck_assert(nfs42_chunk_over_budget(&c, 70000));
	/* whichever comes first */
	c.slowest_us = 0;
	c.cap = 4 * MiB;
	c.done = 4 * MiB;
	ck_assert(nfs42_chunk_stop(&c, 1));
	c.budget_ms = 0;
	c.done = MiB;
	ck_assert(!nfs42_chunk_stop(&c, 1000000000));
	nfs42_chunk_piece_took(&c, 1000000000);
	ck_assert(!nfs42_chunk_over_budget(&c, 1000000000));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("copy_plan");
	TCase *range = tcase_create("range");
	TCase *chunk = tcase_create("chunk");
	SRunner *sr;
	int failed;

	tcase_add_test(range, range_count_zero_is_to_eof);
	tcase_add_test(range, range_past_eof_is_inval);
	tcase_add_test(range, range_destination_limits);
	tcase_add_test(range, range_overlap_in_one_file);
	tcase_add_test(chunk, chunk_cap);
	tcase_add_test(chunk, chunk_budget);
	suite_add_tcase(s, range);
	suite_add_tcase(s, chunk);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
