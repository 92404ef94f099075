/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Streaming reads: several READ or READ_PLUS compounds in flight over the
 * session's slots, their contents handed over in offset order.
 *
 * One thread starts up to depth compounds (nfs42_compound_start), then
 * finishes the oldest.  While it waits for that reply it reads whatever
 * comes first from the connection: replies of the younger compounds are
 * parked on their pending entries (one buffer each) and callbacks are
 * served, so memory stays bounded by depth replies.  The first READ goes
 * alone, like a kernel's first readahead window: a file that fits in it
 * costs one READ, not depth.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* One compound in flight, or a hole known from SEEK (c NULL: no call). */
struct chunk {
	struct nfs42_compound *c;
	uint64_t off;
	uint64_t count;
	int idx;
	bool eof; /* a hole chunk that ends at EOF */
};

struct stream {
	struct nfs42_file *f;
	bool read_plus;
	nfs42_stream_fn fn;
	void *arg;
	uint64_t pos; /* contents delivered up to here */
	bool skip; /* SEEK over holes (skip_holes, until SEEK is refused) */
	bool tail_hole; /* the last contents delivered were a hole */
	uint64_t ext_end; /* READ and skip: a data extent known up to here */
};

void nfs42_stream_opts_init(struct nfs42_stream_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->depth = 1;
	o->length = NFS42_LENGTH_EOF;
}

static int chunk_new(struct stream *st, struct chunk *ch, uint64_t off,
		     uint32_t count)
{
	struct nfs42_file *f = st->f;

	ch->off = off;
	ch->count = count;
	ch->eof = false;
	ch->c = nfs42_compound_new(f->cl);
	if (!ch->c)
		return -ENOMEM;
	nfs42_op_putfh(ch->c, &f->fh);
	if (st->read_plus)
		ch->idx = nfs42_op_read_plus(ch->c, &f->stateid, off, count);
	else
		ch->idx = nfs42_op_read(ch->c, &f->stateid, off, count);
	return 0;
}

/* Contents to the caller: data, or a hole (data NULL). */
static int emit(struct stream *st, uint64_t off, uint64_t len, const void *data)
{
	int rc = len ? st->fn(st->arg, off, len, data) : 0;

	if (!rc && len) {
		st->pos = off + len;
		st->tail_hole = !data;
	}
	return rc;
}

static int bad_reply(struct stream *st, const char *why)
{
	nfs42_set_error(st->f->cl, "%s reply at offset %llu: %s",
			st->read_plus ? "READ_PLUS" : "READ",
			(unsigned long long)st->pos, why);
	return -EBADMSG;
}

/* The segments of a READ_PLUS reply for [off, off + count), off the
 * current position: they must follow each other from off on. */
static int deliver_segs(struct stream *st, const struct nfs42_res *r,
			uint64_t off, uint32_t count)
{
	uint64_t end = off + count, pos = off, hend;
	const struct nfs42_rp_seg *s;
	uint32_t i;
	int rc;

	for (i = 0; i < r->u.read_plus.n; i++) {
		s = &r->u.read_plus.segs[i];
		if (s->type == NFS4_CONTENT_DATA) {
			if (s->offset != pos || s->length > end - pos)
				return bad_reply(st,
						 "data segment out of place");
			rc = emit(st, pos, s->length, s->data);
			if (rc)
				return rc;
			pos += s->length;
			continue;
		}
		/* a hole may start before the range and end after it */
		hend = s->offset + s->length < s->offset ?
			       UINT64_MAX :
			       s->offset + s->length;
		if (s->offset > pos || (hend <= pos && s->length))
			return bad_reply(st, "hole segment out of place");
		if (hend > end)
			hend = end;
		if (hend <= pos)
			continue;
		rc = emit(st, pos, hend - pos, NULL);
		if (rc)
			return rc;
		pos = hend;
	}
	return 0;
}

/* Hand over the reply of [off, off + count); off == st->pos. */
static int deliver(struct stream *st, struct nfs42_compound *c, int idx,
		   uint64_t off, uint32_t count, bool *eof)
{
	const struct nfs42_res *r = nfs42_res(c, idx);
	int rc;

	if (!r)
		return bad_reply(st, "no result");
	if (r->op == OP_READ_PLUS) {
		*eof = r->u.read_plus.eof;
		rc = deliver_segs(st, r, off, count);
	} else if (r->op == OP_READ) {
		*eof = r->u.read.eof;
		if (r->u.read.len > count)
			return bad_reply(st, "more than asked");
		rc = emit(st, off, r->u.read.len, r->u.read.data);
	} else {
		return bad_reply(st, "wrong operation");
	}
	if (!rc && !*eof && st->pos == off) {
		nfs42_set_error(st->f->cl, "no data and no eof at offset %llu",
				(unsigned long long)off);
		rc = -EIO;
	}
	return rc;
}

/* The rest of a short reply, one compound at a time. */
static int complete_sync(struct stream *st, uint64_t end, bool *eof)
{
	struct chunk ch;
	int rc = 0;

	while (!rc && !*eof && st->pos < end) {
		rc = chunk_new(st, &ch, st->pos, (uint32_t)(end - st->pos));
		if (!rc)
			rc = nfs42_compound_run(ch.c);
		if (!rc)
			rc = deliver(st, ch.c, ch.idx, ch.off, ch.count, eof);
		nfs42_compound_free(ch.c);
	}
	return rc;
}

/* The file's size now (a SEEK found no data past some offset). */
static int file_size(struct stream *st, uint64_t *size)
{
	struct nfs42_attrs a;
	int rc = nfs42_getattr_fh(st->f->cl, &st->f->fh, NULL, &a);

	if (!rc)
		*size = a.size;
	return rc;
}

/*
 * SEEK for data at or after off: *d, or UINT64_MAX with *size set when
 * there is none: NFS4ERR_NXIO (off at or past EOF, or knfsd's answer), or
 * NFS4_OK with sr_eof (RFC 7862 15.11.3: nothing found; sr_offset is then
 * not the data's).  1 when the server has no SEEK (skipping is then off).
 */
static int seek_data(struct stream *st, uint64_t off, uint64_t *d,
		     uint64_t *size)
{
	bool eof = false;
	int rc = nfs42_seek(st->f, off, NFS4_CONTENT_DATA, d, &eof);

	if (rc == NFS4ERR_NOTSUPP || rc == NFS4ERR_OP_ILLEGAL) {
		st->skip = false;
		return 1;
	}
	if (rc == NFS4ERR_NXIO || (!rc && eof)) {
		*d = UINT64_MAX;
		return file_size(st, size);
	}
	if (!rc && *d < off)
		*d = off; /* (a server answering before off) */
	return rc;
}

/*
 * READ with skip: at next, where no data extent is known, SEEK for the
 * next one [d, h).  A hole [next, d) before it becomes a hole chunk in
 * ch (1 returned); none left: a hole chunk to EOF, eof, and *limit there.
 * Else 0, with st->ext_end = h.
 */
static int next_extent(struct stream *st, struct chunk *ch, uint64_t next,
		       uint64_t *limit)
{
	uint64_t d, h, size = 0;
	bool eof;
	int rc;

	rc = seek_data(st, next, &d, &size);
	if (rc)
		return rc > 0 ? 0 : rc;
	memset(ch, 0, sizeof(*ch));
	ch->off = next;
	if (d == UINT64_MAX) {
		/* no data from next on: the rest is a hole to EOF */
		if (size < *limit)
			*limit = size;
		ch->count = *limit > next ? *limit - next : 0;
		ch->eof = *limit == size;
		st->ext_end = UINT64_MAX;
		return 1;
	}
	rc = nfs42_seek(st->f, d, NFS4_CONTENT_HOLE, &h, &eof);
	if (rc == NFS4ERR_NXIO || (!rc && h <= d)) {
		h = UINT64_MAX; /* it changed: read on */
		rc = 0;
	}
	if (rc)
		return rc;
	st->ext_end = h;
	if (d == next)
		return 0;
	ch->count = (d < *limit ? d : *limit) - next;
	return 1;
}

/*
 * READ_PLUS with skip: the reply just delivered ended in a hole at
 * st->pos.  SEEK for the data after it; when that lies beyond what is in
 * flight (next), the hole up to it is delivered, the compounds in flight
 * (all inside it) are dropped, and reading goes on from there: *next.
 * No data left: the hole to EOF, *done.
 */
static int jump_hole(struct stream *st, uint64_t *next, uint64_t limit,
		     bool *done, bool *jumped)
{
	uint64_t d, size = 0, to;
	int rc;

	rc = seek_data(st, st->pos, &d, &size);
	if (rc)
		return rc > 0 ? 0 : rc;
	if (d != UINT64_MAX && d < *next)
		return 0; /* what is in flight reaches it */
	to = d != UINT64_MAX ? d : size;
	if (to > limit)
		to = limit;
	if (to > st->pos) {
		rc = emit(st, st->pos, to - st->pos, NULL);
		if (rc)
			return rc;
	}
	*done = d == UINT64_MAX || to >= limit;
	*next = to;
	*jumped = true;
	return 0;
}

/* The head of the ring, finished: its contents to the caller unless
 * they lie in a hole already delivered (a jump). */
static int take_chunk(struct stream *st, struct chunk *ch, int rc, bool *eof)
{
	*eof = false;
	if (ch->off < st->pos)
		return 0; /* dropped: inside a hole jumped over */
	if (!ch->c) {
		*eof = ch->eof;
		return emit(st, ch->off, ch->count, NULL);
	}
	if (!rc)
		rc = deliver(st, ch->c, ch->idx, ch->off, ch->count, eof);
	if (!rc)
		rc = complete_sync(st, ch->off + ch->count, eof);
	return rc;
}

int nfs42_read_stream(struct nfs42_file *f, const struct nfs42_stream_opts *o,
		      nfs42_stream_fn fn, void *arg, uint64_t *end)
{
	struct stream st = { .f = f,
			     .read_plus = o->read_plus,
			     .fn = fn,
			     .arg = arg,
			     .pos = o->offset,
			     .skip = o->skip_holes };
	uint32_t depth = o->depth ? o->depth : 1;
	uint32_t io = nfs42_io_size(f->cl);
	uint64_t next = o->offset, limit, want;
	unsigned int head = 0, n = 0, window = 1;
	struct chunk *ring, *ch;
	bool done = false, eof, jumped;
	int rc = 0, rc2;

	if (depth > nfs42_slot_count(f->cl))
		depth = nfs42_slot_count(f->cl);
	if (depth < 1)
		depth = 1;
	if (o->io_size && o->io_size < io)
		io = o->io_size;
	limit = o->length > UINT64_MAX - o->offset ? UINT64_MAX :
						     o->offset + o->length;
	ring = calloc(depth, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	for (;;) {
		while (!done && !rc && n < window && next < limit) {
			ch = &ring[(head + n) % depth];
			if (st.skip && !st.read_plus && next >= st.ext_end) {
				rc = next_extent(&st, ch, next, &limit);
				if (rc == 1) { /* a hole chunk */
					rc = 0;
					next += ch->count;
					n++;
					if (ch->eof)
						limit = next;
					continue;
				}
				if (rc)
					break;
			}
			want = limit - next < io ? limit - next : io;
			if (st.skip && !st.read_plus &&
			    st.ext_end - next < want)
				want = st.ext_end - next;
			rc = chunk_new(&st, ch, next, (uint32_t)want);
			if (rc)
				break;
			nfs42_compound_start(ch->c); /* errors: at finish */
			next += ch->count;
			n++;
		}
		if (!n)
			break;
		ch = &ring[head];
		rc2 = ch->c ? nfs42_compound_finish(ch->c) : 0;
		if (!rc && !done) {
			rc = take_chunk(&st, ch, rc2, &eof);
			done = eof;
			window = depth; /* not a small file: read ahead */
			jumped = false;
			if (!rc && !done && st.skip && st.read_plus &&
			    st.tail_hole && st.pos < limit)
				rc = jump_hole(&st, &next, limit, &done,
					       &jumped);
			if (jumped)
				window = 1; /* a new start, as at the first */
		}
		nfs42_compound_free(ch->c);
		ch->c = NULL;
		head = (head + 1) % depth;
		n--;
	}
	free(ring);
	if (end)
		*end = st.pos;
	return rc;
}

int nfs42_read_plus(struct nfs42_file *f, uint64_t offset, uint64_t length,
		    uint32_t depth, nfs42_stream_fn fn, void *arg,
		    uint64_t *end)
{
	struct nfs42_stream_opts o;

	nfs42_stream_opts_init(&o);
	o.read_plus = true;
	o.offset = offset;
	o.length = length;
	o.depth = depth;
	return nfs42_read_stream(f, &o, fn, arg, end);
}

/* nfs42_read_stream_fd: where the contents go */
struct fd_sink {
	int fd;
	bool sparse; /* a regular file: seek over holes */
	off_t base; /* fd's position for the stream's first offset */
	uint64_t first; /* that offset */
	uint64_t pos; /* stream offset the file position stands at */
};

/*
 * Whether holes can be seeked over in fd: a regular file at a known
 * position (*base), not opened for appending (where every write goes to
 * the end, so a hole seeked over would vanish).
 */
static bool fd_seekable(int fd, off_t *base)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || fl < 0 ||
	    (fl & O_APPEND))
		return false;
	*base = lseek(fd, 0, SEEK_CUR);
	return *base >= 0;
}

static int fd_seg(void *arg, uint64_t off, uint64_t len, const void *data)
{
	static const char zeros[65536];
	struct fd_sink *s = arg;
	size_t n;
	int rc = 0;

	if (!data && s->sparse)
		return 0; /* the next write (or the end) seeks over it */
	if (s->sparse && off != s->pos &&
	    lseek(s->fd, s->base + (off_t)(off - s->first), SEEK_SET) < 0)
		return -errno;
	s->pos = off + len;
	if (data)
		return nfs42_fd_write_all(s->fd, data, len);
	for (; !rc && len; len -= n) {
		n = len < sizeof(zeros) ? len : sizeof(zeros);
		rc = nfs42_fd_write_all(s->fd, zeros, n);
	}
	return rc;
}

/* A trailing hole: extend the file to end without writing. */
static int fd_end(struct fd_sink *s, uint64_t end)
{
	off_t want = s->base + (off_t)(end - s->first);
	struct stat st;

	if (!s->sparse || end <= s->pos)
		return 0;
	if (fstat(s->fd, &st) < 0)
		return -errno;
	if (st.st_size < want && ftruncate(s->fd, want) < 0)
		return -errno;
	return lseek(s->fd, want, SEEK_SET) < 0 ? -errno : 0;
}

int nfs42_read_stream_fd(struct nfs42_file *f,
			 const struct nfs42_stream_opts *o, int fd,
			 uint64_t *end)
{
	struct fd_sink s = { .fd = fd, .first = o->offset, .pos = o->offset };
	uint64_t e = o->offset;
	int rc;

	s.sparse = fd_seekable(fd, &s.base);
	rc = nfs42_read_stream(f, o, fd_seg, &s, &e);
	if (!rc)
		rc = fd_end(&s, e);
	if (end)
		*end = e;
	return rc;
}

int nfs42_pnfs_read_fd(struct nfs42_file *f, struct nfs42_layout *lo,
		       const struct nfs42_pnfs_opts *o, int fd, uint64_t *end,
		       struct nfs42_pnfs_stats *st)
{
	struct fd_sink s = { .fd = fd };
	uint64_t e = 0;
	int rc;

	s.sparse = fd_seekable(fd, &s.base);
	rc = nfs42_pnfs_read(f, lo, o, 0, NFS42_LENGTH_EOF, fd_seg, &s, &e, st);
	if (!rc)
		rc = fd_end(&s, e);
	if (end)
		*end = e;
	return rc;
}
