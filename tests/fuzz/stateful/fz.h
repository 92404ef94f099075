/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * fuzz_stateful: a stateful protocol fuzzer for a running metadata server
 * and data server (docs/testing.md, "Stateful protocol fuzzing").
 *
 * A run is a series of sequences.  A sequence is a handful of actors
 * (NFSv4.0, 4.1, 4.2 and NFSv3 clients, each with its own credentials)
 * working on a fresh directory of files, and a list of actions, each
 * named by a 64-bit seed: the action's generator draws everything from
 * its own seed (which actor, which operations, which file handles and
 * stateids, which counts and offsets), choosing among what exists at the
 * time it runs, so that any sublist of a sequence's actions still runs
 * (the minimizer relies on it).  Invariants are checked after each action
 * and at the end of each sequence; a sequence that breaks one is a
 * finding, written as a trace (sequence seed + action seeds) that
 * `fuzz_stateful --replay FILE` runs again.
 */
#ifndef FZ_H
#define FZ_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "nfs42.h"
#include "nfs3_test.h"

/*
 * What a trace means depends on the generator: an action's seed is
 * turned into operations by this code.  Bump it with every change that
 * makes a seed generate something else; a trace of another generator
 * still runs, with a warning (tests/fuzz/stateful/regress/README).
 */
#define FZ_GENERATOR 1

#define FZ_MAX_ACTORS 6
#define FZ_MAX_FILES 12
#define FZ_MAX_SIDS 512
#define FZ_MAX_DSFH 32
#define FZ_MAX_ACTIONS 4096
#define FZ_MAX_RECORDED 16
#define FZ_MAX_OPEN_OWNERS 4

/* splitmix64: one state word, any sublist of seeds replays alike */
struct fz_rng {
	uint64_t s;
};

uint64_t fz_next(struct fz_rng *r);
uint64_t fz_mix(uint64_t a, uint64_t b);
uint32_t fz_below(struct fz_rng *r, uint32_t n);
bool fz_chance(struct fz_rng *r, unsigned int percent);
/* counts, offsets and lengths: ordinary ones, boundaries (0, 1, 2^k +- d,
 * the type's maximum - d) and anything */
uint32_t fz_u32(struct fz_rng *r);
uint64_t fz_u64(struct fz_rng *r);
/* an index among weights[0..n) */
unsigned int fz_weighted(struct fz_rng *r, const unsigned int *weights,
			 unsigned int n);

enum fz_kind { FZ_V40, FZ_V41, FZ_V42, FZ_V3, FZ_NKINDS };

enum fz_sid_kind {
	SK_OPEN,
	SK_LOCK,
	SK_DELEG,
	SK_LAYOUT,
	SK_COPY,
	SK_SPECIAL,
	SK_NKINDS
};

struct fz_sid {
	struct nfs42_stateid sid;
	uint8_t kind; /* enum fz_sid_kind */
	int8_t actor; /* -1: special */
	int8_t file; /* -1: not known */
	uint32_t access; /* OPEN: share access; DELEG: type; LAYOUT: iomode */
	uint32_t deny; /* OPEN: share deny */
	uint32_t incarnation; /* of its actor's client */
	int8_t owner; /* an NFSv4.0 open's open owner (index), -1 one we
		       * do not follow */
	bool gone; /* closed, returned, freed (as far as we know) */
};

struct fz_file {
	char name[32];
	bool dir;
	bool have_fh;
	struct nfs42_fh fh;
	struct nfs3_fh fh3;
	bool have_fh3;
	ino_t ino; /* the object the handles name (a later one of the same
		    * name is not it) */
	bool local_chmod; /* its mode changed behind the server: what the
			   * server's attribute cache holds may be older */
};

struct fz_actor {
	int id;
	enum fz_kind kind;
	uint32_t uid, gid;
	char owner[96];
	uint32_t incarnation; /* bumped by each new client (verifier) */
	struct nfs42_client *cl; /* NFSv4.x */
	struct nfs42_client *ds; /* its data-server session */
	struct nfs3_conn v3;
	bool v3_up;
	/* callbacks: 0 answered, 1 dropped, 2 failed, 3 garbage, 4 late
	 * (not read until this actor acts again) */
	int cb_mode;
	bool polite_end; /* returns its delegations before it goes */
	double down_until; /* a restart timed out: rest until then */
	/* NFSv4.0 */
	bool v40_up;
	uint64_t clientid40;
	uint32_t owner_seqid[FZ_MAX_OPEN_OWNERS];
	/* the owner's seqid is known to be owner_seqid - 1 at the server:
	 * cleared by a request whose effect on it is not known (no reply, a
	 * status the server may answer before or after its seqid check),
	 * set again by one answered NFS4_OK */
	bool owner_seqid_known[FZ_MAX_OPEN_OWNERS];
	bool owner_confirmed[FZ_MAX_OPEN_OWNERS];
	/* each open owner's last request that moved its seqid, whose reply
	 * the server keeps and sends again to a request with that seqid
	 * (RFC 7530 9.1.7): its seqid, operation, status and, for an OPEN
	 * answered NFS4_OK, the open stateid */
	struct fz_v40_reply {
		bool valid;
		uint32_t seqid, op, status;
		struct nfs42_stateid sid;
	} owner_reply[FZ_MAX_OPEN_OWNERS];
	uint32_t lock_seqid;
};

/* A stateful op of the compound being built, to learn from its result. */
struct fz_rec {
	int idx; /* result index */
	uint32_t op;
	int file; /* the file it works on, -1 not known */
	uint32_t a, b; /* OPEN: access, claim; LOCK: type; LAYOUTGET: iomode;
			* OPEN_DOWNGRADE: access, deny */
	uint32_t deny; /* OPEN: share deny */
	int claim_sid; /* OPEN: the delegation stateid claimed (pool), or -1 */
	char sid_desc[128]; /* sid -1: what it was */
	int sid_owner; /* whose stateid it is (or was, changed), -1 none */
	int sid; /* pool index of the stateid used, -1 special/forged */
	int owner; /* OPEN: open-owner index (4.0 seqids) */
	bool own_owner; /* OPEN: the owner is the actor's own "o<id>.<owner>" */
	bool lock_new_owner; /* LOCK: open_to_lock_owner4 (seqid: open_seqid) */
	uint32_t seqid; /* NFSv4.0 open-owner operations: the seqid sent */
	bool created; /* OPEN may create */
	int getfh; /* OPEN by name: the GETFH after it, which tells the file */
	bool modifies; /* data or size of file changed when it succeeds */
	bool attr_change; /* other attributes changed */
};

struct fz_cfg {
	const char *host;
	uint16_t port, ds_port, mnt_port;
	const char *backing; /* the export's directory on local disk */
	const char *export; /* its pseudo path */
	const char *logs[4]; /* server stdout/stderr files (sanitizers) */
	const char *glogs[4]; /* Ganesha logs (FATAL lines) */
	unsigned int nlogs, nglogs;
	const char *pid_files[4];
	unsigned int npids;
	const char *ctl; /* the harness's server control script */
	const char *out_dir; /* findings and traces */
	uint64_t seed;
	long sequence; /* only this one (-1: all) */
	double seconds; /* time budget */
	long max_sequences;
	unsigned int actions; /* per sequence */
	bool keep_going; /* restart the servers after a finding */
	bool minimize;
	const char *replay;
	bool verbose;
	bool check_attr_recall; /* #27 item 4: attribute changes recall */
	bool check_ds_writes; /* #26 item 4: data-server writes */
	bool no_v3, no_v40;
	int timeout_ms;
	const char *known[16]; /* --known: findings passed over */
	unsigned int nknown;
};

struct fz_stats {
	uint64_t sequences, actions, compounds, ops, callbacks;
	uint64_t findings, reconnects, drops, known;
	uint64_t op_count[80]; /* generated */
	uint64_t op_ok[80]; /* answered NFS4_OK */
	/* protocol coverage: (op, status) and (op, stateid kind, status) */
	uint8_t pairs[8192];
	unsigned int npairs, ntriples;
	uint8_t triples[16384];
};

struct fz_seq {
	struct fz_cfg *cfg;
	struct fz_stats *st;
	uint64_t seed;
	long index;
	char dir[32]; /* "sN": the sequence's directory in the export */
	char backing_dir[PATH_MAX];
	struct nfs42_fh dir_fh, root_fh;
	struct fz_actor actors[FZ_MAX_ACTORS];
	unsigned int nactors;
	struct fz_file files[FZ_MAX_FILES];
	unsigned int nfiles, nregular; /* regular files first */
	struct fz_sid sids[FZ_MAX_SIDS];
	unsigned int nsids;
	struct nfs42_fh dsfh[FZ_MAX_DSFH];
	int dsfh_file[FZ_MAX_DSFH];
	unsigned int ndsfh;
	uint8_t devid[NFS4_DEVICEID4_SIZE];
	bool have_devid;
	/* set by the first invariant that breaks */
	char finding[1024];
	char finding_kind[32];
	bool new_coverage;
	bool destroy_failed; /* some client could not be destroyed */
	bool tearing_down;
};

/* fz_run.c: actions */
int fz_seq_setup(struct fz_seq *s);
void fz_seq_action(struct fz_seq *s, uint64_t action_seed);
void fz_seq_teardown(struct fz_seq *s);
/* fz_check.c: invariants */
void fz_find(struct fz_seq *s, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool fz_servers_alive(struct fz_seq *s);
void fz_check_logs(struct fz_seq *s);
void fz_logs_mark(struct fz_cfg *cfg);
void fz_check_after_write(struct fz_seq *s, struct fz_actor *a, int file,
			  int sid, const char *sid_desc, const char *what,
			  bool created);
void fz_check_after_read_open(struct fz_seq *s, struct fz_actor *a, int file);
void fz_check_after_grant(struct fz_seq *s, struct fz_actor *a, int file,
			  uint32_t type);
void fz_check_after_attr(struct fz_seq *s, struct fz_actor *a, int file,
			 const char *what);
void fz_check_end(struct fz_seq *s);
void fz_check_responsive(struct fz_seq *s);
void fz_note(struct fz_seq *s, uint32_t op, int sid_kind, uint32_t status);
/* helpers shared by the two */
bool fz_actor_v4(const struct fz_actor *a);
double fz_now_s(void);
int fz_actor_connect(struct fz_seq *s, struct fz_actor *a, bool new_client);
void fz_actor_close(struct fz_seq *s, struct fz_actor *a, bool destroy);
int fz_actor_ds(struct fz_seq *s, struct fz_actor *a,
		struct nfs42_client **out);
void fz_actor_drop(struct fz_seq *s, struct fz_actor *a);
int fz_file_by_fh(const struct fz_seq *s, const struct nfs42_fh *fh);
void fz_backing_path(const struct fz_seq *s, int file, char *buf, size_t size);
int fz_add_sid(struct fz_seq *s, const struct nfs42_stateid *sid, int kind,
	       int actor, int file, uint32_t access, uint32_t deny);
void fz_log(struct fz_seq *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* FZ_H */
