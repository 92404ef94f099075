/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * NFSv4.2 READ_PLUS (RFC 7862 15.10, issue #7) against the harness's export,
 * run once on FSAL_SPARSE (its read_plus slot) and once on FSAL_VFS (the
 * protocol layer's seek2 + read2 fallback):
 *   - files of known layout (sparse writes, DEALLOCATE, 4K-32K runs) walked
 *     with READ_PLUS: segments follow each other inside the range asked,
 *     data is the file's bytes, holes read as zeros in the file, the
 *     segments laid end to end give exactly what READ gives, and the
 *     boundaries are the backing file's SEEK_DATA/SEEK_HOLE layout;
 *   - eof: offset at and past EOF (eof, no segment), a range ending exactly
 *     at EOF (eof), short of it (no eof), count 0;
 *   - limits: count above MaxRead, and a reply to be cached (sa_cachethis)
 *     within the session's small ca_maxresponsesize_cached; a budget in
 *     which no segment fits is NFS4ERR_REP_TOO_BIG_TO_CACHE below EOF;
 *   - a 1 GiB sparse file walked end to end;
 *   - a writer filling holes of the backing file while a reader walks: no
 *     block written before a READ_PLUS was sent comes back as a hole or as
 *     zeros;
 *   - a bad stateid, a wrong open mode, a deny-read open, a directory and
 *     a reader without permission get what READ gets;
 *   - exports with READ_PLUS = false (NOTSUPP), READ_PLUS_Holes = false
 *     (one data segment) and READ_PLUS_Min_Hole = 16384 (short holes
 *     folded), from the --conf-extra of protocols.cmake;
 *   - an NFSv4.1 session gets NFS4ERR_OP_ILLEGAL: READ_PLUS is no op of
 *     minor version 1 (RFC 8881, operation ILLEGAL).
 */
#include <pthread.h>

#include "e2e_fsal_util.h"
#include "rsess.h"

#ifndef E2E_RPCFG_DIR
#error "E2E_RPCFG_DIR must name the directory of the extra exports"
#endif

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define BLK 4096ULL

/* One reply, its data copied out. */
struct rp_reply {
	int status;
	bool eof;
	uint32_t n;
	struct nfs42_rp_seg seg[4096];
	uint8_t *data[4096];
};

static void rp_reply_free(struct rp_reply *r)
{
	for (uint32_t i = 0; i < r->n; i++)
		free(r->data[i]);
	r->n = 0;
}

/* [PUTFH fh, READ_PLUS]: READ_PLUS's status (or the compound's). */
static int rp_call(struct nfs42_client *cl, const struct nfs42_fh *fh,
		   const struct nfs42_stateid *sid, uint64_t off,
		   uint32_t count, bool cachethis, struct rp_reply *out)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	const struct nfs42_res *r;
	int rc, i;

	memset(out, 0, offsetof(struct rp_reply, seg));
	if (cachethis)
		nfs42_compound_cachethis(c, true);
	i = nfs42_op_read_plus(c, sid, off, count);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, i);
	out->status = r ? (int)r->status : rc;
	if (rc == 0 && r != NULL) {
		out->eof = r->u.read_plus.eof;
		out->n = r->u.read_plus.n;
		ck_assert_uint_le(out->n, 4096);
		for (uint32_t k = 0; k < out->n; k++) {
			out->seg[k] = r->u.read_plus.segs[k];
			out->data[k] = NULL;
			if (out->seg[k].type != NFS4_CONTENT_DATA)
				continue;
			out->data[k] = malloc(out->seg[k].length + 1);
			memcpy(out->data[k], out->seg[k].data,
			       out->seg[k].length);
			out->seg[k].data = out->data[k];
		}
	}
	nfs42_compound_free(c);
	return out->status;
}

/* [PUTFH fh, READ]: READ's status. */
static int read_status(struct nfs42_client *cl, const struct nfs42_fh *fh,
		       const struct nfs42_stateid *sid)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	int rc, i;

	i = nfs42_op_read(c, sid, 0, 4096);
	rc = nfs42_compound_run(c);
	if (nfs42_res(c, i) != NULL)
		rc = e2e_op_status(c, i);
	nfs42_compound_free(c);
	return rc;
}

/* ---- layouts --------------------------------------------------------- */

struct run {
	uint64_t off, len;
	bool hole;
};

struct layout {
	struct run r[8192];
	size_t n;
};

static void layout_add(struct layout *l, uint64_t off, uint64_t len, bool hole)
{
	if (len == 0)
		return;
	if (l->n && l->r[l->n - 1].hole == hole &&
	    l->r[l->n - 1].off + l->r[l->n - 1].len == off) {
		l->r[l->n - 1].len += len;
		return;
	}
	ck_assert_uint_lt(l->n, 8192);
	l->r[l->n++] = (struct run){ off, len, hole };
}

/* The backing file's layout by SEEK_DATA/SEEK_HOLE. */
static void backing_layout(const char *rel, struct layout *l)
{
	int fd = e2e_bopen(rel, O_RDONLY);
	off_t size = lseek(fd, 0, SEEK_END), pos = 0;

	l->n = 0;
	while (pos < size) {
		off_t d = lseek(fd, pos, SEEK_DATA), h;

		if (d < 0)
			d = size;
		layout_add(l, pos, d - pos, true);
		if (d >= size)
			break;
		h = lseek(fd, d, SEEK_HOLE);
		ck_assert_int_gt(h, d);
		layout_add(l, d, h - d, false);
		pos = h;
	}
	close(fd);
}

/* Does the backing filesystem keep holes at all (SEEK_HOLE before EOF)? */
static bool backing_has_holes(const char *rel)
{
	struct layout *l = calloc(1, sizeof(*l));
	bool has = false;

	backing_layout(rel, l);
	for (size_t i = 0; i < l->n; i++)
		has |= l->r[i].hole;
	free(l);
	return has;
}

/* The local file's [off, off + len) is exactly data (NULL: zeros). */
static bool local_is(int fd, uint64_t off, uint64_t len, const uint8_t *data)
{
	static uint8_t buf[1 << 20];

	if (data == NULL) {
		/* no data in the range at all: zeros without reading them */
		off_t d = lseek(fd, off, SEEK_DATA);

		if (d < 0 || (uint64_t)d >= off + len)
			return true;
	}
	while (len > 0) {
		size_t n = len > sizeof(buf) ? sizeof(buf) : len;

		ck_assert_int_eq(pread(fd, buf, n, off), (ssize_t)n);
		if (data ? memcmp(buf, data, n) != 0 : !e2e_all_zero(buf, n))
			return false;
		off += n;
		len -= n;
		if (data)
			data += n;
	}
	return true;
}

/*
 * Walk rel from 0 to EOF with READ_PLUS of count bytes, checking each
 * reply against the backing file; the whole file's bytes go to *bytes
 * (unless bytes is NULL), the merged segments to l.
 */
static void walk(struct nfs42_client *cl, const char *rel, uint32_t count,
		 uint8_t **bytes, struct layout *l)
{
	struct nfs42_fh fh = e2e_fh(cl, rel);
	struct stat st = e2e_bstat(rel);
	uint64_t size = st.st_size, off = 0;
	struct rp_reply *r = malloc(sizeof(*r));
	int fd = e2e_bopen(rel, O_RDONLY);
	int calls = 0;

	if (bytes)
		*bytes = calloc(1, size + 1);
	l->n = 0;
	for (;;) {
		uint64_t at = off;

		ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, off, count,
				      false, r),
			      NFS4_OK);
		ck_assert_msg(++calls < 100000, "no progress at %llu",
			      (unsigned long long)off);
		for (uint32_t k = 0; k < r->n; k++) {
			struct nfs42_rp_seg *s = &r->seg[k];
			bool data = s->type == NFS4_CONTENT_DATA;

			ck_assert_msg(s->offset == at,
				      "segment %u at %llu, want %llu", k,
				      (unsigned long long)s->offset,
				      (unsigned long long)at);
			ck_assert_uint_gt(s->length, 0);
			ck_assert_uint_le(s->offset + s->length, off + count);
			ck_assert_uint_le(s->offset + s->length, size);
			if (!data)
				ck_assert_int_eq(s->type, NFS4_CONTENT_HOLE);
			ck_assert_msg(local_is(fd, s->offset, s->length,
					       data ? s->data : NULL),
				      "%s at %llu+%llu: not the file's bytes",
				      data ? "data" : "hole",
				      (unsigned long long)s->offset,
				      (unsigned long long)s->length);
			if (data && bytes)
				memcpy(*bytes + s->offset, s->data, s->length);
			layout_add(l, s->offset, s->length, !data);
			at = s->offset + s->length;
		}
		ck_assert_msg(r->eof == (at == size),
			      "eof %d at %llu, size %llu", r->eof,
			      (unsigned long long)at, (unsigned long long)size);
		rp_reply_free(r);
		if (at >= size)
			break;
		ck_assert_msg(at > off, "empty reply at %llu",
			      (unsigned long long)off);
		off = at;
	}
	close(fd);
	free(r);
}

/* READ_PLUS gives READ's bytes and the backing file's layout. */
static void check_file(struct nfs42_client *cl, const char *rel, uint32_t count)
{
	struct layout *got = calloc(1, sizeof(*got));
	struct layout *want = calloc(1, sizeof(*want));
	struct stat st = e2e_bstat(rel);
	struct nfs42_fh fh = e2e_fh(cl, rel);
	uint8_t *bytes, *viaread = malloc(st.st_size + 1);

	walk(cl, rel, count, &bytes, got);
	if (st.st_size > 0)
		e2e_read_all(cl, &fh, &e2e_anon_stateid, 0, viaread,
			     st.st_size);
	ck_assert_msg(memcmp(bytes, viaread, st.st_size) == 0,
		      "%s: READ_PLUS and READ differ", rel);
	backing_layout(rel, want);
	/* holes are at least 4 KiB on the backing filesystems used here,
	 * the default minimum hole size of both paths: nothing is folded
	 */
	ck_assert_msg(
		got->n == want->n,
		"%s (count %u): %zu runs, backing %zu: first %llu+%llu %s", rel,
		count, got->n, want->n, (unsigned long long)got->r[0].off,
		(unsigned long long)got->r[0].len,
		got->r[0].hole ? "hole" : "data");
	for (size_t i = 0; i < want->n; i++) {
		ck_assert_msg(got->r[i].off == want->r[i].off &&
				      got->r[i].len == want->r[i].len &&
				      got->r[i].hole == want->r[i].hole,
			      "%s run %zu: %llu+%llu %s, backing %llu+%llu %s",
			      rel, i, (unsigned long long)got->r[i].off,
			      (unsigned long long)got->r[i].len,
			      got->r[i].hole ? "hole" : "data",
			      (unsigned long long)want->r[i].off,
			      (unsigned long long)want->r[i].len,
			      want->r[i].hole ? "hole" : "data");
	}
	free(bytes);
	free(viaread);
	free(got);
	free(want);
}

/* A local sparse file: size bytes, data blocks written where wanted. */
static void make_sparse(const char *rel, uint64_t size,
			const uint64_t (*data)[2], size_t n)
{
	int fd = e2e_bopen(rel, O_RDWR | O_CREAT | O_TRUNC);

	ck_assert_int_eq(ftruncate(fd, size), 0);
	for (size_t i = 0; i < n; i++) {
		uint8_t *b = e2e_rand_bytes(data[i][1], data[i][0] + 7);

		b[0] |= 1;
		ck_assert_int_eq(pwrite(fd, b, data[i][1], data[i][0]),
				 (ssize_t)data[i][1]);
		free(b);
	}
	ck_assert_int_eq(fsync(fd), 0);
	close(fd);
}

static bool need_holes(const char *rel)
{
	if (backing_has_holes(rel))
		return true;
	e2e_skip("the backing filesystem reports no holes");
	return false;
}

START_TEST(known_layouts)
{
	struct nfs42_client *cl = e2e_client();
	char *mixed = e2e_uniq("rp-mixed"), *alt = e2e_uniq("rp-alt");
	char *hole = e2e_uniq("rp-hole"), *data = e2e_uniq("rp-data");
	char *dealloc = e2e_uniq("rp-dealloc");
	static const uint64_t mixed_runs[][2] = {
		{ 64 * KiB, 8 * KiB },
		{ 200 * KiB, 5 },
		{ 1 * MiB - 3, 3 },
	};
	uint64_t alt_runs[64][2];
	size_t n = 0;
	uint64_t pos = 0, sizes[] = { 4 * KiB, 8 * KiB, 16 * KiB, 32 * KiB };
	struct nfs42_file f;
	struct nfs42_compound *c;
	uint8_t *b;

	make_sparse(mixed, 1 * MiB, mixed_runs, 3);
	if (!need_holes(mixed))
		goto out;
	/* 4K..32K runs, data and hole in turn, a hole first */
	for (int i = 0; i < 64; i++) {
		uint64_t len = sizes[i % 4];

		if (i % 2) {
			alt_runs[n][0] = pos;
			alt_runs[n][1] = len;
			n++;
		}
		pos += len;
	}
	make_sparse(alt, pos, alt_runs, n);
	make_sparse(hole, 3 * MiB + 1000, NULL, 0);
	b = e2e_rand_bytes(300 * KiB + 17, 5);
	e2e_put_backing(data, b, 300 * KiB + 17);
	free(b);
	/* DEALLOCATE over NFS: two holes punched into a data file */
	b = e2e_rand_bytes(512 * KiB, 9);
	e2e_put_backing(dealloc, b, 512 * KiB);
	free(b);
	f = e2e_open_rw(cl, dealloc);
	c = e2e_cpd(cl, &f.fh);
	nfs42_op_deallocate(c, &f.stateid, 64 * KiB, 128 * KiB);
	nfs42_op_deallocate(c, &f.stateid, 448 * KiB, 64 * KiB);
	ck_nfs_status(e2e_cpd_run(c), NFS4_OK);
	ck_nfs_ok(cl, e2e_close(&f));

	for (int k = 0; k < 3; k++) {
		/* whole MiB replies, odd counts cutting runs, small ones */
		uint32_t count = k == 0 ? 1 * MiB : k == 1 ? 12345 : 4 * KiB;

		check_file(cl, mixed, count);
		check_file(cl, alt, count);
		check_file(cl, hole, count);
		check_file(cl, data, count);
		check_file(cl, dealloc, count);
	}
out:
	nfs42_client_free(cl);
}
END_TEST

START_TEST(eof_cases)
{
	struct nfs42_client *cl = e2e_client();
	char *rel = e2e_uniq("rp-eof"), *tail = e2e_uniq("rp-eof-hole");
	static const uint64_t runs[][2] = { { 8 * KiB, 4 * KiB + 5 } };
	const uint64_t size = 12 * KiB + 5;
	struct rp_reply *r = malloc(sizeof(*r));
	struct nfs42_fh fh;

	make_sparse(rel, size, runs, 1);
	fh = e2e_fh(cl, rel);
	/* at EOF and past it: eof, no segment */
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, size, 4096, false, r),
		      NFS4_OK);
	ck_assert(r->eof);
	ck_assert_uint_eq(r->n, 0);
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, size + 100000, 4096,
			      false, r),
		      NFS4_OK);
	ck_assert(r->eof);
	ck_assert_uint_eq(r->n, 0);
	/* past the export's MaxOffsetRead (INT64_MAX by default), also with
	 * offset + count beyond 2^64: READ's NFS4ERR_FBIG (never an empty
	 * reply without eof, which a client would ask again forever)
	 */
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, 1ULL << 63, 4096,
			      false, r),
		      NFS4ERR_FBIG);
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, UINT64_MAX - 10, 4096,
			      false, r),
		      NFS4ERR_FBIG);
	/* the last offsets below it: eof, nothing */
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, INT64_MAX - 4096,
			      4096, false, r),
		      NFS4_OK);
	ck_assert(r->eof);
	ck_assert_uint_eq(r->n, 0);
	/* a range ending exactly at EOF */
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, size - 10, 10, false,
			      r),
		      NFS4_OK);
	ck_assert(r->eof);
	ck_assert_uint_eq(r->n, 1);
	ck_assert_uint_eq(r->seg[0].offset + r->seg[0].length, size);
	rp_reply_free(r);
	/* one byte short of it; then a count reaching past it */
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, 0, size - 1, false,
			      r),
		      NFS4_OK);
	ck_assert(!r->eof);
	ck_assert_uint_eq(r->seg[r->n - 1].offset + r->seg[r->n - 1].length,
			  size - 1);
	rp_reply_free(r);
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, 100, 1 * MiB, false,
			      r),
		      NFS4_OK);
	ck_assert(r->eof);
	ck_assert_uint_eq(r->seg[0].offset, 100);
	rp_reply_free(r);
	/* count 0: nothing, not EOF */
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, 0, 0, false, r),
		      NFS4_OK);
	ck_assert(!r->eof);
	ck_assert_uint_eq(r->n, 0);

	/* a file ending in a hole: the hole reaches EOF, eof set */
	make_sparse(tail, 1 * MiB, runs, 1);
	fh = e2e_fh(cl, tail);
	if (backing_has_holes(tail)) {
		ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, 4 * KiB,
				      1 * MiB - 4 * KiB, false, r),
			      NFS4_OK);
		ck_assert(r->eof);
		ck_assert_uint_eq(r->n, 3);
		ck_assert_int_eq(r->seg[2].type, NFS4_CONTENT_HOLE);
		ck_assert_uint_eq(r->seg[2].offset + r->seg[2].length, 1 * MiB);
		rp_reply_free(r);
	}
	free(r);
	nfs42_client_free(cl);
}
END_TEST

/* Bytes a reply takes in XDR (READ_PLUS4resok). */
static uint64_t reply_xdr(const struct rp_reply *r)
{
	uint64_t n = 8;

	for (uint32_t k = 0; k < r->n; k++)
		n += r->seg[k].type == NFS4_CONTENT_HOLE ?
			     20 :
			     16 + ((r->seg[k].length + 3) & ~3ULL);
	return n;
}

START_TEST(count_and_budget)
{
	struct nfs42_client *cl = e2e_client();
	char *data = e2e_uniq("rp-budget"), *hole = e2e_uniq("rp-bhole");
	struct rp_reply *r = malloc(sizeof(*r));
	uint8_t *b = e2e_rand_bytes(4 * MiB, 3);
	struct nfs42_fh fh;
	uint64_t got = 0;

	e2e_put_backing(data, b, 4 * MiB);
	make_sparse(hole, 4 * MiB, NULL, 0);
	fh = e2e_fh(cl, data);
	/* a count far above MaxRead: cut, to what the session allows */
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, 0, UINT32_MAX, false,
			      r),
		      NFS4_OK);
	ck_assert_uint_ge(r->n, 1);
	/* within the ca_maxresponsesize the client asks (session.c) */
	ck_assert_uint_le(reply_xdr(r), 1049620 + 8192);
	ck_assert(!r->eof);
	rp_reply_free(r);
	/* a reply to be cached: within ca_maxresponsesize_cached (8 KiB
	 * asked by the client), data cut, read on from where it stopped
	 */
	while (got < 64 * KiB) {
		ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, got,
				      64 * KiB - got, true, r),
			      NFS4_OK);
		ck_assert_uint_eq(r->n, 1);
		ck_assert_uint_le(reply_xdr(r), 8192);
		ck_assert_uint_gt(r->seg[0].length, 0);
		ck_assert_uint_eq(r->seg[0].offset, got);
		ck_assert(memcmp(r->seg[0].data, b + got, r->seg[0].length) ==
			  0);
		got += r->seg[0].length;
		rp_reply_free(r);
	}
	ck_assert_uint_eq(got, 64 * KiB);
	/* a hole costs its header: the whole MiB in one cached reply */
	fh = e2e_fh(cl, hole);
	if (backing_has_holes(hole)) {
		ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, 0, 1 * MiB,
				      true, r),
			      NFS4_OK);
		ck_assert_uint_eq(r->n, 1);
		ck_assert_int_eq(r->seg[0].type, NFS4_CONTENT_HOLE);
		ck_assert_uint_eq(r->seg[0].length, 1 * MiB);
	}
	free(b);
	free(r);
	nfs42_client_free(cl);
}
END_TEST

/*
 * Reply budgets too small for any segment (docs/read_plus.md rules 4 and
 * 7): sessions with ca_maxresponsesize_cached from 0 to 160 bytes, each
 * running [SEQUENCE (cachethis), PUTFH, READ_PLUS] once below EOF and once
 * at EOF.  Where READ_PLUS is reached below EOF it answers data or
 * NFS4ERR_REP_TOO_BIG_TO_CACHE, never NFS4_OK without a segment (which
 * says neither data nor EOF: a client would ask again for ever); at EOF
 * it answers eof.  The sweep passes through budgets of 8 to 27 bytes,
 * where READ_PLUS4resok's 8 fixed bytes fit but no segment does.
 */
static int tiny_rp(struct rsess *s, const struct nfs42_fh *fh, uint64_t off,
		   struct rp_reply *out)
{
	struct nfs42_compound *c = nfs42_compound_new(s->cl);
	const struct nfs42_res *r;
	int rc, i;

	nfs42_compound_no_sequence(c);
	nfs42_op_sequence(c, s->sid, s->seq++, 0, 0, true);
	nfs42_op_putfh(c, fh);
	i = nfs42_op_read_plus(c, &e2e_anon_stateid, off, 4096);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, i);
	out->status = r ? (int)r->status : -1; /* -1: not reached */
	if (r != NULL && r->status == NFS4_OK) {
		out->eof = r->u.read_plus.eof;
		out->n = r->u.read_plus.n;
	}
	(void)rc;
	nfs42_compound_free(c);
	return out->status;
}

START_TEST(tiny_budget_is_too_big)
{
	struct nfs42_client *cl = e2e_client();
	char *rel = e2e_uniq("rp-tiny");
	struct rp_reply *r = malloc(sizeof(*r));
	uint8_t *b = e2e_rand_bytes(64 * KiB, 9);
	struct rsess s = { 0 };
	struct nfs42_fh fh;
	uint32_t cached;
	int too_big = 0, data = 0;

	e2e_put_backing(rel, b, 64 * KiB);
	fh = e2e_fh(cl, rel);
	ck_nfs_ok(cl, rsess_exchange_id(&s, e2e_uniq("rp-tiny-owner")));
	for (cached = 0; cached <= 160; cached++) {
		struct nfs42_chan_attrs fore = { .maxreq = 65536,
						 .maxresp = 65536,
						 .maxresp_cached = cached,
						 .maxops = 16,
						 .maxreqs = 1 };

		ck_nfs_ok(s.cl, rsess_create_session_chan(&s, &fore, NULL,
							  "rp-tiny"));
		s.csseq++;
		memset(r, 0, offsetof(struct rp_reply, seg));
		if (tiny_rp(&s, &fh, 0, r) == NFS4_OK) {
			ck_assert_msg(r->n > 0 || r->eof,
				      "ca_maxresponsesize_cached %u: NFS4_OK "
				      "with no segment and no eof",
				      cached);
			data++;
		} else if (r->status == NFS4ERR_REP_TOO_BIG_TO_CACHE) {
			too_big++;
		} else {
			ck_assert_int_eq(r->status, -1);
		}
		memset(r, 0, offsetof(struct rp_reply, seg));
		if (tiny_rp(&s, &fh, 64 * KiB, r) == NFS4_OK)
			ck_assert_msg(r->eof && r->n == 0,
				      "at EOF: eof %d, %u segments", r->eof,
				      r->n);
	}
	/* the sweep went from "not reached" through too big to data */
	ck_assert_int_ge(too_big, 20);
	ck_assert_int_gt(data, 0);
	nfs42_client_free(s.cl);
	free(b);
	free(r);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(one_gib_walk)
{
	struct nfs42_client *cl = e2e_client();
	char *rel = e2e_uniq("rp-1g");
	static const uint64_t runs[][2] = {
		{ 0, 4 * KiB },
		{ 512 * MiB + 12 * KiB, 100 * KiB },
		{ 1024 * MiB - 4 * KiB, 4 * KiB },
	};
	struct layout *l = calloc(1, sizeof(*l));
	int64_t t0 = e2e_now_ms();

	make_sparse(rel, 1024 * MiB, runs, 3);
	if (!need_holes(rel))
		goto out;
	walk(cl, rel, UINT32_MAX, NULL, l);
	ck_assert_uint_eq(l->n, 5);
	ck_assert(l->r[1].hole && l->r[3].hole);
	printf("1 GiB sparse file walked in %lld ms\n",
	       (long long)(e2e_now_ms() - t0));
out:
	free(l);
	nfs42_client_free(cl);
}
END_TEST

/* ---- a writer filling holes while a reader walks ---------------------- */

#define RACE_BLOCKS 2048 /* 8 MiB file of 4 KiB blocks, all holes at first */

struct race {
	char *rel;
	uint32_t order[RACE_BLOCKS];
	int written; /* atomic: blocks of order[] written so far */
};

static void race_block(uint32_t blk, uint8_t *b)
{
	memset(b, 0, BLK);
	snprintf((char *)b, BLK, "block %u", blk);
	b[BLK - 1] = 0xa5;
}

static void *race_writer(void *arg)
{
	struct race *rc = arg;
	int fd = e2e_bopen(rc->rel, O_WRONLY);
	uint8_t b[BLK];

	for (int i = 0; i < RACE_BLOCKS; i++) {
		race_block(rc->order[i], b);
		if (pwrite(fd, b, BLK, (off_t)rc->order[i] * BLK) != BLK)
			abort();
		__atomic_store_n(&rc->written, i + 1, __ATOMIC_SEQ_CST);
		if (i % 64 == 0)
			usleep(1000);
	}
	close(fd);
	return NULL;
}

START_TEST(writer_fills_holes)
{
	struct nfs42_client *cl = e2e_client();
	struct race *rc = calloc(1, sizeof(*rc));
	struct rp_reply *r = malloc(sizeof(*r));
	static uint8_t filled[RACE_BLOCKS];
	unsigned int seed = 11;
	struct nfs42_fh fh;
	pthread_t th;
	int passes = 0;
	uint8_t want[BLK];

	rc->rel = e2e_uniq("rp-race");
	make_sparse(rc->rel, RACE_BLOCKS * BLK, NULL, 0);
	if (!need_holes(rc->rel))
		goto out;
	for (int i = 0; i < RACE_BLOCKS; i++)
		rc->order[i] = i;
	for (int i = RACE_BLOCKS - 1; i > 0; i--) {
		int j = rand_r(&seed) % (i + 1);
		uint32_t t = rc->order[i];

		rc->order[i] = rc->order[j];
		rc->order[j] = t;
	}
	fh = e2e_fh(cl, rc->rel);
	ck_assert_int_eq(pthread_create(&th, NULL, race_writer, rc), 0);
	do {
		uint64_t off = 0;

		passes++;
		while (off < RACE_BLOCKS * BLK) {
			int before =
				__atomic_load_n(&rc->written, __ATOMIC_SEQ_CST);

			memset(filled, 0, sizeof(filled));
			for (int i = 0; i < before; i++)
				filled[rc->order[i]] = 1;
			ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, off,
					      256 * KiB, false, r),
				      NFS4_OK);
			ck_assert_uint_ge(r->n, 1);
			for (uint32_t k = 0; k < r->n; k++) {
				struct nfs42_rp_seg *s = &r->seg[k];

				for (uint64_t blk = s->offset / BLK;
				     blk * BLK < s->offset + s->length; blk++) {
					if (!filled[blk])
						continue;
					ck_assert_msg(
						s->type == NFS4_CONTENT_DATA,
						"block %llu written before the call, reported as a hole",
						(unsigned long long)blk);
					race_block(blk, want);
					ck_assert_msg(
						memcmp(s->data + (blk * BLK -
								  s->offset),
						       want, BLK) == 0,
						"block %llu written before the call, read wrong",
						(unsigned long long)blk);
				}
			}
			off = r->seg[r->n - 1].offset + r->seg[r->n - 1].length;
			rp_reply_free(r);
		}
	} while (__atomic_load_n(&rc->written, __ATOMIC_SEQ_CST) <
			 RACE_BLOCKS ||
		 passes < 2);
	pthread_join(th, NULL);
	printf("race: %d passes while the writer ran\n", passes);
out:
	free(r);
	free(rc);
	nfs42_client_free(cl);
}
END_TEST

/* ---- READ's errors ----------------------------------------------------- */

/* READ_PLUS and READ on fh with sid both give want (-1: an error). */
static void ck_like_read(struct nfs42_client *cl, const struct nfs42_fh *fh,
			 const struct nfs42_stateid *sid, int want,
			 const char *what)
{
	struct rp_reply *r = malloc(sizeof(*r));
	int rp = rp_call(cl, fh, sid, 0, 4096, false, r);
	int rd = read_status(cl, fh, sid);

	rp_reply_free(r);
	free(r);
	ck_assert_msg(rp == rd, "%s: READ_PLUS %s, READ %s", what,
		      nfs42_strerror(rp), nfs42_strerror(rd));
	if (want < 0)
		ck_assert_msg(rp != NFS4_OK, "%s: NFS4_OK", what);
	else
		ck_assert_msg(rp == want, "%s: %s, want %s", what,
			      nfs42_strerror(rp), nfs42_strerror(want));
}

START_TEST(errors_as_read)
{
	struct nfs42_client *cl = e2e_client(), *other;
	char *rel = e2e_uniq("rp-err"), *dir = e2e_uniq("rp-dir");
	char *priv = e2e_uniq("rp-priv"), *bp;
	struct e2e_open_req wo = { .access = OPEN4_SHARE_ACCESS_WRITE,
				   .deny = OPEN4_SHARE_DENY_READ,
				   .createmode = NFS42_NOCREATE };
	struct nfs42_stateid bad;
	struct nfs42_file f, w;
	struct nfs42_fh dfh, pfh;
	uint8_t b[8192] = { 1 };

	e2e_put_backing(rel, b, sizeof(b));
	e2e_put_backing(priv, b, sizeof(b));
	bp = e2e_backing(priv);
	ck_assert_int_eq(chmod(bp, 0600), 0);
	e2e_bmkdir(dir, 0755);
	f = e2e_open_rw(cl, rel);

	/* a stateid the server never gave */
	bad = f.stateid;
	bad.other[0] ^= 0x5a;
	bad.other[11] ^= 0xa5;
	ck_like_read(cl, &f.fh, &bad, -1, "forged stateid");
	/* an old seqid of a live open */
	bad = f.stateid;
	bad.seqid += 5;
	ck_like_read(cl, &f.fh, &bad, NFS4ERR_BAD_STATEID, "future seqid");
	ck_nfs_ok(cl, e2e_close(&f));

	/* opened for writing only, denying reads: OPENMODE */
	ck_nfs_ok(cl, e2e_open(cl, rel, &wo, &w));
	ck_like_read(cl, &w.fh, &w.stateid, NFS4ERR_OPENMODE, "write open");
	/* and anybody else's anonymous read is refused by the deny */
	other = e2e_client();
	ck_like_read(other, &w.fh, &e2e_anon_stateid, NFS4ERR_LOCKED,
		     "deny-read open");
	ck_nfs_ok(cl, e2e_close(&w));

	/* a directory */
	dfh = e2e_fh(cl, dir);
	ck_like_read(cl, &dfh, &e2e_anon_stateid, NFS4ERR_ISDIR, "directory");

	/* no read permission */
	pfh = e2e_fh(cl, priv);
	nfs42_set_cred(other, 4242, 4242, 0, NULL);
	ck_like_read(other, &pfh, &e2e_anon_stateid, NFS4ERR_ACCESS,
		     "mode 0600, other uid");
	nfs42_client_free(other);
	free(bp);
	nfs42_client_free(cl);
}
END_TEST

/* ---- configuration ---------------------------------------------------- */

/* rel in the extra export's directory sub, seen as /pseudo/rel */
static struct nfs42_fh cfg_file(struct nfs42_client *cl, const char *sub,
				const char *pseudo, const char *rel)
{
	char *local = e2e_fmt("%s/%s/%s", E2E_RPCFG_DIR, sub, rel);
	char *path = e2e_fmt("/%s/%s", pseudo, rel);
	static const uint64_t runs[][2] = { { 64 * KiB, 4 * KiB } };
	int fd = open(local, O_RDWR | O_CREAT | O_TRUNC, 0644);
	uint8_t b[4 * KiB];
	struct nfs42_fh fh;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 1 * MiB), 0);
	memset(b, 7, sizeof(b));
	ck_assert_int_eq(pwrite(fd, b, sizeof(b), runs[0][0]),
			 (ssize_t)sizeof(b));
	close(fd);
	ck_nfs_ok(cl, nfs42_lookup_path(cl, path, &fh, NULL));
	free(local);
	free(path);
	return fh;
}

/*
 * The fold export's file rewritten (same size) as: data [0,4K), hole
 * [4K,8K), data [8K,12K), hole [12K,20K), data [20K,68K), hole
 * [68K,100K), data [100K,104K), hole to 1 MiB.
 */
static void cfg_fold_layout(const char *sub, const char *name)
{
	char *local = e2e_fmt("%s/%s/%s", E2E_RPCFG_DIR, sub, name);
	static const uint64_t runs[][2] = { { 0, 4 * KiB },
					    { 8 * KiB, 4 * KiB },
					    { 20 * KiB, 48 * KiB },
					    { 100 * KiB, 4 * KiB } };
	int fd = open(local, O_RDWR | O_TRUNC);
	uint8_t b[48 * KiB];

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 1 * MiB), 0);
	memset(b, 9, sizeof(b));
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pwrite(fd, b, runs[i][1], runs[i][0]),
				 (ssize_t)runs[i][1]);
	close(fd);
	free(local);
}

/* The fold export sub/pseudo's reply for cfg_fold_layout (see above). */
static void check_fold(struct nfs42_client *cl, struct rp_reply *r,
		       const char *sub, const char *pseudo, const char *name)
{
	struct nfs42_fh fh = cfg_file(cl, sub, pseudo, name);

	cfg_fold_layout(sub, name);
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, 0, 1 * MiB, false, r),
		      NFS4_OK);
	if (r->n > 1) {
		ck_assert_msg(r->n == 4, "%s: %u segments", pseudo, r->n);
		ck_assert_int_eq(r->seg[0].type, NFS4_CONTENT_DATA);
		ck_assert_uint_eq(r->seg[0].offset, 0);
		ck_assert_uint_eq(r->seg[0].length, 64 * KiB + 4 * KiB);
		ck_assert(e2e_all_zero(r->seg[0].data + 4 * KiB, 4 * KiB));
		ck_assert(e2e_all_zero(r->seg[0].data + 12 * KiB, 8 * KiB));
		ck_assert_uint_eq(r->seg[0].data[8 * KiB], 9);
		ck_assert_int_eq(r->seg[1].type, NFS4_CONTENT_HOLE);
		ck_assert_uint_eq(r->seg[1].length, 32 * KiB);
		ck_assert_int_eq(r->seg[2].type, NFS4_CONTENT_DATA);
		ck_assert_int_eq(r->seg[3].type, NFS4_CONTENT_HOLE);
		ck_assert(r->eof);
	} else {
		e2e_skip("the fold export's filesystem reports no holes");
	}
	rp_reply_free(r);
}

START_TEST(config_off_and_no_holes)
{
	struct nfs42_client *cl = e2e_client();
	struct rp_reply *r = malloc(sizeof(*r));
	char *name = e2e_uniq("rp-cfg");
	struct nfs42_fh fh;
	uint8_t buf[4096];
	uint32_t n;
	bool eof;

	/* READ_PLUS = false: NOTSUPP, READ still works */
	fh = cfg_file(cl, "off", "rp_off", name);
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, 0, 4096, false, r),
		      NFS4ERR_NOTSUPP);
	ck_nfs_ok(cl, e2e_read(cl, &fh, &e2e_anon_stateid, 64 * KiB, 4096, buf,
			       sizeof(buf), &n, &eof));
	ck_assert_uint_eq(n, 4096);
	ck_assert_uint_eq(buf[0], 7);

	/* READ_PLUS_Holes = false: the range as one data segment */
	fh = cfg_file(cl, "noholes", "rp_noholes", name);
	ck_nfs_status(rp_call(cl, &fh, &e2e_anon_stateid, 0, 1 * MiB, false, r),
		      NFS4_OK);
	ck_assert_uint_eq(r->n, 1);
	ck_assert_int_eq(r->seg[0].type, NFS4_CONTENT_DATA);
	ck_assert_uint_eq(r->seg[0].length, 1 * MiB);
	ck_assert(e2e_all_zero(r->seg[0].data, 64 * KiB));
	ck_assert_uint_eq(r->seg[0].data[64 * KiB], 7);
	ck_assert(r->eof);
	rp_reply_free(r);

	/* READ_PLUS_Min_Hole = 16384 (the one knob, for every FSAL): the
	 * 4 KiB and 8 KiB holes between data are sent as zeros, the 32 KiB
	 * one and the trailing one stay holes; on FSAL_VFS (seek2 walk), on
	 * FSAL_SPARSE (its read_plus slot reports every hole, the protocol
	 * layer folds), and on FSAL_SPARSE given the knob's old name,
	 * Min_Hole_Size in its FSAL block
	 */
	check_fold(cl, r, "fold", "rp_fold", name);
	check_fold(cl, r, "fold_sparse", "rp_fold_sparse", name);
	check_fold(cl, r, "fold_oldname", "rp_fold_oldname", name);
	rp_reply_free(r);
	free(r);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(nfs41_session)
{
	struct nfs42_client *cl = NULL;
	char *rel = e2e_uniq("rp-41");
	struct nfs42_compound *c;
	struct nfs42_opts o;
	struct nfs42_fh fh;
	uint8_t b[100] = { 3 };

	e2e_put_backing(rel, b, sizeof(b));
	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.minorversion = 1;
	ck_assert_int_eq(nfs42_client_create(&o, &cl), 0);
	fh = e2e_fh(cl, rel);
	c = e2e_cpd(cl, &fh);
	nfs42_op_read_plus(c, &e2e_anon_stateid, 0, 100);
	/* not an op of 4.1: OP_ILLEGAL ends the compound (RFC 8881) */
	ck_nfs_status(nfs42_compound_run(c), NFS4ERR_OP_ILLEGAL);
	nfs42_compound_free(c);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_proto_read_plus");
	TCase *tc = tcase_create("read_plus");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, known_layouts);
	tcase_add_test(tc, eof_cases);
	tcase_add_test(tc, count_and_budget);
	tcase_add_test(tc, tiny_budget_is_too_big);
	tcase_add_test(tc, one_gib_walk);
	tcase_add_test(tc, writer_fills_holes);
	tcase_add_test(tc, errors_as_read);
	tcase_add_test(tc, config_off_and_no_holes);
	tcase_add_test(tc, nfs41_session);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
