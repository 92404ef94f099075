#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# package_check.sh DIR: the packages end to end, as CI runs them (ctest
# package/install): scripts/package.sh builds them into DIR/packages in a
# pristine bookworm chroot, with DEBEMAIL naming localhost (the packages'
# identity is the packaging's); lintian reports no error and no warning
# (its informational tags are listed); install_check.sh installs them in
# another pristine chroot made from the same debootstrap and serves a
# file with them. Exit 77 (skipped) with the reason where the chroots
# cannot be made here.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
dir=${1:?usage: package_check.sh DIR}

skip() { echo "package_check: skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null || skip "debootstrap missing (scripts/install-deps.sh)"
unshare --mount --propagation private --net true 2>/dev/null ||
	skip "no private mount and network namespace (unshare; in a chroot its root must be a mount point, docs/building.md)"
"$repo/cmake/fetch-sources.sh" --mirror >/dev/null ||
	skip "no Debian mirror in the apt sources"

mkdir -p "$dir"
base=$dir/bookworm-minbase.tar
rm -f "$base" # one fresh debootstrap per run, for both chroots
trap 'rm -f "$base"' EXIT
start=$(date +%s)
# as on a build machine whose own identity lintian refuses (the fallback
# of a machine without one): the packages must not take it (issue #28)
DEBEMAIL=builder@localhost.localdomain DEBFULLNAME="Build Machine" \
	"$repo/scripts/package.sh" -o "$dir/packages" --base-tar "$base"
built=$(date +%s)
echo "package_check: packages built in $((built - start)) s"

status=0
if grep -E '^(E|W): ' "$dir/packages/lintian.txt"; then
	echo "package_check: lintian reports the errors and warnings above" >&2
	status=1
fi
"$here/install_check.sh" "$dir/packages" "$base" || status=1
echo "package_check: $(($(date +%s) - start)) s in all"
exit $status
