/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * What a stateid authorizes (issue #32, docs/stateids.md): the one
 * decision "may this stateid be used for this access to this file by this
 * client", taken by every operation that does I/O or changes the size
 * under a stateid (READ, READ_PLUS, SEEK, WRITE, ALLOCATE, DEALLOCATE,
 * SETATTR of the size, COPY and CLONE, source and destination).  The
 * operation-specific parts are rows of a table (nfs4_stateid_use.c).
 * Compiled into Ganesha through patch 0180.
 */
#ifndef NFS4_STATEID_USE_H
#define NFS4_STATEID_USE_H

#include "nfs_proto_data.h"
#include "sal_data.h"

enum nfs4_stateid_use_op {
	SU_READ,
	SU_READ_PLUS,
	SU_SEEK,
	SU_WRITE,
	SU_ALLOCATE,
	SU_DEALLOCATE,
	SU_SETATTR_SIZE,
	SU_COPY_SRC,
	SU_COPY_DST,
	SU_CLONE_SRC,
	SU_CLONE_DST,
	SU_OP_COUNT
};

/* What a stateid stands on once authorized. */
struct nfs4_stateid_use {
	/* The state the stateid names (a reference), NULL for the
	 * anonymous and READ bypass stateids.
	 */
	state_t *state;
	/* The open it acts under (a reference of its own): the state
	 * itself for an open stateid, a lock's open, NULL for a delegation
	 * and the special stateids.
	 */
	state_t *open;
	/* The all-ones stateid (READ bypass). */
	bool bypass;
};

const char *nfs4_stateid_use_name(enum nfs4_stateid_use_op op);

/*
 * May the stateid be used for op on obj by the compound's client?
 * NFS4_OK: *use holds references (nfs4_stateid_use_release); otherwise
 * *use holds none.  The stateid's validity (its client over a session,
 * its file, its seqid, the special ones) is nfs4_Check_Stateid's; the
 * kind of state, the access it carries and the delegation conflicts of
 * the special stateids are the table's.
 */
nfsstat4 nfs4_stateid_authorize(compound_data_t *data,
				enum nfs4_stateid_use_op op, stateid4 *stateid,
				struct fsal_obj_handle *obj,
				struct nfs4_stateid_use *use);

void nfs4_stateid_use_release(struct nfs4_stateid_use *use);

#endif /* NFS4_STATEID_USE_H */
