/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Review regressions, handles: FSAL_SPARSE handle bytes that are framed by
 * a valid Ganesha wrapper but are themselves malformed must be refused with
 * NFS4ERR_BADHANDLE (RFC 8881 15.1.2.1), never resolved or turned into
 * NFS4ERR_INVAL.
 *
 * An NFSv4 handle from Ganesha is its 5-byte wrapper (version, flags,
 * export id, fs_len) followed by fs_len FSAL bytes; FSAL_SPARSE's bytes are
 * [version][n][type x4][fs identity x8][n kernel bytes][tag x8]
 * (sparse_fh.h).  A handle whose tag is wrong is STALE before the kernel
 * sees it, so the cases that reach the kernel carry the export's real tag.
 */
#include "e2e_fsal_handle_util.h"

#define WRAP_LEN E2E_WRAP_LEN

/* The export root's handle, checked to have the expected framing. */
static struct nfs42_fh root_fh(struct nfs42_client *cl)
{
	struct nfs42_fh fh = e2e_fh(cl, "");

	ck_assert_uint_eq(fh.data[WRAP_LEN - 1], fh.len - WRAP_LEN);
	ck_assert_uint_eq(fh.data[WRAP_LEN + 1] + SPARSE_FH_HDR_LEN +
				  SPARSE_FH_TAG_LEN,
			  fh.len - WRAP_LEN);
	return fh;
}

/* Replace the FSAL part of fh by len bytes. */
static void set_fsal_part(struct nfs42_fh *fh, const uint8_t *b, size_t len)
{
	memcpy(fh->data + WRAP_LEN, b, len);
	fh->data[WRAP_LEN - 1] = (uint8_t)len;
	fh->len = WRAP_LEN + len;
}

static int getattr_rc(struct nfs42_client *cl, const struct nfs42_fh *fh)
{
	struct nfs42_attrs a;

	return e2e_getattr_rc(cl, fh, NULL, &a);
}

/* Copy the FSAL part of fh to b (64 bytes); returns its length. */
static size_t get_fsal_part(const struct nfs42_fh *fh, uint8_t *b)
{
	size_t len = fh->len - WRAP_LEN;

	memcpy(b, fh->data + WRAP_LEN, len);
	return len;
}

/* Make the FSAL part of fh the len bytes b: GETATTR must say BADHANDLE. */
static void ck_badhandle(struct nfs42_client *cl, struct nfs42_fh *fh,
			 const uint8_t *b, size_t len, const char *what)
{
	int rc;

	set_fsal_part(fh, b, len);
	rc = getattr_rc(cl, fh);
	ck_assert_msg(rc == NFS4ERR_BADHANDLE,
		      "%s: got %s (%d), want NFS4ERR_BADHANDLE", what,
		      nfs42_strerror(rc), rc);
}

/* A kernel handle of 0 bytes: open_by_handle_at says EINVAL. */
START_TEST(empty_kernel_handle)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = root_fh(cl);
	uint8_t b[64];

	get_fsal_part(&fh, b);
	b[1] = 0;
	ck_badhandle(cl, &fh, b, SPARSE_FH_HDR_LEN + SPARSE_FH_TAG_LEN,
		     "0-byte kernel handle");
	nfs42_client_free(cl);
}
END_TEST

/* A negative kernel handle type: open_by_handle_at says EINVAL. */
START_TEST(bad_kernel_handle_type)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = root_fh(cl);
	uint8_t b[64], key[SPARSE_FH_KEY_BYTES];
	size_t len = get_fsal_part(&fh, b);
	struct sparse_fh s;

	e2e_handle_key(e2e_env("NFS42_BACKING"), key);
	ck_assert(sparse_fh_from_bytes(b, len, &s));
	s.bytes[5] = 0xff; /* type byte 3: sign bit */
	sparse_fh_to_wire(&s, key, b);
	ck_badhandle(cl, &fh, b, len, "negative handle type");
	nfs42_client_free(cl);
}
END_TEST

/* Trailing bytes after the kernel handle: another handle, not an alias. */
START_TEST(trailing_bytes)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = root_fh(cl);
	uint8_t b[64];
	size_t len = get_fsal_part(&fh, b);

	memcpy(b + len, "\x5a\x5a\x5a", 3);
	ck_badhandle(cl, &fh, b, len + 3, "3 trailing bytes");
	nfs42_client_free(cl);
}
END_TEST

/* Longer than any FSAL_SPARSE handle (59 bytes), length byte consistent. */
START_TEST(oversized_handle)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = root_fh(cl);
	uint8_t b[100];

	memset(b, 0x11, sizeof(b));
	b[0] = 1;
	b[1] = sizeof(b) - 6;
	set_fsal_part(&fh, b, sizeof(b));
	ck_nfs_status2(getattr_rc(cl, &fh), NFS4ERR_BADHANDLE, NFS4ERR_STALE);
	/* shorter than the header, and a wrong version */
	ck_badhandle(cl, &fh, b, 3, "3-byte handle");
	b[0] = SPARSE_FH_VERSION + 1;
	b[1] = 10;
	ck_badhandle(cl, &fh, b, SPARSE_FH_HDR_LEN + 10 + SPARSE_FH_TAG_LEN,
		     "a later version");
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_review_handles");
	TCase *tc = tcase_create("handles");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, empty_kernel_handle);
	tcase_add_test(tc, bad_kernel_handle_type);
	tcase_add_test(tc, trailing_bytes);
	tcase_add_test(tc, oversized_handle);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
