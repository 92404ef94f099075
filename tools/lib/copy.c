/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Whole-file copies: CLONE, COPY, and a copy through the client that keeps
 * holes (see nfs42_copy_file() in nfs42.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Run the COPY or CLONE compound c, its round trip counted in *st. */
static int run_timed(struct nfs42_compound *c, struct nfs42_copy_stats *st)
{
	uint64_t t0 = now_us(), us;
	int rc = nfs42_compound_run(c);

	us = now_us() - t0;
	st->calls++;
	st->total_us += us;
	if (us > st->max_us)
		st->max_us = us;
	return rc;
}

/*
 * dst may be written: not src itself, not a directory.  *d gets its
 * attributes (type 0 when there is no dst yet); *failed is DST after a
 * failure (SAME for src itself).
 */
static int check_dst(struct nfs42_client *cl, const char *dst,
		     const struct nfs42_attrs *a, struct nfs42_attrs *d,
		     enum nfs42_copy_failed *failed)
{
	int rc;

	*failed = NFS42_COPY_FAILED_DST;
	rc = nfs42_stat(cl, dst, d);
	if (rc == NFS4ERR_NOENT) {
		memset(d, 0, sizeof(*d));
		return 0;
	}
	if (rc)
		return rc;
	if (d->fileid == a->fileid && d->fsid.major == a->fsid.major &&
	    d->fsid.minor == a->fsid.minor) {
		*failed = NFS42_COPY_FAILED_SAME;
		return NFS4ERR_INVAL;
	}
	return d->type == NF4DIR ? NFS4ERR_ISDIR : 0;
}

/* Open src for read and dst for write (created with src's mode or
 * truncated); *size is src's size; *failed says which one an error is
 * about. */
static int open_pair(struct nfs42_client *cl, const char *src, const char *dst,
		     struct nfs42_file *sf, struct nfs42_file *df,
		     uint64_t *size, enum nfs42_copy_failed *failed)
{
	struct nfs42_attrs a, d;
	int rc;

	*failed = NFS42_COPY_FAILED_SRC;
	rc = nfs42_stat(cl, src, &a);
	if (rc)
		return rc;
	if (a.type != NF4REG)
		return a.type == NF4DIR ? NFS4ERR_ISDIR : NFS4ERR_INVAL;
	/* dst is truncated: never src itself */
	rc = check_dst(cl, dst, &a, &d, failed);
	if (rc)
		return rc;
	*failed = NFS42_COPY_FAILED_SRC;
	rc = nfs42_open(cl, src, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE, 0,
			false, sf);
	if (rc)
		return rc;
	*failed = NFS42_COPY_FAILED_DST;
	rc = nfs42_open(cl, dst, OPEN4_SHARE_ACCESS_WRITE, UNCHECKED4,
			a.mode & 07777, true, df);
	if (rc) {
		nfs42_close(sf);
		return rc;
	}
	/* the size once open: what we copy */
	*failed = NFS42_COPY_FAILED_SRC;
	rc = nfs42_getattr_fh(cl, &sf->fh, NULL, &a);
	if (rc) {
		nfs42_close(df);
		nfs42_close(sf);
		return rc;
	}
	*failed = NFS42_COPY_FAILED_NONE;
	*size = a.size;
	return 0;
}

/* Close both, keeping the first error. */
static int close_pair(struct nfs42_file *sf, struct nfs42_file *df, int rc)
{
	int rc2 = nfs42_close(df), rc3 = nfs42_close(sf);

	if (rc)
		return rc;
	return rc2 ? rc2 : rc3;
}

/* dst's size to size (if it is not already). */
static int set_size(struct nfs42_file *df, uint64_t size)
{
	struct nfs42_attrs a;
	struct nfs42_sattr sa;
	int rc;

	rc = nfs42_getattr_fh(df->cl, &df->fh, NULL, &a);
	if (rc || a.size == size)
		return rc;
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, size);
	return nfs42_file_setattr(df, &sa);
}

/* PUTFH(src) SAVEFH PUTFH(dst) then the caller's op: CLONE or COPY. */
static struct nfs42_compound *pair_compound(struct nfs42_file *sf,
					    struct nfs42_file *df)
{
	struct nfs42_compound *c = nfs42_compound_new(sf->cl);

	if (c) {
		nfs42_op_putfh(c, &sf->fh);
		nfs42_op_savefh(c);
		nfs42_op_putfh(c, &df->fh);
	}
	return c;
}

/* One CLONE of the whole of sf into df, then df's size. */
static int clone_whole(struct nfs42_file *sf, struct nfs42_file *df,
		       uint64_t size, struct nfs42_copy_stats *st)
{
	struct nfs42_compound *c = pair_compound(sf, df);
	int rc;

	if (!c)
		return -ENOMEM;
	nfs42_op_clone(c, &sf->stateid, &df->stateid, 0, 0, 0);
	rc = run_timed(c, st);
	nfs42_compound_free(c);
	return rc ? rc : set_size(df, size);
}

/*
 * Synchronous COPYs of [off, end), at the same offsets.  A COPY may stop
 * short (wr_count < what was asked): go on from there.  *copied: bytes
 * copied.
 */
static int copy_run_server(struct nfs42_file *sf, struct nfs42_file *df,
			   uint64_t off, uint64_t end, uint64_t *copied,
			   struct nfs42_copy_stats *st)
{
	const struct nfs42_res *r;
	struct nfs42_compound *c;
	int rc = 0, idx;

	while (off < end) {
		c = pair_compound(sf, df);
		if (!c)
			return -ENOMEM;
		idx = nfs42_op_copy(c, &sf->stateid, &df->stateid, off, off,
				    end - off, true, true);
		rc = run_timed(c, st);
		r = nfs42_res(c, idx);
		if (!rc && r->u.copy.has_callback_id) {
			nfs42_set_error(sf->cl,
					"COPY went asynchronous (not asked)");
			rc = -EPROTO;
		} else if (!rc && (r->u.copy.count == 0 ||
				   r->u.copy.count > end - off)) {
			nfs42_set_error(sf->cl,
					"COPY copied %llu of %llu bytes",
					(unsigned long long)r->u.copy.count,
					(unsigned long long)(end - off));
			rc = -EIO;
		} else if (!rc) {
			off += r->u.copy.count;
			*copied += r->u.copy.count;
		}
		nfs42_compound_free(c);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Synchronous COPYs of the data of [from, size), extent by extent (SEEK):
 * dst holds nothing there (it was truncated), so what is not copied is a
 * hole, and a sparse file costs its data, not its size.  *copied: bytes
 * copied.
 */
static int copy_server(struct nfs42_file *sf, struct nfs42_file *df,
		       uint64_t from, uint64_t size, uint64_t *copied,
		       struct nfs42_copy_stats *st)
{
	uint64_t off = from, d, h;
	int rc;

	while (off < size) {
		rc = nfs42_next_data(sf, off, size, &d, &h);
		if (rc)
			return rc;
		if (d >= size)
			break;
		rc = copy_run_server(sf, df, d, h, copied, st);
		if (rc)
			return rc;
		off = h;
	}
	return 0;
}

/* READ [off, end) of sf and WRITE it to df at the same offsets. */
static int copy_range(struct nfs42_file *sf, struct nfs42_file *df,
		      uint64_t off, uint64_t end, void *buf, uint32_t bufsz)
{
	uint32_t want, n;
	bool eof;
	int rc;

	while (off < end) {
		want = end - off < bufsz ? end - off : bufsz;
		rc = nfs42_pread(sf, buf, want, off, &n, &eof);
		if (rc)
			return rc;
		if (n == 0)
			return 0; /* src shrank: its end, dst's size says */
		rc = nfs42_pwrite(df, buf, n, off, UNSTABLE4);
		if (rc)
			return rc;
		off += n;
	}
	return 0;
}

/* Through the client: the data extents of [0, size), then dst's size. */
static int copy_client(struct nfs42_file *sf, struct nfs42_file *df,
		       uint64_t size)
{
	uint32_t bufsz = nfs42_io_size(sf->cl);
	uint64_t off = 0, d, h;
	void *buf;
	int rc = 0;

	buf = malloc(bufsz);
	if (!buf)
		return -ENOMEM;
	while (!rc && off < size) {
		rc = nfs42_next_data(sf, off, size, &d, &h);
		if (!rc && d < size)
			rc = copy_range(sf, df, d, h, buf, bufsz);
		off = d < size ? h : size;
	}
	free(buf);
	if (!rc)
		rc = set_size(df, size);
	if (!rc)
		rc = nfs42_commit(df);
	return rc;
}

/*
 * A new file beside path, opened for write: ".NAME.nfs42-XXXXXX" (GUARDED4,
 * another name if it exists), with mode.  *tmp (malloc'ed) its path.
 */
static int open_temp(struct nfs42_client *cl, const char *path, uint32_t mode,
		     struct nfs42_file *f, char **tmp)
{
	static unsigned int seq;
	const char *name;
	char *parent, *t;
	unsigned int i, tag;
	int rc, len;

	rc = nfs42_split_path(path, &parent, &name);
	if (rc)
		return rc;
	/* the name without a trailing slash, short enough for a suffix */
	len = strcspn(name, "/");
	if (len > 200)
		len = 200;
	for (i = 0; i < 8; i++) {
		tag = (unsigned int)nfs42_now_ms() * 2654435761u ^
		      (unsigned int)getpid() << 8 ^ seq++;
		if (asprintf(&t, "%s/.%.*s.nfs42-%06x",
			     strcmp(parent, "/") ? parent : "", len, name,
			     tag & 0xffffff) < 0) {
			rc = -ENOMEM;
			break;
		}
		rc = nfs42_open(cl, t, OPEN4_SHARE_ACCESS_WRITE, GUARDED4, mode,
				false, f);
		if (!rc) {
			*tmp = t;
			break;
		}
		free(t);
		if (rc != NFS4ERR_EXIST)
			break;
	}
	free(parent);
	return rc;
}

/*
 * CLONE of the whole of src into a new file beside dst, renamed over dst
 * once the clone is done: a server that cannot clone (NOTSUPP) or any
 * other failure leaves dst as it was, and the new file is removed.  An
 * existing dst keeps its mode (its inode does not: RENAME replaces it).
 */
static int clone_file(struct nfs42_client *cl, const char *src, const char *dst,
		      struct nfs42_copy_stats *st)
{
	struct nfs42_attrs a, d;
	struct nfs42_file sf, df;
	char *tmp = NULL;
	int rc, rc2;

	st->failed = NFS42_COPY_FAILED_SRC;
	rc = nfs42_stat(cl, src, &a);
	if (!rc && a.type != NF4REG)
		rc = a.type == NF4DIR ? NFS4ERR_ISDIR : NFS4ERR_INVAL;
	if (!rc)
		rc = check_dst(cl, dst, &a, &d, &st->failed);
	if (rc)
		return rc;
	st->failed = NFS42_COPY_FAILED_SRC;
	rc = nfs42_open(cl, src, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE, 0,
			false, &sf);
	if (!rc)
		rc = nfs42_getattr_fh(cl, &sf.fh, NULL, &a);
	if (rc)
		return rc;
	st->failed = NFS42_COPY_FAILED_DST;
	rc = open_temp(cl, dst, (d.type ? d.mode : a.mode) & 07777, &df, &tmp);
	if (rc) {
		nfs42_close(&sf);
		return rc;
	}
	st->failed = NFS42_COPY_FAILED_NONE;
	rc = close_pair(&sf, &df, clone_whole(&sf, &df, a.size, st));
	if (!rc) {
		st->failed = NFS42_COPY_FAILED_DST;
		rc = nfs42_rename(cl, tmp, dst);
	}
	if (rc) {
		rc2 = nfs42_remove(cl, tmp);
		if (rc2 && rc2 != NFS4ERR_NOENT)
			nfs42_set_error(cl, "%s left behind: %s", tmp,
					nfs42_strerror(rc2));
	} else {
		st->failed = NFS42_COPY_FAILED_NONE;
	}
	free(tmp);
	return rc;
}

int nfs42_copy_file_ex(struct nfs42_client *cl, const char *src,
		       const char *dst, const struct nfs42_copy_opts *o,
		       struct nfs42_copy_stats *st)
{
	static const struct nfs42_copy_opts dflt;
	struct nfs42_copy_stats mine;
	struct nfs42_file sf, df;
	uint64_t size, done = 0;
	int rc;

	if (!o)
		o = &dflt;
	if (!st)
		st = &mine;
	memset(st, 0, sizeof(*st));
	if (o->clone)
		return clone_file(cl, src, dst, st);
	rc = open_pair(cl, src, dst, &sf, &df, &size, &st->failed);
	if (rc)
		return rc;
	rc = o->via_client ? NFS4ERR_NOTSUPP :
			     copy_server(&sf, &df, 0, size, &done, st);
	/* OP_ILLEGAL: NFSv4.1, which has no COPY */
	if ((rc == NFS4ERR_NOTSUPP || rc == NFS4ERR_OFFLOAD_NO_REQS ||
	     rc == NFS4ERR_OP_ILLEGAL) &&
	    done == 0) {
		st->via_client = true;
		rc = copy_client(&sf, &df, size);
	} else if (!rc) {
		rc = set_size(&df, size);
		if (!rc)
			rc = nfs42_commit(&df);
	}
	return close_pair(&sf, &df, rc);
}

/* --------------------------------------------------------- async COPY */

int nfs42_cb_offload_decode(struct nfs42_xdr *x, struct nfs42_cb_offload *o)
{
	uint32_t n = 0;

	memset(o, 0, sizeof(*o));
	o->fh.len = sizeof(o->fh.data);
	nfs42_xdr_get_opaque(x, o->fh.data, &o->fh.len, NFS4_FHSIZE);
	nfs42_xdr_get_u32(x, &o->stateid.seqid);
	nfs42_xdr_get_fixed(x, o->stateid.other, sizeof(o->stateid.other));
	nfs42_xdr_get_u32(x, &o->status);
	if (o->status != NFS4_OK) {
		nfs42_xdr_get_u64(x, &o->count);
		return x->err ? -EBADMSG : 0;
	}
	if (nfs42_xdr_get_u32(x, &n) && n > 1)
		return -EBADMSG; /* wr_callback_id<1> */
	if (n == 1)
		nfs42_xdr_skip(x, 4 + NFS4_OTHER_SIZE);
	nfs42_xdr_get_u64(x, &o->count);
	nfs42_xdr_get_u32(x, &o->committed);
	nfs42_xdr_get_fixed(x, o->verf, sizeof(o->verf));
	return x->err ? -EBADMSG : 0;
}

/* The backchannel hook while an async COPY runs: takes its CB_OFFLOAD. */
static uint32_t async_cb(struct nfs42_client *cl, void *arg, uint32_t opnum,
			 struct nfs42_xdr *args, struct nfs42_xdr *res)
{
	struct nfs42_async_copy *ac = arg;
	struct nfs42_cb_offload o;

	if (opnum != OP_CB_OFFLOAD)
		return NFS4ERR_NOTSUPP;
	if (nfs42_cb_offload_decode(args, &o))
		return NFS4ERR_BADXDR;
	/* CB_OFFLOAD4res is its status alone: no body */
	if (memcmp(o.stateid.other, ac->callback_id.other,
		   sizeof(o.stateid.other)) != 0)
		return NFS4ERR_BAD_STATEID;
	ac->cb = o;
	ac->got_callback = true;
	return NFS4_OK;
}

/* OFFLOAD_STATUS or OFFLOAD_CANCEL of the copy sid. */
static int offload_op(struct nfs42_client *cl, const struct nfs42_stateid *sid,
		      bool cancel, uint64_t *count, bool *complete,
		      uint32_t *status)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	const struct nfs42_res *r;
	int rc, idx;

	if (!c)
		return -ENOMEM;
	idx = cancel ? nfs42_op_offload_cancel(c, sid) :
		       nfs42_op_offload_status(c, sid);
	rc = nfs42_compound_run(c);
	if (!rc && !cancel) {
		r = nfs42_res(c, idx);
		*count = r->u.offload_status.count;
		*complete = r->u.offload_status.has_complete;
		*status = r->u.offload_status.complete;
	}
	nfs42_compound_free(c);
	return rc;
}

int nfs42_offload_status(struct nfs42_client *cl,
			 const struct nfs42_stateid *sid, uint64_t *count,
			 bool *complete, uint32_t *status)
{
	return offload_op(cl, sid, false, count, complete, status);
}

int nfs42_offload_cancel(struct nfs42_client *cl,
			 const struct nfs42_stateid *sid)
{
	return offload_op(cl, sid, true, NULL, NULL, NULL);
}

/*
 * Wait for the end of the async copy ac->callback_id (of a range at
 * base): CB_OFFLOAD, or OFFLOAD_STATUS saying it completed;
 * OFFLOAD_CANCEL when *ac->stop.  *done: bytes copied; the copy's final
 * status is returned.
 */
static int async_wait(struct nfs42_client *cl, struct nfs42_async_copy *ac,
		      uint64_t base, uint64_t *done)
{
	uint64_t size = ac->size;

	int poll_ms = ac->poll_ms > 0 ? ac->poll_ms : 500;
	uint64_t count = 0;
	bool complete = false, cancelled = false;
	uint32_t status = NFS4_OK;
	int rc, grace = 0;

	for (;;) {
		rc = nfs42_poll(cl, poll_ms);
		if (rc < 0)
			return rc;
		if (ac->got_callback) {
			*done = ac->cb.count;
			if (ac->progress)
				ac->progress(ac->arg, base + *done, size);
			return ac->cb.status;
		}
		if (ac->stop && *ac->stop && !cancelled) {
			rc = nfs42_offload_cancel(cl, &ac->callback_id);
			if (rc && rc != NFS4ERR_COMPLETE_ALREADY)
				return rc;
			cancelled = true;
			ac->cancelled = rc == 0;
		}
		rc = nfs42_offload_status(cl, &ac->callback_id, &count,
					  &complete, &status);
		if (rc)
			return rc;
		if (count > ac->status_count)
			ac->status_count = count;
		ac->status_polls++;
		if (ac->progress)
			ac->progress(ac->arg, base + count, size);
		/* done: wait one more period for its CB_OFFLOAD (none comes
		 * after a cancel) */
		if (complete && (cancelled || grace++ > 0 || ac->got_callback))
			break;
	}
	*done = count;
	return status;
}

/*
 * One asynchronous COPY of [off, off + len) at the same offset, waited for
 * (async_wait) when the server takes it so; what it left, or the rest of
 * a synchronous answer, by synchronous COPYs.  *synced: all of it is
 * FILE_SYNC on the server.
 */
static int async_extent(struct nfs42_client *cl, struct nfs42_file *sf,
			struct nfs42_file *df, uint64_t off, uint64_t len,
			struct nfs42_async_copy *ac, bool *synced)
{
	struct nfs42_compound *c = pair_compound(sf, df);
	uint64_t done = 0, rest = 0;
	const struct nfs42_res *r;
	bool went = false;
	int rc, idx;

	if (!c)
		return -ENOMEM;
	*synced = false;
	ac->got_callback = false;
	memset(&ac->callback_id, 0, sizeof(ac->callback_id));
	idx = nfs42_op_copy(c, &sf->stateid, &df->stateid, off, off, len, true,
			    false);
	rc = run_timed(c, &ac->stats);
	r = nfs42_res(c, idx);
	if (!rc && r->u.copy.has_callback_id) {
		went = ac->went_async = true;
		ac->callback_id = r->u.copy.callback_id;
	} else if (!rc) {
		/* the server answered synchronously (a short copy) */
		done = r->u.copy.count;
		*synced = r->u.copy.committed == FILE_SYNC4;
	}
	nfs42_compound_free(c);
	if (!rc && went) {
		rc = async_wait(cl, ac, off, &done);
		*synced = ac->got_callback && ac->cb.committed == FILE_SYNC4;
	}
	if (rc || ac->cancelled || done >= len)
		return rc;
	*synced = false;
	return copy_run_server(sf, df, off + done, off + len, &rest,
			       &ac->stats);
}

/*
 * Holes shorter than this between data extents are copied by the server
 * with the data around them (it walks a hole at tens of GB/s: 256 MiB
 * cost it a few ms, about what one more asynchronous COPY costs).
 */
#define ASYNC_MERGE_HOLE (256ull << 20)

/* The data extents of src, walked with SEEK, one looked ahead. */
struct extent_walk {
	struct nfs42_file *sf;
	uint64_t size;
	uint64_t d, h; /* the next extent, d == size: none */
	bool have; /* d and h are known */
};

/*
 * [*d, *h): the next run of data extents of src at or after off whose
 * holes between are shorter than ASYNC_MERGE_HOLE; *d == size: none.
 */
static int next_run(struct extent_walk *w, uint64_t off, uint64_t *d,
		    uint64_t *h)
{
	int rc = 0;

	if (!w->have || w->d < off)
		rc = nfs42_next_data(w->sf, off, w->size, &w->d, &w->h);
	*d = w->d;
	*h = w->h;
	w->have = false;
	while (!rc && *d < w->size && *h < w->size) {
		rc = nfs42_next_data(w->sf, *h, w->size, &w->d, &w->h);
		w->have = !rc;
		if (rc || w->d >= w->size || w->d - *h >= ASYNC_MERGE_HOLE)
			break;
		*h = w->h;
		w->have = false;
	}
	return rc;
}

/*
 * The data of src (SEEK) in asynchronous COPYs, one per run of extents
 * (next_run), so that a sparse file costs its data, not its size; dst
 * was truncated, so the holes not copied stay holes, and its size is set
 * at the end.
 */
int nfs42_copy_file_async(struct nfs42_client *cl, const char *src,
			  const char *dst, struct nfs42_async_copy *ac)
{
	struct extent_walk walk = { 0 };
	struct nfs42_file sf, df;
	uint64_t size, off, d, h;
	bool synced, all_synced = true;
	int rc;

	ac->went_async = ac->got_callback = ac->cancelled = false;
	ac->status_polls = 0;
	ac->status_count = 0;
	memset(&ac->stats, 0, sizeof(ac->stats));
	rc = open_pair(cl, src, dst, &sf, &df, &size, &ac->stats.failed);
	if (rc)
		return rc;
	ac->size = size;
	if (size == 0)
		return close_pair(&sf, &df, 0);
	/* the hook before the COPY: its CB_OFFLOAD may come first */
	nfs42_set_cb_handler(cl, async_cb, ac);
	walk.sf = &sf;
	walk.size = size;
	for (off = 0; off < size; off = h) {
		rc = next_run(&walk, off, &d, &h);
		if (rc || d >= size)
			break;
		rc = async_extent(cl, &sf, &df, d, h - d, ac, &synced);
		if (rc || ac->cancelled)
			break;
		all_synced = all_synced && synced;
	}
	nfs42_set_cb_handler(cl, NULL, NULL);
	if (rc || ac->cancelled)
		return close_pair(&sf, &df, rc);
	if (ac->progress)
		ac->progress(ac->arg, size, size);
	rc = set_size(&df, size);
	if (!rc && !all_synced)
		rc = nfs42_commit(&df);
	return close_pair(&sf, &df, rc);
}

int nfs42_clone_file(struct nfs42_client *cl, const char *src, const char *dst)
{
	const struct nfs42_copy_opts o = { .clone = true };

	return nfs42_copy_file_ex(cl, src, dst, &o, NULL);
}

int nfs42_copy_file(struct nfs42_client *cl, const char *src, const char *dst,
		    bool *via_client)
{
	struct nfs42_copy_stats st;
	int rc = nfs42_copy_file_ex(cl, src, dst, NULL, &st);

	if (via_client)
		*via_client = st.via_client;
	return rc;
}
