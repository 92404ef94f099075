/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * What the delegation tests (e2e_proto_deleg, e2e_proto_wdeleg,
 * e2e_proto_deleg_ts) share:
 * unique names, the server log, a client that leaves recalls to the test,
 * a backing file's bytes and a local process holding a backing file open.
 */
#ifndef E2E_DELEG_UTIL_H
#define E2E_DELEG_UTIL_H

#include <sys/wait.h>

#include "nfs42_e2e.h"

/* "PREFIX-WHAT-PID-N", new at each call. */
static inline const char *e2e_deleg_uniq(const char *prefix, const char *what)
{
	static int seq;
	char *p;

	ck_assert_int_gt(asprintf(&p, "%s-%s-%d-%d", prefix, what,
				  (int)getpid(), ++seq),
			 0);
	return e2e_keep(p);
}

/* A file "PREFIX-WHAT-..." made on the server's disk with data. */
static inline const char *
e2e_deleg_local_file(const char *prefix, const char *what, const char *data)
{
	const char *name = e2e_deleg_uniq(prefix, what);

	e2e_put_backing(name, data, strlen(data));
	return name;
}

/* A test's CB_GETATTR hook: the call's file handle and wanted bitmap
 * (NFS4_OK), NFS4ERR_NOTSUPP for another op, NFS4ERR_BADXDR. */
static inline uint32_t e2e_cb_getattr_args(uint32_t op, struct nfs42_xdr *args,
					   struct nfs42_fh *fh,
					   struct nfs42_bitmap *want)
{
	if (op != OP_CB_GETATTR)
		return NFS4ERR_NOTSUPP;
	if (!nfs42_xdr_get_opaque(args, fh->data, &fh->len, NFS4_FHSIZE) ||
	    !nfs42_bitmap_decode(args, want))
		return NFS4ERR_BADXDR;
	return NFS4_OK;
}

/* The backing file's bytes (at most size - 1 of them, NUL-terminated).
 * A local open: it breaks a delegation's lease. */
static inline void e2e_backing_read(const char *name, char *buf, size_t size)
{
	FILE *f = fopen(e2e_backing(name), "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* A client that leaves recalls to the test (nfs42_serve_recalls). */
static inline struct nfs42_client *e2e_client_keeping_recalls(void)
{
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.keep_recalls = true;
	ck_nfs_ok(cl, nfs42_client_create(&o, &cl));
	return cl;
}

/* A process on the server holding a backing file open for reading. */
struct e2e_local_holder {
	pid_t pid;
	int release; /* write end: closing it ends the process */
};

static inline void e2e_local_holder_start(struct e2e_local_holder *lh,
					  const char *name)
{
	const char *path = e2e_backing(name);
	int p[2];
	char c;

	ck_assert_int_eq(pipe(p), 0);
	lh->pid = fork();
	ck_assert_int_ge(lh->pid, 0);
	if (lh->pid == 0) {
		int fd = open(path, O_RDONLY);

		close(p[1]);
		_exit(fd >= 0 && read(p[0], &c, 1) >= 0 ? 0 : 1);
	}
	close(p[0]);
	lh->release = p[1];
	usleep(100 * 1000); /* its open done */
}

static inline void e2e_local_holder_stop(struct e2e_local_holder *lh)
{
	int st;

	close(lh->release);
	ck_assert_int_eq(waitpid(lh->pid, &st, 0), lh->pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "the local process could not open the file: %d", st);
}

#endif /* E2E_DELEG_UTIL_H */
