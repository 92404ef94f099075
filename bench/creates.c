/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * bench_creates: N concurrent NFSv4.1 clients, each with its own connection
 * and session, create F files apiece in ONE directory (OPEN with
 * UNCHECKED4 create, then CLOSE). Prints the median creates/s over the
 * timed runs, the ideal min(N, workers) / latency and their ratio.
 *
 * The server is expected to add a fixed latency to each backend metadata
 * call (FSAL_SPARSE's Test_Hooks Metadata_Latency_Ms); bench/creates.sh sets
 * that up.  With -l 0 (no added latency) only the rate is printed.
 *
 * -o remove / -o rename: each client first creates its F files (before
 * the clock starts), then the timed part REMOVEs them, or RENAMEs each
 * to NAME.r in the same directory ("removes N=...", "renames N=...").
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "nfs42.h"

struct bench_cfg {
	const char *dir; /* pseudo path of the directory to create in */
	int clients;
	int files;
	int runs;
	int workers;
	double latency_ms;
	const char *op; /* create, remove, rename */
};

struct worker {
	pthread_t thread;
	const struct bench_cfg *cfg;
	pthread_barrier_t *start;
	int run;
	int index;
	int status;
};

static int create_one(struct nfs42_client *cl, const char *path)
{
	struct nfs42_file f;
	int rc;

	rc = nfs42_open(cl, path, OPEN4_SHARE_ACCESS_WRITE, UNCHECKED4, 0644,
			false, &f);
	if (rc != 0)
		return rc;
	return nfs42_close(&f);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct nfs42_opts o;
	struct nfs42_client *cl = NULL;
	char path[4096];
	int i, rc;

	bool setup = strcmp(w->cfg->op, "create") != 0;
	char to[4200];

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	rc = nfs42_client_create(&o, &cl);
	/* remove/rename: the files to work on, before the clock starts */
	for (i = 0; rc == 0 && setup && i < w->cfg->files; i++) {
		snprintf(path, sizeof(path), "%s/r%d-c%d-f%d", w->cfg->dir,
			 w->run, w->index, i);
		rc = create_one(cl, path);
	}
	/* every thread passes the barrier, connected or not */
	pthread_barrier_wait(w->start);
	if (rc != 0) {
		w->status = rc;
		nfs42_client_free(cl);
		return NULL;
	}
	for (i = 0; i < w->cfg->files && w->status == 0; i++) {
		snprintf(path, sizeof(path), "%s/r%d-c%d-f%d", w->cfg->dir,
			 w->run, w->index, i);
		if (!setup) {
			rc = create_one(cl, path);
		} else if (!strcmp(w->cfg->op, "remove")) {
			rc = nfs42_remove(cl, path);
		} else {
			snprintf(to, sizeof(to), "%s.r", path);
			rc = nfs42_rename(cl, path, to);
		}
		if (rc != 0) {
			fprintf(stderr, "bench_creates: %s: %s\n", path,
				rc > 0 ? nfs42_strerror(rc) :
					 nfs42_client_error(cl));
			w->status = rc;
		}
	}
	nfs42_session_destroy(cl);
	nfs42_client_free(cl);
	return NULL;
}

/* One timed run: creates/s, or a negative value on failure. */
static double run_once(const struct bench_cfg *cfg, int run)
{
	struct worker *w = calloc(cfg->clients, sizeof(*w));
	pthread_barrier_t start;
	double t0, t1;
	int i, failed = 0;

	if (w == NULL)
		return -1;
	pthread_barrier_init(&start, NULL, cfg->clients + 1);
	for (i = 0; i < cfg->clients; i++) {
		w[i] = (struct worker){
			.cfg = cfg, .start = &start, .run = run, .index = i
		};
		pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
	}
	/* sessions are set up before the clock starts */
	pthread_barrier_wait(&start);
	t0 = now_s();
	for (i = 0; i < cfg->clients; i++) {
		pthread_join(w[i].thread, NULL);
		failed |= w[i].status != 0;
	}
	t1 = now_s();
	pthread_barrier_destroy(&start);
	free(w);
	if (failed)
		return -1;
	return (double)cfg->clients * cfg->files / (t1 - t0);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench_creates -d DIR -n CLIENTS [-f FILES] [-r RUNS]\n"
		"                     [-w WORKERS] [-l LATENCY_MS]\n"
		"                     [-o create|remove|rename]\n"
		"  server from NFS42_HOST / NFS42_PORT\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct bench_cfg cfg = { .files = 200,
				 .runs = 5,
				 .workers = 0,
				 .latency_ms = 20,
				 .op = "create" };
	double *rate, ideal, median;
	int opt, i;

	while ((opt = getopt(argc, argv, "d:n:f:r:w:l:o:")) != -1) {
		switch (opt) {
		case 'o':
			cfg.op = optarg;
			break;
		case 'd':
			cfg.dir = optarg;
			break;
		case 'n':
			cfg.clients = atoi(optarg);
			break;
		case 'f':
			cfg.files = atoi(optarg);
			break;
		case 'r':
			cfg.runs = atoi(optarg);
			break;
		case 'w':
			cfg.workers = atoi(optarg);
			break;
		case 'l':
			cfg.latency_ms = atof(optarg);
			break;
		default:
			usage();
		}
	}
	if (cfg.dir == NULL || cfg.clients < 1 || cfg.files < 1 ||
	    cfg.runs < 1 || cfg.latency_ms < 0 ||
	    (strcmp(cfg.op, "create") && strcmp(cfg.op, "remove") &&
	     strcmp(cfg.op, "rename")))
		usage();

	rate = calloc(cfg.runs, sizeof(*rate));
	if (rate == NULL)
		return 1;
	/* warm-up: sessions, directory handle in the server's cache */
	if (run_once(&cfg, -1) < 0)
		return 1;
	for (i = 0; i < cfg.runs; i++) {
		rate[i] = run_once(&cfg, i);
		if (rate[i] < 0)
			return 1;
	}
	qsort(rate, cfg.runs, sizeof(*rate), cmp_double);
	median = rate[cfg.runs / 2];
	i = cfg.workers > 0 && cfg.workers < cfg.clients ? cfg.workers :
							   cfg.clients;
	printf("%ss N=%-3d files/client=%d runs=%d median=%.1f/s "
	       "(min %.1f max %.1f)",
	       cfg.op, cfg.clients, cfg.files, cfg.runs, median, rate[0],
	       rate[cfg.runs - 1]);
	if (cfg.latency_ms > 0) {
		ideal = i / (cfg.latency_ms / 1000.0);
		printf(" ideal=%.1f/s ratio=%.2f", ideal, median / ideal);
	}
	printf("\n");
	free(rate);
	return 0;
}
