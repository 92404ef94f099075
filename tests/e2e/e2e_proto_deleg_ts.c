/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Delegated timestamps (RFC 9754 section 5, issue #30 item 1), export
 * Delegations = RW: an NFSv4.2 OPEN with WANT_DELEG_TIMESTAMPS is granted
 * OPEN_DELEGATE_READ_ATTRS_DELEG (4) or OPEN_DELEGATE_WRITE_ATTRS_DELEG
 * (5), a delegation whose holder owns the file's atime and mtime.
 */
#include <stdarg.h>

#include "e2e_deleg_util.h"

static const char *local_file(const char *what, const char *data)
{
	return e2e_deleg_local_file("delegts", what, data);
}

static struct nfs42_client *client_minor(uint32_t minorversion)
{
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.minorversion = minorversion;
	o.keep_recalls = true;
	ck_nfs_ok(cl, nfs42_client_create(&o, &cl));
	return cl;
}

/* OPEN name (no create) with access; the delegation type granted. */
static uint32_t open_type(struct nfs42_client *cl, const char *name,
			  uint32_t access, struct nfs42_file *f)
{
	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), access, NFS42_NOCREATE, 0,
				 false, f));
	return f->deleg_type;
}

static void give_back(struct nfs42_client *cl, struct nfs42_file *f)
{
	ck_nfs_ok(cl, nfs42_close(f));
	if (f->deleg_type != OPEN_DELEGATE_NONE &&
	    f->deleg_type != OPEN_DELEGATE_NONE_EXT)
		ck_nfs_ok(cl, nfs42_delegreturn(cl, &f->fh, &f->deleg_stateid));
}

/*
 * The grant: WANT_DELEG_TIMESTAMPS over NFSv4.2 turns a write delegation
 * into WRITE_ATTRS_DELEG, a read one into READ_ATTRS_DELEG (as knfsd);
 * the delegation stateid works as a write delegation's.  Without the
 * want, or over NFSv4.1 (84 and 85 are NFSv4.2 attributes), the types of
 * RFC 8881.
 */
START_TEST(t_granted_with_timestamps)
{
	struct nfs42_client *a = client_minor(2);
	struct nfs42_client *v41 = client_minor(1);
	const char *wname = local_file("w", "0123456789");
	const char *rname = local_file("r", "0123456789");
	const char *pname = local_file("plain", "0123456789");
	const char *oname = local_file("v41", "0123456789");
	struct nfs42_file f;
	char got[16] = { 0 };

	ck_assert_uint_eq(open_type(a, wname,
				    OPEN4_SHARE_ACCESS_BOTH |
					    OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS,
				    &f),
			  OPEN_DELEGATE_WRITE_ATTRS_DELEG);
	ck_nfs_ok(a, nfs42_pwrite(&f, "abc", 3, 0, FILE_SYNC4));
	give_back(a, &f);
	e2e_backing_read(wname, got, sizeof(got));
	ck_assert_str_eq(got, "abc3456789");

	ck_assert_uint_eq(open_type(a, rname,
				    OPEN4_SHARE_ACCESS_READ |
					    OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS,
				    &f),
			  OPEN_DELEGATE_READ_ATTRS_DELEG);
	give_back(a, &f);

	ck_assert_uint_eq(open_type(a, pname, OPEN4_SHARE_ACCESS_BOTH, &f),
			  OPEN_DELEGATE_WRITE);
	give_back(a, &f);

	ck_assert_uint_eq(open_type(v41, oname,
				    OPEN4_SHARE_ACCESS_BOTH |
					    OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS,
				    &f),
			  OPEN_DELEGATE_WRITE);
	give_back(v41, &f);
	ck_assert_uint_eq(nfs42_recalls_received(a), 0);
	nfs42_client_free(v41);
	nfs42_client_free(a);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("e2e_proto_deleg_ts");
	TCase *tc = tcase_create("deleg_ts");

	(void)argc;
	(void)argv;
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_granted_with_timestamps);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
