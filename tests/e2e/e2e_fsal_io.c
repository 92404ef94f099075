/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * FSAL end-to-end, I/O (issue #3): WRITE stable_how and committed, the
 * write verifier (constant within a server lifetime, new after a
 * restart), READ at/after EOF, and random-offset WRITE/READ byte-identical
 * to the backing file.  Oracle: RFC 8881 18.22 (READ), 18.32 (WRITE),
 * 18.3 (COMMIT), and pread() of the backing file; the sync of a
 * DATA_SYNC/FILE_SYNC WRITE is watched with strace (e2e_sync.h).
 */
#include "e2e_fsal_util.h"
#include "e2e_sync.h"

START_TEST(write_stable_how_and_verifier)
{
	struct nfs42_client *cl = e2e_client(), *c2 = e2e_client();
	char *f = e2e_uniq("stable"), *g = e2e_uniq("stable2"), buf[8];
	static const enum nfs42_stable_how hows[] = { UNSTABLE4, DATA_SYNC4,
						      FILE_SYNC4 };
	uint8_t v0[8], v[8];
	struct nfs42_file of, og;
	uint32_t cnt, com;

	of = e2e_create_rw(cl, f);
	og = e2e_create_rw(c2, g);
	for (int i = 0; i < 3; i++) {
		struct e2e_sync *w = hows[i] != UNSTABLE4 ? e2e_sync_start() :
							    NULL;

		ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, i * 4, hows[i],
					"abcd", 4, &cnt, &com, v));
		e2e_sync_stop(w);
		/* RFC 8881 18.32.3: DATA_SYNC4/FILE_SYNC4 data is on stable
		 * storage before the reply: the file was synced in between
		 */
		e2e_sync_assert(w, f);
		e2e_sync_free(w);
		ck_assert_uint_eq(cnt, 4);
		/* RFC 8881 18.32.3: committed is at least what was asked */
		ck_assert_msg(com >= (uint32_t)hows[i] && com <= FILE_SYNC4,
			      "stable %d answered committed %u", hows[i], com);
		if (i == 0)
			memcpy(v0, v, 8);
		else
			ck_assert_mem_eq(v, v0, 8);
	}
	/* one verifier per server instance: other file, other client */
	ck_nfs_ok(c2, e2e_write(c2, &og.fh, &og.stateid, 0, UNSTABLE4, "z", 1,
				&cnt, &com, v));
	ck_assert_mem_eq(v, v0, 8);
	e2e_bpread(f, buf, 8, 4);
	ck_assert_mem_eq(buf, "abcdabcd", 8);
	/* WRITE to a directory: ISDIR; zero-length WRITE: ok, count 0 */
	{
		struct nfs42_fh root = e2e_fh(cl, "");

		ck_nfs_status(e2e_write(cl, &root, &e2e_anon_stateid, 0,
					FILE_SYNC4, "x", 1, NULL, NULL, NULL),
			      NFS4ERR_ISDIR);
	}
	ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, 100, FILE_SYNC4, "", 0,
				&cnt, &com, v));
	ck_assert_uint_eq(cnt, 0);
	ck_assert_uint_eq(e2e_bstat(f).st_size, 12);
	ck_nfs_ok(cl, e2e_close(&of));
	ck_nfs_ok(c2, e2e_close(&og));
	free(f);
	free(g);
	nfs42_client_free(cl);
	nfs42_client_free(c2);
}
END_TEST

START_TEST(read_at_and_after_eof)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("eof");
	uint8_t *data = e2e_rand_bytes(1000, 1), buf[4096];
	struct nfs42_file of;
	uint32_t n;
	bool eof;

	e2e_put_backing(f, data, 1000);
	of = e2e_open_rw(cl, f);
	/* exactly the file: eof (RFC 8881 18.22.3) */
	ck_nfs_ok(cl, e2e_read(cl, &of.fh, &of.stateid, 0, 1000, buf,
			       sizeof(buf), &n, &eof));
	ck_assert_uint_eq(n, 1000);
	ck_assert(eof);
	ck_assert_mem_eq(buf, data, 1000);
	/* the first half: not eof */
	ck_nfs_ok(cl, e2e_read(cl, &of.fh, &of.stateid, 0, 500, buf,
			       sizeof(buf), &n, &eof));
	ck_assert_uint_eq(n, 500);
	ck_assert(!eof);
	/* across the end: short, eof */
	ck_nfs_ok(cl, e2e_read(cl, &of.fh, &of.stateid, 900, 200, buf,
			       sizeof(buf), &n, &eof));
	ck_assert_uint_eq(n, 100);
	ck_assert(eof);
	ck_assert_mem_eq(buf, data + 900, 100);
	/* at EOF and beyond: 0 bytes, eof */
	ck_nfs_ok(cl, e2e_read(cl, &of.fh, &of.stateid, 1000, 10, buf,
			       sizeof(buf), &n, &eof));
	ck_assert_uint_eq(n, 0);
	ck_assert(eof);
	ck_nfs_ok(cl, e2e_read(cl, &of.fh, &of.stateid, 1u << 30, 10, buf,
			       sizeof(buf), &n, &eof));
	ck_assert_uint_eq(n, 0);
	ck_assert(eof);
	/* count 0 in the middle: 0 bytes, not eof */
	ck_nfs_ok(cl, e2e_read(cl, &of.fh, &of.stateid, 10, 0, buf, sizeof(buf),
			       &n, &eof));
	ck_assert_uint_eq(n, 0);
	ck_assert(!eof);
	/* the file grows behind the server's back: READ sees it */
	{
		int fd = e2e_bopen(f, O_WRONLY);

		ck_assert_int_eq(pwrite(fd, "tail", 4, 1000), 4);
		close(fd);
	}
	ck_nfs_ok(cl, e2e_read(cl, &of.fh, &of.stateid, 1000, 10, buf,
			       sizeof(buf), &n, &eof));
	ck_assert_uint_eq(n, 4);
	ck_assert_mem_eq(buf, "tail", 4);
	ck_assert(eof);
	ck_nfs_ok(cl, e2e_close(&of));
	free(data);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(random_io_byte_identical)
{
	struct nfs42_client *cl = e2e_client();
	const size_t size = 6u << 20;
	uint8_t *model = calloc(1, size), *back = malloc(size);
	uint8_t *src = e2e_rand_bytes(1u << 20, 11), *buf = malloc(1u << 20);
	char *f = e2e_uniq("rand");
	unsigned int seed = 4242;
	struct nfs42_file of;
	size_t hi = 0;
	int i;

	of = e2e_create_rw(cl, f);
	for (i = 0; i < 120; i++) {
		size_t len = 1 + rand_r(&seed) % (300u << 10);
		size_t off = rand_r(&seed) % (size - len);
		size_t so = rand_r(&seed) % ((1u << 20) - len);
		enum nfs42_stable_how how = rand_r(&seed) % 3;

		ck_nfs_ok(cl, nfs42_pwrite(&of, src + so, len, off, how));
		memcpy(model + off, src + so, len);
		if (off + len > hi)
			hi = off + len;
	}
	ck_nfs_ok(cl, nfs42_commit(&of));
	ck_assert_uint_eq(e2e_bstat(f).st_size, hi);
	e2e_bpread(f, back, hi, 0);
	ck_assert_msg(memcmp(back, model, hi) == 0,
		      "backing file differs from what was written");
	ck_assert_uint_eq(e2e_getattr(cl, &of.fh, NULL).size, hi);
	/* random reads against the backing file */
	for (i = 0; i < 150; i++) {
		size_t len = 1 + rand_r(&seed) % (1u << 20);
		size_t off = rand_r(&seed) % hi;

		if (off + len > hi)
			len = hi - off;
		e2e_read_all(cl, &of.fh, &of.stateid, off, buf, len);
		ck_assert_msg(memcmp(buf, back + off, len) == 0,
			      "READ %zu@%zu differs from the backing file", len,
			      off);
	}
	ck_nfs_ok(cl, e2e_close(&of));
	free(model);
	free(back);
	free(src);
	free(buf);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

/* Last: restarts the server. */
START_TEST(write_verifier_changes_on_restart)
{
	struct nfs42_client *cl = e2e_client();
	char *f = e2e_uniq("verf");
	uint8_t v1[8], v2[8], v3[8];
	struct nfs42_file of;
	struct nfs42_fh fh;
	char buf[8];

	of = e2e_create_rw(cl, f);
	fh = of.fh;
	ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, 0, UNSTABLE4, "one", 3,
				NULL, NULL, v1));
	ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, 3, UNSTABLE4, "two", 3,
				NULL, NULL, v2));
	ck_assert_mem_eq(v1, v2, 8);
	ck_nfs_ok(cl, nfs42_commit(&of));
	nfs42_client_free(cl);
	e2e_server_ctl("restart");
	cl = e2e_client_after_restart();
	of = e2e_open_rw(cl, f);
	ck_assert_mem_eq(of.fh.data, fh.data, fh.len);
	ck_nfs_ok(cl, e2e_write(cl, &of.fh, &of.stateid, 6, UNSTABLE4, "3", 1,
				NULL, NULL, v3));
	/* RFC 8881 18.32.3: a new instance has a new verifier */
	ck_assert_mem_ne(v3, v1, 8);
	ck_nfs_ok(cl, e2e_close(&of));
	e2e_bpread(f, buf, 7, 0);
	ck_assert_mem_eq(buf, "onetwo3", 7);
	free(f);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_fsal_io");
	TCase *tc = tcase_create("io");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, write_stable_how_and_verifier);
	tcase_add_test(tc, read_at_and_after_eof);
	tcase_add_test(tc, random_io_byte_identical);
	tcase_add_test(tc, write_verifier_changes_on_restart);
	suite_add_tcase(s, tc);
	e2e_sync_init();
	return e2e_run(s);
}
