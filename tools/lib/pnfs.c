/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * pNFS files layouts on the client side (RFC 8881 sections 12 and 13):
 * LAYOUTGET and GETDEVICEINFO into a struct nfs42_layout, the stripe
 * arithmetic, LAYOUTCOMMIT and LAYOUTRETURN, the layouts held (returned
 * when CB_LAYOUTRECALL asks, once no transfer uses them), and the
 * connections to the data servers (one session each, EXCHANGE_ID with
 * EXCHGID4_FLAG_USE_PNFS_DS).  The striped transfers are in pnfs_io.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------- decoding */

static bool get_netaddr(struct nfs42_xdr *x, struct nfs42_netaddr *a)
{
	return nfs42_xdr_get_string(x, a->netid, sizeof(a->netid)) &&
	       nfs42_xdr_get_string(x, a->uaddr, sizeof(a->uaddr));
}

int nfs42_files_layout_decode(const uint8_t *body, uint32_t len,
			      struct nfs42_layout *lo)
{
	struct nfs42_xdr x;
	uint32_t util, n, i;

	nfs42_xdr_dec_init(&x, body, len);
	nfs42_xdr_get_fixed(&x, lo->deviceid, NFS4_DEVICEID4_SIZE);
	nfs42_xdr_get_u32(&x, &util);
	nfs42_xdr_get_u32(&x, &lo->first_stripe_index);
	nfs42_xdr_get_u64(&x, &lo->pattern_offset);
	if (!nfs42_xdr_get_u32(&x, &n))
		return -EBADMSG;
	if (n == 0 || n > NFS42_LAYOUT_MAX_FH)
		return -EBADMSG;
	for (i = 0; i < n; i++)
		if (!nfs42_xdr_get_opaque(&x, lo->fhs[i].data, &lo->fhs[i].len,
					  NFS4_FHSIZE))
			return -EBADMSG;
	if (x.err || nfs42_xdr_remaining(&x) != 0)
		return -EBADMSG;
	lo->nfh = n;
	lo->stripe_unit = util & NFL4_UFLG_STRIPE_UNIT_SIZE_MASK;
	lo->dense = (util & NFL4_UFLG_DENSE) != 0;
	lo->commit_through_mds = (util & NFL4_UFLG_COMMIT_THRU_MDS) != 0;
	return lo->stripe_unit ? 0 : -EBADMSG;
}

int nfs42_files_device_decode(const uint8_t *body, uint32_t len,
			      struct nfs42_layout *lo)
{
	struct nfs42_xdr x;
	uint32_t n, i, j;

	nfs42_xdr_dec_init(&x, body, len);
	if (!nfs42_xdr_get_u32(&x, &n) || n == 0 || n > NFS42_LAYOUT_MAX_DS)
		return -EBADMSG;
	lo->nstripes = n;
	for (i = 0; i < n; i++)
		nfs42_xdr_get_u32(&x, &lo->stripe_indices[i]);
	if (!nfs42_xdr_get_u32(&x, &n) || n == 0 || n > NFS42_LAYOUT_MAX_DS)
		return -EBADMSG;
	lo->nds = n;
	for (i = 0; i < n; i++) {
		uint32_t naddr;

		if (!nfs42_xdr_get_u32(&x, &naddr) || naddr == 0)
			return -EBADMSG;
		for (j = 0; j < naddr; j++) {
			struct nfs42_netaddr a;

			if (!get_netaddr(&x, &a))
				return -EBADMSG;
			if (j < NFS42_LAYOUT_MAX_PATHS)
				lo->ds[i].addr[j] = a;
		}
		lo->ds[i].naddr = naddr < NFS42_LAYOUT_MAX_PATHS ?
					  naddr :
					  NFS42_LAYOUT_MAX_PATHS;
	}
	if (x.err || nfs42_xdr_remaining(&x) != 0)
		return -EBADMSG;
	for (i = 0; i < lo->nstripes; i++)
		if (lo->stripe_indices[i] >= lo->nds)
			return -EBADMSG;
	/* one filehandle, or one per stripe (RFC 8881 13.3) */
	if (lo->nfh != 1 && lo->nfh != lo->nstripes)
		return -EBADMSG;
	return 0;
}

/* ---------------------------------------------------------- stripes */

void nfs42_layout_locate(const struct nfs42_layout *lo, uint64_t offset,
			 struct nfs42_stripe_loc *loc)
{
	uint64_t rel = offset - lo->pattern_offset;
	uint64_t k = rel / lo->stripe_unit;

	loc->stripe = (uint32_t)((k + lo->first_stripe_index) % lo->nstripes);
	loc->ds = lo->stripe_indices[loc->stripe];
	loc->fh = lo->nfh == 1 ? 0 : loc->stripe;
	loc->unit_start = lo->pattern_offset + k * lo->stripe_unit;
	loc->unit_end = loc->unit_start + lo->stripe_unit;
	if (lo->dense)
		loc->ds_offset = (k / lo->nstripes) * lo->stripe_unit +
				 rel % lo->stripe_unit;
	else
		loc->ds_offset = offset;
}

/* ------------------------------------------------------- held layouts */

/* Under cl->lock: the held layout of fh, or -1. */
static int layout_find(struct nfs42_client *cl, const struct nfs42_fh *fh)
{
	unsigned int i;

	for (i = 0; i < cl->nlayouts; i++)
		if (cl->layouts[i].fh.len == fh->len &&
		    !memcmp(cl->layouts[i].fh.data, fh->data, fh->len))
			return (int)i;
	return -1;
}

static void layout_held(struct nfs42_client *cl, const struct nfs42_layout *lo)
{
	int i;

	pthread_mutex_lock(&cl->lock);
	i = layout_find(cl, &lo->fh);
	if (i < 0 && cl->nlayouts < NFS42_MAX_LAYOUTS) {
		i = (int)cl->nlayouts++;
		cl->layouts[i].iomode = 0;
	}
	if (i >= 0) {
		cl->layouts[i].fh = lo->fh;
		cl->layouts[i].stateid = lo->stateid;
		cl->layouts[i].iomode |= lo->iomode;
		cl->layouts[i].recalled = false;
	}
	pthread_mutex_unlock(&cl->lock);
}

static void layout_forget(struct nfs42_client *cl, const struct nfs42_fh *fh)
{
	int i;

	pthread_mutex_lock(&cl->lock);
	i = layout_find(cl, fh);
	if (i >= 0)
		cl->layouts[i] = cl->layouts[--cl->nlayouts];
	pthread_mutex_unlock(&cl->lock);
}

bool nfs42_layout_recalled(struct nfs42_client *cl,
			   const struct nfs42_layout *lo)
{
	bool r;
	int i;

	pthread_mutex_lock(&cl->lock);
	i = layout_find(cl, &lo->fh);
	r = i >= 0 && cl->layouts[i].recalled;
	pthread_mutex_unlock(&cl->lock);
	return r;
}

void nfs42_layout_busy(struct nfs42_client *cl, const struct nfs42_layout *lo,
		       bool busy)
{
	int i;

	pthread_mutex_lock(&cl->lock);
	i = layout_find(cl, &lo->fh);
	if (i >= 0) {
		if (busy)
			cl->layouts[i].busy++;
		else if (cl->layouts[i].busy > 0)
			cl->layouts[i].busy--;
	}
	pthread_mutex_unlock(&cl->lock);
}

uint64_t nfs42_layout_recalls(const struct nfs42_client *cl)
{
	struct nfs42_client *c = (struct nfs42_client *)cl;
	uint64_t n;

	pthread_mutex_lock(&c->lock);
	n = c->layout_recalls;
	pthread_mutex_unlock(&c->lock);
	return n;
}

unsigned int nfs42_layouts_held(const struct nfs42_client *cl)
{
	struct nfs42_client *c = (struct nfs42_client *)cl;
	unsigned int n;

	pthread_mutex_lock(&c->lock);
	n = c->nlayouts;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/*
 * CB_LAYOUTRECALL (RFC 8881 20.3): mark what it names recalled (returned
 * by whoever uses it, or after the next compound when nobody does);
 * NFS4ERR_NOMATCHING_LAYOUT when we hold none of it.
 */
uint32_t nfs42_cb_layoutrecall(struct nfs42_client *cl, struct nfs42_xdr *x)
{
	uint32_t type, iomode, rtype, status = NFS4ERR_NOMATCHING_LAYOUT;
	struct nfs42_stateid sid;
	struct nfs42_fh fh;
	uint64_t off, len, fsid[2];
	unsigned int i;
	bool changed;
	int k;

	nfs42_xdr_get_u32(x, &type);
	nfs42_xdr_get_u32(x, &iomode);
	nfs42_xdr_get_bool(x, &changed);
	if (!nfs42_xdr_get_u32(x, &rtype))
		return NFS4ERR_BADXDR;
	if (rtype == LAYOUTRETURN4_FILE) {
		nfs42_xdr_get_opaque(x, fh.data, &fh.len, NFS4_FHSIZE);
		nfs42_xdr_get_u64(x, &off);
		nfs42_xdr_get_u64(x, &len);
		nfs42_decode_stateid(x, &sid);
	} else if (rtype == LAYOUTRETURN4_FSID) {
		nfs42_xdr_get_u64(x, &fsid[0]);
		nfs42_xdr_get_u64(x, &fsid[1]);
	} else if (rtype != LAYOUTRETURN4_ALL) {
		return NFS4ERR_BADXDR;
	}
	if (x->err)
		return NFS4ERR_BADXDR;
	if (type != LAYOUT4_NFSV4_1_FILES)
		return NFS4ERR_NOMATCHING_LAYOUT;

	pthread_mutex_lock(&cl->lock);
	cl->layout_recalls++;
	if (rtype == LAYOUTRETURN4_FILE) {
		k = layout_find(cl, &fh);
		if (k >= 0) {
			cl->layouts[k].recalled = true;
			/* the recall's seqid is the latest one */
			cl->layouts[k].stateid = sid;
			status = NFS4_OK;
		}
	} else {
		/* (FSID: all of ours are on the one file system we use) */
		for (i = 0; i < cl->nlayouts; i++)
			cl->layouts[i].recalled = true;
		if (cl->nlayouts)
			status = NFS4_OK;
	}
	pthread_mutex_unlock(&cl->lock);
	return status;
}

/* The layouts of iomode of fh returned and others kept (sid: the layout
 * stateid now): false if none is left. */
static bool layout_returned(struct nfs42_client *cl, const struct nfs42_fh *fh,
			    uint32_t iomode, const struct nfs42_stateid *sid)
{
	bool left = false;
	int i;

	pthread_mutex_lock(&cl->lock);
	i = layout_find(cl, fh);
	if (i >= 0 && (cl->layouts[i].iomode & ~iomode) != 0) {
		cl->layouts[i].iomode &= ~iomode;
		cl->layouts[i].stateid = *sid;
		left = true;
	}
	pthread_mutex_unlock(&cl->lock);
	return left;
}

static int layoutreturn_fh(struct nfs42_client *cl, const struct nfs42_fh *fh,
			   const struct nfs42_stateid *sid, uint32_t iomode)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	const struct nfs42_res *r;
	int rc, idx;

	if (!c)
		return -ENOMEM;
	nfs42_op_putfh(c, fh);
	idx = nfs42_op_layoutreturn(c, false, LAYOUT4_NFSV4_1_FILES, iomode,
				    LAYOUTRETURN4_FILE, 0, NFS42_LENGTH_EOF,
				    sid);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	/* some layouts of the file left (another iomode): the new stateid */
	if (rc == 0 && r && r->u.layoutreturn.present &&
	    layout_returned(cl, fh, iomode, &r->u.layoutreturn.stateid)) {
		nfs42_compound_free(c);
		return 0;
	}
	nfs42_compound_free(c);
	/* gone on the server either way */
	if (rc == 0 || rc == NFS4ERR_BAD_STATEID || rc == NFS4ERR_OLD_STATEID ||
	    rc == NFS4ERR_STALE || rc == NFS4ERR_NOMATCHING_LAYOUT ||
	    rc == NFS4ERR_EXPIRED || rc == NFS4ERR_ADMIN_REVOKED)
		layout_forget(cl, fh);
	return rc;
}

void nfs42_return_recalled_layouts(struct nfs42_client *cl)
{
	struct nfs42_held_layout r[NFS42_MAX_LAYOUTS];
	unsigned int n = 0, i;

	pthread_mutex_lock(&cl->lock);
	if (cl->returning) {
		pthread_mutex_unlock(&cl->lock);
		return;
	}
	for (i = 0; i < cl->nlayouts; i++)
		if (cl->layouts[i].recalled && cl->layouts[i].busy == 0)
			r[n++] = cl->layouts[i];
	if (n)
		cl->returning = true;
	pthread_mutex_unlock(&cl->lock);
	for (i = 0; i < n; i++)
		(void)layoutreturn_fh(cl, &r[i].fh, &r[i].stateid,
				      LAYOUTIOMODE4_ANY);
	if (n) {
		pthread_mutex_lock(&cl->lock);
		cl->returning = false;
		pthread_mutex_unlock(&cl->lock);
	}
}

static unsigned int recalled_idle(struct nfs42_client *cl)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&cl->lock);
	for (i = 0; i < cl->nlayouts; i++)
		if (cl->layouts[i].recalled && cl->layouts[i].busy == 0)
			n++;
	pthread_mutex_unlock(&cl->lock);
	return n;
}

int nfs42_serve_layout_recalls(struct nfs42_client *cl, int timeout_ms,
			       unsigned int *returned)
{
	unsigned int before = nfs42_layouts_held(cl);
	int rc;

	*returned = 0;
	rc = nfs42_poll_until(cl, timeout_ms, recalled_idle);
	if (rc <= 0)
		return rc;
	nfs42_return_recalled_layouts(cl);
	*returned = before - nfs42_layouts_held(cl);
	return 0;
}

/* ---------------------------------------------------- get/commit/return */

/* Under no lock: the stateid of the layout held of fh, if any. */
static bool layout_stateid(struct nfs42_client *cl, const struct nfs42_fh *fh,
			   struct nfs42_stateid *sid)
{
	int i;

	pthread_mutex_lock(&cl->lock);
	i = layout_find(cl, fh);
	if (i >= 0)
		*sid = cl->layouts[i].stateid;
	pthread_mutex_unlock(&cl->lock);
	return i >= 0;
}

/* The server no longer knows the layout stateid we sent. */
static bool layout_stateid_unknown(int rc)
{
	return rc == NFS4ERR_BAD_STATEID || rc == NFS4ERR_OLD_STATEID ||
	       rc == NFS4ERR_STALE_STATEID || rc == NFS4ERR_EXPIRED ||
	       rc == NFS4ERR_ADMIN_REVOKED || rc == NFS4ERR_DELEG_REVOKED;
}

/* One LAYOUTGET of the whole file under sid; the layout into lo. */
static int layoutget_sid(struct nfs42_file *f, uint32_t iomode,
			 const struct nfs42_stateid *sid,
			 struct nfs42_layout *lo)
{
	struct nfs42_client *cl = f->cl;
	struct nfs42_compound *c;
	const struct nfs42_res *r;
	int rc, idx;

	c = nfs42_compound_new(cl);
	if (!c)
		return -ENOMEM;
	nfs42_op_putfh(c, &f->fh);
	idx = nfs42_op_layoutget(c, LAYOUT4_NFSV4_1_FILES, iomode, 0,
				 NFS42_LENGTH_EOF, 0, sid, 4096);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (!rc && !r)
		rc = -EPROTO;
	if (!rc && r->u.layoutget.type != LAYOUT4_NFSV4_1_FILES) {
		nfs42_set_error(cl, "LAYOUTGET: layout type %u",
				r->u.layoutget.type);
		rc = -EPROTO;
	}
	if (!rc) {
		lo->stateid = r->u.layoutget.stateid;
		lo->iomode = r->u.layoutget.iomode;
		lo->offset = r->u.layoutget.offset;
		lo->length = r->u.layoutget.length;
		lo->return_on_close = r->u.layoutget.return_on_close;
		rc = nfs42_files_layout_decode(r->u.layoutget.body,
					       r->u.layoutget.body_len, lo);
		if (rc)
			nfs42_set_error(cl, "LAYOUTGET: bad files layout");
	}
	nfs42_compound_free(c);
	return rc;
}

int nfs42_layout_get(struct nfs42_file *f, uint32_t iomode,
		     struct nfs42_layout *lo)
{
	return nfs42_layout_get_sid(f, iomode, NULL, lo);
}

/*
 * RFC 8881 12.5.3: the first LAYOUTGET of a file goes under the open
 * stateid, the next ones under the layout stateid the client holds (with
 * the open stateid the server would take the client for one that forgot
 * its layouts and return them).  A layout stateid the server no longer
 * knows (a restart, a revocation) is forgotten, and the open's used.
 */
int nfs42_layout_get_sid(struct nfs42_file *f, uint32_t iomode,
			 const struct nfs42_stateid *sid,
			 struct nfs42_layout *lo)
{
	struct nfs42_client *cl = f->cl;
	struct nfs42_stateid held;
	int rc, idx;
	const struct nfs42_res *r;
	struct nfs42_compound *c;

	memset(lo, 0, sizeof(*lo));
	lo->fh = f->fh;
	if (sid) {
		rc = layoutget_sid(f, iomode, sid, lo);
	} else if (layout_stateid(cl, &f->fh, &held)) {
		rc = layoutget_sid(f, iomode, &held, lo);
		if (layout_stateid_unknown(rc)) {
			layout_forget(cl, &f->fh);
			memset(lo, 0, sizeof(*lo));
			lo->fh = f->fh;
			rc = layoutget_sid(f, iomode, &f->stateid, lo);
		}
	} else {
		rc = layoutget_sid(f, iomode, &f->stateid, lo);
	}
	if (rc)
		return rc;
	/* from here on the server counts it as ours */
	layout_held(cl, lo);

	c = nfs42_compound_new(cl);
	if (!c)
		return -ENOMEM;
	idx = nfs42_op_getdeviceinfo(c, lo->deviceid, LAYOUT4_NFSV4_1_FILES,
				     65536);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (!rc && !r)
		rc = -EPROTO;
	if (!rc) {
		rc = nfs42_files_device_decode(r->u.getdeviceinfo.body,
					       r->u.getdeviceinfo.body_len, lo);
		if (rc)
			nfs42_set_error(cl, "GETDEVICEINFO: bad device");
	}
	nfs42_compound_free(c);
	if (rc)
		(void)nfs42_layout_return(f, lo);
	return rc;
}

int nfs42_layout_return(struct nfs42_file *f, struct nfs42_layout *lo)
{
	struct nfs42_stateid sid = lo->stateid;
	int i;

	/* a recall brought a later seqid */
	pthread_mutex_lock(&f->cl->lock);
	i = layout_find(f->cl, &lo->fh);
	if (i >= 0)
		sid = f->cl->layouts[i].stateid;
	pthread_mutex_unlock(&f->cl->lock);
	return layoutreturn_fh(f->cl, &lo->fh, &sid, lo->iomode);
}

int nfs42_layout_commit(struct nfs42_file *f, struct nfs42_layout *lo,
			uint64_t last_write, uint64_t *new_size)
{
	struct nfs42_compound *c = nfs42_compound_new(f->cl);
	const struct nfs42_res *r;
	int rc, idx;

	if (!c)
		return -ENOMEM;
	nfs42_op_putfh(c, &f->fh);
	idx = nfs42_op_layoutcommit(c, 0, NFS42_LENGTH_EOF, false, &lo->stateid,
				    &last_write, NULL, LAYOUT4_NFSV4_1_FILES);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (!rc && r && new_size && r->u.layoutcommit.size_changed)
		*new_size = r->u.layoutcommit.size;
	nfs42_compound_free(c);
	return rc;
}

/* ------------------------------------------------------ data servers */

/* "h1.h2.h3.h4.p1.p2" or "v6addr.p1.p2" to host and port. */
int nfs42_uaddr_split(const char *uaddr, char *host, size_t hostsz,
		      uint16_t *port)
{
	const char *p2 = strrchr(uaddr, '.'), *p1;
	unsigned int a, b;
	size_t hlen;

	if (!p2 || p2 == uaddr)
		return -EINVAL;
	for (p1 = p2 - 1; p1 > uaddr && *p1 != '.'; p1--)
		;
	if (p1 == uaddr)
		return -EINVAL;
	if (sscanf(p1 + 1, "%u", &a) != 1 || sscanf(p2 + 1, "%u", &b) != 1 ||
	    a > 255 || b > 255 || (a == 0 && b == 0))
		return -EINVAL;
	hlen = (size_t)(p1 - uaddr);
	if (hlen + 1 > hostsz)
		return -EINVAL;
	memcpy(host, uaddr, hlen);
	host[hlen] = '\0';
	*port = (uint16_t)(a << 8 | b);
	return 0;
}

/* Under pool lock: the connection to uaddr, made if need be (NULL on
 * failure, *err set). */
static struct nfs42_client *ds_open(struct nfs42_client *mds,
				    const struct nfs42_netaddr *a, int *err)
{
	struct nfs42_ds_pool *pool = mds->ds_pool;
	struct nfs42_opts o;
	struct nfs42_client *ds;
	char host[64];
	uint16_t port;
	unsigned int i;

	for (i = 0; i < pool->n; i++)
		if (!strcmp(pool->conn[i].uaddr, a->uaddr)) {
			if (pool->conn[i].cl && !pool->conn[i].cl->dead_err)
				return pool->conn[i].cl;
			break;
		}
	if (i == NFS42_MAX_DS_CONN) {
		*err = -ENOSPC;
		return NULL;
	}
	*err = nfs42_uaddr_split(a->uaddr, host, sizeof(host), &port);
	if (*err)
		return NULL;
	nfs42_opts_init(&o);
	o.host = host;
	o.port = port;
	o.auth = mds->auth;
	o.uid = mds->uid;
	o.gid = mds->gid;
	o.ngids = mds->ngids;
	memcpy(o.gids, mds->gids, sizeof(o.gids));
	o.machinename = mds->machinename;
	o.connect_timeout_ms =
		mds->connect_timeout_ms < 5000 ? mds->connect_timeout_ms : 5000;
	o.timeout_ms = mds->timeout_ms;
	o.minorversion = mds->minorversion;
	o.no_back_channel = true;
	o.slots = 16;
	o.exchgid_flags = EXCHGID4_FLAG_USE_PNFS_DS;
	*err = nfs42_client_create(&o, &ds);
	if (!*err && !(ds->server_exchgid_flags & EXCHGID4_FLAG_USE_PNFS_DS)) {
		/* RFC 8881 13.1: not a data server */
		*err = -EPROTO;
	}
	if (*err) {
		nfs42_client_free(ds);
		return NULL;
	}
	if (i == pool->n)
		pool->n++;
	else
		nfs42_client_free(pool->conn[i].cl);
	snprintf(pool->conn[i].uaddr, sizeof(pool->conn[i].uaddr), "%s",
		 a->uaddr);
	pool->conn[i].cl = ds;
	return ds;
}

int nfs42_ds_client(struct nfs42_client *mds, const struct nfs42_layout *lo,
		    uint32_t ds, struct nfs42_client **out)
{
	struct nfs42_client *cl = NULL;
	uint32_t j;
	int err = -EINVAL;

	*out = NULL;
	if (ds >= lo->nds)
		return -EINVAL;
	pthread_mutex_lock(&mds->lock);
	if (!mds->ds_pool) {
		mds->ds_pool = calloc(1, sizeof(*mds->ds_pool));
		if (mds->ds_pool)
			pthread_mutex_init(&mds->ds_pool->lock, NULL);
	}
	pthread_mutex_unlock(&mds->lock);
	if (!mds->ds_pool)
		return -ENOMEM;
	pthread_mutex_lock(&mds->ds_pool->lock);
	/* multipath: the first address that answers */
	for (j = 0; j < lo->ds[ds].naddr && !cl; j++)
		cl = ds_open(mds, &lo->ds[ds].addr[j], &err);
	pthread_mutex_unlock(&mds->ds_pool->lock);
	*out = cl;
	return cl ? 0 : err;
}

void nfs42_ds_pool_free(struct nfs42_client *mds)
{
	struct nfs42_ds_pool *pool = mds->ds_pool;
	unsigned int i;

	if (!pool)
		return;
	for (i = 0; i < pool->n; i++)
		nfs42_client_free(pool->conn[i].cl);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
	mds->ds_pool = NULL;
}
