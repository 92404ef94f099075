/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * The metadata server's record of the layouts it granted, and the recall
 * rules (RFC 8881 12.5.5): what would make another client's layout wrong
 * waits for it.
 *
 * For each file with layouts out, which clients hold how many segments,
 * under which layout epoch (sparse_fence.c).  Kept from LAYOUTGET (a
 * segment granted) to the FSAL layoutreturn that disposes of it, which
 * Ganesha calls for every way a layout ends: LAYOUTRETURN, a return on
 * CLOSE, a revocation (recall unanswered, lease expired, export removed).
 *
 * Before a change that would make a layout wrong -- a truncate (SETATTR of
 * the size, an OPEN that truncates), a DEALLOCATE, a COPY or CLONE into
 * the file, the removal of its last name -- sparse_layouts_conflict()
 * looks for layouts of other clients under the current epoch.  If there
 * are, it asks Ganesha to send them CB_LAYOUTRECALL (once) and the
 * operation answers NFS4ERR_DELAY (the client retries, as for a
 * delegation); LAYOUTGETs meanwhile answer NFS4ERR_RECALLCONFLICT.  When
 * the layouts are returned the operation goes ahead; if they are not
 * within a lease period of the recall, the file's layout epoch is bumped,
 * which fences every outstanding layout of it on every data server
 * (NFS4ERR_PNFS_NO_LAYOUT), and the operation goes ahead.  A revoked
 * layout (Ganesha's own revocations) bumps the epoch the same way.  The
 * client doing the change keeps its own layouts.
 *
 * Locking: sparse_lo.mtx guards the table and every entry; it is taken
 * last (nothing is called with it held but the epoch bump's xattr calls),
 * and never held across an up-call.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	uint32_t segments;
	uint32_t epoch; /* the epoch its layouts were granted under */
};

struct sparse_lo_file {
	struct glist_head link;
	uint16_t export_id;
	struct sparse_fh fh;
	uint32_t epoch; /* the file's, as this head last set or read it */
	uint32_t nholders, cap;
	struct sparse_lo_holder *holders;
	int64_t recall_ms; /* recall outstanding since (0: none) */
};

/* What LAYOUTGET stores with a segment (fsal_seg_data). */
struct sparse_lo_seg {
	clientid4 client;
	uint32_t epoch;
};

static struct {
	pthread_mutex_t mtx;
	struct glist_head bucket[SPARSE_LO_BUCKETS];
	bool ready;
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

/* Under mtx: the entry of fh in export_id, made when make. */
static struct sparse_lo_file *
sparse_lo_find(uint16_t export_id, const struct sparse_fh *fh, bool make)
{
	uint64_t h = sparse_siphash24((const uint8_t *)"sparse-layouts!",
				      fh->bytes, fh->len);
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
		if (f->export_id == export_id && f->fh.len == fh->len &&
		    memcmp(f->fh.bytes, fh->bytes, fh->len) == 0)
			return f;
	}
	if (!make)
		return NULL;
	f = gsh_calloc(1, sizeof(*f));
	f->export_id = export_id;
	f->fh = *fh;
	glist_add_tail(bucket, &f->link);
	return f;
}

/* Under mtx: drop an entry nobody holds layouts of and nobody recalls. */
static void sparse_lo_tidy(struct sparse_lo_file *f)
{
	uint32_t i, held = 0;

	for (i = 0; i < f->nholders; i++)
		held += f->holders[i].segments;
	if (held != 0 || f->recall_ms != 0)
		return;
	glist_del(&f->link);
	gsh_free(f->holders);
	gsh_free(f);
}

static struct sparse_lo_holder *sparse_lo_holder(struct sparse_lo_file *f,
						 clientid4 client,
						 uint32_t epoch, bool make)
{
	uint32_t i;

	for (i = 0; i < f->nholders; i++)
		if (f->holders[i].client == client &&
		    f->holders[i].epoch == epoch)
			return &f->holders[i];
	if (!make)
		return NULL;
	if (f->nholders == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 4;
		f->holders =
			gsh_realloc(f->holders, f->cap * sizeof(*f->holders));
	}
	f->holders[f->nholders] = (struct sparse_lo_holder){ client, 0, epoch };
	return &f->holders[f->nholders++];
}

/*
 * Fence every layout of the file: its epoch + 1 on the shared filesystem.
 * Under mtx (the only other lock a bump takes is sparse_fence.c's).
 */
static int sparse_lo_fence(struct sparse_export *exp, struct sparse_lo_file *f,
			   const char *why)
{
	int fd = sparse_open_fh(exp, &f->fh, O_RDONLY | O_NOFOLLOW);
	uint32_t epoch = 0;
	int rc;

	if (fd < 0) {
		/* (the file is gone: nothing left to write through) */
		LogDebug(
			COMPONENT_PNFS,
			"FSAL_SPARSE: layouts of a file gone (%s) not fenced: %s",
			why, strerror(-fd));
		return fd;
	}
	rc = sparse_epoch_bump(fd, &epoch);
	close(fd);
	if (rc != 0) {
		LogCrit(COMPONENT_PNFS,
			"FSAL_SPARSE: could not fence the layouts of a file in %s (%s): %s",
			exp->root_path, why, strerror(-rc));
		return rc;
	}
	f->epoch = epoch;
	LogEvent(
		COMPONENT_PNFS,
		"FSAL_SPARSE: layouts of a file in %s fenced (%s): layout epoch now %" PRIu32,
		exp->root_path, why, epoch);
	return 0;
}

void *sparse_layouts_granted(struct sparse_export *exp,
			     const struct sparse_fh *fh, uint32_t epoch)
{
	struct sparse_lo_seg *seg = gsh_malloc(sizeof(*seg));
	struct sparse_lo_file *f;

	seg->client = sparse_caller();
	seg->epoch = epoch;
	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	f = sparse_lo_find(exp->export.export_id, fh, true);
	f->epoch = epoch;
	sparse_lo_holder(f, seg->client, epoch, true)->segments++;
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
	return seg;
}

void sparse_layouts_returned(struct sparse_export *exp,
			     const struct sparse_fh *fh, void *seg_data,
			     bool revoked)
{
	struct sparse_lo_seg *seg = seg_data;
	struct sparse_lo_holder *h;
	struct sparse_lo_file *f;

	if (seg == NULL)
		return;
	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	f = sparse_lo_find(exp->export.export_id, fh, false);
	if (f != NULL) {
		/* A revoked layout under the current epoch: fence it (the
		 * client may still write to the data servers).
		 */
		if (revoked && seg->epoch == f->epoch)
			(void)sparse_lo_fence(exp, f, "layout revoked");
		h = sparse_lo_holder(f, seg->client, seg->epoch, false);
		if (h != NULL && h->segments > 0)
			h->segments--;
		sparse_lo_tidy(f);
	}
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
	gsh_free(seg);
}

bool sparse_layouts_recalling(struct sparse_export *exp,
			      const struct sparse_fh *fh)
{
	struct sparse_lo_file *f;
	bool r;

	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	f = sparse_lo_find(exp->export.export_id, fh, false);
	r = f != NULL && f->recall_ms != 0 &&
	    sparse_now_ms() - f->recall_ms < sparse_lease_ms();
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
	return r;
}

/* Under mtx: layouts of clients other than caller under the epoch. */
static uint32_t sparse_lo_others(const struct sparse_lo_file *f,
				 clientid4 caller)
{
	uint32_t i, n = 0;

	for (i = 0; i < f->nholders; i++)
		if (f->holders[i].segments > 0 &&
		    f->holders[i].epoch == f->epoch &&
		    (caller == 0 || f->holders[i].client != caller))
			n += f->holders[i].segments;
	return n;
}

struct sparse_lo_recall {
	uint16_t export_id;
	struct sparse_fh fh;
	clientid4 caller;
};

/* The recall ran: STATE_NOT_FOUND means Ganesha holds no such layout
 * state, so what we recorded of other clients is stale. */
static void sparse_lo_recall_done(void *arg, state_status_t status)
{
	struct sparse_lo_recall *r = arg;
	struct sparse_lo_file *f;
	uint32_t i;

	if (status == STATE_NOT_FOUND) {
		PTHREAD_MUTEX_lock(&sparse_lo.mtx);
		f = sparse_lo_find(r->export_id, &r->fh, false);
		if (f != NULL) {
			for (i = 0; i < f->nholders; i++)
				if (r->caller == 0 ||
				    f->holders[i].client != r->caller)
					f->holders[i].segments = 0;
			f->recall_ms = 0;
			sparse_lo_tidy(f);
		}
		PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
	}
	gsh_free(r);
}

/* Queue CB_LAYOUTRECALL of the whole file to every holder but caller. */
static void sparse_lo_send_recall(struct sparse_export *exp,
				  const struct sparse_fh *fh, clientid4 caller)
{
	struct pnfs_segment all = { .io_mode = LAYOUTIOMODE4_ANY,
				    .offset = 0,
				    .length = NFS4_UINT64_MAX };
	struct layoutrecall_spec spec = {
		.how = caller ? layoutrecall_howspec_complement :
				layoutrecall_not_specced,
		.u.client = caller,
	};
	struct sparse_lo_recall *r = gsh_malloc(sizeof(*r));
	struct gsh_buffdesc key = { .addr = (void *)fh->bytes, .len = fh->len };
	fsal_status_t st;

	r->export_id = exp->export.export_id;
	r->fh = *fh;
	r->caller = caller;
	st = up_async_layoutrecall(general_fridge, exp->export.up_ops, &key,
				   LAYOUT4_NFSV4_1_FILES, true, &all, NULL,
				   &spec, sparse_lo_recall_done, r);
	if (FSAL_IS_ERROR(st)) {
		LogCrit(COMPONENT_PNFS,
			"FSAL_SPARSE: could not queue a layout recall: %s",
			msg_fsal_err(st.major));
		gsh_free(r);
	}
}

/* One look (see sparse_layouts_conflict). */
static fsal_status_t sparse_lo_conflict_once(struct sparse_export *exp,
					     const struct sparse_fh *fh,
					     const char *what)
{
	clientid4 caller = sparse_caller();
	struct sparse_lo_file *f;
	bool send = false;
	int64_t now;

	if (!exp->pnfs.mds)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	f = sparse_lo_find(exp->export.export_id, fh, false);
	if (f == NULL || sparse_lo_others(f, caller) == 0) {
		if (f != NULL) {
			f->recall_ms = 0;
			sparse_lo_tidy(f);
		}
		PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	}
	now = sparse_now_ms();
	if (f->recall_ms == 0) {
		f->recall_ms = now;
		send = true;
	} else if (now - f->recall_ms >= sparse_lease_ms()) {
		/* not returned within a lease period of the recall */
		if (sparse_lo_fence(exp, f, what) == 0) {
			f->recall_ms = 0;
			PTHREAD_MUTEX_unlock(&sparse_lo.mtx);
			return fsalstat(ERR_FSAL_NO_ERROR, 0);
		}
	}
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);

	if (send) {
		LogDebug(
			COMPONENT_PNFS,
			"FSAL_SPARSE: %s of a file with layouts of other clients: recalling them",
			what);
		sparse_lo_send_recall(exp, fh, caller);
	}
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
				      const char *what)
{
	int64_t give_up = sparse_now_ms() + sparse_lease_ms() + 5000;
	fsal_status_t st;

	for (;;) {
		st = sparse_lo_conflict_once(exp, fh, what);
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

	if (!exp->pnfs.mds)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	rc = sparse_fh_from_name(exp, fd, "", AT_EMPTY_PATH, &fh);
	if (rc != 0)
		return posix2fsal_status(rc);
	return sparse_layouts_conflict(exp, &fh, what);
}

void sparse_layouts_unexport(struct sparse_export *exp)
{
	struct pnfs_segment all = { .io_mode = LAYOUTIOMODE4_ANY,
				    .offset = 0,
				    .length = NFS4_UINT64_MAX };
	struct sparse_fh *fhs = NULL;
	size_t n = 0, cap = 0, i;
	struct glist_head *node;
	struct sparse_lo_file *f;
	int b;

	if (!exp->pnfs.mds)
		return;
	/* The files of this export with layouts under their current epoch:
	 * fenced first (no data server takes their I/O any more), then
	 * recalled so that their clients know.
	 */
	PTHREAD_MUTEX_lock(&sparse_lo.mtx);
	for (b = 0; sparse_lo.ready && b < SPARSE_LO_BUCKETS; b++)
		glist_for_each(node, &sparse_lo.bucket[b])
		{
			f = glist_entry(node, struct sparse_lo_file, link);
			if (f->export_id != exp->export.export_id ||
			    sparse_lo_others(f, 0) == 0)
				continue;
			(void)sparse_lo_fence(exp, f, "export removed");
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				fhs = gsh_realloc(fhs, cap * sizeof(*fhs));
			}
			fhs[n++] = f->fh;
		}
	PTHREAD_MUTEX_unlock(&sparse_lo.mtx);

	/* (at shutdown Ganesha's delayed executor, which a recall's failure
	 * path needs, is already stopped: fenced is all there is)
	 */
	for (i = 0; i < n && !admin_shutdown; i++) {
		struct gsh_buffdesc key = { .addr = fhs[i].bytes,
					    .len = fhs[i].len };
		state_status_t st;

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
}
