/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42, the command-line front end of the nfs42c library: what the verb
 * files (one per group of verbs) share with the core (main.c: global
 * options and the session; args.c: the synopsis rules and help;
 * output.c: errors and formatting; progress.c: cp --async's progress).
 *
 * Exit codes: 0 ok, 1 NFS error, 2 usage, 3 connection/transport error.
 */
#ifndef NFS42_CLI_H
#define NFS42_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nfs42.h"

#define EXIT_NFS 1
#define EXIT_USAGE 2
#define EXIT_TRANSPORT 3

/* The session every verb works in (main.c). */
extern struct nfs42_client *g_cl;

/*
 * A verb's arguments, matched against its synopsis before connecting (see
 * match_args()): the words standing for upper-case names and choices in
 * order, the options given (the word after -x, or -x itself for a flag),
 * and the values of MODE and of SIZE or OFFSET.
 */
struct args {
	const char *word[4];
	int nwords;
	const char *opt[26]; /* by letter: opt['m' - 'a'] for -m */
	uint32_t mode;
	uint64_t num;
	uint32_t depth; /* DEPTH, 0 if not given */
	char bad_item[32]; /* the synopsis item a word did not fit */
	/* what a verb's prepare() got ready before connecting */
	int local_fd; /* put: LOCALFILE, open (-1: none) */
	bool local_stream; /* read in order to its end (no seek) */
	uint32_t local_mode; /* its permission bits */
	uint8_t *value; /* xattr set: VALUE, or the bytes of @FILE */
	uint32_t value_len;
};

#define OPT(a, c) ((a)->opt[(c) - 'a'])
#define DEPTH_DEFAULT 8
#define DEPTH_MAX 64

/*
 * A verb: its name, handler, usage line and what it does.  The synopsis
 * is also the shape the arguments must have, checked before connecting
 * (match_args()).  prepare (may be NULL) runs after that, still before
 * connecting: local files, option combinations; 0 or the exit code.
 */
struct verb {
	const char *name;
	int (*run)(struct nfs42_opts *o, const struct args *args);
	const char *synopsis;
	const char *help;
	int (*prepare)(struct args *args);
};

/* verbs.c: the table */
extern const struct verb cli_verbs[];
extern const size_t cli_nverbs;

/* args.c: the arguments against the synopsis, usage and help */
void usage(FILE *f);
const struct verb *check_verb(int argc, char **argv, struct args *a);
void args_free(struct args *a);
int cmd_help(int argc, char **argv);

/* output.c: errors (each returns the exit code) and formatting */
int fail(const char *what, int rc);
int fail_copy(const char *src, const char *dst, enum nfs42_copy_failed failed,
	      int rc);
int fail_xattr(const char *path, const char *name, int rc);
const char *type_name(uint32_t type);
void mode_string(const struct nfs42_attrs *a, char *s);
void time_string(const struct nfs42_time *t, char *buf, size_t sz);
void time_string_full(const struct nfs42_time *t, char *buf, size_t sz);
void addr_string(const struct nfs42_netaddr *a, char *buf, size_t sz);

/*
 * A local output file (cat -o, xattr get -o): written to a temporary
 * beside it, renamed over it by out_commit() once all is there, removed
 * by out_abort(): a failure leaves FILE as it was.  A FILE that exists
 * and is not a regular file (a device, a FIFO) is written in place; NULL
 * is stdout.  out_open() and out_commit() return 0 or EXIT_USAGE (told).
 */
struct out_file {
	const char *path; /* as given; NULL: stdout */
	char *target; /* the file replaced (a symbolic link followed) */
	char *tmp; /* the temporary; NULL when written in place */
	int fd; /* where to write */
};
int out_open(struct out_file *o, const char *path);
int out_commit(struct out_file *o);
void out_abort(struct out_file *o);

/* dir/NAME of path; dst, or dst/NAME of src where dst is a directory on
 * the server (cp, put) */
const char *in_dir(char *buf, size_t sz, const char *dir, const char *path);
const char *remote_dest(char *buf, size_t sz, const char *dst, const char *src);

/* --stats: the round trips of the verb (from trips_mark(), called by
 * main before the verb runs), by operation, on stderr */
void trips_mark(void);
void trips_print(const char *verb);

/* progress.c: cp --async's progress on stderr */
struct progress;
struct progress *progress_new(const char *src);
void progress_show(void *arg, uint64_t done, uint64_t total);
void progress_end(struct progress *p, bool went_async);

/* The verbs, by group: info.c */
int cmd_ping(struct nfs42_opts *o, const struct args *args);
int cmd_ls(struct nfs42_opts *o, const struct args *args);
int cmd_stat(struct nfs42_opts *o, const struct args *args);
/* read.c */
int cmd_cat(struct nfs42_opts *o, const struct args *args);
int cmd_get(struct nfs42_opts *o, const struct args *args);
int cmd_map(struct nfs42_opts *o, const struct args *args);
int cmd_seek(struct nfs42_opts *o, const struct args *args);
/* put.c */
int prepare_put(struct args *a);
int cmd_put(struct nfs42_opts *o, const struct args *args);
/* layout.c: the layout verb, and the pNFS paths of cat and put */
int cmd_layout(struct nfs42_opts *o, const struct args *args);
int cat_pnfs(struct nfs42_file *f, const char *path,
	     const struct nfs42_stream_opts *so, int fd, bool stats);
int put_pnfs(const char *path, int fd, uint32_t mode, bool stats);
/* names.c */
int cmd_mkdir(struct nfs42_opts *o, const struct args *args);
int cmd_rm(struct nfs42_opts *o, const struct args *args);
int cmd_rmdir(struct nfs42_opts *o, const struct args *args);
int cmd_mv(struct nfs42_opts *o, const struct args *args);
int prepare_ln(struct args *a);
int cmd_ln(struct nfs42_opts *o, const struct args *args);
int cmd_readlink(struct nfs42_opts *o, const struct args *args);
int cmd_truncate(struct nfs42_opts *o, const struct args *args);
int cmd_chmod(struct nfs42_opts *o, const struct args *args);
/* copy.c */
int prepare_cp(struct args *a);
int cmd_cp(struct nfs42_opts *o, const struct args *args);
/* xattr.c */
int cmd_xattr_get(struct nfs42_opts *o, const struct args *args);
int prepare_xattr_set(struct args *a);
int cmd_xattr_set(struct nfs42_opts *o, const struct args *args);
int cmd_xattr_ls(struct nfs42_opts *o, const struct args *args);
int cmd_xattr_rm(struct nfs42_opts *o, const struct args *args);

#endif /* NFS42_CLI_H */
