/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Shared helpers of the e2e_fsal_* suites (issue #3): unique names, file
 * handles by path, one-shot compounds, OPEN with every knob, backing-store
 * facts (lstat, pread, SEEK_DATA/SEEK_HOLE) and server control.
 *
 * Every test runs in its own forked process (Check's default), against the
 * one server the harness started for the program; names carry the pid so
 * tests never see each other's files.
 */
#ifndef E2E_FSAL_UTIL_H
#define E2E_FSAL_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "nfs42_e2e.h"

/* "prefix-<pid>-<n>": unique per test process and call. */
static inline char *e2e_uniq(const char *prefix)
{
	static unsigned int n;
	char *p;

	ck_assert_int_gt(asprintf(&p, "%s-%d-%u", prefix, (int)getpid(), ++n),
			 0);
	return e2e_keep(p);
}

/* printf-style relative path */
static inline char *e2e_fmt(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&p, fmt, ap);
	va_end(ap);
	ck_assert_int_gt(rc, 0);
	return e2e_keep(p);
}

static inline bool e2e_is_vfs(void)
{
	const char *f = getenv("NFS42_FSAL");

	return f && !strcmp(f, "VFS");
}

/* File handle of the export-relative path rel; returns the NFS status. */
static inline int e2e_fh_rc(struct nfs42_client *cl, const char *rel,
			    struct nfs42_fh *fh)
{
	char *p = e2e_path(rel);
	int rc = nfs42_lookup_path(cl, p, fh, NULL);

	free(p);
	return rc;
}

static inline struct nfs42_fh e2e_fh(struct nfs42_client *cl, const char *rel)
{
	struct nfs42_fh fh;
	int rc = e2e_fh_rc(cl, rel, &fh);

	ck_assert_msg(rc == 0, "lookup '%s': %s", rel, nfs42_strerror(rc));
	return fh;
}

static inline int e2e_getattr_rc(struct nfs42_client *cl,
				 const struct nfs42_fh *fh,
				 const struct nfs42_bitmap *bm,
				 struct nfs42_attrs *a)
{
	struct nfs42_bitmap def = nfs42_bm_stat();

	memset(a, 0, sizeof(*a));
	return nfs42_getattr_fh(cl, fh, bm ? bm : &def, a);
}

static inline struct nfs42_attrs e2e_getattr(struct nfs42_client *cl,
					     const struct nfs42_fh *fh,
					     const struct nfs42_bitmap *bm)
{
	struct nfs42_attrs a;
	int rc = e2e_getattr_rc(cl, fh, bm, &a);

	ck_assert_msg(rc == 0, "GETATTR: %s", nfs42_strerror(rc));
	return a;
}

/* The change attribute of fh (which the server must return). */
static inline uint64_t e2e_change(struct nfs42_client *cl,
				  const struct nfs42_fh *fh)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_CHANGE, -1);
	struct nfs42_attrs a = e2e_getattr(cl, fh, &bm);

	ck_assert(nfs42_bm_isset(&a.mask, FATTR4_CHANGE));
	return a.change;
}

/* Attributes of rel, looked up by path. */
static inline struct nfs42_attrs e2e_stat(struct nfs42_client *cl,
					  const char *rel,
					  const struct nfs42_bitmap *bm)
{
	struct nfs42_fh fh = e2e_fh(cl, rel);

	return e2e_getattr(cl, &fh, bm);
}

/* A compound that starts with PUTFH fh (or PUTROOTFH if fh is NULL). */
static inline struct nfs42_compound *e2e_cpd(struct nfs42_client *cl,
					     const struct nfs42_fh *fh)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);

	ck_assert_ptr_nonnull(c);
	if (fh)
		nfs42_op_putfh(c, fh);
	else
		nfs42_op_putrootfh(c);
	return c;
}

/* A compound that starts PUTFH saved, SAVEFH, PUTFH cur: the two-handle
 * start of RENAME (source dir, target dir) and LINK (object, dir). */
static inline struct nfs42_compound *e2e_cpd2(struct nfs42_client *cl,
					      const struct nfs42_fh *saved,
					      const struct nfs42_fh *cur)
{
	struct nfs42_compound *c = e2e_cpd(cl, saved);

	nfs42_op_savefh(c);
	nfs42_op_putfh(c, cur);
	return c;
}

/* Run c, free it and return the compound status. */
static inline int e2e_cpd_run(struct nfs42_compound *c)
{
	int rc = nfs42_compound_run(c);

	nfs42_compound_free(c);
	return rc;
}

/* Run c, whose op idx returns a stateid: *sid gets it on success.  Frees
 * c and returns the compound status. */
static inline int e2e_cpd_run_sid(struct nfs42_compound *c, int idx,
				  struct nfs42_stateid *sid)
{
	int rc = nfs42_compound_run(c);

	if (!rc)
		*sid = nfs42_res(c, idx)->u.stateid;
	nfs42_compound_free(c);
	return rc;
}

/* ACCESS want on fh: what is granted; *supported (may be NULL) gets what
 * the server could check. */
static inline uint32_t e2e_access(struct nfs42_client *cl,
				  const struct nfs42_fh *fh, uint32_t want,
				  uint32_t *supported)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	uint32_t got;
	int i, rc;

	i = nfs42_op_access(c, want);
	rc = nfs42_compound_run(c);
	ck_assert_msg(rc == 0, "ACCESS: %s", nfs42_strerror(rc));
	got = nfs42_res(c, i)->u.access.access;
	if (supported)
		*supported = nfs42_res(c, i)->u.access.supported;
	nfs42_compound_free(c);
	return got;
}

/* Status of op idx; fails the test if the op was not executed. */
static inline int e2e_op_status(struct nfs42_compound *c, int idx)
{
	const struct nfs42_res *r = nfs42_res(c, idx);

	ck_assert_msg(r != NULL, "op %d (%s) was not executed", idx,
		      nfs42_opname(nfs42_compound_opnum(c, idx)));
	return (int)r->status;
}

/* ALLOCATE (alloc) or DEALLOCATE [off, off+len) on f: the op's status. */
static inline int e2e_fallocate(struct nfs42_client *cl,
				const struct nfs42_file *f, bool alloc,
				uint64_t off, uint64_t len)
{
	struct nfs42_compound *c = e2e_cpd(cl, &f->fh);
	int i, rc;

	if (alloc)
		i = nfs42_op_allocate(c, &f->stateid, off, len);
	else
		i = nfs42_op_deallocate(c, &f->stateid, off, len);
	rc = nfs42_compound_run(c);
	if (rc && nfs42_res(c, i))
		rc = e2e_op_status(c, i);
	nfs42_compound_free(c);
	return rc;
}

#define ck_nfs_status(expr, want)                                            \
	do {                                                                 \
		int _rc = (expr), _w = (want);                               \
		ck_assert_msg(_rc == _w, "%s: got %s (%d), want %s", #expr,  \
			      nfs42_strerror(_rc), _rc, nfs42_strerror(_w)); \
	} while (0)

#define ck_nfs_status2(expr, w1, w2)                                        \
	do {                                                                \
		int _rc = (expr);                                           \
		ck_assert_msg(_rc == (w1) || _rc == (w2),                   \
			      "%s: got %s (%d), want %s or %s", #expr,      \
			      nfs42_strerror(_rc), _rc, nfs42_strerror(w1), \
			      nfs42_strerror(w2));                          \
	} while (0)

/* ---------------------------------------------------------------- OPEN */

struct e2e_open_req {
	uint32_t access; /* OPEN4_SHARE_ACCESS_* (WANT_NO_DELEG added) */
	uint32_t deny;
	int createmode; /* NFS42_NOCREATE, UNCHECKED4, GUARDED4, EXCLUSIVE4_1 */
	const struct nfs42_sattr *attrs;
	const uint8_t *verf; /* EXCLUSIVE4_1 */
	const char *owner; /* NULL: a fresh owner */
};

/*
 * OPEN name in the directory dir (CLAIM_NULL) + GETFH.  Fills f on
 * success; *cinfo (may be NULL) gets the directory change info and
 * *attrset the attributes the server set.
 */
static inline int e2e_open_ex(struct nfs42_client *cl,
			      const struct nfs42_fh *dir, const char *name,
			      const struct e2e_open_req *rq,
			      struct nfs42_file *f,
			      struct nfs42_bitmap *attrset)
{
	static unsigned int seq;
	struct nfs42_open_args a = { 0 };
	struct nfs42_compound *c = e2e_cpd(cl, dir);
	int rc, oi, fi;

	memset(f, 0, sizeof(*f));
	f->cl = cl;
	if (rq->owner)
		snprintf(f->owner, sizeof(f->owner), "%s", rq->owner);
	else
		snprintf(f->owner, sizeof(f->owner), "e2e-fsal-%d-%u",
			 (int)getpid(), ++seq);
	a.share_access = rq->access | OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
	a.share_deny = rq->deny;
	a.owner = f->owner;
	a.owner_len = strlen(f->owner);
	a.createmode = rq->createmode;
	a.attrs = rq->attrs;
	if (rq->verf)
		memcpy(a.verifier, rq->verf, NFS4_VERIFIER_SIZE);
	a.claim = CLAIM_NULL;
	a.name = name;
	oi = nfs42_op_open(c, &a);
	fi = nfs42_op_getfh(c);
	rc = nfs42_compound_run(c);
	if (!rc) {
		f->stateid = nfs42_res(c, oi)->u.open.stateid;
		f->fh = nfs42_res(c, fi)->u.fh;
		f->share_access = rq->access & OPEN4_SHARE_ACCESS_BOTH;
		if (attrset)
			*attrset = nfs42_res(c, oi)->u.open.attrset;
	}
	nfs42_compound_free(c);
	return rc;
}

/* OPEN/create (GUARDED4, read and write) name in dir with attributes sa. */
static inline int e2e_open_guarded(struct nfs42_client *cl,
				   const struct nfs42_fh *dir, const char *name,
				   const struct nfs42_sattr *sa,
				   struct nfs42_file *f)
{
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = GUARDED4,
				   .attrs = sa };

	return e2e_open_ex(cl, dir, name, &rq, f, NULL);
}

/* OPEN export-relative path rel. */
static inline int e2e_open(struct nfs42_client *cl, const char *rel,
			   const struct e2e_open_req *rq, struct nfs42_file *f)
{
	char *parent, *p = e2e_path(rel);
	const char *name;
	struct nfs42_fh dir;
	int rc;

	ck_assert_int_eq(nfs42_split_path(p, &parent, &name), 0);
	rc = nfs42_lookup_path(cl, parent, &dir, NULL);
	if (!rc)
		rc = e2e_open_ex(cl, &dir, name, rq, f, NULL);
	free(parent);
	free(p);
	return rc;
}

/*
 * A loop-device fixture (loopfs-lib.sh) in dir is usable: else the test
 * is skipped with the reason the fixture wrote to dir/skip.
 */
static inline bool e2e_fixture_ready(const char *dir)
{
	char reason[256] = "";
	char *path = e2e_fmt("%s/skip", dir);
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return true;
	if (fgets(reason, sizeof(reason), f) == NULL)
		strcpy(reason, "fixture could not run");
	fclose(f);
	e2e_skip(reason);
	return false;
}

/* OPEN name (no create) in dir with access; fails the test on error. */
static inline struct nfs42_file e2e_open_in(struct nfs42_client *cl,
					    const struct nfs42_fh *dir,
					    const char *name, uint32_t access)
{
	struct e2e_open_req rq = { .access = access,
				   .createmode = NFS42_NOCREATE };
	struct nfs42_file f;
	int rc = e2e_open_ex(cl, dir, name, &rq, &f, NULL);

	ck_assert_msg(rc == 0, "OPEN %s: %s", name, nfs42_strerror(rc));
	return f;
}

/* Open rel for reading and writing, no create. */
static inline struct nfs42_file e2e_open_rw(struct nfs42_client *cl,
					    const char *rel)
{
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = NFS42_NOCREATE };
	struct nfs42_file f;
	int rc = e2e_open(cl, rel, &rq, &f);

	ck_assert_msg(rc == 0, "OPEN %s: %s", rel, nfs42_strerror(rc));
	return f;
}

/* Create (UNCHECKED4, mode 0644) and open rel for reading and writing. */
static inline struct nfs42_file e2e_create_rw(struct nfs42_client *cl,
					      const char *rel)
{
	struct nfs42_sattr sa;
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_BOTH,
				   .createmode = UNCHECKED4,
				   .attrs = &sa };
	struct nfs42_file f;
	int rc;

	nfs42_sattr_init(&sa);
	nfs42_sattr_mode(&sa, 0644);
	rc = e2e_open(cl, rel, &rq, &f);
	ck_assert_msg(rc == 0, "OPEN/CREATE %s: %s", rel, nfs42_strerror(rc));
	return f;
}

/* One WRITE; returns the status, fills count/committed/verf if non-NULL. */
static inline int e2e_write(struct nfs42_client *cl, const struct nfs42_fh *fh,
			    const struct nfs42_stateid *sid, uint64_t off,
			    enum nfs42_stable_how how, const void *data,
			    uint32_t len, uint32_t *count, uint32_t *committed,
			    uint8_t *verf)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	const struct nfs42_res *r;
	int rc, i;

	i = nfs42_op_write(c, sid, off, how, data, len);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, i);
	if (!rc && r) {
		if (count)
			*count = r->u.write.count;
		if (committed)
			*committed = r->u.write.committed;
		if (verf)
			memcpy(verf, r->u.write.verf, NFS4_VERIFIER_SIZE);
	}
	nfs42_compound_free(c);
	return rc;
}

/* One READ into buf (at most cap bytes copied). */
static inline int e2e_read(struct nfs42_client *cl, const struct nfs42_fh *fh,
			   const struct nfs42_stateid *sid, uint64_t off,
			   uint32_t count, void *buf, uint32_t cap,
			   uint32_t *nread, bool *eof)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	const struct nfs42_res *r;
	int rc, i;

	i = nfs42_op_read(c, sid, off, count);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, i);
	if (!rc && r) {
		ck_assert_uint_le(r->u.read.len, count);
		ck_assert_uint_le(r->u.read.len, cap);
		if (r->u.read.len)
			memcpy(buf, r->u.read.data, r->u.read.len);
		*nread = r->u.read.len;
		*eof = r->u.read.eof;
	}
	nfs42_compound_free(c);
	return rc;
}

/* Read [off, off+len) entirely (several READs; fails on short EOF). */
static inline void e2e_read_all(struct nfs42_client *cl,
				const struct nfs42_fh *fh,
				const struct nfs42_stateid *sid, uint64_t off,
				void *buf, size_t len)
{
	uint32_t chunk = nfs42_io_size(cl), n = 0;
	size_t done = 0;
	bool eof = false;
	int rc;

	while (done < len) {
		uint32_t want = len - done > chunk ? chunk : len - done;

		rc = e2e_read(cl, fh, sid, off + done, want,
			      (uint8_t *)buf + done, want, &n, &eof);
		ck_assert_msg(rc == 0, "READ at %llu: %s",
			      (unsigned long long)(off + done),
			      nfs42_strerror(rc));
		ck_assert_msg(n > 0, "READ at %llu: 0 bytes before the end",
			      (unsigned long long)(off + done));
		done += n;
	}
}

static inline int e2e_seek(struct nfs42_client *cl, const struct nfs42_fh *fh,
			   const struct nfs42_stateid *sid, uint64_t off,
			   enum nfs42_content what, uint64_t *res, bool *eof)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);
	const struct nfs42_res *r;
	int rc, i;

	i = nfs42_op_seek(c, sid, off, what);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, i);
	if (!rc && r) {
		*res = r->u.seek.offset;
		*eof = r->u.seek.eof;
	}
	nfs42_compound_free(c);
	return rc;
}

/* OPEN_DOWNGRADE f to access/deny; *out gets the new open stateid. */
static inline int e2e_open_downgrade(struct nfs42_client *cl,
				     const struct nfs42_file *f,
				     uint32_t access, uint32_t deny,
				     struct nfs42_stateid *out)
{
	struct nfs42_compound *c = e2e_cpd(cl, &f->fh);
	int i = nfs42_op_open_downgrade(c, &f->stateid, 0, access, deny);

	return e2e_cpd_run_sid(c, i, out);
}

/* CLOSE f; returns the status. */
static inline int e2e_close(struct nfs42_file *f)
{
	return nfs42_close(f);
}

static const struct nfs42_stateid e2e_anon_stateid; /* all zeros */

/* SETATTR sa on fh with the anonymous stateid; returns the status. */
static inline int e2e_setattr_fh(struct nfs42_client *cl,
				 const struct nfs42_fh *fh,
				 const struct nfs42_sattr *sa)
{
	struct nfs42_compound *c = e2e_cpd(cl, fh);

	nfs42_op_setattr(c, &e2e_anon_stateid, sa);
	return e2e_cpd_run(c);
}

/* --------------------------------------------------------- backing store */

static inline int e2e_blstat(const char *rel, struct stat *st)
{
	char *p = e2e_backing(rel);
	int rc = lstat(p, st);

	free(p);
	return rc;
}

static inline struct stat e2e_bstat(const char *rel)
{
	struct stat st;

	ck_assert_msg(e2e_blstat(rel, &st) == 0, "lstat backing %s: %s", rel,
		      strerror(errno));
	return st;
}

static inline bool e2e_bexists(const char *rel)
{
	struct stat st;

	return e2e_blstat(rel, &st) == 0;
}

static inline int e2e_bopen(const char *rel, int flags)
{
	char *p = e2e_backing(rel);
	int fd = open(p, flags, 0644);

	ck_assert_msg(fd >= 0, "open backing %s: %s", rel, strerror(errno));
	free(p);
	return fd;
}

/* pread the backing file exactly. */
static inline void e2e_bpread(const char *rel, void *buf, size_t len, off_t off)
{
	int fd = e2e_bopen(rel, O_RDONLY);

	ck_assert_int_eq(pread(fd, buf, len, off), (ssize_t)len);
	close(fd);
}

/* lseek SEEK_DATA/SEEK_HOLE on the backing file (-1 with errno). */
static inline off_t e2e_bseek(const char *rel, off_t off, int whence)
{
	int fd = e2e_bopen(rel, O_RDONLY);
	off_t r = lseek(fd, off, whence);
	int e = errno;

	close(fd);
	errno = e;
	return r;
}

static inline void e2e_bmkdir(const char *rel, mode_t mode)
{
	char *p = e2e_backing(rel);

	ck_assert_msg(mkdir(p, mode) == 0 || errno == EEXIST, "mkdir %s: %s", p,
		      strerror(errno));
	chmod(p, mode);
	free(p);
}

/* Backing directory rel that everybody may create in; its handle. */
static inline struct nfs42_fh e2e_world_dir(struct nfs42_client *cl,
					    const char *rel)
{
	char *bp = e2e_backing(rel);

	e2e_bmkdir(rel, 0777);
	ck_assert_int_eq(chmod(bp, 0777), 0);
	free(bp);
	return e2e_fh(cl, rel);
}

/* Deterministic pseudo-random bytes. */
static inline uint8_t *e2e_rand_bytes(size_t n, unsigned int seed)
{
	uint8_t *b = malloc(n);

	ck_assert_ptr_nonnull(b);
	for (size_t i = 0; i < n; i++)
		b[i] = rand_r(&seed) >> 7;
	return b;
}

static inline bool e2e_all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* ---------------------------------------------------------- listings */

/* The names of one READDIR (at most 64). */
struct e2e_names {
	int n;
	char *v[64];
};

/* nfs42_readdir_path() callback filling a struct e2e_names. */
static inline int e2e_names_collect(void *arg, const struct nfs42_dirent *e)
{
	struct e2e_names *s = arg;

	ck_assert_int_lt(s->n, 64);
	s->v[s->n++] = e2e_keep(strdup(e->name));
	return 0;
}

static inline bool e2e_names_has(const struct e2e_names *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return true;
	return false;
}

/* ---------------------------------------------------------- server ctl */

/* "$NFS42_SERVER_CTL verb"; fails the test if it does not exit 0. */
static inline void e2e_server_ctl(const char *verb)
{
	char *cmd;
	int rc;

	ck_assert_int_gt(asprintf(&cmd, "'%s' %s", e2e_env("NFS42_SERVER_CTL"),
				  verb),
			 0);
	rc = system(cmd);
	ck_assert_msg(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0,
		      "%s failed (%d)", cmd, rc);
	free(cmd);
}

/*
 * A client for a server that just (re)started: the first compounds may
 * meet NFS4ERR_GRACE or a server still settling; retry for a while.
 */
static inline struct nfs42_client *e2e_client_after_restart(void)
{
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;
	int rc = -1, i;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	for (i = 0; i < 100; i++) {
		rc = nfs42_client_create(&o, &cl);
		if (!rc)
			break;
		nfs42_client_free(cl);
		cl = NULL;
		usleep(100 * 1000);
	}
	ck_assert_msg(rc == 0, "client after restart: %s", nfs42_strerror(rc));
	return cl;
}

/* Exit 77 (skipped) unless root: for suites whose tests need other
 * credentials or privileged changes. */
static inline void e2e_require_root(const char *suite)
{
	if (geteuid() != 0) {
		printf("%s: needs root, skipped\n", suite);
		exit(77);
	}
}

/* Print the tail of the server log (context for a failure). */
static inline void e2e_log_tail(int lines)
{
	char *cmd;

	if (asprintf(&cmd, "tail -n %d '%s' >&2", lines, e2e_env("NFS42_LOG")) >
	    0) {
		if (system(cmd) == -1)
			perror("system");
		free(cmd);
	}
}

#endif /* E2E_FSAL_UTIL_H */
