/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE as a pNFS data server (files layout, RFC 8881 13.6): READ,
 * READ_PLUS, WRITE and COMMIT on the data-server filehandles of layouts,
 * which any head of the shared filesystem may have handed out.
 *
 * Every export with PNFS_DS registers one struct fsal_pnfs_ds whose
 * id_servers is its Export_Id (the id the layouts' filehandles carry,
 * FSAL_encode_file_layout), bound to the export; I/O bypasses MDCACHE and
 * works on a descriptor of its own per DS handle (one PUTFH).
 *
 * What a data-server handle authorizes, and where it is checked, is
 * docs/design.md's ("pNFS", the authority of a data-server handle);
 * sparse_ds_authorized() is the one place that checks it, I/O by I/O:
 *  - the handle: tagged with the export's handle key and of its
 *    filesystem identity, else NFS4ERR_BADHANDLE / NFS4ERR_STALE (at
 *    PUTFH, sparse_make_ds_handle);
 *  - the metadata server's boot: the handle's is the export root's, else
 *    NFS4ERR_PNFS_NO_LAYOUT (a restart of the metadata server ended every
 *    layout it had granted);
 *  - the file: still inside the export's tree, else NFS4ERR_STALE;
 *  - the export: its access for this client (read, write), as any
 *    operation of the export (nfs4_export_check_access at PUTFH);
 *  - the layout: its grant listed in the file's grant xattr, with RW for a
 *    WRITE and an RW handle, else NFS4ERR_PNFS_NO_LAYOUT (returned,
 *    recalled, revoked, fenced, or a READ layout: get a new one or go
 *    through the metadata server).  A WRITE holds a shared flock of the
 *    file from this check to the end of its pwrite, which the metadata
 *    server's withdrawal of a grant waits for (sparse_layouts.c);
 *  - the caller: read or write permission on the file as it is now, with
 *    the caller's (squashed) credentials, and WRITE runs as the caller, so
 *    setuid bits are cleared and quota charged as for a local writer.
 * The stateid is not checked: a data server on another head does not
 * share the metadata server's state; the grant stands for it.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "fsal.h"
#include "fsal_api.h"
#include "fsal_convert.h"
#include "FSAL/fsal_commonlib.h"
#include "pnfs_utils.h"
#include "nfs_core.h"
#include "nfs_creds.h"
#include "nfs_exports.h"
#include "export_mgr.h"
#include "nfs_convert.h"
#include "../fsal_private.h"
#include "sparse_int.h"
#include "sparse_pnfs.h"

struct sparse_ds_handle {
	struct fsal_ds_handle ds;
	struct sparse_dsfh d; /* what the handle carries */
	/* O_RDONLY until the first WRITE reopens it O_RDWR (see
	 * sparse_ds_open_for_write); a handle lives for one compound */
	int fd;
	bool writable;
	struct sparse_export *exp;
	/* once per handle (compound): the boot and the confinement checked;
	 * the caller's permission: 0 unknown, 1 yes, -1 no */
	bool placed;
	int8_t may_read, may_write;
};

static inline struct sparse_ds_handle *sparse_dsh(struct fsal_ds_handle *ds)
{
	return container_of(ds, struct sparse_ds_handle, ds);
}

static struct sparse_export *sparse_ds_export(struct fsal_pnfs_ds *pds)
{
	return pds->mds_fsal_export ? sparse_exp(pds->mds_fsal_export) : NULL;
}

/* ---- lifecycle ---------------------------------------------------------- */

/*
 * Standalone DS blocks (Ganesha's "DS { Number; FSAL { } }") are refused:
 * FSAL_SPARSE serves data-server I/O per export, bound to it.
 */
fsal_status_t sparse_refuse_ds_block(struct fsal_module *const fsal_hdl,
				     void *parse_node,
				     struct fsal_pnfs_ds **const handle)
{
	LogCrit(COMPONENT_PNFS,
		"FSAL_SPARSE: a DS block is not supported; set PNFS_DS = true in the FSAL block of the export instead (its Export_Id is the data server's id)");
	return fsalstat(ERR_FSAL_NOTSUPP, 0);
}

int sparse_ds_start(struct sparse_export *exp)
{
	struct fsal_module *fsal = exp->export.fsal;
	struct fsal_pnfs_ds *pds = gsh_calloc(1, sizeof(*pds));

	/* (what Ganesha's fsal_pnfs_ds_init does, which it does not export:
	 * one reference for the caller, our operations, a module reference)
	 */
	pds->ds_refcount = 1;
	fsal->m_ops.fsal_pnfs_ds_ops(&pds->s_ops);
	pds->fsal = fsal;
	fsal_get(fsal);
	pds->id_servers = op_ctx->ctx_export->export_id;
	pds->mds_export = op_ctx->ctx_export;
	pds->mds_fsal_export = &exp->export;
	if (!pnfs_ds_insert(pds)) {
		LogCrit(COMPONENT_PNFS,
			"FSAL_SPARSE: export %s: data server id %" PRIu16
			" (its Export_Id) already in use",
			exp->root_path, pds->id_servers);
		pnfs_ds_put(pds);
		return EEXIST;
	}
	/* The table holds it now; pnfs_ds_remove() at export removal (Ganesha
	 * calls it for an export whose has_pnfs_ds is set) puts both.
	 */
	return 0;
}

/* The export's access for this client, and the caller's credentials
 * (squashed), as PUTFH of any other handle of the export sets them. */
static nfsstat4 sparse_ds_permissions(struct fsal_pnfs_ds *const pds,
				      struct svc_req *req)
{
	if (pds->mds_export == NULL || pds->mds_fsal_export == NULL)
		return NFS4ERR_SERVERFAULT;
	return nfs4_export_check_access(req);
}

static nfsstat4 sparse_fh_verdict_status(enum sparse_fh_verdict v)
{
	switch (v) {
	case SPARSE_FH_OK:
		return NFS4_OK;
	case SPARSE_FH_BAD:
		return NFS4ERR_BADHANDLE;
	default:
		return NFS4ERR_STALE;
	}
}

/* An open of the handle's file failed with -err: the status. */
static nfsstat4 sparse_ds_open_status(int err)
{
	switch (-err) {
	case ESTALE:
	case ENOENT:
		return NFS4ERR_STALE;
	case EWOULDBLOCK:
		/* it would break a lease (a delegation of the file): the
		 * break recalls it, the client retries
		 */
		return NFS4ERR_DELAY;
	case EROFS:
	case EACCES:
	case EPERM:
		return NFS4ERR_ROFS;
	default:
		return posix2nfs4_error(-err);
	}
}

static nfsstat4 sparse_make_ds_handle(struct fsal_pnfs_ds *const pds,
				      const struct gsh_buffdesc *const hdl_desc,
				      struct fsal_ds_handle **const handle,
				      int flags)
{
	struct sparse_export *exp = sparse_ds_export(pds);
	struct sparse_ds_handle *dsh;
	enum sparse_fh_verdict v;
	struct stat st;
	nfsstat4 status;

	*handle = NULL;
	if (exp == NULL)
		return NFS4ERR_SERVERFAULT;
	dsh = gsh_calloc(1, sizeof(*dsh));
	dsh->fd = -1;
	v = sparse_dsfh_check(hdl_desc->addr, hdl_desc->len, exp->fs_ident,
			      exp->handle_key, &dsh->d);
	/* a handle of the version before grants: its layout is gone */
	status = v == SPARSE_FH_STALE_VERSION ? NFS4ERR_PNFS_NO_LAYOUT :
						sparse_fh_verdict_status(v);
	if (status != NFS4_OK) {
		LogDebug(COMPONENT_PNFS, "DS handle refused (%d): %s", v,
			 nfsstat4_to_str(status));
		goto err;
	}

	dsh->exp = exp;
	dsh->fd = sparse_open_fh(exp, &dsh->d.fh, O_RDONLY);
	if (dsh->fd < 0) {
		status = sparse_ds_open_status(dsh->fd);
		if (status == NFS4ERR_ROFS)
			status = NFS4ERR_ACCESS;
		goto err;
	}
	if (fstat(dsh->fd, &st) != 0) {
		status = posix2nfs4_error(errno);
		goto err;
	}
	if (!S_ISREG(st.st_mode)) {
		/* (a tagged handle is one of our layouts': cannot happen) */
		status = NFS4ERR_WRONG_TYPE;
		goto err;
	}
	*handle = &dsh->ds;
	return NFS4_OK;

err:
	if (dsh->fd >= 0)
		close(dsh->fd);
	gsh_free(dsh);
	return status;
}

static void sparse_dsh_release(struct fsal_ds_handle *const ds_hdl)
{
	struct sparse_ds_handle *dsh = sparse_dsh(ds_hdl);

	if (dsh->fd >= 0)
		close(dsh->fd);
	gsh_free(dsh);
}

/* ---- the checks of every I/O -------------------------------------------- */

/*
 * Where the handle points, once per handle: the metadata server has not
 * restarted since it made it (its boot generation is the export root's)
 * and the file still lies inside the export's tree.
 */
static nfsstat4 sparse_ds_placed(struct sparse_ds_handle *dsh)
{
	struct sparse_export *exp = dsh->exp;
	uint32_t boot;
	struct stat st;
	int rc, inside;

	if (dsh->placed)
		return NFS4_OK;
	rc = sparse_boot_get(exp->root_fd, &boot);
	if (rc != 0) {
		LogCrit(COMPONENT_PNFS,
			"FSAL_SPARSE: boot generation of %s unreadable (%s): I/O refused",
			exp->root_path, strerror(-rc));
		return NFS4ERR_IO;
	}
	if (boot != dsh->d.boot) {
		LogDebug(COMPONENT_PNFS,
			 "DS handle of metadata server boot %" PRIu32
			 ", now %" PRIu32 ": no layout",
			 dsh->d.boot, boot);
		return NFS4ERR_PNFS_NO_LAYOUT;
	}
	if (!sparse_test_skip_confinement(&exp->test)) {
		inside = fstat(dsh->fd, &st) == 0 ?
				 sparse_confine_check(&exp->confine, dsh->fd,
						      &st) :
				 -errno;
		if (inside != 1) {
			LogInfo(COMPONENT_PNFS,
				"FSAL_SPARSE: DS handle of a file no longer in %s: %s",
				exp->root_path,
				inside == 0 ? "refused" : strerror(-inside));
			return NFS4ERR_STALE;
		}
	}
	dsh->placed = true;
	return NFS4_OK;
}

/* The handle's layout is alive: its grant listed, with RW for a write. */
static nfsstat4 sparse_ds_granted(struct sparse_ds_handle *dsh, bool write)
{
	uint8_t iomode;
	int rc = sparse_grant_iomode(dsh->fd, dsh->d.grant, &iomode);

	if (rc != 0 && rc != -EUCLEAN) {
		LogCrit(COMPONENT_PNFS,
			"FSAL_SPARSE: layout grants unreadable (%s): I/O refused",
			strerror(-rc));
		return NFS4ERR_IO;
	}
	if (iomode == 0 || (write && iomode != SPARSE_DSFH_RW)) {
		LogDebug(COMPONENT_PNFS,
			 "DS %s under layout grant %" PRIu64
			 " (listed %s): no layout",
			 write ? "WRITE" : "READ", dsh->d.grant,
			 iomode == 0 ? "no" : "READ");
		return NFS4ERR_PNFS_NO_LAYOUT;
	}
	return NFS4_OK;
}

/* Whether the caller may (mode: R_OK, W_OK) the file as it is now, asked
 * of the kernel with the caller's credentials (ACLs included). */
static bool sparse_ds_may(struct sparse_ds_handle *dsh, int mode)
{
	char path[SPARSE_PROC_PATH_LEN];
	int rc;

	sparse_proc_path(dsh->fd, path);
	fsal_set_credentials(&op_ctx->creds);
	rc = faccessat(AT_FDCWD, path, mode, AT_EACCESS);
	if (rc != 0 && mode == R_OK) /* a client reads what it may run */
		rc = faccessat(AT_FDCWD, path, X_OK, AT_EACCESS);
	fsal_restore_ganesha_credentials();
	return rc == 0;
}

/*
 * The handle opens the file read-only: an open for writing breaks the
 * Linux read leases behind the metadata server's read delegations of the
 * same file, and a READ through a data server is no conflict with them.
 * The first WRITE reopens the file for writing (non-blocking: a lease in
 * the way answers NFS4ERR_DELAY while the delegation is recalled); a
 * filesystem or file that refuses it answers NFS4ERR_ROFS.
 */
static nfsstat4 sparse_ds_open_for_write(struct sparse_ds_handle *dsh)
{
	int fd;

	if (dsh->writable)
		return NFS4_OK;
	fd = sparse_open_fh(dsh->exp, &dsh->d.fh, O_RDWR);
	if (fd < 0)
		return sparse_ds_open_status(fd);
	close(dsh->fd);
	dsh->fd = fd;
	dsh->writable = true;
	return NFS4_OK;
}

/*
 * What the handle authorizes (docs/design.md, "pNFS"): an I/O (write or
 * read) of the current caller through it, or the status that refuses it.
 * The one place where a data server decides; a WRITE calls it under the
 * shared flock it holds until its pwrite is done.
 */
static nfsstat4 sparse_ds_authorized(struct sparse_ds_handle *dsh, bool write)
{
	uint32_t need = write ? EXPORT_OPTION_WRITE_ACCESS :
				EXPORT_OPTION_READ_ACCESS;
	int8_t *known = write ? &dsh->may_write : &dsh->may_read;
	nfsstat4 status;

	if ((op_ctx->export_perms.options & need) == 0)
		return write ? NFS4ERR_ROFS : NFS4ERR_ACCESS;
	if (write && dsh->d.iomode != SPARSE_DSFH_RW)
		return NFS4ERR_PNFS_NO_LAYOUT; /* a READ layout's handle */
	status = sparse_ds_placed(dsh);
	if (status == NFS4_OK)
		status = sparse_ds_granted(dsh, write);
	if (status != NFS4_OK)
		return status;
	if (*known == 0)
		*known = sparse_ds_may(dsh, write ? W_OK : R_OK) ? 1 : -1;
	return *known > 0 ? NFS4_OK : NFS4ERR_ACCESS;
}

/* ---- I/O ---------------------------------------------------------------- */

/* The write verifier: the server's, as WRITE and COMMIT on the metadata
 * path give it (a restart of this data server changes it). */
static void sparse_ds_verifier(verifier4 *verf)
{
	struct gsh_buffdesc desc = { .addr = verf, .len = sizeof(*verf) };

	op_ctx->fsal_export->exp_ops.get_write_verifier(op_ctx->fsal_export,
							&desc);
}

/*
 * At most the export's MaxRead of a READ, whatever the count: the protocol
 * layer sizes the buffer to the count cut to MaxRead and the session's
 * reply (patch 0150), and this is the FSAL's own bound on what it writes
 * into it (a short read is a valid answer).
 */
static size_t sparse_ds_read_cap(count4 requested)
{
	uint64_t max =
		op_ctx->ctx_export != NULL ?
			atomic_fetch_uint64_t(&op_ctx->ctx_export->MaxRead) :
			FSAL_MAXIOSIZE;

	return requested < max ? requested : max;
}

static nfsstat4 sparse_dsh_read(struct fsal_ds_handle *const ds_hdl,
				const stateid4 *stateid, const offset4 offset,
				const count4 requested_length,
				void *const buffer,
				count4 *const supplied_length,
				bool *const end_of_file)
{
	struct sparse_ds_handle *dsh = sparse_dsh(ds_hdl);
	size_t want = sparse_ds_read_cap(requested_length);
	size_t done = 0;
	struct stat st;
	nfsstat4 status;

	*supplied_length = 0;
	*end_of_file = false;
	status = sparse_ds_authorized(dsh, false);
	if (status != NFS4_OK)
		return status;
	if (offset > (uint64_t)INT64_MAX)
		return NFS4ERR_INVAL;

	while (done < want) {
		ssize_t n = pread(dsh->fd, (char *)buffer + done, want - done,
				  (off_t)(offset + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return posix2nfs4_error(errno);
		if (n == 0)
			break;
		done += n;
	}
	*supplied_length = done;
	*end_of_file = done < want && fstat(dsh->fd, &st) == 0 &&
		       offset + done >= (uint64_t)st.st_size;
	return NFS4_OK;
}

static nfsstat4 sparse_dsh_read_plus_runs(struct fsal_ds_handle *const ds_hdl,
					  const stateid4 *stateid,
					  struct fsal_read_plus_arg *arg)
{
	struct sparse_ds_handle *dsh = sparse_dsh(ds_hdl);
	fsal_status_t st;
	nfsstat4 status;

	arg->nseg = 0;
	arg->end = arg->offset;
	arg->eof = false;
	status = sparse_ds_authorized(dsh, false);
	if (status != NFS4_OK)
		return status;
	st = sparse_read_plus_fd(dsh->fd, arg);
	if (!FSAL_IS_ERROR(st))
		return NFS4_OK;
	return st.minor != 0 ? posix2nfs4_error(st.minor) : NFS4ERR_IO;
}

static nfsstat4 sparse_dsh_write(struct fsal_ds_handle *const ds_hdl,
				 const stateid4 *stateid, const offset4 offset,
				 const count4 write_length, const void *buffer,
				 const stable_how4 stability_wanted,
				 count4 *const written_length,
				 verifier4 *const writeverf,
				 stable_how4 *const stability_got)
{
	struct sparse_ds_handle *dsh = sparse_dsh(ds_hdl);
	size_t done = 0;
	nfsstat4 status;
	struct stat st;
	int err = 0;

	*written_length = 0;
	if (offset > (uint64_t)INT64_MAX ||
	    write_length > (uint64_t)INT64_MAX - offset)
		return NFS4ERR_FBIG;
	/* (what needs no reopening refused before it, which might break a
	 * read lease for nothing; sparse_ds_authorized decides below)
	 */
	if ((op_ctx->export_perms.options & EXPORT_OPTION_WRITE_ACCESS) == 0)
		return NFS4ERR_ROFS;
	if (dsh->d.iomode != SPARSE_DSFH_RW)
		return NFS4ERR_PNFS_NO_LAYOUT;
	status = sparse_ds_open_for_write(dsh);
	if (status != NFS4_OK)
		return status;

	/* Shared flock from the check to the end of the pwrite: the metadata
	 * server withdraws a grant under an exclusive one, so no write it
	 * has fenced can land after the fence (sparse_layouts.c).
	 */
	while (flock(dsh->fd, LOCK_SH) != 0)
		if (errno != EINTR)
			return posix2nfs4_error(errno);
	status = sparse_ds_authorized(dsh, true);
	if (status != NFS4_OK)
		goto unlock;
	/* tests: a write held between its check and its pwrite */
	if (fstat(dsh->fd, &st) == 0)
		sparse_test_stall_ino("ds_write", st.st_ino);

	/* As the caller: setuid bits cleared, quota charged (as write2). */
	fsal_set_credentials(&op_ctx->creds);
	while (done < write_length) {
		ssize_t n = pwrite(dsh->fd, (const char *)buffer + done,
				   write_length - done, (off_t)(offset + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			break;
		}
		done += n;
	}
	fsal_restore_ganesha_credentials();
unlock:
	(void)flock(dsh->fd, LOCK_UN);
	if (status != NFS4_OK)
		return status;
	if (done == 0 && err != 0)
		return posix2nfs4_error(err);

	if (stability_wanted == FILE_SYNC4 && fsync(dsh->fd) != 0)
		return NFS4ERR_IO;
	if (stability_wanted == DATA_SYNC4 && fdatasync(dsh->fd) != 0)
		return NFS4ERR_IO;
	*written_length = done;
	*stability_got = stability_wanted;
	sparse_ds_verifier(writeverf);
	return NFS4_OK;
}

static nfsstat4 sparse_dsh_commit(struct fsal_ds_handle *const ds_hdl,
				  const offset4 offset, const count4 count,
				  verifier4 *const writeverf)
{
	struct sparse_ds_handle *dsh = sparse_dsh(ds_hdl);

	/* A COMMIT has no stateid and writes nothing: not fenced. */
	if (fsync(dsh->fd) != 0) {
		LogWarn(COMPONENT_PNFS, "FSAL_SPARSE: DS COMMIT: fsync: %s",
			strerror(errno));
		return NFS4ERR_IO;
	}
	sparse_ds_verifier(writeverf);
	return NFS4_OK;
}

void sparse_pnfs_ds_ops_init(struct fsal_pnfs_ds_ops *ops)
{
	memcpy(ops, &def_pnfs_ds_ops, sizeof(*ops));
	ops->ds_permissions = sparse_ds_permissions;
	ops->make_ds_handle = sparse_make_ds_handle;
	ops->dsh_release = sparse_dsh_release;
	ops->dsh_read = sparse_dsh_read;
	ops->dsh_read_plus_runs = sparse_dsh_read_plus_runs;
	ops->dsh_write = sparse_dsh_write;
	ops->dsh_commit = sparse_dsh_commit;
}
