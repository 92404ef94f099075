/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * pNFS files layouts (issue #20): the harness's server is the metadata
 * server and --pnfs N data servers share its export directory.  Striped
 * writes and reads through the data servers, byte for byte against the
 * backing file, of dense and sparse files; READ_PLUS through the data
 * servers keeps holes; the layout and its device as configured;
 * GETDEVICELIST ids GETDEVICEINFO answers; EXCHANGE_ID roles; data-server
 * handles that were not given out; LAYOUTCOMMIT under another stateid.
 *
 * Each data server's share of the bytes is checked on the client's
 * counters and, independently, on the data server processes' own I/O
 * counters (/proc/PID/io wchar and rchar).
 */
#include <errno.h>
#include <inttypes.h>

#include "nfs42_e2e.h"

#define STRIPE_UNIT 65536

static int seq;

static const char *uniq(const char *what)
{
	char *p;

	ck_assert_int_gt(
		asprintf(&p, "pnfs-%s-%d-%d", what, (int)getpid(), ++seq), 0);
	return e2e_keep(p);
}

static unsigned int ds_count(void)
{
	return (unsigned int)atoi(e2e_env("NFS42_DS_COUNT"));
}

/* The PID of data server i (its harness PID file). */
static pid_t ds_pid(unsigned int i)
{
	char *path, buf[32] = "";
	FILE *f;

	ck_assert_int_gt(asprintf(&path, "%s/ds%u.pid",
				  e2e_env("NFS42_WORK_DIR"), i),
			 0);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	free(path);
	return (pid_t)atoi(buf);
}

/* A counter ("wchar", "rchar") of /proc/PID/io. */
static uint64_t proc_io(pid_t pid, const char *key)
{
	char path[64], line[128];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) &&
		    line[strlen(key)] == ':')
			v = strtoull(line + strlen(key) + 1, NULL, 10);
	fclose(f);
	return v;
}

static void fill_random(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/* A local file in TMPDIR: size bytes, data runs [off, off+len) pairs
 * (len 0 ends), the rest holes.  Returns an fd open for reading. */
static int local_file(uint64_t size, const uint64_t *runs, char **pathp)
{
	char *path;
	int fd;

	ck_assert_int_gt(asprintf(&path, "%s/pnfs-src-XXXXXX",
				  getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp"),
			 0);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	for (; runs[1] != 0; runs += 2) {
		uint8_t *buf = malloc(runs[1]);

		fill_random(buf, runs[1], (unsigned int)runs[0] + 7);
		ck_assert_int_eq(pwrite(fd, buf, runs[1], (off_t)runs[0]),
				 (ssize_t)runs[1]);
		free(buf);
	}
	*pathp = e2e_keep(path);
	return fd;
}

static void same_files(const char *a, const char *b)
{
	int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
	static uint8_t ba[1 << 20], bb[1 << 20];
	uint64_t off = 0;
	ssize_t na, nb;

	ck_assert_int_ge(fa, 0);
	ck_assert_int_ge(fb, 0);
	do {
		na = read(fa, ba, sizeof(ba));
		nb = read(fb, bb, sizeof(bb));
		ck_assert_msg(na == nb && (na <= 0 || !memcmp(ba, bb, na)),
			      "%s and %s differ near byte %" PRIu64, a, b, off);
		off += na > 0 ? na : 0;
	} while (na > 0);
	close(fa);
	close(fb);
}

/* Bytes of fd's data extents (SEEK_DATA/SEEK_HOLE: what the filesystem
 * says is data, in whole blocks). */
static uint64_t data_bytes(int fd)
{
	off_t pos = 0, data, hole;
	uint64_t n = 0;

	for (;;) {
		data = lseek(fd, pos, SEEK_DATA);
		if (data < 0)
			break;
		hole = lseek(fd, data, SEEK_HOLE);
		ck_assert_int_ge(hole, data);
		n += (uint64_t)(hole - data);
		pos = hole;
	}
	return n;
}

static uint64_t data_bytes_of(const char *path)
{
	int fd = open(path, O_RDONLY);
	uint64_t n;

	ck_assert_int_ge(fd, 0);
	n = data_bytes(fd);
	close(fd);
	return n;
}

static uint64_t blocks_of(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return (uint64_t)st.st_blocks;
}

/* Open path (create for writing) and get a layout; the test fails
 * unless the server gives one. */
static void open_with_layout(struct nfs42_client *cl, const char *path,
			     bool write, struct nfs42_file *f,
			     struct nfs42_layout *lo)
{
	if (write)
		ck_nfs_ok(cl, nfs42_open(cl, path, OPEN4_SHARE_ACCESS_BOTH,
					 UNCHECKED4, 0644, true, f));
	else
		ck_nfs_ok(cl, nfs42_open(cl, path, OPEN4_SHARE_ACCESS_READ,
					 NFS42_NOCREATE, 0, false, f));
	ck_nfs_ok(cl, nfs42_layout_get(
			      f, write ? LAYOUTIOMODE4_RW : LAYOUTIOMODE4_READ,
			      lo));
}

/* Return the layout, close the file, free the layout. */
static void close_with_layout(struct nfs42_client *cl, struct nfs42_file *f,
			      struct nfs42_layout *lo)
{
	ck_nfs_ok(cl, nfs42_layout_return(f, lo));
	ck_nfs_ok(cl, nfs42_close(f));
	free(lo);
}

/* Write local file src to name through the layout; returns the stats. */
static void pnfs_put(struct nfs42_client *cl, const char *name, int src,
		     struct nfs42_pnfs_stats *st)
{
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	struct nfs42_file f;

	open_with_layout(cl, e2e_path(name), true, &f, lo);
	ck_nfs_ok(cl, nfs42_pnfs_write_fd(&f, lo, NULL, src, NULL, st));
	close_with_layout(cl, &f, lo);
}

static void pnfs_get(struct nfs42_client *cl, const char *name, int dst,
		     bool read_plus, struct nfs42_pnfs_stats *st)
{
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	struct nfs42_pnfs_opts o;
	struct nfs42_file f;

	nfs42_pnfs_opts_init(&o);
	o.read_plus = read_plus;
	open_with_layout(cl, e2e_path(name), false, &f, lo);
	ck_nfs_ok(cl, nfs42_pnfs_read_fd(&f, lo, &o, dst, NULL, st));
	close_with_layout(cl, &f, lo);
}

static uint64_t total_ds(const struct nfs42_pnfs_stats *st)
{
	uint64_t t = 0;
	unsigned int i;

	for (i = 0; i < NFS42_LAYOUT_MAX_DS; i++)
		t += st->ds_bytes[i];
	return t;
}

/* Every data server moved its share (within one stripe unit per
 * round of the others), nothing went through the metadata server. */
static void check_spread(const struct nfs42_pnfs_stats *st, uint64_t data)
{
	unsigned int i, n = ds_count();

	ck_assert_uint_eq(st->mds_bytes, 0);
	ck_assert_uint_eq(total_ds(st), data);
	for (i = 0; i < n; i++)
		ck_assert_msg(st->ds_bytes[i] + STRIPE_UNIT >= data / n,
			      "data server %u moved %" PRIu64 " of %" PRIu64, i,
			      st->ds_bytes[i], data);
}

START_TEST(striped_dense_write_and_read)
{
	static const uint64_t runs[] = { 0, 5 * 1048576 + 4093, 0, 0 };
	const uint64_t size = runs[1];
	struct nfs42_client *cl = e2e_client();
	struct nfs42_pnfs_stats st;
	const char *name = uniq("dense");
	uint64_t w0[NFS42_LAYOUT_MAX_DS], r0[NFS42_LAYOUT_MAX_DS];
	unsigned int i, n = ds_count();
	char *src, *out;
	int fd, ofd;

	for (i = 0; i < n; i++)
		w0[i] = proc_io(ds_pid(i), "wchar");
	fd = local_file(size, runs, &src);
	pnfs_put(cl, name, fd, &st);
	same_files(src, e2e_backing(name));
	check_spread(&st, size);
	/* the data server processes wrote it, each its share */
	for (i = 0; i < n; i++)
		ck_assert_msg(proc_io(ds_pid(i), "wchar") - w0[i] >=
				      size / n - STRIPE_UNIT,
			      "data server %u wrote %" PRIu64, i,
			      proc_io(ds_pid(i), "wchar") - w0[i]);

	for (i = 0; i < n; i++)
		r0[i] = proc_io(ds_pid(i), "rchar");
	ck_assert_int_gt(asprintf(&out, "%s.out", src), 0);
	ofd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(ofd, 0);
	pnfs_get(cl, name, ofd, false, &st);
	close(ofd);
	same_files(src, out);
	check_spread(&st, size);
	for (i = 0; i < n; i++)
		ck_assert_uint_ge(proc_io(ds_pid(i), "rchar") - r0[i],
				  size / n - STRIPE_UNIT);
	close(fd);
	unlink(src);
	unlink(out);
	free(out);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(striped_sparse_keeps_holes)
{
	/* data at 0, in the middle of a stripe unit far out, and a short
	 * run at the end; 64 MiB of it holes */
	static const uint64_t runs[] = { 0,
					 3 * 65536 + 100,
					 20 << 20,
					 4096,
					 (40 << 20) + 1000,
					 200000,
					 0,
					 0 };
	const uint64_t size = 64 << 20;
	uint64_t data;
	struct nfs42_client *cl = e2e_client();
	struct nfs42_pnfs_stats st;
	const char *name = uniq("sparse");
	char *src, *out;
	int fd, ofd;

	fd = local_file(size, runs, &src);
	data = data_bytes(fd);
	ck_assert_uint_lt(data, 1 << 20);
	pnfs_put(cl, name, fd, &st);
	same_files(src, e2e_backing(name));
	/* only the data was sent, and the copy has no more blocks */
	ck_assert_uint_eq(total_ds(&st) + st.mds_bytes, data);
	ck_assert_uint_le(blocks_of(e2e_backing(name)), blocks_of(src));

	/* READ_PLUS through the data servers: the holes come as holes */
	ck_assert_int_gt(asprintf(&out, "%s.out", src), 0);
	ofd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(ofd, 0);
	pnfs_get(cl, name, ofd, true, &st);
	close(ofd);
	same_files(src, out);
	ck_assert_uint_eq(st.mds_bytes, 0);
	/* the backing file's data extents, no more */
	ck_assert_uint_le(total_ds(&st), data_bytes_of(e2e_backing(name)));
	ck_assert_uint_ge(st.hole_bytes,
			  size - data_bytes_of(e2e_backing(name)));
	ck_assert_uint_le(blocks_of(out), blocks_of(src));
	close(fd);
	unlink(src);
	unlink(out);
	free(out);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(layout_as_configured)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = uniq("layout");
	char ports[256], host[64];
	unsigned int i, n = ds_count();
	struct nfs42_file f;
	uint16_t port;
	char *p;

	e2e_put_backing(name, "x", 1);
	open_with_layout(cl, e2e_path(name), false, &f, lo);
	ck_assert_uint_eq(lo->stripe_unit, STRIPE_UNIT);
	ck_assert(!lo->dense);
	ck_assert(!lo->commit_through_mds);
	ck_assert_uint_eq(lo->offset, 0);
	ck_assert_uint_eq(lo->length, NFS42_LENGTH_EOF);
	ck_assert_uint_eq(lo->iomode, LAYOUTIOMODE4_READ);
	ck_assert(lo->return_on_close);
	ck_assert_uint_eq(lo->nstripes, n);
	ck_assert_uint_eq(lo->nds, n);
	ck_assert_uint_lt(lo->first_stripe_index, n);
	ck_assert_uint_eq(lo->nfh, 1);
	/* the data servers, in order, at the ports the harness gave them */
	snprintf(ports, sizeof(ports), "%s", e2e_env("NFS42_DS_PORTS"));
	p = strtok(ports, " ");
	for (i = 0; i < n; i++, p = strtok(NULL, " ")) {
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(lo->stripe_indices[i], i);
		ck_assert_uint_eq(lo->ds[i].naddr, 1);
		ck_assert_str_eq(lo->ds[i].addr[0].netid, "tcp");
		ck_assert_int_eq(nfs42_uaddr_split(lo->ds[i].addr[0].uaddr,
						   host, sizeof(host), &port),
				 0);
		ck_assert_str_eq(host, "127.0.0.1");
		ck_assert_uint_eq(port, (uint16_t)atoi(p));
	}
	close_with_layout(cl, &f, lo);
	nfs42_client_free(cl);
}
END_TEST

START_TEST(devicelist_ids_are_known)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const struct nfs42_res *r;
	struct nfs42_compound *c;
	struct nfs42_fh root;
	const char *name = uniq("devlist");
	struct nfs42_file f;
	int idx, rc;

	e2e_put_backing(name, "x", 1);
	open_with_layout(cl, e2e_path(name), false, &f, lo);
	ck_nfs_ok(cl, nfs42_lookup_path(cl, e2e_path(""), &root, NULL));
	c = nfs42_compound_new(cl);
	nfs42_op_putfh(c, &root);
	idx = nfs42_op_getdevicelist(c, LAYOUT4_NFSV4_1_FILES, 32, 0, NULL);
	rc = nfs42_compound_run(c);
	ck_assert_int_eq(rc, 0);
	r = nfs42_res(c, idx);
	/* one device (every stripe on every data server): the layout's */
	ck_assert_uint_eq(r->u.getdevicelist.n, 1);
	ck_assert(r->u.getdevicelist.eof);
	ck_assert_mem_eq(r->u.getdevicelist.ids[0], lo->deviceid,
			 NFS4_DEVICEID4_SIZE);
	nfs42_compound_free(c);

	/* and an id that is not the server's is NOENT (not a crash) */
	c = nfs42_compound_new(cl);
	lo->deviceid[15] ^= 0x5a;
	idx = nfs42_op_getdeviceinfo(c, lo->deviceid, LAYOUT4_NFSV4_1_FILES,
				     65536);
	rc = nfs42_compound_run(c);
	ck_assert_int_eq(rc, NFS4ERR_NOENT);
	nfs42_compound_free(c);
	lo->deviceid[15] ^= 0x5a;

	close_with_layout(cl, &f, lo);
	nfs42_client_free(cl);
}
END_TEST

/* EXCHANGE_ID roles (RFC 8881 13.1, 18.35.3): the metadata server alone
 * here (not a data server), the data servers only that. */
START_TEST(exchange_id_roles)
{
	struct nfs42_client *mds = e2e_client(), *ds;
	struct nfs42_opts o;
	uint32_t f;

	f = nfs42_server_flags(mds) & EXCHGID4_FLAG_MASK_PNFS;
	ck_assert_uint_eq(f, EXCHGID4_FLAG_USE_PNFS_MDS);

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.port = (uint16_t)atoi(e2e_env("NFS42_DS_PORTS"));
	o.no_back_channel = true;
	o.exchgid_flags = EXCHGID4_FLAG_USE_PNFS_DS;
	ck_nfs_ok(mds, nfs42_client_create(&o, &ds));
	f = nfs42_server_flags(ds) & EXCHGID4_FLAG_MASK_PNFS;
	ck_assert(f & EXCHGID4_FLAG_USE_PNFS_DS);
	ck_assert(!(f & EXCHGID4_FLAG_USE_PNFS_MDS));
	nfs42_client_free(ds);

	/* asking for nothing: a data server is no metadata server either */
	o.exchgid_flags = 0;
	ck_nfs_ok(mds, nfs42_client_create(&o, &ds));
	f = nfs42_server_flags(ds) & EXCHGID4_FLAG_MASK_PNFS;
	ck_assert(f & EXCHGID4_FLAG_USE_PNFS_DS);
	ck_assert(!(f & EXCHGID4_FLAG_USE_PNFS_MDS));
	nfs42_client_free(ds);
	nfs42_client_free(mds);
}
END_TEST

/* READ of a data-server handle on the data server: status of one READ. */
static int ds_read(struct nfs42_client *ds, const struct nfs42_fh *fh,
		   const struct nfs42_stateid *sid)
{
	struct nfs42_compound *c = nfs42_compound_new(ds);
	int rc;

	nfs42_op_putfh(c, fh);
	nfs42_op_read(c, sid, 0, 4096);
	nfs42_compound_no_retry(c);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

START_TEST(ds_handles_checked)
{
	struct nfs42_client *cl = e2e_client(), *ds;
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = uniq("dsfh");
	struct nfs42_stateid sid;
	struct nfs42_file f;
	struct nfs42_fh fh;
	unsigned int i;

	e2e_put_backing(name, "data server handles", 19);
	open_with_layout(cl, e2e_path(name), false, &f, lo);
	ck_nfs_ok(cl, nfs42_ds_client(cl, lo, 0, &ds));
	sid = f.stateid;
	sid.seqid = 0;
	ck_assert_int_eq(ds_read(ds, &lo->fhs[0], &sid), 0);
	/* any byte of the FSAL part changed: not a handle this export
	 * gave out (BADHANDLE for the framing, STALE for the rest) */
	for (i = 5; i < lo->fhs[0].len; i++) {
		int rc;

		fh = lo->fhs[0];
		fh.data[i] ^= 0x01;
		rc = ds_read(ds, &fh, &sid);
		ck_assert_msg(rc == NFS4ERR_STALE || rc == NFS4ERR_BADHANDLE,
			      "byte %u changed: %s", i, nfs42_strerror(rc));
	}
	/* the file's (metadata server) handle is not a data-server one */
	ck_assert_int_ne(ds_read(ds, &f.fh, &sid), 0);
	close_with_layout(cl, &f, lo);
	nfs42_client_free(cl);
}
END_TEST

/* LAYOUTCOMMIT with the open stateid (not the layout's): BAD_STATEID,
 * the size untouched (RFC 8881 18.42.3). */
START_TEST(layoutcommit_needs_layout_stateid)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = uniq("commit");
	struct nfs42_compound *c;
	uint64_t last = 1 << 20;
	struct nfs42_lock_owner lko = { .owner = "pnfs-lko", .owner_len = 8 };
	struct nfs42_stripe_loc loc;
	struct nfs42_client *ds;
	struct nfs42_file f;
	uint64_t size = 0;
	struct stat st;
	int rc;

	open_with_layout(cl, e2e_path(name), true, &f, lo);
	/* a lock on the open gives its state a list of lock states, which
	 * a LAYOUTCOMMIT taking it for a layout's would walk as segments
	 */
	c = nfs42_compound_new(cl);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_lock_new(c, WRITE_LT, false, 0, 10, 0, &f.stateid, 0, &lko);
	ck_nfs_ok(cl, nfs42_compound_run(c));
	nfs42_compound_free(c);
	c = nfs42_compound_new(cl);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_layoutcommit(c, 0, NFS42_LENGTH_EOF, false, &f.stateid, &last,
			      NULL, LAYOUT4_NFSV4_1_FILES);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	ck_assert_int_eq(rc, NFS4ERR_BAD_STATEID);
	ck_assert_int_eq(stat(e2e_backing(name), &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	/* with the layout's it takes: the size is what the data server's
	 * write made it (issue #26: LAYOUTCOMMIT grows no file)
	 */
	nfs42_layout_locate(lo, last, &loc);
	ck_nfs_ok(cl, nfs42_ds_client(cl, lo, loc.ds, &ds));
	c = nfs42_compound_new(ds);
	nfs42_op_putfh(c, &lo->fhs[loc.fh]);
	nfs42_op_write(c, &f.stateid, last, FILE_SYNC4, "z", 1);
	ck_nfs_ok(ds, nfs42_compound_run(c));
	nfs42_compound_free(c);
	ck_nfs_ok(cl, nfs42_layout_commit(&f, lo, last, &size));
	ck_assert_uint_eq(size, last + 1);
	ck_assert_int_eq(stat(e2e_backing(name), &st), 0);
	ck_assert_int_eq(st.st_size, (off_t)last + 1);
	close_with_layout(cl, &f, lo);
	nfs42_client_free(cl);
}
END_TEST

/*
 * "mds-ds" (harness --pnfs-mds-ds): the metadata server is a data server
 * too, first of three: EXCHANGE_ID says both, and a striped write and
 * read of 1 MiB go to all three (the metadata server's share through its
 * data-server handles), none through the metadata server's own I/O.
 */
START_TEST(mds_also_ds)
{
	struct nfs42_client *cl = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = uniq("mdsds");
	struct nfs42_pnfs_stats st;
	uint8_t *buf = malloc(1 << 20);
	uint64_t size = 0, end = 0;
	struct nfs42_file f;
	char *local, *back;
	int fd, i;

	ck_assert_uint_eq(nfs42_server_flags(cl) & EXCHGID4_FLAG_MASK_PNFS,
			  EXCHGID4_FLAG_USE_PNFS_MDS |
				  EXCHGID4_FLAG_USE_PNFS_DS);
	for (i = 0; i < (1 << 20); i++)
		buf[i] = (uint8_t)(i * 31 + 7);
	fd = e2e_local_tmp("pnfs-mdsds", &local);
	ck_assert_int_eq(write(fd, buf, 1 << 20), 1 << 20);
	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				 UNCHECKED4, 0644, true, &f));
	ck_nfs_ok(cl, nfs42_layout_get(&f, LAYOUTIOMODE4_RW, lo));
	ck_assert_uint_eq(lo->nstripes, 3);
	ck_nfs_ok(cl, nfs42_pnfs_write_fd(&f, lo, NULL, fd, &size, &st));
	close(fd);
	ck_assert_uint_eq(st.mds_bytes, 0);
	for (i = 0; i < 3; i++)
		ck_assert_uint_gt(st.ds_bytes[i], 0);
	ck_assert(e2e_same_as_backing(local, name));
	fd = e2e_local_tmp("pnfs-mdsds-back", &back);
	ck_nfs_ok(cl, nfs42_pnfs_read_fd(&f, lo, NULL, fd, &end, &st));
	close(fd);
	ck_assert_uint_eq(end, 1 << 20);
	ck_assert_uint_eq(st.mds_bytes, 0);
	for (i = 0; i < 3; i++)
		ck_assert_uint_gt(st.ds_bytes[i], 0);
	ck_assert(e2e_same_as_backing(back, name));
	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_close(&f));
	unlink(local);
	unlink(back);
	free(buf);
	free(lo);
	nfs42_client_free(cl);
}
END_TEST

/*
 * "deleg" mode (read delegations on, as scripts/serve.sh serves): a
 * client holding a read delegation reads through the data servers.  The
 * delegation is a Linux read lease on the metadata server; a data server
 * that opened the file for writing to serve a READ broke that lease, so
 * the READ waited for the recall (the client's data-server calls timed
 * out and it fell back to the metadata server).
 */
START_TEST(read_under_read_delegation)
{
	static const uint64_t runs[] = { 0, 3 * STRIPE_UNIT + 123, 0, 0 };
	const uint64_t size = runs[1];
	struct nfs42_client *cl = e2e_client();
	struct nfs42_layout *lo = malloc(sizeof(*lo));
	const char *name = uniq("delegated");
	struct nfs42_pnfs_stats st;
	struct nfs42_pnfs_opts o;
	struct nfs42_file f;
	char *src, *out;
	int64_t t0;
	int fd, ofd;

	/* made on the server's disk: no NFS write open ever had it */
	fd = local_file(size, runs, &src);
	close(fd);
	ck_assert_int_eq(rename(src, e2e_backing(name)), 0);
	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				 NFS42_NOCREATE, 0, false, &f));
	ck_assert_msg(f.deleg_type == OPEN_DELEGATE_READ,
		      "no read delegation (%u, why %u)", f.deleg_type,
		      f.why_no_deleg);
	ck_nfs_ok(cl, nfs42_layout_get(&f, LAYOUTIOMODE4_READ, lo));
	ck_assert_int_gt(asprintf(&out, "%s/%s.out",
				  getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
				  name),
			 0);
	ofd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(ofd, 0);
	nfs42_pnfs_opts_init(&o);
	t0 = e2e_now_ms();
	ck_nfs_ok(cl, nfs42_pnfs_read_fd(&f, lo, &o, ofd, NULL, &st));
	close(ofd);
	ck_assert_msg(st.ds_failed == 0 && st.mds_bytes == 0,
		      "%u data servers given up, %" PRIu64
		      " bytes through the metadata server, after %lld ms",
		      st.ds_failed, st.mds_bytes,
		      (long long)(e2e_now_ms() - t0));
	check_spread(&st, size);
	same_files(e2e_backing(name), out);
	ck_assert_msg(!e2e_log_has("broken by a local open"),
		      "a data server's open broke the delegation's lease");
	ck_nfs_ok(cl, nfs42_layout_return(&f, lo));
	ck_nfs_ok(cl, nfs42_close(&f));
	free(lo);
	unlink(out);
	free(out);
	nfs42_client_free(cl);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("pnfs_io");
	TCase *tc = tcase_create("io");

	tcase_set_timeout(tc, 120);
	if (argc > 1 && !strcmp(argv[1], "mds-ds")) {
		tcase_add_test(tc, mds_also_ds);
		suite_add_tcase(s, tc);
		return e2e_run(s);
	}
	if (argc > 1 && !strcmp(argv[1], "deleg")) {
		tcase_add_test(tc, read_under_read_delegation);
		suite_add_tcase(s, tc);
		return e2e_run(s);
	}
	tcase_add_test(tc, striped_dense_write_and_read);
	/* "cephfs" (the Ceph lane, every head on a ceph-fuse mount of its
	 * own): all but the holes, which CephFS 16.2 cannot tell
	 * (docs/cluster.md, section 6) */
	if (argc < 2 || strcmp(argv[1], "cephfs"))
		tcase_add_test(tc, striped_sparse_keeps_holes);
	tcase_add_test(tc, layout_as_configured);
	tcase_add_test(tc, devicelist_ids_are_known);
	tcase_add_test(tc, exchange_id_roles);
	tcase_add_test(tc, ds_handles_checked);
	tcase_add_test(tc, layoutcommit_needs_layout_stateid);
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
