#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# readplus.sh [--smoke] [--size MIB] [--runs N] [--depth N] [--links "lo 1g"]
#             [--caches "cached dropped"] [--files "data hole mixed-4d ..."]
#             [--rate RATE]
#
# Seed 002's table (issue #7): files of known layout (bench_mklayout: data,
# hole, mixed-<K>d / mixed-<K>h = K KiB data and K KiB hole alternating,
# starting with data / a hole), SIZE MiB each (default 256; 2048 for the
# full table), read whole by `nfs42 cat -d DEPTH --plain-read` (READ) and
# `nfs42 cat -d DEPTH --read-plus` (READ_PLUS), 1 MiB requests, side by
# side (alternating order), RUNS timed runs after a warm-up.  Each link
# is a network namespace of its own: "lo" plain loopback, "1g" loopback
# rate-limited by tbf (RATE, default 1gbit); server and client both run
# inside it, so the bytes counted on its lo are exactly theirs.  "cached":
# the file is in the server's page cache (the warm-up read it); "dropped":
# `echo 3 > /proc/sys/vm/drop_caches` before every run.  Every output is
# compared (cmp) with the source: a wrong byte fails the benchmark.
# --smoke: 1 MiB files, 1 run, loopback, cached (CI).  Needs root and
# network namespaces, else exits 77 (skipped).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
. "$here/bench-lib.sh"
size=256 runs=5 depth=8 links="lo 1g" caches="cached dropped" rate=1gbit
files="data hole mixed-4d mixed-8d mixed-16d mixed-32d mixed-4h mixed-8h mixed-16h mixed-32h"
inner='' data='' iperf=''
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) size=1 runs=1 links=lo caches=cached; shift ;;
	--size) size=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--depth) depth=$2; shift 2 ;;
	--links) links=$2; shift 2 ;;
	--caches) caches=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	# internal: run the link's table inside its namespace and harness
	--inner) inner=$2 data=$3 iperf=$4; shift 4 ;;
	*) echo "readplus.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
export SPARSE_STAGE=${SPARSE_STAGE:-$build/stage}
nfs42=${SPARSE_NFS42:-$build/inner/tools/nfs42}
mklayout=${SPARSE_BENCH_MKLAYOUT:-$build/inner/bench/bench_mklayout}
opts=(--size "$size" --runs "$runs" --depth "$depth" --caches "$caches"
      --files "$files" --rate "$rate")

# stat_of FILE CACHE METHOD K: "median min max" of field K (4: seconds,
# 5: bytes) of those samples
stat_of() {
	awk -v f="$1" -v c="$2" -v m="$3" -v k="$4" \
		'$1 == f && $2 == c && $3 == m { print $k }' "$samples" >"$samples.t"
	bench_stats "$samples.t"
}

# One link's table: we are inside its namespace, the harness's server up.
run_link() {
	local link=$1 f cache run m b0 b1 t0 t1 order flag r p rb pb
	err=$samples.err
	# the client's output file: on tmpfs when there is room, so the sink
	# is memory, not the disk the server reads from
	for f in $files; do
		for cache in $caches; do
			for ((run = 0; run <= runs; run++)); do
				order="read rp"
				[ $((run % 2)) = 1 ] && order="rp read"
				for m in $order; do
					[ "$cache" = dropped ] && bench_drop_caches
					b0=$(bench_lo_bytes)
					t0=$(bench_now)
					flag=--plain-read # cat -o's default is READ_PLUS
					[ "$m" = rp ] && flag=--read-plus
					# shellcheck disable=SC2086
					if ! "$nfs42" cat -d "$depth" $flag \
						"/bench/$f" -o "$out/$f" 2>"$err"; then
						echo "readplus.sh: nfs42 cat ($m) of $f failed:" >&2
						cat "$err" >&2
						return 1
					fi
					t1=$(bench_now)
					b1=$(bench_lo_bytes)
					if ! cmp "$data/$f" "$out/$f" >&2; then
						echo "readplus.sh: FAIL: $m of $f returned other bytes than the file has" >&2
						return 1
					fi
					[ "$m" = rp ] && grep -q "reading with READ" "$err" &&
						echo "$f" >>"$samples.fallback"
					rm -f "$out/$f"
					[ $run = 0 ] && continue # the warm-up
					echo "$f $cache $m $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') $((b1 - b0))" >>"$samples"
				done
			done
		done
	done
	echo
	echo "link $link: $( [ "$link" = 1g ] && echo "loopback in a netns, tbf $rate" || echo "loopback in a netns, no limit"), depth $depth, $size MiB files, 1 MiB requests;"
	echo "time: seconds, median of $runs runs after a warm-up [min-max]; wire: MiB on the link, both directions, headers included (median)"
	local fb
	printf '%-10s %-7s | %-23s | %-23s | %9s %9s | %7s %8s | %s\n' \
		file cache "READ s" "READ_PLUS s" "READ MiB" "RP MiB" "t RP/R" "B RP/R" goal
	for f in $files; do
		for cache in $caches; do
			r=$(stat_of "$f" "$cache" read 4)
			p=$(stat_of "$f" "$cache" rp 4)
			rb=$(stat_of "$f" "$cache" read 5)
			pb=$(stat_of "$f" "$cache" rp 5)
			fb=0
			grep -qx "$f" "$samples.fallback" 2>/dev/null && fb=1
			awk -v f="$f" -v c="$cache" -v link="$link" -v r="$r" -v p="$p" \
			    -v rb="${rb%% *}" -v pb="${pb%% *}" -v fb=$fb 'BEGIN {
				split(r, R, " "); split(p, P, " ")
				t = P[1] / R[1]; b = pb / rb; g = "-"
				if (fb)
					g = "n/a (server answers NOTSUPP to READ_PLUS)"
				else if (f == "data")
					g = (t <= 1.02 ? "PASS" : "FAIL") " (t <= 1.02)"
				else if (f == "hole" && link == "1g")
					g = (t <= 0.01 && b <= 0.001 ? "PASS" : "FAIL") " (t<=0.01, B<=0.001)"
				else if (f ~ /^mixed/ && link == "1g" && c == "cached")
					g = (t <= 0.5 ? "PASS" : "FAIL") " (t<=0.5)"
				printf "%-10s %-7s | %7.3f [%6.3f-%6.3f] | %7.3f [%6.3f-%6.3f] | %9.2f %9.2f | %7.3f %8.4f | %s\n",
					f, c, R[1], R[2], R[3], P[1], P[2], P[3],
					rb / 1048576, pb / 1048576, t, b, g
			}'
		done
	done
	if [ -s "$samples.fallback" ]; then
		echo "READ_PLUS: the server answered NFS4ERR_NOTSUPP and nfs42 cat read with READ: the READ_PLUS column is READ again for $(sort -u "$samples.fallback" | tr '\n' ' ')"
	fi
	rm -f "$samples.t" "$samples.fallback"
	# issue #7: READ throughput with requests in flight vs loopback TCP
	if [ "$size" -ge 64 ] && [ "$link" = lo ] && grep -q '^data cached read ' "$samples"; then
		r=$(stat_of data cached read 4)
		awk -v t="${r%% *}" -v mib="$size" -v tcp="$iperf" -v d="$depth" 'BEGIN {
			g = mib * 1048576 * 8 / t / 1e9
			src = "iperf3 in this netns"
			if (tcp == "") { tcp = 40.9; src = "BENCHMARKS.md figure, iperf3 not run" }
			printf "READ throughput (data, cached, depth %d): %.2f Gbit/s = %.0f%% of loopback TCP %.1f Gbit/s (%s): %s (goal >= 50%%)\n",
				d, g, 100 * g / tcp, tcp, src, (g >= 0.5 * tcp ? "PASS" : "FAIL")
		}'
	fi
}

if [ -n "$inner" ]; then
	samples=$(mktemp "${TMPDIR:-/tmp}/nfsb-rp-samples.XXXXXX")
	err=$samples.err
	# the client's output file: on tmpfs when there is room, so the sink
	# is memory, not the disk the server reads from
	outdir=${TMPDIR:-/tmp}
	[ -d /dev/shm ] &&
		[ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt $((size * 3072)) ] &&
		outdir=/dev/shm
	out=$(mktemp -d "$outdir/nfsb-rp-out.XXXXXX")
	trap 'rm -rf "$out" "$samples" "$err" "$samples.t" "$samples.fallback"' EXIT
	run_link "$inner"
	exit
fi

if ! bench_can_netns; then
	echo "readplus.sh: needs root and network namespaces with tbf; skipped"
	exit 77
fi
if [ ! -x "$nfs42" ] || [ ! -x "$mklayout" ]; then
	echo "readplus.sh: build first ($nfs42, $mklayout)" >&2
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/nfsb-readplus.XXXXXX")
nslist=
cleanup() {
	for ns in $nslist; do bench_netns_down "$ns"; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$work/data"
for f in $files; do
	"$mklayout" "$work/data/$f" "$size" "$f"
done
conf="EXPORT { Export_Id = 7; Path = \"$work/data\"; Pseudo = \"/bench\"; FSAL { Name = SPARSE; } }"
echo "bench readplus: $(bench_machine); files on $(findmnt -n -o FSTYPE -T "$work/data")"
for link in $links; do
	ns=nfsb-rp-$$-$link
	bench_netns_up "$ns" "$( [ "$link" = 1g ] && echo "$rate")"
	nslist="$nslist $ns"
	tcp=
	[ "$link" = lo ] && [ "$runs" -gt 1 ] && tcp=$(bench_iperf "$ns")
	ip netns exec "$ns" "$repo/tests/e2e/harness.sh" --conf-extra "$conf" -- \
		"$0" "${opts[@]}" --inner "$link" "$work/data" "$tcp"
	bench_netns_down "$ns"
done
