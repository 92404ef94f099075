/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * NFSv4.2 CLONE (RFC 7862 15.13): SAVED_FH is the source, CURRENT_FH the
 * destination; [cl_src_offset, + cl_count) of the source is made to share
 * its blocks at cl_dst_offset of the destination (cl_count 0: up to the
 * source's end of file).  The checks the RFC puts on the server are done
 * here (nfs42_copy_verify, shared with COPY); alignment to the filesystem's
 * block size is the FSAL's (it knows
 * the block size), which answers ERR_FSAL_INVAL, and ERR_FSAL_NOTSUPP where
 * the filesystem cannot share blocks.  Only reachable in minor version 2:
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
#include "nfs42_copy.h"
#include "nfs42_proto_util.h"
#include "nfs42_stats.h"

static nfsstat4 clone_do(compound_data_t *data, struct sp42_CLONE4args *args)
{
	struct fsal_obj_handle *src = data->saved_obj;
	struct fsal_obj_handle *dst = data->current_obj;
	state_t *src_state = NULL;
	state_t *dst_state = NULL;
	fsal_status_t fsal_status;
	nfsstat4 status;
	uint64_t len;

	status = nfs42_copy_verify(data, &args->cl_src_stateid,
				   &args->cl_dst_stateid, args->cl_src_offset,
				   args->cl_dst_offset, args->cl_count,
				   &src_state, &dst_state, &len, "CLONE");
	if (status == NFS4_OK) {
		fsal_status = dst->obj_ops->clone(
			src, src_state, args->cl_src_offset, dst, dst_state,
			args->cl_dst_offset, args->cl_count);
		status = nfs42_io_status(fsal_status);
		if (status == NFS4_OK)
			nfs42_stats_copy(op_ctx->ctx_export, NFS42_CLONE, len);
		LogDebug(COMPONENT_NFS_V4,
			 "CLONE %" PRIu64 "+%" PRIu64 " to %" PRIu64 ": %s",
			 args->cl_src_offset, args->cl_count,
			 args->cl_dst_offset, nfsstat4_to_str(status));
	}

	if (src_state != NULL)
		dec_state_t_ref(src_state);
	if (dst_state != NULL)
		dec_state_t_ref(dst_state);
	return status;
}

/**
 * @brief The NFS4_OP_CLONE operation (minor version 2)
 *
 * @param[in]     op    Arguments for nfs4_op
 * @param[in,out] data  Compound request's data
 * @param[out]    resp  Results for nfs4_op
 */
enum nfs_req_result nfs4_op_clone(struct nfs_argop4 *op, compound_data_t *data,
				  struct nfs_resop4 *resp)
{
	struct sp42_CLONE4args *args = &op->nfs_argop4_u.opclone42;
	struct sp42_CLONE4res *res = &resp->nfs_resop4_u.opclone42;

	resp->resop = NFS4_OP_CLONE;
	res->cl_status = clone_do(data, args);
	return nfsstat4_to_nfs_req_result(res->cl_status);
}

/* CLONE4res holds nothing to free. */
void nfs4_op_clone_Free(nfs_resop4 *resp)
{
}
