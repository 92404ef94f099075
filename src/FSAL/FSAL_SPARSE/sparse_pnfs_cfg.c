/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE pNFS: data-server addresses, devices and stripes (see
 * sparse_pnfs_cfg.h).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sparse_pnfs_cfg.h"

/* "PORT" of 1..65535, digits only, at most 5 of them. */
static int sparse_parse_port(const char *s, unsigned int *port)
{
	unsigned int v = 0;
	size_t i, n = strlen(s);

	if (n == 0 || n > 5)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -EINVAL;
	*port = v;
	return 0;
}

int sparse_ds_addr_parse(const char *text, struct sparse_ds_addr *out)
{
	char host[INET6_ADDRSTRLEN + 1];
	unsigned char bin[sizeof(struct in6_addr)];
	const char *colon, *port_text;
	unsigned int port;
	size_t hlen;
	bool v6 = false;
	int n;

	if (text == NULL)
		return -EINVAL;
	if (text[0] == '[') {
		const char *end = strchr(text, ']');

		if (end == NULL || end[1] != ':')
			return -EINVAL;
		hlen = (size_t)(end - text - 1);
		port_text = end + 2;
		text++;
		v6 = true;
	} else {
		colon = strrchr(text, ':');
		if (colon == NULL || strchr(text, ':') != colon)
			return -EINVAL;
		hlen = (size_t)(colon - text);
		port_text = colon + 1;
	}
	if (hlen == 0 || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, text, hlen);
	host[hlen] = '\0';
	if (sparse_parse_port(port_text, &port) != 0)
		return -EINVAL;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, host, bin) != 1)
		return -EINVAL;

	/* The universal address: the address as inet_ntop writes it, then
	 * the port's two bytes (RFC 5665 5.2.3).
	 */
	if (inet_ntop(v6 ? AF_INET6 : AF_INET, bin, host, sizeof(host)) == NULL)
		return -EINVAL;
	n = snprintf(out->uaddr, sizeof(out->uaddr), "%s.%u.%u", host,
		     port >> 8, port & 0xff);
	if (n < 0 || (size_t)n >= sizeof(out->uaddr))
		return -EINVAL;
	(void)snprintf(out->netid, sizeof(out->netid), "%s",
		       v6 ? "tcp6" : "tcp");
	return 0;
}

void sparse_stripe_pick(uint64_t key, uint32_t nds, uint32_t stripe_count,
			struct sparse_stripe_pick *pick)
{
	/* (a multiplicative mix: consecutive inode numbers spread too) */
	uint64_t mixed = key * 0x9e3779b97f4a7c15ULL;
	uint32_t slot;

	if (nds == 0) {
		pick->device = 0;
		pick->first_index = 0;
		return;
	}
	slot = (uint32_t)((mixed >> 32) % nds);
	if (stripe_count == 0 || stripe_count >= nds) {
		pick->device = 0;
		pick->first_index = slot;
	} else {
		pick->device = slot;
		pick->first_index = 0;
	}
}

static uint32_t sparse_fnv(uint32_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

uint32_t sparse_pnfs_generation(const struct sparse_ds *ds, uint32_t nds,
				uint32_t stripe_unit, uint32_t stripe_count)
{
	uint32_t h = 2166136261u;
	uint32_t i, j;

	h = sparse_fnv(h, &nds, sizeof(nds));
	h = sparse_fnv(h, &stripe_unit, sizeof(stripe_unit));
	h = sparse_fnv(h, &stripe_count, sizeof(stripe_count));
	for (i = 0; i < nds; i++) {
		h = sparse_fnv(h, &ds[i].naddr, sizeof(ds[i].naddr));
		for (j = 0; j < ds[i].naddr; j++) {
			h = sparse_fnv(h, ds[i].addr[j].netid,
				       strlen(ds[i].addr[j].netid) + 1);
			h = sparse_fnv(h, ds[i].addr[j].uaddr,
				       strlen(ds[i].addr[j].uaddr) + 1);
		}
	}
	return h;
}
