/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Unit tests of FSAL_SPARSE's handle codec (sparse_fh.c): SipHash-2-4
 * against the reference vectors, the key form and both wire forms (version
 * 2 and compact version 3), one key for both, and the verdict on every
 * kind of bad handle an export can be given.
 */

#include <check.h>
#include <string.h>

#include "sparse_fh.h"

static const uint8_t key_a[SPARSE_FH_KEY_BYTES] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
};
static const uint8_t key_b[SPARSE_FH_KEY_BYTES] = { 1 };

#define IDENT_A 0x1122334455667788ULL
#define IDENT_B 0x1122334455667789ULL

/* SipHash-2-4, key 00..0f, message 00..len-1 (the reference vectors). */
START_TEST(siphash_reference_vectors)
{
	static const struct {
		size_t len;
		uint64_t out;
	} v[] = {
		{ 0, 0x726fdb47dd0e0e31ULL },  { 1, 0x74f839c593dc67fdULL },
		{ 7, 0xab0200f58b01d137ULL },  { 8, 0x93f5f5799a932462ULL },
		{ 15, 0xa129ca6149be45e5ULL }, { 16, 0x3f2acc7f57c29bdbULL },
		{ 63, 0x958a324ceb064572ULL },
	};
	uint8_t msg[64];
	size_t i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		ck_assert_msg(sparse_siphash24(key_a, msg, v[i].len) ==
				      v[i].out,
			      "length %zu", v[i].len);
}
END_TEST

/* An ext4-like kernel handle: 8 bytes, type 1. */
static void make_fh(struct sparse_fh *fh, uint64_t ident)
{
	static const uint8_t kb[8] = { 2, 0, 0, 0, 0, 0, 0, 0 };

	ck_assert(sparse_fh_encode(1, kb, sizeof(kb), ident, fh));
}

START_TEST(encode_and_fields)
{
	static const uint8_t kb[3] = { 7, 8, 9 };
	struct sparse_fh fh;
	const uint8_t *p;
	size_t n;

	ck_assert(sparse_fh_encode(0x81020304, kb, 3, IDENT_A, &fh));
	ck_assert_uint_eq(fh.len, SPARSE_FH_HDR_LEN + 3);
	ck_assert_uint_eq(fh.bytes[0], SPARSE_FH_VERSION);
	ck_assert_uint_eq(sparse_fh_kernel_type(&fh), 0x81020304);
	ck_assert(sparse_fh_fs_ident(&fh) == IDENT_A);
	p = sparse_fh_kernel_bytes(&fh, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_mem_eq(p, kb, 3);
	ck_assert_int_eq(sparse_fh_classify(fh.bytes, fh.len), SPARSE_FH_KEY);
	/* empty and too long kernel handles cannot be encoded */
	ck_assert(!sparse_fh_encode(1, kb, 0, IDENT_A, &fh));
}
END_TEST

/* The longest kernel handle fits both wire forms, and NFSv3's 64 bytes. */
START_TEST(longest_kernel_handle_fits)
{
	uint8_t kb[SPARSE_FH_MAX_KERNEL + 1] = { 0 };
	uint8_t wire[SPARSE_FH_MAX_LEN];
	struct sparse_fh fh, back;
	size_t wlen, hlen;

	ck_assert(!sparse_fh_encode(1, kb, sizeof(kb), IDENT_A, &fh));
	ck_assert(sparse_fh_encode(1, kb, SPARSE_FH_MAX_KERNEL, IDENT_A, &fh));
	ck_assert_uint_eq(sparse_fh_to_wire_v2(&fh, key_a, wire),
			  SPARSE_FH_MAX_LEN);
	ck_assert_int_eq(sparse_fh_check_wire(wire, SPARSE_FH_MAX_LEN, IDENT_A,
					      key_a, &hlen),
			 SPARSE_FH_OK);
	ck_assert_uint_eq(hlen, fh.len);
	wlen = sparse_fh_to_wire(&fh, key_a, wire);
	ck_assert_uint_eq(wlen, SPARSE_FH3_MAX_LEN);
	ck_assert_uint_eq(wlen, sparse_fh_wire_len(&fh));
	ck_assert_int_eq(sparse_fh_check_wire(wire, wlen, IDENT_A, key_a,
					      &hlen),
			 SPARSE_FH_OK);
	ck_assert(sparse_fh_from_bytes(wire, hlen, IDENT_A, &back));
	ck_assert_mem_eq(back.bytes, fh.bytes, fh.len);
}
END_TEST

/* ext4's handle (type 1, 8 bytes): 19 bytes, 24 with Ganesha's wrapper
 * (what 23 would take in XDR too), less than knfsd's 28.
 */
START_TEST(compact_size)
{
	uint8_t wire[SPARSE_FH_MAX_LEN];
	struct sparse_fh fh;

	make_fh(&fh, IDENT_A);
	ck_assert_uint_eq(sparse_fh_to_wire(&fh, key_a, wire), 19);
	ck_assert_uint_eq(wire[0], SPARSE_FH_VERSION_COMPACT);
	ck_assert_uint_eq(wire[1], 8);
	ck_assert_uint_eq(wire[2], 1);
	ck_assert_uint_eq(sparse_fh_to_wire_v2(&fh, key_a, wire), 30);
}
END_TEST

/*
 * Both wire forms of one object check and give the same key form, the one
 * handle_to_key gives (MDCACHE: one entry, one set of share counters),
 * whichever form host_to_key and create_handle are handed.
 */
START_TEST(wire_round_trip)
{
	uint8_t w3[SPARSE_FH_MAX_LEN], w2[SPARSE_FH_MAX_LEN];
	struct sparse_fh fh, back;
	size_t l3, l2, hlen = 0;

	make_fh(&fh, IDENT_A);
	l3 = sparse_fh_to_wire(&fh, key_a, w3);
	l2 = sparse_fh_to_wire_v2(&fh, key_a, w2);
	ck_assert_int_eq(sparse_fh_classify(w3, l3), SPARSE_FH_WIRE3);
	ck_assert_int_eq(sparse_fh_classify(w2, l2), SPARSE_FH_WIRE);

	ck_assert_int_eq(sparse_fh_check_wire(w3, l3, IDENT_A, key_a, &hlen),
			 SPARSE_FH_OK);
	ck_assert_uint_eq(hlen, l3);
	ck_assert(sparse_fh_from_bytes(w3, hlen, IDENT_A, &back));
	ck_assert_uint_eq(back.len, fh.len);
	ck_assert_mem_eq(back.bytes, fh.bytes, fh.len);
	/* the key grows the host form by less than FSAL_KEY_EXTRA_BYTES */
	ck_assert_uint_le(back.len, hlen + 8);

	ck_assert_int_eq(sparse_fh_check_wire(w2, l2, IDENT_A, key_a, &hlen),
			 SPARSE_FH_OK);
	ck_assert_uint_eq(hlen, fh.len);
	ck_assert(sparse_fh_from_bytes(w2, hlen, IDENT_A, &back));
	ck_assert_mem_eq(back.bytes, fh.bytes, fh.len);
	ck_assert(sparse_fh_from_bytes(w2, l2, IDENT_A, &back));
	ck_assert_mem_eq(back.bytes, fh.bytes, fh.len);
	ck_assert(sparse_fh_from_bytes(fh.bytes, fh.len, IDENT_A, &back));
	ck_assert_mem_eq(back.bytes, fh.bytes, fh.len);
}
END_TEST

/* A kernel handle type above 255 keeps the version 2 form. */
START_TEST(wide_type_keeps_v2)
{
	static const uint8_t kb[4] = { 1, 2, 3, 4 };
	uint8_t wire[SPARSE_FH_MAX_LEN];
	struct sparse_fh fh, back;
	size_t len, hlen;

	ck_assert(sparse_fh_encode(0x100, kb, 4, IDENT_A, &fh));
	ck_assert_uint_eq(sparse_fh_wire_len(&fh), fh.len + SPARSE_FH_TAG_LEN);
	len = sparse_fh_to_wire(&fh, key_a, wire);
	ck_assert_uint_eq(len, fh.len + SPARSE_FH_TAG_LEN);
	ck_assert_int_eq(sparse_fh_classify(wire, len), SPARSE_FH_WIRE);
	ck_assert_int_eq(sparse_fh_check_wire(wire, len, IDENT_A, key_a, &hlen),
			 SPARSE_FH_OK);
	ck_assert(sparse_fh_from_bytes(wire, hlen, IDENT_A, &back));
	ck_assert_uint_eq(sparse_fh_kernel_type(&back), 0x100);
	/* type 255 is the widest compact one */
	ck_assert(sparse_fh_encode(0xff, kb, 4, IDENT_A, &fh));
	ck_assert_uint_eq(sparse_fh_to_wire(&fh, key_a, wire), 3 + 4 + 8);
	ck_assert_int_eq(sparse_fh_check_wire(wire, 15, IDENT_A, key_a, &hlen),
			 SPARSE_FH_OK);
	ck_assert(sparse_fh_from_bytes(wire, hlen, IDENT_A, &back));
	ck_assert_mem_eq(back.bytes, fh.bytes, fh.len);
}
END_TEST

/* Every bit of a wire handle is covered: flipped, the handle is refused. */
static void ck_every_bit(const uint8_t *good, size_t len)
{
	uint8_t wire[SPARSE_FH_MAX_LEN];
	size_t i, hlen;
	int bit;

	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit++) {
			enum sparse_fh_verdict v;

			memcpy(wire, good, len);
			wire[i] ^= (uint8_t)(1 << bit);
			v = sparse_fh_check_wire(wire, len, IDENT_A, key_a,
						 &hlen);
			ck_assert_msg(v != SPARSE_FH_OK, "byte %zu bit %d", i,
				      bit);
		}
	}
}

/* Another filesystem, another export's key, any flipped bit: refused. */
START_TEST(wrong_fs_key_or_bits)
{
	uint8_t wire[SPARSE_FH_MAX_LEN];
	struct sparse_fh fh;
	size_t wlen, hlen;

	make_fh(&fh, IDENT_A);
	wlen = sparse_fh_to_wire_v2(&fh, key_a, wire);
	ck_assert_int_eq(sparse_fh_check_wire(wire, wlen, IDENT_B, key_a,
					      &hlen),
			 SPARSE_FH_STALE_FS);
	ck_assert_int_eq(sparse_fh_check_wire(wire, wlen, IDENT_A, key_b,
					      &hlen),
			 SPARSE_FH_STALE_TAG);
	ck_every_bit(wire, wlen);
	/* a handle of filesystem B re-labelled as A: the tag no longer fits */
	make_fh(&fh, IDENT_B);
	sparse_fh_to_wire_v2(&fh, key_a, wire);
	wire[6] ^= 0x01;
	ck_assert_int_eq(sparse_fh_check_wire(wire, wlen, IDENT_A, key_a,
					      &hlen),
			 SPARSE_FH_STALE_TAG);
}
END_TEST

/*
 * A compact handle of export A given to export B: another key, or the same
 * key (an image copied with its key) on another filesystem identity, or
 * both; the tag refuses each (the identity is in the tag, not on the wire).
 */
START_TEST(compact_other_export)
{
	uint8_t wire[SPARSE_FH_MAX_LEN];
	struct sparse_fh fh;
	size_t wlen, hlen;

	make_fh(&fh, IDENT_A);
	wlen = sparse_fh_to_wire(&fh, key_a, wire);
	ck_assert_int_eq(sparse_fh_check_wire(wire, wlen, IDENT_A, key_b,
					      &hlen),
			 SPARSE_FH_STALE_TAG);
	ck_assert_int_eq(sparse_fh_check_wire(wire, wlen, IDENT_B, key_a,
					      &hlen),
			 SPARSE_FH_STALE_TAG);
	ck_assert_int_eq(sparse_fh_check_wire(wire, wlen, IDENT_B, key_b,
					      &hlen),
			 SPARSE_FH_STALE_TAG);
	ck_every_bit(wire, wlen);
}
END_TEST

/* A version 2 tag on a compact body, and the reverse, is no tag. */
START_TEST(tags_do_not_cross_forms)
{
	uint8_t w3[SPARSE_FH_MAX_LEN], w2[SPARSE_FH_MAX_LEN];
	struct sparse_fh fh;
	size_t l3, l2, hlen;

	make_fh(&fh, IDENT_A);
	l3 = sparse_fh_to_wire(&fh, key_a, w3);
	l2 = sparse_fh_to_wire_v2(&fh, key_a, w2);
	memcpy(w3 + l3 - 8, w2 + l2 - 8, 8);
	ck_assert_int_eq(sparse_fh_check_wire(w3, l3, IDENT_A, key_a, &hlen),
			 SPARSE_FH_STALE_TAG);
	l3 = sparse_fh_to_wire(&fh, key_a, w3);
	memcpy(w2 + l2 - 8, w3 + l3 - 8, 8);
	ck_assert_int_eq(sparse_fh_check_wire(w2, l2, IDENT_A, key_a, &hlen),
			 SPARSE_FH_STALE_TAG);
}
END_TEST

START_TEST(malformed_and_old)
{
	uint8_t wire[SPARSE_FH_MAX_LEN + 8];
	uint8_t v1[14] = { 1, 8, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0 };
	struct sparse_fh fh;
	size_t wlen, hlen;

	make_fh(&fh, IDENT_A);
	wlen = sparse_fh_to_wire_v2(&fh, key_a, wire);
	/* truncated, extended, empty */
	ck_assert_int_eq(sparse_fh_check_wire(wire, wlen - 1, IDENT_A, key_a,
					      &hlen),
			 SPARSE_FH_BAD);
	ck_assert_int_eq(sparse_fh_check_wire(wire, wlen + 1, IDENT_A, key_a,
					      &hlen),
			 SPARSE_FH_BAD);
	ck_assert_int_eq(sparse_fh_check_wire(wire, 0, IDENT_A, key_a, &hlen),
			 SPARSE_FH_BAD);
	ck_assert_int_eq(sparse_fh_check_wire(wire, 1, IDENT_A, key_a, &hlen),
			 SPARSE_FH_BAD);
	/* the key form is no wire handle */
	ck_assert_int_eq(sparse_fh_check_wire(fh.bytes, fh.len, IDENT_A, key_a,
					      &hlen),
			 SPARSE_FH_BAD);
	/* unknown version, zero-length or too long kernel handle */
	wire[0] = 4;
	ck_assert_int_eq(sparse_fh_classify(wire, wlen), SPARSE_FH_MALFORMED);
	wire[0] = SPARSE_FH_VERSION;
	wire[1] = 0;
	ck_assert_int_eq(sparse_fh_classify(wire, wlen), SPARSE_FH_MALFORMED);
	wire[1] = SPARSE_FH_MAX_KERNEL + 1;
	ck_assert_int_eq(sparse_fh_classify(wire, SPARSE_FH_MAX_LEN + 1),
			 SPARSE_FH_MALFORMED);
	wire[1] = 0xff;
	ck_assert_int_eq(sparse_fh_classify(wire, wlen), SPARSE_FH_MALFORMED);
	/* a version 1 handle (ext4 root) is stale, not malformed */
	ck_assert_int_eq(sparse_fh_check_wire(v1, sizeof(v1), IDENT_A, key_a,
					      &hlen),
			 SPARSE_FH_STALE_VERSION);
	ck_assert(!sparse_fh_from_bytes(v1, sizeof(v1), IDENT_A, &fh));
	/* but a version 1 handle with bad framing is malformed */
	ck_assert_int_eq(sparse_fh_classify(v1, sizeof(v1) - 1),
			 SPARSE_FH_MALFORMED);
}
END_TEST

/*
 * Compact handles: only the length their length byte gives is framed; cut,
 * grown, without a kernel byte or with a length byte past the longest
 * kernel handle they are malformed, and from_bytes takes none of them.
 */
START_TEST(compact_malformed)
{
	uint8_t wire[SPARSE_FH3_MAX_LEN + 8] = { 0 };
	struct sparse_fh fh;
	size_t wlen, len, hlen;

	make_fh(&fh, IDENT_A);
	wlen = sparse_fh_to_wire(&fh, key_a, wire);
	for (len = 0; len <= SPARSE_FH3_MAX_LEN + 1; len++) {
		if (len == wlen)
			continue;
		ck_assert_int_eq(sparse_fh_check_wire(wire, len, IDENT_A, key_a,
						      &hlen),
				 SPARSE_FH_BAD);
		ck_assert(!sparse_fh_from_bytes(wire, len, IDENT_A, &fh));
	}
	/* length byte 0, or one more than the longest kernel handle */
	wire[1] = 0;
	ck_assert_int_eq(sparse_fh_classify(wire, SPARSE_FH3_MIN_LEN - 1),
			 SPARSE_FH_MALFORMED);
	wire[1] = SPARSE_FH_MAX_KERNEL + 1;
	ck_assert_int_eq(sparse_fh_classify(wire, SPARSE_FH3_MAX_LEN + 1),
			 SPARSE_FH_MALFORMED);
	/* the shortest framed one decodes to a 1-byte kernel handle */
	wire[1] = 1;
	ck_assert_int_eq(sparse_fh_classify(wire, SPARSE_FH3_MIN_LEN),
			 SPARSE_FH_WIRE3);
	ck_assert(sparse_fh_from_bytes(wire, SPARSE_FH3_MIN_LEN, IDENT_A, &fh));
	ck_assert_uint_eq(fh.len, SPARSE_FH_HDR_LEN + 1);
	ck_assert_uint_eq(sparse_fh_kernel_type(&fh), 1);
	ck_assert(sparse_fh_fs_ident(&fh) == IDENT_A);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sparse_fh");
	TCase *tc = tcase_create("codec");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, siphash_reference_vectors);
	tcase_add_test(tc, encode_and_fields);
	tcase_add_test(tc, longest_kernel_handle_fits);
	tcase_add_test(tc, compact_size);
	tcase_add_test(tc, wire_round_trip);
	tcase_add_test(tc, wide_type_keeps_v2);
	tcase_add_test(tc, wrong_fs_key_or_bits);
	tcase_add_test(tc, compact_other_export);
	tcase_add_test(tc, tags_do_not_cross_forms);
	tcase_add_test(tc, malformed_and_old);
	tcase_add_test(tc, compact_malformed);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
