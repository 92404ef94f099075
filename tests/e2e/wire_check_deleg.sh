#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# wire_check_deleg.sh: the independent wire check of read delegations
# (issue #11), run under harness.sh with delegations on.  The delegation
# e2e program's "wire" scenario runs once (client A opens for reading and
# gets a read delegation, client B opens for writing, the server recalls
# A's delegation on A's back channel, A returns it, B's OPEN succeeds)
# while tshark captures.  Wireshark's dissector must decode it with no
# malformed or error-level frame, and show: an OPEN reply with a READ
# delegation (open_delegation_type4 1); a CB_COMPOUND call with CB_RECALL
# (callback op 4) for that delegation's stateid and its NFS4_OK reply; a
# DELEGRETURN (op 8) of the same stateid answered NFS4_OK.
set -euo pipefail

wire_name=wire_check_deleg
# shellcheck source=tests/e2e/wire-lib.sh
. "$(dirname "$0")/wire-lib.sh"

prog=${SPARSE_DELEG_CLIENT:?}
wire_start
"$prog" wire || fail "the delegation scenario failed"
wire_stop
wire_no_errors

# OPEN (op 18) reply granting a read delegation
decode -Y "rpc.msgtyp == 1 && nfs.open.delegation_type == 1" | grep -q . ||
	fail "no OPEN reply with a READ delegation decoded"
# CB_RECALL in a CB_COMPOUND call from the server, and the client's reply
decode -Y "rpc.msgtyp == 0 && nfs.cb.operation == 4" | grep -q . ||
	fail "no CB_RECALL call decoded"
r=$(decode -Y "rpc.msgtyp == 1 && nfs.cb.operation == 4" \
	-T fields -e nfs.cb.operation -e nfs.nfsstat4)
[ -n "$r" ] || fail "no CB_RECALL reply decoded"
awk -F'\t' '{ m = split($2, s, ","); if (s[m] == 0) ok = 1 } END { exit !ok }' \
	<<<"$r" || fail "CB_RECALL not answered NFS4_OK: $r"
# the recalled stateid is the one returned
recalled=$(decode -Y "rpc.msgtyp == 0 && nfs.cb.operation == 4" \
	-T fields -e nfs.stateid.other | head -1)
returned=$(decode -Y "rpc.msgtyp == 0 && nfs.opcode == 8" \
	-T fields -e nfs.stateid.other | head -1)
if [ -z "$recalled" ] || [ "$recalled" != "$returned" ]; then
	fail "CB_RECALL stateid '$recalled' is not the DELEGRETURN's '$returned'"
fi
wire_op_call 8
wire_op_reply 8 0
echo "$wire_name: OK"
