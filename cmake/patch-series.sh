#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# patch-series.sh DIR: the patches of DIR (patches/ or patches/ntirpc/) in
# the order of DIR/series, one file name a line. DIR/series is a quilt
# series: one patch file name a line, '#' comments and blank lines
# ignored, no patch options. It fails (exit 1, naming what is wrong) when
# the series is missing, names a file that is not there or names one
# twice, or when a DIR/*.patch is not in it: a patch added, renamed or
# removed must be added to, or taken out of, the series in the same
# change (cmake/prepare-sources.sh and scripts/package.sh apply the list).
set -euo pipefail

dir=${1:?usage: patch-series.sh DIR}
series=$dir/series
[ -f "$series" ] || { echo "patch-series: $series is missing" >&2; exit 1; }

bad=0
declare -A listed=()
names=()
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	line=${line%%#*}
	line=$(echo "$line" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
	[ -n "$line" ] || continue
	if [[ ! "$line" =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*\.patch$ ]]; then
		echo "patch-series: $series:$lineno: '$line' is not a patch file name (no options, no directories)" >&2
		bad=1
	elif [ -n "${listed[$line]:-}" ]; then
		echo "patch-series: $series:$lineno: $line is listed twice" >&2
		bad=1
	elif [ ! -f "$dir/$line" ]; then
		echo "patch-series: $series:$lineno: $line is listed but $dir/$line does not exist" >&2
		bad=1
	else
		listed[$line]=1
		names+=("$line")
	fi
done <"$series"
for p in "$dir"/*.patch; do
	[ -e "$p" ] || continue
	[ -n "${listed[$(basename "$p")]:-}" ] && continue
	echo "patch-series: $(basename "$p") is in $dir but not in $series" >&2
	bad=1
done
[ $bad = 0 ] || exit 1
[ ${#names[@]} -eq 0 ] || printf '%s\n' "${names[@]}"
