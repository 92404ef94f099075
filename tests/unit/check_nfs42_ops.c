/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* Unit tests: operation encoders and result decoders of nfs42c. */
#include <errno.h>
#include <stdlib.h>

#include "nfs42_test_util.h"

static const struct nfs42_stateid SID = {
	.seqid = 7,
	.other = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 },
};
static const struct nfs42_stateid SID2 = {
	.seqid = 9,
	.other = { 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 },
};

/* Encode c and position d on the first op; checks the header. */
static void args_of(struct nfs42_compound *c, struct nfs42_xdr *e,
		    struct nfs42_xdr *d, uint32_t nops)
{
	nfs42_xdr_enc_init(e);
	ck_assert_int_eq(nfs42_compound_encode(c, e), 0);
	nfs42_xdr_dec_init(d, e->buf, e->len);
	EXPECT_STR(d, "t");
	EXPECT_U32(d, 2);
	EXPECT_U32(d, nops);
}

static struct nfs42_compound *new_c(void)
{
	struct nfs42_compound *c = nfs42_compound_new(NULL);

	nfs42_compound_set_tag(c, "t");
	return c;
}

START_TEST(args_simple_ops)
{
	struct nfs42_compound *c = new_c();
	struct nfs42_fh fh = { .len = 5, .data = { 9, 8, 7, 6, 5 } };
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_SIZE, -1);
	struct nfs42_xdr e, d;

	ck_assert_int_eq(nfs42_op_putrootfh(c), 0);
	ck_assert_int_eq(nfs42_op_putfh(c, &fh), 1);
	ck_assert_int_eq(nfs42_op_lookup(c, "dir"), 2);
	nfs42_op_lookupp(c);
	nfs42_op_getfh(c);
	nfs42_op_getattr(c, &bm);
	nfs42_op_access(c, ACCESS4_READ | ACCESS4_MODIFY);
	nfs42_op_savefh(c);
	nfs42_op_restorefh(c);
	nfs42_op_readlink(c);
	nfs42_op_remove(c, "victim");
	nfs42_op_rename(c, "a", "bb");
	nfs42_op_link(c, "lnk");
	nfs42_op_commit(c, 100, 200);
	ck_assert_uint_eq(nfs42_compound_nops(c), 14);
	ck_assert_uint_eq(nfs42_compound_opnum(c, 2), OP_LOOKUP);
	args_of(c, &e, &d, 14);
	EXPECT_U32(&d, OP_PUTROOTFH);
	EXPECT_U32(&d, OP_PUTFH);
	EXPECT_U32(&d, 5);
	EXPECT_FIXED(&d, fh.data, 5);
	EXPECT_U32(&d, OP_LOOKUP);
	EXPECT_STR(&d, "dir");
	EXPECT_U32(&d, OP_LOOKUPP);
	EXPECT_U32(&d, OP_GETFH);
	EXPECT_U32(&d, OP_GETATTR);
	EXPECT_U32(&d, 1);
	EXPECT_U32(&d, 1u << FATTR4_SIZE);
	EXPECT_U32(&d, OP_ACCESS);
	EXPECT_U32(&d, ACCESS4_READ | ACCESS4_MODIFY);
	EXPECT_U32(&d, OP_SAVEFH);
	EXPECT_U32(&d, OP_RESTOREFH);
	EXPECT_U32(&d, OP_READLINK);
	EXPECT_U32(&d, OP_REMOVE);
	EXPECT_STR(&d, "victim");
	EXPECT_U32(&d, OP_RENAME);
	EXPECT_STR(&d, "a");
	EXPECT_STR(&d, "bb");
	EXPECT_U32(&d, OP_LINK);
	EXPECT_STR(&d, "lnk");
	EXPECT_U32(&d, OP_COMMIT);
	EXPECT_U64(&d, 100);
	EXPECT_U32(&d, 200);
	EXPECT_END(&d);
	nfs42_xdr_free(&e);
	nfs42_compound_free(c);
}
END_TEST

START_TEST(args_readdir)
{
	struct nfs42_compound *c = new_c();
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, -1);
	uint8_t verf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct nfs42_xdr e, d;

	nfs42_op_readdir(c, 77, verf, 1000, 2000, &bm);
	args_of(c, &e, &d, 1);
	EXPECT_U32(&d, OP_READDIR);
	EXPECT_U64(&d, 77);
	EXPECT_FIXED(&d, verf, 8);
	EXPECT_U32(&d, 1000);
	EXPECT_U32(&d, 2000);
	EXPECT_U32(&d, 1);
	EXPECT_U32(&d, 1u << FATTR4_FILEID);
	EXPECT_END(&d);
	nfs42_xdr_free(&e);
	nfs42_compound_free(c);
}
END_TEST

START_TEST(args_open_variants)
{
	struct nfs42_compound *c = new_c();
	struct nfs42_open_args a = { 0 };
	struct nfs42_sattr sa;
	struct nfs42_xdr e, d;
	int mode;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0600);
	a.share_access = OPEN4_SHARE_ACCESS_BOTH;
	a.share_deny = OPEN4_SHARE_DENY_WRITE;
	a.owner_clientid = 0x1122334455667788ull;
	a.owner = "own";
	a.owner_len = 3;
	a.attrs = &sa;
	memcpy(a.verifier, "VERIFIER", 8);
	a.claim = CLAIM_NULL;
	a.name = "file";
	for (mode = NFS42_NOCREATE; mode <= EXCLUSIVE4_1; mode++) {
		a.createmode = mode;
		nfs42_op_open(c, &a);
	}
	a.claim = CLAIM_FH;
	a.createmode = NFS42_NOCREATE;
	nfs42_op_open(c, &a);
	nfs42_op_open_downgrade(c, &SID, 3, OPEN4_SHARE_ACCESS_READ,
				OPEN4_SHARE_DENY_NONE);
	nfs42_op_close(c, 4, &SID);
	args_of(c, &e, &d, 8);
	for (mode = NFS42_NOCREATE; mode <= EXCLUSIVE4_1; mode++) {
		EXPECT_U32(&d, OP_OPEN);
		EXPECT_U32(&d, 0);
		EXPECT_U32(&d, OPEN4_SHARE_ACCESS_BOTH);
		EXPECT_U32(&d, OPEN4_SHARE_DENY_WRITE);
		EXPECT_U64(&d, 0x1122334455667788ull);
		EXPECT_U32(&d, 3);
		EXPECT_FIXED(&d, "own", 3);
		if (mode == NFS42_NOCREATE) {
			EXPECT_U32(&d, 0);
		} else {
			EXPECT_U32(&d, 1);
			EXPECT_U32(&d, mode);
		}
		if (mode == EXCLUSIVE4 || mode == EXCLUSIVE4_1)
			EXPECT_FIXED(&d, "VERIFIER", 8);
		if (mode == UNCHECKED4 || mode == GUARDED4 ||
		    mode == EXCLUSIVE4_1) {
			EXPECT_U32(&d, 2); /* bitmap: 2 words */
			EXPECT_U32(&d, 0);
			EXPECT_U32(&d, 1u << (FATTR4_MODE - 32));
			EXPECT_U32(&d, 4);
			EXPECT_U32(&d, 0600);
		}
		EXPECT_U32(&d, CLAIM_NULL);
		EXPECT_STR(&d, "file");
	}
	EXPECT_U32(&d, OP_OPEN);
	nfs42_xdr_skip(&d, 4 * 3 + 8 + 8 + 4);
	EXPECT_U32(&d, CLAIM_FH);
	EXPECT_U32(&d, OP_OPEN_DOWNGRADE);
	expect_sid(&d, &SID);
	EXPECT_U32(&d, 3);
	EXPECT_U32(&d, OPEN4_SHARE_ACCESS_READ);
	EXPECT_U32(&d, OPEN4_SHARE_DENY_NONE);
	EXPECT_U32(&d, OP_CLOSE);
	EXPECT_U32(&d, 4);
	expect_sid(&d, &SID);
	EXPECT_END(&d);
	nfs42_xdr_free(&e);
	nfs42_compound_free(c);
}
END_TEST

/* OPEN CLAIM_PREVIOUS (RFC 8881 18.16.1): the claim carries the
 * delegation type the client held, no name and no stateid. */
START_TEST(args_open_claim_previous)
{
	struct nfs42_compound *c = new_c();
	struct nfs42_open_args a = { 0 };
	struct nfs42_xdr e, d;

	a.share_access = OPEN4_SHARE_ACCESS_READ;
	a.share_deny = OPEN4_SHARE_DENY_NONE;
	a.owner_clientid = 0x0102030405060708ull;
	a.owner = "oo";
	a.owner_len = 2;
	a.createmode = NFS42_NOCREATE;
	a.claim = CLAIM_PREVIOUS;
	a.delegate_type = OPEN_DELEGATE_READ;
	ck_assert_int_ge(nfs42_op_open(c, &a), 0);
	args_of(c, &e, &d, 1);
	EXPECT_U32(&d, OP_OPEN);
	EXPECT_U32(&d, 0);
	EXPECT_U32(&d, OPEN4_SHARE_ACCESS_READ);
	EXPECT_U32(&d, OPEN4_SHARE_DENY_NONE);
	EXPECT_U64(&d, 0x0102030405060708ull);
	EXPECT_U32(&d, 2);
	EXPECT_FIXED(&d, "oo", 2);
	EXPECT_U32(&d, 0); /* OPEN4_NOCREATE */
	EXPECT_U32(&d, CLAIM_PREVIOUS);
	EXPECT_U32(&d, OPEN_DELEGATE_READ);
	EXPECT_END(&d);
	nfs42_xdr_free(&e);
	nfs42_compound_free(c);
}
END_TEST

START_TEST(args_io_ops)
{
	struct nfs42_compound *c = new_c();
	struct nfs42_xdr e, d;

	nfs42_op_read(c, &SID, 1ull << 40, 65536);
	nfs42_op_write(c, &SID, 12, FILE_SYNC4, "hello", 5);
	nfs42_op_seek(c, &SID, 4096, NFS4_CONTENT_HOLE);
	nfs42_op_allocate(c, &SID, 1, 2);
	nfs42_op_deallocate(c, &SID, 3, 4);
	nfs42_op_read_plus(c, &SID, 5, 6);
	nfs42_op_copy(c, &SID, &SID2, 10, 20, 30, false, true);
	nfs42_op_clone(c, &SID, &SID2, 40, 50, 60);
	nfs42_op_offload_status(c, &SID2);
	nfs42_op_offload_cancel(c, &SID);
	args_of(c, &e, &d, 10);
	EXPECT_U32(&d, OP_READ);
	expect_sid(&d, &SID);
	EXPECT_U64(&d, 1ull << 40);
	EXPECT_U32(&d, 65536);
	EXPECT_U32(&d, OP_WRITE);
	expect_sid(&d, &SID);
	EXPECT_U64(&d, 12);
	EXPECT_U32(&d, FILE_SYNC4);
	EXPECT_U32(&d, 5);
	EXPECT_FIXED(&d, "hello", 5);
	EXPECT_U32(&d, OP_SEEK);
	expect_sid(&d, &SID);
	EXPECT_U64(&d, 4096);
	EXPECT_U32(&d, NFS4_CONTENT_HOLE);
	EXPECT_U32(&d, OP_ALLOCATE);
	expect_sid(&d, &SID);
	EXPECT_U64(&d, 1);
	EXPECT_U64(&d, 2);
	EXPECT_U32(&d, OP_DEALLOCATE);
	expect_sid(&d, &SID);
	EXPECT_U64(&d, 3);
	EXPECT_U64(&d, 4);
	EXPECT_U32(&d, OP_READ_PLUS);
	expect_sid(&d, &SID);
	EXPECT_U64(&d, 5);
	EXPECT_U32(&d, 6);
	EXPECT_U32(&d, OP_COPY);
	expect_sid(&d, &SID);
	expect_sid(&d, &SID2);
	EXPECT_U64(&d, 10);
	EXPECT_U64(&d, 20);
	EXPECT_U64(&d, 30);
	EXPECT_U32(&d, 0);
	EXPECT_U32(&d, 1);
	EXPECT_U32(&d, 0);
	EXPECT_U32(&d, OP_CLONE);
	expect_sid(&d, &SID);
	expect_sid(&d, &SID2);
	EXPECT_U64(&d, 40);
	EXPECT_U64(&d, 50);
	EXPECT_U64(&d, 60);
	EXPECT_U32(&d, OP_OFFLOAD_STATUS);
	expect_sid(&d, &SID2);
	EXPECT_U32(&d, OP_OFFLOAD_CANCEL);
	expect_sid(&d, &SID);
	EXPECT_END(&d);
	nfs42_xdr_free(&e);
	nfs42_compound_free(c);
}
END_TEST

START_TEST(args_create_setattr_lock)
{
	struct nfs42_compound *c = new_c();
	struct nfs42_create_args ca = { .type = NF4LNK, .name = "sl" };
	struct nfs42_lock_owner lo = { .clientid = 5,
				       .owner = "lo",
				       .owner_len = 2 };
	struct nfs42_sattr sa;
	struct nfs42_xdr e, d;

	ca.linkdata = "/target";
	nfs42_op_create(c, &ca);
	ca.type = NF4CHR;
	ca.name = "chr";
	ca.specmajor = 1;
	ca.specminor = 3;
	nfs42_op_create(c, &ca);
	ca.type = NF4DIR;
	ca.name = "dir";
	nfs42_op_create(c, &ca);
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 0);
	nfs42_op_setattr(c, NULL, &sa);
	nfs42_op_lock_new(c, WRITE_LT, false, 0, NFS42_LENGTH_EOF, 0, &SID, 0,
			  &lo);
	nfs42_op_lock_existing(c, READ_LT, true, 10, 20, &SID2, 1);
	nfs42_op_lockt(c, WRITEW_LT, 30, 40, &lo);
	nfs42_op_locku(c, WRITE_LT, 2, &SID2, 50, 60);
	args_of(c, &e, &d, 8);
	EXPECT_U32(&d, OP_CREATE);
	EXPECT_U32(&d, NF4LNK);
	EXPECT_STR(&d, "/target");
	EXPECT_STR(&d, "sl");
	EXPECT_U32(&d, 0); /* empty bitmap */
	EXPECT_U32(&d, 0); /* empty attrvals */
	EXPECT_U32(&d, OP_CREATE);
	EXPECT_U32(&d, NF4CHR);
	EXPECT_U32(&d, 1);
	EXPECT_U32(&d, 3);
	EXPECT_STR(&d, "chr");
	EXPECT_U32(&d, 0);
	EXPECT_U32(&d, 0);
	EXPECT_U32(&d, OP_CREATE);
	EXPECT_U32(&d, NF4DIR);
	EXPECT_STR(&d, "dir");
	EXPECT_U32(&d, 0);
	EXPECT_U32(&d, 0);
	EXPECT_U32(&d, OP_SETATTR);
	EXPECT_U32(&d, 0); /* anonymous stateid */
	EXPECT_FIXED(&d, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	EXPECT_U32(&d, 1);
	EXPECT_U32(&d, 1u << FATTR4_SIZE);
	EXPECT_U32(&d, 8);
	EXPECT_U64(&d, 0);
	EXPECT_U32(&d, OP_LOCK);
	EXPECT_U32(&d, WRITE_LT);
	EXPECT_U32(&d, 0);
	EXPECT_U64(&d, 0);
	EXPECT_U64(&d, UINT64_MAX);
	EXPECT_U32(&d, 1); /* new lock owner */
	EXPECT_U32(&d, 0);
	expect_sid(&d, &SID);
	EXPECT_U32(&d, 0);
	EXPECT_U64(&d, 5);
	EXPECT_U32(&d, 2);
	EXPECT_FIXED(&d, "lo", 2);
	EXPECT_U32(&d, OP_LOCK);
	EXPECT_U32(&d, READ_LT);
	EXPECT_U32(&d, 1);
	EXPECT_U64(&d, 10);
	EXPECT_U64(&d, 20);
	EXPECT_U32(&d, 0);
	expect_sid(&d, &SID2);
	EXPECT_U32(&d, 1);
	EXPECT_U32(&d, OP_LOCKT);
	EXPECT_U32(&d, WRITEW_LT);
	EXPECT_U64(&d, 30);
	EXPECT_U64(&d, 40);
	EXPECT_U64(&d, 5);
	EXPECT_U32(&d, 2);
	EXPECT_FIXED(&d, "lo", 2);
	EXPECT_U32(&d, OP_LOCKU);
	EXPECT_U32(&d, WRITE_LT);
	EXPECT_U32(&d, 2);
	expect_sid(&d, &SID2);
	EXPECT_U64(&d, 50);
	EXPECT_U64(&d, 60);
	EXPECT_END(&d);
	nfs42_xdr_free(&e);
	nfs42_compound_free(c);
}
END_TEST

/* CREATE_SESSION up to csa_cb_program, with the channel attributes
 * { 0, 1, 2, 3, 4, 5 } (fore) and { 0, 6, 7, 8, 9, 10 } (back) */
static void expect_create_session(struct nfs42_xdr *d, uint64_t clientid,
				  uint32_t seq, uint32_t flags,
				  uint32_t cb_program)
{
	EXPECT_U32(d, OP_CREATE_SESSION);
	EXPECT_U64(d, clientid);
	EXPECT_U32(d, seq);
	EXPECT_U32(d, flags);
	for (int i = 0; i < 6; i++)
		EXPECT_U32(d, i);
	EXPECT_U32(d, 0);
	EXPECT_U32(d, 0);
	for (int i = 6; i < 11; i++)
		EXPECT_U32(d, i);
	EXPECT_U32(d, 0);
	EXPECT_U32(d, cb_program);
}

START_TEST(args_session_ops)
{
	struct nfs42_compound *c = new_c();
	struct nfs42_chan_attrs fore = { 0, 1, 2, 3, 4, 5 };
	struct nfs42_chan_attrs back = { 0, 6, 7, 8, 9, 10 };
	uint8_t sid[16] = "0123456789abcdef";
	struct nfs42_xdr e, d;

	nfs42_op_sequence(c, sid, 1, 2, 3, true);
	nfs42_op_exchange_id(c, (const uint8_t *)"verifier", "me", 2, 0);
	nfs42_op_create_session(c, 99, 1, CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
				&fore, &back, 0x40000000, 1000, 100, "host");
	nfs42_op_destroy_session(c, sid);
	nfs42_op_destroy_clientid(c, 99);
	nfs42_op_reclaim_complete(c, false);
	args_of(c, &e, &d, 6);
	EXPECT_U32(&d, OP_SEQUENCE);
	EXPECT_FIXED(&d, sid, 16);
	EXPECT_U32(&d, 1);
	EXPECT_U32(&d, 2);
	EXPECT_U32(&d, 3);
	EXPECT_U32(&d, 1);
	EXPECT_U32(&d, OP_EXCHANGE_ID);
	EXPECT_FIXED(&d, "verifier", 8);
	EXPECT_U32(&d, 2);
	EXPECT_FIXED(&d, "me", 2);
	EXPECT_U32(&d, 0);
	EXPECT_U32(&d, 0); /* SP4_NONE */
	EXPECT_U32(&d, 0); /* impl id */
	expect_create_session(&d, 99, 1, CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
			      0x40000000);
	EXPECT_U32(&d, 1); /* one sec parm */
	EXPECT_U32(&d, 1); /* AUTH_SYS */
	EXPECT_U32(&d, 0); /* stamp */
	EXPECT_STR(&d, "host");
	EXPECT_U32(&d, 1000);
	EXPECT_U32(&d, 100);
	EXPECT_U32(&d, 0);
	EXPECT_U32(&d, OP_DESTROY_SESSION);
	EXPECT_FIXED(&d, sid, 16);
	EXPECT_U32(&d, OP_DESTROY_CLIENTID);
	EXPECT_U64(&d, 99);
	EXPECT_U32(&d, OP_RECLAIM_COMPLETE);
	EXPECT_U32(&d, 0);
	EXPECT_END(&d);
	nfs42_xdr_free(&e);
	nfs42_compound_free(c);
}
END_TEST

/* CREATE_SESSION offering RPCSEC_GSS, AUTH_NONE, AUTH_SYS and a flavour
 * with no arm, in that order */
START_TEST(args_create_session_sec)
{
	struct nfs42_compound *c = new_c();
	struct nfs42_chan_attrs fore = { 0, 1, 2, 3, 4, 5 };
	struct nfs42_chan_attrs back = { 0, 6, 7, 8, 9, 10 };
	const struct nfs42_cb_sec secs[] = {
		{ .flavor = NFS42_CB_RPCSEC_GSS,
		  .gss_service = 2,
		  .gss_handle_from_server = "srv",
		  .gss_handle_from_server_len = 3,
		  .gss_handle_from_client = "client",
		  .gss_handle_from_client_len = 6 },
		{ .flavor = NFS42_CB_AUTH_NONE },
		{ .flavor = NFS42_CB_AUTH_SYS,
		  .uid = 7,
		  .gid = 8,
		  .machinename = "m" },
		{ .flavor = 390003 },
	};
	struct nfs42_xdr e, d;

	ck_assert_int_eq(nfs42_op_create_session_sec(c, 5, 2, 0, &fore, &back,
						     0x40000001, secs, 4),
			 0);
	args_of(c, &e, &d, 1);
	expect_create_session(&d, 5, 2, 0, 0x40000001);
	EXPECT_U32(&d, 4);
	EXPECT_U32(&d, 6); /* RPCSEC_GSS */
	EXPECT_U32(&d, 2);
	EXPECT_STR(&d, "srv");
	EXPECT_STR(&d, "client");
	EXPECT_U32(&d, 0); /* AUTH_NONE */
	EXPECT_U32(&d, 1); /* AUTH_SYS */
	EXPECT_U32(&d, 0);
	EXPECT_STR(&d, "m");
	EXPECT_U32(&d, 7);
	EXPECT_U32(&d, 8);
	EXPECT_U32(&d, 0);
	EXPECT_U32(&d, 390003);
	EXPECT_END(&d);
	nfs42_xdr_free(&e);
	nfs42_compound_free(c);
}
END_TEST

START_TEST(args_raw_op)
{
	struct nfs42_compound *c = new_c();
	uint8_t garbage[6] = { 0, 0, 0, 99, 0xaa, 0xbb };
	struct nfs42_xdr e, d;

	nfs42_op_putrootfh(c);
	ck_assert_int_eq(nfs42_op_raw(c, 99, garbage, sizeof(garbage)), 1);
	ck_assert_uint_eq(nfs42_compound_opnum(c, 1), 99);
	args_of(c, &e, &d, 2);
	EXPECT_U32(&d, OP_PUTROOTFH);
	ck_assert_uint_eq(nfs42_xdr_remaining(&d), 6);
	ck_assert_mem_eq(nfs42_xdr_cursor(&d), garbage, 6);
	nfs42_xdr_free(&e);
	nfs42_compound_free(c);
}
END_TEST

/* ---------------------------------------------------------- replies */

static void put_cinfo(struct nfs42_xdr *x, uint64_t before, uint64_t after)
{
	nfs42_xdr_put_bool(x, true);
	nfs42_xdr_put_u64(x, before);
	nfs42_xdr_put_u64(x, after);
}

static void put_small_fattr(struct nfs42_xdr *x, uint64_t fileid)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, -1);

	nfs42_bitmap_encode(x, &bm);
	nfs42_xdr_put_u32(x, 8);
	nfs42_xdr_put_u64(x, fileid);
}

#define N_ALL_RES 35

/* A reply with one successful result of every op we decode. */
static void build_all_reply(struct nfs42_xdr *x)
{
	uint8_t verf[8] = "ABCDEFGH";
	uint8_t sid[16] = "sessionid-16byte";

	reply_begin(x, NFS4_OK, N_ALL_RES);
	res_head(x, OP_SEQUENCE, 0); /* 1 */
	nfs42_xdr_put_fixed(x, sid, 16);
	nfs42_xdr_put_u32(x, 5);
	nfs42_xdr_put_u32(x, 1);
	nfs42_xdr_put_u32(x, 15);
	nfs42_xdr_put_u32(x, 15);
	nfs42_xdr_put_u32(x, 0);
	res_head(x, OP_PUTROOTFH, 0); /* 2 */
	res_head(x, OP_LOOKUP, 0); /* 3 */
	res_head(x, OP_GETFH, 0); /* 4 */
	nfs42_xdr_put_opaque(x, "fh!", 3);
	res_head(x, OP_GETATTR, 0); /* 5 */
	put_small_fattr(x, 4242);
	res_head(x, OP_ACCESS, 0); /* 6 */
	nfs42_xdr_put_u32(x, 0x3f);
	nfs42_xdr_put_u32(x, 0x03);
	res_head(x, OP_OPEN, 0); /* 7 */
	put_sid(x, &SID);
	put_cinfo(x, 1, 2);
	nfs42_xdr_put_u32(x, OPEN4_RESULT_LOCKTYPE_POSIX);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, 3); /* OPEN_DELEGATE_NONE_EXT */
	nfs42_xdr_put_u32(x, 1); /* WND4_CONTENTION */
	nfs42_xdr_put_bool(x, false);
	res_head(x, OP_READ, 0); /* 8 */
	nfs42_xdr_put_bool(x, true);
	nfs42_xdr_put_opaque(x, "data", 4);
	res_head(x, OP_READDIR, 0); /* 9 */
	nfs42_xdr_put_fixed(x, verf, 8);
	nfs42_xdr_put_bool(x, true);
	nfs42_xdr_put_u64(x, 11);
	nfs42_xdr_put_string(x, "one");
	put_small_fattr(x, 1);
	nfs42_xdr_put_bool(x, true);
	nfs42_xdr_put_u64(x, 12);
	nfs42_xdr_put_string(x, "two");
	put_small_fattr(x, 2);
	nfs42_xdr_put_bool(x, false);
	nfs42_xdr_put_bool(x, true);
	res_head(x, OP_CLOSE, 0); /* 10 */
	put_sid(x, &SID2);
	res_head(x, OP_WRITE, 0); /* 11 */
	nfs42_xdr_put_u32(x, 4);
	nfs42_xdr_put_u32(x, FILE_SYNC4);
	nfs42_xdr_put_fixed(x, verf, 8);
	res_head(x, OP_COMMIT, 0); /* 12 */
	nfs42_xdr_put_fixed(x, verf, 8);
	res_head(x, OP_CREATE, 0); /* 13 */
	put_cinfo(x, 3, 4);
	nfs42_bitmap_encode(x, &(struct nfs42_bitmap){ 2, { 0, 2 } });
	res_head(x, OP_REMOVE, 0); /* 14 */
	put_cinfo(x, 5, 6);
	res_head(x, OP_RENAME, 0); /* 15 */
	put_cinfo(x, 7, 8);
	put_cinfo(x, 9, 10);
	res_head(x, OP_LINK, 0); /* 16 */
	put_cinfo(x, 11, 12);
	res_head(x, OP_READLINK, 0); /* 17 */
	nfs42_xdr_put_string(x, "/some/target");
	res_head(x, OP_SETATTR, 0); /* 18 */
	nfs42_bitmap_encode(x, &(struct nfs42_bitmap){ 1, { 1u << 4 } });
	res_head(x, OP_SAVEFH, 0); /* 19 */
	res_head(x, OP_RESTOREFH, 0); /* 20 */
	res_head(x, OP_LOCK, 0); /* 21 */
	put_sid(x, &SID);
	res_head(x, OP_LOCKT, 0); /* 22 */
	res_head(x, OP_LOCKU, 0); /* 23 */
	put_sid(x, &SID2);
	res_head(x, OP_SEEK, 0); /* 24 */
	nfs42_xdr_put_bool(x, false);
	nfs42_xdr_put_u64(x, 8192);
	res_head(x, OP_ALLOCATE, 0); /* 25 */
	res_head(x, OP_DEALLOCATE, 0); /* 26 */
	res_head(x, OP_READ_PLUS, 0); /* 27 */
	nfs42_xdr_put_bool(x, true);
	nfs42_xdr_put_u32(x, 2);
	nfs42_xdr_put_u32(x, NFS4_CONTENT_DATA);
	nfs42_xdr_put_u64(x, 0);
	nfs42_xdr_put_opaque(x, "xyz", 3);
	nfs42_xdr_put_u32(x, NFS4_CONTENT_HOLE);
	nfs42_xdr_put_u64(x, 3);
	nfs42_xdr_put_u64(x, 1 << 20);
	res_head(x, OP_COPY, 0); /* 28 */
	nfs42_xdr_put_u32(x, 1);
	put_sid(x, &SID);
	nfs42_xdr_put_u64(x, 12345);
	nfs42_xdr_put_u32(x, UNSTABLE4);
	nfs42_xdr_put_fixed(x, verf, 8);
	nfs42_xdr_put_bool(x, true);
	nfs42_xdr_put_bool(x, false);
	res_head(x, OP_OFFLOAD_STATUS, 0); /* 29 */
	nfs42_xdr_put_u64(x, 777);
	nfs42_xdr_put_u32(x, 1);
	nfs42_xdr_put_u32(x, NFS4_OK);
	res_head(x, OP_CLONE, 0); /* 30 */
	res_head(x, OP_LAYOUTGET, 0); /* 31 */
	nfs42_xdr_put_bool(x, true);
	put_sid(x, &SID2);
	nfs42_xdr_put_u32(x, 1);
	nfs42_xdr_put_u64(x, 0);
	nfs42_xdr_put_u64(x, UINT64_MAX);
	nfs42_xdr_put_u32(x, LAYOUTIOMODE4_RW);
	nfs42_xdr_put_u32(x, LAYOUT4_NFSV4_1_FILES);
	nfs42_xdr_put_opaque(x, "layoutbody", 10);
	res_head(x, OP_GETDEVICEINFO, 0); /* 32 */
	nfs42_xdr_put_u32(x, LAYOUT4_NFSV4_1_FILES);
	nfs42_xdr_put_opaque(x, "dev", 3);
	nfs42_bitmap_encode(x, &(struct nfs42_bitmap){ 0 });
	res_head(x, OP_GETDEVICELIST, 0); /* 33 */
	nfs42_xdr_put_u64(x, 2);
	nfs42_xdr_put_fixed(x, verf, 8);
	nfs42_xdr_put_u32(x, 2);
	nfs42_xdr_put_fixed(x, "device-id-000001", 16);
	nfs42_xdr_put_fixed(x, "device-id-000002", 16);
	nfs42_xdr_put_bool(x, true);
	res_head(x, OP_LAYOUTCOMMIT, 0); /* 34 */
	nfs42_xdr_put_bool(x, true);
	nfs42_xdr_put_u64(x, 65537);
	res_head(x, OP_LAYOUTRETURN, 0); /* 35 */
	nfs42_xdr_put_bool(x, true);
	put_sid(x, &SID);
}

START_TEST(reply_all_ops)
{
	struct nfs42_compound *c = nfs42_compound_new(NULL);
	const struct nfs42_res *r;
	struct nfs42_xdr x;

	build_all_reply(&x);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), 0);
	ck_assert_uint_eq(nfs42_compound_nres(c), N_ALL_RES);
	r = nfs42_res(c, 0);
	ck_assert_uint_eq(r->u.sequence.seqid, 5);
	ck_assert_uint_eq(r->u.sequence.target_highest_slot, 15);
	ck_assert_uint_eq(nfs42_res(c, 3)->u.fh.len, 3);
	ck_assert_uint_eq(nfs42_res(c, 4)->u.getattr->fileid, 4242);
	ck_assert_uint_eq(nfs42_res(c, 5)->u.access.access, 3);
	r = nfs42_res(c, 6);
	ck_assert_mem_eq(&r->u.open.stateid, &SID, sizeof(SID));
	ck_assert_uint_eq(r->u.open.cinfo.after, 2);
	ck_assert_uint_eq(r->u.open.deleg_type, 3);
	ck_assert_uint_eq(r->u.open.why_no_deleg, 1);
	r = nfs42_res(c, 7);
	ck_assert(r->u.read.eof);
	ck_assert_uint_eq(r->u.read.len, 4);
	ck_assert_mem_eq(r->u.read.data, "data", 4);
	r = nfs42_res(c, 8);
	ck_assert_uint_eq(r->u.readdir.n, 2);
	ck_assert(r->u.readdir.eof);
	ck_assert_str_eq(r->u.readdir.entries[1].name, "two");
	ck_assert_uint_eq(r->u.readdir.entries[1].cookie, 12);
	ck_assert_uint_eq(r->u.readdir.entries[1].attrs.fileid, 2);
	ck_assert_mem_eq(r->u.readdir.cookieverf, "ABCDEFGH", 8);
	ck_assert_mem_eq(&nfs42_res(c, 9)->u.stateid, &SID2, sizeof(SID2));
	r = nfs42_res(c, 10);
	ck_assert_uint_eq(r->u.write.count, 4);
	ck_assert_uint_eq(r->u.write.committed, FILE_SYNC4);
	ck_assert_mem_eq(nfs42_res(c, 11)->u.commit.verf, "ABCDEFGH", 8);
	ck_assert(nfs42_bm_isset(&nfs42_res(c, 12)->u.create.attrset, 33));
	ck_assert_uint_eq(nfs42_res(c, 13)->u.cinfo.after, 6);
	ck_assert_uint_eq(nfs42_res(c, 14)->u.rename.target.after, 10);
	ck_assert_uint_eq(nfs42_res(c, 15)->u.cinfo.before, 11);
	ck_assert_str_eq(nfs42_res(c, 16)->u.readlink.link, "/some/target");
	ck_assert(nfs42_bm_isset(&nfs42_res(c, 17)->u.setattr, FATTR4_SIZE));
	ck_assert_mem_eq(&nfs42_res(c, 20)->u.lock.stateid, &SID, 16);
	ck_assert_mem_eq(&nfs42_res(c, 22)->u.stateid, &SID2, 16);
	ck_assert_uint_eq(nfs42_res(c, 23)->u.seek.offset, 8192);
	r = nfs42_res(c, 26);
	ck_assert(r->u.read_plus.eof);
	ck_assert_uint_eq(r->u.read_plus.n, 2);
	ck_assert_mem_eq(r->u.read_plus.segs[0].data, "xyz", 3);
	ck_assert_uint_eq(r->u.read_plus.segs[1].type, NFS4_CONTENT_HOLE);
	ck_assert_uint_eq(r->u.read_plus.segs[1].length, 1 << 20);
	r = nfs42_res(c, 27);
	ck_assert(r->u.copy.has_callback_id);
	ck_assert_uint_eq(r->u.copy.count, 12345);
	ck_assert(r->u.copy.consecutive);
	ck_assert(!r->u.copy.synchronous);
	r = nfs42_res(c, 28);
	ck_assert_uint_eq(r->u.offload_status.count, 777);
	ck_assert(r->u.offload_status.has_complete);
	ck_assert_uint_eq(nfs42_res(c, 29)->op, OP_CLONE);
	r = nfs42_res(c, 30);
	ck_assert(r->u.layoutget.return_on_close);
	ck_assert_mem_eq(&r->u.layoutget.stateid, &SID2, 16);
	ck_assert_uint_eq(r->u.layoutget.n, 1);
	ck_assert_uint_eq(r->u.layoutget.length, UINT64_MAX);
	ck_assert_uint_eq(r->u.layoutget.iomode, LAYOUTIOMODE4_RW);
	ck_assert_uint_eq(r->u.layoutget.body_len, 10);
	ck_assert_mem_eq(r->u.layoutget.body, "layoutbody", 10);
	r = nfs42_res(c, 31);
	ck_assert_uint_eq(r->u.getdeviceinfo.body_len, 3);
	ck_assert_mem_eq(r->u.getdeviceinfo.body, "dev", 3);
	r = nfs42_res(c, 32);
	ck_assert_uint_eq(r->u.getdevicelist.cookie, 2);
	ck_assert_uint_eq(r->u.getdevicelist.n, 2);
	ck_assert_mem_eq(r->u.getdevicelist.ids[1], "device-id-000002", 16);
	ck_assert(r->u.getdevicelist.eof);
	r = nfs42_res(c, 33);
	ck_assert(r->u.layoutcommit.size_changed);
	ck_assert_uint_eq(r->u.layoutcommit.size, 65537);
	r = nfs42_res(c, 34);
	ck_assert(r->u.layoutreturn.present);
	ck_assert_mem_eq(&r->u.layoutreturn.stateid, &SID, 16);
	ck_assert_ptr_null(nfs42_res(c, 35));
	ck_assert_int_eq(nfs42_compound_failed_op(c), -1);
	nfs42_xdr_free(&x);
	nfs42_compound_free(c);
}
END_TEST

/* An nfsv4_1_file_layout4 and a file_layout_ds_addr4 as a server sends
 * them, decoded, and offsets located on them (RFC 8881 13.3, 13.4). */
static void put_layout_body(struct nfs42_xdr *x, uint32_t util, uint32_t first,
			    uint64_t pattern, uint32_t nfh)
{
	uint32_t i;

	nfs42_xdr_put_fixed(x, "0123456789abcdef", 16);
	nfs42_xdr_put_u32(x, util);
	nfs42_xdr_put_u32(x, first);
	nfs42_xdr_put_u64(x, pattern);
	nfs42_xdr_put_u32(x, nfh);
	for (i = 0; i < nfh; i++)
		nfs42_xdr_put_opaque(x, "dsfh", 4);
}

static void put_device_body(struct nfs42_xdr *x)
{
	/* 3 stripes on data servers 2, 0, 1; server 0 with two paths */
	nfs42_xdr_put_u32(x, 3);
	nfs42_xdr_put_u32(x, 2);
	nfs42_xdr_put_u32(x, 0);
	nfs42_xdr_put_u32(x, 1);
	nfs42_xdr_put_u32(x, 3);
	nfs42_xdr_put_u32(x, 2);
	nfs42_xdr_put_string(x, "tcp");
	nfs42_xdr_put_string(x, "10.0.0.1.8.1");
	nfs42_xdr_put_string(x, "tcp6");
	nfs42_xdr_put_string(x, "fd00::1.8.1");
	nfs42_xdr_put_u32(x, 1);
	nfs42_xdr_put_string(x, "tcp");
	nfs42_xdr_put_string(x, "10.0.0.2.8.1");
	nfs42_xdr_put_u32(x, 1);
	nfs42_xdr_put_string(x, "tcp");
	nfs42_xdr_put_string(x, "10.0.0.3.8.1");
}

START_TEST(files_layout_decode_and_locate)
{
	static struct nfs42_layout lo;
	struct nfs42_stripe_loc loc;
	struct nfs42_xdr x;
	char host[64];
	uint16_t port;
	size_t n;

	nfs42_xdr_enc_init(&x);
	put_layout_body(&x, 65536 | NFL4_UFLG_COMMIT_THRU_MDS, 1, 0, 1);
	ck_assert_int_eq(nfs42_files_layout_decode(x.buf, x.len, &lo), 0);
	ck_assert_uint_eq(lo.stripe_unit, 65536);
	ck_assert(!lo.dense);
	ck_assert(lo.commit_through_mds);
	ck_assert_uint_eq(lo.first_stripe_index, 1);
	ck_assert_uint_eq(lo.nfh, 1);
	/* every shorter body is refused, and one with bytes left over */
	for (n = 0; n < x.len; n++)
		ck_assert_int_eq(nfs42_files_layout_decode(x.buf, n, &lo),
				 -EBADMSG);
	nfs42_xdr_put_u32(&x, 0);
	ck_assert_int_eq(nfs42_files_layout_decode(x.buf, x.len, &lo),
			 -EBADMSG);
	nfs42_xdr_free(&x);

	nfs42_xdr_enc_init(&x);
	put_layout_body(&x, 65536, 1, 0, 1);
	ck_assert_int_eq(nfs42_files_layout_decode(x.buf, x.len, &lo), 0);
	nfs42_xdr_free(&x);
	nfs42_xdr_enc_init(&x);
	put_device_body(&x);
	ck_assert_int_eq(nfs42_files_device_decode(x.buf, x.len, &lo), 0);
	ck_assert_uint_eq(lo.nstripes, 3);
	ck_assert_uint_eq(lo.nds, 3);
	ck_assert_uint_eq(lo.ds[0].naddr, 2);
	ck_assert_str_eq(lo.ds[0].addr[1].netid, "tcp6");
	for (n = 0; n < x.len; n++)
		ck_assert_int_eq(nfs42_files_device_decode(x.buf, n, &lo),
				 -EBADMSG);
	nfs42_xdr_free(&x);

	/* unit k goes to stripe (k + first) % 3, sparse packing keeps the
	 * offset */
	nfs42_layout_locate(&lo, 0, &loc);
	ck_assert_uint_eq(loc.stripe, 1);
	ck_assert_uint_eq(loc.ds, 0);
	ck_assert_uint_eq(loc.ds_offset, 0);
	nfs42_layout_locate(&lo, 65536 * 4 + 5, &loc);
	ck_assert_uint_eq(loc.stripe, 2);
	ck_assert_uint_eq(loc.ds, 1);
	ck_assert_uint_eq(loc.unit_start, 65536 * 4);
	ck_assert_uint_eq(loc.unit_end, 65536 * 5);
	ck_assert_uint_eq(loc.ds_offset, 65536 * 4 + 5);
	/* dense packing: the data server holds its units back to back */
	lo.dense = true;
	nfs42_layout_locate(&lo, 65536 * 4 + 5, &loc);
	ck_assert_uint_eq(loc.ds_offset, 65536 + 5);

	ck_assert_int_eq(nfs42_uaddr_split("10.0.0.1.8.1", host, sizeof(host),
					   &port),
			 0);
	ck_assert_str_eq(host, "10.0.0.1");
	ck_assert_uint_eq(port, 2049);
	ck_assert_int_eq(
		nfs42_uaddr_split("fd00::1.8.1", host, sizeof(host), &port), 0);
	ck_assert_str_eq(host, "fd00::1");
	ck_assert_int_eq(nfs42_uaddr_split("10.0.0.1.0.0", host, sizeof(host),
					   &port),
			 -EINVAL);
	ck_assert_int_eq(nfs42_uaddr_split("10.0.0.1.256.1", host, sizeof(host),
					   &port),
			 -EINVAL);
	ck_assert_int_eq(nfs42_uaddr_split("nodots", host, sizeof(host), &port),
			 -EINVAL);
}
END_TEST

START_TEST(reply_truncated_every_length)
{
	struct nfs42_compound *c = nfs42_compound_new(NULL);
	struct nfs42_xdr x;
	size_t n;

	build_all_reply(&x);
	for (n = 0; n < x.len; n++)
		ck_assert_msg(nfs42_compound_decode(c, x.buf, n) == -EBADMSG,
			      "prefix %zu accepted", n);
	nfs42_xdr_free(&x);
	nfs42_compound_free(c);
}
END_TEST

START_TEST(reply_corrupted_never_crashes)
{
	struct nfs42_compound *c = nfs42_compound_new(NULL);
	struct nfs42_xdr x;
	uint8_t *copy;
	unsigned int seed = 1, i, k;

	build_all_reply(&x);
	copy = malloc(x.len);
	for (i = 0; i < 3000; i++) {
		memcpy(copy, x.buf, x.len);
		for (k = 0; k < 1 + i % 4; k++)
			copy[rand_r(&seed) % x.len] = rand_r(&seed);
		nfs42_compound_decode(c, copy, x.len);
		/* whatever was decoded must be self-consistent */
		ck_assert_uint_le(nfs42_compound_nres(c), N_ALL_RES);
	}
	free(copy);
	nfs42_xdr_free(&x);
	nfs42_compound_free(c);
}
END_TEST

START_TEST(reply_errors_with_bodies)
{
	struct nfs42_compound *c = nfs42_compound_new(NULL);
	const struct nfs42_res *r;
	struct nfs42_xdr x;

	/* SETATTR carries attrsset on error; LOCK DENIED carries the
	 * conflicting lock */
	reply_begin(&x, NFS4ERR_DENIED, 3);
	res_head(&x, OP_SETATTR, NFS4ERR_PERM);
	nfs42_xdr_put_u32(&x, 0);
	res_head(&x, OP_PUTFH, 0);
	res_head(&x, OP_LOCK, NFS4ERR_DENIED);
	nfs42_xdr_put_u64(&x, 100);
	nfs42_xdr_put_u64(&x, 200);
	nfs42_xdr_put_u32(&x, WRITE_LT);
	nfs42_xdr_put_u64(&x, 0xabc);
	nfs42_xdr_put_opaque(&x, "owner", 5);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len),
			 NFS4ERR_DENIED);
	ck_assert_int_eq(nfs42_res_status(c, 0), NFS4ERR_PERM);
	r = nfs42_res(c, 2);
	ck_assert_uint_eq(r->u.lock.denied->offset, 100);
	ck_assert_uint_eq(r->u.lock.denied->clientid, 0xabc);
	ck_assert_uint_eq(r->u.lock.denied->owner_len, 5);
	ck_assert_int_eq(nfs42_compound_failed_op(c), 2);
	nfs42_xdr_free(&x);

	/* COPY with NFS4ERR_OFFLOAD_NO_REQS carries cr_requirements */
	reply_begin(&x, NFS4ERR_OFFLOAD_NO_REQS, 1);
	res_head(&x, OP_COPY, NFS4ERR_OFFLOAD_NO_REQS);
	nfs42_xdr_put_bool(&x, true);
	nfs42_xdr_put_bool(&x, true);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len),
			 NFS4ERR_OFFLOAD_NO_REQS);
	ck_assert(nfs42_res(c, 0)->u.copy.synchronous);
	nfs42_xdr_free(&x);

	/* an error stops the compound: status must match the last op */
	reply_begin(&x, NFS4ERR_NOENT, 2);
	res_head(&x, OP_PUTROOTFH, 0);
	res_head(&x, OP_LOOKUP, NFS4ERR_NOENT);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), NFS4ERR_NOENT);
	ck_assert_int_eq(nfs42_res_status(c, 1), NFS4ERR_NOENT);
	ck_assert_int_eq(nfs42_res_status(c, 2), -1);
	nfs42_xdr_free(&x);

	reply_begin(&x, NFS4ERR_IO, 1);
	res_head(&x, OP_PUTROOTFH, 0);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), -EBADMSG);
	nfs42_xdr_free(&x);
	nfs42_compound_free(c);
}
END_TEST

START_TEST(reply_unknown_op_kept_raw)
{
	struct nfs42_compound *c = nfs42_compound_new(NULL);
	const struct nfs42_res *r;
	struct nfs42_xdr x;

	reply_begin(&x, NFS4_OK, 2);
	res_head(&x, OP_PUTROOTFH, 0);
	/* (GETXATTR was the example until the client decoded it) */
	res_head(&x, OP_WRITE_SAME, 0);
	nfs42_xdr_put_opaque(&x, "value", 5);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), 0);
	r = nfs42_res(c, 1);
	ck_assert_uint_eq(r->op, OP_WRITE_SAME);
	ck_assert_uint_eq(r->u.raw.len, 12);
	nfs42_xdr_free(&x);

	/* ILLEGAL has no body */
	reply_begin(&x, NFS4ERR_OP_ILLEGAL, 1);
	res_head(&x, OP_ILLEGAL, NFS4ERR_OP_ILLEGAL);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len),
			 NFS4ERR_OP_ILLEGAL);
	nfs42_xdr_free(&x);
	nfs42_compound_free(c);
}
END_TEST

START_TEST(reply_session_ops)
{
	struct nfs42_compound *c = nfs42_compound_new(NULL);
	const struct nfs42_res *r;
	struct nfs42_xdr x;
	int i;

	reply_begin(&x, NFS4_OK, 2);
	res_head(&x, OP_EXCHANGE_ID, 0);
	nfs42_xdr_put_u64(&x, 0x1234);
	nfs42_xdr_put_u32(&x, 1);
	nfs42_xdr_put_u32(&x, 0x10000);
	nfs42_xdr_put_u32(&x, 0); /* SP4_NONE */
	nfs42_xdr_put_u64(&x, 5);
	nfs42_xdr_put_string(&x, "major");
	nfs42_xdr_put_string(&x, "scope");
	nfs42_xdr_put_u32(&x, 1);
	nfs42_xdr_put_string(&x, "dom");
	nfs42_xdr_put_string(&x, "name");
	nfs42_xdr_put_u64(&x, 0);
	nfs42_xdr_put_u32(&x, 0);
	res_head(&x, OP_CREATE_SESSION, 0);
	nfs42_xdr_put_fixed(&x, "SESSIONIDSESSION", 16);
	nfs42_xdr_put_u32(&x, 1);
	nfs42_xdr_put_u32(&x, 2);
	for (i = 0; i < 2; i++) {
		nfs42_xdr_put_u32(&x, 0);
		nfs42_xdr_put_u32(&x, 1000 + i);
		nfs42_xdr_put_u32(&x, 2000 + i);
		nfs42_xdr_put_u32(&x, 3000);
		nfs42_xdr_put_u32(&x, 16);
		nfs42_xdr_put_u32(&x, 8 + i);
		nfs42_xdr_put_u32(&x, 0);
	}
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), 0);
	r = nfs42_res(c, 0);
	ck_assert_uint_eq(r->u.exchange_id.clientid, 0x1234);
	ck_assert_str_eq(r->u.exchange_id.major_id, "major");
	ck_assert_str_eq(r->u.exchange_id.scope, "scope");
	r = nfs42_res(c, 1);
	ck_assert_mem_eq(r->u.create_session.sessionid, "SESSIONIDSESSION", 16);
	ck_assert_uint_eq(r->u.create_session.fore_maxreq, 1000);
	ck_assert_uint_eq(r->u.create_session.fore_maxreqs, 8);
	ck_assert_uint_eq(r->u.create_session.back_maxresp, 2001);
	ck_assert_uint_eq(r->u.create_session.back_maxreqs, 9);
	nfs42_xdr_free(&x);
	nfs42_compound_free(c);
}
END_TEST

START_TEST(reply_hostile_counts)
{
	struct nfs42_compound *c = nfs42_compound_new(NULL);
	struct nfs42_xdr x;

	/* huge result count */
	reply_begin(&x, NFS4_OK, 0x7fffffff);
	res_head(&x, OP_PUTROOTFH, 0);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), -EBADMSG);
	nfs42_xdr_free(&x);
	/* READ with a data length beyond the buffer */
	reply_begin(&x, NFS4_OK, 1);
	res_head(&x, OP_READ, 0);
	nfs42_xdr_put_bool(&x, true);
	nfs42_xdr_put_u32(&x, 0xfffffff0);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), -EBADMSG);
	nfs42_xdr_free(&x);
	/* READ_PLUS with a huge segment count */
	reply_begin(&x, NFS4_OK, 1);
	res_head(&x, OP_READ_PLUS, 0);
	nfs42_xdr_put_bool(&x, true);
	nfs42_xdr_put_u32(&x, 0x40000000);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), -EBADMSG);
	nfs42_xdr_free(&x);
	/* GETFH longer than NFS4_FHSIZE */
	reply_begin(&x, NFS4_OK, 1);
	res_head(&x, OP_GETFH, 0);
	nfs42_xdr_put_u32(&x, 129);
	for (int i = 0; i < 33; i++)
		nfs42_xdr_put_u32(&x, 0);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), -EBADMSG);
	nfs42_xdr_free(&x);
	nfs42_compound_free(c);
}
END_TEST

/* READ_PLUS of 41 segments: a hole at the start, data and holes taking
 * turns (data i is i + 1 bytes of 'a' + i), a hole at the end; eof. */
#define RP_SEGS 41
static void build_read_plus_reply(struct nfs42_xdr *x, uint32_t bad_type)
{
	uint8_t data[64];
	uint64_t off = 0;
	uint32_t i;

	reply_begin(x, NFS4_OK, 1);
	res_head(x, OP_READ_PLUS, 0);
	nfs42_xdr_put_bool(x, true);
	nfs42_xdr_put_u32(x, RP_SEGS);
	for (i = 0; i < RP_SEGS; i++) {
		if (i % 2 == 0) {
			nfs42_xdr_put_u32(x, i == 20 && bad_type ?
						     bad_type :
						     NFS4_CONTENT_HOLE);
			nfs42_xdr_put_u64(x, off);
			nfs42_xdr_put_u64(x, 4096);
			off += 4096;
			continue;
		}
		memset(data, 'a' + i, i + 1);
		nfs42_xdr_put_u32(x, NFS4_CONTENT_DATA);
		nfs42_xdr_put_u64(x, off);
		nfs42_xdr_put_opaque(x, data, i + 1);
		off += i + 1;
	}
}

START_TEST(reply_read_plus_many_segments)
{
	struct nfs42_compound *c = nfs42_compound_new(NULL);
	const struct nfs42_res *r;
	const struct nfs42_rp_seg *s;
	struct nfs42_xdr x;
	uint64_t off = 0;
	uint32_t i;
	size_t n;

	build_read_plus_reply(&x, 0);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), NFS4_OK);
	r = nfs42_res(c, 0);
	ck_assert(r->u.read_plus.eof);
	ck_assert_uint_eq(r->u.read_plus.n, RP_SEGS);
	for (i = 0; i < RP_SEGS; i++) {
		s = &r->u.read_plus.segs[i];
		ck_assert_uint_eq(s->offset, off);
		if (i % 2 == 0) {
			ck_assert_uint_eq(s->type, NFS4_CONTENT_HOLE);
			ck_assert_uint_eq(s->length, 4096);
		} else {
			ck_assert_uint_eq(s->type, NFS4_CONTENT_DATA);
			ck_assert_uint_eq(s->length, i + 1);
			ck_assert_uint_eq(s->data[0], 'a' + i);
			ck_assert_uint_eq(s->data[i], 'a' + i);
		}
		off += s->length;
	}
	/* every truncation is refused */
	for (n = 0; n < x.len; n++)
		ck_assert_msg(nfs42_compound_decode(c, x.buf, n) == -EBADMSG,
			      "prefix %zu accepted", n);
	nfs42_xdr_free(&x);
	/* an unknown content type in the middle */
	build_read_plus_reply(&x, 7);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), -EBADMSG);
	nfs42_xdr_free(&x);
	nfs42_compound_free(c);
}
END_TEST

/* RFC 8276: the four xattr ops' arguments, byte for byte */
START_TEST(args_xattr_ops)
{
	struct nfs42_compound *c = new_c();
	static const uint8_t val[5] = { 'a', 0, 'b', 0xff, 'c' };
	struct nfs42_xdr e, d;

	ck_assert_int_eq(nfs42_op_getxattr(c, "color"), 0);
	nfs42_op_setxattr(c, SETXATTR4_REPLACE, "bin", val, sizeof(val));
	nfs42_op_listxattrs(c, 0x100000002ULL, 40);
	nfs42_op_removexattr(c, "k");
	ck_assert_uint_eq(nfs42_compound_opnum(c, 2), OP_LISTXATTRS);
	args_of(c, &e, &d, 4);
	EXPECT_U32(&d, 72); /* GETXATTR4args: xattrkey4 */
	EXPECT_STR(&d, "color");
	EXPECT_U32(&d, 73); /* SETXATTR4args: option, key, value */
	EXPECT_U32(&d, 2);
	EXPECT_STR(&d, "bin");
	EXPECT_U32(&d, 5);
	EXPECT_FIXED(&d, "a\0b\377c\0\0\0", 8); /* padded */
	EXPECT_U32(&d, 74); /* LISTXATTRS4args: cookie, maxcount */
	EXPECT_U64(&d, 0x100000002ULL);
	EXPECT_U32(&d, 40);
	EXPECT_U32(&d, 75); /* REMOVEXATTR4args: xattrkey4 */
	EXPECT_STR(&d, "k");
	EXPECT_END(&d);
	nfs42_xdr_free(&e);
	nfs42_compound_free(c);
}
END_TEST

/* GETXATTR, SETXATTR, LISTXATTRS, REMOVEXATTR results */
static void build_xattr_reply(struct nfs42_xdr *x, uint32_t nnames)
{
	static const char *const names[] = { "a", "bcde", "fghij" };
	uint32_t i;

	reply_begin(x, NFS4_OK, 4);
	res_head(x, OP_GETXATTR, 0);
	nfs42_xdr_put_opaque(x, "v\0\377", 3);
	res_head(x, OP_SETXATTR, 0);
	put_cinfo(x, 10, 11);
	res_head(x, OP_LISTXATTRS, 0);
	nfs42_xdr_put_u64(x, 3);
	nfs42_xdr_put_u32(x, nnames);
	for (i = 0; i < 3; i++)
		nfs42_xdr_put_string(x, names[i]);
	nfs42_xdr_put_bool(x, true);
	res_head(x, OP_REMOVEXATTR, 0);
	put_cinfo(x, 11, 12);
}

START_TEST(reply_xattr_ops)
{
	struct nfs42_compound *c = nfs42_compound_new(NULL);
	const struct nfs42_res *r;
	struct nfs42_xdr x;
	size_t n;

	build_xattr_reply(&x, 3);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), NFS4_OK);
	r = nfs42_res(c, 0);
	ck_assert_uint_eq(r->u.getxattr.len, 3);
	ck_assert_mem_eq(r->u.getxattr.data, "v\0\377", 3);
	r = nfs42_res(c, 1);
	ck_assert_uint_eq(r->u.xattr_cinfo.before, 10);
	ck_assert_uint_eq(r->u.xattr_cinfo.after, 11);
	r = nfs42_res(c, 2);
	ck_assert_uint_eq(r->u.listxattrs.cookie, 3);
	ck_assert_uint_eq(r->u.listxattrs.n, 3);
	ck_assert_str_eq(r->u.listxattrs.names[0], "a");
	ck_assert_str_eq(r->u.listxattrs.names[2], "fghij");
	ck_assert(r->u.listxattrs.eof);
	r = nfs42_res(c, 3);
	ck_assert_uint_eq(r->u.xattr_cinfo.after, 12);
	for (n = 0; n < x.len; n++)
		ck_assert_msg(nfs42_compound_decode(c, x.buf, n) == -EBADMSG,
			      "prefix %zu accepted", n);
	nfs42_xdr_free(&x);
	/* more names than the reply could hold */
	build_xattr_reply(&x, 0x40000000);
	ck_assert_int_eq(nfs42_compound_decode(c, x.buf, x.len), -EBADMSG);
	nfs42_xdr_free(&x);
	nfs42_compound_free(c);
}
END_TEST

/* CB_OFFLOAD4args: fh, stateid, offload_info4 (OK with a write_response4
 * whose wr_callback_id has n ids, or an error with bytes copied). */
static void build_cb_offload(struct nfs42_xdr *x, uint32_t status,
			     uint32_t nids)
{
	static const uint8_t fh[5] = { 1, 2, 3, 4, 5 };
	uint32_t i;

	nfs42_xdr_enc_init(x);
	nfs42_xdr_put_opaque(x, fh, sizeof(fh));
	nfs42_xdr_put_u32(x, 7);
	nfs42_xdr_put_fixed(x, "copy-stateid", 12);
	nfs42_xdr_put_u32(x, status);
	if (status != NFS4_OK) {
		nfs42_xdr_put_u64(x, 12345);
		return;
	}
	nfs42_xdr_put_u32(x, nids);
	for (i = 0; i < nids; i++) {
		nfs42_xdr_put_u32(x, 1);
		nfs42_xdr_put_fixed(x, "other-id-xyz", 12);
	}
	nfs42_xdr_put_u64(x, 1ULL << 33);
	nfs42_xdr_put_u32(x, FILE_SYNC4);
	nfs42_xdr_put_fixed(x, "verf1234", 8);
}

static int decode_cb_offload(const struct nfs42_xdr *e, size_t len,
			     struct nfs42_cb_offload *o)
{
	struct nfs42_xdr d;

	nfs42_xdr_dec_init(&d, e->buf, len);
	return nfs42_cb_offload_decode(&d, o);
}

START_TEST(cb_offload_decode)
{
	struct nfs42_cb_offload o;
	struct nfs42_xdr e;
	size_t len;

	build_cb_offload(&e, NFS4_OK, 0);
	ck_assert_int_eq(decode_cb_offload(&e, e.len, &o), 0);
	ck_assert_int_eq(o.fh.len, 5);
	ck_assert_int_eq(o.fh.data[4], 5);
	ck_assert_int_eq(o.stateid.seqid, 7);
	ck_assert(!memcmp(o.stateid.other, "copy-stateid", 12));
	ck_assert_int_eq(o.status, NFS4_OK);
	ck_assert_uint_eq(o.count, 1ULL << 33);
	ck_assert_int_eq(o.committed, FILE_SYNC4);
	ck_assert(!memcmp(o.verf, "verf1234", 8));
	/* cut anywhere: an error, never a crash */
	for (len = 0; len < e.len; len++)
		ck_assert_int_eq(decode_cb_offload(&e, len, &o), -EBADMSG);
	nfs42_xdr_free(&e);

	/* a callback id present is skipped; two are not XDR */
	build_cb_offload(&e, NFS4_OK, 1);
	ck_assert_int_eq(decode_cb_offload(&e, e.len, &o), 0);
	ck_assert_uint_eq(o.count, 1ULL << 33);
	nfs42_xdr_free(&e);
	build_cb_offload(&e, NFS4_OK, 2);
	ck_assert_int_eq(decode_cb_offload(&e, e.len, &o), -EBADMSG);
	nfs42_xdr_free(&e);

	/* failure: the bytes copied */
	build_cb_offload(&e, NFS4ERR_IO, 0);
	ck_assert_int_eq(decode_cb_offload(&e, e.len, &o), 0);
	ck_assert_int_eq(o.status, NFS4ERR_IO);
	ck_assert_uint_eq(o.count, 12345);
	for (len = 0; len < e.len; len++)
		ck_assert_int_eq(decode_cb_offload(&e, len, &o), -EBADMSG);
	nfs42_xdr_free(&e);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, args_simple_ops);
	tcase_add_test(tc, args_readdir);
	tcase_add_test(tc, args_open_variants);
	tcase_add_test(tc, args_open_claim_previous);
	tcase_add_test(tc, args_io_ops);
	tcase_add_test(tc, args_create_setattr_lock);
	tcase_add_test(tc, args_session_ops);
	tcase_add_test(tc, args_create_session_sec);
	tcase_add_test(tc, args_raw_op);
	tcase_add_test(tc, reply_all_ops);
	tcase_add_test(tc, files_layout_decode_and_locate);
	tcase_add_test(tc, reply_truncated_every_length);
	tcase_add_test(tc, reply_corrupted_never_crashes);
	tcase_add_test(tc, reply_errors_with_bodies);
	tcase_add_test(tc, reply_unknown_op_kept_raw);
	tcase_add_test(tc, reply_session_ops);
	tcase_add_test(tc, reply_hostile_counts);
	tcase_add_test(tc, reply_read_plus_many_segments);
	tcase_add_test(tc, cb_offload_decode);
	tcase_add_test(tc, args_xattr_ops);
	tcase_add_test(tc, reply_xattr_ops);
	return run_tcase("nfs42_ops", tc, CK_FORK_GETENV);
}
