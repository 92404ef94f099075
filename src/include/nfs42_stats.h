/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Per-export counters of the NFSv4.2 sparse operations (issues #7 and #8):
 * READ_PLUS replies with the data bytes they carried and the hole bytes
 * they left out, and COPY (sync, async) and CLONE with their bytes.
 *
 * The counters live in the export itself (struct gsh_export's nfs42_stats,
 * patch 0040), so they are found by export id through Ganesha's own export
 * table and go away with the export: no table of ours to keep in step with
 * export removal.  Every update is a relaxed atomic addition, no lock.
 * Admins read them over DBus: org.ganesha.nfsd.exportstats.GetSparseStats
 * (uint16 export_id) on /org/ganesha/nfsd/ExportMgr; ResetStats zeroes
 * them with Ganesha's other statistics (docs/statistics.md).
 *
 * This header includes no Ganesha header (export_mgr.h includes it); the
 * inline nfs42_counters_* functions are unit tested on their own.
 */

#ifndef NFS42_STATS_H
#define NFS42_STATS_H

#include <stdint.h>

enum nfs42_copy_kind {
	NFS42_COPY_SYNC, /* one synchronous COPY reply */
	NFS42_COPY_ASYNC, /* one finished asynchronous copy */
	NFS42_CLONE, /* one CLONE reply */
	NFS42_COPY_KINDS
};

struct nfs42_export_stats {
	uint64_t read_plus_calls;
	uint64_t read_plus_data_bytes; /* bytes of DATA segments sent */
	uint64_t read_plus_hole_bytes; /* bytes of HOLE segments elided */
	uint64_t copy_calls[NFS42_COPY_KINDS];
	uint64_t copy_bytes[NFS42_COPY_KINDS];
};

/* Only uint64_t fields: snapshot and reset walk it as an array. */
_Static_assert(sizeof(struct nfs42_export_stats) ==
		       (3 + 2 * NFS42_COPY_KINDS) * sizeof(uint64_t),
	       "nfs42_export_stats holds only uint64_t counters");

/* Pure counter operations: relaxed atomics, any thread, no lock. */
static inline void nfs42_counters_read_plus(struct nfs42_export_stats *st,
					    uint64_t data_bytes,
					    uint64_t hole_bytes)
{
	__atomic_fetch_add(&st->read_plus_calls, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->read_plus_data_bytes, data_bytes,
			   __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->read_plus_hole_bytes, hole_bytes,
			   __ATOMIC_RELAXED);
}

/* A kind out of range is not counted. */
static inline void nfs42_counters_copy(struct nfs42_export_stats *st,
				       enum nfs42_copy_kind kind,
				       uint64_t bytes)
{
	if ((unsigned int)kind >= NFS42_COPY_KINDS)
		return;
	__atomic_fetch_add(&st->copy_calls[kind], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->copy_bytes[kind], bytes, __ATOMIC_RELAXED);
}

/* Copy st to out, each field read atomically (fields may be a few updates
 * apart: an update adds to two or three fields one after the other).
 */
static inline void nfs42_counters_snapshot(const struct nfs42_export_stats *st,
					   struct nfs42_export_stats *out)
{
	const uint64_t *src = (const uint64_t *)st;
	uint64_t *dst = (uint64_t *)out;
	unsigned int i;

	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

static inline void nfs42_counters_reset(struct nfs42_export_stats *st)
{
	uint64_t *f = (uint64_t *)st;
	unsigned int i;

	for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		__atomic_store_n(&f[i], 0, __ATOMIC_RELAXED);
}

struct gsh_export;

/* One READ_PLUS reply on exp. */
void nfs42_stats_read_plus(struct gsh_export *exp, uint64_t data_bytes,
			   uint64_t hole_bytes);
/* One COPY reply, one finished async copy or one CLONE on exp. */
void nfs42_stats_copy(struct gsh_export *exp, enum nfs42_copy_kind kind,
		      uint64_t bytes);
/* Zero the counters of every export (DBus ResetStats). */
void nfs42_stats_reset_all(void);

#ifdef USE_DBUS
/* GetSparseStats, listed in export_mgr.c's exportstats methods. */
extern struct gsh_dbus_method nfs42_sparse_stats_method;
#endif

#endif /* NFS42_STATS_H */
