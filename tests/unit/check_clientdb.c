// SPDX-License-Identifier: LGPL-3.0-or-later
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * The client-record store (src/SAL/recovery/clientdb.c) on temporary
 * databases in TMPDIR. Syncs are counted by a pass-through SQLite VFS
 * registered as the default: every xSync it forwards is one fsync or
 * fdatasync of the unix VFS.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>

#include "clientdb.h"
#include "clientdb_test_util.h"

/* ---- counting VFS ---- */

static struct sqlite3_vfs *real_vfs;
static struct sqlite3_vfs count_vfs;
static int sync_count;

struct cfile {
	sqlite3_file base;
	sqlite3_file *real;
};

#define REAL(f) (((struct cfile *)(f))->real)

static int c_close(sqlite3_file *f)
{
	int rc = REAL(f)->pMethods->xClose(REAL(f));

	return rc;
}
static int c_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o)
{
	return REAL(f)->pMethods->xRead(REAL(f), b, n, o);
}
static int c_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o)
{
	return REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int c_truncate(sqlite3_file *f, sqlite3_int64 s)
{
	return REAL(f)->pMethods->xTruncate(REAL(f), s);
}
static int c_sync(sqlite3_file *f, int flags)
{
	sync_count++;
	return REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int c_size(sqlite3_file *f, sqlite3_int64 *s)
{
	return REAL(f)->pMethods->xFileSize(REAL(f), s);
}
static int c_lock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xLock(REAL(f), l);
}
static int c_unlock(sqlite3_file *f, int l)
{
	return REAL(f)->pMethods->xUnlock(REAL(f), l);
}
static int c_reserved(sqlite3_file *f, int *r)
{
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r);
}
static int c_fcntl(sqlite3_file *f, int op, void *a)
{
	return REAL(f)->pMethods->xFileControl(REAL(f), op, a);
}
static int c_sector(sqlite3_file *f)
{
	return REAL(f)->pMethods->xSectorSize(REAL(f));
}
static int c_devchar(sqlite3_file *f)
{
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int c_shmmap(sqlite3_file *f, int pg, int sz, int ext, void volatile **p)
{
	return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, ext, p);
}
static int c_shmlock(sqlite3_file *f, int off, int n, int flags)
{
	return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}
static void c_shmbarrier(sqlite3_file *f)
{
	REAL(f)->pMethods->xShmBarrier(REAL(f));
}
static int c_shmunmap(sqlite3_file *f, int del)
{
	return REAL(f)->pMethods->xShmUnmap(REAL(f), del);
}
static int c_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **p)
{
	return REAL(f)->pMethods->xFetch(REAL(f), o, n, p);
}
static int c_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p)
{
	return REAL(f)->pMethods->xUnfetch(REAL(f), o, p);
}

static const sqlite3_io_methods c_methods = {
	.iVersion = 3,
	.xClose = c_close,
	.xRead = c_read,
	.xWrite = c_write,
	.xTruncate = c_truncate,
	.xSync = c_sync,
	.xFileSize = c_size,
	.xLock = c_lock,
	.xUnlock = c_unlock,
	.xCheckReservedLock = c_reserved,
	.xFileControl = c_fcntl,
	.xSectorSize = c_sector,
	.xDeviceCharacteristics = c_devchar,
	.xShmMap = c_shmmap,
	.xShmLock = c_shmlock,
	.xShmBarrier = c_shmbarrier,
	.xShmUnmap = c_shmunmap,
	.xFetch = c_fetch,
	.xUnfetch = c_unfetch,
};

static int c_open(sqlite3_vfs *v, const char *name, sqlite3_file *f, int flags,
		  int *oflags)
{
	struct cfile *cf = (struct cfile *)f;
	int rc;

	(void)v;
	cf->real = (sqlite3_file *)(cf + 1);
	rc = real_vfs->xOpen(real_vfs, name, cf->real, flags, oflags);
	cf->base.pMethods = cf->real->pMethods ? &c_methods : NULL;
	return rc;
}

static void install_count_vfs(void)
{
	if (real_vfs)
		return;
	real_vfs = sqlite3_vfs_find(NULL);
	/* The unix VFS's other methods only read pAppData: share it. */
	count_vfs = *real_vfs;
	count_vfs.zName = "sparse-count";
	count_vfs.szOsFile = sizeof(struct cfile) + real_vfs->szOsFile;
	count_vfs.xOpen = c_open;
	ck_assert_int_eq(sqlite3_vfs_register(&count_vfs, 1), SQLITE_OK);
}

/* ---- helpers ---- */

static char dir[4096];

static void setup(void)
{
	install_count_vfs();
	recdb_tmpdir_make(dir, sizeof(dir), "recdb");
}

static void teardown(void)
{
	recdb_tmpdir_remove(dir);
}

static char *dbfile(void)
{
	static char p[4200];

	snprintf(p, sizeof(p), "%s/%s", dir, CLIENTDB_FILE);
	return p;
}

static struct clientdb *open_ok(void)
{
	return recdb_open_ok(dir);
}

static int count_cb(const void *k, size_t kl, const void *v, size_t vl,
		    int64_t added, void *arg)
{
	(void)k;
	(void)kl;
	(void)v;
	(void)vl;
	ck_assert_int_gt(added, 0);
	(*(int *)arg)++;
	return 0;
}

static int count_records(struct clientdb *db)
{
	int n = 0;

	ck_assert_int_eq(clientdb_foreach(db, count_cb, &n), 0);
	return n;
}

/* Raw SQL on the file, outside the store. */
static void raw_sql(const char *sql)
{
	sqlite3 *s;

	ck_assert_int_eq(sqlite3_open(dbfile(), &s), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(s, sql, NULL, NULL, NULL) == SQLITE_OK, "%s",
		      sqlite3_errmsg(s));
	sqlite3_close(s);
}

/* ---- tests ---- */

START_TEST(t_create_schema)
{
	struct clientdb *db = open_ok();
	struct stat sb;
	sqlite3 *s;
	sqlite3_stmt *st;
	int n = 0;

	ck_assert_int_eq(clientdb_version(db), CLIENTDB_VERSION);
	ck_assert_int_eq(count_records(db), 0);
	ck_assert_int_eq(stat(dbfile(), &sb), 0);
	clientdb_close(db);

	/* Tables and journal mode, seen by a plain connection. */
	ck_assert_int_eq(sqlite3_open(dbfile(), &s), SQLITE_OK);
	ck_assert_int_eq(
		sqlite3_prepare_v2(s,
				   "SELECT count(*) FROM sqlite_master WHERE "
				   "type='table' AND name IN "
				   "('clients','revoked','meta')",
				   -1, &st, NULL),
		SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(sqlite3_prepare_v2(s, "PRAGMA journal_mode", -1, &st,
					    NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(s);
}
END_TEST

START_TEST(t_migrate_empty_file)
{
	struct clientdb *db;
	int fd = open(dbfile(), O_CREAT | O_WRONLY, 0600);

	ck_assert_int_ge(fd, 0);
	close(fd);
	db = open_ok();
	ck_assert_int_eq(clientdb_version(db), CLIENTDB_VERSION);
	ck_assert_int_eq(clientdb_add(db, "a", 1, "x", 1), 0);
	clientdb_close(db);
}
END_TEST

START_TEST(t_migrate_v0_db)
{
	struct clientdb *db;

	/* A version-0 database holding an unrelated table. */
	raw_sql("CREATE TABLE other(x); INSERT INTO other VALUES(1);");
	db = open_ok();
	ck_assert_int_eq(clientdb_version(db), CLIENTDB_VERSION);
	ck_assert_int_eq(clientdb_add(db, "a", 1, "x", 1), 0);
	ck_assert_int_eq(count_records(db), 1);
	clientdb_close(db);
}
END_TEST

START_TEST(t_newer_version_refused)
{
	struct clientdb *db;

	raw_sql("PRAGMA user_version = 99;");
	ck_assert_int_eq(clientdb_open(dir, CLIENTDB_BUSY_MS, &db), -ENOTSUP);
	ck_assert_ptr_nonnull(strstr(clientdb_errmsg(db), "99"));
	clientdb_close(db);
}
END_TEST

struct rec {
	char key[32];
	char val[32];
};

static int collect_cb(const void *k, size_t kl, const void *v, size_t vl,
		      int64_t added, void *arg)
{
	struct rec *r = arg;

	(void)added;
	while (r->key[0])
		r++;
	ck_assert_uint_lt(kl, sizeof(r->key));
	ck_assert_uint_lt(vl, sizeof(r->val));
	memcpy(r->key, k, kl);
	memcpy(r->val, v, vl);
	return 0;
}

START_TEST(t_reopen_keeps)
{
	struct clientdb *db = open_ok();
	struct rec r[4] = { 0 };

	ck_assert_int_eq(clientdb_add(db, "c1", 2, "v1", 2), 0);
	ck_assert_int_eq(clientdb_add(db, "c2", 2, "v2", 2), 0);
	ck_assert_int_eq(clientdb_add(db, "c1", 2, "w1", 2), 0);
	clientdb_close(db);

	db = open_ok();
	ck_assert_int_eq(clientdb_foreach(db, collect_cb, r), 0);
	ck_assert_str_eq(r[0].key, "c1");
	ck_assert_str_eq(r[0].val, "w1");
	ck_assert_str_eq(r[1].key, "c2");
	ck_assert_str_eq(r[1].val, "v2");
	ck_assert_str_eq(r[2].key, "");
	clientdb_close(db);
}
END_TEST

static void fill_and_close(int n)
{
	struct clientdb *db = open_ok();
	char k[24];
	int i;

	ck_assert_int_eq(clientdb_begin(db), 0);
	for (i = 0; i < n; i++) {
		snprintf(k, sizeof(k), "client-%04d", i);
		ck_assert_int_eq(clientdb_add(db, k, strlen(k), k, 8), 0);
	}
	ck_assert_int_eq(clientdb_commit(db), 0);
	clientdb_close(db);
}

static void garbage(off_t off, size_t len)
{
	char buf[4096];
	int fd = open(dbfile(), O_WRONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_uint_le(len, sizeof(buf));
	memset(buf, 0xa5, len);
	ck_assert_int_eq(pwrite(fd, buf, len, off), (ssize_t)len);
	close(fd);
}

START_TEST(t_corrupt_header)
{
	struct clientdb *db;
	int rc;

	fill_and_close(10);
	garbage(0, 100);
	rc = clientdb_open(dir, CLIENTDB_BUSY_MS, &db);
	ck_assert_msg(rc == -EUCLEAN, "rc %d: %s", rc, clientdb_errmsg(db));
	ck_assert_ptr_nonnull(strstr(clientdb_errmsg(db), dbfile()));
	clientdb_close(db);
}
END_TEST

START_TEST(t_corrupt_page)
{
	struct clientdb *db;
	int rc;

	/* Enough rows for a multi-page table; smash a page in the middle. */
	fill_and_close(2000);
	garbage(4 * 4096 + 8, 2000);
	rc = clientdb_open(dir, CLIENTDB_BUSY_MS, &db);
	ck_assert_msg(rc == -EUCLEAN, "rc %d: %s", rc, clientdb_errmsg(db));
	clientdb_close(db);
}
END_TEST

START_TEST(t_dir_is_file)
{
	struct clientdb *db;
	char f[4200];
	int fd, rc;

	snprintf(f, sizeof(f), "%s/notadir", dir);
	fd = open(f, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	rc = clientdb_open(f, CLIENTDB_BUSY_MS, &db);
	ck_assert_msg(rc == -ENOTDIR, "rc %d: %s", rc, clientdb_errmsg(db));
	ck_assert_ptr_nonnull(strstr(clientdb_errmsg(db), "notadir"));
	clientdb_close(db);
}
END_TEST

/* Set or clear FS_IMMUTABLE_FL (works for root too); 0 or -errno. */
static int immutable(const char *p, int on)
{
	int fd = open(p, O_RDONLY | O_NONBLOCK), flags, rc = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) {
		rc = -errno;
	} else {
		flags = on ? (flags | FS_IMMUTABLE_FL) :
			     (flags & ~FS_IMMUTABLE_FL);
		if (ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)
			rc = -errno;
	}
	close(fd);
	return rc;
}

/*
 * Make the directory read-only: as root, the immutable flag (chmod does
 * not stop root); otherwise mode 0555. Returns 0, or -1 when impossible.
 */
static int make_readonly(void)
{
	if (geteuid() != 0)
		return chmod(dir, 0555) == 0 ? 0 : -1;
	return immutable(dir, 1) == 0 ? 0 : -1;
}

static void undo_readonly(void)
{
	if (geteuid() != 0)
		chmod(dir, 0700);
	else
		immutable(dir, 0);
}

/* Open in a read-only directory, with or without a database in it. */
static void readonly_dir_case(int records)
{
	struct clientdb *db;
	int rc;

	if (records)
		fill_and_close(records);
	if (make_readonly()) {
		fprintf(stderr, "readonly dir: cannot make %s read-only\n",
			dir);
		return;
	}
	rc = clientdb_open(dir, CLIENTDB_BUSY_MS, &db);
	undo_readonly();
	ck_assert_msg(rc == -EROFS, "rc %d: %s", rc, clientdb_errmsg(db));
	ck_assert_ptr_nonnull(strstr(clientdb_errmsg(db), "not writable"));
	clientdb_close(db);
}

START_TEST(t_readonly_dir_new)
{
	readonly_dir_case(0);
}
END_TEST

/* The file exists; the WAL and shm files cannot be made. */
START_TEST(t_readonly_dir_existing)
{
	readonly_dir_case(3);
}
END_TEST

START_TEST(t_readonly_file)
{
	struct clientdb *db;
	int rc;

	fill_and_close(3);
	if (geteuid() == 0 ? immutable(dbfile(), 1) : chmod(dbfile(), 0444)) {
		fprintf(stderr, "readonly file: not possible here\n");
		return;
	}
	rc = clientdb_open(dir, CLIENTDB_BUSY_MS, &db);
	if (geteuid() == 0)
		immutable(dbfile(), 0);
	ck_assert_msg(rc == -EROFS, "rc %d: %s", rc, clientdb_errmsg(db));
	clientdb_close(db);
}
END_TEST

START_TEST(t_group_commit)
{
	struct clientdb *db = open_ok();
	char k[24];
	int i, before, batch, single;

	before = sync_count;
	ck_assert_int_eq(clientdb_begin(db), 0);
	for (i = 0; i < 1000; i++) {
		snprintf(k, sizeof(k), "client-%04d", i);
		ck_assert_int_eq(clientdb_add(db, k, strlen(k), "v", 1), 0);
	}
	ck_assert_int_eq(clientdb_commit(db), 0);
	batch = sync_count - before;
	ck_assert_int_eq(count_records(db), 1000);

	/* One record outside a batch: one transaction, one fsync. */
	before = sync_count;
	ck_assert_int_eq(clientdb_add(db, "single", 6, "v", 1), 0);
	single = sync_count - before;
	before = sync_count;
	ck_assert_int_eq(clientdb_remove(db, "single", 6), 0);
	ck_assert_int_eq(sync_count - before, 1);
	fprintf(stderr, "syncs: 1000 adds in a batch %d, one add %d\n", batch,
		single);
	ck_assert_int_eq(batch, 1);
	ck_assert_int_eq(single, 1);

	/* A rolled back batch leaves nothing. */
	ck_assert_int_eq(clientdb_begin(db), 0);
	ck_assert_int_eq(clientdb_add(db, "gone", 4, "v", 1), 0);
	ck_assert_int_eq(clientdb_rollback(db), 0);
	ck_assert_int_eq(count_records(db), 1000);
	ck_assert_int_eq(clientdb_commit(db), -EINVAL);
	clientdb_close(db);
}
END_TEST

/* Another process's connection holding the write lock for hold_ms. */
struct writer {
	pthread_t thread;
	sqlite3 *s;
	int hold_ms;
};

static void *writer_release(void *arg)
{
	struct writer *w = arg;

	usleep(w->hold_ms * 1000);
	sqlite3_exec(w->s, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(w->s);
	return NULL;
}

static void writer_start(struct writer *w, int hold_ms)
{
	w->hold_ms = hold_ms;
	ck_assert_int_eq(sqlite3_open(dbfile(), &w->s), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(w->s, "BEGIN IMMEDIATE", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	ck_assert_int_eq(pthread_create(&w->thread, NULL, writer_release, w),
			 0);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The write lock held by another connection: an add waits for it (the
 * busy timeout, CLIENTDB_BUSY_MS by default) instead of failing at
 * once; with the timeout set to 0 it fails with -EBUSY, and with one
 * shorter than the hold after about that long.
 */
START_TEST(t_busy_timeout)
{
	struct clientdb *db = open_ok();
	struct writer w;
	int64_t t0, took;
	int rc;

	writer_start(&w, 300);
	t0 = mono_ms();
	rc = clientdb_add(db, "waited", 6, "v", 1);
	took = mono_ms() - t0;
	pthread_join(w.thread, NULL);
	ck_assert_msg(rc == 0, "add under another writer: %d %s", rc,
		      clientdb_errmsg(db));
	ck_assert_int_ge(took, 250);

	ck_assert_int_eq(clientdb_set_busy_timeout(db, 0), 0);
	writer_start(&w, 300);
	rc = clientdb_add(db, "refused", 7, "v", 1);
	ck_assert_int_eq(rc, -EBUSY);
	pthread_join(w.thread, NULL);

	ck_assert_int_eq(clientdb_set_busy_timeout(db, 100), 0);
	writer_start(&w, 600);
	t0 = mono_ms();
	rc = clientdb_add(db, "late", 4, "v", 1);
	took = mono_ms() - t0;
	ck_assert_int_eq(rc, -EBUSY);
	ck_assert_int_ge(took, 90);
	ck_assert_int_lt(took, 550);
	pthread_join(w.thread, NULL);
	ck_assert_int_eq(count_records(db), 1);
	clientdb_close(db);
}
END_TEST

static int collect_fh(const void *fh, size_t len, void *arg)
{
	struct rec *r = arg;

	while (r->key[0])
		r++;
	ck_assert_uint_lt(len, sizeof(r->key));
	memcpy(r->key, fh, len);
	return 0;
}

START_TEST(t_remove_and_revoked)
{
	struct clientdb *db = open_ok();
	struct rec r[4] = { 0 }, q[4] = { 0 };

	ck_assert_int_eq(clientdb_add(db, "c1", 2, "v", 1), 0);
	ck_assert_int_eq(clientdb_add(db, "c2", 2, "v", 1), 0);
	ck_assert_int_eq(clientdb_add_revoked(db, "c1", 2, "fhB", 3), 0);
	ck_assert_int_eq(clientdb_add_revoked(db, "c1", 2, "fhA", 3), 0);
	ck_assert_int_eq(clientdb_add_revoked(db, "c1", 2, "fhA", 3), 0);
	ck_assert_int_eq(clientdb_add_revoked(db, "c2", 2, "fhC", 3), 0);
	clientdb_close(db);

	db = open_ok();
	ck_assert_int_eq(clientdb_foreach_revoked(db, "c1", 2, collect_fh, r),
			 0);
	ck_assert_str_eq(r[0].key, "fhA");
	ck_assert_str_eq(r[1].key, "fhB");
	ck_assert_str_eq(r[2].key, "");

	ck_assert_int_eq(clientdb_remove(db, "c1", 2), 0);
	ck_assert_int_eq(clientdb_remove(db, "c1", 2), -ENOENT);
	ck_assert_int_eq(count_records(db), 1);
	memset(r, 0, sizeof(r));
	ck_assert_int_eq(clientdb_foreach_revoked(db, "c1", 2, collect_fh, r),
			 0);
	ck_assert_str_eq(r[0].key, "");
	ck_assert_int_eq(clientdb_foreach_revoked(db, "c2", 2, collect_fh, q),
			 0);
	ck_assert_str_eq(q[0].key, "fhC");

	/* Removes inside a batch share its transaction. */
	ck_assert_int_eq(clientdb_begin(db), 0);
	ck_assert_int_eq(clientdb_remove(db, "c2", 2), 0);
	ck_assert_int_eq(clientdb_remove(db, "nope", 4), -ENOENT);
	ck_assert_int_eq(clientdb_commit(db), 0);
	clientdb_close(db);

	db = open_ok();
	ck_assert_int_eq(count_records(db), 0);
	clientdb_close(db);
}
END_TEST

static int count_old_cb(const void *k, size_t kl, const void *v, size_t vl,
			int64_t added, void *arg)
{
	(void)k, (void)kl, (void)v, (void)vl, (void)added;
	(*(int *)arg)++;
	return 0;
}

static int count_fh_cb(const void *fh, size_t fhlen, void *arg)
{
	(void)fh;
	ck_assert_uint_eq(fhlen, 2);
	(*(int *)arg)++;
	return 0;
}

/* A version-1 file (before the grace tables) keeps its records. */
START_TEST(t_migrate_v1_grace)
{
	struct clientdb *db;
	int n = 0;

	raw_sql("CREATE TABLE meta(k TEXT PRIMARY KEY, v);"
		"CREATE TABLE clients(key BLOB PRIMARY KEY, value BLOB,"
		" added INTEGER);"
		"CREATE TABLE revoked(client_key BLOB NOT NULL,"
		" handle BLOB NOT NULL, PRIMARY KEY(client_key, handle));"
		"INSERT INTO clients VALUES(x'61', x'78', 1);"
		"INSERT INTO revoked VALUES(x'61', x'6868');"
		"PRAGMA user_version = 1;");
	db = open_ok();
	ck_assert_int_eq(clientdb_version(db), CLIENTDB_VERSION);
	ck_assert_int_eq(count_records(db), 1);
	/* grace start: the record becomes an old one, with its handle */
	ck_assert_int_eq(clientdb_grace_start(db), 0);
	ck_assert_int_eq(count_records(db), 0);
	ck_assert_int_eq(clientdb_foreach_old(db, count_old_cb, &n), 0);
	ck_assert_int_eq(n, 1);
	n = 0;
	ck_assert_int_eq(
		clientdb_foreach_old_revoked(db, "a", 1, count_fh_cb, &n), 0);
	ck_assert_int_eq(n, 1);
	/* a restart during grace keeps the old records */
	ck_assert_int_eq(clientdb_add(db, "b", 1, "y", 1), 0);
	ck_assert_int_eq(clientdb_grace_start(db), 0);
	n = 0;
	ck_assert_int_eq(clientdb_foreach_old(db, count_old_cb, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(clientdb_grace_end(db), 0);
	n = 0;
	ck_assert_int_eq(clientdb_foreach_old(db, count_old_cb, &n), 0);
	ck_assert_int_eq(n, 0);
	clientdb_close(db);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("clientdb");
	TCase *tc = tcase_create("recdb");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_create_schema);
	tcase_add_test(tc, t_migrate_empty_file);
	tcase_add_test(tc, t_migrate_v0_db);
	tcase_add_test(tc, t_newer_version_refused);
	tcase_add_test(tc, t_reopen_keeps);
	tcase_add_test(tc, t_corrupt_header);
	tcase_add_test(tc, t_corrupt_page);
	tcase_add_test(tc, t_dir_is_file);
	tcase_add_test(tc, t_readonly_dir_new);
	tcase_add_test(tc, t_readonly_dir_existing);
	tcase_add_test(tc, t_readonly_file);
	tcase_add_test(tc, t_group_commit);
	tcase_add_test(tc, t_busy_timeout);
	tcase_add_test(tc, t_remove_and_revoked);
	tcase_add_test(tc, t_migrate_v1_grace);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
