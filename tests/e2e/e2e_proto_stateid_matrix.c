/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * What a stateid authorizes, operation by operation (issue #32): every
 * cell of docs/stateids.md's matrix, driven from the table
 * tests/e2e/stateid_matrix.txt (rows: operations taking a stateid;
 * columns: the kinds of stateid).  Each cell gets a file of its own and
 * the states its kind needs, then one compound, PUTFH + the operation
 * with that stateid, and its status is compared with the table's.  A
 * changed answer fails the test, which prints the whole table as it
 * found it (STATEID_MATRIX_OUT: also written to that file; the knfsd
 * column of the doc is that output from a run against knfsd).
 *
 * Sessions (NFSv4.1/4.2), and the rows V40_*: NFSv4.0 (SETCLIENTID with
 * a callback service of the test's that answers CB_NULL, so the server
 * may grant delegations; OPEN_CONFIRM; the owners' seqids).  Files are
 * made over NFS by a client of their own that wants no delegation, so
 * the test runs against any server (NFS42_HOST/NFS42_PORT/NFS42_EXPORT).
 *
 * The revoked column is one read delegation per minor version (a session
 * client's and an NFSv4.0 client's), revoked once per run while the other
 * cells run: its holder does not return it when another client's OPEN for
 * writing recalls it, until the server revokes it, a lease period or so
 * later.  Its stateid then goes through every row, its holder's
 * DELEGRETURN and FREE_STATEID last (they may free it).
 */
#include <errno.h>
#include <stdarg.h>

#include "e2e_v40_util.h"
#include "nfs42_e2e.h"

enum kind {
	K_OPEN_R,
	K_OPEN_W,
	K_OPEN_RW,
	K_LOCK,
	K_DELEG_R,
	K_DELEG_W,
	K_ANON,
	K_BYPASS,
	K_CURRENT,
	K_OLD,
	K_CLOSED,
	K_OTHER_CLIENT,
	K_OTHER_FILE,
	K_LAYOUT,
	K_OPEN_W_DR, /* open_w, another client's open denying reads */
	K_REVOKED, /* a read delegation the server revoked */
	K_COUNT
};

static const char *const kind_name[K_COUNT] = {
	"open_r",     "open_w", "open_rw",   "lock",   "deleg_r", "deleg_w",
	"anon",	      "bypass", "current",   "old",    "closed",  "other_cl",
	"other_file", "layout", "open_w_dr", "revoked"
};

enum op {
	O_READ,
	O_WRITE,
	O_SETATTR_SIZE,
	O_SETATTR_MODE,
	O_READ_PLUS,
	O_SEEK,
	O_ALLOCATE,
	O_DEALLOCATE,
	O_COPY_SRC,
	O_COPY_DST,
	O_LOCK_NEW,
	O_LOCK_EXISTING,
	O_LOCKU,
	O_OPEN_DOWNGRADE,
	O_CLOSE,
	O_DELEGRETURN,
	O_TEST_STATEID,
	O_FREE_STATEID,
	O_OPEN_DELEG_CUR_FH,
	O_OPEN_DELEG_CUR,
	O_OPEN_DELEG_PREV,
	O_CLONE_SRC,
	O_CLONE_DST,
	O_OFFLOAD_STATUS,
	O_OFFLOAD_CANCEL,
	O_LAYOUTGET,
	O_LAYOUTRETURN,
	/* a data server's, with the handle of a layout of the cell's client */
	O_DS_READ,
	O_DS_WRITE,
	O_DS_COMMIT,
	/* NFSv4.0 (SETCLIENTID, OPEN_CONFIRM, seqids): from here on */
	O_V40_READ,
	O_V40_WRITE,
	O_V40_SETATTR_SIZE,
	O_V40_LOCK_NEW,
	O_V40_LOCK_EXISTING,
	O_V40_LOCKU,
	O_V40_OPEN_DOWNGRADE,
	O_V40_CLOSE,
	O_V40_DELEGRETURN,
	O_V40_OPEN_DELEG_CUR,
	O_V40_OPEN_DELEG_PREV,
	O_COUNT
};

#define O_V40_FIRST O_V40_READ

static const char *const op_name[O_COUNT] = { "READ",
					      "WRITE",
					      "SETATTR_SIZE",
					      "SETATTR_MODE",
					      "READ_PLUS",
					      "SEEK",
					      "ALLOCATE",
					      "DEALLOCATE",
					      "COPY_SRC",
					      "COPY_DST",
					      "LOCK_NEW",
					      "LOCK_EXISTING",
					      "LOCKU",
					      "OPEN_DOWNGRADE",
					      "CLOSE",
					      "DELEGRETURN",
					      "TEST_STATEID",
					      "FREE_STATEID",
					      "OPEN_DELEG_CUR_FH",
					      "OPEN_DELEG_CUR",
					      "OPEN_DELEG_PREV",
					      "CLONE_SRC",
					      "CLONE_DST",
					      "OFFLOAD_STATUS",
					      "OFFLOAD_CANCEL",
					      "LAYOUTGET",
					      "LAYOUTRETURN",
					      "DS_READ",
					      "DS_WRITE",
					      "DS_COMMIT",
					      "V40_READ",
					      "V40_WRITE",
					      "V40_SETATTR_SIZE",
					      "V40_LOCK_NEW",
					      "V40_LOCK_EXISTING",
					      "V40_LOCKU",
					      "V40_OPEN_DOWNGRADE",
					      "V40_CLOSE",
					      "V40_DELEGRETURN",
					      "V40_OPEN_DELEG_CUR",
					      "V40_OPEN_DELEG_PREV" };

static struct nfs42_client *cl_a, *cl_b, *cl_maker;
static int seq;
/* the cell's layout (K_LAYOUT, the DS_ rows), its open; have_layout */
static struct nfs42_layout cell_lo;
static struct nfs42_file cell_lo_open;
static bool have_layout;

/* A new file of 8 bytes, made by the maker (no delegation, closed). */
static const char *new_file(const char *what)
{
	struct nfs42_file f;
	char *name;

	ck_assert_int_gt(asprintf(&name, "matrix-%s-%d-%d", what, (int)getpid(),
				  ++seq),
			 0);
	e2e_keep(name);
	ck_nfs_ok(cl_maker, nfs42_open(cl_maker, e2e_path(name),
				       OPEN4_SHARE_ACCESS_BOTH |
					       OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
				       UNCHECKED4, 0666, true, &f));
	ck_nfs_ok(cl_maker, nfs42_pwrite(&f, "01234567", 8, 0, FILE_SYNC4));
	ck_nfs_ok(cl_maker, nfs42_close(&f));
	return name;
}

/* A lock owner of its own for each LOCK (one open owner each) */
static const char *lock_owner(void)
{
	char *p;

	ck_assert_int_gt(asprintf(&p, "matrix-lo-%d", ++seq), 0);
	return e2e_keep(p);
}

static void open_file(struct nfs42_client *cl, const char *name,
		      uint32_t access, struct nfs42_file *f)
{
	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), access, NFS42_NOCREATE, 0,
				 false, f));
}

/* A's layout (read and write, the whole file) of name, under an open of
 * its own that wants no delegation (for writing only where another
 * client's open denies reads): false when the server gives none. */
static bool cell_layout(const char *name, uint32_t access)
{
	if (have_layout)
		return true;
	open_file(cl_a, name, access | OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
		  &cell_lo_open);
	have_layout = nfs42_layout_get(&cell_lo_open, LAYOUTIOMODE4_RW,
				       &cell_lo) == 0;
	return have_layout;
}

/* cl (another client) opens name for writing, denying reads to others
 * (OPEN4_SHARE_DENY_READ), wanting no delegation. */
static void open_deny_read(struct nfs42_client *cl, const char *name)
{
	struct nfs42_open_args oa;
	struct nfs42_compound *c;
	struct nfs42_fh dir;

	ck_nfs_ok(cl, nfs42_lookup_path(cl, e2e_path(""), &dir, NULL));
	memset(&oa, 0, sizeof(oa));
	oa.share_access = OPEN4_SHARE_ACCESS_WRITE |
			  OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	oa.share_deny = OPEN4_SHARE_DENY_READ;
	oa.owner = "matrix-deny-read";
	oa.owner_len = strlen(oa.owner);
	oa.createmode = NFS42_NOCREATE;
	oa.claim = CLAIM_NULL;
	oa.name = name;
	c = nfs42_compound_new(cl);
	ck_assert_ptr_nonnull(c);
	nfs42_op_putfh(c, &dir);
	nfs42_op_open(c, &oa);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	nfs42_compound_free(c);
}

/* The cell's file (*fh) and the stateid of kind k on it; NULL, or what
 * the cell is when the server would not make that kind (NO_DELEG). */
static const char *make_kind(enum kind k, const char *name, struct nfs42_fh *fh,
			     struct nfs42_stateid *sid)
{
	struct nfs42_lock_owner lo = { 0, lock_owner(), 0 };
	struct nfs42_open_args oa;
	struct nfs42_compound *c;
	struct nfs42_file f, g;
	int idx;

	lo.owner_len = strlen(lo.owner);
	memset(sid, 0, sizeof(*sid));
	switch (k) {
	case K_OPEN_R:
	case K_DELEG_R:
		open_file(cl_a, name, OPEN4_SHARE_ACCESS_READ, &f);
		if (k == K_DELEG_R) {
			if (f.deleg_type != OPEN_DELEGATE_READ)
				return "NO_DELEG";
			*sid = f.deleg_stateid;
		} else {
			*sid = f.stateid;
		}
		break;
	case K_OPEN_W:
	case K_OPEN_W_DR:
		/* B's open first: A's then gets no write delegation */
		if (k == K_OPEN_W_DR)
			open_deny_read(cl_b, name);
		open_file(cl_a, name, OPEN4_SHARE_ACCESS_WRITE, &f);
		*sid = f.stateid;
		break;
	case K_OPEN_RW:
	case K_DELEG_W:
	case K_CLOSED:
		open_file(cl_a, name, OPEN4_SHARE_ACCESS_BOTH, &f);
		*sid = f.stateid;
		if (k == K_DELEG_W) {
			if (f.deleg_type != OPEN_DELEGATE_WRITE)
				return "NO_DELEG";
			*sid = f.deleg_stateid;
		}
		if (k == K_CLOSED)
			ck_nfs_ok(cl_a, nfs42_close(&f));
		break;
	case K_LOCK:
		/* no delegation: a lock under it is another cell */
		open_file(cl_a, name,
			  OPEN4_SHARE_ACCESS_BOTH |
				  OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
			  &f);
		c = nfs42_compound_new(cl_a);
		nfs42_op_putfh(c, &f.fh);
		idx = nfs42_op_lock_new(c, WRITE_LT, false, 0, 2, 0, &f.stateid,
					0, &lo);
		ck_nfs_ok(cl_a, nfs42_compound_run(c));
		*sid = nfs42_res(c, idx)->u.lock.stateid;
		nfs42_compound_free(c);
		break;
	case K_OLD:
		/* the same owner opens again: the open's seqid goes to 2 */
		open_file(cl_a, name, OPEN4_SHARE_ACCESS_READ, &f);
		memset(&oa, 0, sizeof(oa));
		oa.share_access = OPEN4_SHARE_ACCESS_BOTH |
				  OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
		oa.owner = f.owner;
		oa.owner_len = strlen(f.owner);
		oa.createmode = NFS42_NOCREATE;
		oa.claim = CLAIM_FH;
		c = nfs42_compound_new(cl_a);
		nfs42_op_putfh(c, &f.fh);
		idx = nfs42_op_open(c, &oa);
		ck_nfs_ok(cl_a, nfs42_compound_run(c));
		ck_assert_uint_eq(nfs42_res(c, idx)->u.open.stateid.seqid,
				  f.stateid.seqid + 1);
		nfs42_compound_free(c);
		*sid = f.stateid;
		break;
	case K_OTHER_CLIENT:
		open_file(cl_b, name, OPEN4_SHARE_ACCESS_BOTH, &f);
		*sid = f.stateid;
		break;
	case K_OTHER_FILE:
		open_file(cl_a, new_file("other"), OPEN4_SHARE_ACCESS_BOTH, &g);
		*sid = g.stateid;
		break;
	case K_LAYOUT:
		if (!cell_layout(name, OPEN4_SHARE_ACCESS_BOTH))
			return "NO_LAYOUT";
		*sid = cell_lo.stateid;
		break;
	case K_ANON:
		break;
	case K_BYPASS:
		sid->seqid = 0xffffffff;
		memset(sid->other, 0xff, sizeof(sid->other));
		break;
	case K_CURRENT:
		sid->seqid = 1; /* no operation before set one */
		break;
	case K_REVOKED: /* the run's own (revoked_cell) */
	case K_COUNT:
		break;
	}
	ck_nfs_ok(cl_a, nfs42_lookup_path(cl_a, e2e_path(name), fh, NULL));
	return NULL;
}

/* The data server's op with sid on the data server's handle of A's
 * layout of name (one of its own unless the kind was the layout). */
static int ds_run_op(enum op op, const char *name,
		     const struct nfs42_stateid *sid, uint32_t access)
{
	struct nfs42_stripe_loc loc;
	struct nfs42_compound *c;
	struct nfs42_client *ds;
	int rc;

	if (!cell_layout(name, access))
		return -ENODEV; /* NO_LAYOUT */
	nfs42_layout_locate(&cell_lo, 0, &loc);
	ck_nfs_ok(cl_a, nfs42_ds_client(cl_a, &cell_lo, loc.ds, &ds));
	c = nfs42_compound_new(ds);
	ck_assert_ptr_nonnull(c);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, &cell_lo.fhs[loc.fh]);
	if (op == O_DS_READ)
		nfs42_op_read(c, sid, 0, 4);
	else if (op == O_DS_WRITE)
		nfs42_op_write(c, sid, 0, FILE_SYNC4, "abcd", 4);
	else
		nfs42_op_commit(c, 0, 0); /* no stateid: the handle's */
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/* What differs between the minor versions in an operation's arguments:
 * the owners' seqids (0 over a session), the clientid of new owners (0:
 * the session's), the open owner of an OPEN, the export's directory. */
struct op_ctx {
	uint32_t open_seqid, lock_seqid;
	uint64_t clientid;
	const char *open_owner;
	const struct nfs42_fh *dir;
};

/* Adds the row's operation with sid on fh (the file name) to c, after
 * PUTFH fh; other: a fresh file (COPY, CLONE). */
static void add_op(struct nfs42_compound *c, enum op op, const char *name,
		   const struct nfs42_fh *fh, const struct nfs42_fh *other,
		   const struct nfs42_stateid *sid, const struct op_ctx *x)
{
	static const struct nfs42_stateid anon;
	struct nfs42_lock_owner lo = { x->clientid, lock_owner(), 0 };
	struct nfs42_open_args oa;
	struct nfs42_sattr sa;

	lo.owner_len = strlen(lo.owner);
	memset(&oa, 0, sizeof(oa));
	oa.seqid = x->open_seqid;
	oa.share_access = OPEN4_SHARE_ACCESS_READ;
	oa.owner_clientid = x->clientid;
	oa.owner = x->open_owner;
	oa.owner_len = strlen(x->open_owner);
	oa.createmode = NFS42_NOCREATE;
	oa.name = name;
	oa.deleg_stateid = sid; /* not sent for the _PREV claims */
	nfs42_op_putfh(c, fh);
	switch (op) {
	case O_READ:
		nfs42_op_read(c, sid, 0, 4);
		break;
	case O_WRITE:
		nfs42_op_write(c, sid, 0, FILE_SYNC4, "abcd", 4);
		break;
	case O_SETATTR_SIZE:
		nfs42_sattr_init(&sa);
		nfs42_sattr_size(&sa, 2);
		nfs42_op_setattr(c, sid, &sa);
		break;
	case O_SETATTR_MODE:
		nfs42_sattr_init(&sa);
		nfs42_sattr_mode(&sa, 0644);
		nfs42_op_setattr(c, sid, &sa);
		break;
	case O_READ_PLUS:
		nfs42_op_read_plus(c, sid, 0, 4);
		break;
	case O_SEEK:
		nfs42_op_seek(c, sid, 0, NFS4_CONTENT_DATA);
		break;
	case O_ALLOCATE:
		nfs42_op_allocate(c, sid, 0, 4096);
		break;
	case O_DEALLOCATE:
		nfs42_op_deallocate(c, sid, 0, 2);
		break;
	case O_COPY_SRC:
	case O_CLONE_SRC:
		/* SAVED_FH the source (fh), CURRENT_FH a fresh file */
		nfs42_op_savefh(c);
		nfs42_op_putfh(c, other);
		if (op == O_COPY_SRC)
			nfs42_op_copy(c, sid, &anon, 0, 0, 4, false, true);
		else
			nfs42_op_clone(c, sid, &anon, 0, 0, 0);
		break;
	case O_COPY_DST:
	case O_CLONE_DST:
		nfs42_op_putfh(c, other);
		nfs42_op_savefh(c);
		nfs42_op_putfh(c, fh);
		if (op == O_COPY_DST)
			nfs42_op_copy(c, &anon, sid, 0, 0, 4, false, true);
		else
			nfs42_op_clone(c, &anon, sid, 0, 0, 0);
		break;
	case O_LOCK_NEW:
		nfs42_op_lock_new(c, WRITE_LT, false, 4, 1, x->open_seqid, sid,
				  0, &lo);
		break;
	case O_LOCK_EXISTING:
		nfs42_op_lock_existing(c, WRITE_LT, false, 4, 1, sid,
				       x->lock_seqid);
		break;
	case O_LOCKU:
		nfs42_op_locku(c, WRITE_LT, x->lock_seqid, sid, 0, 2);
		break;
	case O_OPEN_DOWNGRADE:
		nfs42_op_open_downgrade(c, sid, x->open_seqid,
					OPEN4_SHARE_ACCESS_READ,
					OPEN4_SHARE_DENY_NONE);
		break;
	case O_CLOSE:
		nfs42_op_close(c, x->open_seqid, sid);
		break;
	case O_DELEGRETURN:
		nfs42_op_delegreturn(c, sid);
		break;
	case O_FREE_STATEID:
		nfs42_op_free_stateid(c, sid);
		break;
	case O_OPEN_DELEG_CUR_FH:
		oa.claim = CLAIM_DELEG_CUR_FH;
		nfs42_op_open(c, &oa);
		break;
	case O_OPEN_DELEG_CUR:
	case O_OPEN_DELEG_PREV:
		/* by name in the export's directory */
		nfs42_op_putfh(c, x->dir);
		oa.claim = op == O_OPEN_DELEG_CUR ? CLAIM_DELEGATE_CUR :
						    CLAIM_DELEGATE_PREV;
		nfs42_op_open(c, &oa);
		break;
	case O_OFFLOAD_STATUS:
		nfs42_op_offload_status(c, sid);
		break;
	case O_OFFLOAD_CANCEL:
		nfs42_op_offload_cancel(c, sid);
		break;
	case O_LAYOUTGET:
		nfs42_op_layoutget(c, LAYOUT4_NFSV4_1_FILES, LAYOUTIOMODE4_READ,
				   0, UINT64_MAX, 0, sid, 4096);
		break;
	case O_LAYOUTRETURN:
		nfs42_op_layoutreturn(c, false, LAYOUT4_NFSV4_1_FILES,
				      LAYOUTIOMODE4_ANY, LAYOUTRETURN4_FILE, 0,
				      UINT64_MAX, sid);
		break;
	default: /* TEST_STATEID, the data server's and NFSv4.0 rows */
		break;
	}
}

/* PUTFH + the operation with sid on fh (the file name, from a fresh
 * file's kind), over A's session; the status, for TEST_STATEID the
 * stateid's. */
static int run_op(enum op op, const char *name, const struct nfs42_fh *fh,
		  const struct nfs42_stateid *sid, uint32_t layout_access)
{
	struct op_ctx x = { 0, 0, 0, "matrix-claim", NULL };
	struct nfs42_fh other, dir;
	struct nfs42_compound *c;
	uint32_t st;
	int rc;

	if (op == O_DS_READ || op == O_DS_WRITE || op == O_DS_COMMIT)
		return ds_run_op(op, name, sid, layout_access);
	if (op == O_TEST_STATEID) {
		rc = nfs42_test_stateid(cl_a, sid, &st);
		return rc ? rc : (int)st;
	}
	if (op == O_COPY_SRC || op == O_COPY_DST || op == O_CLONE_SRC ||
	    op == O_CLONE_DST)
		ck_nfs_ok(cl_a,
			  nfs42_lookup_path(cl_a, e2e_path(new_file("copy")),
					    &other, NULL));
	ck_nfs_ok(cl_a, nfs42_lookup_path(cl_a, e2e_path(""), &dir, NULL));
	x.dir = &dir;
	c = nfs42_compound_new(cl_a);
	ck_assert_ptr_nonnull(c);
	nfs42_compound_no_retry(c);
	add_op(c, op, name, fh, &other, sid, &x);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/* --------------------------------------------------------- NFSv4.0 */

static struct cb40 cb;
static struct v40 va, vb; /* the cell's client (A) and another (B) */
static struct nfs42_fh v40_dir;
static uint32_t v40_lock_seqid; /* A's lock owner's next */
static const char v40_owner[] = "matrix-v40-oo";

/* A new NFSv4.0 client in *v, its callback service the test's. */
static void v40_client(struct v40 *v)
{
	static int n;
	char owner[64], uaddr[64];
	uint8_t confirm[8];

	int nulls = atomic_load(&cb.nulls), ms;

	v40_dial(v, (uint16_t)atoi(e2e_env("NFS42_PORT")));
	snprintf(owner, sizeof(owner), "matrix-v40-%d-%d", (int)getpid(), ++n);
	snprintf(uaddr, sizeof(uaddr), "127.0.0.1.%u.%u", cb.port >> 8,
		 cb.port & 0xffU);
	v40_setclientid(v, owner, uaddr, confirm);
	ck_nfs_ok(v->cl, v40_confirm(v, confirm));
	/* knfsd probes the callback path after the confirm's reply and
	 * grants no delegation before: its CB_NULL first (5 s at most)
	 */
	for (ms = 0; atomic_load(&cb.nulls) == nulls && ms < 5000; ms += 10)
		usleep(10000);
	v40_export_fh(v, &v40_dir);
}

/* OPEN name with access by v's open owner, confirmed if the server asks:
 * the open stateid in *sid, the delegation (type returned) in *dsid. */
static uint32_t v40_open_file(struct v40 *v, const char *name, uint32_t access,
			      struct nfs42_fh *fh, struct nfs42_stateid *sid,
			      struct nfs42_stateid *dsid)
{
	const struct nfs42_res *r;
	struct nfs42_compound *c;
	uint32_t deleg;
	int oidx;

	c = v40_open_name(v, v40_owner, &v40_dir, name, access, &oidx);
	r = nfs42_res(c, oidx);
	*sid = r->u.open.stateid;
	deleg = r->u.open.deleg_type;
	if (dsid != NULL)
		*dsid = r->u.open.deleg_stateid;
	*fh = nfs42_res(c, oidx + 1)->u.fh;
	if (r->u.open.rflags & OPEN4_RESULT_CONFIRM)
		v40_open_confirm(v, fh, sid);
	nfs42_compound_free(c);
	return deleg;
}

/* The NFSv4.0 cell's file (*fh) and the stateid of kind k on it, A's
 * (va); NULL, or what the cell is when the server would not make it. */
static const char *v40_make_kind(enum kind k, const char *name,
				 struct nfs42_fh *fh, struct nfs42_stateid *sid)
{
	struct nfs42_lock_owner lo = { va.clientid, lock_owner(), 0 };
	struct nfs42_stateid osid, dsid;
	struct nfs42_compound *c;
	struct nfs42_fh ofh;
	uint32_t want, deleg = OPEN_DELEGATE_NONE;
	int idx, tries;

	lo.owner_len = strlen(lo.owner);
	memset(sid, 0, sizeof(*sid));
	v40_lock_seqid = 0;
	switch (k) {
	case K_OPEN_R:
		v40_open_file(&va, name, OPEN4_SHARE_ACCESS_READ, fh, sid,
			      NULL);
		return NULL;
	case K_OPEN_W:
		v40_open_file(&va, name, OPEN4_SHARE_ACCESS_WRITE, fh, sid,
			      NULL);
		return NULL;
	case K_OPEN_RW:
		v40_open_file(&va, name, OPEN4_SHARE_ACCESS_BOTH, fh, sid,
			      NULL);
		return NULL;
	case K_DELEG_R:
	case K_DELEG_W:
		/* a delegation goes to a confirmed owner: its second OPEN */
		want = k == K_DELEG_R ? OPEN4_SHARE_ACCESS_READ :
					OPEN4_SHARE_ACCESS_BOTH;
		v40_open_file(&va, name, want, fh, &osid, NULL);
		/* knfsd: the probe's reply may still be on its way */
		for (tries = 0; tries < 10; tries++) {
			deleg = v40_open_file(&va, name, want, fh, &osid,
					      &dsid);
			if (deleg != OPEN_DELEGATE_NONE)
				break;
			usleep(20000);
		}
		if (deleg !=
		    (k == K_DELEG_R ? OPEN_DELEGATE_READ : OPEN_DELEGATE_WRITE))
			return "NO_DELEG";
		*sid = dsid;
		return NULL;
	case K_LOCK:
		v40_open_file(&va, name, OPEN4_SHARE_ACCESS_BOTH, fh, &osid,
			      NULL);
		c = v40_compound(&va);
		nfs42_op_putfh(c, fh);
		idx = nfs42_op_lock_new(c, WRITE_LT, false, 0, 2, va.seqid++,
					&osid, 0, &lo);
		ck_nfs_ok(va.cl, nfs42_compound_run(c));
		*sid = nfs42_res(c, idx)->u.lock.stateid;
		nfs42_compound_free(c);
		v40_lock_seqid = 1;
		return NULL;
	case K_OLD:
		/* the owner opens again: the open's seqid goes up */
		v40_open_file(&va, name, OPEN4_SHARE_ACCESS_READ, fh, sid,
			      NULL);
		v40_open_file(&va, name, OPEN4_SHARE_ACCESS_BOTH, fh, &osid,
			      NULL);
		ck_assert_uint_gt(osid.seqid, sid->seqid);
		return NULL;
	case K_CLOSED:
		v40_open_file(&va, name, OPEN4_SHARE_ACCESS_BOTH, fh, sid,
			      NULL);
		c = v40_compound(&va);
		nfs42_op_putfh(c, fh);
		nfs42_op_close(c, va.seqid++, sid);
		ck_nfs_ok(va.cl, v40_run_free(c));
		return NULL;
	case K_OTHER_CLIENT:
		v40_client(&vb);
		v40_open_file(&vb, name, OPEN4_SHARE_ACCESS_BOTH, fh, sid,
			      NULL);
		return NULL;
	case K_OPEN_W_DR:
		/* another client's open denying reads, then A's */
		cl_b = e2e_client();
		open_deny_read(cl_b, name);
		v40_open_file(&va, name, OPEN4_SHARE_ACCESS_WRITE, fh, sid,
			      NULL);
		return NULL;
	case K_OTHER_FILE:
		v40_open_file(&va, new_file("other"), OPEN4_SHARE_ACCESS_BOTH,
			      &ofh, sid, NULL);
		break;
	case K_BYPASS:
		sid->seqid = 0xffffffff;
		memset(sid->other, 0xff, sizeof(sid->other));
		break;
	case K_CURRENT:
		sid->seqid = 1; /* NFSv4.1's current stateid: not in 4.0 */
		break;
	case K_LAYOUT:
		return "NO_LAYOUT"; /* pNFS is NFSv4.1's */
	default: /* K_ANON */
		break;
	}
	/* the cell's file, A holding nothing on it */
	c = v40_compound(&va);
	nfs42_op_putfh(c, &v40_dir);
	nfs42_op_lookup(c, name);
	idx = nfs42_op_getfh(c);
	ck_nfs_ok(va.cl, nfs42_compound_run(c));
	*fh = nfs42_res(c, idx)->u.fh;
	nfs42_compound_free(c);
	return NULL;
}

/* The NFSv4.1 row an NFSv4.0 row is the same operation as */
static const enum op v40_base[O_COUNT - O_V40_FIRST] = {
	O_READ,		 O_WRITE,	   O_SETATTR_SIZE,   O_LOCK_NEW,
	O_LOCK_EXISTING, O_LOCKU,	   O_OPEN_DOWNGRADE, O_CLOSE,
	O_DELEGRETURN,	 O_OPEN_DELEG_CUR, O_OPEN_DELEG_PREV
};

/* PUTFH + the NFSv4.0 operation with sid on fh (name), by A with its
 * owners' next seqids, an OPEN by open_owner: the status. */
static int v40_run_op(enum op op, const char *name, const struct nfs42_fh *fh,
		      const struct nfs42_stateid *sid, const char *open_owner)
{
	struct op_ctx x = { va.seqid, v40_lock_seqid, va.clientid, open_owner,
			    &v40_dir };
	struct nfs42_compound *c = v40_compound(&va);

	add_op(c, v40_base[op - O_V40_FIRST], name, fh, NULL, sid, &x);
	return v40_run_free(c);
}

/* ------------------------------------------ the revoked delegation */

/* A read delegation revoked once per run (K_REVOKED), one for the
 * sessions' rows and one for NFSv4.0's: each holder answers the
 * CB_RECALL that another client's OPEN for writing makes and keeps the
 * delegation until the server revokes it, a lease period or so after
 * the recall; both OPENs wait on threads of their own while the other
 * cells run. */
struct revoked {
	const char *none; /* its cells' answer when nothing was revoked */
	const char *name, *path; /* its file */
	struct nfs42_fh fh;
	struct nfs42_stateid sid; /* the delegation's */
	struct nfs42_client *cl; /* the session holder, kept for the run */
	struct v40 v; /* the NFSv4.0 holder, kept for the run */
	struct nfs42_client *opener; /* the conflicting OPEN's client */
	pthread_t thread;
	atomic_int done; /* the OPEN returned */
	int rc; /* its status */
	int64_t took_ms; /* from its call to its reply */
};

static struct revoked rev41, rev40;
static int64_t rev_renewed_ms;
static int rev40_renew_status;

/* The other client's OPEN for writing: waits (NFS4ERR_DELAY, retried)
 * until the holder returns the delegation or the server revokes it. */
static void *revoke_opener(void *arg)
{
	struct revoked *r = arg;
	struct nfs42_file f;
	int64_t t0 = e2e_now_ms();

	r->rc = nfs42_open(r->opener, r->path,
			   OPEN4_SHARE_ACCESS_WRITE |
				   OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
			   NFS42_NOCREATE, 0, false, &f);
	r->took_ms = e2e_now_ms() - t0;
	if (r->rc == 0)
		r->rc = nfs42_close(&f);
	atomic_store(&r->done, 1);
	return NULL;
}

/* The conflicting OPEN's client: DELAY retried for 3 minutes (knfsd's
 * lease in the guest is 10 s, ours 20 s: revoked well before) */
static void revoke_start(struct revoked *r)
{
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.timeout_ms = 180000;
	ck_assert_int_eq(nfs42_client_create(&o, &r->opener), 0);
	r->path = e2e_path(r->name);
	ck_assert_int_eq(pthread_create(&r->thread, NULL, revoke_opener, r), 0);
}

/* The run's long-lived clients' leases renewed (every 2 s at most)
 * while the revocations are waited for: SEQUENCE, RENEW. */
static void revoked_renew(void)
{
	struct nfs42_compound *c;
	struct nfs42_xdr x;
	uint32_t flags;
	int st;

	if (e2e_now_ms() - rev_renewed_ms < 2000)
		return;
	rev_renewed_ms = e2e_now_ms();
	(void)nfs42_seq_status_flags(cl_maker, &flags);
	if (rev41.cl != NULL)
		(void)nfs42_seq_status_flags(rev41.cl, &flags);
	if (rev40.v.cl != NULL) {
		c = v40_compound(&rev40.v);
		nfs42_xdr_enc_init(&x);
		nfs42_xdr_put_u32(&x, OP_RENEW);
		nfs42_xdr_put_u64(&x, rev40.v.clientid);
		nfs42_op_raw(c, OP_RENEW, x.buf, x.len);
		nfs42_xdr_free(&x);
		st = v40_run_free(c);
		/* CB_PATH_DOWN renews too (RFC 7530 16.28.5) */
		if (st != rev40_renew_status)
			fprintf(stderr, "the NFSv4.0 holder's RENEW: %s\n",
				nfs42_strerror(st));
		rev40_renew_status = st;
	}
}

/* The session holder's read delegation of a new file, and the other
 * client's OPEN under way; the holder answers the recall, keeps the
 * delegation. */
static void revoke41_begin(void)
{
	struct nfs42_file f;
	unsigned int taken = 0;

	rev41.name = new_file("revoked");
	rev41.cl = e2e_client();
	open_file(rev41.cl, rev41.name, OPEN4_SHARE_ACCESS_READ, &f);
	if (f.deleg_type != OPEN_DELEGATE_READ) {
		rev41.none = "NO_DELEG";
		return;
	}
	rev41.fh = f.fh;
	rev41.sid = f.deleg_stateid;
	revoke_start(&rev41);
	ck_nfs_ok(rev41.cl,
		  nfs42_serve_recalls(rev41.cl, 30000, false, NULL, 0, &taken));
	ck_assert_msg(taken == 1, "the holder got %u recalls", taken);
}

/* The NFSv4.0 holder's read delegation (its owner's second OPEN), and
 * the other client's OPEN under way; the test's callback service
 * answers the recall (answer_recalls). */
static void revoke40_begin(void)
{
	struct nfs42_stateid osid;
	uint32_t deleg = OPEN_DELEGATE_NONE;
	int tries;

	rev40.name = new_file("revoked40");
	v40_client(&rev40.v);
	v40_open_file(&rev40.v, rev40.name, OPEN4_SHARE_ACCESS_READ, &rev40.fh,
		      &osid, NULL);
	for (tries = 0; tries < 10 && deleg == OPEN_DELEGATE_NONE; tries++) {
		if (tries)
			usleep(20000);
		deleg = v40_open_file(&rev40.v, rev40.name,
				      OPEN4_SHARE_ACCESS_READ, &rev40.fh, &osid,
				      &rev40.sid);
	}
	if (deleg != OPEN_DELEGATE_READ) {
		rev40.none = "NO_DELEG";
		return;
	}
	revoke_start(&rev40);
}

/* Waits for the OPEN (the holders' leases renewed meanwhile): its cells
 * are NOT_REVOKED if it failed (the delegation was neither revoked nor
 * returned). */
static void revoke_wait(struct revoked *r, const char *what)
{
	if (r->none != NULL)
		return;
	while (!atomic_load(&r->done)) {
		revoked_renew();
		usleep(100000);
	}
	ck_assert_int_eq(pthread_join(r->thread, NULL), 0);
	fprintf(stderr, "%s: the conflicting OPEN took %lld ms: %s\n", what,
		(long long)r->took_ms, nfs42_strerror(r->rc));
	if (r->rc != 0)
		r->none = "NOT_REVOKED";
	nfs42_client_free(r->opener);
}

/* The revoked delegation's cell of row o: its status, or what the cell
 * is when nothing was revoked */
static const char *revoked_cell(enum op o, int *st)
{
	struct revoked *r = o >= O_V40_FIRST ? &rev40 : &rev41;
	char owner[64];

	if (r->none != NULL)
		return r->none;
	if (o >= O_V40_FIRST) {
		/* the holder's owners' seqids stay where its OPENs left
		 * them: the rows' stateid is no open's or lock's, and an
		 * OPEN is by an owner of its own (a new owner's seqid is
		 * any)
		 */
		snprintf(owner, sizeof(owner), "matrix-v40-rev-%d", (int)o);
		va = r->v;
		v40_lock_seqid = 0;
		*st = v40_run_op(o, r->name, &r->fh, &r->sid, owner);
		return NULL;
	}
	cl_a = r->cl;
	cl_b = NULL;
	have_layout = false;
	if (o >= O_DS_READ && o <= O_DS_COMMIT)
		cell_layout(r->name, OPEN4_SHARE_ACCESS_BOTH);
	*st = run_op(o, r->name, &r->fh, &r->sid, OPEN4_SHARE_ACCESS_BOTH);
	return NULL;
}

/* "BAD_STATEID" for NFS4ERR_BAD_STATEID, "OK" for NFS4_OK */
static const char *short_status(int st)
{
	const char *s = nfs42_strerror(st);

	if (st == 0)
		return "OK";
	if (st == -ENODEV)
		return "NO_LAYOUT";
	if (strncmp(s, "NFS4ERR_", 8) == 0)
		return s + 8;
	return s;
}

/* The expected table: expected[op][kind], from the file. */
static char expected[O_COUNT][K_COUNT][32];

static void load_expected(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	unsigned int rows = 0;

	if (f == NULL) {
		/* no table yet: every cell differs, the table found is
		 * printed (and written to STATEID_MATRIX_OUT)
		 */
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		for (rows = 0; rows < O_COUNT * K_COUNT; rows++)
			strcpy(expected[rows / K_COUNT][rows % K_COUNT], "?");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *save, *tok = strtok_r(line, " \t\n", &save);
		unsigned int o, k;

		if (tok == NULL || tok[0] == '#')
			continue;
		for (o = 0; o < O_COUNT; o++)
			if (strcmp(tok, op_name[o]) == 0)
				break;
		ck_assert_msg(o < O_COUNT, "%s: unknown row %s", path, tok);
		for (k = 0; k < K_COUNT; k++) {
			tok = strtok_r(NULL, " \t\n", &save);
			ck_assert_msg(tok != NULL, "%s: row %s is short", path,
				      op_name[o]);
			snprintf(expected[o][k], sizeof(expected[o][k]), "%s",
				 tok);
		}
		rows++;
	}
	fclose(f);
	ck_assert_msg(rows == O_COUNT, "%s: %u rows, not %d", path, rows,
		      O_COUNT);
}

static void print_table(FILE *out, const char (*got)[K_COUNT][32])
{
	unsigned int o, k;

	fprintf(out, "# %-17s", "op");
	for (k = 0; k < K_COUNT; k++)
		fprintf(out, " %s", kind_name[k]);
	fprintf(out, "\n");
	for (o = 0; o < O_COUNT; o++) {
		fprintf(out, "%-19s", op_name[o]);
		for (k = 0; k < K_COUNT; k++)
			fprintf(out, " %s", got[o][k]);
		fprintf(out, "\n");
	}
}

/* One cell: a file, clients and the state of kind k of their own (the
 * revoked delegation's: the run's), then the row's operation; its
 * answer in got. */
static void run_cell(enum op o, enum kind k, char *got)
{
	struct nfs42_stateid sid;
	const char *none, *name;
	struct nfs42_fh fh;
	int st = 0;

	if (k == K_REVOKED) {
		none = revoked_cell(o, &st);
		snprintf(got, 32, "%s", none != NULL ? none : short_status(st));
		return;
	}
	/* clients of the cell's own: what another cell's recalls do to a
	 * client's delegations stays there
	 */
	name = new_file(kind_name[k]);
	have_layout = false;
	cl_b = NULL;
	if (o >= O_V40_FIRST) {
		memset(&vb, 0, sizeof(vb));
		v40_client(&va);
		none = v40_make_kind(k, name, &fh, &sid);
		if (none == NULL)
			st = v40_run_op(o, name, &fh, &sid, v40_owner);
		nfs42_client_free(vb.cl);
		nfs42_client_free(va.cl);
	} else {
		uint32_t lo_access = k == K_OPEN_W_DR ?
					     OPEN4_SHARE_ACCESS_WRITE :
					     OPEN4_SHARE_ACCESS_BOTH;
		bool ds = o >= O_DS_READ && o <= O_DS_COMMIT;

		cl_a = e2e_client();
		if (k == K_OTHER_CLIENT || k == K_OPEN_W_DR)
			cl_b = e2e_client();
		/* a data server's handle: A's layout first (another
		 * client's delegation would be recalled from a client that
		 * never returns); after the kind where another client's
		 * open denies reads (it wants no delegation)
		 */
		if (ds && k != K_OPEN_W_DR)
			cell_layout(name, lo_access);
		none = make_kind(k, name, &fh, &sid);
		if (ds && k == K_OPEN_W_DR)
			cell_layout(name, lo_access);
		if (none == NULL)
			st = run_op(o, name, &fh, &sid, lo_access);
		nfs42_client_free(cl_a);
	}
	if (cl_b != NULL)
		nfs42_client_free(cl_b);
	cl_b = NULL;
	snprintf(got, 32, "%s", none != NULL ? none : short_status(st));
}

/* The revoked delegation's rows that may free it, last, in this order */
static bool revoked_last(enum op o)
{
	return o == O_DELEGRETURN || o == O_V40_DELEGRETURN ||
	       o == O_FREE_STATEID;
}

START_TEST(t_matrix)
{
	static const enum op last[] = { O_DELEGRETURN, O_V40_DELEGRETURN,
					O_FREE_STATEID };
	static char got[O_COUNT][K_COUNT][32];
	const char *table = getenv("STATEID_MATRIX");
	const char *out = getenv("STATEID_MATRIX_OUT");
	const char *row = getenv("STATEID_MATRIX_ROW");
	unsigned int o, k, i, wrong = 0;

	if (table == NULL)
		table = STATEID_MATRIX_DEFAULT;
	load_expected(table);
	cl_maker = e2e_client();
	cb40_start(&cb);
	atomic_store(&cb.answer_recalls, 1);
	/* STATEID_MATRIX_ROW: that row alone (debugging) */
	for (o = 0; o < O_COUNT; o++)
		for (k = 0; k < K_COUNT; k++)
			snprintf(got[o][k], sizeof(got[o][k]), "%s",
				 expected[o][k]);
	/* the revocations run while the other cells do */
	revoke41_begin();
	revoke40_begin();
	for (o = 0; o < O_COUNT; o++) {
		if (row != NULL && strcmp(row, op_name[o]) != 0)
			continue;
		for (k = 0; k < K_COUNT; k++) {
			if (k == K_REVOKED)
				continue;
			run_cell(o, k, got[o][k]);
			revoked_renew();
		}
	}
	revoke_wait(&rev41, "revoked delegation (NFSv4.1)");
	revoke_wait(&rev40, "revoked delegation (NFSv4.0)");
	/* the NFSv4.0 holder answered its recall (not revoked for an
	 * unreachable callback service) */
	ck_assert(rev40.name == NULL || rev40.none != NULL ||
		  atomic_load(&cb.recalls) >= 1);
	for (o = 0; o < O_COUNT; o++)
		if (!revoked_last(o) &&
		    (row == NULL || strcmp(row, op_name[o]) == 0))
			run_cell(o, K_REVOKED, got[o][K_REVOKED]);
	for (i = 0; i < sizeof(last) / sizeof(last[0]); i++)
		if (row == NULL || strcmp(row, op_name[last[i]]) == 0)
			run_cell(last[i], K_REVOKED, got[last[i]][K_REVOKED]);
	for (o = 0; o < O_COUNT; o++) {
		for (k = 0; k < K_COUNT; k++) {
			if (strcmp(got[o][k], expected[o][k]) == 0)
				continue;
			fprintf(stderr, "%s with %s: %s, not %s\n", op_name[o],
				kind_name[k], got[o][k], expected[o][k]);
			wrong++;
		}
	}
	if (out != NULL) {
		FILE *f = fopen(out, "w");

		ck_assert_ptr_nonnull(f);
		print_table(f, got);
		fclose(f);
	}
	if (wrong) {
		fprintf(stderr, "the table as found:\n");
		print_table(stderr, got);
	}
	ck_assert_msg(wrong == 0, "%u cell(s) of %d differ from %s", wrong,
		      O_COUNT * K_COUNT, table);
	cb40_stop(&cb);
	if (rev41.cl != NULL)
		nfs42_client_free(rev41.cl);
	if (rev40.v.cl != NULL)
		nfs42_client_free(rev40.v.cl);
	nfs42_client_free(cl_maker);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_proto_stateid_matrix");
	TCase *tc = tcase_create("matrix");

	tcase_set_timeout(tc, 900); /* the linux lane: TCG */
	tcase_add_test(tc, t_matrix);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
