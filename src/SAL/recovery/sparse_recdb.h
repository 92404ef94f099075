/* SPDX-License-Identifier: LGPL-3.0-or-later */
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * sparse_recdb: the durable client-record store under the SQLite recovery
 * backend (issue #9). One database file in a directory, WAL journal with
 * synchronous=FULL, a versioned schema migrated on open and checked with
 * PRAGMA integrity_check. No Ganesha headers: the backend sits on top.
 *
 * Every call returns 0 or a negative errno-style code; the text of the last
 * error is in sparse_recdb_errmsg(). A store is used by one thread at a time.
 */

#ifndef SPARSE_RECDB_H
#define SPARSE_RECDB_H

#include <stddef.h>
#include <stdint.h>

/* Name of the database file inside the directory given to open. */
#define SPARSE_RECDB_FILE "sparse_recovery.db"
/* Schema version written by this code (PRAGMA user_version). */
#define SPARSE_RECDB_VERSION 2

struct sparse_recdb;

/*
 * Open (creating if needed) <dir>/sparse_recovery.db, migrate its schema and
 * check it. Errors:
 *   -EUCLEAN  the file is not a database or fails integrity_check
 *   -ENOTSUP  its schema version is newer than this code knows
 *   -EROFS    the file or its directory cannot be written (found at open by
 *             a write, not at the first record)
 *   other     the errno of the failed system call (-ENOTDIR, -EACCES, ...)
 * On failure *out still holds a store (unless -ENOMEM) so that the message
 * can be read; close it with sparse_recdb_close().
 */
int sparse_recdb_open(const char *dir, struct sparse_recdb **out);
void sparse_recdb_close(struct sparse_recdb *db);
const char *sparse_recdb_errmsg(const struct sparse_recdb *db);
/* Schema version of the open file. */
int sparse_recdb_version(struct sparse_recdb *db);

/*
 * How long a write waits for another connection's write lock (another
 * process on the same file) before failing with -EBUSY: ms milliseconds,
 * 0 not at all. SPARSE_RECDB_BUSY_MS from open on.
 */
#define SPARSE_RECDB_BUSY_MS 5000
int sparse_recdb_set_busy_timeout(struct sparse_recdb *db, int ms);

/*
 * Group commit: between begin and commit every add/remove shares one
 * transaction (one fsync at commit). rollback drops them all.
 * Outside a batch each add/remove is its own transaction.
 */
int sparse_recdb_begin(struct sparse_recdb *db);
int sparse_recdb_commit(struct sparse_recdb *db);
int sparse_recdb_rollback(struct sparse_recdb *db);

/* Add or replace a client record. */
int sparse_recdb_add(struct sparse_recdb *db, const void *key, size_t klen,
		     const void *val, size_t vlen);
/* Remove a client record and its revoked handles; -ENOENT if absent. */
int sparse_recdb_remove(struct sparse_recdb *db, const void *key, size_t klen);

/* Called for each record; a non-zero return stops the walk and is returned. */
typedef int (*sparse_recdb_client_cb)(const void *key, size_t klen,
				      const void *val, size_t vlen,
				      int64_t added, void *arg);
int sparse_recdb_foreach(struct sparse_recdb *db, sparse_recdb_client_cb cb,
			 void *arg);

/* Record a revoked file handle of a client (kept once). */
int sparse_recdb_add_revoked(struct sparse_recdb *db, const void *key,
			     size_t klen, const void *fh, size_t fhlen);
typedef int (*sparse_recdb_handle_cb)(const void *fh, size_t fhlen, void *arg);
int sparse_recdb_foreach_revoked(struct sparse_recdb *db, const void *key,
				 size_t klen, sparse_recdb_handle_cb cb,
				 void *arg);

/*
 * Grace period. The records of the previous instance ("old" records) are
 * what clients may reclaim from. grace_start moves every current record
 * (and its revoked handles) to the old ones, in one transaction, keeping
 * old records already there (a restart during a grace period must not
 * forget the clients that have not reclaimed yet); clients that come back
 * are added again as current records. grace_end forgets the old records.
 */
int sparse_recdb_grace_start(struct sparse_recdb *db);
int sparse_recdb_grace_end(struct sparse_recdb *db);
int sparse_recdb_foreach_old(struct sparse_recdb *db, sparse_recdb_client_cb cb,
			     void *arg);
int sparse_recdb_foreach_old_revoked(struct sparse_recdb *db, const void *key,
				     size_t klen, sparse_recdb_handle_cb cb,
				     void *arg);

#endif /* SPARSE_RECDB_H */
