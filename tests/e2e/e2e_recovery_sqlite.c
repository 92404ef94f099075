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
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
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

/* ---- gracestart, graceend: what the database cannot do at grace ---- */

/* "$NFS42_SERVER_CTL verb"; its exit status (the start of a server that
 * refuses to start fails). */
static int server_ctl_rc(const char *verb)
{
	int rc = system(e2e_fmt("'%s' %s 2>/dev/null",
				e2e_env("NFS42_SERVER_CTL"), verb));

	return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Established without state (no OPEN): many records, few RPCs. */
static void establish_bare(const char *what, int n)
{
	struct rsess s;
	char owner[64];
	int i;

	for (i = 0; i < n; i++) {
		memset(&s, 0, sizeof(s));
		owner_name(owner, sizeof(owner), what, i);
		ck_nfs_status(rsess_exchange_id(&s, owner), NFS4_OK);
		ck_nfs_status(rsess_create_session(&s), NFS4_OK);
		ck_nfs_status(rsess_reclaim_complete(&s), NFS4_OK);
		rsess_free(&s);
	}
}

/* Fill the filesystem of dir but for `leave` bytes; returns the filler. */
static char *fill_but(const char *dir, off_t leave)
{
	char *filler = e2e_fmt("%s/filler", dir);
	struct statvfs sv;
	off_t len;
	int fd;

	ck_assert_int_eq(statvfs(dir, &sv), 0);
	len = (off_t)sv.f_bavail * sv.f_frsize - leave;
	ck_assert_int_gt(len, 0);
	fd = open(filler, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(posix_fallocate(fd, 0, len), 0);
	close(fd);
	return filler;
}

#define GRACE_FILL_CLIENTS 400

/*
 * (root: the recovery directory becomes a 4 MiB tmpfs.)  A client R with
 * an open and 400 without state are recorded; the server stops cleanly.
 * (1) The filesystem is filled but for 64 KiB: the database opens (its
 * write check fits) but the grace period cannot be prepared (moving 400
 * records needs more): the server must refuse to start, naming the cause,
 * rather than run a grace period nobody may reclaim in.  (2) With the
 * space back it starts, R and the others reclaim: nothing was lost.
 * (3) Another process holds the database's write lock for 8 s while the
 * server starts (Busy_Timeout_Ms = 1000): the server tries again (5
 * attempts, 1 s apart) and starts; R reclaims.
 */
START_TEST(grace_start_fails)
{
	const char *recov = e2e_env("NFS42_RECOVERY_DIR");
	struct nfs42_fh fh = rs_shared_file();
	struct rsess r = { 0 }, x = { 0 };
	char own_r[64], own_x[64], *filler;
	struct holder h;
	int64_t t0;
	int rc;

	e2e_require_root("e2e_recovery_sqlite_gracestart");
	e2e_server_ctl("stop");
	ck_assert_int_eq(mount("tmpfs", recov, "tmpfs", 0, "size=4m,mode=0755"),
			 0);
	e2e_server_ctl("start");
	owner_name(own_r, sizeof(own_r), "gs-r", 0);
	ck_nfs_status(rsess_establish(&r, own_r, &fh), NFS4_OK);
	rsess_free(&r);
	establish_bare("gs-fill", GRACE_FILL_CLIENTS);
	e2e_server_ctl("stop");

	/* (1) no room to prepare the grace period: no start */
	filler = fill_but(recov, 64 * 1024);
	rc = server_ctl_rc("start");
	if (rc == 0) {
		/* what a client gets from such a server: nothing to reclaim */
		rs_after_restart(&r, own_r);
		rc = rsess_reclaim(&r, &fh, "oo");
		rsess_free(&r);
		ck_abort_msg(
			"server started though the grace period could not be prepared (R's reclaim: %s)",
			nfs42_strerror(rc));
	}
	ck_assert_msg(
		e2e_log_has(
			"SQLite recovery: cannot start the grace period (No space left on device)"),
		"no CRIT naming the grace period and the full filesystem");
	ck_assert(
		e2e_log_has("not starting rather than losing client records"));

	/* (2) room again: everyone may reclaim */
	ck_assert_int_eq(unlink(filler), 0);
	e2e_server_ctl("start");
	rs_after_restart(&r, own_r);
	ck_nfs_status(rsess_reclaim(&r, &fh, "oo"), NFS4_OK);
	owner_name(own_x, sizeof(own_x), "gs-fill", GRACE_FILL_CLIENTS - 1);
	rs_after_restart(&x, own_x);
	ck_nfs_status(rsess_reclaim(&x, &fh, "oo"), NFS4_OK);
	rsess_free(&r);
	rsess_free(&x);
	e2e_server_ctl("stop");

	/* (3) locked for 8 s at start: attempts fail, a later one not */
	holder_start(&h, 8000);
	t0 = e2e_now_ms();
	rc = server_ctl_rc("start");
	holder_end(&h);
	ck_assert_msg(rc == 0,
		      "server did not start over a database locked for 8 s");
	ck_assert_int_ge(e2e_now_ms() - t0, 7000);
	ck_assert(e2e_log_has("attempt 1 of 5"));
	rs_after_restart(&r, own_r);
	ck_nfs_status(rsess_reclaim(&r, &fh, "oo"), NFS4_OK);
	rsess_free(&r);
}
END_TEST

/*
 * (Lease_Lifetime 4 s, Grace_Period 8 s.)  K and R are recorded, the
 * server restarts; R comes back and reclaims, K does not.  N (a new
 * client) is established during grace.  Another process holds the
 * database from then until 8 s past the grace period's end: the old
 * records cannot be forgotten, so grace must go on (N's OPEN
 * NFS4ERR_GRACE); once the lock is gone grace ends (N's OPEN NFS4_OK).
 * After one more restart K may not reclaim: its record went at that
 * grace end.  (Ending grace with the old records still there let K
 * reclaim two restarts later.)
 */
START_TEST(grace_end_fails)
{
	struct nfs42_fh fh = rs_shared_file();
	struct rsess k = { 0 }, r = { 0 }, n = { 0 };
	char own_k[64], own_r[64], own_n[64];
	struct holder h;
	int64_t t0;
	int rc;

	owner_name(own_k, sizeof(own_k), "ge-k", 0);
	owner_name(own_r, sizeof(own_r), "ge-r", 0);
	owner_name(own_n, sizeof(own_n), "ge-n", 0);
	ck_nfs_status(rsess_establish(&k, own_k, &fh), NFS4_OK);
	ck_nfs_status(rsess_establish(&r, own_r, &fh), NFS4_OK);
	rsess_free(&k);
	rsess_free(&r);
	e2e_server_ctl("restart");
	t0 = e2e_now_ms();
	rs_after_restart(&r, own_r);
	ck_nfs_status(rsess_reclaim(&r, &fh, "oo"), NFS4_OK);
	ck_nfs_status(rsess_reclaim_complete(&r), NFS4_OK);
	rs_after_restart(&n, own_n);
	ck_nfs_status(rsess_reclaim_complete(&n), NFS4_OK);
	ck_nfs_status(rsess_open(&n, &fh, "oo"), NFS4ERR_GRACE);

	holder_start(&h, -1);
	/* grace would end 8 s after the start, at a reaper pass (2 s) */
	while (e2e_now_ms() - t0 < 8000 + 2 * 2000 + 2000)
		usleep(100 * 1000);
	rc = rsess_open(&n, &fh, "oo");
	holder_end(&h);
	ck_assert_msg(
		rc == NFS4ERR_GRACE,
		"OPEN past the grace period with the old records not forgotten: %s",
		nfs42_strerror(rc));
	ck_assert(e2e_log_has("the grace period goes on until they are"));
	t0 = e2e_now_ms();
	while ((rc = rsess_open(&n, &fh, "oo")) == NFS4ERR_GRACE &&
	       e2e_now_ms() - t0 < 20000)
		usleep(200 * 1000);
	ck_nfs_status(rc, NFS4_OK);
	rsess_free(&n);
	rsess_free(&r);

	e2e_server_ctl("restart");
	rs_after_restart(&k, own_k);
	ck_nfs_status(rsess_reclaim(&k, &fh, "oo"), NFS4ERR_NO_GRACE);
	rs_after_restart(&r, own_r);
	ck_nfs_status(rsess_reclaim(&r, &fh, "oo"), NFS4_OK);
	rsess_free(&k);
	rsess_free(&r);
}
END_TEST

/* ---- reaper, stuck: removals of expiring clients ---- */

/* Rows of the clients table whose key contains `like` (every row: "") */
static int db_rows(const char *like)
{
	char path[4200];
	sqlite3 *db;
	sqlite3_stmt *st;
	int n = -1;

	snprintf(path, sizeof(path), "file:%s/sparse_recovery.db?mode=ro",
		 e2e_env("NFS42_RECOVERY_DIR"));
	ck_assert_int_eq(sqlite3_open_v2(path, &db,
					 SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
					 NULL),
			 SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	ck_assert_int_eq(
		sqlite3_prepare_v2(db,
				   "SELECT count(*) FROM clients WHERE "
				   "instr(CAST(key AS TEXT), ?1) > 0",
				   -1, &st, NULL),
		SQLITE_OK);
	sqlite3_bind_text(st, 1, like, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* Wait up to ms for no row matching `like`; the rows left. */
static int db_rows_gone(const char *like, int ms)
{
	int64_t t0 = e2e_now_ms();
	int n;

	while ((n = db_rows(like)) > 0 && e2e_now_ms() - t0 < ms)
		usleep(50 * 1000);
	return n;
}

/* The committer's totals from the shutdown line of the server log. */
static void committer_totals(long *changes, long *commits)
{
	char line[2048], *p;
	FILE *f = fopen(e2e_env("NFS42_LOG"), "r");

	ck_assert_ptr_nonnull(f);
	*changes = *commits = -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "SQLite recovery: ");
		if (p && strstr(p, " transactions, "))
			ck_assert_int_eq(
				sscanf(p,
				       "SQLite recovery: %ld changes in %ld transactions",
				       changes, commits),
				2);
	}
	fclose(f);
	ck_assert_int_ge(*commits, 0);
}

#define REAPED 40

/*
 * (Lease_Lifetime 4 s, Expired_Client_Threshold 0.)  40 clients, each
 * holding an open, are established one after the other (40 records, one
 * transaction each) and go silent; the reaper expires them all.  Their
 * removals must take at most 2 transactions (one per reaper pass: their
 * leases may straddle one), plus one per further reaper pass (every 2 s)
 * the establishing took on a loaded machine, plus the removal of the
 * client that found the file (rs_shared_file(): DESTROY_CLIENTID before
 * the 40, a transaction of its own), and not 41 (each removal waited for
 * its own commit before the client's state was released).
 */
START_TEST(reaper_one_commit_per_pass)
{
	struct nfs42_fh fh = rs_shared_file();
	struct rsess s;
	char owner[64];
	long changes, commits, passes;
	int64_t t0 = e2e_now_ms();
	int i;

	for (i = 0; i < REAPED; i++) {
		memset(&s, 0, sizeof(s));
		owner_name(owner, sizeof(owner), "reaped", i);
		ck_nfs_status(rsess_establish(&s, owner, &fh), NFS4_OK);
		rsess_free(&s);
	}
	/* the reaper passes the leases' ends can straddle, and the finder's
	 * own removal
	 */
	passes = 2 + (e2e_now_ms() - t0) / 2000 + 1;
	ck_assert_int_eq(db_rows("sqlrecov-reaped-"), REAPED);
	ck_assert_int_eq(db_rows_gone("sqlrecov-reaped-", 30000), 0);
	e2e_server_ctl("stop");
	committer_totals(&changes, &commits);
	/* every client (and rs_shared_file()'s) added once, alone, and removed */
	printf("reaper: %ld changes in %ld transactions: %ld adds, one each, then %ld removals in %ld\n",
	       changes, commits, changes / 2, changes / 2,
	       commits - changes / 2);
	ck_assert_int_ge(changes, 2 * REAPED);
	ck_assert_int_eq(changes % 2, 0);
	ck_assert_msg(commits - changes / 2 <= passes,
		      "%ld removals took %ld transactions (at most %ld)",
		      changes / 2, commits - changes / 2, passes);
	e2e_server_ctl("start");
}
END_TEST

struct destroyer {
	struct rsess *s;
	int rc;
	int done;
};

/* DESTROY_SESSION, DESTROY_CLIENTID; the first failure in d->rc. */
static void *destroy_thread(void *arg)
{
	struct destroyer *d = arg;
	struct nfs42_compound *c = nfs42_compound_new(d->s->cl);

	nfs42_compound_no_sequence(c);
	nfs42_op_destroy_session(c, d->s->sid);
	d->rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	if (!d->rc) {
		c = nfs42_compound_new(d->s->cl);
		nfs42_compound_no_sequence(c);
		nfs42_op_destroy_clientid(c, d->s->clientid);
		d->rc = nfs42_compound_run(c);
		nfs42_compound_free(c);
	}
	__atomic_store_n(&d->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * (Busy_Timeout_Ms = 1000.)  Another process holds the database while a
 * client destroys its client ID, whose record must be gone (durably)
 * before the request goes on: the removal is tried 3 times and then the
 * request goes on anyway (CRIT: NOT removed), within seconds, not until
 * the lock is gone.  The removal stays queued: once the lock is gone the
 * record goes, and after a restart the client may not reclaim.
 */
START_TEST(removal_bounded)
{
	struct nfs42_fh fh = rs_shared_file();
	struct destroyer d = { 0 };
	struct rsess t = { 0 };
	struct holder h;
	pthread_t th;
	char owner[64];
	int64_t t0, took;
	int done;

	owner_name(owner, sizeof(owner), "stuck", 0);
	ck_nfs_status(rsess_exchange_id(&t, owner), NFS4_OK);
	ck_nfs_status(rsess_create_session(&t), NFS4_OK);
	ck_nfs_status(rsess_reclaim_complete(&t), NFS4_OK);
	ck_assert_int_eq(db_rows(owner), 1);

	holder_start(&h, -1);
	d.s = &t;
	t0 = e2e_now_ms();
	ck_assert_int_eq(pthread_create(&th, NULL, destroy_thread, &d), 0);
	while (!(done = __atomic_load_n(&d.done, __ATOMIC_SEQ_CST)) &&
	       e2e_now_ms() - t0 < 15000)
		usleep(50 * 1000);
	took = e2e_now_ms() - t0;
	holder_end(&h);
	pthread_join(th, NULL);
	ck_assert_msg(
		done,
		"DESTROY_CLIENTID still waiting for the database after %lld ms",
		(long long)took);
	printf("stuck: DESTROY_CLIENTID answered after %lld ms with the database locked\n",
	       (long long)took);
	ck_nfs_status(d.rc, NFS4_OK);
	ck_assert(e2e_log_has("attempt 2 of 3"));
	ck_assert(e2e_log_has("its state is released all the same"));
	ck_assert_int_eq(db_rows_gone(owner, 10000), 0);
	rsess_free(&t);

	e2e_server_ctl("restart");
	rs_after_restart(&t, owner);
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
	TCase *tc6 = tcase_create("gracestart");
	TCase *tc7 = tcase_create("graceend");
	TCase *tc8 = tcase_create("reaper");
	TCase *tc9 = tcase_create("stuck");

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
	tcase_set_timeout(tc6, 180);
	tcase_add_test(tc6, grace_start_fails);
	suite_add_tcase(s, tc6);
	tcase_set_timeout(tc7, 120);
	tcase_add_test(tc7, grace_end_fails);
	suite_add_tcase(s, tc7);
	tcase_set_timeout(tc8, 120);
	tcase_add_test(tc8, reaper_one_commit_per_pass);
	suite_add_tcase(s, tc8);
	tcase_set_timeout(tc9, 120);
	tcase_add_test(tc9, removal_bounded);
	suite_add_tcase(s, tc9);
	return e2e_run(s);
}
