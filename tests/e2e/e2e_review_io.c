/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Review guards, I/O ranges at the top of the 64-bit offset space:
 * offsets and lengths are unsigned on the wire and must never reach the
 * kernel as negative off_t values (these passed already; they pin the
 * behaviour).  Oracle: RFC 8881 18.32.3 (WRITE beyond the maximum file
 * size: NFS4ERR_FBIG), RFC 7862 15.1.3 (ALLOCATE/DEALLOCATE range beyond the
 * maximum file size: NFS4ERR_FBIG or NFS4ERR_INVAL), 15.11.3 (SEEK at or
 * past EOF: NFS4ERR_NXIO).
 */
#include "e2e_fsal_util.h"

#define TOP (UINT64_C(1) << 63)

static int one_op_status(struct nfs42_client *cl, struct nfs42_compound *c,
			 int idx)
{
	int rc = nfs42_compound_run(c);

	(void)cl;
	if (rc == 0)
		return 0;
	return nfs42_res(c, idx) ? e2e_op_status(c, idx) : rc;
}

/* ALLOCATE (alloc) or DEALLOCATE [off, off+len) on of: the op's status. */
static int fallocate_status(struct nfs42_client *cl, struct nfs42_file *of,
			    bool alloc, uint64_t off, uint64_t len)
{
	struct nfs42_compound *c = e2e_cpd(cl, &of->fh);
	int i, rc;

	if (alloc)
		i = nfs42_op_allocate(c, &of->stateid, off, len);
	else
		i = nfs42_op_deallocate(c, &of->stateid, off, len);
	rc = one_op_status(cl, c, i);
	nfs42_compound_free(c);
	return rc;
}

/* The refused requests left f empty; close it, drop the client. */
static void finish_empty(struct nfs42_client *cl, const char *f,
			 struct nfs42_file *of)
{
	off_t size = e2e_bstat(f).st_size;

	ck_assert_msg(size == 0, "%s: size %lld, want 0", f, (long long)size);
	ck_nfs_ok(cl, e2e_close(of));
	nfs42_client_free(cl);
}

START_TEST(write_past_max_size)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("wtop");
	struct nfs42_file of = e2e_create_rw(cl, f);

	ck_nfs_status2(e2e_write(cl, &of.fh, &of.stateid, TOP + 4096, UNSTABLE4,
				 "x", 1, NULL, NULL, NULL),
		       NFS4ERR_FBIG, NFS4ERR_INVAL);
	ck_nfs_status2(e2e_write(cl, &of.fh, &of.stateid, TOP - 1, UNSTABLE4,
				 "xy", 2, NULL, NULL, NULL),
		       NFS4ERR_FBIG, NFS4ERR_INVAL);
	finish_empty(cl, f, &of);
}
END_TEST

START_TEST(allocate_overflowing_range)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("atop");
	struct nfs42_file of = e2e_create_rw(cl, f);

	ck_nfs_status2(fallocate_status(cl, &of, true, TOP - 4096, 8192),
		       NFS4ERR_FBIG, NFS4ERR_INVAL);
	ck_nfs_status2(fallocate_status(cl, &of, true, UINT64_MAX - 10, 100),
		       NFS4ERR_FBIG, NFS4ERR_INVAL);
	ck_nfs_status2(fallocate_status(cl, &of, false, TOP + 4096, 4096),
		       NFS4ERR_FBIG, NFS4ERR_INVAL);
	finish_empty(cl, f, &of);
}
END_TEST

START_TEST(seek_far_past_eof)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("stop");
	struct nfs42_file of;
	uint64_t res;
	bool eof;

	e2e_put_backing(f, "data", 4);
	of = e2e_open_rw(cl, f);
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, TOP + 1,
			       NFS4_CONTENT_DATA, &res, &eof),
		      NFS4ERR_NXIO);
	ck_nfs_status(e2e_seek(cl, &of.fh, &of.stateid, UINT64_MAX,
			       NFS4_CONTENT_HOLE, &res, &eof),
		      NFS4ERR_NXIO);
	ck_nfs_ok(cl, e2e_close(&of));
	nfs42_client_free(cl);
}
END_TEST

START_TEST(truncate_past_max_size)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("ttop");
	struct nfs42_file of = e2e_create_rw(cl, f);
	struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, TOP + 1);
	ck_nfs_status2(nfs42_file_setattr(&of, &sa), NFS4ERR_FBIG,
		       NFS4ERR_INVAL);
	finish_empty(cl, f, &of);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_review_io");
	TCase *tc = tcase_create("io");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, write_past_max_size);
	tcase_add_test(tc, allocate_overflowing_range);
	tcase_add_test(tc, seek_far_past_eof);
	tcase_add_test(tc, truncate_past_max_size);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
