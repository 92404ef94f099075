/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* Helpers for the end-to-end tests of the nfs42c client (see harness.sh). */
#ifndef NFS42_E2E_H
#define NFS42_E2E_H

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nfs42.h"

static inline const char *e2e_env(const char *name)
{
	const char *v = getenv(name);

	ck_assert_msg(v && *v, "%s not set (run under harness.sh)", name);
	return v;
}

/*
 * Strings the helpers below hand out live as long as the test process:
 * they are kept reachable here so LeakSanitizer does not report them, and
 * callers may use them inline without freeing (or free them; the list
 * never touches its entries).
 */
static inline char *e2e_keep(char *p)
{
	static char **kept;
	static size_t n, cap;

	if (n == cap) {
		char **grown =
			realloc(kept, (cap ? cap * 2 : 64) * sizeof(*kept));

		ck_assert_ptr_nonnull(grown);
		kept = grown;
		cap = cap ? cap * 2 : 64;
	}
	kept[n++] = p;
	return p;
}

/* Pseudo path of the export joined with rel ("" for the export root). */
static inline char *e2e_path(const char *rel)
{
	char *p;

	ck_assert_int_gt(asprintf(&p, "%s%s%s", e2e_env("NFS42_EXPORT"),
				  *rel ? "/" : "", rel),
			 0);
	return e2e_keep(p);
}

/* Backing-store path of rel. */
static inline char *e2e_backing(const char *rel)
{
	char *p;

	ck_assert_int_gt(asprintf(&p, "%s%s%s", e2e_env("NFS42_BACKING"),
				  *rel ? "/" : "", rel),
			 0);
	return e2e_keep(p);
}

static inline struct nfs42_client *e2e_client(void)
{
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;
	int rc;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	rc = nfs42_client_create(&o, &cl);
	ck_assert_msg(rc == 0, "client: %s (%s)", nfs42_strerror(rc),
		      cl ? nfs42_client_error(cl) : "");
	return cl;
}

/* Write a local file in the backing store. */
static inline void e2e_put_backing(const char *rel, const void *data,
				   size_t len)
{
	char *p = e2e_backing(rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	free(p);
}

#define ck_nfs_ok(cl, expr)                                                 \
	do {                                                                \
		int _rc = (expr);                                           \
		ck_assert_msg(_rc == 0, "%s: %s (%s)", #expr,               \
			      nfs42_strerror(_rc), nfs42_client_error(cl)); \
	} while (0)

static inline int64_t e2e_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether a line of the server's log (NFS42_LOG) contains s. */
static inline bool e2e_log_has(const char *s)
{
	char line[2048];
	bool found = false;
	FILE *f = fopen(e2e_env("NFS42_LOG"), "r");

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, s) != NULL;
	fclose(f);
	return found;
}

/* A new local file $TMPDIR/prefix-XXXXXX open read-write; *path kept. */
static inline int e2e_local_tmp(const char *prefix, char **path)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	ck_assert_int_gt(
		asprintf(path, "%s/%s-XXXXXX", dir ? dir : "/tmp", prefix), 0);
	e2e_keep(*path);
	fd = mkstemp(*path);
	ck_assert_int_ge(fd, 0);
	return fd;
}

/* Whether the local file path holds the bytes of the backing file rel. */
static inline bool e2e_same_as_backing(const char *path, const char *rel)
{
	char *cmd;
	int rc;

	ck_assert_int_gt(
		asprintf(&cmd, "cmp -s '%s' '%s'", path, e2e_backing(rel)), 0);
	rc = system(cmd);
	free(cmd);
	return rc == 0;
}

/*
 * Set by e2e_skip(); shared memory, as Check runs each test in a forked
 * child. e2e_run() maps it before the tests run.
 */
static inline int *e2e_skipped(void)
{
	static int *flag;

	if (!flag) {
		flag = mmap(NULL, sizeof(*flag), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (flag == MAP_FAILED) {
			perror("mmap");
			abort();
		}
	}
	return flag;
}

/*
 * A test that cannot do what it is for on this machine calls this and
 * returns: unless a test fails, the program then exits 77, which ctest
 * and harness.sh report as skipped (never as passed).
 */
static inline void e2e_skip(const char *why)
{
	printf("skipped: %s\n", why);
	fflush(stdout);
	*e2e_skipped() = 1;
}

static inline int e2e_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	*e2e_skipped() = 0;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (failed)
		return 1;
	return *e2e_skipped() ? 77 : 0;
}

#endif
