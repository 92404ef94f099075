/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_MEM test hooks: what the FSAL block's Test_Hooks sub-block switches
 * on, for the e2e tests only (compiled into FSAL_MEM by patch 0064).
 *
 *   FSAL {
 *       Name = MEM;
 *       Test_Hooks { Stall_Dir = "/tmp/t/stall"; Stall_Ms = 1500; }
 *   }
 *
 * The names and their meaning follow FSAL_SPARSE's Test_Hooks (Stall_Dir:
 * a directory of one-shot marker files, Stall_Ms: how long a marked call
 * is held back).  FSAL_MEM has no backing store a test could change behind
 * Ganesha, so here the hook itself plays "another node" of a clustered
 * filesystem: it changes FSAL_MEM's tree without MDCACHE and sends the
 * upcall such an FSAL sends (mem_test_hooks.c).  Without the sub-block
 * every hook is off: FSAL_MEM's lookup tests one pointer.
 */

#ifndef MEM_TEST_HOOKS_H
#define MEM_TEST_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include "config_parsing.h"

struct fsal_obj_handle;
struct mem_fsal_obj_handle;

#define MEM_TEST_MS_MAX 10000

/* An export's Test_Hooks block (all zero without one); set at export
 * create, then only read (an export update may not change it). */
struct mem_test_hooks {
	char *stall_dir; /* Stall_Dir, NULL: every hook off */
	uint32_t stall_ms; /* Stall_Ms */
};

/* The Test_Hooks sub-block of the FSAL block: parameters and commit */
extern struct config_item mem_test_hooks_params[];
int mem_test_hooks_commit(void *node, void *link_mem, void *self_struct,
			  struct config_error_type *err_type);
#define MEM_TEST_HOOKS_BLOCK(_struct_, _mem_)                                \
	CONF_ITEM_BLOCK("Test_Hooks", mem_test_hooks_params, noop_conf_init, \
			mem_test_hooks_commit, _struct_, _mem_)

/* Export update and release */
bool mem_test_hooks_same(const struct mem_test_hooks *a,
			 const struct mem_test_hooks *b);
void mem_test_hooks_free(struct mem_test_hooks *hooks);

/*
 * mem_lookup() of name in dir has its result (found, or NULL for none);
 * called only when the export has a Stall_Dir.
 */
void mem_test_lookup_done(struct mem_fsal_obj_handle *dir, const char *name,
			  struct fsal_obj_handle *found);

#endif /* MEM_TEST_HOOKS_H */
