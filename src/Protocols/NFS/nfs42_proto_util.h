/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Small helpers shared by our NFSv4.2 operations (nfs42_copy.c for COPY
 * and CLONE, nfs4_op_read_plus.c).  Include after fsal.h and
 * nfs_convert.h.
 */

#ifndef NFS42_PROTO_UTIL_H
#define NFS42_PROTO_UTIL_H

/* The size of obj as its FSAL (through MDCACHE) reports it. */
static inline fsal_status_t nfs42_file_size(struct fsal_obj_handle *obj,
					    uint64_t *size)
{
	struct fsal_attrlist attrs;
	fsal_status_t status;

	fsal_prepare_attrs(&attrs, ATTR_SIZE);
	status = obj->obj_ops->getattrs(obj, &attrs);
	*size = attrs.filesize;
	fsal_release_attrs(&attrs);
	return status;
}

/*
 * The status of a data operation (READ_PLUS, COPY, CLONE) that failed in
 * the FSAL: as READ and WRITE answer, a share reservation in the way is
 * NFS4ERR_LOCKED (RFC 8881 9.7; RFC 7862 allows no NFS4ERR_SHARE_DENIED
 * for these operations).  Needs nfs_convert.h.
 */
static inline nfsstat4 nfs42_io_status(fsal_status_t st)
{
	if (st.major == ERR_FSAL_SHARE_DENIED)
		return NFS4ERR_LOCKED;
	return nfs4_Errno_status(st);
}

#endif /* NFS42_PROTO_UTIL_H */
