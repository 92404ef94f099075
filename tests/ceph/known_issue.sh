#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# known_issue.sh REASON -- CMD...: a test of the Ceph lane that fails now
# and then for a known reason not fixed on this branch (docs/cluster.md,
# section 7): skipped (77) printing REASON, unless
# SPARSE_CEPH_KNOWN_ISSUES=1, which runs CMD.
set -euo pipefail
reason=${1:?usage: known_issue.sh REASON -- CMD...}
shift
[ "${1:-}" = -- ] && shift
if [ "${SPARSE_CEPH_KNOWN_ISSUES:-0}" != 1 ]; then
	echo "skipped (SPARSE_CEPH_KNOWN_ISSUES=1 runs it): $reason"
	exit 77
fi
exec "$@"
