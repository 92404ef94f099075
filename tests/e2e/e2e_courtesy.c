/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Courtesy clients (issue #9; RFC 8881 8.4.3): a client whose lease ran
 * out keeps its state while nobody conflicts with it (Ganesha parks it
 * for delayed cleanup, Expired_Client_Threshold), loses it at once when
 * another client's LOCK or OPEN conflicts with it, and then finds its
 * session gone (NFS4ERR_BADSESSION) and its client ID too
 * (NFS4ERR_STALE_CLIENTID).  A client released that way has no recovery
 * record any more: after a restart it cannot reclaim (NFS4ERR_NO_GRACE,
 * RFC 8881 8.4.3's first edge condition), while a client that kept its
 * lease and a courtesy client nobody conflicted with can.
 *
 * The server runs with a short lease (Lease_Lifetime, read back through
 * the lease_time attribute); the recovery backend is whatever the
 * harness configures (SPARSE_RECOVERY_BACKEND).  Argument: "expiry"
 * (the cases on one server instance), "restart" (GRACELESS=false) or
 * "reaper" (GRACELESS=false, Expired_Client_Threshold = 0).
 */
#include <sqlite3.h>

#include "e2e_reclaim_util.h"

#define SEQ4_STATUS_REVOKED_MASK 0x3c0 /* EXPIRED_ALL/SOME, ADMIN, RECALL */

/* The server's lease time in seconds (FATTR4_LEASE_TIME). */
static unsigned int lease_time(struct nfs42_client *cl)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_LEASE_TIME, -1);
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_attrs a = e2e_getattr(cl, &root, &bm);

	ck_assert(nfs42_bm_isset(&a.mask, FATTR4_LEASE_TIME));
	ck_assert_uint_gt(a.lease_time, 0);
	ck_assert_uint_le(a.lease_time, 30);
	return a.lease_time;
}

/* A client with owner string owner (NULL: a fresh one). */
static struct nfs42_client *client_as(const char *owner)
{
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.owner_id = owner;
	ck_nfs_ok(cl, nfs42_client_create(&o, &cl));
	return cl;
}

/* SEQUENCE (+ PUTROOTFH): renews the lease; the compound status, and
 * SEQUENCE's status flags in *flags. */
static int ping(struct nfs42_client *cl, uint32_t *flags)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	nfs42_op_putrootfh(c);
	rc = nfs42_compound_run(c);
	if (flags && nfs42_compound_seq_res(c))
		*flags = nfs42_compound_seq_res(c)->u.sequence.status_flags;
	nfs42_compound_free(c);
	return rc;
}

/* Sleep ms milliseconds while the clients in live[] renew their leases. */
static void sleep_renewing(struct nfs42_client **live, int n, int64_t ms)
{
	int64_t end = e2e_now_ms() + ms;

	while (e2e_now_ms() < end) {
		for (int i = 0; i < n; i++)
			ck_nfs_ok(live[i], ping(live[i], NULL));
		usleep(500 * 1000);
	}
}

static int lock_new(struct nfs42_client *cl, const struct nfs42_file *f,
		    bool reclaim, uint64_t off, uint64_t len, const char *owner,
		    struct nfs42_stateid *lsid)
{
	struct nfs42_lock_owner lo = { .owner = owner,
				       .owner_len = strlen(owner) };
	struct nfs42_compound *c = e2e_cpd(cl, &f->fh);
	int i = nfs42_op_lock_new(c, WRITE_LT, reclaim, off, len, 0,
				  &f->stateid, 0, &lo);

	return e2e_cpd_run_sid(c, i, lsid);
}

/* LOCKT by another client: 0, or NFS4ERR_DENIED with the holder's owner
 * in *holder (a string of at most holder_len - 1 bytes). */
static int lockt(struct nfs42_client *cl, const struct nfs42_fh *fh,
		 uint64_t off, uint64_t len, char *holder, size_t holder_len)
{
	struct nfs42_lock_owner lo = { .owner = "tester", .owner_len = 6 };
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	const struct nfs42_res *r;
	int rc, i;

	i = nfs42_op_lockt(c, WRITE_LT, off, len, &lo);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, i);
	if (rc == NFS4ERR_DENIED) {
		ck_assert_ptr_nonnull(r->u.lock.denied);
		snprintf(holder, holder_len, "%.*s",
			 (int)r->u.lock.denied->owner_len,
			 r->u.lock.denied->owner);
	}
	nfs42_compound_free(c);
	return rc;
}

static struct nfs42_file open_file(struct nfs42_client *cl, const char *rel,
				   const char *owner, uint32_t access,
				   uint32_t deny)
{
	struct e2e_open_req rq = { .access = access,
				   .deny = deny,
				   .createmode = NFS42_NOCREATE,
				   .owner = owner };
	struct nfs42_file f;

	ck_nfs_ok(cl, e2e_open(cl, rel, &rq, &f));
	return f;
}

/*
 * The client whose lease ran out comes back: its session is gone
 * (RFC 8881 8.4.3: the server invalidated session and client ID), so
 * SEQUENCE is NFS4ERR_BADSESSION, and CREATE_SESSION for its old client
 * ID NFS4ERR_STALE_CLIENTID.
 */
static void check_released(struct nfs42_client *cl)
{
	struct rsess s = { .cl = cl,
			   .clientid = nfs42_clientid(cl),
			   .csseq = 2 };

	ck_nfs_status(ping(cl, NULL), NFS4ERR_BADSESSION);
	ck_nfs_status(rsess_create_session_chan(&s, NULL, NULL, "courtesy"),
		      NFS4ERR_STALE_CLIENTID);
}

/*
 * How long another client may have to wait for a conflict to release an
 * expired client, from the expired client's last renewal: its lease, then
 * the reaper's pass that parks it (every lease/2 s), then slack for a
 * loaded machine.  Without the release on conflict the wait is
 * Max_Alive_Time_For_Expired_Client (a day by default).
 */
static int64_t release_deadline_ms(unsigned int lease)
{
	return (3 * (int64_t)lease + 15) * 1000;
}

/* LOCK (a new lock owner) until it is no longer NFS4ERR_DENIED or the
 * release deadline counted from t0 has passed; the last status. */
static int lock_until_granted(struct nfs42_client *cl,
			      const struct nfs42_file *f, uint64_t off,
			      uint64_t len, const char *owner, int64_t t0,
			      unsigned int lease, struct nfs42_stateid *lsid)
{
	int rc;

	while ((rc = lock_new(cl, f, false, off, len, owner, lsid)) ==
		       NFS4ERR_DENIED &&
	       e2e_now_ms() - t0 < release_deadline_ms(lease))
		usleep(250 * 1000);
	return rc;
}

/* (a) Lease runs out, nobody conflicts: the client carries on. */
START_TEST(expired_no_conflict_keeps_state)
{
	struct nfs42_client *a = client_as(NULL), *b = client_as(NULL);
	char *f = e2e_uniq("keep"), holder[64] = "";
	struct nfs42_file fa;
	struct nfs42_stateid la;
	struct nfs42_compound *c;
	unsigned int lease = lease_time(a);
	uint32_t flags = ~0u;
	int ri, li;

	e2e_put_backing(f, PAR_FILEDATA, strlen(PAR_FILEDATA));
	fa = open_file(a, f, "keep-open", OPEN4_SHARE_ACCESS_BOTH,
		       OPEN4_SHARE_DENY_NONE);
	ck_nfs_ok(a, lock_new(a, &fa, false, 0, 10, "keep-lock", &la));
	/* a is silent for twice its lease: the reaper parks it */
	sleep_renewing(&b, 1, 2000 * (int64_t)lease + 1500);

	/* a comes back: session, open and lock are all there */
	ck_nfs_ok(a, ping(a, &flags));
	ck_assert_msg((flags & SEQ4_STATUS_REVOKED_MASK) == 0,
		      "SEQUENCE status flags 0x%x report revoked state", flags);
	c = e2e_cpd(a, &fa.fh);
	ri = nfs42_op_read(c, &fa.stateid, 0, 100);
	li = nfs42_op_lock_existing(c, WRITE_LT, false, 0, 20, &la, 1);
	ck_nfs_ok(a, nfs42_compound_run(c));
	ck_assert_uint_eq(nfs42_res(c, ri)->u.read.len, strlen(PAR_FILEDATA));
	ck_assert_mem_eq(nfs42_res(c, ri)->u.read.data, PAR_FILEDATA,
			 strlen(PAR_FILEDATA));
	la = nfs42_res(c, li)->u.lock.stateid;
	nfs42_compound_free(c);
	/* its lock (now 0-19) still stops others */
	ck_nfs_status(lockt(b, &fa.fh, 15, 1, holder, sizeof(holder)),
		      NFS4ERR_DENIED);
	ck_assert_str_eq(holder, "keep-lock");
	c = e2e_cpd(a, &fa.fh);
	nfs42_op_locku(c, WRITE_LT, 0, &la, 0, 20);
	ck_nfs_ok(a, e2e_cpd_run(c));
	ck_nfs_ok(a, e2e_close(&fa));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* Sleep until ms milliseconds past the next whole second of the clock
 * Ganesha's leases use (time(NULL)). */
static void sleep_to_second(int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	usleep((useconds_t)((1000000000L - ts.tv_nsec) / 1000 + ms * 1000L));
}

/*
 * (a') The client comes back just after its lease ran out, most likely
 * before the reaper (every lease/2 s) parked it.  It must fare as a
 * client parked a moment earlier: nobody conflicted, so its session and
 * state are all there.  (Ganesha 6.5 expired it on the spot:
 * NFS4ERR_EXPIRED, and everything released.)
 */
START_TEST(expired_late_return_keeps_state)
{
	struct nfs42_client *a = client_as(NULL);
	char *f = e2e_uniq("late");
	struct nfs42_file fa;
	struct nfs42_stateid la;
	unsigned int lease = lease_time(a);
	uint32_t flags = ~0u;

	e2e_put_backing(f, PAR_FILEDATA, strlen(PAR_FILEDATA));
	fa = open_file(a, f, "late-open", OPEN4_SHARE_ACCESS_BOTH,
		       OPEN4_SHARE_DENY_NONE);
	ck_nfs_ok(a, lock_new(a, &fa, false, 0, 10, "late-lock", &la));
	/* last renewal just after a whole second s: the lease ends at
	 * s + lease exactly; come back 150 ms later */
	sleep_to_second(50);
	ck_nfs_ok(a, ping(a, NULL));
	sleep_to_second(150);
	usleep((useconds_t)(lease - 1) * 1000000);
	ck_nfs_ok(a, ping(a, &flags));
	ck_assert_msg((flags & SEQ4_STATUS_REVOKED_MASK) == 0,
		      "SEQUENCE status flags 0x%x report revoked state", flags);
	ck_nfs_ok(a, e2e_write(a, &fa.fh, &fa.stateid, 0, FILE_SYNC4, "L", 1,
			       NULL, NULL, NULL));
	{
		struct nfs42_compound *c = e2e_cpd(a, &fa.fh);

		nfs42_op_locku(c, WRITE_LT, 0, &la, 0, 10);
		ck_nfs_ok(a, e2e_cpd_run(c));
	}
	ck_nfs_ok(a, e2e_close(&fa));
	nfs42_client_free(a);
}
END_TEST

/* (b) A's lease runs out holding a byte-range lock; B's LOCK wins. */
START_TEST(expired_lock_conflict_releases)
{
	struct nfs42_client *a = client_as(NULL), *b = client_as(NULL);
	char *f = e2e_uniq("lockc"), holder[64] = "";
	struct nfs42_file fa, fb;
	struct nfs42_stateid la, lb;
	unsigned int lease = lease_time(a);
	int64_t t0, waited;
	int rc;

	e2e_put_backing(f, PAR_FILEDATA, strlen(PAR_FILEDATA));
	fa = open_file(a, f, "lockc-a", OPEN4_SHARE_ACCESS_BOTH,
		       OPEN4_SHARE_DENY_NONE);
	fb = open_file(b, f, "lockc-b", OPEN4_SHARE_ACCESS_BOTH,
		       OPEN4_SHARE_DENY_NONE);
	ck_nfs_ok(a, lock_new(a, &fa, false, 0, 100, "lock-a", &la));
	t0 = e2e_now_ms();
	/* while A's lease runs, B is refused */
	ck_nfs_status(lock_new(b, &fb, false, 50, 100, "lock-b", &lb),
		      NFS4ERR_DENIED);
	/* A stops renewing; B tries until it wins */
	sleep_renewing(&b, 1, 1000 * (int64_t)lease);
	rc = lock_until_granted(b, &fb, 50, 100, "lock-b", t0, lease, &lb);
	waited = e2e_now_ms() - t0;
	ck_assert_msg(rc == 0, "B's LOCK after %lld ms: %s", (long long)waited,
		      nfs42_strerror(rc));
	printf("B's conflicting LOCK granted %lld ms after A's last renewal (lease %u s)\n",
	       (long long)waited, lease);
	/* the whole of A is gone: its lock on the rest of the range too */
	ck_nfs_status(lockt(b, &fb.fh, 0, 50, holder, sizeof(holder)), NFS4_OK);
	check_released(a);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* B opens f for WRITE (a fresh owner, or owner for an upgrade) until it
 * is no longer NFS4ERR_SHARE_DENIED or the deadline passes. */
static int open_write_until(struct nfs42_client *b, const char *f,
			    const char *owner, int64_t t0, unsigned int lease,
			    struct nfs42_file *fb)
{
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = NFS42_NOCREATE,
				   .owner = owner };
	int64_t waited;
	int rc;

	do {
		rc = e2e_open(b, f, &rq, fb);
		if (rc == NFS4ERR_SHARE_DENIED)
			usleep(250 * 1000);
	} while (rc == NFS4ERR_SHARE_DENIED &&
		 e2e_now_ms() - t0 < release_deadline_ms(lease));
	waited = e2e_now_ms() - t0;
	ck_assert_msg(rc == 0, "B's OPEN for write after %lld ms: %s",
		      (long long)waited, nfs42_strerror(rc));
	printf("B's conflicting OPEN granted %lld ms after A's last renewal (lease %u s)\n",
	       (long long)waited, lease);
	return rc;
}

/*
 * (c) A's lease runs out holding DENY_WRITE; B's OPEN for write wins.
 * upgrade: B already reads the file (A's DENY_WRITE allows it) and the
 * same open owner asks for write too (an OPEN upgrade).
 */
static void share_conflict(bool upgrade)
{
	struct nfs42_client *a = client_as(NULL), *b = client_as(NULL);
	char *f = e2e_uniq(upgrade ? "shareu" : "sharec");
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = NFS42_NOCREATE,
				   .owner = "share-b" };
	struct nfs42_file fb, fb2;
	unsigned int lease = lease_time(a);
	int64_t t0;

	e2e_put_backing(f, PAR_FILEDATA, strlen(PAR_FILEDATA));
	open_file(a, f, "share-a", OPEN4_SHARE_ACCESS_BOTH,
		  OPEN4_SHARE_DENY_WRITE);
	if (upgrade)
		fb = open_file(b, f, "share-b", OPEN4_SHARE_ACCESS_READ,
			       OPEN4_SHARE_DENY_NONE);
	t0 = e2e_now_ms();
	ck_nfs_status(e2e_open(b, f, &rq, &fb2), NFS4ERR_SHARE_DENIED);
	sleep_renewing(&b, 1, 1000 * (int64_t)lease);
	open_write_until(b, f, "share-b", t0, lease, &fb2);
	/* an upgrade keeps B's open: the same stateid "other" */
	if (upgrade)
		ck_assert_mem_eq(fb2.stateid.other, fb.stateid.other,
				 sizeof(fb.stateid.other));
	ck_nfs_ok(b, e2e_write(b, &fb2.fh, &fb2.stateid, 0, FILE_SYNC4, "B", 1,
			       NULL, NULL, NULL));
	check_released(a);
	ck_nfs_ok(b, e2e_close(&fb2));
	nfs42_client_free(a);
	nfs42_client_free(b);
}

START_TEST(expired_share_conflict_releases)
{
	share_conflict(false);
}
END_TEST

START_TEST(expired_share_conflict_on_upgrade)
{
	share_conflict(true);
}
END_TEST

/* After the restart: session for owner, OPEN CLAIM_PREVIOUS of fh; the
 * status, and the reclaimed stateid in *sid. */
static int reclaim_open(struct rsess *s, const struct nfs42_fh *fh,
			const char *open_owner, struct nfs42_stateid *sid)
{
	struct nfs42_compound *c = rsess_cpd(s);
	int oi, rc;

	nfs42_op_putfh(c, fh);
	oi = rsess_op_open_previous(c, s->clientid, open_owner,
				    OPEN4_SHARE_ACCESS_BOTH);
	rc = nfs42_compound_run(c);
	if (!rc)
		*sid = nfs42_res(c, oi)->u.open.stateid;
	nfs42_compound_free(c);
	return rc;
}

/*
 * (d) Restart in the middle.  A, C and D hold opens and locks.  A and D
 * stop renewing; C takes A's locked range (A is released, its record
 * removed), nobody conflicts with D (parked, record kept).  The server
 * is killed and started again on the same recovery directory.  In the
 * grace period C reclaims its open and the lock it won, and D its open
 * and lock; A's reclaim is NFS4ERR_NO_GRACE, tried while the grace
 * period is still on (D reclaims after it).
 */
START_TEST(restart_reclaims_only_durable_clients)
{
	char own_a[64], own_c[64], own_d[64];
	struct nfs42_client *a, *c, *d;
	struct rsess sa = { 0 }, sc = { 0 }, sd = { 0 };
	struct nfs42_fh root;
	struct nfs42_file fa, fc, fd, fca;
	struct nfs42_stateid l, sid;
	struct nfs42_compound *cpd;
	char *na = e2e_uniq("rst-a"), *nc = e2e_uniq("rst-c"),
	     *nd = e2e_uniq("rst-d");
	unsigned int lease;
	int64_t t0;

	snprintf(own_a, sizeof(own_a), "courtesy-a-%d", (int)getpid());
	snprintf(own_c, sizeof(own_c), "courtesy-c-%d", (int)getpid());
	snprintf(own_d, sizeof(own_d), "courtesy-d-%d", (int)getpid());
	a = client_as(own_a);
	c = client_as(own_c);
	d = client_as(own_d);
	lease = lease_time(a);
	root = e2e_fh(a, "");
	create_retry(a, &root, na, &fa);
	create_retry(c, &root, nc, &fc);
	create_retry(d, &root, nd, &fd);
	ck_nfs_ok(a, lock_new(a, &fa, false, 0, 100, "rst-lock-a", &l));
	ck_nfs_ok(d, lock_new(d, &fd, false, 0, 100, "rst-lock-d", &l));
	ck_nfs_ok(c, lock_new(c, &fc, false, 0, 100, "rst-lock-c", &l));
	/* C opens A's file too, and takes A's range once A's lease ran out */
	t0 = e2e_now_ms();
	fca = open_file(c, na, "rst-c-on-a", OPEN4_SHARE_ACCESS_BOTH,
			OPEN4_SHARE_DENY_NONE);
	sleep_renewing(&c, 1, 1000 * (int64_t)lease);
	ck_nfs_ok(c, lock_until_granted(c, &fca, 0, 100, "rst-lock-c-on-a", t0,
					lease, &l));
	/* D has been parked too by now; nobody touched its file */
	sleep_renewing(&c, 1, 1500 * (int64_t)lease);

	e2e_server_ctl("kill9");
	e2e_server_ctl("start");

	rs_open(&sc, own_c);
	ck_nfs_ok(sc.cl, reclaim_open(&sc, &fc.fh, "rst-c-o1", &sid));
	ck_nfs_ok(sc.cl, rs_reclaim_lock(&sc, &fc.fh, &sid, 0, 100,
					 "rst-lock-c", NULL));
	ck_nfs_ok(sc.cl, reclaim_open(&sc, &fca.fh, "rst-c-o2", &sid));
	ck_nfs_ok(sc.cl, rs_reclaim_lock(&sc, &fca.fh, &sid, 0, 100,
					 "rst-lock-c-on-a", NULL));

	/* A was released by the conflict: it has nothing to reclaim */
	rs_open(&sa, own_a);
	ck_nfs_status(reclaim_open(&sa, &fa.fh, "rst-a-o1", &sid),
		      NFS4ERR_NO_GRACE);

	/* D, a courtesy client nobody conflicted with, still may: so the
	 * grace period was on when A was refused */
	rs_open(&sd, own_d);
	ck_nfs_ok(sd.cl, reclaim_open(&sd, &fd.fh, "rst-d-o1", &sid));
	ck_nfs_ok(sd.cl, rs_reclaim_lock(&sd, &fd.fh, &sid, 0, 100,
					 "rst-lock-d", NULL));

	for (struct rsess *s = &sc; s; s = s == &sc ? &sd : NULL) {
		cpd = rsess_cpd(s);
		nfs42_op_reclaim_complete(cpd, false);
		ck_nfs_ok(s->cl, e2e_cpd_run(cpd));
	}
	cpd = rsess_cpd(&sa);
	nfs42_op_reclaim_complete(cpd, false);
	ck_nfs_ok(sa.cl, e2e_cpd_run(cpd));
	nfs42_client_free(sa.cl);
	nfs42_client_free(sc.cl);
	nfs42_client_free(sd.cl);
	nfs42_client_free(a);
	nfs42_client_free(c);
	nfs42_client_free(d);
}
END_TEST

/*
 * With RecoveryBackend = sqlite: hold the recovery database's write lock
 * (as another process could), so that a removal the reaper merely queued
 * would still be unwritten when the server is killed.  NULL otherwise.
 */
static sqlite3 *recdb_hold(void)
{
	const char *backend = getenv("SPARSE_RECOVERY_BACKEND");
	sqlite3 *db;

	if (!backend || strcmp(backend, "sqlite"))
		return NULL;
	ck_assert_int_eq(sqlite3_open(e2e_fmt("%s/sparse_recovery.db",
					      e2e_env("NFS42_RECOVERY_DIR")),
				      &db),
			 SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	ck_assert_int_eq(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
			 SQLITE_OK);
	return db;
}

static void recdb_release(sqlite3 **db)
{
	if (!*db)
		return;
	sqlite3_exec(*db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(*db);
	*db = NULL;
}

/*
 * (e) "reaper" (Expired_Client_Threshold = 0: no courtesy, the reaper
 * expires A itself).  A holds a lock and stops renewing; C polls for A's
 * range and wins it once the reaper released A; the server is killed
 * right then.  A's recovery record must have been gone (durably) before
 * its lock was released: after the restart A's reclaim is
 * NFS4ERR_NO_GRACE while C reclaims the lock.  With sqlite the database
 * is held locked from A's last renewal to 3 s past its lease: a removal
 * queued behind the release would be lost at the kill (and A could
 * reclaim the lock C holds), a durable one keeps A's lock until then.
 * SPARSE_REAPER_HOLD_MS (default 3000) sets how long past the lease the
 * database stays held: e2e_courtesy_reaper_busy_sqlite holds it 10 s
 * with Busy_Timeout_Ms = 500, so that the reaper's removal fails at
 * several passes: A must keep its lock through them (patch 0052), not
 * lose it once a bounded wait gives up.
 */
static int64_t reaper_hold_ms(void)
{
	const char *v = getenv("SPARSE_REAPER_HOLD_MS");

	return v && *v ? atoll(v) : 3000;
}

START_TEST(reaper_expiry_then_crash)
{
	char own_a[64], own_c[64];
	struct nfs42_client *a, *c;
	struct rsess sa = { 0 }, sc = { 0 };
	struct nfs42_fh root;
	struct nfs42_file fa, fca;
	struct nfs42_stateid l, sid;
	char *na = e2e_uniq("reap-a");
	unsigned int lease;
	sqlite3 *held;
	int64_t t0;
	int rc;

	snprintf(own_a, sizeof(own_a), "reaper-a-%d", (int)getpid());
	snprintf(own_c, sizeof(own_c), "reaper-c-%d", (int)getpid());
	a = client_as(own_a);
	c = client_as(own_c);
	lease = lease_time(a);
	root = e2e_fh(a, "");
	create_retry(a, &root, na, &fa);
	ck_nfs_ok(a, lock_new(a, &fa, false, 0, 100, "reap-lock-a", &l));
	fca = open_file(c, na, "reap-c-on-a", OPEN4_SHARE_ACCESS_BOTH,
			OPEN4_SHARE_DENY_NONE);
	t0 = e2e_now_ms();
	held = recdb_hold();
	while ((rc = lock_new(c, &fca, false, 0, 100, "reap-lock-c", &l)) ==
		       NFS4ERR_DENIED &&
	       e2e_now_ms() - t0 < release_deadline_ms(lease)) {
		if (held && e2e_now_ms() - t0 >
				    1000 * (int64_t)lease + reaper_hold_ms()) {
			printf("database released %lld ms after A's last renewal\n",
			       (long long)(e2e_now_ms() - t0));
			recdb_release(&held);
		}
		usleep(20 * 1000);
	}
	ck_assert_msg(rc == 0, "C's LOCK: %s", nfs42_strerror(rc));
	/* the busy variant: the reaper's removal did fail meanwhile */
	if (reaper_hold_ms() > 2 * 1000 * (int64_t)lease)
		ck_assert_msg(
			e2e_log_has(
				"keep their state until the reaper's next pass"),
			"the reaper's removal of A's record never failed");
	e2e_server_ctl("kill9");
	printf("C's LOCK granted %lld ms after A's last renewal%s; server killed\n",
	       (long long)(e2e_now_ms() - t0),
	       held ? ", database still locked" : "");
	recdb_release(&held);
	e2e_server_ctl("start");

	rs_open(&sc, own_c);
	ck_nfs_ok(sc.cl, reclaim_open(&sc, &fca.fh, "reap-c-o1", &sid));
	ck_nfs_ok(sc.cl, rs_reclaim_lock(&sc, &fca.fh, &sid, 0, 100,
					 "reap-lock-c", NULL));
	rs_open(&sa, own_a);
	ck_nfs_status(reclaim_open(&sa, &fa.fh, "reap-a-o1", &sid),
		      NFS4ERR_NO_GRACE);
	nfs42_client_free(sa.cl);
	nfs42_client_free(sc.cl);
	nfs42_client_free(a);
	nfs42_client_free(c);
}
END_TEST

/*
 * (f) "race" (sqlite only).  A holds DENY_WRITE and expires; B reads the
 * file and asks for write too with the same open owner (an OPEN upgrade).
 * The upgrade is refused by A's share, so the server releases A with
 * B's st_lock dropped; the test holds the recovery database locked, so
 * A's release waits there (its record goes first, patch 0057) while B
 * CLOSEs the very open state on another slot.  The upgrade must not
 * revive the closed state: it answers NFS4ERR_DELAY and its retry opens
 * anew, with a stateid that works.  (Reopening the deleted state gave
 * NFS4_OK and a stateid the server no longer knew.)
 */
START_TEST(upgrade_races_close)
{
	struct nfs42_client *a = client_as(NULL), *b = client_as(NULL);
	char *f = e2e_uniq("uprace");
	struct nfs42_open_args oa = {
		.share_access = OPEN4_SHARE_ACCESS_BOTH |
				OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
		.owner = "uprace-b",
		.owner_len = 8,
		.createmode = NFS42_NOCREATE,
		.claim = CLAIM_NULL,
	};
	struct nfs42_compound *c;
	struct nfs42_file fb;
	struct nfs42_fh dir;
	struct nfs42_stateid sid;
	unsigned int lease = lease_time(a);
	uint32_t st = 0;
	sqlite3 *held;
	int oi, rc;

	e2e_put_backing(f, PAR_FILEDATA, strlen(PAR_FILEDATA));
	open_file(a, f, "uprace-a", OPEN4_SHARE_ACCESS_BOTH,
		  OPEN4_SHARE_DENY_WRITE);
	fb = open_file(b, f, "uprace-b", OPEN4_SHARE_ACCESS_READ,
		       OPEN4_SHARE_DENY_NONE);
	/* A silent past its lease and the reaper's pass: parked */
	sleep_renewing(&b, 1, 2000 * (int64_t)lease);

	held = recdb_hold();
	ck_assert_ptr_nonnull(held);
	dir = e2e_fh(b, "");
	c = e2e_cpd(b, &dir);
	oa.name = f;
	oi = nfs42_op_open(c, &oa);
	ck_nfs_ok(b, nfs42_compound_start(c));
	usleep(700 * 1000); /* the upgrade now waits in A's release */
	ck_nfs_ok(b, e2e_close(&fb));
	recdb_release(&held);
	rc = nfs42_compound_finish(c);
	ck_assert_msg(rc == 0, "OPEN upgrade: %s", nfs42_strerror(rc));
	sid = nfs42_res(c, oi)->u.open.stateid;
	nfs42_compound_free(c);
	/* a new open, not the closed one revived */
	ck_assert(memcmp(sid.other, fb.stateid.other, sizeof(sid.other)));
	ck_nfs_ok(b, nfs42_test_stateid(b, &sid, &st));
	ck_assert_msg(st == NFS4_OK, "the OPEN's stateid: %s",
		      nfs42_strerror((int)st));
	ck_nfs_ok(b, e2e_write(b, &fb.fh, &sid, 0, FILE_SYNC4, "B", 1, NULL,
			       NULL, NULL));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("e2e_courtesy");
	TCase *tc;
	const char *which = argc > 1 ? argv[1] : "expiry";

	if (!strcmp(which, "expiry")) {
		tc = tcase_create("expiry");
		tcase_add_test(tc, expired_no_conflict_keeps_state);
		tcase_add_test(tc, expired_late_return_keeps_state);
		tcase_add_test(tc, expired_lock_conflict_releases);
		tcase_add_test(tc, expired_share_conflict_releases);
		tcase_add_test(tc, expired_share_conflict_on_upgrade);
	} else if (!strcmp(which, "restart")) {
		tc = tcase_create("restart");
		tcase_add_test(tc, restart_reclaims_only_durable_clients);
	} else if (!strcmp(which, "race")) {
		tc = tcase_create("race");
		tcase_add_test(tc, upgrade_races_close);
	} else if (!strcmp(which, "reaper")) {
		tc = tcase_create("reaper");
		tcase_add_test(tc, reaper_expiry_then_crash);
	} else {
		fprintf(stderr, "usage: %s expiry|restart|reaper|race\n",
			argv[0]);
		return 2;
	}
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
