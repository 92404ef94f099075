/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Whose stateid is it (issue #27 item 6, findings of fuzz_stateful):
 *
 * - over a session a client uses its own stateids only: another client's
 *   open or delegation stateid is NFS4ERR_BAD_STATEID for READ, WRITE,
 *   SETATTR, LOCK, CLOSE, DELEGRETURN, FREE_STATEID, and
 *   TEST_STATEID says so (RFC 8881 8.2; patch 0099), so that client B
 *   cannot write through client A's write delegation or open;
 * - DELEGRETURN returns a delegation stateid only: an open stateid is
 *   NFS4ERR_BAD_STATEID, and the file's open and delegation stay (RFC 8881
 *   18.6.3; patch 0169): before, B "returned" A's open as a delegation
 *   and was then granted a read delegation next to A's write one.
 *
 * Against Ganesha 6.5 every WRITE, SETATTR, DELEGRETURN below succeeded.
 *
 * "free" (the server's STATE component at FULL_DEBUG): a state is freed
 * after its CLOSE though a WRITE and a READ of 0 bytes used its stateid
 * (issue #32; patch 0211: their early ways out kept the stateid's
 * reference).
 */
#include <errno.h>

#include "e2e_deleg_util.h"

static const char *uniq(const char *what)
{
	return e2e_deleg_uniq("scope", what);
}

/* PUTFH + one op with sid; the op's status. */
static int op_with(struct nfs42_client *cl, const struct nfs42_fh *fh,
		   uint32_t op, const struct nfs42_stateid *sid)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	struct nfs42_lock_owner lo = { 0, "scope-lo", 8 };
	struct nfs42_sattr sa;
	int rc;

	ck_assert_ptr_nonnull(c);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, fh);
	switch (op) {
	case OP_READ:
		nfs42_op_read(c, sid, 0, 4);
		break;
	case OP_WRITE:
		nfs42_op_write(c, sid, 0, FILE_SYNC4, "BBBB", 4);
		break;
	case OP_SETATTR:
		nfs42_sattr_init(&sa);
		nfs42_sattr_size(&sa, 1);
		nfs42_op_setattr(c, sid, &sa);
		break;
	case OP_LOCK:
		nfs42_op_lock_new(c, WRITE_LT, false, 0, 1, 0, sid, 0, &lo);
		break;
	case OP_LOCKU:
		nfs42_op_locku(c, WRITE_LT, 0, sid, 0, 1);
		break;
	case OP_CLOSE:
		nfs42_op_close(c, 0, sid);
		break;
	case OP_DELEGRETURN:
		nfs42_op_delegreturn(c, sid);
		break;
	case OP_FREE_STATEID:
		nfs42_op_free_stateid(c, sid);
		break;
	}
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/* The file's first bytes, read by cl with sid (a local read would break
 * the write delegation's lease). */
static char *nfs_text(struct nfs42_client *cl, const struct nfs42_fh *fh,
		      const struct nfs42_stateid *sid)
{
	static char buf[64];
	struct nfs42_compound *c = nfs42_compound_new(cl);
	const struct nfs42_res *r;
	int idx;

	nfs42_op_putfh(c, fh);
	idx = nfs42_op_read(c, sid, 0, sizeof(buf) - 1);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	r = nfs42_res(c, idx);
	memcpy(buf, r->u.read.data, r->u.read.len);
	buf[r->u.read.len] = 0;
	nfs42_compound_free(c);
	return buf;
}

/* B with A's open and write-delegation stateids: all refused,
 * nothing written, A's state intact. */
START_TEST(t_another_clients_stateids)
{
	struct nfs42_client *a = e2e_client_keeping_recalls();
	struct nfs42_client *b = e2e_client();
	const char *name = uniq("a");
	static const uint32_t ops[] = { OP_READ,	OP_WRITE,
					OP_SETATTR,	OP_LOCK,
					OP_CLOSE,	OP_DELEGRETURN,
					OP_FREE_STATEID };
	struct nfs42_stateid sids[2];
	struct nfs42_file f;
	uint32_t st;
	unsigned int i;

	e2e_put_backing(name, "AAAA", 4);
	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				NFS42_NOCREATE, 0, false, &f));
	ck_assert_uint_eq(f.deleg_type, OPEN_DELEGATE_WRITE);

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		int rc = op_with(b, &f.fh, ops[i], &f.stateid);

		ck_assert_msg(
			rc == NFS4ERR_BAD_STATEID,
			"B's %s with A's open stateid: %s, not NFS4ERR_BAD_STATEID",
			nfs42_opname(ops[i]), nfs42_strerror(rc));
		rc = op_with(b, &f.fh, ops[i], &f.deleg_stateid);
		ck_assert_msg(rc == NFS4ERR_BAD_STATEID,
			      "B's %s with A's delegation stateid: %s",
			      nfs42_opname(ops[i]), nfs42_strerror(rc));
		ck_nfs_ok(a, nfs42_test_stateid(a, &f.deleg_stateid, &st));
		ck_assert_msg(st == NFS4_OK, "A's delegation after B's %s: %s",
			      nfs42_opname(ops[i]), nfs42_strerror((int)st));
	}
	sids[0] = f.stateid;
	sids[1] = f.deleg_stateid;
	for (i = 0; i < 2; i++) {
		ck_nfs_ok(b, nfs42_test_stateid(b, &sids[i], &st));
		ck_assert_uint_eq(st, NFS4ERR_BAD_STATEID);
		/* A's own are valid */
		ck_nfs_ok(a, nfs42_test_stateid(a, &sids[i], &st));
		ck_assert_uint_eq(st, NFS4_OK);
	}
	ck_assert_str_eq(nfs_text(a, &f.fh, &f.deleg_stateid), "AAAA");
	ck_assert_uint_eq(nfs42_recalls_received(a), 0);
	/* and A still uses them */
	ck_assert_int_eq(op_with(a, &f.fh, OP_WRITE, &f.deleg_stateid), 0);
	ck_assert_str_eq(nfs_text(a, &f.fh, &f.stateid), "BBBB");
	nfs42_client_free(b);
	nfs42_client_free(a);
}
END_TEST

/* DELEGRETURN of an open stateid, A's own or B's taking A's: refused,
 * and B's OPEN for reading then recalls A's write delegation instead of
 * getting a read delegation beside it. */
START_TEST(t_delegreturn_open_stateid)
{
	struct nfs42_client *a = e2e_client_keeping_recalls();
	struct nfs42_client *b = e2e_client();
	const char *name = uniq("d");
	struct nfs42_compound *c;
	struct nfs42_open_args oa;
	struct nfs42_file f;
	uint32_t st;
	int rc, idx;

	e2e_put_backing(name, "AAAA", 4);
	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				NFS42_NOCREATE, 0, false, &f));
	ck_assert_uint_eq(f.deleg_type, OPEN_DELEGATE_WRITE);
	rc = op_with(a, &f.fh, OP_DELEGRETURN, &f.stateid);
	ck_assert_msg(rc == NFS4ERR_BAD_STATEID,
		      "A's DELEGRETURN of its own open stateid: %s",
		      nfs42_strerror(rc));
	rc = op_with(b, &f.fh, OP_DELEGRETURN, &f.stateid);
	ck_assert_msg(rc == NFS4ERR_BAD_STATEID,
		      "B's DELEGRETURN of A's open stateid: %s",
		      nfs42_strerror(rc));
	ck_nfs_ok(a, nfs42_test_stateid(a, &f.stateid, &st));
	ck_assert_uint_eq(st, NFS4_OK);
	ck_nfs_ok(a, nfs42_test_stateid(a, &f.deleg_stateid, &st));
	ck_assert_uint_eq(st, NFS4_OK);

	/* B opens for reading: A's write delegation is recalled first */
	memset(&oa, 0, sizeof(oa));
	oa.share_access = OPEN4_SHARE_ACCESS_READ;
	oa.owner = "b-owner";
	oa.owner_len = 7;
	oa.createmode = NFS42_NOCREATE;
	oa.claim = CLAIM_FH;
	c = nfs42_compound_new(b);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, &f.fh);
	idx = nfs42_op_open(c, &oa);
	rc = nfs42_compound_run(c);
	if (rc == 0)
		ck_assert_msg(nfs42_res(c, idx)->u.open.deleg_type !=
				      OPEN_DELEGATE_READ,
			      "B got a read delegation beside A's write one");
	ck_assert_msg(
		rc == NFS4ERR_DELAY,
		"B's OPEN while A holds a write delegation: %s, not NFS4ERR_DELAY",
		nfs42_strerror(rc));
	nfs42_compound_free(c);
	ck_assert_int_ge(nfs42_poll(a, 5000), 1);
	ck_assert_uint_eq(nfs42_recalls_received(a), 1);
	nfs42_client_free(b);
	nfs42_client_free(a);
}
END_TEST

/* Does the server log say the state of stateid other was freed
 * ("Deleted STATE <p> OTHER=0x<hex>", SAL at FULL_DEBUG)? */
static bool log_says_freed(const uint8_t other[12])
{
	char want[40], line[4096];
	bool found = false;
	FILE *f;
	int i;

	strcpy(want, "OTHER=0x");
	for (i = 0; i < 12; i++)
		sprintf(want + 8 + 2 * i, "%02x", other[i]);
	f = fopen(e2e_env("NFS42_LOG"), "r");
	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "Deleted STATE") != NULL &&
			strstr(line, want) != NULL;
	fclose(f);
	return found;
}

/*
 * A WRITE and a READ of 0 bytes under an open stateid end before any I/O:
 * they kept the stateid's reference (READ and WRITE hand it to the I/O,
 * whose completion drops it), so the open's state was never freed after
 * its CLOSE.  Patch 0211.  The _free run logs STATE at FULL_DEBUG.
 */
START_TEST(t_early_out_frees_state)
{
	struct nfs42_client *cl = e2e_client();
	const char *name = uniq("free");
	struct nfs42_compound *c;
	struct nfs42_file f;
	int ms;

	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name),
				 OPEN4_SHARE_ACCESS_BOTH |
					 OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
				 UNCHECKED4, 0644, true, &f));
	c = nfs42_compound_new(cl);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_write(c, &f.stateid, 0, FILE_SYNC4, "", 0);
	nfs42_op_read(c, &f.stateid, 0, 0);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	nfs42_compound_free(c);
	ck_nfs_ok(cl, nfs42_close(&f));
	for (ms = 0; ms < 5000 && !log_says_freed(f.stateid.other); ms += 50)
		usleep(50 * 1000);
	ck_assert_msg(log_says_freed(f.stateid.other),
		      "the open's state was not freed after its CLOSE");
	nfs42_client_free(cl);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("e2e_proto_stateid_scope");
	TCase *tc = tcase_create("scope");

	tcase_set_timeout(tc, 60);
	if (argc > 1 && strcmp(argv[1], "free") == 0) {
		tcase_add_test(tc, t_early_out_frees_state);
	} else {
		tcase_add_test(tc, t_another_clients_stateids);
		tcase_add_test(tc, t_delegreturn_open_stateid);
	}
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
