/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * COPY, CLONE, OFFLOAD_STATUS, OFFLOAD_CANCEL and COPY_NOTIFY arguments are
 * decoded in their RFC 7863 shapes (patch 0005, issue #8), so that a
 * COMPOUND holding one of them is parsed right to its end.  Ganesha 6.5
 * decoded none of their arguments: it read the next operation number from
 * the middle of them.  Each answers its error (NFS4ERR_NOTSUPP, not
 * implemented yet; COPY and CLONE, which are, NFS4ERR_ISDIR for the
 * directories here, and an inter-server COPY NFS4ERR_NOTSUPP; the offload
 * ops NFS4ERR_BAD_STATEID for a stateid no
 * copy has), with exactly the results before it and its own.  An argument that
 * is cut short is NFS4ERR_BADXDR for the whole request.
 */
#include "e2e_fsal_util.h"

/* [PUTFH root, SAVEFH, PUTFH root, <op>, GETATTR]: the op's status. */
static void ck_error_then_stop(struct nfs42_client *cl,
			       const struct nfs42_fh *root,
			       int (*add)(struct nfs42_compound *c),
			       const char *what, int want)
{
	struct nfs42_bitmap bm = nfs42_bm_stat();
	struct nfs42_compound *c = e2e_cpd2(cl, root, root);
	int rc, idx;

	idx = add(c);
	nfs42_op_getattr(c, &bm);
	rc = nfs42_compound_run(c);
	ck_assert_msg(rc == want, "%s: compound %s (%s)", what,
		      nfs42_strerror(rc), nfs42_client_error(cl));
	/* PUTFH, SAVEFH, PUTFH and the op ran; GETATTR did not */
	ck_assert_uint_eq(nfs42_compound_nres(c), 4);
	ck_assert_int_eq(e2e_op_status(c, idx), want);
	ck_assert_int_eq(e2e_op_status(c, 2), NFS4_OK);
	nfs42_compound_free(c);
}

static void ck_notsupp_then_stop(struct nfs42_client *cl,
				 const struct nfs42_fh *root,
				 int (*add)(struct nfs42_compound *c),
				 const char *what)
{
	ck_error_then_stop(cl, root, add, what, NFS4ERR_NOTSUPP);
}

/* op's arguments as raw bytes (nfs42_op_raw takes the opnum too) */
static int raw_op(struct nfs42_compound *c, uint32_t op, const uint8_t *args,
		  size_t len)
{
	uint8_t buf[256];

	ck_assert_uint_le(len + 4, sizeof(buf));
	buf[0] = op >> 24;
	buf[1] = op >> 16;
	buf[2] = op >> 8;
	buf[3] = op;
	memcpy(buf + 4, args, len);
	return nfs42_op_raw(c, op, buf, len + 4);
}

/*
 * The source stateid reads, to a server that does not decode the
 * operation's arguments, like the next operation: seqid 22 is PUTFH, whose
 * handle length 0xffffffff cannot decode.  Such a server refuses the whole
 * request (GARBAGE_ARGS) instead of answering NOTSUPP for the operation.
 */
static const struct nfs42_stateid sid_a = {
	.seqid = 22,
	.other = { 0xff, 0xff, 0xff, 0xff, 5, 6, 7, 8, 9, 10, 11, 12 }
};
static const struct nfs42_stateid sid_b = { .seqid = 7 };

static int add_copy(struct nfs42_compound *c)
{
	return nfs42_op_copy(c, &sid_a, &sid_b, 4096, 8192, 65536, true, true);
}

static int add_clone(struct nfs42_compound *c)
{
	return nfs42_op_clone(c, &sid_a, &sid_b, 0, 0, 0);
}

static int add_offload_status(struct nfs42_compound *c)
{
	return nfs42_op_offload_status(c, &sid_a);
}

static int add_offload_cancel(struct nfs42_compound *c)
{
	return nfs42_op_offload_cancel(c, &sid_a);
}

/* COPY_NOTIFY { stateid, netloc4 NL4_NETADDR { "tcp", "127.0.0.1.8.1" } } */
static int add_copy_notify(struct nfs42_compound *c)
{
	static const uint8_t args[] = {
		0,   0,	  0,   22,  0xff, 0xff, 0xff, 0xff, 5,	 6,   7,
		8,   9,	  10,  11,  12,	  0,	0,    0,    3, /* NL4_NETADDR */
		0,   0,	  0,   3,   't',  'c',	'p',  0, /* r_netid */
		0,   0,	  0,   13,  '1',  '2',	'7',  '.',  '0', '.', '0',
		'.', '1', '.', '8', '.',  '1',	0,    0,    0, /* r_addr, padded */
	};

	return raw_op(c, OP_COPY_NOTIFY, args, sizeof(args));
}

/* COPY naming two source servers (inter-server form): still decoded. */
static int add_copy_with_sources(struct nfs42_compound *c)
{
	static const uint8_t args[] = {
		0,  0,	0,  22, 0xff, 0xff, 0xff, 0xff, 5,   6,	  7,   8,   9,
		10, 11, 12, /* src */
		0,  0,	0,  7,	0,    0,    0,	  0,	0,   0,	  0,   0,   0,
		0,  0,	0, /* dst */
		0,  0,	0,  0,	0,    0,    0,	  0, /* ca_src_offset */
		0,  0,	0,  0,	0,    0,    0,	  0, /* ca_dst_offset */
		0,  0,	0,  0,	0,    0,    16,	  0, /* ca_count */
		0,  0,	0,  1,	0,    0,    0,	  0, /* consecutive, synchronous */
		0,  0,	0,  2, /* ca_source_server<2> */
		0,  0,	0,  1,	0,    0,    0,	  4,	'h', 'o', 's', 't', /* NL4_NAME */
		0,  0,	0,  2,	0,    0,    0,	  5,	'n', 'f', 's', ':', '/',
		0,  0,	0,
	};

	return raw_op(c, OP_COPY, args, sizeof(args));
}

START_TEST(copy_clone_offload_args_are_decoded)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");

	ck_error_then_stop(cl, &root, add_copy, "COPY", NFS4ERR_ISDIR);
	/* inter-server: NFS4ERR_NOTSUPP before any other check (its source
	 * stateid is the other server's), as knfsd answers
	 */
	ck_error_then_stop(cl, &root, add_copy_with_sources,
			   "COPY with source servers", NFS4ERR_NOTSUPP);
	ck_error_then_stop(cl, &root, add_clone, "CLONE", NFS4ERR_ISDIR);
	/* no copy has that stateid */
	ck_error_then_stop(cl, &root, add_offload_status, "OFFLOAD_STATUS",
			   NFS4ERR_BAD_STATEID);
	ck_error_then_stop(cl, &root, add_offload_cancel, "OFFLOAD_CANCEL",
			   NFS4ERR_BAD_STATEID);
	ck_notsupp_then_stop(cl, &root, add_copy_notify, "COPY_NOTIFY");
	/* and the session still works */
	ck_assert_uint_eq(e2e_getattr(cl, &root, NULL).type, NF4DIR);
	nfs42_client_free(cl);
}
END_TEST

/* A COPY cut short (only its source stateid): the request is refused as
 * undecodable, NFS4ERR_BADXDR or RPC GARBAGE_ARGS (-EINVAL here). */
START_TEST(truncated_copy_is_badxdr)
{
	static const uint8_t args[] = { 0, 0, 0, 1, 1, 2,  3,  4,
					5, 6, 7, 8, 9, 10, 11, 12 };
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_compound *c = e2e_cpd(cl, &root);
	int rc;

	raw_op(c, OP_COPY, args, sizeof(args));
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	ck_assert_msg(rc == NFS4ERR_BADXDR || rc == -EINVAL,
		      "truncated COPY: %s (%d)", nfs42_strerror(rc), rc);
	ck_assert_uint_eq(e2e_getattr(cl, &root, NULL).type, NF4DIR);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_proto_copy_xdr");
	TCase *tc = tcase_create("copy_xdr");

	tcase_add_test(tc, copy_clone_offload_args_are_decoded);
	tcase_add_test(tc, truncated_copy_is_badxdr);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
