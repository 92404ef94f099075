/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Taking Ganesha NFSv4 handles of FSAL_SPARSE apart and making new ones,
 * for tests of what the server accepts.  A Ganesha NFSv4 handle is a 5-byte
 * wrapper (version, flags, export id big endian, fs_len) around the FSAL's
 * bytes; FSAL_SPARSE's bytes are described in sparse_fh.h.
 */
#ifndef E2E_FSAL_HANDLE_UTIL_H
#define E2E_FSAL_HANDLE_UTIL_H

#include <sys/xattr.h>

#include "e2e_fsal_util.h"
#include "sparse_fh.h"

#define E2E_WRAP_LEN 5 /* offsetof(struct file_handle_v4, fsopaque) */

static inline const uint8_t *e2e_fsal_part(const struct nfs42_fh *fh,
					   size_t *len)
{
	*len = fh->len - E2E_WRAP_LEN;
	return fh->data + E2E_WRAP_LEN;
}

/* model's wrapper around the len FSAL bytes b */
static inline struct nfs42_fh e2e_rewrap(const struct nfs42_fh *model,
					 const uint8_t *b, size_t len)
{
	struct nfs42_fh fh = *model;

	memcpy(fh.data + E2E_WRAP_LEN, b, len);
	fh.data[E2E_WRAP_LEN - 1] = (uint8_t)len;
	fh.len = E2E_WRAP_LEN + len;
	return fh;
}

static inline void e2e_set_export_id(struct nfs42_fh *fh, uint16_t id)
{
	fh->data[2] = id >> 8;
	fh->data[3] = id & 0xff;
}

static inline uint16_t e2e_export_id(const struct nfs42_fh *fh)
{
	return (uint16_t)(fh->data[2] << 8 | fh->data[3]);
}

/* The export's handle key, as the server keeps it on the backing root. */
static inline void e2e_handle_key(const char *backing_root,
				  uint8_t key[SPARSE_FH_KEY_BYTES])
{
	ck_assert_int_eq(getxattr(backing_root, "trusted.nfs_sparse.handle_key",
				  key, SPARSE_FH_KEY_BYTES),
			 SPARSE_FH_KEY_BYTES);
}

/* Whether fh's tag is the one its export (key on backing_root) makes for
 * the filesystem identity ident.
 */
static inline bool e2e_ident_fits(const struct nfs42_fh *fh,
				  const char *backing_root, uint64_t ident)
{
	uint8_t key[SPARSE_FH_KEY_BYTES];
	size_t len, hlen;
	const uint8_t *b = e2e_fsal_part(fh, &len);

	e2e_handle_key(backing_root, key);
	return sparse_fh_check_wire(b, len, ident, key, &hlen) == SPARSE_FH_OK;
}

/*
 * The filesystem identity fh's export labels its objects with.  A version 2
 * handle carries it; a compact one (version 3) leaves it out and covers it
 * with the tag, so it is found among the identities the fsid attribute
 * gives (Fsid_Type UUID: the two halves folded; the device-number fallback)
 * as the one under which the export's key (read from backing_root) makes
 * fh's tag.
 */
static inline uint64_t e2e_fs_ident(struct nfs42_client *cl,
				    const struct nfs42_fh *fh,
				    const char *backing_root)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FSID, -1);
	uint8_t key[SPARSE_FH_KEY_BYTES];
	struct nfs42_attrs a;
	struct sparse_fh s;
	uint64_t cand[2];
	size_t len, hlen, i;
	const uint8_t *b = e2e_fsal_part(fh, &len);

	if (sparse_fh_classify(b, len) == SPARSE_FH_WIRE) {
		ck_assert(sparse_fh_from_bytes(b, len, 0, &s));
		return sparse_fh_fs_ident(&s);
	}
	ck_assert_int_eq(sparse_fh_classify(b, len), SPARSE_FH_WIRE3);
	e2e_handle_key(backing_root, key);
	ck_assert_int_eq(e2e_getattr_rc(cl, fh, &bm, &a), 0);
	cand[0] = (a.fsid.major ^ a.fsid.minor) & ~(1ULL << 63);
	cand[1] = 1ULL << 63 | a.fsid.major << 32 | (a.fsid.minor & 0xffffffff);
	for (i = 0; i < 2; i++)
		if (sparse_fh_check_wire(b, len, cand[i], key, &hlen) ==
		    SPARSE_FH_OK)
			return cand[i];
	ck_abort_msg("no identity from fsid %#llx.%#llx fits the handle's tag",
		     (unsigned long long)a.fsid.major,
		     (unsigned long long)a.fsid.minor);
	return 0;
}

/* The key form of the local object at path, labelled with ident. */
static inline struct sparse_fh e2e_key_form(const char *path, uint64_t ident)
{
	struct {
		struct file_handle fh;
		unsigned char space[128];
	} k;
	struct sparse_fh s;
	int mnt;

	k.fh.handle_bytes = 128;
	ck_assert_msg(name_to_handle_at(AT_FDCWD, path, &k.fh, &mnt, 0) == 0,
		      "name_to_handle_at %s: %s", path, strerror(errno));
	ck_assert(sparse_fh_encode((uint32_t)k.fh.handle_type, k.fh.f_handle,
				   k.fh.handle_bytes, ident, &s));
	return s;
}

/* A wire handle for the local object at path, as model's export would give
 * it out if the key is right; wrapped in model's wrapper.
 */
static inline struct nfs42_fh e2e_forge(const struct nfs42_fh *model,
					const char *path, uint64_t ident,
					const uint8_t key[SPARSE_FH_KEY_BYTES])
{
	struct sparse_fh s = e2e_key_form(path, ident);
	uint8_t wire[SPARSE_FH_MAX_LEN];

	return e2e_rewrap(model, wire, sparse_fh_to_wire(&s, key, wire));
}

/* The same in the version 2 form (the encoder before compact handles):
 * model's compact handle with the key form and its version 2 tag.
 */
static inline struct nfs42_fh
e2e_forge_v2(const struct nfs42_fh *model, const char *path, uint64_t ident,
	     const uint8_t key[SPARSE_FH_KEY_BYTES])
{
	struct nfs42_fh fh = e2e_forge(model, path, ident, key);
	struct sparse_fh s;
	uint8_t wire[SPARSE_FH_MAX_LEN];
	size_t len;
	const uint8_t *b = e2e_fsal_part(&fh, &len);

	ck_assert(sparse_fh_from_bytes(b, len, ident, &s));
	return e2e_rewrap(model, wire, sparse_fh_to_wire_v2(&s, key, wire));
}

#endif /* E2E_FSAL_HANDLE_UTIL_H */
