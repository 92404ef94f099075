/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * NFSv4.2 CLONE (RFC 7862 15.13): SAVED_FH is the source, CURRENT_FH the
 * destination; [cl_src_offset, + cl_count) of the source is made to share
 * its blocks at cl_dst_offset of the destination (cl_count 0: up to the
 * source's end of file).  The checks the RFC puts on the server are done
 * here; alignment to the filesystem's block size is the FSAL's (it knows
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
#include "nfs42_proto_util.h"

/* Only regular files can be cloned: the RFC's errors for the others. */
static nfsstat4 clone_check_type(object_file_type_t type)
{
	switch (type) {
	case REGULAR_FILE:
		return NFS4_OK;
	case DIRECTORY:
		return NFS4ERR_ISDIR;
	case SYMBOLIC_LINK:
		return NFS4ERR_SYMLINK;
	default:
		return NFS4ERR_WRONG_TYPE;
	}
}

/* SAVED_FH and CURRENT_FH: both set, both regular files, one export. */
static nfsstat4 clone_check_fhs(compound_data_t *data)
{
	nfsstat4 status;

	status = nfs4_sanity_check_FH(data, NO_FILE_TYPE, false);
	if (status != NFS4_OK)
		return status;
	status = nfs4_sanity_check_saved_FH(data, NO_FILE_TYPE, false);
	if (status != NFS4_OK)
		return status;
	status = clone_check_type(data->saved_filetype);
	if (status != NFS4_OK)
		return status;
	status = clone_check_type(data->current_filetype);
	if (status != NFS4_OK)
		return status;
	if (data->saved_export != op_ctx->ctx_export)
		return NFS4ERR_XDEV;
	if (data->saved_obj->fs != NULL && data->current_obj->fs != NULL &&
	    data->saved_obj->fs != data->current_obj->fs)
		return NFS4ERR_XDEV;
	return NFS4_OK;
}

/*
 * A share (or a lock's open) state must carry `access`; a delegation must
 * be a write one for the destination.  *state keeps its reference.
 */
static nfsstat4 clone_check_open(state_t **state, uint32_t access)
{
	state_t *open;

	switch ((*state)->state_type) {
	case STATE_TYPE_SHARE:
		break;
	case STATE_TYPE_LOCK:
		open = nfs4_State_Get_Pointer(
			(*state)->state_data.lock.openstate_key);
		if (open == NULL)
			return NFS4ERR_BAD_STATEID;
		dec_state_t_ref(*state);
		*state = open;
		break;
	case STATE_TYPE_DELEG:
		if (access == OPEN4_SHARE_ACCESS_WRITE &&
		    !((*state)->state_data.deleg.sd_type & OPEN_DELEGATE_WRITE))
			return NFS4ERR_BAD_STATEID;
		return NFS4_OK;
	default:
		return NFS4ERR_BAD_STATEID;
	}

	if (((*state)->state_data.share.share_access & access) == 0) {
		LogDebug(COMPONENT_NFS_V4, "CLONE: stateid not open for %s",
			 access == OPEN4_SHARE_ACCESS_READ ? "read" : "write");
		return NFS4ERR_OPENMODE;
	}
	return NFS4_OK;
}

/*
 * Check one side's stateid (READ's rules for the source, WRITE's for the
 * destination) and its permission.  *state is NULL for a special stateid,
 * else referenced: the caller drops it, even on error.
 */
static nfsstat4 clone_check_side(compound_data_t *data, stateid4 *stateid,
				 struct fsal_obj_handle *obj, bool write,
				 state_t **state)
{
	uint32_t access = write ? OPEN4_SHARE_ACCESS_WRITE :
				  OPEN4_SHARE_ACCESS_READ;
	fsal_status_t fsal_status;
	nfsstat4 status;

	status = nfs4_Check_Stateid(stateid, obj, state, data,
				    STATEID_SPECIAL_ANY, 0, false, "CLONE");
	if (status != NFS4_OK)
		return status;

	if (*state != NULL)
		status = clone_check_open(state, access);
	else if (state_deleg_conflict(obj, write))
		status = NFS4ERR_DELAY;
	if (status != NFS4_OK)
		return status;

	fsal_status = obj->obj_ops->test_access(
		obj, write ? FSAL_WRITE_ACCESS : FSAL_READ_ACCESS, NULL, NULL,
		true);
	return nfs4_Errno_status(fsal_status);
}

/*
 * The source range lies within the source file; in one file the ranges do
 * not overlap; the destination does not go past MaxOffsetWrite.
 */
static nfsstat4 clone_check_range(const struct sp42_CLONE4args *args,
				  struct fsal_obj_handle *src,
				  struct fsal_obj_handle *dst)
{
	uint64_t max_off =
		atomic_fetch_uint64_t(&op_ctx->ctx_export->MaxOffsetWrite);
	uint64_t size, len;
	nfsstat4 status;

	/* the source's size, for the range checks */
	status = nfs4_Errno_status(nfs42_file_size(src, &size));
	if (status != NFS4_OK)
		return status;

	if (args->cl_src_offset > size ||
	    args->cl_count > size - args->cl_src_offset) {
		LogDebug(COMPONENT_NFS_V4,
			 "CLONE: source range %" PRIu64 "+%" PRIu64
			 " past EOF %" PRIu64,
			 args->cl_src_offset, args->cl_count, size);
		return NFS4ERR_INVAL;
	}
	len = args->cl_count ? args->cl_count : size - args->cl_src_offset;

	if (args->cl_dst_offset > UINT64_MAX - len)
		return NFS4ERR_INVAL;
	if (args->cl_dst_offset + len > max_off)
		return NFS4ERR_FBIG;

	if (src == dst && len != 0 &&
	    args->cl_src_offset < args->cl_dst_offset + len &&
	    args->cl_dst_offset < args->cl_src_offset + len) {
		LogDebug(COMPONENT_NFS_V4, "CLONE: overlapping ranges");
		return NFS4ERR_INVAL;
	}
	return NFS4_OK;
}

static nfsstat4 clone_do(compound_data_t *data, struct sp42_CLONE4args *args)
{
	struct fsal_obj_handle *src = data->saved_obj;
	struct fsal_obj_handle *dst = data->current_obj;
	state_t *src_state = NULL;
	state_t *dst_state = NULL;
	fsal_status_t fsal_status;
	nfsstat4 status;

	status = clone_check_fhs(data);
	if (status != NFS4_OK)
		return status;

	status = clone_check_side(data, &args->cl_src_stateid, src, false,
				  &src_state);
	if (status == NFS4_OK)
		status = clone_check_side(data, &args->cl_dst_stateid, dst,
					  true, &dst_state);
	if (status == NFS4_OK)
		status = clone_check_range(args, src, dst);

	if (status == NFS4_OK) {
		fsal_status = dst->obj_ops->clone(
			src, src_state, args->cl_src_offset, dst, dst_state,
			args->cl_dst_offset, args->cl_count);
		status = nfs4_Errno_status(fsal_status);
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
