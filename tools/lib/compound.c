/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* COMPOUND builder, runner (with SEQUENCE and slot handling) and decoder. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/*
 * NFS4ERR_DELAY (RFC 8881 15.1.1.3: the server cannot do it now, try
 * again) is retried with exponential backoff, 10 ms doubling to 1 s,
 * for as long as the client's reply timeout (nfs42_opts.timeout_ms) from
 * the first attempt; DELAY_RETRY_MS when that is not set.
 */
#define DELAY_RETRY_MS 30000

struct nfs42_compound *nfs42_compound_new(struct nfs42_client *cl)
{
	struct nfs42_compound *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cl = cl;
	c->minorversion = cl ? cl->minorversion : 2;
	nfs42_xdr_enc_init(&c->ops);
	return c;
}

void *nfs42_arena_alloc(struct nfs42_compound *c, size_t size)
{
	struct nfs42_arena *a;

	if (size > SIZE_MAX - sizeof(*a))
		return NULL;
	a = calloc(1, sizeof(*a) + size);
	if (!a)
		return NULL;
	a->next = c->arena;
	c->arena = a;
	return a->data;
}

static void clear_results(struct nfs42_compound *c)
{
	struct nfs42_arena *a;

	while ((a = c->arena)) {
		c->arena = a->next;
		free(a);
	}
	free(c->res);
	free(c->reply);
	c->res = NULL;
	c->reply = NULL;
	c->nres = 0;
	c->seq_sent = false;
}

void nfs42_compound_free(struct nfs42_compound *c)
{
	if (!c)
		return;
	if (c->inflight) /* started, never finished: wait for its slot */
		nfs42_compound_finish(c);
	clear_results(c);
	nfs42_xdr_free(&c->ops);
	free(c->opnums);
	free(c);
}

void nfs42_compound_set_tag(struct nfs42_compound *c, const char *tag)
{
	snprintf(c->tag, sizeof(c->tag), "%s", tag ? tag : "");
}

void nfs42_compound_set_minorversion(struct nfs42_compound *c, uint32_t mv)
{
	c->minorversion = mv;
}

void nfs42_compound_no_sequence(struct nfs42_compound *c)
{
	c->no_seq = true;
}

void nfs42_compound_no_retry(struct nfs42_compound *c)
{
	c->no_retry = true;
}

void nfs42_compound_cachethis(struct nfs42_compound *c, bool cachethis)
{
	c->cachethis = cachethis;
}

unsigned int nfs42_compound_nops(const struct nfs42_compound *c)
{
	return c->nops;
}

static unsigned int first_user_res(const struct nfs42_compound *c)
{
	return c->seq_sent ? 1 : 0;
}

unsigned int nfs42_compound_nres(const struct nfs42_compound *c)
{
	unsigned int f = first_user_res(c);

	return c->nres > f ? c->nres - f : 0;
}

const struct nfs42_res *nfs42_res(const struct nfs42_compound *c, int idx)
{
	if (idx < 0 || (unsigned int)idx >= nfs42_compound_nres(c))
		return NULL;
	return &c->res[idx + first_user_res(c)];
}

int nfs42_res_status(const struct nfs42_compound *c, int idx)
{
	const struct nfs42_res *r = nfs42_res(c, idx);

	return r ? (int)r->status : -1;
}

const struct nfs42_res *nfs42_compound_seq_res(const struct nfs42_compound *c)
{
	return c->seq_sent && c->nres ? &c->res[0] : NULL;
}

int nfs42_compound_failed_op(const struct nfs42_compound *c)
{
	unsigned int n = nfs42_compound_nres(c);

	if (!n || c->res[c->nres - 1].status == NFS4_OK)
		return -1;
	return n - 1;
}

uint32_t nfs42_compound_opnum(const struct nfs42_compound *c, int idx)
{
	if (idx < 0 || (unsigned int)idx >= c->nops)
		return 0;
	return c->opnums[idx];
}

static void encode_header(struct nfs42_compound *c, struct nfs42_xdr *out,
			  unsigned int nops)
{
	nfs42_xdr_put_string(out, c->tag);
	nfs42_xdr_put_u32(out, c->minorversion);
	nfs42_xdr_put_u32(out, nops);
}

int nfs42_compound_encode(struct nfs42_compound *c, struct nfs42_xdr *out)
{
	if (c->enc_err)
		return c->enc_err;
	encode_header(c, out, c->nops);
	nfs42_xdr_put_raw(out, c->ops.buf, c->ops.len);
	return out->err;
}

static int decode_body(struct nfs42_compound *c, const uint8_t *buf, size_t len)
{
	struct nfs42_xdr x;
	uint32_t status, n, i;
	int rc;

	nfs42_xdr_dec_init(&x, buf, len);
	nfs42_xdr_get_u32(&x, &status);
	nfs42_xdr_skip_opaque(&x); /* tag */
	if (!nfs42_xdr_get_u32(&x, &n))
		return -EBADMSG;
	if (n > nfs42_xdr_remaining(&x) / 8)
		return -EBADMSG;
	c->res = calloc(n ? n : 1, sizeof(*c->res));
	if (!c->res)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rc = nfs42_decode_res(c, &x, &c->res[i]);
		if (rc < 0)
			return -EBADMSG;
		c->nres = i + 1;
		if (rc == 1)
			break; /* unknown op: raw rest kept */
	}
	if (c->nres && c->res[c->nres - 1].status != status && !(c->nres < n))
		return -EBADMSG; /* compound status must be the last one's */
	return status;
}

int nfs42_compound_decode(struct nfs42_compound *c, const void *buf, size_t len)
{
	int rc;

	clear_results(c);
	c->reply = malloc(len ? len : 1);
	if (!c->reply)
		return -ENOMEM;
	if (len)
		memcpy(c->reply, buf, len);
	rc = decode_body(c, c->reply, len);
	if (rc == -EBADMSG && c->cl)
		nfs42_set_error(c->cl, "malformed COMPOUND reply");
	return rc;
}

/* Decode the reply record (owned by us from here on). */
static int take_reply(struct nfs42_compound *c, uint8_t *reply, size_t len,
		      size_t body)
{
	int rc;

	c->reply = reply;
	rc = decode_body(c, reply + body, len - body);
	if (rc == -EBADMSG || rc == -ENOMEM)
		nfs42_set_error(c->cl, "malformed COMPOUND reply (%zu bytes)",
				len);
	return rc;
}

/* Take a slot (if use_seq), encode and send; the reply is waited for by
 * finish_once(). */
/* The compound c went out: counted (nfs42_calls_sent, _ops_sent). */
static void count_sent(struct nfs42_compound *c, bool use_seq)
{
	struct nfs42_client *cl = c->cl;
	unsigned int i;
	uint32_t op;

	__atomic_fetch_add(&cl->calls_sent, 1, __ATOMIC_RELAXED);
	if (use_seq)
		__atomic_fetch_add(&cl->ops_sent[OP_SEQUENCE], 1,
				   __ATOMIC_RELAXED);
	for (i = 0; i < c->nops; i++) {
		op = c->opnums[i] < NFS42_OPS_COUNTED ? c->opnums[i] : 0;
		__atomic_fetch_add(&cl->ops_sent[op], 1, __ATOMIC_RELAXED);
	}
}

uint64_t nfs42_calls_sent(const struct nfs42_client *cl)
{
	return __atomic_load_n(&cl->calls_sent, __ATOMIC_RELAXED);
}

uint64_t nfs42_ops_sent(const struct nfs42_client *cl, uint32_t op)
{
	if (op >= NFS42_OPS_COUNTED)
		op = 0;
	return __atomic_load_n(&cl->ops_sent[op], __ATOMIC_RELAXED);
}

static int start_once(struct nfs42_compound *c, bool use_seq)
{
	struct nfs42_client *cl = c->cl;
	struct nfs42_xdr x;
	uint32_t xid = nfs42_next_xid(cl), seqid, highest;
	int rc;

	nfs42_xdr_enc_init(&x);
	nfs42_rpc_encode_call(cl, &x, xid, 1);
	encode_header(c, &x, c->nops + (use_seq ? 1 : 0));
	c->seq_sent = false;
	c->slot_taken = false;
	if (use_seq) {
		rc = nfs42_slot_get(cl, &c->slot, &seqid, &highest);
		if (rc) {
			nfs42_xdr_free(&x);
			return rc;
		}
		c->slot_taken = true;
		nfs42_xdr_put_u32(&x, OP_SEQUENCE);
		nfs42_xdr_put_fixed(&x, cl->sessionid, NFS4_SESSIONID_SIZE);
		nfs42_xdr_put_u32(&x, seqid);
		nfs42_xdr_put_u32(&x, c->slot);
		nfs42_xdr_put_u32(&x, highest);
		nfs42_xdr_put_bool(&x, c->cachethis);
	}
	nfs42_xdr_put_raw(&x, c->ops.buf, c->ops.len);
	nfs42_deleg_io_begin(c);
	c->inflight = nfs42_rpc_start(cl, &x, xid, &rc);
	nfs42_xdr_free(&x);
	if (!rc)
		count_sent(c, use_seq);
	if (rc) /* perhaps sent in part: as if unanswered */
		nfs42_deleg_io_end(c, rc < 0 ? rc : -EIO);
	return rc;
}

static int finish_once(struct nfs42_compound *c)
{
	uint8_t *reply = NULL;
	size_t len, body;
	int rc;

	rc = nfs42_rpc_finish(c->cl, c->inflight, &reply, &len, &body);
	c->inflight = NULL;
	if (!rc) {
		c->seq_sent = c->use_seq;
		rc = take_reply(c, reply, len, body);
	}
	nfs42_deleg_io_end(c, rc);
	return rc;
}

/* Did the server process our SEQUENCE (slot seqid consumed)? */
static bool seq_consumed(const struct nfs42_compound *c)
{
	return c->seq_sent && c->nres && c->res[0].op == OP_SEQUENCE &&
	       c->res[0].status == NFS4_OK;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Give the slot back, as the reply (or its absence) says. */
static void release_slot(struct nfs42_compound *c, int rc)
{
	if (c->slot_taken)
		nfs42_slot_put(c->cl, c->slot, seq_consumed(c),
			       rc == -ETIMEDOUT || rc == -EBADMSG);
	c->slot_taken = false;
}

static int check_runnable(struct nfs42_compound *c)
{
	if (!c->cl)
		return -ENOTCONN;
	if (c->enc_err) {
		nfs42_set_error(c->cl, "cannot encode compound: %s",
				nfs42_strerror(c->enc_err));
		return c->enc_err;
	}
	return 0;
}

int nfs42_compound_run(struct nfs42_compound *c)
{
	struct nfs42_client *cl = c->cl;
	int64_t give_up;
	int rc, delay = 10;

	rc = check_runnable(c);
	if (rc)
		return rc;
	give_up = nfs42_now_ms() +
		  (cl->timeout_ms > 0 ? cl->timeout_ms : DELAY_RETRY_MS);
	c->use_seq = !c->no_seq && cl->have_session;
	for (;;) {
		clear_results(c);
		rc = start_once(c, c->use_seq);
		if (!rc)
			rc = finish_once(c);
		release_slot(c, rc);
		if (rc != NFS4ERR_DELAY || c->no_retry ||
		    nfs42_now_ms() + delay > give_up) {
			nfs42_return_recalled(cl);
			return rc;
		}
		sleep_ms(delay);
		delay = delay * 2 > 1000 ? 1000 : delay * 2;
	}
}

int nfs42_compound_start(struct nfs42_compound *c)
{
	int rc;

	c->start_err = 0;
	rc = check_runnable(c);
	if (!rc) {
		c->use_seq = !c->no_seq && c->cl->have_session;
		clear_results(c);
		rc = start_once(c, c->use_seq);
	}
	if (rc) {
		release_slot(c, rc);
		c->start_err = rc;
	}
	return rc;
}

int nfs42_compound_finish(struct nfs42_compound *c)
{
	int rc;

	if (c->start_err || !c->inflight)
		return c->start_err ? c->start_err : -EINVAL;
	rc = finish_once(c);
	release_slot(c, rc);
	/* NFS4ERR_DELAY: retried in place, synchronously */
	if (rc == NFS4ERR_DELAY && !c->no_retry)
		rc = nfs42_compound_run(c);
	return rc;
}
