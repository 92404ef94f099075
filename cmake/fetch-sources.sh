#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# fetch-sources.sh CACHE_DIR
#
# Makes sure CACHE_DIR holds the .orig.tar.gz of every package named in
# cmake/sources.pins with the pinned sha256. Missing or corrupt tarballs are
# downloaded as Debian *trixie* source packages through a private apt
# directory (CACHE_DIR/apt), so the machine's own apt state is untouched.
# Tarballs that are already there and verify are never fetched again.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${1:?usage: fetch-sources.sh CACHE_DIR}
pins="$here/sources.pins"
mkdir -p "$cache"

verify() { # FILE SHA256
	[ -f "$1" ] && echo "$2  $1" | sha256sum --quiet -c - >/dev/null 2>&1
}

missing=()
while read -r pkg ver tarball sum; do
	case "$pkg" in ''|'#'*) continue ;; esac
	verify "$cache/$tarball" "$sum" || missing+=("$pkg")
done <"$pins"

[ ${#missing[@]} -eq 0 ] && exit 0

apt_dir="$cache/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
cat >"$apt_dir/trixie-src.sources" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/trixie-src.sources"
	  -o Dir::Etc::SourceParts=/dev/null
	  -o "Dir::State::Lists=$apt_dir/lists"
	  -o "Dir::Cache=$apt_dir/cache"
	  -o APT::Sandbox::User=root)

echo "fetch-sources: downloading ${missing[*]} (Debian trixie source packages)"
apt-get "${apt_opts[@]}" -q update >"$apt_dir/update.log" 2>&1 ||
	{ cat "$apt_dir/update.log" >&2; echo "fetch-sources: apt update failed" >&2; exit 1; }
# Only the .orig.tar.gz parts matter; a .dsc or .debian.tar.xz that is
# gone from the mirror makes apt-get exit non-zero, so its status is not
# trusted: the checksums below decide.
(cd "$cache" && apt-get "${apt_opts[@]}" -q source --download-only \
	"${missing[@]}" >"$apt_dir/source.log" 2>&1) || true

status=0
while read -r pkg ver tarball sum; do
	case "$pkg" in ''|'#'*) continue ;; esac
	if ! verify "$cache/$tarball" "$sum"; then
		echo "fetch-sources: $tarball missing or sha256 mismatch (want $sum)" >&2
		tail -5 "$apt_dir/source.log" >&2 || true
		rm -f "$cache/$tarball"
		status=1
	fi
done <"$pins"
exit $status
