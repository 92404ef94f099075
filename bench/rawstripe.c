/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * bench/pnfs.sh's raw contender (issue #26): plain TCP streams, no NFS,
 * pushing a file's bytes in the same stripes as a pNFS layout, to tell
 * what the links and the page cache let anything reach on this machine.
 *
 *   bench_rawstripe sink DIR PORT...
 *	one process per PORT on 127.0.0.1, each serving its connections one
 *	after the other until killed (a connection's frames are received
 *	by one thread and written by another, 4 units deep: receiving
 *	overlaps writing, as a data server's WRITEs in flight do); prints
 *	"ready" once every port listens.  A connection names its mode and, to write, a file NAME in
 *	DIR: "discard" drops the bytes, "file" pwrites them at their offsets
 *	into DIR/NAME (created if missing, never truncated: the streams of
 *	one transfer share it, as data servers share the export) and fsyncs
 *	it when asked and at the end, as a COMMIT does.
 *
 *   bench_rawstripe send [--unit BYTES] [--commit BYTES] MODE NAME SRC PORT...
 *	one thread per PORT: stripe unit k of SRC (1 MiB by default) goes to
 *	PORT number k mod N, read with pread and sent in order; with
 *	--commit, a stream asks its sink for an fsync every BYTES it sent
 *	and waits for it (the pNFS client's COMMIT pattern).  Returns once
 *	every sink has answered the end (its fsync done).
 *
 * The wire: a header {magic, mode, name length, name}, then frames
 * {offset, length, flags} followed by length bytes; flag 1 asks for an
 * fsync answered with 'C', flag 2 ends the transfer, answered with 'K'.
 * For a benchmark inside its own network namespace only: the sink binds
 * 127.0.0.1, takes names without '/' and never outside DIR.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RAW_MAGIC 0x52415753u /* "RAWS" */
#define RAW_MAX_PORTS 16
#define RAW_MAX_UNIT (16u << 20)
#define RAW_FLAG_COMMIT 1u
#define RAW_FLAG_END 2u

enum raw_mode { RAW_DISCARD = 0, RAW_FILE = 1 };

struct raw_hdr {
	uint32_t magic;
	uint32_t mode;
	uint32_t namelen;
};

struct raw_frame {
	uint64_t off;
	uint32_t len;
	uint32_t flags;
};

static int io_all(int fd, void *buf, size_t len, bool out)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = out ? send(fd, p, len, MSG_NOSIGNAL) :
			  recv(fd, p, len, MSG_WAITALL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- sink ---- */

/* A name in the sink's directory: no '/', not "." or "..", not empty. */
static bool name_ok(const char *name)
{
	return name[0] && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..");
}

/*
 * One connection's frames, received by the connection's thread into a
 * ring of RAW_DEPTH buffers and written by a writer thread in order, so
 * that receiving the next unit overlaps the pwrite of the last one (as a
 * data server's several WRITEs in flight overlap).  Locking: ring->lock
 * guards nfull, head, tail and done; a slot's contents belong to the
 * receiver while free and to the writer while full.
 */
#define RAW_DEPTH 4

struct raw_slot {
	struct raw_frame fr;
	uint8_t *buf;
};

struct raw_ring {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct raw_slot slot[RAW_DEPTH];
	unsigned int head, tail, nfull;
	bool done; /* the receiver stopped: no more frames */
	int s, fd;
	int rc; /* the writer's: 0 once the end is answered */
};

/* The writer: each frame pwritten at its offset; an fsync and an answer
 * for a commit or the end. */
static void *ring_writer(void *arg)
{
	struct raw_ring *r = arg;
	struct raw_slot *sl;
	char ack;

	for (;;) {
		pthread_mutex_lock(&r->lock);
		while (!r->nfull && !r->done)
			pthread_cond_wait(&r->cond, &r->lock);
		if (!r->nfull) {
			pthread_mutex_unlock(&r->lock);
			return NULL;
		}
		sl = &r->slot[r->tail];
		pthread_mutex_unlock(&r->lock);
		if (r->fd >= 0 && sl->fr.len &&
		    pwrite(r->fd, sl->buf, sl->fr.len, (off_t)sl->fr.off) !=
			    (ssize_t)sl->fr.len) {
			perror("bench_rawstripe sink: pwrite");
			break;
		}
		if (sl->fr.flags & (RAW_FLAG_COMMIT | RAW_FLAG_END)) {
			if (r->fd >= 0 && fsync(r->fd)) {
				perror("bench_rawstripe sink: fsync");
				break;
			}
			ack = sl->fr.flags & RAW_FLAG_END ? 'K' : 'C';
			if (io_all(r->s, &ack, 1, true))
				break;
			if (sl->fr.flags & RAW_FLAG_END) {
				r->rc = 0;
				break;
			}
		}
		pthread_mutex_lock(&r->lock);
		r->tail = (r->tail + 1) % RAW_DEPTH;
		r->nfull--;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
	}
	/* stopped: the receiver waits for room no more */
	shutdown(r->s, SHUT_RDWR);
	pthread_mutex_lock(&r->lock);
	r->done = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* The receiver: frames into free slots until the end, EOF or an error. */
static void ring_receive(struct raw_ring *r)
{
	struct raw_slot *sl;
	bool end = false;

	while (!end) {
		pthread_mutex_lock(&r->lock);
		while (r->nfull == RAW_DEPTH && !r->done)
			pthread_cond_wait(&r->cond, &r->lock);
		if (r->done) {
			pthread_mutex_unlock(&r->lock);
			return;
		}
		sl = &r->slot[r->head];
		pthread_mutex_unlock(&r->lock);
		if (io_all(r->s, &sl->fr, sizeof(sl->fr), false) ||
		    sl->fr.len > RAW_MAX_UNIT ||
		    io_all(r->s, sl->buf, sl->fr.len, false))
			break;
		end = sl->fr.flags & RAW_FLAG_END;
		pthread_mutex_lock(&r->lock);
		r->head = (r->head + 1) % RAW_DEPTH;
		r->nfull++;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
	}
	pthread_mutex_lock(&r->lock);
	r->done = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* Serve one connection: 0 when it ended with RAW_FLAG_END. */
static int sink_conn(int dirfd, int s, uint8_t **bufs)
{
	struct raw_ring r = { .s = s, .fd = -1, .rc = -1 };
	struct raw_hdr h;
	pthread_t writer;
	char name[256];
	int i;

	if (io_all(s, &h, sizeof(h), false) || h.magic != RAW_MAGIC ||
	    h.namelen >= sizeof(name) || io_all(s, name, h.namelen, false))
		return -1;
	name[h.namelen] = '\0';
	if (h.mode == RAW_FILE) {
		if (!name_ok(name))
			return -1;
		r.fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW,
			      0644);
		if (r.fd < 0) {
			perror("bench_rawstripe sink: open");
			return -1;
		}
	}
	for (i = 0; i < RAW_DEPTH; i++)
		r.slot[i].buf = bufs[i];
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	if (pthread_create(&writer, NULL, ring_writer, &r) == 0) {
		ring_receive(&r);
		pthread_join(writer, NULL);
	}
	pthread_mutex_destroy(&r.lock);
	pthread_cond_destroy(&r.cond);
	if (r.fd >= 0)
		close(r.fd);
	return r.rc;
}

static void sink_serve(int dirfd, int ls)
{
	uint8_t *bufs[RAW_DEPTH];
	int s, i;

	for (i = 0; i < RAW_DEPTH; i++) {
		bufs[i] = malloc(RAW_MAX_UNIT);
		if (!bufs[i])
			_exit(1);
	}
	for (;;) {
		s = accept(ls, NULL, NULL);
		if (s < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		(void)sink_conn(dirfd, s, bufs);
		close(s);
	}
}

static int listen_on(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 4)) {
		perror("bench_rawstripe sink: listen");
		return -1;
	}
	return s;
}

static int sink_main(int argc, char **argv)
{
	pid_t kids[RAW_MAX_PORTS];
	int dirfd, ls[RAW_MAX_PORTS], i, sig, n = argc - 1;
	sigset_t set;

	if (n < 1 || n > RAW_MAX_PORTS) {
		fprintf(stderr, "usage: bench_rawstripe sink DIR PORT...\n");
		return 2;
	}
	dirfd = open(argv[0], O_RDONLY | O_DIRECTORY);
	if (dirfd < 0) {
		perror("bench_rawstripe sink: DIR");
		return 1;
	}
	for (i = 0; i < n; i++) {
		ls[i] = listen_on(atoi(argv[i + 1]));
		if (ls[i] < 0)
			return 1;
	}
	for (i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			/* a sink goes with its parent, however it ends */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			sink_serve(dirfd, ls[i]);
		}
		if (kids[i] < 0) {
			perror("bench_rawstripe sink: fork");
			return 1;
		}
		close(ls[i]);
	}
	/* until SIGTERM or SIGINT: then the sinks go too */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	sigwait(&set, &sig);
	for (i = 0; i < n; i++)
		kill(kids[i], SIGTERM);
	while (wait(NULL) > 0)
		;
	return 0;
}

/* ---- sender ---- */

struct stream {
	pthread_t thread;
	int port, src, nstreams, index, rc;
	uint32_t mode, unit;
	uint64_t size, commit, sent, commits;
	double t_end, t_sync; /* seconds from the start: the end, its fsync */
	const char *name;
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int connect_to(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a))) {
		perror("bench_rawstripe send: connect");
		if (s >= 0)
			close(s);
		return -1;
	}
	return s;
}

static int wait_ack(int s, char want)
{
	char ack;

	return io_all(s, &ack, 1, false) || ack != want ? -1 : 0;
}

/* One stream's units, in order: k = index, index + N, ... */
static int stream_send(struct stream *st, int s, uint8_t *buf)
{
	struct raw_frame fr = { 0 };
	uint64_t since = 0, k;
	ssize_t got;

	for (k = st->index; k * st->unit < st->size; k += st->nstreams) {
		fr.off = k * st->unit;
		fr.len = st->size - fr.off < st->unit ?
				 (uint32_t)(st->size - fr.off) :
				 st->unit;
		got = pread(st->src, buf, fr.len, (off_t)fr.off);
		if (got != (ssize_t)fr.len)
			return -1;
		since += fr.len;
		fr.flags = st->commit && since >= st->commit ? RAW_FLAG_COMMIT :
							       0;
		if (io_all(s, &fr, sizeof(fr), true) ||
		    io_all(s, buf, fr.len, true))
			return -1;
		st->sent += fr.len;
		if (fr.flags) {
			if (wait_ack(s, 'C'))
				return -1;
			st->commits++;
			since = 0;
		}
	}
	memset(&fr, 0, sizeof(fr));
	fr.flags = RAW_FLAG_END;
	if (io_all(s, &fr, sizeof(fr), true))
		return -1;
	st->t_sync = mono_now();
	if (wait_ack(s, 'K'))
		return -1;
	st->t_end = mono_now();
	st->t_sync = st->t_end - st->t_sync;
	return 0;
}

static void *stream_main(void *arg)
{
	struct stream *st = arg;
	struct raw_hdr h = { RAW_MAGIC, st->mode, (uint32_t)strlen(st->name) };
	uint8_t *buf = malloc(st->unit);
	int s = connect_to(st->port);

	st->rc = -1;
	if (s >= 0 && buf && io_all(s, &h, sizeof(h), true) == 0 &&
	    io_all(s, (void *)st->name, h.namelen, true) == 0)
		st->rc = stream_send(st, s, buf);
	if (s >= 0)
		close(s);
	free(buf);
	return NULL;
}

static int send_main(int argc, char **argv)
{
	struct stream st[RAW_MAX_PORTS];
	uint64_t unit = 1 << 20, commit = 0, sent = 0, commits = 0;
	double t0 = mono_now(), first = 1e30, last = 0, sync = 0;
	struct stat sb;
	int src, i, n, rc = 0;
	uint32_t mode;

	while (argc >= 2 && !strncmp(argv[0], "--", 2)) {
		if (!strcmp(argv[0], "--unit"))
			unit = strtoull(argv[1], NULL, 0);
		else if (!strcmp(argv[0], "--commit"))
			commit = strtoull(argv[1], NULL, 0);
		else
			break;
		argc -= 2;
		argv += 2;
	}
	n = argc - 3;
	if (n < 1 || n > RAW_MAX_PORTS || unit == 0 || unit > RAW_MAX_UNIT ||
	    (strcmp(argv[0], "discard") && strcmp(argv[0], "file"))) {
		fprintf(stderr,
			"usage: bench_rawstripe send [--unit BYTES] [--commit BYTES] discard|file NAME SRC PORT...\n");
		return 2;
	}
	mode = strcmp(argv[0], "file") ? RAW_DISCARD : RAW_FILE;
	src = open(argv[2], O_RDONLY);
	if (src < 0 || fstat(src, &sb)) {
		perror("bench_rawstripe send: SRC");
		return 1;
	}
	for (i = 0; i < n; i++) {
		st[i] = (struct stream){ .port = atoi(argv[3 + i]),
					 .src = src,
					 .nstreams = n,
					 .index = i,
					 .mode = mode,
					 .unit = (uint32_t)unit,
					 .size = (uint64_t)sb.st_size,
					 .commit = commit,
					 .name = argv[1] };
		if (pthread_create(&st[i].thread, NULL, stream_main, &st[i])) {
			n = i;
			rc = 1;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(st[i].thread, NULL);
		if (st[i].rc)
			rc = 1;
		sent += st[i].sent;
		commits += st[i].commits;
		if (st[i].t_end - t0 < first)
			first = st[i].t_end - t0;
		if (st[i].t_end - t0 > last)
			last = st[i].t_end - t0;
		if (st[i].t_sync > sync)
			sync = st[i].t_sync;
	}
	if (rc)
		fprintf(stderr, "bench_rawstripe send: a stream failed\n");
	else
		fprintf(stderr,
			"rawstripe: %llu bytes in %d streams, %llu fsyncs before the end; streams done after %.3f-%.3f s, the last fsync %.3f s at most\n",
			(unsigned long long)sent, n,
			(unsigned long long)commits, first, last, sync);
	close(src);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "sink"))
		return sink_main(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "send"))
		return send_main(argc - 2, argv + 2);
	fprintf(stderr,
		"usage: bench_rawstripe sink DIR PORT... | send [--unit BYTES] [--commit BYTES] MODE NAME SRC PORT...\n");
	return 2;
}
