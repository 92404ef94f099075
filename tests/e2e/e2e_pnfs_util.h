/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Helpers of the pNFS recall and authority suites (e2e_pnfs_recall,
 * e2e_pnfs_auth): a layout holder answering its back channel on a thread
 * of its own, and another client's truncate.
 */
#ifndef E2E_PNFS_UTIL_H
#define E2E_PNFS_UTIL_H

#include <pthread.h>

#include "nfs42_e2e.h"

#define E2E_PNFS_SERVE_MS 30000

/* A serves its back channel on a thread, returning recalled layouts. */
struct holder {
	struct nfs42_client *cl;
	pthread_t thread;
	unsigned int returned;
	int rc;
	/* only answer callbacks until stop (the layout kept) */
	bool keep;
	bool stop; /* (__atomic: set by the test, read by the thread) */
};

static inline void *holder_main(void *arg)
{
	struct holder *h = arg;

	if (!h->keep) {
		h->rc = nfs42_serve_layout_recalls(h->cl, E2E_PNFS_SERVE_MS,
						   &h->returned);
		return NULL;
	}
	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE) && h->rc >= 0)
		h->rc = nfs42_poll(h->cl, 100);
	if (h->rc > 0)
		h->rc = 0;
	return NULL;
}

static inline void holder_start(struct holder *h, struct nfs42_client *cl,
				bool keep)
{
	h->cl = cl;
	h->returned = 0;
	h->rc = 0;
	h->keep = keep;
	h->stop = false;
	ck_assert_int_eq(pthread_create(&h->thread, NULL, holder_main, h), 0);
}

static inline void holder_join(struct holder *h)
{
	__atomic_store_n(&h->stop, true, __ATOMIC_RELEASE);
	pthread_join(h->thread, NULL);
	ck_assert_int_eq(h->rc, 0);
}

/* B's truncate of path to size: one call, retried on DELAY by the
 * library. */
static inline void truncate_to(struct nfs42_client *b, const char *path,
			       uint64_t size)
{
	struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, size);
	ck_nfs_ok(b, nfs42_setattr_path(b, path, &sa));
}

#endif /* E2E_PNFS_UTIL_H */
