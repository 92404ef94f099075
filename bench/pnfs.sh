#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# pnfs.sh [--smoke] [--size MIB] [--runs N] [--ds "1 2 4"] [--rate RATE]
#         [--ceph [--store bluestore|memstore]]
#
# Issue #20's table: a metadata server and N data servers (harness.sh
# --pnfs N, one shared export directory, 1 MiB stripes), each server
# behind its own rate-limited link, and our client reading and writing a
# SIZE MiB file (default 1024): through the layout (`nfs42 put`, `nfs42
# cat`) and through the metadata server alone (`--no-pnfs`).  Aggregate
# throughput against N x RATE and against the metadata server alone; goal
# >= 0.8 x N x RATE at N = 2 and 4.  Then a sparse file (1 MiB of data,
# 1 MiB hole, alternating) read with READ_PLUS through the data servers:
# the bytes on the wire beyond its data, as a share of its hole bytes
# (goal <= 1 %).
#
# The links: everything runs in one network namespace of its own, whose lo
# has an htb qdisc with one class of RATE (default 1gbit) per server,
# matched by the server's port in either direction (its own "link");
# other traffic is not limited.  Every output is compared (cmp) with the
# source: a wrong byte fails the benchmark.  --smoke: 16 MiB, N = 2, one
# run, no goals checked.  Needs root and network namespaces with htb, else
# exits 77 (skipped).
#
# --ceph (issue #29 item 5): the shared filesystem is a CephFS, a cluster
# of the benchmark's own (scripts/ceph-cluster.sh, in the benchmark's
# namespace: its traffic on lo is not limited) started once for every N;
# each server is FSAL_SPARSE on a ceph-fuse mount of its own, a CephFS
# client instance per head as on separate hosts (harness.sh --ceph --fsal
# SPARSE).  The sparse file's holes are reported, not judged: CephFS 16.2
# cannot tell holes (docs/cluster.md, section 6).  --store: the cluster's
# OSD store (default bluestore, on sparse files in the cluster's
# directory; memstore keeps 1 GiB per OSD in memory: --size 256 at most).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
. "$here/bench-lib.sh"
size=1024 runs=3 dss="1 2 4" rate=1gbit smoke=0 inner='' ceph=0 store=bluestore
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) size=16 runs=1 dss=2 smoke=1; shift ;;
	--size) size=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--ds) dss=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	--ceph) ceph=1; shift ;;
	--store) store=$2; shift 2 ;;
	# internal: one N's table inside its namespace and harness
	--inner) inner=$2; shift 2 ;;
	*) echo "pnfs.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
export SPARSE_STAGE=${SPARSE_STAGE:-$build/stage}
nfs42=${SPARSE_NFS42:-$build/inner/tools/nfs42}
mklayout=${SPARSE_BENCH_MKLAYOUT:-$build/inner/bench/bench_mklayout}

# rate_bits RATE: tc's "1gbit", "500mbit" in bit/s
rate_bits() {
	awk -v r="$1" 'BEGIN {
		n = r + 0; u = tolower(substr(r, length(n "") + 1))
		m = u == "gbit" ? 1e9 : u == "mbit" ? 1e6 : u == "kbit" ? 1e3 : 1
		print n * m }'
}

# links PORT...: one htb class of RATE per server port, both directions
# (the classes of an earlier N in the namespace, with --ceph, removed)
links() {
	local i=1 p
	tc qdisc del dev lo root 2>/dev/null || true
	tc qdisc add dev lo root handle 1: htb default 99
	tc class add dev lo parent 1: classid 1:99 htb rate 100gbit quantum 200000
	for p in "$@"; do
		tc class add dev lo parent 1: classid 1:$i htb rate "$rate" \
			ceil "$rate" burst 256k cburst 256k quantum 65536
		tc filter add dev lo parent 1: protocol ip prio 1 u32 \
			match ip sport "$p" 0xffff flowid 1:$i
		tc filter add dev lo parent 1: protocol ip prio 1 u32 \
			match ip dport "$p" 0xffff flowid 1:$i
		i=$((i + 1))
	done
}

# timed KIND CMD...: run CMD, append "KIND seconds" to the samples
timed() {
	local kind=$1 t0 t1
	shift
	t0=$(bench_now)
	if ! "$@" 2>"$err"; then
		echo "pnfs.sh: $kind failed:" >&2
		cat "$err" >&2
		return 1
	fi
	t1=$(bench_now)
	echo "$kind $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" >>"$samples"
}

# median KIND: the median seconds of KIND
median() {
	awk -v k="$1" '$1 == k { print $2 }' "$samples" >"$samples.t"
	bench_stats "$samples.t" | cut -d' ' -f1
}

# One N: we are inside its namespace, the harness's servers up.
run_n() {
	local n=$1 run src=$work/src b0 b1 wire
	# shellcheck disable=SC2086 # the list of ports
	links "$NFS42_PORT" $NFS42_DS_PORTS
	"$mklayout" "$src" "$size" data
	for ((run = 1; run <= runs; run++)); do
		timed put-pnfs "$nfs42" put "$src" "$NFS42_EXPORT/f$run"
		timed put-mds "$nfs42" put --no-pnfs "$src" "$NFS42_EXPORT/m$run"
		timed cat-pnfs "$nfs42" cat -d 8 --plain-read "$NFS42_EXPORT/f$run" -o "$out/f"
		cmp "$src" "$out/f" || { echo "pnfs.sh: FAIL: pNFS read returned other bytes" >&2; return 1; }
		cmp "$src" "$NFS42_BACKING/f$run" || { echo "pnfs.sh: FAIL: pNFS write left other bytes" >&2; return 1; }
		timed cat-mds "$nfs42" cat -d 8 --plain-read --no-pnfs "$NFS42_EXPORT/m$run" -o "$out/f"
		cmp "$src" "$out/f" || { echo "pnfs.sh: FAIL: read returned other bytes" >&2; return 1; }
		rm -f "$out/f" "$NFS42_BACKING/f$run" "$NFS42_BACKING/m$run"
	done
	# the sparse file: data bytes on the wire only
	"$mklayout" "$NFS42_BACKING/sparse" "$size" mixed-1024d
	b0=$(bench_lo_bytes)
	"$nfs42" cat -d 8 --read-plus --stats "$NFS42_EXPORT/sparse" -o "$out/s" 2>"$err" ||
		{ cat "$err" >&2; return 1; }
	b1=$(bench_lo_bytes)
	cmp "$NFS42_BACKING/sparse" "$out/s" || { echo "pnfs.sh: FAIL: sparse read returned other bytes" >&2; return 1; }
	sed 's/^/  sparse: /' "$err"
	rm -f "$out/s"
	wire=$((b1 - b0))
	awk -v n="$n" -v mib="$size" -v bits="$(rate_bits "$rate")" -v rate="$rate" \
	    -v pw="$(median put-pnfs)" -v mw="$(median put-mds)" \
	    -v pr="$(median cat-pnfs)" -v mr="$(median cat-mds)" \
	    -v wire="$wire" -v smoke="$smoke" -v ceph="$ceph" 'BEGIN {
		b = mib * 1048576 * 8
		link = bits / 1e9
		split("write read", what, " ")
		t["write", "p"] = pw; t["write", "m"] = mw
		t["read", "p"] = pr; t["read", "m"] = mr
		for (i = 1; i <= 2; i++) {
			w = what[i]
			gp = b / t[w, "p"] / 1e9; gm = b / t[w, "m"] / 1e9
			ratio = gp / (n * link)
			g = "-"
			if (!smoke && n >= 2)
				g = (ratio >= 0.8 ? "PASS" : "FAIL") " (>= 0.8)"
			printf "N=%d %-5s | pNFS %6.3f s %6.2f Gbit/s | MDS alone %6.3f s %6.2f Gbit/s | pNFS / (N x %s) %5.2f | pNFS / MDS %5.2f | %s\n",
				n, w, t[w, "p"], gp, t[w, "m"], gm, rate, ratio, gp / gm, g
		}
		hole = mib * 1048576 / 2; data = hole
		over = (wire - data) / hole
		g = smoke ? "-" : ((over <= 0.01 ? "PASS" : "FAIL") " (<= 1 %)")
		if (ceph)
			g = "- (CephFS cannot tell holes; lo carries Ceph'"'"'s own traffic too)"
		printf "N=%d sparse (READ_PLUS via the data servers): %.1f MiB on the wire for %.0f MiB data + %.0f MiB hole: beyond the data %.2f %% of the hole bytes | %s\n",
			n, wire / 1048576, data / 1048576, hole / 1048576, 100 * over, g
	}'
}

if [ -n "$inner" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/nfsb-pnfs-in.XXXXXX")
	samples=$work/samples
	err=$work/err
	outdir=${TMPDIR:-/tmp}
	[ -d /dev/shm ] &&
		[ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt $((size * 3072)) ] &&
		outdir=/dev/shm
	out=$(mktemp -d "$outdir/nfsb-pnfs-out.XXXXXX")
	trap 'rm -rf "$out" "$work"' EXIT
	run_n "$inner"
	exit
fi

# can_htb: a namespace with an htb qdisc can be made here
can_htb() {
	local probe=nfsb-htb-$$ rc=0
	bench_netns_up "$probe" >/dev/null 2>&1 &&
		ip netns exec "$probe" tc qdisc add dev lo root handle 1: htb \
			>/dev/null 2>&1 || rc=1
	bench_netns_down "$probe"
	return $rc
}
if ! bench_can_netns || ! can_htb; then
	echo "pnfs.sh: needs root, network namespaces and htb; skipped"
	exit 77
fi
if [ ! -x "$nfs42" ] || [ ! -x "$mklayout" ]; then
	echo "pnfs.sh: build first ($nfs42, $mklayout)" >&2
	exit 1
fi
fs="one shared export directory"
[ $ceph = 1 ] && fs="a CephFS ($store, one machine), a ceph-fuse mount per server"
echo "bench pnfs: $(bench_machine); $fs; $size MiB files, 1 MiB stripes, each server behind its own $rate link (htb on the namespace's lo), median of $runs runs"
ns=
cdir=
cleanup() {
	if [ -n "$cdir" ]; then
		"$repo/scripts/ceph-cluster.sh" stop "$cdir/cluster" >/dev/null || true
		rm -rf --one-file-system "$cdir"
	fi
	[ -z "$ns" ] || bench_netns_down "$ns"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
flags=()
[ $smoke = 1 ] && flags=(--smoke)
if [ $ceph = 1 ]; then
	"$repo/scripts/ceph-cluster.sh" check >&2 || exit 77
	ns=nfsb-pnfs-$$-ceph
	bench_netns_up "$ns"
	cdir=$(mktemp -d "${TMPDIR:-/tmp}/nfsb-pnfs-ceph.XXXXXX")
	ip netns exec "$ns" "$repo/scripts/ceph-cluster.sh" start \
		--store "$store" --owner $$ "$cdir/cluster" >&2
	flags+=(--ceph)
	for n in $dss; do
		ip netns exec "$ns" "$repo/tests/e2e/harness.sh" \
			--ceph "$cdir/cluster" --fsal SPARSE --pnfs "$n" \
			--pnfs-opts "Stripe_Unit = 1048576;" -- \
			"$0" "${flags[@]}" --size "$size" --runs "$runs" \
			--rate "$rate" --inner "$n"
	done
	exit 0
fi
for n in $dss; do
	ns=nfsb-pnfs-$$-$n
	bench_netns_up "$ns"
	ip netns exec "$ns" "$repo/tests/e2e/harness.sh" --pnfs "$n" \
		--pnfs-opts "Stripe_Unit = 1048576;" -- \
		"$0" ${flags[@]+"${flags[@]}"} --size "$size" --runs "$runs" \
		--rate "$rate" --inner "$n"
	bench_netns_down "$ns"
	ns=
done
