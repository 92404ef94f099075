#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# creates.sh [--smoke] [--latency MS] [--scope UPDATES|ALL]
#            [--clients "1 8 32 64"] [--files N] [--runs N] [--workers N]
#            [--durable true|false] [--parallel-dir-updates true|false]
#            [--compare] [--op create|remove|rename]
#
# Parallel creates in one directory: starts a FSAL_SPARSE server (through
# tests/e2e/harness.sh) whose backend sleeps MS per metadata call
# (Test_Hooks Metadata_Latency_Ms) of the kinds --scope names (Latency_Scope:
# UPDATES, the default here, delays creates and other updates, so a create
# costs one latency; ALL also delays lookups and getattrs, which Ganesha's
# MDCACHE runs under per-directory locks), then runs bench_creates for each
# client count.
# Prints creates/s (median of RUNS after a warm-up), the ideal
# min(N, workers) / latency and the ratio (--latency 0: no added latency,
# the rate only). --durable: the export's Durable_Metadata (default true:
# every create fsyncs the new file and the directory). --smoke: a tiny run
# for CI.
# --parallel-dir-updates: MDCACHE's Parallel_Dir_Updates (patch 0060;
# default: Ganesha's default, true). --compare: the whole run twice, with
# it false then true (one server each), and a table of both.
# --op remove|rename: time REMOVEs (or RENAMEs to NAME.r in the same
# directory) of files each client created before the clock started,
# instead of creates (no calls per operation then).
# Where dbus-daemon is installed, the server gets a private bus and each
# line also gives the backend metadata calls per create (FSAL_SPARSE's
# md_read/md_update statistics over all the creates of that client count,
# warm-up run included).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
latency=20 scope=UPDATES clients="1 8 32 64" files=200 runs=5 durable=true
pdu="" compare=0 op=create
# Ganesha's RPC work pool may grow to RPC_Ioq_ThrdMax threads (default 200).
workers=200
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) latency=5 clients="1 4" files=5 runs=1; shift ;;
	--latency) latency=$2; shift 2 ;;
	--scope) scope=$2; shift 2 ;;
	--clients) clients=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--workers) workers=$2; shift 2 ;;
	--durable) durable=$2; shift 2 ;;
	--parallel-dir-updates) pdu=$2; shift 2 ;;
	--compare) compare=1; shift ;;
	--op) op=$2; shift 2 ;;
	*) echo "creates.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

args=(--latency "$latency" --scope "$scope" --clients "$clients" --files "$files"
      --runs "$runs" --workers "$workers" --durable "$durable" --op "$op")
if [ $compare = 1 ]; then
	# one server per setting; the table from their "creates N=" lines
	out=${TMPDIR:-/tmp}/creates-compare.$$
	for v in false true; do
		echo "== MDCACHE Parallel_Dir_Updates = $v"
		"$0" "${args[@]}" --parallel-dir-updates $v | tee "$out.$v"
	done
	echo
	echo "| N | Parallel_Dir_Updates = false | calls/create | true | calls/create | true / false | goal 0.8 N / (calls x latency) | true / (true at N=1) |"
	echo "|---|---|---|---|---|---|---|---|"
	first=""
	for n in $clients; do
		line() { grep -E "^${op}s N=$n +" "$out.$1" | head -n 1; }
		rate() { line "$1" | sed -n 's/.*median=\([0-9.]*\)\/s.*/\1/p'; }
		calls() { line "$1" | sed -n 's/.*calls\/create=\([0-9.]*\).*/\1/p'; }
		off=$(rate false) on=$(rate true) c=$(calls true)
		first=${first:-$on}
		echo "| $n | ${off:-?}/s | $(calls false) | ${on:-?}/s | $c |" \
		     "$(awk -v a="${on:-0}" -v b="${off:-0}" 'BEGIN { if (b > 0) printf "%.1fx", a / b }') |" \
		     "$(awk -v n="$n" -v c="${c:-0}" -v l="$latency" 'BEGIN { if (c > 0 && l > 0) printf "%.1f/s", 0.8 * n / (c * l / 1000) }') |" \
		     "$(awk -v a="${on:-0}" -v b="${first:-0}" 'BEGIN { if (b > 0) printf "%.1fx", a / b }') |"
	done
	rm -f "$out.false" "$out.true"
	exit 0
fi

if [ -z "${NFS42_PORT:-}" ]; then
	export SPARSE_STAGE=${SPARSE_STAGE:-$build/stage}
	export SPARSE_BENCH_CREATES=${SPARSE_BENCH_CREATES:-$build/inner/bench/bench_creates}
	hargs=(--fsal-opts "Test_Hooks { Metadata_Latency_Ms = $latency; Latency_Scope = $scope; } Durable_Metadata = $durable;")
	[ -n "$pdu" ] && hargs+=(--conf-extra "MDCACHE { Parallel_Dir_Updates = $pdu; }")
	command -v dbus-daemon >/dev/null && command -v dbus-send >/dev/null && hargs+=(--dbus)
	exec "$repo/tests/e2e/harness.sh" "${hargs[@]}" -- "$0" "${args[@]}" \
		${pdu:+--parallel-dir-updates "$pdu"}
fi

stats=$repo/tools/sparse-stats
# md_read + md_update calls of FSAL_SPARSE's statistics (empty: no bus)
md_calls() {
	"$stats" fsal 2>/dev/null | awk '$1 == "md_read" || $1 == "md_update" { n += $2; seen = 1 }
		END { if (seen) print n }'
}
have_stats=0
if [ -S "${DBUS_SYSTEM_BUS_ADDRESS#unix:path=}" ] && "$stats" enable-fsal >/dev/null 2>&1; then
	have_stats=1
fi

echo "bench creates: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"\
     "backend latency ${latency} ms per metadata call (scope $scope), Durable_Metadata $durable,"\
     "export on $(findmnt -n -o FSTYPE -T "$NFS42_BACKING" 2>/dev/null || echo '?'), loopback"
for n in $clients; do
	dir=creates-n$n
	mkdir "$NFS42_BACKING/$dir"
	[ $have_stats = 1 ] && "$stats" reset >/dev/null
	res=$("$SPARSE_BENCH_CREATES" -d "$NFS42_EXPORT/$dir" -n "$n" -f "$files" \
		-r "$runs" -w "$workers" -l "$latency" -o "$op")
	want=$(( n * files * (runs + 1) ))
	[ "$op" = remove ] && want=0
	calls=""
	[ $have_stats = 1 ] && [ "$op" = create ] && calls=$(md_calls)
	if [ -n "$calls" ]; then
		res="$res $(awk -v c="$calls" -v w="$want" 'BEGIN { printf "calls/create=%.2f", c / w }')"
	fi
	echo "$res${pdu:+ parallel_dir_updates=$pdu}"
	got=$(find "$NFS42_BACKING/$dir" -type f | wc -l)
	if [ "$got" -ne "$want" ]; then
		echo "creates.sh: $got files in $dir, want $want" >&2
		exit 1
	fi
done
