/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * linux_lock [-r RETRY_S] [-l LEASE_S] PATH OFFSET LENGTH RELEASE_FILE
 *
 * The host's conflicting lock holder of the tests/linux lock tests, over
 * our own NFSv4.2 client (NFS42_HOST, NFS42_PORT): opens PATH (a full
 * pseudo path) read-write, takes a WRITE_LT byte-range lock on
 * OFFSET..+LENGTH (LENGTH 0: to the end of the file), retrying a denied
 * LOCK every 250 ms for RETRY_S seconds (default 0), and prints "granted"
 * or "denied" (exit 3).  Holding it, it renews its lease (a SEQUENCE
 * every LEASE_S / 3 s, default 1 s) until the file RELEASE_FILE exists
 * (at most 600 s), then LOCKU, CLOSE, prints "released" and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nfs42.h"

static const char owner[] = "linux-test-host";

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int lock_new(struct nfs42_client *cl, const struct nfs42_file *f,
		    uint64_t off, uint64_t len, struct nfs42_stateid *lsid)
{
	struct nfs42_lock_owner lo = { .owner = owner,
				       .owner_len = sizeof(owner) - 1 };
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int i, rc;

	if (!c)
		return -1;
	nfs42_op_putfh(c, &f->fh);
	i = nfs42_op_lock_new(c, WRITE_LT, false, off, len, 0, &f->stateid, 0,
			      &lo);
	rc = nfs42_compound_run(c);
	if (!rc)
		*lsid = nfs42_res(c, i)->u.stateid;
	nfs42_compound_free(c);
	return rc;
}

static int unlock(struct nfs42_client *cl, const struct nfs42_file *f,
		  const struct nfs42_stateid *lsid, uint64_t off, uint64_t len)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	if (!c)
		return -1;
	nfs42_op_putfh(c, &f->fh);
	nfs42_op_locku(c, WRITE_LT, 0, lsid, off, len);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/* A compound of SEQUENCE alone: renews the lease */
static int renew(struct nfs42_client *cl)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	if (!c)
		return -1;
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: %s [-r RETRY_S] [-l LEASE_S] PATH "
		"OFFSET LENGTH RELEASE_FILE\n",
		"linux_lock");
	return 2;
}

int main(int argc, char **argv)
{
	struct nfs42_opts o;
	struct nfs42_client *cl = NULL;
	struct nfs42_file f;
	struct nfs42_stateid lsid;
	double retry = 0, lease = 3, t0;
	uint64_t off, len;
	int opt, rc;

	while ((opt = getopt(argc, argv, "r:l:")) != -1) {
		if (opt == 'r')
			retry = atof(optarg);
		else if (opt == 'l')
			lease = atof(optarg);
		else
			return usage();
	}
	if (argc - optind != 4 || lease <= 0)
		return usage();
	off = strtoull(argv[optind + 1], NULL, 0);
	len = strtoull(argv[optind + 2], NULL, 0);
	if (!len)
		len = NFS42_LENGTH_EOF;
	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	rc = nfs42_client_create(&o, &cl);
	if (rc) {
		fprintf(stderr, "linux_lock: connect: %s\n",
			nfs42_strerror(rc));
		return 1;
	}
	rc = nfs42_open(cl, argv[optind],
			OPEN4_SHARE_ACCESS_BOTH |
				OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
			NFS42_NOCREATE, 0, false, &f);
	if (rc) {
		fprintf(stderr, "linux_lock: open %s: %s\n", argv[optind],
			nfs42_strerror(rc));
		nfs42_client_free(cl);
		return 1;
	}
	t0 = now_s();
	while ((rc = lock_new(cl, &f, off, len, &lsid)) == NFS4ERR_DENIED &&
	       now_s() - t0 < retry)
		usleep(250 * 1000);
	if (rc) {
		printf("%s\n",
		       rc == NFS4ERR_DENIED ? "denied" : nfs42_strerror(rc));
		fflush(stdout);
		nfs42_close(&f);
		nfs42_client_free(cl);
		return rc == NFS4ERR_DENIED ? 3 : 1;
	}
	printf("granted\n");
	fflush(stdout);
	t0 = now_s();
	while (access(argv[optind + 3], F_OK) != 0 && now_s() - t0 < 600) {
		usleep((useconds_t)(lease / 3 * 1e6));
		rc = renew(cl);
		if (rc)
			fprintf(stderr, "linux_lock: renew: %s\n",
				nfs42_strerror(rc));
	}
	rc = unlock(cl, &f, &lsid, off, len);
	if (rc)
		fprintf(stderr, "linux_lock: unlock: %s\n", nfs42_strerror(rc));
	nfs42_close(&f);
	nfs42_client_free(cl);
	printf("released\n");
	return rc ? 1 : 0;
}
