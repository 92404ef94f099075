/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* Convenience layer: paths, whole-file I/O, namespace operations. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* Ops per walk compound beyond PUTROOTFH/PUTFH + GETFH + GETATTR */
static uint32_t walk_chunk(const struct nfs42_client *cl)
{
	uint32_t maxops = cl->maxops ? cl->maxops : NFS42_MAX_OPS_DEFAULT;

	return maxops > 8 ? maxops - 4 : 4;
}

static bool is_dot(const char *s, size_t n)
{
	return n == 1 && s[0] == '.';
}

static bool is_dotdot(const char *s, size_t n)
{
	return n == 2 && s[0] == '.' && s[1] == '.';
}

/* Add a LOOKUP/LOOKUPP for component [s, s+n). */
static void add_component(struct nfs42_compound *c, const char *s, size_t n)
{
	char name[1024];

	if (is_dotdot(s, n)) {
		nfs42_op_lookupp(c);
		return;
	}
	if (n >= sizeof(name))
		n = sizeof(name) - 1; /* the server will answer NAMETOOLONG */
	memcpy(name, s, n);
	name[n] = '\0';
	nfs42_op_lookup(c, name);
}

/* Next component of *p; returns its length (0 at the end). */
static size_t next_component(const char **p, const char **start)
{
	const char *s = *p;
	size_t n;

	for (;;) {
		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (!is_dot(s, n))
			break;
		s += n;
	}
	*start = s;
	*p = s + n;
	return n;
}

/* Start a compound at fh: PUTFH(fh). NULL when out of memory. */
static struct nfs42_compound *fh_compound(struct nfs42_client *cl,
					  const struct nfs42_fh *fh)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);

	if (c)
		nfs42_op_putfh(c, fh);
	return c;
}

/* Run c, free it and return the status of the run. */
static int run_and_free(struct nfs42_compound *c)
{
	int rc = nfs42_compound_run(c);

	nfs42_compound_free(c);
	return rc;
}

static int finish_walk(struct nfs42_compound *c, int fhidx, int attridx,
		       struct nfs42_fh *fh, struct nfs42_attrs *attrs)
{
	const struct nfs42_res *r = nfs42_res(c, fhidx);

	if (!r)
		return -EBADMSG;
	*fh = r->u.fh;
	if (attrs && attridx >= 0) {
		r = nfs42_res(c, attridx);
		if (!r)
			return -EBADMSG;
		*attrs = *r->u.getattr;
	}
	return 0;
}

int nfs42_lookup_path(struct nfs42_client *cl, const char *path,
		      struct nfs42_fh *fh, struct nfs42_attrs *attrs)
{
	struct nfs42_bitmap bm = nfs42_bm_stat();
	struct nfs42_compound *c;
	struct nfs42_fh cur, *out = fh ? fh : &cur;
	const char *p = path, *s;
	bool first = true;
	uint32_t k;
	size_t n;
	int rc, fhidx, attridx;

	if (!path || path[0] != '/')
		return NFS4ERR_INVAL;
	do {
		c = nfs42_compound_new(cl);
		if (!c)
			return -ENOMEM;
		if (first)
			nfs42_op_putrootfh(c);
		else
			nfs42_op_putfh(c, out);
		for (k = 0; k < walk_chunk(cl); k++) {
			n = next_component(&p, &s);
			if (!n)
				break;
			add_component(c, s, n);
		}
		n = next_component(&p, &s);
		p = s; /* peek only */
		fhidx = nfs42_op_getfh(c);
		attridx = n || !attrs ? -1 : nfs42_op_getattr(c, &bm);
		rc = nfs42_compound_run(c);
		if (!rc)
			rc = finish_walk(c, fhidx, attridx, out, attrs);
		nfs42_compound_free(c);
		first = false;
	} while (!rc && n);
	return rc;
}

int nfs42_stat(struct nfs42_client *cl, const char *path,
	       struct nfs42_attrs *attrs)
{
	return nfs42_lookup_path(cl, path, NULL, attrs);
}

int nfs42_getattr_fh(struct nfs42_client *cl, const struct nfs42_fh *fh,
		     const struct nfs42_bitmap *bm, struct nfs42_attrs *attrs)
{
	struct nfs42_compound *c = fh_compound(cl, fh);
	struct nfs42_bitmap stat_bm = nfs42_bm_stat();
	int rc, idx;

	if (!c)
		return -ENOMEM;
	idx = nfs42_op_getattr(c, bm ? bm : &stat_bm);
	rc = nfs42_compound_run(c);
	if (!rc)
		*attrs = *nfs42_res(c, idx)->u.getattr;
	nfs42_compound_free(c);
	return rc;
}

int nfs42_split_path(const char *path, char **parent, const char **name)
{
	size_t len = strlen(path);
	const char *slash;
	char *dup;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (path[0] != '/')
		return NFS4ERR_INVAL;
	dup = strndup(path, len);
	if (!dup)
		return -ENOMEM;
	slash = strrchr(dup, '/');
	if (!slash[1]) {
		free(dup);
		return NFS4ERR_INVAL; /* "/" has no parent */
	}
	*name = path + (slash - dup) + 1;
	dup[slash == dup ? 1 : slash - dup] = '\0';
	*parent = dup;
	return 0;
}

/* Walk to the parent of path; *name points into path (may keep a trailing
 * slash, which LOOKUP-free ops do not want: see clean_name). */
static int walk_parent(struct nfs42_client *cl, const char *path,
		       struct nfs42_fh *dir, char *name, size_t namesz)
{
	const char *last;
	char *parent;
	size_t n;
	int rc;

	rc = nfs42_split_path(path, &parent, &last);
	if (rc)
		return rc;
	n = strcspn(last, "/");
	if (n >= namesz) {
		free(parent);
		return NFS4ERR_NAMETOOLONG;
	}
	memcpy(name, last, n);
	name[n] = '\0';
	rc = nfs42_lookup_path(cl, parent, dir, NULL);
	free(parent);
	return rc;
}

/* ------------------------------------------------------------- readdir */

static bool is_dot_entry(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..");
}

static uint32_t readdir_maxcount(const struct nfs42_client *cl)
{
	uint32_t max = cl->maxresp ? cl->maxresp - 512 : 32768;

	return max > 65536 ? 65536 : max;
}

int nfs42_readdir_fh(struct nfs42_client *cl, const struct nfs42_fh *dir,
		     const struct nfs42_bitmap *bm, nfs42_readdir_fn fn,
		     void *arg)
{
	uint8_t verf[NFS4_VERIFIER_SIZE] = { 0 };
	const struct nfs42_res *r;
	struct nfs42_compound *c;
	uint64_t cookie = 0;
	bool eof = false;
	uint32_t i;
	int rc = 0, idx;

	while (!eof && !rc) {
		c = fh_compound(cl, dir);
		if (!c)
			return -ENOMEM;
		idx = nfs42_op_readdir(c, cookie, verf, readdir_maxcount(cl),
				       readdir_maxcount(cl), bm);
		rc = nfs42_compound_run(c);
		r = nfs42_res(c, idx);
		if (!rc && r) {
			for (i = 0; i < r->u.readdir.n && !rc; i++) {
				cookie = r->u.readdir.entries[i].cookie;
				if (!is_dot_entry(r->u.readdir.entries[i].name))
					rc = fn(arg, &r->u.readdir.entries[i]);
			}
			memcpy(verf, r->u.readdir.cookieverf, sizeof(verf));
			eof = r->u.readdir.eof;
			if (!eof && !r->u.readdir.n) {
				nfs42_set_error(cl, "READDIR: no progress");
				rc = -EIO;
			}
		}
		nfs42_compound_free(c);
	}
	return rc;
}

int nfs42_readdir_path(struct nfs42_client *cl, const char *path,
		       const struct nfs42_bitmap *bm, nfs42_readdir_fn fn,
		       void *arg)
{
	struct nfs42_fh fh;
	int rc = nfs42_lookup_path(cl, path, &fh, NULL);

	return rc ? rc : nfs42_readdir_fh(cl, &fh, bm, fn, arg);
}

/* ------------------------------------------------------------ open/io */

static void new_owner(struct nfs42_client *cl, struct nfs42_file *f)
{
	uint64_t n;

	pthread_mutex_lock(&cl->lock);
	n = ++cl->owner_seq;
	pthread_mutex_unlock(&cl->lock);
	snprintf(f->owner, sizeof(f->owner), "nfs42c-open-%llu",
		 (unsigned long long)n);
}

/* What a delegation of type t lets its holder do: OPEN_DELEGATE_READ,
 * _WRITE (with the timestamps delegated or not), or _NONE. */
static uint32_t deleg_access(uint32_t t)
{
	switch (t) {
	case OPEN_DELEGATE_READ:
	case OPEN_DELEGATE_READ_ATTRS_DELEG:
		return OPEN_DELEGATE_READ;
	case OPEN_DELEGATE_WRITE:
	case OPEN_DELEGATE_WRITE_ATTRS_DELEG:
		return OPEN_DELEGATE_WRITE;
	default:
		return OPEN_DELEGATE_NONE;
	}
}

static int run_open(struct nfs42_client *cl, const struct nfs42_fh *fh,
		    struct nfs42_open_args *a, struct nfs42_file *f)
{
	/* the times too: a delegation with the timestamps (RFC 9754) owns
	 * them from the grant */
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_CHANGE, FATTR4_SIZE,
					       FATTR4_TIME_ACCESS,
					       FATTR4_TIME_MODIFY, -1);
	struct nfs42_compound *c = fh_compound(cl, fh);
	struct nfs42_attrs at = { 0 };
	int rc, oidx, fhidx, aidx = -1;

	if (!c)
		return -ENOMEM;
	f->cl = cl;
	f->share_access = a->share_access & OPEN4_SHARE_ACCESS_BOTH;
	new_owner(cl, f);
	a->owner = f->owner;
	a->owner_len = strlen(f->owner);
	oidx = nfs42_op_open(c, a);
	fhidx = nfs42_op_getfh(c);
	/* an open for writing may get a write delegation: its change
	 * attribute and size then, for CB_GETATTR (RFC 8881 10.4.3) */
	if (a->share_access & OPEN4_SHARE_ACCESS_WRITE)
		aidx = nfs42_op_getattr(c, &bm);
	rc = nfs42_compound_run(c);
	if (!rc) {
		f->stateid = nfs42_res(c, oidx)->u.open.stateid;
		f->fh = nfs42_res(c, fhidx)->u.fh;
		f->deleg_type = nfs42_res(c, oidx)->u.open.deleg_type;
		f->deleg_stateid = nfs42_res(c, oidx)->u.open.deleg_stateid;
		f->why_no_deleg = nfs42_res(c, oidx)->u.open.why_no_deleg;
		f->rflags = nfs42_res(c, oidx)->u.open.rflags;
		if (f->rflags & OPEN4_RESULT_NO_OPEN_STATEID)
			f->stateid = f->deleg_stateid;
		if (aidx >= 0 && nfs42_res(c, aidx)->u.getattr)
			at = *nfs42_res(c, aidx)->u.getattr;
	}
	nfs42_compound_free(c);
	if (!rc && deleg_access(f->deleg_type) != OPEN_DELEGATE_NONE)
		nfs42_deleg_granted(cl, &f->fh, &f->deleg_stateid,
				    f->deleg_type, &at);
	return rc;
}

int nfs42_open(struct nfs42_client *cl, const char *path, uint32_t share_access,
	       int createmode, uint32_t mode, bool truncate,
	       struct nfs42_file *f)
{
	struct nfs42_open_args a = { 0 };
	struct nfs42_sattr sa;
	struct nfs42_fh dir;
	char name[1024];
	struct timespec ts;
	int rc;

	rc = walk_parent(cl, path, &dir, name, sizeof(name));
	if (rc)
		return rc;
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, mode);
	if (truncate && createmode != EXCLUSIVE4_1)
		nfs42_sattr_size(&sa, 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	memcpy(a.verifier, &ts.tv_nsec, 4);
	memcpy(a.verifier + 4, &ts.tv_sec, 4);
	a.share_access = share_access;
	a.share_deny = OPEN4_SHARE_DENY_NONE;
	a.createmode = createmode;
	a.attrs = &sa;
	a.claim = CLAIM_NULL;
	a.name = name;
	rc = run_open(cl, &dir, &a, f);
	if (!rc && truncate && createmode == NFS42_NOCREATE) {
		nfs42_sattr_init(&sa);
		nfs42_sattr_size(&sa, 0);
		rc = nfs42_file_setattr(f, &sa);
		if (rc)
			nfs42_close(f);
	}
	return rc;
}

int nfs42_file_setattr(struct nfs42_file *f, const struct nfs42_sattr *sa)
{
	struct nfs42_compound *c = fh_compound(f->cl, &f->fh);

	if (!c)
		return -ENOMEM;
	nfs42_op_setattr(c, &f->stateid, sa);
	return run_and_free(c);
}

int nfs42_open_fh(struct nfs42_client *cl, const struct nfs42_fh *fh,
		  uint32_t share_access, struct nfs42_file *f)
{
	struct nfs42_open_args a = { 0 };

	a.share_access = share_access;
	a.createmode = NFS42_NOCREATE;
	a.claim = CLAIM_FH;
	return run_open(cl, fh, &a, f);
}

int nfs42_close(struct nfs42_file *f)
{
	struct nfs42_compound *c;

	if (f->rflags & OPEN4_RESULT_NO_OPEN_STATEID)
		return 0; /* no open to close: the delegation is returned */
	c = fh_compound(f->cl, &f->fh);
	if (!c)
		return -ENOMEM;
	nfs42_op_close(c, 0, &f->stateid);
	return run_and_free(c);
}

int nfs42_pread(struct nfs42_file *f, void *buf, uint32_t count,
		uint64_t offset, uint32_t *nread, bool *eof)
{
	struct nfs42_compound *c = fh_compound(f->cl, &f->fh);
	const struct nfs42_res *r;
	int rc, idx;

	if (!c)
		return -ENOMEM;
	if (count > nfs42_io_size(f->cl))
		count = nfs42_io_size(f->cl);
	idx = nfs42_op_read(c, &f->stateid, offset, count);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (!rc && r->u.read.len > count) {
		nfs42_set_error(f->cl, "READ returned more than asked");
		rc = -EBADMSG;
	}
	if (!rc) {
		memcpy(buf, r->u.read.data, r->u.read.len);
		*nread = r->u.read.len;
		*eof = r->u.read.eof;
	}
	nfs42_compound_free(c);
	return rc;
}

static int write_once(struct nfs42_file *f, const void *buf, uint32_t count,
		      uint64_t offset, enum nfs42_stable_how stable,
		      uint32_t *written)
{
	struct nfs42_compound *c = fh_compound(f->cl, &f->fh);
	int rc, idx;

	if (!c)
		return -ENOMEM;
	idx = nfs42_op_write(c, &f->stateid, offset, stable, buf, count);
	rc = nfs42_compound_run(c);
	if (!rc)
		*written = nfs42_res(c, idx)->u.write.count;
	nfs42_compound_free(c);
	return rc;
}

int nfs42_pwrite(struct nfs42_file *f, const void *buf, size_t count,
		 uint64_t offset, enum nfs42_stable_how stable)
{
	const uint8_t *p = buf;
	uint32_t chunk, done;
	int rc;

	while (count) {
		chunk = count > nfs42_io_size(f->cl) ? nfs42_io_size(f->cl) :
						       count;
		rc = write_once(f, p, chunk, offset, stable, &done);
		if (rc)
			return rc;
		if (!done || done > chunk) {
			nfs42_set_error(f->cl, "WRITE made no progress");
			return -EIO;
		}
		p += done;
		offset += done;
		count -= done;
	}
	return 0;
}

int nfs42_commit(struct nfs42_file *f)
{
	struct nfs42_compound *c = fh_compound(f->cl, &f->fh);

	if (!c)
		return -ENOMEM;
	nfs42_op_commit(c, 0, 0);
	return run_and_free(c);
}

int nfs42_seek(struct nfs42_file *f, uint64_t offset, enum nfs42_content what,
	       uint64_t *result, bool *eof)
{
	struct nfs42_compound *c = fh_compound(f->cl, &f->fh);
	const struct nfs42_res *r;
	int rc, idx;

	if (!c)
		return -ENOMEM;
	idx = nfs42_op_seek(c, &f->stateid, offset, what);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (!rc) {
		*result = r->u.seek.offset;
		*eof = r->u.seek.eof;
	}
	nfs42_compound_free(c);
	return rc;
}

/*
 * The next data extent [*d, *h) at or after off, clipped to size; *d ==
 * size when there is none.  Without SEEK (NFSv4.1, NOTSUPP) all is data.
 */
int nfs42_next_data(struct nfs42_file *sf, uint64_t off, uint64_t size,
		    uint64_t *d, uint64_t *h)
{
	bool eof;
	int rc;

	rc = nfs42_seek(sf, off, NFS4_CONTENT_DATA, d, &eof);
	if (rc == NFS4ERR_NXIO) {
		*d = *h = size;
		return 0;
	}
	if (rc == NFS4ERR_NOTSUPP || rc == NFS4ERR_OP_ILLEGAL) {
		*d = off;
		*h = size;
		return 0;
	}
	if (rc)
		return rc;
	if (*d < off || *d >= size) {
		*d = *h = size;
		return 0;
	}
	rc = nfs42_seek(sf, *d, NFS4_CONTENT_HOLE, h, &eof);
	if (rc == NFS4ERR_NXIO || (!rc && (*h <= *d || *h > size))) {
		*h = size;
		rc = 0;
	}
	return rc;
}

/* ------------------------------------------------------ whole files */

typedef int (*sink_fn)(void *arg, const void *data, size_t len);

static int read_all_to(struct nfs42_client *cl, const char *path, sink_fn sink,
		       void *arg, uint64_t *total)
{
	struct nfs42_file f;
	uint32_t sz = nfs42_io_size(cl), n;
	uint64_t off = 0;
	bool eof = false;
	void *buf;
	int rc, rc2;

	buf = malloc(sz);
	if (!buf)
		return -ENOMEM;
	rc = nfs42_open(cl, path, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE, 0,
			false, &f);
	if (rc) {
		free(buf);
		return rc;
	}
	while (!rc && !eof) {
		rc = nfs42_pread(&f, buf, sz, off, &n, &eof);
		if (!rc && n)
			rc = sink(arg, buf, n);
		if (!rc)
			off += n;
		if (!rc && !n && !eof) {
			nfs42_set_error(cl, "READ returned 0 bytes, no eof");
			rc = -EIO;
		}
	}
	if (total)
		*total = off;
	free(buf);
	rc2 = nfs42_close(&f);
	return rc ? rc : rc2;
}

struct membuf {
	uint8_t *p;
	size_t len, cap;
};

static int mem_sink(void *arg, const void *data, size_t len)
{
	struct membuf *m = arg;
	uint8_t *np;
	size_t cap;

	if (m->len + len > m->cap) {
		cap = m->cap ? m->cap : 65536;
		while (cap < m->len + len)
			cap *= 2;
		np = realloc(m->p, cap);
		if (!np)
			return -ENOMEM;
		m->p = np;
		m->cap = cap;
	}
	memcpy(m->p + m->len, data, len);
	m->len += len;
	return 0;
}

int nfs42_fd_write_all(int fd, const void *data, size_t len)
{
	const uint8_t *p = data;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

static int fd_sink(void *arg, const void *data, size_t len)
{
	return nfs42_fd_write_all(*(int *)arg, data, len);
}

int nfs42_read_file(struct nfs42_client *cl, const char *path, void **buf,
		    size_t *len)
{
	struct membuf m = { 0 };
	int rc;

	memset(&m, 0, sizeof(m));
	rc = read_all_to(cl, path, mem_sink, &m, NULL);
	if (rc) {
		free(m.p);
		return rc;
	}
	if (!m.p)
		m.p = malloc(1);
	*buf = m.p;
	*len = m.len;
	return m.p ? 0 : -ENOMEM;
}

int nfs42_read_file_fd(struct nfs42_client *cl, const char *path, int fd,
		       uint64_t *total)
{
	return read_all_to(cl, path, fd_sink, &fd, total);
}

static int write_finish(struct nfs42_file *f, int rc)
{
	int rc2;

	if (!rc)
		rc = nfs42_commit(f);
	rc2 = nfs42_close(f);
	return rc ? rc : rc2;
}

int nfs42_write_file(struct nfs42_client *cl, const char *path, const void *buf,
		     size_t len, uint32_t mode)
{
	struct nfs42_file f;
	int rc;

	rc = nfs42_open(cl, path, OPEN4_SHARE_ACCESS_WRITE, UNCHECKED4, mode,
			true, &f);
	if (rc)
		return rc;
	return write_finish(&f, nfs42_pwrite(&f, buf, len, 0, UNSTABLE4));
}

/* pread(2) all of [off, off + len) of fd; bytes read (fewer at its end)
 * or -errno */
static ssize_t pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = pread(fd, (char *)buf + got, len - got, off + got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

/*
 * A regular file's WRITEs through the metadata server, several in flight
 * (PUT_DEPTH, at most the session's slots), each from a buffer of its own:
 * one at a time left the link idle for every reply and the server's pwrite
 * (0.76-0.87 of a 1 Gbit/s link where reads, 8 in flight, filled 0.99;
 * the data servers' writes were in flight already, issue #26).  A ring:
 * n WRITEs started from w[head], answered in the order they were sent.
 */
#define PUT_DEPTH 4

struct put_write {
	struct nfs42_compound *c;
	int idx;
	uint64_t off;
	uint32_t len;
	uint8_t *buf;
};

struct put_pipe {
	struct nfs42_file *f;
	struct put_write w[PUT_DEPTH];
	uint32_t depth, head, n;
};

static int put_pipe_init(struct put_pipe *pp, struct nfs42_file *f, uint32_t sz)
{
	uint32_t i;

	memset(pp, 0, sizeof(*pp));
	pp->f = f;
	pp->depth = nfs42_slot_count(f->cl);
	if (pp->depth > PUT_DEPTH)
		pp->depth = PUT_DEPTH;
	if (pp->depth < 1)
		pp->depth = 1;
	for (i = 0; i < pp->depth; i++) {
		pp->w[i].buf = malloc(sz);
		if (!pp->w[i].buf)
			return -ENOMEM;
	}
	return 0;
}

/* The oldest WRITE's reply; a short one's rest written now, before any
 * later reply is taken (at its own offsets: the order does not matter). */
static int put_finish_oldest(struct put_pipe *pp)
{
	struct put_write *w = &pp->w[pp->head];
	const struct nfs42_res *r;
	uint32_t done = 0;
	int rc = nfs42_compound_finish(w->c);

	r = nfs42_res(w->c, w->idx);
	if (!rc && (!r || r->u.write.count == 0 || r->u.write.count > w->len)) {
		nfs42_set_error(pp->f->cl, "WRITE made no progress");
		rc = -EIO;
	}
	if (!rc)
		done = r->u.write.count;
	nfs42_compound_free(w->c);
	w->c = NULL;
	pp->head = (pp->head + 1) % pp->depth;
	pp->n--;
	if (!rc && done < w->len)
		rc = nfs42_pwrite(pp->f, w->buf + done, w->len - done,
				  w->off + done, UNSTABLE4);
	return rc;
}

/* Every WRITE answered: the first failure (the others still taken). */
static int put_drain(struct put_pipe *pp, int rc)
{
	int rc2;

	while (pp->n > 0) {
		rc2 = put_finish_oldest(pp);
		if (!rc)
			rc = rc2;
	}
	return rc;
}

static void put_pipe_free(struct put_pipe *pp)
{
	uint32_t i;

	(void)put_drain(pp, 0);
	for (i = 0; i < pp->depth; i++)
		free(pp->w[i].buf);
}

/* [d, h) of fd (at most to end) to f at the same offsets; *end_read: the
 * offset reading stopped at (fd's end, if it shrank) */
static int put_range(struct put_pipe *pp, int fd, uint64_t d, uint64_t h,
		     uint32_t sz, struct nfs42_put_result *r,
		     uint64_t *end_read)
{
	struct put_write *w;
	ssize_t n;
	int rc;

	while (d < h) {
		if (pp->n == pp->depth) {
			rc = put_finish_oldest(pp);
			if (rc)
				return rc;
		}
		w = &pp->w[(pp->head + pp->n) % pp->depth];
		n = pread_full(fd, w->buf, h - d < sz ? h - d : sz, d);
		if (n < 0) {
			r->local_errno = -n;
			return n;
		}
		if (n == 0)
			break;
		w->c = fh_compound(pp->f->cl, &pp->f->fh);
		if (!w->c)
			return -ENOMEM;
		w->off = d;
		w->len = (uint32_t)n;
		w->idx = nfs42_op_write(w->c, &pp->f->stateid, d, UNSTABLE4,
					w->buf, w->len);
		rc = nfs42_compound_start(w->c);
		if (rc) {
			nfs42_compound_free(w->c);
			w->c = NULL;
			return rc;
		}
		pp->n++;
		r->sent += n;
		d += n;
	}
	*end_read = d;
	return 0;
}

/* A regular file's data extents, then its size (the file was truncated
 * when opened: what is not written is a hole). */
static int put_extents(struct nfs42_file *f, int fd, uint64_t size, uint32_t sz,
		       struct nfs42_put_result *r)
{
	uint64_t off = 0, end = 0;
	struct nfs42_sattr sa;
	struct put_pipe pp;
	off_t d, h;
	int rc;

	rc = put_pipe_init(&pp, f, sz);
	while (!rc && off < size) {
		d = lseek(fd, off, SEEK_DATA);
		if (d < 0 && errno == ENXIO)
			break; /* nothing but a hole to the end */
		if (d < 0) {
			r->local_errno = errno;
			rc = -errno;
			break;
		}
		if ((uint64_t)d >= size)
			break;
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0 || (uint64_t)h > size)
			h = size;
		rc = put_range(&pp, fd, d, h, sz, r, &end);
		if (rc)
			break;
		if (end < (uint64_t)h) {
			size = end; /* it shrank while we read */
			break;
		}
		off = h;
	}
	rc = put_drain(&pp, rc);
	put_pipe_free(&pp);
	if (rc)
		return rc;
	r->size = size;
	if (end == size)
		return 0;
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, size);
	return nfs42_file_setattr(f, &sa);
}

/* read(2) until len bytes or the end of fd; bytes read or -errno */
static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

/* Anything else: read to its end, in order; the first head bytes are
 * in buf already. */
static int put_stream(struct nfs42_file *f, int fd, void *buf, uint32_t sz,
		      ssize_t head, struct nfs42_put_result *r)
{
	uint64_t off = 0;
	ssize_t n = head;
	int rc;

	while (n > 0) {
		rc = nfs42_pwrite(f, buf, n, off, UNSTABLE4);
		if (rc)
			return rc;
		r->sent += n;
		off += n;
		r->size = off;
		if ((size_t)n < sz)
			return 0; /* the end came */
		n = read_full(fd, buf, sz);
	}
	if (n < 0)
		r->local_errno = -n;
	return n;
}

/*
 * Before the remote file is opened (and truncated), read the start of
 * fd: a stream's first block (consumed: put_stream sends it), or a
 * regular file's first byte of data (pread).  A source that cannot be
 * read then changes nothing on the server.  *head: the stream's bytes.
 */
static int check_source(int fd, bool stream, void *buf, uint32_t sz,
			ssize_t *head, struct nfs42_put_result *r)
{
	off_t d;

	if (stream) {
		*head = read_full(fd, buf, sz);
		if (*head >= 0)
			return 0;
		r->local_errno = -*head;
		return *head;
	}
	d = lseek(fd, 0, SEEK_DATA);
	if (d < 0 && errno == ENXIO)
		return 0; /* a hole to the end */
	if (d < 0)
		d = 0; /* no SEEK_DATA here: the start */
	if (pread(fd, buf, 1, d) >= 0)
		return 0;
	r->local_errno = errno;
	return -errno;
}

int nfs42_write_file_fd(struct nfs42_client *cl, const char *path, int fd,
			uint32_t mode, struct nfs42_put_result *r)
{
	struct nfs42_put_result mine;
	uint32_t sz = nfs42_io_size(cl);
	struct nfs42_file f;
	ssize_t head = 0;
	struct stat st;
	bool stream;
	void *buf;
	int rc;

	if (!r)
		r = &mine;
	memset(r, 0, sizeof(*r));
	if (fstat(fd, &st) < 0) {
		r->local_errno = errno;
		return -errno;
	}
	if (S_ISDIR(st.st_mode)) {
		r->local_errno = EISDIR;
		return -EISDIR;
	}
	/* a regular file of size 0 may have contents all the same (procfs,
	 * sysfs): read to its end like a pipe */
	stream = !S_ISREG(st.st_mode) || st.st_size == 0;
	buf = malloc(sz);
	if (!buf)
		return -ENOMEM;
	rc = check_source(fd, stream, buf, sz, &head, r);
	if (rc) {
		free(buf);
		return rc;
	}
	rc = nfs42_open(cl, path, OPEN4_SHARE_ACCESS_WRITE, UNCHECKED4, mode,
			true, &f);
	if (rc) {
		free(buf);
		return rc;
	}
	if (stream)
		rc = put_stream(&f, fd, buf, sz, head, r);
	else
		rc = put_extents(&f, fd, st.st_size, sz, r);
	free(buf);
	return write_finish(&f, rc);
}

/* ------------------------------------------------------ namespace */

/* Walk to the parent of path, copy its last component to name and start a
 * compound there: PUTFH(parent). The caller adds its op and runs *cp. */
static int parent_compound(struct nfs42_client *cl, const char *path,
			   char *name, size_t namesz,
			   struct nfs42_compound **cp)
{
	struct nfs42_fh dir;
	int rc;

	rc = walk_parent(cl, path, &dir, name, namesz);
	if (rc)
		return rc;
	*cp = fh_compound(cl, &dir);
	return *cp ? 0 : -ENOMEM;
}

/* Look path up and start a compound at it: PUTFH(object). */
static int path_compound(struct nfs42_client *cl, const char *path,
			 struct nfs42_compound **cp)
{
	struct nfs42_fh fh;
	int rc;

	rc = nfs42_lookup_path(cl, path, &fh, NULL);
	if (rc)
		return rc;
	*cp = fh_compound(cl, &fh);
	return *cp ? 0 : -ENOMEM;
}

/* PUTFH(saved) SAVEFH PUTFH(cur): the two-handle start of RENAME and LINK. */
static struct nfs42_compound *two_fh_compound(struct nfs42_client *cl,
					      const struct nfs42_fh *saved,
					      const struct nfs42_fh *cur)
{
	struct nfs42_compound *c = fh_compound(cl, saved);

	if (c) {
		nfs42_op_savefh(c);
		nfs42_op_putfh(c, cur);
	}
	return c;
}

static int create_obj(struct nfs42_client *cl, const char *path,
		      struct nfs42_create_args *a)
{
	struct nfs42_compound *c;
	char name[1024];
	int rc;

	rc = parent_compound(cl, path, name, sizeof(name), &c);
	if (rc)
		return rc;
	a->name = name;
	nfs42_op_create(c, a);
	return run_and_free(c);
}

int nfs42_mkdir(struct nfs42_client *cl, const char *path, uint32_t mode)
{
	struct nfs42_create_args a = { .type = NF4DIR };
	struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, mode);
	a.attrs = &sa;
	return create_obj(cl, path, &a);
}

int nfs42_symlink(struct nfs42_client *cl, const char *target, const char *path)
{
	struct nfs42_create_args a = { .type = NF4LNK, .linkdata = target };

	return create_obj(cl, path, &a);
}

int nfs42_mknod(struct nfs42_client *cl, const char *path, uint32_t type,
		uint32_t mode, uint32_t major, uint32_t minor)
{
	struct nfs42_create_args a = { .type = type };
	struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, mode);
	a.attrs = &sa;
	a.specmajor = major;
	a.specminor = minor;
	return create_obj(cl, path, &a);
}

int nfs42_remove(struct nfs42_client *cl, const char *path)
{
	struct nfs42_compound *c;
	char name[1024];
	int rc;

	rc = parent_compound(cl, path, name, sizeof(name), &c);
	if (rc)
		return rc;
	nfs42_op_remove(c, name);
	return run_and_free(c);
}

int nfs42_rename(struct nfs42_client *cl, const char *from, const char *to)
{
	struct nfs42_compound *c;
	struct nfs42_fh sdir, ddir;
	char sname[1024], dname[1024];
	int rc;

	rc = walk_parent(cl, from, &sdir, sname, sizeof(sname));
	if (!rc)
		rc = walk_parent(cl, to, &ddir, dname, sizeof(dname));
	if (rc)
		return rc;
	c = two_fh_compound(cl, &sdir, &ddir);
	if (!c)
		return -ENOMEM;
	nfs42_op_rename(c, sname, dname);
	return run_and_free(c);
}

int nfs42_hardlink(struct nfs42_client *cl, const char *existing,
		   const char *path)
{
	struct nfs42_compound *c;
	struct nfs42_fh src, dir;
	char name[1024];
	int rc;

	rc = nfs42_lookup_path(cl, existing, &src, NULL);
	if (!rc)
		rc = walk_parent(cl, path, &dir, name, sizeof(name));
	if (rc)
		return rc;
	c = two_fh_compound(cl, &src, &dir);
	if (!c)
		return -ENOMEM;
	nfs42_op_link(c, name);
	return run_and_free(c);
}

int nfs42_readlink(struct nfs42_client *cl, const char *path, char *buf,
		   size_t bufsz)
{
	struct nfs42_compound *c;
	const struct nfs42_res *r;
	int rc, idx;

	rc = path_compound(cl, path, &c);
	if (rc)
		return rc;
	idx = nfs42_op_readlink(c);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (!rc && r->u.readlink.len >= bufsz)
		rc = -ENAMETOOLONG;
	if (!rc)
		memcpy(buf, r->u.readlink.link, r->u.readlink.len + 1);
	nfs42_compound_free(c);
	return rc;
}

int nfs42_setattr_path(struct nfs42_client *cl, const char *path,
		       const struct nfs42_sattr *sa)
{
	struct nfs42_compound *c;
	int rc;

	rc = path_compound(cl, path, &c);
	if (rc)
		return rc;
	nfs42_op_setattr(c, NULL, sa);
	return run_and_free(c);
}
