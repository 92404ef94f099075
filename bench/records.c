// SPDX-License-Identifier: LGPL-3.0-or-later
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * bench_records -n CLIENTS [-t THREADS] [-p PREFIX] [-f PATH]: establishes
 * CLIENTS NFSv4.1 clients (EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE,
 * each on its own connection) from THREADS threads against
 * $NFS42_HOST:$NFS42_PORT, then closes the connections without destroying
 * the client IDs, so that their leases run out on the server. With -f each
 * client also opens the existing file PATH (for reading, before
 * RECLAIM_COMPLETE), so that it holds state when it expires. Prints
 * "established N in S s". Used by bench/records.sh.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rsess.h"

static int clients = 1000, threads = 16, next_client, failed;
static const char *prefix = "bench-records";
static const char *open_path; /* -f */
static struct nfs42_fh open_fh;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
	struct rsess s;
	char owner[96];
	int i, rc;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&mtx);
		i = next_client < clients ? next_client++ : -1;
		pthread_mutex_unlock(&mtx);
		if (i < 0)
			return NULL;
		memset(&s, 0, sizeof(s));
		snprintf(owner, sizeof(owner), "%s-%d-%d", prefix,
			 (int)getpid(), i);
		rc = rsess_exchange_id(&s, owner);
		if (!rc)
			rc = rsess_create_session(&s);
		if (!rc && open_path)
			rc = rsess_open(&s, &open_fh, "bench-records");
		if (!rc)
			rc = rsess_reclaim_complete(&s);
		if (rc) {
			fprintf(stderr, "client %d: %s\n", i,
				nfs42_strerror(rc));
			__atomic_add_fetch(&failed, 1, __ATOMIC_SEQ_CST);
		}
		rsess_free(&s);
	}
}

/* The handle of -f PATH, looked up by a client of its own. */
static int lookup_open_path(void)
{
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;
	int rc;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	rc = nfs42_client_create(&o, &cl);
	if (!rc)
		rc = nfs42_lookup_path(cl, open_path, &open_fh, NULL);
	nfs42_client_free(cl);
	if (rc)
		fprintf(stderr, "bench_records: %s: %s\n", open_path,
			nfs42_strerror(rc));
	return rc;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t *th;
	int opt, i;

	while ((opt = getopt(argc, argv, "n:t:p:f:")) != -1) {
		switch (opt) {
		case 'n':
			clients = atoi(optarg);
			break;
		case 't':
			threads = atoi(optarg);
			break;
		case 'p':
			prefix = optarg;
			break;
		case 'f':
			open_path = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: bench_records -n CLIENTS [-t THREADS] [-p PREFIX] [-f PATH]\n");
			return 2;
		}
	}
	if (clients < 1 || threads < 1)
		return 2;
	if (open_path && lookup_open_path())
		return 1;
	th = calloc(threads, sizeof(*th));
	if (!th)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			return 1;
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	free(th);
	printf("established %d in %.3f s\n", clients - failed,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return failed ? 1 : 0;
}
