/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Striped I/O over a files layout (see nfs42.h, "Striped transfers").
 *
 * One worker thread per stripe index moves the stripe units of that index
 * (its data server), depth compounds in flight, while the caller's thread
 * consumes (read) or produces (write) in file order; a window of bytes
 * bounds how far the workers run ahead.  A listener thread serves the
 * metadata server's back channel meanwhile (CB_LAYOUTRECALL), since no
 * other thread reads that connection while the data goes to the data
 * servers.
 *
 * Locking: io->lock guards everything shared in struct pio (slots and
 * their states, queues, counters, flags); no RPC is made with it held.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "internal.h"

#define PNFS_DEPTH_DEFAULT 4
#define PNFS_MAX_RUNS 32
#define PNFS_RETRIES 3

void nfs42_pnfs_opts_init(struct nfs42_pnfs_opts *o)
{
	memset(o, 0, sizeof(*o));
}

/* A stateid for data servers: the open's, seqid 0 (RFC 8881 13.9.1). */
static struct nfs42_stateid ds_stateid(const struct nfs42_file *f)
{
	struct nfs42_stateid s = f->stateid;

	s.seqid = 0;
	return s;
}

/* Errors after which a data server is not asked again for this transfer,
 * or the layout is not to be used any more (RFC 8881 13.9.1, 13.11). */
static bool layout_error(int rc)
{
	return rc == NFS4ERR_PNFS_NO_LAYOUT || rc == NFS4ERR_STALE ||
	       rc == NFS4ERR_BADHANDLE || rc == NFS4ERR_FHEXPIRED ||
	       rc == NFS4ERR_WRONG_TYPE || rc == NFS4ERR_ISDIR;
}

struct run {
	uint64_t off, len;
	bool hole;
};

/* One stripe unit (or the part of one in range) of a read. */
struct rd_unit {
	uint64_t k; /* unit number */
	uint64_t off;
	uint32_t len;
	int state; /* 0 free, 1 busy, 2 ready */
	uint8_t *buf;
	uint32_t got; /* bytes of [off, off+got) known */
	bool eof;
	uint32_t nruns;
	struct run runs[PNFS_MAX_RUNS];
};

struct pio;

struct worker {
	struct pio *io;
	uint32_t stripe;
	pthread_t thread;
	bool started;
	/* write: pieces to write, and written but not committed */
	struct piece *queue, *queue_tail;
	struct piece *unstable;
	uint64_t unstable_bytes;
	bool ds_dead;
};

struct pio {
	struct nfs42_file *f;
	struct nfs42_layout *lo;
	struct nfs42_client *mds;
	struct nfs42_pnfs_stats *st;
	uint32_t depth, io_size;
	bool read_plus;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done; /* workers and listener stop */
	bool lo_bad; /* layout refused by a data server: no more DS I/O */
	int err; /* first failure */
	struct worker w[NFS42_LAYOUT_MAX_DS];
	pthread_t listener;
	bool listening;
	/* read */
	uint64_t start, end; /* bytes [start, end) */
	uint64_t k_first, k_last; /* units */
	uint64_t next_k; /* next unit to deliver */
	uint64_t nslots;
	struct rd_unit *slots;
	/* write */
	uint64_t inflight, window;
	bool produced;
	bool producer_waiting; /* for room in the window */
	uint64_t ds_end, mds_end; /* ends of data written each way */
	uint64_t prod_end; /* end of what the producer queued */
};

static void io_fail(struct pio *io, int rc)
{
	pthread_mutex_lock(&io->lock);
	if (!io->err)
		io->err = rc;
	io->done = true;
	pthread_cond_broadcast(&io->cond);
	pthread_mutex_unlock(&io->lock);
}

static bool io_use_ds(struct pio *io, struct worker *w)
{
	bool ok;

	if (nfs42_layout_recalled(io->mds, io->lo)) {
		pthread_mutex_lock(&io->lock);
		io->st->recalled = true;
		pthread_mutex_unlock(&io->lock);
		return false;
	}
	pthread_mutex_lock(&io->lock);
	ok = !io->lo_bad && !w->ds_dead;
	pthread_mutex_unlock(&io->lock);
	return ok;
}

/* A data server answered rc: give it (or the layout) up for the rest. */
static void ds_trouble(struct pio *io, struct worker *w, int rc)
{
	pthread_mutex_lock(&io->lock);
	io->st->ds_error = rc;
	if (rc == NFS4ERR_PNFS_NO_LAYOUT)
		io->st->no_layout++;
	if (layout_error(rc)) {
		io->lo_bad = true;
	} else if (!w->ds_dead) {
		w->ds_dead = true;
		io->st->ds_failed++;
	}
	pthread_mutex_unlock(&io->lock);
}

static void count_ds(struct pio *io, struct worker *w, uint64_t bytes)
{
	uint32_t ds = io->lo->stripe_indices[w->stripe];

	pthread_mutex_lock(&io->lock);
	io->st->ds_bytes[ds] += bytes;
	io->st->ds_calls[ds]++;
	pthread_mutex_unlock(&io->lock);
}

static void count_mds(struct pio *io, uint64_t bytes)
{
	pthread_mutex_lock(&io->lock);
	io->st->mds_bytes += bytes;
	pthread_mutex_unlock(&io->lock);
}

/* The metadata server's back channel, served while the data goes
 * elsewhere. */
static void *listener_main(void *arg)
{
	struct pio *io = arg;
	bool done = false;

	while (!done) {
		if (nfs42_poll(io->mds, 100) < 0)
			break;
		pthread_mutex_lock(&io->lock);
		done = io->done;
		pthread_mutex_unlock(&io->lock);
	}
	return NULL;
}

static int io_init(struct pio *io, struct nfs42_file *f,
		   struct nfs42_layout *lo, const struct nfs42_pnfs_opts *o,
		   struct nfs42_pnfs_stats *st)
{
	memset(io, 0, sizeof(*io));
	memset(st, 0, sizeof(*st));
	if (lo->nstripes == 0 || lo->stripe_unit == 0 ||
	    lo->nstripes > NFS42_LAYOUT_MAX_DS)
		return -EINVAL;
	io->f = f;
	io->lo = lo;
	io->mds = f->cl;
	io->st = st;
	io->depth = o && o->depth ? o->depth : PNFS_DEPTH_DEFAULT;
	io->io_size = o && o->io_size ? o->io_size : lo->stripe_unit;
	if (io->io_size > lo->stripe_unit)
		io->io_size = lo->stripe_unit;
	io->read_plus = o && o->read_plus;
	io->window = o && o->window ? o->window :
				      (uint64_t)lo->stripe_unit * lo->nstripes *
					      io->depth * 2;
	pthread_mutex_init(&io->lock, NULL);
	pthread_cond_init(&io->cond, NULL);
	nfs42_layout_busy(io->mds, lo, true);
	if (pthread_create(&io->listener, NULL, listener_main, io) == 0)
		io->listening = true;
	return 0;
}

static void io_join(struct pio *io)
{
	uint32_t j;

	pthread_mutex_lock(&io->lock);
	io->done = true;
	pthread_cond_broadcast(&io->cond);
	pthread_mutex_unlock(&io->lock);
	for (j = 0; j < io->lo->nstripes; j++)
		if (io->w[j].started)
			pthread_join(io->w[j].thread, NULL);
	if (io->listening)
		pthread_join(io->listener, NULL);
	nfs42_layout_busy(io->mds, io->lo, false);
	pthread_mutex_destroy(&io->lock);
	pthread_cond_destroy(&io->cond);
}

/* Start a worker per stripe index; 0 or -errno. */
static int io_start_workers(struct pio *io, void *(*fn)(void *))
{
	uint32_t j;

	for (j = 0; j < io->lo->nstripes; j++) {
		io->w[j].io = io;
		io->w[j].stripe = j;
		if (pthread_create(&io->w[j].thread, NULL, fn, &io->w[j]) != 0)
			return -errno;
		io->w[j].started = true;
	}
	return 0;
}

/* ================================================================ read */

/* The stripe index of unit k. */
static uint32_t unit_stripe(const struct pio *io, uint64_t k)
{
	return (uint32_t)((k + io->lo->first_stripe_index) % io->lo->nstripes);
}

static void unit_range(const struct pio *io, uint64_t k, uint64_t *off,
		       uint32_t *len)
{
	uint64_t s = io->lo->pattern_offset + k * io->lo->stripe_unit;
	uint64_t e = s + io->lo->stripe_unit;

	if (s < io->start)
		s = io->start;
	if (e > io->end)
		e = io->end;
	*off = s;
	*len = (uint32_t)(e - s);
}

static void add_run(struct rd_unit *u, uint64_t off, uint64_t len, bool hole)
{
	struct run *last = u->nruns ? &u->runs[u->nruns - 1] : NULL;

	if (len == 0)
		return;
	if (last && last->hole == hole && last->off + last->len == off) {
		last->len += len;
		return;
	}
	if (u->nruns == PNFS_MAX_RUNS) {
		/* too many: this hole is delivered as zeros */
		if (hole)
			memset(u->buf + (off - u->off), 0, len);
		last->len += len;
		last->hole = false;
		return;
	}
	u->runs[u->nruns++] = (struct run){ off, len, hole };
}

/*
 * One READ or READ_PLUS of [off, off+len) of the unit on cl (a data server
 * with fh/ds_off, or the metadata server); the runs and data go into u.
 * Returns 0, or the error.  *more is set when the reply ended short of len
 * without EOF (another call continues).
 */
static int unit_result(struct rd_unit *u, const struct nfs42_res *r,
		       uint64_t off, uint64_t len, uint64_t ds_delta, bool plus,
		       uint64_t *covered, bool *eof, uint64_t *holes)
{
	uint32_t i;

	*covered = 0;
	if (!plus) {
		uint32_t n = r->u.read.len < len ? r->u.read.len :
						   (uint32_t)len;

		memcpy(u->buf + (off - u->off), r->u.read.data, n);
		add_run(u, off, n, false);
		*covered = n;
		*eof = r->u.read.eof;
		return 0;
	}
	for (i = 0; i < r->u.read_plus.n; i++) {
		const struct nfs42_rp_seg *s = &r->u.read_plus.segs[i];
		uint64_t so = s->offset - ds_delta, se = so + s->length;
		uint64_t pos = off + *covered;

		/* in order, from where we are, clipped to what was asked */
		if (s->offset < ds_delta || so > pos || se <= pos)
			return -EBADMSG;
		if (se > off + len)
			se = off + len;
		if (s->type == NFS4_CONTENT_DATA) {
			memcpy(u->buf + (pos - u->off), s->data + (pos - so),
			       se - pos);
			add_run(u, pos, se - pos, false);
		} else {
			add_run(u, pos, se - pos, true);
			*holes += se - pos;
		}
		*covered = se - off;
		if (*covered == len)
			break;
	}
	*eof = r->u.read_plus.eof;
	return 0;
}

static int read_call(struct nfs42_client *cl, const struct nfs42_fh *fh,
		     const struct nfs42_stateid *sid, uint64_t off,
		     uint32_t len, bool plus, struct nfs42_compound **cp,
		     int *idx, bool start_only)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	*cp = c;
	if (!c)
		return -ENOMEM;
	nfs42_op_putfh(c, fh);
	*idx = plus ? nfs42_op_read_plus(c, sid, off, len) :
		      nfs42_op_read(c, sid, off, len);
	rc = start_only ? nfs42_compound_start(c) : nfs42_compound_run(c);
	return rc;
}

/* Read the rest of unit u, from its got, synchronously, on cl; *data
 * counts the data bytes received. */
static int unit_read_sync(struct pio *io, struct rd_unit *u,
			  struct nfs42_client *cl, const struct nfs42_fh *fh,
			  const struct nfs42_stateid *sid, uint64_t ds_delta,
			  bool plus, uint64_t *data)
{
	while (u->got < u->len && !u->eof) {
		uint64_t off = u->off + u->got, covered = 0, holes = 0;
		uint32_t len = u->len - u->got;
		struct nfs42_compound *c;
		int idx, rc;

		if (len > io->io_size)
			len = io->io_size;
		rc = read_call(cl, fh, sid, off - ds_delta, len, plus, &c, &idx,
			       false);
		if (!rc)
			rc = unit_result(u, nfs42_res(c, idx), off, len,
					 ds_delta, plus, &covered, &u->eof,
					 &holes);
		nfs42_compound_free(c);
		if (rc)
			return rc;
		if (covered == 0 && !u->eof)
			return -EPROTO; /* no progress */
		u->got += covered;
		*data += covered - holes;
		pthread_mutex_lock(&io->lock);
		io->st->hole_bytes += holes;
		pthread_mutex_unlock(&io->lock);
	}
	return 0;
}

/* The rest of u through the metadata server. */
static int unit_read_mds(struct pio *io, struct rd_unit *u)
{
	uint64_t data = 0;
	int rc = unit_read_sync(io, u, io->mds, &io->f->fh, &io->f->stateid, 0,
				io->read_plus, &data);

	count_mds(io, data);
	return rc;
}

static void unit_ready(struct pio *io, struct rd_unit *u)
{
	pthread_mutex_lock(&io->lock);
	u->state = 2;
	pthread_cond_broadcast(&io->cond);
	pthread_mutex_unlock(&io->lock);
}

/* Wait until unit k may be started (its slot is free); false to stop. */
static bool rd_wait_slot(struct pio *io, uint64_t k, bool block)
{
	bool ok;

	pthread_mutex_lock(&io->lock);
	while (!io->done && k >= io->next_k + io->nslots && block)
		pthread_cond_wait(&io->cond, &io->lock);
	ok = !io->done && k < io->next_k + io->nslots;
	pthread_mutex_unlock(&io->lock);
	return ok;
}

struct inflight {
	struct nfs42_compound *c;
	int idx;
	struct rd_unit *u;
	uint64_t off, len;
};

static void *rd_worker(void *arg)
{
	struct worker *w = arg;
	struct pio *io = w->io;
	struct inflight fifo[64];
	uint32_t nfifo = 0, depth = io->depth > 64 ? 64 : io->depth;
	struct nfs42_stateid sid = ds_stateid(io->f);
	struct nfs42_client *ds = NULL;
	struct nfs42_stripe_loc loc;
	uint64_t k;
	int rc;

	/* the first unit of this stripe at or after k_first */
	k = io->k_first;
	while (k <= io->k_last && unit_stripe(io, k) != w->stripe)
		k++;

	for (;;) {
		bool more = k <= io->k_last;

		if (more && nfifo < depth && rd_wait_slot(io, k, nfifo == 0)) {
			struct rd_unit *u = &io->slots[k % io->nslots];
			uint64_t off;
			uint32_t len;

			unit_range(io, k, &off, &len);
			pthread_mutex_lock(&io->lock);
			u->k = k;
			u->off = off;
			u->len = len;
			u->state = 1;
			u->got = 0;
			u->eof = false;
			u->nruns = 0;
			pthread_mutex_unlock(&io->lock);
			nfs42_layout_locate(io->lo, off, &loc);
			if (!ds && io_use_ds(io, w)) {
				rc = nfs42_ds_client(io->mds, io->lo, loc.ds,
						     &ds);
				if (rc)
					ds_trouble(io, w, rc);
			}
			rc = -1;
			if (ds && io_use_ds(io, w)) {
				struct inflight *fl = &fifo[nfifo];
				uint32_t asked =
					len > io->io_size ? io->io_size : len;

				rc = read_call(ds, &io->lo->fhs[loc.fh], &sid,
					       loc.ds_offset, asked,
					       io->read_plus, &fl->c, &fl->idx,
					       true);
				if (!rc) {
					fl->u = u;
					fl->off = off;
					fl->len = asked;
					nfifo++;
				} else {
					nfs42_compound_free(fl->c);
					ds_trouble(io, w, rc);
				}
			}
			if (rc) {
				rc = unit_read_mds(io, u);
				if (rc) {
					io_fail(io, rc);
					break;
				}
				unit_ready(io, u);
			}
			k += io->lo->nstripes;
			continue;
		}
		if (nfifo > 0) {
			struct inflight fl = fifo[0];
			struct rd_unit *u = fl.u;
			uint64_t covered = 0, holes = 0, delta, data = 0;

			memmove(fifo, fifo + 1, (nfifo - 1) * sizeof(*fifo));
			nfifo--;
			nfs42_layout_locate(io->lo, u->off, &loc);
			delta = u->off - loc.ds_offset;
			rc = nfs42_compound_finish(fl.c);
			if (!rc)
				rc = unit_result(u, nfs42_res(fl.c, fl.idx),
						 fl.off, fl.len, delta,
						 io->read_plus, &covered,
						 &u->eof, &holes);
			nfs42_compound_free(fl.c);
			if (!rc) {
				u->got += covered;
				data = covered - holes;
				pthread_mutex_lock(&io->lock);
				io->st->hole_bytes += holes;
				pthread_mutex_unlock(&io->lock);
				/* short of the unit: continue on the server */
				if (io_use_ds(io, w))
					rc = unit_read_sync(
						io, u, ds, &io->lo->fhs[loc.fh],
						&sid, delta, io->read_plus,
						&data);
				count_ds(io, w, data);
			}
			if (rc)
				ds_trouble(io, w, rc);
			/* whatever is missing, through the metadata server */
			rc = unit_read_mds(io, u);
			if (rc) {
				io_fail(io, rc);
				break;
			}
			unit_ready(io, u);
			continue;
		}
		if (!more || !rd_wait_slot(io, k, true))
			break;
	}
	/* (stopped early: the in-flight calls are finished and dropped) */
	while (nfifo > 0) {
		(void)nfs42_compound_finish(fifo[nfifo - 1].c);
		nfs42_compound_free(fifo[--nfifo].c);
	}
	return NULL;
}

static int deliver_unit(struct rd_unit *u, nfs42_stream_fn fn, void *arg)
{
	uint32_t i;
	int rc;

	for (i = 0; i < u->nruns; i++) {
		const struct run *r = &u->runs[i];

		rc = fn(arg, r->off, r->len,
			r->hole ? NULL : u->buf + (r->off - u->off));
		if (rc)
			return rc;
	}
	return 0;
}

/* Wait for the workers of a range (they end after its last unit). */
static void rd_join_workers(struct pio *io)
{
	uint32_t j;

	for (j = 0; j < io->lo->nstripes; j++)
		if (io->w[j].started) {
			pthread_join(io->w[j].thread, NULL);
			io->w[j].started = false;
		}
}

/*
 * [start, end) through the stripes, in order to fn: its units read by a
 * worker per stripe index, delivered here.  *delivered: where the
 * contents given end; *shortened: the file ended before end.
 */
static int rd_range(struct pio *io, uint64_t start, uint64_t end,
		    nfs42_stream_fn fn, void *arg, uint64_t *delivered,
		    bool *shortened)
{
	const struct nfs42_layout *lo = io->lo;
	uint64_t k;
	int rc;

	io->start = start;
	io->end = end;
	io->k_first = (start - lo->pattern_offset) / lo->stripe_unit;
	io->k_last = (end - 1 - lo->pattern_offset) / lo->stripe_unit;
	io->next_k = io->k_first;
	rc = io_start_workers(io, rd_worker);
	for (k = io->k_first; !rc && k <= io->k_last; k++) {
		struct rd_unit *u = &io->slots[k % io->nslots];

		pthread_mutex_lock(&io->lock);
		while (!io->err && !(u->state == 2 && u->k == k))
			pthread_cond_wait(&io->cond, &io->lock);
		rc = io->err;
		pthread_mutex_unlock(&io->lock);
		if (rc)
			break;
		rc = deliver_unit(u, fn, arg);
		*delivered = u->off + u->got;
		*shortened = u->got < u->len;
		pthread_mutex_lock(&io->lock);
		u->state = 0;
		io->next_k = k + 1;
		pthread_cond_broadcast(&io->cond);
		pthread_mutex_unlock(&io->lock);
		if (*shortened)
			break; /* the file ends here now */
	}
	/* (workers wait for slots past a short end: stop them) */
	if (rc || *shortened)
		io_fail(io, rc);
	rd_join_workers(io);
	return rc;
}

/*
 * The data runs of [start, end) through the stripes, the holes between
 * them (SEEK on the metadata server, when skip_holes) to fn as holes: a
 * hole costs two SEEKs, not a data server call per stripe unit.
 */
static int rd_runs(struct pio *io, bool skip, uint64_t start, uint64_t end,
		   nfs42_stream_fn fn, void *arg, uint64_t *delivered)
{
	uint64_t pos = start, d, h;
	bool shortened = false;
	int rc = 0;

	while (!rc && pos < end && !shortened) {
		d = pos;
		h = end;
		if (skip) {
			rc = nfs42_next_data(io->f, pos, end, &d, &h);
			io->st->seeks += d < end ? 2 : 1;
			if (rc)
				break;
		}
		if (d > pos) {
			rc = fn(arg, pos, d - pos, NULL);
			if (rc)
				break;
			io->st->skipped_bytes += d - pos;
			*delivered = d;
		}
		if (d >= end)
			break;
		rc = rd_range(io, d, h, fn, arg, delivered, &shortened);
		pos = h;
	}
	return rc;
}

int nfs42_pnfs_read(struct nfs42_file *f, struct nfs42_layout *lo,
		    const struct nfs42_pnfs_opts *o, uint64_t offset,
		    uint64_t length, nfs42_stream_fn fn, void *arg,
		    uint64_t *end, struct nfs42_pnfs_stats *st)
{
	struct nfs42_attrs a;
	struct pio io;
	uint64_t k, size, delivered = offset;
	int rc;

	rc = nfs42_getattr_fh(f->cl, &f->fh, NULL, &a);
	if (rc)
		return rc;
	size = a.size;
	rc = io_init(&io, f, lo, o, st);
	if (rc)
		return rc;
	io.start = offset < lo->pattern_offset ? lo->pattern_offset : offset;
	io.end = offset >= size || length == NFS42_LENGTH_EOF ||
				 length > size - offset ?
			 size :
			 offset + length;
	if (offset >= size || io.start >= io.end) {
		io_join(&io);
		if (end)
			*end = offset;
		return 0;
	}
	io.nslots = io.window / lo->stripe_unit;
	if (io.nslots < lo->nstripes)
		io.nslots = lo->nstripes;
	io.slots = calloc(io.nslots, sizeof(*io.slots));
	rc = io.slots ? 0 : -ENOMEM;
	for (k = 0; !rc && k < io.nslots; k++) {
		io.slots[k].buf = malloc(lo->stripe_unit);
		if (!io.slots[k].buf)
			rc = -ENOMEM;
	}
	if (!rc)
		rc = rd_runs(&io, o && o->skip_holes, io.start, io.end, fn, arg,
			     &delivered);
	if (rc)
		io_fail(&io, rc);
	io_join(&io);
	for (k = 0; io.slots && k < io.nslots; k++)
		free(io.slots[k].buf);
	free(io.slots);
	if (end)
		*end = delivered;
	return rc;
}

/* =============================================================== write */

struct piece {
	uint64_t off;
	uint32_t len;
	uint8_t *buf;
	uint8_t verf[NFS4_VERIFIER_SIZE];
	struct piece *next;
};

static void piece_free(struct pio *io, struct piece *p)
{
	pthread_mutex_lock(&io->lock);
	io->inflight -= p->len;
	pthread_cond_broadcast(&io->cond);
	pthread_mutex_unlock(&io->lock);
	free(p->buf);
	free(p);
}

static void note_end(struct pio *io, uint64_t end, bool via_ds)
{
	pthread_mutex_lock(&io->lock);
	if (via_ds && end > io->ds_end)
		io->ds_end = end;
	if (!via_ds && end > io->mds_end)
		io->mds_end = end;
	pthread_mutex_unlock(&io->lock);
}

/* p through the metadata server, FILE_SYNC: durable when acknowledged. */
static int piece_write_mds(struct pio *io, struct piece *p)
{
	int rc = nfs42_pwrite(io->f, p->buf, p->len, p->off, FILE_SYNC4);

	if (!rc) {
		count_mds(io, p->len);
		note_end(io, p->off + p->len, false);
	}
	return rc;
}

/* WRITE p from byte done on to the data server (UNSTABLE), short writes
 * continued. */
static int piece_write_ds_from(struct pio *io, struct worker *w,
			       struct nfs42_client *ds, struct piece *p,
			       uint32_t done)
{
	struct nfs42_stateid sid = ds_stateid(io->f);
	struct nfs42_stripe_loc loc;

	nfs42_layout_locate(io->lo, p->off, &loc);
	while (done < p->len) {
		struct nfs42_compound *c = nfs42_compound_new(ds);
		const struct nfs42_res *r;
		int idx, rc;

		if (!c)
			return -ENOMEM;
		nfs42_op_putfh(c, &io->lo->fhs[loc.fh]);
		idx = nfs42_op_write(c, &sid, loc.ds_offset + done, UNSTABLE4,
				     p->buf + done, p->len - done);
		rc = nfs42_compound_run(c);
		r = nfs42_res(c, idx);
		if (!rc && (!r || r->u.write.count == 0 ||
			    r->u.write.count > p->len - done))
			rc = -EPROTO;
		if (!rc) {
			if (done == 0 ||
			    memcmp(p->verf, r->u.write.verf, sizeof(p->verf)))
				memcpy(p->verf, r->u.write.verf,
				       sizeof(p->verf));
			done += r->u.write.count;
		}
		nfs42_compound_free(c);
		if (rc)
			return rc;
	}
	count_ds(io, w, p->len);
	note_end(io, p->off + p->len, true);
	return 0;
}

/* WRITE all of p to the data server (UNSTABLE), short writes continued. */
static int piece_write_ds(struct pio *io, struct worker *w,
			  struct nfs42_client *ds, struct piece *p)
{
	return piece_write_ds_from(io, w, ds, p, 0);
}

/* A WRITE of a whole piece sent, its reply not taken yet; or (commit) a
 * COMMIT sent without waiting, for the pieces covered, all of them
 * answered before it was sent. */
struct wr_inflight {
	struct nfs42_compound *c;
	int idx;
	struct piece *p;
	bool commit;
	struct piece *covered;
	uint64_t covered_bytes;
};

/* Send the WRITE of all of p (UNSTABLE) without waiting: 0 with fl set. */
static int piece_start_ds(struct pio *io, struct nfs42_client *ds,
			  struct piece *p, struct wr_inflight *fl)
{
	struct nfs42_stateid sid = ds_stateid(io->f);
	struct nfs42_stripe_loc loc;
	int rc;

	nfs42_layout_locate(io->lo, p->off, &loc);
	memset(fl, 0, sizeof(*fl));
	fl->p = p;
	fl->c = nfs42_compound_new(ds);
	if (!fl->c)
		return -ENOMEM;
	nfs42_op_putfh(fl->c, &io->lo->fhs[loc.fh]);
	fl->idx = nfs42_op_write(fl->c, &sid, loc.ds_offset, UNSTABLE4, p->buf,
				 p->len);
	rc = nfs42_compound_start(fl->c);
	if (rc) {
		nfs42_compound_free(fl->c);
		fl->c = NULL;
	}
	return rc;
}

/* The reply of a started WRITE (a short one continued, waiting): 0 when
 * all of the piece is written, as piece_write_ds would. */
static int piece_finish_ds(struct pio *io, struct worker *w,
			   struct nfs42_client *ds, struct wr_inflight *fl)
{
	struct piece *p = fl->p;
	const struct nfs42_res *r;
	uint32_t done = 0;
	int rc = nfs42_compound_finish(fl->c);

	r = nfs42_res(fl->c, fl->idx);
	if (!rc && (!r || r->u.write.count == 0 || r->u.write.count > p->len))
		rc = -EPROTO;
	if (!rc) {
		memcpy(p->verf, r->u.write.verf, sizeof(p->verf));
		done = r->u.write.count;
	}
	nfs42_compound_free(fl->c);
	fl->c = NULL;
	if (rc)
		return rc;
	if (done < p->len)
		return piece_write_ds_from(io, w, ds, p, done);
	count_ds(io, w, p->len);
	note_end(io, p->off + p->len, true);
	return 0;
}

/* PUTFH COMMIT of w's file on its data server, not sent (NULL: ENOMEM). */
static struct nfs42_compound *ds_commit_new(struct pio *io, struct worker *w,
					    struct nfs42_client *ds, int *idx)
{
	struct nfs42_compound *c = nfs42_compound_new(ds);

	if (!c)
		return NULL;
	nfs42_op_putfh(c, &io->lo->fhs[io->lo->nfh == 1 ? 0 : w->stripe]);
	*idx = nfs42_op_commit(c, 0, 0);
	return c;
}

/* A sent COMMIT's reply: 0 with *verf, or the error; c freed. */
static int ds_commit_finish(struct nfs42_compound *c, int idx, uint8_t *verf)
{
	const struct nfs42_res *r;
	int rc = nfs42_compound_finish(c);

	r = nfs42_res(c, idx);
	if (!rc && r)
		memcpy(verf, r->u.commit.verf, NFS4_VERIFIER_SIZE);
	else if (!rc)
		rc = -EPROTO;
	nfs42_compound_free(c);
	return rc;
}

/* COMMIT on the data server; 0 with *verf, or the error. */
static int ds_commit(struct pio *io, struct worker *w, struct nfs42_client *ds,
		     uint8_t *verf)
{
	int idx, rc;
	struct nfs42_compound *c = ds_commit_new(io, w, ds, &idx);

	if (!c)
		return -ENOMEM;
	rc = nfs42_compound_start(c);
	if (rc) {
		nfs42_compound_free(c);
		return rc;
	}
	return ds_commit_finish(c, idx, verf);
}

/*
 * Make the worker's unstable pieces durable: COMMIT on its data server,
 * pieces whose verifier is not the commit's written again (a restart of
 * the server lost them) up to PNFS_RETRIES times; any failure sends them
 * through the metadata server instead.  0 or the error of that.
 */
static int worker_commit(struct pio *io, struct worker *w,
			 struct nfs42_client *ds)
{
	uint8_t verf[NFS4_VERIFIER_SIZE];
	struct piece *p, *next, *again;
	int tries, rc = -1;

	for (tries = 0; w->unstable && tries < PNFS_RETRIES; tries++) {
		rc = ds && !w->ds_dead ? ds_commit(io, w, ds, verf) : -1;
		if (rc) {
			if (rc > 0 || rc < -1)
				ds_trouble(io, w, rc);
			break;
		}
		again = NULL;
		for (p = w->unstable; p; p = next) {
			next = p->next;
			if (!memcmp(p->verf, verf, sizeof(verf))) {
				piece_free(io, p);
				continue;
			}
			pthread_mutex_lock(&io->lock);
			io->st->rewrites++;
			pthread_mutex_unlock(&io->lock);
			if (piece_write_ds(io, w, ds, p) != 0) {
				p->next = again;
				again = p;
				rc = -1;
				continue;
			}
			p->next = again;
			again = p;
		}
		w->unstable = again;
	}
	/* left over: through the metadata server, durably */
	for (p = w->unstable; p; p = next) {
		next = p->next;
		pthread_mutex_lock(&io->lock);
		io->st->rewrites++;
		pthread_mutex_unlock(&io->lock);
		rc = piece_write_mds(io, p);
		if (rc) {
			w->unstable = p;
			return rc;
		}
		piece_free(io, p);
	}
	w->unstable = NULL;
	w->unstable_bytes = 0;
	return 0;
}

/* With io->lock held: w's first queued piece off its queue (NULL: none,
 * or the transfer failed). */
static struct piece *worker_dequeue(struct pio *io, struct worker *w)
{
	struct piece *p = io->err ? NULL : w->queue;

	if (p) {
		w->queue = p->next;
		if (!w->queue)
			w->queue_tail = NULL;
		p->next = NULL;
	}
	return p;
}

/*
 * The next piece for w (NULL: no more); waits for the producer.  *flush is
 * set instead when the producer waits for room while w holds unstable
 * pieces: only a COMMIT frees them.
 */
static struct piece *worker_pop(struct pio *io, struct worker *w, bool *flush)
{
	struct piece *p;

	*flush = false;
	pthread_mutex_lock(&io->lock);
	while (!w->queue && !io->produced && !io->err) {
		if (io->producer_waiting && w->unstable) {
			*flush = true;
			pthread_mutex_unlock(&io->lock);
			return NULL;
		}
		pthread_cond_wait(&io->cond, &io->lock);
	}
	p = worker_dequeue(io, w);
	pthread_mutex_unlock(&io->lock);
	return p;
}

/* The next piece for w if one is queued now (NULL: none yet, or no more). */
static struct piece *worker_trypop(struct pio *io, struct worker *w)
{
	struct piece *p;

	pthread_mutex_lock(&io->lock);
	p = worker_dequeue(io, w);
	pthread_mutex_unlock(&io->lock);
	return p;
}

/* p (not written through the data server): what w holds unstable and p
 * through the metadata server, durably. */
static int wr_via_mds(struct pio *io, struct worker *w, struct piece *p)
{
	int rc = worker_commit(io, w, NULL);

	if (!rc)
		rc = piece_write_mds(io, p);
	if (!rc)
		piece_free(io, p);
	return rc;
}

/* The pieces of fl's COMMIT back among w's unstable ones. */
static void wr_uncover(struct worker *w, struct wr_inflight *fl)
{
	struct piece *p, *next;

	for (p = fl->covered; p; p = next) {
		next = p->next;
		p->next = w->unstable;
		w->unstable = p;
	}
	w->unstable_bytes += fl->covered_bytes;
	fl->covered = NULL;
	fl->covered_bytes = 0;
}

/*
 * Send a COMMIT of what w holds unstable without waiting for it: the
 * WRITEs after it go on meanwhile (waiting for every WRITE in flight and
 * then the COMMIT left each data server's link idle for a reply, the
 * fsync and the pipeline's refill every 4 MiB, issue #26).  It covers only
 * the pieces answered before it was sent, which it takes along.
 */
static int wr_commit_start(struct pio *io, struct worker *w,
			   struct nfs42_client *ds, struct wr_inflight *fl)
{
	int rc;

	memset(fl, 0, sizeof(*fl));
	fl->c = ds_commit_new(io, w, ds, &fl->idx);
	if (!fl->c)
		return -ENOMEM;
	rc = nfs42_compound_start(fl->c);
	if (rc) {
		nfs42_compound_free(fl->c);
		fl->c = NULL;
		return rc;
	}
	fl->commit = true;
	fl->covered = w->unstable;
	fl->covered_bytes = w->unstable_bytes;
	w->unstable = NULL;
	w->unstable_bytes = 0;
	return 0;
}

/*
 * A COMMIT sent by wr_commit_start answered: the pieces it covered with
 * the commit's verifier are durable and freed; any other (the server
 * restarted since their WRITE) or a failed COMMIT: back among w's
 * unstable pieces, made durable now as worker_commit does (written again,
 * or through the metadata server).
 */
static int wr_commit_finish(struct pio *io, struct worker *w,
			    struct nfs42_client *ds, struct wr_inflight *fl)
{
	uint8_t verf[NFS4_VERIFIER_SIZE];
	struct piece *p, *next, *keep = NULL;
	uint64_t keep_bytes = 0;
	int rc = ds_commit_finish(fl->c, fl->idx, verf);

	fl->c = NULL;
	if (rc) {
		ds_trouble(io, w, rc);
		wr_uncover(w, fl);
		return worker_commit(io, w, NULL);
	}
	for (p = fl->covered; p; p = next) {
		next = p->next;
		if (!memcmp(p->verf, verf, sizeof(verf))) {
			piece_free(io, p);
			continue;
		}
		p->next = keep;
		keep = p;
		keep_bytes += p->len;
	}
	fl->covered = keep;
	fl->covered_bytes = keep_bytes;
	if (!keep)
		return 0;
	wr_uncover(w, fl);
	return worker_commit(io, w, ds);
}

/* The oldest WRITE in flight answered: its piece is unstable on the data
 * server, or (the server failed) goes through the metadata server; or the
 * oldest is a COMMIT, answered. */
static int wr_finish_oldest(struct pio *io, struct worker *w,
			    struct nfs42_client *ds, struct wr_inflight *fifo,
			    uint32_t *nfifo)
{
	struct wr_inflight fl = fifo[0];
	int rc;

	memmove(fifo, fifo + 1, (*nfifo - 1) * sizeof(*fifo));
	(*nfifo)--;
	if (fl.commit)
		return wr_commit_finish(io, w, ds, &fl);
	rc = piece_finish_ds(io, w, ds, &fl);
	if (rc) {
		ds_trouble(io, w, rc);
		return wr_via_mds(io, w, fl.p);
	}
	fl.p->next = w->unstable;
	w->unstable = fl.p;
	w->unstable_bytes += fl.p->len;
	return 0;
}

/* Every WRITE in flight answered, then a COMMIT of what w holds
 * unstable (a COMMIT covers only writes already answered). */
static int wr_drain_commit(struct pio *io, struct worker *w,
			   struct nfs42_client *ds, struct wr_inflight *fifo,
			   uint32_t *nfifo)
{
	int rc = 0;

	while (*nfifo > 0 && !rc)
		rc = wr_finish_oldest(io, w, ds, fifo, nfifo);
	return rc ? rc : worker_commit(io, w, ds);
}

/* batch bytes unstable: a COMMIT among the WRITEs in flight (one at a
 * time), or, the data server given up, what w holds through the
 * metadata server. */
static int wr_commit(struct pio *io, struct worker *w, struct nfs42_client *ds,
		     struct wr_inflight *fifo, uint32_t *nfifo)
{
	uint32_t i;

	for (i = 0; i < *nfifo; i++)
		if (fifo[i].commit)
			return 0; /* its answer first */
	if (!ds || w->ds_dead || wr_commit_start(io, w, ds, &fifo[*nfifo]))
		return wr_drain_commit(io, w, ds, fifo, nfifo);
	(*nfifo)++;
	return 0;
}

/*
 * One data server's stripes: up to depth WRITEs in flight (one at a time
 * left the server's link idle for every reply, and a data server whose
 * writes are synchronous, CephFS's with the file open on two clients,
 * paced the whole transfer), a COMMIT when batch bytes are unstable or
 * the producer waits for room in the window.
 */
static void *wr_worker(void *arg)
{
	struct worker *w = arg;
	struct pio *io = w->io;
	uint64_t batch = io->window / (2 * io->lo->nstripes);
	struct wr_inflight fifo[64];
	uint32_t nfifo = 0, depth = io->depth > 64 ? 64 : io->depth;
	struct nfs42_client *ds = NULL;
	struct nfs42_stripe_loc loc;
	struct piece *p;
	bool flush;
	int rc = 0;

	if (batch < io->io_size)
		batch = io->io_size;
	for (;;) {
		flush = false;
		p = NULL;
		if (nfifo == 0)
			p = worker_pop(io, w, &flush);
		else if (nfifo < depth)
			p = worker_trypop(io, w);
		if (flush) {
			rc = wr_drain_commit(io, w, ds, fifo, &nfifo);
			if (rc)
				break;
			continue;
		}
		if (!p && nfifo > 0) {
			rc = wr_finish_oldest(io, w, ds, fifo, &nfifo);
			if (!rc && w->unstable_bytes >= batch)
				rc = wr_commit(io, w, ds, fifo, &nfifo);
			if (rc)
				break;
			continue;
		}
		if (!p)
			break;
		if (!ds && io_use_ds(io, w)) {
			nfs42_layout_locate(io->lo, p->off, &loc);
			rc = nfs42_ds_client(io->mds, io->lo, loc.ds, &ds);
			if (rc) {
				ds_trouble(io, w, rc);
				ds = NULL;
			}
			if (ds && depth > nfs42_slot_count(ds))
				depth = nfs42_slot_count(ds);
			if (depth == 0)
				depth = 1;
		}
		rc = -1;
		if (ds && io_use_ds(io, w)) {
			rc = piece_start_ds(io, ds, p, &fifo[nfifo]);
			if (!rc)
				nfifo++;
			else
				ds_trouble(io, w, rc);
		}
		/* this data server is out: what it holds unstable and
		 * this piece go through the metadata server (the writes in
		 * flight are answered first)
		 */
		if (rc) {
			rc = 0;
			while (nfifo > 0 && !rc)
				rc = wr_finish_oldest(io, w, ds, fifo, &nfifo);
			if (!rc)
				rc = wr_via_mds(io, w, p);
			else
				piece_free(io, p);
			if (rc)
				break;
		}
	}
	if (!rc)
		rc = wr_drain_commit(io, w, ds, fifo, &nfifo);
	/* (failed: the writes in flight are answered and dropped, the
	 * pieces of a COMMIT in flight kept with the unstable ones) */
	while (nfifo > 0) {
		(void)nfs42_compound_finish(fifo[0].c);
		nfs42_compound_free(fifo[0].c);
		if (fifo[0].commit)
			wr_uncover(w, &fifo[0]);
		else
			piece_free(io, fifo[0].p);
		memmove(fifo, fifo + 1, (--nfifo) * sizeof(*fifo));
	}
	if (rc)
		io_fail(io, rc);
	return NULL;
}

/* Queue [off, off+len) of fd (read now) in pieces along stripe units. */
static int produce(struct pio *io, int fd, uint64_t off, uint64_t len,
		   bool seekable)
{
	while (len > 0) {
		struct nfs42_stripe_loc loc;
		struct piece *p;
		uint64_t n;
		ssize_t got;
		struct worker *w;

		nfs42_layout_locate(io->lo, off, &loc);
		n = loc.unit_end - off;
		if (n > io->io_size)
			n = io->io_size;
		if (n > len)
			n = len;
		pthread_mutex_lock(&io->lock);
		while (!io->err && io->inflight + n > io->window &&
		       io->inflight > 0) {
			io->producer_waiting = true;
			pthread_cond_broadcast(&io->cond);
			pthread_cond_wait(&io->cond, &io->lock);
		}
		io->producer_waiting = false;
		if (io->err) {
			pthread_mutex_unlock(&io->lock);
			return io->err;
		}
		io->inflight += n;
		pthread_mutex_unlock(&io->lock);

		p = calloc(1, sizeof(*p));
		if (p)
			p->buf = malloc(n);
		if (!p || !p->buf) {
			free(p);
			return -ENOMEM;
		}
		p->off = off;
		p->len = 0;
		while (p->len < n) {
			got = seekable ? pread(fd, p->buf + p->len, n - p->len,
					       (off_t)(off + p->len)) :
					 read(fd, p->buf + p->len, n - p->len);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				break;
			p->len += got;
		}
		if (p->len < n) {
			/* (a regular file shrank, or a pipe ended) */
			pthread_mutex_lock(&io->lock);
			io->inflight -= n - p->len;
			pthread_mutex_unlock(&io->lock);
			if (p->len == 0) {
				free(p->buf);
				free(p);
				return 1; /* the end of fd */
			}
			n = p->len;
		}
		w = &io->w[loc.stripe];
		pthread_mutex_lock(&io->lock);
		if (off + n > io->prod_end)
			io->prod_end = off + n;
		if (w->queue_tail)
			w->queue_tail->next = p;
		else
			w->queue = p;
		w->queue_tail = p;
		pthread_cond_broadcast(&io->cond);
		pthread_mutex_unlock(&io->lock);
		off += n;
		len -= n;
	}
	return 0;
}

/* Queue all of fd: data extents of a regular file, else everything. */
static int produce_fd(struct pio *io, int fd, uint64_t *size)
{
	struct stat st;
	uint64_t pos = 0;
	int rc = 0;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		while (rc == 0) {
			rc = produce(io, fd, pos, io->io_size, false);
			if (rc == 0)
				pos += io->io_size;
		}
		/* (a partial last piece was queued with its length) */
		pthread_mutex_lock(&io->lock);
		*size = io->prod_end;
		pthread_mutex_unlock(&io->lock);
		return rc == 1 ? 0 : rc;
	}
	*size = (uint64_t)st.st_size;
	while (pos < *size && rc == 0) {
		off_t data = lseek(fd, (off_t)pos, SEEK_DATA);
		off_t hole;

		if (data < 0 && errno == ENXIO)
			break; /* a hole to the end */
		if (data < 0) {
			/* no SEEK_DATA here: all data */
			data = (off_t)pos;
			hole = (off_t)*size;
		} else {
			hole = lseek(fd, data, SEEK_HOLE);
			if (hole < 0)
				hole = (off_t)*size;
		}
		if ((uint64_t)hole > *size)
			hole = (off_t)*size;
		rc = produce(io, fd, (uint64_t)data, (uint64_t)(hole - data),
			     true);
		pos = (uint64_t)hole;
	}
	return rc == 1 ? 0 : rc;
}

int nfs42_pnfs_write_fd(struct nfs42_file *f, struct nfs42_layout *lo,
			const struct nfs42_pnfs_opts *o, int fd, uint64_t *size,
			struct nfs42_pnfs_stats *st)
{
	struct pio io;
	uint64_t total = 0, ds_end, end;
	uint32_t j;
	int rc;

	rc = io_init(&io, f, lo, o, st);
	if (rc)
		return rc;
	rc = io_start_workers(&io, wr_worker);
	if (!rc)
		rc = produce_fd(&io, fd, &total);
	pthread_mutex_lock(&io.lock);
	io.produced = true;
	if (rc && !io.err)
		io.err = rc;
	pthread_cond_broadcast(&io.cond);
	pthread_mutex_unlock(&io.lock);
	for (j = 0; j < lo->nstripes; j++)
		if (io.w[j].started) {
			pthread_join(io.w[j].thread, NULL);
			io.w[j].started = false;
		}
	rc = io.err;
	ds_end = io.ds_end;
	end = io.ds_end > io.mds_end ? io.ds_end : io.mds_end;
	/* pieces left queued after a failure */
	for (j = 0; j < lo->nstripes; j++) {
		struct piece *p, *next;

		for (p = io.w[j].queue; p; p = next) {
			next = p->next;
			free(p->buf);
			free(p);
		}
		for (p = io.w[j].unstable; p; p = next) {
			next = p->next;
			free(p->buf);
			free(p);
		}
	}
	io_join(&io);
	if (rc)
		return rc;

	/* the size the data servers' writes gave the file, made visible */
	if (ds_end > 0)
		rc = nfs42_layout_commit(f, lo, ds_end - 1, NULL);
	/* a trailing hole, or a pipe's length */
	if (!rc && total > end) {
		struct nfs42_sattr sa;

		nfs42_sattr_init(&sa);
		nfs42_sattr_size(&sa, total);
		rc = nfs42_file_setattr(f, &sa);
	}
	if (size)
		*size = total > end ? total : end;
	return rc;
}
