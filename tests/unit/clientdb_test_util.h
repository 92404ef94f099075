/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Helpers shared by the client-record store's Check suites
 * (check_clientdb, check_clientdb_batch): a temporary database
 * directory per test, and an open that must succeed.
 */
#ifndef CLIENTDB_TEST_UTIL_H
#define CLIENTDB_TEST_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "clientdb.h"

/* Make DIR (SIZE bytes) a new directory TMPDIR/PREFIX.XXXXXX. */
static inline void recdb_tmpdir_make(char *dir, size_t size, const char *prefix)
{
	const char *t = getenv("TMPDIR");

	snprintf(dir, size, "%s/%s.XXXXXX", t ? t : "/tmp", prefix);
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static inline void recdb_tmpdir_remove(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static inline struct clientdb *recdb_open_ok(const char *dir)
{
	struct clientdb *db;
	int rc = clientdb_open(dir, CLIENTDB_BUSY_MS, &db);

	ck_assert_msg(rc == 0, "open: %d %s", rc, clientdb_errmsg(db));
	return db;
}

#endif /* CLIENTDB_TEST_UTIL_H */
