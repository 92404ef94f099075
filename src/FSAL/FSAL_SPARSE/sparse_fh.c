/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE handle codec (see sparse_fh.h for the layout).
 */

#include <string.h>

#include "sparse_fh.h"

/* ---- SipHash-2-4 (Aumasson and Bernstein, 2012) -------------------------- */

static uint64_t sparse_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static void sparse_put_le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++, v >>= 8)
		p[i] = v & 0xff;
}

static inline uint64_t sparse_rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static void sparse_sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = sparse_rotl(v[1], 13) ^ v[0];
	v[0] = sparse_rotl(v[0], 32);
	v[2] += v[3];
	v[3] = sparse_rotl(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = sparse_rotl(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = sparse_rotl(v[1], 17) ^ v[2];
	v[2] = sparse_rotl(v[2], 32);
}

static void sparse_sip_compress(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sparse_sip_round(v);
	sparse_sip_round(v);
	v[0] ^= m;
}

uint64_t sparse_siphash24(const uint8_t key[SPARSE_FH_KEY_BYTES],
			  const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t k0 = sparse_le64(key), k1 = sparse_le64(key + 8);
	uint64_t v[4] = { k0 ^ 0x736f6d6570736575ULL,
			  k1 ^ 0x646f72616e646f6dULL,
			  k0 ^ 0x6c7967656e657261ULL,
			  k1 ^ 0x7465646279746573ULL };
	uint8_t last[8] = { 0 };
	size_t full = len & ~(size_t)7;
	size_t i;

	for (i = 0; i < full; i += 8)
		sparse_sip_compress(v, sparse_le64(p + i));

	memcpy(last, p + full, len - full);
	last[7] = (uint8_t)len;
	sparse_sip_compress(v, sparse_le64(last));

	v[2] ^= 0xff;
	for (i = 0; i < 4; i++)
		sparse_sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* ---- framing ------------------------------------------------------------- */

bool sparse_fh_encode(uint32_t kernel_type, const void *kernel_bytes,
		      size_t kernel_len, uint64_t fs_ident,
		      struct sparse_fh *fh)
{
	uint8_t *b = fh->bytes;

	if (kernel_len == 0 || kernel_len > SPARSE_FH_MAX_KERNEL)
		return false;
	b[0] = SPARSE_FH_VERSION;
	b[1] = (uint8_t)kernel_len;
	b[2] = kernel_type & 0xff;
	b[3] = (kernel_type >> 8) & 0xff;
	b[4] = (kernel_type >> 16) & 0xff;
	b[5] = (kernel_type >> 24) & 0xff;
	sparse_put_le64(b + 6, fs_ident);
	memcpy(b + SPARSE_FH_HDR_LEN, kernel_bytes, kernel_len);
	fh->len = SPARSE_FH_HDR_LEN + kernel_len;
	return true;
}

/* The version 1 layout: [1][n][type x4][n bytes], 7..59 bytes. */
static bool sparse_fh_is_v1(const uint8_t *b, size_t len)
{
	return len > 6 && len <= SPARSE_FH_MAX_LEN &&
	       b[0] == SPARSE_FH_VERSION_V1 && b[1] != 0 &&
	       (size_t)b[1] + 6 == len;
}

/* The compact layout: [3][n][type][n kernel bytes][tag x8]. */
static bool sparse_fh_is_v3(const uint8_t *b, size_t len)
{
	return len >= SPARSE_FH3_MIN_LEN && len <= SPARSE_FH3_MAX_LEN &&
	       b[0] == SPARSE_FH_VERSION_COMPACT && b[1] != 0 &&
	       (size_t)b[1] + SPARSE_FH3_HDR_LEN + SPARSE_FH_TAG_LEN == len;
}

enum sparse_fh_form sparse_fh_classify(const void *addr, size_t len)
{
	const uint8_t *b = addr;
	size_t n;

	if (len < 2)
		return SPARSE_FH_MALFORMED;
	if (sparse_fh_is_v1(b, len))
		return SPARSE_FH_OLD;
	if (sparse_fh_is_v3(b, len))
		return SPARSE_FH_WIRE3;
	n = b[1];
	if (b[0] != SPARSE_FH_VERSION || n == 0 || n > SPARSE_FH_MAX_KERNEL)
		return SPARSE_FH_MALFORMED;
	if (len == SPARSE_FH_HDR_LEN + n)
		return SPARSE_FH_KEY;
	if (len == SPARSE_FH_HDR_LEN + n + SPARSE_FH_TAG_LEN)
		return SPARSE_FH_WIRE;
	return SPARSE_FH_MALFORMED;
}

uint64_t sparse_fh_fs_ident(const struct sparse_fh *fh)
{
	return sparse_le64(fh->bytes + 6);
}

uint32_t sparse_fh_kernel_type(const struct sparse_fh *fh)
{
	const uint8_t *b = fh->bytes;

	return (uint32_t)b[2] | (uint32_t)b[3] << 8 | (uint32_t)b[4] << 16 |
	       (uint32_t)b[5] << 24;
}

const uint8_t *sparse_fh_kernel_bytes(const struct sparse_fh *fh, size_t *len)
{
	*len = fh->bytes[1];
	return fh->bytes + SPARSE_FH_HDR_LEN;
}

/*
 * The tag of a compact handle: SipHash-2-4 of its len bytes before the tag
 * and then the filesystem identity, which the export implies and the wire
 * leaves out.  Inputs start with version 3 (version 2 tags cover inputs
 * starting with 2, data-server tags 0xd1), so no tag fits another form.
 */
static uint64_t sparse_fh3_tag(const uint8_t key[SPARSE_FH_KEY_BYTES],
			       const uint8_t *b, size_t len, uint64_t fs_ident)
{
	uint8_t m[SPARSE_FH3_HDR_LEN + SPARSE_FH_MAX_KERNEL + 8];

	memcpy(m, b, len);
	sparse_put_le64(m + len, fs_ident);
	return sparse_siphash24(key, m, len + 8);
}

static bool sparse_fh_fits_v3(const struct sparse_fh *fh)
{
	return sparse_fh_kernel_type(fh) <= SPARSE_FH3_MAX_TYPE;
}

size_t sparse_fh_wire_len(const struct sparse_fh *fh)
{
	size_t n = fh->bytes[1];

	if (sparse_fh_fits_v3(fh))
		return SPARSE_FH3_HDR_LEN + n + SPARSE_FH_TAG_LEN;
	return fh->len + SPARSE_FH_TAG_LEN;
}

size_t sparse_fh_to_wire_v2(const struct sparse_fh *fh,
			    const uint8_t key[SPARSE_FH_KEY_BYTES],
			    uint8_t *out)
{
	memcpy(out, fh->bytes, fh->len);
	sparse_put_le64(out + fh->len,
			sparse_siphash24(key, fh->bytes, fh->len));
	return fh->len + SPARSE_FH_TAG_LEN;
}

size_t sparse_fh_to_wire(const struct sparse_fh *fh,
			 const uint8_t key[SPARSE_FH_KEY_BYTES], uint8_t *out)
{
	size_t n;
	const uint8_t *kb = sparse_fh_kernel_bytes(fh, &n);
	size_t len = SPARSE_FH3_HDR_LEN + n;

	if (!sparse_fh_fits_v3(fh))
		return sparse_fh_to_wire_v2(fh, key, out);
	out[0] = SPARSE_FH_VERSION_COMPACT;
	out[1] = (uint8_t)n;
	out[2] = (uint8_t)sparse_fh_kernel_type(fh);
	memcpy(out + SPARSE_FH3_HDR_LEN, kb, n);
	sparse_put_le64(out + len,
			sparse_fh3_tag(key, out, len, sparse_fh_fs_ident(fh)));
	return len + SPARSE_FH_TAG_LEN;
}

enum sparse_fh_verdict
sparse_fh_check_wire(const void *addr, size_t len, uint64_t fs_ident,
		     const uint8_t key[SPARSE_FH_KEY_BYTES], size_t *host_len)
{
	const uint8_t *b = addr;
	size_t klen;

	switch (sparse_fh_classify(addr, len)) {
	case SPARSE_FH_OLD:
		return SPARSE_FH_STALE_VERSION;
	case SPARSE_FH_WIRE:
		break;
	case SPARSE_FH_WIRE3:
		klen = len - SPARSE_FH_TAG_LEN;
		if (sparse_le64(b + klen) !=
		    sparse_fh3_tag(key, b, klen, fs_ident))
			return SPARSE_FH_STALE_TAG;
		*host_len = len;
		return SPARSE_FH_OK;
	default:
		return SPARSE_FH_BAD;
	}
	klen = len - SPARSE_FH_TAG_LEN;
	if (sparse_le64(b + 6) != fs_ident)
		return SPARSE_FH_STALE_FS;
	if (sparse_le64(b + klen) != sparse_siphash24(key, b, klen))
		return SPARSE_FH_STALE_TAG;
	*host_len = klen;
	return SPARSE_FH_OK;
}

bool sparse_fh_from_bytes(const void *addr, size_t len, uint64_t fs_ident,
			  struct sparse_fh *fh)
{
	const uint8_t *b = addr;

	switch (sparse_fh_classify(addr, len)) {
	case SPARSE_FH_WIRE3:
		return sparse_fh_encode(b[2], b + SPARSE_FH3_HDR_LEN, b[1],
					fs_ident, fh);
	case SPARSE_FH_WIRE:
		len -= SPARSE_FH_TAG_LEN;
		break;
	case SPARSE_FH_KEY:
		break;
	default:
		return false;
	}
	memcpy(fh->bytes, addr, len);
	fh->len = (uint8_t)len;
	return true;
}

/* ---- data-server handles ------------------------------------------------- */

size_t sparse_dsfh_encode(const struct sparse_dsfh *d,
			  const uint8_t key[SPARSE_FH_KEY_BYTES], uint8_t *out)
{
	size_t len = SPARSE_DSFH_HDR_LEN + d->fh.len;
	int i;

	out[0] = SPARSE_DSFH_VERSION;
	out[1] = d->iomode;
	for (i = 0; i < 4; i++)
		out[2 + i] = (uint8_t)(d->boot >> (8 * i));
	sparse_put_le64(out + 6, d->grant);
	memcpy(out + SPARSE_DSFH_HDR_LEN, d->fh.bytes, d->fh.len);
	sparse_put_le64(out + len, sparse_siphash24(key, out, len));
	return len + SPARSE_FH_TAG_LEN;
}

enum sparse_fh_verdict sparse_dsfh_check(const void *addr, size_t len,
					 uint64_t fs_ident,
					 const uint8_t key[SPARSE_FH_KEY_BYTES],
					 struct sparse_dsfh *d)
{
	const uint8_t *b = addr;
	size_t body;

	if (len >= 1 && b[0] == SPARSE_DSFH_VERSION_V1)
		return SPARSE_FH_STALE_VERSION;
	if (len < SPARSE_DSFH_HDR_LEN + SPARSE_FH_TAG_LEN ||
	    len > SPARSE_DSFH_MAX_LEN || b[0] != SPARSE_DSFH_VERSION ||
	    (b[1] != SPARSE_DSFH_READ && b[1] != SPARSE_DSFH_RW))
		return SPARSE_FH_BAD;
	body = len - SPARSE_DSFH_HDR_LEN - SPARSE_FH_TAG_LEN;
	if (sparse_fh_classify(b + SPARSE_DSFH_HDR_LEN, body) != SPARSE_FH_KEY)
		return SPARSE_FH_BAD;
	if (sparse_le64(b + SPARSE_DSFH_HDR_LEN + 6) != fs_ident)
		return SPARSE_FH_STALE_FS;
	if (sparse_le64(b + len - SPARSE_FH_TAG_LEN) !=
	    sparse_siphash24(key, b, len - SPARSE_FH_TAG_LEN))
		return SPARSE_FH_STALE_TAG;
	memcpy(d->fh.bytes, b + SPARSE_DSFH_HDR_LEN, body);
	d->fh.len = (uint8_t)body;
	d->iomode = b[1];
	d->boot = (uint32_t)b[2] | (uint32_t)b[3] << 8 | (uint32_t)b[4] << 16 |
		  (uint32_t)b[5] << 24;
	d->grant = sparse_le64(b + 6);
	return SPARSE_FH_OK;
}
