/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Delegations on the client side: CB_RECALL (RFC 8881 section 20.2)
 * received on the back channel is queued here, and DELEGRETURN gives the
 * delegation back.  The back channel runs on whichever thread reads the
 * connection, which must not send compounds itself: the recall is only
 * recorded there, and nfs42_serve_recalls() (or the application, with
 * nfs42_take_recalls()) sends the DELEGRETURN afterwards.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

uint32_t nfs42_cb_recall(struct nfs42_client *cl, struct nfs42_xdr *args)
{
	struct nfs42_recall r;
	uint32_t status = NFS4_OK;

	memset(&r, 0, sizeof(r));
	nfs42_decode_stateid(args, &r.stateid);
	nfs42_xdr_get_bool(args, &r.truncate);
	nfs42_xdr_get_opaque(args, r.fh.data, &r.fh.len, NFS4_FHSIZE);
	if (args->err)
		return NFS4ERR_BADXDR;

	pthread_mutex_lock(&cl->lock);
	if (cl->nrecalls < NFS42_MAX_RECALLS) {
		cl->recalls[cl->nrecalls++] = r;
		cl->recalls_seen++;
	} else {
		status = NFS4ERR_DELAY;
	}
	pthread_mutex_unlock(&cl->lock);
	return status;
}

unsigned int nfs42_take_recalls(struct nfs42_client *cl,
				struct nfs42_recall *out, unsigned int max)
{
	unsigned int n;

	pthread_mutex_lock(&cl->lock);
	n = cl->nrecalls < max ? cl->nrecalls : max;
	if (n) {
		memcpy(out, cl->recalls, n * sizeof(*out));
		memmove(cl->recalls, cl->recalls + n,
			(cl->nrecalls - n) * sizeof(*out));
		cl->nrecalls -= n;
	}
	pthread_mutex_unlock(&cl->lock);
	return n;
}

uint64_t nfs42_recalls_received(const struct nfs42_client *cl)
{
	struct nfs42_client *c = (struct nfs42_client *)cl;
	uint64_t n;

	pthread_mutex_lock(&c->lock);
	n = c->recalls_seen;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* Called with cl->lock held: the index of sid in the held list, or -1. */
static int held_find(struct nfs42_client *cl, const struct nfs42_stateid *sid)
{
	unsigned int i;

	for (i = 0; i < cl->nheld; i++)
		if (!memcmp(cl->held[i].stateid.other, sid->other,
			    sizeof(sid->other)))
			return (int)i;
	return -1;
}

static void held_forget(struct nfs42_client *cl,
			const struct nfs42_stateid *sid)
{
	int i;

	pthread_mutex_lock(&cl->lock);
	i = held_find(cl, sid);
	if (i >= 0)
		cl->held[i] = cl->held[--cl->nheld];
	pthread_mutex_unlock(&cl->lock);
}

unsigned int nfs42_delegations_held(const struct nfs42_client *cl)
{
	struct nfs42_client *c = (struct nfs42_client *)cl;
	unsigned int n;

	pthread_mutex_lock(&c->lock);
	n = c->nheld;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* Will the server never know this stateid again, whatever we send? */
static bool deleg_gone(int rc)
{
	return rc == 0 || rc == NFS4ERR_BAD_STATEID ||
	       rc == NFS4ERR_DELEG_REVOKED || rc == NFS4ERR_EXPIRED ||
	       rc == NFS4ERR_STALE_STATEID || rc == NFS4ERR_OLD_STATEID ||
	       rc == NFS4ERR_STALE || rc == NFS4ERR_ADMIN_REVOKED;
}

int nfs42_delegreturn(struct nfs42_client *cl, const struct nfs42_fh *fh,
		      const struct nfs42_stateid *sid)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	if (!c)
		return -ENOMEM;
	nfs42_op_putfh(c, fh);
	nfs42_op_delegreturn(c, sid);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	if (deleg_gone(rc))
		held_forget(cl, sid);
	return rc;
}

/* Return a delegation without nesting into nfs42_return_recalled(). */
static int return_one(struct nfs42_client *cl, const struct nfs42_fh *fh,
		      const struct nfs42_stateid *sid)
{
	bool was;
	int rc;

	pthread_mutex_lock(&cl->lock);
	was = cl->returning;
	cl->returning = true;
	pthread_mutex_unlock(&cl->lock);
	rc = nfs42_delegreturn(cl, fh, sid);
	pthread_mutex_lock(&cl->lock);
	cl->returning = was;
	pthread_mutex_unlock(&cl->lock);
	return rc;
}

void nfs42_deleg_granted(struct nfs42_client *cl, const struct nfs42_fh *fh,
			 const struct nfs42_stateid *sid)
{
	bool full;

	pthread_mutex_lock(&cl->lock);
	full = cl->nheld == NFS42_MAX_HELD_DELEGS;
	if (!full && held_find(cl, sid) < 0) {
		cl->held[cl->nheld].stateid = *sid;
		cl->held[cl->nheld].fh = *fh;
		cl->nheld++;
	}
	pthread_mutex_unlock(&cl->lock);
	/* one we could not keep track of would never be returned */
	if (full)
		(void)return_one(cl, fh, sid);
}

/*
 * After a compound: return the delegations recalled meanwhile (the
 * callback thread only queued them).  Not while another return runs on
 * this client (DELEGRETURN is a compound too), nor when the application
 * serves recalls itself (keep_recalls).
 */
void nfs42_return_recalled(struct nfs42_client *cl)
{
	struct nfs42_recall r[NFS42_MAX_RECALLS];
	unsigned int n, i;

	nfs42_return_recalled_layouts(cl);
	pthread_mutex_lock(&cl->lock);
	if (cl->keep_recalls || cl->returning || cl->nrecalls == 0) {
		pthread_mutex_unlock(&cl->lock);
		return;
	}
	pthread_mutex_unlock(&cl->lock);
	n = nfs42_take_recalls(cl, r, NFS42_MAX_RECALLS);
	for (i = 0; i < n; i++)
		(void)return_one(cl, &r[i].fh, &r[i].stateid);
}

int nfs42_return_delegations(struct nfs42_client *cl)
{
	struct nfs42_held_deleg d;
	int rc, first = 0;
	unsigned int tries = 0;

	for (;;) {
		pthread_mutex_lock(&cl->lock);
		if (cl->nheld == 0 || tries++ >= NFS42_MAX_HELD_DELEGS) {
			pthread_mutex_unlock(&cl->lock);
			break;
		}
		d = cl->held[cl->nheld - 1];
		pthread_mutex_unlock(&cl->lock);
		rc = return_one(cl, &d.fh, &d.stateid);
		if (!deleg_gone(rc)) {
			/* kept: the server revokes it in time */
			held_forget(cl, &d.stateid);
			if (!first)
				first = rc;
		}
	}
	return first;
}

static unsigned int queued_recalls(struct nfs42_client *cl)
{
	unsigned int n;

	pthread_mutex_lock(&cl->lock);
	n = cl->nrecalls;
	pthread_mutex_unlock(&cl->lock);
	return n;
}

int nfs42_serve_recalls(struct nfs42_client *cl, int timeout_ms, bool give_back,
			struct nfs42_recall *recalls, unsigned int max,
			unsigned int *taken)
{
	struct nfs42_recall r[NFS42_MAX_RECALLS];
	unsigned int n, i;
	int rc;

	*taken = 0;
	rc = nfs42_poll_until(cl, timeout_ms, queued_recalls);
	if (rc <= 0)
		return rc;
	n = nfs42_take_recalls(cl, r, NFS42_MAX_RECALLS);
	*taken = n;
	if (recalls)
		memcpy(recalls, r, (n < max ? n : max) * sizeof(*r));
	rc = 0;
	for (i = 0; i < n && give_back && !rc; i++)
		rc = nfs42_delegreturn(cl, &r[i].fh, &r[i].stateid);
	return rc;
}

int nfs42_seq_status_flags(struct nfs42_client *cl, uint32_t *flags)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	const struct nfs42_res *seq;
	int rc;

	if (!c)
		return -ENOMEM;
	rc = nfs42_compound_run(c);
	seq = nfs42_compound_seq_res(c);
	if (!rc && !seq)
		rc = -EPROTO;
	if (!rc)
		*flags = seq->u.sequence.status_flags;
	nfs42_compound_free(c);
	return rc;
}

int nfs42_test_stateid(struct nfs42_client *cl, const struct nfs42_stateid *sid,
		       uint32_t *status)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	const struct nfs42_res *r;
	int rc;

	if (!c)
		return -ENOMEM;
	nfs42_op_test_stateid(c, sid, 1);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, 0);
	if (!rc && (!r || r->u.test_stateid.n != 1))
		rc = -EPROTO;
	if (!rc)
		*status = r->u.test_stateid.status[0];
	nfs42_compound_free(c);
	return rc;
}

int nfs42_free_stateid(struct nfs42_client *cl, const struct nfs42_stateid *sid)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	if (!c)
		return -ENOMEM;
	nfs42_op_free_stateid(c, sid);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}
