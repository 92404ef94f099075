/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: the nfs42 CLI's core (tools/cli/main.c, args.c,
 * output.c): global options, usage errors before connecting, help, exit
 * codes, errors naming their operand.
 */
#include <signal.h>

#include "e2e_cli_util.h"

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
		    "get", "/a");
	DEAD_EXPECT(2, "usage: nfs42 [options] xattr rm PATH NAME", "xattr",
		    "rm", "/a");
	DEAD_EXPECT(2, NULL, "xattr", "set", "/a", "n");
	DEAD_EXPECT(2, NULL, "xattr", "get", "/a", "n", "extra");
	DEAD_EXPECT(2, "--create and --replace exclude each other", "xattr",
		    "set", "--create", "--replace", "/a", "n", "v");
	DEAD_EXPECT(2, "bad argument 'x' for xattr ls", "xattr", "ls", "-n",
		    "x", "/a");
	DEAD_EXPECT(2, "unknown verb 'xattr'", "xattr", "frob", "/a");
	DEAD_EXPECT(2, "unknown verb 'xattr'", "xattr");
	/* well-formed ones get as far as connecting */
	DEAD_EXPECT(3, NULL, "xattr", "get", "-o", "/dev/null", "/a", "n");
	DEAD_EXPECT(3, NULL, "xattr", "set", "--replace", "/a", "n", "v");
	DEAD_EXPECT(3, NULL, "xattr", "ls", "-n", "64", "/a");
	DEAD_EXPECT(3, NULL, "xattr", "rm", "/a", "n");
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
	DEAD_EXPECT(2, "usage: nfs42 [options] stat PATH", "stat", "/a", "/b");
	DEAD_EXPECT(2, NULL, "ping", "extra");
	DEAD_EXPECT(2, NULL, "mv", "/a");
	DEAD_EXPECT(2, NULL, "truncate", "/a");
	DEAD_EXPECT(2, NULL, "chmod", "0644", "/a", "/b");
	DEAD_EXPECT(2, NULL, "ln", "/a");
	DEAD_EXPECT(2, NULL, "seek", "/a", "0");
	DEAD_EXPECT(2, NULL, "mkdir", "-m", "0700", "/a", "/b");
	DEAD_EXPECT(2, "unknown verb 'frobnicate'", "frobnicate");
	/* the shape of the arguments, not only their number (synopsis) */
	DEAD_EXPECT(2, "wrong number of arguments for ln", "ln", "-s", "X");
	/* options go anywhere: "ln X -s" lacks its PATH */
	DEAD_EXPECT(2, "wrong number of arguments for ln", "ln", "X", "-s");
	DEAD_EXPECT(2, "wrong number of arguments for ls", "ls", "-l");
	DEAD_EXPECT(2, "unknown option '-x' for ls", "ls", "-x", "/a");
	DEAD_EXPECT(2, NULL, "cat", "/a", "/b");
	DEAD_EXPECT(2, NULL, "cat", "/a", "-o");
	DEAD_EXPECT(2, NULL, "cat", "/a", "-x", "f");
	DEAD_EXPECT(2, "bad argument '99' for mkdir", "mkdir", "-m", "99",
		    "/a");
	DEAD_EXPECT(2, NULL, "mkdir", "-m", "0700");
	DEAD_EXPECT(2, "bad argument 'rw' for chmod", "chmod", "rw", "/a");
	DEAD_EXPECT(2, NULL, "chmod", "10000", "/a");
	DEAD_EXPECT(2, "'-1' for truncate", "truncate", "/a", "-1");
	DEAD_EXPECT(2, NULL, "truncate", "/a", "1k");
	DEAD_EXPECT(2, "bad argument 'x' for seek", "seek", "/a", "x", "data");
	DEAD_EXPECT(2, "bad argument 'sideways' for seek", "seek", "/a", "0",
		    "sideways");
	DEAD_EXPECT(2, "unknown option '-l' for stat", "stat", "-l");
	DEAD_EXPECT(2, "bad argument '' for rm", "rm", "");
	DEAD_EXPECT(2, "wrong number of arguments for cp", "cp", "/a");
	DEAD_EXPECT(2, "wrong number of arguments for cp", "cp", "--clone",
		    "/a");
	DEAD_EXPECT(2, NULL, "cp", "/a", "/b", "c");
	DEAD_EXPECT(2, "unknown option '-c' for cp", "cp", "-c", "/a", "/b");
	DEAD_EXPECT(2, "--async goes with neither", "cp", "--clone", "/a", "/b",
		    "--async");
	DEAD_EXPECT(2,
		    "usage: nfs42 [options] cp [--async] [--clone] "
		    "[--via-client] [--stats] SRC DST",
		    "cp");
	/* well-formed ones get as far as connecting */
	DEAD_EXPECT(3, NULL, "ln", "-s", "X", "/Y");
	DEAD_EXPECT(3, NULL, "ls", "-l", "/a");
	DEAD_EXPECT(3, NULL, "mkdir", "-m", "0700", "/a");
	DEAD_EXPECT(3, NULL, "seek", "/a", "0x10", "hole");
	DEAD_EXPECT(3, NULL, "cat", "/a", "-o", "/dev/null");
	DEAD_EXPECT(3, NULL, "cp", "/a", "/b");
	DEAD_EXPECT(3, NULL, "cp", "--clone", "/a", "/b");
	/* options in any order, before, between or after the words */
	DEAD_EXPECT(3, NULL, "cp", "/a", "/b", "--clone");
	DEAD_EXPECT(3, NULL, "cp", "/a", "--clone", "/b");
	DEAD_EXPECT(3, NULL, "cp", "--stats", "--async", "/a", "/b");
	DEAD_EXPECT(3, NULL, "cat", "-o", "/dev/null", "/a", "-d", "4");
	DEAD_EXPECT(3, NULL, "ls", "/a", "-l");
	/* "--" ends the options: a VALUE or PATH may start with '-' */
	DEAD_EXPECT(3, NULL, "xattr", "set", "/a", "n", "--", "-1");
	DEAD_EXPECT(2, "unknown option '-1' for xattr set", "xattr", "set",
		    "/a", "n", "-1");
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
	ck_assert(strstr(r.out, "CLONE"));
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

/*
 * A port where an HTTP server listens: the answer is not RPC, and the
 * error says so (issue #28 item 5: it said "Message too long").
 */
START_TEST(not_an_nfs_server)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	char port[16], want[96], req[512];
	int ls = socket(AF_INET, SOCK_STREAM, 0), c;
	struct run r;
	pid_t pid;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(ls, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(ls, 4), 0);
	ck_assert_int_eq(getsockname(ls, (struct sockaddr *)&sin, &sl), 0);
	snprintf(port, sizeof(port), "%u", ntohs(sin.sin_port));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) { /* the HTTP server: one bad request answered */
		static const char ans[] = "HTTP/1.1 400 Bad Request\r\n"
					  "Content-Length: 0\r\n\r\n";

		c = accept(ls, NULL, NULL);
		if (c >= 0 && read(c, req, sizeof(req)) > 0 &&
		    write(c, ans, sizeof(ans) - 1) > 0)
			shutdown(c, SHUT_WR);
		sleep(2);
		_exit(0);
	}
	close(ls);
	r = cli_at(port, (const char *const[]){ "ping", NULL });
	snprintf(want, sizeof(want), "nfs42: %s:%s is not an NFS server",
		 e2e_env("NFS42_HOST"), port);
	ck_assert_msg(r.status == 3, "exit %d: %s", r.status, r.err);
	ck_assert_msg(strstr(r.err, want) && !strstr(r.err, "too long"), "%s",
		      r.err);
	run_free(&r);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
END_TEST

/*
 * Bad arguments say what they should be (issue #28 item 5): a relative
 * path (it was NFS4ERR_INVAL from the server), a DEPTH or MODE out of
 * range, a hard link's relative TARGET; all before connecting.
 */
START_TEST(bad_arguments_say_what_fits)
{
	DEAD_EXPECT(2,
		    "bad argument 'relative' for stat: PATH must be absolute "
		    "(start with /)",
		    "stat", "relative");
	DEAD_EXPECT(2, "SRC must be absolute", "cp", "a", "/b");
	DEAD_EXPECT(2, "DST must be absolute", "cp", "/a", "b");
	DEAD_EXPECT(2, "TO must be absolute", "mv", "/a", "b");
	DEAD_EXPECT(2,
		    "bad argument '100000' for cat: DEPTH must be a number "
		    "from 1 to 64",
		    "cat", "-d", "100000", "/a");
	DEAD_EXPECT(2, "MODE must be an octal mode, 0 to 07777", "chmod", "8",
		    "/a");
	DEAD_EXPECT(2, "SIZE must be a number", "truncate", "/a", "1k");
	DEAD_EXPECT(2, "must be one of data|hole", "seek", "/a", "0", "x");
	DEAD_EXPECT(2, "TARGET of a hard link must be absolute", "ln", "a",
		    "/b");
	/* a symbolic link's TARGET is any text */
	DEAD_EXPECT(3, NULL, "ln", "-s", "a", "/b");
}
END_TEST

/* Every line of --help and of help VERB fits in 80 columns (#28). */
START_TEST(help_fits_80_columns)
{
	static const char *const verbs[] = {
		"ping",	    "ls",	"stat",	 "cat",	  "get",  "map", "put",
		"layout",   "mkdir",	"rm",	 "rmdir", "mv",	  "cp",	 "ln",
		"readlink", "truncate", "chmod", "seek",  "xattr"
	};
	const char *argv[4] = { e2e_env("SPARSE_NFS42"), "--help" };
	char *line, *save;
	struct run r;
	size_t i;

	for (i = 0; i <= sizeof(verbs) / sizeof(verbs[0]); i++) {
		if (i > 0) {
			argv[1] = "help";
			argv[2] = verbs[i - 1];
		}
		r = run_argv(argv);
		ck_assert_msg(r.status == 0, "%s %s: %s", argv[1],
			      argv[2] ? argv[2] : "", r.err);
		for (line = strtok_r(r.out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			ck_assert_msg(strlen(line) <= 80,
				      "%s %s: %zu columns: %s", argv[1],
				      argv[2] ? argv[2] : "", strlen(line),
				      line);
		run_free(&r);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_cli_core");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, ping_and_usage);
	tcase_add_test(tc, transport_error_exit_3);
	tcase_add_test(tc, usage_before_connect);
	tcase_add_test(tc, xattr_usage_before_connect);
	tcase_add_test(tc, help_exits_0);
	tcase_add_test(tc, errors_name_the_operand);
	tcase_add_test(tc, not_an_nfs_server);
	tcase_add_test(tc, bad_arguments_say_what_fits);
	tcase_add_test(tc, help_fits_80_columns);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
