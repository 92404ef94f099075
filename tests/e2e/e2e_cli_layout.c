/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: nfs42 layout (tools/cli/layout.c), under a harness with two
 * data servers (--pnfs 2).
 */
#include "e2e_cli_util.h"

/*
 * The data servers are shown as host:port, the ports the harness gave
 * them (issue #28 item 5: universal addresses, 127.0.0.1.82.209).
 */
START_TEST(layout_shows_host_port)
{
	char ports[128], want[64], *p, *save;
	struct run r;
	int i = 0;

	e2e_put_backing("cli-layout", "striped\n", 8);
	r = CLI("layout", e2e_path("cli-layout"));
	ck_assert_msg(r.status == 0, "%s", r.err);
	snprintf(ports, sizeof(ports), "%s", e2e_env("NFS42_DS_PORTS"));
	for (p = strtok_r(ports, " ", &save); p;
	     p = strtok_r(NULL, " ", &save), i++) {
		snprintf(want, sizeof(want), "data server %d: tcp %s:%s\n", i,
			 e2e_env("NFS42_HOST"), p);
		ck_assert_msg(strstr(r.out, want), "no '%s' in: %s", want,
			      r.out);
	}
	ck_assert_int_eq(i, 2);
	run_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_cli_layout");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, layout_shows_host_port);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
