#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# fetch-kernel.sh CACHE_DIR
#
# Makes sure CACHE_DIR holds the guest kernel of tests/linux: the Debian
# trixie package pinned in kernel.pins (version and sha256), downloaded
# once through a private apt directory (CACHE_DIR/apt-trixie, so the
# machine's own apt state is untouched) from the mirror that the machine's
# apt sources name (cmake/fetch-sources.sh --mirror), then unpacked to
# CACHE_DIR/<package>/ (vmlinuz, config, and the modules the guest loads,
# decompressed). Prints that directory. A package already there that
# verifies is never fetched again.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${1:?usage: fetch-kernel.sh CACHE_DIR}
mkdir -p "$cache"

read -r pkg ver deb sum < <(grep -v '^#' "$here/kernel.pins" | grep .)
kver=${pkg#linux-image-}
out=$cache/$pkg

verify() { # FILE SHA256
	[ -f "$1" ] && echo "$2  $1" | sha256sum --quiet -c - >/dev/null 2>&1
}

if [ -f "$out/.done" ] && [ "$(cat "$out/.done")" = "$sum" ]; then
	echo "$out"
	exit 0
fi

if ! verify "$cache/$deb" "$sum"; then
	mirror=$("$repo/cmake/fetch-sources.sh" --mirror) || {
		echo "fetch-kernel: no Debian mirror in the machine's apt sources" \
		     "(see cmake/fetch-sources.sh); put $deb into $cache" >&2
		exit 1
	}
	apt_dir=$cache/apt-trixie
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
	cat >"$apt_dir/trixie.sources" <<SRC
Types: deb
URIs: $mirror
Suites: trixie
Components: main
Architectures: amd64
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/trixie.sources"
		  -o Dir::Etc::SourceParts=/dev/null
		  -o "Dir::State::Lists=$apt_dir/lists"
		  -o "Dir::Cache=$apt_dir/cache"
		  -o Dir::State::status=/dev/null
		  -o APT::Architecture=amd64
		  -o APT::Sandbox::User=root)
	echo "fetch-kernel: downloading $pkg $ver (Debian trixie, $mirror)" >&2
	apt-get "${apt_opts[@]}" -q update >"$apt_dir/update.log" 2>&1 ||
		{ cat "$apt_dir/update.log" >&2; echo "fetch-kernel: apt update failed" >&2; exit 1; }
	(cd "$cache" && apt-get "${apt_opts[@]}" -q download "$pkg=$ver" \
		>"$apt_dir/download.log" 2>&1) || true
	if ! verify "$cache/$deb" "$sum"; then
		echo "fetch-kernel: $deb missing or sha256 mismatch (want $sum);" \
		     "a mirror that dropped $ver needs a new pin in" \
		     "tests/linux/kernel.pins" >&2
		tail -3 "$apt_dir/download.log" >&2 || true
		rm -f "$cache/$deb"
		exit 1
	fi
fi

# Unpack: the kernel, its config and its module tree (kept compressed;
# vm.sh decompresses the ones an initramfs needs). modules.index maps
# each module name to its file.
rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp/x"
dpkg-deb -x "$cache/$deb" "$out.tmp/x"
cp "$out.tmp/x/boot/vmlinuz-$kver" "$out.tmp/vmlinuz"
cp "$out.tmp/x/boot/config-$kver" "$out.tmp/config"
mods=$out.tmp/x/usr/lib/modules/$kver/kernel
[ -d "$mods" ] || mods=$out.tmp/x/lib/modules/$kver/kernel
mv "$mods" "$out.tmp/kernel"
rm -rf "$out.tmp/x"
(cd "$out.tmp" && find kernel -name '*.ko*' | sort |
	sed 's|^\(.*/\)\?\([^/]*\)\.ko\(\.[a-z]*\)\?$|\2 &|') >"$out.tmp/modules.index"
echo "$kver" >"$out.tmp/kver"
echo "$sum" >"$out.tmp/.done"
mv "$out.tmp" "$out"
echo "$out"
