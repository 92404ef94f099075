/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: the nfs42 CLI (path in $SPARSE_NFS42).  Output and exit
 * codes: 0 ok, 1 NFS error, 2 usage, 3 transport error.
 */
#include <arpa/inet.h>
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

static char *slurp(int fd, size_t *len)
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

/* Run argv (argv[0] a path), collecting its output and exit status. */
static struct run run_argv(const char *const *argv)
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

/* Run the CLI on the harness's host and port (or port, if not NULL). */
static struct run cli_at(const char *port, const char *const *args)
{
	const char *argv[32] = { e2e_env("SPARSE_NFS42"), "-s",
				 e2e_env("NFS42_HOST"), "-p",
				 port ? port : e2e_env("NFS42_PORT") };
	int i;

	for (i = 0; args[i]; i++)
		argv[5 + i] = args[i];
	argv[5 + i] = NULL;
	return run_argv(argv);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

#define CLI(...) cli_at(NULL, (const char *const[]){ __VA_ARGS__, NULL })

/* Run the CLI: it must exit with want and, if errsub is not NULL, say
 * errsub on stderr.  Failures name the arguments. */
static void cli_expect(int want, const char *errsub, const char *port,
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
static const char *dead_port(void)
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

START_TEST(ping_and_usage)
{
	struct run r = CLI("ping");

	ck_assert_msg(r.status == 0, "ping: %s", r.err);
	ck_assert(strstr(r.out, ": ok"));
	run_free(&r);
	CLI_EXPECT(2, NULL, "frobnicate");
	CLI_EXPECT(2, NULL, "ls");
	CLI_EXPECT(2, NULL, "seek", "/x", "0", "sideways");
	/* a port or minor version out of range is a usage error */
	CLI_EXPECT(2, "bad port '99999'", "-p", "99999", "ping");
	CLI_EXPECT(2, NULL, "-m", "3", "ping");
	/* NFSv4.1 works as well as 4.2 */
	r = CLI("-m", "1", "ping");
	ck_assert_msg(r.status == 0, "ping -m 1: %s", r.err);
	run_free(&r);
}
END_TEST

/* nfs42 xattr get|set|ls|rm: usage errors before connecting, exit 2 */
START_TEST(xattr_usage_before_connect)
{
	DEAD_EXPECT(2, "wrong number of arguments for xattr get", "xattr",
		    "get", "a");
	DEAD_EXPECT(2, "usage: nfs42 [options] xattr rm PATH NAME", "xattr",
		    "rm", "a");
	DEAD_EXPECT(2, NULL, "xattr", "set", "a", "n");
	DEAD_EXPECT(2, NULL, "xattr", "get", "a", "n", "extra");
	DEAD_EXPECT(2, "--create and --replace exclude each other", "xattr",
		    "set", "--create", "--replace", "a", "n", "v");
	DEAD_EXPECT(2, "bad argument 'x' for xattr ls", "xattr", "ls", "-n",
		    "x", "a");
	DEAD_EXPECT(2, "unknown verb 'xattr'", "xattr", "frob", "a");
	DEAD_EXPECT(2, "unknown verb 'xattr'", "xattr");
	/* well-formed ones get as far as connecting */
	DEAD_EXPECT(3, NULL, "xattr", "get", "-o", "/dev/null", "a", "n");
	DEAD_EXPECT(3, NULL, "xattr", "set", "--replace", "a", "n", "v");
	DEAD_EXPECT(3, NULL, "xattr", "ls", "-n", "64", "a");
	DEAD_EXPECT(3, NULL, "xattr", "rm", "a", "n");
}
END_TEST

START_TEST(transport_error_exit_3)
{
	const char *port = dead_port();
	struct run r = cli_at(port, (const char *const[]){ "ping", NULL });
	char want[96];

	ck_assert_int_eq(r.status, 3);
	snprintf(want, sizeof(want), "nfs42: cannot connect to %s:%s: %s\n",
		 e2e_env("NFS42_HOST"), port, "Connection refused");
	ck_assert_str_eq(r.err, want);
	run_free(&r);
}
END_TEST

/* Usage errors come before any connection: exit 2 where no server is. */
START_TEST(usage_before_connect)
{
	DEAD_EXPECT(2, "wrong number of arguments for ls", "ls");
	DEAD_EXPECT(2, "usage: nfs42 [options] stat PATH", "stat", "a", "b");
	DEAD_EXPECT(2, NULL, "ping", "extra");
	DEAD_EXPECT(2, NULL, "mv", "a");
	DEAD_EXPECT(2, NULL, "truncate", "a");
	DEAD_EXPECT(2, NULL, "chmod", "0644", "a", "b");
	DEAD_EXPECT(2, NULL, "ln", "a");
	DEAD_EXPECT(2, NULL, "seek", "a", "0");
	DEAD_EXPECT(2, NULL, "mkdir", "-m", "0700", "a", "b");
	DEAD_EXPECT(2, "unknown verb 'frobnicate'", "frobnicate");
	/* the shape of the arguments, not only their number (synopsis) */
	DEAD_EXPECT(2, "wrong number of arguments for ln", "ln", "-s", "X");
	/* options go anywhere: "ln X -s" lacks its PATH */
	DEAD_EXPECT(2, "wrong number of arguments for ln", "ln", "X", "-s");
	DEAD_EXPECT(2, "wrong number of arguments for ls", "ls", "-l");
	DEAD_EXPECT(2, "unknown option '-x' for ls", "ls", "-x", "a");
	DEAD_EXPECT(2, NULL, "cat", "a", "b");
	DEAD_EXPECT(2, NULL, "cat", "a", "-o");
	DEAD_EXPECT(2, NULL, "cat", "a", "-x", "f");
	DEAD_EXPECT(2, "bad argument '99' for mkdir", "mkdir", "-m", "99", "a");
	DEAD_EXPECT(2, NULL, "mkdir", "-m", "0700");
	DEAD_EXPECT(2, "bad argument 'rw' for chmod", "chmod", "rw", "a");
	DEAD_EXPECT(2, NULL, "chmod", "10000", "a");
	DEAD_EXPECT(2, "'-1' for truncate", "truncate", "a", "-1");
	DEAD_EXPECT(2, NULL, "truncate", "a", "1k");
	DEAD_EXPECT(2, "bad argument 'x' for seek", "seek", "a", "x", "data");
	DEAD_EXPECT(2, "bad argument 'sideways' for seek", "seek", "a", "0",
		    "sideways");
	DEAD_EXPECT(2, "unknown option '-l' for stat", "stat", "-l");
	DEAD_EXPECT(2, "bad argument '' for rm", "rm", "");
	DEAD_EXPECT(2, "wrong number of arguments for cp", "cp", "a");
	DEAD_EXPECT(2, "wrong number of arguments for cp", "cp", "--clone",
		    "a");
	DEAD_EXPECT(2, NULL, "cp", "a", "b", "c");
	DEAD_EXPECT(2, "unknown option '-c' for cp", "cp", "-c", "a", "b");
	DEAD_EXPECT(2, "--async goes with neither", "cp", "--clone", "a", "b",
		    "--async");
	DEAD_EXPECT(2,
		    "usage: nfs42 [options] cp [--async] [--clone] "
		    "[--via-client] [--stats] SRC DST",
		    "cp");
	/* well-formed ones get as far as connecting */
	DEAD_EXPECT(3, NULL, "ln", "-s", "X", "Y");
	DEAD_EXPECT(3, NULL, "ls", "-l", "a");
	DEAD_EXPECT(3, NULL, "mkdir", "-m", "0700", "a");
	DEAD_EXPECT(3, NULL, "seek", "a", "0x10", "hole");
	DEAD_EXPECT(3, NULL, "cat", "a", "-o", "/dev/null");
	DEAD_EXPECT(3, NULL, "cp", "a", "b");
	DEAD_EXPECT(3, NULL, "cp", "--clone", "a", "b");
	/* options in any order, before, between or after the words */
	DEAD_EXPECT(3, NULL, "cp", "a", "b", "--clone");
	DEAD_EXPECT(3, NULL, "cp", "a", "--clone", "b");
	DEAD_EXPECT(3, NULL, "cp", "--stats", "--async", "a", "b");
	DEAD_EXPECT(3, NULL, "cat", "-o", "/dev/null", "a", "-d", "4");
	DEAD_EXPECT(3, NULL, "ls", "a", "-l");
	/* "--" ends the options: a VALUE or PATH may start with '-' */
	DEAD_EXPECT(3, NULL, "xattr", "set", "a", "n", "--", "-1");
	DEAD_EXPECT(2, "unknown option '-1' for xattr set", "xattr", "set", "a",
		    "n", "-1");
	/* -u, -g, -t, -G are range-checked like -p */
	DEAD_EXPECT(2, "bad uid 'x'", "-u", "x", "ping");
	DEAD_EXPECT(2, "bad uid '-1'", "-u", "-1", "ping");
	DEAD_EXPECT(2, "bad uid '4294967296'", "-u", "4294967296", "ping");
	DEAD_EXPECT(2, "bad gid '12abc'", "-g", "12abc", "ping");
	DEAD_EXPECT(2, "bad gid '-5'", "-g", "-5", "ping");
	DEAD_EXPECT(2, "bad gid '99999999999999999999'", "-g",
		    "99999999999999999999", "ping");
	DEAD_EXPECT(2, "bad timeout '0'", "-t", "0", "ping");
	DEAD_EXPECT(2, "bad timeout '-3'", "-t", "-3", "ping");
	DEAD_EXPECT(2, "bad timeout '3000000'", "-t", "3000000", "ping");
	DEAD_EXPECT(2, "bad timeout 'soon'", "-t", "soon", "ping");
	DEAD_EXPECT(2, "bad gid list '1,x'", "-G", "1,x", "ping");
	/* good values get as far as connecting */
	DEAD_EXPECT(3, NULL, "-u", "4294967295", "-g", "0", "-t", "5", "-G",
		    "1,2", "ping");
}
END_TEST

START_TEST(ls_stat_cat)
{
	char *dir = e2e_backing("cli-dir"), *p = e2e_path("cli-dir");
	char *f = e2e_path("cli-dir/b-file"), *miss = e2e_path("nope");
	char want[256];
	struct stat st;
	struct run r;
	char *bf;

	mkdir(dir, 0755);
	e2e_put_backing("cli-dir/b-file", "contents\n", 9);
	e2e_put_backing("cli-dir/a-file", "", 0);
	r = CLI("ls", p);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "a-file\nb-file\n");
	run_free(&r);
	r = CLI("ls", "-l", p);
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "-rw-r--r--"));
	ck_assert(strstr(r.out, " b-file\n"));
	run_free(&r);
	r = CLI("stat", f);
	ck_assert_int_eq(r.status, 0);
	bf = e2e_backing("cli-dir/b-file");
	ck_assert_int_eq(stat(bf, &st), 0);
	ck_assert(strstr(r.out, "type: regular\n"));
	ck_assert(strstr(r.out, "size: 9\n"));
	ck_assert(strstr(r.out, "mode: 0644\n"));
	snprintf(want, sizeof(want), "fileid: %lu\n", (unsigned long)st.st_ino);
	ck_assert(strstr(r.out, want));
	run_free(&r);
	r = CLI("cat", f);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "contents\n");
	run_free(&r);
	r = CLI("cat", miss);
	ck_assert_int_eq(r.status, 1);
	ck_assert_str_eq(r.out, "");
	snprintf(want, sizeof(want), "nfs42: %s: NFS4ERR_NOENT\n", miss);
	ck_assert_str_eq(r.err, want);
	run_free(&r);
	CLI_EXPECT(1, NULL, "stat", miss);
	free(bf);
	free(dir);
	free(p);
	free(f);
	free(miss);
}
END_TEST

START_TEST(put_cat_binary_roundtrip)
{
	char local[] = "/tmp/nfs42-cli-XXXXXX",
	     outp[] = "/tmp/nfs42-out-XXXXXX";
	char *np = e2e_path("cli-put"), *bp = e2e_backing("cli-put");
	size_t n = 3u << 20, got;
	char *data = malloc(n), *back;
	unsigned int seed = 7;
	struct run r;
	int fd;

	for (size_t i = 0; i < n; i++)
		data[i] = rand_r(&seed);
	fd = mkstemp(local);
	ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
	close(fd);
	r = CLI("put", local, np);
	ck_assert_msg(r.status == 0, "put: %s", r.err);
	run_free(&r);
	fd = open(bp, O_RDONLY);
	back = malloc(n);
	ck_assert_int_eq(read(fd, back, n), (ssize_t)n);
	close(fd);
	ck_assert(memcmp(back, data, n) == 0);
	r = CLI("cat", np);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(r.outlen, n);
	ck_assert(memcmp(r.out, data, n) == 0);
	run_free(&r);
	fd = mkstemp(outp);
	close(fd);
	CLI_EXPECT(0, NULL, "cat", np, "-o", outp);
	fd = open(outp, O_RDONLY);
	got = read(fd, back, n);
	close(fd);
	ck_assert_uint_eq(got, n);
	ck_assert(memcmp(back, data, n) == 0);
	unlink(local);
	unlink(outp);
	free(data);
	free(back);
	free(np);
	free(bp);
}
END_TEST

START_TEST(namespace_verbs)
{
	char *d = e2e_path("cli-ns"), *d2 = e2e_path("cli-ns2");
	char *l = e2e_path("cli-ns2/link"), *bl = e2e_backing("cli-ns2/link");
	char *f = e2e_path("cli-ns2/f"), target[64];
	struct run r;
	ssize_t n;

	r = CLI("mkdir", d);
	ck_assert_msg(r.status == 0, "%s", r.err);
	run_free(&r);
	CLI_EXPECT(1, "NFS4ERR_EXIST", "mkdir", d);
	CLI_EXPECT(0, NULL, "mv", d, d2);
	CLI_EXPECT(0, NULL, "ln", "-s", "some/target", l);
	n = readlink(bl, target, sizeof(target) - 1);
	ck_assert_int_eq(n, 11);
	target[n] = '\0';
	ck_assert_str_eq(target, "some/target");
	r = CLI("readlink", l);
	ck_assert_str_eq(r.out, "some/target\n");
	run_free(&r);
	CLI_EXPECT(1, "NFS4ERR_NOTEMPTY", "rmdir", d2);
	CLI_EXPECT(0, NULL, "rm", l);
	CLI_EXPECT(1, "NFS4ERR_ISDIR", "rm", d2);
	CLI_EXPECT(0, NULL, "rmdir", d2);
	CLI_EXPECT(1, NULL, "rm", f);
	free(d);
	free(d2);
	free(l);
	free(bl);
	free(f);
}
END_TEST

START_TEST(seek_verb)
{
	char *bp = e2e_backing("cli-sparse"), *np = e2e_path("cli-sparse");
	struct run r;
	unsigned long off;
	int fd;

	fd = open(bp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_eq(pwrite(fd, "x", 1, 2 << 20), 1);
	close(fd);
	r = CLI("seek", np, "0", "data");
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(sscanf(r.out, "%lu eof=", &off), 1);
	ck_assert_uint_le(off, 2 << 20);
	run_free(&r);
	r = CLI("seek", np, "0", "hole");
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "0 eof=false\n");
	run_free(&r);
	CLI_EXPECT(1, "NFS4ERR_NXIO", "seek", np, "9999999", "data");
	free(bp);
	free(np);
}
END_TEST

/* Contents of a backing file (len: its size); free it. */
static char *read_backing(const char *rel, size_t *len)
{
	int fd = open(e2e_backing(rel), O_RDONLY);
	char *b;

	ck_assert_int_ge(fd, 0);
	b = slurp(fd, len);
	close(fd);
	return b;
}

static void expect_backing(const char *rel, const void *want, size_t n)
{
	size_t len;
	char *b = read_backing(rel, &len);

	ck_assert_uint_eq(len, n);
	ck_assert_msg(memcmp(b, want, n) == 0, "%s: other bytes", rel);
	free(b);
}

/* Permission bits of a backing file, checked to be of the given type. */
static mode_t backing_mode(const char *rel, mode_t type)
{
	struct stat st;

	ck_assert_int_eq(lstat(e2e_backing(rel), &st), 0);
	ck_assert_uint_eq(st.st_mode & S_IFMT, type);
	return st.st_mode & 07777;
}

START_TEST(truncate_verb)
{
	const char *np = e2e_path("cli-trunc");

	e2e_put_backing("cli-trunc", "0123456789", 10);
	CLI_EXPECT(0, NULL, "truncate", np, "4");
	expect_backing("cli-trunc", "0123", 4);
	CLI_EXPECT(0, NULL, "truncate", np, "8"); /* grows with zeros */
	expect_backing("cli-trunc", "0123\0\0\0\0", 8);
	CLI_EXPECT(0, NULL, "truncate", np, "0x10");
	expect_backing("cli-trunc", "0123\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	CLI_EXPECT(0, NULL, "truncate", np, "0");
	expect_backing("cli-trunc", "", 0);
	CLI_EXPECT(2, NULL, "truncate", np, "-1");
	CLI_EXPECT(2, NULL, "truncate", np, "ten");
	CLI_EXPECT(1, "NFS4ERR_NOENT", "truncate", e2e_path("cli-nope"), "1");
}
END_TEST

START_TEST(chmod_verb)
{
	static const struct {
		const char *arg;
		mode_t mode;
	} cases[] = { { "600", 0600 },	 { "0751", 0751 }, { "2750", 02750 },
		      { "4755", 04755 }, { "0", 0 },	   { "0644", 0644 } };
	const char *np = e2e_path("cli-chmod"), *dp = e2e_path("cli-chmod-d");
	size_t i;

	e2e_put_backing("cli-chmod", "x", 1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CLI_EXPECT(0, NULL, "chmod", cases[i].arg, np);
		ck_assert_uint_eq(backing_mode("cli-chmod", S_IFREG),
				  cases[i].mode);
	}
	expect_backing("cli-chmod", "x", 1);
	ck_assert_int_eq(mkdir(e2e_backing("cli-chmod-d"), 0755), 0);
	CLI_EXPECT(0, NULL, "chmod", "1777", dp);
	ck_assert_uint_eq(backing_mode("cli-chmod-d", S_IFDIR), 01777);
	CLI_EXPECT(2, NULL, "chmod", "0800", np);
	CLI_EXPECT(2, NULL, "chmod", "17777", np);
	CLI_EXPECT(2, NULL, "chmod", "rwx", np);
	ck_assert_uint_eq(backing_mode("cli-chmod", S_IFREG), 0644);
}
END_TEST

START_TEST(hard_link_verb)
{
	const char *src = e2e_path("cli-hl-src"), *dst = e2e_path("cli-hl-dst");
	struct stat a, b;

	e2e_put_backing("cli-hl-src", "linked\n", 7);
	CLI_EXPECT(0, NULL, "ln", src, dst);
	ck_assert_int_eq(lstat(e2e_backing("cli-hl-src"), &a), 0);
	ck_assert_int_eq(lstat(e2e_backing("cli-hl-dst"), &b), 0);
	ck_assert_uint_eq(a.st_ino, b.st_ino);
	ck_assert_uint_eq(a.st_nlink, 2);
	expect_backing("cli-hl-dst", "linked\n", 7);
	CLI_EXPECT(1, "NFS4ERR_EXIST", "ln", src, dst);
	CLI_EXPECT(1, "NFS4ERR_NOENT", "ln", e2e_path("cli-hl-none"),
		   e2e_path("cli-hl-other"));
	ck_assert_int_eq(access(e2e_backing("cli-hl-other"), F_OK), -1);
}
END_TEST

START_TEST(mkdir_mode_verb)
{
	static const struct {
		const char *arg, *name;
		mode_t mode;
	} cases[] = { { "0700", "cli-md-700", 0700 },
		      { "751", "cli-md-751", 0751 },
		      { "0", "cli-md-0", 0 },
		      { "1777", "cli-md-1777", 01777 } };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CLI_EXPECT(0, NULL, "mkdir", "-m", cases[i].arg,
			   e2e_path(cases[i].name));
		ck_assert_uint_eq(backing_mode(cases[i].name, S_IFDIR),
				  cases[i].mode);
	}
	CLI_EXPECT(2, NULL, "mkdir", "-m", "0800", e2e_path("cli-md-bad"));
	CLI_EXPECT(2, NULL, "mkdir", "-m", "rwx", e2e_path("cli-md-bad"));
	CLI_EXPECT(2, NULL, "mkdir", "-x", "0700", e2e_path("cli-md-bad"));
	ck_assert_int_eq(access(e2e_backing("cli-md-bad"), F_OK), -1);
}
END_TEST

/* The bytes of a local file (NULL if it cannot be read). */
static char *read_local(const char *path, size_t *len)
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
static void cat_equals(const char *const *args, const char *want, size_t n,
		       struct run *out)
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

START_TEST(cat_depth_equals_backing)
{
	char *np = e2e_path("cli-10m"), *bp = e2e_backing("cli-10m");
	static const char *const depths[] = { "1", "8", "64" };
	size_t n = 10u << 20, i;
	char *data = malloc(n);
	unsigned int seed = 11;
	struct run r;

	for (i = 0; i < n; i++)
		data[i] = rand_r(&seed);
	e2e_put_backing("cli-10m", data, n);
	for (i = 0; i < 3; i++) {
		cat_equals((const char *const[]){ "cat", "-d", depths[i], np,
						  NULL },
			   data, n, &r);
		run_free(&r);
	}
	/* the default depth (8) */
	cat_equals((const char *const[]){ "cat", np, NULL }, data, n, &r);
	run_free(&r);
	DEAD_EXPECT(2, "bad argument '0' for cat", "cat", "-d", "0", np);
	DEAD_EXPECT(2, "bad argument '65' for cat", "cat", "-d", "65", np);
	/* the option after PATH works as well */
	cat_equals((const char *const[]){ "cat", np, "-d", "8", NULL }, data, n,
		   &r);
	run_free(&r);
	free(data);
	free(np);
	free(bp);
}
END_TEST

/* A sparse file: hole at the start, data, hole, data, hole at the end. */
static char *make_sparse(const char *rel, size_t *len)
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

START_TEST(cat_read_plus_sparse)
{
	char *np = e2e_path("cli-rp-sparse");
	size_t n;
	char *want = make_sparse("cli-rp-sparse", &n);
	struct run r;

	cat_equals((const char *const[]){ "cat", "--read-plus", np, NULL },
		   want, n, &r);
	/* this server answers READ_PLUS (issue #7): no fallback to READ
	 * (the fallback itself: check_nfs42_rpc's S_READS)
	 */
	ck_assert_msg(r.err[0] == 0, "stderr: %s", r.err);
	run_free(&r);
	cat_equals((const char *const[]){ "cat", "-d", "3", "--read-plus", np,
					  NULL },
		   want, n, &r);
	run_free(&r);
	cat_equals((const char *const[]){ "cat", np, "--read-plus", NULL },
		   want, n, &r);
	run_free(&r);
	free(want);
	free(np);
}
END_TEST

START_TEST(map_verb)
{
	char *np = e2e_path("cli-map"), *miss = e2e_path("nope");
	size_t n;
	char *want = make_sparse("cli-map", &n);
	struct run r = CLI("map", np);

	/* the server's READ_PLUS (issue #7) reports the backing file's
	 * layout: 4 KiB blocks around the data, holes between
	 */
	ck_assert_msg(r.status == 0, "map: %s", r.err);
	ck_assert_str_eq(r.out, "0 1048576 hole\n"
				"1048576 102400 data\n"
				"1150976 3043328 hole\n"
				"4194304 4096 data\n"
				"4198400 2093056 hole\n");
	run_free(&r);
	CLI_EXPECT(1, "NFS4ERR_NOENT", "map", miss);
	DEAD_EXPECT(2, NULL, "map");
	DEAD_EXPECT(2, NULL, "map", "-d", "x", np);
	free(want);
	free(np);
	free(miss);
}
END_TEST

/* Bytes allocated to a backing file. */
static long long backing_alloc(const char *rel)
{
	struct stat st;

	ck_assert_int_eq(stat(e2e_backing(rel), &st), 0);
	return (long long)st.st_blocks * 512;
}

/* `cp SRC DST` succeeded; today's server has no COPY: if stderr says so,
 * it says it once. */
static void cp_ok(const char *src, const char *dst)
{
	static const char told[] = "copied through the client\n";
	struct run r = CLI("cp", src, dst);

	ck_assert_msg(r.status == 0, "cp: %s", r.err);
	if (r.err[0]) {
		ck_assert_msg(strstr(r.err, "server COPY not supported") &&
				      strstr(r.err, told),
			      "stderr: %s", r.err);
		ck_assert_msg(!strstr(strstr(r.err, told) + 1, told),
			      "told twice: %s", r.err);
	}
	run_free(&r);
}

/*
 * cp: 5 MiB, a 1 MiB hole in the middle, over a larger existing file:
 * the destination is the source byte for byte, with its mode, and the
 * hole stays a hole.  A trailing hole (make_sparse) survives too.
 */
START_TEST(cp_verb)
{
	size_t n = 5u << 20, i, tn;
	char *data = calloc(1, n), *junk = malloc(6u << 20), *tail;
	unsigned int seed = 5;
	struct run r;
	int fd;

	for (i = 0; i < n; i++)
		if (i < (2u << 20) || i >= (3u << 20))
			data[i] = rand_r(&seed);
	fd = open(e2e_backing("cli-cp-src"), O_WRONLY | O_CREAT | O_TRUNC,
		  0640);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0640), 0);
	ck_assert_int_eq(pwrite(fd, data, 2u << 20, 0), 2u << 20);
	ck_assert_int_eq(pwrite(fd, data + (3u << 20), 2u << 20, 3u << 20),
			 2u << 20);
	close(fd);
	memset(junk, 'j', 6u << 20);
	e2e_put_backing("cli-cp-dst", junk, 6u << 20);
	cp_ok(e2e_path("cli-cp-src"), e2e_path("cli-cp-dst"));
	expect_backing("cli-cp-dst", data, n);
	/* the hole kept: about 4 MiB allocated, as much as the source */
	ck_assert_msg(backing_alloc("cli-cp-dst") <=
			      backing_alloc("cli-cp-src") + (256 << 10),
		      "dst %lld bytes allocated, src %lld",
		      backing_alloc("cli-cp-dst"), backing_alloc("cli-cp-src"));
	/* a new destination gets the source's mode */
	cp_ok(e2e_path("cli-cp-src"), e2e_path("cli-cp-new"));
	expect_backing("cli-cp-new", data, n);
	ck_assert_uint_eq(backing_mode("cli-cp-new", S_IFREG), 0640);
	/* a trailing hole: the size comes out right */
	tail = make_sparse("cli-cp-sparse", &tn);
	cp_ok(e2e_path("cli-cp-sparse"), e2e_path("cli-cp-sparse2"));
	expect_backing("cli-cp-sparse2", tail, tn);
	ck_assert_int_le(backing_alloc("cli-cp-sparse2"), 1 << 20);
	/* an empty source */
	e2e_put_backing("cli-cp-empty", "", 0);
	cp_ok(e2e_path("cli-cp-empty"), e2e_path("cli-cp-sparse2"));
	expect_backing("cli-cp-sparse2", "", 0);
	/*
	 * --via-client: no COPY sent at all (calls=0 where plain cp, above,
	 * tried one), nothing said about COPY, the same bytes.
	 */
	r = CLI("cp", "--via-client", "--stats", e2e_path("cli-cp-src"),
		e2e_path("cli-cp-via"));
	ck_assert_msg(r.status == 0, "cp --via-client: %s", r.err);
	ck_assert_str_eq(r.err, "nfs42: cp stats: path=client calls=0 "
				"total_us=0 max_us=0\n");
	run_free(&r);
	expect_backing("cli-cp-via", data, n);
	r = CLI("cp", "--stats", e2e_path("cli-cp-src"),
		e2e_path("cli-cp-via"));
	/* COPY tried (NOTSUPP today; one or more chunks once it is there) */
	ck_assert_msg(r.status == 0 && strstr(r.err, " calls=") &&
			      !strstr(r.err, " calls=0 "),
		      "cp --stats: %s", r.err);
	run_free(&r);
	/* NFSv4.1 has no COPY (OP_ILLEGAL): through the client as well */
	r = CLI("-m", "1", "cp", e2e_path("cli-cp-src"),
		e2e_path("cli-cp-v41"));
	ck_assert_msg(r.status == 0, "cp -m 1: %s", r.err);
	run_free(&r);
	expect_backing("cli-cp-v41", data, n);
	/* onto itself: refused before truncating it */
	CLI_EXPECT(1, "are the same file", "cp", e2e_path("cli-cp-new"),
		   e2e_path("cli-cp-new"));
	expect_backing("cli-cp-new", data, n);
	CLI_EXPECT(1, "NFS4ERR_ISDIR", "cp", e2e_path(""),
		   e2e_path("cli-cp-dir"));
	ck_assert_int_eq(access(e2e_backing("cli-cp-dir"), F_OK), -1);
	/* no source: nothing created */
	CLI_EXPECT(1, "NFS4ERR_NOENT", "cp", e2e_path("cli-cp-none"),
		   e2e_path("cli-cp-none2"));
	ck_assert_int_eq(access(e2e_backing("cli-cp-none2"), F_OK), -1);
	free(tail);
	free(junk);
	free(data);
}
END_TEST

/* nfs42 --help, -h and help VERB: stdout, exit 0; help of no verb: 2 */
START_TEST(help_exits_0)
{
	const char *const variants[][3] = { { "--help" },
					    { "-h" },
					    { "help" } };
	struct run r;
	size_t i;

	for (i = 0; i < 3; i++) {
		r = run_argv((const char *const[]){ e2e_env("SPARSE_NFS42"),
						    variants[i][0], NULL });
		ck_assert_msg(r.status == 0, "%s: exit %d: %s", variants[i][0],
			      r.status, r.err);
		ck_assert_msg(strstr(r.out, "usage: nfs42") &&
				      strstr(r.out, "xattr rm PATH NAME"),
			      "%s: %s", variants[i][0], r.out);
		run_free(&r);
	}
	r = run_argv((const char *const[]){ e2e_env("SPARSE_NFS42"), "help",
					    "cp", NULL });
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "usage: nfs42 [options] cp [--async]"));
	ck_assert(strstr(r.out, "CLONE only"));
	ck_assert(!strstr(r.out, "xattr"));
	run_free(&r);
	r = run_argv((const char *const[]){ e2e_env("SPARSE_NFS42"), "help",
					    "xattr", NULL });
	ck_assert_int_eq(r.status, 0);
	ck_assert(strstr(r.out, "xattr get") && strstr(r.out, "xattr set") &&
		  strstr(r.out, "xattr ls") && strstr(r.out, "xattr rm"));
	run_free(&r);
	r = run_argv((const char *const[]){ e2e_env("SPARSE_NFS42"), "help",
					    "frob", NULL });
	ck_assert_int_eq(r.status, 2);
	ck_assert(strstr(r.err, "no verb 'frob'"));
	run_free(&r);
}
END_TEST

/* An error names the operand it is about, and only that one. */
static void expect_blame(const char *const *args, const char *blamed,
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

START_TEST(errors_name_the_operand)
{
	char attr[512];

	e2e_put_backing("cli-blame", "x", 1);
	/* cp: a missing source is the source's fault... */
	expect_blame((const char *const[]){ "cp", e2e_path("cli-nosuch"),
					    e2e_path("cli-blame-dst"), NULL },
		     e2e_path("cli-nosuch"), "NFS4ERR_NOENT",
		     e2e_path("cli-blame-dst"));
	ck_assert_int_eq(access(e2e_backing("cli-blame-dst"), F_OK), -1);
	expect_blame((const char *const[]){ "cp", "--async",
					    e2e_path("cli-nosuch"),
					    e2e_path("cli-blame-dst"), NULL },
		     e2e_path("cli-nosuch"), "NFS4ERR_NOENT",
		     e2e_path("cli-blame-dst"));
	/* ...a missing destination directory the destination's */
	expect_blame((const char *const[]){ "cp", e2e_path("cli-blame"),
					    e2e_path("cli-nodir/dst"), NULL },
		     e2e_path("cli-nodir/dst"), "NFS4ERR_NOENT", NULL);
	/* xattr: a missing file is not a missing attribute */
	expect_blame((const char *const[]){ "xattr", "get",
					    e2e_path("cli-nosuch"), "k", NULL },
		     e2e_path("cli-nosuch"), "NFS4ERR_NOENT", "user.k");
	expect_blame((const char *const[]){ "xattr", "rm",
					    e2e_path("cli-nosuch"), "k", NULL },
		     e2e_path("cli-nosuch"), "NFS4ERR_NOENT", "user.k");
	expect_blame((const char *const[]){ "xattr", "set",
					    e2e_path("cli-nosuch"), "k", "v",
					    NULL },
		     e2e_path("cli-nosuch"), "NFS4ERR_NOENT", "user.k");
	snprintf(attr, sizeof(attr), "%s: xattr user.k", e2e_path("cli-blame"));
	expect_blame((const char *const[]){ "xattr", "get",
					    e2e_path("cli-blame"), "k", NULL },
		     attr, "NFS4ERR_NOXATTR", NULL);
}
END_TEST

/* put of a directory: refused before connecting, nothing created */
START_TEST(put_directory_refused)
{
	const char *dir = getenv("NFS42_BACKING");
	struct run r;

	r = CLI("put", dir, e2e_path("cli-put-dir"));
	ck_assert_msg(r.status == 2, "put DIR: exit %d: %s", r.status, r.err);
	ck_assert(strstr(r.err, "Is a directory"));
	ck_assert(strstr(r.err, dir));
	run_free(&r);
	ck_assert_int_eq(access(e2e_backing("cli-put-dir"), F_OK), -1);
	DEAD_EXPECT(2, "Is a directory", "put", dir, "x");
	DEAD_EXPECT(2, "No such file", "put", "/nonexistent/file", "x");
}
END_TEST

/* A local sparse file of 256 MiB with 3 MiB of data (one at its end):
 * path of the local copy, its data in *data (malloc'ed) */
static const char *make_local_sparse(char **data)
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

/* put keeps holes: only the 3 MiB of data arrive, the size is right */
START_TEST(put_keeps_holes)
{
	char *data;
	const char *local = make_local_sparse(&data);
	struct run r;

	r = CLI("put", local, e2e_path("cli-put-sparse"));
	ck_assert_msg(r.status == 0, "put: %s", r.err);
	run_free(&r);
	expect_backing("cli-put-sparse", data, 256u << 20);
	ck_assert_msg(backing_alloc("cli-put-sparse") <= (4 << 20),
		      "%lld bytes allocated for 3 MiB of data",
		      backing_alloc("cli-put-sparse"));
	/* ending in a hole: the size still comes out right */
	ck_assert_int_eq(truncate(local, 300u << 20), 0);
	r = CLI("put", local, e2e_path("cli-put-sparse"));
	ck_assert_msg(r.status == 0, "put: %s", r.err);
	run_free(&r);
	data = realloc(data, 300u << 20);
	memset(data + (256u << 20), 0, 44u << 20);
	expect_backing("cli-put-sparse", data, 300u << 20);
	ck_assert_int_le(backing_alloc("cli-put-sparse"), 4 << 20);
	unlink(local);
	free(data);
}
END_TEST

/*
 * cp --async of a mostly sparse file, stderr not a terminal: 100 % is
 * reported once, and the rate counts data (3 MiB), not the 256 MiB of
 * the file; options in either order.
 */
START_TEST(cp_async_progress)
{
	char *data, *p, *line;
	const char *local = make_local_sparse(&data);
	unsigned long long d, dt;
	int full = 0, lines = 0;
	struct run r;

	r = CLI("put", local, e2e_path("cli-prog-src"));
	ck_assert_msg(r.status == 0, "put: %s", r.err);
	run_free(&r);
	unlink(local);
	r = CLI("cp", "--stats", "--async", e2e_path("cli-prog-src"),
		e2e_path("cli-prog-dst"));
	ck_assert_msg(r.status == 0, "cp --stats --async: %s", r.err);
	ck_assert_msg(strstr(r.err, "cp stats: path="), "%s", r.err);
	for (line = strtok_r(r.err, "\n", &p); line;
	     line = strtok_r(NULL, "\n", &p)) {
		if (!strstr(line, "copied "))
			continue;
		lines++;
		full += strstr(line, "(100%)") != NULL;
		ck_assert_msg(sscanf(strstr(line, "data "),
				     "data %llu of %llu bytes", &d, &dt) == 2,
			      "%s", line);
		ck_assert_msg(dt == 3u << 20, "data total %llu: %s", dt, line);
	}
	ck_assert_msg(lines > 0, "no progress (the copy went synchronous?): %s",
		      r.err);
	ck_assert_msg(full == 1, "100%% reported %d times", full);
	run_free(&r);
	expect_backing("cli-prog-dst", data, 256u << 20);
	free(data);
}
END_TEST

/*
 * cp --clone on the harness's ext4 export: NFS4ERR_NOTSUPP, exit 1, and
 * the destination is left created and empty (OPEN comes before CLONE).
 */
START_TEST(cp_clone_notsupp)
{
	char want[256];
	struct run r;
	size_t len;
	char *b;

	e2e_put_backing("cli-cl-src", "to be cloned\n", 13);
	r = CLI("cp", "--clone", e2e_path("cli-cl-src"),
		e2e_path("cli-cl-dst"));
	ck_assert_int_eq(r.status, 1);
	snprintf(want, sizeof(want), "nfs42: %s -> %s: NFS4ERR_NOTSUPP\n",
		 e2e_path("cli-cl-src"), e2e_path("cli-cl-dst"));
	ck_assert_str_eq(r.err, want);
	ck_assert_str_eq(r.out, "");
	run_free(&r);
	b = read_backing("cli-cl-dst", &len);
	ck_assert_uint_eq(len, 0);
	free(b);
	expect_backing("cli-cl-src", "to be cloned\n", 13);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_client_cli");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, ping_and_usage);
	tcase_add_test(tc, transport_error_exit_3);
	tcase_add_test(tc, usage_before_connect);
	tcase_add_test(tc, xattr_usage_before_connect);
	tcase_add_test(tc, ls_stat_cat);
	tcase_add_test(tc, put_cat_binary_roundtrip);
	tcase_add_test(tc, namespace_verbs);
	tcase_add_test(tc, seek_verb);
	tcase_add_test(tc, truncate_verb);
	tcase_add_test(tc, chmod_verb);
	tcase_add_test(tc, hard_link_verb);
	tcase_add_test(tc, mkdir_mode_verb);
	tcase_add_test(tc, cat_depth_equals_backing);
	tcase_add_test(tc, cat_read_plus_sparse);
	tcase_add_test(tc, map_verb);
	tcase_add_test(tc, cp_verb);
	tcase_add_test(tc, cp_clone_notsupp);
	tcase_add_test(tc, help_exits_0);
	tcase_add_test(tc, errors_name_the_operand);
	tcase_add_test(tc, put_directory_refused);
	tcase_add_test(tc, put_keeps_holes);
	tcase_add_test(tc, cp_async_progress);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
