/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * XDR routines for the RFC 7863 shapes of nfsv42_sparse_types.h.  Included
 * by nfsv41.h (patch 0005) after its own base routines (stateid4,
 * netaddr4, ...) and before xdr_nfs_argop4/xdr_nfs_resop4, which call
 * these for COPY, COPY_NOTIFY, OFFLOAD_CANCEL, OFFLOAD_STATUS and CLONE so
 * that the operations after them in a COMPOUND are decoded from the right
 * place.  Every routine also frees (XDR_FREE) what it decoded.
 */

#ifndef NFSV42_SPARSE_XDR_H
#define NFSV42_SPARSE_XDR_H

/* A COPY names at most this many source servers (RFC 7862 sets no bound;
 * an intra-server COPY names none).
 */
#define SP42_MAX_SOURCE_SERVERS 16

static inline bool xdr_sp42_netloc4(XDR *xdrs, struct sp42_netloc4 *objp)
{
	if (!inline_xdr_enum(xdrs, (enum_t *)&objp->nl_type))
		return false;
	switch (objp->nl_type) {
	case SP42_NL4_NAME:
		return xdr_utf8str_cis(xdrs, &objp->nl_u.nl_name);
	case SP42_NL4_URL:
		return xdr_utf8str_cis(xdrs, &objp->nl_u.nl_url);
	case SP42_NL4_NETADDR:
		return xdr_netaddr4(xdrs, &objp->nl_u.nl_addr);
	default:
		return false;
	}
}

static inline bool xdr_sp42_netloc_list(XDR *xdrs, struct sp42_netloc4 **val,
					u_int *len)
{
	return xdr_array(xdrs, (char **)val, len, SP42_MAX_SOURCE_SERVERS,
			 sizeof(struct sp42_netloc4),
			 (xdrproc_t)xdr_sp42_netloc4);
}

static inline bool xdr_sp42_COPY4args(XDR *xdrs, struct sp42_COPY4args *objp)
{
	return xdr_stateid4(xdrs, &objp->ca_src_stateid) &&
	       xdr_stateid4(xdrs, &objp->ca_dst_stateid) &&
	       xdr_offset4(xdrs, &objp->ca_src_offset) &&
	       xdr_offset4(xdrs, &objp->ca_dst_offset) &&
	       xdr_length4(xdrs, &objp->ca_count) &&
	       inline_xdr_bool(xdrs, &objp->ca_consecutive) &&
	       inline_xdr_bool(xdrs, &objp->ca_synchronous) &&
	       xdr_sp42_netloc_list(
		       xdrs, &objp->ca_source_server.ca_source_server_val,
		       &objp->ca_source_server.ca_source_server_len);
}

static inline bool xdr_sp42_write_response4(XDR *xdrs,
					    struct sp42_write_response4 *objp)
{
	return xdr_array(xdrs,
			 (char **)&objp->wr_callback_id.wr_callback_id_val,
			 &objp->wr_callback_id.wr_callback_id_len, 1,
			 sizeof(stateid4), (xdrproc_t)xdr_stateid4) &&
	       xdr_length4(xdrs, &objp->wr_count) &&
	       xdr_stable_how4(xdrs, &objp->wr_committed) &&
	       xdr_verifier4(xdrs, objp->wr_writeverf);
}

static inline bool
xdr_sp42_copy_requirements4(XDR *xdrs, struct sp42_copy_requirements4 *objp)
{
	return inline_xdr_bool(xdrs, &objp->cr_consecutive) &&
	       inline_xdr_bool(xdrs, &objp->cr_synchronous);
}

static inline bool xdr_sp42_COPY4res(XDR *xdrs, struct sp42_COPY4res *objp)
{
	if (!xdr_nfsstat4(xdrs, &objp->cr_status))
		return false;
	switch (objp->cr_status) {
	case NFS4_OK:
		return xdr_sp42_write_response4(
			       xdrs, &objp->cr_u.cr_resok4.cr_response) &&
		       xdr_sp42_copy_requirements4(
			       xdrs, &objp->cr_u.cr_resok4.cr_requirements);
	case NFS4ERR_OFFLOAD_NO_REQS:
		return xdr_sp42_copy_requirements4(xdrs,
						   &objp->cr_u.cr_requirements);
	default:
		return true;
	}
}

static inline bool xdr_sp42_COPY_NOTIFY4args(XDR *xdrs,
					     struct sp42_COPY_NOTIFY4args *objp)
{
	return xdr_stateid4(xdrs, &objp->cna_src_stateid) &&
	       xdr_sp42_netloc4(xdrs, &objp->cna_destination_server);
}

static inline bool xdr_sp42_COPY_NOTIFY4res(XDR *xdrs,
					    struct sp42_COPY_NOTIFY4res *objp)
{
	struct sp42_COPY_NOTIFY4resok *ok = &objp->cnr_u.resok4;

	if (!xdr_nfsstat4(xdrs, &objp->cnr_status))
		return false;
	if (objp->cnr_status != NFS4_OK)
		return true;
	return xdr_nfstime4(xdrs, &ok->cnr_lease_time) &&
	       xdr_stateid4(xdrs, &ok->cnr_stateid) &&
	       xdr_sp42_netloc_list(
		       xdrs, &ok->cnr_source_server.cnr_source_server_val,
		       &ok->cnr_source_server.cnr_source_server_len);
}

static inline bool
xdr_sp42_OFFLOAD_CANCEL4args(XDR *xdrs, struct sp42_OFFLOAD_CANCEL4args *objp)
{
	return xdr_stateid4(xdrs, &objp->oca_stateid);
}

static inline bool
xdr_sp42_OFFLOAD_CANCEL4res(XDR *xdrs, struct sp42_OFFLOAD_CANCEL4res *objp)
{
	return xdr_nfsstat4(xdrs, &objp->ocr_status);
}

static inline bool
xdr_sp42_OFFLOAD_STATUS4args(XDR *xdrs, struct sp42_OFFLOAD_STATUS4args *objp)
{
	return xdr_stateid4(xdrs, &objp->osa_stateid);
}

static inline bool
xdr_sp42_OFFLOAD_STATUS4res(XDR *xdrs, struct sp42_OFFLOAD_STATUS4res *objp)
{
	struct sp42_OFFLOAD_STATUS4resok *ok = &objp->osr_u.osr_resok4;

	if (!xdr_nfsstat4(xdrs, &objp->osr_status))
		return false;
	if (objp->osr_status != NFS4_OK)
		return true;
	return xdr_length4(xdrs, &ok->osr_count) &&
	       xdr_array(xdrs, (char **)&ok->osr_complete.osr_complete_val,
			 &ok->osr_complete.osr_complete_len, 1,
			 sizeof(nfsstat4), (xdrproc_t)xdr_nfsstat4);
}

static inline bool xdr_sp42_CLONE4args(XDR *xdrs, struct sp42_CLONE4args *objp)
{
	return xdr_stateid4(xdrs, &objp->cl_src_stateid) &&
	       xdr_stateid4(xdrs, &objp->cl_dst_stateid) &&
	       xdr_offset4(xdrs, &objp->cl_src_offset) &&
	       xdr_offset4(xdrs, &objp->cl_dst_offset) &&
	       xdr_length4(xdrs, &objp->cl_count);
}

static inline bool xdr_sp42_CLONE4res(XDR *xdrs, struct sp42_CLONE4res *objp)
{
	return xdr_nfsstat4(xdrs, &objp->cl_status);
}

static inline bool xdr_sp42_offload_info4(XDR *xdrs,
					  struct sp42_offload_info4 *objp)
{
	if (!xdr_nfsstat4(xdrs, &objp->coa_status))
		return false;
	if (objp->coa_status == NFS4_OK)
		return xdr_sp42_write_response4(xdrs, &objp->coa_u.coa_resok4);
	return xdr_length4(xdrs, &objp->coa_u.coa_bytes_copied);
}

static inline bool xdr_sp42_CB_OFFLOAD4args(XDR *xdrs,
					    struct sp42_CB_OFFLOAD4args *objp)
{
	return xdr_nfs_fh4(xdrs, &objp->coa_fh) &&
	       xdr_stateid4(xdrs, &objp->coa_stateid) &&
	       xdr_sp42_offload_info4(xdrs, &objp->coa_offload_info);
}

static inline bool xdr_sp42_CB_OFFLOAD4res(XDR *xdrs,
					   struct sp42_CB_OFFLOAD4res *objp)
{
	return xdr_nfsstat4(xdrs, &objp->cor_status);
}

#endif /* NFSV42_SPARSE_XDR_H */
