/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL end-to-end, OPEN and state (issue #3): the create modes
 * (UNCHECKED4, GUARDED4, EXCLUSIVE4_1), share reservations across clients,
 * OPEN_DOWNGRADE, CLOSE, stale/bad/old stateids, the anonymous stateid,
 * byte-range locks across clients (LOCK/LOCKT/LOCKU) and COMMIT.  Oracle:
 * RFC 8881 sections 8, 9, 18.10-18.18, and lstat()/pread() of the
 * backing files.
 */
#include "e2e_fsal_util.h"
#include "e2e_sync.h"

static const uint8_t verf_a[8] = "verif-A!", verf_b[8] = "verif-B?";

START_TEST(unchecked_keeps_existing)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("unchk"), buf[16];
	struct nfs42_sattr sa;
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = UNCHECKED4,
				   .attrs = &sa };
	struct nfs42_file of;
	struct stat before, after;

	e2e_put_backing(f, "hello world", 11);
	before = e2e_bstat(f);
	/*
	 * RFC 8881 18.16.3: UNCHECKED4 on an existing file succeeds and
	 * ignores createattrs, except that a size of zero truncates.
	 */
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0600);
	ck_nfs_ok(cl, e2e_open(cl, f, &rq, &of));
	after = e2e_bstat(f);
	ck_assert_uint_eq(after.st_ino, before.st_ino);
	ck_assert_uint_eq(after.st_size, 11);
	ck_assert_uint_eq(after.st_mode & 07777, before.st_mode & 07777);
	e2e_bpread(f, buf, 11, 0);
	ck_assert_mem_eq(buf, "hello world", 11);
	ck_nfs_ok(cl, e2e_close(&of));
	/* with size 0: truncated, same file */
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 0);
	ck_nfs_ok(cl, e2e_open(cl, f, &rq, &of));
	after = e2e_bstat(f);
	ck_assert_uint_eq(after.st_ino, before.st_ino);
	ck_assert_uint_eq(after.st_size, 0);
	ck_assert_uint_eq(e2e_getattr(cl, &of.fh, NULL).size, 0);
	ck_nfs_ok(cl, e2e_close(&of));
	/* a new name: created with the requested mode */
	free(f);
	f = e2e_uniq("unchk-new");
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0640);
	ck_nfs_ok(cl, e2e_open(cl, f, &rq, &of));
	after = e2e_bstat(f);
	ck_assert(S_ISREG(after.st_mode));
	ck_assert_uint_eq(after.st_mode & 07777, 0640);
	ck_assert_uint_eq(after.st_size, 0);
	ck_assert_uint_eq(e2e_getattr(cl, &of.fh, NULL).fileid, after.st_ino);
	ck_nfs_ok(cl, e2e_close(&of));
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(guarded_exist)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("guard"), buf[8];
	struct nfs42_sattr sa;
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = GUARDED4,
				   .attrs = &sa };
	struct nfs42_file of;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0604);
	ck_nfs_ok(cl, e2e_open(cl, f, &rq, &of));
	ck_assert_uint_eq(e2e_bstat(f).st_mode & 07777, 0604);
	ck_nfs_ok(cl, nfs42_pwrite(&of, "guarded", 7, 0, FILE_SYNC4));
	ck_nfs_ok(cl, e2e_close(&of));
	/* existing: NFS4ERR_EXIST, file untouched (even with size 0) */
	nfs42_sattr_size(&sa, 0);
	ck_nfs_status(e2e_open(cl, f, &rq, &of), NFS4ERR_EXIST);
	ck_assert_uint_eq(e2e_bstat(f).st_size, 7);
	e2e_bpread(f, buf, 7, 0);
	ck_assert_mem_eq(buf, "guarded", 7);
	/* an existing directory name too */
	{
		char *d = e2e_uniq("guard-dir");

		e2e_bmkdir(d, 0755);
		ck_nfs_status(e2e_open(cl, d, &rq, &of), NFS4ERR_EXIST);
		free(d);
	}
	free(f);
	nfs42_client_free(cl);
}
END_TEST

/*
 * An exclusive create of f (o1), then its replay with the same verifier
 * (o2): both must open the one new, empty regular file.  Returns its
 * backing stat.
 */
static struct stat create_and_replay(struct nfs42_client *cl, const char *f,
				     const struct e2e_open_req *rq,
				     struct nfs42_file *o1,
				     struct nfs42_file *o2)
{
	struct stat st;
	int rc;

	rc = e2e_open(cl, f, rq, o1);
	ck_assert_msg(rc == 0, "%s: create: %s (%s)", f, nfs42_strerror(rc),
		      nfs42_client_error(cl));
	st = e2e_bstat(f);
	ck_assert_msg(S_ISREG(st.st_mode), "%s: not a regular file", f);
	ck_assert_msg(st.st_size == 0, "%s: size %lld after create", f,
		      (long long)st.st_size);
	rc = e2e_open(cl, f, rq, o2);
	ck_assert_msg(rc == 0, "%s: replay: %s (%s)", f, nfs42_strerror(rc),
		      nfs42_client_error(cl));
	ck_assert_msg(o2->fh.len == o1->fh.len &&
			      !memcmp(o2->fh.data, o1->fh.data, o1->fh.len),
		      "%s: the replay opened another handle", f);
	ck_assert_msg(e2e_bstat(f).st_ino == st.st_ino,
		      "%s: the replay made another file", f);
	return st;
}

START_TEST(exclusive4_1_replay)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("excl");
	struct nfs42_sattr sa;
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = EXCLUSIVE4_1,
				   .attrs = &sa,
				   .verf = verf_a,
				   .owner = "excl-owner" };
	struct nfs42_file o1, o2;
	struct stat st;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0640);
	/*
	 * RFC 8881 18.16.3: a retransmitted EXCLUSIVE4_1 create (same
	 * verifier) succeeds on the file it created ...
	 */
	st = create_and_replay(cl, f, &rq, &o1, &o2);
	/* the same open owner: the same open state, a newer seqid */
	ck_assert_mem_eq(o2.stateid.other, o1.stateid.other, NFS4_OTHER_SIZE);
	ck_assert_uint_gt(o2.stateid.seqid, o1.stateid.seqid);
	ck_nfs_ok(cl, nfs42_pwrite(&o2, "ex", 2, 0, FILE_SYNC4));
	ck_assert_uint_eq(e2e_bstat(f).st_size, 2);
	/* ... a different verifier is NFS4ERR_EXIST */
	rq.verf = verf_b;
	ck_nfs_status(e2e_open(cl, f, &rq, &o1), NFS4ERR_EXIST);
	ck_assert_uint_eq(e2e_bstat(f).st_ino, st.st_ino);
	ck_assert_uint_eq(e2e_bstat(f).st_size, 2);
	ck_nfs_ok(cl, e2e_close(&o2));
	/* a file created some other way is EXIST for any verifier */
	free(f);
	f = e2e_uniq("excl-pre");
	e2e_put_backing(f, "pre", 3);
	rq.verf = verf_a;
	ck_nfs_status(e2e_open(cl, f, &rq, &o2), NFS4ERR_EXIST);
	ck_assert_uint_eq(e2e_bstat(f).st_size, 3);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

/*
 * EXCLUSIVE4 (RFC 8881 18.16.3; still legal in 4.1): only a verifier is
 * sent.  A replay with the same verifier opens the file it created, a
 * different verifier is NFS4ERR_EXIST, and the client then sets the
 * attributes it wants with SETATTR.
 */
START_TEST(exclusive4_replay_then_setattr)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("excl4");
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = EXCLUSIVE4,
				   .verf = verf_a,
				   .owner = "excl4-owner" };
	struct nfs42_file o1, o2;
	struct nfs42_sattr sa;
	struct stat st;

	st = create_and_replay(cl, f, &rq, &o1, &o2);
	rq.verf = verf_b;
	ck_nfs_status(e2e_open(cl, f, &rq, &o1), NFS4ERR_EXIST);
	ck_assert_uint_eq(e2e_bstat(f).st_ino, st.st_ino);
	/* the attributes come afterwards, through the open stateid */
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0640);
	ck_nfs_ok(cl, nfs42_file_setattr(&o2, &sa));
	ck_assert_uint_eq(e2e_bstat(f).st_mode & 07777, 0640);
	ck_nfs_ok(cl, e2e_close(&o2));
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(share_reservations)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	char *f = e2e_uniq("share");
	struct e2e_open_req rq = { .createmode = NFS42_NOCREATE };
	struct nfs42_file oa, ob;

	e2e_put_backing(f, "shared", 6);
	/* A: read, deny write */
	rq.access = OPEN4_SHARE_ACCESS_READ;
	rq.deny = OPEN4_SHARE_DENY_WRITE;
	ck_nfs_ok(a, e2e_open(a, f, &rq, &oa));
	/* B: write -> SHARE_DENIED; both -> SHARE_DENIED; read -> ok */
	rq.deny = OPEN4_SHARE_DENY_NONE;
	rq.access = OPEN4_SHARE_ACCESS_WRITE;
	ck_nfs_status(e2e_open(b, f, &rq, &ob), NFS4ERR_SHARE_DENIED);
	rq.access = OPEN4_SHARE_ACCESS_BOTH;
	ck_nfs_status(e2e_open(b, f, &rq, &ob), NFS4ERR_SHARE_DENIED);
	rq.access = OPEN4_SHARE_ACCESS_READ;
	ck_nfs_ok(b, e2e_open(b, f, &rq, &ob));
	/* B: deny read while A reads -> SHARE_DENIED */
	{
		struct nfs42_file oc;

		rq.deny = OPEN4_SHARE_DENY_READ;
		ck_nfs_status(e2e_open(b, f, &rq, &oc), NFS4ERR_SHARE_DENIED);
		rq.deny = OPEN4_SHARE_DENY_NONE;
	}
	ck_nfs_ok(b, e2e_close(&ob));
	/* once A closes, B may write */
	ck_nfs_ok(a, e2e_close(&oa));
	rq.access = OPEN4_SHARE_ACCESS_WRITE;
	ck_nfs_ok(b, e2e_open(b, f, &rq, &ob));
	ck_nfs_ok(b, nfs42_pwrite(&ob, "SH", 2, 0, FILE_SYNC4));
	/* and now A's deny-write open conflicts with B's write open */
	rq.access = OPEN4_SHARE_ACCESS_READ;
	rq.deny = OPEN4_SHARE_DENY_WRITE;
	ck_nfs_status(e2e_open(a, f, &rq, &oa), NFS4ERR_SHARE_DENIED);
	ck_nfs_ok(b, e2e_close(&ob));
	{
		char buf[6];

		e2e_bpread(f, buf, 6, 0);
		ck_assert_mem_eq(buf, "SHared", 6);
	}
	free(f);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

START_TEST(open_downgrade_and_stateids)
{
	struct nfs42_client *cl = e2e_client(), *other = e2e_client();
	char *f = e2e_uniq("dgr"), buf[16];
	char *owner = e2e_uniq("dgr-owner");
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_READ,
				   .deny = OPEN4_SHARE_DENY_NONE,
				   .createmode = NFS42_NOCREATE,
				   .owner = owner };
	struct nfs42_stateid old, nsid, bad;
	struct nfs42_file of, o2;
	uint32_t n;
	bool eof;

	e2e_put_backing(f, "downgrade me", 12);
	/*
	 * RFC 8881 18.18.3: the downgraded access/deny must be the union of
	 * some subset of the OPENs this open owner did: open READ/NONE, then
	 * upgrade to BOTH/deny WRITE (same owner, same stateid).
	 */
	ck_nfs_ok(cl, e2e_open(cl, f, &rq, &of));
	old = of.stateid;
	rq.access = OPEN4_SHARE_ACCESS_BOTH;
	rq.deny = OPEN4_SHARE_DENY_WRITE;
	ck_nfs_ok(cl, e2e_open(cl, f, &rq, &of));
	ck_assert_mem_eq(of.stateid.other, old.other, NFS4_OTHER_SIZE);
	ck_assert_uint_gt(of.stateid.seqid, old.seqid);
	old = of.stateid;
	rq.owner = NULL;
	/* while deny WRITE holds, another client cannot write */
	rq.access = OPEN4_SHARE_ACCESS_WRITE;
	rq.deny = OPEN4_SHARE_DENY_NONE;
	ck_nfs_status(e2e_open(other, f, &rq, &o2), NFS4ERR_SHARE_DENIED);
	/* RFC 8881 18.18.3: upgrading through OPEN_DOWNGRADE is INVAL */
	{
		struct nfs42_file ro;
		struct e2e_open_req r2 = { .access = OPEN4_SHARE_ACCESS_READ,
					   .createmode = NFS42_NOCREATE };
		struct nfs42_stateid x;

		ck_nfs_ok(cl, e2e_open(cl, f, &r2, &ro));
		ck_nfs_status(e2e_open_downgrade(cl, &ro,
						 OPEN4_SHARE_ACCESS_BOTH,
						 OPEN4_SHARE_DENY_NONE, &x),
			      NFS4ERR_INVAL);
		ck_nfs_ok(cl, e2e_close(&ro));
	}
	/* BOTH/deny WRITE -> READ/deny NONE */
	ck_nfs_ok(cl, e2e_open_downgrade(cl, &of, OPEN4_SHARE_ACCESS_READ,
					 OPEN4_SHARE_DENY_NONE, &nsid));
	ck_assert_mem_eq(nsid.other, old.other, NFS4_OTHER_SIZE);
	ck_assert_uint_gt(nsid.seqid, old.seqid);
	of.stateid = nsid;
	/* reads work, writes are OPENMODE */
	ck_nfs_ok(cl, e2e_read(cl, &of.fh, &nsid, 0, 12, buf, sizeof(buf), &n,
			       &eof));
	ck_assert_uint_eq(n, 12);
	ck_assert_mem_eq(buf, "downgrade me", 12);
	/* (WRITE after the downgrade: see write_needs_write_access) */
	/* the deny is gone: another client may open for write now */
	ck_nfs_ok(other, e2e_open(other, f, &rq, &o2));
	ck_nfs_ok(other, e2e_close(&o2));
	/* RFC 8881 8.2.2: an older seqid is OLD_STATEID ... */
	ck_nfs_status(e2e_read(cl, &of.fh, &old, 0, 4, buf, sizeof(buf), &n,
			       &eof),
		      NFS4ERR_OLD_STATEID);
	/* ... a newer one than issued is BAD_STATEID ... */
	bad = nsid;
	bad.seqid += 5;
	ck_nfs_status(e2e_read(cl, &of.fh, &bad, 0, 4, buf, sizeof(buf), &n,
			       &eof),
		      NFS4ERR_BAD_STATEID);
	/* ... an "other" never issued is BAD_STATEID (only the tail is
	 * changed: Ganesha's head names the client, and a stateid of an
	 * unknown client may be EXPIRED/STALE_STATEID instead) */
	bad = nsid;
	bad.other[11] ^= 0x55;
	bad.other[10] ^= 0x3c;
	ck_nfs_status(e2e_read(cl, &of.fh, &bad, 0, 4, buf, sizeof(buf), &n,
			       &eof),
		      NFS4ERR_BAD_STATEID);
	ck_nfs_status(e2e_write(cl, &of.fh, &bad, 0, FILE_SYNC4, "X", 1, NULL,
				NULL, NULL),
		      NFS4ERR_BAD_STATEID);
	/* seqid 0 means "current" in 4.1 (RFC 8881 8.2.2) */
	bad = nsid;
	bad.seqid = 0;
	ck_nfs_ok(cl,
		  e2e_read(cl, &of.fh, &bad, 0, 4, buf, sizeof(buf), &n, &eof));
	/* CLOSE; the closed stateid is BAD_STATEID afterwards */
	ck_nfs_ok(cl, e2e_close(&of));
	ck_nfs_status(e2e_read(cl, &of.fh, &nsid, 0, 4, buf, sizeof(buf), &n,
			       &eof),
		      NFS4ERR_BAD_STATEID);
	/* a second CLOSE: BAD_STATEID (Ganesha answers OK, which RFC 8881
	 * does not forbid outright); the state stays gone either way */
	of.stateid = nsid;
	ck_nfs_status2(e2e_close(&of), NFS4ERR_BAD_STATEID, NFS4_OK);
	ck_nfs_status(e2e_read(cl, &of.fh, &nsid, 0, 4, buf, sizeof(buf), &n,
			       &eof),
		      NFS4ERR_BAD_STATEID);
	e2e_bpread(f, buf, 1, 0);
	ck_assert_int_eq(buf[0], 'd');
	free(owner);
	free(f);
	nfs42_client_free(cl);
	nfs42_client_free(other);
}
END_TEST

/*
 * RFC 8881 9.1.2 / 18.32.3: a WRITE under an open stateid whose access
 * lacks WRITE is NFS4ERR_OPENMODE -- for an OPEN for READ and for an open
 * downgraded to READ -- and writes nothing.
 */
START_TEST(write_needs_write_access)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("openmode"), *owner = e2e_uniq("om-owner"), c;
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_READ,
				   .createmode = NFS42_NOCREATE,
				   .owner = owner };
	struct nfs42_stateid nsid;
	struct nfs42_file of;

	e2e_put_backing(f, "read only", 9);
	ck_nfs_ok(cl, e2e_open(cl, f, &rq, &of));
	ck_nfs_status(e2e_write(cl, &of.fh, &of.stateid, 0, FILE_SYNC4, "X", 1,
				NULL, NULL, NULL),
		      NFS4ERR_OPENMODE);
	e2e_bpread(f, &c, 1, 0);
	ck_assert_int_eq(c, 'r');
	/* upgrade to BOTH, downgrade back to READ */
	rq.access = OPEN4_SHARE_ACCESS_BOTH;
	ck_nfs_ok(cl, e2e_open(cl, f, &rq, &of));
	ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, 0, FILE_SYNC4, "R", 1,
				NULL, NULL, NULL));
	ck_nfs_ok(cl, e2e_open_downgrade(cl, &of, OPEN4_SHARE_ACCESS_READ,
					 OPEN4_SHARE_DENY_NONE, &nsid));
	of.stateid = nsid;
	ck_nfs_status(e2e_write(cl, &of.fh, &nsid, 1, FILE_SYNC4, "X", 1, NULL,
				NULL, NULL),
		      NFS4ERR_OPENMODE);
	e2e_bpread(f, &c, 1, 1);
	ck_assert_int_eq(c, 'e');
	ck_nfs_ok(cl, e2e_close(&of));
	free(owner);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(anonymous_stateid_read)
{
	struct nfs42_client *cl = e2e_client();
	const size_t n = 200000;
	uint8_t *data = e2e_rand_bytes(n, 99), *got = malloc(n);
	char *f = e2e_uniq("anon");
	struct nfs42_fh fh;
	uint32_t r;
	bool eof;

	e2e_put_backing(f, data, n);
	fh = e2e_fh(cl, f);
	e2e_read_all(cl, &fh, &e2e_anon_stateid, 0, got, n);
	ck_assert(memcmp(got, data, n) == 0);
	ck_nfs_ok(cl, e2e_read(cl, &fh, &e2e_anon_stateid, n - 10, 100, got,
			       100, &r, &eof));
	ck_assert_uint_eq(r, 10);
	ck_assert(eof);
	ck_assert_mem_eq(got, data + n - 10, 10);
	/* a READ on a directory is ISDIR */
	{
		struct nfs42_fh root = e2e_fh(cl, "");

		ck_nfs_status(e2e_read(cl, &root, &e2e_anon_stateid, 0, 10, got,
				       10, &r, &eof),
			      NFS4ERR_ISDIR);
	}
	free(data);
	free(got);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

static int lock_new(struct nfs42_client *cl, struct nfs42_file *f,
		    uint32_t type, uint64_t off, uint64_t len,
		    const char *owner, struct nfs42_stateid *lsid,
		    struct nfs42_lock_denied *den)
{
	struct nfs42_lock_owner lo = { .owner = owner,
				       .owner_len = strlen(owner) };
	struct nfs42_compound *c = e2e_cpd(cl, &f->fh);
	const struct nfs42_res *r;
	int rc, i;

	i = nfs42_op_lock_new(c, type, false, off, len, 0, &f->stateid, 0, &lo);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, i);
	if (!rc && lsid)
		*lsid = r->u.lock.stateid;
	if (rc == NFS4ERR_DENIED && den) {
		ck_assert_ptr_nonnull(r->u.lock.denied);
		*den = *r->u.lock.denied;
	}
	nfs42_compound_free(c);
	return rc;
}

static int lockt(struct nfs42_client *cl, const struct nfs42_fh *fh,
		 uint32_t type, uint64_t off, uint64_t len, const char *owner,
		 struct nfs42_lock_denied *den)
{
	struct nfs42_lock_owner lo = { .owner = owner,
				       .owner_len = strlen(owner) };
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	const struct nfs42_res *r;
	int rc, i;

	i = nfs42_op_lockt(c, type, off, len, &lo);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, i);
	if (rc == NFS4ERR_DENIED && den) {
		ck_assert_ptr_nonnull(r->u.lock.denied);
		*den = *r->u.lock.denied;
	}
	nfs42_compound_free(c);
	return rc;
}

static int locku(struct nfs42_client *cl, const struct nfs42_fh *fh,
		 struct nfs42_stateid *lsid, uint64_t off, uint64_t len)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	int i;

	i = nfs42_op_locku(c, WRITE_LT, 0, lsid, off, len);
	return e2e_cpd_run_sid(c, i, lsid);
}

START_TEST(byte_range_locks_two_clients)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	char *f = e2e_uniq("locks");
	struct nfs42_file fa, fb;
	struct nfs42_stateid la, lb;
	struct nfs42_lock_denied den;

	e2e_put_backing(f, "0123456789abcdef", 16);
	fa = e2e_open_rw(a, f);
	fb = e2e_open_rw(b, f);
	ck_nfs_ok(a, lock_new(a, &fa, WRITE_LT, 100, 50, "owner-A", &la, NULL));
	/* B's overlapping lock: DENIED with A's range, type and owner */
	memset(&den, 0, sizeof(den));
	ck_nfs_status(lock_new(b, &fb, WRITE_LT, 120, 100, "owner-B", &lb,
			       &den),
		      NFS4ERR_DENIED);
	ck_assert_uint_eq(den.offset, 100);
	ck_assert_uint_eq(den.length, 50);
	ck_assert_uint_eq(den.locktype, WRITE_LT);
	ck_assert_uint_eq(den.owner_len, 7);
	ck_assert_mem_eq(den.owner, "owner-A", 7);
	ck_assert_uint_eq(den.clientid, nfs42_clientid(a));
	/* a read lock also conflicts with a write lock */
	ck_nfs_status(lock_new(b, &fb, READ_LT, 149, 1, "owner-B", &lb, NULL),
		      NFS4ERR_DENIED);
	/* LOCKT from B reports the same conflict */
	memset(&den, 0, sizeof(den));
	ck_nfs_status(lockt(b, &fb.fh, READ_LT, 0, NFS42_LENGTH_EOF, "owner-B",
			    &den),
		      NFS4ERR_DENIED);
	ck_assert_uint_eq(den.offset, 100);
	ck_assert_uint_eq(den.length, 50);
	ck_assert_uint_eq(den.clientid, nfs42_clientid(a));
	/* adjacent ranges do not conflict */
	ck_nfs_ok(b, lockt(b, &fb.fh, WRITE_LT, 150, 10, "owner-B", NULL));
	ck_nfs_ok(b, lockt(b, &fb.fh, WRITE_LT, 0, 100, "owner-B", NULL));
	/* RFC 8881 18.10.4: a zero length is INVAL */
	ck_nfs_status(lockt(b, &fb.fh, WRITE_LT, 0, 0, "owner-B", NULL),
		      NFS4ERR_INVAL);
	/* A unlocks; B gets its lock */
	ck_nfs_ok(a, locku(a, &fa.fh, &la, 100, 50));
	ck_nfs_ok(b, lockt(b, &fb.fh, WRITE_LT, 0, NFS42_LENGTH_EOF, "owner-B",
			   NULL));
	ck_nfs_ok(b,
		  lock_new(b, &fb, WRITE_LT, 120, 100, "owner-B", &lb, NULL));
	/* now A is the one denied, with B's range */
	memset(&den, 0, sizeof(den));
	ck_nfs_status(lockt(a, &fa.fh, WRITE_LT, 0, NFS42_LENGTH_EOF, "owner-A",
			    &den),
		      NFS4ERR_DENIED);
	ck_assert_uint_eq(den.offset, 120);
	ck_assert_uint_eq(den.length, 100);
	ck_assert_uint_eq(den.clientid, nfs42_clientid(b));
	/* B's lock stateid is not A's to unlock */
	ck_nfs_status(locku(a, &fa.fh, &(struct nfs42_stateid){ 0 }, 120, 100),
		      NFS4ERR_BAD_STATEID);
	/*
	 * CLOSE with a lock held: RFC 8881 18.2.4 lets the server refuse
	 * (NFS4ERR_LOCKS_HELD, lock kept) or release the locks with the
	 * open.  Whichever it says must be what happened.
	 */
	{
		int rc = e2e_close(&fb);

		if (rc == NFS4ERR_LOCKS_HELD) {
			ck_nfs_status(lockt(a, &fa.fh, WRITE_LT, 120, 1,
					    "owner-A", NULL),
				      NFS4ERR_DENIED);
			ck_nfs_ok(b, locku(b, &fb.fh, &lb, 120, 100));
			ck_nfs_ok(b, e2e_close(&fb));
		} else {
			ck_nfs_ok(b, rc);
		}
		ck_nfs_ok(a, lockt(a, &fa.fh, WRITE_LT, 0, NFS42_LENGTH_EOF,
				   "owner-A", NULL));
		ck_nfs_ok(a, lock_new(a, &fa, WRITE_LT, 0, NFS42_LENGTH_EOF,
				      "owner-A2", &la, NULL));
	}
	ck_nfs_ok(a, e2e_close(&fa));
	free(f);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

START_TEST(commit_after_unstable)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("commit");
	uint8_t *data = e2e_rand_bytes(300000, 5), *back = malloc(300000);
	uint8_t wv[8], cv[8];
	struct nfs42_compound *c;
	struct nfs42_file of;
	struct e2e_sync *w;
	uint32_t cnt, how;
	int i;

	of = e2e_create_rw(cl, f);
	ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, 0, UNSTABLE4, data,
				65536, &cnt, &how, wv));
	ck_assert_uint_eq(cnt, 65536);
	ck_nfs_ok(cl, nfs42_pwrite(&of, data + 65536, 300000 - 65536, 65536,
				   UNSTABLE4));
	c = e2e_cpd(cl, &of.fh);
	i = nfs42_op_commit(c, 0, 0);
	w = e2e_sync_start();
	ck_nfs_ok(cl, nfs42_compound_run(c));
	e2e_sync_stop(w);
	/* RFC 8881 18.3.3: the data is stable when COMMIT replies: the
	 * file was synced between the request and the reply
	 */
	e2e_sync_assert(w, f);
	e2e_sync_free(w);
	memcpy(cv, nfs42_res(c, i)->u.commit.verf, 8);
	nfs42_compound_free(c);
	/* RFC 8881 18.3.3: the same verifier as the WRITEs, server alive */
	ck_assert_mem_eq(cv, wv, 8);
	e2e_bpread(f, back, 300000, 0);
	ck_assert(memcmp(back, data, 300000) == 0);
	/* a ranged COMMIT works too */
	c = e2e_cpd(cl, &of.fh);
	nfs42_op_commit(c, 4096, 8192);
	ck_nfs_ok(cl, e2e_cpd_run(c));
	ck_nfs_ok(cl, e2e_close(&of));
	/* COMMIT on a directory: ISDIR */
	{
		struct nfs42_fh root = e2e_fh(cl, "");

		c = e2e_cpd(cl, &root);
		nfs42_op_commit(c, 0, 0);
		ck_nfs_status(e2e_cpd_run(c), NFS4ERR_ISDIR);
	}
	free(data);
	free(back);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(open_errors)
{
	struct nfs42_client *cl = e2e_client();
	char *d = e2e_uniq("odir"), *f = e2e_uniq("ofile");
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_READ,
				   .createmode = NFS42_NOCREATE };
	struct nfs42_file of;
	char *bp;

	e2e_bmkdir(d, 0755);
	/* RFC 8881 18.16.3: OPEN of a directory: ISDIR; of a symlink:
	 * SYMLINK; of a missing name without create: NOENT */
	ck_nfs_status(e2e_open(cl, d, &rq, &of), NFS4ERR_ISDIR);
	bp = e2e_backing(f);
	ck_assert_int_eq(symlink("elsewhere", bp), 0);
	free(bp);
	ck_nfs_status(e2e_open(cl, f, &rq, &of), NFS4ERR_SYMLINK);
	ck_nfs_status(e2e_open(cl, "no-such-file-for-open", &rq, &of),
		      NFS4ERR_NOENT);
	/* access 0 is INVAL */
	free(f);
	f = e2e_uniq("ofile2");
	e2e_put_backing(f, "x", 1);
	rq.access = 0;
	ck_nfs_status(e2e_open(cl, f, &rq, &of), NFS4ERR_INVAL);
	free(d);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

/* ---- From the code review (was e2e_review_shares) ---- */

/*
 * From the code review: share reservations: an open owner's own access and
 * deny bits must not conflict with a change of its own open (OPEN upgrade,
 * OPEN_DOWNGRADE), and the counters must stay right afterwards so other
 * clients see exactly the remaining reservation.  Oracle: RFC 8881 9.7
 * (share reservations conflict between open owners) and 18.16.3 (an OPEN
 * by the same owner upgrades the existing open).
 */

static int open_as(struct nfs42_client *cl, const char *f, const char *owner,
		   uint32_t access, uint32_t deny, struct nfs42_file *of)
{
	struct e2e_open_req rq = { .access = access,
				   .deny = deny,
				   .createmode = NFS42_NOCREATE,
				   .owner = owner };

	return e2e_open(cl, f, &rq, of);
}

/* Another client opens f (a fresh owner) with access/deny: want is the
 * status, and an open that succeeds is closed again. */
static void other_open(struct nfs42_client *other, const char *f,
		       uint32_t access, uint32_t deny, int want)
{
	struct nfs42_file o2;
	int rc = open_as(other, f, NULL, access, deny, &o2);

	ck_assert_msg(rc == want,
		      "other OPEN access %u deny %u: got %s (%d), want %s",
		      access, deny, nfs42_strerror(rc), rc,
		      nfs42_strerror(want));
	if (!rc)
		ck_nfs_ok(other, e2e_close(&o2));
}

/* READ/deny WRITE, then the same owner asks for WRITE too. */
START_TEST(upgrade_keeps_own_deny_write)
{
	struct nfs42_client *cl = e2e_client(), *other = e2e_client();
	char *f = e2e_uniq("upw"), *owner = e2e_uniq("upw-owner");
	struct nfs42_file of;

	e2e_put_backing(f, "upgrade", 7);
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_READ,
			      OPEN4_SHARE_DENY_WRITE, &of));
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_BOTH,
			      OPEN4_SHARE_DENY_WRITE, &of));
	ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, 0, FILE_SYNC4, "UP", 2,
				NULL, NULL, NULL));
	/* the deny still holds for everybody else */
	other_open(other, f, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE,
		   NFS4ERR_SHARE_DENIED);
	ck_nfs_ok(cl, e2e_close(&of));
	other_open(other, f, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_BOTH,
		   NFS4_OK);
	nfs42_client_free(cl);
	nfs42_client_free(other);
}
END_TEST

/* READ/deny NONE, then the same owner adds deny READ. */
START_TEST(upgrade_adds_deny_read)
{
	struct nfs42_client *cl = e2e_client(), *other = e2e_client();
	char *f = e2e_uniq("upr"), *owner = e2e_uniq("upr-owner");
	struct nfs42_file of;

	e2e_put_backing(f, "upgrade", 7);
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_READ,
			      OPEN4_SHARE_DENY_NONE, &of));
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_READ,
			      OPEN4_SHARE_DENY_READ, &of));
	other_open(other, f, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE,
		   NFS4ERR_SHARE_DENIED);
	ck_nfs_ok(cl, e2e_close(&of));
	other_open(other, f, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE,
		   NFS4_OK);
	nfs42_client_free(cl);
	nfs42_client_free(other);
}
END_TEST

/* BOTH/deny BOTH downgraded to READ/deny NONE, then reads still work. */
START_TEST(downgrade_from_deny_both)
{
	struct nfs42_client *cl = e2e_client(), *other = e2e_client();
	char *f = e2e_uniq("dgb"), *owner = e2e_uniq("dgb-owner");
	struct nfs42_file of;
	char buf[16];
	uint32_t n;
	bool eof;

	e2e_put_backing(f, "deny both", 9);
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_READ,
			      OPEN4_SHARE_DENY_NONE, &of));
	ck_nfs_ok(cl, open_as(cl, f, owner, OPEN4_SHARE_ACCESS_BOTH,
			      OPEN4_SHARE_DENY_BOTH, &of));
	other_open(other, f, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE,
		   NFS4ERR_SHARE_DENIED);
	ck_nfs_ok(cl, e2e_open_downgrade(cl, &of, OPEN4_SHARE_ACCESS_READ,
					 OPEN4_SHARE_DENY_NONE, &of.stateid));
	ck_nfs_ok(cl, e2e_read(cl, &of.fh, &of.stateid, 0, 9, buf, sizeof(buf),
			       &n, &eof));
	ck_assert_uint_eq(n, 9);
	/* only our READ remains: a writer may come, a deny READ may not */
	other_open(other, f, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE,
		   NFS4_OK);
	other_open(other, f, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_READ,
		   NFS4ERR_SHARE_DENIED);
	ck_nfs_ok(cl, e2e_close(&of));
	nfs42_client_free(cl);
	nfs42_client_free(other);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_fsal_open");
	TCase *tc = tcase_create("open");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, unchecked_keeps_existing);
	tcase_add_test(tc, guarded_exist);
	tcase_add_test(tc, exclusive4_1_replay);
	tcase_add_test(tc, exclusive4_replay_then_setattr);
	tcase_add_test(tc, share_reservations);
	tcase_add_test(tc, open_downgrade_and_stateids);
	tcase_add_test(tc, write_needs_write_access);
	tcase_add_test(tc, anonymous_stateid_read);
	tcase_add_test(tc, byte_range_locks_two_clients);
	tcase_add_test(tc, commit_after_unstable);
	tcase_add_test(tc, open_errors);
	tcase_add_test(tc, upgrade_keeps_own_deny_write);
	tcase_add_test(tc, upgrade_adds_deny_read);
	tcase_add_test(tc, downgrade_from_deny_both);
	suite_add_tcase(s, tc);
	e2e_sync_init();
	return e2e_run(s);
}
