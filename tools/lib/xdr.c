/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* Bounds-checked XDR encoder and decoder. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nfs42_xdr.h"

void nfs42_xdr_enc_init(struct nfs42_xdr *x)
{
	memset(x, 0, sizeof(*x));
	x->owned = true;
}

void nfs42_xdr_free(struct nfs42_xdr *x)
{
	if (x->owned)
		free(x->buf);
	memset(x, 0, sizeof(*x));
}

void nfs42_xdr_reset(struct nfs42_xdr *x)
{
	x->len = 0;
	x->pos = 0;
	x->err = 0;
}

static uint8_t *enc_space(struct nfs42_xdr *x, size_t n)
{
	uint8_t *p;
	size_t cap;

	if (x->err)
		return NULL;
	if (n > SIZE_MAX / 2 - x->len) {
		x->err = -E2BIG;
		return NULL;
	}
	if (x->len + n > x->cap) {
		cap = x->cap ? x->cap : 256;
		while (cap < x->len + n)
			cap *= 2;
		p = realloc(x->buf, cap);
		if (!p) {
			x->err = -ENOMEM;
			return NULL;
		}
		x->buf = p;
		x->cap = cap;
	}
	p = x->buf + x->len;
	x->len += n;
	return p;
}

static void be32_store(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t be32_load(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

size_t nfs42_xdr_put_u32(struct nfs42_xdr *x, uint32_t v)
{
	uint8_t *p = enc_space(x, 4);

	if (!p)
		return 0;
	be32_store(p, v);
	return x->len - 4;
}

void nfs42_xdr_patch_u32(struct nfs42_xdr *x, size_t off, uint32_t v)
{
	if (!x->err && off + 4 <= x->len)
		be32_store(x->buf + off, v);
}

void nfs42_xdr_put_u64(struct nfs42_xdr *x, uint64_t v)
{
	nfs42_xdr_put_u32(x, v >> 32);
	nfs42_xdr_put_u32(x, (uint32_t)v);
}

void nfs42_xdr_put_bool(struct nfs42_xdr *x, bool v)
{
	nfs42_xdr_put_u32(x, v ? 1 : 0);
}

void nfs42_xdr_put_raw(struct nfs42_xdr *x, const void *src, size_t n)
{
	uint8_t *p = enc_space(x, n);

	if (p && n)
		memcpy(p, src, n);
}

void nfs42_xdr_put_fixed(struct nfs42_xdr *x, const void *src, size_t n)
{
	size_t pad = nfs42_xdr_pad(n);
	uint8_t *p = enc_space(x, n + pad);

	if (!p)
		return;
	if (n)
		memcpy(p, src, n);
	memset(p + n, 0, pad);
}

void nfs42_xdr_put_opaque(struct nfs42_xdr *x, const void *p, size_t n)
{
	if (n > UINT32_MAX) {
		x->err = -E2BIG;
		return;
	}
	nfs42_xdr_put_u32(x, n);
	nfs42_xdr_put_fixed(x, p, n);
}

void nfs42_xdr_put_string(struct nfs42_xdr *x, const char *s)
{
	nfs42_xdr_put_opaque(x, s, s ? strlen(s) : 0);
}

void nfs42_xdr_dec_init(struct nfs42_xdr *x, const void *buf, size_t len)
{
	memset(x, 0, sizeof(*x));
	x->buf = (uint8_t *)buf;
	x->len = len;
}

bool nfs42_xdr_fail(struct nfs42_xdr *x)
{
	if (!x->err)
		x->err = -EBADMSG;
	return false;
}

static const uint8_t *dec_take(struct nfs42_xdr *x, size_t n)
{
	const uint8_t *p;

	if (x->err)
		return NULL;
	if (n > x->len - x->pos) {
		nfs42_xdr_fail(x);
		return NULL;
	}
	p = x->buf + x->pos;
	x->pos += n;
	return p;
}

bool nfs42_xdr_get_u32(struct nfs42_xdr *x, uint32_t *v)
{
	const uint8_t *p = dec_take(x, 4);

	if (!p)
		return false;
	*v = be32_load(p);
	return true;
}

bool nfs42_xdr_get_u64(struct nfs42_xdr *x, uint64_t *v)
{
	const uint8_t *p = dec_take(x, 8);

	if (!p)
		return false;
	*v = (uint64_t)be32_load(p) << 32 | be32_load(p + 4);
	return true;
}

bool nfs42_xdr_get_i64(struct nfs42_xdr *x, int64_t *v)
{
	uint64_t u;

	if (!nfs42_xdr_get_u64(x, &u))
		return false;
	*v = (int64_t)u;
	return true;
}

bool nfs42_xdr_get_bool(struct nfs42_xdr *x, bool *v)
{
	uint32_t u;

	if (!nfs42_xdr_get_u32(x, &u))
		return false;
	if (u > 1)
		return nfs42_xdr_fail(x);
	*v = u;
	return true;
}

bool nfs42_xdr_get_fixed(struct nfs42_xdr *x, void *dst, size_t n)
{
	const uint8_t *p = dec_take(x, n);

	if (!p || !dec_take(x, nfs42_xdr_pad(n)))
		return false;
	if (n)
		memcpy(dst, p, n);
	return true;
}

bool nfs42_xdr_get_opaque_ref(struct nfs42_xdr *x, const uint8_t **pp,
			      uint32_t *n, uint32_t max)
{
	const uint8_t *p;
	uint32_t len;

	if (!nfs42_xdr_get_u32(x, &len))
		return false;
	if (len > max)
		return nfs42_xdr_fail(x);
	p = dec_take(x, len);
	if (!p || !dec_take(x, nfs42_xdr_pad(len)))
		return false;
	*pp = p;
	*n = len;
	return true;
}

bool nfs42_xdr_get_opaque(struct nfs42_xdr *x, void *dst, uint32_t *n,
			  uint32_t max)
{
	const uint8_t *p;

	if (!nfs42_xdr_get_opaque_ref(x, &p, n, max))
		return false;
	if (*n)
		memcpy(dst, p, *n);
	return true;
}

bool nfs42_xdr_get_string(struct nfs42_xdr *x, char *buf, size_t bufsz)
{
	const uint8_t *p;
	uint32_t n;

	if (!bufsz || !nfs42_xdr_get_opaque_ref(x, &p, &n, bufsz - 1))
		return nfs42_xdr_fail(x);
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

bool nfs42_xdr_skip(struct nfs42_xdr *x, size_t n)
{
	return dec_take(x, n) != NULL;
}

bool nfs42_xdr_skip_opaque(struct nfs42_xdr *x)
{
	const uint8_t *p;
	uint32_t n;

	return nfs42_xdr_get_opaque_ref(x, &p, &n, UINT32_MAX);
}

size_t nfs42_xdr_remaining(const struct nfs42_xdr *x)
{
	return x->err ? 0 : x->len - x->pos;
}

const uint8_t *nfs42_xdr_cursor(const struct nfs42_xdr *x)
{
	return x->buf + x->pos;
}
