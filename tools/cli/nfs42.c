/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42: command-line front end of the nfs42c library.
 *
 * Exit codes: 0 ok, 1 NFS error, 2 usage, 3 connection/transport error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nfs42.h"

#define EXIT_NFS 1
#define EXIT_USAGE 2
#define EXIT_TRANSPORT 3

static struct nfs42_client *g_cl;

static void usage(void)
{
	fprintf(stderr,
		"usage: nfs42 [-s host] [-p port] [-m 1|2] [-u uid -g gid]\n"
		"             [-G gid,...] [-t timeout_s] VERB ARGS\n"
		"  -m    NFSv4 minor version (default 2)\n"
		"verbs:\n"
		"  ping                     NULL RPC + session setup\n"
		"  ls [-l] PATH             list a directory\n"
		"  stat PATH                attributes (key: value)\n"
		"  cat PATH [-o FILE]       file contents to stdout or FILE\n"
		"  put LOCALFILE PATH       write a file\n"
		"  mkdir [-m MODE] PATH     create a directory\n"
		"  rm PATH | rmdir PATH     remove a file / an empty dir\n"
		"  mv FROM TO               rename\n"
		"  ln -s TARGET PATH        symbolic link (ln EXISTING PATH: hard)\n"
		"  readlink PATH            symlink target\n"
		"  truncate PATH SIZE       set the size\n"
		"  chmod MODE PATH          set the mode (octal)\n"
		"  seek PATH OFFSET data|hole\n"
		"environment: NFS42_HOST, NFS42_PORT give defaults for -s/-p\n");
}

/* Report an error and return the exit code for it. */
static int fail(const char *what, int rc)
{
	if (rc > 0) {
		fprintf(stderr, "nfs42: %s: %s\n", what, nfs42_strerror(rc));
		return EXIT_NFS;
	}
	if (g_cl && nfs42_client_error(g_cl)[0])
		fprintf(stderr, "nfs42: %s\n", nfs42_client_error(g_cl));
	else
		fprintf(stderr, "nfs42: %s: %s\n", what, strerror(-rc));
	return EXIT_TRANSPORT;
}

static const char *type_name(uint32_t type)
{
	static const char *const names[] = {
		"unknown", "regular", "directory", "block",   "character",
		"symlink", "socket",  "fifo",	   "attrdir", "namedattr"
	};

	return type < 10 ? names[type] : "unknown";
}

static void mode_string(const struct nfs42_attrs *a, char *s)
{
	static const char tc[] = "?-dbclspd-";
	static const char rwx[] = "rwxrwxrwx";
	int i;

	s[0] = a->type < 10 ? tc[a->type] : '?';
	for (i = 0; i < 9; i++)
		s[i + 1] = a->mode & (0400 >> i) ? rwx[i] : '-';
	if (a->mode & 04000)
		s[3] = s[3] == 'x' ? 's' : 'S';
	if (a->mode & 02000)
		s[6] = s[6] == 'x' ? 's' : 'S';
	if (a->mode & 01000)
		s[9] = s[9] == 'x' ? 't' : 'T';
	s[10] = '\0';
}

static void time_string(const struct nfs42_time *t, char *buf, size_t sz)
{
	time_t sec = (time_t)t->seconds;
	struct tm tm;

	gmtime_r(&sec, &tm);
	strftime(buf, sz, "%Y-%m-%d %H:%M:%S", &tm);
}

static void print_long(const char *name, const struct nfs42_attrs *a)
{
	char mode[16], when[64];

	mode_string(a, mode);
	time_string(&a->time_modify, when, sizeof(when));
	printf("%s %3u %-8s %-8s %10" PRIu64 " %s %s\n", mode, a->numlinks,
	       a->owner, a->owner_group, a->size, when, name);
}

struct listing_entry {
	char *name;
	struct nfs42_attrs attrs;
};

struct listing {
	struct listing_entry *e;
	size_t n, cap;
};

static int collect(void *arg, const struct nfs42_dirent *d)
{
	struct listing *l = arg;
	void *p;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 128;
		p = realloc(l->e, l->cap * sizeof(*l->e));
		if (!p)
			return -ENOMEM;
		l->e = p;
	}
	l->e[l->n].name = strdup(d->name);
	l->e[l->n].attrs = d->attrs;
	if (!l->e[l->n].name)
		return -ENOMEM;
	l->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmd_ls(int argc, char **argv)
{
	struct nfs42_bitmap bm = nfs42_bm_stat();
	struct listing l = { 0 };
	struct nfs42_attrs a;
	bool lng = false;
	const char *path;
	size_t i;
	int rc;

	if (argc >= 2 && !strcmp(argv[1], "-l")) {
		lng = true;
		argc--;
		argv++;
	}
	if (argc != 2)
		return usage(), EXIT_USAGE;
	path = argv[1];
	rc = nfs42_stat(g_cl, path, &a);
	if (rc)
		return fail(path, rc);
	if (a.type != NF4DIR) {
		if (lng)
			print_long(path, &a);
		else
			printf("%s\n", path);
		return 0;
	}
	rc = nfs42_readdir_path(g_cl, path, &bm, collect, &l);
	if (rc)
		return fail(path, rc);
	qsort(l.e, l.n, sizeof(*l.e), by_name);
	for (i = 0; i < l.n; i++) {
		if (lng)
			print_long(l.e[i].name, &l.e[i].attrs);
		else
			printf("%s\n", l.e[i].name);
		free(l.e[i].name);
	}
	free(l.e);
	return 0;
}

static void print_time(const char *key, const struct nfs42_time *t)
{
	printf("%s: %" PRId64 ".%09u\n", key, t->seconds, t->nseconds);
}

static int cmd_stat(int argc, char **argv)
{
	struct nfs42_attrs a;
	int rc;

	if (argc != 2)
		return usage(), EXIT_USAGE;
	rc = nfs42_stat(g_cl, argv[1], &a);
	if (rc)
		return fail(argv[1], rc);
	printf("path: %s\n", argv[1]);
	printf("type: %s\n", type_name(a.type));
	printf("size: %" PRIu64 "\n", a.size);
	printf("mode: %04o\n", a.mode);
	printf("nlink: %u\n", a.numlinks);
	printf("owner: %s\n", a.owner);
	printf("group: %s\n", a.owner_group);
	printf("fileid: %" PRIu64 "\n", a.fileid);
	printf("fsid: %" PRIu64 ".%" PRIu64 "\n", a.fsid.major, a.fsid.minor);
	printf("space_used: %" PRIu64 "\n", a.space_used);
	printf("rawdev: %u,%u\n", a.rawdev.major, a.rawdev.minor);
	printf("change: %" PRIu64 "\n", a.change);
	print_time("atime", &a.time_access);
	print_time("mtime", &a.time_modify);
	print_time("ctime", &a.time_metadata);
	return 0;
}

static int cmd_cat(int argc, char **argv)
{
	const char *out = NULL;
	int fd = STDOUT_FILENO, rc;

	if (argc == 4 && !strcmp(argv[2], "-o"))
		out = argv[3];
	else if (argc != 2)
		return usage(), EXIT_USAGE;
	if (out) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			fprintf(stderr, "nfs42: %s: %s\n", out,
				strerror(errno));
			return EXIT_USAGE;
		}
	}
	rc = nfs42_read_file_fd(g_cl, argv[1], fd, NULL);
	if (out)
		close(fd);
	return rc ? fail(argv[1], rc) : 0;
}

static int cmd_put(int argc, char **argv)
{
	struct stat st;
	int fd, rc;

	if (argc != 3)
		return usage(), EXIT_USAGE;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "nfs42: %s: %s\n", argv[1], strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_USAGE;
	}
	rc = nfs42_write_file_fd(g_cl, argv[2], fd, st.st_mode & 07777);
	close(fd);
	return rc ? fail(argv[2], rc) : 0;
}

static bool parse_mode(const char *s, uint32_t *mode)
{
	char *end;
	unsigned long v = strtoul(s, &end, 8);

	if (!*s || *end || v > 07777)
		return false;
	*mode = v;
	return true;
}

static int cmd_mkdir(int argc, char **argv)
{
	uint32_t mode = 0755;
	int rc;

	if (argc == 4 && !strcmp(argv[1], "-m")) {
		if (!parse_mode(argv[2], &mode))
			return usage(), EXIT_USAGE;
		argc -= 2;
		argv += 2;
	}
	if (argc != 2)
		return usage(), EXIT_USAGE;
	rc = nfs42_mkdir(g_cl, argv[1], mode);
	return rc ? fail(argv[1], rc) : 0;
}

static int cmd_rm(int argc, char **argv, bool dir)
{
	struct nfs42_attrs a;
	int rc;

	if (argc != 2)
		return usage(), EXIT_USAGE;
	rc = nfs42_stat(g_cl, argv[1], &a);
	if (!rc && dir && a.type != NF4DIR)
		rc = NFS4ERR_NOTDIR;
	if (!rc && !dir && a.type == NF4DIR)
		rc = NFS4ERR_ISDIR;
	if (!rc)
		rc = nfs42_remove(g_cl, argv[1]);
	return rc ? fail(argv[1], rc) : 0;
}

static int cmd_mv(int argc, char **argv)
{
	int rc;

	if (argc != 3)
		return usage(), EXIT_USAGE;
	rc = nfs42_rename(g_cl, argv[1], argv[2]);
	return rc ? fail(argv[1], rc) : 0;
}

static int cmd_ln(int argc, char **argv)
{
	int rc;

	if (argc == 4 && !strcmp(argv[1], "-s"))
		rc = nfs42_symlink(g_cl, argv[2], argv[3]);
	else if (argc == 3)
		rc = nfs42_hardlink(g_cl, argv[1], argv[2]);
	else
		return usage(), EXIT_USAGE;
	return rc ? fail(argv[argc - 1], rc) : 0;
}

static int cmd_readlink(int argc, char **argv)
{
	char buf[4096];
	int rc;

	if (argc != 2)
		return usage(), EXIT_USAGE;
	rc = nfs42_readlink(g_cl, argv[1], buf, sizeof(buf));
	if (rc)
		return fail(argv[1], rc);
	printf("%s\n", buf);
	return 0;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return *s && !*end && !errno && *s != '-';
}

static int cmd_truncate(int argc, char **argv)
{
	struct nfs42_sattr sa;
	uint64_t size;
	int rc;

	if (argc != 3 || !parse_u64(argv[2], &size))
		return usage(), EXIT_USAGE;
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, size);
	rc = nfs42_setattr_path(g_cl, argv[1], &sa);
	return rc ? fail(argv[1], rc) : 0;
}

static int cmd_chmod(int argc, char **argv)
{
	struct nfs42_sattr sa;
	uint32_t mode;
	int rc;

	if (argc != 3 || !parse_mode(argv[1], &mode))
		return usage(), EXIT_USAGE;
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, mode);
	rc = nfs42_setattr_path(g_cl, argv[2], &sa);
	return rc ? fail(argv[2], rc) : 0;
}

static int cmd_seek(int argc, char **argv)
{
	struct nfs42_file f;
	enum nfs42_content what;
	uint64_t off, res;
	bool eof;
	int rc, rc2;

	if (argc != 4 || !parse_u64(argv[2], &off))
		return usage(), EXIT_USAGE;
	if (!strcmp(argv[3], "data"))
		what = NFS4_CONTENT_DATA;
	else if (!strcmp(argv[3], "hole"))
		what = NFS4_CONTENT_HOLE;
	else
		return usage(), EXIT_USAGE;
	rc = nfs42_open(g_cl, argv[1], OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE,
			0, false, &f);
	if (rc)
		return fail(argv[1], rc);
	rc = nfs42_seek(&f, off, what, &res, &eof);
	rc2 = nfs42_close(&f);
	if (rc)
		return fail(argv[1], rc);
	if (rc2)
		return fail(argv[1], rc2);
	printf("%" PRIu64 " eof=%s\n", res, eof ? "true" : "false");
	return 0;
}

static int cmd_ping(struct nfs42_opts *o)
{
	printf("%s:%u: ok (clientid 0x%016" PRIx64 ", %u slots)\n", o->host,
	       o->port, nfs42_clientid(g_cl), nfs42_slot_count(g_cl));
	return 0;
}

static int run_verb(struct nfs42_opts *o, int argc, char **argv)
{
	const char *v = argv[0];

	if (!strcmp(v, "ping"))
		return cmd_ping(o);
	if (!strcmp(v, "ls"))
		return cmd_ls(argc, argv);
	if (!strcmp(v, "stat"))
		return cmd_stat(argc, argv);
	if (!strcmp(v, "cat"))
		return cmd_cat(argc, argv);
	if (!strcmp(v, "put"))
		return cmd_put(argc, argv);
	if (!strcmp(v, "mkdir"))
		return cmd_mkdir(argc, argv);
	if (!strcmp(v, "rm"))
		return cmd_rm(argc, argv, false);
	if (!strcmp(v, "rmdir"))
		return cmd_rm(argc, argv, true);
	if (!strcmp(v, "mv"))
		return cmd_mv(argc, argv);
	if (!strcmp(v, "ln"))
		return cmd_ln(argc, argv);
	if (!strcmp(v, "readlink"))
		return cmd_readlink(argc, argv);
	if (!strcmp(v, "truncate"))
		return cmd_truncate(argc, argv);
	if (!strcmp(v, "chmod"))
		return cmd_chmod(argc, argv);
	if (!strcmp(v, "seek"))
		return cmd_seek(argc, argv);
	fprintf(stderr, "nfs42: unknown verb '%s'\n", v);
	usage();
	return EXIT_USAGE;
}

static bool known_verb(const char *v)
{
	static const char *const verbs[] = {
		"ping",	    "ls",	"stat",	 "cat",	 "put",
		"mkdir",    "rm",	"rmdir", "mv",	 "ln",
		"readlink", "truncate", "chmod", "seek", NULL,
	};
	int i;

	for (i = 0; verbs[i]; i++)
		if (!strcmp(v, verbs[i]))
			return true;
	return false;
}

static int parse_gids(struct nfs42_opts *o, char *s)
{
	char *tok, *save = NULL;

	o->ngids = 0;
	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->ngids == NFS42_MAX_GIDS)
			return -1;
		o->gids[o->ngids++] = strtoul(tok, NULL, 10);
	}
	return 0;
}

/* A whole decimal number in [min, max]; 0 or -1. */
static int parse_ulong(const char *s, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || end == s || *end || *out < min || *out > max)
		return -1;
	return 0;
}

static int bad_option(const char *what, const char *value)
{
	fprintf(stderr, "nfs42: bad %s '%s'\n", what, value);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct nfs42_opts o;
	unsigned long num;
	int ch, rc;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	while ((ch = getopt(argc, argv, "+s:p:m:u:g:G:t:h")) != -1) {
		switch (ch) {
		case 's':
			o.host = optarg;
			break;
		case 'p':
			if (parse_ulong(optarg, 1, 65535, &num))
				return bad_option("port", optarg);
			o.port = (uint16_t)num;
			break;
		case 'm':
			if (parse_ulong(optarg, 1, 2, &num))
				return bad_option("minor version", optarg);
			o.minorversion = (uint32_t)num;
			break;
		case 'u':
			o.uid = strtoul(optarg, NULL, 10);
			break;
		case 'g':
			o.gid = strtoul(optarg, NULL, 10);
			break;
		case 'G':
			if (parse_gids(&o, optarg))
				return usage(), EXIT_USAGE;
			break;
		case 't':
			o.timeout_ms = atoi(optarg) * 1000;
			o.connect_timeout_ms = o.timeout_ms;
			break;
		default:
			usage();
			return EXIT_USAGE;
		}
	}
	if (optind >= argc || !known_verb(argv[optind]))
		return usage(), EXIT_USAGE;
	o.no_back_channel = false;
	rc = nfs42_connect(&o, &g_cl);
	if (!rc)
		rc = nfs42_null(g_cl);
	if (!rc)
		rc = nfs42_session_create(g_cl);
	if (rc) {
		rc = fail("session", rc);
	} else {
		rc = run_verb(&o, argc - optind, argv + optind);
		fflush(stdout);
	}
	nfs42_client_free(g_cl);
	return rc;
}
