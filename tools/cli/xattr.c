/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42 xattr get|set|ls|rm: extended attributes (RFC 8276; names go
 * without "user.").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The whole of a local file (malloc'ed) for "@FILE"; NULL if unreadable. */
static uint8_t *read_local(const char *file, uint32_t *len)
{
	uint8_t *buf = NULL, *p;
	size_t cap = 0, n = 0;
	ssize_t got;
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		return NULL;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			p = cap > UINT32_MAX ? NULL : realloc(buf, cap);
			if (!p)
				goto fail;
			buf = p;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		n += got;
	}
	close(fd);
	*len = n;
	return buf ? buf : malloc(1);
fail:
	close(fd);
	free(buf);
	return NULL;
}

int cmd_xattr_get(struct nfs42_opts *o, const struct args *args)
{
	const char *path = args->word[0];
	struct out_file out;
	uint8_t *value;
	uint32_t len;
	int rc, err;

	rc = nfs42_xattr_get(g_cl, path, args->word[1], &value, &len);
	if (rc)
		return fail_xattr(path, args->word[1], rc);
	rc = out_open(&out, OPT(args, 'o'));
	err = rc ? 0 : nfs42_fd_write_all(out.fd, value, len);
	if (err) {
		fprintf(stderr, "nfs42: %s: %s\n",
			out.path ? out.path : "stdout", strerror(-err));
		out_abort(&out);
		rc = EXIT_USAGE;
	} else if (!rc) {
		rc = out_commit(&out);
	}
	free(value);
	return rc;
}

/* xattr set: VALUE, or the bytes of @FILE, read before connecting. */
int prepare_xattr_set(struct args *a)
{
	const char *v = a->word[2];

	if (OPT(a, 'c') && OPT(a, 'r')) {
		fprintf(stderr, "nfs42: --create and --replace exclude "
				"each other\n");
		return EXIT_USAGE;
	}
	if (v[0] != '@') {
		a->value = (uint8_t *)strdup(v);
		a->value_len = strlen(v);
		return a->value ? 0 : EXIT_USAGE;
	}
	a->value = read_local(v + 1, &a->value_len);
	if (!a->value) {
		fprintf(stderr, "nfs42: %s: %s\n", v + 1, strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_xattr_set(struct nfs42_opts *o, const struct args *args)
{
	enum nfs42_setxattr_option opt = SETXATTR4_EITHER;
	int rc;

	/* --create with --replace: refused by prepare_xattr_set() */
	if (OPT(args, 'c'))
		opt = SETXATTR4_CREATE;
	if (OPT(args, 'r'))
		opt = SETXATTR4_REPLACE;
	rc = nfs42_xattr_set(g_cl, args->word[0], args->word[1],
			     (const char *)args->value, args->value_len, opt,
			     NULL);
	return rc ? fail_xattr(args->word[0], args->word[1], rc) : 0;
}

static int print_xattr_name(void *arg, const char *name)
{
	printf("%s\n", name);
	return 0;
}

int cmd_xattr_ls(struct nfs42_opts *o, const struct args *args)
{
	uint32_t maxcount = 0;
	int rc;

	if (OPT(args, 'n')) {
		if (args->num > UINT32_MAX) {
			fprintf(stderr, "nfs42: bad maxcount\n");
			return EXIT_USAGE;
		}
		maxcount = args->num ? (uint32_t)args->num : 1;
	}
	rc = nfs42_xattr_ls(g_cl, args->word[0], maxcount, print_xattr_name,
			    NULL, NULL);
	return rc ? fail(args->word[0], rc) : 0;
}

int cmd_xattr_rm(struct nfs42_opts *o, const struct args *args)
{
	int rc = nfs42_xattr_rm(g_cl, args->word[0], args->word[1], NULL);

	return rc ? fail_xattr(args->word[0], args->word[1], rc) : 0;
}
