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
 * Sessions (NFSv4.1/4.2).  Files are made over NFS by a client of their
 * own that wants no delegation, so the test runs against any server
 * (NFS42_HOST/NFS42_PORT/NFS42_EXPORT).
 */
#include <errno.h>
#include <stdarg.h>

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
	K_COUNT
};

static const char *const kind_name[K_COUNT] = {
	"open_r",  "open_w",   "open_rw",   "lock",    "deleg_r",
	"deleg_w", "anon",     "bypass",    "current", "old",
	"closed",  "other_cl", "other_file"
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
	O_COUNT
};

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
					      "OPEN_DELEG_CUR_FH" };

static struct nfs42_client *cl_a, *cl_b, *cl_maker;
static int seq;

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
	case K_ANON:
		break;
	case K_BYPASS:
		sid->seqid = 0xffffffff;
		memset(sid->other, 0xff, sizeof(sid->other));
		break;
	case K_CURRENT:
		sid->seqid = 1; /* no operation before set one */
		break;
	case K_COUNT:
		break;
	}
	ck_nfs_ok(cl_a, nfs42_lookup_path(cl_a, e2e_path(name), fh, NULL));
	return NULL;
}

/* PUTFH + the operation with sid on fh (from a fresh file's kind); the
 * status, for TEST_STATEID the stateid's. */
static int run_op(enum op op, const struct nfs42_fh *fh,
		  const struct nfs42_stateid *sid)
{
	static const struct nfs42_stateid anon;
	struct nfs42_lock_owner lo = { 0, lock_owner(), 0 };
	struct nfs42_open_args oa;
	struct nfs42_fh other;
	struct nfs42_compound *c;
	struct nfs42_sattr sa;
	uint32_t st;
	int rc;

	lo.owner_len = strlen(lo.owner);
	if (op == O_TEST_STATEID) {
		rc = nfs42_test_stateid(cl_a, sid, &st);
		return rc ? rc : (int)st;
	}
	if (op == O_COPY_SRC || op == O_COPY_DST)
		ck_nfs_ok(cl_a,
			  nfs42_lookup_path(cl_a, e2e_path(new_file("copy")),
					    &other, NULL));
	c = nfs42_compound_new(cl_a);
	ck_assert_ptr_nonnull(c);
	nfs42_compound_no_retry(c);
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
		/* SAVED_FH the source (fh), CURRENT_FH a fresh file */
		nfs42_op_savefh(c);
		nfs42_op_putfh(c, &other);
		nfs42_op_copy(c, sid, &anon, 0, 0, 4, false, true);
		break;
	case O_COPY_DST:
		nfs42_op_putfh(c, &other);
		nfs42_op_savefh(c);
		nfs42_op_putfh(c, fh);
		nfs42_op_copy(c, &anon, sid, 0, 0, 4, false, true);
		break;
	case O_LOCK_NEW:
		nfs42_op_lock_new(c, WRITE_LT, false, 4, 1, 0, sid, 0, &lo);
		break;
	case O_LOCK_EXISTING:
		nfs42_op_lock_existing(c, WRITE_LT, false, 4, 1, sid, 0);
		break;
	case O_LOCKU:
		nfs42_op_locku(c, WRITE_LT, 0, sid, 0, 2);
		break;
	case O_OPEN_DOWNGRADE:
		nfs42_op_open_downgrade(c, sid, 0, OPEN4_SHARE_ACCESS_READ,
					OPEN4_SHARE_DENY_NONE);
		break;
	case O_CLOSE:
		nfs42_op_close(c, 0, sid);
		break;
	case O_DELEGRETURN:
		nfs42_op_delegreturn(c, sid);
		break;
	case O_FREE_STATEID:
		nfs42_op_free_stateid(c, sid);
		break;
	case O_OPEN_DELEG_CUR_FH:
		memset(&oa, 0, sizeof(oa));
		oa.share_access = OPEN4_SHARE_ACCESS_READ;
		oa.owner = "matrix-claim";
		oa.owner_len = 12;
		oa.createmode = NFS42_NOCREATE;
		oa.claim = CLAIM_DELEG_CUR_FH;
		oa.deleg_stateid = sid;
		nfs42_op_open(c, &oa);
		break;
	case O_TEST_STATEID:
	case O_COUNT:
		break;
	}
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/* "BAD_STATEID" for NFS4ERR_BAD_STATEID, "OK" for NFS4_OK */
static const char *short_status(int st)
{
	const char *s = nfs42_strerror(st);

	if (st == 0)
		return "OK";
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

START_TEST(t_matrix)
{
	static char got[O_COUNT][K_COUNT][32];
	const char *table = getenv("STATEID_MATRIX");
	const char *out = getenv("STATEID_MATRIX_OUT");
	const char *row = getenv("STATEID_MATRIX_ROW");
	unsigned int o, k, wrong = 0;

	if (table == NULL)
		table = STATEID_MATRIX_DEFAULT;
	load_expected(table);
	cl_maker = e2e_client();
	for (o = 0; o < O_COUNT; o++) {
		for (k = 0; k < K_COUNT; k++) {
			struct nfs42_stateid sid;
			const char *none;
			struct nfs42_fh fh;
			int st = 0;

			/* STATEID_MATRIX_ROW: that row alone (debugging) */
			if (row != NULL && strcmp(row, op_name[o]) != 0) {
				snprintf(got[o][k], sizeof(got[o][k]), "%s",
					 expected[o][k]);
				continue;
			}

			/* clients of the cell's own: what another cell's
			 * recalls do to a client's delegations stays there
			 */
			cl_a = e2e_client();
			cl_b = k == K_OTHER_CLIENT ? e2e_client() : NULL;
			none = make_kind(k, new_file(kind_name[k]), &fh, &sid);
			if (none == NULL)
				st = run_op(o, &fh, &sid);
			if (cl_b != NULL)
				nfs42_client_free(cl_b);
			nfs42_client_free(cl_a);
			snprintf(got[o][k], sizeof(got[o][k]), "%s",
				 none != NULL ? none : short_status(st));
			if (strcmp(got[o][k], expected[o][k]) != 0) {
				fprintf(stderr, "%s with %s: %s, not %s\n",
					op_name[o], kind_name[k], got[o][k],
					expected[o][k]);
				wrong++;
			}
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
	nfs42_client_free(cl_maker);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_proto_stateid_matrix");
	TCase *tc = tcase_create("matrix");

	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, t_matrix);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
