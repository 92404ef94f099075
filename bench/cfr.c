/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * bench_cfr SRC DST: bench/copy.sh's physical reference, a local copy
 * with copy_file_range(2) only (never a read/write fallback: an error,
 * EXDEV or ENOSYS included, exits 1), then fsync of DST, as nfs42 cp
 * COMMITs.  DST is created or truncated.  Prints the calls made.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long calls = 0;
	struct stat st;
	off_t left;
	ssize_t n;
	int in, out;

	if (argc != 3) {
		fprintf(stderr, "usage: bench_cfr SRC DST\n");
		return 2;
	}
	in = open(argv[1], O_RDONLY);
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0 || fstat(in, &st)) {
		perror("bench_cfr: open");
		return 1;
	}
	for (left = st.st_size; left > 0; left -= n) {
		n = copy_file_range(in, NULL, out, NULL, left, 0);
		calls++;
		if (n <= 0) {
			perror("bench_cfr: copy_file_range");
			return 1;
		}
	}
	if (fsync(out) || close(out)) {
		perror("bench_cfr: fsync");
		return 1;
	}
	close(in);
	printf("copy_file_range: %lld bytes in %lu calls\n",
	       (long long)st.st_size, calls);
	return 0;
}
