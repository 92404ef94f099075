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

/* ---- From the code review (was e2e_review_owner) ---- */

/*
 * From the code review: ownership on create: an unprivileged AUTH_SYS caller
 * must not be able to give a new object to another user or to a group it
 * is not a member of by passing owner/owner_group in the create attributes
 * (CREATE, OPEN/create).  Ganesha checks these for SETATTR only; a local
 * chown(2) by that user fails with EPERM.  Oracle: RFC 8881 18.4.3 /
 * 18.16.3 (createattrs are applied as by SETATTR, whose owner changes need
 * privilege: NFS4ERR_PERM), and the backing directory.  Needs root.
 */

static struct nfs42_client *user_client(void)
{
	struct nfs42_client *cl = e2e_client();

	nfs42_set_cred(cl, 1000, 1000, 0, NULL);
	return cl;
}

/* CREATE ca in dir as cl; returns the status. */
static int create_in(struct nfs42_client *cl, const struct nfs42_fh *dir,
		     const struct nfs42_create_args *ca)
{
	struct nfs42_compound *c = e2e_cpd(cl, dir);

	nfs42_op_create(c, ca);
	return e2e_cpd_run(c);
}

START_TEST(mkdir_cannot_give_away)
{
	struct nfs42_client *root = e2e_client(), *user = user_client();
	char *d = e2e_uniq("own-mkdir");
	struct nfs42_fh dfh = e2e_world_dir(root, d);
	struct nfs42_sattr sa;
	struct nfs42_create_args ca = { .type = NF4DIR, .attrs = &sa };

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0755);
	nfs42_sattr_owner(&sa, "2000");
	ca.name = "other-user";
	ck_nfs_status(create_in(user, &dfh, &ca), NFS4ERR_PERM);
	ck_assert(!e2e_bexists(e2e_fmt("%s/other-user", d)));

	nfs42_sattr_init(&sa);
	nfs42_sattr_group(&sa, "3000");
	ca.name = "other-group";
	ck_nfs_status(create_in(user, &dfh, &ca), NFS4ERR_PERM);
	ck_assert(!e2e_bexists(e2e_fmt("%s/other-group", d)));

	/* a group the caller is in is fine */
	nfs42_client_free(user);
	{
		uint32_t g = 3000;

		user = e2e_client();
		nfs42_set_cred(user, 1000, 1000, 1, &g);
	}
	ca.name = "own-group";
	ck_nfs_ok(user, create_in(user, &dfh, &ca));
	{
		struct stat st = e2e_bstat(e2e_fmt("%s/own-group", d));

		ck_assert_uint_eq(st.st_uid, 1000);
		ck_assert_uint_eq(st.st_gid, 3000);
	}
	nfs42_client_free(user);
	nfs42_client_free(root);
}
END_TEST

START_TEST(open_create_cannot_give_away)
{
	struct nfs42_client *root = e2e_client(), *user = user_client();
	char *d = e2e_uniq("own-open");
	struct nfs42_fh dfh = e2e_world_dir(root, d);
	struct nfs42_sattr sa;
	struct nfs42_file of;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0644);
	nfs42_sattr_owner(&sa, "0");
	ck_nfs_status(e2e_open_guarded(user, &dfh, "root-file", &sa, &of),
		      NFS4ERR_PERM);
	ck_assert(!e2e_bexists(e2e_fmt("%s/root-file", d)));
	/* root may */
	ck_nfs_ok(root, e2e_open_guarded(root, &dfh, "root-file", &sa, &of));
	ck_nfs_ok(root, e2e_close(&of));
	ck_assert_uint_eq(e2e_bstat(e2e_fmt("%s/root-file", d)).st_uid, 0);
	nfs42_client_free(user);
	nfs42_client_free(root);
}
END_TEST

/* ---- From the code review (was e2e_review_setattr) ---- */

/*
 * From the code review: SETATTR (issue #6 item 6):
 *  - mode and owner in one SETATTR: a chown clears S_ISUID/S_ISGID
 *    (chown(2)), so the mode the same request sets must be applied after
 *    the owner change, or the setuid/setgid bits it asked for are lost;
 *  - times on a symlink are applied (RFC 8881 5.8.2.37/5.8.2.41: time_*_set
 *    apply to every object type), not silently ignored.
 * Oracle: the request itself, and lstat() of the backing object.  Needs
 * root (owner changes, setuid bits).
 */

/* Owner 2000, group 3000 and mode 06755 in one set of attributes. */
static void setid_attrs(struct nfs42_sattr *sa)
{
	nfs42_sattr_init(sa);
	nfs42_sattr_owner(sa, "2000");
	nfs42_sattr_group(sa, "3000");
	nfs42_sattr_mode(sa, 06755);
}

/* The backing object rel has what setid_attrs() asked for. */
static void ck_setid_backing(const char *rel)
{
	struct stat st = e2e_bstat(rel);

	ck_assert_uint_eq(st.st_uid, 2000);
	ck_assert_uint_eq(st.st_gid, 3000);
	ck_assert_msg((st.st_mode & 07777) == 06755,
		      "backing mode %04o, want 6755 (setid bits lost)",
		      (unsigned int)(st.st_mode & 07777));
}

START_TEST(mode_and_owner_keep_setid_bits)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_MODE, -1);
	char *f = e2e_uniq("setid");
	struct nfs42_sattr sa;
	struct nfs42_fh fh;

	e2e_put_backing(f, "#!/bin/sh\n", 10);
	fh = e2e_fh(cl, f);
	setid_attrs(&sa);
	ck_nfs_ok(cl, e2e_setattr_fh(cl, &fh, &sa));
	ck_setid_backing(f);
	ck_assert_uint_eq(e2e_getattr(cl, &fh, &bm).mode, 06755);
	nfs42_client_free(cl);
}
END_TEST

/* The same through the create attributes of OPEN: the file is made with
 * its mode, then given away; the setid bits must survive that too.
 */
START_TEST(create_mode_and_owner_keep_setid_bits)
{
	struct nfs42_client *cl = e2e_client();
	char *d = e2e_uniq("setid-create");
	struct nfs42_fh dfh = e2e_world_dir(cl, d);
	struct nfs42_sattr sa;
	struct nfs42_file of;

	setid_attrs(&sa);
	ck_nfs_ok(cl, e2e_open_guarded(cl, &dfh, "f", &sa, &of));
	ck_nfs_ok(cl, e2e_close(&of));
	ck_setid_backing(e2e_fmt("%s/f", d));
	nfs42_client_free(cl);
}
END_TEST

/* time_modify_set to client time on a symlink: applied to the link itself
 * (the target is untouched), or refused with NFS4ERR_INVAL (no kernel
 * support) and nothing changed; any other status fails.
 */
START_TEST(symlink_times_applied)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_time mt = { .seconds = 1500000000, .nseconds = 123456789 };
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_TIME_MODIFY, -1);
	char *t = e2e_uniq("lnk-target"), *l = e2e_uniq("lnk");
	struct nfs42_sattr sa;
	struct stat before, st;
	struct nfs42_fh fh;
	char *bl = e2e_backing(l);
	int rc;

	e2e_put_backing(t, "t", 1);
	ck_assert_int_eq(symlink(t, bl), 0);
	free(bl);
	before = e2e_bstat(l);
	fh = e2e_fh(cl, l);
	nfs42_sattr_init(&sa);
	nfs42_sattr_mtime(&sa, &mt);
	rc = e2e_setattr_fh(cl, &fh, &sa);
	st = e2e_bstat(l);
	if (rc != NFS4_OK) {
		/* the one refusal allowed: a kernel that cannot set a link's
		 * times (utimensat AT_SYMLINK_NOFOLLOW: EINVAL)
		 */
		printf("symlink_times_applied: refused with %s\n",
		       nfs42_strerror(rc));
		ck_nfs_status(rc, NFS4ERR_INVAL);
		ck_assert_int_eq(st.st_mtim.tv_sec, before.st_mtim.tv_sec);
		ck_assert_int_eq(st.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
	} else {
		struct nfs42_attrs a = e2e_getattr(cl, &fh, &bm);
		bool set = st.st_mtim.tv_sec == mt.seconds &&
			   st.st_mtim.tv_nsec == mt.nseconds;

		ck_assert_msg(set, "SETATTR said OK, link mtime %lld.%09ld",
			      (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		ck_assert_int_eq(a.time_modify.seconds, mt.seconds);
		ck_assert_uint_eq(a.time_modify.nseconds, mt.nseconds);
	}
	/* never through the link */
	ck_assert_int_ne(e2e_bstat(t).st_mtim.tv_sec, mt.seconds);
	nfs42_client_free(cl);
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
	tcase_add_test(tc, mkdir_cannot_give_away);
	tcase_add_test(tc, open_create_cannot_give_away);
	tcase_add_test(tc, mode_and_owner_keep_setid_bits);
	tcase_add_test(tc, create_mode_and_owner_keep_setid_bits);
	tcase_add_test(tc, symlink_times_applied);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
