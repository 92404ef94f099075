/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Unit tests of the server's READ_PLUS result XDR (RFC 7863 shapes in
 * src/include/nfsv42_sparse_xdr.h, reached through Ganesha's nfsv41.h as
 * patch 0010 includes them): exact bytes, data segments encoded by
 * reference to a shared file buffer (its references counted), or copied
 * when the reply is encrypted in place (RPCSEC_GSS privacy), round trips,
 * truncation at every length and garbage rejected without a leak or crash.
 */

#include "config.h"
#include "nfsv41.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* The two logging symbols nfsv41.h's inline routines refer to. */
static log_levels_t test_levels[COMPONENT_COUNT];
log_levels_t *component_log_level = test_levels;

void DisplayLogComponentLevel(log_components_t component, const char *file,
			      int line, const char *function,
			      log_levels_t level, const char *format, ...)
{
}

#define BUFSZ 65536
static uint32_t enc[BUFSZ / 4], enc2[BUFSZ / 4];

static size_t encode(struct sp42_READ_PLUS4res *res, void *buf, size_t size)
{
	XDR x;
	size_t len = 0;

	xdrmem_create(&x, buf, size, XDR_ENCODE);
	if (xdr_sp42_READ_PLUS4res(&x, res))
		len = XDR_GETPOS(&x);
	XDR_DESTROY(&x);
	return len;
}

static bool decode(struct sp42_READ_PLUS4res *res, const void *buf, size_t len)
{
	XDR x;
	bool ok;

	memset(res, 0, sizeof(*res));
	xdrmem_create(&x, (char *)buf, len, XDR_DECODE);
	ok = xdr_sp42_READ_PLUS4res(&x, res);
	XDR_DESTROY(&x);
	return ok;
}

static uint32_t word(const void *buf, size_t i)
{
	return ntohl(((const uint32_t *)buf)[i]);
}

/*
 * hole [0, 8192), data [8192, 8192 + 4099) from iobuf (by reference),
 * hole [12291, 20000), data [20000, 20005) inline, eof.
 */
static struct sp42_iobuf *iob;

static void build(struct sp42_READ_PLUS4res *res)
{
	struct sp42_read_plus_content *c = calloc(4, sizeof(*c));
	size_t i;

	iob = sp42_iobuf_alloc(4099);
	for (i = 0; i < 4099; i++)
		iob->data[i] = (char)(i * 7 + 1);
	memset(res, 0, sizeof(*res));
	res->rp_status = NFS4_OK;
	res->rp_u.rp_resok4.rpr_eof = true;
	res->rp_u.rp_resok4.rpr_contents.rpr_contents_len = 4;
	res->rp_u.rp_resok4.rpr_contents.rpr_contents_val = c;
	c[0].rpc_content = NFS4_CONTENT_HOLE;
	c[0].rpc_u.rpc_hole.di_offset = 0;
	c[0].rpc_u.rpc_hole.di_length = 8192;
	c[1].rpc_content = NFS4_CONTENT_DATA;
	c[1].rpc_u.rpc_data.d_offset = 8192;
	c[1].rpc_u.rpc_data.d_data.d_data_len = 4099;
	c[1].rpc_u.rpc_data.d_data.d_data_val = iob->data;
	c[1].rpc_u.rpc_data.d_buf = iob; /* the result's reference */
	c[2].rpc_content = NFS4_CONTENT_HOLE;
	c[2].rpc_u.rpc_hole.di_offset = 12291;
	c[2].rpc_u.rpc_hole.di_length = 20000 - 12291;
	c[3].rpc_content = NFS4_CONTENT_DATA;
	c[3].rpc_u.rpc_data.d_offset = 20000;
	c[3].rpc_u.rpc_data.d_data.d_data_len = 5;
	c[3].rpc_u.rpc_data.d_data.d_data_val = malloc(5);
	memcpy(c[3].rpc_u.rpc_data.d_data.d_data_val, "tail!", 5);
}

#define BUILT_LEN (4 * 3 + 20 + 16 + 4100 + 20 + 16 + 8)

START_TEST(exact_bytes)
{
	struct sp42_READ_PLUS4res res;
	const uint8_t *b = (const uint8_t *)enc;
	size_t len;

	build(&res);
	len = encode(&res, enc, sizeof(enc));
	ck_assert_uint_eq(len, BUILT_LEN);
	ck_assert_uint_eq(word(enc, 0), NFS4_OK);
	ck_assert_uint_eq(word(enc, 1), 1); /* eof */
	ck_assert_uint_eq(word(enc, 2), 4); /* segments */
	ck_assert_uint_eq(word(enc, 3), NFS4_CONTENT_HOLE);
	ck_assert_uint_eq(word(enc, 5), 0); /* di_offset low */
	ck_assert_uint_eq(word(enc, 7), 8192); /* di_length low */
	ck_assert_uint_eq(word(enc, 8), NFS4_CONTENT_DATA);
	ck_assert_uint_eq(word(enc, 10), 8192); /* d_offset low */
	ck_assert_uint_eq(word(enc, 11), 4099); /* d_data length */
	ck_assert_mem_eq(b + 48, iob->data, 4099);
	ck_assert_mem_eq(b + 48 + 4099, "\0", 1); /* padding */
	ck_assert_uint_eq(word(enc, 12 + 1025), NFS4_CONTENT_HOLE);
	ck_assert_uint_eq(word(enc, 12 + 1025 + 2), 12291);
	ck_assert_uint_eq(word(enc, 12 + 1025 + 4), 20000 - 12291);
	ck_assert_uint_eq(word(enc, 12 + 1030), NFS4_CONTENT_DATA);
	ck_assert_uint_eq(word(enc, 12 + 1030 + 2), 20000);
	ck_assert_uint_eq(word(enc, 12 + 1030 + 3), 5);
	ck_assert_mem_eq(b + 4 * (12 + 1030 + 4), "tail!\0\0\0", 8);
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &res);
}
END_TEST

/* The encoder refers to the buffer and lets go of it: only the result's
 * own reference is left, and freeing the result drops that one.
 */
START_TEST(shared_buffer_references)
{
	struct sp42_READ_PLUS4res res;
	struct sp42_iobuf *keep;

	build(&res);
	keep = iob;
	sp42_iobuf_get(keep); /* the test's, to look at it after the free */
	ck_assert_uint_eq(encode(&res, enc, sizeof(enc)), BUILT_LEN);
	ck_assert_int_eq(keep->refs, 2);
	/* encoded twice (a replayed reply): the same bytes */
	ck_assert_uint_eq(encode(&res, enc2, sizeof(enc2)), BUILT_LEN);
	ck_assert_mem_eq(enc, enc2, BUILT_LEN);
	ck_assert_int_eq(keep->refs, 2);
	/* a stream too short for the data: refused, nothing kept */
	ck_assert_uint_eq(encode(&res, enc2, 100), 0);
	ck_assert_int_eq(keep->refs, 2);
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &res);
	ck_assert_int_eq(keep->refs, 1);
	sp42_iobuf_put(keep);
}
END_TEST

/*
 * A record stream as the server's replies use (ntirpc's xdr_ioq, which
 * libntirpc does not export): bytes put inline are copied into the
 * stream's own buffer, buffers put with xdr_putbufs are kept by reference
 * (one uio reference per vector) at the position they were put.
 */
struct rec_stream {
	XDR x;
	struct xdr_ops ops;
	char mem[BUFSZ];
	struct {
		u_int pos;
		xdr_uio *uio;
	} refs[8];
	int nrefs;
};

static bool rec_putbufs(XDR *x, xdr_uio *uio, u_int flags)
{
	struct rec_stream *r = container_of(x, struct rec_stream, x);

	ck_assert_int_lt(r->nrefs, 8);
	r->refs[r->nrefs].pos = XDR_GETPOS(x);
	r->refs[r->nrefs++].uio = uio;
	uio->uio_references += uio->uio_count;
	return true;
}

/*
 * Encode res into a record stream and take the encoded bytes out into
 * out; with encrypt, do to the stream's vectors what RPCSEC_GSS privacy
 * does (ntirpc's gss_wrap_iov encrypts the vectors in place, the referred
 * ones included): here, flip every byte.  Then the transport is done.
 */
static size_t encode_rec(struct sp42_READ_PLUS4res *res, uint8_t *out,
			 bool encrypt)
{
	struct rec_stream *r = calloc(1, sizeof(*r));
	u_int from = 0, end;
	size_t got = 0;
	int i, v;

	xdrmem_create(&r->x, r->mem, sizeof(r->mem), XDR_ENCODE);
	r->ops = *r->x.x_ops;
	r->ops.x_putbufs = rec_putbufs;
	r->x.x_ops = &r->ops;
	ck_assert(xdr_sp42_READ_PLUS4res(&r->x, res));
	end = XDR_GETPOS(&r->x);
	for (i = 0; i <= r->nrefs; i++) {
		u_int to = i < r->nrefs ? r->refs[i].pos : end;

		memcpy(out + got, r->mem + from, to - from);
		got += to - from;
		from = to;
		for (v = 0; i < r->nrefs && v < r->refs[i].uio->uio_count;
		     v++) {
			xdr_vio *vio = &r->refs[i].uio->uio_vio[v];

			memcpy(out + got, vio->vio_head, vio->vio_length);
			got += vio->vio_length;
			if (encrypt)
				for (size_t k = 0; k < vio->vio_length; k++)
					vio->vio_head[k] ^= 0xff;
		}
	}
	if (encrypt)
		for (size_t k = 0; k < end; k++)
			r->mem[k] ^= 0xff;
	for (i = 0; i < r->nrefs; i++)
		for (v = r->refs[i].uio->uio_count; v > 0; v--)
			r->refs[i].uio->uio_release(r->refs[i].uio,
						    UIO_FLAG_NONE);
	XDR_DESTROY(&r->x);
	free(r);
	return got;
}

/*
 * A reply wrapped with RPCSEC_GSS privacy and cached (sa_cachethis), then
 * replayed: encoded twice from one result.  With the buffer marked for
 * copy (what READ_PLUS does for a privacy request) the replay carries the
 * file's bytes again; by reference (the zero-copy path) the first
 * encryption went into the file buffer and the replay's data is wrong.
 */
START_TEST(wrapped_reply_copies_data)
{
	static uint8_t plain[BUFSZ], first[BUFSZ], replay[BUFSZ];
	struct sp42_READ_PLUS4res res;
	size_t len;

	build(&res);
	iob->copy = true;
	len = encode(&res, plain, sizeof(plain));
	ck_assert_uint_eq(len, BUILT_LEN);
	ck_assert_uint_eq(encode_rec(&res, first, true), len);
	ck_assert_mem_eq(first, plain, len);
	ck_assert_uint_eq(encode_rec(&res, replay, true), len);
	ck_assert_mem_eq(replay, plain, len);
	ck_assert_int_eq(iob->refs, 1);
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &res);

	/* by reference, the same two sends: the replay is not the data */
	build(&res);
	ck_assert_uint_eq(encode_rec(&res, first, true), len);
	ck_assert_mem_eq(first, plain, len);
	ck_assert_uint_eq(encode_rec(&res, replay, true), len);
	ck_assert(memcmp(replay, plain, len) != 0);
	/* and without encryption it stays zero-copy and right */
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &res);
	build(&res);
	ck_assert_uint_eq(encode_rec(&res, first, false), len);
	ck_assert_uint_eq(encode_rec(&res, replay, false), len);
	ck_assert_mem_eq(replay, plain, len);
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &res);
}
END_TEST

START_TEST(round_trip)
{
	struct sp42_READ_PLUS4res res, back;
	struct sp42_read_plus_content *c;
	size_t len;

	build(&res);
	len = encode(&res, enc, sizeof(enc));
	ck_assert(decode(&back, enc, len));
	ck_assert_int_eq(back.rp_status, NFS4_OK);
	ck_assert(back.rp_u.rp_resok4.rpr_eof);
	ck_assert_uint_eq(back.rp_u.rp_resok4.rpr_contents.rpr_contents_len, 4);
	c = back.rp_u.rp_resok4.rpr_contents.rpr_contents_val;
	ck_assert_int_eq(c[1].rpc_content, NFS4_CONTENT_DATA);
	ck_assert_ptr_null(c[1].rpc_u.rpc_data.d_buf);
	ck_assert_uint_eq(c[1].rpc_u.rpc_data.d_data.d_data_len, 4099);
	ck_assert_mem_eq(c[1].rpc_u.rpc_data.d_data.d_data_val, iob->data,
			 4099);
	ck_assert_uint_eq(c[2].rpc_u.rpc_hole.di_offset, 12291);
	/* the decoded copy (inline data) encodes to the same bytes */
	ck_assert_uint_eq(encode(&back, enc2, sizeof(enc2)), len);
	ck_assert_mem_eq(enc, enc2, len);
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &back);
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &res);
}
END_TEST

START_TEST(error_and_empty)
{
	struct sp42_READ_PLUS4res res = { .rp_status = NFS4ERR_BAD_STATEID };
	struct sp42_READ_PLUS4res back;

	ck_assert_uint_eq(encode(&res, enc, sizeof(enc)), 4);
	ck_assert(decode(&back, enc, 4));
	ck_assert_int_eq(back.rp_status, NFS4ERR_BAD_STATEID);
	/* eof with no segment (offset at EOF) */
	res.rp_status = NFS4_OK;
	res.rp_u.rp_resok4.rpr_eof = true;
	ck_assert_uint_eq(encode(&res, enc, sizeof(enc)), 12);
	ck_assert(decode(&back, enc, 12));
	ck_assert(back.rp_u.rp_resok4.rpr_eof);
	ck_assert_uint_eq(back.rp_u.rp_resok4.rpr_contents.rpr_contents_len, 0);
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &back);
}
END_TEST

START_TEST(truncated_every_length)
{
	struct sp42_READ_PLUS4res res, back;
	size_t len, cut;

	build(&res);
	len = encode(&res, enc, sizeof(enc));
	for (cut = 4; cut < len; cut += 4) {
		ck_assert_msg(!decode(&back, enc, cut), "cut %zu", cut);
		xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &back);
	}
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &res);
}
END_TEST

START_TEST(garbage_rejected)
{
	struct sp42_READ_PLUS4res res, back;
	unsigned int seed = 7;
	size_t len, i;
	uint32_t w[5];

	/* an unknown content type */
	w[0] = htonl(NFS4_OK);
	w[1] = htonl(0);
	w[2] = htonl(1);
	w[3] = htonl(2);
	w[4] = 0;
	ck_assert(!decode(&back, w, sizeof(w)));
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &back);
	/* more segments than the bound */
	w[2] = htonl(SP42_MAX_RP_SEGMENTS + 1);
	ck_assert(!decode(&back, w, 16));
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &back);
	/* data longer than the stream and than the bound */
	build(&res);
	len = encode(&res, enc, sizeof(enc));
	enc[11] = htonl(5000);
	ck_assert(!decode(&back, enc, len - 100));
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &back);
	enc[11] = htonl(SP42_MAX_RP_DATA + 4);
	ck_assert(!decode(&back, enc, len));
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &back);
	/* random corruption: decoded or refused, never a crash or leak */
	enc[11] = htonl(4099);
	for (i = 0; i < 20000; i++) {
		uint32_t saved;
		size_t at = rand_r(&seed) % (len / 4);

		saved = enc[at];
		enc[at] = rand_r(&seed) % 3 ? htonl(rand_r(&seed) % 8) :
					      (uint32_t)rand_r(&seed);
		(void)decode(&back, enc, len);
		xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &back);
		enc[at] = saved;
	}
	xdr_free((xdrproc_t)xdr_sp42_READ_PLUS4res, &res);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("read_plus_xdr");
	TCase *tc = tcase_create("xdr");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, exact_bytes);
	tcase_add_test(tc, shared_buffer_references);
	tcase_add_test(tc, wrapped_reply_copies_data);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, error_and_empty);
	tcase_add_test(tc, truncated_every_length);
	tcase_add_test(tc, garbage_rejected);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
