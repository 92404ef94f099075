/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* The fuzzer's compound generator (fz_ops.c), used by fz_run.c. */
#ifndef FZ_GEN_H
#define FZ_GEN_H

#include "fz.h"

/* g->cur / g->saved: the sequence's directory */
#define FZ_DIR 100

struct fz_gen {
	struct fz_seq *s;
	struct fz_stats *st;
	struct fz_actor *a;
	struct fz_rng *r;
	struct nfs42_compound *c;
	int cur, saved; /* file index, FZ_DIR, or -1 not known */
	/* a well-formed compound mostly (valid handles, the actor's own
	 * stateids, ordinary claims and modes), so that the operations
	 * after the first are reached and state is made; otherwise wild */
	bool sane;
	/* the compound's minor version, when not the actor's own (now and
	 * then a wild one's) */
	bool other_minor;
	uint32_t minor;
	bool opened_cur; /* an OPEN of the current file is in the compound */
	char pick_desc[128]; /* the last stateid picked, when not a pool one */
	int pick_owner; /* the actor whose stateid it is (or was, changed) */
	struct fz_rec rec[FZ_MAX_RECORDED];
	unsigned int nrec;
};

uint32_t fz_pick_op(struct fz_gen *g, uint32_t minor);
void fz_gen_op(struct fz_gen *g, uint32_t op);
void fz_gen_open(struct fz_gen *g);
void fz_gen_open_cur(struct fz_gen *g);
void fz_pick_fh(struct fz_gen *g, struct nfs42_fh *fh, int *file);
int fz_pick_sid(struct fz_gen *g, int file, unsigned int kinds,
		struct nfs42_stateid *out);
const char *fz_pick_name(struct fz_gen *g, int *file);
struct fz_rec *fz_record(struct fz_gen *g, int idx, uint32_t op, int file);
uint64_t boundary_pick(struct fz_gen *g);
bool fz_file_exists(const struct fz_seq *s, int file);

#endif /* FZ_GEN_H */
