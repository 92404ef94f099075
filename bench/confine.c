/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * bench_confine: what FSAL_SPARSE's export confinement check itself costs
 * per object, in process, without the server around it (bench/handles.sh
 * measures it end to end).  Makes CHAINS directory chains of DEPTH levels
 * with one file per level under a temporary export directory (TMPDIR),
 * opens every object O_PATH as create_handle does, and times
 * sparse_confine_check() for the directories, the files, and objects
 * outside the export (a sibling tree), median of RUNS passes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "sparse_fs.h"

struct obj {
	int fd;
	struct stat st;
};

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void add(struct obj *o, int *n, const char *path)
{
	o[*n].fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (o[*n].fd < 0 || fstat(o[*n].fd, &o[*n].st) != 0)
		die(path);
	(*n)++;
}

/* CHAINS chains of DEPTH directories under top, a file in each. */
static void make_tree(const char *top, int chains, int depth, struct obj *dirs,
		      struct obj *files, int *nd, int *nf)
{
	char path[8192];

	if (mkdir(top, 0755) != 0)
		die(top);
	for (int c = 0; c < chains; c++) {
		int len = snprintf(path, sizeof(path), "%s/c%d", top, c);

		for (int l = 0; l < depth; l++) {
			int fd;

			if (l > 0)
				len += snprintf(path + len, sizeof(path) - len,
						"/l%d", l);
			if (mkdir(path, 0755) != 0)
				die(path);
			add(dirs, nd, path);
			strcat(path, "/f");
			fd = open(path, O_WRONLY | O_CREAT, 0644);
			if (fd < 0)
				die(path);
			close(fd);
			add(files, nf, path);
			path[len] = '\0';
		}
	}
}

/* Median microseconds per check of objs; want is the expected verdict. */
static double time_checks(const struct sparse_confine *c,
			  const struct obj *objs, int n, int want, int runs)
{
	double v[64];

	for (int r = 0; r < runs; r++) {
		double t0 = now_s();

		for (int i = 0; i < n; i++)
			if (sparse_confine_check(c, objs[i].fd, &objs[i].st) !=
			    want) {
				fprintf(stderr,
					"bench_confine: wrong verdict\n");
				exit(1);
			}
		v[r] = (now_s() - t0) * 1e6 / n;
	}
	qsort(v, runs, sizeof(v[0]), cmp_double);
	return v[runs / 2];
}

int main(int argc, char **argv)
{
	int chains = argc > 1 ? atoi(argv[1]) : 100;
	int depth = argc > 2 ? atoi(argv[2]) : 16;
	int runs = argc > 3 ? atoi(argv[3]) : 9;
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int n = chains * depth, nd = 0, nf = 0, no = 0, ndo = 0, root_fd;
	struct obj *dirs, *files, *out_dirs, *out_files;
	struct sparse_confine c;
	char base[4096], top[4200];

	if (chains < 1 || depth < 1 || runs < 1 || runs > 64) {
		fprintf(stderr,
			"usage: bench_confine [chains] [depth] [runs<=64]\n");
		return 2;
	}
	dirs = calloc(n, sizeof(*dirs));
	files = calloc(n, sizeof(*files));
	out_dirs = calloc(n, sizeof(*out_dirs));
	out_files = calloc(n, sizeof(*out_files));
	snprintf(base, sizeof(base), "%s/bench-confine.XXXXXX", tmp);
	if (!dirs || !files || !out_dirs || !out_files || !mkdtemp(base))
		die("setup");
	snprintf(top, sizeof(top), "%s/export", base);
	make_tree(top, chains, depth, dirs, files, &nd, &nf);
	snprintf(top, sizeof(top), "%s/outside", base);
	make_tree(top, chains, depth, out_dirs, out_files, &ndo, &no);
	snprintf(top, sizeof(top), "%s/export", base);
	root_fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0 || sparse_confine_init(&c, root_fd) != 0)
		die("export root");

	printf("sparse_confine_check, %d objects of each kind at depths 1..%d, median of %d passes\n",
	       n, depth, runs);
	printf("  directories inside   %6.2f us\n",
	       time_checks(&c, dirs, nd, 1, runs));
	printf("  files inside         %6.2f us\n",
	       time_checks(&c, files, nf, 1, runs));
	printf("  directories outside  %6.2f us\n",
	       time_checks(&c, out_dirs, ndo, 0, runs));
	printf("  files outside        %6.2f us\n",
	       time_checks(&c, out_files, no, 0, runs));
	for (int i = 0; i < n; i++) {
		close(dirs[i].fd);
		close(files[i].fd);
		close(out_dirs[i].fd);
		close(out_files[i].fd);
	}
	close(root_fd);
	free(dirs);
	free(files);
	free(out_dirs);
	free(out_files);
	if (system(NULL)) {
		char cmd[4300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
		if (system(cmd) != 0)
			fprintf(stderr, "bench_confine: could not remove %s\n",
				base);
	}
	return 0;
}
