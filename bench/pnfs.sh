#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# pnfs.sh [--smoke] [--size MIB] [--runs N] [--ds "1 2 4"] [--rate RATE]
#         [--ceph [--store bluestore|memstore]] [--versus NFS42]
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
# Beside the writes, the machine's own ceiling (issue #26): the raw
# contender, bench_rawstripe, N plain TCP streams and no NFS, pushes the
# same bytes in the same 1 MiB stripes over the data servers' links (its
# ports in their htb classes) into a sink per stream that discards them,
# that pwrites them into one shared file in the export directory and
# fsyncs at the end ("file"), or that also fsyncs every 4 MiB of a stream
# as our client COMMITs ("file, fsync every 4 MiB"); the writers run in a
# rotating order, and each cell gives the machine's CPU (/proc/stat: busy
# against idle over the run) and each process's CPU per MiB.
#
# The links: everything runs in one network namespace of its own, whose lo
# has an htb qdisc with one class of RATE (default 1gbit) per server,
# matched by the server's port in either direction (its own "link");
# other traffic is not limited.  Every output is compared (cmp) with the
# source: a wrong byte fails the benchmark.  --smoke: 16 MiB, N = 2, one
# run, no goals checked.  Needs root and network namespaces with htb, else
# exits 77 (skipped).
#
# --versus NFS42: another build of the nfs42 client writes too, through
# the layout and through the metadata server alone, beside ours in the
# same rotation ("put-pnfs-vs", "put-mds-vs"): an A/B of a client change
# on the same links and under the same load.
#
# PNFS_TRACE=1 in the environment traces the script (set -x).
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
[ -z "${PNFS_TRACE:-}" ] || set -x

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
. "$here/bench-lib.sh"
size=1024 runs=3 dss="1 2 4" rate=1gbit smoke=0 inner='' ceph=0 store=bluestore
versus=${SPARSE_NFS42_VERSUS:-}
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) size=16 runs=1 dss=2 smoke=1; shift ;;
	--size) size=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--ds) dss=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	--ceph) ceph=1; shift ;;
	--store) store=$2; shift 2 ;;
	--versus) versus=$(realpath "$2"); shift 2 ;;
	# internal: one N's table inside its namespace and harness
	--inner) inner=$2; shift 2 ;;
	*) echo "pnfs.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
export SPARSE_STAGE=${SPARSE_STAGE:-$build/stage}
nfs42=${SPARSE_NFS42:-$build/inner/tools/nfs42}
mklayout=${SPARSE_BENCH_MKLAYOUT:-$build/inner/bench/bench_mklayout}
rawstripe=${SPARSE_BENCH_RAWSTRIPE:-$build/inner/bench/bench_rawstripe}

# rate_bits RATE: tc's "1gbit", "500mbit" in bit/s
rate_bits() {
	awk -v r="$1" 'BEGIN {
		n = r + 0; u = tolower(substr(r, length(n "") + 1))
		m = u == "gbit" ? 1e9 : u == "mbit" ? 1e6 : u == "kbit" ? 1e3 : 1
		print n * m }'
}

# link_port CLASS PORT: PORT's traffic, both directions, in htb class 1:CLASS
link_port() {
	tc filter add dev lo parent 1: protocol ip prio 1 u32 \
		match ip sport "$2" 0xffff flowid "1:$1"
	tc filter add dev lo parent 1: protocol ip prio 1 u32 \
		match ip dport "$2" 0xffff flowid "1:$1"
}

# links PORT...: one htb class of RATE per server port, both directions
# (the classes of an earlier N in the namespace, with --ceph, removed);
# the raw contender's sink ports share the data servers' classes: raw
# stream i crosses data server i's link
links() {
	local i=1 p
	tc qdisc del dev lo root 2>/dev/null || true
	tc qdisc add dev lo root handle 1: htb default 99
	tc class add dev lo parent 1: classid 1:99 htb rate 100gbit quantum 200000
	for p in "$@"; do
		tc class add dev lo parent 1: classid 1:$i htb rate "$rate" \
			ceil "$rate" burst 256k cburst 256k quantum 65536
		link_port $i "$p"
		i=$((i + 1))
	done
	for ((i = 0; i < ${#raw_ports[@]}; i++)); do
		link_port $((i + 2)) "${raw_ports[i]}"
	done
}

# cpu_ticks: "busy idle" jiffies of the whole machine so far (/proc/stat:
# user nice system irq softirq steal against idle iowait)
cpu_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat
}

# proc_ticks PID...: utime + stime of those processes (0 for one gone)
proc_ticks() {
	local p t=0 u
	for p in "$@"; do
		u=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$p/stat" 2>/dev/null) || u=0
		t=$((t + ${u:-0}))
	done
	echo $t
}

# self_ticks: user + system clock ticks of this shell's waited-for children
# into $ticks (times itself, never in a pipe or $(...): a subshell's
# children are not ours)
self_ticks() {
	times >"$work/times"
	ticks=$(awk -v hz="$(getconf CLK_TCK)" 'NR == 2 {
		for (i = 1; i <= 2; i++) {
			split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
		printf "%d\n", t * hz + 0.5 }' "$work/times")
}

# timed KIND CMD...: run CMD, append "KIND seconds" to the samples and
# "KIND busy idle client mds ds sink" (clock ticks over the run: the
# machine's, the client's, the metadata server's, the data servers' and
# the raw sinks') to the CPU samples
timed() {
	local kind=$1 t0 t1 c0 c1 s0 s1 m0 m1 d0 d1 k0 k1
	shift
	self_ticks
	c0=$(cpu_ticks) s0=$ticks
	m0=$(proc_ticks "${mds_pid[@]}") d0=$(proc_ticks "${ds_pids[@]}")
	k0=$(proc_ticks "${sink_pids[@]}")
	t0=$(bench_now)
	if ! "$@" 2>"$err"; then
		echo "pnfs.sh: $kind failed:" >&2
		cat "$err" >&2
		return 1
	fi
	t1=$(bench_now)
	self_ticks
	c1=$(cpu_ticks) s1=$ticks
	m1=$(proc_ticks "${mds_pid[@]}") d1=$(proc_ticks "${ds_pids[@]}")
	k1=$(proc_ticks "${sink_pids[@]}")
	echo "$kind $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" >>"$samples"
	echo "$kind $c0 $c1 $s0 $s1 $m0 $m1 $d0 $d1 $k0 $k1" | awk '{
		print $1, $4 - $2, $5 - $3, $7 - $6, $9 - $8, $11 - $10, $13 - $12 }' >>"$cpus"
}

# raw_put KIND SENDER-FLAGS...: the raw contender's write of the source
raw_put() {
	local kind=$1
	shift
	timed "$kind" "$rawstripe" send "$@" "$src" "${raw_ports[@]}" || return 1
	sed "s/^/  $kind run $run: /" "$err"
}

# sink_start: the raw contender's sinks, one process per stream, on the
# export's directory (the data servers' disk)
sink_start() {
	local k
	"$rawstripe" sink "$NFS42_BACKING" "${raw_ports[@]}" >"$work/sink.out" &
	sink_pid=$!
	for ((k = 0; k < 100; k++)); do
		grep -q ready "$work/sink.out" 2>/dev/null && break
		kill -0 "$sink_pid" 2>/dev/null || { echo "pnfs.sh: the raw sink failed" >&2; return 1; }
		sleep 0.1
	done
	# (no newline at the end of that file)
	read -r -a sink_pids <"/proc/$sink_pid/task/$sink_pid/children" || true
}

# median KIND: the median seconds of KIND
median() {
	awk -v k="$1" '$1 == k { print $2 }' "$samples" >"$samples.t"
	bench_stats "$samples.t" | cut -d' ' -f1
}

# One N: we are inside its namespace, the harness's servers up.
run_n() {
	local n=$1 run src=$work/src b0 b1 wire i k kinds
	mds_pid=("$(cat "$NFS42_SERVER_PID_FILE")")
	ds_pids=()
	for ((i = 0; i < n; i++)); do
		ds_pids+=("$(cat "$NFS42_WORK_DIR/ds$i.pid")")
	done
	raw_ports=()
	for ((i = 1; i <= n; i++)); do
		raw_ports+=($((9000 + i)))
	done
	# shellcheck disable=SC2086 # the list of ports
	links "$NFS42_PORT" $NFS42_DS_PORTS
	"$mklayout" "$src" "$size" data
	sink_start
	kinds=(put-pnfs put-mds raw-discard raw-file raw-file-c4)
	[ -z "$versus" ] || kinds+=(put-pnfs-vs put-mds-vs)
	for ((run = 1; run <= runs; run++)); do
		# the writers in a rotating order: none always first
		for ((i = 0; i < ${#kinds[@]}; i++)); do
			k=${kinds[(i + run - 1) % ${#kinds[@]}]}
			case $k in
			put-pnfs) timed "$k" "$nfs42" put "$src" "$NFS42_EXPORT/f$run" ;;
			put-mds) timed "$k" "$nfs42" put --no-pnfs "$src" "$NFS42_EXPORT/m$run" ;;
			put-pnfs-vs) timed "$k" "$versus" put "$src" "$NFS42_EXPORT/vf$run" ;;
			put-mds-vs) timed "$k" "$versus" put --no-pnfs "$src" "$NFS42_EXPORT/vm$run" ;;
			raw-discard) raw_put "$k" discard - ;;
			raw-file) raw_put "$k" file "r$run" ;;
			# an fsync every 4 MiB of a stream: the client's COMMITs
			raw-file-c4) raw_put "$k" --commit $((4 << 20)) file "c$run" ;;
			esac
		done
		for k in r c; do
			cmp "$src" "$NFS42_BACKING/$k$run" || { echo "pnfs.sh: FAIL: the raw sink wrote other bytes" >&2; return 1; }
		done
		if [ -n "$versus" ]; then
			for k in vf vm; do
				cmp "$src" "$NFS42_BACKING/$k$run" || { echo "pnfs.sh: FAIL: the --versus client wrote other bytes" >&2; return 1; }
				rm -f "$NFS42_BACKING/$k$run"
			done
		fi
		timed cat-pnfs "$nfs42" cat -d 8 --plain-read "$NFS42_EXPORT/f$run" -o "$out/f"
		cmp "$src" "$out/f" || { echo "pnfs.sh: FAIL: pNFS read returned other bytes" >&2; return 1; }
		cmp "$src" "$NFS42_BACKING/f$run" || { echo "pnfs.sh: FAIL: pNFS write left other bytes" >&2; return 1; }
		timed cat-mds "$nfs42" cat -d 8 --plain-read --no-pnfs "$NFS42_EXPORT/m$run" -o "$out/f"
		cmp "$src" "$out/f" || { echo "pnfs.sh: FAIL: read returned other bytes" >&2; return 1; }
		rm -f "$out/f" "$NFS42_BACKING/f$run" "$NFS42_BACKING/m$run" \
			"$NFS42_BACKING/r$run" "$NFS42_BACKING/c$run"
	done
	kill "$sink_pid"
	wait "$sink_pid" || true
	sink_pid=
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
	raw_report "$n"
}

# raw_report N: the raw contender beside pNFS's writes, and the CPU of
# every writer (medians over the runs)
raw_report() {
	awk -v n="$1" -v mib="$size" -v bits="$(rate_bits "$rate")" \
	    -v pw="$(median put-pnfs)" -v mw="$(median put-mds)" \
	    -v rd="$(median raw-discard)" -v rf="$(median raw-file)" \
	    -v rc="$(median raw-file-c4)" 'BEGIN {
		b = mib * 1048576 * 8; nl = n * bits / 1e9
		printf "N=%d raw   | discard %6.3f s %5.2f Gbit/s (%4.2f of N links) | file %6.3f s %5.2f Gbit/s (%4.2f) | file, fsync every 4 MiB %6.3f s %5.2f Gbit/s (%4.2f) | pNFS / raw file %4.2f, / raw discard %4.2f | MDS alone / raw file %4.2f\n",
			n, rd, b / rd / 1e9, b / rd / 1e9 / nl, rf, b / rf / 1e9,
			b / rf / 1e9 / nl, rc, b / rc / 1e9, b / rc / 1e9 / nl,
			rf / pw, rd / pw, rf / mw
	}'
	[ -z "$versus" ] || awk -v n="$1" -v mib="$size" -v bits="$(rate_bits "$rate")" \
	    -v pw="$(median put-pnfs)" -v mw="$(median put-mds)" \
	    -v vp="$(median put-pnfs-vs)" -v vm="$(median put-mds-vs)" 'BEGIN {
		b = mib * 1048576 * 8; nl = n * bits / 1e9
		printf "N=%d versus | pNFS write: ours %6.3f s (%4.2f of N links), versus %6.3f s (%4.2f) | MDS alone: ours %6.3f s (%4.2f of 1 link), versus %6.3f s (%4.2f)\n",
			n, pw, b / pw / 1e9 / nl, vp, b / vp / 1e9 / nl, mw,
			b / mw / 1e9 / (bits / 1e9), vm, b / vm / 1e9 / (bits / 1e9)
	}'
	local k
	for k in put-pnfs put-mds put-pnfs-vs put-mds-vs raw-discard raw-file raw-file-c4 cat-pnfs cat-mds; do
		awk -v k="$k" '$1 == k' "$cpus"
	done | awk -v n="$1" -v mib="$size" -v hz="$(getconf CLK_TCK)" '
		# median of column c of kind k
		function med(k, c,   m, i, j, t, v) {
			m = cnt[k]
			for (i = 1; i <= m; i++) v[i] = x[k, i, c]
			for (i = 2; i <= m; i++)
				for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
			return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
		}
		{ if (!($1 in cnt)) order[++nk] = $1
		  i = ++cnt[$1]
		  for (c = 2; c <= 7; c++) x[$1, i, c] = $c }
		END {
			ms = 1000 / hz / mib
			for (j = 1; j <= nk; j++) {
				k = order[j]
				busy = med(k, 2); idle = med(k, 3)
				printf "N=%d cpu %-11s | machine busy %3.0f %% | CPU ms per MiB: client %5.2f, metadata server %5.2f, data servers %5.2f, raw sinks %5.2f\n",
					n, k, 100 * busy / (busy + idle), med(k, 4) * ms,
					med(k, 5) * ms, med(k, 6) * ms, med(k, 7) * ms
			}
		}'
}

if [ -n "$inner" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/nfsb-pnfs-in.XXXXXX")
	samples=$work/samples
	cpus=$work/cpus
	err=$work/err
	sink_pid=
	outdir=${TMPDIR:-/tmp}
	[ -d /dev/shm ] &&
		[ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt $((size * 3072)) ] &&
		outdir=/dev/shm
	out=$(mktemp -d "$outdir/nfsb-pnfs-out.XXXXXX")
	trap '[ -z "$sink_pid" ] || kill "$sink_pid"; rm -rf "$out" "$work"' EXIT
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
if [ ! -x "$nfs42" ] || [ ! -x "$mklayout" ] || [ ! -x "$rawstripe" ]; then
	echo "pnfs.sh: build first ($nfs42, $mklayout, $rawstripe)" >&2
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
	SPARSE_NFS42_VERSUS=$versus ip netns exec "$ns" \
		"$repo/tests/e2e/harness.sh" --pnfs "$n" \
		--pnfs-opts "Stripe_Unit = 1048576;" -- \
		"$0" ${flags[@]+"${flags[@]}"} --size "$size" --runs "$runs" \
		--rate "$rate" --inner "$n"
	bench_netns_down "$ns"
	ns=
done
