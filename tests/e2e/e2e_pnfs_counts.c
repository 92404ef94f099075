/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Counts a client sends that reach an allocation (issue #26 item 1 and
 * its audit; harness --pnfs 2): each is cut, or refused, before the
 * server allocates for it, and no server dies of one.
 *
 *  - READ and READ_PLUS on a data server with counts near 2^32: the
 *    reply carries at most what the session's reply can hold (patch
 *    0150; a count of 0xFFFFFFFD or more wrapped to a zero-byte buffer
 *    that the file's data then overflowed, and other large counts
 *    allocated up to 4 GiB);
 *  - WRITE, on the metadata server and on a data server, whose data
 *    length says more than the request holds: GARBAGE_ARGS, nothing
 *    allocated for it (patch 0154; it allocated the 4 GiB first);
 *  - a callback reply with more results than the callback had ops: the
 *    server refuses it (patch 0153; it wrote them past the end of its
 *    two-entry array).
 *
 * "Nothing allocated" is read on the server process's VmPeak
 * (/proc/PID/status): it would grow by the gigabytes asked.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>

#include "e2e_fsal_util.h"
#include "e2e_server_proc.h"

#define FILE_SIZE (3 << 20)
/* VmPeak may grow by this much at most over a test (kB): an ASan
 * server's quarantine keeps up to 256 MB of freed buffers mapped; the
 * allocations these tests guard against were 2 to 4 GiB */
#define PEAK_SLACK_KB (1 << 20)

static const char *uniq(const char *what)
{
	return e2e_fmt("counts-%s", e2e_uniq(what));
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/* A session of its own with data server 0 (the first of NFS42_DS_PORTS). */
static struct nfs42_client *ds_connect(void)
{
	struct nfs42_client *ds;
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.port = (uint16_t)atoi(e2e_env("NFS42_DS_PORTS"));
	o.no_back_channel = true;
	o.exchgid_flags = EXCHGID4_FLAG_USE_PNFS_DS;
	o.timeout_ms = 20000;
	ck_assert_int_eq(nfs42_client_create(&o, &ds), 0);
	return ds;
}

/* A file of FILE_SIZE bytes made on the server's disk; its bytes. */
static const char *backing_file(const char *what, uint8_t **bytes)
{
	const char *name = uniq(what);
	uint8_t *buf = malloc(FILE_SIZE);

	fill(buf, FILE_SIZE, 7);
	e2e_put_backing(name, buf, FILE_SIZE);
	*bytes = buf;
	return name;
}

/* Counts that wrapped RNDUP() to 0 (0xFFFFFFFD and up: the probe's
 * 0xFFFFFFFF first) or allocated gigabytes (the others). */
static const uint32_t huge[] = { 0xffffffffu, 0xfffffffeu, 0xfffffffdu,
				 0xfffffffcu, 0xf0000000u, 0x80000000u,
				 0x7fffffffu };
#define NHUGE (sizeof(huge) / sizeof(huge[0]))

/* READ of count at offset 0 through the data server: a short read of
 * what the reply can hold, the file's first bytes. */
static void ds_read_one(struct nfs42_client *ds, const struct nfs42_fh *fh,
			const struct nfs42_stateid *sid, uint32_t count,
			const uint8_t *bytes, bool cachethis, pid_t pid)
{
	struct nfs42_compound *c = nfs42_compound_new(ds);
	const struct nfs42_res *r;
	uint32_t max = cachethis ? 8192 : nfs42_max_response(ds);
	int idx, rc;

	nfs42_op_putfh(c, fh);
	idx = nfs42_op_read(c, sid, 0, count);
	nfs42_compound_no_retry(c);
	if (cachethis)
		nfs42_compound_cachethis(c, true);
	rc = nfs42_compound_run(c);
	ck_assert_msg(e2e_proc_alive(pid),
		      "the data server died of READ count %#x", count);
	ck_assert_msg(rc == 0, "READ count %#x%s: %s", count,
		      cachethis ? " (cached)" : "", nfs42_strerror(rc));
	r = nfs42_res(c, idx);
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(r->u.read.len > 0 && r->u.read.len < max,
		      "READ count %#x%s: %" PRIu32
		      " bytes (reply at most %" PRIu32 ")",
		      count, cachethis ? " (cached)" : "", r->u.read.len, max);
	ck_assert(!r->u.read.eof);
	ck_assert_msg(!memcmp(r->u.read.data, bytes, r->u.read.len),
		      "READ count %#x: not the file's bytes", count);
	nfs42_compound_free(c);
}

/* The same with READ_PLUS: data segments of the file's bytes, no more
 * than the reply holds. */
static void ds_read_plus_one(struct nfs42_client *ds, const struct nfs42_fh *fh,
			     const struct nfs42_stateid *sid, uint32_t count,
			     const uint8_t *bytes, pid_t pid)
{
	struct nfs42_compound *c = nfs42_compound_new(ds);
	const struct nfs42_res *r;
	uint64_t got = 0;
	uint32_t i;
	int idx, rc;

	nfs42_op_putfh(c, fh);
	idx = nfs42_op_read_plus(c, sid, 0, count);
	nfs42_compound_no_retry(c);
	rc = nfs42_compound_run(c);
	ck_assert_msg(e2e_proc_alive(pid),
		      "the data server died of READ_PLUS count %#x", count);
	ck_assert_msg(rc == 0, "READ_PLUS count %#x: %s", count,
		      nfs42_strerror(rc));
	r = nfs42_res(c, idx);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_gt(r->u.read_plus.n, 0);
	for (i = 0; i < r->u.read_plus.n; i++) {
		const struct nfs42_rp_seg *s = &r->u.read_plus.segs[i];

		ck_assert_uint_eq(s->type, NFS4_CONTENT_DATA);
		ck_assert_uint_eq(s->offset, got);
		ck_assert(!memcmp(s->data, bytes + got, s->length));
		got += s->length;
	}
	ck_assert_uint_gt(got, 0);
	ck_assert_uint_lt(got, nfs42_max_response(ds));
	nfs42_compound_free(c);
}

/*
 * The probe of issue #26 item 1: one READ of count 0xFFFFFFFF on a data
 * server's handle killed it; any count at or above 0xFFFFFFFD did, and
 * the others allocated gigabytes.  Each is now a short read of the
 * file's first bytes, within the session's reply (and within the cached
 * reply size when the reply is cached).
 */
START_TEST(ds_read_huge_counts)
{
	struct nfs42_client *cl = e2e_client(), *ds;
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	uint8_t *bytes;
	const char *name = backing_file("dsread", &bytes);
	pid_t pid = e2e_server_pid("ds0");
	struct nfs42_stateid sid;
	struct nfs42_file f;
	int64_t peak0, peak;
	unsigned int i;

	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				 NFS42_NOCREATE, 0, false, &f));
	ck_nfs_ok(cl, nfs42_layout_get(&f, LAYOUTIOMODE4_READ, lo));
	ds = ds_connect();
	sid = f.stateid;
	sid.seqid = 0;
	peak0 = e2e_proc_status_kb(pid, "VmPeak");
	ck_assert_int_gt(peak0, 0);
	for (i = 0; i < NHUGE; i++) {
		ds_read_one(ds, &lo->fhs[0], &sid, huge[i], bytes, false, pid);
		ds_read_one(ds, &lo->fhs[0], &sid, huge[i], bytes, true, pid);
		ds_read_plus_one(ds, &lo->fhs[0], &sid, huge[i], bytes, pid);
	}
	peak = e2e_proc_status_kb(pid, "VmPeak");
	ck_assert_msg(peak - peak0 < PEAK_SLACK_KB,
		      "the data server's VmPeak grew by %" PRId64 " kB",
		      peak - peak0);
	nfs42_client_free(ds);
	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_close(&f));
	free(lo);
	free(bytes);
	nfs42_client_free(cl);
}
END_TEST

/* WRITE whose data length says len while the request holds 8 bytes:
 * GARBAGE_ARGS (the library's -EINVAL), and the server lives. */
static void write_claiming(struct nfs42_client *cl, const struct nfs42_fh *fh,
			   const struct nfs42_stateid *sid, uint32_t len,
			   pid_t pid)
{
	uint8_t raw[4 + 16 + 8 + 4 + 4 + 8], *p = raw;
	struct nfs42_compound *c = nfs42_compound_new(cl);
	uint32_t v[2];
	uint64_t off = 0;
	int rc;

	/* WRITE4args: opnum, stateid, offset, stable, data<> */
	v[0] = htonl(OP_WRITE);
	memcpy(p, v, 4);
	p += 4;
	v[0] = htonl(sid->seqid);
	memcpy(p, v, 4);
	memcpy(p + 4, sid->other, 12);
	p += 16;
	memcpy(p, &off, 8);
	p += 8;
	v[0] = htonl(UNSTABLE4);
	v[1] = htonl(len);
	memcpy(p, v, 8);
	p += 8;
	memcpy(p, "8 bytes!", 8);
	nfs42_op_putfh(c, fh);
	nfs42_op_raw(c, OP_WRITE, raw, sizeof(raw));
	nfs42_compound_no_retry(c);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	ck_assert_msg(e2e_proc_alive(pid),
		      "the server died of WRITE data length %#x", len);
	ck_assert_msg(rc == -EINVAL, "WRITE data length %#x: %d (%s)", len, rc,
		      nfs42_strerror(rc));
}

/* Patch 0154: a WRITE whose data length is beyond the request is not
 * decodable; the server allocated that length (up to 4 GiB) first. */
START_TEST(write_length_beyond_request)
{
	static const uint32_t lens[] = { 0xffffff00u, 0x80000000u,
					 0x10000000u };
	struct nfs42_client *cl = e2e_client(), *w;
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = uniq("write");
	pid_t mds = e2e_server_pid("server"), ds0 = e2e_server_pid("ds0");
	int64_t peak0, dpeak0, peak, dpeak;
	struct nfs42_file f;
	unsigned int i;

	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				 UNCHECKED4, 0644, true, &f));
	ck_nfs_ok(cl, nfs42_layout_get(&f, LAYOUTIOMODE4_RW, lo));
	peak0 = e2e_proc_status_kb(mds, "VmPeak");
	dpeak0 = e2e_proc_status_kb(ds0, "VmPeak");
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		/* a session of its own each time: an undecodable request
		 * leaves its slot in doubt */
		w = e2e_client();
		write_claiming(w, &f.fh, &f.stateid, lens[i], mds);
		nfs42_client_free(w);
		w = ds_connect();
		write_claiming(w, &lo->fhs[0], &f.stateid, lens[i], ds0);
		nfs42_client_free(w);
	}
	peak = e2e_proc_status_kb(mds, "VmPeak");
	dpeak = e2e_proc_status_kb(ds0, "VmPeak");
	ck_assert_msg(peak - peak0 < PEAK_SLACK_KB,
		      "the metadata server's VmPeak grew by %" PRId64 " kB",
		      peak - peak0);
	ck_assert_msg(dpeak - dpeak0 < PEAK_SLACK_KB,
		      "the data server's VmPeak grew by %" PRId64 " kB",
		      dpeak - dpeak0);
	/* and a WRITE that says what it holds still works */
	ck_assert_int_eq(e2e_write(cl, &f.fh, &f.stateid, 0, FILE_SYNC4,
				   "8 bytes!", 8, NULL, NULL, NULL),
			 0);
	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_close(&f));
	free(lo);
	nfs42_client_free(cl);
}
END_TEST

/* A serves its back channel until stop. */
struct cb_server {
	struct nfs42_client *cl;
	pthread_t thread;
	bool stop;
	int rc;
};

static void *cb_server_main(void *arg)
{
	struct cb_server *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE) && s->rc >= 0)
		s->rc = nfs42_poll(s->cl, 100);
	return NULL;
}

/*
 * Patch 0153: client A holds a layout; B's truncate makes the server
 * recall it (CB_COMPOUND of CB_SEQUENCE and CB_LAYOUTRECALL), and A
 * answers with 1024 results, 1022 more than the call had ops (the most
 * XDR_ARRAY_MAXLEN lets through).  The server decoded all of them into
 * its two-entry array; it now refuses the reply and lives.
 */
START_TEST(cb_reply_more_results_than_ops)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client(), *c;
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	uint8_t *bytes;
	const char *name = backing_file("cb", &bytes);
	pid_t mds = e2e_server_pid("server");
	uint64_t recalls0 = nfs42_layout_recalls(a);
	struct nfs42_compound *cpd;
	struct nfs42_sattr sa;
	struct cb_server s = { .cl = a };
	struct nfs42_file fa;
	int64_t t0;
	int rc;

	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				NFS42_NOCREATE, 0, false, &fa));
	ck_nfs_ok(a, nfs42_layout_get(&fa, LAYOUTIOMODE4_READ, lo));
	nfs42_set_cb_extra_results(a, 1022);
	ck_assert_int_eq(pthread_create(&s.thread, NULL, cb_server_main, &s),
			 0);
	/* one SETATTR of the size, not retried: it queues the recall */
	nfs42_sattr_init(&sa);
	nfs42_sattr_size(&sa, 4096);
	cpd = nfs42_compound_new(b);
	nfs42_op_putfh(cpd, &fa.fh);
	nfs42_op_setattr(cpd, NULL, &sa);
	nfs42_compound_no_retry(cpd);
	rc = nfs42_compound_run(cpd);
	nfs42_compound_free(cpd);
	ck_assert_msg(rc == NFS4ERR_DELAY, "SETATTR: %s", nfs42_strerror(rc));
	/* A answers the recall (with its extra results) */
	t0 = e2e_now_ms();
	while (nfs42_layout_recalls(a) == recalls0 && e2e_now_ms() - t0 < 20000)
		usleep(50 * 1000);
	ck_assert_uint_gt(nfs42_layout_recalls(a), recalls0);
	/* the reply has been taken by now, or never will */
	usleep(1000 * 1000);
	__atomic_store_n(&s.stop, true, __ATOMIC_RELEASE);
	pthread_join(s.thread, NULL);
	ck_assert_msg(e2e_proc_alive(mds),
		      "the metadata server died of a callback reply");
	/* the server still serves a new client */
	c = e2e_client();
	(void)e2e_stat(c, name, NULL);
	nfs42_client_free(c);
	ck_assert(e2e_proc_alive(mds));
	nfs42_set_cb_extra_results(a, 0);
	free(lo);
	free(bytes);
	nfs42_client_free(a);
	nfs42_client_free(b);
}
END_TEST

/* One case per fix (CK_RUN_CASE=dsread, write or cb runs one alone: an
 * unfixed server dies of the first, and the others would only see it
 * dead). */
int main(void)
{
	Suite *s = suite_create("pnfs_counts");
	TCase *dsread = tcase_create("dsread");
	TCase *write = tcase_create("write");
	TCase *cb = tcase_create("cb");

	tcase_set_timeout(dsread, 180);
	tcase_set_timeout(write, 180);
	tcase_set_timeout(cb, 180);
	tcase_add_test(dsread, ds_read_huge_counts);
	tcase_add_test(write, write_length_beyond_request);
	tcase_add_test(cb, cb_reply_more_results_than_ops);
	suite_add_tcase(s, dsread);
	suite_add_tcase(s, write);
	suite_add_tcase(s, cb);
	return e2e_run(s);
}
