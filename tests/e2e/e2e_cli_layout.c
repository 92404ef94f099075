/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: nfs42 layout and the pNFS read path of cat and get
 * (tools/cli/layout.c), under a harness with two data servers (--pnfs 2).
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

/* The sum of the data server calls in the "pnfs: ds I ADDR B bytes N
 * calls" lines of a --stats stderr; *lines: how many there were. */
static unsigned long ds_calls(const char *err, int *lines)
{
	unsigned long sum = 0, calls;
	const char *p = err;
	int n;

	*lines = 0;
	while ((p = strstr(p, "pnfs: ds ")) != NULL) {
		n = 0;
		ck_assert_msg(sscanf(p,
				     "pnfs: ds %*u %*s %*u bytes %lu calls%n",
				     &calls, &n) == 1 &&
				      n > 0,
			      "bad line in: %s", err);
		sum += calls;
		(*lines)++;
		p += n;
	}
	return sum;
}

/*
 * Cost follows data through a layout too (issue #28 item 2): cat (READ_PLUS
 * to the data servers) and get --plain-read (READ) of files of 1 GiB and
 * 64 GiB holding three 4 KiB runs make at most two data server calls per
 * run (before: one per stripe unit, 1024 at 1 GiB), the holes skipped by
 * SEEK on the metadata server; the local copy holds the same bytes, its
 * holes kept.
 */
START_TEST(pnfs_read_cost_follows_data)
{
	static const uint64_t sizes[] = { 1ull << 30, 64ull << 30 };
	static const char *const verbs[] = { "cat", "get" };
	const char *dir = local_dir();
	char out[PATH_MAX], name[32];
	unsigned long calls;
	struct run r;
	size_t i, v;
	int lines;

	snprintf(out, sizeof(out), "%s/copy", dir);
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "cli-pnfs-runs-%zu", i);
		make_three_runs(name, sizes[i]);
		for (v = 0; v < 2; v++) {
			r = v ? CLI("get", "--stats", "--plain-read",
				    e2e_path(name), out) :
				CLI("cat", "--stats", e2e_path(name), "-o",
				    out);
			ck_assert_msg(r.status == 0, "%s: %s", verbs[v], r.err);
			calls = ds_calls(r.err, &lines);
			ck_assert_msg(lines == 2,
				      "%s: not through the layout: %s",
				      verbs[v], r.err);
			ck_assert_msg(
				calls >= 3 && calls <= 3 * 2,
				"%s: %lu data server calls at %llu bytes: %s",
				verbs[v], calls, (unsigned long long)sizes[i],
				r.err);
			run_free(&r);
			same_sparse(e2e_backing(name), out);
			ck_assert_int_le(local_alloc(out), 3 * 4096 + 65536);
		}
		unlink(e2e_backing(name));
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_cli_layout");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, layout_shows_host_port);
	tcase_add_test(tc, pnfs_read_cost_follows_data);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
