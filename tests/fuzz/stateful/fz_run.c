/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * A sequence: its directory of files, its actors, and its actions (a
 * compound, a data-server compound, an NFSv3 call, slot and sequence
 * misuse, several compounds in flight, a connection dropped in the middle
 * of a compound or between two, a client restarted or destroyed, the back
 * channel read late or answered wrongly, delegations returned, a local
 * change behind the server).  What the results say goes into the model
 * (the stateid pool), and the invariants that depend on it are checked
 * (fz_check.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fz_gen.h"
#include "internal.h"

void fz_log(struct fz_seq *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->cfg->verbose)
		return;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	va_start(ap, fmt);
	fprintf(stderr, "fuzz: %ld.%03ld seq %ld: ", (long)ts.tv_sec % 3600,
		ts.tv_nsec / 1000000, s->index);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void fz_backing_path(const struct fz_seq *s, int file, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", s->backing_dir,
		 file >= 0 && file < (int)s->nfiles ? s->files[file].name : "");
}

bool fz_file_exists(const struct fz_seq *s, int file)
{
	char path[PATH_MAX + 64];
	struct stat st;

	if (file < 0 || file >= (int)s->nfiles)
		return false;
	fz_backing_path(s, file, path, sizeof(path));
	return lstat(path, &st) == 0;
}

int fz_file_by_fh(const struct fz_seq *s, const struct nfs42_fh *fh)
{
	unsigned int i;

	for (i = 0; i < s->nfiles; i++)
		if (s->files[i].have_fh && s->files[i].fh.len == fh->len &&
		    !memcmp(s->files[i].fh.data, fh->data, fh->len))
			return (int)i;
	return -1;
}

int fz_add_sid(struct fz_seq *s, const struct nfs42_stateid *sid, int kind,
	       int actor, int file, uint32_t access, uint32_t deny)
{
	struct fz_sid *e;
	unsigned int i;

	/* the same stateid again (a new seqid is a new generation) */
	for (i = 0; i < s->nsids; i++) {
		e = &s->sids[i];
		if (!memcmp(&e->sid, sid, sizeof(*sid)) && e->actor == actor) {
			e->gone = false;
			e->access = access;
			e->deny = deny;
			return (int)i;
		}
	}
	if (s->nsids >= FZ_MAX_SIDS) {
		/* forget the oldest of a kind that is no longer held */
		for (i = 0; i < s->nsids && !s->sids[i].gone; i++)
			;
		if (i == s->nsids)
			return -1;
		memmove(&s->sids[i], &s->sids[i + 1],
			(s->nsids - i - 1) * sizeof(s->sids[0]));
		s->nsids--;
	}
	e = &s->sids[s->nsids];
	memset(e, 0, sizeof(*e));
	e->sid = *sid;
	e->kind = (uint8_t)kind;
	e->actor = (int8_t)actor;
	e->file = (int8_t)file;
	e->access = access;
	e->deny = deny;
	e->incarnation = actor >= 0 ? s->actors[actor].incarnation : 0;
	e->owner = -1;
	return (int)s->nsids++;
}

/* Every generation of the stateid's "other" is gone. */
static void sid_gone(struct fz_seq *s, const struct nfs42_stateid *sid)
{
	unsigned int i;

	for (i = 0; i < s->nsids; i++)
		if (!memcmp(s->sids[i].sid.other, sid->other, NFS4_OTHER_SIZE))
			s->sids[i].gone = true;
}

/* ---------------------------------------------------------- setup */

static const uint32_t file_modes[] = { 0644, 0600, 0666, 0444,
				       0640, 0660, 0755, 0400 };
static const uint32_t ids[] = { 0, 1000, 1001 };

static int make_files(struct fz_seq *s, struct fz_rng *r)
{
	char path[PATH_MAX + 64];
	static char data[70000];
	unsigned int i, n = 4 + fz_below(r, 3);
	int fd;

	if (mkdir(s->backing_dir, 0777) && errno != EEXIST)
		return -errno;
	chmod(s->backing_dir, 0777);
	memset(data, 'z', sizeof(data));
	for (i = 0; i < n; i++) {
		struct fz_file *f = &s->files[s->nfiles++];
		uint64_t size = fz_below(r, sizeof(data));

		snprintf(f->name, sizeof(f->name), "f%u", i);
		fz_backing_path(s, (int)i, path, sizeof(path));
		fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
		if (fd < 0)
			return -errno;
		if (write(fd, data, size) < 0 ||
		    (fz_chance(r, 30) && ftruncate(fd, 1 << 20) < 0)) {
			close(fd);
			return -errno;
		}
		close(fd);
		/* most of them open to all, so that state is made; the
		 * rest keep some actors out (the permission invariant) */
		if (chown(path, ids[fz_below(r, 3)], ids[fz_below(r, 3)]) ||
		    chmod(path,
			  fz_chance(r, 55) ? 0666 : file_modes[fz_below(r, 8)]))
			return -errno;
	}
	s->nregular = s->nfiles;
	strcpy(s->files[s->nfiles].name, "d0");
	s->files[s->nfiles].dir = true;
	fz_backing_path(s, (int)s->nfiles++, path, sizeof(path));
	if (mkdir(path, 0777))
		return -errno;
	chmod(path, 0777);
	strcpy(s->files[s->nfiles].name, "l0");
	fz_backing_path(s, (int)s->nfiles++, path, sizeof(path));
	if (symlink("f0", path))
		return -errno;
	return 0;
}

/* The handles, as root (they are the same for every client). */
static int lookup_handles(struct fz_seq *s)
{
	struct nfs42_client *cl;
	struct nfs42_opts o;
	char path[PATH_MAX + 64];
	struct stat st;
	unsigned int i;
	int rc;

	nfs42_opts_init(&o);
	o.host = s->cfg->host;
	o.port = s->cfg->port;
	o.uid = o.gid = 0;
	o.timeout_ms = s->cfg->timeout_ms;
	o.no_back_channel = true;
	rc = nfs42_client_create(&o, &cl);
	if (rc) {
		nfs42_client_free(cl);
		return rc;
	}
	rc = nfs42_lookup_path(cl, s->cfg->export, &s->root_fh, NULL);
	snprintf(path, sizeof(path), "%s/%s", s->cfg->export, s->dir);
	if (!rc)
		rc = nfs42_lookup_path(cl, path, &s->dir_fh, NULL);
	for (i = 0; !rc && i < s->nfiles; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", s->cfg->export, s->dir,
			 s->files[i].name);
		s->files[i].have_fh =
			nfs42_lookup_path(cl, path, &s->files[i].fh, NULL) == 0;
		fz_backing_path(s, (int)i, path, sizeof(path));
		if (lstat(path, &st) == 0)
			s->files[i].ino = st.st_ino;
	}
	nfs42_session_destroy(cl);
	nfs42_client_free(cl);
	return rc;
}

int fz_seq_setup(struct fz_seq *s)
{
	struct fz_rng r = { s->seed };
	unsigned int i, nk = 0;
	enum fz_kind kinds[FZ_NKINDS];
	int rc;

	/* a directory of its own even when a trace runs again */
	snprintf(s->dir, sizeof(s->dir), "s%lx-%lx", (unsigned long)s->index,
		 (unsigned long)(s->seed & 0xffffffff));
	snprintf(s->backing_dir, sizeof(s->backing_dir), "%s/%s",
		 s->cfg->backing, s->dir);
	rc = make_files(s, &r);
	if (rc)
		return rc;
	rc = lookup_handles(s);
	if (rc)
		return rc;
	kinds[nk++] = FZ_V41;
	kinds[nk++] = FZ_V42;
	if (!s->cfg->no_v40)
		kinds[nk++] = FZ_V40;
	if (!s->cfg->no_v3 && s->cfg->mnt_port)
		kinds[nk++] = FZ_V3;
	s->nactors = 2 + fz_below(&r, FZ_MAX_ACTORS - 1);
	for (i = 0; i < s->nactors; i++) {
		struct fz_actor *a = &s->actors[i];

		a->id = (int)i;
		/* the first two speak NFSv4.1+ (delegations, layouts) */
		a->kind = i < 2 ? kinds[fz_below(&r, 2)] :
				  kinds[fz_below(&r, nk)];
		a->uid = ids[fz_below(&r, 3)];
		a->gid = fz_chance(&r, 80) ? a->uid : ids[fz_below(&r, 3)];
		snprintf(a->owner, sizeof(a->owner), "fz/%016llx/%u",
			 (unsigned long long)s->seed, i);
		a->cb_mode = fz_chance(&r, 75) ? 0 : (int)fz_below(&r, 5);
		a->polite_end = fz_chance(&r, 60);
	}
	for (i = 0; i < s->nactors; i++)
		fz_actor_connect(s, &s->actors[i], true);
	return 0;
}

/* ---------------------------------------------------------- results */

static void learn_layout(struct fz_seq *s, const struct nfs42_res *r, int file)
{
	struct nfs42_layout *lo = calloc(1, sizeof(*lo));
	unsigned int i;

	if (!lo)
		return;
	if (r->u.layoutget.body &&
	    nfs42_files_layout_decode(r->u.layoutget.body,
				      r->u.layoutget.body_len, lo) == 0) {
		memcpy(s->devid, lo->deviceid, sizeof(s->devid));
		s->have_devid = true;
		for (i = 0; i < lo->nfh && s->ndsfh < FZ_MAX_DSFH; i++) {
			s->dsfh_file[s->ndsfh] = file;
			s->dsfh[s->ndsfh++] = lo->fhs[i];
		}
	}
	free(lo);
}

/* NFSv4.0 open-owner seqids move on every reply but these (RFC 7530
 * 9.1.7). */
static bool v40_seqid_moves(uint32_t status)
{
	switch (status) {
	case NFS4ERR_STALE_CLIENTID:
	case NFS4ERR_STALE_STATEID:
	case NFS4ERR_BAD_STATEID:
	case NFS4ERR_BAD_SEQID:
	case NFS4ERR_BADXDR:
	case NFS4ERR_RESOURCE:
	case NFS4ERR_NOFILEHANDLE:
	case NFS4ERR_MOVED:
		return false;
	default:
		return true;
	}
}

/* Is the compound NFSv4.0 (seqids count)? */
static bool v40_compound(const struct fz_gen *g)
{
	return g->other_minor ? g->minor == 0 : g->a->kind == FZ_V40;
}

/*
 * The NFSv4.0 open owner whose seqid a request's seqid is checked against
 * (RFC 7530 9.1.7): an OPEN's own owner; for CLOSE, OPEN_CONFIRM,
 * OPEN_DOWNGRADE and a LOCK for a new lock owner (open_to_lock_owner4's
 * open_seqid, 16.10.4), the owner of the open stateid it carries, which
 * may be another owner of the actor's, or another actor's.  NULL: none
 * we follow.  *owner -1: an owner of that actor, not known which.
 */
static struct fz_actor *v40_target(struct fz_gen *g, const struct fz_rec *rec,
				   int *owner)
{
	struct fz_seq *s = g->s;
	const struct fz_sid *e;
	struct fz_actor *t;

	*owner = -1;
	if (!v40_compound(g))
		return NULL;
	if (rec->op == OP_OPEN) {
		if (g->a->kind != FZ_V40 || !rec->own_owner)
			return NULL;
		*owner = rec->owner;
		return g->a;
	}
	if (rec->op == OP_LOCK && !rec->lock_new_owner)
		return NULL;
	if (rec->sid < 0) {
		/* a pool stateid with its seqid or "other" changed: the
		 * former still names the open */
		if (rec->sid_owner < 0 ||
		    s->actors[rec->sid_owner].kind != FZ_V40)
			return NULL;
		return &s->actors[rec->sid_owner];
	}
	e = &s->sids[rec->sid];
	if (e->actor < 0)
		return NULL;
	t = &s->actors[e->actor];
	if (t->kind != FZ_V40 || e->incarnation != t->incarnation)
		return NULL;
	if (e->kind != SK_OPEN)
		return t;
	if (e->owner < 0)
		return NULL;
	*owner = e->owner;
	return t;
}

/*
 * Statuses a request surely got after its seqid was checked and its reply
 * kept.  Ganesha answers some others before the check, keeping nothing
 * (NFS4ERR_ROFS, ISDIR, OLD_STATEID, EXPIRED, ...), and NFS4_OK to a
 * CLOSE of an open it no longer finds (taken for a replayed CLOSE,
 * whatever its seqid).
 */
static bool v40_seqid_surely_moved(uint32_t op, uint32_t status)
{
	switch (status) {
	case NFS4_OK:
		return op != OP_CLOSE;
	case NFS4ERR_SHARE_DENIED:
		return op == OP_OPEN;
	case NFS4ERR_DENIED:
		return op == OP_LOCK;
	default:
		return false;
	}
}

/*
 * NFSv4.0: the server keeps the reply to an open owner's last request
 * that moved its seqid; a request with that same seqid is a replay and
 * gets that reply again, not a new answer (RFC 7530 9.1.7).  The
 * generator moves an OPEN's seqid by -2..+2 now and then, so an OPEN one
 * seqid back gets an earlier OPEN's result (seed 7's trace: the owner's
 * open stateid of another file): it grants nothing, and is not checked
 * as an open of the file it names.
 */
static void v40_keep_reply(struct fz_actor *t, int owner,
			   const struct fz_rec *rec, const struct nfs42_res *r)
{
	struct fz_v40_reply *k = &t->owner_reply[owner];

	k->valid = true;
	k->seqid = rec->seqid;
	k->op = rec->op;
	k->status = r->status;
	memset(&k->sid, 0, sizeof(k->sid));
	if (rec->op == OP_OPEN && r->status == NFS4_OK)
		k->sid = r->u.open.stateid;
}

/* Is this OPEN's reply the owner's kept one, sent again? */
static bool v40_open_replayed(struct fz_gen *g, const struct fz_rec *rec,
			      const struct nfs42_res *r)
{
	const struct fz_v40_reply *k;
	struct fz_actor *t;
	int owner;

	t = v40_target(g, rec, &owner);
	if (!t || owner < 0)
		return false;
	k = &t->owner_reply[owner];
	if (!k->valid || k->op != OP_OPEN || k->seqid != rec->seqid ||
	    k->status != r->status)
		return false;
	return r->status != NFS4_OK ||
	       (r->u.open.stateid.seqid == k->sid.seqid &&
		!memcmp(r->u.open.stateid.other, k->sid.other,
			NFS4_OTHER_SIZE));
}

/*
 * What a request carrying an open owner's seqid did to it.  A request
 * with the seqid the owner is known to be at (one past its last) is not
 * NFS4ERR_BAD_SEQID (*seqid*; a LOCK's may be its lock owner's).  A
 * request surely taken, new or a replay, leaves the owner at its seqid;
 * one with another status that may move the seqid moves it as the RFC
 * says (not after a replay), but the model no longer knows it.
 */
static void v40_learn_seqid(struct fz_gen *g, const struct fz_rec *rec,
			    const struct nfs42_res *r)
{
	struct fz_actor *t;
	uint32_t *next;
	int owner, i;

	t = v40_target(g, rec, &owner);
	if (!t)
		return;
	if (owner < 0) {
		if (v40_seqid_moves(r->status))
			for (i = 0; i < FZ_MAX_OPEN_OWNERS; i++)
				t->owner_seqid_known[i] = false;
		return;
	}
	next = &t->owner_seqid[owner];
	if (r->status == NFS4ERR_BAD_SEQID && rec->op != OP_LOCK &&
	    t->owner_seqid_known[owner] && rec->seqid == *next)
		fz_find(g->s, "seqid",
			"%s by actor %d with seqid %u, the one open owner %d of actor %d is at, answered NFS4ERR_BAD_SEQID",
			nfs42_opname(rec->op), g->a->id, rec->seqid, owner,
			t->id);
	if (!v40_seqid_moves(r->status))
		return;
	if (v40_seqid_surely_moved(rec->op, r->status)) {
		*next = rec->seqid + 1;
		t->owner_seqid_known[owner] = true;
	} else {
		if (rec->seqid + 1 != *next)
			(*next)++;
		t->owner_seqid_known[owner] = false;
	}
	v40_keep_reply(t, owner, rec, r);
}

/* A compound whose reply was not seen: what it did to seqids is not
 * known. */
static void v40_lost(struct fz_gen *g)
{
	struct fz_actor *t;
	unsigned int i;
	int owner, j;

	for (i = 0; i < g->nrec; i++) {
		switch (g->rec[i].op) {
		case OP_OPEN:
		case OP_OPEN_CONFIRM:
		case OP_OPEN_DOWNGRADE:
		case OP_CLOSE:
		case OP_LOCK:
			t = v40_target(g, &g->rec[i], &owner);
			if (!t)
				break;
			for (j = 0; j < FZ_MAX_OPEN_OWNERS; j++)
				if (owner < 0 || owner == j)
					t->owner_seqid_known[j] = false;
			break;
		}
	}
}

/* A new open stateid (OPEN, OPEN_CONFIRM, OPEN_DOWNGRADE answered): whose
 * open owner it is, when it is one of the actor's we follow. */
static void sid_owner(struct fz_gen *g, const struct fz_rec *rec, int idx)
{
	int owner;

	if (idx >= 0 && v40_target(g, rec, &owner) == g->a)
		g->s->sids[idx].owner = (int8_t)owner;
}

static void learn_open(struct fz_gen *g, const struct fz_rec *rec,
		       const struct nfs42_res *r, bool foreign)
{
	static const char *const claims[] = {
		"CLAIM_NULL",	       "CLAIM_PREVIOUS", "CLAIM_DELEGATE_CUR",
		"CLAIM_DELEGATE_PREV", "CLAIM_FH",	 "CLAIM_DELEG_CUR_FH",
		"CLAIM_DELEG_PREV_FH"
	};
	struct fz_seq *s = g->s;
	struct fz_actor *a = g->a;
	const struct nfs42_res *fh;
	int file = rec->file;
	char what[128];

	if (v40_open_replayed(g, rec, r)) {
		v40_learn_seqid(g, rec, r);
		/* what it says was learnt from the first answer */
		fz_log(s,
		       "  OPEN by actor %d answered from open owner %d's replay cache (seqid %u)",
		       a->id, rec->owner, rec->seqid);
		return;
	}
	v40_learn_seqid(g, rec, r);
	if (r->status != NFS4_OK)
		return;
	if (rec->getfh >= 0) {
		fh = nfs42_res(g->c, rec->getfh);
		file = fh && fh->op == OP_GETFH && fh->status == NFS4_OK ?
			       fz_file_by_fh(s, &fh->u.fh) :
			       -1;
	}
	/* checked against what the actor held before this OPEN */
	if (!foreign && (rec->a & OPEN4_SHARE_ACCESS_WRITE)) {
		snprintf(what, sizeof(what), "OPEN (%s) for writing",
			 rec->b < 7 ? claims[rec->b] : "?");
		fz_check_after_write(s, a, file, rec->claim_sid, rec->sid_desc,
				     what, rec->created);
	} else if (!foreign) {
		fz_check_after_read_open(s, a, file);
	}
	sid_owner(g, rec,
		  fz_add_sid(s, &r->u.open.stateid, SK_OPEN, a->id, file,
			     rec->a & 3, rec->deny & 3));
	if (r->u.open.deleg_type == OPEN_DELEGATE_READ ||
	    r->u.open.deleg_type == OPEN_DELEGATE_WRITE) {
		fz_add_sid(s, &r->u.open.deleg_stateid, SK_DELEG, a->id, file,
			   r->u.open.deleg_type, 0);
		if (!foreign)
			fz_check_after_grant(s, a, file, r->u.open.deleg_type);
	}
}

/*
 * Stateids belong to a client: over a session (NFSv4.1+) the server
 * answers NFS4ERR_BAD_STATEID for another client's (RFC 8881 8.2.1, as
 * knfsd looks them up among the session's client's only).  NFSv4.0 names
 * the client in the stateid itself and is not checked here.
 */
static bool check_scope(struct fz_gen *g, const struct fz_rec *rec)
{
	struct fz_seq *s = g->s;
	const char *file;

	if (rec->sid_owner < 0 || rec->sid_owner == g->a->id)
		return false;
	if (rec->op == OP_OPEN && rec->b != CLAIM_DELEGATE_CUR &&
	    rec->b != CLAIM_DELEG_CUR_FH)
		return false;
	/* SETATTR's stateid counts only when it changes the size (RFC 8881
	 * 18.30.3): ignored, it names nobody */
	if (rec->op == OP_SETATTR && !rec->modifies)
		return false;
	/* LAYOUTRETURN of a whole fsid or of all layouts sends no stateid
	 * (the record does not keep which kind it was) */
	if (rec->op == OP_LAYOUTRETURN)
		return false;
	/* NFSv4.0: the stateid names its client, whoever sends it: the
	 * operation is that client's (no finding, and none of the checks
	 * that follow from it) */
	if (!fz_actor_v4(g->a) || s->actors[rec->sid_owner].kind == FZ_V40)
		return true;
	file = rec->file >= 0 && rec->file < (int)s->nfiles ?
		       s->files[rec->file].name :
		       "a file";
	if (rec->sid >= 0 || rec->claim_sid >= 0) {
		const struct fz_sid *e =
			&s->sids[rec->sid >= 0 ? rec->sid : rec->claim_sid];
		static const char *const kinds[] = { "open",	   "lock",
						     "delegation", "layout",
						     "copy",	   "special" };

		fz_find(s, "stateid-scope",
			"%s on %s by actor %d succeeded with another client's (actor %d's) %s stateid",
			nfs42_opname(rec->op), file, g->a->id, e->actor,
			kinds[e->kind]);
	} else {
		fz_find(s, "stateid-scope",
			"%s on %s by actor %d succeeded with another client's stateid (%s)",
			nfs42_opname(rec->op), file, g->a->id, rec->sid_desc);
	}
	return true;
}

static void learn(struct fz_gen *g, const struct fz_rec *rec,
		  const struct nfs42_res *r)
{
	struct fz_seq *s = g->s;
	struct fz_actor *a = g->a;
	int kind = rec->sid >= 0 ? s->sids[rec->sid].kind : SK_SPECIAL;

	bool foreign;

	fz_note(s, rec->op, kind, r->status);
	/* what follows from another client's stateid is that finding */
	foreign = r->status == NFS4_OK && check_scope(g, rec);
	switch (rec->op) {
	case OP_OPEN:
		learn_open(g, rec, r, foreign);
		return;
	case OP_OPEN_CONFIRM:
	case OP_CLOSE:
	case OP_OPEN_DOWNGRADE:
		v40_learn_seqid(g, rec, r);
		break;
	case OP_LOCK:
		if (rec->lock_new_owner)
			v40_learn_seqid(g, rec, r);
		/* fall through */
	case OP_LOCKU:
		if (a->kind == FZ_V40 && v40_seqid_moves(r->status))
			a->lock_seqid++;
		break;
	}
	if (r->status != NFS4_OK)
		return;
	switch (rec->op) {
	case OP_CLOSE:
		if (rec->sid >= 0)
			sid_gone(s, &s->sids[rec->sid].sid);
		break;
	case OP_OPEN_CONFIRM:
		sid_owner(g, rec,
			  fz_add_sid(s, &r->u.stateid, SK_OPEN, a->id,
				     rec->file, 3, 0));
		break;
	case OP_OPEN_DOWNGRADE:
		if (rec->sid >= 0)
			sid_owner(g, rec,
				  fz_add_sid(s, &r->u.stateid, SK_OPEN, a->id,
					     rec->file, rec->a & 3,
					     rec->b & 3));
		break;
	case OP_LOCK:
		fz_add_sid(s, &r->u.lock.stateid, SK_LOCK, a->id, rec->file,
			   rec->a, 0);
		break;
	case OP_LOCKU:
		fz_add_sid(s, &r->u.stateid, SK_LOCK, a->id, rec->file, 0, 0);
		break;
	case OP_DELEGRETURN:
	case OP_FREE_STATEID:
		if (rec->sid >= 0)
			sid_gone(s, &s->sids[rec->sid].sid);
		break;
	case OP_LAYOUTGET:
		fz_add_sid(s, &r->u.layoutget.stateid, SK_LAYOUT, a->id,
			   rec->file, rec->a, 0);
		learn_layout(s, r, rec->file);
		break;
	case OP_LAYOUTRETURN:
		if (r->u.layoutreturn.present)
			fz_add_sid(s, &r->u.layoutreturn.stateid, SK_LAYOUT,
				   a->id, rec->file, 0, 0);
		break;
	case OP_COPY:
		if (r->u.copy.has_callback_id)
			fz_add_sid(s, &r->u.copy.callback_id, SK_COPY, a->id,
				   rec->file, 0, 0);
		break;
	}
	if (foreign)
		return;
	if (rec->modifies)
		fz_check_after_write(s, a, rec->file, rec->sid, rec->sid_desc,
				     nfs42_opname(rec->op), false);
	if (rec->attr_change && s->cfg->check_attr_recall)
		fz_check_after_attr(s, a, rec->file, nfs42_opname(rec->op));
}

static void learn_all(struct fz_gen *g, int rc)
{
	const struct nfs42_res *r;
	unsigned int i;

	for (i = 0; i < nfs42_compound_nres(g->c); i++) {
		r = nfs42_res(g->c, (int)i);
		if (r)
			fz_note(g->s, r->op, SK_NKINDS, r->status);
	}
	for (i = 0; i < g->nrec && !g->s->finding[0]; i++) {
		r = nfs42_res(g->c, g->rec[i].idx);
		if (!r || r->op != g->rec[i].op)
			continue;
		learn(g, &g->rec[i], r);
	}
	/* the session or client is gone: a new one next time */
	if (rc == NFS4ERR_BADSESSION || rc == NFS4ERR_DEADSESSION ||
	    rc == NFS4ERR_STALE_CLIENTID || rc == NFS4ERR_EXPIRED ||
	    rc == NFS4ERR_SEQ_MISORDERED)
		g->a->cl->dead_err = -ESTALE;
	for (i = 0; i < nfs42_compound_nres(g->c); i++) {
		r = nfs42_res(g->c, (int)i);
		if (r && r->status == NFS4_OK &&
		    (r->op == OP_DESTROY_SESSION ||
		     r->op == OP_DESTROY_CLIENTID))
			g->a->cl->dead_err = -ESTALE;
	}
}

/* ---------------------------------------------------------- actions */

static void take_recalls(struct fz_seq *s, struct fz_actor *a, struct fz_rng *r)
{
	struct nfs42_recall rec[NFS42_MAX_RECALLS];
	unsigned int n, i;

	if (!a->cl)
		return;
	n = nfs42_take_recalls(a->cl, rec, NFS42_MAX_RECALLS);
	s->st->callbacks += n;
	for (i = 0; i < n; i++)
		if (fz_chance(r, 75) &&
		    nfs42_delegreturn(a->cl, &rec[i].fh, &rec[i].stateid) == 0)
			sid_gone(s, &rec[i].stateid);
}

/* verbose: the compound's operations and what came back */
static void log_compound(struct fz_seq *s, struct nfs42_compound *c, int rc)
{
	char buf[1024];
	size_t len = 0;
	unsigned int i, n = nfs42_compound_nops(c);

	if (!s->cfg->verbose)
		return;
	buf[0] = 0;
	for (i = 0; i < n && len < sizeof(buf) - 40; i++)
		len += (size_t)snprintf(
			buf + len, sizeof(buf) - len, " %s",
			nfs42_opname(nfs42_compound_opnum(c, (int)i)));
	fz_log(s, "  [%s ] -> %s (%u results)", buf, nfs42_strerror(rc),
	       nfs42_compound_nres(c));
}

static struct nfs42_compound *new_compound(struct fz_gen *g)
{
	struct nfs42_compound *c = nfs42_compound_new(g->a->cl);

	nfs42_compound_no_retry(c);
	g->sane = fz_chance(g->r, 50);
	if (g->a->kind == FZ_V40)
		nfs42_compound_set_minorversion(c, 0);
	if (!g->sane && fz_chance(g->r, 2)) {
		g->other_minor = true;
		g->minor = fz_below(g->r, 5);
		nfs42_compound_set_minorversion(c, g->minor);
	}
	if (fz_chance(g->r, 5))
		nfs42_compound_cachethis(c, true);
	return c;
}

static uint32_t actor_minor(const struct fz_actor *a)
{
	return a->kind == FZ_V40 ? 0 : a->kind == FZ_V41 ? 1 : 2;
}

/* Fill g->c with a start (PUTFH mostly) and 1-5 operations. */
static void gen_ops(struct fz_gen *g)
{
	unsigned int n = 1 + fz_below(g->r, 5), i;
	struct nfs42_fh fh;
	int file;

	g->cur = g->saved = -1;
	if (g->sane)
		n = 1 + fz_below(g->r, 3);
	if (g->sane || fz_chance(g->r, 92)) {
		fz_pick_fh(g, &fh, &file);
		nfs42_op_putfh(g->c, &fh);
		g->cur = file;
	}
	/* a well-formed one opens first now and then: the operations
	 * after it have the current stateid to use */
	if (g->sane && fz_chance(g->r, 50))
		fz_gen_open(g);
	for (i = 0; i < n; i++)
		fz_gen_op(g, fz_pick_op(g, actor_minor(g->a)));
	/* which file the changes went to, when that was lost on the way */
	if (fz_chance(g->r, 50))
		nfs42_op_getfh(g->c);
	g->st->ops += n;
}

static void run_compound(struct fz_seq *s, struct fz_actor *a, struct fz_rng *r)
{
	struct fz_gen g = { .s = s, .st = s->st, .a = a, .r = r };
	int rc;

	g.c = new_compound(&g);
	gen_ops(&g);
	rc = nfs42_compound_run(g.c);
	log_compound(s, g.c, rc);
	s->st->compounds++;
	if (rc >= 0)
		learn_all(&g, rc);
	else
		v40_lost(&g);
	nfs42_compound_free(g.c);
	take_recalls(s, a, r);
}

/* Several compounds in flight at once on one session. */
static void run_burst(struct fz_seq *s, struct fz_actor *a, struct fz_rng *r)
{
	struct fz_gen g[4];
	unsigned int n = 2 + fz_below(r, 3), i;
	int rc;

	if (n > nfs42_slot_count(a->cl))
		n = nfs42_slot_count(a->cl);
	for (i = 0; i < n; i++) {
		memset(&g[i], 0, sizeof(g[i]));
		g[i].s = s;
		g[i].st = s->st;
		g[i].a = a;
		g[i].r = r;
		g[i].c = new_compound(&g[i]);
		gen_ops(&g[i]);
		nfs42_compound_start(g[i].c);
	}
	for (i = 0; i < n; i++) {
		rc = nfs42_compound_finish(g[i].c);
		log_compound(s, g[i].c, rc);
		s->st->compounds++;
		if (rc >= 0 && a->cl && !a->cl->dead_err)
			learn_all(&g[i], rc);
		else
			v40_lost(&g[i]);
		nfs42_compound_free(g[i].c);
	}
}

/* SEQUENCE with another session, slot or seqid; or none, or not first. */
static void run_seq_misuse(struct fz_seq *s, struct fz_actor *a,
			   struct fz_rng *r)
{
	struct fz_gen g = { .s = s, .st = s->st, .a = a, .r = r };
	struct nfs42_client *cl = a->cl;
	uint8_t sid[NFS4_SESSIONID_SIZE];
	uint32_t slot, seqid;
	unsigned int pick = fz_below(r, 10);
	const struct nfs42_res *sr;
	int rc, other = -1;
	bool retry;

	g.c = new_compound(&g);
	nfs42_compound_no_sequence(g.c);
	memcpy(sid, cl->sessionid, sizeof(sid));
	if (pick == 0) {
		struct fz_actor *o = &s->actors[fz_below(r, s->nactors)];

		if (o->cl && o->cl->have_session) {
			memcpy(sid, o->cl->sessionid, sizeof(sid));
			if (o != a)
				other = o->id;
		}
	} else if (pick == 1) {
		sid[fz_below(r, sizeof(sid))] ^= 1;
	}
	/* slot 0 is the library's; the others go wrong on purpose */
	slot = fz_chance(r, 70) ? 1 + fz_below(r, cl->nslots + 1) : fz_u32(r);
	seqid = slot < cl->nslots ? cl->slots[slot].seqid : 0;
	switch (fz_below(r, 5)) {
	case 0:
		seqid += 1;
		break;
	case 1:
		break; /* a retry: the replay cache */
	case 2:
		seqid += 2;
		break;
	default:
		seqid = fz_u32(r);
	}
	/* the slot's last seqid in the actor's own session: a retry, which
	 * the server answers with the slot's cached reply, that of the
	 * compound sent before on the slot whatever this one holds (RFC
	 * 8881 2.10.6.1.3: a false retry is NFS4ERR_SEQ_FALSE_RETRY only
	 * where the server tells it, and Ganesha does not)
	 */
	retry = slot < cl->nslots && !cl->slots[slot].poisoned &&
		seqid == cl->slots[slot].seqid &&
		!memcmp(sid, cl->sessionid, sizeof(sid));
	if (pick != 9) /* 9: no SEQUENCE at all */
		nfs42_op_sequence(g.c, sid, seqid, slot, fz_u32(r) & 0xff,
				  fz_chance(r, 40));
	gen_ops(&g);
	rc = nfs42_compound_run(g.c);
	log_compound(s, g.c, rc);
	s->st->compounds++;
	sr = nfs42_res(g.c, 0);
	/* what the server now expects on that slot */
	if (slot < cl->nslots && !memcmp(sid, cl->sessionid, sizeof(sid))) {
		if (sr && sr->op == OP_SEQUENCE && sr->status == NFS4_OK)
			cl->slots[slot].seqid = seqid;
		else
			cl->slots[slot].poisoned = true;
	}
	/* taken in another actor's session, the compound was that
	 * client's (its opens, its delegations' holder), sent with this
	 * actor's credentials: neither's to learn or check (seed 8's
	 * bypass: the holder of a write delegation opening its own file) */
	if (other >= 0 && sr && sr->op == OP_SEQUENCE &&
	    sr->status == NFS4_OK) {
		fz_log(s, "  compound of actor %d ran in actor %d's session",
		       a->id, other);
		nfs42_compound_free(g.c);
		return;
	}
	/* the replay cache's answer is another compound's: its results
	 * are not this one's operations' (the hour run's bypass: a cached
	 * OPEN of another file taken for this compound's OPEN of a file
	 * another actor holds a write delegation of)
	 */
	if (retry && pick != 9 && sr && sr->op == OP_SEQUENCE &&
	    sr->status == NFS4_OK) {
		fz_log(s,
		       "  compound of actor %d answered from the replay cache",
		       a->id);
		nfs42_compound_free(g.c);
		return;
	}
	if (rc >= 0)
		learn_all(&g, rc);
	nfs42_compound_free(g.c);
}

/* A compound sent in part (or whole), then the connection closed. */
static void run_drop_mid(struct fz_seq *s, struct fz_actor *a, struct fz_rng *r)
{
	struct fz_gen g = { .s = s, .st = s->st, .a = a, .r = r };
	struct nfs42_client *cl = a->cl;
	struct nfs42_xdr x;
	uint32_t slot, seqid, highest, mark;
	size_t len, cut;

	g.c = new_compound(&g);
	nfs42_compound_no_sequence(g.c);
	if (a->kind != FZ_V40 &&
	    nfs42_slot_get(cl, &slot, &seqid, &highest) == 0) {
		nfs42_op_sequence(g.c, cl->sessionid, seqid, slot, highest,
				  false);
		/* whether the server took it is not known */
		cl->slots[slot].busy = true;
		cl->slots[slot].poisoned = true;
	}
	gen_ops(&g);
	nfs42_xdr_enc_init(&x);
	nfs42_rpc_encode_call(cl, &x, nfs42_next_xid(cl), 1);
	nfs42_compound_encode(g.c, &x);
	len = x.len - 4;
	mark = 0x80000000u | (uint32_t)len;
	cut = fz_chance(r, 50) ? fz_below(r, (uint32_t)len) : len;
	x.buf[0] = (uint8_t)(mark >> 24);
	x.buf[1] = (uint8_t)(mark >> 16);
	x.buf[2] = (uint8_t)(mark >> 8);
	x.buf[3] = (uint8_t)mark;
	if (write(cl->fd, x.buf, 4 + cut) < 0)
		fz_log(s, "drop_mid: write: %s", strerror(errno));
	v40_lost(&g);
	nfs42_xdr_free(&x);
	nfs42_compound_free(g.c);
	fz_actor_drop(s, a);
}

/* Now or later, answered or not: what the actor does with its back
 * channel. */
static void run_poll(struct fz_seq *s, struct fz_actor *a, struct fz_rng *r)
{
	if (fz_chance(r, 30)) {
		a->cb_mode = fz_chance(r, 50) ? 0 : (int)fz_below(r, 5);
		return;
	}
	if (a->cb_mode != 4)
		nfs42_poll(a->cl, (int)fz_below(r, 200));
	take_recalls(s, a, r);
}

/* A second CREATE_SESSION, EXCHANGE_ID again, BIND_CONN_TO_SESSION, a
 * DESTROY_SESSION or DESTROY_CLIENTID, all outside the session. */
static void run_session_op(struct fz_seq *s, struct fz_actor *a,
			   struct fz_rng *r)
{
	struct nfs42_client *cl = a->cl;
	struct nfs42_compound *c = nfs42_compound_new(cl);
	struct nfs42_chan_attrs fore = { 0, 1 << 20, 1 << 20, 8192, 16, 4 };
	struct nfs42_chan_attrs back = { 0, 4096, 4096, 0, 2, 1 };
	uint8_t verf[NFS4_VERIFIER_SIZE];
	struct fz_gen g = { .s = s, .st = s->st, .a = a, .r = r, .c = c };
	int rc;

	nfs42_compound_no_sequence(c);
	nfs42_compound_no_retry(c);
	switch (fz_below(r, 6)) {
	case 0:
		memcpy(verf, cl->verifier, sizeof(verf));
		if (fz_chance(r, 30))
			verf[0] ^= 1;
		nfs42_op_exchange_id(c, verf, cl->owner_id,
				     strlen(cl->owner_id),
				     fz_chance(r, 80) ?
					     fz_below(r, 8) << 16 | 1 :
					     fz_u32(r));
		break;
	case 1:
		if (fz_chance(r, 50)) {
			fore.maxreq = fz_u32(r);
			fore.maxresp = fz_u32(r);
			fore.maxresp_cached = fz_u32(r);
			fore.maxops = fz_u32(r);
			fore.maxreqs = fz_u32(r);
			back.maxreqs = fz_u32(r);
		}
		nfs42_op_create_session(
			c, fz_chance(r, 85) ? cl->clientid : fz_next(r),
			fz_chance(r, 60) ? cl->cs_seqid : fz_u32(r),
			fz_chance(r, 80) ? 2 : fz_u32(r), &fore, &back,
			NFS42_CB_PROGRAM_DEFAULT, a->uid, a->gid, "fz");
		break;
	case 2:
	case 3:
		fz_gen_op(&g, OP_BIND_CONN_TO_SESSION);
		break;
	case 4:
		if (fz_chance(r, 70)) {
			nfs42_op_destroy_session(c, cl->sessionid);
			break;
		}
		/* fall through */
	default:
		nfs42_op_destroy_clientid(c, fz_chance(r, 85) ? cl->clientid :
								fz_next(r));
	}
	rc = nfs42_compound_run(c);
	log_compound(s, c, rc);
	s->st->compounds++;
	if (rc == 0) {
		uint32_t op = nfs42_compound_opnum(c, 0);

		if (op == OP_DESTROY_SESSION || op == OP_DESTROY_CLIENTID)
			cl->dead_err = -ESTALE;
	}
	nfs42_compound_free(c);
}

/* OPEN a file, then LAYOUTGET under its open stateid (as a client does). */
static void get_a_layout(struct fz_seq *s, struct fz_actor *a, uint64_t seed)
{
	struct fz_rng r = { seed };
	struct fz_gen g = { .s = s, .st = s->st, .a = a, .r = &r, .sane = true };
	const struct nfs42_res *res;
	struct nfs42_stateid open_sid;
	struct fz_rec *rec;
	unsigned int i;
	uint32_t iomode;
	int rc, idx;

	if (!s->nregular || !a->cl || a->cl->dead_err)
		return;
	i = fz_below(&r, s->nregular);
	if (!s->files[i].have_fh)
		return;
	g.c = nfs42_compound_new(a->cl);
	nfs42_compound_no_retry(g.c);
	g.saved = -1;
	nfs42_op_putfh(g.c, &s->files[i].fh);
	g.cur = (int)i;
	fz_gen_open_cur(&g);
	rc = nfs42_compound_run(g.c);
	log_compound(s, g.c, rc);
	s->st->compounds++;
	if (rc >= 0)
		learn_all(&g, rc);
	else
		v40_lost(&g);
	res = rc == 0 ? nfs42_res(g.c, g.rec[0].idx) : NULL;
	if (res)
		open_sid = res->u.open.stateid;
	nfs42_compound_free(g.c);
	if (!res)
		return;
	iomode = fz_chance(&r, 70) ? LAYOUTIOMODE4_RW : LAYOUTIOMODE4_READ;
	g.c = nfs42_compound_new(a->cl);
	nfs42_compound_no_retry(g.c);
	g.nrec = 0;
	g.pick_desc[0] = 0;
	g.pick_owner = a->id;
	nfs42_op_putfh(g.c, &s->files[i].fh);
	idx = nfs42_op_layoutget(g.c, LAYOUT4_NFSV4_1_FILES, iomode, 0,
				 UINT64_MAX, 0, &open_sid, 4096);
	rec = fz_record(&g, idx, OP_LAYOUTGET, (int)i);
	if (rec)
		rec->a = iomode;
	rc = nfs42_compound_run(g.c);
	log_compound(s, g.c, rc);
	s->st->compounds++;
	if (rc >= 0)
		learn_all(&g, rc);
	nfs42_compound_free(g.c);
}

/* A compound to the data server: its handles, extreme counts. */
static void run_ds(struct fz_seq *s, struct fz_actor *a, struct fz_rng *r)
{
	static const unsigned int w[] = { 30, 20, 8, 10, 5, 5, 8 };
	static uint8_t buf[16384];
	struct fz_gen g = { .s = s, .st = s->st, .a = a, .r = r };
	struct nfs42_client *ds;
	struct nfs42_stateid sid;
	struct nfs42_bitmap bm = nfs42_bm_stat();
	unsigned int n = 1 + fz_below(r, 3), i;
	uint32_t len;
	int file = -1, sidx, rc, widx = -1, wsid = -1;
	uint64_t off;

	if (fz_actor_ds(s, a, &ds))
		return;
	/* I/O to a data server needs a layout first, as a client gets
	 * one: the first data-server action of a sequence makes one (with
	 * its own choices, the action's are unchanged) */
	if (!s->ndsfh)
		get_a_layout(s, a, r->s ^ 0x1a7007ull);
	g.c = nfs42_compound_new(ds);
	nfs42_compound_no_retry(g.c);
	if (s->ndsfh && fz_chance(r, 85)) {
		i = fz_below(r, s->ndsfh);
		nfs42_op_putfh(g.c, &s->dsfh[i]);
		file = s->dsfh_file[i];
	} else {
		struct nfs42_fh fh;

		fz_pick_fh(&g, &fh, &file);
		nfs42_op_putfh(g.c, &fh);
	}
	for (i = 0; i < n; i++) {
		sidx = fz_pick_sid(
			&g, file,
			1u << SK_LAYOUT | 1u << SK_OPEN | 1u << SK_DELEG, &sid);
		off = fz_chance(r, 75) ? fz_below(r, 256 * 1024) : fz_u64(r);
		switch (fz_weighted(r, w, 7)) {
		case 0:
			nfs42_op_read(g.c, &sid, off, fz_u32(r));
			break;
		case 1:
			len = fz_below(r, sizeof(buf) + 1);
			memset(buf, 'a' + a->id, len);
			widx = nfs42_op_write(g.c, &sid, off, fz_below(r, 3),
					      buf, len);
			wsid = sidx;
			break;
		case 2:
			nfs42_op_commit(g.c, off, fz_u32(r));
			break;
		case 3:
			nfs42_op_read_plus(g.c, &sid, off, fz_u32(r));
			break;
		case 4:
			nfs42_op_getattr(g.c, &bm);
			break;
		case 5:
			nfs42_op_seek(g.c, &sid, off, fz_below(r, 2));
			break;
		default:
			fz_gen_op(&g, fz_pick_op(&g, 2));
		}
	}
	rc = nfs42_compound_run(g.c);
	log_compound(s, g.c, rc);
	s->st->compounds++;
	if (rc == 0 && widx >= 0 && s->cfg->check_ds_writes)
		fz_check_after_write(s, a, file, wsid, g.pick_desc,
				     "data-server WRITE", false);
	if (rc == NFS4ERR_BADSESSION || rc == NFS4ERR_STALE_CLIENTID)
		ds->dead_err = -ESTALE;
	nfs42_compound_free(g.c);
}

/* NFSv3: READ, WRITE, SETATTR, CREATE, REMOVE, RENAME with extreme
 * counts, offsets and sizes. */
static void run_v3(struct fz_seq *s, struct fz_actor *a, struct fz_rng *r)
{
	static uint8_t buf[16384];
	struct fz_file *f;
	struct nfs3_fh dir;
	uint32_t got, len;
	bool eof;
	int file = (int)fz_below(r, s->nfiles), rc = -1;

	f = &s->files[file];
	if (!f->have_fh3)
		return;
	switch (fz_below(r, 6)) {
	case 0:
		nfs3_read(&a->v3, &f->fh3,
			  fz_chance(r, 70) ? fz_below(r, 1 << 18) : fz_u64(r),
			  fz_u32(r), buf, &got, &eof);
		break;
	case 1:
	case 2:
		len = fz_below(r, sizeof(buf) + 1);
		memset(buf, 'a' + a->id, len);
		rc = nfs3_write(&a->v3, &f->fh3,
				fz_chance(r, 70) ? fz_below(r, 1 << 18) :
						   fz_u64(r),
				buf, len, &got);
		if (rc == 0)
			fz_check_after_write(s, a, file, -1, NULL,
					     "NFSv3 WRITE", false);
		break;
	case 3:
		rc = nfs3_setattr(
			&a->v3, &f->fh3,
			fz_chance(r, 60) ? (int64_t)fz_below(r, 1 << 17) :
					   (int64_t)fz_u64(r),
			fz_chance(r, 50) ? -1 : (int32_t)(fz_u32(r) & 07777));
		if (rc == 0)
			fz_check_after_write(s, a, file, -1, NULL,
					     "NFSv3 SETATTR", false);
		break;
	case 4:
		if (nfs3_lookup(&a->v3, &f->fh3, nfs3_str(".."), &dir) == 0)
			nfs3_create(&a->v3, &dir, nfs3_str("v3new"),
				    fz_u32(r) & 0777, NULL);
		break;
	default:
		if (nfs3_lookup(&a->v3, &f->fh3, nfs3_str(".."), &dir) == 0)
			nfs3_rename(&a->v3, &dir, nfs3_str("v3new"), &dir,
				    nfs3_str(fz_chance(r, 50) ? "v3b" : "n0"));
	}
	if (rc < 0 && rc != -1)
		a->v3_up = false;
}

/*
 * chmod(2) follows a symbolic link: a chmod of l0 changes f0's mode.
 * Every file that is the object chmod-ed (the same inode) is marked, not
 * only the name it was reached by.
 */
static void mark_local_chmod(struct fz_seq *s, int file, const char *path)
{
	struct stat st;
	unsigned int i;

	s->files[file].local_chmod = true;
	if (stat(path, &st))
		return;
	for (i = 0; i < s->nfiles; i++)
		if (s->files[i].ino == st.st_ino)
			s->files[i].local_chmod = true;
}

/* Behind the server: a local open (breaks its leases), write, chmod. */
static void run_local(struct fz_seq *s, struct fz_rng *r)
{
	char path[PATH_MAX + 64];
	int file = (int)fz_below(r, s->nfiles), fd;

	fz_backing_path(s, file, path, sizeof(path));
	switch (fz_below(r, 3)) {
	case 0:
		fd = open(path, O_RDWR | O_NONBLOCK | O_NOFOLLOW);
		if (fd >= 0) {
			if (pwrite(fd, "L", 1, fz_below(r, 65536)) < 0)
				fz_log(s, "local write: %s", strerror(errno));
			close(fd);
		}
		break;
	case 1:
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
		if (fd >= 0)
			close(fd);
		break;
	default:
		if (chmod(path, file_modes[fz_below(r, 8)]))
			fz_log(s, "local chmod: %s", strerror(errno));
		mark_local_chmod(s, file, path);
	}
}

enum fz_action_kind {
	A_COMPOUND,
	A_DS,
	A_POLL,
	A_RETURN,
	A_SEQ_MISUSE,
	A_SESSION,
	A_DROP_MID,
	A_DROP,
	A_BURST,
	A_RESTART,
	A_LOCAL,
	A_NKINDS
};

static const unsigned int action_w[A_NKINDS] = { 62, 9, 6, 4, 4, 3,
						 2,  1, 4, 1, 2 };

static const char *const kind_names[] = { "v4.0", "v4.1", "v4.2", "v3" };

void fz_seq_action(struct fz_seq *s, uint64_t action_seed)
{
	struct fz_rng r = { action_seed };
	struct fz_actor *a = &s->actors[fz_below(&r, s->nactors)];
	unsigned int kind = fz_weighted(&r, action_w, A_NKINDS);

	s->st->actions++;
	fz_log(s, "action %016llx: actor %d (%s), kind %u",
	       (unsigned long long)action_seed, a->id, kind_names[a->kind],
	       kind);
	if (kind == A_LOCAL) {
		run_local(s, &r);
		return;
	}
	if (kind == A_RESTART) /* a client reboot, its state held */
		fz_actor_drop(s, a);
	if (fz_actor_connect(s, a, kind == A_RESTART || fz_chance(&r, 40)) ||
	    kind == A_RESTART)
		return;
	if (a->kind == FZ_V3) {
		run_v3(s, a, &r);
		return;
	}
	if (a->cb_mode != 4 || fz_chance(&r, 10))
		nfs42_poll(a->cl, 0);
	if (a->kind == FZ_V40 && kind != A_DROP && kind != A_DROP_MID)
		kind = A_COMPOUND;
	switch (kind) {
	case A_DS:
		run_ds(s, a, &r);
		break;
	case A_POLL:
		run_poll(s, a, &r);
		break;
	case A_RETURN:
		take_recalls(s, a, &r);
		run_compound(s, a, &r);
		break;
	case A_SEQ_MISUSE:
		run_seq_misuse(s, a, &r);
		break;
	case A_SESSION:
		run_session_op(s, a, &r);
		break;
	case A_DROP_MID:
		run_drop_mid(s, a, &r);
		break;
	case A_DROP:
		fz_actor_drop(s, a);
		break;
	case A_BURST:
		run_burst(s, a, &r);
		break;
	default:
		run_compound(s, a, &r);
	}
}

/*
 * A client that ends politely first answers its callbacks and gives its
 * delegations back (FREE_STATEID for revoked ones), as a client does
 * before unmounting; the others just go (a restart: the server must
 * end their state itself, after revoking what it recalled).
 */
static void return_everything(struct fz_seq *s, struct fz_actor *a)
{
	struct fz_rng r = { s->seed ^ (uint64_t)a->id };
	unsigned int i;
	int rc;

	if (!fz_actor_v4(a) || !a->cl || a->cl->dead_err ||
	    !a->cl->have_session)
		return;
	a->cb_mode = 0;
	nfs42_poll(a->cl, 0);
	take_recalls(s, a, &r);
	for (i = 0; i < s->nsids; i++) {
		struct fz_sid *e = &s->sids[i];

		if (e->actor != a->id || e->kind != SK_DELEG || e->gone ||
		    e->incarnation != a->incarnation || e->file < 0)
			continue;
		rc = nfs42_delegreturn(a->cl, &s->files[e->file].fh, &e->sid);
		if (rc == NFS4ERR_DELEG_REVOKED)
			nfs42_free_stateid(a->cl, &e->sid);
		e->gone = true;
	}
}

struct teardown_arg {
	struct fz_seq *s;
	struct fz_actor *a;
};

static void *teardown_one(void *p)
{
	struct teardown_arg *t = p;

	if (t->a->polite_end)
		return_everything(t->s, t->a);
	fz_actor_close(t->s, t->a, true);
	return NULL;
}

void fz_seq_teardown(struct fz_seq *s)
{
	unsigned int i;

	pthread_t th[FZ_MAX_ACTORS];
	struct teardown_arg args[FZ_MAX_ACTORS];
	bool started[FZ_MAX_ACTORS];

	/* in parallel: a restart may wait a lease period for the server */
	s->tearing_down = true;
	for (i = 0; i < s->nactors; i++) {
		args[i].s = s;
		args[i].a = &s->actors[i];
		started[i] =
			!pthread_create(&th[i], NULL, teardown_one, &args[i]);
		if (!started[i])
			teardown_one(&args[i]);
	}
	for (i = 0; i < s->nactors; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}
