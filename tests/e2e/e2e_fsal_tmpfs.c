/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL_SPARSE on a tmpfs export (harness --export-tmpfs), with MDCACHE's
 * dirent cache off (Dir_Chunk = 0) so that every READDIR reaches the FSAL
 * with the client's cookie.  FSAL_SPARSE's cookies are the kernel's d_off;
 * on a tmpfs (kernel 6.18 here) a seek to a d_off after which no entry is
 * left (they were removed since) lists the directory from its first
 * entry again, so a client resuming there got the first entries again,
 * and the Linux client and ours looped for ever (found on a minimal Debian
 * whose /tmp is a tmpfs).  A resumed listing on tmpfs whose first entry is
 * the directory's first entry has started over: it ends there.
 *
 * "enospc" (a run of its own: the export's tmpfs is cut to 16 MiB, with
 * write delegations): after ALLOCATE has reserved all but 64 KiB of it,
 * a WRITE of 1 MiB to another file is NFS4ERR_NOSPC, as knfsd answers
 * (issue #32), the ALLOCATE under the open stateid and under the write
 * delegation's.
 */
#include <sys/mount.h>
#include <sys/statvfs.h>

#include "e2e_fsal_util.h"

#define N_FILES 24

/* One READDIR of dir from cookie, at most maxcount bytes of reply: the
 * names (appended to seen, counting repeats) and the last cookie.
 */
static int readdir_page(struct nfs42_client *cl, const struct nfs42_fh *dir,
			uint64_t cookie, const uint8_t *verf,
			struct e2e_names *seen, unsigned int *repeats,
			uint64_t *last, uint8_t *verf_out, bool *eof)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, -1);
	struct nfs42_compound *c = e2e_cpd(cl, dir);
	const struct nfs42_res *r;
	uint32_t i;
	int idx, rc;

	idx = nfs42_op_readdir(c, cookie, verf, 256, 512, &bm);
	rc = nfs42_compound_run(c);
	if (rc != 0) {
		nfs42_compound_free(c);
		return rc;
	}
	r = nfs42_res(c, idx);
	for (i = 0; i < r->u.readdir.n; i++) {
		struct nfs42_dirent e = r->u.readdir.entries[i];

		if (e2e_names_has(seen, e.name))
			(*repeats)++;
		else
			e2e_names_collect(seen, &e);
		*last = e.cookie;
	}
	memcpy(verf_out, r->u.readdir.cookieverf, NFS4_VERIFIER_SIZE);
	*eof = r->u.readdir.eof;
	nfs42_compound_free(c);
	return 0;
}

/*
 * Make N_FILES entries in a new directory, READDIR a first page, remove
 * `removed` of the entries the page did not list (the first of them
 * when removed is 1, all of them when it is N_FILES), then READDIR on
 * from the page's last cookie until eof: no entry may come twice, none
 * removed may come, every other must.
 */
static void resume_after_removes(unsigned int removed)
{
	struct nfs42_client *cl = e2e_client();
	char *dir = e2e_fmt("d-%d-%u", (int)getpid(), removed);
	struct e2e_names first = { 0 }, seen;
	uint8_t verf[NFS4_VERIFIER_SIZE] = { 0 };
	unsigned int repeats = 0, pages, gone = 0, i;
	struct nfs42_fh dfh;
	uint64_t cookie = 0;
	bool eof = false;

	ck_assert_int_eq(mkdir(e2e_backing(dir), 0755), 0);
	for (i = 0; i < N_FILES; i++)
		e2e_put_backing(e2e_fmt("%s/f%02u", dir, i), "x", 1);
	dfh = e2e_fh(cl, dir);

	ck_nfs_ok(cl, readdir_page(cl, &dfh, 0, verf, &first, &repeats, &cookie,
				   verf, &eof));
	ck_assert_msg(!eof && first.n > 0 && first.n < N_FILES,
		      "the first page holds %d of %d entries", first.n,
		      N_FILES);
	/* the tmpfs lists the newest first: f23, f22, ... */
	for (i = N_FILES; i-- > 0 && gone < removed;) {
		char *name = e2e_fmt("f%02u", i);

		if (e2e_names_has(&first, name))
			continue;
		ck_assert_int_eq(
			unlink(e2e_backing(e2e_fmt("%s/%s", dir, name))), 0);
		gone++;
	}

	seen = first;
	for (pages = 1; !eof && pages < 4 * N_FILES; pages++)
		ck_nfs_ok(cl, readdir_page(cl, &dfh, cookie, verf, &seen,
					   &repeats, &cookie, verf, &eof));
	ck_assert_msg(eof, "READDIR did not end after %u pages", pages);
	ck_assert_msg(repeats == 0,
		      "resuming after %u removed entries gave %u entries again",
		      gone, repeats);
	ck_assert_msg(seen.n == (int)(N_FILES - gone),
		      "%d entries listed, expected %u", seen.n, N_FILES - gone);
	nfs42_client_free(cl);
}

START_TEST(readdir_resumes_after_the_next_is_removed)
{
	resume_after_removes(1);
}
END_TEST

/* Nothing left after the cookie: tmpfs then lists from the start again */
START_TEST(readdir_ends_when_the_rest_is_removed)
{
	resume_after_removes(N_FILES);
}
END_TEST

/*
 * The change attribute moves on every change made through the server,
 * also where the kernel's timestamps are one clock tick coarse (tmpfs
 * here; ext4/XFS before Linux 6.13): CREATEs in one directory, each
 * followed by a GETATTR of the directory in the same compound, and
 * WRITEs to one file, each followed by a GETATTR of it, back to back:
 * every value differs from the one before, and every CREATE's
 * change_info has after != before.  FSAL_SPARSE reported max(ctime,
 * mtime), equal for changes within one tick (fsal_sparse.md).
 */
#define N_CHANGES 200

START_TEST(change_moves_within_a_tick)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_CHANGE, -1);
	struct nfs42_client *cl = e2e_client();
	char *dir = e2e_fmt("c-%d", (int)getpid());
	unsigned int i, same_dir = 0, same_cinfo = 0, same_file = 0;
	struct nfs42_stateid anon = { 0 };
	struct nfs42_fh dfh, ffh;
	uint64_t last = 0;

	ck_assert_int_eq(mkdir(e2e_backing(dir), 0755), 0);
	e2e_put_backing(e2e_fmt("%s/f", dir), "x", 1);
	dfh = e2e_fh(cl, dir);
	ffh = e2e_fh(cl, e2e_fmt("%s/f", dir));

	for (i = 0; i < N_CHANGES; i++) {
		struct nfs42_create_args a = { .type = NF4DIR,
					       .name = e2e_fmt("d%03u", i) };
		struct nfs42_compound *c = e2e_cpd(cl, &dfh);
		const struct nfs42_res *cr;
		int ci, gi;
		uint64_t now;

		ci = nfs42_op_create(c, &a);
		nfs42_op_putfh(c, &dfh);
		gi = nfs42_op_getattr(c, &bm);
		ck_nfs_ok(cl, nfs42_compound_run(c));
		cr = nfs42_res(c, ci);
		now = nfs42_res(c, gi)->u.getattr->change;
		same_cinfo += cr->u.create.cinfo.after ==
			      cr->u.create.cinfo.before;
		same_dir += i > 0 && now == last;
		last = now;
		nfs42_compound_free(c);
	}
	last = 0;
	for (i = 0; i < N_CHANGES; i++) {
		struct nfs42_compound *c = e2e_cpd(cl, &ffh);
		uint64_t now;
		int gi;

		nfs42_op_write(c, &anon, i, FILE_SYNC4, "y", 1);
		gi = nfs42_op_getattr(c, &bm);
		ck_nfs_ok(cl, nfs42_compound_run(c));
		now = nfs42_res(c, gi)->u.getattr->change;
		same_file += i > 0 && now == last;
		last = now;
		nfs42_compound_free(c);
	}
	ck_assert_msg(
		same_dir == 0 && same_cinfo == 0 && same_file == 0,
		"of %d changes each, the change attribute did not move: %u times for the directory, %u times in CREATE's change_info, %u times for the file",
		N_CHANGES, same_dir, same_cinfo, same_file);
	nfs42_client_free(cl);
}
END_TEST

static uint64_t backing_free(void)
{
	struct statvfs sv;

	ck_assert_int_eq(statvfs(e2e_env("NFS42_BACKING"), &sv), 0);
	return (uint64_t)sv.f_bavail * sv.f_frsize;
}

/* ALLOCATE of all but 64 KiB of the export (under the write delegation's
 * stateid when deleg), then 1 MiB FILE_SYNC to another file. */
static void allocate_then_write(bool deleg)
{
	static char mib[1 << 20];
	struct nfs42_client *cl = e2e_client();
	const char *tag = deleg ? "deleg" : "open";
	struct nfs42_compound *c;
	struct nfs42_file a, b;
	uint64_t avail;
	char *na, *nb;

	ck_assert_int_gt(asprintf(&na, "enospc-a-%s", tag), 0);
	ck_assert_int_gt(asprintf(&nb, "enospc-b-%s", tag), 0);
	ck_nfs_ok(cl,
		  nfs42_open(cl, e2e_path(na),
			     OPEN4_SHARE_ACCESS_BOTH |
				     (deleg ? 0 :
					      OPEN4_SHARE_ACCESS_WANT_NO_DELEG),
			     UNCHECKED4, 0644, true, &a));
	if (deleg)
		ck_assert_uint_eq(a.deleg_type, OPEN_DELEGATE_WRITE);
	avail = backing_free();
	ck_assert_uint_gt(avail, 1 << 20);
	c = nfs42_compound_new(cl);
	nfs42_op_putfh(c, &a.fh);
	nfs42_op_allocate(c, deleg ? &a.deleg_stateid : &a.stateid, 0,
			  avail - 65536);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	nfs42_compound_free(c);
	ck_assert_uint_le(backing_free(), 65536);

	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(nb),
				 OPEN4_SHARE_ACCESS_BOTH |
					 OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
				 UNCHECKED4, 0644, true, &b));
	memset(mib, 'x', sizeof(mib));
	ck_nfs_status(nfs42_pwrite(&b, mib, sizeof(mib), 0, FILE_SYNC4),
		      NFS4ERR_NOSPC);
	ck_nfs_ok(cl, nfs42_close(&b));
	ck_nfs_ok(cl, nfs42_close(&a));
	/* the space back for the next case */
	ck_nfs_ok(cl, nfs42_remove(cl, e2e_path(na)));
	ck_nfs_ok(cl, nfs42_remove(cl, e2e_path(nb)));
	nfs42_client_free(cl);
	free(na);
	free(nb);
}

START_TEST(allocate_leaves_no_space_for_others)
{
	/* the harness's tmpfs, in this run's mount namespace */
	ck_assert_int_eq(mount("nfs-sparse-export", e2e_env("NFS42_BACKING"),
			       NULL, MS_REMOUNT, "size=16m,mode=0755"),
			 0);
	allocate_then_write(false);
	allocate_then_write(true);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("fsal_tmpfs");
	TCase *tc = tcase_create("tmpfs");

	tcase_set_timeout(tc, 120);
	if (argc > 1 && strcmp(argv[1], "enospc") == 0) {
		tcase_add_test(tc, allocate_leaves_no_space_for_others);
		suite_add_tcase(s, tc);
		return e2e_run(s);
	}
	tcase_add_test(tc, readdir_resumes_after_the_next_is_removed);
	tcase_add_test(tc, readdir_ends_when_the_rest_is_removed);
	tcase_add_test(tc, change_moves_within_a_tick);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
