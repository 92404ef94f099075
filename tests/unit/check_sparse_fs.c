/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL_SPARSE's name and resolution helpers (sparse_fs.c, issue #16):
 * which names are one component, UUID text, and that sparse_open_beneath()
 * never leaves its directory, never follows a symbolic link and never
 * crosses a mount point, on a real tree in TMPDIR.  The mount case needs
 * root (a bind mount in a private mount namespace of this process); it is
 * reported and passed over without root.  And which filesystems reserve
 * space for fallocate (ALLOCATE): a mountinfo text names the mount's
 * type, CephFS (kernel or ceph-fuse) does not reserve, TMPDIR's does.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include "sparse_fs.h"

START_TEST(components)
{
	static const char *const good[] = { "a",
					    "file.txt",
					    "...",
					    ".a",
					    "a..",
					    "name with spaces",
					    "\xc3\xa9t\xc3\xa9" };
	static const char *const bad[] = { "",	   ".",		  "..",
					   "/",	   "a/b",	  "../x",
					   "x/..", "/etc/passwd", "a/" };
	char longest[NAME_MAX + 2];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(sparse_name_is_component(good[i]),
			      "\"%s\" refused", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!sparse_name_is_component(bad[i]),
			      "\"%s\" accepted", bad[i]);
	ck_assert(!sparse_name_is_component(NULL));
	memset(longest, 'n', NAME_MAX);
	longest[NAME_MAX] = '\0';
	ck_assert(sparse_name_is_component(longest));
	longest[NAME_MAX] = 'n';
	longest[NAME_MAX + 1] = '\0';
	ck_assert(!sparse_name_is_component(longest));
}
END_TEST

START_TEST(uuid_text)
{
	uint8_t u[SPARSE_UUID_LEN];

	ck_assert(sparse_uuid_parse("12345678-1234-4321-8765-0123456789ab", u));
	ck_assert_uint_eq(u[0], 0x12);
	ck_assert_uint_eq(u[15], 0xab);
	ck_assert(sparse_uuid_parse("123456781234432187650123456789AB", u));
	ck_assert(!sparse_uuid_parse("", u));
	ck_assert(!sparse_uuid_parse("12345678-1234-4321-8765-0123456789a", u));
	ck_assert(
		!sparse_uuid_parse("12345678-1234-4321-8765-0123456789abc", u));
	ck_assert(
		!sparse_uuid_parse("g2345678-1234-4321-8765-0123456789ab", u));
}
END_TEST

/* TMPDIR/check-sparse-fs-XXXXXX with d/a, d/sub/b, d/link -> ../outside,
 * outside/secret.
 */
static char tree[PATH_MAX];

static void at(const char *rel, char *buf)
{
	snprintf(buf, PATH_MAX, "%s/%s", tree, rel);
}

static void make_tree(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char p[PATH_MAX];
	int fd;

	snprintf(tree, sizeof(tree), "%s/check-sparse-fs-XXXXXX", tmp);
	ck_assert_ptr_nonnull(mkdtemp(tree));
	at("d", p);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	at("d/sub", p);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	at("outside", p);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	at("d/a", p);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	at("d/sub/b", p);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	at("outside/secret", p);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	at("d/link", p);
	ck_assert_int_eq(symlink("../outside", p), 0);
}

static void remove_tree(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	ck_assert_int_eq(system(cmd), 0);
}

static int open_d(void)
{
	char p[PATH_MAX];
	int fd;

	at("d", p);
	fd = open(p, O_PATH | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	return fd;
}

static void refused(int dirfd, const char *name, int err)
{
	int fd = sparse_open_beneath(dirfd, name, 0);

	ck_assert_msg(fd < 0, "\"%s\" was opened", name);
	ck_assert_msg(errno == err, "\"%s\": %s, expected %s", name,
		      strerror(errno), strerror(err));
}

START_TEST(open_beneath)
{
	struct stat st, d_st;
	int d, fd;

	make_tree();
	d = open_d();
	ck_assert_int_eq(fstat(d, &d_st), 0);

	fd = sparse_open_beneath(d, "a", 0);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = sparse_open_beneath(d, "sub/b", 0);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = sparse_open_beneath(d, ".", O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	close(fd);

	/* the last component that is a link: the link itself */
	fd = sparse_open_beneath(d, "link", 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstatat(fd, "", &st, AT_EMPTY_PATH), 0);
	ck_assert(S_ISLNK(st.st_mode));
	close(fd);

	refused(d, "../outside/secret", EXDEV);
	refused(d, "sub/../../outside", EXDEV);
	refused(d, "/etc/hostname", EXDEV);
	refused(d, "link/secret", ELOOP);
	refused(d, "nosuch", ENOENT);

	/* the parent of sub is d */
	fd = sparse_open_beneath(d, "sub", O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	{
		int up = sparse_open_parent(fd);

		ck_assert_int_ge(up, 0);
		ck_assert_int_eq(fstat(up, &st), 0);
		ck_assert_uint_eq(st.st_ino, d_st.st_ino);
		close(up);
	}
	close(fd);
	close(d);
	remove_tree();
}
END_TEST

/* A bind mount inside d, of a directory outside it, on the same
 * filesystem: same st_dev, still not crossed.
 */
START_TEST(bind_mount_not_crossed)
{
	char from[PATH_MAX], to[PATH_MAX];
	int d, fd, bm;

	if (geteuid() != 0 || unshare(CLONE_NEWNS) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		printf("bind_mount_not_crossed: needs root and a private mount namespace: not run\n");
		return;
	}
	make_tree();
	at("outside", from);
	at("d/bm", to);
	ck_assert_int_eq(mkdir(to, 0755), 0);
	ck_assert_int_eq(mount(from, to, NULL, MS_BIND, NULL), 0);
	d = open_d();
	refused(d, "bm", EXDEV);
	refused(d, "bm/secret", EXDEV);

	/* and ".." from the top of a mount does not go up either */
	bm = open(to, O_PATH | O_DIRECTORY);
	ck_assert_int_ge(bm, 0);
	fd = sparse_open_parent(bm);
	ck_assert_int_lt(fd, 0);
	ck_assert_int_eq(errno, EXDEV);
	close(bm);
	close(d);
	ck_assert_int_eq(umount2(to, MNT_DETACH), 0);
	remove_tree();
}
END_TEST

/* proc(5)'s mountinfo: optional tags before " - ", then the type */
static const char mountinfo_text[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"40 22 0:57 / /mnt/cephfs rw,nosuid,nodev,relatime shared:20 master:3 - fuse.ceph-fuse ceph-fuse rw,user_id=0\n"
	"41 22 0:58 /sub /mnt/k rw - ceph 10.0.0.1:/ rw,name=admin\n"
	"42 22 0:59 / /mnt/long rw - fuse.a-filesystem-type-name-longer-than-the-buffer x rw\n";

static int type_of(dev_t dev, char *type, size_t len)
{
	FILE *f = fmemopen((void *)mountinfo_text, sizeof(mountinfo_text) - 1,
			   "r");
	int rc;

	ck_assert_ptr_nonnull(f);
	rc = sparse_mount_type(f, dev, type, len);
	fclose(f);
	return rc;
}

START_TEST(space_reservation)
{
	const long ext4 = 0xEF53, xfs = 0x58465342, tmpfs = 0x01021994;
	const long fuse = 0x65735546, ceph = 0x00c36400;
	char type[64], small[8];
	struct statfs sf;
	int fd;

	ck_assert_int_eq(type_of(makedev(8, 1), type, sizeof(type)), 0);
	ck_assert_str_eq(type, "ext4");
	ck_assert_int_eq(type_of(makedev(0, 57), type, sizeof(type)), 0);
	ck_assert_str_eq(type, "fuse.ceph-fuse");
	ck_assert_int_eq(type_of(makedev(0, 58), type, sizeof(type)), 0);
	ck_assert_str_eq(type, "ceph");
	ck_assert_int_eq(type_of(makedev(0, 60), type, sizeof(type)), ENOENT);
	ck_assert_int_eq(type_of(makedev(0, 59), small, sizeof(small)),
			 ENAMETOOLONG);
	ck_assert_int_eq(type_of(makedev(8, 1), small, 5), 0);
	ck_assert_str_eq(small, "ext4");

	/* the local filesystems reserve; CephFS does not, by either client */
	ck_assert(sparse_fs_type_reserves(ext4, NULL));
	ck_assert(sparse_fs_type_reserves(xfs, NULL));
	ck_assert(sparse_fs_type_reserves(tmpfs, NULL));
	ck_assert(!sparse_fs_type_reserves(ceph, NULL));
	ck_assert(!sparse_fs_type_reserves(fuse, "fuse.ceph-fuse"));
	ck_assert(!sparse_fs_type_reserves(fuse, "fuse.ceph"));
	/* another FUSE filesystem, or one whose type is not known */
	ck_assert(sparse_fs_type_reserves(fuse, "fuse.glusterfs"));
	ck_assert(sparse_fs_type_reserves(fuse, NULL));
	/* a type name is only a FUSE subtype on a FUSE filesystem */
	ck_assert(sparse_fs_type_reserves(ext4, "fuse.ceph-fuse"));

	/* TMPDIR's filesystem, as an export's root would be looked at */
	make_tree();
	fd = open(tree, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstatfs(fd, &sf), 0);
	ck_assert_msg(sparse_fs_reserves_space(fd, sf.f_type),
		      "TMPDIR's filesystem (type 0x%lx) said not to reserve",
		      (unsigned long)sf.f_type);
	close(fd);
	remove_tree();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sparse_fs");
	TCase *tc = tcase_create("names");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, components);
	tcase_add_test(tc, uuid_text);
	tcase_add_test(tc, open_beneath);
	tcase_add_test(tc, bind_mount_not_crossed);
	tcase_add_test(tc, space_reservation);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
