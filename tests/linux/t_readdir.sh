#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# t_readdir.sh: READDIR replies as large as the Linux client asks (patch
# 0130) seen from the kernel client. Makes, in the backing directory, a
# directory of 250 files with header-like names (rm -r) and one of 600
# (ls -l), then runs guest/readdir.sh on a vers=4.2 mount.
. "$(dirname "$0")/lib.sh"
d=$NFS42_BACKING/readdir
rm -rf "$d"
mkdir -p "$d/rm" "$d/ls"
for ((i = 0; i < 250; i++)); do
	: >"$d/rm/hdr_$i.h"
done
for ((i = 0; i < 600; i++)); do
	echo "$i" >"$d/ls/hdr_$i.h"
done
rc=0
linux_guest -- guest/readdir.sh 250 600 || rc=$?
h_check "the rm -r'd directory is gone from the backing store" \
	test ! -e "$d/rm"
rm -rf "$d"
h_done $rc
