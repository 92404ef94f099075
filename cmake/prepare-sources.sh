#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# prepare-sources.sh CACHE_DIR DEPS_DIR REPO_DIR
#
# Unpacks the verified tarballs from CACHE_DIR into DEPS_DIR, applies
# REPO_DIR/patches/*.patch to Ganesha and REPO_DIR/patches/ntirpc/*.patch to
# libntirpc in the order of their quilt series (patches/series,
# patches/ntirpc/series; cmake/patch-series.sh refuses a patch missing from
# it or a listed one missing), and links every file of REPO_DIR/src
# into Ganesha's src/ at the same relative path (the "overlay").
#
# A tree is unpacked again only when its tarball or its patch set changed,
# so a rebuild with nothing changed touches nothing and
# make sees no new timestamps. Overlay links are refreshed on every run
# (cheap, and new files show up without a re-unpack).
set -euo pipefail
shopt -s inherit_errexit # a failing series stops a $(...) too

cache=${1:?cache dir}
deps=${2:?deps dir}
repo=${3:?repo dir}
pins="$repo/cmake/sources.pins"
mkdir -p "$deps"

pin() { # PKG -> "version tarball sha256"
	awk -v p="$1" '$1 == p { print $2, $3, $4 }' "$pins"
}

# unpack PKG STAMP_TEXT: (re)creates $deps/PKG-VERSION when its stamp differs
unpack() {
	local pkg=$1 want=$2 ver tarball sum dir
	read -r ver tarball sum < <(pin "$pkg")
	dir="$deps/$pkg-$ver"
	if [ -f "$dir.stamp" ] && [ "$(cat "$dir.stamp")" = "$want" ]; then
		return 0
	fi
	echo "prepare-sources: unpacking $tarball"
	rm -rf "$dir" "$dir.stamp"
	tar -C "$deps" -xzf "$cache/$tarball"
	[ -d "$dir" ] || { echo "prepare-sources: $tarball did not give $dir" >&2; exit 1; }
	if [ "$pkg" = nfs-ganesha ]; then
		apply_patches "$dir" "$repo/patches"
	else
		apply_patches "$dir" "$repo/patches/$pkg"
	fi
	# The tarball's files carry their release dates: without this, a file
	# a removed patch used to change would look older than the objects
	# built from the patched version, and make would keep those.
	find "$dir" -exec touch -h {} +
	echo "$want" >"$dir.stamp"
}

apply_patches() { # DIR PATCH_DIR (no fuzz: as dpkg-source applies them)
	local dir=$1 p list
	list=$(series "$2")
	for p in $list; do
		echo "prepare-sources: applying $p"
		patch -d "$dir" -p1 -F 0 --forward --no-backup-if-mismatch -s <"$2/$p" ||
			{ echo "prepare-sources: $p does not apply" >&2; exit 1; }
	done
}

# series PATCH_DIR: its patches in series order (exits when the series and
# the directory disagree)
series() {
	"$repo/cmake/patch-series.sh" "$1" || {
		echo "prepare-sources: fix $1/series (docs/integration.md)" >&2
		exit 1
	}
}

overlay() {
	local gsrc=$1 f rel target
	(cd "$repo/src" && find . -type f ! -name '*~' -printf '%P\n') | while read -r rel; do
		target="$gsrc/$rel"
		if [ -e "$target" ] && [ ! -L "$target" ]; then
			echo "prepare-sources: src/$rel would replace a Ganesha file;" \
			     "change Ganesha files through patches/" >&2
			exit 1
		fi
		mkdir -p "$(dirname "$target")"
		ln -sfn "$repo/src/$rel" "$target"
	done
	# drop links whose file left our tree
	find "$gsrc" -type l ! -exec test -e {} \; -delete
}

read -r _ _ ntirpc_sum < <(pin ntirpc)
read -r gver _ ganesha_sum < <(pin nfs-ganesha)
# patch_sum DIR: one checksum of DIR's patches in series order (not its
# subdirectories): a changed, added, removed or reordered patch changes it
patch_sum() {
	local list
	list=$(series "$1")
	{ echo "$list"; (cd "$1" && cat $list); } | sha256sum | cut -d' ' -f1
}

ntirpc_patches=$(patch_sum "$repo/patches/ntirpc")
ganesha_patches=$(patch_sum "$repo/patches")
unpack ntirpc "$ntirpc_sum patches:$ntirpc_patches"
unpack nfs-ganesha "$ganesha_sum patches:$ganesha_patches"
overlay "$deps/nfs-ganesha-$gver/src"
