/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* Bitmaps and the fattr4 codec. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

void nfs42_bm_clear(struct nfs42_bitmap *bm)
{
	memset(bm, 0, sizeof(*bm));
}

void nfs42_bm_set(struct nfs42_bitmap *bm, unsigned int bit)
{
	unsigned int word = bit / 32;

	if (word >= NFS42_BITMAP_WORDS)
		return;
	bm->w[word] |= 1u << (bit % 32);
	if (bm->n < word + 1)
		bm->n = word + 1;
}

bool nfs42_bm_isset(const struct nfs42_bitmap *bm, unsigned int bit)
{
	unsigned int word = bit / 32;

	if (word >= bm->n || word >= NFS42_BITMAP_WORDS)
		return false;
	return bm->w[word] & (1u << (bit % 32));
}

struct nfs42_bitmap nfs42_bm_make(int first, ...)
{
	struct nfs42_bitmap bm;
	va_list ap;
	int bit;

	nfs42_bm_clear(&bm);
	va_start(ap, first);
	for (bit = first; bit >= 0; bit = va_arg(ap, int))
		nfs42_bm_set(&bm, bit);
	va_end(ap);
	return bm;
}

struct nfs42_bitmap nfs42_bm_stat(void)
{
	return nfs42_bm_make(FATTR4_TYPE, FATTR4_CHANGE, FATTR4_SIZE,
			     FATTR4_FSID, FATTR4_FILEID, FATTR4_MODE,
			     FATTR4_NUMLINKS, FATTR4_OWNER, FATTR4_OWNER_GROUP,
			     FATTR4_RAWDEV, FATTR4_SPACE_USED,
			     FATTR4_TIME_ACCESS, FATTR4_TIME_METADATA,
			     FATTR4_TIME_MODIFY, -1);
}

void nfs42_bitmap_encode(struct nfs42_xdr *x, const struct nfs42_bitmap *bm)
{
	uint32_t i, n = bm->n;

	while (n && !bm->w[n - 1])
		n--;
	nfs42_xdr_put_u32(x, n);
	for (i = 0; i < n; i++)
		nfs42_xdr_put_u32(x, bm->w[i]);
}

bool nfs42_bitmap_decode(struct nfs42_xdr *x, struct nfs42_bitmap *bm)
{
	uint32_t i, n, w;

	nfs42_bm_clear(bm);
	if (!nfs42_xdr_get_u32(x, &n))
		return false;
	if (n > 64)
		return nfs42_xdr_fail(x);
	for (i = 0; i < n; i++) {
		if (!nfs42_xdr_get_u32(x, &w))
			return false;
		if (i < NFS42_BITMAP_WORDS) {
			bm->w[i] = w;
			bm->n = i + 1;
		} else if (w) {
			return nfs42_xdr_fail(x); /* attrs we cannot hold */
		}
	}
	return true;
}

static bool get_time(struct nfs42_xdr *x, struct nfs42_time *t)
{
	nfs42_xdr_get_i64(x, &t->seconds);
	nfs42_xdr_get_u32(x, &t->nseconds);
	if (!x->err && t->nseconds >= 1000000000u)
		return nfs42_xdr_fail(x);
	return !x->err;
}

static bool get_acl(struct nfs42_xdr *x, uint32_t *count)
{
	uint32_t i, n, v;

	if (!nfs42_xdr_get_u32(x, &n))
		return false;
	if (n > nfs42_xdr_remaining(x) / 16)
		return nfs42_xdr_fail(x);
	for (i = 0; i < n; i++) {
		nfs42_xdr_get_u32(x, &v); /* type */
		nfs42_xdr_get_u32(x, &v); /* flag */
		nfs42_xdr_get_u32(x, &v); /* access mask */
		nfs42_xdr_skip_opaque(x); /* who */
	}
	*count = n;
	return !x->err;
}

static bool get_u32_array(struct nfs42_xdr *x)
{
	uint32_t n;

	if (!nfs42_xdr_get_u32(x, &n))
		return false;
	if (n > nfs42_xdr_remaining(x) / 4)
		return nfs42_xdr_fail(x);
	return nfs42_xdr_skip(x, (size_t)n * 4);
}

/* Decode one attribute value; false for malformed or unknown attrs. */
static bool decode_one(struct nfs42_xdr *x, struct nfs42_attrs *a,
		       unsigned int bit)
{
	uint64_t u64;

	switch (bit) {
	case FATTR4_SUPPORTED_ATTRS:
		return nfs42_bitmap_decode(x, &a->supported_attrs);
	case FATTR4_TYPE:
		return nfs42_xdr_get_u32(x, &a->type);
	case FATTR4_FH_EXPIRE_TYPE:
		return nfs42_xdr_get_u32(x, &a->fh_expire_type);
	case FATTR4_CHANGE:
		return nfs42_xdr_get_u64(x, &a->change);
	case FATTR4_SIZE:
		return nfs42_xdr_get_u64(x, &a->size);
	case FATTR4_LINK_SUPPORT:
		return nfs42_xdr_get_bool(x, &a->link_support);
	case FATTR4_SYMLINK_SUPPORT:
		return nfs42_xdr_get_bool(x, &a->symlink_support);
	case FATTR4_NAMED_ATTR:
		return nfs42_xdr_get_bool(x, &a->named_attr);
	case FATTR4_FSID:
		nfs42_xdr_get_u64(x, &a->fsid.major);
		return nfs42_xdr_get_u64(x, &a->fsid.minor);
	case FATTR4_UNIQUE_HANDLES:
		return nfs42_xdr_get_bool(x, &a->unique_handles);
	case FATTR4_LEASE_TIME:
		return nfs42_xdr_get_u32(x, &a->lease_time);
	case FATTR4_RDATTR_ERROR:
		return nfs42_xdr_get_u32(x, &a->rdattr_error);
	case FATTR4_ACL:
	case FATTR4_DACL:
	case FATTR4_SACL:
		if (bit != FATTR4_ACL && !nfs42_xdr_get_u32(x, &a->nacl))
			return false; /* nfsacl41: aclflag first */
		return get_acl(x, &a->nacl);
	case FATTR4_ACLSUPPORT:
		return nfs42_xdr_get_u32(x, &a->aclsupport);
	case FATTR4_ARCHIVE:
		return nfs42_xdr_get_bool(x, &a->archive);
	case FATTR4_CANSETTIME:
		return nfs42_xdr_get_bool(x, &a->cansettime);
	case FATTR4_CASE_INSENSITIVE:
		return nfs42_xdr_get_bool(x, &a->case_insensitive);
	case FATTR4_CASE_PRESERVING:
		return nfs42_xdr_get_bool(x, &a->case_preserving);
	case FATTR4_CHOWN_RESTRICTED:
		return nfs42_xdr_get_bool(x, &a->chown_restricted);
	case FATTR4_FILEHANDLE:
		return nfs42_xdr_get_opaque(x, a->filehandle.data,
					    &a->filehandle.len, NFS4_FHSIZE);
	case FATTR4_FILEID:
		return nfs42_xdr_get_u64(x, &a->fileid);
	case FATTR4_FILES_AVAIL:
		return nfs42_xdr_get_u64(x, &a->files_avail);
	case FATTR4_FILES_FREE:
		return nfs42_xdr_get_u64(x, &a->files_free);
	case FATTR4_FILES_TOTAL:
		return nfs42_xdr_get_u64(x, &a->files_total);
	case FATTR4_HIDDEN:
		return nfs42_xdr_get_bool(x, &a->hidden);
	case FATTR4_HOMOGENEOUS:
		return nfs42_xdr_get_bool(x, &a->homogeneous);
	case FATTR4_MAXFILESIZE:
		return nfs42_xdr_get_u64(x, &a->maxfilesize);
	case FATTR4_MAXLINK:
		return nfs42_xdr_get_u32(x, &a->maxlink);
	case FATTR4_MAXNAME:
		return nfs42_xdr_get_u32(x, &a->maxname);
	case FATTR4_MAXREAD:
		return nfs42_xdr_get_u64(x, &a->maxread);
	case FATTR4_MAXWRITE:
		return nfs42_xdr_get_u64(x, &a->maxwrite);
	case FATTR4_MIMETYPE:
		return nfs42_xdr_skip_opaque(x);
	case FATTR4_MODE:
		return nfs42_xdr_get_u32(x, &a->mode);
	case FATTR4_NO_TRUNC:
		return nfs42_xdr_get_bool(x, &a->no_trunc);
	case FATTR4_NUMLINKS:
		return nfs42_xdr_get_u32(x, &a->numlinks);
	case FATTR4_OWNER:
		return nfs42_xdr_get_string(x, a->owner, sizeof(a->owner));
	case FATTR4_OWNER_GROUP:
		return nfs42_xdr_get_string(x, a->owner_group,
					    sizeof(a->owner_group));
	case FATTR4_QUOTA_AVAIL_HARD:
		return nfs42_xdr_get_u64(x, &a->quota_avail_hard);
	case FATTR4_QUOTA_AVAIL_SOFT:
		return nfs42_xdr_get_u64(x, &a->quota_avail_soft);
	case FATTR4_QUOTA_USED:
		return nfs42_xdr_get_u64(x, &a->quota_used);
	case FATTR4_RAWDEV:
		nfs42_xdr_get_u32(x, &a->rawdev.major);
		return nfs42_xdr_get_u32(x, &a->rawdev.minor);
	case FATTR4_SPACE_AVAIL:
		return nfs42_xdr_get_u64(x, &a->space_avail);
	case FATTR4_SPACE_FREE:
		return nfs42_xdr_get_u64(x, &a->space_free);
	case FATTR4_SPACE_TOTAL:
		return nfs42_xdr_get_u64(x, &a->space_total);
	case FATTR4_SPACE_USED:
		return nfs42_xdr_get_u64(x, &a->space_used);
	case FATTR4_SYSTEM:
		return nfs42_xdr_get_bool(x, &a->system);
	case FATTR4_TIME_ACCESS:
		return get_time(x, &a->time_access);
	case FATTR4_TIME_BACKUP:
		return get_time(x, &a->time_backup);
	case FATTR4_TIME_CREATE:
		return get_time(x, &a->time_create);
	case FATTR4_TIME_DELTA:
		return get_time(x, &a->time_delta);
	case FATTR4_TIME_METADATA:
		return get_time(x, &a->time_metadata);
	case FATTR4_TIME_MODIFY:
		return get_time(x, &a->time_modify);
	case FATTR4_MOUNTED_ON_FILEID:
		return nfs42_xdr_get_u64(x, &a->mounted_on_fileid);
	case FATTR4_DIR_NOTIF_DELAY:
	case FATTR4_DIRENT_NOTIF_DELAY:
		return nfs42_xdr_skip(x, 12);
	case FATTR4_CHANGE_POLICY:
		return nfs42_xdr_skip(x, 16);
	case FATTR4_FS_LAYOUT_TYPES:
	case FATTR4_LAYOUT_TYPES:
		return get_u32_array(x);
	case FATTR4_LAYOUT_BLKSIZE:
		return nfs42_xdr_get_u32(x, &a->layout_blksize);
	case FATTR4_LAYOUT_ALIGNMENT:
		return nfs42_xdr_get_u32(x, &a->layout_alignment);
	case FATTR4_RETENTION_HOLD:
		return nfs42_xdr_get_u64(x, &u64);
	case FATTR4_SUPPATTR_EXCLCREAT:
		return nfs42_bitmap_decode(x, &a->suppattr_exclcreat);
	case FATTR4_FS_CHARSET_CAP:
		return nfs42_xdr_get_u32(x, &a->fs_charset_cap);
	case FATTR4_CLONE_BLKSIZE:
		return nfs42_xdr_get_u32(x, &a->clone_blksize);
	case FATTR4_SPACE_FREED:
		return nfs42_xdr_get_u64(x, &a->space_freed);
	case FATTR4_CHANGE_ATTR_TYPE:
		return nfs42_xdr_get_u32(x, &a->change_attr_type);
	case FATTR4_XATTR_SUPPORT:
		return nfs42_xdr_get_bool(x, &a->xattr_support);
	case FATTR4_OPEN_ARGUMENTS:
		return nfs42_bitmap_decode(x,
					   &a->open_arguments.share_access) &&
		       nfs42_bitmap_decode(x, &a->open_arguments.share_deny) &&
		       nfs42_bitmap_decode(
			       x, &a->open_arguments.share_access_want) &&
		       nfs42_bitmap_decode(x, &a->open_arguments.open_claim) &&
		       nfs42_bitmap_decode(x, &a->open_arguments.create_mode);
	default:
		/* fs_locations, fs_status, ... : never requested by us */
		return nfs42_xdr_fail(x);
	}
}

int nfs42_fattr_decode(struct nfs42_xdr *x, struct nfs42_attrs *a)
{
	struct nfs42_xdr vals;
	const uint8_t *p;
	uint32_t n;
	unsigned int bit;

	memset(a, 0, sizeof(*a));
	if (!nfs42_bitmap_decode(x, &a->mask) ||
	    !nfs42_xdr_get_opaque_ref(x, &p, &n, UINT32_MAX))
		return x->err;
	nfs42_xdr_dec_init(&vals, p, n);
	for (bit = 0; bit < a->mask.n * 32; bit++) {
		if (nfs42_bm_isset(&a->mask, bit) && !decode_one(&vals, a, bit))
			return nfs42_xdr_fail(x), x->err;
	}
	if (nfs42_xdr_remaining(&vals))
		return nfs42_xdr_fail(x), x->err; /* trailing garbage */
	return 0;
}

static void put_time(struct nfs42_xdr *x, const struct nfs42_time *t)
{
	nfs42_xdr_put_u64(x, (uint64_t)t->seconds);
	nfs42_xdr_put_u32(x, t->nseconds);
}

static void put_settime(struct nfs42_xdr *x, enum nfs42_time_how how,
			const struct nfs42_time *t)
{
	nfs42_xdr_put_u32(x, how);
	if (how == SET_TO_CLIENT_TIME4)
		put_time(x, t);
}

void nfs42_fattr_encode(struct nfs42_xdr *x, const struct nfs42_sattr *sa)
{
	struct nfs42_bitmap none = { 0 };
	const struct nfs42_bitmap *bm = sa ? &sa->mask : &none;
	size_t lenpos, start;

	nfs42_bitmap_encode(x, bm);
	lenpos = nfs42_xdr_put_u32(x, 0);
	start = x->len;
	/* values in attribute-number order */
	if (nfs42_bm_isset(bm, FATTR4_SIZE))
		nfs42_xdr_put_u64(x, sa->size);
	if (nfs42_bm_isset(bm, FATTR4_MODE))
		nfs42_xdr_put_u32(x, sa->mode);
	if (nfs42_bm_isset(bm, FATTR4_OWNER))
		nfs42_xdr_put_string(x, sa->owner);
	if (nfs42_bm_isset(bm, FATTR4_OWNER_GROUP))
		nfs42_xdr_put_string(x, sa->owner_group);
	if (nfs42_bm_isset(bm, FATTR4_TIME_ACCESS_SET))
		put_settime(x, sa->atime_how, &sa->atime);
	if (nfs42_bm_isset(bm, FATTR4_TIME_MODIFY_SET))
		put_settime(x, sa->mtime_how, &sa->mtime);
	if (nfs42_bm_isset(bm, FATTR4_TIME_DELEG_ACCESS))
		put_time(x, &sa->deleg_atime);
	if (nfs42_bm_isset(bm, FATTR4_TIME_DELEG_MODIFY))
		put_time(x, &sa->deleg_mtime);
	nfs42_xdr_patch_u32(x, lenpos, x->len - start);
}

void nfs42_sattr_init(struct nfs42_sattr *sa)
{
	memset(sa, 0, sizeof(*sa));
}

void nfs42_sattr_size(struct nfs42_sattr *sa, uint64_t size)
{
	nfs42_bm_set(&sa->mask, FATTR4_SIZE);
	sa->size = size;
}

void nfs42_sattr_mode(struct nfs42_sattr *sa, uint32_t mode)
{
	nfs42_bm_set(&sa->mask, FATTR4_MODE);
	sa->mode = mode & 07777;
}

void nfs42_sattr_owner(struct nfs42_sattr *sa, const char *owner)
{
	nfs42_bm_set(&sa->mask, FATTR4_OWNER);
	sa->owner = owner;
}

void nfs42_sattr_group(struct nfs42_sattr *sa, const char *group)
{
	nfs42_bm_set(&sa->mask, FATTR4_OWNER_GROUP);
	sa->owner_group = group;
}

void nfs42_sattr_atime(struct nfs42_sattr *sa, const struct nfs42_time *t)
{
	nfs42_bm_set(&sa->mask, FATTR4_TIME_ACCESS_SET);
	sa->atime_how = t ? SET_TO_CLIENT_TIME4 : SET_TO_SERVER_TIME4;
	if (t)
		sa->atime = *t;
}

void nfs42_sattr_deleg_atime(struct nfs42_sattr *sa, const struct nfs42_time *t)
{
	nfs42_bm_set(&sa->mask, FATTR4_TIME_DELEG_ACCESS);
	sa->deleg_atime = *t;
}

void nfs42_sattr_deleg_mtime(struct nfs42_sattr *sa, const struct nfs42_time *t)
{
	nfs42_bm_set(&sa->mask, FATTR4_TIME_DELEG_MODIFY);
	sa->deleg_mtime = *t;
}

void nfs42_sattr_mtime(struct nfs42_sattr *sa, const struct nfs42_time *t)
{
	nfs42_bm_set(&sa->mask, FATTR4_TIME_MODIFY_SET);
	sa->mtime_how = t ? SET_TO_CLIENT_TIME4 : SET_TO_SERVER_TIME4;
	if (t)
		sa->mtime = *t;
}

static bool parse_number(const char *s, uint32_t *id)
{
	char *end;
	unsigned long v;

	if (!*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return false;
	*id = v;
	return true;
}

int nfs42_owner_to_id(const char *owner, bool group, uint32_t *id)
{
	char name[NFS42_OWNER_MAX];
	struct passwd *pw;
	struct group *gr;
	char *at;

	if (parse_number(owner, id))
		return 0;
	snprintf(name, sizeof(name), "%s", owner);
	at = strchr(name, '@');
	if (at)
		*at = '\0';
	if (parse_number(name, id))
		return 0;
	if (group) {
		gr = getgrnam(name);
		if (!gr)
			return -ENOENT;
		*id = gr->gr_gid;
	} else {
		pw = getpwnam(name);
		if (!pw)
			return -ENOENT;
		*id = pw->pw_uid;
	}
	return 0;
}

mode_t nfs42_attrs_st_mode(const struct nfs42_attrs *a)
{
	static const mode_t fmt[] = {
		[NF4REG] = S_IFREG,	  [NF4DIR] = S_IFDIR,
		[NF4BLK] = S_IFBLK,	  [NF4CHR] = S_IFCHR,
		[NF4LNK] = S_IFLNK,	  [NF4SOCK] = S_IFSOCK,
		[NF4FIFO] = S_IFIFO,	  [NF4ATTRDIR] = S_IFDIR,
		[NF4NAMEDATTR] = S_IFREG,
	};
	mode_t m = a->mode & 07777;

	if (a->type < sizeof(fmt) / sizeof(fmt[0]))
		m |= fmt[a->type];
	return m;
}
