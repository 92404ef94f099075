/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * nfs42's arguments: a verb's words matched against its synopsis before
 * connecting, the usage text and `help VERB`, all from the verb table
 * (verbs.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define NVERBS cli_nverbs
#define verbs cli_verbs

/*
 * Print text wrapped at 80 columns: the first line goes on from column
 * col (what is already printed on it), the next ones are indented by
 * indent.  A bracketed group ("[-d DEPTH]") is never split.
 */
static void wrap(FILE *f, const char *text, int col, int indent)
{
	const char *p = text;
	bool first = true;
	int n, depth;

	while (*p) {
		for (n = 0, depth = 0; p[n] && (depth || p[n] != ' '); n++)
			depth += (p[n] == '[') - (p[n] == ']');
		if (!first && col + 1 + n > 80) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			first = true;
		}
		fprintf(f, "%s%.*s", first ? "" : " ", n, p);
		col += n + !first;
		first = false;
		for (p += n; *p == ' '; p++)
			;
	}
	fputc('\n', f);
}

/* "usage: nfs42 [options] SYNOPSIS", wrapped. */
static void verb_usage(FILE *f, const struct verb *v)
{
	static const char lead[] = "usage: nfs42 [options] ";

	fputs(lead, f);
	wrap(f, v->synopsis, sizeof(lead) - 1, 8);
}

void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: nfs42 [-s host] [-p port] [-m 1|2] [-u uid -g gid]\n"
		"             [-G gid,...] [-t timeout_s] VERB ARGS\n"
		"       nfs42 --help | help VERB\n"
		"  -s    server (default 127.0.0.1)   -p  port (default 2049)\n"
		"  -m    NFSv4 minor version (default 2)\n"
		"  -u -g -G  AUTH_SYS uid, gid and groups (default 0, 0)\n"
		"  -t    timeout of the connection and each call, seconds\n"
		"verbs (their options in any order, before or after the rest;\n"
		"-- ends them; PATH, SRC, DST, FROM and TO are absolute paths\n"
		"on the server):\n");
	for (i = 0; i < NVERBS; i++) {
		fputs("  ", f);
		wrap(f, verbs[i].synopsis, 2, 8);
		fputs("      ", f);
		wrap(f, verbs[i].help, 6, 6);
	}
	fprintf(f,
		"exit status: 0 ok, 1 NFS error, 2 bad arguments or a local\n"
		"file error, 3 connection or transport error\n"
		"environment: NFS42_HOST, NFS42_PORT give defaults for -s/-p\n");
}

static bool parse_mode(const char *s, uint32_t *mode)
{
	char *end;
	unsigned long v = strtoul(s, &end, 8);

	if (!*s || *end || v > 07777)
		return false;
	*mode = v;
	return true;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return isdigit((unsigned char)*s) && !*end && !errno;
}

static const struct verb *find_verb(const char *name)
{
	size_t i;

	for (i = 0; i < NVERBS; i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

/* A synopsis item naming a path on the server: it must be absolute. */
static bool remote_path(const char *item)
{
	static const char *const names[] = { "PATH", "SRC", "DST", "FROM",
					     "TO" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(item, names[i]))
			return true;
	return false;
}

/* What a word standing for item must be, for the error message. */
static void item_rule(const char *item, char *buf, size_t sz)
{
	if (!strcmp(item, "MODE"))
		snprintf(buf, sz, "an octal mode, 0 to 07777");
	else if (!strcmp(item, "SIZE") || !strcmp(item, "OFFSET"))
		snprintf(buf, sz, "a number (decimal, or 0x hex)");
	else if (!strcmp(item, "DEPTH"))
		snprintf(buf, sz, "a number from 1 to %d", DEPTH_MAX);
	else if (remote_path(item))
		snprintf(buf, sz, "absolute (start with /)");
	else if (strchr(item, '|'))
		snprintf(buf, sz, "one of %s", item);
	else
		snprintf(buf, sz, "not empty");
}

/*
 * Whether word fits the synopsis item it stands for, storing its value:
 * MODE is octal (at most 07777), SIZE and OFFSET numbers, a|b one of the
 * words given, PATH, SRC, DST, FROM and TO absolute paths; anything else
 * (FILE, NAME...) a non-empty word.
 */
static bool match_word(const char *item, const char *word, struct args *a)
{
	size_t len = strlen(word), n;
	const char *p;
	uint64_t num;

	snprintf(a->bad_item, sizeof(a->bad_item), "%s", item);
	if (!strcmp(item, "MODE"))
		return parse_mode(word, &a->mode);
	if (!strcmp(item, "SIZE") || !strcmp(item, "OFFSET"))
		return parse_u64(word, &a->num);
	if (!strcmp(item, "DEPTH"))
		return parse_u64(word, &num) && num >= 1 && num <= DEPTH_MAX &&
		       (a->depth = num);
	if (remote_path(item))
		return word[0] == '/';
	if (strchr(item, '|') == NULL)
		return word[0] != '\0';
	for (p = item;; p += n + 1) {
		n = strcspn(p, "|");
		if (n == len && !strncmp(p, word, len))
			return true;
		if (p[n] == '\0')
			return false;
	}
}

/* One item of a synopsis: an option ("[-x]", "[-x ITEM]") or a word. */
struct syn_item {
	char name[32]; /* "-x", "--long", or the word's ITEM */
	char value[16]; /* an option's ITEM, "" for a flag */
	bool option;
};

/* The items of v's synopsis after the verb; their number. */
static int synopsis_items(const struct verb *v, struct syn_item *items, int max)
{
	char buf[128], *save = NULL, *it, *val;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", v->synopsis);
	strtok_r(buf, " ", &save); /* the verb */
	if (strchr(v->name, ' ')) /* "xattr get": two words */
		strtok_r(NULL, " ", &save);
	while ((it = strtok_r(NULL, " ", &save)) != NULL && n < max) {
		struct syn_item *si = &items[n++];

		memset(si, 0, sizeof(*si));
		if (it[0] != '[') {
			snprintf(si->name, sizeof(si->name), "%s", it);
			continue;
		}
		si->option = true;
		it++;
		val = NULL;
		if (it[strlen(it) - 1] != ']')
			val = strtok_r(NULL, " ", &save);
		if (val != NULL) {
			val[strlen(val) - 1] = '\0';
			snprintf(si->value, sizeof(si->value), "%s", val);
		} else {
			it[strlen(it) - 1] = '\0';
		}
		snprintf(si->name, sizeof(si->name), "%s", it);
	}
	return n;
}

/*
 * Match the words after the verb (argv[1..argc)) against the synopsis of
 * v: its options ("[-x]" a flag, "[-x ITEM]" one with a value) anywhere,
 * in any order, until "--"; the other words, in order, one for each
 * other item (see match_word()).  0 when they fit, -1 for too few or too
 * many words (told first: a missing word is the likelier mistake), else
 * the index of the first word that does not fit (a->bad_item its item).
 */
static int match_args(const struct verb *v, int argc, char **argv,
		      struct args *a)
{
	struct syn_item items[12];
	int nitems = synopsis_items(v, items, 12);
	int i, j, next = 0; /* next: the item the next word is for */
	int bad = 0;
	char bad_item[sizeof(a->bad_item)] = "";
	bool options = true;

	memset(a, 0, sizeof(*a));
	a->local_fd = -1;
	for (i = 1; i < argc; i++) {
		const char *w = argv[i];
		const char *item;
		char key;

		if (options && !strcmp(w, "--")) {
			options = false;
			continue;
		}
		if (options && w[0] == '-' && w[1] != '\0') {
			for (j = 0; j < nitems; j++)
				if (items[j].option &&
				    !strcmp(items[j].name, w))
					break;
			if (j == nitems)
				return i;
			/* the key: -x or --x... */
			key = w[1] == '-' ? w[2] : w[1];
			OPT(a, key) = w;
			if (!items[j].value[0])
				continue;
			if (++i >= argc)
				return -1;
			item = items[j].value;
			OPT(a, key) = argv[i];
		} else {
			while (next < nitems && items[next].option)
				next++;
			if (next == nitems)
				return -1;
			item = items[next++].name;
			a->word[a->nwords++] = w;
		}
		if (!match_word(item, argv[i], a) && !bad) {
			bad = i;
			memcpy(bad_item, a->bad_item, sizeof(bad_item));
		}
	}
	while (next < nitems && items[next].option)
		next++;
	if (next != nitems)
		return -1;
	memcpy(a->bad_item, bad_item, sizeof(bad_item));
	return bad;
}

/* The verb of argv[0] if its arguments fit, else NULL (told). */
const struct verb *check_verb(int argc, char **argv, struct args *a)
{
	const struct verb *v = find_verb(argv[0]);
	char two[32], rule[64];
	int bad;

	/* "xattr SUB": the verb is both words, the arguments follow SUB */
	if (v == NULL && !strcmp(argv[0], "xattr") && argc > 1) {
		snprintf(two, sizeof(two), "xattr %s", argv[1]);
		v = find_verb(two);
		if (v != NULL) {
			argc--;
			argv++;
		}
	}

	if (v == NULL) {
		fprintf(stderr, "nfs42: unknown verb '%s'\n", argv[0]);
		usage(stderr);
		return NULL;
	}
	bad = match_args(v, argc, argv, a);
	if (bad == 0)
		return v;
	if (bad < 0)
		fprintf(stderr, "nfs42: wrong number of arguments for %s\n",
			v->name);
	else if (argv[bad][0] == '-' && argv[bad - 1][0] != '-')
		fprintf(stderr, "nfs42: unknown option '%s' for %s\n",
			argv[bad], v->name);
	else {
		item_rule(a->bad_item, rule, sizeof(rule));
		fprintf(stderr,
			"nfs42: bad argument '%s' for %s: %s must be %s\n",
			argv[bad], v->name, a->bad_item, rule);
	}
	verb_usage(stderr, v);
	return NULL;
}

/* What prepare() got: the local file, the xattr value. */
void args_free(struct args *a)
{
	if (a->local_fd >= 0)
		close(a->local_fd);
	a->local_fd = -1;
	free(a->value);
	a->value = NULL;
}

/* Print a verb's usage and what it does, wrapped. */
static void verb_help(const struct verb *v)
{
	verb_usage(stdout, v);
	fputs("  ", stdout);
	wrap(stdout, v->help, 2, 2);
}

/* nfs42 help [VERB [SUB]]: the verbs that start with the words given. */
int cmd_help(int argc, char **argv)
{
	char want[64] = "";
	size_t i, len, shown = 0;

	if (argc == 1) {
		usage(stdout);
		return 0;
	}
	snprintf(want, sizeof(want), "%s%s%s", argv[1], argc > 2 ? " " : "",
		 argc > 2 ? argv[2] : "");
	len = strlen(want);
	for (i = 0; i < NVERBS; i++) {
		if (strncmp(verbs[i].name, want, len) ||
		    (verbs[i].name[len] != '\0' && verbs[i].name[len] != ' '))
			continue;
		verb_help(&verbs[i]);
		shown++;
	}
	if (shown && argc <= 3)
		return 0;
	fprintf(stderr, "nfs42: no verb '%s'; nfs42 --help lists them\n", want);
	return EXIT_USAGE;
}
