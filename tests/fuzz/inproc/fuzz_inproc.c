/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * In-process, coverage-guided fuzzer of the NFS server (docs/testing.md,
 * "In-process coverage-guided fuzzing"): Ganesha (libganesha_nfsd.so, built
 * with clang's libFuzzer coverage, ASan and UBSan by scripts/build.sh
 * --fuzz) is started inside this process once, as ganesha.nfsd's main()
 * starts it, with one FSAL_SPARSE export over a temporary directory and
 * delegations on.  Each input is a short sequence of RPC calls; each call is
 * given to Ganesha's own request dispatch (nfs_rpc_valid_NFS: credentials,
 * argument decoding, export and client checks, the duplicate request cache,
 * nfs4_Compound and every operation down to FSAL_SPARSE, the reply encoded
 * and sent) on a real ntirpc transport over a loopback TCP connection that
 * this process owns at both ends.  Replies are read back from the client
 * end and the server-chosen values in them (client IDs, session IDs,
 * stateids, SETCLIENTID verifiers) are remembered, so that later calls of
 * the same input can name them through placeholders.  After every input,
 * every client ID is expired and the export directory emptied: state does
 * not grow across inputs, and an input replays the same way.
 *
 * Input: records, each
 *   u8 conn   bit 0: connection (0 from 127.0.0.1, 1 from 127.0.0.2);
 *             bit 1: the connection is dropped and opened again first
 *   u8 cred   0 AUTH_SYS root, 1 AUTH_SYS uid/gid 1000, 2 AUTH_SYS 65534,
 *             3 AUTH_NONE
 *   u8 proc   bit 7: NFSv3 (else NFSv4); bits 0-6: the procedure
 *   u8 flags  (reserved)
 *   u16 len   big-endian length of the arguments
 *   len bytes the procedure's XDR arguments
 * Placeholders in the arguments: 0xFA 0xCE T N, T one of 'C' (client ID,
 * 8 bytes), 'V' (SETCLIENTID verifier, 8 bytes), 'S' (session ID, 16
 * bytes), 'T' (the "other" of a stateid, 12 bytes), is replaced, with the
 * bytes that follow, by the (N modulo count)-th value of that kind seen in
 * a reply of this input; 'F' (a file handle) is replaced, alone, by the
 * XDR of the (N modulo count)-th handle a GETFH returned (an nfs_fh4, which
 * is also an NFSv3 nfs_fh3: Ganesha's handles are the same for both).
 *
 * The process isolates itself first (root: a network namespace of its own
 * with only the loopback interface): the addresses that inputs give for
 * NFSv4.0 callbacks can reach nothing outside it.  Ganesha registers
 * nothing with rpcbind (svc_reg and rpcb_unset below stand in for
 * ntirpc's), so NFSv3 runs without one.
 *
 * FUZZ_INPROC_TRACE=1 in the environment prints every call and the status
 * of its reply (each operation's for a COMPOUND) on stderr;
 * FUZZ_INPROC_LOG=FILE keeps Ganesha's log in FILE (else in the temporary
 * directory, removed at exit), FUZZ_INPROC_LOG_LEVEL=EVENT (or other) sets
 * its level (default CRIT).
 */

#include "config.h"
#include <arpa/inet.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsal.h"
#include "log.h"
#include "gsh_rpc.h"
#include "nfs_init.h"
#include "nfs_core.h"
#include "nfs_exports.h"
#include "nfs_proto_data.h"
#include "nfs_proto_functions.h"
#include "nfs_dupreq.h"
#include "pnfs_utils.h"
#include "config_parsing.h"
#include "conf_url.h"
#include "sal_data.h"
#include "sal_functions.h"
#include "xprt_handler.h"
#include "connection_manager.h"
#include "hashtable.h"
#include "export_mgr.h"
#include "fsal_up.h"

/* What ganesha.nfsd's nfs_main.c defines for the library. */
config_file_t nfs_config_struct;
char *nfs_host_name = "localhost";
bool config_errors_fatal;

#define FZ_MAX_RECORDS 16
#define FZ_MAX_VALUES 8
#define FZ_MAX_REPLY (4 * 1024 * 1024)

enum fz_kind {
	FZ_CLIENTID,
	FZ_VERIFIER,
	FZ_SESSION,
	FZ_STATEID,
	FZ_HANDLE,
	FZ_KINDS
};

/* len: the bytes a placeholder of that kind stands for (0: only the four
 * of the placeholder, replaced by a value of its own length)
 */
static const struct {
	char tag;
	size_t len;
} fz_kinds[FZ_KINDS] = {
	[FZ_CLIENTID] = { 'C', sizeof(clientid4) },
	[FZ_VERIFIER] = { 'V', NFS4_VERIFIER_SIZE },
	[FZ_SESSION] = { 'S', NFS4_SESSIONID_SIZE },
	[FZ_STATEID] = { 'T', OTHERSIZE },
	[FZ_HANDLE] = { 'F', 0 },
};

/* The XDR of an nfs_fh4: its length word, the handle, the padding. */
#define FZ_MAX_VAL (4 + NFS4_FHSIZE)

/* The server-chosen values seen in this input's replies. */
static struct {
	unsigned int count;
	char val[FZ_MAX_VALUES][FZ_MAX_VAL];
	size_t len[FZ_MAX_VALUES];
} fz_seen[FZ_KINDS];

static bool fz_trace;

struct fz_conn {
	const char *src; /* the client's address */
	int cfd; /* our client end */
	SVCXPRT *xprt; /* Ganesha's end: ntirpc's transport */
	size_t have; /* bytes in rbuf: the start of a record not yet whole */
	char *rbuf; /* what the server wrote, FZ_MAX_REPLY bytes */
};

static struct fz_conn fz_conns[2] = {
	{ .src = "127.0.0.1", .cfd = -1 },
	{ .src = "127.0.0.2", .cfd = -1 },
};
static int fz_listen_fd = -1;
static char fz_dir[PATH_MAX]; /* $TMPDIR/fuzz_inproc.XXXXXX */
static char fz_export[PATH_MAX];
static uint32_t fz_xid;
static nfs_start_info_t fz_start_info = { .dump_default_config = false,
					  .lw_mark_trigger = false,
					  .drop_caps = false };

static void fz_die(const char *what)
{
	fprintf(stderr, "fuzz_inproc: %s: %s\n", what, strerror(errno));
	abort();
}

/* A network namespace of our own, its loopback interface up: what the
 * server does with the addresses an input names (NFSv4.0 callbacks) stays
 * inside this process's namespace.
 */
static void fz_isolate(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	if (unshare(CLONE_NEWNET) < 0) {
		fprintf(stderr,
			"fuzz_inproc: needs root (a network namespace of its own): %s\n",
			strerror(errno));
		exit(77);
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		fz_die("lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		fz_die("lo up");
	close(fd);
}

/* ntirpc's svc_reg and rpcb_unset, as Ganesha's start-up calls them: no
 * rpcbind is asked (none runs in our namespace, and NFSv3's registration
 * failing stops Ganesha).  Ganesha dispatches by its own process_cb, not
 * by svc_reg's table, so nothing else is lost.
 */
bool svc_reg(SVCXPRT *xprt, const rpcprog_t prog, const rpcvers_t vers,
	     void (*dispatch)(struct svc_req *), const struct netconfig *nconf)
{
	return true;
}

bool rpcb_unset(const rpcprog_t prog, const rpcvers_t vers,
		const struct netconfig *nconf)
{
	return true;
}

/* The server's own listeners (2049 and the rest: Ganesha starts them) are
 * in our network namespace: nothing else reaches them, and Bind_addr is
 * left out (its name lookup wants a non-loopback address, which the
 * namespace has not).
 */
static void fz_write_conf(const char *path)
{
	const char *level = getenv("FUZZ_INPROC_LOG_LEVEL");
	FILE *f = fopen(path, "w");

	if (f == NULL)
		fz_die(path);
	fprintf(f,
		"NFS_CORE_PARAM {\n"
		"\tProtocols = 3, 4;\n"
		"\tEnable_NLM = false;\n"
		"\tEnable_RQUOTA = false;\n"
		"\tEnable_UDP = false;\n"
		"\tPlugins_Dir = \"%s\";\n"
		"\tallow_set_io_flusher_fail = true;\n"
		"}\n"
		"NFSv4 {\n"
		"\tRecoveryRoot = \"%s/recovery\";\n"
		"\tGraceless = true;\n"
		"\tMinor_Versions = 0, 1, 2;\n"
		"\tDelegations = true;\n"
		"}\n"
		"EXPORT_DEFAULTS {\n"
		"\tAccess_Type = RW;\n"
		"\tSquash = No_Root_Squash;\n"
		"\tSecType = sys, none;\n"
		"\tProtocols = 3, 4;\n"
		"\tTransports = TCP;\n"
		"}\n"
		"EXPORT {\n"
		"\tExport_Id = 1;\n"
		"\tPath = \"%s\";\n"
		"\tPseudo = \"/sparse\";\n"
		"\tDelegations = RW;\n"
		"\tCLIENT {\n"
		"\t\tClients = 127.0.0.2;\n"
		"\t\tSquash = Root_Squash;\n"
		"\t}\n"
		"\tFSAL {\n"
		"\t\tName = SPARSE;\n"
		"\t}\n"
		"}\n"
		"LOG {\n"
		"\tDefault_Log_Level = %s;\n"
		"}\n",
		FUZZ_PLUGINS_DIR, fz_dir, fz_export,
		level != NULL ? level : "CRIT");
	fclose(f);
}

static void fz_config_error(char *msg, void *dest,
			    struct config_error_type *err_type)
{
	fprintf(stderr, "fuzz_inproc: config: %s\n", msg);
}

static void *fz_server_thread(void *arg)
{
	nfs_start(&fz_start_info);
	return NULL;
}

/* Ganesha's start-up, as ganesha.nfsd's main() does it, then its service
 * threads (nfs_start) on a thread of their own.
 */
static void fz_start_ganesha(void)
{
	struct config_error_type err_type;
	char conf[PATH_MAX], log_path[PATH_MAX];
	pthread_t thread;
	sigset_t sigs;

	snprintf(fz_dir, sizeof(fz_dir), "%s/fuzz_inproc.XXXXXX",
		 getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(fz_dir) == NULL)
		fz_die("mkdtemp");
	snprintf(fz_export, sizeof(fz_export), "%s/export", fz_dir);
	snprintf(conf, sizeof(conf), "%s/ganesha.conf", fz_dir);
	if (getenv("FUZZ_INPROC_LOG") != NULL)
		snprintf(log_path, sizeof(log_path), "%s",
			 getenv("FUZZ_INPROC_LOG"));
	else
		snprintf(log_path, sizeof(log_path), "%s/ganesha.log", fz_dir);
	if (mkdir(fz_export, 0755) < 0)
		fz_die(fz_export);
	fz_write_conf(conf);

	/* SIGPIPE: a reply written to a connection we dropped. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGPIPE);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGXFSZ, SIG_IGN);

	now(&nfs_ServerBootTime);
	nfs_ServerEpoch = (time_t)nfs_ServerBootTime.tv_sec;
	nfs_prereq_init("fuzz_inproc", nfs_host_name, -1, log_path, false,
			8388608);
	nfs_init_init();
	config_url_init();
	if (!init_error_type(&err_type))
		abort();
	nfs_config_struct = config_ParseFile(conf, &err_type);
	if (!config_error_no_error(&err_type) &&
	    !config_error_is_harmless(&err_type)) {
		fprintf(stderr, "fuzz_inproc: %s does not parse (log %s)\n",
			conf, log_path);
		abort();
	}
	if (read_log_config(nfs_config_struct, &err_type) < 0 ||
	    start_fsals(nfs_config_struct, &err_type) < 0 ||
	    nfs_set_param_from_conf(nfs_config_struct, &fz_start_info,
				    &err_type) ||
	    init_server_pkgs() != 0 ||
	    ReadDataServers(nfs_config_struct, &err_type) < 0 ||
	    nfs4_recovery_init() != 0) {
		(void)report_config_errors(&err_type, NULL, fz_config_error);
		fprintf(stderr, "fuzz_inproc: Ganesha's start-up failed (%s)\n",
			log_path);
		abort();
	}
	nfs_start_grace(NULL);
	nfs_wait_for_grace_enforcement();
	if (ReadExports(nfs_config_struct, &err_type) != 1) {
		fprintf(stderr, "fuzz_inproc: the export did not load (%s)\n",
			log_path);
		abort();
	}
	(void)report_config_errors(&err_type, NULL, config_errs_to_log);
	config_Free(nfs_config_struct);

	if (pthread_create(&thread, NULL, fz_server_thread, NULL) != 0)
		fz_die("pthread_create");
	nfs_init_wait();
}

/* What Ganesha's TCP rendezvous frees with a transport (its
 * nfs_rpc_free_user_data, static there).
 */
static enum xprt_stat fz_free_user_data(SVCXPRT *xprt)
{
	if (xprt->xp_u2) {
		nfs_dupreq_put_drc(xprt->xp_u2);
		xprt->xp_u2 = NULL;
	}
	connection_manager__connection_finished(xprt);
	destroy_custom_data_for_destroyed_xprt(xprt);
	return XPRT_DESTROYED;
}

static void fz_listen(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fz_listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fz_listen_fd < 0 ||
	    bind(fz_listen_fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(fz_listen_fd, 4) < 0)
		fz_die("listen");
}

/* A loopback TCP connection from c->src, its server end made an ntirpc
 * transport set up as Ganesha's TCP rendezvous sets up an accepted one
 * (nfs_rpc_dispatch_tcp_NFS), but registered with no event channel: only
 * this harness hands it requests.
 */
static void fz_conn_open(struct fz_conn *c)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int big = FZ_MAX_REPLY * 2;
	int sfd;

	c->cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->cfd < 0)
		fz_die("socket");
	inet_pton(AF_INET, c->src, &sin.sin_addr);
	if (bind(c->cfd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		fz_die("bind client");
	if (getsockname(fz_listen_fd, (struct sockaddr *)&sin, &len) < 0 ||
	    connect(c->cfd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		fz_die("connect");
	sfd = accept4(fz_listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (sfd < 0)
		fz_die("accept");
	/* a whole reply fits: the server's single thread never blocks */
	setsockopt(c->cfd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	setsockopt(sfd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	fcntl(c->cfd, F_SETFL, O_NONBLOCK);

	c->xprt = svc_fd_ncreatef(sfd,
				  nfs_param.core_param.rpc.max_send_buffer_size,
				  nfs_param.core_param.rpc.max_recv_buffer_size,
				  SVC_CREATE_FLAG_CLOSE);
	if (c->xprt == NULL)
		fz_die("svc_fd_ncreatef");
	init_custom_data_for_xprt(c->xprt);
	(void)SVC_CONTROL(c->xprt, SVCSET_XP_UNREF_USER_DATA,
			  dissociate_custom_data_from_xprt);
	(void)SVC_CONTROL(c->xprt, SVCSET_XP_FREE_USER_DATA, fz_free_user_data);
	connection_manager__connection_init(c->xprt);
	c->xprt->xp_dispatch.process_cb = nfs_rpc_valid_NFS;
	(void)connection_manager__connection_started(c->xprt);
}

static void fz_conn_close(struct fz_conn *c)
{
	if (c->xprt != NULL) {
		SVC_DESTROY(c->xprt);
		c->xprt = NULL;
	}
	if (c->cfd >= 0) {
		close(c->cfd);
		c->cfd = -1;
	}
	c->have = 0;
}

/* The transport is gone (a request destroyed it): a new connection. */
static void fz_conn_check(struct fz_conn *c)
{
	if (c->xprt == NULL ||
	    (c->xprt->xp_flags & SVC_XPRT_FLAG_DESTROYED) != 0) {
		fz_conn_close(c);
		fz_conn_open(c);
	}
}

/* ----- values seen in replies ----- */

static void fz_remember_len(enum fz_kind kind, const void *val, size_t len)
{
	unsigned int n = fz_seen[kind].count;

	if (n >= FZ_MAX_VALUES || len > FZ_MAX_VAL)
		return;
	memcpy(fz_seen[kind].val[n], val, len);
	fz_seen[kind].len[n] = len;
	fz_seen[kind].count = n + 1;
}

static void fz_remember(enum fz_kind kind, const void *val)
{
	fz_remember_len(kind, val, fz_kinds[kind].len);
}

/* A client ID as its XDR (a hyper: big-endian). */
static void fz_remember_clientid(clientid4 id)
{
	uint64_t xdr = htobe64(id);

	fz_remember(FZ_CLIENTID, &xdr);
}

/* A handle as its XDR (nfs_fh4 and nfs_fh3 alike). */
static void fz_remember_handle(const nfs_fh4 *fh)
{
	char xdr[FZ_MAX_VAL] = { 0 };
	uint32_t len = htonl(fh->nfs_fh4_len);

	if (fh->nfs_fh4_len > NFS4_FHSIZE)
		return;
	memcpy(xdr, &len, 4);
	memcpy(xdr + 4, fh->nfs_fh4_val, fh->nfs_fh4_len);
	fz_remember_len(FZ_HANDLE, xdr, 4 + ((fh->nfs_fh4_len + 3) & ~3u));
}

static void fz_harvest_op(const nfs_resop4 *r)
{
	switch (r->resop) {
	case NFS4_OP_GETFH:
		if (r->nfs_resop4_u.opgetfh.status == NFS4_OK)
			fz_remember_handle(&r->nfs_resop4_u.opgetfh.GETFH4res_u
						    .resok4.object);
		break;
	case NFS4_OP_EXCHANGE_ID:
		if (r->nfs_resop4_u.opexchange_id.eir_status == NFS4_OK)
			fz_remember_clientid(
				r->nfs_resop4_u.opexchange_id.EXCHANGE_ID4res_u
					.eir_resok4.eir_clientid);
		break;
	case NFS4_OP_SETCLIENTID:
		if (r->nfs_resop4_u.opsetclientid.status == NFS4_OK) {
			const SETCLIENTID4resok *ok =
				&r->nfs_resop4_u.opsetclientid.SETCLIENTID4res_u
					 .resok4;

			fz_remember_clientid(ok->clientid);
			fz_remember(FZ_VERIFIER, ok->setclientid_confirm);
		}
		break;
	case NFS4_OP_CREATE_SESSION:
		if (r->nfs_resop4_u.opcreate_session.csr_status == NFS4_OK)
			fz_remember(FZ_SESSION,
				    r->nfs_resop4_u.opcreate_session
					    .CREATE_SESSION4res_u.csr_resok4
					    .csr_sessionid);
		break;
	case NFS4_OP_OPEN:
		if (r->nfs_resop4_u.opopen.status == NFS4_OK) {
			const OPEN4resok *ok =
				&r->nfs_resop4_u.opopen.OPEN4res_u.resok4;

			fz_remember(FZ_STATEID, ok->stateid.other);
			if (ok->delegation.delegation_type ==
			    OPEN_DELEGATE_READ)
				fz_remember(FZ_STATEID,
					    ok->delegation.open_delegation4_u
						    .read.stateid.other);
			else if (ok->delegation.delegation_type ==
				 OPEN_DELEGATE_WRITE)
				fz_remember(FZ_STATEID,
					    ok->delegation.open_delegation4_u
						    .write.stateid.other);
		}
		break;
	case NFS4_OP_LOCK:
		if (r->nfs_resop4_u.oplock.status == NFS4_OK)
			fz_remember(FZ_STATEID,
				    r->nfs_resop4_u.oplock.LOCK4res_u.resok4
					    .lock_stateid.other);
		break;
	case NFS4_OP_COPY:
		/* an asynchronous copy's stateid (OFFLOAD_STATUS, _CANCEL) */
		if (r->nfs_resop4_u.opcopy42.cr_status == NFS4_OK &&
		    r->nfs_resop4_u.opcopy42.cr_u.cr_resok4.cr_response
				    .wr_callback_id.wr_callback_id_len == 1)
			fz_remember(FZ_STATEID,
				    r->nfs_resop4_u.opcopy42.cr_u.cr_resok4
					    .cr_response.wr_callback_id
					    .wr_callback_id_val->other);
		break;
	case NFS4_OP_LAYOUTGET:
		if (r->nfs_resop4_u.oplayoutget.logr_status == NFS4_OK)
			fz_remember(FZ_STATEID,
				    r->nfs_resop4_u.oplayoutget.LAYOUTGET4res_u
					    .logr_resok4.logr_stateid.other);
		break;
	default:
		break;
	}
}

/* One RPC record read from the client end: a reply is decoded as
 * COMPOUND4res and its values remembered; a callback call is ignored.
 */
static void fz_harvest(const char *rec, size_t len, uint32_t vers)
{
	struct rpc_msg msg;
	COMPOUND4res res;
	XDR x;
	unsigned int i;

	if (fz_trace && vers != NFS_V4) {
		uint32_t w[7] = { 0 };

		memcpy(w, rec, len < sizeof(w) ? len : sizeof(w));
		/* xid, REPLY, accepted, verifier (2), accept stat, status */
		fprintf(stderr, "  -> v%u reply accept %u status %u\n", vers,
			ntohl(w[5]), ntohl(w[6]));
	}
	if (vers != NFS_V4)
		return;
	memset(&msg, 0, sizeof(msg));
	memset(&res, 0, sizeof(res));
	rpc_msg_init(&msg);
	msg.RPCM_ack.ar_results.where = &res;
	msg.RPCM_ack.ar_results.proc = (xdrproc_t)xdr_COMPOUND4res;
	xdrmem_create(&x, (char *)rec, len, XDR_DECODE);
	if (xdr_dplx_decode(&x, &msg) && msg.rm_direction == REPLY &&
	    msg.rm_reply.rp_stat == MSG_ACCEPTED &&
	    msg.RPCM_ack.ar_stat == SUCCESS && xdr_COMPOUND4res(&x, &res)) {
		if (fz_trace)
			fprintf(stderr, "  -> %d:", res.status);
		for (i = 0; i < res.resarray.resarray_len; i++) {
			fz_harvest_op(&res.resarray.resarray_val[i]);
			if (fz_trace)
				fprintf(stderr, " %d=%d",
					res.resarray.resarray_val[i].resop,
					*(int32_t *)&res.resarray
						 .resarray_val[i]
						 .nfs_resop4_u);
		}
		if (fz_trace)
			fprintf(stderr, "\n");
	}
	XDR_DESTROY(&x);
	xdr_free((xdrproc_t)xdr_COMPOUND4res, &res);
}

/* Reads what the server wrote to c's client end (a reply is written
 * before the dispatch returns; callbacks come from other threads at any
 * time) and hands each whole record on; the start of one not yet whole is
 * kept for the next read.  ntirpc sends every record as one fragment.
 */
static void fz_read_replies(struct fz_conn *c, uint32_t vers)
{
	size_t off = 0;
	ssize_t n;

	while (c->have < FZ_MAX_REPLY && (n = read(c->cfd, c->rbuf + c->have,
						   FZ_MAX_REPLY - c->have)) > 0)
		c->have += n;
	while (c->have - off >= 4) {
		uint32_t mark;
		size_t flen;

		memcpy(&mark, c->rbuf + off, 4);
		flen = ntohl(mark) & 0x7fffffff;
		if (flen > FZ_MAX_REPLY - 4) {
			/* not a record mark: start again from nothing */
			off = c->have;
			break;
		}
		if (flen > c->have - off - 4)
			break;
		fz_harvest(c->rbuf + off + 4, flen, vers);
		off += 4 + flen;
	}
	memmove(c->rbuf, c->rbuf + off, c->have - off);
	c->have -= off;
}

/* ----- one call ----- */

static size_t fz_put32(char *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
	return 4;
}

/* The RPC call header for prog/vers/proc with credential choice cred. */
static size_t fz_call_header(char *p, uint32_t vers, uint32_t proc,
			     uint8_t cred)
{
	static const uint32_t ids[3] = { 0, 1000, 65534 };
	size_t n = 0;

	n += fz_put32(p + n, ++fz_xid);
	n += fz_put32(p + n, CALL);
	n += fz_put32(p + n, 2);
	n += fz_put32(p + n, NFS_PROGRAM);
	n += fz_put32(p + n, vers);
	n += fz_put32(p + n, proc);
	cred &= 3;
	if (cred == 3) {
		n += fz_put32(p + n, AUTH_NONE);
		n += fz_put32(p + n, 0);
	} else {
		n += fz_put32(p + n, AUTH_UNIX);
		n += fz_put32(p + n, 4 + 4 + 8 + 4 + 4 + 4 + 4);
		n += fz_put32(p + n, 0); /* stamp */
		n += fz_put32(p + n, 6); /* machine name "fuzzer" */
		memcpy(p + n, "fuzzer\0\0", 8);
		n += 8;
		n += fz_put32(p + n, ids[cred]); /* uid */
		n += fz_put32(p + n, ids[cred]); /* gid */
		n += fz_put32(p + n, 1); /* one supplementary group */
		n += fz_put32(p + n, ids[cred]);
	}
	n += fz_put32(p + n, AUTH_NONE); /* verifier */
	n += fz_put32(p + n, 0);
	return n;
}

/* The placeholder of a value seen in a reply at src (0xFA 0xCE tag N), or
 * -1.
 */
static int fz_placeholder(const uint8_t *src, size_t left)
{
	int k;

	if (left < 4 || src[0] != 0xFA || src[1] != 0xCE)
		return -1;
	for (k = 0; k < FZ_KINDS; k++)
		if (src[2] == fz_kinds[k].tag && fz_seen[k].count != 0 &&
		    left >= fz_kinds[k].len)
			return k;
	return -1;
}

/* The arguments copied from src to dst (at most max bytes), placeholders
 * replaced by values seen in replies; returns the length written.
 */
static size_t fz_build_args(char *dst, size_t max, const uint8_t *src,
			    size_t len)
{
	size_t i = 0, o = 0;

	while (i < len && o < max) {
		int k = fz_placeholder(src + i, len - i);
		unsigned int pick;
		size_t vlen, skip;

		if (k < 0) {
			dst[o++] = src[i++];
			continue;
		}
		pick = src[i + 3] % fz_seen[k].count;
		vlen = fz_seen[k].len[pick];
		skip = fz_kinds[k].len ? fz_kinds[k].len : 4;
		if (vlen > max - o)
			break;
		memcpy(dst + o, fz_seen[k].val[pick], vlen);
		o += vlen;
		i += skip;
	}
	return o;
}

/* Hands one RPC call (header and arguments in msg) to Ganesha as ntirpc's
 * svc_request() hands a decoded record: the request allocated as Ganesha's
 * alloc_nfs_request does, the header decoded as svc_vc_decode does, then
 * the transport's dispatch (nfs_rpc_valid_NFS) and the release as
 * svc_request and Ganesha's free_nfs_request do.
 */
static void fz_dispatch(struct fz_conn *c, char *msg, size_t len)
{
	nfs_request_t *reqdata = gsh_calloc(1, sizeof(*reqdata));
	SVCXPRT *xprt = c->xprt;
	XDR *xdrs = gsh_calloc(1, sizeof(*xdrs));
	enum xprt_stat stat = XPRT_IDLE;

	xdrmem_create(xdrs, msg, len, XDR_DECODE);
	SVC_REF(xprt, SVC_REF_FLAG_NONE);
	reqdata->svc.rq_xprt = xprt;
	reqdata->svc.rq_xdrs = xdrs;
	reqdata->svc.rq_refcnt = 1;
	TAILQ_INIT_ENTRY(reqdata, dupes);
	rpc_msg_init(&reqdata->svc.rq_msg);

	/* nfs_rpc_valid_NFS, the transport's process_cb, called directly: when
	 * Ganesha makes a back channel on a transport that no event channel
	 * has (ours), ntirpc registers it with one and makes the client side
	 * its process_cb (clnt_vc_ncreate2); a real server's transports are
	 * registered from the start and keep Ganesha's.
	 */
	if (xdr_dplx_decode(xdrs, &reqdata->svc.rq_msg) &&
	    reqdata->svc.rq_msg.rm_direction == CALL)
		stat = nfs_rpc_valid_NFS(&reqdata->svc);
	if (stat == XPRT_SUSPEND) {
		/* FSAL_SPARSE completes I/O before returning; a suspended
		 * request would be finished by another thread, which this
		 * harness does not wait for.
		 */
		fprintf(stderr, "fuzz_inproc: a request was suspended\n");
		abort();
	}
	if (reqdata->svc.rq_auth)
		SVCAUTH_RELEASE(&reqdata->svc);
	XDR_DESTROY(xdrs);
	gsh_free(xdrs);
	gsh_free(reqdata);
	SVC_RELEASE(xprt, SVC_RELEASE_FLAG_NONE);
}

/* ----- between inputs ----- */

static size_t fz_collect_clientids(hash_table_t *ht, clientid4 *ids, size_t n,
				   size_t max)
{
	uint32_t i;

	for (i = 0; i < ht->parameter.index_size && n < max; i++) {
		struct rbt_node *pn;

		PTHREAD_RWLOCK_rdlock(&ht->partitions[i].ht_lock);
		RBT_LOOP(&ht->partitions[i].rbt, pn)
		{
			struct hash_data *addr = RBT_OPAQ(pn);
			nfs_client_id_t *cid = addr->val.addr;

			if (n < max)
				ids[n++] = cid->cid_clientid;
			RBT_INCREMENT(pn);
		}
		PTHREAD_RWLOCK_unlock(&ht->partitions[i].ht_lock);
	}
	return n;
}

/* Every client ID expired as the reaper expires one (its state, sessions
 * and records released), whatever the input left.
 */
static void fz_expire_clients(void)
{
	clientid4 ids[256];
	size_t n, i;

	n = fz_collect_clientids(ht_confirmed_client_id, ids, 0, 256);
	n = fz_collect_clientids(ht_unconfirmed_client_id, ids, n, 256);
	for (i = 0; i < n; i++) {
		nfs_client_id_t *cid = NULL;
		nfs_client_record_t *rec;

		if (nfs_client_id_get_confirmed(ids[i], &cid) !=
			    CLIENT_ID_SUCCESS &&
		    nfs_client_id_get_unconfirmed(ids[i], &cid) !=
			    CLIENT_ID_SUCCESS)
			continue;
		rec = cid->cid_client_record;
		PTHREAD_MUTEX_lock(&rec->cr_mutex);
		nfs_client_id_expire(cid, false, true);
		PTHREAD_MUTEX_unlock(&rec->cr_mutex);
		dec_client_id_ref(cid);
	}
}

static void fz_empty_dir(int dfd)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		int sub;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue;
		sub = openat(dirfd(d), e->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (sub >= 0)
			fz_empty_dir(sub);
		(void)unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

/* The export's root directory emptied behind Ganesha's back: MDCACHE is
 * told, through the export's upcall vector as an FSAL with upcalls tells
 * it of a change on another node, to distrust everything it keeps of the
 * directory (its attributes and its dirents: the names of the files the
 * input made are looked up in FSAL_SPARSE again, not found, and made
 * anew, as in the first run of the input).
 */
static void fz_invalidate_root(void)
{
	struct gsh_export *exp = get_gsh_export(1);
	struct req_op_context ctx;
	struct fsal_obj_handle *root;
	struct gsh_buffdesc key;
	fsal_status_t st;

	if (exp == NULL) {
		fprintf(stderr, "fuzz_inproc: export 1 is gone\n");
		abort();
	}
	init_op_context_simple(&ctx, exp, exp->fsal_export);
	if (!FSAL_IS_ERROR(nfs_export_get_root_entry(exp, &root))) {
		root->obj_ops->handle_to_key(root, &key);
		st = exp->fsal_export->up_ops->invalidate(
			exp->fsal_export->up_ops, &key,
			FSAL_UP_INVALIDATE_CACHE);
		if (FSAL_IS_ERROR(st))
			fprintf(stderr, "fuzz_inproc: invalidate: %s\n",
				msg_fsal_err(st.major));
		root->obj_ops->put_ref(root);
	}
	release_op_context(); /* drops the export's reference */
}

static void fz_reset(void)
{
	fz_expire_clients();
	fz_empty_dir(open(fz_export, O_RDONLY | O_DIRECTORY));
	fz_invalidate_root();
	memset(fz_seen, 0, sizeof(fz_seen));
}

/* At exit (libFuzzer's, after its last input): the temporary directory
 * removed, then out at once: Ganesha was never shut down, and its
 * libraries' destructors (an FSAL still in use cannot unload) would abort.
 */
static void fz_exit(int status, void *arg)
{
	int dfd = open(fz_dir, O_RDONLY | O_DIRECTORY);

	if (dfd >= 0) {
		fz_empty_dir(dfd);
		(void)rmdir(fz_dir);
	}
	_exit(status);
}

/* ----- libFuzzer ----- */

/* ASan's defaults here (ASAN_OPTIONS adds to them): the shared ASan
 * runtime that libganesha_nfsd.so and libntirpc.so need comes after the
 * libstdc++ of libFuzzer in this program's libraries, which is harmless
 * (libstdc++ defines no allocator); Ganesha keeps its caches until exit on
 * purpose, so leaks are not reported.
 */
const char *__asan_default_options(void)
{
	return "verify_asan_link_order=0:detect_leaks=0";
}

/* UBSan's (UBSAN_OPTIONS adds to them): every report is a finding, but
 * those of the project's suppression list (liburcu's headers).
 */
const char *__ubsan_default_options(void)
{
	return "print_stacktrace=1:halt_on_error=1:suppressions=" FUZZ_UBSAN_SUPP;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_trace = getenv("FUZZ_INPROC_TRACE") != NULL;
	fz_isolate();
	fz_conns[0].rbuf = malloc(FZ_MAX_REPLY);
	fz_conns[1].rbuf = malloc(FZ_MAX_REPLY);
	if (fz_conns[0].rbuf == NULL || fz_conns[1].rbuf == NULL)
		fz_die("malloc");
	fz_start_ganesha();
	on_exit(fz_exit, NULL);
	fz_listen();
	fz_conn_open(&fz_conns[0]);
	fz_conn_open(&fz_conns[1]);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char msg[128 + 2 * 65536];
	size_t off = 0;
	int records = 0;

	while (off + 6 <= size && records++ < FZ_MAX_RECORDS) {
		unsigned int ci = data[off] & 1;
		struct fz_conn *c = &fz_conns[ci];
		uint8_t cred = data[off + 1], proc = data[off + 2];
		uint32_t vers = (proc & 0x80) ? NFS_V3 : NFS_V4;
		size_t alen = (size_t)data[off + 4] << 8 | data[off + 5];
		size_t hlen;

		if (data[off] & 2)
			fz_conn_close(c);
		off += 6;
		if (alen > size - off)
			alen = size - off;
		hlen = fz_call_header(msg, vers, proc & 0x7f, cred);
		hlen += fz_build_args(msg + hlen, sizeof(msg) - hlen,
				      data + off, alen);
		off += alen;
		if (fz_trace)
			fprintf(stderr,
				"call conn %u cred %u v%u proc %u len %zu\n",
				ci, cred & 3, vers, proc & 0x7f, hlen);

		fz_conn_check(c);
		fz_dispatch(c, msg, hlen);
		fz_read_replies(c, vers);
		/* callbacks the call caused on the other connection */
		if (fz_conns[!ci].cfd >= 0)
			fz_read_replies(&fz_conns[!ci], 0);
	}
	fz_reset();
	return 0;
}
