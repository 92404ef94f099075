// SPDX-License-Identifier: LGPL-3.0-or-later
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * Group commit over the client-record store (src/SAL/recovery/
 * clientdb_batch.c), on temporary databases in TMPDIR: many threads adding
 * at once share few transactions and every record is there; changes of
 * one key keep their order; stop writes what is queued.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clientdb_batch.h"
#include "clientdb_test_util.h"

static char dir[256];

static void setup(void)
{
	recdb_tmpdir_make(dir, sizeof(dir), "check_gcommit");
}

static void teardown(void)
{
	recdb_tmpdir_remove(dir);
}

static struct clientdb *open_db(void)
{
	return recdb_open_ok(dir);
}

static int count_cb(const void *k, size_t kl, const void *v, size_t vl,
		    int64_t added, void *arg)
{
	(void)k, (void)kl, (void)v, (void)vl, (void)added;
	(*(int *)arg)++;
	return 0;
}

static int count(struct clientdb *db)
{
	int n = 0;

	ck_assert_int_eq(clientdb_foreach(db, count_cb, &n), 0);
	return n;
}

#define THREADS 32
#define PER_THREAD 8
static int per_thread = PER_THREAD;

struct worker {
	struct clientdb_batch *committer;
	pthread_barrier_t *start;
	int id;
	int failed;
};

static void *add_worker(void *arg)
{
	struct worker *w = arg;
	char key[32];
	int i;

	pthread_barrier_wait(w->start);
	for (i = 0; i < per_thread; i++) {
		snprintf(key, sizeof(key), "client-%d-%d", w->id, i);
		if (clientdb_batch_add(w->committer, key, strlen(key), "v", 1))
			w->failed++;
	}
	return NULL;
}

/* Run THREADS threads adding PER_THREAD records each, all at once. */
static void run_adders(struct clientdb_batch *committer)
{
	pthread_t th[THREADS];
	struct worker w[THREADS];
	pthread_barrier_t start;
	int i;

	pthread_barrier_init(&start, NULL, THREADS);
	for (i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .committer = committer,
					.start = &start,
					.id = i };
		ck_assert_int_eq(
			pthread_create(&th[i], NULL, add_worker, &w[i]), 0);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		ck_assert_int_eq(w[i].failed, 0);
	}
	pthread_barrier_destroy(&start);
}

START_TEST(t_many_threads_few_commits)
{
	struct clientdb *db = open_db();
	struct clientdb_batch *committer;
	struct clientdb_batch_stats st;

	/* a wide window, so that a loaded machine still gathers */
	ck_assert_int_eq(clientdb_batch_start(db, 20, &committer), 0);
	run_adders(committer);
	clientdb_batch_get_stats(committer, &st);
	clientdb_batch_stop(committer);
	printf("group commit: %llu adds in %llu transactions (largest %llu)\n",
	       (unsigned long long)st.requests, (unsigned long long)st.commits,
	       (unsigned long long)st.max_batch);
	ck_assert_uint_eq(st.requests, THREADS * PER_THREAD);
	ck_assert_uint_eq(st.failed, 0);
	/* each thread waits for its add: at most PER_THREAD rounds, plus
	 * stragglers of a slow start */
	ck_assert_uint_le(st.commits, st.requests / 4);
	ck_assert_uint_gt(st.max_batch, 1);
	ck_assert_int_eq(count(db), THREADS * PER_THREAD);
	clientdb_close(db);

	/* durable: a new connection sees them all */
	db = open_db();
	ck_assert_int_eq(count(db), THREADS * PER_THREAD);
	clientdb_close(db);
}
END_TEST

/* window 0: nobody waits for others, concurrent adds still share commits */
START_TEST(t_window_zero)
{
	struct clientdb *db = open_db();
	struct clientdb_batch *committer;
	struct clientdb_batch_stats st;

	ck_assert_int_eq(clientdb_batch_start(db, 0, &committer), 0);
	run_adders(committer);
	clientdb_batch_get_stats(committer, &st);
	clientdb_batch_stop(committer);
	ck_assert_uint_eq(st.requests, THREADS * PER_THREAD);
	ck_assert_uint_le(st.commits, st.requests);
	ck_assert_int_eq(count(db), THREADS * PER_THREAD);
	clientdb_close(db);
}
END_TEST

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A lone change is written at once; changes that come together wait for
 * the window of the first and share its transaction.
 */
START_TEST(t_window_only_when_concurrent)
{
	struct clientdb *db = open_db();
	struct clientdb_batch *committer;
	struct clientdb_batch_stats st;
	int64_t t0, dt;
	int i;

	ck_assert_int_eq(clientdb_batch_start(db, 2000, &committer), 0);
	/* one after the other: no window */
	t0 = now_ms();
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(clientdb_batch_add(committer, &i, sizeof(i),
						    "v", 1),
				 0);
	dt = now_ms() - t0;
	clientdb_batch_get_stats(committer, &st);
	ck_assert_uint_eq(st.commits, 3);
	ck_assert_int_lt(dt, 2000);
	/*
	 * THREADS adds at once: the first may go alone, the others wait for
	 * the window and share a transaction (a straggler may need one more)
	 */
	per_thread = 1;
	run_adders(committer);
	clientdb_batch_get_stats(committer, &st);
	clientdb_batch_stop(committer);
	ck_assert_uint_le(st.commits, 3 + 3);
	ck_assert_int_eq(count(db), 3 + THREADS);
	clientdb_close(db);
}
END_TEST

struct flip {
	struct clientdb_batch *committer;
	int n;
};

static void *flip_worker(void *arg)
{
	struct flip *f = arg;
	int i;

	for (i = 0; i < f->n; i++) {
		ck_assert_int_eq(
			clientdb_batch_add(f->committer, "same", 4, "v", 1), 0);
		ck_assert_int_eq(clientdb_batch_remove(f->committer, "same", 4),
				 0);
	}
	ck_assert_int_eq(clientdb_batch_add(f->committer, "same", 4, "last", 4),
			 0);
	return NULL;
}

static int val_cb(const void *k, size_t kl, const void *v, size_t vl,
		  int64_t added, void *arg)
{
	(void)k, (void)kl, (void)added;
	ck_assert_uint_eq(vl, 4);
	memcpy(arg, v, 4);
	return 0;
}

static int handle_cb(const void *fh, size_t fhlen, void *arg)
{
	ck_assert_uint_eq(fhlen, 2);
	ck_assert_mem_eq(fh, "fh", 2);
	(*(int *)arg)++;
	return 0;
}

/* Removes, revoked handles and the order of changes of one key. */
START_TEST(t_remove_revoke_order)
{
	struct clientdb *db = open_db();
	struct clientdb_batch *committer;
	struct flip f;
	pthread_t th;
	char val[5] = "";
	int n = 0;

	ck_assert_int_eq(clientdb_batch_start(db, 2, &committer), 0);
	ck_assert_int_eq(clientdb_batch_add(committer, "k", 1, "v", 1), 0);
	ck_assert_int_eq(clientdb_batch_add_revoked(committer, "k", 1, "fh", 2),
			 0);
	db = clientdb_batch_lock(committer);
	ck_assert_int_eq(clientdb_foreach_revoked(db, "k", 1, handle_cb, &n),
			 0);
	clientdb_batch_unlock(committer);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(clientdb_batch_remove(committer, "k", 1), 0);
	/* removing what is not there is fine */
	ck_assert_int_eq(clientdb_batch_remove(committer, "k", 1), 0);
	f = (struct flip){ .committer = committer, .n = 20 };
	ck_assert_int_eq(pthread_create(&th, NULL, flip_worker, &f), 0);
	pthread_join(th, NULL);
	clientdb_batch_stop(committer);
	ck_assert_int_eq(count(db), 1);
	ck_assert_int_eq(clientdb_foreach(db, val_cb, val), 0);
	ck_assert_str_eq(val, "last");
	clientdb_close(db);
}
END_TEST

/*
 * Removals nobody waits for (the reaper's): 200 queued at once share few
 * transactions, keep their place before later changes, and stop writes
 * the ones still queued.
 */
START_TEST(t_remove_nowait)
{
	struct clientdb *db = open_db();
	struct clientdb_batch *committer;
	struct clientdb_batch_stats st;
	char key[32];
	int i;

	ck_assert_int_eq(clientdb_begin(db), 0);
	for (i = 0; i < 200; i++) {
		snprintf(key, sizeof(key), "expired-%d", i);
		ck_assert_int_eq(clientdb_add(db, key, strlen(key), "v", 1), 0);
	}
	ck_assert_int_eq(clientdb_commit(db), 0);
	ck_assert_int_eq(clientdb_batch_start(db, 2, &committer), 0);
	for (i = 0; i < 200; i++) {
		snprintf(key, sizeof(key), "expired-%d", i);
		ck_assert_int_eq(clientdb_batch_remove_nowait(committer, key,
							      strlen(key)),
				 0);
	}
	/* the client comes back: its add lands after its removal */
	ck_assert_int_eq(clientdb_batch_add(committer, "expired-7", 9, "v", 1),
			 0);
	clientdb_batch_get_stats(committer, &st);
	ck_assert_uint_eq(st.requests, 201);
	ck_assert_uint_le(st.commits, 20);
	ck_assert_int_eq(count(db), 1);
	/* queued when stop comes: written */
	ck_assert_int_eq(
		clientdb_batch_remove_nowait(committer, "expired-7", 9), 0);
	clientdb_batch_stop(committer);
	ck_assert_int_eq(count(db), 0);
	clientdb_close(db);
}
END_TEST

/* Records key-0 .. key-(n-1), written directly. */
static void add_keys(struct clientdb *db, int n)
{
	char key[32];
	int i;

	ck_assert_int_eq(clientdb_begin(db), 0);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "key-%d", i);
		ck_assert_int_eq(clientdb_add(db, key, strlen(key), "v", 1), 0);
	}
	ck_assert_int_eq(clientdb_commit(db), 0);
}

#define ALL_KEYS 300

/*
 * The reaper's pass (issue #27): 300 records and one that is not there
 * removed with one call: one transaction, every result 0, all gone.
 */
START_TEST(t_remove_all_one_commit)
{
	struct clientdb *db = open_db();
	struct clientdb_batch *committer;
	struct clientdb_batch_stats st;
	struct clientdb_key keys[ALL_KEYS + 1];
	char names[ALL_KEYS + 1][32];
	int rcs[ALL_KEYS + 1], i;

	add_keys(db, ALL_KEYS);
	for (i = 0; i <= ALL_KEYS; i++) {
		snprintf(names[i], sizeof(names[i]), "key-%d", i);
		keys[i].key = names[i];
		keys[i].klen = strlen(names[i]);
	}
	ck_assert_int_eq(clientdb_batch_start(db, 2, &committer), 0);
	ck_assert_int_eq(clientdb_batch_remove_all(committer, keys, rcs,
						   ALL_KEYS + 1),
			 0);
	for (i = 0; i <= ALL_KEYS; i++)
		ck_assert_int_eq(rcs[i], 0);
	clientdb_batch_get_stats(committer, &st);
	ck_assert_uint_eq(st.requests, ALL_KEYS + 1);
	ck_assert_uint_eq(st.commits, 1);
	ck_assert_int_eq(count(db), 0);
	ck_assert_int_eq(clientdb_batch_remove_all(committer, keys, rcs, 0), 0);
	clientdb_batch_stop(committer);
	clientdb_close(db);
}
END_TEST

#define LOCKED_KEYS 20

/*
 * Another process holds the write lock past the busy timeout (300 ms):
 * 20 removals queued together all fail with -EBUSY after one timeout,
 * not one timeout each (written one by one after the failed transaction
 * they took 20 more: over 6 s).  The records are still there.
 */
START_TEST(t_locked_batch_fails_once)
{
	struct clientdb *db = open_db();
	struct clientdb_batch *committer;
	struct clientdb_key keys[LOCKED_KEYS];
	char names[LOCKED_KEYS][32], path[512];
	int rcs[LOCKED_KEYS], i;
	sqlite3 *holder;
	int64_t t0, took;

	add_keys(db, LOCKED_KEYS);
	for (i = 0; i < LOCKED_KEYS; i++) {
		snprintf(names[i], sizeof(names[i]), "key-%d", i);
		keys[i].key = names[i];
		keys[i].klen = strlen(names[i]);
	}
	ck_assert_int_eq(clientdb_set_busy_timeout(db, 300), 0);
	ck_assert_int_eq(clientdb_batch_start(db, 2, &committer), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, CLIENTDB_FILE);
	ck_assert_int_eq(sqlite3_open(path, &holder), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(holder, "BEGIN IMMEDIATE", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	t0 = now_ms();
	ck_assert_int_eq(clientdb_batch_remove_all(committer, keys, rcs,
						   LOCKED_KEYS),
			 LOCKED_KEYS);
	took = now_ms() - t0;
	sqlite3_exec(holder, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(holder);
	for (i = 0; i < LOCKED_KEYS; i++)
		ck_assert_int_eq(rcs[i], -EBUSY);
	ck_assert_msg(took < 2000,
		      "20 removals over a locked database: %lld ms",
		      (long long)took);
	ck_assert_int_eq(count(db), LOCKED_KEYS);
	clientdb_batch_stop(committer);
	clientdb_close(db);
}
END_TEST

static void *late_adder(void *arg)
{
	struct clientdb_batch *committer = arg;

	return (void *)(intptr_t)clientdb_batch_add(committer, "late", 4, "v",
						    1);
}

/* stop writes what is queued before the committer ends */
START_TEST(t_stop_flushes)
{
	struct clientdb *db = open_db();
	struct clientdb_batch *committer;
	struct clientdb_batch_stats st = { 0 };
	pthread_t th;
	void *res;

	ck_assert_int_eq(clientdb_batch_start(db, 1000, &committer), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, late_adder, committer), 0);
	while (!st.requests) {
		usleep(10 * 1000);
		clientdb_batch_get_stats(committer, &st);
	}
	clientdb_batch_stop(committer);
	pthread_join(th, &res);
	ck_assert_int_eq((int)(intptr_t)res, 0);
	ck_assert_int_eq(count(db), 1);
	clientdb_close(db);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("check_clientdb_batch");
	TCase *tc = tcase_create("batch");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_many_threads_few_commits);
	tcase_add_test(tc, t_window_zero);
	tcase_add_test(tc, t_window_only_when_concurrent);
	tcase_add_test(tc, t_remove_revoke_order);
	tcase_add_test(tc, t_stop_flushes);
	tcase_add_test(tc, t_remove_nowait);
	tcase_add_test(tc, t_remove_all_one_commit);
	tcase_add_test(tc, t_locked_batch_fails_once);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
