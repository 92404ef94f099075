/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Export isolation, read-only exports (issue #16, item 4).  The export is
 * Access_Type = RO (harness --export-opts) and the server speaks NFSv3 and
 * NFSv4.  Every operation that changes data or metadata is sent, each
 * must answer NFS4ERR_ROFS (NFS3ERR_ROFS), and afterwards the backing
 * store must be exactly as before: the bytes, the allocation (st_blocks)
 * and mode of the files, their user.* xattrs, and the directory listing.
 * Before patch 0102 CLONE, ALLOCATE and DEALLOCATE had no export
 * permission in Ganesha's op table: DEALLOCATE punched a hole in a file
 * of a read-only export and CLONE overwrote one (on a reflink
 * filesystem).  Ops that need a stateid use the anonymous one: the export
 * check comes first, and an OPEN for write is refused.
 */
#include <sys/xattr.h>

#include "e2e_fsal_util.h"
#include "nfs3_test.h"

#define DATA_LEN (256 * 1024)

/* What must not change. */
struct state {
	char *listing;
	uint32_t data_sum, src_sum;
	blkcnt_t data_blocks;
	mode_t data_mode;
	char xattr[32];
};

static uint32_t file_sum(const char *path, blkcnt_t *blocks, mode_t *mode)
{
	static char buf[DATA_LEN];
	struct stat st;
	uint32_t sum = 2166136261u;
	ssize_t n, i;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	n = pread(fd, buf, sizeof(buf), 0);
	ck_assert_int_ge(n, 0);
	for (i = 0; i < n; i++)
		sum = (sum ^ (uint8_t)buf[i]) * 16777619u;
	ck_assert_int_eq(fstat(fd, &st), 0);
	close(fd);
	if (blocks)
		*blocks = st.st_blocks;
	if (mode)
		*mode = st.st_mode;
	return sum ^ (uint32_t)n;
}

static char *dir_listing(void)
{
	char *cmd = e2e_fmt(
		"ls -la --time-style=+%%s '%s' | awk '{print $1, $5, $7}'",
		e2e_backing(""));
	FILE *p = popen(cmd, "r");
	static char out[8192];
	size_t n;

	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	pclose(p);
	return e2e_keep(strdup(out));
}

static struct state snapshot(void)
{
	struct state s = { 0 };
	ssize_t n;

	s.listing = dir_listing();
	s.data_sum =
		file_sum(e2e_backing("data"), &s.data_blocks, &s.data_mode);
	s.src_sum = file_sum(e2e_backing("src"), NULL, NULL);
	n = getxattr(e2e_backing("data"), "user.k", s.xattr,
		     sizeof(s.xattr) - 1);
	if (n >= 0)
		s.xattr[n] = '\0';
	return s;
}

/* printf-style, "" allowed (e2e_fmt wants a non-empty result) */
static char *text(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&p, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(rc, 0);
	return e2e_keep(p);
}

/* What changed since a, as text ("" when nothing did). */
static char *changes(const struct state *a)
{
	struct state b = snapshot();

	return text("%s%s%s%s%s%s",
		    a->data_sum != b.data_sum ? " data's bytes;" : "",
		    a->data_blocks != b.data_blocks ? " data's allocation;" :
						      "",
		    a->data_mode != b.data_mode ? " data's mode;" : "",
		    a->src_sum != b.src_sum ? " src's bytes;" : "",
		    strcmp(a->xattr, b.xattr) ? " user.k;" : "",
		    strcmp(a->listing, b.listing) ? " the directory;" : "");
}

static void unchanged(const struct state *a, const char *what)
{
	char *c = changes(a);

	ck_assert_msg(c[0] == '\0', "%s changed%s", what, c);
}

/* The backing files, made locally (the export is read-only to clients). */
static void fixture(void)
{
	static char buf[DATA_LEN];
	size_t i;

	if (access(e2e_backing("data"), F_OK) == 0)
		return;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)('a' + i % 23);
	e2e_put_backing("data", buf, sizeof(buf));
	memset(buf, 'S', sizeof(buf));
	e2e_put_backing("src", buf, sizeof(buf));
	ck_assert_int_eq(mkdir(e2e_backing("dir"), 0755), 0);
	if (setxattr(e2e_backing("data"), "user.k", "v1", 2, 0) != 0)
		ck_assert_int_eq(errno, ENOTSUP);
}

/* ---- NFSv4: one compound per operation --------------------------------- */

struct v4_ctx {
	struct nfs42_client *cl;
	struct nfs42_fh root, data, src;
};

typedef void (*v4_build)(struct v4_ctx *t, struct nfs42_compound **c);

static const struct nfs42_stateid anon;

static void b_write(struct v4_ctx *t, struct nfs42_compound **c)
{
	*c = e2e_cpd(t->cl, &t->data);
	nfs42_op_write(*c, &anon, 0, FILE_SYNC4, "XXXX", 4);
}

static void b_truncate(struct v4_ctx *t, struct nfs42_compound **c)
{
	static struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 0);
	*c = e2e_cpd(t->cl, &t->data);
	nfs42_op_setattr(*c, &anon, &sa);
}

static void b_chmod(struct v4_ctx *t, struct nfs42_compound **c)
{
	static struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 04777);
	*c = e2e_cpd(t->cl, &t->data);
	nfs42_op_setattr(*c, &anon, &sa);
}

static void open_args(struct nfs42_open_args *a, const char *name, int how)
{
	static const char owner[] = "readonly-test";

	memset(a, 0, sizeof(*a));
	a->share_access = OPEN4_SHARE_ACCESS_WRITE |
			  OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	a->owner = owner;
	a->owner_len = sizeof(owner) - 1;
	a->createmode = how;
	a->claim = CLAIM_NULL;
	a->name = name;
}

static void b_open_create(struct v4_ctx *t, struct nfs42_compound **c)
{
	static struct nfs42_sattr sa;
	struct nfs42_open_args a;

	nfs42_sattr_init(&sa);
	open_args(&a, "newfile", UNCHECKED4);
	a.attrs = &sa;
	*c = e2e_cpd(t->cl, &t->root);
	nfs42_op_open(*c, &a);
}

static void b_open_write(struct v4_ctx *t, struct nfs42_compound **c)
{
	struct nfs42_open_args a;

	open_args(&a, "data", NFS42_NOCREATE);
	*c = e2e_cpd(t->cl, &t->root);
	nfs42_op_open(*c, &a);
}

static void b_mkdir(struct v4_ctx *t, struct nfs42_compound **c)
{
	struct nfs42_create_args a = { .type = NF4DIR, .name = "newdir" };

	*c = e2e_cpd(t->cl, &t->root);
	nfs42_op_create(*c, &a);
}

static void b_symlink(struct v4_ctx *t, struct nfs42_compound **c)
{
	struct nfs42_create_args a = { .type = NF4LNK,
				       .name = "newlink",
				       .linkdata = "data" };

	*c = e2e_cpd(t->cl, &t->root);
	nfs42_op_create(*c, &a);
}

static void b_remove(struct v4_ctx *t, struct nfs42_compound **c)
{
	*c = e2e_cpd(t->cl, &t->root);
	nfs42_op_remove(*c, "data");
}

static void b_rmdir(struct v4_ctx *t, struct nfs42_compound **c)
{
	*c = e2e_cpd(t->cl, &t->root);
	nfs42_op_remove(*c, "dir");
}

static void b_rename(struct v4_ctx *t, struct nfs42_compound **c)
{
	*c = e2e_cpd2(t->cl, &t->root, &t->root);
	nfs42_op_rename(*c, "data", "renamed");
}

static void b_link(struct v4_ctx *t, struct nfs42_compound **c)
{
	*c = e2e_cpd2(t->cl, &t->data, &t->root);
	nfs42_op_link(*c, "hardlink");
}

static void b_allocate(struct v4_ctx *t, struct nfs42_compound **c)
{
	*c = e2e_cpd(t->cl, &t->data);
	nfs42_op_allocate(*c, &anon, 0, 4 * DATA_LEN);
}

static void b_deallocate(struct v4_ctx *t, struct nfs42_compound **c)
{
	*c = e2e_cpd(t->cl, &t->data);
	nfs42_op_deallocate(*c, &anon, 0, 65536);
}

static void b_copy(struct v4_ctx *t, struct nfs42_compound **c)
{
	*c = e2e_cpd2(t->cl, &t->src, &t->data);
	nfs42_op_copy(*c, &anon, &anon, 0, 0, 65536, false, true);
}

static void b_clone(struct v4_ctx *t, struct nfs42_compound **c)
{
	*c = e2e_cpd2(t->cl, &t->src, &t->data);
	nfs42_op_clone(*c, &anon, &anon, 0, 0, 0);
}

static void b_setxattr(struct v4_ctx *t, struct nfs42_compound **c)
{
	*c = e2e_cpd(t->cl, &t->data);
	nfs42_op_setxattr(*c, SETXATTR4_EITHER, "k", "changed", 7);
}

static void b_removexattr(struct v4_ctx *t, struct nfs42_compound **c)
{
	*c = e2e_cpd(t->cl, &t->data);
	nfs42_op_removexattr(*c, "k");
}

static const struct {
	const char *name;
	v4_build build;
} v4_ops[] = {
	{ "WRITE", b_write },
	{ "SETATTR size", b_truncate },
	{ "SETATTR mode", b_chmod },
	{ "OPEN create", b_open_create },
	{ "OPEN for write", b_open_write },
	{ "CREATE dir", b_mkdir },
	{ "CREATE symlink", b_symlink },
	{ "REMOVE file", b_remove },
	{ "REMOVE dir", b_rmdir },
	{ "RENAME", b_rename },
	{ "LINK", b_link },
	{ "ALLOCATE", b_allocate },
	{ "DEALLOCATE", b_deallocate },
	{ "COPY", b_copy },
	{ "CLONE", b_clone },
	{ "SETXATTR", b_setxattr },
	{ "REMOVEXATTR", b_removexattr },
};

/* Every op is tried and every failure named, each against the state
 * just before it (an op that got through changes what the next sees).
 */
START_TEST(v4_modifying_ops_rofs)
{
	char *failures = text("%s", "");
	struct v4_ctx t;
	size_t i;

	fixture();
	t.cl = e2e_client();
	t.root = e2e_fh(t.cl, "");
	t.data = e2e_fh(t.cl, "data");
	t.src = e2e_fh(t.cl, "src");
	for (i = 0; i < sizeof(v4_ops) / sizeof(v4_ops[0]); i++) {
		struct state before = snapshot();
		struct nfs42_compound *c = NULL;
		char *changed;
		int rc;

		v4_ops[i].build(&t, &c);
		rc = e2e_cpd_run(c);
		changed = changes(&before);
		if (rc != NFS4ERR_ROFS || changed[0] != '\0')
			failures = text("%s\n  %s: %s%s%s", failures,
					v4_ops[i].name, nfs42_strerror(rc),
					changed[0] ? ", changed" : "", changed);
	}
	ck_assert_msg(
		failures[0] == '\0',
		"on a read-only export (NFS4ERR_ROFS and no change expected):%s",
		failures);
	nfs42_client_free(t.cl);
}
END_TEST

/* Reading still works (the filter is not "everything"). */
START_TEST(v4_reads_allowed)
{
	struct nfs42_client *cl;
	void *buf = NULL;
	size_t len = 0;

	fixture();
	cl = e2e_client();
	ck_nfs_ok(cl, nfs42_read_file(cl, e2e_path("data"), &buf, &len));
	ck_assert_uint_eq(len, DATA_LEN);
	free(buf);
	nfs42_client_free(cl);
}
END_TEST

/* ---- NFSv3 ----------------------------------------------------------------- */

START_TEST(v3_modifying_procs_rofs)
{
	struct nfs3_fh root, data, dir;
	struct state before;
	struct nfs3_conn c;
	uint32_t n = 0;

	fixture();
	before = snapshot();
	ck_assert_int_eq(nfs3_connect(&c), 0);
	ck_assert_int_eq(nfs3_mount(&c, e2e_env("NFS42_BACKING"), &root), 0);
	ck_assert_int_eq(nfs3_lookup(&c, &root, nfs3_str("data"), &data), 0);
	ck_assert_int_eq(nfs3_lookup(&c, &root, nfs3_str("dir"), &dir), 0);

#define V3_ROFS(call, what)                                               \
	do {                                                              \
		int _st = (call);                                         \
		ck_assert_msg(_st == NFS3ERR_ROFS,                        \
			      "NFSv3 %s on a read-only export: %s", what, \
			      nfs3_status_name(_st));                     \
		unchanged(&before, what);                                 \
	} while (0)
	V3_ROFS(nfs3_write(&c, &data, 0, "XXXX", 4, &n), "WRITE");
	V3_ROFS(nfs3_setattr(&c, &data, 0, -1), "SETATTR size");
	V3_ROFS(nfs3_setattr(&c, &data, -1, 04777), "SETATTR mode");
	V3_ROFS(nfs3_create(&c, &root, nfs3_str("newfile"), 0644, NULL),
		"CREATE");
	V3_ROFS(nfs3_mkdir(&c, &root, nfs3_str("newdir"), 0755, NULL), "MKDIR");
	V3_ROFS(nfs3_symlink(&c, &root, nfs3_str("newlink"), "data", NULL),
		"SYMLINK");
	V3_ROFS(nfs3_mkfifo(&c, &root, nfs3_str("newfifo"), 0644), "MKNOD");
	V3_ROFS(nfs3_remove(&c, &root, nfs3_str("data")), "REMOVE");
	V3_ROFS(nfs3_rmdir(&c, &root, nfs3_str("dir")), "RMDIR");
	V3_ROFS(nfs3_rename(&c, &root, nfs3_str("data"), &root,
			    nfs3_str("renamed")),
		"RENAME");
	V3_ROFS(nfs3_link(&c, &data, &root, nfs3_str("hardlink")), "LINK");
#undef V3_ROFS
	nfs3_close(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("isolation_readonly");
	TCase *tc = tcase_create("readonly");

	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, v4_modifying_ops_rofs);
	tcase_add_test(tc, v4_reads_allowed);
	tcase_add_test(tc, v3_modifying_procs_rofs);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
