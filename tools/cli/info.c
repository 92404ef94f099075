/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42 ping, ls, stat: the session, a directory, a file's attributes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_ping(struct nfs42_opts *o, const struct args *args)
{
	printf("%s:%u: ok (clientid 0x%016" PRIx64 ", %u slots)\n", o->host,
	       o->port, nfs42_clientid(g_cl), nfs42_slot_count(g_cl));
	return 0;
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

int cmd_ls(struct nfs42_opts *o, const struct args *args)
{
	struct nfs42_bitmap bm = nfs42_bm_stat();
	bool lng = OPT(args, 'l') != NULL;
	const char *path = args->word[0];
	struct listing l = { 0 };
	struct nfs42_attrs a;
	size_t i;
	int rc;

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
	if (l.n) /* an empty directory: l.e is NULL, which qsort may not take */
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
	char when[64];

	time_string_full(t, when, sizeof(when));
	printf("%s: %s\n", key, when);
}

int cmd_stat(struct nfs42_opts *o, const struct args *args)
{
	const char *path = args->word[0];
	struct nfs42_attrs a;
	int rc;

	rc = nfs42_stat(g_cl, path, &a);
	if (rc)
		return fail(path, rc);
	printf("path: %s\n", path);
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
