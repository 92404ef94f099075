/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Transport: TCP connection, RPC record marking (RFC 5531 section 11),
 * call/reply matching by xid and dispatch of backchannel calls.
 *
 * Any thread waiting for a reply may become "the reader": it reads one
 * record, hands replies to their waiters and serves callback calls, then
 * lets the next waiter read.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

int64_t nfs42_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void nfs42_set_error(struct nfs42_client *cl, const char *fmt, ...)
{
	va_list ap;

	if (!cl)
		return;
	va_start(ap, fmt);
	vsnprintf(cl->errmsg, sizeof(cl->errmsg), fmt, ap);
	va_end(ap);
}

const char *nfs42_client_error(const struct nfs42_client *cl)
{
	return cl ? cl->errmsg : "no client";
}

/* Wait until fd is readable/writable; 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int64_t end = nfs42_now_ms() + timeout_ms;
	int rc, left;

	for (;;) {
		left = timeout_ms < 0 ? -1 : (int)(end - nfs42_now_ms());
		if (timeout_ms >= 0 && left < 0)
			left = 0;
		rc = poll(&pfd, 1, left);
		if (rc > 0)
			return 0;
		if (rc == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

/* After send/recv failed: 0 to try again (EINTR, or the socket became ready
 * for events), else -errno or the error of the wait. */
static int io_retry(int fd, short events, int timeout_ms)
{
	if (errno == EINTR)
		return 0;
	if (errno != EAGAIN && errno != EWOULDBLOCK)
		return -errno;
	return wait_fd(fd, events, timeout_ms);
}

/* Send (out) or receive exactly len bytes; on receive, EOF is
 * -ECONNRESET.  -ETIMEDOUT or -errno on failure.  A receive never blocks
 * in recv() (MSG_DONTWAIT, also on a blocking socket): it polls only when
 * nothing is there, so a reply already queued costs no poll(). */
static int xfer_all(int fd, uint8_t *p, size_t len, int timeout_ms, bool out)
{
	ssize_t n;
	int rc;

	while (len) {
		n = out ? send(fd, p, len, MSG_NOSIGNAL) :
			  recv(fd, p, len, MSG_DONTWAIT);
		if (n == 0 && !out)
			return -ECONNRESET;
		if (n < 0) {
			rc = io_retry(fd, out ? POLLOUT : POLLIN, timeout_ms);
			if (rc)
				return rc;
			continue;
		}
		p += n;
		len -= n;
	}
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t len, int timeout_ms)
{
	return xfer_all(fd, (uint8_t *)p, len, timeout_ms, true);
}

/* Read exactly len bytes; -ETIMEDOUT, -ECONNRESET on EOF, -errno. */
static int read_all(int fd, uint8_t *p, size_t len, int timeout_ms)
{
	return xfer_all(fd, p, len, timeout_ms, false);
}

/* buf[0..4) is the record mark slot; send the rest as one fragment. */
int nfs42_rm_send(int fd, const void *buf, size_t len, int timeout_ms)
{
	uint8_t *p = (uint8_t *)buf;
	uint32_t mark;

	if (len < 4 || len - 4 > 0x7fffffff)
		return -EINVAL;
	mark = 0x80000000u | (uint32_t)(len - 4);
	p[0] = mark >> 24;
	p[1] = mark >> 16;
	p[2] = mark >> 8;
	p[3] = mark;
	return write_all(fd, p, len, timeout_ms);
}

/*
 * Read one record, reassembling fragments.  *partial tells whether some
 * bytes of the record were consumed before a failure (the stream is then
 * out of sync).
 */
int nfs42_rm_recv(int fd, int timeout_ms, size_t maxlen, uint8_t **out,
		  size_t *outlen, bool *partial)
{
	uint8_t hdr[4], *buf = NULL, *nb;
	size_t len = 0;
	uint32_t mark, flen;
	bool last = false;
	int rc;

	*partial = false;
	while (!last) {
		rc = read_all(fd, hdr, 4, timeout_ms);
		if (rc)
			goto fail;
		*partial = true;
		mark = (uint32_t)hdr[0] << 24 | hdr[1] << 16 | hdr[2] << 8 |
		       hdr[3];
		last = mark & 0x80000000u;
		flen = mark & 0x7fffffffu;
		if (flen > maxlen - len) {
			rc = -EMSGSIZE;
			goto fail;
		}
		nb = realloc(buf, len + flen + 1);
		if (!nb) {
			rc = -ENOMEM;
			goto fail;
		}
		buf = nb;
		rc = read_all(fd, buf + len, flen, timeout_ms);
		if (rc)
			goto fail;
		len += flen;
	}
	*out = buf;
	*outlen = len;
	return 0;
fail:
	free(buf);
	return rc;
}

uint32_t nfs42_next_xid(struct nfs42_client *cl)
{
	uint32_t xid;

	pthread_mutex_lock(&cl->lock);
	xid = cl->next_xid++;
	pthread_mutex_unlock(&cl->lock);
	return xid;
}

void nfs42_rpc_encode_call(struct nfs42_client *cl, struct nfs42_xdr *x,
			   uint32_t xid, uint32_t proc)
{
	nfs42_rpc_encode_call_to(cl, x, xid, NFS42_PROGRAM, NFS42_VERSION,
				 proc);
}

void nfs42_rpc_encode_call_to(struct nfs42_client *cl, struct nfs42_xdr *x,
			      uint32_t xid, uint32_t prog, uint32_t vers,
			      uint32_t proc)
{
	size_t lenpos, start;
	uint32_t i;

	nfs42_xdr_put_u32(x, 0); /* record mark */
	nfs42_xdr_put_u32(x, xid);
	nfs42_xdr_put_u32(x, RPC_CALL);
	nfs42_xdr_put_u32(x, 2);
	nfs42_xdr_put_u32(x, prog);
	nfs42_xdr_put_u32(x, vers);
	nfs42_xdr_put_u32(x, proc);
	pthread_mutex_lock(&cl->lock);
	if (cl->auth == NFS42_AUTH_SYS) {
		nfs42_xdr_put_u32(x, RPC_AUTH_SYS);
		lenpos = nfs42_xdr_put_u32(x, 0);
		start = x->len;
		nfs42_xdr_put_u32(x, (uint32_t)time(NULL));
		nfs42_xdr_put_string(x, cl->machinename);
		nfs42_xdr_put_u32(x, cl->uid);
		nfs42_xdr_put_u32(x, cl->gid);
		nfs42_xdr_put_u32(x, cl->ngids);
		for (i = 0; i < cl->ngids; i++)
			nfs42_xdr_put_u32(x, cl->gids[i]);
		nfs42_xdr_patch_u32(x, lenpos, x->len - start);
	} else {
		nfs42_xdr_put_u32(x, RPC_AUTH_NONE);
		nfs42_xdr_put_u32(x, 0);
	}
	pthread_mutex_unlock(&cl->lock);
	nfs42_xdr_put_u32(x, RPC_AUTH_NONE); /* verifier */
	nfs42_xdr_put_u32(x, 0);
}

int nfs42_rpc_check_reply(struct nfs42_client *cl, const uint8_t *buf,
			  size_t len, uint32_t xid, size_t *body)
{
	struct nfs42_xdr x;
	uint32_t v, mtype, stat, lo = 0, hi = 0;

	nfs42_xdr_dec_init(&x, buf, len);
	nfs42_xdr_get_u32(&x, &v);
	nfs42_xdr_get_u32(&x, &mtype);
	nfs42_xdr_get_u32(&x, &stat);
	if (x.err || v != xid || mtype != RPC_REPLY) {
		nfs42_set_error(cl, "malformed RPC reply header");
		return -EBADMSG;
	}
	if (stat == RPC_MSG_DENIED) {
		nfs42_xdr_get_u32(&x, &stat);
		nfs42_xdr_get_u32(&x, &v);
		if (stat == 0)
			nfs42_set_error(cl, "RPC denied: version mismatch");
		else
			nfs42_set_error(cl, "RPC denied: auth error %u", v);
		return stat == 0 ? -EPROTO : -EACCES;
	}
	if (stat != RPC_MSG_ACCEPTED) {
		nfs42_set_error(cl, "malformed RPC reply status %u", stat);
		return -EBADMSG;
	}
	nfs42_xdr_get_u32(&x, &v); /* verifier flavor */
	nfs42_xdr_skip_opaque(&x);
	nfs42_xdr_get_u32(&x, &stat);
	if (x.err) {
		nfs42_set_error(cl, "truncated RPC reply header");
		return -EBADMSG;
	}
	if (stat == RPC_SUCCESS) {
		*body = x.pos;
		return 0;
	}
	if (stat == RPC_PROG_MISMATCH) {
		nfs42_xdr_get_u32(&x, &lo);
		nfs42_xdr_get_u32(&x, &hi);
	}
	nfs42_set_error(cl, "RPC call not accepted: accept_stat %u (%u-%u)",
			stat, lo, hi);
	return stat == RPC_GARBAGE_ARGS ? -EINVAL : -EPROTO;
}

static void mark_dead(struct nfs42_client *cl, int err)
{
	if (!cl->dead_err)
		cl->dead_err = err;
}

static int send_record(struct nfs42_client *cl, struct nfs42_xdr *x)
{
	int rc;

	if (x->err)
		return x->err;
	pthread_mutex_lock(&cl->send_lock);
	rc = nfs42_rm_send(cl->fd, x->buf, x->len, cl->timeout_ms);
	pthread_mutex_unlock(&cl->send_lock);
	if (rc) {
		pthread_mutex_lock(&cl->lock);
		mark_dead(cl, rc);
		pthread_mutex_unlock(&cl->lock);
		nfs42_set_error(cl, "cannot send to %s: %s", cl->peer,
				strerror(-rc));
	}
	return rc;
}

static void serve_callback(struct nfs42_client *cl, uint8_t *buf, size_t len)
{
	struct nfs42_xdr reply;

	nfs42_xdr_enc_init(&reply);
	if (nfs42_cb_process(cl, buf, len, &reply) == 0)
		send_record(cl, &reply);
	nfs42_xdr_free(&reply);
}

/* Called with cl->lock held; handles one record.  Returns 1 if it was a
 * callback call. */
static int dispatch_record(struct nfs42_client *cl, uint8_t *buf, size_t len)
{
	struct nfs42_pending *p;
	uint32_t xid, mtype;

	if (len < 8) {
		free(buf);
		return 0;
	}
	xid = (uint32_t)buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3];
	mtype = (uint32_t)buf[4] << 24 | buf[5] << 16 | buf[6] << 8 | buf[7];
	if (mtype == RPC_CALL) {
		cl->cb_calls++;
		pthread_mutex_unlock(&cl->lock);
		serve_callback(cl, buf, len);
		free(buf);
		pthread_mutex_lock(&cl->lock);
		return 1;
	}
	for (p = cl->pending; p; p = p->next) {
		if (p->xid == xid && !p->done) {
			p->buf = buf;
			p->len = len;
			p->done = true;
			return 0;
		}
	}
	free(buf); /* late reply of a timed-out call */
	return 0;
}

/* Called with cl->lock held, as the reader.  Reads one record. */
static int read_one(struct nfs42_client *cl, int timeout_ms, int *ncb)
{
	uint8_t *buf;
	size_t len;
	bool partial;
	int rc;

	cl->reader_busy = true;
	pthread_mutex_unlock(&cl->lock);
	rc = nfs42_rm_recv(cl->fd, timeout_ms, NFS42_MAX_RECORD, &buf, &len,
			   &partial);
	pthread_mutex_lock(&cl->lock);
	cl->reader_busy = false;
	if (rc == 0)
		*ncb += dispatch_record(cl, buf, len);
	else if (rc != -ETIMEDOUT || partial)
		mark_dead(cl, rc == -ETIMEDOUT ? -EPROTO : rc);

	pthread_cond_broadcast(&cl->cond);
	return rc;
}

static void remove_pending(struct nfs42_client *cl, struct nfs42_pending *p)
{
	struct nfs42_pending **pp;

	for (pp = &cl->pending; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			return;
		}
	}
}

static void timed_wait(struct nfs42_client *cl, int64_t deadline)
{
	struct timespec ts;
	int64_t ms;

	clock_gettime(CLOCK_REALTIME, &ts);
	ms = deadline - nfs42_now_ms();
	if (ms > 100)
		ms = 100; /* re-check the reader role regularly */
	if (ms < 1)
		ms = 1;
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&cl->cond, &cl->lock, &ts);
}

static int dead_error(struct nfs42_client *cl)
{
	int err = cl->dead_err;

	if (err == -ECONNRESET)
		nfs42_set_error(cl, "connection to %s closed by server",
				cl->peer);
	else if (err == -EMSGSIZE)
		/* a record too long to be an RPC reply: another protocol
		 * (an HTTP server's "HTTP/1.1 400" reads as 1.2 GB) */
		nfs42_set_error(cl,
				"%s is not an NFS server: its answer is not "
				"an RPC reply",
				cl->peer);
	else
		nfs42_set_error(cl, "connection to %s failed: %s", cl->peer,
				strerror(-err));
	return err;
}

/* Wait (lock held) until p is done or the deadline passes. */
static int wait_reply(struct nfs42_client *cl, struct nfs42_pending *p,
		      int64_t deadline)
{
	int64_t left;
	int ncb = 0;

	while (!p->done) {
		if (cl->dead_err)
			return dead_error(cl);
		left = deadline - nfs42_now_ms();
		if (left <= 0) {
			nfs42_set_error(cl, "no reply from %s within %d ms",
					cl->peer, cl->timeout_ms);
			return -ETIMEDOUT;
		}
		if (!cl->reader_busy)
			read_one(cl, (int)left, &ncb);
		else
			timed_wait(cl, deadline);
	}
	return 0;
}

struct nfs42_pending *nfs42_rpc_start(struct nfs42_client *cl,
				      struct nfs42_xdr *x, uint32_t xid,
				      int *err)
{
	struct nfs42_pending *p = calloc(1, sizeof(*p));
	int rc;

	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	p->xid = xid;
	pthread_mutex_lock(&cl->lock);
	if (cl->dead_err) {
		rc = dead_error(cl);
		pthread_mutex_unlock(&cl->lock);
		free(p);
		*err = rc;
		return NULL;
	}
	p->next = cl->pending;
	cl->pending = p;
	pthread_mutex_unlock(&cl->lock);

	rc = send_record(cl, x);
	if (rc) {
		pthread_mutex_lock(&cl->lock);
		remove_pending(cl, p);
		pthread_mutex_unlock(&cl->lock);
		free(p);
		*err = rc;
		return NULL;
	}
	p->deadline = nfs42_now_ms() + cl->timeout_ms;
	*err = 0;
	return p;
}

int nfs42_rpc_finish(struct nfs42_client *cl, struct nfs42_pending *p,
		     uint8_t **reply, size_t *len, size_t *body)
{
	uint8_t *buf;
	size_t blen;
	uint32_t xid = p->xid;
	int rc;

	pthread_mutex_lock(&cl->lock);
	rc = wait_reply(cl, p, p->deadline);
	remove_pending(cl, p);
	pthread_mutex_unlock(&cl->lock);
	buf = p->buf;
	blen = p->len;
	free(p);
	if (rc) {
		free(buf);
		return rc;
	}
	rc = nfs42_rpc_check_reply(cl, buf, blen, xid, body);
	if (rc) {
		free(buf);
		return rc;
	}
	*reply = buf;
	*len = blen;
	return 0;
}

int nfs42_rpc_call(struct nfs42_client *cl, struct nfs42_xdr *x, uint32_t xid,
		   uint8_t **reply, size_t *len, size_t *body)
{
	struct nfs42_pending *p;
	int rc;

	p = nfs42_rpc_start(cl, x, xid, &rc);
	if (!p)
		return rc;
	return nfs42_rpc_finish(cl, p, reply, len, body);
}

int nfs42_poll(struct nfs42_client *cl, int timeout_ms)
{
	int64_t deadline = nfs42_now_ms() + timeout_ms;
	int64_t left;
	int ncb = 0, rc;

	pthread_mutex_lock(&cl->lock);
	while (!ncb) {
		if (cl->dead_err) {
			rc = dead_error(cl);
			pthread_mutex_unlock(&cl->lock);
			return rc;
		}
		left = deadline - nfs42_now_ms();
		if (left <= 0)
			break;
		if (!cl->reader_busy)
			read_one(cl, (int)left, &ncb);
		else
			timed_wait(cl, deadline);
	}
	pthread_mutex_unlock(&cl->lock);
	return ncb;
}

int nfs42_poll_until(struct nfs42_client *cl, int timeout_ms,
		     unsigned int (*ready)(struct nfs42_client *cl))
{
	int64_t deadline = nfs42_now_ms() + timeout_ms;
	int64_t left;
	int rc;

	while (ready(cl) == 0) {
		left = deadline - nfs42_now_ms();
		if (left <= 0)
			return 0;
		rc = nfs42_poll(cl, (int)left);
		if (rc < 0)
			return rc;
	}
	return 1;
}

int nfs42_rpc_raw(struct nfs42_client *cl, uint32_t prog, uint32_t vers,
		  uint32_t proc, const void *args, size_t args_len,
		  uint8_t **reply, size_t *len, size_t *body)
{
	uint32_t xid = nfs42_next_xid(cl);
	struct nfs42_xdr x;
	int rc;

	*reply = NULL;
	nfs42_xdr_enc_init(&x);
	nfs42_rpc_encode_call_to(cl, &x, xid, prog, vers, proc);
	nfs42_xdr_put_raw(&x, args, args_len);
	rc = nfs42_rpc_call(cl, &x, xid, reply, len, body);
	nfs42_xdr_free(&x);
	return rc;
}

int nfs42_null(struct nfs42_client *cl)
{
	struct nfs42_xdr x;
	uint8_t *reply = NULL;
	size_t len, body;
	uint32_t xid = nfs42_next_xid(cl);
	int rc;

	nfs42_xdr_enc_init(&x);
	nfs42_rpc_encode_call(cl, &x, xid, 0);
	rc = nfs42_rpc_call(cl, &x, xid, &reply, &len, &body);
	nfs42_xdr_free(&x);
	free(reply);
	return rc;
}

static int connect_addr(struct nfs42_client *cl, struct addrinfo *ai)
{
	socklen_t sl = sizeof(int);
	int fd, rc, err = 0, one = 1;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
	if (fd < 0)
		return -errno;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			rc = -errno;
			close(fd);
			return rc;
		}
		rc = wait_fd(fd, POLLOUT, cl->connect_timeout_ms);
		if (!rc && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0)
			rc = -errno;
		if (!rc && err)
			rc = -err;
		if (rc) {
			close(fd);
			return rc;
		}
	}
	cl->fd = fd;
	return 0;
}

static int tcp_connect(struct nfs42_client *cl, const char *host, uint16_t port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	char portstr[16];
	int rc;

	snprintf(portstr, sizeof(portstr), "%u", port);
	snprintf(cl->peer, sizeof(cl->peer), "%s:%u", host, port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc) {
		nfs42_set_error(cl, "cannot resolve %s: %s", host,
				gai_strerror(rc));
		return -EHOSTUNREACH;
	}
	rc = -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		rc = connect_addr(cl, ai);
		if (!rc)
			break;
	}
	freeaddrinfo(res);
	if (rc)
		nfs42_set_error(cl, "cannot connect to %s: %s", cl->peer,
				strerror(-rc));
	return rc;
}

void nfs42_opts_init(struct nfs42_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->host = "127.0.0.1";
	o->port = 2049;
	o->auth = NFS42_AUTH_SYS;
	o->uid = geteuid();
	o->gid = getegid();
	o->machinename = "nfs42c";
	o->connect_timeout_ms = 30000;
	o->timeout_ms = 30000;
	o->cb_program = NFS42_CB_PROGRAM_DEFAULT;
	o->slots = 16;
	o->minorversion = 2;
}

void nfs42_opts_from_env(struct nfs42_opts *o)
{
	const char *s;

	s = getenv("NFS42_HOST");
	if (s && *s)
		o->host = s;
	s = getenv("NFS42_PORT");
	if (s && *s)
		o->port = (uint16_t)atoi(s);
	/* lets a whole test run speak NFSv4.1 instead of 4.2 */
	s = getenv("NFS42_MINORVERSION");
	if (s && (!strcmp(s, "1") || !strcmp(s, "2")))
		o->minorversion = (uint32_t)(*s - '0');
}

static void make_owner_id(struct nfs42_client *cl, const char *given)
{
	static unsigned int counter;
	struct timespec ts;
	char host[64] = "localhost";
	unsigned int n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);

	clock_gettime(CLOCK_REALTIME, &ts);
	if (given) {
		snprintf(cl->owner_id, sizeof(cl->owner_id), "%s", given);
	} else {
		gethostname(host, sizeof(host) - 1);
		snprintf(cl->owner_id, sizeof(cl->owner_id),
			 "nfs42c/%s/%d/%u/%lld.%09ld", host, (int)getpid(), n,
			 (long long)ts.tv_sec, ts.tv_nsec);
	}
	memcpy(cl->verifier, &ts.tv_sec, 4);
	memcpy(cl->verifier + 4, &ts.tv_nsec, 4);
}

static struct nfs42_client *client_alloc(const struct nfs42_opts *o)
{
	struct nfs42_client *cl = calloc(1, sizeof(*cl));

	if (!cl)
		return NULL;
	cl->fd = -1;
	pthread_mutex_init(&cl->lock, NULL);
	pthread_mutex_init(&cl->send_lock, NULL);
	pthread_cond_init(&cl->cond, NULL);
	pthread_cond_init(&cl->slot_cond, NULL);
	cl->next_xid = (uint32_t)nfs42_now_ms() ^ ((uint32_t)getpid() << 16);
	cl->auth = o->auth;
	cl->uid = o->uid;
	cl->gid = o->gid;
	cl->ngids = o->ngids > NFS42_MAX_GIDS ? NFS42_MAX_GIDS : o->ngids;
	memcpy(cl->gids, o->gids, sizeof(cl->gids));
	snprintf(cl->machinename, sizeof(cl->machinename), "%s",
		 o->machinename ? o->machinename : "nfs42c");
	cl->connect_timeout_ms =
		o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 30000;
	cl->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 30000;
	cl->cb_program = o->cb_program ? o->cb_program :
					 NFS42_CB_PROGRAM_DEFAULT;
	cl->slots_wanted = o->slots ? o->slots : 16;
	if (cl->slots_wanted > NFS42_MAX_SLOTS)
		cl->slots_wanted = NFS42_MAX_SLOTS;
	cl->minorversion = o->minorversion;
	cl->want_back_channel = !o->no_back_channel;
	cl->keep_recalls = o->keep_recalls;
	cl->exchgid_flags = o->exchgid_flags;
	cl->cb_last_flavor = -1;
	make_owner_id(cl, o->owner_id);
	return cl;
}

int nfs42_connect(const struct nfs42_opts *o, struct nfs42_client **out)
{
	struct nfs42_client *cl = client_alloc(o);
	int rc;

	*out = cl;
	if (!cl)
		return -ENOMEM;
	rc = tcp_connect(cl, o->host ? o->host : "127.0.0.1", o->port);
	if (rc)
		cl->dead_err = rc;
	return rc;
}

void nfs42_set_cred(struct nfs42_client *cl, uint32_t uid, uint32_t gid,
		    uint32_t ngids, const uint32_t *gids)
{
	pthread_mutex_lock(&cl->lock);
	cl->uid = uid;
	cl->gid = gid;
	cl->ngids = ngids > NFS42_MAX_GIDS ? NFS42_MAX_GIDS : ngids;
	if (cl->ngids)
		memcpy(cl->gids, gids, cl->ngids * sizeof(*gids));
	pthread_mutex_unlock(&cl->lock);
}

void nfs42_set_auth(struct nfs42_client *cl, enum nfs42_auth auth)
{
	pthread_mutex_lock(&cl->lock);
	cl->auth = auth;
	pthread_mutex_unlock(&cl->lock);
}

void nfs42_set_timeout(struct nfs42_client *cl, int timeout_ms)
{
	cl->timeout_ms = timeout_ms > 0 ? timeout_ms : 30000;
}

void nfs42_set_cb_filter(struct nfs42_client *cl, nfs42_cb_filter_fn fn,
			 void *arg)
{
	pthread_mutex_lock(&cl->lock);
	cl->cb_filter = fn;
	cl->cb_filter_arg = arg;
	pthread_mutex_unlock(&cl->lock);
}

void nfs42_set_cb_handler(struct nfs42_client *cl, nfs42_cb_fn fn, void *arg)
{
	pthread_mutex_lock(&cl->lock);
	cl->cb_fn = fn;
	cl->cb_arg = arg;
	pthread_mutex_unlock(&cl->lock);
}

uint64_t nfs42_cb_calls(const struct nfs42_client *cl)
{
	return cl->cb_calls;
}

int nfs42_cb_last_flavor(const struct nfs42_client *cl)
{
	return __atomic_load_n(&cl->cb_last_flavor, __ATOMIC_RELAXED);
}

int nfs42_backchannel_ctl(struct nfs42_client *cl, uint32_t cb_program,
			  const struct nfs42_cb_sec *secs, unsigned int nsecs)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	if (!c)
		return -ENOMEM;
	nfs42_op_backchannel_ctl(c, cb_program, secs, nsecs);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	if (!rc) {
		pthread_mutex_lock(&cl->lock);
		cl->cb_program = cb_program;
		pthread_mutex_unlock(&cl->lock);
	}
	return rc;
}

void nfs42_client_free(struct nfs42_client *cl)
{
	if (!cl)
		return;
	nfs42_ds_pool_free(cl);
	if (cl->have_session || cl->have_clientid)
		nfs42_session_destroy(cl);
	if (cl->fd >= 0)
		close(cl->fd);
	pthread_mutex_destroy(&cl->lock);
	pthread_mutex_destroy(&cl->send_lock);
	pthread_cond_destroy(&cl->cond);
	pthread_cond_destroy(&cl->slot_cond);
	free(cl);
}
