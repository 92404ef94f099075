/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* Internals of the nfs42c library, shared by its files and unit tests. */
#ifndef NFS42_INTERNAL_H
#define NFS42_INTERNAL_H

#include <pthread.h>

#include "nfs42.h"

#define NFS42_MAX_RECORD (64u << 20) /* largest reply record we accept */
#define NFS42_MAX_SLOTS 64
#define NFS42_CB_SLOTS 4
#define NFS42_MAX_OPS_DEFAULT 16

#define RPC_CALL 0
#define RPC_REPLY 1
#define RPC_MSG_ACCEPTED 0
#define RPC_MSG_DENIED 1
#define RPC_SUCCESS 0
#define RPC_PROG_UNAVAIL 1
#define RPC_PROG_MISMATCH 2
#define RPC_PROC_UNAVAIL 3
#define RPC_GARBAGE_ARGS 4
#define RPC_SYSTEM_ERR 5
#define RPC_AUTH_NONE 0
#define RPC_AUTH_SYS 1

struct nfs42_pending {
	uint32_t xid;
	bool done;
	uint8_t *buf;
	size_t len;
	int64_t deadline; /* for the reply (nfs42_rpc_start) */
	struct nfs42_pending *next;
};

struct nfs42_slot {
	uint32_t seqid; /* last seqid used successfully */
	bool busy;
	bool poisoned; /* reply lost: state unknown, never reuse */
};

#define NFS42_MAX_LAYOUTS 64
#define NFS42_MAX_DS_CONN 64

/* A layout held (pnfs.c): returned when recalled and not busy. */
struct nfs42_held_layout {
	struct nfs42_fh fh;
	struct nfs42_stateid stateid;
	uint32_t iomode; /* LAYOUTIOMODE4_READ | _RW: the ones held */
	bool recalled;
	unsigned int busy; /* transfers using it */
};

/* Sessions to data servers, by universal address (own lock; taken after
 * the client's, never before). */
struct nfs42_ds_pool {
	pthread_mutex_t lock;
	unsigned int n;
	struct {
		char uaddr[64];
		struct nfs42_client *cl;
	} conn[NFS42_MAX_DS_CONN];
};

struct nfs42_client {
	int fd;
	char peer[300];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_mutex_t send_lock;
	bool reader_busy;
	int dead_err; /* connection unusable when != 0 */
	struct nfs42_pending *pending;
	uint32_t next_xid;

	/* credentials (under lock) */
	enum nfs42_auth auth;
	uint32_t uid, gid, ngids;
	uint32_t gids[NFS42_MAX_GIDS];
	char machinename[256];
	int connect_timeout_ms;
	int timeout_ms;
	char errmsg[512];

	/* session */
	char owner_id[256];
	uint8_t verifier[NFS4_VERIFIER_SIZE];
	uint32_t minorversion;
	uint32_t slots_wanted;
	bool want_back_channel;
	bool have_clientid;
	bool have_session;
	uint64_t clientid;
	uint32_t cs_seqid;
	uint8_t sessionid[NFS4_SESSIONID_SIZE];
	struct nfs42_slot slots[NFS42_MAX_SLOTS];
	uint32_t nslots;
	pthread_cond_t slot_cond;
	uint32_t maxreq, maxresp, maxops;
	uint64_t owner_seq;

	/* backchannel */
	uint32_t cb_program;
	nfs42_cb_fn cb_fn;
	void *cb_arg;
	uint32_t cb_nslots;
	uint32_t cb_seqid[NFS42_CB_SLOTS];
	uint64_t cb_calls;
	int cb_last_flavor; /* credential flavour of the last callback */
	/* nfs42_set_cb_filter(): misbehaviour asked for, per callback;
	 * cb_fail_status for NFS42_CB_FAIL_OPS (set while one is served) */
	nfs42_cb_filter_fn cb_filter;
	void *cb_filter_arg;
	uint32_t cb_fail_status;
	bool cb_failing;
	/* tests: more results than ops in each CB_COMPOUND reply (cb.c) */
	uint32_t cb_extra_results;

	/* CB_RECALLs received and not yet taken (under lock); deleg.c */
	struct nfs42_recall recalls[NFS42_MAX_RECALLS];
	unsigned int nrecalls;
	uint64_t recalls_seen;

	/* Delegations granted and not returned yet (under lock), returned
	 * when recalled (unless keep_recalls) and before the session goes;
	 * deleg.c.  returning: a thread is returning some (no nesting). */
	struct nfs42_held_deleg held[NFS42_MAX_HELD_DELEGS];
	unsigned int nheld;
	bool keep_recalls;
	bool returning;
	/* CB_GETATTR (deleg.c): answered by the library unless false */
	bool no_cb_getattr;
	uint64_t cb_getattrs;

	/* pNFS (pnfs.c): the roles asked and given by EXCHANGE_ID; the
	 * layouts held (under lock); the data-server sessions. */
	uint32_t exchgid_flags, server_exchgid_flags;
	struct nfs42_held_layout layouts[NFS42_MAX_LAYOUTS];
	unsigned int nlayouts;
	uint64_t layout_recalls;
	struct nfs42_ds_pool *ds_pool;

	/* COMPOUNDs sent, and the ops in them (atomic: several threads
	 * send on one client) */
	uint64_t calls_sent;
	uint64_t ops_sent[NFS42_OPS_COUNTED];
};

struct nfs42_arena {
	struct nfs42_arena *next;
	max_align_t data[];
};

/*
 * A compound's operations that change a file's size or data, for the
 * write delegations held on it (deleg.c): noted when encoded, counted as
 * in flight while sent, applied to the delegation from their results.
 */
#define NFS42_MAX_DELEG_EFFECTS 8
struct nfs42_deleg_effect {
	int idx; /* the operation's index among the compound's results */
	uint32_t op;
	bool fh_known; /* fh is the current filehandle it works on */
	bool counted; /* found a write delegation when sent: deleg */
	bool unsure; /* its effect on the size cannot be told before */
	struct nfs42_stateid deleg;
	struct nfs42_fh fh;
	uint64_t offset, length; /* WRITE, ALLOCATE, COPY, CLONE: range;
				  * SETATTR: the new size (offset);
				  * LAYOUTCOMMIT: the last byte written */
};

struct nfs42_compound {
	struct nfs42_client *cl;
	char tag[64];
	uint32_t minorversion;
	bool no_seq, no_retry, cachethis;
	struct nfs42_xdr ops; /* encoded user ops */
	uint32_t *opnums;
	unsigned int nops, capops;
	int enc_err;

	/* results (index 0 may be the automatic SEQUENCE) */
	bool seq_sent;
	struct nfs42_res *res;
	unsigned int nres;
	uint8_t *reply;
	struct nfs42_arena *arena;

	/* the current and saved filehandles as encoded (PUTFH, SAVEFH,
	 * RESTOREFH; unknown after LOOKUP, OPEN and the like), and the
	 * operations changing files under them (deleg.c) */
	struct nfs42_fh cur_fh, saved_fh;
	bool cur_fh_known, saved_fh_known;
	struct nfs42_deleg_effect effects[NFS42_MAX_DELEG_EFFECTS];
	unsigned int neffects;
	bool effects_lost; /* more than NFS42_MAX_DELEG_EFFECTS */

	/* in flight (nfs42_compound_start .. _finish) */
	struct nfs42_pending *inflight;
	uint32_t slot;
	bool slot_taken, use_seq;
	int start_err;
};

/* delegations (deleg.c); type is the OPEN's delegation type (RFC 9754's
 * _ATTRS_DELEG types too: the timestamps are the holder's) */
void nfs42_deleg_granted(struct nfs42_client *cl, const struct nfs42_fh *fh,
			 const struct nfs42_stateid *sid, uint32_t type,
			 const struct nfs42_attrs *at);
void nfs42_return_recalled(struct nfs42_client *cl);
uint32_t nfs42_cb_getattr(struct nfs42_client *cl, struct nfs42_xdr *args,
			  struct nfs42_xdr *res);
/* encoders: the current filehandle moved (fh NULL: to one not known
 * here) or was saved/restored; an operation changing the file */
void nfs42_deleg_note_fh(struct nfs42_compound *c, uint32_t op,
			 const struct nfs42_fh *fh);
void nfs42_deleg_note_change(struct nfs42_compound *c, int idx, uint32_t op,
			     uint64_t offset, uint64_t length);
/* an operation whose effect on the file's size cannot be told */
#define NFS42_DELEG_EFFECT_UNKNOWN 0xffffffffu
/* nfs42_op_raw(): what its opnum may do to the current filehandle and
 * the file */
void nfs42_deleg_note_raw(struct nfs42_compound *c, int idx, uint32_t op);
/* a compound sent (its changes in flight) and answered (rc: its status;
 * results decoded when there are any) */
void nfs42_deleg_io_begin(struct nfs42_compound *c);
void nfs42_deleg_io_end(struct nfs42_compound *c, int rc);

/* errors */
void nfs42_set_error(struct nfs42_client *cl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* record marking */
int nfs42_rm_send(int fd, const void *buf, size_t len, int timeout_ms);
int nfs42_rm_recv(int fd, int timeout_ms, size_t maxlen, uint8_t **buf,
		  size_t *len, bool *partial);

/* RPC */
void nfs42_rpc_encode_call(struct nfs42_client *cl, struct nfs42_xdr *x,
			   uint32_t xid, uint32_t proc);
/* The same call header for any program and version. */
void nfs42_rpc_encode_call_to(struct nfs42_client *cl, struct nfs42_xdr *x,
			      uint32_t xid, uint32_t prog, uint32_t vers,
			      uint32_t proc);
uint32_t nfs42_next_xid(struct nfs42_client *cl);
/* Send x (starting with a 4-byte record mark slot) and wait for the reply
 * with the same xid.  On success *reply is malloc'ed and *body points to
 * the procedure results inside it. */
int nfs42_rpc_call(struct nfs42_client *cl, struct nfs42_xdr *x, uint32_t xid,
		   uint8_t **reply, size_t *len, size_t *body);
/* The same in two halves, so that a thread can have several calls in
 * flight: _start registers and sends (NULL and *err on failure), _finish
 * waits for that reply (serving callbacks and other replies meanwhile),
 * checks it and frees the pending entry. */
struct nfs42_pending *nfs42_rpc_start(struct nfs42_client *cl,
				      struct nfs42_xdr *x, uint32_t xid,
				      int *err);
int nfs42_rpc_finish(struct nfs42_client *cl, struct nfs42_pending *p,
		     uint8_t **reply, size_t *len, size_t *body);
/* Check an RPC reply header; sets *body to the results offset. */
int nfs42_rpc_check_reply(struct nfs42_client *cl, const uint8_t *buf,
			  size_t len, uint32_t xid, size_t *body);

/* backchannel: process one CALL record, fill the reply record (with a
 * record mark slot).  Returns 0, or < 0 if nothing should be sent. */
int nfs42_cb_process(struct nfs42_client *cl, const uint8_t *buf, size_t len,
		     struct nfs42_xdr *reply);

/* CB_RECALL: decode args, queue the recall; returns the op status. */
uint32_t nfs42_cb_recall(struct nfs42_client *cl, struct nfs42_xdr *args);
/* CB_LAYOUTRECALL (pnfs.c): mark the layouts it names recalled. */
uint32_t nfs42_cb_layoutrecall(struct nfs42_client *cl, struct nfs42_xdr *args);
/* After a compound: LAYOUTRETURN the recalled layouts nobody uses. */
void nfs42_return_recalled_layouts(struct nfs42_client *cl);
/* At client free: the data-server sessions. */
void nfs42_ds_pool_free(struct nfs42_client *mds);

/* compound internals */
void *nfs42_arena_alloc(struct nfs42_compound *c, size_t size);
int nfs42_decode_res(struct nfs42_compound *c, struct nfs42_xdr *x,
		     struct nfs42_res *r);
void nfs42_encode_stateid(struct nfs42_xdr *x, const struct nfs42_stateid *s);
bool nfs42_decode_stateid(struct nfs42_xdr *x, struct nfs42_stateid *s);

/* session slots */
int nfs42_slot_get(struct nfs42_client *cl, uint32_t *slot, uint32_t *seqid,
		   uint32_t *highest);
void nfs42_slot_put(struct nfs42_client *cl, uint32_t slot, bool consumed,
		    bool poison);

int64_t nfs42_now_ms(void);
/* The next data extent [*d, *h) of f at or after off, clipped to size
 * (SEEK on f's server); *d == size when there is none.  Without SEEK
 * (NFSv4.1, NOTSUPP) all of [off, size) is data.  fs.c */
int nfs42_next_data(struct nfs42_file *f, uint64_t off, uint64_t size,
		    uint64_t *d, uint64_t *h);

#endif /* NFS42_INTERNAL_H */
