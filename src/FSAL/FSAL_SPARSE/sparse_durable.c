/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE durable metadata (export option Durable_Metadata): after a
 * namespace change or a setattr, fsync what changed before the reply, as
 * RFC 8881 expects of a server (the change must survive a server crash).
 *
 * An fsync needs a real descriptor (O_PATH ones fail with EBADF), so the
 * object is opened from its handle O_RDONLY (with O_DIRECTORY for a
 * directory).  Symbolic links and special files cannot be opened that way
 * without side effects (a device or FIFO would be opened), so their own
 * inode is made stable with syncfs() of the export's filesystem, after a
 * setattr of one or attributes applied after creating one.  That flushes
 * the whole filesystem (costly for many symlink SETATTRs, see
 * docs/fsal_sparse.md).
 *
 * No lock is held here: concurrent syncs in one directory overlap and the
 * filesystem journal commits them together.  A failed sync is reported as
 * ERR_FSAL_IO (NFS4ERR_IO); what is left behind is described at each
 * caller and in docs/fsal_sparse.md.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fsal.h"
#include "fsal_convert.h"
#include "FSAL/fsal_commonlib.h"
#include "sparse_int.h"

bool sparse_durable_md(void)
{
	return sparse_export_durable_md(op_ctx->fsal_export);
}

/* fsync fd (what names it for the log); ERR_FSAL_IO on failure. */
fsal_status_t sparse_fsync_fd(int fd, const char *what)
{
	int err;

	if (fsync(fd) == 0)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);

	err = errno;
	LogCrit(COMPONENT_FSAL,
		"FSAL_SPARSE: fsync of %s failed: %s; the operation fails with NFS4ERR_IO",
		what, strerror(err));
	return fsalstat(ERR_FSAL_IO, err);
}

/* Make the export's whole filesystem stable. */
static fsal_status_t sparse_syncfs(struct sparse_export *exp)
{
	int err;

	if (syncfs(exp->root_fd) == 0)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	err = errno;
	LogCrit(COMPONENT_FSAL, "FSAL_SPARSE: syncfs of %s failed: %s",
		exp->root_path, strerror(err));
	return fsalstat(ERR_FSAL_IO, err);
}

/* Make the inode of hdl (of type type) stable. */
static fsal_status_t sparse_sync_handle(struct sparse_handle *hdl,
					object_file_type_t type)
{
	struct sparse_export *exp = sparse_op_export();
	fsal_status_t status;
	int fd;

	if (type != REGULAR_FILE && type != DIRECTORY)
		return sparse_syncfs(exp);

	/* A file under a write lease of ours: any other open would break
	 * it, its descriptor is the file's.  O_NONBLOCK: a file under
	 * somebody else's lease is synced with its filesystem instead.
	 */
	fd = type == REGULAR_FILE ? sparse_deleg_write_lease_fd(hdl) : -1;
	if (fd < 0)
		fd = sparse_open_fh(exp, &hdl->fh,
				    O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
					    (type == DIRECTORY ? O_DIRECTORY :
								 0));
	if (fd == -EWOULDBLOCK)
		return sparse_syncfs(exp);
	if (fd == -ESTALE) {
		/* Removed meanwhile: whoever removed it makes that stable. */
		LogDebug(COMPONENT_FSAL, "object to sync is gone");
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	}
	if (fd < 0) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: cannot open an object to fsync it: %s",
			strerror(-fd));
		return fsalstat(ERR_FSAL_IO, -fd);
	}
	status = sparse_fsync_fd(fd,
				 type == DIRECTORY ? "a directory" : "a file");
	close(fd);
	return status;
}

fsal_status_t sparse_sync_obj(struct fsal_obj_handle *obj_hdl)
{
	if (!sparse_durable_md())
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	return sparse_sync_handle(sparse_hdl(obj_hdl), obj_hdl->type);
}

fsal_status_t sparse_sync_dirs(struct fsal_obj_handle *dir1,
			       struct fsal_obj_handle *dir2)
{
	fsal_status_t status;

	if (!sparse_durable_md())
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	status = sparse_sync_handle(sparse_hdl(dir1), DIRECTORY);
	if (FSAL_IS_ERROR(status) || dir2 == NULL || dir2 == dir1)
		return status;
	return sparse_sync_handle(sparse_hdl(dir2), DIRECTORY);
}

fsal_status_t sparse_sync_created(struct fsal_obj_handle *dir_hdl,
				  struct fsal_obj_handle *new_hdl,
				  bool attrs_applied)
{
	fsal_status_t status = { ERR_FSAL_NO_ERROR, 0 };

	if (!sparse_durable_md())
		return status;
	/* The new inode is written in the same journal transaction as its
	 * directory entry; what was set on it afterwards is not.
	 */
	if (new_hdl->type == REGULAR_FILE || new_hdl->type == DIRECTORY ||
	    attrs_applied)
		status = sparse_sync_handle(sparse_hdl(new_hdl), new_hdl->type);
	if (FSAL_IS_ERROR(status))
		return status;
	return sparse_sync_handle(sparse_hdl(dir_hdl), DIRECTORY);
}

/* The setattr2 op: set, then make the object's inode stable. */
fsal_status_t sparse_setattr2_durable(struct fsal_obj_handle *obj_hdl,
				      bool bypass, struct state_t *state,
				      struct fsal_attrlist *attrib_set)
{
	fsal_status_t status;

	status = sparse_setattr2(obj_hdl, bypass, state, attrib_set);
	if (FSAL_IS_ERROR(status))
		return status;
	/* On failure the attributes stay set, possibly not on disk. */
	return sparse_sync_obj(obj_hdl);
}
