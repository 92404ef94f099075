/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL end-to-end, sparse primitives (issue #3): SEEK (RFC 7862 15.11),
 * ALLOCATE (15.1) and DEALLOCATE (15.4), checked against lseek
 * SEEK_DATA/SEEK_HOLE, st_blocks and pread() of the backing file.
 *
 * SEEK answers what lseek(2) answers on the backing file: NFS4ERR_NXIO
 * at or beyond EOF, and for SEEK_DATA with no data at or after the offset
 * (a trailing hole, an all-hole file), as knfsd does; RFC 7862 15.11.3
 * also allows NFS4_OK with sr_eof there, which the Linux client ignores
 * (design.md, "SEEK").  All files have a virtual hole at the end, so a
 * hole found at EOF comes with sr_eof TRUE.
 */
#include "e2e_fsal_util.h"

#define K4 4096u
#define M1 (1u << 20)

/* data at [0,4K), hole, data at [1M, 1M+4K) */
static char *make_two_islands(void)
{
	char *f = e2e_uniq("islands");
	uint8_t *d = e2e_rand_bytes(K4, 21);
	int fd = e2e_bopen(f, O_WRONLY | O_CREAT | O_TRUNC);

	ck_assert_int_eq(pwrite(fd, d, K4, 0), K4);
	ck_assert_int_eq(pwrite(fd, d, K4, M1), K4);
	ck_assert_int_eq(fsync(fd), 0);
	close(fd);
	free(d);
	/* the backing file system must really have the hole */
	ck_assert_int_eq(e2e_bseek(f, 0, SEEK_HOLE), K4);
	ck_assert_int_eq(e2e_bseek(f, 5000, SEEK_DATA), M1);
	return f;
}

START_TEST(seek_data_and_hole)
{
	struct nfs42_client *cl = e2e_client();
	char *f = make_two_islands();
	struct nfs42_file of = e2e_open_rw(cl, f);
	const uint64_t size = M1 + K4;
	uint64_t off;
	bool eof;

	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 5000, NFS4_CONTENT_DATA,
			       &off, &eof));
	ck_assert_uint_eq(off, M1);
	ck_assert(!eof);
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 0, NFS4_CONTENT_HOLE,
			       &off, &eof));
	ck_assert_uint_eq(off, K4);
	ck_assert(!eof);
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 0, NFS4_CONTENT_DATA,
			       &off, &eof));
	ck_assert_uint_eq(off, 0);
	ck_assert(!eof);
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 100, NFS4_CONTENT_DATA,
			       &off, &eof));
	ck_assert_uint_eq(off, 100); /* inside data: the offset itself */
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 8192, NFS4_CONTENT_HOLE,
			       &off, &eof));
	ck_assert_uint_eq(off, 8192); /* inside the hole: the offset */
	/* the virtual hole at the end of the file */
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, M1, NFS4_CONTENT_HOLE,
			       &off, &eof));
	ck_assert_uint_eq(off, size);
	ck_assert(eof);
	/* the last data byte */
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, size - 1,
			       NFS4_CONTENT_DATA, &off, &eof));
	ck_assert_uint_eq(off, size - 1);
	/* at and beyond EOF: NXIO, for both */
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, size, NFS4_CONTENT_DATA,
			       &off, &eof),
		      NFS4ERR_NXIO);
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, size, NFS4_CONTENT_HOLE,
			       &off, &eof),
		      NFS4ERR_NXIO);
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, size + M1,
			       NFS4_CONTENT_DATA, &off, &eof),
		      NFS4ERR_NXIO);
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, UINT64_MAX - 1,
			       NFS4_CONTENT_HOLE, &off, &eof),
		      NFS4ERR_NXIO);
	/*
	 * The anonymous stateid: either refused (Linux nfsd answers
	 * BAD_STATEID) or a real answer -- never NFS4_OK with an offset
	 * that was not looked up.
	 */
	off = 777;
	{
		int rc = e2e_seek(cl, &of.fh, &e2e_anon_stateid, 5000,
				  NFS4_CONTENT_DATA, &off, &eof);

		if (rc == NFS4_OK)
			ck_assert_msg(off == M1,
				      "SEEK_DATA(5000) with the anonymous "
				      "stateid answered OK, offset %llu",
				      (unsigned long long)off);
		else
			ck_nfs_status(rc, NFS4ERR_BAD_STATEID);
	}
	ck_nfs_ok(cl, e2e_close(&of));
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(seek_all_hole_and_empty)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("allhole"), *g = e2e_uniq("empty");
	struct nfs42_file of;
	uint64_t off = 12345;
	bool eof = false;
	int fd;

	fd = e2e_bopen(f, O_WRONLY | O_CREAT | O_TRUNC);
	ck_assert_int_eq(ftruncate(fd, M1), 0);
	close(fd);
	ck_assert_int_eq(e2e_bseek(f, 0, SEEK_DATA), -1);
	of = e2e_open_rw(cl, f);
	/* no data before EOF: NXIO, as lseek(SEEK_DATA) says */
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, 0, NFS4_CONTENT_DATA,
			       &off, &eof),
		      NFS4ERR_NXIO);
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, 4096, NFS4_CONTENT_DATA,
			       &off, &eof),
		      NFS4ERR_NXIO);
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 0, NFS4_CONTENT_HOLE,
			       &off, &eof));
	ck_assert_uint_eq(off, 0);
	ck_nfs_ok(cl, e2e_close(&of));
	/* an empty file: offset 0 is already beyond the end */
	e2e_put_backing(g, "", 0);
	of = e2e_open_rw(cl, g);
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, 0, NFS4_CONTENT_DATA,
			       &off, &eof),
		      NFS4ERR_NXIO);
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, 0, NFS4_CONTENT_HOLE,
			       &off, &eof),
		      NFS4ERR_NXIO);
	ck_nfs_ok(cl, e2e_close(&of));
	free(f);
	free(g);
	nfs42_client_free(cl);
}
END_TEST

/* data at [0,4K), then a hole up to 1 MiB: the trailing hole */
START_TEST(seek_data_in_trailing_hole)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("trailhole");
	uint8_t *d = e2e_rand_bytes(K4, 22);
	struct nfs42_file of;
	uint64_t off;
	bool eof;
	int fd;

	fd = e2e_bopen(f, O_WRONLY | O_CREAT | O_TRUNC);
	ck_assert_int_eq(pwrite(fd, d, K4, 0), K4);
	ck_assert_int_eq(ftruncate(fd, M1), 0);
	ck_assert_int_eq(fsync(fd), 0);
	close(fd);
	ck_assert_int_eq(e2e_bseek(f, 2 * K4, SEEK_DATA), -1);
	of = e2e_open_rw(cl, f);
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, 2 * K4,
			       NFS4_CONTENT_DATA, &off, &eof),
		      NFS4ERR_NXIO);
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, M1 - 1,
			       NFS4_CONTENT_DATA, &off, &eof),
		      NFS4ERR_NXIO);
	/* the hole itself is found where it is */
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 2 * K4,
			       NFS4_CONTENT_HOLE, &off, &eof));
	ck_assert_uint_eq(off, 2 * K4);
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 0, NFS4_CONTENT_HOLE,
			       &off, &eof));
	ck_assert_uint_eq(off, K4);
	ck_assert(!eof);
	ck_nfs_ok(cl, e2e_close(&of));
	free(d);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(seek_wrong_type)
{
	struct nfs42_client *cl = e2e_client();
	char *d = e2e_uniq("seekdir"), *l = e2e_uniq("seeklink"), *bp;
	struct nfs42_fh dfh, lfh;
	uint64_t off;
	bool eof;

	e2e_bmkdir(d, 0755);
	dfh = e2e_fh(cl, d);
	/* RFC 7862 11.2 lists ISDIR and WRONG_TYPE for SEEK */
	ck_nfs_status2(e2e_seek(cl, &dfh, &e2e_anon_stateid, 0,
				NFS4_CONTENT_DATA, &off, &eof),
		       NFS4ERR_ISDIR, NFS4ERR_WRONG_TYPE);
	bp = e2e_backing(l);
	ck_assert_int_eq(symlink("target", bp), 0);
	free(bp);
	/* LOOKUP does not follow the symlink: this is its own handle */
	ck_nfs_ok(cl, e2e_fh_rc(cl, l, &lfh));
	{
		int rc = e2e_seek(cl, &lfh, &e2e_anon_stateid, 0,
				  NFS4_CONTENT_DATA, &off, &eof);

		ck_assert_msg(rc == NFS4ERR_SYMLINK ||
				      rc == NFS4ERR_WRONG_TYPE ||
				      rc == NFS4ERR_INVAL,
			      "SEEK on a symlink: %s", nfs42_strerror(rc));
	}
	free(d);
	free(l);
	nfs42_client_free(cl);
}
END_TEST

static int fallocate_op(struct nfs42_client *cl, struct nfs42_file *f,
			bool alloc, uint64_t off, uint64_t len)
{
	struct nfs42_compound *c = e2e_cpd(cl, &f->fh);

	if (alloc)
		nfs42_op_allocate(c, &f->stateid, off, len);
	else
		nfs42_op_deallocate(c, &f->stateid, off, len);
	return e2e_cpd_run(c);
}

START_TEST(allocate_reserves_blocks)
{
	struct nfs42_client *cl = e2e_client();
	char *f = make_two_islands();
	struct nfs42_file of = e2e_open_rw(cl, f);
	const uint64_t size = M1 + K4;
	uint8_t *buf = malloc(256u << 10);
	struct stat before, after;
	struct nfs42_attrs a;

	before = e2e_bstat(f);
	/* inside the file: blocks reserved, size unchanged, zeros read */
	ck_nfs_ok(cl, fallocate_op(cl, &of, true, 64u << 10, 256u << 10));
	after = e2e_bstat(f);
	ck_assert_uint_eq(after.st_size, size);
	ck_assert_msg((after.st_blocks - before.st_blocks) * 512 >= 256u << 10,
		      "ALLOCATE of 256 KiB added %lld bytes",
		      (long long)(after.st_blocks - before.st_blocks) * 512);
	a = e2e_getattr(cl, &of.fh, NULL);
	ck_assert_uint_eq(a.size, size);
	ck_assert_uint_eq(a.space_used, (uint64_t)after.st_blocks * 512);
	e2e_read_all(cl, &of.fh, &of.stateid, 64u << 10, buf, 256u << 10);
	ck_assert(e2e_all_zero(buf, 256u << 10));
	/*
	 * Beyond EOF: RFC 7862 15.1.3 -- if the region lies partially or
	 * fully outside the current file size, the file size is set to
	 * aa_offset + aa_length implicitly.
	 */
	ck_nfs_ok(cl, fallocate_op(cl, &of, true, size - 100, 2 * M1));
	after = e2e_bstat(f);
	ck_assert_uint_eq(after.st_size, size - 100 + 2 * M1);
	ck_assert_uint_eq(e2e_getattr(cl, &of.fh, NULL).size,
			  size - 100 + 2 * M1);
	ck_assert_uint_ge((uint64_t)after.st_blocks * 512, 2 * M1);
	e2e_read_all(cl, &of.fh, &of.stateid, size + 4096, buf, 65536);
	ck_assert(e2e_all_zero(buf, 65536));
	/* a directory is ISDIR/WRONG_TYPE */
	{
		struct nfs42_file d = { .cl = cl };

		d.fh = e2e_fh(cl, "");
		ck_nfs_status2(fallocate_op(cl, &d, true, 0, 4096),
			       NFS4ERR_ISDIR, NFS4ERR_WRONG_TYPE);
	}
	ck_nfs_ok(cl, e2e_close(&of));
	free(buf);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(deallocate_punches_hole)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("punch");
	const size_t n = 2 * M1;
	uint8_t *data = e2e_rand_bytes(n, 77), *buf = malloc(n);
	struct nfs42_file of;
	struct stat before, after;
	uint64_t off;
	bool eof;

	e2e_put_backing(f, data, n);
	{
		int fd = e2e_bopen(f, O_RDONLY);

		ck_assert_int_eq(fsync(fd), 0);
		close(fd);
	}
	before = e2e_bstat(f);
	ck_assert_int_eq(e2e_bseek(f, 0, SEEK_HOLE), (off_t)n);
	of = e2e_open_rw(cl, f);
	ck_nfs_ok(cl, fallocate_op(cl, &of, false, 256u << 10, 256u << 10));
	after = e2e_bstat(f);
	/* size kept, blocks freed, the backing file has the hole */
	ck_assert_uint_eq(after.st_size, n);
	ck_assert_msg((before.st_blocks - after.st_blocks) * 512 >= 256u << 10,
		      "DEALLOCATE freed %lld bytes",
		      (long long)(before.st_blocks - after.st_blocks) * 512);
	ck_assert_int_eq(e2e_bseek(f, 0, SEEK_HOLE), 256 << 10);
	ck_assert_int_eq(e2e_bseek(f, 256 << 10, SEEK_DATA), 512 << 10);
	ck_assert_uint_eq(e2e_getattr(cl, &of.fh, NULL).size, n);
	/* reads: zeros in the hole, the data elsewhere intact */
	memset(data + (256u << 10), 0, 256u << 10);
	e2e_read_all(cl, &of.fh, &of.stateid, 0, buf, n);
	ck_assert(memcmp(buf, data, n) == 0);
	/* SEEK over NFS finds it */
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 0, NFS4_CONTENT_HOLE,
			       &off, &eof));
	ck_assert_uint_eq(off, 256u << 10);
	ck_nfs_ok(cl, e2e_seek(cl, &of.fh, &of.stateid, 256u << 10,
			       NFS4_CONTENT_DATA, &off, &eof));
	ck_assert_uint_eq(off, 512u << 10);
	/* a range running past EOF: size still unchanged */
	ck_nfs_ok(cl, fallocate_op(cl, &of, false, n - 4096, 8 * M1));
	ck_assert_uint_eq(e2e_bstat(f).st_size, n);
	ck_assert_uint_eq(e2e_getattr(cl, &of.fh, NULL).size, n);
	e2e_read_all(cl, &of.fh, &of.stateid, n - 4096, buf, 4096);
	ck_assert(e2e_all_zero(buf, 4096));
	e2e_read_all(cl, &of.fh, &of.stateid, n - 8192, buf, 4096);
	ck_assert(memcmp(buf, data + n - 8192, 4096) == 0);
	/* space_used follows */
	ck_assert_uint_eq(e2e_getattr(cl, &of.fh, NULL).space_used,
			  (uint64_t)e2e_bstat(f).st_blocks * 512);
	ck_nfs_ok(cl, e2e_close(&of));
	free(data);
	free(buf);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(allocate_needs_write_open)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("alloc-ro");
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_READ,
				   .createmode = NFS42_NOCREATE };
	struct nfs42_file of;

	e2e_put_backing(f, "ro", 2);
	ck_nfs_ok(cl, e2e_open(cl, f, &rq, &of));
	/* a read-only open cannot change the file (OPENMODE) */
	ck_nfs_status(fallocate_op(cl, &of, false, 0, 2), NFS4ERR_OPENMODE);
	ck_nfs_status(fallocate_op(cl, &of, true, 0, M1), NFS4ERR_OPENMODE);
	ck_assert_uint_eq(e2e_bstat(f).st_size, 2);
	ck_nfs_ok(cl, e2e_close(&of));
	free(f);
	nfs42_client_free(cl);
}
END_TEST

/*
 * The special stateids (RFC 8881 8.2.3) stand for "no open": ALLOCATE,
 * DEALLOCATE and SEEK with all-zeros or all-ones work like WRITE and READ
 * with them, also while the same client holds the file open for write.
 */
START_TEST(special_stateids_allocate_and_seek)
{
	static const struct nfs42_stateid ones = {
		.seqid = 0xffffffff,
		.other = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			   0xff, 0xff, 0xff },
	};
	const struct nfs42_stateid *sids[] = { &e2e_anon_stateid, &ones };
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("alloc-special");
	char *data = malloc(M1);
	struct nfs42_file of, special = { .cl = cl };
	uint64_t off;
	bool eof;
	int i;

	memset(data, 'x', M1);
	e2e_put_backing(f, data, M1);
	of = e2e_open_rw(cl, f);
	special.fh = of.fh;
	for (i = 0; i < 2; i++) {
		special.stateid = *sids[i];
		/* inside the file: nothing to see but success */
		ck_nfs_ok(cl, fallocate_op(cl, &special, true, 0, 1));
		ck_assert_uint_eq(e2e_bstat(f).st_size, M1);
		/* punch [64K, 320K); the size stays */
		ck_nfs_ok(cl,
			  fallocate_op(cl, &special, false, K4 * 16, K4 * 64));
		ck_assert_uint_eq(e2e_bstat(f).st_size, M1);
		/* SEEK with the same stateid sees the hole and the data */
		ck_nfs_ok(cl, e2e_seek(cl, &of.fh, sids[i], K4 * 16,
				       NFS4_CONTENT_DATA, &off, &eof));
		ck_assert_uint_eq(off, K4 * 80);
		ck_nfs_ok(cl, e2e_seek(cl, &of.fh, sids[i], 0,
				       NFS4_CONTENT_HOLE, &off, &eof));
		ck_assert_uint_eq(off, K4 * 16);
		/* all data again for the next round */
		e2e_put_backing(f, data, M1);
	}
	free(data);
	ck_nfs_ok(cl, e2e_close(&of));
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_fsal_sparse");
	TCase *tc = tcase_create("sparse");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, seek_data_and_hole);
	tcase_add_test(tc, seek_all_hole_and_empty);
	tcase_add_test(tc, seek_data_in_trailing_hole);
	tcase_add_test(tc, seek_wrong_type);
	tcase_add_test(tc, allocate_reserves_blocks);
	tcase_add_test(tc, deallocate_punches_hole);
	tcase_add_test(tc, allocate_needs_write_open);
	tcase_add_test(tc, special_stateids_allocate_and_seek);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
