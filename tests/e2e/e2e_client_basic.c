/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: nfs42c against a live server.  Session life cycle, namespace
 * listing and attributes compared with the backing store, whole-file read
 * and write, errors, locks, SEEK, raw ops, credentials, concurrency.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>

#include "nfs42_e2e.h"

#define SEQ4_STATUS_CB_PATH_DOWN 0x1
#define SEQ4_STATUS_CB_PATH_DOWN_SESSION 0x200

/* The server accepted the back channel of CREATE_SESSION. */
static void back_channel_is_up(struct nfs42_client *cl)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	const struct nfs42_res *seq;

	nfs42_op_putrootfh(c);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	seq = nfs42_compound_seq_res(c);
	ck_assert_ptr_nonnull(seq);
	ck_assert_uint_eq(seq->op, OP_SEQUENCE);
	ck_assert_mem_eq(seq->u.sequence.sessionid, nfs42_sessionid(cl), 16);
	ck_assert_uint_eq(seq->u.sequence.status_flags &
				  (SEQ4_STATUS_CB_PATH_DOWN |
				   SEQ4_STATUS_CB_PATH_DOWN_SESSION),
			  0);
	nfs42_compound_free(c);
}

START_TEST(session_setup_teardown)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();

	ck_assert(nfs42_has_session(a));
	ck_assert_uint_ge(nfs42_slot_count(a), 1);
	ck_assert_uint_gt(nfs42_max_response(a), 8192);
	ck_assert_uint_ne(nfs42_clientid(a), nfs42_clientid(b));
	ck_assert_mem_ne(nfs42_sessionid(a), nfs42_sessionid(b), 16);
	ck_nfs_ok(a, nfs42_null(a));
	ck_nfs_ok(a, nfs42_stat(a, "/", &(struct nfs42_attrs){ 0 }));
	back_channel_is_up(a);
	ck_nfs_ok(a, nfs42_session_destroy(a));
	ck_assert(!nfs42_has_session(a));
	nfs42_client_free(a);
	ck_nfs_ok(b, nfs42_session_destroy(b));
	/* a new session on the same connection */
	ck_nfs_ok(b, nfs42_session_create(b));
	ck_nfs_ok(b, nfs42_stat(b, "/", &(struct nfs42_attrs){ 0 }));
	nfs42_client_free(b);
}
END_TEST

START_TEST(stale_session_is_reported)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_compound *c = nfs42_compound_new(cl);
	uint8_t bogus[16] = "no-such-session!";
	int rc;

	/* SEQUENCE with an unknown session id */
	nfs42_compound_no_sequence(c);
	nfs42_op_sequence(c, bogus, 1, 0, 0, false);
	nfs42_op_putrootfh(c);
	rc = nfs42_compound_run(c);
	ck_assert_int_eq(rc, NFS4ERR_BADSESSION);
	nfs42_compound_free(c);
	/* an op that needs a session, without SEQUENCE */
	c = nfs42_compound_new(cl);
	nfs42_compound_no_sequence(c);
	nfs42_op_putrootfh(c);
	ck_assert_int_eq(nfs42_compound_run(c), NFS4ERR_OP_NOT_IN_SESSION);
	nfs42_compound_free(c);
	nfs42_client_free(cl);
}
END_TEST

struct nameset {
	char *names[4096];
	int n;
};

static int add_name(void *arg, const struct nfs42_dirent *e)
{
	struct nameset *s = arg;

	ck_assert_int_lt(s->n, 4096);
	s->names[s->n++] = strdup(e->name);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void backing_names(const char *dir, struct nameset *s)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		s->names[s->n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(s->names, s->n, sizeof(char *), cmp_str);
}

static void free_names(struct nameset *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->names[i]);
	s->n = 0;
}

START_TEST(ls_root_matches_backing)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_stat();
	static struct nameset got, want;
	char *p, *root = e2e_path("");
	int i;

	e2e_put_backing("ls-a", "a", 1);
	e2e_put_backing("ls-b with space", "bb", 2);
	p = e2e_backing("ls-dir");
	mkdir(p, 0755);
	free(p);
	ck_nfs_ok(cl, nfs42_readdir_path(cl, root, &bm, add_name, &got));
	qsort(got.names, got.n, sizeof(char *), cmp_str);
	backing_names(e2e_env("NFS42_BACKING"), &want);
	ck_assert_int_eq(got.n, want.n);
	for (i = 0; i < got.n; i++)
		ck_assert_str_eq(got.names[i], want.names[i]);
	free_names(&got);
	free_names(&want);
	free(root);
	nfs42_client_free(cl);
}
END_TEST

static void compare_with_lstat(struct nfs42_client *cl, const char *rel)
{
	char *np = e2e_path(rel), *bp = e2e_backing(rel);
	struct nfs42_attrs a;
	struct stat st;

	ck_assert_int_eq(lstat(bp, &st), 0);
	ck_nfs_ok(cl, nfs42_stat(cl, np, &a));
	ck_assert_msg(nfs42_attrs_st_mode(&a) == st.st_mode,
		      "%s: mode %o != %o", rel, nfs42_attrs_st_mode(&a),
		      st.st_mode);
	ck_assert_uint_eq(a.size, (uint64_t)st.st_size);
	ck_assert_uint_eq(a.numlinks, st.st_nlink);
	ck_assert_uint_eq(a.fileid, st.st_ino);
	ck_assert_int_eq(a.time_modify.seconds, st.st_mtim.tv_sec);
	ck_assert_uint_eq(a.time_modify.nseconds, st.st_mtim.tv_nsec);
	ck_assert(nfs42_bm_isset(&a.mask, FATTR4_SPACE_USED));
	free(np);
	free(bp);
}

START_TEST(stat_matches_lstat)
{
	struct nfs42_client *cl = e2e_client();
	char f[64], l[64], s[64], d[64];
	char *p, *q;

	/* fresh names: the server may cache attributes of older files */
	snprintf(f, sizeof(f), "st-file-%d", (int)getpid());
	snprintf(l, sizeof(l), "st-link-%d", (int)getpid());
	snprintf(s, sizeof(s), "st-symlink-%d", (int)getpid());
	snprintf(d, sizeof(d), "st-dir-%d", (int)getpid());
	e2e_put_backing(f, "hello world", 11);
	p = e2e_backing(f);
	chmod(p, 0640);
	q = e2e_backing(l);
	ck_assert_int_eq(link(p, q), 0); /* nlink 2 */
	free(q);
	q = e2e_backing(s);
	ck_assert_int_eq(symlink(f, q), 0);
	free(q);
	q = e2e_backing(d);
	ck_assert_int_eq(mkdir(q, 0711), 0);
	free(q);
	free(p);
	compare_with_lstat(cl, f);
	compare_with_lstat(cl, s);
	compare_with_lstat(cl, d);
	nfs42_client_free(cl);
}
END_TEST

static uint8_t *random_bytes(size_t n)
{
	uint8_t *b = malloc(n);
	unsigned int seed = 12345;

	for (size_t i = 0; i < n; i++)
		b[i] = rand_r(&seed) >> 3;
	return b;
}

START_TEST(cat_10mib_identical)
{
	struct nfs42_client *cl = e2e_client();
	const size_t n = 10u << 20;
	uint8_t *data = random_bytes(n), *back;
	char *np = e2e_path("big-random");
	char tmpl[] = "/tmp/nfs42-e2e-XXXXXX";
	uint64_t total;
	void *buf;
	size_t len;
	int fd;

	e2e_put_backing("big-random", data, n);
	ck_nfs_ok(cl, nfs42_read_file(cl, np, &buf, &len));
	ck_assert_uint_eq(len, n);
	ck_assert(memcmp(buf, data, n) == 0);
	free(buf);
	fd = mkstemp(tmpl);
	ck_assert_int_ge(fd, 0);
	ck_nfs_ok(cl, nfs42_read_file_fd(cl, np, fd, &total));
	ck_assert_uint_eq(total, n);
	back = malloc(n);
	ck_assert_int_eq(pread(fd, back, n, 0), (ssize_t)n);
	ck_assert(memcmp(back, data, n) == 0);
	close(fd);
	unlink(tmpl);
	free(back);
	free(data);
	free(np);
	nfs42_client_free(cl);
}
END_TEST

/* The export works for an NFSv4.1 (minor version 1) client as well. */
START_TEST(nfsv41_client_lists_and_reads)
{
	const size_t n = 1u << 20;
	uint8_t *data = random_bytes(n);
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;
	void *buf;
	size_t len;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.minorversion = 1;
	ck_nfs_ok(cl, nfs42_client_create(&o, &cl));
	e2e_put_backing("v41-file", data, n);
	ck_nfs_ok(cl, nfs42_read_file(cl, e2e_path("v41-file"), &buf, &len));
	ck_assert_uint_eq(len, n);
	ck_assert(memcmp(buf, data, n) == 0);
	free(buf);
	free(data);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(missing_paths)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_attrs a;
	struct nfs42_file f;
	char *p;

	p = e2e_path("no-such-file");
	ck_assert_int_eq(nfs42_stat(cl, p, &a), NFS4ERR_NOENT);
	ck_assert_int_eq(nfs42_open(cl, p, OPEN4_SHARE_ACCESS_READ,
				    NFS42_NOCREATE, 0, false, &f),
			 NFS4ERR_NOENT);
	ck_assert_int_eq(nfs42_remove(cl, p), NFS4ERR_NOENT);
	free(p);
	p = e2e_path("no-such-dir/below");
	ck_assert_int_eq(nfs42_stat(cl, p, &a), NFS4ERR_NOENT);
	free(p);
	e2e_put_backing("plain", "x", 1);
	p = e2e_path("plain/below");
	ck_assert_int_eq(nfs42_stat(cl, p, &a), NFS4ERR_NOTDIR);
	free(p);
	ck_assert_int_eq(nfs42_stat(cl, "/no-such-export", &a), NFS4ERR_NOENT);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(write_and_namespace_ops)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_time t = { .seconds = 1000000000, .nseconds = 500 };
	char *d = e2e_path("ns"), *f = e2e_path("ns/file");
	char *g = e2e_path("ns/renamed"), *l = e2e_path("ns/sym");
	char *h = e2e_path("ns/hard"), *bp;
	struct nfs42_sattr sa;
	struct nfs42_attrs a;
	char target[256];
	struct stat st;

	nfs42_remove(cl, f);
	ck_nfs_ok(cl, nfs42_mkdir(cl, d, 0750));
	ck_assert_int_eq(nfs42_mkdir(cl, d, 0750), NFS4ERR_EXIST);
	ck_nfs_ok(cl, nfs42_write_file(cl, f, "0123456789", 10, 0604));
	bp = e2e_backing("ns/file");
	ck_assert_int_eq(stat(bp, &st), 0);
	ck_assert_uint_eq(st.st_size, 10);
	ck_assert_uint_eq(st.st_mode & 07777, 0604);
	free(bp);
	/* overwrite truncates */
	ck_nfs_ok(cl, nfs42_write_file(cl, f, "abc", 3, 0604));
	ck_nfs_ok(cl, nfs42_stat(cl, f, &a));
	ck_assert_uint_eq(a.size, 3);
	/* setattr: size, mode, mtime */
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 4096);
	nfs42_sattr_mode(&sa, 0600);
	nfs42_sattr_mtime(&sa, &t);
	ck_nfs_ok(cl, nfs42_setattr_path(cl, f, &sa));
	ck_nfs_ok(cl, nfs42_stat(cl, f, &a));
	ck_assert_uint_eq(a.size, 4096);
	ck_assert_uint_eq(a.mode, 0600);
	ck_assert_int_eq(a.time_modify.seconds, t.seconds);
	ck_assert_uint_eq(a.time_modify.nseconds, t.nseconds);
	nfs42_sattr_init(&sa);
	nfs42_sattr_mtime(&sa, NULL); /* server time */
	ck_nfs_ok(cl, nfs42_setattr_path(cl, f, &sa));
	ck_nfs_ok(cl, nfs42_stat(cl, f, &a));
	ck_assert_int_gt(a.time_modify.seconds, t.seconds);
	/* rename, links */
	ck_nfs_ok(cl, nfs42_rename(cl, f, g));
	ck_assert_int_eq(nfs42_stat(cl, f, &a), NFS4ERR_NOENT);
	ck_nfs_ok(cl, nfs42_symlink(cl, "renamed", l));
	ck_nfs_ok(cl, nfs42_readlink(cl, l, target, sizeof(target)));
	ck_assert_str_eq(target, "renamed");
	ck_nfs_ok(cl, nfs42_hardlink(cl, g, h));
	ck_nfs_ok(cl, nfs42_stat(cl, g, &a));
	ck_assert_uint_eq(a.numlinks, 2);
	ck_assert_int_eq(nfs42_remove(cl, d), NFS4ERR_NOTEMPTY);
	ck_nfs_ok(cl, nfs42_remove(cl, l));
	ck_nfs_ok(cl, nfs42_remove(cl, h));
	ck_nfs_ok(cl, nfs42_remove(cl, g));
	ck_nfs_ok(cl, nfs42_remove(cl, d));
	bp = e2e_backing("ns");
	ck_assert_int_eq(stat(bp, &st), -1);
	free(bp);
	free(d);
	free(f);
	free(g);
	free(l);
	free(h);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(special_files)
{
	struct nfs42_client *cl = e2e_client();
	char *fifo = e2e_path("sp-fifo"), *bp = e2e_backing("sp-fifo");
	struct stat st;

	nfs42_remove(cl, fifo);
	ck_nfs_ok(cl, nfs42_mknod(cl, fifo, NF4FIFO, 0644, 0, 0));
	ck_assert_int_eq(lstat(bp, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	compare_with_lstat(cl, "sp-fifo");
	ck_nfs_ok(cl, nfs42_remove(cl, fifo));
	free(fifo);
	free(bp);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(open_read_write_partial)
{
	struct nfs42_client *cl = e2e_client();
	char *p = e2e_path("rw-file");
	struct nfs42_file f;
	char buf[64];
	uint32_t n;
	bool eof;

	nfs42_remove(cl, p);
	ck_nfs_ok(cl, nfs42_open(cl, p, OPEN4_SHARE_ACCESS_BOTH, GUARDED4, 0644,
				 false, &f));
	ck_nfs_ok(cl, nfs42_pwrite(&f, "hello", 5, 0, FILE_SYNC4));
	ck_nfs_ok(cl, nfs42_pwrite(&f, "world", 5, 10, DATA_SYNC4));
	ck_nfs_ok(cl, nfs42_commit(&f));
	ck_nfs_ok(cl, nfs42_pread(&f, buf, sizeof(buf), 0, &n, &eof));
	ck_assert_uint_eq(n, 15);
	ck_assert(eof);
	ck_assert_mem_eq(buf, "hello\0\0\0\0\0world", 15);
	ck_nfs_ok(cl, nfs42_pread(&f, buf, 3, 11, &n, &eof));
	ck_assert_uint_eq(n, 3);
	ck_assert_mem_eq(buf, "orl", 3);
	ck_nfs_ok(cl, nfs42_close(&f));
	/* GUARDED4 on an existing file */
	ck_assert_int_eq(nfs42_open(cl, p, OPEN4_SHARE_ACCESS_READ, GUARDED4,
				    0644, false, &f),
			 NFS4ERR_EXIST);
	/* EXCLUSIVE4_1 on a new name, then open by fh */
	nfs42_remove(cl, p);
	ck_nfs_ok(cl, nfs42_open(cl, p, OPEN4_SHARE_ACCESS_WRITE, EXCLUSIVE4_1,
				 0600, false, &f));
	ck_nfs_ok(cl, nfs42_close(&f));
	ck_nfs_ok(cl, nfs42_open_fh(cl, &f.fh, OPEN4_SHARE_ACCESS_READ, &f));
	ck_nfs_ok(cl, nfs42_close(&f));
	free(p);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(locks)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_lock_owner lo1 = { .owner = "lock-1", .owner_len = 6 };
	struct nfs42_lock_owner lo2 = { .owner = "lock-2", .owner_len = 6 };
	char *p = e2e_path("lock-file");
	const struct nfs42_res *r;
	struct nfs42_compound *c;
	struct nfs42_stateid lsid;
	struct nfs42_file f;
	int idx;

	ck_nfs_ok(cl, nfs42_write_file(cl, p, "0123456789", 10, 0644));
	ck_nfs_ok(cl, nfs42_open(cl, p, OPEN4_SHARE_ACCESS_BOTH, NFS42_NOCREATE,
				 0, false, &f));
	c = nfs42_compound_new(cl);
	nfs42_op_putfh(c, &f.fh);
	idx = nfs42_op_lock_new(c, WRITE_LT, false, 0, 5, 0, &f.stateid, 0,
				&lo1);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	lsid = nfs42_res(c, idx)->u.lock.stateid;
	nfs42_compound_free(c);

	c = nfs42_compound_new(cl);
	nfs42_op_putfh(c, &f.fh);
	idx = nfs42_op_lockt(c, READ_LT, 2, 1, &lo2);
	ck_assert_int_eq(nfs42_compound_run(c), NFS4ERR_DENIED);
	r = nfs42_res(c, idx);
	ck_assert_ptr_nonnull(r->u.lock.denied);
	ck_assert_uint_eq(r->u.lock.denied->offset, 0);
	ck_assert_uint_eq(r->u.lock.denied->length, 5);
	ck_assert_uint_eq(r->u.lock.denied->owner_len, 6);
	nfs42_compound_free(c);

	c = nfs42_compound_new(cl);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_lockt(c, WRITE_LT, 5, 5, &lo2); /* no overlap */
	ck_nfs_ok(cl, nfs42_compound_run(c));
	nfs42_compound_free(c);

	c = nfs42_compound_new(cl);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_locku(c, WRITE_LT, 0, &lsid, 0, 5);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	nfs42_compound_free(c);

	c = nfs42_compound_new(cl);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_lockt(c, WRITE_LT, 0, NFS42_LENGTH_EOF, &lo2);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	nfs42_compound_free(c);
	ck_nfs_ok(cl, nfs42_close(&f));
	free(p);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(seek_data_and_hole)
{
	struct nfs42_client *cl = e2e_client();
	char *p = e2e_path("sparse-seek"), *bp = e2e_backing("sparse-seek");
	struct nfs42_file f;
	uint64_t off;
	bool eof;
	int fd;

	fd = open(bp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, "data", 4, 1 << 20), 4);
	ck_assert_int_eq(ftruncate(fd, 4 << 20), 0);
	close(fd);
	ck_nfs_ok(cl, nfs42_open(cl, p, OPEN4_SHARE_ACCESS_READ, NFS42_NOCREATE,
				 0, false, &f));
	ck_nfs_ok(cl, nfs42_seek(&f, 0, NFS4_CONTENT_DATA, &off, &eof));
	ck_assert_uint_le(off, 1 << 20);
	ck_assert_uint_gt(off + 65536, 1 << 20);
	ck_nfs_ok(cl, nfs42_seek(&f, 1 << 20, NFS4_CONTENT_HOLE, &off, &eof));
	ck_assert_uint_gt(off, 1 << 20);
	ck_assert_uint_le(off, 4 << 20);
	ck_assert_int_eq(nfs42_seek(&f, 5 << 20, NFS4_CONTENT_DATA, &off, &eof),
			 NFS4ERR_NXIO);
	ck_nfs_ok(cl, nfs42_close(&f));
	free(p);
	free(bp);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(raw_ops)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_compound *c = nfs42_compound_new(cl);
	uint8_t putroot[4] = { 0, 0, 0, OP_PUTROOTFH };
	uint8_t bogus[8] = { 0, 0, 0x27, 0x0f, 1, 2, 3, 4 }; /* op 9999 */
	uint8_t lookup_trunc[8] = { 0, 0, 0, OP_LOOKUP, 0, 0, 1, 0 };
	int rc;

	nfs42_op_raw(c, OP_PUTROOTFH, putroot, 4);
	nfs42_op_getfh(c);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	ck_assert_uint_gt(nfs42_res(c, 1)->u.fh.len, 0);
	nfs42_compound_free(c);

	c = nfs42_compound_new(cl);
	nfs42_op_putrootfh(c);
	nfs42_op_raw(c, 9999, bogus, sizeof(bogus));
	rc = nfs42_compound_run(c);
	ck_assert_int_eq(rc, NFS4ERR_OP_ILLEGAL);
	ck_assert_uint_eq(nfs42_res(c, 1)->op, OP_ILLEGAL);
	nfs42_compound_free(c);

	/* a LOOKUP whose name length runs past the request */
	c = nfs42_compound_new(cl);
	nfs42_op_putrootfh(c);
	nfs42_op_raw(c, OP_LOOKUP, lookup_trunc, sizeof(lookup_trunc));
	rc = nfs42_compound_run(c);
	ck_assert_msg(rc == NFS4ERR_BADXDR || rc == -EINVAL,
		      "garbage args gave %s", nfs42_strerror(rc));
	nfs42_compound_free(c);
	/* the session still works */
	ck_nfs_ok(cl, nfs42_stat(cl, "/", &(struct nfs42_attrs){ 0 }));
	nfs42_client_free(cl);
}
END_TEST

START_TEST(credentials)
{
	struct nfs42_client *cl = e2e_client();
	char *dir = e2e_path("cred-dir"), *f = e2e_path("cred-dir/mine");
	char *g = e2e_path("cred-denied"), *bp = e2e_backing("cred-dir/mine");
	struct nfs42_sattr sa;
	struct nfs42_attrs a;
	struct stat st;

	if (geteuid() != 0)
		return; /* only meaningful when the test (and server) is root */
	nfs42_remove(cl, f);
	nfs42_remove(cl, dir);
	ck_nfs_ok(cl, nfs42_mkdir(cl, dir, 0777));
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0777);
	ck_nfs_ok(cl, nfs42_setattr_path(cl, dir, &sa)); /* beat umask */
	nfs42_set_cred(cl, 4321, 4321, 0, NULL);
	ck_assert_int_eq(nfs42_write_file(cl, g, "x", 1, 0644), NFS4ERR_ACCESS);
	ck_nfs_ok(cl, nfs42_write_file(cl, f, "x", 1, 0644));
	ck_assert_int_eq(stat(bp, &st), 0);
	ck_assert_uint_eq(st.st_uid, 4321);
	ck_assert_uint_eq(st.st_gid, 4321);
	ck_nfs_ok(cl, nfs42_stat(cl, f, &a));
	ck_assert(strncmp(a.owner, "4321", 4) == 0 ||
		  strchr(a.owner, '@') != NULL);
	nfs42_set_cred(cl, 0, 0, 0, NULL);
	ck_nfs_ok(cl, nfs42_remove(cl, f));
	ck_nfs_ok(cl, nfs42_remove(cl, dir));
	free(dir);
	free(f);
	free(g);
	free(bp);
	nfs42_client_free(cl);
}
END_TEST

static void *stat_loop(void *arg)
{
	struct nfs42_client *cl = arg;
	struct nfs42_attrs a;
	int i, rc;

	for (i = 0; i < 50; i++) {
		rc = nfs42_stat(cl, "/", &a);
		if (rc)
			return (void *)(intptr_t)rc;
	}
	return NULL;
}

START_TEST(concurrent_compounds_one_client)
{
	struct nfs42_client *cl = e2e_client();
	pthread_t t[8];
	void *r;
	int i;

	for (i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, stat_loop, cl);
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], &r);
		ck_assert_int_eq((intptr_t)r, 0);
	}
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_client_basic");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, session_setup_teardown);
	tcase_add_test(tc, stale_session_is_reported);
	tcase_add_test(tc, ls_root_matches_backing);
	tcase_add_test(tc, stat_matches_lstat);
	tcase_add_test(tc, cat_10mib_identical);
	tcase_add_test(tc, nfsv41_client_lists_and_reads);
	tcase_add_test(tc, missing_paths);
	tcase_add_test(tc, write_and_namespace_ops);
	tcase_add_test(tc, special_files);
	tcase_add_test(tc, open_read_write_partial);
	tcase_add_test(tc, locks);
	tcase_add_test(tc, seek_data_and_hole);
	tcase_add_test(tc, raw_ops);
	tcase_add_test(tc, credentials);
	tcase_add_test(tc, concurrent_compounds_one_client);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
