#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_knfsd.sh SCRIPT ARGS: a guest script of this directory against knfsd
# in the guest (guest/knfsd-pre.sh on 127.0.0.1:2049, exporting the
# filesystem LINUX_KNFSD_FS names: ext4, the default, or tmpfs; lib.sh's
# knfsd_guest) instead of our server: which workloads pass on the peer
# (docs/benchmarks.md). Host-side checks of our backing directory do not
# apply. Part of run-all.sh; no server of ours is involved.
# LINUX_KNFSD_FAILS (an extended regex) names the checks knfsd is known
# to fail: the test passes when exactly the failed checks match it (each
# failing line is printed as "knfsd fails: ...").
. "$(dirname "$0")/lib.sh"
linux_full_only
script=$1
shift
rc=0
knfsd_guest "${LINUX_KNFSD_FS:-ext4}"
linux_guest --mem 3072 --timeout 3000 "${KNFSD_OPTS[@]}" \
	--env NFS_SERVER=127.0.0.1 --env NFS_PORT=2049 \
	--env "NFS_EXPORT=$KNFSD_EXPORT" -- "$script" "$@" || rc=$?
known=${LINUX_KNFSD_FAILS:-}
if [ -n "$known" ] && [ "$rc" = 1 ] && [ -f "$LINUX_OUT/xchg/output" ]; then
	fails=$(grep '^FAIL: ' "$LINUX_OUT/xchg/output" || true)
	sed 's/^FAIL: /knfsd fails: /' <<<"$fails"
	if [ -n "$fails" ] && ! grep -Evq "$known" <<<"$fails"; then
		rc=0
	fi
fi
if [ -n "$known" ] && [ "$rc" = 0 ] && [ -f "$LINUX_OUT/xchg/output" ] &&
   ! grep -Eq "^FAIL: ($known)" "$LINUX_OUT/xchg/output"; then
	h_bad "knfsd passed a check listed in LINUX_KNFSD_FAILS ($known): update it"
fi
h_done $rc
