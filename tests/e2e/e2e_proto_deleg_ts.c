/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * Delegated timestamps (RFC 9754 section 5, issue #30 item 1), export
 * Delegations = RW: an NFSv4.2 OPEN with WANT_DELEG_TIMESTAMPS is granted
 * OPEN_DELEGATE_READ_ATTRS_DELEG (4) or OPEN_DELEGATE_WRITE_ATTRS_DELEG
 * (5), a delegation whose holder owns the file's atime and mtime.
 */
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "e2e_deleg_util.h"

static const char *uniq(const char *what)
{
	return e2e_deleg_uniq("delegts", what);
}

static const char *local_file(const char *what, const char *data)
{
	return e2e_deleg_local_file("delegts", what, data);
}

static struct nfs42_client *client_minor(uint32_t minorversion)
{
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;

	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	o.minorversion = minorversion;
	o.keep_recalls = true;
	ck_nfs_ok(cl, nfs42_client_create(&o, &cl));
	return cl;
}

/* OPEN name (no create) with access; the delegation type granted. */
static uint32_t open_type(struct nfs42_client *cl, const char *name,
			  uint32_t access, struct nfs42_file *f)
{
	ck_nfs_ok(cl, nfs42_open(cl, e2e_path(name), access, NFS42_NOCREATE, 0,
				 false, f));
	return f->deleg_type;
}

/* The same with WANT_DELEG_TIMESTAMPS. */
static uint32_t open_ts(struct nfs42_client *cl, const char *name,
			uint32_t access, struct nfs42_file *f)
{
	return open_type(cl, name,
			 access | OPEN4_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS, f);
}

static void give_back(struct nfs42_client *cl, struct nfs42_file *f)
{
	ck_nfs_ok(cl, nfs42_close(f));
	if (f->deleg_type != OPEN_DELEGATE_NONE &&
	    f->deleg_type != OPEN_DELEGATE_NONE_EXT)
		ck_nfs_ok(cl, nfs42_delegreturn(cl, &f->fh, &f->deleg_stateid));
}

/*
 * The grant: WANT_DELEG_TIMESTAMPS over NFSv4.2 turns a write delegation
 * into WRITE_ATTRS_DELEG; a read one stays OPEN_DELEGATE_READ (patch
 * 0201: its delegated atime, set at the return, would move the ctime);
 * the delegation stateid works as a write delegation's.  Without the
 * want, or over NFSv4.1 (84 and 85 are NFSv4.2 attributes), the types of
 * RFC 8881.
 */
START_TEST(t_granted_with_timestamps)
{
	struct nfs42_client *a = client_minor(2);
	struct nfs42_client *v41 = client_minor(1);
	const char *wname = local_file("w", "0123456789");
	const char *rname = local_file("r", "0123456789");
	const char *pname = local_file("plain", "0123456789");
	const char *oname = local_file("v41", "0123456789");
	struct nfs42_file f;
	char got[16] = { 0 };

	ck_assert_uint_eq(open_ts(a, wname, OPEN4_SHARE_ACCESS_BOTH, &f),
			  OPEN_DELEGATE_WRITE_ATTRS_DELEG);
	ck_nfs_ok(a, nfs42_pwrite(&f, "abc", 3, 0, FILE_SYNC4));
	give_back(a, &f);
	e2e_backing_read(wname, got, sizeof(got));
	ck_assert_str_eq(got, "abc3456789");

	ck_assert_uint_eq(open_ts(a, rname, OPEN4_SHARE_ACCESS_READ, &f),
			  OPEN_DELEGATE_READ);
	give_back(a, &f);

	ck_assert_uint_eq(open_type(a, pname, OPEN4_SHARE_ACCESS_BOTH, &f),
			  OPEN_DELEGATE_WRITE);
	give_back(a, &f);

	ck_assert_uint_eq(open_ts(v41, oname, OPEN4_SHARE_ACCESS_BOTH, &f),
			  OPEN_DELEGATE_WRITE);
	give_back(v41, &f);
	ck_assert_uint_eq(nfs42_recalls_received(a), 0);
	nfs42_client_free(v41);
	nfs42_client_free(a);
}
END_TEST

/* PUTFH + SETATTR(sid, sa): the status. */
static int setattr_with(struct nfs42_client *cl, const struct nfs42_fh *fh,
			const struct nfs42_stateid *sid,
			const struct nfs42_sattr *sa)
{
	struct nfs42_compound *c = nfs42_compound_new(cl);
	int rc;

	ck_assert_ptr_nonnull(c);
	nfs42_op_putfh(c, fh);
	nfs42_op_setattr(c, sid, sa);
	rc = nfs42_compound_run(c);
	nfs42_compound_free(c);
	return rc;
}

/* SETATTR of time_deleg_modify (85) alone, or with time_modify_set. */
static int set_deleg_mtime(struct nfs42_client *cl, const struct nfs42_fh *fh,
			   const struct nfs42_stateid *sid,
			   const struct nfs42_time *t, bool also_modify_set)
{
	struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_deleg_mtime(&sa, t);
	if (also_modify_set)
		nfs42_sattr_mtime(&sa, t);
	return setattr_with(cl, fh, sid, &sa);
}

static int set_deleg_atime(struct nfs42_client *cl, const struct nfs42_fh *fh,
			   const struct nfs42_stateid *sid,
			   const struct nfs42_time *t)
{
	struct nfs42_sattr sa;

	nfs42_sattr_init(&sa);
	nfs42_sattr_deleg_atime(&sa, t);
	return setattr_with(cl, fh, sid, &sa);
}

static struct nfs42_attrs times_of(struct nfs42_client *cl,
				   const struct nfs42_fh *fh)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_SUPPORTED_ATTRS,
					       FATTR4_TIME_ACCESS,
					       FATTR4_TIME_MODIFY, -1);
	struct nfs42_attrs at;

	ck_nfs_ok(cl, nfs42_getattr_fh(cl, fh, &bm, &at));
	return at;
}

static struct nfs42_time time_plus(struct nfs42_time t, int64_t ns)
{
	int64_t n = (int64_t)t.nseconds + ns;

	t.seconds += n / 1000000000;
	n %= 1000000000;
	if (n < 0) {
		n += 1000000000;
		t.seconds--;
	}
	t.nseconds = (uint32_t)n;
	return t;
}

static struct nfs42_time time_now(void)
{
	struct timespec ts;
	struct nfs42_time t;

	clock_gettime(CLOCK_REALTIME, &ts);
	t.seconds = ts.tv_sec;
	t.nseconds = (uint32_t)ts.tv_nsec;
	return t;
}

static int time_cmp(struct nfs42_time a, struct nfs42_time b)
{
	if (a.seconds != b.seconds)
		return a.seconds < b.seconds ? -1 : 1;
	if (a.nseconds != b.nseconds)
		return a.nseconds < b.nseconds ? -1 : 1;
	return 0;
}

#define ck_time_eq(a, b)                                                    \
	ck_assert_msg(time_cmp(a, b) == 0, "time %lld.%09u, not %lld.%09u", \
		      (long long)(a).seconds, (a).nseconds,                 \
		      (long long)(b).seconds, (b).nseconds)

/*
 * SETATTR of time_deleg_access (84) and time_deleg_modify (85): the
 * holder of the WRITE_ATTRS_DELEG delegation sets them with its stateid;
 * a time before the file's at the grant is ignored, one in the future
 * is the server's now (as knfsd).  With any other stateid (the holder's
 * open stateid, the anonymous one, a write delegation without the
 * timestamps), or with time_modify_set beside it, NFS4ERR_INVAL; another
 * client quoting the holder's delegation, NFS4ERR_BAD_STATEID (patch
 * 0099); in a CREATE, NFS4ERR_INVAL.  Nobody is recalled.
 */
START_TEST(t_setattr_by_holder_only)
{
	struct nfs42_client *a = client_minor(2);
	struct nfs42_client *b = client_minor(2);
	const char *name = local_file("set", "0123456789");
	const char *pname = local_file("setplain", "0123456789");
	static const struct nfs42_stateid anon = { 0 };
	struct nfs42_fh root;
	struct nfs42_time t, before, after;
	struct nfs42_create_args ca = { .type = NF4DIR };
	struct nfs42_attrs at0, at;
	struct nfs42_compound *c;
	struct nfs42_sattr sa;
	struct nfs42_file f, p;

	ck_nfs_ok(b, nfs42_lookup_path(b, e2e_path(""), &root, NULL));
	ck_assert_uint_eq(open_ts(a, name, OPEN4_SHARE_ACCESS_BOTH, &f),
			  OPEN_DELEGATE_WRITE_ATTRS_DELEG);
	at0 = times_of(a, &f.fh);
	ck_assert_msg(
		nfs42_bm_isset(&at0.supported_attrs,
			       FATTR4_TIME_DELEG_ACCESS) &&
			nfs42_bm_isset(&at0.supported_attrs,
				       FATTR4_TIME_DELEG_MODIFY),
		"84/85 not in supported_attrs of a write-delegating export");
	t = time_plus(at0.time_modify, 1);

	/* not the holder's delegation stateid */
	ck_assert_int_eq(set_deleg_mtime(a, &f.fh, &f.stateid, &t, false),
			 NFS4ERR_INVAL);
	ck_assert_int_eq(set_deleg_mtime(a, &f.fh, &anon, &t, false),
			 NFS4ERR_INVAL);
	ck_assert_int_eq(set_deleg_mtime(b, &f.fh, &anon, &t, false),
			 NFS4ERR_INVAL);
	ck_assert_int_eq(set_deleg_mtime(b, &f.fh, &f.deleg_stateid, &t, false),
			 NFS4ERR_BAD_STATEID);
	ck_assert_int_eq(set_deleg_mtime(a, &f.fh, &f.deleg_stateid, &t, true),
			 NFS4ERR_INVAL);
	ck_time_eq(times_of(a, &f.fh).time_modify, at0.time_modify);

	/* the holder's */
	ck_nfs_ok(a, set_deleg_mtime(a, &f.fh, &f.deleg_stateid, &t, false));
	ck_time_eq(times_of(a, &f.fh).time_modify, t);
	/* before the grant's: ignored */
	ck_nfs_ok(a, set_deleg_mtime(
			     a, &f.fh, &f.deleg_stateid,
			     &(struct nfs42_time){ at0.time_modify.seconds - 10,
						   at0.time_modify.nseconds },
			     false));
	ck_time_eq(times_of(a, &f.fh).time_modify, t);
	/* in the future: now */
	before = time_now();
	t = time_plus(before, 3600000000000LL);
	ck_nfs_ok(a, set_deleg_mtime(a, &f.fh, &f.deleg_stateid, &t, false));
	after = time_now();
	at = times_of(a, &f.fh);
	ck_assert_msg(time_cmp(at.time_modify, before) >= 0 &&
			      time_cmp(at.time_modify, after) <= 0,
		      "a future mtime became %lld.%09u, not now",
		      (long long)at.time_modify.seconds,
		      at.time_modify.nseconds);
	t = time_plus(at0.time_access, 1);
	ck_nfs_ok(a, set_deleg_atime(a, &f.fh, &f.deleg_stateid, &t));
	ck_time_eq(times_of(a, &f.fh).time_access, t);

	/* a write delegation without the timestamps */
	ck_assert_uint_eq(open_type(a, pname, OPEN4_SHARE_ACCESS_BOTH, &p),
			  OPEN_DELEGATE_WRITE);
	ck_assert_int_eq(set_deleg_mtime(a, &p.fh, &p.deleg_stateid, &t, false),
			 NFS4ERR_INVAL);
	give_back(a, &p);

	/* not in a CREATE */
	nfs42_sattr_init(&sa);
	nfs42_sattr_deleg_mtime(&sa, &t);
	ca.name = uniq("dir");
	ca.attrs = &sa;
	c = nfs42_compound_new(b);
	nfs42_op_putfh(c, &root);
	nfs42_op_create(c, &ca);
	ck_assert_int_eq(nfs42_compound_run(c), NFS4ERR_INVAL);
	nfs42_compound_free(c);

	ck_assert_uint_eq(nfs42_recalls_received(a), 0);
	give_back(a, &f);
	nfs42_client_free(b);
	nfs42_client_free(a);
}
END_TEST

/*
 * A read delegation never comes with the timestamps (patch 0201, issue
 * #30: user space cannot set the delegated atime its holder sends back
 * without moving the ctime and the change attribute, so every file read
 * under one looked changed to git): an OPEN for reading that wants them
 * gets OPEN_DELEGATE_READ, whose stateid sets neither 84 nor 85
 * (NFS4ERR_INVAL, a delegation without the timestamps), the file's times
 * left alone.
 */
START_TEST(t_read_holder_no_times)
{
	struct nfs42_client *a = client_minor(2);
	const char *name = local_file("rd", "0123456789");
	struct nfs42_attrs at0;
	struct nfs42_time t;
	struct nfs42_file f;

	ck_assert_uint_eq(open_ts(a, name, OPEN4_SHARE_ACCESS_READ, &f),
			  OPEN_DELEGATE_READ);
	at0 = times_of(a, &f.fh);
	t = time_plus(at0.time_modify, 5000);
	ck_assert_int_eq(set_deleg_mtime(a, &f.fh, &f.deleg_stateid, &t, false),
			 NFS4ERR_INVAL);
	t = time_plus(at0.time_access, 5000);
	ck_assert_int_eq(set_deleg_atime(a, &f.fh, &f.deleg_stateid, &t),
			 NFS4ERR_INVAL);
	ck_time_eq(times_of(a, &f.fh).time_access, at0.time_access);
	ck_time_eq(times_of(a, &f.fh).time_modify, at0.time_modify);
	give_back(a, &f);
	nfs42_client_free(a);
}
END_TEST

/*
 * A holder that does not own the file (uid 4242 writing uid 4343's file
 * 0666): its delegation is its right to the times, so its SETATTR of 84
 * and 85 sets them, as knfsd's ATTR_DELEG does, where an explicit
 * time_modify_set of its own is NFS4ERR_PERM (only the owner sets
 * times other than now).  Its SETATTR of delegated times in the compound
 * of its DELEGRETURN (as the Linux client returns such a delegation)
 * sets them; once returned, the delegation's stateid sets nothing
 * (NFS4ERR_BAD_STATEID).
 */
START_TEST(t_non_owner_holder)
{
	struct nfs42_client *a = client_minor(2);
	const char *name = local_file("nonowner", "0123456789");
	struct nfs42_time t, t2;
	struct nfs42_attrs at0;
	struct nfs42_compound *c;
	struct nfs42_sattr sa;
	struct nfs42_file f;

	ck_assert_int_eq(chown(e2e_backing(name), 4343, 4343), 0);
	ck_assert_int_eq(chmod(e2e_backing(name), 0666), 0);
	nfs42_set_cred(a, 4242, 4242, 0, NULL);
	ck_assert_uint_eq(open_ts(a, name, OPEN4_SHARE_ACCESS_BOTH, &f),
			  OPEN_DELEGATE_WRITE_ATTRS_DELEG);
	at0 = times_of(a, &f.fh);
	t = time_plus(at0.time_modify, 7000);
	nfs42_sattr_init(&sa);
	nfs42_sattr_mtime(&sa, &t);
	ck_assert_int_eq(setattr_with(a, &f.fh, &f.stateid, &sa), NFS4ERR_PERM);
	ck_nfs_ok(a, set_deleg_mtime(a, &f.fh, &f.deleg_stateid, &t, false));
	ck_time_eq(times_of(a, &f.fh).time_modify, t);
	t = time_plus(at0.time_access, 7000);
	ck_nfs_ok(a, set_deleg_atime(a, &f.fh, &f.deleg_stateid, &t));
	ck_time_eq(times_of(a, &f.fh).time_access, t);

	/* PUTFH, SETATTR(84, 85), DELEGRETURN */
	ck_nfs_ok(a, nfs42_close(&f));
	t2 = time_plus(t, 9000);
	nfs42_sattr_init(&sa);
	nfs42_sattr_deleg_atime(&sa, &t2);
	nfs42_sattr_deleg_mtime(&sa, &t2);
	c = nfs42_compound_new(a);
	nfs42_op_putfh(c, &f.fh);
	nfs42_op_setattr(c, &f.deleg_stateid, &sa);
	nfs42_op_delegreturn(c, &f.deleg_stateid);
	ck_nfs_ok(a, nfs42_compound_run(c));
	nfs42_compound_free(c);
	ck_time_eq(times_of(a, &f.fh).time_modify, t2);
	ck_time_eq(times_of(a, &f.fh).time_access, t2);
	ck_assert_int_eq(
		set_deleg_mtime(a, &f.fh, &f.deleg_stateid,
				&(struct nfs42_time){ t2.seconds + 1, 0 },
				false),
		NFS4ERR_BAD_STATEID);
	ck_time_eq(times_of(a, &f.fh).time_modify, t2);
	nfs42_client_free(a);
}
END_TEST

/*
 * open_arguments (RFC 9754 4.1) lists DELEG_TIMESTAMPS on this export,
 * which grants write delegations: what makes a client (Linux 6.12) ask;
 * and OPEN_XOR_DELEGATION, honoured where delegations are granted.
 */
/* supported_attrs and open_arguments of file name. */
static struct nfs42_attrs advertised(struct nfs42_client *cl, const char *name)
{
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_SUPPORTED_ATTRS,
					       FATTR4_OPEN_ARGUMENTS, -1);
	struct nfs42_attrs at;
	struct nfs42_fh fh;

	ck_nfs_ok(cl, nfs42_lookup_path(cl, e2e_path(name), &fh, NULL));
	ck_nfs_ok(cl, nfs42_getattr_fh(cl, &fh, &bm, &at));
	ck_assert(nfs42_bm_isset(&at.mask, FATTR4_OPEN_ARGUMENTS));
	return at;
}

START_TEST(t_open_arguments_want)
{
	struct nfs42_client *a = client_minor(2);
	struct nfs42_attrs at = advertised(a, local_file("oa", "0123456789"));

	ck_assert_msg(
		nfs42_bm_isset(&at.open_arguments.share_access_want,
			       OPEN_ARGS_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS),
		"DELEG_TIMESTAMPS not in open_arguments");
	ck_assert_msg(
		nfs42_bm_isset(&at.open_arguments.share_access_want,
			       OPEN_ARGS_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION),
		"OPEN_XOR_DELEGATION not in open_arguments");
	nfs42_client_free(a);
}
END_TEST

/*
 * An export granting read delegations only (the "readdeleg" run,
 * Delegations = Read): neither 84/85 in supported_attrs nor
 * DELEG_TIMESTAMPS in open_arguments, and an OPEN wanting them is
 * granted a plain read delegation (the want accepted and ignored, as
 * knfsd; issue #30 item 3).
 */
START_TEST(t_read_only_export)
{
	struct nfs42_client *a = client_minor(2);
	const char *name = local_file("rdexp", "0123456789");
	struct nfs42_attrs at = advertised(a, name);
	struct nfs42_file f;

	ck_assert(
		!nfs42_bm_isset(&at.supported_attrs, FATTR4_TIME_DELEG_ACCESS));
	ck_assert(
		!nfs42_bm_isset(&at.supported_attrs, FATTR4_TIME_DELEG_MODIFY));
	ck_assert_msg(
		!nfs42_bm_isset(&at.open_arguments.share_access_want,
				OPEN_ARGS_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS),
		"DELEG_TIMESTAMPS in open_arguments without write delegations");
	ck_assert_msg(
		nfs42_bm_isset(&at.open_arguments.share_access_want,
			       OPEN_ARGS_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION),
		"OPEN_XOR_DELEGATION not in open_arguments with read delegations");
	ck_assert_uint_eq(open_ts(a, name, OPEN4_SHARE_ACCESS_READ, &f),
			  OPEN_DELEGATE_READ);
	give_back(a, &f);
	/* a read delegation instead of an open */
	ck_assert_uint_eq(
		open_ts(a, name,
			OPEN4_SHARE_ACCESS_READ |
				OPEN4_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION,
			&f),
		OPEN_DELEGATE_READ);
	ck_assert(f.rflags & OPEN4_RESULT_NO_OPEN_STATEID);
	give_back(a, &f);
	nfs42_client_free(a);
}
END_TEST

/*
 * An export granting no delegation at all (the "nodeleg" run,
 * Delegations = None): neither 84/85 in supported_attrs nor
 * DELEG_TIMESTAMPS nor OPEN_XOR_DELEGATION in open_arguments (issue #30
 * items 1 and 2: advertised only where OPEN honours them), and an OPEN
 * carrying both wants gets an ordinary open stateid and no delegation.
 */
START_TEST(t_no_deleg_export)
{
	struct nfs42_client *a = client_minor(2);
	const char *name = local_file("nodeleg", "0123456789");
	struct nfs42_attrs at = advertised(a, name);
	struct nfs42_file f;
	char got[16] = { 0 };

	ck_assert_msg(
		!nfs42_bm_isset(&at.supported_attrs, FATTR4_TIME_DELEG_ACCESS),
		"time_deleg_access in supported_attrs without delegations");
	ck_assert_msg(
		!nfs42_bm_isset(&at.supported_attrs, FATTR4_TIME_DELEG_MODIFY),
		"time_deleg_modify in supported_attrs without delegations");
	ck_assert_msg(
		!nfs42_bm_isset(&at.open_arguments.share_access_want,
				OPEN_ARGS_SHARE_ACCESS_WANT_DELEG_TIMESTAMPS),
		"DELEG_TIMESTAMPS in open_arguments without delegations");
	ck_assert_msg(
		!nfs42_bm_isset(&at.open_arguments.share_access_want,
				OPEN_ARGS_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION),
		"OPEN_XOR_DELEGATION in open_arguments without delegations");
	/* the wants accepted and ignored: an open stateid that writes */
	ck_assert_uint_eq(
		open_ts(a, name,
			OPEN4_SHARE_ACCESS_BOTH |
				OPEN4_SHARE_ACCESS_WANT_OPEN_XOR_DELEGATION,
			&f),
		OPEN_DELEGATE_NONE);
	ck_assert(!(f.rflags & OPEN4_RESULT_NO_OPEN_STATEID));
	ck_nfs_ok(a, nfs42_pwrite(&f, "abc", 3, 0, FILE_SYNC4));
	give_back(a, &f);
	e2e_backing_read(name, got, sizeof(got));
	ck_assert_str_eq(got, "abc3456789");
	nfs42_client_free(a);
}
END_TEST

/*
 * A holder that caches: it answers CB_GETATTR with a change attribute
 * past the grant's (it holds modified data), its size, and, when asked
 * for them, its own atime and mtime (RFC 9754 section 5).
 */
struct ts_holder {
	struct nfs42_client *cl;
	uint64_t change, size;
	struct nfs42_time atime, mtime;
	unsigned int asked_times; /* CB_GETATTRs asking for 84 and 85 */
	unsigned int answers;
	bool stop;
	pthread_t thread;
};

static uint32_t ts_holder_answer(struct nfs42_client *cl, void *arg,
				 uint32_t op, struct nfs42_xdr *args,
				 struct nfs42_xdr *res)
{
	struct ts_holder *h = arg;
	struct nfs42_bitmap want, have;
	struct nfs42_xdr vals;
	struct nfs42_fh fh;
	uint32_t st = e2e_cb_getattr_args(op, args, &fh, &want);

	(void)cl;
	if (st != NFS4_OK)
		return st;
	nfs42_bm_clear(&have);
	nfs42_xdr_enc_init(&vals);
	nfs42_bm_set(&have, FATTR4_SIZE);
	if (nfs42_bm_isset(&want, FATTR4_CHANGE)) {
		nfs42_bm_set(&have, FATTR4_CHANGE);
		nfs42_xdr_put_u64(&vals, h->change);
	}
	nfs42_xdr_put_u64(&vals, h->size);
	if (nfs42_bm_isset(&want, FATTR4_TIME_DELEG_ACCESS) &&
	    nfs42_bm_isset(&want, FATTR4_TIME_DELEG_MODIFY)) {
		nfs42_bm_set(&have, FATTR4_TIME_DELEG_ACCESS);
		nfs42_bm_set(&have, FATTR4_TIME_DELEG_MODIFY);
		nfs42_xdr_put_u64(&vals, (uint64_t)h->atime.seconds);
		nfs42_xdr_put_u32(&vals, h->atime.nseconds);
		nfs42_xdr_put_u64(&vals, (uint64_t)h->mtime.seconds);
		nfs42_xdr_put_u32(&vals, h->mtime.nseconds);
		__atomic_add_fetch(&h->asked_times, 1, __ATOMIC_RELAXED);
	}
	nfs42_bitmap_encode(res, &have);
	nfs42_xdr_put_opaque(res, vals.buf, vals.len);
	nfs42_xdr_free(&vals);
	__atomic_add_fetch(&h->answers, 1, __ATOMIC_RELAXED);
	return NFS4_OK;
}

static void *ts_holder_main(void *arg)
{
	struct ts_holder *h = arg;

	while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED))
		if (nfs42_poll(h->cl, 50) < 0)
			break;
	return NULL;
}

/*
 * CB_GETATTR under a WRITE_ATTRS_DELEG delegation asks the holder for 84
 * and 85 too; another client's GETATTR then reports the holder's size
 * and its times (vetted), not the server's clock: the times a second
 * client sees are the writer's.  Under a plain write delegation, 84 and
 * 85 are not asked for.
 */
START_TEST(t_cbgetattr_asks_times)
{
	struct nfs42_client *a = client_minor(2);
	struct nfs42_client *b = client_minor(2);
	const char *name = local_file("cbg", "0123456789");
	const char *pname = local_file("cbgplain", "0123456789");
	struct nfs42_bitmap bm = nfs42_bm_make(FATTR4_CHANGE, FATTR4_SIZE,
					       FATTR4_TIME_ACCESS,
					       FATTR4_TIME_MODIFY, -1);
	struct ts_holder h = { .cl = a, .size = 4096 };
	struct nfs42_attrs at0, at;
	struct nfs42_file f, p;

	ck_assert_uint_eq(open_ts(a, name, OPEN4_SHARE_ACCESS_BOTH, &f),
			  OPEN_DELEGATE_WRITE_ATTRS_DELEG);
	ck_nfs_ok(a, nfs42_getattr_fh(a, &f.fh, &bm, &at0));
	h.change = at0.change + 1;
	h.atime = time_plus(at0.time_access, 1000);
	h.mtime = time_plus(at0.time_modify, 1000);
	nfs42_set_cb_handler(a, ts_holder_answer, &h);
	ck_assert_int_eq(pthread_create(&h.thread, NULL, ts_holder_main, &h),
			 0);

	ck_nfs_ok(b, nfs42_getattr_fh(b, &f.fh, &bm, &at));
	ck_assert_uint_ge(h.answers, 1);
	ck_assert_uint_eq(h.asked_times, h.answers);
	ck_assert_uint_eq(at.size, 4096);
	ck_time_eq(at.time_modify, h.mtime);
	ck_time_eq(at.time_access, h.atime);

	/* a plain write delegation: size and change only */
	ck_assert_uint_eq(open_type(a, pname, OPEN4_SHARE_ACCESS_BOTH, &p),
			  OPEN_DELEGATE_WRITE);
	__atomic_store_n(&h.answers, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h.asked_times, 0, __ATOMIC_RELAXED);
	ck_nfs_ok(b, nfs42_getattr_fh(b, &p.fh, &bm, &at));
	ck_assert_uint_ge(__atomic_load_n(&h.answers, __ATOMIC_RELAXED), 1);
	ck_assert_uint_eq(__atomic_load_n(&h.asked_times, __ATOMIC_RELAXED), 0);

	__atomic_store_n(&h.stop, true, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_join(h.thread, NULL), 0);
	nfs42_set_cb_handler(a, NULL, NULL);
	ck_assert_uint_eq(nfs42_recalls_received(a), 0);
	give_back(a, &p);
	give_back(a, &f);
	nfs42_client_free(b);
	nfs42_client_free(a);
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("e2e_proto_deleg_ts");
	TCase *tc = tcase_create("deleg_ts");

	tcase_set_timeout(tc, 60);
	if (argc > 1 && !strcmp(argv[1], "readdeleg")) {
		tcase_add_test(tc, t_read_only_export);
	} else if (argc > 1 && !strcmp(argv[1], "nodeleg")) {
		tcase_add_test(tc, t_no_deleg_export);
	} else {
		tcase_add_test(tc, t_granted_with_timestamps);
		tcase_add_test(tc, t_setattr_by_holder_only);
		tcase_add_test(tc, t_read_holder_no_times);
		tcase_add_test(tc, t_non_owner_holder);
		tcase_add_test(tc, t_open_arguments_want);
		tcase_add_test(tc, t_cbgetattr_asks_times);
	}
	suite_add_tcase(s, tc);
	return e2e_run(s);
}
