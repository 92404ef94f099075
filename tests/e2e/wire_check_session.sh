#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# wire_check_session.sh PROGRAM
#
# The session-layer fixes on the wire (issue #11), run under harness.sh:
# PROGRAM (e2e_proto_session) runs under a tshark capture, then
# Wireshark's dissector must decode every frame (no malformed or
# error-level one), including the hand-built CREATE_SESSION calls that
# offer RPCSEC_GSS (flavour 6) in csa_sec_parms; and the replies must
# show the errors as RFC 8881 shapes them: a COMPOUND whose only result
# is SEQUENCE with NFS4ERR_TOO_MANY_OPS (10070) or NFS4ERR_REQ_TOO_BIG
# (10065), a CREATE_SESSION answered NFS4ERR_ENCR_ALG_UNSUPP (10079)
# and others NFS4_OK.
set -euo pipefail

wire_name=wire_check_session
# shellcheck source=tests/e2e/wire-lib.sh
. "$(dirname "$0")/wire-lib.sh"

prog=${1:?usage: wire_check_session.sh PROGRAM}
wire_start
prog_rc=0
"$prog" >"$work/prog.out" 2>&1 || prog_rc=$?
wire_stop
wire_no_errors

# CREATE_SESSION (op 43) calls offering RPCSEC_GSS, decoded
n=$(decode -Y "nfs && rpc.msgtyp == 0 && nfs.opcode == 43 && nfs.flavor4 == 6" | wc -l)
[ "$n" -ge 3 ] || fail "$n CREATE_SESSION calls with RPCSEC_GSS decoded (want 3)"
wire_op_reply 43 10079
wire_op_reply 43 0

# SEQUENCE (op 53) alone in its reply, with the limit errors
for st in 10070 10065; do
	r=$(decode -Y "nfs && rpc.msgtyp == 1 && nfs.nfsstat4 == $st" \
		-T fields -e nfs.opcode)
	[ -n "$r" ] || fail "no reply with status $st"
	while read -r ops; do
		[ "$ops" = 53 ] || fail "reply with status $st holds ops $ops, not SEQUENCE alone"
	done <<<"$r"
done

[ "$prog_rc" = 0 ] || fail "$prog exited $prog_rc: $(tail -n 5 "$work/prog.out")"
echo "$wire_name: ok"
