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
 * ALLOCATE, DEALLOCATE, CLONE (on an XFS reflink export, the clonefs
 * fixture) and an OPEN that truncates an existing file carry no write
 * verifier: their file is fsync'ed before the reply too (issue #17).
 *
 * A failed sync (strace injects EIO) is NFS4ERR_IO.
 *
 * With E2E_DURABLE_METADATA=false in the environment (ctest
 * e2e_fsal_durable_off, a server with Durable_Metadata = false) the same
 * operations must sync none of those paths.
 */
#include <limits.h>

#include "e2e_fsal_util.h"
#include "e2e_sync.h"

#ifndef E2E_CLONEFS_DIR
#error "E2E_CLONEFS_DIR must name the clonefs fixture's directory"
#endif

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

/* [PUTFH f, ALLOCATE or DEALLOCATE]: the compound's status. */
static int durable_data_op(struct nfs42_file *of, int kind, uint64_t off,
			   uint64_t len)
{
	struct nfs42_compound *c = e2e_cpd(of->cl, &of->fh);

	if (kind == OP_ALLOCATE)
		nfs42_op_allocate(c, &of->stateid, off, len);
	else
		nfs42_op_deallocate(c, &of->stateid, off, len);
	return e2e_cpd_run(c);
}

/*
 * ALLOCATE and DEALLOCATE carry no write verifier: a client cannot know to
 * COMMIT them, so under Durable_Metadata they are made durable before the
 * reply (issue #17 item 5): the file is fsync'ed.  A lost DEALLOCATE
 * would bring old data back.
 */
START_TEST(allocate_and_deallocate)
{
	struct nfs42_client *cl = e2e_client();
	char *d = durable_dir(), *f = e2e_fmt("%s/f", d);
	uint8_t *data = e2e_rand_bytes(65536, 5);
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = NFS42_NOCREATE };
	struct nfs42_file of;

	e2e_put_backing(f, data, 65536);
	ck_nfs_ok(cl, e2e_open(cl, f, &rq, &of));
	durable_op(cl, durable_data_op(&of, OP_ALLOCATE, 65536, 65536), f);
	ck_assert_uint_eq(e2e_bstat(f).st_size, 131072);
	durable_op(cl, durable_data_op(&of, OP_DEALLOCATE, 0, 16384), f);
	ck_assert_uint_lt(e2e_bstat(f).st_blocks * 512, 131072);
	ck_nfs_ok(cl, e2e_close(&of));
	free(data);
	nfs42_client_free(cl);
}
END_TEST

/* An OPEN that truncates an existing file (UNCHECKED4, size 0). */
START_TEST(open_truncate)
{
	struct nfs42_client *cl = e2e_client();
	char *d = durable_dir(), *f = e2e_fmt("%s/f", d);
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_WRITE,
				   .createmode = UNCHECKED4 };
	struct nfs42_sattr sa;
	struct nfs42_file of;

	e2e_put_backing(f, "old data", 8);
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 0);
	rq.attrs = &sa;
	durable_op(cl, e2e_open(cl, f, &rq, &of), f);
	ck_assert_uint_eq(e2e_bstat(f).st_size, 0);
	ck_nfs_ok(cl, e2e_close(&of));
	nfs42_client_free(cl);
}
END_TEST

/*
 * CLONE (on the XFS reflink export of the clonefs fixture): the shared
 * extents of the destination are made durable before the reply, as knfsd
 * syncs after a clone.
 */
START_TEST(clone_synced)
{
	struct nfs42_client *cl = e2e_client();
	char *sn = e2e_uniq("csrc"), *dn = e2e_uniq("cdst");
	char *ls = e2e_fmt("%s/x/%s", E2E_CLONEFS_DIR, sn);
	char *ld = e2e_fmt("%s/x/%s", E2E_CLONEFS_DIR, dn);
	uint8_t *data = e2e_rand_bytes(65536, 6);
	struct nfs42_file src, dst;
	struct nfs42_compound *c;
	struct e2e_sync *w;
	struct nfs42_fh dir;
	char real[PATH_MAX];
	size_t n;
	int fd;

	if (!e2e_fixture_ready(E2E_CLONEFS_DIR)) {
		nfs42_client_free(cl);
		return;
	}
	fd = open(ls, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, 65536), 65536);
	close(fd);
	fd = open(ld, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_nfs_ok(cl, nfs42_lookup_path(cl, "/xfs", &dir, NULL));
	src = e2e_open_in(cl, &dir, sn, OPEN4_SHARE_ACCESS_READ);
	dst = e2e_open_in(cl, &dir, dn, OPEN4_SHARE_ACCESS_BOTH);

	w = e2e_sync_start();
	c = e2e_cpd2(cl, &src.fh, &dst.fh);
	nfs42_op_clone(c, &src.stateid, &dst.stateid, 0, 0, 0);
	ck_nfs_ok(cl, e2e_cpd_run(c));
	e2e_sync_stop(w);
	ck_assert_ptr_nonnull(realpath(ld, real));
	if (w != NULL) {
		n = e2e_sync_calls(w, "fsync,fdatasync", real, NULL, 0);
		if (durable_expected())
			ck_assert_msg(n > 0,
				      "no fsync of the CLONE's destination %s "
				      "between request and reply:\n%s",
				      real, w->trace);
		else
			ck_assert_msg(n == 0, "%s synced:\n%s", real, w->trace);
	}
	e2e_sync_free(w);
	ck_assert_uint_eq(e2e_getattr(cl, &dst.fh, NULL).size, 65536);
	ck_nfs_ok(cl, e2e_close(&dst));
	ck_nfs_ok(cl, e2e_close(&src));
	free(data);
	nfs42_client_free(cl);
}
END_TEST

/*
 * A failed sync is NFS4ERR_IO.  A create is undone; a rename, SETATTR,
 * remove or ALLOCATE stays done (docs/fsal_sparse.md, Durable metadata).
 * Without Durable_Metadata nothing is synced and all succeed.
 */
START_TEST(failed_sync_is_io)
{
	struct nfs42_client *cl = e2e_client();
	char *d = durable_dir(), *s = e2e_fmt("%s/sub", d);
	char *x = e2e_fmt("%s/x", d), *y = e2e_fmt("%s/y", d);
	char *z = e2e_fmt("%s/z", d);
	int want = durable_expected() ? NFS4ERR_IO : NFS4_OK, rc;
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = NFS42_NOCREATE };
	struct nfs42_file of;
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

	/* an ALLOCATE whose sync fails: NFS4ERR_IO, the space allocated */
	e2e_put_backing(z, "z", 1);
	ck_nfs_ok(cl, e2e_open(cl, z, &rq, &of));
	durable_failing(rc, durable_data_op(&of, OP_ALLOCATE, 0, 8192));
	ck_nfs_status(rc, want);
	ck_assert_uint_eq(e2e_bstat(z).st_size, 8192);
	ck_nfs_ok(cl, e2e_close(&of));
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
	tcase_add_test(tc, allocate_and_deallocate);
	tcase_add_test(tc, open_truncate);
	tcase_add_test(tc, clone_synced);
	tcase_add_test(tc, failed_sync_is_io);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
