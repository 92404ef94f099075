/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Unit tests: record marking, RPC call/reply matching, backchannel
 * (CB_NULL, CB_COMPOUND/CB_SEQUENCE, user hook), timeouts and broken
 * servers, against a scripted fake server thread on loopback.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"
#include "nfs42_test_util.h"

/* ------------------------------------------------ checks in the server */

/*
 * The fake server below runs in a thread of its own while the test (run
 * with CK_NOFORK) waits in the client. Check's assertions must not run in
 * that thread: they longjmp to the test's runner, on another thread's
 * stack (a crash). Code that can run in the server thread checks with
 * SRV_CHECK instead: there it records the first failure (line and
 * message) in the server and ends the server's script, and the test's
 * own thread fails on it after joining (server_stop). In the test's
 * thread SRV_CHECK fails the test at once, like ck_assert_msg.
 */
struct server;
static __thread struct server *srv_self;
static void srv_failed(struct server *s, const char *msg);

__attribute__((format(printf, 3, 4))) static void
srv_check(bool ok, int line, const char *fmt, ...)
{
	char msg[200], where[240];
	va_list ap;

	if (ok)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(where, sizeof(where), "line %d: %s", line, msg);
	if (!srv_self)
		ck_abort_msg("%s", where);
	srv_failed(srv_self, where);
}

#define SRV_CHECK(cond, ...) srv_check((cond), __LINE__, __VA_ARGS__)

/* EXPECT_U32 / _STR / _FIXED / _END of nfs42_test_util.h, for the server */
static void srv_expect_u32(struct nfs42_xdr *x, uint32_t want, const char *what,
			   int line)
{
	uint32_t v = 0;
	bool ok = nfs42_xdr_get_u32(x, &v);

	srv_check(ok && v == want, line, "%s: got %u%s", what, v,
		  ok ? "" : " (short)");
}

static void srv_expect_str(struct nfs42_xdr *x, const char *want, int line)
{
	char b[1024] = "";
	bool ok = nfs42_xdr_get_string(x, b, sizeof(b));

	srv_check(ok && !strcmp(b, want), line, "want \"%s\", got \"%s\"", want,
		  b);
}

static void srv_expect_fixed(struct nfs42_xdr *x, const void *want, size_t n,
			     const char *what, int line)
{
	uint8_t b[256];
	bool ok = n <= sizeof(b) && nfs42_xdr_get_fixed(x, b, n);

	srv_check(ok && !memcmp(b, want, n), line, "%s differs", what);
}

#define SRV_EXPECT_U32(x, want) srv_expect_u32((x), (want), #want, __LINE__)
#define SRV_EXPECT_STR(x, want) srv_expect_str((x), (want), __LINE__)
#define SRV_EXPECT_FIXED(x, p, n) srv_expect_fixed((x), (p), (n), #p, __LINE__)
#define SRV_EXPECT_END(x)                                                \
	SRV_CHECK(nfs42_xdr_remaining(x) == 0, "%zu bytes past the end", \
		  nfs42_xdr_remaining(x))

/* ----------------------------------------------------- record marking */

static void write_frag(int fd, const void *p, uint32_t len, bool last)
{
	uint32_t mark = htonl(len | (last ? 0x80000000u : 0));

	SRV_CHECK(write(fd, &mark, 4) == 4, "record mark not written");
	if (len)
		SRV_CHECK(write(fd, p, len) == (ssize_t)len,
			  "fragment not written");
}

START_TEST(rm_reassembles_fragments)
{
	int sv[2];
	uint8_t *buf;
	size_t len;
	bool partial;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	write_frag(sv[0], "abc", 3, false);
	write_frag(sv[0], "", 0, false);
	write_frag(sv[0], "defgh", 5, true);
	write_frag(sv[0], "next", 4, true);
	ck_assert_int_eq(nfs42_rm_recv(sv[1], 1000, 1024, &buf, &len, &partial),
			 0);
	ck_assert_uint_eq(len, 8);
	ck_assert_mem_eq(buf, "abcdefgh", 8);
	free(buf);
	ck_assert_int_eq(nfs42_rm_recv(sv[1], 1000, 1024, &buf, &len, &partial),
			 0);
	ck_assert_uint_eq(len, 4);
	free(buf);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(rm_limits_and_eof)
{
	int sv[2];
	uint8_t *buf;
	size_t len;
	bool partial;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* nothing arrives: timeout, nothing consumed */
	ck_assert_int_eq(nfs42_rm_recv(sv[1], 50, 1024, &buf, &len, &partial),
			 -ETIMEDOUT);
	ck_assert(!partial);
	/* too large */
	write_frag(sv[0], "0123456789", 10, true);
	ck_assert_int_eq(nfs42_rm_recv(sv[1], 1000, 8, &buf, &len, &partial),
			 -EMSGSIZE);
	close(sv[0]);
	close(sv[1]);
	/* first fragment then EOF */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	write_frag(sv[0], "abc", 3, false);
	close(sv[0]);
	ck_assert_int_eq(nfs42_rm_recv(sv[1], 1000, 1024, &buf, &len, &partial),
			 -ECONNRESET);
	ck_assert(partial);
	close(sv[1]);
}
END_TEST

START_TEST(rm_send_sets_last_fragment)
{
	uint8_t rec[8] = { 0, 0, 0, 0, 'w', 'x', 'y', 'z' };
	uint8_t got[8];
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(nfs42_rm_send(sv[0], rec, sizeof(rec), 1000), 0);
	ck_assert_int_eq(read(sv[1], got, 8), 8);
	ck_assert_uint_eq(got[0], 0x80);
	ck_assert_uint_eq(got[3], 4);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* ------------------------------------------------------- fake server */

enum script {
	S_CALLBACKS, /* CB_NULL + CB_COMPOUND before the reply */
	S_BAD_HEADER, /* reply with an invalid reply_stat */
	S_SILENT, /* never reply */
	S_CLOSE, /* close the connection */
	S_REVERSED, /* two calls, replies in reverse order */
	S_DENIED, /* MSG_DENIED / AUTH_ERROR */
	S_ACCEPT_ONLY, /* accept and close at once */
	S_DELAY_ONCE, /* COMPOUND: NFS4ERR_DELAY, then NFS4_OK */
	S_DELAY_ALWAYS, /* every COMPOUND until the client leaves: DELAY */
	S_READS, /* READ / READ_PLUS of the file LAYOUT, see serve_reads() */
};

/* What serve_reads() does wrong on purpose */
enum read_fault {
	RF_NONE,
	RF_NOTSUPP, /* every READ_PLUS: NFS4ERR_NOTSUPP */
	RF_GAP, /* the second segment of a reply starts too far on */
	RF_SHORT, /* READ: at most 5 bytes per reply */
};

struct server {
	int lfd;
	uint16_t port;
	enum script script;
	pthread_t thr;
	int fd; /* the accepted connection */
	/* the first failed check in the server thread ("" if none) */
	char failure[256];
	jmp_buf bail;
	/* results seen by the server */
	uint32_t cb_null_stat;
	uint32_t cb_compound_status;
	uint32_t cb_seq_status;
	uint32_t cb_op2_status;
	uint32_t cb_op2_body;
	uint32_t auth_flavor, uid, gid;
	/* S_READS */
	enum read_fault fault;
	unsigned int batch; /* calls read before replying in reverse */
	unsigned int ncalls; /* calls served */
	unsigned int max_inflight; /* distinct slots of the first batch */
	uint32_t batch_slots; /* bit mask of the slots of the first batch */
	bool dup_xid;
	bool first_alone; /* no second call before the first reply */
};

static uint32_t xid_of(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
}

/* Record a failure of the server thread and end its script. */
static void srv_failed(struct server *s, const char *msg)
{
	snprintf(s->failure, sizeof(s->failure), "%s", msg);
	longjmp(s->bail, 1);
}

static void send_rec(int fd, struct nfs42_xdr *x)
{
	SRV_CHECK(nfs42_rm_send(fd, x->buf, x->len, 1000) == 0,
		  "nfs42_rm_send failed");
	nfs42_xdr_free(x);
}

/* Start a reply record: mark slot, xid, REPLY; the reply_stat is next. */
static void reply_start(struct nfs42_xdr *x, uint32_t xid)
{
	nfs42_xdr_enc_init(x);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, xid);
	nfs42_xdr_put_u32(x, RPC_REPLY);
}

/* Start an accepted reply: null verifier, SUCCESS; the results are next. */
static void reply_accepted(struct nfs42_xdr *x, uint32_t xid)
{
	reply_start(x, xid);
	nfs42_xdr_put_u32(x, RPC_MSG_ACCEPTED);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, RPC_SUCCESS);
}

static void reply_ok(int fd, uint32_t xid, bool two_fragments)
{
	struct nfs42_xdr x;

	reply_accepted(&x, xid);
	if (two_fragments) {
		write_frag(fd, x.buf + 4, 8, false);
		write_frag(fd, x.buf + 12, x.len - 12, true);
		nfs42_xdr_free(&x);
	} else {
		send_rec(fd, &x);
	}
}

/* COMPOUND4res with one PUTROOTFH result of the given status */
static void reply_compound(int fd, uint32_t xid, uint32_t status)
{
	struct nfs42_xdr x;

	reply_accepted(&x, xid);
	nfs42_xdr_put_u32(&x, status);
	nfs42_xdr_put_string(&x, "");
	nfs42_xdr_put_u32(&x, 1);
	nfs42_xdr_put_u32(&x, OP_PUTROOTFH);
	nfs42_xdr_put_u32(&x, status);
	send_rec(fd, &x);
}

static void cb_call_header(struct nfs42_xdr *x, uint32_t xid, uint32_t proc)
{
	nfs42_xdr_enc_init(x);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, xid);
	nfs42_xdr_put_u32(x, RPC_CALL);
	nfs42_xdr_put_u32(x, 2);
	nfs42_xdr_put_u32(x, NFS42_CB_PROGRAM_DEFAULT);
	nfs42_xdr_put_u32(x, 1);
	nfs42_xdr_put_u32(x, proc);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, 0);
}

static const uint8_t SESSION[16] = "fake-session-id!";

/* Receive one whole record (the server side); asserts it arrives. */
static uint8_t *recv_rec(int fd, size_t *len, const char *what)
{
	uint8_t *buf;
	bool partial;
	int rc;

	rc = nfs42_rm_recv(fd, 5000, 1 << 20, &buf, len, &partial);
	SRV_CHECK(rc == 0, "%s: nfs42_rm_recv returned %d", what, rc);
	return buf;
}

/* Read a reply record; position d after the accept_stat. */
static uint8_t *read_reply(int fd, uint32_t xid, struct nfs42_xdr *d,
			   uint32_t *stat)
{
	uint8_t *buf;
	size_t len;
	uint32_t v;

	buf = recv_rec(fd, &len, "callback reply");
	nfs42_xdr_dec_init(d, buf, len);
	SRV_EXPECT_U32(d, xid);
	SRV_EXPECT_U32(d, RPC_REPLY);
	SRV_EXPECT_U32(d, RPC_MSG_ACCEPTED);
	nfs42_xdr_get_u32(d, &v);
	nfs42_xdr_skip_opaque(d);
	nfs42_xdr_get_u32(d, stat);
	return buf;
}

static void do_callbacks(struct server *s, int fd)
{
	struct nfs42_xdr x, d;
	uint8_t *buf;
	uint32_t n;

	cb_call_header(&x, 0x5555, 0);
	send_rec(fd, &x);
	buf = read_reply(fd, 0x5555, &d, &s->cb_null_stat);
	free(buf);

	cb_call_header(&x, 0x6666, 1);
	nfs42_xdr_put_string(&x, "cbtag");
	nfs42_xdr_put_u32(&x, 1);
	nfs42_xdr_put_u32(&x, 0);
	nfs42_xdr_put_u32(&x, 2);
	nfs42_xdr_put_u32(&x, OP_CB_SEQUENCE);
	nfs42_xdr_put_fixed(&x, SESSION, 16);
	nfs42_xdr_put_u32(&x, 1);
	nfs42_xdr_put_u32(&x, 0);
	nfs42_xdr_put_u32(&x, 0);
	nfs42_xdr_put_bool(&x, false);
	nfs42_xdr_put_u32(&x, 0);
	nfs42_xdr_put_u32(&x, OP_CB_OFFLOAD);
	nfs42_xdr_put_u32(&x, 0xc0ffee); /* consumed by the test hook */
	send_rec(fd, &x);
	buf = read_reply(fd, 0x6666, &d, &n);
	SRV_CHECK(n == RPC_SUCCESS, "CB_COMPOUND accept_stat %u", n);
	nfs42_xdr_get_u32(&d, &s->cb_compound_status);
	SRV_EXPECT_STR(&d, "cbtag");
	nfs42_xdr_get_u32(&d, &n);
	SRV_CHECK(n >= 1, "CB_COMPOUND reply without results");
	SRV_EXPECT_U32(&d, OP_CB_SEQUENCE);
	nfs42_xdr_get_u32(&d, &s->cb_seq_status);
	if (s->cb_seq_status == 0) {
		SRV_EXPECT_FIXED(&d, SESSION, 16);
		SRV_EXPECT_U32(&d, 1);
		SRV_EXPECT_U32(&d, 0);
		nfs42_xdr_skip(&d, 8);
	}
	if (n == 2) {
		SRV_EXPECT_U32(&d, OP_CB_OFFLOAD);
		nfs42_xdr_get_u32(&d, &s->cb_op2_status);
		if (s->cb_op2_status == 0)
			nfs42_xdr_get_u32(&d, &s->cb_op2_body);
	}
	SRV_EXPECT_END(&d);
	free(buf);
}

static void parse_cred(struct server *s, const uint8_t *buf, size_t len)
{
	struct nfs42_xdr d;
	uint32_t v;

	nfs42_xdr_dec_init(&d, buf, len);
	nfs42_xdr_skip(&d, 24);
	nfs42_xdr_get_u32(&d, &s->auth_flavor);
	nfs42_xdr_get_u32(&d, &v);
	if (s->auth_flavor == RPC_AUTH_SYS) {
		nfs42_xdr_get_u32(&d, &v);
		nfs42_xdr_skip_opaque(&d);
		nfs42_xdr_get_u32(&d, &s->uid);
		nfs42_xdr_get_u32(&d, &s->gid);
	}
}

/*
 * S_READS: the file is 100 bytes, LAYOUT: data at [10, 20), [40, 55) and
 * [70, 73), holes elsewhere; data byte at i is 'a' + i % 26.
 */
#define FILE_LEN 100
static const uint64_t LAYOUT[][2] = { { 10, 20 }, { 40, 55 }, { 70, 73 } };

static bool is_data(uint64_t i)
{
	size_t k;

	for (k = 0; k < sizeof(LAYOUT) / sizeof(LAYOUT[0]); k++)
		if (i >= LAYOUT[k][0] && i < LAYOUT[k][1])
			return true;
	return false;
}

/* Where the run of the same kind as byte i ends (or FILE_LEN). */
static uint64_t run_end(uint64_t i)
{
	bool d = is_data(i);

	while (i < FILE_LEN && is_data(i) == d)
		i++;
	return i;
}

/* Where the run of the same kind as byte i starts. */
static uint64_t run_start(uint64_t i)
{
	bool d = is_data(i);

	while (i > 0 && is_data(i - 1) == d)
		i--;
	return i;
}

struct read_call {
	uint8_t *buf;
	uint32_t xid, slot, seqid, op, count;
	uint64_t offset;
};

/* Parse a SEQUENCE + PUTFH + READ(_PLUS) call. */
static void parse_read_call(uint8_t *buf, size_t len, struct read_call *rc)
{
	struct nfs42_xdr d;
	uint32_t v;

	nfs42_xdr_dec_init(&d, buf, len);
	nfs42_xdr_get_u32(&d, &rc->xid);
	nfs42_xdr_skip(&d, 20);
	nfs42_xdr_get_u32(&d, &v); /* cred */
	nfs42_xdr_skip_opaque(&d);
	nfs42_xdr_get_u32(&d, &v); /* verifier */
	nfs42_xdr_skip_opaque(&d);
	nfs42_xdr_skip_opaque(&d); /* tag */
	nfs42_xdr_skip(&d, 4);
	SRV_EXPECT_U32(&d, 3);
	SRV_EXPECT_U32(&d, OP_SEQUENCE);
	nfs42_xdr_skip(&d, 16);
	nfs42_xdr_get_u32(&d, &rc->seqid);
	nfs42_xdr_get_u32(&d, &rc->slot);
	nfs42_xdr_skip(&d, 8);
	SRV_EXPECT_U32(&d, OP_PUTFH);
	nfs42_xdr_skip_opaque(&d);
	nfs42_xdr_get_u32(&d, &rc->op);
	SRV_CHECK(rc->op == OP_READ || rc->op == OP_READ_PLUS, "op %u", rc->op);
	nfs42_xdr_skip(&d, 16);
	nfs42_xdr_get_u64(&d, &rc->offset);
	nfs42_xdr_get_u32(&d, &rc->count);
	SRV_EXPECT_END(&d);
	rc->buf = buf;
}

static void put_data(struct nfs42_xdr *x, uint64_t from, uint64_t to)
{
	uint8_t b[FILE_LEN];
	uint64_t i;

	for (i = from; i < to; i++)
		b[i - from] = is_data(i) ? 'a' + i % 26 : 0;
	nfs42_xdr_put_opaque(x, b, to - from);
}

/* The READ_PLUS segments for [off, end): holes reported whole (they may
 * start before off and end after end), data clipped. */
static void put_segments(struct server *s, struct nfs42_xdr *x, uint64_t off,
			 uint64_t end)
{
	size_t npos = x->len;
	uint64_t i, e;
	uint32_t n = 0;

	nfs42_xdr_put_u32(x, 0);
	for (i = off; i < end; i = e, n++) {
		e = run_end(i);
		if (is_data(i)) {
			e = e < end ? e : end;
			nfs42_xdr_put_u32(x, NFS4_CONTENT_DATA);
			nfs42_xdr_put_u64(x, i + (s->fault == RF_GAP && n));
			put_data(x, i, e);
		} else {
			nfs42_xdr_put_u32(x, NFS4_CONTENT_HOLE);
			nfs42_xdr_put_u64(x, run_start(i));
			nfs42_xdr_put_u64(x, e - run_start(i));
		}
	}
	nfs42_xdr_patch_u32(x, npos, n);
}

static void reply_read(struct server *s, int fd, const struct read_call *rc)
{
	uint64_t end = rc->offset + rc->count;
	uint32_t status = NFS4_OK;
	struct nfs42_xdr x;

	if (rc->op == OP_READ_PLUS && s->fault == RF_NOTSUPP)
		status = NFS4ERR_NOTSUPP;
	if (end > FILE_LEN)
		end = rc->offset < FILE_LEN ? FILE_LEN : rc->offset;
	if (rc->op == OP_READ && s->fault == RF_SHORT && end > rc->offset + 5)
		end = rc->offset + 5;
	reply_accepted(&x, rc->xid);
	nfs42_xdr_put_u32(&x, status);
	nfs42_xdr_put_string(&x, "");
	nfs42_xdr_put_u32(&x, 3);
	nfs42_xdr_put_u32(&x, OP_SEQUENCE);
	nfs42_xdr_put_u32(&x, NFS4_OK);
	nfs42_xdr_put_fixed(&x, SESSION, 16);
	nfs42_xdr_put_u32(&x, rc->seqid);
	nfs42_xdr_put_u32(&x, rc->slot);
	nfs42_xdr_put_u32(&x, 63);
	nfs42_xdr_put_u32(&x, 63);
	nfs42_xdr_put_u32(&x, 0);
	nfs42_xdr_put_u32(&x, OP_PUTFH);
	nfs42_xdr_put_u32(&x, NFS4_OK);
	nfs42_xdr_put_u32(&x, rc->op);
	nfs42_xdr_put_u32(&x, status);
	if (status == NFS4_OK) {
		nfs42_xdr_put_bool(&x, end >= FILE_LEN);
		if (rc->op == OP_READ)
			put_data(&x, rc->offset, end);
		else
			put_segments(s, &x, rc->offset, end);
	}
	send_rec(fd, &x);
	s->ncalls++;
}

/*
 * Answer the first call at once (the stream sends it alone), then read up
 * to s->batch calls (fewer if the client stops sending), check they use
 * distinct slots and xids, serve a CB_NULL while they wait and reply to
 * them in reverse order; then answer each further call as it comes, until
 * the client is quiet for 300 ms.
 */
static void serve_reads(struct server *s, int fd, uint8_t *first, size_t len)
{
	struct read_call calls[64];
	struct nfs42_xdr x, d;
	unsigned int i, j, got;
	uint8_t *buf;
	bool partial;

	parse_read_call(first, len, &calls[0]);
	s->first_alone = nfs42_rm_recv(fd, 300, 1 << 20, &buf, &len,
				       &partial) == -ETIMEDOUT;
	SRV_CHECK(s->first_alone, "a second call before the first reply");
	reply_read(s, fd, &calls[0]);
	for (got = 0; got < s->batch; got++) {
		if (nfs42_rm_recv(fd, 1000, 1 << 20, &buf, &len, &partial))
			break;
		parse_read_call(buf, len, &calls[got]);
	}
	for (i = 0; i < got; i++) {
		s->batch_slots |= 1u << calls[i].slot;
		for (j = 0; j < i; j++)
			s->dup_xid |= calls[i].xid == calls[j].xid;
	}
	s->max_inflight = __builtin_popcount(s->batch_slots);
	if (got) {
		cb_call_header(&x, 0x7777, 0);
		send_rec(fd, &x);
		free(read_reply(fd, 0x7777, &d, &s->cb_null_stat));
	}
	for (i = got; i-- > 0;) {
		reply_read(s, fd, &calls[i]);
		free(calls[i].buf);
	}
	for (;;) {
		if (nfs42_rm_recv(fd, 300, 1 << 20, &buf, &len, &partial))
			break;
		parse_read_call(buf, len, &calls[0]);
		reply_read(s, fd, &calls[0]);
		free(buf);
	}
}

/* The server's script; its checks may end it early (srv_failed). */
static void server_script(struct server *s)
{
	struct pollfd pfd = { .fd = s->lfd, .events = POLLIN };
	struct nfs42_xdr x;
	uint8_t *buf, *buf2;
	size_t len;
	int fd;

	SRV_CHECK(poll(&pfd, 1, 5000) == 1, "no client within 5 s");
	fd = s->fd = accept(s->lfd, NULL, NULL);
	SRV_CHECK(fd >= 0, "accept failed");
	if (s->script == S_ACCEPT_ONLY)
		return;
	buf = recv_rec(fd, &len, "first call");
	parse_cred(s, buf, len);
	switch (s->script) {
	case S_CALLBACKS:
		do_callbacks(s, fd);
		reply_ok(fd, xid_of(buf), true);
		break;
	case S_BAD_HEADER:
		reply_start(&x, xid_of(buf));
		nfs42_xdr_put_u32(&x, 7);
		send_rec(fd, &x);
		break;
	case S_DENIED:
		reply_start(&x, xid_of(buf));
		nfs42_xdr_put_u32(&x, RPC_MSG_DENIED);
		nfs42_xdr_put_u32(&x, 1);
		nfs42_xdr_put_u32(&x, 1);
		send_rec(fd, &x);
		break;
	case S_SILENT:
		usleep(600000);
		break;
	case S_CLOSE:
	case S_ACCEPT_ONLY:
		break;
	case S_DELAY_ALWAYS:
		for (;;) {
			bool partial;

			reply_compound(fd, xid_of(buf), NFS4ERR_DELAY);
			free(buf);
			if (nfs42_rm_recv(fd, 5000, 1 << 20, &buf, &len,
					  &partial) != 0)
				return;
		}
		break;
	case S_DELAY_ONCE:
		reply_compound(fd, xid_of(buf), NFS4ERR_DELAY);
		buf2 = recv_rec(fd, &len, "second call");
		reply_compound(fd, xid_of(buf2), NFS4_OK);
		free(buf2);
		break;
	case S_READS:
		serve_reads(s, fd, buf, len);
		break;
	case S_REVERSED:
		buf2 = recv_rec(fd, &len, "second call");
		reply_ok(fd, xid_of(buf2), false);
		reply_ok(fd, xid_of(buf), false);
		free(buf2);
		break;
	}
	free(buf);
}

static void *server_main(void *arg)
{
	struct server *s = arg;

	srv_self = s;
	if (!setjmp(s->bail))
		server_script(s);
	if (s->fd >= 0)
		close(s->fd);
	return NULL;
}

static void server_start(struct server *s, enum script script)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	enum read_fault fault = s->fault;
	unsigned int batch = s->batch;

	memset(s, 0, sizeof(*s));
	s->fault = fault; /* set by the test before serve() */
	s->batch = batch;
	s->script = script;
	s->fd = -1;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(s->lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(s->lfd, 1), 0);
	getsockname(s->lfd, (struct sockaddr *)&sin, &sl);
	s->port = ntohs(sin.sin_port);
	pthread_create(&s->thr, NULL, server_main, s);
}

/*
 * Wait for the server's script to end; a check that failed in the server
 * thread fails the test here, in the test's thread. Call it before
 * asserting on what the client got: a server that gave up explains it.
 */
static void server_stop(struct server *s)
{
	pthread_join(s->thr, NULL);
	close(s->lfd);
	ck_assert_msg(!s->failure[0], "fake server: %s", s->failure);
}

/* Start the fake server on script and connect a client to it. */
static struct nfs42_client *serve(struct server *s, enum script script,
				  int timeout_ms)
{
	struct nfs42_client *cl;
	struct nfs42_opts o;
	int rc;

	server_start(s, script);
	nfs42_opts_init(&o);
	o.port = s->port;
	o.timeout_ms = timeout_ms;
	o.uid = 1234;
	o.gid = 5678;
	rc = nfs42_connect(&o, &cl);
	if (rc) {
		/* wake the server thread waiting for us; ours is the failure */
		shutdown(s->lfd, SHUT_RDWR);
		pthread_join(s->thr, NULL);
		close(s->lfd);
		ck_abort_msg("connect to the fake server: %d", rc);
	}
	return cl;
}

/* Wait for the server's script to end, then drop the client. */
static void unserve(struct server *s, struct nfs42_client *cl)
{
	server_stop(s);
	nfs42_client_free(cl);
}

/* unserve(), keeping the client's last error for the asserts after it. */
static void unserve_err(struct server *s, struct nfs42_client *cl, char *err,
			size_t size)
{
	snprintf(err, size, "%s", nfs42_client_error(cl));
	unserve(s, cl);
}

static uint32_t test_hook(struct nfs42_client *cl, void *arg, uint32_t op,
			  struct nfs42_xdr *args, struct nfs42_xdr *res)
{
	uint32_t v;

	(*(int *)arg)++;
	if (op != OP_CB_OFFLOAD || !nfs42_xdr_get_u32(args, &v))
		return NFS4ERR_NOTSUPP;
	nfs42_xdr_put_u32(res, v + 1);
	return NFS4_OK;
}

/* Pretend a session exists so CB_SEQUENCE can match it. */
static void fake_session(struct nfs42_client *cl, uint32_t cb_nslots)
{
	memcpy(cl->sessionid, SESSION, 16);
	cl->have_session = true;
	cl->cb_nslots = cb_nslots;
}

START_TEST(callbacks_served_while_waiting)
{
	struct server s;
	struct nfs42_client *cl;
	int hook_calls = 0, rc;

	cl = serve(&s, S_CALLBACKS, 5000);
	fake_session(cl, 1);
	nfs42_set_cb_handler(cl, test_hook, &hook_calls);
	rc = nfs42_null(cl);
	server_stop(&s);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(s.auth_flavor, RPC_AUTH_SYS);
	ck_assert_uint_eq(s.uid, 1234);
	ck_assert_uint_eq(s.gid, 5678);
	ck_assert_uint_eq(s.cb_null_stat, RPC_SUCCESS);
	ck_assert_uint_eq(s.cb_seq_status, NFS4_OK);
	ck_assert_uint_eq(s.cb_op2_status, NFS4_OK);
	ck_assert_uint_eq(s.cb_op2_body, 0xc0ffee + 1);
	ck_assert_uint_eq(s.cb_compound_status, NFS4_OK);
	ck_assert_int_eq(hook_calls, 1);
	ck_assert_uint_eq(nfs42_cb_calls(cl), 2);
	cl->have_session = false;
	nfs42_client_free(cl);
}
END_TEST

START_TEST(callbacks_default_notsupp)
{
	struct server s;
	struct nfs42_client *cl;
	int rc;

	cl = serve(&s, S_CALLBACKS, 5000);
	fake_session(cl, 1);
	rc = nfs42_null(cl);
	server_stop(&s);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(s.cb_seq_status, NFS4_OK);
	ck_assert_uint_eq(s.cb_op2_status, NFS4ERR_NOTSUPP);
	ck_assert_uint_eq(s.cb_compound_status, NFS4ERR_NOTSUPP);
	cl->have_session = false;
	nfs42_client_free(cl);
}
END_TEST

START_TEST(callbacks_bad_session)
{
	struct server s;
	struct nfs42_client *cl;
	int rc;

	cl = serve(&s, S_CALLBACKS, 5000);
	rc = nfs42_null(cl);
	server_stop(&s);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(s.cb_seq_status, NFS4ERR_BADSESSION);
	ck_assert_uint_eq(s.cb_compound_status, NFS4ERR_BADSESSION);
	nfs42_client_free(cl);
}
END_TEST

static struct nfs42_client *make_cb_client(void)
{
	struct nfs42_client *cl = calloc(1, sizeof(*cl));

	pthread_mutex_init(&cl->lock, NULL);
	cl->cb_program = NFS42_CB_PROGRAM_DEFAULT;
	fake_session(cl, 2);
	return cl;
}

static void free_cb_client(struct nfs42_client *cl)
{
	pthread_mutex_destroy(&cl->lock);
	free(cl);
}

/* Hand the call in x (after its mark slot) to the backchannel; the reply
 * goes to r and d is positioned at its xid. */
static void cb_run(struct nfs42_client *cl, struct nfs42_xdr *x,
		   struct nfs42_xdr *r, struct nfs42_xdr *d, const char *what)
{
	int rc;

	nfs42_xdr_enc_init(r);
	rc = nfs42_cb_process(cl, x->buf + 4, x->len - 4, r);
	ck_assert_msg(rc == 0, "%s: nfs42_cb_process returned %d", what, rc);
	nfs42_xdr_dec_init(d, r->buf + 4, r->len - 4);
}

static uint32_t cb_seq_status(struct nfs42_client *cl, uint32_t seq,
			      uint32_t slot, uint32_t first_op)
{
	struct nfs42_xdr x, r, d;
	uint32_t st, v;

	cb_call_header(&x, 1, 1);
	nfs42_xdr_put_string(&x, "");
	nfs42_xdr_put_u32(&x, 2);
	nfs42_xdr_put_u32(&x, 0);
	nfs42_xdr_put_u32(&x, 1);
	nfs42_xdr_put_u32(&x, first_op);
	nfs42_xdr_put_fixed(&x, SESSION, 16);
	nfs42_xdr_put_u32(&x, seq);
	nfs42_xdr_put_u32(&x, slot);
	nfs42_xdr_put_u32(&x, 0);
	nfs42_xdr_put_bool(&x, false);
	nfs42_xdr_put_u32(&x, 0);
	cb_run(cl, &x, &r, &d, "CB_SEQUENCE");
	nfs42_xdr_skip(&d, 24);
	nfs42_xdr_get_u32(&d, &st);
	nfs42_xdr_skip_opaque(&d);
	nfs42_xdr_get_u32(&d, &v);
	ck_assert_uint_eq(v, 1);
	nfs42_xdr_get_u32(&d, &v);
	nfs42_xdr_get_u32(&d, &v);
	ck_assert_uint_eq(v, st);
	ck_assert_int_eq(d.err, 0);
	nfs42_xdr_free(&x);
	nfs42_xdr_free(&r);
	return st;
}

START_TEST(cb_sequence_slot_rules)
{
	struct nfs42_client *cl = make_cb_client();

	ck_assert_uint_eq(cb_seq_status(cl, 1, 0, OP_CB_SEQUENCE), NFS4_OK);
	ck_assert_uint_eq(cb_seq_status(cl, 1, 0, OP_CB_SEQUENCE),
			  NFS4ERR_RETRY_UNCACHED_REP);
	ck_assert_uint_eq(cb_seq_status(cl, 3, 0, OP_CB_SEQUENCE),
			  NFS4ERR_SEQ_MISORDERED);
	ck_assert_uint_eq(cb_seq_status(cl, 2, 0, OP_CB_SEQUENCE), NFS4_OK);
	ck_assert_uint_eq(cb_seq_status(cl, 1, 1, OP_CB_SEQUENCE), NFS4_OK);
	ck_assert_uint_eq(cb_seq_status(cl, 1, 2, OP_CB_SEQUENCE),
			  NFS4ERR_BADSLOT);
	/* first op must be CB_SEQUENCE; unknown ops are illegal */
	ck_assert_uint_eq(cb_seq_status(cl, 1, 0, OP_CB_RECALL),
			  NFS4ERR_OP_NOT_IN_SESSION);
	ck_assert_uint_eq(cb_seq_status(cl, 1, 0, 77), NFS4ERR_OP_ILLEGAL);
	free_cb_client(cl);
}
END_TEST

START_TEST(cb_garbage_and_wrong_program)
{
	struct nfs42_client *cl = make_cb_client();
	uint8_t junk[10] = { 0 };
	struct nfs42_xdr x, r, d;
	uint32_t v;

	nfs42_xdr_enc_init(&r);
	ck_assert_int_lt(nfs42_cb_process(cl, junk, sizeof(junk), &r), 0);
	nfs42_xdr_free(&r);
	/* truncated CB_COMPOUND args: BADXDR */
	cb_call_header(&x, 9, 1);
	nfs42_xdr_put_u32(&x, 100); /* tag length beyond the end */
	cb_run(cl, &x, &r, &d, "truncated CB_COMPOUND");
	nfs42_xdr_skip(&d, 24);
	EXPECT_U32(&d, NFS4ERR_BADXDR);
	nfs42_xdr_free(&x);
	nfs42_xdr_free(&r);
	/* wrong program: PROG_UNAVAIL */
	cl->cb_program = 42;
	cb_call_header(&x, 9, 0);
	cb_run(cl, &x, &r, &d, "wrong program");
	nfs42_xdr_skip(&d, 20);
	nfs42_xdr_get_u32(&d, &v);
	ck_assert_uint_eq(v, RPC_PROG_UNAVAIL);
	nfs42_xdr_free(&x);
	nfs42_xdr_free(&r);
	free_cb_client(cl);
}
END_TEST

/* A CB_COMPOUND of CB_SEQUENCE(seq, slot 0) and one more operation,
 * whose arguments the caller adds. */
static void cb_seq_and_one(struct nfs42_xdr *x, uint32_t seq, uint32_t op)
{
	cb_call_header(x, 1, 1);
	nfs42_xdr_put_string(x, "");
	nfs42_xdr_put_u32(x, 1);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, 2);
	nfs42_xdr_put_u32(x, OP_CB_SEQUENCE);
	nfs42_xdr_put_fixed(x, SESSION, 16);
	nfs42_xdr_put_u32(x, seq);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_bool(x, false);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, op);
}

/* The reply d to cb_seq_and_one(): CB_SEQUENCE done, then op's status
 * (the compound's too); d is left at op's result body. */
static uint32_t cb_second_status(struct nfs42_xdr *d, uint32_t op)
{
	uint32_t st, n, v;

	nfs42_xdr_skip(d, 24);
	nfs42_xdr_get_u32(d, &st);
	nfs42_xdr_skip_opaque(d);
	nfs42_xdr_get_u32(d, &n);
	ck_assert_uint_eq(n, 2);
	EXPECT_U32(d, OP_CB_SEQUENCE);
	EXPECT_U32(d, NFS4_OK);
	nfs42_xdr_skip(d, 16 + 16);
	EXPECT_U32(d, op);
	nfs42_xdr_get_u32(d, &v);
	ck_assert_uint_eq(v, st);
	return st;
}

/* CB_SEQUENCE(seq, slot 0) + CB_RECALL(stateid other[0] = tag, fh of
 * fhlen bytes, or a length beyond the end when truncated); the status of
 * the CB_RECALL result (or of the compound when it has none).
 */
static uint32_t cb_recall_status(struct nfs42_client *cl, uint32_t seq,
				 uint8_t tag, uint32_t fhlen, bool truncated)
{
	uint8_t other[NFS4_OTHER_SIZE] = { tag };
	uint8_t fh[8] = { tag, 1, 2, 3, 4, 5, 6, 7 };
	struct nfs42_xdr x, r, d;
	uint32_t st;

	cb_seq_and_one(&x, seq, OP_CB_RECALL);
	nfs42_xdr_put_u32(&x, 1); /* stateid seqid */
	nfs42_xdr_put_fixed(&x, other, sizeof(other));
	nfs42_xdr_put_bool(&x, true);
	if (truncated) {
		nfs42_xdr_put_u32(&x, 64);
		nfs42_xdr_put_fixed(&x, fh, 8);
	} else {
		nfs42_xdr_put_opaque(&x, fh, fhlen);
	}
	cb_run(cl, &x, &r, &d, "CB_RECALL");
	st = cb_second_status(&d, OP_CB_RECALL);
	ck_assert_int_eq(d.err, 0);
	ck_assert_uint_eq(nfs42_xdr_remaining(&d), 0);
	nfs42_xdr_free(&x);
	nfs42_xdr_free(&r);
	return st;
}

START_TEST(cb_recall_queued)
{
	struct nfs42_client *cl = make_cb_client();
	struct nfs42_recall rec[NFS42_MAX_RECALLS + 1];
	uint32_t seq = 1, i;

	ck_assert_uint_eq(cb_recall_status(cl, seq++, 7, 8, false), NFS4_OK);
	ck_assert_uint_eq(nfs42_recalls_received(cl), 1);
	ck_assert_uint_eq(nfs42_take_recalls(cl, rec, 4), 1);
	ck_assert_uint_eq(rec[0].stateid.seqid, 1);
	ck_assert_uint_eq(rec[0].stateid.other[0], 7);
	ck_assert(rec[0].truncate);
	ck_assert_uint_eq(rec[0].fh.len, 8);
	ck_assert_uint_eq(rec[0].fh.data[0], 7);
	ck_assert_uint_eq(rec[0].fh.data[7], 7);
	ck_assert_uint_eq(nfs42_take_recalls(cl, rec, 4), 0);
	/* a file handle running past the end: BADXDR, nothing queued */
	ck_assert_uint_eq(cb_recall_status(cl, seq++, 8, 0, true),
			  NFS4ERR_BADXDR);
	ck_assert_uint_eq(nfs42_take_recalls(cl, rec, 4), 0);
	/* a full queue says DELAY (the server calls again) */
	for (i = 0; i < NFS42_MAX_RECALLS; i++)
		ck_assert_uint_eq(cb_recall_status(cl, seq++, (uint8_t)i, 4,
						   false),
				  NFS4_OK);
	ck_assert_uint_eq(cb_recall_status(cl, seq++, 99, 4, false),
			  NFS4ERR_DELAY);
	/* oldest first, taken in two helpings */
	ck_assert_uint_eq(nfs42_take_recalls(cl, rec, 3), 3);
	ck_assert_uint_eq(rec[2].stateid.other[0], 2);
	ck_assert_uint_eq(nfs42_take_recalls(cl, rec, NFS42_MAX_RECALLS + 1),
			  NFS42_MAX_RECALLS - 3);
	ck_assert_uint_eq(rec[0].stateid.other[0], 3);
	ck_assert_uint_eq(nfs42_recalls_received(cl), 1 + NFS42_MAX_RECALLS);
	free_cb_client(cl);
}
END_TEST

/*
 * CB_GETATTR (RFC 8881 20.1) answered by the library from the write
 * delegation it holds: CB_SEQUENCE(seq) + CB_GETATTR(fh, change and
 * size); the CB_GETATTR status, and the values in *change and *size.
 */
static uint32_t cb_getattr_status(struct nfs42_client *cl, uint32_t seq,
				  const struct nfs42_fh *fh, uint64_t *change,
				  uint64_t *size)
{
	struct nfs42_bitmap want =
		nfs42_bm_make(FATTR4_CHANGE, FATTR4_SIZE, FATTR4_MODE, -1);
	struct nfs42_bitmap have;
	struct nfs42_xdr x, r, d;
	uint32_t st;

	cb_seq_and_one(&x, seq, OP_CB_GETATTR);
	nfs42_xdr_put_opaque(&x, fh->data, fh->len);
	nfs42_bitmap_encode(&x, &want);
	cb_run(cl, &x, &r, &d, "CB_GETATTR");
	st = cb_second_status(&d, OP_CB_GETATTR);
	if (st == NFS4_OK) {
		/* fattr4: exactly change and size (no mode: not ours) */
		ck_assert(nfs42_bitmap_decode(&d, &have));
		ck_assert(nfs42_bm_isset(&have, FATTR4_CHANGE));
		ck_assert(nfs42_bm_isset(&have, FATTR4_SIZE));
		ck_assert(!nfs42_bm_isset(&have, FATTR4_MODE));
		EXPECT_U32(&d, 16);
		nfs42_xdr_get_u64(&d, change);
		nfs42_xdr_get_u64(&d, size);
	}
	ck_assert_int_eq(d.err, 0);
	ck_assert_uint_eq(nfs42_xdr_remaining(&d), 0);
	nfs42_xdr_free(&x);
	nfs42_xdr_free(&r);
	return st;
}

/* The reply to c (no SEQUENCE): each op's status in order, op results
 * from what follows: WRITE counts, a COPY's callback id when async. */
static int fake_reply(struct nfs42_compound *c, const uint32_t *status,
		      uint32_t written, bool copy_async)
{
	struct nfs42_xdr x;
	unsigned int i, n = nfs42_compound_nops(c);
	uint32_t last = NFS4_OK;
	int rc;

	nfs42_xdr_enc_init(&x);
	for (i = 0; i < n; i++) {
		last = status[i];
		if (last != NFS4_OK)
			break;
	}
	nfs42_xdr_put_u32(&x, last);
	nfs42_xdr_put_string(&x, "");
	nfs42_xdr_put_u32(&x, i < n ? i + 1 : n);
	for (i = 0; i < n; i++) {
		nfs42_xdr_put_u32(&x, nfs42_compound_opnum(c, (int)i));
		nfs42_xdr_put_u32(&x, status[i]);
		if (nfs42_compound_opnum(c, (int)i) == OP_SETATTR)
			nfs42_xdr_put_u32(&x, 0); /* attrsset, also on error */
		if (status[i] != NFS4_OK)
			break;
		switch (nfs42_compound_opnum(c, (int)i)) {
		case OP_WRITE:
			nfs42_xdr_put_u32(&x, written);
			nfs42_xdr_put_u32(&x, FILE_SYNC4);
			nfs42_xdr_put_u64(&x, 0);
			break;
		case OP_COPY:
			nfs42_xdr_put_u32(&x, copy_async ? 1 : 0);
			if (copy_async) {
				nfs42_xdr_put_u32(&x, 1);
				nfs42_xdr_put_fixed(&x, "copy-stateid", 12);
			}
			nfs42_xdr_put_u64(&x, copy_async ? 0 : written);
			nfs42_xdr_put_u32(&x, FILE_SYNC4);
			nfs42_xdr_put_u64(&x, 0);
			nfs42_xdr_put_bool(&x, true);
			nfs42_xdr_put_bool(&x, !copy_async);
			break;
		default:
			break;
		}
	}
	rc = nfs42_compound_decode(c, x.buf, x.len);
	nfs42_xdr_free(&x);
	return rc;
}

/* A compound on fh (no SEQUENCE), its operation added by the caller. */
static struct nfs42_compound *on_file(struct nfs42_client *cl,
				      const struct nfs42_fh *fh)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);

	nfs42_compound_no_sequence(c);
	nfs42_op_putfh(c, fh);
	return c;
}

/* CB_GETATTR of fh answered NFS4_OK with this change and size. */
static void ck_cb_getattr(struct nfs42_client *cl, uint32_t seq,
			  const struct nfs42_fh *fh, uint64_t want_change,
			  uint64_t want_size)
{
	uint64_t change = 0, size = 0;

	ck_assert_uint_eq(cb_getattr_status(cl, seq, fh, &change, &size),
			  NFS4_OK);
	ck_assert_uint_eq(change, want_change);
	ck_assert_uint_eq(size, want_size);
}

/* c answered as fake_reply() makes it (status: the compound's), done. */
static void answered(struct nfs42_compound *c, const uint32_t *status,
		     uint32_t written, bool copy_async, int want)
{
	ck_assert_int_eq(fake_reply(c, status, written, copy_async), want);
	nfs42_deleg_io_end(c, want);
	nfs42_compound_free(c);
}

/* CB_GETATTR of change, size, 84 and 85 of fh: NFS4_OK, whether 84/85
 * came, and their values. */
static bool cb_getattr_times(struct nfs42_client *cl, uint32_t seq,
			     const struct nfs42_fh *fh,
			     struct nfs42_time *atime, struct nfs42_time *mtime)
{
	struct nfs42_bitmap want = nfs42_bm_make(FATTR4_CHANGE, FATTR4_SIZE,
						 FATTR4_TIME_DELEG_ACCESS,
						 FATTR4_TIME_DELEG_MODIFY, -1);
	struct nfs42_bitmap have;
	struct nfs42_xdr x, r, d;
	uint64_t v, s;
	uint32_t len;
	bool times;

	cb_seq_and_one(&x, seq, OP_CB_GETATTR);
	nfs42_xdr_put_opaque(&x, fh->data, fh->len);
	nfs42_bitmap_encode(&x, &want);
	cb_run(cl, &x, &r, &d, "CB_GETATTR");
	ck_assert_uint_eq(cb_second_status(&d, OP_CB_GETATTR), NFS4_OK);
	ck_assert(nfs42_bitmap_decode(&d, &have));
	times = nfs42_bm_isset(&have, FATTR4_TIME_DELEG_ACCESS);
	ck_assert(times == nfs42_bm_isset(&have, FATTR4_TIME_DELEG_MODIFY));
	nfs42_xdr_get_u32(&d, &len);
	ck_assert_uint_eq(len, times ? 16 + 24 : 16);
	nfs42_xdr_get_u64(&d, &v);
	nfs42_xdr_get_u64(&d, &v);
	if (times) {
		nfs42_xdr_get_u64(&d, &s);
		atime->seconds = (int64_t)s;
		nfs42_xdr_get_u32(&d, &atime->nseconds);
		nfs42_xdr_get_u64(&d, &s);
		mtime->seconds = (int64_t)s;
		nfs42_xdr_get_u32(&d, &mtime->nseconds);
	}
	ck_assert_int_eq(d.err, 0);
	ck_assert_uint_eq(nfs42_xdr_remaining(&d), 0);
	nfs42_xdr_free(&x);
	nfs42_xdr_free(&r);
	return times;
}

/*
 * RFC 9754 section 5: holding OPEN_DELEGATE_WRITE_ATTRS_DELEG, the
 * library answers CB_GETATTR's time_deleg_access and time_deleg_modify:
 * the OPEN's times at first, its clock for mtime while a modification is
 * in flight and once it is answered.  A plain write delegation answers
 * change and size only.
 */
START_TEST(cb_getattr_answers_delegated_times)
{
	struct nfs42_client *cl = make_cb_client();
	struct nfs42_fh fh = { .len = 8, .data = "file-tms" };
	struct nfs42_fh plain = { .len = 8, .data = "file-pln" };
	struct nfs42_stateid sid = { .seqid = 1, .other = "deleg-tms" };
	struct nfs42_stateid psid = { .seqid = 1, .other = "deleg-pln" };
	const uint32_t ok[2] = { NFS4_OK, NFS4_OK };
	struct nfs42_attrs at = { 0 };
	struct nfs42_time atime, mtime;
	struct nfs42_compound *c;
	struct timespec before;
	uint32_t seq = 1;
	char data[4] = "abcd";

	at.mask = nfs42_bm_make(FATTR4_CHANGE, FATTR4_SIZE, FATTR4_TIME_ACCESS,
				FATTR4_TIME_MODIFY, -1);
	at.change = 100;
	at.size = 10;
	at.time_access = (struct nfs42_time){ 1000, 5 };
	at.time_modify = (struct nfs42_time){ 2000, 7 };
	nfs42_deleg_granted(cl, &fh, &sid, OPEN_DELEGATE_WRITE_ATTRS_DELEG,
			    &at);
	nfs42_deleg_granted(cl, &plain, &psid, OPEN_DELEGATE_WRITE, &at);

	ck_assert(!cb_getattr_times(cl, seq++, &plain, &atime, &mtime));
	ck_assert(cb_getattr_times(cl, seq++, &fh, &atime, &mtime));
	ck_assert(atime.seconds == 1000 && atime.nseconds == 5);
	ck_assert(mtime.seconds == 2000 && mtime.nseconds == 7);

	clock_gettime(CLOCK_REALTIME, &before);
	c = on_file(cl, &fh);
	nfs42_op_write(c, NULL, 0, UNSTABLE4, data, sizeof(data));
	nfs42_deleg_io_begin(c);
	ck_assert(cb_getattr_times(cl, seq++, &fh, &atime, &mtime));
	ck_assert(mtime.seconds >= before.tv_sec);
	answered(c, ok, sizeof(data), false, NFS4_OK);
	ck_assert(cb_getattr_times(cl, seq++, &fh, &atime, &mtime));
	ck_assert(mtime.seconds >= before.tv_sec);
	ck_assert(atime.seconds == 1000 && atime.nseconds == 5);
	free_cb_client(cl);
}
END_TEST

START_TEST(cb_getattr_answered_from_write_delegation)
{
	struct nfs42_client *cl = make_cb_client();
	struct nfs42_fh fh = { .len = 8, .data = "file-one" };
	struct nfs42_fh other = { .len = 8, .data = "file-two" };
	struct nfs42_stateid sid = { .seqid = 1, .other = "deleg-one" };
	const uint32_t ok[2] = { NFS4_OK, NFS4_OK };
	const uint32_t refused[2] = { NFS4_OK, NFS4ERR_PERM };
	struct nfs42_attrs at = { 0 };
	struct nfs42_compound *c;
	struct nfs42_sattr sa;
	uint64_t change = 0, size = 0;
	uint32_t seq = 1;
	char data[6] = "abcdef";

	/* no write delegation on it: BADHANDLE (RFC 8881 20.1.3) */
	ck_assert_uint_eq(cb_getattr_status(cl, seq++, &fh, &change, &size),
			  NFS4ERR_BADHANDLE);
	at.mask = nfs42_bm_make(FATTR4_CHANGE, FATTR4_SIZE, -1);
	at.change = 100;
	at.size = 10;
	nfs42_deleg_granted(cl, &other, &sid, OPEN_DELEGATE_READ, &at);
	ck_assert_uint_eq(cb_getattr_status(cl, seq++, &other, &change, &size),
			  NFS4ERR_BADHANDLE);
	sid.other[0] = 'D';
	nfs42_deleg_granted(cl, &fh, &sid, OPEN_DELEGATE_WRITE, &at);

	/* nothing done: the change attribute of the grant, its size */
	ck_cb_getattr(cl, seq++, &fh, 100, 10);

	/* a WRITE to 4096 in flight: modified (change + 1), its size */
	c = on_file(cl, &fh);
	nfs42_op_write(c, NULL, 4090, UNSTABLE4, data, sizeof(data));
	nfs42_deleg_io_begin(c);
	ck_cb_getattr(cl, seq++, &fh, 101, 4096);
	/* answered (5 of the 6 bytes written): the server has it all */
	answered(c, ok, 5, false, NFS4_OK);
	ck_cb_getattr(cl, seq++, &fh, 100, 4095);

	/* a truncate to 7 refused by the server: nothing changed */
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 7);
	c = on_file(cl, &fh);
	nfs42_op_setattr(c, NULL, &sa);
	nfs42_deleg_io_begin(c);
	ck_cb_getattr(cl, seq++, &fh, 101, 7);
	answered(c, refused, 0, false, NFS4ERR_PERM);
	ck_assert_uint_eq(cb_getattr_status(cl, seq++, &fh, &change, &size),
			  NFS4_OK);
	ck_assert_uint_eq(size, 4095);
	/* done: the new size */
	c = on_file(cl, &fh);
	nfs42_op_setattr(c, NULL, &sa);
	nfs42_deleg_io_begin(c);
	answered(c, ok, 0, false, NFS4_OK);
	ck_cb_getattr(cl, seq++, &fh, 100, 7);

	/* a WRITE to another file changes nothing here */
	c = on_file(cl, &other);
	nfs42_op_write(c, NULL, 1 << 20, UNSTABLE4, data, sizeof(data));
	nfs42_deleg_io_begin(c);
	ck_cb_getattr(cl, seq++, &fh, 100, 7);
	nfs42_deleg_io_end(c, -ETIMEDOUT);
	nfs42_compound_free(c);

	/* an asynchronous COPY into it: the size is no longer known, the
	 * server is told to ask later (it recalls instead) */
	c = on_file(cl, &fh);
	nfs42_op_copy(c, NULL, NULL, 0, 0, 100, true, false);
	nfs42_deleg_io_begin(c);
	answered(c, ok, 0, true, NFS4_OK);
	ck_assert_uint_eq(cb_getattr_status(cl, seq++, &fh, &change, &size),
			  NFS4ERR_DELAY);
	ck_assert_uint_eq(nfs42_cb_getattrs_answered(cl), 7);

	/* switched off: NOTSUPP, as before the library answered */
	nfs42_set_cb_getattr(cl, false);
	ck_assert_uint_eq(cb_getattr_status(cl, seq++, &fh, &change, &size),
			  NFS4ERR_NOTSUPP);
	free_cb_client(cl);
}
END_TEST

START_TEST(bad_reply_header)
{
	struct server s;
	struct nfs42_client *cl;
	int rc;

	cl = serve(&s, S_BAD_HEADER, 5000);
	rc = nfs42_null(cl);
	unserve(&s, cl);
	ck_assert_int_eq(rc, -EBADMSG);
}
END_TEST

START_TEST(denied_reply)
{
	struct server s;
	struct nfs42_client *cl;
	int rc;

	cl = serve(&s, S_DENIED, 5000);
	rc = nfs42_null(cl);
	server_stop(&s);
	ck_assert_int_eq(rc, -EACCES);
	ck_assert(strstr(nfs42_client_error(cl), "auth error"));
	nfs42_client_free(cl);
}
END_TEST

START_TEST(reply_timeout)
{
	struct server s;
	struct nfs42_client *cl;
	int64_t t0, took;
	int rc;

	cl = serve(&s, S_SILENT, 200);
	t0 = nfs42_now_ms();
	rc = nfs42_null(cl);
	took = nfs42_now_ms() - t0;
	server_stop(&s);
	ck_assert_int_eq(rc, -ETIMEDOUT);
	ck_assert_int_lt(took, 2000);
	ck_assert(strstr(nfs42_client_error(cl), "no reply"));
	nfs42_client_free(cl);
}
END_TEST

START_TEST(server_closes)
{
	struct server s;
	struct nfs42_client *cl;
	int rc;

	cl = serve(&s, S_CLOSE, 5000);
	rc = nfs42_null(cl);
	server_stop(&s);
	ck_assert(rc == -ECONNRESET || rc == -EPIPE);
	/* the connection stays failed */
	ck_assert_int_lt(nfs42_null(cl), 0);
	nfs42_client_free(cl);
}
END_TEST

static void *null_thread(void *arg)
{
	return (void *)(intptr_t)nfs42_null(arg);
}

START_TEST(concurrent_calls_matched_by_xid)
{
	struct server s;
	struct nfs42_client *cl;
	pthread_t t1, t2;
	void *r1, *r2;

	cl = serve(&s, S_REVERSED, 5000);
	pthread_create(&t1, NULL, null_thread, cl);
	pthread_create(&t2, NULL, null_thread, cl);
	pthread_join(t1, &r1);
	pthread_join(t2, &r2);
	unserve(&s, cl);
	ck_assert_int_eq((intptr_t)r1, 0);
	ck_assert_int_eq((intptr_t)r2, 0);
}
END_TEST

static int putrootfh_compound(struct nfs42_client *cl, bool retry)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	if (!retry)
		nfs42_compound_no_retry(c);
	nfs42_op_putrootfh(c);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

START_TEST(delay_is_retried)
{
	struct server s;
	struct nfs42_client *cl;
	int rc;

	cl = serve(&s, S_DELAY_ONCE, 5000);
	rc = putrootfh_compound(cl, true);
	unserve(&s, cl);
	ck_assert_int_eq(rc, NFS4_OK);
}
END_TEST

/*
 * NFS4ERR_DELAY is retried for the client's reply timeout, not a fixed
 * 15 s: with a 700 ms timeout against a server that always answers
 * DELAY, the compound returns NFS4ERR_DELAY after 0.5 to 2 s, having
 * retried (with backoff) in between.
 */
START_TEST(delay_retried_for_the_timeout)
{
	struct server s;
	struct nfs42_client *cl;
	int64_t t0, took;
	int rc;

	cl = serve(&s, S_DELAY_ALWAYS, 700);
	t0 = nfs42_now_ms();
	rc = putrootfh_compound(cl, true);
	took = nfs42_now_ms() - t0;
	nfs42_client_free(cl);
	pthread_join(s.thr, NULL);
	close(s.lfd);
	ck_assert_int_eq(rc, NFS4ERR_DELAY);
	ck_assert_msg(took >= 500 && took < 2000,
		      "gave up after %lld ms (timeout 700 ms)",
		      (long long)took);
}
END_TEST

START_TEST(delay_returned_without_retry)
{
	struct server s;
	struct nfs42_client *cl;
	int rc1, rc2;

	cl = serve(&s, S_DELAY_ONCE, 5000);
	rc1 = putrootfh_compound(cl, false);
	/* let the server finish its script */
	rc2 = putrootfh_compound(cl, false);
	unserve(&s, cl);
	ck_assert_int_eq(rc1, NFS4ERR_DELAY);
	ck_assert_int_eq(rc2, NFS4_OK);
}
END_TEST

START_TEST(connect_refused_message)
{
	struct server s;
	struct nfs42_client *cl;
	struct nfs42_opts o;
	char want[64];
	int rc;

	server_start(&s, S_ACCEPT_ONLY);
	nfs42_opts_init(&o);
	o.port = s.port;
	/* accept the one connection the server thread waits for */
	rc = nfs42_connect(&o, &cl);
	server_stop(&s); /* listener closed: port now refuses */
	ck_assert_int_eq(rc, 0);
	nfs42_client_free(cl);
	ck_assert_int_eq(nfs42_connect(&o, &cl), -ECONNREFUSED);
	snprintf(want, sizeof(want),
		 "cannot connect to 127.0.0.1:%u: Connection refused", s.port);
	ck_assert_str_eq(nfs42_client_error(cl), want);
	nfs42_client_free(cl);
}
END_TEST

/* ------------------------------------------------ streaming reads */

/* What the stream handed over: bytes, and which of them came as holes. */
struct got {
	uint8_t bytes[FILE_LEN];
	bool hole[FILE_LEN];
	uint64_t next; /* offset order check */
	unsigned int nholes, ndata;
	bool out_of_order;
};

static int got_seg(void *arg, uint64_t off, uint64_t len, const void *data)
{
	struct got *g = arg;
	uint64_t i;

	g->out_of_order |= off != g->next || off + len > FILE_LEN;
	if (g->out_of_order)
		return -EFAULT;
	for (i = 0; i < len; i++) {
		g->bytes[off + i] = data ? ((const uint8_t *)data)[i] : 0;
		g->hole[off + i] = !data;
	}
	g->next = off + len;
	if (data)
		g->ndata++;
	else
		g->nholes++;
	return 0;
}

/* A client with a made-up session of nslots slots on the fake server. */
static struct nfs42_client *serve_reads_client(struct server *s,
					       enum read_fault fault,
					       unsigned int batch,
					       uint32_t nslots)
{
	struct nfs42_client *cl;

	s->fault = fault;
	s->batch = batch;
	cl = serve(s, S_READS, 5000);
	fake_session(cl, 1);
	cl->nslots = nslots;
	return cl;
}

/* Stream all of the file, 16 bytes a call, depth calls in flight. */
static int stream_all(struct nfs42_client *cl, bool read_plus, uint32_t depth,
		      struct got *g, uint64_t *end)
{
	struct nfs42_stream_opts o;
	struct nfs42_file f = { .cl = cl };

	memset(g, 0, sizeof(*g));
	nfs42_stream_opts_init(&o);
	o.read_plus = read_plus;
	o.depth = depth;
	o.io_size = 16;
	return nfs42_read_stream(&f, &o, got_seg, g, end);
}

static void check_file(const struct got *g, bool holes)
{
	uint64_t i;

	ck_assert(!g->out_of_order);
	ck_assert_uint_eq(g->next, FILE_LEN);
	for (i = 0; i < FILE_LEN; i++) {
		ck_assert_uint_eq(g->bytes[i], is_data(i) ? 'a' + i % 26 : 0u);
		ck_assert_int_eq(g->hole[i], holes && !is_data(i));
	}
}

START_TEST(read_plus_pipelined_out_of_order)
{
	struct server s;
	char err[256];
	struct nfs42_client *cl;
	struct got g;
	uint64_t end;
	int rc;

	cl = serve_reads_client(&s, RF_NONE, 4, 8);
	rc = stream_all(cl, true, 4, &g, &end);
	cl->have_session = false;
	unserve_err(&s, cl, err, sizeof(err));
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert(s.first_alone); /* the first READ_PLUS alone */
	ck_assert_uint_eq(s.max_inflight, 4); /* then 4 slots at once */
	ck_assert(!s.dup_xid);
	ck_assert_uint_eq(s.cb_null_stat, RPC_SUCCESS);
	ck_assert_uint_eq(end, FILE_LEN);
	check_file(&g, true);
	/* holes: [0,10) [20,32) [32,40) [55,64) [64,70) [73,80) [80,96)
	 * [96,100), each call's piece delivered on its own */
	ck_assert_uint_eq(g.nholes, 8);
	ck_assert_uint_eq(g.ndata, 5);
	/* [0,16) alone, 4 in flight, one more as each completes: 10 */
	ck_assert_uint_eq(s.ncalls, 10);
}
END_TEST

START_TEST(read_pipelined_and_short)
{
	struct server s;
	char err[256];
	struct nfs42_client *cl;
	struct got g;
	uint64_t end;
	int rc;

	cl = serve_reads_client(&s, _i ? RF_SHORT : RF_NONE, 3, 3);
	rc = stream_all(cl, false, 8, &g, &end); /* clamped to 3 slots */
	cl->have_session = false;
	unserve_err(&s, cl, err, sizeof(err));
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	/* short replies are completed one call at a time */
	ck_assert_uint_eq(s.max_inflight, _i ? 1 : 3);
	ck_assert_uint_eq(end, FILE_LEN);
	check_file(&g, false);
}
END_TEST

START_TEST(read_plus_notsupp_and_gap)
{
	struct server s;
	struct nfs42_client *cl;
	struct got g;
	uint64_t end;
	int rc;

	bool slots_free;

	cl = serve_reads_client(&s, _i ? RF_GAP : RF_NOTSUPP, 2, 4);
	rc = stream_all(cl, true, 2, &g, &end);
	cl->have_session = false;
	slots_free = !cl->slots[0].busy && !cl->slots[1].busy;
	unserve(&s, cl);
	ck_assert_int_eq(rc, _i ? -EBADMSG : NFS4ERR_NOTSUPP);
	ck_assert_uint_eq(g.ndata + g.nholes, _i ? 1 : 0);
	ck_assert_uint_eq(end, _i ? 10 : 0);
	/* all slots given back */
	ck_assert(slots_free);
}
END_TEST

/* Stream READ_PLUS into a regular file already holding 60 'X's, and into
 * a pipe: the file keeps its bytes where the holes are (seeked over, not
 * written) and grows to 100 over the trailing hole; the pipe gets zeros. */
START_TEST(read_plus_to_fd_keeps_holes)
{
	char path[] = "/tmp/nfs42-rp-XXXXXX", got[FILE_LEN + 1], want;
	struct nfs42_stream_opts o;
	struct nfs42_file f;
	struct server s;
	char err[256];
	struct nfs42_client *cl;
	uint64_t end, i;
	int fd, p[2], rc;
	ssize_t n;

	if (_i) {
		ck_assert_int_eq(pipe(p), 0);
		fd = p[1];
	} else {
		fd = mkstemp(path);
		ck_assert_int_ge(fd, 0);
		unlink(path);
		memset(got, 'X', 60);
		ck_assert_int_eq(write(fd, got, 60), 60);
		ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	}
	cl = serve_reads_client(&s, RF_NONE, 2, 4);
	f = (struct nfs42_file){ .cl = cl };
	nfs42_stream_opts_init(&o);
	o.read_plus = true;
	o.depth = 2;
	o.io_size = 16;
	rc = nfs42_read_stream_fd(&f, &o, fd, &end);
	cl->have_session = false;
	unserve_err(&s, cl, err, sizeof(err));
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
	ck_assert_uint_eq(end, FILE_LEN);
	if (_i) {
		close(p[1]);
		fd = p[0];
	} else {
		ck_assert_int_eq(lseek(fd, 0, SEEK_CUR), FILE_LEN);
		ck_assert_int_eq(lseek(fd, 0, SEEK_END), FILE_LEN);
		ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	}
	n = read(fd, got, sizeof(got));
	close(fd);
	ck_assert_int_eq(n, FILE_LEN);
	for (i = 0; i < FILE_LEN; i++) {
		want = is_data(i) ? 'a' + i % 26 : !_i && i < 60 ? 'X' : 0;
		ck_assert_msg(got[i] == want, "byte %u: %d, want %d",
			      (unsigned int)i, got[i], want);
	}
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, rm_reassembles_fragments);
	tcase_add_test(tc, rm_limits_and_eof);
	tcase_add_test(tc, rm_send_sets_last_fragment);
	tcase_add_test(tc, callbacks_served_while_waiting);
	tcase_add_test(tc, callbacks_default_notsupp);
	tcase_add_test(tc, callbacks_bad_session);
	tcase_add_test(tc, cb_sequence_slot_rules);
	tcase_add_test(tc, cb_garbage_and_wrong_program);
	tcase_add_test(tc, cb_recall_queued);
	tcase_add_test(tc, cb_getattr_answered_from_write_delegation);
	tcase_add_test(tc, cb_getattr_answers_delegated_times);
	tcase_add_test(tc, bad_reply_header);
	tcase_add_test(tc, denied_reply);
	tcase_add_test(tc, reply_timeout);
	tcase_add_test(tc, server_closes);
	tcase_add_test(tc, concurrent_calls_matched_by_xid);
	tcase_add_test(tc, connect_refused_message);
	tcase_add_test(tc, delay_is_retried);
	tcase_add_test(tc, delay_returned_without_retry);
	tcase_add_test(tc, delay_retried_for_the_timeout);
	tcase_add_test(tc, read_plus_pipelined_out_of_order);
	tcase_add_loop_test(tc, read_pipelined_and_short, 0, 2);
	tcase_add_loop_test(tc, read_plus_notsupp_and_gap, 0, 2);
	tcase_add_loop_test(tc, read_plus_to_fd_keeps_holes, 0, 2);
	return run_tcase("nfs42_rpc", tc, CK_NOFORK);
}
