/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Operation encoders (COMPOUND4args) and result decoders (COMPOUND4res),
 * following the XDR of RFC 5661 and RFC 7863.
 *
 * Adding an operation: an nfs42_op_xxx() encoder built on op_begin() and
 * op_end(), and a case in nfs42_decode_res().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int op_begin(struct nfs42_compound *c, uint32_t opnum)
{
	uint32_t *n;

	if (c->enc_err)
		return -1;
	if (c->nops == c->capops) {
		n = realloc(c->opnums, (c->capops * 2 + 8) * sizeof(*n));
		if (!n) {
			c->enc_err = -ENOMEM;
			return -1;
		}
		c->opnums = n;
		c->capops = c->capops * 2 + 8;
	}
	c->opnums[c->nops] = opnum;
	nfs42_xdr_put_u32(&c->ops, opnum);
	return c->nops++;
}

static int op_end(struct nfs42_compound *c, int idx)
{
	if (c->ops.err && !c->enc_err)
		c->enc_err = c->ops.err;
	return c->enc_err ? -1 : idx;
}

static uint64_t own_clientid(struct nfs42_compound *c, uint64_t given)
{
	if (given || !c->cl)
		return given;
	return c->cl->clientid;
}

void nfs42_encode_stateid(struct nfs42_xdr *x, const struct nfs42_stateid *s)
{
	static const struct nfs42_stateid anon;

	if (!s)
		s = &anon;
	nfs42_xdr_put_u32(x, s->seqid);
	nfs42_xdr_put_fixed(x, s->other, NFS4_OTHER_SIZE);
}

bool nfs42_decode_stateid(struct nfs42_xdr *x, struct nfs42_stateid *s)
{
	nfs42_xdr_get_u32(x, &s->seqid);
	return nfs42_xdr_get_fixed(x, s->other, NFS4_OTHER_SIZE);
}

/* ------------------------------------------------------------ encoders */

static int op_void(struct nfs42_compound *c, uint32_t opnum)
{
	return op_end(c, op_begin(c, opnum));
}

static int op_name(struct nfs42_compound *c, uint32_t opnum, const char *name)
{
	int idx = op_begin(c, opnum);

	nfs42_xdr_put_string(&c->ops, name);
	return op_end(c, idx);
}

static int op_sid(struct nfs42_compound *c, uint32_t opnum,
		  const struct nfs42_stateid *sid)
{
	int idx = op_begin(c, opnum);

	nfs42_encode_stateid(&c->ops, sid);
	return op_end(c, idx);
}

int nfs42_op_putrootfh(struct nfs42_compound *c)
{
	nfs42_deleg_note_fh(c, OP_PUTROOTFH, NULL);
	return op_void(c, OP_PUTROOTFH);
}

int nfs42_op_putfh(struct nfs42_compound *c, const struct nfs42_fh *fh)
{
	int idx = op_begin(c, OP_PUTFH);

	nfs42_deleg_note_fh(c, OP_PUTFH, fh);
	nfs42_xdr_put_opaque(&c->ops, fh->data, fh->len);
	return op_end(c, idx);
}

int nfs42_op_lookup(struct nfs42_compound *c, const char *name)
{
	nfs42_deleg_note_fh(c, OP_LOOKUP, NULL);
	return op_name(c, OP_LOOKUP, name);
}

int nfs42_op_lookupp(struct nfs42_compound *c)
{
	nfs42_deleg_note_fh(c, OP_LOOKUPP, NULL);
	return op_void(c, OP_LOOKUPP);
}

int nfs42_op_getfh(struct nfs42_compound *c)
{
	return op_void(c, OP_GETFH);
}

int nfs42_op_savefh(struct nfs42_compound *c)
{
	nfs42_deleg_note_fh(c, OP_SAVEFH, NULL);
	return op_void(c, OP_SAVEFH);
}

int nfs42_op_restorefh(struct nfs42_compound *c)
{
	nfs42_deleg_note_fh(c, OP_RESTOREFH, NULL);
	return op_void(c, OP_RESTOREFH);
}

int nfs42_op_readlink(struct nfs42_compound *c)
{
	return op_void(c, OP_READLINK);
}

int nfs42_op_remove(struct nfs42_compound *c, const char *name)
{
	return op_name(c, OP_REMOVE, name);
}

int nfs42_op_link(struct nfs42_compound *c, const char *newname)
{
	return op_name(c, OP_LINK, newname);
}

int nfs42_op_getattr(struct nfs42_compound *c, const struct nfs42_bitmap *bm)
{
	int idx = op_begin(c, OP_GETATTR);

	nfs42_bitmap_encode(&c->ops, bm);
	return op_end(c, idx);
}

int nfs42_op_access(struct nfs42_compound *c, uint32_t access)
{
	int idx = op_begin(c, OP_ACCESS);

	nfs42_xdr_put_u32(&c->ops, access);
	return op_end(c, idx);
}

int nfs42_op_readdir(struct nfs42_compound *c, uint64_t cookie,
		     const uint8_t *cookieverf, uint32_t dircount,
		     uint32_t maxcount, const struct nfs42_bitmap *bm)
{
	static const uint8_t zero[NFS4_VERIFIER_SIZE];
	int idx = op_begin(c, OP_READDIR);

	nfs42_xdr_put_u64(&c->ops, cookie);
	nfs42_xdr_put_fixed(&c->ops, cookieverf ? cookieverf : zero,
			    NFS4_VERIFIER_SIZE);
	nfs42_xdr_put_u32(&c->ops, dircount);
	nfs42_xdr_put_u32(&c->ops, maxcount);
	nfs42_bitmap_encode(&c->ops, bm);
	return op_end(c, idx);
}

static void put_createhow(struct nfs42_xdr *x, const struct nfs42_open_args *a)
{
	nfs42_xdr_put_u32(x, a->createmode);
	switch (a->createmode) {
	case UNCHECKED4:
	case GUARDED4:
		nfs42_fattr_encode(x, a->attrs);
		break;
	case EXCLUSIVE4:
		nfs42_xdr_put_fixed(x, a->verifier, NFS4_VERIFIER_SIZE);
		break;
	case EXCLUSIVE4_1:
		nfs42_xdr_put_fixed(x, a->verifier, NFS4_VERIFIER_SIZE);
		nfs42_fattr_encode(x, a->attrs);
		break;
	}
}

int nfs42_op_open(struct nfs42_compound *c, const struct nfs42_open_args *a)
{
	int idx = op_begin(c, OP_OPEN);
	struct nfs42_xdr *x = &c->ops;

	nfs42_xdr_put_u32(x, a->seqid);
	nfs42_xdr_put_u32(x, a->share_access);
	nfs42_xdr_put_u32(x, a->share_deny);
	nfs42_xdr_put_u64(x, own_clientid(c, a->owner_clientid));
	nfs42_xdr_put_opaque(x, a->owner, a->owner_len);
	if (a->createmode == NFS42_NOCREATE) {
		nfs42_xdr_put_u32(x, 0); /* OPEN4_NOCREATE */
	} else {
		nfs42_xdr_put_u32(x, 1); /* OPEN4_CREATE */
		put_createhow(x, a);
	}
	nfs42_xdr_put_u32(x, a->claim);
	switch (a->claim) {
	case CLAIM_NULL:
	case CLAIM_DELEGATE_PREV:
		nfs42_xdr_put_string(x, a->name);
		break;
	case CLAIM_PREVIOUS: /* open_delegation_type4 */
		nfs42_xdr_put_u32(x, a->delegate_type);
		break;
	case CLAIM_FH:
	case CLAIM_DELEG_PREV_FH:
		break;
	case CLAIM_DELEGATE_CUR: /* open_claim_delegate_cur4 */
		nfs42_encode_stateid(x, a->deleg_stateid);
		nfs42_xdr_put_string(x, a->name);
		break;
	case CLAIM_DELEG_CUR_FH:
		nfs42_encode_stateid(x, a->deleg_stateid);
		break;
	default:
		c->enc_err = -EINVAL; /* claims we do not model */
		break;
	}
	/* by name: the file opened is not known here; by handle: the
	 * current one.  Creating with a size truncates one that exists. */
	if (a->claim != CLAIM_FH && a->claim != CLAIM_DELEG_CUR_FH &&
	    a->claim != CLAIM_DELEG_PREV_FH)
		nfs42_deleg_note_fh(c, OP_OPEN, NULL);
	if ((a->createmode == UNCHECKED4 || a->createmode == GUARDED4) &&
	    a->attrs && nfs42_bm_isset(&a->attrs->mask, FATTR4_SIZE))
		nfs42_deleg_note_change(c, idx, OP_OPEN, a->attrs->size, 0);
	return op_end(c, idx);
}

int nfs42_op_open_downgrade(struct nfs42_compound *c,
			    const struct nfs42_stateid *sid, uint32_t seqid,
			    uint32_t share_access, uint32_t share_deny)
{
	int idx = op_begin(c, OP_OPEN_DOWNGRADE);

	nfs42_encode_stateid(&c->ops, sid);
	nfs42_xdr_put_u32(&c->ops, seqid);
	nfs42_xdr_put_u32(&c->ops, share_access);
	nfs42_xdr_put_u32(&c->ops, share_deny);
	return op_end(c, idx);
}

int nfs42_op_close(struct nfs42_compound *c, uint32_t seqid,
		   const struct nfs42_stateid *sid)
{
	int idx = op_begin(c, OP_CLOSE);

	nfs42_xdr_put_u32(&c->ops, seqid);
	nfs42_encode_stateid(&c->ops, sid);
	return op_end(c, idx);
}

/* An operation whose argument is one stateid. */
static int op_stateid(struct nfs42_compound *c, uint32_t opnum,
		      const struct nfs42_stateid *sid)
{
	int idx = op_begin(c, opnum);

	nfs42_encode_stateid(&c->ops, sid);
	return op_end(c, idx);
}

int nfs42_op_delegreturn(struct nfs42_compound *c,
			 const struct nfs42_stateid *sid)
{
	return op_stateid(c, OP_DELEGRETURN, sid);
}

int nfs42_op_test_stateid(struct nfs42_compound *c,
			  const struct nfs42_stateid *sids, unsigned int n)
{
	int idx = op_begin(c, OP_TEST_STATEID);
	unsigned int i;

	nfs42_xdr_put_u32(&c->ops, n);
	for (i = 0; i < n; i++)
		nfs42_encode_stateid(&c->ops, &sids[i]);
	return op_end(c, idx);
}

int nfs42_op_free_stateid(struct nfs42_compound *c,
			  const struct nfs42_stateid *sid)
{
	return op_stateid(c, OP_FREE_STATEID, sid);
}

int nfs42_op_read(struct nfs42_compound *c, const struct nfs42_stateid *sid,
		  uint64_t offset, uint32_t count)
{
	int idx = op_begin(c, OP_READ);

	nfs42_encode_stateid(&c->ops, sid);
	nfs42_xdr_put_u64(&c->ops, offset);
	nfs42_xdr_put_u32(&c->ops, count);
	return op_end(c, idx);
}

int nfs42_op_read_plus(struct nfs42_compound *c,
		       const struct nfs42_stateid *sid, uint64_t offset,
		       uint32_t count)
{
	int idx = op_begin(c, OP_READ_PLUS);

	nfs42_encode_stateid(&c->ops, sid);
	nfs42_xdr_put_u64(&c->ops, offset);
	nfs42_xdr_put_u32(&c->ops, count);
	return op_end(c, idx);
}

int nfs42_op_write(struct nfs42_compound *c, const struct nfs42_stateid *sid,
		   uint64_t offset, enum nfs42_stable_how stable,
		   const void *data, uint32_t len)
{
	int idx = op_begin(c, OP_WRITE);

	nfs42_encode_stateid(&c->ops, sid);
	nfs42_xdr_put_u64(&c->ops, offset);
	nfs42_xdr_put_u32(&c->ops, stable);
	nfs42_xdr_put_opaque(&c->ops, data, len);
	nfs42_deleg_note_change(c, idx, OP_WRITE, offset, len);
	return op_end(c, idx);
}

int nfs42_op_commit(struct nfs42_compound *c, uint64_t offset, uint32_t count)
{
	int idx = op_begin(c, OP_COMMIT);

	nfs42_xdr_put_u64(&c->ops, offset);
	nfs42_xdr_put_u32(&c->ops, count);
	return op_end(c, idx);
}

int nfs42_op_create(struct nfs42_compound *c, const struct nfs42_create_args *a)
{
	int idx = op_begin(c, OP_CREATE);
	struct nfs42_xdr *x = &c->ops;

	nfs42_deleg_note_fh(c, OP_CREATE, NULL);
	nfs42_xdr_put_u32(x, a->type);
	if (a->type == NF4LNK) {
		nfs42_xdr_put_string(x, a->linkdata);
	} else if (a->type == NF4BLK || a->type == NF4CHR) {
		nfs42_xdr_put_u32(x, a->specmajor);
		nfs42_xdr_put_u32(x, a->specminor);
	}
	nfs42_xdr_put_string(x, a->name);
	nfs42_fattr_encode(x, a->attrs);
	return op_end(c, idx);
}

int nfs42_op_rename(struct nfs42_compound *c, const char *oldname,
		    const char *newname)
{
	int idx = op_begin(c, OP_RENAME);

	nfs42_xdr_put_string(&c->ops, oldname);
	nfs42_xdr_put_string(&c->ops, newname);
	return op_end(c, idx);
}

int nfs42_op_setattr(struct nfs42_compound *c, const struct nfs42_stateid *sid,
		     const struct nfs42_sattr *sa)
{
	int idx = op_begin(c, OP_SETATTR);

	nfs42_encode_stateid(&c->ops, sid);
	nfs42_fattr_encode(&c->ops, sa);
	if (nfs42_bm_isset(&sa->mask, FATTR4_SIZE))
		nfs42_deleg_note_change(c, idx, OP_SETATTR, sa->size, 0);
	return op_end(c, idx);
}

static void put_lock_owner(struct nfs42_compound *c,
			   const struct nfs42_lock_owner *lo)
{
	nfs42_xdr_put_u64(&c->ops, own_clientid(c, lo->clientid));
	nfs42_xdr_put_opaque(&c->ops, lo->owner, lo->owner_len);
}

static int lock_begin(struct nfs42_compound *c, uint32_t locktype, bool reclaim,
		      uint64_t offset, uint64_t length)
{
	int idx = op_begin(c, OP_LOCK);

	nfs42_xdr_put_u32(&c->ops, locktype);
	nfs42_xdr_put_bool(&c->ops, reclaim);
	nfs42_xdr_put_u64(&c->ops, offset);
	nfs42_xdr_put_u64(&c->ops, length);
	return idx;
}

int nfs42_op_lock_new(struct nfs42_compound *c, uint32_t locktype, bool reclaim,
		      uint64_t offset, uint64_t length, uint32_t open_seqid,
		      const struct nfs42_stateid *open_sid, uint32_t lock_seqid,
		      const struct nfs42_lock_owner *lo)
{
	int idx = lock_begin(c, locktype, reclaim, offset, length);

	nfs42_xdr_put_bool(&c->ops, true); /* new_lock_owner */
	nfs42_xdr_put_u32(&c->ops, open_seqid);
	nfs42_encode_stateid(&c->ops, open_sid);
	nfs42_xdr_put_u32(&c->ops, lock_seqid);
	put_lock_owner(c, lo);
	return op_end(c, idx);
}

int nfs42_op_lock_existing(struct nfs42_compound *c, uint32_t locktype,
			   bool reclaim, uint64_t offset, uint64_t length,
			   const struct nfs42_stateid *lock_sid,
			   uint32_t lock_seqid)
{
	int idx = lock_begin(c, locktype, reclaim, offset, length);

	nfs42_xdr_put_bool(&c->ops, false);
	nfs42_encode_stateid(&c->ops, lock_sid);
	nfs42_xdr_put_u32(&c->ops, lock_seqid);
	return op_end(c, idx);
}

int nfs42_op_lockt(struct nfs42_compound *c, uint32_t locktype, uint64_t offset,
		   uint64_t length, const struct nfs42_lock_owner *lo)
{
	int idx = op_begin(c, OP_LOCKT);

	nfs42_xdr_put_u32(&c->ops, locktype);
	nfs42_xdr_put_u64(&c->ops, offset);
	nfs42_xdr_put_u64(&c->ops, length);
	put_lock_owner(c, lo);
	return op_end(c, idx);
}

int nfs42_op_locku(struct nfs42_compound *c, uint32_t locktype, uint32_t seqid,
		   const struct nfs42_stateid *lock_sid, uint64_t offset,
		   uint64_t length)
{
	int idx = op_begin(c, OP_LOCKU);

	nfs42_xdr_put_u32(&c->ops, locktype);
	nfs42_xdr_put_u32(&c->ops, seqid);
	nfs42_encode_stateid(&c->ops, lock_sid);
	nfs42_xdr_put_u64(&c->ops, offset);
	nfs42_xdr_put_u64(&c->ops, length);
	return op_end(c, idx);
}

int nfs42_op_seek(struct nfs42_compound *c, const struct nfs42_stateid *sid,
		  uint64_t offset, enum nfs42_content what)
{
	int idx = op_begin(c, OP_SEEK);

	nfs42_encode_stateid(&c->ops, sid);
	nfs42_xdr_put_u64(&c->ops, offset);
	nfs42_xdr_put_u32(&c->ops, what);
	return op_end(c, idx);
}

static int op_sid_range(struct nfs42_compound *c, uint32_t opnum,
			const struct nfs42_stateid *sid, uint64_t offset,
			uint64_t length)
{
	int idx = op_begin(c, opnum);

	nfs42_encode_stateid(&c->ops, sid);
	nfs42_xdr_put_u64(&c->ops, offset);
	nfs42_xdr_put_u64(&c->ops, length);
	return op_end(c, idx);
}

int nfs42_op_allocate(struct nfs42_compound *c, const struct nfs42_stateid *sid,
		      uint64_t offset, uint64_t length)
{
	int idx = op_sid_range(c, OP_ALLOCATE, sid, offset, length);

	nfs42_deleg_note_change(c, idx, OP_ALLOCATE, offset, length);
	return idx;
}

int nfs42_op_deallocate(struct nfs42_compound *c,
			const struct nfs42_stateid *sid, uint64_t offset,
			uint64_t length)
{
	int idx = op_sid_range(c, OP_DEALLOCATE, sid, offset, length);

	nfs42_deleg_note_change(c, idx, OP_DEALLOCATE, offset, length);
	return idx;
}

int nfs42_op_copy(struct nfs42_compound *c, const struct nfs42_stateid *src,
		  const struct nfs42_stateid *dst, uint64_t src_offset,
		  uint64_t dst_offset, uint64_t count, bool consecutive,
		  bool synchronous)
{
	int idx = op_begin(c, OP_COPY);

	nfs42_encode_stateid(&c->ops, src);
	nfs42_encode_stateid(&c->ops, dst);
	nfs42_xdr_put_u64(&c->ops, src_offset);
	nfs42_xdr_put_u64(&c->ops, dst_offset);
	nfs42_xdr_put_u64(&c->ops, count);
	nfs42_xdr_put_bool(&c->ops, consecutive);
	nfs42_xdr_put_bool(&c->ops, synchronous);
	nfs42_xdr_put_u32(&c->ops, 0); /* ca_source_server<>: intra-server */
	nfs42_deleg_note_change(c, idx, OP_COPY, dst_offset, count);
	return op_end(c, idx);
}

int nfs42_op_clone(struct nfs42_compound *c, const struct nfs42_stateid *src,
		   const struct nfs42_stateid *dst, uint64_t src_offset,
		   uint64_t dst_offset, uint64_t count)
{
	int idx = op_begin(c, OP_CLONE);

	nfs42_encode_stateid(&c->ops, src);
	nfs42_encode_stateid(&c->ops, dst);
	nfs42_xdr_put_u64(&c->ops, src_offset);
	nfs42_xdr_put_u64(&c->ops, dst_offset);
	nfs42_xdr_put_u64(&c->ops, count);
	nfs42_deleg_note_change(c, idx, OP_CLONE, dst_offset, count);
	return op_end(c, idx);
}

int nfs42_op_offload_status(struct nfs42_compound *c,
			    const struct nfs42_stateid *sid)
{
	return op_sid(c, OP_OFFLOAD_STATUS, sid);
}

int nfs42_op_offload_cancel(struct nfs42_compound *c,
			    const struct nfs42_stateid *sid)
{
	return op_sid(c, OP_OFFLOAD_CANCEL, sid);
}

/* ---------------------------------------------------------------- pNFS */

int nfs42_op_layoutget(struct nfs42_compound *c, uint32_t type, uint32_t iomode,
		       uint64_t offset, uint64_t length, uint64_t minlength,
		       const struct nfs42_stateid *sid, uint32_t maxcount)
{
	int idx = op_begin(c, OP_LAYOUTGET);

	nfs42_xdr_put_bool(&c->ops, false); /* loga_signal_layout_avail */
	nfs42_xdr_put_u32(&c->ops, type);
	nfs42_xdr_put_u32(&c->ops, iomode);
	nfs42_xdr_put_u64(&c->ops, offset);
	nfs42_xdr_put_u64(&c->ops, length);
	nfs42_xdr_put_u64(&c->ops, minlength);
	nfs42_encode_stateid(&c->ops, sid);
	nfs42_xdr_put_u32(&c->ops, maxcount);
	/* writes through the data servers change the file unseen here */
	if (iomode == LAYOUTIOMODE4_RW)
		nfs42_deleg_note_change(c, idx, NFS42_DELEG_EFFECT_UNKNOWN, 0,
					0);
	return op_end(c, idx);
}

int nfs42_op_getdeviceinfo(struct nfs42_compound *c,
			   const uint8_t devid[NFS4_DEVICEID4_SIZE],
			   uint32_t type, uint32_t maxcount)
{
	int idx = op_begin(c, OP_GETDEVICEINFO);

	nfs42_xdr_put_fixed(&c->ops, devid, NFS4_DEVICEID4_SIZE);
	nfs42_xdr_put_u32(&c->ops, type);
	nfs42_xdr_put_u32(&c->ops, maxcount);
	nfs42_xdr_put_u32(&c->ops, 0); /* gdia_notify_types: none */
	return op_end(c, idx);
}

int nfs42_op_getdevicelist(struct nfs42_compound *c, uint32_t type,
			   uint32_t maxdevices, uint64_t cookie,
			   const uint8_t *cookieverf)
{
	static const uint8_t zero[NFS4_VERIFIER_SIZE];
	int idx = op_begin(c, OP_GETDEVICELIST);

	nfs42_xdr_put_u32(&c->ops, type);
	nfs42_xdr_put_u32(&c->ops, maxdevices);
	nfs42_xdr_put_u64(&c->ops, cookie);
	nfs42_xdr_put_fixed(&c->ops, cookieverf ? cookieverf : zero,
			    NFS4_VERIFIER_SIZE);
	return op_end(c, idx);
}

int nfs42_op_layoutcommit(struct nfs42_compound *c, uint64_t offset,
			  uint64_t length, bool reclaim,
			  const struct nfs42_stateid *sid,
			  const uint64_t *last_write,
			  const struct nfs42_time *mtime, uint32_t type)
{
	int idx = op_begin(c, OP_LAYOUTCOMMIT);

	nfs42_xdr_put_u64(&c->ops, offset);
	nfs42_xdr_put_u64(&c->ops, length);
	nfs42_xdr_put_bool(&c->ops, reclaim);
	nfs42_encode_stateid(&c->ops, sid);
	nfs42_xdr_put_bool(&c->ops, last_write != NULL);
	if (last_write)
		nfs42_xdr_put_u64(&c->ops, *last_write);
	nfs42_xdr_put_bool(&c->ops, mtime != NULL);
	if (mtime) {
		nfs42_xdr_put_u64(&c->ops, (uint64_t)mtime->seconds);
		nfs42_xdr_put_u32(&c->ops, mtime->nseconds);
	}
	nfs42_xdr_put_u32(&c->ops, type); /* lou_type */
	nfs42_xdr_put_opaque(&c->ops, NULL, 0); /* lou_body */
	if (last_write)
		nfs42_deleg_note_change(c, idx, OP_LAYOUTCOMMIT, *last_write,
					0);
	return op_end(c, idx);
}

int nfs42_op_layoutreturn(struct nfs42_compound *c, bool reclaim, uint32_t type,
			  uint32_t iomode, uint32_t returntype, uint64_t offset,
			  uint64_t length, const struct nfs42_stateid *sid)
{
	int idx = op_begin(c, OP_LAYOUTRETURN);

	nfs42_xdr_put_bool(&c->ops, reclaim);
	nfs42_xdr_put_u32(&c->ops, type);
	nfs42_xdr_put_u32(&c->ops, iomode);
	nfs42_xdr_put_u32(&c->ops, returntype);
	if (returntype == LAYOUTRETURN4_FILE) {
		nfs42_xdr_put_u64(&c->ops, offset);
		nfs42_xdr_put_u64(&c->ops, length);
		nfs42_encode_stateid(&c->ops, sid);
		nfs42_xdr_put_opaque(&c->ops, NULL, 0); /* lrf_body */
	}
	return op_end(c, idx);
}

int nfs42_op_sequence(struct nfs42_compound *c, const uint8_t *sessionid,
		      uint32_t seqid, uint32_t slot, uint32_t highest_slot,
		      bool cachethis)
{
	int idx = op_begin(c, OP_SEQUENCE);

	nfs42_xdr_put_fixed(&c->ops, sessionid, NFS4_SESSIONID_SIZE);
	nfs42_xdr_put_u32(&c->ops, seqid);
	nfs42_xdr_put_u32(&c->ops, slot);
	nfs42_xdr_put_u32(&c->ops, highest_slot);
	nfs42_xdr_put_bool(&c->ops, cachethis);
	return op_end(c, idx);
}

int nfs42_op_exchange_id(struct nfs42_compound *c, const uint8_t *verifier,
			 const void *owner, uint32_t owner_len, uint32_t flags)
{
	int idx = op_begin(c, OP_EXCHANGE_ID);

	nfs42_xdr_put_fixed(&c->ops, verifier, NFS4_VERIFIER_SIZE);
	nfs42_xdr_put_opaque(&c->ops, owner, owner_len);
	nfs42_xdr_put_u32(&c->ops, flags);
	nfs42_xdr_put_u32(&c->ops, 0); /* SP4_NONE */
	nfs42_xdr_put_u32(&c->ops, 0); /* no client_impl_id */
	return op_end(c, idx);
}

static void put_chan_attrs(struct nfs42_xdr *x,
			   const struct nfs42_chan_attrs *a)
{
	nfs42_xdr_put_u32(x, a->headerpadsize);
	nfs42_xdr_put_u32(x, a->maxreq);
	nfs42_xdr_put_u32(x, a->maxresp);
	nfs42_xdr_put_u32(x, a->maxresp_cached);
	nfs42_xdr_put_u32(x, a->maxops);
	nfs42_xdr_put_u32(x, a->maxreqs);
	nfs42_xdr_put_u32(x, 0); /* no rdma_ird */
}

/* one callback_sec_parms4 (RFC 8881 18.36.1) */
static void put_cb_sec(struct nfs42_xdr *x, const struct nfs42_cb_sec *s)
{
	nfs42_xdr_put_u32(x, s->flavor);
	switch (s->flavor) {
	case NFS42_CB_AUTH_NONE:
		break;
	case NFS42_CB_AUTH_SYS:
		/* authsys_parms, inline (not wrapped in an opaque) */
		nfs42_xdr_put_u32(x, 0); /* stamp */
		nfs42_xdr_put_string(x, s->machinename);
		nfs42_xdr_put_u32(x, s->uid);
		nfs42_xdr_put_u32(x, s->gid);
		nfs42_xdr_put_u32(x, 0); /* no aux gids */
		break;
	case NFS42_CB_RPCSEC_GSS:
		/* gss_cb_handles4 */
		nfs42_xdr_put_u32(x, s->gss_service);
		nfs42_xdr_put_opaque(x, s->gss_handle_from_server,
				     s->gss_handle_from_server_len);
		nfs42_xdr_put_opaque(x, s->gss_handle_from_client,
				     s->gss_handle_from_client_len);
		break;
	default: /* no arm: the flavour alone */
		break;
	}
}

/* csa_cb_program/bca_cb_program and the callback_sec_parms4 list */
static void put_cb_program_secs(struct nfs42_xdr *x, uint32_t cb_program,
				const struct nfs42_cb_sec *secs,
				unsigned int nsecs)
{
	unsigned int i;

	nfs42_xdr_put_u32(x, cb_program);
	nfs42_xdr_put_u32(x, nsecs);
	for (i = 0; i < nsecs; i++)
		put_cb_sec(x, &secs[i]);
}

int nfs42_op_create_session_sec(struct nfs42_compound *c, uint64_t clientid,
				uint32_t seqid, uint32_t flags,
				const struct nfs42_chan_attrs *fore,
				const struct nfs42_chan_attrs *back,
				uint32_t cb_program,
				const struct nfs42_cb_sec *secs,
				unsigned int nsecs)
{
	int idx = op_begin(c, OP_CREATE_SESSION);
	struct nfs42_xdr *x = &c->ops;

	nfs42_xdr_put_u64(x, clientid);
	nfs42_xdr_put_u32(x, seqid);
	nfs42_xdr_put_u32(x, flags);
	put_chan_attrs(x, fore);
	put_chan_attrs(x, back);
	put_cb_program_secs(x, cb_program, secs, nsecs);
	return op_end(c, idx);
}

int nfs42_op_create_session(struct nfs42_compound *c, uint64_t clientid,
			    uint32_t seqid, uint32_t flags,
			    const struct nfs42_chan_attrs *fore,
			    const struct nfs42_chan_attrs *back,
			    uint32_t cb_program, uint32_t cb_uid,
			    uint32_t cb_gid, const char *machinename)
{
	const struct nfs42_cb_sec sys = { .flavor = NFS42_CB_AUTH_SYS,
					  .uid = cb_uid,
					  .gid = cb_gid,
					  .machinename = machinename };

	return nfs42_op_create_session_sec(c, clientid, seqid, flags, fore,
					   back, cb_program, &sys, 1);
}

int nfs42_op_backchannel_ctl(struct nfs42_compound *c, uint32_t cb_program,
			     const struct nfs42_cb_sec *secs,
			     unsigned int nsecs)
{
	int idx = op_begin(c, OP_BACKCHANNEL_CTL);

	put_cb_program_secs(&c->ops, cb_program, secs, nsecs);
	return op_end(c, idx);
}

int nfs42_op_destroy_session(struct nfs42_compound *c, const uint8_t *sessionid)
{
	int idx = op_begin(c, OP_DESTROY_SESSION);

	nfs42_xdr_put_fixed(&c->ops, sessionid, NFS4_SESSIONID_SIZE);
	return op_end(c, idx);
}

int nfs42_op_destroy_clientid(struct nfs42_compound *c, uint64_t clientid)
{
	int idx = op_begin(c, OP_DESTROY_CLIENTID);

	nfs42_xdr_put_u64(&c->ops, clientid);
	return op_end(c, idx);
}

int nfs42_op_reclaim_complete(struct nfs42_compound *c, bool one_fs)
{
	int idx = op_begin(c, OP_RECLAIM_COMPLETE);

	nfs42_xdr_put_bool(&c->ops, one_fs);
	return op_end(c, idx);
}

int nfs42_op_raw(struct nfs42_compound *c, uint32_t opnum, const void *bytes,
		 size_t len)
{
	int idx;

	if (c->enc_err)
		return -1;
	/* op_begin() writes the opnum: write the raw bytes instead */
	idx = op_begin(c, opnum);
	if (idx < 0)
		return -1;
	c->ops.len -= 4;
	nfs42_xdr_put_raw(&c->ops, bytes, len);
	nfs42_deleg_note_raw(c, idx, opnum);
	return op_end(c, idx);
}

/* RFC 8276: xattrkey4 is a component4, xattrvalue4 an opaque<> */
int nfs42_op_getxattr(struct nfs42_compound *c, const char *name)
{
	return op_name(c, OP_GETXATTR, name);
}

int nfs42_op_setxattr(struct nfs42_compound *c,
		      enum nfs42_setxattr_option option, const char *name,
		      const void *value, uint32_t len)
{
	int idx = op_begin(c, OP_SETXATTR);

	nfs42_xdr_put_u32(&c->ops, option);
	nfs42_xdr_put_string(&c->ops, name);
	nfs42_xdr_put_opaque(&c->ops, value, len);
	return op_end(c, idx);
}

int nfs42_op_listxattrs(struct nfs42_compound *c, uint64_t cookie,
			uint32_t maxcount)
{
	int idx = op_begin(c, OP_LISTXATTRS);

	nfs42_xdr_put_u64(&c->ops, cookie);
	nfs42_xdr_put_u32(&c->ops, maxcount);
	return op_end(c, idx);
}

int nfs42_op_removexattr(struct nfs42_compound *c, const char *name)
{
	return op_name(c, OP_REMOVEXATTR, name);
}

/* ------------------------------------------------------------ decoders */

static bool get_cinfo(struct nfs42_xdr *x, struct nfs42_cinfo *ci)
{
	nfs42_xdr_get_bool(x, &ci->atomic);
	nfs42_xdr_get_u64(x, &ci->before);
	return nfs42_xdr_get_u64(x, &ci->after);
}

static bool get_fh(struct nfs42_xdr *x, struct nfs42_fh *fh)
{
	return nfs42_xdr_get_opaque(x, fh->data, &fh->len, NFS4_FHSIZE);
}

static bool dec_getattr(struct nfs42_compound *c, struct nfs42_xdr *x,
			struct nfs42_res *r)
{
	r->u.getattr = nfs42_arena_alloc(c, sizeof(*r->u.getattr));
	if (!r->u.getattr)
		return nfs42_xdr_fail(x);
	return nfs42_fattr_decode(x, r->u.getattr) == 0;
}

static bool dec_lock_denied(struct nfs42_compound *c, struct nfs42_xdr *x,
			    struct nfs42_res *r)
{
	struct nfs42_lock_denied *d = nfs42_arena_alloc(c, sizeof(*d));

	if (!d)
		return nfs42_xdr_fail(x);
	r->u.lock.denied = d;
	nfs42_xdr_get_u64(x, &d->offset);
	nfs42_xdr_get_u64(x, &d->length);
	nfs42_xdr_get_u32(x, &d->locktype);
	nfs42_xdr_get_u64(x, &d->clientid);
	return nfs42_xdr_get_opaque(x, d->owner, &d->owner_len,
				    sizeof(d->owner));
}

static bool skip_nfsace(struct nfs42_xdr *x)
{
	return nfs42_xdr_skip(x, 12) && nfs42_xdr_skip_opaque(x);
}

static bool dec_delegation(struct nfs42_xdr *x, struct nfs42_res *r)
{
	uint32_t v;
	bool b;

	if (!nfs42_xdr_get_u32(x, &r->u.open.deleg_type))
		return false;
	switch (r->u.open.deleg_type) {
	case 0: /* OPEN_DELEGATE_NONE */
		return true;
	case 1: /* OPEN_DELEGATE_READ */
	case 4: /* OPEN_DELEGATE_READ_ATTRS_DELEG (RFC 9754) */
		nfs42_decode_stateid(x, &r->u.open.deleg_stateid);
		nfs42_xdr_get_bool(x, &r->u.open.deleg_recall);
		return skip_nfsace(x);
	case 2: /* OPEN_DELEGATE_WRITE */
	case 5: /* OPEN_DELEGATE_WRITE_ATTRS_DELEG (RFC 9754) */
		nfs42_decode_stateid(x, &r->u.open.deleg_stateid);
		nfs42_xdr_get_bool(x, &r->u.open.deleg_recall);
		if (!nfs42_xdr_get_u32(x, &v))
			return false;
		if (v == 1)
			nfs42_xdr_skip(x, 8); /* NFS_LIMIT_SIZE */
		else if (v == 2)
			nfs42_xdr_skip(x, 8); /* NFS_LIMIT_BLOCKS */
		else
			return nfs42_xdr_fail(x);
		return skip_nfsace(x);
	case 3: /* OPEN_DELEGATE_NONE_EXT */
		if (!nfs42_xdr_get_u32(x, &r->u.open.why_no_deleg))
			return false;
		if (r->u.open.why_no_deleg == 1 || r->u.open.why_no_deleg == 2)
			return nfs42_xdr_get_bool(x, &b);
		return true;
	default:
		return nfs42_xdr_fail(x);
	}
}

static bool dec_open(struct nfs42_xdr *x, struct nfs42_res *r)
{
	nfs42_decode_stateid(x, &r->u.open.stateid);
	get_cinfo(x, &r->u.open.cinfo);
	nfs42_xdr_get_u32(x, &r->u.open.rflags);
	nfs42_bitmap_decode(x, &r->u.open.attrset);
	return !x->err && dec_delegation(x, r);
}

static bool dec_readdir(struct nfs42_compound *c, struct nfs42_xdr *x,
			struct nfs42_res *r)
{
	struct nfs42_dirent *ents = NULL, *e, *n;
	uint32_t cap = 0, cnt = 0, len;
	const uint8_t *name;
	size_t start = x->pos, entry_start;
	bool follows;
	bool ok = false;

	nfs42_xdr_get_fixed(x, r->u.readdir.cookieverf, NFS4_VERIFIER_SIZE);
	for (;;) {
		entry_start = x->pos;
		if (!nfs42_xdr_get_bool(x, &follows) || !follows)
			break;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 64;
			n = realloc(ents, cap * sizeof(*ents));
			if (!n)
				goto out;
			ents = n;
		}
		e = &ents[cnt];
		nfs42_xdr_get_u64(x, &e->cookie);
		if (!nfs42_xdr_get_opaque_ref(x, &name, &len, 65535))
			goto out;
		e->name = nfs42_arena_alloc(c, len + 1);
		if (!e->name)
			goto out;
		memcpy(e->name, name, len);
		e->name[len] = '\0';
		if (nfs42_fattr_decode(x, &e->attrs))
			goto out;
		e->xdr_len = (uint32_t)(x->pos - entry_start);
		cnt++;
	}
	if (!nfs42_xdr_get_bool(x, &r->u.readdir.eof))
		goto out;
	r->u.readdir.resok_len = (uint32_t)(x->pos - start);
	r->u.readdir.entries = nfs42_arena_alloc(c, cnt * sizeof(*ents) + 1);
	if (!r->u.readdir.entries)
		goto out;
	if (cnt)
		memcpy(r->u.readdir.entries, ents, cnt * sizeof(*ents));
	r->u.readdir.n = cnt;
	ok = true;
out:
	free(ents);
	return ok ? true : nfs42_xdr_fail(x);
}

static bool dec_readlink(struct nfs42_compound *c, struct nfs42_xdr *x,
			 struct nfs42_res *r)
{
	const uint8_t *p;
	uint32_t len;

	if (!nfs42_xdr_get_opaque_ref(x, &p, &len, 65535))
		return false;
	r->u.readlink.link = nfs42_arena_alloc(c, len + 1);
	if (!r->u.readlink.link)
		return nfs42_xdr_fail(x);
	memcpy(r->u.readlink.link, p, len);
	r->u.readlink.link[len] = '\0';
	r->u.readlink.len = len;
	return true;
}

static bool dec_read_plus(struct nfs42_compound *c, struct nfs42_xdr *x,
			  struct nfs42_res *r)
{
	struct nfs42_rp_seg *s;
	uint32_t i, n, len;

	nfs42_xdr_get_bool(x, &r->u.read_plus.eof);
	if (!nfs42_xdr_get_u32(x, &n))
		return false;
	if (n > nfs42_xdr_remaining(x) / 12)
		return nfs42_xdr_fail(x);
	s = nfs42_arena_alloc(c, (size_t)n * sizeof(*s) + 1);
	if (!s)
		return nfs42_xdr_fail(x);
	r->u.read_plus.segs = s;
	for (i = 0; i < n; i++, s++) {
		nfs42_xdr_get_u32(x, &s->type);
		nfs42_xdr_get_u64(x, &s->offset);
		if (s->type == NFS4_CONTENT_DATA) {
			nfs42_xdr_get_opaque_ref(x, &s->data, &len, UINT32_MAX);
			s->length = len;
		} else if (s->type == NFS4_CONTENT_HOLE) {
			nfs42_xdr_get_u64(x, &s->length);
		} else {
			return nfs42_xdr_fail(x);
		}
		if (x->err)
			return false;
		r->u.read_plus.n = i + 1;
	}
	return true;
}

static bool dec_listxattrs(struct nfs42_compound *c, struct nfs42_xdr *x,
			   struct nfs42_res *r)
{
	const uint8_t *p;
	uint32_t i, n, len;
	char **names;

	nfs42_xdr_get_u64(x, &r->u.listxattrs.cookie);
	if (!nfs42_xdr_get_u32(x, &n))
		return false;
	if (n > nfs42_xdr_remaining(x) / 4)
		return nfs42_xdr_fail(x);
	names = nfs42_arena_alloc(c, (size_t)n * sizeof(*names) + 1);
	if (!names)
		return nfs42_xdr_fail(x);
	r->u.listxattrs.names = names;
	for (i = 0; i < n; i++) {
		if (!nfs42_xdr_get_opaque_ref(x, &p, &len, 65535))
			return false;
		names[i] = nfs42_arena_alloc(c, (size_t)len + 1);
		if (!names[i])
			return nfs42_xdr_fail(x);
		memcpy(names[i], p, len);
		names[i][len] = '\0';
		r->u.listxattrs.n = i + 1;
	}
	return nfs42_xdr_get_bool(x, &r->u.listxattrs.eof);
}

static bool dec_copy(struct nfs42_xdr *x, struct nfs42_res *r)
{
	uint32_t n;

	if (r->status == NFS4_OK) {
		if (!nfs42_xdr_get_u32(x, &n))
			return false;
		if (n > 1)
			return nfs42_xdr_fail(x);
		r->u.copy.has_callback_id = n;
		if (n)
			nfs42_decode_stateid(x, &r->u.copy.callback_id);
		nfs42_xdr_get_u64(x, &r->u.copy.count);
		nfs42_xdr_get_u32(x, &r->u.copy.committed);
		nfs42_xdr_get_fixed(x, r->u.copy.verf, NFS4_VERIFIER_SIZE);
	}
	nfs42_xdr_get_bool(x, &r->u.copy.consecutive);
	return nfs42_xdr_get_bool(x, &r->u.copy.synchronous);
}

static bool dec_offload_status(struct nfs42_xdr *x, struct nfs42_res *r)
{
	uint32_t n;

	nfs42_xdr_get_u64(x, &r->u.offload_status.count);
	if (!nfs42_xdr_get_u32(x, &n))
		return false;
	if (n > 1)
		return nfs42_xdr_fail(x);
	r->u.offload_status.has_complete = n;
	if (n)
		nfs42_xdr_get_u32(x, &r->u.offload_status.complete);
	return !x->err;
}

static bool dec_chan_attrs(struct nfs42_xdr *x, uint32_t *maxreq,
			   uint32_t *maxresp, uint32_t *cached,
			   uint32_t *maxops, uint32_t *maxreqs)
{
	uint32_t pad, n, ird;

	nfs42_xdr_get_u32(x, &pad);
	nfs42_xdr_get_u32(x, maxreq);
	nfs42_xdr_get_u32(x, maxresp);
	nfs42_xdr_get_u32(x, cached);
	nfs42_xdr_get_u32(x, maxops);
	nfs42_xdr_get_u32(x, maxreqs);
	if (!nfs42_xdr_get_u32(x, &n))
		return false;
	if (n > 1)
		return nfs42_xdr_fail(x);
	if (n)
		nfs42_xdr_get_u32(x, &ird);
	return !x->err;
}

static bool dec_create_session(struct nfs42_xdr *x, struct nfs42_res *r)
{
	uint32_t dummy;

	nfs42_xdr_get_fixed(x, r->u.create_session.sessionid,
			    NFS4_SESSIONID_SIZE);
	nfs42_xdr_get_u32(x, &r->u.create_session.seqid);
	nfs42_xdr_get_u32(x, &r->u.create_session.flags);
	dec_chan_attrs(x, &r->u.create_session.fore_maxreq,
		       &r->u.create_session.fore_maxresp,
		       &r->u.create_session.fore_maxresp_cached,
		       &r->u.create_session.fore_maxops,
		       &r->u.create_session.fore_maxreqs);
	return dec_chan_attrs(x, &r->u.create_session.back_maxreq,
			      &r->u.create_session.back_maxresp, &dummy,
			      &r->u.create_session.back_maxops,
			      &r->u.create_session.back_maxreqs);
}

static bool dec_exchange_id(struct nfs42_xdr *x, struct nfs42_res *r)
{
	struct nfs42_bitmap bm;
	uint32_t n, i;

	nfs42_xdr_get_u64(x, &r->u.exchange_id.clientid);
	nfs42_xdr_get_u32(x, &r->u.exchange_id.seqid);
	nfs42_xdr_get_u32(x, &r->u.exchange_id.flags);
	if (!nfs42_xdr_get_u32(x, &r->u.exchange_id.spa_how))
		return false;
	if (r->u.exchange_id.spa_how == 1) { /* SP4_MACH_CRED */
		nfs42_bitmap_decode(x, &bm);
		nfs42_bitmap_decode(x, &bm);
	} else if (r->u.exchange_id.spa_how != 0) {
		return nfs42_xdr_fail(x); /* SP4_SSV: not supported */
	}
	nfs42_xdr_get_u64(x, &r->u.exchange_id.minor_id);
	nfs42_xdr_get_string(x, r->u.exchange_id.major_id,
			     sizeof(r->u.exchange_id.major_id));
	nfs42_xdr_get_string(x, r->u.exchange_id.scope,
			     sizeof(r->u.exchange_id.scope));
	if (!nfs42_xdr_get_u32(x, &n))
		return false;
	if (n > 1)
		return nfs42_xdr_fail(x);
	for (i = 0; i < n; i++) { /* nfs_impl_id4 */
		nfs42_xdr_skip_opaque(x);
		nfs42_xdr_skip_opaque(x);
		nfs42_xdr_skip(x, 12);
	}
	return !x->err;
}

static bool dec_sequence(struct nfs42_xdr *x, struct nfs42_res *r)
{
	nfs42_xdr_get_fixed(x, r->u.sequence.sessionid, NFS4_SESSIONID_SIZE);
	nfs42_xdr_get_u32(x, &r->u.sequence.seqid);
	nfs42_xdr_get_u32(x, &r->u.sequence.slot);
	nfs42_xdr_get_u32(x, &r->u.sequence.highest_slot);
	nfs42_xdr_get_u32(x, &r->u.sequence.target_highest_slot);
	return nfs42_xdr_get_u32(x, &r->u.sequence.status_flags);
}

static bool dec_test_stateid(struct nfs42_xdr *x, struct nfs42_res *r)
{
	uint32_t i, st;

	if (!nfs42_xdr_get_u32(x, &r->u.test_stateid.n))
		return false;
	for (i = 0; i < r->u.test_stateid.n && !x->err; i++) {
		nfs42_xdr_get_u32(x, &st);
		if (i < NFS42_TEST_STATEID_MAX)
			r->u.test_stateid.status[i] = st;
	}
	return !x->err;
}

/* Body of a successful result. */
static bool dec_layoutget(struct nfs42_xdr *x, struct nfs42_res *r)
{
	uint32_t n, i;

	nfs42_xdr_get_bool(x, &r->u.layoutget.return_on_close);
	nfs42_decode_stateid(x, &r->u.layoutget.stateid);
	if (!nfs42_xdr_get_u32(x, &n))
		return false;
	if (n == 0 || n > 64) /* a layout, and sane */
		return nfs42_xdr_fail(x);
	r->u.layoutget.n = n;
	for (i = 0; i < n; i++) {
		uint64_t off, len;
		uint32_t iomode, type;
		const uint8_t *body;
		uint32_t blen;

		nfs42_xdr_get_u64(x, &off);
		nfs42_xdr_get_u64(x, &len);
		nfs42_xdr_get_u32(x, &iomode);
		nfs42_xdr_get_u32(x, &type);
		if (!nfs42_xdr_get_opaque_ref(x, &body, &blen, 1u << 20))
			return false;
		if (i == 0) {
			r->u.layoutget.offset = off;
			r->u.layoutget.length = len;
			r->u.layoutget.iomode = iomode;
			r->u.layoutget.type = type;
			r->u.layoutget.body = body;
			r->u.layoutget.body_len = blen;
		}
	}
	return true;
}

static bool dec_getdeviceinfo(struct nfs42_xdr *x, struct nfs42_res *r)
{
	struct nfs42_bitmap notify;

	nfs42_xdr_get_u32(x, &r->u.getdeviceinfo.type);
	if (!nfs42_xdr_get_opaque_ref(x, &r->u.getdeviceinfo.body,
				      &r->u.getdeviceinfo.body_len, 1u << 20))
		return false;
	return nfs42_bitmap_decode(x, &notify);
}

static bool dec_getdevicelist(struct nfs42_xdr *x, struct nfs42_res *r)
{
	uint32_t n, i;
	uint8_t id[NFS4_DEVICEID4_SIZE];

	nfs42_xdr_get_u64(x, &r->u.getdevicelist.cookie);
	nfs42_xdr_get_fixed(x, r->u.getdevicelist.verf, NFS4_VERIFIER_SIZE);
	if (!nfs42_xdr_get_u32(x, &n))
		return false;
	if (n > nfs42_xdr_remaining(x) / NFS4_DEVICEID4_SIZE)
		return nfs42_xdr_fail(x);
	r->u.getdevicelist.n = n;
	for (i = 0; i < n; i++) {
		if (!nfs42_xdr_get_fixed(x, id, sizeof(id)))
			return false;
		if (i < NFS42_DEVLIST_MAX)
			memcpy(r->u.getdevicelist.ids[i], id, sizeof(id));
	}
	return nfs42_xdr_get_bool(x, &r->u.getdevicelist.eof);
}

static bool dec_layoutcommit(struct nfs42_xdr *x, struct nfs42_res *r)
{
	if (!nfs42_xdr_get_bool(x, &r->u.layoutcommit.size_changed))
		return false;
	if (r->u.layoutcommit.size_changed)
		return nfs42_xdr_get_u64(x, &r->u.layoutcommit.size);
	return true;
}

static bool dec_layoutreturn(struct nfs42_xdr *x, struct nfs42_res *r)
{
	if (!nfs42_xdr_get_bool(x, &r->u.layoutreturn.present))
		return false;
	if (r->u.layoutreturn.present)
		return nfs42_decode_stateid(x, &r->u.layoutreturn.stateid);
	return true;
}

static bool dec_ok_body(struct nfs42_compound *c, struct nfs42_xdr *x,
			struct nfs42_res *r)
{
	switch (r->op) {
	case OP_PUTFH:
	case OP_PUTROOTFH:
	case OP_PUTPUBFH:
	case OP_LOOKUP:
	case OP_LOOKUPP:
	case OP_SAVEFH:
	case OP_RESTOREFH:
	case OP_DESTROY_SESSION:
	case OP_DESTROY_CLIENTID:
	case OP_BACKCHANNEL_CTL:
	case OP_RECLAIM_COMPLETE:
	case OP_ALLOCATE:
	case OP_DEALLOCATE:
	case OP_CLONE:
	case OP_OFFLOAD_CANCEL:
	case OP_DELEGRETURN:
	case OP_FREE_STATEID:
	case OP_RELEASE_LOCKOWNER:
	case OP_ILLEGAL:
	case OP_VERIFY:
	case OP_NVERIFY:
		return true;
	case OP_ACCESS:
		nfs42_xdr_get_u32(x, &r->u.access.supported);
		return nfs42_xdr_get_u32(x, &r->u.access.access);
	case OP_CLOSE:
	case OP_LOCKU:
	case OP_OPEN_DOWNGRADE:
		return nfs42_decode_stateid(x, &r->u.stateid);
	case OP_COMMIT:
		return nfs42_xdr_get_fixed(x, r->u.commit.verf,
					   NFS4_VERIFIER_SIZE);
	case OP_CREATE:
		get_cinfo(x, &r->u.create.cinfo);
		return nfs42_bitmap_decode(x, &r->u.create.attrset);
	case OP_GETATTR:
		return dec_getattr(c, x, r);
	case OP_GETFH:
		return get_fh(x, &r->u.fh);
	case OP_LINK:
	case OP_REMOVE:
		return get_cinfo(x, &r->u.cinfo);
	case OP_LOCK:
		return nfs42_decode_stateid(x, &r->u.lock.stateid);
	case OP_LOCKT:
		return true;
	case OP_OPEN:
		return dec_open(x, r);
	case OP_READ:
		nfs42_xdr_get_bool(x, &r->u.read.eof);
		return nfs42_xdr_get_opaque_ref(x, &r->u.read.data,
						&r->u.read.len, UINT32_MAX);
	case OP_READDIR:
		return dec_readdir(c, x, r);
	case OP_READLINK:
		return dec_readlink(c, x, r);
	case OP_RENAME:
		get_cinfo(x, &r->u.rename.source);
		return get_cinfo(x, &r->u.rename.target);
	case OP_WRITE:
		nfs42_xdr_get_u32(x, &r->u.write.count);
		nfs42_xdr_get_u32(x, &r->u.write.committed);
		return nfs42_xdr_get_fixed(x, r->u.write.verf,
					   NFS4_VERIFIER_SIZE);
	case OP_SEEK:
		nfs42_xdr_get_bool(x, &r->u.seek.eof);
		return nfs42_xdr_get_u64(x, &r->u.seek.offset);
	case OP_TEST_STATEID:
		return dec_test_stateid(x, r);
	case OP_SEQUENCE:
		return dec_sequence(x, r);
	case OP_EXCHANGE_ID:
		return dec_exchange_id(x, r);
	case OP_CREATE_SESSION:
		return dec_create_session(x, r);
	case OP_COPY:
		return dec_copy(x, r);
	case OP_OFFLOAD_STATUS:
		return dec_offload_status(x, r);
	case OP_READ_PLUS:
		return dec_read_plus(c, x, r);
	case OP_GETXATTR:
		return nfs42_xdr_get_opaque_ref(x, &r->u.getxattr.data,
						&r->u.getxattr.len, UINT32_MAX);
	case OP_SETXATTR:
	case OP_REMOVEXATTR:
		return get_cinfo(x, &r->u.xattr_cinfo);
	case OP_LISTXATTRS:
		return dec_listxattrs(c, x, r);
	case OP_LAYOUTGET:
		return dec_layoutget(x, r);
	case OP_GETDEVICEINFO:
		return dec_getdeviceinfo(x, r);
	case OP_GETDEVICELIST:
		return dec_getdevicelist(x, r);
	case OP_LAYOUTCOMMIT:
		return dec_layoutcommit(x, r);
	case OP_LAYOUTRETURN:
		return dec_layoutreturn(x, r);
	default:
		return false; /* unknown: caller keeps the raw rest */
	}
}

/*
 * Decode one nfs_resop4.  Returns 0, 1 when the op is unknown (raw rest
 * kept, decoding must stop), or < 0 for malformed input.
 */
int nfs42_decode_res(struct nfs42_compound *c, struct nfs42_xdr *x,
		     struct nfs42_res *r)
{
	memset(r, 0, sizeof(*r));
	nfs42_xdr_get_u32(x, &r->op);
	if (!nfs42_xdr_get_u32(x, &r->status))
		return x->err;
	/* results that carry a body on error */
	if (r->op == OP_SETATTR)
		return nfs42_bitmap_decode(x, &r->u.setattr) ? 0 : x->err;
	if (r->status == NFS4ERR_DENIED &&
	    (r->op == OP_LOCK || r->op == OP_LOCKT))
		return dec_lock_denied(c, x, r) ? 0 : x->err;
	if (r->status == NFS4ERR_OFFLOAD_NO_REQS && r->op == OP_COPY)
		return dec_copy(x, r) ? 0 : x->err;
	if (r->status == NFS4ERR_LAYOUTTRYLATER && r->op == OP_LAYOUTGET)
		return nfs42_xdr_get_bool(x, &r->u.layoutget.will_signal) ?
			       0 :
			       x->err;
	if (r->status == NFS4ERR_TOOSMALL && r->op == OP_GETDEVICEINFO)
		return nfs42_xdr_get_u32(x, &r->u.getdeviceinfo.mincount) ?
			       0 :
			       x->err;
	if (r->status != NFS4_OK)
		return 0;
	if (dec_ok_body(c, x, r))
		return 0;
	if (x->err)
		return x->err;
	r->u.raw.data = nfs42_xdr_cursor(x);
	r->u.raw.len = nfs42_xdr_remaining(x);
	return 1;
}
