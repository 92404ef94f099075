/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Review regressions, COMMIT (issue #6 item 6): COMMIT must fsync the
 * descriptor the WRITEs went through.  Linux reports a writeback error
 * once to each open file that was open when it happened (errseq); a
 * descriptor opened later for the COMMIT misses an error somebody else
 * already saw, so syncing "some" descriptor of the file is not enough.
 * COMMIT has no stateid: the server must find the open states'
 * descriptors itself.
 *
 * A failing device is not available here, so the test watches the server
 * with strace: after an UNSTABLE WRITE with an open stateid and a COMMIT,
 * one fsync/fdatasync must be on the descriptor (number and file) the
 * pwritev of the WRITE used, or on a dup() of it (the server dups the
 * state descriptors so as not to sync under its list lock; a dup shares the
 * open file and its writeback error state).  e2e_sync.h traces the pwrite
 * and dup calls too.  Skipped (77) when strace cannot attach.
 */
#include "e2e_fsal_util.h"
#include "e2e_sync.h"

/* What the test watches: the WRITE's and the COMMIT's system calls. */
#define WRITES "pwrite64,pwritev,pwritev2"

/* Whether fd is among fds[0..n). */
static bool has_fd(const int *fds, size_t n, int fd);

/*
 * Add to sfds (n of at most max) the source of every dup() of the file
 * real whose copy is in sfds: "dup(F</real>) = T</real>".
 */
static size_t add_dup_sources(const char *trace, const char *real, int *sfds,
			      size_t n, size_t max)
{
	char *pat;
	const char *p = trace;

	ck_assert_int_gt(asprintf(&pat, "<%s>) = ", real), 0);
	while ((p = strstr(p, " dup(")) != NULL) {
		const char *eq = strstr(p, pat), *nl = strchr(p, '\n');
		int from, to;

		p += 5;
		if (eq == NULL || (nl != NULL && eq > nl))
			continue;
		if (sscanf(p, "%d<", &from) == 1 &&
		    sscanf(eq + strlen(pat), "%d<", &to) == 1 &&
		    has_fd(sfds, n, to) && !has_fd(sfds, n, from) && n < max)
			sfds[n++] = from;
	}
	free(pat);
	return n;
}

/* Whether fd is among fds[0..n). */
static bool has_fd(const int *fds, size_t n, int fd)
{
	while (n-- > 0)
		if (fds[n] == fd)
			return true;
	return false;
}

START_TEST(commit_syncs_the_write_descriptor)
{
	struct nfs42_client *cl = e2e_client();
	char *rel = e2e_uniq("commit");
	struct nfs42_file of = e2e_create_rw(cl, rel);
	uint8_t *data = e2e_rand_bytes(4096, 6);
	int wfds[16], sfds[16];
	size_t nw, ns, i;
	struct e2e_sync *w;
	char real[PATH_MAX];

	w = e2e_sync_start_ex(E2E_SYNC_CALLS "," WRITES ",dup", false);
	if (w == NULL) {
		nfs42_client_free(cl);
		return; /* skipped (strace cannot attach) */
	}
	ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, 0, UNSTABLE4, data,
				4096, NULL, NULL, NULL));
	ck_nfs_ok(cl, nfs42_commit(&of));
	e2e_sync_stop(w);

	ck_assert_ptr_nonnull(realpath(e2e_backing(rel), real));
	nw = e2e_sync_calls(w, WRITES, real, wfds, 16);
	ns = e2e_sync_calls(w, "fsync,fdatasync", real, sfds, 16);
	ck_assert_msg(nw > 0 && nw <= 16, "%zu pwrites of %s traced:\n%s", nw,
		      real, w->trace);
	ck_assert_uint_le(ns, 16);
	ns = add_dup_sources(w->trace, real, sfds, ns, 16);
	for (i = 0; i < nw; i++) {
		printf("commit: WRITE on fd %d, synced: %s\n", wfds[i],
		       has_fd(sfds, ns, wfds[i]) ? "yes" : "no");
		ck_assert_msg(has_fd(sfds, ns, wfds[i]),
			      "COMMIT did not sync fd %d the WRITE used:\n%s",
			      wfds[i], w->trace);
	}
	e2e_sync_free(w);
	ck_nfs_ok(cl, e2e_close(&of));
	free(data);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_review_commit");
	TCase *tc = tcase_create("commit");

	e2e_require_root("e2e_review_commit");
	e2e_sync_init();
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, commit_syncs_the_write_descriptor);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
