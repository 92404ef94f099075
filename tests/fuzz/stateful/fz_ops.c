/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * The grammar: every NFSv4.0/4.1/4.2 operation the server implements,
 * with arguments drawn from what the sequence holds (file handles,
 * stateids of every kind, actor and generation, names) and from value
 * shapes (fz_u32, fz_u64).  One function per operation appends it to a
 * compound and records, for the stateful ones, what to learn from the
 * result (struct fz_rec).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fz_gen.h"
#include "internal.h"

/* ------------------------------------------------------------ choices */

static const char *const weird_names[] = {
	"",
	".",
	"..",
	"a/b",
	"\xff\xfe",
	"user.x",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
};

const char *fz_pick_name(struct fz_gen *g, int *file)
{
	struct fz_seq *s = g->s;
	static char buf[16];
	uint32_t r = fz_below(g->r, 100);

	*file = -1;
	if (g->sane && s->nregular && fz_chance(g->r, 90)) {
		*file = (int)fz_below(g->r, s->nregular);
		return s->files[*file].name;
	}
	if (r < 65 && s->nfiles) {
		*file = (int)fz_below(g->r, s->nfiles);
		return s->files[*file].name;
	}
	if (r < 88) {
		snprintf(buf, sizeof(buf), "n%u", fz_below(g->r, 4));
		return buf;
	}
	return weird_names[fz_below(g->r, sizeof(weird_names) /
						  sizeof(weird_names[0]))];
}

static void mutate_fh(struct fz_gen *g, struct nfs42_fh *fh)
{
	switch (fz_below(g->r, 5)) {
	case 0:
		if (fh->len)
			fh->data[fz_below(g->r, fh->len)] ^=
				(uint8_t)(1u << fz_below(g->r, 8));
		break;
	case 1:
		fh->len = fz_below(g->r, fh->len + 1);
		break;
	case 2:
		fh->len = NFS4_FHSIZE;
		break;
	case 3:
		fh->len = 0;
		break;
	default:
		for (uint32_t i = 0; i < fh->len; i++)
			fh->data[i] = (uint8_t)fz_next(g->r);
	}
}

/* A file handle: a file's, the directory's, the root's, a data server's,
 * an NFSv3 one, or one of them damaged. *file: which file, -1 none known,
 * FZ_DIR the sequence's directory. */
void fz_pick_fh(struct fz_gen *g, struct nfs42_fh *fh, int *file)
{
	struct fz_seq *s = g->s;
	uint32_t r = fz_below(g->r, 100), i;

	*file = -1;
	if (g->sane && s->nregular && fz_chance(g->r, 85)) {
		i = fz_below(g->r, s->nregular);
		if (s->files[i].have_fh) {
			*fh = s->files[i].fh;
			*file = (int)i;
			return;
		}
	}
	if (g->sane)
		r = 58 + fz_below(g->r, 14);
	if (r < 58 && s->nfiles) {
		i = fz_below(g->r, s->nfiles);
		if (s->files[i].have_fh) {
			*fh = s->files[i].fh;
			*file = (int)i;
			return;
		}
	}
	if (r < 72) {
		*fh = s->dir_fh;
		*file = FZ_DIR;
		return;
	}
	if (r < 80 && s->ndsfh) {
		i = fz_below(g->r, s->ndsfh);
		*fh = s->dsfh[i];
		return;
	}
	if (r < 84) {
		*fh = s->root_fh;
		return;
	}
	if (r < 88 && s->nfiles) {
		struct fz_file *f = &s->files[fz_below(g->r, s->nfiles)];

		if (f->have_fh3) {
			fh->len = f->fh3.len;
			memcpy(fh->data, f->fh3.data, f->fh3.len);
			return;
		}
	}
	*fh = s->nfiles ? s->files[fz_below(g->r, s->nfiles)].fh : s->dir_fh;
	mutate_fh(g, fh);
}

/* "actor 1's delegation stateid of f2" into g->pick_desc */
static void describe_sid(struct fz_gen *g, int i, const char *how)
{
	static const char *const kinds[] = { "open",   "lock", "delegation",
					     "layout", "copy", "special" };
	const struct fz_sid *e = &g->s->sids[i];

	snprintf(g->pick_desc, sizeof(g->pick_desc),
		 "actor %d's %s stateid of %s%s%s", e->actor, kinds[e->kind],
		 e->file >= 0 && e->file < (int)g->s->nfiles ?
			 g->s->files[e->file].name :
			 "an unknown file",
		 e->gone ? " (closed/returned)" : "", how);
}

static const struct nfs42_stateid special_sids[] = {
	{ 0, { 0 } }, /* anonymous */
	{ 0xffffffffu,
	  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0xff } }, /* read bypass */
	{ 1, { 0 } }, /* current */
	{ 0xffffffffu, { 0 } }, /* invalid */
};

static bool sid_wanted(const struct fz_sid *e, unsigned int kinds)
{
	return kinds & (1u << e->kind);
}

/*
 * A stateid: mostly one of the actor's own for this file (of a wanted
 * kind), else any of the pool (another client's, another file's, another
 * kind, an old generation or incarnation), a special one, one of them
 * with its seqid or other changed, or random bytes.  Returns the pool
 * index, -1 when it is none of the pool's as it stands.
 */
int fz_pick_sid(struct fz_gen *g, int file, unsigned int kinds,
		struct nfs42_stateid *out)
{
	struct fz_seq *s = g->s;
	int cand[FZ_MAX_SIDS];
	unsigned int n = 0, i;
	uint32_t r = fz_below(g->r, 100);
	const struct fz_sid *e;

	g->pick_desc[0] = 0;
	g->pick_owner = -1;
	if (g->sane)
		r = r < 85 ? 0 : r;
	if (r < 50) {
		for (i = 0; i < s->nsids; i++) {
			e = &s->sids[i];
			if (e->actor == g->a->id && !e->gone &&
			    e->incarnation == g->a->incarnation &&
			    (file < 0 || e->file == file) &&
			    sid_wanted(e, kinds))
				cand[n++] = (int)i;
		}
		if (n) {
			i = (unsigned int)cand[fz_below(g->r, n)];
			*out = s->sids[i].sid;
			g->pick_owner = s->sids[i].actor;
			return (int)i;
		}
		/* none yet: open it first in this compound and use the
		 * current stateid (RFC 8881 16.2.3.1.2) */
		if (g->sane && file >= 0 && file == g->cur &&
		    file < (int)s->nregular && !g->opened_cur &&
		    fz_chance(g->r, 80))
			fz_gen_open_cur(g);
		if (g->sane && g->opened_cur && fz_chance(g->r, 90)) {
			*out = special_sids[2];
			snprintf(g->pick_desc, sizeof(g->pick_desc),
				 "the current stateid");
			return -1;
		}
		r = 50 + fz_below(g->r, 50);
	}
	if (r < 75 && s->nsids) {
		i = fz_below(g->r, s->nsids);
		*out = s->sids[i].sid;
		g->pick_owner = s->sids[i].actor;
		return (int)i;
	}
	if (r < 86 || !s->nsids) {
		static const char *const names[] = { "anonymous", "read-bypass",
						     "current", "invalid" };

		i = fz_below(g->r, 4);
		*out = special_sids[i];
		snprintf(g->pick_desc, sizeof(g->pick_desc),
			 "the %s special stateid", names[i]);
		return -1;
	}
	if (r < 96) {
		i = fz_below(g->r, s->nsids);
		*out = s->sids[i].sid;
		g->pick_owner = s->sids[i].actor;
		describe_sid(g, (int)i, " changed");
		switch (fz_below(g->r, 4)) {
		case 0:
			out->seqid++;
			break;
		case 1:
			out->seqid--;
			break;
		case 2:
			out->seqid = (uint32_t)boundary_pick(g);
			break;
		default:
			out->other[fz_below(g->r, NFS4_OTHER_SIZE)] ^=
				(uint8_t)(1u << fz_below(g->r, 8));
			/* another "other" may be anybody's, the actor's too */
			g->pick_owner = -1;
		}
		return -1;
	}
	out->seqid = (uint32_t)fz_next(g->r);
	for (i = 0; i < NFS4_OTHER_SIZE; i++)
		out->other[i] = (uint8_t)fz_next(g->r);
	snprintf(g->pick_desc, sizeof(g->pick_desc), "a random stateid");
	return -1;
}

uint64_t boundary_pick(struct fz_gen *g)
{
	return fz_u32(g->r);
}

static void pick_bitmap(struct fz_gen *g, struct nfs42_bitmap *bm)
{
	uint32_t i;

	switch (fz_below(g->r, 4)) {
	case 0:
		*bm = nfs42_bm_stat();
		return;
	case 1:
		bm->n = 1 + fz_below(g->r, NFS42_BITMAP_WORDS);
		for (i = 0; i < bm->n; i++)
			bm->w[i] = 0xffffffffu;
		return;
	default:
		bm->n = fz_below(g->r, NFS42_BITMAP_WORDS + 1);
		for (i = 0; i < bm->n; i++)
			bm->w[i] = (uint32_t)fz_next(g->r) &
				   (uint32_t)fz_next(g->r);
	}
}

static void pick_sattr(struct fz_gen *g, struct nfs42_sattr *sa, bool *size,
		       bool *attrs)
{
	static const char *const owners[] = {
		"0", "1000",	  "1001", "nobody", "root@localdomain",
		"",  "4294967295"
	};
	static const uint32_t modes[] = { 0644, 0600, 0666,  0444, 0640,
					  0755, 0777, 04755, 0 };
	struct nfs42_time t;

	nfs42_sattr_init(sa);
	*size = *attrs = false;
	if (fz_chance(g->r, 45)) {
		nfs42_sattr_size(sa, fz_chance(g->r, 60) ?
					     fz_below(g->r, 128 * 1024) :
					     fz_u64(g->r));
		*size = true;
	}
	if (fz_chance(g->r, 35)) {
		nfs42_sattr_mode(sa, fz_chance(g->r, 80) ?
					     modes[fz_below(g->r, 9)] :
					     fz_u32(g->r));
		*attrs = true;
	}
	if (fz_chance(g->r, 12)) {
		nfs42_sattr_owner(sa, owners[fz_below(g->r, 7)]);
		*attrs = true;
	}
	if (fz_chance(g->r, 10)) {
		nfs42_sattr_group(sa, owners[fz_below(g->r, 7)]);
		*attrs = true;
	}
	if (fz_chance(g->r, 12)) {
		t.seconds = (int64_t)fz_u64(g->r);
		t.nseconds = fz_u32(g->r);
		nfs42_sattr_mtime(sa, fz_chance(g->r, 50) ? &t : NULL);
		*attrs = true;
	}
	if (fz_chance(g->r, 8)) {
		nfs42_sattr_atime(sa, NULL);
		*attrs = true;
	}
}

/* ------------------------------------------------------------ records */

struct fz_rec *fz_record(struct fz_gen *g, int idx, uint32_t op, int file)
{
	struct fz_rec *rec;

	if (idx < 0 || g->nrec >= FZ_MAX_RECORDED)
		return NULL;
	rec = &g->rec[g->nrec++];
	memset(rec, 0, sizeof(*rec));
	rec->idx = idx;
	rec->op = op;
	rec->file = file;
	rec->sid = -1;
	rec->claim_sid = -1;
	rec->getfh = -1;
	snprintf(rec->sid_desc, sizeof(rec->sid_desc), "%s", g->pick_desc);
	rec->sid_owner = g->pick_owner;
	return rec;
}

/* The current filehandle moved to a file of ours (or FZ_DIR, or -1). */
static void set_cur(struct fz_gen *g, int file)
{
	if (file != g->cur)
		g->opened_cur = false;
	g->cur = file;
}

static int raw_op(struct fz_gen *g, struct nfs42_xdr *x, uint32_t op)
{
	int idx = nfs42_op_raw(g->c, op, x->buf, x->len);

	nfs42_xdr_free(x);
	return idx;
}

static void raw_begin(struct nfs42_xdr *x, uint32_t op)
{
	nfs42_xdr_enc_init(x);
	nfs42_xdr_put_u32(x, op);
}

static void put_sid(struct nfs42_xdr *x, const struct nfs42_stateid *sid)
{
	nfs42_xdr_put_u32(x, sid->seqid);
	nfs42_xdr_put_fixed(x, sid->other, NFS4_OTHER_SIZE);
}

/* The directory current for name ops (inserted PUTFH when needed). */
static void want_dir(struct fz_gen *g)
{
	if (g->cur != FZ_DIR && (g->sane || fz_chance(g->r, 80))) {
		nfs42_op_putfh(g->c, &g->s->dir_fh);
		set_cur(g, FZ_DIR);
	}
}

/* A file of ours current (inserted PUTFH when needed). */
static void want_file(struct fz_gen *g)
{
	struct nfs42_fh fh;
	int file;

	if ((g->cur < 0 || g->cur == FZ_DIR || g->cur >= (int)g->s->nregular) &&
	    (g->sane || fz_chance(g->r, 85))) {
		fz_pick_fh(g, &fh, &file);
		nfs42_op_putfh(g->c, &fh);
		set_cur(g, file);
	}
}

static uint32_t owner_index(struct fz_gen *g)
{
	return fz_below(g->r, FZ_MAX_OPEN_OWNERS);
}

/* ------------------------------------------------------------ ops */

static void gen_putfh(struct fz_gen *g)
{
	struct nfs42_fh fh;
	int file;

	fz_pick_fh(g, &fh, &file);
	nfs42_op_putfh(g->c, &fh);
	set_cur(g, file);
}

void fz_gen_open(struct fz_gen *g)
{
	static const unsigned int claim_w[] = { 30, 8, 9, 6, 24, 15, 8 };
	struct fz_actor *a = g->a;
	struct nfs42_open_args oa;
	struct nfs42_sattr sa;
	struct nfs42_stateid dsid;
	struct fz_rec *rec;
	char owner[32];
	bool size, attrs;
	int file = -1, idx, sidx = -1;
	int owner_id;
	uint32_t oi = owner_index(g);

	memset(&oa, 0, sizeof(oa));
	g->pick_desc[0] = 0;
	g->pick_owner = -1;
	oa.claim = g->sane ? (fz_chance(g->r, 50) ? CLAIM_NULL : CLAIM_FH) :
			     fz_weighted(g->r, claim_w, 7);
	if (oa.claim == CLAIM_NULL || oa.claim == CLAIM_DELEGATE_CUR ||
	    oa.claim == CLAIM_DELEGATE_PREV) {
		want_dir(g);
		oa.name = fz_pick_name(g, &file);
	} else if (oa.claim != CLAIM_PREVIOUS) {
		want_file(g);
		file = g->cur == FZ_DIR ? -1 : g->cur;
	} else {
		file = g->cur == FZ_DIR ? -1 : g->cur;
	}
	if (oa.claim == CLAIM_DELEGATE_CUR || oa.claim == CLAIM_DELEG_CUR_FH)
		sidx = fz_pick_sid(g, file, 1u << SK_DELEG, &dsid);
	oa.deleg_stateid = &dsid;
	oa.delegate_type = fz_below(g->r, 4);
	oa.share_access = 1 + fz_below(g->r, 3);
	oa.share_deny = fz_chance(g->r, g->sane ? 85 : 70) ? 0 :
							     fz_below(g->r, 4);
	if (!g->sane) {
		if (fz_chance(g->r, 25))
			oa.share_access |= fz_below(g->r, 6) << 8;
		if (fz_chance(g->r, 5))
			oa.share_access |= (1 + fz_below(g->r, 3)) << 16;
		if (fz_chance(g->r, 2))
			oa.share_access = fz_u32(g->r);
		if (fz_chance(g->r, 2))
			oa.share_deny = fz_u32(g->r);
	}
	owner_id = fz_chance(g->r, 95) ? a->id : (int)fz_below(g->r, 6);
	snprintf(owner, sizeof(owner), "o%d.%u", owner_id, oi);
	oa.owner = owner;
	oa.owner_len = (uint32_t)strlen(owner);
	if (fz_chance(g->r, 3))
		oa.owner_clientid = fz_next(g->r);
	if (a->kind == FZ_V40) {
		oa.seqid = a->owner_seqid[oi];
		if (fz_chance(g->r, 5))
			oa.seqid += (uint32_t)fz_below(g->r, 5) - 2;
		oa.owner_clientid = a->clientid40;
	}
	switch (oa.claim == CLAIM_FH && g->sane ?
			0 :
			fz_below(g->r, g->sane ? 9 : 12)) {
	case 0 ... 5:
		oa.createmode = NFS42_NOCREATE;
		break;
	case 6 ... 8:
		oa.createmode = UNCHECKED4;
		break;
	case 9:
		oa.createmode = GUARDED4;
		break;
	case 10:
		oa.createmode = EXCLUSIVE4_1;
		break;
	default:
		oa.createmode = EXCLUSIVE4;
	}
	pick_sattr(g, &sa, &size, &attrs);
	if (g->sane) { /* a mode, and a truncation now and then */
		nfs42_sattr_init(&sa);
		nfs42_sattr_mode(&sa, 0600 | (fz_below(g->r, 8) << 3) |
					      fz_below(g->r, 8));
		size = fz_chance(g->r, 20);
		if (size)
			nfs42_sattr_size(&sa, 0);
	}
	oa.attrs = &sa;
	for (int i = 0; i < NFS4_VERIFIER_SIZE; i++)
		oa.verifier[i] = (uint8_t)fz_next(g->r);
	idx = nfs42_op_open(g->c, &oa);
	rec = fz_record(g, idx, OP_OPEN, file);
	/* by name: the GETFH after it says which object was opened */
	if (rec && oa.name)
		rec->getfh = nfs42_op_getfh(g->c);
	if (rec) {
		rec->a = oa.share_access;
		rec->b = oa.claim;
		rec->deny = oa.share_deny;
		rec->owner = (int)oi;
		rec->own_owner = owner_id == a->id;
		rec->seqid = oa.seqid;
		rec->claim_sid = sidx;
		rec->created = oa.createmode != NFS42_NOCREATE &&
			       !fz_file_exists(g->s, file);
		rec->modifies = oa.createmode == UNCHECKED4 && size &&
				sa.size == 0;
	}
	set_cur(g, oa.name ? -1 : file);
}

/* A plain OPEN of the current file (CLAIM_FH), for what follows it. */
void fz_gen_open_cur(struct fz_gen *g)
{
	struct nfs42_open_args oa;
	struct fz_rec *rec;
	char owner[32];
	uint32_t oi = owner_index(g);
	int idx;

	memset(&oa, 0, sizeof(oa));
	g->pick_desc[0] = 0;
	g->pick_owner = -1;
	oa.claim = CLAIM_FH;
	oa.createmode = NFS42_NOCREATE;
	oa.share_access = fz_chance(g->r, 60) ? OPEN4_SHARE_ACCESS_BOTH :
						1 + fz_below(g->r, 2);
	oa.share_deny = fz_chance(g->r, 90) ? 0 : fz_below(g->r, 4);
	snprintf(owner, sizeof(owner), "o%d.%u", g->a->id, oi);
	oa.owner = owner;
	oa.owner_len = (uint32_t)strlen(owner);
	if (g->a->kind == FZ_V40) {
		oa.seqid = g->a->owner_seqid[oi];
		oa.owner_clientid = g->a->clientid40;
	}
	idx = nfs42_op_open(g->c, &oa);
	rec = fz_record(g, idx, OP_OPEN, g->cur);
	if (rec) {
		rec->a = oa.share_access;
		rec->b = CLAIM_FH;
		rec->deny = oa.share_deny;
		rec->owner = (int)oi;
		rec->own_owner = true;
		rec->seqid = oa.seqid;
	}
	g->opened_cur = true;
	g->st->op_count[OP_OPEN]++;
}

static void gen_open_confirm(struct fz_gen *g)
{
	struct nfs42_stateid sid;
	struct nfs42_xdr x;
	struct fz_rec *rec;
	int sidx, idx;
	uint32_t oi = owner_index(g);

	want_file(g);
	sidx = fz_pick_sid(g, g->cur, 1u << SK_OPEN, &sid);
	raw_begin(&x, OP_OPEN_CONFIRM);
	put_sid(&x, &sid);
	nfs42_xdr_put_u32(&x, g->a->owner_seqid[oi]);
	idx = raw_op(g, &x, OP_OPEN_CONFIRM);
	rec = fz_record(g, idx, OP_OPEN_CONFIRM, g->cur);
	if (rec) {
		rec->sid = sidx;
		rec->owner = (int)oi;
		rec->seqid = g->a->owner_seqid[oi];
	}
}

static void gen_close(struct fz_gen *g)
{
	struct nfs42_stateid sid;
	struct fz_rec *rec;
	int sidx, idx;
	uint32_t oi = owner_index(g);

	want_file(g);
	sidx = fz_pick_sid(g, g->cur, 1u << SK_OPEN, &sid);
	idx = nfs42_op_close(g->c, g->a->owner_seqid[oi], &sid);
	rec = fz_record(g, idx, OP_CLOSE, g->cur);
	if (rec) {
		rec->sid = sidx;
		rec->owner = (int)oi;
		rec->seqid = g->a->owner_seqid[oi];
	}
}

static void gen_open_downgrade(struct fz_gen *g)
{
	struct nfs42_stateid sid;
	struct fz_rec *rec;
	int sidx, idx;
	uint32_t oi = owner_index(g), acc, deny;

	want_file(g);
	sidx = fz_pick_sid(g, g->cur, 1u << SK_OPEN, &sid);
	acc = fz_chance(g->r, 90) ? 1 + fz_below(g->r, 3) : fz_u32(g->r);
	deny = fz_chance(g->r, 90) ? fz_below(g->r, 4) : fz_u32(g->r);
	idx = nfs42_op_open_downgrade(g->c, &sid, g->a->owner_seqid[oi], acc,
				      deny);
	rec = fz_record(g, idx, OP_OPEN_DOWNGRADE, g->cur);
	if (rec) {
		rec->sid = sidx;
		rec->a = acc;
		rec->b = deny;
		rec->owner = (int)oi;
		rec->seqid = g->a->owner_seqid[oi];
	}
}

static void gen_write_data(struct fz_gen *g, uint8_t *buf, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)('A' + g->a->id);
}

static void gen_write(struct fz_gen *g)
{
	static uint8_t buf[65536];
	struct nfs42_stateid sid;
	struct fz_rec *rec;
	uint32_t len;
	int sidx, idx;

	want_file(g);
	sidx = fz_pick_sid(g, g->cur,
			   1u << SK_OPEN | 1u << SK_LOCK | 1u << SK_DELEG,
			   &sid);
	len = fz_chance(g->r, 80) ? 1 + fz_below(g->r, 8192) :
				    fz_below(g->r, sizeof(buf) + 1);
	gen_write_data(g, buf, len);
	idx = nfs42_op_write(
		g->c, &sid,
		fz_chance(g->r, 75) ? fz_below(g->r, 256 * 1024) : fz_u64(g->r),
		fz_chance(g->r, 95) ? fz_below(g->r, 3) : fz_u32(g->r), buf,
		len);
	rec = fz_record(g, idx, OP_WRITE, g->cur);
	if (rec) {
		rec->sid = sidx;
		rec->modifies = true;
	}
}

static void gen_read(struct fz_gen *g, uint32_t op)
{
	struct nfs42_stateid sid;
	uint64_t off;
	int sidx;

	want_file(g);
	sidx = fz_pick_sid(g, g->cur,
			   1u << SK_OPEN | 1u << SK_LOCK | 1u << SK_DELEG,
			   &sid);
	off = fz_chance(g->r, 70) ? fz_below(g->r, 128 * 1024) : fz_u64(g->r);
	if (op == OP_READ)
		nfs42_op_read(g->c, &sid, off, fz_u32(g->r));
	else if (op == OP_READ_PLUS)
		nfs42_op_read_plus(g->c, &sid, off, fz_u32(g->r));
	else
		nfs42_op_seek(g->c, &sid, off,
			      fz_chance(g->r, 95) ? fz_below(g->r, 2) :
						    fz_u32(g->r));
	fz_record(g, -1, op, g->cur);
	(void)sidx;
}

static void gen_setattr(struct fz_gen *g)
{
	struct nfs42_stateid sid;
	struct nfs42_sattr sa;
	struct fz_rec *rec;
	bool size, attrs;
	int sidx, idx;

	want_file(g);
	sidx = fz_pick_sid(g, g->cur,
			   1u << SK_OPEN | 1u << SK_LOCK | 1u << SK_DELEG,
			   &sid);
	pick_sattr(g, &sa, &size, &attrs);
	idx = nfs42_op_setattr(g->c, &sid, &sa);
	rec = fz_record(g, idx, OP_SETATTR, g->cur);
	if (rec) {
		rec->sid = sidx;
		rec->modifies = size;
		rec->attr_change = attrs;
	}
}

static void gen_lock(struct fz_gen *g)
{
	struct nfs42_stateid sid;
	struct nfs42_lock_owner lo;
	struct fz_rec *rec;
	char owner[32];
	uint32_t type = fz_chance(g->r, 95) ? 1 + fz_below(g->r, 4) :
					      fz_u32(g->r);
	uint64_t off = fz_u64(g->r), len = fz_u64(g->r);
	int sidx, idx;
	bool new_owner;
	uint32_t open_seqid = 0;

	want_file(g);
	new_owner = fz_chance(g->r, 55);
	if (new_owner) {
		sidx = fz_pick_sid(g, g->cur, 1u << SK_OPEN, &sid);
		snprintf(owner, sizeof(owner), "l%d.%u",
			 fz_chance(g->r, 95) ? g->a->id :
					       (int)fz_below(g->r, 6),
			 fz_below(g->r, 3));
		lo.clientid = g->a->kind == FZ_V40 ? g->a->clientid40 : 0;
		if (fz_chance(g->r, 3))
			lo.clientid = fz_next(g->r);
		lo.owner = owner;
		lo.owner_len = (uint32_t)strlen(owner);
		open_seqid = g->a->owner_seqid[owner_index(g)];
		idx = nfs42_op_lock_new(g->c, type, fz_chance(g->r, 5), off,
					len, open_seqid, &sid, g->a->lock_seqid,
					&lo);
	} else {
		sidx = fz_pick_sid(g, g->cur, 1u << SK_LOCK, &sid);
		idx = nfs42_op_lock_existing(g->c, type, fz_chance(g->r, 5),
					     off, len, &sid, g->a->lock_seqid);
	}
	rec = fz_record(g, idx, OP_LOCK, g->cur);
	if (rec) {
		rec->sid = sidx;
		rec->a = type;
		rec->lock_new_owner = new_owner;
		rec->seqid = open_seqid;
	}
}

static void gen_locku(struct fz_gen *g)
{
	struct nfs42_stateid sid;
	struct fz_rec *rec;
	int sidx, idx;

	want_file(g);
	sidx = fz_pick_sid(g, g->cur, 1u << SK_LOCK, &sid);
	idx = nfs42_op_locku(g->c, 1 + fz_below(g->r, 4), g->a->lock_seqid,
			     &sid, fz_u64(g->r), fz_u64(g->r));
	rec = fz_record(g, idx, OP_LOCKU, g->cur);
	if (rec)
		rec->sid = sidx;
}

static void gen_lockt(struct fz_gen *g)
{
	struct nfs42_lock_owner lo;
	char owner[32];

	want_file(g);
	snprintf(owner, sizeof(owner), "l%u.%u", fz_below(g->r, 6),
		 fz_below(g->r, 3));
	lo.clientid = fz_chance(g->r, 90) ?
			      (g->a->kind == FZ_V40 ? g->a->clientid40 : 0) :
			      fz_next(g->r);
	lo.owner = owner;
	lo.owner_len = (uint32_t)strlen(owner);
	nfs42_op_lockt(g->c, 1 + fz_below(g->r, 4), fz_u64(g->r), fz_u64(g->r),
		       &lo);
}

static void gen_delegreturn(struct fz_gen *g)
{
	struct nfs42_stateid sid;
	struct fz_rec *rec;
	int sidx, idx;

	want_file(g);
	sidx = fz_pick_sid(g, g->cur, 1u << SK_DELEG, &sid);
	idx = nfs42_op_delegreturn(g->c, &sid);
	rec = fz_record(g, idx, OP_DELEGRETURN, g->cur);
	if (rec)
		rec->sid = sidx;
}

static void gen_free_or_test(struct fz_gen *g, uint32_t op)
{
	struct nfs42_stateid sids[4];
	struct fz_rec *rec;
	unsigned int n = 1 + fz_below(g->r, 4), i;
	int sidx = -1, idx;

	for (i = 0; i < n; i++)
		sidx = fz_pick_sid(g, -1, 0x3f, &sids[i]);
	if (op == OP_TEST_STATEID) {
		nfs42_op_test_stateid(g->c, sids, n);
		return;
	}
	idx = nfs42_op_free_stateid(g->c, &sids[n - 1]);
	rec = fz_record(g, idx, OP_FREE_STATEID, -1);
	if (rec)
		rec->sid = sidx;
}

static void gen_layoutget(struct fz_gen *g)
{
	struct nfs42_stateid sid;
	struct fz_rec *rec;
	uint32_t iomode = fz_chance(g->r, 92) ? 1 + fz_below(g->r, 3) :
						fz_u32(g->r);
	uint64_t off = fz_chance(g->r, 60) ? 0 : fz_u64(g->r);
	uint64_t len = fz_chance(g->r, 60) ? UINT64_MAX : fz_u64(g->r);
	int sidx, idx;

	want_file(g);
	sidx = fz_pick_sid(g, g->cur,
			   1u << SK_OPEN | 1u << SK_DELEG | 1u << SK_LOCK |
				   1u << SK_LAYOUT,
			   &sid);
	idx = nfs42_op_layoutget(
		g->c,
		fz_chance(g->r, 95) ? LAYOUT4_NFSV4_1_FILES : fz_u32(g->r),
		iomode, off, len, fz_chance(g->r, 70) ? 0 : fz_u64(g->r), &sid,
		fz_chance(g->r, 70) ? 4096 : fz_u32(g->r));
	rec = fz_record(g, idx, OP_LAYOUTGET, g->cur);
	if (rec) {
		rec->sid = sidx;
		rec->a = iomode;
	}
}

static void gen_layoutreturn(struct fz_gen *g)
{
	struct nfs42_stateid sid;
	struct fz_rec *rec;
	int sidx, idx;

	want_file(g);
	sidx = fz_pick_sid(g, g->cur, 1u << SK_LAYOUT, &sid);
	idx = nfs42_op_layoutreturn(
		g->c, fz_chance(g->r, 5),
		fz_chance(g->r, 95) ? LAYOUT4_NFSV4_1_FILES : fz_u32(g->r),
		fz_chance(g->r, 92) ? 1 + fz_below(g->r, 3) : fz_u32(g->r),
		fz_chance(g->r, 80) ? LAYOUTRETURN4_FILE :
				      1 + fz_below(g->r, 3),
		fz_chance(g->r, 60) ? 0 : fz_u64(g->r),
		fz_chance(g->r, 60) ? UINT64_MAX : fz_u64(g->r), &sid);
	rec = fz_record(g, idx, OP_LAYOUTRETURN, g->cur);
	if (rec)
		rec->sid = sidx;
}

static void gen_layoutcommit(struct fz_gen *g)
{
	struct nfs42_stateid sid;
	struct nfs42_time t = { (int64_t)fz_u64(g->r), fz_u32(g->r) };
	uint64_t last = fz_u64(g->r);
	struct fz_rec *rec;
	int sidx, idx;

	want_file(g);
	sidx = fz_pick_sid(g, g->cur, 1u << SK_LAYOUT, &sid);
	idx = nfs42_op_layoutcommit(
		g->c, fz_u64(g->r), fz_u64(g->r), fz_chance(g->r, 5), &sid,
		fz_chance(g->r, 80) ? &last : NULL,
		fz_chance(g->r, 40) ? &t : NULL,
		fz_chance(g->r, 95) ? LAYOUT4_NFSV4_1_FILES : fz_u32(g->r));
	rec = fz_record(g, idx, OP_LAYOUTCOMMIT, g->cur);
	if (rec) {
		rec->sid = sidx;
		rec->modifies = g->s->cfg->check_ds_writes;
	}
}

static void gen_getdeviceinfo(struct fz_gen *g)
{
	uint8_t devid[NFS4_DEVICEID4_SIZE];

	if (g->s->have_devid && fz_chance(g->r, 85)) {
		memcpy(devid, g->s->devid, sizeof(devid));
	} else {
		for (int i = 0; i < NFS4_DEVICEID4_SIZE; i++)
			devid[i] = (uint8_t)fz_next(g->r);
	}
	nfs42_op_getdeviceinfo(g->c, devid,
			       fz_chance(g->r, 95) ? LAYOUT4_NFSV4_1_FILES :
						     fz_u32(g->r),
			       fz_u32(g->r));
}

static void gen_copy(struct fz_gen *g, uint32_t op)
{
	struct nfs42_stateid src, dst;
	struct nfs42_fh fh;
	struct fz_rec *rec;
	int file, idx, dsidx;

	if (fz_chance(g->r, 70)) {
		fz_pick_fh(g, &fh, &file);
		nfs42_op_putfh(g->c, &fh);
		nfs42_op_savefh(g->c);
		g->saved = file;
		fz_pick_fh(g, &fh, &file);
		nfs42_op_putfh(g->c, &fh);
		set_cur(g, file);
	}
	fz_pick_sid(g, g->saved, 1u << SK_OPEN | 1u << SK_DELEG | 1u << SK_LOCK,
		    &src);
	dsidx = fz_pick_sid(g, g->cur,
			    1u << SK_OPEN | 1u << SK_DELEG | 1u << SK_LOCK,
			    &dst);
	if (op == OP_COPY)
		idx = nfs42_op_copy(g->c, &src, &dst, fz_u64(g->r),
				    fz_u64(g->r), fz_u64(g->r),
				    fz_chance(g->r, 50), fz_chance(g->r, 60));
	else
		idx = nfs42_op_clone(g->c, &src, &dst, fz_u64(g->r),
				     fz_u64(g->r), fz_u64(g->r));
	rec = fz_record(g, idx, op, g->cur);
	if (rec) {
		rec->sid = dsidx;
		rec->modifies = true;
	}
}

static void gen_alloc(struct fz_gen *g, uint32_t op)
{
	struct nfs42_stateid sid;
	struct fz_rec *rec;
	int sidx, idx;

	want_file(g);
	sidx = fz_pick_sid(g, g->cur,
			   1u << SK_OPEN | 1u << SK_LOCK | 1u << SK_DELEG,
			   &sid);
	if (op == OP_ALLOCATE)
		idx = nfs42_op_allocate(g->c, &sid, fz_u64(g->r), fz_u64(g->r));
	else
		idx = nfs42_op_deallocate(g->c, &sid, fz_u64(g->r),
					  fz_u64(g->r));
	rec = fz_record(g, idx, op, g->cur);
	if (rec) {
		rec->sid = sidx;
		rec->modifies = true;
	}
}

static void gen_offload(struct fz_gen *g, uint32_t op)
{
	struct nfs42_stateid sid;

	want_file(g);
	fz_pick_sid(g, -1, 1u << SK_COPY, &sid);
	if (op == OP_OFFLOAD_STATUS)
		nfs42_op_offload_status(g->c, &sid);
	else
		nfs42_op_offload_cancel(g->c, &sid);
}

static void gen_name_op(struct fz_gen *g, uint32_t op)
{
	struct nfs42_create_args ca;
	struct nfs42_sattr sa;
	bool size, attrs;
	int file;
	const char *name;

	want_dir(g);
	name = fz_pick_name(g, &file);
	switch (op) {
	case OP_LOOKUP:
		/* a name may now be another object than the table's */
		nfs42_op_lookup(g->c, name);
		set_cur(g, -1);
		return;
	case OP_REMOVE:
		nfs42_op_remove(g->c, name);
		return;
	case OP_CREATE:
		memset(&ca, 0, sizeof(ca));
		ca.type = fz_chance(g->r, 90) ? 2 + fz_below(g->r, 6) :
						fz_u32(g->r);
		ca.name = name;
		ca.linkdata = "f0";
		ca.specmajor = fz_u32(g->r);
		ca.specminor = fz_u32(g->r);
		pick_sattr(g, &sa, &size, &attrs);
		ca.attrs = &sa;
		nfs42_op_create(g->c, &ca);
		set_cur(g, -1);
		return;
	case OP_LINK:
		if (fz_chance(g->r, 70)) {
			struct nfs42_fh fh;

			fz_pick_fh(g, &fh, &file);
			nfs42_op_putfh(g->c, &fh);
			nfs42_op_savefh(g->c);
			g->saved = file;
			nfs42_op_putfh(g->c, &g->s->dir_fh);
			set_cur(g, FZ_DIR);
		}
		nfs42_op_link(g->c, fz_pick_name(g, &file));
		return;
	case OP_RENAME:
		if (fz_chance(g->r, 70)) {
			nfs42_op_savefh(g->c);
			g->saved = g->cur;
		}
		nfs42_op_rename(g->c, name, fz_pick_name(g, &file));
		return;
	}
}

static void gen_secinfo(struct fz_gen *g, uint32_t op)
{
	struct nfs42_xdr x;
	int file;

	raw_begin(&x, op);
	if (op == OP_SECINFO) {
		want_dir(g);
		nfs42_xdr_put_string(&x, fz_pick_name(g, &file));
	} else {
		nfs42_xdr_put_u32(&x, fz_chance(g->r, 90) ? fz_below(g->r, 2) :
							    fz_u32(g->r));
	}
	raw_op(g, &x, op);
	/* SECINFO consumes the current filehandle (RFC 8881 2.6.3.1.1.8) */
	set_cur(g, -1);
}

static void put_fattr_raw(struct fz_gen *g, struct nfs42_xdr *x)
{
	struct nfs42_bitmap bm;
	uint32_t n = fz_below(g->r, 64), i;

	pick_bitmap(g, &bm);
	nfs42_bitmap_encode(x, &bm);
	nfs42_xdr_put_u32(x, n * 4);
	for (i = 0; i < n; i++)
		nfs42_xdr_put_u32(x, fz_u32(g->r));
}

static void gen_verify(struct fz_gen *g, uint32_t op)
{
	struct nfs42_xdr x;

	raw_begin(&x, op);
	put_fattr_raw(g, &x);
	raw_op(g, &x, op);
}

/* WANT_DELEGATION's deleg_claim4: CLAIM_PREVIOUS, CLAIM_FH,
 * CLAIM_DELEG_PREV_FH */
static const uint32_t deleg_claims[] = { 1, 4, 6 };

static void gen_misc_raw(struct fz_gen *g, uint32_t op)
{
	struct nfs42_stateid sid;
	struct nfs42_xdr x;
	uint32_t i, n;

	raw_begin(&x, op);
	switch (op) {
	case OP_OPENATTR:
		nfs42_xdr_put_bool(&x, fz_chance(g->r, 50));
		set_cur(g, -1);
		break;
	case OP_DELEGPURGE:
	case OP_RENEW:
		nfs42_xdr_put_u64(&x,
				  fz_chance(g->r, 80) ?
					  (g->a->cl ? g->a->kind == FZ_V40 ?
						      g->a->clientid40 :
						      nfs42_clientid(g->a->cl) :
						      0) :
					  fz_next(g->r));
		break;
	case OP_RELEASE_LOCKOWNER:
		nfs42_xdr_put_u64(&x, g->a->clientid40);
		{
			char owner[16];

			snprintf(owner, sizeof(owner), "l%u.%u",
				 fz_below(g->r, 6), fz_below(g->r, 3));
			nfs42_xdr_put_opaque(&x, owner, strlen(owner));
		}
		break;
	case OP_WANT_DELEGATION:
		nfs42_xdr_put_u32(&x, fz_chance(g->r, 80) ?
					      (1 + fz_below(g->r, 5)) << 8 :
					      fz_u32(g->r));
		n = fz_chance(g->r, 90) ? deleg_claims[fz_below(g->r, 3)] :
					  fz_u32(g->r);
		nfs42_xdr_put_u32(&x, n);
		if (n == 1)
			nfs42_xdr_put_u32(&x, fz_below(g->r, 4));
		break;
	case OP_GET_DIR_DELEGATION:
		nfs42_xdr_put_bool(&x, fz_chance(g->r, 50));
		for (i = 0; i < 2; i++) {
			nfs42_xdr_put_u32(&x, 1);
			nfs42_xdr_put_u32(&x, fz_u32(g->r));
		}
		for (i = 0; i < 2; i++) {
			nfs42_xdr_put_u64(&x, fz_u64(g->r));
			nfs42_xdr_put_u32(&x, fz_u32(g->r));
		}
		for (i = 0; i < 2; i++) {
			nfs42_xdr_put_u32(&x, 1);
			nfs42_xdr_put_u32(&x, fz_u32(g->r));
		}
		break;
	case OP_SET_SSV:
		n = fz_below(g->r, 64);
		nfs42_xdr_put_u32(&x, n);
		for (i = 0; i < (n + 3) / 4; i++)
			nfs42_xdr_put_u32(&x, (uint32_t)fz_next(g->r));
		nfs42_xdr_put_u32(&x, 0);
		break;
	case OP_IO_ADVISE:
		want_file(g);
		fz_pick_sid(g, g->cur, 0x3f, &sid);
		put_sid(&x, &sid);
		nfs42_xdr_put_u64(&x, fz_u64(g->r));
		nfs42_xdr_put_u64(&x, fz_u64(g->r));
		nfs42_xdr_put_u32(&x, 1);
		nfs42_xdr_put_u32(&x, fz_u32(g->r));
		break;
	case OP_LAYOUTERROR:
	case OP_LAYOUTSTATS:
		want_file(g);
		nfs42_xdr_put_u64(&x, fz_u64(g->r));
		nfs42_xdr_put_u64(&x, fz_u64(g->r));
		fz_pick_sid(g, g->cur, 1u << SK_LAYOUT, &sid);
		put_sid(&x, &sid);
		if (op == OP_LAYOUTERROR) {
			n = fz_chance(g->r, 90) ? fz_below(g->r, 3) :
						  fz_u32(g->r);
			nfs42_xdr_put_u32(&x, n);
			for (i = 0; i < n && i < 4; i++) {
				nfs42_xdr_put_fixed(&x, g->s->devid, 16);
				nfs42_xdr_put_u32(&x, fz_u32(g->r));
				nfs42_xdr_put_u32(&x, fz_below(g->r, 80));
			}
		} else {
			for (i = 0; i < 4; i++)
				nfs42_xdr_put_u64(&x, fz_u64(g->r));
			nfs42_xdr_put_fixed(&x, g->s->devid, 16);
			nfs42_xdr_put_u32(
				&x, fz_chance(g->r, 90) ? 1 : fz_u32(g->r));
			n = fz_below(g->r, 32);
			nfs42_xdr_put_u32(&x, n);
			for (i = 0; i < (n + 3) / 4; i++)
				nfs42_xdr_put_u32(&x, fz_u32(g->r));
		}
		break;
	case OP_WRITE_SAME:
		want_file(g);
		fz_pick_sid(g, g->cur,
			    1u << SK_OPEN | 1u << SK_LOCK | 1u << SK_DELEG,
			    &sid);
		put_sid(&x, &sid);
		nfs42_xdr_put_u32(&x, fz_below(g->r, 3));
		for (i = 0; i < 6; i++)
			nfs42_xdr_put_u64(&x, fz_u64(g->r));
		n = fz_below(g->r, 64);
		nfs42_xdr_put_u32(&x, n);
		for (i = 0; i < (n + 3) / 4; i++)
			nfs42_xdr_put_u32(&x, 0x41414141);
		break;
	case OP_COPY_NOTIFY:
		want_file(g);
		fz_pick_sid(g, g->cur, 0x3f, &sid);
		put_sid(&x, &sid);
		nfs42_xdr_put_u32(&x, fz_chance(g->r, 90) ?
					      1 + fz_below(g->r, 3) :
					      fz_u32(g->r));
		nfs42_xdr_put_string(&x, "127.0.0.1");
		if (fz_chance(g->r, 50))
			nfs42_xdr_put_string(&x, "127.0.0.1.8.1");
		break;
	case OP_BIND_CONN_TO_SESSION:
		if (g->a->cl)
			nfs42_xdr_put_fixed(&x, g->a->cl->sessionid, 16);
		else
			nfs42_xdr_put_fixed(&x, g->s->devid, 16);
		nfs42_xdr_put_u32(&x, fz_chance(g->r, 90) ?
					      1 + fz_below(g->r, 3) :
					      fz_u32(g->r));
		nfs42_xdr_put_bool(&x, fz_chance(g->r, 10));
		break;
	case OP_SETCLIENTID_CONFIRM:
		nfs42_xdr_put_u64(&x, g->a->clientid40);
		nfs42_xdr_put_u64(&x, fz_next(g->r));
		break;
	default: /* an opnum the server does not know */
		break;
	}
	raw_op(g, &x, op);
}

static void gen_xattr(struct fz_gen *g, uint32_t op)
{
	static const char *const names[] = { "a", "b", "", "x.y", "c" };
	const char *name = names[fz_below(g->r, 5)];
	uint8_t val[512];
	uint32_t len = fz_below(g->r, sizeof(val));

	want_file(g);
	memset(val, 'v', len);
	switch (op) {
	case OP_GETXATTR:
		nfs42_op_getxattr(g->c, name);
		break;
	case OP_SETXATTR:
		nfs42_op_setxattr(g->c,
				  fz_chance(g->r, 95) ? fz_below(g->r, 3) :
							fz_u32(g->r),
				  name, val, len);
		break;
	case OP_LISTXATTRS:
		nfs42_op_listxattrs(g->c,
				    fz_chance(g->r, 70) ? 0 : fz_u64(g->r),
				    fz_u32(g->r));
		break;
	default:
		nfs42_op_removexattr(g->c, name);
	}
}

static void gen_sequence_inside(struct fz_gen *g)
{
	uint8_t sid[NFS4_SESSIONID_SIZE] = { 0 };

	if (g->a->cl)
		memcpy(sid, g->a->cl->sessionid, sizeof(sid));
	nfs42_op_sequence(g->c, sid, fz_u32(g->r), fz_below(g->r, 6),
			  fz_below(g->r, 6), fz_chance(g->r, 30));
}

/* AUTH_NONE, AUTH_SYS, RPCSEC_GSS */
static const uint32_t flavors[] = { 0, 1, 6 };

static void gen_backchannel_ctl(struct fz_gen *g)
{
	struct nfs42_cb_sec secs[3];
	unsigned int n = fz_below(g->r, 4), i;

	for (i = 0; i < n; i++) {
		memset(&secs[i], 0, sizeof(secs[i]));
		secs[i].flavor = fz_chance(g->r, 90) ?
					 flavors[fz_below(g->r, 3)] :
					 fz_u32(g->r);
		secs[i].uid = fz_u32(g->r);
		secs[i].gid = fz_u32(g->r);
		secs[i].machinename = "fz";
		secs[i].gss_service = fz_below(g->r, 4);
	}
	nfs42_op_backchannel_ctl(
		g->c,
		fz_chance(g->r, 80) ? NFS42_CB_PROGRAM_DEFAULT : fz_u32(g->r),
		secs, n);
}

/* ------------------------------------------------------------ table */

struct fz_opdef {
	uint32_t op;
	unsigned int weight;
	unsigned int minor; /* lowest minor version it belongs to */
};

static const struct fz_opdef opdefs[] = {
	{ OP_ACCESS, 2, 0 },
	{ OP_CLOSE, 6, 0 },
	{ OP_COMMIT, 2, 0 },
	{ OP_CREATE, 2, 0 },
	{ OP_DELEGPURGE, 1, 0 },
	{ OP_DELEGRETURN, 5, 0 },
	{ OP_GETATTR, 3, 0 },
	{ OP_GETFH, 2, 0 },
	{ OP_LINK, 1, 0 },
	{ OP_LOCK, 6, 0 },
	{ OP_LOCKT, 2, 0 },
	{ OP_LOCKU, 3, 0 },
	{ OP_LOOKUP, 2, 0 },
	{ OP_LOOKUPP, 1, 0 },
	{ OP_NVERIFY, 1, 0 },
	{ OP_OPEN, 18, 0 },
	{ OP_OPENATTR, 1, 0 },
	{ OP_OPEN_CONFIRM, 1, 0 },
	{ OP_OPEN_DOWNGRADE, 3, 0 },
	{ OP_PUTFH, 3, 0 },
	{ OP_PUTPUBFH, 1, 0 },
	{ OP_PUTROOTFH, 1, 0 },
	{ OP_READ, 6, 0 },
	{ OP_READDIR, 1, 0 },
	{ OP_READLINK, 1, 0 },
	{ OP_REMOVE, 1, 0 },
	{ OP_RENAME, 1, 0 },
	{ OP_RENEW, 1, 0 },
	{ OP_RESTOREFH, 2, 0 },
	{ OP_SAVEFH, 2, 0 },
	{ OP_SECINFO, 1, 0 },
	{ OP_SETATTR, 5, 0 },
	{ OP_SETCLIENTID_CONFIRM, 1, 0 },
	{ OP_VERIFY, 1, 0 },
	{ OP_WRITE, 9, 0 },
	{ OP_RELEASE_LOCKOWNER, 1, 0 },
	{ OP_BACKCHANNEL_CTL, 1, 1 },
	{ OP_BIND_CONN_TO_SESSION, 1, 1 },
	{ OP_FREE_STATEID, 3, 1 },
	{ OP_GET_DIR_DELEGATION, 1, 1 },
	{ OP_GETDEVICEINFO, 3, 1 },
	{ OP_GETDEVICELIST, 1, 1 },
	{ OP_LAYOUTCOMMIT, 3, 1 },
	{ OP_LAYOUTGET, 8, 1 },
	{ OP_LAYOUTRETURN, 4, 1 },
	{ OP_SECINFO_NO_NAME, 1, 1 },
	{ OP_SEQUENCE, 1, 1 },
	{ OP_SET_SSV, 1, 1 },
	{ OP_TEST_STATEID, 3, 1 },
	{ OP_WANT_DELEGATION, 2, 1 },
	{ OP_RECLAIM_COMPLETE, 1, 1 },
	{ OP_ALLOCATE, 2, 2 },
	{ OP_COPY, 3, 2 },
	{ OP_COPY_NOTIFY, 1, 2 },
	{ OP_DEALLOCATE, 2, 2 },
	{ OP_IO_ADVISE, 1, 2 },
	{ OP_LAYOUTERROR, 1, 2 },
	{ OP_LAYOUTSTATS, 1, 2 },
	{ OP_OFFLOAD_CANCEL, 1, 2 },
	{ OP_OFFLOAD_STATUS, 1, 2 },
	{ OP_READ_PLUS, 4, 2 },
	{ OP_SEEK, 2, 2 },
	{ OP_WRITE_SAME, 1, 2 },
	{ OP_CLONE, 2, 2 },
	{ OP_GETXATTR, 1, 2 },
	{ OP_SETXATTR, 1, 2 },
	{ OP_LISTXATTRS, 1, 2 },
	{ OP_REMOVEXATTR, 1, 2 },
	{ OP_ILLEGAL, 1, 0 },
};

#define NOPDEFS (sizeof(opdefs) / sizeof(opdefs[0]))

/* What a well-formed compound is mostly made of: the operations that
 * make, use and end state. */
static const struct fz_opdef sane_opdefs[] = {
	{ OP_OPEN, 30, 0 },	     { OP_WRITE, 10, 0 },
	{ OP_READ, 6, 0 },	     { OP_LOCK, 8, 0 },
	{ OP_LOCKU, 3, 0 },	     { OP_CLOSE, 5, 0 },
	{ OP_DELEGRETURN, 5, 0 },    { OP_SETATTR, 4, 0 },
	{ OP_OPEN_DOWNGRADE, 3, 0 }, { OP_LAYOUTGET, 12, 1 },
	{ OP_GETDEVICEINFO, 4, 1 },  { OP_LAYOUTRETURN, 3, 1 },
	{ OP_LAYOUTCOMMIT, 2, 1 },   { OP_TEST_STATEID, 2, 1 },
	{ OP_FREE_STATEID, 2, 1 },   { OP_COPY, 2, 2 },
	{ OP_CLONE, 1, 2 },	     { OP_ALLOCATE, 1, 2 },
	{ OP_DEALLOCATE, 1, 2 },     { OP_READ_PLUS, 2, 2 },
	{ OP_SEEK, 1, 2 },
};

#define NSANEDEFS (sizeof(sane_opdefs) / sizeof(sane_opdefs[0]))

/* An operation of the actor's minor version (now and then of another). */
uint32_t fz_pick_op(struct fz_gen *g, uint32_t minor)
{
	unsigned int w[NOPDEFS], i;

	if (g->sane) {
		for (i = 0; i < NSANEDEFS; i++)
			w[i] = sane_opdefs[i].minor <= minor ?
				       sane_opdefs[i].weight :
				       0;
		return sane_opdefs[fz_weighted(g->r, w, NSANEDEFS)].op;
	}

	for (i = 0; i < NOPDEFS; i++)
		w[i] = opdefs[i].minor <= minor || fz_chance(g->r, 3) ?
			       opdefs[i].weight :
			       0;
	return opdefs[fz_weighted(g->r, w, NOPDEFS)].op;
}

void fz_gen_op(struct fz_gen *g, uint32_t op)
{
	struct nfs42_bitmap bm;

	g->st->op_count[op < 80 ? op : 79]++;
	switch (op) {
	case OP_ACCESS:
		nfs42_op_access(g->c, fz_chance(g->r, 80) ?
					      fz_below(g->r, 0x200) :
					      fz_u32(g->r));
		break;
	case OP_CLOSE:
		gen_close(g);
		break;
	case OP_COMMIT:
		want_file(g);
		nfs42_op_commit(g->c, fz_u64(g->r), fz_u32(g->r));
		break;
	case OP_CREATE:
	case OP_LINK:
	case OP_LOOKUP:
	case OP_REMOVE:
	case OP_RENAME:
		gen_name_op(g, op);
		break;
	case OP_DELEGRETURN:
		gen_delegreturn(g);
		break;
	case OP_GETATTR:
		pick_bitmap(g, &bm);
		nfs42_op_getattr(g->c, &bm);
		break;
	case OP_GETFH:
		nfs42_op_getfh(g->c);
		break;
	case OP_LOCK:
		gen_lock(g);
		break;
	case OP_LOCKT:
		gen_lockt(g);
		break;
	case OP_LOCKU:
		gen_locku(g);
		break;
	case OP_LOOKUPP:
		nfs42_op_lookupp(g->c);
		set_cur(g, g->cur >= 0 ? FZ_DIR : -1);
		break;
	case OP_NVERIFY:
	case OP_VERIFY:
		gen_verify(g, op);
		break;
	case OP_OPEN:
		fz_gen_open(g);
		break;
	case OP_OPEN_CONFIRM:
		gen_open_confirm(g);
		break;
	case OP_OPEN_DOWNGRADE:
		gen_open_downgrade(g);
		break;
	case OP_PUTFH:
		gen_putfh(g);
		break;
	case OP_PUTPUBFH:
	case OP_PUTROOTFH:
		if (op == OP_PUTROOTFH)
			nfs42_op_putrootfh(g->c);
		else
			nfs42_op_raw(g->c, op, (uint8_t[]){ 0, 0, 0, 23 }, 4);
		set_cur(g, -1);
		break;
	case OP_READ:
	case OP_READ_PLUS:
	case OP_SEEK:
		gen_read(g, op);
		break;
	case OP_READDIR:
		want_dir(g);
		pick_bitmap(g, &bm);
		nfs42_op_readdir(g->c, fz_chance(g->r, 70) ? 0 : fz_u64(g->r),
				 NULL, fz_u32(g->r), fz_u32(g->r), &bm);
		break;
	case OP_READLINK:
		nfs42_op_readlink(g->c);
		break;
	case OP_RESTOREFH:
		nfs42_op_restorefh(g->c);
		set_cur(g, g->saved);
		break;
	case OP_SAVEFH:
		nfs42_op_savefh(g->c);
		g->saved = g->cur;
		break;
	case OP_SECINFO:
	case OP_SECINFO_NO_NAME:
		gen_secinfo(g, op);
		break;
	case OP_SETATTR:
		gen_setattr(g);
		break;
	case OP_WRITE:
		gen_write(g);
		break;
	case OP_BACKCHANNEL_CTL:
		gen_backchannel_ctl(g);
		break;
	case OP_FREE_STATEID:
	case OP_TEST_STATEID:
		gen_free_or_test(g, op);
		break;
	case OP_GETDEVICEINFO:
		gen_getdeviceinfo(g);
		break;
	case OP_GETDEVICELIST:
		nfs42_op_getdevicelist(g->c,
				       fz_chance(g->r, 95) ?
					       LAYOUT4_NFSV4_1_FILES :
					       fz_u32(g->r),
				       fz_u32(g->r), fz_u64(g->r), NULL);
		break;
	case OP_LAYOUTCOMMIT:
		gen_layoutcommit(g);
		break;
	case OP_LAYOUTGET:
		gen_layoutget(g);
		break;
	case OP_LAYOUTRETURN:
		gen_layoutreturn(g);
		break;
	case OP_SEQUENCE:
		gen_sequence_inside(g);
		break;
	case OP_RECLAIM_COMPLETE:
		nfs42_op_reclaim_complete(g->c, fz_chance(g->r, 50));
		break;
	case OP_ALLOCATE:
	case OP_DEALLOCATE:
		gen_alloc(g, op);
		break;
	case OP_COPY:
	case OP_CLONE:
		gen_copy(g, op);
		break;
	case OP_OFFLOAD_CANCEL:
	case OP_OFFLOAD_STATUS:
		gen_offload(g, op);
		break;
	case OP_GETXATTR:
	case OP_SETXATTR:
	case OP_LISTXATTRS:
	case OP_REMOVEXATTR:
		gen_xattr(g, op);
		break;
	case OP_ILLEGAL:
		gen_misc_raw(g, fz_chance(g->r, 50) ?
					OP_ILLEGAL :
					76 + fz_below(g->r, 1000));
		break;
	default:
		gen_misc_raw(g, op);
	}
}
