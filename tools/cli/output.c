/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42: errors (each returns the exit code it stands for) and the
 * formatting the verbs share.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Report an error and return the exit code for it. */
int fail(const char *what, int rc)
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

/* A failed copy: the error names the operand it is about. */
int fail_copy(const char *src, const char *dst, enum nfs42_copy_failed failed,
	      int rc)
{
	char both[2 * PATH_MAX + 8];

	switch (failed) {
	case NFS42_COPY_FAILED_SRC:
		return fail(src, rc);
	case NFS42_COPY_FAILED_DST:
		return fail(dst, rc);
	case NFS42_COPY_FAILED_SAME:
		fprintf(stderr, "nfs42: '%s' and '%s' are the same file\n", src,
			dst);
		return EXIT_NFS;
	default:
		snprintf(both, sizeof(both), "%s -> %s", src, dst);
		return fail(both, rc);
	}
}

/* A failed xattr call: errors about the attribute name it, the others
 * the path (a missing file is not a missing attribute). */
int fail_xattr(const char *path, const char *name, int rc)
{
	char what[PATH_MAX + 300];

	if (rc == NFS4ERR_NOXATTR || rc == NFS4ERR_EXIST ||
	    rc == NFS4ERR_XATTR2BIG || rc == NFS4ERR_NAMETOOLONG) {
		snprintf(what, sizeof(what), "%s: xattr user.%s", path, name);
		return fail(what, rc);
	}
	return fail(path, rc);
}

const char *type_name(uint32_t type)
{
	static const char *const names[] = {
		"unknown", "regular", "directory", "block",   "character",
		"symlink", "socket",  "fifo",	   "attrdir", "namedattr"
	};

	return type < 10 ? names[type] : "unknown";
}

void mode_string(const struct nfs42_attrs *a, char *s)
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

/* "2026-05-12 12:54:08" in local time (ls -l). */
void time_string(const struct nfs42_time *t, char *buf, size_t sz)
{
	time_t sec = (time_t)t->seconds;
	struct tm tm;

	localtime_r(&sec, &tm);
	strftime(buf, sz, "%Y-%m-%d %H:%M:%S", &tm);
}

/* "2026-05-12 12:54:08.123456789 +0200": local time, nanoseconds and
 * the zone's offset, as stat(1) prints it. */
void time_string_full(const struct nfs42_time *t, char *buf, size_t sz)
{
	time_t sec = (time_t)t->seconds;
	char date[32], zone[8];
	struct tm tm;

	localtime_r(&sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	snprintf(buf, sz, "%s.%09u %s", date, t->nseconds, zone);
}

/* A local file error: told, EXIT_USAGE. */
static int local_error(const char *path, int err)
{
	fprintf(stderr, "nfs42: %s: %s\n", path, strerror(err));
	return EXIT_USAGE;
}

/* The temporary ".NAME.nfs42-XXXXXX" beside o->target, with the mode
 * (and, as root, the owner) of st, the file it replaces, or 0644 less
 * the umask for a new one. */
static int out_temp(struct out_file *o, const struct stat *st)
{
	char *d = strdup(o->target), *b = strdup(o->target);
	mode_t mode;
	int err = 0;

	if (!d || !b ||
	    asprintf(&o->tmp, "%s/.%s.nfs42-XXXXXX", dirname(d), basename(b)) <
		    0) {
		o->tmp = NULL;
		err = ENOMEM;
	}
	free(d);
	free(b);
	if (!err) {
		o->fd = mkstemp(o->tmp);
		err = o->fd < 0 ? errno : 0;
	}
	if (err) {
		free(o->tmp);
		o->tmp = NULL;
		return local_error(o->path, err);
	}
	if (st) {
		mode = st->st_mode & 07777;
		/* root keeps the owner; anyone else becomes it, as cp */
		if (geteuid() == 0 && fchown(o->fd, st->st_uid, st->st_gid) < 0)
			mode &= 0777;
	} else {
		mode = umask(0);
		umask(mode);
		mode = 0644 & ~mode;
	}
	fchmod(o->fd, mode);
	return 0;
}

int out_open(struct out_file *o, const char *path)
{
	struct stat st;
	bool exists;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = STDOUT_FILENO;
	if (!path)
		return 0;
	exists = stat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		/* a device, a FIFO: written in place (a directory fails) */
		o->fd = open(path, O_WRONLY | O_TRUNC);
		return o->fd < 0 ? local_error(path, errno) : 0;
	}
	/* a file we may not write is not replaced behind its mode's back */
	if (exists && access(path, W_OK) < 0)
		return local_error(path, errno);
	/* a symbolic link stays one: its target is replaced */
	o->target = exists ? realpath(path, NULL) : strdup(path);
	if (!o->target)
		return local_error(path, errno);
	return out_temp(o, exists ? &st : NULL);
}

int out_commit(struct out_file *o)
{
	int err = 0;

	if (!o->path)
		return 0;
	if (close(o->fd) < 0)
		err = errno;
	o->fd = -1;
	if (!err && o->tmp && rename(o->tmp, o->target) < 0)
		err = errno;
	if (err) {
		out_abort(o);
		return local_error(o->path, err);
	}
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	return 0;
}

void out_abort(struct out_file *o)
{
	if (o->path && o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
}

/* The round trips counted from trips_mark() on (nfs42_calls_sent). */
static uint64_t trips0, ops0[NFS42_OPS_COUNTED];

void trips_mark(void)
{
	uint32_t op;

	trips0 = nfs42_calls_sent(g_cl);
	for (op = 0; op < NFS42_OPS_COUNTED; op++)
		ops0[op] = nfs42_ops_sent(g_cl, op);
}

/* --stats: "nfs42: VERB round trips: N (OP n, ...)" on stderr, the ops
 * by number, SEQUENCE (in each of them) left out. */
void trips_print(const char *verb)
{
	const char *sep = "";
	uint64_t n;
	uint32_t op;

	fprintf(stderr, "nfs42: %s round trips: %" PRIu64 " (", verb,
		nfs42_calls_sent(g_cl) - trips0);
	for (op = 0; op < NFS42_OPS_COUNTED; op++) {
		n = nfs42_ops_sent(g_cl, op) - ops0[op];
		if (!n || op == OP_SEQUENCE)
			continue;
		fprintf(stderr, "%s%s %" PRIu64, sep, nfs42_opname(op), n);
		sep = ", ";
	}
	fprintf(stderr, ")\n");
}

/* dir/NAME, NAME the last component of path (buf of sz bytes). */
const char *in_dir(char *buf, size_t sz, const char *dir, const char *path)
{
	const char *name = strrchr(path, '/');
	size_t len = strlen(dir);

	name = name ? name + 1 : path;
	while (len > 1 && dir[len - 1] == '/')
		len--;
	snprintf(buf, sz, "%.*s%s%s", (int)len, dir,
		 dir[len - 1] == '/' ? "" : "/", name);
	return buf;
}

/* The remote destination dst, or dst/NAME of src when dst is a
 * directory (as cp(1)); buf holds the joined path. */
const char *remote_dest(char *buf, size_t sz, const char *dst, const char *src)
{
	struct nfs42_attrs a;

	if (nfs42_stat(g_cl, dst, &a) == 0 && a.type == NF4DIR)
		return in_dir(buf, sz, dst, src);
	return dst;
}

/* A data server's address as host:port ([host]:port for IPv6) from its
 * universal address (RFC 5665: h1.h2.h3.h4.p1.p2); the universal address
 * itself if it does not parse. */
void addr_string(const struct nfs42_netaddr *a, char *buf, size_t sz)
{
	char host[64];
	uint16_t port;

	if (nfs42_uaddr_split(a->uaddr, host, sizeof(host), &port))
		snprintf(buf, sz, "%s", a->uaddr);
	else if (strchr(host, ':'))
		snprintf(buf, sz, "[%s]:%u", host, port);
	else
		snprintf(buf, sz, "%s:%u", host, port);
}
