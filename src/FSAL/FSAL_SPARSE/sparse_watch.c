/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * Local changes of a delegated file that break no lease (issue #27 item
 * 4).  Linux breaks an F_SETLEASE lease only for an open that conflicts
 * with it and for a truncate; nfsd's in-kernel delegations are broken by
 * chmod, chown, utimes, setxattr, rename, unlink and link too (every
 * notify_change() and directory operation), and user space cannot take
 * that kind of lease.  What it can do is watch: a fanotify group reporting
 * file handles (FAN_REPORT_FID) with an inode mark on each file that has
 * a lease of ours sees FAN_ATTRIB (mode, owner, times, extended
 * attributes, and the link count: unlink, link, a rename over it) and
 * FAN_MOVE_SELF (renamed), with the PID of the process that did it.  A
 * change by another process recalls the file's delegations (through
 * sparse_deleg_changed_locally()); Ganesha's own changes are the NFS
 * operations of its clients, which its core recalls for (and a holder's
 * own changes recall nothing).
 *
 * The limit: the watch is after the fact.  nfsd holds a local chmod or
 * unlink until the delegation is returned; here the change is done when
 * the event comes, and the recall follows within milliseconds.  fanotify
 * has no permission event for these operations.  Without fanotify
 * (CAP_SYS_ADMIN missing, an old kernel, a filesystem without file
 * handles or fsid) FSAL_SPARSE says so once and such changes recall
 * nothing, as before.
 *
 * Locking: the group's descriptor is set before the thread starts and
 * closed after it stopped; marks are added and removed by whoever holds
 * the lease's descriptor (under sparse_deleg.c's mtx), the thread only
 * reads events and calls sparse_deleg_changed_locally(), which takes mtx.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "fsal.h"
#include "sparse_int.h"

#define SPARSE_WATCH_MASK (FAN_ATTRIB | FAN_MOVE_SELF)

static struct {
	int fd; /* the fanotify group, -1 without one */
	int stop[2]; /* pipe: the thread ends when it can read */
	pthread_t thread;
	bool running;
} sparse_watch = { .fd = -1, .stop = { -1, -1 } };

int sparse_watch_id(int fd, struct sparse_file_id *id)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h;
	struct statfs sfs;
	int mnt;

	memset(id, 0, sizeof(*id));
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &h.fh, &mnt, AT_EMPTY_PATH) != 0 ||
	    fstatfs(fd, &sfs) != 0)
		return errno;
	memcpy(&id->fsid, &sfs.f_fsid, sizeof(id->fsid));
	id->type = h.fh.handle_type;
	id->len = h.fh.handle_bytes;
	memcpy(id->bytes, h.fh.f_handle, h.fh.handle_bytes);
	return 0;
}

bool sparse_watch_id_eq(const struct sparse_file_id *a,
			const struct sparse_file_id *b)
{
	return memcmp(&a->fsid, &b->fsid, sizeof(a->fsid)) == 0 &&
	       a->type == b->type && a->len == b->len &&
	       memcmp(a->bytes, b->bytes, a->len) == 0;
}

static void sparse_watch_refused(const char *what, int err)
{
	static bool said;

	if (__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		return;
	LogWarn(COMPONENT_FSAL,
		"FSAL_SPARSE: %s (%s): a local chmod, chown, utimes, setxattr, rename, unlink or link of a delegated file on this server recalls no delegation (a local open or truncate still does)",
		what, strerror(err));
}

int sparse_watch_file(int fd)
{
	if (sparse_watch.fd < 0)
		return ENOTSUP;
	if (fanotify_mark(sparse_watch.fd, FAN_MARK_ADD, SPARSE_WATCH_MASK, fd,
			  NULL) == 0)
		return 0;
	sparse_watch_refused("no fanotify mark on a delegated file", errno);
	return errno;
}

void sparse_watch_forget(int fd)
{
	/* ENOENT: never marked (no group then, or the mark was refused) */
	if (sparse_watch.fd >= 0)
		(void)fanotify_mark(sparse_watch.fd, FAN_MARK_REMOVE,
				    SPARSE_WATCH_MASK, fd, NULL);
}

static const char *sparse_watch_what(uint64_t mask)
{
	if (mask & FAN_MOVE_SELF)
		return "renamed";
	return "its attributes or links changed";
}

/*
 * One event (its header md, copied out; the event itself at ev): a change
 * by another process recalls.  The records after the header need 4-byte
 * alignment, which every event has.
 */
static void sparse_watch_event(const struct fanotify_event_metadata *md,
			       const char *ev, pid_t self)
{
	const struct fanotify_event_info_fid *info;
	const struct file_handle *fh;
	struct sparse_file_id id;

	if (md->mask & FAN_Q_OVERFLOW) {
		/* events lost: any delegated file may have changed */
		sparse_deleg_changed_locally(NULL, "fanotify queue overflow");
		return;
	}
	if (md->pid == self || md->event_len < sizeof(*md) + sizeof(*info))
		return;
	info = (const struct fanotify_event_info_fid *)(ev + sizeof(*md));
	if (info->hdr.info_type != FAN_EVENT_INFO_TYPE_FID)
		return;
	fh = (const struct file_handle *)info->handle;
	if (fh->handle_bytes > MAX_HANDLE_SZ ||
	    (const char *)fh->f_handle + fh->handle_bytes > ev + md->event_len)
		return;
	memset(&id, 0, sizeof(id));
	memcpy(&id.fsid, &info->fsid, sizeof(id.fsid));
	id.type = fh->handle_type;
	id.len = fh->handle_bytes;
	memcpy(id.bytes, fh->f_handle, fh->handle_bytes);
	sparse_deleg_changed_locally(&id, sparse_watch_what(md->mask));
}

static void *sparse_watch_thread(void *arg)
{
	struct pollfd pfd[2] = { { .fd = sparse_watch.fd, .events = POLLIN },
				 { .fd = sparse_watch.stop[0],
				   .events = POLLIN } };
	pid_t self = getpid();
	char buf[4096] __attribute__((aligned(8)));
	struct fanotify_event_metadata md;
	size_t off;
	ssize_t len;

	SetNameFunction("sparse_watch");
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents != 0)
			break;
		len = read(sparse_watch.fd, buf, sizeof(buf));
		if (len <= 0)
			continue;
		/* An event is as long as its records (a multiple of 4
		 * bytes, FAN_REPORT_FID's file handle): the header of the
		 * next one may be misaligned for its 64-bit mask, and is
		 * copied out rather than read in place (FAN_EVENT_NEXT). */
		for (off = 0; (size_t)len - off >= sizeof(md);
		     off += md.event_len) {
			memcpy(&md, buf + off, sizeof(md));
			if (md.event_len < sizeof(md) ||
			    md.event_len > (size_t)len - off)
				break;
			if (md.vers == FANOTIFY_METADATA_VERSION)
				sparse_watch_event(&md, buf + off, self);
		}
	}
	return NULL;
}

void sparse_watch_start(void)
{
	int rc;

	sparse_watch.fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID |
						FAN_CLOEXEC | FAN_NONBLOCK,
					O_RDONLY | O_CLOEXEC);
	if (sparse_watch.fd < 0) {
		sparse_watch_refused("no fanotify group", errno);
		return;
	}
	if (pipe2(sparse_watch.stop, O_CLOEXEC) != 0) {
		rc = errno;
		goto fail;
	}
	rc = pthread_create(&sparse_watch.thread, NULL, sparse_watch_thread,
			    NULL);
	if (rc == 0) {
		sparse_watch.running = true;
		return;
	}
	close(sparse_watch.stop[0]);
	close(sparse_watch.stop[1]);
fail:
	close(sparse_watch.fd);
	sparse_watch.fd = -1;
	sparse_watch_refused("no fanotify thread", rc);
}

void sparse_watch_stop(void)
{
	if (!sparse_watch.running)
		return;
	(void)write(sparse_watch.stop[1], "", 1);
	pthread_join(sparse_watch.thread, NULL);
	close(sparse_watch.stop[0]);
	close(sparse_watch.stop[1]);
	close(sparse_watch.fd);
	sparse_watch.fd = -1;
	sparse_watch.running = false;
}
