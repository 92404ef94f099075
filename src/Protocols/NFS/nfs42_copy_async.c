/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Asynchronous NFSv4.2 COPY.
 *
 * A copy record (struct copy) is created by COPY with ca_synchronous false,
 * named by a copy stateid (seqid 1, 12 random bytes from getrandom) and
 * kept in our own table, not in Ganesha's state table: a copy stateid is
 * not a state_t (no owner, no object lock state, never valid for READ or
 * WRITE), and in the state table nfs4_Check_Stateid would accept it for
 * I/O ops and every switch over state types would need a new arm.
 *
 * The job is bound to its caller (as knfsd's copy pins its nfsd_files):
 * it keeps the caller's credentials as COPY saw them (after squashing) and
 * runs every chunk with them, and it opens both files for itself, through
 * fsal_open2() with FSAL states of its own and those credentials, for its
 * whole life, so it never depends on the client's stateids (the client may
 * CLOSE, or have used a special stateid) nor on a descriptor shared with
 * others.  Its open counts as an open of the destination for writing:
 * share reservations see it, and Ganesha grants no delegation on the
 * destination while it runs (fds_num_write_opens); a delegation in the way
 * at COPY time is recalled and COPY answers NFS4ERR_DELAY.
 *
 * The copy runs on a pool of Copy_Async_Max worker threads (started on the
 * first async COPY), chunk by chunk through nfs42_copy_chunk(), the cancel
 * flag checked between chunks.  At most Copy_Async_Max copies are queued or
 * running server-wide and Copy_Async_Max_Per_Client per client: beyond
 * that COPY answers synchronously (both counted: O(1)).  When a copy ends,
 * CB_OFFLOAD goes to the client over a session back channel (retried
 * Copy_CB_Retries times on NFS4ERR_DELAY or no reply); the record stays a
 * lease period so that OFFLOAD_STATUS still answers, at most
 * COPY_DONE_PER_CLIENT of them per client (the oldest goes first: its
 * stateid is then unknown, NFS4ERR_BAD_STATEID), and a client's records
 * go with the client.
 *
 * The table: the records by copy stateid (tab.buckets, for the lookups of
 * OFFLOAD_STATUS and OFFLOAD_CANCEL), by client (struct copy_client in
 * tab.clients: its records oldest first and its counts), and the finished
 * ones in the order they finished (tab.done, whose head is the next to
 * expire).  A record is in all three from COPY until it is forgotten,
 * except tab.done while it is queued or running.
 *
 * Locking rules
 * - tab.mtx protects: the bucket lists (insert and delete), the client
 *   entries and their lists and counts, tab.done, the run queue,
 *   tab.active, the pool's threads and flags (started, shutdown), and each
 *   record's links (queue, client_link, done_link, gone_link), cc and
 *   in_table.  It is never held across a chunk, a callback send or
 *   synchronize_rcu(); shutdown sleeps on tab.done_cv with it (released
 *   while asleep), idle workers on tab.work.  tab.started is set once, under tab.mtx and
 *   after the buckets are initialised, and never cleared: lookups read it
 *   without the lock, so it is stored and read with atomics (full
 *   barriers): a lookup that sees it set sees the buckets initialised.
 * - Lookups (OFFLOAD_STATUS, OFFLOAD_CANCEL) walk a bucket under
 *   rcu_read_lock() (urcu-bp, as linked by Ganesha: no thread
 *   registration needed) and take a reference (c->refs) before leaving the
 *   read section.  A record leaves the table under tab.mtx
 *   (cds_list_del_rcu); the table's reference is dropped only after
 *   synchronize_rcu(), so a reader that saw it always increments a
 *   non-zero count.
 * - A record's progress (copied), cancel flag and phase are atomics; its
 *   final status and stability are written before phase becomes
 *   COPY_DONE (release) and read only after seeing COPY_DONE (acquire).
 *   Everything else in it is immutable after creation, except the job's
 *   references (export, handles, its opens, credentials) and `cancelled`,
 *   which only the thread that ends the job touches: the worker that took
 *   it off the queue, or the cleanup (client gone, shutdown) that took it
 *   off the queue (both under tab.mtx, so exactly one of them), and
 *   cb_tries, which only the callback path (one send or completion at a
 *   time) touches.
 * - c->refs: one for the table, one for the job's end (worker or
 *   cleanup), one per lookup in progress and one per CB_OFFLOAD in
 *   flight; the record is freed at zero.
 * - A client entry lives while it has records or active copies; its
 *   records point to it (c->cc) until they end.
 * - Order: tab.mtx, then nothing; a client's cid_mutex is only taken by
 *   the callback code without tab.mtx held.
 */

#include "config.h"
#include <sys/random.h>
#include <urcu/rculist.h>
#include "log.h"
#include "fsal.h"
#include "nfs_core.h"
#include "nfs_exports.h"
#include "sal_functions.h"
#include "nfs_proto_functions.h"
#include "nfs_proto_tools.h"
#include "nfs_convert.h"
#include "nfs_rpc_callback.h"
#include "export_mgr.h"
#include "delayed_exec.h"
#include "nfs42_copy.h"
#include "nfs42_proto_util.h"
#include "nfs42_stats.h"
#include "nfs42_copy_async.h"

/* Copy stateids hashed for lookups; client IDs for the per-client lists */
#define COPY_BUCKETS 256
#define COPY_CLIENT_BUCKETS 64
/* Finished copies a client keeps for OFFLOAD_STATUS (a lease at most) */
#define COPY_DONE_PER_CLIENT 16

enum copy_phase {
	COPY_QUEUED,
	COPY_RUNNING,
	COPY_DONE,
};

/* A client's copies (tab.mtx). */
struct copy_client {
	struct glist_head hash; /* tab.clients[] */
	clientid4 clientid;
	struct glist_head copies; /* its records in the table, oldest first */
	uint32_t n_active; /* queued + running, also those forgotten */
	uint32_t n_done; /* finished, in copies */
};

struct copy {
	struct cds_list_head bucket; /* tab.buckets[], RCU */
	struct glist_head queue; /* tab.queue while COPY_QUEUED (tab.mtx) */
	struct glist_head client_link; /* cc->copies while in_table */
	struct glist_head done_link; /* tab.done while finished, in_table */
	struct glist_head gone_link; /* a list of records leaving the table */
	/* its client's entry, while in the table or queued or running */
	struct copy_client *cc; /* tab.mtx */
	bool in_table; /* tab.mtx */
	int32_t refs; /* table + worker + lookups + callbacks */
	stateid4 sid;
	clientid4 clientid;
	/* the job: set at creation, released by the worker (or tab.mtx's
	 * holder for a queued one) when it ends */
	struct gsh_export *exp;
	struct fsal_obj_handle *src, *dst;
	/* the job's own opens (one, read-write, when src == dst) */
	struct state_t *src_open, *dst_open;
	bool writer_counted; /* in dst's fds_num_write_opens */
	/* the caller's credentials as COPY saw them (squashed); the group
	 * list is the job's copy */
	struct user_cred creds;
	struct export_perms perms;
	uint64_t src_offset, dst_offset;
	uint64_t count; /* > 0: COPY resolved the range once */
	nfs_fh4 fh; /* destination, for CB_OFFLOAD */
	/* progress */
	uint64_t copied; /* atomic */
	uint32_t cancel; /* atomic: OFFLOAD_CANCEL, client gone, shutdown */
	uint32_t phase; /* atomic enum copy_phase */
	uint32_t cb_tries; /* CB_OFFLOAD sends so far (callback path only) */
	/* result, valid once phase == COPY_DONE */
	nfsstat4 status;
	stable_how4 committed;
	verifier4 verf;
	bool cancelled;
	time_t done_at;
};

static struct {
	pthread_mutex_t mtx; /* see "Locking rules" above */
	pthread_cond_t work; /* queue not empty, or shutdown */
	pthread_cond_t done_cv; /* some copy reached COPY_DONE */
	struct cds_list_head buckets[COPY_BUCKETS];
	struct glist_head clients[COPY_CLIENT_BUCKETS];
	struct glist_head done; /* finished records, in the order they ended */
	struct glist_head queue;
	uint32_t active; /* queued + running */
	pthread_t *threads;
	uint32_t nthreads;
	uint32_t started; /* atomic, see above */
	bool shutdown;
} tab = {
	.mtx = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.done_cv = PTHREAD_COND_INITIALIZER,
};

/* The NFSV4 block's copy parameters (patch 0020). */
static uint32_t p_async_max(void)
{
	return nfs_param.nfsv4_param.copy_async_max;
}

static uint32_t p_async_max_per_client(void)
{
	return nfs_param.nfsv4_param.copy_async_max_per_client;
}

static uint32_t p_cb_retries(void)
{
	return nfs_param.nfsv4_param.copy_cb_retries;
}

static bool p_async(void)
{
	return nfs_param.nfsv4_param.copy_async;
}

/*
 * One chunk of an async copy: as a synchronous COPY reply, but never
 * unbounded (no cap and no budget configured: the default cap), so that
 * cancel and shutdown are seen between chunks.
 */
static void copy_chunk_limits(struct nfs42_copy_req *req)
{
	req->cap = nfs_param.nfsv4_param.copy_chunk_size;
	req->budget_ms = nfs_param.nfsv4_param.copy_time_budget_ms;
	if (req->cap == 0 && req->budget_ms == 0)
		req->cap = NFS4_COPY_CHUNK_DEFAULT;
}

/*
 * NFSv4 { Test_Hooks { Copy_Chunk_Delay_Ms } } (tests only): sleep after a chunk, in 10 ms
 * steps so that a cancel still ends the copy promptly.
 */
static void copy_test_delay(struct copy *c)
{
	uint32_t ms = nfs_param.nfsv4_param.test_hooks.copy_chunk_delay_ms;

	while (ms > 0 && !atomic_fetch_uint32_t(&c->cancel)) {
		uint32_t step = ms < 10 ? ms : 10;

		usleep(step * 1000);
		ms -= step;
	}
}

/* How long a finished copy still answers OFFLOAD_STATUS. */
static time_t copy_keep_seconds(void)
{
	return nfs_param.nfsv4_param.lease_lifetime;
}

static unsigned int bucket_of(const char *other)
{
	uint32_t h;

	memcpy(&h, other, sizeof(h));
	return h % COPY_BUCKETS;
}

static void tab_init_locked(void)
{
	unsigned int i;

	if (tab.buckets[0].next != NULL)
		return;
	for (i = 0; i < COPY_BUCKETS; i++)
		CDS_INIT_LIST_HEAD(&tab.buckets[i]);
	for (i = 0; i < COPY_CLIENT_BUCKETS; i++)
		glist_init(&tab.clients[i]);
	glist_init(&tab.done);
	glist_init(&tab.queue);
}

static void copy_get(struct copy *c)
{
	(void)atomic_inc_int32_t(&c->refs);
}

static void copy_put(struct copy *c)
{
	if (atomic_dec_int32_t(&c->refs) != 0)
		return;
	gsh_free(c->fh.nfs_fh4_val);
	gsh_free(c);
}

/* ------------------------------------------------ the job's hold */

/*
 * Called in COPY's op context (the caller's squashed credentials): open
 * obj for the job with a state of its own, as an OPEN by this caller
 * would (fsal_open2: permission checked with these credentials, share
 * reservations counted), taking a reference on obj.
 */
static fsal_status_t job_open(struct fsal_obj_handle *obj,
			      fsal_openflags_t flags, struct state_t **open)
{
	struct fsal_export *exp = op_ctx->fsal_export;
	struct fsal_obj_handle *got = NULL;
	fsal_status_t st;

	*open = exp->exp_ops.alloc_state(exp, STATE_TYPE_SHARE, NULL);
	st = fsal_open2(obj, *open, flags, FSAL_NO_CREATE, NULL, NULL, NULL,
			&got, NULL, NULL, NULL);
	if (FSAL_IS_ERROR(st)) {
		free_state(*open);
		*open = NULL;
	}
	return st;
}

/* Close one of the job's opens (op_ctx set for its export). */
static void job_close(struct fsal_obj_handle *obj, struct state_t *open)
{
	fsal_status_t st = obj->obj_ops->close2(obj, open);

	if (FSAL_IS_ERROR(st))
		LogDebug(COMPONENT_NFS_V4, "async COPY: close2 %s",
			 msg_fsal_err(st.major));
	free_state(open);
	obj->obj_ops->put_ref(obj);
}

/*
 * Count the job as a writer of dst, unless a delegation conflicts (then
 * Ganesha recalls it, and COPY answers NFS4ERR_DELAY).  Under dst's
 * st_lock, as OPEN counts its writers and grants delegations, so no
 * delegation is granted between the check and the count.
 */
static bool job_count_writer(struct fsal_obj_handle *dst)
{
	bool conflict;

	STATELOCK_lock(dst);
	conflict = state_deleg_conflict_impl(dst, true);
	if (!conflict)
		dst->state_hdl->file.fdeleg_stats.fds_num_write_opens++;
	STATELOCK_unlock(dst);
	return !conflict;
}

static void job_uncount_writer(struct fsal_obj_handle *dst)
{
	STATELOCK_lock(dst);
	dst->state_hdl->file.fdeleg_stats.fds_num_write_opens--;
	STATELOCK_unlock(dst);
}

/* Keep the caller's credentials (op_ctx's, squashed) for the job. */
static void job_keep_creds(struct copy *c)
{
	const struct user_cred *from = &op_ctx->creds;

	c->creds = *from;
	c->creds.caller_garray = NULL;
	if (from->caller_glen > 0) {
		c->creds.caller_garray =
			gsh_malloc(from->caller_glen * sizeof(gid_t));
		memcpy(c->creds.caller_garray, from->caller_garray,
		       from->caller_glen * sizeof(gid_t));
	}
	c->perms = op_ctx->export_perms;
}

/* Drop the job's hold (op_ctx set for its export). */
static void job_drop(struct copy *c)
{
	if (c->src_open != NULL && c->src_open != c->dst_open)
		job_close(c->src, c->src_open);
	else if (c->src_open != NULL)
		c->src->obj_ops->put_ref(c->src);
	if (c->dst_open != NULL)
		job_close(c->dst, c->dst_open);
	if (c->writer_counted)
		job_uncount_writer(c->dst);
	c->src_open = c->dst_open = NULL;
	c->writer_counted = false;
	gsh_free(c->creds.caller_garray);
	c->creds.caller_garray = NULL;
}

/*
 * Called in COPY's op context: the job's hold on src and dst (see the top
 * of this file).  NFS4_OK; NFS4ERR_DELAY when a delegation is in the way
 * (being recalled); else the status of the failed open (COPY then answers
 * synchronously).  On error nothing is held.
 */
static nfsstat4 job_hold(struct copy *c, struct fsal_obj_handle *src,
			 struct fsal_obj_handle *dst)
{
	fsal_status_t st;

	/* another client's write delegation on the source would hide data
	 * the copy must read
	 */
	if (state_deleg_conflict(src, false))
		return NFS4ERR_DELAY;
	if (!job_count_writer(dst))
		return NFS4ERR_DELAY;
	c->writer_counted = true;
	c->dst = dst;
	st = job_open(dst, src == dst ? FSAL_O_RDWR : FSAL_O_WRITE,
		      &c->dst_open);
	if (!FSAL_IS_ERROR(st)) {
		c->src = src;
		if (src == dst) {
			c->src_open = c->dst_open;
			src->obj_ops->get_ref(src);
		} else {
			st = job_open(src, FSAL_O_READ, &c->src_open);
		}
	}
	job_keep_creds(c);
	if (FSAL_IS_ERROR(st)) {
		LogDebug(COMPONENT_NFS_V4,
			 "async COPY: the job cannot open its files (%s)",
			 msg_fsal_err(st.major));
		job_drop(c);
		return nfs42_io_status(st);
	}
	return NFS4_OK;
}

/* Drop the job's references (export, handles, opens): needs no lock, only
 * the one thread that ends the job calls it. */
static void copy_release_job(struct copy *c)
{
	struct req_op_context ctx;

	if (c->exp == NULL)
		return;
	get_gsh_export_ref(c->exp);
	init_op_context_simple(&ctx, c->exp, c->exp->fsal_export);
	job_drop(c);
	release_op_context();
	put_gsh_export(c->exp);
	c->exp = NULL;
}

/* ------------------------------------------------------ the table */

/* Called with tab.mtx held: clientid's entry, made when make; or NULL. */
static struct copy_client *cc_find_locked(clientid4 clientid, bool make)
{
	struct glist_head *head = &tab.clients[clientid % COPY_CLIENT_BUCKETS];
	struct glist_head *g;
	struct copy_client *cc;

	glist_for_each(g, head)
	{
		cc = glist_entry(g, struct copy_client, hash);
		if (cc->clientid == clientid)
			return cc;
	}
	if (!make)
		return NULL;
	cc = gsh_calloc(1, sizeof(*cc));
	cc->clientid = clientid;
	glist_init(&cc->copies);
	glist_add_tail(head, &cc->hash);
	return cc;
}

/* Called with tab.mtx held: free cc once nothing refers to it. */
static void cc_put_locked(struct copy_client *cc)
{
	if (cc->n_active != 0 || !glist_empty(&cc->copies))
		return;
	glist_del(&cc->hash);
	gsh_free(cc);
}

/* Called with tab.mtx held: c enters the table, queued, for client cc. */
static void copy_insert_locked(struct copy *c, struct copy_client *cc)
{
	c->cc = cc;
	c->in_table = true;
	cds_list_add_rcu(&c->bucket, &tab.buckets[bucket_of(c->sid.other)]);
	glist_add_tail(&cc->copies, &c->client_link);
	cc->n_active++;
	c->phase = COPY_QUEUED;
	glist_add_tail(&tab.queue, &c->queue);
	tab.active++;
}

/*
 * Called with tab.mtx held: c leaves the table (lookups no longer find
 * it) onto gone, whose records' table references copy_release_gone()
 * drops.  A running job goes on with its worker's reference.
 */
static void copy_remove_locked(struct copy *c, struct glist_head *gone)
{
	if (!c->in_table)
		return;
	c->in_table = false;
	cds_list_del_rcu(&c->bucket);
	glist_del(&c->client_link);
	if (atomic_fetch_uint32_t(&c->phase) == COPY_DONE) {
		glist_del(&c->done_link);
		c->cc->n_done--;
		c->cc = NULL; /* (the caller puts the entry) */
	}
	glist_add_tail(gone, &c->gone_link);
}

/* Drop the table's references of gone's records once no reader sees them
 * (tab.mtx not held).  Returns how many. */
static uint32_t copy_release_gone(struct glist_head *gone)
{
	struct copy *c;
	uint32_t n = 0;

	if (glist_empty(gone))
		return 0;
	synchronize_rcu();
	while ((c = glist_first_entry(gone, struct copy, gone_link)) != NULL) {
		glist_del(&c->gone_link);
		copy_put(c);
		n++;
	}
	return n;
}

/* Called with tab.mtx held: forget finished copies older than a lease. */
static void copy_expire_locked(time_t now, struct glist_head *gone)
{
	struct copy *c;
	struct copy_client *cc;

	while ((c = glist_first_entry(&tab.done, struct copy, done_link)) !=
		       NULL &&
	       c->done_at + copy_keep_seconds() <= now) {
		cc = c->cc;
		copy_remove_locked(c, gone);
		cc_put_locked(cc);
	}
}

/* Called with tab.mtx held: cc keeps at most COPY_DONE_PER_CLIENT finished
 * records; the oldest go. */
static void copy_trim_locked(struct copy_client *cc, struct glist_head *gone)
{
	struct glist_head *g, *gn;
	struct copy *c;

	for (g = cc->copies.next, gn = g->next; g != &cc->copies;
	     g = gn, gn = g->next) {
		if (cc->n_done <= COPY_DONE_PER_CLIENT)
			return;
		c = glist_entry(g, struct copy, client_link);
		if (atomic_fetch_uint32_t(&c->phase) == COPY_DONE)
			copy_remove_locked(c, gone);
	}
}

/* Mark c finished (the job's references already released). */
static void copy_finish(struct copy *c, nfsstat4 status)
{
	struct copy_client *cc;
	struct glist_head gone;

	glist_init(&gone);
	c->status = status;
	c->done_at = time(NULL);
	PTHREAD_MUTEX_lock(&tab.mtx);
	atomic_store_uint32_t(&c->phase, COPY_DONE);
	tab.active--;
	cc = c->cc;
	cc->n_active--;
	if (c->in_table) {
		glist_add_tail(&tab.done, &c->done_link);
		cc->n_done++;
		copy_trim_locked(cc, &gone);
	} else {
		c->cc = NULL;
	}
	cc_put_locked(cc);
	pthread_cond_broadcast(&tab.done_cv);
	PTHREAD_MUTEX_unlock(&tab.mtx);
	copy_release_gone(&gone);
}

/* Find a copy of clientid by stateid, referenced; NULL if none. */
static struct copy *copy_lookup(const stateid4 *sid, clientid4 clientid)
{
	struct cds_list_head *head = &tab.buckets[bucket_of(sid->other)];
	struct cds_list_head *pos;
	struct copy *c, *found = NULL;

	if (!atomic_fetch_uint32_t(&tab.started))
		return NULL;
	rcu_read_lock();
	for (pos = rcu_dereference(head->next); pos != head;
	     pos = rcu_dereference(pos->next)) {
		c = cds_list_entry(pos, struct copy, bucket);
		if (c->clientid == clientid &&
		    memcmp(c->sid.other, sid->other, sizeof(sid->other)) == 0) {
			copy_get(c);
			found = c;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/* Called with tab.mtx held: is that stateid already taken? */
static bool copy_other_taken(const char *other)
{
	struct cds_list_head *head = &tab.buckets[bucket_of(other)];
	struct cds_list_head *pos;
	struct copy *c;

	for (pos = head->next; pos != head; pos = pos->next) {
		c = cds_list_entry(pos, struct copy, bucket);
		if (memcmp(c->sid.other, other, sizeof(c->sid.other)) == 0)
			return true;
	}
	return false;
}

/* ------------------------------------------------------- CB_OFFLOAD */

static void cb_offload_send(void *arg);

/* Completion of a CB_OFFLOAD: retry on NFS4ERR_DELAY or no reply. */
static void cb_offload_done(rpc_call_t *call)
{
	struct copy *c = call->call_arg;
	enum clnt_stat rpc = call->call_req.cc_error.re_status;
	nfsstat4 status = call->cbt.v_u.v4.res.status;
	bool retry;

	retry = (call->states & NFS_CB_CALL_ABORTED) || rpc != RPC_SUCCESS ||
		status == NFS4ERR_DELAY;
	LogDebug(COMPONENT_NFS_CB,
		 "CB_OFFLOAD for copy %" PRIx64 ": rpc %d, status %s%s",
		 c->clientid, (int)rpc, nfsstat4_to_str(status),
		 retry ? ", again" : "");
	nfs41_release_single(call);
	if (retry && c->cb_tries <= p_cb_retries() &&
	    delayed_submit(cb_offload_send, c,
			   (nsecs_elapsed_t)c->cb_tries * NS_PER_SEC) == 0)
		return;
	copy_put(c);
}

/*
 * Send CB_OFFLOAD for c (holding a reference the completion drops).  A
 * client without back channel (or gone) gets none: OFFLOAD_STATUS still
 * answers.
 */
static void cb_offload_send(void *arg)
{
	struct copy *c = arg;
	nfs_client_id_t *client = NULL;
	nfs_cb_argop4 op;
	struct sp42_CB_OFFLOAD4args *a = &op.nfs_cb_argop4_u.opcboffload;
	struct sp42_write_response4 *w;
	int rc;

	if (nfs_client_id_get_confirmed(c->clientid, &client) !=
	    CLIENT_ID_SUCCESS) {
		LogDebug(COMPONENT_NFS_CB,
			 "CB_OFFLOAD: client %" PRIx64 " is gone", c->clientid);
		copy_put(c);
		return;
	}
	memset(&op, 0, sizeof(op));
	op.argop = NFS4_OP_CB_OFFLOAD;
	a->coa_fh = c->fh;
	a->coa_stateid = c->sid;
	a->coa_offload_info.coa_status = c->status;
	if (c->status == NFS4_OK) {
		w = &a->coa_offload_info.coa_u.coa_resok4;
		w->wr_count = atomic_fetch_uint64_t(&c->copied);
		w->wr_committed = c->committed;
		memcpy(w->wr_writeverf, c->verf, sizeof(verifier4));
	} else {
		a->coa_offload_info.coa_u.coa_bytes_copied =
			atomic_fetch_uint64_t(&c->copied);
	}
	c->cb_tries++;
	rc = nfs_rpc_cb_single(client, &op, NULL, cb_offload_done, c);
	dec_client_id_ref(client);
	if (rc != 0) {
		LogDebug(COMPONENT_NFS_CB,
			 "CB_OFFLOAD for client %" PRIx64 " not sent: %d",
			 c->clientid, rc);
		copy_put(c);
	}
}

/* ---------------------------------------------------------- workers */

/* Run one copy to its end (or cancel); op_ctx set for its export. */
static nfsstat4 copy_run(struct copy *c)
{
	struct nfs42_copy_req req;
	struct gsh_buffdesc verf = { .addr = c->verf, .len = sizeof(c->verf) };
	fsal_status_t st = { ERR_FSAL_NO_ERROR, 0 };
	uint64_t done = 0;

	for (;;) {
		if (atomic_fetch_uint32_t(&c->cancel)) {
			c->cancelled = true;
			break;
		}
		memset(&req, 0, sizeof(req));
		req.src_state = c->src_open;
		req.dst_state = c->dst_open;
		req.src_offset = c->src_offset + done;
		req.dst_offset = c->dst_offset + done;
		req.count = c->count - done;
		copy_chunk_limits(&req);
		st = nfs42_copy_chunk(c->src, c->dst, &req);
		if (FSAL_IS_ERROR(st) && req.copied == 0)
			break;
		done += req.copied;
		atomic_store_uint64_t(&c->copied, done);
		if (FSAL_IS_ERROR(st) || req.eof || req.copied == 0 ||
		    done >= c->count) {
			st = fsalstat(ERR_FSAL_NO_ERROR, 0);
			break;
		}
		copy_test_delay(c);
	}
	if (FSAL_IS_ERROR(st) && done == 0)
		return nfs42_io_status(st);

	/* Durable before we say FILE_SYNC4 (once any byte was copied, the
	 * count stands: an unstable result rather than an error) */
	op_ctx->fsal_export->exp_ops.get_write_verifier(op_ctx->fsal_export,
							&verf);
	c->committed = UNSTABLE4;
	if (done != 0 && !FSAL_IS_ERROR(c->dst->obj_ops->commit2(
				 c->dst, c->dst_offset, done)))
		c->committed = FILE_SYNC4;
	return NFS4_OK;
}

static void copy_work(struct copy *c)
{
	struct req_op_context ctx;
	nfsstat4 status;

	get_gsh_export_ref(c->exp);
	/* the caller's credentials, as COPY saw them, for every chunk */
	init_op_context(&ctx, c->exp, c->exp->fsal_export, NULL, NULL, NFS_V4,
			2, NFS_REQUEST);
	ctx.creds = c->creds;
	ctx.export_perms = c->perms;
	/* and its client: what its own layouts and delegations are told
	 * apart by (FSAL_SPARSE recalls other clients' layouts only)
	 */
	ctx.clientid = &c->clientid;
	status = copy_run(c);
	/* one finished (or cancelled) copy, with the bytes it moved */
	nfs42_stats_copy(c->exp, NFS42_COPY_ASYNC,
			 atomic_fetch_uint64_t(&c->copied));
	release_op_context();
	copy_release_job(c);
	LogDebug(COMPONENT_NFS_V4,
		 "async COPY of client %" PRIx64 " ended: %s, %" PRIu64
		 " bytes%s",
		 c->clientid, nfsstat4_to_str(status),
		 atomic_fetch_uint64_t(&c->copied),
		 c->cancelled ? " (cancelled)" : "");
	copy_finish(c, status);
	/* no callback for a cancelled copy: the client asked, or is gone */
	if (!c->cancelled) {
		copy_get(c);
		cb_offload_send(c);
	}
}

static void *copy_worker(void *unused)
{
	struct glist_head gone;
	struct copy *c;
	struct timespec ts;

	SetNameFunction("copy_async");
	PTHREAD_MUTEX_lock(&tab.mtx);
	while (!tab.shutdown) {
		c = glist_first_entry(&tab.queue, struct copy, queue);
		if (c == NULL) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&tab.work, &tab.mtx, &ts);
			if (glist_empty(&tab.queue) && !tab.shutdown) {
				/* idle: forget copies finished long ago */
				glist_init(&gone);
				copy_expire_locked(time(NULL), &gone);
				PTHREAD_MUTEX_unlock(&tab.mtx);
				copy_release_gone(&gone);
				PTHREAD_MUTEX_lock(&tab.mtx);
			}
			continue;
		}
		glist_del(&c->queue);
		atomic_store_uint32_t(&c->phase, COPY_RUNNING);
		PTHREAD_MUTEX_unlock(&tab.mtx);
		copy_work(c);
		copy_put(c); /* the worker's reference */
		PTHREAD_MUTEX_lock(&tab.mtx);
	}
	PTHREAD_MUTEX_unlock(&tab.mtx);
	return NULL;
}

/* Called with tab.mtx held: start the pool on first use. */
static bool pool_start_locked(void)
{
	uint32_t i, n = p_async_max();

	if (tab.started)
		return true;
	if (tab.shutdown || n == 0)
		return false;
	tab_init_locked();
	tab.threads = gsh_calloc(n, sizeof(pthread_t));
	for (i = 0; i < n; i++) {
		if (pthread_create(&tab.threads[i], NULL, copy_worker, NULL))
			break;
	}
	tab.nthreads = i;
	atomic_store_uint32_t(&tab.started, 1);
	LogEvent(COMPONENT_NFS_V4, "async COPY: %u workers", tab.nthreads);
	return tab.nthreads != 0;
}

/* ------------------------------------------------------------- start */

/* Called with tab.mtx held: may clientid queue one more copy? */
static bool copy_admit_locked(clientid4 clientid)
{
	uint32_t per_client = p_async_max_per_client();
	struct copy_client *cc;

	if (tab.shutdown || !pool_start_locked() || tab.active >= tab.nthreads)
		return false;
	cc = cc_find_locked(clientid, false);
	return per_client == 0 || cc == NULL || cc->n_active < per_client;
}

/* The NFS4_OK result of a COPY that went asynchronous as c. */
static void copy_async_reply(const struct copy *c, struct sp42_COPY4res *res)
{
	struct sp42_write_response4 *w = &res->cr_u.cr_resok4.cr_response;

	memset(res, 0, sizeof(*res));
	res->cr_status = NFS4_OK;
	w->wr_callback_id.wr_callback_id_len = 1;
	w->wr_callback_id.wr_callback_id_val = gsh_malloc(sizeof(stateid4));
	*w->wr_callback_id.wr_callback_id_val = c->sid;
	w->wr_count = 0;
	w->wr_committed = UNSTABLE4;
	op_ctx->fsal_export->exp_ops.get_write_verifier(
		op_ctx->fsal_export,
		&(struct gsh_buffdesc){ .addr = w->wr_writeverf,
					.len = sizeof(verifier4) });
	res->cr_u.cr_resok4.cr_requirements.cr_consecutive = true;
	res->cr_u.cr_resok4.cr_requirements.cr_synchronous = false;
}

nfsstat4 nfs42_copy_async_start(compound_data_t *data,
				struct fsal_obj_handle *src,
				struct fsal_obj_handle *dst,
				uint64_t src_offset, uint64_t dst_offset,
				uint64_t count, struct sp42_COPY4res *res,
				bool *queued)
{
	struct glist_head gone;
	clientid4 clientid;
	struct copy *c;
	nfsstat4 status;
	bool admitted;

	*queued = false;
	if (!p_async() || data->session == NULL)
		return NFS4_OK;
	clientid = data->session->clientid;

	c = gsh_calloc(1, sizeof(*c));
	c->refs = 2; /* the table's and the worker's */
	c->clientid = clientid;
	c->sid.seqid = 1;
	c->src_offset = src_offset;
	c->dst_offset = dst_offset;
	c->count = count;

	/* a cheap look first: no open for a COPY that will be refused;
	 * and the finished copies a lease old go
	 */
	glist_init(&gone);
	PTHREAD_MUTEX_lock(&tab.mtx);
	admitted = copy_admit_locked(clientid);
	if (atomic_fetch_uint32_t(&tab.started))
		copy_expire_locked(time(NULL), &gone);
	PTHREAD_MUTEX_unlock(&tab.mtx);
	copy_release_gone(&gone);
	status = admitted ? job_hold(c, src, dst) : NFS4_OK;
	if (!admitted || status != NFS4_OK) {
		LogDebug(
			COMPONENT_NFS_V4,
			"async COPY of client %" PRIx64 ": %s", clientid,
			admitted ?
				nfsstat4_to_str(status) :
				"pool or client quota full, answering synchronously");
		gsh_free(c);
		/* DELAY stands; anything else: a synchronous answer */
		return status == NFS4ERR_DELAY ? status : NFS4_OK;
	}

	PTHREAD_MUTEX_lock(&tab.mtx);
	if (!copy_admit_locked(clientid)) {
		/* taken meanwhile by another COPY */
		PTHREAD_MUTEX_unlock(&tab.mtx);
		job_drop(c);
		gsh_free(c);
		return NFS4_OK;
	}
	do {
		if (getrandom(c->sid.other, sizeof(c->sid.other), 0) !=
		    sizeof(c->sid.other)) {
			/* never in practice; still unique, less secret */
			LogCrit(COMPONENT_NFS_V4, "getrandom failed: %d",
				errno);
			memcpy(c->sid.other, &c, sizeof(c));
		}
	} while (copy_other_taken(c->sid.other));

	get_gsh_export_ref(op_ctx->ctx_export);
	c->exp = op_ctx->ctx_export;
	c->fh.nfs_fh4_len = data->currentFH.nfs_fh4_len;
	c->fh.nfs_fh4_val = gsh_malloc(c->fh.nfs_fh4_len);
	memcpy(c->fh.nfs_fh4_val, data->currentFH.nfs_fh4_val,
	       c->fh.nfs_fh4_len);

	copy_insert_locked(c, cc_find_locked(clientid, true));
	pthread_cond_signal(&tab.work);
	PTHREAD_MUTEX_unlock(&tab.mtx);

	copy_async_reply(c, res);
	*queued = true;
	LogDebug(COMPONENT_NFS_V4,
		 "async COPY for client %" PRIx64 ": %" PRIu64 "+%" PRIu64
		 " to %" PRIu64 " queued",
		 clientid, src_offset, count, dst_offset);
	return NFS4_OK;
}

/* ------------------------------------------------ offload operations */

/* The copy named by sid, of the compound's client; NULL if none. */
static struct copy *copy_of_compound(compound_data_t *data, const stateid4 *sid)
{
	if (data->session == NULL)
		return NULL;
	return copy_lookup(sid, data->session->clientid);
}

/**
 * @brief The NFS4_OP_OFFLOAD_STATUS operation (RFC 7862 15.9)
 *
 * osr_count: bytes copied so far; osr_complete (one status) once the copy
 * ended.  A cancelled copy ended NFS4_OK with the bytes it had copied.
 */
enum nfs_req_result nfs4_op_offload_status(struct nfs_argop4 *op,
					   compound_data_t *data,
					   struct nfs_resop4 *resp)
{
	struct sp42_OFFLOAD_STATUS4args *args =
		&op->nfs_argop4_u.opoffload_status42;
	struct sp42_OFFLOAD_STATUS4res *res =
		&resp->nfs_resop4_u.opoffload_status42;
	struct sp42_OFFLOAD_STATUS4resok *ok = &res->osr_u.osr_resok4;
	struct copy *c;

	resp->resop = NFS4_OP_OFFLOAD_STATUS;
	memset(res, 0, sizeof(*res));
	c = copy_of_compound(data, &args->osa_stateid);
	if (c == NULL) {
		res->osr_status = NFS4ERR_BAD_STATEID;
		return NFS_REQ_ERROR;
	}
	res->osr_status = NFS4_OK;
	if (atomic_fetch_uint32_t(&c->phase) == COPY_DONE) {
		ok->osr_complete.osr_complete_len = 1;
		ok->osr_complete.osr_complete_val =
			gsh_malloc(sizeof(nfsstat4));
		*ok->osr_complete.osr_complete_val = c->status;
	}
	ok->osr_count = atomic_fetch_uint64_t(&c->copied);
	copy_put(c);
	return NFS_REQ_OK;
}

void nfs4_op_offload_status_Free(nfs_resop4 *resp)
{
	struct sp42_OFFLOAD_STATUS4res *res =
		&resp->nfs_resop4_u.opoffload_status42;

	if (res->osr_status == NFS4_OK)
		gsh_free(res->osr_u.osr_resok4.osr_complete.osr_complete_val);
}

/**
 * @brief The NFS4_OP_OFFLOAD_CANCEL operation (RFC 7862 15.8)
 *
 * The copy stops after the chunk it is in; no CB_OFFLOAD is sent for it.
 * NFS4ERR_COMPLETE_ALREADY once it has ended.
 */
enum nfs_req_result nfs4_op_offload_cancel(struct nfs_argop4 *op,
					   compound_data_t *data,
					   struct nfs_resop4 *resp)
{
	struct sp42_OFFLOAD_CANCEL4args *args =
		&op->nfs_argop4_u.opoffload_cancel42;
	struct sp42_OFFLOAD_CANCEL4res *res =
		&resp->nfs_resop4_u.opoffload_cancel42;
	struct copy *c;

	resp->resop = NFS4_OP_OFFLOAD_CANCEL;
	c = copy_of_compound(data, &args->oca_stateid);
	if (c == NULL) {
		res->ocr_status = NFS4ERR_BAD_STATEID;
	} else if (atomic_fetch_uint32_t(&c->phase) == COPY_DONE ||
		   atomic_fetch_uint32_t(&c->cancel)) {
		res->ocr_status = NFS4ERR_COMPLETE_ALREADY;
	} else {
		atomic_store_uint32_t(&c->cancel, 1);
		res->ocr_status = NFS4_OK;
	}
	if (c != NULL)
		copy_put(c);
	return nfsstat4_to_nfs_req_result(res->ocr_status);
}

void nfs4_op_offload_cancel_Free(nfs_resop4 *resp)
{
}

/* ------------------------------------------------------ cleanup */

/*
 * Called with tab.mtx held: stop client cc's copies (all clients' with cc
 * NULL, at shutdown): the queued ones leave the run queue onto ended (the
 * caller ends them, copy_end_dequeued()), the running ones are asked to
 * stop after their chunk.  With forget, they and the finished ones also
 * leave the table onto gone.  Returns how many were stopped.
 */
static uint32_t copy_stop_client_locked(struct copy_client *cc, bool forget,
					struct glist_head *ended,
					struct glist_head *gone)
{
	struct glist_head *g, *gn;
	struct copy *c;
	uint32_t n = 0, phase;

	for (g = cc->copies.next, gn = g->next; g != &cc->copies;
	     g = gn, gn = g->next) {
		c = glist_entry(g, struct copy, client_link);
		phase = atomic_fetch_uint32_t(&c->phase);
		if (phase == COPY_QUEUED) {
			glist_del(&c->queue);
			glist_add_tail(ended, &c->queue);
		}
		if (phase != COPY_DONE && !atomic_fetch_uint32_t(&c->cancel)) {
			atomic_store_uint32_t(&c->cancel, 1);
			n++;
		}
		if (forget)
			copy_remove_locked(c, gone);
	}
	return n;
}

/* End the copies taken off the run queue (tab.mtx not held), as their
 * worker would have. */
static void copy_end_dequeued(struct glist_head *ended)
{
	struct copy *c;

	while ((c = glist_first_entry(ended, struct copy, queue)) != NULL) {
		glist_del(&c->queue);
		c->cancelled = true;
		copy_release_job(c);
		copy_finish(c, NFS4_OK);
		copy_put(c); /* the worker's reference */
	}
}

/*
 * Never waits for a running chunk: this runs in the lease reaper under the
 * client record's cr_mutex (and in DESTROY_CLIENTID), and a chunk has no
 * bound in time (a clone covers a whole range).  A running job needs
 * nothing of the client (its opens and credentials are its own): it ends
 * after its chunk, unseen, and releases everything then.
 */
void nfs42_copy_async_client_gone(clientid4 clientid)
{
	struct glist_head ended, gone;
	struct copy_client *cc;
	uint32_t stopped = 0, forgotten;

	glist_init(&ended);
	glist_init(&gone);
	PTHREAD_MUTEX_lock(&tab.mtx);
	cc = atomic_fetch_uint32_t(&tab.started) ?
		     cc_find_locked(clientid, false) :
		     NULL;
	if (cc != NULL) {
		stopped = copy_stop_client_locked(cc, true, &ended, &gone);
		/* (kept by its active copies until they end) */
		cc_put_locked(cc);
	}
	PTHREAD_MUTEX_unlock(&tab.mtx);
	copy_end_dequeued(&ended);
	forgotten = copy_release_gone(&gone);
	if (stopped != 0 || forgotten != 0)
		LogEvent(COMPONENT_NFS_V4,
			 "async COPY: client %" PRIx64
			 " gone: %u copies stopped, %u forgotten",
			 clientid, stopped, forgotten);
}

/* Called with tab.mtx held: apply copy_stop_client_locked to every client. */
static uint32_t copy_stop_all_locked(bool forget, struct glist_head *ended,
				     struct glist_head *gone)
{
	struct glist_head *g, *gn;
	struct copy_client *cc;
	uint32_t i, n = 0;

	for (i = 0; i < COPY_CLIENT_BUCKETS; i++) {
		for (g = tab.clients[i].next, gn = g->next;
		     g != &tab.clients[i]; g = gn, gn = g->next) {
			cc = glist_entry(g, struct copy_client, hash);
			n += copy_stop_client_locked(cc, forget, ended, gone);
			cc_put_locked(cc);
		}
	}
	return n;
}

void nfs42_copy_async_shutdown(void)
{
	struct glist_head ended, gone;
	uint32_t i, stopped;

	glist_init(&ended);
	glist_init(&gone);
	/* no new copy from here on */
	PTHREAD_MUTEX_lock(&tab.mtx);
	if (!tab.started || tab.shutdown) {
		tab.shutdown = true;
		PTHREAD_MUTEX_unlock(&tab.mtx);
		return;
	}
	tab.shutdown = true;
	/* stop what waits (here) and what runs (after its chunk) */
	stopped = copy_stop_all_locked(false, &ended, &gone);
	PTHREAD_MUTEX_unlock(&tab.mtx);
	copy_end_dequeued(&ended);

	/* wait for the running ones (also those of clients gone), then the
	 * pool, then forget every record
	 */
	PTHREAD_MUTEX_lock(&tab.mtx);
	while (tab.active > 0)
		pthread_cond_wait(&tab.done_cv, &tab.mtx);
	pthread_cond_broadcast(&tab.work);
	PTHREAD_MUTEX_unlock(&tab.mtx);
	for (i = 0; i < tab.nthreads; i++)
		pthread_join(tab.threads[i], NULL);
	PTHREAD_MUTEX_lock(&tab.mtx);
	copy_stop_all_locked(true, &ended, &gone);
	PTHREAD_MUTEX_unlock(&tab.mtx);
	copy_release_gone(&gone);
	gsh_free(tab.threads);
	tab.threads = NULL;
	LogEvent(COMPONENT_NFS_V4,
		 "async COPY: workers stopped (%u copies cancelled)", stopped);
}

uint32_t nfs42_copy_async_active(void)
{
	uint32_t n;

	PTHREAD_MUTEX_lock(&tab.mtx);
	n = tab.active;
	PTHREAD_MUTEX_unlock(&tab.mtx);
	return n;
}
