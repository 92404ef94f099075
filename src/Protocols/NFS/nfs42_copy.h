/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * NFSv4.2 server-side copy, protocol layer: the copy of one chunk (the
 * FSAL's copy, else a generic read2/write2 loop) and the checks COPY and
 * CLONE share (RFC 7862 15.2.3, 15.13.3).
 */

#ifndef NFS42_COPY_H
#define NFS42_COPY_H

#include "fsal.h"
#include "nfs_proto_data.h"
#include "sal_data.h"

/*
 * One chunk of a COPY from src to dst: obj_ops->copy, or, when the FSAL
 * answers ERR_FSAL_NOTSUPP, the generic read2/write2 loop (skipping source
 * holes where seek2 works).  op_ctx must be set for the export.  arg as in
 * fsal_api.h (struct fsal_copy_arg).  Same object as source and
 * destination must not self-deadlock.
 */
fsal_status_t nfs42_copy_chunk(struct fsal_obj_handle *src,
			       struct fsal_obj_handle *dst,
			       struct fsal_copy_arg *arg);

/*
 * The generic loop alone (what nfs42_copy_chunk falls back to): reads the
 * source with read2 and writes the destination with write2, I/O block by
 * block, never holding both files' I/O at once.  Source holes (seek2) are
 * skipped, punched (DEALLOCATE) or zero-filled in the destination where it
 * may hold data, and a copy that reaches the source's EOF leaves the
 * destination at least dst_offset + copied long.
 */
fsal_status_t nfs42_copy_generic(struct fsal_obj_handle *src,
				 struct fsal_obj_handle *dst,
				 struct fsal_copy_arg *arg);

/* ---- checks shared by COPY and CLONE ------------------------------------ */

/*
 * SAVED_FH (source) and CURRENT_FH (destination): both set, both regular
 * files (else ISDIR, SYMLINK or WRONG_TYPE), one export and filesystem
 * (else XDEV).
 */
nfsstat4 nfs42_copy_check_fhs(compound_data_t *data);

/*
 * One side's stateid (READ's rules for the source, WRITE's for the
 * destination), its open mode (OPENMODE) and the caller's permission.
 * *state is NULL for a special stateid, else referenced: the caller drops
 * it with dec_state_t_ref, even on error.  opname is for the log.
 */
nfsstat4 nfs42_copy_check_side(compound_data_t *data, stateid4 *stateid,
			       struct fsal_obj_handle *obj, bool write,
			       state_t **state, const char *opname);

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
