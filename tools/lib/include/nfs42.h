/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42c: a small user-space NFSv4.1/4.2 client (RFC 5661, 7862, 7863).
 *
 * Error convention for every int-returning call:
 *   0          success
 *   > 0        an NFSv4 status (NFS4ERR_*), see nfs42_strerror()
 *   < 0        a negative errno for local, transport or RPC-level failures
 *              (-ECONNREFUSED, -ETIMEDOUT, -EBADMSG for a malformed reply,
 *              -EPROTO for an RPC rejection...); nfs42_client_error() has a
 *              human-readable message for the last one.
 *
 * A client is one TCP connection with one session.  It is thread-safe:
 * several threads may run compounds at once (one session slot each); the
 * thread waiting for a reply also serves backchannel calls.
 */
#ifndef NFS42_H
#define NFS42_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nfs42_xdr.h"

#define NFS42_PROGRAM 100003
#define NFS42_VERSION 4
#define NFS42_CB_PROGRAM_DEFAULT 0x40000000
#define NFS4_FHSIZE 128
#define NFS4_VERIFIER_SIZE 8
#define NFS4_SESSIONID_SIZE 16
#define NFS4_OTHER_SIZE 12
#define NFS42_MAX_GIDS 16
#define NFS42_OWNER_MAX 256

/* Operation numbers (RFC 5661 / 7862) */
enum nfs42_opnum {
	OP_ACCESS = 3,
	OP_CLOSE = 4,
	OP_COMMIT = 5,
	OP_CREATE = 6,
	OP_DELEGPURGE = 7,
	OP_DELEGRETURN = 8,
	OP_GETATTR = 9,
	OP_GETFH = 10,
	OP_LINK = 11,
	OP_LOCK = 12,
	OP_LOCKT = 13,
	OP_LOCKU = 14,
	OP_LOOKUP = 15,
	OP_LOOKUPP = 16,
	OP_NVERIFY = 17,
	OP_OPEN = 18,
	OP_OPENATTR = 19,
	OP_OPEN_CONFIRM = 20,
	OP_OPEN_DOWNGRADE = 21,
	OP_PUTFH = 22,
	OP_PUTPUBFH = 23,
	OP_PUTROOTFH = 24,
	OP_READ = 25,
	OP_READDIR = 26,
	OP_READLINK = 27,
	OP_REMOVE = 28,
	OP_RENAME = 29,
	OP_RENEW = 30,
	OP_RESTOREFH = 31,
	OP_SAVEFH = 32,
	OP_SECINFO = 33,
	OP_SETATTR = 34,
	OP_SETCLIENTID = 35,
	OP_SETCLIENTID_CONFIRM = 36,
	OP_VERIFY = 37,
	OP_WRITE = 38,
	OP_RELEASE_LOCKOWNER = 39,
	OP_BACKCHANNEL_CTL = 40,
	OP_BIND_CONN_TO_SESSION = 41,
	OP_EXCHANGE_ID = 42,
	OP_CREATE_SESSION = 43,
	OP_DESTROY_SESSION = 44,
	OP_FREE_STATEID = 45,
	OP_GET_DIR_DELEGATION = 46,
	OP_GETDEVICEINFO = 47,
	OP_GETDEVICELIST = 48,
	OP_LAYOUTCOMMIT = 49,
	OP_LAYOUTGET = 50,
	OP_LAYOUTRETURN = 51,
	OP_SECINFO_NO_NAME = 52,
	OP_SEQUENCE = 53,
	OP_SET_SSV = 54,
	OP_TEST_STATEID = 55,
	OP_WANT_DELEGATION = 56,
	OP_DESTROY_CLIENTID = 57,
	OP_RECLAIM_COMPLETE = 58,
	OP_ALLOCATE = 59,
	OP_COPY = 60,
	OP_COPY_NOTIFY = 61,
	OP_DEALLOCATE = 62,
	OP_IO_ADVISE = 63,
	OP_LAYOUTERROR = 64,
	OP_LAYOUTSTATS = 65,
	OP_OFFLOAD_CANCEL = 66,
	OP_OFFLOAD_STATUS = 67,
	OP_READ_PLUS = 68,
	OP_SEEK = 69,
	OP_WRITE_SAME = 70,
	OP_CLONE = 71,
	OP_GETXATTR = 72,
	OP_SETXATTR = 73,
	OP_LISTXATTRS = 74,
	OP_REMOVEXATTR = 75,
	OP_ILLEGAL = 10044,
};

/* Callback operation numbers */
enum nfs42_cb_opnum {
	OP_CB_GETATTR = 3,
	OP_CB_RECALL = 4,
	OP_CB_LAYOUTRECALL = 5,
	OP_CB_NOTIFY = 6,
	OP_CB_PUSH_DELEG = 7,
	OP_CB_RECALL_ANY = 8,
	OP_CB_RECALLABLE_OBJ_AVAIL = 9,
	OP_CB_RECALL_SLOT = 10,
	OP_CB_SEQUENCE = 11,
	OP_CB_WANTS_CANCELLED = 12,
	OP_CB_NOTIFY_LOCK = 13,
	OP_CB_NOTIFY_DEVICEID = 14,
	OP_CB_OFFLOAD = 15,
	OP_CB_ILLEGAL = 10044,
};

/* Status values (nfsstat4) */
enum nfs42_stat {
	NFS4_OK = 0,
	NFS4ERR_PERM = 1,
	NFS4ERR_NOENT = 2,
	NFS4ERR_IO = 5,
	NFS4ERR_NXIO = 6,
	NFS4ERR_ACCESS = 13,
	NFS4ERR_EXIST = 17,
	NFS4ERR_XDEV = 18,
	NFS4ERR_NOTDIR = 20,
	NFS4ERR_ISDIR = 21,
	NFS4ERR_INVAL = 22,
	NFS4ERR_FBIG = 27,
	NFS4ERR_NOSPC = 28,
	NFS4ERR_ROFS = 30,
	NFS4ERR_MLINK = 31,
	NFS4ERR_NAMETOOLONG = 63,
	NFS4ERR_NOTEMPTY = 66,
	NFS4ERR_DQUOT = 69,
	NFS4ERR_STALE = 70,
	NFS4ERR_BADHANDLE = 10001,
	NFS4ERR_BAD_COOKIE = 10003,
	NFS4ERR_NOTSUPP = 10004,
	NFS4ERR_TOOSMALL = 10005,
	NFS4ERR_SERVERFAULT = 10006,
	NFS4ERR_BADTYPE = 10007,
	NFS4ERR_DELAY = 10008,
	NFS4ERR_SAME = 10009,
	NFS4ERR_DENIED = 10010,
	NFS4ERR_EXPIRED = 10011,
	NFS4ERR_LOCKED = 10012,
	NFS4ERR_GRACE = 10013,
	NFS4ERR_FHEXPIRED = 10014,
	NFS4ERR_SHARE_DENIED = 10015,
	NFS4ERR_WRONGSEC = 10016,
	NFS4ERR_CLID_INUSE = 10017,
	NFS4ERR_RESOURCE = 10018,
	NFS4ERR_MOVED = 10019,
	NFS4ERR_NOFILEHANDLE = 10020,
	NFS4ERR_MINOR_VERS_MISMATCH = 10021,
	NFS4ERR_STALE_CLIENTID = 10022,
	NFS4ERR_STALE_STATEID = 10023,
	NFS4ERR_OLD_STATEID = 10024,
	NFS4ERR_BAD_STATEID = 10025,
	NFS4ERR_BAD_SEQID = 10026,
	NFS4ERR_NOT_SAME = 10027,
	NFS4ERR_LOCK_RANGE = 10028,
	NFS4ERR_SYMLINK = 10029,
	NFS4ERR_RESTOREFH = 10030,
	NFS4ERR_LEASE_MOVED = 10031,
	NFS4ERR_ATTRNOTSUPP = 10032,
	NFS4ERR_NO_GRACE = 10033,
	NFS4ERR_RECLAIM_BAD = 10034,
	NFS4ERR_RECLAIM_CONFLICT = 10035,
	NFS4ERR_BADXDR = 10036,
	NFS4ERR_LOCKS_HELD = 10037,
	NFS4ERR_OPENMODE = 10038,
	NFS4ERR_BADOWNER = 10039,
	NFS4ERR_BADCHAR = 10040,
	NFS4ERR_BADNAME = 10041,
	NFS4ERR_BAD_RANGE = 10042,
	NFS4ERR_LOCK_NOTSUPP = 10043,
	NFS4ERR_OP_ILLEGAL = 10044,
	NFS4ERR_DEADLOCK = 10045,
	NFS4ERR_FILE_OPEN = 10046,
	NFS4ERR_ADMIN_REVOKED = 10047,
	NFS4ERR_CB_PATH_DOWN = 10048,
	NFS4ERR_BADIOMODE = 10049,
	NFS4ERR_BADLAYOUT = 10050,
	NFS4ERR_BAD_SESSION_DIGEST = 10051,
	NFS4ERR_BADSESSION = 10052,
	NFS4ERR_BADSLOT = 10053,
	NFS4ERR_COMPLETE_ALREADY = 10054,
	NFS4ERR_CONN_NOT_BOUND_TO_SESSION = 10055,
	NFS4ERR_DELEG_ALREADY_WANTED = 10056,
	NFS4ERR_BACK_CHAN_BUSY = 10057,
	NFS4ERR_LAYOUTTRYLATER = 10058,
	NFS4ERR_LAYOUTUNAVAILABLE = 10059,
	NFS4ERR_NOMATCHING_LAYOUT = 10060,
	NFS4ERR_RECALLCONFLICT = 10061,
	NFS4ERR_UNKNOWN_LAYOUTTYPE = 10062,
	NFS4ERR_SEQ_MISORDERED = 10063,
	NFS4ERR_SEQUENCE_POS = 10064,
	NFS4ERR_REQ_TOO_BIG = 10065,
	NFS4ERR_REP_TOO_BIG = 10066,
	NFS4ERR_REP_TOO_BIG_TO_CACHE = 10067,
	NFS4ERR_RETRY_UNCACHED_REP = 10068,
	NFS4ERR_UNSAFE_COMPOUND = 10069,
	NFS4ERR_TOO_MANY_OPS = 10070,
	NFS4ERR_OP_NOT_IN_SESSION = 10071,
	NFS4ERR_HASH_ALG_UNSUPP = 10072,
	NFS4ERR_CLIENTID_BUSY = 10074,
	NFS4ERR_PNFS_IO_HOLE = 10075,
	NFS4ERR_SEQ_FALSE_RETRY = 10076,
	NFS4ERR_BAD_HIGH_SLOT = 10077,
	NFS4ERR_DEADSESSION = 10078,
	NFS4ERR_ENCR_ALG_UNSUPP = 10079,
	NFS4ERR_PNFS_NO_LAYOUT = 10080,
	NFS4ERR_NOT_ONLY_OP = 10081,
	NFS4ERR_WRONG_CRED = 10082,
	NFS4ERR_WRONG_TYPE = 10083,
	NFS4ERR_DIRDELEG_UNAVAIL = 10084,
	NFS4ERR_REJECT_DELEG = 10085,
	NFS4ERR_RETURNCONFLICT = 10086,
	NFS4ERR_DELEG_REVOKED = 10087,
	NFS4ERR_PARTNER_NOTSUPP = 10088,
	NFS4ERR_PARTNER_NO_AUTH = 10089,
	NFS4ERR_UNION_NOTSUPP = 10090,
	NFS4ERR_OFFLOAD_DENIED = 10091,
	NFS4ERR_WRONG_LFS = 10092,
	NFS4ERR_BADLABEL = 10093,
	NFS4ERR_OFFLOAD_NO_REQS = 10094,
	NFS4ERR_NOXATTR = 10095,
	NFS4ERR_XATTR2BIG = 10096,
};

/* Name of an NFSv4 status ("NFS4ERR_NOENT"), or of a negative errno. */
const char *nfs42_strerror(int status);
/* Name of an operation ("READDIR"), or "OP_<n>" into a static buffer. */
const char *nfs42_opname(uint32_t op);

/* File types (nfs_ftype4) */
enum nfs42_ftype {
	NF4REG = 1,
	NF4DIR = 2,
	NF4BLK = 3,
	NF4CHR = 4,
	NF4LNK = 5,
	NF4SOCK = 6,
	NF4FIFO = 7,
	NF4ATTRDIR = 8,
	NF4NAMEDATTR = 9,
};

/* Attribute numbers (RFC 5661 section 5, RFC 7862) */
enum nfs42_attr {
	FATTR4_SUPPORTED_ATTRS = 0,
	FATTR4_TYPE = 1,
	FATTR4_FH_EXPIRE_TYPE = 2,
	FATTR4_CHANGE = 3,
	FATTR4_SIZE = 4,
	FATTR4_LINK_SUPPORT = 5,
	FATTR4_SYMLINK_SUPPORT = 6,
	FATTR4_NAMED_ATTR = 7,
	FATTR4_FSID = 8,
	FATTR4_UNIQUE_HANDLES = 9,
	FATTR4_LEASE_TIME = 10,
	FATTR4_RDATTR_ERROR = 11,
	FATTR4_ACL = 12,
	FATTR4_ACLSUPPORT = 13,
	FATTR4_ARCHIVE = 14,
	FATTR4_CANSETTIME = 15,
	FATTR4_CASE_INSENSITIVE = 16,
	FATTR4_CASE_PRESERVING = 17,
	FATTR4_CHOWN_RESTRICTED = 18,
	FATTR4_FILEHANDLE = 19,
	FATTR4_FILEID = 20,
	FATTR4_FILES_AVAIL = 21,
	FATTR4_FILES_FREE = 22,
	FATTR4_FILES_TOTAL = 23,
	FATTR4_FS_LOCATIONS = 24,
	FATTR4_HIDDEN = 25,
	FATTR4_HOMOGENEOUS = 26,
	FATTR4_MAXFILESIZE = 27,
	FATTR4_MAXLINK = 28,
	FATTR4_MAXNAME = 29,
	FATTR4_MAXREAD = 30,
	FATTR4_MAXWRITE = 31,
	FATTR4_MIMETYPE = 32,
	FATTR4_MODE = 33,
	FATTR4_NO_TRUNC = 34,
	FATTR4_NUMLINKS = 35,
	FATTR4_OWNER = 36,
	FATTR4_OWNER_GROUP = 37,
	FATTR4_QUOTA_AVAIL_HARD = 38,
	FATTR4_QUOTA_AVAIL_SOFT = 39,
	FATTR4_QUOTA_USED = 40,
	FATTR4_RAWDEV = 41,
	FATTR4_SPACE_AVAIL = 42,
	FATTR4_SPACE_FREE = 43,
	FATTR4_SPACE_TOTAL = 44,
	FATTR4_SPACE_USED = 45,
	FATTR4_SYSTEM = 46,
	FATTR4_TIME_ACCESS = 47,
	FATTR4_TIME_ACCESS_SET = 48,
	FATTR4_TIME_BACKUP = 49,
	FATTR4_TIME_CREATE = 50,
	FATTR4_TIME_DELTA = 51,
	FATTR4_TIME_METADATA = 52,
	FATTR4_TIME_MODIFY = 53,
	FATTR4_TIME_MODIFY_SET = 54,
	FATTR4_MOUNTED_ON_FILEID = 55,
	FATTR4_DIR_NOTIF_DELAY = 56,
	FATTR4_DIRENT_NOTIF_DELAY = 57,
	FATTR4_DACL = 58,
	FATTR4_SACL = 59,
	FATTR4_CHANGE_POLICY = 60,
	FATTR4_FS_STATUS = 61,
	FATTR4_FS_LAYOUT_TYPES = 62,
	FATTR4_LAYOUT_HINT = 63,
	FATTR4_LAYOUT_TYPES = 64,
	FATTR4_LAYOUT_BLKSIZE = 65,
	FATTR4_LAYOUT_ALIGNMENT = 66,
	FATTR4_FS_LOCATIONS_INFO = 67,
	FATTR4_MDSTHRESHOLD = 68,
	FATTR4_RETENTION_GET = 69,
	FATTR4_RETENTION_SET = 70,
	FATTR4_RETENTEVT_GET = 71,
	FATTR4_RETENTEVT_SET = 72,
	FATTR4_RETENTION_HOLD = 73,
	FATTR4_MODE_SET_MASKED = 74,
	FATTR4_SUPPATTR_EXCLCREAT = 75,
	FATTR4_FS_CHARSET_CAP = 76,
	FATTR4_CLONE_BLKSIZE = 77,
	FATTR4_SPACE_FREED = 78,
	FATTR4_CHANGE_ATTR_TYPE = 79,
	FATTR4_SEC_LABEL = 80,
	FATTR4_MODE_UMASK = 81, /* RFC 8275 */
	FATTR4_XATTR_SUPPORT = 82,
	FATTR4_OFFLINE = 83, /* RFC 9754 */
	FATTR4_TIME_DELEG_ACCESS = 84,
	FATTR4_TIME_DELEG_MODIFY = 85,
	FATTR4_OPEN_ARGUMENTS = 86,
};

/* Misc protocol constants */
#define ACCESS4_READ 0x01
#define ACCESS4_LOOKUP 0x02
#define ACCESS4_MODIFY 0x04
#define ACCESS4_EXTEND 0x08
#define ACCESS4_DELETE 0x10
#define ACCESS4_EXECUTE 0x20
/* RFC 8276 (NFSv4.2 only) */
#define ACCESS4_XAREAD 0x40
#define ACCESS4_XAWRITE 0x80
#define ACCESS4_XALIST 0x100

/* setxattr_option4 (RFC 8276) */
enum nfs42_setxattr_option {
	SETXATTR4_EITHER = 0,
	SETXATTR4_CREATE = 1,
	SETXATTR4_REPLACE = 2,
};

#define OPEN4_SHARE_ACCESS_READ 1
#define OPEN4_SHARE_ACCESS_WRITE 2
#define OPEN4_SHARE_ACCESS_BOTH 3
#define OPEN4_SHARE_ACCESS_WANT_NO_DELEG 0x0400
/* RFC 9754: the delegation's timestamps (attributes 84, 85) go to its
 * holder; a delegation instead of an open stateid */
#define OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS 0x100000
#define OPEN4_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION 0x200000
/* their values in open_arguments' share_access_want (RFC 9754 4.1) */
#define OPEN_ARGS_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS 20
#define OPEN_ARGS_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION 21
#define OPEN4_SHARE_DENY_NONE 0
#define OPEN4_SHARE_DENY_READ 1
#define OPEN4_SHARE_DENY_WRITE 2
#define OPEN4_SHARE_DENY_BOTH 3
#define OPEN4_RESULT_CONFIRM 0x2
#define OPEN4_RESULT_LOCKTYPE_POSIX 0x4
#define OPEN4_RESULT_NO_OPEN_STATEID 0x10

enum nfs42_createmode {
	UNCHECKED4 = 0,
	GUARDED4 = 1,
	EXCLUSIVE4 = 2,
	EXCLUSIVE4_1 = 3,
	NFS42_NOCREATE = -1, /* our marker: OPEN4_NOCREATE */
};

enum nfs42_claim {
	CLAIM_NULL = 0,
	CLAIM_PREVIOUS = 1,
	CLAIM_DELEGATE_CUR = 2,
	CLAIM_DELEGATE_PREV = 3,
	CLAIM_FH = 4,
	CLAIM_DELEG_CUR_FH = 5,
	CLAIM_DELEG_PREV_FH = 6,
};

enum nfs42_stable_how { UNSTABLE4 = 0, DATA_SYNC4 = 1, FILE_SYNC4 = 2 };

enum nfs42_lock_type {
	READ_LT = 1,
	WRITE_LT = 2,
	READW_LT = 3,
	WRITEW_LT = 4,
};

enum nfs42_content { NFS4_CONTENT_DATA = 0, NFS4_CONTENT_HOLE = 1 };

enum nfs42_time_how { SET_TO_SERVER_TIME4 = 0, SET_TO_CLIENT_TIME4 = 1 };

#define NFS42_LENGTH_EOF UINT64_MAX

/* Basic types */
struct nfs42_fh {
	uint32_t len;
	uint8_t data[NFS4_FHSIZE];
};

struct nfs42_stateid {
	uint32_t seqid;
	uint8_t other[NFS4_OTHER_SIZE];
};

struct nfs42_time {
	int64_t seconds;
	uint32_t nseconds;
};

#define NFS42_BITMAP_WORDS 4
struct nfs42_bitmap {
	uint32_t n; /* number of words used */
	uint32_t w[NFS42_BITMAP_WORDS];
};

struct nfs42_cinfo {
	bool atomic;
	uint64_t before;
	uint64_t after;
};

void nfs42_bm_clear(struct nfs42_bitmap *bm);
void nfs42_bm_set(struct nfs42_bitmap *bm, unsigned int bit);
bool nfs42_bm_isset(const struct nfs42_bitmap *bm, unsigned int bit);
/* Bitmap from a list of attribute numbers terminated by -1. */
struct nfs42_bitmap nfs42_bm_make(int first, ...);
/* The attributes stat-like callers usually want. */
struct nfs42_bitmap nfs42_bm_stat(void);

/* Decoded fattr4.  mask tells which fields were present in the reply. */
struct nfs42_attrs {
	struct nfs42_bitmap mask;
	struct nfs42_bitmap supported_attrs;
	struct nfs42_bitmap suppattr_exclcreat;
	uint32_t type;
	uint32_t fh_expire_type;
	uint64_t change;
	uint64_t size;
	bool link_support, symlink_support, named_attr, unique_handles;
	bool archive, cansettime, case_insensitive, case_preserving;
	bool chown_restricted, hidden, homogeneous, no_trunc, system;
	bool xattr_support;
	struct {
		uint64_t major, minor;
	} fsid;
	uint32_t lease_time;
	uint32_t rdattr_error;
	uint32_t aclsupport;
	uint32_t nacl; /* number of ACL entries (entries not kept) */
	struct nfs42_fh filehandle;
	uint64_t fileid;
	uint64_t files_avail, files_free, files_total;
	uint64_t maxfilesize, maxread, maxwrite;
	uint32_t maxlink, maxname;
	uint32_t mode;
	uint32_t numlinks;
	char owner[NFS42_OWNER_MAX];
	char owner_group[NFS42_OWNER_MAX];
	uint64_t quota_avail_hard, quota_avail_soft, quota_used;
	struct {
		uint32_t major, minor;
	} rawdev;
	uint64_t space_avail, space_free, space_total, space_used;
	struct nfs42_time time_access, time_backup, time_create, time_delta;
	struct nfs42_time time_metadata, time_modify;
	uint64_t mounted_on_fileid;
	uint32_t layout_blksize, layout_alignment;
	uint32_t fs_charset_cap;
	uint32_t clone_blksize;
	uint64_t space_freed;
	uint32_t change_attr_type;
	/* open_arguments (RFC 9754): the OPEN arguments the server honours,
	 * each a bitmap of the values of its enum (share_access_want: the
	 * OPEN4_SHARE_ACCESS_WANT_* value >> 8 for the delegation wants,
	 * OPEN_ARGS_SHARE_ACCESS_WANT_* for the flags)
	 */
	struct {
		struct nfs42_bitmap share_access, share_deny;
		struct nfs42_bitmap share_access_want, open_claim, create_mode;
	} open_arguments;
};

/* Attributes to set (SETATTR, CREATE, OPEN with create). */
struct nfs42_sattr {
	struct nfs42_bitmap mask; /* FATTR4_SIZE, MODE, OWNER, OWNER_GROUP,
				   * TIME_ACCESS_SET, TIME_MODIFY_SET,
				   * TIME_DELEG_ACCESS, TIME_DELEG_MODIFY */
	uint64_t size;
	uint32_t mode;
	const char *owner;
	const char *owner_group;
	enum nfs42_time_how atime_how, mtime_how;
	struct nfs42_time atime, mtime;
	struct nfs42_time deleg_atime, deleg_mtime; /* RFC 9754 84, 85 */
};

void nfs42_sattr_init(struct nfs42_sattr *sa);
void nfs42_sattr_size(struct nfs42_sattr *sa, uint64_t size);
void nfs42_sattr_mode(struct nfs42_sattr *sa, uint32_t mode);
void nfs42_sattr_owner(struct nfs42_sattr *sa, const char *owner);
void nfs42_sattr_group(struct nfs42_sattr *sa, const char *group);
/* t == NULL: SET_TO_SERVER_TIME4 */
void nfs42_sattr_atime(struct nfs42_sattr *sa, const struct nfs42_time *t);
void nfs42_sattr_mtime(struct nfs42_sattr *sa, const struct nfs42_time *t);
/* RFC 9754: time_deleg_access / time_deleg_modify, which only the holder
 * of a delegation with its timestamps sets (with its stateid) */
void nfs42_sattr_deleg_atime(struct nfs42_sattr *sa,
			     const struct nfs42_time *t);
void nfs42_sattr_deleg_mtime(struct nfs42_sattr *sa,
			     const struct nfs42_time *t);

/* fattr4 codec (also used by the unit tests) */
int nfs42_fattr_decode(struct nfs42_xdr *x, struct nfs42_attrs *a);
void nfs42_fattr_encode(struct nfs42_xdr *x, const struct nfs42_sattr *sa);
void nfs42_bitmap_encode(struct nfs42_xdr *x, const struct nfs42_bitmap *bm);
bool nfs42_bitmap_decode(struct nfs42_xdr *x, struct nfs42_bitmap *bm);
/* Owner string ("0", "1000", "root@domain") to a numeric id. */
int nfs42_owner_to_id(const char *owner, bool group, uint32_t *id);
/* POSIX mode_t (S_IFxxx | perms) from type + mode attributes. */
mode_t nfs42_attrs_st_mode(const struct nfs42_attrs *a);

/* ---------------------------------------------------------------- client */

struct nfs42_client;

enum nfs42_auth { NFS42_AUTH_NONE = 0, NFS42_AUTH_SYS = 1 };

struct nfs42_opts {
	const char *host; /* default 127.0.0.1 */
	uint16_t port; /* default 2049 */
	enum nfs42_auth auth; /* default AUTH_SYS */
	uint32_t uid, gid; /* default: our own euid/egid */
	uint32_t ngids;
	uint32_t gids[NFS42_MAX_GIDS];
	const char *machinename; /* default: "nfs42c" */
	int connect_timeout_ms; /* default 30000 */
	int timeout_ms; /* reply timeout, default 30000 */
	const char *owner_id; /* EXCHANGE_ID co_ownerid; default unique */
	uint32_t cb_program; /* default NFS42_CB_PROGRAM_DEFAULT */
	uint32_t slots; /* fore channel slots wanted, default 16 */
	uint32_t minorversion; /* default 2 */
	bool no_back_channel; /* do not ask for a back channel */
	/* leave recalled delegations to the application
	 * (nfs42_take_recalls/nfs42_serve_recalls); by default the library
	 * returns them after the compound during which the recall came */
	bool keep_recalls;
	/* EXCHANGE_ID eia_flags: pNFS roles asked for
	 * (EXCHGID4_FLAG_USE_PNFS_DS for a data server), default none */
	uint32_t exchgid_flags;
};

/* Fill defaults; then nfs42_opts_from_env() picks NFS42_HOST, NFS42_PORT
 * and NFS42_MINORVERSION (1 or 2). */
void nfs42_opts_init(struct nfs42_opts *o);
void nfs42_opts_from_env(struct nfs42_opts *o);

/* Connect only (TCP); no session.  Enough for nfs42_null(). */
int nfs42_connect(const struct nfs42_opts *o, struct nfs42_client **out);
/* Connect + EXCHANGE_ID + CREATE_SESSION + RECLAIM_COMPLETE. */
int nfs42_client_create(const struct nfs42_opts *o, struct nfs42_client **out);
/* EXCHANGE_ID + CREATE_SESSION (+ RECLAIM_COMPLETE) on a connected client */
int nfs42_session_create(struct nfs42_client *cl);
/* DESTROY_SESSION + DESTROY_CLIENTID. */
int nfs42_session_destroy(struct nfs42_client *cl);
/* Destroy the session if one exists, close, free.  NULL is fine. */
void nfs42_client_free(struct nfs42_client *cl);
/* NULL procedure */
int nfs42_null(struct nfs42_client *cl);
/*
 * One ONC RPC call of any program and version on the connection, with the
 * client's credentials (no session; for the side protocols of NFSv3, MOUNT
 * and friends).  args: the procedure's XDR-encoded arguments.  On success
 * *reply is malloc'ed (free it) and its results start at offset *body;
 * the reply of a call the server did not accept is an error (-EINVAL for
 * GARBAGE_ARGS, -EPROTO else, -EACCES for an auth error).
 */
int nfs42_rpc_raw(struct nfs42_client *cl, uint32_t prog, uint32_t vers,
		  uint32_t proc, const void *args, size_t args_len,
		  uint8_t **reply, size_t *len, size_t *body);

const char *nfs42_client_error(const struct nfs42_client *cl);
void nfs42_set_cred(struct nfs42_client *cl, uint32_t uid, uint32_t gid,
		    uint32_t ngids, const uint32_t *gids);
void nfs42_set_auth(struct nfs42_client *cl, enum nfs42_auth auth);
void nfs42_set_timeout(struct nfs42_client *cl, int timeout_ms);
uint64_t nfs42_clientid(const struct nfs42_client *cl);
const uint8_t *nfs42_sessionid(const struct nfs42_client *cl);
bool nfs42_has_session(const struct nfs42_client *cl);
uint32_t nfs42_max_request(const struct nfs42_client *cl);
uint32_t nfs42_max_response(const struct nfs42_client *cl);
uint32_t nfs42_slot_count(const struct nfs42_client *cl);
/* Largest READ/WRITE payload that fits in the session's limits. */
uint32_t nfs42_io_size(const struct nfs42_client *cl);
/* EXCHANGE_ID's eir_flags: the server's pNFS roles among them
 * (EXCHGID4_FLAG_MASK_PNFS). */
uint32_t nfs42_server_flags(const struct nfs42_client *cl);
/* Counters: backchannel calls served so far. */
uint64_t nfs42_cb_calls(const struct nfs42_client *cl);
/* COMPOUNDs sent on the fore channel so far (each a round trip; a
 * retried one counts again), and how many of them carried op (SEQUENCE
 * included; an op number past NFS42_OPS_COUNTED counts as 0). */
#define NFS42_OPS_COUNTED 80
uint64_t nfs42_calls_sent(const struct nfs42_client *cl);
uint64_t nfs42_ops_sent(const struct nfs42_client *cl, uint32_t op);

/*
 * Backchannel hook: called for each CB_COMPOUND operation after a valid
 * CB_SEQUENCE.  It must consume the operation's arguments from args and
 * encode the result body (without opnum/status) into res, and return the
 * operation's status.  Returning NFS4ERR_NOTSUPP without consuming args is
 * fine (processing stops there).  Runs on whichever thread reads the
 * connection; it must not issue compounds on the same client.
 */
typedef uint32_t (*nfs42_cb_fn)(struct nfs42_client *cl, void *arg,
				uint32_t opnum, struct nfs42_xdr *args,
				struct nfs42_xdr *res);
void nfs42_set_cb_handler(struct nfs42_client *cl, nfs42_cb_fn fn, void *arg);
/*
 * Misbehaving on the back channel (tests, the protocol fuzzer): a filter
 * consulted once per callback RPC before anything is decoded.  It answers
 * NFS42_CB_ANSWER (served as usual), NFS42_CB_DROP (no reply at all: the
 * server's call times out), NFS42_CB_FAIL_OPS (CB_SEQUENCE served, every
 * later operation answered *fail_status without being looked at) or
 * NFS42_CB_GARBAGE (the RPC answered GARBAGE_ARGS).
 */
enum nfs42_cb_verdict {
	NFS42_CB_ANSWER,
	NFS42_CB_DROP,
	NFS42_CB_FAIL_OPS,
	NFS42_CB_GARBAGE,
};
typedef enum nfs42_cb_verdict (*nfs42_cb_filter_fn)(struct nfs42_client *cl,
						    void *arg,
						    uint32_t *fail_status);
void nfs42_set_cb_filter(struct nfs42_client *cl, nfs42_cb_filter_fn fn,
			 void *arg);
/*
 * Serve the connection (backchannel calls) for up to timeout_ms.  Returns
 * the number of callback RPCs served (>= 1 as soon as one was), 0 on
 * timeout, < 0 on transport failure.
 */
int nfs42_poll(struct nfs42_client *cl, int timeout_ms);
/*
 * Serve the connection until ready(cl) is non-zero or timeout_ms passed:
 * 1 when ready, 0 on timeout, < 0 on transport failure.
 */
int nfs42_poll_until(struct nfs42_client *cl, int timeout_ms,
		     unsigned int (*ready)(struct nfs42_client *cl));

/*
 * Delegations.  A CB_RECALL on the back channel is answered NFS4_OK and
 * queued (at most NFS42_MAX_RECALLS; more get NFS4ERR_DELAY, which makes
 * the server call again); the application gives the delegation back with
 * DELEGRETURN, or keeps it (then the server revokes it).
 */
#define NFS42_MAX_RECALLS 16
/* delegations the library keeps track of; a further one is returned at
 * once */
#define NFS42_MAX_HELD_DELEGS 64
#define OPEN_DELEGATE_NONE 0
#define OPEN_DELEGATE_READ 1
#define OPEN_DELEGATE_WRITE 2
#define OPEN_DELEGATE_NONE_EXT 3
/* RFC 9754: a read or write delegation whose holder owns the timestamps */
#define OPEN_DELEGATE_READ_ATTRS_DELEG 4
#define OPEN_DELEGATE_WRITE_ATTRS_DELEG 5
struct nfs42_recall {
	struct nfs42_stateid stateid;
	struct nfs42_fh fh;
	bool truncate;
};
struct nfs42_held_deleg {
	struct nfs42_stateid stateid;
	struct nfs42_fh fh;
	uint32_t type; /* OPEN_DELEGATE_READ or _WRITE */
	/*
	 * Write delegations, for CB_GETATTR (RFC 8881 10.4.3): the change
	 * attribute at the grant and the file's size as this client made it
	 * (the OPEN's GETATTR, then each size-changing operation it sent on
	 * the file: WRITE, SETATTR, ALLOCATE, COPY, CLONE, LAYOUTCOMMIT).
	 * size_known false: an operation whose effect on the size cannot be
	 * told (no reply, an asynchronous COPY, a CLONE to the end, a
	 * read-write layout, an operation on a file handle not known when
	 * it was encoded); CB_GETATTR is then answered NFS4ERR_DELAY and the
	 * server recalls the delegation instead.  inflight: such operations
	 * sent and not answered (the client has modified data the server may
	 * not have: the change attribute is answered one higher), the size
	 * they make in pending_size; inflight_unsure of them make a size that
	 * is known only from their reply (NFS4ERR_DELAY meanwhile).
	 */
	uint64_t change, size, pending_size;
	unsigned int inflight, inflight_unsure;
	bool size_known;
	/*
	 * RFC 9754 section 5: granted as OPEN_DELEGATE_WRITE_ATTRS_DELEG,
	 * this client owns the file's atime and mtime.  They start as the
	 * OPEN's GETATTR gave them (times_known); mtime becomes this
	 * client's clock when one of its modifications is answered (it
	 * writes through, so the server has the data by then), and is
	 * answered as its clock while modifications are in flight.
	 */
	bool times, times_known;
	struct nfs42_time atime, mtime;
};
/*
 * CB_GETATTR of a file this client holds a write delegation on is
 * answered by the library (change and size as above) unless the callback
 * hook set with nfs42_set_cb_handler() answers it (a hook that returns
 * NFS4ERR_NOTSUPP without consuming the arguments leaves it to the
 * library); answer false: NFS4ERR_NOTSUPP instead (tests: the server's
 * fallback, a recall).  A file handle with no write delegation held gets
 * NFS4ERR_BADHANDLE (RFC 8881 20.1.3).
 */
void nfs42_set_cb_getattr(struct nfs42_client *cl, bool answer);
/*
 * Tests: answer every CB_COMPOUND that succeeds with n results more than
 * it had ops (CB_ILLEGAL, NFS4ERR_OP_ILLEGAL each), as a broken or hostile
 * client could (RFC 8881 20.2.3 allows no more results than ops); 0 (the
 * default) answers as the protocol says.
 */
void nfs42_set_cb_extra_results(struct nfs42_client *cl, uint32_t n);
/* CB_GETATTRs the library answered NFS4_OK. */
uint64_t nfs42_cb_getattrs_answered(const struct nfs42_client *cl);
/* The held delegation on fh (a copy, under the client's lock): 0, or
 * -ENOENT when none is held. */
int nfs42_held_delegation(const struct nfs42_client *cl,
			  const struct nfs42_fh *fh,
			  struct nfs42_held_deleg *out);
/* Delegations granted to this client (by OPEN) and not returned yet. */
unsigned int nfs42_delegations_held(const struct nfs42_client *cl);
/*
 * Return every delegation still held (DELEGRETURN each; a stateid the
 * server no longer knows is forgotten).  nfs42_session_destroy() (and so
 * nfs42_client_free()) does it first, as the Linux client does at
 * unmount.  Returns 0 or the first failure.
 */
int nfs42_return_delegations(struct nfs42_client *cl);
/* Move up to max queued recalls (oldest first) into out; their count. */
unsigned int nfs42_take_recalls(struct nfs42_client *cl,
				struct nfs42_recall *out, unsigned int max);
/* CB_RECALLs received since the client was made. */
uint64_t nfs42_recalls_received(const struct nfs42_client *cl);
/* PUTFH + DELEGRETURN */
int nfs42_delegreturn(struct nfs42_client *cl, const struct nfs42_fh *fh,
		      const struct nfs42_stateid *sid);
/*
 * Serve the back channel until at least one CB_RECALL is queued or
 * timeout_ms passed; then take every queued recall (*taken: how many, 0
 * on timeout; the first max of them copied to recalls, which may be
 * NULL) and, if give_back, return each delegation with DELEGRETURN.
 * Returns 0, the status of the first DELEGRETURN that failed (the later
 * ones are not sent), or < 0 on transport failure.
 */
int nfs42_serve_recalls(struct nfs42_client *cl, int timeout_ms, bool give_back,
			struct nfs42_recall *recalls, unsigned int max,
			unsigned int *taken);
/*
 * Revoked state (RFC 8881 8.2.4, 18.46.3): a compound of SEQUENCE only,
 * SEQUENCE's sr_status_flags in *flags (SEQ4_STATUS_RECALLABLE_STATE_REVOKED
 * while revoked delegations are not freed); TEST_STATEID of one stateid,
 * its status in *status; FREE_STATEID.
 */
#define SEQ4_STATUS_RECALLABLE_STATE_REVOKED 0x00000040
int nfs42_seq_status_flags(struct nfs42_client *cl, uint32_t *flags);
int nfs42_test_stateid(struct nfs42_client *cl, const struct nfs42_stateid *sid,
		       uint32_t *status);
int nfs42_free_stateid(struct nfs42_client *cl,
		       const struct nfs42_stateid *sid);

/* ------------------------------------------------------------- compound */

struct nfs42_compound;

struct nfs42_dirent {
	uint64_t cookie;
	char *name;
	struct nfs42_attrs attrs;
	uint32_t xdr_len; /* bytes of its entry4 on the wire, with the
			   * "value follows" flag before it */
};

struct nfs42_lock_denied {
	uint64_t offset, length;
	uint32_t locktype;
	uint64_t clientid;
	uint32_t owner_len;
	uint8_t owner[1024];
};

struct nfs42_rp_seg {
	uint32_t type; /* NFS4_CONTENT_DATA / NFS4_CONTENT_HOLE */
	uint64_t offset;
	uint64_t length;
	const uint8_t *data; /* DATA: points into the reply */
};

/* pNFS (RFC 8881 sections 12, 13) */
#define NFS4_DEVICEID4_SIZE 16
#define NFS42_DEVLIST_MAX 32
#define LAYOUT4_NFSV4_1_FILES 1
enum nfs42_iomode {
	LAYOUTIOMODE4_READ = 1,
	LAYOUTIOMODE4_RW = 2,
	LAYOUTIOMODE4_ANY = 3,
};
enum nfs42_return_type {
	LAYOUTRETURN4_FILE = 1,
	LAYOUTRETURN4_FSID = 2,
	LAYOUTRETURN4_ALL = 3,
};
#define EXCHGID4_FLAG_USE_NON_PNFS 0x00010000u
#define EXCHGID4_FLAG_USE_PNFS_MDS 0x00020000u
#define EXCHGID4_FLAG_USE_PNFS_DS 0x00040000u
#define EXCHGID4_FLAG_MASK_PNFS 0x00070000u
#define NFL4_UFLG_DENSE 0x00000001u
#define NFL4_UFLG_COMMIT_THRU_MDS 0x00000002u
#define NFL4_UFLG_STRIPE_UNIT_SIZE_MASK 0xFFFFFFC0u

/* Result of one operation.  Pointers stay valid until the compound is freed
 * or run again. */
#define NFS42_TEST_STATEID_MAX 8
struct nfs42_res {
	uint32_t op;
	uint32_t status;
	union {
		struct {
			uint32_t supported, access;
		} access;
		struct nfs42_stateid stateid; /* CLOSE, LOCKU, OPEN_DOWNGRADE */
		struct {
			uint8_t verf[NFS4_VERIFIER_SIZE];
		} commit;
		struct {
			struct nfs42_cinfo cinfo;
			struct nfs42_bitmap attrset;
		} create;
		struct nfs42_attrs *getattr;
		struct nfs42_fh fh; /* GETFH */
		struct nfs42_cinfo cinfo; /* LINK, REMOVE */
		struct {
			struct nfs42_stateid stateid; /* NFS4_OK */
			struct nfs42_lock_denied *denied; /* NFS4ERR_DENIED */
		} lock; /* LOCK, LOCKT */
		struct {
			struct nfs42_stateid stateid;
			struct nfs42_cinfo cinfo;
			uint32_t rflags;
			struct nfs42_bitmap attrset;
			uint32_t deleg_type;
			struct nfs42_stateid deleg_stateid;
			bool deleg_recall;
			uint32_t why_no_deleg;
		} open;
		struct {
			bool eof;
			uint32_t len;
			const uint8_t *data;
		} read;
		struct {
			uint8_t cookieverf[NFS4_VERIFIER_SIZE];
			bool eof;
			uint32_t n;
			struct nfs42_dirent *entries;
			/* bytes of READDIR4resok on the wire (what the
			 * request's maxcount bounds, RFC 8881 18.23.3) */
			uint32_t resok_len;
		} readdir;
		struct {
			char *link;
			uint32_t len;
		} readlink;
		struct {
			struct nfs42_cinfo source, target;
		} rename;
		struct nfs42_bitmap setattr; /* attrsset, also on error */
		struct {
			uint32_t count;
			uint32_t committed;
			uint8_t verf[NFS4_VERIFIER_SIZE];
		} write;
		struct {
			bool eof;
			uint64_t offset;
		} seek;
		struct {
			/* tsr_status_codes: n of them, the first
			 * NFS42_TEST_STATEID_MAX kept
			 */
			uint32_t n;
			uint32_t status[NFS42_TEST_STATEID_MAX];
		} test_stateid;
		struct {
			uint8_t sessionid[NFS4_SESSIONID_SIZE];
			uint32_t seqid, slot, highest_slot, target_highest_slot;
			uint32_t status_flags;
		} sequence;
		struct {
			uint64_t clientid;
			uint32_t seqid;
			uint32_t flags;
			uint32_t spa_how;
			uint64_t minor_id;
			char major_id[1024];
			char scope[1024];
		} exchange_id;
		struct {
			uint8_t sessionid[NFS4_SESSIONID_SIZE];
			uint32_t seqid, flags;
			uint32_t fore_maxreq, fore_maxresp, fore_maxresp_cached;
			uint32_t fore_maxops, fore_maxreqs;
			uint32_t back_maxreq, back_maxresp, back_maxops;
			uint32_t back_maxreqs;
		} create_session;
		struct {
			bool has_callback_id;
			struct nfs42_stateid callback_id;
			uint64_t count;
			uint32_t committed;
			uint8_t verf[NFS4_VERIFIER_SIZE];
			bool consecutive, synchronous;
		} copy; /* also NFS4ERR_OFFLOAD_NO_REQS (requirements only) */
		struct {
			uint64_t count;
			bool has_complete;
			uint32_t complete;
		} offload_status;
		struct {
			bool eof;
			uint32_t n;
			struct nfs42_rp_seg *segs;
		} read_plus;
		struct {
			const uint8_t *data; /* points into the reply */
			uint32_t len;
		} getxattr;
		struct nfs42_cinfo xattr_cinfo; /* SETXATTR, REMOVEXATTR */
		struct {
			uint64_t cookie;
			bool eof;
			uint32_t n;
			char **names; /* NUL-terminated copies */
		} listxattrs;
		struct {
			bool return_on_close;
			struct nfs42_stateid stateid;
			/* layouts in the reply; the first one's fields */
			uint32_t n;
			uint64_t offset, length;
			uint32_t iomode, type;
			const uint8_t *body; /* loc_body, into the reply */
			uint32_t body_len;
			/* NFS4ERR_LAYOUTTRYLATER: logr_will_signal... */
			bool will_signal;
		} layoutget;
		struct {
			uint32_t type;
			const uint8_t *body; /* da_addr_body, into the reply */
			uint32_t body_len;
			uint32_t mincount; /* NFS4ERR_TOOSMALL */
		} getdeviceinfo;
		struct {
			uint64_t cookie;
			uint8_t verf[NFS4_VERIFIER_SIZE];
			/* gdlr_deviceid_list: n of them, the first
			 * NFS42_DEVLIST_MAX kept */
			uint32_t n;
			uint8_t ids[NFS42_DEVLIST_MAX][NFS4_DEVICEID4_SIZE];
			bool eof;
		} getdevicelist;
		struct {
			bool size_changed;
			uint64_t size;
		} layoutcommit;
		struct {
			bool present;
			struct nfs42_stateid stateid;
		} layoutreturn;
		struct {
			const uint8_t *data; /* rest of the reply */
			uint32_t len;
		} raw; /* unknown op: body not decoded */
	} u;
};

/* A compound bound to a client; cl may be NULL to only encode/decode. */
struct nfs42_compound *nfs42_compound_new(struct nfs42_client *cl);
void nfs42_compound_free(struct nfs42_compound *c);
void nfs42_compound_set_tag(struct nfs42_compound *c, const char *tag);
void nfs42_compound_set_minorversion(struct nfs42_compound *c, uint32_t mv);
/* Do not prepend SEQUENCE (EXCHANGE_ID, CREATE_SESSION, raw tests...). */
void nfs42_compound_no_sequence(struct nfs42_compound *c);
/* Return NFS4ERR_DELAY instead of retrying (default: retried with backoff
 * for the client's reply timeout, nfs42_opts.timeout_ms, 30 s). */
void nfs42_compound_no_retry(struct nfs42_compound *c);
/* Add an extra request to the SEQUENCE: cachethis. */
void nfs42_compound_cachethis(struct nfs42_compound *c, bool cachethis);

/*
 * Run: encode, send, wait, decode.  Returns the compound status
 * (0 / NFS4ERR_*) or < 0.  Results of the ops that were executed are
 * available afterwards.  A compound can be run again.
 */
int nfs42_compound_run(struct nfs42_compound *c);
/*
 * The same in two halves, for several compounds in flight from one thread
 * (each on its own slot and xid): _start takes a slot and sends, _finish
 * waits for that reply (replies of the others, and callbacks, are taken
 * in whatever order they come) and returns what _run would.  Every started
 * compound must be finished (nfs42_compound_free does it if need be).
 * Start no more compounds at once than nfs42_slot_count(): a start waits
 * for a free slot.
 */
int nfs42_compound_start(struct nfs42_compound *c);
int nfs42_compound_finish(struct nfs42_compound *c);
/* Number of user ops added; number of user op results in the reply. */
unsigned int nfs42_compound_nops(const struct nfs42_compound *c);
unsigned int nfs42_compound_nres(const struct nfs42_compound *c);
/* Result of user op idx (as returned by the op helper); NULL if the op was
 * not executed. */
const struct nfs42_res *nfs42_res(const struct nfs42_compound *c, int idx);
/* Status of op idx, or -1 if not executed. */
int nfs42_res_status(const struct nfs42_compound *c, int idx);
/* Result of the automatic SEQUENCE (NULL if none). */
const struct nfs42_res *nfs42_compound_seq_res(const struct nfs42_compound *c);
/* Index of the op that failed (last result), or -1. */
int nfs42_compound_failed_op(const struct nfs42_compound *c);
/* Opnum of op idx as requested. */
uint32_t nfs42_compound_opnum(const struct nfs42_compound *c, int idx);

/* Encode the COMPOUND4args (tag, minorversion, ops) without SEQUENCE. */
int nfs42_compound_encode(struct nfs42_compound *c, struct nfs42_xdr *out);
/* Decode a COMPOUND4res from buf (copied).  Returns the compound status or
 * < 0 (-EBADMSG) for malformed input. */
int nfs42_compound_decode(struct nfs42_compound *c, const void *buf,
			  size_t len);

/*
 * Operation helpers.  Each appends one operation and returns its index
 * (>= 0), or -1 if encoding failed (the error is reported by _run).
 */
int nfs42_op_putrootfh(struct nfs42_compound *c);
int nfs42_op_putfh(struct nfs42_compound *c, const struct nfs42_fh *fh);
int nfs42_op_lookup(struct nfs42_compound *c, const char *name);
int nfs42_op_lookupp(struct nfs42_compound *c);
int nfs42_op_getfh(struct nfs42_compound *c);
int nfs42_op_getattr(struct nfs42_compound *c, const struct nfs42_bitmap *bm);
int nfs42_op_access(struct nfs42_compound *c, uint32_t access);
int nfs42_op_readdir(struct nfs42_compound *c, uint64_t cookie,
		     const uint8_t *cookieverf, uint32_t dircount,
		     uint32_t maxcount, const struct nfs42_bitmap *bm);

struct nfs42_open_args {
	uint32_t seqid; /* ignored by 4.1 servers; 0 */
	uint32_t share_access;
	uint32_t share_deny;
	uint64_t owner_clientid; /* 0: the client's clientid */
	const void *owner;
	uint32_t owner_len;
	int createmode; /* enum nfs42_createmode or NFS42_NOCREATE */
	const struct nfs42_sattr *attrs; /* UNCHECKED4/GUARDED4/EXCLUSIVE4_1 */
	uint8_t verifier[NFS4_VERIFIER_SIZE]; /* EXCLUSIVE4(_1) */
	/* CLAIM_NULL, CLAIM_PREVIOUS, CLAIM_FH, CLAIM_DELEG(ATE)_CUR(_FH) */
	uint32_t claim;
	const char *name; /* CLAIM_NULL, CLAIM_DELEGATE_CUR */
	const struct nfs42_stateid *deleg_stateid; /* CLAIM_DELEG(ATE)_CUR */
	uint32_t delegate_type; /* CLAIM_PREVIOUS: OPEN_DELEGATE_* held */
};
int nfs42_op_open(struct nfs42_compound *c, const struct nfs42_open_args *a);
int nfs42_op_open_downgrade(struct nfs42_compound *c,
			    const struct nfs42_stateid *sid, uint32_t seqid,
			    uint32_t share_access, uint32_t share_deny);
int nfs42_op_delegreturn(struct nfs42_compound *c,
			 const struct nfs42_stateid *sid);
/* TEST_STATEID (RFC 8881 18.48) of n stateids; FREE_STATEID (18.38). */
int nfs42_op_test_stateid(struct nfs42_compound *c,
			  const struct nfs42_stateid *sids, unsigned int n);
int nfs42_op_free_stateid(struct nfs42_compound *c,
			  const struct nfs42_stateid *sid);
int nfs42_op_close(struct nfs42_compound *c, uint32_t seqid,
		   const struct nfs42_stateid *sid);
int nfs42_op_read(struct nfs42_compound *c, const struct nfs42_stateid *sid,
		  uint64_t offset, uint32_t count);
int nfs42_op_write(struct nfs42_compound *c, const struct nfs42_stateid *sid,
		   uint64_t offset, enum nfs42_stable_how stable,
		   const void *data, uint32_t len);
int nfs42_op_commit(struct nfs42_compound *c, uint64_t offset, uint32_t count);

struct nfs42_create_args {
	uint32_t type; /* NF4DIR, NF4LNK, NF4BLK, NF4CHR, NF4SOCK, NF4FIFO */
	const char *name;
	const char *linkdata; /* NF4LNK */
	uint32_t specmajor, specminor; /* NF4BLK, NF4CHR */
	const struct nfs42_sattr *attrs; /* may be NULL */
};
int nfs42_op_create(struct nfs42_compound *c,
		    const struct nfs42_create_args *a);
int nfs42_op_remove(struct nfs42_compound *c, const char *name);
int nfs42_op_rename(struct nfs42_compound *c, const char *oldname,
		    const char *newname);
int nfs42_op_link(struct nfs42_compound *c, const char *newname);
int nfs42_op_readlink(struct nfs42_compound *c);
int nfs42_op_setattr(struct nfs42_compound *c, const struct nfs42_stateid *sid,
		     const struct nfs42_sattr *sa);
int nfs42_op_savefh(struct nfs42_compound *c);
int nfs42_op_restorefh(struct nfs42_compound *c);

struct nfs42_lock_owner {
	uint64_t clientid; /* 0: the client's clientid */
	const void *owner;
	uint32_t owner_len;
};
/* LOCK with a new lock owner (open_to_lock_owner4). */
int nfs42_op_lock_new(struct nfs42_compound *c, uint32_t locktype, bool reclaim,
		      uint64_t offset, uint64_t length, uint32_t open_seqid,
		      const struct nfs42_stateid *open_sid, uint32_t lock_seqid,
		      const struct nfs42_lock_owner *lo);
/* LOCK with an existing lock stateid (exist_lock_owner4). */
int nfs42_op_lock_existing(struct nfs42_compound *c, uint32_t locktype,
			   bool reclaim, uint64_t offset, uint64_t length,
			   const struct nfs42_stateid *lock_sid,
			   uint32_t lock_seqid);
int nfs42_op_lockt(struct nfs42_compound *c, uint32_t locktype, uint64_t offset,
		   uint64_t length, const struct nfs42_lock_owner *lo);
int nfs42_op_locku(struct nfs42_compound *c, uint32_t locktype, uint32_t seqid,
		   const struct nfs42_stateid *lock_sid, uint64_t offset,
		   uint64_t length);

/* NFSv4.2 */
int nfs42_op_seek(struct nfs42_compound *c, const struct nfs42_stateid *sid,
		  uint64_t offset, enum nfs42_content what);
int nfs42_op_allocate(struct nfs42_compound *c, const struct nfs42_stateid *sid,
		      uint64_t offset, uint64_t length);
int nfs42_op_deallocate(struct nfs42_compound *c,
			const struct nfs42_stateid *sid, uint64_t offset,
			uint64_t length);
int nfs42_op_read_plus(struct nfs42_compound *c,
		       const struct nfs42_stateid *sid, uint64_t offset,
		       uint32_t count);
/* COPY intra-server (empty ca_source_server). */
int nfs42_op_copy(struct nfs42_compound *c, const struct nfs42_stateid *src,
		  const struct nfs42_stateid *dst, uint64_t src_offset,
		  uint64_t dst_offset, uint64_t count, bool consecutive,
		  bool synchronous);
int nfs42_op_clone(struct nfs42_compound *c, const struct nfs42_stateid *src,
		   const struct nfs42_stateid *dst, uint64_t src_offset,
		   uint64_t dst_offset, uint64_t count);
int nfs42_op_offload_status(struct nfs42_compound *c,
			    const struct nfs42_stateid *sid);
int nfs42_op_offload_cancel(struct nfs42_compound *c,
			    const struct nfs42_stateid *sid);
/* RFC 8276 extended attributes (names without the "user." prefix) */
int nfs42_op_getxattr(struct nfs42_compound *c, const char *name);
int nfs42_op_setxattr(struct nfs42_compound *c,
		      enum nfs42_setxattr_option option, const char *name,
		      const void *value, uint32_t len);
int nfs42_op_listxattrs(struct nfs42_compound *c, uint64_t cookie,
			uint32_t maxcount);
int nfs42_op_removexattr(struct nfs42_compound *c, const char *name);

/* pNFS operations (RFC 8881 18.40-18.44); the layout body and device
 * address are decoded by nfs42_files_layout_decode() and
 * nfs42_files_device_decode() (pnfs.c). */
int nfs42_op_layoutget(struct nfs42_compound *c, uint32_t type, uint32_t iomode,
		       uint64_t offset, uint64_t length, uint64_t minlength,
		       const struct nfs42_stateid *sid, uint32_t maxcount);
int nfs42_op_getdeviceinfo(struct nfs42_compound *c,
			   const uint8_t devid[NFS4_DEVICEID4_SIZE],
			   uint32_t type, uint32_t maxcount);
int nfs42_op_getdevicelist(struct nfs42_compound *c, uint32_t type,
			   uint32_t maxdevices, uint64_t cookie,
			   const uint8_t *cookieverf);
/* last_write: NULL for no new offset; mtime NULL for no new time; the
 * layoutupdate body is empty (files layout). */
int nfs42_op_layoutcommit(struct nfs42_compound *c, uint64_t offset,
			  uint64_t length, bool reclaim,
			  const struct nfs42_stateid *sid,
			  const uint64_t *last_write,
			  const struct nfs42_time *mtime, uint32_t type);
/* returntype LAYOUTRETURN4_FILE uses offset, length and sid (empty body) */
int nfs42_op_layoutreturn(struct nfs42_compound *c, bool reclaim, uint32_t type,
			  uint32_t iomode, uint32_t returntype, uint64_t offset,
			  uint64_t length, const struct nfs42_stateid *sid);

/* Session ops (used internally; usable by tests with no_sequence). */
int nfs42_op_sequence(struct nfs42_compound *c, const uint8_t *sessionid,
		      uint32_t seqid, uint32_t slot, uint32_t highest_slot,
		      bool cachethis);
int nfs42_op_exchange_id(struct nfs42_compound *c, const uint8_t *verifier,
			 const void *owner, uint32_t owner_len, uint32_t flags);
struct nfs42_chan_attrs {
	uint32_t headerpadsize, maxreq, maxresp, maxresp_cached, maxops;
	uint32_t maxreqs;
};
int nfs42_op_create_session(struct nfs42_compound *c, uint64_t clientid,
			    uint32_t seqid, uint32_t flags,
			    const struct nfs42_chan_attrs *fore,
			    const struct nfs42_chan_attrs *back,
			    uint32_t cb_program, uint32_t cb_uid,
			    uint32_t cb_gid, const char *machinename);
/* One callback_sec_parms4 of CREATE_SESSION (RFC 8881 18.36.1). */
#define NFS42_CB_AUTH_NONE 0
#define NFS42_CB_AUTH_SYS 1
#define NFS42_CB_RPCSEC_GSS 6
struct nfs42_cb_sec {
	uint32_t flavor; /* another value: encoded alone (no arm) */
	/* AUTH_SYS */
	uint32_t uid, gid;
	const char *machinename;
	/* RPCSEC_GSS (gss_cb_handles4) */
	uint32_t gss_service; /* rpc_gss_svc_t: 1 none, 2 integrity, ... */
	const void *gss_handle_from_server, *gss_handle_from_client;
	uint32_t gss_handle_from_server_len, gss_handle_from_client_len;
};
/* CREATE_SESSION offering the nsecs flavours of secs for callbacks
 * (nfs42_op_create_session: one AUTH_SYS entry). */
int nfs42_op_create_session_sec(struct nfs42_compound *c, uint64_t clientid,
				uint32_t seqid, uint32_t flags,
				const struct nfs42_chan_attrs *fore,
				const struct nfs42_chan_attrs *back,
				uint32_t cb_program,
				const struct nfs42_cb_sec *secs,
				unsigned int nsecs);
/* BACKCHANNEL_CTL (RFC 8881 18.33): the back channel's program and the
 * nsecs flavours of secs for it (in a compound with SEQUENCE). */
int nfs42_op_backchannel_ctl(struct nfs42_compound *c, uint32_t cb_program,
			     const struct nfs42_cb_sec *secs,
			     unsigned int nsecs);
/* BACKCHANNEL_CTL on the client's session; on success the client takes
 * callbacks for cb_program from then on. */
int nfs42_backchannel_ctl(struct nfs42_client *cl, uint32_t cb_program,
			  const struct nfs42_cb_sec *secs, unsigned int nsecs);
/* The credential flavour of the last callback served (AUTH_NONE 0,
 * AUTH_SYS 1), -1 before the first. */
int nfs42_cb_last_flavor(const struct nfs42_client *cl);
int nfs42_op_destroy_session(struct nfs42_compound *c,
			     const uint8_t *sessionid);
int nfs42_op_destroy_clientid(struct nfs42_compound *c, uint64_t clientid);
int nfs42_op_reclaim_complete(struct nfs42_compound *c, bool one_fs);

/*
 * Escape hatch: put `len` pre-encoded bytes as one operation (they must
 * start with the opnum, unless they are meant to be garbage).  `opnum` is
 * only recorded for nfs42_compound_opnum(); the reply is decoded by the
 * opnum found in the reply.
 */
int nfs42_op_raw(struct nfs42_compound *c, uint32_t opnum, const void *bytes,
		 size_t len);

#define CREATE_SESSION4_FLAG_PERSIST 0x1
#define CREATE_SESSION4_FLAG_CONN_BACK_CHAN 0x2
#define CREATE_SESSION4_FLAG_CONN_RDMA 0x4

/* ---------------------------------------------------- convenience layer */

/* Walk PATH from the root (PUTROOTFH + LOOKUP...).  fh and/or attrs may be
 * NULL; attrs are fetched with nfs42_bm_stat(). */
int nfs42_lookup_path(struct nfs42_client *cl, const char *path,
		      struct nfs42_fh *fh, struct nfs42_attrs *attrs);
int nfs42_stat(struct nfs42_client *cl, const char *path,
	       struct nfs42_attrs *attrs);
/* bm NULL: the attributes nfs42_bm_stat() names */
int nfs42_getattr_fh(struct nfs42_client *cl, const struct nfs42_fh *fh,
		     const struct nfs42_bitmap *bm, struct nfs42_attrs *attrs);

/* Split "/a/b/c" into the parent "/a/b" and "c" (caller frees *parent). */
int nfs42_split_path(const char *path, char **parent, const char **name);

/* READDIR loop: calls fn for each entry (not "." / ".."); fn returns
 * nonzero to stop (that value is returned). */
typedef int (*nfs42_readdir_fn)(void *arg, const struct nfs42_dirent *e);
int nfs42_readdir_fh(struct nfs42_client *cl, const struct nfs42_fh *dir,
		     const struct nfs42_bitmap *bm, nfs42_readdir_fn fn,
		     void *arg);
int nfs42_readdir_path(struct nfs42_client *cl, const char *path,
		       const struct nfs42_bitmap *bm, nfs42_readdir_fn fn,
		       void *arg);

/* An open file (open owner is per open). */
struct nfs42_file {
	struct nfs42_client *cl;
	struct nfs42_fh fh;
	struct nfs42_stateid stateid;
	uint32_t share_access;
	char owner[48];
	/* The OPEN's delegation: OPEN_DELEGATE_NONE (0), _READ (1),
	 * _WRITE (2), _NONE_EXT (3, then why_no_deleg says why), or RFC
	 * 9754's _READ_ATTRS_DELEG (4) and _WRITE_ATTRS_DELEG (5), a read
	 * or write delegation with the timestamps delegated. */
	uint32_t deleg_type;
	struct nfs42_stateid deleg_stateid;
	uint32_t why_no_deleg;
	/* The OPEN's rflags.  With OPEN4_RESULT_NO_OPEN_STATEID (RFC 9754:
	 * the OPEN wanted OPEN_XOR_DELEGATION and got a delegation) there is
	 * no open: stateid is the delegation's, and nfs42_close() sends no
	 * CLOSE. */
	uint32_t rflags;
};

/* Open path; createmode NFS42_NOCREATE, UNCHECKED4, GUARDED4, EXCLUSIVE4_1;
 * mode used when creating; truncate sets size 0 when creating. */
int nfs42_open(struct nfs42_client *cl, const char *path, uint32_t share_access,
	       int createmode, uint32_t mode, bool truncate,
	       struct nfs42_file *f);
/* Open by file handle (CLAIM_FH). */
int nfs42_open_fh(struct nfs42_client *cl, const struct nfs42_fh *fh,
		  uint32_t share_access, struct nfs42_file *f);
int nfs42_close(struct nfs42_file *f);
/* SETATTR with the open stateid (e.g. truncate). */
int nfs42_file_setattr(struct nfs42_file *f, const struct nfs42_sattr *sa);
/* One READ (at most nfs42_io_size bytes). */
int nfs42_pread(struct nfs42_file *f, void *buf, uint32_t count,
		uint64_t offset, uint32_t *nread, bool *eof);
/* Write all bytes (several WRITEs if needed). */
int nfs42_pwrite(struct nfs42_file *f, const void *buf, size_t count,
		 uint64_t offset, enum nfs42_stable_how stable);
int nfs42_commit(struct nfs42_file *f);
int nfs42_seek(struct nfs42_file *f, uint64_t offset, enum nfs42_content what,
	       uint64_t *result, bool *eof);

/*
 * Streaming reads: up to depth READ (or READ_PLUS) compounds in flight at
 * once (after the first, which goes alone), each of at most io_size bytes; fn gets the file's contents in
 * offset order, as data (data != NULL) or, from READ_PLUS, holes (data
 * NULL), until EOF or offset + length.  At most depth replies are held at a
 * time.  fn returns 0 to go on, else that value is returned.  *end (may be
 * NULL) is where the delivered contents end.  READ_PLUS replies are
 * checked: their segments must follow each other within the range asked
 * (a hole may start before it and end after it: it is clipped).
 *
 * skip_holes: the cost follows the data, not the size.  With READ_PLUS, a
 * reply that ends in a hole is followed by a SEEK for the next data: when
 * that lies beyond what is in flight, the hole up to it is handed over at
 * once and reading goes on there (the compounds in flight inside the hole
 * are dropped).  With READ, SEEK finds each data extent (SEEK_DATA, then
 * SEEK_HOLE) and only extents are read, the holes between them handed
 * over as holes (data NULL), as from READ_PLUS.  No data after some
 * offset: a GETATTR for the size, the rest a hole.  A server without SEEK
 * (NFSv4.1: OP_ILLEGAL, or NOTSUPP) turns skipping off.
 */
typedef int (*nfs42_stream_fn)(void *arg, uint64_t offset, uint64_t len,
			       const void *data);
struct nfs42_stream_opts {
	uint32_t depth; /* 0: 1; clamped to nfs42_slot_count() */
	uint32_t io_size; /* 0: nfs42_io_size() */
	bool read_plus;
	bool skip_holes; /* SEEK over holes (above) */
	uint64_t offset;
	uint64_t length; /* NFS42_LENGTH_EOF: to the end */
};
void nfs42_stream_opts_init(struct nfs42_stream_opts *o);
int nfs42_read_stream(struct nfs42_file *f, const struct nfs42_stream_opts *o,
		      nfs42_stream_fn fn, void *arg, uint64_t *end);
/*
 * nfs42_read_stream into fd from its current position: in order to a pipe
 * or terminal (holes written as zeros); into a regular file seeking over
 * holes, and extending it (ftruncate) over a trailing one, so that holes
 * stay holes.
 */
int nfs42_read_stream_fd(struct nfs42_file *f,
			 const struct nfs42_stream_opts *o, int fd,
			 uint64_t *end);
/* READ_PLUS from offset to EOF (or offset + length), depth in flight. */
int nfs42_read_plus(struct nfs42_file *f, uint64_t offset, uint64_t length,
		    uint32_t depth, nfs42_stream_fn fn, void *arg,
		    uint64_t *end);

/* Whole-file helpers */
int nfs42_read_file(struct nfs42_client *cl, const char *path, void **buf,
		    size_t *len);
int nfs42_read_file_fd(struct nfs42_client *cl, const char *path, int fd,
		       uint64_t *total);
/* write(2) all of buf to fd (EINTR retried); 0 or -errno (-EIO: wrote 0) */
int nfs42_fd_write_all(int fd, const void *buf, size_t len);
int nfs42_write_file(struct nfs42_client *cl, const char *path, const void *buf,
		     size_t len, uint32_t mode);
/*
 * Write fd's contents to path, created with mode or truncated.  A regular
 * file is sent extent by extent (SEEK_DATA/SEEK_HOLE): only its data, its
 * holes staying holes, then its size; anything else (a pipe), and a
 * regular file of size 0 (procfs), is read to its end, in order.  fd is
 * read before path is opened (a stream's first block, a regular file's
 * first byte of data): a source that cannot be read leaves path as it
 * was.  r (may be NULL): the bytes sent, and local_errno, non-zero
 * when reading fd failed (-local_errno is returned then), to tell a local
 * error from the server's.
 */
struct nfs42_put_result {
	uint64_t sent; /* bytes written by WRITE */
	uint64_t size; /* the file's size */
	int local_errno;
};

int nfs42_write_file_fd(struct nfs42_client *cl, const char *path, int fd,
			uint32_t mode, struct nfs42_put_result *r);

/*
 * Whole-file copies on the server, src and dst both paths: src is opened
 * for read first, then dst for write, created with src's mode (permission
 * bits) or truncated.  0, an NFS4ERR_* status, or -errno.  src a
 * directory or dst one: NFS4ERR_ISDIR, another non-regular src or dst
 * the same file as src: NFS4ERR_INVAL, dst untouched.  On a later error
 * of a COPY dst may be left created, or partly written.
 *
 * nfs42_clone_file: one CLONE (RFC 7862 15.13) of the whole of src (count
 * 0: to its end) into a new file beside dst (".NAME.nfs42-XXXXXX",
 * created with dst's mode if dst exists, else src's), its size set to
 * src's if the server left it shorter, then RENAMEd over dst.  No
 * fallback: NFS4ERR_NOTSUPP where the filesystem cannot share blocks, and
 * then, as after any failure, dst is as it was and the new file removed.
 *
 * nfs42_copy_file: synchronous intra-server COPYs of each data extent of
 * src (found with SEEK: holes are never copied and stay holes, a sparse
 * file costs its data, not its size), continued from where a short one
 * stopped; if the server answers NFS4ERR_NOTSUPP (or
 * NFS4ERR_OFFLOAD_NO_REQS, or NFS4ERR_OP_ILLEGAL in NFSv4.1) before any
 * byte is copied, a copy through the
 * client instead: SEEK to the data, READ + WRITE of it (one I/O-size
 * buffer), holes skipped and dst's size set at the end so that they stay
 * holes.  *via_client (may be NULL) tells which way it went.
 */
int nfs42_clone_file(struct nfs42_client *cl, const char *src, const char *dst);
int nfs42_copy_file(struct nfs42_client *cl, const char *src, const char *dst,
		    bool *via_client);

/*
 * nfs42_copy_file_ex: either of the above, chosen by o (NULL: a COPY as
 * nfs42_copy_file), with a record of what ran in *st (may be NULL).
 * o->clone: nfs42_clone_file.  o->via_client: no COPY at all, the copy
 * through the client straight away (what COPY is measured against).
 * st->calls counts the COPY (or CLONE) compounds sent, st->total_us and
 * st->max_us their round trips as the client saw them (send to reply
 * decoded), which on loopback is the server's service time of each.
 */
struct nfs42_copy_opts {
	bool clone;
	bool via_client;
};

/* Which operand a failed copy's error is about. */
enum nfs42_copy_failed {
	NFS42_COPY_FAILED_NONE, /* neither: the copy itself */
	NFS42_COPY_FAILED_SRC, /* src: its lookup, attributes or open */
	NFS42_COPY_FAILED_DST, /* dst: its lookup or open (create) */
	NFS42_COPY_FAILED_SAME, /* dst is src (NFS4ERR_INVAL) */
};

struct nfs42_copy_stats {
	enum nfs42_copy_failed failed;
	bool via_client; /* the copy went through the client */
	uint32_t calls; /* COPY or CLONE compounds sent */
	uint64_t total_us; /* their round trips, summed */
	uint64_t max_us; /* the longest one */
};

int nfs42_copy_file_ex(struct nfs42_client *cl, const char *src,
		       const char *dst, const struct nfs42_copy_opts *o,
		       struct nfs42_copy_stats *st);

/* CB_OFFLOAD arguments (RFC 7862 16.1.1). */
struct nfs42_cb_offload {
	struct nfs42_fh fh;
	struct nfs42_stateid stateid;
	uint32_t status; /* coa_status */
	uint64_t count; /* wr_count, or coa_bytes_copied on error */
	uint32_t committed; /* NFS4_OK only */
	uint8_t verf[NFS4_VERIFIER_SIZE];
};

/*
 * OFFLOAD_STATUS of the async copy sid: *count bytes so far, *complete
 * once it ended, with its final *status.  OFFLOAD_CANCEL of it.  Each
 * returns the compound's status (NFS4ERR_BAD_STATEID: no such copy).
 */
int nfs42_offload_status(struct nfs42_client *cl,
			 const struct nfs42_stateid *sid, uint64_t *count,
			 bool *complete, uint32_t *status);
int nfs42_offload_cancel(struct nfs42_client *cl,
			 const struct nfs42_stateid *sid);

/* Decode CB_OFFLOAD4args (for a backchannel hook): 0 or -EBADMSG. */
int nfs42_cb_offload_decode(struct nfs42_xdr *args,
			    struct nfs42_cb_offload *out);

/*
 * nfs42_copy_file_async: COPYs with ca_synchronous false, one per run of
 * src's data extents (SEEK; extents less than 256 MiB apart in one run, a
 * dense file one COPY of all of it).  When the server takes one
 * asynchronously (a copy stateid back),
 * wait for its CB_OFFLOAD (served through nfs42_poll and a backchannel
 * hook installed for the time of the call), asking OFFLOAD_STATUS every
 * poll_ms for progress and in case no callback comes; *stop (e.g. set by
 * a SIGINT handler) sends OFFLOAD_CANCEL and ends the call with
 * ac->cancelled (0 returned, dst holding what was copied).  When the
 * server answers synchronously instead (its pool or our quota full), or
 * the async copy stopped short, synchronous COPYs do the rest.  dst is
 * opened, created and sized as for nfs42_copy_file; 0, NFS4ERR_* or
 * -errno (the copy's failure status from CB_OFFLOAD or OFFLOAD_STATUS).
 */
struct nfs42_async_copy {
	int poll_ms; /* OFFLOAD_STATUS period, default 500 */
	volatile int *stop; /* may be NULL */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *arg;
	/* results */
	uint64_t size; /* src's size */
	bool went_async; /* the server returned a copy stateid */
	struct nfs42_stateid callback_id;
	bool got_callback; /* CB_OFFLOAD came (cb holds it) */
	struct nfs42_cb_offload cb;
	bool cancelled; /* OFFLOAD_CANCEL accepted */
	uint32_t status_polls; /* OFFLOAD_STATUS calls made */
	uint64_t status_count; /* largest osr_count seen */
	/* the COPY compounds sent (the first, and any synchronous ones
	 * for what the async copy left), as nfs42_copy_file_ex counts */
	struct nfs42_copy_stats stats;
};

int nfs42_copy_file_async(struct nfs42_client *cl, const char *src,
			  const char *dst, struct nfs42_async_copy *ac);

/* Namespace helpers */
int nfs42_mkdir(struct nfs42_client *cl, const char *path, uint32_t mode);
int nfs42_remove(struct nfs42_client *cl, const char *path);
int nfs42_rename(struct nfs42_client *cl, const char *from, const char *to);
int nfs42_symlink(struct nfs42_client *cl, const char *target,
		  const char *path);
int nfs42_hardlink(struct nfs42_client *cl, const char *existing,
		   const char *path);
int nfs42_readlink(struct nfs42_client *cl, const char *path, char *buf,
		   size_t bufsz);
int nfs42_setattr_path(struct nfs42_client *cl, const char *path,
		       const struct nfs42_sattr *sa);
int nfs42_mknod(struct nfs42_client *cl, const char *path, uint32_t type,
		uint32_t mode, uint32_t major, uint32_t minor);

/*
 * Extended attributes of PATH (RFC 8276; xattr.c).  Each returns 0 or an
 * NFS4ERR_* status (< 0 on transport errors).  nfs42_xattr_get: *value
 * (malloc'ed, caller frees, NUL after the bytes) and *len.  nfs42_xattr_ls:
 * every name, LISTXATTRS after LISTXATTRS with lxa_maxcount maxcount (0:
 * 4096) following the cookies, fn called per name (nonzero stops, and is
 * returned); *calls (may be NULL) counts the LISTXATTRS sent.  cinfo (may
 * be NULL) gets SETXATTR's/REMOVEXATTR's change_info4.
 */
int nfs42_xattr_get(struct nfs42_client *cl, const char *path, const char *name,
		    uint8_t **value, uint32_t *len);
int nfs42_xattr_set(struct nfs42_client *cl, const char *path, const char *name,
		    const void *value, uint32_t len,
		    enum nfs42_setxattr_option option,
		    struct nfs42_cinfo *cinfo);
int nfs42_xattr_rm(struct nfs42_client *cl, const char *path, const char *name,
		   struct nfs42_cinfo *cinfo);
typedef int (*nfs42_xattr_fn)(void *arg, const char *name);
int nfs42_xattr_ls(struct nfs42_client *cl, const char *path, uint32_t maxcount,
		   nfs42_xattr_fn fn, void *arg, unsigned int *calls);

/* ------------------------------------------------------------- pNFS */

/*
 * Files layouts (RFC 8881 section 13; pnfs.c, pnfs_io.c).  A layout is got
 * for an open file with its device (the data servers, their addresses and
 * the stripe order) in one struct; the library keeps the layouts it holds
 * and answers CB_LAYOUTRECALL for them: a recalled layout is returned by
 * the transfer using it when that ends, or after the next compound when
 * none does.  Data servers get a session of their own each (EXCHANGE_ID
 * with EXCHGID4_FLAG_USE_PNFS_DS), kept with the client and freed with it.
 */
#define NFS42_LAYOUT_MAX_DS 64
#define NFS42_LAYOUT_MAX_PATHS 4
#define NFS42_LAYOUT_MAX_FH 64

struct nfs42_netaddr {
	char netid[8];
	char uaddr[64];
};

struct nfs42_layout {
	struct nfs42_fh fh; /* the file (metadata server handle) */
	struct nfs42_stateid stateid; /* layout stateid */
	uint32_t iomode;
	uint64_t offset, length;
	bool return_on_close;
	uint8_t deviceid[NFS4_DEVICEID4_SIZE];
	uint32_t stripe_unit;
	bool dense, commit_through_mds;
	uint32_t first_stripe_index;
	uint64_t pattern_offset;
	uint32_t nfh; /* 1, or one per stripe */
	struct nfs42_fh fhs[NFS42_LAYOUT_MAX_FH];
	/* the device */
	uint32_t nstripes;
	uint32_t stripe_indices[NFS42_LAYOUT_MAX_DS];
	uint32_t nds;
	struct {
		uint32_t naddr; /* multipath: any of them */
		struct nfs42_netaddr addr[NFS42_LAYOUT_MAX_PATHS];
	} ds[NFS42_LAYOUT_MAX_DS];
};

/* Where a file offset goes under a layout. */
struct nfs42_stripe_loc {
	uint32_t stripe; /* stripe index */
	uint32_t ds; /* data server (index in lo->ds) */
	uint32_t fh; /* filehandle (index in lo->fhs) */
	uint64_t unit_start, unit_end; /* the stripe unit holding it */
	uint64_t ds_offset; /* the offset to ask the data server for */
};
void nfs42_layout_locate(const struct nfs42_layout *lo, uint64_t offset,
			 struct nfs42_stripe_loc *loc);

/* nfsv4_1_file_layout4 and nfsv4_1_file_layout_ds_addr4 bodies: 0 or
 * -EBADMSG. */
int nfs42_files_layout_decode(const uint8_t *body, uint32_t len,
			      struct nfs42_layout *lo);
int nfs42_files_device_decode(const uint8_t *body, uint32_t len,
			      struct nfs42_layout *lo);

/* LAYOUTGET of the whole file (iomode LAYOUTIOMODE4_READ or _RW), then
 * GETDEVICEINFO of its device.  The LAYOUTGET goes under the layout
 * stateid of the file when the client holds a layout of it, else under
 * the open stateid (RFC 8881 12.5.3).  0, NFS4ERR_*
 * (NFS4ERR_LAYOUTUNAVAILABLE and friends: do I/O through the metadata
 * server) or -errno. */
int nfs42_layout_get(struct nfs42_file *f, uint32_t iomode,
		     struct nfs42_layout *lo);
/* The same under the stateid sid (tests: the open stateid with a layout
 * held); NULL chooses as nfs42_layout_get does. */
int nfs42_layout_get_sid(struct nfs42_file *f, uint32_t iomode,
			 const struct nfs42_stateid *sid,
			 struct nfs42_layout *lo);
int nfs42_layout_return(struct nfs42_file *f, struct nfs42_layout *lo);
/* LAYOUTCOMMIT with last_write the offset of the last byte written;
 * *new_size (may be NULL) gets the size the server reports. */
int nfs42_layout_commit(struct nfs42_file *f, struct nfs42_layout *lo,
			uint64_t last_write, uint64_t *new_size);
/* Recalled since it was got (CB_LAYOUTRECALL)? */
bool nfs42_layout_recalled(struct nfs42_client *cl,
			   const struct nfs42_layout *lo);
/* In use by a transfer (not returned behind its back). */
void nfs42_layout_busy(struct nfs42_client *cl, const struct nfs42_layout *lo,
		       bool busy);
uint64_t nfs42_layout_recalls(const struct nfs42_client *cl);
unsigned int nfs42_layouts_held(const struct nfs42_client *cl);
/* Serve the back channel until a layout that no transfer uses is recalled
 * (or timeout_ms passed), then LAYOUTRETURN the recalled ones; *returned:
 * how many went.  0, or < 0 on transport failure. */
int nfs42_serve_layout_recalls(struct nfs42_client *cl, int timeout_ms,
			       unsigned int *returned);

/* The session to data server ds of a layout (multipath: the first address
 * that answers), made on first use and kept with mds. */
int nfs42_ds_client(struct nfs42_client *mds, const struct nfs42_layout *lo,
		    uint32_t ds, struct nfs42_client **out);
/* A universal address (RFC 5665) to host text and port. */
int nfs42_uaddr_split(const char *uaddr, char *host, size_t hostsz,
		      uint16_t *port);

/*
 * Striped transfers (pnfs_io.c).  Every data server of the layout works
 * at once (a thread each, depth compounds in flight), within a window of
 * bytes ahead of the consumer (read) or producer (write).  A data server
 * that fails (connection lost, NFS4ERR_PNFS_NO_LAYOUT, ...) is replaced by
 * the metadata server for what it had not done; a recall of the layout
 * sends the rest through the metadata server too.  Writes are UNSTABLE to
 * the data servers and COMMITted there as they go (verifiers compared,
 * data written again on a mismatch); data not yet committed on a server
 * that failed is written again through the metadata server with FILE_SYNC,
 * so nothing acknowledged is lost.  The caller returns the layout.
 */
struct nfs42_pnfs_opts {
	uint32_t depth; /* compounds in flight per data server, 0: 4 */
	uint32_t io_size; /* bytes per READ/WRITE, 0: the stripe unit, at
			   * most the session's */
	uint64_t window; /* bytes ahead, 0: 4 stripes' worth per server */
	bool read_plus; /* READ_PLUS to the data servers */
	bool skip_holes; /* SEEK (metadata server) over holes: reads cost
			  * the data runs, not the size */
};
struct nfs42_pnfs_stats {
	/* data bytes moved per server (holes not counted) */
	uint64_t ds_bytes[NFS42_LAYOUT_MAX_DS];
	uint32_t ds_calls[NFS42_LAYOUT_MAX_DS];
	uint64_t mds_bytes; /* through the metadata server instead */
	uint64_t hole_bytes; /* READ_PLUS holes received */
	uint64_t skipped_bytes; /* holes SEEKed over (skip_holes) */
	uint32_t seeks; /* SEEKs to the metadata server (skip_holes) */
	uint32_t ds_failed; /* data servers given up on */
	int ds_error; /* the last error of a data server (NFS4ERR_*, -errno) */
	uint32_t no_layout; /* NFS4ERR_PNFS_NO_LAYOUT answers */
	uint32_t rewrites; /* writes sent again (verifier, failure) */
	bool recalled; /* the layout was recalled during the transfer */
};
void nfs42_pnfs_opts_init(struct nfs42_pnfs_opts *o);
/* Read [offset, offset + length) (NFS42_LENGTH_EOF: to the size the file
 * has now) in order to fn, as nfs42_read_stream does. */
int nfs42_pnfs_read(struct nfs42_file *f, struct nfs42_layout *lo,
		    const struct nfs42_pnfs_opts *o, uint64_t offset,
		    uint64_t length, nfs42_stream_fn fn, void *arg,
		    uint64_t *end, struct nfs42_pnfs_stats *st);
/* nfs42_pnfs_read of the whole file into fd, as nfs42_read_stream_fd. */
int nfs42_pnfs_read_fd(struct nfs42_file *f, struct nfs42_layout *lo,
		       const struct nfs42_pnfs_opts *o, int fd, uint64_t *end,
		       struct nfs42_pnfs_stats *st);
/* Write the contents of fd (from its offset 0; a regular file's holes are
 * skipped) at the same offsets; then LAYOUTCOMMIT, and the size set to
 * fd's (a trailing hole).  *size (may be NULL) gets the bytes of fd. */
int nfs42_pnfs_write_fd(struct nfs42_file *f, struct nfs42_layout *lo,
			const struct nfs42_pnfs_opts *o, int fd, uint64_t *size,
			struct nfs42_pnfs_stats *st);

#endif /* NFS42_H */
