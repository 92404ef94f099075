/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL_SPARSE handles (issue #6): an export serves only objects of its own
 * tree, whatever handle a client presents.
 *
 * The harness's export is NFS42_BACKING = <work>/export; <work> itself is
 * on the same filesystem and outside the export.  Handles are forged here
 * with the export's real key (read from the backing root's trusted xattr,
 * we run as root on the server's machine), so that the confinement check
 * is what refuses an outside object, not the tag; a forged handle of an
 * inside object is accepted, which shows the forging is right.
 */
#include <libgen.h>

#include "e2e_fsal_handle_util.h"

struct forge_ctx {
	struct nfs42_client *cl;
	struct nfs42_fh root;
	uint64_t ident;
	uint8_t key[SPARSE_FH_KEY_BYTES];
};

static struct forge_ctx forge_ctx(void)
{
	struct forge_ctx f;

	f.cl = e2e_client();
	f.root = e2e_fh(f.cl, "");
	f.ident = e2e_fs_ident(f.cl, &f.root, e2e_env("NFS42_BACKING"));
	e2e_handle_key(e2e_env("NFS42_BACKING"), f.key);
	return f;
}

/* <work>/name: next to the export, on the same filesystem */
static char *outside(const char *name)
{
	char *b = strdup(e2e_env("NFS42_BACKING"));
	char *p = e2e_fmt("%s/%s", dirname(b), name);

	free(b);
	return p;
}

static void put_local(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int getattr_of(struct forge_ctx *f, const struct nfs42_fh *fh,
		      struct nfs42_attrs *a)
{
	return e2e_getattr_rc(f->cl, fh, NULL, a);
}

/* Positive control: a forged handle of an inside file is the file. */
START_TEST(forged_inside_file_is_accepted)
{
	struct forge_ctx f = forge_ctx();
	char *name = e2e_uniq("inside");
	struct nfs42_attrs a;
	struct nfs42_fh fh;

	e2e_put_backing(name, "inside!", 7);
	fh = e2e_forge(&f.root, e2e_backing(name), f.ident, f.key);
	ck_nfs_ok(f.cl, getattr_of(&f, &fh, &a));
	ck_assert_uint_eq(a.fileid, e2e_bstat(name).st_ino);
	ck_assert_uint_eq(a.size, 7);
	/* and it is the very handle the server gives out by LOOKUP */
	ck_assert_uint_eq(fh.len, e2e_fh(f.cl, name).len);
	ck_assert_mem_eq(fh.data, e2e_fh(f.cl, name).data, fh.len);
	nfs42_client_free(f.cl);
}
END_TEST

START_TEST(outside_directory_is_stale)
{
	struct forge_ctx f = forge_ctx();
	char *dir = outside(e2e_uniq("outdir"));
	struct nfs42_attrs a;
	struct nfs42_fh fh;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	fh = e2e_forge(&f.root, dir, f.ident, f.key);
	ck_nfs_status(getattr_of(&f, &fh, &a), NFS4ERR_STALE);
	/* the parent of the export too */
	fh = e2e_forge(&f.root, outside(""), f.ident, f.key);
	ck_nfs_status(getattr_of(&f, &fh, &a), NFS4ERR_STALE);
	rmdir(dir);
	nfs42_client_free(f.cl);
}
END_TEST

START_TEST(outside_file_is_stale)
{
	struct forge_ctx f = forge_ctx();
	char *file = outside(e2e_uniq("outfile"));
	struct nfs42_attrs a;
	struct nfs42_fh fh;
	struct stat st;

	put_local(file, "secret");
	ck_assert_int_eq(stat(file, &st), 0);
	fh = e2e_forge(&f.root, file, f.ident, f.key);
	ck_nfs_status(getattr_of(&f, &fh, &a), NFS4ERR_STALE);
	unlink(file);
	nfs42_client_free(f.cl);
}
END_TEST

/* A symbolic link outside (whose target is inside, or missing) too. */
START_TEST(outside_symlink_is_stale)
{
	struct forge_ctx f = forge_ctx();
	char *inside = e2e_uniq("target");
	char *to_inside = outside(e2e_uniq("outlink"));
	char *dangling = outside(e2e_uniq("outdangling"));
	struct nfs42_attrs a;
	struct nfs42_fh fh;
	struct stat st;

	e2e_put_backing(inside, "t", 1);
	ck_assert_int_eq(symlink(e2e_backing(inside), to_inside), 0);
	ck_assert_int_eq(symlink("no-such-target", dangling), 0);
	ck_assert_int_eq(lstat(to_inside, &st), 0);
	ck_assert_int_eq(lstat(dangling, &st), 0);
	fh = e2e_forge(&f.root, to_inside, f.ident, f.key);
	ck_nfs_status(getattr_of(&f, &fh, &a), NFS4ERR_STALE);
	fh = e2e_forge(&f.root, dangling, f.ident, f.key);
	ck_nfs_status(getattr_of(&f, &fh, &a), NFS4ERR_STALE);
	unlink(to_inside);
	unlink(dangling);
	nfs42_client_free(f.cl);
}
END_TEST

/* Without the key a client cannot make a handle the export accepts. */
START_TEST(wrong_tag_is_stale)
{
	struct forge_ctx f = forge_ctx();
	char *name = e2e_uniq("tagged");
	uint8_t other[SPARSE_FH_KEY_BYTES] = { 0 };
	struct nfs42_attrs a;
	struct nfs42_fh fh;

	e2e_put_backing(name, "x", 1);
	fh = e2e_forge(&f.root, e2e_backing(name), f.ident, other);
	ck_nfs_status(getattr_of(&f, &fh, &a), NFS4ERR_STALE);
	fh = e2e_forge(&f.root, e2e_backing(name), f.ident, f.key);
	fh.data[fh.len - 1] ^= 0x40;
	ck_nfs_status(getattr_of(&f, &fh, &a), NFS4ERR_STALE);
	nfs42_client_free(f.cl);
}
END_TEST

/* A handle of another filesystem (even with a valid tag) is STALE. */
START_TEST(other_filesystem_is_stale)
{
	struct forge_ctx f = forge_ctx();
	char *name = e2e_uniq("otherfs");
	struct nfs42_attrs a;
	struct nfs42_fh fh;

	e2e_put_backing(name, "x", 1);
	fh = e2e_forge(&f.root, e2e_backing(name), f.ident ^ 1, f.key);
	ck_nfs_status(getattr_of(&f, &fh, &a), NFS4ERR_STALE);
	/* a version 2 handle whose identity is not its export's */
	fh = e2e_forge_v2(&f.root, e2e_backing(name), f.ident ^ 1, f.key);
	ck_nfs_status(getattr_of(&f, &fh, &a), NFS4ERR_STALE);
	nfs42_client_free(f.cl);
}
END_TEST

/* Handles of the previous format (version 1) are STALE, not a crash. */
START_TEST(version1_handle_is_stale)
{
	struct forge_ctx f = forge_ctx();
	char *name = e2e_uniq("v1");
	struct sparse_fh s;
	struct nfs42_attrs a;
	struct nfs42_fh fh;
	uint8_t v1[SPARSE_FH_MAX_LEN];
	size_t n;
	const uint8_t *kb;

	e2e_put_backing(name, "x", 1);
	s = e2e_key_form(e2e_backing(name), f.ident);
	kb = sparse_fh_kernel_bytes(&s, &n);
	v1[0] = SPARSE_FH_VERSION_V1;
	v1[1] = (uint8_t)n;
	memcpy(v1 + 2, s.bytes + 2, 4); /* type */
	memcpy(v1 + 6, kb, n);
	fh = e2e_rewrap(&f.root, v1, 6 + n);
	ck_nfs_status(getattr_of(&f, &fh, &a), NFS4ERR_STALE);
	/* the server still answers */
	ck_nfs_ok(f.cl, getattr_of(&f, &f.root, &a));
	nfs42_client_free(f.cl);
}
END_TEST

/*
 * Objects given out while inside and moved out by a local user: after a
 * restart (cold cache) their handles are STALE; the handle of an object
 * that stayed inside works.
 */
START_TEST(moved_out_while_server_down_is_stale)
{
	struct nfs42_client *cl = e2e_client();
	char *dir = e2e_uniq("movedir"), *file = e2e_uniq("movefile");
	char *stay = e2e_uniq("staydir");
	char *out_dir = outside(dir), *out_file = outside(file);
	struct nfs42_fh dfh, ffh, sfh;
	struct nfs42_attrs a;
	struct stat st;

	e2e_bmkdir(dir, 0755);
	e2e_bmkdir(stay, 0755);
	e2e_bmkdir(e2e_fmt("%s/deep", stay), 0755);
	e2e_put_backing(file, "moving", 6);
	dfh = e2e_fh(cl, dir);
	ffh = e2e_fh(cl, file);
	sfh = e2e_fh(cl, e2e_fmt("%s/deep", stay));
	nfs42_client_free(cl);

	e2e_server_ctl("stop");
	ck_assert_int_eq(rename(e2e_backing(dir), out_dir), 0);
	ck_assert_int_eq(rename(e2e_backing(file), out_file), 0);
	ck_assert_int_eq(stat(out_file, &st), 0);
	e2e_server_ctl("start");
	cl = e2e_client_after_restart();

	ck_nfs_status(e2e_getattr_rc(cl, &dfh, NULL, &a), NFS4ERR_STALE);
	ck_nfs_status(e2e_getattr_rc(cl, &ffh, NULL, &a), NFS4ERR_STALE);
	ck_nfs_ok(cl, e2e_getattr_rc(cl, &sfh, NULL, &a));
	ck_assert_uint_eq(a.type, NF4DIR);
	rmdir(out_dir);
	unlink(out_file);
	nfs42_client_free(cl);
}
END_TEST

/* The handle key is made once and kept: handles survive restarts. */
START_TEST(handles_and_key_survive_restart)
{
	struct forge_ctx f = forge_ctx();
	char *name = e2e_uniq("keep");
	uint8_t key_after[SPARSE_FH_KEY_BYTES];
	struct nfs42_attrs a;
	struct nfs42_fh fh;

	e2e_put_backing(name, "kept", 4);
	fh = e2e_fh(f.cl, name);
	nfs42_client_free(f.cl);
	e2e_server_ctl("restart");
	f.cl = e2e_client_after_restart();
	e2e_handle_key(e2e_env("NFS42_BACKING"), key_after);
	ck_assert_mem_eq(key_after, f.key, SPARSE_FH_KEY_BYTES);
	ck_nfs_ok(f.cl, getattr_of(&f, &fh, &a));
	ck_assert_uint_eq(a.size, 4);
	nfs42_client_free(f.cl);
}
END_TEST

/* ---- From the code review (was e2e_review_handles) ---- */

/*
 * From the code review: handles: FSAL_SPARSE handle bytes that are framed by
 * a valid Ganesha wrapper but are themselves malformed must be refused with
 * NFS4ERR_BADHANDLE (RFC 8881 15.1.2.1), never resolved or turned into
 * NFS4ERR_INVAL.
 *
 * An NFSv4 handle from Ganesha is its 5-byte wrapper (version, flags,
 * export id, fs_len) followed by fs_len FSAL bytes; FSAL_SPARSE's bytes are
 * [3][n][type][n kernel bytes][tag x8] (compact) or, from servers before it,
 * [2][n][type x4][fs identity x8][n kernel bytes][tag x8] (sparse_fh.h).  A handle whose tag is wrong is STALE before the kernel
 * sees it, so the cases that reach the kernel carry the export's real tag.
 */

#define WRAP_LEN E2E_WRAP_LEN

/* The export root's handle, checked to have the expected framing. */
static struct nfs42_fh root_fh(struct nfs42_client *cl)
{
	struct nfs42_fh fh = e2e_fh(cl, "");

	ck_assert_uint_eq(fh.data[WRAP_LEN - 1], fh.len - WRAP_LEN);
	ck_assert_int_eq(sparse_fh_classify(fh.data + WRAP_LEN,
					    fh.len - WRAP_LEN),
			 SPARSE_FH_WIRE3);
	return fh;
}

/* Replace the FSAL part of fh by len bytes. */
static void set_fsal_part(struct nfs42_fh *fh, const uint8_t *b, size_t len)
{
	memcpy(fh->data + WRAP_LEN, b, len);
	fh->data[WRAP_LEN - 1] = (uint8_t)len;
	fh->len = WRAP_LEN + len;
}

static int getattr_rc(struct nfs42_client *cl, const struct nfs42_fh *fh)
{
	struct nfs42_attrs a;

	return e2e_getattr_rc(cl, fh, NULL, &a);
}

/* Copy the FSAL part of fh to b (64 bytes); returns its length. */
static size_t get_fsal_part(const struct nfs42_fh *fh, uint8_t *b)
{
	size_t len = fh->len - WRAP_LEN;

	memcpy(b, fh->data + WRAP_LEN, len);
	return len;
}

/* Make the FSAL part of fh the len bytes b: GETATTR must say BADHANDLE. */
static void ck_badhandle(struct nfs42_client *cl, struct nfs42_fh *fh,
			 const uint8_t *b, size_t len, const char *what)
{
	int rc;

	set_fsal_part(fh, b, len);
	rc = getattr_rc(cl, fh);
	ck_assert_msg(rc == NFS4ERR_BADHANDLE,
		      "%s: got %s (%d), want NFS4ERR_BADHANDLE", what,
		      nfs42_strerror(rc), rc);
}

/* A kernel handle of 0 bytes: open_by_handle_at says EINVAL. */
START_TEST(empty_kernel_handle)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = root_fh(cl);
	uint8_t b[64];

	get_fsal_part(&fh, b);
	b[0] = SPARSE_FH_VERSION;
	b[1] = 0;
	ck_badhandle(cl, &fh, b, SPARSE_FH_HDR_LEN + SPARSE_FH_TAG_LEN,
		     "0-byte kernel handle");
	nfs42_client_free(cl);
}
END_TEST

/* A negative kernel handle type: open_by_handle_at says EINVAL. */
START_TEST(bad_kernel_handle_type)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = root_fh(cl);
	uint8_t b[64], key[SPARSE_FH_KEY_BYTES];
	size_t len = get_fsal_part(&fh, b);
	struct sparse_fh s;

	e2e_handle_key(e2e_env("NFS42_BACKING"), key);
	ck_assert(sparse_fh_from_bytes(
		b, len, e2e_fs_ident(cl, &fh, e2e_env("NFS42_BACKING")), &s));
	s.bytes[5] = 0xff; /* type byte 3: sign bit (only version 2 holds it) */
	len = sparse_fh_to_wire(&s, key, b);
	ck_assert_uint_eq(b[0], SPARSE_FH_VERSION);
	ck_badhandle(cl, &fh, b, len, "negative handle type");
	nfs42_client_free(cl);
}
END_TEST

/* Trailing bytes after the kernel handle: another handle, not an alias. */
START_TEST(trailing_bytes)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = root_fh(cl);
	uint8_t b[64];
	size_t len = get_fsal_part(&fh, b);

	memcpy(b + len, "\x5a\x5a\x5a", 3);
	ck_badhandle(cl, &fh, b, len + 3, "3 trailing bytes");
	nfs42_client_free(cl);
}
END_TEST

/* Longer than any FSAL_SPARSE handle (59 bytes), length byte consistent. */
START_TEST(oversized_handle)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_fh fh = root_fh(cl);
	uint8_t b[100];

	memset(b, 0x11, sizeof(b));
	b[0] = 1;
	b[1] = sizeof(b) - 6;
	set_fsal_part(&fh, b, sizeof(b));
	ck_nfs_status2(getattr_rc(cl, &fh), NFS4ERR_BADHANDLE, NFS4ERR_STALE);
	/* shorter than the header, and a wrong version */
	ck_badhandle(cl, &fh, b, 3, "3-byte handle");
	/* compact: no kernel byte, or longer than the longest */
	b[0] = SPARSE_FH_VERSION_COMPACT;
	b[1] = 0;
	ck_badhandle(cl, &fh, b, SPARSE_FH3_MIN_LEN - 1, "compact, no kernel");
	b[1] = SPARSE_FH_MAX_KERNEL + 1;
	ck_badhandle(cl, &fh, b, SPARSE_FH3_MAX_LEN + 1, "compact, too long");
	b[1] = 10;
	ck_badhandle(cl, &fh, b, SPARSE_FH3_HDR_LEN + 9 + SPARSE_FH_TAG_LEN,
		     "compact, length byte one too many");
	b[0] = SPARSE_FH_VERSION_COMPACT + 1;
	b[1] = 10;
	ck_badhandle(cl, &fh, b, SPARSE_FH_HDR_LEN + 10 + SPARSE_FH_TAG_LEN,
		     "a later version");
	nfs42_client_free(cl);
}
END_TEST

/* OPEN (CLAIM_FH) of fh under owner; returns the status. */
static int open_by_fh(struct nfs42_client *cl, const struct nfs42_fh *fh,
		      uint32_t access, uint32_t deny, const char *owner,
		      struct nfs42_stateid *sid)
{
	struct nfs42_open_args a = { 0 };
	struct nfs42_compound *c;
	int oi, rc;

	a.share_access = access | OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	a.share_deny = deny;
	a.owner = owner;
	a.owner_len = strlen(owner);
	a.createmode = NFS42_NOCREATE;
	a.claim = CLAIM_FH;
	c = e2e_cpd(cl, fh);
	oi = nfs42_op_open(c, &a);
	rc = nfs42_compound_run(c);
	if (rc == NFS4_OK)
		*sid = nfs42_res(c, oi)->u.open.stateid;
	nfs42_compound_free(c);
	return rc;
}

static void close_by_fh(struct nfs42_client *cl, const struct nfs42_fh *fh,
			const struct nfs42_stateid *sid)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);

	nfs42_op_close(c, 0, sid);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	nfs42_compound_free(c);
}

/* A DENY_WRITE open through one handle refuses a write open through the
 * other: one MDCACHE entry, one set of share counters.
 */
static void ck_one_share_state(struct nfs42_client *cl,
			       const struct nfs42_fh *first,
			       const struct nfs42_fh *second)
{
	struct nfs42_stateid s1, s2;

	ck_nfs_ok(cl, open_by_fh(cl, first, OPEN4_SHARE_ACCESS_READ,
				 OPEN4_SHARE_DENY_WRITE, "fh-owner-1", &s1));
	ck_nfs_status(open_by_fh(cl, second, OPEN4_SHARE_ACCESS_WRITE,
				 OPEN4_SHARE_DENY_NONE, "fh-owner-2", &s2),
		      NFS4ERR_SHARE_DENIED);
	close_by_fh(cl, first, &s1);
	ck_nfs_ok(cl, open_by_fh(cl, second, OPEN4_SHARE_ACCESS_WRITE,
				 OPEN4_SHARE_DENY_NONE, "fh-owner-2", &s2));
	close_by_fh(cl, second, &s2);
}

/*
 * Handles a client got before compact handles (version 2, made here by the
 * old encoder with the export's key) keep working, before and after a
 * restart, and name the same object as the compact handle given out now.
 */
START_TEST(version2_and_compact_name_one_object)
{
	struct forge_ctx f = forge_ctx();
	char *name = e2e_uniq("v2compat");
	struct nfs42_attrs a2, a3;
	struct nfs42_fh v2, v3;
	const uint8_t *b;
	size_t len;

	e2e_put_backing(name, "both", 4);
	v3 = e2e_fh(f.cl, name);
	b = e2e_fsal_part(&v3, &len);
	ck_assert_int_eq(sparse_fh_classify(b, len), SPARSE_FH_WIRE3);
	v2 = e2e_forge_v2(&f.root, e2e_backing(name), f.ident, f.key);
	ck_assert_uint_eq(v2.len, v3.len + 11);
	ck_nfs_ok(f.cl, getattr_of(&f, &v2, &a2));
	ck_nfs_ok(f.cl, getattr_of(&f, &v3, &a3));
	ck_assert_uint_eq(a2.fileid, a3.fileid);
	ck_one_share_state(f.cl, &v2, &v3);
	ck_one_share_state(f.cl, &v3, &v2);

	/* cold cache: the entry is made from the version 2 handle first */
	nfs42_client_free(f.cl);
	e2e_server_ctl("restart");
	f.cl = e2e_client_after_restart();
	ck_one_share_state(f.cl, &v2, &v3);
	nfs42_client_free(f.cl);
	e2e_server_ctl("restart");
	f.cl = e2e_client_after_restart();
	ck_one_share_state(f.cl, &v3, &v2);
	nfs42_client_free(f.cl);
}
END_TEST

/* The export root's handle format mark: "3" or none. */
static void set_format_mark(bool compact)
{
	const char *root = e2e_backing("");
	const char *xa = "trusted.nfs_sparse.handle_format";

	if (compact)
		ck_assert_int_eq(setxattr(root, xa, "3", 1, 0), 0);
	else
		ck_assert(removexattr(root, xa) == 0 || errno == ENODATA);
}

static int fsal_form_of(struct nfs42_client *cl, const char *name)
{
	struct nfs42_fh fh = e2e_fh(cl, name);
	const uint8_t *b;
	size_t len;

	b = e2e_fsal_part(&fh, &len);
	return sparse_fh_classify(b, len);
}

/*
 * An export whose handle key was made before compact handles (the key
 * there, no format mark) keeps giving out version 2, so its clients never
 * hold a second handle of a file; a fresh export (the harness's) gives out
 * compact ones; the admin's mark moves an old export over.
 */
START_TEST(export_keeps_its_handle_format)
{
	struct nfs42_client *cl = e2e_client();
	char *name = e2e_uniq("format");

	e2e_put_backing(name, "form", 4);
	ck_assert_int_eq(fsal_form_of(cl, name), SPARSE_FH_WIRE3);
	nfs42_client_free(cl);

	set_format_mark(false);
	e2e_server_ctl("restart");
	cl = e2e_client_after_restart();
	ck_assert_int_eq(fsal_form_of(cl, name), SPARSE_FH_WIRE);
	ck_assert_int_eq(fsal_form_of(cl, ""), SPARSE_FH_WIRE);
	nfs42_client_free(cl);

	set_format_mark(true);
	e2e_server_ctl("restart");
	cl = e2e_client_after_restart();
	ck_assert_int_eq(fsal_form_of(cl, name), SPARSE_FH_WIRE3);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_fsal_confine");
	TCase *tc = tcase_create("confine");

	if (e2e_is_vfs()) {
		printf("FSAL_SPARSE handle format only: skipped for VFS\n");
		return 77;
	}
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, forged_inside_file_is_accepted);
	tcase_add_test(tc, outside_directory_is_stale);
	tcase_add_test(tc, outside_file_is_stale);
	tcase_add_test(tc, outside_symlink_is_stale);
	tcase_add_test(tc, wrong_tag_is_stale);
	tcase_add_test(tc, other_filesystem_is_stale);
	tcase_add_test(tc, version1_handle_is_stale);
	tcase_add_test(tc, moved_out_while_server_down_is_stale);
	tcase_add_test(tc, handles_and_key_survive_restart);
	tcase_add_test(tc, empty_kernel_handle);
	tcase_add_test(tc, bad_kernel_handle_type);
	tcase_add_test(tc, trailing_bytes);
	tcase_add_test(tc, export_keeps_its_handle_format);
	tcase_add_test(tc, oversized_handle);
	tcase_add_test(tc, version2_and_compact_name_one_object);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
