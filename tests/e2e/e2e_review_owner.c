/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Review regressions, ownership on create: an unprivileged AUTH_SYS caller
 * must not be able to give a new object to another user or to a group it
 * is not a member of by passing owner/owner_group in the create attributes
 * (CREATE, OPEN/create).  Ganesha checks these for SETATTR only; a local
 * chown(2) by that user fails with EPERM.  Oracle: RFC 8881 18.4.3 /
 * 18.16.3 (createattrs are applied as by SETATTR, whose owner changes need
 * privilege: NFS4ERR_PERM), and the backing directory.  Needs root.
 */
#include "e2e_fsal_util.h"

static struct nfs42_client *user_client(void)
{
	struct nfs42_client *cl = e2e_client();

	nfs42_set_cred(cl, 1000, 1000, 0, NULL);
	return cl;
}

/* CREATE ca in dir as cl; returns the status. */
static int create_in(struct nfs42_client *cl, const struct nfs42_fh *dir,
		     const struct nfs42_create_args *ca)
{
	struct nfs42_compound *c = e2e_cpd(cl, dir);

	nfs42_op_create(c, ca);
	return e2e_cpd_run(c);
}

START_TEST(mkdir_cannot_give_away)
{
	struct nfs42_client *root = e2e_client(), *user = user_client();
	char *d = e2e_uniq("own-mkdir");
	struct nfs42_fh dfh = e2e_world_dir(root, d);
	struct nfs42_sattr sa;
	struct nfs42_create_args ca = { .type = NF4DIR, .attrs = &sa };

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0755);
	nfs42_sattr_owner(&sa, "2000");
	ca.name = "other-user";
	ck_nfs_status(create_in(user, &dfh, &ca), NFS4ERR_PERM);
	ck_assert(!e2e_bexists(e2e_fmt("%s/other-user", d)));

	nfs42_sattr_init(&sa);
	nfs42_sattr_group(&sa, "3000");
	ca.name = "other-group";
	ck_nfs_status(create_in(user, &dfh, &ca), NFS4ERR_PERM);
	ck_assert(!e2e_bexists(e2e_fmt("%s/other-group", d)));

	/* a group the caller is in is fine */
	nfs42_client_free(user);
	{
		uint32_t g = 3000;

		user = e2e_client();
		nfs42_set_cred(user, 1000, 1000, 1, &g);
	}
	ca.name = "own-group";
	ck_nfs_ok(user, create_in(user, &dfh, &ca));
	{
		struct stat st = e2e_bstat(e2e_fmt("%s/own-group", d));

		ck_assert_uint_eq(st.st_uid, 1000);
		ck_assert_uint_eq(st.st_gid, 3000);
	}
	nfs42_client_free(user);
	nfs42_client_free(root);
}
END_TEST

START_TEST(open_create_cannot_give_away)
{
	struct nfs42_client *root = e2e_client(), *user = user_client();
	char *d = e2e_uniq("own-open");
	struct nfs42_fh dfh = e2e_world_dir(root, d);
	struct nfs42_sattr sa;
	struct nfs42_file of;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0644);
	nfs42_sattr_owner(&sa, "0");
	ck_nfs_status(e2e_open_guarded(user, &dfh, "root-file", &sa, &of),
		      NFS4ERR_PERM);
	ck_assert(!e2e_bexists(e2e_fmt("%s/root-file", d)));
	/* root may */
	ck_nfs_ok(root, e2e_open_guarded(root, &dfh, "root-file", &sa, &of));
	ck_nfs_ok(root, e2e_close(&of));
	ck_assert_uint_eq(e2e_bstat(e2e_fmt("%s/root-file", d)).st_uid, 0);
	nfs42_client_free(user);
	nfs42_client_free(root);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_review_owner");
	TCase *tc = tcase_create("owner");

	e2e_require_root("e2e_review_owner");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, mkdir_cannot_give_away);
	tcase_add_test(tc, open_create_cannot_give_away);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
