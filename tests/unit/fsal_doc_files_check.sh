#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# fsal_doc_files_check.sh [REPO]: docs/fsal_sparse.md's file table (the
# table headed "| file | what is in it |") names every file of
# src/FSAL/FSAL_SPARSE/ and no file that is not there ("x.c/.h" names
# x.c and x.h). Issue #28: five pNFS and delegation files were missing.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
repo=${1:-$here}
doc=$repo/docs/fsal_sparse.md
dir=$repo/src/FSAL/FSAL_SPARSE

listed=$(awk '/^\| file \| what is in it \|$/ { t = 1; next }
	t && !/^\|/ { exit }
	t && /^\| `/ { split($0, c, "`"); print c[2] }' "$doc" |
	sed -E 's|^(.*)\.c/\.h$|\1.c\n\1.h|' | LC_ALL=C sort)
present=$(git -C "$repo" ls-files -co --exclude-standard -- src/FSAL/FSAL_SPARSE 2>/dev/null |
	sed 's|.*/||' | LC_ALL=C sort)
[ -n "$present" ] || present=$(ls "$dir" | LC_ALL=C sort)
status=0
missing=$(LC_ALL=C comm -13 <(echo "$listed") <(echo "$present"))
gone=$(LC_ALL=C comm -23 <(echo "$listed") <(echo "$present"))
if [ -n "$missing" ]; then
	echo "FAIL: docs/fsal_sparse.md's file table lacks:" $missing
	status=1
fi
if [ -n "$gone" ]; then
	echo "FAIL: docs/fsal_sparse.md's file table names files that are not in src/FSAL/FSAL_SPARSE:" $gone
	status=1
fi
[ $status = 1 ] || echo "fsal_doc_files_check: the table names all $(wc -l <<<"$present") files"
exit $status
