/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * What a layout and a data-server handle authorize (issue #26 items 3, 4,
 * 6, 7, 8), each case the way the review probed it (harness --pnfs 2,
 * 64 KiB stripes, Lease_Lifetime 5, Test_Hooks stalls):
 *
 *  - an RW layout only for an open with write access on a writable export,
 *    for a caller who may write (squashed or not); LAYOUTCOMMIT runs as the
 *    caller, never grows the file past what the data servers wrote, and a
 *    last write outside the committed range is NFS4ERR_INVAL;
 *  - a data-server handle writes only under an RW layout, dies when its
 *    layout is returned, at a restart of the metadata server, when another
 *    client's OPEN denies writing, when its file leaves the export;
 *  - the fence is atomic with a data-server write (a write held between
 *    its check and its pwrite delays the fence, it never lands after it);
 *  - a change through another export of the same files (nested, NFSv3
 *    only) or a RENAME over the file recalls layouts as one through the
 *    metadata server's export does;
 *  - a LAYOUTGET Ganesha fails after the FSAL granted it leaves no holder;
 *    GETDEVICEINFO answers only for exports the client may reach.
 *
 * Argument: "ro", "squash", "restart", "exports", "v3" (see main()).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>

#include "e2e_fsal_util.h"
#include "e2e_pnfs_util.h"
#include "nfs3_test.h"
#include "rsess.h"
#include "sparse_pnfs_cfg.h"

#define NFS3ERR_JUKEBOX 10008
#define FILE_SIZE 4096
#define UID 1000
#define LAST_BIG ((1ULL << 40) - 1)
#define T2100 4102444800LL /* 2100-01-01 */

static const char *uniq(const char *what)
{
	return e2e_fmt("auth-%s", e2e_uniq(what));
}

/* A file of len bytes on the server's disk, with mode and owner. */
static const char *backing_file(const char *what, size_t len, mode_t mode,
				uid_t uid)
{
	const char *name = uniq(what);
	uint8_t *buf = malloc(len);
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	e2e_put_backing(name, buf, len);
	free(buf);
	ck_assert_int_eq(chmod(e2e_backing(name), mode), 0);
	ck_assert_int_eq(chown(e2e_backing(name), uid, uid), 0);
	return name;
}

static struct nfs42_client *client_as(uint32_t uid)
{
	struct nfs42_client *cl = e2e_client();

	nfs42_set_cred(cl, uid, uid, 0, NULL);
	return cl;
}

/* I/O of one data server on the stripe of offset, with lo's handle and
 * sid (NULL: the anonymous stateid); the status. */
static int ds_io(struct nfs42_client *cl, const struct nfs42_layout *lo,
		 const struct nfs42_stateid *sid, bool write, uint64_t offset,
		 const void *data, uint32_t len)
{
	static const struct nfs42_stateid anon;
	struct nfs42_stripe_loc loc;
	struct nfs42_compound *c;
	struct nfs42_client *ds;
	int rc;

	nfs42_layout_locate(lo, offset, &loc);
	ck_nfs_ok(cl, nfs42_ds_client(cl, lo, loc.ds, &ds));
	c = nfs42_compound_new(ds);
	nfs42_op_putfh(c, &lo->fhs[loc.fh]);
	if (write)
		nfs42_op_write(c, sid ? sid : &anon, offset, FILE_SYNC4, data,
			       len);
	else
		nfs42_op_read(c, sid ? sid : &anon, offset, len);
	nfs42_compound_no_retry(c);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

static int ds_write(struct nfs42_client *cl, const struct nfs42_layout *lo,
		    uint64_t offset, const char *text)
{
	return ds_io(cl, lo, NULL, true, offset, text, strlen(text));
}

/* LAYOUTCOMMIT of lo over [offset, offset + length) with last_write and
 * mtime (NULL: none); the status, not retried. */
static int layoutcommit(struct nfs42_file *f, const struct nfs42_layout *lo,
			uint64_t offset, uint64_t length, uint64_t last,
			const struct nfs42_time *mtime)
{
	struct nfs42_compound *c = nfs42_compound_new(f->cl);
	int rc;

	nfs42_op_putfh(c, &f->fh);
	nfs42_op_layoutcommit(c, offset, length, false, &lo->stateid, &last,
			      mtime, LAYOUT4_NFSV4_1_FILES);
	nfs42_compound_no_retry(c);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

static struct stat bstat(const char *name)
{
	struct stat st;

	ck_assert_int_eq(stat(e2e_backing(name), &st), 0);
	return st;
}

/* The file as it was made: size and a modification time before 2100. */
static void untouched(const char *name, off_t size)
{
	struct stat st = bstat(name);

	ck_assert_msg(st.st_size == size, "%s: size %lld, not %lld", name,
		      (long long)st.st_size, (long long)size);
	ck_assert_msg(st.st_mtime < T2100, "%s: mtime %lld", name,
		      (long long)st.st_mtime);
}

/*
 * An RW layout asked under an open that may not write, then (had it been
 * given) LAYOUTCOMMIT of a 1 TiB size and a 2100 mtime with it; with a
 * READ layout instead, the same LAYOUTCOMMIT: neither changes the file.
 */
static void no_rw_layout_for(struct nfs42_client *cl, const char *name,
			     int want_rw)
{
	const struct nfs42_time t = { T2100, 0 };
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	struct nfs42_file f;
	int rc;

	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				 NFS42_NOCREATE, 0, false, &f));
	rc = nfs42_layout_get(&f, LAYOUTIOMODE4_RW, lo);
	if (rc == 0)
		(void)layoutcommit(&f, lo, 0, NFS42_LENGTH_EOF, LAST_BIG, &t);
	untouched(name, FILE_SIZE);
	ck_assert_msg(rc == want_rw, "RW layout for a read-only open: %s",
		      nfs42_strerror(rc));
	ck_nfs_ok(cl, nfs42_layout_get(&f, LAYOUTIOMODE4_READ, lo));
	ck_assert_int_ne(
		layoutcommit(&f, lo, 0, NFS42_LENGTH_EOF, LAST_BIG, &t), 0);
	untouched(name, FILE_SIZE);
	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_close(&f));
	free(lo);
}

/* Item 3, the probe: uid 1000, READ open of a root-owned 0444 file. */
START_TEST(read_open_no_rw_layout)
{
	struct nfs42_client *cl = client_as(UID);

	no_rw_layout_for(cl, backing_file("ro0444", FILE_SIZE, 0444, 0),
			 NFS4ERR_ACCESS);
	nfs42_client_free(cl);
}
END_TEST

/* "ro" (Access_Type = RO): root's READ open of a 0644 file. */
START_TEST(ro_export_no_rw_layout)
{
	struct nfs42_client *cl = e2e_client();

	no_rw_layout_for(cl, backing_file("roexp", FILE_SIZE, 0644, 0),
			 NFS4ERR_ROFS);
	nfs42_client_free(cl);
}
END_TEST

/* "squash" (Squash = All): root squashed to nobody, a root 0644 file. */
START_TEST(squashed_no_rw_layout)
{
	struct nfs42_client *cl = e2e_client();

	no_rw_layout_for(cl, backing_file("squash", FILE_SIZE, 0644, 0),
			 NFS4ERR_ACCESS);
	nfs42_client_free(cl);
}
END_TEST

/* An open of name for reading and writing with an RW layout. */
static void open_rw_layout(struct nfs42_client *cl, const char *name,
			   struct nfs42_file *f, struct nfs42_layout *lo)
{
	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				 NFS42_NOCREATE, 0, false, f));
	ck_nfs_ok(cl, nfs42_layout_get(f, LAYOUTIOMODE4_RW, lo));
}

/*
 * Item 3: uid 1000 may write a root-owned 0666 file but does not own it.
 * It writes 100 bytes through a data server, then commits a last write of
 * 2^40 - 1 (inside its range) with an mtime of 2100: the size stays what
 * the data servers wrote, the mtime is not the client's (only the owner
 * may set one).  A last write outside the committed range: NFS4ERR_INVAL.
 */
START_TEST(layoutcommit_bounded)
{
	const struct nfs42_time t = { T2100, 0 };
	struct nfs42_client *cl = client_as(UID);
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("commit", 0, 0666, 0);
	char data[101];
	struct nfs42_file f;
	struct stat st;

	memset(data, 'w', 100);
	data[100] = '\0';
	open_rw_layout(cl, name, &f, lo);
	ck_assert_int_eq(ds_write(cl, lo, 0, data), 0);
	ck_nfs_ok(cl, layoutcommit(&f, lo, 0, NFS42_LENGTH_EOF, LAST_BIG, &t));
	st = bstat(name);
	ck_assert_int_eq(st.st_size, 100);
	ck_assert_int_lt(st.st_mtime, T2100);
	ck_assert_int_eq(layoutcommit(&f, lo, 0, 4096, 8191, NULL),
			 NFS4ERR_INVAL);
	ck_assert_int_eq(layoutcommit(&f, lo, 8192, 4096, 100, NULL),
			 NFS4ERR_INVAL);
	ck_assert_int_eq(bstat(name).st_size, 100);
	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_close(&f));
	free(lo);
	nfs42_client_free(cl);
}
END_TEST

/* Item 4: a READ layout's handle does not write. */
START_TEST(read_layout_handle_no_write)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("readlo", FILE_SIZE, 0644, 0);
	struct nfs42_file f;

	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				 NFS42_NOCREATE, 0, false, &f));
	ck_nfs_ok(cl, nfs42_layout_get(&f, LAYOUTIOMODE4_READ, lo));
	ck_assert_int_eq(ds_io(cl, lo, &f.stateid, false, 0, NULL, 100), 0);
	ck_assert_int_eq(ds_io(cl, lo, &f.stateid, true, 0, "written", 7),
			 NFS4ERR_PNFS_NO_LAYOUT);
	untouched(name, FILE_SIZE);
	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_close(&f));
	free(lo);
	nfs42_client_free(cl);
}
END_TEST

/* Item 4: after LAYOUTRETURN and CLOSE the handle writes nothing, with
 * the anonymous stateid. */
START_TEST(handle_dies_with_return)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("returned", FILE_SIZE, 0644, 0);
	struct nfs42_file f;

	open_rw_layout(cl, name, &f, lo);
	ck_assert_int_eq(ds_write(cl, lo, 0, "through the layout"), 0);
	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_close(&f));
	ck_assert_int_eq(ds_write(cl, lo, 8192, "after the return"),
			 NFS4ERR_PNFS_NO_LAYOUT);
	ck_assert_int_eq(ds_io(cl, lo, NULL, false, 0, NULL, 100),
			 NFS4ERR_PNFS_NO_LAYOUT);
	untouched(name, FILE_SIZE);
	free(lo);
	nfs42_client_free(cl);
}
END_TEST

/* "restart": the metadata server and every data server crash and start
 * again, a fresh client presents the old handle: nothing written. */
START_TEST(handle_dies_with_restart)
{
	struct nfs42_client *cl = e2e_client(), *fresh;
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("restart", FILE_SIZE, 0644, 0);
	unsigned int i, n = (unsigned int)atoi(e2e_env("NFS42_DS_COUNT"));
	struct nfs42_file f;

	open_rw_layout(cl, name, &f, lo);
	ck_assert_int_eq(ds_write(cl, lo, 0, "before the restart"), 0);
	/* a crash: nothing is fenced or recalled on the way down */
	e2e_server_ctl("kill9");
	e2e_server_ctl("start");
	for (i = 0; i < n; i++) {
		e2e_server_ctl(e2e_fmt("ds-kill9 %u", i));
		e2e_server_ctl(e2e_fmt("ds-start %u", i));
	}
	fresh = e2e_client_after_restart();
	ck_assert_int_eq(ds_write(fresh, lo, 8192, "after the restart"),
			 NFS4ERR_PNFS_NO_LAYOUT);
	ck_assert_int_eq(bstat(name).st_size, FILE_SIZE);
	nfs42_client_free(fresh);
	nfs42_client_free(cl);
	free(lo);
}
END_TEST

/*
 * Item 4: A has an RW layout and downgrades its open to READ; B opens
 * with DENY_WRITE.  A's write layout is recalled first (B waits on
 * NFS4ERR_DELAY), then A's handle writes nothing while B's open stands
 * (the metadata server answers NFS4ERR_LOCKED... for the same write).
 */
START_TEST(deny_write_open_recalls_rw_layout)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("denyw", FILE_SIZE, 0644, 0);
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_READ,
				   .deny = OPEN4_SHARE_DENY_WRITE,
				   .createmode = NFS42_NOCREATE };
	struct e2e_open_req ra = { .access = OPEN4_SHARE_ACCESS_READ,
				   .createmode = NFS42_NOCREATE,
				   .owner = "denyw-a" };
	struct nfs42_stateid down;
	struct nfs42_file fa, fb;
	struct holder h;

	/* READ, then BOTH by the same owner: it may go back to READ */
	ck_nfs_ok(a, e2e_open(a, name, &ra, &fa));
	ra.access = OPEN4_SHARE_ACCESS_BOTH;
	ck_nfs_ok(a, e2e_open(a, name, &ra, &fa));
	ck_nfs_ok(a, nfs42_layout_get(&fa, LAYOUTIOMODE4_RW, lo));
	ck_assert_int_eq(ds_write(a, lo, 0, "before the deny"), 0);
	ck_nfs_ok(a, e2e_open_downgrade(a, &fa, OPEN4_SHARE_ACCESS_READ,
					OPEN4_SHARE_DENY_NONE, &down));
	fa.stateid = down;
	holder_start(&h, a, false);
	ck_nfs_ok(b, e2e_open(b, name, &rq, &fb));
	holder_join(&h);
	ck_assert_uint_eq(h.returned, 1);
	ck_assert_int_eq(ds_write(a, lo, 8192, "while denied"),
			 NFS4ERR_PNFS_NO_LAYOUT);
	ck_assert_int_eq(bstat(name).st_size, FILE_SIZE);
	ck_nfs_ok(b, nfs42_close(&fb));
	ck_nfs_ok(a, nfs42_close(&fa));
	free(lo);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* Item 4: a file moved out of the export (on the server) is out of reach
 * of its data-server handle. */
START_TEST(moved_out_of_export)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("moved", FILE_SIZE, 0644, 0);
	const char *outside = e2e_fmt("%s/%s", e2e_env("NFS42_WORK_DIR"), name);
	struct nfs42_file f;
	struct stat st;

	open_rw_layout(cl, name, &f, lo);
	ck_assert_int_eq(ds_write(cl, lo, 0, "inside"), 0);
	ck_assert_int_eq(rename(e2e_backing(name), outside), 0);
	ck_assert_int_eq(ds_write(cl, lo, 8192, "outside"), NFS4ERR_STALE);
	ck_assert_int_eq(stat(outside, &st), 0);
	ck_assert_int_eq(st.st_size, FILE_SIZE);
	(void)nfs42_layout_return(&f, lo);
	(void)nfs42_close(&f);
	unlink(outside);
	free(lo);
	nfs42_client_free(cl);
}
END_TEST

struct late_write {
	struct nfs42_client *cl;
	const struct nfs42_layout *lo;
	int rc;
};

static void *late_write_main(void *arg)
{
	struct late_write *w = arg;

	w->rc = ds_write(w->cl, w->lo, 3 * 65536, "a write held up");
	return NULL;
}

/*
 * Item 6: A's data-server write is held (Test_Hooks stall, 3 s) between
 * its fence check and its pwrite; meanwhile B truncates the file, which
 * fences A's layout after a lease (5 s) unreturned.  The fence waits for
 * the write: the write lands before the truncate, never after it (the
 * file is not extended again behind the truncate).
 */
START_TEST(fence_waits_for_write)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("atomic", 0, 0644, 0);
	struct late_write w = { .lo = lo };
	struct nfs42_file f;
	int64_t t0, took;
	pthread_t t;
	char *marker;
	int fd;

	open_rw_layout(a, name, &f, lo);
	ck_assert_int_eq(ds_write(a, lo, 0, "first"), 0);
	nfs42_layout_busy(a, lo, true); /* answered, never returned */
	marker = e2e_fmt("%s/ds_write.%llu", e2e_env("NFS42_STALL_DIR"),
			 (unsigned long long)bstat(name).st_ino);
	fd = creat(marker, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	w.cl = a;
	ck_assert_int_eq(pthread_create(&t, NULL, late_write_main, &w), 0);
	/* the write is held when the marker is gone */
	while (access(marker, F_OK) == 0)
		usleep(10 * 1000);
	t0 = e2e_now_ms();
	truncate_to(b, e2e_path(name), 2);
	took = e2e_now_ms() - t0;
	pthread_join(t, NULL);
	/* the layout was fenced (after the 5 s lease), once the write held
	 * for 8 s was done */
	ck_assert(e2e_log_has("fenced (truncate)"));
	ck_assert_msg(took >= 7000, "the truncate took %lld ms",
		      (long long)took);
	ck_assert_int_eq(bstat(name).st_size, 2);
	ck_assert_msg(w.rc == 0 || w.rc == NFS4ERR_PNFS_NO_LAYOUT, "%s",
		      nfs42_strerror(w.rc));
	nfs42_layout_busy(a, lo, false);
	(void)nfs42_close(&f);
	free(lo);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

struct striped_write {
	struct nfs42_file *f;
	struct nfs42_layout *lo;
	int fd, rc;
};

static void *striped_write_main(void *arg)
{
	struct striped_write *sw = arg;
	struct nfs42_pnfs_stats st;

	sw->rc = nfs42_pnfs_write_fd(sw->f, sw->lo, NULL, sw->fd, NULL, &st);
	return NULL;
}

/* A temporary source file of len bytes with no zero byte (copied to
 * buf), its name already unlinked: the descriptor. */
static int inflight_source(uint8_t *buf, size_t len)
{
	char src[] = "/tmp/e2e-inflight-XXXXXX";
	size_t k;
	int fd;

	for (k = 0; k < len; k++)
		buf[k] = (uint8_t)(k % 251 + 1);
	fd = mkstemp(src);
	ck_assert_int_ge(fd, 0);
	unlink(src);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	return fd;
}

/*
 * Arm the one-shot stall of op on name's file, run fn(arg) in a thread,
 * and once the stall holds a call (its marker gone) and 3 s more passed,
 * read what the file holds into got (len bytes, zeros where nothing is
 * written); the thread is joined before returning.
 */
static void read_while_held(const char *op, const char *name,
			    void *(*fn)(void *), void *arg, uint8_t *got,
			    size_t len)
{
	char *marker = e2e_fmt("%s/%s.%llu", e2e_env("NFS42_STALL_DIR"), op,
			       (unsigned long long)bstat(name).st_ino);
	pthread_t t;
	int fd = creat(marker, 0644);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(pthread_create(&t, NULL, fn, arg), 0);
	while (access(marker, F_OK) == 0)
		usleep(10 * 1000);
	usleep(3000 * 1000);
	fd = open(e2e_backing(name), O_RDONLY);
	ck_assert_int_ge(fd, 0);
	memset(got, 0, len);
	ck_assert_int_ge(pread(fd, got, len, 0), 0);
	close(fd);
	pthread_join(t, NULL);
}

/* name's file holds the len bytes of buf (got: room for them). */
static void backing_holds(const char *name, const uint8_t *buf, uint8_t *got,
			  size_t len)
{
	int fd = open(e2e_backing(name), O_RDONLY);

	ck_assert_int_ge(fd, 0);
	/* the pages read_while_held cached are stale on a mount of a
	 * shared filesystem that is not the servers' (the Ceph lane's
	 * ceph-fuse): read what the file system has */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	ck_assert_int_eq(pread(fd, got, len, 0), (ssize_t)len);
	close(fd);
	ck_assert(memcmp(got, buf, len) == 0);
}

/*
 * Our client keeps several WRITEs in flight on each data server: the
 * first data-server write of a 1 MiB striped write (16 stripe units of
 * 64 KiB over the two servers) is held 8 s by the Test_Hooks stall;
 * meanwhile later units of that same server are written, as are the
 * other server's.  (One WRITE at a time per server, the client wrote
 * nothing more through the held one's server until it was answered.)
 */
START_TEST(writes_in_flight_per_ds)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("inflight", 0, 0644, 0);
	const size_t unit = 65536, units = 16;
	uint8_t *buf = malloc(unit * units), *got = malloc(unit * units);
	struct striped_write sw = { .lo = lo };
	unsigned int written[2] = { 0, 0 };
	struct nfs42_file f;
	size_t k;

	sw.fd = inflight_source(buf, unit * units);
	open_rw_layout(cl, name, &f, lo);
	sw.f = &f;
	/* the first data-server write is held */
	read_while_held("ds_write", name, striped_write_main, &sw, got,
			unit * units);
	for (k = 0; k < units; k++)
		if (got[k * unit] != 0)
			written[k % 2]++;
	ck_nfs_ok(cl, sw.rc);
	ck_assert_msg(
		written[0] > 0 && written[1] > 0,
		"while one data server held a write, units written through each: %u, %u",
		written[0], written[1]);
	backing_holds(name, buf, got, unit * units);
	(void)nfs42_layout_return(&f, lo);
	ck_nfs_ok(cl, nfs42_close(&f));
	close(sw.fd);
	free(buf);
	free(got);
	free(lo);
	nfs42_client_free(cl);
}
END_TEST

struct mds_put {
	struct nfs42_client *cl;
	const char *path;
	int fd, rc;
};

static void *mds_put_main(void *arg)
{
	struct mds_put *mp = arg;

	mp->rc = nfs42_write_file_fd(mp->cl, mp->path, mp->fd, 0644, NULL);
	return NULL;
}

/*
 * Our client keeps several WRITEs in flight through the metadata server
 * too (nfs42 put --no-pnfs, nfs42_write_file_fd): the first WRITE of a
 * file of 4 WRITEs is held 8 s by the Test_Hooks stall (after its
 * pwrite); meanwhile the three others are written.  (One WRITE at a time,
 * the client sent nothing more until the held one was answered: seen
 * failing so, "later WRITEs written: 0 of 3".)
 */
START_TEST(writes_in_flight_mds)
{
	struct nfs42_client *cl = e2e_client();
	const char *name = backing_file("mdsinflight", 0, 0644, 0);
	const size_t unit = nfs42_io_size(cl), units = 4;
	uint8_t *buf = malloc(unit * units), *got = malloc(unit * units);
	struct mds_put mp = { .cl = cl, .path = e2e_path(name) };
	unsigned int written = 0;
	size_t k;

	mp.fd = inflight_source(buf, unit * units);
	read_while_held("write", name, mds_put_main, &mp, got, unit * units);
	for (k = 1; k < units; k++)
		if (got[k * unit] != 0)
			written++;
	ck_nfs_ok(cl, mp.rc);
	ck_assert_msg(written > 0,
		      "while the metadata server held a WRITE, later WRITEs "
		      "written: %u of %zu",
		      written, units - 1);
	backing_holds(name, buf, got, unit * units);
	close(mp.fd);
	free(buf);
	free(got);
	nfs42_client_free(cl);
}
END_TEST

/* Item 7: B renames another file over the one A holds a layout of. */
START_TEST(rename_over_recalls)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = backing_file("target", FILE_SIZE, 0644, 0);
	const char *src = backing_file("src", 10, 0644, 0);
	struct nfs42_file f;
	struct holder h;

	open_rw_layout(a, name, &f, lo);
	holder_start(&h, a, false);
	ck_nfs_ok(b, nfs42_rename(b, e2e_path(src), e2e_path(name)));
	holder_join(&h);
	ck_assert_uint_eq(h.returned, 1);
	ck_assert_int_eq(ds_write(a, lo, 0, "into the old file"),
			 NFS4ERR_PNFS_NO_LAYOUT);
	(void)nfs42_close(&f);
	free(lo);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

struct late_layout {
	struct nfs42_file *f;
	struct nfs42_layout *lo;
	int rc;
};

static void *late_layout_main(void *arg)
{
	struct late_layout *l = arg;

	l->rc = nfs42_layout_get(l->f, LAYOUTIOMODE4_READ, l->lo);
	return NULL;
}

/* Arm the one-shot stall of op for name's inode. */
static const char *stall(const char *op, const char *name)
{
	const char *marker = e2e_fmt("%s/%s.%llu", e2e_env("NFS42_STALL_DIR"),
				     op,
				     (unsigned long long)bstat(name).st_ino);
	int fd = creat(marker, 0644);

	ck_assert_int_ge(fd, 0);
	close(fd);
	return marker;
}

/*
 * Item 8: C's LAYOUTGET is held (Test_Hooks stall, 8 s) from its start to
 * its grant while A's layout of the file is recalled and, kept, fenced (B
 * truncates).  The layout C then gets works on the data servers and A's
 * stays fenced: a layout epoch read before the fence and stored after it
 * gave C a layout dead on arrival and counted A's fenced one again.
 */
START_TEST(layoutget_across_a_fence)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client(),
			    *c = e2e_client();
	struct nfs42_layout *la = malloc(sizeof(*la)),
			    *lc = malloc(sizeof(*lc));
	const char *name = backing_file("across", FILE_SIZE, 0644, 0);
	struct late_layout l = { .lo = lc };
	struct nfs42_file fa, fc;
	const char *marker;
	pthread_t t;

	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, &fa));
	ck_nfs_ok(a, nfs42_layout_get(&fa, LAYOUTIOMODE4_READ, la));
	nfs42_layout_busy(a, la, true); /* answered, never returned */
	ck_nfs_ok(c, nfs42_open(c, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, &fc));
	l.f = &fc;
	marker = stall("layoutget", name);
	ck_assert_int_eq(pthread_create(&t, NULL, late_layout_main, &l), 0);
	while (access(marker, F_OK) == 0)
		usleep(10 * 1000);
	truncate_to(b, e2e_path(name), 2);
	pthread_join(t, NULL);
	ck_nfs_ok(c, l.rc);
	ck_assert_int_eq(ds_io(c, lc, NULL, false, 0, NULL, 2), 0);
	ck_assert_int_eq(ds_io(a, la, NULL, false, 0, NULL, 2),
			 NFS4ERR_PNFS_NO_LAYOUT);
	nfs42_layout_busy(a, la, false);
	ck_nfs_ok(c, nfs42_layout_return(&fc, lc));
	(void)nfs42_close(&fc);
	(void)nfs42_close(&fa);
	free(la);
	free(lc);
	nfs42_client_free(a);
	nfs42_client_free(b);
	nfs42_client_free(c);
}
END_TEST

/* B's truncate (once, not retried): its status. */
static int truncate_once(struct nfs42_client *b, const char *path)
{
	struct nfs42_compound *c;
	struct nfs42_sattr sa;
	struct nfs42_fh fh;
	int rc;

	ck_nfs_ok(b, nfs42_lookup_path(b, path, &fh, NULL));
	c = nfs42_compound_new(b);
	nfs42_op_putfh(c, &fh);
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 1);
	nfs42_op_setattr(c, NULL, &sa);
	nfs42_compound_no_retry(c);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/*
 * Item 8: a LAYOUTGET whose reply does not fit the session's cached reply
 * size is answered NFS4ERR_REP_TOO_BIG_TO_CACHE after the FSAL granted
 * the layout: no layout is left with the server (another client's
 * truncate goes through at once, no recall for a layout nobody holds).
 */
START_TEST(failed_layoutget_leaves_nothing)
{
	static const struct nfs42_chan_attrs fore = { .maxreq = 65536,
						      .maxresp = 65536,
						      .maxresp_cached = 180,
						      .maxops = 16,
						      .maxreqs = 1 };
	struct nfs42_client *b = e2e_client(), *a = e2e_client();
	const char *name = backing_file("toobig", FILE_SIZE, 0644, 0);
	struct nfs42_open_args oa = { 0 };
	struct nfs42_compound *c;
	struct nfs42_fh fh;
	struct rsess s = { 0 };
	struct nfs42_stateid sid;
	int oi, rc;

	ck_nfs_ok(a, nfs42_lookup_path(a, e2e_path(name), &fh, NULL));
	ck_assert_int_eq(rsess_exchange_id(&s, uniq("toobig-owner")), 0);
	ck_assert_int_eq(rsess_create_session_chan(&s, &fore, NULL, "toobig"),
			 0);
	ck_assert_int_eq(rsess_reclaim_complete(&s), 0);
	c = rsess_cpd(&s);
	oa.share_access = OPEN4_SHARE_ACCESS_READ |
			  OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	oa.owner = "toobig-oo";
	oa.owner_len = 9;
	oa.createmode = NFS42_NOCREATE;
	oa.claim = CLAIM_FH;
	nfs42_op_putfh(c, &fh);
	oi = nfs42_op_open(c, &oa);
	ck_assert_int_eq(nfs42_compound_run(c), 0);
	sid = nfs42_res(c, oi)->u.open.stateid;
	nfs42_compound_free(c);
	/* SEQUENCE with sa_cachethis, PUTFH, LAYOUTGET */
	c = nfs42_compound_new(s.cl);
	nfs42_compound_no_sequence(c);
	nfs42_op_sequence(c, s.sid, s.seq++, 0, 0, true);
	nfs42_op_putfh(c, &fh);
	nfs42_op_layoutget(c, LAYOUT4_NFSV4_1_FILES, LAYOUTIOMODE4_READ, 0,
			   NFS42_LENGTH_EOF, 0, &sid, 4096);
	nfs42_compound_no_retry(c);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	ck_assert_msg(rc == NFS4ERR_REP_TOO_BIG_TO_CACHE,
		      "LAYOUTGET with a small cached reply: %s",
		      nfs42_strerror(rc));
	ck_assert_int_eq(truncate_once(b, e2e_path(name)), 0);
	rsess_free(&s);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* ---- "exports": a nested export and an MDS export nobody may reach ---- */

/*
 * Item 7: A holds a layout through the metadata server's export; B
 * truncates, then removes, the file through the nested export /nested (no
 * pNFS of its own): each recalls A's layout first.
 */
START_TEST(nested_export_recalls)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *base = uniq("nested");
	const char *name = e2e_fmt("nested/%s", base);
	const char *via = e2e_fmt("/nested/%s", base);
	struct nfs42_file f;
	struct holder h;

	e2e_put_backing(name, "nested export data", 18);
	open_rw_layout(a, name, &f, lo);
	holder_start(&h, a, false);
	truncate_to(b, via, 2);
	holder_join(&h);
	ck_assert_uint_eq(h.returned, 1);
	ck_assert_int_eq(bstat(name).st_size, 2);
	ck_assert_int_eq(ds_write(a, lo, 0, "recalled"),
			 NFS4ERR_PNFS_NO_LAYOUT);
	/* again, for a REMOVE through /nested */
	ck_nfs_ok(a, nfs42_layout_get(&f, LAYOUTIOMODE4_RW, lo));
	holder_start(&h, a, false);
	ck_nfs_ok(b, nfs42_remove(b, via));
	holder_join(&h);
	ck_assert_uint_eq(h.returned, 1);
	(void)nfs42_close(&f);
	free(lo);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/*
 * Item 8: export 3 (/devx) hands out layouts but gives 127.0.0.1 no
 * access: GETDEVICEINFO of its device (the id computed from its
 * configuration) is NFS4ERR_NOENT, as for a device that does not exist.
 */
START_TEST(getdeviceinfo_needs_export_access)
{
	struct nfs42_client *cl = e2e_client();
	struct sparse_ds ds = { 0 };
	uint8_t devid[NFS4_DEVICEID4_SIZE] = { 0 };
	struct nfs42_compound *c;
	uint32_t gen;
	int rc;

	ck_assert_int_eq(sparse_ds_addr_parse("127.0.0.1:1", &ds.addr[0]), 0);
	ds.naddr = 1;
	gen = sparse_pnfs_generation(&ds, 1, SPARSE_STRIPE_UNIT_DEFAULT, 1);
	/* struct pnfs_deviceid as Ganesha puts it on the wire (memory
	 * order): fsal_id FSAL_ID_EXPERIMENTAL (1), device_id2 the
	 * Export_Id at byte 2, devid = generation << 32 | device at 8 */
	devid[0] = 1;
	devid[2] = 3;
	devid[12] = (uint8_t)gen;
	devid[13] = (uint8_t)(gen >> 8);
	devid[14] = (uint8_t)(gen >> 16);
	devid[15] = (uint8_t)(gen >> 24);
	c = nfs42_compound_new(cl);
	nfs42_op_getdeviceinfo(c, devid, LAYOUT4_NFSV4_1_FILES, 4096);
	nfs42_compound_no_retry(c);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	ck_assert_msg(rc == NFS4ERR_NOENT,
		      "GETDEVICEINFO of an export we may not reach: %s",
		      nfs42_strerror(rc));
	nfs42_client_free(cl);
}
END_TEST

/*
 * "v3": A holds a layout through the metadata server's export; an NFSv3
 * client truncates the file through /v3only (NFSv3 only, nested): JUKEBOX
 * until A returned its layout.
 */
START_TEST(v3_only_export_recalls)
{
	struct nfs42_client *a = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *base = uniq("v3x");
	const char *name = e2e_fmt("v3only/%s", base);
	struct nfs3_fh root, fh;
	struct nfs3_conn c;
	struct nfs42_file f;
	struct holder h;
	int64_t give_up;
	int rc, jukebox = 0;

	e2e_put_backing(name, "through NFSv3", 13);
	ck_assert_int_eq(nfs3_connect(&c), 0);
	ck_assert_int_eq(nfs3_mount(&c, e2e_backing("v3only"), &root), 0);
	ck_assert_int_eq(nfs3_lookup(&c, &root, nfs3_str(base), &fh), 0);
	open_rw_layout(a, name, &f, lo);
	holder_start(&h, a, false);
	give_up = e2e_now_ms() + 20000;
	while ((rc = nfs3_setattr(&c, &fh, 2, -1)) == NFS3ERR_JUKEBOX &&
	       e2e_now_ms() < give_up) {
		jukebox++;
		usleep(200 * 1000);
	}
	ck_assert_msg(rc == NFS3_OK, "NFSv3 SETATTR: %s", nfs3_status_name(rc));
	holder_join(&h);
	ck_assert_int_ge(jukebox, 1);
	ck_assert_uint_eq(h.returned, 1);
	ck_assert_int_eq(bstat(name).st_size, 2);
	(void)nfs42_close(&f);
	nfs3_close(&c);
	free(lo);
	nfs42_client_free(a);
}
END_TEST

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	Suite *s = suite_create("pnfs_auth");
	TCase *tc = tcase_create("auth");

	e2e_require_root("pnfs_auth");
	tcase_set_timeout(tc, 120);
	if (!strcmp(mode, "ro")) {
		tcase_add_test(tc, ro_export_no_rw_layout);
	} else if (!strcmp(mode, "squash")) {
		tcase_add_test(tc, squashed_no_rw_layout);
	} else if (!strcmp(mode, "restart")) {
		tcase_add_test(tc, handle_dies_with_restart);
	} else if (!strcmp(mode, "exports")) {
		tcase_add_test(tc, nested_export_recalls);
		tcase_add_test(tc, getdeviceinfo_needs_export_access);
	} else if (!strcmp(mode, "v3")) {
		tcase_add_test(tc, v3_only_export_recalls);
	} else {
		tcase_add_test(tc, read_open_no_rw_layout);
		tcase_add_test(tc, layoutcommit_bounded);
		tcase_add_test(tc, read_layout_handle_no_write);
		tcase_add_test(tc, handle_dies_with_return);
		tcase_add_test(tc, deny_write_open_recalls_rw_layout);
		/* "cephfs" (the Ceph lane): the test's ceph-fuse mount holds
		 * its export directory alone, nothing outside to move to */
		if (strcmp(mode, "cephfs"))
			tcase_add_test(tc, moved_out_of_export);
		tcase_add_test(tc, fence_waits_for_write);
		tcase_add_test(tc, writes_in_flight_per_ds);
		tcase_add_test(tc, writes_in_flight_mds);
		tcase_add_test(tc, rename_over_recalls);
		tcase_add_test(tc, failed_layoutget_leaves_nothing);
		tcase_add_test(tc, layoutget_across_a_fence);
	}
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
