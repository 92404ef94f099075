/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* Unit tests: XDR layer, bitmaps, fattr4 codec, status names. */
#include <errno.h>
#include <stdlib.h>

#include "nfs42_test_util.h"

START_TEST(xdr_round_trip)
{
	struct nfs42_xdr e, d;
	const uint8_t *p;
	uint32_t n, u32;
	uint64_t u64;
	int64_t i64;
	bool b;
	char s[16];
	uint8_t fx[3];

	nfs42_xdr_enc_init(&e);
	nfs42_xdr_put_u32(&e, 0xdeadbeef);
	nfs42_xdr_put_u64(&e, 0x0123456789abcdefull);
	nfs42_xdr_put_u64(&e, (uint64_t)-5);
	nfs42_xdr_put_bool(&e, true);
	nfs42_xdr_put_string(&e, "hello");
	nfs42_xdr_put_fixed(&e, "abc", 3);
	nfs42_xdr_put_opaque(&e, "", 0);
	ck_assert_int_eq(e.err, 0);
	ck_assert_uint_eq(e.len, 4 + 8 + 8 + 4 + 12 + 4 + 4);
	/* padding bytes are zero */
	ck_assert_uint_eq(e.buf[4 + 8 + 8 + 4 + 4 + 5], 0);

	nfs42_xdr_dec_init(&d, e.buf, e.len);
	ck_assert(nfs42_xdr_get_u32(&d, &u32));
	ck_assert_uint_eq(u32, 0xdeadbeef);
	ck_assert(nfs42_xdr_get_u64(&d, &u64));
	ck_assert_uint_eq(u64, 0x0123456789abcdefull);
	ck_assert(nfs42_xdr_get_i64(&d, &i64));
	ck_assert_int_eq(i64, -5);
	ck_assert(nfs42_xdr_get_bool(&d, &b));
	ck_assert(b);
	ck_assert(nfs42_xdr_get_string(&d, s, sizeof(s)));
	ck_assert_str_eq(s, "hello");
	ck_assert(nfs42_xdr_get_fixed(&d, fx, 3));
	ck_assert_mem_eq(fx, "abc", 3);
	ck_assert(nfs42_xdr_get_opaque_ref(&d, &p, &n, 10));
	ck_assert_uint_eq(n, 0);
	EXPECT_END(&d);
	ck_assert(!nfs42_xdr_get_u32(&d, &u32));
	ck_assert_int_eq(d.err, -EBADMSG);
	nfs42_xdr_free(&e);
}
END_TEST

START_TEST(xdr_truncation_is_sticky)
{
	uint8_t buf[6] = { 0, 0, 0, 9, 'a', 'b' };
	struct nfs42_xdr d;
	const uint8_t *p;
	uint32_t n;

	nfs42_xdr_dec_init(&d, buf, sizeof(buf));
	ck_assert(!nfs42_xdr_get_opaque_ref(&d, &p, &n, 100));
	ck_assert(!nfs42_xdr_get_u32(&d, &n));
	ck_assert_int_eq(d.err, -EBADMSG);
	ck_assert_uint_eq(nfs42_xdr_remaining(&d), 0);
}
END_TEST

START_TEST(xdr_limits)
{
	uint8_t huge[8] = { 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 };
	uint8_t badbool[4] = { 0, 0, 0, 2 };
	uint8_t str[12] = { 0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0 };
	struct nfs42_xdr d;
	const uint8_t *p;
	char small[5];
	uint32_t n;
	bool b;

	nfs42_xdr_dec_init(&d, huge, sizeof(huge));
	ck_assert(!nfs42_xdr_get_opaque_ref(&d, &p, &n, UINT32_MAX));
	nfs42_xdr_dec_init(&d, badbool, sizeof(badbool));
	ck_assert(!nfs42_xdr_get_bool(&d, &b));
	nfs42_xdr_dec_init(&d, str, sizeof(str));
	ck_assert(!nfs42_xdr_get_string(&d, small, sizeof(small)));
	nfs42_xdr_dec_init(&d, str, 7); /* pad missing */
	ck_assert(!nfs42_xdr_skip_opaque(&d));
}
END_TEST

START_TEST(bitmap_ops)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_TYPE, FATTR4_MODE,
					       FATTR4_CLONE_BLKSIZE, -1);
	struct nfs42_bitmap out;
	struct nfs42_xdr e, d;

	ck_assert_uint_eq(bm.n, 3);
	ck_assert(nfs42_bm_isset(&bm, FATTR4_TYPE));
	ck_assert(nfs42_bm_isset(&bm, FATTR4_MODE));
	ck_assert(nfs42_bm_isset(&bm, 77));
	ck_assert(!nfs42_bm_isset(&bm, FATTR4_SIZE));
	ck_assert(!nfs42_bm_isset(&bm, 200));
	ck_assert_uint_eq(bm.w[0], 1u << 1);
	ck_assert_uint_eq(bm.w[1], 1u << 1);
	ck_assert_uint_eq(bm.w[2], 1u << 13);
	nfs42_xdr_enc_init(&e);
	nfs42_bitmap_encode(&e, &bm);
	nfs42_xdr_dec_init(&d, e.buf, e.len);
	ck_assert(nfs42_bitmap_decode(&d, &out));
	ck_assert_mem_eq(&out, &bm, sizeof(bm));
	nfs42_xdr_free(&e);
	/* trailing zero words are not sent */
	bm = nfs42_bm_make(FATTR4_SIZE, -1);
	bm.n = 3;
	nfs42_xdr_enc_init(&e);
	nfs42_bitmap_encode(&e, &bm);
	ck_assert_uint_eq(e.len, 8);
	nfs42_xdr_free(&e);
}
END_TEST

/* Encode a full fattr4 with many attributes in bit order. */
static void encode_test_fattr(struct nfs42_xdr *x)
{
	struct nfs42_bitmap bm = nfs42_bm_make(
		FATTR4_SUPPORTED_ATTRS, FATTR4_TYPE, FATTR4_CHANGE, FATTR4_SIZE,
		FATTR4_FSID, FATTR4_FILEHANDLE, FATTR4_FILEID, FATTR4_MODE,
		FATTR4_NUMLINKS, FATTR4_OWNER, FATTR4_OWNER_GROUP,
		FATTR4_RAWDEV, FATTR4_SPACE_USED, FATTR4_TIME_ACCESS,
		FATTR4_TIME_METADATA, FATTR4_TIME_MODIFY, FATTR4_CLONE_BLKSIZE,
		-1);
	struct nfs42_bitmap sup = nfs42_bm_make(0, 1, 77, -1);
	struct nfs42_xdr v;

	nfs42_xdr_enc_init(&v);
	nfs42_bitmap_encode(&v, &sup);
	nfs42_xdr_put_u32(&v, NF4REG);
	nfs42_xdr_put_u64(&v, 42);
	nfs42_xdr_put_u64(&v, 10485760);
	nfs42_xdr_put_u64(&v, 7);
	nfs42_xdr_put_u64(&v, 8);
	nfs42_xdr_put_opaque(&v, "\x01\x02\x03", 3);
	nfs42_xdr_put_u64(&v, 123456);
	nfs42_xdr_put_u32(&v, 0644);
	nfs42_xdr_put_u32(&v, 3);
	nfs42_xdr_put_string(&v, "0");
	nfs42_xdr_put_string(&v, "users@example.org");
	nfs42_xdr_put_u32(&v, 8);
	nfs42_xdr_put_u32(&v, 1);
	nfs42_xdr_put_u64(&v, 4096);
	nfs42_xdr_put_u64(&v, 1000);
	nfs42_xdr_put_u32(&v, 1);
	nfs42_xdr_put_u64(&v, 2000);
	nfs42_xdr_put_u32(&v, 2);
	nfs42_xdr_put_u64(&v, 3000);
	nfs42_xdr_put_u32(&v, 999999999);
	nfs42_xdr_put_u32(&v, 4096);
	nfs42_bitmap_encode(x, &bm);
	nfs42_xdr_put_opaque(x, v.buf, v.len);
	nfs42_xdr_free(&v);
}

START_TEST(fattr_decode_all)
{
	struct nfs42_attrs a;
	struct nfs42_xdr e, d;

	nfs42_xdr_enc_init(&e);
	encode_test_fattr(&e);
	nfs42_xdr_dec_init(&d, e.buf, e.len);
	ck_assert_int_eq(nfs42_fattr_decode(&d, &a), 0);
	EXPECT_END(&d);
	ck_assert(nfs42_bm_isset(&a.supported_attrs, 77));
	ck_assert_uint_eq(a.type, NF4REG);
	ck_assert_uint_eq(a.change, 42);
	ck_assert_uint_eq(a.size, 10485760);
	ck_assert_uint_eq(a.fsid.major, 7);
	ck_assert_uint_eq(a.fsid.minor, 8);
	ck_assert_uint_eq(a.filehandle.len, 3);
	ck_assert_uint_eq(a.fileid, 123456);
	ck_assert_uint_eq(a.mode, 0644);
	ck_assert_uint_eq(a.numlinks, 3);
	ck_assert_str_eq(a.owner, "0");
	ck_assert_str_eq(a.owner_group, "users@example.org");
	ck_assert_uint_eq(a.rawdev.major, 8);
	ck_assert_uint_eq(a.rawdev.minor, 1);
	ck_assert_uint_eq(a.space_used, 4096);
	ck_assert_int_eq(a.time_access.seconds, 1000);
	ck_assert_uint_eq(a.time_access.nseconds, 1);
	ck_assert_int_eq(a.time_metadata.seconds, 2000);
	ck_assert_int_eq(a.time_modify.seconds, 3000);
	ck_assert_uint_eq(a.time_modify.nseconds, 999999999);
	ck_assert_uint_eq(a.clone_blksize, 4096);
	ck_assert_uint_eq(nfs42_attrs_st_mode(&a), 0100644);
	nfs42_xdr_free(&e);
}
END_TEST

/* open_arguments (RFC 9754, attribute 86): five bitmap4, the second one
 * two words long, in a fattr4 of that attribute alone.
 */
static void encode_open_arguments(struct nfs42_xdr *x, size_t cut)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_OPEN_ARGUMENTS, -1);
	struct nfs42_xdr v;

	nfs42_xdr_enc_init(&v);
	nfs42_xdr_put_u32(&v, 1); /* share access: READ WRITE BOTH */
	nfs42_xdr_put_u32(&v, 0xe);
	nfs42_xdr_put_u32(&v, 2); /* share deny: NONE..BOTH, 2 words */
	nfs42_xdr_put_u32(&v, 0xf);
	nfs42_xdr_put_u32(&v, 0);
	nfs42_xdr_put_u32(&v, 1); /* wants: ANY_DELEG, NO_DELEG */
	nfs42_xdr_put_u32(&v, 0x18);
	nfs42_xdr_put_u32(&v, 1); /* claims: NULL PREVIOUS CUR FH CUR_FH */
	nfs42_xdr_put_u32(&v, 0x37);
	nfs42_xdr_put_u32(&v, 0); /* create modes: none */
	nfs42_bitmap_encode(x, &bm);
	nfs42_xdr_put_opaque(x, v.buf, v.len - cut);
	nfs42_xdr_free(&v);
}

START_TEST(fattr_decode_open_arguments)
{
	struct nfs42_attrs a;
	struct nfs42_xdr e, d;

	nfs42_xdr_enc_init(&e);
	encode_open_arguments(&e, 0);
	nfs42_xdr_dec_init(&d, e.buf, e.len);
	ck_assert_int_eq(nfs42_fattr_decode(&d, &a), 0);
	EXPECT_END(&d);
	ck_assert(nfs42_bm_isset(&a.mask, FATTR4_OPEN_ARGUMENTS));
	ck_assert(!nfs42_bm_isset(&a.open_arguments.share_access, 0));
	ck_assert(nfs42_bm_isset(&a.open_arguments.share_access, 3));
	ck_assert_uint_eq(a.open_arguments.share_deny.n, 2);
	ck_assert_uint_eq(a.open_arguments.share_deny.w[0], 0xf);
	ck_assert(nfs42_bm_isset(&a.open_arguments.share_access_want, 4));
	ck_assert(!nfs42_bm_isset(&a.open_arguments.share_access_want, 5));
	ck_assert(nfs42_bm_isset(&a.open_arguments.open_claim, 5));
	ck_assert(!nfs42_bm_isset(&a.open_arguments.open_claim, 3));
	ck_assert_uint_eq(a.open_arguments.create_mode.n, 0);
	nfs42_xdr_free(&e);

	/* the last bitmap cut short: an error, not a read past the value */
	nfs42_xdr_enc_init(&e);
	encode_open_arguments(&e, 4);
	nfs42_xdr_dec_init(&d, e.buf, e.len);
	ck_assert_int_ne(nfs42_fattr_decode(&d, &a), 0);
	nfs42_xdr_free(&e);
}
END_TEST

START_TEST(fattr_truncated_every_length)
{
	struct nfs42_attrs a;
	struct nfs42_xdr e, d;
	uint8_t *copy;
	size_t n;

	nfs42_xdr_enc_init(&e);
	encode_test_fattr(&e);
	for (n = 0; n < e.len; n++) {
		copy = malloc(n + 1); /* exact size: ASan catches over-reads */
		memcpy(copy, e.buf, n);
		nfs42_xdr_dec_init(&d, copy, n);
		ck_assert_int_ne(nfs42_fattr_decode(&d, &a), 0);
		free(copy);
	}
	nfs42_xdr_free(&e);
}
END_TEST

START_TEST(fattr_rejects_bad_values)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_TIME_MODIFY, -1);
	struct nfs42_attrs a;
	struct nfs42_xdr e, d;

	/* nseconds out of range */
	nfs42_xdr_enc_init(&e);
	nfs42_bitmap_encode(&e, &bm);
	nfs42_xdr_put_u32(&e, 12);
	nfs42_xdr_put_u64(&e, 1);
	nfs42_xdr_put_u32(&e, 1000000000);
	nfs42_xdr_dec_init(&d, e.buf, e.len);
	ck_assert_int_ne(nfs42_fattr_decode(&d, &a), 0);
	nfs42_xdr_free(&e);

	/* attrvals longer than the attributes: trailing garbage */
	nfs42_xdr_enc_init(&e);
	nfs42_bitmap_encode(&e, &bm);
	nfs42_xdr_put_u32(&e, 16);
	nfs42_xdr_put_u64(&e, 1);
	nfs42_xdr_put_u32(&e, 1);
	nfs42_xdr_put_u32(&e, 1);
	nfs42_xdr_dec_init(&d, e.buf, e.len);
	ck_assert_int_ne(nfs42_fattr_decode(&d, &a), 0);
	nfs42_xdr_free(&e);

	/* an attribute we cannot parse (fs_locations) */
	bm = nfs42_bm_make(FATTR4_FS_LOCATIONS, -1);
	nfs42_xdr_enc_init(&e);
	nfs42_bitmap_encode(&e, &bm);
	nfs42_xdr_put_u32(&e, 4);
	nfs42_xdr_put_u32(&e, 0);
	nfs42_xdr_dec_init(&d, e.buf, e.len);
	ck_assert_int_ne(nfs42_fattr_decode(&d, &a), 0);
	nfs42_xdr_free(&e);
}
END_TEST

START_TEST(fattr_encode_sattr)
{
	struct nfs42_time t = { .seconds = 1234, .nseconds = 5 };
	struct nfs42_sattr sa;
	struct nfs42_bitmap bm;
	struct nfs42_xdr e, d;

	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 99);
	nfs42_sattr_mode(&sa, 0100755); /* type bits dropped */
	nfs42_sattr_owner(&sa, "1000");
	nfs42_sattr_group(&sa, "grp@dom");
	nfs42_sattr_atime(&sa, NULL);
	nfs42_sattr_mtime(&sa, &t);
	nfs42_xdr_enc_init(&e);
	nfs42_fattr_encode(&e, &sa);
	nfs42_xdr_dec_init(&d, e.buf, e.len);
	ck_assert(nfs42_bitmap_decode(&d, &bm));
	ck_assert_mem_eq(&bm, &sa.mask, sizeof(bm));
	EXPECT_U32(&d, 8 + 4 + 8 + 12 + 4 + 16);
	EXPECT_U64(&d, 99);
	EXPECT_U32(&d, 0755);
	EXPECT_STR(&d, "1000");
	EXPECT_STR(&d, "grp@dom");
	EXPECT_U32(&d, SET_TO_SERVER_TIME4);
	EXPECT_U32(&d, SET_TO_CLIENT_TIME4);
	EXPECT_U64(&d, 1234);
	EXPECT_U32(&d, 5);
	EXPECT_END(&d);
	nfs42_xdr_free(&e);
}
END_TEST

START_TEST(owner_strings)
{
	uint32_t id;

	ck_assert_int_eq(nfs42_owner_to_id("0", false, &id), 0);
	ck_assert_uint_eq(id, 0);
	ck_assert_int_eq(nfs42_owner_to_id("1000", true, &id), 0);
	ck_assert_uint_eq(id, 1000);
	ck_assert_int_eq(nfs42_owner_to_id("root@localdomain", false, &id), 0);
	ck_assert_uint_eq(id, 0);
	ck_assert_int_eq(nfs42_owner_to_id("4242@dom", false, &id), 0);
	ck_assert_uint_eq(id, 4242);
	ck_assert_int_ne(nfs42_owner_to_id("no-such-user-xyz@dom", false, &id),
			 0);
}
END_TEST

START_TEST(status_names)
{
	ck_assert_str_eq(nfs42_strerror(0), "NFS4_OK");
	ck_assert_str_eq(nfs42_strerror(2), "NFS4ERR_NOENT");
	ck_assert_str_eq(nfs42_strerror(10008), "NFS4ERR_DELAY");
	ck_assert_str_eq(nfs42_strerror(10052), "NFS4ERR_BADSESSION");
	ck_assert_str_eq(nfs42_strerror(10087), "NFS4ERR_DELEG_REVOKED");
	ck_assert_str_eq(nfs42_strerror(10094), "NFS4ERR_OFFLOAD_NO_REQS");
	ck_assert_str_eq(nfs42_strerror(10096), "NFS4ERR_XATTR2BIG");
	ck_assert_str_eq(nfs42_strerror(10073), "NFS4ERR_UNKNOWN(10073)");
	ck_assert_str_eq(nfs42_strerror(-ECONNREFUSED), "Connection refused");
	ck_assert_str_eq(nfs42_opname(OP_READ_PLUS), "READ_PLUS");
	ck_assert_str_eq(nfs42_opname(OP_CLONE), "CLONE");
	ck_assert_str_eq(nfs42_opname(OP_ILLEGAL), "ILLEGAL");
	ck_assert_str_eq(nfs42_opname(999), "OP_999");
}
END_TEST

START_TEST(status_names_complete)
{
	/* every value of RFC 5661/7862/8276 has a name */
	static const int ranges[][2] = { { 10001, 10001 },
					 { 10003, 10072 },
					 { 10074, 10096 } };
	static const int small[] = { 1,	 2,  5,	 6,  13, 17, 18, 20, 21,
				     22, 27, 28, 30, 31, 63, 66, 69, 70 };
	unsigned int i;
	int v;

	for (i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		ck_assert(!strncmp(nfs42_strerror(small[i]), "NFS4ERR_", 8) &&
			  strncmp(nfs42_strerror(small[i]), "NFS4ERR_UNKNOWN(",
				  16));
	for (i = 0; i < 3; i++)
		for (v = ranges[i][0]; v <= ranges[i][1]; v++)
			ck_assert_msg(strncmp(nfs42_strerror(v),
					      "NFS4ERR_UNKNOWN(", 16),
				      "no name for %d", v);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, xdr_round_trip);
	tcase_add_test(tc, xdr_truncation_is_sticky);
	tcase_add_test(tc, xdr_limits);
	tcase_add_test(tc, bitmap_ops);
	tcase_add_test(tc, fattr_decode_all);
	tcase_add_test(tc, fattr_decode_open_arguments);
	tcase_add_test(tc, fattr_truncated_every_length);
	tcase_add_test(tc, fattr_rejects_bad_values);
	tcase_add_test(tc, fattr_encode_sattr);
	tcase_add_test(tc, owner_strings);
	tcase_add_test(tc, status_names);
	tcase_add_test(tc, status_names_complete);
	return run_tcase("nfs42_xdr", tc, CK_FORK_GETENV);
}
