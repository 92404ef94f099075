/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * fuzz_stateful: the driver.  Runs under tests/e2e/harness.sh (which
 * starts the metadata server, its data server and, with NFSv3, the
 * rpcbind stub, and says where they are in the environment); see
 * usage() and docs/testing.md.
 *
 * Sequences are generated from --seed (sequence I's setup seed is
 * fz_mix(seed, I), its action seeds fz_mix(setup seed, 1..N)), or, once
 * sequences have reached new protocol coverage ((operation, status) and
 * (operation, stateid kind, status) pairs), now and then by mutating one
 * of those (actions replaced, inserted, dropped, or spliced from
 * another).  Every sequence that breaks an invariant is printed as a
 * trace line (the setup seed and the action seeds), which --trace runs
 * again, and written to --out as a trace file for --replay;
 * --minimize cuts it down (delta debugging, restarting the servers
 * whenever a try killed one).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fz.h"

struct fz_trace {
	uint64_t setup;
	uint64_t *actions;
	unsigned int n;
	bool mutated;
};

struct fz_result {
	char kind[32];
	char msg[1024];
	bool new_coverage;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	remove(path);
	return 0;
}

/* Restart whichever server died (the harness's control script). */
static void restart_dead_servers(struct fz_cfg *cfg)
{
	struct fz_stats st;
	char cmd[PATH_MAX * 2 + 64];
	unsigned int i;

	for (i = 0; cfg->ctl && i < cfg->npids; i++) {
		struct fz_cfg one = *cfg;
		struct fz_seq probe = { .cfg = &one, .st = &st };

		one.pid_files[0] = cfg->pid_files[i];
		one.npids = 1;
		if (fz_servers_alive(&probe))
			continue;
		/* the log holds the fuzzing's FSAL CRIT lines, which the
		 * harness would take for configuration errors */
		if (i == 0)
			snprintf(
				cmd, sizeof(cmd),
				"'%s' kill9 >/dev/null 2>&1; SPARSE_ALLOW_CONFIG_ERRORS=1 '%s' start",
				cfg->ctl, cfg->ctl);
		else
			snprintf(
				cmd, sizeof(cmd),
				"'%s' ds-kill9 %u >/dev/null 2>&1; SPARSE_ALLOW_CONFIG_ERRORS=1 '%s' ds-start %u",
				cfg->ctl, i - 1, cfg->ctl, i - 1);
		fprintf(stderr, "fuzz: restarting %s\n",
			i == 0 ? "the metadata server" : "the data server");
		if (system(cmd) != 0)
			fprintf(stderr, "fuzz: restart failed: %s\n", cmd);
	}
	fz_logs_mark(cfg);
}

static void run_sequence(struct fz_cfg *cfg, struct fz_stats *st,
			 const struct fz_trace *t, long index,
			 struct fz_result *res)
{
	struct fz_seq *s = calloc(1, sizeof(*s));
	unsigned int i;
	double t0, t_start;
	int rc;

	memset(res, 0, sizeof(*res));
	s->cfg = cfg;
	s->st = st;
	s->seed = t->setup;
	s->index = index;
	st->sequences++;
	t_start = now_s();
	rc = fz_seq_setup(s);
	fz_log(s, "setup took %.2f s", now_s() - t_start);
	if (rc) {
		fz_check_logs(s);
		if (fz_servers_alive(s) && !s->finding[0])
			fz_find(s, "unresponsive",
				"sequence setup failed: %s (the server does not serve a new client)",
				nfs42_strerror(rc));
	}
	for (i = 0; !rc && i < t->n && !s->finding[0]; i++) {
		t0 = now_s();
		fz_seq_action(s, t->actions[i]);
		if (now_s() - t0 > 1)
			fz_log(s, "action %u took %.2f s", i, now_s() - t0);
		fz_check_logs(s);
		fz_servers_alive(s);
		if (!s->finding[0] && now_s() - t0 > cfg->timeout_ms / 1000.0)
			/* something waited for its reply timeout: a hang? */
			fz_check_responsive(s);
	}
	fz_log(s, "actions done after %.2f s", now_s() - t_start);
	if (!s->finding[0] && fz_servers_alive(s)) {
		fz_seq_teardown(s);
		fz_log(s, "teardown done after %.2f s", now_s() - t_start);
		fz_check_logs(s);
		if (!s->finding[0])
			fz_check_end(s);
		fz_check_logs(s);
	} else {
		for (i = 0; i < s->nactors; i++)
			fz_actor_close(s, &s->actors[i], false);
	}
	fz_log(s, "sequence done after %.2f s", now_s() - t_start);
	snprintf(res->kind, sizeof(res->kind), "%s", s->finding_kind);
	snprintf(res->msg, sizeof(res->msg), "%s", s->finding);
	res->new_coverage = s->new_coverage;
	if (s->backing_dir[0])
		nftw(s->backing_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(s);
}

/* ---------------------------------------------------------- traces */

static void trace_print(FILE *f, const struct fz_trace *t)
{
	unsigned int i;

	fprintf(f, "%016llx:", (unsigned long long)t->setup);
	for (i = 0; i < t->n; i++)
		fprintf(f, "%s%016llx", i ? "," : "",
			(unsigned long long)t->actions[i]);
}

/* "SETUP:A1,A2,..." */
static int trace_parse(const char *text, struct fz_trace *t)
{
	const char *p = text;
	char *end;

	memset(t, 0, sizeof(*t));
	t->setup = strtoull(p, &end, 16);
	if (*end != ':')
		return -EINVAL;
	p = end + 1;
	t->actions = calloc(FZ_MAX_ACTIONS, sizeof(uint64_t));
	while (*p && t->n < FZ_MAX_ACTIONS) {
		t->actions[t->n++] = strtoull(p, &end, 16);
		if (end == p)
			return -EINVAL;
		p = end;
		while (*p == ',' || *p == '\n' || *p == ' ')
			p++;
	}
	return 0;
}

/* A trace file: comment lines (#) and one trace line. */
static int trace_read(const char *path, struct fz_trace *t)
{
	static char buf[FZ_MAX_ACTIONS * 18 + 64];
	char line[FZ_MAX_ACTIONS * 18 + 64];
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	{
		int gen = 0;

		buf[0] = 0;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "# generator %d", &gen) == 1)
				continue;
			if (line[0] != '#' && line[0] != '\n')
				snprintf(buf, sizeof(buf), "%s", line);
		}
		if (gen != FZ_GENERATOR)
			fprintf(stderr,
				"fuzz: %s: made by generator %d, this is generator %d: its actions now do other things (re-minimize it from its finding)\n",
				path, gen, FZ_GENERATOR);
	}
	fclose(f);
	return trace_parse(buf, t);
}

static void trace_write(struct fz_cfg *cfg, const struct fz_trace *t,
			const struct fz_result *res, const char *suffix,
			char *path, size_t size)
{
	FILE *f;

	mkdir(cfg->out_dir, 0755);
	snprintf(path, size, "%s/%s-%016llx%s.trace", cfg->out_dir, res->kind,
		 (unsigned long long)t->setup, suffix);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "fuzz: cannot write %s: %s\n", path,
			strerror(errno));
		return;
	}
	fprintf(f, "# fuzz_stateful trace (%u actions): run it with\n", t->n);
	fprintf(f, "# generator %d\n", FZ_GENERATOR);
	fprintf(f, "#   fuzz_stateful --replay %s\n", path);
	fprintf(f, "# finding: %s: %s\n", res->kind, res->msg);
	trace_print(f, t);
	fputc('\n', f);
	fclose(f);
}

/* ---------------------------------------------------------- minimizer */

static bool same_class(const char *a, const char *b)
{
	static const char *const crash[] = { "crash", "sanitizer", "fatal",
					     NULL };
	bool ca = false, cb = false;

	for (const char *const *p = crash; *p; p++) {
		ca |= !strcmp(a, *p);
		cb |= !strcmp(b, *p);
	}
	return ca && cb ? true : !strcmp(a, b);
}

static void signature(const struct fz_result *res, char *sig, size_t size);

/* The same finding: a sanitizer report with the same signature (not
 * another bug the cut trace runs into), else the same kind. */
static bool same_finding(const struct fz_result *a, const struct fz_result *b)
{
	char sa[512], sb[512];

	if (strcmp(a->kind, "sanitizer") && strcmp(b->kind, "sanitizer"))
		return same_class(a->kind, b->kind);
	signature(a, sa, sizeof(sa));
	signature(b, sb, sizeof(sb));
	return !strcmp(sa, sb);
}

static bool reproduces(struct fz_cfg *cfg, struct fz_stats *st,
		       const struct fz_trace *t, const struct fz_result *want,
		       long *index)
{
	struct fz_result res;
	int tries;

	for (tries = 0; tries < 2; tries++) {
		restart_dead_servers(cfg);
		run_sequence(cfg, st, t, (*index)++, &res);
		if (res.kind[0] && same_finding(&res, want))
			return true;
	}
	return false;
}

/* Delta debugging (ddmin) over the action list, within a time budget. */
static void minimize(struct fz_cfg *cfg, struct fz_stats *st,
		     struct fz_trace *t, const struct fz_result *want,
		     long *index)
{
	struct fz_trace c = *t;
	unsigned int n = 2, chunk, i, j, k;
	double deadline = now_s() + 900;
	bool reduced;

	c.actions = calloc(t->n ? t->n : 1, sizeof(uint64_t));
	while (t->n >= 2 && now_s() < deadline) {
		chunk = (t->n + n - 1) / n;
		reduced = false;
		for (i = 0; i < t->n && now_s() < deadline; i += chunk) {
			for (j = 0, k = 0; j < t->n; j++)
				if (j < i || j >= i + chunk)
					c.actions[k++] = t->actions[j];
			c.n = k;
			if (reproduces(cfg, st, &c, want, index)) {
				memcpy(t->actions, c.actions,
				       k * sizeof(uint64_t));
				t->n = k;
				n = n > 2 ? n - 1 : 2;
				reduced = true;
				fprintf(stderr,
					"fuzz: minimized to %u actions\n",
					t->n);
				break;
			}
		}
		if (!reduced) {
			if (n >= t->n)
				break;
			n = n * 2 > t->n ? t->n : n * 2;
		}
	}
	free(c.actions);
	restart_dead_servers(cfg);
}

/* ---------------------------------------------------------- corpus */

#define CORPUS_MAX 64

struct fz_corpus {
	struct fz_trace e[CORPUS_MAX];
	unsigned int n;
};

static void corpus_add(struct fz_corpus *co, const struct fz_trace *t)
{
	struct fz_trace *e;

	if (co->n == CORPUS_MAX) {
		free(co->e[0].actions);
		memmove(&co->e[0], &co->e[1],
			(CORPUS_MAX - 1) * sizeof(co->e[0]));
		co->n--;
	}
	e = &co->e[co->n++];
	*e = *t;
	e->actions = malloc((t->n ? t->n : 1) * sizeof(uint64_t));
	memcpy(e->actions, t->actions, t->n * sizeof(uint64_t));
}

/* A new sequence from one that reached new coverage. */
static void mutate(struct fz_corpus *co, struct fz_rng *r, struct fz_trace *t,
		   unsigned int max)
{
	const struct fz_trace *p = &co->e[fz_below(r, co->n)];
	const struct fz_trace *q = &co->e[fz_below(r, co->n)];
	unsigned int m = 1 + fz_below(r, 4), i, at, len;

	t->setup = p->setup;
	t->n = p->n;
	memcpy(t->actions, p->actions, p->n * sizeof(uint64_t));
	t->mutated = true;
	for (i = 0; i < m; i++) {
		at = fz_below(r, t->n + 1);
		switch (fz_below(r, 4)) {
		case 0: /* replace */
			if (at < t->n)
				t->actions[at] = fz_next(r);
			break;
		case 1: /* insert */
			if (t->n < max) {
				memmove(&t->actions[at + 1], &t->actions[at],
					(t->n - at) * sizeof(uint64_t));
				t->actions[at] = fz_next(r);
				t->n++;
			}
			break;
		case 2: /* drop */
			if (at < t->n && t->n > 1) {
				memmove(&t->actions[at], &t->actions[at + 1],
					(t->n - at - 1) * sizeof(uint64_t));
				t->n--;
			}
			break;
		default: /* splice q's tail in */
			len = q->n - fz_below(r, q->n + 1);
			if (at + len > max)
				len = max - at;
			memcpy(&t->actions[at], &q->actions[q->n - len],
			       len * sizeof(uint64_t));
			if (at + len > t->n)
				t->n = at + len;
		}
	}
}

static void fresh(const struct fz_cfg *cfg, long index, struct fz_trace *t)
{
	unsigned int i;

	t->setup = fz_mix(cfg->seed, (uint64_t)index);
	t->n = cfg->actions;
	t->mutated = false;
	for (i = 0; i < t->n; i++)
		t->actions[i] = fz_mix(t->setup, i + 1);
}

/* ---------------------------------------------------------- report */

static void print_stats(const struct fz_cfg *cfg, const struct fz_stats *st,
			double secs, unsigned int corpus)
{
	fprintf(stderr,
		"fuzz: %.0f s: %llu sequences, %llu actions, %llu compounds, %llu ops (%.1f compounds/s); coverage %u (op,status) pairs, %u (op,stateid kind,status) triples; corpus %u; %llu reconnects, %llu drops, %llu recalls taken; findings %llu (known ones passed over: %llu)\n",
		secs, (unsigned long long)st->sequences,
		(unsigned long long)st->actions,
		(unsigned long long)st->compounds, (unsigned long long)st->ops,
		secs > 0 ? st->compounds / secs : 0.0, st->npairs, st->ntriples,
		corpus, (unsigned long long)st->reconnects,
		(unsigned long long)st->drops,
		(unsigned long long)st->callbacks,
		(unsigned long long)st->findings,
		(unsigned long long)st->known);
}

/* Per operation: generated and answered NFS4_OK. */
static void print_ops(const struct fz_stats *st)
{
	unsigned int op, n = 0;

	fprintf(stderr, "fuzz: operations (generated/NFS4_OK):");
	for (op = 3; op < 80; op++) {
		if (!st->op_count[op] && !st->op_ok[op])
			continue;
		fprintf(stderr, "%s %s %llu/%llu", n++ % 6 ? "," : "\n ",
			nfs42_opname(op), (unsigned long long)st->op_count[op],
			(unsigned long long)st->op_ok[op]);
	}
	fputc('\n', stderr);
}

/* A finding's signature: its kind and message without the numbers and
 * names that change from run to run (actors, files, pids, paths). */
static void signature(const struct fz_result *res, char *sig, size_t size)
{
	const char *p;
	size_t n = 0;

	n += (size_t)snprintf(sig, size, "%s:", res->kind);
	for (p = res->msg; *p && n + 1 < size; p++) {
		if (p[0] == '0' && p[1] == 'x') { /* an address */
			for (p += 2; isxdigit((unsigned char)p[1]); p++)
				;
			continue;
		}
		if ((*p >= '0' && *p <= '9') || *p == '/' || *p == '.')
			continue;
		sig[n++] = *p;
	}
	sig[n] = 0;
}

static bool seen_before(const struct fz_result *res)
{
	static char sigs[64][512];
	static unsigned int n;
	char sig[512];
	unsigned int i;

	signature(res, sig, sizeof(sig));
	for (i = 0; i < n; i++)
		if (!strcmp(sigs[i], sig))
			return true;
	if (n < 64)
		snprintf(sigs[n++], sizeof(sigs[0]), "%s", sig);
	return false;
}

static void report(struct fz_cfg *cfg, struct fz_stats *st, struct fz_trace *t,
		   const struct fz_result *res, long index, long *next_index,
		   double t0)
{
	char path[PATH_MAX];
	bool again = seen_before(res);

	st->findings++;
	if (again && cfg->keep_going) {
		fprintf(stderr,
			"fuzz: finding %s again after %.0f s (sequence %ld): %s\n",
			res->kind, now_s() - t0, index, res->msg);
		return;
	}
	fprintf(stderr, "\nFUZZ FINDING %s after %.0f s (sequence %ld%s): %s\n",
		res->kind, now_s() - t0, index,
		t->mutated ? ", a mutated one" : "", res->msg);
	if (!t->mutated && cfg->sequence < 0)
		fprintf(stderr,
			"  reproduce: fuzz_stateful --seed 0x%llx --sequence %ld --actions %u\n",
			(unsigned long long)cfg->seed, index, cfg->actions);
	fprintf(stderr, "  trace: ");
	trace_print(stderr, t);
	fprintf(stderr, "\n  (fuzz_stateful --trace TRACE runs it again)\n");
	trace_write(cfg, t, res, "", path, sizeof(path));
	fprintf(stderr, "  written to %s\n", path);
	if (cfg->minimize) {
		minimize(cfg, st, t, res, next_index);
		trace_write(cfg, t, res, "-min", path, sizeof(path));
		fprintf(stderr,
			"  minimized to %u actions: %s\n  trace: ", t->n, path);
		trace_print(stderr, t);
		fputc('\n', stderr);
	}
}

/* ---------------------------------------------------------- main */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fuzz_stateful [options]   (under tests/e2e/harness.sh)\n"
		"  --seed N          master seed (default: the time; printed)\n"
		"  --sequence I      run only sequence I of that seed\n"
		"  --time S          stop after S seconds (default 60)\n"
		"  --sequences N     stop after N sequences\n"
		"  --actions N       actions per sequence (default 40)\n"
		"  --trace T         run trace T (SETUP:A1,A2,...) once\n"
		"  --replay FILE     run the trace in FILE (a directory: each *.trace)\n"
		"  --minimize        cut each finding down (delta debugging)\n"
		"  --keep-going      go on after a finding (servers restarted)\n"
		"  --out DIR         where traces go (default fuzz-findings)\n"
		"  --check LIST      more invariants: attr-recall (issue #27 item 4),\n"
		"                    ds-writes (issue #26 item 4)\n"
		"  --no-v3, --no-v40 no NFSv3 or NFSv4.0 actors\n"
		"  --timeout-ms MS   reply timeout of the actors (default 4000)\n"
		"  --known TEXT      a finding whose message holds TEXT is counted\n"
		"                    and passed over (a known bug; repeatable)\n"
		"  --verbose\n"
		"Exit status: 0 no finding, 1 findings, 2 usage or setup error.\n");
}

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

static int config_from_env(struct fz_cfg *cfg)
{
	static char logs[4][PATH_MAX], glogs[4][PATH_MAX], pids[4][PATH_MAX];
	const char *v, *work = getenv("NFS42_WORK_DIR");
	char *dup, *tok, *save;

	cfg->host = env_or("NFS42_HOST", "127.0.0.1");
	cfg->port = (uint16_t)atoi(env_or("NFS42_PORT", "2049"));
	cfg->mnt_port = (uint16_t)atoi(env_or("NFS42_MNT_PORT", "0"));
	v = getenv("NFS42_DS_PORTS");
	cfg->ds_port = v ? (uint16_t)atoi(v) : 0;
	cfg->backing = getenv("NFS42_BACKING");
	cfg->export = env_or("NFS42_EXPORT", "/sparse");
	cfg->ctl = getenv("NFS42_SERVER_CTL");
	if (!cfg->backing) {
		fprintf(stderr,
			"fuzz: NFS42_BACKING is not set (run under tests/e2e/harness.sh)\n");
		return -1;
	}
	v = getenv("NFS42_LOG");
	if (v) {
		snprintf(logs[0], PATH_MAX, "%s.stdout", v);
		snprintf(glogs[0], PATH_MAX, "%s", v);
		cfg->logs[cfg->nlogs++] = logs[0];
		cfg->glogs[cfg->nglogs++] = glogs[0];
	}
	v = getenv("NFS42_DS_LOGS");
	if (v) {
		dup = strdup(v);
		for (tok = strtok_r(dup, " ", &save); tok && cfg->nlogs < 4;
		     tok = strtok_r(NULL, " ", &save)) {
			snprintf(logs[cfg->nlogs], PATH_MAX, "%s.stdout", tok);
			snprintf(glogs[cfg->nglogs], PATH_MAX, "%s", tok);
			cfg->logs[cfg->nlogs] = logs[cfg->nlogs];
			cfg->glogs[cfg->nglogs] = glogs[cfg->nglogs];
			cfg->nlogs++;
			cfg->nglogs++;
		}
		free(dup);
	}
	v = getenv("NFS42_SERVER_PID_FILE");
	if (v) {
		snprintf(pids[0], PATH_MAX, "%s", v);
		cfg->pid_files[cfg->npids++] = pids[0];
	}
	if (work && cfg->ds_port) {
		snprintf(pids[1], PATH_MAX, "%s/ds0.pid", work);
		cfg->pid_files[cfg->npids++] = pids[1];
	}
	return 0;
}

static int run_replay_dir(struct fz_cfg *cfg, struct fz_stats *st,
			  const char *dir)
{
	struct dirent **names;
	struct fz_trace t;
	struct fz_result res;
	char path[PATH_MAX];
	int n, i, failed = 0, traces = 0;
	long index = 0;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "fuzz: %s: %s\n", dir, strerror(errno));
		return 2;
	}
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);

		if (len > 6 && !strcmp(names[i]->d_name + len - 6, ".trace")) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 names[i]->d_name);
			traces++;
			if (trace_read(path, &t)) {
				fprintf(stderr, "fuzz: %s: not a trace\n",
					path);
				failed = 2;
			} else {
				run_sequence(cfg, st, &t, index++, &res);
				fprintf(stderr, "fuzz: %s: %s%s%s\n", path,
					res.kind[0] ? res.kind : "ok",
					res.kind[0] ? ": " : "", res.msg);
				if (res.kind[0]) {
					failed = failed ? failed : 1;
					restart_dead_servers(cfg);
				}
				free(t.actions);
			}
		}
		free(names[i]);
	}
	free(names);
	fprintf(stderr, "fuzz: %d traces replayed, %s\n", traces,
		failed ? "FAILED" : "all clean");
	return failed;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", 1, NULL, 's' },	{ "sequence", 1, NULL, 'i' },
		{ "time", 1, NULL, 't' },	{ "sequences", 1, NULL, 'n' },
		{ "actions", 1, NULL, 'a' },	{ "trace", 1, NULL, 'T' },
		{ "replay", 1, NULL, 'r' },	{ "minimize", 0, NULL, 'm' },
		{ "keep-going", 0, NULL, 'k' }, { "out", 1, NULL, 'o' },
		{ "check", 1, NULL, 'c' },	{ "no-v3", 0, NULL, '3' },
		{ "no-v40", 0, NULL, '0' },	{ "timeout-ms", 1, NULL, 'w' },
		{ "verbose", 0, NULL, 'v' },	{ "help", 0, NULL, 'h' },
		{ "known", 1, NULL, 'K' },	{ NULL, 0, NULL, 0 }
	};
	struct fz_cfg cfg = { .sequence = -1,
			      .seconds = 60,
			      .actions = 40,
			      .out_dir = "fuzz-findings",
			      .timeout_ms = 4000,
			      .max_sequences = -1 };
	struct fz_stats *st = calloc(1, sizeof(*st));
	struct fz_corpus *co = calloc(1, sizeof(*co));
	const char *trace_text = NULL;
	struct fz_trace t = { 0 };
	struct fz_result res;
	struct fz_rng mr;
	double t0, last_stats;
	long index, next_index;
	int opt, status = 0;
	bool seed_given = false;

	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 's':
			cfg.seed = strtoull(optarg, NULL, 0);
			seed_given = true;
			break;
		case 'i':
			cfg.sequence = strtol(optarg, NULL, 0);
			break;
		case 't':
			cfg.seconds = atof(optarg);
			break;
		case 'n':
			cfg.max_sequences = strtol(optarg, NULL, 0);
			break;
		case 'a':
			cfg.actions = (unsigned int)atoi(optarg);
			if (cfg.actions < 1 || cfg.actions > FZ_MAX_ACTIONS / 2)
				cfg.actions = 40;
			break;
		case 'T':
			trace_text = optarg;
			break;
		case 'r':
			cfg.replay = optarg;
			break;
		case 'm':
			cfg.minimize = true;
			break;
		case 'k':
			cfg.keep_going = true;
			break;
		case 'o':
			cfg.out_dir = optarg;
			break;
		case 'c':
			cfg.check_attr_recall = strstr(optarg, "attr-recall");
			cfg.check_ds_writes = strstr(optarg, "ds-writes");
			break;
		case '3':
			cfg.no_v3 = true;
			break;
		case '0':
			cfg.no_v40 = true;
			break;
		case 'w':
			cfg.timeout_ms = atoi(optarg);
			break;
		case 'v':
			cfg.verbose = true;
			break;
		case 'K':
			if (cfg.nknown < 16)
				cfg.known[cfg.nknown++] = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (config_from_env(&cfg))
		return 2;
	fz_logs_mark(&cfg);
	if (!seed_given)
		cfg.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	t0 = last_stats = now_s();
	if (cfg.replay) {
		struct stat sb;

		if (stat(cfg.replay, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			status = run_replay_dir(&cfg, st, cfg.replay);
			free(st);
			free(co);
			return status;
		}
		if (trace_read(cfg.replay, &t)) {
			fprintf(stderr, "fuzz: %s: not a trace\n", cfg.replay);
			return 2;
		}
	} else if (trace_text && trace_parse(trace_text, &t)) {
		fprintf(stderr, "fuzz: --trace: not a trace\n");
		return 2;
	}
	if (t.actions) {
		next_index = 1;
		run_sequence(&cfg, st, &t, 0, &res);
		if (res.kind[0])
			report(&cfg, st, &t, &res, 0, &next_index, t0);
		else
			fprintf(stderr, "fuzz: trace ran clean\n");
		print_stats(&cfg, st, now_s() - t0, 0);
		free(t.actions);
		free(st);
		free(co);
		return res.kind[0] ? 1 : 0;
	}
	fprintf(stderr,
		"fuzz: seed 0x%llx, %u actions per sequence, %.0f s; metadata server %s:%u, data server %u, NFSv3 %s\n",
		(unsigned long long)cfg.seed, cfg.actions, cfg.seconds,
		cfg.host, cfg.port, cfg.ds_port,
		cfg.mnt_port && !cfg.no_v3 ? "on" : "off");
	t.actions = calloc(FZ_MAX_ACTIONS, sizeof(uint64_t));
	mr.s = cfg.seed ^ 0x5eedULL;
	next_index = 1L << 40; /* the minimizer's sequences */
	for (index = cfg.sequence >= 0 ? cfg.sequence : 0;; index++) {
		if (now_s() - t0 >= cfg.seconds ||
		    (cfg.max_sequences >= 0 &&
		     (long)st->sequences >= cfg.max_sequences))
			break;
		if (co->n && cfg.sequence < 0 && fz_chance(&mr, 40))
			mutate(co, &mr, &t, FZ_MAX_ACTIONS / 2);
		else
			fresh(&cfg, index, &t);
		run_sequence(&cfg, st, &t, index, &res);
		if (res.new_coverage && !res.kind[0])
			corpus_add(co, &t);
		if (res.kind[0]) {
			report(&cfg, st, &t, &res, index, &next_index, t0);
			status = 1;
			if (!cfg.keep_going)
				break;
			restart_dead_servers(&cfg);
		}
		if (now_s() - last_stats >= 60) {
			print_stats(&cfg, st, now_s() - t0, co->n);
			last_stats = now_s();
		}
		if (cfg.sequence >= 0)
			break;
	}
	print_stats(&cfg, st, now_s() - t0, co->n);
	print_ops(st);
	while (co->n)
		free(co->e[--co->n].actions);
	free(co);
	free(t.actions);
	free(st);
	return status;
}
