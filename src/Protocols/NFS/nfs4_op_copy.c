/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * NFSv4.2 COPY (RFC 7862 15.2), intra-server: SAVED_FH is the source,
 * CURRENT_FH the destination; [ca_src_offset, + ca_count) of the source
 * (ca_count 0: up to its end of file) goes to ca_dst_offset of the
 * destination.  One reply copies at most one chunk (NFSv4 block's
 * Copy_Chunk_Size and Copy_Time_Budget_Ms, whichever comes first; a clone
 * covers the whole range at once) and returns the short wr_count: the
 * client goes on with another COPY from there (RFC 7862 15.2.3).  The
 * checks are those of CLONE (nfs42_copy_verify, nfs42_copy.c).  Only reachable in minor
 * version 2: nfs4_Compound answers OP_ILLEGAL for it in 4.0 and 4.1.
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
#include "nfs42_copy.h"
#include "nfs42_proto_util.h"
#include "nfs42_stats.h"
#include "nfs42_copy_async.h"

/*
 * The copy's own share of Copy_Time_Budget_Ms: one millisecond is kept for
 * what the reply costs around it (the checks before, encoding and sending
 * after), so that the whole COPY, not only its data, fits the budget.  0
 * stays "no budget"; the copy always gets at least 1 ms.
 */
static uint32_t copy_engine_budget_ms(uint32_t budget_ms)
{
	if (budget_ms <= 1)
		return budget_ms;
	return budget_ms - 1;
}

/*
 * A synchronous answer: the bytes are where write2 without stability
 * leaves them, so UNSTABLE4 with the server's write verifier; the client
 * makes them durable with COMMIT (and sees a reboot in the verifier).
 */
static void copy_sync_reply(struct sp42_COPY4resok *ok, uint64_t copied)
{
	struct gsh_buffdesc verf = { .addr = ok->cr_response.wr_writeverf,
				     .len = sizeof(verifier4) };

	ok->cr_response.wr_callback_id.wr_callback_id_len = 0;
	ok->cr_response.wr_callback_id.wr_callback_id_val = NULL;
	ok->cr_response.wr_count = copied;
	ok->cr_response.wr_committed = UNSTABLE4;
	op_ctx->fsal_export->exp_ops.get_write_verifier(op_ctx->fsal_export,
							&verf);
	ok->cr_requirements.cr_consecutive = true;
	ok->cr_requirements.cr_synchronous = true;
}

/*
 * The checks of a COPY: an inter-server copy (RFC 7862 4.8, a source
 * server given) is not done, and is answered first, as knfsd does: its
 * source stateid belongs to the other server.  Then COPY's checks are
 * CLONE's (nfs42_copy_verify); *len is what the range resolves to now
 * (ca_count 0: to the source's EOF as it is at this moment), what the copy
 * moves at most, whatever the source does afterwards.
 */
static nfsstat4 copy_check(compound_data_t *data, struct sp42_COPY4args *args,
			   state_t **src_state, state_t **dst_state,
			   uint64_t *len)
{
	*src_state = NULL;
	*dst_state = NULL;
	/* A server that does not support inter-server copy answers
	 * NFS4ERR_NOTSUPP (as Linux nfsd does), and the client copies by
	 * itself.
	 */
	if (args->ca_source_server.ca_source_server_len != 0) {
		LogDebug(
			COMPONENT_NFS_V4,
			"COPY: inter-server copy (%u source servers) not supported",
			args->ca_source_server.ca_source_server_len);
		return NFS4ERR_NOTSUPP;
	}
	return nfs42_copy_verify(data, &args->ca_src_stateid,
				 &args->ca_dst_stateid, args->ca_src_offset,
				 args->ca_dst_offset, args->ca_count, src_state,
				 dst_state, len, "COPY");
}

static nfsstat4 copy_do(compound_data_t *data, struct sp42_COPY4args *args,
			struct sp42_COPY4res *res)
{
	struct fsal_obj_handle *src = data->saved_obj;
	struct fsal_obj_handle *dst = data->current_obj;
	struct nfs42_copy_req req = { 0 };
	state_t *src_state = NULL;
	state_t *dst_state = NULL;
	fsal_status_t fsal_status;
	nfsstat4 status;
	bool queued;
	uint64_t len;

	status = copy_check(data, args, &src_state, &dst_state, &len);
	if (status != NFS4_OK)
		goto out;
	if (len == 0) {
		/* at the source's EOF: nothing to copy, done at once */
		copy_sync_reply(&res->cr_u.cr_resok4, 0);
		goto out;
	}

	/* The range is resolved once, here: a chunk never measures "to EOF"
	 * again (a copy of a file onto itself past its end would chase its
	 * own writes).
	 */
	req.src_state = src_state;
	req.src_offset = args->ca_src_offset;
	req.dst_state = dst_state;
	req.dst_offset = args->ca_dst_offset;
	req.count = len;
	req.cap = nfs_param.nfsv4_param.copy_chunk_size;
	req.budget_ms = copy_engine_budget_ms(
		nfs_param.nfsv4_param.copy_time_budget_ms);

	/* Asynchronous (RFC 7862 15.2.3): a copy stateid at once, the copy
	 * on the worker pool (nfs42_copy_async.c); when async copy is off, or
	 * the pool or this client's quota is full, one chunk now
	 * (cr_synchronous true), which the RFC allows whatever was asked.
	 */
	if (!args->ca_synchronous) {
		status = nfs42_copy_async_start(data, src, dst,
						args->ca_src_offset,
						args->ca_dst_offset, len, res,
						&queued);
		if (status != NFS4_OK || queued)
			goto out;
	}

	fsal_status = nfs42_copy_chunk(src, dst, &req);
	LogDebug(COMPONENT_NFS_V4,
		 "COPY %" PRIu64 "+%" PRIu64 " to %" PRIu64 ": %" PRIu64
		 " bytes%s, %s",
		 args->ca_src_offset, args->ca_count, args->ca_dst_offset,
		 req.copied, req.eof ? " to EOF" : "",
		 msg_fsal_err(fsal_status.major));
	/* Once any byte was copied, the count is the answer. */
	if (FSAL_IS_ERROR(fsal_status) && req.copied == 0) {
		status = nfs42_io_status(fsal_status);
		goto out;
	}
	copy_sync_reply(&res->cr_u.cr_resok4, req.copied);
	nfs42_stats_copy(op_ctx->ctx_export, NFS42_COPY_SYNC, req.copied);

out:
	if (src_state != NULL)
		dec_state_t_ref(src_state);
	if (dst_state != NULL)
		dec_state_t_ref(dst_state);
	return status;
}

/**
 * @brief The NFS4_OP_COPY operation (minor version 2)
 *
 * @param[in]     op    Arguments for nfs4_op
 * @param[in,out] data  Compound request's data
 * @param[out]    resp  Results for nfs4_op
 */
enum nfs_req_result nfs4_op_copy(struct nfs_argop4 *op, compound_data_t *data,
				 struct nfs_resop4 *resp)
{
	struct sp42_COPY4args *args = &op->nfs_argop4_u.opcopy42;
	struct sp42_COPY4res *res = &resp->nfs_resop4_u.opcopy42;

	resp->resop = NFS4_OP_COPY;
	memset(res, 0, sizeof(*res));
	res->cr_status = copy_do(data, args, res);
	return nfsstat4_to_nfs_req_result(res->cr_status);
}

/* A wr_callback_id an asynchronous COPY set is gsh_malloc'ed. */
void nfs4_op_copy_Free(nfs_resop4 *resp)
{
	struct sp42_COPY4res *res = &resp->nfs_resop4_u.opcopy42;

	if (res->cr_status == NFS4_OK)
		gsh_free(res->cr_u.cr_resok4.cr_response.wr_callback_id
				 .wr_callback_id_val);
}
