// SPDX-License-Identifier: LGPL-3.0-or-later
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * Durable client records on SQLite (see clientdb.h and docs/design.md,
 * "Client records").
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clientdb.h"

struct clientdb {
	sqlite3 *sql;
	char *path;
	int in_batch;
	char msg[512];
};

/* Schema of version 1, created from an empty (version 0) file. */
static const char schema_v1[] =
	"CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v);"
	"CREATE TABLE IF NOT EXISTS clients(key BLOB PRIMARY KEY, value BLOB,"
	" added INTEGER);"
	"CREATE TABLE IF NOT EXISTS revoked(client_key BLOB NOT NULL,"
	" handle BLOB NOT NULL, PRIMARY KEY(client_key, handle));"
	"PRAGMA user_version = 1;";

/*
 * Version 2: the records of the previous server instance, kept for the
 * grace period (clientdb_grace_start/_end).
 */
static const char schema_v2[] =
	"CREATE TABLE IF NOT EXISTS old_clients(key BLOB PRIMARY KEY,"
	" value BLOB, added INTEGER);"
	"CREATE TABLE IF NOT EXISTS old_revoked(client_key BLOB NOT NULL,"
	" handle BLOB NOT NULL, PRIMARY KEY(client_key, handle));"
	"PRAGMA user_version = 2;";

/* Upgrade steps: steps[i] takes version i to version i + 1. */
static const char *const steps[CLIENTDB_VERSION] = { schema_v1, schema_v2 };

static int set_err(struct clientdb *db, int rc, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(db->msg, sizeof(db->msg), "%s: ", db->path);
	if (n < 0 || (size_t)n >= sizeof(db->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(db->msg + n, sizeof(db->msg) - n, fmt, ap);
	va_end(ap);
	return rc;
}

/* Map an SQLite result to a negative errno and record the message. */
static int sql_err(struct clientdb *db, int src, const char *what)
{
	int sys = db->sql ? sqlite3_system_errno(db->sql) : 0;
	const char *m = db->sql ? sqlite3_errmsg(db->sql) : sqlite3_errstr(src);
	int rc;

	switch (src & 0xff) {
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		rc = -EUCLEAN;
		break;
	case SQLITE_READONLY:
	case SQLITE_PERM:
		rc = -EROFS;
		break;
	case SQLITE_FULL:
		rc = -ENOSPC;
		break;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		rc = -EBUSY;
		break;
	case SQLITE_NOMEM:
		rc = -ENOMEM;
		break;
	case SQLITE_MISUSE:
	case SQLITE_TOOBIG:
	case SQLITE_RANGE:
		rc = -EINVAL;
		break;
	case SQLITE_CANTOPEN:
		rc = sys ? -sys : -EIO;
		break;
	default:
		rc = -EIO;
	}
	return set_err(db, rc, "%s: %s (sqlite %d%s%s)", what, m, src,
		       sys ? ", " : "", sys ? strerror(sys) : "");
}

static int exec(struct clientdb *db, const char *sql, const char *what)
{
	int src = sqlite3_exec(db->sql, sql, NULL, NULL, NULL);

	return src == SQLITE_OK ? 0 : sql_err(db, src, what);
}

/* Run one statement returning a single integer. */
static int query_int(struct clientdb *db, const char *sql, int *val)
{
	sqlite3_stmt *st;
	int src = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);

	if (src != SQLITE_OK)
		return sql_err(db, src, sql);
	src = sqlite3_step(st);
	if (src == SQLITE_ROW) {
		*val = sqlite3_column_int(st, 0);
		src = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return src == SQLITE_OK ? 0 : sql_err(db, src, sql);
}

/*
 * Run a pragma whose first row must read `want`; otherwise fail with `code`
 * (-EUCLEAN for integrity_check; -ENOTSUP for journal_mode, since a silent
 * fallback from WAL to another journal would cost fsyncs).
 */
static int pragma_expect(struct clientdb *db, const char *sql, const char *want,
			 int code)
{
	sqlite3_stmt *st;
	const unsigned char *res;
	int src, rc = 0;

	src = sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL);
	if (src != SQLITE_OK)
		return sql_err(db, src, sql);
	src = sqlite3_step(st);
	if (src == SQLITE_ROW) {
		res = sqlite3_column_text(st, 0);
		if (!res || strcmp((const char *)res, want) != 0)
			rc = set_err(db, code, "%s gave %s, not %s", sql,
				     res ? (const char *)res : "(null)", want);
	} else {
		rc = sql_err(db, src, sql);
	}
	sqlite3_finalize(st);
	return rc;
}

static int migrate(struct clientdb *db)
{
	int version = 0, rc;
	char what[64];

	rc = query_int(db, "PRAGMA user_version", &version);
	if (rc)
		return rc;
	if (version > CLIENTDB_VERSION)
		return set_err(db, -ENOTSUP,
			       "schema version %d is newer than %d", version,
			       CLIENTDB_VERSION);
	if (version < 0)
		return set_err(db, -EUCLEAN, "schema version %d", version);
	if (version == CLIENTDB_VERSION)
		return 0;
	/* All steps in one transaction: a crash leaves the old version. */
	rc = exec(db, "BEGIN IMMEDIATE", "schema upgrade begin");
	if (rc)
		return rc;
	for (; version < CLIENTDB_VERSION && !rc; version++) {
		snprintf(what, sizeof(what), "schema upgrade to version %d",
			 version + 1);
		rc = exec(db, steps[version], what);
	}
	if (!rc)
		return exec(db, "COMMIT", "schema upgrade commit");
	sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/*
 * The directory must take new files (the WAL and its index are made there):
 * create and remove a probe file. Root ignores mode bits but not an
 * immutable directory or a read-only mount; both are caught here.
 */
static int probe_dir(struct clientdb *db, const char *dir)
{
	char *probe;
	int fd, err;

	if (asprintf(&probe, "%s/.clientdb.probe", dir) < 0)
		return set_err(db, -ENOMEM, "open: out of memory");
	fd = open(probe, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	err = errno;
	if (fd >= 0) {
		close(fd);
		unlink(probe);
	}
	free(probe);
	if (fd >= 0)
		return 0;
	if (err == EACCES || err == EPERM || err == EROFS)
		return set_err(db, -EROFS,
			       "open: directory %s not writable: %s", dir,
			       strerror(err));
	return set_err(db, -err, "open: directory %s: %s", dir, strerror(err));
}

int clientdb_open(const char *dir, int busy_ms, struct clientdb **out)
{
	struct clientdb *db;
	int src, rc;

	*out = NULL;
	db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	if (asprintf(&db->path, "%s/%s", dir, CLIENTDB_FILE) < 0) {
		free(db);
		return -ENOMEM;
	}
	*out = db;

	rc = probe_dir(db, dir);
	if (rc)
		return rc;
	src = sqlite3_open_v2(db->path, &db->sql,
			      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				      SQLITE_OPEN_NOMUTEX,
			      NULL);
	if (src != SQLITE_OK)
		return sql_err(db, src, "open");
	sqlite3_extended_result_codes(db->sql, 1);
	/* Another process holding the write lock for a moment (an admin's
	 * sqlite3, a backup) makes writes wait, not fail at once.
	 */
	rc = clientdb_set_busy_timeout(db, busy_ms);
	if (rc)
		return rc;
	/* SQLite falls back to read-only without telling: refuse that here. */
	if (sqlite3_db_readonly(db->sql, "main") == 1)
		return set_err(db, -EROFS, "open: file is not writable");

	rc = pragma_expect(db, "PRAGMA integrity_check", "ok", -EUCLEAN);
	if (rc)
		return rc;
	rc = pragma_expect(db, "PRAGMA journal_mode=WAL", "wal", -ENOTSUP);
	if (rc)
		return rc;
	rc = exec(db, "PRAGMA synchronous=FULL", "synchronous");
	if (rc)
		return rc;
	rc = migrate(db);
	if (rc)
		return rc;
	/*
   * A write now, so that a directory where the WAL cannot be created or
   * a read-only filesystem fails here and not at the first client.
   */
	rc = exec(db,
		  "INSERT OR REPLACE INTO meta(k, v) VALUES('opened', "
		  "strftime('%s','now'))",
		  "write check");
	return rc;
}

void clientdb_close(struct clientdb *db)
{
	if (!db)
		return;
	if (db->sql)
		sqlite3_close_v2(db->sql);
	free(db->path);
	free(db);
}

const char *clientdb_errmsg(const struct clientdb *db)
{
	if (!db)
		return "out of memory";
	return db->msg[0] ? db->msg : "no error";
}

int clientdb_version(struct clientdb *db)
{
	int version = -1;
	int rc = query_int(db, "PRAGMA user_version", &version);

	return rc ? rc : version;
}

int clientdb_set_busy_timeout(struct clientdb *db, int ms)
{
	int src = sqlite3_busy_timeout(db->sql, ms);

	return src == SQLITE_OK ? 0 : sql_err(db, src, "busy timeout");
}

int clientdb_begin(struct clientdb *db)
{
	int rc;

	if (db->in_batch)
		return set_err(db, -EINVAL, "begin: batch already open");
	rc = exec(db, "BEGIN IMMEDIATE", "begin");
	if (!rc)
		db->in_batch = 1;
	return rc;
}

int clientdb_commit(struct clientdb *db)
{
	int rc;

	if (!db->in_batch)
		return set_err(db, -EINVAL, "commit: no batch open");
	rc = exec(db, "COMMIT", "commit");
	if (rc)
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	db->in_batch = 0;
	return rc;
}

int clientdb_rollback(struct clientdb *db)
{
	if (!db->in_batch)
		return set_err(db, -EINVAL, "rollback: no batch open");
	db->in_batch = 0;
	return exec(db, "ROLLBACK", "rollback");
}

/* Prepare sql and bind the blobs given as (pointer, length) pairs. */
static int prepare(struct clientdb *db, const char *sql, sqlite3_stmt **st,
		   int nblobs, ...)
{
	va_list ap;
	int i, src;

	src = sqlite3_prepare_v2(db->sql, sql, -1, st, NULL);
	if (src != SQLITE_OK)
		return sql_err(db, src, "prepare");
	va_start(ap, nblobs);
	for (i = 1; i <= nblobs && src == SQLITE_OK; i++) {
		const void *p = va_arg(ap, const void *);
		size_t len = va_arg(ap, size_t);

		src = sqlite3_bind_blob64(*st, i, p ? p : "", len,
					  SQLITE_STATIC);
	}
	va_end(ap);
	if (src != SQLITE_OK) {
		sql_err(db, src, "bind");
		sqlite3_finalize(*st);
		*st = NULL;
		return -EINVAL;
	}
	return 0;
}

/* Step a statement that returns no rows, then finalize it. */
static int step_done(struct clientdb *db, sqlite3_stmt *st, const char *what)
{
	int src = sqlite3_step(st);

	sqlite3_finalize(st);
	return src == SQLITE_DONE ? 0 : sql_err(db, src, what);
}

int clientdb_add(struct clientdb *db, const void *key, size_t klen,
		 const void *val, size_t vlen)
{
	sqlite3_stmt *st;
	int rc;

	rc = prepare(db,
		     "INSERT OR REPLACE INTO clients(key, value, added) "
		     "VALUES(?1, ?2, ?3)",
		     &st, 2, key, klen, val, vlen);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 3, (sqlite3_int64)time(NULL));
	return step_done(db, st, "add");
}

int clientdb_remove(struct clientdb *db, const void *key, size_t klen)
{
	sqlite3_stmt *st;
	int rc;

	/* A savepoint is its own transaction outside a batch, nested inside. */
	rc = exec(db, "SAVEPOINT rm", "remove");
	if (rc)
		return rc;
	rc = prepare(db, "DELETE FROM clients WHERE key = ?1", &st, 1, key,
		     klen);
	if (!rc)
		rc = step_done(db, st, "remove");
	if (!rc && sqlite3_changes(db->sql) == 0)
		rc = set_err(db, -ENOENT, "remove: no such client");
	if (!rc)
		rc = prepare(db, "DELETE FROM revoked WHERE client_key = ?1",
			     &st, 1, key, klen);
	if (!rc)
		rc = step_done(db, st, "remove revoked");
	if (rc) {
		sqlite3_exec(db->sql, "ROLLBACK TO rm; RELEASE rm", NULL, NULL,
			     NULL);
		return rc;
	}
	return exec(db, "RELEASE rm", "remove commit");
}

static int foreach_client(struct clientdb *db, const char *sql,
			  clientdb_client_cb cb, void *arg)
{
	sqlite3_stmt *st;
	int rc, src;

	rc = prepare(db, sql, &st, 0);
	if (rc)
		return rc;
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		const void *k = sqlite3_column_blob(st, 0);
		size_t kl = sqlite3_column_bytes(st, 0);
		const void *v = sqlite3_column_blob(st, 1);
		size_t vl = sqlite3_column_bytes(st, 1);

		rc = cb(k, kl, v, vl, sqlite3_column_int64(st, 2), arg);
		if (rc)
			break;
	}
	if (!rc && src != SQLITE_DONE)
		rc = sql_err(db, src, "foreach");
	sqlite3_finalize(st);
	return rc;
}

int clientdb_foreach(struct clientdb *db, clientdb_client_cb cb, void *arg)
{
	return foreach_client(
		db, "SELECT key, value, added FROM clients ORDER BY key", cb,
		arg);
}

int clientdb_foreach_old(struct clientdb *db, clientdb_client_cb cb, void *arg)
{
	return foreach_client(
		db, "SELECT key, value, added FROM old_clients ORDER BY key",
		cb, arg);
}

/* Run sql (several statements) as one transaction, or nested in a batch. */
static int exec_atomic(struct clientdb *db, const char *sql, const char *what)
{
	int rc = exec(db, "SAVEPOINT atomic", what);

	if (rc)
		return rc;
	rc = exec(db, sql, what);
	if (rc) {
		sqlite3_exec(db->sql, "ROLLBACK TO atomic; RELEASE atomic",
			     NULL, NULL, NULL);
		return rc;
	}
	return exec(db, "RELEASE atomic", what);
}

int clientdb_grace_start(struct clientdb *db)
{
	return exec_atomic(
		db,
		"INSERT OR REPLACE INTO old_clients(key, value, added)"
		" SELECT key, value, added FROM clients;"
		"INSERT OR IGNORE INTO old_revoked(client_key, handle)"
		" SELECT client_key, handle FROM revoked;"
		"DELETE FROM clients; DELETE FROM revoked;",
		"grace start");
}

int clientdb_grace_end(struct clientdb *db)
{
	return exec_atomic(db,
			   "DELETE FROM old_clients; DELETE FROM old_revoked;",
			   "grace end");
}

int clientdb_add_revoked(struct clientdb *db, const void *key, size_t klen,
			 const void *fh, size_t fhlen)
{
	sqlite3_stmt *st;
	int rc;

	rc = prepare(db,
		     "INSERT OR IGNORE INTO revoked(client_key, handle) "
		     "VALUES(?1, ?2)",
		     &st, 2, key, klen, fh, fhlen);
	return rc ? rc : step_done(db, st, "add revoked");
}

static int foreach_handle(struct clientdb *db, const char *sql, const void *key,
			  size_t klen, clientdb_handle_cb cb, void *arg)
{
	sqlite3_stmt *st;
	int rc, src;

	rc = prepare(db, sql, &st, 1, key, klen);
	if (rc)
		return rc;
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		rc = cb(sqlite3_column_blob(st, 0), sqlite3_column_bytes(st, 0),
			arg);
		if (rc)
			break;
	}
	if (!rc && src != SQLITE_DONE)
		rc = sql_err(db, src, "foreach revoked");
	sqlite3_finalize(st);
	return rc;
}

int clientdb_foreach_revoked(struct clientdb *db, const void *key, size_t klen,
			     clientdb_handle_cb cb, void *arg)
{
	return foreach_handle(
		db,
		"SELECT handle FROM revoked WHERE client_key = ?1 "
		"ORDER BY handle",
		key, klen, cb, arg);
}

int clientdb_foreach_old_revoked(struct clientdb *db, const void *key,
				 size_t klen, clientdb_handle_cb cb, void *arg)
{
	return foreach_handle(db,
			      "SELECT handle FROM old_revoked "
			      "WHERE client_key = ?1 ORDER BY handle",
			      key, klen, cb, arg);
}
