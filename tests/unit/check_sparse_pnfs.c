/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Unit tests of FSAL_SPARSE's pNFS rules (sparse_pnfs_cfg.c) and its
 * data-server handles (sparse_fh.c): addresses as clients get them,
 * stripes spread over devices, the configuration generation, and every
 * bad data-server handle refused.
 */

#include <check.h>
#include <string.h>

#include "sparse_fh.h"
#include "sparse_pnfs_cfg.h"

START_TEST(addresses)
{
	static const struct {
		const char *in, *netid, *uaddr;
	} good[] = {
		{ "127.0.0.1:2049", "tcp", "127.0.0.1.8.1" },
		{ "10.1.2.3:1", "tcp", "10.1.2.3.0.1" },
		{ "192.168.0.1:65535", "tcp", "192.168.0.1.255.255" },
		{ "[::1]:2049", "tcp6", "::1.8.1" },
		{ "[fd00:0:0::0:1]:20049", "tcp6", "fd00::1.78.81" },
	};
	static const char *const bad[] = {
		"",
		"127.0.0.1",
		"127.0.0.1:",
		"127.0.0.1:0",
		"127.0.0.1:65536",
		"127.0.0.1:-1",
		"127.0.0.1:20x",
		"localhost:2049",
		"::1:2049",
		"[::1]2049",
		"[::1:2049",
		"1.2.3:2049",
		"1.2.3.4.5:2049",
		" 1.2.3.4:2049",
		"1.2.3.4:2049 ",
		"[127.0.0.1]:1",
		"1.2.3.4:204900",
	};
	struct sparse_ds_addr a;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ck_assert_msg(sparse_ds_addr_parse(good[i].in, &a) == 0, "%s",
			      good[i].in);
		ck_assert_str_eq(a.netid, good[i].netid);
		ck_assert_str_eq(a.uaddr, good[i].uaddr);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(sparse_ds_addr_parse(bad[i], &a) != 0,
			      "\"%s\" taken", bad[i]);
	ck_assert_int_ne(sparse_ds_addr_parse(NULL, &a), 0);
}
END_TEST

/* Every stripe on every server: one device, files start anywhere;
 * fewer stripes: one device per rotation. */
START_TEST(stripes_spread)
{
	unsigned int start[4] = { 0 }, dev[4] = { 0 };
	struct sparse_stripe_pick p;
	uint64_t ino;
	int i;

	for (ino = 1000; ino < 1400; ino++) {
		sparse_stripe_pick(ino, 4, 4, &p);
		ck_assert_uint_eq(p.device, 0);
		ck_assert_uint_lt(p.first_index, 4);
		start[p.first_index]++;
		sparse_stripe_pick(ino, 4, 2, &p);
		ck_assert_uint_lt(p.device, 4);
		ck_assert_uint_eq(p.first_index, 0);
		dev[p.device]++;
	}
	for (i = 0; i < 4; i++) {
		ck_assert_uint_gt(start[i], 50);
		ck_assert_uint_gt(dev[i], 50);
	}
	sparse_stripe_pick(7, 4, 0, &p);
	ck_assert_uint_eq(p.device, 0);
	ck_assert_uint_eq(sparse_device_count(4, 4), 1);
	ck_assert_uint_eq(sparse_device_count(4, 2), 4);
	ck_assert_uint_eq(sparse_device_ds(3, 2, 4), 1);
}
END_TEST

START_TEST(generation_names_the_list)
{
	struct sparse_ds ds[2];
	uint32_t g;

	memset(ds, 0, sizeof(ds));
	ds[0].naddr = ds[1].naddr = 1;
	ck_assert_int_eq(sparse_ds_addr_parse("10.0.0.1:2049", &ds[0].addr[0]),
			 0);
	ck_assert_int_eq(sparse_ds_addr_parse("10.0.0.2:2049", &ds[1].addr[0]),
			 0);
	g = sparse_pnfs_generation(ds, 2, 1 << 20, 2);
	ck_assert_uint_eq(g, sparse_pnfs_generation(ds, 2, 1 << 20, 2));
	ck_assert_uint_ne(g, sparse_pnfs_generation(ds, 1, 1 << 20, 1));
	ck_assert_uint_ne(g, sparse_pnfs_generation(ds, 2, 1 << 16, 2));
	ck_assert_uint_ne(g, sparse_pnfs_generation(ds, 2, 1 << 20, 1));
	ds[1].addr[0].uaddr[9] = '3';
	ck_assert_uint_ne(g, sparse_pnfs_generation(ds, 2, 1 << 20, 2));
}
END_TEST

static const uint8_t key_a[SPARSE_FH_KEY_BYTES] = { 9, 8, 7 };
static const uint8_t key_b[SPARSE_FH_KEY_BYTES] = { 9, 8, 6 };
#define IDENT 0x0102030405060708ULL

static int ds_check(const uint8_t *b, size_t len, uint64_t ident,
		    const uint8_t *key)
{
	struct sparse_dsfh out;

	return sparse_dsfh_check(b, len, ident, key, &out);
}

START_TEST(ds_handles)
{
	static const uint8_t kernel[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	uint8_t b[SPARSE_DSFH_MAX_LEN + 4];
	struct sparse_dsfh d = { .iomode = SPARSE_DSFH_RW,
				 .boot = 0x01020304,
				 .grant = 0x1122334455667788ULL },
			   out;
	size_t len, i;
	int bit;

	ck_assert(sparse_fh_encode(0x81, kernel, sizeof(kernel), IDENT, &d.fh));
	len = sparse_dsfh_encode(&d, key_a, b);
	ck_assert_uint_eq(len,
			  SPARSE_DSFH_HDR_LEN + d.fh.len + SPARSE_FH_TAG_LEN);
	ck_assert_uint_le(len, SPARSE_DSFH_MAX_LEN);
	ck_assert_int_eq(sparse_dsfh_check(b, len, IDENT, key_a, &out),
			 SPARSE_FH_OK);
	ck_assert_uint_eq(out.iomode, SPARSE_DSFH_RW);
	ck_assert_uint_eq(out.boot, 0x01020304);
	ck_assert_uint_eq(out.grant, 0x1122334455667788ULL);
	ck_assert_uint_eq(out.fh.len, d.fh.len);
	ck_assert_mem_eq(out.fh.bytes, d.fh.bytes, d.fh.len);

	/* another key or filesystem: not ours */
	ck_assert_int_eq(ds_check(b, len, IDENT, key_b), SPARSE_FH_STALE_TAG);
	ck_assert_int_eq(ds_check(b, len, IDENT + 1, key_a),
			 SPARSE_FH_STALE_FS);
	/* every bit flipped is refused (iomode, boot and grant among them:
	 * a client can neither write under a READ layout nor revive a
	 * returned layout or one of an earlier boot) */
	for (i = 0; i < len; i++)
		for (bit = 0; bit < 8; bit++) {
			b[i] ^= 1 << bit;
			ck_assert_int_ne(ds_check(b, len, IDENT, key_a),
					 SPARSE_FH_OK);
			b[i] ^= 1 << bit;
		}
	/* cut or grown */
	for (i = 0; i < len; i++)
		ck_assert_int_ne(ds_check(b, i, IDENT, key_a), SPARSE_FH_OK);
	b[len] = 0;
	ck_assert_int_ne(ds_check(b, len + 1, IDENT, key_a), SPARSE_FH_OK);
	/* an iomode other than READ and RW, even tagged: not a handle */
	d.iomode = 3;
	len = sparse_dsfh_encode(&d, key_a, b);
	ck_assert_int_eq(ds_check(b, len, IDENT, key_a), SPARSE_FH_BAD);
	/* a version 1 handle (layout epoch, no iomode or grant): stale */
	b[0] = SPARSE_DSFH_VERSION_V1;
	ck_assert_int_eq(ds_check(b, len, IDENT, key_a),
			 SPARSE_FH_STALE_VERSION);
	/* an MDS wire handle (either form) is no data-server handle */
	len = sparse_fh_to_wire(&d.fh, key_a, b);
	ck_assert_int_eq(ds_check(b, len, IDENT, key_a), SPARSE_FH_BAD);
	len = sparse_fh_to_wire_v2(&d.fh, key_a, b);
	ck_assert_int_eq(ds_check(b, len, IDENT, key_a), SPARSE_FH_BAD);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sparse_pnfs");
	TCase *tc = tcase_create("pnfs");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, addresses);
	tcase_add_test(tc, stripes_spread);
	tcase_add_test(tc, generation_names_the_list);
	tcase_add_test(tc, ds_handles);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
