/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: the nfs42 CLI (path in $SPARSE_NFS42).  Output and exit
 * codes: 0 ok, 1 NFS error, 2 usage, 3 transport error.
 */
#include <arpa/inet.h>
#include <errno.h>
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

/* Run the CLI with -s/-p from the environment and the given args. */
static struct run cli(const char *const *args)
{
	const char *argv[32] = { e2e_env("SPARSE_NFS42"), "-s",
				 e2e_env("NFS42_HOST"), "-p",
				 e2e_env("NFS42_PORT") };
	int out[2], err[2], i, st;
	struct run r;
	pid_t pid;

	for (i = 0; args[i]; i++)
		argv[5 + i] = args[i];
	argv[5 + i] = NULL;
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

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

#define CLI(...) cli((const char *const[]){ __VA_ARGS__, NULL })

/* Run the CLI: it must exit with want and, if errsub is not NULL, say
 * errsub on stderr.  Failures name the arguments. */
static void cli_expect(int want, const char *errsub, const char *const *args)
{
	struct run r = cli(args);
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

#define CLI_EXPECT(want, errsub, ...) \
	cli_expect(want, errsub, (const char *const[]){ __VA_ARGS__, NULL })

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

START_TEST(transport_error_exit_3)
{
	const char *argv[] = { e2e_env("SPARSE_NFS42"),
			       "-s",
			       "127.0.0.1",
			       "-p",
			       NULL,
			       "ping",
			       NULL };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	char port[16], want[96], *err;
	int fd = socket(AF_INET, SOCK_STREAM, 0), p[2], st;
	pid_t pid;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	getsockname(fd, (struct sockaddr *)&sin, &sl);
	close(fd);
	snprintf(port, sizeof(port), "%u", ntohs(sin.sin_port));
	argv[4] = port;
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 2);
		close(p[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	err = slurp(p[0], NULL);
	close(p[0]);
	waitpid(pid, &st, 0);
	ck_assert_int_eq(WEXITSTATUS(st), 3);
	snprintf(want, sizeof(want),
		 "nfs42: cannot connect to 127.0.0.1:%s: Connection refused\n",
		 port);
	ck_assert_str_eq(err, want);
	free(err);
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

int main(void)
{
	Suite *s = suite_create("e2e_client_cli");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, ping_and_usage);
	tcase_add_test(tc, transport_error_exit_3);
	tcase_add_test(tc, ls_stat_cat);
	tcase_add_test(tc, put_cat_binary_roundtrip);
	tcase_add_test(tc, namespace_verbs);
	tcase_add_test(tc, seek_verb);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
