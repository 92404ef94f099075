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
struct state_t;

/**
 * @brief Start an asynchronous copy (COPY with ca_synchronous false)
 *
 * Called from COPY once every check passed, with op_ctx set for the
 * export.  Takes its own references to the export, both handles, both
 * states (may be NULL: special stateids) and the client.  The copy runs on
 * the worker pool chunk by chunk; CB_OFFLOAD reports its end.
 *
 * @param[in]  data     The COMPOUND (session, CURRENT_FH = destination)
 * @param[in]  src      Source file
 * @param[in]  src_state Source state or NULL
 * @param[in]  dst      Destination file
 * @param[in]  dst_state Destination state or NULL
 * @param[in]  src_offset, dst_offset  Where the range starts
 * @param[in]  count    Bytes to copy (> 0): COPY resolved ca_count 0 to the
 *                      source's EOF once; chunks never measure it again
 * @param[out] res      On true: the NFS4_OK result (wr_callback_id set,
 *                      wr_count 0, cr_synchronous false); the caller's
 *                      free routine frees wr_callback_id_val (gsh_free)
 *
 * @return true when the copy was queued; false when async copy is off,
 *         the op has no session, or the pool or the client's quota is
 *         full: the caller then answers synchronously (a short copy).
 */
bool nfs42_copy_async_start(compound_data_t *data, struct fsal_obj_handle *src,
			    struct state_t *src_state,
			    struct fsal_obj_handle *dst,
			    struct state_t *dst_state, uint64_t src_offset,
			    uint64_t dst_offset, uint64_t count,
			    struct sp42_COPY4res *res);

/**
 * @brief Cancel and forget every copy of a client (expiry, DESTROY_CLIENTID)
 *
 * Returns once none of the client's copies runs any more and every
 * reference they held (states, handles, export) is released.
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
