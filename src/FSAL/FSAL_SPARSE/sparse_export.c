/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE exports: the FSAL config block, creation and release of an
 * export, and the export operations vector.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/random.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <linux/magic.h>

#include "fsal.h"
#include "fsal_convert.h"
#include "FSAL/fsal_commonlib.h"
#include "FSAL/fsal_config.h"
#include "nfs_exports.h"
#include "export_mgr.h"
#include "sparse_int.h"
#include "sparse_copy.h"

/* ---- config ------------------------------------------------------------ */

/*
 * Parsed straight into struct sparse_export.  Range errors are reported by
 * Ganesha's parser; sparse_export_commit() adds the checks a range cannot
 * express.
 */
static struct config_item_list sparse_fsid_types[] = {
	CONFIG_LIST_TOK("UUID", SPARSE_FSID_UUID),
	CONFIG_LIST_TOK("DEVICE", SPARSE_FSID_DEVICE),
	CONFIG_LIST_TOK("STATFS", SPARSE_FSID_STATFS), CONFIG_LIST_EOL
};

static struct config_item_list sparse_copy_engines[] = {
	CONFIG_LIST_TOK("AUTO", SPARSE_COPY_AUTO),
	CONFIG_LIST_TOK("CLONE", SPARSE_COPY_CLONE_ONLY),
	CONFIG_LIST_TOK("COPY", SPARSE_COPY_COPY_ONLY), CONFIG_LIST_EOL
};

static struct config_item sparse_export_items[] = {
	CONF_ITEM_NOOP("name"),
	CONF_ITEM_TOKEN("Fsid_Type", SPARSE_FSID_UUID, sparse_fsid_types,
			sparse_export, fsid_type),
	CONF_ITEM_STR("Filesystem_Identity", 1, 64, NULL, sparse_export,
		      fs_identity),
	/* the old name of READ_PLUS_Min_Hole (sparse_map_old_min_hole) */
	CONF_ITEM_UI64("Min_Hole_Size", 0, SPARSE_MIN_HOLE_MAX, 0,
		       sparse_export, min_hole_size),
	CONF_ITEM_BOOL("Durable_Metadata", true, sparse_export, durable_md),
	CONF_ITEM_TOKEN("Copy_Engine", SPARSE_COPY_AUTO, sparse_copy_engines,
			sparse_export, copy_engine),
	SPARSE_TEST_HOOKS_BLOCK(sparse_export, test),
	/* pNFS (sparse_pnfs.h, docs/configuration.md) */
	CONF_ITEM_BOOL("PNFS_MDS", false, sparse_export, pnfs.mds),
	CONF_ITEM_BOOL("PNFS_DS", false, sparse_export, pnfs.ds_role),
	CONF_ITEM_UI32("Stripe_Unit", SPARSE_STRIPE_UNIT_MIN,
		       SPARSE_STRIPE_UNIT_MAX, SPARSE_STRIPE_UNIT_DEFAULT,
		       sparse_export, pnfs.stripe_unit),
	CONF_ITEM_UI32("Stripe_Count", 0, SPARSE_DS_MAX, 0, sparse_export,
		       pnfs.stripe_count),
	CONF_ITEM_BLOCK_MULT("Data_Server", sparse_ds_conf_items,
			     sparse_ds_conf_init, sparse_ds_conf_commit,
			     sparse_export, pnfs.ds_list),
	CONFIG_EOL
};

static int sparse_export_commit(void *node, void *link_mem, void *self_struct,
				struct config_error_type *err_type)
{
	struct sparse_export *cfg = self_struct;
	uint8_t uuid[SPARSE_UUID_LEN];

	if (cfg->min_hole_size % 512 != 0) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: Min_Hole_Size = %" PRIu64
			" rejected: must be a multiple of 512 bytes",
			cfg->min_hole_size);
		err_type->invalid = true;
		return 1;
	}
	if (cfg->fs_identity != NULL &&
	    !sparse_uuid_parse(cfg->fs_identity, uuid)) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: Filesystem_Identity = \"%s\" rejected: must be a UUID (as uuidgen prints one)",
			cfg->fs_identity);
		err_type->invalid = true;
		return 1;
	}
	if (!cfg->durable_md)
		LogWarn(COMPONENT_FSAL,
			"FSAL_SPARSE: Durable_Metadata = false: namespace changes and setattrs are acknowledged before they are on disk, a server crash can lose them (UNSAFE)");
	if (sparse_pnfs_conf_finish(&cfg->pnfs, CTX_FULLPATH(op_ctx)) != 0) {
		err_type->invalid = true;
		return 1;
	}
	return 0;
}

static struct config_block sparse_export_block = {
	.dbus_interface_name = "org.ganesha.nfsd.config.fsal.sparse-export%d",
	.blk_desc.name = "FSAL",
	.blk_desc.type = CONFIG_BLOCK,
	.blk_desc.u.blk.init = noop_conf_init,
	.blk_desc.u.blk.params = sparse_export_items,
	.blk_desc.u.blk.commit = sparse_export_commit,
};

/*
 * Min_Hole_Size, FSAL_SPARSE's own minimum hole before issue #17, is the
 * old name of the EXPORT block's READ_PLUS_Min_Hole: one knob, applied by
 * the protocol layer to every FSAL.  Given, it says so and sets the
 * export's READ_PLUS_Min_Hole to the larger of the two (what the two
 * knobs together did), on create and on update.  Called with op_ctx set
 * for the export.
 */
static void sparse_map_old_min_hole(uint64_t min_hole)
{
	struct gsh_export *exp = op_ctx->ctx_export;
	uint64_t now;

	if (min_hole == 0 || exp == NULL)
		return;
	now = atomic_fetch_uint64_t(&exp->read_plus_min_hole);
	LogWarn(COMPONENT_FSAL,
		"FSAL_SPARSE: Min_Hole_Size = %" PRIu64
		" is the old name of the EXPORT block's READ_PLUS_Min_Hole; export %s uses READ_PLUS_Min_Hole = %" PRIu64,
		min_hole, CTX_FULLPATH(op_ctx),
		now > min_hole ? now : min_hole);
	if (min_hole > now)
		atomic_store_uint64_t(&exp->read_plus_min_hole, min_hole);
}

/* abstract_atomic.h has no bool variant; bool is one byte here. */
bool sparse_export_durable_md(struct fsal_export *exp)
{
	return __atomic_load_n(&sparse_exp(exp)->durable_md, __ATOMIC_ACQUIRE);
}

enum sparse_copy_mode sparse_export_copy_engine(struct fsal_export *exp)
{
	return atomic_fetch_uint32_t(&sparse_exp(exp)->copy_engine);
}

/* ---- filesystem identities --------------------------------------------- */

/*
 * The identity of each live export's filesystem (the fs_ident in its
 * handles and MDCACHE keys).  Two filesystems with one UUID (a copied
 * image, a snapshot, an XFS nouuid mount) would otherwise share cache
 * entries and descriptors: objects with equal kernel handles on the two
 * would be one object.  So an identity names one filesystem (st_dev) and
 * one filesystem has one identity among live exports; the export that
 * would break this is refused.  btrfs is the exception: every subvolume
 * has a device number of its own and the filesystem's UUID, and btrfs
 * never mounts two filesystems with one UUID, so one identity on two btrfs
 * devices is two subvolumes of one filesystem (whose kernel handles name
 * the subvolume, so they never collide).
 *
 * Locking: sparse_idents_mutex guards sparse_idents and every export's
 * ident_link; it is taken only at export create and release.
 */
static pthread_mutex_t sparse_idents_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct glist_head sparse_idents = GLIST_HEAD_INIT(sparse_idents);

/* The live export exp conflicts with, or NULL.  Under the mutex. */
static struct sparse_export *sparse_ident_conflict(struct sparse_export *exp)
{
	struct glist_head *node;

	glist_for_each(node, &sparse_idents)
	{
		struct sparse_export *other =
			glist_entry(node, struct sparse_export, ident_link);

		if (other->fs_ident == exp->fs_ident &&
		    other->root_dev != exp->root_dev &&
		    other->fs_type == BTRFS_SUPER_MAGIC &&
		    exp->fs_type == BTRFS_SUPER_MAGIC)
			continue; /* two subvolumes */
		if ((other->fs_ident == exp->fs_ident) !=
		    (other->root_dev == exp->root_dev))
			return other;
	}
	return NULL;
}

static void sparse_ident_refuse(const struct sparse_export *exp,
				const struct sparse_export *other)
{
	if (other->fs_ident == exp->fs_ident)
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: export %s refused: its filesystem (device %u:%u) has the identity %#" PRIx64
			" of export %s, which is another filesystem (device %u:%u) with the same UUID (a copied image, a snapshot or a nouuid mount). Give one of them its own Filesystem_Identity = \"<uuid>\" (from uuidgen) in its FSAL block, or a new UUID (tune2fs -U, xfs_admin -U)",
			exp->root_path, major(exp->root_dev),
			minor(exp->root_dev), exp->fs_ident, other->root_path,
			major(other->root_dev), minor(other->root_dev));
	else
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: export %s refused: export %s is on the same filesystem (device %u:%u) with another identity (%#" PRIx64
			" and %#" PRIx64
			"); exports of one filesystem must agree on Filesystem_Identity",
			exp->root_path, other->root_path, major(exp->root_dev),
			minor(exp->root_dev), exp->fs_ident, other->fs_ident);
}

/* Enter exp's identity; EEXIST (logged) when it conflicts. */
static int sparse_ident_register(struct sparse_export *exp)
{
	struct sparse_export *other;

	PTHREAD_MUTEX_lock(&sparse_idents_mutex);
	other = sparse_ident_conflict(exp);
	if (other == NULL)
		glist_add_tail(&sparse_idents, &exp->ident_link);
	else
		sparse_ident_refuse(exp, other);
	PTHREAD_MUTEX_unlock(&sparse_idents_mutex);
	return other == NULL ? 0 : EEXIST;
}

static void sparse_ident_release(struct sparse_export *exp)
{
	PTHREAD_MUTEX_lock(&sparse_idents_mutex);
	if (!glist_null(&exp->ident_link))
		glist_del(&exp->ident_link);
	PTHREAD_MUTEX_unlock(&sparse_idents_mutex);
}

static void sparse_export_free(struct sparse_export *exp)
{
	sparse_pnfs_conf_free(&exp->pnfs);
	gsh_free(exp->fs_identity);
	sparse_test_hooks_free(&exp->test);
	gsh_free(exp->root_path);
	gsh_free(exp);
}

/* ---- export operations ------------------------------------------------- */

static void sparse_release_export(struct fsal_export *exp_hdl)
{
	struct sparse_export *exp = sparse_exp(exp_hdl);

	LogDebug(COMPONENT_FSAL, "Releasing FSAL_SPARSE export %s",
		 exp->root_path);

	fsal_detach_export(exp_hdl->fsal, &exp_hdl->exports);
	free_export_ops(exp_hdl);
	sparse_ident_release(exp);
	sparse_pnfs_export_release(exp);

	if (exp->root_fd >= 0)
		close(exp->root_fd);
	sparse_export_free(exp);
}

static fsal_status_t sparse_get_dynamic_info(struct fsal_export *exp_hdl,
					     struct fsal_obj_handle *obj_hdl,
					     fsal_dynamicfsinfo_t *infop)
{
	struct sparse_export *exp = sparse_exp(exp_hdl);
	struct statvfs sv;

	sparse_md_delay(SPARSE_MD_READ);
	if (fstatvfs(exp->root_fd, &sv) != 0)
		return posix2fsal_status(errno);

	infop->total_bytes = sv.f_frsize * sv.f_blocks;
	infop->free_bytes = sv.f_frsize * sv.f_bfree;
	infop->avail_bytes = sv.f_frsize * sv.f_bavail;
	infop->total_files = sv.f_files;
	infop->free_files = sv.f_ffree;
	infop->avail_files = sv.f_favail;
	infop->maxread = exp_hdl->fsal->fs_info.maxread;
	infop->maxwrite = exp_hdl->fsal->fs_info.maxwrite;
	infop->time_delta.tv_sec = 0;
	infop->time_delta.tv_nsec = 1; /* nanosecond timestamps */
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

static void sparse_free_state(struct state_t *state)
{
	struct sparse_state_fd *sst =
		container_of(state, struct sparse_state_fd, state);

	/* close_func takes the descriptor off its file's state_fds first;
	 * a state freed while still on it would leave COMMIT a dangling node.
	 */
	if (!glist_null(&sst->fds_link)) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: state %p freed with its descriptor open",
			state);
		assert(false);
	}
	sparse_deleg_state_freed(state);
	destroy_fsal_fd(&sst->sfd.fsal_fd);
	gsh_free(sst);
}

struct state_t *sparse_alloc_state(struct fsal_export *exp_hdl,
				   enum state_type state_type,
				   struct state_t *related_state)
{
	struct sparse_state_fd *sst = gsh_calloc(1, sizeof(*sst));

	init_state(&sst->state, sparse_free_state, state_type, related_state);
	init_fsal_fd(&sst->sfd.fsal_fd, FSAL_FD_STATE, op_ctx->fsal_export);
	sst->sfd.fd = -1;
	return &sst->state;
}

/* Called by the fd LRU to find the object owning a global descriptor. */
static void sparse_get_fsal_obj_hdl(struct fsal_export *exp_hdl,
				    struct fsal_fd *fd,
				    struct fsal_obj_handle **handle)
{
	struct sparse_handle *hdl =
		container_of(fd, struct sparse_handle, gfd.fsal_fd);

	*handle = &hdl->obj_handle;
}

static void sparse_export_ops_init(struct export_ops *ops)
{
	ops->release = sparse_release_export;
	ops->lookup_path = sparse_lookup_path;
	ops->wire_to_host = sparse_wire_to_host;
	ops->host_to_key = sparse_host_to_key;
	ops->create_handle = sparse_create_handle;
	ops->get_fs_dynamic_info = sparse_get_dynamic_info;
	ops->alloc_state = sparse_alloc_state;
	ops->get_fsal_obj_hdl = sparse_get_fsal_obj_hdl;
}

/* ---- create / update --------------------------------------------------- */

static const char *const sparse_fsid_type_names[] = { "UUID", "DEVICE",
						      "STATFS" };

/*
 * The fsid reported to clients.  UUID survives reboots and device
 * renumbering; without a UUID it falls back to the device number.
 */
static void sparse_choose_fsid(struct sparse_export *exp,
			       enum sparse_uuid_source src,
			       const uint8_t uuid[SPARSE_UUID_LEN])
{
	struct statfs sf;

	switch (exp->fsid_type) {
	case SPARSE_FSID_UUID:
		if (src != SPARSE_UUID_NONE) {
			sparse_uuid_halves(uuid, &exp->fsid.major,
					   &exp->fsid.minor);
			return;
		}
		LogWarn(COMPONENT_FSAL,
			"FSAL_SPARSE: %s: filesystem has no UUID; the fsid is the device number, which can change at reboot",
			exp->root_path);
		break;
	case SPARSE_FSID_STATFS:
		if (fstatfs(exp->root_fd, &sf) == 0) {
			exp->fsid.major = (uint32_t)sf.f_fsid.__val[0];
			exp->fsid.minor = (uint32_t)sf.f_fsid.__val[1];
			return;
		}
		LogWarn(COMPONENT_FSAL,
			"FSAL_SPARSE: %s: statfs failed (%s); the fsid is the device number",
			exp->root_path, strerror(errno));
		break;
	default:
		break;
	}
	exp->fsid.major = major(exp->root_dev);
	exp->fsid.minor = minor(exp->root_dev);
}

/* Open the exported directory and remember what identifies it. */
static int sparse_open_export_root(struct sparse_export *exp, const char *path)
{
	uint8_t uuid[SPARSE_UUID_LEN];
	enum sparse_uuid_source src;
	struct statfs sf;
	struct stat st;
	int rc;

	exp->root_fd =
		sparse_sys_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (exp->root_fd < 0) {
		int err = errno;

		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: cannot open export path %s: %s", path,
			strerror(err));
		return err;
	}
	if (fstat(exp->root_fd, &st) != 0)
		return errno;

	exp->root_dev = st.st_dev;
	if (fstatfs(exp->root_fd, &sf) == 0)
		exp->fs_type = sf.f_type;
	exp->reserves_space =
		sparse_fs_reserves_space(exp->root_fd, exp->fs_type);
	if (!exp->reserves_space)
		LogInfo(COMPONENT_FSAL,
			"FSAL_SPARSE: %s: its filesystem (statfs type 0x%lx) does not reserve space for fallocate: ALLOCATE is NFS4ERR_NOTSUPP",
			path, (unsigned long)exp->fs_type);
	if (exp->fs_identity != NULL &&
	    sparse_uuid_parse(exp->fs_identity, uuid))
		src = SPARSE_UUID_CONFIG; /* checked at parse */
	else
		src = sparse_fs_uuid(exp->root_fd, st.st_dev, uuid);
	exp->fs_ident = sparse_fs_ident(src, uuid, st.st_dev);
	sparse_choose_fsid(exp, src, uuid);
	exp->clone_blksize = (uint32_t)sparse_clone_block_size(exp->root_fd);

	rc = sparse_confine_init(&exp->confine, exp->root_fd);
	if (rc != 0)
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: %s: cannot name the export root: %s",
			path, strerror(rc));
	return rc;
}

#define SPARSE_KEY_XATTR "trusted.nfs_sparse.handle_key"

/*
 * The handle format an export gives out, kept next to its key: "3" (the
 * compact form) is written before a key is made, so every key made by
 * this version has it; a key without it was made before compact handles
 * and its export keeps giving out version 2: a client that holds version 2
 * handles from before an upgrade never gets a second, compact handle for
 * the same file (which it would take for another file), and a server
 * downgraded again still reads every handle given out.  Both forms are
 * accepted either way.  An admin moves an export to compact handles with
 * setfattr -n trusted.nfs_sparse.handle_format -v 3 (fsal_sparse.md).
 */
#define SPARSE_FORMAT_XATTR "trusted.nfs_sparse.handle_format"

static bool sparse_export_compact(int root_fd)
{
	char v[2];

	return fgetxattr(root_fd, SPARSE_FORMAT_XATTR, v, sizeof(v)) == 1 &&
	       v[0] == '3';
}

/*
 * The key of the handle tags lives with the export root (a trusted xattr,
 * which only CAP_SYS_ADMIN can read), so handles survive a restart and move
 * with the filesystem to another server.  Made on first use; an export
 * whose filesystem cannot keep it (read-only, no xattrs) gets a random key
 * for this run only.  A key of the wrong length is EBADMSG: it is never
 * replaced here (sparse_load_handle_key refuses the export).
 */
static int sparse_read_or_make_key(int root_fd, uint8_t *key)
{
	int attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		ssize_t n = fgetxattr(root_fd, SPARSE_KEY_XATTR, key,
				      SPARSE_FH_KEY_BYTES);

		if (n == SPARSE_FH_KEY_BYTES)
			return 0;
		if (n >= 0 || errno == ERANGE)
			return EBADMSG;
		if (errno != ENODATA)
			return errno;
		if (getrandom(key, SPARSE_FH_KEY_BYTES, 0) !=
		    SPARSE_FH_KEY_BYTES)
			return errno;
		/* A new key: its handles are compact.  The mark goes first,
		 * so an export that finds the key finds it too; a failure
		 * only leaves this export's handles in version 2.
		 */
		(void)fsetxattr(root_fd, SPARSE_FORMAT_XATTR, "3", 1, 0);
		if (fsetxattr(root_fd, SPARSE_KEY_XATTR, key,
			      SPARSE_FH_KEY_BYTES, XATTR_CREATE) == 0)
			return 0;
		if (errno != EEXIST) /* else another export made it: reread */
			return errno;
	}
	return EEXIST;
}

/* The length of the key xattr as found, for the refusal's message. */
static ssize_t sparse_key_xattr_len(int root_fd)
{
	return fgetxattr(root_fd, SPARSE_KEY_XATTR, NULL, 0);
}

static int sparse_load_handle_key(struct sparse_export *exp)
{
	int rc = sparse_read_or_make_key(exp->root_fd, exp->handle_key);

	if (rc == EBADMSG) {
		/* Something else wrote it (a restore, a tool, damage): a new
		 * key would turn every handle clients hold stale and switch
		 * the export's handle format, with nothing to undo it.  The
		 * admin decides (configuration.md, "Handle key").
		 */
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: export %s refused: its handle key %s is malformed (%zd bytes, not %d); restore it (setfattr, from a backup of the filesystem's xattrs), or remove it (setfattr -x %s %s) to start with a new key: every handle clients hold for this export then goes stale",
			exp->root_path, SPARSE_KEY_XATTR,
			sparse_key_xattr_len(exp->root_fd), SPARSE_FH_KEY_BYTES,
			SPARSE_KEY_XATTR, exp->root_path);
		return rc;
	}
	exp->handle_key_kept = rc == 0;
	exp->compact_handles = rc != 0 || sparse_export_compact(exp->root_fd);
	if (rc == 0)
		return 0;
	/* A key anyone could work out would let a client tag a handle of an
	 * object cached through another export; one for this run only keeps
	 * handles safe, at the price of going stale at the next restart.
	 */
	LogWarn(COMPONENT_FSAL,
		"FSAL_SPARSE: %s: cannot keep a handle key in %s (%s): using one for this run only, handles given out now go stale when the server restarts",
		exp->root_path, SPARSE_KEY_XATTR, strerror(rc));
	if (getrandom(exp->handle_key, SPARSE_FH_KEY_BYTES, 0) !=
	    SPARSE_FH_KEY_BYTES)
		return errno;
	return 0;
}

/* Make sure the kernel gives us handles here (needs CAP_DAC_READ_SEARCH to
 * open them again, and a filesystem that supports export handles).
 */
static int sparse_probe_handles(struct sparse_export *exp)
{
	struct sparse_fh fh;
	int fd, rc;

	rc = sparse_fh_from_name(exp, exp->root_fd, "", AT_EMPTY_PATH, &fh);
	if (rc != 0) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: %s: filesystem gives no usable file handles: %s",
			exp->root_path, strerror(rc));
		return rc;
	}
	fd = sparse_open_fh(exp, &fh, O_PATH);
	if (fd < 0) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: %s: open_by_handle_at failed: %s (needs CAP_DAC_READ_SEARCH)",
			exp->root_path, strerror(-fd));
		return -fd;
	}
	close(fd);
	return 0;
}

fsal_status_t sparse_create_export(struct fsal_module *fsal_hdl,
				   void *parse_node,
				   struct config_error_type *err_type,
				   const struct fsal_up_vector *up_ops)
{
	struct sparse_export *exp = gsh_calloc(1, sizeof(*exp));
	int rc;

	exp->root_fd = -1;
	glist_init(&exp->ident_link);
	glist_init(&exp->mds_link);
	fsal_export_init(&exp->export);
	sparse_export_ops_init(&exp->export.exp_ops);

	if (load_config_from_node(parse_node, &sparse_export_block, exp, true,
				  err_type) != 0) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: bad FSAL block for export %s (Min_Hole_Size: 0..%llu and a multiple of 512)",
			CTX_FULLPATH(op_ctx),
			(unsigned long long)SPARSE_MIN_HOLE_MAX);
		rc = EINVAL;
		goto err_free;
	}

	exp->root_path = gsh_strdup(CTX_FULLPATH(op_ctx));
	rc = sparse_open_export_root(exp, exp->root_path);
	if (rc != 0)
		goto err_free;
	rc = sparse_probe_handles(exp);
	if (rc != 0)
		goto err_free;
	rc = sparse_load_handle_key(exp);
	if (rc != 0)
		goto err_free;
	rc = sparse_ident_register(exp);
	if (rc != 0)
		goto err_free;

	rc = fsal_attach_export(fsal_hdl, &exp->export.exports);
	if (rc != 0) {
		LogCrit(COMPONENT_FSAL, "FSAL_SPARSE: could not attach export");
		goto err_free;
	}
	exp->export.fsal = fsal_hdl;
	exp->export.up_ops = up_ops;
	op_ctx->fsal_export = &exp->export;
	sparse_map_old_min_hole(exp->min_hole_size);
	rc = sparse_pnfs_export_start(exp, exp->handle_key_kept);
	if (rc != 0) {
		fsal_detach_export(fsal_hdl, &exp->export.exports);
		goto err_free;
	}
	sparse_deleg_export_check(exp->root_path);

	LogInfo(COMPONENT_FSAL,
		"FSAL_SPARSE export %s: fsid %#" PRIx64 ".%#" PRIx64
		" (Fsid_Type %s), filesystem identity %#" PRIx64 "%s%s",
		exp->root_path, exp->fsid.major, exp->fsid.minor,
		sparse_fsid_type_names[exp->fsid_type], exp->fs_ident,
		exp->fs_identity ? " (Filesystem_Identity)" : "",
		exp->test.present ? ", with Test_Hooks (TEST-ONLY)" : "");
	return fsalstat(ERR_FSAL_NO_ERROR, 0);

err_free:
	sparse_ident_release(exp);
	if (exp->root_fd >= 0)
		close(exp->root_fd);
	free_export_ops(&exp->export);
	sparse_export_free(exp);
	return posix2fsal_status(rc);
}

fsal_status_t sparse_update_export(struct fsal_module *fsal_hdl,
				   void *parse_node,
				   struct config_error_type *err_type,
				   struct fsal_export *original,
				   struct fsal_module *updated_super)
{
	struct sparse_export *orig = sparse_exp(original);
	struct sparse_export cfg;
	fsal_status_t status;
	bool hooks_changed, ident_changed, pnfs_changed;

	/* Everything is checked before anything changes. */
	memset(&cfg, 0, sizeof(cfg));
	if (load_config_from_node(parse_node, &sparse_export_block, &cfg, true,
				  err_type) != 0)
		return posix2fsal_status(EINVAL);
	hooks_changed =
		sparse_test_hooks_restart_needed(&orig->test, &cfg.test);
	ident_changed = (cfg.fs_identity == NULL) !=
				(orig->fs_identity == NULL) ||
			(cfg.fs_identity != NULL &&
			 strcmp(cfg.fs_identity, orig->fs_identity) != 0);
	pnfs_changed = !sparse_pnfs_conf_same(&cfg.pnfs, &orig->pnfs);
	sparse_test_hooks_free(&cfg.test);
	gsh_free(cfg.fs_identity);
	sparse_pnfs_conf_free(&cfg.pnfs);
	if (cfg.fsid_type != orig->fsid_type || hooks_changed ||
	    ident_changed || pnfs_changed) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE export %s: Fsid_Type, Filesystem_Identity, the pNFS settings (PNFS_MDS, PNFS_DS, Stripe_Unit, Stripe_Count, Data_Server) and Test_Hooks Skip_Confinement and Stall_Dir/Ms cannot change without a restart",
			orig->root_path);
		err_type->invalid = true;
		return posix2fsal_status(EINVAL);
	}
	status = update_export(fsal_hdl, parse_node, err_type, original,
			       updated_super);
	if (FSAL_IS_ERROR(status))
		return status;

	atomic_store_uint64_t(&orig->min_hole_size, cfg.min_hole_size);
	sparse_map_old_min_hole(cfg.min_hole_size);
	sparse_test_hooks_update(orig->root_path, &orig->test, &cfg.test);
	__atomic_store_n(&orig->durable_md, cfg.durable_md, __ATOMIC_RELEASE);
	atomic_store_uint32_t(&orig->copy_engine, cfg.copy_engine);
	LogEvent(COMPONENT_FSAL, "FSAL_SPARSE export %s updated",
		 orig->root_path);
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}
