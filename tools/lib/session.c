/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* NFSv4.1 session: EXCHANGE_ID, CREATE_SESSION, slots, teardown. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define EXCHGID4_FLAG_CONFIRMED_R 0x80000000u

uint32_t nfs42_server_flags(const struct nfs42_client *cl)
{
	return cl->server_exchgid_flags;
}

uint64_t nfs42_clientid(const struct nfs42_client *cl)
{
	return cl->clientid;
}

const uint8_t *nfs42_sessionid(const struct nfs42_client *cl)
{
	return cl->sessionid;
}

bool nfs42_has_session(const struct nfs42_client *cl)
{
	return cl->have_session;
}

uint32_t nfs42_max_request(const struct nfs42_client *cl)
{
	return cl->maxreq;
}

uint32_t nfs42_max_response(const struct nfs42_client *cl)
{
	return cl->maxresp;
}

uint32_t nfs42_slot_count(const struct nfs42_client *cl)
{
	return cl->nslots;
}

uint32_t nfs42_io_size(const struct nfs42_client *cl)
{
	uint32_t lim = cl->maxresp < cl->maxreq ? cl->maxresp : cl->maxreq;
	uint32_t sz = 1u << 20;

	/* leave room for RPC and compound headers, round to 4 KiB */
	if (lim && lim < sz + 1024)
		sz = lim > 8192 ? (lim - 1024) & ~4095u : 4096;
	return sz;
}

static bool slot_usable(const struct nfs42_slot *s)
{
	return !s->busy && !s->poisoned;
}

int nfs42_slot_get(struct nfs42_client *cl, uint32_t *slot, uint32_t *seqid,
		   uint32_t *highest)
{
	int64_t deadline = nfs42_now_ms() + cl->timeout_ms;
	struct timespec ts;
	uint32_t i, good;

	pthread_mutex_lock(&cl->lock);
	for (;;) {
		good = 0;
		for (i = 0; i < cl->nslots; i++) {
			if (!cl->slots[i].poisoned)
				good++;
			if (slot_usable(&cl->slots[i]))
				break;
		}
		if (i < cl->nslots)
			break;
		if (!good || nfs42_now_ms() > deadline) {
			pthread_mutex_unlock(&cl->lock);
			nfs42_set_error(cl, "no usable session slot");
			return -EAGAIN;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&cl->slot_cond, &cl->lock, &ts);
	}
	cl->slots[i].busy = true;
	*slot = i;
	*seqid = cl->slots[i].seqid + 1;
	*highest = 0;
	for (i = 0; i < cl->nslots; i++)
		if (cl->slots[i].busy)
			*highest = i;
	pthread_mutex_unlock(&cl->lock);
	return 0;
}

void nfs42_slot_put(struct nfs42_client *cl, uint32_t slot, bool consumed,
		    bool poison)
{
	pthread_mutex_lock(&cl->lock);
	if (consumed)
		cl->slots[slot].seqid++;
	else if (poison)
		cl->slots[slot].poisoned = true;
	cl->slots[slot].busy = false;
	pthread_cond_signal(&cl->slot_cond);
	pthread_mutex_unlock(&cl->lock);
}

static int fail_op(struct nfs42_client *cl, const char *what, int rc)
{
	if (rc > 0)
		nfs42_set_error(cl, "%s: %s", what, nfs42_strerror(rc));
	return rc;
}

static int exchange_id(struct nfs42_client *cl)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	const struct nfs42_res *r;
	int rc, idx;

	if (!c)
		return -ENOMEM;
	nfs42_compound_no_sequence(c);
	idx = nfs42_op_exchange_id(c, cl->verifier, cl->owner_id,
				   strlen(cl->owner_id), cl->exchgid_flags);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (rc == 0 && r) {
		cl->clientid = r->u.exchange_id.clientid;
		cl->cs_seqid = r->u.exchange_id.seqid;
		cl->server_exchgid_flags = r->u.exchange_id.flags;
		cl->have_clientid = true;
	}
	nfs42_compound_free(c);
	return fail_op(cl, "EXCHANGE_ID", rc);
}

static void session_from_reply(struct nfs42_client *cl,
			       const struct nfs42_res *r)
{
	uint32_t i;

	memcpy(cl->sessionid, r->u.create_session.sessionid,
	       NFS4_SESSIONID_SIZE);
	cl->maxreq = r->u.create_session.fore_maxreq;
	cl->maxresp = r->u.create_session.fore_maxresp;
	cl->maxops = r->u.create_session.fore_maxops;
	cl->nslots = r->u.create_session.fore_maxreqs;
	if (cl->nslots > cl->slots_wanted)
		cl->nslots = cl->slots_wanted;
	if (cl->nslots < 1)
		cl->nslots = 1;
	for (i = 0; i < NFS42_MAX_SLOTS; i++)
		cl->slots[i] = (struct nfs42_slot){ 0 };
	cl->cb_nslots = r->u.create_session.back_maxreqs;
	if (cl->cb_nslots > NFS42_CB_SLOTS)
		cl->cb_nslots = NFS42_CB_SLOTS;
	memset(cl->cb_seqid, 0, sizeof(cl->cb_seqid));
	cl->have_session = true;
}

static int create_session(struct nfs42_client *cl)
{
	struct nfs42_chan_attrs fore = {
		.maxreq = 1049620 + 8192,
		.maxresp = 1049620 + 8192,
		.maxresp_cached = 8192,
		.maxops = 64,
		.maxreqs = cl->slots_wanted,
	};
	struct nfs42_chan_attrs back = {
		.maxreq = 16384,
		.maxresp = 16384,
		.maxresp_cached = 0,
		.maxops = 8,
		.maxreqs = NFS42_CB_SLOTS,
	};
	struct nfs42_compound *c = nfs42_compound_new(cl);
	const struct nfs42_res *r;
	uint32_t flags = 0;
	int rc, idx;

	if (!c)
		return -ENOMEM;
	if (cl->want_back_channel)
		flags |= CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
	nfs42_compound_no_sequence(c);
	idx = nfs42_op_create_session(c, cl->clientid, cl->cs_seqid, flags,
				      &fore, &back, cl->cb_program, cl->uid,
				      cl->gid, cl->machinename);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (rc == 0 && r) {
		pthread_mutex_lock(&cl->lock);
		session_from_reply(cl, r);
		pthread_mutex_unlock(&cl->lock);
		cl->cs_seqid++;
	}
	nfs42_compound_free(c);
	return fail_op(cl, "CREATE_SESSION", rc);
}

static int reclaim_complete(struct nfs42_client *cl)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	if (!c)
		return -ENOMEM;
	nfs42_op_reclaim_complete(c, false);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	if (rc == NFS4ERR_COMPLETE_ALREADY)
		rc = 0;
	return fail_op(cl, "RECLAIM_COMPLETE", rc);
}

int nfs42_session_create(struct nfs42_client *cl)
{
	int rc;

	rc = exchange_id(cl);
	if (!rc)
		rc = create_session(cl);
	if (!rc)
		rc = reclaim_complete(cl);
	return rc;
}

static int destroy_one(struct nfs42_client *cl, bool session)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	if (!c)
		return -ENOMEM;
	nfs42_compound_no_sequence(c);
	if (session)
		nfs42_op_destroy_session(c, cl->sessionid);
	else
		nfs42_op_destroy_clientid(c, cl->clientid);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

int nfs42_session_destroy(struct nfs42_client *cl)
{
	int rc = 0, rc2;

	if (cl->dead_err) {
		cl->have_session = cl->have_clientid = false;
		return cl->dead_err;
	}
	if (cl->have_session) {
		/* what the server would otherwise recall from nobody */
		(void)nfs42_return_delegations(cl);
		rc = destroy_one(cl, true);
		cl->have_session = false;
		if (rc > 0)
			fail_op(cl, "DESTROY_SESSION", rc);
	}
	if (cl->have_clientid) {
		rc2 = destroy_one(cl, false);
		cl->have_clientid = false;
		if (rc2 > 0)
			fail_op(cl, "DESTROY_CLIENTID", rc2);
		if (!rc)
			rc = rc2;
	}
	return rc;
}

int nfs42_client_create(const struct nfs42_opts *o, struct nfs42_client **out)
{
	int rc;

	rc = nfs42_connect(o, out);
	if (!rc)
		rc = nfs42_session_create(*out);
	return rc;
}
