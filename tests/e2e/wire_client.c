/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/*
 * wire_client blksize PATH: for wire_check_v42.sh, the one request the
 * nfs42 CLI does not send: GETATTR {supported_attrs, clone_blksize}
 * (attribute 77, RFC 7862 12.2.1) of PATH; prints clone_blksize, or
 * "none" when the reply lacks it.  Server from NFS42_HOST/NFS42_PORT.
 * Exit 0, 1 on an NFS or transport error, 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "nfs42.h"

int main(int argc, char **argv)
{
	struct nfs42_bitmap bm;
	struct nfs42_client *cl = NULL;
	struct nfs42_opts o;
	struct nfs42_attrs a;
	struct nfs42_fh fh;
	int rc;

	if (argc != 3 || strcmp(argv[1], "blksize") != 0) {
		fprintf(stderr, "usage: wire_client blksize PATH\n");
		return 2;
	}
	nfs42_opts_init(&o);
	nfs42_opts_from_env(&o);
	rc = nfs42_client_create(&o, &cl);
	if (!rc)
		rc = nfs42_lookup_path(cl, argv[2], &fh, NULL);
	if (!rc) {
		bm = nfs42_bm_make(FATTR4_SUPPORTED_ATTRS, FATTR4_CLONE_BLKSIZE,
				   -1);
		rc = nfs42_getattr_fh(cl, &fh, &bm, &a);
	}
	if (rc) {
		fprintf(stderr, "wire_client: %s: %s (%s)\n", argv[2],
			nfs42_strerror(rc), cl ? nfs42_client_error(cl) : "");
		nfs42_client_free(cl);
		return 1;
	}
	if (nfs42_bm_isset(&a.mask, FATTR4_CLONE_BLKSIZE))
		printf("%u\n", a.clone_blksize);
	else
		printf("none\n");
	nfs42_client_free(cl);
	return 0;
}
