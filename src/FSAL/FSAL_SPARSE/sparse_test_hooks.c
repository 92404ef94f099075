/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE test hooks (sparse_test_hooks.h): the Test_Hooks sub-block
 * of the FSAL block and the hooks it switches on.  Nothing here is for
 * production; every setting is logged as a TEST-ONLY warning when the
 * export is created.
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsal.h"
#include "fsal_test_upcall.h"
#include "fsal_up.h"
#include "gsh_config.h"
#include "sparse_int.h"

/* ---- config ------------------------------------------------------------ */

static struct config_item_list sparse_latency_scopes[] = {
	CONFIG_LIST_TOK("ALL", SPARSE_LATENCY_ALL),
	CONFIG_LIST_TOK("UPDATES", SPARSE_LATENCY_UPDATES), CONFIG_LIST_EOL
};

struct config_item sparse_test_hooks_params[] = {
	CONF_ITEM_UI32("Metadata_Latency_Ms", 0, SPARSE_TEST_MS_MAX, 0,
		       sparse_test_hooks, md_latency_ms),
	CONF_ITEM_TOKEN("Latency_Scope", SPARSE_LATENCY_ALL,
			sparse_latency_scopes, sparse_test_hooks,
			md_latency_scope),
	CONF_ITEM_BOOL("Skip_Confinement", false, sparse_test_hooks,
		       skip_confinement),
	CONF_ITEM_PATH("Stall_Dir", 1, MAXPATHLEN, NULL, sparse_test_hooks,
		       stall_dir),
	CONF_ITEM_UI32("Stall_Ms", 0, SPARSE_TEST_MS_MAX, 500,
		       sparse_test_hooks, stall_ms),
	CONFIG_EOL
};

/*
 * Called only when the FSAL block has a Test_Hooks block (absent, the
 * struct stays zero: every hook off).  Whatever it sets, say so.
 */
int sparse_test_hooks_commit(void *node, void *link_mem, void *self_struct,
			     struct config_error_type *err_type)
{
	struct sparse_test_hooks *hooks = self_struct;

	hooks->present = true;
	LogWarn(COMPONENT_FSAL,
		"FSAL_SPARSE: the FSAL block has a Test_Hooks block, TEST-ONLY settings that slow the server down or weaken its checks: Metadata_Latency_Ms = %" PRIu32
		", Latency_Scope = %s, Skip_Confinement = %s, Stall_Dir = %s, Stall_Ms = %" PRIu32,
		hooks->md_latency_ms,
		hooks->md_latency_scope == SPARSE_LATENCY_UPDATES ? "UPDATES" :
								    "ALL",
		hooks->skip_confinement ? "true" : "false",
		hooks->stall_dir ? hooks->stall_dir : "(unset)",
		hooks->stall_ms);
	if (hooks->skip_confinement)
		LogWarn(COMPONENT_FSAL,
			"FSAL_SPARSE: Test_Hooks Skip_Confinement: handles may reach objects outside the export");
	return 0;
}

/* What an export update cannot change */
bool sparse_test_hooks_restart_needed(const struct sparse_test_hooks *now,
				      const struct sparse_test_hooks *cfg)
{
	if ((cfg->stall_dir == NULL) != (now->stall_dir == NULL))
		return true;
	if (cfg->stall_dir != NULL && strcmp(cfg->stall_dir, now->stall_dir))
		return true;
	return cfg->stall_ms != now->stall_ms ||
	       cfg->skip_confinement != now->skip_confinement;
}

/*
 * An export update: the latency may change (atomics, see the struct).
 * Said only when the export has a Test_Hooks block or had a latency: an
 * export without hooks logs nothing about them.
 */
void sparse_test_hooks_update(const char *path, struct sparse_test_hooks *now,
			      const struct sparse_test_hooks *cfg)
{
	uint32_t was = atomic_fetch_uint32_t(&now->md_latency_ms);

	atomic_store_uint32_t(&now->md_latency_ms, cfg->md_latency_ms);
	atomic_store_uint32_t(&now->md_latency_scope, cfg->md_latency_scope);
	if (cfg->present || was != cfg->md_latency_ms)
		LogEvent(
			COMPONENT_FSAL,
			"FSAL_SPARSE export %s: Test_Hooks Metadata_Latency_Ms = %" PRIu32
			" (was %" PRIu32 ")",
			path, cfg->md_latency_ms, was);
}

void sparse_test_hooks_free(struct sparse_test_hooks *hooks)
{
	gsh_free(hooks->stall_dir);
	hooks->stall_dir = NULL;
}

/* ---- the hooks --------------------------------------------------------- */

static struct sparse_test_hooks *sparse_op_hooks(void)
{
	struct fsal_export *exp = op_ctx ? op_ctx->fsal_export : NULL;

	if (exp == NULL || exp->fsal != &SparseModule.fsal)
		return NULL;
	return &sparse_exp(exp)->test;
}

static void sparse_test_sleep_ms(uint32_t ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * Metadata_Latency_Ms: sleep before a backend metadata call of a kind
 * Latency_Scope includes.  Used by tests to show that metadata operations
 * run in parallel (no lock is held here, so N concurrent calls take about
 * one latency, not N).  Every call is counted while a latency is set (the
 * md_read/md_update FSAL statistics).
 */
void sparse_md_delay(enum sparse_md_kind kind)
{
	struct sparse_test_hooks *hooks = sparse_op_hooks();
	uint32_t ms;

	if (hooks == NULL)
		return;
	ms = atomic_fetch_uint32_t(&hooks->md_latency_ms);
	if (ms == 0)
		return;
	/* counted whatever the scope (calls per operation) */
	sparse_md_count(kind);
	if (kind == SPARSE_MD_READ &&
	    atomic_fetch_uint32_t(&hooks->md_latency_scope) ==
		    SPARSE_LATENCY_UPDATES)
		return;
	sparse_test_sleep_ms(ms);
}

/*
 * Stall_Dir: called right after a backend call has its result.  If the
 * marker "<Stall_Dir>/<op>.<what>" exists, remove it and sleep Stall_Ms,
 * so the result reaches MDCACHE that much later.  Removing the marker
 * makes the stall one-shot: the first matching call stalls, any later one
 * (another client's lookup of the same name) does not.  The e2e race
 * tests use it to run another client's update between a backend call and
 * MDCACHE's use of its result.
 */
/* The export's hooks when Stall_Dir markers are armed, else NULL. */
static struct sparse_test_hooks *sparse_stall_hooks(void)
{
	struct sparse_test_hooks *hooks = sparse_op_hooks();

	if (hooks == NULL || hooks->stall_dir == NULL || hooks->stall_ms == 0)
		return NULL;
	return hooks;
}

bool sparse_test_stall(const char *op, const char *what)
{
	struct sparse_test_hooks *hooks = sparse_stall_hooks();
	char path[PATH_MAX];
	int n;

	if (hooks == NULL)
		return false;
	n = snprintf(path, sizeof(path), "%s/%s.%s", hooks->stall_dir, op,
		     what);
	if (n < 0 || (size_t)n >= sizeof(path) || unlink(path) != 0)
		return false;

	LogEvent(COMPONENT_FSAL,
		 "FSAL_SPARSE: test stall %s %s: %" PRIu32 " ms", op, what,
		 hooks->stall_ms);
	sparse_test_sleep_ms(hooks->stall_ms);
	return true;
}

/* sparse_test_stall() for a call on an object named by inode number */
void sparse_test_stall_ino(const char *op, ino_t ino)
{
	char what[24];

	if (sparse_stall_hooks() == NULL)
		return; /* (per WRITE: no formatting when no test stalls) */
	(void)snprintf(what, sizeof(what), "%llu", (unsigned long long)ino);
	sparse_test_stall(op, what);
}

/*
 * Tell MDCACHE that directory dir changed behind it, through the export's
 * upcall vector, as FSALs with upcalls (MEM, GPFS, CEPH) do when another
 * node changes a directory: an update with its new ctime, mtime and change
 * attribute (which also makes MDCACHE distrust its dirents).
 */
static void sparse_test_invalidate_dir(struct fsal_obj_handle *dir)
{
	struct gsh_buffdesc key;
	fsal_status_t status;

	dir->obj_ops->handle_to_key(dir, &key);
	status =
		fsal_test_up_update_dir(op_ctx->fsal_export->up_ops, dir, &key);
	LogEvent(COMPONENT_FSAL,
		 "FSAL_SPARSE: test upcall: directory updated (%s)",
		 msg_fsal_err(status.major));
}

/*
 * A lookup found name in parent: markers "lookup.NAME" (hold the answer
 * back) and "lookup_inval.NAME" (hold it back, then tell MDCACHE the
 * directory changed, as an FSAL with upcalls would).
 */
void sparse_test_lookup_done(struct fsal_obj_handle *parent, const char *name)
{
	sparse_test_stall("lookup", name);
	if (sparse_test_stall("lookup_inval", name))
		sparse_test_invalidate_dir(parent);
}

/* Skip_Confinement (bench/handles.sh): set at create, then only read */
bool sparse_test_skip_confinement(const struct sparse_test_hooks *hooks)
{
	return hooks->skip_confinement;
}
