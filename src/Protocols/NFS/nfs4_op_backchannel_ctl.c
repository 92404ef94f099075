// SPDX-License-Identifier: LGPL-3.0-or-later
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * NFSv4.1 BACKCHANNEL_CTL (RFC 8881 18.33): a client changes the program
 * number and the security flavours of its session's back channel, e.g.
 * after its callback credentials changed, or to give a session created
 * without usable flavours some before it binds a connection for the back
 * direction.  Ganesha 6.5 answered it with NFS4ERR_OP_ILLEGAL.
 *
 * The offer is kept as CREATE_SESSION keeps it (patch 0081): only the
 * flavours the back channel can use, AUTH_NONE and AUTH_SYS; an offer
 * with none of them is NFS4ERR_ENCR_ALG_UNSUPP (as Linux nfsd answers)
 * and changes nothing.  A back channel already up is made again on its
 * connection with the new program and flavour, so the next callback uses
 * them.  Compiled and put in the op table by patch 0083.
 */

#include "config.h"
#include "log.h"
#include "fsal.h"
#include "nfs_core.h"
#include "nfs_proto_functions.h"
#include "nfs_rpc_callback.h"
#include "sal_data.h"
#include "sal_functions.h"

static bool bc_flavor_usable(uint32_t flavor)
{
	return flavor == AUTH_NONE || flavor == AUTH_SYS;
}

/* Free what bc_sec_parms_copy() (or CREATE_SESSION) made. */
static void bc_sec_parms_free(callback_sec_parms4 *parms, u_int n)
{
	u_int i;

	for (i = 0; i < n; i++) {
		if (parms[i].cb_secflavor == AUTH_SYS) {
			struct authunix_parms *sys =
				&parms[i].callback_sec_parms4_u.cbsp_sys_cred;

			gsh_free(sys->aup_machname);
			gsh_free(sys->aup_gids);
		}
	}
	gsh_free(parms);
}

/*
 * The usable entries of an offer, copied deep (the arguments are freed
 * with the request); their count, 0 if none (then *out is NULL).
 */
static u_int bc_sec_parms_copy(const callback_sec_parms4 *in, u_int n,
			       callback_sec_parms4 **out)
{
	callback_sec_parms4 *parms;
	u_int i, kept = 0;

	*out = NULL;
	for (i = 0; i < n; i++)
		if (bc_flavor_usable(in[i].cb_secflavor))
			kept++;
	if (kept == 0)
		return 0;

	parms = gsh_calloc(kept, sizeof(*parms));
	kept = 0;
	for (i = 0; i < n; i++) {
		callback_sec_parms4 *p = &parms[kept];

		if (!bc_flavor_usable(in[i].cb_secflavor))
			continue;
		kept++;
		p->cb_secflavor = in[i].cb_secflavor;
		if (p->cb_secflavor == AUTH_SYS) {
			const struct authunix_parms *src =
				&in[i].callback_sec_parms4_u.cbsp_sys_cred;
			struct authunix_parms *dst =
				&p->callback_sec_parms4_u.cbsp_sys_cred;

			dst->aup_time = src->aup_time;
			dst->aup_machname = gsh_strdup(
				src->aup_machname ? src->aup_machname : "");
			dst->aup_uid = src->aup_uid;
			dst->aup_gid = src->aup_gid;
			dst->aup_len = src->aup_len;
			dst->aup_gids = NULL;
			if (src->aup_len > 0) {
				dst->aup_gids = gsh_malloc(
					src->aup_len * sizeof(*dst->aup_gids));
				memcpy(dst->aup_gids, src->aup_gids,
				       src->aup_len * sizeof(*dst->aup_gids));
			}
		}
	}
	*out = parms;
	return kept;
}

/*
 * Make the session's back channel again on the connection it uses, with
 * the session's (new) program and flavours, which nfs_rpc_create_chan_v41()
 * reads under the channel's lock (patch 0084).  Nothing to do without one.
 */
static void bc_remake(nfs41_session_t *session)
{
	rpc_call_channel_t *chan = &session->cb_chan;
	SVCXPRT *xprt = NULL;
	int rc;

	PTHREAD_MUTEX_lock(&chan->chan_mtx);
	if (chan->clnt != NULL) {
		xprt = clnt_vc_get_client_xprt(chan->clnt);
		if (xprt != NULL)
			SVC_REF(xprt, SVC_REF_FLAG_NONE);
	}
	PTHREAD_MUTEX_unlock(&chan->chan_mtx);
	if (xprt == NULL)
		return;

	nfs_rpc_destroy_chan(chan);
	rc = nfs_rpc_create_chan_v41(xprt, session);
	if (rc != 0) {
		LogWarn(COMPONENT_SESSIONS,
			"BACKCHANNEL_CTL: back channel not made again (%d)",
			rc);
		atomic_clear_uint32_t_bits(&session->flags, session_bc_up);
	}
	SVC_RELEASE(xprt, SVC_RELEASE_FLAG_NONE);
}

enum nfs_req_result nfs4_op_backchannel_ctl(struct nfs_argop4 *op,
					    compound_data_t *data,
					    struct nfs_resop4 *resp)
{
	struct BACKCHANNEL_CTL4args *const args =
		&op->nfs_argop4_u.opbackchannel_ctl;
	struct BACKCHANNEL_CTL4res *const res =
		&resp->nfs_resop4_u.opbackchannel_ctl;
	nfs41_session_t *session = data->session;
	callback_sec_parms4 *parms, *old;
	u_int n, old_n;

	resp->resop = NFS4_OP_BACKCHANNEL_CTL;

	if (data->minorversion == 0) {
		res->bcr_status = NFS4ERR_OP_ILLEGAL;
		return NFS_REQ_ERROR;
	}
	if (session == NULL) {
		res->bcr_status = NFS4ERR_OP_NOT_IN_SESSION;
		return NFS_REQ_ERROR;
	}

	n = bc_sec_parms_copy(args->bca_sec_parms.bca_sec_parms_val,
			      args->bca_sec_parms.bca_sec_parms_len, &parms);
	if (n == 0) {
		LogDebug(COMPONENT_SESSIONS,
			 "BACKCHANNEL_CTL: no usable callback flavour among %u",
			 args->bca_sec_parms.bca_sec_parms_len);
		res->bcr_status = NFS4ERR_ENCR_ALG_UNSUPP;
		return NFS_REQ_ERROR;
	}

	/*
	 * Under the channel's lock: every reader (a back channel made by
	 * CREATE_SESSION, BIND_CONN_TO_SESSION or bc_remake(), all in
	 * nfs_rpc_create_chan_v41()) reads them under it (patch 0084), so
	 * nobody holds the old ones once it is released, and they go.
	 */
	PTHREAD_MUTEX_lock(&session->cb_chan.chan_mtx);
	old = session->cb_sec_parms.sec_parms_val;
	old_n = session->cb_sec_parms.sec_parms_len;
	session->cb_sec_parms.sec_parms_val = parms;
	session->cb_sec_parms.sec_parms_len = n;
	session->cb_program = args->bca_cb_program;
	PTHREAD_MUTEX_unlock(&session->cb_chan.chan_mtx);
	bc_sec_parms_free(old, old_n);

	LogDebug(COMPONENT_SESSIONS,
		 "BACKCHANNEL_CTL: program %" PRIx32 ", %u flavour(s)",
		 args->bca_cb_program, n);
	bc_remake(session);

	res->bcr_status = NFS4_OK;
	return NFS_REQ_OK;
}

void nfs4_op_backchannel_ctl_Free(nfs_resop4 *resp)
{
	/* Nothing to free */
}
