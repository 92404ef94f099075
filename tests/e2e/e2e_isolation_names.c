/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Export isolation, names (issue #16, item 1): a name from a client is one
 * component.  Ganesha filters '/', "." and ".." only in NFSv4 names, so an
 * NFSv3 LOOKUP(root, "../outside/secret") walked out of the export and
 * MKDIR(root, "../outside/x") made a directory outside it.  Every NFSv3
 * procedure that takes a name is sent names that would leave the export
 * ("../outside/..."), names with a '/' inside the export ("sub/x"), the
 * empty name, "." and "..", and a name with a NUL byte; each must be
 * refused and leave the backing store (inside and outside the export)
 * exactly as it was.  The server runs with Protocols = 3, 4 (the harness
 * gives it a private rpcbind); the same program runs against FSAL_SPARSE
 * and FSAL_VFS (the hole was in Ganesha's NFSv3 layer, for every FSAL).
 * The NFSv4 twins check the filter Ganesha already had stays in place.
 *
 * Statuses, after knfsd and RFC 1813: a name that cannot be a component
 * (empty, '/') is NFS3ERR_ACCES; "." or ".." as the name to create or link
 * NFS3ERR_EXIST; REMOVE/RMDIR of "." NFS3ERR_INVAL and of ".."
 * NFS3ERR_EXIST (RFC 1813 3.3.13); RENAME from or to either NFS3ERR_INVAL;
 * a NUL byte in a name is GARBAGE_ARGS (the name cannot be decoded into
 * the C string the server passes on).  LOOKUP "." is the directory and
 * LOOKUP ".." of the export root is the root itself.
 */

#include <libgen.h>

#include "e2e_fsal_util.h"
#include "nfs3_test.h"

#define UID_USER 1000

/* ---- fixture -------------------------------------------------------------- */

/* A directory next to the export, "outside-<pid>", with a file, a file to
 * remove and a directory in it.
 */
struct outside {
	char *dir; /* absolute backing path */
	char *rel; /* the same seen from the export root: "../outside-<pid>" */
};

static struct outside make_outside(void)
{
	char *backing = e2e_keep(strdup(e2e_env("NFS42_BACKING")));
	struct outside o;

	o.rel = e2e_fmt("../outside-%d", (int)getpid());
	o.dir = e2e_fmt("%s/%s", dirname(backing), o.rel + 3);
	ck_assert_int_eq(mkdir(o.dir, 0777), 0);
	ck_assert_int_eq(chmod(o.dir, 0777), 0);
	e2e_put_backing(e2e_fmt("%s/secret", o.rel), "secret\n", 7);
	e2e_put_backing(e2e_fmt("%s/victim", o.rel), "victim\n", 7);
	ck_assert_int_eq(mkdir(e2e_fmt("%s/victimdir", o.dir), 0777), 0);
	return o;
}

/* Entries of a backing directory, sorted, as one string. */
static char *listing(const char *dir)
{
	struct dirent **names;
	size_t len = 0;
	char *out;
	int n, i;

	n = scandir(dir, &names, NULL, alphasort);
	ck_assert_msg(n >= 0, "scandir %s: %s", dir, strerror(errno));
	out = calloc(1, 1);
	for (i = 0; i < n; i++) {
		size_t add = strlen(names[i]->d_name) + 1;

		out = realloc(out, len + add + 1);
		sprintf(out + len, "%s ", names[i]->d_name);
		len += add;
		free(names[i]);
	}
	free(names);
	return e2e_keep(out);
}

/* What must not change: the export, "sub" in it, and the outside dir. */
struct snapshot {
	char *root, *sub, *outside;
};

static struct snapshot snap(const struct outside *o)
{
	struct snapshot s = {
		.root = listing(e2e_backing("")),
		.sub = listing(e2e_backing(e2e_fmt("sub-%d", (int)getpid()))),
		.outside = listing(o->dir),
	};

	return s;
}

static void same(const struct snapshot *a, const struct snapshot *b,
		 const char *what)
{
	ck_assert_msg(!strcmp(a->root, b->root),
		      "%s changed the export root: [%s] -> [%s]", what, a->root,
		      b->root);
	ck_assert_msg(!strcmp(a->sub, b->sub), "%s changed sub: [%s] -> [%s]",
		      what, a->sub, b->sub);
	ck_assert_msg(
		!strcmp(a->outside, b->outside),
		"%s changed the directory outside the export: [%s] -> [%s]",
		what, a->outside, b->outside);
}

struct v3 {
	struct nfs3_conn c;
	struct nfs3_fh root, sub, file;
	struct outside o;
	char *sub_name, *file_name;
};

/* Connect, mount the export, and make sub-<pid> and file-<pid> in it. */
static void v3_setup(struct v3 *t, uint32_t uid)
{
	int rc;

	t->o = make_outside();
	rc = nfs3_connect(&t->c);
	ck_assert_msg(rc == 0, "NFSv3 connect: %s", strerror(-rc));
	/* MOUNT names an export by its Path (Mount_Path_Pseudo = false) */
	rc = nfs3_mount(&t->c, e2e_env("NFS42_BACKING"), &t->root);
	ck_assert_msg(rc == 0, "MNT %s: %d", e2e_env("NFS42_BACKING"), rc);

	t->sub_name = e2e_fmt("sub-%d", (int)getpid());
	t->file_name = e2e_fmt("file-%d", (int)getpid());
	rc = nfs3_mkdir(&t->c, &t->root, nfs3_str(t->sub_name), 0777, &t->sub);
	ck_assert_msg(rc == NFS3_OK, "MKDIR sub: %s", nfs3_status_name(rc));
	ck_assert_int_eq(chmod(e2e_backing(t->sub_name), 0777), 0);
	rc = nfs3_create(&t->c, &t->root, nfs3_str(t->file_name), 0666,
			 &t->file);
	ck_assert_msg(rc == NFS3_OK, "CREATE file: %s", nfs3_status_name(rc));
	ck_assert_int_eq(chmod(e2e_backing(t->file_name), 0666), 0);
	ck_assert_int_eq(chmod(e2e_backing(""), 0777), 0);
	nfs3_set_cred(&t->c, uid, uid);
}

/* The names that must never reach the filesystem as they are. */
static const char *const escaping[] = {
	"../outside-%d/secret", "../../../../../../etc/hostname",
	"../outside-%d",	"sub-%d/x",
	"/etc/hostname",	"../outside-%d/victim",
};

static struct nfs3_name bad_name(unsigned int i)
{
	return nfs3_str(e2e_fmt(escaping[i], (int)getpid()));
}

#define N_ESCAPING (sizeof(escaping) / sizeof(escaping[0]))

static void expect(int got, int want, const char *what)
{
	ck_assert_msg(got == want, "%s: %s, expected %s", what,
		      nfs3_status_name(got), nfs3_status_name(want));
}

/* ---- LOOKUP ---------------------------------------------------------------- */

START_TEST(t_v3_lookup_escape)
{
	struct nfs3_fh fh;
	struct nfs3_attr root_attr, a;
	struct v3 t;
	unsigned int i;

	v3_setup(&t, 0);
	for (i = 0; i < N_ESCAPING; i++) {
		struct nfs3_name n = bad_name(i);

		expect(nfs3_lookup(&t.c, &t.root, n, &fh), NFS3ERR_ACCES,
		       e2e_fmt("LOOKUP(root, \"%s\")", n.bytes));
	}
	expect(nfs3_lookup(&t.c, &t.root, nfs3_str(""), &fh), NFS3ERR_ACCES,
	       "LOOKUP of the empty name");

	/* "." and ".." stay what they are; ".." of the root is the root */
	expect(nfs3_getattr(&t.c, &t.root, &root_attr), NFS3_OK, "GETATTR");
	expect(nfs3_lookup(&t.c, &t.root, nfs3_str("."), &fh), NFS3_OK,
	       "LOOKUP .");
	expect(nfs3_getattr(&t.c, &fh, &a), NFS3_OK, "GETATTR .");
	ck_assert_uint_eq(a.fileid, root_attr.fileid);
	expect(nfs3_lookup(&t.c, &t.root, nfs3_str(".."), &fh), NFS3_OK,
	       "LOOKUP ..");
	expect(nfs3_getattr(&t.c, &fh, &a), NFS3_OK, "GETATTR ..");
	ck_assert_msg(
		a.fileid == root_attr.fileid,
		"LOOKUP(root, \"..\") left the export (fileid %llu, root %llu)",
		(unsigned long long)a.fileid,
		(unsigned long long)root_attr.fileid);
	expect(nfs3_lookup(&t.c, &t.sub, nfs3_str(".."), &fh), NFS3_OK,
	       "LOOKUP(sub, ..)");
	expect(nfs3_getattr(&t.c, &fh, &a), NFS3_OK, "GETATTR sub/..");
	ck_assert_uint_eq(a.fileid, root_attr.fileid);
	nfs3_close(&t.c);
}
END_TEST

START_TEST(t_v3_lookup_nul)
{
	/* "sub-<pid>" NUL "/../outside": cut at the NUL it would be sub */
	char raw[128];
	struct nfs3_name n;
	struct nfs3_fh fh;
	struct v3 t;
	int len;

	v3_setup(&t, 0);
	len = snprintf(raw, sizeof(raw), "sub-%d", (int)getpid());
	memcpy(raw + len, "\0/../x", 6);
	n.bytes = raw;
	n.len = (uint32_t)len + 6;
	expect(nfs3_lookup(&t.c, &t.root, n, &fh), -EINVAL,
	       "LOOKUP of a name with a NUL byte");
	expect(nfs3_create(&t.c, &t.root, n, 0644, NULL), -EINVAL,
	       "CREATE of a name with a NUL byte");
	nfs3_close(&t.c);
}
END_TEST

START_TEST(t_v3_read_outside)
{
	char buf[64];
	struct nfs3_fh fh;
	uint32_t got = 0;
	bool eof = false;
	struct v3 t;
	int rc;

	v3_setup(&t, 0);
	rc = nfs3_lookup(&t.c, &t.root, bad_name(0), &fh);
	if (rc == NFS3_OK) {
		rc = nfs3_read(&t.c, &fh, 0, sizeof(buf), buf, &got, &eof);
		ck_abort_msg(
			"LOOKUP(root, \"%s\") answered OK; READ gave %s: %.*s",
			bad_name(0).bytes, nfs3_status_name(rc), (int)got, buf);
	}
	nfs3_close(&t.c);
}
END_TEST

/* ---- procedures that change the namespace ---------------------------------- */

/* Each creating procedure, with every escaping name, as uid (0 or 1000). */
static void v3_creates_refused(uint32_t uid)
{
	struct snapshot before, after;
	struct v3 t;
	unsigned int i;

	v3_setup(&t, uid);
	before = snap(&t.o);
	for (i = 0; i < N_ESCAPING; i++) {
		struct nfs3_name n = bad_name(i);

		expect(nfs3_mkdir(&t.c, &t.root, n, 0777, NULL), NFS3ERR_ACCES,
		       e2e_fmt("MKDIR \"%s\"", n.bytes));
		expect(nfs3_create(&t.c, &t.root, n, 0666, NULL), NFS3ERR_ACCES,
		       e2e_fmt("CREATE \"%s\"", n.bytes));
		expect(nfs3_symlink(&t.c, &t.root, n, "target", NULL),
		       NFS3ERR_ACCES, e2e_fmt("SYMLINK \"%s\"", n.bytes));
		expect(nfs3_mkfifo(&t.c, &t.root, n, 0666), NFS3ERR_ACCES,
		       e2e_fmt("MKNOD \"%s\"", n.bytes));
		expect(nfs3_link(&t.c, &t.file, &t.root, n), NFS3ERR_ACCES,
		       e2e_fmt("LINK to \"%s\"", n.bytes));
	}
	expect(nfs3_mkdir(&t.c, &t.root, nfs3_str(""), 0777, NULL),
	       NFS3ERR_ACCES, "MKDIR of the empty name");
	expect(nfs3_create(&t.c, &t.root, nfs3_str(""), 0666, NULL),
	       NFS3ERR_ACCES, "CREATE of the empty name");
	after = snap(&t.o);
	same(&before, &after, "a refused create");
	nfs3_close(&t.c);
}

START_TEST(t_v3_creates_root)
{
	v3_creates_refused(0);
}
END_TEST

START_TEST(t_v3_creates_user)
{
	v3_creates_refused(UID_USER);
}
END_TEST

static void v3_removes_refused(uint32_t uid)
{
	struct snapshot before, after;
	struct nfs3_name victim_dir;
	struct v3 t;
	unsigned int i;

	v3_setup(&t, uid);
	victim_dir =
		nfs3_str(e2e_fmt("../outside-%d/victimdir", (int)getpid()));
	before = snap(&t.o);
	for (i = 0; i < N_ESCAPING; i++) {
		struct nfs3_name n = bad_name(i);

		expect(nfs3_remove(&t.c, &t.root, n), NFS3ERR_ACCES,
		       e2e_fmt("REMOVE \"%s\"", n.bytes));
		expect(nfs3_rename(
			       &t.c, &t.root, n, &t.root,
			       nfs3_str(e2e_fmt("stolen-%d", (int)getpid()))),
		       NFS3ERR_ACCES, e2e_fmt("RENAME from \"%s\"", n.bytes));
		expect(nfs3_rename(&t.c, &t.root, nfs3_str(t.file_name),
				   &t.root, n),
		       NFS3ERR_ACCES, e2e_fmt("RENAME to \"%s\"", n.bytes));
	}
	expect(nfs3_rmdir(&t.c, &t.root, victim_dir), NFS3ERR_ACCES,
	       "RMDIR ../outside/victimdir");
	expect(nfs3_rmdir(&t.c, &t.root,
			  nfs3_str(e2e_fmt("../sub-%d", (int)getpid()))),
	       NFS3ERR_ACCES, "RMDIR of a name with a '/'");
	expect(nfs3_remove(&t.c, &t.root, nfs3_str("")), NFS3ERR_ACCES,
	       "REMOVE of the empty name");
	after = snap(&t.o);
	same(&before, &after, "a refused remove or rename");
	nfs3_close(&t.c);
}

START_TEST(t_v3_removes_root)
{
	v3_removes_refused(0);
}
END_TEST

START_TEST(t_v3_removes_user)
{
	v3_removes_refused(UID_USER);
}
END_TEST

START_TEST(t_v3_dot_names)
{
	struct snapshot before, after;
	struct v3 t;

	v3_setup(&t, 0);
	before = snap(&t.o);
	expect(nfs3_create(&t.c, &t.sub, nfs3_str("."), 0666, NULL),
	       NFS3ERR_EXIST, "CREATE .");
	expect(nfs3_mkdir(&t.c, &t.sub, nfs3_str(".."), 0777, NULL),
	       NFS3ERR_EXIST, "MKDIR ..");
	expect(nfs3_symlink(&t.c, &t.sub, nfs3_str("."), "t", NULL),
	       NFS3ERR_EXIST, "SYMLINK .");
	expect(nfs3_mkfifo(&t.c, &t.sub, nfs3_str(".."), 0666), NFS3ERR_EXIST,
	       "MKNOD ..");
	expect(nfs3_link(&t.c, &t.file, &t.sub, nfs3_str("..")), NFS3ERR_EXIST,
	       "LINK to ..");
	expect(nfs3_remove(&t.c, &t.sub, nfs3_str(".")), NFS3ERR_INVAL,
	       "REMOVE .");
	expect(nfs3_rmdir(&t.c, &t.sub, nfs3_str(".")), NFS3ERR_INVAL,
	       "RMDIR .");
	expect(nfs3_rmdir(&t.c, &t.sub, nfs3_str("..")), NFS3ERR_EXIST,
	       "RMDIR ..");
	expect(nfs3_rename(&t.c, &t.sub, nfs3_str(".."), &t.root,
			   nfs3_str("moved")),
	       NFS3ERR_INVAL, "RENAME from ..");
	expect(nfs3_rename(&t.c, &t.root, nfs3_str(t.file_name), &t.sub,
			   nfs3_str(".")),
	       NFS3ERR_INVAL, "RENAME to .");
	after = snap(&t.o);
	same(&before, &after, "a dot name");
	nfs3_close(&t.c);
}
END_TEST

/* The same procedures with good names still work (the filter is a filter). */
START_TEST(t_v3_good_names)
{
	struct nfs3_fh fh, dir;
	char buf[16];
	uint32_t n = 0;
	bool eof;
	struct v3 t;

	v3_setup(&t, UID_USER);
	expect(nfs3_mkdir(&t.c, &t.sub, nfs3_str("d"), 0755, &dir), NFS3_OK,
	       "MKDIR d");
	expect(nfs3_create(&t.c, &dir, nfs3_str("f"), 0644, &fh), NFS3_OK,
	       "CREATE d/f");
	expect(nfs3_write(&t.c, &fh, 0, "hello", 5, &n), NFS3_OK, "WRITE");
	ck_assert_uint_eq(n, 5);
	expect(nfs3_link(&t.c, &fh, &dir, nfs3_str("g")), NFS3_OK, "LINK");
	expect(nfs3_rename(&t.c, &dir, nfs3_str("g"), &t.sub, nfs3_str("h")),
	       NFS3_OK, "RENAME");
	expect(nfs3_symlink(&t.c, &dir, nfs3_str("s"), "../h", NULL), NFS3_OK,
	       "SYMLINK");
	expect(nfs3_mkfifo(&t.c, &dir, nfs3_str("p"), 0644), NFS3_OK, "MKNOD");
	expect(nfs3_lookup(&t.c, &t.sub, nfs3_str("h"), &fh), NFS3_OK,
	       "LOOKUP h");
	expect(nfs3_read(&t.c, &fh, 0, sizeof(buf), buf, &n, &eof), NFS3_OK,
	       "READ");
	ck_assert_uint_eq(n, 5);
	ck_assert(!memcmp(buf, "hello", 5));
	expect(nfs3_remove(&t.c, &t.sub, nfs3_str("h")), NFS3_OK, "REMOVE h");
	expect(nfs3_remove(&t.c, &dir, nfs3_str("f")), NFS3_OK, "REMOVE f");
	expect(nfs3_remove(&t.c, &dir, nfs3_str("s")), NFS3_OK, "REMOVE s");
	expect(nfs3_remove(&t.c, &dir, nfs3_str("p")), NFS3_OK, "REMOVE p");
	expect(nfs3_rmdir(&t.c, &t.sub, nfs3_str("d")), NFS3_OK, "RMDIR d");
	nfs3_close(&t.c);
}
END_TEST

/* ---- NFSv4: Ganesha's own filter ------------------------------------------- */

static int v4_one(struct nfs42_client *cl, const char *op, const char *name)
{
	struct nfs42_fh root = e2e_fh(cl, "");
	struct nfs42_compound *c = e2e_cpd(cl, &root);

	if (!strcmp(op, "LOOKUP"))
		nfs42_op_lookup(c, name);
	else
		nfs42_op_remove(c, name);
	return e2e_cpd_run(c);
}

START_TEST(t_v4_names)
{
	struct nfs42_client *cl = e2e_client();
	static const char *const names[] = { "../x", "a/b", ".", ".." };
	unsigned int i;
	int rc;

	for (i = 0; i < 4; i++) {
		rc = v4_one(cl, "LOOKUP", names[i]);
		ck_assert_msg(rc == NFS4ERR_BADCHAR || rc == NFS4ERR_BADNAME,
			      "NFSv4 LOOKUP \"%s\": %s", names[i],
			      nfs42_strerror(rc));
		rc = v4_one(cl, "REMOVE", names[i]);
		ck_assert_msg(rc == NFS4ERR_BADCHAR || rc == NFS4ERR_BADNAME,
			      "NFSv4 REMOVE \"%s\": %s", names[i],
			      nfs42_strerror(rc));
	}
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("isolation_names");
	TCase *tc = tcase_create("names");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_v3_lookup_escape);
	tcase_add_test(tc, t_v3_read_outside);
	tcase_add_test(tc, t_v3_lookup_nul);
	tcase_add_test(tc, t_v3_creates_root);
	tcase_add_test(tc, t_v3_creates_user);
	tcase_add_test(tc, t_v3_removes_root);
	tcase_add_test(tc, t_v3_removes_user);
	tcase_add_test(tc, t_v3_dot_names);
	tcase_add_test(tc, t_v3_good_names);
	tcase_add_test(tc, t_v4_names);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
