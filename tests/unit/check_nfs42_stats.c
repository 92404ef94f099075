/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * The per-export NFSv4.2 counters (src/include/nfs42_stats.h): each update
 * lands in its own fields, kinds stay apart, an unknown kind is ignored,
 * snapshot and reset cover every field, and concurrent updates from
 * several threads lose nothing.
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nfs42_stats.h"

START_TEST(read_plus_adds_calls_data_and_holes)
{
	struct nfs42_export_stats st = { 0 }, snap;

	nfs42_counters_read_plus(&st, 4096, 1 << 20);
	nfs42_counters_read_plus(&st, 0, 7);
	nfs42_counters_snapshot(&st, &snap);
	ck_assert_uint_eq(snap.read_plus_calls, 2);
	ck_assert_uint_eq(snap.read_plus_data_bytes, 4096);
	ck_assert_uint_eq(snap.read_plus_hole_bytes, (1 << 20) + 7);
	for (int k = 0; k < NFS42_COPY_KINDS; k++) {
		ck_assert_uint_eq(snap.copy_calls[k], 0);
		ck_assert_uint_eq(snap.copy_bytes[k], 0);
	}
}
END_TEST

START_TEST(copy_kinds_stay_apart)
{
	struct nfs42_export_stats st = { 0 };

	nfs42_counters_copy(&st, NFS42_COPY_SYNC, 100);
	nfs42_counters_copy(&st, NFS42_COPY_SYNC, 1);
	nfs42_counters_copy(&st, NFS42_COPY_ASYNC, 1000);
	nfs42_counters_copy(&st, NFS42_CLONE, 65536);
	nfs42_counters_copy(&st, NFS42_CLONE, 0);
	nfs42_counters_copy(&st, NFS42_COPY_KINDS, 5); /* ignored */
	nfs42_counters_copy(&st, (enum nfs42_copy_kind)99, 5); /* ignored */
	ck_assert_uint_eq(st.copy_calls[NFS42_COPY_SYNC], 2);
	ck_assert_uint_eq(st.copy_bytes[NFS42_COPY_SYNC], 101);
	ck_assert_uint_eq(st.copy_calls[NFS42_COPY_ASYNC], 1);
	ck_assert_uint_eq(st.copy_bytes[NFS42_COPY_ASYNC], 1000);
	ck_assert_uint_eq(st.copy_calls[NFS42_CLONE], 2);
	ck_assert_uint_eq(st.copy_bytes[NFS42_CLONE], 65536);
	ck_assert_uint_eq(st.read_plus_calls, 0);
}
END_TEST

START_TEST(snapshot_and_reset_cover_every_field)
{
	struct nfs42_export_stats st, snap;

	memset(&st, 0xa5, sizeof(st));
	memset(&snap, 0, sizeof(snap));
	nfs42_counters_snapshot(&st, &snap);
	ck_assert_mem_eq(&st, &snap, sizeof(st));
	nfs42_counters_reset(&st);
	memset(&snap, 0, sizeof(snap));
	ck_assert_mem_eq(&st, &snap, sizeof(st));
}
END_TEST

#define THREADS 4
#define ROUNDS 1000000

static struct nfs42_export_stats shared;
/* loaded atomically on every round, so that the compiler cannot merge the
 * rounds' updates into one (which would hide plain, non-atomic additions)
 */
static struct nfs42_export_stats *target = &shared;
static pthread_barrier_t start_line;

static void *hammer(void *arg)
{
	pthread_barrier_wait(&start_line);
	for (int i = 0; i < ROUNDS; i++) {
		nfs42_counters_read_plus(
			__atomic_load_n(&target, __ATOMIC_RELAXED), 3, 5);
		nfs42_counters_copy(__atomic_load_n(&target, __ATOMIC_RELAXED),
				    NFS42_CLONE, 7);
	}
	return arg;
}

START_TEST(concurrent_updates_lose_nothing)
{
	pthread_t t[THREADS];

	memset(&shared, 0, sizeof(shared));
	ck_assert_int_eq(pthread_barrier_init(&start_line, NULL, THREADS), 0);
	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, hammer, NULL), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start_line);
	ck_assert_uint_eq(shared.read_plus_calls, THREADS * ROUNDS);
	ck_assert_uint_eq(shared.read_plus_data_bytes, 3ULL * THREADS * ROUNDS);
	ck_assert_uint_eq(shared.read_plus_hole_bytes, 5ULL * THREADS * ROUNDS);
	ck_assert_uint_eq(shared.copy_calls[NFS42_CLONE], THREADS * ROUNDS);
	ck_assert_uint_eq(shared.copy_bytes[NFS42_CLONE],
			  7ULL * THREADS * ROUNDS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("check_nfs42_stats");
	TCase *tc = tcase_create("counters");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, read_plus_adds_calls_data_and_holes);
	tcase_add_test(tc, copy_kinds_stay_apart);
	tcase_add_test(tc, snapshot_and_reset_cover_every_field);
	tcase_add_test(tc, concurrent_updates_lose_nothing);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
