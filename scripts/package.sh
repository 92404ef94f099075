#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# package.sh: Debian 12 packages of the patched libntirpc 6.3 and
# NFS-Ganesha 6.5 with FSAL_SPARSE, built from the pinned Debian source
# packages in a pristine bookworm chroot. `package.sh --help` lists the
# options; docs/packaging.md says what is in which package.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/scripts/chroot-lib.sh"

usage() {
	cat <<'USAGE'
usage: package.sh [-o OUTDIR] [--local sparseN] [--base-tar FILE]
                  [--no-lintian] [--keep] [--source-only]
       package.sh --lintian-summary LINTIAN_TXT

Builds, as root, in a bookworm minbase chroot of its own (debootstrap from
the machine's Debian mirror; the machine's packages are not touched):
  ntirpc       6.3-2+sparseN: libntirpc6.3, libntirpc-dev
  nfs-ganesha  6.5-5+sparseN: nfs-ganesha, nfs-ganesha-sparse,
               nfs-ganesha-vfs, nfs-ganesha-ceph, nfs-ganesha-rados-grace,
               nfs-ganesha-rados-urls, nfs-sparse-tools
from Debian's pinned orig tarballs (cmake/sources.pins), this checkout's
packaging/ (debian/ directories), patches/ (the quilt series) and
tracked files (the orig-nfs-sparse component), then runs lintian.
  -o OUTDIR        where the packages, source packages and lintian.txt go
                   (default build/packages; its old packages are removed)
  --local sparseN  the local version suffix (default sparse1)
  --base-tar FILE  the debootstrap result as a tar: used if FILE exists,
                   else saved there (scripts/chroot-lib.sh)
  --no-lintian     skip lintian
  --keep           keep the build chroot (its path is printed)
  --source-only    stop once the source trees are made: OUTDIR gets them
                   unpacked (ntirpc-*/, nfs-ganesha-*/, with debian/) and
                   their orig tarballs; needs neither root nor a chroot
  --lintian-summary LINTIAN_TXT
                   how often each lintian tag was given in LINTIAN_TXT
                   (as printed after a build), and nothing else
  -h, --help       this text
USAGE
}

# lintian_summary FILE: how often lintian gave each tag, as "COUNT S:
# PACKAGE[ source|changes]: TAG", most frequent first (the tag whole,
# whatever the package field looks like)
lintian_summary() {
	[ -r "$1" ] || { echo "package: cannot read $1" >&2; exit 1; }
	awk '/^[A-Z]: / {
		i = 2
		pkg = $2
		while (pkg !~ /:$/ && i < NF) {
			i++
			pkg = pkg " " $i
		}
		if (i < NF)
			print $1 " " pkg " " $(i + 1)
	}' "$1" | LC_ALL=C sort | uniq -c | LC_ALL=C sort -k1,1nr -k2
}

bad_usage() {
	echo "package: $*" >&2
	echo "package: package.sh --help lists the options" >&2
	exit 2
}

out=$repo/build/packages
local_suffix=sparse1
base_tar=
lintian=1
keep=0
source_only=0
all_args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	-o | --local | --base-tar)
		[ $# -ge 2 ] || bad_usage "$1 needs a value"
		case "$1" in
		-o) out=$2 ;;
		--local) local_suffix=$2 ;;
		--base-tar) base_tar=$2 ;;
		esac
		shift 2
		;;
	--no-lintian) lintian=0; shift ;;
	--keep) keep=1; shift ;;
	--source-only) source_only=1; shift ;;
	--lintian-summary)
		[ $# -ge 2 ] || bad_usage "$1 needs a value"
		lintian_summary "$2"
		exit
		;;
	-h | --help) usage; exit 0 ;;
	*) bad_usage "unknown argument '$1'" ;;
	esac
done
[[ "$local_suffix" =~ ^[a-z][a-z0-9.]*[0-9]$ ]] ||
	bad_usage "bad --local '$local_suffix' (such as sparse1)"

# The Debian revisions whose orig tarballs cmake/sources.pins pins (trixie)
NTIRPC_REVISION=2
GANESHA_REVISION=5

[ "$(id -u)" = 0 ] || [ $source_only = 1 ] ||
	{ echo "package: needs root (debootstrap, chroot)" >&2; exit 1; }
for tool in debootstrap unshare git; do
	[ $source_only = 0 ] || [ "$tool" = git ] || continue
	command -v "$tool" >/dev/null ||
		{ echo "package: $tool missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
# Every mount of this run lives in a mount namespace of its own.
if [ -z "${SPARSE_PKG_MNTNS:-}" ] && [ $source_only = 0 ]; then
	unshare --mount --propagation private true 2>/dev/null || {
		echo "package: cannot make a private mount namespace (unshare --mount);" \
		     "in a chroot its root must be a mount point (docs/building.md)" >&2
		exit 1
	}
	exec env SPARSE_PKG_MNTNS=1 unshare --mount --propagation private -- \
		"$0" "${all_args[@]}"
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
cache=${SPARSE_SOURCE_CACHE:-$HOME/.cache/nfs-sparse/sources}
"$repo/cmake/fetch-sources.sh" "$cache"
mirror=$("$repo/cmake/fetch-sources.sh" --mirror) || [ $source_only = 1 ] ||
	{ echo "package: no Debian mirror in the apt sources (cmake/fetch-sources.sh --mirror)" >&2; exit 1; }

pin() { awk -v p="$1" '$1 == p { print $2, $3 }' "$repo/cmake/sources.pins"; }
read -r ntirpc_ver ntirpc_tar < <(pin ntirpc)
read -r ganesha_ver ganesha_tar < <(pin nfs-ganesha)
ntirpc_full=$ntirpc_ver-$NTIRPC_REVISION+$local_suffix
ganesha_full=$ganesha_ver-$GANESHA_REVISION+$local_suffix

commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
	dirty=" with uncommitted changes"
when=$(date -R -u -d "@$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)")
# The packages' identity is the packaging's (the Maintainer of its
# debian/control files, which name the same one), never the build
# machine's: DEBEMAIL, DEBFULLNAME and git's user are not read. It signs
# the changelog entry (Changed-By) too.
maint=$(sed -n 's/^Maintainer: //p' "$repo/packaging/nfs-ganesha/debian/control")
for c in "$repo"/packaging/*/debian/control; do
	[ "$(sed -n 's/^Maintainer: //p' "$c")" = "$maint" ] ||
		{ echo "package: $c names another Maintainer than $maint" >&2; exit 1; }
done

work=$(mktemp -d "$(chroot_disk_dir)/nfs-sparse-pkg.XXXXXX")
root=$work/root
cleanup() {
	local rc=$?
	if [ $keep = 1 ]; then
		chroot_umount "$root" || true
		echo "package: kept $work"
	else
		chroot_remove "$root" && rm -rf "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "package: working in $work"

# changelog SOURCE VERSION TEXT: debian/changelog of one entry
changelog() {
	echo "$1 ($2) bookworm; urgency=medium"
	echo
	echo "nfs-sparse build, commit $commit$dirty: $3" | fold -s -w 72 |
		sed 's/ *$//; 1s/^/  * /; 2,$s/^/    /'
	echo
	echo " -- $maint  $when"
}

# upstream_holders DIR: the copyright statements in the headers of the
# upstream files under DIR (a line naming a year after "Copyright"), each
# once, without the word and its (c)
upstream_holders() {
	grep -rhoIE --exclude-dir=debian 'Copyright.*[0-9]{4}.*' "$1" |
		LC_ALL=C sed -E 's/^Copyright([^0-9A-Za-z]|\([cC]\)|Copyright)*//
			s/[[:space:]]*\*\/.*$//; s/[[:space:]]+$//' |
		grep -E '[0-9]{4}' | LC_ALL=C sort -u
}

# license_paragraph ID FILE: a copyright-format License paragraph ID with
# the text of FILE (a C comment's markers and its Copyright line dropped)
license_paragraph() {
	echo "License: $1"
	sed -E 's|^[[:space:]]*/?\*+/?[[:space:]]?||; s/[[:space:]]+$//' "$2" |
		grep -v '^Copyright' | sed -e '/./,$!d' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' |
		sed 's/^$/./; s/^/ /'
}

# write_copyright DIR LICENSE [LICENSE_FILE]: DIR/debian/copyright from
# our copyright.in, whose @UPSTREAM_FILES@ becomes the Files: * stanza of
# the upstream tree (its own statements, upstream_holders) under LICENSE,
# and @UPSTREAM_LICENSE@ LICENSE's text from the tree's LICENSE_FILE
write_copyright() {
	local dir=$1 lic=$2 text=${3:-} line
	while IFS= read -r line; do
		case "$line" in
		@UPSTREAM_FILES@)
			echo "Files: *"
			upstream_holders "$dir" | sed '1s/^/Copyright: /; 1!s/^/ /'
			echo "License: $lic" ;;
		@UPSTREAM_LICENSE@) license_paragraph "$lic" "$dir/$text" ;;
		*) printf '%s\n' "$line" ;;
		esac
	done <"$dir/debian/copyright.in" >"$dir/debian/copyright"
	rm "$dir/debian/copyright.in"
}

# source_tree PKG VERSION_DIR ORIG DEBIAN_DIR PATCH_DIR LICENSE
# [LICENSE_FILE]: the unpacked source package in $work/src
source_tree() {
	local pkg=$1 dir=$work/src/$2 orig=$3 debian=$4 patches=$5 p list
	list=$("$repo/cmake/patch-series.sh" "$patches")
	cp "$cache/$orig" "$work/src/"
	tar -C "$work/src" -xzf "$cache/$orig"
	[ -d "$dir" ] || { echo "package: $orig did not give $dir" >&2; exit 1; }
	cp -r "$debian" "$dir/debian"
	write_copyright "$dir" "$6" "${7:-}"
	mkdir -p "$dir/debian/patches"
	: >"$dir/debian/patches/series"
	for p in $list; do
		cp "$patches/$p" "$dir/debian/patches/"
		echo "$p" >>"$dir/debian/patches/series"
	done
}

mkdir -p "$work/src"
source_tree ntirpc "ntirpc-$ntirpc_ver" "$ntirpc_tar" \
	"$repo/packaging/ntirpc/debian" "$repo/patches/ntirpc" \
	BSD-3-clause COPYING
changelog ntirpc "$ntirpc_full" \
	"libntirpc $ntirpc_ver from Debian's orig tarball with the patches of nfs-sparse's patches/ntirpc/." \
	>"$work/src/ntirpc-$ntirpc_ver/debian/changelog"
source_tree nfs-ganesha "nfs-ganesha-$ganesha_ver" "$ganesha_tar" \
	"$repo/packaging/nfs-ganesha/debian" "$repo/patches" LGPL-3+
changelog nfs-ganesha "$ganesha_full" \
	"NFS-Ganesha $ganesha_ver from Debian's orig tarball with the patches of nfs-sparse's patches/ and, as the orig-nfs-sparse component, FSAL_SPARSE, the sqlite recovery backend and the nfs42 client." \
	>"$work/src/nfs-ganesha-$ganesha_ver/debian/changelog"

# The orig-nfs-sparse component: this checkout's tracked files that the
# build and the packages use, as a reproducible tarball.
component=nfs-ganesha_$ganesha_ver.orig-nfs-sparse.tar.gz
(
	cd "$repo"
	git ls-files -z -- CMakeLists.txt cmake/Inner.cmake src tools docs README.md
) | tar -C "$repo" --null -T - --transform 's|^|nfs-sparse/|' \
	--sort=name --mtime="@$(date -d "$when" +%s)" --owner=0 --group=0 \
	--numeric-owner -cf - | gzip -n >"$work/src/$component"
tar -C "$work/src/nfs-ganesha-$ganesha_ver" -xzf "$work/src/$component"

if [ $source_only = 1 ]; then
	rm -rf "$out/ntirpc-$ntirpc_ver" "$out/nfs-ganesha-$ganesha_ver"
	rm -f "$out"/*.orig*.tar.gz
	cp -a "$work/src/." "$out/"
	echo "package: source trees in $out:"
	(cd "$out" && ls -d ntirpc-* nfs-ganesha-* ./*.orig*.tar.gz | grep -v '\.deb$')
	exit 0
fi

# The build chroot
tar_file=${base_tar:-$work/base.tar}
echo "package: bookworm minbase chroot (from $([ -s "$tar_file" ] && echo "$tar_file" || echo "$mirror"))"
chroot_base "$tar_file" "$root" "$mirror" "$work/debootstrap.log"
chroot_mount "$root"
mkdir -p "$root/build"
cp -a "$work/src/." "$root/build/"
cat >"$root/build/build.sh" <<BUILD
#!/bin/bash
set -euo pipefail
export DEB_BUILD_OPTIONS="parallel=$(nproc)"
apt_get() { apt-get -q -y -o Dpkg::Use-Pty=0 "\$@"; }
apt_get update
apt_get install --no-install-recommends build-essential debhelper fakeroot \
	$([ $lintian = 1 ] && echo lintian)
cd /build/ntirpc-$ntirpc_ver
apt_get build-dep --no-install-recommends .
dpkg-buildpackage -us -uc
cd /build
apt_get install --no-install-recommends ./libntirpc6.3_${ntirpc_full}_*.deb \
	./libntirpc-dev_${ntirpc_full}_*.deb
cd /build/nfs-ganesha-$ganesha_ver
apt_get build-dep --no-install-recommends .
dpkg-buildpackage -us -uc
cd /build
if [ $lintian = 1 ]; then
	# as nobody: lintian need not, and should not, run as root
	chmod -R a+rX /build
	HOME=/tmp setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		lintian --pedantic --display-info \
		ntirpc_${ntirpc_full}_*.changes nfs-ganesha_${ganesha_full}_*.changes \
		>lintian.txt 2>&1 || true
fi
BUILD
echo "package: building (log: $work/build.log)"
if ! chroot_run "$root" /bin/bash /build/build.sh >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log" >&2
	echo "package: the build failed (log: $work/build.log)" >&2
	keep=1
	exit 1
fi

rm -f "$out"/*.deb "$out"/*.ddeb "$out"/*.dsc "$out"/*.tar.* "$out"/*.changes \
	"$out"/*.buildinfo "$out"/lintian.txt "$out"/build.log
(cd "$root/build" && cp *.deb *.ddeb *.dsc *.tar.* *.changes *.buildinfo "$out/" 2>/dev/null) || true
cp "$work/build.log" "$out/build.log"
[ $lintian = 0 ] || cp "$root/build/lintian.txt" "$out/lintian.txt"
echo "package: in $out:"
(cd "$out" && ls -1 *.deb)
if [ $lintian = 1 ]; then
	echo "package: lintian (--pedantic --display-info), $out/lintian.txt:"
	if [ -s "$out/lintian.txt" ]; then
		lintian_summary "$out/lintian.txt"
	else
		echo "  nothing"
	fi
fi
