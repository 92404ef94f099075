#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# bench-table.sh LABEL=FILE...: the markdown table of guest/bench.sh
# result files, one column each, headed LABEL (the rows of the reads and
# the cp only where every file has them: not after t_bench.sh's "tree"
# runs). The tree rows divide by the entries of the first file.
set -euo pipefail
labels=() files=()
for a in "$@"; do
	labels+=("${a%%=*}")
	files+=("${a#*=}")
done
[ ${#files[@]} -ge 1 ] || { echo "usage: bench-table.sh LABEL=FILE..." >&2; exit 2; }
val() { awk -v a="$2" -v b="${3:-}" -v c="${4:-}" '$1 == a && (b == "" || $2 == b) && (c == "" || $3 == c) { print $NF; exit }' "$1"; }
mb() { awk -v v="${1:-0}" 'BEGIN { printf "%.1f MB", v / 1e6 }'; }
rxread() { echo $(($(val "$1" "$2" rx READ) + $(val "$1" "$2" rx READ_PLUS))); }
per() { awk -v a="${1:-0}" -v n="$2" 'BEGIN { printf "%.2f", a / n }'; }
ops() { # FILE NAME: "total (OP n, ...)" for the ops with most calls
	local t
	t=$(val "$1" "$2" total)
	echo "$t ($(awk -v n="$2" '$1 == n && $2 == "op" { print $4, $3 }' "$1" |
		sort -rn | head -n 4 | awk '{ printf "%s%s %s", s, $2, $1; s = ", " }'))"
}
cpline() { # FILE
	local copy_bytes=$(($(val "$1" cp tx COPY) + $(val "$1" cp rx COPY)))
	echo "$(val "$1" cp op COPY || echo 0); $(awk -v v=$copy_bytes 'BEGIN { printf "%.1f KB", v / 1e3 }'); $(mb "$(val "$1" cp tx WRITE)"); $(mb "$(rxread "$1" cp)")"
}
# row TITLE CMD...: "| TITLE | CMD FILE | ..." for every file
row() {
	local title=$1 f line
	shift
	line="| $title |"
	for f in "${files[@]}"; do
		line="$line $("$@" "$f") |"
	done
	echo "$line"
}
readcell() { echo "$(mb "$(rxread "$2" "read_$1")"), $(ops "$2" "read_$1")"; }
treecell() { echo "$(per "$(val "$2" "$1" total)" "$ne") ($(ops "$2" "$1"))"; }
ne=$(val "${files[0]}" entries)
line="| measure |" sep="| --- |"
for l in "${labels[@]}"; do
	line="$line $l |" sep="$sep --- |"
done
echo "$line"
echo "$sep"
reads=1
for f in "${files[@]}"; do
	[ -n "$(val "$f" read_hole total)" ] || reads=0
done
if [ $reads = 1 ]; then
	for r in hole ninety data; do
		case $r in hole) l="1 GiB all hole" ;; ninety) l="1 GiB, 90 % hole" ;; data) l="1 GiB all data" ;; esac
		row "read $l: bytes received (READ_PLUS + READ), calls" readcell $r
	done
	row "cp of the 1 GiB all-data file (copy_file_range): COPY calls; COPY bytes on the wire; sent as WRITE; received as READ/READ_PLUS" cpline
fi
for w in tar lslR gitstatus rmr; do
	case $w in tar) l="tar -x" ;; lslR) l="ls -lR" ;; gitstatus) l="git status" ;; rmr) l="rm -r" ;; esac
	row "$l of /usr/include/linux ($ne entries): calls per entry (total: most frequent ops)" treecell $w
done
