/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * RecoveryBackend = rados_cluster on the lane's cluster (harness.sh --ceph,
 * SPARSE_RECOVERY_BACKEND=rados_cluster): the client records and the
 * cluster grace database as Ganesha keeps them in RADOS, read here
 * through librados and ganesha-rados-grace (NFS42_CEPH_GRACE). One case
 * per run, chosen by CK_RUN_CASE:
 *
 * records: each confirmed client is a key of the object
 *   "rec-<current epoch>:<nodeid>" whose value names its owner; a client
 *   that destroys its client ID loses its key.  A restart starts a
 *   cluster grace period (ganesha-rados-grace dump: current epoch + 1,
 *   recovery epoch the old one, this node needing grace and enforcing
 *   it) and a new record object; the old one keeps the records; new
 *   opens get NFS4ERR_GRACE, a client the server never saw
 *   NFS4ERR_NO_GRACE, the known ones reclaim; once they all sent
 *   RECLAIM_COMPLETE the grace is lifted cluster-wide (recovery epoch 0,
 *   node flags clear) and the old object is gone.
 * member: a node that is not in the grace database may not serve: after
 *   `ganesha-rados-grace remove NODE` the server refuses to start
 *   ("Cluster membership check failed"), after `add NODE` it starts.
 * admin (Grace_Period and Lease_Lifetime 5 s): another head of the
 *   cluster fails: `ganesha-rados-grace add other; start other` begins a
 *   cluster grace period.  The running server hears of it (a RADOS watch):
 *   new opens get NFS4ERR_GRACE while a client's existing state keeps
 *   working, for longer than its own Grace_Period, as long as the other
 *   head needs grace; `lift other` ends it for the whole cluster (the
 *   times printed).
 * expire (Lease_Lifetime 4 s, no courtesy clients): a client that stops
 *   renewing loses its record in RADOS within three leases, while one
 *   that renews keeps it.
 */
#include <inttypes.h>
#include <rados/librados.h>
#include "e2e_reclaim_util.h"

/* ---- RADOS: the test's namespace of the Ganesha pool */

static rados_t cluster;
static rados_ioctx_t ioctx;

static void rados_open(void)
{
	char name[128];

	snprintf(name, sizeof(name), "client.%s", e2e_env("NFS42_CEPH_USER"));
	ck_assert_int_eq(rados_create2(&cluster, "ceph", name, 0), 0);
	ck_assert_int_eq(
		rados_conf_read_file(cluster, e2e_env("NFS42_CEPH_CONF")), 0);
	ck_assert_int_eq(rados_connect(cluster), 0);
	ck_assert_int_eq(rados_ioctx_create(cluster, e2e_env("NFS42_CEPH_POOL"),
					    &ioctx),
			 0);
	rados_ioctx_set_namespace(ioctx, e2e_env("NFS42_CEPH_NS"));
}

static void rados_close(void)
{
	rados_ioctx_destroy(ioctx);
	rados_shutdown(cluster);
}

static bool object_exists(const char *oid)
{
	uint64_t size;
	time_t mtime;

	return rados_stat(ioctx, oid, &size, &mtime) == 0;
}

#define MAX_RECORDS 64

struct records {
	int n;
	char *key[MAX_RECORDS];
	char *val[MAX_RECORDS];
};

static void records_free(struct records *r)
{
	int i;

	for (i = 0; i < r->n; i++) {
		free(r->key[i]);
		free(r->val[i]);
	}
	r->n = 0;
}

/* The omap of oid (-ENOENT when there is no such object). */
static int records_read(const char *oid, struct records *r)
{
	rados_read_op_t op = rados_create_read_op();
	rados_omap_iter_t it;
	unsigned char more = 0;
	int prval = 0, rc;
	char *k, *v;
	size_t kl, vl;

	memset(r, 0, sizeof(*r));
	rados_read_op_omap_get_vals2(op, "", "", MAX_RECORDS, &it, &more,
				     &prval);
	rc = rados_read_op_operate(op, ioctx, oid, 0);
	if (rc == 0)
		rc = prval;
	if (rc == 0) {
		while (rados_omap_get_next2(it, &k, &v, &kl, &vl) == 0 && k) {
			ck_assert_int_lt(r->n, MAX_RECORDS);
			r->key[r->n] = strndup(k, kl);
			r->val[r->n] = strndup(v ? v : "", vl);
			r->n++;
		}
		rados_omap_get_end(it);
	}
	rados_release_read_op(op);
	ck_assert_msg(!more, "more than %d records in %s", MAX_RECORDS, oid);
	return rc;
}

/* How many records of oid name owner (0 when oid does not exist). */
static int records_naming(const char *oid, const char *owner)
{
	struct records r;
	int i, n = 0;

	if (records_read(oid, &r) < 0)
		return 0;
	for (i = 0; i < r.n; i++)
		if (strstr(r.val[i], owner))
			n++;
	records_free(&r);
	return n;
}

static int records_count(const char *oid)
{
	struct records r;
	int n;

	if (records_read(oid, &r) < 0)
		return -1;
	n = r.n;
	records_free(&r);
	return n;
}

/* ---- the grace database, through ganesha-rados-grace dump */

struct grace {
	uint64_t cur, rec;
	char flags[8]; /* this node's: "N" needs grace, "E" enforcing */
	bool member;
};

static struct grace grace_dump(void)
{
	struct grace g = { 0 };
	const char *node = e2e_env("NFS42_CEPH_NODEID");
	char *cmd, line[512], out[2048];
	FILE *f;
	int rc;

	ck_assert_int_gt(
		asprintf(&cmd, "%s dump 2>&1", e2e_env("NFS42_CEPH_GRACE")), 0);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	out[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		size_t nl = strlen(node);

		if (strlen(out) + strlen(line) < sizeof(out))
			strcat(out, line);

		if (sscanf(line, "cur=%" SCNu64 " rec=%" SCNu64, &g.cur,
			   &g.rec) == 2)
			continue;
		if (!strncmp(line, node, nl) && line[nl] == '\t') {
			char *p = line + nl + 1, *o = g.flags;

			g.member = true;
			for (; *p && *p != '\n' && o < g.flags + 7; p++)
				if (*p != ' ')
					*o++ = *p;
		}
	}
	rc = pclose(f);
	ck_assert_msg(rc == 0, "%s: status %d: %s", cmd, rc, out);
	free(cmd);
	return g;
}

static void grace_admin(const char *verb)
{
	char *cmd;
	int rc;

	ck_assert_int_gt(asprintf(&cmd, "%s %s %s", e2e_env("NFS42_CEPH_GRACE"),
				  verb, e2e_env("NFS42_CEPH_NODEID")),
			 0);
	rc = system(cmd);
	ck_assert_msg(rc == 0, "%s: status %d", cmd, rc);
	free(cmd);
}

/* Wait up to seconds for the cluster grace to be lifted (rec == 0). */
static struct grace grace_wait_lifted(int seconds)
{
	int64_t t0 = e2e_now_ms();
	struct grace g;

	for (;;) {
		g = grace_dump();
		if (g.rec == 0)
			return g;
		ck_assert_msg(e2e_now_ms() - t0 < seconds * 1000LL,
			      "grace not lifted after %d s: cur=%" PRIu64
			      " rec=%" PRIu64 " flags '%s'",
			      seconds, g.cur, g.rec, g.flags);
		usleep(200 * 1000);
	}
}

static char *rec_oid(uint64_t epoch)
{
	char *oid;

	ck_assert_int_gt(asprintf(&oid, "rec-%016" PRIx64 ":%s", epoch,
				  e2e_env("NFS42_CEPH_NODEID")),
			 0);
	return e2e_keep(oid);
}

/* ---- clients */

static void owner_name(char *buf, size_t len, const char *what, int i)
{
	snprintf(buf, len, "radosrec-%s-%d-%d", what, (int)getpid(), i);
}

static int rsess_renew(struct rsess *s)
{
	struct nfs42_compound *c = rsess_cpd(s);
	int rc = nfs42_compound_run(c);

	nfs42_compound_free(c);
	return rc;
}

/* The server control script's status (e2e_server_ctl asserts success). */
static int server_ctl_rc(const char *verb)
{
	char *cmd;
	int rc;

	ck_assert_int_gt(asprintf(&cmd, "'%s' %s 2>&1",
				  e2e_env("NFS42_SERVER_CTL"), verb),
			 0);
	rc = system(cmd);
	free(cmd);
	return rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

#define N_KNOWN 3

START_TEST(records_and_cluster_grace)
{
	struct nfs42_fh fh = rs_shared_file();
	struct rsess s[N_KNOWN] = { 0 }, d = { 0 }, b = { 0 };
	char owner[64], gone[64];
	struct grace g0, g1, g2;
	const char *cur_oid, *new_oid;
	int i;

	rados_open();
	/* the server's own start-up grace ends at once: no records yet */
	g0 = grace_wait_lifted(60);
	ck_assert(g0.member);
	ck_assert_str_eq(g0.flags, "");
	cur_oid = rec_oid(g0.cur);
	ck_assert_msg(object_exists(cur_oid), "no %s", cur_oid);

	for (i = 0; i < N_KNOWN; i++) {
		owner_name(owner, sizeof(owner), "known", i);
		ck_nfs_status(rsess_establish(&s[i], owner, &fh), NFS4_OK);
		ck_assert_int_eq(records_naming(cur_oid, owner), 1);
	}
	/* a client without state that destroys its client ID */
	owner_name(gone, sizeof(gone), "gone", 0);
	ck_nfs_status(rsess_exchange_id(&d, gone), NFS4_OK);
	ck_nfs_status(rsess_create_session(&d), NFS4_OK);
	ck_nfs_status(rsess_reclaim_complete(&d), NFS4_OK);
	ck_assert_int_eq(records_naming(cur_oid, gone), 1);
	ck_assert_int_eq(records_count(cur_oid), N_KNOWN + 1);
	rs_destroy_client(&d);
	rsess_free(&d);
	ck_assert_int_eq(records_naming(cur_oid, gone), 0);
	ck_assert_int_eq(records_count(cur_oid), N_KNOWN);
	for (i = 0; i < N_KNOWN; i++)
		rsess_free(&s[i]);

	e2e_server_ctl("restart");
	g1 = grace_dump();
	ck_assert_int_eq(g1.cur, g0.cur + 1);
	ck_assert_int_eq(g1.rec, g0.cur);
	ck_assert_msg(strchr(g1.flags, 'N') && strchr(g1.flags, 'E'),
		      "flags during grace: '%s'", g1.flags);
	new_oid = rec_oid(g1.cur);
	ck_assert_msg(object_exists(new_oid), "no %s", new_oid);
	ck_assert_int_eq(records_count(cur_oid), N_KNOWN);

	/* in grace: no new state, no stranger, the known ones reclaim */
	owner_name(owner, sizeof(owner), "stranger", 0);
	rs_after_restart(&b, owner);
	ck_nfs_status(rsess_open(&b, &fh, "oo"), NFS4ERR_GRACE);
	ck_nfs_status(rsess_reclaim(&b, &fh, "oo"), NFS4ERR_NO_GRACE);
	ck_nfs_status(rsess_reclaim_complete(&b), NFS4_OK);
	rsess_free(&b);
	for (i = 0; i < N_KNOWN; i++) {
		owner_name(owner, sizeof(owner), "known", i);
		rs_after_restart(&s[i], owner);
		ck_nfs_status(rsess_reclaim(&s[i], &fh, "oo"), NFS4_OK);
		ck_nfs_status(rsess_reclaim_complete(&s[i]), NFS4_OK);
		ck_assert_int_eq(records_naming(new_oid, owner), 1);
	}
	/* every client is back: the grace ends well before Grace_Period */
	g2 = grace_wait_lifted(30);
	ck_assert_int_eq(g2.cur, g1.cur);
	ck_assert_str_eq(g2.flags, "");
	for (i = 0; i < 100 && object_exists(cur_oid); i++)
		usleep(100 * 1000);
	ck_assert_msg(!object_exists(cur_oid), "%s kept after the grace",
		      cur_oid);
	owner_name(owner, sizeof(owner), "stranger", 1);
	rs_after_restart(&b, owner);
	ck_nfs_status(rsess_open(&b, &fh, "oo"), NFS4_OK);
	rsess_free(&b);
	for (i = 0; i < N_KNOWN; i++)
		rsess_free(&s[i]);
	rados_close();
}
END_TEST

START_TEST(member_only)
{
	struct nfs42_fh fh = rs_shared_file();
	struct rsess s = { 0 };
	char owner[64];

	e2e_server_ctl("stop");
	grace_admin("remove");
	ck_assert(!grace_dump().member);
	ck_assert_int_ne(server_ctl_rc("start"), 0);
	ck_assert_msg(e2e_log_has("Cluster membership check failed"),
		      "no membership message in the log");
	grace_admin("add");
	ck_assert(grace_dump().member);
	e2e_server_ctl("start");
	owner_name(owner, sizeof(owner), "member", 0);
	rs_after_restart(&s, owner);
	rsess_free(&s);
	(void)fh;
}
END_TEST

/*
 * OPENs by b until one's status is (grace) or is not (!grace)
 * NFS4ERR_GRACE, at most seconds; a is renewed on the way (its state must
 * keep working).  The last status.
 */
static int open_until(struct rsess *b, struct rsess *a,
		      const struct nfs42_fh *fh, bool grace, int seconds)
{
	int64_t t0 = e2e_now_ms();
	int rc;

	for (;;) {
		rc = rsess_open(b, fh, "oo");
		if ((rc == NFS4ERR_GRACE) == grace ||
		    e2e_now_ms() - t0 > seconds * 1000LL)
			return rc;
		ck_nfs_status(rsess_renew(a), NFS4_OK);
		usleep(200 * 1000);
	}
}

START_TEST(admin_starts_grace)
{
	struct nfs42_fh fh = rs_shared_file();
	struct rsess a = { 0 }, b = { 0 };
	char owner[64], *cmd;
	const char *grace = e2e_env("NFS42_CEPH_GRACE");
	struct grace g0, g1;
	int64_t t0, t1;

	g0 = grace_wait_lifted(60);
	owner_name(owner, sizeof(owner), "holder", 0);
	ck_nfs_status(rsess_establish(&a, owner, &fh), NFS4_OK);
	owner_name(owner, sizeof(owner), "newcomer", 0);
	rs_after_restart(&b, owner);

	/* another head "failed": it needs a cluster grace period */
	ck_assert_int_gt(asprintf(&cmd, "%s add other && %s start other", grace,
				  grace),
			 0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	t0 = e2e_now_ms();
	g1 = grace_dump();
	ck_assert_int_eq(g1.cur, g0.cur + 1);
	ck_assert_int_eq(g1.rec, g0.cur);
	/* this head hears of it (a RADOS watch): no new state, the old
	 * carries on; and the grace lasts past its own Grace_Period (5 s)
	 * while the other head needs it */
	ck_nfs_status(open_until(&b, &a, &fh, true, 10), NFS4ERR_GRACE);
	ck_nfs_status(open_until(&b, &a, &fh, false, 10), NFS4ERR_GRACE);
	ck_assert_int_ne(grace_dump().rec, 0);

	/* the other head is done: the whole cluster leaves grace */
	ck_assert_int_gt(asprintf(&cmd, "%s lift other", grace), 0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	t1 = e2e_now_ms();
	ck_nfs_status(open_until(&b, &a, &fh, false, 30), NFS4_OK);
	ck_assert_int_eq(grace_wait_lifted(10).cur, g1.cur);
	printf("admin grace: new opens refused %.1f s, %.1f s of it after `lift` (Grace_Period 5 s, Lease_Lifetime 5 s)\n",
	       (e2e_now_ms() - t0) / 1000.0, (e2e_now_ms() - t1) / 1000.0);
	ck_assert_int_gt(asprintf(&cmd, "%s remove other", grace), 0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	rsess_free(&a);
	rsess_free(&b);
}
END_TEST

START_TEST(expired_client_record_gone)
{
	struct nfs42_fh fh = rs_shared_file();
	struct rsess quiet = { 0 }, alive = { 0 };
	char q[64], a[64];
	const char *oid;
	int64_t t0, gone_ms = -1;

	rados_open();
	oid = rec_oid(grace_wait_lifted(60).cur);
	owner_name(q, sizeof(q), "quiet", 0);
	owner_name(a, sizeof(a), "alive", 0);
	ck_nfs_status(rsess_establish(&quiet, q, &fh), NFS4_OK);
	ck_nfs_status(rsess_establish(&alive, a, &fh), NFS4_OK);
	ck_assert_int_eq(records_naming(oid, q), 1);
	t0 = e2e_now_ms();
	/* 3 leases of 4 s: the quiet one's record must go, the other stay */
	while (e2e_now_ms() - t0 < 12000) {
		ck_nfs_status(rsess_renew(&alive), NFS4_OK);
		if (gone_ms < 0 && records_naming(oid, q) == 0)
			gone_ms = e2e_now_ms() - t0;
		usleep(500 * 1000);
	}
	ck_assert_msg(gone_ms >= 0,
		      "the expired client's record is still in %s", oid);
	ck_assert_int_eq(records_naming(oid, a), 1);
	printf("expire: the silent client's record left RADOS after %.1f s (lease 4 s)\n",
	       gone_ms / 1000.0);
	ck_assert_int_ge(gone_ms, 3000);
	rsess_free(&quiet);
	rsess_free(&alive);
	rados_close();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_recovery_rados");
	TCase *tc = tcase_create("records");
	TCase *tc2 = tcase_create("member");
	TCase *tc3 = tcase_create("admin");
	TCase *tc4 = tcase_create("expire");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, records_and_cluster_grace);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tc2, 120);
	tcase_add_test(tc2, member_only);
	suite_add_tcase(s, tc2);
	tcase_set_timeout(tc3, 120);
	tcase_add_test(tc3, admin_starts_grace);
	suite_add_tcase(s, tc3);
	tcase_set_timeout(tc4, 120);
	tcase_add_test(tc4, expired_client_record_gone);
	suite_add_tcase(s, tc4);
	return e2e_run(s);
}
