/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* Helpers shared by the nfs42c unit tests. */
#ifndef NFS42_TEST_UTIL_H
#define NFS42_TEST_UTIL_H

#include <check.h>
#include <string.h>

#include "check_run.h"
#include "nfs42.h"

#define EXPECT_U32(x, v)                                \
	do {                                            \
		uint32_t _t = 0;                        \
		ck_assert(nfs42_xdr_get_u32((x), &_t)); \
		ck_assert_uint_eq(_t, (uint32_t)(v));   \
	} while (0)

#define EXPECT_U64(x, v)                                \
	do {                                            \
		uint64_t _t = 0;                        \
		ck_assert(nfs42_xdr_get_u64((x), &_t)); \
		ck_assert_uint_eq(_t, (uint64_t)(v));   \
	} while (0)

#define EXPECT_STR(x, s)                                              \
	do {                                                          \
		char _b[1024];                                        \
		ck_assert(nfs42_xdr_get_string((x), _b, sizeof(_b))); \
		ck_assert_str_eq(_b, (s));                            \
	} while (0)

#define EXPECT_FIXED(x, p, n)                                 \
	do {                                                  \
		uint8_t _b[256];                              \
		ck_assert(nfs42_xdr_get_fixed((x), _b, (n))); \
		ck_assert_mem_eq(_b, (p), (n));               \
	} while (0)

#define EXPECT_END(x) ck_assert_uint_eq(nfs42_xdr_remaining(x), 0)

static inline void put_sid(struct nfs42_xdr *x, const struct nfs42_stateid *s)
{
	nfs42_xdr_put_u32(x, s->seqid);
	nfs42_xdr_put_fixed(x, s->other, NFS4_OTHER_SIZE);
}

static inline void expect_sid(struct nfs42_xdr *x,
			      const struct nfs42_stateid *s)
{
	EXPECT_U32(x, s->seqid);
	EXPECT_FIXED(x, s->other, NFS4_OTHER_SIZE);
}

/* Start a COMPOUND4res: status, tag, number of results. */
static inline void reply_begin(struct nfs42_xdr *x, uint32_t status,
			       uint32_t nres)
{
	nfs42_xdr_enc_init(x);
	nfs42_xdr_put_u32(x, status);
	nfs42_xdr_put_string(x, "");
	nfs42_xdr_put_u32(x, nres);
}

static inline void res_head(struct nfs42_xdr *x, uint32_t op, uint32_t status)
{
	nfs42_xdr_put_u32(x, op);
	nfs42_xdr_put_u32(x, status);
}

#endif
