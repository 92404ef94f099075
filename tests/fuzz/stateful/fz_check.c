/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * The invariants.
 *
 * After every action: the servers are alive and have written no
 * sanitizer report (ASan, UBSan) and no FATAL line.
 *
 * After an operation that changed a file's data or size (WRITE, SETATTR
 * of the size, ALLOCATE, DEALLOCATE, COPY, CLONE, an OPEN that truncates,
 * NFSv3 WRITE and SETATTR) or opened it for writing, by an actor A:
 *   - no other actor holds, still valid (its own TEST_STATEID answers
 *     NFS4_OK), a delegation on the file or an open that denies writing:
 *     the server must have recalled or refused first (no conflict bypass);
 *   - unless A used an open, lock or write delegation of its own on that
 *     file with write access (checked when it was opened), A may open
 *     the file for writing: root, its owner, or the mode's group/other
 *     write bit (no write without permission).
 * After an OPEN for reading: no other actor holds a valid write
 * delegation.  After a delegation is granted: no other actor holds a
 * valid open that conflicts with it.
 *
 * At the end of a sequence, after every actor's client was destroyed: a
 * fresh client is answered by both servers; the servers hold no lease
 * or lock on the sequence's files (/proc/locks); a new client can open
 * each file with DENY_BOTH and lock all of it (no state left behind).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "fz.h"
#include "internal.h"

void fz_find(struct fz_seq *s, const char *kind, const char *fmt, ...)
{
	va_list ap;

	char msg[sizeof(s->finding)];
	unsigned int i;

	if (s->finding[0])
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* --known: a finding already reported, counted and passed over */
	for (i = 0; i < s->cfg->nknown; i++) {
		if (strstr(msg, s->cfg->known[i])) {
			s->st->known++;
			fz_log(s, "known finding passed over: %s", msg);
			return;
		}
	}
	snprintf(s->finding_kind, sizeof(s->finding_kind), "%s", kind);
	snprintf(s->finding, sizeof(s->finding), "%s", msg);
}

/* coverage: (op, status) pairs and (op, stateid kind, status) triples */
void fz_note(struct fz_seq *s, uint32_t op, int kind, uint32_t status)
{
	struct fz_stats *st = s->st;
	uint32_t h = (op % 128) * 131 + status % 10200;
	uint32_t bit = h % (sizeof(st->pairs) * 8);

	if (status == NFS4_OK && kind == SK_NKINDS)
		st->op_ok[op < 80 ? op : 79]++;

	if (!(st->pairs[bit / 8] & (1u << (bit % 8)))) {
		st->pairs[bit / 8] |= (uint8_t)(1u << (bit % 8));
		st->npairs++;
		s->new_coverage = true;
	}
	if (kind >= SK_NKINDS)
		return;
	h = h * 7 + (uint32_t)kind;
	bit = h % (sizeof(st->triples) * 8);
	if (!(st->triples[bit / 8] & (1u << (bit % 8)))) {
		st->triples[bit / 8] |= (uint8_t)(1u << (bit % 8));
		st->ntriples++;
		s->new_coverage = true;
	}
}

/* ---------------------------------------------------------- servers */

static pid_t read_pid(const char *file)
{
	FILE *f = fopen(file, "r");
	long pid = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return (pid_t)pid;
}

static bool pid_alive(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[1] && p[2] != 'Z' && p[2] != 'X';
}

bool fz_servers_alive(struct fz_seq *s)
{
	unsigned int i;
	pid_t pid;

	for (i = 0; i < s->cfg->npids; i++) {
		pid = read_pid(s->cfg->pid_files[i]);
		if (pid > 0 && !pid_alive(pid)) {
			fz_find(s, "crash", "server process %d (%s) died",
				(int)pid, s->cfg->pid_files[i]);
			return false;
		}
	}
	return true;
}

static long log_offsets[8];

static void sleep_ms(int ms);

/* Wait (at most 20 s) for a server that reported to exit: the report is
 * whole then. */
static void wait_servers_exit(struct fz_seq *s)
{
	unsigned int i, n;

	for (n = 0; n < 80; n++) {
		for (i = 0; i < s->cfg->npids; i++) {
			pid_t pid = read_pid(s->cfg->pid_files[i]);

			if (pid > 0 && !pid_alive(pid))
				return;
		}
		sleep_ms(250);
	}
}

/* The report from offset on: its first line, its SUMMARY and the first
 * frames of its stack (function and file:line), on one line. */
static void report_text(FILE *f, long at, char *out, size_t size)
{
	char line[4096], *p;
	size_t len = 0;
	int frames = 0, freed = -1;
	bool first = true;

	fseek(f, at, SEEK_SET);
	out[0] = 0;
	while (fgets(line, sizeof(line), f) && len + 64 < size) {
		const char *sum = strstr(line, "SUMMARY: ");
		const char *in = strstr(line, " in ");
		bool frame = in && strstr(line, "#");

		line[strcspn(line, "\n")] = 0;
		if (first) {
			p = strstr(line, "ERROR: ");
			p = p ? p : line;
			/* the kind, not where it was this time */
			if (strstr(p, " on address "))
				*strstr(p, " on address ") = 0;
			len += (size_t)snprintf(out + len, size - len, "%.300s",
						p);
			first = false;
		} else if (sum) {
			len += (size_t)snprintf(out + len, size - len, " | %s",
						sum);
			break;
		} else if (strstr(line, "freed by thread")) {
			/* who freed it: the functions, not where they are */
			len += (size_t)snprintf(out + len, size - len,
						" | freed by:");
			freed = 0;
		} else if (freed >= 0 && freed < 5 && frame) {
			in += 4;
			len += (size_t)snprintf(out + len, size - len, " %.*s",
						(int)strcspn(in, " "), in);
			freed++;
		} else if (frames < 4 && freed < 0 && frame) {
			len += (size_t)snprintf(out + len, size - len, " | %s",
						in + 4);
			frames++;
		}
	}
}

static void scan_log(struct fz_seq *s, const char *path, long *off,
		     const char *const *pats, const char *kind,
		     const char *label)
{
	char line[4096], text[1000];
	FILE *f = fopen(path, "r");
	long end, at;

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	end = ftell(f);
	if (end < *off)
		*off = 0;
	fseek(f, *off, SEEK_SET);
	for (at = ftell(f); fgets(line, sizeof(line), f); at = ftell(f)) {
		for (const char *const *p = pats; *p; p++) {
			if (!strstr(line, *p) || s->finding[0])
				continue;
			if (!strcmp(kind, "sanitizer")) {
				wait_servers_exit(s);
				report_text(f, at, text, sizeof(text));
			} else {
				line[strcspn(line, "\n")] = 0;
				snprintf(text, sizeof(text), "%.990s", line);
			}
			fz_find(s, kind, "%s: %s", label, text);
			fseek(f, 0, SEEK_END);
			break;
		}
	}
	*off = ftell(f);
	fclose(f);
}

static const char *const san_pats[] = { "ERROR: AddressSanitizer",
					"runtime error:",
					"AddressSanitizer:DEADLYSIGNAL",
					"ERROR: LeakSanitizer", NULL };
static const char *const fatal_pats[] = { " :FATAL :", NULL };

void fz_check_logs(struct fz_seq *s)
{
	unsigned int i;

	for (i = 0; i < s->cfg->nlogs; i++)
		scan_log(s, s->cfg->logs[i], &log_offsets[i], san_pats,
			 "sanitizer", i ? "data server" : "metadata server");
	for (i = 0; i < s->cfg->nglogs; i++)
		scan_log(s, s->cfg->glogs[i], &log_offsets[4 + i], fatal_pats,
			 "fatal", i ? "data server" : "metadata server");
}

/* From now on only new log lines count. */
void fz_logs_mark(struct fz_cfg *cfg)
{
	unsigned int i;
	FILE *f;

	for (i = 0; i < cfg->nlogs + cfg->nglogs && i < 8; i++) {
		const char *p = i < cfg->nlogs ? cfg->logs[i] :
						 cfg->glogs[i - cfg->nlogs];
		long *off =
			&log_offsets[i < cfg->nlogs ? i : 4 + i - cfg->nlogs];

		f = fopen(p, "r");
		if (!f)
			continue;
		fseek(f, 0, SEEK_END);
		*off = ftell(f);
		fclose(f);
	}
}

/* ---------------------------------------------------------- state */

/* TEST_STATEID of sid by its own actor: the status, -1 when it cannot
 * be asked (no session, connection gone). */
static int actor_test_sid(struct fz_actor *x, const struct nfs42_stateid *sid)
{
	struct nfs42_compound *c;
	const struct nfs42_res *r;
	int rc, idx, st = -1;

	if (!fz_actor_v4(x) || !x->cl || x->cl->dead_err ||
	    !x->cl->have_session)
		return -1;
	c = nfs42_compound_new(x->cl);
	nfs42_compound_no_retry(c);
	idx = nfs42_op_test_stateid(c, sid, 1);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (rc == 0 && r && r->u.test_stateid.n == 1)
		st = (int)r->u.test_stateid.status[0];
	nfs42_compound_free(c);
	return st;
}

static const char *sid_kind_name(const struct fz_sid *e)
{
	if (e->kind == SK_DELEG)
		return e->access == OPEN_DELEGATE_WRITE ? "write delegation" :
							  "read delegation";
	if (e->kind == SK_OPEN)
		return "open";
	return "stateid";
}

/*
 * Does another actor than a still hold, valid, state on file that the
 * operation `what` conflicts with?  conflicts(e) says which of its
 * stateids would.
 */
static void check_conflicts(struct fz_seq *s, struct fz_actor *a, int file,
			    const char *what,
			    bool (*conflicts)(const struct fz_sid *e))
{
	unsigned int i;
	struct fz_sid *e;
	struct fz_actor *x;

	for (i = 0; i < s->nsids && !s->finding[0]; i++) {
		e = &s->sids[i];
		if (e->actor < 0 || e->actor == a->id || e->file != file ||
		    e->gone || !conflicts(e))
			continue;
		x = &s->actors[e->actor];
		if (e->incarnation != x->incarnation)
			continue;
		if (actor_test_sid(x, &e->sid) == NFS4_OK)
			fz_find(s, "bypass",
				"%s by actor %d (uid %u, %s) on %s succeeded while actor %d still holds a valid %s on it (share access %u deny %u)",
				what, a->id, a->uid,
				a->kind == FZ_V3  ? "NFSv3" :
				a->kind == FZ_V40 ? "NFSv4.0" :
				a->kind == FZ_V41 ? "NFSv4.1" :
						    "NFSv4.2",
				s->files[file].name, x->id, sid_kind_name(e),
				e->kind == SK_OPEN ? e->access : 0,
				e->kind == SK_OPEN ? e->deny : 0);
	}
}

static bool conflicts_with_write(const struct fz_sid *e)
{
	return e->kind == SK_DELEG ||
	       (e->kind == SK_OPEN && (e->deny & OPEN4_SHARE_DENY_WRITE));
}

static bool conflicts_with_read(const struct fz_sid *e)
{
	return (e->kind == SK_DELEG && e->access == OPEN_DELEGATE_WRITE) ||
	       (e->kind == SK_OPEN && (e->deny & OPEN4_SHARE_DENY_READ));
}

static bool conflicts_with_write_deleg(const struct fz_sid *e)
{
	return e->kind == SK_OPEN || e->kind == SK_DELEG;
}

static bool conflicts_with_read_deleg(const struct fz_sid *e)
{
	return (e->kind == SK_OPEN && (e->access & OPEN4_SHARE_ACCESS_WRITE)) ||
	       (e->kind == SK_DELEG && e->access == OPEN_DELEGATE_WRITE);
}

static bool may_write(const struct fz_actor *a, const struct stat *st)
{
	if (a->uid == 0 || a->uid == st->st_uid)
		return true;
	if (a->gid == st->st_gid)
		return st->st_mode & S_IWGRP;
	return st->st_mode & S_IWOTH;
}

/* The actor's own open, lock or write delegation of file with write
 * access? */
static bool own_write_state(struct fz_seq *s, struct fz_actor *a, int file,
			    int sid)
{
	const struct fz_sid *e;

	if (sid < 0)
		return false;
	e = &s->sids[sid];
	if (e->actor != a->id || e->file != file ||
	    e->incarnation != a->incarnation)
		return false;
	return (e->kind == SK_OPEN && (e->access & OPEN4_SHARE_ACCESS_WRITE)) ||
	       (e->kind == SK_DELEG && e->access == OPEN_DELEGATE_WRITE) ||
	       e->kind == SK_LOCK || e->kind == SK_LAYOUT;
}

/* "OP with actor X's open stateid of f2" */
static void describe_use(struct fz_seq *s, const char *what, int sid,
			 const char *sid_desc, char *buf, size_t size)
{
	static const char *const kinds[] = { "open",   "lock", "delegation",
					     "layout", "copy", "special" };
	const struct fz_sid *e;

	if (sid < 0) {
		if (sid_desc && *sid_desc)
			snprintf(buf, size, "%s with %s", what, sid_desc);
		else
			snprintf(buf, size, "%s", what);
		return;
	}
	e = &s->sids[sid];
	snprintf(buf, size, "%s with actor %d's %s stateid of %s%s", what,
		 e->actor, kinds[e->kind],
		 e->file >= 0 && e->file < (int)s->nfiles ?
			 s->files[e->file].name :
			 "an unknown file",
		 e->gone ? " (closed/returned)" : "");
}

/* An OPEN again of a file the actor has open for writing (opened when
 * its mode allowed it) gives it nothing it did not have. */
static bool holds_write_open(struct fz_seq *s, struct fz_actor *a, int file)
{
	unsigned int i;

	for (i = 0; i < s->nsids; i++)
		if (own_write_state(s, a, file, (int)i) && !s->sids[i].gone &&
		    s->sids[i].kind == SK_OPEN)
			return true;
	return false;
}

void fz_check_after_write(struct fz_seq *s, struct fz_actor *a, int file,
			  int sid, const char *sid_desc, const char *what,
			  bool created)
{
	char path[PATH_MAX + 64], use[256];
	struct stat st;

	if (file < 0 || file >= (int)s->nfiles || s->files[file].dir)
		return;
	describe_use(s, what, sid, sid_desc, use, sizeof(use));
	what = use;
	check_conflicts(s, a, file, what, conflicts_with_write);
	if (created || own_write_state(s, a, file, sid) ||
	    (sid < 0 && !strncmp(what, "OPEN", 4) &&
	     holds_write_open(s, a, file)))
		return;
	/* a mode changed behind the server's attribute cache: the server
	 * may decide on the one it knew (not a finding of the protocol) */
	if (s->files[file].local_chmod)
		return;
	fz_backing_path(s, file, path, sizeof(path));
	if (lstat(path, &st) || st.st_ino != s->files[file].ino)
		return; /* not the object the handle names any more */
	if (!may_write(a, &st))
		fz_find(s, "permission",
			"%s by actor %d (uid %u gid %u) on %s succeeded, mode %04o owner %u:%u does not let it open the file for writing",
			what, a->id, a->uid, a->gid, s->files[file].name,
			st.st_mode & 07777, st.st_uid, st.st_gid);
}

void fz_check_after_read_open(struct fz_seq *s, struct fz_actor *a, int file)
{
	if (file < 0 || file >= (int)s->nfiles)
		return;
	check_conflicts(s, a, file, "OPEN for reading", conflicts_with_read);
}

void fz_check_after_grant(struct fz_seq *s, struct fz_actor *a, int file,
			  uint32_t type)
{
	if (file < 0 || file >= (int)s->nfiles)
		return;
	check_conflicts(s, a, file,
			type == OPEN_DELEGATE_WRITE ? "write delegation grant" :
						      "read delegation grant",
			type == OPEN_DELEGATE_WRITE ?
				conflicts_with_write_deleg :
				conflicts_with_read_deleg);
}

static bool deleg_only(const struct fz_sid *e)
{
	return e->kind == SK_DELEG;
}

void fz_check_after_attr(struct fz_seq *s, struct fz_actor *a, int file,
			 const char *what)
{
	if (file < 0 || file >= (int)s->nfiles)
		return;
	check_conflicts(s, a, file, what, deleg_only);
}

/* ---------------------------------------------------------- the end */

static int fresh_client(struct fz_seq *s, uint16_t port, uint32_t flags,
			struct nfs42_client **out)
{
	struct nfs42_opts o;
	int rc;

	nfs42_opts_init(&o);
	o.host = s->cfg->host;
	o.port = port;
	o.uid = o.gid = 0;
	/* longer than the kernel's lease-break-time (45 s): an open that
	 * waits for a lease break (issue #26 item 5) is slow, not a hang */
	o.timeout_ms = 60000;
	o.connect_timeout_ms = 60000;
	o.exchgid_flags = flags;
	o.no_back_channel = true;
	rc = nfs42_client_create(&o, out);
	if (rc) {
		nfs42_client_free(*out);
		*out = NULL;
	}
	return rc;
}

/* Lease or lock lines of /proc/locks on the sequence's files. */
static int leftover_locks(struct fz_seq *s, char *line, size_t size)
{
	char buf[512], path[PATH_MAX + 64], id[64];
	struct stat st;
	unsigned int i;
	int n = 0;
	FILE *f = fopen("/proc/locks", "r");

	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f)) {
		for (i = 0; i < s->nfiles; i++) {
			fz_backing_path(s, (int)i, path, sizeof(path));
			if (lstat(path, &st) || st.st_ino != s->files[i].ino)
				continue;
			snprintf(id, sizeof(id), " %02x:%02x:%lu ",
				 major(st.st_dev), minor(st.st_dev),
				 (unsigned long)st.st_ino);
			if (strstr(buf, id)) {
				buf[strcspn(buf, "\n")] = 0;
				snprintf(line, size, "%s (%s)", buf,
					 s->files[i].name);
				n++;
			}
		}
	}
	fclose(f);
	return n;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* OPEN DENY_BOTH (no delegation wanted) and LOCK of the whole file by a
 * new client: whatever the destroyed clients held must be gone. */
static void check_can_take(struct fz_seq *s, struct nfs42_client *cl, int i)
{
	struct nfs42_compound *c;
	struct nfs42_open_args oa;
	struct nfs42_lock_owner lo = { 0, "chk", 3 };
	const struct nfs42_res *r;
	int rc = NFS4ERR_DELAY, tries, oidx, lidx;

	/* DELAY while a destroyed client's recall or cleanup finishes;
	 * SHARE_DENIED for a moment too (cleanup may be asynchronous) */
	for (tries = 0;
	     tries < 40 &&
	     (rc == NFS4ERR_DELAY || (rc == NFS4ERR_SHARE_DENIED && tries < 8));
	     tries++) {
		if (tries)
			sleep_ms(250);
		c = nfs42_compound_new(cl);
		nfs42_compound_no_retry(c);
		memset(&oa, 0, sizeof(oa));
		oa.share_access = OPEN4_SHARE_ACCESS_BOTH |
				  OPEN4_SHARE_ACCESS_WANT_NO_DELEG;
		oa.share_deny = OPEN4_SHARE_DENY_BOTH;
		oa.owner = "checker";
		oa.owner_len = 7;
		oa.createmode = NFS42_NOCREATE;
		oa.claim = CLAIM_FH;
		nfs42_op_putfh(c, &s->files[i].fh);
		oidx = nfs42_op_open(c, &oa);
		rc = nfs42_compound_run(c);
		if (rc == 0) {
			struct nfs42_stateid osid, lsid;

			r = nfs42_res(c, oidx);
			osid = r->u.open.stateid;
			nfs42_compound_free(c);
			c = nfs42_compound_new(cl);
			nfs42_compound_no_retry(c);
			nfs42_op_putfh(c, &s->files[i].fh);
			lidx = nfs42_op_lock_new(c, WRITE_LT, false, 0,
						 UINT64_MAX, 0, &osid, 0, &lo);
			rc = nfs42_compound_run(c);
			r = nfs42_res(c, lidx);
			if (rc == 0 && r)
				lsid = r->u.lock.stateid;
			if (rc == NFS4ERR_DENIED)
				fz_find(s, "leftover",
					"%s: a new client's LOCK of the whole file is NFS4ERR_DENIED after every client was destroyed",
					s->files[i].name);
			nfs42_compound_free(c);
			/* the checker leaves nothing either */
			c = nfs42_compound_new(cl);
			nfs42_op_putfh(c, &s->files[i].fh);
			if (rc == 0)
				nfs42_op_locku(c, WRITE_LT, 0, &lsid, 0,
					       UINT64_MAX);
			nfs42_op_close(c, 0, &osid);
			nfs42_compound_run(c);
		}
		nfs42_compound_free(c);
	}
	if (rc == NFS4ERR_SHARE_DENIED || rc == NFS4ERR_DELAY)
		fz_find(s, "leftover",
			"%s: a new client's OPEN with DENY_BOTH is %s after every client was destroyed",
			s->files[i].name, nfs42_strerror(rc));
}

/* Both servers serve a fresh client; the metadata server's, or NULL. */
static struct nfs42_client *responsive(struct fz_seq *s)
{
	struct nfs42_client *cl;
	int rc;

	if (!fz_servers_alive(s))
		return NULL;
	rc = fresh_client(s, s->cfg->port, 0, &cl);
	if (rc) {
		fz_find(s, "unresponsive",
			"the metadata server does not serve a fresh client: %s",
			nfs42_strerror(rc));
		return NULL;
	}
	if (s->cfg->ds_port) {
		struct nfs42_client *ds;

		rc = fresh_client(s, s->cfg->ds_port, EXCHGID4_FLAG_USE_PNFS_DS,
				  &ds);
		if (rc)
			fz_find(s, "unresponsive",
				"the data server does not serve a fresh client: %s",
				nfs42_strerror(rc));
		else
			nfs42_client_free(ds);
	}
	return cl;
}

void fz_check_responsive(struct fz_seq *s)
{
	struct nfs42_client *cl = responsive(s);

	if (cl) {
		nfs42_session_destroy(cl);
		nfs42_client_free(cl);
	}
}

void fz_check_end(struct fz_seq *s)
{
	struct nfs42_client *cl = responsive(s);
	char line[600];
	unsigned int i;
	int tries;

	if (!cl)
		return;
	if (s->destroy_failed) {
		/* a client still there may hold what it holds */
		fz_log(s, "a client could not be destroyed: no leftover check");
		nfs42_client_free(cl);
		return;
	}
	/* the destroyed clients' leases and locks (freed asynchronously
	 * by some paths: give them a moment) */
	for (tries = 0; tries < 20; tries++) {
		if (!leftover_locks(s, line, sizeof(line)))
			break;
		sleep_ms(250);
	}
	if (tries == 20)
		fz_find(s, "leftover",
			"the server still holds a lease or lock after every client was destroyed: %s",
			line);
	for (i = 0; i < s->nfiles && !s->finding[0]; i++)
		if (s->files[i].have_fh && !s->files[i].dir &&
		    strcmp(s->files[i].name, "l0"))
			check_can_take(s, cl, (int)i);
	nfs42_session_destroy(cl);
	nfs42_client_free(cl);
}
