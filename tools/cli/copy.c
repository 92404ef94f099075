/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42 cp: a copy on the server (COPY, asynchronous COPY, CLONE) or,
 * where the server has no COPY, through the client.
 */
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>

#include "cli.h"

/* cp --stats: one line on stderr */
static void print_cp_stats(const char *path, const struct nfs42_copy_stats *st)
{
	fprintf(stderr,
		"nfs42: cp stats: path=%s calls=%u total_us=%" PRIu64
		" max_us=%" PRIu64 "\n",
		path, st->calls, st->total_us, st->max_us);
}

static volatile int g_stop;

static void on_interrupt(int sig)
{
	g_stop = 1;
}

/* cp --async: COPY with ca_synchronous false; Ctrl-C cancels it. */
static int cp_async(const char *src, const char *dst, bool stats)
{
	struct nfs42_async_copy ac = { 0 };
	struct sigaction sa = { .sa_handler = on_interrupt }, old_int;
	struct progress *p = progress_new(src);
	int rc;

	sigaction(SIGINT, &sa, &old_int);
	ac.poll_ms = 500;
	ac.stop = &g_stop;
	ac.progress = progress_show;
	ac.arg = p;
	rc = nfs42_copy_file_async(g_cl, src, dst, &ac);
	sigaction(SIGINT, &old_int, NULL);
	progress_end(p, ac.went_async);
	if (!rc && ac.cancelled) {
		fprintf(stderr, "nfs42: %s: copy cancelled\n", dst);
		return EXIT_NFS;
	}
	if (!rc && !ac.went_async)
		fprintf(stderr, "nfs42: %s: the server copied synchronously\n",
			dst);
	if (stats) {
		print_cp_stats(ac.went_async ? "async" : "copy", &ac.stats);
		trips_print("cp");
	}
	return rc ? fail_copy(src, dst, ac.stats.failed, rc) : 0;
}

/* --async goes with neither --clone nor --via-client. */
int prepare_cp(struct args *a)
{
	if (OPT(a, 'a') && (OPT(a, 'c') || OPT(a, 'v'))) {
		fprintf(stderr, "nfs42: cp: --async goes with neither --clone "
				"nor --via-client\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* Which way a copy went, for cp --stats. */
static const char *path_name(const struct nfs42_copy_opts *co,
			     const struct nfs42_copy_stats *st)
{
	if (co->clone)
		return "clone";
	return st->via_client ? "client" : "copy";
}

/*
 * cp: CLONE with --clone, else COPY or, without it (or with --via-client),
 * through the client.  --stats: one line on stderr saying which way it
 * went, how many COPY/CLONE calls it took and their round trips.
 */
int cmd_cp(struct nfs42_opts *o, const struct args *args)
{
	const char *src = args->word[0], *dst;
	char buf[PATH_MAX];
	struct nfs42_copy_opts co = { .clone = OPT(args, 'c') != NULL,
				      .via_client = OPT(args, 'v') != NULL };
	struct nfs42_copy_stats st;
	int rc;

	dst = remote_dest(buf, sizeof(buf), args->word[1], src);
	/* --async with --clone or --via-client: refused by prepare_cp() */
	if (OPT(args, 'a'))
		return cp_async(src, dst, OPT(args, 's') != NULL);
	rc = nfs42_copy_file_ex(g_cl, src, dst, &co, &st);
	if (st.via_client && !co.via_client)
		fprintf(stderr,
			"nfs42: %s: server COPY not supported, %s through the client\n",
			dst, rc ? "copy failed" : "copied");
	if (OPT(args, 's')) {
		print_cp_stats(path_name(&co, &st), &st);
		trips_print("cp");
	}
	return rc ? fail_copy(src, dst, st.failed, rc) : 0;
}

/* ---- xattr get|set|ls|rm (RFC 8276; names without "user.") ---- */
