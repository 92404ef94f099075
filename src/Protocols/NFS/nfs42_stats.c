/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Per-export NFSv4.2 sparse-operation counters (nfs42_stats.h) and their
 * DBus method GetSparseStats on org.ganesha.nfsd.exportstats.
 */

#include "config.h"
#include "log.h"
#include "export_mgr.h"
#include "nfs42_stats.h"
#ifdef USE_DBUS
#include "gsh_dbus.h"
#include "server_stats_private.h"
#endif

void nfs42_stats_read_plus(struct gsh_export *exp, uint64_t data_bytes,
			   uint64_t hole_bytes)
{
	if (exp != NULL)
		nfs42_counters_read_plus(&exp->nfs42_stats, data_bytes,
					 hole_bytes);
}

void nfs42_stats_copy(struct gsh_export *exp, enum nfs42_copy_kind kind,
		      uint64_t bytes)
{
	if (exp != NULL)
		nfs42_counters_copy(&exp->nfs42_stats, kind, bytes);
}

static bool nfs42_stats_reset_one(struct gsh_export *exp, void *unused)
{
	nfs42_counters_reset(&exp->nfs42_stats);
	return true;
}

void nfs42_stats_reset_all(void)
{
	foreach_gsh_export(nfs42_stats_reset_one, false, NULL);
}

#ifdef USE_DBUS

/* Append a (tt) struct: calls and bytes. */
static void nfs42_dbus_append_pair(DBusMessageIter *iter, uint64_t calls,
				   uint64_t bytes)
{
	DBusMessageIter sub;

	dbus_message_iter_open_container(iter, DBUS_TYPE_STRUCT, NULL, &sub);
	dbus_message_iter_append_basic(&sub, DBUS_TYPE_UINT64, &calls);
	dbus_message_iter_append_basic(&sub, DBUS_TYPE_UINT64, &bytes);
	dbus_message_iter_close_container(iter, &sub);
}

static void nfs42_dbus_append_stats(DBusMessageIter *iter,
				    const struct nfs42_export_stats *st)
{
	DBusMessageIter sub;
	int kind;

	dbus_message_iter_open_container(iter, DBUS_TYPE_STRUCT, NULL, &sub);
	dbus_message_iter_append_basic(&sub, DBUS_TYPE_UINT64,
				       &st->read_plus_calls);
	dbus_message_iter_append_basic(&sub, DBUS_TYPE_UINT64,
				       &st->read_plus_data_bytes);
	dbus_message_iter_append_basic(&sub, DBUS_TYPE_UINT64,
				       &st->read_plus_hole_bytes);
	dbus_message_iter_close_container(iter, &sub);

	for (kind = 0; kind < NFS42_COPY_KINDS; kind++)
		nfs42_dbus_append_pair(iter, st->copy_calls[kind],
				       st->copy_bytes[kind]);
}

/*
 * GetSparseStats(q export_id) -> (b status, s error, (tt) time,
 * (ttt) read_plus: calls, data bytes, hole bytes,
 * (tt) copy_sync, (tt) copy_async, (tt) clone: calls, bytes).
 * On error only status and error, as Ganesha's other export methods.
 */
static bool nfs42_dbus_sparse_stats(DBusMessageIter *args, DBusMessage *reply,
				    DBusError *error)
{
	struct nfs42_export_stats snap;
	struct gsh_export *exp = NULL;
	char *errormsg = "OK";
	DBusMessageIter iter;
	struct timespec timestamp;
	uint16_t export_id;

	dbus_message_iter_init_append(reply, &iter);
	if (args == NULL) {
		errormsg = "message has no arguments";
	} else if (dbus_message_iter_get_arg_type(args) != DBUS_TYPE_UINT16) {
		errormsg = "arg not a 16 bit integer";
	} else {
		dbus_message_iter_get_basic(args, &export_id);
		exp = get_gsh_export(export_id);
		if (exp == NULL)
			errormsg = "Export id not found";
	}
	if (exp == NULL) {
		gsh_dbus_status_reply(&iter, false, errormsg);
		return true;
	}

	now(&timestamp);
	nfs42_counters_snapshot(&exp->nfs42_stats, &snap);
	put_gsh_export(exp);

	gsh_dbus_status_reply(&iter, true, errormsg);
	gsh_dbus_append_timestamp(&iter, &timestamp);
	nfs42_dbus_append_stats(&iter, &snap);
	return true;
}

struct gsh_dbus_method nfs42_sparse_stats_method = {
	.name = "GetSparseStats",
	.method = nfs42_dbus_sparse_stats,
	.args = { EXPORT_ID_ARG,
		  STATUS_REPLY,
		  TIMESTAMP_REPLY,
		  { .name = "read_plus", .type = "(ttt)", .direction = "out" },
		  { .name = "copy_sync", .type = "(tt)", .direction = "out" },
		  { .name = "copy_async", .type = "(tt)", .direction = "out" },
		  { .name = "clone", .type = "(tt)", .direction = "out" },
		  END_ARG_LIST }
};

#endif /* USE_DBUS */
