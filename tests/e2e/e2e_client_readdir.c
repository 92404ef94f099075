/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: READDIR over a directory of 1500 entries.  Every name exactly
 * once, attributes per entry, and cookies resumable (also from another
 * client).
 */
#include <errno.h>

#include "nfs42_e2e.h"

#define NENTRIES 1500

static char *dir_rel = "big-dir";

static void make_big_dir(void)
{
	char *d = e2e_backing(dir_rel), name[64];
	int i;

	mkdir(d, 0755);
	for (i = 0; i < NENTRIES; i++) {
		snprintf(name, sizeof(name), "%s/entry-%04d", dir_rel, i);
		e2e_put_backing(name, name, i % 7);
	}
	free(d);
}

static int entry_index(const char *name)
{
	int i;

	if (sscanf(name, "entry-%d", &i) != 1 || i < 0 || i >= NENTRIES)
		return -1;
	return i;
}

struct seen {
	int count[NENTRIES];
	int total;
};

static int mark(void *arg, const struct nfs42_dirent *e)
{
	struct seen *s = arg;
	int i = entry_index(e->name);

	ck_assert_msg(i >= 0, "unexpected entry '%s'", e->name);
	ck_assert(nfs42_bm_isset(&e->attrs.mask, FATTR4_SIZE));
	ck_assert_uint_eq(e->attrs.size, (uint64_t)(i % 7));
	ck_assert_uint_eq(e->attrs.type, NF4REG);
	s->count[i]++;
	s->total++;
	return 0;
}

START_TEST(all_names_exactly_once)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_stat();
	static struct seen s;
	char *p = e2e_path(dir_rel);
	int i;

	make_big_dir();
	ck_nfs_ok(cl, nfs42_readdir_path(cl, p, &bm, mark, &s));
	ck_assert_int_eq(s.total, NENTRIES);
	for (i = 0; i < NENTRIES; i++)
		ck_assert_msg(s.count[i] == 1, "entry %d seen %d times", i,
			      s.count[i]);
	free(p);
	nfs42_client_free(cl);
}
END_TEST

/* One READDIR call; fills names[] and returns the number of entries. */
static int readdir_page(struct nfs42_client *cl, const struct nfs42_fh *fh,
			uint64_t cookie, uint8_t *verf, uint32_t maxcount,
			uint64_t *cookies, int *idx, bool *eof)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_FILEID, -1);
	struct nfs42_compound *c = nfs42_compound_new(cl);
	const struct nfs42_res *r;
	uint32_t i;
	int n, op;

	nfs42_op_putfh(c, fh);
	op = nfs42_op_readdir(c, cookie, verf, maxcount, maxcount, &bm);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	r = nfs42_res(c, op);
	n = 0;
	for (i = 0; i < r->u.readdir.n; i++) {
		if (entry_index(r->u.readdir.entries[i].name) < 0)
			continue;
		cookies[n] = r->u.readdir.entries[i].cookie;
		idx[n++] = entry_index(r->u.readdir.entries[i].name);
	}
	memcpy(verf, r->u.readdir.cookieverf, NFS4_VERIFIER_SIZE);
	*eof = r->u.readdir.eof;
	nfs42_compound_free(c);
	return n;
}

START_TEST(cookies_resume)
{
	struct nfs42_client *cl = e2e_client(), *other;
	static uint64_t cookies[NENTRIES], c2[NENTRIES];
	static int idx[NENTRIES], idx2[NENTRIES];
	uint8_t verf[8] = { 0 }, verf2[8];
	char *p = e2e_path(dir_rel);
	static struct seen s;
	struct nfs42_fh fh;
	int n, n2, k, i, total;
	bool eof;

	make_big_dir();
	ck_nfs_ok(cl, nfs42_lookup_path(cl, p, &fh, NULL));
	/* a small first page */
	n = readdir_page(cl, &fh, 0, verf, 4096, cookies, idx, &eof);
	ck_assert_int_gt(n, 10);
	ck_assert(!eof);
	/* resume from the middle of that page: we must get exactly what
	 * followed the chosen entry, first with the same client */
	k = n / 2;
	memcpy(verf2, verf, 8);
	n2 = readdir_page(cl, &fh, cookies[k], verf2, 4096, c2, idx2, &eof);
	ck_assert_int_gt(n2, 0);
	for (i = 0; k + 1 + i < n && i < n2; i++)
		ck_assert_int_eq(idx2[i], idx[k + 1 + i]);
	/* then with another client, walking to the end */
	other = e2e_client();
	memset(&s, 0, sizeof(s));
	for (i = 0; i <= k; i++)
		s.count[idx[i]]++;
	total = k + 1;
	memcpy(verf2, verf, 8);
	uint64_t ck = cookies[k];

	do {
		n2 = readdir_page(other, &fh, ck, verf2, 8192, c2, idx2, &eof);
		for (i = 0; i < n2; i++)
			s.count[idx2[i]]++;
		total += n2;
		if (n2)
			ck = c2[n2 - 1];
	} while (!eof);
	ck_assert_int_eq(total, NENTRIES);
	for (i = 0; i < NENTRIES; i++)
		ck_assert_msg(s.count[i] == 1, "entry %d seen %d times", i,
			      s.count[i]);
	nfs42_client_free(other);
	free(p);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(tiny_maxcount_is_toosmall)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_bitmap bm = nfs42_bm_stat();
	struct nfs42_compound *c = nfs42_compound_new(cl);
	char *p = e2e_path(dir_rel);
	struct nfs42_fh fh;

	make_big_dir();
	ck_nfs_ok(cl, nfs42_lookup_path(cl, p, &fh, NULL));
	nfs42_op_putfh(c, &fh);
	nfs42_op_readdir(c, 0, NULL, 16, 16, &bm);
	ck_assert_int_eq(nfs42_compound_run(c), NFS4ERR_TOOSMALL);
	nfs42_compound_free(c);
	free(p);
	nfs42_client_free(cl);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("e2e_client_readdir");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, all_names_exactly_once);
	tcase_add_test(tc, cookies_resume);
	tcase_add_test(tc, tiny_maxcount_is_toosmall);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
