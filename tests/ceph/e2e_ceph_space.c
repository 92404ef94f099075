/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * ALLOCATE, DEALLOCATE and SEEK on a CephFS export through FSAL_CEPH, or
 * through FSAL_SPARSE on the harness's ceph-fuse mount (NFS42_FSAL=SPARSE)
 * (issue #29 item 4; docs/cluster.md), run by harness.sh --ceph.  The
 * file's RADOS objects (CephFS stripes a file into 4 MiB objects named
 * <inode in hex>.<index as 8 hex digits> in the data pool,
 * NFS42_CEPH_DATA_POOL) are looked at through librados as client.ganesha.
 *
 * deallocate: a 12 MiB file (three objects) written FILE_SYNC; DEALLOCATE
 *   of its middle 4 MiB reads back as zeros, the rest unchanged, the size
 *   kept, and the middle object is gone (the space released); a DEALLOCATE
 *   of 100 KiB inside the first object reads back as zeros and keeps that
 *   object; one past the end changes nothing.
 * allocate: Ceph 16.2 reserves nothing for fallocate in mode 0
 *   (Client::_fallocate only moves the size; libcephfs and ceph-fuse
 *   alike), so FSAL_CEPH answers ALLOCATE with NFS4ERR_NOTSUPP and leaves
 *   the file alone (patch 0230).  FSAL_SPARSE on ceph-fuse, whose
 *   fallocate(2) succeeds without reserving either, knows its export's
 *   filesystem from the mount's type (fuse.ceph-fuse) and refuses the same
 *   way (seen failing before it did: NFS4_OK, an 8 MiB file of zeros, no
 *   RADOS object made).
 * seek: SEEK (patch 0059) on the file with the punched hole: data at any
 *   offset is that offset, the hole is at the end (eof), past the end
 *   NFS4ERR_NXIO; Ceph cannot tell the punched hole, and says so.
 */
#include <inttypes.h>
#include "e2e_parity_util.h"
#include "e2e_rados_util.h"

#define OBJ (4u << 20) /* CephFS's default object size */

static rados_t cluster;
static rados_ioctx_t data_pool;

static void rados_open(void)
{
	e2e_rados_open(&cluster, &data_pool, e2e_env("NFS42_CEPH_DATA_POOL"));
}

static void rados_close(void)
{
	rados_ioctx_destroy(data_pool);
	rados_shutdown(cluster);
}

/* Does object idx of the file with inode ino exist? */
static bool has_object(uint64_t ino, unsigned int idx)
{
	char oid[64];
	uint64_t size;
	time_t mtime;

	snprintf(oid, sizeof(oid), "%" PRIx64 ".%08x", ino, idx);
	return rados_stat(data_pool, oid, &size, &mtime) == 0;
}

/* The objects of [0, n) that exist, as a bit mask. */
static unsigned int objects(uint64_t ino, unsigned int n)
{
	unsigned int mask = 0, i;

	for (i = 0; i < n; i++)
		if (has_object(ino, i))
			mask |= 1u << i;
	return mask;
}

/* Wait (10 s at most) until the objects of [0, n) are want. */
static unsigned int objects_become(uint64_t ino, unsigned int n,
				   unsigned int want)
{
	unsigned int got = objects(ino, n);

	for (int i = 0; i < 100 && got != want; i++) {
		usleep(100 * 1000);
		got = objects(ino, n);
	}
	return got;
}

static void write_all(struct nfs42_client *cl, struct nfs42_file *of,
		      const uint8_t *buf, size_t len)
{
	uint32_t chunk = nfs42_io_size(cl), n;
	size_t done;

	for (done = 0; done < len; done += chunk) {
		n = len - done > chunk ? chunk : len - done;
		ck_nfs_ok(cl,
			  e2e_write(cl, &of->fh, &of->stateid, done, FILE_SYNC4,
				    buf + done, n, NULL, NULL, NULL));
	}
}

static uint64_t size_of(struct nfs42_client *cl, struct nfs42_file *of)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_SIZE, -1);

	return e2e_getattr(cl, &of->fh, &bm).size;
}

/* The file's inode number in CephFS (FSAL_CEPH's fileid). */
static uint64_t ino_of(struct nfs42_client *cl, struct nfs42_file *of)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, -1);

	return e2e_getattr(cl, &of->fh, &bm).fileid;
}

/* [off, off+len) of the file equals want (NULL: zeros). */
static void check_range(struct nfs42_client *cl, struct nfs42_file *of,
			uint64_t off, size_t len, const uint8_t *want)
{
	uint8_t *got = malloc(len);

	ck_assert_ptr_nonnull(got);
	e2e_read_all(cl, &of->fh, &of->stateid, off, got, len);
	if (want)
		ck_assert_msg(!memcmp(got, want, len),
			      "[%" PRIu64 ", +%zu) changed", off, len);
	else
		ck_assert_msg(e2e_all_zero(got, len),
			      "[%" PRIu64 ", +%zu) not zeros", off, len);
	free(got);
}

/* A 12 MiB file of random bytes, FILE_SYNC: three objects. */
static struct nfs42_file three_objects(struct nfs42_client *cl,
				       const char *name, uint8_t **data,
				       uint64_t *ino)
{
	struct nfs42_file of = e2e_create_rw(cl, name);

	*data = e2e_rand_bytes(3 * OBJ, 29);
	write_all(cl, &of, *data, 3 * OBJ);
	*ino = ino_of(cl, &of);
	ck_assert_uint_eq(objects_become(*ino, 4, 0x7), 0x7);
	return of;
}

START_TEST(deallocate_releases_objects)
{
	struct nfs42_client *cl = e2e_client();
	uint8_t *data;
	uint64_t ino;
	struct nfs42_file of = three_objects(cl, "punch", &data, &ino);

	/* the middle object: zeros, released */
	ck_nfs_ok(cl, e2e_fallocate(cl, &of, false, OBJ, OBJ));
	ck_assert_uint_eq(size_of(cl, &of), 3 * OBJ);
	check_range(cl, &of, 0, OBJ, data);
	check_range(cl, &of, OBJ, OBJ, NULL);
	check_range(cl, &of, 2 * OBJ, OBJ, data + 2 * OBJ);
	ck_assert_uint_eq(objects_become(ino, 4, 0x5), 0x5);
	printf("deallocate: 12 MiB in 3 objects, DEALLOCATE [4 MiB, 8 MiB): objects 0 and 2 left\n");

	/* inside the first object: zeros, the object kept */
	ck_nfs_ok(cl, e2e_fallocate(cl, &of, false, 100 << 10, 100 << 10));
	check_range(cl, &of, 0, 100 << 10, data);
	check_range(cl, &of, 100 << 10, 100 << 10, NULL);
	check_range(cl, &of, 200 << 10, OBJ - (200 << 10), data + (200 << 10));
	ck_assert_uint_eq(objects(ino, 4), 0x5);

	/* past the end: nothing changes */
	ck_nfs_ok(cl, e2e_fallocate(cl, &of, false, 3 * OBJ, OBJ));
	ck_assert_uint_eq(size_of(cl, &of), 3 * OBJ);
	ck_assert_uint_eq(objects(ino, 4), 0x5);

	/* the same bytes through ceph-fuse */
	{
		uint8_t *b = malloc(OBJ);

		ck_assert_ptr_nonnull(b);
		e2e_bpread("punch", b, OBJ, OBJ);
		ck_assert(e2e_all_zero(b, OBJ));
		e2e_bpread("punch", b, OBJ, 2 * OBJ);
		ck_assert(!memcmp(b, data + 2 * OBJ, OBJ));
		free(b);
	}
	ck_nfs_ok(cl, e2e_close(&of));
	free(data);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(allocate_reserves_or_refuses)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_file of = e2e_create_rw(cl, "alloc");
	uint64_t ino = ino_of(cl, &of);
	const char *fsal = getenv("NFS42_FSAL") ?: "CEPH";
	int rc = e2e_fallocate(cl, &of, true, 0, 2 * OBJ);

	/* nothing would be reserved: not promised (patch 0230 for
	 * FSAL_CEPH, the export's filesystem type for FSAL_SPARSE)
	 */
	ck_nfs_status(rc, NFS4ERR_NOTSUPP);
	ck_assert_uint_eq(size_of(cl, &of), 0);
	ck_assert_uint_eq(objects(ino, 2), 0);
	printf("allocate: FSAL_%s: ALLOCATE [0, 8 MiB): NFS4ERR_NOTSUPP, the file untouched\n",
	       fsal);
	ck_nfs_ok(cl, e2e_close(&of));
	nfs42_client_free(cl);
}
END_TEST

START_TEST(seek_reports_data)
{
	struct nfs42_client *cl = e2e_client();
	uint8_t *data;
	uint64_t ino, pos;
	bool eof;
	struct nfs42_file of = three_objects(cl, "seek", &data, &ino);
	const uint64_t size = 3 * OBJ;

	ck_nfs_ok(cl, e2e_fallocate(cl, &of, false, OBJ, OBJ));
	ck_assert_uint_eq(objects_become(ino, 4, 0x5), 0x5);

	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 0, NFS4_CONTENT_DATA,
			       &pos, &eof));
	ck_assert_uint_eq(pos, 0);
	ck_assert(!eof);
	/* in the punched object: Ceph cannot tell it, so data */
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, OBJ + 7,
			       NFS4_CONTENT_DATA, &pos, &eof));
	ck_assert_uint_eq(pos, OBJ + 7);
	ck_assert(!eof);
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 0, NFS4_CONTENT_HOLE,
			       &pos, &eof));
	printf("seek: hole from 0 of a file whose middle 4 MiB were punched: %" PRIu64
	       "%s (size %" PRIu64 ")\n",
	       pos, eof ? ", eof" : "", size);
	/* a hole the server cannot see is reported as data: the first hole
	 * is at most the end; today's Ceph says the end */
	ck_assert_uint_le(pos, size);
	ck_assert(pos == size ? eof : pos >= OBJ && pos < 2 * OBJ);
	/* at or past the end: NFS4ERR_NXIO (RFC 7862 15.11.3) */
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, size, NFS4_CONTENT_DATA,
			       &pos, &eof),
		      NFS4ERR_NXIO);
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, size + OBJ,
			       NFS4_CONTENT_HOLE, &pos, &eof),
		      NFS4ERR_NXIO);
	/* the size the server answers from is the file's now: grown
	 * through ceph-fuse behind the server's back */
	{
		int fd = e2e_bopen("seek", O_WRONLY);

		ck_assert_int_eq(pwrite(fd, "z", 1, size + OBJ), 1);
		ck_assert_int_eq(fsync(fd), 0);
		close(fd);
	}
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, size, NFS4_CONTENT_DATA,
			       &pos, &eof));
	ck_assert_uint_eq(pos, size);
	ck_nfs_ok(cl, e2e_close(&of));
	free(data);
	nfs42_client_free(cl);
}
END_TEST

static void setup(void)
{
	rados_open();
}

static void teardown(void)
{
	rados_close();
}

int main(void)
{
	Suite *s = suite_create("e2e_ceph_space");
	TCase *tc = tcase_create("space");

	tcase_set_timeout(tc, 180);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, deallocate_releases_objects);
	tcase_add_test(tc, allocate_reserves_or_refuses);
	tcase_add_test(tc, seek_reports_data);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
