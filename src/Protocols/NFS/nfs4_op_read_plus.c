/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * NFSv4.2 READ_PLUS (RFC 7862 15.10) with any number of data and hole
 * segments (RFC 7863 shapes, nfsv42_sparse_types.h), replacing Ganesha's
 * single-segment READ_PLUS of nfs4_op_read.c (patch 0011 points the op
 * table here).
 *
 * Checks are READ's (nfs4_op_read.c): a regular file, the stateid with the
 * special ones, delegation conflicts for those, share deny-read, read
 * permission before and after as the export's Read_Access_Check_Policy
 * says.  The layout of [offset, offset + count) comes from the FSAL's
 * read_plus slot (map and data in one call), else from seek2
 * (SEEK_DATA/SEEK_HOLE) with the data read by read2, else it is one data
 * segment read by read2.  The planner (nfs42_read_plus_plan.c,
 * docs/read_plus.md) then decides what fits the reply.  Data segments
 * refer to the buffer the file was read into and are sent from it without
 * a copy (xdr_sp42_data_putbufs).  Only reachable in minor version 2:
 * nfs4_Compound answers OP_ILLEGAL for it in 4.0 and 4.1.
 */

#include "config.h"
#include "log.h"
#include "fsal.h"
#include "nfs_core.h"
#include "sal_functions.h"
#include "nfs_proto_functions.h"
#include "nfs_proto_tools.h"
#include "nfs_convert.h"
#include "export_mgr.h"
#include "nfs_exports.h"
#include "nfs42_read_plus_plan.h"
#include "nfs42_proto_util.h"
#include "nfs42_stats.h"
#include "nfs4_stateid_use.h"
#include "nfs_file_handle.h"
#include "fsal_pnfs.h"

/* Most runs asked of an FSAL in one call (segments of one reply). */
#define RP_MAX_RUNS 16384
/* Runs expected no shorter than this (a sector) when sizing the array. */
#define RP_MIN_RUN 512

/*
 * The layout of [offset, end) found so far (nfs42_read_plus_plan.h), and
 * whether end is EOF; runs is the FSAL's answer to one read_plus call.
 */
struct rp_layout {
	struct fsal_segment *ext;
	size_t n;
	size_t max;
	uint64_t end;
	bool eof;
	struct fsal_segment *runs;
};

/* Regular files only, with the errors RFC 8881 gives READ for others. */
static nfsstat4 rp_check_fh(compound_data_t *data)
{
	return nfs4_sanity_check_FH(data, REGULAR_FILE, true);
}

/*
 * Read permission as READ checks it at the points `when` names in the
 * export's Read_Access_Check_Policy: read access, or execute access (a
 * client reads an executable it may run).
 */
static fsal_status_t rp_allow_read(struct fsal_obj_handle *obj, uint32_t when)
{
	uint32_t policy = atomic_fetch_uint32_t(
		&op_ctx->ctx_export->read_access_check_policy);
	fsal_status_t st = { ERR_FSAL_NO_ERROR, 0 };

	if ((policy & when) == 0)
		return st;
	st = obj->obj_ops->test_access(obj, FSAL_READ_ACCESS, NULL, NULL, true);
	if (st.major == ERR_FSAL_ACCESS)
		st = fsal_access(
			obj, FSAL_MODE_MASK_SET(FSAL_X_OK) |
				     FSAL_ACE4_MASK_SET(FSAL_ACE_PERM_EXECUTE));
	return st;
}

/*
 * The stateid, as READ takes it (nfs4_stateid_use.c decides).  On NFS4_OK
 * *state is the state found (NULL for the special stateids; the caller
 * drops its reference) and *bypass tells whether the all-ones stateid
 * bypasses deny-read.
 */
static nfsstat4 rp_check_stateid(compound_data_t *data, stateid4 *stateid,
				 state_t **state, bool *bypass)
{
	struct nfs4_stateid_use use;
	nfsstat4 status;

	*state = NULL;
	*bypass = false;
	status = nfs4_stateid_authorize(data, SU_READ_PLUS, stateid,
					data->current_obj, &use);
	if (status != NFS4_OK)
		return status;
	*state = use.state;
	*bypass = use.bypass;
	use.state = NULL;
	nfs4_stateid_use_release(&use);
	return NFS4_OK;
}

/* Append a run (merged with the last one when alike); false when full. */
static bool rp_layout_add(struct rp_layout *l, uint64_t offset, uint64_t length,
			  bool hole)
{
	if (rp_layout_append(l->ext, &l->n, l->max, offset, length, hole) != 0)
		return false;
	if (length != 0)
		l->end = offset + length;
	return true;
}

/* seek2 for what (data or hole) from pos: where it is, and io_eof. */
static fsal_status_t rp_seek(struct fsal_obj_handle *obj, state_t *state,
			     data_content4 what, uint64_t pos, uint64_t *next,
			     bool *eof)
{
	struct io_info info = { 0 };
	fsal_status_t st;

	info.io_content.what = what;
	info.io_content.hole.di_offset = pos;
	st = obj->obj_ops->seek2(obj, state, &info);
	*next = info.io_content.hole.di_offset;
	*eof = info.io_eof;
	return st;
}

/*
 * SEEK_DATA/SEEK_HOLE walk of [offset, end) (end at most the size) into l.
 * Returns NOTSUPP when the FSAL has no seek2 (the caller then takes the
 * window as one data run).  A file that turned out shorter (NXIO) ends the
 * layout where the walk was.
 */
static fsal_status_t rp_seek_layout(struct fsal_obj_handle *obj, state_t *state,
				    uint64_t offset, uint64_t end,
				    struct rp_layout *l)
{
	uint64_t pos = offset, next;
	fsal_status_t st;
	bool eof;

	while (pos < end && l->n + 2 <= l->max) {
		st = rp_seek(obj, state, NFS4_CONTENT_DATA, pos, &next, &eof);
		if (st.major == ERR_FSAL_NXIO)
			break;
		if (FSAL_IS_ERROR(st))
			return st;
		if (eof || next >= end || next < pos) {
			/* no data before end: a hole to end */
			rp_layout_add(l, pos, end - pos, true);
			break;
		}
		rp_layout_add(l, pos, next - pos, true);
		pos = next;

		st = rp_seek(obj, state, NFS4_CONTENT_HOLE, pos, &next, &eof);
		if (st.major == ERR_FSAL_NXIO)
			break;
		if (FSAL_IS_ERROR(st))
			return st;
		if (next <= pos || next > end)
			next = end;
		rp_layout_add(l, pos, next - pos, false);
		pos = next;
	}
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* read2 of [offset, offset + length) into buf, waiting for its callback. */
static fsal_status_t rp_read2(struct fsal_obj_handle *obj, state_t *state,
			      bool bypass, uint64_t offset, uint64_t length,
			      char *buf, uint64_t *got, bool *eof)
{
	pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	struct async_process_data done = {
		.ret = { ERR_FSAL_NO_ERROR, 0 },
		.done = false,
		.fsa_mutex = &mtx,
		.fsa_cond = &cond,
	};
	struct iovec iov = { .iov_base = buf, .iov_len = length };
	size_t last_iov = 0;
	struct fsal_io_arg arg = {
		.state = state,
		.offset = offset,
		.io_request = length,
		.iov_count = 1,
		.iov = &iov,
		.last_iov_buf_size = &last_iov,
	};
	uint64_t n = 0;
	int i;

	/* fsal_read: read2 with a callback that signals under fsa_mutex,
	 * waited for even when the FSAL completes later on another thread,
	 * and called again while the FSAL asks to be resumed.
	 */
	fsal_read(obj, bypass, &arg, &done);

	*got = arg.io_amount > length ? length : arg.io_amount;
	*eof = arg.end_of_file;
	if (!FSAL_IS_ERROR(done.ret) && arg.iov != &iov) {
		/* the FSAL read into buffers of its own: take the bytes */
		for (i = 0; i < arg.iov_count && n < *got; i++) {
			uint64_t len = arg.iov[i].iov_len;

			if (len > *got - n)
				len = *got - n;
			memcpy(buf + n, arg.iov[i].iov_base, len);
			n += len;
		}
	}
	if (arg.iov_release != NULL)
		arg.iov_release(arg.release_data);
	PTHREAD_MUTEX_destroy(&mtx);
	PTHREAD_COND_destroy(&cond);
	return done.ret;
}

/*
 * The generic path: plan runs with seek2 (or take the window as data),
 * fold small holes, then read the data runs with read2.  An error on the
 * first data run fails the call; a later one ends the layout before that
 * run (not at EOF).  A short read at EOF ends the layout there.
 */
static fsal_status_t rp_generic(struct fsal_obj_handle *obj, state_t *state,
				bool bypass, uint64_t offset, uint64_t count,
				bool holes, uint64_t min_hole, uint64_t budget,
				char *buf, struct rp_layout *l)
{
	struct gsh_export *exp = op_ctx->ctx_export;
	uint64_t size, end;
	fsal_status_t st;
	size_t i;

	l->n = 0;
	l->end = offset;
	l->eof = false;
	st = nfs42_file_size(obj, &size);
	if (FSAL_IS_ERROR(st))
		return st;
	if (offset >= size) {
		l->eof = true;
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	}
	end = size - offset > count ? offset + count : size;

	/* An FSAL without seek2 logs each call to it as critical: asked once
	 * per export.
	 */
	if (holes && atomic_fetch_uint32_t(&exp->read_plus_no_seek) == 0) {
		st = rp_seek_layout(obj, state, offset, end, l);
		if (st.major == ERR_FSAL_NOTSUPP) {
			LogInfo(COMPONENT_NFS_V4,
				"READ_PLUS: export %d has no seek2, holes are sent as data",
				exp->export_id);
			atomic_store_uint32_t(&exp->read_plus_no_seek, 1);
		}
	} else {
		st = fsalstat(ERR_FSAL_NOTSUPP, 0);
	}
	if (st.major == ERR_FSAL_NOTSUPP ||
	    st.major == ERR_FSAL_UNION_NOTSUPP) {
		l->n = 0;
		rp_layout_add(l, offset, end - offset, false);
	} else if (FSAL_IS_ERROR(st)) {
		return st;
	}
	rp_layout_fold(l->ext, &l->n, min_hole, size);
	l->eof = l->n > 0 && l->end == size;
	i = rp_layout_fit(l->ext, l->n, budget);
	if (i < l->n || (i > 0 && fsal_segment_end(&l->ext[i - 1]) < l->end)) {
		l->n = i;
		l->end = i ? fsal_segment_end(&l->ext[i - 1]) : offset;
		l->eof = false;
	}

	for (i = 0; i < l->n; i++) {
		struct fsal_segment *s = &l->ext[i];
		uint64_t got = 0;
		bool eof = false;

		if (s->hole)
			continue;
		st = rp_read2(obj, state, bypass, s->offset, s->length,
			      buf + (s->offset - offset), &got, &eof);
		if (FSAL_IS_ERROR(st)) {
			if (i == 0)
				return st;
			LogDebug(COMPONENT_NFS_V4,
				 "READ_PLUS: read at %" PRIu64
				 " failed (%s), reply ends before it",
				 s->offset, msg_fsal_err(st.major));
			l->n = i;
			l->end = s->offset;
			l->eof = false;
			return fsalstat(ERR_FSAL_NO_ERROR, 0);
		}
		if (got < s->length) {
			/* the file ends here now */
			s->length = got;
			l->n = got ? i + 1 : i;
			l->end = s->offset + got;
			l->eof = eof;
			break;
		}
	}
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/*
 * Reply budget for READ_PLUS4resok: what the session lets the compound
 * reply hold (resp_room: ca_maxresponsesize less this op's opcode and the
 * room check_resp_room keeps for one more op's error; the cached size
 * when the reply is to be cached), less what the reply holds already and
 * this op's status.
 */
static uint64_t rp_budget(compound_data_t *data, nfsstat4 *too_big)
{
	uint64_t room, used;

	*too_big = NFS4ERR_REP_TOO_BIG;
	room = resp_room(data);
	if (data->session != NULL && data->minorversion > 0 &&
	    data->sa_cachethis) {
		uint64_t cached = data->session->fore_channel_attrs
					  .ca_maxresponsesize_cached;
		uint64_t reserve = 2 * sizeof(nfs_opnum4) + sizeof(nfsstat4);

		room = cached > reserve ? cached - reserve : 0;
		*too_big = NFS4ERR_REP_TOO_BIG_TO_CACHE;
	}
	used = (uint64_t)data->resp_size + sizeof(nfsstat4);
	return room > used ? room - used : 0;
}

/*
 * A budget with room for READ_PLUS4resok's fixed part but for no segment
 * (docs/read_plus.md rules 4 and 7): at or past EOF the answer is eof
 * without a segment; below it nothing the reply could say fits, which is
 * too_big, never NFS4_OK without a segment and without eof.
 */
static nfsstat4 rp_eof_only(struct fsal_obj_handle *obj, uint64_t offset,
			    nfsstat4 too_big, struct sp42_READ_PLUS4resok *ok)
{
	fsal_status_t st;
	uint64_t size;

	st = nfs42_file_size(obj, &size);
	if (FSAL_IS_ERROR(st))
		return nfs4_Errno_status(st);
	if (offset < size)
		return too_big;
	ok->rpr_eof = true;
	return NFS4_OK;
}

/* The export's READ_PLUS settings (EXPORT block, patch 0012). */
static void rp_export_config(bool *enabled, bool *holes, uint64_t *min_hole)
{
	struct gsh_export *exp = op_ctx->ctx_export;

	*enabled = exp->read_plus_enabled;
	*holes = exp->read_plus_holes;
	*min_hole = atomic_fetch_uint64_t(&exp->read_plus_min_hole);
}

/*
 * Whether the reply is wrapped with RPCSEC_GSS privacy: ntirpc's
 * gss_wrap_iov then encrypts the reply's vectors in place, so data sent by
 * reference would encrypt the file buffer itself, and a cached reply
 * (sa_cachethis) encoded again from it would go out encrypted twice.
 * Such a reply copies its data (sp42_iobuf.copy).  Integrity only adds a
 * checksum and krb5 alone neither: both keep the zero-copy path.  Without
 * GSS support compiled in, no request is wrapped.
 */
static bool rp_reply_encrypted(compound_data_t *data)
{
#ifdef _HAVE_GSSAPI
	struct svc_req *req = data->req;

	if (req != NULL && req->rq_msg.cb_cred.oa_flavor == RPCSEC_GSS) {
		struct rpc_gss_cred *gc =
			(struct rpc_gss_cred *)req->rq_msg.rq_cred_body;

		return gc->gc_svc == RPCSEC_GSS_SVC_PRIVACY;
	}
#endif
	return false;
}

/* Turn a plan into the result; data segments refer to iob. */
static void rp_fill_result(struct sp42_READ_PLUS4resok *ok,
			   const struct rp_plan *plan, struct sp42_iobuf *iob,
			   uint64_t offset)
{
	struct sp42_read_plus_content *c = NULL;
	size_t i;

	if (plan->nseg > 0)
		c = gsh_calloc(plan->nseg, sizeof(*c));
	for (i = 0; i < plan->nseg; i++) {
		const struct fsal_segment *s = &plan->seg[i];

		if (s->hole) {
			c[i].rpc_content = NFS4_CONTENT_HOLE;
			c[i].rpc_u.rpc_hole.di_offset = s->offset;
			c[i].rpc_u.rpc_hole.di_length = s->length;
			continue;
		}
		c[i].rpc_content = NFS4_CONTENT_DATA;
		c[i].rpc_u.rpc_data.d_offset = s->offset;
		c[i].rpc_u.rpc_data.d_data.d_data_len = s->length;
		c[i].rpc_u.rpc_data.d_data.d_data_val =
			iob->data + (s->offset - offset);
		c[i].rpc_u.rpc_data.d_buf = iob;
		sp42_iobuf_get(iob);
	}
	ok->rpr_eof = plan->eof;
	ok->rpr_contents.rpr_contents_len = plan->nseg;
	ok->rpr_contents.rpr_contents_val = c;
}

/*
 * Where the runs of a window come from: the FSAL's read_plus slot of an
 * object (metadata server) or dsh_read_plus_runs of a data-server handle.
 * Returns NOTSUPP when there is no such slot.
 */
struct rp_runs_src {
	struct fsal_obj_handle *obj; /* or NULL: ds */
	bool bypass;
	struct fsal_ds_handle *ds;
	const stateid4 *stateid;
	nfsstat4 ds_status; /* the data server's failure, as it said it */
};

static fsal_status_t rp_read_runs(struct rp_runs_src *src,
				  struct fsal_read_plus_arg *arg)
{
	if (src->obj != NULL)
		return src->obj->obj_ops->read_plus(src->obj, src->bypass, arg);
	src->ds_status = op_ctx->ctx_pnfs_ds->s_ops.dsh_read_plus_runs(
		src->ds, src->stateid, arg);
	if (src->ds_status == NFS4_OK)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	if (src->ds_status == NFS4ERR_NOTSUPP)
		return fsalstat(ERR_FSAL_NOTSUPP, 0);
	return fsalstat(ERR_FSAL_IO, 0); /* (ds_status says which) */
}

/*
 * Layout and data from a read_plus slot (every hole it finds, folded here
 * by READ_PLUS_Min_Hole), window after window:
 * each window is as long as the data the reply can still take, so a file
 * of data is read no further than the reply goes, while holes (which cost
 * their header only) let the reply reach on to count.  NOTSUPP on the
 * first call: the FSAL has no slot.  An error after some runs ends the
 * layout before the failed window (not at EOF).
 */
static fsal_status_t rp_slot_layout(struct rp_runs_src *src, state_t *state,
				    uint64_t offset, uint64_t count,
				    uint64_t min_hole, uint64_t budget,
				    char *buf, struct rp_layout *l)
{
	uint64_t pos = offset, end = offset + count;
	fsal_status_t st;
	size_t i;

	l->n = 0;
	l->end = offset;
	l->eof = false;
	while (pos < end && l->n < l->max) {
		uint64_t cost = rp_layout_cost(l->ext, l->n);
		struct fsal_read_plus_arg arg = {
			.state = state,
			.offset = pos,
			.buf = buf + (pos - offset),
			.seg = l->runs,
			.max_seg = l->max - l->n,
		};

		if (cost + RP_XDR_DATA_HEAD + 4 > budget)
			break;
		/* whole XDR units of data, so that the padding fits too */
		arg.length = rp_room_end(pos, end,
					 (budget - cost - RP_XDR_DATA_HEAD) &
						 ~3ULL) -
			     pos;
		st = rp_read_runs(src, &arg);
		if (FSAL_IS_ERROR(st)) {
			if (pos == offset)
				return st;
			LogDebug(COMPONENT_NFS_V4,
				 "READ_PLUS: read_plus at %" PRIu64
				 " failed (%s), reply ends before it",
				 pos, msg_fsal_err(st.major));
			l->eof = false;
			break;
		}
		/* append the runs, merged with the last one when alike */
		for (i = 0; i < arg.nseg && i < arg.max_seg; i++)
			if (!rp_layout_add(l, l->runs[i].offset,
					   l->runs[i].length, l->runs[i].hole))
				break;
		if (i < arg.nseg) {
			/* (cannot happen: one extent per run fits) */
			l->eof = false;
			break;
		}
		l->end = arg.end;
		l->eof = arg.eof;
		if (arg.eof || arg.end < pos + arg.length || arg.end <= pos)
			break;
		pos = arg.end;
	}
	/* The FSAL reported every hole: READ_PLUS_Min_Hole applies here, as
	 * on the generic path (one rule); a folded hole reads as zeros.
	 */
	rp_layout_zero_short_holes(l->ext, l->n, min_hole, buf, offset);
	rp_layout_fold(l->ext, &l->n, min_hole, l->eof ? l->end : UINT64_MAX);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* Layout and data for the window: the FSAL's read_plus, else generic. */
static fsal_status_t rp_read_layout(struct fsal_obj_handle *obj, state_t *state,
				    bool bypass, uint64_t offset,
				    uint64_t count, bool holes,
				    uint64_t min_hole, uint64_t budget,
				    char *buf, struct rp_layout *l)
{
	struct rp_runs_src src = { .obj = obj, .bypass = bypass };
	fsal_status_t st = fsalstat(ERR_FSAL_NOTSUPP, 0);

	if (holes)
		st = rp_slot_layout(&src, state, offset, count, min_hole,
				    budget, buf, l);
	if (st.major != ERR_FSAL_NOTSUPP)
		return st;
	return rp_generic(obj, state, bypass, offset, count, holes, min_hole,
			  budget, buf, l);
}

/* Plan the reply from the layout (see docs/read_plus.md). */
static int rp_plan(compound_data_t *data, uint64_t offset,
		   const struct rp_layout *l, bool holes, uint64_t budget,
		   struct rp_plan *plan)
{
	struct rp_request req = {
		.offset = offset,
		.budget = budget,
		.report_holes = holes,
	};

	/* The layout covers [offset, end): the window the planner sees, with
	 * EOF at end when the FSAL said so, else past it.
	 */
	req.count = l->end - offset;
	req.file_size = l->eof ? l->end : l->end + 1;
	return rp_plan_build(&req, l->ext, l->n, plan);
}

/*
 * What one READ_PLUS needs once its filehandle and stateid are checked:
 * the window (count cut to MaxRead and 2^64), the reply budget and the
 * export's settings.  rp_prepare() answers the cases that need no layout
 * (count 0, a budget without room for a segment) itself.
 */
struct rp_request_ctx {
	uint64_t offset, count, budget, min_hole;
	bool holes;
	nfsstat4 too_big;
};

static nfsstat4 rp_window(compound_data_t *data, READ_PLUS4args *args,
			  struct rp_request_ctx *rq, bool *done)
{
	uint64_t max_read, max_offset;

	*done = false;
	max_read = atomic_fetch_uint64_t(&op_ctx->ctx_export->MaxRead);
	max_offset = atomic_fetch_uint64_t(&op_ctx->ctx_export->MaxOffsetRead);
	rq->offset = args->rpa_offset;
	rq->count = args->rpa_count;
	/* (as READ, without its wrap past 2^64) */
	if (max_offset < UINT64_MAX &&
	    (args->rpa_offset > max_offset ||
	     rq->count > max_offset - args->rpa_offset))
		return NFS4ERR_FBIG;
	if (rq->count > max_read)
		rq->count = max_read;
	/* no window past 2^64 (the reply reaches EOF long before) */
	if (rq->count > UINT64_MAX - args->rpa_offset)
		rq->count = UINT64_MAX - args->rpa_offset;
	rq->budget = rp_budget(data, &rq->too_big);
	if (rq->budget < RP_XDR_RESOK_FIXED)
		return rq->too_big;
	if (rq->count == 0) {
		/* nothing asked: no segment, and not EOF (as READ) */
		data->op_resp_size = sizeof(nfsstat4) + RP_XDR_RESOK_FIXED;
		*done = true;
	}
	return NFS4_OK;
}

/* Room for the runs: segments cost at least 16 bytes each, and runs of
 * filesystems are sectors at least (an FSAL finding more ends its answer
 * early, which the client continues). */
static void rp_layout_alloc(struct rp_layout *layout,
			    const struct rp_request_ctx *rq)
{
	layout->max = rq->budget / RP_XDR_DATA_HEAD + 1;
	if (layout->max > rq->count / RP_MIN_RUN + 2)
		layout->max = rq->count / RP_MIN_RUN + 2;
	if (layout->max > RP_MAX_RUNS)
		layout->max = RP_MAX_RUNS;
	layout->ext = gsh_malloc(layout->max * sizeof(*layout->ext));
	layout->runs = gsh_malloc(layout->max * sizeof(*layout->runs));
}

/* Plan the reply from a layout and fill the result (NFS4_OK or the
 * status to answer). */
static nfsstat4 rp_answer(compound_data_t *data, const struct rp_layout *l,
			  const struct rp_request_ctx *rq,
			  struct sp42_iobuf *iob,
			  struct sp42_READ_PLUS4res *res, uint32_t asked)
{
	struct rp_plan plan = { 0 };
	nfsstat4 status = NFS4_OK;
	int rc;

	plan.seg = gsh_calloc(l->n + 1, sizeof(*plan.seg));
	plan.max_seg = l->n + 1;
	rc = rp_plan(data, rq->offset, l, rq->holes, rq->budget, &plan);
	if (rc == -E2BIG) {
		status = rq->too_big;
		goto out;
	}
	if (rc != 0) {
		LogCrit(COMPONENT_NFS_V4,
			"READ_PLUS: no plan for a layout of %zu runs (%d)",
			l->n, rc);
		status = NFS4ERR_SERVERFAULT;
		goto out;
	}

	rp_fill_result(&res->rp_u.rp_resok4, &plan, iob, rq->offset);
	data->op_resp_size = sizeof(nfsstat4) + rp_plan_xdr_size(&plan);
	nfs42_stats_read_plus(op_ctx->ctx_export, rp_plan_data_bytes(&plan),
			      rp_plan_hole_bytes(&plan));
	LogFullDebug(COMPONENT_NFS_V4,
		     "READ_PLUS %" PRIu64 "+%" PRIu32 ": %zu segments, %" PRIu64
		     " data bytes, eof %d",
		     rq->offset, asked, plan.nseg, rp_plan_data_bytes(&plan),
		     plan.eof);
out:
	gsh_free(plan.seg);
	return status;
}

/*
 * The window of a data server as one data run read with dsh_read (no
 * holes asked, or an FSAL without dsh_read_plus_runs): as long as the
 * reply can take.
 */
static nfsstat4 rp_ds_read_data(compound_data_t *data, READ_PLUS4args *args,
				const struct rp_request_ctx *rq, char *buf,
				struct rp_layout *l)
{
	uint64_t room = (rq->budget - RP_XDR_RESOK_FIXED - RP_XDR_DATA_HEAD) &
			~3ULL;
	count4 len = rq->count < room ? rq->count : room;
	count4 got = 0;
	bool eof = false;
	nfsstat4 status;

	status = op_ctx->ctx_pnfs_ds->s_ops.dsh_read(data->current_ds,
						     &args->rpa_stateid,
						     rq->offset, len, buf, &got,
						     &eof);
	if (status != NFS4_OK)
		return status;
	l->n = 0;
	l->end = rq->offset;
	if (got > 0)
		rp_layout_add(l, rq->offset, got, false);
	l->eof = eof;
	return NFS4_OK;
}

/*
 * READ_PLUS on a data-server filehandle (pNFS files layout, RFC 8881 13.6
 * and RFC 7862 15.10): the runs come from dsh_read_plus_runs, then the
 * same min-hole folding, planner and reply as on the metadata server.
 * The data server's checks (fence, permissions) are the FSAL's.
 */
static enum nfs_req_result rp_data_server(READ_PLUS4args *args,
					  compound_data_t *data,
					  struct sp42_READ_PLUS4res *res)
{
	struct rp_runs_src src = { .ds = data->current_ds,
				   .stateid = &args->rpa_stateid };
	struct rp_request_ctx rq = { 0 };
	struct rp_layout layout = { 0 };
	struct sp42_iobuf *iob = NULL;
	fsal_status_t st = fsalstat(ERR_FSAL_NOTSUPP, 0);
	bool enabled, done;

	rp_export_config(&enabled, &rq.holes, &rq.min_hole);
	if (!enabled) {
		res->rp_status = NFS4ERR_NOTSUPP;
		return NFS_REQ_ERROR;
	}
	res->rp_status = rp_window(data, args, &rq, &done);
	if (res->rp_status != NFS4_OK || done)
		goto out;
	if (rq.budget < RP_XDR_RESOK_FIXED + RP_XDR_MIN_SEGMENT) {
		/* (no size to tell EOF from here without a read) */
		res->rp_status = rq.too_big;
		goto out;
	}

	rp_layout_alloc(&layout, &rq);
	iob = sp42_iobuf_alloc(rq.count);
	iob->copy = rp_reply_encrypted(data);
	if (rq.holes)
		st = rp_slot_layout(&src, NULL, rq.offset, rq.count,
				    rq.min_hole, rq.budget, iob->data, &layout);
	if (st.major == ERR_FSAL_NOTSUPP)
		res->rp_status =
			rp_ds_read_data(data, args, &rq, iob->data, &layout);
	else if (FSAL_IS_ERROR(st))
		res->rp_status = src.ds_status;
	if (res->rp_status == NFS4_OK)
		res->rp_status = rp_answer(data, &layout, &rq, iob, res,
					   args->rpa_count);
out:
	sp42_iobuf_put(iob);
	gsh_free(layout.ext);
	gsh_free(layout.runs);
	return nfsstat4_to_nfs_req_result(res->rp_status);
}

enum nfs_req_result nfs4_op_read_plus42(struct nfs_argop4 *op,
					compound_data_t *data,
					struct nfs_resop4 *resp)
{
	READ_PLUS4args *args = &op->nfs_argop4_u.opread_plus;
	struct sp42_READ_PLUS4res *res = &resp->nfs_resop4_u.opread_plus42;
	struct rp_request_ctx rq = { 0 };
	struct rp_layout layout = { 0 };
	struct sp42_iobuf *iob = NULL;
	struct fsal_obj_handle *obj;
	state_t *state = NULL;
	bool enabled, bypass, done;
	fsal_status_t st;

	resp->resop = NFS4_OP_READ_PLUS;
	memset(res, 0, sizeof(*res));

	if (nfs4_Is_Fh_DSHandle(&data->currentFH))
		return rp_data_server(args, data, res);

	res->rp_status = rp_check_fh(data);
	if (res->rp_status != NFS4_OK)
		return NFS_REQ_ERROR;
	obj = data->current_obj;

	/* (the pseudo filesystem's export, which holds no regular file,
	 * does not parse these: all false there)
	 */
	rp_export_config(&enabled, &rq.holes, &rq.min_hole);
	if (!enabled) {
		/* the admin turned READ_PLUS off for this export */
		res->rp_status = NFS4ERR_NOTSUPP;
		return NFS_REQ_ERROR;
	}

	res->rp_status =
		rp_check_stateid(data, &args->rpa_stateid, &state, &bypass);
	if (res->rp_status != NFS4_OK)
		goto out;

	st = rp_allow_read(obj, READ_ACCESS_CHECK_POLICY_PRE);
	if (FSAL_IS_ERROR(st)) {
		res->rp_status = nfs4_Errno_status(st);
		goto out;
	}

	res->rp_status = rp_window(data, args, &rq, &done);
	if (res->rp_status != NFS4_OK || done)
		goto out;
	if (rq.budget < RP_XDR_RESOK_FIXED + RP_XDR_MIN_SEGMENT) {
		/* room for eof and no segment: only an answer at EOF fits */
		res->rp_status = rp_eof_only(obj, args->rpa_offset, rq.too_big,
					     &res->rp_u.rp_resok4);
		if (res->rp_status == NFS4_OK)
			data->op_resp_size =
				sizeof(nfsstat4) + RP_XDR_RESOK_FIXED;
		goto out;
	}

	rp_layout_alloc(&layout, &rq);
	iob = sp42_iobuf_alloc(rq.count);
	iob->copy = rp_reply_encrypted(data);

	st = rp_read_layout(obj, state, bypass, args->rpa_offset, rq.count,
			    rq.holes, rq.min_hole, rq.budget, iob->data,
			    &layout);
	if (!FSAL_IS_ERROR(st))
		st = rp_allow_read(obj, READ_ACCESS_CHECK_POLICY_POST);
	if (FSAL_IS_ERROR(st)) {
		res->rp_status = nfs42_io_status(st);
		goto out;
	}
	res->rp_status =
		rp_answer(data, &layout, &rq, iob, res, args->rpa_count);

out:
	sp42_iobuf_put(iob);
	gsh_free(layout.ext);
	gsh_free(layout.runs);
	if (state != NULL)
		dec_state_t_ref(state);
	return nfsstat4_to_nfs_req_result(res->rp_status);
}

void nfs4_op_read_plus42_Free(nfs_resop4 *resp)
{
	struct sp42_READ_PLUS4res *res = &resp->nfs_resop4_u.opread_plus42;
	struct sp42_READ_PLUS4resok *ok = &res->rp_u.rp_resok4;
	u_int i;

	if (res->rp_status != NFS4_OK)
		return;
	for (i = 0; i < ok->rpr_contents.rpr_contents_len; i++) {
		struct sp42_read_plus_content *c =
			&ok->rpr_contents.rpr_contents_val[i];

		if (c->rpc_content == NFS4_CONTENT_DATA)
			sp42_iobuf_put(c->rpc_u.rpc_data.d_buf);
	}
	gsh_free(ok->rpr_contents.rpr_contents_val);
	ok->rpr_contents.rpr_contents_val = NULL;
	ok->rpr_contents.rpr_contents_len = 0;
}
