/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * The lane's RADOS, as Ganesha's user (NFS42_CEPH_USER, NFS42_CEPH_CONF
 * from harness.sh --ceph), for the tests of tests/ceph.
 */
#ifndef E2E_RADOS_UTIL_H
#define E2E_RADOS_UTIL_H

#include <rados/librados.h>
#include "nfs42_e2e.h"

/* Connect to the cluster and open pool (its default namespace). */
static inline void e2e_rados_open(rados_t *cluster, rados_ioctx_t *io,
				  const char *pool)
{
	char name[128];

	snprintf(name, sizeof(name), "client.%s", e2e_env("NFS42_CEPH_USER"));
	ck_assert_int_eq(rados_create2(cluster, "ceph", name, 0), 0);
	ck_assert_int_eq(
		rados_conf_read_file(*cluster, e2e_env("NFS42_CEPH_CONF")), 0);
	ck_assert_int_eq(rados_connect(*cluster), 0);
	ck_assert_int_eq(rados_ioctx_create(*cluster, pool, io), 0);
}

#endif /* E2E_RADOS_UTIL_H */
