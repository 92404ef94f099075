/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42 cat, get, map, seek: reading a file's contents and its holes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int cat_stream(const char *path, struct nfs42_stream_opts *so, int fd,
		      bool pnfs, bool stats, bool tell)
{
	struct nfs42_file f;
	uint64_t end = 0;
	int rc, rc2;

	rc = nfs42_open(g_cl, path, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE, 0,
			false, &f);
	if (rc)
		return rc;
	rc = pnfs ? cat_pnfs(&f, path, so, fd, stats) : 1;
	if (rc == 1)
		rc = nfs42_read_stream_fd(&f, so, fd, &end);
	/* nothing read yet: a server (or minor version) without READ_PLUS */
	if ((rc == NFS4ERR_NOTSUPP || rc == NFS4ERR_OP_ILLEGAL) &&
	    so->read_plus && end == so->offset) {
		if (tell)
			fprintf(stderr,
				"nfs42: %s: READ_PLUS: %s, reading with READ\n",
				path, nfs42_strerror(rc));
		so->read_plus = false;
		rc = nfs42_read_stream_fd(&f, so, fd, &end);
	}
	rc2 = nfs42_close(&f);
	return rc ? rc : rc2;
}

/*
 * How cat reads: with --read-plus or --plain-read as asked, else with
 * READ_PLUS into a regular file under NFSv4.2 and READ otherwise.  Into a
 * regular file holes stay holes and are skipped (SEEK), so that the cost
 * follows the data; a pipe or a terminal gets every byte (zeros for
 * holes).  *tell: a fallback from READ_PLUS to READ is worth saying (it
 * was asked for).
 */
static void cat_mode(const struct nfs42_opts *o, const struct args *args,
		     int fd, struct nfs42_stream_opts *so, bool *tell)
{
	int fl = fcntl(fd, F_GETFL);
	struct stat st;
	/* where holes can be kept: a regular file not opened to append */
	bool file = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && fl >= 0 &&
		    !(fl & O_APPEND);

	nfs42_stream_opts_init(so);
	so->depth = args->depth ? args->depth : DEPTH_DEFAULT;
	*tell = OPT(args, 'r') != NULL;
	if (OPT(args, 'r'))
		so->read_plus = true;
	else if (!OPT(args, 'p'))
		so->read_plus = file && o->minorversion >= 2;
	so->skip_holes = file;
}

/* cat (and get): to stdout or, through a temporary renamed into place,
 * FILE */
static int cat_to(struct nfs42_opts *o, const struct args *args,
		  const char *verb, const char *path, const char *file)
{
	struct nfs42_stream_opts so;
	struct out_file out;
	bool tell;
	int rc;

	rc = out_open(&out, file);
	if (rc)
		return rc;
	cat_mode(o, args, out.fd, &so, &tell);
	rc = cat_stream(path, &so, out.fd, OPT(args, 'n') == NULL,
			OPT(args, 's') != NULL, tell);
	if (OPT(args, 's'))
		trips_print(verb);
	if (rc) {
		out_abort(&out);
		return fail(path, rc);
	}
	return out_commit(&out);
}

int cmd_cat(struct nfs42_opts *o, const struct args *args)
{
	return cat_to(o, args, "cat", args->word[0], OPT(args, 'o'));
}

/* get: LOCALFILE, or LOCALFILE/NAME when it is a directory */
int cmd_get(struct nfs42_opts *o, const struct args *args)
{
	const char *local = args->word[1];
	char buf[PATH_MAX];
	struct stat st;

	if (stat(local, &st) == 0 && S_ISDIR(st.st_mode))
		local = in_dir(buf, sizeof(buf), local, args->word[0]);
	return cat_to(o, args, "get", args->word[0], local);
}

/* map: the data/hole segments READ_PLUS reports, merged when adjacent. */
struct map_state {
	uint64_t off, len;
	bool hole, have;
};

static void map_flush(struct map_state *m)
{
	if (m->have)
		printf("%" PRIu64 " %" PRIu64 " %s\n", m->off, m->len,
		       m->hole ? "hole" : "data");
	m->have = false;
}

static int map_seg(void *arg, uint64_t off, uint64_t len, const void *data)
{
	struct map_state *m = arg;

	if (m->have && m->hole == !data && m->off + m->len == off) {
		m->len += len;
		return 0;
	}
	map_flush(m);
	*m = (struct map_state){
		.off = off, .len = len, .hole = !data, .have = true
	};
	return 0;
}

int cmd_map(struct nfs42_opts *o, const struct args *args)
{
	const char *path = args->word[0];
	struct nfs42_stream_opts so;
	struct map_state m = { 0 };
	struct nfs42_file f;
	int rc, rc2;

	rc = nfs42_open(g_cl, path, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE, 0,
			false, &f);
	if (rc)
		return fail(path, rc);
	nfs42_stream_opts_init(&so);
	so.read_plus = true;
	so.skip_holes = true; /* a hole costs one SEEK, not its size */
	so.depth = args->depth ? args->depth : DEPTH_DEFAULT;
	rc = nfs42_read_stream(&f, &so, map_seg, &m, NULL);
	if (!rc)
		map_flush(&m);
	rc2 = nfs42_close(&f);
	if (OPT(args, 's'))
		trips_print("map");
	if (rc)
		return fail(path, rc);
	return rc2 ? fail(path, rc2) : 0;
}

int cmd_seek(struct nfs42_opts *o, const struct args *args)
{
	const char *path = args->word[0];
	enum nfs42_content what = !strcmp(args->word[2], "data") ?
					  NFS4_CONTENT_DATA :
					  NFS4_CONTENT_HOLE;
	struct nfs42_file f;
	uint64_t res;
	bool eof;
	int rc, rc2;

	rc = nfs42_open(g_cl, path, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE, 0,
			false, &f);
	if (rc)
		return fail(path, rc);
	rc = nfs42_seek(&f, args->num, what, &res, &eof);
	rc2 = nfs42_close(&f);
	if (rc)
		return fail(path, rc);
	if (rc2)
		return fail(path, rc2);
	printf("%" PRIu64 " eof=%s\n", res, eof ? "true" : "false");
	return 0;
}
