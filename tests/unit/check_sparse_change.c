/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * The change attribute's table (sparse_change.c): a change through the
 * server always moves the reported value, a value never goes back below
 * one reported, an untouched object follows ctime/mtime, objects do not
 * mix, a full set forgets its least recently seen object, and concurrent
 * touches and reports never give one value twice for two changes.
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>

#include "sparse_change.h"

#define DEV 0x801

static void setup(void)
{
	sparse_change_reset();
}

START_TEST(untouched_follows_raw)
{
	ck_assert_uint_eq(sparse_change_report(DEV, 10, 1000), 1000);
	ck_assert_uint_eq(sparse_change_report(DEV, 10, 1000), 1000);
	ck_assert_uint_eq(sparse_change_report(DEV, 10, 5000), 5000);
}
END_TEST

START_TEST(change_within_a_tick_moves)
{
	/* the clock tick: every change at raw 1000 */
	ck_assert_uint_eq(sparse_change_report(DEV, 10, 1000), 1000);
	sparse_change_touch(DEV, 10);
	ck_assert_uint_eq(sparse_change_report(DEV, 10, 1000), 1001);
	ck_assert_uint_eq(sparse_change_report(DEV, 10, 1000), 1001);
	sparse_change_touch(DEV, 10);
	sparse_change_touch(DEV, 10); /* two changes, one report: one step */
	ck_assert_uint_eq(sparse_change_report(DEV, 10, 1000), 1002);
	/* the next tick overtakes */
	sparse_change_touch(DEV, 10);
	ck_assert_uint_eq(sparse_change_report(DEV, 10, 4000000), 4000000);
}
END_TEST

START_TEST(never_back_below_reported)
{
	ck_assert_uint_eq(sparse_change_report(DEV, 11, 9000), 9000);
	/* a clock stepped back, or mtime set into the past */
	ck_assert_uint_eq(sparse_change_report(DEV, 11, 5000), 9000);
	sparse_change_touch(DEV, 11);
	ck_assert_uint_eq(sparse_change_report(DEV, 11, 5000), 9001);
}
END_TEST

START_TEST(touch_before_any_report)
{
	sparse_change_touch(DEV, 12);
	ck_assert_uint_eq(sparse_change_report(DEV, 12, 700), 700);
	sparse_change_touch(DEV, 12);
	ck_assert_uint_eq(sparse_change_report(DEV, 12, 700), 701);
}
END_TEST

START_TEST(objects_apart)
{
	ck_assert_uint_eq(sparse_change_report(DEV, 13, 1000), 1000);
	ck_assert_uint_eq(sparse_change_report(DEV + 1, 13, 1000), 1000);
	sparse_change_touch(DEV, 13);
	ck_assert_uint_eq(sparse_change_report(DEV + 1, 13, 1000), 1000);
	ck_assert_uint_eq(sparse_change_report(DEV, 13, 1000), 1001);
}
END_TEST

/* More objects than the table holds: each is forgotten in turn (its value
 * is raw again) but one seen again recently is kept.
 */
START_TEST(forgets_least_recent)
{
	uint64_t n = (uint64_t)SPARSE_CHANGE_SETS * SPARSE_CHANGE_WAYS * 4;
	uint64_t ino, kept = 0;

	ck_assert_uint_eq(sparse_change_report(DEV, 1, 1000), 1000);
	sparse_change_touch(DEV, 1);
	ck_assert_uint_eq(sparse_change_report(DEV, 1, 1000), 1001);
	for (ino = 2; ino < n; ino++) {
		sparse_change_report(DEV, ino, 1000);
		if (ino % 1024 == 0)
			kept += sparse_change_report(DEV, 1, 1000) == 1001;
	}
	ck_assert_uint_eq(kept, (n - 2) / 1024);
	/* never seen for a whole table's worth of others: forgotten */
	for (ino = n; ino < 2 * n; ino++)
		sparse_change_report(DEV, ino, 1000);
	ck_assert_uint_eq(sparse_change_report(DEV, 1, 1000), 1000);
}
END_TEST

/* Writers touch then report, as the FSAL's ops do; every writer's report
 * after its own touch must be above every value reported before it.
 */
#define THREADS 4
#define ROUNDS 100000

static void *writer(void *arg)
{
	uint64_t *failures = arg, last = 0;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		uint64_t v;

		sparse_change_touch(DEV, 99);
		v = sparse_change_report(DEV, 99, 1000);
		if (v <= last)
			(*failures)++;
		last = v;
	}
	return NULL;
}

START_TEST(concurrent_changes_all_move)
{
	pthread_t t[THREADS];
	uint64_t failures[THREADS] = { 0 };
	int i;

	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(
			pthread_create(&t[i], NULL, writer, &failures[i]), 0);
	for (i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	for (i = 0; i < THREADS; i++)
		ck_assert_uint_eq(failures[i], 0);
	ck_assert_uint_ge(sparse_change_report(DEV, 99, 1000), 1000 + ROUNDS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sparse_change");
	TCase *tc = tcase_create("change");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, untouched_follows_raw);
	tcase_add_test(tc, change_within_a_tick_moves);
	tcase_add_test(tc, never_back_below_reported);
	tcase_add_test(tc, touch_before_any_report);
	tcase_add_test(tc, objects_apart);
	tcase_add_test(tc, forgets_least_recent);
	tcase_add_test(tc, concurrent_changes_all_move);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
