/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * LAYOUTGET with the layout stateid (issue #26 item 2; harness --pnfs 2),
 * as the Linux client sends it on every LAYOUTGET of a file after the
 * first (RFC 8881 12.5.3: a client holding a layout stateid uses it):
 *
 *  - the probe: an O_RDWR open, a READ layout, then an RW layout asked
 *    with the layout stateid; Ganesha 6.5 dropped a reference it did not
 *    own and freed the layout state while it was listed on the file, and
 *    the next OPEN of the file aborted the server (patch 0151);
 *  - asked again and again, the layouts of one client and file are
 *    merged (patch 0152) and each reply is freed (patch 0155): the
 *    server's memory does not grow with the number of LAYOUTGETs (it
 *    grew by a segment and by the reply's layout each).
 */
#include <errno.h>
#include <inttypes.h>

#include "e2e_fsal_util.h"
#include "e2e_server_proc.h"

static const char *uniq(const char *what)
{
	return e2e_fmt("layoutget-%s", e2e_uniq(what));
}

/* LAYOUTGET iomode under stateid sid (the open's or the layout's): the
 * status; *out the layout stateid answered. */
static int layoutget(struct nfs42_client *cl, const struct nfs42_fh *fh,
		     uint32_t iomode, const struct nfs42_stateid *sid,
		     struct nfs42_stateid *out)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	const struct nfs42_res *r;
	int idx, rc;

	nfs42_op_putfh(c, fh);
	idx = nfs42_op_layoutget(c, LAYOUT4_NFSV4_1_FILES, iomode, 0,
				 NFS42_LENGTH_EOF, 0, sid, 4096);
	nfs42_compound_no_retry(c);
	rc = nfs42_compound_run(c);
	r = nfs42_res(c, idx);
	if (rc == 0 && r != NULL && out != NULL)
		*out = r->u.layoutget.stateid;
	nfs42_compound_free(c);
	return rc;
}

static int layoutreturn(struct nfs42_client *cl, const struct nfs42_fh *fh,
			const struct nfs42_stateid *sid)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	nfs42_op_putfh(c, fh);
	nfs42_op_layoutreturn(c, false, LAYOUT4_NFSV4_1_FILES,
			      LAYOUTIOMODE4_ANY, LAYOUTRETURN4_FILE, 0,
			      NFS42_LENGTH_EOF, sid);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/*
 * The probe of item 2, the Linux client's pattern: A opens the file for
 * reading and writing, reads (a READ layout under the open stateid),
 * then writes (an RW layout under the layout stateid, and again); then B
 * opens the same file.  Before patch 0151 the second LAYOUTGET freed the
 * layout state A still held, and B's OPEN aborted the server ("Error 22
 * acquiring mutex"; ASan: heap-use-after-free).
 */
START_TEST(layout_stateid_keeps_its_state)
{
	struct nfs42_client *a = e2e_client(), *b = e2e_client();
	const char *name = uniq("probe");
	struct nfs42_stateid lsid, lsid2;
	struct nfs42_file fa, fb;
	pid_t pid = e2e_server_pid("server");
	int i;

	e2e_put_backing(name, "layout stateid", 14);
	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				NFS42_NOCREATE, 0, false, &fa));
	ck_nfs_ok(a,
		  layoutget(a, &fa.fh, LAYOUTIOMODE4_READ, &fa.stateid, &lsid));
	ck_assert_mem_ne(lsid.other, fa.stateid.other, NFS4_OTHER_SIZE);
	for (i = 0; i < 3; i++) {
		ck_nfs_ok(a, layoutget(a, &fa.fh,
				       i % 2 ? LAYOUTIOMODE4_READ :
					       LAYOUTIOMODE4_RW,
				       &lsid, &lsid2));
		/* the same layout state, a later seqid */
		ck_assert_mem_eq(lsid2.other, lsid.other, NFS4_OTHER_SIZE);
		ck_assert_uint_gt(lsid2.seqid, lsid.seqid);
		lsid = lsid2;
	}
	/* another client opens the file: its list of states is walked */
	ck_assert_msg(nfs42_open(b, e2e_path(name), OPEN4_SHARE_ACCESS_READ,
				 NFS42_NOCREATE, 0, false, &fb) == 0,
		      "B's OPEN after A's LAYOUTGETs: %s",
		      nfs42_client_error(b));
	ck_nfs_ok(b, nfs42_close(&fb));
	ck_assert_int_gt(e2e_proc_status_kb(pid, "VmRSS"), 0);
	/* and A's state is still A's layout */
	ck_nfs_ok(a, layoutreturn(a, &fa.fh, &lsid));
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
	nfs42_client_free(b);
	ck_assert_int_gt(e2e_proc_status_kb(pid, "VmRSS"), 0);
}
END_TEST

/* LAYOUTGETS_PER_CALL LAYOUTGETs, READ and RW in turn, in one compound:
 * the first under the layout stateid *lsid, the others under the
 * current stateid (RFC 8881 16.2.3.1.2: the one the LAYOUTGET before
 * answered); *lsid becomes the last one answered. */
#define LAYOUTGETS_PER_CALL 8
static void layoutgets(struct nfs42_client *cl, const struct nfs42_fh *fh,
		       struct nfs42_stateid *lsid, unsigned int calls)
{
	const struct nfs42_stateid current = { .seqid = 1 };
	unsigned int i, j;
	int idx = -1;

	for (i = 0; i < calls; i++) {
		struct nfs42_compound *c = nfs42_compound_new(cl);

		nfs42_op_putfh(c, fh);
		for (j = 0; j < LAYOUTGETS_PER_CALL; j++)
			idx = nfs42_op_layoutget(c, LAYOUT4_NFSV4_1_FILES,
						 j % 2 ? LAYOUTIOMODE4_READ :
							 LAYOUTIOMODE4_RW,
						 0, NFS42_LENGTH_EOF, 0,
						 j ? &current : lsid, 4096);
		ck_nfs_ok(cl, nfs42_compound_run(c));
		*lsid = nfs42_res(c, idx)->u.layoutget.stateid;
		nfs42_compound_free(c);
	}
}

/*
 * Patches 0152 and 0155: a client asking 40000 times for the layouts it
 * holds (READ and RW, under its layout stateid) leaves the server holding
 * no more than after the first few: its segments are merged, the replies
 * freed.  Each used to stay (a segment and the FSAL's record of the
 * grant, 100 bytes, and the reply's layout, 330 bytes: 17 MB here).  Read on the server's resident memory, which an ASan
 * build's quarantine makes meaningless (the calls still run there).
 */
START_TEST(segments_merged)
{
	struct nfs42_client *a = e2e_client();
	const char *name = uniq("merge");
	struct nfs42_stateid lsid;
	pid_t pid = e2e_server_pid("server");
	int64_t rss0, rss;
	struct nfs42_file fa;

	e2e_put_backing(name, "merged", 6);
	ck_nfs_ok(a, nfs42_open(a, e2e_path(name), OPEN4_SHARE_ACCESS_BOTH,
				NFS42_NOCREATE, 0, false, &fa));
	ck_nfs_ok(a,
		  layoutget(a, &fa.fh, LAYOUTIOMODE4_READ, &fa.stateid, &lsid));
	/* warm up: the server's caches and arenas at their working size */
	layoutgets(a, &fa.fh, &lsid, 500);
	rss0 = e2e_proc_status_kb(pid, "VmRSS");
	layoutgets(a, &fa.fh, &lsid, 5000);
	rss = e2e_proc_status_kb(pid, "VmRSS");
	ck_assert_int_gt(rss, 0);
	fprintf(stderr,
		"segments_merged: the server's VmRSS grew by %" PRId64 " kB\n",
		rss - rss0);
	if (e2e_proc_asan(pid))
		fprintf(stderr,
			"segments_merged: an ASan server, not compared\n");
	else
		ck_assert_msg(
			rss - rss0 < 1024,
			"40000 LAYOUTGETs of a layout held: the server's resident memory grew by %" PRId64
			" kB",
			rss - rss0);
	ck_nfs_ok(a, layoutreturn(a, &fa.fh, &lsid));
	ck_nfs_ok(a, nfs42_close(&fa));
	nfs42_client_free(a);
}
END_TEST

/* One case per fix (CK_RUN_CASE=probe or merge runs one alone). */
int main(void)
{
	Suite *s = suite_create("pnfs_layoutget");
	TCase *probe = tcase_create("probe");
	TCase *merge = tcase_create("merge");

	tcase_set_timeout(probe, 120);
	tcase_set_timeout(merge, 600);
	tcase_add_test(probe, layout_stateid_keeps_its_state);
	tcase_add_test(merge, segments_merged);
	suite_add_tcase(s, probe);
	suite_add_tcase(s, merge);
	return e2e_run(s);
}
