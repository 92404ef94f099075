/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * NFSv4.2 CLONE (RFC 7862 15.13, issue #8): SAVED_FH is the source,
 * CURRENT_FH the destination.  clonefs-setup.sh mounts a fresh XFS with
 * reflink (300 MiB loop image) as the export /xfs (Export_Id 6); the
 * harness's own export is on ext4, which cannot share blocks.
 *   - on XFS a whole-file clone (count 0) and an aligned sub-range clone
 *     give exactly the source's bytes, and the blocks are shared (free
 *     space barely moves);
 *   - a misaligned range, a source range past EOF, overlapping ranges of
 *     one file are NFS4ERR_INVAL; a directory is NFS4ERR_ISDIR; a
 *     destination stateid open for reading only is NFS4ERR_OPENMODE; on
 *     ext4 NFS4ERR_NOTSUPP; and the destination is unchanged each time;
 *   - operations after CLONE in the compound run (GETATTR sees the size);
 *   - the CLI's cp --clone (nfs42_clone_file) copies a file byte for byte
 *     on XFS, sharing its blocks.
 * The XFS cases are skipped (exit 77) with the fixture's reason where it
 * could not be made.
 */
#include <sys/statvfs.h>

#include "e2e_fsal_util.h"

#ifndef E2E_CLONEFS_DIR
#error "E2E_CLONEFS_DIR must name the fixture directory"
#endif

#define MiB (1024 * 1024)

/* false (and the test skipped) where the XFS fixture could not be made */
static bool need_xfs(void)
{
	return e2e_fixture_ready(E2E_CLONEFS_DIR);
}

/* Local path of name on the XFS mount. */
static char *xpath(const char *name)
{
	return e2e_fmt("%s/x/%s", E2E_CLONEFS_DIR, name);
}

static void put_local(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	ck_assert_int_eq(fsync(fd), 0);
	close(fd);
}

/* The whole local file; *len gets its size. */
static uint8_t *get_local(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	b = malloc(st.st_size + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(pread(fd, b, st.st_size, 0), st.st_size);
	close(fd);
	*len = st.st_size;
	return b;
}

/* The local file is exactly want[0, len). */
static void ck_local_is(const char *path, const uint8_t *want, size_t len)
{
	size_t got_len;
	uint8_t *got = get_local(path, &got_len);

	ck_assert_uint_eq(got_len, len);
	ck_assert_msg(memcmp(got, want, len) == 0, "%s changed", path);
	free(got);
}

/* [PUTFH src, SAVEFH, PUTFH dst, CLONE]: CLONE's status. */
static int do_clone(const struct nfs42_file *src, const struct nfs42_file *dst,
		    uint64_t src_off, uint64_t dst_off, uint64_t count)
{
	struct nfs42_compound *c = e2e_cpd2(src->cl, &src->fh, &dst->fh);
	int i, rc;

	i = nfs42_op_clone(c, &src->stateid, &dst->stateid, src_off, dst_off,
			   count);
	rc = nfs42_compound_run(c);
	if (rc == 0)
		ck_assert_int_eq(e2e_op_status(c, i), NFS4_OK);
	nfs42_compound_free(c);
	return rc;
}

/* f's first len bytes read over NFS, compared with want. */
static void ck_nfs_is(const struct nfs42_file *f, const uint8_t *want,
		      size_t len)
{
	uint8_t *got = malloc(len);

	ck_assert_ptr_nonnull(got);
	e2e_read_all(f->cl, &f->fh, &f->stateid, 0, got, len);
	ck_assert_msg(memcmp(got, want, len) == 0, "NFS read differs");
	free(got);
	ck_assert_uint_eq(e2e_getattr(f->cl, &f->fh, NULL).size, len);
}

static uint64_t free_bytes(void)
{
	struct statvfs sv;

	ck_assert_int_eq(statvfs(E2E_CLONEFS_DIR "/x", &sv), 0);
	return (uint64_t)sv.f_bfree * sv.f_frsize;
}

START_TEST(whole_file_clone_shares_blocks)
{
	struct nfs42_client *cl;
	struct nfs42_fh dir;
	struct nfs42_file src, dst;
	uint8_t *data, *back;
	uint64_t before, after;
	size_t len;

	if (!need_xfs())
		return;
	data = e2e_rand_bytes(8 * MiB, 8);
	put_local(xpath("whole-src"), data, 8 * MiB);
	put_local(xpath("whole-dst"), "", 0);
	cl = e2e_client();
	ck_nfs_ok(cl, nfs42_lookup_path(cl, "/xfs", &dir, NULL));
	src = e2e_open_in(cl, &dir, "whole-src", OPEN4_SHARE_ACCESS_READ);
	dst = e2e_open_in(cl, &dir, "whole-dst", OPEN4_SHARE_ACCESS_BOTH);
	sync();
	before = free_bytes();

	ck_nfs_ok(cl, do_clone(&src, &dst, 0, 0, 0));

	sync();
	after = free_bytes();
	ck_assert_msg(before - after < MiB,
		      "clone of 8 MiB took %llu bytes of free space",
		      (unsigned long long)(before - after));
	back = get_local(xpath("whole-src"), &len);
	ck_assert_uint_eq(len, 8 * MiB);
	ck_nfs_is(&dst, back, len);
	ck_local_is(xpath("whole-dst"), back, len);
	free(back);
	free(data);
	nfs42_client_free(cl);
}
END_TEST

/* src 1 MiB (seed 1) and dst 1 MiB (seed 2) on XFS, opened; *blk the
 * source's st_blksize. */
struct pair {
	struct nfs42_client *cl;
	struct nfs42_file src, dst;
	uint8_t *s, *d;
	uint64_t blk;
};

static struct pair make_pair(const char *tag)
{
	struct pair p;
	struct nfs42_fh dir;
	struct stat st;
	char *sn = e2e_fmt("%s-src", tag), *dn = e2e_fmt("%s-dst", tag);

	p.s = e2e_rand_bytes(MiB, 1);
	p.d = e2e_rand_bytes(MiB, 2);
	put_local(xpath(sn), p.s, MiB);
	put_local(xpath(dn), p.d, MiB);
	ck_assert_int_eq(stat(xpath(sn), &st), 0);
	p.blk = st.st_blksize;
	p.cl = e2e_client();
	ck_nfs_ok(p.cl, nfs42_lookup_path(p.cl, "/xfs", &dir, NULL));
	p.src = e2e_open_in(p.cl, &dir, sn, OPEN4_SHARE_ACCESS_READ);
	p.dst = e2e_open_in(p.cl, &dir, dn, OPEN4_SHARE_ACCESS_BOTH);
	return p;
}

static void free_pair(struct pair *p)
{
	free(p->s);
	free(p->d);
	nfs42_client_free(p->cl);
}

START_TEST(aligned_subrange_changes_only_that_range)
{
	struct pair p;
	uint64_t so, dof, n;

	if (!need_xfs())
		return;
	p = make_pair("sub");
	so = 16 * p.blk;
	dof = 64 * p.blk;
	n = 32 * p.blk;
	ck_nfs_ok(p.cl, do_clone(&p.src, &p.dst, so, dof, n));
	memcpy(p.d + dof, p.s + so, n);
	ck_nfs_is(&p.dst, p.d, MiB);
	ck_local_is(xpath("sub-dst"), p.d, MiB);
	ck_local_is(xpath("sub-src"), p.s, MiB);
	free_pair(&p);
}
END_TEST

START_TEST(bad_ranges_are_inval_and_change_nothing)
{
	struct pair p;

	if (!need_xfs())
		return;
	p = make_pair("inval");
	/* misaligned offsets, and a misaligned count not at EOF */
	ck_nfs_status(do_clone(&p.src, &p.dst, p.blk + 512, 0, p.blk),
		      NFS4ERR_INVAL);
	ck_nfs_status(do_clone(&p.src, &p.dst, 0, 512, p.blk), NFS4ERR_INVAL);
	ck_nfs_status(do_clone(&p.src, &p.dst, 0, 0, p.blk + 1), NFS4ERR_INVAL);
	/* the source range past the source's EOF */
	ck_nfs_status(do_clone(&p.src, &p.dst, 0, 0, 2 * MiB), NFS4ERR_INVAL);
	ck_nfs_status(do_clone(&p.src, &p.dst, 2 * MiB, 0, 0), NFS4ERR_INVAL);
	ck_nfs_status(do_clone(&p.src, &p.dst, MiB - p.blk, 0, 2 * p.blk),
		      NFS4ERR_INVAL);
	/* overlapping ranges of one file */
	ck_nfs_status(do_clone(&p.dst, &p.dst, 0, p.blk, 4 * p.blk),
		      NFS4ERR_INVAL);
	ck_nfs_status(do_clone(&p.dst, &p.dst, 4 * p.blk, 0, 0), NFS4ERR_INVAL);
	ck_local_is(xpath("inval-dst"), p.d, MiB);
	ck_local_is(xpath("inval-src"), p.s, MiB);
	free_pair(&p);
}
END_TEST

START_TEST(same_file_disjoint_ranges_clone)
{
	struct pair p;

	if (!need_xfs())
		return;
	p = make_pair("self");
	ck_nfs_ok(p.cl, do_clone(&p.dst, &p.dst, 0, 8 * p.blk, 4 * p.blk));
	memcpy(p.d + 8 * p.blk, p.d, 4 * p.blk);
	ck_nfs_is(&p.dst, p.d, MiB);
	free_pair(&p);
}
END_TEST

START_TEST(read_only_destination_is_openmode)
{
	struct pair p;
	struct nfs42_fh dir;
	struct nfs42_file ro;

	if (!need_xfs())
		return;
	p = make_pair("ro");
	ck_nfs_ok(p.cl, nfs42_lookup_path(p.cl, "/xfs", &dir, NULL));
	ro = e2e_open_in(p.cl, &dir, "ro-dst", OPEN4_SHARE_ACCESS_READ);
	ck_nfs_status(do_clone(&p.src, &ro, 0, 0, 4 * p.blk), NFS4ERR_OPENMODE);
	ck_local_is(xpath("ro-dst"), p.d, MiB);
	free_pair(&p);
}
END_TEST

START_TEST(directory_source_is_isdir)
{
	struct pair p;
	struct nfs42_file d;

	if (!need_xfs())
		return;
	p = make_pair("dir");
	d = p.src;
	ck_nfs_ok(p.cl, nfs42_lookup_path(p.cl, "/xfs", &d.fh, NULL));
	d.stateid = e2e_anon_stateid;
	ck_nfs_status(do_clone(&d, &p.dst, 0, 0, 0), NFS4ERR_ISDIR);
	ck_nfs_status(do_clone(&p.src, &d, 0, 0, 0), NFS4ERR_ISDIR);
	ck_local_is(xpath("dir-dst"), p.d, MiB);
	free_pair(&p);
}
END_TEST

/* CLONE then GETATTR in one compound: GETATTR runs and sees the size. */
START_TEST(ops_after_clone_run)
{
	struct nfs42_bitmap bm = nfs42_bm_stat();
	struct nfs42_compound *c;
	struct nfs42_client *cl;
	struct nfs42_fh dir;
	struct nfs42_file src, dst;
	uint8_t *data;
	int ci, gi;

	if (!need_xfs())
		return;
	data = e2e_rand_bytes(MiB, 3);
	put_local(xpath("then-src"), data, MiB);
	put_local(xpath("then-dst"), "", 0);
	cl = e2e_client();
	ck_nfs_ok(cl, nfs42_lookup_path(cl, "/xfs", &dir, NULL));
	src = e2e_open_in(cl, &dir, "then-src", OPEN4_SHARE_ACCESS_READ);
	dst = e2e_open_in(cl, &dir, "then-dst", OPEN4_SHARE_ACCESS_BOTH);
	/* the size of the empty destination is cached first */
	ck_assert_uint_eq(e2e_getattr(cl, &dst.fh, NULL).size, 0);

	c = e2e_cpd2(cl, &src.fh, &dst.fh);
	ci = nfs42_op_clone(c, &src.stateid, &dst.stateid, 0, 0, 0);
	gi = nfs42_op_getattr(c, &bm);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	ck_assert_int_eq(e2e_op_status(c, ci), NFS4_OK);
	ck_assert_uint_eq(nfs42_res(c, gi)->u.getattr->size, MiB);
	nfs42_compound_free(c);
	ck_nfs_is(&dst, data, MiB);
	free(data);
	nfs42_client_free(cl);
}
END_TEST

/* Exit status of `nfs42 cp --clone src dst` (the CLI, $SPARSE_NFS42). */
static int cli_clone(const char *src, const char *dst)
{
	const char *argv[10] = { e2e_env("SPARSE_NFS42"),
				 "-s",
				 e2e_env("NFS42_HOST"),
				 "-p",
				 e2e_env("NFS42_PORT"),
				 "cp",
				 "--clone",
				 src,
				 dst,
				 NULL };
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * The CLI's cp --clone on XFS: 5 MiB and a few bytes (EOF not on a block
 * boundary) over a larger existing file and into a new one: byte for
 * byte the source, its mode on the new file, blocks shared.
 */
START_TEST(cli_cp_clone)
{
	size_t n = 5 * MiB + 123;
	uint8_t *data, *old;
	uint64_t before, after;
	struct stat st;

	if (!need_xfs())
		return;
	data = e2e_rand_bytes(n, 9);
	old = e2e_rand_bytes(7 * MiB, 10);
	put_local(xpath("cli-src"), data, n);
	ck_assert_int_eq(chmod(xpath("cli-src"), 0640), 0);
	put_local(xpath("cli-old"), old, 7 * MiB);
	sync();
	before = free_bytes();
	ck_assert_int_eq(cli_clone("/xfs/cli-src", "/xfs/cli-old"), 0);
	ck_assert_int_eq(cli_clone("/xfs/cli-src", "/xfs/cli-new"), 0);
	sync();
	after = free_bytes();
	ck_local_is(xpath("cli-old"), data, n);
	ck_local_is(xpath("cli-new"), data, n);
	ck_assert_int_eq(stat(xpath("cli-new"), &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	/* two 5 MiB copies, 7 MiB freed: shared, free space grew */
	ck_assert_msg(after + MiB > before,
		      "free space %llu before, %llu after two clones",
		      (unsigned long long)before, (unsigned long long)after);
	free(old);
	free(data);
}
END_TEST

/* The harness's export is on ext4: no shared blocks, NOTSUPP. */
START_TEST(ext4_is_notsupp_and_changes_nothing)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_file src, dst;
	char *sn = e2e_uniq("clone-src"), *dn = e2e_uniq("clone-dst");
	uint8_t *s = e2e_rand_bytes(MiB, 4), *d = e2e_rand_bytes(MiB, 5);
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = NFS42_NOCREATE };

	e2e_put_backing(sn, s, MiB);
	e2e_put_backing(dn, d, MiB);
	ck_nfs_ok(cl, e2e_open(cl, sn, &rq, &src));
	ck_nfs_ok(cl, e2e_open(cl, dn, &rq, &dst));
	ck_nfs_status(do_clone(&src, &dst, 0, 0, 0), NFS4ERR_NOTSUPP);
	ck_nfs_status(do_clone(&src, &dst, 0, 65536, 65536), NFS4ERR_NOTSUPP);
	ck_local_is(e2e_backing(dn), d, MiB);
	free(s);
	free(d);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_proto_clone");
	TCase *tc = tcase_create("clone");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, whole_file_clone_shares_blocks);
	tcase_add_test(tc, aligned_subrange_changes_only_that_range);
	tcase_add_test(tc, bad_ranges_are_inval_and_change_nothing);
	tcase_add_test(tc, same_file_disjoint_ranges_clone);
	tcase_add_test(tc, read_only_destination_is_openmode);
	tcase_add_test(tc, directory_source_is_isdir);
	tcase_add_test(tc, ops_after_clone_run);
	tcase_add_test(tc, ext4_is_notsupp_and_changes_nothing);
	tcase_add_test(tc, cli_cp_clone);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
