/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Export isolation, cloned filesystems (issue #16, item 2).
 * uuidclone-setup.sh copies one ext4 image with cp: the two filesystems
 * (DIR/a, DIR/b) have one UUID and their files equal kernel handles, and
 * FSAL_SPARSE's filesystem identity is made from the UUID.  Before the
 * fix a READ through /clone-b returned /clone-a's data and a WRITE
 * through /clone-b landed in /clone-a's file (one MDCACHE entry and one
 * descriptor for both).
 *
 *   e2e_isolation_clones refused   (exports.conf): /clone-b, the clone
 *       without an identity of its own, and /clone-a-sub, a directory of
 *       /clone-a's filesystem given another identity, are refused at start
 *       with a CRIT line naming both paths and the fix; /clone-a serves.
 *   e2e_isolation_clones identity  (exports-identity.conf): /clone-b has
 *       its own Filesystem_Identity: both are served, each with its own
 *       data and fsid, and a handle of one is STALE on the other.
 *   e2e_isolation_clones btrfs  (btrfs-setup.sh): two subvolumes of one
 *       btrfs, each with its own device number and the filesystem's UUID,
 *       are not clones: both are served, apart.
 */
#include "e2e_fsal_handle_util.h"

#ifndef E2E_UUIDCLONE_DIR
#error "E2E_UUIDCLONE_DIR must name the fixture directory"
#endif

#define DATA_LEN 8192

static const char *fixture_dir = E2E_UUIDCLONE_DIR;

static bool fixture_missing(void)
{
	char *skip = e2e_fmt("%s/skip", fixture_dir);
	FILE *f = fopen(skip, "r");
	char why[256] = "";

	if (f == NULL)
		return false;
	if (fgets(why, sizeof(why), f) == NULL)
		why[0] = '\0';
	fclose(f);
	e2e_skip(why);
	return true;
}

/* READ with the anonymous stateid: the path through the global fd. */
static char first_byte_anon(struct nfs42_client *cl, const struct nfs42_fh *fh)
{
	struct nfs42_stateid anon = { 0 };
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	char b = 0;
	int i;

	i = nfs42_op_read(c, &anon, 0, 1);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	if (nfs42_res(c, i)->u.read.len == 1)
		b = (char)nfs42_res(c, i)->u.read.data[0];
	nfs42_compound_free(c);
	return b;
}

/* The whole of path through NFS; every byte must be `fill`. */
static void expect_all(struct nfs42_client *cl, const char *path, char fill)
{
	void *buf = NULL;
	size_t len = 0, i;
	int rc = nfs42_read_file(cl, path, &buf, &len);

	ck_assert_msg(rc == 0, "read %s: %s", path, nfs42_strerror(rc));
	ck_assert_uint_eq(len, DATA_LEN);
	for (i = 0; i < len; i++)
		ck_assert_msg(((char *)buf)[i] == fill,
			      "%s: byte %zu is '%c', expected '%c'", path, i,
			      ((char *)buf)[i], fill);
	free(buf);
}

/* The backing file holds only `fill`. */
static void expect_backing(const char *path, char fill)
{
	char buf[DATA_LEN];
	int fd = open(path, O_RDONLY);
	size_t i;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, buf, sizeof(buf), 0), DATA_LEN);
	close(fd);
	for (i = 0; i < sizeof(buf); i++)
		ck_assert_msg(buf[i] == fill, "%s: byte %zu is '%c', not '%c'",
			      path, i, buf[i], fill);
}

static bool log_has(const char *a, const char *b, const char *c)
{
	FILE *f = fopen(e2e_env("NFS42_LOG"), "r");
	char line[4096];
	bool found = false;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, ":CRIT :") && strstr(line, a) &&
			strstr(line, b) && strstr(line, c);
	fclose(f);
	return found;
}

START_TEST(clone_without_identity_refused)
{
	struct nfs42_client *cl;
	struct nfs42_fh fh;

	if (fixture_missing())
		return;
	cl = e2e_client();
	expect_all(cl, "/clone-a/data", 'A');
	ck_assert_int_eq(nfs42_lookup_path(cl, "/clone-b", &fh, NULL),
			 NFS4ERR_NOENT);
	ck_assert_int_eq(nfs42_lookup_path(cl, "/clone-a-sub", &fh, NULL),
			 NFS4ERR_NOENT);
	ck_assert_msg(log_has("export " E2E_UUIDCLONE_DIR "/b refused",
			      E2E_UUIDCLONE_DIR "/a", "Filesystem_Identity"),
		      "no CRIT line naming both clones and the fix");
	ck_assert_msg(log_has("export " E2E_UUIDCLONE_DIR "/a/sub refused",
			      E2E_UUIDCLONE_DIR "/a is on", "same filesystem"),
		      "no CRIT line for two identities of one filesystem");
	/* the clone holds its own data ('B', or 'C' after the identity run) */
	{
		char first = 0;
		int fd = open(E2E_UUIDCLONE_DIR "/b/data", O_RDONLY);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(pread(fd, &first, 1, 0), 1);
		close(fd);
		ck_assert_int_ne(first, 'A');
	}
	nfs42_client_free(cl);
}
END_TEST

START_TEST(clone_with_identity_apart)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FSID, -1);
	struct nfs42_attrs a_attrs, b_attrs;
	char c_data[DATA_LEN];
	struct nfs42_client *cl;
	struct nfs42_fh a, b, forged;

	if (fixture_missing())
		return;
	cl = e2e_client();
	/* read both, in both orders, whichever gets cached first */
	expect_all(cl, "/clone-a/data", 'A');
	expect_all(cl, "/clone-b/data", 'B');
	expect_all(cl, "/clone-a/data", 'A');

	/* a WRITE through b lands in b only */
	memset(c_data, 'C', sizeof(c_data));
	ck_nfs_ok(cl, nfs42_write_file(cl, "/clone-b/data", c_data,
				       sizeof(c_data), 0644));
	expect_backing(E2E_UUIDCLONE_DIR "/b/data", 'C');
	expect_backing(E2E_UUIDCLONE_DIR "/a/data", 'A');
	expect_all(cl, "/clone-a/data", 'A');

	/* different identities, different fsids; handles do not cross */
	ck_nfs_ok(cl, nfs42_lookup_path(cl, "/clone-a/data", &a, NULL));
	ck_nfs_ok(cl, nfs42_lookup_path(cl, "/clone-b/data", &b, NULL));
	ck_assert_uint_ne(e2e_fs_ident(cl, &a, E2E_UUIDCLONE_DIR "/a"),
			  e2e_fs_ident(cl, &b, E2E_UUIDCLONE_DIR "/b"));
	ck_nfs_ok(cl, nfs42_getattr_fh(cl, &a, &bm, &a_attrs));
	ck_nfs_ok(cl, nfs42_getattr_fh(cl, &b, &bm, &b_attrs));
	ck_assert(a_attrs.fsid.major != b_attrs.fsid.major ||
		  a_attrs.fsid.minor != b_attrs.fsid.minor);
	forged = a;
	e2e_set_export_id(&forged, e2e_export_id(&b));
	ck_assert_int_eq(nfs42_getattr_fh(cl, &forged, &bm, &a_attrs),
			 NFS4ERR_STALE);
	/* the global descriptors too (anonymous stateid), in turn */
	ck_assert_int_eq(first_byte_anon(cl, &a), 'A');
	ck_assert_int_eq(first_byte_anon(cl, &b), 'C');
	ck_assert_int_eq(first_byte_anon(cl, &a), 'A');
	nfs42_client_free(cl);
}
END_TEST

START_TEST(btrfs_subvolumes_served)
{
	struct nfs42_client *cl;
	struct nfs42_fh one, two, forged;
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_SIZE, -1);
	struct nfs42_attrs attrs;

	if (fixture_missing())
		return;
	cl = e2e_client();
	expect_all(cl, "/subvol-1/data", '1');
	expect_all(cl, "/subvol-2/data", '2');
	ck_nfs_ok(cl, nfs42_lookup_path(cl, "/subvol-1/data", &one, NULL));
	ck_nfs_ok(cl, nfs42_lookup_path(cl, "/subvol-2/data", &two, NULL));
	ck_assert_int_eq(first_byte_anon(cl, &one), '1');
	ck_assert_int_eq(first_byte_anon(cl, &two), '2');
	forged = one;
	e2e_set_export_id(&forged, e2e_export_id(&two));
	ck_assert_int_eq(nfs42_getattr_fh(cl, &forged, &bm, &attrs),
			 NFS4ERR_STALE);
	nfs42_client_free(cl);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("isolation_clones");
	TCase *tc = tcase_create("clones");

	tcase_set_timeout(tc, 60);
	if (argc > 1 && !strcmp(argv[1], "identity")) {
		tcase_add_test(tc, clone_with_identity_apart);
	} else if (argc > 2 && !strcmp(argv[1], "btrfs")) {
		fixture_dir = argv[2];
		tcase_add_test(tc, btrfs_subvolumes_served);
	} else
		tcase_add_test(tc, clone_without_identity_refused);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
