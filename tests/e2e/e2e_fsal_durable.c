/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL_SPARSE Durable_Metadata (issue #6): every namespace change and
 * SETATTR is made stable before the reply, as RFC 8881 expects of a
 * server (a reply means the change survives a crash).  The server is watched with
 * strace (e2e_sync.h): the directory (or directories) an operation changed,
 * and the object whose own inode changed, must be fsync'ed between the
 * request and its reply; a symbolic link or FIFO, which the server cannot
 * open to fsync, by a syncfs of the export's filesystem.
 *
 * A failed sync (strace injects EIO) is NFS4ERR_IO.
 *
 * With E2E_DURABLE_METADATA=false in the environment (ctest
 * e2e_fsal_durable_off, a server with Durable_Metadata = false) the same
 * operations must sync none of those paths.
 */
#include "e2e_fsal_util.h"
#include "e2e_sync.h"

static bool durable_expected(void)
{
	const char *v = getenv("E2E_DURABLE_METADATA");

	return v == NULL || strcmp(v, "false") != 0;
}

/* Check the paths (NULL-terminated) after the operation watched by w. */
static void durable_check(struct e2e_sync *w, ...)
{
	const char *rel;
	va_list ap;

	e2e_sync_stop(w);
	va_start(ap, w);
	while ((rel = va_arg(ap, const char *)) != NULL) {
		if (durable_expected())
			e2e_sync_assert(w, rel);
		else
			e2e_sync_assert_none(w, rel);
	}
	va_end(ap);
	e2e_sync_free(w);
}

/* Run the client call expr while watching the server, then check that the
 * backing paths given after it were synced (or not, see above).
 */
#define durable_op(cl, expr, ...)                       \
	do {                                            \
		struct e2e_sync *_w = e2e_sync_start(); \
		ck_nfs_ok(cl, expr);                    \
		durable_check(_w, __VA_ARGS__, NULL);   \
	} while (0)

/* rc = expr, run while every fsync/fdatasync of the server fails (EIO) */
#define durable_failing(rc, expr)                               \
	do {                                                    \
		struct e2e_sync *_w = e2e_sync_start_failing(); \
		(rc) = (expr);                                  \
		e2e_sync_free(_w);                              \
	} while (0)

/* A fresh directory of the backing store, its name. */
static char *durable_dir(void)
{
	char *d = e2e_uniq("dur");

	e2e_bmkdir(d, 0755);
	return d;
}

START_TEST(open_create)
{
	struct nfs42_client *cl = e2e_client();
	char *d = durable_dir(), *f = e2e_fmt("%s/f", d);
	struct nfs42_file of;

	durable_op(cl,
		   nfs42_open(cl, e2e_path(f), OPEN4_SHARE_ACCESS_WRITE,
			      GUARDED4, 0640, false, &of),
		   d, f);
	ck_assert(e2e_bexists(f));
	ck_nfs_ok(cl, e2e_close(&of));
	nfs42_client_free(cl);
}
END_TEST

START_TEST(mkdir_and_rmdir)
{
	struct nfs42_client *cl = e2e_client();
	char *d = durable_dir(), *s = e2e_fmt("%s/sub", d);

	durable_op(cl, nfs42_mkdir(cl, e2e_path(s), 0755), d, s);
	ck_assert(S_ISDIR(e2e_bstat(s).st_mode));

	durable_op(cl, nfs42_remove(cl, e2e_path(s)), d);
	ck_assert(!e2e_bexists(s));
	nfs42_client_free(cl);
}
END_TEST

START_TEST(symlink_and_mknod)
{
	struct nfs42_client *cl = e2e_client();
	char *d = durable_dir(), *l = e2e_fmt("%s/sl", d);
	char *p = e2e_fmt("%s/fifo", d);

	durable_op(cl, nfs42_symlink(cl, "target", e2e_path(l)), d);
	ck_assert(S_ISLNK(e2e_bstat(l).st_mode));

	durable_op(cl, nfs42_mknod(cl, e2e_path(p), NF4FIFO, 0644, 0, 0), d);
	ck_assert(S_ISFIFO(e2e_bstat(p).st_mode));
	nfs42_client_free(cl);
}
END_TEST

/* LINK into another directory, RENAME across directories, REMOVE */
START_TEST(link_rename_remove)
{
	struct nfs42_client *cl = e2e_client();
	char *d = durable_dir(), *d2 = durable_dir();
	char *a = e2e_fmt("%s/a", d), *b = e2e_fmt("%s/b", d2);
	char *c = e2e_fmt("%s/c", d);

	e2e_put_backing(a, "a", 1);
	durable_op(cl, nfs42_hardlink(cl, e2e_path(a), e2e_path(b)), d2);
	ck_assert_uint_eq(e2e_bstat(a).st_nlink, 2);

	durable_op(cl, nfs42_rename(cl, e2e_path(b), e2e_path(c)), d2, d);
	ck_assert(!e2e_bexists(b) && e2e_bexists(c));

	durable_op(cl, nfs42_remove(cl, e2e_path(a)), d);
	ck_assert(!e2e_bexists(a));
	ck_assert_uint_eq(e2e_bstat(c).st_nlink, 1);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(setattr_file_and_dir)
{
	struct nfs42_client *cl = e2e_client();
	char *d = durable_dir(), *f = e2e_fmt("%s/f", d);
	struct nfs42_sattr sa;

	e2e_put_backing(f, "data", 4);
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0600);
	durable_op(cl, nfs42_setattr_path(cl, e2e_path(f), &sa), f);
	ck_assert_uint_eq(e2e_bstat(f).st_mode & 07777, 0600);

	durable_op(cl, nfs42_setattr_path(cl, e2e_path(d), &sa), d);
	ck_assert_uint_eq(e2e_bstat(d).st_mode & 07777, 0600);
	nfs42_client_free(cl);
}
END_TEST

/*
 * A symbolic link or a FIFO cannot be opened to fsync it (sparse_durable.c):
 * a SETATTR of one is made stable by a syncfs of the export's filesystem.
 */
START_TEST(setattr_symlink_and_fifo)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_time mt = { .seconds = 1500000000, .nseconds = 5 };
	char *d = durable_dir(), *l = e2e_fmt("%s/sl", d);
	char *p = e2e_fmt("%s/fifo", d);
	struct nfs42_sattr sa;
	struct nfs42_fh fh;

	ck_assert_int_eq(symlink("target", e2e_backing(l)), 0);
	ck_assert_int_eq(mkfifo(e2e_backing(p), 0644), 0);
	nfs42_sattr_init(&sa);
	nfs42_sattr_mtime(&sa, &mt);

	fh = e2e_fh(cl, l);
	durable_op(cl, e2e_setattr_fh(cl, &fh, &sa), l);
	ck_assert_int_eq(e2e_bstat(l).st_mtim.tv_sec, mt.seconds);

	fh = e2e_fh(cl, p);
	durable_op(cl, e2e_setattr_fh(cl, &fh, &sa), p);
	ck_assert_int_eq(e2e_bstat(p).st_mtim.tv_sec, mt.seconds);
	nfs42_client_free(cl);
}
END_TEST

/*
 * A failed sync is NFS4ERR_IO.  A create is undone; a rename, SETATTR or
 * remove stays done (docs/fsal_sparse.md, Durable metadata).  Without
 * Durable_Metadata nothing is synced and all succeed.
 */
START_TEST(failed_sync_is_io)
{
	struct nfs42_client *cl = e2e_client();
	char *d = durable_dir(), *s = e2e_fmt("%s/sub", d);
	char *x = e2e_fmt("%s/x", d), *y = e2e_fmt("%s/y", d);
	int want = durable_expected() ? NFS4ERR_IO : NFS4_OK, rc;
	struct nfs42_sattr sa;

	if (!e2e_sync_usable) {
		e2e_skip("no strace to inject a sync failure");
		nfs42_client_free(cl);
		return;
	}
	durable_failing(rc, nfs42_mkdir(cl, e2e_path(s), 0755));
	ck_nfs_status(rc, want);
	ck_assert(e2e_bexists(s) == (want == NFS4_OK));

	e2e_put_backing(x, "x", 1);
	durable_failing(rc, nfs42_rename(cl, e2e_path(x), e2e_path(y)));
	ck_nfs_status(rc, want);
	ck_assert(!e2e_bexists(x) && e2e_bexists(y));

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0600);
	durable_failing(rc, nfs42_setattr_path(cl, e2e_path(y), &sa));
	ck_nfs_status(rc, want);
	ck_assert_uint_eq(e2e_bstat(y).st_mode & 07777, 0600);

	durable_failing(rc, nfs42_remove(cl, e2e_path(y)));
	ck_nfs_status(rc, want);
	ck_assert(!e2e_bexists(y));
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_fsal_durable");
	TCase *tc = tcase_create("durable");

	if (e2e_is_vfs()) {
		fprintf(stderr,
			"e2e_fsal_durable: SKIP: Durable_Metadata is FSAL_SPARSE's; FSAL_VFS does not sync metadata\n");
		return 77;
	}
	e2e_sync_init();
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, open_create);
	tcase_add_test(tc, mkdir_and_rmdir);
	tcase_add_test(tc, symlink_and_mknod);
	tcase_add_test(tc, link_rename_remove);
	tcase_add_test(tc, setattr_file_and_dir);
	tcase_add_test(tc, setattr_symlink_and_fifo);
	tcase_add_test(tc, failed_sync_is_io);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
