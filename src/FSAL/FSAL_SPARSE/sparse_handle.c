/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE object handles and namespace operations.
 *
 * Every call opens what it needs from the persistent handle (O_PATH for the
 * parent directory of a namespace change), runs *at() system calls against
 * that descriptor and closes it.  The only lock held around a system call
 * is a directory's change_info stripe (below), across the one *at() call
 * that changes the directory and two fstat()s; everything slow (the
 * metadata latency of tests, the durable syncs, lookups) runs outside it,
 * so operations in the same directory still run in parallel.
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/magic.h>

#include "fsal.h"
#include "fsal_convert.h"
#include "FSAL/fsal_commonlib.h"
#include "FSAL/access_check.h"
#include "sparse_int.h"

/* Room for any kernel file handle. */
union sparse_kfh {
	struct file_handle fh;
	char space[sizeof(struct file_handle) + MAX_HANDLE_SZ];
};

/* ---- handle encoding --------------------------------------------------- */

static void sparse_fh_decode(const struct sparse_fh *fh, union sparse_kfh *k)
{
	size_t n;
	const uint8_t *bytes = sparse_fh_kernel_bytes(fh, &n);

	k->fh.handle_bytes = n;
	k->fh.handle_type = (int)sparse_fh_kernel_type(fh);
	memcpy(k->fh.f_handle, bytes, n);
}

/* Handle of dirfd/name (name "" with AT_EMPTY_PATH: dirfd itself), in
 * exp's filesystem.  Returns 0 or an errno.
 */
int sparse_fh_from_name(struct sparse_export *exp, int dirfd, const char *name,
			int at_flags, struct sparse_fh *fh)
{
	union sparse_kfh k;
	int mnt_id;

	k.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(dirfd, name, &k.fh, &mnt_id, at_flags) != 0)
		return errno;
	if (!sparse_fh_encode((uint32_t)k.fh.handle_type, k.fh.f_handle,
			      k.fh.handle_bytes, exp->fs_ident, fh)) {
		LogCrit(COMPONENT_FSAL,
			"kernel handle of %u bytes does not fit FSAL_SPARSE's %d",
			k.fh.handle_bytes, SPARSE_FH_MAX_KERNEL);
		return EOVERFLOW;
	}
	return 0;
}

/* Open an object from its handle.  Returns an fd or -errno; a handle whose
 * object is gone gives -ESTALE.
 */
int sparse_open_fh(struct sparse_export *exp, const struct sparse_fh *fh,
		   int flags)
{
	union sparse_kfh k;
	int fd;

	sparse_fh_decode(fh, &k);
	fd = sparse_sys_open_by_handle_at(exp->root_fd, &k.fh,
					  flags | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (errno == ENOENT)
		return -ESTALE;
	return -errno;
}

/* ---- attributes -------------------------------------------------------- */

static uint64_t sparse_ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

static uint64_t sparse_change_of(const struct stat *st);

/*
 * Fill attrs from a stat.  The change attribute is ctime in nanoseconds
 * (or mtime when a client pushed mtime ahead of ctime), raised where that
 * would not show a change made through the server or would go back below
 * a value reported (sparse_change.h): the kernel bumps ctime on every data
 * and metadata change, but only to the clock tick on ext4/XFS before Linux
 * 6.13, and tmpfs gives a directory a removed file's time.
 */
void sparse_stat_to_attrs(struct sparse_export *exp, const struct stat *st,
			  struct fsal_attrlist *attrs)
{
	attrs->valid_mask |= ATTRS_POSIX | ATTR4_CLONE_BLKSIZE;
	attrs->supported = ATTRS_POSIX | ATTR4_CLONE_BLKSIZE;
	attrs->clone_blksize = exp->clone_blksize;
	attrs->type = posix2fsal_type(st->st_mode);
	attrs->filesize = st->st_size;
	attrs->fsid = exp->fsid;
	attrs->fileid = st->st_ino;
	attrs->mode = unix2fsal_mode(st->st_mode);
	attrs->numlinks = st->st_nlink;
	attrs->owner = st->st_uid;
	attrs->group = st->st_gid;
	attrs->atime = st->st_atim;
	attrs->mtime = st->st_mtim;
	attrs->ctime = st->st_ctim;
	attrs->change = sparse_change_report(st->st_dev, st->st_ino,
					     sparse_change_of(st));
	attrs->spaceused = (uint64_t)st->st_blocks * 512;
	attrs->rawdev.major = major(st->st_rdev);
	attrs->rawdev.minor = minor(st->st_rdev);
}

/* ---- change_info4 of directory updates ----------------------------------
 *
 * RFC 8881 3.3.6 (change_info4): "atomic" says that before and after
 * bracket this one change; a client may then keep its cache of the
 * directory, updating only its change attribute.  Without it the Linux
 * client drops its access cache and revalidates every name in the
 * directory after each create or remove (tar -x cost an ACCESS per entry).
 * Namespace updates through this FSAL in one directory take that
 * directory's stripe of sparse_dir_locks around the *at() call and the two
 * fstat()s.  Locking rule: a stripe is held only across those calls (no
 * I/O wait beyond the call itself, no other lock taken inside; rename
 * takes its two stripes in address order).  A change made directly on the
 * backing filesystem meanwhile is not seen: the reply then claims an
 * atomicity it does not have and the client's cache of that directory
 * stays stale until its attribute timeout, as for any local change.
 */
#define SPARSE_DIR_LOCKS 64
static pthread_mutex_t sparse_dir_locks[SPARSE_DIR_LOCKS] = {
	[0 ... SPARSE_DIR_LOCKS - 1] = PTHREAD_MUTEX_INITIALIZER
};

static uint64_t sparse_change_of(const struct stat *st)
{
	uint64_t ctime_ns = sparse_ts_ns(&st->st_ctim);
	uint64_t mtime_ns = sparse_ts_ns(&st->st_mtim);

	return ctime_ns > mtime_ns ? ctime_ns : mtime_ns;
}

static pthread_mutex_t *sparse_dir_lock_of(const struct stat *st)
{
	uint64_t h = (uint64_t)st->st_ino * 0x9E3779B97F4A7C15ULL ^ st->st_dev;

	return &sparse_dir_locks[(h >> 32) % SPARSE_DIR_LOCKS];
}

/* fstat dirfd into attrs' change attribute; false if it cannot */
static bool sparse_dir_change_read(int dirfd, struct fsal_attrlist *attrs,
				   struct stat *st)
{
	if (fstat(dirfd, st) != 0)
		return false;
	if (attrs != NULL) {
		attrs->change = sparse_change_report(st->st_dev, st->st_ino,
						     sparse_change_of(st));
		FSAL_SET_MASK(attrs->valid_mask, ATTR_CHANGE);
	}
	return true;
}

void sparse_dir_change_begin(struct sparse_dir_change *dc, int dirfd,
			     struct fsal_attrlist *pre,
			     struct fsal_attrlist *post)
{
	struct stat st;

	dc->dirfd = dirfd;
	dc->active = false;
	dc->lock = NULL;
	dc->post = post;
	if (pre == NULL || post == NULL || fstat(dirfd, &st) != 0)
		return;
	dc->lock = sparse_dir_lock_of(&st);
	dc->active = true;
	PTHREAD_MUTEX_lock(dc->lock);
	if (!sparse_dir_change_read(dirfd, pre, &st))
		FSAL_UNSET_MASK(pre->valid_mask, ATTR_CHANGE);
}

void sparse_dir_change_end(struct sparse_dir_change *dc)
{
	struct stat st;

	if (!dc->active)
		return;
	sparse_dir_change_read(dc->dirfd, dc->post, &st);
	if (dc->lock != NULL)
		PTHREAD_MUTEX_unlock(dc->lock);
	dc->active = false;
	dc->lock = NULL;
}

/* Report an attribute fetch error the way the caller asked for. */
static void sparse_attrs_error(struct fsal_attrlist *attrs)
{
	if (attrs != NULL && (attrs->request_mask & ATTR_RDATTR_ERR))
		attrs->valid_mask = ATTR_RDATTR_ERR;
}

fsal_status_t sparse_fstat_obj(struct sparse_handle *hdl, struct stat *st)
{
	int fd, rc = 0;

	fd = sparse_open_fh(sparse_op_export(), &hdl->fh, O_PATH);
	if (fd < 0)
		return posix2fsal_status(-fd);

	sparse_md_delay(SPARSE_MD_READ);
	if (fstat(fd, st) != 0)
		rc = errno;
	close(fd);
	return posix2fsal_status(rc);
}

fsal_status_t sparse_getattrs(struct fsal_obj_handle *obj_hdl,
			      struct fsal_attrlist *attrs)
{
	struct stat st;
	fsal_status_t status;

	status = sparse_fstat_obj(sparse_hdl(obj_hdl), &st);
	if (FSAL_IS_ERROR(status)) {
		LogDebug(COMPONENT_FSAL, "getattrs failed: %s",
			 fsal_err_txt(status));
		sparse_attrs_error(attrs);
		return status;
	}
	sparse_stat_to_attrs(sparse_op_export(), &st, attrs);
	/* Tests only: hold these (soon stale) attributes back */
	sparse_test_stall_ino("getattrs", st.st_ino);
	return status;
}

/* ---- handle life cycle ------------------------------------------------- */

struct sparse_handle *sparse_alloc_handle(struct sparse_export *exp,
					  const struct sparse_fh *fh,
					  const struct stat *st)
{
	struct sparse_handle *hdl = gsh_calloc(1, sizeof(*hdl));
	object_file_type_t type = posix2fsal_type(st->st_mode);

	hdl->fh = *fh;
	/* Not on the FSAL-wide handle list: that list has a global lock and
	 * MDCACHE already owns every handle's life cycle.
	 */
	fsal_obj_handle_init(&hdl->obj_handle, &exp->export, type, false);
	hdl->obj_handle.fsid = exp->fsid;
	hdl->obj_handle.fileid = st->st_ino;
	hdl->obj_handle.obj_ops = &SparseModule.handle_ops;
	hdl->gfd.fd = -1;
	if (type == REGULAR_FILE) {
		init_fsal_fd(&hdl->gfd.fsal_fd, FSAL_FD_GLOBAL, &exp->export);
		PTHREAD_MUTEX_init(&hdl->state_fds_lock, NULL);
		glist_init(&hdl->state_fds);
	}
	return hdl;
}

static void sparse_release(struct fsal_obj_handle *obj_hdl)
{
	struct sparse_handle *hdl = sparse_hdl(obj_hdl);

	if (obj_hdl->type == REGULAR_FILE) {
		fsal_status_t st = sparse_close_global(hdl);

		if (FSAL_IS_ERROR(st) && st.major != ERR_FSAL_NOT_OPENED)
			LogCrit(COMPONENT_FSAL,
				"closing global fd of %p failed: %s", hdl,
				fsal_err_txt(st));
		destroy_fsal_fd(&hdl->gfd.fsal_fd);
		PTHREAD_MUTEX_destroy(&hdl->state_fds_lock);
	}
	fsal_obj_handle_fini(obj_hdl, false);
	gsh_free(hdl);
}

/* The export a handle is given out through: the request's, which for a
 * cache entry shared by several exports of one filesystem is the one asked.
 */
static struct sparse_export *sparse_wire_export(void)
{
	struct fsal_export *exp = op_ctx ? op_ctx->fsal_export : NULL;

	if (exp == NULL || exp->fsal != &SparseModule.fsal)
		return NULL;
	return sparse_exp(exp);
}

static fsal_status_t sparse_handle_to_wire(const struct fsal_obj_handle *obj,
					   fsal_digesttype_t output_type,
					   struct gsh_buffdesc *fh_desc)
{
	const struct sparse_handle *hdl =
		container_of(obj, struct sparse_handle, obj_handle);
	struct sparse_export *exp = sparse_wire_export();
	uint8_t wire[SPARSE_FH_MAX_LEN]; /* either form fits */
	size_t len;

	switch (output_type) {
	case FSAL_DIGEST_NFSV3:
	case FSAL_DIGEST_NFSV4:
		break;
	default:
		return fsalstat(ERR_FSAL_SERVERFAULT, 0);
	}
	if (exp == NULL) {
		LogCrit(COMPONENT_FSAL, "handle_to_wire outside an export");
		return fsalstat(ERR_FSAL_SERVERFAULT, 0);
	}
	if (exp->compact_handles)
		len = sparse_fh_to_wire(&hdl->fh, exp->handle_key, wire);
	else
		len = sparse_fh_to_wire_v2(&hdl->fh, exp->handle_key, wire);
	if (fh_desc->len < len) {
		LogMajor(COMPONENT_FSAL,
			 "handle buffer too small: need %zu, have %zu", len,
			 fh_desc->len);
		return fsalstat(ERR_FSAL_TOOSMALL, 0);
	}
	memcpy(fh_desc->addr, wire, len);
	fh_desc->len = len;
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* The MDCACHE key is the key form: filesystem identity + kernel handle, the
 * same for every export of one filesystem, so they share one cache entry
 * (and one set of share counters) per object.
 */
static void sparse_handle_to_key(struct fsal_obj_handle *obj_hdl,
				 struct gsh_buffdesc *fh_desc)
{
	struct sparse_handle *hdl = sparse_hdl(obj_hdl);

	fh_desc->addr = hdl->fh.bytes;
	fh_desc->len = hdl->fh.len;
}

/* ---- names ------------------------------------------------------------- */

fsal_status_t sparse_check_name(const char *name)
{
	if (sparse_name_is_component(name))
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	/* Ganesha filters NFSv4 names, and NFSv3 names since patch 0100:
	 * whatever comes here by another way stops here.
	 */
	LogInfo(COMPONENT_FSAL, "FSAL_SPARSE refused the name \"%s\"",
		name ? name : "(null)");
	if (name != NULL && strchr(name, '/') == NULL && name[0] != '\0' &&
	    strlen(name) > NAME_MAX)
		return fsalstat(ERR_FSAL_NAMETOOLONG, ENAMETOOLONG);
	if (name != NULL && (!strcmp(name, ".") || !strcmp(name, "..")))
		return fsalstat(ERR_FSAL_INVAL, EINVAL);
	return fsalstat(ERR_FSAL_ACCESS, EACCES);
}

/* ---- lookup ------------------------------------------------------------ */

/*
 * Build a handle for the object open (O_PATH) on fd, which must lie on
 * the export's filesystem.  name is for messages.
 */
static fsal_status_t sparse_handle_of_fd(struct sparse_export *exp, int fd,
					 const char *name,
					 struct sparse_handle **out,
					 struct fsal_attrlist *attrs_out)
{
	struct sparse_fh fh;
	struct stat st;
	int rc;

	if (fstat(fd, &st) != 0)
		return posix2fsal_status(errno);
	if (st.st_dev != exp->root_dev) {
		LogDebug(COMPONENT_FSAL,
			 "%s is on another filesystem, not served", name);
		return fsalstat(ERR_FSAL_XDEV, EXDEV);
	}
	rc = sparse_fh_from_name(exp, fd, "", AT_EMPTY_PATH, &fh);
	if (rc != 0)
		return posix2fsal_status(rc);

	*out = sparse_alloc_handle(exp, &fh, &st);
	if (attrs_out != NULL)
		sparse_stat_to_attrs(exp, &st, attrs_out);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/*
 * Build a handle for dirfd/name.  The object is opened O_PATH first so the
 * handle and the attributes describe the same inode even if the name is
 * being replaced concurrently; the open never follows a symbolic link,
 * never leaves dirfd and never crosses a mount point (sparse_open_beneath:
 * a name that is a mount point, bind mounts of the export's own
 * filesystem included, is ERR_FSAL_XDEV).
 */
static fsal_status_t sparse_lookup_at(struct sparse_export *exp, int dirfd,
				      const char *name,
				      struct sparse_handle **out,
				      struct fsal_attrlist *attrs_out)
{
	fsal_status_t status;
	int fd;

	sparse_md_delay(SPARSE_MD_READ);
	fd = sparse_open_beneath(dirfd, name, 0);
	if (fd < 0) {
		if (errno == EXDEV)
			LogDebug(COMPONENT_FSAL,
				 "%s is a mount point, not crossed", name);
		return posix2fsal_status(errno);
	}
	status = sparse_handle_of_fd(exp, fd, name, out, attrs_out);
	close(fd);
	return status;
}

/*
 * Is the directory open on fd still inside the export?  A directory moved
 * out (by a local process) after its handle was cached would otherwise
 * go on serving names below it: lookups, readdir and namespace changes in
 * it are refused (ERR_FSAL_STALE).  The kernel knows a directory's path,
 * so this costs two readlinks of /proc/self/fd.
 */
static fsal_status_t sparse_dir_confined(struct sparse_export *exp, int fd)
{
	struct stat st;
	int inside;

	if (sparse_test_skip_confinement(&exp->test))
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	if (fstat(fd, &st) != 0)
		return posix2fsal_status(errno);
	inside = sparse_confine_check(&exp->confine, fd, &st);
	if (inside == 1)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	LogInfo(COMPONENT_FSAL,
		"export %s: directory %llu is no longer inside it: %s",
		exp->root_path, (unsigned long long)st.st_ino,
		inside == 0 ? "refused" : strerror(-inside));
	return fsalstat(ERR_FSAL_STALE, ESTALE);
}

/* Open the descriptor of a directory handle (flags: O_PATH, or O_RDONLY
 * for reading it), checked to be still inside the export.
 */
fsal_status_t sparse_open_dir(struct fsal_obj_handle *dir_hdl, int flags,
			      int *fd)
{
	struct sparse_export *exp = sparse_op_export();
	fsal_status_t status;

	if (dir_hdl->type != DIRECTORY)
		return fsalstat(ERR_FSAL_NOTDIR, 0);

	*fd = sparse_open_fh(exp, &sparse_hdl(dir_hdl)->fh, flags);
	if (*fd < 0)
		return posix2fsal_status(-*fd);
	status = sparse_dir_confined(exp, *fd);
	if (FSAL_IS_ERROR(status)) {
		close(*fd);
		*fd = -1;
	}
	return status;
}

/*
 * ".." of dirfd, which MDCACHE asks for to learn a directory's parent.
 * The protocol layers never ask for the parent of an export root (NFSv3
 * answers the root itself, NFSv4 goes to the pseudo filesystem), so for
 * the root of this export there is no answer (ERR_FSAL_NOENT) rather than
 * a handle of a directory outside it.  Not the root itself either: MDCACHE
 * keeps the parent in the directory's cache entry, which every export of
 * the filesystem shares, and a directory that is this export's root can
 * lie inside another export, whose LOOKUPP must reach its real parent.
 */
static fsal_status_t sparse_lookup_parent(struct sparse_export *exp, int dirfd,
					  struct sparse_handle **out,
					  struct fsal_attrlist *attrs_out)
{
	fsal_status_t status;
	struct stat st;
	int fd;

	sparse_md_delay(SPARSE_MD_READ);
	if (fstat(dirfd, &st) != 0)
		return posix2fsal_status(errno);
	if (sparse_confine_is_root(&exp->confine, &st))
		return fsalstat(ERR_FSAL_NOENT, ENOENT);

	fd = sparse_open_parent(dirfd);
	if (fd < 0)
		return posix2fsal_status(errno);
	status = sparse_dir_confined(exp, fd);
	if (!FSAL_IS_ERROR(status))
		status = sparse_handle_of_fd(exp, fd, "..", out, attrs_out);
	close(fd);
	return status;
}

static fsal_status_t sparse_lookup(struct fsal_obj_handle *parent,
				   const char *path,
				   struct fsal_obj_handle **handle,
				   struct fsal_attrlist *attrs_out)
{
	struct sparse_export *exp = sparse_op_export();
	struct sparse_handle *hdl = NULL;
	bool up = path != NULL && strcmp(path, "..") == 0;
	fsal_status_t status;
	int dirfd;

	*handle = NULL;
	if (!up) {
		status = sparse_check_name(path);
		if (FSAL_IS_ERROR(status))
			return status;
	}
	status = sparse_open_dir(parent, O_PATH, &dirfd);
	if (FSAL_IS_ERROR(status))
		return status;

	if (up)
		status = sparse_lookup_parent(exp, dirfd, &hdl, attrs_out);
	else
		status = sparse_lookup_at(exp, dirfd, path, &hdl, attrs_out);
	close(dirfd);
	if (!FSAL_IS_ERROR(status)) {
		*handle = &hdl->obj_handle;
		sparse_test_lookup_done(parent, path);
	}
	return status;
}

/* ---- readdir ----------------------------------------------------------- */

#define SPARSE_DIRBUF_SIZE 8192

static bool sparse_is_dot_or_dotdot(const char *name)
{
	return name[0] == '.' &&
	       (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* Hand one entry to the caller.  *stop is set when the caller wants no
 * more.  Entries that vanished or live on another filesystem are skipped.
 */
static fsal_status_t sparse_emit_dirent(int dirfd, const struct dirent64 *de,
					fsal_readdir_cb cb, void *dir_state,
					attrmask_t attrmask, bool *stop)
{
	struct sparse_handle *hdl = NULL;
	struct fsal_attrlist attrs;
	enum fsal_dir_result rc;
	fsal_status_t status;

	fsal_prepare_attrs(&attrs, attrmask);
	status = sparse_lookup_at(sparse_op_export(), dirfd, de->d_name, &hdl,
				  &attrs);
	if (FSAL_IS_ERROR(status)) {
		fsal_release_attrs(&attrs);
		if (status.major == ERR_FSAL_NOENT ||
		    status.major == ERR_FSAL_XDEV) {
			LogDebug(COMPONENT_FSAL, "readdir skips %s: %s",
				 de->d_name, fsal_err_txt(status));
			return fsalstat(ERR_FSAL_NO_ERROR, 0);
		}
		return status;
	}

	/* d_off is the position just after this entry: seeking there later
	 * resumes with the next entry, which is what the cookie means.
	 */
	rc = cb(de->d_name, &hdl->obj_handle, &attrs, dir_state,
		(fsal_cookie_t)de->d_off);
	fsal_release_attrs(&attrs);
	*stop = rc >= DIR_READAHEAD;
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* The first entry of dirfd's directory other than "." and "..", read
 * through a descriptor of its own; false when it has none.
 */
static bool sparse_first_entry(int dirfd, char *buf, ino_t *ino,
			       char name[NAME_MAX + 1])
{
	int fd = sparse_sys_openat(dirfd, ".",
				   O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	bool found = false;
	ssize_t n, pos;

	if (fd < 0)
		return false;
	while (!found && (n = getdents64(fd, buf, SPARSE_DIRBUF_SIZE)) > 0) {
		for (pos = 0; pos < n && !found;) {
			struct dirent64 *de = (struct dirent64 *)(buf + pos);

			pos += de->d_reclen;
			if (sparse_is_dot_or_dotdot(de->d_name))
				continue;
			*ino = de->d_ino;
			(void)snprintf(name, NAME_MAX + 1, "%s", de->d_name);
			found = true;
		}
	}
	close(fd);
	return found;
}

/*
 * tmpfs (Linux 6.18 here) answers a seek to a position after which no
 * entry is left (they were removed since the client got the cookie) by
 * listing the directory from its first entry again: a client resuming
 * there would read the same entries for ever.  The first entry of a
 * resumed listing cannot be the directory's first (its cookie would be
 * that of "..", which is never given out), so when it is, the listing
 * has started over and nothing is left after the cookie.  Only tmpfs does
 * this; the check costs a second getdents there.
 */
static bool sparse_listing_restarted(int dirfd, const struct dirent64 *de)
{
	char name[NAME_MAX + 1];
	char *buf = gsh_malloc(SPARSE_DIRBUF_SIZE);
	bool restarted;
	ino_t ino;

	restarted = sparse_first_entry(dirfd, buf, &ino, name) &&
		    ino == de->d_ino && strcmp(name, de->d_name) == 0;
	gsh_free(buf);
	if (restarted)
		LogDebug(COMPONENT_FSAL,
			 "readdir: the listing started over at %s: end", name);
	return restarted;
}

static fsal_status_t sparse_readdir(struct fsal_obj_handle *dir_hdl,
				    fsal_cookie_t *whence, void *dir_state,
				    fsal_readdir_cb cb, attrmask_t attrmask,
				    bool *eof)
{
	/* whether the first entry read must be checked for a restart */
	bool check_restart = whence != NULL && *whence != 0 &&
			     sparse_op_export()->fs_type == TMPFS_MAGIC;
	char *buf = NULL;
	fsal_status_t status;
	bool stop = false;
	ssize_t nread;
	int dirfd;

	*eof = false;
	status = sparse_open_dir(dir_hdl, O_RDONLY | O_DIRECTORY, &dirfd);
	if (FSAL_IS_ERROR(status))
		return status;

	if (whence != NULL && *whence != 0 &&
	    lseek(dirfd, (off_t)*whence, SEEK_SET) < 0) {
		status = posix2fsal_status(errno);
		goto out;
	}

	buf = gsh_malloc(SPARSE_DIRBUF_SIZE);
	while (!stop) {
		size_t pos;

		sparse_md_delay(SPARSE_MD_READ);
		nread = getdents64(dirfd, buf, SPARSE_DIRBUF_SIZE);
		if (nread < 0) {
			status = posix2fsal_status(errno);
			goto out;
		}
		if (nread == 0) {
			*eof = true;
			break;
		}
		for (pos = 0; pos < (size_t)nread && !stop;) {
			struct dirent64 *de = (struct dirent64 *)(buf + pos);

			pos += de->d_reclen;
			if (sparse_is_dot_or_dotdot(de->d_name))
				continue;
			if (check_restart) {
				check_restart = false;
				if (sparse_listing_restarted(dirfd, de)) {
					*eof = true;
					goto done;
				}
			}
			status = sparse_emit_dirent(dirfd, de, cb, dir_state,
						    attrmask, &stop);
			if (FSAL_IS_ERROR(status))
				goto out;
		}
	}
done:
	status = fsalstat(ERR_FSAL_NO_ERROR, 0);
out:
	gsh_free(buf);
	close(dirfd);
	return status;
}

/* ---- creation helpers -------------------------------------------------- */

/* Run namespace-changing syscalls as the caller so the kernel applies its
 * permission checks and new objects get the caller's ownership.
 */
static void sparse_become_caller(void)
{
	fsal_set_credentials(&op_ctx->creds);
}

static void sparse_become_server(void)
{
	fsal_restore_ganesha_credentials();
}

static mode_t sparse_create_mode(struct fsal_attrlist *attrib)
{
	return fsal2unix_mode(attrib->mode) &
	       ~op_ctx->fsal_export->exp_ops.fs_umask(op_ctx->fsal_export);
}

/*
 * Give a new object the owner/group its creator asked for, as the caller:
 * Ganesha checks these only for SETATTR, so the kernel must refuse a
 * give-away here (EPERM) as it would for a local chown.  The chown clears
 * the setuid/setgid bits of a non-directory; the ones the create gave it
 * (after the kernel's own checks) are put back.  Clears owner/group from
 * attrib.
 */
fsal_status_t sparse_chown_new(struct sparse_handle *hdl,
			       struct fsal_attrlist *attrib)
{
	attrmask_t mask = attrib->valid_mask;
	uid_t uid = (mask & ATTR_OWNER) ? (uid_t)attrib->owner : (uid_t)-1;
	gid_t gid = (mask & ATTR_GROUP) ? (gid_t)attrib->group : (gid_t)-1;
	char proc_path[SPARSE_PROC_PATH_LEN];
	int fd, rc = 0;
	struct stat st;

	if ((mask & (ATTR_OWNER | ATTR_GROUP)) == 0)
		return fsalstat(ERR_FSAL_NO_ERROR, 0);

	fd = sparse_open_fh(sparse_op_export(), &hdl->fh, O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return posix2fsal_status(-fd);
	sparse_md_delay(SPARSE_MD_UPDATE);
	if (fstat(fd, &st) != 0)
		rc = errno;
	sparse_become_caller();
	if (rc == 0 &&
	    fchownat(fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW))
		rc = errno;
	sparse_become_server();
	sparse_proc_path(fd, proc_path);
	if (rc == 0 && !S_ISDIR(st.st_mode) &&
	    (st.st_mode & (S_ISUID | S_ISGID)) != 0 &&
	    chmod(proc_path, st.st_mode & 07777) != 0)
		rc = errno;
	close(fd);
	FSAL_UNSET_MASK(attrib->valid_mask, ATTR_OWNER | ATTR_GROUP);
	if (rc != 0)
		LogDebug(COMPONENT_FSAL, "owner of new object: %s",
			 strerror(rc));
	return posix2fsal_status(rc);
}

/*
 * Undo a create whose follow-up failed: remove dirfd/name, but only while
 * it still names the object made (handle `made`; NULL when the create
 * could not tell what it made, and then nothing is removed).  Whatever
 * was renamed over the name meanwhile survives.  Linux has no "unlink if
 * it is this inode": a replacement between the check and unlinkat() is
 * still removed, so the window is narrowed to two system calls, not closed.
 */
void sparse_undo_create(int dirfd, const char *name, bool is_dir,
			const struct sparse_fh *made)
{
	struct sparse_export *exp = sparse_op_export();
	struct sparse_fh now;
	int rc = EINVAL;

	if (made != NULL)
		rc = sparse_fh_from_name(exp, dirfd, name, 0, &now);

	if (rc == 0 && (now.len != made->len ||
			memcmp(now.bytes, made->bytes, made->len) != 0))
		rc = ESTALE; /* another object has the name now */
	if (rc == 0 && unlinkat(dirfd, name, is_dir ? AT_REMOVEDIR : 0) != 0)
		rc = errno;
	if (rc != 0)
		LogInfo(COMPONENT_FSAL, "failed create of %s not undone: %s",
			name, strerror(rc));
}

/*
 * Common tail of mkdir/mknod/symlink: get the new object's handle, apply
 * the attributes the create call could not (the mode was already used),
 * fetch the attributes asked for and, with Durable_Metadata, sync the new
 * object and dir_hdl.  On failure (a failed sync too) the new object is
 * removed.  The object is identified by a lookup right after the create
 * (mkdirat and friends return no descriptor): something renamed over the
 * name between the two is taken for the new object.
 */
static fsal_status_t sparse_finish_create(struct fsal_obj_handle *dir_hdl,
					  int dirfd, const char *name,
					  bool is_dir,
					  struct fsal_attrlist *attrib,
					  struct fsal_obj_handle **handle,
					  struct fsal_attrlist *attrs_out)
{
	struct sparse_handle *hdl = NULL;
	fsal_status_t status;
	bool applied;

	status = sparse_lookup_at(sparse_op_export(), dirfd, name, &hdl,
				  attrs_out);
	if (FSAL_IS_ERROR(status)) {
		/* Nothing tells what has the name now: leave it alone. */
		sparse_undo_create(dirfd, name, is_dir, NULL);
		return status;
	}
	*handle = &hdl->obj_handle;

	FSAL_UNSET_MASK(attrib->valid_mask, ATTR_MODE);
	applied = attrib->valid_mask != 0;
	if (applied)
		status = sparse_chown_new(hdl, attrib);
	if (!FSAL_IS_ERROR(status) && attrib->valid_mask != 0)
		status = sparse_setattr2(*handle, false, NULL, attrib);
	if (applied && !FSAL_IS_ERROR(status) && attrs_out != NULL)
		status = sparse_getattrs(*handle, attrs_out);
	if (!FSAL_IS_ERROR(status))
		status = sparse_sync_created(dir_hdl, *handle, applied);
	if (!FSAL_IS_ERROR(status))
		return status;

	sparse_undo_create(dirfd, name, is_dir, &hdl->fh);
	(*handle)->obj_ops->release(*handle);
	*handle = NULL;
	return status;
}

/* What sparse_make_object() creates: one *at() call's arguments. */
struct sparse_new_object {
	object_file_type_t type; /* DIRECTORY, SYMBOLIC_LINK or a node */
	mode_t mode; /* with the S_IF* bits for mknodat */
	dev_t dev; /* block and character devices */
	const char *target; /* symbolic links */
};

/* The *at() call for obj in dirfd; 0 or an errno. */
static int sparse_make_at(int dirfd, const char *name,
			  const struct sparse_new_object *obj)
{
	int rc;

	switch (obj->type) {
	case DIRECTORY:
		rc = mkdirat(dirfd, name, obj->mode);
		break;
	case SYMBOLIC_LINK:
		rc = symlinkat(obj->target, dirfd, name);
		break;
	default:
		rc = mknodat(dirfd, name, obj->mode, obj->dev);
		break;
	}
	return rc != 0 ? errno : 0;
}

/*
 * Create obj as name in dir_hdl with the caller's credentials (so the
 * kernel checks permissions and the object gets the caller's ownership),
 * then apply the remaining attributes and make its handle.
 */
static fsal_status_t sparse_make_object(
	struct fsal_obj_handle *dir_hdl, const char *name,
	const struct sparse_new_object *obj, struct fsal_attrlist *attrib,
	struct fsal_obj_handle **handle, struct fsal_attrlist *attrs_out,
	struct fsal_attrlist *pre, struct fsal_attrlist *post)
{
	struct sparse_dir_change dc;
	fsal_status_t status;
	int dirfd, rc;

	*handle = NULL;
	status = sparse_check_name(name);
	if (FSAL_IS_ERROR(status))
		return status;
	status = sparse_open_dir(dir_hdl, O_PATH, &dirfd);
	if (FSAL_IS_ERROR(status))
		return status;

	sparse_md_delay(SPARSE_MD_UPDATE);
	sparse_dir_change_begin(&dc, dirfd, pre, post);
	sparse_become_caller();
	rc = sparse_make_at(dirfd, name, obj);
	if (rc == 0)
		sparse_changed(dir_hdl);
	sparse_become_server();
	sparse_dir_change_end(&dc);

	if (rc != 0)
		status = posix2fsal_status(rc);
	else
		status = sparse_finish_create(dir_hdl, dirfd, name,
					      obj->type == DIRECTORY, attrib,
					      handle, attrs_out);
	close(dirfd);
	return status;
}

static fsal_status_t sparse_mkdir(struct fsal_obj_handle *dir_hdl,
				  const char *name,
				  struct fsal_attrlist *attrib,
				  struct fsal_obj_handle **handle,
				  struct fsal_attrlist *attrs_out,
				  struct fsal_attrlist *parent_pre_attrs_out,
				  struct fsal_attrlist *parent_post_attrs_out)
{
	struct sparse_new_object obj = {
		.type = DIRECTORY,
		.mode = sparse_create_mode(attrib),
	};
	fsal_status_t status;

	status = sparse_make_object(dir_hdl, name, &obj, attrib, handle,
				    attrs_out, parent_pre_attrs_out,
				    parent_post_attrs_out);
	/* Tests only: the directory is made, hold the answer back */
	if (!FSAL_IS_ERROR(status))
		sparse_test_stall("mkdir", name);
	return status;
}

static fsal_status_t
sparse_mknode(struct fsal_obj_handle *dir_hdl, const char *name,
	      object_file_type_t nodetype, struct fsal_attrlist *attrib,
	      struct fsal_obj_handle **handle, struct fsal_attrlist *attrs_out,
	      struct fsal_attrlist *parent_pre_attrs_out,
	      struct fsal_attrlist *parent_post_attrs_out)
{
	struct sparse_new_object obj = {
		.type = nodetype,
		.mode = sparse_create_mode(attrib),
	};

	*handle = NULL;
	switch (nodetype) {
	case BLOCK_FILE:
		obj.mode |= S_IFBLK;
		obj.dev = makedev(attrib->rawdev.major, attrib->rawdev.minor);
		break;
	case CHARACTER_FILE:
		obj.mode |= S_IFCHR;
		obj.dev = makedev(attrib->rawdev.major, attrib->rawdev.minor);
		break;
	case FIFO_FILE:
		obj.mode |= S_IFIFO;
		break;
	case SOCKET_FILE:
		obj.mode |= S_IFSOCK;
		break;
	default:
		LogDebug(COMPONENT_FSAL, "mknode of bad type %d", nodetype);
		return fsalstat(ERR_FSAL_BADTYPE, 0);
	}
	/* rawdev is consumed by mknodat, not by a later setattr */
	FSAL_UNSET_MASK(attrib->valid_mask, ATTR_RAWDEV);

	return sparse_make_object(dir_hdl, name, &obj, attrib, handle,
				  attrs_out, parent_pre_attrs_out,
				  parent_post_attrs_out);
}

static fsal_status_t sparse_symlink(struct fsal_obj_handle *dir_hdl,
				    const char *name, const char *link_path,
				    struct fsal_attrlist *attrib,
				    struct fsal_obj_handle **handle,
				    struct fsal_attrlist *attrs_out,
				    struct fsal_attrlist *parent_pre_attrs_out,
				    struct fsal_attrlist *parent_post_attrs_out)
{
	struct sparse_new_object obj = {
		.type = SYMBOLIC_LINK,
		.target = link_path,
	};

	/* Symlink permissions are meaningless on Linux. */
	FSAL_UNSET_MASK(attrib->valid_mask, ATTR_MODE);
	return sparse_make_object(dir_hdl, name, &obj, attrib, handle,
				  attrs_out, parent_pre_attrs_out,
				  parent_post_attrs_out);
}

static fsal_status_t sparse_readlink(struct fsal_obj_handle *obj_hdl,
				     struct gsh_buffdesc *link_content,
				     bool refresh)
{
	struct stat st;
	size_t size;
	ssize_t len;
	char *buf;
	int fd, rc = 0;

	if (obj_hdl->type != SYMBOLIC_LINK)
		return fsalstat(ERR_FSAL_INVAL, 0);

	fd = sparse_open_fh(sparse_op_export(), &sparse_hdl(obj_hdl)->fh,
			    O_PATH | O_NOFOLLOW);
	if (fd < 0)
		return posix2fsal_status(-fd);

	sparse_md_delay(SPARSE_MD_READ);
	if (fstat(fd, &st) != 0) {
		rc = errno;
		goto out;
	}
	/* st_size can be stale or 0 (procfs-like fs): grow until it fits. */
	for (size = st.st_size + 1 > 64 ? st.st_size + 1 : 64;; size *= 2) {
		buf = gsh_malloc(size);
		len = readlinkat(fd, "", buf, size);
		if (len < 0) {
			rc = errno;
			gsh_free(buf);
			goto out;
		}
		if ((size_t)len < size) {
			buf[len] = '\0';
			link_content->addr = buf;
			link_content->len = len + 1;
			goto out;
		}
		gsh_free(buf);
	}
out:
	close(fd);
	return posix2fsal_status(rc);
}

/* ---- link / unlink / rename -------------------------------------------- */

static fsal_status_t sparse_link(struct fsal_obj_handle *obj_hdl,
				 struct fsal_obj_handle *destdir_hdl,
				 const char *name,
				 struct fsal_attrlist *destdir_pre_attrs_out,
				 struct fsal_attrlist *destdir_post_attrs_out)
{
	char proc_path[SPARSE_PROC_PATH_LEN];
	struct sparse_dir_change dc;
	fsal_status_t status;
	int objfd, dirfd, rc;

	if (obj_hdl->type == DIRECTORY)
		return fsalstat(ERR_FSAL_ISDIR, 0);
	status = sparse_check_name(name);
	if (FSAL_IS_ERROR(status))
		return status;

	objfd = sparse_open_fh(sparse_op_export(), &sparse_hdl(obj_hdl)->fh,
			       O_PATH | O_NOFOLLOW);
	if (objfd < 0)
		return posix2fsal_status(-objfd);

	status = sparse_open_dir(destdir_hdl, O_PATH, &dirfd);
	if (FSAL_IS_ERROR(status)) {
		close(objfd);
		return status;
	}

	/* linkat(AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH, which the caller's
	 * credentials drop; following the /proc magic link does not.
	 */
	sparse_proc_path(objfd, proc_path);
	sparse_md_delay(SPARSE_MD_UPDATE);
	sparse_dir_change_begin(&dc, dirfd, destdir_pre_attrs_out,
				destdir_post_attrs_out);
	sparse_become_caller();
	rc = linkat(AT_FDCWD, proc_path, dirfd, name, AT_SYMLINK_FOLLOW);
	if (rc == 0) {
		sparse_changed(destdir_hdl);
		sparse_changed(obj_hdl);
	}
	if (rc != 0)
		rc = errno;
	sparse_become_server();
	sparse_dir_change_end(&dc);

	close(dirfd);
	close(objfd);
	if (rc != 0)
		return posix2fsal_status(rc);
	/* Durable_Metadata; on failure the new name stays (NFS4ERR_IO). */
	return sparse_sync_dirs(destdir_hdl, NULL);
}

static fsal_status_t sparse_unlink(struct fsal_obj_handle *dir_hdl,
				   struct fsal_obj_handle *obj_hdl,
				   const char *name,
				   struct fsal_attrlist *parent_pre_attrs_out,
				   struct fsal_attrlist *parent_post_attrs_out)
{
	bool is_dir = obj_hdl->type == DIRECTORY;
	struct sparse_dir_change dc;
	fsal_status_t status;
	int dirfd, rc;

	status = sparse_check_name(name);
	if (FSAL_IS_ERROR(status))
		return status;
	status = sparse_open_dir(dir_hdl, O_PATH, &dirfd);
	if (FSAL_IS_ERROR(status))
		return status;
	/* the last name of a file other clients have layouts of
	 * (sparse_layouts.c)
	 */
	if (obj_hdl->type == REGULAR_FILE) {
		status = sparse_layouts_conflict_at(dirfd, name, "REMOVE");
		if (FSAL_IS_ERROR(status)) {
			close(dirfd);
			return status;
		}
	}

	sparse_md_delay(SPARSE_MD_UPDATE);
	sparse_dir_change_begin(&dc, dirfd, parent_pre_attrs_out,
				parent_post_attrs_out);
	sparse_become_caller();
	rc = unlinkat(dirfd, name, is_dir ? AT_REMOVEDIR : 0);
	if (rc == 0) {
		sparse_changed(dir_hdl);
		sparse_changed(obj_hdl);
	}
	if (rc != 0)
		rc = errno;
	sparse_become_server();
	sparse_dir_change_end(&dc);
	close(dirfd);

	/* POSIX lets rmdir say EEXIST for a non-empty directory. */
	if (is_dir && rc == EEXIST)
		rc = ENOTEMPTY;
	if (rc != 0)
		return posix2fsal_status(rc);
	/* Tests only: the name is gone, hold the answer back */
	sparse_test_stall("unlink", name);
	/* Durable_Metadata; on failure the name stays removed (NFS4ERR_IO). */
	return sparse_sync_dirs(dir_hdl, NULL);
}

/*
 * The change_info4 pair of a rename: one directory's stripe when both
 * names are in one directory or the two share a stripe (dc[0] holds it,
 * dc[1] only reads), else both stripes in address order.  dc[1] is ended
 * first.
 */
static void sparse_rename_change_begin(int oldfd, int newfd,
				       struct fsal_attrlist *old_pre,
				       struct fsal_attrlist *old_post,
				       struct fsal_attrlist *new_pre,
				       struct fsal_attrlist *new_post,
				       struct sparse_dir_change dc[2])
{
	struct stat so, sn;
	pthread_mutex_t *lo, *ln;

	dc[0].lock = dc[1].lock = NULL;
	dc[0].active = dc[1].active = false;
	dc[0].dirfd = oldfd;
	dc[1].dirfd = newfd;
	dc[0].post = old_post;
	dc[1].post = new_post;
	if (old_pre == NULL || old_post == NULL || new_pre == NULL ||
	    new_post == NULL || fstat(oldfd, &so) != 0 ||
	    fstat(newfd, &sn) != 0)
		return;
	lo = sparse_dir_lock_of(&so);
	ln = sparse_dir_lock_of(&sn);
	if (lo == ln) {
		PTHREAD_MUTEX_lock(lo);
	} else {
		PTHREAD_MUTEX_lock(lo < ln ? lo : ln);
		PTHREAD_MUTEX_lock(lo < ln ? ln : lo);
		dc[1].lock = ln;
	}
	dc[0].lock = lo;
	dc[0].active = dc[1].active = true;
	if (!sparse_dir_change_read(oldfd, old_pre, &so))
		FSAL_UNSET_MASK(old_pre->valid_mask, ATTR_CHANGE);
	if (!sparse_dir_change_read(newfd, new_pre, &sn))
		FSAL_UNSET_MASK(new_pre->valid_mask, ATTR_CHANGE);
}

/* Do the two names name one object (rename(2) then does nothing)? */
static bool sparse_names_same_object(int oldfd, const char *old_name, int newfd,
				     const char *new_name)
{
	struct stat a, b;

	return fstatat(oldfd, old_name, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
	       fstatat(newfd, new_name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static fsal_status_t sparse_rename(struct fsal_obj_handle *obj_hdl,
				   struct fsal_obj_handle *olddir_hdl,
				   const char *old_name,
				   struct fsal_obj_handle *newdir_hdl,
				   const char *new_name,
				   struct fsal_attrlist *olddir_pre_attrs_out,
				   struct fsal_attrlist *olddir_post_attrs_out,
				   struct fsal_attrlist *newdir_pre_attrs_out,
				   struct fsal_attrlist *newdir_post_attrs_out)
{
	struct sparse_dir_change dc[2];
	fsal_status_t status;
	int oldfd, newfd, rc;
	bool noop;

	status = sparse_check_name(old_name);
	if (!FSAL_IS_ERROR(status))
		status = sparse_check_name(new_name);
	if (FSAL_IS_ERROR(status))
		return status;
	status = sparse_open_dir(olddir_hdl, O_PATH, &oldfd);
	if (FSAL_IS_ERROR(status))
		return status;
	status = sparse_open_dir(newdir_hdl, O_PATH, &newfd);
	if (FSAL_IS_ERROR(status)) {
		close(oldfd);
		return status;
	}

	/* replacing the last name of a file other clients have layouts of,
	 * as a REMOVE of it (sparse_layouts.c)
	 */
	if (!sparse_names_same_object(oldfd, old_name, newfd, new_name)) {
		status = sparse_layouts_conflict_at(newfd, new_name,
						    "RENAME over");
		if (FSAL_IS_ERROR(status)) {
			close(newfd);
			close(oldfd);
			return status;
		}
	}

	sparse_md_delay(SPARSE_MD_UPDATE);
	sparse_rename_change_begin(oldfd, newfd, olddir_pre_attrs_out,
				   olddir_post_attrs_out, newdir_pre_attrs_out,
				   newdir_post_attrs_out, dc);
	/* renaming an object onto itself (or a hard link of it) changes
	 * nothing: its change_info must say so (RFC 8881 18.26.4)
	 */
	noop = sparse_names_same_object(oldfd, old_name, newfd, new_name);
	sparse_become_caller();
	rc = renameat(oldfd, old_name, newfd, new_name);
	if (rc == 0 && !noop) {
		sparse_changed(olddir_hdl);
		sparse_changed(newdir_hdl);
		sparse_changed(obj_hdl);
	}
	if (rc != 0)
		rc = errno;
	sparse_become_server();
	sparse_dir_change_end(&dc[1]);
	sparse_dir_change_end(&dc[0]);

	if (rc != 0)
		LogDebug(COMPONENT_FSAL, "rename %s -> %s: %s", old_name,
			 new_name, strerror(rc));
	close(newfd);
	close(oldfd);
	if (rc != 0)
		return posix2fsal_status(rc);
	/* Tests only: hold the answer of a done rename back */
	sparse_test_stall("rename", old_name);
	/* Durable_Metadata: the target directory first, so a crash between
	 * the two syncs leaves both names rather than none.  On failure the
	 * rename stays done (NFS4ERR_IO).
	 */
	return sparse_sync_dirs(newdir_hdl, olddir_hdl);
}

/* ---- export-level entry points ----------------------------------------- */

/*
 * Path of `path` relative to the export root: "." for the root itself,
 * NULL when path is not at or below the root.
 */
static const char *sparse_path_in_export(struct sparse_export *exp,
					 const char *path)
{
	size_t len = strlen(exp->root_path);

	while (len > 1 && exp->root_path[len - 1] == '/')
		len--;
	if (strncmp(path, exp->root_path, len) != 0)
		return NULL;
	if (len == 1) /* exporting "/" */
		len = 0;
	if (path[len] != '\0' && path[len] != '/')
		return NULL;
	while (path[len] == '/')
		len++;
	return path[len] == '\0' ? "." : path + len;
}

fsal_status_t sparse_lookup_path(struct fsal_export *exp_hdl, const char *path,
				 struct fsal_obj_handle **handle,
				 struct fsal_attrlist *attrs_out)
{
	struct sparse_export *exp = sparse_exp(exp_hdl);
	struct sparse_handle *hdl = NULL;
	fsal_status_t status;
	const char *rel;

	*handle = NULL;
	rel = path ? sparse_path_in_export(exp, path) : NULL;
	if (rel == NULL) {
		LogInfo(COMPONENT_FSAL, "lookup_path %s: not in export %s",
			path ? path : "(null)", exp->root_path);
		return fsalstat(ERR_FSAL_NOENT, ENOENT);
	}

	status = sparse_lookup_at(exp, exp->root_fd, rel, &hdl, attrs_out);
	if (FSAL_IS_ERROR(status)) {
		LogDebug(COMPONENT_FSAL, "lookup_path %s: %s", path,
			 fsal_err_txt(status));
		return status;
	}
	*handle = &hdl->obj_handle;
	return status;
}

/*
 * Every PUTFH comes here, cached object or not: check the handle belongs to
 * this export (framing, filesystem, tag) and cut it to its host form (a
 * version 2 handle to its key form; a compact one stays whole, as
 * host_to_key may grow it by FSAL_KEY_EXTRA_BYTES but nothing else may).
 */
fsal_status_t sparse_wire_to_host(struct fsal_export *exp_hdl,
				  fsal_digesttype_t in_type,
				  struct gsh_buffdesc *fh_desc, int flags)
{
	struct sparse_export *exp = sparse_exp(exp_hdl);
	enum sparse_fh_verdict v;
	size_t host_len = 0;

	v = sparse_fh_check_wire(fh_desc->addr, fh_desc->len, exp->fs_ident,
				 exp->handle_key, &host_len);
	switch (v) {
	case SPARSE_FH_OK:
		fh_desc->len = host_len;
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	case SPARSE_FH_BAD:
		LogDebug(COMPONENT_FSAL, "bad FSAL_SPARSE handle, len %zu",
			 fh_desc->len);
		return fsalstat(ERR_FSAL_BADHANDLE, 0);
	default:
		LogInfo(COMPONENT_FSAL, "export %s: stale handle (%s)",
			exp->root_path,
			v == SPARSE_FH_STALE_VERSION ? "older format" :
			v == SPARSE_FH_STALE_FS	     ? "another filesystem" :
						       "not given out here");
		return fsalstat(ERR_FSAL_STALE, ESTALE);
	}
}

/*
 * The MDCACHE key of a host form: its key form, the same bytes for the
 * version 2 and the compact handle of one object.  MDCACHE also feeds its
 * own stored wire handles (a directory's parent) here and to create_handle
 * without wire_to_host, so every form is taken.  The caller leaves room
 * for FSAL_KEY_EXTRA_BYTES past the host form; a compact handle grows by 4.
 */
fsal_status_t sparse_host_to_key(struct fsal_export *exp_hdl,
				 struct gsh_buffdesc *fh_desc)
{
	struct sparse_export *exp = sparse_exp(exp_hdl);
	struct sparse_fh fh;

	if (!sparse_fh_from_bytes(fh_desc->addr, fh_desc->len, exp->fs_ident,
				  &fh))
		return fsalstat(ERR_FSAL_BADHANDLE, 0);
	if (fh.len > fh_desc->len + FSAL_KEY_EXTRA_BYTES) {
		LogCrit(COMPONENT_FSAL,
			"key of %u bytes from a %zu-byte handle", fh.len,
			fh_desc->len);
		return fsalstat(ERR_FSAL_SERVERFAULT, 0);
	}
	memcpy(fh_desc->addr, fh.bytes, fh.len);
	fh_desc->len = fh.len;
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* Open the object of a key-form handle of this export, O_PATH. */
static fsal_status_t sparse_open_new_object(struct sparse_export *exp,
					    const struct sparse_fh *fh, int *fd,
					    struct stat *st)
{
	if (sparse_fh_fs_ident(fh) != exp->fs_ident)
		return fsalstat(ERR_FSAL_STALE, ESTALE);

	*fd = sparse_open_fh(exp, fh, O_PATH | O_NOFOLLOW);
	if (*fd < 0) {
		LogDebug(COMPONENT_FSAL, "open_by_handle_at: %s",
			 strerror(-*fd));
		/* The kernel says EINVAL for a type or size it rejects. */
		if (*fd == -EINVAL)
			return fsalstat(ERR_FSAL_BADHANDLE, EINVAL);
		return posix2fsal_status(-*fd);
	}
	sparse_md_delay(SPARSE_MD_READ);
	if (fstat(*fd, st) != 0) {
		int err = errno;

		close(*fd);
		return posix2fsal_status(err);
	}
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/*
 * An MDCACHE miss: the handle is turned into an object.  The kernel opens
 * any inode of the filesystem, so the object must be checked to lie inside
 * this export's tree (sparse_confine_check); one outside is STALE.
 */
fsal_status_t sparse_create_handle(struct fsal_export *exp_hdl,
				   struct gsh_buffdesc *hdl_desc,
				   struct fsal_obj_handle **handle,
				   struct fsal_attrlist *attrs_out)
{
	struct sparse_export *exp = sparse_exp(exp_hdl);
	fsal_status_t status;
	struct sparse_fh fh;
	struct stat st;
	int fd, inside;

	*handle = NULL;
	if (!sparse_fh_from_bytes(hdl_desc->addr, hdl_desc->len, exp->fs_ident,
				  &fh))
		return fsalstat(ERR_FSAL_BADHANDLE, 0);

	status = sparse_open_new_object(exp, &fh, &fd, &st);
	if (FSAL_IS_ERROR(status))
		return status;
	inside = sparse_test_skip_confinement(&exp->test) ?
			 1 :
			 sparse_confine_check(&exp->confine, fd, &st);
	close(fd);
	if (inside != 1) {
		LogInfo(COMPONENT_FSAL, "export %s: object %llu refused: %s",
			exp->root_path, (unsigned long long)st.st_ino,
			inside == 0 ? "outside the export" : strerror(-inside));
		return fsalstat(ERR_FSAL_STALE, ESTALE);
	}

	*handle = &sparse_alloc_handle(exp, &fh, &st)->obj_handle;
	if (attrs_out != NULL)
		sparse_stat_to_attrs(exp, &st, attrs_out);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* ---- ops vector -------------------------------------------------------- */

void sparse_handle_ops_init(struct fsal_obj_ops *ops)
{
	fsal_default_obj_ops_init(ops);

	ops->release = sparse_release;
	ops->lookup = sparse_lookup;
	ops->readdir = sparse_readdir;
	ops->mkdir = sparse_mkdir;
	ops->mknode = sparse_mknode;
	ops->symlink = sparse_symlink;
	ops->readlink = sparse_readlink;
	ops->getattrs = sparse_getattrs;
	ops->link = sparse_link;
	ops->rename = sparse_rename;
	ops->unlink = sparse_unlink;
	ops->handle_to_wire = sparse_handle_to_wire;
	ops->handle_to_key = sparse_handle_to_key;

	sparse_file_ops_init(ops);
	sparse_xattr_ops_init(ops);
}
