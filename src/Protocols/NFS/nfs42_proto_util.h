/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Small helpers shared by our NFSv4.2 operations (nfs42_copy.c for COPY
 * and CLONE, nfs4_op_read_plus.c).  Include after fsal.h.
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

#endif /* NFS42_PROTO_UTIL_H */
