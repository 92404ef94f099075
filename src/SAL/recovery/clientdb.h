/* SPDX-License-Identifier: LGPL-3.0-or-later */
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * clientdb: the durable client-record store under the SQLite recovery
 * backend (issue #9). One database file in a directory, WAL journal with
 * synchronous=FULL, a versioned schema migrated on open and checked with
 * PRAGMA integrity_check. No Ganesha headers: the backend sits on top.
 *
 * Every call returns 0 or a negative errno-style code; the text of the last
 * error is in clientdb_errmsg(). A store is used by one thread at a time.
 */

#ifndef CLIENTDB_H
#define CLIENTDB_H

#include <stddef.h>
#include <stdint.h>

/* Name of the database file inside the directory given to open. */
#define CLIENTDB_FILE "sparse_recovery.db"
/* Schema version written by this code (PRAGMA user_version). */
#define CLIENTDB_VERSION 2

struct clientdb;

/*
 * Open (creating if needed) <dir>/sparse_recovery.db, migrate its schema and
 * check it; writes wait up to busy_ms for another process's write lock
 * (clientdb_set_busy_timeout), from the open's own write check on. Errors:
 *   -EUCLEAN  the file is not a database or fails integrity_check
 *   -ENOTSUP  its schema version is newer than this code knows
 *   -EROFS    the file or its directory cannot be written (found at open by
 *             a write, not at the first record)
 *   other     the errno of the failed system call (-ENOTDIR, -EACCES, ...)
 * On failure *out still holds a store (unless -ENOMEM) so that the message
 * can be read; close it with clientdb_close().
 */
int clientdb_open(const char *dir, int busy_ms, struct clientdb **out);
void clientdb_close(struct clientdb *db);
const char *clientdb_errmsg(const struct clientdb *db);
/* Schema version of the open file. */
int clientdb_version(struct clientdb *db);

/*
 * How long a write waits for another connection's write lock (another
 * process on the same file) before failing with -EBUSY: ms milliseconds,
 * 0 not at all. CLIENTDB_BUSY_MS is the backend's default.
 */
#define CLIENTDB_BUSY_MS 5000
int clientdb_set_busy_timeout(struct clientdb *db, int ms);

/*
 * Group commit: between begin and commit every add/remove shares one
 * transaction (one fsync at commit). rollback drops them all.
 * Outside a batch each add/remove is its own transaction.
 */
int clientdb_begin(struct clientdb *db);
int clientdb_commit(struct clientdb *db);
int clientdb_rollback(struct clientdb *db);

/* Add or replace a client record. */
int clientdb_add(struct clientdb *db, const void *key, size_t klen,
		 const void *val, size_t vlen);
/* Remove a client record and its revoked handles; -ENOENT if absent. */
int clientdb_remove(struct clientdb *db, const void *key, size_t klen);

/* Called for each record; a non-zero return stops the walk and is returned. */
typedef int (*clientdb_client_cb)(const void *key, size_t klen, const void *val,
				  size_t vlen, int64_t added, void *arg);
int clientdb_foreach(struct clientdb *db, clientdb_client_cb cb, void *arg);

/* Record a revoked file handle of a client (kept once). */
int clientdb_add_revoked(struct clientdb *db, const void *key, size_t klen,
			 const void *fh, size_t fhlen);
typedef int (*clientdb_handle_cb)(const void *fh, size_t fhlen, void *arg);
int clientdb_foreach_revoked(struct clientdb *db, const void *key, size_t klen,
			     clientdb_handle_cb cb, void *arg);

/*
 * Grace period. The records of the previous instance ("old" records) are
 * what clients may reclaim from. grace_start moves every current record
 * (and its revoked handles) to the old ones, in one transaction, keeping
 * old records already there (a restart during a grace period must not
 * forget the clients that have not reclaimed yet); clients that come back
 * are added again as current records. grace_end forgets the old records.
 */
int clientdb_grace_start(struct clientdb *db);
int clientdb_grace_end(struct clientdb *db);
int clientdb_foreach_old(struct clientdb *db, clientdb_client_cb cb, void *arg);
int clientdb_foreach_old_revoked(struct clientdb *db, const void *key,
				 size_t klen, clientdb_handle_cb cb, void *arg);

#endif /* CLIENTDB_H */
