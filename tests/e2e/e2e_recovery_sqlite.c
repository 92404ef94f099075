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
 */
#include <pthread.h>
#include "e2e_parity_util.h"
#include "rsess.h"

/* A session after a restart: the first calls may meet a settling server */
static void rsess_after_restart(struct rsess *s, const char *owner)
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

static void owner_name(char *buf, size_t len, const char *what, int i)
{
	snprintf(buf, len, "sqlrecov-%s-%d-%d", what, (int)getpid(), i);
}

/* The file every client opens and reclaims. */
static struct nfs42_fh shared_file(void)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh;

	e2e_put_backing("shared", "data", 4);
	fh = e2e_fh(cl, "shared");
	nfs42_client_free(cl);
	return fh;
}

START_TEST(reclaim_after_restart)
{
	struct nfs42_fh fh = shared_file();
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
	rsess_after_restart(&b, owner);
	ck_nfs_status(rsess_reclaim(&b, &fh, "oo"), NFS4ERR_NO_GRACE);
	rsess_free(&b);
	for (i = 0; i < 3; i++) {
		owner_name(owner, sizeof(owner), "known", i);
		rsess_after_restart(&s[i], owner);
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
	struct nfs42_fh fh = shared_file();
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
	rsess_after_restart(&s[0], owner);
	ck_nfs_status(rsess_reclaim(&s[0], &fh, "oo"), NFS4_OK);
	rsess_free(&s[0]);
	e2e_server_ctl("restart");
	for (i = 0; i < 3; i++) {
		owner_name(owner, sizeof(owner), "regrace", i);
		rsess_after_restart(&s[i], owner);
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

	crash_fh = shared_file();
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
		rsess_after_restart(&s, owner);
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

int main(void)
{
	Suite *s = suite_create("e2e_recovery_sqlite");
	TCase *tc = tcase_create("restart");
	TCase *tc2 = tcase_create("crash");
	TCase *tc3 = tcase_create("regrace");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, reclaim_after_restart);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tc2, 180);
	tcase_add_test(tc2, crash_while_establishing);
	suite_add_tcase(s, tc2);
	tcase_set_timeout(tc3, 120);
	tcase_add_test(tc3, restart_during_grace);
	suite_add_tcase(s, tc3);
	return e2e_run(s);
}
