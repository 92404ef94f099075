# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# shellcheck shell=bash
#
# Sourced by bench/readplus.sh and bench/copy.sh: network namespaces for
# the two links of shared/BENCHMARKS.md, wire byte counts, medians.

# bench_netns_up NS [RATE]: a fresh network namespace NS with lo up; with
# RATE (e.g. 1gbit) its lo is rate-limited by a tbf qdisc, the "1 Gbit/s"
# link.  Every packet of a server and client inside NS crosses its lo.
bench_netns_up() {
	ip netns add "$1" 2>/dev/null || return 1
	ip netns exec "$1" ip link set lo up || return 1
	# Ganesha resolves Bind_addr with AI_ADDRCONFIG, which finds no IPv4
	# address where the only one is 127.0.0.1: give lo a second one
	# (TEST-NET-1, never routed; nothing uses it)
	ip netns exec "$1" ip addr add 192.0.2.1/32 dev lo || return 1
	[ -z "${2:-}" ] && return 0
	ip netns exec "$1" tc qdisc add dev lo root tbf rate "$2" \
		burst 128kb latency 50ms
}

bench_netns_down() {
	ip netns del "$1" 2>/dev/null || true
}

# bench_can_netns: 0 if namespaces (and tbf) can be made here.
bench_can_netns() {
	local ns=nfsb-probe-$$ rc=0
	[ "$(id -u)" = 0 ] || return 1
	bench_netns_up "$ns" 1gbit >/dev/null 2>&1 || rc=1
	bench_netns_down "$ns"
	return $rc
}

# bench_lo_bytes: bytes received on lo in this namespace so far.  On lo
# every packet is sent once and received once, so this counts the traffic
# of both directions, TCP/IP headers included (real bytes on the wire).
bench_lo_bytes() {
	sed -n 's/^ *lo: *\([0-9]*\).*/\1/p' /proc/net/dev
}

bench_now() {
	date +%s.%N
}

# bench_stats FILE: "median min max" of the numbers in FILE, one a line
bench_stats() {
	sort -g "$1" | awk '{ v[NR] = $1 }
		END { if (!NR) exit 1
		      m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      print m, v[1], v[NR] }'
}

bench_drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

bench_machine() {
	echo "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# bench_iperf NS: loopback TCP throughput inside NS in Gbit/s (iperf3, 3 s),
# empty when iperf3 is missing or fails.
bench_iperf() {
	local port=$((20000 + RANDOM % 10000)) spid out
	command -v iperf3 >/dev/null || return 0
	ip netns exec "$1" iperf3 -s -1 -p $port >/dev/null 2>&1 &
	spid=$!
	sleep 0.5
	out=$(ip netns exec "$1" iperf3 -c 127.0.0.1 -p $port -t 3 -f g 2>/dev/null |
		awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Gbits/sec") print $i }')
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	echo "$out"
}
