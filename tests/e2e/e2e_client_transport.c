/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: transport failures.  A closed port gives a clean
 * "connection refused"; a server killed under a live session gives a
 * transport error (no hang); after a restart a new client works.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "nfs42_e2e.h"

static uint16_t closed_port(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	getsockname(fd, (struct sockaddr *)&sin, &sl);
	close(fd); /* bound, never listened: connecting is refused */
	return ntohs(sin.sin_port);
}

START_TEST(dead_server_clean_error)
{
	struct nfs42_client *cl;
	struct nfs42_opts o;
	char want[96];
	int64_t t0 = e2e_now_ms();

	nfs42_opts_init(&o);
	o.port = closed_port();
	ck_assert_int_eq(nfs42_client_create(&o, &cl), -ECONNREFUSED);
	snprintf(want, sizeof(want),
		 "cannot connect to 127.0.0.1:%u: Connection refused", o.port);
	ck_assert_str_eq(nfs42_client_error(cl), want);
	ck_assert_int_lt(e2e_now_ms() - t0, 5000);
	/* every further call fails cleanly */
	ck_assert_int_lt(nfs42_null(cl), 0);
	ck_assert_int_lt(nfs42_stat(cl, "/", &(struct nfs42_attrs){ 0 }), 0);
	nfs42_client_free(cl);
}
END_TEST

static int server_ctl(const char *verb)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "'%s' %s", e2e_env("NFS42_SERVER_CTL"),
		 verb);
	return system(cmd);
}

START_TEST(server_killed_under_session)
{
	struct nfs42_client *cl, *again;
	struct nfs42_attrs a;
	int64_t t0;
	int rc;

	cl = e2e_client();
	nfs42_set_timeout(cl, 10000);
	ck_nfs_ok(cl, nfs42_stat(cl, "/", &a));
	ck_assert_int_eq(server_ctl("kill9"), 0);
	t0 = e2e_now_ms();
	rc = nfs42_stat(cl, "/", &a);
	ck_assert_msg(rc < 0, "after kill9: %s", nfs42_strerror(rc));
	ck_assert_int_lt(e2e_now_ms() - t0, 11000);
	ck_assert_str_ne(nfs42_client_error(cl), "");
	nfs42_client_free(cl); /* no hang on teardown either */
	ck_assert_int_eq(server_ctl("start"), 0);
	again = e2e_client();
	ck_nfs_ok(again, nfs42_stat(again, "/", &a));
	nfs42_client_free(again);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_client_transport");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, dead_server_clean_error);
	if (getenv("NFS42_SERVER_CTL"))
		tcase_add_test(tc, server_killed_under_session);
	suite_add_tcase(s, tc);
	/*
	 * No fork: Check kills a forked test's process group when the test
	 * ends, which would take down the server restarted by the test.
	 */
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
