/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * NFSv4.2 server-side copy, protocol layer (see nfs42_copy.h): one chunk
 * of a copy through the FSAL's copy slot or the generic read2/write2 loop,
 * and the checks COPY and CLONE share.
 */

#include "config.h"
#include <pthread.h>
#include <time.h>
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
#include "nfs42_copy_plan.h"

/* Bytes one read2/write2 of the generic loop moves. */
#define NFS42_COPY_IO_SIZE (1024 * 1024)

/*
 * A chunk with a time budget is copied in pieces of at most this many
 * bytes, checked against the budget in between; without one, a piece is
 * all the cap allows.
 */
#define NFS42_COPY_PIECE (1024 * 1024)

static uint64_t elapsed_us(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000000 +
	       (now.tv_nsec - since->tv_nsec) / 1000;
}

/* ---- the generic read2/write2 loop -------------------------------------- */

struct gen_copy {
	struct fsal_obj_handle *src;
	struct fsal_obj_handle *dst;
	struct fsal_copy_arg *arg;
	uint64_t end; /* where the piece may end in the source */
	uint64_t dst_size; /* the destination's size when the call began */
	bool seek_ok; /* the source's seek2 tells data from holes */
	bool punch_ok; /* the destination's DEALLOCATE works */
	char *buf; /* NFS42_COPY_IO_SIZE bytes */
};

/*
 * read2 or write2 of [off, off + len) through Ganesha's synchronous
 * wrappers (fsal_read/fsal_write wait for done_cb and redo the call when
 * the FSAL asks for a resume).  *done: bytes moved.
 */
static fsal_status_t gen_io(struct gen_copy *g, bool write, uint64_t off,
			    size_t len, size_t *done, bool *eof)
{
	pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
	struct iovec iov = { .iov_base = g->buf, .iov_len = len };
	struct fsal_io_arg io = { 0 };
	struct async_process_data wait = { .ret = { 0, 0 },
					   .done = false,
					   .fsa_mutex = &mutex,
					   .fsa_cond = &cond };

	io.state = write ? g->arg->dst_state : g->arg->src_state;
	io.offset = off;
	io.io_request = len;
	io.iov_count = 1;
	io.iov = &iov;
	if (write) {
		io.fsal_stable = false;
		fsal_write(g->dst, false, &io, &wait);
	} else {
		fsal_read(g->src, false, &io, &wait);
	}
	*done = io.io_amount;
	if (eof != NULL)
		*eof = !write && io.end_of_file;
	pthread_cond_destroy(&cond);
	pthread_mutex_destroy(&mutex);
	return wait.ret;
}

/*
 * The next offset >= off of the source that is data (want_hole false) or
 * a hole (true), at most g->end.  Where seek2 cannot tell, everything is
 * data.
 */
static uint64_t gen_seek(struct gen_copy *g, uint64_t off, bool want_hole)
{
	struct io_info info = { 0 };
	fsal_status_t status;

	if (!g->seek_ok)
		return want_hole ? g->end : off;

	info.io_content.what = want_hole ? NFS4_CONTENT_HOLE :
					   NFS4_CONTENT_DATA;
	info.io_content.hole.di_offset = off;
	status = g->src->obj_ops->seek2(g->src, g->arg->src_state, &info);
	if (status.major == ERR_FSAL_NXIO)
		return g->end; /* no data after off, or off past a shrink */
	if (FSAL_IS_ERROR(status)) {
		LogDebug(COMPONENT_NFS_V4,
			 "COPY: seek2 %s, copying holes as data",
			 msg_fsal_err(status.major));
		g->seek_ok = false;
		return want_hole ? g->end : off;
	}
	if (!want_hole && info.io_eof && info.io_content.hole.di_offset <= off)
		return g->end; /* VFS: ENXIO leaves the offset, sets eof */
	return info.io_content.hole.di_offset < g->end ?
		       info.io_content.hole.di_offset :
		       g->end;
}

/*
 * A hole of the source over [off, off + len): the destination must read
 * zeros there.  Past its size when the copy began it does already (and the
 * size is set at the end); below, punch, or write zeros.
 */
static fsal_status_t gen_hole(struct gen_copy *g, uint64_t off, uint64_t len)
{
	uint64_t at = g->arg->dst_offset + (off - g->arg->src_offset);
	uint64_t left, n;
	fsal_status_t status;
	size_t put;

	if (at >= g->dst_size)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	left = g->dst_size - at < len ? g->dst_size - at : len;

	if (g->punch_ok) {
		status = g->dst->obj_ops->fallocate(g->dst, g->arg->dst_state,
						    at, left, false);
		if (!FSAL_IS_ERROR(status))
			return status;
		g->punch_ok = false;
	}
	memset(g->buf, 0, NFS42_COPY_IO_SIZE);
	while (left > 0) {
		n = left < NFS42_COPY_IO_SIZE ? left : NFS42_COPY_IO_SIZE;
		status = gen_io(g, true, at, n, &put, NULL);
		if (FSAL_IS_ERROR(status))
			return status;
		if (put == 0)
			return fsalstat(ERR_FSAL_IO, EIO);
		at += put;
		left -= put;
	}
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* Data of the source over [off, off + len), block by block: bytes done. */
static fsal_status_t gen_data(struct gen_copy *g, uint64_t off, uint64_t len,
			      uint64_t *done, bool *short_read)
{
	uint64_t at = g->arg->dst_offset + (off - g->arg->src_offset);
	fsal_status_t status;
	size_t want, got, put;
	bool eof;

	*done = 0;
	*short_read = false;
	while (*done < len) {
		want = len - *done < NFS42_COPY_IO_SIZE ? len - *done :
							  NFS42_COPY_IO_SIZE;
		status = gen_io(g, false, off + *done, want, &got, &eof);
		if (FSAL_IS_ERROR(status))
			return status;
		if (got == 0) {
			*short_read = true; /* the source shrank */
			break;
		}
		status = gen_io(g, true, at + *done, got, &put, NULL);
		if (FSAL_IS_ERROR(status))
			return status;
		*done += put;
		if (put < got) {
			*short_read = true;
			break;
		}
	}
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* The destination holds the piece: at least dst_offset + copied long (a
 * piece that ended in a hole of the source wrote nothing there). */
static fsal_status_t gen_extend(struct gen_copy *g)
{
	uint64_t want = g->arg->dst_offset + g->arg->copied;
	struct fsal_attrlist attrs;
	fsal_status_t status;
	uint64_t size;

	status = nfs42_file_size(g->dst, &size);
	if (FSAL_IS_ERROR(status) || size >= want)
		return status;
	fsal_prepare_attrs(&attrs, 0);
	attrs.filesize = want;
	FSAL_SET_MASK(attrs.valid_mask, ATTR_SIZE);
	status = g->dst->obj_ops->setattr2(g->dst, false, g->arg->dst_state,
					   &attrs);
	fsal_release_attrs(&attrs);
	return status;
}

fsal_status_t nfs42_copy_generic(struct fsal_obj_handle *src,
				 struct fsal_obj_handle *dst,
				 struct fsal_copy_arg *arg)
{
	struct gen_copy g = { .src = src,
			      .dst = dst,
			      .arg = arg,
			      .seek_ok = true,
			      .punch_ok = true };
	fsal_status_t status = { ERR_FSAL_NO_ERROR, 0 };
	uint64_t size, pos, next, n, room;
	bool range_to_eof, stop = false;

	arg->copied = 0;
	arg->eof = false;
	status = nfs42_file_size(src, &size);
	if (FSAL_IS_ERROR(status))
		return status;
	if (arg->src_offset >= size) {
		arg->eof = true;
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	}
	range_to_eof = arg->count >= size - arg->src_offset;
	room = range_to_eof ? size - arg->src_offset : arg->count;
	if (arg->piece != 0 && arg->piece < room)
		room = arg->piece;
	g.end = arg->src_offset + room;
	status = nfs42_file_size(dst, &g.dst_size);
	if (FSAL_IS_ERROR(status))
		return status;
	g.buf = gsh_malloc(NFS42_COPY_IO_SIZE);

	pos = arg->src_offset;
	while (pos < g.end && !stop) {
		next = gen_seek(&g, pos, false);
		if (next > pos) {
			n = next - pos;
			status = gen_hole(&g, pos, n);
		} else {
			next = gen_seek(&g, pos, true);
			if (next <= pos) /* seek2 raced a write: one block */
				next = pos + 1;
			status = gen_data(&g, pos, next - pos, &n, &stop);
		}
		if (FSAL_IS_ERROR(status))
			break;
		pos += n;
		arg->copied = pos - arg->src_offset;
	}
	gsh_free(g.buf);

	arg->eof = range_to_eof && pos >= size;
	if (arg->copied > 0) {
		fsal_status_t ext = gen_extend(&g);

		if (FSAL_IS_ERROR(ext) && !FSAL_IS_ERROR(status))
			status = ext;
	}
	LogDebug(COMPONENT_NFS_V4,
		 "COPY (read/write) %" PRIu64 "+%" PRIu64 " to %" PRIu64
		 ": %" PRIu64 " copied%s, %s",
		 arg->src_offset, arg->count, arg->dst_offset, arg->copied,
		 arg->eof ? " to EOF" : "", msg_fsal_err(status.major));
	/* Once any byte is in, the count is the answer, not the error. */
	if (FSAL_IS_ERROR(status) && arg->copied > 0)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	return status;
}

/* ---- a chunk: pieces under the chunk's cap and budget -------------------- */

/* The bytes the next piece may move (want > 0: what is left). */
static uint64_t copy_piece_size(const struct nfs42_chunk *chunk, uint64_t want)
{
	if (chunk->budget_ms != 0 && want > NFS42_COPY_PIECE)
		want = NFS42_COPY_PIECE;
	return nfs42_chunk_piece(chunk, want);
}

fsal_status_t nfs42_copy_chunk(struct fsal_obj_handle *src,
			       struct fsal_obj_handle *dst,
			       struct nfs42_copy_req *req)
{
	struct nfs42_chunk chunk = { .cap = req->cap,
				     .budget_ms = req->budget_ms };
	fsal_status_t status = { ERR_FSAL_NO_ERROR, 0 };
	struct fsal_copy_arg arg;
	struct timespec began;
	uint64_t piece_began;
	bool generic = false;

	req->copied = 0;
	req->eof = false;
	clock_gettime(CLOCK_MONOTONIC, &began);
	while (chunk.done < req->count &&
	       !nfs42_chunk_stop(&chunk, elapsed_us(&began))) {
		memset(&arg, 0, sizeof(arg));
		arg.src_state = req->src_state;
		arg.dst_state = req->dst_state;
		arg.src_offset = req->src_offset + chunk.done;
		arg.dst_offset = req->dst_offset + chunk.done;
		arg.count = req->count - chunk.done;
		arg.piece = copy_piece_size(&chunk, arg.count);
		piece_began = elapsed_us(&began);
		if (!generic) {
			status = src->obj_ops->copy(src, dst, &arg);
			/* no copy of its own (or declined): read2/write2 */
			if (status.major == ERR_FSAL_NOTSUPP &&
			    chunk.done == 0) {
				generic = true;
				continue;
			}
		} else {
			status = nfs42_copy_generic(src, dst, &arg);
		}
		nfs42_chunk_piece_took(&chunk,
				       elapsed_us(&began) - piece_began);
		if (arg.copied > arg.count)
			arg.copied = arg.count; /* (an FSAL saying too much) */
		chunk.done += arg.copied;
		if (FSAL_IS_ERROR(status) || arg.eof || arg.copied == 0) {
			req->eof = arg.eof && !FSAL_IS_ERROR(status);
			break;
		}
	}
	req->copied = chunk.done;
	/* Once any byte was copied, the count is the answer. */
	if (FSAL_IS_ERROR(status) && req->copied > 0)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	return status;
}

/* ---- checks shared by COPY and CLONE ------------------------------------ */

/* Only regular files can be copied or cloned: the RFC's errors else. */
static nfsstat4 copy_check_type(object_file_type_t type)
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

nfsstat4 nfs42_copy_check_fhs(compound_data_t *data)
{
	nfsstat4 status;

	status = nfs4_sanity_check_FH(data, NO_FILE_TYPE, false);
	if (status != NFS4_OK)
		return status;
	status = nfs4_sanity_check_saved_FH(data, NO_FILE_TYPE, false);
	if (status != NFS4_OK)
		return status;
	status = copy_check_type(data->saved_filetype);
	if (status != NFS4_OK)
		return status;
	status = copy_check_type(data->current_filetype);
	if (status != NFS4_OK)
		return status;
	if (data->saved_export != op_ctx->ctx_export)
		return NFS4ERR_XDEV;
	if (data->saved_obj->fs != NULL && data->current_obj->fs != NULL &&
	    data->saved_obj->fs != data->current_obj->fs)
		return NFS4ERR_XDEV;
	return NFS4_OK;
}

nfsstat4 nfs42_copy_check_side(compound_data_t *data, stateid4 *stateid,
			       struct fsal_obj_handle *obj,
			       enum nfs4_stateid_use_op op, state_t **state)
{
	bool write = op == SU_COPY_DST || op == SU_CLONE_DST;
	struct nfs4_stateid_use use;
	fsal_status_t fsal_status;
	nfsstat4 status;

	/* what the stateid authorizes: nfs4_stateid_use.c; the pieces are
	 * copied under the open of a lock stateid
	 */
	status = nfs4_stateid_authorize(data, op, stateid, obj, &use);
	if (status != NFS4_OK)
		return status;
	if (use.open != NULL) {
		*state = use.open;
		use.open = NULL;
	} else {
		*state = use.state;
		use.state = NULL;
	}
	nfs4_stateid_use_release(&use);

	fsal_status = obj->obj_ops->test_access(
		obj, write ? FSAL_WRITE_ACCESS : FSAL_READ_ACCESS, NULL, NULL,
		true);
	return nfs4_Errno_status(fsal_status);
}

nfsstat4 nfs42_copy_check_range(struct fsal_obj_handle *src,
				struct fsal_obj_handle *dst, uint64_t src_off,
				uint64_t dst_off, uint64_t count, uint64_t *len,
				const char *opname)
{
	uint64_t max_off =
		atomic_fetch_uint64_t(&op_ctx->ctx_export->MaxOffsetWrite);
	fsal_status_t fsal_status;
	uint64_t size;

	fsal_status = nfs42_file_size(src, &size);
	if (FSAL_IS_ERROR(fsal_status))
		return nfs4_Errno_status(fsal_status);

	switch (nfs42_copy_range_verdict(src_off, dst_off, count, size, max_off,
					 src == dst, len)) {
	case NFS42_RANGE_OK:
		return NFS4_OK;
	case NFS42_RANGE_FBIG:
		return NFS4ERR_FBIG;
	default:
		LogDebug(COMPONENT_NFS_V4,
			 "%s: range %" PRIu64 "+%" PRIu64 " to %" PRIu64
			 " (source EOF %" PRIu64 ") refused",
			 opname, src_off, count, dst_off, size);
		return NFS4ERR_INVAL;
	}
}

nfsstat4 nfs42_copy_verify(compound_data_t *data, stateid4 *src_stateid,
			   stateid4 *dst_stateid, uint64_t src_off,
			   uint64_t dst_off, uint64_t count,
			   state_t **src_state, state_t **dst_state,
			   uint64_t *len, const char *opname)
{
	struct fsal_obj_handle *src = data->saved_obj;
	struct fsal_obj_handle *dst = data->current_obj;
	bool clone = strcmp(opname, "CLONE") == 0;
	nfsstat4 status;

	*src_state = NULL;
	*dst_state = NULL;
	*len = 0;
	status = nfs42_copy_check_fhs(data);
	if (status == NFS4_OK)
		status = nfs42_copy_check_side(
			data, src_stateid, src,
			clone ? SU_CLONE_SRC : SU_COPY_SRC, src_state);
	if (status == NFS4_OK)
		status = nfs42_copy_check_side(
			data, dst_stateid, dst,
			clone ? SU_CLONE_DST : SU_COPY_DST, dst_state);
	if (status == NFS4_OK)
		status = nfs42_copy_check_range(src, dst, src_off, dst_off,
						count, len, opname);
	return status;
}
