/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * bench_mklayout FILE SIZE_MIB LAYOUT: a file of known data/hole layout for
 * bench/readplus.sh and bench/copy.sh.  LAYOUT is "data" (all data),
 * "hole" (all hole: only the size is set) or "mixed-<K>d" / "mixed-<K>h":
 * K KiB of data and K KiB of hole alternating, starting with data (d) or
 * with a hole (h).  Data is pseudo-random (never a zero block, so no
 * filesystem or server can take it for a hole).  The file is fsynced.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF (1u << 20)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* xorshift64*: fill buf with pseudo-random bytes */
static void fill(uint8_t *buf, size_t len)
{
	uint64_t v;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		rng ^= rng >> 12;
		rng ^= rng << 25;
		rng ^= rng >> 27;
		v = rng * 0x2545f4914f6cdd1dull;
		memcpy(buf + i, &v, 8);
	}
}

static int write_at(int fd, const uint8_t *buf, size_t len, off_t off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t size, seg = 0, off, len;
	bool data_first = true, all_data = false;
	uint8_t *buf;
	char kind;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: bench_mklayout FILE SIZE_MIB LAYOUT\n");
		return 2;
	}
	size = strtoull(argv[2], NULL, 0) << 20;
	if (!strcmp(argv[3], "data")) {
		all_data = true;
	} else if (!strcmp(argv[3], "hole")) {
		seg = 0;
	} else if (sscanf(argv[3], "mixed-%" SCNu64 "%c", &seg, &kind) == 2 &&
		   seg > 0 && (kind == 'd' || kind == 'h')) {
		seg <<= 10;
		data_first = kind == 'd';
	} else {
		fprintf(stderr, "bench_mklayout: bad layout %s\n", argv[3]);
		return 2;
	}
	buf = malloc(BUF);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (!buf || fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (off = 0; (all_data || seg) && off < size; off += len) {
		if (all_data) {
			len = size - off < BUF ? size - off : BUF;
		} else {
			len = size - off < seg ? size - off : seg;
			/* segment number off / seg: data on even ones if
			 * data comes first */
			if (((off / seg) % 2 == 0) != data_first)
				continue;
		}
		fill(buf, len < BUF ? len : BUF);
		if (len > BUF || write_at(fd, buf, len, off)) {
			perror(argv[1]);
			return 1;
		}
	}
	if (ftruncate(fd, size) || fsync(fd) || close(fd)) {
		perror(argv[1]);
		return 1;
	}
	free(buf);
	return 0;
}
