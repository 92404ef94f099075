/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE test hooks: what the FSAL block's Test_Hooks sub-block
 * switches on, for the e2e tests and benchmarks only.
 *
 *   FSAL {
 *       Name = SPARSE;
 *       Test_Hooks { Metadata_Latency_Ms = 40; Latency_Scope = ALL; }
 *   }
 *
 * Without the sub-block every hook returns at once.  With it, the server
 * logs a TEST-ONLY warning for the export at startup.  The product code
 * calls only the hooks declared here; each is a no-op unless its export's
 * Test_Hooks block asks for it.
 */

#ifndef SPARSE_TEST_HOOKS_H
#define SPARSE_TEST_HOOKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config_parsing.h"

struct fsal_obj_handle;

#define SPARSE_TEST_MS_MAX 10000

/* Latency_Scope values */
enum sparse_latency_scope {
	SPARSE_LATENCY_ALL = 0,
	SPARSE_LATENCY_UPDATES = 1,
};

/* Backend metadata calls, as Latency_Scope tells them apart. */
enum sparse_md_kind {
	SPARSE_MD_READ, /* lookup, getattr, readdir, readlink */
	SPARSE_MD_UPDATE, /* create, mkdir, link, unlink, rename, setattr */
	SPARSE_MD_KINDS
};

/*
 * An export's Test_Hooks block (all zero without one).  md_latency_ms and
 * md_latency_scope are read and written with atomics (an export update
 * may change them); the rest is set at export create and then only read.
 */
struct sparse_test_hooks {
	bool present; /* the FSAL block has a Test_Hooks block */
	uint32_t md_latency_ms; /* Metadata_Latency_Ms */
	uint32_t md_latency_scope; /* Latency_Scope */
	bool skip_confinement; /* Skip_Confinement */
	char *stall_dir; /* Stall_Dir, NULL: off */
	uint32_t stall_ms; /* Stall_Ms */
};

/* The Test_Hooks sub-block of the FSAL block: parameters and commit */
extern struct config_item sparse_test_hooks_params[];
int sparse_test_hooks_commit(void *node, void *link_mem, void *self_struct,
			     struct config_error_type *err_type);
#define SPARSE_TEST_HOOKS_BLOCK(_struct_, _mem_)                            \
	CONF_ITEM_BLOCK("Test_Hooks", sparse_test_hooks_params,             \
			noop_conf_init, sparse_test_hooks_commit, _struct_, \
			_mem_)

/* Export create, update and release */
bool sparse_test_hooks_restart_needed(const struct sparse_test_hooks *now,
				      const struct sparse_test_hooks *cfg);
void sparse_test_hooks_update(const char *path, struct sparse_test_hooks *now,
			      const struct sparse_test_hooks *cfg);
void sparse_test_hooks_free(struct sparse_test_hooks *hooks);

/* The hooks the product code calls (op_ctx names the export) */
void sparse_md_delay(enum sparse_md_kind kind);
bool sparse_test_stall(const char *op, const char *what);
void sparse_test_stall_ino(const char *op, ino_t ino);
void sparse_test_lookup_done(struct fsal_obj_handle *parent, const char *name);
bool sparse_test_skip_confinement(const struct sparse_test_hooks *hooks);

#endif /* SPARSE_TEST_HOOKS_H */
