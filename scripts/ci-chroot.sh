#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# ci-chroot.sh: CI (.ci/run) on a pristine Debian 12, as a new machine
# would run it: a `debootstrap --variant=minbase bookworm` chroot from the
# machine's own Debian mirror, its root a mount point, /proc, /sys, /dev
# and /run mounted as a booted system has them, a clean clone of this
# checkout's HEAD bind-mounted in, and .ci/run run there as root with a
# clean environment (no DEBEMAIL, DEBFULLNAME or git identity).
# `ci-chroot.sh --help` lists the options; docs/testing.md records runs.
# Not part of CI itself: a run takes most of an hour.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/scripts/chroot-lib.sh"

usage() {
	cat <<'USAGE'
usage: ci-chroot.sh [-o OUTDIR] [--base-tar FILE] [--keep] [-- TEST_ARGS...]

Runs .ci/run, as root, in a pristine bookworm minbase chroot of its own
(debootstrap from the Debian mirror of the machine's apt sources) on a
clean clone of this checkout's HEAD (uncommitted changes are not in it),
with no DEBEMAIL, DEBFULLNAME or git identity. The machine's own packages
and files are not touched; the chroot is removed at the end.
  -o OUTDIR        where the log and the summary go (default
                   build/ci-chroot; the log is OUTDIR/ci-chroot.log)
  --base-tar FILE  the debootstrap result as a tar: used if FILE exists,
                   else saved there (scripts/chroot-lib.sh)
  --keep           keep the chroot (its path is printed)
  -- TEST_ARGS     run ./scripts/test.sh TEST_ARGS instead of .ci/run
                   (such as: -- -R patches/series, to try this script)
  -h, --help       this text
USAGE
}

bad_usage() {
	echo "ci-chroot: $*" >&2
	echo "ci-chroot: ci-chroot.sh --help lists the options" >&2
	exit 2
}

out=$repo/build/ci-chroot
base_tar=
keep=0
test_args=()
custom=0
all_args=("$@")
while [ $# -gt 0 ]; do
	case "$1" in
	-o | --base-tar)
		[ $# -ge 2 ] || bad_usage "$1 needs a value"
		case "$1" in
		-o) out=$2 ;;
		--base-tar) base_tar=$2 ;;
		esac
		shift 2
		;;
	--keep) keep=1; shift ;;
	--) shift; test_args=("$@"); custom=1; break ;;
	-h | --help) usage; exit 0 ;;
	*) bad_usage "unknown argument '$1'" ;;
	esac
done

[ "$(id -u)" = 0 ] || { echo "ci-chroot: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
for tool in debootstrap unshare git; do
	command -v "$tool" >/dev/null ||
		{ echo "ci-chroot: $tool missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
# Every mount of this run lives in a mount namespace of its own.
if [ -z "${SPARSE_CI_CHROOT_MNTNS:-}" ]; then
	unshare --mount --propagation private true 2>/dev/null || {
		echo "ci-chroot: cannot make a private mount namespace (unshare --mount)" >&2
		exit 1
	}
	exec env SPARSE_CI_CHROOT_MNTNS=1 unshare --mount --propagation private -- \
		"$0" "${all_args[@]}"
fi
mirror=$("$repo/cmake/fetch-sources.sh" --mirror) ||
	{ echo "ci-chroot: no Debian mirror in the apt sources (cmake/fetch-sources.sh --mirror)" >&2; exit 1; }
commit=$(git -C "$repo" rev-parse HEAD)
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ] ||
	echo "ci-chroot: note: uncommitted changes are not in the clone (it is HEAD, ${commit:0:12})"

mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/ci-chroot.log
work=$(mktemp -d "$(chroot_disk_dir)/nfs-sparse-ci.XXXXXX")
root=$work/root
cleanup() {
	local rc=$?
	if [ $keep = 1 ]; then
		chroot_umount "$root" || true
		echo "ci-chroot: kept $work"
	else
		chroot_remove "$root" && rm -rf "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$(date +%s)
stamp() { date -u '+%H:%M:%S'; }
echo "ci-chroot: $(stamp) bookworm minbase from $([ -n "$base_tar" ] && [ -s "$base_tar" ] && echo "$base_tar" || echo "$mirror") in $work"
chroot_base "${base_tar:-$work/base.tar}" "$root" "$mirror" "$work/debootstrap.log"
[ -n "$base_tar" ] || rm -f "$work/base.tar"
chroot_mount "$root" --dev

# The clean clone: HEAD's tracked files only, owned by root as CI's
# checkout is, bind-mounted where the chroot's CI finds it.
git clone -q --no-hardlinks "$repo" "$work/clone"
git -C "$work/clone" checkout -q --detach "$commit"
mkdir -p "$root/root/ci"
mount --bind "$work/clone" "$root/root/ci"

if [ $custom = 1 ]; then
	cmd="./scripts/test.sh $(printf '%q ' "${test_args[@]}")"
else
	cmd=./.ci/run
fi
echo "ci-chroot: $(stamp) running $cmd on ${commit:0:12} (log: $log)"
rc=0
# chroot_run: env -i, so nothing of this shell's environment (DEBEMAIL,
# DEBFULLNAME, GIT_*) reaches CI, and the chroot's /root has no .gitconfig
chroot_run "$root" /bin/bash -c "cd /root/ci && $cmd" >"$log" 2>&1 || rc=$?
end=$(date +%s)
tally=$(grep -E '^[0-9]+% tests passed' "$log" | tail -n 1 || true)
failed=$(sed -n '/^The following tests FAILED:/,/^Errors while running CTest/p' "$log" |
	grep -E '^[[:space:]]+[0-9]+ - ' || true)
{
	echo "commit:   $commit"
	echo "command:  $cmd"
	echo "started:  $(date -u -d "@$start" '+%Y-%m-%d %H:%M:%S UTC')"
	echo "time:     $(((end - start) / 60)) min $(((end - start) % 60)) s (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
	echo "status:   $rc"
	echo "tally:    ${tally:-no ctest tally (see the log)}"
	grep -E '^Total Test time' "$log" | tail -n 1 | sed 's/^/ctest:    /' || true
	[ -z "$failed" ] || { echo "failed:"; echo "$failed"; }
} | tee "$out/summary.txt"
[ $rc = 0 ] || { echo "ci-chroot: .ci/run failed; last lines of $log:" >&2; tail -n 30 "$log" >&2; }
exit $rc
