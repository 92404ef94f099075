/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * A data server dies under a striped transfer (issue #20; harness
 * --pnfs 2): killed with SIGKILL while a file is being written through the
 * layout, the client sends what that data server had not committed, and
 * the rest, through the metadata server; the file is whole, byte for
 * byte.  A read with a dead data server gets its stripes from the
 * metadata server.  Once the data server is back, the next transfer uses
 * it again.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>

#include "e2e_fsal_util.h"

#define TOTAL (32u << 20)
#define CHUNK (1u << 20)

static const char *uniq(const char *what)
{
	return e2e_fmt("failover-%s", e2e_uniq(what));
}

static void ctl(const char *verb, int ds)
{
	char *cmd;

	ck_assert_int_gt(asprintf(&cmd, "'%s' %s %d",
				  e2e_env("NFS42_SERVER_CTL"), verb, ds),
			 0);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	free(cmd);
}

static uint8_t pattern(uint64_t off)
{
	return (uint8_t)((off * 2654435761u) >> 13);
}

/* Feeds TOTAL bytes of the pattern into a pipe, a CHUNK at a time, and
 * kills data server 1 once a quarter has gone. */
struct feeder {
	int fd;
	pthread_t thread;
	bool killed;
};

static void *feed_main(void *arg)
{
	struct feeder *fd = arg;
	static uint8_t buf[CHUNK];
	uint64_t off;
	size_t i;

	for (off = 0; off < TOTAL; off += CHUNK) {
		for (i = 0; i < CHUNK; i++)
			buf[i] = pattern(off + i);
		if (nfs42_fd_write_all(fd->fd, buf, CHUNK) != 0)
			break;
		if (off == TOTAL / 4) {
			ctl("ds-kill9", 1);
			fd->killed = true;
		}
		usleep(20 * 1000);
	}
	close(fd->fd);
	return NULL;
}

static void check_backing(const char *name)
{
	static uint8_t buf[CHUNK];
	uint64_t off = 0;
	ssize_t n, i;
	int fd = open(e2e_backing(name), O_RDONLY);

	ck_assert_int_ge(fd, 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			ck_assert_msg(buf[i] == pattern(off + i),
				      "byte %" PRIu64 " wrong",
				      off + (uint64_t)i);
		off += n;
	}
	close(fd);
	ck_assert_uint_eq(off, TOTAL);
}

START_TEST(ds_killed_mid_write)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = uniq("write");
	struct nfs42_pnfs_stats st;
	struct feeder fd = { 0 };
	struct nfs42_file f;
	uint64_t size = 0;
	int p[2];

	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				 UNCHECKED4, 0644, true, &f));
	ck_nfs_ok(cl, nfs42_layout_get(&f, LAYOUTIOMODE4_RW, lo));
	ck_assert_int_eq(pipe(p), 0);
	fd.fd = p[1];
	ck_assert_int_eq(pthread_create(&fd.thread, NULL, feed_main, &fd), 0);
	ck_nfs_ok(cl, nfs42_pnfs_write_fd(&f, lo, NULL, p[0], &size, &st));
	pthread_join(fd.thread, NULL);
	close(p[0]);
	ck_assert(fd.killed);
	ck_assert_uint_eq(size, TOTAL);
	/* data server 1 given up, its part sent to the metadata server */
	ck_assert_uint_eq(st.ds_failed, 1);
	ck_assert_uint_gt(st.mds_bytes, 0);
	ck_assert_uint_gt(st.ds_bytes[0], TOTAL / 4);
	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_close(&f));
	check_backing(name);

	/* a read with data server 1 still dead: its stripes come from the
	 * metadata server, the file whole */
	{
		struct nfs42_file r;
		uint64_t end = 0;
		char *tmp;
		int ofd;

		ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name),
					 OPEN4_SHARE_ACCESS_READ,
					 NFS42_NOCREATE, 0, false, &r));
		ck_nfs_ok(cl, nfs42_layout_get(&r, LAYOUTIOMODE4_READ, lo));
		ofd = e2e_local_tmp("failover", &tmp);
		ck_nfs_ok(cl, nfs42_pnfs_read_fd(&r, lo, NULL, ofd, &end, &st));
		close(ofd);
		ck_assert_uint_eq(end, TOTAL);
		ck_assert_uint_ge(st.mds_bytes, TOTAL / 2 - (1u << 20));
		ck_assert_uint_gt(st.ds_bytes[0], 0);
		ck_assert(e2e_same_as_backing(tmp, name));
		unlink(tmp);
		ck_nfs_ok(cl, nfs42_layout_return(&r, lo));
		ck_nfs_ok(cl, nfs42_close(&r));
	}
	free(lo);
	nfs42_client_free(cl);

	/* back again: a new client's transfer uses both data servers */
	ctl("ds-start", 1);
	cl = e2e_client();
	lo = malloc(sizeof(*lo));
	{
		struct nfs42_file r;
		int ofd = open("/dev/null", O_WRONLY);

		ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name),
					 OPEN4_SHARE_ACCESS_READ,
					 NFS42_NOCREATE, 0, false, &r));
		ck_nfs_ok(cl, nfs42_layout_get(&r, LAYOUTIOMODE4_READ, lo));
		ck_nfs_ok(cl, nfs42_pnfs_read_fd(&r, lo, NULL, ofd, NULL, &st));
		close(ofd);
		ck_assert_uint_eq(st.mds_bytes, 0);
		ck_assert_uint_ge(st.ds_bytes[1], TOTAL / 2 - (1u << 20));
		ck_nfs_ok(cl, nfs42_layout_return(&r, lo));
		ck_nfs_ok(cl, nfs42_close(&r));
	}
	free(lo);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pnfs_failover");
	TCase *tc = tcase_create("failover");

	tcase_set_timeout(tc, 480);
	tcase_add_test(tc, ds_killed_mid_write);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
