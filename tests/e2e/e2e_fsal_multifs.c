/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Two FSAL_SPARSE exports on two filesystems (issue #6).  multifs-setup.sh
 * makes two fresh ext4 filesystems (loop devices) whose objects have the
 * same inode numbers and generations, hence equal kernel handles:
 *   /fsa  Export_Id 4, UUID 11111111-2222-3333-4444-555555555555,
 *         default Fsid_Type (UUID)
 *   /fsb  Export_Id 5, UUID 66666666-7777-8888-9999-aaaaaaaaaaaa,
 *         Fsid_Type = DEVICE
 * Each export must show its own objects, a handle of one presented to the
 * other is STALE, and each reports the fsid its Fsid_Type says, the same
 * after a restart.
 */
#include <sys/sysmacros.h>

#include "e2e_fsal_handle_util.h"

#ifndef E2E_MULTIFS_DIR
#error "E2E_MULTIFS_DIR must name the fixture directory"
#endif

#define FSID_A_MAJOR 0x1111111122223333ULL
#define FSID_A_MINOR 0x4444555555555555ULL

static struct e2e_names list(struct nfs42_client *cl, const char *path)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, -1);
	struct e2e_names s = { 0 };

	ck_nfs_ok(cl, nfs42_readdir_path(cl, path, &bm, e2e_names_collect, &s));
	return s;
}

/* UUID_A and UUID_B of multifs-setup.sh, halves folded (sparse_fs_ident) */
#define MULTIFS_IDENT_A \
	((0x1111111122223333ULL ^ 0x4444555555555555ULL) & ~(1ULL << 63))
#define MULTIFS_IDENT_B \
	((0x6666666677778888ULL ^ 0x9999aaaaaaaaaaaaULL) & ~(1ULL << 63))

static struct nfs42_fh fh_of(struct nfs42_client *cl, const char *path)
{
	struct nfs42_fh fh;
	int rc = nfs42_lookup_path(cl, path, &fh, NULL);

	ck_assert_msg(rc == 0, "lookup %s: %s", path, nfs42_strerror(rc));
	return fh;
}

START_TEST(each_export_shows_its_own_files)
{
	struct nfs42_client *cl = e2e_client();
	struct e2e_names a, b;
	void *buf = NULL;
	size_t len = 0;

	/* list both, in both orders, so whichever is cached first */
	a = list(cl, "/fsa");
	b = list(cl, "/fsb");
	ck_assert(e2e_names_has(&a, "only-in-a") && e2e_names_has(&a, "dir-a"));
	ck_assert(!e2e_names_has(&a, "only-in-b") &&
		  !e2e_names_has(&a, "dir-b"));
	ck_assert(e2e_names_has(&b, "only-in-b") && e2e_names_has(&b, "dir-b"));
	ck_assert(!e2e_names_has(&b, "only-in-a") &&
		  !e2e_names_has(&b, "dir-a"));
	a = list(cl, "/fsa");
	ck_assert(e2e_names_has(&a, "only-in-a") &&
		  !e2e_names_has(&a, "only-in-b"));

	/* files with the same inode number in the two filesystems */
	ck_nfs_ok(cl, nfs42_read_file(cl, "/fsb/only-in-b", &buf, &len));
	ck_assert_uint_eq(len, 2);
	ck_assert_mem_eq(buf, "b\n", 2);
	free(buf);
	ck_nfs_ok(cl, nfs42_read_file(cl, "/fsa/only-in-a", &buf, &len));
	ck_assert_uint_eq(len, 11);
	ck_assert_mem_eq(buf, "alpha file\n", 11);
	free(buf);
	nfs42_client_free(cl);
}
END_TEST

/* A's handle with B's export id (and the reverse) is STALE. */
START_TEST(handles_do_not_cross_filesystems)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh ra = fh_of(cl, "/fsa"), rb = fh_of(cl, "/fsb");
	struct nfs42_fh fa = fh_of(cl, "/fsa/only-in-a");
	struct nfs42_fh x;
	struct nfs42_attrs at;

	ck_assert_uint_eq(e2e_export_id(&ra), 4);
	ck_assert_uint_eq(e2e_export_id(&rb), 5);
	/* each labelled with its own UUID's identity (multifs-setup.sh;
	 * /fsb has Fsid_Type = DEVICE, which leaves the identity alone)
	 */
	ck_assert(e2e_ident_fits(&ra, E2E_MULTIFS_DIR "/a", MULTIFS_IDENT_A));
	ck_assert(e2e_ident_fits(&rb, E2E_MULTIFS_DIR "/b", MULTIFS_IDENT_B));

	x = ra;
	e2e_set_export_id(&x, 5);
	ck_nfs_status(e2e_getattr_rc(cl, &x, NULL, &at), NFS4ERR_STALE);
	x = rb;
	e2e_set_export_id(&x, 4);
	ck_nfs_status(e2e_getattr_rc(cl, &x, NULL, &at), NFS4ERR_STALE);
	x = fa;
	e2e_set_export_id(&x, 5);
	ck_nfs_status(e2e_getattr_rc(cl, &x, NULL, &at), NFS4ERR_STALE);
	/* and the right export still answers with its own object */
	ck_nfs_ok(cl, e2e_getattr_rc(cl, &fa, NULL, &at));
	ck_assert_uint_eq(at.size, 11);
	nfs42_client_free(cl);
}
END_TEST

static void ck_fsids(struct nfs42_client *cl)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FSID, -1);
	struct nfs42_fh ra = fh_of(cl, "/fsa"), rb = fh_of(cl, "/fsb");
	struct nfs42_fh fa = fh_of(cl, "/fsa/dir-a");
	struct nfs42_attrs a;
	struct stat st;

	a = e2e_getattr(cl, &ra, &bm);
	ck_assert_msg(a.fsid.major == FSID_A_MAJOR &&
			      a.fsid.minor == FSID_A_MINOR,
		      "fsid of /fsa %#llx.%#llx, want its UUID",
		      (unsigned long long)a.fsid.major,
		      (unsigned long long)a.fsid.minor);
	a = e2e_getattr(cl, &fa, &bm);
	ck_assert(a.fsid.major == FSID_A_MAJOR && a.fsid.minor == FSID_A_MINOR);

	ck_assert_int_eq(stat(E2E_MULTIFS_DIR "/b", &st), 0);
	a = e2e_getattr(cl, &rb, &bm);
	ck_assert_msg(a.fsid.major == major(st.st_dev) &&
			      a.fsid.minor == minor(st.st_dev),
		      "fsid of /fsb %llu.%llu, want device %u.%u",
		      (unsigned long long)a.fsid.major,
		      (unsigned long long)a.fsid.minor, major(st.st_dev),
		      minor(st.st_dev));
}

START_TEST(fsid_follows_fsid_type_and_survives_restart)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fa = fh_of(cl, "/fsa/only-in-a");
	struct nfs42_attrs at;

	ck_fsids(cl);
	nfs42_client_free(cl);
	e2e_server_ctl("restart");
	cl = e2e_client_after_restart();
	ck_fsids(cl);
	/* handles of both filesystems survive too */
	ck_nfs_ok(cl, e2e_getattr_rc(cl, &fa, NULL, &at));
	ck_assert_uint_eq(at.size, 11);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_fsal_multifs");
	TCase *tc = tcase_create("multifs");
	char reason[256] = "";
	FILE *f = fopen(E2E_MULTIFS_DIR "/skip", "r");

	if (f != NULL) {
		if (fgets(reason, sizeof(reason), f) == NULL)
			strcpy(reason, "fixture could not run");
		fclose(f);
		printf("e2e_fsal_multifs skipped: %s", reason);
		return 77;
	}
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, each_export_shows_its_own_files);
	tcase_add_test(tc, handles_do_not_cross_filesystems);
	tcase_add_test(tc, fsid_follows_fsid_type_and_survives_restart);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
