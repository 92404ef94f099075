#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# checkstyle.sh [BUILD_DIR] [FILES...]
#
# Ganesha's own style gates on our C sources: clang-format with Ganesha's
# .clang-format (no changes wanted) and Ganesha's checkpatch.pl with its
# checkpatch.conf, both taken from the unpacked Ganesha tree of BUILD_DIR
# (default build/). Exits 1 when anything is reported.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
[ $# -gt 0 ] && shift
gsrc=$(ls -d "$build"/_deps/nfs-ganesha-*/src 2>/dev/null | head -n1)
[ -n "$gsrc" ] || { echo "checkstyle: no unpacked Ganesha under $build/_deps (build first)" >&2; exit 2; }

cd "$repo"
if [ $# -gt 0 ]; then
	files=("$@")
else
	mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h')
fi
# shellcheck disable=SC2207 # the conf is a list of words
opts=($(grep -v '^#' "$gsrc/scripts/checkpatch.conf"))
# Rules that only make sense for patches against Ganesha's own tree.
opts+=(--ignore SPDX_LICENSE_TAG --ignore FILE_PATH_CHANGES)

status=0
for f in "${files[@]}"; do
	if clang-format --style="file:$gsrc/.clang-format" --dry-run "$f" 2>&1 | grep -q warning; then
		echo "$f: clang-format would change it"
		status=1
	fi
	out=$(perl "$gsrc/scripts/checkpatch.pl" "${opts[@]}" --terse --file "$f" 2>&1 |
		grep -v '^total:' || true)
	if [ -n "$out" ]; then
		echo "$out"
		status=1
	fi
done
exit $status
