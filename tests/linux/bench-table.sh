#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# bench-table.sh OURS KNFSD: the markdown table of two guest/bench.sh
# result files (the rows of the reads and the cp only where both have
# them: not after t_bench.sh's "tree" runs).
set -euo pipefail
o=$1 k=$2
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
ne=$(val "$o" entries)
echo "| measure | ours (FSAL_SPARSE) | knfsd (tmpfs) |"
echo "| --- | --- | --- |"
if [ -n "$(val "$o" read_hole total)" ] && [ -n "$(val "$k" read_hole total)" ]; then
	for r in hole ninety data; do
		case $r in hole) l="1 GiB all hole" ;; ninety) l="1 GiB, 90 % hole" ;; data) l="1 GiB all data" ;; esac
		echo "| read $l: bytes received (READ_PLUS + READ), calls | $(mb "$(rxread "$o" read_$r)"), $(ops "$o" read_$r) | $(mb "$(rxread "$k" read_$r)"), $(ops "$k" read_$r) |"
	done
	cpline() { # FILE
		local copy_bytes=$(($(val "$1" cp tx COPY) + $(val "$1" cp rx COPY)))
		echo "$(val "$1" cp op COPY || echo 0); $(awk -v v=$copy_bytes 'BEGIN { printf "%.1f KB", v / 1e3 }'); $(mb "$(val "$1" cp tx WRITE)"); $(mb "$(rxread "$1" cp)")"
	}
	echo "| cp of the 1 GiB all-data file (copy_file_range): COPY calls; COPY bytes on the wire; sent as WRITE; received as READ/READ_PLUS | $(cpline "$o") | $(cpline "$k") |"
fi
for w in tar lslR gitstatus rmr; do
	case $w in tar) l="tar -x" ;; lslR) l="ls -lR" ;; gitstatus) l="git status" ;; rmr) l="rm -r" ;; esac
	echo "| $l of /usr/include/linux ($ne entries): calls per entry (total: most frequent ops) | $(per "$(val "$o" $w total)" "$ne") ($(ops "$o" $w)) | $(per "$(val "$k" $w total)" "$ne") ($(ops "$k" $w)) |"
done
