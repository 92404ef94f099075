#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# copy_range.py SRC DST: copy_file_range(2) of all of SRC into DST (made or
# truncated), in a loop (a call may copy less than asked), then fsync DST.
# Exit status 1 when the source ended early.  (The guest of t_cephfs.sh
# and the host side alike; xfs_io's copy_range asks once.)
import os
import sys

src = os.open(sys.argv[1], os.O_RDONLY)
dst = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
left = os.fstat(src).st_size
while left > 0:
    n = os.copy_file_range(src, dst, left)
    if n == 0:
        break
    left -= n
os.fsync(dst)
os.close(dst)
sys.exit(1 if left else 0)
