/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42 layout, and the pNFS paths of cat and put: through the data
 * servers of the layout the server gives.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* --stats of a pNFS transfer, on stderr. */
static void print_pnfs_stats(const char *path, const struct nfs42_layout *lo,
			     const struct nfs42_pnfs_stats *st)
{
	char addr[80];
	uint32_t i;

	fprintf(stderr,
		"pnfs: %s: stripe unit %u, %u stripes, %u data servers\n", path,
		lo->stripe_unit, lo->nstripes, lo->nds);
	for (i = 0; i < lo->nds; i++) {
		addr_string(&lo->ds[i].addr[0], addr, sizeof(addr));
		fprintf(stderr, "pnfs: ds %u %s %" PRIu64 " bytes %u calls\n",
			i, addr, st->ds_bytes[i], st->ds_calls[i]);
	}
	fprintf(stderr,
		"pnfs: mds %" PRIu64 " bytes, holes %" PRIu64
		" bytes, data servers failed %u, no layout %u, rewrites %u, recalled %s\n",
		st->mds_bytes, st->hole_bytes, st->ds_failed, st->no_layout,
		st->rewrites, st->recalled ? "yes" : "no");
	if (st->seeks)
		fprintf(stderr,
			"pnfs: mds seeks %u, holes skipped %" PRIu64 " bytes\n",
			st->seeks, st->skipped_bytes);
}

/* Whether a LAYOUTGET failure means "no pNFS here, go through the
 * metadata server" rather than an error. */
static bool no_layout_here(int rc)
{
	return rc == NFS4ERR_LAYOUTUNAVAILABLE ||
	       rc == NFS4ERR_UNKNOWN_LAYOUTTYPE || rc == NFS4ERR_NOTSUPP ||
	       rc == NFS4ERR_OP_ILLEGAL || rc == NFS4ERR_LAYOUTTRYLATER ||
	       rc == NFS4ERR_RECALLCONFLICT || rc == NFS4ERR_BADLAYOUT;
}

/* cat through the layout's data servers; 1 when there is no layout. */
int cat_pnfs(struct nfs42_file *f, const char *path,
	     const struct nfs42_stream_opts *so, int fd, bool stats)
{
	struct nfs42_pnfs_opts po;
	struct nfs42_pnfs_stats st;
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	int rc, rc2;

	if (!lo)
		return -ENOMEM;
	rc = nfs42_layout_get(f, LAYOUTIOMODE4_READ, lo);
	if (rc) {
		free(lo);
		if (stats)
			fprintf(stderr, "pnfs: %s: no layout (%s)\n", path,
				nfs42_strerror(rc));
		return rc > 0 && no_layout_here(rc) ? 1 : rc;
	}
	nfs42_pnfs_opts_init(&po);
	po.read_plus = so->read_plus;
	po.skip_holes = so->skip_holes;
	po.depth = so->depth > 16 ? 16 : so->depth;
	rc = nfs42_pnfs_read_fd(f, lo, &po, fd, NULL, &st);
	rc2 = nfs42_layout_return(f, lo);
	if (stats)
		print_pnfs_stats(path, lo, &st);
	free(lo);
	return rc ? rc : rc2;
}

/* put through the layout's data servers; 1 when there is no layout. */
int put_pnfs(const char *path, int fd, uint32_t mode, bool stats)
{
	struct nfs42_pnfs_stats st;
	struct nfs42_layout *lo;
	struct nfs42_file f;
	int rc, rc2;

	rc = nfs42_open(g_cl, path, OPEN4_SHARE_ACCESS_WRITE, UNCHECKED4, mode,
			true, &f);
	if (rc)
		return rc;
	if (stats)
		fprintf(stderr, "put: %s: delegation %s\n", path,
			f.deleg_type == OPEN_DELEGATE_WRITE ? "write" :
			f.deleg_type == OPEN_DELEGATE_READ  ? "read" :
							      "none");
	lo = malloc(sizeof(*lo));
	rc = lo ? nfs42_layout_get(&f, LAYOUTIOMODE4_RW, lo) : -ENOMEM;
	if (rc) {
		if (stats)
			fprintf(stderr, "pnfs: %s: no layout (%s)\n", path,
				nfs42_strerror(rc));
		free(lo);
		rc2 = nfs42_close(&f);
		if (rc > 0 && no_layout_here(rc))
			return rc2 ? rc2 : 1;
		return rc;
	}
	rc = nfs42_pnfs_write_fd(&f, lo, NULL, fd, NULL, &st);
	rc2 = nfs42_layout_return(&f, lo);
	if (stats)
		print_pnfs_stats(path, lo, &st);
	free(lo);
	if (!rc)
		rc = rc2;
	rc2 = nfs42_close(&f);
	return rc ? rc : rc2;
}

/* layout: LAYOUTGET + GETDEVICEINFO of PATH, printed, then returned. */
int cmd_layout(struct nfs42_opts *o, const struct args *args)
{
	const char *path = args->word[0];
	struct nfs42_layout *lo;
	struct nfs42_file f;
	char addr[80];
	uint32_t i, j;
	int rc, rc2;

	rc = nfs42_open(g_cl, path, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE, 0,
			false, &f);
	if (rc)
		return fail(path, rc);
	lo = malloc(sizeof(*lo));
	rc = lo ? nfs42_layout_get(&f, LAYOUTIOMODE4_READ, lo) : -ENOMEM;
	if (!rc) {
		printf("type: files\n");
		printf("iomode: %s\n",
		       lo->iomode == LAYOUTIOMODE4_RW ? "rw" : "read");
		printf("range: %" PRIu64 " %s\n", lo->offset,
		       lo->length == NFS42_LENGTH_EOF ? "eof" : "bytes");
		printf("return_on_close: %s\n",
		       lo->return_on_close ? "yes" : "no");
		printf("deviceid: ");
		for (i = 0; i < NFS4_DEVICEID4_SIZE; i++)
			printf("%02x", lo->deviceid[i]);
		printf("\nstripe_unit: %u\n", lo->stripe_unit);
		printf("packing: %s\n", lo->dense ? "dense" : "sparse");
		printf("commit: %s\n", lo->commit_through_mds ?
					       "metadata server" :
					       "data servers");
		printf("first_stripe_index: %u\n", lo->first_stripe_index);
		printf("pattern_offset: %" PRIu64 "\n", lo->pattern_offset);
		printf("filehandles: %u\n", lo->nfh);
		printf("stripes: %u\n", lo->nstripes);
		for (i = 0; i < lo->nstripes; i++)
			printf("stripe %u: data server %u\n", i,
			       lo->stripe_indices[i]);
		for (i = 0; i < lo->nds; i++) {
			printf("data server %u:", i);
			for (j = 0; j < lo->ds[i].naddr; j++) {
				addr_string(&lo->ds[i].addr[j], addr,
					    sizeof(addr));
				printf(" %s %s", lo->ds[i].addr[j].netid, addr);
			}
			printf("\n");
		}
		rc = nfs42_layout_return(&f, lo);
	}
	free(lo);
	rc2 = nfs42_close(&f);
	if (rc)
		return fail(path, rc);
	return rc2 ? fail(path, rc2) : 0;
}
