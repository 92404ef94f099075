/* SPDX-License-Identifier: LGPL-3.0-or-later */
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * clientdb_batch: group commit over a clientdb store (issue #9).
 *
 * Callers hand in record changes (add, remove, revoked handle) and wait
 * until the change is durable. One committer thread gathers the changes
 * that arrive within `window_ms` of the first one into one transaction,
 * so concurrent callers share one fsync. The window is waited only when
 * changes come concurrently (more than one queued, or more than one in
 * the previous transaction): a lone change is written at once. A caller waits at most the window
 * plus the fsync of its own transaction when the fsync is shorter than the
 * window (the previous transaction's fsync overlaps with the window), and
 * at most the window plus two fsyncs otherwise. window_ms 0: no waiting,
 * changes that arrive while a transaction is being written still share
 * the next one.
 *
 * Every other use of the store (grace start and end, reading the records)
 * goes through clientdb_batch_lock()/clientdb_batch_unlock(), which serialize it
 * with the committer. No Ganesha headers.
 */

#ifndef CLIENTDB_BATCH_H
#define CLIENTDB_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "clientdb.h"

struct clientdb_batch;

struct clientdb_batch_stats {
	uint64_t requests; /* changes handed in */
	uint64_t commits; /* transactions written (one fsync each) */
	uint64_t failed; /* changes that ended in an error */
	uint64_t max_batch; /* most changes in one transaction */
};

/* Start the committer over an open store; the store stays the caller's. */
int clientdb_batch_start(struct clientdb *db, unsigned int window_ms,
			 struct clientdb_batch **out);
/* Write what is queued, stop the committer; the store stays open. */
void clientdb_batch_stop(struct clientdb_batch *committer);

/* Each returns once the change is committed: 0 or a negative errno. */
int clientdb_batch_add(struct clientdb_batch *committer, const void *key,
		       size_t klen, const void *val, size_t vlen);
/* Removing a record that is not there is not an error. */
int clientdb_batch_remove(struct clientdb_batch *committer, const void *key,
			  size_t klen);
/*
 * Queue a removal and return at once: it is written with the next
 * transaction (within the window plus one fsync), before any change queued
 * after it; a failure only shows in the stats and the last error.
 * clientdb_batch_stop() writes it if still queued.
 */
int clientdb_batch_remove_nowait(struct clientdb_batch *committer,
				 const void *key, size_t klen);
/*
 * Remove n records together and return once all are committed: queued at
 * once, they share one transaction (with whatever else is queued then).
 * rcs[i] is key i's result (removing a record that is not there is not
 * an error); returns how many failed (or -ENOMEM, nothing queued).
 */
struct clientdb_key {
	const void *key;
	size_t klen;
};
int clientdb_batch_remove_all(struct clientdb_batch *committer,
			      const struct clientdb_key *keys, int *rcs,
			      size_t n);
int clientdb_batch_add_revoked(struct clientdb_batch *committer,
			       const void *key, size_t klen, const void *fh,
			       size_t fhlen);

/* Exclusive use of the store between transactions. */
struct clientdb *clientdb_batch_lock(struct clientdb_batch *committer);
void clientdb_batch_unlock(struct clientdb_batch *committer);

void clientdb_batch_get_stats(struct clientdb_batch *committer,
			      struct clientdb_batch_stats *st);
/* Text of the last error a change or commit ended in. */
void clientdb_batch_last_error(struct clientdb_batch *committer, char *buf,
			       size_t len);

#endif /* CLIENTDB_BATCH_H */
