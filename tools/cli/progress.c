/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Progress of `cp --async`: a bar on a terminal, else plain lines.  The
 * rate counts data only: a hole costs the server nothing, and the bytes
 * of a mostly sparse file per second say nothing (the source's data
 * extents are mapped with SEEK first; without SEEK every byte is data).
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define MAP_MAX 4096

struct progress {
	bool tty;
	struct timespec start;
	double last; /* seconds since start of the last plain line */
	bool drew_full; /* 100 % is drawn once */
	uint64_t ext[MAP_MAX][2]; /* the source's data extents [start, end) */
	size_t next; /* how many */
	bool mapped;
	uint64_t mapped_to; /* extents known up to here; data beyond */
};

/* The data extents of src, as far as MAP_MAX of them go. */
static void map_data(const char *src, struct progress *p)
{
	struct nfs42_file f;
	uint64_t off = 0, d, h;
	bool eof;
	int rc;

	if (nfs42_open(g_cl, src, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE, 0,
		       false, &f))
		return;
	for (;;) {
		rc = nfs42_seek(&f, off, NFS4_CONTENT_DATA, &d, &eof);
		if (rc == NFS4ERR_NXIO || (!rc && eof)) {
			p->mapped_to = UINT64_MAX; /* no data after off */
			break;
		}
		if (rc)
			break;
		rc = nfs42_seek(&f, d, NFS4_CONTENT_HOLE, &h, &eof);
		if (rc || h <= d)
			break;
		if (p->next == MAP_MAX) {
			p->mapped_to = d;
			break;
		}
		p->ext[p->next][0] = d;
		p->ext[p->next][1] = h;
		p->next++;
		off = h;
	}
	p->mapped = !rc || rc == NFS4ERR_NXIO;
	nfs42_close(&f);
}

/* Data bytes in [0, upto) */
static uint64_t data_below(const struct progress *p, uint64_t upto)
{
	uint64_t sum = 0;
	size_t i;

	if (!p->mapped)
		return upto;
	for (i = 0; i < p->next && p->ext[i][0] < upto; i++)
		sum += (upto < p->ext[i][1] ? upto : p->ext[i][1]) -
		       p->ext[i][0];
	if (upto > p->mapped_to)
		sum += upto - p->mapped_to;
	return sum;
}

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

void progress_show(void *arg, uint64_t done, uint64_t total)
{
	struct progress *p = arg;
	double secs = since(&p->start);
	uint64_t data = data_below(p, done), data_total = data_below(p, total);
	double rate = secs > 0 ? (double)data / secs : 0;
	double pct = total ? 100.0 * (double)done / (double)total : 100.0;
	char bar[31];
	int i, fill = (int)(pct * 30 / 100);
	long eta = rate > 0 ? (long)((double)(data_total - data) / rate) : -1;

	if (done >= total) {
		if (p->drew_full)
			return;
		p->drew_full = true;
	}
	if (!p->tty) {
		if (done < total && secs - p->last < 1.0)
			return;
		p->last = secs;
		fprintf(stderr,
			"copied %" PRIu64 " of %" PRIu64 " bytes (%.0f%%), ",
			done, total, pct);
		/* all holes: nothing to copy, no rate to give */
		if (data_total == 0)
			fprintf(stderr, "all holes, no data to copy\n");
		else
			fprintf(stderr,
				"data %" PRIu64 " of %" PRIu64
				" bytes, %.1f MiB/s\n",
				data, data_total, rate / 1048576);
		return;
	}
	for (i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : ' ';
	bar[30] = '\0';
	fprintf(stderr, "\r[%s] %3.0f%% %8.1f/%.1f MiB", bar, pct,
		(double)done / 1048576, (double)total / 1048576);
	if (data_total == 0)
		fprintf(stderr, " (all holes, no data)");
	else if (data_total < total)
		fprintf(stderr, " (data %.1f MiB)",
			(double)data_total / 1048576);
	if (data_total)
		fprintf(stderr, " %7.1f MiB/s", rate / 1048576);
	if (eta >= 0 && done < total)
		fprintf(stderr, " ETA %ld:%02ld ", eta / 60, eta % 60);
	else
		fprintf(stderr, "          ");
}

/* The progress of a copy of src, starting now. */
struct progress *progress_new(const char *src)
{
	static struct progress p; /* MAP_MAX extents: not on the stack */

	p.tty = isatty(2);
	map_data(src, &p);
	clock_gettime(CLOCK_MONOTONIC, &p.start);
	return &p;
}

/* The copy ended: a bar drawn ends its line. */
void progress_end(struct progress *p, bool went_async)
{
	if (p->tty && went_async)
		fputc('\n', stderr);
}
