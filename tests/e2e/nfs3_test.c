/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* A test-only NFSv3 + MOUNT v3 client (see nfs3_test.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nfs3_test.h"
#include "nfs42_xdr.h"

#define NFS3_PROGRAM 100003
#define NFS3_VERSION 3
#define MOUNT_PROGRAM 100005
#define MOUNT_V3 3

enum nfs3_proc {
	NFSPROC3_GETATTR = 1,
	NFSPROC3_SETATTR = 2,
	NFSPROC3_LOOKUP = 3,
	NFSPROC3_READ = 6,
	NFSPROC3_WRITE = 7,
	NFSPROC3_CREATE = 8,
	NFSPROC3_MKDIR = 9,
	NFSPROC3_SYMLINK = 10,
	NFSPROC3_MKNOD = 11,
	NFSPROC3_REMOVE = 12,
	NFSPROC3_RMDIR = 13,
	NFSPROC3_RENAME = 14,
	NFSPROC3_LINK = 15,
	NFSPROC3_COMMIT = 21,
};

#define MOUNTPROC3_MNT 1
#define NF3FIFO 7
#define FILE_SYNC 2
#define FATTR3_WORDS 21

/* ---- connection ---------------------------------------------------------- */

static int nfs3_connect_one(uint16_t port, struct nfs42_client **out)
{
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.port = port;
	return nfs42_connect(&o, out);
}

int nfs3_connect(struct nfs3_conn *c)
{
	const char *nfs = getenv("NFS42_PORT");
	const char *mnt = getenv("NFS42_MNT_PORT");
	int rc;

	memset(c, 0, sizeof(*c));
	if (nfs == NULL || mnt == NULL)
		return -ENOENT; /* not a server with NFSv3 (harness --protocols) */
	rc = nfs3_connect_one((uint16_t)atoi(nfs), &c->nfs);
	if (rc == 0)
		rc = nfs3_connect_one((uint16_t)atoi(mnt), &c->mnt);
	return rc;
}

void nfs3_close(struct nfs3_conn *c)
{
	nfs42_client_free(c->nfs);
	nfs42_client_free(c->mnt);
	memset(c, 0, sizeof(*c));
}

void nfs3_set_cred(struct nfs3_conn *c, uint32_t uid, uint32_t gid)
{
	nfs42_set_cred(c->nfs, uid, gid, 1, &gid);
	nfs42_set_cred(c->mnt, uid, gid, 1, &gid);
}

const char *nfs3_status_name(int status)
{
	static __thread char other[32];

	switch (status) {
	case NFS3_OK:
		return "NFS3_OK";
	case NFS3ERR_PERM:
		return "NFS3ERR_PERM";
	case NFS3ERR_NOENT:
		return "NFS3ERR_NOENT";
	case NFS3ERR_IO:
		return "NFS3ERR_IO";
	case NFS3ERR_ACCES:
		return "NFS3ERR_ACCES";
	case NFS3ERR_EXIST:
		return "NFS3ERR_EXIST";
	case NFS3ERR_XDEV:
		return "NFS3ERR_XDEV";
	case NFS3ERR_NOTDIR:
		return "NFS3ERR_NOTDIR";
	case NFS3ERR_ISDIR:
		return "NFS3ERR_ISDIR";
	case NFS3ERR_INVAL:
		return "NFS3ERR_INVAL";
	case NFS3ERR_ROFS:
		return "NFS3ERR_ROFS";
	case NFS3ERR_NAMETOOLONG:
		return "NFS3ERR_NAMETOOLONG";
	case NFS3ERR_STALE:
		return "NFS3ERR_STALE";
	case -EINVAL:
		return "RPC GARBAGE_ARGS";
	default:
		(void)snprintf(other, sizeof(other), "%s %d",
			       status < 0 ? "errno" : "nfsstat3",
			       status < 0 ? -status : status);
		return other;
	}
}

/* ---- encoding ------------------------------------------------------------ */

static void put_fh(struct nfs42_xdr *x, const struct nfs3_fh *fh)
{
	nfs42_xdr_put_opaque(x, fh->data, fh->len);
}

static void put_name(struct nfs42_xdr *x, struct nfs3_name name)
{
	nfs42_xdr_put_opaque(x, name.bytes, name.len);
}

static void put_diropargs(struct nfs42_xdr *x, const struct nfs3_fh *dir,
			  struct nfs3_name name)
{
	put_fh(x, dir);
	put_name(x, name);
}

/* sattr3: mode (when >= 0) and size (when >= 0), nothing else */
static void put_sattr(struct nfs42_xdr *x, int32_t mode, int64_t size)
{
	nfs42_xdr_put_bool(x, mode >= 0);
	if (mode >= 0)
		nfs42_xdr_put_u32(x, (uint32_t)mode);
	nfs42_xdr_put_bool(x, false); /* uid */
	nfs42_xdr_put_bool(x, false); /* gid */
	nfs42_xdr_put_bool(x, size >= 0);
	if (size >= 0)
		nfs42_xdr_put_u64(x, (uint64_t)size);
	nfs42_xdr_put_u32(x, 0); /* atime: DONT_CHANGE */
	nfs42_xdr_put_u32(x, 0); /* mtime: DONT_CHANGE */
}

/* ---- decoding ------------------------------------------------------------ */

static void get_fattr(struct nfs42_xdr *x, struct nfs3_attr *a)
{
	uint32_t w[FATTR3_WORDS];
	int i;

	for (i = 0; i < FATTR3_WORDS; i++)
		nfs42_xdr_get_u32(x, &w[i]);
	if (a == NULL)
		return;
	a->type = w[0];
	a->mode = w[1];
	a->uid = w[3];
	a->gid = w[4];
	a->size = (uint64_t)w[5] << 32 | w[6];
	a->fileid = (uint64_t)w[15] << 32 | w[16];
}

static void skip_post_op_attr(struct nfs42_xdr *x)
{
	bool follows = false;

	nfs42_xdr_get_bool(x, &follows);
	if (follows)
		get_fattr(x, NULL);
}

/* wcc_data: pre_op_attr (size, mtime, ctime: 6 words) and post_op_attr */
static void skip_wcc_data(struct nfs42_xdr *x)
{
	bool pre = false;

	nfs42_xdr_get_bool(x, &pre);
	if (pre)
		nfs42_xdr_skip(x, 6 * 4);
	skip_post_op_attr(x);
}

static void get_fh(struct nfs42_xdr *x, struct nfs3_fh *fh)
{
	struct nfs3_fh tmp;

	nfs42_xdr_get_opaque(x, tmp.data, &tmp.len, NFS3_FHSIZE);
	if (fh != NULL)
		*fh = tmp;
}

/* Call and hand back the decoder positioned after the status. */
struct nfs3_reply {
	uint8_t *buf;
	struct nfs42_xdr x;
};

static int nfs3_call(struct nfs42_client *cl, uint32_t prog, uint32_t vers,
		     uint32_t proc, struct nfs42_xdr *args,
		     struct nfs3_reply *r)
{
	size_t len, body;
	uint32_t status;
	int rc;

	r->buf = NULL;
	if (args->err)
		return args->err;
	rc = nfs42_rpc_raw(cl, prog, vers, proc, args->buf, args->len, &r->buf,
			   &len, &body);
	nfs42_xdr_free(args);
	if (rc != 0)
		return rc;
	nfs42_xdr_dec_init(&r->x, r->buf + body, len - body);
	if (!nfs42_xdr_get_u32(&r->x, &status)) {
		free(r->buf);
		r->buf = NULL;
		return -EBADMSG;
	}
	return (int)status;
}

/* The status, or -EBADMSG when what followed it was cut short. */
static int nfs3_done(struct nfs3_reply *r, int status)
{
	if (status >= 0 && r->x.err)
		status = -EBADMSG;
	free(r->buf);
	return status;
}

static int nfs3_nfs(struct nfs3_conn *c, uint32_t proc, struct nfs42_xdr *args,
		    struct nfs3_reply *r)
{
	return nfs3_call(c->nfs, NFS3_PROGRAM, NFS3_VERSION, proc, args, r);
}

/* ---- procedures ---------------------------------------------------------- */

int nfs3_mount(struct nfs3_conn *c, const char *path, struct nfs3_fh *root)
{
	struct nfs3_reply r;
	struct nfs42_xdr a;
	int st;

	nfs42_xdr_enc_init(&a);
	nfs42_xdr_put_string(&a, path);
	st = nfs3_call(c->mnt, MOUNT_PROGRAM, MOUNT_V3, MOUNTPROC3_MNT, &a, &r);
	if (st == 0)
		get_fh(&r.x, root); /* the flavours that follow do not matter */
	return nfs3_done(&r, st);
}

int nfs3_getattr(struct nfs3_conn *c, const struct nfs3_fh *fh,
		 struct nfs3_attr *attr)
{
	struct nfs3_reply r;
	struct nfs42_xdr a;
	int st;

	nfs42_xdr_enc_init(&a);
	put_fh(&a, fh);
	st = nfs3_nfs(c, NFSPROC3_GETATTR, &a, &r);
	if (st == NFS3_OK)
		get_fattr(&r.x, attr);
	return nfs3_done(&r, st);
}

/* A procedure whose arguments are one diropargs3 (LOOKUP: out gets the
 * handle that starts its result).
 */
static int nfs3_dirop(struct nfs3_conn *c, uint32_t proc,
		      const struct nfs3_fh *dir, struct nfs3_name name,
		      struct nfs3_fh *out)
{
	struct nfs3_reply r;
	struct nfs42_xdr a;
	int st;

	nfs42_xdr_enc_init(&a);
	put_diropargs(&a, dir, name);
	st = nfs3_nfs(c, proc, &a, &r);
	if (st == NFS3_OK && out != NULL)
		get_fh(&r.x, out);
	return nfs3_done(&r, st);
}

int nfs3_lookup(struct nfs3_conn *c, const struct nfs3_fh *dir,
		struct nfs3_name name, struct nfs3_fh *out)
{
	return nfs3_dirop(c, NFSPROC3_LOOKUP, dir, name, out);
}

int nfs3_read(struct nfs3_conn *c, const struct nfs3_fh *fh, uint64_t off,
	      uint32_t count, void *buf, uint32_t *got, bool *eof)
{
	struct nfs3_reply r;
	struct nfs42_xdr a;
	uint32_t n = 0;
	int st;

	nfs42_xdr_enc_init(&a);
	put_fh(&a, fh);
	nfs42_xdr_put_u64(&a, off);
	nfs42_xdr_put_u32(&a, count);
	st = nfs3_nfs(c, NFSPROC3_READ, &a, &r);
	*got = 0;
	if (st == NFS3_OK) {
		skip_post_op_attr(&r.x);
		nfs42_xdr_get_u32(&r.x, &n);
		nfs42_xdr_get_bool(&r.x, eof);
		nfs42_xdr_get_opaque(&r.x, buf, got, count);
	}
	return nfs3_done(&r, st);
}

int nfs3_write(struct nfs3_conn *c, const struct nfs3_fh *fh, uint64_t off,
	       const void *data, uint32_t len, uint32_t *written)
{
	struct nfs3_reply r;
	struct nfs42_xdr a;
	int st;

	nfs42_xdr_enc_init(&a);
	put_fh(&a, fh);
	nfs42_xdr_put_u64(&a, off);
	nfs42_xdr_put_u32(&a, len);
	nfs42_xdr_put_u32(&a, FILE_SYNC);
	nfs42_xdr_put_opaque(&a, data, len);
	st = nfs3_nfs(c, NFSPROC3_WRITE, &a, &r);
	*written = 0;
	if (st == NFS3_OK) {
		skip_wcc_data(&r.x);
		nfs42_xdr_get_u32(&r.x, written);
	}
	return nfs3_done(&r, st);
}

int nfs3_commit(struct nfs3_conn *c, const struct nfs3_fh *fh, uint64_t off,
		uint32_t count)
{
	struct nfs3_reply r;
	struct nfs42_xdr a;
	int st;

	nfs42_xdr_enc_init(&a);
	put_fh(&a, fh);
	nfs42_xdr_put_u64(&a, off);
	nfs42_xdr_put_u32(&a, count);
	st = nfs3_nfs(c, NFSPROC3_COMMIT, &a, &r);
	return nfs3_done(&r, st);
}

int nfs3_setattr(struct nfs3_conn *c, const struct nfs3_fh *fh, int64_t size,
		 int32_t mode)
{
	struct nfs3_reply r;
	struct nfs42_xdr a;
	int st;

	nfs42_xdr_enc_init(&a);
	put_fh(&a, fh);
	put_sattr(&a, mode, size);
	nfs42_xdr_put_bool(&a, false); /* no guard */
	st = nfs3_nfs(c, NFSPROC3_SETATTR, &a, &r);
	return nfs3_done(&r, st);
}

/* CREATE, MKDIR, SYMLINK and MKNOD answer a post_op_fh3 first. */
static int nfs3_make(struct nfs3_conn *c, uint32_t proc, struct nfs42_xdr *a,
		     struct nfs3_fh *out)
{
	struct nfs3_reply r;
	bool follows = false;
	int st;

	st = nfs3_nfs(c, proc, a, &r);
	if (st == NFS3_OK) {
		nfs42_xdr_get_bool(&r.x, &follows);
		if (follows)
			get_fh(&r.x, out);
		else if (out != NULL)
			out->len = 0;
	}
	return nfs3_done(&r, st);
}

int nfs3_create(struct nfs3_conn *c, const struct nfs3_fh *dir,
		struct nfs3_name name, uint32_t mode, struct nfs3_fh *out)
{
	struct nfs42_xdr a;

	nfs42_xdr_enc_init(&a);
	put_diropargs(&a, dir, name);
	nfs42_xdr_put_u32(&a, 0); /* UNCHECKED */
	put_sattr(&a, (int32_t)mode, -1);
	return nfs3_make(c, NFSPROC3_CREATE, &a, out);
}

int nfs3_mkdir(struct nfs3_conn *c, const struct nfs3_fh *dir,
	       struct nfs3_name name, uint32_t mode, struct nfs3_fh *out)
{
	struct nfs42_xdr a;

	nfs42_xdr_enc_init(&a);
	put_diropargs(&a, dir, name);
	put_sattr(&a, (int32_t)mode, -1);
	return nfs3_make(c, NFSPROC3_MKDIR, &a, out);
}

int nfs3_symlink(struct nfs3_conn *c, const struct nfs3_fh *dir,
		 struct nfs3_name name, const char *target, struct nfs3_fh *out)
{
	struct nfs42_xdr a;

	nfs42_xdr_enc_init(&a);
	put_diropargs(&a, dir, name);
	put_sattr(&a, -1, -1);
	nfs42_xdr_put_string(&a, target);
	return nfs3_make(c, NFSPROC3_SYMLINK, &a, out);
}

int nfs3_mkfifo(struct nfs3_conn *c, const struct nfs3_fh *dir,
		struct nfs3_name name, uint32_t mode)
{
	struct nfs42_xdr a;

	nfs42_xdr_enc_init(&a);
	put_diropargs(&a, dir, name);
	nfs42_xdr_put_u32(&a, NF3FIFO);
	put_sattr(&a, (int32_t)mode, -1);
	return nfs3_make(c, NFSPROC3_MKNOD, &a, NULL);
}

int nfs3_remove(struct nfs3_conn *c, const struct nfs3_fh *dir,
		struct nfs3_name name)
{
	return nfs3_dirop(c, NFSPROC3_REMOVE, dir, name, NULL);
}

int nfs3_rmdir(struct nfs3_conn *c, const struct nfs3_fh *dir,
	       struct nfs3_name name)
{
	return nfs3_dirop(c, NFSPROC3_RMDIR, dir, name, NULL);
}

int nfs3_rename(struct nfs3_conn *c, const struct nfs3_fh *from_dir,
		struct nfs3_name from, const struct nfs3_fh *to_dir,
		struct nfs3_name to)
{
	struct nfs3_reply r;
	struct nfs42_xdr a;
	int st;

	nfs42_xdr_enc_init(&a);
	put_diropargs(&a, from_dir, from);
	put_diropargs(&a, to_dir, to);
	st = nfs3_nfs(c, NFSPROC3_RENAME, &a, &r);
	return nfs3_done(&r, st);
}

int nfs3_link(struct nfs3_conn *c, const struct nfs3_fh *file,
	      const struct nfs3_fh *dir, struct nfs3_name name)
{
	struct nfs3_reply r;
	struct nfs42_xdr a;
	int st;

	nfs42_xdr_enc_init(&a);
	put_fh(&a, file);
	put_diropargs(&a, dir, name);
	st = nfs3_nfs(c, NFSPROC3_LINK, &a, &r);
	return nfs3_done(&r, st);
}
