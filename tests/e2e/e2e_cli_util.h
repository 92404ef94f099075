/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Helpers of the e2e tests of the nfs42 CLI (path in $SPARSE_NFS42), one
 * test program per group of verbs as tools/cli/ has one file per group
 * (e2e_cli_core: main, args, output; e2e_cli_info, _read, _put, _names,
 * _copy, _xattr).  Output and exit codes: 0 ok, 1 NFS error, 2 usage, 3
 * transport error.
 */
#ifndef E2E_CLI_UTIL_H
#define E2E_CLI_UTIL_H

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "nfs42_e2e.h"

struct run {
	int status;
	char *out;
	size_t outlen;
	char *err;
};

static inline char *slurp(int fd, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *b = malloc(cap + 1);
	ssize_t r;

	while ((r = read(fd, b + n, cap - n)) > 0) {
		n += r;
		if (n == cap) {
			cap *= 2;
			b = realloc(b, cap + 1);
		}
	}
	b[n] = '\0';
	if (len)
		*len = n;
	return b;
}

/* Run argv (argv[0] a path) with stdin from in (-1: as ours), collecting
 * its output and exit status. */
static inline struct run run_argv_in(const char *const *argv, int in)
{
	int out[2], err[2], st;
	struct run r;
	pid_t pid;

	ck_assert_int_eq(pipe(out), 0);
	ck_assert_int_eq(pipe(err), 0);
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (in >= 0)
			dup2(in, 0);
		close(out[0]);
		close(err[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	r.out = slurp(out[0], &r.outlen);
	r.err = slurp(err[0], NULL);
	close(out[0]);
	close(err[0]);
	waitpid(pid, &st, 0);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return r;
}

static inline struct run run_argv(const char *const *argv)
{
	return run_argv_in(argv, -1);
}

/* Run argv with stdout on fd (stderr collected); its exit status. */
static inline int run_argv_to(const char *const *argv, int fd)
{
	int st;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fd, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A process writing len bytes of data into path (a FIFO, or NULL for a
 * pipe), then exiting; *fd the pipe's read end (NULL path). */
static inline pid_t feed(const char *path, const void *data, size_t len,
			 int *fd)
{
	int p[2] = { -1, -1 }, wfd;
	pid_t pid;

	if (!path)
		ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (p[0] >= 0)
			close(p[0]);
		wfd = path ? open(path, O_WRONLY) : p[1];
		_exit(wfd >= 0 && write(wfd, data, len) == (ssize_t)len ? 0 :
									  1);
	}
	if (p[1] >= 0)
		close(p[1]);
	if (fd)
		*fd = p[0];
	return pid;
}

/* The feeder wrote all it had. */
static inline void fed(pid_t pid)
{
	int st;

	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "feeder failed");
}

/* Run the CLI on the harness's host and port (or port, if not NULL),
 * stdin from in (-1: ours). */
static inline struct run cli_in(const char *port, const char *const *args,
				int in)
{
	const char *argv[32] = { e2e_env("SPARSE_NFS42"), "-s",
				 e2e_env("NFS42_HOST"), "-p",
				 port ? port : e2e_env("NFS42_PORT") };
	int i;

	for (i = 0; args[i]; i++)
		argv[5 + i] = args[i];
	argv[5 + i] = NULL;
	return run_argv_in(argv, in);
}

static inline struct run cli_at(const char *port, const char *const *args)
{
	return cli_in(port, args, -1);
}

static inline void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

#define CLI(...) cli_at(NULL, (const char *const[]){ __VA_ARGS__, NULL })
/* The same with stdin from fd */
#define CLI_IN(fd, ...) \
	cli_in(NULL, (const char *const[]){ __VA_ARGS__, NULL }, fd)

/* Run the CLI: it must exit with want and, if errsub is not NULL, say
 * errsub on stderr.  Failures name the arguments. */
static inline void cli_expect(int want, const char *errsub, const char *port,
			      const char *const *args)
{
	struct run r = cli_at(port, args);
	char label[256] = "";
	size_t n = 0;
	int i;

	for (i = 0; args[i] && n < sizeof(label); i++)
		n += snprintf(label + n, sizeof(label) - n, " %s", args[i]);
	ck_assert_msg(r.status == want, "nfs42%s: exit %d, want %d: %s", label,
		      r.status, want, r.err);
	if (errsub)
		ck_assert_msg(strstr(r.err, errsub), "nfs42%s: no '%s' in: %s",
			      label, errsub, r.err);
	run_free(&r);
}

#define CLI_EXPECT(want, errsub, ...)  \
	cli_expect(want, errsub, NULL, \
		   (const char *const[]){ __VA_ARGS__, NULL })

/* A loopback port where nothing listens (bound, then closed). */
static inline const char *dead_port(void)
{
	static char port[16];
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &sl), 0);
	close(fd);
	snprintf(port, sizeof(port), "%u", ntohs(sin.sin_port));
	return port;
}

/* Like CLI_EXPECT, against a port where no server listens. */
#define DEAD_EXPECT(want, errsub, ...)        \
	cli_expect(want, errsub, dead_port(), \
		   (const char *const[]){ __VA_ARGS__, NULL })

/* Contents of a backing file (len: its size); free it. */
static inline char *read_backing(const char *rel, size_t *len)
{
	int fd = open(e2e_backing(rel), O_RDONLY);
	char *b;

	ck_assert_int_ge(fd, 0);
	b = slurp(fd, len);
	close(fd);
	return b;
}

static inline void expect_backing(const char *rel, const void *want, size_t n)
{
	size_t len;
	char *b = read_backing(rel, &len);

	ck_assert_uint_eq(len, n);
	ck_assert_msg(memcmp(b, want, n) == 0, "%s: other bytes", rel);
	free(b);
}

/* Permission bits of a backing file, checked to be of the given type. */
static inline mode_t backing_mode(const char *rel, mode_t type)
{
	struct stat st;

	ck_assert_int_eq(lstat(e2e_backing(rel), &st), 0);
	ck_assert_uint_eq(st.st_mode & S_IFMT, type);
	return st.st_mode & 07777;
}

/* The bytes of a local file (NULL if it cannot be read). */
static inline char *read_local(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	char *b;

	if (fd < 0)
		return NULL;
	b = slurp(fd, len);
	close(fd);
	return b;
}

/* Run `cat ARGS` to stdout and with -o: both must be exactly want. */
static inline void cat_equals(const char *const *args, const char *want,
			      size_t n, struct run *out)
{
	const char *argv[12];
	char outp[] = "/tmp/nfs42-cat-XXXXXX";
	struct run r;
	size_t got, i;
	char *back;
	int fd;

	for (i = 0; args[i]; i++)
		argv[i] = args[i];
	argv[i] = NULL;
	*out = cli_at(NULL, argv);
	ck_assert_msg(out->status == 0, "cat: %s", out->err);
	ck_assert_msg(out->outlen == n, "cat: %zu bytes of %zu: %s",
		      out->outlen, n, out->err);
	ck_assert_msg(memcmp(out->out, want, n) == 0, "cat to a pipe differs");
	fd = mkstemp(outp);
	close(fd);
	argv[i] = "-o";
	argv[i + 1] = outp;
	argv[i + 2] = NULL;
	r = cli_at(NULL, argv);
	ck_assert_msg(r.status == 0, "cat -o: %s", r.err);
	back = read_local(outp, &got);
	unlink(outp);
	ck_assert_uint_eq(got, n);
	ck_assert_msg(memcmp(back, want, n) == 0, "cat -o FILE differs");
	free(back);
	run_free(&r);
}

/* A sparse file: hole at the start, data, hole, data, hole at the end. */
static inline char *make_sparse(const char *rel, size_t *len)
{
	size_t n = 6u << 20, i;
	char *want = calloc(1, n), *bp = e2e_backing(rel);
	unsigned int seed = 3;
	int fd;

	for (i = 1u << 20; i < (1u << 20) + 100000; i++)
		want[i] = rand_r(&seed) | 1;
	memcpy(want + (4u << 20) + 3, "tail!", 5);
	fd = open(bp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, n), 0);
	ck_assert_int_eq(pwrite(fd, want + (1u << 20), 100000, 1u << 20),
			 100000);
	ck_assert_int_eq(pwrite(fd, "tail!", 5, (4u << 20) + 3), 5);
	close(fd);
	free(bp);
	*len = n;
	return want;
}

/* Bytes allocated to a backing file. */
static inline long long backing_alloc(const char *rel)
{
	struct stat st;

	ck_assert_int_eq(stat(e2e_backing(rel), &st), 0);
	return (long long)st.st_blocks * 512;
}

/* An error names the operand it is about, and only that one. */
static inline void expect_blame(const char *const *args, const char *blamed,
				const char *status, const char *innocent)
{
	struct run r = cli_at(NULL, args);
	char want[512];

	snprintf(want, sizeof(want), "nfs42: %s: %s\n", blamed, status);
	ck_assert_msg(r.status == 1, "%s: exit %d: %s", args[0], r.status,
		      r.err);
	ck_assert_str_eq(r.err, want);
	ck_assert_msg(!innocent || !strstr(r.err, innocent), "%s blamed in: %s",
		      innocent, r.err);
	run_free(&r);
}

/* A local sparse file of 256 MiB with 3 MiB of data (one at its end):
 * path of the local copy, its data in *data (malloc'ed) */
static inline const char *make_local_sparse(char **data)
{
	static char path[PATH_MAX];
	const size_t size = 256u << 20, mib = 1u << 20;
	unsigned int seed = 9;
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "%s/../cli-put-sparse.local",
		 getenv("NFS42_BACKING"));
	*data = calloc(1, size);
	for (i = 0; i < mib; i++) {
		(*data)[(10u << 20) + i] = rand_r(&seed);
		(*data)[(100u << 20) + i] = rand_r(&seed);
		(*data)[size - mib + i] = rand_r(&seed);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	ck_assert_int_eq(pwrite(fd, *data + (10u << 20), mib, 10u << 20), mib);
	ck_assert_int_eq(pwrite(fd, *data + (100u << 20), mib, 100u << 20),
			 mib);
	ck_assert_int_eq(pwrite(fd, *data + size - mib, mib, size - mib), mib);
	close(fd);
	return path;
}

/* The names in a local directory, other than . and .. */
static inline int dir_entries(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* A fresh local directory for output files, in the harness's work
 * directory (removed with it). */
static inline char *local_dir(void)
{
	char *d;

	ck_assert_int_gt(asprintf(&d, "%s/../cli-local-XXXXXX",
				  e2e_env("NFS42_BACKING")),
			 0);
	ck_assert_ptr_nonnull(mkdtemp(d));
	return e2e_keep(d);
}

/* A local file holding len bytes of data, with mode. */
static inline void put_local(const char *path, const void *data, size_t len,
			     mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, mode), 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* Permission bits of a local file. */
static inline mode_t local_mode(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* Bytes allocated to a local file. */
static inline long long local_alloc(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return (long long)st.st_blocks * 512;
}

/* A local file holds exactly want. */
static inline void expect_local(const char *path, const void *want, size_t n)
{
	size_t len;
	char *b = read_local(path, &len);

	ck_assert_msg(b, "%s: %s", path, strerror(errno));
	ck_assert_msg(len == n && memcmp(b, want, n) == 0,
		      "%s: %zu bytes, other than the %zu wanted", path, len, n);
	free(b);
}

/*
 * A sparse backing file of size bytes holding three 4 KiB runs of data,
 * at 0, about a third and about two thirds in (4 KiB aligned): the
 * layout of the issue #28 benchmark at any size.
 */
static inline void make_three_runs(const char *rel, uint64_t size)
{
	int fd = open(e2e_backing(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char block[4096];
	int i;

	ck_assert_int_ge(fd, 0);
	for (i = 0; i < 3; i++) {
		memset(block, 'a' + i, sizeof(block));
		ck_assert_int_eq(pwrite(fd, block, sizeof(block),
					(off_t)(size / 3 * i & ~4095ull)),
				 (ssize_t)sizeof(block));
	}
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	close(fd);
}

/* The N of "nfs42: VERB round trips: N (...)" in a --stats stderr. */
static inline unsigned long round_trips(const char *err, const char *verb)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), "nfs42: %s round trips: ", verb);
	p = strstr(err, key);
	ck_assert_msg(p, "no '%s' in: %s", key, err);
	return strtoul(p + strlen(key), NULL, 10);
}

/* Two files hold the same bytes, compared by their data extents (a hole
 * of terabytes costs nothing). */
static inline void same_sparse(const char *a, const char *b)
{
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	struct stat sa, sb;
	char ba[65536], bb[65536];
	off_t off = 0, d, h, n;
	int pass;

	ck_assert_int_ge(fa, 0);
	ck_assert_int_ge(fb, 0);
	ck_assert_int_eq(fstat(fa, &sa), 0);
	ck_assert_int_eq(fstat(fb, &sb), 0);
	ck_assert_msg(sa.st_size == sb.st_size, "%s: %lld bytes, %s: %lld", a,
		      (long long)sa.st_size, b, (long long)sb.st_size);
	/* every data extent of each, read in both (holes read as zeros) */
	for (pass = 0; pass < 2; pass++) {
		int f = pass ? fb : fa;

		for (off = 0; off < sa.st_size; off = h) {
			d = lseek(f, off, SEEK_DATA);
			if (d < 0)
				break;
			h = lseek(f, d, SEEK_HOLE);
			for (; d < h; d += n) {
				n = h - d < (off_t)sizeof(ba) ?
					    h - d :
					    (off_t)sizeof(ba);
				ck_assert_int_eq(pread(fa, ba, n, d), n);
				ck_assert_int_eq(pread(fb, bb, n, d), n);
				ck_assert_msg(!memcmp(ba, bb, n),
					      "%s and %s differ near %lld", a,
					      b, (long long)d);
			}
		}
	}
	close(fa);
	close(fb);
}

#endif /* E2E_CLI_UTIL_H */
