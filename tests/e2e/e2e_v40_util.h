/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * NFSv4.0 for the e2e tests (e2e_proto_fuzz_findings,
 * e2e_proto_stateid_matrix): a client of SETCLIENTID and
 * SETCLIENTID_CONFIRM over our client library's connection, its open
 * owner's OPEN and OPEN_CONFIRM, and a callback service the server can
 * probe (CB_NULL) so that it grants delegations.
 */
#ifndef E2E_V40_UTIL_H
#define E2E_V40_UTIL_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nfs42_e2e.h"
#include "nfs42_xdr.h"

static inline int v40_run_free(struct nfs42_compound *c)
{
	int rc = nfs42_compound_run(c);

	nfs42_compound_free(c);
	return rc;
}

struct v40 {
	struct nfs42_client *cl;
	uint64_t clientid;
	uint32_t seqid; /* the open owner's next */
};

static inline struct nfs42_compound *v40_compound(struct v40 *v)
{
	struct nfs42_compound *c = nfs42_compound_new(v->cl);

	ck_assert_ptr_nonnull(c);
	nfs42_compound_set_minorversion(c, 0);
	nfs42_compound_no_retry(c);
	return c;
}

/* SETCLIENTID of owner with callback address cb_uaddr: the clientid in
 * v, the confirm verifier in confirm. */
static inline void v40_setclientid(struct v40 *v, const char *owner,
				   const char *cb_uaddr, uint8_t confirm[8])
{
	static const uint8_t verf[8] = "fzf-v40";
	const struct nfs42_res *r;
	struct nfs42_compound *c;
	struct nfs42_xdr x, d;
	int idx;

	c = v40_compound(v);
	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, OP_SETCLIENTID);
	nfs42_xdr_put_fixed(&x, verf, 8);
	nfs42_xdr_put_opaque(&x, owner, strlen(owner));
	nfs42_xdr_put_u32(&x, 0x40000000); /* cb_program */
	nfs42_xdr_put_string(&x, "tcp");
	nfs42_xdr_put_string(&x, cb_uaddr);
	nfs42_xdr_put_u32(&x, 1);
	idx = nfs42_op_raw(c, OP_SETCLIENTID, x.buf, x.len);
	nfs42_xdr_free(&x);
	ck_nfs_ok(v->cl, nfs42_compound_run(c));
	r = nfs42_res(c, idx);
	ck_assert_uint_ge(r->u.raw.len, 16);
	nfs42_xdr_dec_init(&d, r->u.raw.data, r->u.raw.len);
	ck_assert(nfs42_xdr_get_u64(&d, &v->clientid));
	ck_assert(nfs42_xdr_get_fixed(&d, confirm, 8));
	nfs42_compound_free(c);
}

/* SETCLIENTID_CONFIRM: its status. */
static inline int v40_confirm(struct v40 *v, const uint8_t confirm[8])
{
	struct nfs42_compound *c = v40_compound(v);
	struct nfs42_xdr x;

	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, OP_SETCLIENTID_CONFIRM);
	nfs42_xdr_put_u64(&x, v->clientid);
	nfs42_xdr_put_fixed(&x, confirm, 8);
	nfs42_op_raw(c, OP_SETCLIENTID_CONFIRM, x.buf, x.len);
	nfs42_xdr_free(&x);
	return v40_run_free(c);
}

/* A connection to port, NFSv4.0 (v->cl). */
static inline void v40_dial(struct v40 *v, uint16_t port)
{
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.port = port;
	ck_assert_int_eq(nfs42_connect(&o, &v->cl), 0);
	v->seqid = 0;
}

/* SETCLIENTID (a callback address nobody serves) + SETCLIENTID_CONFIRM,
 * on a connection to port. */
static inline void v40_connect(struct v40 *v, uint16_t port)
{
	uint8_t confirm[8];
	char owner[64];

	static int n;

	v40_dial(v, port);
	snprintf(owner, sizeof(owner), "fzf-v40-%d-%u-%d", (int)getpid(),
		 (unsigned int)port, ++n);
	v40_setclientid(v, owner, "127.0.0.1.0.9", confirm); /* port 9 */
	ck_nfs_ok(v->cl, v40_confirm(v, confirm));
}

/* The export's directory handle, in NFSv4.0. */
static inline void v40_export_fh(struct v40 *v, struct nfs42_fh *fh)
{
	const char *p = e2e_env("NFS42_EXPORT");
	struct nfs42_compound *c = v40_compound(v);
	char *path = strdup(p), *save = NULL, *comp;
	const struct nfs42_res *r;
	int idx;

	nfs42_op_putrootfh(c);
	for (comp = strtok_r(path, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save))
		nfs42_op_lookup(c, comp);
	idx = nfs42_op_getfh(c);
	ck_nfs_ok(v->cl, nfs42_compound_run(c));
	r = nfs42_res(c, idx);
	*fh = r->u.fh;
	nfs42_compound_free(c);
	free(path);
}

/* PUTFH dir + OPEN name (CLAIM_NULL) with access by the open owner
 * of v (its next seqid) + GETFH: the compound, run and NFS4_OK; the
 * OPEN's index in *oidx, GETFH's is *oidx + 1.
 */
static inline struct nfs42_compound *
v40_open_name(struct v40 *v, const char *owner, const struct nfs42_fh *dir,
	      const char *name, uint32_t access, int *oidx)
{
	struct nfs42_open_args oa;
	struct nfs42_compound *c;

	memset(&oa, 0, sizeof(oa));
	oa.seqid = v->seqid++;
	oa.share_access = access;
	oa.owner_clientid = v->clientid;
	oa.owner = owner;
	oa.owner_len = strlen(owner);
	oa.createmode = NFS42_NOCREATE;
	oa.claim = CLAIM_NULL;
	oa.name = name;
	c = v40_compound(v);
	nfs42_op_putfh(c, dir);
	*oidx = nfs42_op_open(c, &oa);
	nfs42_op_getfh(c);
	ck_nfs_ok(v->cl, nfs42_compound_run(c));
	return c;
}

/* OPEN_CONFIRM of the open stateid *sid of fh with the open owner's next
 * seqid: *sid becomes the confirmed stateid. */
static inline void v40_open_confirm(struct v40 *v, const struct nfs42_fh *fh,
				    struct nfs42_stateid *sid)
{
	const struct nfs42_res *r;
	struct nfs42_compound *c;
	struct nfs42_xdr x, d;
	int idx;

	c = v40_compound(v);
	nfs42_op_putfh(c, fh);
	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, OP_OPEN_CONFIRM);
	nfs42_xdr_put_u32(&x, sid->seqid);
	nfs42_xdr_put_fixed(&x, sid->other, sizeof(sid->other));
	nfs42_xdr_put_u32(&x, v->seqid++);
	idx = nfs42_op_raw(c, OP_OPEN_CONFIRM, x.buf, x.len);
	nfs42_xdr_free(&x);
	ck_nfs_ok(v->cl, nfs42_compound_run(c));
	r = nfs42_res(c, idx);
	nfs42_xdr_dec_init(&d, r->u.raw.data, r->u.raw.len);
	ck_assert(nfs42_xdr_get_u32(&d, &sid->seqid));
	ck_assert(nfs42_xdr_get_fixed(&d, sid->other, sizeof(sid->other)));
	nfs42_compound_free(c);
}

/* ---------------------------------- an NFSv4.0 client's callbacks */

/* An NFSv4.0 client's callback service on 127.0.0.1 (the server
 * connects to it): CB_NULL is answered while answer is set, else read
 * and left unanswered, as is every CB_COMPOUND (a client that hangs)
 * unless answer_recalls is set: then each is taken for a CB_RECALL and
 * answered NFS4_OK (a holder that acknowledges a recall and keeps the
 * delegation).
 */
struct cb40 {
	int lfd;
	uint16_t port;
	pthread_t accepter;
	atomic_int answer;
	atomic_int answer_recalls;
	atomic_int nulls; /* CB_NULL calls received */
	atomic_int recalls; /* CB_COMPOUNDs answered */
};

static inline bool cb40_read_all(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

struct cb40_conn {
	struct cb40 *cb;
	int fd;
};

/* One connection of the server's: a record per call (one fragment). */
static inline void *cb40_serve(void *arg)
{
	struct cb40_conn *k = arg;
	uint32_t mark, len, call[6];
	char skip[512];

	while (cb40_read_all(k->fd, &mark, 4)) {
		len = ntohl(mark) & 0x7fffffffU;
		if (len < sizeof(call) ||
		    !cb40_read_all(k->fd, call, sizeof(call)))
			break;
		for (len -= sizeof(call); len > 0;) {
			uint32_t n = len < sizeof(skip) ? len : sizeof(skip);

			if (!cb40_read_all(k->fd, skip, n))
				goto out;
			len -= n;
		}
		if (ntohl(call[5]) != 0) { /* CB_COMPOUND */
			/* accepted, AUTH_NONE verifier, SUCCESS; NFS4_OK,
			 * an empty tag, one result: CB_RECALL (4), NFS4_OK
			 */
			uint32_t reply[12] = { htonl(0x80000000U | 44),
					       call[0],
					       htonl(1),
					       0,
					       0,
					       0,
					       0,
					       0,
					       0,
					       htonl(1),
					       htonl(4),
					       0 };

			if (!atomic_load(&k->cb->answer_recalls))
				continue;
			atomic_fetch_add(&k->cb->recalls, 1);
			if (write(k->fd, reply, sizeof(reply)) !=
			    (ssize_t)sizeof(reply))
				break;
			continue;
		}
		atomic_fetch_add(&k->cb->nulls, 1);
		if (atomic_load(&k->cb->answer)) {
			/* accepted, AUTH_NONE verifier, SUCCESS, no results */
			uint32_t reply[7] = { htonl(0x80000000U | 24),
					      call[0],
					      htonl(1),
					      0,
					      0,
					      0,
					      0 };

			if (write(k->fd, reply, sizeof(reply)) !=
			    (ssize_t)sizeof(reply))
				break;
		}
	}
out:
	close(k->fd);
	free(k);
	return NULL;
}

static inline void *cb40_accept(void *arg)
{
	struct cb40 *cb = arg;
	int fd;

	while ((fd = accept(cb->lfd, NULL, NULL)) >= 0) {
		struct cb40_conn *k = malloc(sizeof(*k));
		pthread_t t;

		k->cb = cb;
		k->fd = fd;
		if (pthread_create(&t, NULL, cb40_serve, k) != 0) {
			close(fd);
			free(k);
			continue;
		}
		pthread_detach(t);
	}
	return NULL;
}

static inline void cb40_start(struct cb40 *cb)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cb->lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(cb->lfd, 0);
	ck_assert_int_eq(bind(cb->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(cb->lfd, 8), 0);
	ck_assert_int_eq(getsockname(cb->lfd, (struct sockaddr *)&sa, &sl), 0);
	cb->port = ntohs(sa.sin_port);
	atomic_store(&cb->answer, 1);
	atomic_store(&cb->answer_recalls, 0);
	atomic_store(&cb->nulls, 0);
	atomic_store(&cb->recalls, 0);
	ck_assert_int_eq(pthread_create(&cb->accepter, NULL, cb40_accept, cb),
			 0);
}

static inline void cb40_stop(struct cb40 *cb)
{
	shutdown(cb->lfd, SHUT_RDWR);
	pthread_join(cb->accepter, NULL);
	close(cb->lfd);
}

#endif /* E2E_V40_UTIL_H */
