#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# The README's serve command and the harness on bad input: each case must
# end with a clear message and the documented exit code, never a running
# server. Then a good start (an export directory whose name needs quoting
# in ganesha.conf): the export is served with the sample configuration's
# settings; a second serve.sh on another port runs beside it without
# touching the first one's files, one on the same port is refused; NFSv3
# and NFSv4.0 (--protocols) serve Debian's libnfs clients; and SIGINT
# (Ctrl-C) stops serve.sh and its ganesha.nfsd cleanly; --pnfs 2 serves
# reads and writes through its two data servers.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
stage=${SPARSE_STAGE:?}
nfs42=${SPARSE_NFS42:?}
. "$repo/tests/e2e/serve-lib.sh"
. "$repo/tests/check-lib.sh"

check bad-port 2 "bad port '99999'" -- "$serve" --no-build -p 99999
check port-not-number 2 "bad port 'abc'" -- "$serve" --no-build -p abc
check bad-log-level 2 "bad log level 'LOUD'" -- "$serve" --no-build -l LOUD
check missing-export-dir 2 "does not exist" -- "$serve" --no-build -d /nonexistent/dir
echo file >"$SPARSE_BUILD_DIR/plain"
check export-dir-is-file 2 "is not a directory" -- "$serve" --no-build -d "$SPARSE_BUILD_DIR/plain"
check missing-value 2 "p needs a value" -- "$serve" --no-build -p
check bad-protocols 2 "bad --protocols '4.3'" -- "$serve" --no-build --protocols 4.3
check bad-rpcbind 2 "bad --rpcbind" -- "$serve" --no-build --protocols 3,4 --rpcbind mine
check help-exits-0 0 "^usage: serve.sh " -- "$serve" --help
# the machine's rpcbind is used only when it runs, never started
if [ ! -e /run/rpcbind.sock ]; then
	check rpcbind-system-absent 2 "the machine's rpcbind is not running" -- \
		"$serve" --no-build --protocols 3,4 --rpcbind system
fi
check bad-pseudo 2 "must start with /" -- "$serve" --no-build -P relative
check unknown-arg 2 "unknown argument" -- "$serve" --no-build --frobnicate
check port-in-use 2 "already in use" -- "$serve" --no-build -p "$NFS42_PORT"
check bad-fsal-value 1 "Min_Hole_Size = 1000 rejected" -- \
	"$repo/tests/e2e/harness.sh" --fsal SPARSE --fsal-opts "Min_Hole_Size = 1000;" -- true
check client-dead-server 3 "cannot connect to 127.0.0.1" -- "$nfs42" -p 1 ls /
check client-bad-path 1 "NFS4ERR_NOENT" -- "$nfs42" ls "$NFS42_EXPORT/no/such"

. "$repo/scripts/server-lib.sh"

# stop_serve PID OUT NAME: Ctrl-C; serve.sh exits 0 and its server is gone
stop_serve() {
	local spid=$1 out=$2 name=$3 gpid=$4 rc=0
	kill -INT "$spid"
	wait "$spid" || rc=$?
	if [ $rc -eq 0 ] && ! kill -0 "$gpid" 2>/dev/null &&
	   grep -q "stopping ganesha.nfsd" "$out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $name: serve.sh rc=$rc, ganesha $gpid alive: $(kill -0 "$gpid" 2>/dev/null && echo yes || echo no)" >&2
		kill -KILL "$gpid" 2>/dev/null || true
	fi
}

# A good start on a free port, the default export dir replaced by one
# whose name Ganesha's parser needs escaped.
port=$(sparse_free_port)
export_dir=$SPARSE_BUILD_DIR/'the "export" \dir'
mkdir "$export_dir"
echo served >"$export_dir/hello"
start_serve "$SPARSE_BUILD_DIR/serve.out" -p "$port" -d "$export_dir"
serve_pid=$started
run=$SPARSE_BUILD_DIR/serve/$port
check serve-lists 0 "hello" -- "$nfs42" -p "$port" ls /sparse
check serve-reads 0 "^served$" -- "$nfs42" -p "$port" cat /sparse/hello
# the sample configuration's settings (src/config_samples/ganesha-sparse.conf.in)
check serve-sample-conf 0 "RecoveryBackend = sqlite" -- grep "RecoveryBackend = sqlite" "$run/ganesha.conf"
check serve-numeric-owners 0 "^0$" -- bash -c "'$nfs42' -p $port stat /sparse/hello | sed -n 's/^owner: //p'"
check serve-no-test-params 1 "" -- grep -i "Test_" "$run/ganesha.conf"
check serve-records 0 "sparse_recovery.db" -- ls "$run/recovery"
# read and write delegations on by default, with a lease the kernel's
# lease-break-time covers (write ones are refused otherwise, and the
# server and serve.sh say so); a reader or writer that exited leaves none
# behind: a write right after it does not wait for a recall (lease: 20 s)
check serve-delegations-conf 0 "Delegations = RW" -- \
	grep -E "Delegations = (true|RW)|Lease_Lifetime = 20;" "$run/ganesha.conf"
lease_break=$(cat /proc/sys/fs/lease-break-time)
if [ "$lease_break" -ge 45 ]; then
	check serve-says-delegations 0 "read and write delegations on" -- cat "$SPARSE_BUILD_DIR/serve.out"
	check serve-no-deleg-warning 1 "" -- grep "write delegations are configured" "$run/ganesha.log"
	# nfs42 put opens for writing: a write delegation, answered
	check serve-write-delegation 0 "delegation write" -- \
		"$nfs42" -p "$port" put --stats /etc/hostname /sparse/wdeleg
else
	check serve-says-delegations 0 "write delegations refused: .*sysctl fs.lease-break-time=45" -- cat "$SPARSE_BUILD_DIR/serve.out"
	check serve-deleg-warning 0 "sysctl -w fs.lease-break-time=45" -- cat "$run/ganesha.log"
	check serve-write-delegation 0 "delegation none" -- \
		"$nfs42" -p "$port" put --stats /etc/hostname /sparse/wdeleg
fi
echo rewritten >"$SPARSE_BUILD_DIR/new"
check serve-write-after-read 0 "" -- timeout 10 "$nfs42" -p "$port" put "$SPARSE_BUILD_DIR/new" /sparse/hello
check serve-write-after-write 0 "" -- timeout 10 "$nfs42" -p "$port" put "$SPARSE_BUILD_DIR/new" /sparse/wdeleg
ganesha_pid=$(cat "$run/pid")

# The README's nfs42 examples, as written, line by line, against this
# server (its port for 2049), in a directory of their own (get writes
# there): the indented block that starts with "nfs42=build/..."
readme_cmds=$(awk '/^    nfs42=build\/inner\/tools\/nfs42$/ { on = 1; next }
	on && !/^    / { exit }
	on { sub(/^    /, ""); sub(/ +#.*$/, ""); print }' "$repo/README.md" |
	sed "s/-p 2049 /-p $port /")
[ "$(grep -c . <<<"$readme_cmds")" -ge 10 ] ||
	{ fail=$((fail + 1)); echo "FAIL readme: the nfs42 examples not found" >&2; }
mkdir "$SPARSE_BUILD_DIR/readme"
while read -r line; do
	check "readme: $line" 0 "" -- \
		bash -c "cd '$SPARSE_BUILD_DIR/readme' && nfs42='$nfs42' && $line"
done <<<"$readme_cmds"
check readme-copy 0 "" -- cmp /etc/os-release "$SPARSE_BUILD_DIR/readme/a.copy"
check readme-stream 0 "^hello$" -- cat "$export_dir/h"
check readme-xattr 0 "^color$" -- "$nfs42" -p "$port" xattr ls /sparse/a
# truncate -s 1G f, put, get (issue #28 item 3: get filled the holes): 1 GiB
# on the server and back, no block allocated on either side
sparse_pair="'$export_dir/f' '$SPARSE_BUILD_DIR/readme/f.copy'"
check readme-sparse-size 0 "^1073741824 1073741824$" -- \
	bash -c "echo \$(stat -c %s $sparse_pair)"
check readme-sparse-blocks 0 "^0 0$" -- bash -c "echo \$(stat -c %b $sparse_pair)"

# A second serve.sh from the same build: on the same port it is refused,
# on another it runs beside the first; neither touches the first one's
# configuration, pid file or log.
fingerprint() { md5sum "$run/ganesha.conf" "$run/pid"; stat -c %s "$run/ganesha.log"; }
before=$(fingerprint)
check second-same-port 2 "already in use" -- "$serve" --no-build -p "$port" -d "$SPARSE_BUILD_DIR"
port2=$(sparse_free_port)
[ "$port2" != "$port" ] || port2=$(sparse_free_port)
mkdir "$SPARSE_BUILD_DIR/export2"
echo second >"$SPARSE_BUILD_DIR/export2/two"
start_serve "$SPARSE_BUILD_DIR/serve2.out" -p "$port2" -d "$SPARSE_BUILD_DIR/export2"
serve2_pid=$started
check second-serves 0 "^second$" -- "$nfs42" -p "$port2" cat /sparse/two
after=$(fingerprint)
if [ "$(head -n 2 <<<"$before")" = "$(head -n 2 <<<"$after")" ] &&
   [ "$(tail -n 1 <<<"$after")" -ge "$(tail -n 1 <<<"$before")" ]; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	echo "FAIL second-leaves-first: before: $before; after: $after" >&2
fi
check first-still-serves 0 "hello" -- "$nfs42" -p "$port" ls /sparse
stop_serve "$serve2_pid" "$SPARSE_BUILD_DIR/serve2.out" ctrl-c-second \
	"$(cat "$SPARSE_BUILD_DIR/serve/$port2/pid")"
stop_serve "$serve_pid" "$SPARSE_BUILD_DIR/serve.out" ctrl-c "$ganesha_pid"

# NFSv3 (a private rpcbind) and NFSv4.0: Debian's libnfs clients
# (libnfs-utils) reach the export by its pseudo path.
if ! command -v nfs-ls >/dev/null; then
	echo "serve_check: nfs-ls missing (Debian package libnfs-utils): --protocols with libnfs not checked"
elif [ "$(id -u)" != 0 ] || ! unshare --mount --propagation private true 2>/dev/null; then
	echo "serve_check: no private mount namespace (root, unshare): --protocols 3 not checked"
else
	port3=$(sparse_free_port)
	mnt3=$(sparse_free_port)
	start_serve "$SPARSE_BUILD_DIR/serve3.out" -p "$port3" --mount-port "$mnt3" \
		-d "$SPARSE_BUILD_DIR/export2" --protocols 3,4
	serve3_pid=$started
	check v3-says-how 0 "nfsport=$port3&mountport=$mnt3" -- cat "$SPARSE_BUILD_DIR/serve3.out"
	check v3-libnfs-ls 0 " two$" -- timeout 20 nfs-ls "nfs://127.0.0.1/sparse?nfsport=$port3&mountport=$mnt3"
	check v3-libnfs-cat 0 "^second$" -- timeout 20 nfs-cat "nfs://127.0.0.1/sparse/two?nfsport=$port3&mountport=$mnt3"
	check v40-libnfs-cat 0 "^second$" -- timeout 20 nfs-cat "nfs://127.0.0.1/sparse/two?version=4&nfsport=$port3"
	echo via-v3 >"$SPARSE_BUILD_DIR/v3src"
	check v3-libnfs-cp 0 "" -- timeout 20 nfs-cp "$SPARSE_BUILD_DIR/v3src" "nfs://127.0.0.1/sparse/three?nfsport=$port3&mountport=$mnt3"
	check v3-written 0 "^via-v3$" -- cat "$SPARSE_BUILD_DIR/export2/three"
	check v3-mounts-private 0 "" -- bash -c "! grep -qF '$SPARSE_BUILD_DIR' /proc/self/mountinfo"
	stop_serve "$serve3_pid" "$SPARSE_BUILD_DIR/serve3.out" ctrl-c-v3 \
		"$(cat "$SPARSE_BUILD_DIR/serve/$port3/pid")"
fi
# --pnfs 2: a metadata server and two data servers on the next ports,
# delegations on as by default; a client reads and writes through the
# data servers only, as fast as through the metadata server alone; Ctrl-C
# stops all three.
check pnfs-bad-count 2 "takes a number of data servers" -- "$serve" --no-build --pnfs 17
check pnfs-needs-v41 2 "needs NFSv4.1 or NFSv4.2" -- "$serve" --no-build --pnfs 1 --protocols 4.0
for _ in 1 2 3 4 5; do
	port4=$(sparse_free_port)
	! sparse_port_in_use $((port4 + 1)) && ! sparse_port_in_use $((port4 + 2)) && break
done
start_serve "$SPARSE_BUILD_DIR/serve4.out" -p "$port4" --pnfs 2 -d "$SPARSE_BUILD_DIR/export2"
serve4_pid=$started
check pnfs-says 0 "data servers .* on ports $((port4 + 1)) $((port4 + 2))" -- cat "$SPARSE_BUILD_DIR/serve4.out"
check pnfs-layout 0 "stripes: 2" -- "$nfs42" -p "$port4" layout /sparse/two
head -c 3000000 /dev/urandom >"$SPARSE_BUILD_DIR/pnfs-src"
check pnfs-put-via-ds 0 "mds 0 bytes, .*data servers failed 0" -- \
	"$nfs42" -p "$port4" put --stats "$SPARSE_BUILD_DIR/pnfs-src" /sparse/striped
check pnfs-put-same 0 "" -- cmp "$SPARSE_BUILD_DIR/pnfs-src" "$SPARSE_BUILD_DIR/export2/striped"
check pnfs-cat-via-ds 0 "mds 0 bytes, .*data servers failed 0" -- \
	timeout 60 "$nfs42" -p "$port4" cat --stats /sparse/striped -o "$SPARSE_BUILD_DIR/pnfs-back"
check pnfs-cat-same 0 "" -- cmp "$SPARSE_BUILD_DIR/pnfs-src" "$SPARSE_BUILD_DIR/pnfs-back"
# Issue #26 item 5: with write delegations (serve.sh's default where
# lease-break-time allows them) the holder's own I/O through the data
# servers breaks no lease of its delegation: a put and a cat of 3 MB
# through them take at most 3 x the same through the metadata server
# alone (--no-pnfs; 2 s at least, for a loaded machine), and nothing is
# revoked.  (Before, the data servers' opens slept in __break_lease: 21 s,
# and the delegation was revoked.)
ms() { date +%s%3N; }
pnfs_round() { # FLAGS NAME: put then cat of pnfs-src; prints the ms taken
	local t0
	t0=$(ms)
	# shellcheck disable=SC2086 # FLAGS: none, or one word
	"$nfs42" -p "$port4" put --stats $1 "$SPARSE_BUILD_DIR/pnfs-src" "/sparse/$2" \
		2>"$SPARSE_BUILD_DIR/$2.put" &&
		# shellcheck disable=SC2086
		timeout 60 "$nfs42" -p "$port4" cat $1 "/sparse/$2" -o "$SPARSE_BUILD_DIR/$2.back" &&
		cmp -s "$SPARSE_BUILD_DIR/pnfs-src" "$SPARSE_BUILD_DIR/$2.back" &&
		echo $(($(ms) - t0))
}
t_mds=$(pnfs_round --no-pnfs via-mds) || t_mds=
t_ds=$(pnfs_round "" via-ds) || t_ds=
limit=$((3 * ${t_mds:-0}))
[ "$limit" -ge 2000 ] || limit=2000
if grep -q "read and write delegations on" "$SPARSE_BUILD_DIR/serve4.out"; then
	check pnfs-put-write-delegation 0 "delegation write" -- cat "$SPARSE_BUILD_DIR/via-ds.put"
fi
check pnfs-deleg-time 0 "" -- test -n "$t_mds" -a -n "$t_ds" -a "${t_ds:-0}" -le "$limit"
[ -n "$t_ds" ] && [ "$t_ds" -le "$limit" ] ||
	echo "    put+cat of 3 MB: ${t_mds:-failed} ms through the metadata server, ${t_ds:-failed} ms through the data servers (limit $limit ms)" >&2
check pnfs-no-revocation 0 "" -- bash -c "! grep -E 'Revoking delegation|broken by a local open' '$SPARSE_BUILD_DIR/serve/$port4/ganesha.log'"
ds_pids4="$(cat "$SPARSE_BUILD_DIR/serve/$port4/ds0/pid" "$SPARSE_BUILD_DIR/serve/$port4/ds1/pid")"
stop_serve "$serve4_pid" "$SPARSE_BUILD_DIR/serve4.out" ctrl-c-pnfs \
	"$(cat "$SPARSE_BUILD_DIR/serve/$port4/pid")"
for p in $ds_pids4; do
	check "pnfs-data-server-$p-stopped" 0 "" -- bash -c "! kill -0 $p 2>/dev/null"
done
serve_pids=()

check_summary serve_check
