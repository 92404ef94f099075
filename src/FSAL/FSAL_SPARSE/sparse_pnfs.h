/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE pNFS, files layout (RFC 8881 sections 12 and 13): every head
 * of one shared filesystem exports it with the same Export_Id, the same
 * filesystem identity and the same handle key; one head hands out layouts
 * (metadata server, sparse_mds.c), every head that has PNFS_DS serves the
 * I/O of the layouts' filehandles (data server, sparse_ds.c).  A layout is
 * alive while its grant is listed in its file's grant xattr on the shared
 * filesystem (sparse_fence.c); docs/design.md ("pNFS") has the authority
 * model of a data-server handle and its limits.
 */

#ifndef SPARSE_PNFS_H
#define SPARSE_PNFS_H

#include "gsh_list.h"
#include "config_parsing.h"
#include "fsal_types.h"
#include "sparse_fh.h"
#include "sparse_pnfs_cfg.h"

struct sparse_export;
struct fsal_module;
struct fsal_ops;
struct export_ops;
struct fsal_obj_ops;
struct fsal_pnfs_ds_ops;

/* An export's pNFS settings, from its FSAL block.  Set at create, then
 * only read (an update cannot change them, sparse_pnfs_conf_same()).
 */
struct sparse_pnfs_conf {
	bool mds; /* PNFS_MDS: hand out files layouts */
	bool ds_role; /* PNFS_DS: serve the I/O of layouts' filehandles */
	uint32_t stripe_unit; /* Stripe_Unit, bytes */
	uint32_t stripe_count; /* Stripe_Count, 0: every data server */
	/* Data_Server blocks as parsed (struct sparse_ds_node), then moved
	 * into ds[] by sparse_pnfs_conf_finish()
	 */
	struct glist_head ds_list;
	struct sparse_ds *ds;
	uint32_t nds;
	uint32_t generation; /* sparse_pnfs_generation() of the above */
	/* PNFS_MDS: this start's boot generation (sparse_boot_next), in
	 * every data-server handle the export gives out */
	uint32_t boot;
};

/* The Data_Server sub-block of the FSAL block (sparse_export.c lists it
 * with PNFS_MDS, PNFS_DS, Stripe_Unit and Stripe_Count). */
extern struct config_item sparse_ds_conf_items[];
void *sparse_ds_conf_init(void *link_mem, void *self_struct);
int sparse_ds_conf_commit(void *node, void *link_mem, void *self_struct,
			  struct config_error_type *err_type);

/* Check the parsed settings and move the Data_Server blocks into ds[]:
 * 0, or an errno after a LogCrit naming what is wrong. */
int sparse_pnfs_conf_finish(struct sparse_pnfs_conf *conf, const char *path);
/* Free what parsing and finishing allocated. */
void sparse_pnfs_conf_free(struct sparse_pnfs_conf *conf);
/* Whether two finished settings are the same (an update may not change
 * them). */
bool sparse_pnfs_conf_same(const struct sparse_pnfs_conf *a,
			   const struct sparse_pnfs_conf *b);

/*
 * At export create (op_ctx set for the export, after its handle key is
 * loaded): register the export's devices (MDS) and its data server
 * (struct fsal_pnfs_ds with id_servers = Export_Id, DS).  0 or an errno.
 * sparse_pnfs_export_release() undoes it.
 */
int sparse_pnfs_export_start(struct sparse_export *exp, bool key_shared);
void sparse_pnfs_export_release(struct sparse_export *exp);

/* sparse_ds.c: the export's struct fsal_pnfs_ds (0 or an errno); the
 * module's create_fsal_pnfs_ds, which refuses Ganesha's DS blocks. */
int sparse_ds_start(struct sparse_export *exp);
struct fsal_pnfs_ds;
fsal_status_t sparse_refuse_ds_block(struct fsal_module *const fsal_hdl,
				     void *parse_node,
				     struct fsal_pnfs_ds **const handle);

/* Module, export and object operations (sparse_main.c, sparse_export.c,
 * sparse_handle.c install them). */
void sparse_pnfs_fsal_ops_init(struct fsal_ops *ops);
void sparse_pnfs_export_ops_init(struct export_ops *ops);
void sparse_pnfs_obj_ops_init(struct fsal_obj_ops *ops);
void sparse_pnfs_ds_ops_init(struct fsal_pnfs_ds_ops *ops);

/* ---- the layouts granted, recalls (sparse_layouts.c) ----------------- */

/*
 * LAYOUTGET of fh through exp for the current client, iomode
 * LAYOUTIOMODE4_READ or _RW: recorded, and the client's grant listed in
 * the file's grant xattr before this returns.  NFS4_OK with *grant (what
 * the data-server handle names) and *seg (the segment's fsal_seg_data);
 * NFS4ERR_RECALLCONFLICT while a recall of the file's layouts is out,
 * NFS4ERR_LAYOUTTRYLATER with SPARSE_GRANTS_MAX holders already, another
 * error when the grant cannot be written.
 */
nfsstat4 sparse_layouts_grant(struct sparse_export *exp,
			      const struct sparse_fh *fh, uint32_t iomode,
			      uint64_t *grant, void **seg);
/* A segment disposed of (seg: its fsal_seg_data); revoked: Ganesha took
 * it away (its grant is withdrawn at once). */
void sparse_layouts_returned(struct sparse_export *exp, void *seg,
			     bool revoked);
/* Whether the current client holds an RW layout of fh (LAYOUTCOMMIT). */
bool sparse_layouts_caller_rw(struct sparse_export *exp,
			      const struct sparse_fh *fh);
/* Whether clients other than the current one hold layouts of fh (no
 * write delegation is granted then). */
bool sparse_layouts_others(struct sparse_export *exp,
			   const struct sparse_fh *fh);

/* Which layouts of other clients a change conflicts with. */
enum sparse_lo_which {
	SPARSE_LO_ALL, /* it changes what a layout maps (truncate...) */
	SPARSE_LO_WRITE, /* it denies writing (an OPEN with DENY_WRITE) */
};
/*
 * Before a change, through any export of the file's filesystem, that
 * would make other clients' layouts of fh wrong: OK, or ERR_FSAL_DELAY
 * while they are recalled (see sparse_layouts.c).
 */
fsal_status_t sparse_layouts_conflict(struct sparse_export *exp,
				      const struct sparse_fh *fh,
				      enum sparse_lo_which which,
				      const char *what);
/* The same for the file open on fd (of the current export). */
fsal_status_t sparse_layouts_conflict_fd(int fd, const char *what);
/* The same for dirfd/name when it is a file's last name (removing or
 * replacing it). */
fsal_status_t sparse_layouts_conflict_at(int dirfd, const char *name,
					 const char *what);
/* The export goes: its layouts fenced and recalled (prepare_unexport). */
void sparse_layouts_unexport(struct sparse_export *exp);

/* ---- grants and boot generations (sparse_fence.c) --------------------- */

/* A file's layout grants alive now: a trusted xattr of the file. */
#define SPARSE_GRANTS_XATTR "trusted.nfs_sparse.layouts"
/* The metadata server's boot generation: a trusted xattr of its export
 * root, one more at each start. */
#define SPARSE_BOOT_XATTR "trusted.nfs_sparse.mds_boot"
/* Clients that may hold layouts of one file at once. */
#define SPARSE_GRANTS_MAX 128

struct sparse_grant {
	uint64_t id;
	uint8_t iomode; /* SPARSE_DSFH_READ or SPARSE_DSFH_RW */
};

/* The file's grants (fd open on it, not O_PATH; g has room for
 * SPARSE_GRANTS_MAX): 0, or -errno (-EUCLEAN: not a list of ours). */
int sparse_grants_get(int fd, struct sparse_grant *g, uint32_t *n);
/* The iomode grant id has in the file's list, 0 when it is not there:
 * 0, or -errno. */
int sparse_grant_iomode(int fd, uint64_t id, uint8_t *iomode);
/* Write the file's grants (none: the xattr removed): 0 or -errno. */
int sparse_grants_put(int fd, const struct sparse_grant *g, uint32_t n);
/* The export root's boot generation (absent: 0): 0 or -errno. */
int sparse_boot_get(int root_fd, uint32_t *boot);
/* One more boot generation, stored: 0 or -errno. */
int sparse_boot_next(int root_fd, uint32_t *boot);

#endif /* SPARSE_PNFS_H */
