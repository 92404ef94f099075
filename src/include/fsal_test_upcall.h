/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Tests only: the update upcall an FSAL with upcalls sends when another
 * node changed a directory, as the test hooks of FSAL_SPARSE
 * (sparse_test_hooks.c) and FSAL_MEM (mem_test_hooks.c) send it.
 */

#ifndef FSAL_TEST_UPCALL_H
#define FSAL_TEST_UPCALL_H

#include "fsal.h"
#include "fsal_up.h"

/*
 * Tell the layer above (MDCACHE) through up that dir, whose key is key,
 * changed: an update with its current ctime, mtime and change attribute,
 * which also makes MDCACHE distrust its dirents.
 */
static inline fsal_status_t
fsal_test_up_update_dir(const struct fsal_up_vector *up,
			struct fsal_obj_handle *dir, struct gsh_buffdesc *key)
{
	struct fsal_attrlist now, attrs;
	fsal_status_t status;

	fsal_prepare_attrs(&now, ATTR_CTIME | ATTR_MTIME | ATTR_CHANGE);
	status = dir->obj_ops->getattrs(dir, &now);
	if (!FSAL_IS_ERROR(status)) {
		fsal_prepare_attrs(&attrs, 0);
		attrs.ctime = now.ctime;
		attrs.mtime = now.mtime;
		attrs.change = now.change;
		attrs.valid_mask = ATTR_CTIME | ATTR_MTIME | ATTR_CHANGE;
		status = up->update(up, key, &attrs, fsal_up_update_null);
		fsal_release_attrs(&attrs);
	}
	fsal_release_attrs(&now);
	return status;
}

#endif /* FSAL_TEST_UPCALL_H */
