/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * XDR routines for the RFC 7863 shapes of nfsv42_sparse_types.h.  Included
 * by nfsv41.h (patch 0005) after its own base routines (stateid4,
 * netaddr4, ...) and before xdr_nfs_argop4/xdr_nfs_resop4, which call
 * these for COPY, COPY_NOTIFY, OFFLOAD_CANCEL, OFFLOAD_STATUS and CLONE so
 * that the operations after them in a COMPOUND are decoded from the right
 * place, and READ_PLUS's result (patch 0010).  Every routine also frees
 * (XDR_FREE) what it decoded.
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

/* ---- READ_PLUS ---------------------------------------------------------- */

/* Decoding bounds (only tests and clients decode a READ_PLUS result). */
#define SP42_MAX_RP_DATA (64U << 20) /* bytes of one data segment */
#define SP42_MAX_RP_SEGMENTS 65536 /* segments of one reply */

/* A buffer of size bytes for READ_PLUS data, with one reference. */
static inline struct sp42_iobuf *sp42_iobuf_alloc(size_t size)
{
	struct sp42_iobuf *buf = mem_alloc(sizeof(*buf) + size);

	buf->refs = 1;
	buf->size = size;
	buf->copy = false;
	return buf;
}

static inline void sp42_iobuf_get(struct sp42_iobuf *buf)
{
	(void)__atomic_add_fetch(&buf->refs, 1, __ATOMIC_SEQ_CST);
}

static inline void sp42_iobuf_put(struct sp42_iobuf *buf)
{
	if (buf != NULL &&
	    __atomic_sub_fetch(&buf->refs, 1, __ATOMIC_SEQ_CST) == 0)
		mem_free(buf, sizeof(*buf) + buf->size);
}

/* A data segment's uio: two vectors (aligned body, padded tail) and the
 * four bytes of the padded tail.
 */
#define SP42_DATA_UIO_SIZE                                     \
	(sizeof(struct xdr_uio) + 2 * sizeof(struct xdr_vio) + \
	 BYTES_PER_XDR_UNIT)

/*
 * The transport is done with a vector of a data segment (ntirpc calls this
 * once per vector it refers to, as for Ganesha's READ): the last one drops
 * the uio's reference on the file buffer.
 */
static inline void sp42_data_uio_release(struct xdr_uio *uio, u_int flags)
{
	if (--uio->uio_references > 0)
		return;
	sp42_iobuf_put(uio->uio_u1);
	mem_free(uio, SP42_DATA_UIO_SIZE);
}

/*
 * Encode d_data<> by reference to the file buffer (no copy of the data),
 * the way Ganesha's xdr_io_data encodes READ's data: the length inline,
 * then the bytes as buffers the transport sends from and releases when
 * sent.  The body goes out as the largest multiple of 4 bytes in place;
 * the last 0-3 bytes are copied with their padding into a 4-byte tail, so
 * every vector stays XDR-aligned and the file buffer is never written.
 *
 * ntirpc's record streams (svc_vc, the server's replies) take one
 * reference on the uio per vector; its memory streams copy the bytes and
 * drop one reference without taking any, so a uio left with no reference
 * after putbufs is released here.
 */
static inline bool xdr_sp42_data_putbufs(XDR *xdrs, struct sp42_data4 *objp)
{
	u_int len = objp->d_data.d_data_len;
	u_int body = len & ~(u_int)(BYTES_PER_XDR_UNIT - 1);
	u_int tail = len - body;
	uint8_t *bytes = (uint8_t *)objp->d_data.d_data_val;
	struct xdr_uio *uio;
	uint8_t *pad;
	size_t n = 0;
	bool ok;

	if (!inline_xdr_u_int32_t(xdrs, &len))
		return false;
	if (len == 0)
		return true;

	uio = mem_zalloc(SP42_DATA_UIO_SIZE);
	pad = (uint8_t *)&uio->uio_vio[2];
	if (body != 0) {
		uio->uio_vio[n].vio_base = bytes;
		uio->uio_vio[n].vio_head = bytes;
		uio->uio_vio[n].vio_tail = bytes + body;
		uio->uio_vio[n].vio_wrap = bytes + body;
		uio->uio_vio[n].vio_length = body;
		uio->uio_vio[n].vio_type = VIO_DATA;
		n++;
	}
	if (tail != 0) {
		memcpy(pad, bytes + body, tail);
		uio->uio_vio[n].vio_base = pad;
		uio->uio_vio[n].vio_head = pad;
		uio->uio_vio[n].vio_tail = pad + BYTES_PER_XDR_UNIT;
		uio->uio_vio[n].vio_wrap = pad + BYTES_PER_XDR_UNIT;
		uio->uio_vio[n].vio_length = BYTES_PER_XDR_UNIT;
		uio->uio_vio[n].vio_type = VIO_DATA;
		n++;
	}
	uio->uio_count = n;
	uio->uio_release = sp42_data_uio_release;
	uio->uio_u1 = objp->d_buf;
	sp42_iobuf_get(objp->d_buf);

	ok = xdr_putbufs(xdrs, uio, UIO_FLAG_NONE);
	if (uio->uio_references <= 0) {
		/* copied (memory stream) or refused: nothing refers to it */
		uio->uio_references = 1;
		sp42_data_uio_release(uio, UIO_FLAG_NONE);
	}
	return ok;
}

/*
 * Decode d_data<> growing the buffer as the bytes arrive (64 KiB at a
 * time), so that a length the input cannot back costs no big allocation.
 */
static inline bool xdr_sp42_data_getbytes(XDR *xdrs, struct sp42_data4 *objp)
{
	uint32_t len, got = 0, cap = 0;
	char pad[BYTES_PER_XDR_UNIT];
	char *buf = NULL;

	objp->d_buf = NULL;
	objp->d_data.d_data_val = NULL;
	objp->d_data.d_data_len = 0;
	if (!XDR_GETUINT32(xdrs, &len) || len > SP42_MAX_RP_DATA)
		return false;
	while (got < len) {
		uint32_t n = len - got < (64U << 10) ? len - got : 64U << 10;

		buf = mem_realloc(buf, cap + n);
		cap += n;
		if (!XDR_GETBYTES(xdrs, buf + got, n)) {
			mem_free(buf, cap);
			return false;
		}
		got += n;
	}
	if (RNDUP(len) != len && !XDR_GETBYTES(xdrs, pad, RNDUP(len) - len)) {
		mem_free(buf, cap);
		return false;
	}
	objp->d_data.d_data_val = buf;
	objp->d_data.d_data_len = len;
	return true;
}

static inline bool xdr_sp42_data4(XDR *xdrs, struct sp42_data4 *objp)
{
	if (!xdr_offset4(xdrs, &objp->d_offset))
		return false;
	switch (xdrs->x_op) {
	case XDR_ENCODE:
		/* (d_buf->copy: inline below, the bytes copied) */
		if (objp->d_buf != NULL && !objp->d_buf->copy)
			return xdr_sp42_data_putbufs(xdrs, objp);
		break;
	case XDR_DECODE:
		return xdr_sp42_data_getbytes(xdrs, objp);
	case XDR_FREE:
		if (objp->d_buf != NULL) {
			sp42_iobuf_put(objp->d_buf);
			objp->d_buf = NULL;
			objp->d_data.d_data_val = NULL;
			objp->d_data.d_data_len = 0;
			return true;
		}
		break;
	}
	return xdr_bytes(xdrs, &objp->d_data.d_data_val,
			 &objp->d_data.d_data_len, SP42_MAX_RP_DATA);
}

static inline bool xdr_sp42_data_info4(XDR *xdrs, struct sp42_data_info4 *objp)
{
	return xdr_offset4(xdrs, &objp->di_offset) &&
	       xdr_length4(xdrs, &objp->di_length);
}

/* RFC 7862 15.10.3: a READ_PLUS result holds data and holes only. */
static inline bool
xdr_sp42_read_plus_content(XDR *xdrs, struct sp42_read_plus_content *objp)
{
	if (!inline_xdr_enum(xdrs, (enum_t *)&objp->rpc_content))
		return false;
	switch (objp->rpc_content) {
	case NFS4_CONTENT_DATA:
		return xdr_sp42_data4(xdrs, &objp->rpc_u.rpc_data);
	case NFS4_CONTENT_HOLE:
		return xdr_sp42_data_info4(xdrs, &objp->rpc_u.rpc_hole);
	default:
		return false;
	}
}

/*
 * rpr_contents<>: decoded into an array grown as segments arrive (a count
 * the input cannot back costs no big allocation); rpr_contents_len counts
 * the segments decoded so far, so XDR_FREE after a failed decode frees
 * exactly what was built.
 */
static inline bool xdr_sp42_rp_contents(XDR *xdrs,
					struct sp42_READ_PLUS4resok *objp)
{
	struct sp42_read_plus_content *c = objp->rpr_contents.rpr_contents_val;
	u_int *len = &objp->rpr_contents.rpr_contents_len;
	uint32_t n, cap = 0, i;

	switch (xdrs->x_op) {
	case XDR_ENCODE:
		n = *len;
		if (!XDR_PUTUINT32(xdrs, n))
			return false;
		for (i = 0; i < n; i++)
			if (!xdr_sp42_read_plus_content(xdrs, &c[i]))
				return false;
		return true;
	case XDR_FREE:
		for (i = 0; c != NULL && i < *len; i++)
			(void)xdr_sp42_read_plus_content(xdrs, &c[i]);
		mem_free(c, 0);
		objp->rpr_contents.rpr_contents_val = NULL;
		*len = 0;
		return true;
	case XDR_DECODE:
		break;
	}

	*len = 0;
	objp->rpr_contents.rpr_contents_val = NULL;
	if (!XDR_GETUINT32(xdrs, &n) || n > SP42_MAX_RP_SEGMENTS)
		return false;
	for (i = 0; i < n; i++) {
		if (i == cap) {
			cap = cap ? 2 * cap : 8;
			c = mem_realloc(c, cap * sizeof(*c));
			objp->rpr_contents.rpr_contents_val = c;
		}
		memset(&c[i], 0, sizeof(c[i]));
		if (!xdr_sp42_read_plus_content(xdrs, &c[i]))
			return false;
		*len = i + 1;
	}
	return true;
}

static inline bool xdr_sp42_READ_PLUS4resok(XDR *xdrs,
					    struct sp42_READ_PLUS4resok *objp)
{
	return inline_xdr_bool(xdrs, &objp->rpr_eof) &&
	       xdr_sp42_rp_contents(xdrs, objp);
}

static inline bool xdr_sp42_READ_PLUS4res(XDR *xdrs,
					  struct sp42_READ_PLUS4res *objp)
{
	if (!xdr_nfsstat4(xdrs, &objp->rp_status))
		return false;
	if (objp->rp_status != NFS4_OK)
		return true;
	return xdr_sp42_READ_PLUS4resok(xdrs, &objp->rp_u.rp_resok4);
}

#endif /* NFSV42_SPARSE_XDR_H */
