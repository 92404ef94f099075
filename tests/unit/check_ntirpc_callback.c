/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * libntirpc's timed back-channel calls (CLNT_CALL_BACK, what Ganesha's
 * CB_RECALL and CB_OFFLOAD go through), against the patched library of
 * the staging prefix (patches/ntirpc/0001):
 *
 *  - on a live connection whose peer never answers, the call completes
 *    by its timeout (the process callback runs with RPC_TIMEDOUT): the
 *    way this test sees a call complete works;
 *  - on a connection already closing (the transport unlinked from its
 *    event channel, ev_p cleared, as when the client's TCP connection
 *    drops), the call fails at once with RPC_CANTSEND and its process
 *    callback never runs.  Before the fix it returned RPC_SUCCESS and
 *    nothing ever completed it: Ganesha's callback slot, session
 *    reference and the recall waiting on it were never released.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpc/svc.h>
#include <rpc/svc_rqst.h>
#include <rpc/clnt.h>

#include "check_run.h"

#define TEST_PROG 0x40000000
#define TEST_VERS 1

struct test_call {
	struct clnt_req cc; /* first: cc_free_cb gets its address */
	atomic_int completed;
	atomic_int status;
};

static uint32_t chan_id;

static void test_call_free(struct clnt_req *cc, size_t size)
{
	(void)size;
	free(cc);
}

/* Runs on a libntirpc worker when the call completes (reply or expiry). */
static void test_call_done(struct clnt_req *cc)
{
	struct test_call *tc = (struct test_call *)cc;

	atomic_store(&tc->status, cc->cc_error.re_status);
	atomic_store(&tc->completed, 1);
}

static void setup_svc(void)
{
	static bool done;
	svc_init_params p = { .flags = SVC_INIT_EPOLL,
			      .max_connections = 64,
			      .max_events = 64,
			      .ioq_thrd_min = 2,
			      .ioq_thrd_max = 8,
			      .channels = 1 };

	if (done)
		return;
	ck_assert(svc_init(&p));
	ck_assert_int_eq(
		svc_rqst_new_evchan(&chan_id, NULL, SVC_RQST_FLAG_NONE), 0);
	done = true;
}

/* A registered server transport on one end of a socket pair, and the
 * back-channel client Ganesha would make on it (clnt_vc_ncreate_svc).
 */
static SVCXPRT *connected_xprt(int *peer, CLIENT **clnt)
{
	int sv[2];
	SVCXPRT *xprt;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	xprt = svc_fd_ncreatef(sv[0], 0, 0, SVC_CREATE_FLAG_CLOSE);
	ck_assert_ptr_nonnull(xprt);
	ck_assert_int_eq(svc_rqst_evchan_reg(chan_id, xprt, SVC_RQST_FLAG_NONE),
			 0);
	*clnt = clnt_vc_ncreate_svc(xprt, TEST_PROG, TEST_VERS,
				    CLNT_CREATE_FLAG_NONE);
	ck_assert(!CLNT_FAILURE(*clnt));
	*peer = sv[1];
	return xprt;
}

/* CB_NULL-like call with a one-second timeout through CLNT_CALL_BACK. */
static struct test_call *call_back(CLIENT *clnt, AUTH *auth,
				   enum clnt_stat *stat)
{
	struct test_call *tc = calloc(1, sizeof(*tc));
	struct timespec tout = { .tv_sec = 1 };

	ck_assert_ptr_nonnull(tc);
	clnt_req_fill(&tc->cc, clnt, auth, 0, (xdrproc_t)xdr_void, NULL,
		      (xdrproc_t)xdr_void, NULL);
	tc->cc.cc_free_cb = test_call_free;
	tc->cc.cc_size = sizeof(*tc);
	ck_assert_int_eq(clnt_req_setup(&tc->cc, tout), RPC_SUCCESS);
	tc->cc.cc_process_cb = test_call_done;
	*stat = CLNT_CALL_BACK(&tc->cc);
	return tc;
}

/* Did the call complete within ms? */
static bool completes_within(struct test_call *tc, int ms)
{
	struct timespec step = { .tv_nsec = 10 * 1000 * 1000 };

	for (; ms > 0; ms -= 10) {
		if (atomic_load(&tc->completed))
			return true;
		nanosleep(&step, NULL);
	}
	return atomic_load(&tc->completed);
}

/* One back-channel client on a fresh connection. */
struct conn {
	AUTH *auth;
	CLIENT *clnt;
	SVCXPRT *xprt;
	int peer;
};

static void conn_open(struct conn *c)
{
	setup_svc();
	c->auth = authnone_ncreate();
	c->xprt = connected_xprt(&c->peer, &c->clnt);
}

/* After conn_drop (or with a live connection: both ends closed here). */
static void conn_close(struct conn *c, bool dropped)
{
	CLNT_DESTROY(c->clnt);
	if (!dropped) {
		SVC_DESTROY(c->xprt);
		close(c->peer);
	}
	AUTH_DESTROY(c->auth);
}

/* What the event loop does when the client's connection drops: the
 * transport is unlinked from its channel (ev_p cleared); the
 * back-channel client still holds a reference to it.
 */
static void conn_drop(struct conn *c)
{
	close(c->peer);
	SVC_DESTROY(c->xprt);
}

START_TEST(unanswered_call_expires)
{
	enum clnt_stat stat;
	struct test_call *tc;
	struct conn c;

	conn_open(&c);
	tc = call_back(c.clnt, c.auth, &stat);
	ck_assert_int_eq(stat, RPC_SUCCESS);
	ck_assert_msg(completes_within(tc, 4000),
		      "an unanswered call did not expire");
	ck_assert_int_eq(atomic_load(&tc->status), RPC_TIMEDOUT);
	clnt_req_release(&tc->cc);
	conn_close(&c, false);
}
END_TEST

START_TEST(call_on_closing_connection_fails)
{
	enum clnt_stat stat;
	struct test_call *tc;
	struct conn c;

	conn_open(&c);
	conn_drop(&c);
	tc = call_back(c.clnt, c.auth, &stat);
	ck_assert_msg(
		stat == RPC_CANTSEND &&
			tc->cc.cc_error.re_status == RPC_CANTSEND,
		"call on a closing connection: %d, want RPC_CANTSEND (%d); completed within 4 s: %s",
		stat, RPC_CANTSEND, completes_within(tc, 4000) ? "yes" : "no");
	/* a failed call is never completed by the library: the caller
	 * releases it (Ganesha: free_rpc_call) */
	ck_assert(!completes_within(tc, 1500));
	clnt_req_release(&tc->cc);
	conn_close(&c, true);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("callback");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, unanswered_call_expires);
	tcase_add_test(tc, call_on_closing_connection_fails);
	/* one process: libntirpc's threads and channel are set up once */
	return run_tcase("check_ntirpc_callback", tc, CK_NOFORK);
}
