/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * libFuzzer target for the server's NFSv4.2 COPY/CLONE and READ_PLUS
 * decoders (src/include/nfsv42_sparse_xdr.h, reached through Ganesha's
 * nfsv41.h as patches 0005 and 0010 include them) and the RFC 8276 xattr
 * ones (patch 0070).  The first byte picks the decoder; the rest
 * is the XDR input.  Every decode is
 * followed by XDR_FREE of what it built, so ASan sees leaks and bad frees;
 * a decode that succeeds is encoded again and decoded once more, and must
 * give the same bytes.
 */

#include "config.h"
#include "nfsv41.h"

/* The two logging symbols nfsv41.h's inline routines refer to. */
static log_levels_t fuzz_levels[COMPONENT_COUNT];
log_levels_t *component_log_level = fuzz_levels;

void DisplayLogComponentLevel(log_components_t component, const char *file,
			      int line, const char *function,
			      log_levels_t level, const char *format, ...)
{
}

struct fuzz_decoder {
	xdrproc_t proc;
	size_t size;
};

static const struct fuzz_decoder decoders[] = {
	{ (xdrproc_t)xdr_sp42_COPY4args, sizeof(struct sp42_COPY4args) },
	{ (xdrproc_t)xdr_sp42_COPY4res, sizeof(struct sp42_COPY4res) },
	{ (xdrproc_t)xdr_sp42_COPY_NOTIFY4args,
	  sizeof(struct sp42_COPY_NOTIFY4args) },
	{ (xdrproc_t)xdr_sp42_COPY_NOTIFY4res,
	  sizeof(struct sp42_COPY_NOTIFY4res) },
	{ (xdrproc_t)xdr_sp42_OFFLOAD_STATUS4res,
	  sizeof(struct sp42_OFFLOAD_STATUS4res) },
	{ (xdrproc_t)xdr_sp42_CLONE4args, sizeof(struct sp42_CLONE4args) },
	{ (xdrproc_t)xdr_sp42_CB_OFFLOAD4args,
	  sizeof(struct sp42_CB_OFFLOAD4args) },
	{ (xdrproc_t)xdr_sp42_READ_PLUS4res,
	  sizeof(struct sp42_READ_PLUS4res) },
	{ (xdrproc_t)xdr_READ_PLUS4args, sizeof(READ_PLUS4args) },
	/* RFC 8276 (values up to 1 MiB since patch 0070) */
	{ (xdrproc_t)xdr_SETXATTR4args, sizeof(SETXATTR4args) },
	{ (xdrproc_t)xdr_GETXATTR4res, sizeof(GETXATTR4res) },
	{ (xdrproc_t)xdr_LISTXATTR4res, sizeof(LISTXATTR4res) },
};

#define FUZZ_MAX 65536

/* Encode obj with proc into buf; its length, or 0 on failure. */
static size_t fuzz_encode(xdrproc_t proc, void *obj, char *buf, size_t size)
{
	XDR x;
	size_t len = 0;

	xdrmem_create(&x, buf, size, XDR_ENCODE);
	if (proc(&x, obj))
		len = XDR_GETPOS(&x);
	XDR_DESTROY(&x);
	return len;
}

static bool fuzz_decode(xdrproc_t proc, void *obj, const char *buf, size_t len)
{
	XDR x;
	bool ok;

	xdrmem_create(&x, (char *)buf, len, XDR_DECODE);
	ok = proc(&x, obj);
	XDR_DESTROY(&x);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* ntirpc's memory streams want 4-byte aligned buffers */
	static uint32_t in[FUZZ_MAX / 4], enc1[FUZZ_MAX / 4],
		enc2[FUZZ_MAX / 4];
	const struct fuzz_decoder *d;
	void *obj, *again;
	size_t len1, len2;

	if (size < 2 || size > FUZZ_MAX) /* ntirpc refuses an empty buffer */
		return 0;
	d = &decoders[data[0] % (sizeof(decoders) / sizeof(decoders[0]))];
	obj = calloc(1, d->size);
	again = calloc(1, d->size);
	memcpy(in, data + 1, size - 1);
	if (fuzz_decode(d->proc, obj, (const char *)in, size - 1)) {
		len1 = fuzz_encode(d->proc, obj, (char *)enc1, sizeof(enc1));
		if (len1 != 0 &&
		    fuzz_decode(d->proc, again, (const char *)enc1, len1)) {
			len2 = fuzz_encode(d->proc, again, (char *)enc2,
					   sizeof(enc2));
			if (len2 != len1 || memcmp(enc1, enc2, len1) != 0)
				__builtin_trap();
		}
		xdr_free(d->proc, again);
	}
	xdr_free(d->proc, obj);
	free(obj);
	free(again);
	return 0;
}
