#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# sample_conf_check.sh: the sample configuration's commented examples
# (src/config_samples/ganesha-sparse.conf.in, the packages'
# /etc/ganesha/ganesha.conf) work once uncommented as they say (issue #28
# item 6):
#   - pNFS: a data server from the sample with its two "PNFS_DS = true;"
#     lines uncommented, a metadata server from the sample with its
#     "PNFS_MDS = true;" lines, its Stripe_Unit and its first Data_Server
#     line (the address made the data server's) uncommented; a client gets
#     a layout of one stripe and writes and reads through the data server
#     only;
#   - the second export: uncommented (its Path made a directory of this
#     test's) and the server sent SIGHUP, as the comment says, /sparse2
#     is served read-only alongside /sparse.
# Neither server logs a configuration error.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
stage=${SPARSE_STAGE:?}
nfs42=${SPARSE_NFS42:?}
. "$repo/scripts/server-lib.sh"
. "$repo/tests/check-lib.sh"
template=$repo/src/config_samples/ganesha-sparse.conf.in
w=$(mktemp -d "${TMPDIR:-/tmp}/nfs-sparse-sample.XXXXXX")
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		sparse_stop_server "$p" 5 || true
	done
	rm -rf "$w"
}
trap cleanup EXIT
mkdir -p "$w/export" "$w/export2" "$w/ds/recovery" "$w/mds/recovery"
echo second >"$w/export2/two"
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$w/no-bus

# render DIR PORT: the sample with this test's values, as serve.sh fills
# it in, in DIR/ganesha.conf
render() {
	sparse_render_conf "$template" "$1/ganesha.conf" \
		PROTOCOLS=4 "NFS_PORT=$2" MNT_PORT=20048 BIND_ADDR=127.0.0.1 \
		"PLUGINS_DIR=\"$stage/lib/ganesha\"" "MINOR_VERSIONS=0, 1, 2" \
		"RECOVERY_ROOT=\"$1/recovery\"" GRACELESS=true \
		"EXPORT_PATH=\"$w/export\"" 'PSEUDO="/sparse"' LOG_LEVEL=EVENT \
		LEASE_LIFETIME=20 DELEGATIONS=true EXPORT_DELEGATIONS=RW
}
# start DIR PORT: ganesha.nfsd on DIR/ganesha.conf, ready on PORT
start() {
	local p
	p=$(sparse_start_server "$stage" "$1/ganesha.conf" "$1/ganesha.log" "$1/pid" $$)
	pids+=("$p")
	sparse_wait_ready "$p" "$2" "$1/ganesha.log" 60 ||
		{ echo "sample_conf_check: the server of $1 did not start:"; sparse_log_errors "$1/ganesha.log"; exit 1; }
}

for _ in 1 2 3 4 5; do
	mds_port=$(sparse_free_port)
	ds_port=$(sparse_free_port)
	[ "$mds_port" != "$ds_port" ] && break
done

# The data server: its two PNFS_DS lines uncommented
render "$w/ds" "$ds_port"
sed -i -E 's/^([[:space:]]*)# (PNFS_DS = true;)$/\1\2/' "$w/ds/ganesha.conf"
check ds-lines-uncommented 0 "^2$" -- grep -cE "^[[:space:]]*PNFS_DS = true;" "$w/ds/ganesha.conf"
start "$w/ds" "$ds_port"

# The metadata server: PNFS_MDS, Stripe_Unit, the first Data_Server
render "$w/mds" "$mds_port"
sed -i -E -e 's/^([[:space:]]*)# (PNFS_MDS = true;|Stripe_Unit = [0-9]+;)$/\1\2/' \
	-e 's/^([[:space:]]*)# Data_Server \{ Address = "192\.0\.2\.11:2049"; \}$/\1Data_Server { Address = "127.0.0.1:'"$ds_port"'"; }/' \
	"$w/mds/ganesha.conf"
check mds-lines-uncommented 0 "^4$" -- \
	grep -cE "^[[:space:]]*(PNFS_MDS = true;|Stripe_Unit = [0-9]+;|Data_Server \{ Address = \"127.0.0.1:$ds_port\"; \})$" "$w/mds/ganesha.conf"
start "$w/mds" "$mds_port"
mds=${pids[1]}

head -c 2000000 /dev/urandom >"$w/src"
check pnfs-put-via-ds 0 "mds 0 bytes, .*data servers failed 0" -- \
	"$nfs42" -p "$mds_port" put --stats "$w/src" /sparse/f
check pnfs-layout 0 "stripes: 1" -- "$nfs42" -p "$mds_port" layout /sparse/f
check pnfs-cat-via-ds 0 "mds 0 bytes, .*data servers failed 0" -- \
	"$nfs42" -p "$mds_port" cat --stats /sparse/f -o "$w/back"
check pnfs-same 0 "" -- cmp "$w/src" "$w/back"

# The second export, uncommented and its Path ours, then a reload
check no-second-export-yet 1 "" -- "$nfs42" -p "$mds_port" ls /sparse2
sed -i -e '/^#EXPORT {$/,/^#}$/s/^#//' \
	-e "s|^\\(\\s*Path = \\)\"/srv/nfs-sparse2\";|\\1\"$w/export2\";|" "$w/mds/ganesha.conf"
check second-export-uncommented 0 "^\\s*Path = \"$w/export2\";$" -- cat "$w/mds/ganesha.conf"
kill -HUP "$mds"
for _ in $(seq 100); do
	grep -q "Reread exports complete" "$w/mds/ganesha.log" && break
	sleep 0.1
done
check second-export-served 0 "^second$" -- "$nfs42" -p "$mds_port" cat /sparse2/two
check second-export-read-only 1 "NFS4ERR_(ROFS|ACCESS|PERM)" -- \
	"$nfs42" -p "$mds_port" put "$w/src" /sparse2/new
check first-export-still 0 "" -- "$nfs42" -p "$mds_port" ls /sparse
for d in ds mds; do
	check "$d-no-config-errors" 1 "" -- sparse_config_errors "$w/$d/ganesha.log"
done
check_summary sample_conf_check
