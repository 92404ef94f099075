// SPDX-License-Identifier: LGPL-3.0-or-later
/*
 * Copyright (C) 2026 The nfs-sparse authors
 *
 * RecoveryBackend = sqlite: client records in one SQLite database (WAL,
 * synchronous=FULL) under the recovery root, with group commit (issue #9;
 * docs/design.md, "Client records"). Built as libganesha_sqlite_recov.so
 * and loaded by nfs4_recovery.c (patch 0050) the way the RADOS backends
 * are.
 *
 * Semantics follow the fs backend: a record is added when a client ID is
 * confirmed and removed when it expires or is destroyed; at grace start
 * the records of the previous instance become the reclaim list ("old"
 * records) and clients re-add themselves; grace end forgets the old
 * records. Unlike fs, a record is durable when add_clid returns (a client
 * whose record cannot be stored is not confirmed: patch 0051), and a
 * removal when rm_clid returns if another client could be granted what
 * the removed one held (see sqlite_rm_clid). What would lose records
 * silently stops the server instead: a grace period that cannot be
 * prepared at start-up (sqlite_recov_init) and old records that cannot be
 * forgotten at its end (grace goes on: sqlite_try_lift_grace).
 */

#include "bsd-base64.h"
#include "client_mgr.h"
#include "config.h"
#include "config_parsing.h"
#include "fsal.h"
#include "log.h"
#include "nfs4.h"
#include "nfs_core.h"
#include "sal_functions.h"
#include "clientdb_batch.h"
#include "clientdb.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* SQLITE_RECOVERY block (docs/configuration.md) */
struct sqlite_recov_param {
	char *database_dir;
	uint32_t window_ms;
	uint32_t busy_timeout_ms;
};

static struct sqlite_recov_param sqlite_param;

static struct config_item sqlite_recov_items[] = {
	CONF_ITEM_PATH("Database_Dir", 1, MAXPATHLEN, NULL, sqlite_recov_param,
		       database_dir),
	CONF_ITEM_UI32("Group_Commit_Window_Ms", 0, 1000, 2, sqlite_recov_param,
		       window_ms),
	CONF_ITEM_UI32("Busy_Timeout_Ms", 0, 60000, CLIENTDB_BUSY_MS,
		       sqlite_recov_param, busy_timeout_ms),
	CONFIG_EOL
};

static void *sqlite_recov_param_init(void *link_mem, void *self_struct)
{
	return self_struct == NULL ? &sqlite_param : NULL;
}

static struct config_block sqlite_recov_blk = {
	.dbus_interface_name = "org.ganesha.nfsd.config.sqlite_recovery",
	.blk_desc.name = "SQLITE_RECOVERY",
	.blk_desc.type = CONFIG_BLOCK,
	.blk_desc.flags = CONFIG_UNIQUE,
	.blk_desc.u.blk.init = sqlite_recov_param_init,
	.blk_desc.u.blk.params = sqlite_recov_items,
	.blk_desc.u.blk.commit = noop_conf_commit
};

static struct clientdb *store;
static struct clientdb_batch *committer;
/* states released before their client's record removal was durable
 * (remove_durably); atomic
 */
static uint64_t released_unremoved;

int sqlite_recov_load_config(config_file_t parse_tree,
			     struct config_error_type *err_type)
{
	(void)load_config_from_parse(parse_tree, &sqlite_recov_blk, NULL, true,
				     err_type);
	if (!config_error_is_harmless(err_type)) {
		LogCrit(COMPONENT_INIT,
			"Error while parsing the SQLITE_RECOVERY block");
		return -1;
	}
	return 0;
}

static const char *db_dir(void)
{
	return sqlite_param.database_dir ? sqlite_param.database_dir :
					   nfs_param.nfsv4_param.recov_root;
}

/*
 * The records clients may reclaim from in this grace period, read at
 * start-up (prepare_grace) and handed to Ganesha once, at grace start
 * (sqlite_read_clids).  Used by Ganesha's main thread only.
 */
struct old_record {
	char *name;
	char **handles; /* base64url, as nfs4_check_deleg_reclaim compares */
	int nhandles;
};

static struct old_record *old_records;
static int old_count;
/* The database holds no old records (grace end wrote it, or no grace
 * period began); under Ganesha's grace_mutex once the server runs.
 */
static bool old_forgotten = true;

static int keep_handle(const void *fh, size_t fhlen, void *arg)
{
	struct old_record *rec = arg;
	char str[NAME_MAX];

	if (base64url_encode(fh, fhlen, str, sizeof(str)) == -1) {
		LogEvent(COMPONENT_CLIENTID,
			 "SQLite recovery: revoked handle too long, skipped");
		return 0;
	}
	rec->handles = gsh_realloc(rec->handles,
				   (rec->nhandles + 1) * sizeof(*rec->handles));
	rec->handles[rec->nhandles++] = gsh_strdup(str);
	return 0;
}

static int keep_client(const void *key, size_t klen, const void *val,
		       size_t vlen, int64_t added, void *arg)
{
	struct clientdb *db = arg;
	struct old_record *rec;

	if (klen == 0 || klen >= PATH_MAX)
		return 0;
	old_records = gsh_realloc(old_records,
				  (old_count + 1) * sizeof(*old_records));
	rec = &old_records[old_count++];
	memset(rec, 0, sizeof(*rec));
	rec->name = gsh_malloc(klen + 1);
	memcpy(rec->name, key, klen);
	rec->name[klen] = '\0';
	return clientdb_foreach_old_revoked(db, key, klen, keep_handle, rec);
}

static void drop_old_records(void)
{
	int i, h;

	for (i = 0; i < old_count; i++) {
		for (h = 0; h < old_records[i].nhandles; h++)
			gsh_free(old_records[i].handles[h]);
		gsh_free(old_records[i].handles);
		gsh_free(old_records[i].name);
	}
	gsh_free(old_records);
	old_records = NULL;
	old_count = 0;
}

/*
 * Grace start, done at start-up: the current records join the old ones
 * (one transaction) and every old record is read.  A restart during
 * grace keeps the old records of the instance before, as long as that
 * grace never ended.
 */
static int prepare_grace(struct clientdb *db)
{
	int rc = clientdb_grace_start(db);

	if (!rc)
		rc = clientdb_foreach_old(db, keep_client, db);
	if (rc)
		drop_old_records();
	else
		old_forgotten = false;
	return rc;
}

/*
 * Start-up fails on what would lose client records silently: a database
 * that cannot be opened or written, and a grace period that cannot be
 * prepared (its clients could not reclaim their state).  What may pass
 * (another process holding the database past Busy_Timeout_Ms, a full
 * filesystem, an I/O error) is tried START_ATTEMPTS times, START_PAUSE_S
 * apart, before the server refuses to start.
 */
#define START_ATTEMPTS 5
#define START_PAUSE_S 1

static bool may_pass(int rc)
{
	return rc == -EBUSY || rc == -ENOSPC || rc == -EIO || rc == -ENOMEM;
}

/* One attempt; *what says which step failed. */
static int start_store(const char *dir, const char **what)
{
	int rc;

	*what = "SQLite recovery database refused";
	rc = clientdb_open(dir, sqlite_param.busy_timeout_ms, &store);
	if (rc || nfs_param.nfsv4_param.graceless)
		return rc;
	*what = "SQLite recovery: cannot start the grace period";
	return prepare_grace(store);
}

static int open_and_prepare(const char *dir)
{
	const char *what;
	int attempt, rc;

	for (attempt = 1;; attempt++) {
		rc = start_store(dir, &what);
		if (!rc)
			return 0;
		if (!may_pass(rc) || attempt == START_ATTEMPTS)
			break;
		LogCrit(COMPONENT_CLIENTID,
			"%s (%s): %s; attempt %d of %d, again in %d s", what,
			strerror(-rc), clientdb_errmsg(store), attempt,
			START_ATTEMPTS, START_PAUSE_S);
		clientdb_close(store);
		store = NULL;
		sleep(START_PAUSE_S);
	}
	LogCrit(COMPONENT_CLIENTID,
		"%s (%s): %s%s; not starting rather than losing client records",
		what, strerror(-rc), clientdb_errmsg(store),
		may_pass(rc) ? ", after every attempt" : "");
	clientdb_close(store);
	store = NULL;
	return rc;
}

static int sqlite_recov_init(void)
{
	const char *dir = db_dir();
	int rc;

	/* Like fs: the default directory is made if missing (parent only). */
	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		LogEvent(COMPONENT_CLIENTID,
			 "Failed to create recovery directory %s: %s", dir,
			 strerror(errno));
	rc = open_and_prepare(dir);
	if (rc)
		return rc;
	rc = clientdb_batch_start(store, sqlite_param.window_ms, &committer);
	if (rc) {
		LogCrit(COMPONENT_CLIENTID,
			"SQLite recovery: committer thread: %s", strerror(-rc));
		drop_old_records();
		clientdb_close(store);
		store = NULL;
		return rc;
	}
	LogEvent(
		COMPONENT_CLIENTID,
		"SQLite recovery database %s/%s (schema %d, group commit window %u ms, busy timeout %u ms)",
		dir, CLIENTDB_FILE, clientdb_version(store),
		sqlite_param.window_ms, sqlite_param.busy_timeout_ms);
	return 0;
}

static void sqlite_recov_shutdown(void)
{
	struct clientdb_batch_stats st;

	if (!committer)
		return;
	clientdb_batch_get_stats(committer, &st);
	clientdb_batch_stop(committer);
	committer = NULL;
	LogEvent(COMPONENT_CLIENTID,
		 "SQLite recovery: %" PRIu64 " changes in %" PRIu64
		 " transactions, %" PRIu64 " failed, %" PRIu64
		 " states released before their record's removal was durable",
		 st.requests, st.commits, st.failed,
		 atomic_fetch_uint64_t(&released_unremoved));
	clientdb_close(store);
	store = NULL;
}

/*
 * The record name of a client (cid_recov_tag, compared by
 * nfs4_chk_clid with the names read at grace start):
 * "<client address>-(<length>:<owner>)", the owner as text when it is all
 * printable and does not start with "0x", else "0x" and its bytes in hex:
 * the owner "0x01" (hex 0x30783031) and the byte 0x01 (0x01) get two
 * names.
 */
static char *make_tag(nfs_client_id_t *clientid)
{
	nfs_client_record_t *cr = clientid->cid_client_record;
	const char *addr = clientid->gsh_client ?
				   clientid->gsh_client->hostaddr_str :
				   "(unknown)";
	const unsigned char *v = (const unsigned char *)cr->cr_client_val;
	int len = cr->cr_client_val_len, i, n;
	bool text = true;
	char owner[2 * NFS4_OPAQUE_LIMIT + 3];
	char *tag;
	size_t tlen;

	if (len < 0 || len > NFS4_OPAQUE_LIMIT)
		len = 0;
	for (i = 0; i < len && text; i++)
		text = v[i] >= 0x20 && v[i] < 0x7f;
	if (len >= 2 && v[0] == '0' && v[1] == 'x')
		text = false; /* would read as hex */
	if (text) {
		memcpy(owner, v, len);
		owner[len] = '\0';
	} else {
		n = snprintf(owner, sizeof(owner), "0x");
		for (i = 0; i < len; i++)
			n += snprintf(owner + n, sizeof(owner) - n, "%02x",
				      v[i]);
	}
	tlen = strlen(addr) + strlen(owner) + 16;
	tag = gsh_malloc(tlen);
	(void)snprintf(tag, tlen, "%s-(%zu:%s)", addr, strlen(owner), owner);
	if (strlen(tag) >= PATH_MAX)
		tag[PATH_MAX - 1] = '\0'; /* cl_name holds PATH_MAX bytes */
	return tag;
}

/*
 * Durable when it returns true. On failure (a database locked by another
 * process beyond Busy_Timeout_Ms, a read-only or full filesystem, an I/O
 * error) the client has no tag and Ganesha does not confirm it: its
 * CREATE_SESSION (SETCLIENTID_CONFIRM) gets NFS4ERR_DELAY and is retried
 * (patch 0051).
 */
static bool sqlite_add_clid_checked(nfs_client_id_t *clientid)
{
	char *tag = make_tag(clientid);
	const char *addr =
		clientid->gsh_client ? clientid->gsh_client->hostaddr_str : "";
	char err[512];
	int rc;

	gsh_free(clientid->cid_recov_tag);
	clientid->cid_recov_tag = NULL;
	rc = clientdb_batch_add(committer, tag, strlen(tag), addr,
				strlen(addr));
	if (rc) {
		clientdb_batch_last_error(committer, err, sizeof(err));
		LogCrit(COMPONENT_CLIENTID,
			"SQLite recovery: record of client %s NOT stored (%s): %s; the client is not confirmed (NFS4ERR_DELAY)",
			tag, strerror(-rc), err);
		gsh_free(tag);
		return false;
	}
	clientid->cid_recov_tag = tag;
	LogDebug(COMPONENT_CLIENTID, "SQLite recovery: added %s", tag);
	return true;
}

static void sqlite_add_clid(nfs_client_id_t *clientid)
{
	(void)sqlite_add_clid_checked(clientid);
}

/*
 * Is this call made while serving a client's request (a conflicting OPEN
 * or LOCK expiring a courtesy client, DESTROY_CLIENTID, a client
 * replacing its old ID)? nfs_client_id_expire stacks its own context
 * (UNKNOWN_REQUEST) over the request's.
 */
static bool in_client_request(void)
{
	struct req_op_context *ctx;

	for (ctx = op_ctx; ctx != NULL; ctx = ctx->saved_op_ctx)
		if (ctx->req_type != UNKNOWN_REQUEST)
			return true;
	return false;
}

/*
 * Does the expiring client still hold state that another client could be
 * granted once it is released (opens, locks, delegations, layouts)?
 * Called under cid_mutex from nfs_client_id_expire, before any of it is
 * released (patch 0057); the client is unhashed, so nothing is added.
 */
static bool holds_state(nfs_client_id_t *clientid)
{
	return !glist_empty(&clientid->cid_openowners) ||
	       !glist_empty(&clientid->cid_lockowners) ||
	       !glist_empty(&clientid->cid_owner.so_owner.so_nfs4_owner
				     .so_state_list);
}

/*
 * A removal that must be durable before the client's state goes is tried
 * RM_ATTEMPTS times (each waits up to Busy_Timeout_Ms for another
 * process's lock), under the client's cid_mutex (nfs4_rm_clid): bounded,
 * so that a database held by another process cannot stop the request
 * (or the reaper) for good.  Should every attempt fail, the state is
 * released all the same, with a CRIT line saying so, and the removal
 * stays queued (written once the database can be): a crash before that
 * would let the client reclaim what others hold by then.  Counted in
 * released_unremoved (logged at shutdown).
 */
#define RM_ATTEMPTS 3

static int remove_durably(const char *tag)
{
	char err[512];
	int attempt, rc;

	for (attempt = 1;; attempt++) {
		rc = clientdb_batch_remove(committer, tag, strlen(tag));
		if (!rc || !may_pass(rc) || attempt == RM_ATTEMPTS)
			break;
		LogCrit(COMPONENT_CLIENTID,
			"SQLite recovery: record of %s not removed yet (%s), attempt %d of %d: its state waits",
			tag, strerror(-rc), attempt, RM_ATTEMPTS);
	}
	if (!rc)
		return 0;
	clientdb_batch_last_error(committer, err, sizeof(err));
	(void)atomic_inc_uint64_t(&released_unremoved);
	LogCrit(COMPONENT_CLIENTID,
		"SQLite recovery: record of %s NOT removed (%s): %s; its state is released all the same, the removal stays queued: should the server stop before it is written, this client could reclaim after the restart what others hold by then",
		tag, strerror(-rc), err);
	return clientdb_batch_remove_nowait(committer, tag, strlen(tag));
}

/*
 * A removal returns once durable when another client may be granted what
 * the removed one held: when made for a request (the request goes on), or
 * when the client holds state (released right after: patch 0057; the
 * reaper's own expiries come through sqlite_rm_clids, patch 0052).
 * Otherwise it is queued and shares transactions; each is durable within
 * the window plus one fsync and before anything queued after it.
 */
static void sqlite_rm_clid(nfs_client_id_t *clientid)
{
	char *tag = clientid->cid_recov_tag;
	bool wait = in_client_request() || holds_state(clientid);
	char err[512];
	int rc;

	if (tag == NULL)
		return;
	clientid->cid_recov_tag = NULL;
	if (wait)
		rc = remove_durably(tag);
	else
		rc = clientdb_batch_remove_nowait(committer, tag, strlen(tag));
	if (rc) {
		clientdb_batch_last_error(committer, err, sizeof(err));
		LogCrit(COMPONENT_CLIENTID,
			"SQLite recovery: record of client %s NOT removed (%s): %s",
			tag, strerror(-rc), err);
	} else {
		LogDebug(COMPONENT_CLIENTID, "SQLite recovery: removed %s%s",
			 tag, wait ? "" : " (queued)");
	}
	gsh_free(tag);
}

/* The tag of a client whose record is gone, unless it expired meanwhile
 * (its own rm_clid then removed the record and dropped the tag).
 */
static void forget_tag(nfs_client_id_t *clientid)
{
	PTHREAD_MUTEX_lock(&clientid->cid_mutex);
	if (clientid->cid_confirmed != EXPIRED_CLIENT_ID) {
		gsh_free(clientid->cid_recov_tag);
		clientid->cid_recov_tag = NULL;
	}
	PTHREAD_MUTEX_unlock(&clientid->cid_mutex);
}

/* A copy of the client's tag while it has a record to remove, else NULL */
static char *tag_to_remove(nfs_client_id_t *clientid)
{
	char *tag = NULL;

	PTHREAD_MUTEX_lock(&clientid->cid_mutex);
	if (clientid->cid_recov_tag != NULL &&
	    clientid->cid_confirmed != EXPIRED_CLIENT_ID)
		tag = gsh_strdup(clientid->cid_recov_tag);
	PTHREAD_MUTEX_unlock(&clientid->cid_mutex);
	return tag;
}

/*
 * A reaper pass (patch 0052): the records of the clients it is about to
 * expire, removed in one transaction (one fsync), durable on return.
 * removed[i] once client i has no record left (removed now, or it had
 * none); its tag is dropped so that its expiry does not remove it again.
 * A client whose removal failed keeps its tag and, the reaper leaving it
 * for its next pass, its state.  The clients cannot renew meanwhile: the
 * reaper passes only those it will not park.
 */
static void sqlite_rm_clids(nfs_client_id_t **clients, bool *removed, int count)
{
	struct clientdb_key *keys = gsh_calloc(count, sizeof(*keys));
	char **tags = gsh_calloc(count, sizeof(*tags));
	int *rcs = gsh_calloc(count, sizeof(*rcs));
	int i, k = 0, n = 0, failed, kept = 0, rc, first_rc = 0;
	char err[512];

	for (i = 0; i < count; i++) {
		tags[i] = tag_to_remove(clients[i]);
		if (tags[i] == NULL)
			continue;
		keys[n].key = tags[i];
		keys[n++].klen = strlen(tags[i]);
	}
	failed = clientdb_batch_remove_all(committer, keys, rcs, n);
	for (i = 0; i < count; i++) {
		removed[i] = true;
		if (tags[i] == NULL)
			continue;
		rc = failed < 0 ? failed : rcs[k++];
		if (rc) {
			removed[i] = false;
			if (!kept++)
				first_rc = rc;
		} else {
			forget_tag(clients[i]);
		}
		gsh_free(tags[i]);
	}
	if (kept) {
		clientdb_batch_last_error(committer, err, sizeof(err));
		LogCrit(COMPONENT_CLIENTID,
			"SQLite recovery: records of %d of %d expiring clients NOT removed (%s): %s; they keep their state until the reaper's next pass",
			kept, n, strerror(-first_rc), err);
	} else if (n) {
		LogDebug(
			COMPONENT_CLIENTID,
			"SQLite recovery: records of %d expiring clients removed together",
			n);
	}
	gsh_free(keys);
	gsh_free(tags);
	gsh_free(rcs);
}

static void sqlite_add_revoke_fh(nfs_client_id_t *clientid, nfs_fh4 *fh)
{
	const char *tag = clientid->cid_recov_tag;
	int rc;

	if (tag == NULL)
		return;
	rc = clientdb_batch_add_revoked(committer, tag, strlen(tag),
					fh->nfs_fh4_val, fh->nfs_fh4_len);
	if (rc)
		LogCrit(COMPONENT_CLIENTID,
			"SQLite recovery: revoked handle of %s NOT stored (%s)",
			tag, strerror(-rc));
}

/*
 * Grace start: every old record (prepared at start-up, when the grace
 * period began in the database) may reclaim.
 */
static void sqlite_read_clids(nfs_grace_start_t *gsp,
			      add_clid_entry_hook add_clid,
			      add_rfh_entry_hook add_rfh)
{
	clid_entry_t *ent;
	int i, h, count = old_count;

	if (gsp) {
		/* takeover events are for clustered setups, not supported */
		LogEvent(COMPONENT_CLIENTID,
			 "SQLite recovery: recovery event %d ignored",
			 gsp->event);
		return;
	}
	for (i = 0; i < old_count; i++) {
		ent = add_clid(old_records[i].name);
		for (h = 0; h < old_records[i].nhandles; h++)
			(void)add_rfh(ent, old_records[i].handles[h]);
		LogDebug(COMPONENT_CLIENTID, "SQLite recovery: may reclaim %s",
			 old_records[i].name);
	}
	drop_old_records();
	LogEvent(COMPONENT_CLIENTID, "SQLite recovery: %d clients may reclaim",
		 count);
}

/*
 * Grace end forgets the old records.  Should that fail, the grace period
 * must not end: the records would stay, and after the next restart those
 * clients could reclaim what others have been granted since.  Ganesha
 * asks try_lift_grace before it lifts grace (under its grace_mutex, at
 * every reaper pass and RECLAIM_COMPLETE count), so the removal is made
 * there and grace goes on, with a CRIT line, until it is written.
 */
static bool forget_old_records(void)
{
	struct clientdb *db;
	int rc;

	if (old_forgotten)
		return true;
	db = clientdb_batch_lock(committer);
	rc = clientdb_grace_end(db);
	if (rc)
		LogCrit(COMPONENT_CLIENTID,
			"SQLite recovery: forgetting the previous instance's records failed (%s): %s; the grace period goes on until they are (retried at each reaper pass): ending it would let those clients reclaim, after the next restart, what others hold by then",
			strerror(-rc), clientdb_errmsg(db));
	clientdb_batch_unlock(committer);
	old_forgotten = rc == 0;
	return old_forgotten;
}

static bool sqlite_try_lift_grace(void)
{
	return forget_old_records();
}

/* Grace lifted without asking try_lift_grace (Graceless): last try. */
static void sqlite_end_grace(void)
{
	if (!forget_old_records())
		LogCrit(COMPONENT_CLIENTID,
			"SQLite recovery: grace ended with the previous instance's records still there");
}

static struct nfs4_recovery_backend sqlite_backend = {
	.recovery_init = sqlite_recov_init,
	.recovery_shutdown = sqlite_recov_shutdown,
	.recovery_read_clids = sqlite_read_clids,
	.add_clid = sqlite_add_clid,
	.add_clid_checked = sqlite_add_clid_checked,
	.rm_clid = sqlite_rm_clid,
	.rm_clids = sqlite_rm_clids,
	.add_revoke_fh = sqlite_add_revoke_fh,
	.end_grace = sqlite_end_grace,
	.try_lift_grace = sqlite_try_lift_grace,
};

void sqlite_recov_backend_init(struct nfs4_recovery_backend **backend)
{
	*backend = &sqlite_backend;
}
