/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * The metadata server's record of the layouts it granted, the grant lists
 * it writes for the data servers, and the recall rules (RFC 8881 12.5.5):
 * what would make another client's layout wrong waits for it.
 *
 * Records are kept per file (its device and kernel handle, whatever export
 * it is reached through): which clients hold how many segments of which
 * iomode, each under a grant of its own.  A grant is a 64-bit id, named in
 * the data-server handles of the client's layouts (sparse_fh.h) and listed
 * with its iomode in the file's grant xattr (sparse_fence.c) while the
 * client holds a segment of the file and has not been fenced: a data
 * server does I/O only under a listed grant.  A record lasts from LAYOUTGET
 * (a segment granted) to the FSAL layoutreturn that disposes of it, which
 * Ganesha calls for every way a layout ends: LAYOUTRETURN, a return on
 * CLOSE, a revocation (recall unanswered, lease expired, export removed),
 * a layout state deleted with segments on it (patch 0119).  The grant
 * leaves the list with the client's last segment, or at once when the
 * layout is revoked or fenced, so a returned or recalled layout's handles
 * are dead on every data server.
 *
 * Before a change, through any export of the filesystem, that would make a
 * layout wrong -- a truncate (SETATTR of the size, an OPEN that truncates),
 * a DEALLOCATE, a COPY or CLONE into the file, the removal or replacement
 * of its last name -- sparse_layouts_conflict() looks for other clients'
 * layouts (an OPEN that denies writing: their RW layouts).  If there are,
 * it asks Ganesha to send them CB_LAYOUTRECALL (once, through the exports
 * that granted them) and the operation answers NFS4ERR_DELAY (the client
 * retries, as for a delegation); LAYOUTGETs meanwhile answer
 * NFS4ERR_RECALLCONFLICT.  When the layouts are returned the operation goes
 * ahead; if they are not within a lease period of the recall, their grants
 * are withdrawn (fenced) and the operation goes ahead.  The client doing
 * the change keeps its own layouts.
 *
 * The grant list of a file is written from the record (sparse_lo_sync)
 * under an exclusive flock of the file, which a data server's write holds
 * shared from its check of the list to the end of its pwrite: when the
 * list without a grant is written, no write under that grant is under way
 * on any head, and none can start.
 *
 * Locking: sparse_lo.mtx guards the table and every entry; nothing is
 * called with it held but memory allocation.  The flock of a file is taken
 * without it (it waits for data-server writes in flight), never around an
 * up-call.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>

#include "fsal.h"
#include "fsal_up.h"
#include "fsal_pnfs.h"
#include "fsal_convert.h"
#include "nfs_core.h"
#include "export_mgr.h"
#include "sparse_int.h"
#include "sparse_pnfs.h"

#define SPARSE_LO_BUCKETS 251

struct sparse_lo_holder {
	clientid4 client;
	uint64_t grant;
	uint16_t export_id; /* the export it came through: its recalls */
	bool fenced; /* its grant withdrawn (revoked, or not returned) */
	uint32_t nread, nrw; /* segments held, by iomode */
};

struct sparse_lo_file {
	struct glist_head link;
	dev_t dev;
	struct sparse_fh fh; /* key form, as the first export made it */
	uint32_t nholders, cap;
	struct sparse_lo_holder *holders;
	int64_t recall_ms; /* recall outstanding since (0: none) */
	/* changes of the grant list, and the last one written */
	uint64_t gen, synced;
};

/* What LAYOUTGET stores with a segment (fsal_seg_data). */
struct sparse_lo_seg {
	dev_t dev;
	struct sparse_fh fh;
	clientid4 client;
	uint64_t grant;
	uint8_t iomode;
};

static struct {
	pthread_mutex_t mtx;
	struct glist_head bucket[SPARSE_LO_BUCKETS];
	bool ready;
	uint64_t next_grant;
	/* files with a record (read without mtx: none, nothing to look up) */
	uint32_t nfiles;
} sparse_lo = { .mtx = PTHREAD_MUTEX_INITIALIZER };

static int64_t sparse_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t sparse_lease_ms(void)
{
	return (int64_t)nfs_param.nfsv4_param.lease_lifetime * 1000;
}

/* The client of the current operation, or 0 when it has none (NFSv3). */
static clientid4 sparse_caller(void)
{
	return op_ctx != NULL && op_ctx->clientid != NULL ? *op_ctx->clientid :
							    0;
}

/* Is f the file with kernel handle of fh on dev? */
static bool sparse_lo_same(const struct sparse_lo_file *f, dev_t dev,
			   const struct sparse_fh *fh)
{
	const uint8_t *a, *b;
	size_t alen, blen;

	if (f->dev != dev ||
	    sparse_fh_kernel_type(&f->fh) != sparse_fh_kernel_type(fh))
		return false;
	a = sparse_fh_kernel_bytes(&f->fh, &alen);
	b = sparse_fh_kernel_bytes(fh, &blen);
	return alen == blen && memcmp(a, b, alen) == 0;
}

/* Under mtx: the record of fh on dev, made when make. */
static struct sparse_lo_file *
sparse_lo_find(dev_t dev, const struct sparse_fh *fh, bool make)
{
	size_t klen;
	const uint8_t *k = sparse_fh_kernel_bytes(fh, &klen);
	uint64_t h =
		sparse_siphash24((const uint8_t *)"sparse-layouts!", k, klen);
	struct glist_head *bucket = &sparse_lo.bucket[h % SPARSE_LO_BUCKETS];
	struct glist_head *node;
	struct sparse_lo_file *f;
	int i;

	if (!sparse_lo.ready) {
		for (i = 0; i < SPARSE_LO_BUCKETS; i++)
			glist_init(&sparse_lo.bucket[i]);
		sparse_lo.ready = true;
	}
	glist_for_each(node, bucket)
	{
		f = glist_entry(node, struct sparse_lo_file, link);
		if (sparse_lo_same(f, dev, fh))
			return f;
	}
	if (!make)
		return NULL;
	f = gsh_calloc(1, sizeof(*f));
	f->dev = dev;
	f->fh = *fh;
	glist_add_tail(bucket, &f->link);
	__atomic_add_fetch(&sparse_lo.nfiles, 1, __ATOMIC_RELAXED);
	return f;
}

/* Under mtx: a holder's grant is listed (a data server takes its I/O). */
static bool sparse_lo_live(const struct sparse_lo_holder *h)
{
	return !h->fenced && h->nread + h->nrw > 0;
}

static uint8_t sparse_lo_iomode(const struct sparse_lo_holder *h)
{
	return h->nrw > 0 ? SPARSE_DSFH_RW : SPARSE_DSFH_READ;
}

/* Under mtx: drop a record nobody holds, recalls or has to write. */
static void sparse_lo_tidy(struct sparse_lo_file *f)
{
	if (f->nholders != 0 || f->recall_ms != 0 || f->synced < f->gen)
		return;
	glist_del(&f->link);
	gsh_free(f->holders);
	gsh_free(f);
	__atomic_sub_fetch(&sparse_lo.nfiles, 1, __ATOMIC_RELAXED);
}

/* Under mtx: the holder of grant in f, or NULL. */
static struct sparse_lo_holder *
sparse_lo_holder(struct sparse_lo_file *f, clientid4 client, uint64_t grant)
{
	uint32_t i;

	for (i = 0; i < f->nholders; i++)
		if (f->holders[i].client == client &&
		    f->holders[i].grant == grant)
			return &f->holders[i];
	return NULL;
}

/* Under mtx: client's live holder through export_id, made when make
 * (NULL with SPARSE_GRANTS_MAX live ones already). */
static struct sparse_lo_holder *sparse_lo_holder_for(struct sparse_lo_file *f,
						     clientid4 client,
						     uint16_t export_id)
{
	struct sparse_lo_holder *h;
	uint32_t i, live = 0;

	for (i = 0; i < f->nholders; i++) {
		h = &f->holders[i];
		if (h->client == client && h->export_id == export_id &&
		    !h->fenced)
			return h;
		live += sparse_lo_live(h);
	}
	if (live >= SPARSE_GRANTS_MAX)
		return NULL;
	if (f->nholders == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 4;
		f->holders =
			gsh_realloc(f->holders, f->cap * sizeof(*f->holders));
	}
	h = &f->holders[f->nholders++];
	*h = (struct sparse_lo_holder){ .client = client,
					.grant = ++sparse_lo.next_grant,
					.export_id = export_id };
	return h;
}

/* Under mtx: forget a holder with no segment left. */
static void sparse_lo_holder_drop(struct sparse_lo_file *f,
				  struct sparse_lo_holder *h)
{
	*h = f->holders[--f->nholders];
}

/* Under mtx: f's grant list as the record has it now. */
static uint32_t sparse_lo_list(const struct sparse_lo_file *f,
			       struct sparse_grant *g)
{
	uint32_t i, n = 0;

	for (i = 0; i < f->nholders && n < SPARSE_GRANTS_MAX; i++)
		if (sparse_lo_live(&f->holders[i])) {
			g[n].id = f->holders[i].grant;
			g[n].iomode = sparse_lo_iomode(&f->holders[i]);
			n++;
		}
	return n;
}

/*
 * Write the grant list of fh (on dev) as the record has it, unless a
 * write of change need (or a later one) is done already; through exp's
 * root (any export of the filesystem opens the file).  Under an exclusive
 * flock of the file: once this returns 0, no data server is writing under
 * a grant the record had withdrawn by change need, and none will.  A file
 * that is gone has nothing left to write to.  0 or -errno (-EWOULDBLOCK:
 * the open would break a lease, recalled meanwhile).
 */
static int sparse_lo_sync(struct sparse_export *exp, dev_t dev,
			  const struct sparse_fh *fh, uint64_t need)
{
	struct sparse_grant g[SPARSE_GRANTS_MAX];
	struct sparse_lo_file *f;
	uint64_t gen = 0;
	uint32_t n = 0;
	bool done;
	int fd, rc;

	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	f = sparse_lo_find(dev, fh, false);
	done = f == NULL || f->synced >= need;
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
	if (done)
		return 0;

	fd = sparse_open_fh(exp, fh, O_RDONLY);
	if (fd < 0 && fd != -ESTALE)
		return fd;
	while (fd >= 0 && flock(fd, LOCK_EX) != 0) {
		if (errno != EINTR) {
			rc = -errno;
			close(fd);
			return rc;
		}
	}

	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	f = sparse_lo_find(dev, fh, false);
	if (f != NULL) {
		gen = f->gen;
		n = sparse_lo_list(f, g);
	}
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);

	rc = fd >= 0 ? sparse_grants_put(fd, g, n) : 0;
	if (rc == 0) {
		PTHREAD_MUTEX_lock(&sparse_lo.mtx);
		f = sparse_lo_find(dev, fh, false);
		if (f != NULL) {
			if (f->synced < gen)
				f->synced = gen;
			sparse_lo_tidy(f);
		}
		PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
	} else {
		LogCrit(COMPONENT_PNFS,
			"FSAL_SPARSE: could not write the layout grants of a file in %s: %s",
			exp->root_path, strerror(-rc));
	}
	if (fd >= 0) {
		(void)flock(fd, LOCK_UN);
		close(fd);
	}
	return rc;
}

static nfsstat4 sparse_lo_nfs4_error(int rc)
{
	switch (-rc) {
	case ESTALE:
		return NFS4ERR_STALE;
	case EWOULDBLOCK:
		return NFS4ERR_DELAY;
	default:
		return NFS4ERR_LAYOUTUNAVAILABLE;
	}
}

nfsstat4 sparse_layouts_grant(struct sparse_export *exp,
			      const struct sparse_fh *fh, uint32_t iomode,
			      uint64_t *grant, void **seg_out)
{
	dev_t dev = exp->root_dev;
	struct sparse_lo_seg *seg;
	struct sparse_lo_holder *h;
	struct sparse_lo_file *f;
	bool live, rw;
	uint64_t need;
	int rc;

	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	f = sparse_lo_find(dev, fh, true);
	/* a recall of this file's layouts is out: not now (RFC 8881
	 * 18.43.3)
	 */
	if (f->recall_ms != 0 &&
	    sparse_now_ms() - f->recall_ms < sparse_lease_ms()) {
		PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
		return NFS4ERR_RECALLCONFLICT;
	}
	h = sparse_lo_holder_for(f, sparse_caller(), exp->export.export_id);
	if (h == NULL) {
		sparse_lo_tidy(f);
		PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
		return NFS4ERR_LAYOUTTRYLATER;
	}
	live = sparse_lo_live(h);
	rw = h->nrw > 0;
	if (iomode == LAYOUTIOMODE4_RW)
		h->nrw++;
	else
		h->nread++;
	if (!live || rw != (h->nrw > 0))
		f->gen++;
	need = f->gen;
	*grant = h->grant;
	seg = gsh_malloc(sizeof(*seg));
	*seg = (struct sparse_lo_seg){ .dev = dev,
				       .fh = *fh,
				       .client = h->client,
				       .grant = h->grant,
				       .iomode = iomode == LAYOUTIOMODE4_RW ?
							 SPARSE_DSFH_RW :
							 SPARSE_DSFH_READ };
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);

	/* listed before the client can use it */
	rc = sparse_lo_sync(exp, dev, fh, need);
	if (rc != 0) {
		sparse_layouts_returned(exp, seg, false);
		return sparse_lo_nfs4_error(rc);
	}
	*seg_out = seg;
	return NFS4_OK;
}

void sparse_layouts_returned(struct sparse_export *exp, void *seg_data,
			     bool revoked)
{
	struct sparse_lo_seg *seg = seg_data;
	struct sparse_lo_holder *h;
	struct sparse_lo_file *f;
	bool live, found;
	uint64_t need = 0;
	uint8_t mode;

	if (seg == NULL)
		return;
	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	f = sparse_lo_find(seg->dev, &seg->fh, false);
	h = f != NULL ? sparse_lo_holder(f, seg->client, seg->grant) : NULL;
	found = h != NULL;
	if (h != NULL) {
		live = sparse_lo_live(h);
		mode = sparse_lo_iomode(h);
		if (seg->iomode == SPARSE_DSFH_RW && h->nrw > 0)
			h->nrw--;
		else if (seg->iomode == SPARSE_DSFH_READ && h->nread > 0)
			h->nread--;
		/* a revoked layout: its client may still write to the data
		 * servers, its grant goes now
		 */
		if (revoked)
			h->fenced = true;
		if (live != sparse_lo_live(h) ||
		    (live && mode != sparse_lo_iomode(h)))
			f->gen++;
		if (h->nread + h->nrw == 0)
			sparse_lo_holder_drop(f, h);
		need = f->gen;
		sparse_lo_tidy(f); /* (when nothing is left to write) */
	}
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);

	if (found) {
		if (revoked)
			LogEvent(
				COMPONENT_PNFS,
				"FSAL_SPARSE: a layout of a file in %s revoked: fenced",
				exp->root_path);
		(void)sparse_lo_sync(exp, seg->dev, &seg->fh, need);
	}
	gsh_free(seg);
}

bool sparse_layouts_caller_rw(struct sparse_export *exp,
			      const struct sparse_fh *fh)
{
	clientid4 caller = sparse_caller();
	struct sparse_lo_file *f;
	bool rw = false;
	uint32_t i;

	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	f = sparse_lo_find(exp->root_dev, fh, false);
	for (i = 0; f != NULL && i < f->nholders; i++)
		rw |= f->holders[i].client == caller && !f->holders[i].fenced &&
		      f->holders[i].nrw > 0;
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
	return rw;
}

/* Under mtx: live layouts of clients other than caller (which: their RW
 * ones only). */
static bool sparse_lo_other(const struct sparse_lo_holder *h, clientid4 caller,
			    enum sparse_lo_which which)
{
	return sparse_lo_live(h) && (caller == 0 || h->client != caller) &&
	       (which == SPARSE_LO_ALL || h->nrw > 0);
}

static uint32_t sparse_lo_others(const struct sparse_lo_file *f,
				 clientid4 caller, enum sparse_lo_which which)
{
	uint32_t i, n = 0;

	for (i = 0; i < f->nholders; i++)
		n += sparse_lo_other(&f->holders[i], caller, which);
	return n;
}

bool sparse_layouts_others(struct sparse_export *exp,
			   const struct sparse_fh *fh)
{
	struct sparse_lo_file *f;
	bool r;

	if (__atomic_load_n(&sparse_lo.nfiles, __ATOMIC_RELAXED) == 0)
		return false;
	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	f = sparse_lo_find(exp->root_dev, fh, false);
	r = f != NULL && sparse_lo_others(f, sparse_caller(), SPARSE_LO_ALL);
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
	return r;
}

/* A recall queued through one export: what its end needs. */
struct sparse_lo_recall {
	struct gsh_export *gexp; /* a reference, put at the end */
	struct sparse_export *exp;
	dev_t dev;
	struct sparse_fh fh;
	clientid4 caller;
};

/* The FSAL_SPARSE export under Ganesha's export id, with a reference on
 * the latter (*gexp), or NULL. */
static struct sparse_export *sparse_lo_export(uint16_t export_id,
					      struct gsh_export **gexp)
{
	struct fsal_export *fexp;

	*gexp = get_gsh_export(export_id);
	if (*gexp == NULL)
		return NULL;
	for (fexp = (*gexp)->fsal_export; fexp->sub_export != NULL;
	     fexp = fexp->sub_export)
		;
	if (fexp->fsal != &SparseModule.fsal) {
		put_gsh_export(*gexp);
		*gexp = NULL;
		return NULL;
	}
	return sparse_exp(fexp);
}

/* The recall ran: STATE_NOT_FOUND means Ganesha holds no such layout
 * state, so what we recorded of the other clients of that export is
 * stale (their grants go). */
static void sparse_lo_recall_done(void *arg, state_status_t status)
{
	struct sparse_lo_recall *r = arg;
	uint16_t id = r->gexp->export_id;
	struct sparse_lo_file *f;
	uint64_t need = 0;
	bool found;
	uint32_t i;

	if (status == STATE_NOT_FOUND) {
		PTHREAD_MUTEX_lock(&sparse_lo.mtx);
		f = sparse_lo_find(r->dev, &r->fh, false);
		for (i = 0; f != NULL && i < f->nholders;) {
			struct sparse_lo_holder *h = &f->holders[i];

			if (h->export_id == id &&
			    (r->caller == 0 || h->client != r->caller)) {
				f->gen += sparse_lo_live(h);
				sparse_lo_holder_drop(f, h);
				continue;
			}
			i++;
		}
		found = f != NULL;
		if (f != NULL) {
			f->recall_ms = 0;
			need = f->gen;
			sparse_lo_tidy(f);
		}
		PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
		if (found)
			(void)sparse_lo_sync(r->exp, r->dev, &r->fh, need);
	}
	put_gsh_export(r->gexp);
	gsh_free(r);
}

/* Queue CB_LAYOUTRECALL of fh (iomode: LAYOUTIOMODE4_ANY or _RW) to every
 * holder through export_id but caller. */
static void sparse_lo_send_recall(uint16_t export_id, dev_t dev,
				  const struct sparse_fh *fh, clientid4 caller,
				  layoutiomode4 iomode)
{
	struct pnfs_segment all = { .io_mode = iomode,
				    .offset = 0,
				    .length = NFS4_UINT64_MAX };
	struct layoutrecall_spec spec = {
		.how = caller ? layoutrecall_howspec_complement :
				layoutrecall_not_specced,
		.u.client = caller,
	};
	struct sparse_lo_recall *r = gsh_calloc(1, sizeof(*r));
	struct gsh_buffdesc key;
	struct sparse_fh kfh;
	const uint8_t *kb;
	fsal_status_t st;
	size_t klen;

	r->exp = sparse_lo_export(export_id, &r->gexp);
	if (r->exp == NULL) {
		LogEvent(COMPONENT_PNFS,
			 "FSAL_SPARSE: export %" PRIu16
			 " of a layout is gone: no recall",
			 export_id);
		gsh_free(r);
		return;
	}
	r->dev = dev;
	r->fh = *fh;
	r->caller = caller;
	/* the file's key as that export made it (Ganesha finds the layout
	 * states by it)
	 */
	kb = sparse_fh_kernel_bytes(fh, &klen);
	(void)sparse_fh_encode(sparse_fh_kernel_type(fh), kb, klen,
			       r->exp->fs_ident, &kfh);
	key.addr = kfh.bytes;
	key.len = kfh.len;
	st = up_async_layoutrecall(general_fridge, r->exp->export.up_ops, &key,
				   LAYOUT4_NFSV4_1_FILES, true, &all, NULL,
				   &spec, sparse_lo_recall_done, r);
	if (FSAL_IS_ERROR(st)) {
		LogCrit(COMPONENT_PNFS,
			"FSAL_SPARSE: could not queue a layout recall: %s",
			msg_fsal_err(st.major));
		put_gsh_export(r->gexp);
		gsh_free(r);
	}
}

/* Under mtx: withdraw the grants of other clients' layouts (which). */
static uint32_t sparse_lo_fence(struct sparse_lo_file *f, clientid4 caller,
				enum sparse_lo_which which)
{
	uint32_t i, n = 0;

	for (i = 0; i < f->nholders; i++)
		if (sparse_lo_other(&f->holders[i], caller, which)) {
			f->holders[i].fenced = true;
			n++;
		}
	if (n > 0)
		f->gen++;
	return n;
}

/* One look (see sparse_layouts_conflict). */
static fsal_status_t sparse_lo_conflict_once(struct sparse_export *exp,
					     const struct sparse_fh *fh,
					     enum sparse_lo_which which,
					     const char *what)
{
	clientid4 caller = sparse_caller();
	uint16_t recall_via[SPARSE_GRANTS_MAX];
	uint32_t nvia = 0, i, j, fenced = 0;
	struct sparse_lo_file *f;
	bool write = false;
	uint64_t need = 0;
	int64_t now;

	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	f = sparse_lo_find(exp->root_dev, fh, false);
	if (f == NULL) {
		PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	}
	if (sparse_lo_others(f, caller, which) == 0) {
		/* (their grants out of the list first, if not yet done) */
		f->recall_ms = 0;
		need = f->gen;
		write = f->synced < need;
		sparse_lo_tidy(f);
		PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
		if (write && sparse_lo_sync(exp, exp->root_dev, fh, need) != 0)
			return fsalstat(ERR_FSAL_DELAY, 0);
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	}
	now = sparse_now_ms();
	if (f->recall_ms == 0) {
		f->recall_ms = now;
		/* the exports the other layouts came through, once each */
		for (i = 0; i < f->nholders; i++) {
			if (!sparse_lo_other(&f->holders[i], caller, which))
				continue;
			for (j = 0; j < nvia; j++)
				if (recall_via[j] == f->holders[i].export_id)
					break;
			if (j == nvia)
				recall_via[nvia++] = f->holders[i].export_id;
		}
	} else if (now - f->recall_ms >= sparse_lease_ms()) {
		/* not returned within a lease period of the recall */
		fenced = sparse_lo_fence(f, caller, which);
		f->recall_ms = 0;
		need = f->gen;
	}
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);

	if (fenced > 0) {
		if (sparse_lo_sync(exp, exp->root_dev, fh, need) != 0)
			return fsalstat(ERR_FSAL_DELAY, 0);
		LogEvent(
			COMPONENT_PNFS,
			"FSAL_SPARSE: layouts of %" PRIu32
			" clients of a file in %s not returned within a lease of the recall: fenced (%s)",
			fenced, exp->root_path, what);
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	}
	if (nvia > 0)
		LogDebug(
			COMPONENT_PNFS,
			"FSAL_SPARSE: %s of a file with layouts of other clients: recalling them",
			what);
	for (i = 0; i < nvia; i++)
		sparse_lo_send_recall(recall_via[i], exp->root_dev, fh, caller,
				      which == SPARSE_LO_WRITE ?
					      LAYOUTIOMODE4_RW :
					      LAYOUTIOMODE4_ANY);
	return fsalstat(ERR_FSAL_DELAY, 0);
}

/*
 * In a client's request the answer is NFS4ERR_DELAY (NFS3ERR_JUKEBOX) and
 * the client retries; work done on no request's behalf (an asynchronous
 * COPY's chunks) waits here instead, at most until the recall times out
 * (then the layouts are fenced and the work goes on).
 */
fsal_status_t sparse_layouts_conflict(struct sparse_export *exp,
				      const struct sparse_fh *fh,
				      enum sparse_lo_which which,
				      const char *what)
{
	int64_t give_up = sparse_now_ms() + sparse_lease_ms() + 5000;
	fsal_status_t st;

	if (__atomic_load_n(&sparse_lo.nfiles, __ATOMIC_RELAXED) == 0)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	for (;;) {
		st = sparse_lo_conflict_once(exp, fh, which, what);
		if (st.major != ERR_FSAL_DELAY || op_ctx->nfs_reqdata != NULL ||
		    sparse_now_ms() > give_up)
			return st;
		usleep(100 * 1000);
	}
}

fsal_status_t sparse_layouts_conflict_fd(int fd, const char *what)
{
	struct sparse_export *exp = sparse_op_export();
	struct sparse_fh fh;
	int rc;

	if (__atomic_load_n(&sparse_lo.nfiles, __ATOMIC_RELAXED) == 0)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	rc = sparse_fh_from_name(exp, fd, "", AT_EMPTY_PATH, &fh);
	if (rc != 0)
		return posix2fsal_status(rc);
	return sparse_layouts_conflict(exp, &fh, SPARSE_LO_ALL, what);
}

fsal_status_t sparse_layouts_conflict_at(int dirfd, const char *name,
					 const char *what)
{
	struct sparse_export *exp = sparse_op_export();
	struct sparse_fh fh;
	struct stat st;
	int rc;

	if (__atomic_load_n(&sparse_lo.nfiles, __ATOMIC_RELAXED) == 0 ||
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode) || st.st_nlink != 1)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	rc = sparse_fh_from_name(exp, dirfd, name, 0, &fh);
	if (rc != 0)
		return fsalstat(ERR_FSAL_NO_ERROR, 0); /* (gone meanwhile) */
	return sparse_layouts_conflict(exp, &fh, SPARSE_LO_ALL, what);
}

void sparse_layouts_unexport(struct sparse_export *exp)
{
	struct pnfs_segment all = { .io_mode = LAYOUTIOMODE4_ANY,
				    .offset = 0,
				    .length = NFS4_UINT64_MAX };
	uint16_t id = exp->export.export_id;
	struct sparse_fh *fhs = NULL;
	size_t n = 0, cap = 0, i;
	struct glist_head *node;
	struct sparse_lo_file *f;
	uint32_t k, fenced;
	uint64_t *need = NULL;
	int b;

	if (!exp->pnfs.mds)
		return;
	/* The files with layouts granted through this export: their grants
	 * withdrawn first (no data server takes their I/O any more), then
	 * recalled so that their clients know.
	 */
	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	for (b = 0; sparse_lo.ready && b < SPARSE_LO_BUCKETS; b++)
		glist_for_each(node, &sparse_lo.bucket[b])
		{
			f = glist_entry(node, struct sparse_lo_file, link);
			if (f->dev != exp->root_dev)
				continue;
			for (k = 0, fenced = 0; k < f->nholders; k++)
				if (f->holders[k].export_id == id &&
				    sparse_lo_live(&f->holders[k])) {
					f->holders[k].fenced = true;
					fenced++;
				}
			if (fenced == 0)
				continue;
			f->gen++;
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				fhs = gsh_realloc(fhs, cap * sizeof(*fhs));
				need = gsh_realloc(need, cap * sizeof(*need));
			}
			need[n] = f->gen;
			fhs[n++] = f->fh;
		}
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);

	for (i = 0; i < n; i++)
		(void)sparse_lo_sync(exp, exp->root_dev, &fhs[i], need[i]);
	/* (at shutdown Ganesha's delayed executor, which a recall's failure
	 * path needs, is already stopped: fenced is all there is)
	 */
	for (i = 0; i < n && !admin_shutdown; i++) {
		struct sparse_fh kfh;
		struct gsh_buffdesc key;
		const uint8_t *kb;
		state_status_t st;
		size_t klen;

		kb = sparse_fh_kernel_bytes(&fhs[i], &klen);
		(void)sparse_fh_encode(sparse_fh_kernel_type(&fhs[i]), kb, klen,
				       exp->fs_ident, &kfh);
		key.addr = kfh.bytes;
		key.len = kfh.len;
		/* now, while the export's layout states are still there */
		st = exp->export.up_ops->layoutrecall(exp->export.up_ops, &key,
						      LAYOUT4_NFSV4_1_FILES,
						      true, &all, NULL, NULL);
		LogDebug(COMPONENT_PNFS,
			 "FSAL_SPARSE: export %s removed: layout recall %s",
			 exp->root_path, state_err_str(st));
	}
	if (n)
		LogEvent(
			COMPONENT_PNFS,
			"FSAL_SPARSE: export %s removed: layouts of %zu files fenced%s",
			exp->root_path, n,
			admin_shutdown ? " (shutdown)" : " and recalled");
	gsh_free(fhs);
	gsh_free(need);
}
