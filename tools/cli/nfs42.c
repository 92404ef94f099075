/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42: command-line front end of the nfs42c library.
 *
 * Exit codes: 0 ok, 1 NFS error, 2 usage, 3 connection/transport error.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
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
#define EXIT_HELP (-1) /* parse_options(): --help was given and answered */

static struct nfs42_client *g_cl;

/*
 * A verb's arguments, matched against its synopsis before connecting (see
 * match_args()): the words standing for upper-case names and choices in
 * order, the options given (the word after -x, or -x itself for a flag),
 * and the values of MODE and of SIZE or OFFSET.
 */
struct args {
	const char *word[4];
	int nwords;
	const char *opt[26]; /* by letter: opt['m' - 'a'] for -m */
	uint32_t mode;
	uint64_t num;
	uint32_t depth; /* DEPTH, 0 if not given */
	/* what a verb's prepare() got ready before connecting */
	int local_fd; /* put: LOCALFILE, open */
	uint32_t local_mode; /* its permission bits */
	uint8_t *value; /* xattr set: VALUE, or the bytes of @FILE */
	uint32_t value_len;
};

#define OPT(a, c) ((a)->opt[(c) - 'a'])
#define DEPTH_DEFAULT 8
#define DEPTH_MAX 64

static void usage(FILE *f);

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

/* A failed copy: the error names the operand it is about. */
static int fail_copy(const char *src, const char *dst,
		     enum nfs42_copy_failed failed, int rc)
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
static int fail_xattr(const char *path, const char *name, int rc)
{
	char what[PATH_MAX + 300];

	if (rc == NFS4ERR_NOXATTR || rc == NFS4ERR_EXIST ||
	    rc == NFS4ERR_XATTR2BIG || rc == NFS4ERR_NAMETOOLONG) {
		snprintf(what, sizeof(what), "%s: xattr user.%s", path, name);
		return fail(what, rc);
	}
	return fail(path, rc);
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

static int cmd_ls(struct nfs42_opts *o, const struct args *args)
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

static int cmd_stat(struct nfs42_opts *o, const struct args *args)
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

/* --stats of a pNFS transfer, on stderr. */
static void print_pnfs_stats(const char *path, const struct nfs42_layout *lo,
			     const struct nfs42_pnfs_stats *st)
{
	uint32_t i;

	fprintf(stderr,
		"pnfs: %s: stripe unit %u, %u stripes, %u data servers\n", path,
		lo->stripe_unit, lo->nstripes, lo->nds);
	for (i = 0; i < lo->nds; i++)
		fprintf(stderr, "pnfs: ds %u %s %" PRIu64 " bytes %u calls\n",
			i, lo->ds[i].addr[0].uaddr, st->ds_bytes[i],
			st->ds_calls[i]);
	fprintf(stderr,
		"pnfs: mds %" PRIu64 " bytes, holes %" PRIu64
		" bytes, data servers failed %u, no layout %u, rewrites %u, recalled %s\n",
		st->mds_bytes, st->hole_bytes, st->ds_failed, st->no_layout,
		st->rewrites, st->recalled ? "yes" : "no");
}

/* Whether a LAYOUTGET failure means "no pNFS here, go through the
 * metadata server" rather than an error. */
static bool no_layout_here(int rc)
{
	return rc == NFS4ERR_LAYOUTUNAVAILABLE ||
	       rc == NFS4ERR_UNKNOWN_LAYOUTTYPE || rc == NFS4ERR_NOTSUPP ||
	       rc == NFS4ERR_OP_ILLEGAL || rc == NFS4ERR_LAYOUTTRYLATER ||
	       rc == NFS4ERR_RECALLCONFLICT || rc == NFS4ERR_BADLAYOUT;
}

/* cat through the layout's data servers; 1 when there is no layout. */
static int cat_pnfs(struct nfs42_file *f, const char *path,
		    const struct nfs42_stream_opts *so, int fd, bool stats)
{
	struct nfs42_pnfs_opts po;
	struct nfs42_pnfs_stats st;
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	int rc, rc2;

	if (!lo)
		return -ENOMEM;
	rc = nfs42_layout_get(f, LAYOUTIOMODE4_READ, lo);
	if (rc) {
		free(lo);
		if (stats)
			fprintf(stderr, "pnfs: %s: no layout (%s)\n", path,
				nfs42_strerror(rc));
		return rc > 0 && no_layout_here(rc) ? 1 : rc;
	}
	nfs42_pnfs_opts_init(&po);
	po.read_plus = so->read_plus;
	po.depth = so->depth > 16 ? 16 : so->depth;
	rc = nfs42_pnfs_read_fd(f, lo, &po, fd, NULL, &st);
	rc2 = nfs42_layout_return(f, lo);
	if (stats)
		print_pnfs_stats(path, lo, &st);
	free(lo);
	return rc ? rc : rc2;
}

static int cat_stream(const char *path, struct nfs42_stream_opts *so, int fd,
		      bool pnfs, bool stats)
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
		fprintf(stderr, "nfs42: %s: READ_PLUS: %s, reading with READ\n",
			path, nfs42_strerror(rc));
		so->read_plus = false;
		rc = nfs42_read_stream_fd(&f, so, fd, &end);
	}
	rc2 = nfs42_close(&f);
	return rc ? rc : rc2;
}

static int cmd_cat(struct nfs42_opts *o, const struct args *args)
{
	const char *out = OPT(args, 'o');
	struct nfs42_stream_opts so;
	int fd = STDOUT_FILENO, rc;

	if (out) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			fprintf(stderr, "nfs42: %s: %s\n", out,
				strerror(errno));
			return EXIT_USAGE;
		}
	}
	nfs42_stream_opts_init(&so);
	so.depth = args->depth ? args->depth : DEPTH_DEFAULT;
	so.read_plus = OPT(args, 'r') != NULL;
	rc = cat_stream(args->word[0], &so, fd, OPT(args, 'n') == NULL,
			OPT(args, 's') != NULL);
	if (out)
		close(fd);
	return rc ? fail(args->word[0], rc) : 0;
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

static int cmd_map(struct nfs42_opts *o, const struct args *args)
{
	const char *path = args->word[0];
	struct map_state m = { 0 };
	struct nfs42_file f;
	int rc, rc2;

	rc = nfs42_open(g_cl, path, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE, 0,
			false, &f);
	if (rc)
		return fail(path, rc);
	rc = nfs42_read_plus(&f, 0, NFS42_LENGTH_EOF,
			     args->depth ? args->depth : DEPTH_DEFAULT, map_seg,
			     &m, NULL);
	if (!rc)
		map_flush(&m);
	rc2 = nfs42_close(&f);
	if (rc)
		return fail(path, rc);
	return rc2 ? fail(path, rc2) : 0;
}

/* put: LOCALFILE opened before connecting; a directory is refused. */
static int prepare_put(struct args *a)
{
	const char *local = a->word[0];
	struct stat st;

	a->local_fd = open(local, O_RDONLY);
	if (a->local_fd < 0 || fstat(a->local_fd, &st) < 0) {
		fprintf(stderr, "nfs42: %s: %s\n", local, strerror(errno));
		if (a->local_fd >= 0)
			close(a->local_fd);
		return EXIT_USAGE;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "nfs42: %s: %s\n", local, strerror(EISDIR));
		close(a->local_fd);
		return EXIT_USAGE;
	}
	a->local_mode = st.st_mode & 07777;
	return 0;
}

/* put through the layout's data servers; 1 when there is no layout. */
static int put_pnfs(const char *path, int fd, uint32_t mode, bool stats)
{
	struct nfs42_pnfs_stats st;
	struct nfs42_layout *lo;
	struct nfs42_file f;
	int rc, rc2;

	rc = nfs42_open(g_cl, path, OPEN4_SHARE_ACCESS_WRITE, UNCHECKED4, mode,
			true, &f);
	if (rc)
		return rc;
	if (stats)
		fprintf(stderr, "put: %s: delegation %s\n", path,
			f.deleg_type == OPEN_DELEGATE_WRITE ? "write" :
			f.deleg_type == OPEN_DELEGATE_READ  ? "read" :
							      "none");
	lo = malloc(sizeof(*lo));
	rc = lo ? nfs42_layout_get(&f, LAYOUTIOMODE4_RW, lo) : -ENOMEM;
	if (rc) {
		if (stats)
			fprintf(stderr, "pnfs: %s: no layout (%s)\n", path,
				nfs42_strerror(rc));
		free(lo);
		rc2 = nfs42_close(&f);
		if (rc > 0 && no_layout_here(rc))
			return rc2 ? rc2 : 1;
		return rc;
	}
	rc = nfs42_pnfs_write_fd(&f, lo, NULL, fd, NULL, &st);
	rc2 = nfs42_layout_return(&f, lo);
	if (stats)
		print_pnfs_stats(path, lo, &st);
	free(lo);
	if (!rc)
		rc = rc2;
	rc2 = nfs42_close(&f);
	return rc ? rc : rc2;
}

/*
 * put: through the data servers when the server gives a layout (unless
 * --no-pnfs), else through the metadata server; either way only the data
 * of LOCALFILE goes over the wire and its holes stay holes.
 */
static int cmd_put(struct nfs42_opts *o, const struct args *args)
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

/* layout: LAYOUTGET + GETDEVICEINFO of PATH, printed, then returned. */
static int cmd_layout(struct nfs42_opts *o, const struct args *args)
{
	const char *path = args->word[0];
	struct nfs42_layout *lo;
	struct nfs42_file f;
	uint32_t i, j;
	int rc, rc2;

	rc = nfs42_open(g_cl, path, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE, 0,
			false, &f);
	if (rc)
		return fail(path, rc);
	lo = malloc(sizeof(*lo));
	rc = lo ? nfs42_layout_get(&f, LAYOUTIOMODE4_READ, lo) : -ENOMEM;
	if (!rc) {
		printf("type: files\n");
		printf("iomode: %s\n",
		       lo->iomode == LAYOUTIOMODE4_RW ? "rw" : "read");
		printf("range: %" PRIu64 " %s\n", lo->offset,
		       lo->length == NFS42_LENGTH_EOF ? "eof" : "bytes");
		printf("return_on_close: %s\n",
		       lo->return_on_close ? "yes" : "no");
		printf("deviceid: ");
		for (i = 0; i < NFS4_DEVICEID4_SIZE; i++)
			printf("%02x", lo->deviceid[i]);
		printf("\nstripe_unit: %u\n", lo->stripe_unit);
		printf("packing: %s\n", lo->dense ? "dense" : "sparse");
		printf("commit: %s\n", lo->commit_through_mds ?
					       "metadata server" :
					       "data servers");
		printf("first_stripe_index: %u\n", lo->first_stripe_index);
		printf("pattern_offset: %" PRIu64 "\n", lo->pattern_offset);
		printf("filehandles: %u\n", lo->nfh);
		printf("stripes: %u\n", lo->nstripes);
		for (i = 0; i < lo->nstripes; i++)
			printf("stripe %u: data server %u\n", i,
			       lo->stripe_indices[i]);
		for (i = 0; i < lo->nds; i++) {
			printf("data server %u:", i);
			for (j = 0; j < lo->ds[i].naddr; j++)
				printf(" %s %s", lo->ds[i].addr[j].netid,
				       lo->ds[i].addr[j].uaddr);
			printf("\n");
		}
		rc = nfs42_layout_return(&f, lo);
	}
	free(lo);
	rc2 = nfs42_close(&f);
	if (rc)
		return fail(path, rc);
	return rc2 ? fail(path, rc2) : 0;
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

static int cmd_mkdir(struct nfs42_opts *o, const struct args *args)
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

static int cmd_rm(struct nfs42_opts *o, const struct args *args)
{
	return remove_path(args->word[0], false);
}

static int cmd_rmdir(struct nfs42_opts *o, const struct args *args)
{
	return remove_path(args->word[0], true);
}

static int cmd_mv(struct nfs42_opts *o, const struct args *args)
{
	int rc;

	rc = nfs42_rename(g_cl, args->word[0], args->word[1]);
	return rc ? fail(args->word[0], rc) : 0;
}

static int cmd_ln(struct nfs42_opts *o, const struct args *args)
{
	const char *target = args->word[0], *path = args->word[1];
	int rc;

	if (OPT(args, 's'))
		rc = nfs42_symlink(g_cl, target, path);
	else
		rc = nfs42_hardlink(g_cl, target, path);
	return rc ? fail(path, rc) : 0;
}

static int cmd_readlink(struct nfs42_opts *o, const struct args *args)
{
	char buf[4096];
	int rc;

	rc = nfs42_readlink(g_cl, args->word[0], buf, sizeof(buf));
	if (rc)
		return fail(args->word[0], rc);
	printf("%s\n", buf);
	return 0;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return isdigit((unsigned char)*s) && !*end && !errno;
}

/* SETATTR of sa on path. */
static int setattr_path(const char *path, const struct nfs42_sattr *sa)
{
	int rc = nfs42_setattr_path(g_cl, path, sa);

	return rc ? fail(path, rc) : 0;
}

static int cmd_truncate(struct nfs42_opts *o, const struct args *args)
{
	struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, args->num);
	return setattr_path(args->word[0], &sa);
}

static int cmd_chmod(struct nfs42_opts *o, const struct args *args)
{
	struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, args->mode);
	return setattr_path(args->word[1], &sa);
}

static int cmd_seek(struct nfs42_opts *o, const struct args *args)
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

/* cp --stats: one line on stderr */
static void print_cp_stats(const char *path, const struct nfs42_copy_stats *st)
{
	fprintf(stderr,
		"nfs42: cp stats: path=%s calls=%u total_us=%" PRIu64
		" max_us=%" PRIu64 "\n",
		path, st->calls, st->total_us, st->max_us);
}

/*
 * Progress of `cp --async`: a bar on a terminal, else plain lines.  The
 * rate counts data only: a hole costs the server nothing, and the bytes
 * of a mostly sparse file per second say nothing (the source's data
 * extents are mapped with SEEK first; without SEEK every byte is data).
 */
#define MAP_MAX 4096

struct progress {
	bool tty;
	struct timespec start;
	double last; /* seconds since start of the last plain line */
	bool drew_full; /* 100 % is drawn once */
	uint64_t ext[MAP_MAX][2]; /* the source's data extents [start, end) */
	size_t next; /* how many */
	bool mapped;
	uint64_t mapped_to; /* extents known up to here; data beyond */
};

/* The data extents of src, as far as MAP_MAX of them go. */
static void map_data(const char *src, struct progress *p)
{
	struct nfs42_file f;
	uint64_t off = 0, d, h;
	bool eof;
	int rc;

	if (nfs42_open(g_cl, src, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE, 0,
		       false, &f))
		return;
	for (;;) {
		rc = nfs42_seek(&f, off, NFS4_CONTENT_DATA, &d, &eof);
		if (rc == NFS4ERR_NXIO || (!rc && eof)) {
			p->mapped_to = UINT64_MAX; /* no data after off */
			break;
		}
		if (rc)
			break;
		rc = nfs42_seek(&f, d, NFS4_CONTENT_HOLE, &h, &eof);
		if (rc || h <= d)
			break;
		if (p->next == MAP_MAX) {
			p->mapped_to = d;
			break;
		}
		p->ext[p->next][0] = d;
		p->ext[p->next][1] = h;
		p->next++;
		off = h;
	}
	p->mapped = !rc || rc == NFS4ERR_NXIO;
	nfs42_close(&f);
}

/* Data bytes in [0, upto) */
static uint64_t data_below(const struct progress *p, uint64_t upto)
{
	uint64_t sum = 0;
	size_t i;

	if (!p->mapped)
		return upto;
	for (i = 0; i < p->next && p->ext[i][0] < upto; i++)
		sum += (upto < p->ext[i][1] ? upto : p->ext[i][1]) -
		       p->ext[i][0];
	if (upto > p->mapped_to)
		sum += upto - p->mapped_to;
	return sum;
}

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void show_progress(void *arg, uint64_t done, uint64_t total)
{
	struct progress *p = arg;
	double secs = since(&p->start);
	uint64_t data = data_below(p, done), data_total = data_below(p, total);
	double rate = secs > 0 ? (double)data / secs : 0;
	double pct = total ? 100.0 * (double)done / (double)total : 100.0;
	char bar[31];
	int i, fill = (int)(pct * 30 / 100);
	long eta = rate > 0 ? (long)((double)(data_total - data) / rate) : -1;

	if (done >= total) {
		if (p->drew_full)
			return;
		p->drew_full = true;
	}
	if (!p->tty) {
		if (done < total && secs - p->last < 1.0)
			return;
		p->last = secs;
		fprintf(stderr,
			"copied %" PRIu64 " of %" PRIu64 " bytes (%.0f%%), "
			"data %" PRIu64 " of %" PRIu64 " bytes, %.1f MiB/s\n",
			done, total, pct, data, data_total, rate / 1048576);
		return;
	}
	for (i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : ' ';
	bar[30] = '\0';
	fprintf(stderr, "\r[%s] %3.0f%% %8.1f/%.1f MiB", bar, pct,
		(double)done / 1048576, (double)total / 1048576);
	if (data_total < total)
		fprintf(stderr, " (data %.1f MiB)",
			(double)data_total / 1048576);
	fprintf(stderr, " %7.1f MiB/s", rate / 1048576);
	if (eta >= 0 && done < total)
		fprintf(stderr, " ETA %ld:%02ld ", eta / 60, eta % 60);
	else
		fprintf(stderr, "          ");
}

static volatile int g_stop;

static void on_interrupt(int sig)
{
	g_stop = 1;
}

/* cp --async: COPY with ca_synchronous false; Ctrl-C cancels it. */
static int cp_async(const char *src, const char *dst, bool stats)
{
	struct nfs42_async_copy ac = { 0 };
	static struct progress p; /* MAP_MAX extents: not on the stack */
	struct sigaction sa = { .sa_handler = on_interrupt }, old_int;
	int rc;

	p.tty = isatty(2);
	map_data(src, &p);
	clock_gettime(CLOCK_MONOTONIC, &p.start);
	sigaction(SIGINT, &sa, &old_int);
	ac.poll_ms = 500;
	ac.stop = &g_stop;
	ac.progress = show_progress;
	ac.arg = &p;
	rc = nfs42_copy_file_async(g_cl, src, dst, &ac);
	sigaction(SIGINT, &old_int, NULL);
	if (p.tty && ac.went_async)
		fputc('\n', stderr);
	if (!rc && ac.cancelled) {
		fprintf(stderr, "nfs42: %s: copy cancelled\n", dst);
		return EXIT_NFS;
	}
	if (!rc && !ac.went_async)
		fprintf(stderr, "nfs42: %s: the server copied synchronously\n",
			dst);
	if (stats)
		print_cp_stats(ac.went_async ? "async" : "copy", &ac.stats);
	return rc ? fail_copy(src, dst, ac.stats.failed, rc) : 0;
}

/* cp: CLONE with --clone, else COPY or, without it, through the client. */

/* Which way a copy went, for cp --stats. */
static const char *path_name(const struct nfs42_copy_opts *co,
			     const struct nfs42_copy_stats *st)
{
	if (co->clone)
		return "clone";
	return st->via_client ? "client" : "copy";
}

/*
 * cp: CLONE with --clone, else COPY or, without it (or with --via-client),
 * through the client.  --stats: one line on stderr saying which way it
 * went, how many COPY/CLONE calls it took and their round trips.
 */
static int cmd_cp(struct nfs42_opts *o, const struct args *args)
{
	const char *src = args->word[0], *dst = args->word[1];
	struct nfs42_copy_opts co = { .clone = OPT(args, 'c') != NULL,
				      .via_client = OPT(args, 'v') != NULL };
	struct nfs42_copy_stats st;
	int rc;

	/* --async with --clone or --via-client: refused by check_verb() */
	if (OPT(args, 'a'))
		return cp_async(src, dst, OPT(args, 's') != NULL);
	rc = nfs42_copy_file_ex(g_cl, src, dst, &co, &st);
	if (st.via_client && !co.via_client)
		fprintf(stderr,
			"nfs42: %s: server COPY not supported, %s through the client\n",
			dst, rc ? "copy failed" : "copied");
	if (OPT(args, 's'))
		print_cp_stats(path_name(&co, &st), &st);
	return rc ? fail_copy(src, dst, st.failed, rc) : 0;
}

/* ---- xattr get|set|ls|rm (RFC 8276; names without "user.") ---- */

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

static int cmd_xattr_get(struct nfs42_opts *o, const struct args *args)
{
	const char *path = args->word[0], *out = OPT(args, 'o');
	uint8_t *value;
	uint32_t len;
	int fd = STDOUT_FILENO, rc;

	rc = nfs42_xattr_get(g_cl, path, args->word[1], &value, &len);
	if (rc)
		return fail_xattr(path, args->word[1], rc);
	if (out)
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, value, len) != (ssize_t)len) {
		fprintf(stderr, "nfs42: %s: %s\n", out ? out : "stdout",
			strerror(errno));
		rc = EXIT_USAGE;
	}
	if (out && fd >= 0)
		close(fd);
	free(value);
	return rc;
}

/* xattr set: VALUE, or the bytes of @FILE, read before connecting. */
static int prepare_xattr_set(struct args *a)
{
	const char *v = a->word[2];

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

static int cmd_xattr_set(struct nfs42_opts *o, const struct args *args)
{
	enum nfs42_setxattr_option opt = SETXATTR4_EITHER;
	int rc;

	/* --create with --replace: refused by check_verb() */
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

static int cmd_xattr_ls(struct nfs42_opts *o, const struct args *args)
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

static int cmd_xattr_rm(struct nfs42_opts *o, const struct args *args)
{
	int rc = nfs42_xattr_rm(g_cl, args->word[0], args->word[1], NULL);

	return rc ? fail_xattr(args->word[0], args->word[1], rc) : 0;
}

static int cmd_ping(struct nfs42_opts *o, const struct args *args)
{
	printf("%s:%u: ok (clientid 0x%016" PRIx64 ", %u slots)\n", o->host,
	       o->port, nfs42_clientid(g_cl), nfs42_slot_count(g_cl));
	return 0;
}

/*
 * The verbs: usage line, what it does.  The synopsis is also the shape
 * the arguments must have, checked before connecting (match_args()).
 */
struct verb {
	const char *name;
	int (*run)(struct nfs42_opts *o, const struct args *args);
	const char *synopsis;
	const char *help;
	/* local files, checked before connecting: 0 or the exit code */
	int (*prepare)(struct args *args);
};

static const struct verb verbs[] = {
	{ "ping", cmd_ping, "ping", "NULL RPC + session setup", NULL },
	{ "ls", cmd_ls, "ls [-l] PATH", "list a directory", NULL },
	{ "stat", cmd_stat, "stat PATH", "attributes (key: value)", NULL },
	{ "cat", cmd_cat,
	  "cat [-d DEPTH] [--read-plus] [--no-pnfs] [--stats] PATH [-o FILE]",
	  "file contents to stdout or FILE, DEPTH READs in flight "
	  "(default 8); --read-plus: READ_PLUS, holes kept in FILE; "
	  "through the data servers when the server gives a layout "
	  "(--no-pnfs: never); --stats: where the data came from",
	  NULL },
	{ "map", cmd_map, "map [-d DEPTH] PATH",
	  "data/hole layout from READ_PLUS: offset length data|hole", NULL },
	{ "put", cmd_put, "put [--no-pnfs] [--stats] LOCALFILE PATH",
	  "write a local file; only its data is sent, its holes stay holes; "
	  "through the data servers when the server gives a layout "
	  "(--no-pnfs: never)",
	  prepare_put },
	{ "layout", cmd_layout, "layout PATH",
	  "the file's pNFS layout and its data servers (LAYOUTGET, "
	  "GETDEVICEINFO)",
	  NULL },
	{ "mkdir", cmd_mkdir, "mkdir [-m MODE] PATH", "create a directory",
	  NULL },
	{ "rm", cmd_rm, "rm PATH", "remove a file", NULL },
	{ "rmdir", cmd_rmdir, "rmdir PATH", "remove an empty directory", NULL },
	{ "mv", cmd_mv, "mv FROM TO", "rename", NULL },
	{ "cp", cmd_cp,
	  "cp [--async] [--clone] [--via-client] [--stats] SRC DST",
	  "copy on the server: COPY (through the client if not "
	  "supported), --async: asynchronous COPY with progress (Ctrl-C "
	  "cancels), --clone: CLONE only, --via-client: READ + WRITE "
	  "by the client, no COPY; --stats: calls and round trips "
	  "on stderr",
	  NULL },
	{ "ln", cmd_ln, "ln [-s] TARGET PATH",
	  "hard link to TARGET (-s: symbolic link)", NULL },
	{ "readlink", cmd_readlink, "readlink PATH", "symlink target", NULL },
	{ "truncate", cmd_truncate, "truncate PATH SIZE", "set the size",
	  NULL },
	{ "chmod", cmd_chmod, "chmod MODE PATH", "set the mode (octal)", NULL },
	{ "seek", cmd_seek, "seek PATH OFFSET data|hole",
	  "next data or hole (SEEK)", NULL },
	{ "xattr get", cmd_xattr_get, "xattr get [-o FILE] PATH NAME",
	  "extended attribute user.NAME (GETXATTR): its bytes to stdout or "
	  "FILE",
	  NULL },
	{ "xattr set", cmd_xattr_set,
	  "xattr set [--create] [--replace] PATH NAME VALUE",
	  "set user.NAME (SETXATTR) to VALUE, or to the bytes of FILE for "
	  "@FILE; --create: must not exist, --replace: must exist",
	  prepare_xattr_set },
	{ "xattr ls", cmd_xattr_ls, "xattr ls [-n SIZE] PATH",
	  "user xattr names (LISTXATTRS, lxa_maxcount SIZE, default 4096, "
	  "following the cookies)",
	  NULL },
	{ "xattr rm", cmd_xattr_rm, "xattr rm PATH NAME",
	  "remove user.NAME (REMOVEXATTR)", NULL },
};

#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: nfs42 [-s host] [-p port] [-m 1|2] [-u uid -g gid]\n"
		"             [-G gid,...] [-t timeout_s] VERB ARGS\n"
		"       nfs42 --help | help VERB\n"
		"  -s    server (default 127.0.0.1)   -p  port (default 2049)\n"
		"  -m    NFSv4 minor version (default 2)\n"
		"  -u -g -G  AUTH_SYS uid, gid and groups (default 0, 0)\n"
		"  -t    timeout of the connection and each call, seconds\n"
		"verbs (their options in any order, before or after the rest;\n"
		"-- ends them):\n");
	for (i = 0; i < NVERBS; i++)
		fprintf(f, "  %-28s %s\n", verbs[i].synopsis, verbs[i].help);
	fprintf(f,
		"exit status: 0 ok, 1 NFS error, 2 bad arguments or a local\n"
		"file error, 3 connection or transport error\n"
		"environment: NFS42_HOST, NFS42_PORT give defaults for -s/-p\n");
}

static const struct verb *find_verb(const char *name)
{
	size_t i;

	for (i = 0; i < NVERBS; i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

/*
 * Whether word fits the synopsis item it stands for, storing its value:
 * MODE is octal (at most 07777), SIZE and OFFSET numbers, a|b one of the
 * words given; anything else (PATH, FILE...) a non-empty word.
 */
static bool match_word(const char *item, const char *word, struct args *a)
{
	size_t len = strlen(word), n;
	const char *p;
	uint64_t num;

	if (!strcmp(item, "MODE"))
		return parse_mode(word, &a->mode);
	if (!strcmp(item, "SIZE") || !strcmp(item, "OFFSET"))
		return parse_u64(word, &a->num);
	if (!strcmp(item, "DEPTH"))
		return parse_u64(word, &num) && num >= 1 && num <= DEPTH_MAX &&
		       (a->depth = num);
	if (strchr(item, '|') == NULL)
		return word[0] != '\0';
	for (p = item;; p += n + 1) {
		n = strcspn(p, "|");
		if (n == len && !strncmp(p, word, len))
			return true;
		if (p[n] == '\0')
			return false;
	}
}

/* One item of a synopsis: an option ("[-x]", "[-x ITEM]") or a word. */
struct syn_item {
	char name[32]; /* "-x", "--long", or the word's ITEM */
	char value[16]; /* an option's ITEM, "" for a flag */
	bool option;
};

/* The items of v's synopsis after the verb; their number. */
static int synopsis_items(const struct verb *v, struct syn_item *items, int max)
{
	char buf[128], *save = NULL, *it, *val;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", v->synopsis);
	strtok_r(buf, " ", &save); /* the verb */
	if (strchr(v->name, ' ')) /* "xattr get": two words */
		strtok_r(NULL, " ", &save);
	while ((it = strtok_r(NULL, " ", &save)) != NULL && n < max) {
		struct syn_item *si = &items[n++];

		memset(si, 0, sizeof(*si));
		if (it[0] != '[') {
			snprintf(si->name, sizeof(si->name), "%s", it);
			continue;
		}
		si->option = true;
		it++;
		val = NULL;
		if (it[strlen(it) - 1] != ']')
			val = strtok_r(NULL, " ", &save);
		if (val != NULL) {
			val[strlen(val) - 1] = '\0';
			snprintf(si->value, sizeof(si->value), "%s", val);
		} else {
			it[strlen(it) - 1] = '\0';
		}
		snprintf(si->name, sizeof(si->name), "%s", it);
	}
	return n;
}

/*
 * Match the words after the verb (argv[1..argc)) against the synopsis of
 * v: its options ("[-x]" a flag, "[-x ITEM]" one with a value) anywhere,
 * in any order, until "--"; the other words, in order, one for each
 * other item (see match_word()).  0 when they fit, -1 for too few or too
 * many words, else the index of the word that does not fit.
 */
static int match_args(const struct verb *v, int argc, char **argv,
		      struct args *a)
{
	struct syn_item items[12];
	int nitems = synopsis_items(v, items, 12);
	int i, j, next = 0; /* next: the item the next word is for */
	bool options = true;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		const char *w = argv[i];
		char key;

		if (options && !strcmp(w, "--")) {
			options = false;
			continue;
		}
		if (options && w[0] == '-' && w[1] != '\0') {
			for (j = 0; j < nitems; j++)
				if (items[j].option &&
				    !strcmp(items[j].name, w))
					break;
			if (j == nitems)
				return i;
			/* the key: -x or --x... */
			key = w[1] == '-' ? w[2] : w[1];
			OPT(a, key) = w;
			if (!items[j].value[0])
				continue;
			if (++i >= argc)
				return -1;
			if (!match_word(items[j].value, argv[i], a))
				return i;
			OPT(a, key) = argv[i];
			continue;
		}
		while (next < nitems && items[next].option)
			next++;
		if (next == nitems)
			return -1;
		if (!match_word(items[next].name, w, a))
			return i;
		a->word[a->nwords++] = w;
		next++;
	}
	while (next < nitems && items[next].option)
		next++;
	return next == nitems ? 0 : -1;
}

/* The verb of argv[0] if its arguments fit, else NULL (told). */
static const struct verb *check_verb(int argc, char **argv, struct args *a)
{
	const struct verb *v = find_verb(argv[0]);
	char two[32];
	int bad;

	/* "xattr SUB": the verb is both words, the arguments follow SUB */
	if (v == NULL && !strcmp(argv[0], "xattr") && argc > 1) {
		snprintf(two, sizeof(two), "xattr %s", argv[1]);
		v = find_verb(two);
		if (v != NULL) {
			argc--;
			argv++;
		}
	}

	if (v == NULL) {
		fprintf(stderr, "nfs42: unknown verb '%s'\n", argv[0]);
		usage(stderr);
		return NULL;
	}
	bad = match_args(v, argc, argv, a);
	if (bad == 0 && v->run == cmd_xattr_set && OPT(a, 'c') && OPT(a, 'r')) {
		fprintf(stderr, "nfs42: --create and --replace exclude "
				"each other\n");
		return NULL;
	}
	if (bad == 0 && v->run == cmd_cp && OPT(a, 'a') &&
	    (OPT(a, 'c') || OPT(a, 'v'))) {
		fprintf(stderr, "nfs42: cp: --async goes with neither --clone "
				"nor --via-client\n");
		return NULL;
	}
	if (bad == 0)
		return v;
	if (bad < 0)
		fprintf(stderr, "nfs42: wrong number of arguments for %s\n",
			v->name);
	else if (argv[bad][0] == '-' && argv[bad - 1][0] != '-')
		fprintf(stderr, "nfs42: unknown option '%s' for %s\n",
			argv[bad], v->name);
	else
		fprintf(stderr, "nfs42: bad argument '%s' for %s\n", argv[bad],
			v->name);
	fprintf(stderr, "usage: nfs42 [options] %s\n", v->synopsis);
	return NULL;
}

/* Print a verb's usage and what it does, wrapped. */
static void verb_help(const struct verb *v)
{
	const char *p = v->help;
	int col, n;

	printf("usage: nfs42 [options] %s\n ", v->synopsis);
	col = 1;
	while (*p) {
		n = strcspn(p, " ");
		if (col + 1 + n > 76) {
			printf("\n ");
			col = 1;
		}
		printf(" %.*s", n, p);
		col += 1 + n;
		p += n;
		while (*p == ' ')
			p++;
	}
	printf("\n");
}

/* nfs42 help [VERB [SUB]]: the verbs that start with the words given. */
static int cmd_help(int argc, char **argv)
{
	char want[64] = "";
	size_t i, len, shown = 0;

	if (argc == 1) {
		usage(stdout);
		return 0;
	}
	snprintf(want, sizeof(want), "%s%s%s", argv[1], argc > 2 ? " " : "",
		 argc > 2 ? argv[2] : "");
	len = strlen(want);
	for (i = 0; i < NVERBS; i++) {
		if (strncmp(verbs[i].name, want, len) ||
		    (verbs[i].name[len] != '\0' && verbs[i].name[len] != ' '))
			continue;
		verb_help(&verbs[i]);
		shown++;
	}
	if (shown && argc <= 3)
		return 0;
	fprintf(stderr, "nfs42: no verb '%s'; nfs42 --help lists them\n", want);
	return EXIT_USAGE;
}

/* A whole decimal number in [min, max], digits only; 0 or -1. */
static int parse_ulong(const char *s, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1; /* strtoul would take a sign or blanks */
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || *end || *out < min || *out > max)
		return -1;
	return 0;
}

/* -G: gids separated by commas. */
static int parse_gids(struct nfs42_opts *o, const char *s)
{
	unsigned long num;
	char tok[16];
	size_t len;

	o->ngids = 0;
	do {
		len = strcspn(s, ",");
		if (len >= sizeof(tok) || o->ngids == NFS42_MAX_GIDS)
			return -1;
		memcpy(tok, s, len);
		tok[len] = '\0';
		if (parse_ulong(tok, 0, UINT32_MAX, &num))
			return -1;
		o->gids[o->ngids++] = num;
		s += len;
	} while (*s++ == ',');
	return 0;
}

/* optarg as a number in [min, max], or false with a usage message. */
static bool number_option(const char *what, unsigned long min,
			  unsigned long max, unsigned long *num)
{
	if (parse_ulong(optarg, min, max, num) == 0)
		return true;
	fprintf(stderr, "nfs42: bad %s '%s'\n", what, optarg);
	return false;
}

/* Options into o, leaving optind at the verb; 0 or EXIT_USAGE. */
static int parse_options(struct nfs42_opts *o, int argc, char **argv)
{
	unsigned long num;
	int ch;

	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};

	while ((ch = getopt_long(argc, argv, "+s:p:m:u:g:G:t:h", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 's':
			o->host = optarg;
			break;
		case 'p':
			if (!number_option("port", 1, UINT16_MAX, &num))
				return EXIT_USAGE;
			o->port = num;
			break;
		case 'm':
			if (!number_option("minor version", 1, 2, &num))
				return EXIT_USAGE;
			o->minorversion = num;
			break;
		case 'u':
			if (!number_option("uid", 0, UINT32_MAX, &num))
				return EXIT_USAGE;
			o->uid = num;
			break;
		case 'g':
			if (!number_option("gid", 0, UINT32_MAX, &num))
				return EXIT_USAGE;
			o->gid = num;
			break;
		case 'G':
			if (parse_gids(o, optarg)) {
				fprintf(stderr, "nfs42: bad gid list '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			if (!number_option("timeout", 1, INT_MAX / 1000, &num))
				return EXIT_USAGE;
			o->timeout_ms = num * 1000;
			o->connect_timeout_ms = o->timeout_ms;
			break;
		case 'h':
			usage(stdout);
			return EXIT_HELP;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct verb *verb;
	struct nfs42_opts o;
	struct args args;
	int rc;

	/*
	 * Each READ reply is a fresh ~1 MiB buffer: keep freed ones in the
	 * heap instead of mmap/munmap (or trimming) each time, which costs
	 * a page fault and a cleared page per 4 KiB (client system time
	 * 0.45 s -> 0.20 s for 1 GiB at depth 8).
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	rc = parse_options(&o, argc, argv);
	if (rc)
		return rc == EXIT_HELP ? 0 : rc;
	if (!strcmp(argv[optind], "help"))
		return cmd_help(argc - optind, argv + optind);
	/* Usage errors, and local files, are told before any connection is
	 * tried. */
	verb = check_verb(argc - optind, argv + optind, &args);
	if (verb == NULL)
		return EXIT_USAGE;
	if (verb->prepare) {
		rc = verb->prepare(&args);
		if (rc)
			return rc;
	}
	o.no_back_channel = false;
	if (args.depth > o.slots)
		o.slots = args.depth; /* one slot per READ in flight */
	rc = nfs42_connect(&o, &g_cl);
	if (!rc)
		rc = nfs42_null(g_cl);
	if (!rc)
		rc = nfs42_session_create(g_cl);
	if (rc) {
		rc = fail("session", rc);
	} else {
		rc = verb->run(&o, &args);
		fflush(stdout);
	}
	nfs42_client_free(g_cl);
	/* what prepare() got: the local file, the xattr value */
	if (verb->prepare == prepare_put)
		close(args.local_fd);
	free(args.value);
	return rc;
}
