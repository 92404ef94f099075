/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * OPEN with a delegation claim (CLAIM_DELEGATE_CUR, CLAIM_DELEG_CUR_FH;
 * RFC 8881 18.16.3, RFC 7530 16.16.5) names a delegation stateid: only the
 * caller's own delegation on the file it opens lets it through, as knfsd
 * (nfs4_check_deleg) checks.  Anything else (an open stateid, another
 * client's delegation, the caller's delegation of another file) is
 * NFS4ERR_BAD_STATEID, and the file's delegation holder keeps its
 * delegation, its lease and its data: issue #27 item 1, where any client
 * got NFS4_OK, opened the file past the holder's write delegation with
 * the holder's lease descriptor and wrote to disk, and nobody was
 * recalled.  A write open under a read delegation is NFS4ERR_OPENMODE
 * (knfsd's nfs4_check_delegmode).  CLAIM_DELEGATE_PREV and
 * CLAIM_DELEG_PREV_FH stay unsupported.  Export Delegations = RW, NFSv4.0
 * on (SPARSE_MINOR_VERSIONS) for the NFSv4.0 CLAIM_DELEGATE_CUR case and
 * for an NFSv4.0 holder's own second open (patch 0124), which needs an
 * NFSv4.0 back channel of its own (v40_cb) to be granted a delegation.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

#include "e2e_deleg_util.h"
#include "nfs42_xdr.h"

static const char *uniq(const char *what)
{
	return e2e_deleg_uniq("dclaim", what);
}

static const char *local_file(const char *what, const char *data)
{
	const char *name = uniq(what);

	e2e_put_backing(name, data, strlen(data));
	return name;
}

/* The backing file holds want. */
static void ck_file_is(const char *name, const char *want)
{
	char got[64];

	e2e_backing_read(name, got, sizeof(got));
	ck_assert_str_eq(got, want);
}

/* fa's holder returns its delegation and closes: its file still holds
 * what local_file() put there ("holder's..").
 */
static void ck_returned_untouched(struct nfs42_client *holder,
				  struct nfs42_file *fa, const char *name)
{
	ck_nfs_ok(holder,
		  nfs42_delegreturn(holder, &fa->fh, &fa->deleg_stateid));
	ck_file_is(name, "holder's..");
	ck_nfs_ok(holder, nfs42_close(fa));
}

#define ck_status(expr, want)                                              \
	do {                                                               \
		int _rc = (expr);                                          \
		ck_assert_msg(_rc == (want), "%s: %s, expected %s", #expr, \
			      nfs42_strerror(_rc), nfs42_strerror(want));  \
	} while (0)

static void open_delegated(struct nfs42_client *cl, const char *name,
			   uint32_t access, uint32_t type, struct nfs42_file *f)
{
	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), access, NFS42_NOCREATE, 0,
				 false, f));
	ck_assert_msg(f->deleg_type == type,
		      "OPEN gave delegation type %u (why %u), not %u",
		      f->deleg_type, f->why_no_deleg, type);
}

/*
 * OPEN of fh with claim (CLAIM_DELEG_CUR_FH; CLAIM_DELEGATE_CUR and the
 * PREV claims by name in dir) quoting sid, by a new open owner, then,
 * when it was granted, a FILE_SYNC WRITE of data with the new open
 * stateid: the OPEN's status (*wrote: the WRITE's, -1 without one).
 */
static int claim_open_write(struct nfs42_client *cl, uint32_t claim,
			    const struct nfs42_fh *fh,
			    const struct nfs42_fh *dir, const char *name,
			    const struct nfs42_stateid *sid, uint32_t access,
			    const char *data, int *wrote)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	struct nfs42_open_args oa = { 0 };
	struct nfs42_stateid opened;
	int rc, idx;
	const char *owner = uniq("owner");

	ck_assert_ptr_nonnull(c);
	oa.share_access = access | OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	oa.createmode = NFS42_NOCREATE;
	oa.claim = claim;
	oa.deleg_stateid = sid;
	oa.name = name;
	oa.owner = owner;
	oa.owner_len = strlen(owner);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, claim == CLAIM_DELEG_CUR_FH ||
					  claim == CLAIM_DELEG_PREV_FH ?
				  fh :
				  dir);
	idx = nfs42_op_open(c, &oa);
	rc = nfs42_compound_run(c);
	if (rc == 0)
		opened = nfs42_res(c, idx)->u.open.stateid;
	nfs42_compound_free(c);
	*wrote = -1;
	if (rc != 0 || data == NULL)
		return rc;

	c = nfs42_compound_new(cl);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, fh);
	nfs42_op_write(c, &opened, 0, FILE_SYNC4, data, strlen(data));
	*wrote = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/* The export root's handle and name's. */
static void handles(struct nfs42_client *cl, const char *name,
		    struct nfs42_fh *dir, struct nfs42_fh *fh)
{
	ck_nfs_ok(cl, nfs42_lookup_path(cl, e2e_path(""), dir, NULL));
	ck_nfs_ok(cl, nfs42_lookup_path(cl, e2e_path(name), fh, NULL));
}

/* The file's first bytes as its holder reads them with its delegation
 * stateid (a local read would break the holder's lease). */
static void holder_read(struct nfs42_client *holder, const struct nfs42_file *f,
			char *buf, size_t size)
{
	struct nfs42_compound *c = nfs42_compound_new(holder);
	const struct nfs42_res *r;
	int idx;

	nfs42_op_putfh(c, &f->fh);
	idx = nfs42_op_read(c, &f->deleg_stateid, 0, (uint32_t)size - 1);
	ck_nfs_ok(holder, nfs42_compound_run(c));
	r = nfs42_res(c, idx);
	memcpy(buf, r->u.read.data, r->u.read.len);
	buf[r->u.read.len] = '\0';
	nfs42_compound_free(c);
}

/*
 * Each of claim (CLAIM_DELEG_CUR_FH, CLAIM_DELEGATE_CUR) quoting sid, by
 * another client, for writing, is refused with BAD_STATEID; nothing
 * reached the holder's file fa and its holder was never recalled.
 */
static void ck_refused(struct nfs42_client *holder, const struct nfs42_file *fa,
		       struct nfs42_client *cl, const char *name,
		       const struct nfs42_stateid *sid, const char *why)
{
	static const uint32_t claims[] = { CLAIM_DELEG_CUR_FH,
					   CLAIM_DELEGATE_CUR };
	struct nfs42_fh dir, fh;
	char before[64], after[64];
	unsigned int i;
	int rc, wrote;

	handles(cl, name, &dir, &fh);
	holder_read(holder, fa, before, sizeof(before));
	for (i = 0; i < 2; i++) {
		rc = claim_open_write(cl, claims[i], &fh, &dir, name, sid,
				      OPEN4_SHARE_ACCESS_BOTH, "STOLEN",
				      &wrote);
		holder_read(holder, fa, after, sizeof(after));
		ck_assert_msg(
			rc == NFS4ERR_BAD_STATEID,
			"OPEN claim %u quoting %s: %s, expected NFS4ERR_BAD_STATEID (WRITE: %s, file now \"%s\")",
			claims[i], why, nfs42_strerror(rc),
			wrote < 0 ? "not sent" : nfs42_strerror(wrote), after);
		ck_assert_str_eq(after, before);
	}
	ck_assert_uint_eq(nfs42_recalls_received(holder), 0);
}

/*
 * fa's holder still has its lease: a local open (flags) of the backing
 * file would break it (EWOULDBLOCK with O_NONBLOCK) and recalls holder,
 * which returns its delegation.
 */
static void ck_lease_recalls_holder(struct nfs42_client *holder,
				    const struct nfs42_file *fa,
				    const char *name, int flags)
{
	struct nfs42_recall r;
	unsigned int n = 0;
	int fd = open(e2e_backing(name), flags | O_NONBLOCK);

	ck_assert_msg(
		fd < 0 && errno == EWOULDBLOCK,
		"a local open went through the holder's lease (fd %d, %s)", fd,
		strerror(errno));
	ck_nfs_ok(holder, nfs42_serve_recalls(holder, 10000, false, &r, 1, &n));
	ck_assert_uint_eq(n, 1);
	ck_nfs_ok(holder,
		  nfs42_delegreturn(holder, &fa->fh, &fa->deleg_stateid));
}

/*
 * A holds a delegation of type (opened with access).  B quotes, in OPEN
 * CLAIM_DELEG_CUR_FH and CLAIM_DELEGATE_CUR for writing: its own open
 * stateid of an unrelated file (the probe of issue #27: B's WRITE landed
 * and, under a read delegation, A's read lease moved onto B's write
 * descriptor), A's delegation stateid, and its own read delegation of
 * another file.  Each is BAD_STATEID; A keeps its delegation (no
 * recall), its data, and its lease: a local open (lease_flags) still
 * recalls it.
 */
static void deleg_not_claimed_by_others(uint32_t access, uint32_t type,
					int lease_flags)
{
	struct nfs42_client *a = e2e_client_keeping_recalls(),
			    *b = e2e_client();
	const char *name = local_file("held", "holder's..");
	const char *other = local_file("unrelated", "other");
	const char *third = local_file("b-delegated", "b's");
	struct nfs42_file fa, fb, fbd;

	open_delegated(a, name, access, type, &fa);
	ck_nfs_ok(b, nfs42_open(b, e2e_path(other),
				OPEN4_SHARE_ACCESS_BOTH |
					OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
				NFS42_NOCREATE, 0, false, &fb));
	ck_refused(a, &fa, b, name, &fb.stateid, "the caller's open stateid");
	ck_refused(a, &fa, b, name, &fa.deleg_stateid,
		   "another client's delegation");
	open_delegated(b, third, OPEN4_SHARE_ACCESS_READ, OPEN_DELEGATE_READ,
		       &fbd);
	ck_refused(a, &fa, b, name, &fbd.deleg_stateid,
		   "the caller's delegation of another file");

	ck_lease_recalls_holder(a, &fa, name, lease_flags);
	ck_file_is(name, "holder's..");
	ck_nfs_ok(b, nfs42_delegreturn(b, &fbd.fh, &fbd.deleg_stateid));
	ck_nfs_ok(b, nfs42_close(&fbd));
	ck_nfs_ok(b, nfs42_close(&fb));
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
	nfs42_client_free(b);
}

START_TEST(t_write_deleg_not_claimed_by_others)
{
	deleg_not_claimed_by_others(OPEN4_SHARE_ACCESS_BOTH,
				    OPEN_DELEGATE_WRITE, O_RDONLY);
}
END_TEST

START_TEST(t_read_deleg_not_claimed_by_others)
{
	deleg_not_claimed_by_others(OPEN4_SHARE_ACCESS_READ, OPEN_DELEGATE_READ,
				    O_WRONLY);
}
END_TEST

/*
 * The holder's own claims work (RFC 8881 10.2.1: the client turns opens
 * it made locally under the delegation into real ones): with its write
 * delegation's stateid, by handle and by name, for writing, without a
 * recall, and the WRITE lands; with its read delegation's stateid for
 * reading, but for writing NFS4ERR_OPENMODE (knfsd); its own delegation
 * stateid on another file, or its open stateid, BAD_STATEID.
 */
START_TEST(t_holder_claims_its_own)
{
	struct nfs42_client *a = e2e_client_keeping_recalls();
	const char *wname = local_file("own-w", "0123456789");
	const char *rname = local_file("own-r", "0123456789");
	struct nfs42_file fw, fr;
	struct nfs42_fh dir, wfh, rfh;
	int wrote;

	open_delegated(a, wname, OPEN4_SHARE_ACCESS_BOTH, OPEN_DELEGATE_WRITE,
		       &fw);
	open_delegated(a, rname, OPEN4_SHARE_ACCESS_READ, OPEN_DELEGATE_READ,
		       &fr);
	handles(a, wname, &dir, &wfh);
	handles(a, rname, &dir, &rfh);

	ck_nfs_ok(a, claim_open_write(a, CLAIM_DELEG_CUR_FH, &wfh, &dir, wname,
				      &fw.deleg_stateid,
				      OPEN4_SHARE_ACCESS_BOTH, "OWN", &wrote));
	ck_nfs_ok(a, wrote);
	ck_nfs_ok(a, claim_open_write(a, CLAIM_DELEGATE_CUR, &wfh, &dir, wname,
				      &fw.deleg_stateid,
				      OPEN4_SHARE_ACCESS_WRITE, "own", &wrote));
	ck_nfs_ok(a, wrote);
	ck_nfs_ok(a, claim_open_write(a, CLAIM_DELEG_CUR_FH, &rfh, &dir, rname,
				      &fr.deleg_stateid,
				      OPEN4_SHARE_ACCESS_READ, NULL, &wrote));
	ck_status(claim_open_write(a, CLAIM_DELEG_CUR_FH, &rfh, &dir, rname,
				   &fr.deleg_stateid, OPEN4_SHARE_ACCESS_BOTH,
				   NULL, &wrote),
		  NFS4ERR_OPENMODE);
	ck_status(claim_open_write(a, CLAIM_DELEG_CUR_FH, &rfh, &dir, rname,
				   &fw.deleg_stateid, OPEN4_SHARE_ACCESS_READ,
				   NULL, &wrote),
		  NFS4ERR_BAD_STATEID);
	ck_status(claim_open_write(a, CLAIM_DELEG_CUR_FH, &wfh, &dir, wname,
				   &fw.stateid, OPEN4_SHARE_ACCESS_READ, NULL,
				   &wrote),
		  NFS4ERR_BAD_STATEID);
	ck_assert_uint_eq(nfs42_recalls_received(a), 0);

	ck_nfs_ok(a, nfs42_delegreturn(a, &fw.fh, &fw.deleg_stateid));
	ck_nfs_ok(a, nfs42_delegreturn(a, &fr.fh, &fr.deleg_stateid));
	ck_file_is(wname, "own3456789");
	ck_nfs_ok(a, nfs42_close(&fw));
	ck_nfs_ok(a, nfs42_close(&fr));
	nfs42_client_free(a);
}
END_TEST

/*
 * CLAIM_DELEGATE_PREV and CLAIM_DELEG_PREV_FH (delegations of a previous
 * client instance) are not supported: NFS4ERR_NOTSUPP whatever they
 * quote, the holder's file untouched, no recall.
 */
START_TEST(t_prev_claims_unsupported)
{
	struct nfs42_client *a = e2e_client_keeping_recalls(),
			    *b = e2e_client();
	const char *name = local_file("prev", "holder's..");
	struct nfs42_fh dir, fh;
	struct nfs42_file fa;
	int wrote;

	open_delegated(a, name, OPEN4_SHARE_ACCESS_BOTH, OPEN_DELEGATE_WRITE,
		       &fa);
	handles(b, name, &dir, &fh);
	ck_status(claim_open_write(b, CLAIM_DELEGATE_PREV, &fh, &dir, name,
				   NULL, OPEN4_SHARE_ACCESS_BOTH, "STOLEN",
				   &wrote),
		  NFS4ERR_NOTSUPP);
	ck_status(claim_open_write(b, CLAIM_DELEG_PREV_FH, &fh, &dir, name,
				   NULL, OPEN4_SHARE_ACCESS_BOTH, "STOLEN",
				   &wrote),
		  NFS4ERR_NOTSUPP);
	ck_status(claim_open_write(a, CLAIM_DELEG_PREV_FH, &fh, &dir, name,
				   NULL, OPEN4_SHARE_ACCESS_BOTH, "OWN",
				   &wrote),
		  NFS4ERR_NOTSUPP);
	ck_assert_uint_eq(nfs42_recalls_received(a), 0);
	ck_returned_untouched(a, &fa, name);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* PUTFH fh + one op of cl's quoting sid: the status.  op: WRITE,
 * READ, DELEGRETURN, CLOSE, FREE_STATEID. */
static int use_stateid(struct nfs42_client *cl, const struct nfs42_fh *fh,
		       uint32_t op, const struct nfs42_stateid *sid)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, fh);
	switch (op) {
	case OP_WRITE:
		nfs42_op_write(c, sid, 0, FILE_SYNC4, "STOLEN", 6);
		break;
	case OP_READ:
		nfs42_op_read(c, sid, 0, 6);
		break;
	case OP_DELEGRETURN:
		nfs42_op_delegreturn(c, sid);
		break;
	case OP_CLOSE:
		nfs42_op_close(c, 0, sid);
		break;
	default:
		nfs42_op_free_stateid(c, sid);
		break;
	}
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/*
 * Stateids are the client's own (RFC 8881 8.2: a stateid is bound to
 * its client; knfsd looks stateids up among the session's client's
 * only): B quoting A's delegation or open stateid in WRITE, READ,
 * DELEGRETURN, CLOSE, FREE_STATEID gets BAD_STATEID; A keeps its
 * delegation, its open and its data.
 */
START_TEST(t_other_clients_stateids_refused)
{
	static const uint32_t ops[] = { OP_WRITE, OP_READ, OP_DELEGRETURN,
					OP_CLOSE, OP_FREE_STATEID };
	struct nfs42_client *a = e2e_client_keeping_recalls(),
			    *b = e2e_client();
	const char *name = local_file("stateids", "holder's..");
	struct nfs42_file fa;
	unsigned int i;
	int rc;

	open_delegated(a, name, OPEN4_SHARE_ACCESS_BOTH, OPEN_DELEGATE_WRITE,
		       &fa);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		rc = use_stateid(b, &fa.fh, ops[i], &fa.deleg_stateid);
		ck_assert_msg(
			rc == NFS4ERR_BAD_STATEID,
			"op %u with another client's delegation stateid: %s",
			ops[i], nfs42_strerror(rc));
		rc = use_stateid(b, &fa.fh, ops[i], &fa.stateid);
		ck_assert_msg(rc == NFS4ERR_BAD_STATEID,
			      "op %u with another client's open stateid: %s",
			      ops[i], nfs42_strerror(rc));
	}
	ck_assert_uint_eq(nfs42_recalls_received(a), 0);
	ck_returned_untouched(a, &fa, name);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* ---- an NFSv4.0 client (SETCLIENTID), compounds without SEQUENCE ---- */

struct v40 {
	struct nfs42_client *cl;
	uint64_t clientid;
};

static struct nfs42_compound *v40_compound(struct v40 *v)
{
	struct nfs42_compound *c = nfs42_compound_new(v->cl);

	ck_assert_ptr_nonnull(c);
	nfs42_compound_no_sequence(c);
	nfs42_compound_set_minorversion(c, 0);
	nfs42_compound_no_retry(c);
	return c;
}

/* SETCLIENTID (RFC 7530 16.33) with its callback at r_addr ("h1.h2.h3.h4.p1.p2"), and SETCLIENTID_CONFIRM (16.34). */
static void v40_client_cb(struct v40 *v, const char *r_addr)
{
	static const uint8_t verf[NFS4_VERIFIER_SIZE] = "dclaim40";
	struct nfs42_compound *c;
	struct nfs42_xdr x, r;
	struct nfs42_opts o;
	const struct nfs42_res *res;
	uint8_t confirm[NFS4_VERIFIER_SIZE];
	const char *id = uniq("v40");
	int idx;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	ck_assert_int_eq(nfs42_connect(&o, &v->cl), 0);

	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, OP_SETCLIENTID);
	nfs42_xdr_put_fixed(&x, verf, sizeof(verf));
	nfs42_xdr_put_opaque(&x, id, strlen(id));
	nfs42_xdr_put_u32(&x, 0x40000000); /* cb_program */
	nfs42_xdr_put_string(&x, "tcp");
	nfs42_xdr_put_string(&x, r_addr);
	nfs42_xdr_put_u32(&x, 1); /* callback_ident */
	c = v40_compound(v);
	idx = nfs42_op_raw(c, OP_SETCLIENTID, x.buf, x.len);
	ck_nfs_ok(v->cl, nfs42_compound_run(c));
	res = nfs42_res(c, idx);
	nfs42_xdr_dec_init(&r, res->u.raw.data, res->u.raw.len);
	ck_assert(nfs42_xdr_get_u64(&r, &v->clientid));
	ck_assert(nfs42_xdr_get_fixed(&r, confirm, sizeof(confirm)));
	nfs42_compound_free(c);
	nfs42_xdr_free(&x);

	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, OP_SETCLIENTID_CONFIRM);
	nfs42_xdr_put_u64(&x, v->clientid);
	nfs42_xdr_put_fixed(&x, confirm, sizeof(confirm));
	c = v40_compound(v);
	nfs42_op_raw(c, OP_SETCLIENTID_CONFIRM, x.buf, x.len);
	ck_nfs_ok(v->cl, nfs42_compound_run(c));
	nfs42_compound_free(c);
	nfs42_xdr_free(&x);
}

static void v40_client(struct v40 *v)
{
	v40_client_cb(v, "127.0.0.1.0.1"); /* nobody listens */
}

/* NFSv4.0 OPEN CLAIM_DELEGATE_CUR of dir/name quoting sid, as clientid. */
static int v40_claim_open(struct v40 *v, uint64_t clientid,
			  const struct nfs42_fh *dir, const char *name,
			  const struct nfs42_stateid *sid)
{
	struct nfs42_compound *c = v40_compound(v);
	struct nfs42_open_args oa = { 0 };
	const char *owner = uniq("owner40");
	int rc;

	oa.share_access = OPEN4_SHARE_ACCESS_BOTH;
	oa.createmode = NFS42_NOCREATE;
	oa.claim = CLAIM_DELEGATE_CUR;
	oa.deleg_stateid = sid;
	oa.name = name;
	oa.owner_clientid = clientid;
	oa.owner = owner;
	oa.owner_len = strlen(owner);
	nfs42_op_putfh(c, dir);
	nfs42_op_open(c, &oa);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/*
 * An NFSv4.0 back channel: the server connects to our callback address
 * (SETCLIENTID's), probes it with CB_NULL at SETCLIENTID_CONFIRM (no
 * NFSv4.0 delegation without it) and sends CB_RECALL in CB_COMPOUNDs.
 * CB_NULL is answered; CB_COMPOUNDs are counted, not answered.
 */
struct v40_cb {
	int lfd;
	char r_addr[32];
	unsigned int nulls, compounds;
	bool stop;
	pthread_t thread;
};

static bool v40_cb_read(int fd, void *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = read(fd, (char *)buf + got, n - got);
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* One RPC call on fd: CB_NULL answered, a CB_COMPOUND counted. */
static bool v40_cb_serve_one(struct v40_cb *cb, int fd)
{
	uint32_t mark, hdr[6], reply[7];
	uint8_t body[8192];
	size_t len;

	if (!v40_cb_read(fd, &mark, 4))
		return false;
	len = ntohl(mark) & 0x7fffffffu;
	if (len > sizeof(body) || len < sizeof(hdr) ||
	    !v40_cb_read(fd, body, len))
		return false;
	memcpy(hdr, body, sizeof(hdr)); /* xid, CALL, 2, prog, vers, proc */
	if (ntohl(hdr[5]) != 0) {
		__atomic_add_fetch(&cb->compounds, 1, __ATOMIC_RELAXED);
		return true;
	}
	reply[0] = htonl(0x80000000u | 24); /* last fragment, 24 bytes */
	reply[1] = hdr[0]; /* xid */
	reply[2] = htonl(1); /* REPLY */
	reply[3] = htonl(0); /* MSG_ACCEPTED */
	reply[4] = htonl(0); /* verifier AUTH_NONE */
	reply[5] = htonl(0); /* of length 0 */
	reply[6] = htonl(0); /* SUCCESS */
	__atomic_add_fetch(&cb->nulls, 1, __ATOMIC_RELAXED);
	return write(fd, reply, sizeof(reply)) == (ssize_t)sizeof(reply);
}

static void *v40_cb_main(void *arg)
{
	struct v40_cb *cb = arg;
	struct pollfd pfd[8];
	int n = 1, i;

	pfd[0].fd = cb->lfd;
	pfd[0].events = POLLIN;
	while (!__atomic_load_n(&cb->stop, __ATOMIC_RELAXED)) {
		if (poll(pfd, n, 50) <= 0)
			continue;
		if ((pfd[0].revents & POLLIN) && n < 8) {
			pfd[n].fd = accept(cb->lfd, NULL, NULL);
			pfd[n].events = POLLIN;
			n += pfd[n].fd >= 0;
		}
		for (i = 1; i < n; i++)
			if (pfd[i].revents && pfd[i].fd >= 0 &&
			    !v40_cb_serve_one(cb, pfd[i].fd)) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
			}
	}
	for (i = 1; i < n; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	return NULL;
}

static void v40_cb_start(struct v40_cb *cb)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	unsigned int port;

	memset(cb, 0, sizeof(*cb));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cb->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(cb->lfd, 0);
	ck_assert_int_eq(bind(cb->lfd, (struct sockaddr *)&sin, sizeof(sin)),
			 0);
	ck_assert_int_eq(listen(cb->lfd, 4), 0);
	ck_assert_int_eq(getsockname(cb->lfd, (struct sockaddr *)&sin, &sl), 0);
	port = ntohs(sin.sin_port);
	snprintf(cb->r_addr, sizeof(cb->r_addr), "127.0.0.1.%u.%u", port >> 8,
		 port & 0xff);
	ck_assert_int_eq(pthread_create(&cb->thread, NULL, v40_cb_main, cb), 0);
}

static void v40_cb_stop(struct v40_cb *cb)
{
	__atomic_store_n(&cb->stop, true, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_join(cb->thread, NULL), 0);
	close(cb->lfd);
}

/* NFSv4.0 OPEN of dir/name (CLAIM_NULL, no create) by the open owner
 * named `owner`, at seqid: the status; *sid the open stateid, *type the
 * delegation type granted, *rflags the result flags. */
static int v40_open(struct v40 *v, const struct nfs42_fh *dir, const char *name,
		    const char *owner, uint32_t seqid, uint32_t access,
		    struct nfs42_stateid *sid, uint32_t *type, uint32_t *rflags)
{
	struct nfs42_compound *c = v40_compound(v);
	struct nfs42_open_args oa = { 0 };
	const struct nfs42_res *r;
	int rc, idx;

	oa.seqid = seqid;
	oa.share_access = access;
	oa.createmode = NFS42_NOCREATE;
	oa.claim = CLAIM_NULL;
	oa.name = name;
	oa.owner_clientid = v->clientid;
	oa.owner = owner;
	oa.owner_len = strlen(owner);
	nfs42_op_putfh(c, dir);
	idx = nfs42_op_open(c, &oa);
	rc = nfs42_compound_run(c);
	if (rc == 0) {
		r = nfs42_res(c, idx);
		*sid = r->u.open.stateid;
		*type = r->u.open.deleg_type;
		*rflags = r->u.open.rflags;
	}
	nfs42_compound_free(c);
	return rc;
}

/* OPEN_CONFIRM (RFC 7530 16.20) of sid with seqid. */
static int v40_open_confirm(struct v40 *v, const struct nfs42_fh *fh,
			    const struct nfs42_stateid *sid, uint32_t seqid)
{
	struct nfs42_compound *c = v40_compound(v);
	struct nfs42_xdr x;
	int rc;

	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, OP_OPEN_CONFIRM);
	nfs42_xdr_put_u32(&x, sid->seqid);
	nfs42_xdr_put_fixed(&x, sid->other, sizeof(sid->other));
	nfs42_xdr_put_u32(&x, seqid);
	nfs42_op_putfh(c, fh);
	nfs42_op_raw(c, OP_OPEN_CONFIRM, x.buf, x.len);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	nfs42_xdr_free(&x);
	return rc;
}

/*
 * An NFSv4.0 holder of a write delegation opens its file again with
 * another open owner (as the Linux client does for another process):
 * the OPEN goes through without a recall (patch 0124: the OPEN's client
 * is op_ctx's, so FSAL_SPARSE gives the new open a dup of the holder's
 * lease descriptor; without it, a descriptor of its own broke the
 * holder's own lease: NFS4ERR_DELAY and a CB_RECALL).
 */
START_TEST(t_v40_holder_opens_again)
{
	struct nfs42_client *a = e2e_client();
	const char *first = local_file("v40-first", "first");
	const char *name = local_file("v40-held", "holder's..");
	struct nfs42_stateid sid, sid2, held;
	struct nfs42_fh dir, fh, ffh;
	uint32_t type, rflags;
	struct v40_cb cb;
	struct v40 v;
	int rc;

	handles(a, name, &dir, &fh);
	handles(a, first, &dir, &ffh);
	v40_cb_start(&cb);
	v40_client_cb(&v, cb.r_addr);
	ck_assert_msg(__atomic_load_n(&cb.nulls, __ATOMIC_RELAXED) >= 1,
		      "no CB_NULL probe reached our NFSv4.0 callback");
	/* owner "o1" confirmed on another file, then delegated */
	ck_nfs_ok(v.cl,
		  v40_open(&v, &dir, first, "o1", 1, OPEN4_SHARE_ACCESS_READ,
			   &sid, &type, &rflags));
	if (rflags & OPEN4_RESULT_CONFIRM)
		ck_nfs_ok(v.cl, v40_open_confirm(&v, &ffh, &sid, 2));
	ck_nfs_ok(v.cl,
		  v40_open(&v, &dir, name, "o1", 3, OPEN4_SHARE_ACCESS_BOTH,
			   &held, &type, &rflags));
	ck_assert_msg(type == OPEN_DELEGATE_WRITE,
		      "NFSv4.0 OPEN for both: delegation type %u", type);
	/* a second open owner of the holder's */
	rc = v40_open(&v, &dir, name, "o2", 1, OPEN4_SHARE_ACCESS_READ, &sid2,
		      &type, &rflags);
	ck_assert_msg(
		rc == 0,
		"the NFSv4.0 holder's own second OPEN: %s (its own lease broken)",
		nfs42_strerror(rc));
	usleep(200 * 1000); /* a recall would be on its way */
	ck_assert_uint_eq(__atomic_load_n(&cb.compounds, __ATOMIC_RELAXED), 0);
	nfs42_client_free(v.cl);
	v40_cb_stop(&cb);
	nfs42_client_free(a);
}
END_TEST

/*
 * An NFSv4.0 client's CLAIM_DELEGATE_CUR quoting an NFSv4.1 client's
 * write delegation is BAD_STATEID; naming that client's clientid in its
 * open owner is NFS4ERR_STALE_CLIENTID (an NFSv4.1 client ID is not one
 * of NFSv4.0: knfsd's find_confirmed_client); the holder keeps it all.
 */
START_TEST(t_v40_deleg_cur_not_claimed_by_others)
{
	struct nfs42_client *a = e2e_client_keeping_recalls();
	const char *name = local_file("v40", "holder's..");
	struct nfs42_fh dir, fh;
	struct nfs42_file fa;
	struct v40 v;

	open_delegated(a, name, OPEN4_SHARE_ACCESS_BOTH, OPEN_DELEGATE_WRITE,
		       &fa);
	v40_client(&v);
	handles(a, name, &dir, &fh);
	ck_status(v40_claim_open(&v, v.clientid, &dir, name, &fa.deleg_stateid),
		  NFS4ERR_BAD_STATEID);
	ck_status(v40_claim_open(&v, nfs42_clientid(a), &dir, name,
				 &fa.deleg_stateid),
		  NFS4ERR_STALE_CLIENTID);
	ck_assert_uint_eq(nfs42_recalls_received(a), 0);
	ck_returned_untouched(a, &fa, name);
	nfs42_client_free(a);
	nfs42_client_free(v.cl);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("e2e_proto_deleg_claim");
	TCase *tc = tcase_create("claim");

	(void)argc;
	(void)argv;
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_write_deleg_not_claimed_by_others);
	tcase_add_test(tc, t_read_deleg_not_claimed_by_others);
	tcase_add_test(tc, t_holder_claims_its_own);
	tcase_add_test(tc, t_prev_claims_unsupported);
	tcase_add_test(tc, t_v40_deleg_cur_not_claimed_by_others);
	tcase_add_test(tc, t_other_clients_stateids_refused);
	tcase_add_test(tc, t_v40_holder_opens_again);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
