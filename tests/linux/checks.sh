# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# Check helpers shared by the guest (guest-lib.sh) and the host (lib.sh)
# sides of tests/linux: each prints one line, "ok<TAG>: ..." or
# "FAIL<TAG>: ...", and failures are counted in CHECK_FAILS. CHECK_TAG is
# set by the sourcing side (" (host)" on the host).
CHECK_FAILS=0
CHECK_TAG=${CHECK_TAG:-}

# ok/bad MESSAGE: one check's result, counted
ok() { echo "ok$CHECK_TAG: $*"; }
bad() {
	echo "FAIL$CHECK_TAG: $*"
	CHECK_FAILS=$((CHECK_FAILS + 1))
}
# check MESSAGE CMD...: ok when CMD succeeds
check() {
	local msg=$1
	shift
	if "$@"; then ok "$msg"; else bad "$msg"; fi
}
# check_eq MESSAGE GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else bad "$1: got '$2', want '$3'"; fi
}
# check_le MESSAGE GOT MAX
check_le() {
	if [ "$2" -le "$3" ]; then ok "$1 ($2 <= $3)"; else bad "$1: got $2, want <= $3"; fi
}
# check_ge MESSAGE GOT MIN
check_ge() {
	if [ "$2" -ge "$3" ]; then ok "$1 ($2 >= $3)"; else bad "$1: got $2, want >= $3"; fi
}
