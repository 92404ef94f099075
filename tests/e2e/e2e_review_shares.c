/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Review regressions, share reservations: an open owner's own access and
 * deny bits must not conflict with a change of its own open (OPEN upgrade,
 * OPEN_DOWNGRADE), and the counters must stay right afterwards so other
 * clients see exactly the remaining reservation.  Oracle: RFC 8881 9.7
 * (share reservations conflict between open owners) and 18.16.3 (an OPEN
 * by the same owner upgrades the existing open).
 */
#include "e2e_fsal_util.h"

static int open_as(struct nfs42_client *cl, const char *f, const char *owner,
		   uint32_t access, uint32_t deny, struct nfs42_file *of)
{
	struct e2e_open_req rq = { .access = access,
				   .deny = deny,
				   .createmode = NFS42_NOCREATE,
				   .owner = owner };

	return e2e_open(cl, f, &rq, of);
}

/* Another client opens f (a fresh owner) with access/deny: want is the
 * status, and an open that succeeds is closed again. */
static void other_open(struct nfs42_client *other, const char *f,
		       uint32_t access, uint32_t deny, int want)
{
	struct nfs42_file o2;
	int rc = open_as(other, f, NULL, access, deny, &o2);

	ck_assert_msg(rc == want,
		      "other OPEN access %u deny %u: got %s (%d), want %s",
		      access, deny, nfs42_strerror(rc), rc,
		      nfs42_strerror(want));
	if (!rc)
		ck_nfs_ok(other, e2e_close(&o2));
}

/* READ/deny WRITE, then the same owner asks for WRITE too. */
START_TEST(upgrade_keeps_own_deny_write)
{
	struct nfs42_client *cl = e2e_client(), *other = e2e_client();
	char *f = e2e_uniq("upw"), *owner = e2e_uniq("upw-owner");
	struct nfs42_file of;

	e2e_put_backing(f, "upgrade", 7);
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_READ,
			      OPEN4_SHARE_DENY_WRITE, &of));
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_BOTH,
			      OPEN4_SHARE_DENY_WRITE, &of));
	ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, 0, FILE_SYNC4, "UP", 2,
				NULL, NULL, NULL));
	/* the deny still holds for everybody else */
	other_open(other, f, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE,
		   NFS4ERR_SHARE_DENIED);
	ck_nfs_ok(cl, e2e_close(&of));
	other_open(other, f, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_BOTH,
		   NFS4_OK);
	nfs42_client_free(cl);
	nfs42_client_free(other);
}
END_TEST

/* READ/deny NONE, then the same owner adds deny READ. */
START_TEST(upgrade_adds_deny_read)
{
	struct nfs42_client *cl = e2e_client(), *other = e2e_client();
	char *f = e2e_uniq("upr"), *owner = e2e_uniq("upr-owner");
	struct nfs42_file of;

	e2e_put_backing(f, "upgrade", 7);
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_READ,
			      OPEN4_SHARE_DENY_NONE, &of));
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_READ,
			      OPEN4_SHARE_DENY_READ, &of));
	other_open(other, f, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE,
		   NFS4ERR_SHARE_DENIED);
	ck_nfs_ok(cl, e2e_close(&of));
	other_open(other, f, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE,
		   NFS4_OK);
	nfs42_client_free(cl);
	nfs42_client_free(other);
}
END_TEST

/* BOTH/deny BOTH downgraded to READ/deny NONE, then reads still work. */
START_TEST(downgrade_from_deny_both)
{
	struct nfs42_client *cl = e2e_client(), *other = e2e_client();
	char *f = e2e_uniq("dgb"), *owner = e2e_uniq("dgb-owner");
	struct nfs42_file of;
	char buf[16];
	uint32_t n;
	bool eof;

	e2e_put_backing(f, "deny both", 9);
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_READ,
			      OPEN4_SHARE_DENY_NONE, &of));
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_BOTH,
			      OPEN4_SHARE_DENY_BOTH, &of));
	other_open(other, f, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE,
		   NFS4ERR_SHARE_DENIED);
	ck_nfs_ok(cl, e2e_open_downgrade(cl, &of, OPEN4_SHARE_ACCESS_READ,
					 OPEN4_SHARE_DENY_NONE, &of.stateid));
	ck_nfs_ok(cl, e2e_read(cl, &of.fh, &of.stateid, 0, 9, buf, sizeof(buf),
			       &n, &eof));
	ck_assert_uint_eq(n, 9);
	/* only our READ remains: a writer may come, a deny READ may not */
	other_open(other, f, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE,
		   NFS4_OK);
	other_open(other, f, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_READ,
		   NFS4ERR_SHARE_DENIED);
	ck_nfs_ok(cl, e2e_close(&of));
	nfs42_client_free(cl);
	nfs42_client_free(other);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_review_shares");
	TCase *tc = tcase_create("shares");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, upgrade_keeps_own_deny_write);
	tcase_add_test(tc, upgrade_adds_deny_read);
	tcase_add_test(tc, downgrade_from_deny_both);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
