/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE module: registration, static filesystem information and the
 * test-only metadata latency hook.
 */

#include "config.h"

#include <time.h>
#include <errno.h>
#include <unistd.h>

#include "fsal.h"
#include "FSAL/fsal_init.h"
#include "fsal_up.h"
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
		/* Read only: see sparse_deleg.c */
		.delegations = FSAL_OPTION_FILE_READ_DELEG,
	},
};

/*
 * Sleep for the export's Test_Metadata_Latency_Ms before a backend
 * metadata call of a kind Test_Latency_Scope includes.  Used by tests to
 * show that metadata operations run in parallel (no lock is held here, so
 * N concurrent calls take about one latency, not N).  Every call is
 * counted while a latency is set (the md_read/md_update FSAL statistics).
 */
void sparse_md_delay(enum sparse_md_kind kind)
{
	struct fsal_export *exp = op_ctx ? op_ctx->fsal_export : NULL;
	struct sparse_export *sexp;
	struct timespec ts;
	uint32_t ms;

	if (exp == NULL || exp->fsal != &SparseModule.fsal)
		return;

	sexp = sparse_exp(exp);
	ms = atomic_fetch_uint32_t(&sexp->md_latency_ms);
	if (ms == 0)
		return;
	/* Tests only: counted whatever the scope (calls per operation) */
	sparse_md_count(kind);
	if (kind == SPARSE_MD_READ &&
	    atomic_fetch_uint32_t(&sexp->md_latency_scope) ==
		    SPARSE_LATENCY_UPDATES)
		return;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * Tests only (Test_Stall_Dir): called right after a backend call has its
 * result.  If the marker "<Test_Stall_Dir>/<op>.<what>" exists, remove it
 * and sleep Test_Stall_Ms, so the result reaches MDCACHE that much later.
 * Removing the marker makes the stall one-shot: the first matching call
 * stalls, any later one (another client's lookup of the same name) does
 * not.  The e2e race tests use it to run another client's update between
 * a backend call and MDCACHE's use of its result.
 */
bool sparse_test_stall(const char *op, const char *what)
{
	struct fsal_export *exp = op_ctx ? op_ctx->fsal_export : NULL;
	struct sparse_export *sexp;
	char path[PATH_MAX];
	struct timespec ts;
	int n;

	if (exp == NULL || exp->fsal != &SparseModule.fsal)
		return false;
	sexp = sparse_exp(exp);
	if (sexp->stall_dir == NULL || sexp->stall_ms == 0)
		return false;
	n = snprintf(path, sizeof(path), "%s/%s.%s", sexp->stall_dir, op, what);
	if (n < 0 || (size_t)n >= sizeof(path) || unlink(path) != 0)
		return false;

	LogEvent(COMPONENT_FSAL,
		 "FSAL_SPARSE: test stall %s %s: %" PRIu32 " ms", op, what,
		 sexp->stall_ms);
	ts.tv_sec = sexp->stall_ms / 1000;
	ts.tv_nsec = (long)(sexp->stall_ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	return true;
}

/*
 * Tests only: tell MDCACHE that directory dir changed behind it, through
 * the export's upcall vector, as FSALs with upcalls (MEM, GPFS, CEPH) do
 * when another node changes a directory: an update with its new ctime,
 * mtime and change attribute (which also makes MDCACHE distrust its
 * dirents).
 */
void sparse_test_invalidate_dir(struct fsal_obj_handle *dir)
{
	const struct fsal_up_vector *up = op_ctx->fsal_export->up_ops;
	struct fsal_attrlist attrs, now;
	struct gsh_buffdesc key;
	fsal_status_t status;

	fsal_prepare_attrs(&now, ATTR_CTIME | ATTR_MTIME | ATTR_CHANGE);
	status = dir->obj_ops->getattrs(dir, &now);
	if (!FSAL_IS_ERROR(status)) {
		fsal_prepare_attrs(&attrs, 0);
		attrs.ctime = now.ctime;
		attrs.mtime = now.mtime;
		attrs.change = now.change;
		attrs.valid_mask = ATTR_CTIME | ATTR_MTIME | ATTR_CHANGE;
		dir->obj_ops->handle_to_key(dir, &key);
		status = up->update(up, &key, &attrs, fsal_up_update_null);
		fsal_release_attrs(&attrs);
	}
	fsal_release_attrs(&now);
	LogEvent(COMPONENT_FSAL,
		 "FSAL_SPARSE: test upcall: directory updated (%s)",
		 msg_fsal_err(status.major));
}

/* sparse_test_stall() for a call on an object named by inode number */
void sparse_test_stall_ino(const char *op, ino_t ino)
{
	char what[24];

	(void)snprintf(what, sizeof(what), "%llu", (unsigned long long)ino);
	sparse_test_stall(op, what);
}

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
