/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * The fuzzer's actors: their clients (NFSv4.1/4.2 sessions, NFSv4.0
 * SETCLIENTID, NFSv3 with MOUNT), data-server sessions, reconnection
 * (same session on a new connection, or a new incarnation: the same
 * owner with a new verifier, which ends the old one's state), and their
 * misbehaviour on the back channel.
 */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fz.h"
#include "internal.h"

double fz_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

bool fz_actor_v4(const struct fz_actor *a)
{
	return a->kind == FZ_V41 || a->kind == FZ_V42;
}

static enum nfs42_cb_verdict cb_filter(struct nfs42_client *cl, void *arg,
				       uint32_t *fail)
{
	struct fz_actor *a = arg;
	static const uint32_t wrong[] = { NFS4ERR_BADHANDLE,
					  NFS4ERR_SERVERFAULT, NFS4ERR_DELAY,
					  NFS4ERR_BAD_STATEID,
					  NFS4ERR_RESOURCE };

	switch (a->cb_mode) {
	case 1:
		return NFS42_CB_DROP;
	case 2:
		*fail = wrong[(a->incarnation + a->id) % 5];
		return NFS42_CB_FAIL_OPS;
	case 3:
		return NFS42_CB_GARBAGE;
	default:
		return NFS42_CB_ANSWER;
	}
}

static void actor_opts(struct fz_seq *s, struct fz_actor *a,
		       struct nfs42_opts *o, bool ds)
{
	nfs42_opts_init(o);
	o->host = s->cfg->host;
	o->port = ds ? s->cfg->ds_port : s->cfg->port;
	o->uid = a->uid;
	o->gid = a->gid;
	o->owner_id = a->owner;
	o->minorversion = a->kind == FZ_V41 ? 1 : 2;
	o->keep_recalls = true;
	o->slots = 4;
	o->timeout_ms = s->cfg->timeout_ms;
	/* at the end: a restart waited for the old incarnation's recalled
	 * delegations to be revoked, a lease period (Ganesha 6.5 without
	 * patch 0166; kept for a server without it) */
	if (s->tearing_down)
		o->timeout_ms = 30000;
	o->connect_timeout_ms = s->cfg->timeout_ms;
	if (ds) {
		o->exchgid_flags = EXCHGID4_FLAG_USE_PNFS_DS;
		o->no_back_channel = true;
	}
}

/* Free a client without a word to the server (its state stays). */
static void drop_client(struct nfs42_client **clp)
{
	struct nfs42_client *cl = *clp;

	if (!cl)
		return;
	cl->have_session = false;
	cl->have_clientid = false;
	cl->nheld = 0;
	cl->nlayouts = 0;
	nfs42_client_free(cl);
	*clp = NULL;
}

/* DESTROY_SESSION, then DESTROY_CLIENTID alone: 0 or the status. */
static int destroy_client(struct nfs42_client *cl)
{
	struct nfs42_compound *c;
	int rc = 0;

	if (!cl || !cl->have_session)
		return -ENOTCONN;
	c = nfs42_compound_new(cl);
	nfs42_compound_no_sequence(c);
	nfs42_compound_no_retry(c);
	nfs42_op_destroy_session(c, cl->sessionid);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	c = nfs42_compound_new(cl);
	nfs42_compound_no_sequence(c);
	nfs42_compound_no_retry(c);
	nfs42_op_destroy_clientid(c, cl->clientid);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	cl->have_session = false;
	return rc;
}

/* NFSv4.0: SETCLIENTID + SETCLIENTID_CONFIRM with a new verifier, a
 * callback address nobody listens on (no delegations). */
static int v40_setclientid(struct fz_seq *s, struct fz_actor *a)
{
	struct nfs42_compound *c = nfs42_compound_new(a->cl);
	const struct nfs42_res *r;
	struct nfs42_xdr x, d;
	uint8_t verf[8], confirm[8];
	uint64_t clientid = 0;
	int rc, idx;

	memcpy(verf, &a->incarnation, 4);
	memcpy(verf + 4, &s->seed, 4);
	nfs42_compound_set_minorversion(c, 0);
	nfs42_compound_no_retry(c);
	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, OP_SETCLIENTID);
	nfs42_xdr_put_fixed(&x, verf, 8);
	nfs42_xdr_put_opaque(&x, a->owner, strlen(a->owner));
	nfs42_xdr_put_u32(&x, 0x40000000); /* cb_program */
	nfs42_xdr_put_string(&x, "tcp");
	nfs42_xdr_put_string(&x, "127.0.0.1.0.9"); /* port 9: nobody */
	nfs42_xdr_put_u32(&x, (uint32_t)a->id);
	idx = nfs42_op_raw(c, OP_SETCLIENTID, x.buf, x.len);
	nfs42_xdr_free(&x);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (rc == 0 && r && r->u.raw.len >= 16) {
		nfs42_xdr_dec_init(&d, r->u.raw.data, r->u.raw.len);
		nfs42_xdr_get_u64(&d, &clientid);
		nfs42_xdr_get_fixed(&d, confirm, 8);
	} else if (rc == 0) {
		rc = -EBADMSG;
	}
	nfs42_compound_free(c);
	if (rc)
		return rc;
	c = nfs42_compound_new(a->cl);
	nfs42_compound_set_minorversion(c, 0);
	nfs42_compound_no_retry(c);
	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, OP_SETCLIENTID_CONFIRM);
	nfs42_xdr_put_u64(&x, clientid);
	nfs42_xdr_put_fixed(&x, confirm, 8);
	nfs42_op_raw(c, OP_SETCLIENTID_CONFIRM, x.buf, x.len);
	nfs42_xdr_free(&x);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	if (!rc) {
		a->clientid40 = clientid;
		a->v40_up = true;
		memset(a->owner_seqid, 0, sizeof(a->owner_seqid));
		memset(a->owner_confirmed, 0, sizeof(a->owner_confirmed));
		memset(a->owner_reply, 0, sizeof(a->owner_reply));
		/* a new client (a new verifier each time): its open owners
		 * take any seqid first */
		memset(a->owner_seqid_known, 1, sizeof(a->owner_seqid_known));
		a->lock_seqid = 0;
	}
	return rc;
}

static int v3_connect(struct fz_seq *s, struct fz_actor *a)
{
	struct nfs3_fh root, dir;
	unsigned int i;
	int rc;

	rc = nfs3_connect(&a->v3);
	if (rc)
		return rc;
	nfs3_set_cred(&a->v3, a->uid, a->gid);
	rc = nfs3_mount(&a->v3, s->cfg->export, &root);
	if (rc)
		goto fail;
	rc = nfs3_lookup(&a->v3, &root, nfs3_str(s->dir), &dir);
	if (rc)
		goto fail;
	for (i = 0; i < s->nfiles; i++) {
		struct fz_file *f = &s->files[i];

		if (!f->have_fh3 &&
		    nfs3_lookup(&a->v3, &dir, nfs3_str(f->name), &f->fh3) == 0)
			f->have_fh3 = true;
	}
	a->v3_up = true;
	return 0;
fail:
	nfs3_close(&a->v3);
	return rc ? rc : -EIO;
}

static unsigned int usable_slots(const struct nfs42_client *cl)
{
	unsigned int i, n = 0;

	for (i = 0; i < cl->nslots; i++)
		n += !cl->slots[i].poisoned;
	return n;
}

/*
 * Connect a again if its connection or session is gone (nothing to do
 * otherwise).  new_client: as a new incarnation (a new verifier: the
 * server ends the old one's state); otherwise, where a session is there,
 * a new connection under the same session.
 */
int fz_actor_connect(struct fz_seq *s, struct fz_actor *a, bool new_client)
{
	struct nfs42_opts o;
	int rc;

	if (a->kind == FZ_V3) {
		if (a->v3_up)
			return 0;
		return v3_connect(s, a);
	}
	/* a restart that timed out: the server answers it once the old
	 * incarnation's recalled delegations are revoked (a lease period,
	 * Ganesha 6.5 without patch 0166); meanwhile this actor rests */
	if (!s->tearing_down && a->down_until && fz_now_s() < a->down_until)
		return -EAGAIN;
	if (a->cl && !a->cl->dead_err &&
	    (a->kind == FZ_V40 ? a->v40_up : a->cl->have_session))
		return 0;
	/* a session that is gone, or has too few usable slots left */
	if (a->cl && (a->cl->dead_err == -ESTALE || usable_slots(a->cl) < 2))
		new_client = true;
	s->st->reconnects++;
	if (a->cl && !new_client && a->kind != FZ_V40 && a->cl->have_session) {
		/* same session, a new TCP connection under the old fd */
		struct sockaddr_in sin = { .sin_family = AF_INET,
					   .sin_port = htons(s->cfg->port) };
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		unsigned int i;

		inet_pton(AF_INET, s->cfg->host, &sin.sin_addr);
		if (fd >= 0 && connect(fd, (void *)&sin, sizeof(sin)) == 0 &&
		    dup2(fd, a->cl->fd) >= 0) {
			close(fd);
			a->cl->dead_err = 0;
			/* replies lost with the old connection: slots
			 * whose state is unknown are never reused */
			for (i = 0; i < a->cl->nslots; i++)
				if (a->cl->slots[i].busy)
					a->cl->slots[i].poisoned = true;
			return 0;
		}
		if (fd >= 0)
			close(fd);
	}
	drop_client(&a->cl);
	drop_client(&a->ds);
	a->incarnation++;
	actor_opts(s, a, &o, false);
	if (a->kind == FZ_V40) {
		a->v40_up = false;
		rc = nfs42_connect(&o, &a->cl);
		if (!rc)
			rc = v40_setclientid(s, a);
	} else {
		rc = nfs42_client_create(&o, &a->cl);
	}
	if (rc) {
		if (rc == -ETIMEDOUT)
			a->down_until = fz_now_s() + 12;
		fz_log(s, "actor %d: connect: %s (%s)", a->id,
		       nfs42_strerror(rc),
		       a->cl ? nfs42_client_error(a->cl) : "");
		drop_client(&a->cl);
		return rc;
	}
	nfs42_set_cb_filter(a->cl, cb_filter, a);
	return 0;
}

/* Its data-server session (made when first needed). */
int fz_actor_ds(struct fz_seq *s, struct fz_actor *a, struct nfs42_client **out)
{
	struct nfs42_opts o;
	int rc;

	if (a->ds && !a->ds->dead_err && a->ds->have_session) {
		*out = a->ds;
		return 0;
	}
	drop_client(&a->ds);
	if (!s->cfg->ds_port)
		return -ENOTSUP;
	actor_opts(s, a, &o, true);
	rc = nfs42_client_create(&o, &a->ds);
	if (rc) {
		drop_client(&a->ds);
		return rc;
	}
	*out = a->ds;
	return 0;
}

/* Drop the connection now (no goodbye): the server keeps the state. */
void fz_actor_drop(struct fz_seq *s, struct fz_actor *a)
{
	s->st->drops++;
	if (a->cl && a->cl->fd >= 0) {
		shutdown(a->cl->fd, SHUT_RDWR);
		a->cl->dead_err = -ECONNRESET;
	}
	if (a->kind == FZ_V3 && a->v3_up) {
		nfs3_close(&a->v3);
		a->v3_up = false;
	}
}

/*
 * End of a sequence (destroy) or of a run: the client destroyed so that
 * the server must forget its state.  A client whose connection or session
 * is gone is first replaced by a new incarnation (which ends the old
 * one's state), then destroyed.  NFSv4.0 has no destroy: a new
 * incarnation with no state stands for it.
 */
void fz_actor_close(struct fz_seq *s, struct fz_actor *a, bool destroy)
{
	int rc;

	if (a->kind == FZ_V3) {
		if (a->v3_up)
			nfs3_close(&a->v3);
		a->v3_up = false;
		return;
	}
	if (destroy) {
		if (a->ds && !a->ds->dead_err)
			destroy_client(a->ds);
		if (a->kind == FZ_V40) {
			/* a reboot: SETCLIENTID_CONFIRM of a new verifier
			 * ends the old incarnation's state */
			fz_actor_drop(s, a);
			rc = fz_actor_connect(s, a, true);
			if (rc != 0) {
				fz_log(s, "actor %d: new incarnation: %s",
				       a->id, nfs42_strerror(rc));
				s->destroy_failed = true;
			}
		} else {
			rc = -1;
			if (a->cl && !a->cl->dead_err && a->cl->have_session)
				rc = destroy_client(a->cl);
			if (rc != 0) {
				fz_actor_drop(s, a);
				if (fz_actor_connect(s, a, true) == 0)
					rc = destroy_client(a->cl);
			}
			if (rc != 0) {
				fz_log(s, "actor %d: destroy: %s", a->id,
				       nfs42_strerror(rc));
				s->destroy_failed = true;
			}
		}
	}
	drop_client(&a->ds);
	drop_client(&a->cl);
}
