/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Parity with FSAL_VFS, objects of every type: what an NFSv4.1
 * conformance run does with the tree it builds (a directory, a symlink,
 * a socket, a fifo, block and char devices 1,2 created with mode 0755,
 * and a regular file created by OPEN/GUARDED4 0644): CREATE, PUTFH/GETFH,
 * LOOKUP/LOOKUPP through each type, VERIFY of the mandatory attributes,
 * GETATTR of every supported attribute, SETATTR of the mode with the
 * anonymous stateid then REMOVE (its clean-up), SECINFO and
 * SECINFO_NO_NAME, READDIR with attributes.  Oracle: RFC 8881 and the
 * backing directory.
 */
#include "e2e_parity_util.h"

#include <sys/sysmacros.h>

static mode_t type_ifmt(uint32_t t)
{
	switch (t) {
	case NF4REG:
		return S_IFREG;
	case NF4DIR:
		return S_IFDIR;
	case NF4BLK:
		return S_IFBLK;
	case NF4CHR:
		return S_IFCHR;
	case NF4LNK:
		return S_IFLNK;
	case NF4SOCK:
		return S_IFSOCK;
	case NF4FIFO:
		return S_IFIFO;
	}
	return 0;
}

START_TEST(tree_every_type)
{
	struct nfs42_client *cl = e2e_client();
	struct par_tree t;

	par_make_tree(cl, &t);
	for (size_t i = 0; i < sizeof(par_types) / sizeof(par_types[0]); i++) {
		uint32_t ty = par_types[i];
		char *rel = e2e_fmt("%s/%s", t.rel, t.name[ty]);
		struct stat st = e2e_bstat(rel);
		struct nfs42_attrs a = e2e_getattr(cl, &t.fh[ty], NULL);

		ck_assert_msg((st.st_mode & S_IFMT) == type_ifmt(ty),
			      "%s: backing type 0%o", rel, st.st_mode & S_IFMT);
		ck_assert_uint_eq(a.type, ty);
		ck_assert_uint_eq(a.fileid, st.st_ino);
		if (ty != NF4LNK) {
			uint32_t want = ty == NF4REG ? 0644 : 0755;

			ck_assert_msg((st.st_mode & 07777) == want,
				      "%s: backing mode 0%o, want 0%o", rel,
				      st.st_mode & 07777, want);
			ck_assert_uint_eq(a.mode, want);
		}
		if (ty == NF4BLK || ty == NF4CHR) {
			ck_assert_uint_eq(major(st.st_rdev), 1);
			ck_assert_uint_eq(minor(st.st_rdev), 2);
			ck_assert_uint_eq(a.rawdev.major, 1);
			ck_assert_uint_eq(a.rawdev.minor, 2);
		}
		if (ty == NF4LNK) {
			char buf[64];
			ssize_t n =
				readlink(e2e_backing(rel), buf, sizeof(buf));

			ck_assert_int_eq(n, strlen(PAR_LINKDATA));
			ck_assert_mem_eq(buf, PAR_LINKDATA, n);
		}
		if (ty == NF4REG)
			ck_assert_uint_eq(st.st_size, strlen(PAR_FILEDATA));
	}
	nfs42_client_free(cl);
}
END_TEST

/* PUTFH1*: PUTFH then GETFH gives back the handle LOOKUP gave.
 * PUTFH2: a 3-byte handle is NFS4ERR_BADHANDLE. */
START_TEST(putfh_getfh)
{
	struct nfs42_client *cl = e2e_client();
	struct par_tree t;
	struct nfs42_compound *c;
	struct nfs42_fh bad = { .len = 3, .data = "abc" };

	par_make_tree(cl, &t);
	for (size_t i = 0; i < sizeof(par_types) / sizeof(par_types[0]); i++) {
		uint32_t ty = par_types[i];
		struct nfs42_fh fh =
			e2e_fh(cl, e2e_fmt("%s/%s", t.rel, t.name[ty]));
		int gi;

		ck_assert_uint_eq(fh.len, t.fh[ty].len);
		ck_assert_mem_eq(fh.data, t.fh[ty].data, fh.len);
		c = e2e_cpd(cl, &fh);
		gi = nfs42_op_getfh(c);
		ck_assert_msg(nfs42_compound_run(c) == 0, "PUTFH %s",
			      t.name[ty]);
		ck_assert_uint_eq(nfs42_res(c, gi)->u.fh.len, fh.len);
		ck_assert_mem_eq(nfs42_res(c, gi)->u.fh.data, fh.data, fh.len);
		nfs42_compound_free(c);
	}
	c = e2e_cpd(cl, &bad);
	ck_nfs_status(par_run(c), NFS4ERR_BADHANDLE);
	nfs42_client_free(cl);
}
END_TEST

/* LKPP1*: LOOKUPP with a non-directory current fh is NOTDIR, SYMLINK for
 * a symlink; LKPP1d: LOOKUPP inverts LOOKUP; LKPP3: no fh. */
START_TEST(lookupp_every_type)
{
	struct nfs42_client *cl = e2e_client();
	struct par_tree t;
	struct nfs42_compound *c;
	int gi;

	par_make_tree(cl, &t);
	for (size_t i = 0; i < sizeof(par_types) / sizeof(par_types[0]); i++) {
		uint32_t ty = par_types[i];
		int want = ty == NF4LNK ? NFS4ERR_SYMLINK : NFS4ERR_NOTDIR;
		int rc;

		if (ty == NF4DIR)
			continue;
		c = e2e_cpd(cl, &t.fh[ty]);
		nfs42_op_lookupp(c);
		rc = par_run(c);
		ck_assert_msg(rc == want, "LOOKUPP from %s: %s, want %s",
			      t.name[ty], nfs42_strerror(rc),
			      nfs42_strerror(want));
	}
	/* LOOKUPP from tree/dir is tree, from tree is the export root */
	c = e2e_cpd(cl, &t.fh[NF4DIR]);
	nfs42_op_lookupp(c);
	gi = nfs42_op_getfh(c);
	nfs42_op_lookupp(c);
	nfs42_op_getfh(c);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	ck_assert_uint_eq(nfs42_res(c, gi)->u.fh.len, t.dir.len);
	ck_assert_mem_eq(nfs42_res(c, gi)->u.fh.data, t.dir.data, t.dir.len);
	nfs42_compound_free(c);
	c = nfs42_compound_new(cl);
	nfs42_op_lookupp(c);
	ck_nfs_status(par_run(c), NFS4ERR_NOFILEHANDLE);
	/* LKPP2: LOOKUPP of the (pseudo) root is NOENT */
	c = e2e_cpd(cl, NULL);
	nfs42_op_lookupp(c);
	ck_nfs_status(par_run(c), NFS4ERR_NOENT);
	nfs42_client_free(cl);
}
END_TEST

/* LOOK1-4 and LOOK5*: LOOKUP errors, through each non-directory type. */
START_TEST(lookup_errors)
{
	struct nfs42_client *cl = e2e_client();
	struct par_tree t;
	struct nfs42_compound *c;
	char *longname = malloc(3 * 512 + 1);

	par_make_tree(cl, &t);
	c = nfs42_compound_new(cl);
	nfs42_op_lookup(c, "x");
	ck_nfs_status(par_run(c), NFS4ERR_NOFILEHANDLE);
	c = e2e_cpd(cl, &t.dir);
	nfs42_op_lookup(c, "no-such-name");
	ck_nfs_status(par_run(c), NFS4ERR_NOENT);
	c = e2e_cpd(cl, &t.dir);
	nfs42_op_lookup(c, "");
	ck_nfs_status(par_run(c), NFS4ERR_INVAL);
	for (int i = 0; i < 512; i++)
		memcpy(longname + 3 * i, "abc", 3);
	longname[3 * 512] = 0;
	c = e2e_cpd(cl, &t.dir);
	nfs42_op_lookup(c, longname);
	ck_nfs_status(par_run(c), NFS4ERR_NAMETOOLONG);
	/* the same in the export root (the conformance suite uses the
	 * pseudo root, core code; the export root reaches the FSAL) */
	c = e2e_cpd(cl, NULL);
	nfs42_op_lookup(c, longname);
	ck_nfs_status(par_run(c), NFS4ERR_NAMETOOLONG);
	for (size_t i = 0; i < sizeof(par_types) / sizeof(par_types[0]); i++) {
		uint32_t ty = par_types[i];
		int want = ty == NF4LNK ? NFS4ERR_SYMLINK : NFS4ERR_NOTDIR;
		int rc;

		if (ty == NF4DIR)
			continue;
		c = e2e_cpd(cl, &t.fh[ty]);
		nfs42_op_lookup(c, "foo");
		rc = par_run(c);
		ck_assert_msg(rc == want, "LOOKUP in %s: %s, want %s",
			      t.name[ty], nfs42_strerror(rc),
			      nfs42_strerror(want));
	}
	/* LOOK8: "." and ".." are not names: NOENT or BADNAME */
	c = e2e_cpd(cl, &t.dir);
	nfs42_op_lookup(c, ".");
	ck_nfs_status2(par_run(c), NFS4ERR_NOENT, NFS4ERR_BADNAME);
	c = e2e_cpd(cl, &t.dir);
	nfs42_op_lookup(c, "..");
	ck_nfs_status2(par_run(c), NFS4ERR_NOENT, NFS4ERR_BADNAME);
	free(longname);
	nfs42_client_free(cl);
}
END_TEST

/* fattr4 values of the mandatory attributes but rdattr_error, in
 * attribute order (RFC 8881 5.6). */
static struct nfs42_bitmap mand_bitmap(void)
{
	return nfs42_bm_make(FATTR4_SUPPORTED_ATTRS, FATTR4_TYPE,
			     FATTR4_FH_EXPIRE_TYPE, FATTR4_CHANGE, FATTR4_SIZE,
			     FATTR4_LINK_SUPPORT, FATTR4_SYMLINK_SUPPORT,
			     FATTR4_NAMED_ATTR, FATTR4_FSID,
			     FATTR4_UNIQUE_HANDLES, FATTR4_LEASE_TIME,
			     FATTR4_FILEHANDLE, -1);
}

static void encode_mand(struct nfs42_xdr *x, const struct nfs42_attrs *a)
{
	nfs42_bitmap_encode(x, &a->supported_attrs);
	nfs42_xdr_put_u32(x, a->type);
	nfs42_xdr_put_u32(x, a->fh_expire_type);
	nfs42_xdr_put_u64(x, a->change);
	nfs42_xdr_put_u64(x, a->size);
	nfs42_xdr_put_bool(x, a->link_support);
	nfs42_xdr_put_bool(x, a->symlink_support);
	nfs42_xdr_put_bool(x, a->named_attr);
	nfs42_xdr_put_u64(x, a->fsid.major);
	nfs42_xdr_put_u64(x, a->fsid.minor);
	nfs42_xdr_put_bool(x, a->unique_handles);
	nfs42_xdr_put_u32(x, a->lease_time);
	nfs42_xdr_put_opaque(x, a->filehandle.data, a->filehandle.len);
}

static int verify_op(struct nfs42_client *cl, const struct nfs42_fh *fh,
		     uint32_t opnum, const struct nfs42_bitmap *bm,
		     struct nfs42_xdr *vals)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);

	par_op_verify(c, opnum, bm, vals);
	nfs42_op_getfh(c);
	return par_run(c);
}

/* VF1r: VERIFY of the mandatory attributes GETATTR returned is OK (and
 * NVERIFY is SAME); with size + 1 VERIFY is NOT_SAME.  Every type. */
START_TEST(verify_mandatory)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = mand_bitmap();
	struct par_tree t;

	par_make_tree(cl, &t);
	for (size_t i = 0; i < sizeof(par_types) / sizeof(par_types[0]); i++) {
		uint32_t ty = par_types[i];
		struct nfs42_attrs a = e2e_getattr(cl, &t.fh[ty], &bm);
		struct nfs42_xdr x;
		int rc;

		ck_assert_msg(nfs42_bm_isset(&a.mask, FATTR4_FH_EXPIRE_TYPE) &&
				      nfs42_bm_isset(&a.mask,
						     FATTR4_FILEHANDLE),
			      "%s: mandatory attributes missing", t.name[ty]);
		nfs42_xdr_enc_init(&x);
		encode_mand(&x, &a);
		rc = verify_op(cl, &t.fh[ty], OP_VERIFY, &bm, &x);
		ck_assert_msg(rc == 0, "VERIFY mandatory of %s: %s", t.name[ty],
			      nfs42_strerror(rc));
		rc = verify_op(cl, &t.fh[ty], OP_NVERIFY, &bm, &x);
		ck_assert_msg(rc == NFS4ERR_SAME, "NVERIFY of %s: %s",
			      t.name[ty], nfs42_strerror(rc));
		nfs42_xdr_free(&x);
		a.size++;
		nfs42_xdr_enc_init(&x);
		encode_mand(&x, &a);
		rc = verify_op(cl, &t.fh[ty], OP_VERIFY, &bm, &x);
		ck_assert_msg(rc == NFS4ERR_NOT_SAME, "VERIFY size+1 of %s: %s",
			      t.name[ty], nfs42_strerror(rc));
		nfs42_xdr_free(&x);
	}
	nfs42_client_free(cl);
}
END_TEST

/* VF5/VF7: VERIFY with a write-only attribute is INVAL; with an
 * unsupported one ATTRNOTSUPP. */
START_TEST(verify_writeonly_unsupported)
{
	struct nfs42_client *cl = e2e_client();
	struct par_tree t;
	struct nfs42_attrs a;
	struct nfs42_bitmap bm;
	struct nfs42_xdr x;
	int rc;

	par_make_tree(cl, &t);
	bm = nfs42_bm_make(FATTR4_SUPPORTED_ATTRS, -1);
	a = e2e_getattr(cl, &t.fh[NF4REG], &bm);
	/* time_modify_set (set_it = SET_TO_SERVER_TIME4) */
	bm = nfs42_bm_make(FATTR4_TIME_MODIFY_SET, -1);
	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, SET_TO_SERVER_TIME4);
	rc = verify_op(cl, &t.fh[NF4REG], OP_VERIFY, &bm, &x);
	nfs42_xdr_free(&x);
	ck_assert_msg(rc == NFS4ERR_INVAL, "VERIFY time_modify_set: %s",
		      nfs42_strerror(rc));
	/* rdattr_error is INVAL too (RFC 8881 18.31.3) */
	bm = nfs42_bm_make(FATTR4_RDATTR_ERROR, -1);
	nfs42_xdr_enc_init(&x);
	nfs42_xdr_put_u32(&x, 0);
	rc = verify_op(cl, &t.fh[NF4REG], OP_VERIFY, &bm, &x);
	nfs42_xdr_free(&x);
	ck_assert_msg(rc == NFS4ERR_INVAL, "VERIFY rdattr_error: %s",
		      nfs42_strerror(rc));
	/* an attribute the server does not support: time_backup if not */
	if (!nfs42_bm_isset(&a.supported_attrs, FATTR4_TIME_BACKUP)) {
		bm = nfs42_bm_make(FATTR4_TIME_BACKUP, -1);
		nfs42_xdr_enc_init(&x);
		nfs42_xdr_put_u64(&x, 0);
		nfs42_xdr_put_u32(&x, 0);
		rc = verify_op(cl, &t.fh[NF4REG], OP_VERIFY, &bm, &x);
		nfs42_xdr_free(&x);
		ck_assert_msg(rc == NFS4ERR_ATTRNOTSUPP,
			      "VERIFY unsupported time_backup: %s",
			      nfs42_strerror(rc));
	}
	nfs42_client_free(cl);
}
END_TEST

/* Attributes our decoder cannot read (fs_locations, fs_status, ...) and
 * the write-only ones. */
static bool attr_skipped(unsigned int b)
{
	switch (b) {
	case FATTR4_FS_LOCATIONS:
	case FATTR4_TIME_ACCESS_SET:
	case FATTR4_TIME_MODIFY_SET:
	case FATTR4_FS_STATUS:
	case FATTR4_FS_LOCATIONS_INFO:
	case FATTR4_MDSTHRESHOLD:
	case FATTR4_RETENTION_GET:
	case FATTR4_RETENTION_SET:
	case FATTR4_RETENTEVT_GET:
	case FATTR4_RETENTEVT_SET:
	case FATTR4_MODE_SET_MASKED:
	case FATTR4_SEC_LABEL:
	case FATTR4_LAYOUT_HINT:
		return true;
	}
	return b > FATTR4_XATTR_SUPPORT;
}

/* GETATTR of every supported (readable) attribute on every type
 * succeeds and returns every one asked for; the values RFC 8881 fixes
 * are checked. */
START_TEST(getattr_every_supported)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap sup = nfs42_bm_make(FATTR4_SUPPORTED_ATTRS, -1);
	struct par_tree t;
	struct nfs42_attrs a;
	struct nfs42_bitmap want;

	par_make_tree(cl, &t);
	a = e2e_getattr(cl, &t.dir, &sup);
	nfs42_bm_clear(&want);
	for (unsigned int b = 0; b < 32 * NFS42_BITMAP_WORDS; b++)
		if (nfs42_bm_isset(&a.supported_attrs, b) && !attr_skipped(b))
			nfs42_bm_set(&want, b);
	/* RFC 8881 5.6: the mandatory attributes are always supported */
	for (unsigned int b = 0; b <= FATTR4_RDATTR_ERROR; b++)
		ck_assert_msg(nfs42_bm_isset(&a.supported_attrs, b),
			      "mandatory attribute %u not supported", b);
	ck_assert(nfs42_bm_isset(&a.supported_attrs, FATTR4_FILEHANDLE));
	par_note("supported_attrs %08x %08x %08x", a.supported_attrs.w[0],
		 a.supported_attrs.w[1], a.supported_attrs.w[2]);
	for (size_t i = 0; i < sizeof(par_types) / sizeof(par_types[0]); i++) {
		uint32_t ty = par_types[i];
		struct nfs42_attrs g;
		int rc = e2e_getattr_rc(cl, &t.fh[ty], &want, &g);
		char missing[128] = "";
		size_t n = 0;

		ck_assert_msg(rc == 0, "GETATTR all of %s: %s", t.name[ty],
			      nfs42_strerror(rc));
		/* RFC 8881 18.7.3: a supported attribute asked for is returned */
		for (unsigned int b = 0; b < 32 * NFS42_BITMAP_WORDS; b++)
			if (nfs42_bm_isset(&want, b) &&
			    !nfs42_bm_isset(&g.mask, b) && n < sizeof(missing))
				n += snprintf(missing + n, sizeof(missing) - n,
					      " %u", b);
		ck_assert_msg(!missing[0], "GETATTR on %s: not returned:%s",
			      t.name[ty], missing);
		/* fh_expire_type: FH4_PERSISTENT (0) for both backends */
		ck_assert_uint_eq(g.fh_expire_type, 0);
		ck_assert_uint_eq(g.type, ty);
		ck_assert(g.link_support && g.symlink_support);
		ck_assert(g.unique_handles);
		ck_assert_uint_eq(g.filehandle.len, t.fh[ty].len);
		ck_assert_mem_eq(g.filehandle.data, t.fh[ty].data,
				 t.fh[ty].len);
		if (ty == NF4REG)
			par_note("file: named_attr %d maxname %u maxlink %u "
				 "aclsupport %u nacl %u time_delta %lld.%09u "
				 "lease %u",
				 g.named_attr, g.maxname, g.maxlink,
				 g.aclsupport, g.nacl,
				 (long long)g.time_delta.seconds,
				 g.time_delta.nseconds, g.lease_time);
		if (nfs42_bm_isset(&want, FATTR4_TIME_DELTA))
			ck_assert(g.time_delta.seconds > 0 ||
				  g.time_delta.nseconds > 0);
		if (nfs42_bm_isset(&want, FATTR4_MOUNTED_ON_FILEID))
			ck_assert_uint_eq(g.mounted_on_fileid, g.fileid);
	}
	nfs42_client_free(cl);
}
END_TEST

/* The suite's clean-up: SETATTR mode 0755 with the anonymous stateid on
 * every entry, then REMOVE; a non-empty directory is NOTEMPTY first. */
START_TEST(setattr_mode_then_remove)
{
	struct nfs42_client *cl = e2e_client();
	struct par_tree t;
	struct nfs42_sattr sa;

	par_make_tree(cl, &t);
	ck_nfs_status(par_create(cl, &t.fh[NF4DIR], NF4DIR, "inner", NULL),
		      NFS4_OK);
	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0755);
	for (size_t i = 0; i < sizeof(par_types) / sizeof(par_types[0]); i++) {
		uint32_t ty = par_types[i];
		struct nfs42_compound *c = e2e_cpd(cl, &t.fh[ty]);
		int rc;

		nfs42_op_setattr(c, &e2e_anon_stateid, &sa);
		rc = par_run(c);
		ck_assert_msg(rc == 0, "SETATTR mode 0755 on %s: %s",
			      t.name[ty], nfs42_strerror(rc));
	}
	for (size_t i = 0; i < sizeof(par_types) / sizeof(par_types[0]); i++) {
		uint32_t ty = par_types[i];
		struct nfs42_compound *c = e2e_cpd(cl, &t.dir);
		int rc;

		nfs42_op_remove(c, t.name[ty]);
		rc = par_run(c);
		if (ty == NF4DIR) {
			ck_assert_msg(rc == NFS4ERR_NOTEMPTY,
				      "REMOVE non-empty dir: %s",
				      nfs42_strerror(rc));
			c = e2e_cpd(cl, &t.fh[NF4DIR]);
			nfs42_op_remove(c, "inner");
			ck_nfs_status(par_run(c), NFS4_OK);
			c = e2e_cpd(cl, &t.dir);
			nfs42_op_remove(c, t.name[ty]);
			rc = par_run(c);
		}
		ck_assert_msg(rc == 0, "REMOVE %s: %s", t.name[ty],
			      nfs42_strerror(rc));
		ck_assert(!e2e_bexists(e2e_fmt("%s/%s", t.rel, t.name[ty])));
	}
	nfs42_client_free(cl);
}
END_TEST

/* SEC1/SEC2, SECNN1-4. */
START_TEST(secinfo)
{
	struct nfs42_client *cl = e2e_client();
	struct par_tree t;
	struct nfs42_compound *c;
	struct nfs42_fh root;

	par_make_tree(cl, &t);
	root = e2e_fh(cl, "");
	c = e2e_cpd(cl, &t.dir);
	par_op_secinfo(c, "file");
	ck_nfs_status(par_run(c), NFS4_OK);
	c = e2e_cpd(cl, &t.dir);
	par_op_secinfo(c, "file");
	nfs42_op_getfh(c);
	ck_nfs_status(par_run(c), NFS4ERR_NOFILEHANDLE);
	c = e2e_cpd(cl, &t.dir);
	par_op_secinfo(c, "no-such-file");
	ck_nfs_status(par_run(c), NFS4ERR_NOENT);
	/* SECINFO in the export root, of the tree */
	c = e2e_cpd(cl, &root);
	par_op_secinfo(c, t.rel);
	ck_nfs_status(par_run(c), NFS4_OK);
	c = e2e_cpd(cl, NULL);
	par_op_secinfo_no_name(c, SECINFO_STYLE4_CURRENT_FH);
	ck_nfs_status(par_run(c), NFS4_OK);
	c = e2e_cpd(cl, NULL);
	par_op_secinfo_no_name(c, SECINFO_STYLE4_CURRENT_FH);
	nfs42_op_getfh(c);
	ck_nfs_status(par_run(c), NFS4ERR_NOFILEHANDLE);
	c = e2e_cpd(cl, NULL);
	par_op_secinfo_no_name(c, SECINFO_STYLE4_PARENT);
	ck_nfs_status(par_run(c), NFS4ERR_NOENT);
	/* PARENT of a directory in the export, of the export root */
	c = e2e_cpd(cl, &t.dir);
	par_op_secinfo_no_name(c, SECINFO_STYLE4_PARENT);
	ck_nfs_status(par_run(c), NFS4_OK);
	c = e2e_cpd(cl, &t.fh[NF4DIR]);
	par_op_secinfo_no_name(c, SECINFO_STYLE4_PARENT);
	ck_nfs_status(par_run(c), NFS4_OK);
	c = e2e_cpd(cl, &root);
	par_op_secinfo_no_name(c, SECINFO_STYLE4_PARENT);
	ck_nfs_status(par_run(c), NFS4_OK);
	c = e2e_cpd(cl, &t.fh[NF4DIR]);
	par_op_secinfo_no_name(c, SECINFO_STYLE4_CURRENT_FH);
	ck_nfs_status(par_run(c), NFS4_OK);
	nfs42_client_free(cl);
}
END_TEST

struct seen {
	int n;
	bool bad;
	char names[16][16];
	uint32_t err[16];
};

static int collect(void *arg, const struct nfs42_dirent *e)
{
	struct seen *s = arg;

	if (s->n < 16) {
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", e->name);
		s->err[s->n] = e->attrs.rdattr_error;
		if (nfs42_bm_isset(&e->attrs.mask, FATTR4_MOUNTED_ON_FILEID) &&
		    e->attrs.mounted_on_fileid != e->attrs.fileid)
			s->bad = true;
	}
	s->n++;
	return 0;
}

/* READDIR of the tree with no attributes (the clean-up's) and with the
 * mandatory ones + rdattr_error, fileid, mounted_on_fileid, mode. */
START_TEST(readdir_tree_attrs)
{
	struct nfs42_client *cl = e2e_client();
	struct par_tree t;
	struct nfs42_bitmap none, rich;
	struct seen s = { 0 };

	par_make_tree(cl, &t);
	nfs42_bm_clear(&none);
	ck_nfs_ok(cl, nfs42_readdir_fh(cl, &t.dir, &none, collect, &s));
	ck_assert_int_eq(s.n, 7);
	rich = nfs42_bm_make(FATTR4_SUPPORTED_ATTRS, FATTR4_TYPE,
			     FATTR4_FH_EXPIRE_TYPE, FATTR4_CHANGE, FATTR4_SIZE,
			     FATTR4_FSID, FATTR4_RDATTR_ERROR,
			     FATTR4_FILEHANDLE, FATTR4_FILEID, FATTR4_MODE,
			     FATTR4_NUMLINKS, FATTR4_RAWDEV,
			     FATTR4_MOUNTED_ON_FILEID, -1);
	memset(&s, 0, sizeof(s));
	ck_nfs_ok(cl, nfs42_readdir_fh(cl, &t.dir, &rich, collect, &s));
	ck_assert_int_eq(s.n, 7);
	for (int i = 0; i < s.n; i++)
		ck_assert_msg(s.err[i] == 0, "%s: rdattr_error %u", s.names[i],
			      s.err[i]);
	ck_assert(!s.bad);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_parity_objects");
	TCase *tc = tcase_create("objects");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, tree_every_type);
	tcase_add_test(tc, putfh_getfh);
	tcase_add_test(tc, lookupp_every_type);
	tcase_add_test(tc, lookup_errors);
	tcase_add_test(tc, verify_mandatory);
	tcase_add_test(tc, verify_writeonly_unsupported);
	tcase_add_test(tc, getattr_every_supported);
	tcase_add_test(tc, setattr_mode_then_remove);
	tcase_add_test(tc, secinfo);
	tcase_add_test(tc, readdir_tree_attrs);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
