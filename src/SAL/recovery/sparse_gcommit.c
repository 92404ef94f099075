// SPDX-License-Identifier: LGPL-3.0-or-later
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * Group commit over the client-record store (see sparse_gcommit.h and
 * docs/design.md, "Client records").
 *
 * Locking: gc->mtx protects the queue, the stop flag, the stats and each
 * request's done/rc; gc->db_mtx is held by whoever uses the store (the
 * committer for a batch, sparse_gc_lock() callers). The committer never
 * holds both: it takes the whole queue under mtx, writes it under db_mtx,
 * then marks it done under mtx.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sparse_gcommit.h"

enum gc_op { GC_ADD, GC_REMOVE, GC_REVOKE };

struct gc_req {
	struct gc_req *next;
	enum gc_op op;
	const void *key, *val;
	size_t klen, vlen;
	struct timespec arrived;
	int done;
	int rc;
	int detached; /* nobody waits: the committer frees it */
};

struct sparse_gc {
	struct sparse_recdb *db;
	unsigned int window_ms;
	pthread_t thread;
	pthread_mutex_t mtx;
	pthread_cond_t work; /* the committer waits for requests or stop */
	pthread_cond_t done; /* callers wait for their request */
	pthread_mutex_t db_mtx;
	struct gc_req *head, *tail;
	unsigned int last_batch; /* changes in the previous transaction */
	int stopping;
	struct sparse_gc_stats stats;
	char err[512];
};

static void ts_add_ms(struct timespec *ts, unsigned int ms)
{
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static int ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static int apply(struct sparse_recdb *db, struct gc_req *r)
{
	int rc;

	switch (r->op) {
	case GC_ADD:
		return sparse_recdb_add(db, r->key, r->klen, r->val, r->vlen);
	case GC_REMOVE:
		rc = sparse_recdb_remove(db, r->key, r->klen);
		return rc == -ENOENT ? 0 : rc;
	case GC_REVOKE:
		return sparse_recdb_add_revoked(db, r->key, r->klen, r->val,
						r->vlen);
	}
	return -EINVAL;
}

static void note_error(struct sparse_gc *gc, int rc)
{
	if (!rc)
		return;
	pthread_mutex_lock(&gc->mtx);
	snprintf(gc->err, sizeof(gc->err), "%s", sparse_recdb_errmsg(gc->db));
	pthread_mutex_unlock(&gc->mtx);
}

/*
 * Write a batch as one transaction. Should one change fail (the store
 * then may have dropped the transaction), the batch is rolled back and
 * each change is written on its own, so one bad change fails alone.
 * Returns the number of transactions written.
 */
static unsigned int write_batch(struct sparse_gc *gc, struct gc_req *batch)
{
	struct gc_req *r;
	unsigned int commits = 0;
	int rc;

	pthread_mutex_lock(&gc->db_mtx);
	rc = sparse_recdb_begin(gc->db);
	for (r = batch; r && !rc; r = r->next)
		rc = apply(gc->db, r);
	if (!rc)
		rc = sparse_recdb_commit(gc->db);
	else
		(void)sparse_recdb_rollback(gc->db);
	if (!rc) {
		for (r = batch; r; r = r->next)
			r->rc = 0;
		commits = 1;
	} else {
		note_error(gc, rc);
		for (r = batch; r; r = r->next) {
			r->rc = apply(gc->db, r);
			note_error(gc, r->rc);
			commits++;
		}
	}
	pthread_mutex_unlock(&gc->db_mtx);
	return commits;
}

static void *committer(void *arg)
{
	struct sparse_gc *gc = arg;
	struct gc_req *batch, *r;
	struct timespec deadline, now;
	unsigned int commits, n;

	pthread_mutex_lock(&gc->mtx);
	for (;;) {
		while (!gc->head && !gc->stopping)
			pthread_cond_wait(&gc->work, &gc->mtx);
		if (!gc->head)
			break;
		/*
		 * Gather what arrives within the window of the first change,
		 * when changes come concurrently (more than one queued, or
		 * the previous transaction held more than one); a lone change
		 * (the reaper expiring clients one after the other) is written
		 * at once.
		 */
		deadline = gc->head->arrived;
		ts_add_ms(&deadline, gc->window_ms);
		while (!gc->stopping &&
		       (gc->head != gc->tail || gc->last_batch > 1)) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (!ts_before(&now, &deadline))
				break;
			pthread_cond_timedwait(&gc->work, &gc->mtx, &deadline);
		}
		batch = gc->head;
		gc->head = gc->tail = NULL;
		pthread_mutex_unlock(&gc->mtx);

		commits = write_batch(gc, batch);

		pthread_mutex_lock(&gc->mtx);
		n = 0;
		for (r = batch; r;) {
			struct gc_req *next = r->next;

			n++;
			if (r->rc)
				gc->stats.failed++;
			if (r->detached)
				free(r);
			else
				r->done = 1;
			r = next;
		}
		gc->stats.commits += commits;
		gc->last_batch = n;
		if (n > gc->stats.max_batch)
			gc->stats.max_batch = n;
		pthread_cond_broadcast(&gc->done);
	}
	pthread_mutex_unlock(&gc->mtx);
	return NULL;
}

int sparse_gc_start(struct sparse_recdb *db, unsigned int window_ms,
		    struct sparse_gc **out)
{
	struct sparse_gc *gc = calloc(1, sizeof(*gc));
	pthread_condattr_t ca;
	int rc;

	*out = NULL;
	if (!gc)
		return -ENOMEM;
	gc->db = db;
	gc->window_ms = window_ms;
	pthread_mutex_init(&gc->mtx, NULL);
	pthread_mutex_init(&gc->db_mtx, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&gc->work, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&gc->done, NULL);
	rc = pthread_create(&gc->thread, NULL, committer, gc);
	if (rc) {
		pthread_cond_destroy(&gc->work);
		pthread_cond_destroy(&gc->done);
		pthread_mutex_destroy(&gc->mtx);
		pthread_mutex_destroy(&gc->db_mtx);
		free(gc);
		return -rc;
	}
	*out = gc;
	return 0;
}

void sparse_gc_stop(struct sparse_gc *gc)
{
	if (!gc)
		return;
	pthread_mutex_lock(&gc->mtx);
	gc->stopping = 1;
	pthread_cond_signal(&gc->work);
	pthread_mutex_unlock(&gc->mtx);
	pthread_join(gc->thread, NULL);
	pthread_cond_destroy(&gc->work);
	pthread_cond_destroy(&gc->done);
	pthread_mutex_destroy(&gc->mtx);
	pthread_mutex_destroy(&gc->db_mtx);
	free(gc);
}

/* Queue r (under gc->mtx); -ESHUTDOWN once stopping. */
static int enqueue(struct sparse_gc *gc, struct gc_req *r)
{
	clock_gettime(CLOCK_MONOTONIC, &r->arrived);
	if (gc->stopping)
		return -ESHUTDOWN;
	gc->stats.requests++;
	if (gc->tail)
		gc->tail->next = r;
	else
		gc->head = r;
	gc->tail = r;
	if (gc->head == r)
		pthread_cond_signal(&gc->work);
	return 0;
}

static int submit(struct sparse_gc *gc, enum gc_op op, const void *key,
		  size_t klen, const void *val, size_t vlen)
{
	struct gc_req r = {
		.op = op, .key = key, .klen = klen, .val = val, .vlen = vlen
	};
	int rc;

	pthread_mutex_lock(&gc->mtx);
	rc = enqueue(gc, &r);
	while (!rc && !r.done)
		pthread_cond_wait(&gc->done, &gc->mtx);
	pthread_mutex_unlock(&gc->mtx);
	return rc ? rc : r.rc;
}

int sparse_gc_remove_nowait(struct sparse_gc *gc, const void *key, size_t klen)
{
	struct gc_req *r = calloc(1, sizeof(*r) + klen);
	int rc;

	if (!r)
		return -ENOMEM;
	memcpy(r + 1, key, klen);
	r->op = GC_REMOVE;
	r->key = r + 1;
	r->klen = klen;
	r->detached = 1;
	pthread_mutex_lock(&gc->mtx);
	rc = enqueue(gc, r);
	pthread_mutex_unlock(&gc->mtx);
	if (rc)
		free(r);
	return rc;
}

int sparse_gc_add(struct sparse_gc *gc, const void *key, size_t klen,
		  const void *val, size_t vlen)
{
	return submit(gc, GC_ADD, key, klen, val, vlen);
}

int sparse_gc_remove(struct sparse_gc *gc, const void *key, size_t klen)
{
	return submit(gc, GC_REMOVE, key, klen, NULL, 0);
}

int sparse_gc_add_revoked(struct sparse_gc *gc, const void *key, size_t klen,
			  const void *fh, size_t fhlen)
{
	return submit(gc, GC_REVOKE, key, klen, fh, fhlen);
}

struct sparse_recdb *sparse_gc_lock(struct sparse_gc *gc)
{
	pthread_mutex_lock(&gc->db_mtx);
	return gc->db;
}

void sparse_gc_unlock(struct sparse_gc *gc)
{
	pthread_mutex_unlock(&gc->db_mtx);
}

void sparse_gc_get_stats(struct sparse_gc *gc, struct sparse_gc_stats *st)
{
	pthread_mutex_lock(&gc->mtx);
	*st = gc->stats;
	pthread_mutex_unlock(&gc->mtx);
}

void sparse_gc_last_error(struct sparse_gc *gc, char *buf, size_t len)
{
	pthread_mutex_lock(&gc->mtx);
	snprintf(buf, len, "%s", gc->err[0] ? gc->err : "no error");
	pthread_mutex_unlock(&gc->mtx);
}
