/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL end-to-end, attributes (issue #3): GETATTR/SETATTR of size
 * (truncate, extend keeping the hole), mode, owner/group, atime/mtime
 * (client and server time), the change attribute on every data and
 * metadata change, space_used, fsid, fileid and numlinks -- each compared
 * with lstat() of the backing file.
 */
#include "e2e_fsal_util.h"

static int setattr_fh(struct nfs42_client *cl, const struct nfs42_fh *fh,
		      const struct nfs42_stateid *sid,
		      const struct nfs42_sattr *sa, struct nfs42_bitmap *set)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	int rc, i;

	i = nfs42_op_setattr(c, sid ? sid : &e2e_anon_stateid, sa);
	rc = nfs42_compound_run(c);
	if (set && nfs42_res(c, i))
		*set = nfs42_res(c, i)->u.setattr;
	nfs42_compound_free(c);
	return rc;
}

START_TEST(size_truncate_and_extend)
{
	struct nfs42_client *cl = e2e_client();
	const size_t n = 100000;
	uint8_t *data = e2e_rand_bytes(n, 7), buf[4096];
	char *f = e2e_uniq("size");
	struct nfs42_sattr sa;
	struct nfs42_bitmap set;
	struct nfs42_file of;
	struct nfs42_attrs a;
	struct stat st;

	e2e_put_backing(f, data, n);
	of = e2e_open_rw(cl, f);
	/* truncate to 10000 */
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 10000);
	ck_nfs_ok(cl, setattr_fh(cl, &of.fh, &of.stateid, &sa, &set));
	ck_assert(nfs42_bm_isset(&set, FATTR4_SIZE));
	st = e2e_bstat(f);
	ck_assert_uint_eq(st.st_size, 10000);
	a = e2e_getattr(cl, &of.fh, NULL);
	ck_assert_uint_eq(a.size, 10000);
	e2e_bpread(f, buf, 4096, 10000 - 4096);
	ck_assert_mem_eq(buf, data + 10000 - 4096, 4096);
	/* extend to 64 MiB: the backing file keeps a hole */
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 64ull << 20);
	ck_nfs_ok(cl, setattr_fh(cl, &of.fh, &of.stateid, &sa, NULL));
	st = e2e_bstat(f);
	ck_assert_uint_eq(st.st_size, 64ull << 20);
	ck_assert_msg((uint64_t)st.st_blocks * 512 < (1u << 20),
		      "extend allocated %llu bytes",
		      (unsigned long long)st.st_blocks * 512);
	/* the backing file has a hole right after the old data */
	ck_assert_int_lt(e2e_bseek(f, 0, SEEK_HOLE), 1 << 20);
	ck_assert_int_eq(e2e_bseek(f, 1 << 20, SEEK_DATA), -1);
	a = e2e_getattr(cl, &of.fh, NULL);
	ck_assert_uint_eq(a.size, 64ull << 20);
	ck_assert_uint_eq(a.space_used, (uint64_t)st.st_blocks * 512);
	/* the new range reads as zeros, the old range is intact */
	e2e_read_all(cl, &of.fh, &of.stateid, 32ull << 20, buf, 4096);
	ck_assert(e2e_all_zero(buf, 4096));
	e2e_read_all(cl, &of.fh, &of.stateid, 0, buf, 4096);
	ck_assert_mem_eq(buf, data, 4096);
	/* size 0 */
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 0);
	ck_nfs_ok(cl, setattr_fh(cl, &of.fh, &of.stateid, &sa, NULL));
	ck_assert_uint_eq(e2e_bstat(f).st_size, 0);
	ck_assert_uint_eq(e2e_getattr(cl, &of.fh, NULL).size, 0);
	ck_nfs_ok(cl, e2e_close(&of));
	/* size on a directory: RFC 8881 18.30.4: ISDIR */
	{
		char *d = e2e_uniq("sized");
		struct nfs42_fh dfh;

		e2e_bmkdir(d, 0755);
		dfh = e2e_fh(cl, d);
		ck_nfs_status(setattr_fh(cl, &dfh, NULL, &sa, NULL),
			      NFS4ERR_ISDIR);
		free(d);
	}
	free(data);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(mode)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("mode"), *d = e2e_uniq("moded");
	static const uint32_t modes[] = { 0741, 0600, 04755, 02710, 01777, 0 };
	struct nfs42_sattr sa;
	struct nfs42_fh fh, dfh;

	e2e_put_backing(f, "m", 1);
	e2e_bmkdir(d, 0755);
	fh = e2e_fh(cl, f);
	dfh = e2e_fh(cl, d);
	for (int i = 0; i < (int)(sizeof(modes) / sizeof(modes[0])); i++) {
		nfs42_sattr_init(&sa);
		nfs42_sattr_mode(&sa, modes[i]);
		ck_nfs_ok(cl, setattr_fh(cl, &fh, NULL, &sa, NULL));
		ck_assert_msg((e2e_bstat(f).st_mode & 07777) == modes[i],
			      "backing mode %o, set %o",
			      e2e_bstat(f).st_mode & 07777, modes[i]);
		ck_assert_uint_eq(e2e_getattr(cl, &fh, NULL).mode, modes[i]);
		ck_assert(S_ISREG(e2e_bstat(f).st_mode));
		ck_nfs_ok(cl, setattr_fh(cl, &dfh, NULL, &sa, NULL));
		ck_assert_uint_eq(e2e_bstat(d).st_mode & 07777, modes[i]);
		ck_assert_uint_eq(e2e_getattr(cl, &dfh, NULL).mode, modes[i]);
	}
	/* bits above 07777 are not file-type bits: the type never changes */
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0140644); /* S_IFSOCK | 0644 */
	if (setattr_fh(cl, &fh, NULL, &sa, NULL) == 0)
		ck_assert_uint_eq(e2e_bstat(f).st_mode & 07777, 0644);
	ck_assert(S_ISREG(e2e_bstat(f).st_mode));
	ck_assert_uint_eq(e2e_getattr(cl, &fh, NULL).type, NF4REG);
	free(f);
	free(d);
	nfs42_client_free(cl);
}
END_TEST

/* The uid an owner string names: "1000" or "name@domain". */
static bool owner_is(const char *s, uint32_t want, bool group)
{
	uint32_t id;

	if (nfs42_owner_to_id(s, group, &id) == 0)
		return id == want;
	return false;
}

START_TEST(owner_and_group)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("own");
	struct nfs42_sattr sa;
	struct nfs42_attrs a;
	struct nfs42_fh fh;
	struct stat st;

	e2e_put_backing(f, "o", 1);
	fh = e2e_fh(cl, f);
	/* root-owned: the owner string names uid 0 ("root@localdomain") */
	a = e2e_getattr(cl, &fh, NULL);
	ck_assert(nfs42_bm_isset(&a.mask, FATTR4_OWNER));
	ck_assert_msg(owner_is(a.owner, 0, false), "owner '%s' is not root",
		      a.owner);
	ck_assert_msg(owner_is(a.owner_group, 0, true),
		      "group '%s' is not root", a.owner_group);
	/* numeric owner strings: backing ids follow */
	nfs42_sattr_init(&sa);
	nfs42_sattr_owner(&sa, "1000");
	nfs42_sattr_group(&sa, "1000");
	ck_nfs_ok(cl, setattr_fh(cl, &fh, NULL, &sa, NULL));
	st = e2e_bstat(f);
	ck_assert_uint_eq(st.st_uid, 1000);
	ck_assert_uint_eq(st.st_gid, 1000);
	a = e2e_getattr(cl, &fh, NULL);
	printf("owner_and_group: uid 1000 reads back as '%s' / '%s'\n", a.owner,
	       a.owner_group);
	ck_assert_msg(owner_is(a.owner, 1000, false), "owner '%s' != 1000",
		      a.owner);
	ck_assert_msg(owner_is(a.owner_group, 1000, true), "group '%s' != 1000",
		      a.owner_group);
	/* the string the server returned is accepted back: set root, then
	 * the returned strings */
	{
		char o[NFS42_OWNER_MAX], g[NFS42_OWNER_MAX];

		snprintf(o, sizeof(o), "%s", a.owner);
		snprintf(g, sizeof(g), "%s", a.owner_group);
		nfs42_sattr_init(&sa);
		nfs42_sattr_owner(&sa, "0");
		nfs42_sattr_group(&sa, "0");
		ck_nfs_ok(cl, setattr_fh(cl, &fh, NULL, &sa, NULL));
		ck_assert_uint_eq(e2e_bstat(f).st_uid, 0);
		ck_assert_uint_eq(e2e_bstat(f).st_gid, 0);
		nfs42_sattr_init(&sa);
		nfs42_sattr_owner(&sa, o);
		nfs42_sattr_group(&sa, g);
		ck_nfs_ok(cl, setattr_fh(cl, &fh, NULL, &sa, NULL));
		ck_assert_uint_eq(e2e_bstat(f).st_uid, 1000);
		ck_assert_uint_eq(e2e_bstat(f).st_gid, 1000);
	}
	/* group only */
	nfs42_sattr_init(&sa);
	nfs42_sattr_group(&sa, "4242");
	ck_nfs_ok(cl, setattr_fh(cl, &fh, NULL, &sa, NULL));
	st = e2e_bstat(f);
	ck_assert_uint_eq(st.st_uid, 1000);
	ck_assert_uint_eq(st.st_gid, 4242);
	/*
	 * An owner nobody knows: RFC 8881 5.9 lets the server refuse it
	 * (NFS4ERR_BADOWNER) -- Ganesha maps it to the anonymous uid
	 * instead.  Either way it must never become root or stay silently
	 * unchanged.
	 */
	nfs42_sattr_init(&sa);
	nfs42_sattr_owner(&sa, "no-such-user-xyz@nowhere.invalid");
	{
		int rc = setattr_fh(cl, &fh, NULL, &sa, NULL);

		if (rc == NFS4ERR_BADOWNER) {
			ck_assert_uint_eq(e2e_bstat(f).st_uid, 1000);
		} else {
			ck_nfs_ok(cl, rc);
			printf("owner_and_group: unknown owner -> uid %u\n",
			       (unsigned int)e2e_bstat(f).st_uid);
			ck_assert_uint_ne(e2e_bstat(f).st_uid, 0);
			ck_assert_uint_ne(e2e_bstat(f).st_uid, 1000);
		}
	}
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(times_client_and_server)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_time at = { .seconds = 1234567890, .nseconds = 123456789 };
	struct nfs42_time mt = { .seconds = 1500000000, .nseconds = 987654321 };
	char *f = e2e_uniq("times");
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_TIME_ACCESS,
					       FATTR4_TIME_MODIFY,
					       FATTR4_TIME_METADATA, -1);
	struct nfs42_sattr sa;
	struct nfs42_attrs a;
	struct nfs42_fh fh;
	struct timespec t0, t1;
	struct stat st;

	e2e_put_backing(f, "t", 1);
	fh = e2e_fh(cl, f);
	nfs42_sattr_init(&sa);
	nfs42_sattr_atime(&sa, &at);
	nfs42_sattr_mtime(&sa, &mt);
	ck_nfs_ok(cl, setattr_fh(cl, &fh, NULL, &sa, NULL));
	st = e2e_bstat(f);
	ck_assert_int_eq(st.st_atim.tv_sec, at.seconds);
	ck_assert_int_eq(st.st_atim.tv_nsec, at.nseconds);
	ck_assert_int_eq(st.st_mtim.tv_sec, mt.seconds);
	ck_assert_int_eq(st.st_mtim.tv_nsec, mt.nseconds);
	a = e2e_getattr(cl, &fh, &bm);
	ck_assert_int_eq(a.time_access.seconds, at.seconds);
	ck_assert_uint_eq(a.time_access.nseconds, at.nseconds);
	ck_assert_int_eq(a.time_modify.seconds, mt.seconds);
	ck_assert_uint_eq(a.time_modify.nseconds, mt.nseconds);
	ck_assert_int_eq(a.time_metadata.seconds, st.st_ctim.tv_sec);
	ck_assert_uint_eq(a.time_metadata.nseconds, st.st_ctim.tv_nsec);
	/* SET_TO_SERVER_TIME4 for both: the server's clock is ours */
	clock_gettime(CLOCK_REALTIME, &t0);
	nfs42_sattr_init(&sa);
	nfs42_sattr_atime(&sa, NULL);
	nfs42_sattr_mtime(&sa, NULL);
	ck_nfs_ok(cl, setattr_fh(cl, &fh, NULL, &sa, NULL));
	clock_gettime(CLOCK_REALTIME, &t1);
	st = e2e_bstat(f);
	ck_assert_int_ge(st.st_mtim.tv_sec, t0.tv_sec - 1);
	ck_assert_int_le(st.st_mtim.tv_sec, t1.tv_sec + 1);
	ck_assert_int_ge(st.st_atim.tv_sec, t0.tv_sec - 1);
	ck_assert_int_le(st.st_atim.tv_sec, t1.tv_sec + 1);
	a = e2e_getattr(cl, &fh, &bm);
	ck_assert_int_eq(a.time_modify.seconds, st.st_mtim.tv_sec);
	ck_assert_uint_eq(a.time_modify.nseconds, st.st_mtim.tv_nsec);
	ck_assert_int_eq(a.time_access.seconds, st.st_atim.tv_sec);
	ck_assert_uint_eq(a.time_access.nseconds, st.st_atim.tv_nsec);
	/* mtime only: atime stays */
	nfs42_sattr_init(&sa);
	nfs42_sattr_mtime(&sa, &mt);
	ck_nfs_ok(cl, setattr_fh(cl, &fh, NULL, &sa, NULL));
	ck_assert_int_eq(e2e_bstat(f).st_mtim.tv_sec, mt.seconds);
	ck_assert_int_eq(e2e_bstat(f).st_atim.tv_sec, st.st_atim.tv_sec);
	ck_assert_int_eq(e2e_bstat(f).st_atim.tv_nsec, st.st_atim.tv_nsec);
	/* a WRITE moves mtime to now */
	{
		struct nfs42_file of = e2e_open_rw(cl, f);

		ck_nfs_ok(cl, nfs42_pwrite(&of, "w", 1, 0, FILE_SYNC4));
		ck_nfs_ok(cl, e2e_close(&of));
		ck_assert_int_ge(e2e_bstat(f).st_mtim.tv_sec, t0.tv_sec - 1);
		a = e2e_getattr(cl, &fh, &bm);
		ck_assert_int_eq(a.time_modify.seconds,
				 e2e_bstat(f).st_mtim.tv_sec);
	}
	free(f);
	nfs42_client_free(cl);
}
END_TEST

/* the backing file's atime set to 2020-01-01, mtime kept */
static void backing_atime_2020(const char *rel)
{
	struct timespec ts[2] = { { .tv_sec = 1577836800 },
				  { .tv_nsec = UTIME_OMIT } };
	char *p = e2e_backing(rel);

	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
}

static int ignore_stream(void *arg, uint64_t offset, uint64_t len,
			 const void *data)
{
	(void)arg;
	(void)offset;
	(void)len;
	(void)data;
	return 0;
}

/* GETATTR's atime is the backing file's, to the nanosecond */
static void ck_atime_is_backing(struct nfs42_client *cl,
				const struct nfs42_fh *fh, const char *rel,
				const char *after)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_TIME_ACCESS, -1);
	struct nfs42_attrs a = e2e_getattr(cl, fh, &bm);
	struct stat st = e2e_bstat(rel);

	ck_assert_msg(
		a.time_access.seconds == st.st_atim.tv_sec &&
			a.time_access.nseconds == st.st_atim.tv_nsec,
		"after %s: GETATTR atime %lld.%09u, backing file %lld.%09ld",
		after, (long long)a.time_access.seconds, a.time_access.nseconds,
		(long long)st.st_atim.tv_sec, st.st_atim.tv_nsec);
}

/*
 * A read moves atime as the exported filesystem says (its relatime,
 * noatime...), and GETATTR shows it at once, after READ and READ_PLUS
 * alike (patch 0140): MDCACHE set "now" after READ whatever the mount
 * said, and kept the cached atime after READ_PLUS.
 */
START_TEST(read_moves_atime)
{
	struct nfs42_client *cl = e2e_client();
	uint8_t *data = e2e_rand_bytes(8192, 31), buf[4096];
	char *f = e2e_uniq("atime");
	struct nfs42_file of;
	uint32_t n;
	bool eof;

	e2e_put_backing(f, data, 8192);
	backing_atime_2020(f);
	of = e2e_open_rw(cl, f);
	ck_atime_is_backing(cl, &of.fh, f, "open");
	/* relatime: the first read after a change moves the backing atime */
	ck_nfs_ok(cl, nfs42_pread(&of, buf, sizeof(buf), 0, &n, &eof));
	ck_assert_int_gt(e2e_bstat(f).st_atim.tv_sec, 1577836800);
	ck_atime_is_backing(cl, &of.fh, f, "READ");
	/* a second read: relatime keeps it (atime is past mtime) */
	ck_nfs_ok(cl, nfs42_pread(&of, buf, sizeof(buf), 4096, &n, &eof));
	ck_atime_is_backing(cl, &of.fh, f, "a second READ");
	/* READ_PLUS, the backing atime set back behind the server's cache */
	backing_atime_2020(f);
	ck_nfs_ok(cl,
		  nfs42_read_plus(&of, 0, 8192, 1, ignore_stream, NULL, NULL));
	ck_assert_int_gt(e2e_bstat(f).st_atim.tv_sec, 1577836800);
	ck_atime_is_backing(cl, &of.fh, f, "READ_PLUS");
	ck_nfs_ok(cl, e2e_close(&of));
	free(data);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(change_attribute_moves)
{
	struct nfs42_client *cl = e2e_client();
	char *d = e2e_uniq("chg"), *f = e2e_fmt("%s/file", d);
	struct nfs42_fh dfh;
	struct nfs42_file of;
	struct nfs42_sattr sa;
	uint64_t c0, c1, dc0, dc1;
	int i;

	e2e_bmkdir(d, 0755);
	e2e_put_backing(f, "0123456789", 10);
	dfh = e2e_fh(cl, d);
	of = e2e_open_rw(cl, f);
	/* no change, no movement */
	c0 = e2e_change(cl, &of.fh);
	ck_assert_uint_eq(e2e_change(cl, &of.fh), c0);
	/* every WRITE, back to back */
	for (i = 0; i < 10; i++) {
		ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, i, UNSTABLE4,
					"x", 1, NULL, NULL, NULL));
		c1 = e2e_change(cl, &of.fh);
		ck_assert_msg(c1 != c0, "WRITE %d did not move change (%llu)",
			      i, (unsigned long long)c1);
		c0 = c1;
	}
	/* SETATTR mode, size, mtime */
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0600);
	ck_nfs_ok(cl, setattr_fh(cl, &of.fh, NULL, &sa, NULL));
	c1 = e2e_change(cl, &of.fh);
	ck_assert_uint_ne(c1, c0);
	c0 = c1;
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 3);
	ck_nfs_ok(cl, setattr_fh(cl, &of.fh, &of.stateid, &sa, NULL));
	c1 = e2e_change(cl, &of.fh);
	ck_assert_uint_ne(c1, c0);
	c0 = c1;
	nfs42_sattr_init(&sa);
	nfs42_sattr_mtime(&sa, &(struct nfs42_time){ .seconds = 99 });
	ck_nfs_ok(cl, setattr_fh(cl, &of.fh, NULL, &sa, NULL));
	c1 = e2e_change(cl, &of.fh);
	ck_assert_uint_ne(c1, c0);
	c0 = c1;
	/* a hard link is a metadata change (ctime, numlinks) */
	{
		struct nfs42_compound *c = e2e_cpd2(cl, &of.fh, &dfh);

		nfs42_op_link(c, "link2");
		ck_nfs_ok(cl, e2e_cpd_run(c));
	}
	c1 = e2e_change(cl, &of.fh);
	ck_assert_uint_ne(c1, c0);
	ck_nfs_ok(cl, e2e_close(&of));

	/* the directory: create, remove, rename inside it */
	dc0 = e2e_change(cl, &dfh);
	ck_assert_uint_eq(e2e_change(cl, &dfh), dc0);
	{
		char *p = e2e_path(d), *q;

		ck_assert_int_gt(asprintf(&q, "%s/newdir", p), 0);
		ck_nfs_ok(cl, nfs42_mkdir(cl, q, 0755));
		dc1 = e2e_change(cl, &dfh);
		ck_assert_uint_ne(dc1, dc0);
		dc0 = dc1;
		free(q);
		ck_assert_int_gt(asprintf(&q, "%s/link2", p), 0);
		ck_nfs_ok(cl, nfs42_remove(cl, q));
		dc1 = e2e_change(cl, &dfh);
		ck_assert_uint_ne(dc1, dc0);
		dc0 = dc1;
		free(q);
		{
			char *r;

			ck_assert_int_gt(asprintf(&q, "%s/file", p), 0);
			ck_assert_int_gt(asprintf(&r, "%s/renamed", p), 0);
			ck_nfs_ok(cl, nfs42_rename(cl, q, r));
			free(r);
		}
		dc1 = e2e_change(cl, &dfh);
		ck_assert_uint_ne(dc1, dc0);
		free(q);
		free(p);
	}
	free(d);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(space_used_reflects_allocation)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("space"), *g = e2e_uniq("dense");
	struct nfs42_bitmap bm =
		nfs42_bm_make(FATTR4_SIZE, FATTR4_SPACE_USED, -1);
	uint8_t *data = e2e_rand_bytes(1 << 20, 3);
	struct nfs42_sattr sa;
	struct nfs42_file of;
	struct nfs42_attrs a;
	struct stat st;

	/* 1 MiB file with only 4 KiB written */
	of = e2e_create_rw(cl, f);
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 1 << 20);
	ck_nfs_ok(cl, setattr_fh(cl, &of.fh, &of.stateid, &sa, NULL));
	ck_nfs_ok(cl, nfs42_pwrite(&of, data, 4096, 0, FILE_SYNC4));
	ck_nfs_ok(cl, e2e_close(&of));
	a = e2e_getattr(cl, &of.fh, &bm);
	st = e2e_bstat(f);
	ck_assert_uint_eq(a.size, 1 << 20);
	ck_assert(nfs42_bm_isset(&a.mask, FATTR4_SPACE_USED));
	ck_assert_uint_eq(a.space_used, (uint64_t)st.st_blocks * 512);
	ck_assert_msg(a.space_used < (256u << 10), "space_used %llu",
		      (unsigned long long)a.space_used);
	ck_assert_uint_ge(a.space_used, 4096);
	/* the same size fully written */
	of = e2e_create_rw(cl, g);
	ck_nfs_ok(cl, nfs42_pwrite(&of, data, 1 << 20, 0, FILE_SYNC4));
	ck_nfs_ok(cl, e2e_close(&of));
	a = e2e_getattr(cl, &of.fh, &bm);
	st = e2e_bstat(g);
	ck_assert_uint_eq(a.space_used, (uint64_t)st.st_blocks * 512);
	ck_assert_uint_ge(a.space_used, 1 << 20);
	free(data);
	free(f);
	free(g);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(fsid_fileid_numlinks)
{
	struct nfs42_client *cl = e2e_client();
	char *d = e2e_uniq("ids"), *f = e2e_fmt("%s/f", d);
	char *s1 = e2e_fmt("%s/s1", d), *s2 = e2e_fmt("%s/s2", d);
	char *sl = e2e_fmt("%s/sl", d);
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_TYPE, FATTR4_FSID,
					       FATTR4_FILEID, FATTR4_NUMLINKS,
					       FATTR4_MOUNTED_ON_FILEID, -1);
	struct nfs42_attrs ar, ad, af, as;
	char *bp, *bq;

	e2e_bmkdir(d, 0755);
	e2e_bmkdir(s1, 0755);
	e2e_bmkdir(s2, 0755);
	e2e_put_backing(f, "f", 1);
	bp = e2e_backing(f);
	bq = e2e_backing(sl);
	ck_assert_int_eq(symlink("f", bq), 0);
	free(bq);
	bq = e2e_backing("ids-hardlink-target");
	unlink(bq);
	ck_assert_int_eq(link(bp, bq), 0);
	free(bp);
	free(bq);
	ar = e2e_stat(cl, "", &bm);
	ad = e2e_stat(cl, d, &bm);
	af = e2e_stat(cl, f, &bm);
	as = e2e_stat(cl, sl, &bm);
	/* one file system: one fsid */
	ck_assert(nfs42_bm_isset(&af.mask, FATTR4_FSID));
	ck_assert_uint_eq(ad.fsid.major, ar.fsid.major);
	ck_assert_uint_eq(ad.fsid.minor, ar.fsid.minor);
	ck_assert_uint_eq(af.fsid.major, ar.fsid.major);
	ck_assert_uint_eq(af.fsid.minor, ar.fsid.minor);
	ck_assert_uint_eq(as.fsid.major, ar.fsid.major);
	/* fileid == st_ino, numlinks == st_nlink */
	ck_assert_uint_eq(ar.fileid, e2e_bstat("").st_ino);
	ck_assert_uint_eq(ad.fileid, e2e_bstat(d).st_ino);
	ck_assert_uint_eq(af.fileid, e2e_bstat(f).st_ino);
	ck_assert_uint_eq(as.fileid, e2e_bstat(sl).st_ino);
	ck_assert_uint_eq(ad.numlinks, e2e_bstat(d).st_nlink);
	ck_assert_uint_eq(ad.numlinks, 4); /* ., .., s1/.., s2/.. */
	ck_assert_uint_eq(af.numlinks, e2e_bstat(f).st_nlink);
	ck_assert_uint_eq(af.numlinks, 2);
	ck_assert_uint_eq(as.numlinks, 1);
	ck_assert_uint_eq(as.type, NF4LNK);
	/* two different objects never share a fileid */
	ck_assert_uint_ne(af.fileid, ad.fileid);
	free(d);
	free(f);
	free(s1);
	free(s2);
	free(sl);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(supported_attrs_cover_posix)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_SUPPORTED_ATTRS, -1);
	struct nfs42_attrs a = e2e_stat(cl, "", &bm);
	static const int want[] = {
		FATTR4_TYPE,
		FATTR4_CHANGE,
		FATTR4_SIZE,
		FATTR4_FSID,
		FATTR4_FILEHANDLE,
		FATTR4_FILEID,
		FATTR4_MODE,
		FATTR4_NUMLINKS,
		FATTR4_OWNER,
		FATTR4_OWNER_GROUP,
		FATTR4_RAWDEV,
		FATTR4_SPACE_USED,
		FATTR4_TIME_ACCESS,
		FATTR4_TIME_METADATA,
		FATTR4_TIME_MODIFY,
		FATTR4_TIME_ACCESS_SET,
		FATTR4_TIME_MODIFY_SET,
	};

	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(nfs42_bm_isset(&a.supported_attrs, want[i]),
			      "attribute %d not supported", want[i]);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_fsal_attrs");
	TCase *tc = tcase_create("attrs");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, size_truncate_and_extend);
	tcase_add_test(tc, mode);
	tcase_add_test(tc, owner_and_group);
	tcase_add_test(tc, times_client_and_server);
	tcase_add_test(tc, read_moves_atime);
	tcase_add_test(tc, change_attribute_moves);
	tcase_add_test(tc, space_used_reflects_allocation);
	tcase_add_test(tc, fsid_fileid_numlinks);
	tcase_add_test(tc, supported_attrs_cover_posix);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
