/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * RecoveryBackend = sqlite (issue #9), run with SPARSE_RECOVERY_BACKEND=sqlite
 * and a grace period. Three cases, chosen by CK_RUN_CASE (one server each):
 *
 * restart: three clients are established (EXCHANGE_ID, CREATE_SESSION,
 *   OPEN, RECLAIM_COMPLETE), the server restarts; each of them may
 *   reclaim (OPEN CLAIM_PREVIOUS), a client the server never saw gets
 *   NFS4ERR_NO_GRACE.
 * regrace: the server restarts again during the grace period after a
 *   restart; the clients that had not reclaimed may still reclaim.
 * crash: 200 clients are established by 8 threads; once half of them are
 *   answered the server is killed with SIGKILL and restarted. Every client
 *   whose CREATE_SESSION (where Ganesha adds the record) was answered may
 *   reclaim; every client that never sent it gets NFS4ERR_NO_GRACE; those
 *   in flight at the kill may go either way (counted).
 * locked (Busy_Timeout_Ms = 1000): another process holds the database's
 *   write lock: a CREATE_SESSION waits for a short hold, gets
 *   NFS4ERR_DELAY for a long one (the client is not confirmed without
 *   its record) and succeeds once the lock is gone.
 * keys: the owners "0x01fefdfc" and 01 fe fd fc have records of their own.
 */
#include <pthread.h>
#include <sqlite3.h>
#include "e2e_reclaim_util.h"

static void owner_name(char *buf, size_t len, const char *what, int i)
{
	snprintf(buf, len, "sqlrecov-%s-%d-%d", what, (int)getpid(), i);
}

START_TEST(reclaim_after_restart)
{
	struct nfs42_fh fh = rs_shared_file();
	struct rsess s[3] = { 0 }, b = { 0 };
	char owner[64];
	int i;

	for (i = 0; i < 3; i++) {
		owner_name(owner, sizeof(owner), "known", i);
		ck_nfs_status(rsess_establish(&s[i], owner, &fh), NFS4_OK);
		rsess_free(&s[i]);
	}
	e2e_server_ctl("restart");
	/* a client the server never saw may not reclaim */
	owner_name(owner, sizeof(owner), "stranger", 0);
	rs_after_restart(&b, owner);
	ck_nfs_status(rsess_reclaim(&b, &fh, "oo"), NFS4ERR_NO_GRACE);
	rsess_free(&b);
	for (i = 0; i < 3; i++) {
		owner_name(owner, sizeof(owner), "known", i);
		rs_after_restart(&s[i], owner);
		ck_nfs_status(rsess_reclaim(&s[i], &fh, "oo"), NFS4_OK);
		ck_nfs_status(rsess_reclaim_complete(&s[i]), NFS4_OK);
		rsess_free(&s[i]);
	}
}
END_TEST

/*
 * A restart during the grace period: the clients that had not reclaimed
 * yet may still reclaim after it (the old records are kept), the one
 * that had reclaimed too (it was recorded again).
 */
START_TEST(restart_during_grace)
{
	struct nfs42_fh fh = rs_shared_file();
	struct rsess s[3] = { 0 };
	char owner[64];
	int i;

	for (i = 0; i < 3; i++) {
		owner_name(owner, sizeof(owner), "regrace", i);
		ck_nfs_status(rsess_establish(&s[i], owner, &fh), NFS4_OK);
		rsess_free(&s[i]);
	}
	e2e_server_ctl("restart");
	/* only client 0 comes back; grace goes on for the other two */
	owner_name(owner, sizeof(owner), "regrace", 0);
	rs_after_restart(&s[0], owner);
	ck_nfs_status(rsess_reclaim(&s[0], &fh, "oo"), NFS4_OK);
	rsess_free(&s[0]);
	e2e_server_ctl("restart");
	for (i = 0; i < 3; i++) {
		owner_name(owner, sizeof(owner), "regrace", i);
		rs_after_restart(&s[i], owner);
		ck_nfs_status(rsess_reclaim(&s[i], &fh, "oo"), NFS4_OK);
		rsess_free(&s[i]);
	}
}
END_TEST

#define CRASH_CLIENTS 200
#define CRASH_THREADS 8

/* progress of each client: 0 nothing, 1 CREATE_SESSION sent, 2 answered */
static int progress[CRASH_CLIENTS];
static int answered; /* CREATE_SESSIONs answered */
static int next_client;
static pthread_mutex_t crash_mtx = PTHREAD_MUTEX_INITIALIZER;
static struct nfs42_fh crash_fh;

static void *crash_worker(void *arg)
{
	struct rsess s;
	char owner[64];
	int i, rc;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&crash_mtx);
		i = next_client < CRASH_CLIENTS ? next_client++ : -1;
		pthread_mutex_unlock(&crash_mtx);
		if (i < 0)
			return NULL;
		memset(&s, 0, sizeof(s));
		owner_name(owner, sizeof(owner), "crash", i);
		rc = rsess_exchange_id(&s, owner);
		if (!rc) {
			__atomic_store_n(&progress[i], 1, __ATOMIC_SEQ_CST);
			rc = rsess_create_session(&s);
		}
		if (!rc) {
			__atomic_store_n(&progress[i], 2, __ATOMIC_SEQ_CST);
			__atomic_add_fetch(&answered, 1, __ATOMIC_SEQ_CST);
			rc = rsess_open(&s, &crash_fh, "oo");
		}
		if (!rc)
			rc = rsess_reclaim_complete(&s);
		nfs42_client_free(s.cl);
		if (rc) /* the server is gone: stop here */
			return NULL;
	}
}

START_TEST(crash_while_establishing)
{
	pthread_t th[CRASH_THREADS];
	struct rsess s;
	char owner[64];
	int i, rc, ok = 0, refused = 0, unsure_ok = 0, unsure_no = 0;
	int64_t t0;

	crash_fh = rs_shared_file();
	for (i = 0; i < CRASH_THREADS; i++)
		ck_assert_int_eq(
			pthread_create(&th[i], NULL, crash_worker, NULL), 0);
	t0 = e2e_now_ms();
	while (__atomic_load_n(&answered, __ATOMIC_SEQ_CST) <
		       CRASH_CLIENTS / 2 &&
	       e2e_now_ms() - t0 < 60000)
		usleep(1000);
	e2e_server_ctl("kill9");
	for (i = 0; i < CRASH_THREADS; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_ge(answered, CRASH_CLIENTS / 2);
	e2e_server_ctl("start");

	/* everyone tries; nobody sends RECLAIM_COMPLETE, so grace lasts */
	for (i = 0; i < CRASH_CLIENTS; i++) {
		memset(&s, 0, sizeof(s));
		owner_name(owner, sizeof(owner), "crash", i);
		rs_after_restart(&s, owner);
		rc = rsess_reclaim(&s, &crash_fh, "oo");
		rsess_free(&s);
		switch (progress[i]) {
		case 2:
			ck_assert_msg(rc == NFS4_OK,
				      "client %d was answered: reclaim %s", i,
				      nfs42_strerror(rc));
			ok++;
			break;
		case 1:
			ck_assert_msg(rc == NFS4_OK || rc == NFS4ERR_NO_GRACE,
				      "client %d in flight: reclaim %s", i,
				      nfs42_strerror(rc));
			rc == NFS4_OK ? unsure_ok++ : unsure_no++;
			break;
		default:
			ck_assert_msg(rc == NFS4ERR_NO_GRACE,
				      "client %d never established: reclaim %s",
				      i, nfs42_strerror(rc));
			refused++;
		}
	}
	printf("crash: %d answered and reclaimed, %d never established and refused, in flight: %d reclaimed, %d refused\n",
	       ok, refused, unsure_ok, unsure_no);
}
END_TEST

/* ---- locked: another process holds the database's write lock ---- */

struct holder {
	sqlite3 *db;
	pthread_t thread;
	int release_ms; /* < 0: released by hand */
};

static void *holder_release(void *arg)
{
	struct holder *h = arg;

	usleep(h->release_ms * 1000);
	sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(h->db);
	return NULL;
}

/* Take the recovery database's write lock; released after release_ms,
 * or by holder_end() when release_ms < 0. */
static void holder_start(struct holder *h, int release_ms)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/sparse_recovery.db",
		 e2e_env("NFS42_RECOVERY_DIR"));
	ck_assert_int_eq(sqlite3_open(path, &h->db), SQLITE_OK);
	sqlite3_busy_timeout(h->db, 10000);
	ck_assert_int_eq(sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	h->release_ms = release_ms;
	if (release_ms >= 0)
		ck_assert_int_eq(
			pthread_create(&h->thread, NULL, holder_release, h), 0);
}

static void holder_end(struct holder *h)
{
	if (h->release_ms >= 0) {
		pthread_join(h->thread, NULL);
		return;
	}
	sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(h->db);
}

/* One CREATE_SESSION, NFS4ERR_DELAY not retried. */
static int create_session_once(struct rsess *s)
{
	return rsess_create_session_opt(s, NULL, NULL, "sqlrecov", false);
}

/*
 * (Busy_Timeout_Ms = 1000.)  A write lock held for 400 ms by another
 * process: CREATE_SESSION waits for it and succeeds.  Held past the busy
 * timeout: the record cannot be stored, so the client is not confirmed:
 * NFS4ERR_DELAY; the same CREATE_SESSION once the lock is gone succeeds.
 * After a restart both clients may reclaim: their records were stored.
 */
START_TEST(locked_database)
{
	struct nfs42_fh fh = rs_shared_file();
	struct rsess x = { 0 }, y = { 0 };
	struct holder h;
	char ox[64], oy[64];
	int64_t t0, took;
	int rc;

	owner_name(ox, sizeof(ox), "locked", 0);
	owner_name(oy, sizeof(oy), "locked", 1);

	ck_nfs_status(rsess_exchange_id(&x, ox), NFS4_OK);
	holder_start(&h, 400);
	t0 = e2e_now_ms();
	rc = create_session_once(&x);
	took = e2e_now_ms() - t0;
	holder_end(&h);
	ck_assert_msg(rc == NFS4_OK,
		      "CREATE_SESSION, database locked 400 ms: %s",
		      nfs42_strerror(rc));
	ck_assert_int_ge(took, 300);
	ck_nfs_status(rsess_open(&x, &fh, "oo"), NFS4_OK);
	ck_nfs_status(rsess_reclaim_complete(&x), NFS4_OK);

	ck_nfs_status(rsess_exchange_id(&y, oy), NFS4_OK);
	holder_start(&h, -1);
	rc = create_session_once(&y);
	holder_end(&h);
	ck_assert_msg(
		rc == NFS4ERR_DELAY,
		"CREATE_SESSION, database locked past the busy timeout: %s",
		nfs42_strerror(rc));
	ck_nfs_status(create_session_once(&y), NFS4_OK);
	ck_nfs_status(rsess_open(&y, &fh, "oo"), NFS4_OK);
	ck_nfs_status(rsess_reclaim_complete(&y), NFS4_OK);
	rsess_free(&x);
	rsess_free(&y);

	e2e_server_ctl("restart");
	rs_after_restart(&x, ox);
	ck_nfs_status(rsess_reclaim(&x, &fh, "oo"), NFS4_OK);
	rs_after_restart(&y, oy);
	ck_nfs_status(rsess_reclaim(&y, &fh, "oo"), NFS4_OK);
	rsess_free(&x);
	rsess_free(&y);
}
END_TEST

/* ---- keys: two owners whose records used to share a name ---- */

/*
 * The printable owner "0x01fefdfc" and the owner of the four bytes
 * 01 fe fd fc, from one address: two records.  The first client goes
 * (DESTROY_CLIENTID removes its record); after a restart the second may
 * still reclaim.  (Both were named "...-(10:0x01fefdfc)": the removal
 * took the other's record.)
 */
START_TEST(owner_keys_distinct)
{
	static const char text[] = "0x01fefdfc";
	static const char bytes[] = { 0x01, (char)0xfe, (char)0xfd, (char)0xfc,
				      0 };
	struct nfs42_fh fh = rs_shared_file();
	struct rsess t = { 0 }, b = { 0 };

	/* established without an open: a client holding state may not
	 * destroy its client ID (NFS4ERR_CLIENTID_BUSY, patch 0097) */
	ck_nfs_status(rsess_exchange_id(&t, text), NFS4_OK);
	ck_nfs_status(rsess_create_session(&t), NFS4_OK);
	ck_nfs_status(rsess_reclaim_complete(&t), NFS4_OK);
	ck_nfs_status(rsess_establish(&b, bytes, &fh), NFS4_OK);
	rs_destroy_client(&t);
	rsess_free(&t);
	rsess_free(&b);

	e2e_server_ctl("restart");
	rs_after_restart(&b, bytes);
	ck_nfs_status(rsess_reclaim(&b, &fh, "oo"), NFS4_OK);
	rsess_free(&b);
	rs_after_restart(&t, text);
	ck_nfs_status(rsess_reclaim(&t, &fh, "oo"), NFS4ERR_NO_GRACE);
	rsess_free(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_recovery_sqlite");
	TCase *tc = tcase_create("restart");
	TCase *tc2 = tcase_create("crash");
	TCase *tc3 = tcase_create("regrace");
	TCase *tc4 = tcase_create("locked");
	TCase *tc5 = tcase_create("keys");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, reclaim_after_restart);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tc2, 180);
	tcase_add_test(tc2, crash_while_establishing);
	suite_add_tcase(s, tc2);
	tcase_set_timeout(tc3, 120);
	tcase_add_test(tc3, restart_during_grace);
	suite_add_tcase(s, tc3);
	tcase_set_timeout(tc4, 120);
	tcase_add_test(tc4, locked_database);
	suite_add_tcase(s, tc4);
	tcase_set_timeout(tc5, 120);
	tcase_add_test(tc5, owner_keys_distinct);
	suite_add_tcase(s, tc5);
	return e2e_run(s);
}
