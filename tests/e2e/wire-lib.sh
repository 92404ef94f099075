# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# Sourced by the wire checks (wire_check.sh, wire_check_v42.sh), run under
# harness.sh: a tshark capture on the test port and Wireshark's decode of
# it.  The caller sets wire_name (for messages) and then:
#   wire_start     start capturing; returns once a ping is in the capture
#   wire_stop      stop capturing (after the last frames reached the file)
#   decode ARGS    tshark -r on the capture, the port decoded as RPC
#   wire_no_errors fail on any malformed or error-level frame
#   wire_op_call OP / wire_op_reply OP STATUS   a call with op OP; a reply
#                  whose last op is OP with status STATUS (its own)
# Variables: nfs42 port exp backing, and work (a directory of this run,
# removed at exit with the capture; SPARSE_WIRE_KEEP=FILE keeps a copy of
# the capture there).

# shellcheck disable=SC2034 # for the caller
{
nfs42=${SPARSE_NFS42:?}
port=${NFS42_PORT:?}
exp=${NFS42_EXPORT:?}
backing=${NFS42_BACKING:?}
work=$(mktemp -d "${TMPDIR:-/tmp}/nfs-sparse-wire.XXXXXX")
}
tshark_pid=
wire_cleanup() {
	if [ -n "$tshark_pid" ]; then kill "$tshark_pid" 2>/dev/null || true; fi
	if [ -n "${SPARSE_WIRE_KEEP:-}" ] && [ -f "$work/cap.pcapng" ]; then
		cp "$work/cap.pcapng" "$SPARSE_WIRE_KEEP"
	fi
	rm -rf "$work"
}
trap wire_cleanup EXIT
fail() {
	echo "${wire_name:?}: FAIL: $*" >&2
	exit 1
}

if ! command -v tshark >/dev/null; then
	echo "$wire_name: tshark is not installed" >&2
	exit 1
fi

wire_start() {
	local live=0
	tshark -i lo -f "tcp port $port" -w "$work/cap.pcapng" -q 2>"$work/tshark.err" &
	tshark_pid=$!
	for _ in $(seq 100); do
		grep -q "Capturing on" "$work/tshark.err" && break
		sleep 0.1
	done
	grep -q "Capturing on" "$work/tshark.err" ||
		fail "tshark did not start: $(cat "$work/tshark.err")"
	# "Capturing on" can come before packets are really taken: ping until
	# the capture file shows one, so the session is captured from its start.
	for _ in $(seq 50); do
		"$nfs42" ping >/dev/null 2>&1 || true
		if tshark -r "$work/cap.pcapng" -c 1 2>/dev/null | grep -q .; then
			live=1
			break
		fi
		sleep 0.1
	done
	[ $live = 1 ] || fail "tshark captured nothing on port $port"
}

wire_stop() {
	# let the last frames reach the capture before stopping it
	sleep 0.5
	kill -INT "$tshark_pid"
	wait "$tshark_pid" || true
	tshark_pid=
}

decode() { # tshark read options + fields, rows with a tab between fields
	tshark -r "$work/cap.pcapng" -d "tcp.port==$port,rpc" "$@" 2>/dev/null
}

wire_no_errors() {
	local f='_ws.malformed || _ws.expert.severity >= error' bad
	bad=$(decode -Y "$f" | wc -l)
	[ "$bad" -eq 0 ] || fail "$bad malformed or error frames: $(decode -Y "$f" | head -3)"
}

wire_op_call() {
	decode -Y "nfs && rpc.msgtyp == 0 && nfs.opcode == $1" | grep -q . ||
		fail "no call with op $1 decoded"
}

# wire_op_reply OP STATUS: some reply's last op is OP and the last status
# is STATUS (the op's own: the ops before it succeeded)
wire_op_reply() {
	local r
	r=$(decode -Y "nfs && rpc.msgtyp == 1 && nfs.opcode == $1" \
		-T fields -e nfs.opcode -e nfs.nfsstat4)
	[ -n "$r" ] || fail "no reply with op $1 decoded"
	awk -F'\t' -v op="$1" -v st="$2" '{ n = split($1, o, ","); m = split($2, s, ",")
		if (o[n] == op && s[m] == st) ok = 1 } END { exit !ok }' <<<"$r" ||
		fail "no reply with op $1 status $2 (opcodes, statuses: $r)"
}

# wire_op_calls OP: how many calls carry op OP
# wire_op_replies OP: one line per reply to a compound with op OP, its
# opcodes and its statuses (the compound's, then each op's), e.g.
# "53,22,59,9 0,0,0,0,0"; a frame holding several replies is split by
# their result counts (nfs.ops.count); frames that also carry a call (a
# callback on the back channel) are left out, so compare the counts
wire_op_calls() {
	decode -Y "rpc.msgtyp == 0 && nfs.opcode == $1" -T fields -e nfs.opcode |
		tr ',' '\n' | grep -cx "$1" || true
}
wire_op_replies() {
	decode -Y "rpc.msgtyp == 1 && !(rpc.msgtyp == 0) && nfs.opcode == $1" \
		-T fields -e nfs.ops.count -e nfs.opcode -e nfs.nfsstat4 |
		awk -F'\t' -v op="$1" '{
			nc = split($1, c, ","); split($2, o, ","); split($3, s, ",")
			oi = 1; si = 1
			for (i = 1; i <= nc; i++) {
				ops = ""; st = s[si]; has = 0
				for (j = 0; j < c[i]; j++) {
					ops = ops (j ? "," : "") o[oi + j]
					st = st "," s[si + 1 + j]
					if (o[oi + j] == op) has = 1
				}
				oi += c[i]; si += c[i] + 1
				if (has) print ops, st
			}
		}'
}
