/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE statistics through Ganesha's FSAL stats mechanism: the copy
 * engine's per-path totals (struct sparse_copy_counters, one set for the
 * module), read with DBus GetFSALStats("SPARSE") on
 * org.ganesha.nfsd.exportstats and zeroed by ResetStats.  Ganesha answers
 * GetFSALStats only while FSAL stats are enabled (NFS_CORE_PARAM
 * Enable_FSAL_Stats, or EnableStats("fsal")); the counting itself is
 * always on.
 *
 * Reply after Ganesha's status and timestamp: s "SPARSE", then
 * a(stt): one (path, calls, bytes) per engine path (clone,
 * copy_file_range, read/write), then (md_read, calls, 0) and
 * (md_update, calls, 0): the backend metadata calls made while the export
 * had a Test_Hooks Metadata_Latency_Ms (bench/creates.sh: calls per create),
 * then s message "OK".
 */

#include "config.h"

#include "fsal.h"
#include "sparse_int.h"
#include "sparse_copy.h"
#ifdef USE_DBUS
#include "gsh_dbus.h"
#endif

static struct sparse_copy_counters sparse_copy_totals;

/* Backend metadata calls under a test latency, by enum sparse_md_kind */
static uint64_t sparse_md_calls[SPARSE_MD_KINDS];
static const char *const sparse_md_names[SPARSE_MD_KINDS] = {
	[SPARSE_MD_READ] = "md_read",
	[SPARSE_MD_UPDATE] = "md_update",
};

void sparse_md_count(enum sparse_md_kind kind)
{
	__atomic_add_fetch(&sparse_md_calls[kind], 1, __ATOMIC_RELAXED);
}

/* Ganesha looks at fsal_module.stats only to know the FSAL has stats. */
static struct fsal_stats sparse_fsal_stats;

struct sparse_copy_counters *sparse_copy_stats(void)
{
	return &sparse_copy_totals;
}

static void sparse_reset_stats(struct fsal_module *const fsal_hdl)
{
	int i;

	for (i = 0; i < SPARSE_COPY_PATHS; i++) {
		__atomic_store_n(&sparse_copy_totals.calls[i], 0,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&sparse_copy_totals.bytes[i], 0,
				 __ATOMIC_RELAXED);
	}
	for (i = 0; i < SPARSE_MD_KINDS; i++)
		__atomic_store_n(&sparse_md_calls[i], 0, __ATOMIC_RELAXED);
}

#ifdef USE_DBUS
static void sparse_extract_stats(struct fsal_module *const fsal_hdl, void *iter)
{
	DBusMessageIter *out = iter;
	DBusMessageIter array, entry;
	const char *name = SPARSE_FSAL_NAME;
	const char *message = "OK";
	uint64_t calls, bytes;
	int i;

	dbus_message_iter_append_basic(out, DBUS_TYPE_STRING, &name);
	dbus_message_iter_open_container(out, DBUS_TYPE_ARRAY, "(stt)", &array);
	/* Path NONE (nothing to copy) moved no data: not listed. */
	for (i = SPARSE_COPY_PATH_CLONE; i < SPARSE_COPY_PATHS; i++) {
		const char *path = sparse_copy_path_name(i);

		calls = __atomic_load_n(&sparse_copy_totals.calls[i],
					__ATOMIC_RELAXED);
		bytes = __atomic_load_n(&sparse_copy_totals.bytes[i],
					__ATOMIC_RELAXED);
		dbus_message_iter_open_container(&array, DBUS_TYPE_STRUCT, NULL,
						 &entry);
		dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &path);
		dbus_message_iter_append_basic(&entry, DBUS_TYPE_UINT64,
					       &calls);
		dbus_message_iter_append_basic(&entry, DBUS_TYPE_UINT64,
					       &bytes);
		dbus_message_iter_close_container(&array, &entry);
	}
	bytes = 0;
	for (i = 0; i < SPARSE_MD_KINDS; i++) {
		calls = __atomic_load_n(&sparse_md_calls[i], __ATOMIC_RELAXED);
		dbus_message_iter_open_container(&array, DBUS_TYPE_STRUCT, NULL,
						 &entry);
		dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING,
					       &sparse_md_names[i]);
		dbus_message_iter_append_basic(&entry, DBUS_TYPE_UINT64,
					       &calls);
		dbus_message_iter_append_basic(&entry, DBUS_TYPE_UINT64,
					       &bytes);
		dbus_message_iter_close_container(&array, &entry);
	}
	dbus_message_iter_close_container(out, &array);
	dbus_message_iter_append_basic(out, DBUS_TYPE_STRING, &message);
}
#endif /* USE_DBUS */

void sparse_stats_init(struct fsal_module *fsal_hdl)
{
	fsal_hdl->stats = &sparse_fsal_stats;
#ifdef USE_DBUS
	fsal_hdl->m_ops.fsal_extract_stats = sparse_extract_stats;
#endif
	fsal_hdl->m_ops.fsal_reset_stats = sparse_reset_stats;
}
