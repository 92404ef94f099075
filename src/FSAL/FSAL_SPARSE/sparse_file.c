/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE file I/O: open/reopen/close, read/write, commit, byte-range
 * locks, SEEK, ALLOCATE/DEALLOCATE, CLONE and setattr.
 *
 * Descriptors follow Ganesha's fsal_fd model: a regular file has one
 * global descriptor (stateless I/O) and every open/lock state has its own.
 * Every use of one is bracketed by fsal_start_io()/fsal_complete_io(),
 * which (with the fd's work_mutex) guarantees it is not closed or
 * reopened under the I/O; when the global one cannot be used a temporary
 * descriptor is opened for the call.  Share reservations are counted in
 * sparse_handle.share under obj_handle.obj_lock, using Ganesha's helpers.
 * I/O without a state takes a temporary share for its duration and gives
 * it back afterwards.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/falloc.h>

#include "fsal.h"
#include "fsal_convert.h"
#include "FSAL/fsal_commonlib.h"
#include "FSAL/access_check.h"
#include "sparse_int.h"
#include "sparse_map.h"
#include "sparse_copy.h"

static inline struct sparse_fd *sparse_fd_of(struct fsal_fd *fsal_fd)
{
	return container_of(fsal_fd, struct sparse_fd, fsal_fd);
}

static inline struct sparse_fd *sparse_state_fd(struct state_t *state)
{
	return &container_of(state, struct sparse_state_fd, state)->sfd;
}

/* Declare a temporary descriptor for one call. */
#define SPARSE_TMP_FD(name) \
	struct sparse_fd name = { .fsal_fd = FSAL_FD_INIT, .fd = -1 }

/*
 * Make fd (-1: none) sfd's kernel descriptor; returns the one it replaces,
 * for the caller to close.  A state's descriptor is on its file's
 * state_fds exactly while it is open, so COMMIT can reach it; the swap is
 * done under state_fds_lock, so COMMIT never syncs a number being closed.
 */
static int sparse_set_fd(struct sparse_handle *hdl, struct sparse_fd *sfd,
			 int fd)
{
	struct sparse_state_fd *sst;
	int old = sfd->fd;

	if (sfd->fsal_fd.fd_type != FSAL_FD_STATE) {
		sfd->fd = fd;
		return old;
	}
	sst = container_of(sfd, struct sparse_state_fd, sfd);
	PTHREAD_MUTEX_lock(&hdl->state_fds_lock);
	old = sfd->fd;
	sfd->fd = fd;
	if (fd >= 0 && glist_null(&sst->fds_link))
		glist_add_tail(&hdl->state_fds, &sst->fds_link);
	else if (fd < 0 && !glist_null(&sst->fds_link))
		glist_del(&sst->fds_link);
	PTHREAD_MUTEX_unlock(&hdl->state_fds_lock);
	return old;
}

/* ---- open / close primitives ------------------------------------------- */

static int sparse_posix_flags(fsal_openflags_t openflags)
{
	int flags = 0;

	fsal2posix_openflags(openflags, &flags);
	return flags;
}

/*
 * The kernel mode for an NFS open in flags: read-write where it allows
 * writing.  Ganesha checks each READ's access itself and reads through a
 * descriptor only when its NFS open mode (fsal_fd.openflags) allows it;
 * the kernel mode lets a write lease on the descriptor serve the
 * delegation stateid's reads too.  Every open is O_NONBLOCK: one that
 * would break a lease (ours included) fails at once with EWOULDBLOCK
 * (NFS4ERR_DELAY) instead of holding the thread for lease-break-time.
 */
static int sparse_kernel_flags(int flags)
{
	if ((flags & O_ACCMODE) == O_WRONLY)
		flags = (flags & ~O_ACCMODE) | O_RDWR;
	return flags | O_NONBLOCK;
}

/* open(2) of path in flags promoted by sparse_kernel_flags(), else (no
 * read permission) as asked; an fd or -errno.
 */
static int sparse_open_promoted(const char *path, int flags)
{
	int fd = sparse_sys_open(path, sparse_kernel_flags(flags) | O_CLOEXEC);

	if (fd < 0 && (errno == EACCES || errno == EPERM) &&
	    (flags & O_ACCMODE) == O_WRONLY)
		fd = sparse_sys_open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Open a regular file from its handle.  Ganesha checks open permission on
 * an existing file only after the FSAL opened it, which is too late for
 * O_TRUNC: a truncating open is therefore redone through /proc with the
 * caller's credentials, so the kernel refuses it without write permission.
 * Returns an fd or -errno.
 */
static int sparse_open_file(struct sparse_handle *hdl, int flags)
{
	struct sparse_export *exp = sparse_op_export();
	char proc_path[SPARSE_PROC_PATH_LEN];
	int pfd, fd;

	if ((flags & O_TRUNC) == 0) {
		fd = sparse_open_fh(exp, &hdl->fh, sparse_kernel_flags(flags));
		if ((fd == -EACCES || fd == -EPERM) &&
		    (flags & O_ACCMODE) == O_WRONLY)
			fd = sparse_open_fh(exp, &hdl->fh, flags | O_NONBLOCK);
		return fd;
	}

	pfd = sparse_open_fh(exp, &hdl->fh, O_PATH);
	if (pfd < 0)
		return pfd;
	sparse_proc_path(pfd, proc_path);
	fsal_set_credentials(&op_ctx->creds);
	fd = sparse_open_promoted(proc_path, flags);
	fsal_restore_ganesha_credentials();
	close(pfd);
	return fd;
}

/* Make fd (taken over) fsal_fd's descriptor, in NFS mode openflags. */
static void sparse_install_fd(struct fsal_obj_handle *obj_hdl,
			      fsal_openflags_t openflags,
			      struct fsal_fd *fsal_fd, int fd)
{
	int old = sparse_set_fd(sparse_hdl(obj_hdl), sparse_fd_of(fsal_fd), fd);

	if (old >= 0)
		close(old);
	fsal_fd->openflags = FSAL_O_NFS_FLAGS(openflags);
}

/* Ganesha's callback: (re)open fsal_fd on the file in a new mode. */
static fsal_status_t sparse_reopen_func(struct fsal_obj_handle *obj_hdl,
					fsal_openflags_t openflags,
					struct fsal_fd *fsal_fd)
{
	int fd;

	fd = sparse_open_file(sparse_hdl(obj_hdl),
			      sparse_posix_flags(openflags));
	if (fd < 0) {
		LogDebug(COMPONENT_FSAL, "open for 0x%x: %s", openflags,
			 strerror(-fd));
		return posix2fsal_status(-fd);
	}
	sparse_install_fd(obj_hdl, openflags, fsal_fd, fd);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/*
 * A write lease needs one open file description of the file: make every
 * open or delegation state descriptor of hdl a dup of fd (open read-write,
 * so a superset of any of their modes; each keeps its NFS mode in
 * openflags, which is what Ganesha checks).  Conflicts between NFS clients
 * are the core's business, not the kernel's: the lease is there to notice
 * local opens.  A lock state's descriptor is left alone (its OFD locks
 * belong to its open file description, and go with it): false then, no
 * write lease.  Called under the file's st_lock, which keeps the states
 * from going away; each descriptor is swapped under its fd work.
 */
bool sparse_share_description(struct sparse_handle *hdl, int fd)
{
	struct sparse_state_fd **ssts = NULL;
	struct glist_head *node;
	int n = 0, cap = 0, i, nfd;
	bool locks = false;

	PTHREAD_MUTEX_lock(&hdl->state_fds_lock);
	glist_for_each(node, &hdl->state_fds)
	{
		struct sparse_state_fd *sst =
			glist_entry(node, struct sparse_state_fd, fds_link);

		if (sst->state.state_type != STATE_TYPE_SHARE &&
		    sst->state.state_type != STATE_TYPE_DELEG) {
			locks = true;
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 4;
			ssts = gsh_realloc(ssts, cap * sizeof(*ssts));
		}
		ssts[n++] = sst;
	}
	PTHREAD_MUTEX_unlock(&hdl->state_fds_lock);

	for (i = 0; i < n && !locks; i++) {
		struct sparse_fd *sfd = &ssts[i]->sfd;

		fsal_start_fd_work_no_reclaim(&sfd->fsal_fd);
		nfd = sfd->fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (nfd >= 0)
			close(sparse_set_fd(hdl, sfd, nfd));
		fsal_complete_fd_work(&sfd->fsal_fd);
	}
	gsh_free(ssts);
	return !locks;
}

/* Ganesha's callback: close fsal_fd. */
static fsal_status_t sparse_close_func(struct fsal_obj_handle *obj_hdl,
				       struct fsal_fd *fsal_fd)
{
	struct sparse_fd *sfd = sparse_fd_of(fsal_fd);
	int rc = 0;

	/* A descriptor is closed (and off its file's state_fds) whenever
	 * there is one, whatever openflags say: a state is freed after this.
	 */
	if (sfd->fd < 0)
		return fsalstat(ERR_FSAL_NOT_OPENED, 0);

	if (close(sparse_set_fd(sparse_hdl(obj_hdl), sfd, -1)) != 0)
		rc = errno;
	fsal_fd->openflags = FSAL_O_CLOSED;
	return posix2fsal_status(rc);
}

fsal_status_t sparse_close_global(struct sparse_handle *hdl)
{
	return close_fsal_fd(&hdl->obj_handle, &hdl->gfd.fsal_fd, false);
}

/* Legacy close of the global descriptor. */
static fsal_status_t sparse_close(struct fsal_obj_handle *obj_hdl)
{
	fsal_status_t status = sparse_close_global(sparse_hdl(obj_hdl));

	if (FSAL_IS_ERROR(status))
		return status;
	/* The fd LRU already did the open-fd accounting. */
	return fsalstat(ERR_FSAL_NOT_OPENED, 0);
}

/* ---- I/O bracketing ---------------------------------------------------- */

/* The state's descriptor becomes fd (a dup of the lease's) unless it got
 * one meanwhile; fd is the state's or closed. */
static void sparse_state_adopt_fd(struct sparse_handle *hdl,
				  struct state_t *state, int fd)
{
	struct sparse_fd *sfd = sparse_state_fd(state);
	int mode;

	fsal_start_fd_work_no_reclaim(&sfd->fsal_fd);
	if (sfd->fd < 0) {
		mode = fcntl(fd, F_GETFL) & O_ACCMODE;
		(void)sparse_set_fd(hdl, sfd, fd);
		sfd->fsal_fd.openflags = mode == O_RDWR	  ? FSAL_O_RDWR :
					 mode == O_WRONLY ? FSAL_O_WRITE :
							    FSAL_O_READ;
		insert_fd_lru(&sfd->fsal_fd);
		fd = -1;
	}
	fsal_complete_fd_work(&sfd->fsal_fd);
	if (fd >= 0)
		close(fd);
}

/*
 * I/O with a delegation stateid: Ganesha uses the delegation state's own
 * descriptor when it is open, else the global one.  While the file has a
 * write lease of ours, the global one cannot be opened without breaking
 * it, so the delegation state gets a dup of the lease's descriptor (open
 * in the mode of that open file description) the first time it is used.
 */
static void sparse_deleg_state_fd(struct sparse_handle *hdl,
				  struct state_t *state)
{
	int fd;

	if (state == NULL || state->state_type != STATE_TYPE_DELEG ||
	    __atomic_load_n(&sparse_state_fd(state)->fd, __ATOMIC_RELAXED) >= 0)
		return;
	fd = sparse_deleg_write_lease_fd(hdl);
	if (fd >= 0)
		sparse_state_adopt_fd(hdl, state, fd);
}

/*
 * A lock state of the client holding the file's write lease, not yet
 * open: the lease's descriptor (sparse_deleg_holder_fd), else its first
 * lock would open one of its own, which breaks the holder's own lease.
 * Its lock owners then share one open file description, and so the
 * kernel's OFD locks, while SAL keeps telling their locks apart (it
 * checks owners against each other before asking us).
 */
static void sparse_lock_state_fd(struct sparse_handle *hdl,
				 struct state_t *state,
				 fsal_openflags_t openflags)
{
	const state_owner_t *owner;
	int fd;

	if (state == NULL || state->state_type != STATE_TYPE_LOCK ||
	    __atomic_load_n(&sparse_state_fd(state)->fd, __ATOMIC_RELAXED) >= 0)
		return;
	owner = state->state_owner;
	if (owner == NULL || owner->so_type != STATE_LOCK_OWNER_NFSV4)
		return;
	fd = sparse_deleg_holder_fd(
		hdl, &owner->so_owner.so_nfs4_owner.so_clientid, openflags);
	if (fd >= 0)
		sparse_state_adopt_fd(hdl, state, fd);
}

/*
 * A read through an open state of the client's whose NFS mode is writing
 * only: Ganesha would read through the global descriptor or a temporary
 * one, as an anonymous READ (share reservations checked), and opening
 * either for reading breaks the write lease of the client's own write
 * delegation (NFS4ERR_DELAY, its delegation recalled; knfsd answers
 * NFS4_OK).  When the client holds the file's write lease, tmp becomes a
 * dup of the lease's descriptor instead (sparse_deleg_holder_fd),
 * with the share reservation the anonymous READ would take; true then,
 * with *status the check's.
 */
static bool sparse_holder_read_fd(struct sparse_handle *hdl,
				  struct state_t *state,
				  fsal_openflags_t openflags, bool bypass,
				  struct sparse_fd *tmp, fsal_status_t *status)
{
	const state_owner_t *owner;

	if (state == NULL || openflags != FSAL_O_READ ||
	    state->state_type != STATE_TYPE_SHARE)
		return false;
	if (__atomic_load_n(&sparse_state_fd(state)->fsal_fd.openflags,
			    __ATOMIC_RELAXED) &
	    FSAL_O_READ)
		return false;
	owner = state->state_owner;
	if (owner == NULL || owner->so_type != STATE_OPEN_OWNER_NFSV4)
		return false;
	tmp->fd = sparse_deleg_holder_fd(
		hdl, &owner->so_owner.so_nfs4_owner.so_clientid, FSAL_O_READ);
	if (tmp->fd < 0)
		return false;

	*status = check_share_conflict_and_update_locked(&hdl->obj_handle,
							 &hdl->share,
							 FSAL_O_CLOSED,
							 FSAL_O_READ, bypass);
	if (FSAL_IS_ERROR(*status)) {
		close(tmp->fd);
		tmp->fd = -1;
		return true;
	}
	tmp->fsal_fd.openflags = FSAL_O_READ;
	tmp->fsal_fd.close_on_complete = true;
	tmp->share_taken = true;
	LogFullDebug(COMPONENT_FSAL,
		     "read through a write-only open: the holder's lease fd");
	return true;
}

/*
 * Get a descriptor usable for `openflags` on a regular file: the state's,
 * the global one, or the temporary tmp.  Without a state (and unless
 * openflags is FSAL_O_ANY), and for a delegation holder's read through
 * its open for writing only, a temporary share is taken; sparse_end_io()
 * gives it back.
 */
static fsal_status_t sparse_begin_io(struct fsal_obj_handle *obj_hdl,
				     struct state_t *state,
				     fsal_openflags_t openflags, bool bypass,
				     bool for_locks, struct sparse_fd *tmp,
				     struct sparse_fd **out)
{
	struct sparse_handle *hdl = sparse_hdl(obj_hdl);
	struct fsal_fd *out_fd = NULL;
	fsal_status_t status;

	sparse_deleg_state_fd(hdl, state);
	if (!for_locks && sparse_holder_read_fd(hdl, state, openflags, bypass,
						tmp, &status)) {
		if (!FSAL_IS_ERROR(status))
			*out = tmp;
		return status;
	}
	status = fsal_start_io(&out_fd, obj_hdl, &hdl->gfd.fsal_fd,
			       &tmp->fsal_fd, state, openflags, for_locks, NULL,
			       bypass,
			       openflags == FSAL_O_ANY ? NULL : &hdl->share);
	if (FSAL_IS_ERROR(status)) {
		LogDebug(COMPONENT_FSAL, "fsal_start_io: %s",
			 fsal_err_txt(status));
		return status;
	}
	*out = sparse_fd_of(out_fd);
	return status;
}

static void sparse_end_io(struct fsal_obj_handle *obj_hdl,
			  struct state_t *state, fsal_openflags_t openflags,
			  struct sparse_fd *used)
{
	bool share_taken = used->share_taken;
	fsal_status_t status = fsal_complete_io(obj_hdl, &used->fsal_fd);

	if (FSAL_IS_ERROR(status))
		LogDebug(COMPONENT_FSAL, "fsal_complete_io: %s",
			 fsal_err_txt(status));

	if ((state == NULL || share_taken) && openflags != FSAL_O_ANY)
		update_share_counters_locked(obj_hdl,
					     &sparse_hdl(obj_hdl)->share,
					     openflags, FSAL_O_CLOSED);
}

/*
 * Durable_Metadata for a change of a file's blocks or size that the reply
 * carries no write verifier for (ALLOCATE, DEALLOCATE, CLONE, an OPEN that
 * truncates): the client cannot know to COMMIT, so fsync fd before the
 * reply (knfsd commits the metadata after fallocate and syncs after a
 * clone).  ERR_FSAL_IO when that fails; the change stays made.
 */
static fsal_status_t sparse_sync_changed_fd(int fd, const char *what)
{
	if (!sparse_durable_md())
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	return sparse_fsync_fd(fd, what);
}

/* ---- open2 and friends ------------------------------------------------- */

static void sparse_fill_attrs_from_fd(int fd, struct fsal_attrlist *attrs,
				      fsal_status_t *status)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		*status = posix2fsal_status(errno);
		return;
	}
	sparse_stat_to_attrs(sparse_op_export(), &st, attrs);
}

/* After opening an existing file for an exclusive create replay, check
 * that the stored verifier is ours.
 */
static fsal_status_t sparse_check_verifier_fd(int fd, fsal_verifier_t verifier)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return posix2fsal_status(errno);
	if (!check_verifier_stat(&st, verifier, false))
		return fsalstat(ERR_FSAL_EXIST, EEXIST);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/*
 * Share check for a state going from old_flags to openflags: the state's
 * own current reservation is left out, or an owner could not upgrade past
 * its own deny bits (RFC 8881 9.7 conflicts are between open owners).
 * Caller holds obj_lock.
 */
static fsal_status_t sparse_check_share_change(const struct fsal_share *share,
					       fsal_openflags_t old_flags,
					       fsal_openflags_t openflags)
{
	struct fsal_share others = *share;

	update_share_counters(&others, old_flags, FSAL_O_CLOSED);
	return check_share_conflict(&others, openflags, false);
}

/*
 * Truncate fd to 0 as an OPEN with O_TRUNC would: only with the caller's
 * write permission (checked through /proc with its credentials, as the
 * kernel checks a truncating open), as the caller (setuid/setgid cleared).
 */
static fsal_status_t sparse_truncate_open_fd(int fd)
{
	char proc_path[SPARSE_PROC_PATH_LEN];
	int err = 0;

	sparse_proc_path(fd, proc_path);
	fsal_set_credentials(&op_ctx->creds);
	if (faccessat(AT_FDCWD, proc_path, W_OK, AT_EACCESS) != 0 ||
	    ftruncate(fd, 0) != 0)
		err = errno;
	fsal_restore_ganesha_credentials();
	return posix2fsal_status(err);
}

/*
 * The client an open state is (re)opened for: its open owner's, or, for
 * a new state (Ganesha gives it its owner only after open2), the
 * operation's (op_ctx->clientid: SEQUENCE's, or an NFSv4.0 OPEN's since
 * patch 0124).  NULL when not known.  Called under the file's st_lock.
 */
static const clientid4 *sparse_state_client(const struct state_t *state)
{
	const state_owner_t *owner = state->state_owner;

	if (owner == NULL)
		return op_ctx->clientid;
	if (owner->so_type != STATE_OPEN_OWNER_NFSV4)
		return NULL;
	return &owner->so_owner.so_nfs4_owner.so_clientid;
}

/*
 * (Re)open an open state's descriptor with FSAL_SPARSE's delegation
 * leases in mind (sparse_deleg.c): while the file has a write lease of
 * the state's client, a dup of the lease's descriptor stands in for a new
 * open (which would break it); a read lease the holder's open for writing
 * would break is dropped first (*conv: the caller backs the delegations
 * again after).
 */
static fsal_status_t sparse_open_state_fd(struct fsal_obj_handle *obj_hdl,
					  struct state_t *state,
					  fsal_openflags_t openflags,
					  struct fsal_fd *fsal_fd, bool *conv)
{
	int flags = sparse_posix_flags(openflags);
	int fd = sparse_deleg_open_begin(sparse_hdl(obj_hdl), flags,
					 sparse_state_client(state), conv);
	fsal_status_t status;

	if (fd < 0)
		return sparse_reopen_func(obj_hdl, openflags, fsal_fd);
	if (flags & O_TRUNC) {
		status = sparse_truncate_open_fd(fd);
		if (FSAL_IS_ERROR(status)) {
			close(fd);
			return status;
		}
	}
	sparse_install_fd(obj_hdl, openflags, fsal_fd, fd);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/*
 * Open (or change the mode of) the state's or the global descriptor of an
 * existing object.  The fd's work is started first so no I/O uses it while
 * it is reopened; then, for a state, obj_lock is taken (write) to check and
 * update the share counters.  This is the only place where a work_mutex
 * wait precedes obj_lock, so the order cannot invert.
 */
static fsal_status_t sparse_open_by_handle(struct fsal_obj_handle *obj_hdl,
					   struct state_t *state,
					   fsal_openflags_t openflags,
					   enum fsal_create_mode createmode,
					   fsal_verifier_t verifier,
					   struct fsal_attrlist *attrs_out)
{
	struct sparse_handle *hdl = sparse_hdl(obj_hdl);
	struct sparse_fd *sfd = state ? sparse_state_fd(state) : &hdl->gfd;
	struct fsal_fd *fsal_fd = &sfd->fsal_fd;
	fsal_status_t status = { ERR_FSAL_NO_ERROR, 0 };
	bool truncate = (openflags & FSAL_O_TRUNC) != 0;
	fsal_openflags_t old_flags;
	bool fresh = false, closed = false, conv = false;
	int lease_fd = -1;

	/* a truncate waits for other clients' layouts (sparse_layouts.c) */
	if (truncate) {
		status = sparse_layouts_conflict(sparse_op_export(), &hdl->fh,
						 SPARSE_LO_ALL,
						 "truncating OPEN");
		if (FSAL_IS_ERROR(status))
			return status;
	}
	/* an open denying writes waits for other clients' write layouts,
	 * which write through the data servers whatever the share
	 * reservations say
	 */
	if (state != NULL &&
	    (openflags & (FSAL_O_DENY_WRITE | FSAL_O_DENY_WRITE_MAND)) != 0) {
		status = sparse_layouts_conflict(sparse_op_export(), &hdl->fh,
						 SPARSE_LO_WRITE,
						 "OPEN denying writes");
		if (FSAL_IS_ERROR(status))
			return status;
	}

	fsal_start_fd_work_no_reclaim(fsal_fd);
	old_flags = fsal_fd->openflags;

	if (state != NULL) {
		PTHREAD_RWLOCK_wrlock(&obj_hdl->obj_lock);
		status = sparse_check_share_change(&hdl->share, old_flags,
						   openflags);
		if (FSAL_IS_ERROR(status))
			goto done;
	}

	/* Same mode, nothing to create or truncate: keep the descriptor. */
	if (FSAL_O_NFS_FLAGS(openflags) == FSAL_O_NFS_FLAGS(old_flags) &&
	    !truncate && createmode == FSAL_NO_CREATE)
		goto done;

	fresh = old_flags == FSAL_O_CLOSED && sfd->fd < 0;
	if (state != NULL && state->state_type == STATE_TYPE_SHARE)
		status = sparse_open_state_fd(obj_hdl, state, openflags,
					      fsal_fd, &conv);
	else
		status = sparse_reopen_func(obj_hdl, openflags, fsal_fd);
	if (FSAL_IS_ERROR(status))
		goto done;
	if (fresh)
		insert_fd_lru(fsal_fd);
	else
		bump_fd_lru(fsal_fd);

	if (createmode >= FSAL_EXCLUSIVE && createmode != FSAL_EXCLUSIVE_9P)
		status = sparse_check_verifier_fd(sfd->fd, verifier);
	if (!FSAL_IS_ERROR(status) && truncate)
		status = sparse_sync_changed_fd(sfd->fd, "a truncated file");
	if (!FSAL_IS_ERROR(status) && attrs_out != NULL &&
	    (truncate || createmode >= FSAL_EXCLUSIVE))
		sparse_fill_attrs_from_fd(sfd->fd, attrs_out, &status);

	if (FSAL_IS_ERROR(status)) {
		if (fresh)
			remove_fd_lru(fsal_fd);
		(void)sparse_close_func(obj_hdl, fsal_fd);
		closed = true;
	}
done:
	if (conv && !FSAL_IS_ERROR(status))
		lease_fd = fcntl(sfd->fd, F_DUPFD_CLOEXEC, 0);
	if (state != NULL) {
		/* The counters follow the descriptor: its new mode, or none
		 * when it had to be closed (close2 will find it CLOSED and
		 * could not take the old reservation back).
		 */
		if (!FSAL_IS_ERROR(status))
			update_share_counters(&hdl->share, old_flags,
					      openflags);
		else if (closed)
			update_share_counters(&hdl->share, old_flags,
					      FSAL_O_CLOSED);
		PTHREAD_RWLOCK_unlock(&obj_hdl->obj_lock);
	}
	fsal_complete_fd_work(fsal_fd);
	/* Neither obj_lock nor the fd's work held: it may close the global
	 * descriptor, which waits for I/O on it.
	 */
	if (conv)
		sparse_deleg_open_end(hdl, lease_fd);
	/* Tests only: a share state's file just opened, hold the answer back
	 * (before SAL adds the state)
	 */
	if (fresh && !FSAL_IS_ERROR(status) && state != NULL &&
	    state->state_type == STATE_TYPE_SHARE)
		sparse_test_stall_ino("open", obj_hdl->fileid);
	return status;
}

/* Refuse to open anything but a regular file by name. */
static fsal_status_t sparse_check_openable(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	if (S_ISDIR(st->st_mode))
		return fsalstat(ERR_FSAL_ISDIR, 0);
	return fsalstat(ERR_FSAL_SYMLINK, 0);
}

/*
 * Open an existing dirfd/name.  It is first pinned with O_PATH (no
 * symlink following, no device or FIFO side effects), checked to be a
 * regular file, then reopened through /proc in the wanted mode.  With
 * O_TRUNC the reopen runs with the caller's credentials so the kernel
 * checks write permission before truncating; otherwise Ganesha checks
 * permission after we return (*ganesha_checks = true).
 */
static int sparse_open_existing(int dirfd, const char *name, int flags,
				bool *ganesha_checks, fsal_status_t *status)
{
	char proc_path[SPARSE_PROC_PATH_LEN];
	struct stat st;
	int pfd, fd = -1;

	pfd = sparse_open_beneath(dirfd, name, 0);
	if (pfd < 0) {
		*status = posix2fsal_status(errno);
		return -1;
	}
	if (fstat(pfd, &st) != 0) {
		*status = posix2fsal_status(errno);
		goto out;
	}
	*status = sparse_check_openable(&st);
	if (FSAL_IS_ERROR(*status))
		goto out;
	if ((flags & O_TRUNC) != 0) {
		*status = sparse_layouts_conflict_fd(pfd, "truncating OPEN");
		if (FSAL_IS_ERROR(*status))
			goto out;
	}

	sparse_proc_path(pfd, proc_path);
	flags &= ~(O_CREAT | O_EXCL);
	*ganesha_checks = (flags & O_TRUNC) == 0;
	if (!*ganesha_checks)
		fsal_set_credentials(&op_ctx->creds);
	fd = sparse_open_promoted(proc_path, flags);
	if (fd < 0)
		*status = posix2fsal_status(-fd);
	if (!*ganesha_checks)
		fsal_restore_ganesha_credentials();
out:
	close(pfd);
	return fd;
}

/* Create dirfd/name exclusively, as the caller. */
static int sparse_create_file(int dirfd, const char *name, int flags,
			      mode_t mode)
{
	int fd, err;

	fsal_set_credentials(&op_ctx->creds);
	fd = sparse_sys_openat(dirfd, name,
			       sparse_kernel_flags(flags) | O_CREAT | O_EXCL |
				       O_NOFOLLOW | O_CLOEXEC,
			       mode);
	err = errno;
	fsal_restore_ganesha_credentials();
	errno = err;
	return fd;
}

/*
 * Give a freshly opened fd to the new handle: into the state, or as the
 * global descriptor.  Nobody else can see the new handle yet, so no work
 * accounting is needed.
 */
static struct sparse_fd *sparse_adopt_fd(struct sparse_handle *hdl,
					 struct state_t *state, int fd,
					 fsal_openflags_t openflags)
{
	struct sparse_fd *sfd = state ? sparse_state_fd(state) : &hdl->gfd;

	if (state == NULL)
		insert_fd_lru(&sfd->fsal_fd);
	(void)sparse_set_fd(hdl, sfd, fd);
	sfd->fsal_fd.openflags = FSAL_O_NFS_FLAGS(openflags);
	return sfd;
}

/* Set what the create could not: owner, times (verifier), size... */
static fsal_status_t sparse_apply_create_attrs(struct sparse_handle *hdl,
					       struct state_t *state,
					       struct fsal_attrlist *attrib_set,
					       struct fsal_attrlist *attrs_out)
{
	fsal_status_t status;

	status = sparse_chown_new(hdl, attrib_set);
	if (!FSAL_IS_ERROR(status) && attrib_set->valid_mask != 0)
		status = sparse_setattr2(&hdl->obj_handle, false, state,
					 attrib_set);
	if (!FSAL_IS_ERROR(status) && attrs_out != NULL)
		status = sparse_getattrs(&hdl->obj_handle, attrs_out);
	return status;
}
/*
 * An OPEN that created name (O_EXCL) failed afterwards: remove name if it
 * still is the new file, known by its handle or, before the handle was
 * made, by the descriptor still open on it (fd).
 */
static void sparse_undo_file_create(int dirfd, const char *name, int fd,
				    struct sparse_handle *hdl)
{
	struct sparse_fh fh;

	if (hdl != NULL)
		sparse_undo_create(dirfd, name, false, &hdl->fh);
	else if (fd >= 0 && sparse_fh_from_name(sparse_op_export(), fd, "",
						AT_EMPTY_PATH, &fh) == 0)
		sparse_undo_create(dirfd, name, false, &fh);
	else
		sparse_undo_create(dirfd, name, false, NULL); /* logs it */
}

static fsal_status_t
sparse_open2(struct fsal_obj_handle *obj_hdl, struct state_t *state,
	     fsal_openflags_t openflags, enum fsal_create_mode createmode,
	     const char *name, struct fsal_attrlist *attrib_set,
	     fsal_verifier_t verifier, struct fsal_obj_handle **new_obj,
	     struct fsal_attrlist *attrs_out, bool *caller_perm_check,
	     struct fsal_attrlist *parent_pre_attrs_out,
	     struct fsal_attrlist *parent_post_attrs_out)
{
	struct sparse_export *exp = sparse_op_export();
	int flags = sparse_posix_flags(openflags);
	struct sparse_handle *hdl = NULL;
	struct sparse_fd *sfd = NULL;
	fsal_status_t status = { ERR_FSAL_NO_ERROR, 0 };
	bool created = false, ganesha_checks = true;
	struct sparse_dir_change dc;
	struct sparse_fh fh;
	struct stat st;
	int dirfd, fd = -1, rc;
	mode_t mode = 0;

	if (createmode >= FSAL_EXCLUSIVE)
		set_common_verifier(attrib_set, verifier, false);

	if (name == NULL) {
		status = sparse_open_by_handle(obj_hdl, state, openflags,
					       createmode, verifier, attrs_out);
		*caller_perm_check = !FSAL_IS_ERROR(status);
		return status;
	}
	status = sparse_check_name(name);
	if (FSAL_IS_ERROR(status))
		return status;

	if (createmode != FSAL_NO_CREATE) {
		mode = fsal2unix_mode(attrib_set->mode) &
		       ~exp->export.exp_ops.fs_umask(&exp->export);
		FSAL_UNSET_MASK(attrib_set->valid_mask, ATTR_MODE);
	}

	status = sparse_open_dir(obj_hdl, O_PATH, &dirfd);
	if (FSAL_IS_ERROR(status))
		return status;

	sparse_md_delay(createmode != FSAL_NO_CREATE ? SPARSE_MD_UPDATE :
						       SPARSE_MD_READ);
	/* change_info4 of the parent, for a create and a plain open alike */
	sparse_dir_change_begin(&dc, dirfd, parent_pre_attrs_out,
				parent_post_attrs_out);
	if (createmode != FSAL_NO_CREATE) {
		fd = sparse_create_file(dirfd, name, flags, mode);
		created = fd >= 0;
		if (created)
			sparse_changed(obj_hdl);
		if (fd < 0 &&
		    (errno != EEXIST || createmode != FSAL_UNCHECKED)) {
			status = posix2fsal_status(errno);
			sparse_dir_change_end(&dc);
			goto out;
		}
	}
	if (fd < 0) {
		fd = sparse_open_existing(dirfd, name, flags, &ganesha_checks,
					  &status);
		if (fd < 0) {
			sparse_dir_change_end(&dc);
			goto out;
		}
	}
	sparse_dir_change_end(&dc);
	*caller_perm_check = !created && ganesha_checks;

	if (fstat(fd, &st) != 0) {
		status = posix2fsal_status(errno);
		goto out;
	}
	status = sparse_check_openable(&st);
	if (FSAL_IS_ERROR(status))
		goto out;
	rc = sparse_fh_from_name(exp, fd, "", AT_EMPTY_PATH, &fh);
	if (rc != 0) {
		status = posix2fsal_status(rc);
		goto out;
	}

	hdl = sparse_alloc_handle(exp, &fh, &st);
	sfd = sparse_adopt_fd(hdl, state, fd, openflags);
	fd = -1;

	/* Durable_Metadata: an existing file this OPEN truncated */
	if (!created && (flags & O_TRUNC) != 0) {
		status = sparse_sync_changed_fd(sfd->fd, "a truncated file");
		if (FSAL_IS_ERROR(status))
			goto out;
	}
	if (created)
		status = sparse_apply_create_attrs(hdl, state, attrib_set,
						   attrs_out);
	else if (attrs_out != NULL)
		sparse_stat_to_attrs(exp, &st, attrs_out);
	/* Durable_Metadata; a failed sync undoes the create (out:). */
	if (created && !FSAL_IS_ERROR(status))
		status = sparse_sync_created(obj_hdl, &hdl->obj_handle, true);
	if (FSAL_IS_ERROR(status))
		goto out;

	if (state != NULL)
		update_share_counters_locked(&hdl->obj_handle, &hdl->share,
					     FSAL_O_CLOSED, openflags);
	*new_obj = &hdl->obj_handle;
	close(dirfd);
	/* Tests only: the file is made, hold the answer back */
	if (created)
		sparse_test_stall("create", name);
	return status;

out:
	if (created) /* only if name is still the file O_EXCL made */
		sparse_undo_file_create(dirfd, name, fd, hdl);
	if (fd >= 0)
		close(fd);
	if (sfd != NULL && state != NULL)
		(void)sparse_close_func(&hdl->obj_handle, &sfd->fsal_fd);
	if (hdl != NULL)
		hdl->obj_handle.obj_ops->release(&hdl->obj_handle);
	close(dirfd);
	return status;
}

static fsal_openflags_t sparse_status2(struct fsal_obj_handle *obj_hdl,
				       struct state_t *state)
{
	return sparse_state_fd(state)->fsal_fd.openflags;
}

static fsal_status_t sparse_reopen2(struct fsal_obj_handle *obj_hdl,
				    struct state_t *state,
				    fsal_openflags_t openflags)
{
	return sparse_open_by_handle(obj_hdl, state, openflags, FSAL_NO_CREATE,
				     NULL, NULL);
}

static fsal_status_t sparse_close2(struct fsal_obj_handle *obj_hdl,
				   struct state_t *state)
{
	struct sparse_fd *sfd = sparse_state_fd(state);

	if (state->state_type == STATE_TYPE_SHARE ||
	    state->state_type == STATE_TYPE_NLM_SHARE ||
	    state->state_type == STATE_TYPE_9P_FID)
		update_share_counters_locked(obj_hdl,
					     &sparse_hdl(obj_hdl)->share,
					     sfd->fsal_fd.openflags,
					     FSAL_O_CLOSED);
	return close_fsal_fd(obj_hdl, &sfd->fsal_fd, false);
}

static fsal_status_t sparse_merge(struct fsal_obj_handle *orig_hdl,
				  struct fsal_obj_handle *dupe_hdl)
{
	struct sparse_handle *orig = sparse_hdl(orig_hdl);
	struct sparse_handle *dupe = sparse_hdl(dupe_hdl);
	fsal_status_t status;

	if (orig_hdl->type != REGULAR_FILE || dupe_hdl->type != REGULAR_FILE)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);

	/* May wait for I/O; can fail with ERR_FSAL_SHARE_DENIED. */
	status = merge_share(orig_hdl, &orig->share, &dupe->share);
	if (FSAL_IS_ERROR(status))
		return status;

	/* The state the dupe was opened with lives on under orig.  Only the
	 * creating thread knows that state yet, so nothing else uses it
	 * while it moves; the only place two state_fds_locks are held.
	 */
	PTHREAD_MUTEX_lock(&dupe->state_fds_lock);
	PTHREAD_MUTEX_lock(&orig->state_fds_lock);
	glist_splice_tail(&orig->state_fds, &dupe->state_fds);
	PTHREAD_MUTEX_unlock(&orig->state_fds_lock);
	PTHREAD_MUTEX_unlock(&dupe->state_fds_lock);
	return status;
}

/* ---- read / write / commit --------------------------------------------- */

/* True when offset is at or past the end of the file behind fd. */
static bool sparse_at_eof(int fd, uint64_t offset)
{
	struct stat st;

	return fstat(fd, &st) == 0 && offset >= (uint64_t)st.st_size;
}

static void sparse_read2(struct fsal_obj_handle *obj_hdl, bool bypass,
			 fsal_async_cb done_cb, struct fsal_io_arg *read_arg,
			 void *caller_arg)
{
	SPARSE_TMP_FD(tmp);
	struct sparse_fd *sfd;
	fsal_status_t status;
	ssize_t n;

	if (read_arg->info != NULL) {
		/* READ_PLUS goes through the sparse map, not through here. */
		done_cb(obj_hdl, fsalstat(ERR_FSAL_NOTSUPP, 0), read_arg,
			caller_arg);
		return;
	}

	status = sparse_begin_io(obj_hdl, read_arg->state, FSAL_O_READ, bypass,
				 false, &tmp, &sfd);
	if (FSAL_IS_ERROR(status)) {
		done_cb(obj_hdl, status, read_arg, caller_arg);
		return;
	}

	n = preadv(sfd->fd, read_arg->iov, read_arg->iov_count,
		   read_arg->offset);
	if (n < 0) {
		status = posix2fsal_status(errno);
	} else {
		read_arg->io_amount = n;
		read_arg->end_of_file =
			n == 0 ||
			((size_t)n < read_arg->io_request &&
			 sparse_at_eof(sfd->fd, read_arg->offset + n));
	}

	sparse_end_io(obj_hdl, read_arg->state, FSAL_O_READ, sfd);
	done_cb(obj_hdl, status, read_arg, caller_arg);
}

static void sparse_write2(struct fsal_obj_handle *obj_hdl, bool bypass,
			  fsal_async_cb done_cb, struct fsal_io_arg *write_arg,
			  void *caller_arg)
{
	SPARSE_TMP_FD(tmp);
	struct sparse_fd *sfd;
	fsal_status_t status;
	ssize_t n;

	status = sparse_begin_io(obj_hdl, write_arg->state, FSAL_O_WRITE,
				 bypass, false, &tmp, &sfd);
	if (FSAL_IS_ERROR(status)) {
		done_cb(obj_hdl, status, write_arg, caller_arg);
		return;
	}

	/* As the caller: the kernel then clears setuid bits and charges
	 * quota like for a local writer.
	 */
	fsal_set_credentials(&op_ctx->creds);
	n = pwritev(sfd->fd, write_arg->iov, write_arg->iov_count,
		    write_arg->offset);
	if (n < 0)
		status = posix2fsal_status(errno);
	fsal_restore_ganesha_credentials();

	/* (the e2e tests hold one WRITE here: writes_in_flight_mds) */
	sparse_test_stall_ino("write", obj_hdl->fileid);
	if (n >= 0) {
		write_arg->io_amount = n;
		sparse_changed(obj_hdl);
		/* FILE_SYNC/DATA_SYNC: data and metadata on disk now. */
		if (write_arg->fsal_stable && fsync(sfd->fd) != 0) {
			status = posix2fsal_status(errno);
			write_arg->fsal_stable = false;
		}
	}

	sparse_end_io(obj_hdl, write_arg->state, FSAL_O_WRITE, sfd);
	done_cb(obj_hdl, status, write_arg, caller_arg);
}

/*
 * fsync every open state descriptor of the file: the first failure, or
 * success.  Each reports a writeback error it has not reported yet, also one
 * that another descriptor already saw.  The descriptors are dup()ed under
 * state_fds_lock and synced after it is dropped, so an OPEN or CLOSE of the
 * file (which takes the lock under obj_lock) never waits for the fsyncs; a
 * dup shares the open file, and with it the writeback error state.
 */
static fsal_status_t sparse_fsync_state_fds(struct sparse_handle *hdl)
{
	fsal_status_t status = { ERR_FSAL_NO_ERROR, 0 };
	struct glist_head *node;
	int *fds = NULL, n = 0, cap = 0, i;

	PTHREAD_MUTEX_lock(&hdl->state_fds_lock);
	glist_for_each(node, &hdl->state_fds)
	{
		struct sparse_state_fd *sst =
			glist_entry(node, struct sparse_state_fd, fds_link);

		if (n == cap) {
			cap = cap ? 2 * cap : 4;
			fds = gsh_realloc(fds, cap * sizeof(*fds));
		}
		fds[n] = dup(sst->sfd.fd);
		if (fds[n] >= 0)
			n++;
		else if (status.major == ERR_FSAL_NO_ERROR)
			status = fsalstat(ERR_FSAL_IO, errno);
	}
	PTHREAD_MUTEX_unlock(&hdl->state_fds_lock);

	for (i = 0; i < n; i++) {
		fsal_status_t st = sparse_fsync_fd(fds[i], "an open state");

		if (FSAL_IS_ERROR(st) && !FSAL_IS_ERROR(status))
			status = st;
		close(fds[i]);
	}
	gsh_free(fds);
	return status;
}

/*
 * COMMIT has no stateid, so the descriptors WRITEs went through are not
 * known: sync all of the file's open state descriptors, then the global
 * one (stateless WRITEs) or, when it is closed, a temporary one (which
 * still reports an error nobody has seen).
 * Linux reports a writeback error once per open file, and only to files
 * open when it happened, so a temporary descriptor alone would miss an
 * error that a local fsync or an earlier COMMIT already consumed.  Any
 * failure is NFS4ERR_IO, the error RFC 8881 gives COMMIT for it.
 */
static fsal_status_t sparse_commit2(struct fsal_obj_handle *obj_hdl,
				    off_t offset, size_t len)
{
	struct sparse_handle *hdl = sparse_hdl(obj_hdl);
	fsal_status_t status = sparse_fsync_state_fds(hdl), st;
	SPARSE_TMP_FD(tmp);
	struct fsal_fd *out_fd;

	/* Under a write lease any other descriptor would break it: sync
	 * the lease's own (the holder's open file description).
	 */
	tmp.fd = sparse_deleg_write_lease_fd(hdl);
	if (tmp.fd >= 0) {
		st = sparse_fsync_fd(tmp.fd, "a file to COMMIT");
		close(tmp.fd);
		return FSAL_IS_ERROR(status) ? status : st;
	}
	/* Any descriptor will do and no share reservation is involved. */
	st = fsal_start_global_io(&out_fd, obj_hdl, &hdl->gfd.fsal_fd,
				  &tmp.fsal_fd, FSAL_O_ANY, false, NULL);
	if (FSAL_IS_ERROR(st))
		return FSAL_IS_ERROR(status) ? status : st;

	st = sparse_fsync_fd(sparse_fd_of(out_fd)->fd, "a file to COMMIT");
	if (FSAL_IS_ERROR(st) && !FSAL_IS_ERROR(status))
		status = st;

	(void)fsal_complete_io(obj_hdl, out_fd);
	return status;
}

/* ---- sparse read (for READ_PLUS) ---------------------------------------- */

/*
 * A read found end of file at offset: the file was truncated after the map
 * was built, maybe to below holes already mapped.  Cut the map at the size
 * the file has now, offset at most, so that no extent lies past EOF.
 */
static void sparse_map_cut(int fd, struct sparse_map *map, uint64_t offset)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size < offset)
		offset = st.st_size;
	sparse_map_clip(map, offset);
	map->eof = true;
}

/* Read the data extents of map into buf (buf[0] is file offset map->start). */
static fsal_status_t sparse_read_extents(int fd, struct sparse_map *map,
					 char *buf)
{
	size_t i;

	for (i = 0; i < map->count; i++) {
		struct fsal_segment *e = &map->ext[i];
		uint64_t done = 0;

		while (!e->hole && done < e->length) {
			ssize_t n = pread(fd,
					  buf + (e->offset - map->start) + done,
					  e->length - done, e->offset + done);

			if (n < 0)
				return posix2fsal_status(errno);
			if (n == 0) {
				sparse_map_cut(fd, map, e->offset + done);
				return fsalstat(ERR_FSAL_NO_ERROR, 0);
			}
			done += n;
		}
	}
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/*
 * The read_plus slot's work on a descriptor (the MDS path below and the
 * data server's dsh_read_plus_runs): map arg's range, every hole the
 * filesystem reports (which ones are worth a hole segment is the protocol
 * layer's policy), and read the data runs into arg->buf.  A map with more
 * runs than arg has room for is cut after the last one that fits (its
 * data is read all the same; end and eof say where the answer stops).
 */
fsal_status_t sparse_read_plus_fd(int fd, struct fsal_read_plus_arg *arg)
{
	struct sparse_map map;
	fsal_status_t status;
	size_t n;
	int rc;

	sparse_map_init(&map);
	arg->nseg = 0;
	arg->end = arg->offset;
	arg->eof = false;
	rc = sparse_map_build_fd(fd, arg->offset, arg->length, &map);
	if (rc != 0)
		status = posix2fsal_status(-rc);
	else
		status = sparse_read_extents(fd, &map, arg->buf);
	if (FSAL_IS_ERROR(status))
		goto out;

	/* the map's runs are the slot's runs: one type, copied as they are */
	n = map.count < arg->max_seg ? map.count : arg->max_seg;
	if (n > 0) /* (an empty map has no extents at all) */
		memcpy(arg->seg, map.ext, n * sizeof(*arg->seg));
	arg->nseg = n;
	if (n == map.count) {
		arg->end = map.end;
		arg->eof = map.eof;
	} else if (n > 0) {
		arg->end = fsal_segment_end(&arg->seg[n - 1]);
	}
out:
	sparse_map_free(&map);
	return status;
}

/*
 * obj_ops->read_plus: the map and the data under one I/O bracket
 * (sparse_read_plus_fd), with the state's, the global or a temporary
 * descriptor as read2 takes them.
 */
static fsal_status_t sparse_read_plus(struct fsal_obj_handle *obj_hdl,
				      bool bypass,
				      struct fsal_read_plus_arg *arg)
{
	SPARSE_TMP_FD(tmp);
	struct sparse_fd *sfd;
	fsal_status_t status;

	if (obj_hdl->type != REGULAR_FILE)
		return fsalstat(ERR_FSAL_INVAL, EINVAL);

	arg->nseg = 0;
	arg->end = arg->offset;
	arg->eof = false;
	status = sparse_begin_io(obj_hdl, arg->state, FSAL_O_READ, bypass,
				 false, &tmp, &sfd);
	if (FSAL_IS_ERROR(status))
		return status;
	status = sparse_read_plus_fd(sfd->fd, arg);
	sparse_end_io(obj_hdl, arg->state, FSAL_O_READ, sfd);
	return status;
}

/* ---- SEEK / ALLOCATE / DEALLOCATE -------------------------------------- */

/*
 * SEEK answers what lseek(2) answers on the backing file, ENXIO included:
 * an offset at or beyond EOF, and SEEK_DATA with no data at or after the
 * offset (a trailing hole, an all-hole file), are NFS4ERR_NXIO, as knfsd
 * answers.  RFC 7862 15.11.3 also allows NFS4_OK with sr_eof TRUE for the
 * latter; the Linux client maps that to ENXIO too, but a client that
 * reads only sr_offset would see data at EOF (design.md, "SEEK").
 */
static fsal_status_t sparse_seek_fd(int fd, struct io_info *info)
{
	uint64_t offset = info->io_content.hole.di_offset;
	struct stat st;
	off_t found;
	int whence;

	if (info->io_content.what == NFS4_CONTENT_DATA)
		whence = SEEK_DATA;
	else if (info->io_content.what == NFS4_CONTENT_HOLE)
		whence = SEEK_HOLE;
	else
		return fsalstat(ERR_FSAL_UNION_NOTSUPP, 0);

	if (fstat(fd, &st) != 0)
		return posix2fsal_status(errno);
	if (offset >= (uint64_t)st.st_size)
		return fsalstat(ERR_FSAL_NXIO, ENXIO);

	found = lseek(fd, (off_t)offset, whence);
	if (found < 0 && errno == ENXIO) /* no data after offset */
		return fsalstat(ERR_FSAL_NXIO, ENXIO);
	if (found < 0)
		return posix2fsal_status(errno);

	info->io_content.hole.di_offset = found;
	info->io_eof = (uint64_t)found >= (uint64_t)st.st_size;
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

static fsal_status_t sparse_seek2(struct fsal_obj_handle *obj_hdl,
				  struct state_t *state, struct io_info *info)
{
	SPARSE_TMP_FD(tmp);
	struct sparse_fd *sfd;
	fsal_status_t status;

	status = sparse_begin_io(obj_hdl, state, FSAL_O_ANY, true, false, &tmp,
				 &sfd);
	if (FSAL_IS_ERROR(status))
		return status;

	status = sparse_seek_fd(sfd->fd, info);
	sparse_end_io(obj_hdl, state, FSAL_O_ANY, sfd);
	return status;
}

static fsal_status_t sparse_fallocate(struct fsal_obj_handle *obj_hdl,
				      struct state_t *state, uint64_t offset,
				      uint64_t length, bool allocate)
{
	/* ALLOCATE follows fallocate(2) mode 0 (may grow the file);
	 * DEALLOCATE punches a hole and never changes the size.
	 */
	int mode = allocate ? 0 : FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	SPARSE_TMP_FD(tmp);
	struct sparse_fd *sfd;
	fsal_status_t status;
	int rc = 0;

	/* where fallocate answers 0 without reserving (CephFS), an ALLOCATE
	 * would promise writes that can still fail with ENOSPC
	 */
	if (allocate && !sparse_op_export()->reserves_space)
		return fsalstat(ERR_FSAL_NOTSUPP, EOPNOTSUPP);
	if ((int64_t)offset < 0 || (int64_t)length <= 0 ||
	    offset + length < offset || (int64_t)(offset + length) < 0)
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	if (!allocate) {
		/* holes under other clients' layouts (sparse_layouts.c) */
		status = sparse_layouts_conflict(sparse_op_export(),
						 &sparse_hdl(obj_hdl)->fh,
						 SPARSE_LO_ALL, "DEALLOCATE");
		if (FSAL_IS_ERROR(status))
			return status;
	}

	status = sparse_begin_io(obj_hdl, state, FSAL_O_WRITE, false, false,
				 &tmp, &sfd);
	if (FSAL_IS_ERROR(status))
		return status;

	fsal_set_credentials(&op_ctx->creds);
	if (fallocate(sfd->fd, mode, (off_t)offset, (off_t)length) != 0)
		rc = errno;
	fsal_restore_ganesha_credentials();
	if (rc != 0)
		LogDebug(COMPONENT_FSAL,
			 "fallocate(%d, %" PRIu64 ", %" PRIu64 "): %s", mode,
			 offset, length, strerror(rc));
	status = posix2fsal_status(rc);
	if (rc == 0)
		sparse_changed(obj_hdl);
	if (rc == 0)
		status = sparse_sync_changed_fd(
			sfd->fd, allocate ? "an ALLOCATE" : "a DEALLOCATE");

	sparse_end_io(obj_hdl, state, FSAL_O_WRITE, sfd);
	return status;
}

/* ---- CLONE ------------------------------------------------------------- */

/*
 * The engine's errno as the FSAL status CLONE answers: a filesystem that
 * cannot share blocks is NOTSUPP; a misaligned or overlapping range INVAL.
 */
static fsal_status_t sparse_clone_status(int err)
{
	switch (err) {
	case 0:
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	case EOPNOTSUPP:
	case EXDEV:
	case ENOTTY:
		return fsalstat(ERR_FSAL_NOTSUPP, err);
	case EINVAL:
		return fsalstat(ERR_FSAL_INVAL, err);
	default:
		return posix2fsal_status(err);
	}
}

/* FICLONERANGE through the copy engine, as the caller's credentials. */
static int sparse_clone_fds(int src_fd, uint64_t src_offset, int dst_fd,
			    uint64_t dst_offset, uint64_t count)
{
	struct sparse_copy_opts opts = { .mode = SPARSE_COPY_CLONE_ONLY };
	struct sparse_copy_result res;
	int64_t rc;

	fsal_set_credentials(&op_ctx->creds);
	rc = sparse_copy_range(src_fd, src_offset, dst_fd, dst_offset, count,
			       &opts, &res);
	fsal_restore_ganesha_credentials();
	if (rc >= 0)
		sparse_copy_account(sparse_copy_stats(), &res);
	if (rc < 0)
		LogDebug(COMPONENT_FSAL,
			 "clone %" PRIu64 "+%" PRIu64 " to %" PRIu64 ": %s",
			 src_offset, count, dst_offset, strerror((int)-rc));
	return rc < 0 ? (int)-rc : 0;
}

/* Source and destination are one file: one read-write bracket. */
static fsal_status_t sparse_clone_self(struct fsal_obj_handle *obj_hdl,
				       struct state_t *state,
				       uint64_t src_offset, uint64_t dst_offset,
				       uint64_t count)
{
	SPARSE_TMP_FD(tmp);
	struct sparse_fd *sfd;
	fsal_status_t status;
	int rc;

	status = sparse_begin_io(obj_hdl, state, FSAL_O_RDWR, false, false,
				 &tmp, &sfd);
	if (FSAL_IS_ERROR(status))
		return status;
	rc = sparse_clone_fds(sfd->fd, src_offset, sfd->fd, dst_offset, count);
	status = sparse_clone_status(rc);
	if (rc == 0)
		sparse_changed(obj_hdl);
	if (rc == 0)
		status = sparse_sync_changed_fd(sfd->fd, "a CLONE destination");
	sparse_end_io(obj_hdl, state, FSAL_O_RDWR, sfd);
	return status;
}

/* One file of a two-file operation (CLONE, COPY) and its I/O bracket. */
struct sparse_io_side {
	struct fsal_obj_handle *obj;
	struct state_t *state;
	fsal_openflags_t openflags;
	struct sparse_fd tmp;
	struct sparse_fd *sfd;
};

#define SPARSE_IO_SIDE(o, st, fl)                             \
	{                                                     \
		.obj = (o), .state = (st), .openflags = (fl), \
		.tmp = {.fsal_fd = FSAL_FD_INIT,              \
			.fd = -1 }                            \
	}

static fsal_status_t sparse_begin_side(struct sparse_io_side *side)
{
	return sparse_begin_io(side->obj, side->state, side->openflags, false,
			       false, &side->tmp, &side->sfd);
}

static void sparse_end_side(struct sparse_io_side *side)
{
	sparse_end_io(side->obj, side->state, side->openflags, side->sfd);
}

/*
 * Start I/O on two different files, always in the same (address) order:
 * a start can wait for a reopen of its file, which waits for the I/O
 * already started on it, so two operations taking the same two files in
 * opposite orders could wait on each other.
 */
static fsal_status_t sparse_begin_two(struct sparse_io_side *a,
				      struct sparse_io_side *b)
{
	struct sparse_io_side *first = a, *second = b;
	fsal_status_t status;

	if ((uintptr_t)b->obj < (uintptr_t)a->obj) {
		first = b;
		second = a;
	}
	status = sparse_begin_side(first);
	if (FSAL_IS_ERROR(status))
		return status;
	status = sparse_begin_side(second);
	if (FSAL_IS_ERROR(status))
		sparse_end_side(first);
	return status;
}

/*
 * NFSv4.2 CLONE: share [src_offset, + count) of src_hdl (count 0: to its
 * EOF) at dst_offset of dst_hdl.  CLONE's reply has no write verifier, so
 * nothing tells the client to COMMIT: under Durable_Metadata the
 * destination is fsync'ed before the reply.
 */
static fsal_status_t
sparse_clone(struct fsal_obj_handle *src_hdl, struct state_t *src_state,
	     uint64_t src_offset, struct fsal_obj_handle *dst_hdl,
	     struct state_t *dst_state, uint64_t dst_offset, uint64_t count)
{
	struct sparse_io_side src =
		SPARSE_IO_SIDE(src_hdl, src_state, FSAL_O_READ);
	struct sparse_io_side dst =
		SPARSE_IO_SIDE(dst_hdl, dst_state, FSAL_O_WRITE);
	fsal_status_t status;
	int rc;

	/* into a file other clients have layouts of (sparse_layouts.c) */
	status = sparse_layouts_conflict(sparse_op_export(),
					 &sparse_hdl(dst_hdl)->fh,
					 SPARSE_LO_ALL, "CLONE");
	if (FSAL_IS_ERROR(status))
		return status;
	if (src_hdl == dst_hdl)
		return sparse_clone_self(dst_hdl, dst_state, src_offset,
					 dst_offset, count);

	status = sparse_begin_two(&src, &dst);
	if (FSAL_IS_ERROR(status))
		return status;
	rc = sparse_clone_fds(src.sfd->fd, src_offset, dst.sfd->fd, dst_offset,
			      count);
	status = sparse_clone_status(rc);
	if (rc == 0)
		sparse_changed(dst_hdl);
	if (rc == 0)
		status = sparse_sync_changed_fd(dst.sfd->fd,
						"a CLONE destination");
	sparse_end_side(&dst);
	sparse_end_side(&src);
	return status;
}

/* ---- COPY (one piece) --------------------------------------------------- */

/*
 * The engine's errno as the status of obj_ops->copy.  With Copy_Engine =
 * CLONE a range the filesystem cannot clone is declined (NOTSUPP): the
 * protocol layer then copies it with its generic read/write loop.
 */
static fsal_status_t sparse_copy_status(int err, enum sparse_copy_mode mode)
{
	if (err == 0)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	if (mode == SPARSE_COPY_CLONE_ONLY &&
	    (err == EOPNOTSUPP || err == EXDEV || err == ENOTTY ||
	     err == EINVAL))
		return fsalstat(ERR_FSAL_NOTSUPP, err);
	if (err == EINVAL)
		return fsalstat(ERR_FSAL_INVAL, err);
	return posix2fsal_status(err);
}

/* One piece between two open descriptors, as the caller's credentials. */
static fsal_status_t sparse_copy_fds(int src_fd, int dst_fd,
				     struct fsal_copy_arg *arg)
{
	struct sparse_export *exp = sparse_op_export();
	struct sparse_copy_opts opts = {
		.mode = sparse_export_copy_engine(&exp->export),
		.piece = arg->piece,
	};
	struct sparse_copy_result res;
	int64_t rc;

	fsal_set_credentials(&op_ctx->creds);
	rc = sparse_copy_range(src_fd, arg->src_offset, dst_fd, arg->dst_offset,
			       arg->count, &opts, &res);
	fsal_restore_ganesha_credentials();

	sparse_copy_account(sparse_copy_stats(), &res);
	arg->copied = res.bytes;
	arg->eof = res.eof;
	LogDebug(COMPONENT_FSAL,
		 "copy %" PRIu64 "+%" PRIu64 " to %" PRIu64 ": %" PRIu64
		 " bytes by %s%s%s%s",
		 arg->src_offset, arg->count, arg->dst_offset, res.bytes,
		 sparse_copy_path_name(res.path), res.eof ? ", EOF" : "",
		 rc < 0 ? ", " : "", rc < 0 ? strerror((int)-rc) : "");
	return sparse_copy_status(rc < 0 ? (int)-rc : 0, opts.mode);
}

/*
 * NFSv4.2 COPY, one piece (struct fsal_copy_arg): the copy engine between
 * the two files' descriptors, inside both files' I/O brackets (one
 * read-write bracket when they are one file): a clone of the whole rest
 * of the range, or at most arg->piece bytes.  Nothing is synced: the
 * bytes are as durable as after write2 without stability.
 */
static fsal_status_t sparse_copy(struct fsal_obj_handle *src_hdl,
				 struct fsal_obj_handle *dst_hdl,
				 struct fsal_copy_arg *arg)
{
	struct sparse_io_side src =
		SPARSE_IO_SIDE(src_hdl, arg->src_state, FSAL_O_READ);
	struct sparse_io_side dst =
		SPARSE_IO_SIDE(dst_hdl, arg->dst_state, FSAL_O_WRITE);
	fsal_status_t status;

	arg->copied = 0;
	arg->eof = false;
	/* into a file other clients have layouts of (sparse_layouts.c) */
	status = sparse_layouts_conflict(sparse_op_export(),
					 &sparse_hdl(dst_hdl)->fh,
					 SPARSE_LO_ALL, "COPY");
	if (FSAL_IS_ERROR(status))
		return status;
	if (src_hdl == dst_hdl) {
		dst.openflags = FSAL_O_RDWR;
		status = sparse_begin_side(&dst);
		if (FSAL_IS_ERROR(status))
			return status;
		status = sparse_copy_fds(dst.sfd->fd, dst.sfd->fd, arg);
		if (arg->copied > 0)
			sparse_changed(dst_hdl);
		sparse_end_side(&dst);
		return status;
	}

	status = sparse_begin_two(&src, &dst);
	if (FSAL_IS_ERROR(status))
		return status;
	status = sparse_copy_fds(src.sfd->fd, dst.sfd->fd, arg);
	if (arg->copied > 0)
		sparse_changed(dst_hdl);
	sparse_end_side(&dst);
	sparse_end_side(&src);
	return status;
}

/* ---- byte-range locks (OFD: one lock owner per open file description) -- */

static fsal_status_t sparse_lock_args(fsal_lock_op_t lock_op,
				      const fsal_lock_param_t *req,
				      struct flock *fl, int *cmd,
				      fsal_openflags_t *openflags)
{
	memset(fl, 0, sizeof(*fl));
	if (req->lock_type == FSAL_LOCK_R)
		fl->l_type = F_RDLCK;
	else if (req->lock_type == FSAL_LOCK_W)
		fl->l_type = F_WRLCK;
	else
		return fsalstat(ERR_FSAL_NOTSUPP, 0);

	switch (lock_op) {
	case FSAL_OP_LOCKT:
		*cmd = F_OFD_GETLK;
		*openflags = FSAL_O_ANY;
		break;
	case FSAL_OP_LOCK:
		*cmd = F_OFD_SETLK;
		*openflags = req->lock_type == FSAL_LOCK_R ? FSAL_O_READ :
							     FSAL_O_WRITE;
		break;
	case FSAL_OP_UNLOCK:
		*cmd = F_OFD_SETLK;
		*openflags = FSAL_O_ANY;
		fl->l_type = F_UNLCK;
		break;
	default:
		return fsalstat(ERR_FSAL_NOTSUPP, 0);
	}

	fl->l_whence = SEEK_SET;
	fl->l_start = (off_t)req->lock_start;
	fl->l_len = (off_t)req->lock_length; /* 0 = to EOF and beyond */
	if (fl->l_start < 0 || fl->l_len < 0)
		return fsalstat(ERR_FSAL_BAD_RANGE, ERANGE);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

static void sparse_report_conflict(const struct flock *fl,
				   fsal_lock_param_t *conflict)
{
	if (conflict == NULL)
		return;
	if (fl->l_type == F_UNLCK) {
		conflict->lock_type = FSAL_NO_LOCK;
		conflict->lock_start = 0;
		conflict->lock_length = 0;
		return;
	}
	conflict->lock_type = fl->l_type == F_RDLCK ? FSAL_LOCK_R : FSAL_LOCK_W;
	conflict->lock_start = fl->l_start;
	conflict->lock_length = fl->l_len;
}

static fsal_status_t sparse_lock_op2(struct fsal_obj_handle *obj_hdl,
				     struct state_t *state, void *owner,
				     fsal_lock_op_t lock_op,
				     fsal_lock_param_t *request_lock,
				     fsal_lock_param_t *conflicting_lock)
{
	fsal_openflags_t openflags;
	SPARSE_TMP_FD(tmp);
	struct sparse_fd *sfd;
	fsal_status_t status;
	struct flock fl;
	int cmd;

	status = sparse_lock_args(lock_op, request_lock, &fl, &cmd, &openflags);
	if (FSAL_IS_ERROR(status))
		return status;
	if (lock_op != FSAL_OP_LOCKT && state == NULL) {
		LogCrit(COMPONENT_FSAL, "lock/unlock without a state");
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	}

	/* Locks need the state's own descriptor (for_locks), since OFD
	 * locks belong to the open file description.  A test may use any.
	 */
	if (lock_op == FSAL_OP_LOCK)
		sparse_lock_state_fd(sparse_hdl(obj_hdl), state, openflags);
	status = sparse_begin_io(obj_hdl, state, openflags,
				 lock_op == FSAL_OP_LOCKT, true, &tmp, &sfd);
	if (FSAL_IS_ERROR(status))
		return status;

	if (fcntl(sfd->fd, cmd, &fl) == 0) {
		if (lock_op != FSAL_OP_LOCKT)
			fl.l_type = F_UNLCK; /* granted: nobody in the way */
		sparse_report_conflict(&fl, conflicting_lock);
		/* SAL takes "conflict" from the status, not from the lock. */
		if (fl.l_type != F_UNLCK)
			status = fsalstat(ERR_FSAL_DELAY, EAGAIN);
	} else {
		int err = errno;

		status = posix2fsal_status(err);
		LogDebug(COMPONENT_FSAL, "fcntl(lock): %s", strerror(err));
		/* Find out who is in the way for LOCK4denied. */
		if ((err == EAGAIN || err == EACCES) &&
		    conflicting_lock != NULL) {
			struct flock probe = fl;

			if (fcntl(sfd->fd, F_OFD_GETLK, &probe) == 0)
				sparse_report_conflict(&probe,
						       conflicting_lock);
		}
	}

	sparse_end_io(obj_hdl, state, openflags, sfd);
	return status;
}

/* ---- setattr ----------------------------------------------------------- */

static fsal_status_t sparse_truncate(struct fsal_obj_handle *obj_hdl,
				     bool bypass, struct state_t *state,
				     uint64_t size)
{
	SPARSE_TMP_FD(tmp);
	struct sparse_fd *sfd;
	fsal_status_t status;

	if (obj_hdl->type != REGULAR_FILE)
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	if ((off_t)size < 0)
		return fsalstat(ERR_FSAL_FBIG, EFBIG);
	/* other clients' layouts first (sparse_layouts.c) */
	status = sparse_layouts_conflict(sparse_op_export(),
					 &sparse_hdl(obj_hdl)->fh,
					 SPARSE_LO_ALL, "truncate");
	if (FSAL_IS_ERROR(status))
		return status;

	status = sparse_begin_io(obj_hdl, state, FSAL_O_WRITE, bypass, false,
				 &tmp, &sfd);
	if (FSAL_IS_ERROR(status))
		return status;

	/* Growing leaves a hole; shrinking frees the tail.  As the caller,
	 * like a WRITE: the kernel then clears setuid (and setgid with group
	 * execute) for anyone but root, as for a local truncate.  The
	 * descriptor is open for writing, which is all ftruncate checks.
	 */
	fsal_set_credentials(&op_ctx->creds);
	if (ftruncate(sfd->fd, (off_t)size) != 0)
		status = posix2fsal_status(errno);
	fsal_restore_ganesha_credentials();
	if (!FSAL_IS_ERROR(status))
		sparse_changed(obj_hdl);

	sparse_end_io(obj_hdl, state, FSAL_O_WRITE, sfd);
	return status;
}

static void sparse_set_time(struct timespec *ts, attrmask_t mask,
			    attrmask_t server_bit, attrmask_t client_bit,
			    const struct timespec *client_time)
{
	ts->tv_sec = 0;
	if (mask & server_bit)
		ts->tv_nsec = UTIME_NOW;
	else if (mask & client_bit)
		*ts = *client_time;
	else
		ts->tv_nsec = UTIME_OMIT;
}

/* mode, owner/group and times through an O_PATH descriptor. */
static int sparse_set_meta(int fd, object_file_type_t type,
			   const struct fsal_attrlist *set)
{
	attrmask_t mask = set->valid_mask;
	char proc_path[SPARSE_PROC_PATH_LEN];

	sparse_proc_path(fd, proc_path);

	/* Owner before mode: chown clears S_ISUID/S_ISGID, which a mode set
	 * by the same request must keep.
	 */
	if (mask & (ATTR_OWNER | ATTR_GROUP)) {
		uid_t uid = (mask & ATTR_OWNER) ? (uid_t)set->owner : (uid_t)-1;
		gid_t gid = (mask & ATTR_GROUP) ? (gid_t)set->group : (gid_t)-1;

		if (fchownat(fd, "", uid, gid,
			     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) != 0)
			return errno;
	}

	/* chmod on a symlink would follow it; Linux has no symlink modes. */
	if ((mask & ATTR_MODE) && type != SYMBOLIC_LINK &&
	    chmod(proc_path, fsal2unix_mode(set->mode)) != 0)
		return errno;

	/* On the object itself, symlinks included (the /proc path would
	 * follow a symlink).  A kernel whose utimensat lacks AT_EMPTY_PATH
	 * says EINVAL, which is returned rather than ignored.
	 */
	if (mask & ATTRS_SET_TIME) {
		struct timespec ts[2];

		sparse_set_time(&ts[0], mask, ATTR_ATIME_SERVER, ATTR_ATIME,
				&set->atime);
		sparse_set_time(&ts[1], mask, ATTR_MTIME_SERVER, ATTR_MTIME,
				&set->mtime);
		if (utimensat(fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
			return errno;
	}
	return 0;
}

fsal_status_t sparse_setattr2(struct fsal_obj_handle *obj_hdl, bool bypass,
			      struct state_t *state,
			      struct fsal_attrlist *attrib_set)
{
	attrmask_t meta = ATTR_MODE | ATTR_OWNER | ATTR_GROUP | ATTRS_SET_TIME;
	fsal_status_t status = { ERR_FSAL_NO_ERROR, 0 };
	int fd, rc;

	if (FSAL_TEST_MASK(attrib_set->valid_mask, ATTR_MODE))
		attrib_set->mode &= ~op_ctx->fsal_export->exp_ops.fs_umask(
			op_ctx->fsal_export);

	sparse_md_delay(SPARSE_MD_UPDATE);
	if (FSAL_TEST_MASK(attrib_set->valid_mask, ATTR_SIZE)) {
		status = sparse_truncate(obj_hdl, bypass, state,
					 attrib_set->filesize);
		if (FSAL_IS_ERROR(status))
			return status;
	}

	if ((attrib_set->valid_mask & meta) == 0)
		return status;

	fd = sparse_open_fh(sparse_op_export(), &sparse_hdl(obj_hdl)->fh,
			    O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return posix2fsal_status(-fd);
	rc = sparse_set_meta(fd, obj_hdl->type, attrib_set);
	close(fd);
	if (rc == 0)
		sparse_changed(obj_hdl);
	if (rc != 0)
		LogDebug(COMPONENT_FSAL, "setattr: %s", strerror(rc));
	return posix2fsal_status(rc);
}

/* ---- ops vector -------------------------------------------------------- */

void sparse_file_ops_init(struct fsal_obj_ops *ops)
{
	ops->merge = sparse_merge;
	ops->open2 = sparse_open2;
	ops->status2 = sparse_status2;
	ops->reopen2 = sparse_reopen2;
	ops->read2 = sparse_read2;
	ops->write2 = sparse_write2;
	ops->commit2 = sparse_commit2;
	ops->seek2 = sparse_seek2;
	ops->fallocate = sparse_fallocate;
	ops->clone = sparse_clone;
	ops->copy = sparse_copy;
	ops->read_plus = sparse_read_plus;
	sparse_pnfs_obj_ops_init(ops);
	ops->lock_op2 = sparse_lock_op2;
	ops->lease_op2 = sparse_lease_op2;
	ops->setattr2 = sparse_setattr2_durable;
	ops->close = sparse_close;
	ops->close2 = sparse_close2;
	ops->close_func = sparse_close_func;
	ops->reopen_func = sparse_reopen_func;
}
