#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# wire_check_v42.sh            READ_PLUS, OFFLOAD_STATUS, OFFLOAD_CANCEL
# wire_check_v42.sh clone DIR  CLONE and clone_blksize on the XFS export
#                              of the clonefs-setup.sh fixture DIR
#
# The NFSv4.2 part of the independent wire check (wire_check.sh has the
# rest; both use wire-lib.sh), run under harness.sh. Wireshark's dissector
# must decode the captured session with no malformed or error-level frame.
#
# Default: files of known layout in the backing directory are read with
# `nfs42 map` and `nfs42 cat --read-plus`. Every READ_PLUS (op 68) reply
# must hold exactly the segments of its file's layout inside the call's
# [offset, offset + count) (rule 1 of docs/read_plus.md: nothing past it,
# adjacent runs merged): content type (0 data, 1 hole), offset and length
# of each, in order; eof exactly when the window reaches the file size;
# each data segment's bytes those of the backing file there. Every file
# must be covered from 0 to its size by the replies and the holes SEEK
# answers for data prove (the client skips holes with SEEK; each such
# answer is checked against the layout). Then an async COPY
# that the harness's NFSv4 Test_Hooks Copy_Chunk_Delay_Ms (100 ms per 1 MiB chunk)
# makes last ~1.2 s, so that the CLI's OFFLOAD_STATUS (op 67) poll at
# 500 ms sees it running, and one interrupted (SIGINT, as Ctrl-C) once
# its first chunk is written, so that the CLI sends OFFLOAD_CANCEL (op 66)
# at its next poll: both calls and NFS4_OK replies decoded, a status reply
# with a count between 0 and the size and no osr_complete. The wire is
# checked before what our client saw (exit codes, copies, map's output).
#
# clone: CLONE (op 71) of a file on the XFS reflink export answers NFS4_OK,
# and a GETATTR reply decodes clone_blksize (attribute 77) as the XFS
# block size. Skipped (77) with the fixture's reason where it could not
# be made (not root, no loop devices, no xfsprogs).
set -euo pipefail

wire_name=wire_check_v42
# shellcheck source=tests/e2e/wire-lib.sh
. "$(dirname "$0")/wire-lib.sh"

mode=${1:-}
if [ "$mode" = clone ]; then
	fix=${2:?usage: wire_check_v42.sh clone DIR}
	if [ -f "$fix/skip" ]; then
		echo "$wire_name: CLONE on XFS skipped: $(cat "$fix/skip")"
		exit 77
	fi
	wcl=${SPARSE_WIRE_CLIENT:?}
	head -c 1048576 /dev/urandom >"$fix/x/clone.src"
	bsize=$(stat -f -c %s "$fix/x") # statvfs f_bsize
	wire_start
	# the wire first, then what our client saw
	clone_rc=0
	"$nfs42" cp --clone /xfs/clone.src /xfs/clone.dst 2>"$work/clone.err" ||
		clone_rc=$?
	got=$("$wcl" blksize /xfs/clone.src) || fail "GETATTR clone_blksize failed"
	wire_stop
	wire_no_errors
	# CLONE (RFC 7862 15.13): call and NFS4_OK reply
	wire_op_call 71
	wire_op_reply 71 0
	# clone_blksize in a GETATTR (op 9) reply, decoded by tshark
	blk=$(decode -Y 'nfs && rpc.msgtyp == 1 && nfs.fattr4.clone_block_size' \
		-T fields -e nfs.fattr4.clone_block_size | sort -u)
	[ "$blk" = "$bsize" ] ||
		fail "dissected clone_blksize '$blk', want $bsize (the XFS block size)"
	[ $clone_rc = 0 ] || fail "cp --clone on XFS failed: $(cat "$work/clone.err")"
	cmp -s "$fix/x/clone.src" "$fix/x/clone.dst" || fail "the clone differs"
	[ "$got" = "$bsize" ] || fail "our client read clone_blksize $got, want $bsize"
	echo "$wire_name: CLONE NFS4_OK and clone_blksize $blk decoded on XFS"
	exit 0
fi

# --- READ_PLUS ---------------------------------------------------------
# Layouts: "offset:length:d|h ..." runs covering the file; the file's size
# is the end of the last run. Data is random, holes are never written.
declare -A layout=(
	[rp.mixed]="0:65536:d 65536:983040:h 1048576:8192:d 1056768:1040384:h"
	[rp.hole]="0:1572864:h"
	[rp.data]="0:307200:d"
	[rp.lead]="0:131072:h 131072:65536:d"
	[rp.stripes]="$(for k in 0 1 2 3 4 5 6 7; do
		printf '%d:65536:d %d:65536:h ' $((k * 131072)) $((k * 131072 + 65536))
	done)"
)
files="rp.mixed rp.hole rp.data rp.lead rp.stripes"
for f in $files; do
	: >"$backing/$f"
	size=0
	for run in ${layout[$f]}; do
		IFS=: read -r o l t <<<"$run"
		if [ "$t" = d ]; then
			head -c "$l" /dev/urandom |
				dd of="$backing/$f" bs=4096 seek=$((o / 4096)) conv=notrunc status=none
		fi
		size=$((o + l))
	done
	truncate -s "$size" "$backing/$f"
done

# OFFLOAD_*: 12 MiB of data, 12 chunks of 1 MiB at 100 ms each
head -c $((12 << 20)) /dev/urandom >"$backing/big.src"

wire_start
# the wire is checked first, then what our client saw (client.rc)
: >"$work/client.rc"
for f in $files; do
	"$nfs42" map "$exp/$f" >"$work/$f.map" 2>&1 ||
		echo "nfs42 map $f exited $?: $(cat "$work/$f.map")" >>"$work/client.rc"
	"$nfs42" cat --read-plus "$exp/$f" -o "$work/$f.out" 2>"$work/$f.err" ||
		echo "nfs42 cat --read-plus $f exited $?: $(cat "$work/$f.err")" >>"$work/client.rc"
done
"$nfs42" cp --async "$exp/big.src" "$exp/big.dst" 2>"$work/async.err" ||
	echo "cp --async exited $?: $(cat "$work/async.err")" >>"$work/client.rc"
"$nfs42" cp --async "$exp/big.src" "$exp/big.cancel" 2>"$work/cancel.err" &
cp_pid=$!
# interrupt once the server is copying (the CLI's handler is in place)
for _ in $(seq 100); do
	[ "$(stat -c %s "$backing/big.cancel" 2>/dev/null || echo 0)" -gt 0 ] && break
	sleep 0.05
done
kill -INT "$cp_pid" 2>/dev/null || true # gone: the copy was not slowed
cancel_rc=0
wait "$cp_pid" || cancel_rc=$?
wire_stop

wire_no_errors

# READ_PLUS calls: connection and xid, fh hash of the PUTFH, offset,
# count; replies: connection and xid, statuses, eof, and per segment its
# type, offset, data length or hole length, and data. A file is known by
# its fh hash, files in the order first read.
decode -Y 'nfs && rpc.msgtyp == 0 && nfs.opcode == 68' -T fields \
	-e tcp.stream -e rpc.xid -e nfs.fh.hash -e nfs.offset4 -e nfs.count4 \
	>"$work/rp.calls"
decode -Y 'nfs && rpc.msgtyp == 1 && nfs.opcode == 68' -T fields \
	-e tcp.stream -e rpc.xid -e nfs.nfsstat4 -e nfs.eof -e nfs.content.type \
	-e nfs.offset4 -e nfs.read.data_length -e nfs.length4 -e nfs.data \
	>"$work/rp.replies"
# SEEK (op 69) calls and replies: the client skips holes with SEEK for
# data (issue #28), so a file is covered by READ_PLUS replies and the
# holes SEEK answers prove, each checked against the layout.
decode -Y 'nfs && rpc.msgtyp == 0 && nfs.opcode == 69' -T fields \
	-e tcp.stream -e rpc.xid -e nfs.fh.hash -e nfs.offset4 -e nfs.data_content \
	>"$work/seek.calls"
decode -Y 'nfs && rpc.msgtyp == 1 && nfs.opcode == 69' -T fields \
	-e tcp.stream -e rpc.xid -e nfs.nfsstat4 -e nfs.eof -e nfs.offset4 \
	>"$work/seek.replies"
specs=
for f in $files; do specs="$specs$f=${layout[$f]};"; done
perl -e '
use strict; use warnings;
my ($calls, $replies, $backing, $specs, $seekcalls, $seekreplies) = @ARGV;
my (%lay, %size, @order, %file_of, %call, %covered, $nrep, $maxseg);
$maxseg = 0;
for (split /;/, $specs) {
	my ($f, $runs) = split /=/;
	push @order, $f;
	for (split " ", $runs) {
		my ($o, $l, $t) = split /:/;
		push @{$lay{$f}}, [$o, $l, $t eq "d" ? 0 : 1];
		$size{$f} = $o + $l;
	}
}
sub bad { print STDERR "wire_check_v42: FAIL: @_\n"; exit 1 }
open my $c, "<", $calls or die;
while (<$c>) {
	chomp;
	my ($tcp, $xid, $fh, $off, $cnt) = split /\t/;
	$fh = (split /,/, $fh)[-1];
	unless (exists $file_of{$fh}) {
		my $n = scalar keys %file_of;
		bad("READ_PLUS of more files than read") if $n >= @order;
		$file_of{$fh} = $order[$n];
	}
	$call{"$tcp/$xid"} = [$file_of{$fh}, $off, $cnt];
}
open my $r, "<", $replies or die;
while (<$r>) {
	chomp;
	my ($tcp, $xid, $st, $eof, $types, $offs, $dlens, $hlens, $data) =
		split /\t/, $_, -1;
	my $k = $call{"$tcp/$xid"} or bad("READ_PLUS reply $xid without a call");
	my ($f, $off, $cnt) = @$k;
	$st = (split /,/, $st)[-1];
	bad("$f READ_PLUS at $off: status $st") if $st != 0;
	my $end = $off + $cnt;
	$end = $size{$f} if $end > $size{$f};
	# expected: the layout inside [off, end), adjacent runs merged
	my @want;
	for my $x (@{$lay{$f}}) {
		my ($o, $l, $t) = @$x;
		my ($a, $b) = ($o > $off ? $o : $off, $o + $l < $end ? $o + $l : $end);
		next if $a >= $b;
		if (@want && $want[-1][2] == $t) { $want[-1][1] = $b - $want[-1][0] }
		else { push @want, [$a, $b - $a, $t] }
	}
	my @t = split /,/, $types;
	my @o = split /,/, $offs;
	my @dl = split /,/, $dlens;
	my @hl = split /,/, $hlens;
	my @d = split /,/, $data;
	my (@got, @gdata);
	for my $i (0 .. $#t) {
		my $len = $t[$i] == 0 ? shift @dl : shift @hl;
		bad("$f READ_PLUS at $off: segment $i undecoded") unless defined $len && defined $o[$i];
		push @got, [$o[$i], $len, $t[$i]];
		push @gdata, [$o[$i], shift @d] if $t[$i] == 0;
	}
	my $fmt = sub { join " ", map { "$_->[0]:$_->[1]:" . ($_->[2] ? "h" : "d") } @_ };
	my ($gs, $ws) = ($fmt->(@got), $fmt->(@want));
	bad("$f READ_PLUS [$off, +$cnt): segments \"$gs\", want \"$ws\"") if $gs ne $ws;
	my $weof = $off + $cnt >= $size{$f} ? 1 : 0;
	bad("$f READ_PLUS [$off, +$cnt): eof $eof, want $weof") if $eof != $weof;
	open my $b, "<:raw", "$backing/$f" or die;
	for my $g (@gdata) {
		my ($o, $hex) = @$g;
		$hex = "" unless defined $hex;
		$hex =~ tr/://d;
		my $bytes = pack "H*", $hex;
		my $want = "";
		seek $b, $o, 0; read $b, $want, length($bytes) || 1;
		my $wl = 0;
		for (@got) { $wl = $_->[1] if $_->[0] == $o && $_->[2] == 0 }
		bad("$f data segment at $o: dissected bytes differ from the backing file")
			if length($bytes) != $wl || $bytes ne substr($want, 0, $wl);
	}
	push @{$covered{$f}}, [$off, $end];
	$nrep++;
	$maxseg = @got if @got > $maxseg;
}
# SEEK for data from a answered b (or eof: none): [a, b) is a hole
my %scall;
open my $sc, "<", $seekcalls or die;
while (<$sc>) {
	chomp;
	my ($tcp, $xid, $fh, $off, $what) = split /\t/;
	$fh = (split /,/, $fh)[-1];
	next unless exists $file_of{$fh} && $what == 0;
	$scall{"$tcp/$xid"} = [$file_of{$fh}, $off];
}
my $nseek = 0;
open my $sr, "<", $seekreplies or die;
while (<$sr>) {
	chomp;
	my ($tcp, $xid, $st, $eof, $off) = split /\t/, $_, -1;
	my $k = $scall{"$tcp/$xid"} or next;
	my ($f, $a) = @$k;
	$st = (split /,/, $st)[-1];
	# NFS4ERR_NXIO: no data from a on (a trailing hole, or past EOF),
	# as sr_eof says it (RFC 7862 15.11.3)
	bad("$f SEEK at $a: status $st") if $st != 0 && $st != 6;
	my $b = ($eof || $st == 6) ? $size{$f} : $off;
	$b = $a if $b < $a;
	for my $x (@{$lay{$f}}) {
		my ($o, $l, $t) = @$x;
		bad("$f SEEK data from $a answered $b, over data at $o")
			if !$t && $o < $b && $o + $l > $a;
	}
	bad("$f SEEK data from $a answered $b: data there not found")
		if !$eof && $st == 0 && !grep { !$_->[2] && $_->[0] <= $b && $b < $_->[0] + $_->[1] } @{$lay{$f}};
	push @{$covered{$f}}, [$a, $b];
	$nseek++;
}
for my $f (@order) {
	my $at = 0;
	for (sort { $a->[0] <=> $b->[0] } @{$covered{$f} || []}) {
		$at = $_->[1] if $_->[0] <= $at && $_->[1] > $at;
	}
	bad("$f: READ_PLUS replies and SEEK holes cover [0, $at) of $size{$f} bytes") if $at < $size{$f};
}
print "$nrep READ_PLUS replies match their layouts (up to $maxseg segments in one), $nseek SEEK holes too\n";
' "$work/rp.calls" "$work/rp.replies" "$backing" "$specs" \
	"$work/seek.calls" "$work/seek.replies" >"$work/rp.result" ||
	exit 1
rp_result=$(cat "$work/rp.result")

# OFFLOAD_STATUS (op 67, RFC 7862 15.9): calls and NFS4_OK replies; one
# reply (the copy still running at the first poll) has an osr_count
# (tshark's nfs.length4) strictly between 0 and the file size and no
# osr_complete (nfs.num_offload_status 0).
wire_op_call 67
wire_op_reply 67 0
big=$((12 << 20))
decode -Y 'nfs && rpc.msgtyp == 1 && nfs.opcode == 67' -T fields \
	-e nfs.length4 -e nfs.num_offload_status >"$work/osr"
awk -F'\t' -v big=$big '$1 > 0 && $1 < big && $2 == 0 { ok = 1 }
	END { exit !ok }' "$work/osr" ||
	fail "no OFFLOAD_STATUS reply of a running copy (osr_count, osr_complete count: $(tr '\n' ' ' <"$work/osr"))"
# OFFLOAD_CANCEL (op 66, RFC 7862 15.8) of the interrupted copy: call and
# NFS4_OK reply, and the copy stopped short
wire_op_call 66
wire_op_reply 66 0

[ ! -s "$work/client.rc" ] || fail "$(cat "$work/client.rc")"
cmp -s "$backing/big.dst" "$backing/big.src" || fail "cp --async copy differs"
# our client's view: cat's copy, and the runs map printed (replies merged)
for f in $files; do
	cmp -s "$work/$f.out" "$backing/$f" || fail "cat --read-plus of $f differs"
	want=$(for run in ${layout[$f]}; do
		IFS=: read -r o l t <<<"$run"
		[ "$t" = d ] && t=data || t=hole
		echo "$o $l $t"
	done)
	[ "$(cat "$work/$f.map")" = "$want" ] ||
		fail "nfs42 map $f printed '$(cat "$work/$f.map")', want '$want'"
done
if [ $cancel_rc != 1 ] || ! grep -q "copy cancelled" "$work/cancel.err"; then
	fail "interrupted cp --async exited $cancel_rc, want 1 'copy cancelled': $(cat "$work/cancel.err")"
fi
[ "$(stat -c %s "$backing/big.cancel")" -lt $big ] ||
	fail "the cancelled copy went to the end"

echo "$wire_name: $(decode | wc -l) frames decoded; $rp_result; OFFLOAD_STATUS and OFFLOAD_CANCEL decoded"
