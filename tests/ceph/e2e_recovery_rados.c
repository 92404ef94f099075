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
#include <pthread.h>
#include "e2e_rados_util.h"
#include "e2e_reclaim_util.h"

/* ---- RADOS: the test's namespace of the Ganesha pool */

static rados_t cluster;
static rados_ioctx_t ioctx;

static void rados_open(void)
{
	e2e_rados_open(&cluster, &ioctx, e2e_env("NFS42_CEPH_POOL"));
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

/*
 * Wait up to seconds for the cluster grace to be over: lifted (rec == 0)
 * and this node no longer enforcing it.  A server leaves a grace period in
 * two steps: rados_grace_lift once its clients are back (rec becomes 0
 * when no node needs grace any more), then, as its own grace ends,
 * rados_grace_enforcing_off (rados_cluster_end_grace).  A dump between
 * the two shows rec 0 with the node's "E" (ceph/rados_cluster_records
 * failed so under load, 1 run in 10: flags "E" after the reclaims).
 */
static struct grace grace_wait_lifted(int seconds)
{
	int64_t t0 = e2e_now_ms();
	struct grace g;

	for (;;) {
		g = grace_dump();
		if (g.rec == 0 && !strchr(g.flags, 'E'))
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

/* ---- failover: two heads over one CephFS (tests/ceph/failover_check.sh) */

#define FO_RANGE 4096 /* the locked range [0, FO_RANGE) of "data" */
#define FO_COMMITTED (1024 * 1024) /* "acked": UNSTABLE + COMMIT */
#define FO_SYNCED (64 * 1024) /* "synced": FILE_SYNC */

static int64_t realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A client of the head at host with owner (a back channel, so that it may
 * be given delegations). */
static struct nfs42_client *fo_client(const char *host, const char *owner)
{
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.host = host;
	o.owner_id = owner;
	ck_nfs_ok(cl, nfs42_client_create(&o, &cl));
	return cl;
}

static void fo_pattern(uint8_t *buf, size_t len, uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)((off + i) * 7 + ((off + i) >> 12));
}

/* WRITE_LT LOCK by a new lock owner; the status, the stateid in *lsid. */
static int fo_lock(struct nfs42_client *cl, const struct nfs42_file *f,
		   uint64_t off, uint64_t len, const char *owner,
		   struct nfs42_stateid *lsid)
{
	struct nfs42_lock_owner lo = { .owner = owner,
				       .owner_len = strlen(owner) };
	struct nfs42_compound *c = e2e_cpd(cl, &f->fh);
	int i = nfs42_op_lock_new(c, WRITE_LT, false, off, len, 0, &f->stateid,
				  0, &lo);

	return e2e_cpd_run_sid(c, i, lsid);
}

/* A connection to the floating address answers again: connect (short
 * timeout: the address may be on no host yet) and EXCHANGE_ID, retried
 * for up to a minute.  The time it was answered. */
static int64_t fo_wait_answer(struct rsess *s, const char *owner)
{
	struct nfs42_opts o;
	int64_t t0 = e2e_now_ms();
	int rc = -1;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.connect_timeout_ms = 300;
	o.timeout_ms = 2000;
	while (e2e_now_ms() - t0 < 60000) {
		rc = nfs42_connect(&o, &s->cl);
		if (!rc)
			rc = rsess_send_exchange_id(s, "failover", owner);
		if (!rc)
			return realtime_ms();
		nfs42_client_free(s->cl);
		s->cl = NULL;
		usleep(50 * 1000);
	}
	ck_abort_msg("the floating address did not answer for 60 s: %s",
		     nfs42_strerror(rc));
	return 0;
}

static void *fo_start_head(void *arg)
{
	(void)arg;
	e2e_server_ctl("start");
	return NULL;
}

/* OPEN CLAIM_PREVIOUS of fh by open owner oo with access, delegation
 * type deleg held before; the reply's stateid and delegation type. */
static int fo_reclaim_open(struct rsess *s, const struct nfs42_fh *fh,
			   const char *oo, uint32_t access, uint32_t deleg,
			   struct nfs42_stateid *sid, uint32_t *deleg_got)
{
	struct nfs42_open_args a = { 0 };
	struct nfs42_compound *c = rsess_cpd(s);
	int oi, rc;

	a.share_access = access;
	a.share_deny = OPEN4_SHARE_DENY_NONE;
	a.owner_clientid = s->clientid;
	a.owner = oo;
	a.owner_len = strlen(oo);
	a.createmode = NFS42_NOCREATE;
	a.claim = CLAIM_PREVIOUS;
	a.delegate_type = deleg;
	nfs42_op_putfh(c, fh);
	oi = nfs42_op_open(c, &a);
	rc = nfs42_compound_run(c);
	if (!rc) {
		*sid = nfs42_res(c, oi)->u.open.stateid;
		*deleg_got = nfs42_res(c, oi)->u.open.deleg_type;
	}
	nfs42_compound_free(c);
	return rc;
}

/* The bytes [off, off + len) of fh read with sid are the pattern. */
static void fo_check_data(struct rsess *s, const struct nfs42_fh *fh,
			  const struct nfs42_stateid *sid, uint64_t off,
			  uint32_t len)
{
	/* the session's replies are at most 64 KiB */
	uint8_t *want = malloc(32768);
	uint32_t done = 0;

	ck_assert_ptr_nonnull(want);
	while (done < len) {
		uint32_t n = len - done < 32768 ? len - done : 32768;
		struct nfs42_compound *c = rsess_cpd(s);
		int ri;

		nfs42_op_putfh(c, fh);
		ri = nfs42_op_read(c, sid, off + done, n);
		ck_nfs_status(nfs42_compound_run(c), NFS4_OK);
		ck_assert_msg(nfs42_res(c, ri)->u.read.len == n,
			      "READ at %" PRIu64 ": %u bytes of %u", off + done,
			      nfs42_res(c, ri)->u.read.len, n);
		fo_pattern(want, n, off + done);
		ck_assert_msg(!memcmp(nfs42_res(c, ri)->u.read.data, want, n),
			      "acknowledged bytes at %" PRIu64
			      " differ after the failover",
			      off + done);
		nfs42_compound_free(c);
		done += n;
	}
	free(want);
}

/* The backing file (through ceph-fuse, as another CephFS client sees it)
 * holds the pattern in [off, off + len). */
static void fo_check_backing(const char *name, uint64_t off, size_t len)
{
	uint8_t *got = malloc(len), *want = malloc(len);
	int fd = open(e2e_backing(name), O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, got, len, off), (ssize_t)len);
	fo_pattern(want, len, off);
	ck_assert_msg(!memcmp(got, want, len),
		      "%s through ceph-fuse: bytes at %" PRIu64 " differ", name,
		      off);
	close(fd);
	free(got);
	free(want);
}

/*
 * (Run by failover_check.sh: NFS42_HOST is head a's floating address,
 * NFS42_HOST_B head b's; the server control's kill9 kills head a, start
 * moves its address to the other host and starts it there.)
 *
 * Before: client x on head a writes "synced" (64 KiB FILE_SYNC) and
 * "acked" (1 MiB UNSTABLE, then COMMIT); no other client touches them,
 * so when the heads cache writes (client_oc) only the FILE_SYNC and the
 * COMMIT make them durable (each seen failing without: nothing left), locks [0, 4 KiB) of "data" and holds a read delegation of
 * "deleg", and writes 1 MiB UNSTABLE to "uncommitted" just before the
 * kill (what is left of it is printed, not checked); client z on head a opens "shared" (it will not
 * come back); client y on head b opens "data" and its LOCK of x's range is
 * NFS4ERR_DENIED (the lock is CephFS's, seen from the other head).
 * Head a is killed (SIGKILL) and started on the other host.
 * During the grace: y's LOCK on head b, conflicting or not, is
 * NFS4ERR_GRACE (RFC 8881 8.4.2: no new locks while others may reclaim,
 * on every head of the cluster); x reclaims its open, its lock and its
 * delegation, and reads back every byte of "synced" and "acked" (through
 * head a and through ceph-fuse).  z does not come back, so the grace runs its
 * full Grace_Period: y's conflicting LOCK then gets NFS4ERR_DENIED (x's
 * reclaimed lock), and once x unlocks it is granted.  z's record is
 * gone from RADOS (the old record object is removed, z is not in the
 * new one) and its reclaim is NFS4ERR_NO_GRACE.  Printed: when the
 * address answered again, when x's state was back, and how long new
 * locks were refused, from the SIGKILL.
 *
 * With a recovery backend without the cluster grace
 * (NFS42_RECOVERY_BACKEND, failover_check.sh's FAILOVER_BACKEND: rados_kv
 * or sqlite) the checks of the grace database and of the record objects
 * are left out, and the case fails where it must: y's LOCK of x's range
 * on head b during head a's grace is granted ("got NFS4_OK (0), want
 * NFS4ERR_GRACE"; seen with both, docs/cluster.md section 5).
 */
START_TEST(failover_state)
{
	const char *host_b = e2e_env("NFS42_HOST_B");
	struct nfs42_client *x, *y;
	struct nfs42_file fa, fs, fx, fd, fy, fu;
	struct nfs42_stateid lx, ly, sid, dsid, asid, ssid;
	struct stat st;
	off_t uncommitted = -1;
	struct rsess rx = { 0 }, rz = { 0 };
	char ox[64], oy[64], oz[64], *name, *cmd;
	const char *old_oid = NULL, *new_oid = NULL;
	uint8_t *buf = malloc(FO_COMMITTED);
	struct nfs42_fh shared;
	struct grace g0 = { 0 }, g1 = { 0 };
	/* the records and the grace database are rados_cluster's; another
	 * backend (FAILOVER_BACKEND) is run to see what fails without them
	 */
	bool cluster =
		!strcmp(e2e_env("NFS42_RECOVERY_BACKEND"), "rados_cluster");
	int64_t t_kill, t_answer, t_reclaimed, t_grace_end, t_granted;
	pthread_t starter;
	uint32_t deleg;
	FILE *f;
	int rc;

	ck_assert_ptr_nonnull(buf);
	rados_open();
	if (cluster) {
		g0 = grace_wait_lifted(60);
		old_oid = rec_oid(g0.cur);
	}
	owner_name(ox, sizeof(ox), "fo-x", 0);
	owner_name(oy, sizeof(oy), "fo-y", 0);
	owner_name(oz, sizeof(oz), "fo-z", 0);

	/* x on head a: data acknowledged, a lock, a delegation */
	x = fo_client(e2e_env("NFS42_HOST"), ox);
	/* without the grace database, head a's own grace (a case before
	 * this one restarted it) is waited for here
	 */
	for (int i = 0;; i++) {
		rc = nfs42_open(x, e2e_path("synced"), OPEN4_SHARE_ACCESS_BOTH,
				GUARDED4, 0644, false, &fs);
		if (cluster || rc != NFS4ERR_GRACE || i >= 600)
			break;
		usleep(100 * 1000);
	}
	ck_nfs_ok(x, rc);
	fo_pattern(buf, FO_SYNCED, 0);
	ck_nfs_ok(x, nfs42_pwrite(&fs, buf, FO_SYNCED, 0, FILE_SYNC4));
	ck_nfs_ok(x, nfs42_open(x, e2e_path("acked"), OPEN4_SHARE_ACCESS_BOTH,
				GUARDED4, 0644, false, &fa));
	fo_pattern(buf, FO_COMMITTED, 0);
	ck_nfs_ok(x, nfs42_pwrite(&fa, buf, FO_COMMITTED, 0, UNSTABLE4));
	ck_nfs_ok(x, nfs42_commit(&fa));
	ck_nfs_ok(x, nfs42_open(x, e2e_path("data"), OPEN4_SHARE_ACCESS_BOTH,
				GUARDED4, 0644, false, &fx));
	ck_nfs_status(fo_lock(x, &fx, 0, FO_RANGE, "lx", &lx), NFS4_OK);
	e2e_put_backing("deleg", "delegated", 9);
	ck_nfs_ok(x, nfs42_open(x, e2e_path("deleg"), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, &fd));
	ck_assert_msg(fd.deleg_type == OPEN_DELEGATE_READ,
		      "OPEN gave delegation type %u (why %u), not READ",
		      fd.deleg_type, fd.why_no_deleg);
	if (cluster)
		ck_assert_int_eq(records_naming(old_oid, ox), 1);

	/* z on head a: will not come back */
	shared = rs_shared_file();
	ck_nfs_status(rsess_establish(&rz, oz, &shared), NFS4_OK);
	rsess_free(&rz);
	if (cluster)
		ck_assert_int_eq(records_naming(old_oid, oz), 1);

	/* y on head b: the lock is the file system's, seen from b */
	y = fo_client(host_b, oy);
	ck_nfs_ok(y, nfs42_open(y, e2e_path("data"), OPEN4_SHARE_ACCESS_BOTH,
				NFS42_NOCREATE, 0, false, &fy));
	ck_nfs_status(fo_lock(y, &fy, 0, FO_RANGE, "ly", &ly), NFS4ERR_DENIED);

	/* written, not committed: kept or not, said below */
	ck_nfs_ok(x, nfs42_open(x, e2e_path("uncommitted"),
				OPEN4_SHARE_ACCESS_BOTH, GUARDED4, 0644, false,
				&fu));
	fo_pattern(buf, FO_COMMITTED, 0);
	ck_nfs_ok(x, nfs42_pwrite(&fu, buf, FO_COMMITTED, 0, UNSTABLE4));

	/* the failover: head a killed, started on the other host while
	 * a client keeps knocking at its address */
	e2e_server_ctl("kill9");
	ck_assert_int_gt(
		asprintf(&name, "%s/killed_at", e2e_env("NFS42_WORK_DIR")), 0);
	f = fopen(name, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%" SCNd64, &t_kill), 1);
	fclose(f);
	free(name);
	nfs42_client_free(x);
	ck_assert_int_eq(pthread_create(&starter, NULL, fo_start_head, NULL),
			 0);
	t_answer = fo_wait_answer(&rx, ox);
	pthread_join(starter, NULL);
	ck_nfs_status(rsess_create_session(&rx), NFS4_OK);

	/* the cluster is in grace: head b refuses y's new locks too */
	if (cluster) {
		g1 = grace_dump();
		ck_assert_int_eq(g1.cur, g0.cur + 1);
		new_oid = rec_oid(g1.cur);
	}
	ck_nfs_status(fo_lock(y, &fy, 0, FO_RANGE, "ly", &ly), NFS4ERR_GRACE);
	ck_nfs_status(fo_lock(y, &fy, 2 * FO_RANGE, FO_RANGE, "ly2", &ly),
		      NFS4ERR_GRACE);

	/* x reclaims its open, lock and delegation and finds its data */
	ck_nfs_status(fo_reclaim_open(&rx, &fx.fh, fx.owner,
				      OPEN4_SHARE_ACCESS_BOTH,
				      OPEN_DELEGATE_NONE, &sid, &deleg),
		      NFS4_OK);
	ck_nfs_status(rs_reclaim_lock(&rx, &fx.fh, &sid, 0, FO_RANGE, "lx",
				      &lx),
		      NFS4_OK);
	ck_nfs_status(fo_reclaim_open(&rx, &fd.fh, fd.owner,
				      OPEN4_SHARE_ACCESS_READ,
				      OPEN_DELEGATE_READ, &dsid, &deleg),
		      NFS4_OK);
	ck_assert_msg(deleg == OPEN_DELEGATE_READ,
		      "reclaimed delegation type %u, not READ", deleg);
	ck_nfs_status(fo_reclaim_open(&rx, &fa.fh, fa.owner,
				      OPEN4_SHARE_ACCESS_BOTH,
				      OPEN_DELEGATE_NONE, &asid, &deleg),
		      NFS4_OK);
	ck_nfs_status(fo_reclaim_open(&rx, &fs.fh, fs.owner,
				      OPEN4_SHARE_ACCESS_BOTH,
				      OPEN_DELEGATE_NONE, &ssid, &deleg),
		      NFS4_OK);
	ck_nfs_status(rsess_reclaim_complete(&rx), NFS4_OK);
	t_reclaimed = realtime_ms();
	fo_check_data(&rx, &fa.fh, &asid, 0, FO_COMMITTED);
	fo_check_backing("acked", 0, FO_COMMITTED);
	fo_check_data(&rx, &fs.fh, &ssid, 0, FO_SYNCED);
	fo_check_backing("synced", 0, FO_SYNCED);
	if (stat(e2e_backing("uncommitted"), &st) == 0)
		uncommitted = st.st_size;
	if (cluster)
		ck_assert_int_eq(records_naming(new_oid, ox), 1);

	/* z is not back: the grace lasts; y waits for it, then meets x's
	 * reclaimed lock */
	for (;;) {
		rc = fo_lock(y, &fy, 0, FO_RANGE, "ly", &ly);
		if (rc != NFS4ERR_GRACE)
			break;
		ck_nfs_status(rsess_renew(&rx), NFS4_OK);
		ck_assert_msg(realtime_ms() - t_kill < 120000,
			      "still in grace 120 s after the failover");
		usleep(100 * 1000);
	}
	t_grace_end = realtime_ms();
	ck_nfs_status(rc, NFS4ERR_DENIED);
	if (cluster)
		ck_assert_int_eq(grace_wait_lifted(30).cur, g1.cur);
	{
		struct nfs42_compound *c = rsess_cpd(&rx);

		nfs42_op_putfh(c, &fx.fh);
		nfs42_op_locku(c, WRITE_LT, 0, &lx, 0, FO_RANGE);
		ck_nfs_status(e2e_cpd_run(c), NFS4_OK);
	}
	ck_nfs_status(fo_lock(y, &fy, 0, FO_RANGE, "ly", &ly), NFS4_OK);
	t_granted = realtime_ms();

	/* z's record is gone from RADOS, and z may not reclaim */
	for (int i = 0; cluster && i < 100 && object_exists(old_oid); i++)
		usleep(100 * 1000);
	if (cluster) {
		ck_assert_msg(!object_exists(old_oid),
			      "%s kept after the grace", old_oid);
		ck_assert_int_eq(records_naming(new_oid, oz), 0);
		ck_assert_int_eq(records_naming(new_oid, ox), 1);
	}
	rs_after_restart(&rz, oz);
	ck_nfs_status(rsess_reclaim(&rz, &shared, "oo"), NFS4ERR_NO_GRACE);
	rsess_free(&rz);

	ck_assert_int_gt(
		asprintf(
			&cmd,
			"failover (Grace_Period %s s, Lease_Lifetime %s s, client_oc %s): the address answered %.1f s after the SIGKILL, the client's state was reclaimed at %.1f s, new locks refused (NFS4ERR_GRACE) until %.1f s on both heads, the conflicting lock granted at %.1f s; 1 MiB written UNSTABLE without COMMIT: %jd bytes left\n",
			e2e_env("NFS42_GRACE_PERIOD"), e2e_env("NFS42_LEASE"),
			e2e_env("NFS42_CLIENT_OC"),
			(t_answer - t_kill) / 1000.0,
			(t_reclaimed - t_kill) / 1000.0,
			(t_grace_end - t_kill) / 1000.0,
			(t_granted - t_kill) / 1000.0, (intmax_t)uncommitted),
		0);
	fputs(cmd, stdout);
	free(cmd);
	nfs42_client_free(y);
	rsess_free(&rx);
	free(buf);
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
	TCase *tc5 = tcase_create("failover");

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
	tcase_set_timeout(tc5, 240);
	tcase_add_test(tc5, failover_state);
	suite_add_tcase(s, tc5);
	return e2e_run(s);
}
