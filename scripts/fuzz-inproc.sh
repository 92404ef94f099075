#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# fuzz-inproc.sh [--ci] [--time SECONDS] [--seed N] [--keep-going]
#                [--corpus DIR] [--out DIR] [-- libFuzzer options...]
#
# The in-process coverage-guided fuzzer (docs/testing.md, "In-process
# coverage-guided fuzzing"): builds the clang libFuzzer variant of ntirpc,
# Ganesha and FSAL_SPARSE (scripts/build.sh --fuzz: build-fuzz/, or
# $SPARSE_FUZZ_BUILD_DIR) if needed, replays every regression input of
# tests/fuzz/inproc/regress/ once, then fuzzes for SECONDS (default 3600)
# from the seed corpus (make_seeds.py) and the regression inputs, with the
# dictionary nfs4.dict.  The corpus grows in DIR (default
# build-fuzz/fuzz-inproc/corpus: kept between runs); findings (crash-*,
# leak-*, timeout-*, oom-*) land in --out (default build-fuzz/fuzz-inproc/).
# --keep-going: libFuzzer's fork mode (one child at a time), which goes on
# after a crash, a timeout or an out-of-memory and keeps every finding.
# A finding is replayed with
#   build-fuzz/inner/tests/fuzz/inproc/fuzz_inproc FILE
# (FUZZ_INPROC_TRACE=1: every call and its reply's statuses on stderr) and
# becomes a regression input when copied into tests/fuzz/inproc/regress/.
#
# --ci: what the CI test fuzz/inproc runs: 75 s from seed 1 on a fresh
# corpus.  The CI test runs only when asked (SPARSE_FUZZ_INPROC=1 in the
# environment, or the CMake option SPARSE_FUZZ_INPROC=ON): the variant's
# first build takes long (docs/testing.md gives the figures); otherwise it
# exits 77 (skipped).  Needs root (the fuzzer's own network namespace).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
src=$repo/tests/fuzz/inproc
time=3600
seed=""
ci=0
keep=0
corpus=""
out=""
while [ $# -gt 0 ]; do
	case "$1" in
	--ci) ci=1; shift ;;
	--time) time=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--keep-going) keep=1; shift ;;
	--corpus) corpus=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--help | -h) sed -n '4,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) echo "fuzz-inproc.sh: unknown option $1 (--help)" >&2; exit 2 ;;
	esac
done

if [ $ci = 1 ]; then
	case "${SPARSE_FUZZ_INPROC:-0}" in
	1 | ON | on | yes) ;;
	*)
		echo "fuzz-inproc: not asked for (SPARSE_FUZZ_INPROC=1 or -DSPARSE_FUZZ_INPROC=ON builds the clang variant and runs it); skipped"
		exit 77
		;;
	esac
	time=${SPARSE_FUZZ_INPROC_TIME:-75}
	seed=${seed:-1}
fi
if [ "$(id -u)" != 0 ]; then
	echo "fuzz-inproc: needs root (a network namespace of its own); skipped"
	exit 77
fi

build=${SPARSE_FUZZ_BUILD_DIR:-$repo/build-fuzz}
t0=$(date +%s)
"$repo/scripts/build.sh" --fuzz "$build"
echo "fuzz-inproc: build took $(($(date +%s) - t0)) s"
bin=$build/inner/tests/fuzz/inproc/fuzz_inproc
[ -x "$bin" ] || { echo "fuzz-inproc: $bin missing" >&2; exit 1; }

work=$build/fuzz-inproc
out=${out:-$work}
mkdir -p "$out"
if [ $ci = 1 ]; then
	corpus=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-inproc-ci.XXXXXX")
	trap 'rm -rf "$corpus"' EXIT
else
	corpus=${corpus:-$work/corpus}
	mkdir -p "$corpus"
fi
seeds=$work/seeds
rm -rf "$seeds"
python3 "$src/make_seeds.py" "$seeds"

# ASan's and UBSan's options are the program's own (no leak report:
# Ganesha keeps its caches until exit; every UBSan report but those of
# tests/fuzz/inproc/ubsan.supp stops it); ASAN_OPTIONS or UBSAN_OPTIONS in
# the environment replace them.

common=(-max_len=8192 -timeout=30 -rss_limit_mb=6144 -dict="$src/nfs4.dict")
regress=("$src"/regress/*)
if [ -e "${regress[0]}" ]; then
	echo "fuzz-inproc: replaying ${#regress[@]} regression inputs"
	"$bin" "${common[@]}" "${regress[@]}"
	regress_dir=("$src/regress")
else
	regress_dir=()
fi

args=("${common[@]}" -max_total_time="$time" -print_final_stats=1
	-artifact_prefix="$out/")
[ -z "$seed" ] || args+=(-seed="$seed")
[ $keep = 0 ] || args+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
echo "fuzz-inproc: fuzzing for $time s (corpus $corpus, findings in $out)"
# the first directory takes the new inputs; the others only seed it
exec "$bin" "${args[@]}" "$@" "$corpus" "$seeds" "${regress_dir[@]}"
