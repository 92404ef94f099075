# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# The script tests' check helper. Source it: pass and fail count the
# checks; end a script with `check_summary NAME`.

pass=0
fail=0

# check NAME WANT_RC PATTERN -- CMD...: CMD must exit WANT_RC and print
# (stdout and stderr together) a line matching the extended regex PATTERN
check() {
	local name=$1 want=$2 pattern=$3 out rc=0
	shift 4
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" -eq "$want" ] && grep -qE -- "$pattern" <<<"$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $name: rc=$rc (want $want), output:" >&2
		sed 's/^/    /' <<<"$out" | tail -n 8 >&2
	fi
}

# ok NAME CMD...: CMD must succeed (its output is its own)
ok() {
	local name=$1
	shift
	if "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $name" >&2
	fi
}

# check_summary NAME: the counts; the status of the script
check_summary() {
	echo "$1: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
