#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# test_hooks_check.sh: a server started with any TEST-ONLY setting says so
# in its log at startup, one without says nothing.  Each case starts its
# own server (harness.sh) with one setting: each parameter of FSAL_SPARSE's
# Test_Hooks sub-block alone, and the NFSv4 block's Test_Hooks sub-block
# (patch 0034) on FSAL_SPARSE and on FSAL_VFS, and each parameter of
# FSAL_MEM's Test_Hooks sub-block (patch 0064).  The flat Test_* names of
# these blocks are refused (unknown parameters), not silently ignored.
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
nfsv4_warn=':NFS4 :WARN :NFSv4 Test_Hooks: TEST-ONLY settings: Copy_Chunk_Delay_Ms = 10 '
check "NFSv4 Test_Hooks" "$logged" "$nfsv4_warn" \
	--nfsv4-opts 'Test_Hooks { Copy_Chunk_Delay_Ms = 10; }'
# Ganesha's core says it, whatever FSAL the exports use
check "NFSv4 Test_Hooks, FSAL_VFS export" "$logged" "$nfsv4_warn" \
	--fsal VFS --nfsv4-opts 'Test_Hooks { Copy_Chunk_Delay_Ms = 10; }'
mem_warn=':FSAL :WARN :FSAL_MEM: the FSAL block has a Test_Hooks block, TEST-ONLY'
check "FSAL_MEM, no test setting: no TEST-ONLY warning" "$quiet" "TEST-ONLY" \
	--fsal MEM
check "FSAL_MEM Stall_Dir" "$logged" "$mem_warn.*Stall_Dir = /.*/stall," \
	--fsal MEM --fsal-opts 'Test_Hooks { Stall_Dir = "@STALL_DIR@"; }'
check "FSAL_MEM Stall_Ms" "$logged" "$mem_warn.*Stall_Ms = 3\$" \
	--fsal MEM --fsal-opts 'Test_Hooks { Stall_Ms = 3; }'
# An export update (DBus UpdateExport) keeps FSAL_MEM's Test_Hooks: the
# same block is taken, a changed Stall_Ms refused (a restart applies it;
# Ganesha's reply then says "1 exports updated. Errors found: ...")
mem_update='
upd() {
	dbus-send --system --print-reply --dest=org.ganesha.nfsd \
		/org/ganesha/nfsd/ExportMgr org.ganesha.nfsd.exportmgr.UpdateExport \
		string:"$1" string:"EXPORT(Export_Id=1)" 2>&1
}
conf=$NFS42_WORK_DIR/ganesha.conf
sed "s/Stall_Ms = 3;/Stall_Ms = 4;/" "$conf" >"$NFS42_WORK_DIR/changed.conf"
upd "$conf" | grep -q "1 exports updated\"" &&
	upd "$NFS42_WORK_DIR/changed.conf" | grep -q "validation errors in block FSAL" &&
	grep -q "FSAL_MEM export .*: Test_Hooks cannot change without a restart" "$NFS42_LOG"'
if command -v dbus-send >/dev/null; then
	SPARSE_ALLOW_CONFIG_ERRORS=1 check "FSAL_MEM Test_Hooks kept at an export update" \
		"$mem_update" "" --dbus --fsal MEM \
		--fsal-opts 'Test_Hooks { Stall_Ms = 3; }'
else
	echo "skipped: FSAL_MEM Test_Hooks at an export update (no dbus-send)"
fi
# refused NAME HARNESS-OPTS...: the old flat name NAME is an unknown
# parameter (the harness lets the configuration error through)
refused() {
	local name=$1
	shift
	if SPARSE_ALLOW_CONFIG_ERRORS=1 "$harness" "$@" -- \
		sh -c 'grep -E "Unknown parameter \($1\)" "$NFS42_LOG"' check "$name" \
		>"$TMPDIR/out" 2>&1; then
		echo "ok: flat $name refused"
	else
		bad "flat $name: $(tail -n 5 "$TMPDIR/out")"
	fi
}
refused Test_Stall_Ms --fsal-opts 'Test_Stall_Ms = 3;'
refused Test_Stall_Ms --fsal MEM --fsal-opts 'Test_Stall_Ms = 3;'
refused Test_Copy_Chunk_Delay_Ms --nfsv4-opts 'Test_Copy_Chunk_Delay_Ms = 10;'
[ $fail = 0 ] && echo "test_hooks_check: ok"
exit $fail
