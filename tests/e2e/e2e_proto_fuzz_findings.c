/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Findings of the stateful protocol fuzzer (issue #27 item 6,
 * docs/testing.md "Stateful protocol fuzzing"), each as the exact
 * compound that showed it, against a metadata server with one data
 * server, read and write delegations, NFSv4.0 too:
 *
 * - a stateid of another type than the operation's: CLOSE and
 *   OPEN_DOWNGRADE of a delegation or layout stateid (patch 0161), LOCKU
 *   of an open, delegation or layout stateid (0162), LAYOUTRETURN of an
 *   open or delegation stateid (0163), are NFS4ERR_BAD_STATEID and leave
 *   the states as they were (before, CLOSE walked a layout's segments as
 *   the open's lock states and LAYOUTRETURN a delegation's fields as
 *   segments, and the server died under ASan/UBSan);
 * - an NFSv4.0 LOCK that replays an open stateid as its lock stateid is
 *   NFS4ERR_BAD_STATEID (0162: the open owner's related owner, NULL, was
 *   taken);
 * - an NFSv4.0 LOCK for a new lock owner quoting an NFSv4.1 client's
 *   open stateid with its owner's seqid is NFS4ERR_BAD_SEQID (0168: taken
 *   for a replay with nothing to replay, it went on with a NULL client);
 * - a data server's handle: GETFH gives it back, SEEK and NFSv4.0 READ
 *   refuse it (0160: a NULL object was used);
 * - CLOSE of another client's stateid after its owner closed it is
 *   NFS4ERR_BAD_STATEID, not a replayed close's NFS4_OK (0164);
 * - LAYOUTRETURN of an fsid without a current file handle is
 *   NFS4ERR_NOFILEHANDLE (0167: the request's own op context was released
 *   and left NULL);
 * - an OPEN creating a name the server's cache says is absent, of a file
 *   another client denies, is NFS4ERR_SHARE_DENIED (0165: the directory's
 *   state handle was walked as the file's list of states);
 * - a client restarting (same owner, new verifier) while a delegation of
 *   its old incarnation is recalled and unreturned gets its session at
 *   once, and the other client then its open (0166);
 * - a recall waiting for an NFSv4.0 client's callback channel while a
 *   CB_NULL left unanswered holds it, then takes it down, leaves the
 *   server running (0174: the call was released through a NULL RPC
 *   client).
 *
 * After each step the servers must still answer: a sanitizer report
 * stops them (scripts/test.sh --asan).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e_deleg_util.h"
#include "e2e_v40_util.h"
#include "nfs42_xdr.h"

static const char *uniq(const char *what)
{
	return e2e_deleg_uniq("fzf", what);
}

static int run_free(struct nfs42_compound *c)
{
	int rc = nfs42_compound_run(c);

	nfs42_compound_free(c);
	return rc;
}

/* OPEN by handle (CLAIM_FH) of an existing file for owner. */
static void claim_fh_args(struct nfs42_open_args *oa, uint32_t access,
			  const char *owner)
{
	memset(oa, 0, sizeof(*oa));
	oa->share_access = access;
	oa->owner = owner;
	oa->owner_len = (uint32_t)strlen(owner);
	oa->createmode = NFS42_NOCREATE;
	oa->claim = CLAIM_FH;
}

/* PUTFH fh + one stateful op with sid; the compound's status. */
enum sid_op { SO_CLOSE, SO_DOWNGRADE, SO_LOCKU, SO_LAYOUTRETURN };

static int op_with(struct nfs42_client *cl, const struct nfs42_fh *fh,
		   enum sid_op op, const struct nfs42_stateid *sid)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);

	ck_assert_ptr_nonnull(c);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, fh);
	switch (op) {
	case SO_CLOSE:
		nfs42_op_close(c, 0, sid);
		break;
	case SO_DOWNGRADE:
		nfs42_op_open_downgrade(c, sid, 0, OPEN4_SHARE_ACCESS_READ,
					OPEN4_SHARE_DENY_NONE);
		break;
	case SO_LOCKU:
		nfs42_op_locku(c, WRITE_LT, 0, sid, 0, 1);
		break;
	case SO_LAYOUTRETURN:
		nfs42_op_layoutreturn(c, false, LAYOUT4_NFSV4_1_FILES,
				      LAYOUTIOMODE4_ANY, LAYOUTRETURN4_FILE, 0,
				      NFS42_LENGTH_EOF, sid);
		break;
	}
	return run_free(c);
}

static const char *const op_names[] = { "CLOSE", "OPEN_DOWNGRADE", "LOCKU",
					"LAYOUTRETURN" };

/* Every stateid valid for its client (TEST_STATEID). */
static void ck_valid(struct nfs42_client *cl, const struct nfs42_stateid *sid,
		     const char *what)
{
	uint32_t st;

	ck_nfs_ok(cl, nfs42_test_stateid(cl, sid, &st));
	ck_assert_msg(st == NFS4_OK, "%s stateid after the refusals: %s", what,
		      nfs42_strerror((int)st));
}

/* A fresh client is served (the server did not die). */
static void ck_server_alive(void)
{
	struct nfs42_client *cl = e2e_client();

	nfs42_client_free(cl);
}

/*
 * An open with a read delegation and a layout: each of the three
 * stateids given to the operations of the other types.
 */
START_TEST(t_stateid_of_another_type)
{
	struct nfs42_client *cl = e2e_client_keeping_recalls();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = uniq("type");
	static const struct {
		enum sid_op op;
		int sid; /* 0 open, 1 delegation, 2 layout */
	} wrong[] = {
		{ SO_CLOSE, 1 },	{ SO_CLOSE, 2 },
		{ SO_DOWNGRADE, 1 },	{ SO_DOWNGRADE, 2 },
		{ SO_LOCKU, 0 },	{ SO_LOCKU, 1 },
		{ SO_LOCKU, 2 },	{ SO_LAYOUTRETURN, 0 },
		{ SO_LAYOUTRETURN, 1 },
	};
	static const char *const sid_names[] = { "open", "delegation",
						 "layout" };
	struct nfs42_stateid sids[3];
	struct nfs42_file f;
	unsigned int i;

	ck_assert_ptr_nonnull(lo);
	e2e_put_backing(name, "stateid types", 13);
	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				 NFS42_NOCREATE, 0, false, &f));
	ck_assert_uint_eq(f.deleg_type, OPEN_DELEGATE_READ);
	ck_nfs_ok(cl, nfs42_layout_get(&f, LAYOUTIOMODE4_READ, lo));
	sids[0] = f.stateid;
	sids[1] = f.deleg_stateid;
	sids[2] = lo->stateid;
	for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		int rc = op_with(cl, &f.fh, wrong[i].op, &sids[wrong[i].sid]);

		ck_assert_msg(rc == NFS4ERR_BAD_STATEID,
			      "%s with the %s stateid: %s, not "
			      "NFS4ERR_BAD_STATEID",
			      op_names[wrong[i].op], sid_names[wrong[i].sid],
			      nfs42_strerror(rc));
		ck_server_alive();
	}
	for (i = 0; i < 3; i++)
		ck_valid(cl, &sids[i], sid_names[i]);
	/* each with its own stateid, in order */
	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_delegreturn(cl, &f.fh, &f.deleg_stateid));
	ck_nfs_ok(cl, nfs42_close(&f));
	free(lo);
	nfs42_client_free(cl);
}
END_TEST

/* Client A's stateid after A closed it, closed by B: not B's to close. */
START_TEST(t_close_gone_stateid_of_another_client)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = uniq("gone");
	struct nfs42_stateid sid;
	struct nfs42_file f;
	int rc;

	e2e_put_backing(name, "gone", 4);
	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, &f));
	sid = f.stateid;
	ck_nfs_ok(a, nfs42_close(&f));
	rc = op_with(b, &f.fh, SO_CLOSE, &sid);
	ck_assert_msg(rc == NFS4ERR_BAD_STATEID,
		      "B's CLOSE of A's closed stateid: %s, not "
		      "NFS4ERR_BAD_STATEID",
		      nfs42_strerror(rc));
	nfs42_client_free(b);
	nfs42_client_free(a);
}
END_TEST

/*
 * A data server's handle: GETFH gives it back; SEEK with the anonymous
 * stateid is NFS4ERR_INVAL (no object to seek in).  A file handle of the
 * data server in NFSv4.0: READ is NFS4ERR_INVAL.
 */
START_TEST(t_data_server_handle)
{
	struct nfs42_client *cl = e2e_client(), *ds;
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = uniq("dsfh");
	struct nfs42_stateid anon = { 0 };
	struct nfs42_compound *c;
	const struct nfs42_res *r;
	struct nfs42_file f;
	int rc, idx;

	ck_assert_ptr_nonnull(lo);
	e2e_put_backing(name, "data server handle", 18);
	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				 NFS42_NOCREATE, 0, false, &f));
	ck_nfs_ok(cl, nfs42_layout_get(&f, LAYOUTIOMODE4_READ, lo));
	ck_nfs_ok(cl, nfs42_ds_client(cl, lo, 0, &ds));

	c = nfs42_compound_new(ds);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, &lo->fhs[0]);
	idx = nfs42_op_getfh(c);
	rc = nfs42_compound_run(c);
	ck_assert_msg(rc == 0, "GETFH of a data server's handle: %s",
		      nfs42_strerror(rc));
	r = nfs42_res(c, idx);
	ck_assert_uint_eq(r->u.fh.len, lo->fhs[0].len);
	ck_assert_int_eq(memcmp(r->u.fh.data, lo->fhs[0].data, lo->fhs[0].len),
			 0);
	nfs42_compound_free(c);

	c = nfs42_compound_new(ds);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, &lo->fhs[0]);
	nfs42_op_seek(c, &anon, 0, NFS4_CONTENT_DATA);
	rc = run_free(c);
	ck_assert_msg(rc == NFS4ERR_INVAL,
		      "SEEK on a data server's handle: %s, not NFS4ERR_INVAL",
		      nfs42_strerror(rc));

	/* the data server still serves the handle */
	c = nfs42_compound_new(ds);
	nfs42_op_putfh(c, &lo->fhs[0]);
	nfs42_op_read(c, &lo->stateid, 0, 4);
	ck_nfs_ok(ds, run_free(c));

	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_close(&f));
	free(lo);
	nfs42_client_free(cl);
}
END_TEST

/*
 * LAYOUTRETURN of an fsid with no current file handle: refused by the file
 * handle check (NFS4ERR_NOFILEHANDLE), and the compound goes on (GETATTR
 * after it is not reached, a new compound is served).  The server released
 * the request's own op context then, and the end of the op read it NULL.
 */
START_TEST(t_layoutreturn_fsid_without_fh)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_compound *c;
	int rc;

	c = nfs42_compound_new(cl);
	ck_assert_ptr_nonnull(c);
	nfs42_compound_no_retry(c);
	nfs42_op_layoutreturn(c, false, LAYOUT4_NFSV4_1_FILES,
			      LAYOUTIOMODE4_ANY, LAYOUTRETURN4_FSID, 0,
			      NFS42_LENGTH_EOF, NULL);
	rc = run_free(c);
	ck_assert_msg(rc == NFS4ERR_NOFILEHANDLE,
		      "LAYOUTRETURN of an fsid without a file handle: %s, not "
		      "NFS4ERR_NOFILEHANDLE",
		      nfs42_strerror(rc));
	ck_server_alive();
	c = nfs42_compound_new(cl);
	nfs42_op_putrootfh(c);
	nfs42_op_getfh(c);
	ck_nfs_ok(cl, run_free(c));
	nfs42_client_free(cl);
}
END_TEST

/* ----------------------------------------------------------- NFSv4.0 */

/* PUTFH dir + OPEN name for reading by the open owner of v40_open (its
 * next seqid): the compound, run and NFS4_OK; the OPEN's index in *oidx.
 */
static struct nfs42_compound *v40_open_run(struct v40 *v,
					   const struct nfs42_fh *dir,
					   const char *name, int *oidx)
{
	return v40_open_name(v, "fzf-v40-open-owner", dir, name,
			     OPEN4_SHARE_ACCESS_READ, oidx);
}

/* OPEN name for reading + OPEN_CONFIRM: the confirmed open stateid
 * (seqid 2) in *sid, the file's handle in *fh. */
static void v40_open(struct v40 *v, const struct nfs42_fh *dir,
		     const char *name, struct nfs42_fh *fh,
		     struct nfs42_stateid *sid)
{
	struct nfs42_compound *c;
	int oidx;

	c = v40_open_run(v, dir, name, &oidx);
	*sid = nfs42_res(c, oidx)->u.open.stateid;
	*fh = nfs42_res(c, oidx + 1)->u.fh;
	nfs42_compound_free(c);
	v40_open_confirm(v, fh, sid);
}

/* OPEN name for reading again, by the owner v40_open confirmed (a
 * confirmed owner may be given a delegation): the delegation type. */
static uint32_t v40_reopen(struct v40 *v, const struct nfs42_fh *dir,
			   const char *name)
{
	struct nfs42_compound *c;
	uint32_t deleg;
	int oidx;

	c = v40_open_run(v, dir, name, &oidx);
	deleg = nfs42_res(c, oidx)->u.open.deleg_type;
	nfs42_compound_free(c);
	return deleg;
}

/*
 * NFSv4.0 LOCK of an existing lock owner quoting the open stateid one
 * generation back with the open owner's last seqid: what the server
 * takes for a replay.  Not a lock stateid: NFS4ERR_BAD_STATEID.
 */
START_TEST(t_v40_lock_replay_of_open_stateid)
{
	const char *name = uniq("v40lock");
	struct nfs42_stateid sid, old;
	struct nfs42_fh dir, fh;
	struct nfs42_compound *c;
	struct v40 v = { 0 };
	int rc;

	e2e_put_backing(name, "lock replay", 11);
	v40_connect(&v, (uint16_t)atoi(e2e_env("NFS42_PORT")));
	v40_export_fh(&v, &dir);
	v40_open(&v, &dir, name, &fh, &sid);
	old = sid;
	old.seqid--;
	c = v40_compound(&v);
	nfs42_op_putfh(c, &fh);
	nfs42_op_lock_existing(c, READ_LT, false, 0, 1, &old, v.seqid - 1);
	rc = run_free(c);
	ck_assert_msg(rc == NFS4ERR_BAD_STATEID,
		      "LOCK replaying the open stateid: %s, not "
		      "NFS4ERR_BAD_STATEID",
		      nfs42_strerror(rc));
	ck_server_alive();
	nfs42_client_free(v.cl);
}
END_TEST

/*
 * NFSv4.0 LOCK for a new lock owner quoting an NFSv4.1 client's open
 * stateid (an NFSv4.0 stateid names its client; the 4.1 owner keeps no
 * seqid and no saved reply) with that owner's seqid, 0: the server takes
 * it for a possible replay, finds no reply to replay and went on as for
 * a new request with no client (a NULL client record in
 * create_nfs4_owner: the server died).  Not a replay: NFS4ERR_BAD_SEQID.
 */
START_TEST(t_v40_lock_new_owner_v41_open_stateid)
{
	static const char lo_name[] = "fzf-v40-lock-owner";
	struct nfs42_client *cl = e2e_client();
	const char *name = uniq("v40v41");
	struct nfs42_lock_owner lo;
	struct nfs42_compound *c;
	struct nfs42_file f;
	struct v40 v = { 0 };
	int rc;

	e2e_put_backing(name, "v41 open", 8);
	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				 NFS42_NOCREATE, 0, false, &f));
	v40_connect(&v, (uint16_t)atoi(e2e_env("NFS42_PORT")));
	lo.clientid = v.clientid;
	lo.owner = lo_name;
	lo.owner_len = sizeof(lo_name) - 1;
	c = v40_compound(&v);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_lock_new(c, READ_LT, false, 0, 1, 0, &f.stateid, 0, &lo);
	rc = run_free(c);
	ck_assert_msg(rc == NFS4ERR_BAD_SEQID,
		      "NFSv4.0 LOCK with an NFSv4.1 open stateid: %s, not "
		      "NFS4ERR_BAD_SEQID",
		      nfs42_strerror(rc));
	ck_server_alive();
	nfs42_client_free(v.cl);
	ck_nfs_ok(cl, nfs42_close(&f));
	nfs42_client_free(cl);
}
END_TEST

/* NFSv4.0 READ on a data server's handle, to the data server. */
START_TEST(t_v40_read_data_server_handle)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = uniq("v40ds");
	struct nfs42_stateid anon = { 0 };
	struct nfs42_compound *c;
	struct nfs42_file f;
	struct v40 v = { 0 };
	char host[64];
	uint16_t port;
	int rc;

	ck_assert_ptr_nonnull(lo);
	e2e_put_backing(name, "v40 on a ds handle", 18);
	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				 NFS42_NOCREATE, 0, false, &f));
	ck_nfs_ok(cl, nfs42_layout_get(&f, LAYOUTIOMODE4_READ, lo));
	ck_assert_int_eq(nfs42_uaddr_split(lo->ds[0].addr[0].uaddr, host,
					   sizeof(host), &port),
			 0);
	v40_connect(&v, port);
	c = v40_compound(&v);
	nfs42_op_putfh(c, &lo->fhs[0]);
	nfs42_op_read(c, &anon, 0, 4);
	rc = run_free(c);
	ck_assert_msg(rc == NFS4ERR_INVAL,
		      "NFSv4.0 READ of a data server's handle: %s, not "
		      "NFS4ERR_INVAL",
		      nfs42_strerror(rc));
	nfs42_client_free(v.cl);
	/* the data server is alive */
	c = nfs42_compound_new(cl);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_getfh(c);
	ck_nfs_ok(cl, run_free(c));
	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_close(&f));
	free(lo);
	nfs42_client_free(cl);
}
END_TEST

/* ------------------------------------------------ OPEN create, refused */

/* OPEN by name of dir's name with share access, deny and createmode. */
static int open_in(struct nfs42_client *cl, const struct nfs42_fh *dir,
		   const char *name, uint32_t access, uint32_t deny,
		   int createmode, struct nfs42_stateid *sid)
{
	static const char owner[] = "fzf-open-in";
	struct nfs42_compound *c = nfs42_compound_new(cl);
	struct nfs42_open_args oa;
	int rc, idx;

	ck_assert_ptr_nonnull(c);
	nfs42_compound_no_retry(c);
	memset(&oa, 0, sizeof(oa));
	oa.share_access = access | OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	oa.share_deny = deny;
	oa.owner = owner;
	oa.owner_len = sizeof(owner) - 1;
	oa.createmode = createmode;
	oa.claim = CLAIM_NULL;
	oa.name = name;
	nfs42_op_putfh(c, dir);
	idx = nfs42_op_open(c, &oa);
	rc = nfs42_compound_run(c);
	if (rc == 0 && sid)
		*sid = nfs42_res(c, idx)->u.open.stateid;
	nfs42_compound_free(c);
	return rc;
}

static int count_entry(void *arg, const struct nfs42_dirent *e)
{
	(void)e;
	++*(int *)arg;
	return 0;
}

/* PUTROOTFH (after SEQUENCE): renews the client's lease. */
static void ping(struct nfs42_client *cl)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);

	nfs42_op_putrootfh(c);
	ck_nfs_ok(cl, run_free(c));
}

/*
 * An OPEN that is to create a name the server believes absent, while the
 * file is there and another client denies it, with an expired client
 * kept for delayed cleanup (courtesy) somewhere: what two clients
 * creating one name at once meet beside a vanished client, which the
 * fuzzer found; made certain here with the export's
 * Trust_Readdir_Negative_Cache.  C opens a file and vanishes; B holds "x"
 * open with DENY_BOTH; A lists the directory (the server's cache of it is
 * then complete, and trusted for a name missing from it); "y" is made a
 * hard link of "x" on the server's disk; once C's lease has run out, A's
 * OPEN of "y" with UNCHECKED4 creation finds no "y" by lookup, opens the
 * file by name and is refused (NFS4ERR_SHARE_DENIED).  The server then
 * looked for the expired client's states in the directory's state handle
 * as if it were the file's (a NULL list head).  Run alone, with a 4 s
 * lease (e2e_proto_fuzz_findings_courtesy).
 */
#define COURTESY_LEASE_S 4 /* Lease_Lifetime of _courtesy (protocols.cmake) */
START_TEST(t_open_create_share_denied)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	struct nfs42_client *c = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, -1);
	const char *dname = uniq("mkd"), *cname = uniq("courtesy");
	struct nfs42_file cf;
	struct nfs42_fh dir;
	int64_t lapse;
	char *x, *y;
	int rc, n = 0;

	e2e_put_backing(cname, "c", 1);
	ck_nfs_ok(c, nfs42_open(c, e2e_path(cname), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, &cf));
	lapse = e2e_now_ms() + 3 * 1000 * COURTESY_LEASE_S;
	ck_assert_int_eq(mkdir(e2e_backing(dname), 0777), 0);
	ck_assert_int_gt(asprintf(&x, "%s/x", dname), 0);
	ck_assert_int_gt(asprintf(&y, "%s/y", dname), 0);
	e2e_put_backing(x, "held", 4);
	ck_nfs_ok(a, nfs42_lookup_path(a, e2e_path(dname), &dir, NULL));
	ck_nfs_ok(b, open_in(b, &dir, "x", OPEN4_SHARE_ACCESS_BOTH,
			     OPEN4_SHARE_DENY_BOTH, NFS42_NOCREATE, NULL));
	ck_nfs_ok(a, nfs42_readdir_fh(a, &dir, &bm, count_entry, &n));
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(link(e2e_backing(x), e2e_backing(y)), 0);
	while (e2e_now_ms() < lapse) { /* C expires; A and B do not */
		ping(a);
		ping(b);
		usleep(500 * 1000);
	}
	rc = open_in(a, &dir, "y", OPEN4_SHARE_ACCESS_READ,
		     OPEN4_SHARE_DENY_NONE, UNCHECKED4, NULL);
	ck_assert_msg(rc == NFS4ERR_SHARE_DENIED,
		      "A's OPEN creating y, a link of B's DENY_BOTH x: %s, not "
		      "NFS4ERR_SHARE_DENIED",
		      nfs42_strerror(rc));
	ck_server_alive();
	free(x);
	free(y);
	nfs42_client_free(a);
	nfs42_client_free(b);
	nfs42_client_free(c);
}
END_TEST

/* ------------------------------------------- open for writing by mode */

/* A file only root may write and group 1001 may or may not read,
 * made behind the server (the server has not seen it yet). */
static const char *locked_file(const char *what, mode_t mode)
{
	const char *name = uniq(what);
	char *path = e2e_backing(name);

	e2e_put_backing(name, "locked", 6);
	ck_assert_int_eq(chown(path, 0, 1001), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
	return name;
}

static struct nfs42_client *client_1001(void)
{
	struct nfs42_client *cl = e2e_client();

	nfs42_set_cred(cl, 1001, 1001, 0, NULL);
	return cl;
}

/* OPEN (CLAIM_FH) of fh for writing, as a compound of its own. */
static int open_fh_for_writing(struct nfs42_client *cl,
			       const struct nfs42_fh *fh, const char *owner)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	struct nfs42_open_args oa;

	ck_assert_ptr_nonnull(c);
	claim_fh_args(&oa, OPEN4_SHARE_ACCESS_WRITE, owner);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, fh);
	nfs42_op_open(c, &oa);
	return run_free(c);
}

#define ck_access(rc, what)                                                   \
	ck_assert_msg((rc) == NFS4ERR_ACCESS,                                 \
		      "%s: %s, not NFS4ERR_ACCESS (knfsd, RFC 8881 18.16.3)", \
		      what, nfs42_strerror(rc))

/*
 * uid 1001 opening for writing a file of mode 0400 (or 0440) owned by
 * 0:1001 is NFS4ERR_ACCESS, whatever the way: by name (CLAIM_NULL) or by
 * handle (CLAIM_FH), in the fuzzer's compound after an OPEN of another
 * file that gave it a write delegation, while it holds a read delegation
 * of the file itself, and after the mode was taken away through the
 * server from a file it had open for writing (and its delegation given
 * back).  The fuzzer's permission findings
 * (regress/chmod-through-link-seed1.trace, -seed10.trace) were a chmod
 * behind the server's attribute cache that its checker had not counted
 * (made through the symbolic link l0); this is what the server does with
 * a mode it knows.
 */
START_TEST(t_open_for_writing_refused_by_mode)
{
	struct nfs42_client *u = client_1001(), *root = e2e_client();
	struct nfs42_compound *c;
	struct nfs42_open_args oa;
	struct nfs42_stateid anon;
	struct nfs42_sattr sa;
	struct nfs42_file f, g;
	struct nfs42_fh fh, other_fh;
	const char *name, *other;
	int rc;

	/* by name and by handle, a mode the server learns at the lookup */
	name = locked_file("m0400", 0400);
	rc = nfs42_open(u, e2e_path(name), OPEN4_SHARE_ACCESS_WRITE,
			NFS42_NOCREATE, 0, false, &f);
	ck_access(rc, "OPEN (CLAIM_NULL) for writing of 0400 0:1001");
	ck_nfs_ok(u, nfs42_lookup_path(u, e2e_path(name), &fh, NULL));
	ck_access(open_fh_for_writing(u, &fh, "u-owner"),
		  "OPEN (CLAIM_FH) for writing of 0400 0:1001");

	/* the fuzzer's compound: first a write delegation of a file it may
	 * write, then the locked one by handle */
	other = uniq("m0666");
	e2e_put_backing(other, "open", 4);
	ck_assert_int_eq(chmod(e2e_backing(other), 0666), 0);
	ck_nfs_ok(u, nfs42_lookup_path(u, e2e_path(other), &other_fh, NULL));
	ck_nfs_ok(u, nfs42_open_fh(u, &other_fh, OPEN4_SHARE_ACCESS_BOTH, &g));
	ck_assert_uint_eq(g.deleg_type, OPEN_DELEGATE_WRITE);
	claim_fh_args(&oa, OPEN4_SHARE_ACCESS_BOTH, "u-owner");
	c = nfs42_compound_new(u);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, &other_fh);
	nfs42_op_open(c, &oa);
	nfs42_op_putfh(c, &fh);
	oa.share_access = OPEN4_SHARE_ACCESS_WRITE;
	nfs42_op_open(c, &oa);
	ck_access(run_free(c), "OPEN (CLAIM_FH) after a write delegation");

	/* holding a read delegation of the file */
	name = locked_file("m0440", 0440);
	ck_nfs_ok(u, nfs42_open(u, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, &f));
	ck_assert_uint_eq(f.deleg_type, OPEN_DELEGATE_READ);
	ck_access(open_fh_for_writing(u, &f.fh, "u-owner"),
		  "OPEN (CLAIM_FH) for writing under a read delegation");
	ck_access(
		open_fh_for_writing(u, &f.fh, "u-other-owner"),
		"OPEN (CLAIM_FH) for writing by another owner under a read delegation");
	ck_nfs_ok(u, nfs42_close(&f));

	/* writable, opened for writing, then 0400 through the server */
	name = locked_file("m0660", 0660);
	ck_nfs_ok(u, nfs42_open(u, e2e_path(name), OPEN4_SHARE_ACCESS_WRITE,
				NFS42_NOCREATE, 0, false, &f));
	ck_nfs_ok(u, nfs42_close(&f));
	if (f.deleg_type != OPEN_DELEGATE_NONE) /* the chmod would recall it */
		ck_nfs_ok(u, nfs42_delegreturn(u, &f.fh, &f.deleg_stateid));
	memset(&anon, 0, sizeof(anon));
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0400);
	c = nfs42_compound_new(root);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_setattr(c, &anon, &sa);
	ck_nfs_ok(root, run_free(c));
	ck_access(open_fh_for_writing(u, &f.fh, "u-owner"),
		  "OPEN (CLAIM_FH) for writing after a chmod 0400 over NFS");

	ck_nfs_ok(u, nfs42_close(&g));
	nfs42_client_free(root);
	nfs42_client_free(u);
}
END_TEST

/* ------------------------------------------------------ client restart */

static struct nfs42_client *client_as(const char *owner)
{
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.owner_id = owner;
	o.keep_recalls = true;
	ck_nfs_ok(cl, nfs42_client_create(&o, &cl));
	return cl;
}

/*
 * A holds a write delegation; B's OPEN recalls it; A keeps it (never
 * answers, as a client that crashed).  A restarts (same owner, new
 * verifier): its EXCHANGE_ID and CREATE_SESSION are answered at once
 * (RFC 8881 18.35.5 case 5: the old incarnation's state goes when the
 * new one is confirmed), and B's OPEN then succeeds.
 */
START_TEST(t_restart_with_recalled_delegation)
{
	const char *name = uniq("restart");
	const char *owner = uniq("owner");
	struct nfs42_client *a = client_as(owner), *a2, *b = e2e_client();
	struct nfs42_compound *c;
	struct nfs42_open_args oa;
	struct nfs42_file f, fb;
	int64_t t0, took;
	int rc;

	e2e_put_backing(name, "restart", 7);
	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				NFS42_NOCREATE, 0, false, &f));
	ck_assert_uint_eq(f.deleg_type, OPEN_DELEGATE_WRITE);

	claim_fh_args(&oa, OPEN4_SHARE_ACCESS_WRITE, "b-owner");
	c = nfs42_compound_new(b);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_open(c, &oa);
	rc = run_free(c);
	ck_assert_msg(rc == NFS4ERR_DELAY, "B's OPEN: %s, not NFS4ERR_DELAY",
		      nfs42_strerror(rc));
	/* the recall reached A, which keeps the delegation */
	ck_assert_int_ge(nfs42_poll(a, 5000), 1);
	ck_assert_uint_eq(nfs42_recalls_received(a), 1);

	t0 = e2e_now_ms();
	a2 = client_as(owner);
	took = e2e_now_ms() - t0;
	ck_assert_msg(took < 5000,
		      "the restarted client waited %lld ms for its session",
		      (long long)took);
	/* the old incarnation's delegation is gone: B opens */
	ck_nfs_ok(b, nfs42_open_fh(b, &f.fh, OPEN4_SHARE_ACCESS_WRITE, &fb));
	ck_nfs_ok(b, nfs42_close(&fb));
	nfs42_client_free(a2);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* ----------------------------------- an NFSv4.0 client's callbacks */

struct v40_confirm_call {
	struct v40 *v;
	uint8_t confirm[8];
	int status;
};

static void *v40_confirm_thread(void *arg)
{
	struct v40_confirm_call *k = arg;

	k->status = v40_confirm(k->v, k->confirm);
	return NULL;
}

/*
 * An NFSv4.0 client's callback channel taken down while a recall waits
 * for it.  A holds a read delegation (its callback service answered the
 * CB_NULL of its SETCLIENTID_CONFIRM).  A sets its callback again
 * (SETCLIENTID, same verifier) and confirms, and this time the service
 * leaves the server's CB_NULL unanswered: that call holds the channel
 * for its timeout, then takes the channel down.  B's OPEN for writing
 * meanwhile recalls A's delegation: the recall found the channel up and
 * waits for it; then it finds no RPC client (NFSv4.1's back channels
 * too, when a failed call takes theirs down), and the call it freed was
 * released through that NULL client (SIGSEGV in ntirpc's
 * clnt_req_reset, at address 0x68; fuzz_stateful seed 1 in CI; patch
 * 0174).  The server must go on answering.
 */
START_TEST(t_v40_recall_while_channel_goes_down)
{
	const char *name = uniq("v40cbdown");
	struct v40_confirm_call k = { 0 };
	struct nfs42_client *b;
	struct nfs42_compound *c;
	struct nfs42_open_args oa;
	struct nfs42_stateid sid;
	struct nfs42_fh dir, fh;
	struct v40 a = { 0 };
	char uaddr[64], owner[64];
	struct cb40 cb;
	uint32_t deleg;
	pthread_t t;
	int i, rc;

	e2e_put_backing(name, "cbdown", 6);
	cb40_start(&cb);
	snprintf(uaddr, sizeof(uaddr), "127.0.0.1.%u.%u", cb.port >> 8,
		 cb.port & 255);
	snprintf(owner, sizeof(owner), "fzf-v40cb-%d", (int)getpid());
	v40_dial(&a, (uint16_t)atoi(e2e_env("NFS42_PORT")));
	v40_setclientid(&a, owner, uaddr, k.confirm);
	ck_nfs_ok(a.cl, v40_confirm(&a, k.confirm));
	ck_assert_int_ge(atomic_load(&cb.nulls), 1);
	v40_export_fh(&a, &dir);
	v40_open(&a, &dir, name, &fh, &sid);
	deleg = v40_reopen(&a, &dir, name);
	ck_assert_msg(deleg == OPEN_DELEGATE_READ,
		      "A's OPEN: delegation type %u, not a read delegation",
		      deleg);

	/* the service stops answering; A sets its callback again */
	atomic_store(&cb.answer, 0);
	v40_setclientid(&a, owner, uaddr, k.confirm);
	k.v = &a;
	ck_assert_int_eq(pthread_create(&t, NULL, v40_confirm_thread, &k), 0);
	/* the confirm's CB_NULL reached the service: it holds the channel */
	for (i = 0; i < 200 && atomic_load(&cb.nulls) < 2; i++)
		usleep(25000);
	ck_assert_int_ge(atomic_load(&cb.nulls), 2);

	/* B's OPEN for writing recalls A's delegation */
	b = e2e_client();
	claim_fh_args(&oa, OPEN4_SHARE_ACCESS_WRITE, "b-owner");
	c = nfs42_compound_new(b);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, &fh);
	nfs42_op_open(c, &oa);
	rc = run_free(c);
	ck_assert_msg(rc == NFS4ERR_DELAY, "B's OPEN: %s, not NFS4ERR_DELAY",
		      nfs42_strerror(rc));

	/* the CB_NULL timed out: the channel is down, the recall went on */
	pthread_join(t, NULL);
	ck_assert_msg(k.status == NFS4_OK, "A's SETCLIENTID_CONFIRM: %s",
		      nfs42_strerror(k.status));
	for (i = 0; i < 4; i++) {
		usleep(250000);
		ck_server_alive();
	}
	nfs42_client_free(b);
	nfs42_client_free(a.cl);
	cb40_stop(&cb);
}
END_TEST

/* ------------------------------------------------ IO_ADVISE, CLOSE */

/* PUTFH fh, IO_ADVISE (RFC 7862 15.5) of the whole file with sid and
 * hints (one word); the compound's status.  Encoded by hand: the
 * library has no IO_ADVISE.
 */
static int io_advise(struct nfs42_client *cl, const struct nfs42_fh *fh,
		     const struct nfs42_stateid *sid, uint32_t hints)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	uint8_t args[44];
	uint32_t w;

	ck_assert_ptr_nonnull(c);
	nfs42_compound_no_retry(c);
	w = htonl(OP_IO_ADVISE);
	memcpy(args, &w, 4);
	w = htonl(sid->seqid);
	memcpy(args + 4, &w, 4);
	memcpy(args + 8, sid->other, NFS4_OTHER_SIZE);
	memset(args + 20, 0, 8); /* offset 0 */
	memset(args + 28, 0xff, 8); /* count: to the end */
	w = htonl(1);
	memcpy(args + 36, &w, 4);
	w = htonl(hints);
	memcpy(args + 40, &w, 4);
	nfs42_op_putfh(c, fh);
	nfs42_op_raw(c, OP_IO_ADVISE, args, sizeof(args));
	return run_free(c);
}

/*
 * IO_ADVISE with an open stateid, then CLOSE of the open: 6.5 kept the
 * hints in the state's type-specific data, over the low half of the
 * open's list head of lock states, and CLOSE walked the wild pointer
 * (the server died; fuzz_stateful's post-fix hour run).  Patch 0241.
 */
START_TEST(t_io_advise_then_close)
{
	/* none, and IO_ADVISE4_SEQUENTIAL (RFC 7862 15.5.2: bit 1) */
	static const uint32_t hints[] = { 0, 1u << 1 };
	struct nfs42_client *cl = e2e_client();
	const char *name = uniq("advise");
	struct nfs42_file f;
	unsigned int i;
	int rc;

	e2e_put_backing(name, "io advise", 9);
	for (i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		ck_nfs_ok(cl,
			  nfs42_open(cl, e2e_path(name),
				     OPEN4_SHARE_ACCESS_BOTH |
					     OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
				     NFS42_NOCREATE, 0, false, &f));
		rc = io_advise(cl, &f.fh, &f.stateid, hints[i]);
		ck_assert_msg(rc == NFS4_OK,
			      "IO_ADVISE with the open stateid: %s",
			      nfs42_strerror(rc));
		rc = nfs42_close(&f);
		ck_assert_msg(rc == NFS4_OK,
			      "CLOSE after IO_ADVISE (hints 0x%x): %s",
			      hints[i], nfs42_strerror(rc));
		ck_server_alive();
	}
	nfs42_client_free(cl);
}
END_TEST

/* With an argument: that test alone (a test that stops the server would
 * fail the ones after it); without, all but those marked alone. */
int main(int argc, char **argv)
{
	const struct {
		const char *name;
		const TTest *test;
		int alone; /* run only when named (its own server settings) */
	} tests[] = {
		{ "stateid_of_another_type", t_stateid_of_another_type, 0 },
		{ "close_gone_stateid_of_another_client",
		  t_close_gone_stateid_of_another_client, 0 },
		{ "data_server_handle", t_data_server_handle, 0 },
		{ "layoutreturn_fsid_without_fh",
		  t_layoutreturn_fsid_without_fh, 0 },
		{ "v40_lock_replay_of_open_stateid",
		  t_v40_lock_replay_of_open_stateid, 0 },
		{ "v40_lock_new_owner_v41_open_stateid",
		  t_v40_lock_new_owner_v41_open_stateid, 0 },
		{ "v40_read_data_server_handle", t_v40_read_data_server_handle,
		  0 },
		{ "open_create_share_denied", t_open_create_share_denied, 1 },
		{ "restart_with_recalled_delegation",
		  t_restart_with_recalled_delegation, 0 },
		{ "open_for_writing_refused_by_mode",
		  t_open_for_writing_refused_by_mode, 0 },
		{ "v40_recall_while_channel_goes_down",
		  t_v40_recall_while_channel_goes_down, 0 },
		{ "io_advise_then_close", t_io_advise_then_close, 0 },
	};
	Suite *s = suite_create("e2e_proto_fuzz_findings");
	TCase *tc = tcase_create("findings");
	unsigned int i;

	tcase_set_timeout(tc, 90);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (argc < 2 ? !tests[i].alone :
			       !strcmp(argv[1], tests[i].name))
			tcase_add_test(tc, tests[i].test);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
