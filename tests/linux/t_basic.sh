#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_basic.sh VERS...: guest/basic.sh on kernel mounts of each NFS version,
# then on the host: each backing file holds what the guest wrote, with the
# owners it set.
. "$(dirname "$0")/lib.sh"
rc=0
linux_guest -- guest/basic.sh "$@" || rc=$?
for v in "$@"; do
	b=$NFS42_BACKING/basic-$v
	[ -f "$LINUX_OUT/xchg/sums-$v" ] || { h_bad "v$v: the guest left no sums"; continue; }
	h_check_eq "v$v: backing file's data" \
		"$(sha256sum <"$b/file" | cut -d' ' -f1)" "$(cat "$LINUX_OUT/xchg/sums-$v")"
	h_check_eq "v$v: backing file's owner" "$(stat -c %u:%g "$b/file")" 1234:5678
	h_check_eq "v$v: backing owner of daemon's file" "$(stat -c %u:%g "$b/daemon")" 1:1
done
h_done $rc
