/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * rpcb_stub SOCKET [TCP_PORT]: a minimal rpcbind for test servers.
 *
 * Ganesha cannot start NFSv3 without registering with rpcbind (a failed
 * registration is fatal), and tests must never touch the machine's own
 * rpcbind.  The harness runs a server with NFSv3 in a private mount
 * namespace where this stub listens on rpcbind's local socket
 * (/run/rpcbind.sock, the first place libtirpc and ntirpc look), and,
 * with TCP_PORT, on 127.0.0.1:TCP_PORT for clients that ask where MOUNT
 * or NFS is (a kernel client in a test VM).
 *
 * It keeps an in-memory table and answers, over stream transports with
 * record marking: PMAP v2 NULL, SET, UNSET, GETPORT, DUMP (RFC 1833 3)
 * and RPCBIND v3/v4 NULL, SET, UNSET, GETADDR (RFC 1833 2); anything else
 * is PROC_UNAVAIL / PROG_UNAVAIL.  Each SET and UNSET is printed on
 * stdout.  It runs until killed.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "nfs42_xdr.h"

#define RPCB_PROG 100000
#define MAX_CONNS 64
#define MAX_MAPS 128
#define MAX_RECORD (64 * 1024)
#define STR_MAX 128

enum { PROC_NULL = 0, PROC_SET = 1, PROC_UNSET = 2, PROC_GET = 3 };
#define PMAPPROC_DUMP 4

struct mapping {
	uint32_t prog, vers;
	char netid[STR_MAX]; /* "tcp", "udp", "tcp6", ... */
	char uaddr[STR_MAX]; /* "h1.h2.h3.h4.p1.p2" */
};

struct conn {
	int fd;
	uint8_t *buf; /* the record being assembled */
	size_t len, cap;
	uint8_t hdr[4];
	size_t hdr_len;
	uint32_t frag_left;
	bool last_frag;
};

static struct mapping maps[MAX_MAPS];
static unsigned int nmaps;

/* ---- the table ------------------------------------------------------------ */

static int map_find(uint32_t prog, uint32_t vers, const char *netid)
{
	unsigned int i;

	for (i = 0; i < nmaps; i++)
		if (maps[i].prog == prog && maps[i].vers == vers &&
		    (netid[0] == '\0' || strcmp(maps[i].netid, netid) == 0))
			return (int)i;
	return -1;
}

static bool map_set(uint32_t prog, uint32_t vers, const char *netid,
		    const char *uaddr)
{
	if (map_find(prog, vers, netid) >= 0 || nmaps == MAX_MAPS)
		return false; /* rpcbind refuses a second SET too */
	maps[nmaps].prog = prog;
	maps[nmaps].vers = vers;
	(void)snprintf(maps[nmaps].netid, STR_MAX, "%s", netid);
	(void)snprintf(maps[nmaps].uaddr, STR_MAX, "%s", uaddr);
	nmaps++;
	printf("rpcb_stub: SET %u v%u %s %s\n", prog, vers, netid, uaddr);
	fflush(stdout);
	return true;
}

/* An empty netid removes every transport's mapping. */
static bool map_unset(uint32_t prog, uint32_t vers, const char *netid)
{
	bool any = false;
	int i;

	while ((i = map_find(prog, vers, netid)) >= 0) {
		maps[i] = maps[--nmaps];
		any = true;
	}
	if (any) {
		printf("rpcb_stub: UNSET %u v%u %s\n", prog, vers,
		       netid[0] ? netid : "(all)");
		fflush(stdout);
	}
	return any;
}

/* The port of a universal address, 0 when it has none. */
static uint32_t uaddr_port(const char *uaddr)
{
	const char *lo = strrchr(uaddr, '.');
	const char *hi;

	if (lo == NULL || lo == uaddr)
		return 0;
	for (hi = lo - 1; hi > uaddr && *hi != '.'; hi--)
		;
	if (*hi != '.')
		return 0;
	return (uint32_t)atoi(hi + 1) * 256 + (uint32_t)atoi(lo + 1);
}

static const char *prot_netid(uint32_t prot)
{
	return prot == IPPROTO_UDP ? "udp" : "tcp";
}

/* ---- procedures ------------------------------------------------------------ */

/* PMAP v2: mapping = prog, vers, prot, port */
static bool pmap_proc(uint32_t proc, struct nfs42_xdr *args,
		      struct nfs42_xdr *res)
{
	uint32_t prog = 0, vers = 0, prot = 0, port = 0;
	char uaddr[STR_MAX];
	unsigned int i;
	int m;

	if (proc == PROC_NULL)
		return true;
	if (proc == PMAPPROC_DUMP) {
		for (i = 0; i < nmaps; i++) {
			if (strcmp(maps[i].netid, "tcp") != 0 &&
			    strcmp(maps[i].netid, "udp") != 0)
				continue;
			nfs42_xdr_put_bool(res, true);
			nfs42_xdr_put_u32(res, maps[i].prog);
			nfs42_xdr_put_u32(res, maps[i].vers);
			nfs42_xdr_put_u32(res, strcmp(maps[i].netid, "udp") ?
						       IPPROTO_TCP :
						       IPPROTO_UDP);
			nfs42_xdr_put_u32(res, uaddr_port(maps[i].uaddr));
		}
		nfs42_xdr_put_bool(res, false);
		return true;
	}
	if (proc > PROC_GET)
		return false;
	nfs42_xdr_get_u32(args, &prog);
	nfs42_xdr_get_u32(args, &vers);
	nfs42_xdr_get_u32(args, &prot);
	nfs42_xdr_get_u32(args, &port);
	switch (proc) {
	case PROC_SET:
		(void)snprintf(uaddr, sizeof(uaddr), "127.0.0.1.%u.%u",
			       (port >> 8) & 0xff, port & 0xff);
		nfs42_xdr_put_bool(res, map_set(prog, vers, prot_netid(prot),
						uaddr));
		break;
	case PROC_UNSET:
		nfs42_xdr_put_bool(res, map_unset(prog, vers, ""));
		break;
	default: /* GETPORT */
		m = map_find(prog, vers, prot_netid(prot));
		nfs42_xdr_put_u32(res, m < 0 ? 0 : uaddr_port(maps[m].uaddr));
		break;
	}
	return true;
}

/* RPCBIND v3/v4: rpcb = prog, vers, netid, addr, owner */
static bool rpcb_proc(uint32_t proc, struct nfs42_xdr *args,
		      struct nfs42_xdr *res)
{
	char netid[STR_MAX] = "", uaddr[STR_MAX] = "", owner[STR_MAX] = "";
	uint32_t prog = 0, vers = 0;
	int m;

	if (proc == PROC_NULL)
		return true;
	if (proc > PROC_GET)
		return false;
	nfs42_xdr_get_u32(args, &prog);
	nfs42_xdr_get_u32(args, &vers);
	nfs42_xdr_get_string(args, netid, sizeof(netid));
	nfs42_xdr_get_string(args, uaddr, sizeof(uaddr));
	nfs42_xdr_get_string(args, owner, sizeof(owner));
	switch (proc) {
	case PROC_SET:
		nfs42_xdr_put_bool(res, map_set(prog, vers, netid, uaddr));
		break;
	case PROC_UNSET:
		nfs42_xdr_put_bool(res, map_unset(prog, vers, netid));
		break;
	default: /* GETADDR */
		m = map_find(prog, vers, netid);
		nfs42_xdr_put_string(res, m < 0 ? "" : maps[m].uaddr);
		break;
	}
	return true;
}

/* ---- RPC ------------------------------------------------------------------- */

enum accept_stat {
	SUCCESS = 0,
	PROG_UNAVAIL = 1,
	PROC_UNAVAIL = 3,
	GARBAGE_ARGS = 4
};

/* One call record: the reply record (with its record mark) in out. */
static bool serve_call(const uint8_t *buf, size_t len, struct nfs42_xdr *out)
{
	uint32_t xid, mtype, rpcvers, prog, vers, proc, flavor;
	enum accept_stat stat = SUCCESS;
	struct nfs42_xdr in, res;
	bool known;

	nfs42_xdr_dec_init(&in, buf, len);
	nfs42_xdr_get_u32(&in, &xid);
	nfs42_xdr_get_u32(&in, &mtype);
	nfs42_xdr_get_u32(&in, &rpcvers);
	nfs42_xdr_get_u32(&in, &prog);
	nfs42_xdr_get_u32(&in, &vers);
	nfs42_xdr_get_u32(&in, &proc);
	nfs42_xdr_get_u32(&in, &flavor); /* credential */
	nfs42_xdr_skip_opaque(&in);
	nfs42_xdr_get_u32(&in, &flavor); /* verifier */
	nfs42_xdr_skip_opaque(&in);
	if (in.err || mtype != 0 || rpcvers != 2)
		return false;

	nfs42_xdr_enc_init(&res);
	if (prog != RPCB_PROG || vers < 2 || vers > 4)
		stat = PROG_UNAVAIL;
	else {
		known = vers == 2 ? pmap_proc(proc, &in, &res) :
				    rpcb_proc(proc, &in, &res);
		if (!known)
			stat = PROC_UNAVAIL;
		else if (in.err)
			stat = GARBAGE_ARGS;
	}

	nfs42_xdr_put_u32(out, 0); /* record mark, patched below */
	nfs42_xdr_put_u32(out, xid);
	nfs42_xdr_put_u32(out, 1); /* REPLY */
	nfs42_xdr_put_u32(out, 0); /* MSG_ACCEPTED */
	nfs42_xdr_put_u32(out, 0); /* verifier AUTH_NONE */
	nfs42_xdr_put_u32(out, 0);
	nfs42_xdr_put_u32(out, stat);
	if (stat == SUCCESS)
		nfs42_xdr_put_raw(out, res.buf, res.len);
	nfs42_xdr_free(&res);
	nfs42_xdr_patch_u32(out, 0, 0x80000000u | (uint32_t)(out->len - 4));
	return out->err == 0;
}

/* ---- connections ------------------------------------------------------------ */

static void conn_close(struct conn *c)
{
	close(c->fd);
	free(c->buf);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static bool send_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* A complete record arrived: answer it.  False: drop the connection. */
static bool conn_record(struct conn *c)
{
	struct nfs42_xdr out;
	bool ok;

	nfs42_xdr_enc_init(&out);
	ok = serve_call(c->buf, c->len, &out) &&
	     send_all(c->fd, out.buf, out.len);
	nfs42_xdr_free(&out);
	c->len = 0;
	return ok;
}

/* Read what is there; false when the connection is done or broken. */
static bool conn_read(struct conn *c)
{
	uint8_t chunk[4096];
	ssize_t n = read(c->fd, chunk, sizeof(chunk));
	size_t i = 0, take;

	if (n <= 0)
		return false;
	while (i < (size_t)n) {
		if (c->frag_left == 0 && c->hdr_len < 4) {
			c->hdr[c->hdr_len++] = chunk[i++];
			if (c->hdr_len < 4)
				continue;
			c->frag_left = ((uint32_t)c->hdr[0] << 24 |
					(uint32_t)c->hdr[1] << 16 |
					(uint32_t)c->hdr[2] << 8 | c->hdr[3]);
			c->last_frag = (c->frag_left & 0x80000000u) != 0;
			c->frag_left &= 0x7fffffffu;
			if (c->len + c->frag_left > MAX_RECORD)
				return false;
			if (c->cap < c->len + c->frag_left) {
				c->cap = c->len + c->frag_left;
				c->buf = realloc(c->buf, c->cap);
				if (c->buf == NULL)
					return false;
			}
		}
		take = (size_t)n - i < c->frag_left ? (size_t)n - i :
						      c->frag_left;
		memcpy(c->buf + c->len, chunk + i, take);
		c->len += take;
		c->frag_left -= (uint32_t)take;
		i += take;
		if (c->frag_left == 0) {
			c->hdr_len = 0;
			if (c->last_frag && !conn_record(c))
				return false;
		}
	}
	return true;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || strlen(path) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, path);
	(void)unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    listen(fd, 16) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int listen_tcp(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(fd, 16) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void accept_one(int lfd, struct conn *conns)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), i;

	if (fd < 0)
		return;
	for (i = 0; i < MAX_CONNS; i++) {
		if (conns[i].fd < 0) {
			conns[i].fd = fd;
			return;
		}
	}
	close(fd); /* full: the client retries */
}

static void serve(int *lfds, int nl, struct conn *conns)
{
	struct pollfd pfd[2 + MAX_CONNS];
	int map[MAX_CONNS], n, i, k;

	for (;;) {
		n = 0;
		for (i = 0; i < nl; i++)
			pfd[n++] = (struct pollfd){ .fd = lfds[i],
						    .events = POLLIN };
		for (i = 0; i < MAX_CONNS; i++) {
			if (conns[i].fd < 0)
				continue;
			map[n - nl] = i;
			pfd[n++] = (struct pollfd){ .fd = conns[i].fd,
						    .events = POLLIN };
		}
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("rpcb_stub: poll");
			return;
		}
		for (k = 0; k < n; k++) {
			if (pfd[k].revents == 0)
				continue;
			if (k < nl)
				accept_one(pfd[k].fd, conns);
			else if (!conn_read(&conns[map[k - nl]]))
				conn_close(&conns[map[k - nl]]);
		}
	}
}

int main(int argc, char **argv)
{
	struct conn conns[MAX_CONNS];
	int lfds[2], nl = 0, i;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: rpcb_stub SOCKET [TCP_PORT]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	lfds[nl] = listen_unix(argv[1]);
	if (lfds[nl++] < 0) {
		fprintf(stderr, "rpcb_stub: cannot listen on %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	if (argc == 3) {
		lfds[nl] = listen_tcp((uint16_t)atoi(argv[2]));
		if (lfds[nl++] < 0) {
			fprintf(stderr,
				"rpcb_stub: cannot listen on 127.0.0.1:%s: %s\n",
				argv[2], strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < MAX_CONNS; i++) {
		memset(&conns[i], 0, sizeof(conns[i]));
		conns[i].fd = -1;
	}
	printf("rpcb_stub: listening on %s%s%s\n", argv[1],
	       argc == 3 ? " and 127.0.0.1:" : "", argc == 3 ? argv[2] : "");
	fflush(stdout);
	serve(lfds, nl, conns);
	return 1;
}
