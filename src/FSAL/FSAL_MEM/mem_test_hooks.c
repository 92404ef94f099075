/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_MEM test hooks (mem_test_hooks.h): the Test_Hooks sub-block of the
 * FSAL block and the lookup hook it switches on.  Nothing here is for
 * production; the settings are logged as a TEST-ONLY warning when the
 * export is created.
 *
 * Markers in Stall_Dir, each removed by the call that finds it (one-shot),
 * named after the lookup they act on ("<op>.<name>"):
 *
 *   lookup_create.NAME       a lookup of NAME found nothing; right after
 *                            it another node makes a directory NAME (no
 *                            upcall: MDCACHE finds the name at its next
 *                            dirent cache miss).
 *   lookup_inval.NAME        a lookup found NAME; its answer is held back
 *   lookup_inval_close.NAME  Stall_Ms while another node removes NAME and
 *   lookup_update.NAME       FSAL_MEM sends MDCACHE an upcall for the
 *                            directory: invalidate, invalidate_close or
 *                            update (ctime, mtime, change), the three
 *                            upcalls of FSAL_MEM's own upcall thread
 *                            (mem_up.c, which aims them at random).
 *
 * The removal and its upcall run on a thread of their own, as a clustered
 * FSAL's upcalls do (and FSAL_MEM's, from its MEM_UP thread): with
 * MDCACHE's Parallel_Dir_Updates off the lookup runs under the
 * directory's content_lock, which an invalidate of the directory takes,
 * so an upcall from the lookup's own thread would deadlock.
 */

#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsal.h"
#include "fsal_test_upcall.h"
#include "fsal_up.h"
#include "mem_int.h"

/* ---- config ------------------------------------------------------------ */

struct config_item mem_test_hooks_params[] = {
	CONF_ITEM_PATH("Stall_Dir", 1, MAXPATHLEN, NULL, mem_test_hooks,
		       stall_dir),
	CONF_ITEM_UI32("Stall_Ms", 0, MEM_TEST_MS_MAX, 500, mem_test_hooks,
		       stall_ms),
	CONFIG_EOL
};

/*
 * Called only when the FSAL block has a Test_Hooks block (absent, the
 * struct stays zero: every hook off).  Whatever it sets, say so.
 */
int mem_test_hooks_commit(void *node, void *link_mem, void *self_struct,
			  struct config_error_type *err_type)
{
	struct mem_test_hooks *hooks = self_struct;

	LogWarn(COMPONENT_FSAL,
		"FSAL_MEM: the FSAL block has a Test_Hooks block, TEST-ONLY settings that hold lookups back and change the export behind MDCACHE: Stall_Dir = %s, Stall_Ms = %" PRIu32,
		hooks->stall_dir ? hooks->stall_dir : "(unset)",
		hooks->stall_ms);
	return 0;
}

bool mem_test_hooks_same(const struct mem_test_hooks *a,
			 const struct mem_test_hooks *b)
{
	if ((a->stall_dir == NULL) != (b->stall_dir == NULL))
		return false;
	if (a->stall_dir != NULL && strcmp(a->stall_dir, b->stall_dir) != 0)
		return false;
	return a->stall_ms == b->stall_ms;
}

void mem_test_hooks_free(struct mem_test_hooks *hooks)
{
	gsh_free(hooks->stall_dir);
	hooks->stall_dir = NULL;
}

/* ---- markers ----------------------------------------------------------- */

static void mem_test_sleep_ms(uint32_t ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The marker "<Stall_Dir>/<op>.<name>" existed; it is gone now. */
static bool mem_test_marker(const struct mem_test_hooks *hooks, const char *op,
			    const char *name)
{
	char path[PATH_MAX];
	int n;

	n = snprintf(path, sizeof(path), "%s/%s.%s", hooks->stall_dir, op,
		     name);
	return n > 0 && (size_t)n < sizeof(path) && unlink(path) == 0;
}

/* A name that makes a marker file name in Stall_Dir and nothing else */
static bool mem_test_name_ok(const char *name)
{
	return name[0] != '\0' && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0 && strchr(name, '/') == NULL;
}

/* ---- another node ------------------------------------------------------ */

static fsal_status_t mem_test_up_invalidate(struct mem_fsal_obj_handle *dir,
					    struct gsh_buffdesc *key)
{
	const struct fsal_up_vector *up = dir->mfo_exp->export.up_ops;

	return up->invalidate(up, key, FSAL_UP_INVALIDATE_CACHE);
}

static fsal_status_t
mem_test_up_invalidate_close(struct mem_fsal_obj_handle *dir,
			     struct gsh_buffdesc *key)
{
	const struct fsal_up_vector *up = dir->mfo_exp->export.up_ops;

	return up->invalidate_close(up, key, FSAL_UP_INVALIDATE_CACHE);
}

/* An update with the directory's new times and change attribute */
static fsal_status_t mem_test_up_update(struct mem_fsal_obj_handle *dir,
					struct gsh_buffdesc *key)
{
	return fsal_test_up_update_dir(dir->mfo_exp->export.up_ops,
				       &dir->obj_handle, key);
}

static const struct mem_test_upcall {
	const char *marker;
	const char *upcall;
	fsal_status_t (*send)(struct mem_fsal_obj_handle *dir,
			      struct gsh_buffdesc *key);
} mem_test_upcalls[] = {
	{ "lookup_inval", "invalidate", mem_test_up_invalidate },
	{ "lookup_inval_close", "invalidate_close",
	  mem_test_up_invalidate_close },
	{ "lookup_update", "update", mem_test_up_update },
};

/* One removal by another node, shared by the held-back lookup and the
 * thread that removes (each holds a reference, the last frees it). */
struct mem_test_remote {
	struct mem_fsal_obj_handle *dir; /* a reference held */
	struct fsal_obj_handle *obj; /* a reference held */
	const struct mem_test_upcall *up;
	int32_t refs;
	uint32_t sent; /* the upcall returned */
	char name[];
};

static void mem_test_remote_put(struct mem_test_remote *r)
{
	if (atomic_dec_int32_t(&r->refs) != 0)
		return;
	r->obj->obj_ops->put_ref(r->obj);
	r->dir->obj_handle.obj_ops->put_ref(&r->dir->obj_handle);
	gsh_free(r);
}

/* Another node removes the name, then tells MDCACHE the directory changed */
static void *mem_test_remote_main(void *arg)
{
	struct mem_test_remote *r = arg;
	struct fsal_obj_handle *dir = &r->dir->obj_handle;
	struct gsh_buffdesc key;
	fsal_status_t status;

	status = dir->obj_ops->unlink(dir, r->obj, r->name, NULL, NULL);
	if (!FSAL_IS_ERROR(status)) {
		dir->obj_ops->handle_to_key(dir, &key);
		status = r->up->send(r->dir, &key);
	}
	LogEvent(
		COMPONENT_FSAL,
		"FSAL_MEM: test: another node removed %s and sent the directory's %s upcall: %s",
		r->name, r->up->upcall, msg_fsal_err(status.major));
	atomic_store_uint32_t(&r->sent, 1);
	mem_test_remote_put(r);
	return NULL;
}

/* Hold the lookup's answer back while another node removes the name */
static void mem_test_remote_remove(struct mem_fsal_obj_handle *dir,
				   const char *name,
				   struct fsal_obj_handle *found,
				   const struct mem_test_upcall *up)
{
	uint32_t ms = dir->mfo_exp->test.stall_ms;
	size_t len = strlen(name) + 1;
	struct mem_test_remote *r = gsh_calloc(1, sizeof(*r) + len);
	pthread_t thread;
	int rc;

	memcpy(r->name, name, len);
	r->up = up;
	r->dir = dir;
	dir->obj_handle.obj_ops->get_ref(&dir->obj_handle);
	r->obj = found;
	found->obj_ops->get_ref(found);
	r->refs = 2;

	LogEvent(COMPONENT_FSAL, "FSAL_MEM: test stall %s %s: %" PRIu32 " ms",
		 up->marker, name, ms);
	rc = pthread_create(&thread, NULL, mem_test_remote_main, r);
	if (rc != 0) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_MEM: test: no thread for the removal of %s: %s",
			name, strerror(rc));
		r->refs = 1;
	} else {
		(void)pthread_detach(thread);
	}
	mem_test_sleep_ms(ms);
	if (rc == 0 && !atomic_fetch_uint32_t(&r->sent))
		LogWarn(COMPONENT_FSAL,
			"FSAL_MEM: test: the %s upcall for %s was not sent within Stall_Ms",
			up->upcall, name);
	mem_test_remote_put(r);
}

/* After a lookup that found nothing, another node makes directory name */
static void mem_test_remote_create(struct mem_fsal_obj_handle *dir,
				   const char *name)
{
	struct fsal_obj_handle *new_obj = NULL;
	struct fsal_attrlist attrs;
	fsal_status_t status;

	fsal_prepare_attrs(&attrs, ATTR_MODE);
	attrs.mode = 0755;
	attrs.valid_mask = ATTR_MODE;
	status = dir->obj_handle.obj_ops->mkdir(&dir->obj_handle, name, &attrs,
						&new_obj, NULL, NULL, NULL);
	fsal_release_attrs(&attrs);
	if (!FSAL_IS_ERROR(status))
		new_obj->obj_ops->release(new_obj);
	LogEvent(COMPONENT_FSAL,
		 "FSAL_MEM: test: another node made directory %s: %s", name,
		 msg_fsal_err(status.major));
}

void mem_test_lookup_done(struct mem_fsal_obj_handle *dir, const char *name,
			  struct fsal_obj_handle *found)
{
	const struct mem_test_hooks *hooks = &dir->mfo_exp->test;
	size_t i;

	if (hooks->stall_dir == NULL || !mem_test_name_ok(name))
		return;
	/* A lookup from mem_readdir's callback runs under the directory's
	 * obj_lock, which a change by another node takes: leave it alone. */
	if (op_ctx != NULL && op_ctx->fsal_private == &dir->obj_handle)
		return;
	if (found == NULL) {
		if (mem_test_marker(hooks, "lookup_create", name))
			mem_test_remote_create(dir, name);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(mem_test_upcalls); i++) {
		if (mem_test_marker(hooks, mem_test_upcalls[i].marker, name)) {
			mem_test_remote_remove(dir, name, found,
					       &mem_test_upcalls[i]);
			return;
		}
	}
}
