/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Session-layer fixes (issue #11), each driven by hand-built compounds on
 * a session whose limits the test chose:
 *
 *  - a COMPOUND with more ops than the session's ca_maxoperations, or
 *    larger than its ca_maxrequestsize, fails in SEQUENCE with
 *    NFS4ERR_TOO_MANY_OPS / NFS4ERR_REQ_TOO_BIG and nothing after SEQUENCE
 *    runs (patch 0080; Ganesha 6.5 ran the first ca_maxoperations ops and
 *    had no size check at all);
 *  - a CREATE_SESSION offering RPCSEC_GSS for the back channel decodes
 *    (GARBAGE_ARGS in 6.5, built without GSS), the session keeps the
 *    flavours the server can use, and an offer of RPCSEC_GSS alone is
 *    NFS4ERR_ENCR_ALG_UNSUPP (patch 0081);
 *  - "lease" mode (run with a short Lease_Lifetime): an EXCHANGE_ID never
 *    confirmed is stale after its lease (patch 0082);
 *  - "owner" mode (NFSv4.0 on): an empty client owner in EXCHANGE_ID or
 *    SETCLIENTID is NFS4ERR_BADXDR, as knfsd answers (patch 0191: Ganesha
 *    6.5 copied it from NULL into a client record; the in-process
 *    fuzzer's first finding).
 */
#include <pthread.h>

#include "e2e_fsal_util.h"

#define RPC_GSS_SVC_NONE 1

static const char *mode = "";
static unsigned int lease_s = 3;

/* A session made by hand on a connection without the library's own. */
struct rs {
	struct nfs42_client *cl;
	uint64_t clientid;
	uint32_t cs_seq;
	uint8_t sid[NFS4_SESSIONID_SIZE];
	uint32_t seqid; /* of slot 0, next to use */
};

static struct nfs42_client *rs_connect(void)
{
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;
	int rc;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	rc = nfs42_connect(&o, &cl);
	ck_assert_msg(rc == 0, "connect: %s", nfs42_strerror(rc));
	return cl;
}

/* EXCHANGE_ID for owner; the NFS status. */
static int rs_exchange(struct rs *s, const char *owner)
{
	static const uint8_t verf[NFS4_VERIFIER_SIZE] = { 's', 'e', 's', 's' };
	struct nfs42_compound *c = nfs42_compound_new(s->cl);
	const struct nfs42_res *r;
	int rc, idx;

	nfs42_compound_no_sequence(c);
	idx = nfs42_op_exchange_id(c, verf, owner, strlen(owner), 0);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (rc == 0) {
		ck_assert_ptr_nonnull(r);
		s->clientid = r->u.exchange_id.clientid;
		s->cs_seq = r->u.exchange_id.seqid;
	}
	nfs42_compound_free(c);
	return rc;
}

static void rs_attrs(struct nfs42_chan_attrs *fore,
		     struct nfs42_chan_attrs *back, uint32_t maxreq,
		     uint32_t maxops)
{
	*fore = (struct nfs42_chan_attrs){ .maxreq = maxreq,
					   .maxresp = 65536,
					   .maxresp_cached = 4096,
					   .maxops = maxops,
					   .maxreqs = 1 };
	*back = (struct nfs42_chan_attrs){
		.maxreq = 16384, .maxresp = 16384, .maxops = 8, .maxreqs = 1
	};
}

/* Take the session of a successful CREATE_SESSION result. */
static void rs_adopt(struct rs *s, const struct nfs42_res *r)
{
	ck_assert_ptr_nonnull(r);
	memcpy(s->sid, r->u.create_session.sessionid, NFS4_SESSIONID_SIZE);
	s->seqid = 1;
	s->cs_seq++;
}

/* CREATE_SESSION with the library's encoder (AUTH_SYS callbacks). */
static int rs_create(struct rs *s, uint32_t maxreq, uint32_t maxops)
{
	struct nfs42_compound *c = nfs42_compound_new(s->cl);
	struct nfs42_chan_attrs fore, back;
	int rc, idx;

	rs_attrs(&fore, &back, maxreq, maxops);
	nfs42_compound_no_sequence(c);
	idx = nfs42_op_create_session(c, s->clientid, s->cs_seq, 0, &fore,
				      &back, NFS42_CB_PROGRAM_DEFAULT, getuid(),
				      getgid(), "e2e-session");
	rc = nfs42_compound_run(c);
	if (rc == 0) {
		const struct nfs42_res *r = nfs42_res(c, idx);

		rs_adopt(s, r);
		ck_assert_uint_eq(r->u.create_session.fore_maxops, maxops);
		ck_assert_uint_eq(r->u.create_session.fore_maxreq, maxreq);
	}
	nfs42_compound_free(c);
	return rc;
}

/* A compound that starts with our own SEQUENCE on slot 0. */
static struct nfs42_compound *rs_cpd(struct rs *s)
{
	struct nfs42_compound *c = nfs42_compound_new(s->cl);

	nfs42_compound_no_sequence(c);
	nfs42_compound_no_retry(c);
	ck_assert_int_eq(nfs42_op_sequence(c, s->sid, s->seqid, 0, 0, false),
			 0);
	return c;
}

/* Run; the slot's seqid moves on only when SEQUENCE itself succeeded. */
static int rs_run(struct rs *s, struct nfs42_compound *c)
{
	int rc = nfs42_compound_run(c);
	const struct nfs42_res *seq = nfs42_res(c, 0);

	if (seq && seq->status == NFS4_OK)
		s->seqid++;
	return rc;
}

static void rs_setup(struct rs *s, uint32_t maxreq, uint32_t maxops)
{
	struct nfs42_compound *c;

	memset(s, 0, sizeof(*s));
	s->cl = rs_connect();
	ck_assert_int_eq(rs_exchange(s, e2e_uniq("e2e-session")), 0);
	ck_assert_int_eq(rs_create(s, maxreq, maxops), 0);
	c = rs_cpd(s);
	nfs42_op_reclaim_complete(c, false);
	ck_assert_int_eq(rs_run(s, c), 0);
	nfs42_compound_free(c);
}

static void rs_done(struct rs *s)
{
	nfs42_client_free(s->cl);
}

/* The compound failed in SEQUENCE with want; no other op has a result. */
static void ck_failed_in_sequence(struct nfs42_compound *c, int rc, int want)
{
	ck_assert_msg(rc == want, "compound: %s, want %s", nfs42_strerror(rc),
		      nfs42_strerror(want));
	ck_assert_uint_eq(nfs42_compound_nres(c), 1);
	ck_assert_int_eq(e2e_op_status(c, 0), want);
	ck_assert_ptr_null(nfs42_res(c, 1));
}

static bool backing_exists(const char *rel)
{
	struct stat st;

	return e2e_blstat(rel, &st) == 0;
}

START_TEST(too_many_ops_fail_in_sequence)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh dir = e2e_fh(cl, "");
	struct nfs42_create_args ca = { .type = NF4DIR };
	struct nfs42_compound *c;
	struct rs s;
	int rc;

	rs_setup(&s, 1u << 20, 4);

	/* SEQUENCE, PUTFH, CREATE, GETFH, GETFH: one op too many */
	ca.name = e2e_uniq("tmo");
	c = rs_cpd(&s);
	nfs42_op_putfh(c, &dir);
	nfs42_op_create(c, &ca);
	nfs42_op_getfh(c);
	nfs42_op_getfh(c);
	rc = rs_run(&s, c);
	ck_failed_in_sequence(c, rc, NFS4ERR_TOO_MANY_OPS);
	nfs42_compound_free(c);
	ck_assert_msg(!backing_exists(ca.name),
		      "CREATE after a failed SEQUENCE made %s", ca.name);

	/* exactly ca_maxoperations: all run */
	ca.name = e2e_uniq("ok4");
	c = rs_cpd(&s);
	nfs42_op_putfh(c, &dir);
	nfs42_op_create(c, &ca);
	nfs42_op_getfh(c);
	ck_assert_int_eq(rs_run(&s, c), 0);
	ck_assert_uint_eq(nfs42_compound_nres(c), 4);
	nfs42_compound_free(c);
	ck_assert(backing_exists(ca.name));

	rs_done(&s);
	nfs42_client_free(cl);
}
END_TEST

/* SEQUENCE, PUTFH, CREATE of a symlink whose target is `len` bytes. */
static struct nfs42_compound *link_cpd(struct rs *s, const struct nfs42_fh *dir,
				       const char *name, size_t len)
{
	struct nfs42_create_args ca = { .type = NF4LNK, .name = name };
	struct nfs42_compound *c;
	char *target = malloc(len + 1);

	ck_assert_ptr_nonnull(target);
	memset(target, 't', len);
	target[len] = '\0';
	ca.linkdata = target;
	c = rs_cpd(s);
	nfs42_op_putfh(c, dir);
	nfs42_op_create(c, &ca);
	free(target);
	return c;
}

/* XDR size of the COMPOUND4args alone (no RPC header). */
static size_t args_size(struct nfs42_compound *c)
{
	struct nfs42_xdr x;
	size_t len;

	nfs42_xdr_enc_init(&x);
	ck_assert_int_eq(nfs42_compound_encode(c, &x), 0);
	len = x.len;
	nfs42_xdr_free(&x);
	return len;
}

static int create_link(struct rs *s, const struct nfs42_fh *dir,
		       const char *name, size_t len)
{
	struct nfs42_compound *c = link_cpd(s, dir, name, len);
	int rc = rs_run(s, c);

	if (rc == NFS4ERR_REQ_TOO_BIG)
		ck_failed_in_sequence(c, rc, NFS4ERR_REQ_TOO_BIG);
	nfs42_compound_free(c);
	return rc;
}

START_TEST(request_too_big_fails_in_sequence)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh dir = e2e_fh(cl, "");
	const char *big = e2e_uniq("big");
	const char *small = e2e_uniq("small");
	const char *edge = e2e_uniq("edge");
	struct nfs42_compound *c;
	size_t base, edge_len;
	struct rs s;
	int rc;

	rs_setup(&s, 1024, 8);

	/* well over 1024 bytes */
	rc = create_link(&s, &dir, big, 1500);
	ck_assert_msg(rc == NFS4ERR_REQ_TOO_BIG, "big: %s", nfs42_strerror(rc));
	ck_assert_msg(!backing_exists(big),
		      "CREATE after a failed SEQUENCE made %s", big);

	/* the same request with a short target fits and runs */
	rc = create_link(&s, &dir, small, 200);
	ck_assert_msg(rc == 0, "small: %s", nfs42_strerror(rc));
	ck_assert(backing_exists(small));

	/*
	 * The RPC header counts (RFC 8881 18.36.3, ca_maxrequestsize): a
	 * compound whose arguments alone fit in 1020 bytes is still refused.
	 */
	c = link_cpd(&s, &dir, edge, 200);
	base = args_size(c);
	nfs42_compound_free(c);
	ck_assert_uint_lt(base, 1020);
	edge_len = 200 + ((1020 - base) & ~(size_t)3);
	c = link_cpd(&s, &dir, edge, edge_len);
	ck_assert_uint_le(args_size(c), 1020);
	ck_assert_uint_gt(args_size(c), 1000);
	nfs42_compound_free(c);
	rc = create_link(&s, &dir, edge, edge_len);
	ck_assert_msg(rc == NFS4ERR_REQ_TOO_BIG, "edge: %s",
		      nfs42_strerror(rc));
	ck_assert(!backing_exists(edge));

	rs_done(&s);
	nfs42_client_free(cl);
}
END_TEST

/* csa_sec_parms entries */
static const struct nfs42_cb_sec SEC_GSS = {
	.flavor = NFS42_CB_RPCSEC_GSS,
	.gss_service = RPC_GSS_SVC_NONE,
	.gss_handle_from_server = "server-handle",
	.gss_handle_from_server_len = 13,
	.gss_handle_from_client = "client-handle-0",
	.gss_handle_from_client_len = 15,
};
static const struct nfs42_cb_sec SEC_NONE = { .flavor = NFS42_CB_AUTH_NONE };

static struct nfs42_cb_sec sec_sys(void)
{
	return (struct nfs42_cb_sec){ .flavor = NFS42_CB_AUTH_SYS,
				      .uid = getuid(),
				      .gid = getgid(),
				      .machinename = "e2e-session" };
}

/*
 * CREATE_SESSION (flags and channel attributes as given) offering the n
 * flavours in secs; returns the NFS status (< 0 for an RPC-level
 * refusal) and the result's csr_flags.
 */
static int create_session_attrs(struct rs *s, uint32_t flags,
				const struct nfs42_chan_attrs *fore,
				const struct nfs42_chan_attrs *back,
				const struct nfs42_cb_sec *secs, unsigned int n,
				uint32_t *csr_flags)
{
	struct nfs42_compound *c = nfs42_compound_new(s->cl);
	int rc;

	nfs42_compound_no_sequence(c);
	ck_assert_int_eq(nfs42_op_create_session_sec(
				 c, s->clientid, s->cs_seq, flags, fore, back,
				 NFS42_CB_PROGRAM_DEFAULT, secs, n),
			 0);
	rc = nfs42_compound_run(c);
	if (rc == 0) {
		rs_adopt(s, nfs42_res(c, 0));
		*csr_flags = nfs42_res(c, 0)->u.create_session.flags;
	}
	nfs42_compound_free(c);
	return rc;
}

/* The same with the channel attributes of rs_attrs(1 MiB, 16 ops). */
static int create_session_sec(struct rs *s, uint32_t flags,
			      const struct nfs42_cb_sec *secs, unsigned int n,
			      uint32_t *csr_flags)
{
	struct nfs42_chan_attrs fore, back;

	rs_attrs(&fore, &back, 1u << 20, 16);
	return create_session_attrs(s, flags, &fore, &back, secs, n, csr_flags);
}

/* The session answers SEQUENCE + PUTROOTFH + GETATTR. */
static void ck_session_serves(struct rs *s)
{
	struct nfs42_bitmap bm = nfs42_bm_stat();
	struct nfs42_compound *c = rs_cpd(s);

	nfs42_op_putrootfh(c);
	nfs42_op_getattr(c, &bm);
	ck_assert_int_eq(rs_run(s, c), 0);
	nfs42_compound_free(c);
}

/* RECLAIM_COMPLETE, then the session serves. */
static void ck_session_works(struct rs *s)
{
	struct nfs42_compound *c = rs_cpd(s);

	nfs42_op_reclaim_complete(c, false);
	ck_assert_int_eq(rs_run(s, c), 0);
	nfs42_compound_free(c);
	ck_session_serves(s);
}

/* A connection with an unconfirmed clientid for a fresh owner. */
static void rs_unconfirmed(struct rs *s, const char *prefix)
{
	memset(s, 0, sizeof(*s));
	s->cl = rs_connect();
	ck_assert_int_eq(rs_exchange(s, e2e_uniq(prefix)), 0);
}

/* CREATE_SESSION offering secs succeeds and the session works; its
 * csr_flags. */
static uint32_t ck_offer_accepted(const char *what, uint32_t flags,
				  const struct nfs42_cb_sec *secs,
				  unsigned int n)
{
	uint32_t csr_flags = 0;
	struct rs s;
	int rc;

	rs_unconfirmed(&s, "e2e-offer");
	rc = create_session_sec(&s, flags, secs, n, &csr_flags);
	ck_assert_msg(rc == 0, "CREATE_SESSION %s: %s (%s)", what,
		      nfs42_strerror(rc), nfs42_client_error(s.cl));
	ck_session_works(&s);
	rs_done(&s);
	return csr_flags;
}

START_TEST(create_session_gss_then_sys)
{
	const struct nfs42_cb_sec secs[] = { SEC_GSS, sec_sys() };
	uint32_t csr_flags;

	csr_flags = ck_offer_accepted(
		"[GSS, SYS]", CREATE_SESSION4_FLAG_CONN_BACK_CHAN, secs, 2);
	/* the back channel is up, with AUTH_SYS */
	ck_assert_uint_eq(csr_flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
			  CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
}
END_TEST

START_TEST(create_session_none_after_gss)
{
	const struct nfs42_cb_sec secs[] = { SEC_GSS, SEC_GSS, SEC_NONE };

	ck_offer_accepted("[GSS, GSS, NONE]", 0, secs, 3);
}
END_TEST

/*
 * CREATE_SESSION with a back channel and the n flavours of secs is
 * NFS4ERR_ENCR_ALG_UNSUPP; the clientid stays unconfirmed and usable:
 * the same offer without a back channel succeeds, or that of retry.
 */
static void ck_back_channel_refused(const char *what,
				    const struct nfs42_cb_sec *secs,
				    unsigned int n,
				    const struct nfs42_cb_sec *retry,
				    unsigned int retry_n)
{
	uint32_t csr_flags = 0;
	struct rs s;
	int rc;

	rs_unconfirmed(&s, "e2e-refused");
	rc = create_session_sec(&s, CREATE_SESSION4_FLAG_CONN_BACK_CHAN, secs,
				n, &csr_flags);
	ck_assert_msg(rc == NFS4ERR_ENCR_ALG_UNSUPP,
		      "CREATE_SESSION %s back channel: %s (%s)", what,
		      nfs42_strerror(rc), nfs42_client_error(s.cl));
	rc = create_session_sec(&s, 0, retry, retry_n, &csr_flags);
	ck_assert_msg(rc == 0, "CREATE_SESSION after %s: %s", what,
		      nfs42_strerror(rc));
	ck_session_works(&s);
	rs_done(&s);
}

START_TEST(create_session_gss_only_is_refused)
{
	const struct nfs42_cb_sec secs[] = { SEC_GSS };
	const struct nfs42_cb_sec sys = sec_sys();

	ck_back_channel_refused("[GSS]", secs, 1, &sys, 1);
}
END_TEST

/*
 * Patch 0081's refusal applies only when a back channel is wanted: a
 * session without one never sends a callback, whatever csa_sec_parms
 * holds (pynfs's CREATE_SESSION cases send an empty list, flags 0).
 */
START_TEST(create_session_empty_sec_no_back_channel)
{
	uint32_t csr_flags;

	csr_flags = ck_offer_accepted("[] flags 0", 0, NULL, 0);
	ck_assert_uint_eq(csr_flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN, 0);
}
END_TEST

START_TEST(create_session_gss_only_no_back_channel)
{
	const struct nfs42_cb_sec secs[] = { SEC_GSS };

	ck_offer_accepted("[GSS] flags 0", 0, secs, 1);
}
END_TEST

START_TEST(create_session_auth_none_only)
{
	const struct nfs42_cb_sec secs[] = { SEC_NONE };
	uint32_t csr_flags;

	ck_offer_accepted("[NONE] flags 0", 0, secs, 1);
	csr_flags = ck_offer_accepted("[NONE] back channel",
				      CREATE_SESSION4_FLAG_CONN_BACK_CHAN, secs,
				      1);
	ck_assert_uint_eq(csr_flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
			  CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
}
END_TEST

/* A back channel wanted with nothing to authenticate its calls by. */
START_TEST(create_session_empty_sec_back_channel_is_refused)
{
	ck_back_channel_refused("[]", NULL, 0, NULL, 0);
}
END_TEST

/* pynfs's channel_attrs4(0, req, resp, cached, 128, 8) */
static struct nfs42_chan_attrs chan(uint32_t req, uint32_t resp,
				    uint32_t cached)
{
	return (struct nfs42_chan_attrs){ .maxreq = req,
					  .maxresp = resp,
					  .maxresp_cached = cached,
					  .maxops = 128,
					  .maxreqs = 8 };
}

/*
 * Channel attributes no request or reply could fit are NFS4ERR_TOOSMALL
 * (RFC 8881 18.36.3), also with an empty csa_sec_parms and flags 0, and
 * a refused CREATE_SESSION leaves the clientid usable.
 */
START_TEST(create_session_too_small_channels)
{
	const struct nfs42_chan_attrs good = chan(8192, 8192, 8192);
	const struct {
		const char *what;
		struct nfs42_chan_attrs fore, back;
	} cases[] = {
		{ "fore maxresponsesize 0", chan(8192, 0, 8192), good },
		{ "fore maxrequestsize 20", chan(20, 8192, 8192), good },
		{ "back maxrequestsize 10",
		  good,
		  { .maxreq = 10,
		    .maxresp = 8192,
		    .maxresp_cached = 8192,
		    .maxops = 128,
		    .maxreqs = 1 } },
	};
	uint32_t csr_flags = 0;
	struct rs s;
	unsigned int i, round;
	int rc;

	rs_unconfirmed(&s, "e2e-toosmall");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (round = 0; round < 3; round++) {
			rc = create_session_attrs(&s, 0, &cases[i].fore,
						  &cases[i].back, NULL, 0,
						  &csr_flags);
			ck_assert_msg(rc == NFS4ERR_TOOSMALL,
				      "CREATE_SESSION %s: %s", cases[i].what,
				      nfs42_strerror(rc));
		}
	rc = create_session_attrs(&s, 0, &good, &good, NULL, 0, &csr_flags);
	ck_assert_msg(rc == 0, "CREATE_SESSION after TOOSMALL: %s",
		      nfs42_strerror(rc));
	ck_session_works(&s);
	rs_done(&s);
}
END_TEST

/*
 * A fore channel of 8192-byte requests whose replies may be cached up to
 * 10 bytes: SEQUENCE with sa_cachethis gets NFS4ERR_REP_TOO_BIG_TO_CACHE
 * (RFC 8881 2.10.6.1.3, 18.46.3), one without it is answered.
 */
START_TEST(create_session_reply_too_big_to_cache)
{
	const struct nfs42_chan_attrs fore = chan(8192, 8192, 10);
	const struct nfs42_chan_attrs back = chan(8192, 8192, 8192);
	struct nfs42_compound *c;
	uint32_t csr_flags = 0;
	struct rs s;
	int rc;

	rs_unconfirmed(&s, "e2e-cache");
	rc = create_session_attrs(&s, 0, &fore, &back, NULL, 0, &csr_flags);
	ck_assert_msg(rc == 0, "CREATE_SESSION cached 10: %s",
		      nfs42_strerror(rc));

	c = nfs42_compound_new(s.cl);
	nfs42_compound_no_sequence(c);
	nfs42_compound_no_retry(c);
	ck_assert_int_eq(nfs42_op_sequence(c, s.sid, s.seqid, 0, 0, true), 0);
	rc = nfs42_compound_run(c);
	ck_assert_msg(rc == NFS4ERR_REP_TOO_BIG_TO_CACHE,
		      "SEQUENCE cachethis: %s", nfs42_strerror(rc));
	nfs42_compound_free(c);

	/*
	 * The session serves uncached requests.  On another slot: Ganesha
	 * 6.5 moves slot 0 on despite the error (RFC 8881 18.46.3 says a
	 * failed SEQUENCE leaves the slot alone), not what this tests.
	 */
	c = nfs42_compound_new(s.cl);
	nfs42_compound_no_sequence(c);
	nfs42_compound_no_retry(c);
	ck_assert_int_eq(nfs42_op_sequence(c, s.sid, 1, 1, 1, false), 0);
	nfs42_op_putrootfh(c);
	rc = nfs42_compound_run(c);
	ck_assert_msg(rc == 0, "SEQUENCE slot 1, PUTROOTFH: %s",
		      nfs42_strerror(rc));
	nfs42_compound_free(c);
	rs_done(&s);
}
END_TEST

/* BACKCHANNEL_CTL on s's session offering n flavours: the status. */
static int run_backchannel_ctl(struct rs *s, uint32_t prog,
			       const struct nfs42_cb_sec *secs, unsigned int n)
{
	struct nfs42_compound *c = rs_cpd(s);
	int rc;

	ck_assert_int_ge(nfs42_op_backchannel_ctl(c, prog, secs, n), 0);
	rc = rs_run(s, c);
	nfs42_compound_free(c);
	return rc;
}

/*
 * BACKCHANNEL_CTL (RFC 8881 18.33; Ganesha 6.5: NFS4ERR_OP_ILLEGAL): a
 * new program and flavour for a session's back channel are taken, an
 * offer the back channel cannot use (GSS alone, nothing) is
 * NFS4ERR_ENCR_ALG_UNSUPP, and the session goes on working.
 */
START_TEST(backchannel_ctl_offers)
{
	const struct nfs42_cb_sec gss[] = { SEC_GSS };
	const struct nfs42_cb_sec none[] = { SEC_GSS, SEC_NONE };
	uint32_t csr_flags = 0;
	struct rs s;
	int rc;

	rs_unconfirmed(&s, "e2e-bcctl");
	ck_assert_int_eq(create_session_sec(&s,
					    CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
					    none + 1, 1, &csr_flags),
			 0);
	ck_session_works(&s);
	rc = run_backchannel_ctl(&s, 0x40000077, none, 2);
	ck_assert_msg(rc == 0, "BACKCHANNEL_CTL [GSS, NONE]: %s",
		      nfs42_strerror(rc));
	rc = run_backchannel_ctl(&s, 0x40000078, gss, 1);
	ck_assert_msg(rc == NFS4ERR_ENCR_ALG_UNSUPP,
		      "BACKCHANNEL_CTL [GSS]: %s", nfs42_strerror(rc));
	rc = run_backchannel_ctl(&s, 0x40000078, NULL, 0);
	ck_assert_msg(rc == NFS4ERR_ENCR_ALG_UNSUPP, "BACKCHANNEL_CTL []: %s",
		      nfs42_strerror(rc));
	ck_session_serves(&s);
	rs_done(&s);
}
END_TEST

/*
 * BACKCHANNEL_CTL racing BIND_CONN_TO_SESSION and another BACKCHANNEL_CTL
 * (issue #27 item 2).  BACKCHANNEL_CTL swaps the session's callback
 * security parameters and frees the old ones; the back channel's rebuild
 * and BIND_CONN_TO_SESSION read them.  Two connections bind themselves
 * for the back channel over and over while two slots (on two more
 * connections) change the parameters over and over, for BC_RACE_MS;
 * under ASan a read of freed parameters stops the server, and every
 * thread must see each of its calls answered, and the session serve
 * afterwards.
 */
#define BC_RACE_MS 4000

/* A connection bound to s's session, using slot `slot`. */
struct bc_conn {
	struct rs *s;
	struct nfs42_client *cl;
	uint32_t slot, seqid;
	unsigned int calls, ok;
	int failed; /* a transport error (< 0), 0 if none */
	pthread_t thread;
};

/* BIND_CONN_TO_SESSION (RFC 8881 18.34) of cl's connection to the
 * session sid in direction dir: the status. */
static int bind_conn(struct nfs42_client *cl, const uint8_t *sid, uint32_t dir)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	struct nfs42_xdr x;
	int rc;

	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, OP_BIND_CONN_TO_SESSION);
	nfs42_xdr_put_fixed(&x, sid, NFS4_SESSIONID_SIZE);
	nfs42_xdr_put_u32(&x, dir);
	nfs42_xdr_put_bool(&x, false); /* not RDMA */
	nfs42_compound_no_sequence(c);
	nfs42_compound_no_retry(c);
	nfs42_op_raw(c, OP_BIND_CONN_TO_SESSION, x.buf, x.len);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	nfs42_xdr_free(&x);
	return rc;
}

#define CDFC4_FORE_OR_BOTH 3
#define CDFC4_BACK_OR_BOTH 7

/* The offers a racer cycles through: AUTH_SYS entries (what the server
 * copies deep: a machine name, and is most likely to read once freed),
 * AUTH_NONE, both. */
static void bc_offer(unsigned int i, struct nfs42_cb_sec *secs, unsigned int *n)
{
	static const char *const names[] = { "bc-race-a", "bc-race-bb",
					     "bc-race-ccc" };

	secs[0] = sec_sys();
	secs[0].machinename = names[i % 3];
	secs[1] = SEC_NONE;
	*n = i % 4 == 3 ? 1 : 2;
	if (i % 4 == 2)
		secs[0] = SEC_NONE;
}

/* Racer: BACKCHANNEL_CTL on its slot until the deadline. */
static void *bc_ctl_racer(void *arg)
{
	struct bc_conn *b = arg;
	int64_t until = e2e_now_ms() + BC_RACE_MS;
	struct nfs42_cb_sec secs[2];
	const struct nfs42_res *seq;
	struct nfs42_compound *c;
	unsigned int n;
	int rc;

	while (e2e_now_ms() < until && !b->failed) {
		bc_offer(b->calls + b->slot, secs, &n);
		c = nfs42_compound_new(b->cl);
		nfs42_compound_no_sequence(c);
		nfs42_compound_no_retry(c);
		nfs42_op_sequence(c, b->s->sid, b->seqid, b->slot, 1, false);
		nfs42_op_backchannel_ctl(c, 0x40000100 + b->calls % 7, secs, n);
		rc = nfs42_compound_run(c);
		seq = nfs42_res(c, 0);
		if (seq && seq->status == NFS4_OK)
			b->seqid++;
		nfs42_compound_free(c);
		b->calls++;
		b->ok += rc == 0;
		if (rc < 0)
			b->failed = rc;
	}
	return NULL;
}

/* Racer: BIND_CONN_TO_SESSION for the back channel until the deadline. */
static void *bind_racer(void *arg)
{
	struct bc_conn *b = arg;
	int64_t until = e2e_now_ms() + BC_RACE_MS;
	int rc;

	while (e2e_now_ms() < until && !b->failed) {
		rc = bind_conn(b->cl, b->s->sid, CDFC4_BACK_OR_BOTH);
		b->calls++;
		b->ok += rc == 0;
		if (rc < 0)
			b->failed = rc;
	}
	return NULL;
}

START_TEST(backchannel_ctl_races_bind_conn)
{
	const struct nfs42_cb_sec secs[] = { sec_sys() };
	struct nfs42_chan_attrs fore, back;
	struct bc_conn racers[4];
	uint32_t csr_flags = 0;
	unsigned int i;
	struct rs s;

	rs_unconfirmed(&s, "e2e-bcrace");
	rs_attrs(&fore, &back, 1u << 20, 16);
	fore.maxreqs = 2;
	ck_assert_int_eq(
		create_session_attrs(&s, CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
				     &fore, &back, secs, 1, &csr_flags),
		0);
	ck_session_works(&s);

	memset(racers, 0, sizeof(racers));
	for (i = 0; i < 4; i++) {
		racers[i].s = &s;
		racers[i].cl = rs_connect();
		racers[i].seqid = 1;
	}
	/* racers 0 and 1 change the parameters on slots 0 and 1 (0 on the
	 * session's own connection, whose slot 0 s no longer uses), 2 and 3
	 * bind for the back channel */
	nfs42_client_free(racers[0].cl);
	racers[0].cl = s.cl;
	racers[0].seqid = s.seqid;
	racers[1].slot = 1;
	ck_assert_int_eq(bind_conn(racers[1].cl, s.sid, CDFC4_FORE_OR_BOTH), 0);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&racers[i].thread, NULL,
						i < 2 ? bc_ctl_racer :
							bind_racer,
						&racers[i]),
				 0);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(racers[i].thread, NULL), 0);
		ck_assert_msg(
			!racers[i].failed,
			"racer %u: %s after %u calls (%u answered NFS4_OK)", i,
			nfs42_strerror(racers[i].failed), racers[i].calls,
			racers[i].ok);
		ck_assert_msg(racers[i].ok > 0, "racer %u: none of %u calls OK",
			      i, racers[i].calls);
	}
	s.seqid = racers[0].seqid;
	ck_session_serves(&s);
	for (i = 1; i < 4; i++)
		nfs42_client_free(racers[i].cl);
	rs_done(&s);
}
END_TEST

/* SETCLIENTID (NFSv4.0) for client name id (len bytes): the status. */
static int rs_setclientid(struct nfs42_client *cl, const char *id, size_t len)
{
	static const uint8_t verf[NFS4_VERIFIER_SIZE] = { 'o', 'w', 'n' };
	struct nfs42_compound *c = nfs42_compound_new(cl);
	struct nfs42_xdr x;
	int rc;

	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, OP_SETCLIENTID);
	nfs42_xdr_put_fixed(&x, verf, sizeof(verf));
	nfs42_xdr_put_opaque(&x, id, len);
	nfs42_xdr_put_u32(&x, 0x40000000); /* cb_program */
	nfs42_xdr_put_string(&x, "tcp");
	nfs42_xdr_put_string(&x, "127.0.0.1.0.0");
	nfs42_xdr_put_u32(&x, 1); /* callback_ident */
	nfs42_compound_set_minorversion(c, 0);
	nfs42_compound_no_sequence(c);
	nfs42_compound_no_retry(c);
	ck_assert_int_ge(nfs42_op_raw(c, OP_SETCLIENTID, x.buf, x.len), 0);
	nfs42_xdr_free(&x);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/*
 * An empty client owner: EXCHANGE_ID's co_ownerid and SETCLIENTID's
 * nfs_client_id4.id are NFS4ERR_BADXDR (knfsd's answer; Ganesha 6.5
 * copied the name from NULL into a client record), and the server goes on
 * answering both with a name.
 */
START_TEST(empty_client_owner_is_badxdr)
{
	struct rs s = { 0 };
	int rc;

	s.cl = rs_connect();
	rc = rs_exchange(&s, "");
	ck_assert_msg(rc == NFS4ERR_BADXDR, "EXCHANGE_ID, empty owner: %s",
		      nfs42_strerror(rc));
	rc = rs_setclientid(s.cl, "", 0);
	ck_assert_msg(rc == NFS4ERR_BADXDR, "SETCLIENTID, empty id: %s",
		      nfs42_strerror(rc));
	rc = rs_setclientid(s.cl, "e2e-owner-v40", 13);
	ck_assert_msg(rc == 0, "SETCLIENTID: %s", nfs42_strerror(rc));
	ck_assert_int_eq(rs_exchange(&s, e2e_uniq("e2e-owner")), 0);
	rs_done(&s);
}
END_TEST

START_TEST(unconfirmed_clientid_expires)
{
	const char *owner = e2e_uniq("e2e-lease");
	struct rs s;
	uint64_t stale;
	int rc;

	memset(&s, 0, sizeof(s));
	s.cl = rs_connect();
	ck_assert_int_eq(rs_exchange(&s, owner), 0);
	stale = s.clientid;

	/*
	 * Well past the lease, and past the reaper (every lease / 2), which
	 * parks the expired record for delayed cleanup: Ganesha 6.5 then
	 * took it back and confirmed it.
	 */
	sleep(2 * lease_s);
	rc = rs_create(&s, 1u << 20, 16);
	ck_assert_msg(rc == NFS4ERR_STALE_CLIENTID,
		      "CREATE_SESSION after the lease: %s", nfs42_strerror(rc));

	/* the owner starts again: a new clientid, confirmed right away */
	ck_assert_int_eq(rs_exchange(&s, owner), 0);
	ck_assert(s.clientid != stale);
	rc = rs_create(&s, 1u << 20, 16);
	ck_assert_msg(rc == 0, "CREATE_SESSION in the lease: %s",
		      nfs42_strerror(rc));
	ck_session_works(&s);
	rs_done(&s);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("e2e_proto_session");
	TCase *tc = tcase_create("session");

	if (argc > 1)
		mode = argv[1];
	if (argc > 2)
		lease_s = (unsigned int)atoi(argv[2]);
	tcase_set_timeout(tc, 60);
	if (!strcmp(mode, "lease")) {
		tcase_add_test(tc, unconfirmed_clientid_expires);
	} else if (!strcmp(mode, "owner")) {
		tcase_add_test(tc, empty_client_owner_is_badxdr);
	} else if (!strcmp(mode, "bcrace")) {
		tcase_add_test(tc, backchannel_ctl_races_bind_conn);
	} else {
		tcase_add_test(tc, too_many_ops_fail_in_sequence);
		tcase_add_test(tc, request_too_big_fails_in_sequence);
		tcase_add_test(tc, create_session_gss_then_sys);
		tcase_add_test(tc, create_session_none_after_gss);
		tcase_add_test(tc, create_session_gss_only_is_refused);
		tcase_add_test(tc, create_session_empty_sec_no_back_channel);
		tcase_add_test(tc, create_session_gss_only_no_back_channel);
		tcase_add_test(tc, create_session_auth_none_only);
		tcase_add_test(
			tc, create_session_empty_sec_back_channel_is_refused);
		tcase_add_test(tc, create_session_too_small_channels);
		tcase_add_test(tc, create_session_reply_too_big_to_cache);
		tcase_add_test(tc, backchannel_ctl_offers);
	}
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
