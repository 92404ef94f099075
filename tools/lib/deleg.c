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
			 const struct nfs42_stateid *sid, uint32_t type,
			 const struct nfs42_attrs *at)
{
	struct nfs42_held_deleg *d;
	bool full;

	pthread_mutex_lock(&cl->lock);
	full = cl->nheld == NFS42_MAX_HELD_DELEGS;
	if (!full && held_find(cl, sid) < 0) {
		d = &cl->held[cl->nheld++];
		memset(d, 0, sizeof(*d));
		d->stateid = *sid;
		d->fh = *fh;
		/* RFC 9754's types: a read or write delegation, with the
		 * timestamps */
		d->times = type == OPEN_DELEGATE_WRITE_ATTRS_DELEG ||
			   type == OPEN_DELEGATE_READ_ATTRS_DELEG;
		d->type = type == OPEN_DELEGATE_WRITE_ATTRS_DELEG ?
				  OPEN_DELEGATE_WRITE :
			  type == OPEN_DELEGATE_READ_ATTRS_DELEG ?
				  OPEN_DELEGATE_READ :
				  type;
		if (at && nfs42_bm_isset(&at->mask, FATTR4_TIME_ACCESS) &&
		    nfs42_bm_isset(&at->mask, FATTR4_TIME_MODIFY)) {
			d->atime = at->time_access;
			d->mtime = at->time_modify;
			d->times_known = true;
		}
		/* sc of RFC 8881 10.4.3, from the OPEN's own GETATTR */
		if (at && nfs42_bm_isset(&at->mask, FATTR4_CHANGE) &&
		    nfs42_bm_isset(&at->mask, FATTR4_SIZE)) {
			d->change = at->change;
			d->size = at->size;
			d->size_known = true;
		}
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

/* ------------------------------------------------ CB_GETATTR (20.1) */

static bool fh_equal(const struct nfs42_fh *a, const struct nfs42_fh *b)
{
	return a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/* Called with cl->lock held: the write delegation held on fh, or NULL. */
static struct nfs42_held_deleg *held_write(struct nfs42_client *cl,
					   const struct nfs42_fh *fh)
{
	unsigned int i;

	for (i = 0; i < cl->nheld; i++)
		if (cl->held[i].type == OPEN_DELEGATE_WRITE &&
		    fh_equal(&cl->held[i].fh, fh))
			return &cl->held[i];
	return NULL;
}

int nfs42_held_delegation(const struct nfs42_client *cl,
			  const struct nfs42_fh *fh,
			  struct nfs42_held_deleg *out)
{
	struct nfs42_client *c = (struct nfs42_client *)cl;
	unsigned int i;
	int rc = -ENOENT;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nheld && rc; i++)
		if (fh_equal(&c->held[i].fh, fh)) {
			*out = c->held[i];
			rc = 0;
		}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

void nfs42_set_cb_getattr(struct nfs42_client *cl, bool answer)
{
	pthread_mutex_lock(&cl->lock);
	cl->no_cb_getattr = !answer;
	pthread_mutex_unlock(&cl->lock);
}

uint64_t nfs42_cb_getattrs_answered(const struct nfs42_client *cl)
{
	struct nfs42_client *c = (struct nfs42_client *)cl;
	uint64_t n;

	pthread_mutex_lock(&c->lock);
	n = c->cb_getattrs;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/*
 * CB_GETATTR (RFC 8881 20.1): the change attribute and size of a file
 * this client holds a write delegation on, as 10.4.3 has the client
 * answer: the change attribute it was given at the grant, one higher
 * while it has modifications the server may not have (operations in
 * flight), and the size the file has with them.  This client writes
 * through: once its operations are answered the server has its data,
 * and the unchanged change attribute with the file's size tells it so.
 */
static struct nfs42_time time_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (struct nfs42_time){ ts.tv_sec, (uint32_t)ts.tv_nsec };
}

/* Called with cl->lock held: d's times to answer, if it has them. */
static bool held_times(const struct nfs42_held_deleg *d,
		       struct nfs42_time *atime, struct nfs42_time *mtime)
{
	if (!d->times || !d->times_known)
		return false;
	*atime = d->atime;
	*mtime = d->inflight ? time_now() : d->mtime;
	return true;
}

static void put_time(struct nfs42_xdr *x, const struct nfs42_time *t)
{
	nfs42_xdr_put_u64(x, (uint64_t)t->seconds);
	nfs42_xdr_put_u32(x, t->nseconds);
}
uint32_t nfs42_cb_getattr(struct nfs42_client *cl, struct nfs42_xdr *args,
			  struct nfs42_xdr *res)
{
	struct nfs42_bitmap want, have;
	struct nfs42_held_deleg *d;
	uint64_t change = 0, size = 0;
	struct nfs42_time atime, mtime;
	bool times = false;
	uint32_t status = NFS4_OK;
	struct nfs42_fh fh;

	if (!nfs42_xdr_get_opaque(args, fh.data, &fh.len, NFS4_FHSIZE) ||
	    !nfs42_bitmap_decode(args, &want))
		return NFS4ERR_BADXDR;
	pthread_mutex_lock(&cl->lock);
	d = held_write(cl, &fh);
	if (cl->no_cb_getattr) {
		status = NFS4ERR_NOTSUPP;
	} else if (!d) {
		status = NFS4ERR_BADHANDLE;
	} else if (!d->size_known || d->inflight_unsure) {
		status = NFS4ERR_DELAY;
	} else {
		change = d->change + (d->inflight ? 1 : 0);
		size = d->inflight ? d->pending_size : d->size;
		times = held_times(d, &atime, &mtime);
		cl->cb_getattrs++;
	}
	pthread_mutex_unlock(&cl->lock);
	if (status != NFS4_OK)
		return status;

	/* fattr4: the bitmap of what follows, then the values in bit order
	 * (change is 3, size 4, time_deleg_access 84, time_deleg_modify 85:
	 * RFC 9754 has the holder of the timestamps answer them) */
	nfs42_bm_clear(&have);
	if (nfs42_bm_isset(&want, FATTR4_CHANGE))
		nfs42_bm_set(&have, FATTR4_CHANGE);
	if (nfs42_bm_isset(&want, FATTR4_SIZE))
		nfs42_bm_set(&have, FATTR4_SIZE);
	if (times && nfs42_bm_isset(&want, FATTR4_TIME_DELEG_ACCESS))
		nfs42_bm_set(&have, FATTR4_TIME_DELEG_ACCESS);
	if (times && nfs42_bm_isset(&want, FATTR4_TIME_DELEG_MODIFY))
		nfs42_bm_set(&have, FATTR4_TIME_DELEG_MODIFY);
	nfs42_bitmap_encode(res, &have);
	nfs42_xdr_put_u32(
		res,
		8 * (nfs42_bm_isset(&have, FATTR4_CHANGE) +
		     nfs42_bm_isset(&have, FATTR4_SIZE)) +
			12 * (nfs42_bm_isset(&have, FATTR4_TIME_DELEG_ACCESS) +
			      nfs42_bm_isset(&have, FATTR4_TIME_DELEG_MODIFY)));
	if (nfs42_bm_isset(&have, FATTR4_CHANGE))
		nfs42_xdr_put_u64(res, change);
	if (nfs42_bm_isset(&have, FATTR4_SIZE))
		nfs42_xdr_put_u64(res, size);
	if (nfs42_bm_isset(&have, FATTR4_TIME_DELEG_ACCESS))
		put_time(res, &atime);
	if (nfs42_bm_isset(&have, FATTR4_TIME_DELEG_MODIFY))
		put_time(res, &mtime);
	return NFS4_OK;
}

/* ------------------------------ what this client does to its files */

void nfs42_deleg_note_fh(struct nfs42_compound *c, uint32_t op,
			 const struct nfs42_fh *fh)
{
	switch (op) {
	case OP_SAVEFH:
		c->saved_fh = c->cur_fh;
		c->saved_fh_known = c->cur_fh_known;
		break;
	case OP_RESTOREFH:
		c->cur_fh = c->saved_fh;
		c->cur_fh_known = c->saved_fh_known;
		break;
	default: /* PUTFH with fh; LOOKUP, OPEN, CREATE...: unknown */
		c->cur_fh_known = fh != NULL;
		if (fh)
			c->cur_fh = *fh;
		break;
	}
}

void nfs42_deleg_note_change(struct nfs42_compound *c, int idx, uint32_t op,
			     uint64_t offset, uint64_t length)
{
	struct nfs42_deleg_effect *e;

	if (c->neffects == NFS42_MAX_DELEG_EFFECTS) {
		c->effects_lost = true;
		return;
	}
	e = &c->effects[c->neffects++];
	memset(e, 0, sizeof(*e));
	e->idx = idx;
	e->op = op;
	e->fh_known = c->cur_fh_known;
	if (e->fh_known)
		e->fh = c->cur_fh;
	e->offset = offset;
	e->length = length;
}

void nfs42_deleg_note_raw(struct nfs42_compound *c, int idx, uint32_t op)
{
	switch (op) {
	case OP_PUTFH:
	case OP_PUTROOTFH:
	case OP_PUTPUBFH:
	case OP_LOOKUP:
	case OP_LOOKUPP:
	case OP_OPEN:
	case OP_CREATE:
	case OP_SAVEFH:
	case OP_RESTOREFH:
		nfs42_deleg_note_fh(c, OP_LOOKUP, NULL);
		break;
	default:
		break;
	}
	switch (op) {
	case OP_OPEN:
	case OP_WRITE:
	case OP_SETATTR:
	case OP_ALLOCATE:
	case OP_DEALLOCATE:
	case OP_COPY:
	case OP_CLONE:
	case OP_LAYOUTGET:
	case OP_LAYOUTCOMMIT:
		nfs42_deleg_note_change(c, idx, NFS42_DELEG_EFFECT_UNKNOWN, 0,
					0);
		break;
	default:
		break;
	}
}

static uint64_t end_of(uint64_t offset, uint64_t length)
{
	return length > UINT64_MAX - offset ? UINT64_MAX : offset + length;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Called with cl->lock held: the size e makes, if it can be told before
 * its reply; false when it cannot. */
static bool effect_size_before(const struct nfs42_deleg_effect *e,
			       uint64_t size, uint64_t *out)
{
	switch (e->op) {
	case OP_WRITE:
	case OP_ALLOCATE:
		*out = max_u64(size, end_of(e->offset, e->length));
		return true;
	case OP_COPY:
	case OP_CLONE:
		*out = max_u64(size, end_of(e->offset, e->length));
		return e->length != 0; /* 0: to the source's end */
	case OP_SETATTR:
	case OP_OPEN: /* UNCHECKED4 with a size: truncates */
		*out = e->offset;
		return true;
	case OP_LAYOUTCOMMIT:
		*out = max_u64(size, end_of(e->offset, 1));
		return true;
	case OP_DEALLOCATE:
		*out = size;
		return true;
	default: /* a read-write LAYOUTGET, a raw operation */
		return false;
	}
}

/* Called with cl->lock held: d's size after e answered r (NULL: no
 * result); false when it cannot be told. */
static bool effect_size_after(const struct nfs42_deleg_effect *e,
			      const struct nfs42_res *r, uint64_t size,
			      uint64_t *out)
{
	*out = size;
	if (!r)
		return false;
	if (r->status != NFS4_OK) /* not done: nothing changed */
		return true;
	switch (e->op) {
	case OP_WRITE:
		*out = max_u64(size, end_of(e->offset, r->u.write.count));
		return true;
	case OP_COPY:
		if (r->u.copy.has_callback_id) /* goes on in the background */
			return false;
		*out = max_u64(size, end_of(e->offset, r->u.copy.count));
		return true;
	default:
		return effect_size_before(e, size, out);
	}
}

/* Called with cl->lock held: no size can be told for any write
 * delegation (an operation on a file handle not known here). */
static void held_write_all_unknown(struct nfs42_client *cl)
{
	unsigned int i;

	for (i = 0; i < cl->nheld; i++)
		if (cl->held[i].type == OPEN_DELEGATE_WRITE)
			cl->held[i].size_known = false;
}

/* Called with cl->lock held: the write delegation e was counted on. */
static struct nfs42_held_deleg *effect_deleg(struct nfs42_client *cl,
					     const struct nfs42_deleg_effect *e)
{
	int i = held_find(cl, &e->deleg);

	return i >= 0 && cl->held[i].type == OPEN_DELEGATE_WRITE ?
		       &cl->held[i] :
		       NULL;
}

void nfs42_deleg_io_begin(struct nfs42_compound *c)
{
	struct nfs42_client *cl = c->cl;
	struct nfs42_held_deleg *d;
	struct nfs42_deleg_effect *e;
	uint64_t size;
	unsigned int i;

	if (!c->neffects && !c->effects_lost)
		return;
	pthread_mutex_lock(&cl->lock);
	if (c->effects_lost)
		held_write_all_unknown(cl);
	for (i = 0; i < c->neffects; i++) {
		e = &c->effects[i];
		e->counted = false;
		if (!e->fh_known) {
			held_write_all_unknown(cl);
			continue;
		}
		d = held_write(cl, &e->fh);
		if (!d)
			continue;
		size = d->inflight ? d->pending_size : d->size;
		e->unsure = !effect_size_before(e, size, &d->pending_size);
		if (e->unsure) {
			d->pending_size = size;
			d->inflight_unsure++;
		}
		d->inflight++;
		e->deleg = d->stateid;
		e->counted = true;
	}
	pthread_mutex_unlock(&cl->lock);
}

void nfs42_deleg_io_end(struct nfs42_compound *c, int rc)
{
	struct nfs42_client *cl = c->cl;
	struct nfs42_held_deleg *d;
	struct nfs42_deleg_effect *e;
	const struct nfs42_res *r;
	unsigned int i;

	if (!c->neffects)
		return;
	pthread_mutex_lock(&cl->lock);
	for (i = 0; i < c->neffects; i++) {
		e = &c->effects[i];
		if (!e->counted)
			continue;
		e->counted = false;
		d = effect_deleg(cl, e); /* gone if returned meanwhile */
		if (!d)
			continue;
		/* rc < 0: no reply, the server may have done it or not */
		r = rc < 0 ? NULL : nfs42_res(c, e->idx);
		if (e->op == NFS42_DELEG_EFFECT_UNKNOWN) {
			if (rc < 0 || (r && r->status == NFS4_OK))
				d->size_known = false;
		} else if (!effect_size_after(e, r && r->op == e->op ? r : NULL,
					      d->size, &d->size) &&
			   (r || rc < 0)) {
			d->size_known = false;
		}
		/* a modification done: the holder of the timestamps moves
		 * mtime (RFC 9754 section 5) */
		if (d->times && (rc < 0 || (r && r->status == NFS4_OK)))
			d->mtime = time_now();
		if (e->unsure && d->inflight_unsure)
			d->inflight_unsure--;
		if (d->inflight && --d->inflight == 0)
			d->pending_size = d->size;
	}
	pthread_mutex_unlock(&cl->lock);
}
