#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_knfsd_matrix.sh: e2e_proto_stateid_matrix against knfsd in the guest
# (guest/stateid_matrix.sh; knfsd on ext4 as t_knfsd.sh runs it): knfsd's
# answer in every cell of docs/stateids.md's matrix, which must be the
# knfsd column (stateid_matrix_knfsd.txt, written by a run of this test:
# STATEID_MATRIX_KNFSD_OUT=FILE copies the table found there).  No server
# of ours is involved.  Part of run-all.sh (a boot of its own).
. "$(dirname "$0")/lib.sh"
linux_full_only
table=$LINUX_DIR/stateid_matrix_knfsd.txt
rc=0
knfsd_guest "${LINUX_KNFSD_FS:-ext4}"
linux_guest --mem 2048 --timeout 1200 "${KNFSD_OPTS[@]}" \
	--env NFS_SERVER=127.0.0.1 --env NFS_PORT=2049 \
	--env "NFS_EXPORT=$KNFSD_EXPORT" -- guest/stateid_matrix.sh "$table" ||
	rc=$?
found=$LINUX_OUT/xchg/stateid_matrix.txt
if [ -f "$found" ]; then
	[ -z "${STATEID_MATRIX_KNFSD_OUT:-}" ] || cp "$found" "$STATEID_MATRIX_KNFSD_OUT"
	h_check "knfsd's answers are the knfsd column" \
		diff -u <(grep -v '^#' "$table") <(grep -v '^#' "$found")
else
	h_bad "no table from the guest"
fi
h_done $rc
