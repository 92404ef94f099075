/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */

/*
 * FSAL_SPARSE pNFS: the data servers of an export's files layouts and the
 * pure rules around them (addresses, devices, stripes).  Free of Ganesha
 * headers so that the unit tests use it as it is (check_sparse_pnfs).
 *
 * A layout of FSAL_SPARSE stripes a file over the export's data servers
 * with sparse packing (RFC 8881 13.4.4): the offset of a byte in the file
 * is its offset in the data server's file, which is the same shared file
 * on every head, so holes stay holes and any head reads what any other
 * wrote.  A device is an ordered list of stripe_count data servers out of
 * the export's list; device r starts at data server r (rotation), so files
 * whose layouts use different devices start on different heads.
 */

#ifndef SPARSE_PNFS_CFG_H
#define SPARSE_PNFS_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPARSE_DS_MAX 64 /* data servers of one export */
#define SPARSE_DS_MAX_PATHS 4 /* addresses (multipath) of one */
#define SPARSE_NETID_LEN 8 /* "tcp", "tcp6" and a NUL */
#define SPARSE_UADDR_LEN 64 /* IPv6 text, ".p1.p2" and a NUL */

#define SPARSE_STRIPE_UNIT_MIN 4096u
#define SPARSE_STRIPE_UNIT_MAX (1u << 30)
#define SPARSE_STRIPE_UNIT_DEFAULT (1u << 20)

/* One address of a data server, as netaddr4 (RFC 8881 3.3.9). */
struct sparse_ds_addr {
	char netid[SPARSE_NETID_LEN];
	char uaddr[SPARSE_UADDR_LEN];
};

/* One data server: the addresses a client may reach it by (multipath). */
struct sparse_ds {
	unsigned int naddr;
	struct sparse_ds_addr addr[SPARSE_DS_MAX_PATHS];
};

/*
 * "A.B.C.D:PORT" or "[IPv6]:PORT" (numeric: a client needs an address,
 * and the universal address of RFC 5665 is numeric) to a netaddr4.
 * Returns 0, or -EINVAL for anything else (a name, no port, port 0 or out
 * of range, garbage around it).
 */
int sparse_ds_addr_parse(const char *text, struct sparse_ds_addr *out);

/*
 * Striping of one file: the device (rotation) its layout names and the
 * first stripe index.  With stripe_count == nds one device is enough (the
 * rotation is done by first_stripe_index); with fewer, device r holds data
 * servers r, r+1, ... (mod nds).  key spreads files (the fileid).
 */
struct sparse_stripe_pick {
	uint32_t device; /* rotation r, 0..nds-1 */
	uint32_t first_index; /* first_stripe_index of the layout */
};
void sparse_stripe_pick(uint64_t key, uint32_t nds, uint32_t stripe_count,
			struct sparse_stripe_pick *pick);

/* The data server (index in the export's list) at stripe index i of
 * device r. */
static inline uint32_t sparse_device_ds(uint32_t r, uint32_t i, uint32_t nds)
{
	return (r + i) % nds;
}

/* Number of devices an export has: 1 when every stripe uses every data
 * server, else one per rotation. */
static inline uint32_t sparse_device_count(uint32_t nds, uint32_t stripe_count)
{
	return stripe_count >= nds ? 1 : nds;
}

/* A generation of the data-server list and stripe settings (FNV-1a): it is
 * part of every device id, so a changed list never answers under an old
 * id. */
uint32_t sparse_pnfs_generation(const struct sparse_ds *ds, uint32_t nds,
				uint32_t stripe_unit, uint32_t stripe_count);

#endif /* SPARSE_PNFS_CFG_H */
