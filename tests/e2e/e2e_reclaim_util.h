/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Reclaim after a server restart by hand: a session made with explicit
 * EXCHANGE_ID and CREATE_SESSION (the client library always sends
 * RECLAIM_COMPLETE when it makes one) and an OPEN/create that waits out
 * NFS4ERR_GRACE, on top of rsess.h (whose rsess_op_open_previous() sends
 * OPEN CLAIM_PREVIOUS).  Used by e2e_parity_reclaim and e2e_courtesy; the
 * recovery tests (e2e_recovery_sqlite, tests/ceph's e2e_recovery_rados)
 * use rs_after_restart(), rs_destroy_client() and rs_shared_file();
 * rs_reclaim_lock() is e2e_courtesy's and e2e_recovery_rados'.
 */
#ifndef E2E_RECLAIM_UTIL_H
#define E2E_RECLAIM_UTIL_H

#include "e2e_parity_util.h"
#include "rsess.h"

/* Connect, EXCHANGE_ID with owner, CREATE_SESSION with a fore channel
 * for 1 MiB I/O; retried while the restarted server settles. */
static inline void rs_open(struct rsess *s, const char *owner)
{
	struct nfs42_chan_attrs fore = { .maxreq = 1049620 + 8192,
					 .maxresp = 1049620 + 8192,
					 .maxresp_cached = 8192,
					 .maxops = 64,
					 .maxreqs = 1 };
	int rc = -1, i;

	for (i = 0; i < 100; i++) {
		rc = rsess_connect(s);
		if (!rc)
			break;
		nfs42_client_free(s->cl);
		s->cl = NULL;
		usleep(100 * 1000);
	}
	ck_assert_msg(rc == 0, "connect: %s", nfs42_strerror(rc));
	for (i = 0; i < 100; i++) {
		rc = rsess_send_exchange_id(s, "reclaim1", owner);
		if (rc != NFS4ERR_DELAY)
			break;
		usleep(100 * 1000);
	}
	ck_assert_msg(rc == 0, "EXCHANGE_ID: %s", nfs42_strerror(rc));
	rc = rsess_create_session_chan(s, &fore, NULL, "parity");
	ck_assert_msg(rc == 0, "CREATE_SESSION: %s", nfs42_strerror(rc));
}

/* An OPEN/CREATE that may first meet the grace period of a fresh
 * server (GRACELESS=false). */
static inline void create_retry(struct nfs42_client *cl,
				const struct nfs42_fh *dir, const char *name,
				struct nfs42_file *f)
{
	int rc = -1;

	for (int i = 0; i < 200; i++) {
		rc = par_create_file(cl, dir, name, OPEN4_SHARE_ACCESS_BOTH, f);
		if (rc != NFS4ERR_GRACE)
			break;
		usleep(100 * 1000);
	}
	ck_assert_msg(rc == 0, "create %s: %s", name, nfs42_strerror(rc));
}

/* A session after a restart: the first calls may meet a settling server */
static inline void rs_after_restart(struct rsess *s, const char *owner)
{
	int rc = -1, i;

	for (i = 0; i < 100; i++) {
		rc = rsess_exchange_id(s, owner);
		if (!rc)
			rc = rsess_create_session(s);
		if (!rc)
			return;
		rsess_free(s);
		usleep(100 * 1000);
	}
	ck_abort_msg("session for %s after restart: %s", owner,
		     nfs42_strerror(rc));
}

/* DESTROY_SESSION, then DESTROY_CLIENTID: the client's record goes. */
static inline void rs_destroy_client(struct rsess *s)
{
	struct nfs42_compound *c = nfs42_compound_new(s->cl);

	nfs42_compound_no_sequence(c);
	nfs42_op_destroy_session(c, s->sid);
	ck_nfs_status(nfs42_compound_run(c), NFS4_OK);
	nfs42_compound_free(c);
	c = nfs42_compound_new(s->cl);
	nfs42_compound_no_sequence(c);
	nfs42_op_destroy_clientid(c, s->clientid);
	ck_nfs_status(nfs42_compound_run(c), NFS4_OK);
	nfs42_compound_free(c);
}

/* LOCK (WRITE_LT, reclaim) of [off, off + len) of fh by a new lock owner
 * under the reclaimed open open_sid; the status, the lock stateid in *lsid
 * (may be NULL). */
static inline int rs_reclaim_lock(struct rsess *s, const struct nfs42_fh *fh,
				  const struct nfs42_stateid *open_sid,
				  uint64_t off, uint64_t len, const char *owner,
				  struct nfs42_stateid *lsid)
{
	struct nfs42_lock_owner lo = { .owner = owner,
				       .owner_len = strlen(owner) };
	struct nfs42_compound *c = rsess_cpd(s);
	int i, rc;

	nfs42_op_putfh(c, fh);
	i = nfs42_op_lock_new(c, WRITE_LT, true, off, len, 0, open_sid, 0, &lo);
	rc = nfs42_compound_run(c);
	if (!rc && lsid)
		*lsid = nfs42_res(c, i)->u.lock.stateid;
	nfs42_compound_free(c);
	return rc;
}

/* The file "shared" of the export (4 bytes), which every client opens
 * and reclaims. */
static inline struct nfs42_fh rs_shared_file(void)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh;

	e2e_put_backing("shared", "data", 4);
	fh = e2e_fh(cl, "shared");
	nfs42_client_free(cl);
	return fh;
}

#endif
