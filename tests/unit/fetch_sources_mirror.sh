#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# cmake/fetch-sources.sh takes its Debian mirror from the machine's apt
# sources (SPARSE_APT_ETC here: fake ones), in both formats: the first
# http(s) URI of a Debian archive entry with component main, security and
# other archives skipped, sources.list before sources.list.d/, and a clear
# error when there is none.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
fetch=$repo/cmake/fetch-sources.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nfs-sparse-mirror.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# case NAME WANT_RC WANT_OUTPUT: runs fetch-sources.sh --mirror on the
# fake apt directory $etc, then empties it for the next case
case_() {
	local name=$1 want_rc=$2 want=$3 out rc=0
	out=$(SPARSE_APT_ETC=$etc "$fetch" --mirror 2>&1) || rc=$?
	if [ "$rc" = "$want_rc" ] && [ "$out" = "$want" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $name: rc=$rc (want $want_rc), output '$out' (want '$want')" >&2
	fi
	rm -rf "$etc"
	mkdir -p "$etc/sources.list.d"
}
etc=$tmp/etc
# URI schemes through variables: no line of ours reads like a real apt
# source (the hosts are .example ones anyway).
http=http: https=https:
mkdir -p "$etc/sources.list.d"

# deb822, as Debian 12 installs it: security stanza after the main one
cat >"$etc/sources.list.d/debian.sources" <<EOF
Types: deb
# http://snapshot.example/archive/debian/20250520T000000Z
URIs: ${http}//mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${http}//mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
case_ deb822 0 http://mirror.example/debian

# deb822: security first, a disabled stanza, a multi-line field, https
cat >"$etc/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: ${http}//security.example/debian-security
Suites: bookworm-security
Components: main

Types: deb deb-src
URIs: ${http}//off.example/debian
Suites: bookworm
Components: main
Enabled: no

types: deb
uris: https://proxy.example:3142/debian/
suites: bookworm
components: contrib main
signed-by:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 URIs: http://inside-a-key.example/debian
 -----END PGP PUBLIC KEY BLOCK-----
EOF
case_ deb822-skips 0 https://proxy.example:3142/debian

# one-line format: comments, other archives, security, options in brackets
cat >"$etc/sources.list" <<EOF
# deb http://commented.example/debian bookworm main
deb ${https}//packages.cloud.example/apt cloud-sdk-bookworm main
deb ${http}//security.example/debian-security bookworm-security main
deb ${http}//mirror.example/debian bookworm contrib
  deb [ arch=amd64 signed-by=/usr/share/keyrings/k.gpg ] http://local.example:3142/debian/ bookworm main contrib
EOF
case_ one-line 0 http://local.example:3142/debian

# sources.list is read before sources.list.d/, whose files go in name order
echo "deb http://first.example/debian bookworm main" >"$etc/sources.list"
echo "deb http://second.example/debian bookworm main" >"$etc/sources.list.d/a.list"
case_ order-list-first 0 http://first.example/debian
echo "deb http://a.example/debian bookworm-updates main" >"$etc/sources.list.d/a.list"
printf 'Types: deb\nURIs: http://b.example/debian\nSuites: trixie\nComponents: main\n' \
	>"$etc/sources.list.d/b.sources"
case_ order-by-name 0 http://a.example/debian

# files apt does not read are not read
printf 'Types: deb\nURIs: http://off.example/debian\nSuites: bookworm\nComponents: main\n' \
	>"$etc/sources.list.d/debian.sources.disabled"
echo "deb http://off.example/debian bookworm main" >"$etc/sources.list.d/x.list.save"
printf 'Types: deb\nURIs: http://on.example/debian\nSuites: sid\nComponents: main\n' \
	>"$etc/sources.list.d/z.sources"
case_ ignored-files 0 http://on.example/debian

# nothing usable: no mirror, exit status 1
echo "deb https://packages.cloud.example/apt cloud-sdk-bookworm main" >"$etc/sources.list"
echo "deb file:/srv/debian bookworm main" >"$etc/sources.list.d/local.list"
case_ none 1 ""

# and fetch-sources.sh CACHE says so when it has something to download
mkdir -p "$tmp/cache"
rc=0
out=$(SPARSE_APT_ETC=$etc "$fetch" "$tmp/cache" 2>&1) || rc=$?
if [ $rc = 1 ] && grep -q "no Debian mirror in $etc/sources.list" <<<"$out"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL no-mirror-message: rc=$rc, output: $out" >&2
fi

echo "fetch_sources_mirror: $pass passed, $fail failed"
[ $fail -eq 0 ]
