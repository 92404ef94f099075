#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# sparse.sh [--smoke] [--sizes "16G 1T 16T"] [--runs "1 3 100"] [--reps N]
#
# Issue #28's table: the cost of a huge sparse file follows its data, not
# its size.  For each SIZE and number of data RUNS, a file of that size on
# the harness's export (tests/e2e/harness.sh, FSAL_SPARSE on the build's
# filesystem) holds RUNS runs of 4 KiB of data spread evenly; then, timed,
# with the round trips the client sent (`--stats`):
#   map       nfs42 map (READ_PLUS, SEEK over holes)
#   get       nfs42 get to a local file (READ_PLUS, holes kept and skipped)
#   get-read  nfs42 get --plain-read (READ, data extents found with SEEK)
#   cp        nfs42 cp (server COPY of each data extent)
#   cp-async  nfs42 cp --async (an asynchronous COPY of each data extent)
#   local     cp --sparse=always of the backing file on the server's
#             machine (the reference of shared/BENCHMARKS.md: what the
#             filesystem alone takes; the ratio column is to it)
# Each output is checked: map's runs, the local copy's and the server
# copies' bytes (data extents compared, holes cost nothing).  One warm-up
# run, then REPS (default 5) timed runs: median and min-max, connect and
# session included.  goal: BENCHMARKS.md's "sparse scale" goal, each of
# map, get and cp of the 16 TiB file with three runs under 1 s (PASS or
# FAIL; '-' on other rows).  A size is a number with K, M, G or T
# (binary); 16T stands for ext4's largest file, 16 TiB - 4 KiB.  Fails
# when a step takes more than 40 + 8 round trips per data run, or more at
# a larger size than at a smaller one (cp --async, which joins runs less
# than 256 MiB apart, may take fewer at a small size).  --smoke: 64M and
# 1G, 3 runs, 1 rep (CI).  Needs root (the harness).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
sizes="16G 1T 16T" runs="1 3 100" reps=5 inner=0
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) sizes="64M 1G" runs=3 reps=1; shift ;;
	--sizes) sizes=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--inner) inner=1; shift ;;
	*) echo "sparse.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
export SPARSE_STAGE=${SPARSE_STAGE:-$build/stage}
nfs42=${SPARSE_NFS42:-$build/inner/tools/nfs42}
if [ ! -x "$nfs42" ]; then
	echo "sparse.sh: build first ($nfs42)" >&2
	exit 2
fi
if [ $inner = 0 ]; then
	[ "$(id -u)" = 0 ] || { echo "sparse.sh: needs root (the harness)" >&2; exit 77; }
	args=(--sizes "$sizes" --runs "$runs" --reps "$reps" --inner)
	exec "$repo/tests/e2e/harness.sh" -- "$0" "${args[@]}"
fi

# --- inside the harness: NFS42_HOST/PORT/EXPORT/BACKING are set ---------
cli() { "$nfs42" -s "$NFS42_HOST" -p "$NFS42_PORT" "$@"; }
bytes_of() {
	local n=${1%[KMGT]} u=${1##*[0-9]}
	case "$u" in
	K) echo $((n << 10)) ;; M) echo $((n << 20)) ;; G) echo $((n << 30)) ;;
	T) [ "$n" = 16 ] && echo $(((16 << 40) - 4096)) || echo $((n << 40)) ;;
	*) echo "$n" ;;
	esac
}
# make FILE SIZE RUNS: RUNS runs of 4 KiB of random data, evenly spread
make() {
	local f=$1 size=$2 n=$3 i
	: >"$f"
	for ((i = 0; i < n; i++)); do
		head -c 4096 /dev/urandom |
			dd of="$f" bs=4096 seek=$((size * i / n / 4096)) conv=notrunc status=none
	done
	truncate -s "$size" "$f"
}
# extents FILE: its data extents and their bytes' sum, one line
extents() {
	python3 - "$1" <<'EOF'
import hashlib, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size, off, h, n = os.fstat(fd).st_size, 0, hashlib.sha256(), 0
while off < size:
    try:
        d = os.lseek(fd, off, os.SEEK_DATA)
    except OSError:
        break
    e = os.lseek(fd, d, os.SEEK_HOLE)
    h.update(b"%d:" % d + os.pread(fd, e - d, d))
    n, off = n + 1, e
print(size, n, h.hexdigest())
EOF
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
spread() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }'; }
now() { date +%s.%N; }

work=$NFS42_BACKING/../sparse-bench
mkdir -p "$work"
# run_step STEP: one run of STEP, its stderr in $work/err
run_step() {
	# through the server, whose cache knows the name
	cli rm "$NFS42_EXPORT/dst" 2>/dev/null || true
	rm -f "$work/out"
	case $1 in
	map) cli map --stats "$NFS42_EXPORT/src" >"$work/map" 2>"$work/err" ;;
	get) cli get --stats "$NFS42_EXPORT/src" "$work/out" 2>"$work/err" ;;
	get-read) cli get --stats --plain-read "$NFS42_EXPORT/src" "$work/out" 2>"$work/err" ;;
	cp) cli cp --stats "$NFS42_EXPORT/src" "$NFS42_EXPORT/dst" 2>"$work/err" ;;
	cp-async) cli cp --async --stats "$NFS42_EXPORT/src" "$NFS42_EXPORT/dst" 2>"$work/err" ;;
	local) cp --sparse=always "$NFS42_BACKING/src" "$work/out" 2>"$work/err" ;;
	esac
}
printf '%-4s %4s | %-8s %8s %13s %7s %4s %6s | %s\n' size runs step median min-max x-local goal trips \
	"ops (besides SEQUENCE)"
for s in $sizes; do
	size=$(bytes_of "$s")
	for n in $runs; do
		make "$NFS42_BACKING/src" "$size" "$n"
		want=$(extents "$NFS42_BACKING/src")
		ref=
		for step in local map get get-read cp cp-async; do
			: >"$work/t"
			for ((r = -1; r < reps; r++)); do
				t0=$(now)
				run_step $step ||
					{ echo "sparse.sh: $step of $s/$n failed: $(cat "$work/err")" >&2; exit 1; }
				t1=$(now)
				[ $r -ge 0 ] && echo "$t1 - $t0" | bc >>"$work/t"
			done
			case $step in
			map) got=$(grep -c ' data$' "$work/map" || true)
			     [ "$got" = "$n" ] || { echo "sparse.sh: FAIL: map of $s/$n shows $got data runs" >&2; exit 1; } ;;
			get* | local) [ "$(extents "$work/out")" = "$want" ] ||
				{ echo "sparse.sh: FAIL: $step of $s/$n: other bytes" >&2; exit 1; } ;;
			cp*) [ "$(extents "$NFS42_BACKING/dst")" = "$want" ] ||
				{ echo "sparse.sh: FAIL: $step of $s/$n: other bytes" >&2; exit 1; } ;;
			esac
			med=$(median <"$work/t")
			goal=-
			if [ "$s" = 16T ] && [ "$n" = 3 ] && [[ $step =~ ^(map|get|cp)$ ]]; then
				goal=$(awk -v t="$med" 'BEGIN { print (t < 1) ? "PASS" : "FAIL" }')
			fi
			if [ $step = local ]; then
				ref=$med trips=- ops="(the backing file, no NFS)" ratio=1
			else
				line=$(grep 'round trips:' "$work/err")
				trips=${line#*round trips: }
				trips=${trips%% *}
				ops=$(sed 's/.*(\(.*\))/\1/; s/PUTFH [0-9]*, //; s/, PUTFH [0-9]*//' <<<"$line")
				ratio=$(awk -v a="$med" -v b="$ref" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
				echo "$s $n $step $trips" >>"$work/trips"
			fi
			printf '%-4s %4s | %-8s %8.3f %13s %7s %4s %6s | %s\n' "$s" "$n" "$step" \
				"$med" "$(spread <"$work/t")" "$ratio" "$goal" "$trips" "$ops"
		done
		cli rm "$NFS42_EXPORT/src"
		cli rm "$NFS42_EXPORT/dst" 2>/dev/null || true
		rm -f "$work/out"
	done
done
# O(data): the round trips of a step are at most a few per data run,
# whatever the size (cp --async puts runs less than 256 MiB apart in one
# COPY, so it may take fewer at a small size, never more at a large one)
bad=$(awk '{ k = $2 " " $3
	if ($4 > 40 + 8 * $2) print $3 " of " $1 " with " $2 " runs: " $4 " round trips"
	if (k in t && $4 > t[k] && $3 != "cp-async") print $3 " with " $2 " runs: " t[k] " then " $4 " round trips"
	t[k] = $4 }' "$work/trips")
if [ -n "$bad" ]; then
	echo "sparse.sh: FAIL: round trips grow with the size: $bad" >&2
	exit 1
fi
echo "round trips follow the data runs, not the size: PASS"
