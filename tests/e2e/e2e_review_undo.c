/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Review regressions, undoing a failed create (issue #6 item 6): when the
 * follow-up of a create fails the server removes what it made -- but only
 * if the name still names that object.  Whatever took the name meanwhile
 * (a local rename over it) must survive.  The follow-ups that fail here:
 * for CREATE of a directory the give-away to another owner (refused as in
 * e2e_review_owner); for OPEN/create, where Ganesha refuses a give-away
 * before the FSAL sees it, a size beyond 2^63 (NFS4ERR_FBIG from the size
 * change that follows the create).
 *
 * The harness runs the export with Test_Hooks Metadata_Latency_Ms (updates
 * only), which sleeps before the create and again before the owner change
 * of the new object: the test waits for the new name to appear in the
 * backing directory and renames a decoy over it inside that second sleep,
 * so the interleaving is the same on every run.  Needs root.
 */
#include "e2e_fsal_util.h"

/* Test_Hooks Metadata_Latency_Ms in review.cmake */
#define UNDO_LATENCY_MS 1000

/* As uid 1000, make name in dir with attributes the FSAL fails to apply
 * after the create: CREATE of a directory given to uid 0 when is_dir,
 * else OPEN/create with a size of 2^64 - 1.  Returns the status.
 */
static int failing_create(const struct nfs42_fh *dir, const char *name,
			  bool is_dir)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_sattr sa;
	int rc;

	nfs42_set_cred(cl, 1000, 1000, 0, NULL);
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, is_dir ? 0755 : 0644);
	if (is_dir)
		nfs42_sattr_owner(&sa, "0");
	else
		nfs42_sattr_size(&sa, UINT64_MAX);
	if (is_dir) {
		struct nfs42_create_args ca = { .type = NF4DIR,
						.name = name,
						.attrs = &sa };
		struct nfs42_compound *c = e2e_cpd(cl, dir);

		nfs42_op_create(c, &ca);
		rc = e2e_cpd_run(c);
	} else {
		struct nfs42_file of;

		rc = e2e_open_guarded(cl, dir, name, &sa, &of);
	}
	nfs42_client_free(cl);
	return rc;
}

/*
 * Start failing_create() in a child process, wait until the new name shows
 * up in the backing directory, rename a decoy over it, and check that the
 * create failed with want and the decoy still has the name.
 */
static void check_decoy_survives(const char *d, bool is_dir, int want)
{
	struct nfs42_client *root = e2e_client();
	struct nfs42_fh dfh = e2e_world_dir(root, d);
	char *name_rel = e2e_fmt("%s/new", d);
	char *decoy_rel = e2e_fmt("%s/decoy", d);
	char *name = e2e_backing(name_rel), *decoy = e2e_backing(decoy_rel);
	struct stat made, dst;
	int pfd[2], rc = -1, i, status;
	pid_t pid;

	if (is_dir)
		e2e_bmkdir(decoy_rel, 0700);
	else
		e2e_put_backing(decoy_rel, "decoy", 5);
	dst = e2e_bstat(decoy_rel);

	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(pfd[0]);
		rc = failing_create(&dfh, "new", is_dir);
		_exit(write(pfd[1], &rc, sizeof(rc)) == sizeof(rc) ? 0 : 1);
	}
	close(pfd[1]);

	/* The object appears after one latency; the attribute change that
	 * fails waits another one.  Poll for it every millisecond, then let
	 * half of that second latency pass: the server identifies what it
	 * made right after making it (by a lookup for a directory, where a
	 * rename before that lookup would be taken for the new object).
	 */
	for (i = 0; i < 10 * UNDO_LATENCY_MS && lstat(name, &made) != 0; i++)
		usleep(1000);
	if (i == 10 * UNDO_LATENCY_MS &&
	    read(pfd[0], &rc, sizeof(rc)) == sizeof(rc))
		ck_abort_msg("%s never appeared; the create said %s", name,
			     nfs42_strerror(rc));
	usleep(UNDO_LATENCY_MS * 1000 / 2);
	ck_assert_int_eq(rename(decoy, name), 0);

	ck_assert_int_eq(read(pfd[0], &rc, sizeof(rc)), sizeof(rc));
	close(pfd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_nfs_status(rc, want);

	ck_assert_uint_ne(made.st_ino, dst.st_ino);
	ck_assert_msg(e2e_bexists(name_rel),
		      "the failed create removed the decoy renamed over %s",
		      name_rel);
	ck_assert_uint_eq(e2e_bstat(name_rel).st_ino, dst.st_ino);
	free(name);
	free(decoy);
	nfs42_client_free(root);
}

/* Without interference, the failed create leaves nothing behind. */
static void check_removed(const char *d, bool is_dir, int want)
{
	struct nfs42_client *root = e2e_client();
	struct nfs42_fh dfh = e2e_world_dir(root, d);

	ck_nfs_status(failing_create(&dfh, "new", is_dir), want);
	ck_assert_msg(!e2e_bexists(e2e_fmt("%s/new", d)),
		      "the failed create left %s/new behind", d);
	nfs42_client_free(root);
}

START_TEST(failed_open_create_is_removed)
{
	check_removed(e2e_uniq("undo-open-alone"), false, NFS4ERR_FBIG);
}
END_TEST

START_TEST(failed_mkdir_is_removed)
{
	check_removed(e2e_uniq("undo-mkdir-alone"), true, NFS4ERR_PERM);
}
END_TEST

START_TEST(failed_open_create_spares_new_owner_of_name)
{
	check_decoy_survives(e2e_uniq("undo-open"), false, NFS4ERR_FBIG);
}
END_TEST

START_TEST(failed_mkdir_spares_new_owner_of_name)
{
	check_decoy_survives(e2e_uniq("undo-mkdir"), true, NFS4ERR_PERM);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_review_undo");
	TCase *tc = tcase_create("undo");

	e2e_require_root("e2e_review_undo");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, failed_open_create_is_removed);
	tcase_add_test(tc, failed_mkdir_is_removed);
	tcase_add_test(tc, failed_open_create_spares_new_owner_of_name);
	tcase_add_test(tc, failed_mkdir_spares_new_owner_of_name);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
