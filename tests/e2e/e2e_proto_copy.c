/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * NFSv4.2 synchronous COPY (RFC 7862 15.2, issue #8): SAVED_FH is the
 * source, CURRENT_FH the destination, one chunk per reply.  argv[1] says
 * how the harness configured the server (protocols.cmake):
 *   sparse  FSAL_SPARSE, Copy_Time_Budget_Ms = 0 (the default 4 MiB cap
 *           alone cuts replies, exactly): the harness export on ext4
 *           (copy_file_range path) and the XFS reflink export /xfs of the
 *           copyfs fixture (clone path: one reply, blocks shared); sizes
 *           0, 1, 4 MiB - 1, 4 MiB, 4 MiB + 1, 64 MiB copied with equal
 *           sha256, a 1 GiB sparse file byte-identical (compared where
 *           either has data) with its holes kept; every error
 *           case, each leaving the destination unchanged; ops after COPY
 *           in the compound; one file's disjoint ranges; the CLI's cp.
 *   vfs     the same harness export served by FSAL_VFS, which has no copy
 *           of its own: the protocol layer's generic read2/write2 loop.
 *   budget  Copy_Chunk_Size = 0, Copy_Time_Budget_Ms = 1: replies are cut
 *           by time alone.
 *   nocap   Copy_Chunk_Size = 0, Copy_Time_Budget_Ms = 0: one reply.
 *   mem     an FSAL_MEM export, Copy_Chunk_Size = 1 MiB: the generic
 *           loop on files written over NFS.
 *   engine  an XFS reflink export (fixture directory argv[2]) with
 *           Copy_Engine = COPY: chunked copies, no clone.
 * The XFS cases are skipped (exit 77) with the fixture's reason where it
 * could not be made.
 */
#include <sys/statvfs.h>

#include "e2e_fsal_util.h"

#ifndef E2E_COPYFS_DIR
#error "E2E_COPYFS_DIR must name the fixture directory"
#endif

#define MiB (1024ULL * 1024)
static const char *mode = "sparse";

/* Copy_Chunk_Size: the default, 1 MiB in mode mem */
#define CAP (strcmp(mode, "mem") == 0 ? MiB : 4 * MiB)

static bool mode_is(const char *m)
{
	return strcmp(mode, m) == 0;
}

/* Where files are: a local directory and the same directory over NFS. */
struct place {
	const char *local;
	const char *nfs;
	bool clone; /* COPY clones there: one reply for the whole range */
};

static struct place ext4_place(void)
{
	return (struct place){ .local = e2e_env("NFS42_BACKING"),
			       .nfs = e2e_env("NFS42_EXPORT") };
}

/* false (and the test skipped) where the XFS fixture could not be made */
static const char *copyfs_dir = E2E_COPYFS_DIR; /* argv[2] may name another */

static bool xfs_place(struct place *pl)
{
	*pl = (struct place){ .local = e2e_fmt("%s/x", copyfs_dir),
			      .nfs = "/xfs",
			      .clone = !mode_is("engine") };
	return e2e_fixture_ready(copyfs_dir);
}

static char *lpath(const struct place *pl, const char *name)
{
	return e2e_fmt("%s/%s", pl->local, name);
}

static void put_local(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	if (len > 0)
		ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* sha256 of a local file, as sha256sum prints it */
static char *sha256_of(const char *path)
{
	char *cmd = e2e_fmt("sha256sum '%s'", path);
	char sum[65] = "";
	FILE *p = popen(cmd, "r");

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%64s", sum), 1);
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_uint_eq(strlen(sum), 64);
	return e2e_fmt("%s", sum);
}

static void ck_same_sha(const char *a, const char *b)
{
	char *sa = sha256_of(a), *sb = sha256_of(b);

	ck_assert_msg(strcmp(sa, sb) == 0, "sha256 %s %s != %s %s", a, sa, b,
		      sb);
}

/* fd holds no data in [off, off + len) */
static bool all_hole(int fd, off_t off, off_t len)
{
	off_t d = lseek(fd, off, SEEK_DATA);

	return (d < 0 && errno == ENXIO) || d >= off + len;
}

/*
 * The two local files read the same, compared 1 MiB by 1 MiB where either
 * has data (a sha256 of 1 GiB of zeros takes seconds here; equal bytes
 * are equal hashes).
 */
static void ck_same_sparse(const char *a, const char *b)
{
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	uint8_t *ba = malloc(MiB), *bb = malloc(MiB);
	struct stat sa, sb;
	off_t off;
	ssize_t n;

	ck_assert_int_ge(fa, 0);
	ck_assert_int_ge(fb, 0);
	ck_assert_int_eq(fstat(fa, &sa), 0);
	ck_assert_int_eq(fstat(fb, &sb), 0);
	ck_assert_int_eq(sa.st_size, sb.st_size);
	for (off = 0; off < sa.st_size; off += MiB) {
		if (all_hole(fa, off, MiB) && all_hole(fb, off, MiB))
			continue;
		n = pread(fa, ba, MiB, off);
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(pread(fb, bb, MiB, off), n);
		ck_assert_msg(memcmp(ba, bb, n) == 0,
			      "%s and %s differ at %lld", a, b, (long long)off);
	}
	free(ba);
	free(bb);
	close(fa);
	close(fb);
}

static struct nfs42_file open_at(struct nfs42_client *cl,
				 const struct place *pl, const char *name,
				 uint32_t access)
{
	struct nfs42_fh dir;

	ck_nfs_ok(cl, nfs42_lookup_path(cl, pl->nfs, &dir, NULL));
	return e2e_open_in(cl, &dir, name, access);
}

/* The COPY's reply fields that matter here. */
struct copy_res {
	uint64_t count;
	uint32_t committed;
	uint8_t verf[NFS4_VERIFIER_SIZE];
	bool has_callback_id, consecutive, synchronous;
	struct nfs42_stateid callback_id;
};

/*
 * [PUTFH src, SAVEFH, PUTFH dst, COPY(ca_synchronous = sync)]: COPY's
 * status; *r its result on NFS4_OK.
 */
static int do_copy_fhs(struct nfs42_client *cl, const struct nfs42_fh *sfh,
		       const struct nfs42_stateid *ssid,
		       const struct nfs42_fh *dfh,
		       const struct nfs42_stateid *dsid, uint64_t so,
		       uint64_t dof, uint64_t count, bool sync,
		       struct copy_res *r)
{
	struct nfs42_compound *c = e2e_cpd2(cl, sfh, dfh);
	int i, rc;

	i = nfs42_op_copy(c, ssid, dsid, so, dof, count, true, sync);
	rc = nfs42_compound_run(c);
	if (rc == 0 && r != NULL) {
		const struct nfs42_res *res = nfs42_res(c, i);

		r->count = res->u.copy.count;
		r->committed = res->u.copy.committed;
		memcpy(r->verf, res->u.copy.verf, NFS4_VERIFIER_SIZE);
		r->has_callback_id = res->u.copy.has_callback_id;
		r->callback_id = res->u.copy.callback_id;
		r->consecutive = res->u.copy.consecutive;
		r->synchronous = res->u.copy.synchronous;
	}
	nfs42_compound_free(c);
	return rc;
}

static int do_copy(const struct nfs42_file *src, const struct nfs42_file *dst,
		   uint64_t so, uint64_t dof, uint64_t count,
		   struct copy_res *r)
{
	return do_copy_fhs(src->cl, &src->fh, &src->stateid, &dst->fh,
			   &dst->stateid, so, dof, count, true, r);
}

/*
 * COPY [0, size) of src to dst, reply after reply, as a client does:
 * every reply synchronous and short at most to the cap (the whole range
 * where the place clones, or where nothing caps); the replies' count.
 */
static unsigned int copy_all(const struct place *pl,
			     const struct nfs42_file *src,
			     const struct nfs42_file *dst, uint64_t size)
{
	uint64_t done = 0, left;
	unsigned int n = 0;
	struct copy_res r;

	while (done < size) {
		left = size - done;
		ck_nfs_ok(src->cl, do_copy(src, dst, done, done, left, &r));
		n++;
		ck_assert(!r.has_callback_id);
		ck_assert(r.synchronous && r.consecutive);
		ck_assert(r.committed == UNSTABLE4 ||
			  r.committed == FILE_SYNC4);
		ck_assert_uint_gt(r.count, 0);
		ck_assert_uint_le(r.count, left);
		if (pl->clone || mode_is("nocap"))
			ck_assert_uint_eq(r.count, left);
		else if (!mode_is("budget"))
			ck_assert_uint_eq(r.count, left < CAP ? left : CAP);
		done += r.count;
	}
	ck_nfs_ok(src->cl, nfs42_commit((struct nfs42_file *)dst));
	return n;
}

/* Copy a fresh file of size random bytes over NFS; checks sha256. */
static void copy_size(const struct place *pl, uint64_t size, unsigned int seed)
{
	struct nfs42_client *cl = e2e_client();
	char *sn = e2e_fmt("size-%llu-src", (unsigned long long)size);
	char *dn = e2e_fmt("size-%llu-dst", (unsigned long long)size);
	uint8_t *data = e2e_rand_bytes(size ? size : 1, seed);
	struct nfs42_file src, dst;
	unsigned int n;

	put_local(lpath(pl, sn), data, size);
	put_local(lpath(pl, dn), "", 0);
	src = open_at(cl, pl, sn, OPEN4_SHARE_ACCESS_READ);
	dst = open_at(cl, pl, dn, OPEN4_SHARE_ACCESS_BOTH);
	n = copy_all(pl, &src, &dst, size);
	if (!pl->clone && !mode_is("budget") && !mode_is("nocap"))
		ck_assert_uint_eq(n, (size + CAP - 1) / CAP);
	ck_assert_uint_eq(e2e_getattr(cl, &dst.fh, NULL).size, size);
	ck_same_sha(lpath(pl, sn), lpath(pl, dn));
	free(data);
	nfs42_client_free(cl);
}

static const uint64_t sizes[] = { 0,	   1,		4 * MiB - 1,
				  4 * MiB, 4 * MiB + 1, 64 * MiB };

static void copy_sizes(const struct place *pl)
{
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		copy_size(pl, sizes[i], 100 + i);
}

START_TEST(sizes_ext4)
{
	struct place pl = ext4_place();

	copy_sizes(&pl);
}
END_TEST

START_TEST(sizes_xfs_clone)
{
	struct place pl;

	if (!xfs_place(&pl))
		return;
	copy_sizes(&pl);
}
END_TEST

/*
 * 1 GiB, data at the start and at an unaligned offset in the middle,
 * ending in a hole: the copy reads the same, the destination's
 * holes stay holes (its allocated size stays about the data's), its size
 * is the source's.
 */
static void copy_sparse(const struct place *pl)
{
	struct nfs42_client *cl = e2e_client();
	uint8_t *a = e2e_rand_bytes(MiB, 21), *b = e2e_rand_bytes(MiB, 22);
	struct nfs42_file src, dst;
	struct stat st;
	int fd;

	fd = open(lpath(pl, "sparse-src"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, a, MiB, 0), (ssize_t)MiB);
	ck_assert_int_eq(pwrite(fd, b, MiB, 300 * MiB + 12345), (ssize_t)MiB);
	ck_assert_int_eq(ftruncate(fd, 1024 * MiB), 0);
	close(fd);
	put_local(lpath(pl, "sparse-dst"), "", 0);
	src = open_at(cl, pl, "sparse-src", OPEN4_SHARE_ACCESS_READ);
	dst = open_at(cl, pl, "sparse-dst", OPEN4_SHARE_ACCESS_BOTH);

	copy_all(pl, &src, &dst, 1024 * MiB);

	ck_assert_int_eq(stat(lpath(pl, "sparse-dst"), &st), 0);
	ck_assert_uint_eq(st.st_size, 1024 * MiB);
	ck_assert_msg((uint64_t)st.st_blocks * 512 <= 8 * MiB,
		      "destination allocates %llu bytes for 2 MiB of data",
		      (unsigned long long)st.st_blocks * 512);
	ck_same_sparse(lpath(pl, "sparse-src"), lpath(pl, "sparse-dst"));
	free(a);
	free(b);
	nfs42_client_free(cl);
}

START_TEST(sparse_ext4)
{
	struct place pl = ext4_place();

	copy_sparse(&pl);
}
END_TEST

START_TEST(sparse_xfs_clone)
{
	struct place pl;

	if (!xfs_place(&pl))
		return;
	copy_sparse(&pl);
}
END_TEST

static uint64_t free_bytes(const char *dir)
{
	struct statvfs sv;

	ck_assert_int_eq(statvfs(dir, &sv), 0);
	return (uint64_t)sv.f_bfree * sv.f_frsize;
}

/* On XFS a COPY of 32 MiB shares the blocks (the clone path ran). */
START_TEST(xfs_copy_shares_blocks)
{
	struct nfs42_client *cl;
	struct nfs42_file src, dst;
	uint8_t *data = e2e_rand_bytes(32 * MiB, 31);
	uint64_t before, after;
	struct place pl;

	if (!xfs_place(&pl)) {
		free(data);
		return;
	}
	cl = e2e_client();
	put_local(lpath(&pl, "share-src"), data, 32 * MiB);
	put_local(lpath(&pl, "share-dst"), "", 0);
	src = open_at(cl, &pl, "share-src", OPEN4_SHARE_ACCESS_READ);
	dst = open_at(cl, &pl, "share-dst", OPEN4_SHARE_ACCESS_BOTH);
	sync();
	before = free_bytes(pl.local);
	ck_assert_uint_eq(copy_all(&pl, &src, &dst, 32 * MiB), 1);
	sync();
	after = free_bytes(pl.local);
	ck_assert_msg(before - after < 4 * MiB,
		      "COPY of 32 MiB took %llu bytes of free space",
		      (unsigned long long)(before - after));
	ck_same_sha(lpath(&pl, "share-src"), lpath(&pl, "share-dst"));
	free(data);
	nfs42_client_free(cl);
}
END_TEST

/*
 * Copy_Engine = COPY on the XFS export (mode engine): no clone, so 32 MiB
 * take 8 replies of 4 MiB (copy_file_range per extent, capped) where AUTO
 * takes one.
 */
START_TEST(engine_copy_never_clones)
{
	struct nfs42_client *cl;
	struct nfs42_file src, dst;
	uint8_t *data = e2e_rand_bytes(32 * MiB, 32);
	struct place pl;

	if (!xfs_place(&pl)) {
		free(data);
		return;
	}
	cl = e2e_client();
	put_local(lpath(&pl, "engine-src"), data, 32 * MiB);
	put_local(lpath(&pl, "engine-dst"), "", 0);
	src = open_at(cl, &pl, "engine-src", OPEN4_SHARE_ACCESS_READ);
	dst = open_at(cl, &pl, "engine-dst", OPEN4_SHARE_ACCESS_BOTH);
	ck_assert_uint_eq(copy_all(&pl, &src, &dst, 32 * MiB), 8);
	ck_same_sha(lpath(&pl, "engine-src"), lpath(&pl, "engine-dst"));
	free(data);
	nfs42_client_free(cl);
}
END_TEST

/* A range bigger than the cap: the first reply is exactly the cap. */
START_TEST(short_reply_at_cap)
{
	struct place pl = ext4_place();
	struct nfs42_client *cl = e2e_client();
	uint8_t *data = e2e_rand_bytes(12 * MiB, 41);
	struct nfs42_file src, dst;
	struct copy_res r;

	put_local(lpath(&pl, "cap-src"), data, 12 * MiB);
	put_local(lpath(&pl, "cap-dst"), "", 0);
	src = open_at(cl, &pl, "cap-src", OPEN4_SHARE_ACCESS_READ);
	dst = open_at(cl, &pl, "cap-dst", OPEN4_SHARE_ACCESS_BOTH);
	/* count 0: up to the source's EOF */
	ck_nfs_ok(cl, do_copy(&src, &dst, MiB, 0, 0, &r));
	if (mode_is("nocap"))
		ck_assert_uint_eq(r.count, 11 * MiB);
	else if (mode_is("budget"))
		ck_assert_uint_lt(r.count, 11 * MiB);
	else
		ck_assert_uint_eq(r.count, CAP);
	ck_assert_uint_gt(r.count, 0);
	ck_assert_uint_eq(e2e_getattr(cl, &dst.fh, NULL).size, r.count);
	{
		uint8_t *back = malloc(r.count);

		ck_assert_ptr_nonnull(back);
		e2e_read_all(cl, &dst.fh, &dst.stateid, 0, back, r.count);
		ck_assert(memcmp(back, data + MiB, r.count) == 0);
		free(back);
	}
	/* UNSTABLE with the server's write verifier, as a WRITE gets */
	{
		uint8_t wverf[NFS4_VERIFIER_SIZE];
		uint32_t wcount, wcommitted;

		ck_assert_uint_eq(r.committed, UNSTABLE4);
		ck_nfs_ok(cl, e2e_write(cl, &dst.fh, &dst.stateid, 0, UNSTABLE4,
					data + MiB, 10, &wcount, &wcommitted,
					wverf));
		ck_assert(memcmp(wverf, r.verf, NFS4_VERIFIER_SIZE) == 0);
	}
	/* ca_synchronous false: asynchronous (e2e_proto_copy_async), the
	 * whole range, whatever the cap */
	ck_nfs_ok(cl, do_copy_fhs(cl, &src.fh, &src.stateid, &dst.fh,
				  &dst.stateid, 0, 0, 11 * MiB, false, &r));
	ck_assert(r.has_callback_id);
	ck_assert(!r.synchronous);
	ck_assert_uint_eq(r.count, 0);
	{
		uint64_t n = 0;
		bool done = false;
		uint32_t st = NFS4_OK;
		int64_t end = e2e_now_ms() + 30000;

		while (!done && e2e_now_ms() < end)
			ck_nfs_ok(cl, nfs42_offload_status(cl, &r.callback_id,
							   &n, &done, &st));
		ck_assert(done);
		ck_assert_int_eq(st, NFS4_OK);
		ck_assert_uint_eq(n, 11 * MiB);
	}
	free(data);
	nfs42_client_free(cl);
}
END_TEST

/* One file, disjoint ranges: copied, no self-deadlock. */
START_TEST(same_file_disjoint_ranges)
{
	struct place pl = ext4_place();
	struct nfs42_client *cl = e2e_client();
	uint8_t *data = e2e_rand_bytes(2 * MiB, 51);
	struct nfs42_file f;
	struct copy_res r;
	uint8_t *back = malloc(2 * MiB);

	put_local(lpath(&pl, "self"), data, 2 * MiB);
	f = open_at(cl, &pl, "self", OPEN4_SHARE_ACCESS_BOTH);
	ck_nfs_ok(cl, do_copy(&f, &f, 0, MiB + 100, 300000, &r));
	ck_assert_uint_eq(r.count, 300000);
	memcpy(data + MiB + 100, data, 300000);
	e2e_read_all(cl, &f.fh, &f.stateid, 0, back, 2 * MiB);
	ck_assert(memcmp(back, data, 2 * MiB) == 0);
	free(back);
	free(data);
	nfs42_client_free(cl);
}
END_TEST

/* COPY then GETATTR in one compound: GETATTR runs and sees the size. */
START_TEST(ops_after_copy_run)
{
	struct place pl = ext4_place();
	struct nfs42_bitmap bm = nfs42_bm_stat();
	struct nfs42_client *cl = e2e_client();
	uint8_t *data = e2e_rand_bytes(MiB, 61);
	struct nfs42_file src, dst;
	struct nfs42_compound *c;
	int ci, gi;

	put_local(lpath(&pl, "then-src"), data, MiB);
	put_local(lpath(&pl, "then-dst"), "", 0);
	src = open_at(cl, &pl, "then-src", OPEN4_SHARE_ACCESS_READ);
	dst = open_at(cl, &pl, "then-dst", OPEN4_SHARE_ACCESS_BOTH);
	/* the size of the empty destination is cached first */
	ck_assert_uint_eq(e2e_getattr(cl, &dst.fh, NULL).size, 0);

	c = e2e_cpd2(cl, &src.fh, &dst.fh);
	ci = nfs42_op_copy(c, &src.stateid, &dst.stateid, 0, 0, 0, true, true);
	gi = nfs42_op_getattr(c, &bm);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	ck_assert_int_eq(e2e_op_status(c, ci), NFS4_OK);
	ck_assert_uint_eq(nfs42_res(c, ci)->u.copy.count, MiB);
	ck_assert_uint_eq(nfs42_res(c, gi)->u.getattr->size, MiB);
	nfs42_compound_free(c);
	ck_same_sha(lpath(&pl, "then-src"), lpath(&pl, "then-dst"));
	free(data);
	nfs42_client_free(cl);
}
END_TEST

/* ---- errors --------------------------------------------------------------- */

struct err_pair {
	struct place pl;
	struct nfs42_client *cl;
	struct nfs42_file src, dst;
	char *dst_sha;
};

static struct err_pair err_pair(void)
{
	struct err_pair p = { .pl = ext4_place() };
	uint8_t *s = e2e_rand_bytes(MiB, 71), *d = e2e_rand_bytes(MiB, 72);

	put_local(lpath(&p.pl, "err-src"), s, MiB);
	put_local(lpath(&p.pl, "err-dst"), d, MiB);
	p.dst_sha = sha256_of(lpath(&p.pl, "err-dst"));
	p.cl = e2e_client();
	p.src = open_at(p.cl, &p.pl, "err-src", OPEN4_SHARE_ACCESS_READ);
	p.dst = open_at(p.cl, &p.pl, "err-dst", OPEN4_SHARE_ACCESS_BOTH);
	free(s);
	free(d);
	return p;
}

static void err_pair_done(struct err_pair *p)
{
	ck_assert_str_eq(sha256_of(lpath(&p->pl, "err-dst")), p->dst_sha);
	nfs42_client_free(p->cl);
}

START_TEST(range_errors_are_inval)
{
	struct err_pair p = err_pair();

	/* the source range past the source's EOF */
	ck_nfs_status(do_copy(&p.src, &p.dst, 0, 0, MiB + 1, NULL),
		      NFS4ERR_INVAL);
	ck_nfs_status(do_copy(&p.src, &p.dst, MiB + 1, 0, 0, NULL),
		      NFS4ERR_INVAL);
	ck_nfs_status(do_copy(&p.src, &p.dst, MiB - 10, 0, 11, NULL),
		      NFS4ERR_INVAL);
	/* overlapping ranges of one file */
	ck_nfs_status(do_copy(&p.dst, &p.dst, 0, 4096, 65536, NULL),
		      NFS4ERR_INVAL);
	ck_nfs_status(do_copy(&p.dst, &p.dst, 65536, 0, 0, NULL),
		      NFS4ERR_INVAL);
	err_pair_done(&p);
}
END_TEST

START_TEST(file_type_errors)
{
	struct err_pair p = err_pair();
	struct nfs42_fh dir, fifo;

	ck_nfs_ok(p.cl, nfs42_lookup_path(p.cl, p.pl.nfs, &dir, NULL));
	ck_nfs_status(do_copy_fhs(p.cl, &dir, &e2e_anon_stateid, &p.dst.fh,
				  &p.dst.stateid, 0, 0, 0, true, NULL),
		      NFS4ERR_ISDIR);
	ck_nfs_status(do_copy_fhs(p.cl, &p.src.fh, &p.src.stateid, &dir,
				  &e2e_anon_stateid, 0, 0, 0, true, NULL),
		      NFS4ERR_ISDIR);
	ck_assert_int_eq(mkfifo(lpath(&p.pl, "err-fifo"), 0644), 0);
	fifo = e2e_fh(p.cl, "err-fifo");
	ck_nfs_status(do_copy_fhs(p.cl, &fifo, &e2e_anon_stateid, &p.dst.fh,
				  &p.dst.stateid, 0, 0, 0, true, NULL),
		      NFS4ERR_WRONG_TYPE);
	err_pair_done(&p);
}
END_TEST

/* [PUTFH dst, COPY]: no saved file handle */
START_TEST(no_saved_fh_is_nofilehandle)
{
	struct err_pair p = err_pair();
	struct nfs42_compound *c = e2e_cpd(p.cl, &p.dst.fh);

	nfs42_op_copy(c, &p.src.stateid, &p.dst.stateid, 0, 0, 0, true, true);
	ck_nfs_status(nfs42_compound_run(c), NFS4ERR_NOFILEHANDLE);
	nfs42_compound_free(c);
	err_pair_done(&p);
}
END_TEST

START_TEST(stateid_errors)
{
	struct err_pair p = err_pair();
	struct nfs42_stateid bogus = {
		.seqid = 1, .other = { 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9 }
	};
	struct nfs42_file ro, wo;
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_WRITE,
				   .createmode = NFS42_NOCREATE };
	struct nfs42_fh dir;

	/* a destination open for reading only: NFS4ERR_OPENMODE; a source
	 * open for writing only is read as READ reads through it (RFC 7862
	 * 15.2.3, RFC 8881 9.1.2; knfsd too, docs/stateids.md)
	 */
	ro = open_at(p.cl, &p.pl, "err-dst", OPEN4_SHARE_ACCESS_READ);
	ck_nfs_status(do_copy(&p.src, &ro, 0, 0, 0, NULL), NFS4ERR_OPENMODE);
	ck_nfs_ok(p.cl, nfs42_lookup_path(p.cl, p.pl.nfs, &dir, NULL));
	ck_nfs_ok(p.cl, e2e_open_ex(p.cl, &dir, "err-src", &rq, &wo, NULL));
	ck_nfs_ok(p.cl, do_copy(&wo, &p.dst, 0, 0, 0, NULL));
	ck_same_sha(lpath(&p.pl, "err-src"), lpath(&p.pl, "err-dst"));
	p.dst_sha = sha256_of(lpath(&p.pl, "err-dst"));
	/* a stateid the server never gave */
	ck_nfs_status2(do_copy_fhs(p.cl, &p.src.fh, &p.src.stateid, &p.dst.fh,
				   &bogus, 0, 0, 0, true, NULL),
		       NFS4ERR_BAD_STATEID, NFS4ERR_STALE_STATEID);
	err_pair_done(&p);
}
END_TEST

/*
 * A share reservation in the way of a COPY or CLONE with a special
 * stateid: NFS4ERR_LOCKED, as WRITE and READ answer (RFC 8881 9.7; RFC
 * 7862 lists no NFS4ERR_SHARE_DENIED for COPY or CLONE).  Another client
 * holds the destination open denying writes, then the source denying
 * reads; nothing is copied.
 */
START_TEST(share_conflict_is_locked)
{
	struct err_pair p = err_pair();
	struct nfs42_client *other = e2e_client();
	struct e2e_open_req rq = { .access = OPEN4_SHARE_ACCESS_READ,
				   .deny = OPEN4_SHARE_DENY_WRITE,
				   .createmode = NFS42_NOCREATE };
	struct nfs42_compound *c;
	struct nfs42_file held;
	struct nfs42_fh dir;
	uint8_t *d = e2e_rand_bytes(MiB, 73);
	char *sha;

	put_local(lpath(&p.pl, "share-dst"), d, MiB);
	sha = sha256_of(lpath(&p.pl, "share-dst"));
	ck_nfs_ok(other, nfs42_lookup_path(other, p.pl.nfs, &dir, NULL));
	ck_nfs_ok(other,
		  e2e_open_ex(other, &dir, "share-dst", &rq, &held, NULL));
	ck_nfs_status(do_copy_fhs(p.cl, &p.src.fh, &p.src.stateid, &held.fh,
				  &e2e_anon_stateid, 0, 0, 0, true, NULL),
		      NFS4ERR_LOCKED);
	if (mode_is("sparse")) {
		c = e2e_cpd2(p.cl, &p.src.fh, &held.fh);
		nfs42_op_clone(c, &p.src.stateid, &e2e_anon_stateid, 0, 0, 0);
		ck_nfs_status(e2e_cpd_run(c), NFS4ERR_LOCKED);
	}
	ck_nfs_ok(other, e2e_close(&held));
	ck_assert_str_eq(sha256_of(lpath(&p.pl, "share-dst")), sha);

	/* the source, held open denying reads */
	rq.deny = OPEN4_SHARE_DENY_READ;
	ck_nfs_ok(other,
		  e2e_open_ex(other, &dir, "share-dst", &rq, &held, NULL));
	ck_nfs_status(do_copy_fhs(p.cl, &held.fh, &e2e_anon_stateid, &p.dst.fh,
				  &p.dst.stateid, 0, 0, 0, true, NULL),
		      NFS4ERR_LOCKED);
	if (mode_is("sparse")) {
		c = e2e_cpd2(p.cl, &held.fh, &p.dst.fh);
		nfs42_op_clone(c, &e2e_anon_stateid, &p.dst.stateid, 0, 0, 0);
		ck_nfs_status(e2e_cpd_run(c), NFS4ERR_LOCKED);
	}
	ck_nfs_ok(other, e2e_close(&held));
	free(d);
	nfs42_client_free(other);
	err_pair_done(&p);
}
END_TEST

static void put_be32(uint8_t **p, uint32_t v)
{
	(*p)[0] = v >> 24;
	(*p)[1] = v >> 16;
	(*p)[2] = v >> 8;
	(*p)[3] = v;
	*p += 4;
}

static void put_sid(uint8_t **p, const struct nfs42_stateid *sid)
{
	put_be32(p, sid->seqid);
	memcpy(*p, sid->other, 12);
	*p += 12;
}

/* A COPY naming a source server (inter-server): NFS4ERR_NOTSUPP. */
START_TEST(inter_server_copy_is_notsupp)
{
	struct err_pair p = err_pair();
	struct nfs42_compound *c = e2e_cpd2(p.cl, &p.src.fh, &p.dst.fh);
	uint8_t buf[128], *q = buf;
	int i;

	put_be32(&q, OP_COPY);
	put_sid(&q, &p.src.stateid);
	put_sid(&q, &p.dst.stateid);
	for (i = 0; i < 6; i++) /* offsets and count 0 */
		put_be32(&q, 0);
	put_be32(&q, 1); /* ca_consecutive */
	put_be32(&q, 1); /* ca_synchronous */
	put_be32(&q, 1); /* ca_source_server<1> */
	put_be32(&q, 1); /* NL4_NAME */
	put_be32(&q, 4);
	memcpy(q, "host", 4);
	q += 4;
	nfs42_op_raw(c, OP_COPY, buf, q - buf);
	ck_nfs_status(nfs42_compound_run(c), NFS4ERR_NOTSUPP);
	nfs42_compound_free(c);
	err_pair_done(&p);
}
END_TEST

/* Source on the XFS export, destination on the ext4 one: XDEV. */
START_TEST(cross_export_is_xdev)
{
	struct err_pair p = err_pair();
	struct place xpl;
	struct nfs42_file xs;

	if (!xfs_place(&xpl)) {
		nfs42_client_free(p.cl);
		return;
	}
	put_local(lpath(&xpl, "xdev-src"), "0123456789", 10);
	xs = open_at(p.cl, &xpl, "xdev-src", OPEN4_SHARE_ACCESS_READ);
	ck_nfs_status(do_copy(&xs, &p.dst, 0, 0, 0, NULL), NFS4ERR_XDEV);
	err_pair_done(&p);
}
END_TEST

/* ---- FSAL_MEM: files made over NFS --------------------------------------- */

/*
 * FSAL_MEM (mode mem) keeps files in memory (up to its Inode_Size, 2 MiB)
 * and has no seek2: the generic loop copies all as data.  Sizes around a
 * 1 MiB Copy_Chunk_Size, copied and read back.
 */
START_TEST(mem_copy_over_nfs)
{
	static const uint64_t mem_sizes[] = { 0, 1, MiB + 1, 2 * MiB };
	struct place pl = ext4_place();
	struct nfs42_client *cl = e2e_client();
	struct nfs42_file src, dst;
	uint8_t *data, *back;
	uint64_t size;
	size_t i;

	for (i = 0; i < sizeof(mem_sizes) / sizeof(mem_sizes[0]); i++) {
		size = mem_sizes[i];
		data = e2e_rand_bytes(size + 1, 90 + i);
		back = malloc(size + 1);
		ck_assert_ptr_nonnull(back);
		src = e2e_create_rw(cl, e2e_fmt("mem-%zu-src", i));
		dst = e2e_create_rw(cl, e2e_fmt("mem-%zu-dst", i));
		if (size > 0)
			ck_nfs_ok(cl, nfs42_pwrite(&src, data, size, 0,
						   FILE_SYNC4));
		ck_assert_uint_eq(copy_all(&pl, &src, &dst, size),
				  (size + CAP - 1) / CAP);
		ck_assert_uint_eq(e2e_getattr(cl, &dst.fh, NULL).size, size);
		if (size > 0) {
			e2e_read_all(cl, &dst.fh, &dst.stateid, 0, back, size);
			ck_assert_msg(memcmp(back, data, size) == 0,
				      "copy of %llu bytes differs",
				      (unsigned long long)size);
		}
		free(back);
		free(data);
	}
	nfs42_client_free(cl);
}
END_TEST

/* ---- the CLI ------------------------------------------------------------- */

/* `nfs42 cp src dst` ($SPARSE_NFS42): exit status; *err its stderr. */
static int cli_cp(const char *src, const char *dst, char *err, size_t len)
{
	const char *argv[9] = { e2e_env("SPARSE_NFS42"),
				"-s",
				e2e_env("NFS42_HOST"),
				"-p",
				e2e_env("NFS42_PORT"),
				"cp",
				src,
				dst,
				NULL };
	int fds[2], st;
	ssize_t n, got = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	while ((size_t)got < len - 1 &&
	       (n = read(fds[0], err + got, len - 1 - got)) > 0)
		got += n;
	err[got] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * nfs42 cp goes through the server's COPY: no client-side fallback note,
 * the bytes are right; on XFS the server cloned (free space stays).
 */
static void cli_copy(const struct place *pl, uint64_t size)
{
	uint8_t *data = e2e_rand_bytes(size, 81);
	char *src = e2e_fmt("%s/cli-src", pl->nfs);
	char *dst = e2e_fmt("%s/cli-dst", pl->nfs);
	char err[4096];
	uint64_t before, after;

	put_local(lpath(pl, "cli-src"), data, size);
	sync();
	before = free_bytes(pl->local);
	ck_assert_int_eq(cli_cp(src, dst, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "through the client") == NULL,
		      "nfs42 cp copied through the client: %s", err);
	sync();
	after = free_bytes(pl->local);
	ck_same_sha(lpath(pl, "cli-src"), lpath(pl, "cli-dst"));
	if (pl->clone)
		ck_assert_msg(before < after + 4 * MiB,
			      "cp of %llu bytes took %llu bytes of free space",
			      (unsigned long long)size,
			      (unsigned long long)(before - after));
	free(data);
}

START_TEST(cli_cp_uses_copy)
{
	struct place pl = ext4_place();

	cli_copy(&pl, 9 * MiB + 7);
}
END_TEST

START_TEST(cli_cp_uses_copy_xfs)
{
	struct place pl;

	if (!xfs_place(&pl))
		return;
	cli_copy(&pl, 24 * MiB + 7);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("e2e_proto_copy");
	TCase *tc = tcase_create("copy");

	if (argc > 1)
		mode = argv[1];
	if (argc > 2)
		copyfs_dir = argv[2];
	tcase_set_timeout(tc, 120);
	if (mode_is("engine")) {
		tcase_add_test(tc, engine_copy_never_clones);
		suite_add_tcase(s, tc);
		return e2e_run(s);
	}
	if (mode_is("mem")) {
		tcase_add_test(tc, mem_copy_over_nfs);
		suite_add_tcase(s, tc);
		return e2e_run(s);
	}
	tcase_add_test(tc, short_reply_at_cap);
	tcase_add_test(tc, sizes_ext4);
	if (mode_is("budget") || mode_is("nocap")) {
		suite_add_tcase(s, tc);
		return e2e_run(s);
	}
	tcase_add_test(tc, sparse_ext4);
	tcase_add_test(tc, same_file_disjoint_ranges);
	tcase_add_test(tc, ops_after_copy_run);
	tcase_add_test(tc, range_errors_are_inval);
	tcase_add_test(tc, file_type_errors);
	tcase_add_test(tc, no_saved_fh_is_nofilehandle);
	tcase_add_test(tc, stateid_errors);
	tcase_add_test(tc, share_conflict_is_locked);
	tcase_add_test(tc, inter_server_copy_is_notsupp);
	tcase_add_test(tc, cli_cp_uses_copy);
	if (mode_is("sparse")) {
		tcase_add_test(tc, sizes_xfs_clone);
		tcase_add_test(tc, sparse_xfs_clone);
		tcase_add_test(tc, xfs_copy_shares_blocks);
		tcase_add_test(tc, cross_export_is_xdev);
		tcase_add_test(tc, cli_cp_uses_copy_xfs);
	}
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
