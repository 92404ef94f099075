/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Helpers of the e2e_parity_* suites: the behaviours an independent
 * NFSv4.1 conformance run checks that reach the FSAL, probed against
 * FSAL_SPARSE and FSAL_VFS alike.  Ops the client library does not model
 * (SECINFO, SECINFO_NO_NAME, VERIFY, NVERIFY) are encoded here with
 * nfs42_op_raw(); only their status is looked at.
 */
#ifndef E2E_PARITY_UTIL_H
#define E2E_PARITY_UTIL_H

#include "e2e_fsal_util.h"

#define PAR_LINKDATA "/etc/X11"
#define PAR_FILEDATA "This is the file test data."

/* --------------------------------------------------------- raw ops */

/* Encoder of one raw op: x starts empty, gets opnum + args. */
struct par_raw {
	struct nfs42_xdr x;
};

static inline void par_raw_begin(struct par_raw *r, uint32_t opnum)
{
	nfs42_xdr_enc_init(&r->x);
	nfs42_xdr_put_u32(&r->x, opnum);
}

/* Append the raw op to c and free the encoder; returns the op index. */
static inline int par_raw_end(struct nfs42_compound *c, struct par_raw *r,
			      uint32_t opnum)
{
	int i = nfs42_op_raw(c, opnum, r->x.buf, r->x.len);

	nfs42_xdr_free(&r->x);
	return i;
}

static inline int par_op_secinfo(struct nfs42_compound *c, const char *name)
{
	struct par_raw r;

	par_raw_begin(&r, OP_SECINFO);
	nfs42_xdr_put_string(&r.x, name);
	return par_raw_end(c, &r, OP_SECINFO);
}

#define SECINFO_STYLE4_CURRENT_FH 0
#define SECINFO_STYLE4_PARENT 1

static inline int par_op_secinfo_no_name(struct nfs42_compound *c,
					 uint32_t style)
{
	struct par_raw r;

	par_raw_begin(&r, OP_SECINFO_NO_NAME);
	nfs42_xdr_put_u32(&r.x, style);
	return par_raw_end(c, &r, OP_SECINFO_NO_NAME);
}

/* VERIFY/NVERIFY with a pre-encoded fattr4 (bitmap + attrlist). */
static inline int par_op_verify(struct nfs42_compound *c, uint32_t opnum,
				const struct nfs42_bitmap *bm,
				const struct nfs42_xdr *vals)
{
	struct par_raw r;

	par_raw_begin(&r, opnum);
	nfs42_bitmap_encode(&r.x, bm);
	nfs42_xdr_put_opaque(&r.x, vals->buf, vals->len);
	return par_raw_end(c, &r, opnum);
}

/* ------------------------------------------------------ compounds */

/* Run c, free it, return the compound status. */
static inline int par_run(struct nfs42_compound *c)
{
	return e2e_cpd_run(c);
}

/* CREATE of a non-regular object named name in dir, mode 0755 (the
 * conformance suite's default).  Returns the status; *fh if non-NULL. */
static inline int par_create(struct nfs42_client *cl,
			     const struct nfs42_fh *dir, uint32_t type,
			     const char *name, struct nfs42_fh *fh)
{
	struct nfs42_sattr sa;
	struct nfs42_create_args a = { .type = type,
				       .name = name,
				       .attrs = &sa };
	struct nfs42_compound *c = e2e_cpd(cl, dir);
	int rc, gi;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0755);
	if (type == NF4LNK)
		a.linkdata = PAR_LINKDATA;
	if (type == NF4BLK || type == NF4CHR) {
		a.specmajor = 1;
		a.specminor = 2;
	}
	nfs42_op_create(c, &a);
	gi = nfs42_op_getfh(c);
	rc = nfs42_compound_run(c);
	if (!rc && fh)
		*fh = nfs42_res(c, gi)->u.fh;
	nfs42_compound_free(c);
	return rc;
}

/* OPEN/CREATE GUARDED4 mode 0644 in dir, access BOTH (the suite's
 * create_file()); f filled on success. */
static inline int par_create_file(struct nfs42_client *cl,
				  const struct nfs42_fh *dir, const char *name,
				  uint32_t access, struct nfs42_file *f)
{
	struct nfs42_sattr sa;
	struct e2e_open_req rq = { .access = access,
				   .createmode = GUARDED4,
				   .attrs = &sa };

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0644);
	return e2e_open_ex(cl, dir, name, &rq, f, NULL);
}

/* The conformance suite's tree: a directory holding one object of each
 * type, named after the type, plus "file" with PAR_FILEDATA. */
struct par_tree {
	char *rel; /* export-relative path of the tree directory */
	struct nfs42_fh dir;
	struct nfs42_fh fh[8]; /* by nfs_ftype4 */
	const char *name[8];
};

static const uint32_t par_types[] = { NF4REG, NF4DIR,  NF4BLK, NF4CHR,
				      NF4LNK, NF4SOCK, NF4FIFO };

static inline const char *par_type_name(uint32_t t)
{
	static const char *const n[] = { "?",	 "file", "dir",	   "block",
					 "char", "link", "socket", "fifo" };

	return t < 8 ? n[t] : "?";
}

/* Creates the tree; every creation must succeed (the suite's init only
 * warns, but every later test of a type depends on it). */
static inline void par_make_tree(struct nfs42_client *cl, struct par_tree *t)
{
	struct nfs42_fh root = e2e_fh(cl, "");
	const char *base = e2e_uniq("tree");
	struct nfs42_file f;

	memset(t, 0, sizeof(*t));
	t->rel = (char *)base;
	ck_nfs_status(par_create(cl, &root, NF4DIR, base, &t->dir), NFS4_OK);
	for (size_t i = 1; i < sizeof(par_types) / sizeof(par_types[0]); i++) {
		uint32_t ty = par_types[i];
		int rc = par_create(cl, &t->dir, ty, par_type_name(ty),
				    &t->fh[ty]);

		ck_assert_msg(rc == 0, "CREATE %s mode 0755: %s",
			      par_type_name(ty), nfs42_strerror(rc));
		t->name[ty] = par_type_name(ty);
	}
	ck_nfs_status(par_create_file(cl, &t->dir, "file",
				      OPEN4_SHARE_ACCESS_BOTH, &f),
		      NFS4_OK);
	{
		/* the suite writes with the open stateid's seqid set to 0 */
		struct nfs42_stateid sid = f.stateid;

		sid.seqid = 0;
		ck_nfs_status(e2e_write(cl, &f.fh, &sid, 0, FILE_SYNC4,
					PAR_FILEDATA, strlen(PAR_FILEDATA),
					NULL, NULL, NULL),
			      NFS4_OK);
	}
	ck_nfs_status(e2e_close(&f), NFS4_OK);
	t->fh[NF4REG] = f.fh;
	t->name[NF4REG] = "file";
}

/* ------------------------------------------------- difference log */

/* Context on stderr, tagged with the FSAL under test (visible with
 * ctest -V); used to compare values both FSALs may legitimately differ on. */
static inline void par_note(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "[%s] ", getenv("NFS42_FSAL") ?: "?");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#endif /* E2E_PARITY_UTIL_H */
