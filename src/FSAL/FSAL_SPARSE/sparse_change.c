/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Change attributes that move on every change through the server
 * (sparse_change.h).  A set-associative table of the objects seen last:
 * SPARSE_CHANGE_SETS sets of SPARSE_CHANGE_WAYS entries, the least
 * recently used entry of a set replaced by a new object.
 *
 * Locking: sparse_change_locks[set % SPARSE_CHANGE_LOCKS] guards the
 * entries of the sets it covers and its clock; held for a few compares
 * only, nothing else is taken under it.
 */

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "sparse_change.h"

#define SPARSE_CHANGE_LOCKS 256

struct sparse_change_entry {
	uint64_t dev, ino;
	uint64_t last; /* the last value reported (0: none yet) */
	uint64_t used; /* the lock's clock when last seen (0: free) */
	bool pending; /* changed by the server since the last report */
};

static struct sparse_change_entry sparse_change_table[SPARSE_CHANGE_SETS]
						     [SPARSE_CHANGE_WAYS];
static uint64_t sparse_change_clock[SPARSE_CHANGE_LOCKS];
static pthread_mutex_t sparse_change_locks[SPARSE_CHANGE_LOCKS] = {
	[0 ... SPARSE_CHANGE_LOCKS - 1] = PTHREAD_MUTEX_INITIALIZER
};

static unsigned int sparse_change_set(uint64_t dev, uint64_t ino)
{
	uint64_t h = (ino ^ (dev << 40)) * 0x9E3779B97F4A7C15ULL;

	return (unsigned int)(h >> 40) & (SPARSE_CHANGE_SETS - 1);
}

/*
 * The entry of (dev, ino) in its set, made (replacing the least recently
 * used) when it has none.  Under the set's lock.
 */
static struct sparse_change_entry *
sparse_change_entry(unsigned int set, uint64_t dev, uint64_t ino)
{
	struct sparse_change_entry *e = sparse_change_table[set], *victim = e;
	uint64_t *clock = &sparse_change_clock[set % SPARSE_CHANGE_LOCKS];
	int i;

	for (i = 0; i < SPARSE_CHANGE_WAYS; i++) {
		if (e[i].used != 0 && e[i].dev == dev && e[i].ino == ino) {
			e[i].used = ++*clock;
			return &e[i];
		}
		if (e[i].used < victim->used)
			victim = &e[i];
	}
	memset(victim, 0, sizeof(*victim));
	victim->dev = dev;
	victim->ino = ino;
	victim->used = ++*clock;
	return victim;
}

void sparse_change_touch(uint64_t dev, uint64_t ino)
{
	unsigned int set = sparse_change_set(dev, ino);
	pthread_mutex_t *lock = &sparse_change_locks[set % SPARSE_CHANGE_LOCKS];

	pthread_mutex_lock(lock);
	sparse_change_entry(set, dev, ino)->pending = true;
	pthread_mutex_unlock(lock);
}

uint64_t sparse_change_report(uint64_t dev, uint64_t ino, uint64_t raw)
{
	unsigned int set = sparse_change_set(dev, ino);
	pthread_mutex_t *lock = &sparse_change_locks[set % SPARSE_CHANGE_LOCKS];
	struct sparse_change_entry *e;
	uint64_t value = raw;

	pthread_mutex_lock(lock);
	e = sparse_change_entry(set, dev, ino);
	if (e->last != 0 && value <= e->last)
		value = e->pending ? e->last + 1 : e->last;
	e->last = value;
	e->pending = false;
	pthread_mutex_unlock(lock);
	return value;
}

void sparse_change_reset(void)
{
	int i;

	for (i = 0; i < SPARSE_CHANGE_LOCKS; i++)
		pthread_mutex_lock(&sparse_change_locks[i]);
	memset(sparse_change_table, 0, sizeof(sparse_change_table));
	memset(sparse_change_clock, 0, sizeof(sparse_change_clock));
	for (i = 0; i < SPARSE_CHANGE_LOCKS; i++)
		pthread_mutex_unlock(&sparse_change_locks[i]);
}
