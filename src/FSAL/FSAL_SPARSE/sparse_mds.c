/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE as a pNFS metadata server: files layouts (RFC 8881 13) over
 * the export's data servers, with sparse packing, their devices, and the
 * export's pNFS configuration.
 *
 * A layout covers the whole file, READ or RW as asked, and names one
 * device (an ordered list of data servers, sparse_pnfs_cfg.h) and one
 * filehandle for all of them: a data-server handle of the file with the
 * layout's iomode, this start's boot generation and the client's grant
 * (sparse_fh.h, sparse_layouts.c), valid on every head.  An RW layout only
 * for a client that may write (sparse_layout_may_write).
 * Stripes are Stripe_Unit bytes; the file offset is the offset on every
 * data server (no NFL4_UFLG_DENSE), commits go to the data servers (no
 * NFL4_UFLG_COMMIT_THRU_MDS).  Layouts are returned on close.
 *
 * A device id is a struct pnfs_deviceid: FSAL_ID_EXPERIMENTAL, device_id2
 * the Export_Id, devid = generation << 32 | rotation (the generation of
 * the export's data-server list, so an id of another configuration is
 * NFS4ERR_NOENT rather than another list); GETDEVICEINFO answers only for
 * an export the client may reach.
 *
 * Locking: sparse_mds_lock (a rwlock) guards sparse_mds_exports, the list
 * of live exports that hand out layouts, and their device data, which
 * GETDEVICEINFO reads under it.  Nothing else is taken under it.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fsal.h"
#include "fsal_api.h"
#include "fsal_convert.h"
#include "FSAL/fsal_commonlib.h"
#include "pnfs_utils.h"
#include "nfs_core.h"
#include "nfs_exports.h"
#include "export_mgr.h"
#include "nfs_convert.h"
#include "nfs_creds.h"
#include "sparse_int.h"
#include "sparse_pnfs.h"

/* ---- configuration: Data_Server blocks ---------------------------------- */

struct sparse_ds_node {
	struct glist_head link;
	struct sparse_ds ds;
};

/* One "Address" value of a Data_Server block. */
static int sparse_ds_addr_add(const char *token, enum term_type type_hint,
			      struct config_item *item, void *param_addr,
			      void *cnode, struct config_error_type *err_type)
{
	struct sparse_ds *ds = param_addr;

	if (ds->naddr >= SPARSE_DS_MAX_PATHS) {
		LogCrit(COMPONENT_CONFIG,
			"FSAL_SPARSE: Data_Server: at most %d addresses",
			SPARSE_DS_MAX_PATHS);
		err_type->invalid = true;
		return 1;
	}
	if (sparse_ds_addr_parse(token, &ds->addr[ds->naddr]) != 0) {
		LogCrit(COMPONENT_CONFIG,
			"FSAL_SPARSE: Data_Server: Address \"%s\" is not \"IPv4:PORT\" or \"[IPv6]:PORT\" (numeric, as clients must reach it)",
			token);
		err_type->invalid = true;
		return 1;
	}
	ds->naddr++;
	return 0;
}

struct config_item sparse_ds_conf_items[] = {
	CONF_ITEM_PROC_MULT("Address", noop_conf_init, sparse_ds_addr_add,
			    sparse_ds_node, ds),
	CONFIG_EOL
};

void *sparse_ds_conf_init(void *link_mem, void *self_struct)
{
	if (link_mem == NULL) {
		/* the export's list, before any block */
		glist_init(self_struct);
		return self_struct;
	}
	if (self_struct == NULL)
		return gsh_calloc(1, sizeof(struct sparse_ds_node));
	gsh_free(self_struct);
	return NULL;
}

int sparse_ds_conf_commit(void *node, void *link_mem, void *self_struct,
			  struct config_error_type *err_type)
{
	struct sparse_ds_node *dsn = self_struct;

	if (dsn->ds.naddr == 0) {
		LogCrit(COMPONENT_CONFIG,
			"FSAL_SPARSE: Data_Server: no Address given");
		err_type->invalid = true;
		return 1;
	}
	glist_add_tail(link_mem, &dsn->link);
	return 0;
}

/* Free the parsed Data_Server blocks (a list never initialised: none). */
static void sparse_ds_list_free(struct glist_head *list)
{
	struct sparse_ds_node *dsn;

	while (list->next != NULL && !glist_empty(list)) {
		dsn = glist_first_entry(list, struct sparse_ds_node, link);
		glist_del(&dsn->link);
		gsh_free(dsn);
	}
}

int sparse_pnfs_conf_finish(struct sparse_pnfs_conf *conf, const char *path)
{
	struct glist_head *node;
	uint32_t n = 0;

	if (conf->ds_list.next != NULL)
		glist_for_each(node, &conf->ds_list) n++;
	if (n > SPARSE_DS_MAX) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: export %s: %u Data_Server blocks, at most %d",
			path, n, SPARSE_DS_MAX);
		return EINVAL;
	}
	if (conf->stripe_unit % SPARSE_STRIPE_UNIT_MIN != 0) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: export %s: Stripe_Unit = %" PRIu32
			" is not a multiple of %u",
			path, conf->stripe_unit, SPARSE_STRIPE_UNIT_MIN);
		return EINVAL;
	}
	if (conf->mds && n == 0) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: export %s: PNFS_MDS needs at least one Data_Server block (the data servers' addresses as clients reach them)",
			path);
		return EINVAL;
	}
	if (conf->stripe_count > n && n > 0) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: export %s: Stripe_Count = %" PRIu32
			" is more than its %u data servers",
			path, conf->stripe_count, n);
		return EINVAL;
	}
	if (conf->mds && !nfs_param.nfsv4_param.pnfs_mds) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: export %s: PNFS_MDS in its FSAL block needs PNFS_MDS = true in the NFSv4 block (what EXCHANGE_ID tells clients)",
			path);
		return EINVAL;
	}
	if (conf->ds_role && !nfs_param.nfsv4_param.pnfs_ds) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: export %s: PNFS_DS in its FSAL block needs PNFS_DS = true in the NFSv4 block (what EXCHANGE_ID tells clients)",
			path);
		return EINVAL;
	}

	conf->nds = n;
	conf->ds = n ? gsh_calloc(n, sizeof(*conf->ds)) : NULL;
	n = 0;
	if (conf->ds_list.next != NULL)
		glist_for_each(node, &conf->ds_list) conf->ds[n++] =
			glist_entry(node, struct sparse_ds_node, link)->ds;
	sparse_ds_list_free(&conf->ds_list);
	if (conf->stripe_count == 0 || conf->stripe_count > conf->nds)
		conf->stripe_count = conf->nds;
	conf->generation = sparse_pnfs_generation(
		conf->ds, conf->nds, conf->stripe_unit, conf->stripe_count);
	return 0;
}

void sparse_pnfs_conf_free(struct sparse_pnfs_conf *conf)
{
	sparse_ds_list_free(&conf->ds_list);
	gsh_free(conf->ds);
	conf->ds = NULL;
	conf->nds = 0;
}

bool sparse_pnfs_conf_same(const struct sparse_pnfs_conf *a,
			   const struct sparse_pnfs_conf *b)
{
	return a->mds == b->mds && a->ds_role == b->ds_role &&
	       a->generation == b->generation && a->nds == b->nds &&
	       a->stripe_unit == b->stripe_unit &&
	       a->stripe_count == b->stripe_count;
}

/* ---- the exports that hand out layouts ---------------------------------- */

static pthread_rwlock_t sparse_mds_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct glist_head sparse_mds_exports =
	GLIST_HEAD_INIT(sparse_mds_exports);

/* The live MDS export with this id (under sparse_mds_lock), or NULL. */
static struct sparse_export *sparse_mds_find(uint16_t export_id)
{
	struct glist_head *node;

	glist_for_each(node, &sparse_mds_exports)
	{
		struct sparse_export *exp =
			glist_entry(node, struct sparse_export, mds_link);

		if (exp->export.export_id == export_id)
			return exp;
	}
	return NULL;
}

int sparse_pnfs_export_start(struct sparse_export *exp, bool key_shared)
{
	struct sparse_pnfs_conf *conf = &exp->pnfs;
	int rc;

	if (!conf->mds && !conf->ds_role)
		return 0;
	if (!key_shared) {
		/* A handle key of this run only: no other head could check
		 * the data-server handles of this one's layouts.
		 */
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: export %s: pNFS needs the handle key kept on the shared filesystem (trusted xattrs on the export root), which this one cannot keep",
			exp->root_path);
		return EINVAL;
	}
	if (conf->mds) {
		/* a new boot: every data-server handle of an earlier start of
		 * this export is dead (their layouts were in its memory)
		 */
		rc = sparse_boot_next(exp->root_fd, &conf->boot);
		if (rc != 0) {
			LogCrit(COMPONENT_FSAL,
				"FSAL_SPARSE: export %s: PNFS_MDS needs its boot generation kept on the shared filesystem (a trusted xattr on the export root): %s",
				exp->root_path, strerror(-rc));
			return EINVAL;
		}
		PTHREAD_RWLOCK_wrlock(&sparse_mds_lock);
		if (sparse_mds_find(exp->export.export_id) != NULL) {
			PTHREAD_RWLOCK_unlock(&sparse_mds_lock);
			LogCrit(COMPONENT_FSAL,
				"FSAL_SPARSE: export %s: another export with Export_Id %" PRIu16
				" already hands out layouts",
				exp->root_path, exp->export.export_id);
			return EEXIST;
		}
		glist_add_tail(&sparse_mds_exports, &exp->mds_link);
		PTHREAD_RWLOCK_unlock(&sparse_mds_lock);
		sparse_pnfs_export_ops_init(&exp->export.exp_ops);
	}
	if (conf->ds_role) {
		rc = sparse_ds_start(exp);
		if (rc != 0) {
			sparse_pnfs_export_release(exp);
			return rc;
		}
	}
	LogEvent(COMPONENT_FSAL,
		 "FSAL_SPARSE: export %s (Export_Id %" PRIu16
		 "): pNFS%s%s, %" PRIu32 " data servers, Stripe_Unit %" PRIu32
		 ", Stripe_Count %" PRIu32 ", boot %" PRIu32,
		 exp->root_path, exp->export.export_id,
		 conf->mds ? " metadata server" : "",
		 conf->ds_role ? " data server" : "", conf->nds,
		 conf->stripe_unit, conf->stripe_count, conf->boot);
	return 0;
}

void sparse_pnfs_export_release(struct sparse_export *exp)
{
	PTHREAD_RWLOCK_wrlock(&sparse_mds_lock);
	if (!glist_null(&exp->mds_link))
		glist_del(&exp->mds_link);
	PTHREAD_RWLOCK_unlock(&sparse_mds_lock);
	sparse_pnfs_conf_free(&exp->pnfs);
}

/* ---- export operations -------------------------------------------------- */

static void sparse_fs_layouttypes(struct fsal_export *exp_hdl, int32_t *count,
				  const layouttype4 **types)
{
	static const layouttype4 files = LAYOUT4_NFSV4_1_FILES;

	*types = &files;
	*count = 1;
}

static uint32_t sparse_fs_layout_blocksize(struct fsal_export *exp_hdl)
{
	return sparse_exp(exp_hdl)->pnfs.stripe_unit;
}

static uint32_t sparse_fs_maximum_segments(struct fsal_export *exp_hdl)
{
	return 1;
}

/* deviceid, util, first index, pattern offset, one handle of at most
 * NFS4_FHSIZE bytes, with room to spare. */
#define SPARSE_LOC_BODY_SIZE 256

static size_t sparse_fs_loc_body_size(struct fsal_export *exp_hdl)
{
	return SPARSE_LOC_BODY_SIZE;
}

static void sparse_devid_make(const struct sparse_export *exp, uint32_t device,
			      struct pnfs_deviceid *id)
{
	memset(id, 0, sizeof(*id));
	id->fsal_id = FSAL_ID_EXPERIMENTAL;
	id->device_id2 = exp->export.export_id;
	id->devid = (uint64_t)exp->pnfs.generation << 32 | device;
}

static nfsstat4
sparse_getdevicelist(struct fsal_export *exp_hdl, layouttype4 type,
		     void *opaque, bool (*cb)(void *opaque, const uint64_t id),
		     struct fsal_getdevicelist_res *res)
{
	struct sparse_export *exp = sparse_exp(exp_hdl);
	uint32_t ndev =
		sparse_device_count(exp->pnfs.nds, exp->pnfs.stripe_count);
	uint64_t i;

	if (type != LAYOUT4_NFSV4_1_FILES)
		return NFS4ERR_UNKNOWN_LAYOUTTYPE;
	/* The cookie is the next device; the verifier the generation, so a
	 * cookie of another configuration is refused.
	 */
	if (res->cookie != 0 && res->cookieverf != exp->pnfs.generation)
		return NFS4ERR_NOT_SAME;
	if (res->cookie > ndev)
		return NFS4ERR_BAD_COOKIE;
	for (i = res->cookie; i < ndev; i++)
		if (!cb(opaque, (uint64_t)exp->pnfs.generation << 32 | i))
			break;
	res->cookie = i;
	res->cookieverf = exp->pnfs.generation;
	res->eof = i == ndev;
	return NFS4_OK;
}

/* Before the export's state goes (its layouts revoked without a word to
 * the clients): fence and recall them. */
static void sparse_prepare_unexport(struct fsal_export *exp_hdl)
{
	sparse_layouts_unexport(sparse_exp(exp_hdl));
}

void sparse_pnfs_export_ops_init(struct export_ops *ops)
{
	ops->fs_layouttypes = sparse_fs_layouttypes;
	ops->fs_layout_blocksize = sparse_fs_layout_blocksize;
	ops->fs_maximum_segments = sparse_fs_maximum_segments;
	ops->fs_loc_body_size = sparse_fs_loc_body_size;
	ops->getdevicelist = sparse_getdevicelist;
	ops->prepare_unexport = sparse_prepare_unexport;
}

/* ---- GETDEVICEINFO ------------------------------------------------------ */

/* stripe indices (4 + 4 per stripe), multipath lists (4, then per data
 * server 4 + per address the netid and uaddr strings) */
static size_t sparse_fs_da_addr_size(struct fsal_module *fsal_hdl)
{
	return 4 + 4 * SPARSE_DS_MAX + 4 +
	       SPARSE_DS_MAX *
		       (4 + SPARSE_DS_MAX_PATHS *
				    (8 + SPARSE_NETID_LEN + SPARSE_UADDR_LEN));
}

static bool sparse_encode_netaddr(XDR *xdrs, const struct sparse_ds_addr *a)
{
	netaddr4 na = { .r_netid = (char *)a->netid,
			.r_addr = (char *)a->uaddr };

	return xdr_netaddr4(xdrs, &na);
}

/* nfsv4_1_file_layout_ds_addr4 of device r of exp */
static nfsstat4 sparse_encode_device(XDR *xdrs, const struct sparse_export *exp,
				     uint32_t r)
{
	const struct sparse_pnfs_conf *conf = &exp->pnfs;
	uint32_t i, j, n;

	/* nflda_stripe_indices: stripe i is multipath list i */
	n = conf->stripe_count;
	if (!inline_xdr_u_int32_t(xdrs, &n))
		return NFS4ERR_TOOSMALL;
	for (i = 0; i < n; i++)
		if (!inline_xdr_u_int32_t(xdrs, &i))
			return NFS4ERR_TOOSMALL;
	/* nflda_multipath_ds_list: the data servers of the device, in
	 * stripe order
	 */
	if (!inline_xdr_u_int32_t(xdrs, &n))
		return NFS4ERR_TOOSMALL;
	for (i = 0; i < n; i++) {
		const struct sparse_ds *ds =
			&conf->ds[sparse_device_ds(r, i, conf->nds)];
		uint32_t naddr = ds->naddr;

		if (!inline_xdr_u_int32_t(xdrs, &naddr))
			return NFS4ERR_TOOSMALL;
		for (j = 0; j < naddr; j++)
			if (!sparse_encode_netaddr(xdrs, &ds->addr[j]))
				return NFS4ERR_TOOSMALL;
	}
	return NFS4_OK;
}

/* Whether the client of the current request may reach the export with
 * this id over NFSv4, as PUTFH of one of its handles would let it (an op
 * context of that export for the check; its reference put with it). */
static bool sparse_export_reachable(uint16_t export_id)
{
	struct req_op_context *req = op_ctx, ctx;
	struct gsh_export *gexp;
	nfsstat4 status;

	if (req == NULL || req->nfs_reqdata == NULL)
		return false;
	gexp = get_gsh_export(export_id);
	if (gexp == NULL)
		return false;
	init_op_context(&ctx, gexp, gexp->fsal_export, req->nfs_reqdata,
			req->caller_addr, req->nfs_vers, req->nfs_minorvers,
			req->req_type);
	ctx.client = req->client; /* (borrowed, as the request's) */
	status = nfs4_export_check_access(&req->nfs_reqdata->svc);
	release_op_context();
	return status == NFS4_OK;
}

static nfsstat4 sparse_getdeviceinfo(struct fsal_module *fsal_hdl,
				     XDR *da_addr_body, const layouttype4 type,
				     const struct pnfs_deviceid *deviceid)
{
	struct sparse_export *exp;
	uint32_t device = (uint32_t)deviceid->devid;
	uint32_t gen = (uint32_t)(deviceid->devid >> 32);
	nfsstat4 status = NFS4ERR_NOENT;

	if (type != LAYOUT4_NFSV4_1_FILES)
		return NFS4ERR_UNKNOWN_LAYOUTTYPE;
	if (deviceid->device_id1 != 0 || deviceid->device_id4 != 0)
		return NFS4ERR_NOENT;
	/* The devices of an export the client may not reach do not exist
	 * for it (as SECINFO hides such an export): its data servers'
	 * addresses are not disclosed.
	 */
	if (!sparse_export_reachable(deviceid->device_id2))
		goto out;

	PTHREAD_RWLOCK_rdlock(&sparse_mds_lock);
	exp = sparse_mds_find(deviceid->device_id2);
	if (exp != NULL && exp->pnfs.generation == gen &&
	    device < sparse_device_count(exp->pnfs.nds, exp->pnfs.stripe_count))
		status = sparse_encode_device(da_addr_body, exp, device);
	PTHREAD_RWLOCK_unlock(&sparse_mds_lock);
out:
	LogDebug(COMPONENT_PNFS,
		 "GETDEVICEINFO export %" PRIu16 " device %" PRIu32
		 " generation %#" PRIx32 ": %s",
		 deviceid->device_id2, device, gen, nfsstat4_to_str(status));
	return status;
}

void sparse_pnfs_fsal_ops_init(struct fsal_ops *ops)
{
	ops->getdeviceinfo = sparse_getdeviceinfo;
	ops->fs_da_addr_size = sparse_fs_da_addr_size;
	ops->create_fsal_pnfs_ds = sparse_refuse_ds_block;
	ops->fsal_pnfs_ds_ops = sparse_pnfs_ds_ops_init;
}

/* ---- LAYOUTGET / LAYOUTRETURN / LAYOUTCOMMIT ---------------------------- */

/* Does the current client have the file open with write access (a
 * share state of its, open for writing), or a write delegation of it? */
static bool sparse_caller_opened_for_write(struct sparse_handle *hdl)
{
	clientid4 caller = op_ctx->clientid ? *op_ctx->clientid : 0;
	struct glist_head *node;
	bool found = false;

	PTHREAD_MUTEX_lock(&hdl->state_fds_lock);
	glist_for_each(node, &hdl->state_fds)
	{
		struct sparse_state_fd *sst =
			glist_entry(node, struct sparse_state_fd, fds_link);
		state_owner_t *owner;

		if (sst->state.state_type != STATE_TYPE_SHARE ||
		    !(sst->sfd.fsal_fd.openflags & FSAL_O_WRITE))
			continue;
		PTHREAD_MUTEX_lock(&sst->state.state_mutex);
		owner = sst->state.state_owner;
		found = owner != NULL &&
			owner->so_owner.so_nfs4_owner.so_clientid == caller;
		PTHREAD_MUTEX_unlock(&sst->state.state_mutex);
		if (found)
			break;
	}
	PTHREAD_MUTEX_unlock(&hdl->state_fds_lock);
	return found || sparse_deleg_caller_writes(hdl);
}

/*
 * An RW layout is given only to a client that may write through it: the
 * export lets it write, and it has the file open for writing (or holds
 * its write delegation) -- which Ganesha gave it only with write
 * permission, after squashing.
 */
static nfsstat4 sparse_layout_may_write(struct sparse_handle *hdl)
{
	if ((op_ctx->export_perms.options & EXPORT_OPTION_WRITE_ACCESS) == 0)
		return NFS4ERR_ROFS;
	if (!sparse_caller_opened_for_write(hdl))
		return NFS4ERR_ACCESS;
	return NFS4_OK;
}

/* The file lies inside the export's tree (checked where a data-server
 * handle is made as where it is used, sparse_ds.c). */
static nfsstat4 sparse_layout_inside(struct sparse_export *exp,
				     struct sparse_handle *hdl)
{
	struct stat st;
	int fd, inside;

	if (sparse_test_skip_confinement(&exp->test))
		return NFS4_OK;
	fd = sparse_open_fh(exp, &hdl->fh, O_PATH);
	if (fd < 0)
		return posix2nfs4_error(-fd);
	inside = fstat(fd, &st) == 0 ?
			 sparse_confine_check(&exp->confine, fd, &st) :
			 -errno;
	close(fd);
	return inside == 1 ? NFS4_OK : NFS4ERR_STALE;
}

static nfsstat4 sparse_layoutget(struct fsal_obj_handle *obj_hdl, XDR *loc_body,
				 const struct fsal_layoutget_arg *arg,
				 struct fsal_layoutget_res *res)
{
	struct sparse_export *exp = sparse_op_export();
	struct sparse_handle *hdl = sparse_hdl(obj_hdl);
	struct sparse_pnfs_conf *conf = &exp->pnfs;
	bool rw = res->segment.io_mode == LAYOUTIOMODE4_RW;
	struct sparse_stripe_pick pick;
	struct pnfs_deviceid devid;
	uint8_t dsfh[SPARSE_DSFH_MAX_LEN];
	struct gsh_buffdesc fh_desc;
	uint16_t ds_id = exp->export.export_id;
	struct sparse_dsfh d;
	void *seg = NULL;
	nfl_util4 util;
	nfsstat4 status;

	if (arg->type != LAYOUT4_NFSV4_1_FILES)
		return NFS4ERR_UNKNOWN_LAYOUTTYPE;
	if (!conf->mds || conf->nds == 0)
		return NFS4ERR_LAYOUTUNAVAILABLE;
	if (res->segment.io_mode != LAYOUTIOMODE4_READ && !rw)
		return NFS4ERR_BADIOMODE;
	if (obj_hdl->type != REGULAR_FILE)
		return NFS4ERR_WRONG_TYPE;
	/* The layout is the whole file; a request must still make sense. */
	if (res->segment.length == 0 ||
	    (res->segment.length != NFS4_UINT64_MAX &&
	     res->segment.length > NFS4_UINT64_MAX - res->segment.offset))
		return NFS4ERR_INVAL;
	status = rw ? sparse_layout_may_write(hdl) : NFS4_OK;
	if (status == NFS4_OK)
		status = sparse_layout_inside(exp, hdl);
	if (status != NFS4_OK)
		return status;

	/* tests: a LAYOUTGET held before its grant (a fence meanwhile) */
	sparse_test_stall_ino("layoutget", obj_hdl->fileid);
	/* The holder's own I/O through the data servers must not break the
	 * lease behind its delegation of the file (sparse_deleg.c).
	 */
	sparse_deleg_layout_taken(hdl, rw);
	d.fh = hdl->fh;
	d.iomode = rw ? SPARSE_DSFH_RW : SPARSE_DSFH_READ;
	d.boot = conf->boot;
	status = sparse_layouts_grant(exp, &hdl->fh, res->segment.io_mode,
				      &d.grant, &seg);
	if (status != NFS4_OK)
		return status;

	sparse_stripe_pick(obj_hdl->fileid, conf->nds, conf->stripe_count,
			   &pick);
	sparse_devid_make(exp, pick.device, &devid);
	util = conf->stripe_unit & NFL4_UFLG_STRIPE_UNIT_SIZE_MASK;
	fh_desc.addr = dsfh;
	fh_desc.len = sparse_dsfh_encode(&d, exp->handle_key, dsfh);

	status = FSAL_encode_file_layout(loc_body, &devid, util,
					 pick.first_index, 0, &ds_id, 1,
					 &fh_desc, false);
	if (status != NFS4_OK) {
		/* the only way to fail is a loc_body the client's
		 * loga_maxcount cut below what one layout needs
		 */
		sparse_layouts_returned(exp, seg, false);
		return NFS4ERR_TOOSMALL;
	}

	res->segment.offset = 0;
	res->segment.length = NFS4_UINT64_MAX;
	res->return_on_close = true;
	res->last_segment = true;
	res->fsal_seg_data = seg;
	LogDebug(COMPONENT_PNFS,
		 "LAYOUTGET %s of fileid %" PRIu64 ": device %" PRIu32
		 ", first stripe %" PRIu32 ", grant %" PRIu64,
		 rw ? "RW" : "READ", obj_hdl->fileid, pick.device,
		 pick.first_index, d.grant);
	return NFS4_OK;
}

static nfsstat4 sparse_layoutreturn(struct fsal_obj_handle *obj_hdl,
				    XDR *lrf_body,
				    const struct fsal_layoutreturn_arg *arg)
{
	if (arg->lo_type != LAYOUT4_NFSV4_1_FILES)
		return NFS4ERR_UNKNOWN_LAYOUTTYPE;
	/* A files layout's lrf_body is empty (RFC 8881 13.2).  A segment
	 * disposed of leaves the record (its grant with the client's last
	 * one); one Ganesha revokes (a recall not answered, an expired
	 * lease, the export going) is fenced at once.
	 */
	if (arg->dispose)
		sparse_layouts_returned(sparse_op_export(), arg->fsal_seg_data,
					arg->circumstance ==
						circumstance_revoke);
	return NFS4_OK;
}

/* May the caller write the file on pfd (st its fstat): its owner, or
 * write permission with its credentials (after squashing). */
static bool sparse_caller_may_write(int pfd, const struct stat *st)
{
	char path[SPARSE_PROC_PATH_LEN];
	int rc;

	if (op_ctx->creds.caller_uid == st->st_uid)
		return true;
	sparse_proc_path(pfd, path);
	fsal_set_credentials(&op_ctx->creds);
	rc = faccessat(AT_FDCWD, path, W_OK, AT_EACCESS);
	fsal_restore_ganesha_credentials();
	return rc == 0;
}

/* The client's modification time, as the caller: the owner may set it,
 * another writer only "now" (as utimensat(2) lets them).  Whether the
 * file's mtime changed. */
static bool sparse_commit_mtime(int pfd, const nfstime4 *t)
{
	struct timespec times[2] = { { 0, UTIME_OMIT },
				     { t->seconds, t->nseconds } };
	char path[SPARSE_PROC_PATH_LEN];
	int rc;

	sparse_proc_path(pfd, path);
	fsal_set_credentials(&op_ctx->creds);
	rc = utimensat(AT_FDCWD, path, times, 0);
	if (rc != 0 && (errno == EPERM || errno == EACCES)) {
		times[1].tv_nsec = UTIME_NOW;
		rc = utimensat(AT_FDCWD, path, times, 0);
	}
	fsal_restore_ganesha_credentials();
	return rc == 0;
}

/*
 * LAYOUTCOMMIT (RFC 8881 18.42) of an RW layout, with write access to the
 * export and the file, as the caller.  What the client wrote through the
 * data servers is in the shared file already, and so is the size those
 * writes gave it: the size is reported, never grown here (a last write
 * beyond it was not written through a data server; one outside the range
 * committed is NFS4ERR_INVAL before this, patch 0118).  The client's
 * modification time is taken when it is later than the file's; with
 * Durable_Metadata that is made durable (the only open here, and a
 * non-blocking one: a lease in the way answers NFS4ERR_DELAY).
 */
static nfsstat4 sparse_layoutcommit(struct fsal_obj_handle *obj_hdl,
				    XDR *lou_body,
				    const struct fsal_layoutcommit_arg *arg,
				    struct fsal_layoutcommit_res *res)
{
	struct sparse_export *exp = sparse_op_export();
	struct sparse_handle *hdl = sparse_hdl(obj_hdl);
	bool changed = false;
	struct stat st;
	nfsstat4 status = NFS4_OK;
	int pfd, fd;

	if (arg->type != LAYOUT4_NFSV4_1_FILES)
		return NFS4ERR_UNKNOWN_LAYOUTTYPE;
	if ((op_ctx->export_perms.options & EXPORT_OPTION_WRITE_ACCESS) == 0)
		return NFS4ERR_ROFS;
	if (!sparse_layouts_caller_rw(exp, &hdl->fh))
		return NFS4ERR_BADIOMODE;
	if (arg->new_offset && arg->last_write >= (uint64_t)INT64_MAX)
		return NFS4ERR_INVAL;

	pfd = sparse_open_fh(exp, &hdl->fh, O_PATH);
	if (pfd < 0)
		return posix2nfs4_error(-pfd);
	if (fstat(pfd, &st) != 0) {
		status = posix2nfs4_error(errno);
		goto out;
	}
	if (!sparse_caller_may_write(pfd, &st)) {
		status = NFS4ERR_ACCESS;
		goto out;
	}
	if (arg->new_offset && arg->last_write >= (uint64_t)st.st_size)
		LogDebug(
			COMPONENT_PNFS,
			"LAYOUTCOMMIT of fileid %" PRIu64
			": last write %" PRIu64
			" beyond what the data servers wrote (size %lld): not grown",
			obj_hdl->fileid, arg->last_write,
			(long long)st.st_size);
	if (arg->time_changed && arg->new_time.nseconds < 1000000000 &&
	    ((int64_t)arg->new_time.seconds > st.st_mtim.tv_sec ||
	     ((int64_t)arg->new_time.seconds == st.st_mtim.tv_sec &&
	      (long)arg->new_time.nseconds > st.st_mtim.tv_nsec)))
		changed = sparse_commit_mtime(pfd, &arg->new_time);
	if (changed && sparse_durable_md()) {
		fd = sparse_open_fh(exp, &hdl->fh, O_RDONLY);
		if (fd < 0) {
			status = fd == -EWOULDBLOCK ? NFS4ERR_DELAY :
						      posix2nfs4_error(-fd);
			goto out;
		}
		if (fsync(fd) != 0)
			status = NFS4ERR_IO;
		close(fd);
		if (status != NFS4_OK)
			goto out;
	}
	res->size_supplied = true;
	res->new_size = st.st_size;
	res->commit_done = true;
out:
	close(pfd);
	return status;
}

void sparse_pnfs_obj_ops_init(struct fsal_obj_ops *ops)
{
	ops->layoutget = sparse_layoutget;
	ops->layoutreturn = sparse_layoutreturn;
	ops->layoutcommit = sparse_layoutcommit;
}
