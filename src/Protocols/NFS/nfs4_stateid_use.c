// SPDX-License-Identifier: LGPL-3.0-or-later
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * What a stateid authorizes, in one place (issue #32; the matrix with the
 * RFC's, knfsd's and our answers is docs/stateids.md, and
 * e2e_proto_stateid_matrix tests every cell).
 *
 * nfs4_Check_Stateid() tells whether a stateid names a state at all: of
 * the compound's client over a session (patch 0099), of this file, not
 * older than the state (NFS4ERR_OLD_STATEID), or a special stateid.  What
 * it then allows is decided here, from one row per operation:
 *
 * - an open stateid must carry the access the operation needs, else
 *   NFS4ERR_OPENMODE (RFC 8881 15.1.5.7, 9.1.2); where a read goes
 *   through an open for writing only (9.1.2 lets the server allow it),
 *   another open of the file that denies reads still refuses it:
 *   NFS4ERR_LOCKED (9.1.2: the server MUST still check for an OPEN
 *   denying reads, and such a denial is NFS4ERR_LOCKED; RFC 7530
 *   9.1.6 the same for NFSv4.0);
 * - a lock stateid acts under its open (RFC 8881 9.1.2);
 * - a delegation stateid stands in for an open when its type carries the
 *   access: any delegation for reading, a write delegation for writing;
 *   a read delegation used for writing is NFS4ERR_OPENMODE, as for an
 *   open for reading only (the stateid is valid, the use is not: 15.1.5.7
 *   rather than 15.1.5.2), as knfsd answers;
 * - any other state (a layout) is NFS4ERR_BAD_STATEID: it designates no
 *   open (RFC 8881 12.5.3: a layout stateid is for layout operations);
 * - the special stateids carry no open: where the row says so they first
 *   wait for a conflicting delegation to be returned (NFS4ERR_DELAY).
 */
#include "config.h"
#include "log.h"
#include "nfs_proto_functions.h"
#include "nfs_proto_tools.h"
#include "sal_functions.h"
#include "nfs4_stateid_use.h"

/* One operation's row. */
struct stateid_rule {
	const char *name;
	/* the share access an open stateid must carry */
	uint32_t access;
	/* the delegation types that stand in for an open */
	uint32_t delegs;
	/* reading through an open for writing only is allowed unless that
	 * open denies reads (RFC 8881 9.1.2, a client's cache may read)
	 */
	bool read_through_write;
	/* a special stateid waits for a conflicting delegation */
	bool special_recalls;
};

#define DELEG_ANY ((1U << OPEN_DELEGATE_READ) | (1U << OPEN_DELEGATE_WRITE))
#define DELEG_WRITE (1U << OPEN_DELEGATE_WRITE)

static const struct stateid_rule stateid_rules[SU_OP_COUNT] = {
	[SU_READ] = { "READ", OPEN4_SHARE_ACCESS_READ, DELEG_ANY, true, true },
	[SU_READ_PLUS] = { "READ_PLUS", OPEN4_SHARE_ACCESS_READ, DELEG_ANY,
			   true, true },
	[SU_SEEK] = { "SEEK", OPEN4_SHARE_ACCESS_READ, DELEG_ANY, true, false },
	[SU_WRITE] = { "WRITE", OPEN4_SHARE_ACCESS_WRITE, DELEG_WRITE, false,
		       true },
	[SU_ALLOCATE] = { "ALLOCATE", OPEN4_SHARE_ACCESS_WRITE, DELEG_WRITE,
			  false, true },
	[SU_DEALLOCATE] = { "DEALLOCATE", OPEN4_SHARE_ACCESS_WRITE, DELEG_WRITE,
			    false, true },
	/* fsal_setattr() recalls conflicting delegations itself */
	[SU_SETATTR_SIZE] = { "SETATTR", OPEN4_SHARE_ACCESS_WRITE, DELEG_WRITE,
			      false, false },
	/* a source is read as READ reads (RFC 7862 15.2.3, 15.13.3) */
	[SU_COPY_SRC] = { "COPY", OPEN4_SHARE_ACCESS_READ, DELEG_ANY, true,
			  true },
	[SU_COPY_DST] = { "COPY", OPEN4_SHARE_ACCESS_WRITE, DELEG_WRITE, false,
			  true },
	[SU_CLONE_SRC] = { "CLONE", OPEN4_SHARE_ACCESS_READ, DELEG_ANY, true,
			   true },
	[SU_CLONE_DST] = { "CLONE", OPEN4_SHARE_ACCESS_WRITE, DELEG_WRITE,
			   false, true },
};

const char *nfs4_stateid_use_name(enum nfs4_stateid_use_op op)
{
	return stateid_rules[op].name;
}

void nfs4_stateid_use_release(struct nfs4_stateid_use *use)
{
	if (use->open != NULL)
		dec_state_t_ref(use->open);
	if (use->state != NULL)
		dec_state_t_ref(use->state);
	use->open = NULL;
	use->state = NULL;
}

/* The open a state acts under (a reference), or the refusal. */
static nfsstat4 stateid_open_of(const struct stateid_rule *rule, state_t *state,
				state_t **open)
{
	uint32_t type;

	*open = NULL;
	switch (state->state_type) {
	case STATE_TYPE_SHARE:
		/* NFSv4.0: an open owner not yet confirmed has no stateid
		 * to use (RFC 7530 16.18.5)
		 */
		if (!state_owner_confirmed(state))
			return NFS4ERR_BAD_STATEID;
		inc_state_t_ref(state);
		*open = state;
		return NFS4_OK;
	case STATE_TYPE_LOCK:
		*open = nfs4_State_Get_Pointer(
			state->state_data.lock.openstate_key);
		return *open != NULL ? NFS4_OK : NFS4ERR_BAD_STATEID;
	case STATE_TYPE_DELEG:
		type = state->state_data.deleg.sd_type;
		if (type < 32 && (rule->delegs & (1U << type)) != 0)
			return NFS4_OK;
		LogDebug(COMPONENT_STATE,
			 "%s with a delegation of type %" PRIu32
			 ": not sanctioned",
			 rule->name, type);
		return NFS4ERR_OPENMODE;
	default:
		LogDebug(COMPONENT_STATE, "%s with a stateid of type %d",
			 rule->name, (int)state->state_type);
		return NFS4ERR_BAD_STATEID;
	}
}

/* Does an open of obj other than own deny reads?  (An open with read
 * access cannot coexist with one: only a read through an open for
 * writing needs to ask.)  Takes the state lock. */
static bool other_open_denies_read(struct fsal_obj_handle *obj,
				   const state_t *own)
{
	struct glist_head *glist;
	bool denied = false;

	STATELOCK_lock(obj);
	glist_for_each(glist, &obj->state_hdl->file.list_of_states)
	{
		const state_t *state = glist_entry(glist, state_t, state_list);

		if (state != own && state->state_type == STATE_TYPE_SHARE &&
		    (state->state_data.share.share_deny &
		     OPEN4_SHARE_DENY_READ) != 0) {
			denied = true;
			break;
		}
	}
	STATELOCK_unlock(obj);
	return denied;
}

/* Does the open carry the access? */
static nfsstat4 stateid_open_mode(const struct stateid_rule *rule,
				  const state_t *open,
				  struct fsal_obj_handle *obj)
{
	const struct state_share *share = &open->state_data.share;

	if ((share->share_access & rule->access) != 0)
		return NFS4_OK;
	if (rule->read_through_write &&
	    (share->share_deny & OPEN4_SHARE_DENY_READ) == 0) {
		if (!other_open_denies_read(obj, open))
			return NFS4_OK;
		LogDebug(
			COMPONENT_STATE,
			"%s through an open for writing: another open denies reads",
			rule->name);
		return NFS4ERR_LOCKED;
	}
	LogDebug(COMPONENT_STATE, "%s under an open without %s access",
		 rule->name,
		 rule->access == OPEN4_SHARE_ACCESS_READ ? "read" : "write");
	return NFS4ERR_OPENMODE;
}

nfsstat4 nfs4_stateid_authorize(compound_data_t *data,
				enum nfs4_stateid_use_op op, stateid4 *stateid,
				struct fsal_obj_handle *obj,
				struct nfs4_stateid_use *use)
{
	const struct stateid_rule *rule = &stateid_rules[op];
	nfsstat4 status;

	memset(use, 0, sizeof(*use));
	status = nfs4_Check_Stateid(stateid, obj, &use->state, data,
				    STATEID_SPECIAL_ANY, 0, false, rule->name);
	if (status != NFS4_OK)
		return status;

	if (use->state == NULL) {
		use->bypass = stateid->seqid != 0;
		if (rule->special_recalls &&
		    state_deleg_conflict(obj, rule->access ==
						      OPEN4_SHARE_ACCESS_WRITE))
			return NFS4ERR_DELAY;
		return NFS4_OK;
	}

	status = stateid_open_of(rule, use->state, &use->open);
	if (status == NFS4_OK && use->open != NULL)
		status = stateid_open_mode(rule, use->open, obj);
	if (status != NFS4_OK)
		nfs4_stateid_use_release(use);
	return status;
}
