/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42 put: a local file to the server.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* put: LOCALFILE (- for stdin) opened before connecting; a directory is
 * refused, and a regular file must give its first byte of data. */
int prepare_put(struct args *a)
{
	const char *local = a->word[0];
	struct stat st;
	char byte;
	off_t d;
	int err;

	a->local_fd = strcmp(local, "-") ? open(local, O_RDONLY) :
					   dup(STDIN_FILENO);
	if (a->local_fd < 0 || fstat(a->local_fd, &st) < 0)
		goto bad;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto bad;
	}
	/* a pipe, a FIFO, a device, procfs: read in order to its end */
	a->local_stream = !S_ISREG(st.st_mode) || st.st_size == 0;
	if (a->local_stream) {
		err = umask(0);
		umask(err);
		a->local_mode = 0666 & ~err;
		return 0;
	}
	a->local_mode = st.st_mode & 07777;
	d = lseek(a->local_fd, 0, SEEK_DATA);
	if (d < 0 && errno == ENXIO)
		return 0; /* all hole */
	if (pread(a->local_fd, &byte, 1, d < 0 ? 0 : d) >= 0)
		return 0;
bad:
	err = errno;
	fprintf(stderr, "nfs42: %s: %s\n", local, strerror(err));
	if (a->local_fd >= 0)
		close(a->local_fd);
	a->local_fd = -1;
	return EXIT_USAGE;
}

/*
 * put: through the data servers when the server gives a layout (unless
 * --no-pnfs), else through the metadata server; either way only the data
 * of LOCALFILE goes over the wire and its holes stay holes.  A stream
 * (stdin, a pipe, a FIFO) goes through the metadata server in order,
 * its first block read before the file is opened.
 */
int cmd_put(struct nfs42_opts *o, const struct args *args)
{
	const char *local = args->word[0], *path;
	struct nfs42_put_result r;
	char buf[PATH_MAX];
	int rc = 1;

	path = strcmp(local, "-") ?
		       remote_dest(buf, sizeof(buf), args->word[1], local) :
		       args->word[1];

	if (OPT(args, 'n') == NULL && !args->local_stream)
		rc = put_pnfs(path, args->local_fd, args->local_mode,
			      OPT(args, 's') != NULL);
	if (rc != 1)
		return rc ? fail(path, rc) : 0;
	if (!args->local_stream && lseek(args->local_fd, 0, SEEK_SET) != 0) {
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
