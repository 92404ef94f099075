/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * NFSv4.2 server-side copy, protocol layer: the copy of one chunk, piece
 * after piece through the FSAL's copy slot (else a generic read2/write2
 * loop), with the chunk's policy (size cap, time budget) applied here and
 * nowhere else, and the checks COPY and CLONE share (RFC 7862 15.2.3,
 * 15.13.3).
 */

#ifndef NFS42_COPY_H
#define NFS42_COPY_H

#include "fsal.h"
#include "nfs_proto_data.h"
#include "sal_data.h"
#include "nfs4_stateid_use.h"

/* One chunk of a copy: what to copy, its bounds, and what it did. */
struct nfs42_copy_req {
	struct state_t *src_state; /* source state (open for read), or NULL */
	struct state_t *dst_state; /* destination state, or NULL */
	uint64_t src_offset, dst_offset;
	uint64_t count; /* > 0: the rest of the range, resolved by COPY */
	uint64_t cap; /* at most this many bytes (0: no cap) */
	uint32_t budget_ms; /* and about this long (0: no budget) */
	uint64_t copied; /* out: bytes of the range copied */
	bool eof; /* out: the source ends at src_offset + copied */
};

/*
 * One chunk of a copy from src to dst: pieces through obj_ops->copy, or,
 * when the FSAL answers ERR_FSAL_NOTSUPP, through the generic read2/write2
 * loop, until the range is done, the source ends, or the chunk's cap or
 * budget says stop (nfs42_chunk_stop: never before the first piece; a
 * clone may cover the whole range in one piece, whatever the cap).  Once
 * a byte was copied, the count is the answer, not an error.  op_ctx must
 * be set for the export.  One object as source and destination must not
 * self-deadlock.
 */
fsal_status_t nfs42_copy_chunk(struct fsal_obj_handle *src,
			       struct fsal_obj_handle *dst,
			       struct nfs42_copy_req *req);

/*
 * One piece by the generic loop (what nfs42_copy_chunk falls back to), as
 * obj_ops->copy's contract says (struct fsal_copy_arg): reads the source
 * with read2 and writes the destination with write2, I/O block by block,
 * never holding both files' I/O at once.  Source holes (seek2) are
 * skipped, punched (DEALLOCATE) or zero-filled in the destination where it
 * may hold data, and the destination is left at least dst_offset + copied
 * long.
 */
fsal_status_t nfs42_copy_generic(struct fsal_obj_handle *src,
				 struct fsal_obj_handle *dst,
				 struct fsal_copy_arg *arg);

/* ---- checks shared by COPY and CLONE ------------------------------------ */

/*
 * Everything COPY and CLONE check before moving a byte (RFC 7862 15.2.3,
 * 15.13.3), as knfsd's nfsd4_verify_copy: both file handles
 * (nfs42_copy_check_fhs), the source stateid for reading and the
 * destination one for writing with their open modes, delegation conflicts
 * and permission (nfs42_copy_check_side), and the range
 * (nfs42_copy_check_range; *len: what count resolves to now, count 0 being
 * "to the source's EOF").  *src_state and *dst_state are NULL or
 * referenced, also on error: the caller drops them with dec_state_t_ref.
 */
nfsstat4 nfs42_copy_verify(compound_data_t *data, stateid4 *src_stateid,
			   stateid4 *dst_stateid, uint64_t src_off,
			   uint64_t dst_off, uint64_t count,
			   state_t **src_state, state_t **dst_state,
			   uint64_t *len, const char *opname);

/*
 * SAVED_FH (source) and CURRENT_FH (destination): both set, both regular
 * files (else ISDIR, SYMLINK or WRONG_TYPE), one export and filesystem
 * (else XDEV).
 */
nfsstat4 nfs42_copy_check_fhs(compound_data_t *data);

/*
 * One side's stateid, authorized for op (SU_COPY_SRC, SU_COPY_DST,
 * SU_CLONE_SRC, SU_CLONE_DST: nfs4_stateid_use.c's rows), and the
 * caller's permission.  *state is NULL for a special stateid, else
 * referenced (a lock stateid's open): the caller drops it with
 * dec_state_t_ref, even on error.
 */
nfsstat4 nfs42_copy_check_side(compound_data_t *data, stateid4 *stateid,
			       struct fsal_obj_handle *obj,
			       enum nfs4_stateid_use_op op, state_t **state);

/*
 * The range: within the source's EOF, no overlap in one file (INVAL), the
 * destination below the export's MaxOffsetWrite (FBIG).  count 0 means to
 * the source's EOF; *len is what the range resolves to.
 */
nfsstat4 nfs42_copy_check_range(struct fsal_obj_handle *src,
				struct fsal_obj_handle *dst, uint64_t src_off,
				uint64_t dst_off, uint64_t count, uint64_t *len,
				const char *opname);

#endif /* NFS42_COPY_H */
