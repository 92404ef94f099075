/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * A client made step by step on a raw connection (EXCHANGE_ID,
 * CREATE_SESSION, OPEN, RECLAIM_COMPLETE, OPEN CLAIM_PREVIOUS), for the
 * recovery tests and bench/records: each step returns its NFS status (or
 * a negative errno), so a caller knows which were answered, and
 * rsess_free() closes the connection without destroying the client ID
 * (its lease then runs out on the server).
 */
#ifndef RSESS_H
#define RSESS_H

#include <string.h>
#include "nfs42.h"
#include "nfs42_xdr.h"

struct rsess {
	struct nfs42_client *cl;
	uint8_t sid[NFS4_SESSIONID_SIZE];
	uint32_t seq;
	uint64_t clientid;
	uint32_t csseq;
};

static inline struct nfs42_compound *rsess_cpd(struct rsess *s)
{
	struct nfs42_compound *c = nfs42_compound_new(s->cl);

	nfs42_compound_no_sequence(c);
	nfs42_op_sequence(c, s->sid, s->seq++, 0, 0, false);
	return c;
}

/* Steps of establishing a client; each returns an NFS status or -errno. */

/* Connect with the options from the environment. */
static inline int rsess_connect(struct rsess *s)
{
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	return nfs42_connect(&o, &s->cl);
}

/* EXCHANGE_ID on the connection with verifier verf (8 bytes). */
static inline int rsess_send_exchange_id(struct rsess *s, const char *verf,
					 const char *owner)
{
	struct nfs42_compound *c = nfs42_compound_new(s->cl);
	int rc, idx;

	nfs42_compound_no_sequence(c);
	idx = nfs42_op_exchange_id(c, (const uint8_t *)verf, owner,
				   strlen(owner), 0);
	rc = nfs42_compound_run(c);
	if (!rc) {
		s->clientid = nfs42_res(c, idx)->u.exchange_id.clientid;
		s->csseq = nfs42_res(c, idx)->u.exchange_id.seqid;
	}
	nfs42_compound_free(c);
	return rc;
}

/* Connect, then EXCHANGE_ID. */
static inline int rsess_exchange_id(struct rsess *s, const char *owner)
{
	int rc = rsess_connect(s);

	return rc ? rc : rsess_send_exchange_id(s, "sqlrecov", owner);
}

/* CREATE_SESSION for s->clientid and s->csseq; a NULL fore or back
 * channel gets the default attributes below; NFS4ERR_DELAY is retried
 * (for a while) when retry is set. */
static inline int rsess_create_session_opt(struct rsess *s,
					   const struct nfs42_chan_attrs *fore,
					   const struct nfs42_chan_attrs *back,
					   const char *machine, bool retry)
{
	static const struct nfs42_chan_attrs dfore = { .maxreq = 65536,
						       .maxresp = 65536,
						       .maxresp_cached = 8192,
						       .maxops = 16,
						       .maxreqs = 1 };
	static const struct nfs42_chan_attrs dback = {
		.maxreq = 16384, .maxresp = 16384, .maxops = 8, .maxreqs = 1
	};
	struct nfs42_compound *c = nfs42_compound_new(s->cl);
	int rc, idx;

	nfs42_compound_no_sequence(c);
	if (!retry)
		nfs42_compound_no_retry(c);
	idx = nfs42_op_create_session(c, s->clientid, s->csseq, 0,
				      fore ? fore : &dfore,
				      back ? back : &dback,
				      NFS42_CB_PROGRAM_DEFAULT, 0, 0, machine);
	rc = nfs42_compound_run(c);
	if (!rc)
		memcpy(s->sid, nfs42_res(c, idx)->u.create_session.sessionid,
		       NFS4_SESSIONID_SIZE);
	nfs42_compound_free(c);
	s->seq = 1;
	return rc;
}

static inline int rsess_create_session_chan(struct rsess *s,
					    const struct nfs42_chan_attrs *fore,
					    const struct nfs42_chan_attrs *back,
					    const char *machine)
{
	return rsess_create_session_opt(s, fore, back, machine, true);
}

static inline int rsess_create_session(struct rsess *s)
{
	return rsess_create_session_chan(s, NULL, NULL, "sqlrecov");
}

/* OPEN of an existing file by handle for reading (CLAIM_FH). */
static inline int rsess_open(struct rsess *s, const struct nfs42_fh *fh,
			     const char *oo)
{
	struct nfs42_open_args a = { 0 };
	struct nfs42_compound *c = rsess_cpd(s);
	int rc;

	a.share_access = OPEN4_SHARE_ACCESS_READ |
			 OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	a.share_deny = OPEN4_SHARE_DENY_NONE;
	a.owner = oo;
	a.owner_len = strlen(oo);
	a.createmode = NFS42_NOCREATE;
	a.claim = CLAIM_FH;
	nfs42_op_putfh(c, fh);
	nfs42_op_open(c, &a);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

static inline int rsess_reclaim_complete(struct rsess *s)
{
	struct nfs42_compound *c = rsess_cpd(s);
	int rc;

	nfs42_op_reclaim_complete(c, false);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/* Append OPEN CLAIM_PREVIOUS (NOCREATE, deny none, no delegation wanted)
 * by open owner oo of clientid to c; returns the op index. */
static inline int rsess_op_open_previous(struct nfs42_compound *c,
					 uint64_t clientid, const char *oo,
					 uint32_t access)
{
	struct nfs42_open_args a = { 0 };

	a.share_access = access | OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	a.share_deny = OPEN4_SHARE_DENY_NONE;
	a.owner_clientid = clientid;
	a.owner = oo;
	a.owner_len = strlen(oo);
	a.createmode = NFS42_NOCREATE;
	a.claim = CLAIM_PREVIOUS;
	a.delegate_type = OPEN_DELEGATE_NONE;
	return nfs42_op_open(c, &a);
}

/* OPEN CLAIM_PREVIOUS of fh, for reading, without a delegation. */
static inline int rsess_reclaim(struct rsess *s, const struct nfs42_fh *fh,
				const char *oo)
{
	struct nfs42_compound *c = rsess_cpd(s);
	int rc;

	nfs42_op_putfh(c, fh);
	rsess_op_open_previous(c, s->clientid, oo, OPEN4_SHARE_ACCESS_READ);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

static inline void rsess_free(struct rsess *s)
{
	nfs42_client_free(s->cl);
	memset(s, 0, sizeof(*s));
}

/* EXCHANGE_ID, CREATE_SESSION, OPEN of fh, RECLAIM_COMPLETE */
static inline int rsess_establish(struct rsess *s, const char *owner,
				  const struct nfs42_fh *fh)
{
	int rc = rsess_exchange_id(s, owner);

	if (!rc)
		rc = rsess_create_session(s);
	if (!rc)
		rc = rsess_open(s, fh, "oo");
	if (!rc)
		rc = rsess_reclaim_complete(s);
	return rc;
}

#endif
