/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42: errors (each returns the exit code it stands for) and the
 * formatting the verbs share.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

void time_string(const struct nfs42_time *t, char *buf, size_t sz)
{
	time_t sec = (time_t)t->seconds;
	struct tm tm;

	gmtime_r(&sec, &tm);
	strftime(buf, sz, "%Y-%m-%d %H:%M:%S", &tm);
}
