/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Parity with FSAL_VFS, OPEN and state: the open-stateid seqid rules,
 * READ/WRITE with a zero-seqid or anonymous stateid, EXCLUSIVE4_1 with a
 * different verifier, CLAIM_FH, the current stateid (RFC 8881 16.2.3.1.2)
 * through OPEN, LOCK, WRITE, SETATTR, FREE_STATEID, CLOSE in one
 * compound, ALLOCATE with the open, all-zeros and all-ones stateids
 * (RFC 7862 15.1), the delegation answer to WANT_NO_DELEG / WANT_READ_DELEG
 * (RFC 8881 18.16.3), and the RFC 8276 xattr ops.
 */
#include "e2e_parity_util.h"

static const struct nfs42_stateid cur_sid = { .seqid = 1 };
static const struct nfs42_stateid ones_sid = {
	.seqid = 0xffffffff,
	.other = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		   0xff, 0xff }
};
static const char data[] = "write test data";

#define OPEN4_SHARE_ACCESS_WANT_READ_DELEG 0x0100
#define OPEN_DELEGATE_NONE 0
#define OPEN_DELEGATE_READ 1
#define OPEN4_SHARE_ACCESS_WANT_CANCEL 0x0500
#define OPEN4_SHARE_ACCESS_WANT_DELEG_MASK 0xFF00
#define OPEN4_SHARE_ACCESS_WANT_ANY_DELEG 0x0300
#define OPEN4_SHARE_ACCESS_WANT_SIGNAL_DELEG_WHEN_RESRC_AVAIL 0x10000
#define OPEN4_SHARE_ACCESS_WANT_PUSH_DELEG_WHEN_UNCONTENDED 0x20000
#define OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS 0x100000
#define OPEN4_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION 0x200000
#define OPEN_DELEGATE_NONE_EXT 3
#define WND4_NOT_WANTED 0
#define WND4_CANCELLED 7

/* OPEN/CREATE GUARDED4 0644 of name in dir appended to c (+ GETFH);
 * returns the OPEN index. */
static int add_create(struct nfs42_compound *c, const char *name,
		      const char *owner, uint32_t access,
		      struct nfs42_sattr *sa)
{
	struct nfs42_open_args a = { 0 };
	int oi;

	nfs42_sattr_init(sa);
	nfs42_sattr_mode(sa, 0644);
	a.share_access = access;
	a.share_deny = OPEN4_SHARE_DENY_NONE;
	a.owner = owner;
	a.owner_len = strlen(owner);
	a.createmode = GUARDED4;
	a.attrs = sa;
	a.claim = CLAIM_NULL;
	a.name = name;
	oi = nfs42_op_open(c, &a);
	nfs42_op_getfh(c);
	return oi;
}

/* WRITE data at 5 with sid; then READ 0..1000 with sid gives "\0" x 5 +
 * data and EOF.  what names sid in failures. */
static void write_read5(struct nfs42_client *cl, const struct nfs42_fh *fh,
			const struct nfs42_stateid *sid, const char *what)
{
	uint8_t buf[64], want[64] = { 0 };
	uint32_t n = 0;
	bool eof = false;
	int rc;

	rc = e2e_write(cl, fh, sid, 5, FILE_SYNC4, data, strlen(data), NULL,
		       NULL, NULL);
	ck_assert_msg(rc == 0, "WRITE with %s: %s (%s)", what,
		      nfs42_strerror(rc), nfs42_client_error(cl));
	memcpy(want + 5, data, strlen(data));
	rc = e2e_read(cl, fh, sid, 0, 1000, buf, sizeof(buf), &n, &eof);
	ck_assert_msg(rc == 0, "READ with %s: %s (%s)", what,
		      nfs42_strerror(rc), nfs42_client_error(cl));
	ck_assert_msg(n == 5 + strlen(data), "READ with %s: %u bytes", what, n);
	ck_assert_msg(!memcmp(buf, want, n), "READ with %s: wrong data", what);
	ck_assert_msg(eof, "READ with %s: no EOF", what);
}

/* OPEN1, OPEN2, OPEN8: seqid 1 on the first open, 2 on the second by the
 * same owner; CLOSE with seqid 0 (the current one). */
START_TEST(open_seqids)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	const char *f = e2e_uniq("open1");
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_READ,
				   .createmode = NFS42_NOCREATE,
				   .owner = "owner-open2" };
	struct nfs42_file o1, o2;
	struct nfs42_sattr sa;
	struct e2e_open_req cr = { .access = OPEN4_SHARE_ACCESS_WRITE,
				   .createmode = GUARDED4,
				   .attrs = &sa,
				   .owner = "owner-open2" };

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0644);
	ck_nfs_ok(cl, e2e_open_ex(cl, &root, f, &cr, &o1, NULL));
	ck_assert_uint_eq(o1.stateid.seqid, 1);
	ck_nfs_ok(cl, e2e_open_ex(cl, &root, f, &rq, &o2, NULL));
	ck_assert_uint_eq(o2.stateid.seqid, 2);
	ck_assert_mem_eq(o2.stateid.other, o1.stateid.other, NFS4_OTHER_SIZE);
	o2.stateid.seqid = 0;
	ck_nfs_ok(cl, e2e_close(&o2));
	nfs42_client_free(cl);
}
END_TEST

/* OPEN30, OPEN31: WRITE at 5 then READ with the open stateid (seqid 0),
 * and with the anonymous stateid after CLOSE. */
START_TEST(open_read_write)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_file f;
	struct nfs42_stateid sid;

	ck_nfs_ok(cl, par_create_file(cl, &root, e2e_uniq("open30"),
				      OPEN4_SHARE_ACCESS_BOTH, &f));
	ck_assert_uint_eq(f.stateid.seqid, 1);
	sid = f.stateid;
	sid.seqid = 0;
	write_read5(cl, &f.fh, &sid, "the open stateid (seqid 0)");
	f.stateid = sid;
	ck_nfs_ok(cl, e2e_close(&f));

	ck_nfs_ok(cl, par_create_file(cl, &root, e2e_uniq("open31"),
				      OPEN4_SHARE_ACCESS_BOTH, &f));
	ck_nfs_ok(cl, e2e_close(&f));
	write_read5(cl, &f.fh, &e2e_anon_stateid, "the anonymous stateid");
	nfs42_client_free(cl);
}
END_TEST

/* OPEN6: EXCLUSIVE4_1 (createattrs mode 0644) then the same name with
 * another verifier: EXIST. */
START_TEST(exclusive4_1_other_verifier)
{
	struct nfs42_client *cl = e2e_client();
	const char *f = e2e_uniq("open6");
	struct nfs42_sattr sa;
	uint8_t v1[8] = "verif001", v2[8] = "Justtest";
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = EXCLUSIVE4_1,
				   .attrs = &sa,
				   .verf = v1 };
	struct nfs42_file o1, o2;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0644);
	ck_nfs_ok(cl, e2e_open(cl, f, &rq, &o1));
	ck_assert_uint_eq(e2e_bstat(f).st_mode & 07777, 0644);
	rq.verf = v2;
	ck_nfs_status(e2e_open(cl, f, &rq, &o2), NFS4ERR_EXIST);
	ck_nfs_ok(cl, e2e_close(&o1));
	nfs42_client_free(cl);
}
END_TEST

/* OPEN7: CLAIM_FH with a new owner after CLOSE; WRITE/READ with it. */
START_TEST(open_claim_fh)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_file f;
	struct nfs42_open_args a = { 0 };
	struct nfs42_compound *c;
	struct nfs42_stateid sid;
	int oi;

	ck_nfs_ok(cl, par_create_file(cl, &root, e2e_uniq("open7"),
				      OPEN4_SHARE_ACCESS_BOTH, &f));
	ck_nfs_ok(cl, e2e_close(&f));
	a.share_access = OPEN4_SHARE_ACCESS_BOTH |
			 OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	a.owner = "My Open Owner 2";
	a.owner_len = strlen(a.owner);
	a.createmode = NFS42_NOCREATE;
	a.claim = CLAIM_FH;
	c = e2e_cpd(cl, &f.fh);
	oi = nfs42_op_open(c, &a);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	sid = nfs42_res(c, oi)->u.open.stateid;
	nfs42_compound_free(c);
	sid.seqid = 0;
	write_read5(cl, &f.fh, &sid, "the CLAIM_FH stateid (seqid 0)");
	c = e2e_cpd(cl, &f.fh);
	nfs42_op_close(c, 0, &sid);
	ck_nfs_ok(cl, par_run(c));
	nfs42_client_free(cl);
}
END_TEST

/* CSID1, CSID3, CSID8, CSID10: OPEN then ops on the current stateid. */
START_TEST(current_stateid_after_open)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_sattr sa, sz;
	struct nfs42_compound *c;
	const char *f;

	/* CSID1: OPEN, GETFH, CLOSE(current) */
	c = e2e_cpd(cl, &root);
	add_create(c, e2e_uniq("csid1"), "csid-owner",
		   OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
		   &sa);
	nfs42_op_close(c, 0, &cur_sid);
	ck_nfs_status(par_run(c), NFS4_OK);
	/* CSID3: OPEN, GETFH, WRITE(current), CLOSE(current) */
	f = e2e_uniq("csid3");
	c = e2e_cpd(cl, &root);
	add_create(c, f, "csid-owner",
		   OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
		   &sa);
	nfs42_op_write(c, &cur_sid, 5, FILE_SYNC4, data, strlen(data));
	nfs42_op_close(c, 0, &cur_sid);
	ck_nfs_status(par_run(c), NFS4_OK);
	ck_assert_uint_eq(e2e_bstat(f).st_size, 5 + strlen(data));
	/* CSID8: OPEN, GETFH, SETATTR(current, size 8) */
	f = e2e_uniq("csid8");
	c = e2e_cpd(cl, &root);
	{
		int oi = add_create(c, f, "csid-owner",
				    OPEN4_SHARE_ACCESS_BOTH |
					    OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
				    &sa);
		struct nfs42_file of = { .cl = cl };

		nfs42_op_getfh(c);
		nfs42_sattr_init(&sz);
		nfs42_sattr_size(&sz, 8);
		nfs42_op_setattr(c, &cur_sid, &sz);
		ck_nfs_status(nfs42_compound_run(c), NFS4_OK);
		ck_assert_uint_eq(e2e_bstat(f).st_size, 8);
		of.stateid = nfs42_res(c, oi)->u.open.stateid;
		of.fh = nfs42_res(c, oi + 1)->u.fh;
		nfs42_compound_free(c);
		ck_nfs_ok(cl, e2e_close(&of));
	}
	/* CSID10: OPEN, GETFH, SAVEFH, PUTFH(dir), RESTOREFH,
	 * CLOSE(current): RESTOREFH restores the saved stateid too */
	c = e2e_cpd(cl, &root);
	add_create(c, e2e_uniq("csid10"), "csid-owner",
		   OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
		   &sa);
	nfs42_op_savefh(c);
	nfs42_op_putfh(c, &root);
	nfs42_op_restorefh(c);
	nfs42_op_close(c, 0, &cur_sid);
	ck_nfs_status(par_run(c), NFS4_OK);
	nfs42_client_free(cl);
}
END_TEST

/* CSID5, CSID6, CSID9: no current stateid; FREE_STATEID of an open. */
START_TEST(current_stateid_invalid)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_sattr sa;
	struct nfs42_compound *c;
	struct nfs42_file of;
	const char *f = e2e_uniq("csid5");
	int oi, rc;

	/* CSID5: OPEN, GETFH, PUTFH + LOOKUP, CLOSE(current) */
	c = e2e_cpd(cl, &root);
	oi = add_create(c, f, "csid-owner",
			OPEN4_SHARE_ACCESS_BOTH |
				OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
			&sa);
	nfs42_op_putfh(c, &root);
	nfs42_op_lookup(c, f);
	nfs42_op_close(c, 0, &cur_sid);
	rc = nfs42_compound_run(c);
	ck_nfs_status2(rc, NFS4ERR_BAD_STATEID, NFS4ERR_STALE_STATEID);
	memset(&of, 0, sizeof(of));
	of.cl = cl;
	of.stateid = nfs42_res(c, oi)->u.open.stateid;
	of.fh = nfs42_res(c, oi + 1)->u.fh;
	nfs42_compound_free(c);
	/* CSID6: PUTFH, CLOSE(current) */
	c = e2e_cpd(cl, &of.fh);
	nfs42_op_close(c, 0, &cur_sid);
	ck_nfs_status2(par_run(c), NFS4ERR_BAD_STATEID, NFS4ERR_STALE_STATEID);
	ck_nfs_ok(cl, e2e_close(&of));
	/* CSID9: OPEN, GETFH, FREE_STATEID(current), CLOSE(current) */
	c = e2e_cpd(cl, &root);
	oi = add_create(c, e2e_uniq("csid9"), "csid-owner",
			OPEN4_SHARE_ACCESS_BOTH |
				OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
			&sa);
	nfs42_op_free_stateid(c, &cur_sid);
	nfs42_op_close(c, 0, &cur_sid);
	ck_nfs_status(nfs42_compound_run(c), NFS4ERR_LOCKS_HELD);
	of.stateid = nfs42_res(c, oi)->u.open.stateid;
	of.fh = nfs42_res(c, oi + 1)->u.fh;
	nfs42_compound_free(c);
	ck_nfs_ok(cl, e2e_close(&of));
	nfs42_client_free(cl);
}
END_TEST

/* CSID2, CSID4: LOCK then LOCKU / WRITE on the current stateid. */
START_TEST(current_stateid_locks)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_lock_owner lo = { .owner = "lock1", .owner_len = 5 };
	struct nfs42_compound *c;
	struct nfs42_file f;
	const char *name = e2e_uniq("csid4");

	ck_nfs_ok(cl, par_create_file(cl, &root, e2e_uniq("csid2"),
				      OPEN4_SHARE_ACCESS_BOTH, &f));
	c = e2e_cpd(cl, &f.fh);
	nfs42_op_lock_new(c, WRITE_LT, false, 0, NFS42_LENGTH_EOF, 0,
			  &f.stateid, 0, &lo);
	nfs42_op_locku(c, WRITE_LT, 0, &cur_sid, 0, NFS42_LENGTH_EOF);
	ck_nfs_status(par_run(c), NFS4_OK);
	ck_nfs_ok(cl, e2e_close(&f));

	ck_nfs_ok(cl, par_create_file(cl, &root, name, OPEN4_SHARE_ACCESS_BOTH,
				      &f));
	c = e2e_cpd(cl, &f.fh);
	nfs42_op_lock_new(c, WRITE_LT, false, 0, NFS42_LENGTH_EOF, 0,
			  &f.stateid, 0, &lo);
	nfs42_op_write(c, &cur_sid, 5, FILE_SYNC4, data, strlen(data));
	nfs42_op_locku(c, WRITE_LT, 0, &cur_sid, 0, NFS42_LENGTH_EOF);
	nfs42_op_close(c, 0, &f.stateid);
	ck_nfs_status(par_run(c), NFS4_OK);
	ck_assert_uint_eq(e2e_bstat(name).st_size, 5 + strlen(data));
	nfs42_client_free(cl);
}
END_TEST

/* ALLOC1-3: ALLOCATE 0,1 of a file open for write with the open
 * stateid, the all-zeros and the all-ones stateids. */
START_TEST(allocate_stateids)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	const struct nfs42_stateid *sids[3] = { NULL, &e2e_anon_stateid,
						&ones_sid };

	for (int i = 0; i < 3; i++) {
		struct nfs42_file f;
		struct nfs42_compound *c;
		const char *name = e2e_uniq("alloc");
		int rc;

		ck_nfs_ok(cl, par_create_file(cl, &root, name,
					      OPEN4_SHARE_ACCESS_WRITE, &f));
		c = e2e_cpd(cl, &f.fh);
		nfs42_op_allocate(c, sids[i] ? sids[i] : &f.stateid, 0, 1);
		rc = par_run(c);
		ck_assert_msg(rc == 0, "ALLOCATE with stateid #%d: %s", i,
			      nfs42_strerror(rc));
		ck_assert_uint_eq(e2e_bstat(name).st_size, 1);
		ck_nfs_ok(cl, e2e_close(&f));
	}
	nfs42_client_free(cl);
}
END_TEST

/* OPEN with a create and a WANT flag; returns the OPEN result. */
static void open_want(struct nfs42_client *cl, uint32_t want, uint32_t *type,
		      uint32_t *why)
{
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_compound *c = e2e_cpd(cl, &root);
	struct nfs42_sattr sa;
	struct nfs42_file of = { .cl = cl };
	int oi;

	oi = add_create(c, e2e_uniq("deleg"), "deleg-owner",
			OPEN4_SHARE_ACCESS_READ | want, &sa);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	*type = nfs42_res(c, oi)->u.open.deleg_type;
	*why = nfs42_res(c, oi)->u.open.why_no_deleg;
	of.stateid = nfs42_res(c, oi)->u.open.stateid;
	of.fh = nfs42_res(c, oi + 1)->u.fh;
	nfs42_compound_free(c);
	if (*type != OPEN_DELEGATE_READ)
		ck_nfs_ok(cl, e2e_close(&of));
}

/* OPEN with a create and a WANT value; returns the compound's status
 * (the open, when made, is closed). */
static int open_want_status(struct nfs42_client *cl, uint32_t want)
{
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_compound *c = e2e_cpd(cl, &root);
	struct nfs42_sattr sa;
	struct nfs42_file of = { .cl = cl };
	int oi, rc;

	oi = add_create(c, e2e_uniq("want"), "want-owner",
			OPEN4_SHARE_ACCESS_READ | want, &sa);
	rc = nfs42_compound_run(c);
	if (rc == 0) {
		of.stateid = nfs42_res(c, oi)->u.open.stateid;
		of.fh = nfs42_res(c, oi + 1)->u.fh;
	}
	nfs42_compound_free(c);
	if (rc == 0)
		ck_nfs_ok(cl, e2e_close(&of));
	return rc;
}

/* DELEG4: WANT_NO_DELEG gets OPEN_DELEGATE_NONE_EXT / WND4_NOT_WANTED.
 * WANT_CANCEL (0x500, a value of the want byte that shares a bit with
 * NO_DELEG) gets NONE_EXT / WND4_CANCELLED, and a want value the RFC does
 * not define (0x600, 0x700: 0x700 has NO_DELEG's bit) NFS4ERR_INVAL
 * (RFC 8881 18.16.3).
 * DELEG1 (needs delegations, which neither FSAL grants here): the answer
 * to WANT_READ_DELEG is a read delegation or NONE_EXT with a reason. */
START_TEST(delegation_wants)
{
	struct nfs42_client *cl = e2e_client();
	uint32_t type, why, bad;

	open_want(cl, OPEN4_SHARE_ACCESS_WANT_NO_DELEG, &type, &why);
	ck_assert_uint_eq(type, OPEN_DELEGATE_NONE_EXT);
	ck_assert_uint_eq(why, WND4_NOT_WANTED);
	open_want(cl, OPEN4_SHARE_ACCESS_WANT_CANCEL, &type, &why);
	ck_assert_uint_eq(type, OPEN_DELEGATE_NONE_EXT);
	ck_assert_uint_eq(why, WND4_CANCELLED);
	for (bad = 0x0600; bad <= 0x0700; bad += 0x0100)
		ck_assert_int_eq(open_want_status(cl, bad), NFS4ERR_INVAL);
	open_want(cl, OPEN4_SHARE_ACCESS_WANT_READ_DELEG, &type, &why);
	par_note("WANT_READ_DELEG: delegation type %u why %u", type, why);
	ck_assert(type == OPEN_DELEGATE_READ || type == OPEN_DELEGATE_NONE_EXT);
	nfs42_client_free(cl);
}
END_TEST

/*
 * The flags beside the want value (RFC 8881 18.16.3, RFC 9754 4 and 5):
 * SIGNAL_DELEG_WHEN_RESRC_AVAIL, PUSH_DELEG_WHEN_UNCONTENDED,
 * DELEG_TIMESTAMPS and OPEN_XOR_DELEGATION, alone, together and with a
 * want value, are accepted (knfsd ignores those it does not act on; an
 * outside suite's OPEN with DELEG_TIMESTAMPS was NFS4ERR_INVAL before):
 * the OPEN succeeds and, whatever it grants, answers with a state
 * (never NONE_EXT with a reason outside WND4's list).  A bit no RFC
 * defines (0x4, 0x40000, 0x400000, 0x80000000) stays NFS4ERR_INVAL.
 */
START_TEST(delegation_want_flags)
{
	static const uint32_t ok[] = {
		OPEN4_SHARE_ACCESS_WANT_SIGNAL_DELEG_WHEN_RESRC_AVAIL,
		OPEN4_SHARE_ACCESS_WANT_PUSH_DELEG_WHEN_UNCONTENDED,
		OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS,
		OPEN4_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION,
		OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS |
			OPEN4_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION,
		OPEN4_SHARE_ACCESS_WANT_ANY_DELEG |
			OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS,
		OPEN4_SHARE_ACCESS_WANT_NO_DELEG |
			OPEN4_SHARE_ACCESS_WANT_SIGNAL_DELEG_WHEN_RESRC_AVAIL |
			OPEN4_SHARE_ACCESS_WANT_PUSH_DELEG_WHEN_UNCONTENDED,
		OPEN4_SHARE_ACCESS_WANT_CANCEL |
			OPEN4_SHARE_ACCESS_WANT_SIGNAL_DELEG_WHEN_RESRC_AVAIL,
	};
	static const uint32_t bad[] = {
		0x4, 0x40000, 0x400000, 0x80000000u,
		OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS | 0x0600
	};
	struct nfs42_client *cl = e2e_client();
	uint32_t type, why;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(open_want_status(cl, ok[i]) == NFS4_OK,
			      "OPEN with want 0x%x refused", ok[i]);
		open_want(cl, ok[i], &type, &why);
		par_note("want 0x%x: delegation type %u why %u", ok[i], type,
			 why);
		if ((ok[i] & OPEN4_SHARE_ACCESS_WANT_DELEG_MASK) ==
		    OPEN4_SHARE_ACCESS_WANT_NO_DELEG) {
			ck_assert_uint_eq(type, OPEN_DELEGATE_NONE_EXT);
			ck_assert_uint_eq(why, WND4_NOT_WANTED);
		}
		if ((ok[i] & OPEN4_SHARE_ACCESS_WANT_DELEG_MASK) ==
		    OPEN4_SHARE_ACCESS_WANT_CANCEL) {
			ck_assert_uint_eq(type, OPEN_DELEGATE_NONE_EXT);
			ck_assert_uint_eq(why, WND4_CANCELLED);
		}
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(open_want_status(cl, bad[i]) == NFS4ERR_INVAL,
			      "OPEN with share_access bits 0x%x not INVAL",
			      bad[i]);
	nfs42_client_free(cl);
}
END_TEST

/* SETATTR, with the anonymous stateid, of attribute attr alone with len
 * zero bytes of value; returns the compound's status. */
static int setattr_raw(struct nfs42_client *cl, const struct nfs42_fh *fh,
		       int attr, size_t len)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	struct nfs42_bitmap bm = nfs42_bm_make(attr, -1);
	static const uint8_t zero[16];
	struct par_raw r;

	par_raw_begin(&r, OP_SETATTR);
	nfs42_xdr_put_fixed(&r.x, zero, 16); /* stateid */
	nfs42_bitmap_encode(&r.x, &bm);
	nfs42_xdr_put_opaque(&r.x, zero, len);
	par_raw_end(c, &r, OP_SETATTR);
	return par_run(c);
}

/*
 * Attributes 78, 79, 81 and 83-85, which Ganesha does not implement
 * (time_deleg_access/modify only for exports without write
 * delegations), are refused as the RFCs say: a GETATTR asking for the
 * readable ones answers without them (it was NFS4ERR_INVAL: their rows
 * were empty, with no access), mode_umask (write only, RFC 8275) in a
 * GETATTR is NFS4ERR_INVAL; in SETATTR a read-only one (space_freed) is
 * NFS4ERR_INVAL, a writable one NFS4ERR_ATTRNOTSUPP (it was INVAL); none
 * is in supported_attrs.  An attribute past the table (95, a bitmap4 has
 * three words) in SETATTR is NFS4ERR_ATTRNOTSUPP (it was read past the
 * table's end: under UBSan the server stopped).
 */
START_TEST(unimplemented_attributes)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_bitmap ask = nfs42_bm_make(
		FATTR4_SUPPORTED_ATTRS, FATTR4_TYPE, FATTR4_SPACE_FREED,
		FATTR4_CHANGE_ATTR_TYPE, FATTR4_OFFLINE,
		FATTR4_TIME_DELEG_ACCESS, FATTR4_TIME_DELEG_MODIFY, -1);
	struct nfs42_bitmap umask = nfs42_bm_make(FATTR4_MODE_UMASK, -1);
	static const int unimpl[] = { FATTR4_SPACE_FREED,
				      FATTR4_CHANGE_ATTR_TYPE,
				      FATTR4_MODE_UMASK, FATTR4_OFFLINE };
	struct nfs42_attrs a;
	struct nfs42_file f;
	size_t i;

	ck_nfs_ok(cl, par_create_file(cl, &root, e2e_uniq("unimpl"),
				      OPEN4_SHARE_ACCESS_BOTH, &f));
	ck_nfs_ok(cl, e2e_close(&f));
	ck_nfs_ok(cl, nfs42_getattr_fh(cl, &f.fh, &ask, &a));
	ck_assert(nfs42_bm_isset(&a.mask, FATTR4_TYPE));
	for (i = 0; i < sizeof(unimpl) / sizeof(unimpl[0]); i++) {
		ck_assert(!nfs42_bm_isset(&a.mask, unimpl[i]));
		ck_assert(!nfs42_bm_isset(&a.supported_attrs, unimpl[i]));
	}
	if (!nfs42_bm_isset(&a.supported_attrs, FATTR4_TIME_DELEG_MODIFY))
		ck_assert_int_eq(setattr_raw(cl, &f.fh,
					     FATTR4_TIME_DELEG_MODIFY, 12),
				 NFS4ERR_ATTRNOTSUPP);
	if (!nfs42_bm_isset(&a.supported_attrs, FATTR4_TIME_DELEG_ACCESS))
		ck_assert_int_eq(setattr_raw(cl, &f.fh,
					     FATTR4_TIME_DELEG_ACCESS, 12),
				 NFS4ERR_ATTRNOTSUPP);
	ck_assert_int_eq(nfs42_getattr_fh(cl, &f.fh, &umask, &a),
			 NFS4ERR_INVAL);
	ck_assert_int_eq(setattr_raw(cl, &f.fh, FATTR4_MODE_UMASK, 8),
			 NFS4ERR_ATTRNOTSUPP);
	ck_assert_int_eq(setattr_raw(cl, &f.fh, FATTR4_SPACE_FREED, 8),
			 NFS4ERR_INVAL);
	ck_assert_int_eq(setattr_raw(cl, &f.fh, FATTR4_OFFLINE, 4),
			 NFS4ERR_INVAL);
	/* past the attribute table (patch 0170: read past its end) */
	ck_assert_int_eq(setattr_raw(cl, &f.fh, 95, 4), NFS4ERR_ATTRNOTSUPP);
	nfs42_client_free(cl);
}
END_TEST

/* XATT1-XATT11 (RFC 8276): with xattr_support the ops behave as the RFC
 * says; without it, every xattr op is NOTSUPP (RFC 8276 8.3). */
START_TEST(xattr_ops)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_bitmap bm =
		nfs42_bm_make(FATTR4_SUPPORTED_ATTRS, FATTR4_XATTR_SUPPORT, -1);
	struct nfs42_attrs a = e2e_getattr(cl, &root, &bm);
	bool sup = nfs42_bm_isset(&a.supported_attrs, FATTR4_XATTR_SUPPORT) &&
		   a.xattr_support;
	struct nfs42_file f;
	struct nfs42_compound *c;
	int rc;

	par_note("xattr_support supported %d value %d",
		 nfs42_bm_isset(&a.supported_attrs, FATTR4_XATTR_SUPPORT),
		 a.xattr_support);
	ck_nfs_ok(cl, par_create_file(cl, &root, e2e_uniq("xattr"),
				      OPEN4_SHARE_ACCESS_BOTH, &f));
	ck_nfs_ok(cl, e2e_close(&f));
	c = e2e_cpd(cl, &f.fh);
	nfs42_op_getxattr(c, "user.attr1");
	rc = par_run(c);
	par_note("GETXATTR missing: %s", nfs42_strerror(rc));
	ck_nfs_status(rc, sup ? NFS4ERR_NOXATTR : NFS4ERR_NOTSUPP);
	c = e2e_cpd(cl, &f.fh);
	nfs42_op_setxattr(c, SETXATTR4_REPLACE, "user.attr1", "value1", 6);
	ck_nfs_status(par_run(c), sup ? NFS4ERR_NOXATTR : NFS4ERR_NOTSUPP);
	c = e2e_cpd(cl, &f.fh);
	nfs42_op_setxattr(c, SETXATTR4_CREATE, "user.attr1", "value1", 6);
	ck_nfs_status(par_run(c), sup ? NFS4_OK : NFS4ERR_NOTSUPP);
	c = e2e_cpd(cl, &f.fh);
	nfs42_op_listxattrs(c, 0, 8192);
	ck_nfs_status(par_run(c), sup ? NFS4_OK : NFS4ERR_NOTSUPP);
	c = e2e_cpd(cl, &f.fh);
	nfs42_op_removexattr(c, "user.attr2");
	ck_nfs_status(par_run(c), sup ? NFS4ERR_NOXATTR : NFS4ERR_NOTSUPP);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_parity_state");
	TCase *tc = tcase_create("state");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, open_seqids);
	tcase_add_test(tc, open_read_write);
	tcase_add_test(tc, exclusive4_1_other_verifier);
	tcase_add_test(tc, open_claim_fh);
	tcase_add_test(tc, current_stateid_after_open);
	tcase_add_test(tc, current_stateid_invalid);
	tcase_add_test(tc, current_stateid_locks);
	tcase_add_test(tc, allocate_stateids);
	tcase_add_test(tc, delegation_wants);
	tcase_add_test(tc, delegation_want_flags);
	tcase_add_test(tc, unimplemented_attributes);
	tcase_add_test(tc, xattr_ops);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
