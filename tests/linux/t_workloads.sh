#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_workloads.sh WHAT: guest/workloads.sh WHAT (stress, fio, rsync, git,
# sqlite); on the host, rsync -S's file kept its holes in the backing file.
. "$(dirname "$0")/lib.sh"
what=${1:-stress,fio,rsync,git,sqlite}
[ "${LINUX_FULL_ONLY:-0}" = 1 ] && linux_full_only
rc=0
linux_guest --timeout 1700 -- guest/workloads.sh "$what" || rc=$?
case ",$what," in *,rsync,*)
	f=$NFS42_BACKING/rsync/sparse
	h_check_eq "rsync -S: backing file's data" "$(sha256sum <"$f" | cut -d' ' -f1)" \
		"$(cat "$LINUX_OUT/xchg/rsync.sum" 2>/dev/null)"
	h_check "rsync -S: backing file holds its 1 MiB of data ($(($(stat -c %b "$f") * 512)))" \
		test $(($(stat -c %b "$f") * 512)) -le $((1024 * 1024 + 128 * 1024))
	;;
esac
h_done $rc
