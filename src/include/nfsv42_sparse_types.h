/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * NFSv4.2 server-side copy and clone arguments and results in the shapes of
 * RFC 7863 (the XDR description of RFC 7862), replacing the draft-era COPY
 * structures of Ganesha 6.5's nfsv41.h.  Included by nfsv41.h (patch
 * 0005-nfsv42-copy-clone-xdr.patch) after its base types and before its
 * nfs_argop4/nfs_resop4 unions; the XDR routines are in nfsv42_sparse_xdr.h.
 *
 * The names carry an sp42_ prefix so they never clash with nfsv41.h's own
 * (unused) draft types of the same RFC names.
 */

#ifndef NFSV42_SPARSE_TYPES_H
#define NFSV42_SPARSE_TYPES_H

/* RFC 7863: enum netloc_type4 */
enum sp42_netloc_type4 {
	SP42_NL4_NAME = 1,
	SP42_NL4_URL = 2,
	SP42_NL4_NETADDR = 3,
};

/* union netloc4 switch (netloc_type4 nl_type) */
struct sp42_netloc4 {
	enum sp42_netloc_type4 nl_type;
	union {
		utf8str_cis nl_name;
		utf8str_cis nl_url;
		netaddr4 nl_addr;
	} nl_u;
};

struct sp42_COPY4args {
	stateid4 ca_src_stateid;
	stateid4 ca_dst_stateid;
	offset4 ca_src_offset;
	offset4 ca_dst_offset;
	length4 ca_count;
	bool_t ca_consecutive;
	bool_t ca_synchronous;
	struct {
		u_int ca_source_server_len;
		struct sp42_netloc4 *ca_source_server_val;
	} ca_source_server;
};

struct sp42_write_response4 {
	struct {
		u_int wr_callback_id_len; /* 0 or 1 */
		stateid4 *wr_callback_id_val;
	} wr_callback_id;
	length4 wr_count;
	stable_how4 wr_committed;
	verifier4 wr_writeverf;
};

struct sp42_copy_requirements4 {
	bool_t cr_consecutive;
	bool_t cr_synchronous;
};

struct sp42_COPY4resok {
	struct sp42_write_response4 cr_response;
	struct sp42_copy_requirements4 cr_requirements;
};

/* union COPY4res switch (nfsstat4 cr_status) */
struct sp42_COPY4res {
	nfsstat4 cr_status;
	union {
		struct sp42_COPY4resok cr_resok4; /* NFS4_OK */
		/* NFS4ERR_OFFLOAD_NO_REQS */
		struct sp42_copy_requirements4 cr_requirements;
	} cr_u;
};

struct sp42_COPY_NOTIFY4args {
	stateid4 cna_src_stateid;
	struct sp42_netloc4 cna_destination_server;
};

struct sp42_COPY_NOTIFY4resok {
	nfstime4 cnr_lease_time;
	stateid4 cnr_stateid;
	struct {
		u_int cnr_source_server_len;
		struct sp42_netloc4 *cnr_source_server_val;
	} cnr_source_server;
};

struct sp42_COPY_NOTIFY4res {
	nfsstat4 cnr_status;
	union {
		struct sp42_COPY_NOTIFY4resok resok4; /* NFS4_OK */
	} cnr_u;
};

struct sp42_OFFLOAD_CANCEL4args {
	stateid4 oca_stateid;
};

struct sp42_OFFLOAD_CANCEL4res {
	nfsstat4 ocr_status;
};

struct sp42_OFFLOAD_STATUS4args {
	stateid4 osa_stateid;
};

struct sp42_OFFLOAD_STATUS4resok {
	length4 osr_count;
	struct {
		u_int osr_complete_len; /* 0 or 1 */
		nfsstat4 *osr_complete_val;
	} osr_complete;
};

struct sp42_OFFLOAD_STATUS4res {
	nfsstat4 osr_status;
	union {
		struct sp42_OFFLOAD_STATUS4resok osr_resok4; /* NFS4_OK */
	} osr_u;
};

struct sp42_CLONE4args {
	stateid4 cl_src_stateid;
	stateid4 cl_dst_stateid;
	offset4 cl_src_offset;
	offset4 cl_dst_offset;
	length4 cl_count;
};

struct sp42_CLONE4res {
	nfsstat4 cl_status;
};

/* union offload_info4 switch (nfsstat4 coa_status) */
struct sp42_offload_info4 {
	nfsstat4 coa_status;
	union {
		struct sp42_write_response4 coa_resok4; /* NFS4_OK */
		length4 coa_bytes_copied; /* default */
	} coa_u;
};

/* CB_OFFLOAD (callback operation 15) */
struct sp42_CB_OFFLOAD4args {
	nfs_fh4 coa_fh;
	stateid4 coa_stateid;
	struct sp42_offload_info4 coa_offload_info;
};

struct sp42_CB_OFFLOAD4res {
	nfsstat4 cor_status;
};

/*
 * READ_PLUS (RFC 7863), replacing the draft-era read_plus_res4 of nfsv41.h
 * that holds at most one segment (patch 0010 makes NFS4_OP_READ_PLUS's
 * result this one).
 *
 * The bytes of a data segment may be shared, without a copy, with the
 * buffer the file was read into: d_buf then holds a reference on that
 * buffer and d_data_val points into it; encoding hands the bytes to the
 * transport by reference (see xdr_sp42_data_putbufs), or copies them when
 * the buffer says so (sp42_iobuf.copy).  With d_buf NULL
 * d_data_val is the segment's own allocation (decoded, or built by a
 * test) and is encoded inline.
 */
struct sp42_iobuf {
	int32_t refs; /* atomic; freed with its last reference */
	size_t size; /* bytes in data */
	/*
	 * Encode the bytes by copy, not by reference: the reply is wrapped
	 * with RPCSEC_GSS privacy, which encrypts the transport's vectors in
	 * place; by reference that would encrypt this buffer, and a cached
	 * reply encoded again from it would go out encrypted twice.  Set
	 * before the result is encoded, never changed after.
	 */
	bool copy;
	char data[]; /* the bytes read from the file */
};

struct sp42_data4 {
	offset4 d_offset;
	struct {
		u_int d_data_len;
		char *d_data_val;
	} d_data;
	struct sp42_iobuf *d_buf; /* NULL: d_data_val is owned here */
};

struct sp42_data_info4 {
	offset4 di_offset;
	length4 di_length;
};

/* union read_plus_content switch (data_content4 rpc_content) */
struct sp42_read_plus_content {
	data_content4 rpc_content;
	union {
		struct sp42_data4 rpc_data; /* NFS4_CONTENT_DATA */
		struct sp42_data_info4 rpc_hole; /* NFS4_CONTENT_HOLE */
	} rpc_u;
};

struct sp42_READ_PLUS4resok {
	bool_t rpr_eof;
	struct {
		u_int rpr_contents_len;
		struct sp42_read_plus_content *rpr_contents_val;
	} rpr_contents;
};

/* union READ_PLUS4res switch (nfsstat4 rp_status) */
struct sp42_READ_PLUS4res {
	nfsstat4 rp_status;
	union {
		struct sp42_READ_PLUS4resok rp_resok4; /* NFS4_OK */
	} rp_u;
};

#endif /* NFSV42_SPARSE_TYPES_H */
