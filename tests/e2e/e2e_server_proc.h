/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * The harness's server processes seen from /proc: which PID, whether it
 * still runs, its memory (tests that a count a client sends costs the
 * server nothing, or that the server survived it).
 */
#ifndef E2E_SERVER_PROC_H
#define E2E_SERVER_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "nfs42_e2e.h"

/* The PID of a server of the harness: "server" (the metadata server) or
 * "dsN" (data server N of --pnfs). */
static inline pid_t e2e_server_pid(const char *which)
{
	char path[4096], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.pid", e2e_env("NFS42_WORK_DIR"),
		 which);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "no %s", path);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	return (pid_t)atoi(buf);
}

/* A line "Key:   N kB" of /proc/PID/status; -1 when the process is gone. */
static inline int64_t e2e_proc_status_kb(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	int64_t v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':')
			v = strtoll(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

/* The process is still there (not a zombie either). */
static inline bool e2e_proc_alive(pid_t pid)
{
	char path[64], buf[512] = "";
	const char *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* Whether the process runs with ASan (its quarantine keeps freed memory
 * resident: its RSS says nothing of what it holds). */
static inline bool e2e_proc_asan(pid_t pid)
{
	char path[64], line[512];
	bool r = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	while (!r && fgets(line, sizeof(line), f))
		r = strstr(line, "libasan") != NULL;
	fclose(f);
	return r;
}

#endif /* E2E_SERVER_PROC_H */
