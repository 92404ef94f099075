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
 * pwritev of the WRITE used, or on a dup() of it.  Skipped (77) when strace cannot attach.
 */
#include <signal.h>

#include "e2e_fsal_util.h"

/* path of file in the harness's directory (kept when the test fails). */
static bool harness_file(char *path, size_t size, const char *file)
{
	const char *ctl = getenv("NFS42_SERVER_CTL");
	const char *slash = ctl ? strrchr(ctl, '/') : NULL;

	if (slash == NULL)
		return false;
	snprintf(path, size, "%.*s/%s", (int)(slash - ctl), ctl, file);
	return true;
}

/* The server's pid, from the harness's pid file; -1 if unknown. */
static pid_t server_pid(void)
{
	const char *path = getenv("NFS42_SERVER_PID_FILE");
	int pid = -1;
	FILE *f;

	if (path == NULL)
		return -1;
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%d", &pid) != 1)
		pid = -1;
	fclose(f);
	return pid;
}

/* What the test watches: the WRITE's and the COMMIT's system calls. */
#define TRACED "pwrite64,pwritev,pwritev2,fsync,fdatasync,dup"

struct tracer {
	pid_t pid;
	char out[PATH_MAX], err[PATH_MAX];
};

/* Does file contain s? */
static bool file_has(const char *file, const char *s)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen(file, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, s) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* strace -f -y the server for syscalls; false when it cannot attach. */
static bool trace_start(struct tracer *t, const char *syscalls)
{
	int i, status;

	if (server_pid() <= 0 ||
	    !harness_file(t->out, sizeof(t->out), "strace.out") ||
	    !harness_file(t->err, sizeof(t->err), "strace.err"))
		return false;
	t->pid = fork();
	if (t->pid < 0)
		return false;
	if (t->pid == 0) {
		char pid[16], trace[256];

		snprintf(pid, sizeof(pid), "%d", (int)server_pid());
		snprintf(trace, sizeof(trace), "trace=%s", syscalls);
		if (!freopen(t->err, "w", stderr))
			_exit(126);
		execlp("strace", "strace", "-f", "-y", "-e", trace, "-o",
		       t->out, "-p", pid, (char *)NULL);
		_exit(127);
	}
	/* attached when it says so; gone when it cannot */
	for (i = 0; i < 500; i++) {
		if (waitpid(t->pid, &status, WNOHANG) == t->pid)
			return false;
		if (file_has(t->err, "attached"))
			break;
		usleep(10000);
	}
	if (i == 500) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, &status, 0);
		return false;
	}
	usleep(300000); /* the other threads' attach lines */
	return true;
}

static void trace_stop(struct tracer *t)
{
	int status;

	kill(t->pid, SIGINT); /* strace detaches and exits */
	waitpid(t->pid, &status, 0);
}

/*
 * Descriptor numbers of the traced calls named call on file path (with -y
 * strace shows "N</path>"); bit n of the result is set for descriptor n
 * (below 64).
 */
static uint64_t trace_fds(struct tracer *t, const char *call, const char *path)
{
	char line[4096], pat[128];
	uint64_t fds = 0;
	FILE *f = fopen(t->out, "r");

	ck_assert_ptr_nonnull(f);
	snprintf(pat, sizeof(pat), " %s(", call);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, pat);
		int fd;

		if (p == NULL || strstr(p, path) == NULL)
			continue;
		if (sscanf(p + strlen(pat), "%d<", &fd) == 1 && fd >= 0 &&
		    fd < 64)
			fds |= 1ULL << fd;
	}
	fclose(f);
	return fds;
}

/*
 * The server syncs a dup() of a state's descriptor (same open file, same
 * writeback error state): the descriptors of path whose dup is in synced.
 */
static uint64_t trace_dup_sources(struct tracer *t, const char *path,
				  uint64_t synced)
{
	char line[4096];
	uint64_t fds = 0;
	FILE *f = fopen(t->out, "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " dup(");
		char *eq = p ? strstr(p, ") = ") : NULL;
		int from, to;

		if (eq == NULL || strstr(p, path) == NULL)
			continue;
		if (sscanf(p + 5, "%d<", &from) == 1 &&
		    sscanf(eq + 4, "%d<", &to) == 1 && from >= 0 && from < 64 &&
		    to >= 0 && to < 64 && (synced & (1ULL << to)))
			fds |= 1ULL << from;
	}
	fclose(f);
	return fds;
}

START_TEST(commit_syncs_the_write_descriptor)
{
	struct nfs42_client *cl = e2e_client();
	char *rel = e2e_uniq("commit");
	char *path = e2e_backing(rel);
	struct nfs42_file of = e2e_create_rw(cl, rel);
	uint8_t *data = e2e_rand_bytes(4096, 6);
	uint64_t wfds, sfds;
	struct tracer t;

	if (!trace_start(&t, TRACED)) {
		e2e_skip("strace cannot attach to the server");
		return;
	}
	ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, 0, UNSTABLE4, data,
				4096, NULL, NULL, NULL));
	ck_nfs_ok(cl, nfs42_commit(&of));
	trace_stop(&t);

	wfds = trace_fds(&t, "pwritev", path) |
	       trace_fds(&t, "pwrite64", path) |
	       trace_fds(&t, "pwritev2", path);
	sfds = trace_fds(&t, "fsync", path) | trace_fds(&t, "fdatasync", path);
	sfds |= trace_dup_sources(&t, path, sfds);
	printf("commit: WRITE on fds 0x%llx, COMMIT synced fds 0x%llx\n",
	       (unsigned long long)wfds, (unsigned long long)sfds);
	ck_assert_msg(wfds != 0, "no pwrite of %s traced", path);
	ck_assert_msg((wfds & sfds) == wfds,
		      "COMMIT synced fds 0x%llx, the WRITE used 0x%llx",
		      (unsigned long long)sfds, (unsigned long long)wfds);
	ck_nfs_ok(cl, e2e_close(&of));
	free(data);
	free(path);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_review_commit");
	TCase *tc = tcase_create("commit");

	e2e_require_root("e2e_review_commit");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, commit_syncs_the_write_descriptor);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
