/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL end-to-end, permissions (issue #3): AUTH_SYS credentials other than
 * root against POSIX modes of the backing files.  Oracle: RFC 8881 6.2.1
 * / 18.1 (ACCESS), NFS4ERR_ACCESS for denied I/O and namespace changes,
 * NFS4ERR_PERM for owner-only SETATTRs, and the backing directory staying
 * untouched.  Needs root (the server runs as root, No_Root_Squash).
 */
#include <grp.h>

#include "e2e_fsal_util.h"

static struct nfs42_client *client_as(uint32_t uid, uint32_t gid,
				      uint32_t ngids, const uint32_t *gids)
{
	struct nfs42_client *cl = e2e_client();

	nfs42_set_cred(cl, uid, gid, ngids, gids);
	return cl;
}

/* chown/chmod through the server (keeps its attribute cache right) */
static void set_ids_mode(struct nfs42_client *root, const struct nfs42_fh *fh,
			 int uid, int gid, int mode)
{
	struct nfs42_compound *c = e2e_cpd(root, fh);
	char u[16], g[16];
	struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	snprintf(u, sizeof(u), "%d", uid);
	snprintf(g, sizeof(g), "%d", gid);
	if (uid >= 0)
		nfs42_sattr_owner(&sa, u);
	if (gid >= 0)
		nfs42_sattr_group(&sa, g);
	if (mode >= 0)
		nfs42_sattr_mode(&sa, mode);
	nfs42_op_setattr(c, &e2e_anon_stateid, &sa);
	ck_nfs_ok(root, e2e_cpd_run(c));
}

static uint32_t access_of(struct nfs42_client *cl, const struct nfs42_fh *fh,
			  uint32_t want)
{
	uint32_t supported, got = e2e_access(cl, fh, want, &supported);

	ck_assert_uint_eq(supported & want, want);
	return got;
}

START_TEST(root_file_0600_denied)
{
	struct nfs42_client *root = e2e_client(), *user;
	char *f = e2e_uniq("secret"), *bp = e2e_backing(f);
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_READ,
				   .createmode = NFS42_NOCREATE };
	struct nfs42_file of;
	struct nfs42_fh fh;
	uint32_t n;
	bool eof;
	char buf[16];

	e2e_put_backing(f, "top secret", 10);
	ck_assert_int_eq(chown(bp, 0, 0), 0);
	ck_assert_int_eq(chmod(bp, 0600), 0);
	fh = e2e_fh(root, f);
	user = client_as(1000, 1000, 0, NULL);
	/* OPEN for read: ACCESS */
	ck_nfs_status(e2e_open(user, f, &rq, &of), NFS4ERR_ACCESS);
	rq.access = OPEN4_SHARE_ACCESS_WRITE;
	ck_nfs_status(e2e_open(user, f, &rq, &of), NFS4ERR_ACCESS);
	/* READ with the anonymous stateid is checked too */
	ck_nfs_status(e2e_read(user, &fh, &e2e_anon_stateid, 0, 10, buf,
			       sizeof(buf), &n, &eof),
		      NFS4ERR_ACCESS);
	ck_nfs_status(e2e_write(user, &fh, &e2e_anon_stateid, 0, FILE_SYNC4,
				"X", 1, NULL, NULL, NULL),
		      NFS4ERR_ACCESS);
	e2e_bpread(f, buf, 10, 0);
	ck_assert_mem_eq(buf, "top secret", 10);
	/* ACCESS tells the same story */
	ck_assert_uint_eq(access_of(user, &fh, ACCESS4_READ | ACCESS4_MODIFY) &
				  (ACCESS4_READ | ACCESS4_MODIFY),
			  0);
	ck_assert_uint_eq(access_of(root, &fh, ACCESS4_READ | ACCESS4_MODIFY),
			  ACCESS4_READ | ACCESS4_MODIFY);
	/* chmod by a non-owner: PERM (RFC 8881 5.6 / 18.30) */
	{
		struct nfs42_sattr sa;
		struct nfs42_compound *c = e2e_cpd(user, &fh);

		nfs42_sattr_init(&sa);
		nfs42_sattr_mode(&sa, 0666);
		nfs42_op_setattr(c, &e2e_anon_stateid, &sa);
		ck_nfs_status(e2e_cpd_run(c), NFS4ERR_PERM);
		ck_assert_uint_eq(e2e_bstat(f).st_mode & 07777, 0600);
	}
	/* the owner reads it fine once it is theirs */
	set_ids_mode(root, &fh, 1000, 1000, -1);
	ck_assert_uint_eq(e2e_bstat(f).st_uid, 1000);
	rq.access = OPEN4_SHARE_ACCESS_READ;
	ck_nfs_ok(user, e2e_open(user, f, &rq, &of));
	ck_nfs_ok(user, e2e_read(user, &of.fh, &of.stateid, 0, 10, buf,
				 sizeof(buf), &n, &eof));
	ck_assert_uint_eq(n, 10);
	ck_nfs_ok(user, e2e_close(&of));
	/* ... but not another user */
	{
		struct nfs42_client *other = client_as(1001, 1001, 0, NULL);

		ck_nfs_status(e2e_open(other, f, &rq, &of), NFS4ERR_ACCESS);
		nfs42_client_free(other);
	}
	free(bp);
	free(f);
	nfs42_client_free(user);
	nfs42_client_free(root);
}
END_TEST

START_TEST(root_dir_0755_readonly_for_others)
{
	struct nfs42_client *root = e2e_client(), *user;
	char *d = e2e_uniq("rootdir"), *bp = e2e_backing(d);
	char *inside = e2e_fmt("%s/existing", d), *nf = e2e_fmt("%s/new", d);
	struct nfs42_sattr sa;
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = UNCHECKED4,
				   .attrs = &sa };
	struct nfs42_create_args ca = { .type = NF4DIR, .name = "sub" };
	struct nfs42_file of;
	struct nfs42_fh dfh;
	struct nfs42_compound *c;

	e2e_bmkdir(d, 0755);
	ck_assert_int_eq(chown(bp, 0, 0), 0);
	e2e_put_backing(inside, "x", 1);
	dfh = e2e_fh(root, d);
	user = client_as(1000, 1000, 0, NULL);
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0644);
	/* create a file: ACCESS */
	ck_nfs_status(e2e_open(user, nf, &rq, &of), NFS4ERR_ACCESS);
	ck_assert(!e2e_bexists(nf));
	/* mkdir: ACCESS */
	c = e2e_cpd(user, &dfh);
	nfs42_op_create(c, &ca);
	ck_nfs_status(e2e_cpd_run(c), NFS4ERR_ACCESS);
	/* remove and rename inside: ACCESS */
	c = e2e_cpd(user, &dfh);
	nfs42_op_remove(c, "existing");
	ck_nfs_status(e2e_cpd_run(c), NFS4ERR_ACCESS);
	ck_assert(e2e_bexists(inside));
	c = e2e_cpd(user, &dfh);
	nfs42_op_savefh(c);
	nfs42_op_rename(c, "existing", "renamed");
	ck_nfs_status(e2e_cpd_run(c), NFS4ERR_ACCESS);
	ck_assert(e2e_bexists(inside));
	/* but reading the directory is allowed */
	ck_assert_uint_eq(access_of(user, &dfh,
				    ACCESS4_LOOKUP | ACCESS4_READ |
					    ACCESS4_MODIFY),
			  ACCESS4_LOOKUP | ACCESS4_READ);
	{
		struct nfs42_fh fh;

		ck_nfs_ok(user, e2e_fh_rc(user, inside, &fh));
	}
	/* with group write and the right supplementary group: allowed */
	set_ids_mode(root, &dfh, 0, 4000, 0775);
	ck_assert_uint_eq(e2e_bstat(d).st_gid, 4000);
	ck_nfs_status(e2e_open(user, nf, &rq, &of), NFS4ERR_ACCESS);
	{
		uint32_t g = 4000;
		struct nfs42_client *member = client_as(1000, 1000, 1, &g);

		ck_nfs_ok(member, e2e_open(member, nf, &rq, &of));
		ck_nfs_ok(member, e2e_close(&of));
		ck_assert_uint_eq(e2e_bstat(nf).st_uid, 1000);
		ck_assert_uint_eq(e2e_bstat(nf).st_gid, 1000);
		nfs42_client_free(member);
	}
	/* a 0700 directory cannot even be searched */
	set_ids_mode(root, &dfh, -1, -1, 0700);
	{
		struct nfs42_fh fh;

		ck_nfs_status(e2e_fh_rc(user, inside, &fh), NFS4ERR_ACCESS);
	}
	free(bp);
	free(d);
	free(inside);
	free(nf);
	nfs42_client_free(user);
	nfs42_client_free(root);
}
END_TEST

/*
 * A truncate by a user other than root clears setuid (and setgid, by the
 * kernel's rules) as a local truncate by that user does, and as a WRITE
 * by the same user does (issue #16, item 5: the truncate ran with the
 * server's credentials, so uid 1000 truncating a root-owned 04777 file
 * left it setuid).  The oracle is the kernel itself: the same truncate
 * made locally by that user on a file of the same mode.
 */
static mode_t local_truncate(uint32_t uid, mode_t mode)
{
	char path[] = "/tmp/nfs-sparse-trunc-XXXXXX"; /* any user reaches */
	int fd = mkstemp(path), status;
	struct stat st;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	ck_assert_int_eq(chmod(path, mode), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 ||
		    setresuid(uid, uid, uid) != 0)
			_exit(2);
		fd = open(path, O_WRONLY);
		_exit(fd >= 0 && ftruncate(fd, 3) == 0 ? 0 : 3);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "local truncate as %u failed", uid);
	ck_assert_int_eq(lstat(path, &st), 0);
	unlink(path);
	return st.st_mode & 07777;
}

static mode_t truncate_as(uint32_t uid, int mode)
{
	struct nfs42_client *root = e2e_client(), *cl;
	char *f = e2e_uniq("setid-trunc");
	struct nfs42_compound *c;
	struct nfs42_sattr sa;
	struct nfs42_fh fh;
	struct stat st;

	e2e_put_backing(f, "#!/bin/sh\n", 10);
	fh = e2e_fh(root, f);
	set_ids_mode(root, &fh, 0, 0, mode);
	cl = client_as(uid, uid, 0, NULL);
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 3);
	c = e2e_cpd(cl, &fh);
	nfs42_op_setattr(c, &e2e_anon_stateid, &sa);
	ck_nfs_ok(cl, e2e_cpd_run(c));
	ck_assert_int_eq(lstat(e2e_backing(f), &st), 0);
	ck_assert_int_eq(st.st_size, 3);
	nfs42_client_free(cl);
	nfs42_client_free(root);
	return st.st_mode & 07777;
}

START_TEST(truncate_clears_setid_bits)
{
	static const struct {
		uint32_t uid;
		mode_t mode;
	} cases[] = { { 1000, 04777 },
		      { 1000, 02777 },
		      { 1000, 02767 },
		      { 1000, 06777 },
		      { 0, 06777 } };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mode_t local = local_truncate(cases[i].uid, cases[i].mode);
		mode_t nfs = truncate_as(cases[i].uid, cases[i].mode);

		ck_assert_msg(
			nfs == local,
			"uid %u truncated a %04o file: %04o over NFS, %04o locally",
			cases[i].uid, (unsigned int)cases[i].mode,
			(unsigned int)nfs, (unsigned int)local);
	}
	/* the case of the review, whatever the kernel's setgid rules */
	ck_assert_int_eq(local_truncate(1000, 04777) & S_ISUID, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_fsal_perms");
	TCase *tc = tcase_create("perms");

	e2e_require_root("e2e_fsal_perms");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, root_file_0600_denied);
	tcase_add_test(tc, root_dir_0755_readonly_for_others);
	tcase_add_test(tc, truncate_clears_setid_bits);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
