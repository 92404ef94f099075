#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_courtesy.sh: the host side of guest/courtesy.sh: once the guest's link
# is down, our client asks for a conflicting lock (retrying LOCK every
# 250 ms for up to 60 s) and holds it until the guest is done with its
# checks; its data must be what the host expects.
. "$(dirname "$0")/lib.sh"
lockbin=${SPARSE_LINUX_LOCK:?}
LINUX_OUT=$(mktemp -d "${TMPDIR:-/tmp}/linux-test.XXXXXX")
x=$LINUX_OUT/xchg
mkdir -p "$x"
host() {
	local i
	for ((i = 0; i < 3000; i++)); do [ -e "$x/link-down" ] && break; sleep 0.1; done
	[ -e "$x/link-down" ] || return 1
	NFS42_HOST=$NFS42_HOST NFS42_PORT=$NFS42_PORT "$lockbin" -r 60 \
		"$NFS42_EXPORT/courtesy/f" 0 0 "$x/host-release" \
		>"$x/host-locked.tmp" 2>"$LINUX_OUT/lock.err" &
	local lp=$!
	for ((i = 0; i < 900; i++)); do grep -q . "$x/host-locked.tmp" && break; sleep 0.1; done
	date +%s >"$LINUX_OUT/host-lock-time"
	cp "$x/host-locked.tmp" "$x/host-locked"
	wait $lp
	cp "$x/host-locked.tmp" "$LINUX_OUT/lock.out"
	touch "$x/host-released"
}
host &
hpid=$!
rc=0
linux_guest --timeout 600 -- guest/courtesy.sh "${1:-40}" || rc=$?
touch "$x/host-release" "$x/link-down"
wait $hpid || true
h_check_eq "the host's lock: granted, then released" \
	"$(tr '\n' ' ' <"$LINUX_OUT/lock.out" 2>/dev/null)" "granted released "
h_check "the write through the guest's lost lock did not reach the file" \
	sh -c "! grep -q 'after the outage' '$NFS42_BACKING/courtesy/f'"
h_done $rc
