#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# wire_check_xattr.sh: RFC 8276 extended attributes as Wireshark's NFS
# dissector sees them (run under harness.sh; wire-lib.sh).  `nfs42 xattr`
# sets, gets, lists and removes user xattrs of a file and a directory of
# the FSAL_SPARSE export; the capture must decode with no malformed or
# error-level frame, and its fields must say what was done:
# - SETXATTR (73) calls: key, option (0 EITHER, 1 CREATE, 2 REPLACE) and
#   value bytes (a binary one with NUL and 0xff) as sent; NFS4_OK replies
#   with change_info4 before < after; CREATE of an existing key
#   NFS4ERR_EXIST (17), REPLACE of a missing one NFS4ERR_NOXATTR (10095);
# - GETXATTR (72): the reply's value is the backing file's user.KEY,
#   byte for byte; a missing key NFS4ERR_NOXATTR;
# - LISTXATTRS (74) with lxa_maxcount 40 over 6 names: the first call has
#   cookie 0, each next call the cookie of the reply before, eof only on
#   the last reply, the name count field equals the names decoded, every
#   reply's LISTXATTRS4resok fits in 40 bytes and the names together are
#   exactly the backing directory's user xattrs; lxa_maxcount 16
#   NFS4ERR_TOOSMALL (10005);
# - REMOVEXATTR (75): NFS4_OK with before < after, the backing xattr gone.
# The wire is checked before what our client printed.
set -euo pipefail

wire_name=wire_check_xattr
# shellcheck source=tests/e2e/wire-lib.sh
. "$(dirname "$0")/wire-lib.sh"

# hex of the backing object's user.NAME ("" when missing)
bhex() {
	python3 -c 'import os,sys
try: print(os.getxattr(sys.argv[1], "user." + sys.argv[2]).hex())
except OSError: print("")' "$backing/$1" "$2"
}

echo data >"$backing/xf"
mkdir "$backing/xd"
printf 'a\0b\377' >"$work/bin"

wire_start
rc_create_again=0 rc_replace_missing=0 rc_get_missing=0 rc_small=0
"$nfs42" xattr set "$exp/xf" color blue
"$nfs42" xattr set --create "$exp/xd" bin "@$work/bin"
"$nfs42" xattr set --create "$exp/xf" color red 2>/dev/null || rc_create_again=$?
"$nfs42" xattr set --replace "$exp/xf" nope red 2>/dev/null || rc_replace_missing=$?
"$nfs42" xattr get "$exp/xf" color >"$work/got.color"
"$nfs42" xattr get -o "$work/got.bin" "$exp/xd" bin
"$nfs42" xattr get "$exp/xf" missing 2>/dev/null || rc_get_missing=$?
for i in 1 2 3 4 5; do "$nfs42" xattr set "$exp/xd" "n$i" "v$i"; done
"$nfs42" xattr ls -n 40 "$exp/xd" >"$work/ls.out"
"$nfs42" xattr ls -n 16 "$exp/xd" 2>/dev/null || rc_small=$?
"$nfs42" xattr rm "$exp/xf" color
wire_stop
wire_no_errors

rows() { # one row per xattr frame: msgtyp stream opcodes statuses ...
	decode -Y 'nfs.opcode >= 72 && nfs.opcode <= 75' -T fields \
		-e rpc.msgtyp -e tcp.stream -e nfs.opcode -e nfs.nfsstat4 \
		-e nfs.xattr.key -e nfs.setxattr.options -e nfs.data \
		-e nfs.lisxtattr.cookie -e nfs.lisxtattr.maxcount \
		-e nfs.listxattr.names.count -e nfs.lisxtattr.eof \
		-e nfs.changeid4.before -e nfs.changeid4.after
}
rows >"$work/rows"
[ -z "${SPARSE_WIRE_DEBUG:-}" ] || cat "$work/rows" >&2
[ -s "$work/rows" ] || fail "no xattr op decoded"

# the reply of the call in the same TCP stream (one client per command)
reply_of() { # reply_of OPCODE KEY OPTION: the reply row of that call
	local stream
	stream=$(awk -F'\t' -v op="$1" -v k="$2" -v o="$3" '$1 == 0 &&
		$3 ~ ("," op "$") && $5 == k && (o == "" || $6 == o) { print $2; exit }' \
		"$work/rows")
	[ -n "$stream" ] || fail "no call of op $1 key '$2' option '$3'"
	awk -F'\t' -v s="$stream" -v op="$1" '$1 == 1 && $2 == s &&
		$3 ~ ("," op "$")' "$work/rows"
}
status_of() { # last status of a reply row
	awk -F'\t' '{ n = split($4, s, ","); print s[n] }'
}
cinfo_moves() { # reply row: before < after
	awk -F'\t' '{ exit !($12 != "" && $13 != "" && $12 + 0 < $13 + 0) }'
}

# SETXATTR calls carry what was asked
awk -F'\t' '$1 == 0 && $5 == "color" && $6 == 0 && $7 == "626c7565"' \
	"$work/rows" | grep -q . || fail "SETXATTR color/EITHER/blue not decoded"
awk -F'\t' '$1 == 0 && $5 == "bin" && $6 == 1 && $7 == "610062ff"' \
	"$work/rows" | grep -q . || fail "SETXATTR bin/CREATE/61 00 62 ff not decoded"
r=$(reply_of 73 color 0)
[ "$(status_of <<<"$r")" = 0 ] || fail "SETXATTR color: $r"
cinfo_moves <<<"$r" || fail "SETXATTR color: change_info4 did not move: $r"
[ "$(reply_of 73 color 1 | status_of)" = 17 ] ||
	fail "SETXATTR CREATE of an existing key: not NFS4ERR_EXIST"
[ "$(reply_of 73 nope 2 | status_of)" = 10095 ] ||
	fail "SETXATTR REPLACE of a missing key: not NFS4ERR_NOXATTR"

# GETXATTR replies carry the backing bytes
r=$(reply_of 72 color "")
[ "$(status_of <<<"$r")" = 0 ] || fail "GETXATTR color: $r"
[ "$(cut -f7 <<<"$r")" = 626c7565 ] || fail "GETXATTR color value: $r"
r=$(reply_of 72 bin "")
want=$(bhex xd bin)
[ "$want" = 610062ff ] || fail "backing user.bin is '$want'"
[ "$(cut -f7 <<<"$r")" = "$want" ] || fail "GETXATTR bin value: $r, backing $want"
[ "$(reply_of 72 missing "" | status_of)" = 10095 ] ||
	fail "GETXATTR of a missing key: not NFS4ERR_NOXATTR"

# LISTXATTRS with maxcount 40: a cookie chain in one stream
ls_stream=$(awk -F'\t' '$1 == 0 && $9 == 40 { print $2; exit }' "$work/rows")
[ -n "$ls_stream" ] || fail "no LISTXATTRS call with maxcount 40"
awk -F'\t' -v s="$ls_stream" '$2 == s && $3 ~ /,74$/' "$work/rows" >"$work/ls.rows"
python3 - "$work/ls.rows" "$backing/xd" <<'EOF' || fail "LISTXATTRS chain wrong (above)"
import os, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
want = sorted(n[5:] for n in os.listxattr(sys.argv[2]) if n.startswith("user."))
names, cookie, ok = [], "0", True
calls = [r for r in rows if r[0] == "0"]
replies = [r for r in rows if r[0] == "1"]
if len(calls) < 2 or len(calls) != len(replies):
    print("calls", len(calls), "replies", len(replies)); sys.exit(1)
for i, (c, r) in enumerate(zip(calls, replies)):
    got = r[4].split(",") if r[4] else []
    size = 8 + 4 + sum(4 + (len(n) + 3) // 4 * 4 for n in got) + 4
    last = i == len(calls) - 1
    if c[7] != cookie or r[3].split(",")[-1] != "0" or \
       int(r[9] or -1) != len(got) or size > 40 or \
       r[10] != ("1" if last else "0"):
        print("call", c, "reply", r, "size", size); ok = False
    names += got
    cookie = r[7]
if sorted(names) != want or len(set(names)) != len(names):
    print("names", names, "backing", want); ok = False
sys.exit(0 if ok else 1)
EOF
r=$(awk -F'\t' '$1 == 0 && $9 == 16 { print $2; exit }' "$work/rows")
[ -n "$r" ] || fail "no LISTXATTRS call with maxcount 16"
[ "$(awk -F'\t' -v s="$r" '$1 == 1 && $2 == s' "$work/rows" | status_of)" = 10005 ] ||
	fail "LISTXATTRS maxcount 16: not NFS4ERR_TOOSMALL"

# REMOVEXATTR
r=$(reply_of 75 color "")
[ "$(status_of <<<"$r")" = 0 ] || fail "REMOVEXATTR color: $r"
cinfo_moves <<<"$r" || fail "REMOVEXATTR: change_info4 did not move: $r"
[ -z "$(bhex xf color)" ] || fail "user.color still on the backing file"

# then what our client saw
[ "$(cat "$work/got.color")" = blue ] || fail "client got '$(cat "$work/got.color")'"
cmp -s "$work/bin" "$work/got.bin" || fail "client's binary value differs"
[ $rc_create_again = 1 ] && [ $rc_replace_missing = 1 ] &&
	[ $rc_get_missing = 1 ] && [ $rc_small = 1 ] ||
	fail "exit codes $rc_create_again $rc_replace_missing $rc_get_missing $rc_small"
[ "$(sort "$work/ls.out" | tr '\n' ' ')" = "bin n1 n2 n3 n4 n5 " ] ||
	fail "xattr ls printed: $(cat "$work/ls.out")"
echo "$wire_name: SETXATTR, GETXATTR, LISTXATTRS ($(grep -c . "$work/ls.rows") frames), REMOVEXATTR decoded and right"
