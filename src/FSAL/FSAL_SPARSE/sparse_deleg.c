/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Read and write delegations backed by Linux file leases (F_SETLEASE).
 *
 * Ganesha's core decides whether to delegate, keeps the delegation state,
 * recalls on conflicting NFS operations and revokes a delegation that is
 * not returned in time.  The FSAL's part is lease_op2: back a granted
 * delegation with a lease and drop it when the delegation is returned or
 * revoked.  A lease makes the kernel tell us when anything else on the
 * server opens the file in a conflicting way (any open for a write lease,
 * an open for writing or a truncate for a read lease): the open waits (up
 * to /proc/sys/fs/lease-break-time) until the lease is dropped, and the
 * kernel signals us meanwhile, on which we ask Ganesha to recall the
 * file's delegations (up_async_delegrecall).
 *
 * One lease per file (struct sparse_flease), shared by every delegation
 * of ours on it (struct sparse_deleg, found by the stateid's `other`):
 *  - read: an O_RDONLY descriptor of our own holding F_RDLCK;
 *  - write: F_WRLCK on the open file description of the holder's open
 *    state (a dup of its descriptor, so the lease outlives a CLOSE that
 *    keeps the delegation, and the open state an OPEN with RFC 9754's
 *    OPEN_XOR_DELEGATION releases at once).  A write lease needs every
 *    other open file description of the file gone: Ganesha's global
 *    descriptor is closed first, and every later descriptor of ours for the holder (its other
 *    open states, reopens, the delegation stateid's I/O, its reads
 *    through an open for writing only, COMMIT) is a dup of that
 *    description instead of a new open, which would break it.
 *    Only the holder's: an open state of another client (the core
 *    recalls before such an open; issue #27 was one that it let through)
 *    opens a descriptor of its own, which the lease refuses.
 *  - The holder of read delegations opening the file for writing is no
 *    conflict (the core lets that OPEN through); its own open for
 *    writing would break the read lease, so (when it holds every
 *    delegation on the file) the read lease is dropped
 *    before that open and the file's delegations are backed by a write
 *    lease on the new descriptor after it.  When no write lease can be
 *    had (another descriptor is open: a local reader, another client's
 *    open) the delegations are recalled, without anybody waiting for it.
 *
 * A lease is broken by a local open and a truncate only; a local chmod,
 * chown, utimes, setxattr, rename, unlink or link of the file is seen
 * through fanotify (sparse_watch.c), after the fact, and recalls too
 * (sparse_deleg_changed_locally()).
 *
 * Every open of a regular file by FSAL_SPARSE is O_NONBLOCK: one that
 * would break a lease fails at once (EWOULDBLOCK, NFS4ERR_DELAY; the
 * break recalls the delegation) instead of holding a worker thread for
 * lease-break-time.
 *
 * Signal delivery: every lease descriptor gets F_SETSIG SPARSE_LEASE_SIG
 * (a real-time signal, so si_fd names the descriptor) and F_SETOWN_EX
 * F_OWNER_TID naming one thread of ours, which keeps the signal blocked
 * and takes it with sigwaitinfo().  If the real-time queue overflows the
 * kernel sends SIGIO instead; the thread then asks every lease with
 * F_GETLEASE (a lease being broken reports the type it is going to).
 *
 * Locking: sparse_leases.mtx guards the lists, every field below and the
 * counters.  It is taken by lease_op2 and the open hooks (under Ganesha's
 * st_lock of the file), by free_state, by I/O that needs the lease's
 * descriptor and by the signal thread, which calls only get_gsh_export
 * and up_async_delegrecall (a queueing call that takes no state lock)
 * while holding it.  Nothing that can block on I/O is done under it:
 * closing Ganesha's global descriptor (which waits for I/O on it) is done
 * before.  Changes of a file's lease type or descriptor happen under the
 * file's st_lock (lease_op2, and OPEN's open2/reopen2), so they never
 * race each other.
 */

#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsal.h"
#include "fsal_convert.h"
#include "gsh_config.h"
#include "fsal_up.h"
#include "export_mgr.h"
#include "nfs_exports.h"
#include "fridgethr.h"
#include "sal_data.h"
#include "sparse_int.h"

#define SPARSE_LEASE_SIG (SIGRTMIN + 6)

/* One per file with delegations of ours, on sparse_leases.files. */
struct sparse_flease {
	struct glist_head link;
	struct glist_head delegs; /* struct sparse_deleg */
	/* Descriptor whose open file description holds the lease, -1 when
	 * none does (dropped for the holder's write open, or unbacked after
	 * a failed conversion: then a recall was asked).
	 */
	int fd;
	int type; /* F_RDLCK or F_WRLCK */
	/* Dropped for good (fd -1) because the delegations' holder took a
	 * layout its own data-server I/O would break the lease with
	 * (sparse_deleg_layout_taken); no lease is taken again for them.
	 */
	bool for_layout;
	uint8_t key_len;
	uint8_t key[SPARSE_FH_MAX_LEN];
	/* the file's kernel identity, and whether fd is marked for its
	 * local changes (sparse_watch.c) */
	struct sparse_file_id id;
	bool watched;
};

/*
 * One per delegation.  The export is remembered by its id and looked up,
 * with a reference, when a recall is to be asked: the delegation may
 * outlive the export that granted it until its state is freed.
 */
struct sparse_deleg {
	struct glist_head link; /* sparse_flease.delegs */
	struct sparse_flease *file;
	char other[OTHERSIZE]; /* the delegation's stateid other */
	clientid4 holder; /* the client the delegation was granted to */
	uint16_t export_id; /* the export the delegation came through */
	clientid4 client; /* its holder */
	bool write; /* a write delegation */
};

static struct {
	pthread_mutex_t mtx;
	struct glist_head files; /* struct sparse_flease */
	pthread_once_t once;
	pthread_t thread;
	pid_t tid; /* of the signal thread, once started */
	bool started;
	bool stop;
	struct sparse_deleg_counters counters;
} sparse_leases = {
	.mtx = PTHREAD_MUTEX_INITIALIZER,
	.files = GLIST_HEAD_INIT(sparse_leases.files),
	.once = PTHREAD_ONCE_INIT,
};

static pthread_mutex_t sparse_lease_start_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sparse_lease_start_cond = PTHREAD_COND_INITIALIZER;

static void sparse_lease_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SPARSE_LEASE_SIG);
	sigaddset(set, SIGIO);
}

void sparse_deleg_counters_get(struct sparse_deleg_counters *out)
{
	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	*out = sparse_leases.counters;
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
}

static const char *sparse_lease_name(int type)
{
	return type == F_WRLCK ? "write" : "read";
}

/* Called with mtx held. */
static void sparse_lease_log(const char *what)
{
	const struct sparse_deleg_counters *c = &sparse_leases.counters;

	LogInfo(COMPONENT_FSAL,
		"FSAL_SPARSE delegation %s: granted=%" PRIu64
		" released=%" PRIu64 " broken=%" PRIu64 " refused=%" PRIu64
		" converted=%" PRIu64 " unbacked=%" PRIu64 " changed=%" PRIu64,
		what, c->granted, c->released, c->broken, c->refused,
		c->converted, c->unbacked, c->changed);
}

/* The queued recall is done: its export may go. */
static void sparse_lease_recall_done(void *arg, state_status_t status)
{
	put_gsh_export(arg);
}

/* Called with mtx held: ask Ganesha to recall every delegation on f,
 * through the up-call vector of FSAL_SPARSE's export under the first
 * export (of the delegations') that still exists, held until the recall
 * ran.
 */
static void sparse_flease_recall(struct sparse_flease *f)
{
	struct gsh_buffdesc key = { .addr = f->key, .len = f->key_len };
	struct gsh_export *exp = NULL;
	struct fsal_export *fexp;
	struct sparse_deleg *d;
	struct glist_head *g;
	fsal_status_t status;

	glist_for_each(g, &f->delegs)
	{
		d = glist_entry(g, struct sparse_deleg, link);
		exp = get_gsh_export(d->export_id);
		if (exp != NULL)
			break;
	}
	if (exp == NULL) {
		LogEvent(
			COMPONENT_FSAL,
			"FSAL_SPARSE: the exports of the delegations are gone, no recall");
		return;
	}
	for (fexp = exp->fsal_export; fexp->sub_export != NULL;
	     fexp = fexp->sub_export)
		;
	status = up_async_delegrecall(general_fridge, fexp->up_ops, &key,
				      sparse_lease_recall_done, exp);
	if (FSAL_IS_ERROR(status)) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: could not queue a delegation recall: %s",
			msg_fsal_err(status.major));
		put_gsh_export(exp);
	}
}

/*
 * A lease being broken reports the type it is going to (a write lease
 * F_RDLCK for a reader, F_UNLCK for a writer; a read lease F_UNLCK).
 * Checked for the real-time signal too: a signal still queued for a
 * descriptor closed since, whose number a new lease got, must not recall
 * the new delegation.
 */
static bool sparse_flease_breaking(const struct sparse_flease *f)
{
	return f->fd >= 0 && fcntl(f->fd, F_GETLEASE) != f->type;
}

static void sparse_lease_signal(const siginfo_t *info)
{
	bool overflow = info->si_signo != SPARSE_LEASE_SIG;
	struct sparse_flease *f;
	struct glist_head *g;

	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	glist_for_each(g, &sparse_leases.files)
	{
		f = glist_entry(g, struct sparse_flease, link);
		/* SIGIO: the real-time queue overflowed, ask every lease. */
		if ((!overflow && f->fd != info->si_fd) ||
		    !sparse_flease_breaking(f))
			continue;
		sparse_leases.counters.broken++;
		LogEvent(
			COMPONENT_FSAL,
			"FSAL_SPARSE: %s lease on fd %d broken by a local open, recalling the delegation (broken=%" PRIu64
			")",
			sparse_lease_name(f->type), f->fd,
			sparse_leases.counters.broken);
		sparse_flease_recall(f);
	}
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
}

void sparse_deleg_changed_locally(const struct sparse_file_id *id,
				  const char *what)
{
	struct sparse_flease *f;
	struct glist_head *g;

	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	glist_for_each(g, &sparse_leases.files)
	{
		f = glist_entry(g, struct sparse_flease, link);
		if (f->fd < 0 ||
		    (id != NULL &&
		     (!f->watched || !sparse_watch_id_eq(&f->id, id))))
			continue;
		sparse_leases.counters.changed++;
		LogEvent(
			COMPONENT_FSAL,
			"FSAL_SPARSE: a file with a %s lease (fd %d) was changed on the server: %s, recalling the delegation (changed=%" PRIu64
			")",
			sparse_lease_name(f->type), f->fd, what,
			sparse_leases.counters.changed);
		sparse_flease_recall(f);
	}
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
}

static void *sparse_lease_thread(void *arg)
{
	sigset_t set;
	siginfo_t info;

	sparse_lease_sigset(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	SetNameFunction("sparse_lease");

	PTHREAD_MUTEX_lock(&sparse_lease_start_mtx);
	sparse_leases.tid = (pid_t)syscall(SYS_gettid);
	pthread_cond_broadcast(&sparse_lease_start_cond);
	PTHREAD_MUTEX_unlock(&sparse_lease_start_mtx);

	for (;;) {
		/* The stop request is a signal too (pthread_kill). */
		if (sigwaitinfo(&set, &info) < 0)
			continue;
		if (__atomic_load_n(&sparse_leases.stop, __ATOMIC_ACQUIRE))
			break;
		if (info.si_code == SI_TKILL || info.si_code == SI_USER)
			continue;
		sparse_lease_signal(&info);
	}
	return NULL;
}

static void sparse_lease_start(void)
{
	sigset_t set, old;
	int rc;

	/* The new thread inherits our mask: block first so that nothing can
	 * arrive between its start and its own sigmask call.
	 */
	sparse_lease_sigset(&set);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	rc = pthread_create(&sparse_leases.thread, NULL, sparse_lease_thread,
			    NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: no lease thread (%s): no delegations",
			strerror(rc));
		return;
	}
	PTHREAD_MUTEX_lock(&sparse_lease_start_mtx);
	while (sparse_leases.tid == 0)
		pthread_cond_wait(&sparse_lease_start_cond,
				  &sparse_lease_start_mtx);
	PTHREAD_MUTEX_unlock(&sparse_lease_start_mtx);
	sparse_leases.started = true;
	sparse_watch_start();
}

/* Called with mtx held: drop f's lease (if it holds one) and close it. */
static void sparse_flease_unlock(struct sparse_flease *f)
{
	if (f->fd < 0)
		return;
	if (f->watched)
		sparse_watch_forget(f->fd);
	f->watched = false;
	/* Closing drops the lease too (the last descriptor of its open file
	 * description); unlock first to be explicit, and because for a write
	 * lease the description stays open in the holder's open state.
	 */
	if (fcntl(f->fd, F_SETLEASE, F_UNLCK) != 0)
		LogDebug(COMPONENT_FSAL, "F_SETLEASE(F_UNLCK): %s",
			 strerror(errno));
	close(f->fd);
	f->fd = -1;
}

/* Called with mtx held: f has no delegation left. */
static void sparse_flease_free(struct sparse_flease *f)
{
	sparse_flease_unlock(f);
	glist_del(&f->link);
	gsh_free(f);
}

/*
 * Module unload: drop the leases still held (delegations not returned by
 * then), then stop the thread.  A lease outliving its signal thread would
 * signal a thread ID the kernel may give to some other process.
 */
void sparse_deleg_shutdown(void)
{
	const struct sparse_deleg_counters *c = &sparse_leases.counters;
	struct sparse_flease *f;
	struct sparse_deleg *d;
	unsigned int dropped = 0;

	if (!sparse_leases.started)
		return;
	/* no local change is reported any more (it takes mtx) */
	sparse_watch_stop();
	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	while (!glist_empty(&sparse_leases.files)) {
		f = glist_first_entry(&sparse_leases.files,
				      struct sparse_flease, link);
		while (!glist_empty(&f->delegs)) {
			d = glist_first_entry(&f->delegs, struct sparse_deleg,
					      link);
			glist_del(&d->link);
			gsh_free(d);
			dropped++;
		}
		sparse_flease_free(f);
	}
	LogEvent(
		COMPONENT_FSAL,
		"FSAL_SPARSE: %u leases dropped at shutdown; delegation leases granted=%" PRIu64
		" released=%" PRIu64 " broken=%" PRIu64 " refused=%" PRIu64
		" converted=%" PRIu64 " unbacked=%" PRIu64 " changed=%" PRIu64,
		dropped, c->granted, c->released, c->broken, c->refused,
		c->converted, c->unbacked, c->changed);
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
	__atomic_store_n(&sparse_leases.stop, true, __ATOMIC_RELEASE);
	pthread_kill(sparse_leases.thread, SPARSE_LEASE_SIG);
	pthread_join(sparse_leases.thread, NULL);
	sparse_leases.started = false;
}

/* Called with mtx held. */
static struct sparse_flease *sparse_flease_find(const struct sparse_fh *fh)
{
	struct sparse_flease *f;
	struct glist_head *g;

	glist_for_each(g, &sparse_leases.files)
	{
		f = glist_entry(g, struct sparse_flease, link);
		if (f->key_len == fh->len &&
		    memcmp(f->key, fh->bytes, fh->len) == 0)
			return f;
	}
	return NULL;
}

/* Called with mtx held. */
static struct sparse_deleg *sparse_deleg_find(const char *other)
{
	struct glist_head *g, *h;
	struct sparse_flease *f;
	struct sparse_deleg *d;

	glist_for_each(g, &sparse_leases.files)
	{
		f = glist_entry(g, struct sparse_flease, link);
		glist_for_each(h, &f->delegs)
		{
			d = glist_entry(h, struct sparse_deleg, link);
			if (memcmp(d->other, other, OTHERSIZE) == 0)
				return d;
		}
	}
	return NULL;
}

/* Point fd's lease signals at our thread; 0 or an errno. */
static int sparse_lease_fd_setup(int fd)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID,
				    .pid = sparse_leases.tid };

	if (fcntl(fd, F_SETSIG, SPARSE_LEASE_SIG) != 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) != 0)
		return errno;
	return 0;
}

/* Called with mtx held: take a lease of type on fd; 0 or an errno (EAGAIN:
 * the file is open in a conflicting way somewhere).
 */
static int sparse_lease_set(int fd, int type)
{
	int err = sparse_lease_fd_setup(fd);

	if (err == 0 && fcntl(fd, F_SETLEASE, type) != 0)
		err = errno;
	return err;
}

/* Called with mtx held: a new file lease on fd (kept by it) for hdl. */
static struct sparse_flease *sparse_flease_new(struct sparse_handle *hdl,
					       int fd, int type)
{
	struct sparse_flease *f = gsh_calloc(1, sizeof(*f));

	glist_init(&f->delegs);
	f->fd = fd;
	f->type = type;
	f->key_len = hdl->fh.len;
	memcpy(f->key, hdl->fh.bytes, hdl->fh.len);
	f->watched = sparse_watch_id(fd, &f->id) == 0 &&
		     sparse_watch_file(fd) == 0;
	glist_add_tail(&sparse_leases.files, &f->link);
	return f;
}

/* Called with mtx held: delegation state rides on f from now on. */
static void sparse_deleg_add(struct sparse_flease *f, struct state_t *state,
			     int type)
{
	struct sparse_deleg *d = gsh_calloc(1, sizeof(*d));

	d->file = f;
	memcpy(d->other, state->stateid_other, OTHERSIZE);
	/* a delegation state's owner is its client's (cid_owner) */
	d->holder = state->state_owner->so_owner.so_nfs4_owner.so_clientid;
	d->export_id = op_ctx->ctx_export->export_id;
	d->client = op_ctx->clientid ? *op_ctx->clientid : 0;
	d->write = type == F_WRLCK;
	glist_add_tail(&f->delegs, &d->link);
	sparse_leases.counters.granted++;
	sparse_lease_log("granted");
}

/*
 * The descriptor a write lease can be taken on: a dup of a writable open
 * state descriptor of the file open read-write (the delegation stateid
 * reads through it too).  -1 with *err when there is none.
 */
static int sparse_write_lease_candidate(struct sparse_handle *hdl, int *err)
{
	struct glist_head *node;
	int fd = -1;

	*err = EAGAIN;
	PTHREAD_MUTEX_lock(&hdl->state_fds_lock);
	glist_for_each(node, &hdl->state_fds)
	{
		struct sparse_state_fd *sst =
			glist_entry(node, struct sparse_state_fd, fds_link);

		if (sst->state.state_type != STATE_TYPE_SHARE ||
		    !(sst->sfd.fsal_fd.openflags & FSAL_O_WRITE) ||
		    (fcntl(sst->sfd.fd, F_GETFL) & O_ACCMODE) != O_RDWR)
			continue;
		fd = fcntl(sst->sfd.fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			*err = errno;
		break;
	}
	PTHREAD_MUTEX_unlock(&hdl->state_fds_lock);
	return fd;
}

/*
 * Before a write lease on fd (a descriptor of hdl): every other open file
 * description of Ganesha's for the file must go.  The open and delegation
 * states' descriptors become dups of fd, which must be open read-write,
 * and the global descriptor is closed (that waits for I/O on it: not
 * under mtx).  0, or EAGAIN when a lock state has its own.
 */
static int sparse_write_lease_prepare(struct sparse_handle *hdl, int fd)
{
	if ((fcntl(fd, F_GETFL) & O_ACCMODE) != O_RDWR ||
	    !sparse_share_description(hdl, fd))
		return EAGAIN;
	(void)sparse_close_global(hdl);
	return 0;
}

static fsal_status_t sparse_lease_refused(int err)
{
	/* EAGAIN: the file is open in a conflicting way somewhere. */
	LogDebug(COMPONENT_FSAL, "no lease: %s", strerror(err));
	return fsalstat(err == EAGAIN ? ERR_FSAL_DELAY : posix2fsal_error(err),
			err);
}

/*
 * A write delegation's holder may have data the file does not have yet.
 * A local open that breaks its lease waits until the delegation is
 * returned (the holder writes back first) or revoked (its data is
 * dropped): then the opener sees what the file will stay.  But the kernel
 * lets the open through by itself after lease-break-time, and Ganesha
 * revokes a holder that does not return as late as two lease periods
 * after the recall (and the retries' second): a kernel that gives up
 * before that would let a local process read data the holder is still
 * about to write back, silently.  So write delegations only while
 * /proc/sys/fs/lease-break-time covers that; read delegations do not
 * need it (their holder caches nothing the file lacks).
 */
#define SPARSE_LEASE_BREAK_TIME "/proc/sys/fs/lease-break-time"

/* The admin is told once per process (at export creation, or at the first
 * refused grant when the export's setting came some other way, a CLIENT
 * block's Delegations).
 */
static bool sparse_write_lease_warned;

/* lease-break-time in seconds, 0 when it cannot be read. */
static unsigned int sparse_lease_break_time(void)
{
	unsigned int have = 0;
	FILE *f = sparse_sys_fopen_read(SPARSE_LEASE_BREAK_TIME);

	if (f != NULL) {
		if (fscanf(f, "%u", &have) != 1)
			have = 0;
		fclose(f);
	}
	return have;
}

/* The lease-break-time write delegations need with the current lease. */
static unsigned int sparse_lease_break_need(void)
{
	return 2 * nfs_param.nfsv4_param.lease_lifetime + 5;
}

static void sparse_write_lease_warn(const char *where, unsigned int have)
{
	unsigned int need = sparse_lease_break_need();

	if (__atomic_exchange_n(&sparse_write_lease_warned, true,
				__ATOMIC_RELAXED))
		return;
	LogWarn(COMPONENT_FSAL,
		"FSAL_SPARSE%s: write delegations are configured but will be refused: %s is %u s, they need at least %u s (2 x Lease_Lifetime + 5), or a local open could read data a holder has not written back yet; fix: sysctl -w fs.lease-break-time=%u (and a file in /etc/sysctl.d/ to keep it), or Lease_Lifetime = %u or less (read delegations are granted meanwhile)",
		where, SPARSE_LEASE_BREAK_TIME, have, need, need,
		have > 5 ? (have - 5) / 2 : 0);
}

static bool sparse_write_lease_safe(void)
{
	unsigned int have = sparse_lease_break_time();

	if (have >= sparse_lease_break_need())
		return true;
	sparse_write_lease_warn("", have);
	return false;
}

void sparse_deleg_export_check(const char *path)
{
	struct gsh_export *exp = op_ctx->ctx_export;
	unsigned int have;
	char where[256];

	/* The EXPORT block's own Delegations (the merge with EXPORT_DEFAULTS,
	 * export_check_options(), is not exported to FSALs); one set there or
	 * in a CLIENT block gets the WARN at its first refused grant.
	 */
	if (exp == NULL || !nfs_param.nfsv4_param.allow_delegations ||
	    !(exp->export_perms.set & exp->export_perms.options &
	      EXPORT_OPTION_WRITE_DELEG))
		return;
	have = sparse_lease_break_time();
	if (have >= sparse_lease_break_need())
		return;
	(void)snprintf(where, sizeof(where), " export %s", path);
	sparse_write_lease_warn(where, have);
}

static fsal_status_t sparse_lease_take(struct fsal_obj_handle *obj_hdl,
				       struct state_t *state, int type)
{
	struct sparse_handle *hdl = sparse_hdl(obj_hdl);
	struct sparse_flease *f;
	int fd = -1, err = 0;

	(void)pthread_once(&sparse_leases.once, sparse_lease_start);
	if (!sparse_leases.started)
		return fsalstat(ERR_FSAL_NOTSUPP, 0);
	if (type == F_WRLCK && !sparse_write_lease_safe())
		return fsalstat(ERR_FSAL_NOTSUPP, 0);
	/* Another client's layouts reach the file through the data servers,
	 * which a write delegation's holder would not know of: none then.
	 */
	if (type == F_WRLCK &&
	    sparse_layouts_others(sparse_op_export(), &hdl->fh)) {
		PTHREAD_MUTEX_lock(&sparse_leases.mtx);
		sparse_leases.counters.refused++;
		sparse_lease_log("refused (layouts of other clients)");
		PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
		return sparse_lease_refused(EAGAIN);
	}

	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	f = sparse_flease_find(&hdl->fh);
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);

	/* Without a lease on the file yet, open what will hold it; none of
	 * this can block on mtx users.  A write lease needs Ganesha's global
	 * descriptor closed (it waits for I/O on it, under st_lock only).
	 */
	if (f == NULL && type == F_RDLCK) {
		fd = sparse_open_fh(sparse_op_export(), &hdl->fh,
				    O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			return sparse_lease_refused(-fd);
	} else if (f == NULL) {
		fd = sparse_write_lease_candidate(hdl, &err);
		if (fd >= 0)
			err = sparse_write_lease_prepare(hdl, fd);
		if (err != 0) {
			if (fd >= 0)
				close(fd);
			PTHREAD_MUTEX_lock(&sparse_leases.mtx);
			sparse_leases.counters.refused++;
			sparse_lease_log("refused");
			PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
			return sparse_lease_refused(err);
		}
	}

	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	if (f == NULL) {
		/* Ours before the lease exists, so that a break right away
		 * finds it (the signal thread waits for mtx).
		 */
		err = sparse_lease_set(fd, type);
		if (err == 0)
			f = sparse_flease_new(hdl, fd, type);
	} else if (f->fd < 0 || (type == F_WRLCK && f->type != F_WRLCK)) {
		/* unbacked (recalled), or only a read lease to stand on */
		err = EAGAIN;
	}
	if (err == 0) {
		sparse_deleg_add(f, state, type);
	} else {
		sparse_leases.counters.refused++;
		sparse_lease_log("refused");
	}
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);

	if (err != 0) {
		if (fd >= 0)
			close(fd);
		return sparse_lease_refused(err);
	}
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* Forget the delegation whose stateid other is other, and drop its file's
 * lease when it was the last one; whether there was one.
 */
static bool sparse_lease_drop(const char *other)
{
	struct sparse_flease *f = NULL;
	struct sparse_deleg *d;
	struct stat st;
	ino_t ino = 0;

	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	d = sparse_deleg_find(other);
	if (d != NULL) {
		f = d->file;
		glist_del(&d->link);
		if (glist_empty(&f->delegs)) {
			if (f->fd >= 0 && fstat(f->fd, &st) == 0)
				ino = st.st_ino;
			sparse_flease_free(f);
		}
		sparse_leases.counters.released++;
		sparse_lease_log("released");
	}
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);

	gsh_free(d);
	/* tests: DELEGRETURN holding st_lock while a revocation is due */
	if (ino != 0)
		sparse_test_stall_ino("lease_drop", ino);
	return d != NULL;
}

/*
 * A delegation state is being freed.  Returned and revoked delegations
 * dropped their lease through lease_op2(NONE) already; Ganesha deletes
 * others with state_del alone (RemoveExport, shutdown, a wiped client),
 * and their lease would stay: its descriptor leaked and the next local
 * open held up for nothing.
 */
void sparse_deleg_state_freed(struct state_t *state)
{
	if (state->state_type != STATE_TYPE_DELEG)
		return;
	if (sparse_lease_drop(state->stateid_other))
		LogEvent(
			COMPONENT_FSAL,
			"FSAL_SPARSE: lease of a delegation deleted without return dropped");
}

fsal_status_t sparse_lease_op2(struct fsal_obj_handle *obj_hdl,
			       struct state_t *state, void *owner,
			       fsal_deleg_t deleg)
{
	if (obj_hdl->type != REGULAR_FILE || state == NULL)
		return fsalstat(ERR_FSAL_INVAL, EINVAL);

	switch (deleg) {
	case FSAL_DELEG_RD:
		return sparse_lease_take(obj_hdl, state, F_RDLCK);
	case FSAL_DELEG_WR:
		return sparse_lease_take(obj_hdl, state, F_WRLCK);
	case FSAL_DELEG_NONE:
		if (!sparse_lease_drop(state->stateid_other))
			LogDebug(COMPONENT_FSAL, "no lease for state %p",
				 state);
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	default:
		return fsalstat(ERR_FSAL_NOTSUPP, 0);
	}
}

/* Called with mtx held: hdl's lease if it holds one now, else NULL. */
static struct sparse_flease *sparse_flease_held(struct sparse_handle *hdl)
{
	struct sparse_flease *f = sparse_flease_find(&hdl->fh);

	return f != NULL && f->fd >= 0 ? f : NULL;
}

/* A dup of the descriptor holding hdl's write lease, or -1 (none). */
int sparse_deleg_write_lease_fd(struct sparse_handle *hdl)
{
	struct sparse_flease *f;
	int fd = -1;

	if (!sparse_leases.started)
		return -1;
	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	f = sparse_flease_held(hdl);
	if (f != NULL && f->type == F_WRLCK)
		fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
	return fd;
}

/* Called with mtx held: are all of f's delegations held by the client
 * whose clientid is *opener (NULL: not known, then no)?
 */
static bool sparse_flease_held_by(const struct sparse_flease *f,
				  const clientid4 *opener)
{
	const struct sparse_deleg *d;
	struct glist_head *g;

	if (opener == NULL)
		return false;
	glist_for_each(g, &f->delegs)
	{
		d = glist_entry(g, struct sparse_deleg, link);
		if (d->holder != *opener)
			return false;
	}
	return true;
}

/*
 * A READ through an open for writing only (RFC 8881 9.1.2 allows it, and
 * knfsd answers it; the Linux client does it for the read-modify-write of
 * a partial page) has no descriptor of its state's NFS mode to go
 * through: Ganesha's fallback is the global descriptor or a temporary
 * one, whose open for reading would break the write lease of the
 * reader's own write delegation (NFS4ERR_DELAY, and its own delegation
 * recalled).  A lock state's first lock opens a descriptor of its own
 * (OFD locks belong to an open file description), which breaks the lease
 * the same way (Ganesha then answers NFS4ERR_INVAL).  The holder's reads
 * and lock states share the lease's open file description instead, as
 * its opens do; another client's still open a descriptor of their own,
 * which breaks the lease and recalls.
 */
int sparse_deleg_holder_fd(struct sparse_handle *hdl, const clientid4 *holder,
			   fsal_openflags_t openflags)
{
	struct sparse_flease *f;
	int fd = -1, mode;

	if (!sparse_leases.started || holder == NULL)
		return -1;
	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	f = sparse_flease_held(hdl);
	if (f != NULL && f->type == F_WRLCK && !glist_empty(&f->delegs) &&
	    sparse_flease_held_by(f, holder)) {
		mode = fcntl(f->fd, F_GETFL) & O_ACCMODE;
		if (!((openflags & FSAL_O_READ) && mode == O_WRONLY) &&
		    !((openflags & FSAL_O_WRITE) && mode == O_RDONLY))
			fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	}
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
	return fd;
}

int sparse_deleg_open_begin(struct sparse_handle *hdl, int flags,
			    const clientid4 *opener, bool *conv)
{
	struct sparse_flease *f;
	int fd = -1;

	*conv = false;
	if (!sparse_leases.started)
		return -1;
	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	f = sparse_flease_held(hdl);
	if (f != NULL && !sparse_flease_held_by(f, opener)) {
		/* Not the holder's: Ganesha's core recalls the delegations
		 * before another client's conflicting open gets here; should
		 * one come anyway, it opens a descriptor of its own, which a
		 * conflicting lease refuses (EWOULDBLOCK: NFS4ERR_DELAY, and
		 * the break recalls), instead of the holder's lease
		 * descriptor or lease (issue #27).
		 */
		LogDebug(
			COMPONENT_FSAL,
			"an open of another client than the delegation holder's does not share its lease");
		f = NULL;
	} else if (f != NULL && f->type == F_RDLCK &&
		   (flags & O_ACCMODE) != O_RDONLY) {
		sparse_flease_unlock(f);
		*conv = true;
		LogDebug(
			COMPONENT_FSAL,
			"read lease dropped for the delegation holder's open for writing");
	}
	if (f != NULL && !*conv && f->type == F_WRLCK)
		fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
	return fd;
}

void sparse_deleg_open_end(struct sparse_handle *hdl, int fd)
{
	struct sparse_flease *f;
	int type = F_WRLCK, err = 0;

	if (fd >= 0) {
		err = sparse_write_lease_prepare(hdl, fd);
	} else {
		/* the open failed: back to the read lease */
		type = F_RDLCK;
		fd = sparse_open_fh(sparse_op_export(), &hdl->fh,
				    O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			err = -fd;
	}

	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	f = sparse_flease_find(&hdl->fh);
	if (f != NULL && f->for_layout) {
		/* the holder took a layout meanwhile: no lease again */
		PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
		if (fd >= 0)
			close(fd);
		return;
	}
	if (f == NULL || f->fd >= 0) {
		/* not possible under st_lock; nothing of ours to back */
		LogCrit(COMPONENT_FSAL,
			"FSAL_SPARSE: delegation lease changed during an open");
		PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
		if (fd >= 0)
			close(fd);
		return;
	}
	if (err == 0)
		err = sparse_lease_set(fd, type);
	if (err == 0) {
		f->fd = fd;
		f->type = type;
		f->watched = f->id.len > 0 && sparse_watch_file(fd) == 0;
		if (type == F_WRLCK)
			sparse_leases.counters.converted++;
		sparse_lease_log(type == F_WRLCK ?
					 "converted to a write lease" :
					 "read lease taken again");
	} else {
		if (fd >= 0)
			close(fd);
		/* Nothing guards the delegations now: recall them.  The
		 * OPEN that got here is answered; nobody waits for itself.
		 */
		sparse_leases.counters.unbacked++;
		LogEvent(
			COMPONENT_FSAL,
			"FSAL_SPARSE: no %s lease for the delegations of a file their holder opened for writing (%s), recalling them",
			sparse_lease_name(type), strerror(err));
		sparse_flease_recall(f);
	}
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
}

bool sparse_deleg_caller_writes(struct sparse_handle *hdl)
{
	clientid4 caller = op_ctx->clientid ? *op_ctx->clientid : 0;
	struct sparse_flease *f;
	struct sparse_deleg *d;
	struct glist_head *g;
	bool found = false;

	if (!sparse_leases.started || caller == 0)
		return false;
	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	f = sparse_flease_find(&hdl->fh);
	if (f != NULL)
		glist_for_each(g, &f->delegs)
		{
			d = glist_entry(g, struct sparse_deleg, link);
			found |= d->write && d->client == caller;
		}
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
	return found;
}

/*
 * A data server serves the holder's layout I/O by opening the file: on
 * one kernel with the metadata server (as here) that open breaks a write
 * lease, and a read lease when it writes; on other heads of a cluster
 * filesystem it does not see the lease at all.  Either way the lease is
 * no guard while the holder does its I/O through layouts, and it must not
 * recall the holder's own delegation.  Other clients' conflicting OPENs
 * still recall it through Ganesha's state; a local process's open of the
 * file no longer does (docs/design.md, "pNFS").
 */
void sparse_deleg_layout_taken(struct sparse_handle *hdl, bool rw)
{
	clientid4 caller = op_ctx->clientid ? *op_ctx->clientid : 0;
	struct sparse_flease *f;
	struct sparse_deleg *d;
	struct glist_head *g;
	bool all_callers = true;

	if (!sparse_leases.started || caller == 0)
		return;
	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	f = sparse_flease_find(&hdl->fh);
	if (f != NULL)
		glist_for_each(g, &f->delegs)
		{
			d = glist_entry(g, struct sparse_deleg, link);
			all_callers &= d->client == caller;
		}
	/* (a read lease lets the data servers read; fd -1 during the
	 * holder's open for writing, which would take a write lease after)
	 */
	if (f != NULL && all_callers && !f->for_layout &&
	    (f->fd < 0 || f->type == F_WRLCK || rw)) {
		sparse_flease_unlock(f);
		f->for_layout = true;
		sparse_leases.counters.unbacked++;
		LogDebug(
			COMPONENT_FSAL,
			"lease of a file dropped: its delegations' holder takes a layout");
	}
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
}
