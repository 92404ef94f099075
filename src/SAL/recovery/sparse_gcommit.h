/* SPDX-License-Identifier: LGPL-3.0-or-later */
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * sparse_gcommit: group commit over a sparse_recdb store (issue #9).
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
 * goes through sparse_gc_lock()/sparse_gc_unlock(), which serialize it
 * with the committer. No Ganesha headers.
 */

#ifndef SPARSE_GCOMMIT_H
#define SPARSE_GCOMMIT_H

#include <stddef.h>
#include <stdint.h>

#include "sparse_recdb.h"

struct sparse_gc;

struct sparse_gc_stats {
	uint64_t requests; /* changes handed in */
	uint64_t commits; /* transactions written (one fsync each) */
	uint64_t failed; /* changes that ended in an error */
	uint64_t max_batch; /* most changes in one transaction */
};

/* Start the committer over an open store; the store stays the caller's. */
int sparse_gc_start(struct sparse_recdb *db, unsigned int window_ms,
		    struct sparse_gc **out);
/* Write what is queued, stop the committer; the store stays open. */
void sparse_gc_stop(struct sparse_gc *gc);

/* Each returns once the change is committed: 0 or a negative errno. */
int sparse_gc_add(struct sparse_gc *gc, const void *key, size_t klen,
		  const void *val, size_t vlen);
/* Removing a record that is not there is not an error. */
int sparse_gc_remove(struct sparse_gc *gc, const void *key, size_t klen);
/*
 * Queue a removal and return at once: it is written with the next
 * transaction (within the window plus one fsync), before any change queued
 * after it; a failure only shows in the stats and the last error.
 * sparse_gc_stop() writes it if still queued.
 */
int sparse_gc_remove_nowait(struct sparse_gc *gc, const void *key, size_t klen);
int sparse_gc_add_revoked(struct sparse_gc *gc, const void *key, size_t klen,
			  const void *fh, size_t fhlen);

/* Exclusive use of the store between transactions. */
struct sparse_recdb *sparse_gc_lock(struct sparse_gc *gc);
void sparse_gc_unlock(struct sparse_gc *gc);

void sparse_gc_get_stats(struct sparse_gc *gc, struct sparse_gc_stats *st);
/* Text of the last error a change or commit ended in. */
void sparse_gc_last_error(struct sparse_gc *gc, char *buf, size_t len);

#endif /* SPARSE_GCOMMIT_H */
