#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# test_hooks_check.sh: a server started with any TEST-ONLY setting says so
# in its log at startup, one without says nothing.  Each case starts its
# own server (harness.sh) with one setting: each parameter of FSAL_SPARSE's
# Test_Hooks sub-block alone, and the NFSv4 block's
# Test_Copy_Chunk_Delay_Ms.  The flat Test_* names of the FSAL block from
# before the sub-block are refused (the export is not created), not
# silently ignored.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
harness=$here/harness.sh
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

# the server's log has a line matching ERE $1
logged='grep -E -- "$1" "$NFS42_LOG"'
# the server's log has no line matching ERE $1
quiet='! grep -E -- "$1" "$NFS42_LOG"'

# check NAME CONDITION ERE HARNESS_ARGS...
check() {
	local name=$1 cond=$2 re=$3
	shift 3
	if "$harness" "$@" -- sh -c "$cond" check "$re" >"$TMPDIR/out" 2>&1; then
		echo "ok: $name"
	else
		bad "$name: $(tail -n 5 "$TMPDIR/out")"
	fi
}

TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/test_hooks_check.XXXXXX")
trap 'rm -rf "$TMPDIR"' EXIT
export TMPDIR

fsal_warn=':FSAL :WARN :FSAL_SPARSE: the FSAL block has a Test_Hooks block, TEST-ONLY'
check "no test setting: no TEST-ONLY warning" "$quiet" "TEST-ONLY"
check "Metadata_Latency_Ms" "$logged" "$fsal_warn.*Metadata_Latency_Ms = 7," \
	--fsal-opts 'Test_Hooks { Metadata_Latency_Ms = 7; }'
check "Latency_Scope" "$logged" "$fsal_warn.*Latency_Scope = UPDATES" \
	--fsal-opts 'Test_Hooks { Latency_Scope = UPDATES; }'
check "Skip_Confinement" "$logged" \
	"$fsal_warn.*Skip_Confinement = true.*|Skip_Confinement: handles may reach objects outside" \
	--fsal-opts 'Test_Hooks { Skip_Confinement = true; }'
check "Stall_Dir" "$logged" "$fsal_warn.*Stall_Dir = /.*/stall," \
	--fsal-opts 'Test_Hooks { Stall_Dir = "@STALL_DIR@"; }'
check "Stall_Ms" "$logged" "$fsal_warn.*Stall_Ms = 3\$" \
	--fsal-opts 'Test_Hooks { Stall_Ms = 3; }'
check "NFSv4 Test_Copy_Chunk_Delay_Ms" "$logged" \
	':NFS4 :WARN :NFSv4 Test_Copy_Chunk_Delay_Ms = 10 is a TEST-ONLY setting' \
	--nfsv4-opts 'Test_Copy_Chunk_Delay_Ms = 10;'
# a flat Test_* name: the FSAL block is refused (harness: config error)
if SPARSE_ALLOW_CONFIG_ERRORS=1 "$harness" --fsal-opts 'Test_Stall_Ms = 3;' -- \
	sh -c 'grep -E "Unknown parameter \(Test_Stall_Ms\)" "$NFS42_LOG"' \
	>"$TMPDIR/out" 2>&1; then
	echo "ok: flat Test_Stall_Ms refused"
else
	bad "flat Test_Stall_Ms: $(tail -n 5 "$TMPDIR/out")"
fi
[ $fail = 0 ] && echo "test_hooks_check: ok"
exit $fail
