/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * End-to-end: READDIR replies as large as the client asks (RFC 8881
 * 18.23.3: maxcount bounds READDIR4resok; patch 0130).  The requests are
 * the Linux client's: the attributes its READDIR with "plus" asks for
 * (dentries are primed from those entries only; a name that came in a
 * later, attribute-less READDIR costs a LOOKUP when it is opened), dircount
 * equal to maxcount, 65448 bytes first and then doubling.  Every reply that
 * is not the last must be full: the next entry would not have fitted in
 * maxcount.  Ganesha's built-in 32 KiB cap (Readdir_Res_Size) answered
 * every such request with about 32 KiB.  With the argument "capped" the
 * server runs with Readdir_Res_Size = 32768: replies then fill 32 KiB
 * (an admin's setting still holds).
 */
#include <errno.h>

#include "nfs42_e2e.h"

#define NHEADERS 600
#define NOBJDIRS 256

/* the server's Readdir_Res_Size when the test is told it ("capped") */
static uint32_t reply_cap = UINT32_MAX;

/* the Linux client's READDIR attributes (nfs4_setup_readdir, plus) */
static struct nfs42_bitmap linux_plus_bitmap(void)
{
	return nfs42_bm_make(FATTR4_TYPE, FATTR4_CHANGE, FATTR4_SIZE,
			     FATTR4_FSID, FATTR4_RDATTR_ERROR,
			     FATTR4_FILEHANDLE, FATTR4_FILEID, FATTR4_MODE,
			     FATTR4_NUMLINKS, FATTR4_OWNER, FATTR4_OWNER_GROUP,
			     FATTR4_RAWDEV, FATTR4_SPACE_USED,
			     FATTR4_TIME_ACCESS, FATTR4_TIME_METADATA,
			     FATTR4_TIME_MODIFY, FATTR4_MOUNTED_ON_FILEID, -1);
}

/* like /usr/include/linux: 600 files with header-like names */
static const char *make_headers(void)
{
	static const char *rel = "rd-headers";
	char *d = e2e_backing(rel), name[96];
	int i;

	mkdir(d, 0755);
	for (i = 0; i < NHEADERS; i++) {
		snprintf(name, sizeof(name), "%s/if_header_%03d_%.*s.h", rel, i,
			 i % 13, "netfilterxyz");
		e2e_put_backing(name, "x", 1);
	}
	free(d);
	return rel;
}

/* like .git/objects: 256 two-digit directories, info and pack */
static const char *make_objects(void)
{
	static const char *rel = "rd-objects";
	char *d = e2e_backing(rel), *sub;
	char name[64];
	int i;

	mkdir(d, 0755);
	for (i = 0; i < NOBJDIRS + 2; i++) {
		if (i < NOBJDIRS)
			snprintf(name, sizeof(name), "%s/%02x", rel, i);
		else
			snprintf(name, sizeof(name), "%s/%s", rel,
				 i == NOBJDIRS ? "info" : "pack");
		sub = e2e_backing(name);
		ck_assert_int_eq(mkdir(sub, 0755), 0);
		free(sub);
	}
	free(d);
	return rel;
}

struct page {
	uint32_t n, resok_len, first_len;
	uint64_t last_cookie;
	bool eof;
};

/* One READDIR as Linux sends it (dircount = maxcount); names counted in
 * seen[] by index (-1: not one of ours) */
static struct page readdir_once(struct nfs42_client *cl,
				const struct nfs42_fh *fh, uint64_t cookie,
				uint8_t *verf, uint32_t maxcount,
				int (*index_of)(const char *), int *seen)
{
	struct nfs42_bitmap bm = linux_plus_bitmap();
	struct nfs42_compound *c = nfs42_compound_new(cl);
	const struct nfs42_res *r;
	struct page p = { 0 };
	uint32_t i;
	int op, k;

	nfs42_op_putfh(c, fh);
	op = nfs42_op_readdir(c, cookie, verf, maxcount, maxcount, &bm);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	r = nfs42_res(c, op);
	p.n = r->u.readdir.n;
	p.eof = r->u.readdir.eof;
	p.resok_len = r->u.readdir.resok_len;
	if (p.n) {
		p.first_len = r->u.readdir.entries[0].xdr_len;
		p.last_cookie = r->u.readdir.entries[p.n - 1].cookie;
	}
	for (i = 0; i < r->u.readdir.n; i++) {
		const struct nfs42_dirent *e = &r->u.readdir.entries[i];

		ck_assert_msg(nfs42_bm_isset(&e->attrs.mask, FATTR4_FILEHANDLE),
			      "entry '%s' without its file handle", e->name);
		k = index_of(e->name);
		ck_assert_msg(k >= 0, "unexpected entry '%s'", e->name);
		seen[k]++;
	}
	memcpy(verf, r->u.readdir.cookieverf, NFS4_VERIFIER_SIZE);
	nfs42_compound_free(c);
	return p;
}

/*
 * Read the whole directory with the given first maxcount, doubling it
 * for each further call up to max_maxcount (the Linux client's dtsize
 * growth); checks every reply's size against its maxcount and that every
 * name came once; returns the number of READDIR calls.
 */
static int walk(struct nfs42_client *cl, const char *rel, uint32_t maxcount,
		uint32_t max_maxcount, int (*index_of)(const char *), int total)
{
	uint8_t verf[NFS4_VERIFIER_SIZE] = { 0 };
	int *seen = calloc(total, sizeof(int));
	char *path = e2e_path(rel);
	struct page p, prev = { 0 };
	uint32_t prev_max = 0, limit;
	uint64_t cookie = 0;
	struct nfs42_fh fh;
	int calls = 0, i;

	ck_assert_ptr_nonnull(seen);
	ck_nfs_ok(cl, nfs42_lookup_path(cl, path, &fh, NULL));
	do {
		p = readdir_once(cl, &fh, cookie, verf, maxcount, index_of,
				 seen);
		calls++;
		limit = maxcount < reply_cap ? maxcount : reply_cap;
		ck_assert_msg(p.resok_len <= limit,
			      "%s: READDIR4resok of %u bytes for maxcount %u",
			      rel, p.resok_len, maxcount);
		ck_assert_msg(p.n > 0 || p.eof, "%s: an empty reply, not eof",
			      rel);
		/* the previous reply was not the last: full, so this
		 * reply's first entry could not have been in it (Ganesha
		 * keeps one XDR unit more than it needs free: an entry
		 * that would end exactly at maxcount goes to the next) */
		if (calls > 1)
			ck_assert_msg(
				prev.resok_len + p.first_len + 4 > prev_max,
				"%s: a reply of %u bytes for maxcount %u left out the next entry (%u bytes)",
				rel, prev.resok_len, prev_max, p.first_len);
		prev = p;
		prev_max = limit;
		cookie = p.last_cookie;
		if (maxcount < max_maxcount)
			maxcount *= 2;
	} while (!p.eof);
	for (i = 0; i < total; i++)
		ck_assert_msg(seen[i] == 1, "%s: entry %d seen %d times", rel,
			      i, seen[i]);
	free(seen);
	free(path);
	return calls;
}

static int header_index(const char *name)
{
	int i;

	if (sscanf(name, "if_header_%d", &i) != 1 || i < 0 || i >= NHEADERS)
		return -1;
	return i;
}

static int object_index(const char *name)
{
	unsigned int i;
	char extra;

	if (!strcmp(name, "info"))
		return NOBJDIRS;
	if (!strcmp(name, "pack"))
		return NOBJDIRS + 1;
	if (strlen(name) != 2 || sscanf(name, "%2x%c", &i, &extra) != 1)
		return -1;
	return (int)i;
}

/* The Linux client's first request (65448) and its growth: every reply
 * up to maxcount */
START_TEST(replies_fill_maxcount)
{
	struct nfs42_client *cl = e2e_client();
	const char *rel = make_headers();
	int calls;

	calls = walk(cl, rel, 65448, 1048576, header_index, NHEADERS);
	ck_assert_int_le(calls, 2);
	/* small requests are still honoured, each full */
	walk(cl, rel, 4096, 4096, header_index, NHEADERS);
	walk(cl, rel, 16384, 16384, header_index, NHEADERS);
	/* and 1 MiB: all 600 and eof in one */
	ck_assert_int_eq(
		walk(cl, rel, 1048576, 1048576, header_index, NHEADERS), 1);
	nfs42_client_free(cl);
}
END_TEST

/* .git/objects: its 258 directories in the first, attribute-carrying
 * reply; before patch 0130 only about 150 were (the Linux client then
 * looked up each of the others by name before removing it: rm -r) */
START_TEST(objects_in_one_reply)
{
	struct nfs42_client *cl = e2e_client();
	const char *rel = make_objects();

	ck_assert_int_eq(
		walk(cl, rel, 65448, 65448, object_index, NOBJDIRS + 2), 1);
	nfs42_client_free(cl);
}
END_TEST

/* Readdir_Res_Size = 32768: every reply fills 32 KiB, not more */
START_TEST(capped_replies)
{
	struct nfs42_client *cl = e2e_client();
	const char *rel = make_headers();

	ck_assert_int_ge(walk(cl, rel, 65448, 1048576, header_index, NHEADERS),
			 4);
	nfs42_client_free(cl);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("e2e_proto_readdir");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	if (argc > 1 && !strcmp(argv[1], "capped")) {
		reply_cap = 32768;
		tcase_add_test(tc, capped_replies);
	} else {
		tcase_add_test(tc, replies_fill_maxcount);
		tcase_add_test(tc, objects_in_one_reply);
	}
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
