/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Read delegations on FSAL_SPARSE (issue #11): client A holds a read
 * delegation, and client B (or a local process on the server) does
 * something that conflicts with it.  A serves its back channel on a
 * thread of its own and returns the delegation on CB_RECALL (or, for the
 * revocation test, keeps it); B's call is retried by the library while
 * the server answers NFS4ERR_DELAY.
 *
 * Run with the export's Delegations = Read (default argument) or with
 * Delegations = None (argument "none": nothing is delegated); argument
 * "wire" runs the OPEN conflict alone, for wire_check_deleg.sh.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "e2e_deleg_util.h"

/* Longer than any wait below needs, shorter than ctest's timeout. */
#define SERVE_MS 30000

static const char *uniq(const char *what)
{
	return e2e_deleg_uniq("deleg", what);
}

/* A file made on the server's disk, so no NFS open ever had it for
 * writing (a read lease needs that).
 */
static const char *local_file(const char *what)
{
	const char *name = uniq(what);

	e2e_put_backing(name, "delegated", 9);
	return name;
}

static void open_delegated(struct nfs42_client *a, const char *name,
			   struct nfs42_file *f)
{
	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, f));
	ck_assert_msg(f->deleg_type == OPEN_DELEGATE_READ,
		      "OPEN gave delegation type %u (why %u), not READ",
		      f->deleg_type, f->why_no_deleg);
}

/* Client A's back channel, served on a thread while B works. */
struct holder {
	struct nfs42_client *cl;
	bool give_back;
	pthread_t thread;
	int rc; /* of nfs42_serve_recalls */
	unsigned int n; /* recalls taken */
	struct nfs42_recall recall;
};

static void *holder_main(void *arg)
{
	struct holder *h = arg;

	h->rc = nfs42_serve_recalls(h->cl, SERVE_MS, h->give_back, &h->recall,
				    1, &h->n);
	return NULL;
}

static void holder_start(struct holder *h, struct nfs42_client *cl,
			 bool give_back)
{
	memset(h, 0, sizeof(*h));
	h->cl = cl;
	h->give_back = give_back;
	ck_assert_int_eq(pthread_create(&h->thread, NULL, holder_main, h), 0);
}

/* The holder got exactly one CB_RECALL, for delegation f. */
static void holder_check(struct holder *h, const struct nfs42_file *f)
{
	ck_assert_int_eq(pthread_join(h->thread, NULL), 0);
	ck_assert_msg(h->rc == 0, "holder: %s", nfs42_strerror(h->rc));
	ck_assert_msg(h->n == 1, "holder took %u recalls", h->n);
	ck_assert(!memcmp(h->recall.stateid.other, f->deleg_stateid.other,
			  NFS4_OTHER_SIZE));
	ck_assert_uint_eq(h->recall.fh.len, f->fh.len);
	ck_assert(!memcmp(h->recall.fh.data, f->fh.data, f->fh.len));
}

/* B's OPEN for write on a thread of its own (waits out a recall). */
struct opener_arg {
	struct nfs42_client *cl;
	const char *name;
	struct nfs42_file *f;
	int rc;
};

static void *open_write(void *arg)
{
	struct opener_arg *o = arg;

	o->rc = nfs42_open(o->cl, e2e_path(o->name), OPEN4_SHARE_ACCESS_WRITE,
			   NFS42_NOCREATE, 0, false, o->f);
	return NULL;
}

/* B's conflicting OPEN for write: recalled, returned, then granted. */
START_TEST(t_open_conflict)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = local_file("open");
	struct nfs42_file fa, fb;
	struct holder h;

	open_delegated(a, name, &fa);
	holder_start(&h, a, true);
	ck_nfs_ok(b, nfs42_open(b, e2e_path(name), OPEN4_SHARE_ACCESS_WRITE,
				NFS42_NOCREATE, 0, false, &fb));
	holder_check(&h, &fa);
	ck_assert_uint_eq(nfs42_recalls_received(a), 1);
	/* Returned: the delegation stateid is gone. */
	ck_assert_int_ne(nfs42_delegreturn(a, &fa.fh, &fa.deleg_stateid), 0);
	ck_nfs_ok(b, nfs42_close(&fb));
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* A second reader is no conflict: both hold read delegations. */
START_TEST(t_two_readers)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = local_file("readers");
	struct nfs42_file fa, fb;

	open_delegated(a, name, &fa);
	open_delegated(b, name, &fb);
	ck_assert_uint_eq(nfs42_recalls_received(a), 0);
	ck_nfs_ok(a, nfs42_delegreturn(a, &fa.fh, &fa.deleg_stateid));
	ck_nfs_ok(b, nfs42_delegreturn(b, &fb.fh, &fb.deleg_stateid));
	ck_nfs_ok(a, nfs42_close(&fa));
	ck_nfs_ok(b, nfs42_close(&fb));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* SETATTR(size) from B with the anonymous stateid. */
START_TEST(t_setattr_size)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = local_file("size");
	struct nfs42_stateid anon = { 0 };
	struct nfs42_compound *c;
	struct nfs42_sattr sa;
	struct nfs42_attrs at;
	struct nfs42_file fa;
	struct nfs42_fh fh;
	struct holder h;

	open_delegated(a, name, &fa);
	ck_nfs_ok(b, nfs42_lookup_path(b, e2e_path(name), &fh, NULL));
	holder_start(&h, a, true);
	c = nfs42_compound_new(b);
	ck_assert_ptr_nonnull(c);
	nfs42_op_putfh(c, &fh);
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 3);
	nfs42_op_setattr(c, &anon, &sa);
	ck_nfs_ok(b, nfs42_compound_run(c));
	nfs42_compound_free(c);
	holder_check(&h, &fa);
	ck_nfs_ok(b, nfs42_stat(b, e2e_path(name), &at));
	ck_assert_uint_eq(at.size, 3);
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

START_TEST(t_remove)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = local_file("remove");
	struct nfs42_file fa;
	struct holder h;

	open_delegated(a, name, &fa);
	holder_start(&h, a, true);
	ck_nfs_ok(b, nfs42_remove(b, e2e_path(name)));
	holder_check(&h, &fa);
	ck_assert_int_ne(access(e2e_backing(name), F_OK), 0);
	nfs42_close(&fa);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

START_TEST(t_rename)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = local_file("rename");
	const char *to = uniq("renamed");
	struct nfs42_file fa;
	struct holder h;

	open_delegated(a, name, &fa);
	holder_start(&h, a, true);
	ck_nfs_ok(b, nfs42_rename(b, e2e_path(name), e2e_path(to)));
	holder_check(&h, &fa);
	ck_assert_int_eq(access(e2e_backing(to), F_OK), 0);
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* A process on the server opens the backing file of name O_WRONLY: how
 * long that took (it waits while a lease is being broken).
 */
static int64_t local_write_open_ms(const char *name)
{
	int64_t t0 = e2e_now_ms();
	pid_t pid;
	int st;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(e2e_backing(name), O_WRONLY);

		_exit(fd < 0 ? 1 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return e2e_now_ms() - t0;
}

/*
 * A process on the server opens the backing file for writing: the kernel
 * holds its open until the lease is dropped and signals Ganesha, which
 * recalls the delegation; A returns it and the open goes through, well
 * before the kernel's lease-break-time (45 s by default) would have.
 */
START_TEST(t_local_open)
{
	struct nfs42_client *a = e2e_client();
	const char *name = local_file("local");
	struct nfs42_file fa;
	struct holder h;
	int64_t took;

	open_delegated(a, name, &fa);
	holder_start(&h, a, true);
	took = local_write_open_ms(name);
	holder_check(&h, &fa);
	ck_assert_msg(took < 20000, "local open took %lld ms", (long long)took);
	ck_assert(e2e_log_has("broken by a local open"));
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
}
END_TEST

/*
 * A holder that answers CB_RECALL but never returns: the server revokes
 * the delegation after a lease period or so and B's OPEN goes through.
 */
/* PUTFH + READ with the delegation stateid, or PUTFH + OPEN
 * CLAIM_DELEG_CUR_FH naming it: the compound's status.
 */
static int use_deleg_stateid(struct nfs42_client *cl,
			     const struct nfs42_file *f, bool open)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	struct nfs42_open_args oa = { 0 };
	int rc;

	ck_assert_ptr_nonnull(c);
	nfs42_op_putfh(c, &f->fh);
	if (open) {
		oa.share_access = OPEN4_SHARE_ACCESS_READ;
		oa.createmode = NFS42_NOCREATE;
		oa.claim = CLAIM_DELEG_CUR_FH;
		oa.deleg_stateid = &f->deleg_stateid;
		oa.owner = "deleg-revoked-cur";
		oa.owner_len = 17;
		nfs42_op_open(c, &oa);
	} else {
		nfs42_op_read(c, &f->deleg_stateid, 0, 9);
	}
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

static uint32_t seq_flags(struct nfs42_client *cl)
{
	uint32_t flags = 0;

	ck_nfs_ok(cl, nfs42_seq_status_flags(cl, &flags));
	return flags;
}

static void ck_stateid_status(struct nfs42_client *cl,
			      const struct nfs42_stateid *sid, uint32_t want)
{
	uint32_t st = 0;

	ck_nfs_ok(cl, nfs42_test_stateid(cl, sid, &st));
	ck_assert_msg(st == want, "TEST_STATEID: %s, expected %s",
		      nfs42_strerror((int)st), nfs42_strerror((int)want));
}

#define ck_status(expr, want)                                              \
	do {                                                               \
		int _rc = (expr);                                          \
		ck_assert_msg(_rc == (want), "%s: %s, expected %s", #expr, \
			      nfs42_strerror(_rc), nfs42_strerror(want));  \
	} while (0)

/*
 * RFC 8881 8.2.4, 10.2.1, 18.46.3: A's revoked delegation stays known
 * until A frees it.  Meanwhile every SEQUENCE of A's carries
 * RECALLABLE_STATE_REVOKED and each use of the stateid (DELEGRETURN,
 * READ, OPEN CLAIM_DELEG_CUR_FH) gets DELEG_REVOKED, as does
 * TEST_STATEID; another client does not see it.  FREE_STATEID (18.38)
 * forgets it: the flag clears and the stateid is just a bad one.
 */
static void check_revoked_then_freed(struct nfs42_client *a,
				     struct nfs42_client *b,
				     const struct nfs42_file *fa)
{
	const struct nfs42_stateid *sid = &fa->deleg_stateid;

	ck_assert_msg(
		seq_flags(a) & SEQ4_STATUS_RECALLABLE_STATE_REVOKED,
		"no SEQ4_STATUS_RECALLABLE_STATE_REVOKED after revocation");
	ck_assert(!(seq_flags(b) & SEQ4_STATUS_RECALLABLE_STATE_REVOKED));
	ck_status(nfs42_delegreturn(a, &fa->fh, sid), NFS4ERR_DELEG_REVOKED);
	ck_status(use_deleg_stateid(a, fa, false), NFS4ERR_DELEG_REVOKED);
	ck_status(use_deleg_stateid(a, fa, true), NFS4ERR_DELEG_REVOKED);
	ck_stateid_status(a, sid, NFS4ERR_DELEG_REVOKED);
	ck_stateid_status(b, sid, NFS4ERR_BAD_STATEID);
	ck_status(nfs42_free_stateid(b, sid), NFS4ERR_BAD_STATEID);
	ck_assert(seq_flags(a) & SEQ4_STATUS_RECALLABLE_STATE_REVOKED);

	ck_nfs_ok(a, nfs42_free_stateid(a, sid));
	ck_assert_msg(!(seq_flags(a) & SEQ4_STATUS_RECALLABLE_STATE_REVOKED),
		      "RECALLABLE_STATE_REVOKED still set after FREE_STATEID");
	ck_stateid_status(a, sid, NFS4ERR_BAD_STATEID);
	ck_status(nfs42_delegreturn(a, &fa->fh, sid), NFS4ERR_BAD_STATEID);
	ck_status(nfs42_free_stateid(a, sid), NFS4ERR_BAD_STATEID);
}

START_TEST(t_revoke)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = local_file("revoke");
	struct nfs42_file fa, fb;
	struct holder h;
	int64_t t0, took;

	open_delegated(a, name, &fa);
	holder_start(&h, a, false);
	t0 = e2e_now_ms();
	ck_nfs_ok(b, nfs42_open(b, e2e_path(name), OPEN4_SHARE_ACCESS_WRITE,
				NFS42_NOCREATE, 0, false, &fb));
	took = e2e_now_ms() - t0;
	holder_check(&h, &fa);
	/* Lease_Lifetime is 5 s here: one lease after the recall was
	 * answered, checked every second.
	 */
	ck_assert_msg(took < 14000, "revoked after %lld ms", (long long)took);
	ck_assert(e2e_log_has(
		"not returned within a lease period of the recall"));
	check_revoked_then_freed(a, b, &fa);
	ck_nfs_ok(b, nfs42_close(&fb));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/*
 * Holders whose TCP connection drops (the process exits without a word)
 * while another client's conflicting OPEN makes the server recall their
 * delegations: the recall fails, the server retries and then revokes,
 * and every OPEN goes through within a lease period and 2.5 s of its start
 * (a CB_RECALL that raced the close used to be "sent" on the closing
 * connection and never completed: the OPEN got NFS4ERR_DELAY for ever).
 * DROP_PAIRS pairs at once, each holder dropping a little later after
 * its OPEN was sent, to land the close at different points of the
 * recall.
 */
#define DROP_PAIRS 6
#define DROP_LEASE_MS 5000
/* A holder without a connection that let its lease run out loses the
 * delegation at the next failed recall (patch 0096; retried each second):
 * about one lease period after its last renewal.  (Without 0096: more
 * than two lease periods after the first recall, about 11 s.)
 */
#define DROP_BOUND_MS (DROP_LEASE_MS + 2500)

struct drop_pair {
	const char *name;
	pid_t holder;
	int go; /* write end: the holder exits when it reads */
	int delay_ms; /* from this OPEN's start to the holder's exit */
	pthread_t thread;
	int rc;
	int64_t took;
};

/* The holder: a process with a read delegation on name, gone on "go". */
static pid_t holder_fork(const char *name, int *go)
{
	int ready[2], gop[2];
	char c = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(gop), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct nfs42_client *a = e2e_client();
		struct nfs42_file fa;
		int rc = nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				    NFS42_NOCREATE, 0, false, &fa);

		c = rc == 0 && fa.deleg_type == OPEN_DELEGATE_READ ? 'd' : 'x';
		if (write(ready[1], &c, 1) != 1 || read(gop[0], &c, 1) < 0)
			_exit(2);
		_exit(0); /* no DELEGRETURN, no CLOSE: the connection drops */
	}
	close(ready[1]);
	close(gop[0]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	ck_assert_msg(c == 'd', "holder of %s got no read delegation", name);
	*go = gop[1];
	return pid;
}

static void *drop_pair_open(void *arg)
{
	struct drop_pair *p = arg;
	struct timespec d = { .tv_nsec = (long)p->delay_ms * 1000000L };
	struct nfs42_client *b = e2e_client();
	struct nfs42_compound *c = nfs42_compound_new(b);
	struct nfs42_open_args oa = { 0 };
	struct nfs42_fh dir;
	int64_t t0, give_up;
	int rc;

	ck_assert_int_eq(nfs42_lookup_path(b, e2e_path(""), &dir, NULL), 0);
	oa.share_access = OPEN4_SHARE_ACCESS_WRITE;
	oa.createmode = NFS42_NOCREATE;
	oa.claim = CLAIM_NULL;
	oa.name = p->name;
	oa.owner = p->name;
	oa.owner_len = strlen(p->name);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, &dir);
	nfs42_op_open(c, &oa);

	/* the first OPEN is sent, then the holder goes */
	t0 = e2e_now_ms();
	give_up = t0 + 4 * DROP_LEASE_MS;
	rc = nfs42_compound_start(c);
	nanosleep(&d, NULL);
	if (write(p->go, "g", 1) != 1)
		rc = -errno;
	if (!rc)
		rc = nfs42_compound_finish(c);
	while (rc == NFS4ERR_DELAY && e2e_now_ms() < give_up) {
		usleep(100 * 1000);
		rc = nfs42_compound_run(c);
	}
	p->took = e2e_now_ms() - t0;
	p->rc = rc;
	nfs42_compound_free(c);
	nfs42_client_free(b);
	return NULL;
}

START_TEST(t_holder_connection_drops)
{
	struct drop_pair pairs[DROP_PAIRS];
	int i, st;

	for (i = 0; i < DROP_PAIRS; i++) {
		pairs[i] = (struct drop_pair){ .name = local_file("drop"),
					       .delay_ms = i * 5 };
		pairs[i].holder = holder_fork(pairs[i].name, &pairs[i].go);
	}
	for (i = 0; i < DROP_PAIRS; i++)
		ck_assert_int_eq(pthread_create(&pairs[i].thread, NULL,
						drop_pair_open, &pairs[i]),
				 0);
	for (i = 0; i < DROP_PAIRS; i++) {
		ck_assert_int_eq(pthread_join(pairs[i].thread, NULL), 0);
		ck_assert_int_eq(waitpid(pairs[i].holder, &st, 0),
				 pairs[i].holder);
		close(pairs[i].go);
	}
	for (i = 0; i < DROP_PAIRS; i++) {
		printf("holder gone %d ms after the OPEN: OPEN %s after %lld ms\n",
		       pairs[i].delay_ms, nfs42_strerror(pairs[i].rc),
		       (long long)pairs[i].took);
		ck_assert_msg(
			pairs[i].rc == 0 && pairs[i].took <= DROP_BOUND_MS,
			"OPEN against a vanished holder (gone %d ms after it): %s after %lld ms",
			pairs[i].delay_ms, nfs42_strerror(pairs[i].rc),
			(long long)pairs[i].took);
	}
}
END_TEST

/* B's write OPEN of name, NFS4ERR_DELAY not retried: its status. */
static int open_write_once(struct nfs42_client *b, const char *name)
{
	struct nfs42_open_args oa = { 0 };
	struct nfs42_compound *c;
	struct nfs42_fh dir;
	int rc;

	ck_nfs_ok(b, nfs42_lookup_path(b, e2e_path(""), &dir, NULL));
	c = nfs42_compound_new(b);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, &dir);
	oa.share_access = OPEN4_SHARE_ACCESS_WRITE;
	oa.createmode = NFS42_NOCREATE;
	oa.claim = CLAIM_NULL;
	oa.name = name;
	oa.owner = name;
	oa.owner_len = strlen(name);
	nfs42_op_open(c, &oa);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/*
 * Issue #18, item 9: a process that read a file and was granted a read
 * delegation exits normally (nfs42_client_free): it returns the
 * delegation and destroys its session and client ID, so another client's
 * write OPEN goes through at once (no NFS4ERR_DELAY, no recall of a client
 * that is gone).  The same after the CLI's `cat`.
 */
START_TEST(t_exit_returns)
{
	struct nfs42_client *b = e2e_client();
	const char *name = local_file("exit"), *name2 = local_file("exitcli");
	char *cmd;
	pid_t pid;
	int rc, st;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct nfs42_client *a = e2e_client();
		struct nfs42_file fa;

		rc = nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, &fa);
		if (rc || fa.deleg_type != OPEN_DELEGATE_READ)
			_exit(2);
		if (nfs42_close(&fa))
			_exit(3);
		nfs42_client_free(a);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "reader: status %d (2: no read delegation)", st);
	rc = open_write_once(b, name);
	ck_assert_msg(
		rc == 0,
		"write OPEN after the reader exited: %s (its delegation was left behind)",
		nfs42_strerror(rc));

	ck_assert_int_gt(asprintf(&cmd, "'%s' cat '%s' >/dev/null",
				  e2e_env("SPARSE_NFS42"), e2e_path(name2)),
			 0);
	rc = system(e2e_keep(cmd));
	ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s: %d", cmd, rc);
	rc = open_write_once(b, name2);
	ck_assert_msg(rc == 0, "write OPEN after nfs42 cat: %s",
		      nfs42_strerror(rc));
	nfs42_client_free(b);
}
END_TEST

/*
 * A client that keeps working (a GETATTR every 50 ms, no recall handling
 * of its own) returns a recalled delegation by itself: another client's
 * write OPEN succeeds well within a lease period, and the holder keeps no
 * delegation.
 */
struct busy_arg {
	struct nfs42_client *cl;
	struct nfs42_fh fh;
	int stop;
};

static void *busy_main(void *arg)
{
	struct busy_arg *b = arg;
	struct nfs42_attrs at;

	while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE)) {
		struct nfs42_bitmap bm = nfs42_bm_stat();

		(void)nfs42_getattr_fh(b->cl, &b->fh, &bm, &at);
		usleep(50 * 1000);
	}
	return NULL;
}

START_TEST(t_library_returns_recalled)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = local_file("busy");
	struct busy_arg ba = { .cl = a };
	struct nfs42_file fa, fb;
	pthread_t th;
	int64_t t0, took;

	open_delegated(a, name, &fa);
	ck_assert_uint_eq(nfs42_delegations_held(a), 1);
	ba.fh = fa.fh;
	ck_assert_int_eq(pthread_create(&th, NULL, busy_main, &ba), 0);
	t0 = e2e_now_ms();
	ck_nfs_ok(b, nfs42_open(b, e2e_path(name), OPEN4_SHARE_ACCESS_WRITE,
				NFS42_NOCREATE, 0, false, &fb));
	took = e2e_now_ms() - t0;
	__atomic_store_n(&ba.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	ck_assert_msg(took < 3000, "write OPEN took %lld ms", (long long)took);
	ck_assert_uint_eq(nfs42_recalls_received(a), 1);
	ck_assert_uint_eq(nfs42_delegations_held(a), 0);
	ck_nfs_ok(b, nfs42_close(&fb));
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/*
 * RFC 8881 18.50.3: a client that destroys its session, then its client
 * ID while it still holds a delegation gets NFS4ERR_CLIENTID_BUSY.  (Ganesha
 * 6.5 destroyed it and left the delegation on the file with an owner in
 * freed memory; the next conflicting OPEN crashed the server.)  Here that
 * OPEN succeeds once the holder's lease ran out (patch 0096), and the
 * server still answers.
 */
START_TEST(t_destroy_clientid_busy)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = local_file("destroy");
	struct nfs42_compound *c;
	struct nfs42_file fa, fb;
	int rc;

	open_delegated(a, name, &fa);
	ck_nfs_ok(a, nfs42_close(&fa));
	c = nfs42_compound_new(a);
	nfs42_compound_no_sequence(c);
	nfs42_op_destroy_session(c, nfs42_sessionid(a));
	ck_nfs_ok(a, nfs42_compound_run(c));
	nfs42_compound_free(c);
	c = nfs42_compound_new(a);
	nfs42_compound_no_sequence(c);
	nfs42_compound_no_retry(c);
	nfs42_op_destroy_clientid(c, nfs42_clientid(a));
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	ck_assert_msg(rc == NFS4ERR_CLIENTID_BUSY,
		      "DESTROY_CLIENTID holding a delegation: %s",
		      nfs42_strerror(rc));

	ck_nfs_ok(b, nfs42_open(b, e2e_path(name), OPEN4_SHARE_ACCESS_WRITE,
				NFS42_NOCREATE, 0, false, &fb));
	ck_nfs_ok(b, nfs42_close(&fb));
	ck_nfs_ok(b, nfs42_null(b));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/*
 * BACKCHANNEL_CTL: A gives its back channel a new program and AUTH_NONE;
 * the recall of its delegation comes for that program (the client
 * refuses any other: PROG_UNAVAIL) with AUTH_NONE credentials.
 */
START_TEST(t_backchannel_ctl)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const struct nfs42_cb_sec none = { .flavor = NFS42_CB_AUTH_NONE };
	const char *name = local_file("bcctl");
	struct nfs42_file fa, fb;
	struct holder h;
	int rc;

	rc = nfs42_backchannel_ctl(a, 0x40000123, &none, 1);
	ck_assert_msg(rc == 0, "BACKCHANNEL_CTL: %s", nfs42_strerror(rc));
	open_delegated(a, name, &fa);
	holder_start(&h, a, true);
	ck_nfs_ok(b, nfs42_open(b, e2e_path(name), OPEN4_SHARE_ACCESS_WRITE,
				NFS42_NOCREATE, 0, false, &fb));
	holder_check(&h, &fa);
	ck_assert_int_eq(nfs42_cb_last_flavor(a), NFS42_CB_AUTH_NONE);
	ck_nfs_ok(b, nfs42_close(&fb));
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* A client without a back channel could not be recalled: no delegation. */
START_TEST(t_no_back_channel)
{
	struct nfs42_client *a = NULL;
	const char *name = local_file("nobc");
	struct nfs42_file fa;
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.no_back_channel = true;
	ck_nfs_ok(a, nfs42_client_create(&o, &a));
	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, &fa));
	ck_assert_msg(fa.deleg_type == OPEN_DELEGATE_NONE ||
			      fa.deleg_type == OPEN_DELEGATE_NONE_EXT,
		      "delegation %u granted without a back channel",
		      fa.deleg_type);
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
}
END_TEST

/*
 * Issue #18 item 6: the holder of a read delegation opens the file for
 * writing.  That is no conflict with itself (RFC 8881 10.4.1: a
 * delegation lets the client open locally, and its own OPEN for more
 * access is not another client's; knfsd lets the holder's open break
 * nothing).  The OPEN goes through at once, the holder is not recalled
 * and keeps its delegation.  Before, the OPEN got NFS4ERR_DELAY and a
 * recall of the very delegation its client was holding while it waited
 * for the OPEN: nothing moved until the server revoked it, a lease
 * period later.  The delegation still guards the file: a local process
 * opening it for writing recalls it.
 */
/* A gets a read delegation on name (fa), then opens it for writing (fw):
 * answered at once.
 */
static void holder_opens_for_write(struct nfs42_client *a, const char *name,
				   struct nfs42_file *fa, struct nfs42_file *fw)
{
	int64_t t0, took;

	open_delegated(a, name, fa);
	t0 = e2e_now_ms();
	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				NFS42_NOCREATE, 0, false, fw));
	took = e2e_now_ms() - t0;
	ck_assert_msg(took < 2000, "the holder's write OPEN took %lld ms",
		      (long long)took);
}

START_TEST(t_holder_opens_for_write)
{
	struct nfs42_client *a = e2e_client();
	const char *name = local_file("holderw");
	struct nfs42_file fa, fw;
	struct holder h;
	int64_t took;

	holder_opens_for_write(a, name, &fa, &fw);
	ck_assert_msg(nfs42_recalls_received(a) == 0,
		      "the holder was recalled for its own write OPEN");
	ck_nfs_ok(a, nfs42_pwrite(&fw, "written", 7, 0, FILE_SYNC4));
	/* still its delegation: reads with it, and no revocation flag */
	ck_nfs_ok(a, use_deleg_stateid(a, &fa, false));
	ck_assert(!(seq_flags(a) & SEQ4_STATUS_RECALLABLE_STATE_REVOKED));

	holder_start(&h, a, true);
	took = local_write_open_ms(name);
	holder_check(&h, &fa);
	ck_assert_msg(took < 20000, "local open took %lld ms", (long long)took);
	ck_nfs_ok(a, nfs42_close(&fw));
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
}
END_TEST

/*
 * The same while a local process has the file open for reading: a read
 * lease allows that, but once the holder writes the delegation can only
 * be guarded by a write lease, which a local reader rules out.  The
 * holder's OPEN still goes through at once; its delegation is then
 * recalled (the holder returns it once the OPEN is answered, nothing
 * waits on itself).
 */
START_TEST(t_holder_opens_for_write_local_reader)
{
	struct nfs42_client *a = e2e_client_keeping_recalls();
	const char *name = local_file("holderwr");
	struct e2e_local_holder reader;
	struct nfs42_file fa, fw;
	struct holder h;

	e2e_local_holder_start(&reader, name);
	holder_opens_for_write(a, name, &fa, &fw);
	holder_start(&h, a, true);
	holder_check(&h, &fa);
	ck_nfs_ok(a, nfs42_pwrite(&fw, "written", 7, 0, FILE_SYNC4));
	e2e_local_holder_stop(&reader);
	ck_nfs_ok(a, nfs42_close(&fw));
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
}
END_TEST

/* Delegations = None on the export: none, and no recall on a conflict. */
START_TEST(t_export_none)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = local_file("none");
	struct nfs42_file fa;
	struct nfs42_compound *c;
	struct nfs42_fh dir;

	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, &fa));
	ck_assert_msg(fa.deleg_type == OPEN_DELEGATE_NONE ||
			      fa.deleg_type == OPEN_DELEGATE_NONE_EXT,
		      "delegation %u granted on a Delegations = None export",
		      fa.deleg_type);
	/* B's write open is not delayed: one try, no retry. */
	ck_nfs_ok(b, nfs42_lookup_path(b, e2e_path(""), &dir, NULL));
	c = nfs42_compound_new(b);
	ck_assert_ptr_nonnull(c);
	nfs42_compound_no_retry(c);
	nfs42_op_putfh(c, &dir);
	{
		struct nfs42_open_args oa = { 0 };

		oa.share_access = OPEN4_SHARE_ACCESS_WRITE;
		oa.createmode = NFS42_NOCREATE;
		oa.claim = CLAIM_NULL;
		oa.name = name;
		oa.owner = "deleg-none-b";
		oa.owner_len = 12;
		nfs42_op_open(c, &oa);
	}
	ck_nfs_ok(b, nfs42_compound_run(c));
	nfs42_compound_free(c);
	ck_assert_uint_eq(nfs42_recalls_received(a), 0);
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/*
 * The server stops while a delegation is held: the lease is dropped when
 * Ganesha frees the delegation state at shutdown, or else by the module
 * unload, before the signal thread stops (a lease outliving it would
 * signal a thread ID some other process may get), which logs its totals.
 */
START_TEST(t_stop_holding)
{
	struct nfs42_client *a = e2e_client();
	const char *name = local_file("stop");
	struct nfs42_file fa;
	char *cmd;
	int64_t t0;

	/* Ganesha's delayed executor drops the revocation checks still
	 * pending at shutdown (one second after a recall was answered), and
	 * with them the export reference each holds: "Extra fsal references"
	 * at the next start.  Let those of the tests before run first.
	 */
	sleep(2);
	open_delegated(a, name, &fa);
	t0 = e2e_now_ms();
	ck_assert_int_gt(
		asprintf(&cmd, "'%s' stop", e2e_env("NFS42_SERVER_CTL")), 0);
	ck_assert_int_eq(system(e2e_keep(cmd)), 0);
	ck_assert_msg(e2e_now_ms() - t0 < 15000, "stop took %lld ms",
		      (long long)(e2e_now_ms() - t0));
	ck_assert(e2e_log_has("lease of a delegation deleted without return") ||
		  e2e_log_has("1 leases dropped at shutdown"));
	nfs42_client_free(a);
	ck_assert_int_gt(
		asprintf(&cmd, "'%s' start", e2e_env("NFS42_SERVER_CTL")), 0);
	ck_assert_int_eq(system(e2e_keep(cmd)), 0);
}
END_TEST

/*
 * "unexport" mode (harness --dbus): the export is removed over DBus while
 * a delegation on one of its files is held.  Ganesha deletes the
 * delegation state without returning it (state_del, no lease_op2(NONE));
 * the lease must go with it: a local open for writing then proceeds at
 * once (the kernel would otherwise hold it for lease-break-time, 45 s),
 * and nothing recalls through the removed export's freed up-call vector
 * (ASan: heap-use-after-free).  The server keeps answering.
 */
START_TEST(t_unexport_holding)
{
	struct nfs42_client *a = e2e_client();
	const char *name = local_file("unexport");
	struct nfs42_file fa;
	int64_t took;

	open_delegated(a, name, &fa);
	ck_assert_int_eq(
		system("dbus-send --system --print-reply --dest=org.ganesha.nfsd "
		       "/org/ganesha/nfsd/ExportMgr "
		       "org.ganesha.nfsd.exportmgr.RemoveExport uint16:1 "
		       ">/dev/null"),
		0);
	took = local_write_open_ms(name);
	ck_assert_msg(
		took < 5000,
		"local open after RemoveExport waited %lld ms for a lease",
		(long long)took);
	/* the server is alive and still answers this client */
	ck_nfs_ok(a, nfs42_null(a));
	ck_assert(e2e_log_has("lease of a delegation deleted without return"));
	nfs42_client_free(a);
}
END_TEST

/*
 * "returned" mode (Test_Hooks Stall_Dir, Stall_Ms = 8000): A answers
 * CB_RECALL and keeps the delegation, then returns it before the server
 * would revoke it (one lease period after the answer); that DELEGRETURN
 * holds the file's state lock for 8 s (a stall in its lease drop) while
 * the revocation falls due.  The revocation finds the
 * delegation returned: it must not be reported or counted as a revocation
 * (counted, three of them stop delegations to the client).
 */
START_TEST(t_returned_before_revoke)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = local_file("returned");
	struct nfs42_file fa, fb;
	struct holder h;
	struct stat st;
	pthread_t opener;
	struct opener_arg oarg = { .cl = b, .name = name, .f = &fb };
	int64_t answered, wait;
	char *marker;
	FILE *m;

	open_delegated(a, name, &fa);
	ck_assert_int_eq(stat(e2e_backing(name), &st), 0);
	holder_start(&h, a, false);
	ck_assert_int_eq(pthread_create(&opener, NULL, open_write, &oarg), 0);
	holder_check(&h, &fa);
	answered = e2e_now_ms();

	ck_assert_int_gt(asprintf(&marker, "%s/lease_drop.%llu",
				  e2e_env("NFS42_STALL_DIR"),
				  (unsigned long long)st.st_ino),
			 0);
	m = fopen(e2e_keep(marker), "w");
	ck_assert_ptr_nonnull(m);
	fclose(m);
	/* well before the revocation is due (one lease period, 5 s, after
	 * the answer, checked each second: due at 5.0 to 7.0 s), the stall
	 * (8 s) reaching past it; 3 s of margin for a loaded machine */
	wait = answered + 5000 - 3000 - e2e_now_ms();
	if (wait > 0)
		usleep((useconds_t)wait * 1000);
	ck_nfs_ok(a, nfs42_delegreturn(a, &fa.fh, &fa.deleg_stateid));
	ck_assert_int_eq(pthread_join(opener, NULL), 0);
	ck_nfs_ok(b, oarg.rc);
	ck_assert(e2e_log_has("test stall lease_drop"));
	/* the revocation check logs once it has the lock the DELEGRETURN
	 * just gave up */
	for (wait = 0;
	     wait < 50 && !e2e_log_has("returned just before its revocation");
	     wait++)
		usleep(100 * 1000);
	ck_assert_msg(e2e_log_has("returned just before its revocation"),
		      "the revocation did not race the DELEGRETURN");
	ck_assert_msg(
		!e2e_log_has("not returned within a lease period"),
		"a returned delegation was reported (and counted) revoked");
	ck_nfs_ok(b, nfs42_close(&fb));
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("e2e_proto_deleg");
	TCase *tc = tcase_create("deleg");

	tcase_set_timeout(tc, 60);
	if (argc > 1 && !strcmp(argv[1], "none")) {
		tcase_add_test(tc, t_export_none);
	} else if (argc > 1 && !strcmp(argv[1], "returned")) {
		tcase_add_test(tc, t_returned_before_revoke);
	} else if (argc > 1 && !strcmp(argv[1], "unexport")) {
		tcase_add_test(tc, t_unexport_holding);
	} else if (argc > 1 && !strcmp(argv[1], "holder")) {
		tcase_add_test(tc, t_holder_opens_for_write);
		tcase_add_test(tc, t_holder_opens_for_write_local_reader);
	} else if (argc > 1 && !strcmp(argv[1], "wire")) {
		/* wire_check_deleg.sh: one recall, returned */
		tcase_add_test(tc, t_open_conflict);
	} else {
		tcase_add_test(tc, t_open_conflict);
		tcase_add_test(tc, t_two_readers);
		tcase_add_test(tc, t_setattr_size);
		tcase_add_test(tc, t_remove);
		tcase_add_test(tc, t_rename);
		tcase_add_test(tc, t_local_open);
		tcase_add_test(tc, t_revoke);
		tcase_add_test(tc, t_holder_connection_drops);
		tcase_add_test(tc, t_exit_returns);
		tcase_add_test(tc, t_library_returns_recalled);
		tcase_add_test(tc, t_destroy_clientid_busy);
		tcase_add_test(tc, t_backchannel_ctl);
		tcase_add_test(tc, t_no_back_channel);
		tcase_add_test(tc, t_holder_opens_for_write);
		tcase_add_test(tc, t_holder_opens_for_write_local_reader);
		tcase_add_test(tc, t_stop_holding);
	}
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
