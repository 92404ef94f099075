/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42 put: a local file to the server.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* put: LOCALFILE opened before connecting; a directory is refused. */
int prepare_put(struct args *a)
{
	const char *local = a->word[0];
	struct stat st;

	a->local_fd = open(local, O_RDONLY);
	if (a->local_fd < 0 || fstat(a->local_fd, &st) < 0) {
		fprintf(stderr, "nfs42: %s: %s\n", local, strerror(errno));
		if (a->local_fd >= 0)
			close(a->local_fd);
		a->local_fd = -1;
		return EXIT_USAGE;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "nfs42: %s: %s\n", local, strerror(EISDIR));
		close(a->local_fd);
		a->local_fd = -1;
		return EXIT_USAGE;
	}
	a->local_mode = st.st_mode & 07777;
	return 0;
}

/*
 * put: through the data servers when the server gives a layout (unless
 * --no-pnfs), else through the metadata server; either way only the data
 * of LOCALFILE goes over the wire and its holes stay holes.
 */
int cmd_put(struct nfs42_opts *o, const struct args *args)
{
	const char *local = args->word[0], *path = args->word[1];
	struct nfs42_put_result r;
	int rc = 1;

	if (OPT(args, 'n') == NULL)
		rc = put_pnfs(path, args->local_fd, args->local_mode,
			      OPT(args, 's') != NULL);
	if (rc != 1)
		return rc ? fail(path, rc) : 0;
	if (lseek(args->local_fd, 0, SEEK_SET) != 0) {
		fprintf(stderr, "nfs42: %s: %s\n", local, strerror(errno));
		return EXIT_USAGE;
	}
	rc = nfs42_write_file_fd(g_cl, path, args->local_fd, args->local_mode,
				 &r);
	if (rc && r.local_errno) {
		fprintf(stderr, "nfs42: %s: %s\n", local,
			strerror(r.local_errno));
		return EXIT_USAGE;
	}
	return rc ? fail(path, rc) : 0;
}
