// SPDX-License-Identifier: LGPL-3.0-or-later
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * Group commit over the client-record store (see clientdb_batch.h and
 * docs/design.md, "Client records").
 *
 * Locking: committer->mtx protects the queue, the stop flag, the stats and each
 * request's done/rc; committer->db_mtx is held by whoever uses the store (the
 * committer for a batch, clientdb_batch_lock() callers). The committer never
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

#include "clientdb_batch.h"

enum clientdb_op { OP_ADD, OP_REMOVE, OP_REVOKE };

struct clientdb_req {
	struct clientdb_req *next;
	enum clientdb_op op;
	const void *key, *val;
	size_t klen, vlen;
	struct timespec arrived;
	int done;
	int rc;
	int detached; /* nobody waits: the committer frees it */
};

struct clientdb_batch {
	struct clientdb *db;
	unsigned int window_ms;
	pthread_t thread;
	pthread_mutex_t mtx;
	pthread_cond_t work; /* the committer waits for requests or stop */
	pthread_cond_t done; /* callers wait for their request */
	pthread_mutex_t db_mtx;
	struct clientdb_req *head, *tail;
	unsigned int last_batch; /* changes in the previous transaction */
	int stopping;
	struct clientdb_batch_stats stats;
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

static int apply(struct clientdb *db, struct clientdb_req *r)
{
	int rc;

	switch (r->op) {
	case OP_ADD:
		return clientdb_add(db, r->key, r->klen, r->val, r->vlen);
	case OP_REMOVE:
		rc = clientdb_remove(db, r->key, r->klen);
		return rc == -ENOENT ? 0 : rc;
	case OP_REVOKE:
		return clientdb_add_revoked(db, r->key, r->klen, r->val,
					    r->vlen);
	}
	return -EINVAL;
}

static void note_error(struct clientdb_batch *committer, int rc)
{
	if (!rc)
		return;
	pthread_mutex_lock(&committer->mtx);
	snprintf(committer->err, sizeof(committer->err), "%s",
		 clientdb_errmsg(committer->db));
	pthread_mutex_unlock(&committer->mtx);
}

/* Every change of the batch ends in rc. */
static void fail_all(struct clientdb_req *batch, int rc)
{
	struct clientdb_req *r;

	for (r = batch; r; r = r->next)
		r->rc = rc;
}

/*
 * Write a batch as one transaction. Should one change fail (the store
 * then may have dropped the transaction), the batch is rolled back and
 * each change is written on its own, so one bad change fails alone.
 * Should the transaction itself fail (another process holding the
 * database past the busy timeout, a full filesystem, an I/O error at
 * begin or commit), every change fails with it at once: written one by
 * one they would each wait the busy timeout again.
 * Returns the number of transactions written.
 */
static unsigned int write_batch(struct clientdb_batch *committer,
				struct clientdb_req *batch)
{
	struct clientdb_req *r;
	unsigned int commits = 0;
	int rc;

	pthread_mutex_lock(&committer->db_mtx);
	rc = clientdb_begin(committer->db);
	if (rc) {
		note_error(committer, rc);
		fail_all(batch, rc);
		goto out;
	}
	for (r = batch; r && !rc; r = r->next)
		rc = apply(committer->db, r);
	if (!rc) {
		rc = clientdb_commit(committer->db);
		if (rc)
			note_error(committer, rc);
		else
			commits = 1;
		fail_all(batch, rc);
		goto out;
	}
	note_error(committer, rc);
	(void)clientdb_rollback(committer->db);
	for (r = batch; r; r = r->next) {
		r->rc = apply(committer->db, r);
		note_error(committer, r->rc);
		commits++;
	}
out:
	pthread_mutex_unlock(&committer->db_mtx);
	return commits;
}

static void *committer_main(void *arg)
{
	struct clientdb_batch *committer = arg;
	struct clientdb_req *batch, *r;
	struct timespec deadline, now;
	unsigned int commits, n;

	pthread_mutex_lock(&committer->mtx);
	for (;;) {
		while (!committer->head && !committer->stopping)
			pthread_cond_wait(&committer->work, &committer->mtx);
		if (!committer->head)
			break;
		/*
		 * Gather what arrives within the window of the first change,
		 * when changes come concurrently (more than one queued, or
		 * the previous transaction held more than one); a lone change
		 * (the reaper expiring clients one after the other) is written
		 * at once.
		 */
		deadline = committer->head->arrived;
		ts_add_ms(&deadline, committer->window_ms);
		while (!committer->stopping &&
		       (committer->head != committer->tail ||
			committer->last_batch > 1)) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (!ts_before(&now, &deadline))
				break;
			pthread_cond_timedwait(&committer->work,
					       &committer->mtx, &deadline);
		}
		batch = committer->head;
		committer->head = committer->tail = NULL;
		pthread_mutex_unlock(&committer->mtx);

		commits = write_batch(committer, batch);

		pthread_mutex_lock(&committer->mtx);
		n = 0;
		for (r = batch; r;) {
			struct clientdb_req *next = r->next;

			n++;
			if (r->rc)
				committer->stats.failed++;
			if (r->detached)
				free(r);
			else
				r->done = 1;
			r = next;
		}
		committer->stats.commits += commits;
		committer->last_batch = n;
		if (n > committer->stats.max_batch)
			committer->stats.max_batch = n;
		pthread_cond_broadcast(&committer->done);
	}
	pthread_mutex_unlock(&committer->mtx);
	return NULL;
}

int clientdb_batch_start(struct clientdb *db, unsigned int window_ms,
			 struct clientdb_batch **out)
{
	struct clientdb_batch *committer = calloc(1, sizeof(*committer));
	pthread_condattr_t ca;
	int rc;

	*out = NULL;
	if (!committer)
		return -ENOMEM;
	committer->db = db;
	committer->window_ms = window_ms;
	pthread_mutex_init(&committer->mtx, NULL);
	pthread_mutex_init(&committer->db_mtx, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&committer->work, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&committer->done, NULL);
	rc = pthread_create(&committer->thread, NULL, committer_main,
			    committer);
	if (rc) {
		pthread_cond_destroy(&committer->work);
		pthread_cond_destroy(&committer->done);
		pthread_mutex_destroy(&committer->mtx);
		pthread_mutex_destroy(&committer->db_mtx);
		free(committer);
		return -rc;
	}
	*out = committer;
	return 0;
}

void clientdb_batch_stop(struct clientdb_batch *committer)
{
	if (!committer)
		return;
	pthread_mutex_lock(&committer->mtx);
	committer->stopping = 1;
	pthread_cond_signal(&committer->work);
	pthread_mutex_unlock(&committer->mtx);
	pthread_join(committer->thread, NULL);
	pthread_cond_destroy(&committer->work);
	pthread_cond_destroy(&committer->done);
	pthread_mutex_destroy(&committer->mtx);
	pthread_mutex_destroy(&committer->db_mtx);
	free(committer);
}

/* Queue r (under committer->mtx); -ESHUTDOWN once stopping. */
static int enqueue(struct clientdb_batch *committer, struct clientdb_req *r)
{
	clock_gettime(CLOCK_MONOTONIC, &r->arrived);
	if (committer->stopping)
		return -ESHUTDOWN;
	committer->stats.requests++;
	if (committer->tail)
		committer->tail->next = r;
	else
		committer->head = r;
	committer->tail = r;
	if (committer->head == r)
		pthread_cond_signal(&committer->work);
	return 0;
}

static int submit(struct clientdb_batch *committer, enum clientdb_op op,
		  const void *key, size_t klen, const void *val, size_t vlen)
{
	struct clientdb_req r = {
		.op = op, .key = key, .klen = klen, .val = val, .vlen = vlen
	};
	int rc;

	pthread_mutex_lock(&committer->mtx);
	rc = enqueue(committer, &r);
	while (!rc && !r.done)
		pthread_cond_wait(&committer->done, &committer->mtx);
	pthread_mutex_unlock(&committer->mtx);
	return rc ? rc : r.rc;
}

int clientdb_batch_remove_nowait(struct clientdb_batch *committer,
				 const void *key, size_t klen)
{
	struct clientdb_req *r = calloc(1, sizeof(*r) + klen);
	int rc;

	if (!r)
		return -ENOMEM;
	memcpy(r + 1, key, klen);
	r->op = OP_REMOVE;
	r->key = r + 1;
	r->klen = klen;
	r->detached = 1;
	pthread_mutex_lock(&committer->mtx);
	rc = enqueue(committer, r);
	pthread_mutex_unlock(&committer->mtx);
	if (rc)
		free(r);
	return rc;
}

int clientdb_batch_remove_all(struct clientdb_batch *committer,
			      const struct clientdb_key *keys, int *rcs,
			      size_t n)
{
	struct clientdb_req *r;
	size_t i;
	int rc = 0, failed = 0;

	if (n == 0)
		return 0;
	r = calloc(n, sizeof(*r));
	if (!r)
		return -ENOMEM;
	pthread_mutex_lock(&committer->mtx);
	for (i = 0; i < n && !rc; i++) {
		r[i].op = OP_REMOVE;
		r[i].key = keys[i].key;
		r[i].klen = keys[i].klen;
		rc = enqueue(committer, &r[i]);
	}
	/* all or none queued: enqueue fails only once stopping, for all */
	for (i = 0; i < n && !rc; i++)
		while (!r[i].done)
			pthread_cond_wait(&committer->done, &committer->mtx);
	pthread_mutex_unlock(&committer->mtx);
	for (i = 0; i < n; i++) {
		rcs[i] = rc ? rc : r[i].rc;
		if (rcs[i])
			failed++;
	}
	free(r);
	return failed;
}

int clientdb_batch_add(struct clientdb_batch *committer, const void *key,
		       size_t klen, const void *val, size_t vlen)
{
	return submit(committer, OP_ADD, key, klen, val, vlen);
}

int clientdb_batch_remove(struct clientdb_batch *committer, const void *key,
			  size_t klen)
{
	return submit(committer, OP_REMOVE, key, klen, NULL, 0);
}

int clientdb_batch_add_revoked(struct clientdb_batch *committer,
			       const void *key, size_t klen, const void *fh,
			       size_t fhlen)
{
	return submit(committer, OP_REVOKE, key, klen, fh, fhlen);
}

struct clientdb *clientdb_batch_lock(struct clientdb_batch *committer)
{
	pthread_mutex_lock(&committer->db_mtx);
	return committer->db;
}

void clientdb_batch_unlock(struct clientdb_batch *committer)
{
	pthread_mutex_unlock(&committer->db_mtx);
}

void clientdb_batch_get_stats(struct clientdb_batch *committer,
			      struct clientdb_batch_stats *st)
{
	pthread_mutex_lock(&committer->mtx);
	*st = committer->stats;
	pthread_mutex_unlock(&committer->mtx);
}

void clientdb_batch_last_error(struct clientdb_batch *committer, char *buf,
			       size_t len)
{
	pthread_mutex_lock(&committer->mtx);
	snprintf(buf, len, "%s",
		 committer->err[0] ? committer->err : "no error");
	pthread_mutex_unlock(&committer->mtx);
}
