/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Watch the server sync: reading a file back after a FILE_SYNC WRITE, a
 * COMMIT or a namespace change goes through the page cache and passes
 * whether or not the server ever called fsync.  These helpers attach
 *
 *   strace -f -qq -ttt -e trace=fsync,fdatasync,syncfs -y -p SERVER_PID
 *
 * to the running server around one operation and check that the backing
 * path of what the operation changed was fsync'ed or fdatasync'ed after
 * the request was sent and before its reply arrived (-y prints the path
 * of each descriptor, -ttt the wall-clock time of the call).  A symbolic
 * link or special file cannot be opened to fsync it: for one, a syncfs of
 * the export root's descriptor, on the same filesystem, counts too (what
 * FSAL_SPARSE's sparse_durable.c does).
 *
 *   int main(void) { ...; e2e_sync_init(); return e2e_run(s); }
 *
 *   struct e2e_sync *w = e2e_sync_start();   (NULL: strace cannot attach)
 *   ...the operation...
 *   e2e_sync_stop(w);                          (right after the reply)
 *   e2e_sync_assert(w, "dir/file");            (backing path, "" = root)
 *   e2e_sync_free(w);
 *
 * e2e_sync_start_ex(E2E_SYNC_CALLS ",pwritev", false) traces more calls;
 * e2e_sync_calls() then finds them in the trace (number and descriptors).
 * e2e_sync_start_inject(calls, "inject=copy_file_range:delay_enter=N")
 * slows the server's calls down (strace -e inject) while it watches.
 *
 * When ptrace is not permitted (no CAP_SYS_PTRACE, Yama, seccomp) or
 * strace is missing, e2e_sync_init() says so, e2e_sync_start() calls
 * e2e_skip() and returns NULL and the asserts are no-ops: the other checks
 * still run and the program exits 77 (skipped) unless one fails.  The
 * server pid is read from
 * $NFS42_SERVER_PID_FILE if set, else from server.pid next to
 * $NFS42_SERVER_CTL (harness.sh).
 */
#ifndef E2E_SYNC_H
#define E2E_SYNC_H

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "nfs42_e2e.h"

/* What e2e_sync_start() traces: the calls that make something stable. */
#define E2E_SYNC_CALLS "fsync,fdatasync,syncfs"

struct e2e_sync {
	pid_t strace; /* 0 once stopped */
	char out[PATH_MAX]; /* strace -o file (removed once attached) */
	int out_fd; /* ours, to read it after it is removed */
	char err[PATH_MAX]; /* strace's stderr (removed once attached) */
	int64_t t0_us, t1_us; /* request sent after, reply received before */
	char *trace; /* the -o file's text, after e2e_sync_stop() */
};

/* Set in main() by e2e_sync_init(), inherited by the forked tests. */
static bool e2e_sync_usable;

static inline int64_t e2e_sync_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The server's pid, or -1 (and why on stderr).  No ck_assert here: this
 * also runs in main(), outside any test.
 */
static inline pid_t e2e_sync_server_pid(void)
{
	const char *pf = getenv("NFS42_SERVER_PID_FILE");
	const char *ctl = getenv("NFS42_SERVER_CTL");
	char path[PATH_MAX], dir[PATH_MAX];
	FILE *f;
	int pid = -1;

	if (pf && *pf) {
		snprintf(path, sizeof(path), "%s", pf);
	} else if (ctl && *ctl) {
		snprintf(dir, sizeof(dir), "%s", ctl);
		snprintf(path, sizeof(path), "%s/server.pid", dirname(dir));
	} else {
		fprintf(stderr,
			"e2e_sync: NFS42_SERVER_CTL not set (run under harness.sh)\n");
		return -1;
	}
	f = fopen(path, "r");
	if (f == NULL || fscanf(f, "%d", &pid) != 1 || pid <= 0) {
		fprintf(stderr, "e2e_sync: no server pid in %s\n", path);
		pid = -1;
	}
	if (f != NULL)
		fclose(f);
	return pid;
}

/* The tracer of task tid of pid (0: none, -1: task gone). */
static inline int e2e_sync_tracer(pid_t pid, const char *tid)
{
	char path[PATH_MAX], line[256];
	int tracer = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)pid, tid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &tracer) == 1)
			break;
	fclose(f);
	return tracer;
}

/* True when every live thread of pid is traced by tracer. */
static inline bool e2e_sync_all_traced(pid_t pid, pid_t tracer)
{
	char path[64];
	struct dirent *de;
	bool all = true;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (d == NULL)
		return false;
	while (all && (de = readdir(d)) != NULL) {
		int t;

		if (de->d_name[0] == '.')
			continue;
		t = e2e_sync_tracer(pid, de->d_name);
		all = t == -1 || t == tracer;
	}
	closedir(d);
	return all;
}

/* The whole text of the open file fd, from its start ("" if none). */
static inline char *e2e_sync_slurp(int fd)
{
	FILE *f = fd >= 0 ? fdopen(dup(fd), "r") : NULL;
	char *buf = NULL;
	size_t len = 0;

	if (f == NULL)
		return strdup("");
	rewind(f);
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

static inline void e2e_sync_reap(struct e2e_sync *w)
{
	int st;

	if (w->strace <= 0)
		return;
	kill(w->strace, SIGINT); /* strace detaches and exits */
	while (waitpid(w->strace, &st, 0) < 0 && errno == EINTR)
		;
	w->strace = 0;
}

static inline void e2e_sync_discard(struct e2e_sync *w)
{
	if (w->out_fd >= 0)
		close(w->out_fd);
	unlink(w->out);
	unlink(w->err);
	free(w->trace);
	free(w);
}

/*
 * Attach strace to the server, tracing the system calls in calls (a
 * comma-separated list, E2E_SYNC_CALLS and more), and wait until every
 * server thread is traced; with inject (an strace -e inject=... spec, or
 * NULL), strace tampers with the server's calls meanwhile: fails them
 * (E2E_SYNC_FAIL: every fsync/fdatasync/syncfs fails with EIO) or delays
 * them.  Returns NULL (and prints why) when it cannot attach.  No
 * ck_assert here either (see above).
 */
#define E2E_SYNC_FAIL "inject=" E2E_SYNC_CALLS ":error=EIO"

static inline struct e2e_sync *e2e_sync_try_start(const char *calls,
						  const char *inject)
{
	struct e2e_sync *w = calloc(1, sizeof(*w));
	const char *tmp = getenv("TMPDIR");
	pid_t server = e2e_sync_server_pid(), self = getpid();
	char pid[16], trace[256];
	int i, st;

	if (w == NULL || server < 0) {
		free(w);
		return NULL;
	}
	snprintf(pid, sizeof(pid), "%d", (int)server);
	snprintf(trace, sizeof(trace), "trace=%s", calls);
	snprintf(w->out, sizeof(w->out), "%.4000s/e2e-sync-%d-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp", (int)getpid());
	w->out_fd = mkstemp(w->out);
	if (w->out_fd < 0) {
		fprintf(stderr, "e2e_sync: mkstemp %s: %s\n", w->out,
			strerror(errno));
		free(w);
		return NULL;
	}
	snprintf(w->err, sizeof(w->err), "%.4000s.err", w->out);

	w->strace = fork();
	if (w->strace < 0) {
		fprintf(stderr, "e2e_sync: fork: %s\n", strerror(errno));
		e2e_sync_discard(w);
		return NULL;
	}
	if (w->strace == 0) {
		int fd = open(w->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		/* a test that fails while watching must not leave strace
		 * attached to the server: detach when the test dies
		 */
		prctl(PR_SET_PDEATHSIG, SIGINT);
		if (getppid() != self)
			_exit(1);
		if (fd >= 0)
			dup2(fd, 2);
		/* the second -e injects, or repeats the first */
		execlp("strace", "strace", "-f", "-qq", "-ttt", "-e", trace,
		       "-e", inject ? inject : trace, "-y", "-o", w->out, "-p",
		       pid, (char *)NULL);
		fprintf(stderr, "exec strace: %s\n", strerror(errno));
		_exit(127);
	}
	for (i = 0; i < 1000; i++) {
		if (waitpid(w->strace, &st, WNOHANG) == w->strace) {
			int efd = open(w->err, O_RDONLY);
			char *err = e2e_sync_slurp(efd);

			fprintf(stderr,
				"e2e_sync: strace cannot attach to the server (pid %d): %s",
				(int)server, err);
			free(err);
			if (efd >= 0)
				close(efd);
			w->strace = 0;
			e2e_sync_discard(w);
			return NULL;
		}
		if (e2e_sync_all_traced(server, w->strace))
			break;
		usleep(10000);
	}
	if (i == 1000) {
		fprintf(stderr,
			"e2e_sync: strace did not attach to pid %d in 10 s\n",
			(int)server);
		e2e_sync_reap(w);
		e2e_sync_discard(w);
		return NULL;
	}
	/* strace has its -o file open: nothing is left behind if the
	 * test dies from here on (strace follows it, see above)
	 */
	unlink(w->out);
	unlink(w->err);
	w->t0_us = e2e_sync_now_us();
	return w;
}

/* Call from main() before running the suite (in the parent process). */
static inline bool e2e_sync_init(void)
{
	struct e2e_sync *w = e2e_sync_try_start(E2E_SYNC_CALLS, NULL);

	e2e_sync_usable = w != NULL;
	if (w == NULL) {
		fprintf(stderr,
			"e2e_sync: SKIP: cannot observe the server's fsync calls (strace -p needs ptrace permission: root or CAP_SYS_PTRACE, kernel.yama.ptrace_scope, no seccomp ban); the sync checks are not run\n");
		return false;
	}
	e2e_sync_reap(w);
	e2e_sync_discard(w);
	return true;
}

/* Start watching the calls in calls, injecting inject (see
 * e2e_sync_try_start()). */
static inline struct e2e_sync *e2e_sync_start_inject(const char *calls,
						     const char *inject)
{
	struct e2e_sync *w;

	if (!e2e_sync_usable) {
		e2e_skip(
			"strace cannot attach to the server: its syncs are not checked");
		return NULL;
	}
	w = e2e_sync_try_start(calls, inject);
	ck_assert_msg(w != NULL,
		      "strace attached in main() but not now (see stderr)");
	return w;
}

/* Start watching the calls in calls; with fail_syncs, every sync fails. */
static inline struct e2e_sync *e2e_sync_start_ex(const char *calls,
						 bool fail_syncs)
{
	return e2e_sync_start_inject(calls, fail_syncs ? E2E_SYNC_FAIL : NULL);
}

/* Start watching; the operation must be sent after this returns. */
static inline struct e2e_sync *e2e_sync_start(void)
{
	return e2e_sync_start_ex(E2E_SYNC_CALLS, false);
}

/* The same, and make every fsync/fdatasync/syncfs of the server fail (EIO)
 * until e2e_sync_stop() (fault injection by strace).
 */
static inline struct e2e_sync *e2e_sync_start_failing(void)
{
	return e2e_sync_start_ex(E2E_SYNC_CALLS, true);
}

/* The reply has arrived: stop watching and read the trace. */
static inline void e2e_sync_stop(struct e2e_sync *w)
{
	if (w == NULL || w->trace != NULL)
		return;
	w->t1_us = e2e_sync_now_us();
	e2e_sync_reap(w);
	w->trace = e2e_sync_slurp(w->out_fd);
}

/*
 * The calls named in names (comma-separated) on a descriptor of the file
 * whose real path is real, stamped in [t0, t1]: how many, and the first
 * nfds of their descriptor numbers in fds.  strace stamps a call when it
 * stops the thread at its entry, before the call can complete and so
 * before the reply.  Lines are "PID SEC.USEC name(FD</path>, ...) = ...".
 */
static inline size_t e2e_sync_calls(struct e2e_sync *w, const char *names,
				    const char *real, int *fds, size_t nfds)
{
	char *list, *want, *save = NULL, *line, *copy;
	size_t n = 0;

	e2e_sync_stop(w);
	ck_assert_int_gt(asprintf(&list, ",%s,", names), 0);
	ck_assert_int_gt(asprintf(&want, "<%s>", real), 0);
	copy = strdup(w->trace);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64], key[80], *end;
		long long sec, usec;
		int pos = 0;
		long fd;
		int64_t t;

		if (sscanf(line, "%*d %lld.%lld %62[a-z0-9_](%n", &sec, &usec,
			   name, &pos) != 3 ||
		    pos == 0)
			continue;
		snprintf(key, sizeof(key), ",%s,", name);
		fd = strtol(line + pos, &end, 10);
		t = (int64_t)sec * 1000000 + usec;
		if (strstr(list, key) == NULL || end == line + pos ||
		    strncmp(end, want, strlen(want)) != 0 || t < w->t0_us ||
		    t > w->t1_us)
			continue;
		if (n < nfds)
			fds[n] = (int)fd;
		n++;
	}
	free(copy);
	free(want);
	free(list);
	return n;
}

/* The real path of the backing object rel itself (a link not followed). */
static inline char *e2e_sync_real(const char *rel, const struct stat *st)
{
	char *b = e2e_backing(rel), *d = strdup(b), *f = strdup(b);
	char real[PATH_MAX], *out;

	if (S_ISLNK(st->st_mode)) {
		ck_assert_msg(realpath(dirname(d), real) != NULL,
			      "realpath of the directory of %s: %s", b,
			      strerror(errno));
		ck_assert_int_gt(asprintf(&out, "%s/%s", real, basename(f)), 0);
	} else {
		ck_assert_msg(realpath(b, real) != NULL, "realpath of %s: %s",
			      b, strerror(errno));
		out = strdup(real);
	}
	free(d);
	free(f);
	return out;
}

/*
 * Whether rel's backing object was made stable between start and stop:
 * an fsync/fdatasync of it, or for a symbolic link or special file a
 * syncfs of the export root when that is on the same filesystem.
 */
static inline bool e2e_sync_seen(struct e2e_sync *w, const char *rel)
{
	struct stat st, rst;
	char *real, *root;
	bool seen;

	ck_assert_msg(lstat(e2e_backing(rel), &st) == 0,
		      "lstat of backing %s: %s", rel, strerror(errno));
	real = e2e_sync_real(rel, &st);
	seen = e2e_sync_calls(w, "fsync,fdatasync", real, NULL, 0) > 0;
	free(real);
	if (seen || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return seen;
	ck_assert_int_eq(lstat(e2e_backing(""), &rst), 0);
	root = e2e_sync_real("", &rst);
	seen = rst.st_dev == st.st_dev &&
	       e2e_sync_calls(w, "syncfs", root, NULL, 0) > 0;
	free(root);
	return seen;
}

/* Fail unless rel's backing path was synced between start and stop. */
static inline void e2e_sync_assert(struct e2e_sync *w, const char *rel)
{
	if (w == NULL)
		return;
	ck_assert_msg(
		e2e_sync_seen(w, rel),
		"no fsync/fdatasync (or syncfs, see above) of backing '%s' between request and reply; the server's sync calls were:\n%s",
		rel, w->trace);
}

/* Fail if rel's backing path was synced between start and stop. */
static inline void e2e_sync_assert_none(struct e2e_sync *w, const char *rel)
{
	if (w == NULL)
		return;
	ck_assert_msg(!e2e_sync_seen(w, rel),
		      "backing '%s' was synced, expected no sync:\n%s", rel,
		      w->trace);
}

static inline void e2e_sync_free(struct e2e_sync *w)
{
	if (w == NULL)
		return;
	e2e_sync_reap(w);
	e2e_sync_discard(w);
}

#endif /* E2E_SYNC_H */
