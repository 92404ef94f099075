/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FATTR4_CLONE_BLKSIZE (attribute 77, RFC 7862 12.2.1) on FSAL_SPARSE:
 * supported_attrs lists it and GETATTR returns the block size FICLONERANGE
 * needs (the filesystem's statvfs f_bsize), on the XFS reflink export /xfs
 * of clonefs-setup.sh and on the harness's ext4 export.  The XFS case is
 * skipped (exit 77) with the fixture's reason where it could not be made.
 * With the harness's export on FSAL_VFS (SPARSE_E2E_FSAL=VFS) that export
 * must not list it (FSAL_VFS does not report it).
 */
#include <sys/statvfs.h>

#include "e2e_fsal_util.h"

#ifndef E2E_CLONEFS_DIR
#error "E2E_CLONEFS_DIR must name the fixture directory"
#endif

static uint32_t local_bsize(const char *path)
{
	struct statvfs sv;

	ck_assert_int_eq(statvfs(path, &sv), 0);
	return (uint32_t)sv.f_bsize;
}

/* GETATTR {supported_attrs, clone_blksize} of path over NFS. */
static struct nfs42_attrs get_clone_attrs(const char *path)
{
	struct nfs42_bitmap bm =
		nfs42_bm_make(FATTR4_SUPPORTED_ATTRS, FATTR4_CLONE_BLKSIZE, -1);
	struct nfs42_client *cl = e2e_client();
	struct nfs42_attrs a;
	struct nfs42_fh fh;

	ck_nfs_ok(cl, nfs42_lookup_path(cl, path, &fh, NULL));
	ck_nfs_ok(cl, nfs42_getattr_fh(cl, &fh, &bm, &a));
	nfs42_client_free(cl);
	return a;
}

/* The same, and the server must support and return clone_blksize. */
static struct nfs42_attrs clone_attrs(const char *path)
{
	struct nfs42_attrs a = get_clone_attrs(path);

	ck_assert_msg(nfs42_bm_isset(&a.supported_attrs, FATTR4_CLONE_BLKSIZE),
		      "%s: clone_blksize not in supported_attrs", path);
	ck_assert_msg(nfs42_bm_isset(&a.mask, FATTR4_CLONE_BLKSIZE),
		      "%s: GETATTR did not return clone_blksize", path);
	return a;
}

/* FSAL_VFS (SPARSE_E2E_FSAL=VFS) does not report it: not supported. */
static void ck_vfs_lacks_it(const char *path)
{
	struct nfs42_attrs a = get_clone_attrs(path);

	ck_assert(!nfs42_bm_isset(&a.supported_attrs, FATTR4_CLONE_BLKSIZE));
	ck_assert(!nfs42_bm_isset(&a.mask, FATTR4_CLONE_BLKSIZE));
}

START_TEST(ext4_file_and_root)
{
	uint32_t want = local_bsize(e2e_backing(""));

	e2e_put_backing("blk", "x", 1);
	if (e2e_is_vfs()) {
		ck_vfs_lacks_it(e2e_path("blk"));
		return;
	}
	ck_assert_uint_eq(clone_attrs(e2e_path("blk")).clone_blksize, want);
	ck_assert_uint_eq(clone_attrs(e2e_path("")).clone_blksize, want);
}
END_TEST

START_TEST(xfs_reflink_file)
{
	char reason[256] = "fixture could not run";
	FILE *f = fopen(E2E_CLONEFS_DIR "/skip", "r");
	int fd;

	if (f != NULL) {
		if (fgets(reason, sizeof(reason), f) == NULL)
			strcpy(reason, "fixture could not run");
		fclose(f);
		e2e_skip(reason);
		return;
	}
	fd = open(E2E_CLONEFS_DIR "/x/blk", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_uint_eq(clone_attrs("/xfs/blk").clone_blksize,
			  local_bsize(E2E_CLONEFS_DIR "/x"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_proto_clone_blksize");
	TCase *tc = tcase_create("clone_blksize");

	tcase_add_test(tc, ext4_file_and_root);
	tcase_add_test(tc, xfs_reflink_file);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
