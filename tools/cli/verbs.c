/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * The verbs of nfs42: one table, from which the usage text, the dispatch
 * and the argument check all come (args.c).  A verb's handler lives in
 * the file of its group (cli.h).
 */
#include "cli.h"

const struct verb cli_verbs[] = {
	{ "ping", cmd_ping, "ping", "NULL RPC + session setup", NULL },
	{ "ls", cmd_ls, "ls [-l] PATH", "list a directory", NULL },
	{ "stat", cmd_stat, "stat PATH",
	  "attributes, one a line (key: value), times in local time", NULL },
	{ "cat", cmd_cat,
	  "cat [-d DEPTH] [--read-plus] [--plain-read] [--no-pnfs] [--stats] "
	  "PATH [-o FILE]",
	  "the file's contents to stdout, or to FILE through a temporary "
	  "renamed over it at the end; DEPTH calls in flight (default 8). "
	  "Into a file: READ_PLUS, holes kept as holes and jumped with SEEK "
	  "(--plain-read: READ, holes found with SEEK); to a pipe: READ "
	  "(--read-plus: READ_PLUS). Through the data servers when the server "
	  "gives a layout (--no-pnfs: never); --stats: where the data came "
	  "from, and the round trips",
	  NULL },
	{ "get", cmd_get,
	  "get [-d DEPTH] [--read-plus] [--plain-read] [--no-pnfs] [--stats] "
	  "PATH LOCALFILE",
	  "cat PATH -o LOCALFILE; a LOCALFILE that is a directory gets the "
	  "file's name in it",
	  NULL },
	{ "map", cmd_map, "map [-d DEPTH] [--stats] PATH",
	  "the data and holes of the file as READ_PLUS reports them, holes "
	  "jumped with SEEK: offset length data|hole, a line each; --stats: "
	  "the round trips",
	  NULL },
	{ "put", cmd_put, "put [--no-pnfs] [--stats] LOCALFILE PATH",
	  "write a local file (- for stdin) to PATH, or to PATH/its name when "
	  "PATH is a directory; only its data is sent, its holes stay holes; "
	  "a stream (stdin, a pipe, a FIFO) is read in order; through the "
	  "data servers when the server gives a layout (--no-pnfs: never)",
	  prepare_put },
	{ "layout", cmd_layout, "layout PATH",
	  "the file's pNFS layout and its data servers (LAYOUTGET, "
	  "GETDEVICEINFO)",
	  NULL },
	{ "mkdir", cmd_mkdir, "mkdir [-m MODE] PATH", "create a directory",
	  NULL },
	{ "rm", cmd_rm, "rm PATH", "remove a file", NULL },
	{ "rmdir", cmd_rmdir, "rmdir PATH", "remove an empty directory", NULL },
	{ "mv", cmd_mv, "mv FROM TO", "rename", NULL },
	{ "cp", cmd_cp,
	  "cp [--async] [--clone] [--via-client] [--stats] SRC DST",
	  "copy on the server to DST, or to DST/SRC's name when DST is a "
	  "directory: COPY of each data extent (through the client where the "
	  "server has no COPY); --async: asynchronous COPYs with progress "
	  "(Ctrl-C cancels); --clone: CLONE only, into a new file renamed "
	  "over DST when done; --via-client: READ + WRITE by the client, no "
	  "COPY; --stats: calls and round trips on stderr",
	  prepare_cp },
	{ "ln", cmd_ln, "ln [-s] TARGET PATH",
	  "hard link to TARGET, a file on the server (-s: a symbolic link "
	  "holding TARGET, any text)",
	  prepare_ln },
	{ "readlink", cmd_readlink, "readlink PATH", "symlink target", NULL },
	{ "truncate", cmd_truncate, "truncate PATH SIZE", "set the size",
	  NULL },
	{ "chmod", cmd_chmod, "chmod MODE PATH", "set the mode (octal)", NULL },
	{ "seek", cmd_seek, "seek PATH OFFSET data|hole",
	  "next data or hole (SEEK)", NULL },
	{ "xattr get", cmd_xattr_get, "xattr get [-o FILE] PATH NAME",
	  "extended attribute user.NAME (GETXATTR): its bytes to stdout or "
	  "FILE",
	  NULL },
	{ "xattr set", cmd_xattr_set,
	  "xattr set [--create] [--replace] PATH NAME VALUE",
	  "set user.NAME (SETXATTR) to VALUE, or to the bytes of FILE for "
	  "@FILE; --create: must not exist, --replace: must exist",
	  prepare_xattr_set },
	{ "xattr ls", cmd_xattr_ls, "xattr ls [-n SIZE] PATH",
	  "user xattr names (LISTXATTRS, lxa_maxcount SIZE, default 4096, "
	  "following the cookies)",
	  NULL },
	{ "xattr rm", cmd_xattr_rm, "xattr rm PATH NAME",
	  "remove user.NAME (REMOVEXATTR)", NULL },
};

const size_t cli_nverbs = sizeof(cli_verbs) / sizeof(cli_verbs[0]);
