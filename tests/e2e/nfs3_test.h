/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * A test-only NFSv3 client (RFC 1813) and MOUNT v3 client, for the e2e
 * tests that must reach a server the way an NFSv3 client does (issue #16:
 * Ganesha checks names only in NFSv4).  It rides on the nfs42c transport
 * (nfs42_rpc_raw) and knows only what the tests need: MNT, GETATTR,
 * SETATTR, LOOKUP, READ, WRITE, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE,
 * RMDIR, RENAME, LINK, COMMIT.  Names go out with an explicit length, so
 * a test can send what no C string can hold (an embedded NUL).
 *
 * Every call returns the procedure's status (nfsstat3, >= 0) or a
 * negative errno when no status came back (transport, or an RPC the
 * server did not accept: -EINVAL is GARBAGE_ARGS).
 */
#ifndef NFS3_TEST_H
#define NFS3_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nfs42.h"

#define NFS3_OK 0
#define NFS3ERR_PERM 1
#define NFS3ERR_NOENT 2
#define NFS3ERR_IO 5
#define NFS3ERR_ACCES 13
#define NFS3ERR_EXIST 17
#define NFS3ERR_XDEV 18
#define NFS3ERR_NOTDIR 20
#define NFS3ERR_ISDIR 21
#define NFS3ERR_INVAL 22
#define NFS3ERR_ROFS 30
#define NFS3ERR_NAMETOOLONG 63
#define NFS3ERR_STALE 70

#define NFS3_FHSIZE 64

struct nfs3_fh {
	uint32_t len;
	uint8_t data[NFS3_FHSIZE];
};

/* The parts of fattr3 the tests look at. */
struct nfs3_attr {
	uint32_t type; /* ftype3: 1 REG, 2 DIR, 5 LNK, 7 FIFO */
	uint32_t mode, uid, gid;
	uint64_t size, fileid;
};

/* A name on the wire: bytes and length (may hold NUL). */
struct nfs3_name {
	const char *bytes;
	uint32_t len;
};

static inline struct nfs3_name nfs3_str(const char *s)
{
	struct nfs3_name n = { s, (uint32_t)strlen(s) };

	return n;
}

struct nfs3_conn {
	struct nfs42_client *nfs; /* NFS program, version 3 */
	struct nfs42_client *mnt; /* MOUNT program, version 3 */
};

/* Connect to NFS42_HOST:NFS42_PORT (NFS) and :NFS42_MNT_PORT (MOUNT). */
int nfs3_connect(struct nfs3_conn *c);
void nfs3_close(struct nfs3_conn *c);
/* AUTH_SYS credentials of both connections. */
void nfs3_set_cred(struct nfs3_conn *c, uint32_t uid, uint32_t gid);
/* A name for a status, for messages ("NFS3ERR_ACCES", "RPC: ..."). */
const char *nfs3_status_name(int status);

/* MOUNT3 MNT: the root handle of an export path (returns mountstat3). */
int nfs3_mount(struct nfs3_conn *c, const char *path, struct nfs3_fh *root);

int nfs3_getattr(struct nfs3_conn *c, const struct nfs3_fh *fh,
		 struct nfs3_attr *attr);
int nfs3_lookup(struct nfs3_conn *c, const struct nfs3_fh *dir,
		struct nfs3_name name, struct nfs3_fh *out);
int nfs3_read(struct nfs3_conn *c, const struct nfs3_fh *fh, uint64_t off,
	      uint32_t count, void *buf, uint32_t *got, bool *eof);
int nfs3_write(struct nfs3_conn *c, const struct nfs3_fh *fh, uint64_t off,
	       const void *data, uint32_t len, uint32_t *written);
/* COMMIT of count bytes at off (0, 0: the whole file). */
int nfs3_commit(struct nfs3_conn *c, const struct nfs3_fh *fh, uint64_t off,
		uint32_t count);
/* SETATTR of the size (size >= 0) and/or mode (mode >= 0), no guard. */
int nfs3_setattr(struct nfs3_conn *c, const struct nfs3_fh *fh, int64_t size,
		 int32_t mode);
/* CREATE UNCHECKED with a mode; out may be NULL. */
int nfs3_create(struct nfs3_conn *c, const struct nfs3_fh *dir,
		struct nfs3_name name, uint32_t mode, struct nfs3_fh *out);
int nfs3_mkdir(struct nfs3_conn *c, const struct nfs3_fh *dir,
	       struct nfs3_name name, uint32_t mode, struct nfs3_fh *out);
int nfs3_symlink(struct nfs3_conn *c, const struct nfs3_fh *dir,
		 struct nfs3_name name, const char *target,
		 struct nfs3_fh *out);
/* MKNOD of a FIFO */
int nfs3_mkfifo(struct nfs3_conn *c, const struct nfs3_fh *dir,
		struct nfs3_name name, uint32_t mode);
int nfs3_remove(struct nfs3_conn *c, const struct nfs3_fh *dir,
		struct nfs3_name name);
int nfs3_rmdir(struct nfs3_conn *c, const struct nfs3_fh *dir,
	       struct nfs3_name name);
int nfs3_rename(struct nfs3_conn *c, const struct nfs3_fh *from_dir,
		struct nfs3_name from, const struct nfs3_fh *to_dir,
		struct nfs3_name to);
int nfs3_link(struct nfs3_conn *c, const struct nfs3_fh *file,
	      const struct nfs3_fh *dir, struct nfs3_name name);

#endif /* NFS3_TEST_H */
