/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Backchannel server side: CB_NULL and CB_COMPOUND (RFC 5661 section 20)
 * received on the fore channel connection.  CB_SEQUENCE is handled here,
 * CB_RECALL is queued for nfs42_take_recalls() (deleg.c); every other
 * operation goes to the user hook (default NFS4ERR_NOTSUPP), CB_GETATTR
 * to the library when the hook leaves it (deleg.c).
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

#define CB_PROC_NULL 0
#define CB_PROC_COMPOUND 1

static void reply_header(struct nfs42_xdr *r, uint32_t xid, uint32_t stat)
{
	nfs42_xdr_put_u32(r, 0); /* record mark */
	nfs42_xdr_put_u32(r, xid);
	nfs42_xdr_put_u32(r, RPC_REPLY);
	nfs42_xdr_put_u32(r, RPC_MSG_ACCEPTED);
	nfs42_xdr_put_u32(r, RPC_AUTH_NONE);
	nfs42_xdr_put_u32(r, 0);
	nfs42_xdr_put_u32(r, stat);
}

static bool skip_referring_calls(struct nfs42_xdr *x)
{
	uint32_t i, n, m;

	if (!nfs42_xdr_get_u32(x, &n))
		return false;
	for (i = 0; i < n && !x->err; i++) {
		nfs42_xdr_skip(x, NFS4_SESSIONID_SIZE);
		if (!nfs42_xdr_get_u32(x, &m))
			return false;
		if (m > nfs42_xdr_remaining(x) / 8)
			return nfs42_xdr_fail(x);
		nfs42_xdr_skip(x, (size_t)m * 8);
	}
	return !x->err;
}

/* Called with cl->lock held. */
static uint32_t check_cb_slot(struct nfs42_client *cl, const uint8_t *sid,
			      uint32_t seq, uint32_t slot)
{
	if (!cl->have_session ||
	    memcmp(sid, cl->sessionid, NFS4_SESSIONID_SIZE))
		return NFS4ERR_BADSESSION;
	if (slot >= cl->cb_nslots || slot >= NFS42_CB_SLOTS)
		return NFS4ERR_BADSLOT;
	if (seq == cl->cb_seqid[slot] && seq)
		return NFS4ERR_RETRY_UNCACHED_REP;
	if (seq != cl->cb_seqid[slot] + 1)
		return NFS4ERR_SEQ_MISORDERED;
	cl->cb_seqid[slot] = seq;
	return NFS4_OK;
}

/* CB_SEQUENCE: validate and encode the result body. */
static uint32_t cb_sequence(struct nfs42_client *cl, struct nfs42_xdr *x,
			    struct nfs42_xdr *res)
{
	uint8_t sid[NFS4_SESSIONID_SIZE];
	uint32_t seq, slot, highest;
	uint32_t status;
	bool cachethis;

	nfs42_xdr_get_fixed(x, sid, sizeof(sid));
	nfs42_xdr_get_u32(x, &seq);
	nfs42_xdr_get_u32(x, &slot);
	nfs42_xdr_get_u32(x, &highest);
	nfs42_xdr_get_bool(x, &cachethis);
	if (!skip_referring_calls(x))
		return NFS4ERR_BADXDR;
	pthread_mutex_lock(&cl->lock);
	status = check_cb_slot(cl, sid, seq, slot);
	pthread_mutex_unlock(&cl->lock);
	if (status != NFS4_OK)
		return status;
	nfs42_xdr_put_fixed(res, sid, sizeof(sid));
	nfs42_xdr_put_u32(res, seq);
	nfs42_xdr_put_u32(res, slot);
	nfs42_xdr_put_u32(res, cl->cb_nslots - 1);
	nfs42_xdr_put_u32(res, cl->cb_nslots - 1);
	return NFS4_OK;
}

static bool known_cb_op(uint32_t op)
{
	return op >= OP_CB_GETATTR && op <= OP_CB_OFFLOAD;
}

/* The application's hook first; CB_GETATTR left to it by a hook that
 * did not take it (NFS4ERR_NOTSUPP, arguments untouched) or when there is
 * none is answered by the library (deleg.c). */
static uint32_t cb_hook_or_library(struct nfs42_client *cl, uint32_t op,
				   struct nfs42_xdr *x, struct nfs42_xdr *body)
{
	size_t pos = x->pos;
	uint32_t status = NFS4ERR_NOTSUPP;

	if (cl->cb_fn)
		status = cl->cb_fn(cl, cl->cb_arg, op, x, body);
	if (status == NFS4ERR_NOTSUPP && op == OP_CB_GETATTR && x->pos == pos &&
	    body->len == 0)
		status = nfs42_cb_getattr(cl, x, body);
	return status;
}

/* Run one CB op; encodes opnum + status (+ body) into out. */
static uint32_t cb_one_op(struct nfs42_client *cl, uint32_t op, uint32_t idx,
			  struct nfs42_xdr *x, struct nfs42_xdr *out)
{
	struct nfs42_xdr body;
	uint32_t status;

	nfs42_xdr_enc_init(&body);
	if (!known_cb_op(op)) {
		op = OP_CB_ILLEGAL;
		status = NFS4ERR_OP_ILLEGAL;
	} else if (op == OP_CB_SEQUENCE) {
		status = idx ? NFS4ERR_SEQUENCE_POS : cb_sequence(cl, x, &body);
	} else if (idx == 0) {
		status = NFS4ERR_OP_NOT_IN_SESSION;
	} else if (cl->cb_failing) {
		status = cl->cb_fail_status;
	} else if (op == OP_CB_RECALL) {
		status = nfs42_cb_recall(cl, x);
	} else if (op == OP_CB_LAYOUTRECALL) {
		status = nfs42_cb_layoutrecall(cl, x);
	} else {
		status = cb_hook_or_library(cl, op, x, &body);
	}
	if (x->err && status == NFS4_OK)
		status = NFS4ERR_BADXDR;
	nfs42_xdr_put_u32(out, op);
	nfs42_xdr_put_u32(out, status);
	if (status == NFS4_OK)
		nfs42_xdr_put_raw(out, body.buf, body.len);
	nfs42_xdr_free(&body);
	return status;
}

/* Tests (nfs42_set_cb_extra_results): results beyond the ops of the
 * call, each CB_ILLEGAL with NFS4ERR_OP_ILLEGAL. */
static void cb_extra_results(struct nfs42_client *cl, struct nfs42_xdr *r,
			     size_t countpos, uint32_t n)
{
	uint32_t extra =
		__atomic_load_n(&cl->cb_extra_results, __ATOMIC_RELAXED);
	uint32_t i;

	for (i = 0; i < extra; i++) {
		nfs42_xdr_put_u32(r, OP_CB_ILLEGAL);
		nfs42_xdr_put_u32(r, NFS4ERR_OP_ILLEGAL);
	}
	nfs42_xdr_patch_u32(r, countpos, n + extra);
}

static void cb_compound(struct nfs42_client *cl, struct nfs42_xdr *x,
			struct nfs42_xdr *r)
{
	const uint8_t *tag;
	uint32_t taglen, mv, ident, n, i, op, status = NFS4_OK;
	size_t statpos, countpos;

	nfs42_xdr_get_opaque_ref(x, &tag, &taglen, 1024);
	nfs42_xdr_get_u32(x, &mv);
	nfs42_xdr_get_u32(x, &ident);
	nfs42_xdr_get_u32(x, &n);
	if (x->err) {
		tag = NULL;
		taglen = 0;
		status = NFS4ERR_BADXDR;
		n = 0;
	} else if (mv != 1 && mv != 2) {
		status = NFS4ERR_MINOR_VERS_MISMATCH;
		n = 0;
	}
	statpos = nfs42_xdr_put_u32(r, status);
	nfs42_xdr_put_opaque(r, tag, taglen);
	countpos = nfs42_xdr_put_u32(r, 0);
	for (i = 0; i < n; i++) {
		if (!nfs42_xdr_get_u32(x, &op)) {
			status = NFS4ERR_BADXDR;
			break;
		}
		status = cb_one_op(cl, op, i, x, r);
		nfs42_xdr_patch_u32(r, countpos, i + 1);
		if (status != NFS4_OK)
			break;
	}
	if (status == NFS4_OK && n > 0)
		cb_extra_results(cl, r, countpos, n);
	nfs42_xdr_patch_u32(r, statpos, status);
}

/* What nfs42_set_cb_filter()'s filter wants done with this callback. */
static enum nfs42_cb_verdict cb_filter_verdict(struct nfs42_client *cl)
{
	enum nfs42_cb_verdict v = NFS42_CB_ANSWER;
	nfs42_cb_filter_fn fn;
	uint32_t fail = NFS4ERR_SERVERFAULT;
	void *arg;

	pthread_mutex_lock(&cl->lock);
	fn = cl->cb_filter;
	arg = cl->cb_filter_arg;
	pthread_mutex_unlock(&cl->lock);
	if (fn)
		v = fn(cl, arg, &fail);
	cl->cb_failing = v == NFS42_CB_FAIL_OPS;
	cl->cb_fail_status = fail;
	return v;
}

void nfs42_set_cb_extra_results(struct nfs42_client *cl, uint32_t n)
{
	__atomic_store_n(&cl->cb_extra_results, n, __ATOMIC_RELAXED);
}

int nfs42_cb_process(struct nfs42_client *cl, const uint8_t *buf, size_t len,
		     struct nfs42_xdr *r)
{
	struct nfs42_xdr x;
	uint32_t xid, mtype, rpcvers, prog, vers, proc, flavor;

	nfs42_xdr_dec_init(&x, buf, len);
	nfs42_xdr_get_u32(&x, &xid);
	nfs42_xdr_get_u32(&x, &mtype);
	nfs42_xdr_get_u32(&x, &rpcvers);
	nfs42_xdr_get_u32(&x, &prog);
	nfs42_xdr_get_u32(&x, &vers);
	nfs42_xdr_get_u32(&x, &proc);
	nfs42_xdr_get_u32(&x, &flavor); /* credential */
	nfs42_xdr_skip_opaque(&x);
	if (!x.err)
		__atomic_store_n(&cl->cb_last_flavor, (int)flavor,
				 __ATOMIC_RELAXED);
	nfs42_xdr_get_u32(&x, &flavor); /* verifier */
	nfs42_xdr_skip_opaque(&x);
	if (x.err || mtype != RPC_CALL)
		return x.err ? -EBADMSG : -EINVAL;
	if (rpcvers != 2) {
		nfs42_xdr_put_u32(r, 0);
		nfs42_xdr_put_u32(r, xid);
		nfs42_xdr_put_u32(r, RPC_REPLY);
		nfs42_xdr_put_u32(r, RPC_MSG_DENIED);
		nfs42_xdr_put_u32(r, 0); /* RPC_MISMATCH */
		nfs42_xdr_put_u32(r, 2);
		nfs42_xdr_put_u32(r, 2);
		return r->err;
	}
	switch (cb_filter_verdict(cl)) {
	case NFS42_CB_DROP:
		return -ECANCELED;
	case NFS42_CB_GARBAGE:
		reply_header(r, xid, RPC_GARBAGE_ARGS);
		return r->err;
	default:
		break;
	}
	if (prog != cl->cb_program) {
		reply_header(r, xid, RPC_PROG_UNAVAIL);
	} else if (vers != 1 && vers != 4) {
		reply_header(r, xid, RPC_PROG_MISMATCH);
		nfs42_xdr_put_u32(r, 1);
		nfs42_xdr_put_u32(r, 1);
	} else if (proc == CB_PROC_NULL) {
		reply_header(r, xid, RPC_SUCCESS);
	} else if (proc == CB_PROC_COMPOUND) {
		reply_header(r, xid, RPC_SUCCESS);
		cb_compound(cl, &x, r);
		cl->cb_failing = false;
	} else {
		reply_header(r, xid, RPC_PROC_UNAVAIL);
	}
	return r->err;
}
