#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# copy.sh [--smoke] [--size MIB] [--runs N] [--links "lo 1g"] [--rate RATE]
#         [--caps "0 1 2 4 8"] [--budgets "10 100"] [--no-sweep]
#
# Issue #8's table: one SIZE MiB file (default 1024) copied on the server
# by each contender, side by side (the order rotates every run), RUNS
# timed runs after a warm-up, on each link (a network namespace of its
# own, as in readplus.sh: "lo" plain loopback, "1g" tbf at RATE):
#   client   `nfs42 cp --via-client`: READ + WRITE through our client
#   COPY     `nfs42 cp`: synchronous COPYs (continued after short ones)
#   async    `nfs42 cp --async`, where the CLI has it
#   CLONE    `nfs42 cp --clone` on an XFS reflink loop image
#            (tests/e2e/clonefs-setup.sh)
#   cfr      bench_cfr: local copy_file_range(2) + fsync on the export's
#            own filesystem, the physical reference
# Every nfs42 cp ends with a COMMIT, so every contender's copy is durable.
# The source is in the page cache (the warm-up read it) and `sync` runs
# before each timed copy.  Every destination is compared (cmp) with the
# source.  A contender the server cannot do (COPY or CLONE answered
# NFS4ERR_NOTSUPP: nfs42 cp says it copied through the client, or fails)
# prints "n/a (server answers NOTSUPP)", never a number.
# Then the cap sweep (seed 000): a server per setting of the NFSv4 block's
# Copy_Chunk_Size (--caps, MiB, 0 = no cap; no time budget) and
# Copy_Time_Budget_Ms (--budgets, ms; no cap), with the total time, the
# COPY round trips and the longest one (client-side timestamps around each
# COPY compound, `nfs42 cp --stats`).
# --smoke: 4 MiB, 1 run, loopback, caps "0 1", no budgets (CI).  Needs
# root and network namespaces, else exits 77.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
. "$here/bench-lib.sh"
size=1024 runs=5 links="lo 1g" rate=1gbit caps="0 1 2 4 8" budgets="10 100"
sweep=1 inner=
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) size=4 runs=1 links=lo caps="0 1" budgets=""; shift ;;
	--size) size=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--links) links=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	--caps) caps=$2; shift 2 ;;
	--budgets) budgets=$2; shift 2 ;;
	--no-sweep) sweep=0; shift ;;
	# internal: inside a link's namespace and harness
	--inner)
		inner=$2 link=$3 work=$4
		shift 4
		if [ "$inner" = sweep ]; then
			scap=$1 sbudget=$2
			shift 2
		fi
		;;
	*) echo "copy.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
export SPARSE_STAGE=${SPARSE_STAGE:-$build/stage}
nfs42=${SPARSE_NFS42:-$build/inner/tools/nfs42}
mklayout=${SPARSE_BENCH_MKLAYOUT:-$build/inner/bench/bench_mklayout}
cfr=${SPARSE_BENCH_CFR:-$build/inner/bench/bench_cfr}

# run_one NAME: one copy by contender NAME, timed; appends
# "NAME secs calls max_us path" to $work/samples.$link (path: copy,
# client or clone, as nfs42 cp --stats says; cfr for the local copy).
# Returns 3 when the server cannot do it (NOTSUPP).
run_one() {
	local name=$1 src dst exp local_src local_dst t0 t1 st rc=0
	local -a cmd
	exp=/bench src=/bench/src local_src=$work/data/src
	[ "$name" = clone ] && exp=/xfs local_src=$work/xfs/x/src
	dst=$exp/dst-$name local_dst=${local_src%/src}/dst-$name
	case $name in
	client) cmd=("$nfs42" cp --via-client --stats "$src" "$dst") ;;
	copy) cmd=("$nfs42" cp --stats "$src" "$dst") ;;
	async) cmd=("$nfs42" cp --async --stats "$src" "$dst") ;;
	clone) cmd=("$nfs42" cp --clone --stats "$exp/src" "$dst") ;;
	cfr) cmd=("$cfr" "$local_src" "$local_dst") ;;
	esac
	# a fresh destination, removed through the server it is copied by
	if [ "$name" = cfr ]; then
		rm -f "$local_dst"
	else
		"$nfs42" rm "$dst" 2>/dev/null || true
	fi
	sync
	t0=$(bench_now)
	"${cmd[@]}" >"$work/out.$link" 2>"$work/err.$link" || rc=$?
	t1=$(bench_now)
	if [ $rc = 1 ] && grep -q NFS4ERR_NOTSUPP "$work/err.$link"; then
		return 3
	fi
	if [ $rc != 0 ]; then
		echo "copy.sh: $name failed (exit $rc):" >&2
		cat "$work/err.$link" >&2
		exit 1
	fi
	st=$(sed -n 's/^nfs42: cp stats: //p' "$work/err.$link")
	# COPY (or async) that went through the client: not a COPY figure
	if [ "$name" != client ] && [[ "$st" == path=client* ]]; then
		return 3
	fi
	if ! cmp "$local_src" "$local_dst" >&2; then
		echo "copy.sh: FAIL: $name made a copy that differs from the source" >&2
		exit 1
	fi
	[ "$name" = cfr ] && st="path=cfr calls=$(awk '{ print $5 }' "$work/out.$link") max_us=0"
	echo "$name $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') $(
		echo "$st" | sed 's/.*calls=\([0-9]*\).*max_us=\([0-9]*\).*/\1 \2/') ${st%% *}" \
		>>"$work/samples.$link"
}

# field F's "median min max" over NAME's samples
stat_of() {
	awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$work/samples.$link" >"$work/t.$link"
	bench_stats "$work/t.$link"
}

inner_main() {
	local names="client copy" n run na=" " order r why usage
	# the CLI's usage line of cp names --async once it has it
	usage=$("$nfs42" 2>&1 || true)
	[[ "$(grep ' cp ' <<<"$usage")" == *--async* ]] && names="$names async"
	names="$names clone cfr"
	[ -s "$work/xfs/skip" ] && names=${names/clone/}
	: >"$work/samples.$link"
	for ((run = 0; run <= runs; run++)); do
		# rotate the order by one each run
		order=$(echo "$names" | awk -v r=$run '{ for (i = 0; i < NF; i++) printf "%s ", $((i + r) % NF + 1) }')
		for n in $order; do
			[[ "$na" == *" $n "* ]] && continue
			r=0
			run_one "$n" || r=$?
			[ $r = 3 ] && na="$na$n "
			# the warm-up's figures do not count
			[ $run = 0 ] && [ $r = 0 ] && sed -i '$d' "$work/samples.$link"
		done
	done
	[[ "$na" == *" copy "* ]] || echo ok >"$work/copy-works.$link"
	echo
	echo "link $link: $( [ "$link" = 1g ] && echo "loopback in a netns, tbf $rate" || echo "loopback in a netns, no limit"), $size MiB file, page-cached source;"
	echo "time: seconds, median of $runs runs after a warm-up [min-max]; x client / x cfr: client-side copy's / copy_file_range's time over this one"
	printf '%-24s | %-25s | %8s | %6s | %5s | %10s | %s\n' contender "time s" "x client" "x cfr" calls "longest ms" goal
	local tc tf
	tc=$(stat_of client 2) tc=${tc%% *}
	tf=$(stat_of cfr 2) tf=${tf%% *}
	for n in client copy async clone cfr; do
		case $n in
		client) label="client READ+WRITE" ;;
		copy) label="COPY (sync)" ;;
		async) label="COPY (async)" ;;
		clone) label="CLONE (XFS reflink)" ;;
		cfr) label="local copy_file_range" ;;
		esac
		why=
		if [ $n = async ] && [[ " $names " != *" async "* ]]; then
			why="not available (nfs42 cp has no --async yet)"
		elif [ $n = clone ] && [ -s "$work/xfs/skip" ]; then
			why="n/a (no XFS reflink image: $(cat "$work/xfs/skip"))"
		elif [[ "$na" == *" $n "* ]]; then
			why="n/a (server answers NOTSUPP)"
		fi
		if [ -n "$why" ]; then
			printf '%-24s | %s\n' "$label" "$why"
			continue
		fi
		awk -v n=$n -v l="$label" -v t="$(stat_of $n 2)" -v c="$(stat_of $n 3)" \
		    -v m="$(stat_of $n 4)" -v tc="$tc" -v tf="$tf" -v link="$link" 'BEGIN {
			split(t, T, " "); split(c, C, " "); split(m, M, " ")
			xc = tc / T[1]; xf = tf / T[1]; g = "-"
			if (n == "copy" || n == "async") {
				ok = xf >= 0.8 && (link != "lo" || xc >= 5)
				g = (ok ? "PASS" : "FAIL") (link == "lo" ? " (>=5x client, >=0.8x cfr)" : " (>=0.8x cfr)")
			} else if (n == "clone") {
				g = (M[3] <= 20000 ? "PASS" : "FAIL") " (longest CLONE call <= 20 ms)"
			}
			longest = (n == "cfr" || n == "client") ? "-" : sprintf("%.1f", M[3] / 1000)
			printf "%-24s | %7.3f [%7.3f-%7.3f] | %8.2f | %6.2f | %5d | %10s | %s\n",
				l, T[1], T[2], T[3], xc, xf, C[1], longest, g
		}'
	done
}

# One cap sweep setting: this server has it; print its row.
inner_sweep() {
	local cap=$1 budget=$2 run r
	: >"$work/samples.$link"
	# Ganesha only warns about a parameter it does not know
	if grep -q "Unknown parameter (Copy_" "$NFS42_LOG"; then
		printf '%-9s | %-9s | %s\n' "$cap" "$budget" "n/a (server does not know Copy_Chunk_Size / Copy_Time_Budget_Ms)"
		return
	fi
	for ((run = 0; run <= runs; run++)); do
		r=0
		run_one copy || r=$?
		if [ $r = 3 ]; then
			printf '%-9s | %-9s | %s\n' "$cap" "$budget" "n/a (server answers NOTSUPP)"
			return
		fi
		[ $run = 0 ] && sed -i '$d' "$work/samples.$link"
	done
	stat_of copy 2 >"$work/sweep.$link.$cap.$budget"
	awk -v cap="$cap" -v b="$budget" -v t="$(stat_of copy 2)" -v c="$(stat_of copy 3)" \
	    -v m="$(stat_of copy 4)" -v base="$(cat "$work/sweep.$link.0.0" 2>/dev/null)" 'BEGIN {
		split(t, T, " "); split(c, C, " "); split(m, M, " "); split(base, B, " ")
		rel = B[1] ? sprintf("%.3f", T[1] / B[1]) : "-"
		g = "-"
		if (cap == "4" && b == "0" && B[1])
			g = (T[1] <= 1.03 * B[1] ? "PASS" : "FAIL") " (<= 1.03x no cap)"
		if (b != "0")
			g = (M[3] / 1000 <= b ? "PASS" : "FAIL") " (longest <= " b " ms)"
		printf "%-9s | %-9s | %7.3f [%7.3f-%7.3f] | %9s | %5d [%d-%d] | %7.1f [%.1f] | %s\n",
			cap, b, T[1], T[2], T[3], rel, C[1], C[2], C[3], M[1] / 1000, M[3] / 1000, g
	}'
}

case $inner in
main) inner_main; exit ;;
sweep) inner_sweep "$scap" "$sbudget"; exit ;;
esac

if ! bench_can_netns; then
	echo "copy.sh: needs root and network namespaces with tbf; skipped"
	exit 77
fi
for b in "$nfs42" "$mklayout" "$cfr"; do
	[ -x "$b" ] || { echo "copy.sh: build first ($b)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/nfsb-copy.XXXXXX")
nslist=
cleanup() {
	for ns in $nslist; do bench_netns_down "$ns"; done
	"$repo/tests/e2e/clonefs-setup.sh" cleanup "$work/xfs" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$work/data"
"$mklayout" "$work/data/src" "$size" data
CLONEFS_SIZE=$((2 * size + 300))M "$repo/tests/e2e/clonefs-setup.sh" setup "$work/xfs"
[ -s "$work/xfs/skip" ] || "$mklayout" "$work/xfs/x/src" "$size" data
conf="EXPORT { Export_Id = 7; Path = \"$work/data\"; Pseudo = \"/bench\"; FSAL { Name = SPARSE; } }
$(cat "$work/xfs/exports.conf")"
echo "bench copy: $(bench_machine); /bench on $(findmnt -n -o FSTYPE -T "$work/data"), /xfs on XFS reflink=1 (loop)"
for link in $links; do
	ns=nfsb-cp-$$-$link
	bench_netns_up "$ns" "$( [ "$link" = 1g ] && echo "$rate")"
	nslist="$nslist $ns"
	ip netns exec "$ns" "$repo/tests/e2e/harness.sh" --conf-extra "$conf" -- \
		"$0" --size "$size" --runs "$runs" --rate "$rate" --inner main "$link" "$work"
	if [ $sweep = 1 ]; then
		echo
		echo "cap sweep, link $link: time s median [min-max], ratio to no cap, COPY round trips median [min-max], longest COPY ms median of the runs' longest [longest of all]"
		printf '%-9s | %-9s | %-25s | %9s | %-11s | %-14s | %s\n' "cap MiB" "budget ms" "time s" "x no cap" "COPY calls" "longest ms" goal
		for setting in $(for c in $caps; do echo "$c:0"; done; for b in $budgets; do echo "0:$b"; done); do
			cap=${setting%%:*} budget=${setting##*:}
			if [ ! -f "$work/copy-works.$link" ]; then
				printf '%-9s | %-9s | %s\n' "$cap" "$budget" "n/a (server answers NOTSUPP)"
				continue
			fi
			if ! ip netns exec "$ns" "$repo/tests/e2e/harness.sh" --conf-extra "$conf" \
				--nfsv4-opts "Copy_Chunk_Size = $((cap << 20)); Copy_Time_Budget_Ms = $budget;" -- \
				"$0" --size "$size" --runs "$runs" --rate "$rate" --inner sweep "$link" "$work" "$cap" "$budget" \
				>"$work/sweep.out" 2>&1; then
				if grep -q "refused part of its configuration" "$work/sweep.out"; then
					printf '%-9s | %-9s | %s\n' "$cap" "$budget" "n/a (server does not know Copy_Chunk_Size / Copy_Time_Budget_Ms)"
					continue
				fi
				cat "$work/sweep.out" >&2
				exit 1
			fi
			grep -v '^harness:' "$work/sweep.out" || true
		done
	fi
	bench_netns_down "$ns"
done
