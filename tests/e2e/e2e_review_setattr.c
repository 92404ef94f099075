/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Review regressions, SETATTR (issue #6 item 6):
 *  - mode and owner in one SETATTR: a chown clears S_ISUID/S_ISGID
 *    (chown(2)), so the mode the same request sets must be applied after
 *    the owner change, or the setuid/setgid bits it asked for are lost;
 *  - times on a symlink are applied (RFC 8881 5.8.2.37/5.8.2.41: time_*_set
 *    apply to every object type), not silently ignored.
 * Oracle: the request itself, and lstat() of the backing object.  Needs
 * root (owner changes, setuid bits).
 */
#include "e2e_fsal_util.h"

/* Owner 2000, group 3000 and mode 06755 in one set of attributes. */
static void setid_attrs(struct nfs42_sattr *sa)
{
	nfs42_sattr_init(sa);
	nfs42_sattr_owner(sa, "2000");
	nfs42_sattr_group(sa, "3000");
	nfs42_sattr_mode(sa, 06755);
}

/* The backing object rel has what setid_attrs() asked for. */
static void ck_setid_backing(const char *rel)
{
	struct stat st = e2e_bstat(rel);

	ck_assert_uint_eq(st.st_uid, 2000);
	ck_assert_uint_eq(st.st_gid, 3000);
	ck_assert_msg((st.st_mode & 07777) == 06755,
		      "backing mode %04o, want 6755 (setid bits lost)",
		      (unsigned int)(st.st_mode & 07777));
}

START_TEST(mode_and_owner_keep_setid_bits)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_MODE, -1);
	char *f = e2e_uniq("setid");
	struct nfs42_sattr sa;
	struct nfs42_fh fh;

	e2e_put_backing(f, "#!/bin/sh\n", 10);
	fh = e2e_fh(cl, f);
	setid_attrs(&sa);
	ck_nfs_ok(cl, e2e_setattr_fh(cl, &fh, &sa));
	ck_setid_backing(f);
	ck_assert_uint_eq(e2e_getattr(cl, &fh, &bm).mode, 06755);
	nfs42_client_free(cl);
}
END_TEST

/* The same through the create attributes of OPEN: the file is made with
 * its mode, then given away; the setid bits must survive that too.
 */
START_TEST(create_mode_and_owner_keep_setid_bits)
{
	struct nfs42_client *cl = e2e_client();
	char *d = e2e_uniq("setid-create");
	struct nfs42_fh dfh = e2e_world_dir(cl, d);
	struct nfs42_sattr sa;
	struct nfs42_file of;

	setid_attrs(&sa);
	ck_nfs_ok(cl, e2e_open_guarded(cl, &dfh, "f", &sa, &of));
	ck_nfs_ok(cl, e2e_close(&of));
	ck_setid_backing(e2e_fmt("%s/f", d));
	nfs42_client_free(cl);
}
END_TEST

/* time_modify_set to client time on a symlink: applied to the link itself
 * (the target is untouched), or refused with NFS4ERR_INVAL (no kernel
 * support) and nothing changed; any other status fails.
 */
START_TEST(symlink_times_applied)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_time mt = { .seconds = 1500000000, .nseconds = 123456789 };
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_TIME_MODIFY, -1);
	char *t = e2e_uniq("lnk-target"), *l = e2e_uniq("lnk");
	struct nfs42_sattr sa;
	struct stat before, st;
	struct nfs42_fh fh;
	char *bl = e2e_backing(l);
	int rc;

	e2e_put_backing(t, "t", 1);
	ck_assert_int_eq(symlink(t, bl), 0);
	free(bl);
	before = e2e_bstat(l);
	fh = e2e_fh(cl, l);
	nfs42_sattr_init(&sa);
	nfs42_sattr_mtime(&sa, &mt);
	rc = e2e_setattr_fh(cl, &fh, &sa);
	st = e2e_bstat(l);
	if (rc != NFS4_OK) {
		/* the one refusal allowed: a kernel that cannot set a link's
		 * times (utimensat AT_SYMLINK_NOFOLLOW: EINVAL)
		 */
		printf("symlink_times_applied: refused with %s\n",
		       nfs42_strerror(rc));
		ck_nfs_status(rc, NFS4ERR_INVAL);
		ck_assert_int_eq(st.st_mtim.tv_sec, before.st_mtim.tv_sec);
		ck_assert_int_eq(st.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
	} else {
		struct nfs42_attrs a = e2e_getattr(cl, &fh, &bm);
		bool set = st.st_mtim.tv_sec == mt.seconds &&
			   st.st_mtim.tv_nsec == mt.nseconds;

		ck_assert_msg(set, "SETATTR said OK, link mtime %lld.%09ld",
			      (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		ck_assert_int_eq(a.time_modify.seconds, mt.seconds);
		ck_assert_uint_eq(a.time_modify.nseconds, mt.nseconds);
	}
	/* never through the link */
	ck_assert_int_ne(e2e_bstat(t).st_mtim.tv_sec, mt.seconds);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_review_setattr");
	TCase *tc = tcase_create("setattr");

	e2e_require_root("e2e_review_setattr");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, mode_and_owner_keep_setid_bits);
	tcase_add_test(tc, create_mode_and_owner_keep_setid_bits);
	tcase_add_test(tc, symlink_times_applied);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
