# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# Sourced by the host side of every tests/linux test (a script run under
# tests/e2e/harness.sh, so NFS42_* name the server).
set -euo pipefail

LINUX_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LINUX_OUT=""
CHECK_TAG=" (host)"
. "$LINUX_DIR/checks.sh"
h_ok() { ok "$@"; }
h_bad() { bad "$@"; }
h_check() { check "$@"; }
h_check_eq() { check_eq "$@"; }
h_check_ge() { check_ge "$@"; }

# linux_full_only: skip (77) unless SPARSE_LINUX_ALL=1 (tests/linux/run-all.sh);
# the tests outside the CI subset
linux_full_only() {
	if [ "${SPARSE_LINUX_ALL:-0}" != 1 ]; then
		echo "linux: skipped: not in the CI subset; tests/linux/run-all.sh runs it"
		exit 77
	fi
}

# linux_guest [vm.sh options] -- GUEST_SCRIPT [ARGS]: run the script in a
# guest (guest/ relative names are this directory's); LINUX_OUT is the
# run's directory (LINUX_OUT/xchg the guest's /run/xchg) until h_done.
# Returns the script's status (77 passes through: the caller exits).
linux_guest() {
	local opts=() rc=0
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	local script=$1
	shift
	[ -f "$script" ] || script=$LINUX_DIR/$script
	[ -n "$LINUX_OUT" ] || LINUX_OUT=$(mktemp -d "${TMPDIR:-/tmp}/linux-test.XXXXXX")
	"$LINUX_DIR/vm.sh" --out "$LINUX_OUT" ${opts[@]+"${opts[@]}"} -- \
		"$script" "$@" || rc=$?
	if [ $rc = 77 ]; then
		rm -rf "$LINUX_OUT"
		exit 77
	fi
	return $rc
}

# ds_io I KEY: counter KEY (wchar, rchar) of harness.sh --pnfs's data
# server I's process (/proc/PID/io)
ds_io() {
	awk -v k="$2:" '$1 == k { print $2 }' "/proc/$(cat "$NFS42_WORK_DIR/ds$1.pid")/io"
}
# ds_io_mark: remember data servers 0 and 1's wchar and rchar
# ds_io_check SIZE: each one's wchar and rchar grew by at least 45 % of
# SIZE (received from the socket and written to the file, read and sent:
# its half of a file striped over two)
declare -A DS_W0 DS_R0
ds_io_mark() {
	local i
	for i in 0 1; do
		DS_W0[$i]=$(ds_io $i wchar)
		DS_R0[$i]=$(ds_io $i rchar)
	done
}
ds_io_check() {
	local i w r size=$1
	for i in 0 1; do
		w=$(($(ds_io $i wchar) - DS_W0[$i]))
		r=$(($(ds_io $i rchar) - DS_R0[$i]))
		echo "data server $i: wrote $w, read $r bytes"
		h_check "data server $i: wchar grew by $w of $size" [ "$w" -ge $((size * 9 / 20)) ]
		h_check "data server $i: rchar grew by $r of $size" [ "$r" -ge $((size * 9 / 20)) ]
	done
}

# knfsd_guest FS: KNFSD_OPTS, the vm.sh options of a guest running knfsd
# (guest/knfsd-pre.sh) on FS, and KNFSD_EXPORT, the path a client there
# mounts. FS: ext4 (an ext4 image exported as rpc.mountd would export
# "/export *(rw,no_root_squash,insecure,no_subtree_check)") or tmpfs (a
# tmpfs exported as the NFSv4 root, fsid=0). The tests take FS from
# LINUX_KNFSD_FS (default ext4; t_bench.sh: a list, one knfsd per word).
knfsd_guest() {
	local mods=nfsd
	case "$1" in
	# ext4 wants crc32c from the crypto API (its softdep)
	ext4) mods="nfsd ext4 crc32c_generic" KNFSD_EXPORT=/export ;;
	tmpfs) KNFSD_EXPORT=/ ;;
	*) echo "linux: LINUX_KNFSD_FS: $1 is neither ext4 nor tmpfs" >&2; return 2 ;;
	esac
	KNFSD_OPTS=(--modules "$mods" --pre "$LINUX_DIR/guest/knfsd-pre.sh"
		--env "KNFSD_FS=$1")
}

# h_done [GUEST_RC]: exit 1 when the guest or a host check failed (the run's
# directory kept), else 0 (removed)
h_done() {
	local grc=${1:-0}
	if [ "$grc" != 0 ] || [ $CHECK_FAILS -ne 0 ]; then
		echo "linux: failed (guest exit $grc, $CHECK_FAILS host check(s)); kept $LINUX_OUT"
		exit 1
	fi
	[ -n "$LINUX_OUT" ] && rm -rf "$LINUX_OUT"
	exit 0
}
