/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * A small, bounds-checked XDR buffer layer (RFC 4506).
 *
 * Encoders append to a growable buffer; decoders read from a fixed buffer
 * and never read past its end.  Errors are sticky: after the first failure
 * every further call fails too, so a decoder can run a sequence of gets and
 * check x->err once at the end.
 */
#ifndef NFS42_XDR_H
#define NFS42_XDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nfs42_xdr {
	uint8_t *buf;
	size_t len; /* encode: bytes written; decode: bytes available */
	size_t cap; /* encode: allocated size */
	size_t pos; /* decode: read position */
	int err; /* 0 or a negative errno (-ENOMEM, -EBADMSG) */
	bool owned; /* buf was allocated by us */
};

static inline size_t nfs42_xdr_pad(size_t n)
{
	return (4 - (n & 3)) & 3;
}

/* Encoding */
void nfs42_xdr_enc_init(struct nfs42_xdr *x);
void nfs42_xdr_free(struct nfs42_xdr *x);
void nfs42_xdr_reset(struct nfs42_xdr *x);
size_t nfs42_xdr_put_u32(struct nfs42_xdr *x, uint32_t v);
void nfs42_xdr_put_u64(struct nfs42_xdr *x, uint64_t v);
void nfs42_xdr_put_bool(struct nfs42_xdr *x, bool v);
void nfs42_xdr_put_fixed(struct nfs42_xdr *x, const void *p, size_t n);
void nfs42_xdr_put_opaque(struct nfs42_xdr *x, const void *p, size_t n);
void nfs42_xdr_put_string(struct nfs42_xdr *x, const char *s);
void nfs42_xdr_put_raw(struct nfs42_xdr *x, const void *p, size_t n);
void nfs42_xdr_patch_u32(struct nfs42_xdr *x, size_t off, uint32_t v);

/* Decoding */
void nfs42_xdr_dec_init(struct nfs42_xdr *x, const void *buf, size_t len);
bool nfs42_xdr_get_u32(struct nfs42_xdr *x, uint32_t *v);
bool nfs42_xdr_get_u64(struct nfs42_xdr *x, uint64_t *v);
bool nfs42_xdr_get_i64(struct nfs42_xdr *x, int64_t *v);
bool nfs42_xdr_get_bool(struct nfs42_xdr *x, bool *v);
bool nfs42_xdr_get_fixed(struct nfs42_xdr *x, void *p, size_t n);
/* variable opaque, returned as a pointer into the buffer (no copy) */
bool nfs42_xdr_get_opaque_ref(struct nfs42_xdr *x, const uint8_t **p,
			      uint32_t *n, uint32_t max);
/* variable opaque copied into p[0..max) */
bool nfs42_xdr_get_opaque(struct nfs42_xdr *x, void *p, uint32_t *n,
			  uint32_t max);
/* string into a NUL-terminated buffer of size bufsz (fails if too long) */
bool nfs42_xdr_get_string(struct nfs42_xdr *x, char *buf, size_t bufsz);
bool nfs42_xdr_skip(struct nfs42_xdr *x, size_t n);
bool nfs42_xdr_skip_opaque(struct nfs42_xdr *x);
size_t nfs42_xdr_remaining(const struct nfs42_xdr *x);
const uint8_t *nfs42_xdr_cursor(const struct nfs42_xdr *x);
bool nfs42_xdr_fail(struct nfs42_xdr *x);

#endif /* NFS42_XDR_H */
