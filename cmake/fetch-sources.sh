#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# fetch-sources.sh CACHE_DIR
# fetch-sources.sh --mirror
#
# Makes sure CACHE_DIR holds the .orig.tar.gz of every package named in
# cmake/sources.pins with the pinned sha256. Missing or corrupt tarballs are
# downloaded as Debian *trixie* source packages through a private apt
# directory (CACHE_DIR/apt), so the machine's own apt state is untouched.
# Tarballs that are already there and verify are never fetched again.
#
# The Debian mirror is the machine's own: the first http(s) URI of a
# Debian archive entry (a Debian suite such as bookworm or
# bookworm-updates, component main; security entries are not) in
# $SPARSE_APT_ETC/sources.list, then $SPARSE_APT_ETC/sources.list.d/*.list
# and *.sources (deb822), in apt's order. SPARSE_APT_ETC defaults to
# /etc/apt. --mirror prints that URI and exits. apt's own configuration
# (a proxy in apt.conf, say) applies to the download.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

# debian_mirror ETC: the first http(s) URI of a Debian archive entry in
# ETC's apt sources, both formats; nothing if there is none
debian_mirror() {
	local etc=$1 f files=()
	[ -f "$etc/sources.list" ] && files+=("$etc/sources.list")
	for f in "$etc"/sources.list.d/*; do
		case "$f" in *.list | *.sources) [ -f "$f" ] && files+=("$f") ;; esac
	done
	[ ${#files[@]} -gt 0 ] || return 0
	awk '
	function debian_suite(s) {
		return s ~ /^(buster|bullseye|bookworm|trixie|forky|duke|sid|experimental|oldoldstable|oldstable|stable|testing|unstable)(-updates|-backports|-proposed-updates)?$/
	}
	function has_word(list, w,   n, i, v) {
		n = split(list, v, /[ \t]+/)
		for (i = 1; i <= n; i++)
			if (v[i] == w)
				return 1
		return 0
	}
	# one entry (either format): print its first usable URI
	function consider(types, uris, suites, comps, enabled,   n, i, v, ok) {
		if (tolower(enabled) ~ /^(no|false|0)$/)
			return
		if (!has_word(types, "deb") && !has_word(types, "deb-src"))
			return
		if (!has_word(comps, "main"))
			return
		ok = 0
		n = split(suites, v, /[ \t]+/)
		for (i = 1; i <= n; i++)
			if (debian_suite(v[i]))
				ok = 1
		if (!ok)
			return
		n = split(uris, v, /[ \t]+/)
		for (i = 1; i <= n; i++)
			if (v[i] ~ /^https?:\/\/[^\/]/) {
				sub(/\/+$/, "", v[i])
				print v[i]
				return
			}
	}
	function flush() {
		if (in_stanza)
			consider(f["types"], f["uris"], f["suites"],
				 f["components"], f["enabled"])
		delete f
		in_stanza = 0
	}
	FNR == 1 { flush() }
	FILENAME ~ /\.sources$/ {
		if ($0 ~ /^[ \t]*$/) { flush(); next }
		if ($0 ~ /^#/ || $0 ~ /^[ \t]/) next
		if (match($0, /^[A-Za-z0-9-]+:/)) {
			key = tolower(substr($0, 1, RLENGTH - 1))
			val = substr($0, RLENGTH + 1)
			gsub(/^[ \t]+|[ \t]+$/, "", val)
			f[key] = val
			in_stanza = 1
		}
		next
	}
	{
		line = $0
		sub(/#.*/, "", line)
		gsub(/\[[^]]*\]/, " ", line)
		n = split(line, w, /[ \t]+/)
		if (w[1] == "") { for (i = 1; i < n; i++) w[i] = w[i + 1]; n-- }
		if (n < 4)
			next
		comps = w[4]
		for (i = 5; i <= n; i++)
			comps = comps " " w[i]
		consider(w[1], w[2], w[3], comps, "")
	}
	END { flush() }
	' "${files[@]}" | head -n 1
}

apt_etc=${SPARSE_APT_ETC:-/etc/apt}
if [ "${1:-}" = --mirror ]; then
	mirror=$(debian_mirror "$apt_etc")
	[ -n "$mirror" ] || exit 1
	echo "$mirror"
	exit 0
fi

cache=${1:?usage: fetch-sources.sh CACHE_DIR | --mirror}
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

mirror=$(debian_mirror "$apt_etc")
if [ -z "$mirror" ]; then
	echo "fetch-sources: no Debian mirror in $apt_etc/sources.list or" \
	     "$apt_etc/sources.list.d/ (wanted: an http(s) URI of a Debian" \
	     "archive entry, component main, not security); add one, or put" \
	     "the tarballs of cmake/sources.pins into $cache" >&2
	exit 1
fi
apt_dir="$cache/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
cat >"$apt_dir/trixie-src.sources" <<SRC
Types: deb-src
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/trixie-src.sources"
	  -o Dir::Etc::SourceParts=/dev/null
	  -o "Dir::State::Lists=$apt_dir/lists"
	  -o "Dir::Cache=$apt_dir/cache"
	  -o APT::Sandbox::User=root)

echo "fetch-sources: downloading ${missing[*]} (Debian trixie source packages from $mirror)"
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
