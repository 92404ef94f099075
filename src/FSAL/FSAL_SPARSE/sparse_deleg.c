/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Read delegations backed by Linux file leases (fcntl F_SETLEASE).
 *
 * Ganesha's core decides whether to delegate, keeps the delegation state,
 * recalls on conflicting NFS operations (OPEN for write, SETATTR of size,
 * REMOVE, RENAME) and revokes a delegation that is not returned in time.
 * The FSAL's part is lease_op2: take a read lease on a descriptor of its
 * own when a delegation is granted and drop it when it is returned or
 * revoked.  The lease makes the kernel tell us when anything else on the
 * server opens the file for writing or truncates it: such an open waits
 * (up to /proc/sys/fs/lease-break-time) until the lease is dropped, and
 * the kernel sends us a signal meanwhile, on which we ask Ganesha to
 * recall the delegation (up_async_delegrecall).
 *
 * Signal delivery: every lease descriptor gets F_SETSIG SPARSE_LEASE_SIG
 * (a real-time signal, so si_fd names the descriptor) and F_SETOWN_EX
 * F_OWNER_TID naming one thread of ours, which keeps the signal blocked
 * and takes it with sigtimedwait().  Thread-directed signals never reach
 * Ganesha's other threads, whatever their masks.  If the real-time queue
 * overflows the kernel sends SIGIO instead; the thread then asks every
 * lease descriptor with F_GETLEASE (a lease being broken reports the type
 * it is going to, F_UNLCK); a real-time signal is checked the same way.
 *
 * Write delegations are not offered: a write lease needs the file to have
 * no other open descriptor, and the OPEN that earns the delegation has
 * just opened its own state descriptor, so the lease could never be had.
 *
 * Locking: sparse_leases.mtx guards the list of leases and the counters'
 * consistency with it; it is taken by lease_op2 (under Ganesha's st_lock),
 * by free_state and by the signal thread, which calls only get_gsh_export
 * and up_async_delegrecall (a queueing call that takes no state lock)
 * while holding it.
 */

#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fsal.h"
#include "fsal_convert.h"
#include "fsal_up.h"
#include "export_mgr.h"
#include "fridgethr.h"
#include "sal_data.h"
#include "sparse_int.h"

#define SPARSE_LEASE_SIG (SIGRTMIN + 6)

/*
 * One lease per delegation, found by the delegation's stateid `other`:
 * a state_t's address says nothing once it is freed (a new state may get
 * it).  The export is remembered by its id and looked up, with a
 * reference, when a break is to be recalled: the lease may outlive the
 * export that granted it until the delegation state is freed.
 */
struct sparse_lease {
	struct glist_head link;
	char other[OTHERSIZE]; /* the delegation's stateid other */
	int fd; /* O_RDONLY descriptor holding the read lease */
	uint16_t export_id; /* the export the delegation came through */
	uint8_t key_len;
	uint8_t key[SPARSE_FH_MAX_LEN];
};

static struct {
	pthread_mutex_t mtx;
	struct glist_head list; /* struct sparse_lease */
	pthread_once_t once;
	pthread_t thread;
	pid_t tid; /* of the signal thread, once started */
	bool started;
	bool stop;
	struct sparse_deleg_counters counters;
} sparse_leases = {
	.mtx = PTHREAD_MUTEX_INITIALIZER,
	.list = GLIST_HEAD_INIT(sparse_leases.list),
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

/* Called with mtx held. */
static void sparse_lease_log(const char *what)
{
	const struct sparse_deleg_counters *c = &sparse_leases.counters;

	LogInfo(COMPONENT_FSAL,
		"FSAL_SPARSE delegation %s: granted=%" PRIu64
		" released=%" PRIu64 " broken=%" PRIu64 " refused=%" PRIu64,
		what, c->granted, c->released, c->broken, c->refused);
}

/* The queued recall is done: its export may go. */
static void sparse_lease_recall_done(void *arg, state_status_t status)
{
	put_gsh_export(arg);
}

/* Called with mtx held: ask Ganesha to recall the delegation of l,
 * through the up-call vector of FSAL_SPARSE's export under the one the
 * delegation was granted through, held until the recall ran.
 */
static void sparse_lease_broken(struct sparse_lease *l)
{
	struct gsh_buffdesc key = { .addr = l->key, .len = l->key_len };
	struct gsh_export *exp = get_gsh_export(l->export_id);
	struct fsal_export *fexp;
	fsal_status_t status;

	sparse_leases.counters.broken++;
	LogEvent(
		COMPONENT_FSAL,
		"FSAL_SPARSE: lease on fd %d broken by a local open, recalling the delegation (broken=%" PRIu64
		")",
		l->fd, sparse_leases.counters.broken);
	if (exp == NULL) {
		LogEvent(COMPONENT_FSAL,
			 "FSAL_SPARSE: export %" PRIu16
			 " of the delegation is gone, no recall",
			 l->export_id);
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
 * A lease being broken reports the type it is going to (F_UNLCK for a
 * read lease).  Checked for the real-time signal too: a signal still
 * queued for a descriptor closed since, whose number a new lease got,
 * must not recall the new delegation.
 */
static bool sparse_lease_breaking(const struct sparse_lease *l)
{
	return fcntl(l->fd, F_GETLEASE) == F_UNLCK;
}

static void sparse_lease_signal(const siginfo_t *info)
{
	bool overflow = info->si_signo != SPARSE_LEASE_SIG;
	struct glist_head *g;
	struct sparse_lease *l;

	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	glist_for_each(g, &sparse_leases.list)
	{
		l = glist_entry(g, struct sparse_lease, link);
		/* SIGIO: the real-time queue overflowed, ask every lease. */
		if ((overflow || l->fd == info->si_fd) &&
		    sparse_lease_breaking(l))
			sparse_lease_broken(l);
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
}

/*
 * Module unload: drop the leases still held (delegations not returned by
 * then), then stop the thread.  A lease outliving its signal thread would
 * signal a thread ID the kernel may give to some other process.
 */
void sparse_deleg_shutdown(void)
{
	const struct sparse_deleg_counters *c = &sparse_leases.counters;
	struct sparse_lease *l;
	unsigned int dropped = 0;

	if (!sparse_leases.started)
		return;
	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	while (!glist_empty(&sparse_leases.list)) {
		l = glist_first_entry(&sparse_leases.list, struct sparse_lease,
				      link);
		glist_del(&l->link);
		(void)fcntl(l->fd, F_SETLEASE, F_UNLCK);
		close(l->fd);
		gsh_free(l);
		dropped++;
	}
	LogEvent(
		COMPONENT_FSAL,
		"FSAL_SPARSE: %u leases dropped at shutdown; delegation leases granted=%" PRIu64
		" released=%" PRIu64 " broken=%" PRIu64 " refused=%" PRIu64,
		dropped, c->granted, c->released, c->broken, c->refused);
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);
	__atomic_store_n(&sparse_leases.stop, true, __ATOMIC_RELEASE);
	pthread_kill(sparse_leases.thread, SPARSE_LEASE_SIG);
	pthread_join(sparse_leases.thread, NULL);
	sparse_leases.started = false;
}

/* Called with mtx held. */
static struct sparse_lease *sparse_lease_find(const char *other)
{
	struct glist_head *g;
	struct sparse_lease *l;

	glist_for_each(g, &sparse_leases.list)
	{
		l = glist_entry(g, struct sparse_lease, link);
		if (memcmp(l->other, other, OTHERSIZE) == 0)
			return l;
	}
	return NULL;
}

static fsal_status_t sparse_lease_take(struct fsal_obj_handle *obj_hdl,
				       struct state_t *state)
{
	struct sparse_handle *hdl = sparse_hdl(obj_hdl);
	struct f_owner_ex owner;
	struct sparse_lease *l;
	int fd, err = 0;

	(void)pthread_once(&sparse_leases.once, sparse_lease_start);
	if (!sparse_leases.started)
		return fsalstat(ERR_FSAL_NOTSUPP, 0);

	fd = sparse_open_fh(sparse_op_export(), &hdl->fh,
			    O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return posix2fsal_status(-fd);

	owner.type = F_OWNER_TID;
	owner.pid = sparse_leases.tid;
	if (fcntl(fd, F_SETSIG, SPARSE_LEASE_SIG) != 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) != 0) {
		err = errno;
		close(fd);
		return posix2fsal_status(err);
	}

	l = gsh_calloc(1, sizeof(*l));
	memcpy(l->other, state->stateid_other, OTHERSIZE);
	l->fd = fd;
	l->export_id = op_ctx->ctx_export->export_id;
	l->key_len = hdl->fh.len;
	memcpy(l->key, hdl->fh.bytes, hdl->fh.len);

	/* On the list before the lease exists, so that a break right away
	 * finds it (the signal thread waits for mtx).
	 */
	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	if (fcntl(fd, F_SETLEASE, F_RDLCK) != 0) {
		err = errno;
		sparse_leases.counters.refused++;
		sparse_lease_log("refused");
	} else {
		glist_add_tail(&sparse_leases.list, &l->link);
		sparse_leases.counters.granted++;
		sparse_lease_log("granted");
	}
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);

	if (err != 0) {
		/* EAGAIN: the file is open for writing somewhere. */
		LogDebug(COMPONENT_FSAL, "F_SETLEASE: %s", strerror(err));
		close(fd);
		gsh_free(l);
		return fsalstat(err == EAGAIN ? ERR_FSAL_DELAY :
						posix2fsal_error(err),
				err);
	}
	return fsalstat(ERR_FSAL_NO_ERROR, 0);
}

/* Drop the lease of the delegation whose stateid other is other, if any;
 * whether there was one.
 */
static bool sparse_lease_drop(const char *other)
{
	struct sparse_lease *l;

	PTHREAD_MUTEX_lock(&sparse_leases.mtx);
	l = sparse_lease_find(other);
	if (l != NULL) {
		glist_del(&l->link);
		/* Closing drops the lease too; unlock first to be explicit
		 * and to see a failure.
		 */
		if (fcntl(l->fd, F_SETLEASE, F_UNLCK) != 0)
			LogDebug(COMPONENT_FSAL, "F_SETLEASE(F_UNLCK): %s",
				 strerror(errno));
		close(l->fd);
		sparse_leases.counters.released++;
		sparse_lease_log("released");
	}
	PTHREAD_MUTEX_unlock(&sparse_leases.mtx);

	gsh_free(l);
	return l != NULL;
}

/*
 * A delegation state is being freed.  Returned and revoked delegations
 * dropped their lease through lease_op2(NONE) already; Ganesha deletes
 * others with state_del alone (RemoveExport, shutdown, a wiped client),
 * and their lease would stay: its descriptor leaked and the next local
 * open for writing held up for nothing.
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
		return sparse_lease_take(obj_hdl, state);
	case FSAL_DELEG_NONE:
		if (!sparse_lease_drop(state->stateid_other))
			LogDebug(COMPONENT_FSAL, "no lease for state %p",
				 state);
		return fsalstat(ERR_FSAL_NO_ERROR, 0);
	case FSAL_DELEG_WR:
	default:
		return fsalstat(ERR_FSAL_NOTSUPP, 0);
	}
}
