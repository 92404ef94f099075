/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Asynchronous NFSv4.2 COPY (RFC 7862 15.2, 15.8, 15.9, 16.1): copy
 * stateids, the table of copies, the bounded worker pool, OFFLOAD_STATUS,
 * OFFLOAD_CANCEL and CB_OFFLOAD.  See nfs42_copy_async.c for the locking
 * rules.
 */

#ifndef NFS42_COPY_ASYNC_H
#define NFS42_COPY_ASYNC_H

#include "fsal_types.h"
#include "nfs_proto_data.h"

struct fsal_obj_handle;

/**
 * @brief Start an asynchronous copy (COPY with ca_synchronous false)
 *
 * Called from COPY once every check passed, with op_ctx set for the
 * export and the caller (its squashed credentials).  The job is bound to
 * the caller: it keeps those credentials for every chunk and opens both
 * files for itself (fsal_open2 with states of its own) for its whole
 * life, independent of the client's stateids; it counts as a writer of
 * dst, so no delegation of dst is granted while it runs.  It also takes
 * references to the export and both handles.  The copy runs on the worker
 * pool chunk by chunk; CB_OFFLOAD reports its end.
 *
 * @param[in]  data     The COMPOUND (session, CURRENT_FH = destination)
 * @param[in]  src      Source file
 * @param[in]  dst      Destination file
 * @param[in]  src_offset, dst_offset  Where the range starts
 * @param[in]  count    Bytes to copy (> 0): COPY resolved ca_count 0 to the
 *                      source's EOF once; chunks never measure it again
 * @param[out] res      When queued: the NFS4_OK result (wr_callback_id
 *                      set, wr_count 0, cr_synchronous false); the
 *                      caller's free routine frees wr_callback_id_val
 * @param[out] queued   Whether the copy was queued
 *
 * @return NFS4_OK: queued, or (*queued false) to be answered synchronously
 *         (async copy off, no session, the pool or the client's quota
 *         full, or the job could not open its files); NFS4ERR_DELAY: a
 *         delegation conflicting with the copy is being recalled.
 */
nfsstat4 nfs42_copy_async_start(compound_data_t *data,
				struct fsal_obj_handle *src,
				struct fsal_obj_handle *dst,
				uint64_t src_offset, uint64_t dst_offset,
				uint64_t count, struct sp42_COPY4res *res,
				bool *queued);

/**
 * @brief Cancel and forget every copy of a client (expiry, DESTROY_CLIENTID)
 *
 * Its queued copies end here; its running ones are asked to stop and end
 * after their chunk on their own (they hold nothing of the client: their
 * opens and credentials are the job's).  Never waits for a chunk: it runs
 * in the lease reaper under the client record's mutex.  Its records are
 * forgotten at once (OFFLOAD_STATUS no longer finds them).
 */
void nfs42_copy_async_client_gone(clientid4 clientid);

/**
 * @brief Stop the pool at server shutdown: cancel every copy, join the
 *        workers, release everything.  Idempotent.
 */
void nfs42_copy_async_shutdown(void);

/** Copies queued or running now (tests, logs). */
uint32_t nfs42_copy_async_active(void);

#endif /* NFS42_COPY_ASYNC_H */
