/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* Random choices of the stateful fuzzer: splitmix64 and value shapes. */
#include "fz.h"

uint64_t fz_next(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t fz_mix(uint64_t a, uint64_t b)
{
	struct fz_rng r = { a ^ (b * 0xd1342543de82ef95ull) };

	fz_next(&r);
	return fz_next(&r);
}

uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return n ? (uint32_t)(fz_next(r) % n) : 0;
}

bool fz_chance(struct fz_rng *r, unsigned int percent)
{
	return fz_below(r, 100) < percent;
}

unsigned int fz_weighted(struct fz_rng *r, const unsigned int *weights,
			 unsigned int n)
{
	unsigned int i, total = 0, x;

	for (i = 0; i < n; i++)
		total += weights[i];
	x = fz_below(r, total);
	for (i = 0; i < n; i++) {
		if (x < weights[i])
			return i;
		x -= weights[i];
	}
	return n - 1;
}

/* A boundary of a bits-wide type: 0, 1, 2^k + d, max - d. */
static uint64_t boundary(struct fz_rng *r, unsigned int bits)
{
	uint64_t max = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
	int64_t d = (int64_t)fz_below(r, 9) - 4;
	unsigned int k;

	switch (fz_below(r, 4)) {
	case 0:
		return fz_below(r, 2);
	case 1:
		return max - fz_below(r, 17);
	default:
		k = fz_below(r, bits + 1);
		return ((k >= 64 ? 0 : 1ull << k) + (uint64_t)d) & max;
	}
}

uint32_t fz_u32(struct fz_rng *r)
{
	switch (fz_below(r, 20)) {
	case 0 ... 9: /* ordinary */
		return fz_below(r, 4 * 4096 + 1);
	case 10 ... 16:
		return (uint32_t)boundary(r, 32);
	default:
		return (uint32_t)fz_next(r);
	}
}

uint64_t fz_u64(struct fz_rng *r)
{
	switch (fz_below(r, 20)) {
	case 0 ... 10:
		return fz_below(r, 256 * 1024 + 1);
	case 11 ... 16:
		return boundary(r, 64);
	case 17:
		return (uint64_t)fz_u32(r);
	default:
		return fz_next(r);
	}
}
