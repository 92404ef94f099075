/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * The descriptors of data-server handles, kept across compounds.
 *
 * Ganesha 6.5 makes a DS handle at every PUTFH and releases it at the end
 * of the compound; it caches none.  Opening the file by handle for each
 * compound (twice for a WRITE: read-only, then for writing) costs system
 * calls on a local filesystem, and on a FUSE mount (ceph-fuse) every close
 * is a FLUSH, which writes the client's cached data back and gives its
 * capabilities up before the reply.  So a released handle leaves its
 * descriptor here, idle, for the next compound on the same file through
 * the same export (sparse_ds.c).
 *
 * A kept descriptor authorizes nothing.  Every check of a data-server I/O
 * is made for each compound and I/O as with a fresh open
 * (sparse_ds_authorized: the metadata server's boot, the file's place in
 * the export, its grant under the flock, the caller's permission), and a
 * file that lost its last name is NFS4ERR_STALE as an open by handle of
 * it would be.  A compound uses a descriptor alone: it is taken off the
 * list at PUTFH and given back at release, so the flock(2) a WRITE takes,
 * which belongs to the open file description, is never shared with
 * another compound's (two compounds on one file use two descriptors): the
 * fence's rule is unchanged.  Not given back (closed): a descriptor whose
 * handle was refused or met an error.  Closed later: one unused for
 * SPARSE_DS_FD_IDLE_MS (a kept descriptor holds the file open: the
 * leases behind delegations of it, and a removed file's space, wait for
 * that), the oldest beyond SPARSE_DS_FDS_MAX, and an export's all at its
 * release.
 *
 * Locking: sparse_ds_fds.mtx guards the list, its entries, count and the
 * reaper's state.  Nothing is called with it held but memory allocation
 * and the condition variable; descriptors are closed after it is dropped
 * (a close on FUSE writes data back).  The list is newest first.
 */

#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsal.h"
#include "abstract_mem.h"
#include "gsh_list.h"
#include "sparse_int.h"
#include "sparse_pnfs.h"

struct sparse_ds_fd {
	struct glist_head link;
	const struct sparse_export *exp;
	struct sparse_fh fh;
	int fd;
	bool writable;
	int64_t idle_since; /* ms, CLOCK_MONOTONIC */
};

static struct {
	pthread_mutex_t mtx;
	pthread_cond_t cond;
	struct glist_head idle; /* newest first */
	uint32_t count;
	pthread_t reaper;
	bool reaper_running, stop;
} sparse_ds_fds = {
	.mtx = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.idle = GLIST_HEAD_INIT(sparse_ds_fds.idle),
};

static int64_t sparse_ds_fds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool sparse_ds_fd_is(const struct sparse_ds_fd *e,
			    const struct sparse_export *exp,
			    const struct sparse_fh *fh)
{
	return e->exp == exp && e->fh.len == fh->len &&
	       memcmp(e->fh.bytes, fh->bytes, fh->len) == 0;
}

/* With mtx held: e off the list, onto the caller's list to close. */
static void sparse_ds_fd_unlist(struct sparse_ds_fd *e,
				struct glist_head *to_close)
{
	glist_del(&e->link);
	sparse_ds_fds.count--;
	glist_add_tail(to_close, &e->link);
}

/* Without mtx: close and free what was unlisted. */
static void sparse_ds_fds_close(struct glist_head *to_close)
{
	struct sparse_ds_fd *e;

	while (!glist_empty(to_close)) {
		e = glist_first_entry(to_close, struct sparse_ds_fd, link);
		glist_del(&e->link);
		close(e->fd);
		gsh_free(e);
	}
}

int sparse_ds_fd_take(const struct sparse_export *exp,
		      const struct sparse_fh *fh, bool *writable)
{
	struct sparse_ds_fd *e, *found = NULL;
	struct glist_head *g;
	int fd = -1;

	PTHREAD_MUTEX_lock(&sparse_ds_fds.mtx);
	glist_for_each(g, &sparse_ds_fds.idle)
	{
		e = glist_entry(g, struct sparse_ds_fd, link);
		if (!sparse_ds_fd_is(e, exp, fh))
			continue;
		/* a writable one spares a WRITE its reopening */
		if (found == NULL || (e->writable && !found->writable))
			found = e;
		if (found->writable)
			break;
	}
	if (found != NULL) {
		glist_del(&found->link);
		sparse_ds_fds.count--;
	}
	PTHREAD_MUTEX_unlock(&sparse_ds_fds.mtx);
	if (found != NULL) {
		fd = found->fd;
		*writable = found->writable;
		gsh_free(found);
	}
	return fd;
}

/*
 * The reaper: closes what stayed idle SPARSE_DS_FD_IDLE_MS, sleeping while
 * nothing is kept.
 */
static void *sparse_ds_fds_reaper(void *arg)
{
	struct glist_head to_close;
	struct sparse_ds_fd *e;
	struct timespec until;
	int64_t now, wake;

	SetNameFunction("sparse_ds_fds");
	glist_init(&to_close);
	PTHREAD_MUTEX_lock(&sparse_ds_fds.mtx);
	while (!sparse_ds_fds.stop) {
		if (glist_empty(&sparse_ds_fds.idle)) {
			pthread_cond_wait(&sparse_ds_fds.cond,
					  &sparse_ds_fds.mtx);
			continue;
		}
		now = sparse_ds_fds_now();
		/* the oldest last */
		while (!glist_empty(&sparse_ds_fds.idle)) {
			e = glist_last_entry(&sparse_ds_fds.idle,
					     struct sparse_ds_fd, link);
			if (now - e->idle_since < SPARSE_DS_FD_IDLE_MS)
				break;
			sparse_ds_fd_unlist(e, &to_close);
		}
		if (!glist_empty(&to_close)) {
			PTHREAD_MUTEX_unlock(&sparse_ds_fds.mtx);
			sparse_ds_fds_close(&to_close);
			PTHREAD_MUTEX_lock(&sparse_ds_fds.mtx);
			continue;
		}
		e = glist_last_entry(&sparse_ds_fds.idle, struct sparse_ds_fd,
				     link);
		wake = e->idle_since + SPARSE_DS_FD_IDLE_MS;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += (wake - now) / 1000;
		until.tv_nsec += ((wake - now) % 1000) * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		(void)pthread_cond_timedwait(&sparse_ds_fds.cond,
					     &sparse_ds_fds.mtx, &until);
	}
	PTHREAD_MUTEX_unlock(&sparse_ds_fds.mtx);
	return NULL;
}

/* With mtx held: the reaper runs (false: it cannot, keep nothing). */
static bool sparse_ds_fds_reaper_up(void)
{
	pthread_condattr_t attr;
	int rc;

	if (sparse_ds_fds.reaper_running)
		return true;
	if (sparse_ds_fds.stop)
		return false;
	/* (timed waits on CLOCK_MONOTONIC, as sparse_ds_fds_now) */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_destroy(&sparse_ds_fds.cond);
	pthread_cond_init(&sparse_ds_fds.cond, &attr);
	pthread_condattr_destroy(&attr);
	rc = pthread_create(&sparse_ds_fds.reaper, NULL, sparse_ds_fds_reaper,
			    NULL);
	if (rc != 0) {
		LogCrit(COMPONENT_PNFS,
			"FSAL_SPARSE: no thread to close idle data-server descriptors (%s): none kept",
			strerror(rc));
		sparse_ds_fds.stop = true;
		return false;
	}
	sparse_ds_fds.reaper_running = true;
	return true;
}

void sparse_ds_fd_give(const struct sparse_export *exp,
		       const struct sparse_fh *fh, int fd, bool writable)
{
	struct sparse_ds_fd *e = gsh_malloc(sizeof(*e));
	struct glist_head to_close;
	bool kept;

	glist_init(&to_close);
	e->exp = exp;
	e->fh = *fh;
	e->fd = fd;
	e->writable = writable;
	e->idle_since = sparse_ds_fds_now();

	PTHREAD_MUTEX_lock(&sparse_ds_fds.mtx);
	kept = sparse_ds_fds_reaper_up();
	if (kept) {
		glist_add(&sparse_ds_fds.idle, &e->link);
		sparse_ds_fds.count++;
		if (sparse_ds_fds.count == 1)
			pthread_cond_signal(&sparse_ds_fds.cond);
		while (sparse_ds_fds.count > SPARSE_DS_FDS_MAX)
			sparse_ds_fd_unlist(
				glist_last_entry(&sparse_ds_fds.idle,
						 struct sparse_ds_fd, link),
				&to_close);
	}
	PTHREAD_MUTEX_unlock(&sparse_ds_fds.mtx);
	if (!kept)
		glist_add(&to_close, &e->link);
	sparse_ds_fds_close(&to_close);
}

void sparse_ds_fds_forget(const struct sparse_export *exp)
{
	struct glist_head to_close, *g, *n;
	struct sparse_ds_fd *e;

	glist_init(&to_close);
	PTHREAD_MUTEX_lock(&sparse_ds_fds.mtx);
	for (g = sparse_ds_fds.idle.next; g != &sparse_ds_fds.idle; g = n) {
		n = g->next;
		e = glist_entry(g, struct sparse_ds_fd, link);
		if (e->exp == exp)
			sparse_ds_fd_unlist(e, &to_close);
	}
	PTHREAD_MUTEX_unlock(&sparse_ds_fds.mtx);
	sparse_ds_fds_close(&to_close);
}

void sparse_ds_fds_shutdown(void)
{
	struct glist_head to_close;
	bool running;

	glist_init(&to_close);
	PTHREAD_MUTEX_lock(&sparse_ds_fds.mtx);
	sparse_ds_fds.stop = true;
	running = sparse_ds_fds.reaper_running;
	sparse_ds_fds.reaper_running = false;
	pthread_cond_broadcast(&sparse_ds_fds.cond);
	while (!glist_empty(&sparse_ds_fds.idle))
		sparse_ds_fd_unlist(glist_first_entry(&sparse_ds_fds.idle,
						      struct sparse_ds_fd,
						      link),
				    &to_close);
	PTHREAD_MUTEX_unlock(&sparse_ds_fds.mtx);
	if (running)
		pthread_join(sparse_ds_fds.reaper, NULL);
	sparse_ds_fds_close(&to_close);
}
