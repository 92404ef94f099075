/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Parity with FSAL_VFS, reclaim after a restart (RFC 8881 8.4.2, 18.16.3,
 * 18.51): a client opens a file, the server restarts (with a grace
 * period: this program runs with GRACELESS=false), the client makes a new
 * client ID with the same owner and, before RECLAIM_COMPLETE, reclaims
 * the open with OPEN CLAIM_PREVIOUS on the old file handle, reads the
 * data with the reclaimed stateid, sends RECLAIM_COMPLETE, and then a
 * second CLAIM_PREVIOUS is NO_GRACE.  The client library always sends
 * RECLAIM_COMPLETE when it makes a session, so the session after the
 * restart is made here by hand (EXCHANGE_ID, CREATE_SESSION, SEQUENCE).
 */
#include "e2e_reclaim_util.h"

/* REBT1, RECC2: reclaim an open after a clean restart. */
START_TEST(claim_previous_after_restart)
{
	char owner[64], oo[64];
	struct nfs42_opts o;
	struct nfs42_client *cl1 = NULL;
	struct nfs42_fh root;
	struct nfs42_file f;
	struct rsess s = { 0 };
	struct nfs42_compound *c;
	struct nfs42_stateid sid;
	const char *name = e2e_uniq("reclaim");
	int oi, ri, rc;

	snprintf(owner, sizeof(owner), "parity-reclaim-%d", (int)getpid());
	snprintf(oo, sizeof(oo), "open-owner-%d", (int)getpid());
	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.owner_id = owner;
	ck_nfs_ok(cl1, nfs42_client_create(&o, &cl1));
	root = e2e_fh(cl1, "");
	create_retry(cl1, &root, name, &f);
	ck_nfs_ok(cl1,
		  e2e_write(cl1, &f.fh, &f.stateid, 0, FILE_SYNC4, PAR_FILEDATA,
			    strlen(PAR_FILEDATA), NULL, NULL, NULL));
	/* the open stays: the server restarts under it */
	e2e_server_ctl("restart");

	rs_open(&s, owner);
	c = rsess_cpd(&s);
	nfs42_op_putfh(c, &f.fh);
	oi = rsess_op_open_previous(c, s.clientid, oo, OPEN4_SHARE_ACCESS_BOTH);
	nfs42_op_getfh(c);
	rc = nfs42_compound_run(c);
	ck_assert_msg(rc == 0, "OPEN CLAIM_PREVIOUS after restart: %s",
		      nfs42_strerror(rc));
	sid = nfs42_res(c, oi)->u.open.stateid;
	nfs42_compound_free(c);
	/* READ with the reclaimed stateid */
	c = rsess_cpd(&s);
	nfs42_op_putfh(c, &f.fh);
	ri = nfs42_op_read(c, &sid, 0, 100);
	ck_nfs_status(nfs42_compound_run(c), NFS4_OK);
	ck_assert_uint_eq(nfs42_res(c, ri)->u.read.len, strlen(PAR_FILEDATA));
	ck_assert_mem_eq(nfs42_res(c, ri)->u.read.data, PAR_FILEDATA,
			 strlen(PAR_FILEDATA));
	nfs42_compound_free(c);
	c = rsess_cpd(&s);
	nfs42_op_reclaim_complete(c, false);
	ck_nfs_status(par_run(c), NFS4_OK);
	/* RECC2: a reclaim after RECLAIM_COMPLETE is NO_GRACE */
	c = rsess_cpd(&s);
	nfs42_op_putfh(c, &f.fh);
	rsess_op_open_previous(c, s.clientid, "another-owner",
			       OPEN4_SHARE_ACCESS_BOTH);
	ck_nfs_status(par_run(c), NFS4ERR_NO_GRACE);
	c = rsess_cpd(&s);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_close(c, 0, &sid);
	ck_nfs_status(par_run(c), NFS4_OK);
	nfs42_client_free(s.cl);
	nfs42_client_free(cl1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_parity_reclaim");
	TCase *tc = tcase_create("reclaim");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, claim_previous_after_restart);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
