/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE module: registration and static filesystem information.
 */

#include "config.h"

#include "fsal.h"
#include "FSAL/fsal_init.h"
#include "sparse_int.h"

struct sparse_module SparseModule = {
	.fsal.fs_info = {
		.maxfilesize = INT64_MAX,
		.maxlink = 0xffff,
		.maxnamelen = NAME_MAX,
		.maxpathlen = PATH_MAX,
		.no_trunc = true,
		.chown_restricted = true,
		.case_insensitive = false,
		.case_preserving = true,
		.link_support = true,
		.symlink_support = true,
		.lock_support = true,
		.lock_support_async_block = false,
		.named_attr = false,
		.xattr_support = true, /* RFC 8276, sparse_xattr.c */
		.unique_handles = true,
		.acl_support = 0,
		.cansettime = true,
		.homogenous = true,
		.supported_attrs = ATTRS_POSIX | ATTR4_CLONE_BLKSIZE | ATTR4_XATTR,
		.maxread = FSAL_MAXIOSIZE,
		.maxwrite = FSAL_MAXIOSIZE,
		.umask = 0,
		.auth_exportpath_xdev = false,
		.link_supports_permission_checks = true,
		.readdir_plus = true,
		.expire_time_parent = -1,
		/* read and write, on Linux leases: see sparse_deleg.c */
		.delegations = FSAL_OPTION_FILE_DELEGATIONS,
	},
};

static fsal_status_t sparse_init_config(struct fsal_module *fsal_hdl,
					config_file_t config_struct,
					struct config_error_type *err_type)
{
	/* All tunables live in the export's FSAL block; nothing module-wide
	 * to parse.  Show what we advertise.
	 */
	display_fsinfo(fsal_hdl);
	LogDebug(COMPONENT_FSAL,
		 "FSAL_SPARSE initialised, supported attrs 0x%" PRIx64,
		 fsal_hdl->fs_info.supported_attrs);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

MODULE_INIT void sparse_fsal_init(void)
{
	struct fsal_module *fsal = &SparseModule.fsal;

	if (register_fsal(fsal, SPARSE_FSAL_NAME, FSAL_MAJOR_VERSION,
			  FSAL_MINOR_VERSION, FSAL_ID_EXPERIMENTAL) != 0) {
		LogCrit(COMPONENT_FSAL, "FSAL_SPARSE failed to register");
		return;
	}
	fsal->m_ops.create_export = sparse_create_export;
	fsal->m_ops.update_export = sparse_update_export;
	fsal->m_ops.init_config = sparse_init_config;
	sparse_pnfs_fsal_ops_init(&fsal->m_ops);
	sparse_stats_init(fsal);

	sparse_handle_ops_init(&SparseModule.handle_ops);
}

MODULE_FINI void sparse_fsal_fini(void)
{
	sparse_deleg_shutdown();
	if (unregister_fsal(&SparseModule.fsal) != 0) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE could not be unloaded, aborting");
		abort();
	}
}
