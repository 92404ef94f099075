#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# sources_check.sh: what scripts/package.sh puts into the source packages,
# without building them (package.sh --source-only: no root, no chroot):
#   - the packages' identity is the packaging's (the Maintainer of
#     packaging/*/debian/control) in both control files and both changelog
#     entries, on a build machine with DEBEMAIL, DEBFULLNAME and a git
#     identity of its own and on one with none at all (issue #28: the
#     fallback nfs-sparse@localhost.localdomain drew 23 lintian errors and
#     failed package/install on a pristine system);
#   - package.sh --lintian-summary counts lintian's tags whole, per
#     severity and package (the old summary cut "E: nfs-ganesha source:
#     bogus-mail-host" to "E: nfs-ganesha source:").
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/package-sources-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$repo/tests/check-lib.sh"
export SPARSE_SOURCE_CACHE=${SPARSE_SOURCE_CACHE:-$HOME/.cache/nfs-sparse/sources}
for t in $(awk '$1 !~ /^#/ && NF == 4 { print $3 }' "$repo/cmake/sources.pins"); do
	[ -s "$SPARSE_SOURCE_CACHE/$t" ] ||
		{ echo "sources_check: skipped: $t not in $SPARSE_SOURCE_CACHE (build first)"; exit 77; }
done
identity=$(sed -n 's/^Maintainer: //p' "$repo/packaging/nfs-ganesha/debian/control")
check packaging-identity 0 "^.+ <[^@ ]+@[^@ ]+>$" -- echo "$identity"

# sources HOME_DIR OUT [VAR=VALUE...]: package.sh --source-only into OUT,
# with HOME_DIR as HOME and only the given variables of a build machine
sources() {
	local home=$1 out=$2
	shift 2
	env -i PATH="$PATH" HOME="$home" SPARSE_SOURCE_CACHE="$SPARSE_SOURCE_CACHE" "$@" \
		"$repo/scripts/package.sh" --source-only -o "$out" >"$out.log" 2>&1
}
# identity_of OUT: the Maintainer fields and changelog signatures there
identity_of() {
	sed -n 's/^Maintainer: //p' "$1"/*/debian/control
	sed -n 's/^ -- \(.*>\)  .*$/\1/p' "$1"/*/debian/changelog
}

mkdir -p "$work/machine" "$work/bare"
printf '[user]\n\tname = Build Machine\n\temail = builder@build-host.example\n' >"$work/machine/.gitconfig"
sources "$work/machine" "$work/a" DEBEMAIL=deb@build-host.example DEBFULLNAME="Deb Fullname" ||
	{ cat "$work/a.log" >&2; exit 1; }
check machine-four-fields 0 "^4$" -- bash -c "$(declare -f identity_of); identity_of '$work/a' | wc -l"
check machine-identity 0 "" -- bash -c "$(declare -f identity_of); ! identity_of '$work/a' | grep -vxF '$identity'"
check machine-nothing-of-it 1 "" -- grep -rlE "build-host|Build Machine|Deb Fullname" "$work/a/ntirpc-"*/debian "$work/a/nfs-ganesha-"*/debian
sources "$work/bare" "$work/b" || { cat "$work/b.log" >&2; exit 1; }
check bare-identity 0 "" -- bash -c "$(declare -f identity_of); ! identity_of '$work/b' | grep -vxF '$identity'"
check bare-no-localhost 1 "" -- grep -rl "localhost" "$work/b/ntirpc-"*/debian "$work/b/nfs-ganesha-"*/debian

cat >"$work/lintian.txt" <<'LINTIAN'
E: nfs-ganesha source: bogus-mail-host Maintainer nfs-sparse@localhost.localdomain
E: nfs-ganesha changes: bogus-mail-host Changed-By nfs-sparse@localhost.localdomain
E: nfs-ganesha changes: bogus-mail-host Maintainer nfs-sparse@localhost.localdomain
I: libntirpc6.3: no-symbols-control-file usr/lib/x86_64-linux-gnu/libntirpc.so.6.3
I: nfs-ganesha: spare-manual-page [usr/share/man/man8/ganesha-cache-config.8.gz]
I: nfs-ganesha: spare-manual-page [usr/share/man/man8/ganesha-config.8.gz]
P: nfs-ganesha source: maintainer-manual-page [debian/ganesha.nfsd.8]
N: 4 hints overridden (4 info)
LINTIAN
summary=$("$repo/scripts/package.sh" --lintian-summary "$work/lintian.txt" 2>&1) || true
want='      2 E: nfs-ganesha changes: bogus-mail-host
      2 I: nfs-ganesha: spare-manual-page
      1 E: nfs-ganesha source: bogus-mail-host
      1 I: libntirpc6.3: no-symbols-control-file
      1 P: nfs-ganesha source: maintainer-manual-page'
check lintian-summary 0 "" -- bash -c "[ \"\$1\" = \"\$2\" ] || { echo \"got:\"; echo \"\$1\"; exit 1; }" _ "$summary" "$want"
check_summary sources_check
