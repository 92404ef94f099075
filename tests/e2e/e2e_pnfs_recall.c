/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * pNFS layout recalls and fencing (issue #20; harness --pnfs 2,
 * Lease_Lifetime 5): client A holds a layout of a file, client B does what
 * would make it wrong -- a truncate, an OPEN that truncates, a DEALLOCATE, a
 * COPY or CLONE into the file, removing it -- and the server recalls A's
 * layout first (CB_LAYOUTRECALL; B's call waits on NFS4ERR_DELAY, retried
 * by the library); A returns it, B's call goes through, and A's next I/O
 * gets a new layout that sees B's change.  A holder that answers the
 * recall but keeps its layout is fenced after a lease period: its data
 * servers answer NFS4ERR_PNFS_NO_LAYOUT while a new layout works, and
 * LAYOUTGET meanwhile answers NFS4ERR_RECALLCONFLICT.  A's own truncate or
 * a COPY from the file recalls nothing.  Argument "unexport" (harness
 * --dbus): the export removed with a layout out, recalled and fenced.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>

#include "e2e_fsal_util.h"
#include "e2e_pnfs_util.h"
#include "nfs3_test.h"

#define NFS3ERR_JUKEBOX 10008

#define FILE_SIZE (1 << 20)

static const char *uniq(const char *what)
{
	return e2e_fmt("recall-%s", e2e_uniq(what));
}

/* A file of FILE_SIZE bytes of a pattern, made on the server's disk. */
static const char *backing_file(const char *what)
{
	const char *name = uniq(what);
	uint8_t *buf = malloc(FILE_SIZE);
	size_t i;

	for (i = 0; i < FILE_SIZE; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	e2e_put_backing(name, buf, FILE_SIZE);
	free(buf);
	return name;
}

/* A opens name and gets a layout (iomode RW when write). */
static void hold_layout(struct nfs42_client *a, const char *name, bool write,
			struct nfs42_file *f, struct nfs42_layout *lo)
{
	ck_nfs_ok(a, nfs42_open(a, e2e_path(name),
				write ? OPEN4_SHARE_ACCESS_BOTH :
					OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, f));
	ck_nfs_ok(a, nfs42_layout_get(
			     f, write ? LAYOUTIOMODE4_RW : LAYOUTIOMODE4_READ,
			     lo));
	ck_assert_uint_eq(nfs42_layouts_held(a), 1);
}

/* A read through the layout's data servers of the whole file, compared
 * with the backing file; the data servers must have sent all of it. */
static void read_via_ds(struct nfs42_file *f, struct nfs42_layout *lo,
			const char *name)
{
	struct nfs42_pnfs_stats st;
	uint64_t end = 0, t = 0;
	char *tmp;
	int fd, i;

	fd = e2e_local_tmp("recall-read", &tmp);
	ck_nfs_ok(f->cl, nfs42_pnfs_read_fd(f, lo, NULL, fd, &end, &st));
	close(fd);
	for (i = 0; i < NFS42_LAYOUT_MAX_DS; i++)
		t += st.ds_bytes[i];
	ck_assert_msg(
		st.mds_bytes == 0,
		"%s: %llu bytes through the metadata server (data servers failed %u, NO_LAYOUT %u, recalled %d, last error %d)",
		name, (unsigned long long)st.mds_bytes, st.ds_failed,
		st.no_layout, st.recalled, st.ds_error);
	ck_assert_uint_eq(t, end);
	ck_assert_msg(e2e_same_as_backing(tmp, name),
		      "%s differs from the backing file", name);
	unlink(tmp);
}

/* The recalled holder's next I/O: a new layout, through the data servers,
 * seeing the change. */
static void next_io_new_layout(struct nfs42_client *a, struct nfs42_file *f,
			       const struct nfs42_layout *old, const char *name)
{
	struct nfs42_layout *lo = malloc(sizeof(*lo));

	ck_nfs_ok(a, nfs42_layout_get(f, LAYOUTIOMODE4_READ, lo));
	read_via_ds(f, lo, name);
	ck_nfs_ok(a, nfs42_layout_return(f, lo));
	free(lo);
	(void)old;
}

/* A was not recalled: it still holds the layout, which still serves a
 * read of the whole file through the data servers; then returned and
 * the file closed. */
static void kept_and_works(struct nfs42_client *a, struct nfs42_file *fa,
			   struct nfs42_layout *lo, const char *name,
			   uint64_t recalls0)
{
	ck_assert_int_ge(nfs42_poll(a, 300), 0);
	ck_assert_uint_eq(nfs42_layout_recalls(a), recalls0);
	ck_assert_uint_eq(nfs42_layouts_held(a), 1);
	read_via_ds(fa, lo, name);
	ck_nfs_ok(a, nfs42_layout_return(fa, lo));
	ck_nfs_ok(a, nfs42_close(fa));
}

/* B does what: one call, retried on DELAY by the library. */
typedef void (*change_fn)(struct nfs42_client *b, const char *name);

static void truncate_half(struct nfs42_client *b, const char *name)
{
	truncate_to(b, e2e_path(name), FILE_SIZE / 2);
}

static void open_truncating(struct nfs42_client *b, const char *name)
{
	struct nfs42_file f;

	ck_nfs_ok(b, nfs42_open(b, e2e_path(name), OPEN4_SHARE_ACCESS_WRITE,
				UNCHECKED4, 0644, true, &f));
	ck_nfs_ok(b, nfs42_close(&f));
}

static void deallocate_middle(struct nfs42_client *b, const char *name)
{
	struct nfs42_compound *c;
	struct nfs42_file f;

	ck_nfs_ok(b, nfs42_open(b, e2e_path(name), OPEN4_SHARE_ACCESS_WRITE,
				NFS42_NOCREATE, 0, false, &f));
	c = nfs42_compound_new(b);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_deallocate(c, &f.stateid, 65536, 3 * 65536);
	ck_nfs_ok(b, nfs42_compound_run(c));
	nfs42_compound_free(c);
	ck_nfs_ok(b, nfs42_close(&f));
}

static const char *copy_src;

static void copy_into(struct nfs42_client *b, const char *name)
{
	ck_nfs_ok(b,
		  nfs42_copy_file(b, e2e_path(copy_src), e2e_path(name), NULL));
}

static void copy_into_async(struct nfs42_client *b, const char *name)
{
	struct nfs42_async_copy ac = { .poll_ms = 200 };

	ck_nfs_ok(b, nfs42_copy_file_async(b, e2e_path(copy_src),
					   e2e_path(name), &ac));
}

/* A holds a layout of a file, B changes it: one recall, returned, B's
 * change done, A's next I/O through a new layout sees it. */
static void recall_case(change_fn change, bool write_layout)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("file");
	uint64_t recalls0;
	struct nfs42_file fa;
	struct holder h;

	hold_layout(a, name, write_layout, &fa, lo);
	recalls0 = nfs42_layout_recalls(a);
	holder_start(&h, a, false);
	change(b, name);
	holder_join(&h);
	ck_assert_uint_eq(nfs42_layout_recalls(a), recalls0 + 1);
	ck_assert_uint_eq(h.returned, 1);
	ck_assert_uint_eq(nfs42_layouts_held(a), 0);
	next_io_new_layout(a, &fa, lo, name);
	ck_nfs_ok(a, nfs42_close(&fa));
	free(lo);
	nfs42_client_free(a);
	nfs42_client_free(b);
}

START_TEST(recall_on_truncate)
{
	recall_case(truncate_half, false);
}
END_TEST

START_TEST(recall_on_truncating_open)
{
	recall_case(open_truncating, true);
}
END_TEST

START_TEST(recall_on_deallocate)
{
	recall_case(deallocate_middle, true);
}
END_TEST

START_TEST(recall_on_copy_into)
{
	copy_src = backing_file("copysrc");
	/* a different source so that the copy is a change */
	e2e_put_backing(copy_src, "different contents", 18);
	recall_case(copy_into, false);
}
END_TEST

START_TEST(recall_on_async_copy_into)
{
	copy_src = backing_file("acopysrc");
	e2e_put_backing(copy_src, "another different source", 25);
	recall_case(copy_into_async, false);
}
END_TEST

START_TEST(recall_on_remove)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("remove");
	struct nfs42_file fa;
	struct holder h;
	struct stat st;

	hold_layout(a, name, false, &fa, lo);
	holder_start(&h, a, false);
	ck_nfs_ok(b, nfs42_remove(b, e2e_path(name)));
	holder_join(&h);
	ck_assert_uint_eq(h.returned, 1);
	ck_assert_int_ne(stat(e2e_backing(name), &st), 0);
	ck_nfs_ok(a, nfs42_close(&fa));
	free(lo);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* The holder's own changes, and a COPY from the file, recall nothing. */
START_TEST(no_recall_for_own_change_or_copy_from)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("own");
	const char *dst = uniq("copydst");
	struct nfs42_sattr sa;
	struct nfs42_file fa;
	uint64_t recalls0;

	hold_layout(a, name, true, &fa, lo);
	recalls0 = nfs42_layout_recalls(a);
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 4096);
	ck_nfs_ok(a, nfs42_file_setattr(&fa, &sa));
	/* B copies the file somewhere else: the layout stays right */
	ck_nfs_ok(b, nfs42_copy_file(b, e2e_path(name), e2e_path(dst), NULL));
	ck_nfs_ok(a, nfs42_null(a));
	kept_and_works(a, &fa, lo, name, recalls0);
	free(lo);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/*
 * COPY of a file with a layout out: A writes a sparse file through its
 * data servers (1 MiB of data, a 1 MiB hole, 1 MiB of data) and keeps the
 * layout; B copies the file.  The copy holds what A wrote, A's layout is
 * not recalled and still serves A's reads.
 */
START_TEST(copy_of_file_with_layout_out)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = uniq("copied"), *dst = uniq("copy");
	struct nfs42_pnfs_stats st;
	uint8_t *buf = malloc(FILE_SIZE);
	uint64_t recalls0, size = 0;
	struct nfs42_file fa;
	char *local;
	size_t i;
	int fd;

	for (i = 0; i < FILE_SIZE; i++)
		buf[i] = (uint8_t)(i * 13 + 1);
	fd = e2e_local_tmp("recall-copysrc", &local);
	ck_assert_int_eq(pwrite(fd, buf, FILE_SIZE, 0), FILE_SIZE);
	ck_assert_int_eq(pwrite(fd, buf, FILE_SIZE, 2 * FILE_SIZE), FILE_SIZE);
	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				UNCHECKED4, 0644, true, &fa));
	ck_nfs_ok(a, nfs42_layout_get(&fa, LAYOUTIOMODE4_RW, lo));
	ck_nfs_ok(a, nfs42_pnfs_write_fd(&fa, lo, NULL, fd, &size, &st));
	close(fd);
	ck_assert_uint_eq(size, 3 * FILE_SIZE);
	ck_assert_uint_eq(st.mds_bytes, 0);
	ck_assert_uint_eq(st.ds_bytes[0] + st.ds_bytes[1], 2 * FILE_SIZE);
	recalls0 = nfs42_layout_recalls(a);

	ck_nfs_ok(b, nfs42_copy_file(b, e2e_path(name), e2e_path(dst), NULL));
	ck_assert(e2e_same_as_backing(local, dst));
	kept_and_works(a, &fa, lo, name, recalls0);
	unlink(local);
	free(buf);
	free(lo);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* The holder's own asynchronous COPY into the file recalls nothing (the
 * copy runs on no request of the client's, but on its behalf). */
START_TEST(no_recall_for_own_async_copy)
{
	struct nfs42_client *a = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("ownacopy");
	struct nfs42_async_copy ac = { .poll_ms = 200 };
	struct nfs42_file fa;
	uint64_t recalls0;

	copy_src = backing_file("ownacopysrc");
	e2e_put_backing(copy_src, "the holder's own copy", 21);
	hold_layout(a, name, true, &fa, lo);
	recalls0 = nfs42_layout_recalls(a);
	ck_nfs_ok(a, nfs42_copy_file_async(a, e2e_path(copy_src),
					   e2e_path(name), &ac));
	kept_and_works(a, &fa, lo, name, recalls0);
	free(lo);
	nfs42_client_free(a);
}
END_TEST

/* A DS READ of the layout's first stripe with its own handle: status. */
static int ds_read_status(struct nfs42_file *f, struct nfs42_layout *lo)
{
	struct nfs42_stateid sid = f->stateid;
	struct nfs42_stripe_loc loc;
	struct nfs42_compound *c;
	struct nfs42_client *ds;
	int rc;

	nfs42_layout_locate(lo, 0, &loc);
	ck_nfs_ok(f->cl, nfs42_ds_client(f->cl, lo, loc.ds, &ds));
	sid.seqid = 0;
	c = nfs42_compound_new(ds);
	nfs42_op_putfh(c, &lo->fhs[loc.fh]);
	nfs42_op_read(c, &sid, 0, 4096);
	nfs42_compound_no_retry(c);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/*
 * A answers the recall but keeps its layout (in use): B's truncate goes
 * through one lease period (5 s) after the recall; meanwhile LAYOUTGET is
 * NFS4ERR_RECALLCONFLICT; then A's old layout is fenced on the data
 * servers and a new one works.
 */
START_TEST(unreturned_layout_fenced)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client(),
			    *c = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo)),
			    *lc = malloc(sizeof(*lc));
	const char *name = backing_file("fence");
	struct nfs42_file fa, fc;
	struct holder h;
	int64_t t0, took;

	hold_layout(a, name, false, &fa, lo);
	ck_assert_int_eq(ds_read_status(&fa, lo), 0);
	nfs42_layout_busy(a, lo, true); /* answered, never returned */
	holder_start(&h, a, true);
	t0 = e2e_now_ms();
	truncate_half(b, name);
	took = e2e_now_ms() - t0;
	holder_join(&h);
	ck_assert_msg(took >= 4000 && took < 20000,
		      "the truncate waited %lld ms for an unreturned layout",
		      (long long)took);
	ck_assert_uint_ge(nfs42_layout_recalls(a), 1);
	ck_assert(e2e_log_has("fenced (truncate)"));
	/* the old layout is dead on the data servers */
	ck_assert_int_eq(ds_read_status(&fa, lo), NFS4ERR_PNFS_NO_LAYOUT);
	/* another client's new layout works and sees the truncate */
	hold_layout(c, name, false, &fc, lc);
	ck_assert_int_eq(ds_read_status(&fc, lc), 0);
	read_via_ds(&fc, lc, name);
	ck_nfs_ok(c, nfs42_layout_return(&fc, lc));
	ck_nfs_ok(c, nfs42_close(&fc));
	nfs42_layout_busy(a, lo, false);
	free(lo);
	free(lc);
	nfs42_client_free(a);
	nfs42_client_free(b);
	nfs42_client_free(c);
}
END_TEST

/* While a recall is out, a LAYOUTGET of the file is RECALLCONFLICT. */
START_TEST(layoutget_during_recall)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client(),
			    *c = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo)),
			    *lc = malloc(sizeof(*lc));
	const char *name = backing_file("conflict");
	struct nfs42_compound *cp;
	struct nfs42_sattr sa;
	struct nfs42_file fa, fc;
	struct nfs42_fh fh;
	int rc;

	hold_layout(a, name, false, &fa, lo);
	nfs42_layout_busy(a, lo, true);
	/* B's truncate, once, not retried: DELAY, and the recall is out */
	ck_nfs_ok(b, nfs42_lookup_path(b, e2e_path(name), &fh, NULL));
	cp = nfs42_compound_new(b);
	nfs42_op_putfh(cp, &fh);
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 10);
	nfs42_op_setattr(cp, NULL, &sa);
	nfs42_compound_no_retry(cp);
	ck_assert_int_eq(nfs42_compound_run(cp), NFS4ERR_DELAY);
	nfs42_compound_free(cp);
	ck_nfs_ok(c, nfs42_open(c, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, &fc));
	rc = nfs42_layout_get(&fc, LAYOUTIOMODE4_READ, lc);
	ck_assert_int_eq(rc, NFS4ERR_RECALLCONFLICT);
	ck_nfs_ok(c, nfs42_close(&fc));
	/* A gives it back: the truncate goes through at once */
	nfs42_layout_busy(a, lo, false);
	ck_assert_int_ge(nfs42_poll(a, 1000), 0);
	ck_nfs_ok(a, nfs42_layout_return(&fa, lo));
	truncate_half(b, name);
	ck_nfs_ok(a, nfs42_close(&fa));
	free(lo);
	free(lc);
	nfs42_client_free(a);
	nfs42_client_free(b);
	nfs42_client_free(c);
}
END_TEST

/*
 * "v3" (harness --protocols "3, 4"): an NFSv3 SETATTR of the size, which
 * has no client id, recalls every holder: NFS3ERR_JUKEBOX until A has
 * returned its layout, then done; A's next I/O sees the new size.
 */
START_TEST(recall_on_v3_truncate)
{
	struct nfs42_client *a = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("v3");
	struct nfs3_fh root, fh;
	struct nfs3_conn c;
	struct nfs42_file fa;
	struct holder h;
	int64_t give_up;
	int rc, jukebox = 0;
	struct stat st;

	ck_assert_int_eq(nfs3_connect(&c), 0);
	ck_assert_int_eq(nfs3_mount(&c, e2e_env("NFS42_BACKING"), &root), 0);
	ck_assert_int_eq(nfs3_lookup(&c, &root, nfs3_str(name), &fh), 0);
	hold_layout(a, name, false, &fa, lo);
	holder_start(&h, a, false);
	give_up = e2e_now_ms() + 20000;
	while ((rc = nfs3_setattr(&c, &fh, FILE_SIZE / 2, -1)) ==
		       NFS3ERR_JUKEBOX &&
	       e2e_now_ms() < give_up) {
		jukebox++;
		usleep(200 * 1000);
	}
	ck_assert_msg(rc == NFS3_OK, "NFSv3 SETATTR: %s", nfs3_status_name(rc));
	holder_join(&h);
	ck_assert_int_ge(jukebox, 1);
	ck_assert_uint_eq(h.returned, 1);
	ck_assert_int_eq(stat(e2e_backing(name), &st), 0);
	ck_assert_int_eq(st.st_size, FILE_SIZE / 2);
	next_io_new_layout(a, &fa, lo, name);
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs3_close(&c);
	free(lo);
	nfs42_client_free(a);
}
END_TEST

/* "unexport": the export removed over DBus with a layout out. */
START_TEST(unexport_recalls_and_fences)
{
	struct nfs42_client *a = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("unexport");
	struct nfs42_file fa;
	uint64_t recalls0;

	hold_layout(a, name, false, &fa, lo);
	ck_assert_int_eq(ds_read_status(&fa, lo), 0);
	recalls0 = nfs42_layout_recalls(a);
	nfs42_layout_busy(a, lo, true);
	ck_assert_int_eq(
		system("dbus-send --system --print-reply --dest=org.ganesha.nfsd "
		       "/org/ganesha/nfsd/ExportMgr "
		       "org.ganesha.nfsd.exportmgr.RemoveExport uint16:1 "
		       ">/dev/null"),
		0);
	ck_assert_int_ge(nfs42_poll(a, 2000), 0);
	ck_assert_uint_eq(nfs42_layout_recalls(a), recalls0 + 1);
	/* the data servers, which still export the filesystem, refuse it */
	ck_assert_int_eq(ds_read_status(&fa, lo), NFS4ERR_PNFS_NO_LAYOUT);
	ck_assert(e2e_log_has("layouts of 1 files fenced and recalled"));
	ck_nfs_ok(a, nfs42_null(a));
	nfs42_layout_busy(a, lo, false);
	free(lo);
	nfs42_client_free(a);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("pnfs_recall");
	TCase *tc = tcase_create("recall");

	tcase_set_timeout(tc, 120);
	if (argc > 1 && !strcmp(argv[1], "unexport")) {
		tcase_add_test(tc, unexport_recalls_and_fences);
	} else if (argc > 1 && !strcmp(argv[1], "v3")) {
		tcase_add_test(tc, recall_on_v3_truncate);
	} else {
		tcase_add_test(tc, recall_on_truncate);
		tcase_add_test(tc, recall_on_truncating_open);
		tcase_add_test(tc, recall_on_deallocate);
		tcase_add_test(tc, recall_on_copy_into);
		tcase_add_test(tc, recall_on_async_copy_into);
		tcase_add_test(tc, recall_on_remove);
		tcase_add_test(tc, no_recall_for_own_change_or_copy_from);
		tcase_add_test(tc, copy_of_file_with_layout_out);
		tcase_add_test(tc, no_recall_for_own_async_copy);
		tcase_add_test(tc, layoutget_during_recall);
		tcase_add_test(tc, unreturned_layout_fenced);
	}
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
