/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * bench_handles: the cost of turning handles into objects on a cold cache
 * (FSAL_SPARSE's export confinement check runs on every MDCACHE miss).
 *
 * Makes CHAINS directory chains of DEPTH levels in the backing directory,
 * one file per level, takes the handle of every directory and file by
 * LOOKUP, then for each run restarts the server (empty MDCACHE), drops the
 * kernel's dentry and inode caches when asked (-D, root only) and times
 * one PUTFH+GETATTR per handle.  Prints the median microseconds per handle
 * for directories and for files, with min-max.  bench/handles.sh runs it
 * against the same server with and without the check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "nfs42.h"

struct cfg {
	const char *export, *backing, *ctl;
	int chains, depth, runs;
	bool drop;
};

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_handles: %s: %s\n", what,
		rc > 0 ? nfs42_strerror(rc) : strerror(-rc));
	exit(1);
}

/* "hb/c<chain>/l1/.../l<level>" (level 0: the chain's top). */
static void rel_dir(char *buf, size_t n, int chain, int level)
{
	int len = snprintf(buf, n, "hb/c%d", chain);

	for (int l = 1; l <= level; l++)
		len += snprintf(buf + len, n - len, "/l%d", l);
}

static void make_tree(const struct cfg *c)
{
	char rel[4096], path[8192];

	snprintf(path, sizeof(path), "%s/hb", c->backing);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		die("mkdir", -errno);
	for (int ch = 0; ch < c->chains; ch++) {
		for (int l = 0; l < c->depth; l++) {
			int fd;

			rel_dir(rel, sizeof(rel), ch, l);
			snprintf(path, sizeof(path), "%s/%s", c->backing, rel);
			if (mkdir(path, 0755) != 0 && errno != EEXIST)
				die("mkdir", -errno);
			snprintf(path, sizeof(path), "%s/%s/f", c->backing,
				 rel);
			fd = open(path, O_WRONLY | O_CREAT, 0644);
			if (fd < 0)
				die("create", -errno);
			close(fd);
		}
	}
}

static struct nfs42_client *connect_client(void)
{
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;
	int rc = -1;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	for (int i = 0; i < 100; i++) {
		rc = nfs42_client_create(&o, &cl);
		if (rc == 0)
			return cl;
		nfs42_client_free(cl);
		cl = NULL;
		usleep(100 * 1000);
	}
	die("client", rc);
	return NULL;
}

/* Handles of every directory (dirs[]) and file (files[]). */
static void take_handles(const struct cfg *c, struct nfs42_fh *dirs,
			 struct nfs42_fh *files)
{
	struct nfs42_client *cl = connect_client();
	char rel[4096], path[8192];
	int i = 0, rc;

	for (int ch = 0; ch < c->chains; ch++) {
		for (int l = 0; l < c->depth; l++, i++) {
			rel_dir(rel, sizeof(rel), ch, l);
			snprintf(path, sizeof(path), "%s/%s", c->export, rel);
			rc = nfs42_lookup_path(cl, path, &dirs[i], NULL);
			if (rc != 0)
				die(path, rc);
			snprintf(path, sizeof(path), "%s/%s/f", c->export, rel);
			rc = nfs42_lookup_path(cl, path, &files[i], NULL);
			if (rc != 0)
				die(path, rc);
		}
	}
	nfs42_client_free(cl);
}

static void cold_server(const struct cfg *c)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "'%s' restart", c->ctl);
	if (system(cmd) != 0)
		die("server restart", -EIO);
	if (c->drop) {
		int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

		sync();
		if (fd < 0 || write(fd, "3", 1) != 1)
			die("drop_caches (needs root; run without -D)", -errno);
		close(fd);
	}
}

/* Microseconds per PUTFH+GETATTR over n handles. */
static double storm(struct nfs42_client *cl, const struct nfs42_fh *fh, int n)
{
	struct nfs42_bitmap bm = nfs42_bm_stat();
	struct nfs42_attrs a;
	double t0 = now_s();

	for (int i = 0; i < n; i++) {
		int rc = nfs42_getattr_fh(cl, &fh[i], &bm, &a);

		if (rc != 0)
			die("GETATTR", rc);
	}
	return (now_s() - t0) * 1e6 / n;
}

static void report(const char *what, double *v, int runs)
{
	qsort(v, runs, sizeof(*v), cmp_double);
	printf("  %-12s median %8.1f us/handle   (min %.1f, max %.1f)\n", what,
	       v[runs / 2], v[0], v[runs - 1]);
}

int main(int argc, char **argv)
{
	struct cfg c = { .chains = 100, .depth = 16, .runs = 5 };
	struct nfs42_fh *dirs, *files;
	double *td, *tf;
	int opt, n;

	c.export = getenv("NFS42_EXPORT");
	c.backing = getenv("NFS42_BACKING");
	c.ctl = getenv("NFS42_SERVER_CTL");
	while ((opt = getopt(argc, argv, "c:d:r:D")) != -1) {
		switch (opt) {
		case 'c':
			c.chains = atoi(optarg);
			break;
		case 'd':
			c.depth = atoi(optarg);
			break;
		case 'r':
			c.runs = atoi(optarg);
			break;
		case 'D':
			c.drop = true;
			break;
		default:
			fprintf(stderr,
				"usage: bench_handles [-c chains] [-d depth] [-r runs] [-D]\n");
			return 2;
		}
	}
	if (!c.export || !c.backing || !c.ctl || c.chains < 1 || c.depth < 1 ||
	    c.runs < 1) {
		fprintf(stderr, "bench_handles: run under tests/e2e/harness.sh "
				"with positive -c, -d, -r\n");
		return 2;
	}
	n = c.chains * c.depth;
	dirs = calloc(n, sizeof(*dirs));
	files = calloc(n, sizeof(*files));
	td = calloc(c.runs, sizeof(*td));
	tf = calloc(c.runs, sizeof(*tf));
	if (!dirs || !files || !td || !tf)
		die("calloc", -ENOMEM);

	make_tree(&c);
	take_handles(&c, dirs, files);
	for (int r = -1; r < c.runs; r++) { /* run -1 warms up */
		struct nfs42_client *cl;
		double d, f;

		cold_server(&c);
		cl = connect_client();
		d = storm(cl, dirs, n);
		nfs42_client_free(cl);
		cold_server(&c);
		cl = connect_client();
		f = storm(cl, files, n);
		nfs42_client_free(cl);
		if (r >= 0) {
			td[r] = d;
			tf[r] = f;
			printf("sample directories %.1f\nsample files %.1f\n",
			       d, f);
		}
	}
	printf("cold PUTFH+GETATTR, %d directories at depths 1..%d and %d files, %d runs%s\n",
	       n, c.depth, n, c.runs,
	       c.drop ? ", kernel caches dropped" : ", kernel caches warm");
	report("directories", td, c.runs);
	report("files", tf, c.runs);
	free(dirs);
	free(files);
	free(td);
	free(tf);
	return 0;
}
