/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE internal declarations.
 *
 * FSAL_SPARSE serves a local directory tree.  Objects are named by the
 * kernel's persistent file handles (name_to_handle_at/open_by_handle_at),
 * so a handle given to a client survives a server restart.  Every
 * operation opens what it needs from the handle, does its *at() system
 * call(s) and closes again; only regular files keep a long lived
 * (global or per-state) descriptor managed by Ganesha's fsal_fd code.
 *
 * Locking overview (details next to each lock use):
 *  - No FSAL-wide, per-export or per-directory lock is held around any
 *    backend system call.  The kernel serialises namespace changes.
 *  - obj_handle.obj_lock (Ganesha's) protects the share counters of a
 *    regular file (struct sparse_handle.share), as Ganesha's share helpers
 *    expect.
 *  - fsal_fd.work_mutex and its io/fd work counters (Ganesha's) keep a
 *    global or state descriptor from being closed or reopened while I/O
 *    uses it: every use is bracketed by fsal_start_io()/fsal_complete_io().
 *  - sparse_handle.state_fds_lock guards the list of a file's open state
 *    descriptors and their fd numbers: taken to open, reopen or close a
 *    state's descriptor and by COMMIT around its fsyncs of them.  Nothing
 *    else is taken while it is held (merge takes two: the dupe's first).
 *  - Export fields are written once at create time and then only read,
 *    except the tunables, which are read and written with atomics.
 */

#ifndef SPARSE_INT_H
#define SPARSE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "fsal.h"
#include "fsal_api.h"
#include "fsal_types.h"
#include "FSAL/fsal_commonlib.h"
#include "sparse_fh.h"
#include "sparse_fs.h"
#include "sparse_copy.h"
#include "sparse_change.h"
#include "sparse_test_hooks.h"
#include "sparse_pnfs.h"

#define SPARSE_FSAL_NAME "SPARSE"

/* Defaults and limits of the export tunables (see docs/fsal_sparse.md).
 * Min_Hole_Size is the old name of the EXPORT block's READ_PLUS_Min_Hole
 * (0: not given). */
#define SPARSE_MIN_HOLE_MAX (1ULL << 30)

struct sparse_module {
	struct fsal_module fsal;
	struct fsal_obj_ops handle_ops;
};

extern struct sparse_module SparseModule;

struct sparse_export {
	struct fsal_export export;
	/* Absolute path of the exported directory (owned). */
	char *root_path;
	/* Read-only fd on the export root: the mount fd for
	 * open_by_handle_at() (which refuses O_PATH fds).  Set at create,
	 * closed at release.
	 */
	int root_fd;
	/* Device of the export root; objects on other devices are refused
	 * since their handles could not be opened through root_fd.
	 */
	dev_t root_dev;
	/* The fsid reported to clients, chosen by Fsid_Type. */
	fsal_fsid_t fsid;
	uint32_t fsid_type; /* enum sparse_fsid_type */
	/* The clone_blksize attribute: FICLONERANGE's alignment on the
	 * export's filesystem (sparse_clone_block_size()).
	 */
	uint32_t clone_blksize;
	/* Identity of the filesystem, carried in every handle, and the key of
	 * the tag that says this export gave a handle out (sparse_fh.h).
	 */
	uint64_t fs_ident;
	uint8_t handle_key[SPARSE_FH_KEY_BYTES];
	/* Filesystem_Identity: a UUID given by the admin in place of the
	 * filesystem's own (NULL: none).  Set at create.
	 */
	char *fs_identity;
	/* On the list of live exports' identities (sparse_export.c),
	 * under its mutex.
	 */
	struct glist_head ident_link;
	/* statfs() f_type of the export's filesystem.  Set at create. */
	long fs_type;
	/* fallocate(2) in mode 0 reserves space on that filesystem
	 * (sparse_fs_reserves_space(); false on CephFS): without it
	 * ALLOCATE is NFS4ERR_NOTSUPP.  Set at create.
	 */
	bool reserves_space;
	/* What sparse_create_handle checks a new object against. */
	struct sparse_confine confine;
	/* Tunables from the FSAL block (atomic access after create). */
	uint64_t min_hole_size; /* the old Min_Hole_Size, 0: not given */
	bool durable_md; /* Durable_Metadata */
	uint32_t copy_engine; /* Copy_Engine: enum sparse_copy_mode */
	/* The Test_Hooks block (sparse_test_hooks.h), zero without one. */
	struct sparse_test_hooks test;
	/* The handle key is the one kept on the filesystem (shared by every
	 * server exporting it), not one made for this run only.
	 */
	bool handle_key_kept;
	/* Handles given out in the compact form (version 3): an export whose
	 * key was made by this version (or kept nowhere); one whose key was
	 * made before keeps giving out version 2, so its clients never hold
	 * two handles of one file (sparse_export.c, SPARSE_FORMAT_XATTR).
	 */
	bool compact_handles;
	/* pNFS settings (sparse_pnfs.h), set at create */
	struct sparse_pnfs_conf pnfs;
	/* On sparse_mds.c's list of exports handing out layouts */
	struct glist_head mds_link;
};

/* A kernel descriptor plus Ganesha's fd-management header.  fsal_fd MUST
 * stay first: Ganesha finds it at (state + 1).
 */
struct sparse_fd {
	struct fsal_fd fsal_fd;
	int fd;
	/* a temporary descriptor whose I/O took a share reservation of the
	 * file's (sparse_end_io gives it back)
	 */
	bool share_taken;
};

struct sparse_state_fd {
	/* state MUST be first, sfd right after it */
	struct state_t state;
	struct sparse_fd sfd;
	/* On the handle's state_fds while sfd.fd is open (state_fds_lock) */
	struct glist_head fds_link;
};

struct sparse_handle {
	struct fsal_obj_handle obj_handle;
	struct sparse_fh fh;
	/* Regular files only: share counters (under obj_handle.obj_lock)
	 * and the global descriptor (under its fsal_fd work accounting).
	 */
	struct fsal_share share;
	struct sparse_fd gfd;
	/* Regular files only: the open state descriptors, for COMMIT (which
	 * has no stateid), under state_fds_lock.
	 */
	pthread_mutex_t state_fds_lock;
	struct glist_head state_fds;
};

static inline struct sparse_handle *sparse_hdl(struct fsal_obj_handle *obj)
{
	return container_of(obj, struct sparse_handle, obj_handle);
}

static inline struct sparse_export *sparse_exp(struct fsal_export *exp)
{
	return container_of(exp, struct sparse_export, export);
}

static inline struct sparse_export *sparse_op_export(void)
{
	return sparse_exp(op_ctx->fsal_export);
}

/* "/proc/self/fd/N": reaches fd's object without a path lookup and without
 * the capability AT_EMPTY_PATH would need for some calls.
 */
#define SPARSE_PROC_PATH_LEN 32
static inline void sparse_proc_path(int fd, char *buf)
{
	(void)snprintf(buf, SPARSE_PROC_PATH_LEN, "/proc/self/fd/%d", fd);
}

/* Fsid_Type values: what the fsid attribute is made of. */
enum sparse_fsid_type {
	SPARSE_FSID_UUID = 0, /* the filesystem UUID (default) */
	SPARSE_FSID_DEVICE = 1, /* major/minor of the device number */
	SPARSE_FSID_STATFS = 2, /* statfs() f_fsid */
};

/* sparse_stats.c: count a delayed backend metadata call */
void sparse_md_count(enum sparse_md_kind kind);

/* The server changed obj, or is about to (sparse_change.h): the next change
 * attribute reported for it is above the last one, also where ctime and
 * mtime are one clock tick coarse.  Every object served lies on root_dev.
 */
static inline void sparse_changed(struct fsal_obj_handle *obj)
{
	sparse_change_touch(sparse_op_export()->root_dev, obj->fileid);
}

/* sparse_handle.c: ERR_FSAL_NO_ERROR when name is one component a client
 * may name (sparse_name_is_component), else the status to answer.
 */
fsal_status_t sparse_check_name(const char *name);
/* The descriptor (O_PATH, or O_RDONLY to read it) of a directory handle
 * still inside the export (ERR_FSAL_STALE for one moved out of it).
 */
fsal_status_t sparse_open_dir(struct fsal_obj_handle *dir_hdl, int flags,
			      int *fd);

/* sparse_export.c */
fsal_status_t sparse_create_export(struct fsal_module *fsal_hdl,
				   void *parse_node,
				   struct config_error_type *err_type,
				   const struct fsal_up_vector *up_ops);
fsal_status_t sparse_update_export(struct fsal_module *fsal_hdl,
				   void *parse_node,
				   struct config_error_type *err_type,
				   struct fsal_export *original,
				   struct fsal_module *updated_super);
bool sparse_export_durable_md(struct fsal_export *exp);
enum sparse_copy_mode sparse_export_copy_engine(struct fsal_export *exp);

/* sparse_handle.c */
void sparse_handle_ops_init(struct fsal_obj_ops *ops);
int sparse_open_fh(struct sparse_export *exp, const struct sparse_fh *fh,
		   int flags);
int sparse_fh_from_name(struct sparse_export *exp, int dirfd, const char *name,
			int at_flags, struct sparse_fh *fh);
fsal_status_t sparse_lookup_path(struct fsal_export *exp_hdl, const char *path,
				 struct fsal_obj_handle **handle,
				 struct fsal_attrlist *attrs_out);
fsal_status_t sparse_create_handle(struct fsal_export *exp_hdl,
				   struct gsh_buffdesc *hdl_desc,
				   struct fsal_obj_handle **handle,
				   struct fsal_attrlist *attrs_out);
fsal_status_t sparse_host_to_key(struct fsal_export *exp_hdl,
				 struct gsh_buffdesc *fh_desc);
fsal_status_t sparse_wire_to_host(struct fsal_export *exp_hdl,
				  fsal_digesttype_t in_type,
				  struct gsh_buffdesc *fh_desc, int flags);
struct sparse_handle *sparse_alloc_handle(struct sparse_export *exp,
					  const struct sparse_fh *fh,
					  const struct stat *st);
void sparse_stat_to_attrs(struct sparse_export *exp, const struct stat *st,
			  struct fsal_attrlist *attrs);
fsal_status_t sparse_fstat_obj(struct sparse_handle *hdl, struct stat *st);
fsal_status_t sparse_chown_new(struct sparse_handle *hdl,
			       struct fsal_attrlist *attrib);
void sparse_undo_create(int dirfd, const char *name, bool is_dir,
			const struct sparse_fh *made);

/*
 * change_info4 of a directory update (sparse_handle.c): the directory's
 * change attribute just before and just after one namespace call, read
 * under a lock of that directory (a stripe by inode) that every
 * FSAL_SPARSE namespace update in it takes, so that the two values bracket
 * that call alone and the reply can say "atomic".  pre/post may be NULL
 * (then nothing is read or locked); they get ATTR_CHANGE when read.
 */
struct sparse_dir_change {
	int dirfd;
	bool active; /* pre was read: read post at the end */
	pthread_mutex_t *lock; /* to unlock at the end, or NULL */
	struct fsal_attrlist *post;
};
void sparse_dir_change_begin(struct sparse_dir_change *dc, int dirfd,
			     struct fsal_attrlist *pre,
			     struct fsal_attrlist *post);
void sparse_dir_change_end(struct sparse_dir_change *dc);

/* sparse_xattr.c: RFC 8276 extended attributes (the "user." namespace) */
void sparse_xattr_ops_init(struct fsal_obj_ops *ops);

/* sparse_durable.c: Durable_Metadata.  Each returns ERR_FSAL_IO when a
 * sync fails and does nothing when the export's Durable_Metadata is off.
 */
bool sparse_durable_md(void);
fsal_status_t sparse_fsync_fd(int fd, const char *what);
/* fsync an object's inode (syncfs for symlinks and special files). */
fsal_status_t sparse_sync_obj(struct fsal_obj_handle *obj_hdl);
/* fsync one directory, or two (dir2 NULL or equal to dir1: one). */
fsal_status_t sparse_sync_dirs(struct fsal_obj_handle *dir1,
			       struct fsal_obj_handle *dir2);
/* After creating new_hdl in dir_hdl: fsync the new object (a symlink or
 * special file only when attributes were set on it after its creation),
 * then the directory.
 */
fsal_status_t sparse_sync_created(struct fsal_obj_handle *dir_hdl,
				  struct fsal_obj_handle *new_hdl,
				  bool attrs_applied);
/* The setattr2 op: sparse_setattr2(), then sparse_sync_obj(). */
fsal_status_t sparse_setattr2_durable(struct fsal_obj_handle *obj_hdl,
				      bool bypass, struct state_t *state,
				      struct fsal_attrlist *attrib_set);

/* sparse_file.c */
/*
 * The read_plus slot's work on a descriptor open for reading: map
 * [arg->offset, arg->offset + arg->length) into data and holes (every hole
 * the filesystem reports) and read the data runs into arg->buf (hole bytes
 * untouched); arg->seg, nseg, end and eof as struct fsal_read_plus_arg
 * says.  The MDS path and the data server (sparse_ds.c) share it.
 */
fsal_status_t sparse_read_plus_fd(int fd, struct fsal_read_plus_arg *arg);
struct state_t *sparse_alloc_state(struct fsal_export *exp_hdl,
				   enum state_type state_type,
				   struct state_t *related_state);
void sparse_file_ops_init(struct fsal_obj_ops *ops);
fsal_status_t sparse_close_global(struct sparse_handle *hdl);
/* Every open state descriptor of hdl a dup of fd (one open file
 * description, as a write lease needs); false when a lock state has a
 * descriptor of its own.  Under the file's st_lock.
 */
bool sparse_share_description(struct sparse_handle *hdl, int fd);
/* setattr without Durable_Metadata's sync (for creates, which sync once) */
fsal_status_t sparse_setattr2(struct fsal_obj_handle *obj_hdl, bool bypass,
			      struct state_t *state,
			      struct fsal_attrlist *attrib_set);
fsal_status_t sparse_getattrs(struct fsal_obj_handle *obj_hdl,
			      struct fsal_attrlist *attrs);

/*
 * Statistics (sparse_stats.c).  sparse_copy_stats() is the module's one set
 * of copy-engine counters: every caller of sparse_copy_range() passes its
 * result to sparse_copy_account(sparse_copy_stats(), &res).  Read by DBus
 * GetFSALStats("SPARSE"), zeroed by ResetStats.
 */
struct sparse_copy_counters *sparse_copy_stats(void);
void sparse_stats_init(struct fsal_module *fsal_hdl);

/* sparse_deleg.c: read and write delegations on Linux file leases */
struct sparse_deleg_counters {
	uint64_t granted; /* delegations backed by a lease at their grant */
	uint64_t released; /* dropped: delegation returned or revoked */
	uint64_t broken; /* a lease broken by a local open: recall asked */
	uint64_t refused; /* no lease could be had: no delegation */
	/* the holder's open for writing turned a read lease into a write
	 * lease, or found none possible (its delegations recalled) */
	uint64_t converted;
	uint64_t unbacked;
	/* a local change no lease sees (chmod, rename, unlink...): recall
	 * asked (sparse_watch.c) */
	uint64_t changed;
};
fsal_status_t sparse_lease_op2(struct fsal_obj_handle *obj_hdl,
			       struct state_t *state, void *owner,
			       fsal_deleg_t deleg);
void sparse_deleg_counters_get(struct sparse_deleg_counters *out);

/* sparse_watch.c: local changes of leased files that break no lease.
 * A file's identity as fanotify reports it: fsid and file handle.
 */
struct sparse_file_id {
	int32_t fsid[2];
	int type;
	unsigned int len; /* 0: not known */
	unsigned char bytes[128]; /* MAX_HANDLE_SZ */
};
/* The group and its thread (a WARN once when there can be none). */
void sparse_watch_start(void);
void sparse_watch_stop(void);
/* fd's file's identity: 0 or an errno. */
int sparse_watch_id(int fd, struct sparse_file_id *id);
bool sparse_watch_id_eq(const struct sparse_file_id *a,
			const struct sparse_file_id *b);
/* Watch fd's file (0 or an errno), or no longer. */
int sparse_watch_file(int fd);
void sparse_watch_forget(int fd);
/* sparse_deleg.c: another process changed the file id (NULL: maybe any
 * file, events were lost): recall its delegations. */
void sparse_deleg_changed_locally(const struct sparse_file_id *id,
				  const char *what);
void sparse_deleg_state_freed(struct state_t *state);
void sparse_deleg_shutdown(void);
/* At export creation (op_ctx on the new export): WARN, once per process,
 * when the export grants write delegations that lease-break-time rules
 * out.
 */
void sparse_deleg_export_check(const char *path);
/* A dup of the descriptor holding the file's write lease (any descriptor
 * of ours for the file is one while a write lease is held), or -1.
 */
int sparse_deleg_write_lease_fd(struct sparse_handle *hdl);
/*
 * A dup of the descriptor holding hdl's write lease for I/O or locks by
 * the client whose clientid is *holder, when it holds every delegation on
 * the file and the lease's open file description is open for what
 * openflags asks (FSAL_O_READ, FSAL_O_WRITE; FSAL_O_ANY: either); else -1
 * (then a descriptor of one's own breaks the lease, and recalls).
 */
int sparse_deleg_holder_fd(struct sparse_handle *hdl, const clientid4 *holder,
			   fsal_openflags_t openflags);
/*
 * Around (re)opening an open state's descriptor of hdl in mode flags for
 * the client whose clientid is *opener (NULL: not known), under the
 * file's st_lock.  Begin returns a descriptor to use instead of opening (a
 * dup of the write lease's; with O_TRUNC the caller truncates), or -1 to
 * open; with *conv the file's read lease was dropped for this open for
 * writing, and sparse_deleg_open_end() must follow with a dup of the new
 * descriptor (taken over), or -1 when the open failed.  The lease's
 * descriptor and the read lease's conversion are for the opener only
 * when it holds every delegation on the file.
 */
int sparse_deleg_open_begin(struct sparse_handle *hdl, int flags,
			    const clientid4 *opener, bool *conv);
void sparse_deleg_open_end(struct sparse_handle *hdl, int fd);
/* Does the current client hold a write delegation of the file? */
bool sparse_deleg_caller_writes(struct sparse_handle *hdl);
/*
 * The current client takes a layout of the file (rw: an RW one): when it
 * holds every delegation of the file and their lease would be broken by
 * its own I/O through the data servers (which open the file), the lease
 * is dropped and the delegations stay, unbacked, until they end.
 */
void sparse_deleg_layout_taken(struct sparse_handle *hdl, bool rw);

/* Last: every open goes through sparse_open.h, which poisons the raw
 * calls for what follows. */
#include "sparse_open.h"

#endif /* SPARSE_INT_H */
