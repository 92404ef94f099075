/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42 mkdir, rm, rmdir, mv, ln, readlink, truncate, chmod: names and
 * attributes.
 */
#include <stdio.h>

#include "cli.h"

int cmd_mkdir(struct nfs42_opts *o, const struct args *args)
{
	uint32_t mode = OPT(args, 'm') ? args->mode : 0755;
	int rc;

	rc = nfs42_mkdir(g_cl, args->word[0], mode);
	return rc ? fail(args->word[0], rc) : 0;
}

/* rm and rmdir: path must be a non-directory, or a directory. */
static int remove_path(const char *path, bool dir)
{
	struct nfs42_attrs a;
	int rc;

	rc = nfs42_stat(g_cl, path, &a);
	if (!rc && dir && a.type != NF4DIR)
		rc = NFS4ERR_NOTDIR;
	if (!rc && !dir && a.type == NF4DIR)
		rc = NFS4ERR_ISDIR;
	if (!rc)
		rc = nfs42_remove(g_cl, path);
	return rc ? fail(path, rc) : 0;
}

int cmd_rm(struct nfs42_opts *o, const struct args *args)
{
	return remove_path(args->word[0], false);
}

int cmd_rmdir(struct nfs42_opts *o, const struct args *args)
{
	return remove_path(args->word[0], true);
}

int cmd_mv(struct nfs42_opts *o, const struct args *args)
{
	int rc;

	rc = nfs42_rename(g_cl, args->word[0], args->word[1]);
	return rc ? fail(args->word[0], rc) : 0;
}

/* A hard link's TARGET is a file on the server: an absolute path (a
 * symbolic link's is any text). */
int prepare_ln(struct args *a)
{
	if (OPT(a, 's') || a->word[0][0] == '/')
		return 0;
	fprintf(stderr,
		"nfs42: bad argument '%s' for ln: TARGET of a hard link must "
		"be absolute (start with /)\n",
		a->word[0]);
	return EXIT_USAGE;
}

int cmd_ln(struct nfs42_opts *o, const struct args *args)
{
	const char *target = args->word[0], *path = args->word[1];
	int rc;

	if (OPT(args, 's'))
		rc = nfs42_symlink(g_cl, target, path);
	else
		rc = nfs42_hardlink(g_cl, target, path);
	return rc ? fail(path, rc) : 0;
}

int cmd_readlink(struct nfs42_opts *o, const struct args *args)
{
	char buf[4096];
	int rc;

	rc = nfs42_readlink(g_cl, args->word[0], buf, sizeof(buf));
	if (rc)
		return fail(args->word[0], rc);
	printf("%s\n", buf);
	return 0;
}

/* SETATTR of sa on path. */
static int setattr_path(const char *path, const struct nfs42_sattr *sa)
{
	int rc = nfs42_setattr_path(g_cl, path, sa);

	return rc ? fail(path, rc) : 0;
}

int cmd_truncate(struct nfs42_opts *o, const struct args *args)
{
	struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, args->num);
	return setattr_path(args->word[0], &sa);
}

int cmd_chmod(struct nfs42_opts *o, const struct args *args)
{
	struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, args->mode);
	return setattr_path(args->word[1], &sa);
}
