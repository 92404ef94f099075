#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# series_check.sh [REPO]: the patch series and its index agree (ctest
# patches/series). For patches/series and patches/ntirpc/series:
#   - the series and the directory list the same patches
#     (cmake/patch-series.sh);
#   - every patch starts with a DEP-3 header: Description (a summary line
#     and an indented longer text), Author, Forwarded (not-needed,
#     upstream-candidate, no, yes or a URL), Last-Update (YYYY-MM-DD), then
#     the diff;
#   - docs/integration.md has one row per patch, in series order, whose
#     description starts with the patch's Description line in bold and
#     whose files column names exactly the files the patch changes (by
#     base name; a directory may be said once for the names after it);
#   - each patch of the group "Upstream bug fixes" of patches/series
#     applies alone, without fuzz, to Ganesha 6.5 as released (the
#     verified tarball of the source cache; said and not checked when the
#     cache does not have it).
set -euo pipefail
shopt -s inherit_errexit

here=$(cd "$(dirname "$0")/../.." && pwd)
repo=${1:-$here}
doc=$repo/docs/integration.md
fail=0
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# header FILE: the lines before the diff (the first "diff " or "--- a/")
header() { awk '/^(diff |--- a\/)/ { exit } { print }' "$1"; }
# synopsis FILE: the Description line's text
synopsis() { header "$1" | sed -n '1s/^Description: *//p'; }
# changed_files FILE: base names of the files the patch changes, sorted
changed_files() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1" | sed 's|.*/||' | sort -u
}
# doc_rows: "NAME<TAB>FILES<TAB>WHAT" for each patch row of the index
doc_rows() {
	sed -n 's/^| `\(\(ntirpc\/\)\{0,1\}[0-9]\{4\}-[^`]*\.patch\)` | \(.*\)$/\1\t\3/p' "$doc" |
		awk -F'\t' '{ i = index($2, " | "); print $1 "\t" substr($2, 1, i - 1) "\t" substr($2, i + 3) }'
}

check_header() { # FILE NAME
	local f=$1 name=$2 h
	h=$(header "$f")
	[[ "$(head -n1 <<<"$h")" =~ ^Description:\ [^[:space:]] ]] ||
		{ bad "$name: no 'Description: summary' first line"; return; }
	sed -n '2p' <<<"$h" | grep -q '^ [^[:space:]]' ||
		bad "$name: Description has no indented longer text"
	grep -qx 'Author: The nfs-sparse authors' <<<"$h" ||
		bad "$name: no 'Author: The nfs-sparse authors'"
	grep -qE '^Forwarded: (not-needed|upstream-candidate|no|yes|https?://[^ ]+)$' <<<"$h" ||
		bad "$name: no Forwarded: not-needed|upstream-candidate|no|yes|URL"
	grep -qE '^Last-Update: [0-9]{4}-[0-9]{2}-[0-9]{2}$' <<<"$h" ||
		bad "$name: no 'Last-Update: YYYY-MM-DD'"
	# DEP-3 fields only, no free text between the fields and the diff
	grep -vqE '^(Description:| |[A-Z][A-Za-z-]*: |---$|$)' <<<"$h" &&
		bad "$name: header lines that are neither DEP-3 fields nor their continuation: $(grep -vE '^(Description:| |[A-Z][A-Za-z-]*: |---$|$)' <<<"$h" | head -n1)"
	changed_files "$f" | grep -q . || bad "$name: changes no file"
}

rows=$(doc_rows)
for dir in patches patches/ntirpc; do
	prefix=${dir#patches}
	prefix=${prefix#/}
	prefix=${prefix:+$prefix/}
	if ! list=$("$here/cmake/patch-series.sh" "$repo/$dir" 2>&1); then
		bad "$dir/series: $list"
		continue
	fi
	want=$(sed "s|^|$prefix|" <<<"$list")
	have=$(cut -f1 <<<"$rows" | grep -E "^${prefix}[0-9]{4}-" || true)
	[ -n "$prefix" ] || have=$(grep -v / <<<"$have" || true)
	if [ "$want" != "$have" ]; then
		if [ "$(sort <<<"$want")" = "$(sort <<<"$have")" ]; then
			bad "docs/integration.md lists the patches of $dir/series in another order"
		else
			bad "docs/integration.md's rows are not those of $dir/series:"
			diff <(sort <<<"$want") <(sort <<<"$have") | sed -n 's/^</    in the series only:/p; s/^>/    in the index only:/p' || true
		fi
	fi
	for p in $list; do
		f=$repo/$dir/$p
		check_header "$f" "$prefix$p"
		row=$(awk -F'\t' -v n="$prefix$p" '$1 == n' <<<"$rows")
		[ -n "$row" ] || continue
		syn=$(synopsis "$f")
		what=$(cut -f3 <<<"$row")
		lead=$(sed -n 's/^\*\*\([^*]*\)\*\*.*/\1/p' <<<"$what" | tr -d '`')
		[ "${lead%.}" = "${syn%.}" ] ||
			bad "$prefix$p: the index says '${lead%.}', the header '${syn%.}'"
		doc_files=$(cut -f2 <<<"$row" | grep -o '`[^`]*`' | tr -d '`' | sed 's|.*/||' | sort -u)
		if [ "$doc_files" != "$(changed_files "$f")" ]; then
			bad "$prefix$p: the index's files are not those the patch changes:"
			diff <(changed_files "$f") <(echo "$doc_files") | sed -n 's/^</    changed, not listed:/p; s/^>/    listed, not changed:/p' || true
		fi
	done
done
# fixes_group: the patches after the comment "# Upstream bug fixes..." up to
# the next comment
fixes_group() {
	awk '/^#/ { in_fixes = ($0 ~ /^# *Upstream bug fixes/); next }
	     in_fixes && NF { print $1 }' "$repo/patches/series"
}
cache=${SPARSE_SOURCE_CACHE:-$HOME/.cache/nfs-sparse/sources}
tarball=$cache/$(awk '$1 == "nfs-ganesha" { print $3 }' "$here/cmake/sources.pins")
fixes=$(fixes_group)
if [ -z "$fixes" ]; then
	bad "patches/series has no group '# Upstream bug fixes'"
elif [ ! -f "$tarball" ]; then
	echo "series_check: $tarball missing: the fixes are not tried alone on Ganesha 6.5"
else
	pristine=$(mktemp -d "${TMPDIR:-/tmp}/series_check.XXXXXX")
	trap 'rm -rf "$pristine"' EXIT
	tar -C "$pristine" -xzf "$tarball"
	tree=$(ls -d "$pristine"/nfs-ganesha-*)
	before=$fail
	for p in $fixes; do
		out=$(patch -d "$tree" -p1 --dry-run -f <"$repo/patches/$p" 2>&1) &&
			! grep -qi 'fuzz' <<<"$out" ||
			bad "$p (an upstream bug fix) does not apply alone to Ganesha 6.5: $(grep -iE 'fuzz|FAILED|can.t find' <<<"$out" | head -n 2 | tr '\n' ' ')"
	done
	[ $fail -ne $before ] ||
		echo "series_check: the $(wc -w <<<"$fixes") upstream bug fixes each apply alone to $(basename "$tree")"
fi

echo "series_check: $fail problem(s)"
[ $fail -eq 0 ]
