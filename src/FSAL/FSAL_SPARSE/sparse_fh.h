/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE handle codec: the bytes of a handle, their framing and their
 * authentication tag.  Free of Ganesha headers so it can be unit tested.
 *
 * Forms of one handle:
 *
 *   key form (MDCACHE key, what create_handle builds the object from)
 *     [0]        SPARSE_FH_VERSION (2)
 *     [1]        n = length of the kernel handle bytes (1..SPARSE_FH_MAX_KERNEL)
 *     [2..5]     kernel handle type, little endian
 *     [6..13]    filesystem identity, little endian (see sparse_fs.c)
 *     [14..14+n) kernel handle bytes (from name_to_handle_at)
 *
 *   compact wire form (version 3, given out since issue #19)
 *     [0]        SPARSE_FH_VERSION_COMPACT (3)
 *     [1]        n = length of the kernel handle bytes (1..SPARSE_FH_MAX_KERNEL)
 *     [2]        kernel handle type (when it fits a byte)
 *     [3..3+n)   kernel handle bytes
 *     then an 8-byte tag, SipHash-2-4 under the export's handle key of the
 *     bytes before it followed by the export's filesystem identity (8
 *     bytes, little endian), which is not sent: the export implies it.
 *
 *   version 2 wire form (given out before version 3, still accepted; given
 *   out still for a kernel handle type above 255)
 *     the key form followed by an 8-byte tag, SipHash-2-4 of the key form
 *     under the export's handle key, little endian.
 *
 * Both wire forms of one object have the same key form.  The filesystem
 * identity keeps two filesystems whose objects have the same kernel handle
 * (fresh ext4 filesystems: root inode 2, generation 0) apart in MDCACHE.
 * The tag says that this export gave the handle out: a handle forged for
 * an object outside the export's tree, or taken from another export, does
 * not carry a valid tag.
 */

#ifndef SPARSE_FH_H
#define SPARSE_FH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPARSE_FH_VERSION 2 /* key form, and the version 2 wire form */
#define SPARSE_FH_VERSION_COMPACT 3
#define SPARSE_FH_VERSION_V1 1 /* 6-byte header, no identity, no tag */
#define SPARSE_FH_HDR_LEN 14
#define SPARSE_FH_TAG_LEN 8
/* 59 = NFSv3's 64-byte handle less Ganesha's 5-byte wrapper. */
#define SPARSE_FH_MAX_LEN 59
#define SPARSE_FH_MAX_KERNEL \
	(SPARSE_FH_MAX_LEN - SPARSE_FH_HDR_LEN - SPARSE_FH_TAG_LEN)
#define SPARSE_FH_KEY_BYTES 16
#define SPARSE_FH3_HDR_LEN 3
#define SPARSE_FH3_MAX_TYPE 0xff
#define SPARSE_FH3_MIN_LEN (SPARSE_FH3_HDR_LEN + 1 + SPARSE_FH_TAG_LEN)
#define SPARSE_FH3_MAX_LEN \
	(SPARSE_FH3_HDR_LEN + SPARSE_FH_MAX_KERNEL + SPARSE_FH_TAG_LEN)

struct sparse_fh {
	uint8_t len; /* of the key form */
	uint8_t bytes[SPARSE_FH_MAX_LEN];
};

/* What a byte string presented as a handle is. */
enum sparse_fh_form {
	SPARSE_FH_MALFORMED, /* not a handle of ours at all */
	SPARSE_FH_OLD, /* a well framed handle of an older format */
	SPARSE_FH_KEY, /* key form */
	SPARSE_FH_WIRE, /* version 2 wire form (key form + tag) */
	SPARSE_FH_WIRE3, /* compact (version 3) wire form */
};

/* Verdict on a wire handle presented to an export. */
enum sparse_fh_verdict {
	SPARSE_FH_OK,
	SPARSE_FH_BAD, /* malformed: NFS4ERR_BADHANDLE */
	SPARSE_FH_STALE_VERSION, /* older format: NFS4ERR_STALE */
	SPARSE_FH_STALE_FS, /* another filesystem: NFS4ERR_STALE */
	SPARSE_FH_STALE_TAG, /* not given out by this export: NFS4ERR_STALE */
};

uint64_t sparse_siphash24(const uint8_t key[SPARSE_FH_KEY_BYTES],
			  const void *data, size_t len);

/* Build the key form.  Returns false when the kernel handle is too long. */
bool sparse_fh_encode(uint32_t kernel_type, const void *kernel_bytes,
		      size_t kernel_len, uint64_t fs_ident,
		      struct sparse_fh *fh);

enum sparse_fh_form sparse_fh_classify(const void *addr, size_t len);

uint64_t sparse_fh_fs_ident(const struct sparse_fh *fh);
uint32_t sparse_fh_kernel_type(const struct sparse_fh *fh);
const uint8_t *sparse_fh_kernel_bytes(const struct sparse_fh *fh, size_t *len);

/*
 * The wire form an export gives out: compact (version 3) when the kernel
 * handle type fits a byte, else version 2; the compact tag covers the
 * identity in fh.  out must have room for sparse_fh_wire_len(fh) bytes;
 * returns that length.
 */
size_t sparse_fh_wire_len(const struct sparse_fh *fh);
size_t sparse_fh_to_wire(const struct sparse_fh *fh,
			 const uint8_t key[SPARSE_FH_KEY_BYTES], uint8_t *out);
/* The version 2 wire form (the encoder before version 3); returns its
 * length, at most SPARSE_FH_MAX_LEN. */
size_t sparse_fh_to_wire_v2(const struct sparse_fh *fh,
			    const uint8_t key[SPARSE_FH_KEY_BYTES],
			    uint8_t *out);

/*
 * Check a wire handle against an export (its filesystem identity and handle
 * key).  On SPARSE_FH_OK *host_len is the length of its host form, what
 * create_handle and host_to_key take: a prefix of the handle (the key form
 * of a version 2 handle; a compact handle whole, tag included).
 */
enum sparse_fh_verdict
sparse_fh_check_wire(const void *addr, size_t len, uint64_t fs_ident,
		     const uint8_t key[SPARSE_FH_KEY_BYTES], size_t *host_len);

/*
 * The key form of a key-form or wire-form handle, taking a compact
 * handle's filesystem identity from fs_ident (the export's); false if it is
 * none of these.  The tag is not checked: sparse_fh_check_wire does that.
 */
bool sparse_fh_from_bytes(const void *addr, size_t len, uint64_t fs_ident,
			  struct sparse_fh *fh);

/*
 * Data-server handle: the FSAL part of the filehandle a files layout gives
 * a client for its data servers (pNFS, sparse_mds.c), valid on every head
 * of one shared filesystem that has the same filesystem identity and
 * handle key.  What it authorizes is docs/design.md's ("pNFS", the
 * authority of a data-server handle):
 *   [0]        SPARSE_DSFH_VERSION
 *   [1]        the layout's iomode: 1 READ, 2 RW (LAYOUTIOMODE4_*)
 *   [2..5]     the metadata server's boot generation, little endian
 *   [6..13]    the layout grant, little endian (listed in the file's
 *              grant xattr while the layout is alive, sparse_pnfs.h)
 *   [14..14+k) the key form of the file's handle
 *   then an 8-byte tag, SipHash-2-4 of all the bytes before it under the
 *   export's handle key (none of the above can be forged or changed).
 * SPARSE_DSFH_VERSION_V1 handles (given out before issue #26: the layout
 * epoch in [2..5], no iomode, no grant) are no longer accepted.
 */
#define SPARSE_DSFH_VERSION 0xd2
#define SPARSE_DSFH_VERSION_V1 0xd1
#define SPARSE_DSFH_HDR_LEN 14
#define SPARSE_DSFH_MAX_LEN (SPARSE_DSFH_HDR_LEN + SPARSE_FH_MAX_LEN)
#define SPARSE_DSFH_READ 1 /* LAYOUTIOMODE4_READ */
#define SPARSE_DSFH_RW 2 /* LAYOUTIOMODE4_RW */

/* What a data-server handle carries. */
struct sparse_dsfh {
	struct sparse_fh fh; /* the file (key form) */
	uint8_t iomode; /* SPARSE_DSFH_READ or SPARSE_DSFH_RW */
	uint32_t boot; /* the metadata server's boot generation */
	uint64_t grant; /* the layout grant */
};

/* Encode d into out (room for SPARSE_DSFH_MAX_LEN); returns the length. */
size_t sparse_dsfh_encode(const struct sparse_dsfh *d,
			  const uint8_t key[SPARSE_FH_KEY_BYTES], uint8_t *out);

/*
 * Check a data-server handle against an export: SPARSE_FH_BAD when it is
 * not one, SPARSE_FH_STALE_VERSION for one of version 1, SPARSE_FH_STALE_FS
 * for another filesystem, SPARSE_FH_STALE_TAG for a tag this export's key
 * did not make.  On SPARSE_FH_OK *d is what it carries.
 */
enum sparse_fh_verdict sparse_dsfh_check(const void *addr, size_t len,
					 uint64_t fs_ident,
					 const uint8_t key[SPARSE_FH_KEY_BYTES],
					 struct sparse_dsfh *d);

#endif /* SPARSE_FH_H */
